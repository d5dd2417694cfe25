/* test_skin.c - CSR storage, packed conversion and validation of skin weights. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

static sk_skin* make_skin(size_t nv, uint32_t nj, const uint32_t* off, const uint32_t* j, const float* w) {
  sk_skin* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(nv, nj, &s, &err), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(s, off, j, w, &err), SK_OK);
  return s;
}

START_TEST(create_and_csr_round_trip) {
  sk_skin* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(3, 0, &s, &err), SK_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(sk_skin_create(3, 70000, &s, &err), SK_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(sk_skin_create(3, 4, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skin_create(3, 4, &s, &err), SK_OK);
  ck_assert_uint_eq(sk_skin_vertex_count(s), 3);
  ck_assert_uint_eq(sk_skin_joint_count(s), 4);
  ck_assert_uint_eq(sk_skin_influence_count(s), 0);
  uint32_t off[4] = {0, 2, 2, 5};
  uint32_t j[5] = {0, 1, 3, 2, 1};
  float w[5] = {0.25f, 0.75f, 0.5f, 0.25f, 0.25f};
  ck_assert_int_eq(sk_skin_set_csr(s, off, j, w, &err), SK_OK);
  ck_assert_uint_eq(sk_skin_influence_count(s), 5);
  uint32_t o2[4], j2[5];
  float w2[5];
  ck_assert_int_eq(sk_skin_get_csr(s, o2, j2, w2, &err), SK_OK);
  ck_assert_mem_eq(o2, off, sizeof off);
  ck_assert_mem_eq(j2, j, sizeof j);
  ck_assert_mem_eq(w2, w, sizeof w);
  ck_assert_int_eq(sk_skin_get_csr(NULL, o2, j2, w2, &err), SK_ERR_INVALID_ARGUMENT);

  /* malformed offsets are refused and leave the weights untouched */
  uint32_t bad0[4] = {1, 2, 2, 5};
  ck_assert_int_eq(sk_skin_set_csr(s, bad0, j, w, &err), SK_ERR_INVALID_ARGUMENT);
  uint32_t decreasing[4] = {0, 3, 2, 5};
  ck_assert_int_eq(sk_skin_set_csr(s, decreasing, j, w, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(err.message, "vertex 1") != NULL);
  ck_assert_int_eq(sk_skin_set_csr(s, off, NULL, w, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skin_set_csr(s, NULL, j, w, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(sk_skin_influence_count(s), 5);

  sk_skin* c = NULL;
  ck_assert_int_eq(sk_skin_clone(s, &c, &err), SK_OK);
  ck_assert_int_eq(sk_skin_clone(NULL, &c, &err), SK_ERR_INVALID_ARGUMENT);
  sk_skin_destroy(s);
  uint32_t jj[8];
  float ww[8];
  ck_assert_uint_eq(sk_skin_get_vertex(c, 2, jj, ww, 8), 3);
  ck_assert_uint_eq(jj[0], 3);
  ck_assert_float_eq(ww[2], 0.25f);
  ck_assert_uint_eq(sk_skin_get_vertex(c, 2, jj, ww, 1), 3); /* count, copies 1 */
  ck_assert_uint_eq(sk_skin_get_vertex(c, 3, jj, ww, 8), 0);
  sk_skin_destroy(c);
  sk_skin_destroy(NULL);
}
END_TEST

START_TEST(set_vertex_grows_and_shrinks) {
  uint32_t off[4] = {0, 1, 2, 3};
  uint32_t j[3] = {0, 1, 2};
  float w[3] = {1, 1, 1};
  sk_skin* s = make_skin(3, 8, off, j, w);
  sk_error err;
  uint32_t nj[4] = {4, 5, 6, 7};
  float nw[4] = {0.1f, 0.2f, 0.3f, 0.4f};
  ck_assert_int_eq(sk_skin_set_vertex(s, 1, nj, nw, 4, &err), SK_OK);
  uint32_t o2[4], j2[6];
  float w2[6];
  sk_skin_get_csr(s, o2, j2, w2, &err);
  uint32_t eo[4] = {0, 1, 5, 6};
  uint32_t ej[6] = {0, 4, 5, 6, 7, 2};
  ck_assert_mem_eq(o2, eo, sizeof eo);
  ck_assert_mem_eq(j2, ej, sizeof ej);
  ck_assert_int_eq(sk_skin_set_vertex(s, 1, NULL, NULL, 0, &err), SK_OK);
  sk_skin_get_csr(s, o2, j2, w2, &err);
  uint32_t eo2[4] = {0, 1, 1, 2};
  ck_assert_mem_eq(o2, eo2, sizeof eo2);
  ck_assert_uint_eq(j2[1], 2);
  ck_assert_int_eq(sk_skin_set_vertex(s, 3, nj, nw, 1, &err), SK_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(sk_skin_set_vertex(s, 0, NULL, nw, 1, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skin_set_vertex(NULL, 0, nj, nw, 1, &err), SK_ERR_INVALID_ARGUMENT);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(to_packed_keeps_largest_sorted_normalized) {
  /* vertex 0: 5 influences, keep the 4 largest; vertex 1: none; vertex 2: one negative, one NaN, one valid */
  uint32_t off[4] = {0, 5, 5, 8};
  uint32_t j[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  float w[8] = {0.1f, 0.3f, 0.05f, 0.35f, 0.2f, -0.5f, NAN, 0.6f};
  sk_skin* s = make_skin(3, 8, off, j, w);
  uint16_t pj[12];
  float pw[12];
  sk_packed_desc p = {sizeof p, 4, SK_TYPE_U16, SK_TYPE_F32, pj, 0, pw, 0};
  sk_error err;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_OK);
  ck_assert_uint_eq(pj[0], 3);
  ck_assert_uint_eq(pj[1], 1);
  ck_assert_uint_eq(pj[2], 4);
  ck_assert_uint_eq(pj[3], 0);
  float sum = pw[0] + pw[1] + pw[2] + pw[3];
  ck_assert_float_eq_tol(sum, 1.0f, 1e-6f);
  ck_assert_float_eq_tol(pw[0], 0.35f / 0.95f, 1e-6f);
  for (int k = 4; k < 8; ++k) {
    ck_assert_uint_eq(pj[k], 0);
    ck_assert_float_eq(pw[k], 0.0f);
  }
  ck_assert_uint_eq(pj[8], 7);
  ck_assert_float_eq(pw[8], 1.0f);
  ck_assert_float_eq(pw[9], 0.0f);

  /* u8 weights sum exactly to 255, with a padded stride */
  struct {
    uint8_t j[4];
    uint8_t pad;
  } jj[3];
  struct {
    uint8_t w[4];
    uint8_t pad[3];
  } ww[3];
  sk_packed_desc p8 = {sizeof p8, 4, SK_TYPE_U8, SK_TYPE_U8, jj, sizeof jj[0], ww, sizeof ww[0]};
  ck_assert_int_eq(sk_skin_to_packed(s, &p8, &err), SK_OK);
  ck_assert_uint_eq(ww[0].w[0] + ww[0].w[1] + ww[0].w[2] + ww[0].w[3], 255);
  ck_assert_uint_eq(jj[0].j[0], 3);
  ck_assert_uint_eq(ww[1].w[0] + ww[1].w[1] + ww[1].w[2] + ww[1].w[3], 0);
  ck_assert_uint_eq(ww[2].w[0], 255);
  /* largest-remainder error stays within one unit */
  ck_assert_int_le(abs((int)ww[0].w[0] - (int)lroundf(0.35f / 0.95f * 255.0f)), 1);

  uint16_t w16[12];
  sk_packed_desc p16 = {sizeof p16, 4, SK_TYPE_U16, SK_TYPE_U16, pj, 0, w16, 0};
  ck_assert_int_eq(sk_skin_to_packed(s, &p16, &err), SK_OK);
  ck_assert_uint_eq((uint32_t)w16[0] + w16[1] + w16[2] + w16[3], 65535);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(to_packed_error_paths) {
  uint32_t off[2] = {0, 1};
  uint32_t j[1] = {300};
  float w[1] = {1};
  sk_skin* s = make_skin(1, 400, off, j, w);
  uint8_t pj[4];
  float pw[4];
  sk_packed_desc p = {sizeof p, 4, SK_TYPE_U8, SK_TYPE_F32, pj, 0, pw, 0};
  sk_error err;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_OUT_OF_RANGE); /* 300 does not fit u8 */
  p.influences = 9;
  p.joint_type = SK_TYPE_U16;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_OUT_OF_RANGE);
  p.influences = 0;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_OUT_OF_RANGE);
  p.influences = 4;
  p.joint_type = SK_TYPE_F32;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_INVALID_ARGUMENT);
  p.joint_type = SK_TYPE_U16;
  p.weight_type = SK_TYPE_U32;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_INVALID_ARGUMENT);
  p.weight_type = SK_TYPE_F32;
  p.joints_stride = 3; /* smaller than 4 u16 */
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_INVALID_ARGUMENT);
  p.joints_stride = 0;
  p.weights = NULL;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_INVALID_ARGUMENT);
  p.size = 3;
  ck_assert_int_eq(sk_skin_to_packed(s, &p, &err), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_skin_to_packed(s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skin_from_packed(s, &p, &err), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_skin_from_packed(NULL, &p, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(sk_skin_influence_count(s), 1); /* untouched */
  sk_skin_destroy(s);
}
END_TEST

START_TEST(from_packed_round_trip) {
  uint8_t pj[8] = {2, 1, 0, 0, 3, 0, 0, 0};
  uint8_t pw[8] = {200, 55, 0, 0, 255, 0, 0, 0};
  sk_skin* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(2, 4, &s, &err), SK_OK);
  sk_packed_desc p = {sizeof p, 4, SK_TYPE_U8, SK_TYPE_U8, pj, 0, pw, 0};
  ck_assert_int_eq(sk_skin_from_packed(s, &p, &err), SK_OK);
  ck_assert_uint_eq(sk_skin_influence_count(s), 3);
  uint8_t qj[8], qw[8];
  sk_packed_desc q = {sizeof q, 4, SK_TYPE_U8, SK_TYPE_U8, qj, 0, qw, 0};
  ck_assert_int_eq(sk_skin_to_packed(s, &q, &err), SK_OK);
  ck_assert_mem_eq(qj, pj, 8);
  ck_assert_mem_eq(qw, pw, 8);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(validate_counts_every_defect) {
  /* v0 ok; v1 sum 0.9; v2 unweighted; v3 NaN; v4 negative; v5 bad joint; v6 duplicate; v7 5 influences */
  uint32_t off[9] = {0, 2, 4, 4, 5, 7, 8, 10, 15};
  uint32_t j[15] = {0, 1, 0, 1, 2, 0, 1, 9, 3, 3, 0, 1, 2, 3, 4};
  float w[15] = {0.5f, 0.5f, 0.4f, 0.5f, NAN, 1.5f, -0.5f, 1.0f, 0.5f, 0.5f, 0.2f, 0.2f, 0.2f, 0.2f, 0.2f};
  sk_skin* s = make_skin(8, 5, off, j, w);
  sk_skin_report r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  sk_validate_options o = {sizeof o, 4, 1e-3f, 0};
  uint8_t flags[8];
  sk_error err;
  ck_assert_int_eq(sk_skin_validate(s, &o, &r, flags, &err), SK_OK);
  ck_assert_uint_eq(r.vertex_count, 8);
  ck_assert_uint_eq(r.influence_count, 15);
  ck_assert_uint_eq(r.max_influences, 5);
  ck_assert_uint_eq(r.off_tolerance, 1);
  ck_assert_uint_eq(r.unweighted, 1);
  ck_assert_uint_eq(r.nan, 1);
  ck_assert_uint_eq(r.negative, 1);
  ck_assert_uint_eq(r.bad_joint, 1);
  ck_assert_uint_eq(r.duplicate, 1);
  ck_assert_uint_eq(r.over_limit, 1);
  ck_assert_uint_eq(r.findings, 1);
  ck_assert_uint_eq(r.joints_used, 5);
  ck_assert_uint_eq(r.histogram[0], 1);
  ck_assert_uint_eq(r.histogram[2], 4);
  ck_assert_uint_eq(r.histogram[5], 1);
  ck_assert_float_eq_tol(r.weight_sum_min, 0.9f, 1e-6f);
  ck_assert_float_eq_tol(r.weight_sum_max, 1.0f, 1e-6f);
  ck_assert_uint_eq(flags[0], 0);
  ck_assert_uint_eq(flags[1], SK_VFLAG_SUM_OFF);
  ck_assert(flags[2] & SK_VFLAG_UNWEIGHTED);
  ck_assert(flags[3] & SK_VFLAG_NAN);
  ck_assert(flags[4] & SK_VFLAG_NEGATIVE);
  ck_assert(flags[5] & SK_VFLAG_BAD_JOINT);
  ck_assert(flags[6] & SK_VFLAG_DUPLICATE);
  ck_assert(flags[7] & SK_VFLAG_OVER_LIMIT);

  /* a looser tolerance and no limit clears those findings; NULL options are the defaults */
  o.tolerance = 0.2f;
  o.max_influences = 0;
  ck_assert_int_eq(sk_skin_validate(s, &o, &r, NULL, &err), SK_OK);
  ck_assert_uint_eq(r.off_tolerance, 0);
  ck_assert_uint_eq(r.over_limit, 0);
  ck_assert_int_eq(sk_skin_validate(s, NULL, &r, NULL, &err), SK_OK);
  ck_assert_uint_eq(r.off_tolerance, 1);

  /* error paths */
  r.size = 0;
  ck_assert_int_eq(sk_skin_validate(s, NULL, &r, NULL, &err), SK_ERR_STRUCT_SIZE);
  r.size = sizeof r;
  o.size = 1;
  ck_assert_int_eq(sk_skin_validate(s, &o, &r, NULL, &err), SK_ERR_STRUCT_SIZE);
  o.size = sizeof o;
  o.tolerance = NAN;
  ck_assert_int_eq(sk_skin_validate(s, &o, &r, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skin_validate(NULL, NULL, &r, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skin_validate(s, NULL, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(validate_clean_skin_has_no_findings) {
  skt_rng rng = {42};
  size_t nv = 1000;
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  uint32_t* j = malloc(nv * 4 * sizeof *j);
  float* w = malloc(nv * 4 * sizeof *w);
  off[0] = 0;
  for (size_t v = 0; v < nv; ++v) {
    uint32_t n = 1 + skt_rand_u32(&rng) % 4;
    float sum = 0;
    for (uint32_t k = 0; k < n; ++k) {
      j[off[v] + k] = k * 7 + (uint32_t)(v % 3); /* distinct */
      w[off[v] + k] = 0.1f + skt_rand_float(&rng);
      sum += w[off[v] + k];
    }
    for (uint32_t k = 0; k < n; ++k) w[off[v] + k] /= sum;
    off[v + 1] = off[v] + n;
  }
  sk_skin* s = make_skin(nv, 32, off, j, w);
  sk_skin_report r = {.size = sizeof r};
  sk_error err;
  ck_assert_int_eq(sk_skin_validate(s, NULL, &r, NULL, &err), SK_OK);
  ck_assert_uint_eq(r.findings, 0);
  ck_assert_uint_le(r.max_influences, 4);
  ck_assert_float_ge(r.weight_sum_min, 1.0f - 1e-5f);
  sk_skin_destroy(s);
  free(off);
  free(j);
  free(w);
}
END_TEST

START_TEST(common_abi_functions) {
  ck_assert_uint_eq(sk_version(), SK_VERSION);
  ck_assert_uint_eq(sk_abi_major(), SK_ABI_MAJOR);
  ck_assert_uint_eq(sk_abi_minor(), SK_ABI_MINOR);
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", SK_VERSION / 10000, SK_VERSION / 100 % 100, SK_VERSION % 100);
  ck_assert_str_eq(sk_version_string(), expect);
  ck_assert_str_eq(sk_result_string(SK_OK), "success");
  for (int code = 1; code <= SK_ERR_INTERNAL; ++code) {
    const char* m = sk_result_string((sk_result)code);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_ne(m, "unknown result code");
    for (int other = 0; other < code; ++other) ck_assert_str_ne(m, sk_result_string((sk_result)other));
  }
  ck_assert_str_eq(sk_result_string((sk_result)999), "unknown result code");
  ck_assert_ptr_nonnull(sk_cpu_kernel());
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("skin");
  TCase* t = tcase_create("storage");
  tcase_add_test(t, create_and_csr_round_trip);
  tcase_add_test(t, set_vertex_grows_and_shrinks);
  tcase_add_test(t, common_abi_functions);
  suite_add_tcase(s, t);
  TCase* p = tcase_create("packed");
  tcase_add_test(p, to_packed_keeps_largest_sorted_normalized);
  tcase_add_test(p, to_packed_error_paths);
  tcase_add_test(p, from_packed_round_trip);
  suite_add_tcase(s, p);
  TCase* v = tcase_create("validate");
  tcase_add_test(v, validate_counts_every_defect);
  tcase_add_test(v, validate_clean_skin_has_no_findings);
  suite_add_tcase(s, v);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
