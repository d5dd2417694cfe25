/* test_meshopt.c - skinkit's own KHR_meshopt_compression attribute decoder (io/meshopt_decode.c: vertex codec
 * versions 0 and 1, the COLOR filter) against what other tools write and decode:
 * - version 0 streams encoded here by the system's libmeshoptimizer (every stride class, block and group edge,
 *   constant, ramp, noisy and random data) decode to the bytes libmeshoptimizer's own decoder gives;
 * - gltfpack 1.3's version 1 files (tests/data/make_gltfpack_fixtures.sh) decode to what the same tool wrote in
 *   version 0: view for view (-c -ce khr), vertex for vertex (-cz -noq: 2-byte and rotated XOR channels), and within
 *   the filter's precision (-cz -vc 8: the COLOR filter);
 * - the COLOR filter follows the specification's formula on hand-made values;
 * - damaged streams (every truncation, every single-byte change of a version 1 stream, bad headers and channel
 *   modes, random bytes) fail with a code, never a crash or a read outside the stream (the ASan build runs this). */
#include <check.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skio_gltf_doc.h"
#include "skio_meshopt.h"

static skio_gltf_doc* must_doc(const char* name) {
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_doc_load(skt_data(name), &d, &err) == SKC_OK, "%s", err.message);
  return d;
}

static const uint8_t* must_view(skio_gltf_doc* d, uint32_t i, size_t* size, size_t* stride) {
  const uint8_t* p = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_view_data(d, i, &p, size, stride, &err) == SKC_OK, "%s", err.message);
  return p;
}

/* The compressed stream of view i (its KHR_meshopt_compression object) and its count / byteStride. */
static const uint8_t* raw_stream(skio_gltf_doc* d, uint32_t i, size_t* len, size_t* count, size_t* stride) {
  int ext = skio_json_get(d, skio_json_get(d, skio_gltf_item(d, "bufferViews", i), "extensions"),
                          "KHR_meshopt_compression");
  uint32_t buffer = 0;
  size_t offset = 0, size = 0;
  const uint8_t* data = NULL;
  skc_err err = {0};
  ck_assert(skio_json_u32(d, skio_json_get(d, ext, "buffer"), &buffer));
  skio_json_size(d, skio_json_get(d, ext, "byteOffset"), &offset);
  ck_assert(skio_json_size(d, skio_json_get(d, ext, "byteLength"), len));
  ck_assert(skio_json_size(d, skio_json_get(d, ext, "count"), count));
  ck_assert(skio_json_size(d, skio_json_get(d, ext, "byteStride"), stride));
  ck_assert_int_eq(skio_gltf_buffer_data(d, buffer, &data, &size, &err), SKC_OK);
  ck_assert_uint_le(offset + *len, size);
  return data + offset;
}

static int view_count(skio_gltf_doc* d) { return skio_json_len(d, skio_json_get(d, 0, "bufferViews")); }

/* ---- version 0: the same bytes as libmeshoptimizer ------------------------------------------------------- */

static void fill(uint8_t* v, size_t count, size_t stride, int kind, skt_rng* rng) {
  for (size_t i = 0; i < count; i++)
    for (size_t k = 0; k < stride; k++) {
      uint8_t b = 0;
      if (kind == 1) b = (uint8_t)(i * (k + 1)); /* ramps: small deltas */
      else if (kind == 2) b = (uint8_t)(i / 3 + (skt_rand_u32(rng) % 5) * (k % 3 == 0)); /* noisy: sentinels */
      else if (kind == 3) b = (uint8_t)skt_rand_u32(rng); /* random: raw groups */
      else if (kind == 4) b = (uint8_t)((skt_rand_u32(rng) % 64 == 0) ? skt_rand_u32(rng) : 7); /* sparse spikes */
      v[i * stride + k] = b;
    }
}

