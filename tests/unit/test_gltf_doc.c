/* test_gltf_doc.c - the glTF document layer (io/gltf_doc.c, io/gltf_accessor.c) on files written by this test:
 * every accessor form (normalized and plain integers of each width, interleaved views, matrix column padding, no
 * view, sparse), data URIs, GLB chunks, EXT_meshopt_compression views encoded here with libmeshoptimizer, JSON
 * string escapes, and hostile documents (deep nesting, views past their buffer, bad strides, sparse indices out of
 * order, truncated GLB, unknown required extension, external URIs in memory input, 2000 random corruptions): each
 * gives the right code quickly, never a crash (the ASan build runs this too). Expected values are computed from
 * the specification's formulas, not from an earlier run. */
#include <check.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sk_testutil.h"
#include "skio_gltf_doc.h"
#include "skio_gltf_import.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZER_SLOWDOWN 15.0 /* the bound is for release builds; ASan + UBSan run this about 10x slower */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZER_SLOWDOWN 15.0
#endif
#endif
#ifndef SANITIZER_SLOWDOWN
#define SANITIZER_SLOWDOWN 1.0
#endif

/* ---- building documents --------------------------------------------------------------------------------- */

/* A document whose buffer 0 is `bin` as a data URI; body holds the other top-level members (no leading comma). */
static skio_gltf_doc* doc_with(const uint8_t* bin, size_t n, const char* body, int* rc, skc_err* err) {
  char* b64 = skt_base64(bin, n);
  size_t cap = strlen(b64) + strlen(body) + 256;
  char* json = malloc(cap);
  snprintf(json, cap,
           "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu,"
           "\"uri\":\"data:application/octet-stream;base64,%s\"}],%s}",
           n, b64, body);
  skio_gltf_doc* d = NULL;
  *rc = skio_gltf_doc_parse(json, strlen(json), NULL, &d, err);
  free(b64);
  free(json);
  return d;
}

static skio_gltf_doc* must_doc(const uint8_t* bin, size_t n, const char* body) {
  int rc;
  skc_err err = {0};
  skio_gltf_doc* d = doc_with(bin, n, body, &rc, &err);
  ck_assert_msg(rc == SKC_OK && d, "parse failed: %s", err.message);
  return d;
}

static int doc_code(const uint8_t* bin, size_t n, const char* body) {
  int rc;
  skio_gltf_doc* d = doc_with(bin, n, body, &rc, NULL);
  skio_gltf_doc_destroy(d);
  return rc;
}

/* ---- accessor forms -------------------------------------------------------------------------------------- */

START_TEST(normalized_integers_follow_the_spec) {
  /* u8n, u16n, i8n, i16n, each as VEC4 / VEC2 at their own offsets; values chosen to hit the ends */
  uint8_t bin[64] = {0};
  uint8_t u8[4] = {255, 0, 128, 1};
  uint16_t u16[4] = {65535, 0, 32768, 1};
  int8_t i8[2] = {-128, 127};
  int16_t i16[2] = {-32768, 32767};
  memcpy(bin, u8, 4);
  memcpy(bin + 4, u16, 8);
  memcpy(bin + 12, i8, 2);
  memcpy(bin + 16, i16, 4);
  skio_gltf_doc* d = must_doc(bin, sizeof bin,
                              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":64}],\"accessors\":["
                              "{\"bufferView\":0,\"componentType\":5121,\"normalized\":true,\"count\":1,\"type\":\"VEC4\"},"
                              "{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5123,\"normalized\":true,\"count\":1,\"type\":\"VEC4\"},"
                              "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5120,\"normalized\":true,\"count\":1,\"type\":\"VEC2\"},"
                              "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5122,\"normalized\":true,\"count\":1,\"type\":\"VEC2\"},"
                              "{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5123,\"count\":1,\"type\":\"VEC4\"}]");
  float f[4];
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 0, f, NULL), SKC_OK);
  ck_assert(f[0] == 1.0f && f[1] == 0.0f && f[2] == (float)(128.0 / 255.0) && f[3] == (float)(1.0 / 255.0));
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 1, f, NULL), SKC_OK);
  ck_assert(f[0] == 1.0f && f[2] == (float)(32768.0 / 65535.0) && f[3] == (float)(1.0 / 65535.0));
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 2, f, NULL), SKC_OK);
  ck_assert(f[0] == -1.0f && f[1] == 1.0f); /* max(-128 / 127, -1) */
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 3, f, NULL), SKC_OK);
  ck_assert(f[0] == -1.0f && f[1] == 1.0f);
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 4, f, NULL), SKC_OK); /* not normalized: the value itself */
  ck_assert(f[0] == 65535.0f && f[2] == 32768.0f);
  uint32_t u[4];
  ck_assert_int_eq(skio_gltf_accessor_uints(d, 0, u, NULL), SKC_OK);
  ck_assert(u[0] == 255 && u[2] == 128);
  ck_assert_int_eq(skio_gltf_accessor_uints(d, 2, u, NULL), SKC_FORMAT); /* negative where indices are needed */
  skio_gltf_doc_destroy(d);
}
END_TEST

