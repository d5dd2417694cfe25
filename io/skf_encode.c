/* skf_encode.c - .skf encoder: canonical quantization, joint-set modelling (repeat / move-to-front / new set),
 * stream split and per-chunk deflate. The decoder is io/runtime/skf_decoder.h; docs/skf.md is the spec. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "skf.h"

/* ---- growable byte buffer ---------------------------------------------------------------------------------- */
typedef struct skf_buf {
  unsigned char* p;
  size_t n, cap;
  int failed;
} skf_buf;

static int buf_reserve(skf_buf* b, size_t extra) {
  if (b->failed) return 0;
  if (b->cap - b->n >= extra) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->n < extra) {
    if (cap > SIZE_MAX / 2) {
      b->failed = 1;
      return 0;
    }
    cap *= 2;
  }
  unsigned char* q = realloc(b->p, cap);
  if (!q) {
    b->failed = 1;
    return 0;
  }
  b->p = q;
  b->cap = cap;
  return 1;
}
static void buf_put(skf_buf* b, const void* src, size_t n) {
  if (n && buf_reserve(b, n)) {
    memcpy(b->p + b->n, src, n);
    b->n += n;
  }
}
static void buf_u8(skf_buf* b, uint32_t v) {
  unsigned char c = (unsigned char)v;
  buf_put(b, &c, 1);
}
static void buf_u16(skf_buf* b, uint32_t v) {
  unsigned char c[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
  buf_put(b, c, 2);
}
static void buf_u32(skf_buf* b, uint32_t v) {
  unsigned char c[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
  buf_put(b, c, 4);
}
static void buf_u64(skf_buf* b, uint64_t v) {
  buf_u32(b, (uint32_t)v);
  buf_u32(b, (uint32_t)(v >> 32));
}
static void wr32(unsigned char* p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}
static void wr64(unsigned char* p, uint64_t v) {
  wr32(p, (uint32_t)v);
  wr32(p + 4, (uint32_t)(v >> 32));
}

/* ---- canonical quantization -------------------------------------------------------------------------------- */
size_t skio_skf_quantize_vertex(const uint32_t* joints, const float* weights, size_t count, uint32_t k, uint32_t total,
                                uint32_t* out_joints, uint32_t* out_weights) {
  /* merge duplicate joints among the valid entries: keep a small running top list of distinct joints. Entries
   * of the same joint are summed first so a split weight competes as one. */
  enum { CAP = 64 };
  uint32_t mj[CAP];
  float mw[CAP];
  size_t m = 0;
  float tw[SKF_MAX_INFLUENCES];
  uint32_t tj[SKF_MAX_INFLUENCES], q[SKF_MAX_INFLUENCES];
  int has_dup = 0;
  for (size_t i = 0; i < count && !has_dup; ++i)
    for (size_t t = i + 1; t < count && t < i + CAP; ++t)
      if (joints[t] == joints[i]) has_dup = 1;
  size_t n;
  if (!has_dup || count > CAP) {
    n = skc_select_top(joints, weights, count, k, tj, tw);
  } else {
    for (size_t i = 0; i < count; ++i) {
      float w = weights[i];
      if (!(w > 0.0f) || !(w < 3.0e38f)) continue;
      size_t t = 0;
      while (t < m && mj[t] != joints[i]) ++t;
      if (t == m) {
        mj[m] = joints[i];
        mw[m++] = w;
      } else {
        mw[t] += w;
      }
    }
    n = skc_select_top(mj, mw, m, k, tj, tw);
  }
  skc_quantize_weights(tw, n, total, q);
  size_t r = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!q[i]) continue;
    size_t pos = r;
    while (pos > 0 && out_joints[pos - 1] > tj[i]) {
      out_joints[pos] = out_joints[pos - 1];
      out_weights[pos] = out_weights[pos - 1];
      --pos;
    }
    out_joints[pos] = tj[i];
    out_weights[pos] = q[i];
    ++r;
  }
  return r;
}

static uint32_t quantize_at(const skc_skin* s, size_t v, uint32_t k, uint32_t total, uint32_t* qj, uint32_t* qw) {
  size_t b = s->offsets[v], n = s->offsets[v + 1] - b;
  if (!n) return 0; /* a skin without entries may have NULL arrays */
  return (uint32_t)skio_skf_quantize_vertex(s->joints + b, s->weights + b, n, k, total, qj, qw);
}

/* far-reference policies the encoder tries per chunk: weight of the distance's bits against coding the weights
 * (0 = no far references), and of a cache rank's bits against a far reference (0 = never instead of a hit) */
static const struct {
  double miss, deep;
} k_far_policy[] = {{0, 0}, {0.5, 0}, {0.5, 1.5}}; /* 5 policies ({0.35, 1.2}, {0.7, 2.0} more) gave 0.5712 */
#define SKF_FAR_POLICIES ((int)(sizeof k_far_policy / sizeof *k_far_policy))
#ifndef SKF_FAR_MIN_INFLUENCES
#define SKF_FAR_MIN_INFLUENCES 2u /* a far reference is used only for vertices with at least this many influences */
#endif
/* ---- encoder state (mirror of the decoder's) ---------------------------------------------------------------- */
typedef struct enc_set {
  uint32_t n;
  uint32_t j[SKF_MAX_INFLUENCES];
  uint32_t w[SKF_MAX_INFLUENCES];
  uint32_t hp; /* vertex cache records: history position of the content */
} enc_set;

/* canonical (quantized) vertex of the mesh being coded */
typedef struct enc_vtx {
  uint8_t n;
  uint16_t j[SKF_MAX_INFLUENCES];
  uint16_t w[SKF_MAX_INFLUENCES];
} enc_vtx;

/* Equal first n entries: a loop that stops at the first difference, not a memcmp call per cache slot (the caches'
 * misses differ in the first entry; memcmp calls were 46 % of packing a mesh of unrelated joint sets). */
