/* test_primitives.c - the generated cylinder rig (sk_mesh_cylinder): counts, closed surface, weights, errors. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

START_TEST(cylinder_counts_surface_and_weights) {
  sk_cylinder_desc d = {sizeof d, 24, 16, 2, 0.25f, 2.0f, 0.25f, 0};
  size_t nv = 0, nt = 0;
  sk_error err;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_OK);
  ck_assert_uint_eq(nv, 17 * 24 + 2 * 25);
  ck_assert_uint_eq(nt, 2 * 16 * 24 + 2 * 24);
  float* p = malloc(nv * 3 * sizeof *p);
  float* n = malloc(nv * 3 * sizeof *n);
  uint32_t* t = malloc(nt * 3 * sizeof *t);
  sk_skin* skin = NULL;
  ck_assert_int_eq(sk_skin_create(nv, 2, &skin, &err), SK_OK);
  ck_assert_int_eq(sk_mesh_cylinder(&d, NULL, NULL, p, n, t, skin, &err), SK_OK);
  /* closed and outward: divergence-theorem volume of the prism inscribed in the cylinder */
  double vol = 0.0;
  for (size_t i = 0; i < nt; ++i) {
    const float *a = p + 3 * t[3 * i], *b = p + 3 * t[3 * i + 1], *c = p + 3 * t[3 * i + 2];
    ck_assert_uint_lt(t[3 * i], nv);
    vol += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) - a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
            a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6.0;
  }
  double prism = 0.5 * 24 * 0.25 * 0.25 * sin(2 * 3.14159265358979 / 24) * 2.0;
  ck_assert_double_eq_tol(vol, prism, 1e-5);
  /* unit normals; the x = 0 cap faces -x */
  for (size_t v = 0; v < nv; ++v)
    ck_assert_float_eq_tol(n[3 * v] * n[3 * v] + n[3 * v + 1] * n[3 * v + 1] + n[3 * v + 2] * n[3 * v + 2], 1.0f, 1e-5f);
  ck_assert_float_eq(n[3 * (17 * 24)], -1.0f);
  /* weights: bone 0 alone below x = 0.75, bone 1 alone above 1.25, a linear ramp between, sums exactly 1 */
  for (size_t v = 0; v < nv; ++v) {
    uint32_t j[4];
    float w[4];
    size_t k = sk_skin_get_vertex(skin, v, j, w, 4);
    float x = p[3 * v], sum = 0.0f, w1 = 0.0f;
    for (size_t q = 0; q < k; ++q) {
      sum += w[q];
      if (j[q] == 1) w1 += w[q];
    }
    ck_assert_float_eq_tol(sum, 1.0f, 1e-6f);
    float expect = x <= 0.75f ? 0.0f : x >= 1.25f ? 1.0f : (x - 0.75f) / 0.5f;
    ck_assert_float_eq_tol(w1, expect, 1e-5f);
  }
  sk_skin_destroy(skin);
  free(p);
  free(n);
  free(t);
}
END_TEST

START_TEST(cylinder_defaults_and_errors) {
  sk_cylinder_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  size_t nv = 0, nt = 0;
  sk_error err;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_OK);
  ck_assert_uint_eq(nv, 65 * 32 + 2 * 33); /* 32 segments, 64 rings */
  d.size = 4;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_mesh_cylinder(NULL, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  d.size = sizeof d;
  d.segments = 2;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_ERR_OUT_OF_RANGE);
  d.segments = 8;
  d.bones = 5000;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_ERR_OUT_OF_RANGE);
  d.bones = 2;
  d.radius = -1.0f;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  d.radius = NAN;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  d.radius = 0.0f;
  /* a skin of the wrong size is refused and left alone */
  sk_skin* skin = NULL;
  ck_assert_int_eq(sk_skin_create(10, 2, &skin, &err), SK_OK);
  ck_assert_int_eq(sk_mesh_cylinder(&d, NULL, NULL, NULL, NULL, NULL, skin, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(sk_skin_influence_count(skin), 0);
  sk_skin_destroy(skin);
  /* rigid (blend < 0): one influence per vertex */
  d.blend = -1.0f;
  d.segments = 8;
  d.rings = 8;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &nv, NULL, NULL, NULL, NULL, NULL, &err), SK_OK);
  ck_assert_int_eq(sk_skin_create(nv, 2, &skin, &err), SK_OK);
  ck_assert_int_eq(sk_mesh_cylinder(&d, NULL, NULL, NULL, NULL, NULL, skin, &err), SK_OK);
  ck_assert_uint_eq(sk_skin_influence_count(skin), nv);
  sk_skin_destroy(skin);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("primitives");
  TCase* t = tcase_create("cylinder");
  tcase_add_test(t, cylinder_counts_surface_and_weights);
  tcase_add_test(t, cylinder_defaults_and_errors);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