START_TEST(strides_matrices_and_sparse) {
  /* an interleaved view (stride 12: VEC3 of u16 at 0, u8n VEC4 at 6..9, padding), 3 elements */
  uint8_t bin[128] = {0};
  for (int e = 0; e < 3; ++e) {
    uint16_t p[3] = {(uint16_t)(e * 10 + 1), (uint16_t)(e * 10 + 2), (uint16_t)(e * 10 + 3)};
    memcpy(bin + e * 12, p, 6);
    for (int c = 0; c < 4; ++c) bin[e * 12 + 6 + c] = (uint8_t)(e * 50 + c);
  }
  /* MAT2 of bytes at 36: columns padded to 4 bytes: [1 2 _ _ 3 4 _ _] */
  uint8_t mat[8] = {1, 2, 99, 99, 3, 4, 99, 99};
  memcpy(bin + 36, mat, 8);
  /* sparse: indices u16 {0, 2} at 44, values float VEC3 at 48 */
  uint16_t si[2] = {0, 2};
  float sv[6] = {7, 8, 9, -1, -2, -3};
  memcpy(bin + 44, si, 4);
  memcpy(bin + 48, sv, 24);
  uint16_t sv16[6] = {7, 8, 9, 65535, 2, 3}; /* the same substitutions for the u16 accessor, in its own type */
  memcpy(bin + 72, sv16, 12);
  skio_gltf_doc* d = must_doc(bin, sizeof bin,
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36,\"byteStride\":12},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8},"
      "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":24},"
      "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":12}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":3,\"type\":\"VEC3\"},"
      "{\"bufferView\":0,\"byteOffset\":6,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"},"
      "{\"bufferView\":1,\"componentType\":5121,\"count\":1,\"type\":\"MAT2\"},"
      "{\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":2,"
      "\"indices\":{\"bufferView\":2,\"componentType\":5123},\"values\":{\"bufferView\":3}}},"
      "{\"bufferView\":0,\"componentType\":5123,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":2,"
      "\"indices\":{\"bufferView\":2,\"componentType\":5123},\"values\":{\"bufferView\":4}}}]");
  float f[12];
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 0, f, NULL), SKC_OK);
  for (int e = 0; e < 3; ++e)
    for (int c = 0; c < 3; ++c) ck_assert_float_eq(f[e * 3 + c], (float)(e * 10 + c + 1));
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 1, f, NULL), SKC_OK);
  for (int e = 0; e < 3; ++e)
    for (int c = 0; c < 4; ++c) ck_assert_float_eq(f[e * 4 + c], (float)((e * 50 + c) / 255.0));
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 2, f, NULL), SKC_OK);
  ck_assert(f[0] == 1 && f[1] == 2 && f[2] == 3 && f[3] == 4);
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 3, f, NULL), SKC_OK); /* zeros, then the substitutions */
  float want3[12] = {7, 8, 9, 0, 0, 0, -1, -2, -3, 0, 0, 0};
  for (int k = 0; k < 12; ++k) ck_assert_float_eq(f[k], want3[k]);
  ck_assert_int_eq(skio_gltf_accessor_floats(d, 4, f, NULL), SKC_OK); /* view values, then substitutions */
  float want4[9] = {7, 8, 9, 11, 12, 13, 65535, 2, 3};
  for (int k = 0; k < 9; ++k) ck_assert_float_eq(f[k], want4[k]);
  skio_gltf_doc_destroy(d);
}
END_TEST