static int same_u32(const uint32_t* a, const uint32_t* b, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}
static int same_u16(const uint16_t* a, const uint16_t* b, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

typedef struct enc_state {
  enc_set sets[SKF_MTF_SIZE];
  unsigned char mtf[SKF_MTF_SIZE];
  uint32_t mtf_len;
  enc_set recs[SKF_VCACHE_SIZE];
  unsigned char rmtf[SKF_VCACHE_SIZE];
  uint32_t rlen;
  skf_buf ops, cnt, jnt, wgt, nwg, far, wld;
  uint32_t wb, jb, mask;
  /* history of vertices coded with weights (ops 1..62, 255), for SKF_OP_FAR; a hash of their content maps to the
   * latest history position */
  uint32_t* hist;
  uint32_t hist_len;
  uint32_t* hp;   /* per vertex: history position of its content, once coded */
  int far_mode;   /* encoder choice: 0 no far references, 1 on cache misses, 2 also instead of deep cache hits */
  uint32_t* hmap; /* history position + 1, 0 = empty */
  size_t hmask;
} enc_state;

static uint32_t vtx_hash(const enc_vtx* x) {
  uint32_t h = 0x811C9DC5u ^ x->n;
  for (uint32_t i = 0; i < x->n; ++i) h = (h ^ ((uint32_t)x->j[i] | (uint32_t)x->w[i] << 16)) * 0x9E3779B1u;
  return h ^ (h >> 15);
}
static int vtx_eq(const enc_vtx* a, const enc_vtx* b) {
  return a->n == b->n && same_u16(a->j, b->j, a->n) && same_u16(a->w, b->w, a->n);
}
/* history slot of the latest vertex coded with weights equal to q[v], or UINT32_MAX */
static uint32_t hist_find(const enc_state* e, const enc_vtx* q, uint32_t v) {
  for (size_t h = vtx_hash(&q[v]) & e->hmask;; h = (h + 1) & e->hmask) {
    uint32_t s = e->hmap[h];
    if (!s) return UINT32_MAX;
    if (vtx_eq(&q[e->hist[s - 1]], &q[v])) return s - 1;
  }
}
static void hist_add(enc_state* e, const enc_vtx* q, uint32_t v) {
  uint32_t idx = e->hist_len++;
  e->hist[idx] = v;
  for (size_t h = vtx_hash(&q[v]) & e->hmask;; h = (h + 1) & e->hmask) {
    uint32_t s = e->hmap[h];
    if (!s || vtx_eq(&q[e->hist[s - 1]], &q[v])) {
      e->hmap[h] = idx + 1;
      return;
    }
  }
}
static void buf_varint(skf_buf* b, uint32_t x) {
  while (x >= 0x80u) {
    buf_u8(b, (x & 0x7fu) | 0x80u);
    x >>= 7;
  }
  buf_u8(b, x);
}

/* The decoder's predictor: per joint of set s, the mean weight among the already decoded corners of the vertex's
 * first triangle that have that joint (rounded half up), else the set's last weight. Returns whether any corner
 * contributed (the residuals then go to the nweights stream). */
static int predict(const enc_set* s, const enc_vtx* q, const uint32_t* ix, size_t ic, size_t tri, uint32_t v,
                   const uint32_t* pos, uint32_t k, uint32_t* pred) {
  uint32_t sum[SKF_MAX_INFLUENCES] = {0}, cnt[SKF_MAX_INFLUENCES] = {0}, nb = 0;
  if (tri != SIZE_MAX) {
    for (size_t c = tri; c < tri + 3 && c < ic; ++c) {
      uint32_t u = ix[c];
      if (u == v || pos[u] >= k) continue; /* only corners decoded before v */
      for (uint32_t i = 0; i < s->n; ++i)
        for (uint32_t a = 0; a < q[u].n; ++a)
          if (q[u].j[a] == s->j[i]) {
            sum[i] += q[u].w[a];
            ++cnt[i];
          }
    }
  }
  for (uint32_t i = 0; i < s->n; ++i) {
    pred[i] = cnt[i] ? (sum[i] + cnt[i] / 2u) / cnt[i] : s->w[i]; /* cnt <= 2 */
    nb |= cnt[i];
  }
  return nb != 0;
}

static void put_weights(enc_state* e, enc_set* s, const uint32_t* w, const uint32_t* pred, int nb) {
  uint32_t imp = 0; /* implied: the largest predicted weight, first on ties (the decoder's rule) */
  for (uint32_t i = 1; i < s->n; ++i)
    if (pred[i] > pred[imp]) imp = i;
  skf_buf* out = nb ? &e->nwg : &e->wgt;
  for (uint32_t i = 0; i < s->n; ++i) {
    if (i == imp) continue;
    uint32_t d = (w[i] - pred[i]) & e->mask;
    /* signed residual in the weight width, then zigzag */
    int32_t sd = e->wb == 1 ? (int32_t)(int8_t)(uint8_t)d : (int32_t)(int16_t)(uint16_t)d;
    uint32_t z = ((uint32_t)sd << 1) ^ (uint32_t)(sd >> 31);
    z &= e->mask;
    if (e->wb == 1)
      buf_u8(out, z);
    else
      buf_u16(out, z);
  }
  memcpy(s->w, w, s->n * sizeof *w);
}

static int same_vertex(const enc_set* s, uint32_t n, const uint32_t* j, const uint32_t* w) {
  return s->n == n && same_u32(s->j, j, n) && same_u32(s->w, w, n);
}

static void push_record(enc_state* e, const enc_set* s) {
  uint32_t slot = e->rlen < SKF_VCACHE_SIZE ? e->rlen++ : e->rmtf[SKF_VCACHE_SIZE - 1];
  memmove(e->rmtf + 1, e->rmtf, e->rlen - 1);
  e->rmtf[0] = (unsigned char)slot;
  e->recs[slot] = *s;
}

static double bits_of(uint32_t x) {
  double b = 1;
  while (x) {
    b += 2;
    x >>= 1;
  }
  return b;
}
/* Rough cost in bits of coding q[v] with its joint set and predicted weights, against a far reference d back. */
static int far_pays(const enc_state* e, const enc_vtx* q, uint32_t v, uint32_t k, const uint32_t* ix, size_t ic,
                    size_t tri, const uint32_t* pos, uint32_t d) {
  enc_set s;
  uint32_t pred[SKF_MAX_INFLUENCES], n = q[v].n, r = 0;
  double set_bits;
  s.n = n;
  for (uint32_t i = 0; i < n; ++i) s.j[i] = q[v].j[i];
  memset(s.w, 0, sizeof s.w);
  for (; r < e->mtf_len; ++r) {
    const enc_set* c = &e->sets[e->mtf[r]];
    if (c->n == n && same_u32(c->j, s.j, n)) {
      memcpy(s.w, c->w, sizeof s.w);
      break;
    }
  }
  set_bits = r < e->mtf_len ? (r < 2 ? 2.0 : 6.0) : 12.0 + 6.0 * n;
  predict(&s, q, ix, ic, tri, v, pos, k, pred);
  uint32_t imp = 0;
  for (uint32_t i = 1; i < n; ++i)
    if (pred[i] > pred[imp]) imp = i;
  for (uint32_t i = 0; i < n; ++i) {
    if (i == imp) continue;
    int32_t dd = (int32_t)q[v].w[i] - (int32_t)pred[i];
    set_bits += bits_of((uint32_t)(dd < 0 ? -dd : dd));
  }
  return set_bits > 8.0 + k_far_policy[e->far_mode].miss * bits_of(d);
}

/* History position the far distances of vertex v count from: that of the first already coded corner of its first
 * triangle, else the end of the history. */
static uint32_t far_anchor(const enc_state* e, uint32_t v, uint32_t k, const uint32_t* ix, size_t ic, size_t tri,
                           const uint32_t* pos) {
  uint32_t anchor = e->hist_len;
  if (tri != SIZE_MAX)
    for (size_t c = tri; c < tri + 3 && c < ic; ++c)
      if (ix[c] != v && pos[ix[c]] < k) {
        anchor = e->hp[ix[c]];
        break;
      }
  return anchor;
}

/* Codes vertex v as the previous vertex again or as a hit in the vertex cache, when it is there and the far policy
 * does not prefer a far reference. Returns whether it did. */
static int code_cached(enc_state* e, uint32_t v, uint32_t n, const uint32_t* j, const uint32_t* w, uint32_t anchor) {
  for (uint32_t r = 0; r < e->rlen; ++r) {
    if (!same_vertex(&e->recs[e->rmtf[r]], n, j, w)) continue;
    if (r > 0 && k_far_policy[e->far_mode].deep > 0) {
      int64_t delta = (int64_t)e->recs[e->rmtf[r]].hp - (int64_t)anchor;
      uint32_t zd = delta < 0 ? (uint32_t)(-delta * 2 - 1) : (uint32_t)(delta * 2);
      if (8.0 + k_far_policy[e->far_mode].miss * bits_of(zd) < k_far_policy[e->far_mode].deep * bits_of(r))
        break; /* a far reference is cheaper */
    }
    e->hp[v] = e->recs[e->rmtf[r]].hp;
    if (r == 0) {
      buf_u8(&e->ops, SKF_OP_REPEAT);
      return 1;
    }
    unsigned char slot = e->rmtf[r];
    memmove(e->rmtf + 1, e->rmtf, r);
    e->rmtf[0] = slot;
    buf_u8(&e->ops, SKF_OP_VCACHE + r);
    return 1;
  }
  return 0;
}

/* Codes vertex v as a far reference to an earlier vertex with the same weights, when the far policy allows one and
 * it pays. Returns whether it did. */
static int code_far(enc_state* e, const enc_vtx* q, uint32_t v, uint32_t k, const uint32_t* ix, size_t ic, size_t tri,
                    const uint32_t* pos, const uint32_t* j, const uint32_t* w, uint32_t anchor) {
  uint32_t n = q[v].n;
  if (n >= SKF_FAR_MIN_INFLUENCES && k_far_policy[e->far_mode].miss > 0) {
    uint32_t hidx = hist_find(e, q, v);
    int64_t delta = (int64_t)hidx - (int64_t)anchor;
    uint32_t zd = delta < 0 ? (uint32_t)(-delta * 2 - 1) : (uint32_t)(delta * 2);
    if (hidx != UINT32_MAX && far_pays(e, q, v, k, ix, ic, tri, pos, zd)) {
      enc_set rec;
      buf_u8(&e->ops, SKF_OP_FAR);
      buf_varint(&e->far, zd);
      e->hp[v] = hidx;
      rec.hp = hidx;
      rec.n = n;
      memcpy(rec.j, j, sizeof rec.j);
      memcpy(rec.w, w, sizeof rec.w);
      push_record(e, &rec);
      return 1;
    }
  }
  return 0;
}

/* The joint set of n joints j: a move-to-front hit (its op written), else a new set in a free or the least recently
 * used slot (its op, count and joint deltas written, weights zero). */
static enc_set* code_joint_set(enc_state* e, uint32_t n, const uint32_t* j) {
  for (uint32_t r = 0; r < e->mtf_len; ++r) {
    enc_set* c = &e->sets[e->mtf[r]];
    if (c->n != n || !same_u32(c->j, j, n)) continue;
    unsigned char slot = e->mtf[r];
    memmove(e->mtf + 1, e->mtf, r);
    e->mtf[0] = slot;
    buf_u8(&e->ops, 1u + r);
    return c;
  }
  uint32_t slot;
  if (e->mtf_len < SKF_MTF_SIZE)
    slot = e->mtf_len++;
  else
    slot = e->mtf[SKF_MTF_SIZE - 1];
  memmove(e->mtf + 1, e->mtf, e->mtf_len - 1);
  e->mtf[0] = (unsigned char)slot;
  enc_set* s = &e->sets[slot];
  buf_u8(&e->ops, SKF_OP_NEW_SET);
  buf_u8(&e->cnt, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t d = i == 0 ? j[0] : j[i] - j[i - 1] - 1u;
    if (e->jb == 1)
      buf_u8(&e->jnt, d);
    else
      buf_u16(&e->jnt, d);
  }
  s->n = n;
  memcpy(s->j, j, n * sizeof *j);
  memset(s->w, 0, sizeof s->w);
  return s;
}

/* Codes vertex v (coding position k, first triangle at index tri or SIZE_MAX). */
static void enc_vertex(enc_state* e, const enc_vtx* q, uint32_t v, uint32_t k, const uint32_t* ix, size_t ic,
                       size_t tri, const uint32_t* pos) {
  uint32_t n = q[v].n, j[SKF_MAX_INFLUENCES], w[SKF_MAX_INFLUENCES], pred[SKF_MAX_INFLUENCES];
  for (uint32_t i = 0; i < n; ++i) {
    j[i] = q[v].j[i];
    w[i] = q[v].w[i];
  }
  /* 1. the previous vertex again, 2. a recent distinct vertex, 3. a known joint set with new weights, 4. a new set */
  uint32_t anchor = far_anchor(e, v, k, ix, ic, tri, pos);
  if (code_cached(e, v, n, j, w, anchor)) return;
  if (code_far(e, q, v, k, ix, ic, tri, pos, j, w, anchor)) return;
  enc_set* s = code_joint_set(e, n, j);
  if (n) {
    int nb = predict(s, q, ix, ic, tri, v, pos, k, pred);
    put_weights(e, s, w, pred, nb);
  }
  s->hp = e->hp[v] = e->hist_len;
  push_record(e, s);
  hist_add(e, q, v);
}

/* zlib's window and memory level for a chunk of n bytes: the smallest window that still reaches back over the whole
 * chunk (zlib keeps 262 bytes of lookahead out of it) and a hash table and block buffer of the same order, capped
 * at zlib's maxima (32 KiB window, memLevel 9). Output is then the same matches as with the maxima, but a small
 * chunk no longer clears and touches ~400 KiB of zlib state: packing small skins (and the round-trip fuzz target)
 * was dominated by that memset and its page faults. */
static void zlib_sizes(size_t n, int* wbits, int* mem_level) {
  int w = 9;
  while (w < 15 && ((size_t)1 << w) < n + 262u) ++w;
  *wbits = w;
  *mem_level = w - 6 < 1 ? 1 : w - 6 > 9 ? 9 : w - 6;
}

/* Deflates raw into a chunk appended to out: one zlib stream. seg_ends[i] ends segment i (the last one ends at
 * raw_size); each segment gets its own deflate blocks (Huffman tables) and zlib strategy strat[i]. */
static int put_chunk_seg(skf_buf* out, const char* tag, const unsigned char* raw, size_t raw_size, int level,
                         const size_t* seg_ends, const int* strat, int seg_count, skc_err* err) {
  if (raw_size > UINT32_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "chunk %s would hold %zu bytes (max 4 GiB)", tag, raw_size);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  int wbits, mem_level;
  zlib_sizes(raw_size, &wbits, &mem_level);
  int zr = deflateInit2(&zs, level, Z_DEFLATED, wbits, mem_level, seg_count ? strat[0] : Z_FILTERED);
  if (zr != Z_OK) return skc_fail(err, SKC_OUT_OF_MEMORY, "zlib deflateInit2 failed (%d) on chunk %s", zr, tag);
  /* deflateBound is conservative for these parameters (any strategy); each forced block end may add 5 bytes */
  uint64_t bound = (uint64_t)deflateBound(&zs, (uLong)raw_size) + 16u * (uint64_t)seg_count + 64u;
  if (bound > 0xffffffffu) {
    deflateEnd(&zs);
    return skc_fail(err, SKC_OUT_OF_RANGE, "chunk %s is too large to deflate in one call", tag);
  }
  if (!buf_reserve(out, SKF_CHUNK_HEADER_SIZE + (size_t)bound)) {
    deflateEnd(&zs);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for chunk %s", tag);
  }
  unsigned char* h = out->p + out->n;
  zs.next_in = (Bytef*)(uintptr_t)raw;
  zs.next_out = h + SKF_CHUNK_HEADER_SIZE;
  zs.avail_out = (uInt)bound;
  size_t done = 0;
  for (int sgi = 0; sgi < seg_count; ++sgi) {
    size_t end = seg_ends[sgi] < raw_size ? seg_ends[sgi] : raw_size;
    if (sgi > 0 && strat[sgi] != strat[sgi - 1]) deflateParams(&zs, level, strat[sgi]);
    if (end <= done) continue;
    zs.avail_in = (uInt)(end - done);
    zr = deflate(&zs, Z_BLOCK);
    done = end;
  }
  zs.avail_in = (uInt)(raw_size - done);
  zr = deflate(&zs, Z_FINISH);
  uLong stored = zs.total_out;
  deflateEnd(&zs);
  if (zr != Z_STREAM_END) return skc_fail(err, SKC_INTERNAL, "zlib deflate failed (%d) on chunk %s", zr, tag);
  memcpy(h, tag, 4);
  wr32(h + 4, (uint32_t)stored);
  wr32(h + 8, (uint32_t)raw_size);
  out->n += SKF_CHUNK_HEADER_SIZE + stored;
  return SKC_OK;
}
static int put_chunk(skf_buf* out, const char* tag, const unsigned char* raw, size_t raw_size, int level,
                     skc_err* err) {
  return put_chunk_seg(out, tag, raw, raw_size, level, NULL, NULL, 0, err);
}

/* A chunk stored as it is (speed profile INFL: stored_size = raw_size, no zlib). */
static int put_chunk_raw(skf_buf* out, const char* tag, const unsigned char* raw, size_t raw_size, skc_err* err) {
  if (raw_size > UINT32_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "chunk %s would hold %zu bytes (max 4 GiB)", tag, raw_size);
  unsigned char h[SKF_CHUNK_HEADER_SIZE];
  memcpy(h, tag, 4);
  wr32(h + 4, (uint32_t)raw_size);
  wr32(h + 8, (uint32_t)raw_size);
  buf_put(out, h, sizeof h);
  buf_put(out, raw, raw_size);
  return out->failed ? skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for chunk %s", tag) : SKC_OK;
}

/* Speed profile, one byte plane of nl literal rows (stride r), docs/skf.md 3.1: byte deltas from the previous
 * literal (mod 256) in groups of SKF_FAST_GROUP; each group at 0, 2, 4 or 8 bits (2-bit codes, all codes first),
 * at 2 and 4 bits biased by 1 and 7 with the largest code an escape to a raw delta byte after the group's packed
 * bytes. Each group takes the width that costs the fewest bytes. */
static void fast_plane(skf_buf* b, const unsigned char* rows, size_t nl, size_t r, unsigned max_esc) {
  size_t groups = (nl + SKF_FAST_GROUP - 1) / SKF_FAST_GROUP, hn = (groups + 3) / 4, h0 = b->n;
  unsigned prev = 0;
  for (size_t i = 0; i < hn; ++i) buf_u8(b, 0);
  for (size_t g = 0; g < groups; ++g) {
    unsigned char d[SKF_FAST_GROUP] = {0};
    unsigned nz = 0, out1 = 0, out2 = 0;
    for (size_t t = 0; t < SKF_FAST_GROUP && g * SKF_FAST_GROUP + t < nl; ++t) {
      unsigned v = rows[(g * SKF_FAST_GROUP + t) * r];
      d[t] = (unsigned char)(v - prev);
      prev = v;
    }
    for (unsigned t = 0; t < SKF_FAST_GROUP; ++t) {
      int sd = (int)(signed char)d[t];
      nz += d[t] != 0;
      out1 += sd < -1 || sd > 1;
      out2 += sd < -7 || sd > 7;
    }
    unsigned w = 3, cost = 16;
    if (!nz) w = 0, cost = 0;
    /* at most max_esc (SKF_FAST_ESCAPES unless a test asks for more) escapes a group */
    if (w && out2 <= max_esc && 8 + out2 <= cost) w = 2, cost = 8 + out2;
    if (w && out1 <= max_esc && 4 + out1 <= cost) w = 1, cost = 4 + out1;
    if (!b->failed) b->p[h0 + g / 4] |= (unsigned char)(w << ((g & 3u) * 2u));
    if (w == 3) buf_put(b, d, SKF_FAST_GROUP);
    if (w != 1 && w != 2) continue;
    const unsigned lim = w == 1 ? 3u : 15u, bias = w == 1 ? 1u : 7u, nb = w == 1 ? 4u : 8u, bits = w == 1 ? 2u : 4u;
    unsigned char packed[8] = {0};
    for (unsigned t = 0; t < SKF_FAST_GROUP; ++t) {
      int c = (int)(signed char)d[t] + (int)bias;
      unsigned code = c >= 0 && c < (int)lim ? (unsigned)c : lim;
      packed[t % nb] |= (unsigned char)(code << ((t / nb) * bits));
    }
    buf_put(b, packed, nb);
    for (unsigned t = 0; t < SKF_FAST_GROUP; ++t) {
      int c = (int)(signed char)d[t] + (int)bias;
      if (!(c >= 0 && c < (int)lim)) buf_u8(b, d[t]);
    }
  }
}

/* Speed profile, one mesh in vertex order: rows of mk joints then mk weights (jb / wb bytes each, LE), ops (2 bits
 * per vertex: copy of the vertex 1..3 before, or 3 = next literal) into ops, literal planes into lit. *out_nl:
 * literal rows. 0 = no memory. */
static int fast_mesh(const skc_skin* s, uint32_t k, uint32_t total, uint32_t mk, uint32_t jb, uint32_t wb, skf_buf* ops,
                     skf_buf* lit, unsigned max_esc, uint32_t* out_nl, uint32_t* out_nj) {
  size_t vc = s->vertex_count, r = (size_t)mk * (jb + wb), nl = 0;
  unsigned char* rows = calloc(vc ? vc : 1, r ? r : 1);
  unsigned char* lrows = calloc(vc ? vc : 1, r ? r : 1);
  size_t o0 = ops->n;
  if (!rows || !lrows) {
    free(rows);
    free(lrows);
    return 0;
  }
  for (size_t i = 0; i < (vc + 3) / 4; ++i) buf_u8(ops, 0);
  for (size_t v = 0; v < vc; ++v) {
    uint32_t qj[SKF_MAX_INFLUENCES], qw[SKF_MAX_INFLUENCES];
    uint32_t n = quantize_at(s, v, k, total, qj, qw);
    unsigned char* q = rows + v * r;
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t b = 0; b < jb; ++b) q[i * jb + b] = (unsigned char)(qj[i] >> (8 * b));
      for (uint32_t b = 0; b < wb; ++b) q[mk * jb + i * wb + b] = (unsigned char)(qw[i] >> (8 * b));
    }
    uint32_t op = 3;
    for (uint32_t back = 1; back <= 3 && back <= v; ++back)
      if (memcmp(q, q - back * r, r) == 0) {
        op = back - 1;
        break;
      }
    if (op == 3) memcpy(lrows + nl++ * r, q, r);
    if (!ops->failed) ops->p[o0 + v / 4] |= (unsigned char)(op << ((v & 3u) * 2u));
  }
  /* a bit per literal: its joints differ from the previous literal's (all 0 before the first); only those joint
   * parts are stored, as their own planes */
  size_t jn = (size_t)mk * jb, nj = 0, f0 = lit->n;
  for (size_t i = 0; i < (nl + 7) / 8; ++i) buf_u8(lit, 0);
  for (size_t i = 0; i < nl; ++i) {
    static const unsigned char zero[2 * SKF_MAX_INFLUENCES] = {0};
    const unsigned char* prev = nj ? rows + (nj - 1) * jn : zero;
    if (!memcmp(lrows + i * r, prev, jn)) continue;
    memcpy(rows + nj++ * jn, lrows + i * r, jn); /* rows is free again: it holds the stored joint parts now */
    if (!lit->failed) lit->p[f0 + i / 8] |= (unsigned char)(1u << (i & 7u));
  }
  for (size_t p = 0; p < jn; ++p) fast_plane(lit, rows + p, nj, jn, max_esc);
  for (size_t p = jn; p < (mk > 1 ? r - wb : r); ++p) /* the last weight is implied */
    fast_plane(lit, lrows + p, nl, r, max_esc);
  free(rows);
  free(lrows);
  *out_nl = (uint32_t)nl;
  *out_nj = (uint32_t)nj;
  return 1;
}