START_TEST(version_0_matches_libmeshoptimizer) {
  static const size_t strides[] = {4, 8, 12, 16, 20, 64, 132, 252, 256};
  static const size_t counts[] = {0, 1, 15, 16, 17, 31, 255, 256, 257, 1000, 4099};
  skt_rng rng = {0x5eed};
  int streams = 0;
  for (size_t s = 0; s < sizeof strides / sizeof *strides; s++)
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
      for (int kind = 0; kind < 5; kind++) {
        size_t stride = strides[s], count = counts[c];
        uint8_t* v = malloc(count * stride + 1);
        fill(v, count, stride, kind, &rng);
        size_t cap = meshopt_encodeVertexBufferBound(count, stride);
        uint8_t* enc = malloc(cap);
        size_t len = meshopt_encodeVertexBuffer(enc, cap, v, count, stride);
        ck_assert_uint_gt(len, 0);
        ck_assert_uint_eq(enc[0], 0xA0); /* Debian 12's 0.18 writes version 0 */
        uint8_t* ours = malloc(count * stride + 1);
        uint8_t* theirs = malloc(count * stride + 1);
        ck_assert_int_eq(meshopt_decodeVertexBuffer(theirs, count, stride, enc, len), 0);
        ck_assert_int_eq(skio_meshopt_decode_attributes(ours, count, stride, enc, len), 0);
        ck_assert_msg(memcmp(ours, theirs, count * stride) == 0, "stride %zu count %zu kind %d", stride, count, kind);
        ck_assert(memcmp(ours, v, count * stride) == 0);
        /* one byte short or long: both refuse */
        ck_assert_int_ne(skio_meshopt_decode_attributes(ours, count, stride, enc, len - 1), 0);
        enc = realloc(enc, len + 1);
        enc[len] = 0;
        ck_assert_int_ne(skio_meshopt_decode_attributes(ours, count, stride, enc, len + 1), 0);
        free(v);
        free(enc);
        free(ours);
        free(theirs);
        streams++;
      }
  ck_assert_int_eq(streams, 9 * 11 * 5);
}
END_TEST

/* ---- version 1: gltfpack's files ---------------------------------------------------------------------------- */

/* gltfpack -c -ce khr and gltfpack -c differ only in the codec version: every view decodes to the same bytes. */
START_TEST(version_1_views_equal_version_0) {
  skio_gltf_doc* v1 = must_doc("skinrig_meshopt_khr.glb");
  skio_gltf_doc* v0 = must_doc("skinrig_meshopt.glb");
  ck_assert_int_eq(view_count(v1), view_count(v0));
  int version_1 = 0;
  for (int i = 0; i < view_count(v1); i++) {
    size_t n1, n0, s1, s0, len, count, stride;
    const uint8_t* a = must_view(v1, (uint32_t)i, &n1, &s1);
    const uint8_t* b = must_view(v0, (uint32_t)i, &n0, &s0);
    ck_assert_uint_eq(n1, n0);
    ck_assert_msg(memcmp(a, b, n1) == 0, "bufferViews[%d]", i);
    version_1 += raw_stream(v1, (uint32_t)i, &len, &count, &stride)[0] == 0xA1;
  }
  ck_assert_int_ge(version_1, 5); /* positions, normals, joints, weights, inverse binds */
  skio_gltf_doc_destroy(v1);
  skio_gltf_doc_destroy(v0);
}
END_TEST

static int cmp_rows(const void* a, const void* b) { return memcmp(a, b, 32); }

/* Vertex rows (position, normal, joints, weights: 32 bytes) of views 0..3, sorted: the vertex set, any order. */
static uint8_t* sorted_rows(skio_gltf_doc* d, size_t* n) {
  size_t size[4], stride[4];
  const uint8_t* v[4];
  for (uint32_t i = 0; i < 4; i++) v[i] = must_view(d, i, &size[i], &stride[i]);
  *n = size[0] / 12;
  uint8_t* rows = malloc(*n * 32);
  for (size_t r = 0; r < *n; r++) {
    memcpy(rows + 32 * r, v[0] + 12 * r, 12);
    memcpy(rows + 32 * r + 12, v[1] + 12 * r, 12);
    memcpy(rows + 32 * r + 24, v[2] + 4 * r, 4);
    memcpy(rows + 32 * r + 28, v[3] + 4 * r, 4);
  }
  qsort(rows, *n, 32, cmp_rows);
  return rows;
}

/* gltfpack -cz -noq: float positions and normals in 2-byte delta and rotated XOR channels (channel mode bytes
 * 0x01 and 0x32), the vertices reordered: the same vertex set as gltfpack -c -noq (version 0), bit for bit. */
START_TEST(version_1_channels_keep_float_bits) {
  skio_gltf_doc* v1 = must_doc("skinrig_meshopt_noq_cz.glb");
  skio_gltf_doc* v0 = must_doc("skinrig_meshopt_noq.glb");
  size_t len, count, stride;
  const uint8_t* s = raw_stream(v1, 0, &len, &count, &stride);
  ck_assert_uint_eq(stride, 12);
  ck_assert_uint_eq(s[len - 3] & 15, 2); /* position x: XOR with a rotation */
  ck_assert_uint_ne(s[len - 3] >> 4, 0);
  size_t n1, n0;
  uint8_t* a = sorted_rows(v1, &n1);
  uint8_t* b = sorted_rows(v0, &n0);
  ck_assert_uint_eq(n1, 134);
  ck_assert_uint_eq(n0, n1);
  ck_assert(memcmp(a, b, n1 * 32) == 0);
  free(a);
  free(b);
  skio_gltf_doc_destroy(v1);
  skio_gltf_doc_destroy(v0);
}
END_TEST

