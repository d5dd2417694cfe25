/* test_skf.c - the .skf compressed skin format: header/version/flag/CRC/truncation errors, round trips on
 * generated skins (1..8 influences, > 256 joints, empty vertices, 8/16-bit, triangle order), runtime decoder ==
 * library decoder, quantization error, and every corpus file when SKINKIT_ASSETS is set. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sk_testutil.h"
#include "skf.h"
#include "skinkit.h"

/* ---- helpers ------------------------------------------------------------------------------------------------ */
static sk_skeleton* make_skeleton(uint32_t n) {
  int32_t* parents = malloc(n * sizeof *parents);
  for (uint32_t i = 0; i < n; ++i) parents[i] = i == 0 ? -1 : (int32_t)((i - 1) / 2);
  float* rest = calloc(16 * (size_t)n, sizeof *rest);
  for (uint32_t i = 0; i < n; ++i) {
    rest[16 * i + 0] = rest[16 * i + 5] = rest[16 * i + 10] = rest[16 * i + 15] = 1.0f;
    rest[16 * i + 12] = (float)(i % 7) * 0.1f;
    rest[16 * i + 13] = 0.25f;
  }
  sk_skeleton_desc d = {0};
  d.size = sizeof d;
  d.joint_count = n;
  d.parents = parents;
  d.rest_local = rest;
  sk_skeleton* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_OK);
  free(parents);
  free(rest);
  return s;
}

/* Random skin: runs of vertices share a joint set (like real characters), 0..maxk influences, some duplicates,
 * zero and negative entries, some empty vertices. */
static sk_skin* make_skin(skt_rng* r, size_t nv, uint32_t nj, uint32_t maxk) {
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  uint32_t* jo = malloc(nv * 10 * sizeof *jo);
  float* we = malloc(nv * 10 * sizeof *we);
  uint32_t set[10], n = 0, e = 0;
  off[0] = 0;
  for (size_t v = 0; v < nv; ++v) {
    if (v == 0 || skt_rand_u32(r) % 8 == 0) {
      n = skt_rand_u32(r) % (maxk + 3); /* up to maxk + 2: the encoder keeps the largest maxk */
      if (n > 10) n = 10;
      if (skt_rand_u32(r) % 10 == 0) n = 0;
      for (uint32_t i = 0; i < n; ++i) set[i] = skt_rand_u32(r) % nj;
    }
    for (uint32_t i = 0; i < n; ++i) {
      jo[e] = set[i];
      uint32_t t = skt_rand_u32(r) % 20;
      we[e] = t == 0 ? 0.0f : t == 1 ? -0.5f : skt_rand_range(r, 0.001f, 1.0f);
      ++e;
    }
    off[v + 1] = e;
  }
  sk_skin* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(nv, nj, &s, &err), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(s, off, jo, we, &err), SK_OK);
  free(off);
  free(jo);
  free(we);
  return s;
}

static uint32_t* make_triangles(skt_rng* r, size_t nv, size_t tris) {
  uint32_t* ix = malloc(tris * 3 * sizeof *ix + 1);
  for (size_t t = 0; t < tris; ++t) {
    uint32_t a = nv > 2 ? skt_rand_u32(r) % (uint32_t)(nv - 2) : 0;
    ix[3 * t] = a;
    ix[3 * t + 1] = (uint32_t)((a + 1) % nv);
    ix[3 * t + 2] = (uint32_t)((a + 2) % nv);
  }
  return ix;
}

static unsigned char* encode_flags(const sk_skeleton* skel, const sk_skf_mesh* ms, uint32_t mc, uint32_t bits,
                                   uint32_t k, uint32_t flags, size_t* out_size) {
  sk_skf_encode_desc d = {0};
  d.size = sizeof d;
  d.flags = flags;
  d.weight_bits = bits;
  d.max_influences = k;
  d.skeleton = skel;
  d.meshes = ms;
  d.mesh_count = mc;
  return skt_skf_encode(&d, out_size);
}
static unsigned char* encode(const sk_skeleton* skel, const sk_skf_mesh* ms, uint32_t mc, uint32_t bits, uint32_t k,
                             size_t* out_size) {
  return encode_flags(skel, ms, mc, bits, k, 0, out_size);
}