/* Position weld of a mesh (SKF_ORDER_WELDED): first[v] = lowest vertex at v's position; a vertex is a copy when
 * that is another vertex with the same canonical influences. The others at a shared position are exceptions:
 * first[v] = v (coded like a first vertex), and when wld is given they are appended to it as the weld stream
 * (LEB128 gaps). Returns 0 on no memory. */
static int weld_mesh(const skio_skf_mesh* mesh, uint32_t k, uint32_t total, uint32_t* first, size_t* out_distinct,
                     size_t* out_copies, uint32_t* out_check, skf_buf* wld) {
  const skc_skin* s = mesh->skin;
  size_t vc = s->vertex_count, copies = 0, prev = 0, nexc = 0;
  size_t tn = skf_weld_scratch_count(vc);
  uint32_t* table = tn ? malloc(tn * sizeof *table) : NULL;
  if (!table) return 0;
  *out_distinct = skf_weld_positions(mesh->positions, vc, first, table, out_check);
  free(table);
  for (size_t v = 0; v < vc; ++v) {
    if (first[v] == v) continue;
    uint32_t aj[SKF_MAX_INFLUENCES], aw[SKF_MAX_INFLUENCES], bj[SKF_MAX_INFLUENCES], bw[SKF_MAX_INFLUENCES];
    uint32_t na = quantize_at(s, v, k, total, aj, aw), nb = quantize_at(s, first[v], k, total, bj, bw);
    if (na == nb && !memcmp(aj, bj, na * sizeof *aj) && !memcmp(aw, bw, na * sizeof *aw)) {
      ++copies;
      continue;
    }
    first[v] = (uint32_t)v; /* an exception: coded like a first vertex */
    if (wld) buf_varint(wld, (uint32_t)(nexc ? v - prev - 1u : v));
    prev = v;
    ++nexc;
  }
  *out_copies = copies;
  return 1;
}

