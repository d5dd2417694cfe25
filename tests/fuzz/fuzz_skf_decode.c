/* fuzz_skf_decode.c - libFuzzer target: the .skf decoder on untrusted bytes.
 * Two modes by the first input byte: (a) the input is an .skf file as is (header, CRC, chunk checks);
 * (b) the rest of the input becomes the raw influence streams of a valid container (zlib and CRCs recomputed),
 * so the stream decoder behind the checksums is fuzzed too (byte 1 bit 4: a speed-profile container, raw INFL).
 * Every call must return a code, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "skf.h"
#include "skinkit.h"

static void wr32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void wr64(unsigned char* p, uint64_t v) {
  wr32(p, (uint32_t)v);
  wr32(p + 4, (uint32_t)(v >> 32));
}

static size_t put_chunk(unsigned char* out, const char* tag, const unsigned char* raw, size_t n) {
  uLongf zn = compressBound((uLong)n);
  memcpy(out, tag, 4);
  if (compress2(out + 12, &zn, raw, (uLong)n, 1) != Z_OK) return 0;
  wr32(out + 4, (uint32_t)zn);
  wr32(out + 8, (uint32_t)n);
  return 12 + zn;
}

/* indices/index_count: the index buffer of mesh 0 when it was coded in triangle order, positions its rest
 * positions when welded (container mode) */
static void decode_everything(const unsigned char* d, size_t n, const uint32_t* indices, size_t index_count,
                              const float* positions) {
  sk_skf_info info = {0};
  info.size = sizeof info;
  sk_error err;
  if (sk_skf_peek(d, n, &info, &err) != SK_OK) return;
  if (info.joint_count <= 4096 && info.names_size <= (1u << 20)) {
    int32_t* par = malloc(info.joint_count * sizeof *par);
    float* ib = malloc(16u * info.joint_count * sizeof *ib);
    char* names = malloc(info.names_size + 1);
    sk_skf_decode_skeleton(d, n, par, ib, names, info.names_size, &err);
    free(par);
    free(ib);
    free(names);
  }
  sk_skf_chunk ch[4];
  for (int i = 0; i < 4; ++i) ch[i].size = sizeof ch[i];
  uint32_t cc;
  sk_skf_chunks(d, n, ch, 4, &cc, &err);
  for (uint32_t m = 0; m < info.mesh_count && m < 8; ++m) {
    sk_skf_mesh_info mi = {0};
    mi.size = sizeof mi;
    if (sk_skf_get_mesh_info(d, n, m, &mi, &err) != SK_OK) return;
    if (mi.vertex_count > (1u << 20)) continue; /* the caller sizes buffers; keep them sane */
    if (mi.order == 1 && !(m == 0 && indices)) continue;
    if (mi.order == 2 && !(m == 0 && positions)) continue;
    size_t vc = (size_t)mi.vertex_count;
    /* u16 x 8 and u8 x 4 (the decoder's fast path) outputs */
    for (int pass = 0; pass < 2; ++pass) {
      uint16_t* jo = malloc(vc * 8 * 2 + 2);
      uint16_t* we = malloc(vc * 8 * 2 + 2);
      float* ce = mi.has_centers && pass ? malloc(vc * 12 + 4) : NULL; /* the CORC chunk, when the file has one */
      sk_skf_decode_desc dd = {0};
      dd.size = sizeof dd;
      dd.mesh = m;
      dd.influences = pass ? 4 : 8;
      dd.joint_type = pass ? SK_TYPE_U8 : SK_TYPE_U16;
      dd.weight_type = pass ? SK_TYPE_U8 : SK_TYPE_U16;
      dd.joints = jo;
      dd.weights = we;
      dd.vertex_capacity = vc;
      if (mi.order != 0) {
        dd.indices = indices;
        dd.index_count = index_count;
        dd.positions = positions;
      }
      dd.centers = ce;
      sk_skf_decode(d, n, &dd, &err);
      free(jo);
      free(we);
      free(ce);
    }
  }
}

/* The 64-byte header of a file of pos bytes (chunks already at f + SKF_HEADER_SIZE): one mesh, 3 chunks, the
 * speed profile's minor version when fast, both CRCs valid. */
static void put_header(unsigned char* f, size_t pos, int fast, uint32_t flags, uint32_t joints, uint32_t vc,
                       uint32_t k) {
  static const unsigned char magic[8] = {0x89, 'S', 'K', 'F', 0x0D, 0x0A, 0x1A, 0x0A};
  memcpy(f, magic, 8);
  f[8] = SKF_VERSION_MAJOR;
  f[10] = fast ? 1 : 0;
  wr32(f + 12, flags);
  wr32(f + 16, SKF_HEADER_SIZE);
  wr32(f + 20, 3);
  wr32(f + 24, joints);
  wr32(f + 28, 1);
  wr64(f + 32, vc);
  wr64(f + 40, pos - SKF_HEADER_SIZE);
  wr32(f + 48, k);
  wr32(f + 56, (uint32_t)crc32(0, f + SKF_HEADER_SIZE, (uInt)(pos - SKF_HEADER_SIZE)));
  wr32(f + 60, (uint32_t)crc32(0, f, 60));
}