/* gltfpack -cz -vc 8 codes COLOR_0 with the COLOR filter (YCoCg at 8 bits, alpha at 7): each vertex's colour is
 * within 1 of the raw 8-bit colour gltfpack -c wrote for the vertex with the same position, joints and weights. */
START_TEST(color_filter_file) {
  skio_gltf_doc* f = must_doc("skinrig_color_cz.glb");
  skio_gltf_doc* raw = must_doc("skinrig_color_c.glb");
  size_t len, count, stride, n[5], st[5];
  raw_stream(f, 4, &len, &count, &stride);
  int filter = skio_json_get(f, skio_json_get(f, skio_gltf_item(f, "bufferViews", 4), "extensions"),
                             "KHR_meshopt_compression");
  ck_assert(skio_json_streq(f, skio_json_get(f, filter, "filter"), "COLOR"));
  const uint8_t *a[5], *b[5];
  for (uint32_t i = 0; i < 5; i++) {
    a[i] = must_view(f, i, &n[i], &st[i]);
    b[i] = must_view(raw, i, &n[i], &st[i]);
  }
  const size_t V = n[4] / 4;
  int exact = 0;
  for (size_t i = 0; i < V; i++) {
    int best = 256;
    for (size_t j = 0; j < V; j++) {
      if (memcmp(a[0] + 8 * i, b[0] + 8 * j, 8) || memcmp(a[2] + 4 * i, b[2] + 4 * j, 4) ||
          memcmp(a[3] + 4 * i, b[3] + 4 * j, 4))
        continue;
      int worst = 0;
      for (int c = 0; c < 4; c++) {
        int d = abs((int)a[4][4 * i + c] - (int)b[4][4 * j + c]);
        worst = d > worst ? d : worst;
      }
      best = worst < best ? worst : best;
    }
    ck_assert_msg(best <= 1, "vertex %zu: colour off by %d", i, best);
    exact += best == 0;
  }
  ck_assert_uint_eq(V, 134);
  ck_assert_int_gt(exact, 0);
  skio_gltf_doc_destroy(f);
  skio_gltf_doc_destroy(raw);
}
END_TEST

/* The specification's formula, worked by hand: K = 8 (alpha marker bit 7) and K = 6 (marker bit 5). */
START_TEST(color_filter_formula) {
  /* K 8: y 100, co 20, cg -10; r = 100 + 20 + 10 = 130, g = 90, b = 90; alpha 0x80 | 0x3F -> 63 -> 127; scale 1 */
  uint8_t c8[8] = {100, 20, (uint8_t)-10, 0xBF, 10, 0, 0, 0x80};
  ck_assert_int_eq(skio_meshopt_filter_color(c8, 2, 4), 0);
  ck_assert_uint_eq(c8[0], 130);
  ck_assert_uint_eq(c8[1], 90);
  ck_assert_uint_eq(c8[2], 90);
  ck_assert_uint_eq(c8[3], 127);
  ck_assert_uint_eq(c8[4], 10);
  ck_assert_uint_eq(c8[5], 10);
  ck_assert_uint_eq(c8[6], 10);
  ck_assert_uint_eq(c8[7], 0);
  /* K 6: marker 0x20, scale 255 / 63; y 40, co 5, cg 3: r 42, g 43, b 32; alpha 0x1F -> 63 (opaque) */
  uint8_t c6[4] = {40, 5, 3, 0x3F};
  skio_meshopt_filter_color(c6, 1, 4);
  ck_assert_uint_eq(c6[0], 170); /* 42 * 255 / 63 = 170.0 */
  ck_assert_uint_eq(c6[1], 174); /* 43 * 255 / 63 = 174.05 */
  ck_assert_uint_eq(c6[2], 130); /* 32 * 255 / 63 = 129.52 */
  ck_assert_uint_eq(c6[3], 255);
  /* 16-bit components, K 16: values pass at scale 1 */
  uint16_t c16[4] = {30000, 1000, (uint16_t)-2000, 0x8000 | 0x1234};
  skio_meshopt_filter_color(c16, 1, 8);
  ck_assert_uint_eq(c16[0], 33000);
  ck_assert_uint_eq(c16[1], 28000);
  ck_assert_uint_eq(c16[2], 31000);
  ck_assert_uint_eq(c16[3], 0x2468);
  /* undefined inputs come out clamped: no marker bit (K 0, scale 0), underflow, overflow */
  uint8_t bad[12] = {255, 127, (uint8_t)-128, 0, 0, 127, 100, 0x80, 255, 127, (uint8_t)-128, 0x80};
  skio_meshopt_filter_color(bad, 3, 4);
  ck_assert_uint_eq(bad[0], 0);
  ck_assert_uint_eq(bad[3], 0);
  ck_assert_uint_eq(bad[4], 27);
  ck_assert_uint_eq(bad[5], 100);
  ck_assert_uint_eq(bad[6], 0); /* b = -227 */
  ck_assert_uint_eq(bad[8], 255);
  ck_assert_uint_eq(bad[9], 127);
  ck_assert_uint_eq(bad[10], 255); /* 510, 256 */
  ck_assert_int_eq(skio_meshopt_filter_color(bad, 1, 12), -1);
}
END_TEST