static void resolve(const skio_skf_options* o, uint32_t* bits, uint32_t* k, int* level, size_t* group) {
  *bits = o && o->weight_bits ? o->weight_bits : 8;
  *k = o && o->max_influences ? o->max_influences : 4;
  *level = o && o->level ? o->level : 9;
  *group = o && o->group_vertices ? o->group_vertices : 262144;
  if (*group > UINT32_MAX) *group = UINT32_MAX; /* a group's vertex count is a u32 in the format */
}

static int check_input(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                       const skio_skf_options* opts, skc_err* err) {
  uint32_t bits, k;
  int level;
  size_t group;
  resolve(opts, &bits, &k, &level, &group);
  if (!skel) return skc_fail(err, SKC_INVALID_ARGUMENT, "a skeleton is required");
  if (mesh_count && !meshes) return skc_fail(err, SKC_INVALID_ARGUMENT, "meshes is NULL");
  if (bits != 8 && bits != 16) return skc_fail(err, SKC_INVALID_ARGUMENT, "weight bits must be 8 or 16, got %u", bits);
  if (k < 1 || k > SKF_MAX_INFLUENCES) return skc_fail(err, SKC_OUT_OF_RANGE, "max influences must be 1..8, got %u", k);
  if (level < 1 || level > 9) return skc_fail(err, SKC_INVALID_ARGUMENT, "zlib level must be 1..9, got %d", level);
  if (opts && opts->profile > SKIO_SKF_PROFILE_FAST)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown .skf coding profile %u", opts->profile);
  if (skel->joint_count < 1 || skel->joint_count > SKF_MAX_JOINTS)
    return skc_fail(err, SKC_OUT_OF_RANGE, "skeleton has %u joints (1..65535)", skel->joint_count);
  for (uint32_t m = 0; m < mesh_count; ++m) {
    const skc_skin* s = meshes[m].skin;
    if (!s) return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh %u has no skin", m);
    if (s->vertex_count > UINT32_MAX)
      return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u has more than 2^32-1 vertices", m);
    if (meshes[m].index_count && !meshes[m].indices)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh %u: index_count without indices", m);
    for (size_t i = 0; i < meshes[m].index_count; ++i)
      if (meshes[m].indices[i] >= s->vertex_count)
        return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u: index %zu is %u, past %zu vertices", m, i,
                        meshes[m].indices[i], s->vertex_count);
    if ((meshes[m].centers != NULL) != (meshes[0].centers != NULL))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh %u: centres of rotation are given for all meshes or none", m);
    for (size_t i = 0; meshes[m].centers && i < 3 * s->vertex_count; ++i)
      if (!isfinite(meshes[m].centers[i]))
        return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh %u: centre of vertex %zu is not finite", m, i / 3);
    size_t entries = s->offsets[s->vertex_count];
    for (size_t i = 0; i < entries; ++i)
      if (s->weights[i] > 0.0f && s->joints[i] >= skel->joint_count)
        return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u: joint %u is past the skeleton's %u joints", m, s->joints[i],
                        skel->joint_count);
  }
  return SKC_OK;
}