static uint32_t rd32(const unsigned char* p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void fix_header_crc(unsigned char* f) { wr32(f + 60, (uint32_t)crc32(0, f, 60)); }
static void fix_payload_crc(unsigned char* f, size_t n) {
  wr32(f + 56, (uint32_t)crc32(0, f + SKF_HEADER_SIZE, (uInt)(n - SKF_HEADER_SIZE)));
  fix_header_crc(f);
}

/* Decodes mesh m with the library (u16 joints/weights, K slots) and checks it against the canonical
 * quantization of the source skin; returns the max weight error against the normalized, limited source. */
static double check_mesh(const unsigned char* file, size_t size, uint32_t m, const sk_skf_mesh* src, uint32_t bits,
                         uint32_t k) {
  const sk_skin* skin = src->skin;
  size_t nv = sk_skin_vertex_count(skin);
  uint32_t total = bits == 16 ? 65535u : 255u;
  uint16_t* jo = malloc(nv * k * 2 + 2);
  uint16_t* we = malloc(nv * k * 2 + 2);
  sk_skf_decode_desc d = {0};
  d.size = sizeof d;
  d.mesh = m;
  d.influences = k;
  d.joint_type = SK_TYPE_U16;
  d.weight_type = SK_TYPE_U16;
  d.indices = src->indices;
  d.index_count = src->index_count;
  d.positions = src->positions;
  d.joints = jo;
  d.weights = we;
  d.vertex_capacity = nv;
  sk_error err;
  sk_result rc = sk_skf_decode(file, size, &d, &err);
  ck_assert_msg(rc == SK_OK, "decode mesh %u: %s", m, err.message);
  double max_err = 0;
  for (size_t v = 0; v < nv; ++v) {
    uint32_t cj[64], qj[8], qw[8], tj[8];
    float cw[64], tw[8];
    size_t cnt = sk_skin_get_vertex(skin, v, cj, cw, 64);
    ck_assert_uint_le(cnt, 64);
    size_t n = skio_skf_quantize_vertex(cj, cw, cnt, k, total, qj, qw);
    uint32_t sum = 0;
    for (uint32_t s = 0; s < k; ++s) {
      uint32_t ej = s < n ? qj[s] : 0, ew = s < n ? qw[s] : 0;
      uint32_t dw = bits == 16 ? we[v * k + s] : we[v * k + s] / 257u;
      if (bits == 8) ck_assert_uint_eq(we[v * k + s] % 257u, 0);
      ck_assert_msg(jo[v * k + s] == ej && dw == ew, "mesh %u vertex %zu slot %u: got %u/%u want %u/%u", m, v, s,
                    jo[v * k + s], dw, ej, ew);
      sum += dw;
    }
    ck_assert_uint_eq(sum, n ? total : 0);
    /* error against the normalized, limited source (duplicates merged as the encoder does) */
    size_t tn = skc_select_top(cj, cw, cnt, k, tj, tw);
    int dup = 0;
    for (size_t a = 0; a < cnt; ++a)
      for (size_t b = a + 1; b < cnt; ++b) dup |= cj[a] == cj[b];
    if (dup) continue;
    for (size_t i = 0; i < tn; ++i) {
      uint32_t q = 0;
      for (size_t t = 0; t < n; ++t)
        if (qj[t] == tj[i]) q = qw[t];
      double e = fabs((double)q / total - tw[i]);
      /* largest remainder: < 1 unit always, <= 0.5 unit when the vertex has at most 2 influences */
      ck_assert_msg(e * total < 1.0 + 1e-6, "error %.3f units", e * total);
      /* (float weights carry ~6e-8 relative error, visible at 16 bits) */
      if (tn <= 2)
        ck_assert_msg(e * total <= 0.5 + total * 2.5e-7, "error %.4f units (%u bits) on a 2-influence vertex", e * total, bits);
      if (e > max_err) max_err = e;
    }
  }
  free(jo);
  free(we);
  return max_err * total;
}

/* Frees the skins and index arrays of meshes made by the round-trip tests. */
static void free_meshes(sk_skf_mesh* ms, uint32_t count) {
  for (uint32_t m = 0; m < count; ++m) {
    sk_skin_destroy((sk_skin*)ms[m].skin);
    free((void*)ms[m].indices);
  }
}

/* ---- round trips --------------------------------------------------------------------------------------------- */
START_TEST(round_trip_generated) {
  static const struct {
    uint32_t joints, bits, k, meshes;
    int tris;
  } cfg[] = {{20, 8, 4, 1, 0}, {20, 8, 8, 3, 1}, {300, 8, 4, 2, 1}, {300, 16, 8, 2, 0}, {256, 16, 4, 1, 1},
             {1000, 8, 8, 4, 1}, {3, 8, 1, 1, 0}};
  skt_rng r = {12345u + (uint64_t)_i};
  for (size_t c = 0; c < sizeof cfg / sizeof *cfg; ++c) {
    sk_skeleton* skel = make_skeleton(cfg[c].joints);
    sk_skf_mesh ms[4];
    memset(ms, 0, sizeof ms);
    for (uint32_t m = 0; m < cfg[c].meshes; ++m) {
      size_t nv = m == 1 ? 0 : 1 + skt_rand_u32(&r) % 3000; /* mesh 1 is empty */
      ms[m].skin = make_skin(&r, nv, cfg[c].joints, cfg[c].k);
      if (cfg[c].tris && nv) {
        ms[m].index_count = 3 * (nv / 2);
        ms[m].indices = make_triangles(&r, nv, nv / 2);
      }
    }
    size_t size = 0;
    unsigned char* file = encode(skel, ms, cfg[c].meshes, cfg[c].bits, cfg[c].k, &size);
    sk_skf_info info = {0};
    info.size = sizeof info;
    sk_error err;
    ck_assert_int_eq(sk_skf_peek(file, size, &info, &err), SK_OK);
    ck_assert_uint_eq(info.major, SKF_VERSION_MAJOR);
    ck_assert_uint_eq(info.mesh_count, cfg[c].meshes);
    ck_assert_uint_eq(info.joint_count, cfg[c].joints);
    ck_assert_uint_eq(info.weight_bits, cfg[c].bits);
    ck_assert_uint_eq(info.joint_bits, cfg[c].joints > 256 ? 16 : 8);
    ck_assert_uint_eq(info.file_size, size);
    for (uint32_t m = 0; m < cfg[c].meshes; ++m) check_mesh(file, size, m, &ms[m], cfg[c].bits, cfg[c].k);

    /* the joint table comes back exactly */
    uint32_t nj = cfg[c].joints;
    int32_t* par = malloc(nj * sizeof *par);
    float* ib = malloc(16 * nj * sizeof *ib);
    float* ib_ref = malloc(16 * nj * sizeof *ib);
    char* names = malloc(info.names_size);
    ck_assert_int_eq(sk_skf_decode_skeleton(file, size, par, ib, names, info.names_size, &err), SK_OK);
    ck_assert_int_eq(sk_skeleton_get_inverse_bind(skel, ib_ref), SK_OK);
    ck_assert_mem_eq(ib, ib_ref, 16 * nj * sizeof *ib);
    const char* nm = names;
    for (uint32_t j = 0; j < nj; ++j) {
      ck_assert_int_eq(par[j], sk_skeleton_joint_parent(skel, j));
      ck_assert_str_eq(nm, sk_skeleton_joint_name(skel, j));
      nm += strlen(nm) + 1;
    }
    ck_assert_int_eq(sk_skf_decode_skeleton(file, size, NULL, NULL, names, info.names_size - 1, &err),
                     SK_ERR_INVALID_ARGUMENT);
    free(par);
    free(ib);
    free(ib_ref);
    free(names);
    free(file);
    free_meshes(ms, cfg[c].meshes);
    sk_skeleton_destroy(skel);
  }
}
END_TEST

/* Mesh m of a speed-profile file decodes to u8 x 4 byte for byte as of the default-profile file dfile (which gets
 * the mesh's index buffer, if any; the speed profile needs none). */
static void check_fast_u8x4(const unsigned char* file, size_t size, const unsigned char* dfile, size_t dsize,
                            uint32_t m, size_t nv, const uint32_t* indices, size_t index_count) {
  unsigned char* a = calloc(nv * 8 + 8, 1);
  unsigned char* b = calloc(nv * 8 + 8, 1);
  skf_mesh_output oa;
  memset(&oa, 0, sizeof oa);
  oa.joints = a;
  oa.weights = a + 4 * nv;
  oa.vertex_capacity = nv;
  oa.influences = 4;
  oa.joint_bytes = oa.weight_bytes = 1;
  oa.indices = indices;
  oa.index_count = index_count;
  skf_mesh_output ob = oa;
  ob.joints = b;
  ob.weights = b + 4 * nv;
  ob.indices = NULL;
  ob.index_count = 0;
  skf_error e;
  ck_assert_int_eq(skf_decode_mesh(dfile, dsize, m, &oa, &e), SKF_OK);
  ck_assert_msg(skf_decode_mesh(file, size, m, &ob, &e) == SKF_OK, "fast u8x4, %zu vertices: %s", nv, e.message);
  ck_assert_msg(memcmp(a, b, nv * 8) == 0, "fast u8x4 differs from the default profile, %zu vertices", nv);
  free(a);
  free(b);
}

/* The speed profile (SK_SKF_FAST, .skf 3.1) gives back exactly what the default profile gives, in u16 x K (the
 * generic path, checked against the canonical quantization) and u8 x 4 (the decoder's fast path) outputs. */
START_TEST(fast_profile_round_trip) {
  static const struct {
    uint32_t joints, bits, k, meshes;
  } cfg[] = {{20, 8, 4, 1}, {20, 8, 8, 3}, {300, 8, 4, 2}, {300, 16, 8, 2}, {256, 16, 4, 1}, {1000, 8, 8, 4},
             {3, 8, 1, 1}, {7, 8, 2, 2}, {40, 8, 3, 1}};
  skt_rng r = {4242u + (uint64_t)_i};
  for (size_t c = 0; c < sizeof cfg / sizeof *cfg; ++c) {
    sk_skeleton* skel = make_skeleton(cfg[c].joints);
    sk_skf_mesh ms[4];
    memset(ms, 0, sizeof ms);
    for (uint32_t m = 0; m < cfg[c].meshes; ++m) {
      size_t nv = m == 1 ? 0 : 1 + skt_rand_u32(&r) % 3000; /* mesh 1 is empty */
      ms[m].skin = make_skin(&r, nv, cfg[c].joints, cfg[c].k);
      if (nv && m == 0) { /* indices are ignored by the speed profile */
        ms[m].index_count = 3 * (nv / 2);
        ms[m].indices = make_triangles(&r, nv, nv / 2);
      }
    }
    size_t size = 0, dsize = 0;
    unsigned char* file = encode_flags(skel, ms, cfg[c].meshes, cfg[c].bits, cfg[c].k, SK_SKF_FAST, &size);
    unsigned char* dfile = encode(skel, ms, cfg[c].meshes, cfg[c].bits, cfg[c].k, &dsize);
    sk_skf_info info = {0};
    info.size = sizeof info;
    sk_error err;
    ck_assert_int_eq(sk_skf_peek(file, size, &info, &err), SK_OK);
    ck_assert_uint_eq(info.major, 3);
    ck_assert_uint_eq(info.minor, 1);
    ck_assert_uint_eq(info.flags & SK_SKF_INFO_FAST, SK_SKF_INFO_FAST);
    ck_assert_uint_eq(info.weight_bits, cfg[c].bits);
    ck_assert_int_eq(sk_skf_peek(dfile, dsize, &info, &err), SK_OK);
    ck_assert_uint_eq(info.minor, 0); /* a default-profile file stays 3.0 */
    ck_assert_uint_eq(info.flags & SK_SKF_INFO_FAST, 0);
    for (uint32_t m = 0; m < cfg[c].meshes; ++m) {
      sk_skf_mesh plain = ms[m];
      plain.indices = NULL; /* decoding needs neither indices nor positions */
      plain.index_count = 0;
      check_mesh(file, size, m, &plain, cfg[c].bits, cfg[c].k);
      sk_skf_mesh_info mi = {0};
      mi.size = sizeof mi;
      ck_assert_int_eq(sk_skf_get_mesh_info(file, size, m, &mi, &err), SK_OK);
      ck_assert_uint_eq(mi.order, SKF_ORDER_FILE);
      size_t nv = sk_skin_vertex_count(ms[m].skin);
      if (cfg[c].bits != 8 || cfg[c].joints > 256 || cfg[c].k > 4 || !nv) continue;
      check_fast_u8x4(file, size, dfile, dsize, m, nv, ms[m].indices, ms[m].index_count);
    }
    free(file);
    free(dfile);
    free_meshes(ms, cfg[c].meshes);
    sk_skeleton_destroy(skel);
  }
}
END_TEST

/* The speed profile's u8 x 4 expansion (four vertices per ops byte, copies inside a byte followed through a table):
 * skins drawn from three fixed weight vectors with a fresh one now and then, so that the file holds copies of the
 * vertex 1, 2 and 3 before in every mix, chains of copies inside a byte and across bytes, and vertex counts that
 * leave 0-3 vertices past the last whole byte. Byte for byte the default profile's output. */
START_TEST(fast_profile_copies) {
  static const size_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 65, 66, 5003};
  skt_rng r = {977u};
  sk_skeleton* skel = make_skeleton(12);
  for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
    const size_t nv = counts[c];
    uint32_t* off = malloc((nv + 1) * sizeof *off);
    uint32_t* jo = malloc(nv * 4 * sizeof *jo);
    float* we = malloc(nv * 4 * sizeof *we);
    off[0] = 0;
    for (size_t v = 0; v < nv; ++v) { /* four influences: the decoder's u8 x 4 expansion needs four-slot rows */
      uint32_t pick = skt_rand_u32(&r) % 16, e = off[v];
      jo[e] = pick < 15 ? pick % 3 : 3 + skt_rand_u32(&r) % 6; /* 1 in 16: a fresh vector */
      we[e] = pick < 15 ? 0.3f + 0.1f * (float)(pick % 3) : skt_rand_range(&r, 0.3f, 0.5f);
      static const float rest[3] = {0.25f, 0.2f, 0.15f};
      for (uint32_t i = 0; i < 3; ++i) jo[e + 1 + i] = 9 + i, we[e + 1 + i] = rest[i] * (1.0f - we[e]) / 0.6f;
      off[v + 1] = e + 4;
    }
    sk_skf_mesh ms[1];
    memset(ms, 0, sizeof ms);
    sk_skin* skin = NULL;
    sk_error err;
    ck_assert_int_eq(sk_skin_create(nv, 12, &skin, &err), SK_OK);
    ck_assert_int_eq(sk_skin_set_csr(skin, off, jo, we, &err), SK_OK);
    ms[0].skin = skin;
    size_t size = 0, dsize = 0;
    unsigned char* file = encode_flags(skel, ms, 1, 8, 4, SK_SKF_FAST, &size);
    unsigned char* dfile = encode(skel, ms, 1, 8, 4, &dsize);
    check_fast_u8x4(file, size, dfile, dsize, 0, nv, NULL, 0);
    if (nv > 1000) /* mostly copies: the file is far below 8 bytes a vertex */
      ck_assert_uint_lt(size, nv * 4);
    free(file), free(dfile), free(off), free(jo), free(we);
    sk_skin_destroy(skin);
  }
  sk_skeleton_destroy(skel);
}
END_TEST

/* A speed-profile file whose width groups may carry up to max_esc escapes (skio_skf_options.fast_escapes). */
static unsigned char* encode_fast_escapes(const sk_skeleton* skel, const sk_skf_mesh* ms, uint32_t bits, uint32_t k,
                                          uint32_t max_esc, size_t* out_size) {
  skio_skf_mesh m;
  memset(&m, 0, sizeof m);
  m.skin = ms->skin;
  skio_skf_options o;
  memset(&o, 0, sizeof o);
  o.weight_bits = bits;
  o.max_influences = k;
  o.profile = SKIO_SKF_PROFILE_FAST;
  o.fast_escapes = max_esc;
  unsigned char* buf = NULL;
  skc_err e;
  ck_assert_msg(skio_skf_encode(skel, &m, 1, &o, &buf, out_size, &e) == SKC_OK, "encode: %s", e.message);
  return buf;
}

/* Escapes in the speed profile: the format lets a 2- or 4-bit group hold any number (the delta then follows the
 * group's packed bytes), skinkit's encoder writes none unless a test asks (fast_escapes). Weights that drift by a
 * step or two with a jump now and then give groups with 1..16 escapes, at every position and in the stream's last
 * 16 bytes (the decoders' tail path). Decoded byte for byte as the default profile's u8 x 4 (the SSE2 path on
 * x86-64) and as the canonical quantization in u16 x K (K = 8 and 16-bit weights: the portable path). */
