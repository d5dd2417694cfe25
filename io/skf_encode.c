/* skf_encode.c - .skf encoder: canonical quantization, joint-set modelling (repeat / move-to-front / new set),
 * stream split and per-chunk deflate. The decoder is io/runtime/skf_decoder.h; docs/skf.md is the spec. */
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

/* ---- encoder state (mirror of the decoder's) ---------------------------------------------------------------- */
typedef struct enc_set {
  uint32_t n;
  uint32_t j[SKF_MAX_INFLUENCES];
  uint32_t w[SKF_MAX_INFLUENCES];
} enc_set;

typedef struct enc_state {
  enc_set sets[SKF_MTF_SIZE];
  unsigned char mtf[SKF_MTF_SIZE];
  uint32_t mtf_len;
  enc_set recs[SKF_VCACHE_SIZE];
  unsigned char rmtf[SKF_VCACHE_SIZE];
  uint32_t rlen;
  skf_buf ops, cnt, jnt, wgt;
  uint32_t wb, jb, mask;
} enc_state;

static void put_weights(enc_state* e, enc_set* s, const uint32_t* w) {
  uint32_t imp = 0; /* implied: largest of the set's previous weights, first on ties (the decoder's rule) */
  for (uint32_t i = 1; i < s->n; ++i)
    if (s->w[i] > s->w[imp]) imp = i;
  for (uint32_t i = 0; i < s->n; ++i) {
    if (i == imp) continue;
    uint32_t d = (w[i] - s->w[i]) & e->mask;
    /* signed residual in the weight width, then zigzag */
    int32_t sd = e->wb == 1 ? (int32_t)(int8_t)(uint8_t)d : (int32_t)(int16_t)(uint16_t)d;
    uint32_t z = ((uint32_t)sd << 1) ^ (uint32_t)(sd >> 31);
    z &= e->mask;
    if (e->wb == 1) buf_u8(&e->wgt, z);
    else buf_u16(&e->wgt, z);
  }
  memcpy(s->w, w, s->n * sizeof *w);
}

static int same_vertex(const enc_set* s, uint32_t n, const uint32_t* j, const uint32_t* w) {
  return s->n == n && !memcmp(s->j, j, n * sizeof *j) && !memcmp(s->w, w, n * sizeof *w);
}

static void push_record(enc_state* e, const enc_set* s) {
  uint32_t slot = e->rlen < SKF_VCACHE_SIZE ? e->rlen++ : e->rmtf[SKF_VCACHE_SIZE - 1];
  memmove(e->rmtf + 1, e->rmtf, e->rlen - 1);
  e->rmtf[0] = (unsigned char)slot;
  e->recs[slot] = *s;
}

static void enc_vertex(enc_state* e, uint32_t n, const uint32_t* j, const uint32_t* w) {
  /* 1. the previous vertex again, 2. a recent distinct vertex, 3. a known joint set with new weights, 4. a new set */
  for (uint32_t k = 0; k < e->rlen; ++k) {
    if (!same_vertex(&e->recs[e->rmtf[k]], n, j, w)) continue;
    if (k == 0) {
      buf_u8(&e->ops, SKF_OP_REPEAT);
      return;
    }
    unsigned char slot = e->rmtf[k];
    memmove(e->rmtf + 1, e->rmtf, k);
    e->rmtf[0] = slot;
    buf_u8(&e->ops, SKF_OP_VCACHE + k);
    return;
  }
  for (uint32_t k = 0; k < e->mtf_len; ++k) {
    enc_set* s = &e->sets[e->mtf[k]];
    if (s->n != n || memcmp(s->j, j, n * sizeof *j)) continue;
    unsigned char slot = e->mtf[k];
    memmove(e->mtf + 1, e->mtf, k);
    e->mtf[0] = slot;
    buf_u8(&e->ops, 1u + k);
    put_weights(e, s, w);
    push_record(e, s);
    return;
  }
  uint32_t slot;
  if (e->mtf_len < SKF_MTF_SIZE) slot = e->mtf_len++;
  else slot = e->mtf[SKF_MTF_SIZE - 1];
  memmove(e->mtf + 1, e->mtf, e->mtf_len - 1);
  e->mtf[0] = (unsigned char)slot;
  enc_set* s = &e->sets[slot];
  buf_u8(&e->ops, SKF_OP_NEW_SET);
  buf_u8(&e->cnt, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t d = i == 0 ? j[0] : j[i] - j[i - 1] - 1u;
    if (e->jb == 1) buf_u8(&e->jnt, d);
    else buf_u16(&e->jnt, d);
  }
  s->n = n;
  memcpy(s->j, j, n * sizeof *j);
  memset(s->w, 0, sizeof s->w);
  put_weights(e, s, w);
  push_record(e, s);
}