/* ---- meshopt --------------------------------------------------------------------------------------------- */

START_TEST(meshopt_views_decode) {
  enum { N = 300 };
  uint8_t raw[N * 8];
  for (int i = 0; i < N; ++i) {
    uint16_t p[4] = {(uint16_t)(i * 7), (uint16_t)(i * i), (uint16_t)(65535 - i), 0};
    memcpy(raw + i * 8, p, 8);
  }
  uint32_t tri[N];
  for (int i = 0; i < N; ++i) tri[i] = (uint32_t)((i / 3) + (i % 3)); /* triangles (k, k+1, k+2) */
  size_t cap = meshopt_encodeVertexBufferBound(N, 8) + meshopt_encodeIndexBufferBound(N, N);
  uint8_t* bin = calloc(1, cap + 4096);
  size_t vn = meshopt_encodeVertexBuffer(bin, cap, raw, N, 8);
  size_t ioff = (vn + 3) & ~(size_t)3;
  size_t in = meshopt_encodeIndexBuffer(bin + ioff, cap, tri, N);
  ck_assert(vn > 0 && in > 0);
  char body[1024];
  snprintf(body, sizeof body,
           "\"extensionsUsed\":[\"EXT_meshopt_compression\"],\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
           "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%d,\"byteStride\":8,\"extensions\":{\"EXT_meshopt_compression\":"
           "{\"buffer\":0,\"byteLength\":%zu,\"byteStride\":8,\"count\":%d,\"mode\":\"ATTRIBUTES\"}}},"
           "{\"buffer\":0,\"byteLength\":%d,\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":%zu,"
           "\"byteLength\":%zu,\"byteStride\":4,\"count\":%d,\"mode\":\"TRIANGLES\"}}}],"
           "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":%d,\"type\":\"VEC3\"},"
           "{\"bufferView\":1,\"componentType\":5125,\"count\":%d,\"type\":\"SCALAR\"}]",
           N * 8, vn, N, N * 4, ioff, in, N, N, N);
  skio_gltf_doc* d = must_doc(bin, ioff + in, body);
  uint32_t u[N * 3];
  ck_assert_int_eq(skio_gltf_accessor_uints(d, 0, u, NULL), SKC_OK);
  for (int i = 0; i < N; ++i) {
    ck_assert_uint_eq(u[i * 3], (uint16_t)(i * 7));
    ck_assert_uint_eq(u[i * 3 + 1], (uint16_t)(i * i));
  }
  ck_assert_int_eq(skio_gltf_accessor_uints(d, 1, u, NULL), SKC_OK);
  /* index codecs keep each triangle but may rotate its corners */
  for (int t = 0; t < N / 3; ++t) {
    uint32_t s = u[t * 3] + u[t * 3 + 1] + u[t * 3 + 2], w = tri[t * 3] + tri[t * 3 + 1] + tri[t * 3 + 2];
    ck_assert_uint_eq(s, w);
  }
  skio_gltf_doc_destroy(d);
  /* damaged compressed bytes: a clear format error */
  bin[0] ^= 0xFF;
  bin[1] ^= 0x5A;
  d = must_doc(bin, ioff + in, body);
  skc_err err = {0};
  ck_assert_int_eq(skio_gltf_accessor_uints(d, 0, u, &err), SKC_FORMAT);
  ck_assert_ptr_nonnull(strstr(err.message, "meshopt"));
  skio_gltf_doc_destroy(d);
  free(bin);
}
END_TEST

/* ---- JSON ------------------------------------------------------------------------------------------------ */