/* ---- damaged streams ---------------------------------------------------------------------------------------- */

START_TEST(damaged_streams_fail_cleanly) {
  skio_gltf_doc* d = must_doc("skinrig_meshopt_noq_cz.glb");
  size_t len, count, stride;
  const uint8_t* s = raw_stream(d, 0, &len, &count, &stride);
  uint8_t* out = malloc(count * stride);
  uint8_t* copy = malloc(len);
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, count, stride, s, len), 0);
  for (size_t n = 0; n < len; n++) { /* every truncation, in an exact-size copy so ASan sees any overread */
    uint8_t* t = malloc(n + 1);
    memcpy(t, s, n);
    ck_assert_int_ne(skio_meshopt_decode_attributes(out, count, stride, t, n), 0);
    free(t);
  }
  int failed = 0;
  for (size_t i = 0; i < len; i++)
    for (int bit = 0; bit < 8; bit += 3) {
      memcpy(copy, s, len);
      copy[i] ^= (uint8_t)(1u << bit);
      failed += skio_meshopt_decode_attributes(out, count, stride, copy, len) != 0;
    }
  ck_assert_int_gt(failed, 0);
  memcpy(copy, s, len);
  copy[0] = 0xA2; /* version 2 */
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, count, stride, copy, len), -1);
  memcpy(copy, s, len);
  copy[len - 1] = 0x03; /* channel mode 3 */
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, count, stride, copy, len), -4);
  copy[len - 1] = 0x11; /* a rotation on a 2-byte channel */
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, count, stride, copy, len), -4);
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, count, 6, s, len), -1); /* stride not a multiple of 4 */
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, count, 260, s, len), -1);
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, 0, stride, s, 0), -1);
  ck_assert_int_eq(skio_meshopt_decode_attributes(out, count * 2, stride, s, len), -3); /* ends early */
  free(out);
  free(copy);
  skio_gltf_doc_destroy(d);
}
END_TEST

START_TEST(random_streams_never_crash) {
  skt_rng rng = {42};
  for (int t = 0; t < 20000; t++) {
    size_t len = 1 + skt_rand_u32(&rng) % 300, stride = 4 * (1 + skt_rand_u32(&rng) % 8);
    size_t count = skt_rand_u32(&rng) % 80;
    uint8_t* s = malloc(len);
    for (size_t i = 0; i < len; i++) s[i] = (uint8_t)skt_rand_u32(&rng);
    s[0] = (uint8_t)(0xA0 | (t & 1));
    if (len > stride / 4 && t % 3) memset(s + len - stride / 4, t % 3 == 1 ? 0 : 1, stride / 4); /* valid modes */
    uint8_t* out = malloc(count * stride + 1);
    int rc = skio_meshopt_decode_attributes(out, count, stride, s, len);
    ck_assert(rc == 0 || (rc <= -1 && rc >= -4));
    free(s);
    free(out);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("meshopt");
  TCase* tc = tcase_create("decode");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, version_0_matches_libmeshoptimizer);
  tcase_add_test(tc, version_1_views_equal_version_0);
  tcase_add_test(tc, version_1_channels_keep_float_bits);
  tcase_add_test(tc, color_filter_file);
  tcase_add_test(tc, color_filter_formula);
  tcase_add_test(tc, damaged_streams_fail_cleanly);
  tcase_add_test(tc, random_streams_never_crash);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