/* Deflates raw into a chunk appended to out. */
static int put_chunk_seg(skf_buf* out, const char* tag, const unsigned char* raw, size_t raw_size, int level,
                         const size_t* seg_ends, int seg_count, skc_err* err);
static int put_chunk(skf_buf* out, const char* tag, const unsigned char* raw, size_t raw_size, int level, skc_err* err) {
  return put_chunk_seg(out, tag, raw, raw_size, level, NULL, 0, err);
}
/* seg_ends: offsets where a deflate block is forced to end (each stream gets its own Huffman tables). */
static int put_chunk_seg(skf_buf* out, const char* tag, const unsigned char* raw, size_t raw_size, int level,
                         const size_t* seg_ends, int seg_count, skc_err* err) {
  if (raw_size > UINT32_MAX) return skc_fail(err, SKC_OUT_OF_RANGE, "chunk %s would hold %zu bytes (max 4 GiB)", tag, raw_size);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  /* Z_FILTERED: the residual streams are nearly match-free; a block per stream keeps Huffman tables apart.
   * Measured on the corpus: 0.665 -> 0.628 B/vertex against compress2's defaults. */
  int zr = deflateInit2(&zs, level, Z_DEFLATED, 15, 9, Z_FILTERED);
  if (zr != Z_OK) return skc_fail(err, SKC_OUT_OF_MEMORY, "zlib deflateInit2 failed (%d) on chunk %s", zr, tag);
  /* deflateBound is conservative for memLevel 9; each forced block end may add 5 bytes */
  uint64_t bound = (uint64_t)deflateBound(&zs, (uLong)raw_size) + 5u * (uint64_t)seg_count + 16u;
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
    if (seg_ends[sgi] <= done || seg_ends[sgi] >= raw_size) continue;
    zs.avail_in = (uInt)(seg_ends[sgi] - done);
    zr = deflate(&zs, Z_BLOCK);
    done = seg_ends[sgi];
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
  if (skel->joint_count < 1 || skel->joint_count > SKF_MAX_JOINTS)
    return skc_fail(err, SKC_OUT_OF_RANGE, "skeleton has %u joints (1..65535)", skel->joint_count);
  for (uint32_t m = 0; m < mesh_count; ++m) {
    const skc_skin* s = meshes[m].skin;
    if (!s) return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh %u has no skin", m);
    if (s->vertex_count > UINT32_MAX) return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u has more than 2^32-1 vertices", m);
    if (meshes[m].index_count && !meshes[m].indices)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh %u: index_count without indices", m);
    for (size_t i = 0; i < meshes[m].index_count; ++i)
      if (meshes[m].indices[i] >= s->vertex_count)
        return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u: index %zu is %u, past %zu vertices", m, i, meshes[m].indices[i],
                        s->vertex_count);
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
  for (uint32_t i = 0; i < skel->joint_count; ++i) n += (skel->names && skel->names[i] ? strlen(skel->names[i]) : 0) + 1;
  return n;
}

size_t skio_skf_encode_bound(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                             const skio_skf_options* opts) {
  if (check_input(skel, meshes, mesh_count, opts, NULL)) return 0;
  uint64_t v = 0;
  for (uint32_t m = 0; m < mesh_count; ++m) v += meshes[m].skin->vertex_count;
  uint64_t jnts = 8u + 68u * (uint64_t)skel->joint_count + names_bytes(skel);
  uint64_t mdsc = 8u + (uint64_t)SKF_MESH_RECORD_SIZE * mesh_count;
  uint64_t infl = (uint64_t)SKF_INFL_TABLE_SIZE * (mesh_count + 1u) + v * 32u;
  /* zlib's conservative deflateBound (memLevel 9): n + n/8 + n/64 + 11 per stream, plus 5 bytes per forced block
   * end; chunks <= meshes + 3 (groups <= meshes + 1) */
  uint64_t total = SKF_HEADER_SIZE + (uint64_t)(mesh_count + 3u) * (SKF_CHUNK_HEADER_SIZE + 11u + 15u + 16u);
  total += jnts + jnts / 8 + jnts / 64 + mdsc + mdsc / 8 + mdsc / 64 + infl + infl / 8 + infl / 64 + 64;
  return total > SIZE_MAX ? 0 : (size_t)total;
}