START_TEST(strings_numbers_and_keys) {
  const char* j = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"A\\u00e9\\\"\\ud83d\\ude00\\n\",\"a\":1},"
                  "{\"name\":\"x\",\"name\":\"last\",\"m\":[1,2.5e0,-3]}, {\"bad\":\"\\ud800z\"}],"
                  "\"extras\":{\"na\\u006de\":\"escaped key\",\"a\\/b\":2,\"nam\":3}}";
  skio_gltf_doc* d = NULL;
  ck_assert_int_eq(skio_gltf_doc_parse(j, strlen(j), NULL, &d, NULL), SKC_OK);
  char* s = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "nodes", 0), "name"));
  ck_assert_str_eq(s, "A\xc3\xa9\"\xf0\x9f\x98\x80\n");
  free(s);
  ck_assert(skio_json_streq(d, skio_json_get(d, skio_gltf_item(d, "nodes", 1), "name"), "last"));
  float m[4];
  ck_assert_int_eq(skio_json_floats(d, skio_json_get(d, skio_gltf_item(d, "nodes", 1), "m"), m, 4), 3);
  ck_assert(m[0] == 1 && m[1] == 2.5f && m[2] == -3);
  s = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "nodes", 2), "bad"));
  ck_assert_str_eq(s, "\xef\xbf\xbdz"); /* lone surrogate -> U+FFFD */
  free(s);
  ck_assert_int_eq(skio_gltf_item(d, "nodes", 3), -1);
  /* keys spelled with escapes match once decoded; a shorter raw key does not */
  int ex = skio_json_get(d, 0, "extras");
  ck_assert(skio_json_streq(d, skio_json_get(d, ex, "name"), "escaped key"));
  ck_assert_int_ge(skio_json_get(d, ex, "a/b"), 0);
  ck_assert_int_eq(skio_json_get(d, ex, "na"), -1);
  ck_assert_uint_eq(d->node_count, 3);
  skio_gltf_doc_destroy(d);
}
END_TEST

/* ---- hostile documents ----------------------------------------------------------------------------------- */

static int parse_code(const char* j) {
  skio_gltf_doc* d = NULL;
  int rc = skio_gltf_doc_parse(j, strlen(j), NULL, &d, NULL);
  skio_gltf_doc_destroy(d);
  return rc;
}

START_TEST(hostile_documents_fail_cleanly) {
  uint8_t bin[16] = {0};
  /* deep nesting: 1,000,000 levels are refused in well under a second (jsmn alone would take hours) */
  size_t depth = 1000000;
  char* deep = malloc(depth * 2 + 64);
  size_t k = (size_t)sprintf(deep, "{\"asset\":{\"version\":\"2.0\"},\"x\":");
  for (size_t i = 0; i < depth; ++i) deep[k++] = '[';
  for (size_t i = 0; i < depth; ++i) deep[k++] = ']';
  deep[k++] = '}';
  deep[k] = 0;
  clock_t t0 = clock();
  ck_assert_int_eq(parse_code(deep), SKC_FORMAT);
  ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 2.0, "deep nesting took too long");
  free(deep);
  ck_assert_int_eq(parse_code("{\"asset\":{\"version\":\"2.0\"},\"x\":[1,2"), SKC_FORMAT);
  ck_assert_int_eq(parse_code("[1]"), SKC_FORMAT);
  ck_assert_int_eq(parse_code("{\"asset\":{\"version\":\"1.0\"}}"), SKC_VERSION);
  ck_assert_int_eq(parse_code("{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"EXT_future_geometry\"]}"),
                   SKC_UNSUPPORTED);
  ck_assert_int_eq(parse_code("{\"asset\":{\"version\":\"2.0\"},\"buffers\":{}}"), SKC_FORMAT);
  ck_assert_int_eq(parse_code("{\"asset\":{\"version\":\"2.0\"}} trailing"), SKC_FORMAT);
  /* views and accessors that point outside their data: load succeeds, reading fails with FORMAT */
  static const char* bad_reads[] = {
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":32}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC4\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":8,\"byteLength\":8}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16,\"byteStride\":3}],\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":2,\"type\":\"SCALAR\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16,\"byteStride\":4}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC2\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"bufferView\":0,\"byteOffset\":18446744073709551615,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":4294967295,\"type\":\"SCALAR\"}]",
      "\"bufferViews\":[{\"buffer\":7,\"byteLength\":16}],\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"bufferView\":3,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"bufferView\":0,\"componentType\":5124,\"count\":1,\"type\":\"SCALAR\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"VEC5\"}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\","
      "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":0,\"componentType\":5121},\"values\":{\"bufferView\":0}}}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\","
      "\"sparse\":{\"count\":9,\"indices\":{\"bufferView\":0,\"componentType\":5121},\"values\":{\"bufferView\":0}}}]",
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16,\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,"
      "\"byteLength\":16,\"byteStride\":4,\"count\":1000000,\"mode\":\"ATTRIBUTES\"}}}],\"accessors\":[{\"bufferView\":0,"
      "\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\"}]",
  };
  for (size_t i = 0; i < sizeof bad_reads / sizeof *bad_reads; ++i) {
    int rc;
    skio_gltf_doc* d = doc_with(bin, sizeof bin, bad_reads[i], &rc, NULL);
    ck_assert_msg(rc == SKC_OK, "case %zu did not load", i);
    float f[64];
    ck_assert_msg(skio_gltf_accessor_floats(d, 0, f, NULL) == SKC_FORMAT, "case %zu read", i);
    skio_gltf_doc_destroy(d);
  }
  /* unknown top-level members are kept, not refused */
  ck_assert_int_eq(doc_code(bin, sizeof bin, "\"extras\":{\"x\":[1,{}]},\"EXT_unknown_top\":7"), SKC_OK);
}
END_TEST