static size_t names_bytes(const skc_skeleton* skel) {
  size_t n = 0;
  for (uint32_t i = 0; i < skel->joint_count; ++i)
    n += (skel->names && skel->names[i] ? strlen(skel->names[i]) : 0) + 1;
  return n;
}

size_t skio_skf_encode_bound(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                             const skio_skf_options* opts) {
  if (check_input(skel, meshes, mesh_count, opts, NULL)) return 0;
  uint64_t v = 0;
  for (uint32_t m = 0; m < mesh_count; ++m) v += meshes[m].skin->vertex_count;
  uint64_t jnts = 8u + 68u * (uint64_t)skel->joint_count + names_bytes(skel);
  uint64_t mdsc = 8u + (uint64_t)SKF_MESH_RECORD_SIZE * mesh_count;
  uint64_t infl = (uint64_t)(SKF_INFL_TABLE_SIZE + SKF_INFL_MESH_SIZE) * (mesh_count + 1u) +
                  v * 40u; /* op, count, 16 joint and 14 weight bytes, a 5-byte far and a 5-byte weld number */
  if (opts && opts->profile == SKIO_SKF_PROFILE_FAST)
    infl += 600u * (uint64_t)mesh_count; /* 32 planes' last group + header */
  if (mesh_count && meshes[0].centers)   /* CORC: a chunk per mesh, 6 raw bytes a vertex, deflate slack */
    infl += (SKF_CORC_HEAD_SIZE + 200u) * (uint64_t)mesh_count + v * 7u;
  /* zlib's conservative deflateBound (memLevel 9): n + n/8 + n/64 + 11 per stream, plus 5 bytes per forced block
   * end; chunks <= meshes + 3 (groups <= meshes + 1) */
  uint64_t total = SKF_HEADER_SIZE + (uint64_t)(mesh_count + 3u) * (SKF_CHUNK_HEADER_SIZE + 11u + 15u + 16u + 64u);
  total += jnts + jnts / 8 + jnts / 64 + mdsc + mdsc / 8 + mdsc / 64 + infl + infl / 8 + infl / 64 + 64;
  return total > SIZE_MAX ? 0 : (size_t)total;
}

/* Grid index of centre component c on the grid org + step * q (q in 0..65535): the q whose decoded float (the
 * decoder's expression) is nearest to c, so the error is at most half a step plus the rounding of that sum. */
static uint32_t corc_grid(float c, float org, float step) {
  if (!(step > 0.0f)) return 0;
  double g = floor((double)(c - org) / step + 0.5);
  uint32_t q = g < 0.0 ? 0u : g > 65535.0 ? 65535u : (uint32_t)g, best = q;
  float e = fabsf(org + step * (float)q - c);
  for (uint32_t t = q ? q - 1u : 0u; t <= q + 1u && t <= 65535u; ++t)
    if (fabsf(org + step * (float)t - c) < e) {
      e = fabsf(org + step * (float)t - c);
      best = t;
    }
  return best;
}

/* CORC chunk of mesh m (docs/skf.md 3.2): the centres of its coded vertices (first[v] == v; every vertex when first
 * is NULL) in its coding order (first appearance in ix, welded through first[], then the rest in increasing index)
 * on a 16-bit grid over their bounding box, as zigzag deltas split into a low and a high byte plane per axis.
 * order: vc scratch entries. */
static int put_corc(skf_buf* file, skf_buf* raw, uint32_t m, const float* c, size_t vc, const uint32_t* ix, size_t ic,
                    const uint32_t* first, uint32_t* order, int level, skc_err* err) {
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, step[3];
  size_t n = 0;
  unsigned char* seen = calloc(vc ? vc : 1, 1);
  if (!seen) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the centres of mesh %u", m);
  for (size_t i = 0; i < ic; ++i) {
    uint32_t u = first ? first[ix[i]] : ix[i];
    if (!seen[u]) order[n++] = u;
    seen[u] = 1;
  }
  for (size_t v = 0; v < vc; ++v)
    if (!seen[v] && (!first || first[v] == v)) order[n++] = (uint32_t)v;
  free(seen);
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      float x = c[3 * (size_t)order[i] + (size_t)a];
      if (!i || x < lo[a]) lo[a] = x;
      if (!i || x > hi[a]) hi[a] = x;
    }
  if (!isfinite(hi[0] - lo[0]) || !isfinite(hi[1] - lo[1]) || !isfinite(hi[2] - lo[2]))
    return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u: the centres' extent is not a finite float", m);
  raw->n = 0;
  buf_u32(raw, m);
  buf_u32(raw, (uint32_t)n);
  for (int a = 0; a < 3; ++a) {
    uint32_t x;
    memcpy(&x, &lo[a], 4);
    buf_u32(raw, x);
  }
  for (int a = 0; a < 3; ++a) {
    uint32_t x;
    step[a] = (hi[a] - lo[a]) / 65535.0f;
    memcpy(&x, &step[a], 4);
    buf_u32(raw, x);
  }
  size_t head = raw->n, seg[6];
  if (raw->failed || !buf_reserve(raw, 6 * n))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the centres of mesh %u", m);
  unsigned char* pl = raw->p + head;
  raw->n = head + 6 * n;
  for (int a = 0; a < 3; ++a) {
    uint32_t prev = 0;
    for (size_t i = 0; i < n; ++i) {
      uint32_t q = corc_grid(c[3 * (size_t)order[i] + (size_t)a], lo[a], step[a]);
      uint32_t d = (q - prev) & 0xffffu, z = d < 0x8000u ? 2u * d : 2u * (0x10000u - d) - 1u; /* zigzag of int16 */
      pl[(size_t)(2 * a) * n + i] = (unsigned char)z;
      pl[(size_t)(2 * a + 1) * n + i] = (unsigned char)(z >> 8);
      prev = q;
    }
  }
  for (int p = 0; p < 6; ++p) seg[p] = head + (size_t)(p + 1) * n;
  static const int strat[6] = {Z_FILTERED, Z_FILTERED, Z_FILTERED, Z_FILTERED, Z_FILTERED, Z_FILTERED};
  return put_chunk_seg(file, "CORC", raw->p, raw->n, level, seg, strat, 6, err);
}

/* One encoding run: the inputs, their resolved options, the output file and every buffer the run allocates (all
 * freed by encoder_free, whichever step failed). */
typedef struct skf_encoder {
  const skc_skeleton* skel;
  const skio_skf_mesh* meshes;
  uint32_t mesh_count;
  const skio_skf_options* opts;
  uint32_t bits, k, total, jb;
  int level;
  size_t group_limit;
  bool fast;
  skf_buf file, raw, tab;
  enc_state* e;
  uint32_t* order;       /* the mesh being coded: its vertices in coding order, */
  uint32_t* pos;         /* each vertex's coding position, */
  size_t* tri;           /* the first triangle of each coding position (SIZE_MAX: none), */
  enc_vtx* q;            /* and its canonical vertices */
  uint32_t* group_of;    /* per mesh: its group */
  unsigned char* meshk;  /* per mesh: its max influence count */
  unsigned char* morder; /* per mesh: its coding order (SKF_ORDER_*) */
  uint32_t chunk_count, file_max_k, group_count;
  uint32_t* first; /* weld: per vertex, the vertex it copies (itself when coded) */
  uint32_t* wix;   /* weld: the index buffer with copies replaced */
  uint64_t vertex_total;
} skf_encoder;

