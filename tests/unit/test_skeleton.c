/* test_skeleton.c - skeleton creation rules, hierarchy order, forward kinematics and the skinning palette. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skc_math.h"
#include "skinkit.h"

static void mat_translate(float m[16], float x, float y, float z) {
  skc_mat4_identity(m);
  m[12] = x;
  m[13] = y;
  m[14] = z;
}

static void mat_rot(float m[16], float ax, float ay, float az, float angle) {
  skc_trs t;
  skc_trs_identity(&t);
  float axis[3] = {ax, ay, az};
  skc_quat_from_axis_angle(axis, angle, t.r);
  skc_trs_to_mat4(&t, m);
}

static float max_diff3(const float* a, const float* b) {
  float d = 0;
  for (int i = 0; i < 3; ++i) d = fmaxf(d, fabsf(a[i] - b[i]));
  return d;
}

static sk_skeleton* make(uint32_t n, const char* const* names, const int32_t* parents, const float* rest, sk_result* rc,
                         sk_error* err) {
  sk_skeleton_desc d = {sizeof d, n, names, parents, rest, NULL, NULL, NULL};
  sk_skeleton* s = NULL;
  *rc = sk_skeleton_create(&d, &s, err);
  return s;
}

/* ------------------------------------------------------------------------------------------ validity */

START_TEST(default_desc_is_invalid) {
  sk_skeleton_desc d;
  memset(&d, 0, sizeof d);
  sk_skeleton* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(err.code, SK_ERR_STRUCT_SIZE);
  ck_assert(strstr(err.message, "size") != NULL);
  d.size = sizeof d;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_ERR_OUT_OF_RANGE); /* zero joints */
  ck_assert_ptr_null(s);
  ck_assert_int_eq(sk_skeleton_create(NULL, &s, &err), SK_ERR_INVALID_ARGUMENT);
  int32_t p = -1;
  d.joint_count = 1;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_ERR_INVALID_ARGUMENT); /* parents NULL */
  d.parents = &p;
  ck_assert_int_eq(sk_skeleton_create(&d, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skeleton_create(&d, &s, NULL), SK_OK); /* err may be NULL */
  ck_assert_str_eq(sk_skeleton_joint_name(s, 0), "joint0");
  sk_skeleton_destroy(s);
  sk_skeleton_destroy(NULL);
}
END_TEST