START_TEST(fast_profile_escapes) {
  static const size_t counts[] = {1, 5, 16, 17, 31, 40, 333, 4099};
  static const struct {
    uint32_t bits, k;
  } cfg[] = {{8, 4}, {8, 8}, {16, 4}};
  skt_rng r = {31337u};
  sk_skeleton* skel = make_skeleton(40);
  for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
    const size_t nv = counts[c];
    float w0 = 0.4f;
    uint32_t j0 = 0;
    sk_skin* skin = NULL;
    sk_error err;
    ck_assert_int_eq(sk_skin_create(nv, 40, &skin, &err), SK_OK);
    for (size_t v = 0; v < nv; ++v) {
      uint32_t jj[4], pick = skt_rand_u32(&r) % 10;
      float ww[4];
      if (pick == 0) w0 = skt_rand_range(&r, 0.3f, 0.9f); /* a jump: an escape at 2 and often at 4 bits */
      else w0 += (float)((int)(skt_rand_u32(&r) % 5) - 2) / 255.0f; /* a step of up to 2/255 */
      w0 = w0 < 0.3f ? 0.3f : w0 > 0.9f ? 0.9f : w0;
      if (skt_rand_u32(&r) % 40 == 0) j0 = skt_rand_u32(&r) % 36;
      for (uint32_t i = 0; i < 4; ++i) {
        jj[i] = j0 + i;
        ww[i] = i == 0 ? w0 : (1.0f - w0) * (0.5f - 0.1f * (float)i) / 0.9f;
      }
      ck_assert_int_eq(sk_skin_set_vertex(skin, v, jj, ww, 4, &err), SK_OK);
    }
    sk_skf_mesh ms[1];
    memset(ms, 0, sizeof ms);
    ms[0].skin = skin;
    for (size_t q = 0; q < sizeof cfg / sizeof *cfg; ++q) {
      size_t size = 0, plain = 0, dsize = 0;
      unsigned char* file = encode_fast_escapes(skel, ms, cfg[q].bits, cfg[q].k, 16, &size);
      unsigned char* none = encode_flags(skel, ms, 1, cfg[q].bits, cfg[q].k, SK_SKF_FAST, &plain);
      if (nv >= 300) /* escapes taken: the file is smaller than without them */
        ck_assert_msg(size < plain, "%zu vertices, %u bits: %zu bytes with escapes, %zu without", nv, cfg[q].bits,
                      size, plain);
      check_mesh(file, size, 0, &ms[0], cfg[q].bits, cfg[q].k);
      if (cfg[q].bits == 8 && cfg[q].k == 4) {
        unsigned char* dfile = encode(skel, ms, 1, 8, 4, &dsize);
        check_fast_u8x4(file, size, dfile, dsize, 0, nv, NULL, 0);
        free(dfile);
      }
      free(file);
      free(none);
    }
    sk_skin_destroy(skin);
  }
  sk_skeleton_destroy(skel);
}
END_TEST

/* The INFL chunk body of one speed-profile mesh of nv vertices that are all literals, each with a new joint set:
 * rows rj / rw (slots 0..n-1 of jb- and wb-byte values; the weight in slot n-1 is implied unless n == 1), every
 * plane group stored raw (width 3), the lanes past nv in the last group given the delta `pad`. Returns its size. */
static size_t fast_infl(unsigned char* out, size_t nv, uint32_t n, uint32_t jb, uint32_t wb, const uint16_t (*rj)[8],
                        const uint16_t (*rw)[8], unsigned char pad) {
  const size_t groups = (nv + 15) / 16, hn = (groups + 3) / 4, fb = (nv + 7) / 8, nw = n > 1 ? n - 1 : 1;
  size_t pos = 8 + 24;
  memset(out, 0, pos);
  wr32(out + 4, 1); /* first mesh 0, one mesh */
  memset(out + pos, 0xff, (nv + 3) / 4); /* ops: every vertex a literal */
  pos += (nv + 3) / 4;
  const size_t lit0 = pos;
  memset(out + pos, 0, fb);
  for (size_t v = 0; v < nv; ++v) out[pos + v / 8] |= (unsigned char)(1u << (v % 8));
  pos += fb;
  for (size_t q = 0; q < n * jb + nw * wb; ++q) { /* planes: joint bytes, then weight bytes, in row order */
    const int joint = q < n * jb;
    const size_t qq = joint ? q : q - n * jb, cb = joint ? jb : wb;
    memset(out + pos, 0xff, hn);
    pos += hn;
    unsigned prev = 0;
    for (size_t v = 0; v < groups * 16; ++v) {
      unsigned val = v >= nv ? (prev + pad) & 0xffu : (unsigned)((joint ? rj : rw)[v][qq / cb] >> (8 * (qq % cb))) & 0xffu;
      out[pos++] = (unsigned char)(val - prev);
      prev = val;
    }
  }
  wr32(out + 8, (uint32_t)nv);
  wr32(out + 12, (uint32_t)(pos - lit0));
  wr32(out + 16, (uint32_t)nv);
  return pos;
}

/* File f (a one-mesh speed-profile file) with its INFL chunk's body replaced by body; CRCs and sizes fixed. */
static unsigned char* replace_infl(const unsigned char* f, size_t size, const unsigned char* body, size_t bn,
                                   size_t* out_size) {
  size_t pos = SKF_HEADER_SIZE, infl = 0;
  while (pos + 12 <= size) {
    if (!memcmp(f + pos, "INFL", 4)) infl = pos;
    pos += 12 + rd32(f + pos + 4);
  }
  ck_assert_uint_gt(infl, 0);
  const size_t after = infl + 12 + rd32(f + infl + 4), n = infl + 12 + bn + (size - after);
  unsigned char* g = malloc(n);
  memcpy(g, f, infl + 4);
  wr32(g + infl + 4, (uint32_t)bn);
  wr32(g + infl + 8, (uint32_t)bn);
  memcpy(g + infl + 12, body, bn);
  memcpy(g + infl + 12 + bn, f + after, size - after);
  wr32(g + 40, (uint32_t)(n - SKF_HEADER_SIZE)); /* payload size (u64, < 4 GiB here) */
  wr32(g + 44, 0);
  fix_payload_crc(g, n);
  *out_size = n;
  return g;
}

/* The speed profile's row completion and checks for 1-8 influences, 8- or 16-bit joint ids and weights (the
 * decoder's SSE2 paths on x86-64; the portable one elsewhere), on hand-made streams: valid rows decode to the stored
 * joints and weights with the implied last weight (4, 5, 8 and n slots of u8 or u16 components, u8 where the
 * file's values fit) whatever the padding lanes of the last group hold; a joint past the table, stored weights summing past the total,
 * a first weight of 0 before a nonzero one, and a lone weight other than 0 or the total are each refused
 * (SKF_ERR_FORMAT) at the first, 16th, 17th and last literal. Loop index: influences 1-8, joint bytes, weight bits. */
