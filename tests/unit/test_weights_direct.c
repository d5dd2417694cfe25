/* test_weights_direct.c - sk_weights_direct (Mohr, Tokheim, Gleicher 2002) and the simplex-constrained least
 * squares behind it: reachable targets recover the weights, unreachable ones leave the analytic distance,
 * several poses at once, locked joints, error paths. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skc_transfer.h"
#include "skinkit.h"

/* column-major 4x4 */
static void ident(float* m) {
  memset(m, 0, 16 * sizeof *m);
  m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void translate(float* m, float x, float y, float z) {
  ident(m);
  m[12] = x;
  m[13] = y;
  m[14] = z;
}

/* rotation about z by angle a, then translation */
static void rot_z(float* m, float a, float x, float y, float z) {
  translate(m, x, y, z);
  m[0] = cosf(a);
  m[1] = sinf(a);
  m[4] = -sinf(a);
  m[5] = cosf(a);
}

static void apply(const float* m, const float p[3], double out[3]) {
  for (int r = 0; r < 3; ++r) out[r] = (double)m[r] * p[0] + (double)m[4 + r] * p[1] + (double)m[8 + r] * p[2] + m[12 + r];
}

static float wof(const sk_skin* s, size_t v, uint32_t j) {
  uint32_t jj[64];
  float ww[64];
  size_t n = sk_skin_get_vertex(s, v, jj, ww, 64);
  float sum = 0.0f;
  for (size_t i = 0; i < n && i < 64; ++i)
    if (jj[i] == j) sum += ww[i];
  return sum;
}

static float fsum(const sk_skin* s, size_t v) {
  uint32_t jj[64];
  float ww[64];
  size_t n = sk_skin_get_vertex(s, v, jj, ww, 64);
  float sum = 0.0f;
  for (size_t i = 0; i < n && i < 64; ++i) sum += ww[i];
  return sum;
}

static sk_skin* skin_with(size_t V, uint32_t J, size_t v, const uint32_t* j, const float* w, size_t n) {
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(V, J, &s, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_set_vertex(s, v, j, w, n, NULL), SK_OK);
  return s;
}

static const float P[3] = {0.3f, -0.2f, 0.5f};

/* palette of 5 joints: identity and translations along x, y, z, and (x + y + z) */
static void palette5(float* pal) {
  ident(pal);
  translate(pal + 16, 1, 0, 0);
  translate(pal + 32, 0, 1, 0);
  translate(pal + 48, 0, 0, 1);
  translate(pal + 64, 1, 1, 1);
}

START_TEST(test_direct_reachable_target_recovers_weights) {
  float pal[5 * 16];
  palette5(pal);
  const float wt[4] = {0.1f, 0.2f, 0.3f, 0.4f};
  /* target = sum w_j M_j p = p + (0.2, 0.3, 0.4) */
  float target[3] = {P[0] + 0.2f, P[1] + 0.3f, P[2] + 0.4f};
  sk_skin* s = skin_with(3, 5, 1, (uint32_t[]){0, 1, 2, 3}, (float[]){0.25f, 0.25f, 0.25f, 0.25f}, 4);
  float achieved[3];
  sk_direct_desc d = {.size = sizeof d, .vertex = 1, .rest_position = P, .palettes = pal, .targets = target};
  sk_direct_report r = {.size = sizeof r, .achieved = achieved};
  sk_error e;
  ck_assert_msg(sk_weights_direct(s, &d, &r, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(r.candidates_used, 4);
  ck_assert_uint_eq(r.nonzero, 4);
  ck_assert_double_lt(r.residual, 1e-5);
  for (uint32_t j = 0; j < 4; ++j) ck_assert_float_eq_tol(wof(s, 1, j), wt[j], 1e-5f);
  ck_assert_float_eq_tol(fsum(s, 1), 1.0f, 1e-7f);
  for (int k = 0; k < 3; ++k) ck_assert_float_eq_tol(achieved[k], target[k], 1e-5f);
  ck_assert_uint_eq(sk_skin_get_vertex(s, 0, NULL, NULL, 0), 0); /* other vertices untouched */
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_direct_off_subspace_residual_is_analytic_distance) {
  float pal[5 * 16];
  palette5(pal);
  /* candidates 0, 1, 2: reachable set = triangle p, p + x, p + y. */
  sk_skin* s = skin_with(1, 5, 0, (uint32_t[]){0, 1, 2, 4}, (float[]){0.4f, 0.3f, 0.2f, 0.1f}, 4);
  /* 1) above the interior: distance = height, weights = barycentrics of the projection */
  float t1[3] = {P[0] + 0.2f, P[1] + 0.3f, P[2] + 0.7f};
  sk_direct_desc d = {.size = sizeof d,
                      .vertex = 0,
                      .rest_position = P,
                      .palettes = pal,
                      .targets = t1,
                      .candidates = (uint32_t[]){0, 1, 2},
                      .candidate_count = 3};
  sk_direct_report r = {.size = sizeof r};
  sk_error e;
  ck_assert_msg(sk_weights_direct(s, &d, &r, &e) == SK_OK, "%s", e.message);
  ck_assert_double_eq_tol(r.residual, 0.7, 1e-5);
  ck_assert_float_eq_tol(wof(s, 0, 0), 0.5f, 1e-5f);
  ck_assert_float_eq_tol(wof(s, 0, 1), 0.2f, 1e-5f);
  ck_assert_float_eq_tol(wof(s, 0, 2), 0.3f, 1e-5f);
  ck_assert_float_eq(wof(s, 0, 4), 0.0f); /* a non-candidate unlocked joint is removed */
  /* 2) projection outside the triangle (beyond the hypotenuse): nearest point (0.5, 0.5), weights stay >= 0 */
  float t2[3] = {P[0] + 0.8f, P[1] + 0.8f, P[2] + 0.5f};
  d.targets = t2;
  ck_assert_msg(sk_weights_direct(s, &d, &r, &e) == SK_OK, "%s", e.message);
  ck_assert_double_eq_tol(r.residual, sqrt(0.3 * 0.3 * 2 + 0.25), 1e-5);
  ck_assert_float_eq_tol(wof(s, 0, 0), 0.0f, 1e-6f);
  ck_assert_float_eq_tol(wof(s, 0, 1), 0.5f, 1e-5f);
  ck_assert_float_eq_tol(wof(s, 0, 2), 0.5f, 1e-5f);
  ck_assert_uint_eq(r.nonzero, 2);
  /* 3) beyond a corner: everything on joint 1, distance to p + x */
  float t3[3] = {P[0] + 2.0f, P[1] - 1.0f, P[2]};
  d.targets = t3;
  ck_assert_msg(sk_weights_direct(s, &d, &r, &e) == SK_OK, "%s", e.message);
  ck_assert_double_eq_tol(r.residual, sqrt(2.0), 1e-5);
  ck_assert_float_eq(wof(s, 0, 1), 1.0f);
  ck_assert_uint_eq(sk_skin_get_vertex(s, 0, NULL, NULL, 0), 1);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_direct_multi_pose_least_squares) {
  /* 5 candidates in one pose are affinely dependent (points in 3-d); two different poses pin the weights down */
  enum { J = 5, POSES = 2 };
  float pal[POSES * J * 16];
  palette5(pal);
  rot_z(pal + 80, 0.0f, 0, 0, 0);
  rot_z(pal + 96, 0.7f, 0.2f, 0, 0);
  rot_z(pal + 112, -0.4f, 0, 0.5f, 0.1f);
  rot_z(pal + 128, 1.2f, 0, 0, -0.3f);
  rot_z(pal + 144, 2.0f, 0.4f, 0.1f, 0);
  const float wt[J] = {0.05f, 0.15f, 0.2f, 0.25f, 0.35f};
  float targets[3 * POSES];
  for (int k = 0; k < POSES; ++k) {
    double acc[3] = {0, 0, 0};
    for (int j = 0; j < J; ++j) {
      double q[3];
      apply(pal + 16 * (J * k + j), P, q);
      for (int c = 0; c < 3; ++c) acc[c] += wt[j] * q[c];
    }
    for (int c = 0; c < 3; ++c) targets[3 * k + c] = (float)acc[c];
  }
  sk_skin* s = skin_with(2, J, 1, (uint32_t[]){0, 1, 2, 3, 4}, (float[]){0.2f, 0.2f, 0.2f, 0.2f, 0.2f}, 5);
  float achieved[3 * POSES];
  sk_direct_desc d = {.size = sizeof d, .pose_count = POSES, .vertex = 1, .rest_position = P, .palettes = pal,
                      .targets = targets};
  sk_direct_report r = {.size = sizeof r, .achieved = achieved};
  sk_error e;
  ck_assert_msg(sk_weights_direct(s, &d, &r, &e) == SK_OK, "%s", e.message);
  ck_assert_double_lt(r.residual, 1e-4);
  for (uint32_t j = 0; j < J; ++j) ck_assert_float_eq_tol(wof(s, 1, j), wt[j], 1e-3f);
  for (int i = 0; i < 3 * POSES; ++i) ck_assert_float_eq_tol(achieved[i], targets[i], 1e-4f);
  /* a target pair no weights reach: the residual is the least-squares distance, >= each pose's own optimum */
  targets[2] += 1.0f;
  ck_assert_msg(sk_weights_direct(s, &d, &r, &e) == SK_OK, "%s", e.message);
  ck_assert_double_gt(r.residual, 0.1);
  ck_assert_double_le(r.max_distance, r.residual + 1e-9);
  ck_assert_float_eq_tol(fsum(s, 1), 1.0f, 1e-6f);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_direct_locked_joint_keeps_weight) {
  float pal[5 * 16];
  palette5(pal);
  /* joint 3 locked at 0.4; candidates 1 and 2 share 0.6: target = 0.4 (p + z) + 0.6 (0.25 (p + x) + 0.75 (p + y)) */
  sk_skin* s = skin_with(1, 5, 0, (uint32_t[]){3, 1, 2}, (float[]){0.4f, 0.3f, 0.3f}, 3);
  float target[3] = {P[0] + 0.15f, P[1] + 0.45f, P[2] + 0.4f};
  uint8_t locked[5] = {0, 0, 0, 1, 0};
  sk_direct_desc d = {.size = sizeof d, .rest_position = P, .palettes = pal, .targets = target};
  d.scope.locked_joints = locked;
  d.scope.locked_joint_count = 5;
  sk_direct_report r = {.size = sizeof r};
  sk_error e;
  ck_assert_msg(sk_weights_direct(s, &d, &r, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(r.candidates_used, 2);
  ck_assert_float_eq(wof(s, 0, 3), 0.4f);
  ck_assert_float_eq_tol(wof(s, 0, 1), 0.15f, 1e-5f);
  ck_assert_float_eq_tol(wof(s, 0, 2), 0.45f, 1e-5f);
  ck_assert_double_lt(r.residual, 1e-5);
  ck_assert_float_eq_tol(fsum(s, 0), 1.0f, 1e-7f);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_direct_errors_leave_weights) {
  float pal[5 * 16];
  palette5(pal);
  float target[3] = {0.5f, 0.5f, 0.5f};
  sk_skin* s = skin_with(3, 5, 0, (uint32_t[]){0, 1}, (float[]){0.6f, 0.4f}, 2);
  sk_direct_desc d = {.size = sizeof d, .rest_position = P, .palettes = pal, .targets = target};
  sk_direct_report r = {.size = sizeof r, .residual = -7.0};
  sk_error e;
  d.vertex = 3;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_OUT_OF_RANGE);
  d.vertex = 0;
  target[1] = NAN;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  target[1] = 0.5f;
  pal[17] = INFINITY;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  pal[17] = 0.0f;
  d.candidates = (uint32_t[]){0, 9};
  d.candidate_count = 2;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_OUT_OF_RANGE);
  d.candidate_count = 0;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d.candidates = NULL;
  d.vertex = 2; /* no influences and no list: nothing to solve for */
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(e.message, "candidate") != NULL);
  d.vertex = 0;
  uint8_t locked[5] = {1, 1, 0, 0, 0}; /* every current joint locked */
  d.scope.locked_joints = locked;
  d.scope.locked_joint_count = 5;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d.scope.locked_joint_count = 4;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d.scope.locked_joints = NULL;
  d.scope.locked_joint_count = 0;
  uint8_t mask[3] = {0, 1, 1};
  d.scope.vertex_mask = mask;
  d.scope.vertex_mask_count = 3;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d.scope.vertex_mask = NULL;
  d.scope.vertex_mask_count = 0;
  d.rest_position = NULL;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d.rest_position = P;
  d.size = 4;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_STRUCT_SIZE);
  d.size = sizeof d;
  r.size = 3;
  ck_assert_int_eq(sk_weights_direct(s, &d, &r, &e), SK_ERR_STRUCT_SIZE);
  r.size = sizeof r;
  ck_assert_int_eq(sk_weights_direct(NULL, &d, &r, &e), SK_ERR_INVALID_ARGUMENT);
  /* untouched */
  ck_assert_uint_eq(sk_skin_get_vertex(s, 0, NULL, NULL, 0), 2);
  ck_assert_float_eq(wof(s, 0, 0), 0.6f);
  ck_assert_float_eq(wof(s, 0, 1), 0.4f);
  ck_assert_double_eq(r.residual, -7.0);
  sk_skin_destroy(s);
}
END_TEST

/* Exact optimum by enumerating supports (every KKT point of a subset, kept if feasible; the problem is convex). */
static double brute(const double* A, size_t m, size_t n, const double* b, double* best_x) {
  double best = INFINITY;
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    size_t idx[8], k = 0;
    for (size_t i = 0; i < n; ++i)
      if (mask & (1u << i)) idx[k++] = i;
    /* minimize |A_S x - b|^2, sum x = 1: KKT [2 A^T A, 1; 1^T, 0] */
    double K[9 * 9] = {0}, r[9] = {0};
    size_t dim = k + 1;
    for (size_t i = 0; i < k; ++i) {
      for (size_t j = 0; j < k; ++j)
        for (size_t row = 0; row < m; ++row) K[i * dim + j] += A[row * n + idx[i]] * A[row * n + idx[j]];
      for (size_t row = 0; row < m; ++row) r[i] += A[row * n + idx[i]] * b[row];
      K[i * dim + k] = K[k * dim + i] = 1.0;
    }
    r[k] = 1.0;
    /* Gaussian elimination, skip singular subsets */
    bool ok = true;
    for (size_t c = 0; c < dim && ok; ++c) {
      size_t piv = c;
      for (size_t i = c + 1; i < dim; ++i)
        if (fabs(K[i * dim + c]) > fabs(K[piv * dim + c])) piv = i;
      if (fabs(K[piv * dim + c]) < 1e-12) {
        ok = false;
        break;
      }
      for (size_t j = 0; j < dim; ++j) {
        double t = K[c * dim + j];
        K[c * dim + j] = K[piv * dim + j];
        K[piv * dim + j] = t;
      }
      double t = r[c];
      r[c] = r[piv];
      r[piv] = t;
      for (size_t i = 0; i < dim; ++i) {
        if (i == c) continue;
        double f = K[i * dim + c] / K[c * dim + c];
        for (size_t j = 0; j < dim; ++j) K[i * dim + j] -= f * K[c * dim + j];
        r[i] -= f * r[c];
      }
    }
    if (!ok) continue;
    double x[8] = {0};
    for (size_t i = 0; i < k; ++i) {
      x[idx[i]] = r[i] / K[i * dim + i];
      if (x[idx[i]] < -1e-12) ok = false;
    }
    if (!ok) continue;
    double f = 0.0;
    for (size_t row = 0; row < m; ++row) {
      double s = -b[row];
      for (size_t i = 0; i < n; ++i) s += A[row * n + i] * x[i];
      f += s * s;
    }
    if (f < best) {
      best = f;
      memcpy(best_x, x, n * sizeof *x);
    }
  }
  return best;
}