int skio_skf_encode(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                    const skio_skf_options* opts, unsigned char** out, size_t* out_size, skc_err* err) {
  uint32_t bits, k;
  int level;
  size_t group_limit;
  int rc = check_input(skel, meshes, mesh_count, opts, err);
  if (rc) return rc;
  if (!out || !out_size) return skc_fail(err, SKC_INVALID_ARGUMENT, "out and out_size must not be NULL");
  resolve(opts, &bits, &k, &level, &group_limit);
  uint32_t total = bits == 16 ? 65535u : 255u;
  uint32_t jb = skel->joint_count > 256 ? 2u : 1u;

  skf_buf file = {0}, raw = {0};
  enc_state* e = calloc(1, sizeof *e);
  uint32_t* order = NULL;
  unsigned char* seen = NULL;
  uint32_t* group_of = calloc(mesh_count ? mesh_count : 1, sizeof *group_of);
  unsigned char* meshk = calloc(mesh_count ? mesh_count : 1, 1);
  uint32_t chunk_count = 0, file_max_k = 0, group_count = 0;
  uint64_t vertex_total = 0;
  if (!e || !group_of || !meshk) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the encoder");
    goto done;
  }
  e->wb = bits == 16 ? 2u : 1u;
  e->jb = jb;
  e->mask = bits == 16 ? 0xffffu : 0xffu;

  buf_reserve(&file, SKF_HEADER_SIZE);
  memset(file.p, 0, SKF_HEADER_SIZE);
  file.n = SKF_HEADER_SIZE;

  /* JNTS: count, parents, inverse binds, names */
  buf_u32(&raw, skel->joint_count);
  for (uint32_t i = 0; i < skel->joint_count; ++i) buf_u32(&raw, (uint32_t)skel->parents[i]);
  for (uint32_t i = 0; i < 16u * skel->joint_count; ++i) {
    uint32_t x;
    memcpy(&x, skel->inverse_bind + i, 4);
    buf_u32(&raw, x);
  }
  buf_u32(&raw, (uint32_t)names_bytes(skel));
  for (uint32_t i = 0; i < skel->joint_count; ++i) {
    const char* nm = skel->names && skel->names[i] ? skel->names[i] : "";
    buf_put(&raw, nm, strlen(nm) + 1);
  }
  if (raw.failed) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the joint table");
    goto done;
  }
  if ((rc = put_chunk(&file, "JNTS", raw.p, raw.n, level, err))) goto done;
  ++chunk_count;

  /* groups of consecutive meshes; quantize once per mesh to learn its max influence count */
  {
    size_t gv = 0;
    for (uint32_t m = 0; m < mesh_count; ++m) {
      size_t vc = meshes[m].skin->vertex_count;
      if (m > 0 && gv + vc > group_limit) {
        ++group_count;
        gv = 0;
      }
      group_of[m] = group_count;
      gv += vc;
      vertex_total += vc;
    }
    if (mesh_count) ++group_count;
  }

  /* MDSC */
  raw.n = 0;
  buf_u32(&raw, mesh_count);
  buf_u32(&raw, group_count);
  for (uint32_t m = 0; m < mesh_count; ++m) {
    const skc_skin* s = meshes[m].skin;
    uint32_t mk = 0, qj[SKF_MAX_INFLUENCES], qw[SKF_MAX_INFLUENCES];
    for (size_t v = 0; v < s->vertex_count; ++v) {
      uint32_t n = quantize_at(s, v, k, total, qj, qw);
      if (n > mk) mk = n;
    }
    meshk[m] = (unsigned char)mk;
    if (mk > file_max_k) file_max_k = mk;
    int by_index = meshes[m].index_count && !(opts && opts->file_order);
    buf_u64(&raw, s->vertex_count);
    buf_u64(&raw, by_index ? meshes[m].index_count : 0);
    buf_u32(&raw, by_index ? skf_hash_u32(meshes[m].indices, meshes[m].index_count) : 0);
    buf_u32(&raw, meshes[m].positions ? skf_hash_positions(meshes[m].positions, s->vertex_count) : 0);
    unsigned char b4[4] = {(unsigned char)mk, by_index ? SKF_ORDER_INDEX_BUFFER : SKF_ORDER_FILE,
                           meshes[m].positions ? 1 : 0, 0};
    buf_put(&raw, b4, 4);
    buf_u32(&raw, group_of[m]);
  }
  if (raw.failed) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the mesh table");
    goto done;
  }
  if ((rc = put_chunk(&file, "MDSC", raw.p, raw.n, level, err))) goto done;
  ++chunk_count;

  /* INFL per group */
  for (uint32_t m0 = 0; m0 < mesh_count;) {
    uint32_t m1 = m0;
    while (m1 < mesh_count && group_of[m1] == group_of[m0]) ++m1;
    e->mtf_len = 0;
    e->rlen = 0;
    e->ops.n = e->cnt.n = e->jnt.n = e->wgt.n = 0;
    for (uint32_t m = m0; m < m1; ++m) {
      const skc_skin* s = meshes[m].skin;
      size_t vc = s->vertex_count;
      int by_index = meshes[m].index_count && !(opts && opts->file_order);
      if (by_index && vc) {
        uint32_t* no = realloc(order, vc * sizeof *order);
        unsigned char* ns = no ? realloc(seen, vc) : NULL;
        if (no) order = no;
        if (ns) seen = ns;
        if (!no || !ns) {
          rc = skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the traversal order");
          goto done;
        }
        skf_traversal_order(meshes[m].indices, meshes[m].index_count, vc, order, seen);
      }
      for (size_t i = 0; i < vc; ++i) {
        size_t v = by_index ? order[i] : i;
        uint32_t qj[SKF_MAX_INFLUENCES], qw[SKF_MAX_INFLUENCES];
        uint32_t n = quantize_at(s, v, k, total, qj, qw);
        enc_vertex(e, n, qj, qw);
      }
    }
    if (e->ops.failed || e->cnt.failed || e->jnt.failed || e->wgt.failed) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for influence streams");
      goto done;
    }
    raw.n = 0;
    buf_u32(&raw, m0);
    buf_u32(&raw, m1 - m0);
    buf_u32(&raw, (uint32_t)e->ops.n);
    buf_u32(&raw, (uint32_t)e->cnt.n);
    buf_u32(&raw, (uint32_t)e->jnt.n);
    buf_u32(&raw, (uint32_t)e->wgt.n);
    buf_put(&raw, e->ops.p, e->ops.n);
    buf_put(&raw, e->cnt.p, e->cnt.n);
    buf_put(&raw, e->jnt.p, e->jnt.n);
    buf_put(&raw, e->wgt.p, e->wgt.n);
    if (raw.failed) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for an influence chunk");
      goto done;
    }
    size_t seg[3] = {SKF_INFL_TABLE_SIZE + e->ops.n, SKF_INFL_TABLE_SIZE + e->ops.n + e->cnt.n,
                     SKF_INFL_TABLE_SIZE + e->ops.n + e->cnt.n + e->jnt.n};
    if ((rc = put_chunk_seg(&file, "INFL", raw.p, raw.n, level, seg, 3, err))) goto done;
    ++chunk_count;
    m0 = m1;
  }

  {
    unsigned char* h = file.p;
    uint64_t payload = file.n - SKF_HEADER_SIZE;
    static const unsigned char magic[8] = {0x89, 'S', 'K', 'F', 0x0D, 0x0A, 0x1A, 0x0A};
    memcpy(h, magic, 8);
    h[8] = SKF_VERSION_MAJOR;
    h[9] = 0;
    h[10] = SKF_VERSION_MINOR;
    h[11] = 0;
    wr32(h + 12, bits == 16 ? SKF_FLAG_WEIGHTS16 : 0u);
    wr32(h + 16, SKF_HEADER_SIZE);
    wr32(h + 20, chunk_count);
    wr32(h + 24, skel->joint_count);
    wr32(h + 28, mesh_count);
    wr64(h + 32, vertex_total);
    wr64(h + 40, payload);
    wr32(h + 48, file_max_k);
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
  *out = file.p;
  *out_size = file.n;
  file.p = NULL;
  rc = SKC_OK;

done:
  free(file.p);
  free(raw.p);
  if (e) {
    free(e->ops.p);
    free(e->cnt.p);
    free(e->jnt.p);
    free(e->wgt.p);
  }
  free(e);
  free(order);
  free(seen);
  free(group_of);
  free(meshk);
  return rc;
}