START_TEST(fast_profile_bad_rows) {
  enum { NV = 37 };
  const uint32_t n = (uint32_t)_i % 8 + 1, jb = (uint32_t)_i / 8 % 2 + 1, wb = (uint32_t)_i / 16 + 1;
  const uint32_t J = jb == 2 ? 300 : 30, total = wb == 2 ? 65535u : 255u;
  skt_rng r = {7000u + (uint64_t)_i};
  sk_skeleton* skel = make_skeleton(J);
  sk_skin* skin = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(NV, J, &skin, &err), SK_OK);
  for (size_t v = 0; v < NV; ++v) {
    uint32_t jj[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    float ww[8] = {0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f};
    ck_assert_int_eq(sk_skin_set_vertex(skin, v, jj, ww, n, &err), SK_OK);
  }
  sk_skf_mesh ms = {0};
  ms.skin = skin;
  size_t size = 0;
  unsigned char* f = encode_flags(skel, &ms, 1, wb == 2 ? 16 : 8, 8, SK_SKF_FAST, &size);
  uint16_t rj[NV][8], rw[NV][8];
  static unsigned char body[8192];
  memset(rj, 0, sizeof rj);
  memset(rw, 0, sizeof rw);
  for (size_t v = 0; v < NV; ++v) {
    for (uint32_t s = 0; s < n; ++s) rj[v][s] = (uint16_t)(s * (J / 8) + skt_rand_u32(&r) % (J / 8)); /* < J */
    if (n == 1)
      rw[v][0] = skt_rand_u32(&r) % 3 ? (uint16_t)total : 0;
    else if (v % 9 != 4) { /* every ninth an empty vertex: all weights 0 */
      rw[v][0] = (uint16_t)(1 + skt_rand_u32(&r) % (total / 3));
      for (uint32_t s = 1; s + 1 < n; ++s) rw[v][s] = (uint16_t)(skt_rand_u32(&r) % (total / 12));
    }
  }
  static uint16_t jo[NV * 8], wo[NV * 8];
  skf_mesh_output o;
  skf_error e;
  static const struct {
    uint32_t k, ojb, owb;
  } lays[] = {{4, 2, 2}, {8, 2, 2}, {4, 1, 1}, {8, 1, 1}, {4, 1, 2}, {8, 1, 2}, {4, 2, 1}, {5, 2, 2}, {4, 0, 0}};
  for (int lay = 0; lay < 9; ++lay) { /* u8 components only where the file's fit in a byte; {4, 0, 0}: n slots */
    const uint32_t k = lays[lay].ojb ? lays[lay].k : n, ojb = lays[lay].ojb ? lays[lay].ojb : 2;
    const uint32_t owb = lays[lay].owb ? lays[lay].owb : 2;
    if ((ojb == 1 && jb == 2) || (owb == 1 && wb == 2) || k < n) continue;
    size_t gn = 0, bn = fast_infl(body, NV, n, jb, wb, (const uint16_t (*)[8])rj, (const uint16_t (*)[8])rw, 0xc3);
    unsigned char* g = replace_infl(f, size, body, bn, &gn);
    memset(&o, 0, sizeof o);
    o.joints = jo;
    o.weights = wo;
    o.vertex_capacity = NV;
    o.influences = k;
    o.joint_bytes = ojb;
    o.weight_bytes = owb;
    ck_assert_msg(skf_decode_mesh(g, gn, 0, &o, &e) == SKF_OK, "%u influences: %s", n, e.message);
    const unsigned char* jb8 = (const unsigned char*)jo;
    const unsigned char* wb8 = (const unsigned char*)wo;
    for (size_t v = 0; v < NV; ++v) {
      unsigned sum = 0;
      for (uint32_t s = 0; s < k; ++s) {
        unsigned wj = s < n ? rj[v][s] : 0u, ww = s < n ? rw[v][s] : 0u;
        if (n > 1 && s + 1 < n) sum += ww;
        if (n > 1 && s + 1 == n) ww = rw[v][0] ? total - sum : 0u;
        if (owb == 2 && wb == 1) ww *= 257u; /* 8-bit weights widened */
        unsigned gj = ojb == 2 ? jo[v * k + s] : jb8[v * k + s], gw = owb == 2 ? wo[v * k + s] : wb8[v * k + s];
        ck_assert_msg(gj == wj && gw == ww, "%u influences, %u/%u-byte, layout %d, vertex %zu slot %u: %u/%u, want %u/%u",
                      n, jb, wb, lay, v, s, gj, gw, wj, ww);
      }
    }
    free(g);
  }
  static const size_t at[] = {0, 15, 16, NV - 1};
  for (int kind = 0; kind < 4; ++kind) {
    if (n == 1 ? kind == 1 || kind == 2 : kind == 3) continue; /* the checks each count applies */
    if (n == 2 && (kind == 1 || kind == 2)) continue;           /* one stored weight: no sum past the total */
    for (size_t a = 0; a < 4; ++a) {
      uint16_t bj[NV][8], bw[NV][8];
      memcpy(bj, rj, sizeof bj);
      memcpy(bw, rw, sizeof bw);
      const size_t v = at[a];
      if (kind == 0) bj[v][n - 1] = (uint16_t)J;                          /* a joint past the table */
      if (kind == 1) bw[v][0] = bw[v][1] = (uint16_t)(total / 2 + 17);    /* stored weights past the total */
      if (kind == 2) bw[v][0] = 0, bw[v][1] = 9;                          /* weight 0 first, then a nonzero one */
      if (kind == 3) bw[v][0] = 100;                                      /* a lone weight neither 0 nor total */
      size_t gn = 0, bn = fast_infl(body, NV, n, jb, wb, (const uint16_t (*)[8])bj, (const uint16_t (*)[8])bw, 0);
      unsigned char* g = replace_infl(f, size, body, bn, &gn);
      o.influences = 8;
      o.joint_bytes = o.weight_bytes = 2;
      ck_assert_msg(skf_decode_mesh(g, gn, 0, &o, &e) == SKF_ERR_FORMAT,
                    "%u influences, %u/%u-byte, kind %d at %zu: accepted", n, jb, wb, kind, v);
      free(g);
    }
  }
  free(f);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* A 3.0 file (the skin of docs/skf.md section 7 over make_skeleton(2), as the 3.0 encoder wrote it) still decodes,
 * and the default profile still writes exactly it. */
static const unsigned char k_v30_file[] = {
    0x89, 0x53, 0x4b, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x40, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa2, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0e, 0xfc, 0x51, 0xa5, 0x99, 0xa1, 0x2c, 0x79,
    0x4a, 0x4e, 0x54, 0x53, 0x3b, 0x00, 0x00, 0x00, 0x9e, 0x00, 0x00, 0x00, 0x18, 0xd3, 0x63, 0x62,
    0x60, 0x60, 0xf8, 0xff, 0xff, 0xff, 0x7f, 0x06, 0x06, 0x06, 0x06, 0x06, 0x86, 0x06, 0x7b, 0x06,
    0x0c, 0x40, 0x48, 0xac, 0x61, 0x1f, 0x42, 0x8c, 0x34, 0xfd, 0x67, 0xcf, 0x9c, 0xd9, 0xcb, 0xc0,
    0xc0, 0xb0, 0x1f, 0x26, 0xc6, 0xc7, 0xc0, 0xc0, 0x90, 0x95, 0x9f, 0x99, 0x57, 0x62, 0x00, 0xa1,
    0x0c, 0x19, 0x00, 0x5c, 0x1f, 0x13, 0xcd, 0x4d, 0x44, 0x53, 0x43, 0x18, 0x00, 0x00, 0x00, 0x38,
    0x00, 0x00, 0x00, 0x18, 0xd3, 0x63, 0x64, 0x60, 0x60, 0x60, 0x64, 0x60, 0x60, 0x60, 0x61, 0xc0,
    0x0e, 0x98, 0xa0, 0x34, 0xba, 0x3c, 0x00, 0x01, 0xd4, 0x00, 0x0d, 0x49, 0x4e, 0x46, 0x4c, 0x2b,
    0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x18, 0xd3, 0x62, 0x60, 0x60, 0x60, 0x60, 0x64, 0x60,
    0x60, 0x60, 0x66, 0x60, 0x60, 0x60, 0x81, 0xb2, 0x91, 0x01, 0x40, 0xff, 0xff, 0x33, 0xfc, 0x07,
    0x88, 0x91, 0x89, 0x11, 0x20, 0x06, 0x06, 0x06, 0x46, 0x80, 0x1a, 0x00, 0x03, 0x00, 0x21, 0xda,
    0x03, 0x8c};

START_TEST(reads_version_3_0) {
  sk_skeleton* skel = make_skeleton(2);
  sk_skin* skin = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(4, 2, &skin, &err), SK_OK);
  const uint32_t j0[1] = {0}, j1[2] = {0, 1}, j3[1] = {1};
  const float w0[1] = {1.0f}, w1[2] = {0.75f, 0.25f}, w3[1] = {1.0f};
  ck_assert_int_eq(sk_skin_set_vertex(skin, 0, j0, w0, 1, &err), SK_OK);
  ck_assert_int_eq(sk_skin_set_vertex(skin, 1, j1, w1, 2, &err), SK_OK);
  ck_assert_int_eq(sk_skin_set_vertex(skin, 2, j1, w1, 2, &err), SK_OK);
  ck_assert_int_eq(sk_skin_set_vertex(skin, 3, j3, w3, 1, &err), SK_OK);
  sk_skf_mesh m = {0};
  m.skin = skin;
  size_t size = 0;
  unsigned char* f = encode(skel, &m, 1, 8, 4, &size);
  /* the 3.0 header as documented: major 3, minor 0, flags 0 */
  ck_assert_uint_eq(f[8], 3);
  ck_assert_uint_eq(f[10], 0);
  ck_assert_uint_eq(rd32(f + 12), 0);
  static const unsigned char want_j[16] = {0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
  static const unsigned char want_w[16] = {255, 0, 0, 0, 191, 64, 0, 0, 191, 64, 0, 0, 255, 0, 0, 0};
  unsigned char jo[16], wo[16];
  skf_mesh_output o;
  memset(&o, 0, sizeof o);
  o.joints = jo;
  o.weights = wo;
  o.vertex_capacity = 4;
  o.influences = 4;
  o.joint_bytes = o.weight_bytes = 1;
  skf_error e;
  ck_assert_int_eq(skf_decode_mesh(f, size, 0, &o, &e), SKF_OK);
  ck_assert_mem_eq(jo, want_j, 16);
  ck_assert_mem_eq(wo, want_w, 16);
  /* the frozen 3.0 file of this skin (written by the 3.0 encoder, before the speed profile existed) */
  ck_assert_uint_eq(size, sizeof k_v30_file);
  ck_assert_mem_eq(f, k_v30_file, size);
  memset(jo, 0xee, sizeof jo);
  memset(wo, 0xee, sizeof wo);
  ck_assert_int_eq(skf_decode_mesh(k_v30_file, sizeof k_v30_file, 0, &o, &e), SKF_OK);
  ck_assert_mem_eq(jo, want_j, 16);
  ck_assert_mem_eq(wo, want_w, 16);
  /* and the speed profile of the same skin */
  size_t fsize = 0;
  unsigned char* ff = encode_flags(skel, &m, 1, 8, 4, SK_SKF_FAST, &fsize);
  memset(jo, 0xee, sizeof jo);
  memset(wo, 0xee, sizeof wo);
  ck_assert_int_eq(skf_decode_mesh(ff, fsize, 0, &o, &e), SKF_OK);
  ck_assert_mem_eq(jo, want_j, 16);
  ck_assert_mem_eq(wo, want_w, 16);
  free(ff);
  free(f);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* Hostile speed-profile files: every flipped byte behind valid checksums gives a code, never a crash, and the
 * structural lies give FORMAT. */
START_TEST(fast_profile_corrupt) {
  skt_rng r = {99};
  sk_skeleton* skel = make_skeleton(30);
  sk_skf_mesh ms = {0};
  ms.skin = make_skin(&r, 700, 30, 4);
  size_t size = 0;
  unsigned char* f = encode_flags(skel, &ms, 1, 8, 4, SK_SKF_FAST, &size);
  unsigned char* g = malloc(size);
  unsigned char jo[4 * 700], wo[4 * 700];
  skf_mesh_output o;
  memset(&o, 0, sizeof o);
  o.joints = jo;
  o.weights = wo;
  o.vertex_capacity = 700;
  o.influences = 4;
  o.joint_bytes = o.weight_bytes = 1;
  skf_error e;
  ck_assert_int_eq(skf_decode_mesh(f, size, 0, &o, &e), SKF_OK);
  /* find the INFL chunk */
  size_t pos = SKF_HEADER_SIZE, infl = 0;
  while (pos + 12 <= size) {
    if (!memcmp(f + pos, "INFL", 4)) infl = pos;
    pos += 12 + rd32(f + pos + 4);
  }
  ck_assert_uint_gt(infl, 0);
  ck_assert_uint_eq(rd32(f + infl + 4), rd32(f + infl + 8)); /* stored raw */
  size_t raw = infl + 12, n = rd32(f + infl + 4);
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      memcpy(g, f, size);
      g[raw + i] ^= (unsigned char)(1u << (skt_rand_u32(&r) % 8));
      fix_payload_crc(g, size);
      int rc = skf_decode_mesh(g, size, 0, &o, &e);
      ck_assert_msg(rc == SKF_OK || rc == SKF_ERR_FORMAT, "byte %zu: %d %s", i, rc, e.message);
    }
  }
  /* a literal count that disagrees with the ops, a reserved row field, a truncated literal stream */
  memcpy(g, f, size);
  wr32(g + raw + 8, rd32(g + raw + 8) + 1);
  fix_payload_crc(g, size);
  ck_assert_int_eq(skf_decode_mesh(g, size, 0, &o, &e), SKF_ERR_FORMAT);
  memcpy(g, f, size);
  wr32(g + raw + 8 + 12, 1);
  fix_payload_crc(g, size);
  ck_assert_int_eq(skf_decode_mesh(g, size, 0, &o, &e), SKF_ERR_FORMAT);
  memcpy(g, f, size);
  wr32(g + raw + 8 + 4, rd32(g + raw + 8 + 4) - 1);
  fix_payload_crc(g, size);
  ck_assert_int_eq(skf_decode_mesh(g, size, 0, &o, &e), SKF_ERR_FORMAT);
  /* an unknown flag bit: a newer reader is needed */
  memcpy(g, f, size);
  wr32(g + 12, rd32(g + 12) | 4u);
  fix_header_crc(g);
  ck_assert_int_eq(skf_decode_mesh(g, size, 0, &o, &e), SKF_ERR_UNSUPPORTED);
  /* a default-profile file claiming the speed profile: its deflated chunk is not a raw one */
  size_t dsize = 0;
  unsigned char* d = encode(skel, &ms, 1, 8, 4, &dsize);
  wr32(d + 12, rd32(d + 12) | 2u);
  fix_header_crc(d);
  ck_assert_int_eq(skf_decode_mesh(d, dsize, 0, &o, &e), SKF_ERR_FORMAT);
  free(d);
  free(g);
  free(f);
  sk_skin_destroy((sk_skin*)ms.skin);
  sk_skeleton_destroy(skel);
}
END_TEST