/* Wraps JNTS, MDSC (one mesh record) and INFL chunks in a header with valid CRCs; the INFL chunk stored raw when
 * fast (speed profile), else deflated. Returns the file size. */
static size_t container(unsigned char* f, uint32_t flags, uint32_t joints, uint32_t vc, uint32_t k,
                        const unsigned char* mraw, const unsigned char* iraw, size_t isize, int fast) {
  size_t jsize = 4 + 68 * joints + 4 + 2 * joints;
  unsigned char* jraw = calloc(1, jsize);
  wr32(jraw, joints);
  for (uint32_t i = 0; i < joints; ++i) wr32(jraw + 4 + 4 * i, 0xffffffffu);
  wr32(jraw + 4 + 68 * joints, 2 * joints);
  for (uint32_t i = 0; i < joints; ++i) jraw[8 + 68 * joints + 2 * i] = 'j';
  size_t pos = SKF_HEADER_SIZE;
  pos += put_chunk(f + pos, "JNTS", jraw, jsize);
  pos += put_chunk(f + pos, "MDSC", mraw, 8 + SKF_MESH_RECORD_SIZE);
  if (fast) {
    memcpy(f + pos, "INFL", 4);
    wr32(f + pos + 4, (uint32_t)isize);
    wr32(f + pos + 8, (uint32_t)isize);
    memcpy(f + pos + 12, iraw, isize);
    pos += 12 + isize;
  } else {
    pos += put_chunk(f + pos, "INFL", iraw, isize);
  }
  put_header(f, pos, fast, flags, joints, vc, k);
  free(jraw);
  return pos;
}

/* Speed-profile container (byte 1 bit 4): byte 1 bit 0 16-bit weights, bit 1 > 256 joints; byte 2 max influences,
 * byte 3 vertex count / 4; the rest is the mesh's ops (ceil(vc/4) bytes) then its literal planes. The literal
 * count is the ops' count of literals, so the plane decoder behind the checks is reached. */