/* Sets up x for the (checked) inputs: resolved options, the encoder state and per-mesh tables, and the file with
 * room for its header. */
static int encoder_init(skf_encoder* x, const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                        const skio_skf_options* opts, skc_err* err) {
  memset(x, 0, sizeof *x);
  x->skel = skel;
  x->meshes = meshes;
  x->mesh_count = mesh_count;
  x->opts = opts;
  resolve(opts, &x->bits, &x->k, &x->level, &x->group_limit);
  x->total = x->bits == 16 ? 65535u : 255u;
  x->jb = skel->joint_count > 256 ? 2u : 1u;

  x->e = calloc(1, sizeof *x->e);
  x->group_of = calloc(mesh_count ? mesh_count : 1, sizeof *x->group_of);
  x->meshk = calloc(mesh_count ? mesh_count : 1, 1);
  x->morder = calloc(mesh_count ? mesh_count : 1, 1);
  x->fast = opts && opts->profile == SKIO_SKF_PROFILE_FAST;
  if (!x->e || !x->group_of || !x->meshk || !x->morder)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the encoder");
  x->e->wb = x->bits == 16 ? 2u : 1u;
  x->e->jb = x->jb;
  x->e->mask = x->bits == 16 ? 0xffffu : 0xffu;

  if (!buf_reserve(&x->file, SKF_HEADER_SIZE)) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the file");
  memset(x->file.p, 0, SKF_HEADER_SIZE);
  x->file.n = SKF_HEADER_SIZE;
  return SKC_OK;
}

/* Frees everything x holds but what was handed out. */
static void encoder_free(skf_encoder* x) {
  enc_state* e = x->e;
  free(x->file.p);
  free(x->raw.p);
  if (e) {
    free(e->ops.p);
    free(e->cnt.p);
    free(e->jnt.p);
    free(e->wgt.p);
    free(e->nwg.p);
    free(e->far.p);
    free(e->wld.p);
    free(e->hist);
    free(e->hp);
    free(e->hmap);
  }
  free(e);
  free(x->order);
  free(x->pos);
  free(x->tri);
  free(x->q);
  free(x->tab.p);
  free(x->group_of);
  free(x->meshk);
  free(x->morder);
  free(x->first);
  free(x->wix);
}

/* JNTS chunk: count, parents, inverse binds, names. */
static int put_joints(skf_encoder* x, skc_err* err) {
  const skc_skeleton* skel = x->skel;
  skf_buf* raw = &x->raw;
  int rc;
  buf_u32(raw, skel->joint_count);
  for (uint32_t i = 0; i < skel->joint_count; ++i) buf_u32(raw, (uint32_t)skel->parents[i]);
  for (uint32_t i = 0; i < 16u * skel->joint_count; ++i) {
    uint32_t v;
    memcpy(&v, skel->inverse_bind + i, 4);
    buf_u32(raw, v);
  }
  buf_u32(raw, (uint32_t)names_bytes(skel));
  for (uint32_t i = 0; i < skel->joint_count; ++i) {
    const char* nm = skel->names && skel->names[i] ? skel->names[i] : "";
    buf_put(raw, nm, strlen(nm) + 1);
  }
  if (raw->failed) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the joint table");
  if ((rc = put_chunk(&x->file, "JNTS", raw->p, raw->n, x->level, err))) return rc;
  ++x->chunk_count;
  return SKC_OK;
}

/* Groups of consecutive meshes of at most group_limit vertices (a larger mesh alone), and the vertex total. */
static void plan_groups(skf_encoder* x) {
  size_t gv = 0;
  for (uint32_t m = 0; m < x->mesh_count; ++m) {
    size_t vc = x->meshes[m].skin->vertex_count;
    if (m > 0 && gv + vc > x->group_limit) {
      ++x->group_count;
      gv = 0;
    }
    x->group_of[m] = x->group_count;
    gv += vc;
    x->vertex_total += vc;
  }
  if (x->mesh_count) ++x->group_count;
}

/* The most influences a vertex of skin s keeps after quantization. */
static uint32_t max_quantized(const skc_skin* s, uint32_t k, uint32_t total) {
  uint32_t mk = 0, qj[SKF_MAX_INFLUENCES], qw[SKF_MAX_INFLUENCES];
  for (size_t v = 0; v < s->vertex_count; ++v) {
    uint32_t n = quantize_at(s, v, k, total, qj, qw);
    if (n > mk) mk = n;
  }
  return mk;
}

/* The record of mesh m in the mesh table (raw); quantizes the mesh once to learn its max influence count and welds
 * it to learn its coding order. */
static int put_mesh_record(skf_encoder* x, uint32_t m, skc_err* err) {
  const skio_skf_mesh* mesh = &x->meshes[m];
  const skio_skf_options* opts = x->opts;
  const skc_skin* s = mesh->skin;
  skf_buf* raw = &x->raw;
  uint32_t mk = max_quantized(s, x->k, x->total);
  x->meshk[m] = (unsigned char)mk;
  if (mk > x->file_max_k) x->file_max_k = mk;
  int by_index = mesh->index_count && !(opts && opts->file_order) && !x->fast;
  size_t distinct = 0, copies = 0;
  uint32_t check = 0;
  if (mesh->positions && !(opts && opts->no_weld) && !x->fast && s->vertex_count) {
    uint32_t* nf = realloc(x->first, s->vertex_count * sizeof *x->first);
    if (!nf) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the position weld of mesh %u", m);
    x->first = nf;
    if (!weld_mesh(mesh, x->k, x->total, x->first, &distinct, &copies, &check, NULL))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the position weld of mesh %u", m);
  }
  x->morder[m] = copies ? SKF_ORDER_WELDED : by_index ? SKF_ORDER_INDEX_BUFFER : SKF_ORDER_FILE;
  buf_u64(raw, s->vertex_count);
  buf_u64(raw, by_index ? mesh->index_count : 0);
  buf_u32(raw, by_index ? skf_hash_u32(mesh->indices, mesh->index_count) : 0);
  buf_u32(raw, mesh->positions ? skf_hash_positions(mesh->positions, s->vertex_count) : 0);
  unsigned char b4[4] = {(unsigned char)mk, x->morder[m], mesh->positions ? 1 : 0, 0};
  buf_put(raw, b4, 4);
  buf_u32(raw, x->group_of[m]);
  buf_u32(raw, (uint32_t)(s->vertex_count - copies));
  buf_u32(raw, copies ? (uint32_t)distinct : 0u);
  buf_u32(raw, copies ? check : 0u);
  buf_u32(raw, 0u);
  return SKC_OK;
}

/* MDSC chunk: mesh and group counts, then a record per mesh. */
static int put_mesh_table(skf_encoder* x, skc_err* err) {
  int rc;
  x->raw.n = 0;
  buf_u32(&x->raw, x->mesh_count);
  buf_u32(&x->raw, x->group_count);
  for (uint32_t m = 0; m < x->mesh_count; ++m)
    if ((rc = put_mesh_record(x, m, err))) return rc;
  if (x->raw.failed) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the mesh table");
  if ((rc = put_chunk(&x->file, "MDSC", x->raw.p, x->raw.n, x->level, err))) return rc;
  ++x->chunk_count;
  return SKC_OK;
}

/* The end of the group that starts at mesh m0: the first mesh of another group, or mesh_count. */
static uint32_t group_end(const skf_encoder* x, uint32_t m0) {
  uint32_t m1 = m0;
  while (m1 < x->mesh_count && x->group_of[m1] == x->group_of[m0]) ++m1;
  return m1;
}

/* Speed profile: the raw INFL chunk of meshes m0..m1-1 (docs/skf.md 3.1), a table entry per mesh, then the ops
 * and the literal streams. */