START_TEST(runtime_decoder_matches_library) {
  skt_rng r = {777};
  sk_skeleton* skel = make_skeleton(40);
  sk_skf_mesh ms[3];
  memset(ms, 0, sizeof ms);
  size_t nvs[3] = {5000, 17, 900};
  for (int m = 0; m < 3; ++m) {
    ms[m].skin = make_skin(&r, nvs[m], 40, 8);
    if (m != 1) {
      ms[m].index_count = 3 * nvs[m];
      ms[m].indices = make_triangles(&r, nvs[m], nvs[m]);
    }
  }
  size_t size = 0;
  unsigned char* file = encode(skel, ms, 3, 8, 8, &size);
  skf_mesh_output outs[3];
  unsigned char* rj[3];
  unsigned char* rw[3];
  memset(outs, 0, sizeof outs);
  for (int m = 0; m < 3; ++m) {
    rj[m] = malloc(nvs[m] * 8);
    rw[m] = malloc(nvs[m] * 8);
    outs[m].joints = rj[m];
    outs[m].weights = rw[m];
    outs[m].vertex_capacity = nvs[m];
    outs[m].influences = 8;
    outs[m].joint_bytes = 1;
    outs[m].weight_bytes = 1;
    outs[m].indices = ms[m].indices;
    outs[m].index_count = ms[m].index_count;
  }
  skf_error fe;
  ck_assert_int_eq(skf_decode_all(file, size, outs, &fe), SKF_OK);
  for (uint32_t m = 0; m < 3; ++m) {
    unsigned char* lj = malloc(nvs[m] * 8);
    unsigned char* lw = malloc(nvs[m] * 8);
    sk_skf_decode_desc d = {0};
    d.size = sizeof d;
    d.mesh = m;
    d.influences = 8;
    d.joint_type = SK_TYPE_U8;
    d.weight_type = SK_TYPE_U8;
    d.indices = ms[m].indices;
    d.index_count = ms[m].index_count;
    d.joints = lj;
    d.weights = lw;
    d.vertex_capacity = nvs[m];
    sk_error err;
    ck_assert_int_eq(sk_skf_decode(file, size, &d, &err), SK_OK);
    ck_assert_mem_eq(lj, rj[m], nvs[m] * 8);
    ck_assert_mem_eq(lw, rw[m], nvs[m] * 8);
    /* the runtime's single-mesh path agrees too */
    memset(lj, 0xab, nvs[m] * 8);
    ck_assert_int_eq(skf_decode_mesh(file, size, m, &outs[m], &fe), SKF_OK);
    ck_assert_mem_eq(outs[m].joints, rj[m], nvs[m] * 8);
    free(lj);
    free(lw);
  }
  for (int m = 0; m < 3; ++m) {
    free(rj[m]);
    free(rw[m]);
    sk_skin_destroy((sk_skin*)ms[m].skin);
    free((void*)ms[m].indices);
  }
  free(file);
  sk_skeleton_destroy(skel);
}
END_TEST

/* A skin where about a third of the vertices sit at the position of an earlier one (seam and corner copies): most
 * take that vertex's entries, some keep their own (the encoder must list them as exceptions), and a few differ
 * from their twin only by the sign of a zero coordinate (bit-different: not a copy). Returns positions. */
static float* make_welded(skt_rng* r, size_t nv, uint32_t nj, uint32_t k, sk_skin** io_skin, size_t* out_copies) {
  sk_skin* base = make_skin(r, nv, nj, k);
  float* pos = malloc(nv * 3 * sizeof *pos + 1);
  uint32_t* src = malloc(nv * sizeof *src + 1);
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  uint32_t* jo = malloc(nv * 64 * sizeof *jo + 1);
  float* we = malloc(nv * 64 * sizeof *we + 1);
  uint32_t e = 0;
  off[0] = 0;
  for (size_t v = 0; v < nv; ++v) {
    uint32_t kind = skt_rand_u32(r) % 12;
    src[v] = (uint32_t)v;
    pos[3 * v] = (float)(skt_rand_u32(r) % 1000) * 0.01f;
    pos[3 * v + 1] = v % 5 == 0 ? 0.0f : (float)(skt_rand_u32(r) % 1000) * 0.01f;
    pos[3 * v + 2] = (float)v;
    if (v > 0 && kind < 5) { /* a copy of a recent vertex: its position, mostly its influences */
      size_t u = v - 1 - skt_rand_u32(r) % (v < 8 ? v : 8);
      memcpy(pos + 3 * v, pos + 3 * u, 12);
      if (kind < 4) src[v] = src[u];
      if (kind == 0 && pos[3 * v + 1] == 0.0f) pos[3 * v + 1] = -0.0f; /* bit-different: no copy */
    }
    uint32_t cj[64];
    float cw[64];
    size_t cnt = sk_skin_get_vertex(base, src[v], cj, cw, 64);
    for (size_t i = 0; i < cnt; ++i) {
      jo[e] = cj[i];
      we[e++] = cw[i];
    }
    off[v + 1] = e;
  }
  sk_skin* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(nv, nj, &s, &err), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(s, off, jo, we, &err), SK_OK);
  /* the expected copy count, by brute force: the lowest vertex at the same bits, same canonical influences */
  size_t copies = 0;
  uint32_t total = 255;
  for (size_t v = 0; v < nv; ++v) {
    size_t u = 0;
    while (u < v && memcmp(pos + 3 * u, pos + 3 * v, 12)) ++u;
    if (u == v) continue;
    uint32_t aj[8], aw[8], bj[8], bw[8], xj[64], yj[64];
    float xw[64], yw[64];
    size_t xn = sk_skin_get_vertex(s, v, xj, xw, 64), yn = sk_skin_get_vertex(s, u, yj, yw, 64);
    size_t na = skio_skf_quantize_vertex(xj, xw, xn, k, total, aj, aw);
    size_t nb = skio_skf_quantize_vertex(yj, yw, yn, k, total, bj, bw);
    copies += na == nb && !memcmp(aj, bj, na * 4) && !memcmp(aw, bw, na * 4);
  }
  *out_copies = copies;
  *io_skin = s;
  sk_skin_destroy(base);
  free(src);
  free(off);
  free(jo);
  free(we);
  return pos;
}

/* Position weld (order 2): copies are not stored, exceptions are, decoding needs the positions and refuses others. */
/* An engine sizes its outputs from skf_peek's mesh_count and grows its name buffer from skf_decode_joints' answer:
 * a header whose mesh count the mesh table contradicts (CRCs valid) is refused by peek, and a names buffer too small
 * still learns the size it needs (an auditor's crafted 0xFFFFFFFF meshes passed peek; the size was left unset). */
START_TEST(runtime_peek_and_joint_names_as_engines_use_them) {
  skt_rng r = {99};
  sk_skeleton* skel = make_skeleton(12);
  sk_skf_mesh ms[2];
  memset(ms, 0, sizeof ms);
  for (int m = 0; m < 2; ++m) ms[m].skin = make_skin(&r, 50, 12, 4);
  size_t size = 0;
  unsigned char* file = encode(skel, ms, 2, 8, 4, &size);
  skf_info info;
  skf_error fe;
  ck_assert_int_eq(skf_peek(file, size, &info, &fe), SKF_OK);
  ck_assert_uint_eq(info.mesh_count, 2);
  const uint32_t lies[3] = {0xFFFFFFFFu, 0u, 3u};
  for (int k = 0; k < 3; ++k) {
    unsigned char* g = malloc(size);
    memcpy(g, file, size);
    wr32(g + 28, lies[k]);
    fix_header_crc(g);
    ck_assert_int_eq(skf_peek(g, size, &info, &fe), SKF_ERR_FORMAT);
    ck_assert_msg(strstr(fe.message, "mesh table"), "%s", fe.message);
    free(g);
  }
  size_t need = 0;
  char tiny[4];
  ck_assert_int_eq(skf_decode_joints(file, size, NULL, NULL, tiny, sizeof tiny, &need, &fe), SKF_ERR_INVALID_ARGUMENT);
  ck_assert_uint_gt(need, sizeof tiny);
  char* names = malloc(need);
  ck_assert_int_eq(skf_decode_joints(file, size, NULL, NULL, names, need, &need, &fe), SKF_OK);
  ck_assert_str_eq(names, sk_skeleton_joint_name(skel, 0));
  free(names);
  free(file);
  for (int m = 0; m < 2; ++m) sk_skin_destroy((sk_skin*)ms[m].skin);
  sk_skeleton_destroy(skel);
}
END_TEST

START_TEST(weld_round_trip) {
  skt_rng r = {2024u + (uint64_t)_i};
  const uint32_t nj = _i ? 300 : 30, k = _i ? 8 : 4, bits = _i ? 16 : 8;
  sk_skeleton* skel = make_skeleton(nj);
  enum { NV = 1500 };
  sk_skf_mesh m[2];
  memset(m, 0, sizeof m);
  size_t copies[2];
  m[0].positions = make_welded(&r, NV, nj, k, (sk_skin**)&m[0].skin, &copies[0]);
  m[0].index_count = 3 * NV;
  m[0].indices = make_triangles(&r, NV, NV);
  m[1].positions = make_welded(&r, NV / 3, nj, k, (sk_skin**)&m[1].skin, &copies[1]); /* no triangles */
  ck_assert_uint_gt(copies[0], NV / 5);
  size_t size, plain_size;
  unsigned char* f = encode(skel, m, 2, bits, k, &size);
  sk_error err;
  for (uint32_t i = 0; i < 2; ++i) {
    sk_skf_mesh_info mi = {0};
    mi.size = sizeof mi;
    ck_assert_int_eq(sk_skf_get_mesh_info(f, size, i, &mi, &err), SK_OK);
    ck_assert_uint_eq(mi.order, SKF_ORDER_WELDED);
    ck_assert_uint_eq(mi.index_count, i ? 0 : 3 * NV);
    ck_assert_uint_eq(mi.coded_count, sk_skin_vertex_count(m[i].skin) - copies[i]);
    ck_assert_uint_lt(mi.distinct_positions, mi.coded_count); /* exceptions and -0.0 twins exist */
    check_mesh(f, size, i, &m[i], bits, k);
  }
  /* the same meshes without the weld: bigger, and decodable without positions */
  unsigned char* plain = encode_flags(skel, m, 2, bits, k, SK_SKF_NO_WELD, &plain_size);
  ck_assert_uint_gt(plain_size, size);
  sk_skf_mesh no_pos[2];
  memcpy(no_pos, m, sizeof m);
  no_pos[0].positions = no_pos[1].positions = NULL;
  for (uint32_t i = 0; i < 2; ++i) check_mesh(plain, plain_size, i, &no_pos[i], bits, k);

  /* decoding a welded mesh: without positions, with other positions, with an ABI 1.1 desc (no positions field) */
  uint16_t* jo = malloc(NV * 8 * 2);
  uint16_t* we = malloc(NV * 8 * 2);
  sk_skf_decode_desc d = {0};
  d.size = sizeof d;
  d.influences = 8;
  d.joint_type = SK_TYPE_U16;
  d.weight_type = SK_TYPE_U16;
  d.joints = jo;
  d.weights = we;
  d.vertex_capacity = NV;
  d.indices = m[0].indices;
  d.index_count = m[0].index_count;
  ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err.message, "positions") != NULL, "%s", err.message);
  float* moved = malloc(NV * 3 * sizeof *moved);
  /* c: a copy (an earlier vertex has its bits); w: a vertex alone at its position */
  size_t c = 1, w = 0;
  for (;; ++c) {
    size_t u = 0;
    while (u < c && memcmp(m[0].positions + 3 * u, m[0].positions + 3 * c, 12)) ++u;
    if (u < c) break;
  }
  for (;; ++w) {
    size_t u = 0;
    while (u < NV && (u == w || memcmp(m[0].positions + 3 * u, m[0].positions + 3 * w, 12))) ++u;
    if (u == NV) break;
  }
  memcpy(moved, m[0].positions, NV * 3 * sizeof *moved);
  moved[3 * c + 2] = -12345.0f; /* the copy moves away: one more distinct point */
  d.positions = moved;
  ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err.message, "not its positions") != NULL, "%s", err.message);
  memcpy(moved, m[0].positions, NV * 3 * sizeof *moved);
  memcpy(moved + 3 * c, m[0].positions + 3 * w, 12); /* c and w swap: same distinct count, another weld map */
  memcpy(moved + 3 * w, m[0].positions + 3 * c, 12);
  ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_ERR_INVALID_ARGUMENT);
  d.positions = m[0].positions;
  ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_OK);
  d.size = (uint32_t)offsetof(sk_skf_decode_desc, positions);
  ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skf_decode(plain, plain_size, &d, &err), SK_OK);
  sk_skf_mesh_info old = {0};
  old.size = (uint32_t)offsetof(sk_skf_mesh_info, coded_count);
  ck_assert_int_eq(sk_skf_get_mesh_info(f, size, 0, &old, &err), SK_OK);
  ck_assert_uint_eq(old.order, SKF_ORDER_WELDED);
  ck_assert_uint_eq(old.coded_count, 0); /* past the 1.1 size: not written */

  /* the runtime decoder, u8 x 8 output, all meshes at once, equals the library */
  if (bits == 8) {
    skf_mesh_output outs[2];
    unsigned char* rj[2];
    unsigned char* rw[2];
    memset(outs, 0, sizeof outs);
    for (int i = 0; i < 2; ++i) {
      size_t n = sk_skin_vertex_count(m[i].skin);
      rj[i] = malloc(n * 8);
      rw[i] = malloc(n * 8);
      outs[i].joints = rj[i];
      outs[i].weights = rw[i];
      outs[i].vertex_capacity = n;
      outs[i].influences = 8;
      outs[i].joint_bytes = 1;
      outs[i].weight_bytes = 1;
      outs[i].indices = m[i].indices;
      outs[i].index_count = m[i].index_count;
      outs[i].positions = m[i].positions;
    }
    skf_error fe;
    ck_assert_int_eq(skf_decode_all(f, size, outs, &fe), SKF_OK);
    d.size = sizeof d;
    d.positions = m[0].positions;
    ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_OK);
    for (size_t x = 0; x < NV * 8; ++x) {
      ck_assert_uint_eq(rj[0][x], jo[x]);
      ck_assert_uint_eq(rw[0][x] * 257u, we[x]);
    }
    for (int i = 0; i < 2; ++i) {
      free(rj[i]);
      free(rw[i]);
    }
  }
  free(moved);
  free(jo);
  free(we);
  free(plain);
  free(f);
  for (int i = 0; i < 2; ++i) {
    sk_skin_destroy((sk_skin*)m[i].skin);
    free((void*)m[i].positions);
    free((void*)m[i].indices);
  }
  sk_skeleton_destroy(skel);
}
END_TEST