static void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

START_TEST(glb_chunks_and_external_uris) {
  const char* json = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4}],\"bufferViews\":[{\"buffer\":0,"
                     "\"byteLength\":4}],\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\"}]}";
  size_t jl = (strlen(json) + 3) & ~(size_t)3;
  size_t total = 12 + 8 + jl + 8 + 4;
  uint8_t* g = calloc(1, total);
  memcpy(g, "glTF", 4);
  put32(g + 4, 2);
  put32(g + 8, (uint32_t)total);
  put32(g + 12, (uint32_t)jl);
  memcpy(g + 16, "JSON", 4);
  memset(g + 20, ' ', jl);
  memcpy(g + 20, json, strlen(json));
  put32(g + 20 + jl, 4);
  memcpy(g + 24 + jl, "BIN", 4);
  uint8_t vals[4] = {9, 8, 7, 6};
  memcpy(g + 28 + jl, vals, 4);
  skio_gltf_doc* d = NULL;
  ck_assert_int_eq(skio_gltf_doc_parse(g, total, NULL, &d, NULL), SKC_OK);
  uint32_t u[4];
  ck_assert_int_eq(skio_gltf_accessor_uints(d, 0, u, NULL), SKC_OK);
  ck_assert(u[0] == 9 && u[3] == 6);
  skio_gltf_doc_destroy(d);
  /* every truncation of the GLB fails cleanly or reads what is there */
  for (size_t cut = 0; cut < total; ++cut) {
    d = NULL;
    if (skio_gltf_doc_parse(g, cut, NULL, &d, NULL) == SKC_OK) skio_gltf_accessor_uints(d, 0, u, NULL);
    skio_gltf_doc_destroy(d);
  }
  put32(g + 4, 1);
  ck_assert_int_eq(skio_gltf_doc_parse(g, total, NULL, &d, NULL), SKC_VERSION);
  free(g);
  /* external buffers are refused without a base directory, and absolute or scheme URIs always */
  const char* ext = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"x.bin\"}],\"bufferViews\":"
                    "[{\"buffer\":0,\"byteLength\":4}],\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\"}]}";
  ck_assert_int_eq(skio_gltf_doc_parse(ext, strlen(ext), NULL, &d, NULL), SKC_OK);
  ck_assert_int_eq(skio_gltf_accessor_uints(d, 0, u, NULL), SKC_UNSUPPORTED);
  skio_gltf_doc_destroy(d);
}
END_TEST