START_TEST(rejects_bad_hierarchies) {
  const char* names[3] = {"a", "b", "c"};
  sk_error err;
  sk_result rc;
  int32_t child_first[3] = {1, -1, 1};
  ck_assert_ptr_null(make(3, names, child_first, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_BAD_HIERARCHY);
  ck_assert(strstr(err.message, "joint 0") != NULL);
  int32_t cycle[3] = {-1, 2, 1};
  ck_assert_ptr_null(make(3, names, cycle, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_BAD_HIERARCHY);
  int32_t self[3] = {-1, 1, 1};
  ck_assert_ptr_null(make(3, names, self, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_BAD_HIERARCHY);
  int32_t out_of_range[3] = {-1, 0, 7};
  ck_assert_ptr_null(make(3, names, out_of_range, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_OUT_OF_RANGE);
  int32_t negative[3] = {-1, 0, -5};
  ck_assert_ptr_null(make(3, names, negative, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_OUT_OF_RANGE);
}
END_TEST

START_TEST(rejects_bad_names_and_matrices) {
  sk_error err;
  sk_result rc;
  int32_t parents[2] = {-1, 0};
  const char* dup[2] = {"hip", "hip"};
  ck_assert_ptr_null(make(2, dup, parents, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(err.message, "hip") != NULL);
  const char* empty[2] = {"hip", ""};
  ck_assert_ptr_null(make(2, empty, parents, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_INVALID_ARGUMENT);
  const char* nul[2] = {"hip", NULL};
  ck_assert_ptr_null(make(2, nul, parents, NULL, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_INVALID_ARGUMENT);

  const char* names[2] = {"hip", "knee"};
  float rest[32];
  skc_mat4_identity(rest);
  skc_mat4_identity(rest + 16);
  rest[17] = NAN;
  ck_assert_ptr_null(make(2, names, parents, rest, &rc, &err));
  ck_assert_int_eq(rc, SK_ERR_INVALID_ARGUMENT);

  /* a singular bind matrix (zero scale) cannot be inverted */
  float bind[32];
  skc_mat4_identity(bind);
  skc_mat4_identity(bind + 16);
  bind[16] = bind[21] = bind[26] = 0.0f;
  sk_skeleton_desc d = {sizeof d, 2, names, parents, NULL, bind, NULL, NULL};
  sk_skeleton* s = NULL;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_ERR_SINGULAR_MATRIX);
  ck_assert(strstr(err.message, "knee") != NULL);
  ck_assert_ptr_null(s);

  uint32_t too_many = SK_MAX_JOINTS + 1;
  sk_skeleton_desc big = {sizeof big, too_many, NULL, parents, NULL, NULL, NULL, NULL};
  ck_assert_int_eq(sk_skeleton_create(&big, &s, &err), SK_ERR_OUT_OF_RANGE);
}
END_TEST

START_TEST(getters_and_lookup) {
  const char* names[3] = {"root", "spine", "head"};
  int32_t parents[3] = {-1, 0, 1};
  float rest[48];
  mat_translate(rest, 0, 0, 0);
  mat_translate(rest + 16, 0, 1, 0);
  mat_translate(rest + 32, 0, 2, 0);
  sk_result rc;
  sk_error err;
  sk_skeleton* s = make(3, names, parents, rest, &rc, &err);
  ck_assert_int_eq(rc, SK_OK);
  ck_assert_uint_eq(sk_skeleton_joint_count(s), 3);
  ck_assert_uint_eq(sk_skeleton_joint_count(NULL), 0);
  ck_assert_str_eq(sk_skeleton_joint_name(s, 2), "head");
  ck_assert_ptr_null(sk_skeleton_joint_name(s, 3));
  ck_assert_int_eq(sk_skeleton_joint_parent(s, 2), 1);
  ck_assert_int_eq(sk_skeleton_joint_parent(s, 0), SK_NO_PARENT);
  ck_assert_int_eq(sk_skeleton_joint_parent(s, 99), SK_NO_PARENT);
  uint32_t j = 99;
  ck_assert_int_eq(sk_skeleton_find_joint(s, "spine", &j), SK_OK);
  ck_assert_uint_eq(j, 1);
  ck_assert_int_eq(sk_skeleton_find_joint(s, "tail", &j), SK_ERR_NOT_FOUND);
  ck_assert_int_eq(sk_skeleton_find_joint(s, NULL, &j), SK_ERR_INVALID_ARGUMENT);

  float world[48], bind[48], ib[48], local[48];
  ck_assert_int_eq(sk_skeleton_get_rest_local(s, local), SK_OK);
  ck_assert_float_eq(local[16 * 2 + 13], 2.0f);
  ck_assert_int_eq(sk_skeleton_get_rest_world(s, world), SK_OK);
  ck_assert_float_eq(world[16 * 2 + 13], 3.0f); /* 1 + 2 */
  ck_assert_int_eq(sk_skeleton_get_bind(s, bind), SK_OK);
  ck_assert_float_le(skc_mat4_max_abs_diff(bind + 32, world + 32), 0.0f); /* B = rest world */
  ck_assert_int_eq(sk_skeleton_get_inverse_bind(s, ib), SK_OK);
  ck_assert_float_eq_tol(ib[32 + 13], -3.0f, 1e-6f);
  ck_assert_int_eq(sk_skeleton_get_bind(NULL, bind), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skeleton_get_bind(s, NULL), SK_ERR_INVALID_ARGUMENT);

  float trs[30];
  ck_assert_int_eq(sk_skeleton_get_rest_trs(s, trs), SK_OK);
  ck_assert_float_eq(trs[10 + 1], 1.0f);  /* t.y of joint 1 */
  ck_assert_float_eq(trs[10 + 6], 1.0f);  /* r.w */
  ck_assert_float_eq(trs[10 + 8], 1.0f);  /* s.y */
  ck_assert_int_eq(sk_skeleton_get_rest_trs(NULL, trs), SK_ERR_INVALID_ARGUMENT);
  sk_skeleton_destroy(s);
}
END_TEST

START_TEST(rest_trs_reports_shear) {
  const char* names[1] = {"sheared"};
  int32_t parents[1] = {-1};
  float rest[16];
  skc_mat4_identity(rest);
  rest[4] = 0.5f; /* x += 0.5 y */
  sk_result rc;
  sk_error err;
  sk_skeleton* s = make(1, names, parents, rest, &rc, &err);
  ck_assert_int_eq(rc, SK_OK);
  float trs[10];
  ck_assert_int_eq(sk_skeleton_get_rest_trs(s, trs), SK_ERR_UNSUPPORTED);
  sk_skeleton_destroy(s);
}
END_TEST

START_TEST(given_inverse_bind_is_kept) {
  const char* names[2] = {"a", "b"};
  int32_t parents[2] = {-1, 0};
  float ib[32];
  mat_translate(ib, 1, 0, 0);
  mat_rot(ib + 16, 0, 0, 1, 0.3f);
  ib[16 + 12] = 2.0f;
  sk_skeleton_desc d = {sizeof d, 2, names, parents, NULL, NULL, ib, NULL};
  sk_skeleton* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_OK);
  float got_ib[32], got_b[32], prod[16], id[16];
  sk_skeleton_get_inverse_bind(s, got_ib);
  sk_skeleton_get_bind(s, got_b);
  ck_assert_float_eq(skc_mat4_max_abs_diff(got_ib + 16, ib + 16), 0.0f);
  skc_mat4_mul(got_b + 16, got_ib + 16, prod);
  skc_mat4_identity(id);
  ck_assert_float_le(skc_mat4_max_abs_diff(prod, id), 1e-6f);
  sk_skeleton_destroy(s);
}
END_TEST

/* Stored bone tails (ABI 1.23): kept per joint (a non-finite point: none), read back by sk_skeleton_get_tails, taken by
 * sk_skeleton_bone_segments in the joint's frame before any rule; a desc of the 1.22 size (no tails field) is still
 * accepted and stores none. */
START_TEST(stored_tails_round_trip) {
  const char* names[3] = {"hip", "leg", "foot"};
  int32_t parents[3] = {-1, 0, 1};
  float rest[48];
  mat_translate(rest, 0, 1, 0);
  mat_rot(rest + 16, 0, 0, 1, 1.5707963f); /* leg turned a quarter about z, 1 unit below the hip */
  rest[16 + 13] = -1.0f;
  mat_translate(rest + 32, 0, 1, 0);
  const float tails[9] = {0, 0.5f, 0, NAN, NAN, NAN, 0, 0.25f, INFINITY};
  sk_skeleton_desc d = {sizeof d, 3, names, parents, rest, NULL, NULL, tails};
  sk_skeleton* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_OK);
  float got[9];
  ck_assert_uint_eq(sk_skeleton_get_tails(s, got), 1); /* the foot's has an infinite coordinate: none */
  ck_assert(got[0] == 0.0f && got[1] == 0.5f && got[2] == 0.0f);
  for (int i = 3; i < 9; ++i) ck_assert(isnan(got[i]));
  float h[9], t[9];
  ck_assert_int_eq(sk_skeleton_bone_segments(s, SK_BONE_SPACE_REST, h, t, &err), SK_OK);
  ck_assert_float_eq_tol(t[0], 0.0f, 1e-6f); /* hip: 0.5 along its +y from (0, 1, 0), not at its child's head */
  ck_assert_float_eq_tol(t[1], 1.5f, 1e-6f);
  ck_assert_float_eq_tol(t[3], h[6], 1e-6f); /* leg: its only child's head, by the rule */
  ck_assert_float_eq_tol(t[4], h[7], 1e-6f);
  sk_skeleton_destroy(s);
  d.size = offsetof(sk_skeleton_desc, tails); /* a 1.22 caller */
  ck_assert_int_eq(sk_skeleton_create(&d, &s, &err), SK_OK);
  ck_assert_uint_eq(sk_skeleton_get_tails(s, NULL), 0);
  sk_skeleton_destroy(s);
  ck_assert_uint_eq(sk_skeleton_get_tails(NULL, got), 0);
}
END_TEST

/* ------------------------------------------------------------------------------------------ hierarchy */

START_TEST(hierarchy_order_sorts_parents_first) {
  /* 0 <- 3, 3 <- 1, 1 <- 2, 4 root, 5 <- 4 */
  int32_t parents[6] = {3, 2, -1, 1, -1, 4};
  uint32_t order[6];
  sk_error err;
  ck_assert_int_eq(sk_hierarchy_order(parents, 6, order, &err), SK_OK);
  int pos[6];
  for (int k = 0; k < 6; ++k) pos[order[k]] = k;
  for (int j = 0; j < 6; ++j)
    if (parents[j] >= 0) ck_assert_int_lt(pos[parents[j]], pos[j]);
  int seen[6] = {0};
  for (int k = 0; k < 6; ++k) seen[order[k]]++;
  for (int j = 0; j < 6; ++j) ck_assert_int_eq(seen[j], 1);

  int32_t cyc[4] = {-1, 2, 3, 1};
  ck_assert_int_eq(sk_hierarchy_order(cyc, 4, order, &err), SK_ERR_BAD_HIERARCHY);
  int32_t oob[2] = {-1, 9};
  ck_assert_int_eq(sk_hierarchy_order(oob, 2, order, &err), SK_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(sk_hierarchy_order(NULL, 2, order, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_hierarchy_order(oob, 0, order, &err), SK_ERR_OUT_OF_RANGE);
}
END_TEST

/* ------------------------------------------------------------------------------------------ FK + palette */

START_TEST(forward_kinematics_chain) {
  const char* names[2] = {"upper", "lower"};
  int32_t parents[2] = {-1, 0};
  float rest[32];
  mat_translate(rest, 0, 0, 0);
  mat_translate(rest + 16, 1, 0, 0);
  sk_result rc;
  sk_error err;
  sk_skeleton* s = make(2, names, parents, rest, &rc, &err);
  /* rotate the root 90 degrees about z: the child's origin moves from (1,0,0) to (0,1,0) */
  float trs[20] = {0, 0, 0, 0, 0, sinf(0.785398163f), cosf(0.785398163f), 1, 1, 1,
                   1, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  float local[32], world[32], root[16];
  ck_assert_int_eq(sk_pose_local_from_trs(trs, 2, local, &err), SK_OK);
  ck_assert_int_eq(sk_skeleton_world(s, local, NULL, world, &err), SK_OK);
  ck_assert_float_eq_tol(world[16 + 12], 0.0f, 1e-6f);
  ck_assert_float_eq_tol(world[16 + 13], 1.0f, 1e-6f);
  mat_translate(root, 0, 0, 5);
  ck_assert_int_eq(sk_skeleton_world(s, local, root, world, &err), SK_OK);
  ck_assert_float_eq_tol(world[16 + 14], 5.0f, 1e-6f);
  ck_assert_int_eq(sk_skeleton_world(s, local, NULL, local, &err), SK_ERR_INVALID_ARGUMENT); /* overlap */
  ck_assert_int_eq(sk_skeleton_world(s, NULL, NULL, world, &err), SK_ERR_INVALID_ARGUMENT);

  float palette[32], id[16];
  skc_mat4_identity(id);
  ck_assert_int_eq(sk_skeleton_palette_from_trs(s, NULL, NULL, palette, &err), SK_OK);
  ck_assert_float_le(skc_mat4_max_abs_diff(palette, id), 1e-6f);
  ck_assert_float_le(skc_mat4_max_abs_diff(palette + 16, id), 1e-6f);
  /* palette aliasing world is allowed */
  sk_skeleton_world(s, local, NULL, world, &err);
  ck_assert_int_eq(sk_palette_compute(s, world, NULL, world, &err), SK_OK);
  float p[3] = {1.5f, 0, 0}, q[3];
  skc_mat4_transform_point(world + 16, p, q); /* a point on the lower bone follows the rotation */
  ck_assert_float_eq_tol(q[0], 0.0f, 1e-6f);
  ck_assert_float_eq_tol(q[1], 1.5f, 1e-6f);
  ck_assert_int_eq(sk_palette_compute(NULL, world, NULL, world, &err), SK_ERR_INVALID_ARGUMENT);

  trs[3] = NAN;
  ck_assert_int_eq(sk_pose_local_from_trs(trs, 2, local, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skeleton_palette_from_trs(s, trs, NULL, palette, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_pose_local_from_trs(NULL, 2, local, &err), SK_ERR_INVALID_ARGUMENT);
  /* a zero quaternion counts as identity */
  float zero_q[10] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
  ck_assert_int_eq(sk_pose_local_from_trs(zero_q, 1, local, &err), SK_OK);
  ck_assert_float_le(skc_mat4_max_abs_diff(local, id), 0.0f);
  sk_skeleton_destroy(s);
}
END_TEST

/* Seed 001 (Lewis, "Skinning math tutorial"): three bones, rest locals I, T1, T2; animated locals R1, T1 R2,
 * T2 R3. A vertex p attached to bone 1 moves to b = R1 T1 R2 T1^-1 p by bone 2 and c = R1 T1 R2 T2 R3 T2^-1
 * T1^-1 p by bone 3; blended p_w = w1 p' + w2 b + w3 c. The palette form M_j = W_j B_j^-1 (seed 000 eq. 3.4)
 * with B_j = W^R_j must give exactly the W^A W^R^-1 matrices, and sk_deform_run the blend. */
START_TEST(seed001_three_bone_example) {
  float R1[16], R2[16], R3[16], T1[16], T2[16], I[16];
  mat_rot(R1, 0, 0, 1, 0.4f);
  mat_rot(R2, 0, 1, 0, -0.7f);
  mat_rot(R3, 1, 0, 0, 1.1f);
  mat_translate(T1, 2, 0, 0);
  mat_translate(T2, 0, 1.5f, 0.5f);
  skc_mat4_identity(I);
  const char* names[3] = {"bone1", "bone2", "bone3"};
  int32_t parents[3] = {-1, 0, 1};
  float rest[48];
  memcpy(rest, I, sizeof I);
  memcpy(rest + 16, T1, sizeof T1);
  memcpy(rest + 32, T2, sizeof T2);
  sk_result rc;
  sk_error err;
  sk_skeleton* s = make(3, names, parents, rest, &rc, &err);
  ck_assert_int_eq(rc, SK_OK);

  float local[48], world[48], palette[48];
  memcpy(local, R1, sizeof R1);
  skc_mat4_mul(T1, R2, local + 16);
  skc_mat4_mul(T2, R3, local + 32);
  ck_assert_int_eq(sk_skeleton_world(s, local, NULL, world, &err), SK_OK);
  ck_assert_int_eq(sk_palette_compute(s, world, NULL, palette, &err), SK_OK);

  /* seed 001's matrices, built independently */
  float WA2[16], WA3[16], t[16], WR3[16], WR3inv[16], T1inv[16], M2[16], M3[16];
  skc_mat4_mul(R1, T1, t);
  skc_mat4_mul(t, R2, WA2);
  skc_mat4_mul(WA2, T2, t);
  skc_mat4_mul(t, R3, WA3);
  skc_mat4_mul(T1, T2, WR3);
  ck_assert(skc_mat4_inverse(WR3, WR3inv));
  ck_assert(skc_mat4_inverse(T1, T1inv));
  skc_mat4_mul(WA2, T1inv, M2);
  skc_mat4_mul(WA3, WR3inv, M3);
  ck_assert_float_le(skc_mat4_max_abs_diff(palette, R1), 1e-6f);
  ck_assert_float_le(skc_mat4_max_abs_diff(palette + 16, M2), 1e-5f);
  ck_assert_float_le(skc_mat4_max_abs_diff(palette + 32, M3), 1e-5f);

  /* the blended vertex */
  float p[3] = {0.8f, 0.3f, -0.2f}, pa[3], b[3], c[3], expect[3], got[3];
  float w[3] = {0.5f, 0.3f, 0.2f};
  skc_mat4_transform_point(R1, p, pa);
  skc_mat4_transform_point(M2, p, b);
  skc_mat4_transform_point(M3, p, c);
  for (int i = 0; i < 3; ++i) expect[i] = w[0] * pa[i] + w[1] * b[i] + w[2] * c[i];
  uint16_t joints[3] = {0, 1, 2};
  sk_deform_job job;
  memset(&job, 0, sizeof job);
  job.size = sizeof job;
  job.method = SK_DEFORM_LBS;
  job.vertex_count = 1;
  job.palette = palette;
  job.joint_count = 3;
  job.influences = 3;
  job.joint_type = SK_TYPE_U16;
  job.weight_type = SK_TYPE_F32;
  job.joints = joints;
  job.weights = w;
  job.in_positions = p;
  job.out_positions = got;
  ck_assert_int_eq(sk_deform_run(&job, &err), SK_OK);
  ck_assert_float_le(max_diff3(got, expect), 1e-5f);
  sk_skeleton_destroy(s);
}
END_TEST

/* Bind matrices given explicitly (a skin bound in another pose) give M = W * B^-1 with that B. */
START_TEST(palette_with_skin_inverse_bind) {
  const char* names[1] = {"j"};
  int32_t parents[1] = {-1};
  sk_result rc;
  sk_error err;
  sk_skeleton* s = make(1, names, parents, NULL, &rc, &err);
  float ib[16], world[16], pal[16];
  mat_translate(ib, -1, 0, 0);
  mat_translate(world, 3, 0, 0);
  ck_assert_int_eq(sk_palette_compute(s, world, ib, pal, &err), SK_OK);
  ck_assert_float_eq(pal[12], 2.0f);
  sk_skeleton_destroy(s);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("skeleton");
  TCase* v = tcase_create("validity");
  tcase_add_test(v, default_desc_is_invalid);
  tcase_add_test(v, rejects_bad_hierarchies);
  tcase_add_test(v, rejects_bad_names_and_matrices);
  tcase_add_test(v, getters_and_lookup);
  tcase_add_test(v, rest_trs_reports_shear);
  tcase_add_test(v, given_inverse_bind_is_kept);
  tcase_add_test(v, hierarchy_order_sorts_parents_first);
  suite_add_tcase(s, v);
  TCase* r = tcase_create("result");
  tcase_add_test(r, forward_kinematics_chain);
  tcase_add_test(r, seed001_three_bone_example);
  tcase_add_test(r, palette_with_skin_inverse_bind);
  tcase_add_test(r, stored_tails_round_trip);
  suite_add_tcase(s, r);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