/* The weld helper itself: lowest index per bit pattern, -0.0 apart from 0.0, NaN payloads compared as bits. */
START_TEST(weld_positions_rule) {
  const float nan = NAN;
  float p[7][3] = {{1, 2, 3}, {0, 0, 0}, {1, 2, 3}, {-0.0f, 0, 0}, {nan, 1, 1}, {nan, 1, 1}, {0, 0, 0}};
  uint32_t first[7], scratch[64];
  ck_assert_uint_eq(skf_weld_scratch_count(7), 16); /* a power of two >= 16 and >= 2 * count */
  ck_assert_uint_eq(skf_weld_scratch_count(9), 32);
  ck_assert_uint_eq(skf_weld_scratch_count(SIZE_MAX / 8), 0); /* no table that large: 0, not a wrapped size */
  uint32_t check = 1;
  ck_assert_uint_eq(skf_weld_positions(&p[0][0], 7, first, scratch, &check), 4);
  ck_assert_uint_eq(check, ((0u ^ 2u * 0x9E3779B1u) * 0x85EBCA77u) + ((4u ^ 5u * 0x9E3779B1u) * 0x85EBCA77u) +
                               ((1u ^ 6u * 0x9E3779B1u) * 0x85EBCA77u));
  static const uint32_t want[7] = {0, 1, 0, 3, 4, 4, 1};
  for (int i = 0; i < 7; ++i) ck_assert_uint_eq(first[i], want[i]);
  ck_assert_uint_eq(skf_weld_positions(NULL, 0, first, scratch, &check), 0);
  ck_assert_uint_eq(check, 0);
}
END_TEST

/* ---- error codes --------------------------------------------------------------------------------------------- */
static unsigned char* small_file(size_t* size, sk_skeleton** out_skel, sk_skf_mesh* m) {
  skt_rng r = {99};
  sk_skeleton* skel = make_skeleton(12);
  memset(m, 0, sizeof *m);
  m->skin = make_skin(&r, 400, 12, 4);
  unsigned char* f = encode(skel, m, 1, 8, 4, size);
  *out_skel = skel;
  return f;
}

static sk_result peek(const unsigned char* f, size_t n) {
  sk_skf_info info = {0};
  info.size = sizeof info;
  sk_error err;
  return sk_skf_peek(f, n, &info, &err);
}

START_TEST(header_errors) {
  size_t size;
  sk_skeleton* skel;
  sk_skf_mesh m;
  unsigned char* f = small_file(&size, &skel, &m);
  unsigned char* g = malloc(size + 16);
  ck_assert_int_eq(peek(f, size), SK_OK);
  /* trailing bytes after the file are allowed (memory-mapped regions) */
  memcpy(g, f, size);
  memset(g + size, 0x55, 16);
  ck_assert_int_eq(peek(g, size + 16), SK_OK);

  /* truncation at every length */
  for (size_t n = 0; n < size; ++n) ck_assert_msg(peek(f, n) == SK_ERR_TRUNCATED, "prefix %zu", n);

  /* bad magic and text-mode damage: CR LF -> LF */
  memcpy(g, f, size);
  g[1] = 'X';
  ck_assert_int_eq(peek(g, size), SK_ERR_FORMAT);
  memcpy(g, f, 4);
  memcpy(g + 4, f + 5, size - 5);
  ck_assert_int_eq(peek(g, size - 1), SK_ERR_FORMAT);
  memcpy(g, f, size);
  g[0] = 0x09; /* high bit stripped */
  ck_assert_int_eq(peek(g, size), SK_ERR_FORMAT);

  /* newer major version: refused before anything else, even with a valid CRC */
  memcpy(g, f, size);
  g[8] = SKF_VERSION_MAJOR + 1;
  ck_assert_int_eq(peek(g, size), SK_ERR_VERSION);
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_ERR_VERSION);
  /* a file of the previous major (1.0, before the 2.0 model) is refused too, not misread */
  memcpy(g, f, size);
  g[8] = SKF_VERSION_MAJOR - 1;
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_ERR_VERSION);
  /* a newer minor of the same major reads */
  memcpy(g, f, size);
  g[10] = 7;
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_OK);

  /* reserved flag bits and reserved field */
  memcpy(g, f, size);
  g[13] |= 0x10;
  ck_assert_int_eq(peek(g, size), SK_ERR_CHECKSUM); /* without a fixed CRC: damage */
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_ERR_UNSUPPORTED);
  memcpy(g, f, size);
  g[52] = 1;
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_ERR_UNSUPPORTED);

  /* CRC: every single-bit flip anywhere is caught (header or payload) */
  for (size_t i = 0; i < size; ++i) {
    memcpy(g, f, size);
    g[i] ^= (unsigned char)(1u << (i % 8));
    sk_result rc = peek(g, size);
    ck_assert_msg(rc != SK_OK, "flip at %zu not detected", i);
    if (i >= SKF_HEADER_SIZE) ck_assert_msg(rc == SK_ERR_CHECKSUM, "flip at %zu gave %d", i, rc);
  }

  /* absurd counts with valid CRCs */
  memcpy(g, f, size);
  wr32(g + 32, 0xffffffffu); /* vertex total */
  wr32(g + 36, 0xffffffu);
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_OK); /* the header alone cannot tell ... */
  sk_skf_mesh_info mi = {0};
  mi.size = sizeof mi;
  sk_error err;
  ck_assert_int_eq(sk_skf_get_mesh_info(g, size, 0, &mi, &err), SK_ERR_FORMAT); /* ... the mesh table can */
  memcpy(g, f, size);
  wr32(g + 20, 0x7fffffffu); /* chunk count */
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_ERR_FORMAT);
  memcpy(g, f, size);
  wr32(g + 24, 0); /* joint count */
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_ERR_FORMAT);
  memcpy(g, f, size);
  wr32(g + 40, 0xfffffff0u); /* payload size */
  fix_header_crc(g);
  ck_assert_int_eq(peek(g, size), SK_ERR_TRUNCATED);
  memcpy(g, f, size);
  wr32(g + SKF_HEADER_SIZE + 8, 0xfffffff0u); /* first chunk's raw size: a 4 GB lie */
  fix_payload_crc(g, size);
  ck_assert_int_eq(peek(g, size), SK_ERR_FORMAT);
  memcpy(g, f, size);
  wr32(g + SKF_HEADER_SIZE + 4, rd32(f + SKF_HEADER_SIZE + 4) + 1); /* stored size off by one */
  fix_payload_crc(g, size);
  ck_assert_int_eq(peek(g, size), SK_ERR_FORMAT);
  ck_assert_int_eq(sk_skf_peek(NULL, 10, NULL, &err), SK_ERR_INVALID_ARGUMENT);

  /* an unknown chunk (a later minor's) between known ones is skipped */
  {
    size_t at = SKF_HEADER_SIZE + 12 + rd32(f + SKF_HEADER_SIZE + 4);
    static const unsigned char raw[5] = {1, 2, 3, 4, 5};
    uLongf zn = compressBound(5);
    unsigned char z[64];
    ck_assert_int_eq(compress2(z, &zn, raw, 5, 9), Z_OK);
    unsigned char* h = malloc(size + 12 + zn);
    memcpy(h, f, at);
    memcpy(h + at, "XTRA", 4);
    wr32(h + at + 4, (uint32_t)zn);
    wr32(h + at + 8, 5);
    memcpy(h + at + 12, z, zn);
    memcpy(h + at + 12 + zn, f + at, size - at);
    size_t hn = size + 12 + zn;
    wr32(h + 20, rd32(f + 20) + 1);
    wr32(h + 40, (uint32_t)(hn - SKF_HEADER_SIZE));
    fix_payload_crc(h, hn);
    ck_assert_int_eq(peek(h, hn), SK_OK);
    uint8_t j1[400 * 4], w1[400 * 4], j2[400 * 4], w2[400 * 4];
    sk_skf_decode_desc d = {0};
    d.size = sizeof d;
    d.joint_type = SK_TYPE_U8;
    d.joints = j1;
    d.weights = w1;
    d.vertex_capacity = 400;
    ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_OK);
    d.joints = j2;
    d.weights = w2;
    ck_assert_int_eq(sk_skf_decode(h, hn, &d, &err), SK_OK);
    ck_assert_mem_eq(j1, j2, sizeof j1);
    ck_assert_mem_eq(w1, w2, sizeof w1);
    free(h);
  }

  free(g);
  free(f);
  sk_skin_destroy((sk_skin*)m.skin);
  sk_skeleton_destroy(skel);
}
END_TEST