START_TEST(random_corruptions_never_crash) {
  uint8_t bin[64];
  for (int i = 0; i < 64; ++i) bin[i] = (uint8_t)(i * 37);
  char* b64 = skt_base64(bin, sizeof bin);
  char base[2048];
  snprintf(base, sizeof base,
           "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":64,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
           "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48,\"byteStride\":8},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":16}],"
           "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":6,\"type\":\"VEC3\"},"
           "{\"bufferView\":1,\"componentType\":5121,\"normalized\":true,\"count\":4,\"type\":\"VEC4\"},"
           "{\"componentType\":5126,\"count\":6,\"type\":\"SCALAR\",\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,"
           "\"componentType\":5121},\"values\":{\"bufferView\":0}}}]}",
           b64);
  free(b64);
  skt_rng r = {12345};
  size_t n = strlen(base);
  char* m = malloc(n + 1);
  for (int trial = 0; trial < 2000; ++trial) {
    memcpy(m, base, n + 1);
    int flips = 1 + (int)(skt_rand_u32(&r) % 4);
    for (int f = 0; f < flips; ++f) m[skt_rand_u32(&r) % n] = "0123456789{}[]\",:-e9"[skt_rand_u32(&r) % 20];
    skio_gltf_doc* d = NULL;
    if (skio_gltf_doc_parse(m, n, NULL, &d, NULL) == SKC_OK) {
      for (uint32_t a = 0; a < d->accessor_count; ++a) {
        skio_gltf_accessor info;
        if (skio_gltf_accessor_info(d, a, &info, NULL) || info.count > 4096) continue;
        float* f = malloc(info.count * info.components * sizeof *f);
        skio_gltf_accessor_floats(d, a, f, NULL);
        free(f);
      }
    }
    skio_gltf_doc_destroy(d);
  }
  free(m);
}
END_TEST

/* A 1,000,000-node chain, every node a joint of one skin: reading every node by index is linear (child tables), and
 * the importer refuses the skin (over 65,535 joints) before building anything: both well under 2 s. */
START_TEST(a_million_joints_is_refused_quickly) {
  const int n = 1000000;
  size_t cap = (size_t)n * 40 + 256, k = 0;
  char* j = malloc(cap);
  k += (size_t)sprintf(j + k, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
  for (int i = 0; i < n; ++i)
    k += i + 1 < n ? (size_t)sprintf(j + k, "{\"children\":[%d]},", i + 1) : (size_t)sprintf(j + k, "{}");
  k += (size_t)sprintf(j + k, "],\"skins\":[{\"joints\":[");
  for (int i = 0; i < n; ++i) k += (size_t)sprintf(j + k, i ? ",%d" : "%d", i);
  k += (size_t)sprintf(j + k, "]}]}");
  clock_t t0 = clock();
  skio_gltf_doc* d = NULL;
  ck_assert_int_eq(skio_gltf_doc_parse(j, k, NULL, &d, NULL), SKC_OK);
  free(j);
  long sum = 0;
  for (uint32_t i = 0; i < d->node_count; ++i) sum += skio_gltf_item(d, "nodes", i) > 0;
  int joints = skio_json_get(d, skio_gltf_item(d, "skins", 0), "joints");
  for (int i = 0; i < n; ++i) sum += skio_json_at(d, joints, i) > 0;
  ck_assert_int_eq(sum, 2L * n);
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_int_eq(skio_gltf_import_doc(d, false, NULL, &s, &err), SKC_UNSUPPORTED); /* takes d, even on failure */
  ck_assert_ptr_nonnull(strstr(err.message, "65535"));
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  ck_assert_msg(secs < 2.0 * SANITIZER_SLOWDOWN, "a million joints took %.2f s", secs);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("gltf_doc");
  TCase* tc = tcase_create("doc");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, normalized_integers_follow_the_spec);
  tcase_add_test(tc, strides_matrices_and_sparse);
  tcase_add_test(tc, meshopt_views_decode);
  tcase_add_test(tc, strings_numbers_and_keys);
  tcase_add_test(tc, hostile_documents_fail_cleanly);
  tcase_add_test(tc, glb_chunks_and_external_uris);
  tcase_add_test(tc, random_corruptions_never_crash);
  tcase_add_test(tc, a_million_joints_is_refused_quickly);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