static int put_fast_group(skf_encoder* x, uint32_t m0, uint32_t m1, skc_err* err) {
  enc_state* e = x->e;
  skf_buf* tab = &x->tab;
  skf_buf* raw = &x->raw;
  const skio_skf_options* opts = x->opts;
  tab->n = 0;
  e->ops.n = e->wgt.n = 0;
  buf_u32(tab, m0);
  buf_u32(tab, m1 - m0);
  for (uint32_t m = m0; m < m1; ++m) {
    size_t l0 = e->wgt.n;
    uint32_t nl = 0, nj = 0;
    const unsigned max_esc = opts && opts->fast_escapes ? opts->fast_escapes : SKF_FAST_ESCAPES;
    if (!fast_mesh(x->meshes[m].skin, x->k, x->total, x->meshk[m], x->jb, e->wb, &e->ops, &e->wgt, max_esc, &nl, &nj))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the rows of mesh %u", m);
    if (e->wgt.n - l0 > UINT32_MAX)
      return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u: its literal stream exceeds 4 GiB", m);
    buf_u32(tab, nl);
    buf_u32(tab, (uint32_t)(e->wgt.n - l0));
    buf_u32(tab, nj);
    for (int z = 0; z < 3; ++z) buf_u32(tab, 0);
  }
  raw->n = 0;
  buf_put(raw, tab->p, tab->n);
  buf_put(raw, e->ops.p, e->ops.n);
  buf_put(raw, e->wgt.p, e->wgt.n);
  if (raw->failed || tab->failed || e->ops.failed || e->wgt.failed)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for an influence chunk");
  return put_chunk_raw(&x->file, "INFL", raw->p, raw->n, err);
}

/* Speed profile: one raw INFL chunk per group. */
static int put_fast_infl(skf_encoder* x, skc_err* err) {
  int rc;
  for (uint32_t m0 = 0; m0 < x->mesh_count;) {
    uint32_t m1 = group_end(x, m0);
    if ((rc = put_fast_group(x, m0, m1, err))) return rc;
    ++x->chunk_count;
    m0 = m1;
  }
  return SKC_OK;
}

/* Sizes the far-reference history of the encoder state for a mesh of vc > 0 vertices (an empty hash map). */
static int reserve_history(enc_state* e, size_t vc, uint32_t m, skc_err* err) {
  size_t hsize = 16;
  while (hsize < 2 * vc) hsize *= 2;
  free(e->hmap);
  e->hmap = calloc(hsize, sizeof *e->hmap);
  e->hmask = hsize - 1;
  uint32_t* nh = realloc(e->hist, vc * sizeof *e->hist);
  if (nh) e->hist = nh;
  uint32_t* nhp = realloc(e->hp, vc * sizeof *e->hp);
  if (nhp) e->hp = nhp;
  if (!e->hmap || !nh || !nhp) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the history of mesh %u", m);
  return SKC_OK;
}

/* Sizes the canonical vertices and the coding order of a mesh of vc > 0 vertices. */
static int reserve_traversal(skf_encoder* x, size_t vc, uint32_t m, skc_err* err) {
  enc_vtx* nq = realloc(x->q, vc * sizeof *x->q);
  uint32_t* no = nq ? realloc(x->order, vc * sizeof *x->order) : NULL;
  uint32_t* np = no ? realloc(x->pos, vc * sizeof *x->pos) : NULL;
  size_t* nt = np ? realloc(x->tri, vc * sizeof *x->tri) : NULL;
  if (nq) x->q = nq;
  if (no) x->order = no;
  if (np) x->pos = np;
  if (nt) x->tri = nt;
  if (!nq || !no || !np || !nt) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the traversal of mesh %u", m);
  return SKC_OK;
}

/* The canonical vertices of skin s into q, every vertex not yet placed in the coding order. */
static void quantize_mesh(skf_encoder* x, const skc_skin* s) {
  for (size_t v = 0; v < s->vertex_count; ++v) {
    uint32_t qj[SKF_MAX_INFLUENCES], qw[SKF_MAX_INFLUENCES];
    x->q[v].n = (uint8_t)quantize_at(s, v, x->k, x->total, qj, qw);
    for (uint32_t i = 0; i < x->q[v].n; ++i) {
      x->q[v].j[i] = (uint16_t)qj[i];
      x->q[v].w[i] = (uint16_t)qw[i];
    }
    x->pos[v] = UINT32_MAX;
  }
}

/* Welds welded mesh m for coding: *ix becomes the welded index buffer (ic entries), *coded the vertices to code. */
static int weld_for_coding(skf_encoder* x, uint32_t m, const uint32_t** ix, size_t ic, size_t* coded, skc_err* err) {
  size_t vc = x->meshes[m].skin->vertex_count;
  /* copies are not coded; exceptions (a lower vertex at the same position has other influences) are listed
   * in the weld stream, and the index buffer refers to the vertex each copy copies */
  size_t distinct, copies;
  uint32_t* nw = realloc(x->wix, (ic ? ic : 1) * sizeof *x->wix);
  uint32_t* nf = nw ? realloc(x->first, vc * sizeof *x->first) : NULL;
  if (nw) x->wix = nw;
  if (nf) x->first = nf;
  uint32_t check;
  if (!nw || !nf || !weld_mesh(&x->meshes[m], x->k, x->total, x->first, &distinct, &copies, &check, &x->e->wld))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the position weld of mesh %u", m);
  for (size_t i = 0; i < ic; ++i) x->wix[i] = x->first[(*ix)[i]];
  for (size_t v = 0; v < vc; ++v)
    if (x->first[v] != v) x->pos[v] = 0; /* never coded, never a corner (the welded index buffer has no copies) */
  *ix = x->wix;
  *coded = vc - copies;
  return SKC_OK;
}

/* The coding order of a mesh of vc vertices into order, pos (its inverse) and tri (each vertex's first triangle). */
static void coding_order(skf_encoder* x, const uint32_t* ix, size_t ic, size_t vc, int welded) {
  uint32_t* pos = x->pos;
  /* coding order: first appearance in the index buffer (with the triangle that brought the vertex), then the
   * vertices no triangle uses (copies excepted) */
  size_t kk = 0;
  for (size_t i = 0; i < ic; ++i) {
    uint32_t v = ix[i];
    if (pos[v] != UINT32_MAX) continue;
    pos[v] = (uint32_t)kk;
    x->tri[kk] = i - i % 3;
    x->order[kk++] = v;
  }
  for (size_t v = 0; v < vc; ++v) {
    if (pos[v] != UINT32_MAX && (ix || welded)) continue;
    pos[v] = (uint32_t)kk;
    x->tri[kk] = SIZE_MAX;
    x->order[kk++] = (uint32_t)v;
  }
}