START_TEST(decode_argument_errors) {
  skt_rng r = {5};
  sk_skeleton* skel = make_skeleton(300);
  sk_skf_mesh m = {0};
  m.skin = make_skin(&r, 500, 300, 4);
  m.index_count = 3 * 400;
  m.indices = make_triangles(&r, 500, 400);
  float* pos = malloc(500 * 3 * sizeof *pos);
  for (int i = 0; i < 1500; ++i) pos[i] = (float)i * 0.5f;
  m.positions = pos;
  size_t size;
  unsigned char* f = encode(skel, &m, 1, 16, 4, &size);
  uint16_t jo[500 * 8], we[500 * 8];
  memset(jo, 0x5a, sizeof jo);
  memset(we, 0x5a, sizeof we);
  sk_skf_decode_desc d = {0};
  d.size = sizeof d;
  d.influences = 4;
  d.joints = jo;
  d.weights = we;
  d.vertex_capacity = 500;
  d.indices = m.indices;
  d.index_count = m.index_count;
  sk_error err;
  sk_skf_decode_desc e = d;
  e.indices = NULL;
  e.index_count = 0;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_INVALID_ARGUMENT); /* triangle order needs indices */
  ck_assert(strstr(err.message, "index buffer") != NULL);
  uint32_t* other = malloc(m.index_count * sizeof *other);
  memcpy(other, m.indices, m.index_count * sizeof *other);
  other[5] ^= 1;
  e = d;
  e.indices = other;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_INVALID_ARGUMENT); /* not the encoded index buffer */
  other[5] = 100000;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_INVALID_ARGUMENT);
  e = d;
  e.joint_type = SK_TYPE_U8;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_OUT_OF_RANGE); /* 300 joints do not fit u8 */
  e = d;
  e.weight_type = SK_TYPE_U8;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_UNSUPPORTED); /* 16-bit weights into u8 */
  e = d;
  e.vertex_capacity = 499;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_INVALID_ARGUMENT);
  e = d;
  e.mesh = 1;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_OUT_OF_RANGE);
  e = d;
  e.size = 3;
  ck_assert_int_eq(sk_skf_decode(f, size, &e, &err), SK_ERR_STRUCT_SIZE);
  for (size_t i = 0; i < 500 * 8; ++i) ck_assert_uint_eq(jo[i], 0x5a5a); /* untouched on every error */
  ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_OK);

  sk_skf_mesh_info mi = {0};
  mi.size = sizeof mi;
  ck_assert_int_eq(sk_skf_get_mesh_info(f, size, 0, &mi, &err), SK_OK);
  ck_assert_uint_eq(mi.vertex_count, 500);
  ck_assert_uint_eq(mi.order, 1);
  ck_assert_uint_eq(mi.index_count, 1200);
  ck_assert_uint_eq(mi.has_position_hash, 1);
  ck_assert_uint_eq(mi.position_hash, sk_skf_position_hash(pos, 500));
  pos[7] += 1.0f;
  ck_assert_uint_ne(mi.position_hash, sk_skf_position_hash(pos, 500));

  /* file order flag: no indices needed */
  sk_skf_encode_desc ed = {0};
  ed.size = sizeof ed;
  ed.flags = SK_SKF_FILE_ORDER;
  ed.skeleton = skel;
  ed.meshes = &m;
  ed.mesh_count = 1;
  size_t bound = sk_skf_encode_bound(&ed), n2 = 0;
  unsigned char* f2 = malloc(bound);
  ck_assert_int_eq(sk_skf_encode(&ed, f2, bound, &n2, &err), SK_OK);
  ck_assert_int_eq(sk_skf_encode(&ed, f2, 10, &n2, &err), SK_ERR_OUT_OF_RANGE);
  e = d;
  e.indices = NULL;
  e.index_count = 0;
  ck_assert_int_eq(sk_skf_decode(f2, n2, &e, &err), SK_OK);

  /* chunk listing */
  sk_skf_chunk ch[8];
  for (int i = 0; i < 8; ++i) ch[i].size = sizeof ch[i];
  uint32_t cc = 0;
  ck_assert_int_eq(sk_skf_chunks(f, size, ch, 8, &cc, &err), SK_OK);
  ck_assert_uint_eq(cc, 3);
  ck_assert_str_eq(ch[0].tag, "JNTS");
  ck_assert_str_eq(ch[1].tag, "MDSC");
  ck_assert_str_eq(ch[2].tag, "INFL");
  ck_assert_uint_eq(ch[0].offset, SKF_HEADER_SIZE);
  ck_assert_uint_eq(ch[2].offset + 12 + ch[2].stored_size, size);

  /* encoder input errors */
  ed.flags = 0;
  ed.weight_bits = 12;
  ck_assert_uint_eq(sk_skf_encode_bound(&ed), 0);
  ck_assert_int_eq(sk_skf_encode(&ed, f2, bound, &n2, &err), SK_ERR_INVALID_ARGUMENT);
  ed.weight_bits = 8;
  ed.max_influences = 9;
  ck_assert_int_eq(sk_skf_encode(&ed, f2, bound, &n2, &err), SK_ERR_OUT_OF_RANGE);
  ed.max_influences = 4;
  ed.skeleton = NULL;
  ck_assert_int_eq(sk_skf_encode(&ed, f2, bound, &n2, &err), SK_ERR_INVALID_ARGUMENT);
  sk_skeleton* tiny = make_skeleton(10); /* the skin names joints up to 299 */
  ed.skeleton = tiny;
  ck_assert_int_eq(sk_skf_encode(&ed, f2, bound, &n2, &err), SK_ERR_OUT_OF_RANGE);
  sk_skeleton_destroy(tiny);

  free(f2);
  free(other);
  free(pos);
  free(f);
  free((void*)m.indices);
  sk_skin_destroy((sk_skin*)m.skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* A smooth, corner-split grid (every triangle has its own three vertices, like a Collada export), triangles in
 * random order: the encoder
 * must use the corner predictor (nweights stream) and far references (far stream), and every output layout
 * (u8 x 4 fast path, u8 x 8, u16 x 8) must give the canonical quantization exactly. */
START_TEST(model_paths_round_trip) {
  enum { G = 40, NJ = 6 };
  size_t tris = 2 * (G - 1) * (G - 1), nv = 3 * tris;
  sk_skeleton* skel = make_skeleton(NJ);
  sk_skin* skin = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(nv, NJ, &skin, &err), SK_OK);
  uint32_t* ix = malloc(nv * sizeof *ix);
  size_t v = 0;
  for (int y = 0; y + 1 < G; ++y)
    for (int x = 0; x + 1 < G; ++x) {
      static const int corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
      for (int c = 0; c < 6; ++c, ++v) {
        float gx = (float)(x + corner[c][0]) / (G - 1), gy = (float)(y + corner[c][1]) / (G - 1);
        uint32_t j[3] = {(uint32_t)(gx * 2.99f), 3u + (uint32_t)(gy * 2.99f), 0};
        float w[3] = {0.2f + gx, 0.2f + gy, 0.1f};
        size_t n = j[0] == 0 ? 2 : 3; /* joint 0 already in the set when gx < 1/3 */
        ck_assert_int_eq(sk_skin_set_vertex(skin, v, j, w, n, &err), SK_OK);
      }
    }
  /* triangles in shuffled order: a vertex's duplicates are then far behind it, past the vertex cache */
  skt_rng r = {31337};
  uint32_t* perm = malloc(tris * sizeof *perm);
  for (size_t t = 0; t < tris; ++t) perm[t] = (uint32_t)t;
  for (size_t t = tris - 1; t > 0; --t) {
    size_t o = skt_rand_u32(&r) % (t + 1);
    uint32_t tmp = perm[t];
    perm[t] = perm[o];
    perm[o] = tmp;
  }
  for (size_t t = 0; t < tris; ++t)
    for (int c = 0; c < 3; ++c) ix[3 * t + (size_t)c] = 3 * perm[t] + (uint32_t)c;
  free(perm);
  sk_skf_mesh m = {0};
  m.skin = skin;
  m.indices = ix;
  m.index_count = nv;
  size_t size = 0;
  unsigned char* f = encode(skel, &m, 1, 8, 4, &size);
  check_mesh(f, size, 0, &m, 8, 4);

  /* the INFL table says which streams were used */
  sk_skf_chunk ch[3];
  for (int i = 0; i < 3; ++i) ch[i].size = sizeof ch[i];
  uint32_t cc = 0;
  ck_assert_int_eq(sk_skf_chunks(f, size, ch, 3, &cc, &err), SK_OK);
  ck_assert_str_eq(ch[2].tag, "INFL");
  uLongf rawn = ch[2].raw_size;
  unsigned char* raw = malloc(rawn);
  ck_assert_int_eq(uncompress(raw, &rawn, f + ch[2].offset + 12, ch[2].stored_size), Z_OK);
  ck_assert_uint_eq(rd32(raw + 4), 1);
  uint32_t nweights_len = rd32(raw + SKF_INFL_TABLE_SIZE + 12), far_len = rd32(raw + SKF_INFL_TABLE_SIZE + 16);
  ck_assert_msg(nweights_len > 0, "corner predictor unused");
  ck_assert_msg(far_len > 0, "no far reference");
  ck_assert_uint_eq(rawn, SKF_INFL_TABLE_SIZE + SKF_INFL_MESH_SIZE + nv + rd32(raw + 8) + rd32(raw + 12) +
                              rd32(raw + 16) + nweights_len + far_len);

  /* every output layout agrees with the u16 x 8 decode */
  uint16_t* j16 = malloc(nv * 8 * 2);
  uint16_t* w16 = malloc(nv * 8 * 2);
  uint8_t* j8 = malloc(nv * 8);
  uint8_t* w8 = malloc(nv * 8);
  sk_skf_decode_desc d = {0};
  d.size = sizeof d;
  d.indices = ix;
  d.index_count = nv;
  d.vertex_capacity = nv;
  d.influences = 8;
  d.joint_type = SK_TYPE_U16;
  d.weight_type = SK_TYPE_U16;
  d.joints = j16;
  d.weights = w16;
  ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_OK);
  for (uint32_t slots = 4; slots <= 8; slots += 4) {
    d.influences = slots;
    d.joint_type = SK_TYPE_U8;
    d.weight_type = SK_TYPE_U8;
    d.joints = j8;
    d.weights = w8;
    ck_assert_int_eq(sk_skf_decode(f, size, &d, &err), SK_OK);
    for (size_t i = 0; i < nv; ++i)
      for (uint32_t s = 0; s < 8; ++s) {
        uint32_t ej = j16[i * 8 + s], ew = w16[i * 8 + s] / 257u;
        if (s >= slots) {
          ck_assert_uint_eq(ew, 0);
          continue;
        }
        ck_assert_msg(j8[i * slots + s] == ej && w8[i * slots + s] == ew, "%u slots, vertex %zu slot %u", slots, i, s);
      }
  }
  free(j16);
  free(w16);
  free(j8);
  free(w8);
  free(raw);
  free(f);
  free(ix);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* Crafted files with valid checksums but inconsistent streams must fail cleanly (no crash, FORMAT). */