static void fast_container(const uint8_t* data, size_t size) {
  uint32_t bits16 = data[1] & 1, joints = (data[1] & 2) ? 300 : 20, k = 1 + data[2] % 8, vc = data[3] * 4u;
  const unsigned char* body = data + 4;
  size_t blen = size - 4, on;
  if (blen < (vc + 3) / 4) vc = (uint32_t)(blen * 4);
  on = (vc + 3) / 4;
  uint32_t nl = 0;
  for (uint32_t i = 0; i < vc; ++i) nl += ((body[i >> 2] >> ((i & 3u) * 2u)) & 3u) == 3u;
  unsigned char mraw[8 + SKF_MESH_RECORD_SIZE];
  memset(mraw, 0, sizeof mraw);
  wr32(mraw, 1);
  wr32(mraw + 4, 1);
  wr64(mraw + 8, vc);
  wr32(mraw + 8 + 32, vc);
  mraw[8 + 24] = (unsigned char)k;
  size_t tsize = SKF_INFL_TABLE_SIZE + SKF_INFL_MESH_SIZE, isize = tsize + blen;
  unsigned char* iraw = calloc(1, isize);
  wr32(iraw + 4, 1);
  wr32(iraw + 8, nl);
  wr32(iraw + 12, (uint32_t)(blen - on));
  memcpy(iraw + tsize, body, blen);
  size_t jsize = 4 + 68 * joints + 4 + 2 * joints;
  unsigned char* f = calloc(1, SKF_HEADER_SIZE + 3 * 12 + compressBound((uLong)jsize) + compressBound(sizeof mraw) +
                                   isize + 64);
  size_t n = container(f, (bits16 ? 1u : 0u) | SKF_FLAG_FAST, joints, vc, k, mraw, iraw, isize, 1);
  decode_everything(f, n, NULL, 0, NULL);
  free(f);
  free(iraw);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if ((data[0] & 1) == 0 || size < 4) {
    decode_everything(data + 1, size - 1, NULL, 0, NULL);
    return 0;
  }
  if (data[1] & 16) {
    fast_container(data, size);
    return 0;
  }
  /* container mode: byte 1 = flags (bit0 16-bit weights, bit1 > 256 joints, bit2 triangle order, bit3 welded),
   * byte 2 = max influences, byte 3 = vertex count / 4; the raw INFL streams' lengths are derived from the
   * remaining bytes. In triangle order the index buffer is a fixed pseudo-random triangle list over the vertices;
   * welded meshes get pseudo-random positions with many repeats, and as many exceptions as byte 2 says. */
  uint32_t bits16 = data[1] & 1, joints = (data[1] & 2) ? 300 : 20, k = 1 + data[2] % 8, vc = data[3] * 4u;
  int tri_order = (data[1] & 4) != 0, welded = (data[1] & 8) != 0;
  const unsigned char* body = data + 4;
  size_t blen = size - 4;
  if (blen < vc) vc = (uint32_t)blen;
  size_t ic = tri_order && vc ? 3u * (vc + vc / 2u) : 0;
  uint32_t* ix = malloc(ic * sizeof *ix + 4);
  uint32_t seed = 0x9E3779B9u ^ vc;
  for (size_t i = 0; i < ic; ++i) {
    seed = seed * 1664525u + 1013904223u;
    ix[i] = (i % 3 == 0 || seed % 4 == 0) ? (uint32_t)((seed >> 8) % vc) : (uint32_t)((ix[i - 1] + 1u) % vc);
  }
  float* positions = NULL;
  uint32_t coded = vc, distinct = 0, check = 0;
  if (welded && vc) {
    positions = malloc(3 * (size_t)vc * sizeof *positions);
    uint32_t* first = malloc(vc * sizeof *first);
    uint32_t* scratch = malloc(skf_weld_scratch_count(vc) * sizeof *scratch);
    for (uint32_t v = 0; v < vc; ++v) {
      seed = seed * 1664525u + 1013904223u;
      positions[3 * v] = (float)((seed >> 8) % (vc / 2u + 1u));
      positions[3 * v + 1] = positions[3 * v + 2] = 0.0f;
    }
    distinct = (uint32_t)skf_weld_positions(positions, vc, first, scratch, &check);
    coded = distinct + (data[2] >> 3) % (vc - distinct + 1u);
    free(first);
    free(scratch);
  }
  size_t rest = blen - coded, cnt = rest / 8, jnt = rest / 3, nwg = rest / 5, far = rest / 16, wld = welded ? rest / 32 : 0;
  size_t wgt = rest - cnt - jnt - nwg - far - wld;
  size_t jsize = 4 + 68 * joints + 4 + 2 * joints;
  unsigned char* jraw = calloc(1, jsize);
  wr32(jraw, joints);
  for (uint32_t i = 0; i < joints; ++i) wr32(jraw + 4 + 4 * i, 0xffffffffu);
  wr32(jraw + 4 + 68 * joints, 2 * joints);
  for (uint32_t i = 0; i < joints; ++i) jraw[8 + 68 * joints + 2 * i] = 'j';
  unsigned char mraw[8 + SKF_MESH_RECORD_SIZE];
  memset(mraw, 0, sizeof mraw);
  wr32(mraw, 1);
  wr32(mraw + 4, 1);
  wr64(mraw + 8, vc);
  if (ic) {
    wr64(mraw + 16, ic);
    wr32(mraw + 24, skf_hash_u32(ix, ic));
    mraw[8 + 25] = SKF_ORDER_INDEX_BUFFER;
  }
  wr32(mraw + 8 + 32, coded);
  if (positions) {
    mraw[8 + 25] = SKF_ORDER_WELDED;
    wr32(mraw + 8 + 36, distinct);
    wr32(mraw + 8 + 40, check);
  }
  mraw[8 + 24] = (unsigned char)k;
  size_t tsize = SKF_INFL_TABLE_SIZE + SKF_INFL_MESH_SIZE;
  size_t isize = tsize + blen;
  unsigned char* iraw = malloc(isize);
  wr32(iraw, 0);
  wr32(iraw + 4, 1);
  wr32(iraw + 8, (uint32_t)cnt);
  wr32(iraw + 12, (uint32_t)jnt);
  wr32(iraw + 16, (uint32_t)wgt);
  wr32(iraw + 20, (uint32_t)nwg);
  wr32(iraw + 24, (uint32_t)far);
  wr32(iraw + 28, (uint32_t)wld);
  memcpy(iraw + tsize, body, blen);
  size_t cap = SKF_HEADER_SIZE + 3 * 12 + compressBound((uLong)jsize) + compressBound(sizeof mraw) +
               compressBound((uLong)isize) + 64;
  unsigned char* f = calloc(1, cap);
  size_t pos = SKF_HEADER_SIZE;
  pos += put_chunk(f + pos, "JNTS", jraw, jsize);
  pos += put_chunk(f + pos, "MDSC", mraw, sizeof mraw);
  pos += put_chunk(f + pos, "INFL", iraw, isize);
  put_header(f, pos, 0, bits16 ? 1u : 0u, joints, vc, k);
  decode_everything(f, pos, ix, ic, positions);
  free(positions);
  free(ix);
  free(f);
  free(iraw);
  free(jraw);
  return 0;
}