/* Codes mesh m into the influence streams, from an empty model, and its sizes in them into the group's table. */
static int code_mesh(skf_encoder* x, uint32_t m, skc_err* err) {
  enc_state* e = x->e;
  const skio_skf_mesh* mesh = &x->meshes[m];
  size_t vc = mesh->skin->vertex_count;
  size_t c0 = e->cnt.n, j0 = e->jnt.n, w0 = e->wgt.n, n0 = e->nwg.n, f0 = e->far.n, l0 = e->wld.n;
  int by_index = mesh->index_count && !(x->opts && x->opts->file_order);
  const int welded = x->morder[m] == SKF_ORDER_WELDED;
  const uint32_t* ix = by_index ? mesh->indices : NULL;
  size_t ic = by_index ? mesh->index_count : 0;
  int rc;
  e->mtf_len = 0;
  e->rlen = 0;
  e->hist_len = 0;
  if (vc && (rc = reserve_history(e, vc, m, err))) return rc;
  if (vc && (rc = reserve_traversal(x, vc, m, err))) return rc;
  quantize_mesh(x, mesh->skin);
  size_t coded = vc;
  if (welded && (rc = weld_for_coding(x, m, &ix, ic, &coded, err))) return rc;
  coding_order(x, ix, ic, vc, welded);
  for (size_t i = 0; i < coded; ++i) enc_vertex(e, x->q, x->order[i], (uint32_t)i, ix, ic, x->tri[i], x->pos);
  if (e->cnt.n - c0 > UINT32_MAX || e->jnt.n - j0 > UINT32_MAX || e->wgt.n - w0 > UINT32_MAX ||
      e->nwg.n - n0 > UINT32_MAX || e->far.n - f0 > UINT32_MAX || e->wld.n - l0 > UINT32_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u: an influence stream exceeds 4 GiB", m);
  buf_u32(&x->tab, (uint32_t)(e->cnt.n - c0));
  buf_u32(&x->tab, (uint32_t)(e->jnt.n - j0));
  buf_u32(&x->tab, (uint32_t)(e->wgt.n - w0));
  buf_u32(&x->tab, (uint32_t)(e->nwg.n - n0));
  buf_u32(&x->tab, (uint32_t)(e->far.n - f0));
  buf_u32(&x->tab, (uint32_t)(e->wld.n - l0));
  return SKC_OK;
}

/* Codes meshes m0..m1-1 with the current far policy: the group's table and influence streams, from empty. */
static int code_group(skf_encoder* x, uint32_t m0, uint32_t m1, skc_err* err) {
  enc_state* e = x->e;
  int rc;
  e->ops.n = e->cnt.n = e->jnt.n = e->wgt.n = e->nwg.n = e->far.n = e->wld.n = 0;
  x->tab.n = 0;
  buf_u32(&x->tab, m0);
  buf_u32(&x->tab, m1 - m0);
  for (uint32_t m = m0; m < m1; ++m)
    if ((rc = code_mesh(x, m, err))) return rc;
  if (e->ops.failed || e->cnt.failed || e->jnt.failed || e->wgt.failed || e->nwg.failed || e->far.failed ||
      e->wld.failed || x->tab.failed)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for influence streams");
  return SKC_OK;
}

/* Appends the INFL chunk of the coded group: its table, then the seven streams, each a deflate segment. */
static int put_infl_chunk(skf_encoder* x, skc_err* err) {
  enc_state* e = x->e;
  skf_buf* raw = &x->raw;
  raw->n = 0;
  buf_put(raw, x->tab.p, x->tab.n);
  const skf_buf* parts[7] = {&e->ops, &e->cnt, &e->jnt, &e->wgt, &e->nwg, &e->far, &e->wld};
  size_t seg[8];
  seg[0] = raw->n;
  for (int p = 0; p < 7; ++p) {
    buf_put(raw, parts[p]->p, parts[p]->n);
    seg[p + 1] = raw->n;
  }
  if (raw->failed) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for an influence chunk");
  /* ops: Z_FILTERED (runs and short matches); residuals: Z_RLE (nearly match-free, Huffman does the work) */
  static const int strat[8] = {Z_FILTERED, Z_FILTERED, Z_FILTERED, Z_FILTERED,
                               Z_FILTERED, Z_RLE,      Z_FILTERED, Z_FILTERED};
  return put_chunk_seg(&x->file, "INFL", raw->p, raw->n, x->level, seg, strat, 8, err);
}

/* The INFL chunk of meshes m0..m1-1. */
static int put_infl_group(skf_encoder* x, uint32_t m0, uint32_t m1, skc_err* err) {
  /* the decoder follows any choice the encoder makes: try each far-reference policy, keep the smallest chunk */
  size_t best_size = SIZE_MAX;
  int best = 0, rc;
  for (int trial = 0; trial <= SKF_FAR_POLICIES; ++trial) {
    x->e->far_mode = trial < SKF_FAR_POLICIES ? trial : best;
    if ((rc = code_group(x, m0, m1, err))) return rc;
    size_t before = x->file.n;
    if ((rc = put_infl_chunk(x, err))) return rc;
    if (trial < SKF_FAR_POLICIES) {
      if (x->file.n - before < best_size) {
        best_size = x->file.n - before;
        best = trial;
      }
      x->file.n = before;
    }
  }
  return SKC_OK;
}

/* INFL per group: each mesh starts from an empty model (a reader can decode one mesh without the others). */
static int put_infl(skf_encoder* x, skc_err* err) {
  int rc;
  for (uint32_t m0 = 0; m0 < x->mesh_count;) {
    uint32_t m1 = group_end(x, m0);
    if ((rc = put_infl_group(x, m0, m1, err))) return rc;
    ++x->chunk_count;
    m0 = m1;
  }
  return SKC_OK;
}

/* CORC per mesh (3.2): centres of the coded vertices; a welded mesh's copies take their first's centre. */
static int put_centres(skf_encoder* x, skc_err* err) {
  const skio_skf_options* opts = x->opts;
  const bool centers = x->mesh_count && x->meshes[0].centers;
  int rc;
  for (uint32_t m = 0; centers && m < x->mesh_count; ++m) {
    const skio_skf_mesh* mesh = &x->meshes[m];
    size_t vc = mesh->skin->vertex_count, distinct, copies;
    uint32_t check;
    int by_index = mesh->index_count && !(opts && opts->file_order) && !x->fast; /* as in the mesh record */
    uint32_t* no = realloc(x->order, (vc ? vc : 1) * sizeof *x->order);
    if (!no) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the centres of mesh %u", m);
    x->order = no;
    if (x->morder[m] == SKF_ORDER_WELDED) {
      uint32_t* nf = realloc(x->first, vc * sizeof *x->first);
      if (nf) x->first = nf;
      if (!nf || !weld_mesh(mesh, x->k, x->total, x->first, &distinct, &copies, &check, NULL))
        return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the position weld of mesh %u", m);
    }
    if ((rc = put_corc(&x->file, &x->raw, m, mesh->centers, vc, by_index ? mesh->indices : NULL,
                       by_index ? mesh->index_count : 0, x->morder[m] == SKF_ORDER_WELDED ? x->first : NULL, x->order,
                       x->level, err)))
      return rc;
    ++x->chunk_count;
  }
  return SKC_OK;
}

/* Fills in the file header: magic, version, flags, counts, payload size and the two CRCs. */
static void write_header(skf_encoder* x) {
  const bool centers = x->mesh_count && x->meshes[0].centers;
  unsigned char* h = x->file.p;
  uint64_t payload = x->file.n - SKF_HEADER_SIZE;
  static const unsigned char magic[8] = {0x89, 'S', 'K', 'F', 0x0D, 0x0A, 0x1A, 0x0A};
  memcpy(h, magic, 8);
  h[8] = SKF_VERSION_MAJOR;
  h[9] = 0;
  h[10] = centers ? 2 : x->fast ? 1 : 0; /* the lowest minor that can express the file */
  h[11] = 0;
  wr32(h + 12, (x->bits == 16 ? SKF_FLAG_WEIGHTS16 : 0u) | (x->fast ? SKF_FLAG_FAST : 0u));
  wr32(h + 16, SKF_HEADER_SIZE);
  wr32(h + 20, x->chunk_count);
  wr32(h + 24, x->skel->joint_count);
  wr32(h + 28, x->mesh_count);
  wr64(h + 32, x->vertex_total);
  wr64(h + 40, payload);
  wr32(h + 48, x->file_max_k);
  wr32(h + 52, 0);
  uLong pc = crc32(0L, Z_NULL, 0);
  for (uint64_t off = 0; off < payload;) {
    uInt step = payload - off > 0x40000000u ? 0x40000000u : (uInt)(payload - off);
    pc = crc32(pc, h + SKF_HEADER_SIZE + off, step);
    off += step;
  }
  wr32(h + 56, (uint32_t)pc);
  wr32(h + 60, (uint32_t)crc32(crc32(0L, Z_NULL, 0), h, 60));
}

static int encode_once(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                       const skio_skf_options* opts, unsigned char** out, size_t* out_size, skc_err* err) {
  int rc = check_input(skel, meshes, mesh_count, opts, err);
  if (rc) return rc;
  if (!out || !out_size) return skc_fail(err, SKC_INVALID_ARGUMENT, "out and out_size must not be NULL");
  skf_encoder x;
  rc = encoder_init(&x, skel, meshes, mesh_count, opts, err);
  if (!rc) rc = put_joints(&x, err);
  if (!rc) {
    plan_groups(&x);
    rc = put_mesh_table(&x, err);
  }
  if (!rc) rc = x.fast ? put_fast_infl(&x, err) : put_infl(&x, err);
  if (!rc) rc = put_centres(&x, err);
  if (!rc) {
    write_header(&x);
    *out = x.file.p;
    *out_size = x.file.n;
    x.file.p = NULL;
  }
  encoder_free(&x);
  return rc;
}

/* With positions, the weld usually pays (corner-split meshes store a fraction of their vertices), but on a small
 * mesh whose copies sit far apart in the coding order it can cost a few bytes: the encoder keeps the smaller file
 * (the decoder follows the mesh records either way). */
int skio_skf_encode(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                    const skio_skf_options* opts, unsigned char** out, size_t* out_size, skc_err* err) {
  int any_positions = 0;
  for (uint32_t m = 0; meshes && m < mesh_count; ++m) any_positions |= meshes[m].positions != NULL;
  int rc = encode_once(skel, meshes, mesh_count, opts, out, out_size, err);
  if (rc || !any_positions || (opts && opts->no_weld) || (opts && opts->profile == SKIO_SKF_PROFILE_FAST)) return rc;
  skio_skf_options plain = {0};
  if (opts) plain = *opts;
  plain.no_weld = true;
  unsigned char* alt = NULL;
  size_t alt_size = 0;
  if (encode_once(skel, meshes, mesh_count, &plain, &alt, &alt_size, NULL)) return SKC_OK; /* keep the welded one */
  if (alt_size < *out_size) {
    free(*out);
    *out = alt;
    *out_size = alt_size;
  } else {
    free(alt);
  }
  return SKC_OK;
}