START_TEST(crafted_streams) {
  size_t size;
  sk_skeleton* skel;
  sk_skf_mesh m;
  unsigned char* f = small_file(&size, &skel, &m);
  /* rebuild the INFL chunk with a damaged raw stream and fixed CRCs */
  sk_skf_chunk ch[3];
  for (int i = 0; i < 3; ++i) ch[i].size = sizeof ch[i];
  uint32_t cc;
  sk_error err;
  ck_assert_int_eq(sk_skf_chunks(f, size, ch, 3, &cc, &err), SK_OK);
  uLongf rawn = ch[2].raw_size;
  unsigned char* raw = malloc(rawn);
  ck_assert_int_eq(uncompress(raw, &rawn, f + ch[2].offset + 12, ch[2].stored_size), Z_OK);
  skt_rng r = {4242};
  unsigned char out_j[400 * 4], out_w[400 * 4];
  int format_errors = 0;
  for (int trial = 0; trial < 300; ++trial) {
    unsigned char* mod = malloc(rawn);
    memcpy(mod, raw, rawn);
    for (int k = 0; k < 1 + trial % 4; ++k) {
      size_t at = SKF_INFL_TABLE_SIZE + skt_rand_u32(&r) % (uint32_t)(rawn - SKF_INFL_TABLE_SIZE);
      mod[at] = (unsigned char)skt_rand_u32(&r);
    }
    if (trial % 50 == 0) wr32(mod + SKF_INFL_TABLE_SIZE, rd32(mod + SKF_INFL_TABLE_SIZE) + 1); /* stream table lies */
    uLongf zn = compressBound(rawn);
    unsigned char* g = malloc(ch[2].offset + 12 + zn);
    memcpy(g, f, ch[2].offset + 12);
    ck_assert_int_eq(compress2(g + ch[2].offset + 12, &zn, mod, rawn, 9), Z_OK);
    wr32(g + ch[2].offset + 4, (uint32_t)zn);
    size_t gn = ch[2].offset + 12 + zn;
    wr32(g + 40, (uint32_t)(gn - SKF_HEADER_SIZE));
    fix_payload_crc(g, gn);
    sk_skf_decode_desc d = {0};
    d.size = sizeof d;
    d.influences = 4;
    d.joint_type = SK_TYPE_U8;
    d.weight_type = SK_TYPE_U8;
    d.joints = out_j;
    d.weights = out_w;
    d.vertex_capacity = 400;
    sk_result rc = sk_skf_decode(g, gn, &d, &err);
    ck_assert_msg(rc == SK_OK || rc == SK_ERR_FORMAT, "trial %d: %d %s", trial, rc, err.message);
    if (rc == SK_OK) { /* a surviving mutation still yields exact sums */
      for (int v = 0; v < 400; ++v) {
        unsigned s = 0;
        for (int k = 0; k < 4; ++k) s += out_w[v * 4 + k];
        ck_assert(s == 255 || s == 0);
      }
    }
    format_errors += rc == SK_ERR_FORMAT;
    free(g);
    free(mod);
  }
  ck_assert_int_gt(format_errors, 50);
  free(raw);
  free(f);
  sk_skin_destroy((sk_skin*)m.skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* ---- corpus -------------------------------------------------------------------------------------------------- */
static const char* const k_corpus[] = {
    "gltf/CesiumMan.glb",       "gltf/Fox.glb",      "gltf/SimpleSkin.gltf",     "gltf/quad_skin.glb",
    "fbx/huesitos.fbx",         "fbx/Fox_blender.fbx", "collada/CesiumMan_blender.dae", "x/Testwuson.X",
    "b3d/character.b3d",        "md5/drone.md5mesh", "ogre/Clonk/Graphics.mesh", "gltf/CesiumMan_subdiv2.glb",
};

/* One skf_decoder reused over every mesh of a file (twice, in u8 x 4 and u16 x 8 when the file allows them) decodes
 * byte for byte what the one-shot skf_decode_mesh gives, and the second pass allocates nothing (its scratch does
 * not grow). A refused call leaves the decoder usable. */
static void check_decoder_reuse(skf_decoder* dec, const unsigned char* f, size_t size, const sk_skf_mesh* ms, uint32_t n,
                                uint32_t bits) {
  for (int pass = 0; pass < 2; ++pass) {
    size_t held = skf_decoder_scratch_bytes(dec);
    for (int kind = 0; kind < 2; ++kind) {
      if (kind == 0 && bits == 16) continue; /* 16-bit weights cannot go to u8 */
      for (uint32_t m = 0; m < n; ++m) {
        size_t nv = sk_skin_vertex_count(ms[m].skin), cell = kind ? 16 : 4;
        unsigned char* a = malloc(4 * nv * cell + 4);
        unsigned char* b = malloc(4 * nv * cell + 4);
        memset(a, 0x11, 4 * nv * cell + 4);
        memset(b, 0x22, 4 * nv * cell + 4);
        skf_mesh_output oa, ob;
        memset(&oa, 0, sizeof oa);
        oa.joints = a;
        oa.weights = a + 2 * nv * cell;
        oa.vertex_capacity = nv;
        oa.influences = kind ? 8 : 4;
        oa.joint_bytes = oa.weight_bytes = kind ? 2 : 1;
        oa.indices = ms[m].indices;
        oa.index_count = ms[m].index_count;
        oa.positions = ms[m].positions;
        ob = oa;
        ob.joints = b;
        ob.weights = b + 2 * nv * cell;
        skf_error e;
        int ra = skf_decode_mesh(f, size, m, &oa, &e), rb = skf_decoder_decode_mesh(dec, f, size, m, &ob, &e);
        ck_assert_int_eq(ra, rb);
        if (ra == SKF_OK) {
          ck_assert(memcmp(a, b, 2 * nv * (cell / 2)) == 0);
          ck_assert(memcmp(a + 2 * nv * cell, b + 2 * nv * cell, 2 * nv * (cell / 2)) == 0);
        }
        /* a refused call (too small an output) changes nothing for the next one */
        if (nv > 1) {
          ob.vertex_capacity = nv - 1;
          ck_assert_int_eq(skf_decoder_decode_mesh(dec, f, size, m, &ob, &e), SKF_ERR_INVALID_ARGUMENT);
        }
        free(a);
        free(b);
      }
    }
    if (pass == 1) ck_assert_uint_eq(skf_decoder_scratch_bytes(dec), held);
  }
}

START_TEST(corpus_round_trip) {
  if (!skt_assets_dir()) {
    ck_assert_msg(!skt_assets_required(), "SKINKIT_ASSETS is set but not a directory");
    return;
  }
  const char* rel = k_corpus[_i];
  sk_scene* sc = NULL;
  sk_error err;
  ck_assert_msg(sk_scene_load(skt_asset(rel), NULL, &sc, &err) == SK_OK, "%s: %s", rel, err.message);
  const sk_skeleton* skel = sk_scene_skeleton(sc);
  ck_assert_msg(skel != NULL, "%s has no skeleton", rel);
  uint32_t mc = sk_scene_mesh_count(sc), n = 0;
  sk_skf_mesh* ms = calloc(mc + 1, sizeof *ms);
  for (uint32_t m = 0; m < mc; ++m) {
    sk_skin* s = sk_scene_mesh_skin(sc, m);
    if (!s) continue;
    size_t nv = sk_scene_mesh_vertex_count(sc, m), ni = sk_scene_mesh_index_count(sc, m);
    float* pos = malloc(nv * 3 * sizeof *pos + 1);
    uint32_t* ix = malloc(ni * sizeof *ix + 1);
    sk_scene_mesh_positions(sc, m, pos, nv * 3);
    sk_scene_mesh_indices(sc, m, ix, ni);
    ms[n].skin = s;
    ms[n].positions = pos;
    ms[n].indices = ix;
    ms[n].index_count = ni;
    ++n;
  }
  ck_assert_uint_gt(n, 0);
  skf_decoder* dec = skf_decoder_create();
  ck_assert_ptr_nonnull(dec);
  for (uint32_t bits = 8; bits <= 16; bits += 8) {
    size_t size;
    /* the speed profile: same canonical data back, through a reused decoder too */
    unsigned char* ff = encode_flags(skel, ms, n, bits, bits == 8 ? 4 : 8, SK_SKF_FAST, &size);
    check_decoder_reuse(dec, ff, size, ms, n, bits);
    for (uint32_t m = 0; m < n; ++m) check_mesh(ff, size, m, &ms[m], bits, bits == 8 ? 4 : 8);
    free(ff);
    unsigned char* f = encode(skel, ms, n, bits, bits == 8 ? 4 : 8, &size);
    check_decoder_reuse(dec, f, size, ms, n, bits);
    double max_err = 0;
    for (uint32_t m = 0; m < n; ++m) {
      double e = check_mesh(f, size, m, &ms[m], bits, bits == 8 ? 4 : 8);
      if (e > max_err) max_err = e;
      sk_skf_mesh_info mi = {0};
      mi.size = sizeof mi;
      ck_assert_int_eq(sk_skf_get_mesh_info(f, size, m, &mi, &err), SK_OK);
      ck_assert_uint_eq(mi.position_hash, sk_skf_position_hash(ms[m].positions, sk_skin_vertex_count(ms[m].skin)));
      /* a corner-split Collada mesh (every triangle has its own vertices) is welded to far fewer stored vertices */
      if (strstr(rel, ".dae")) {
        ck_assert_uint_eq(mi.order, SKF_ORDER_WELDED);
        ck_assert_uint_lt(mi.coded_count * 4, mi.vertex_count);
      }
    }
    ck_assert(max_err < 1.0);
    free(f);
  }
  skf_decoder_destroy(dec);
  for (uint32_t m = 0; m < n; ++m) {
    free((void*)ms[m].positions);
    free((void*)ms[m].indices);
  }
  free(ms);
  sk_scene_destroy(sc);
}
END_TEST

static Suite* skf_suite(void) {
  Suite* s = suite_create("skf");
  TCase* t = tcase_create("format");
  tcase_set_timeout(t, 300);
  tcase_add_loop_test(t, round_trip_generated, 0, 2);
  tcase_add_loop_test(t, fast_profile_round_trip, 0, 2);
  tcase_add_test(t, fast_profile_copies);
  tcase_add_test(t, fast_profile_escapes);
  tcase_add_loop_test(t, fast_profile_bad_rows, 0, 32);
  tcase_add_test(t, reads_version_3_0);
  tcase_add_test(t, fast_profile_corrupt);
  tcase_add_test(t, runtime_decoder_matches_library);
  tcase_add_test(t, runtime_peek_and_joint_names_as_engines_use_them);
  tcase_add_loop_test(t, weld_round_trip, 0, 2);
  tcase_add_test(t, weld_positions_rule);
  tcase_add_test(t, header_errors);
  tcase_add_test(t, decode_argument_errors);
  tcase_add_test(t, crafted_streams);
  tcase_add_test(t, model_paths_round_trip);
  tcase_add_loop_test(t, corpus_round_trip, 0, (int)(sizeof k_corpus / sizeof *k_corpus));
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(skf_suite()); }