START_TEST(test_simplex_lsq_matches_enumeration) {
  skt_rng rng = {777};
  for (int trial = 0; trial < 300; ++trial) {
    size_t n = 2 + skt_rand_u32(&rng) % 4; /* 2..5 */
    size_t m = 3 * (1 + skt_rand_u32(&rng) % 2);
    if (m < n) m = 6; /* full column rank so the optimum is unique */
    double A[6 * 8], b[6], x[8], xb[8];
    for (size_t i = 0; i < m * n; ++i) A[i] = skt_rand_range(&rng, -1.0f, 1.0f);
    for (size_t i = 0; i < m; ++i) b[i] = skt_rand_range(&rng, -1.5f, 1.5f);
    ck_assert(skc_simplex_lsq(A, m, n, b, 1.0, NULL, 0.0, x));
    double fb = brute(A, m, n, b, xb);
    double f = 0.0, sum = 0.0;
    for (size_t row = 0; row < m; ++row) {
      double s = -b[row];
      for (size_t i = 0; i < n; ++i) s += A[row * n + i] * x[i];
      f += s * s;
    }
    for (size_t i = 0; i < n; ++i) {
      ck_assert(x[i] >= 0.0);
      sum += x[i];
      ck_assert_double_eq_tol(x[i], xb[i], 1e-6);
    }
    ck_assert_double_eq_tol(sum, 1.0, 1e-12);
    ck_assert_double_eq_tol(f, fb, 1e-9);
  }
  double A[3] = {1, 2, 3}, b[1] = {0}, x[3];
  ck_assert(!skc_simplex_lsq(A, 1, 0, b, 1.0, NULL, 0.0, x));
  ck_assert(!skc_simplex_lsq(A, 1, 65, b, 1.0, NULL, 0.0, x));
}
END_TEST

static Suite* direct_suite(void) {
  Suite* s = suite_create("weights_direct");
  TCase* tc = tcase_create("result");
  tcase_add_test(tc, test_direct_reachable_target_recovers_weights);
  tcase_add_test(tc, test_direct_off_subspace_residual_is_analytic_distance);
  tcase_add_test(tc, test_direct_multi_pose_least_squares);
  tcase_add_test(tc, test_direct_locked_joint_keeps_weight);
  tcase_add_test(tc, test_simplex_lsq_matches_enumeration);
  suite_add_tcase(s, tc);
  TCase* tv = tcase_create("validity");
  tcase_add_test(tv, test_direct_errors_leave_weights);
  suite_add_tcase(s, tv);
  return s;
}

int main(void) { return skt_run_suite(direct_suite()); }
