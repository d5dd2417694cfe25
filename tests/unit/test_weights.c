/* test_weights.c - weight editing operations (normalize, limit, prune, quantize, smooth, rogue removal, mirror),
 * mesh adjacency and the k-d tree, on hand-made meshes (strip, grid, cylinder) and on the corpus. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "sk_testutil.h"
#include "skc_weights.h"
#include "skinkit.h"

/* ------------------------------------------------------------------------------------------ helpers */

static sk_skin* make_skin(size_t V, uint32_t J, const uint32_t* off, const uint32_t* jt, const float* wt) {
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(V, J, &s, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(s, off, jt, wt, NULL), SK_OK);
  return s;
}

static size_t vget(const sk_skin* s, size_t v, uint32_t* j, float* w) { return sk_skin_get_vertex(s, v, j, w, 64); }

/* weight of joint j at vertex v (0 if absent) */
static float wof(const sk_skin* s, size_t v, uint32_t j) {
  uint32_t jj[64];
  float ww[64];
  size_t n = vget(s, v, jj, ww);
  float sum = 0.0f;
  for (size_t i = 0; i < n && i < 64; ++i)
    if (jj[i] == j) sum += ww[i];
  return sum;
}

static double vsum(const sk_skin* s, size_t v) {
  uint32_t jj[64];
  float ww[64];
  size_t n = vget(s, v, jj, ww);
  double sum = 0.0;
  for (size_t i = 0; i < n && i < 64; ++i) sum += ww[i];
  return sum;
}

/* snapshot of the CSR to prove "untouched" */
typedef struct snap {
  size_t V, N;
  uint32_t *off, *j;
  float* w;
} snap;

static snap take(const sk_skin* s) {
  snap x;
  x.V = sk_skin_vertex_count(s);
  x.N = sk_skin_influence_count(s);
  x.off = malloc((x.V + 1) * sizeof *x.off);
  x.j = malloc((x.N + 1) * sizeof *x.j);
  x.w = malloc((x.N + 1) * sizeof *x.w);
  ck_assert_int_eq(sk_skin_get_csr(s, x.off, x.j, x.w, NULL), SK_OK);
  return x;
}

static int same(const snap* a, const sk_skin* s) {
  snap b = take(s);
  int eq = a->V == b.V && a->N == b.N && !memcmp(a->off, b.off, (a->V + 1) * sizeof *a->off) &&
           !memcmp(a->j, b.j, a->N * sizeof *a->j) && !memcmp(a->w, b.w, a->N * sizeof *a->w);
  free(b.off);
  free(b.j);
  free(b.w);
  return eq;
}

static void drop(snap* x) {
  free(x->off);
  free(x->j);
  free(x->w);
}

/* nx x ny grid in the XY plane from (x0, 0), spacing 1; two triangles per cell */
typedef struct mesh {
  size_t V, T;
  float* pos;
  uint32_t* tri;
} mesh;

static mesh make_grid(size_t nx, size_t ny, float x0) {
  mesh m;
  m.V = nx * ny;
  m.T = 2 * (nx - 1) * (ny - 1);
  m.pos = malloc(3 * m.V * sizeof *m.pos);
  m.tri = malloc(3 * (m.T ? m.T : 1) * sizeof *m.tri);
  for (size_t y = 0; y < ny; ++y)
    for (size_t x = 0; x < nx; ++x) {
      float* p = m.pos + 3 * (y * nx + x);
      p[0] = x0 + (float)x;
      p[1] = (float)y;
      p[2] = 0.0f;
    }
  size_t t = 0;
  for (size_t y = 0; y + 1 < ny; ++y)
    for (size_t x = 0; x + 1 < nx; ++x) {
      uint32_t a = (uint32_t)(y * nx + x), b = a + 1, c = (uint32_t)(a + nx), d = c + 1;
      uint32_t* q = m.tri + 3 * t;
      q[0] = a, q[1] = b, q[2] = d, q[3] = a, q[4] = d, q[5] = c;
      t += 2;
    }
  return m;
}

/* open cylinder along Y: rings x seg vertices, radius 1 */
static mesh make_cylinder(size_t rings, size_t seg) {
  mesh m;
  m.V = rings * seg;
  m.T = 2 * (rings - 1) * seg;
  m.pos = malloc(3 * m.V * sizeof *m.pos);
  m.tri = malloc(3 * m.T * sizeof *m.tri);
  for (size_t r = 0; r < rings; ++r)
    for (size_t k = 0; k < seg; ++k) {
      float a = (float)(6.283185307179586 * (double)k / (double)seg);
      float* p = m.pos + 3 * (r * seg + k);
      p[0] = cosf(a), p[1] = (float)r * 0.25f, p[2] = sinf(a);
    }
  size_t t = 0;
  for (size_t r = 0; r + 1 < rings; ++r)
    for (size_t k = 0; k < seg; ++k) {
      uint32_t a = (uint32_t)(r * seg + k), b = (uint32_t)(r * seg + (k + 1) % seg), c = (uint32_t)(a + seg),
               d = (uint32_t)(b + seg);
      uint32_t* q = m.tri + 3 * t;
      q[0] = a, q[1] = b, q[2] = d, q[3] = a, q[4] = d, q[5] = c;
      t += 2;
    }
  return m;
}

static void mesh_free(mesh* m) {
  free(m->pos);
  free(m->tri);
}

/* skin with 1 or 2 influences from a per-vertex function: joint a with weight wa, joint b with 1 - wa */
static sk_skin* skin_two(size_t V, uint32_t J, const uint32_t* ja, const uint32_t* jb, const float* wa) {
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* jt = malloc(2 * V * sizeof *jt);
  float* wt = malloc(2 * V * sizeof *wt);
  size_t n = 0;
  off[0] = 0;
  for (size_t v = 0; v < V; ++v) {
    jt[n] = ja[v], wt[n] = wa[v], ++n;
    if (wa[v] < 1.0f) jt[n] = jb[v], wt[n] = 1.0f - wa[v], ++n;
    off[v + 1] = (uint32_t)n;
  }
  sk_skin* s = make_skin(V, J, off, jt, wt);
  free(off);
  free(jt);
  free(wt);
  return s;
}

static sk_weights_report new_report(uint8_t* flags, uint32_t* jc) {
  sk_weights_report r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  r.vertex_flags = flags;
  r.joint_counts = jc;
  return r;
}

/* ------------------------------------------------------------------------------------------ normalize */

START_TEST(test_normalize_scales_to_one) {
  uint32_t off[] = {0, 2, 3, 3};
  uint32_t jt[] = {0, 1, 2};
  float wt[] = {0.2f, 0.6f, 1.0f};
  sk_skin* s = make_skin(3, 3, off, jt, wt);
  sk_normalize_desc d = {.size = sizeof d};
  uint8_t flags[3];
  sk_weights_report r = new_report(flags, NULL);
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
  ck_assert_float_eq_tol(wof(s, 0, 0), 0.25f, 1e-6f);
  ck_assert_float_eq_tol(wof(s, 0, 1), 0.75f, 1e-6f);
  ck_assert_float_eq(wof(s, 1, 2), 1.0f);
  ck_assert_uint_eq(r.vertices_visited, 3);
  ck_assert_uint_eq(r.vertices_changed, 1);
  ck_assert_uint_eq(r.vertices_failed, 1); /* vertex 2: no influence */
  ck_assert_uint_eq(flags[0], SK_WFLAG_CHANGED);
  ck_assert_uint_eq(flags[1], 0);
  ck_assert_uint_eq(flags[2], SK_WFLAG_FAILED | SK_WFLAG_UNWEIGHTED);
  sk_skin_destroy(s);
}
END_TEST

/* Weights that sum to 1 up to float rounding are normalized already: left bit for bit, not counted (CesiumMan_subdiv2
 * vertex 0, sum 1 + 1 ulp, was rescaled and "changed"); normalizing twice changes nothing the second time (it
 * moved 25,305, then 1,119, then 540 of subdiv2's vertices by a bit); prune without a cut changes nothing. */
START_TEST(test_normalize_is_idempotent) {
  uint32_t off[] = {0, 4, 7};
  uint32_t jt[] = {1, 0, 2, 3, 0, 1, 2};
  float wt[] = {
      0.645161509513855f, 0.17160890996456146f, 0.13225102424621582f, 0.05097859352827072f, 0.3f, 0.31f, 0.33f};
  sk_skin* s = make_skin(2, 4, off, jt, wt);
  const float v0[4] = {wt[0], wt[1], wt[2], wt[3]};
  sk_normalize_desc d = {.size = sizeof d};
  sk_weights_report r = new_report(NULL, NULL);
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.vertices_changed, 1); /* vertex 1 only (sum 0.94) */
  for (uint32_t k = 0; k < 4; ++k) ck_assert(wof(s, 0, jt[k]) == v0[k]);
  const float v1[3] = {wof(s, 1, 0), wof(s, 1, 1), wof(s, 1, 2)};
  ck_assert_float_eq_tol(v1[0] + v1[1] + v1[2], 1.0f, 1e-6f);
  for (int pass = 0; pass < 3; ++pass) {
    r = new_report(NULL, NULL);
    ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
    ck_assert_uint_eq(r.vertices_changed, 0);
    for (uint32_t j = 0; j < 3; ++j) ck_assert(wof(s, 1, j) == v1[j]);
  }
  sk_prune_desc p = {.size = sizeof p, .threshold = 1e-4f, .flags = SK_PRUNE_NORMALIZE};
  r = new_report(NULL, NULL);
  ck_assert_int_eq(sk_weights_prune(s, &p, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.vertices_changed, 0);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_normalize_locked_distributes_remainder) {
  uint32_t off[] = {0, 3};
  uint32_t jt[] = {0, 1, 2};
  float wt[] = {0.5f, 0.1f, 0.3f};
  sk_skin* s = make_skin(1, 3, off, jt, wt);
  uint8_t locked[3] = {1, 0, 0};
  sk_normalize_desc d = {.size = sizeof d, .scope = {.locked_joints = locked, .locked_joint_count = 3}};
  ck_assert_int_eq(sk_weights_normalize(s, &d, NULL, NULL), SK_OK);
  ck_assert(wof(s, 0, 0) == 0.5f); /* exactly unchanged */
  ck_assert_float_eq_tol(wof(s, 0, 1), 0.125f, 1e-6f);
  ck_assert_float_eq_tol(wof(s, 0, 2), 0.375f, 1e-6f);
  ck_assert_float_eq_tol(vsum(s, 0), 1.0, 1e-6);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_normalize_reports_zero_unlocked_and_locked_over_one) {
  uint32_t off[] = {0, 2, 4, 6};
  uint32_t jt[] = {0, 1, 0, 1, 0, 1};
  float wt[] = {0.3f, 0.0f, 0.7f, 0.6f, 1.0f, 0.0f};
  sk_skin* s = make_skin(3, 2, off, jt, wt);
  uint8_t locked[2] = {1, 0};
  uint8_t flags[3];
  sk_weights_report r = new_report(flags, NULL);
  sk_normalize_desc d = {.size = sizeof d, .scope = {.locked_joints = locked, .locked_joint_count = 2}};
  /* vertex 1: locked 0.7 < 1, unlocked 0.6 -> 0.3; vertex 0: unlocked all zero -> failed; vertex 2: sums 1 */
  snap before = take(s);
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(flags[0], SK_WFLAG_FAILED | SK_WFLAG_UNWEIGHTED);
  ck_assert(wof(s, 0, 0) == 0.3f && wof(s, 0, 1) == 0.0f);
  ck_assert_float_eq_tol(wof(s, 1, 1), 0.3f, 1e-6f);
  ck_assert_uint_eq(flags[2], 0);
  ck_assert_uint_eq(r.vertices_failed, 1);
  ck_assert_uint_eq(r.vertices_changed, 1);
  drop(&before);
  /* locked sum above 1 */
  float w2[] = {1.5f, 0.2f, 0.7f, 0.6f, 1.0f, 0.0f};
  ck_assert_int_eq(sk_skin_set_csr(s, off, jt, w2, NULL), SK_OK);
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(flags[0], SK_WFLAG_FAILED | SK_WFLAG_LOCKED);
  ck_assert(wof(s, 0, 0) == 1.5f && wof(s, 0, 1) == 0.2f);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_normalize_invalid_entries_left_or_dropped) {
  uint32_t off[] = {0, 2, 4, 6};
  uint32_t jt[] = {0, 1, 0, 7, 0, 1};
  float wt[] = {NAN, 0.5f, 0.5f, 0.25f, -0.1f, 0.4f};
  sk_skin* s = make_skin(3, 2, off, jt, wt);
  uint8_t flags[3];
  sk_weights_report r = new_report(flags, NULL);
  sk_normalize_desc d = {.size = sizeof d};
  snap before = take(s);
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
  ck_assert(same(&before, s)); /* default: reported, unchanged */
  ck_assert_uint_eq(r.vertices_failed, 3);
  ck_assert_uint_eq(r.invalid_entries, 3);
  for (int v = 0; v < 3; ++v) ck_assert_uint_eq(flags[v], SK_WFLAG_FAILED | SK_WFLAG_INVALID);
  d.flags = SK_NORMALIZE_DROP_INVALID;
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(sk_skin_influence_count(s), 3);
  ck_assert_float_eq(wof(s, 0, 1), 1.0f);
  ck_assert_float_eq(wof(s, 1, 0), 1.0f);
  ck_assert_float_eq(wof(s, 2, 1), 1.0f);
  ck_assert_uint_eq(r.vertices_changed, 3);
  ck_assert_uint_eq(r.influences_before, 6);
  ck_assert_uint_eq(r.influences_after, 3);
  sk_skin_report vr = {.size = sizeof vr};
  ck_assert_int_eq(sk_skin_validate(s, NULL, &vr, NULL, NULL), SK_OK);
  ck_assert_uint_eq(vr.findings, 0);
  drop(&before);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_normalize_mask_leaves_unselected) {
  uint32_t off[] = {0, 1, 2};
  uint32_t jt[] = {0, 0};
  float wt[] = {0.5f, 0.5f};
  sk_skin* s = make_skin(2, 1, off, jt, wt);
  uint8_t mask[2] = {0, 7};
  sk_normalize_desc d = {.size = sizeof d, .scope = {.vertex_mask = mask, .vertex_mask_count = 2}};
  sk_weights_report r = new_report(NULL, NULL);
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, NULL), SK_OK);
  ck_assert(wof(s, 0, 0) == 0.5f);
  ck_assert(wof(s, 1, 0) == 1.0f);
  ck_assert_uint_eq(r.vertices_visited, 1);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_weights_reject_bad_arguments_untouched) {
  uint32_t off[] = {0, 2, 3};
  uint32_t jt[] = {0, 1, 2};
  float wt[] = {0.2f, 0.2f, 0.5f};
  sk_skin* s = make_skin(2, 3, off, jt, wt);
  snap before = take(s);
  sk_error e;
  sk_normalize_desc d = {.size = sizeof d};
  ck_assert_int_eq(sk_weights_normalize(NULL, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_weights_normalize(s, NULL, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.size = 4;
  ck_assert_int_eq(sk_weights_normalize(s, &d, NULL, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(e.code, SK_ERR_STRUCT_SIZE);
  ck_assert_ptr_nonnull(strstr(e.message, "sk_normalize_desc"));
  d.size = sizeof d;
  sk_weights_report r = new_report(NULL, NULL);
  r.size = 8;
  ck_assert_int_eq(sk_weights_normalize(s, &d, &r, &e), SK_ERR_STRUCT_SIZE);
  /* a joint mask (3 bytes) passed as vertex mask (2 vertices) */
  uint8_t jm[3] = {1, 1, 1};
  d.scope.vertex_mask = jm;
  d.scope.vertex_mask_count = 3;
  ck_assert_int_eq(sk_weights_normalize(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "vertex_mask"));
  d.scope.vertex_mask = NULL;
  d.scope.vertex_mask_count = 2;
  ck_assert_int_eq(sk_weights_normalize(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.scope.vertex_mask_count = 0;
  /* a vertex mask (2 bytes) passed as locked joints (3 joints) */
  d.scope.locked_joints = jm;
  d.scope.locked_joint_count = 2;
  ck_assert_int_eq(sk_weights_normalize(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "locked_joints"));
  d.scope.locked_joints = NULL;
  d.scope.locked_joint_count = 0;
  d.flags = 0x80;
  ck_assert_int_eq(sk_weights_normalize(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.flags = 0;
  d.tolerance = NAN;
  ck_assert_int_eq(sk_weights_normalize(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  /* the other operations share the checks */
  sk_limit_desc ld = {.size = sizeof ld - 1};
  ck_assert_int_eq(sk_weights_limit(s, &ld, NULL, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_limit(NULL, &ld, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ld.size = sizeof ld;
  ld.flags = 4;
  ck_assert_int_eq(sk_weights_limit(s, &ld, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  sk_prune_desc pd = {.size = sizeof pd, .threshold = 2.0f};
  ck_assert_int_eq(sk_weights_prune(s, &pd, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  pd.threshold = NAN;
  ck_assert_int_eq(sk_weights_prune(s, &pd, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  pd.threshold = 0.1f;
  pd.flags = 8;
  ck_assert_int_eq(sk_weights_prune(s, &pd, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  pd.size = 0;
  ck_assert_int_eq(sk_weights_prune(s, &pd, NULL, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_prune(NULL, &pd, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  sk_quantize_desc qd = {.size = sizeof qd, .bits = 12};
  ck_assert_int_eq(sk_weights_quantize(s, &qd, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  uint16_t vals[2];
  qd.bits = 8;
  qd.out_values = vals;
  qd.out_values_count = 2;
  ck_assert_int_eq(sk_weights_quantize(s, &qd, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  qd.size = 1;
  ck_assert_int_eq(sk_weights_quantize(s, &qd, NULL, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_quantize(NULL, &qd, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(same(&before, s));
  drop(&before);
  sk_skin_destroy(s);
}
END_TEST

/* ------------------------------------------------------------------------------------------ limit */

START_TEST(test_limit_keeps_largest_and_renormalizes) {
  uint32_t off[] = {0, 6, 8};
  uint32_t jt[] = {0, 1, 2, 3, 4, 5, 0, 1};
  float wt[] = {0.05f, 0.3f, 0.1f, 0.25f, 0.1f, 0.2f, 0.5f, 0.5f};
  sk_skin* s = make_skin(2, 6, off, jt, wt);
  sk_limit_desc d = {.size = sizeof d, .max_influences = 3};
  uint8_t flags[2];
  sk_weights_report r = new_report(flags, NULL);
  ck_assert_int_eq(sk_weights_limit(s, &d, &r, NULL), SK_OK);
  uint32_t j[8];
  float w[8];
  ck_assert_uint_eq(vget(s, 0, j, w), 3);
  /* original order kept: joints 1, 3, 5 */
  ck_assert_uint_eq(j[0], 1);
  ck_assert_uint_eq(j[1], 3);
  ck_assert_uint_eq(j[2], 5);
  ck_assert_float_eq_tol(w[0], 0.3f / 0.75f, 1e-6f);
  ck_assert_float_eq_tol(vsum(s, 0), 1.0, 1e-6);
  ck_assert_uint_eq(flags[0], SK_WFLAG_CHANGED);
  ck_assert_uint_eq(flags[1], 0);
  ck_assert_uint_eq(r.entries_changed, 3);
  ck_assert_uint_eq(r.influences_after, 5);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_limit_ties_lower_joint_and_no_normalize) {
  uint32_t off[] = {0, 3};
  uint32_t jt[] = {2, 0, 1};
  float wt[] = {0.25f, 0.25f, 0.25f};
  sk_skin* s = make_skin(1, 3, off, jt, wt);
  sk_limit_desc d = {.size = sizeof d, .max_influences = 2, .flags = SK_LIMIT_NO_NORMALIZE};
  ck_assert_int_eq(sk_weights_limit(s, &d, NULL, NULL), SK_OK);
  ck_assert(wof(s, 0, 0) == 0.25f && wof(s, 0, 1) == 0.25f && wof(s, 0, 2) == 0.0f);
  sk_skin_destroy(s);
}
END_TEST

/* A joint named twice in a row counts with its whole weight (the writers add such entries into one): [1, 1, 2] /
 * [0.3, 0.3, 0.4] is joint 1 at 0.6. Limit 1 dropped joint 1 (each 0.3 ranked below 0.4) and prune 0.35 dropped
 * both of its entries. Rows past 64 entries take the sorted merge. */
START_TEST(test_limit_prune_merge_duplicate_joints) {
  uint32_t off[] = {0, 3};
  uint32_t jt[] = {1, 1, 2};
  float wt[] = {0.3f, 0.3f, 0.4f};
  for (int op = 0; op < 2; ++op) {
    sk_skin* s = make_skin(1, 3, off, jt, wt);
    uint8_t flags[1];
    sk_weights_report r = new_report(flags, NULL);
    if (op == 0) {
      sk_limit_desc d = {.size = sizeof d, .max_influences = 1};
      ck_assert_int_eq(sk_weights_limit(s, &d, &r, NULL), SK_OK);
      ck_assert(wof(s, 0, 1) == 1.0f && wof(s, 0, 2) == 0.0f);
    } else {
      sk_prune_desc d = {.size = sizeof d, .threshold = 0.35f, .flags = SK_PRUNE_KEEP_ONE | SK_PRUNE_NORMALIZE};
      ck_assert_int_eq(sk_weights_prune(s, &d, &r, NULL), SK_OK);
      uint32_t j[4];
      float w[4];
      ck_assert_uint_eq(vget(s, 0, j, w), 2);
      ck_assert(j[0] == 1 && j[1] == 2);
      ck_assert_float_eq_tol(w[0], 0.6f, 1e-6f);
      ck_assert_float_eq_tol(w[1], 0.4f, 1e-6f);
    }
    ck_assert_uint_eq(flags[0] & SK_WFLAG_CHANGED, SK_WFLAG_CHANGED);
    sk_skin_destroy(s);
  }
  /* 70 entries over joints 0..9 (joint j at entries j, j + 10, ...): 10 merged entries in first-appearance order */
  enum { N = 70 };
  uint32_t off2[] = {0, N}, j2[N];
  float w2[N];
  for (uint32_t i = 0; i < N; ++i) j2[i] = i % 10, w2[i] = (i % 10 == 7 ? 3.0f : 1.0f) / 88.0f;
  sk_skin* s = make_skin(1, 10, off2, j2, w2);
  sk_limit_desc d = {.size = sizeof d, .max_influences = 20, .flags = SK_LIMIT_NO_NORMALIZE};
  ck_assert_int_eq(sk_weights_limit(s, &d, NULL, NULL), SK_OK);
  uint32_t j[N];
  float w[N];
  ck_assert_uint_eq(sk_skin_get_vertex(s, 0, j, w, N), 10);
  for (uint32_t k = 0; k < 10; ++k) {
    ck_assert_uint_eq(j[k], k);
    ck_assert_float_eq_tol(w[k], 7.0f * (k == 7 ? 3.0f : 1.0f) / 88.0f, 1e-6f);
  }
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_limit_locked_preferred_or_reported) {
  uint32_t off[] = {0, 4, 8};
  uint32_t jt[] = {0, 1, 2, 3, 0, 1, 2, 3};
  float wt[] = {0.05f, 0.5f, 0.3f, 0.15f, 0.1f, 0.1f, 0.1f, 0.7f};
  sk_skin* s = make_skin(2, 4, off, jt, wt);
  uint8_t locked[4] = {1, 0, 1, 0};
  uint8_t flags[2];
  sk_weights_report r = new_report(flags, NULL);
  sk_limit_desc d = {.size = sizeof d, .max_influences = 2, .scope = {.locked_joints = locked, .locked_joint_count = 4}};
  snap before2 = take(s);
  ck_assert_int_eq(sk_weights_limit(s, &d, &r, NULL), SK_OK);
  /* vertex 0: locked 0 (0.05) and 2 (0.3) fill the 2 slots and sum 0.35: keeping only them would need them scaled
   * (a writer renormalizes, glTF requires it), so the vertex stays and is flagged; vertex 1 (0.1 + 0.1) the same.
   * They were cut to the locked pair and left summing 0.35 (an auditor's locked 0.1 was written as 1.0). */
  ck_assert_uint_eq(flags[0], SK_WFLAG_FAILED | SK_WFLAG_LOCKED);
  ck_assert_uint_eq(flags[1], SK_WFLAG_FAILED | SK_WFLAG_LOCKED);
  ck_assert(same(&before2, s));
  drop(&before2);
  /* without renormalization the cut is allowed: the locked pair kept, summing 0.35 */
  sk_limit_desc dn = d;
  dn.flags = SK_LIMIT_NO_NORMALIZE;
  ck_assert_int_eq(sk_weights_limit(s, &dn, &r, NULL), SK_OK);
  ck_assert(wof(s, 0, 0) == 0.05f && wof(s, 0, 2) == 0.3f && wof(s, 0, 1) == 0.0f);
  ck_assert_uint_eq(flags[0], SK_WFLAG_CHANGED);
  sk_limit_desc d1 = d;
  d1.max_influences = 1;
  float w2[] = {0.05f, 0.5f, 0.3f, 0.15f, 0.1f, 0.1f, 0.1f, 0.7f};
  ck_assert_int_eq(sk_skin_set_csr(s, off, jt, w2, NULL), SK_OK);
  snap before = take(s);
  ck_assert_int_eq(sk_weights_limit(s, &d1, &r, NULL), SK_OK);
  ck_assert_uint_eq(flags[0], SK_WFLAG_FAILED | SK_WFLAG_LOCKED);
  ck_assert_uint_eq(r.vertices_failed, 2);
  ck_assert(same(&before, s));
  drop(&before);
  /* 3 allowed: both locked + the largest unlocked, scaled to 1 - L */
  d.max_influences = 3;
  ck_assert_int_eq(sk_weights_limit(s, &d, &r, NULL), SK_OK);
  ck_assert(wof(s, 0, 0) == 0.05f && wof(s, 0, 2) == 0.3f);
  ck_assert_float_eq_tol(wof(s, 0, 1), 0.65f, 1e-6f);
  ck_assert_float_eq_tol(wof(s, 1, 3), 0.8f, 1e-6f);
  sk_skin_destroy(s);
}
END_TEST

/* ------------------------------------------------------------------------------------------ prune */

START_TEST(test_prune_threshold_keep_one_normalize) {
  uint32_t off[] = {0, 3, 5, 7};
  uint32_t jt[] = {0, 1, 2, 0, 1, 0, 1};
  float wt[] = {0.9f, 0.05f, 0.05f, 0.04f, 0.03f, 0.02f, 0.0f};
  sk_skin* s = make_skin(3, 3, off, jt, wt);
  uint8_t flags[3];
  sk_weights_report r = new_report(flags, NULL);
  sk_prune_desc d = {.size = sizeof d, .threshold = 0.06f, .flags = SK_PRUNE_KEEP_ONE | SK_PRUNE_NORMALIZE};
  ck_assert_int_eq(sk_weights_prune(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(vget(s, 0, NULL, NULL), 1);
  ck_assert_float_eq(wof(s, 0, 0), 1.0f);
  ck_assert_uint_eq(vget(s, 1, NULL, NULL), 1); /* kept the largest (0.04) */
  ck_assert_float_eq(wof(s, 1, 0), 1.0f);
  ck_assert_uint_eq(vget(s, 2, NULL, NULL), 1);
  ck_assert_uint_eq(r.entries_changed, 4);
  ck_assert_uint_eq(r.vertices_changed, 3);
  sk_skin_destroy(s);
  /* without KEEP_ONE the vertex empties; locked small entries stay */
  s = make_skin(3, 3, off, jt, wt);
  uint8_t locked[3] = {0, 1, 0};
  sk_prune_desc d2 = {.size = sizeof d2, .threshold = 0.06f, .scope = {.locked_joints = locked, .locked_joint_count = 3}};
  ck_assert_int_eq(sk_weights_prune(s, &d2, NULL, NULL), SK_OK);
  ck_assert_uint_eq(vget(s, 0, NULL, NULL), 2);
  ck_assert(wof(s, 0, 1) == 0.05f && wof(s, 0, 0) == 0.9f);
  ck_assert_uint_eq(vget(s, 1, NULL, NULL), 1);
  ck_assert(wof(s, 1, 1) == 0.03f);
  ck_assert_uint_eq(vget(s, 2, NULL, NULL), 1); /* locked zero entry of joint 1 stays */
  sk_skin_destroy(s);
  /* KEEP_ONE with a lock: [0.25 x 4], joint 2 locked, threshold 0.3: the largest unlocked (joint 0, first) stays
   * beside the locked 0.25 and carries the rest (0.75); every unlocked one went and the writer scaled the locked
   * 0.25 to 1.0. A locked 1.0 needs no carrier. */
  uint32_t off3[] = {0, 4, 6}, jt3[] = {0, 1, 2, 3, 2, 0};
  float wt3[] = {0.25f, 0.25f, 0.25f, 0.25f, 1.0f, 0.1f};
  s = make_skin(2, 4, off3, jt3, wt3);
  uint8_t locked3[4] = {0, 0, 1, 0};
  sk_prune_desc d3 = {.size = sizeof d3,
                      .threshold = 0.3f,
                      .flags = SK_PRUNE_KEEP_ONE | SK_PRUNE_NORMALIZE,
                      .scope = {.locked_joints = locked3, .locked_joint_count = 4}};
  ck_assert_int_eq(sk_weights_prune(s, &d3, NULL, NULL), SK_OK);
  ck_assert_uint_eq(vget(s, 0, NULL, NULL), 2);
  ck_assert(wof(s, 0, 2) == 0.25f);
  ck_assert_float_eq_tol(wof(s, 0, 0), 0.75f, 1e-6f);
  ck_assert_uint_eq(vget(s, 1, NULL, NULL), 1);
  ck_assert(wof(s, 1, 2) == 1.0f);
  sk_skin_destroy(s);
}
END_TEST

/* ------------------------------------------------------------------------------------------ quantize */

static sk_skin* random_skin(skt_rng* rng, size_t V, uint32_t J, uint32_t kmax) {
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* jt = malloc(V * kmax * sizeof *jt);
  float* wt = malloc(V * kmax * sizeof *wt);
  size_t n = 0;
  off[0] = 0;
  for (size_t v = 0; v < V; ++v) {
    uint32_t k = 1 + skt_rand_u32(rng) % kmax;
    uint32_t j0 = skt_rand_u32(rng) % J;
    float sum = 0.0f;
    for (uint32_t i = 0; i < k; ++i) {
      jt[n + i] = (j0 + i) % J;
      wt[n + i] = skt_rand_range(rng, 0.001f, 1.0f);
      sum += wt[n + i];
    }
    for (uint32_t i = 0; i < k; ++i) wt[n + i] /= sum;
    n += k;
    off[v + 1] = (uint32_t)n;
  }
  sk_skin* s = make_skin(V, J, off, jt, wt);
  free(off);
  free(jt);
  free(wt);
  return s;
}

START_TEST(test_quantize_sums_exactly_and_roundtrips) {
  skt_rng rng = {12345};
  for (int bits = 8; bits <= 16; bits += 8) {
    uint32_t T = bits == 8 ? 255u : 65535u;
    sk_skin* s = random_skin(&rng, 2000, 20, 6);
    size_t N = sk_skin_influence_count(s);
    uint16_t* q = malloc(N * sizeof *q);
    sk_quantize_desc d = {.size = sizeof d, .bits = (uint32_t)bits, .out_values = q, .out_values_count = N};
    sk_weights_report r = new_report(NULL, NULL);
    ck_assert_int_eq(sk_weights_quantize(s, &d, &r, NULL), SK_OK);
    ck_assert_uint_eq(r.vertices_failed, 0);
    uint32_t* off = malloc(2001 * sizeof *off);
    float* w = malloc(N * sizeof *w);
    ck_assert_int_eq(sk_skin_get_csr(s, off, NULL, w, NULL), SK_OK);
    for (size_t v = 0; v < 2000; ++v) {
      uint32_t sum = 0;
      for (size_t i = off[v]; i < off[v + 1]; ++i) {
        sum += q[i];
        ck_assert_uint_eq((uint32_t)lrint((double)w[i] * T), q[i]); /* export reproduces the integer */
      }
      ck_assert_uint_eq(sum, T);
    }
    /* idempotent: quantizing again changes nothing */
    ck_assert_int_eq(sk_weights_quantize(s, &d, &r, NULL), SK_OK);
    ck_assert_uint_eq(r.vertices_changed, 0);
    free(off);
    free(w);
    free(q);
    sk_skin_destroy(s);
  }
}
END_TEST

/* The largest-remainder integers of one row, computed the plain way (floors, then sorted remainders). */
static void reference_quantize(const float* w, size_t n, uint32_t T, uint32_t* q) {
  double U = 0.0;
  for (size_t i = 0; i < n; ++i) U += w[i];
  double scale = T / U;
  uint32_t given = 0;
  size_t order[16];
  double rem[16];
  for (size_t i = 0; i < n; ++i) {
    double x = w[i] * scale;
    q[i] = (uint32_t)x;
    rem[i] = x - (double)q[i];
    given += q[i];
    order[i] = i;
  }
  for (size_t a = 0; a < n; ++a) /* larger remainder, then larger weight, then earlier entry */
    for (size_t b = a + 1; b < n; ++b) {
      size_t i = order[a], j = order[b];
      int better = rem[j] != rem[i] ? rem[j] > rem[i] : w[j] != w[i] ? w[j] > w[i] : j < i;
      if (better) order[a] = j, order[b] = i;
    }
  for (size_t k = 0; k < n && given < T; ++k)
    if (rem[order[k]] > 0.0) q[order[k]]++, given++;
}

START_TEST(test_quantize_matches_reference) {
  /* every path of the quantizer (nearest rounding, its one-unit corrections, the full rule) against the plain
   * rule: continuous weights, weights from a few levels (ties of remainders and weights), unnormalized sums */
  skt_rng rng = {777};
  for (int bits = 8; bits <= 16; bits += 8)
    for (int kind = 0; kind < 3; ++kind) {
      uint32_t T = bits == 8 ? 255u : 65535u;
      enum { V = 3000, K = 8 };
      uint32_t off[V + 1], jt[V * K];
      float wt[V * K];
      size_t n = 0;
      off[0] = 0;
      for (size_t v = 0; v < V; ++v) {
        uint32_t k = 2 + skt_rand_u32(&rng) % (K - 1);
        float sum = 0.0f, s = kind == 2 ? skt_rand_range(&rng, 0.3f, 3.0f) : 1.0f;
        for (uint32_t i = 0; i < k; ++i) {
          jt[n + i] = i;
          wt[n + i] = kind == 1 ? (float)(1 + skt_rand_u32(&rng) % 4) : skt_rand_range(&rng, 0.001f, 1.0f);
          sum += wt[n + i];
        }
        for (uint32_t i = 0; i < k; ++i) wt[n + i] = wt[n + i] / sum * s;
        n += k;
        off[v + 1] = (uint32_t)n;
      }
      sk_skin* sk = make_skin(V, K, off, jt, wt);
      uint16_t q[V * K];
      sk_quantize_desc d = {.size = sizeof d, .bits = (uint32_t)bits, .out_values = q, .out_values_count = n};
      ck_assert_int_eq(sk_weights_quantize(sk, &d, NULL, NULL), SK_OK);
      for (size_t v = 0; v < V; ++v) {
        uint32_t ref[K];
        reference_quantize(wt + off[v], off[v + 1] - off[v], T, ref);
        for (uint32_t i = off[v]; i < off[v + 1]; ++i) ck_assert_uint_eq(q[i], ref[i - off[v]]);
      }
      sk_skin_destroy(sk);
    }
}
END_TEST

START_TEST(test_quantize_largest_remainder_values) {
  /* thirds: 85 each; (0.5, 0.25, 0.25) -> 127.5, 63.75, 63.75 -> the .75 remainders win;
   * (0.25, 0.5, 0.25) x 2 = (0.25, 0.5, 0.25) / 1 ... ; (0.5, 0.5) -> equal remainders and weights: earlier entry */
  uint32_t off[] = {0, 3, 6, 8};
  uint32_t jt[] = {0, 1, 2, 0, 1, 2, 1, 0};
  float wt[] = {1.0f / 3, 1.0f / 3, 1.0f / 3, 0.5f, 0.25f, 0.25f, 0.5f, 0.5f};
  sk_skin* s = make_skin(3, 3, off, jt, wt);
  uint16_t q[8];
  sk_quantize_desc d = {.size = sizeof d, .out_values = q, .out_values_count = 8};
  ck_assert_int_eq(sk_weights_quantize(s, &d, NULL, NULL), SK_OK);
  ck_assert_uint_eq(q[0] + q[1] + q[2], 255);
  ck_assert_uint_eq(q[0], 85);
  ck_assert_uint_eq(q[3], 127);
  ck_assert_uint_eq(q[4], 64);
  ck_assert_uint_eq(q[5], 64);
  ck_assert_uint_eq(q[6], 128);
  ck_assert_uint_eq(q[7], 127);
  ck_assert_float_eq(wof(s, 2, 1), 128.0f / 255.0f);
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_quantize_locked_grid_rule) {
  uint32_t off[] = {0, 2, 4};
  uint32_t jt[] = {0, 1, 0, 1};
  float wt[] = {100.0f / 255.0f, 0.5f, 0.3333f, 0.6667f};
  sk_skin* s = make_skin(2, 2, off, jt, wt);
  uint8_t locked[2] = {1, 0};
  uint8_t flags[2];
  uint16_t q[4];
  sk_weights_report r = new_report(flags, NULL);
  sk_quantize_desc d = {.size = sizeof d, .out_values = q, .out_values_count = 4,
                        .scope = {.locked_joints = locked, .locked_joint_count = 2}};
  ck_assert_int_eq(sk_weights_quantize(s, &d, &r, NULL), SK_OK);
  ck_assert(wof(s, 0, 0) == 100.0f / 255.0f);
  ck_assert_uint_eq(q[0], 100);
  ck_assert_uint_eq(q[1], 155);
  ck_assert_uint_eq(flags[1], SK_WFLAG_FAILED | SK_WFLAG_LOCKED); /* 0.3333 * 255 = 84.99 is off the grid */
  ck_assert(wof(s, 1, 0) == 0.3333f);
  ck_assert_uint_eq(q[2], 85); /* rounded report for the failed vertex */
  sk_skin_destroy(s);
}
END_TEST

START_TEST(test_quantize_then_pack_implied_last_weight) {
  skt_rng rng = {99};
  sk_skin* s = random_skin(&rng, 500, 30, 7);
  sk_limit_desc ld = {.size = sizeof ld, .max_influences = 4};
  ck_assert_int_eq(sk_weights_limit(s, &ld, NULL, NULL), SK_OK);
  size_t N = sk_skin_influence_count(s);
  uint16_t* q = malloc(N * sizeof *q);
  sk_quantize_desc qd = {.size = sizeof qd, .bits = 8, .out_values = q, .out_values_count = N};
  ck_assert_int_eq(sk_weights_quantize(s, &qd, NULL, NULL), SK_OK);
  uint8_t pj[500 * 4], pw[500 * 4];
  sk_packed_desc pd = {.size = sizeof pd, .influences = 4, .joint_type = SK_TYPE_U8, .weight_type = SK_TYPE_U8,
                       .joints = pj, .weights = pw};
  ck_assert_int_eq(sk_skin_to_packed(s, &pd, NULL), SK_OK);
  uint32_t off[501];
  uint32_t* jt = malloc(N * sizeof *jt);
  ck_assert_int_eq(sk_skin_get_csr(s, off, jt, NULL, NULL), SK_OK);
  for (size_t v = 0; v < 500; ++v) {
    /* 56-bit form: 4 indices + first 3 weights; the 4th is implied */
    uint32_t implied = 255u - pw[4 * v] - pw[4 * v + 1] - pw[4 * v + 2];
    ck_assert_uint_eq(implied, pw[4 * v + 3]);
    /* and every packed weight is exactly the quantized integer of its joint */
    for (int k = 0; k < 4; ++k) {
      if (pw[4 * v + k] == 0) continue;
      int found = 0;
      for (size_t i = off[v]; i < off[v + 1]; ++i)
        if (jt[i] == pj[4 * v + k]) {
          ck_assert_uint_eq(q[i], pw[4 * v + k]);
          found = 1;
        }
      ck_assert(found);
    }
  }
  free(jt);
  free(q);
  sk_skin_destroy(s);
}
END_TEST

/* ------------------------------------------------------------------------------------------ adjacency, k-d tree */

START_TEST(test_adjacency_grid_and_cotangent) {
  mesh m = make_grid(4, 3, 0.0f);
  skc_adjacency a;
  ck_assert_int_eq(skc_adjacency_build(&a, m.V, m.tri, m.T, NULL), SKC_OK);
  /* edges of a triangulated nx x ny grid: horizontal + vertical + diagonals */
  size_t edges = 3 * 3 + 4 * 2 + 3 * 2;
  ck_assert_uint_eq(a.offsets[m.V], 2 * edges);
  for (uint32_t u = 0; u < m.V; ++u)
    for (uint32_t k = a.offsets[u]; k < a.offsets[u + 1]; ++k) {
      ck_assert_int_ge(skc_adjacency_find(&a, a.neighbors[k], u), 0);
      ck_assert_uint_ne(a.neighbors[k], u);
      if (k > a.offsets[u]) ck_assert_uint_gt(a.neighbors[k], a.neighbors[k - 1]);
    }
  ck_assert_int_eq(skc_adjacency_cotangent(&a, m.pos, 0, m.tri, m.T, NULL), SKC_OK);
  /* interior horizontal edge 5-6 (y = 1): both opposite angles are 45 degrees -> (1 + 1) / 2 */
  long e = skc_adjacency_find(&a, 5, 6);
  ck_assert_int_ge(e, 0);
  ck_assert_float_eq_tol(a.weights[e], 1.0f, 1e-5f);
  /* diagonal 0-5: opposite angles are right angles -> 0 */
  e = skc_adjacency_find(&a, 0, 5);
  ck_assert_float_eq_tol(a.weights[e], 0.0f, 1e-5f);
  /* boundary edge 0-1: one 45 degree angle -> 0.5 */
  e = skc_adjacency_find(&a, 0, 1);
  ck_assert_float_eq_tol(a.weights[e], 0.5f, 1e-5f);
  skc_adjacency_free(&a);
  /* bad index, NaN position */
  m.tri[4] = 99;
  skc_err err;
  ck_assert_int_eq(skc_adjacency_build(&a, m.V, m.tri, m.T, &err), SKC_OUT_OF_RANGE);
  m.tri[4] = 1;
  ck_assert_int_eq(skc_adjacency_build(&a, m.V, m.tri, m.T, NULL), SKC_OK);
  m.pos[7] = NAN;
  ck_assert_int_eq(skc_adjacency_cotangent(&a, m.pos, 0, m.tri, m.T, &err), SKC_INVALID_ARGUMENT);
  skc_adjacency_free(&a);
  mesh_free(&m);
}
END_TEST

START_TEST(test_kdtree_matches_brute_force) {
  skt_rng rng = {7};
  size_t n = 3000;
  float* p = malloc(3 * n * sizeof *p);
  for (size_t i = 0; i < 3 * n; ++i) p[i] = skt_rand_range(&rng, -1.0f, 1.0f);
  for (size_t i = 0; i < 50; ++i) memcpy(p + 3 * (n - 1 - i), p + 3 * i, 12); /* duplicates: lowest id wins */
  skc_kdtree t;
  ck_assert_int_eq(skc_kdtree_build(&t, p, 0, NULL, n, NULL), SKC_OK);
  for (int q = 0; q < 500; ++q) {
    float x[3] = {skt_rand_range(&rng, -1.1f, 1.1f), skt_rand_range(&rng, -1.1f, 1.1f), skt_rand_range(&rng, -1.1f, 1.1f)};
    if (q < 50) memcpy(x, p + 3 * q, 12);
    float best = INFINITY;
    uint32_t bi = UINT32_MAX;
    for (size_t i = 0; i < n; ++i) {
      float dx = p[3 * i] - x[0], dy = p[3 * i + 1] - x[1], dz = p[3 * i + 2] - x[2];
      float d2 = dx * dx + dy * dy + dz * dz;
      if (d2 < best) best = d2, bi = (uint32_t)i;
    }
    float dist;
    uint32_t got = skc_kdtree_nearest(&t, x, 10.0f, &dist);
    ck_assert_uint_eq(got, bi);
    ck_assert_float_eq_tol(dist, sqrtf(best), 1e-6f);
    if (sqrtf(best) > 0.01f) ck_assert_uint_eq(skc_kdtree_nearest(&t, x, 0.5f * sqrtf(best), NULL), UINT32_MAX);
  }
  skc_kdtree_free(&t);
  free(p);
}
END_TEST

/* ------------------------------------------------------------------------------------------ smooth */

/* grid 10 x 4 with joint 0 on x < 5 and joint 1 on x >= 5 (a step) */
static sk_skin* step_skin(const mesh* m, size_t nx, uint32_t J) {
  uint32_t* ja = malloc(m->V * sizeof *ja);
  float* wa = malloc(m->V * sizeof *wa);
  for (size_t v = 0; v < m->V; ++v) {
    ja[v] = (v % nx) < nx / 2 ? 0 : 1;
    wa[v] = 1.0f;
  }
  sk_skin* s = skin_two(m->V, J, ja, ja, wa);
  free(ja);
  free(wa);
  return s;
}

START_TEST(test_smooth_step_becomes_ramp) {
  mesh m = make_grid(10, 4, 0.0f);
  for (int method = 0; method < 2; ++method) {
    sk_skin* s = step_skin(&m, 10, 2);
    sk_smooth_desc d = {.size = sizeof d, .method = (uint32_t)method, .positions = m.pos, .position_count = m.V,
                        .triangles = m.tri, .triangle_count = m.T, .iterations = 20, .factor = 0.5f};
    sk_weights_report r = new_report(NULL, NULL);
    ck_assert_int_eq(sk_weights_smooth(s, &d, &r, NULL), SK_OK);
    for (size_t v = 0; v < m.V; ++v) {
      ck_assert_float_eq_tol(vsum(s, v), 1.0, 1e-5);
      float w1 = wof(s, v, 1);
      ck_assert(w1 >= 0.0f && w1 <= 1.0f);
    }
    /* joint 1 weight increases monotonically along x on row 1 and crosses 0.5 at the step */
    for (size_t x = 1; x < 10; ++x) ck_assert_float_ge(wof(s, 10 + x, 1), wof(s, 10 + x - 1, 1) - 1e-6f);
    ck_assert_float_lt(wof(s, 10 + 4, 1), 0.5f);
    ck_assert_float_gt(wof(s, 10 + 5, 1), 0.5f);
    ck_assert_float_gt(wof(s, 10 + 4, 1), 0.1f);
    ck_assert_uint_gt(r.vertices_changed, 8);
    sk_skin_destroy(s);
  }
  mesh_free(&m);
}
END_TEST

/* The 10 x 4 step grid cut along the column x = 3 (the cut copies its 4 vertices, the triangles right of it use the
 * copies, as importers split a mesh at a UV seam or a material border; here the copies also start with other
 * weights): smoothing treats a point as one node, so every copy ends with the weights the uncut grid gets at that
 * point when it starts from the copies' mean. Without the weld the two sides of the cut drift apart. */
START_TEST(test_smooth_welds_copies) {
  mesh g = make_grid(10, 4, 0.0f);
  mesh c = g;
  c.V = g.V + 4;
  c.pos = malloc(3 * c.V * sizeof *c.pos);
  c.tri = malloc(3 * c.T * sizeof *c.tri);
  memcpy(c.pos, g.pos, 3 * g.V * sizeof *c.pos);
  memcpy(c.tri, g.tri, 3 * g.T * sizeof *c.tri);
  for (size_t y = 0; y < 4; ++y) memcpy(c.pos + 3 * (g.V + y), g.pos + 3 * (y * 10 + 3), 3 * sizeof *c.pos);
  for (size_t t = 0; t < c.T; ++t) { /* triangles right of x = 3 take the copies */
    const uint32_t* q = g.tri + 3 * t;
    bool right = q[0] % 10 > 3 || q[1] % 10 > 3 || q[2] % 10 > 3;
    for (int k = 0; k < 3 && right; ++k)
      if (q[k] % 10 == 3) c.tri[3 * t + k] = (uint32_t)(g.V + q[k] / 10);
  }
  for (int method = 0; method < 2; ++method) {
    sk_skin* whole = step_skin(&g, 10, 2);
    sk_skin* cut = step_skin(&c, 10, 2);
    for (uint32_t y = 0; y < 4; ++y) { /* the copies start on joint 1, their originals on joint 0: the uncut grid's
                                          column 3 starts from the mean */
      uint32_t one = 1, jc[2] = {0, 1};
      float w1 = 1.0f, half[2] = {0.5f, 0.5f};
      ck_assert_int_eq(sk_skin_set_vertex(cut, 40 + y, &one, &w1, 1, NULL), SK_OK);
      ck_assert_int_eq(sk_skin_set_vertex(whole, y * 10 + 3, jc, half, 2, NULL), SK_OK);
    }
    sk_smooth_desc d = {.size = sizeof d, .method = (uint32_t)method, .positions = g.pos, .position_count = g.V,
                        .triangles = g.tri, .triangle_count = g.T, .iterations = 6, .factor = 0.5f};
    ck_assert_int_eq(sk_weights_smooth(whole, &d, NULL, NULL), SK_OK);
    d.positions = c.pos, d.position_count = c.V, d.triangles = c.tri;
    sk_weights_report r = new_report(NULL, NULL);
    ck_assert_int_eq(sk_weights_smooth(cut, &d, &r, NULL), SK_OK);
    ck_assert_uint_eq(r.vertices_visited, c.V);
    for (size_t v = 0; v < c.V; ++v) {
      size_t u = v < g.V ? v : (v - g.V) * 10 + 3;
      for (uint32_t j = 0; j < 2; ++j)
        ck_assert_msg(fabsf(wof(cut, v, j) - wof(whole, u, j)) < 1e-6f, "method %d vertex %zu joint %u: %g vs %g",
                      method, v, j, (double)wof(cut, v, j), (double)wof(whole, u, j));
    }
    sk_skin_destroy(whole);
    sk_skin_destroy(cut);
  }
  free(c.pos);
  free(c.tri);
  mesh_free(&g);
}
END_TEST

START_TEST(test_smooth_constant_field_is_fixed_point) {
  mesh m = make_cylinder(6, 12);
  uint32_t* ja = malloc(m.V * sizeof *ja);
  uint32_t* jb = malloc(m.V * sizeof *jb);
  float* wa = malloc(m.V * sizeof *wa);
  for (size_t v = 0; v < m.V; ++v) ja[v] = 0, jb[v] = 1, wa[v] = 0.25f;
  sk_skin* s = skin_two(m.V, 2, ja, jb, wa);
  sk_smooth_desc d = {.size = sizeof d, .method = SK_SMOOTH_COTANGENT, .positions = m.pos, .position_count = m.V,
                      .triangles = m.tri, .triangle_count = m.T, .iterations = 5};
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, NULL), SK_OK);
  for (size_t v = 0; v < m.V; ++v) {
    ck_assert_float_eq_tol(wof(s, v, 0), 0.25f, 1e-6f);
    ck_assert_float_eq_tol(wof(s, v, 1), 0.75f, 1e-6f);
  }
  free(ja);
  free(jb);
  free(wa);
  sk_skin_destroy(s);
  mesh_free(&m);
}
END_TEST

START_TEST(test_smooth_mask_locks_and_joint_list) {
  mesh m = make_grid(10, 4, 0.0f);
  uint8_t mask[40] = {0};
  for (size_t v = 0; v < m.V; ++v) mask[v] = (v % 10) >= 5; /* only the joint-1 half */
  /* 3 joints: joint 2 carries a locked 0.1 on every vertex */
  uint32_t off[41], jt[80];
  float wt[80];
  size_t n = 0;
  off[0] = 0;
  for (size_t v = 0; v < m.V; ++v) {
    jt[n] = (v % 10) < 5 ? 0 : 1, wt[n++] = 0.9f;
    jt[n] = 2, wt[n++] = 0.1f;
    off[v + 1] = (uint32_t)n;
  }
  sk_skin* s = make_skin(m.V, 3, off, jt, wt);
  uint8_t locked[3] = {0, 0, 1};
  uint8_t flags[40];
  sk_weights_report r = new_report(flags, NULL);
  sk_smooth_desc d = {.size = sizeof d, .triangles = m.tri, .triangle_count = m.T, .iterations = 3,
                      .scope = {.vertex_mask = mask, .vertex_mask_count = m.V, .locked_joints = locked,
                                .locked_joint_count = 3}};
  ck_assert_int_eq(sk_weights_smooth(s, &d, &r, NULL), SK_OK);
  for (size_t v = 0; v < m.V; ++v) {
    ck_assert(wof(s, v, 2) == 0.1f);
    ck_assert_float_eq_tol(vsum(s, v), 1.0, 1e-5);
    if (!mask[v]) {
      ck_assert_uint_eq(vget(s, v, NULL, NULL), 2);
      ck_assert(wof(s, v, 0) == 0.9f);
      ck_assert_uint_eq(flags[v], 0);
    }
  }
  ck_assert_float_gt(wof(s, 15, 0), 0.05f); /* joint 0 leaked into the selected border column */
  ck_assert_uint_eq(r.vertices_visited, 20);
  sk_skin_destroy(s);
  /* joint list: only joint 1 is smoothed; joint 0 values are only rescaled */
  s = make_skin(m.V, 3, off, jt, wt);
  uint32_t list[1] = {1};
  sk_smooth_desc d2 = {.size = sizeof d2, .triangles = m.tri, .triangle_count = m.T, .iterations = 3, .joints = list,
                       .joint_list_count = 1};
  ck_assert_int_eq(sk_weights_smooth(s, &d2, NULL, NULL), SK_OK);
  for (size_t v = 0; v < m.V; ++v) {
    if ((v % 10) >= 5) continue;
    /* joint-0 vertices gain joint 1 near the border but never gain joint 0 elsewhere */
    ck_assert_float_eq_tol(vsum(s, v), 1.0, 1e-5);
  }
  ck_assert_float_eq(wof(s, 15, 0), 0.0f);
  ck_assert_float_gt(wof(s, 14, 1), 0.0f);
  sk_skin_destroy(s);
  mesh_free(&m);
}
END_TEST

START_TEST(test_smooth_limit_and_errors) {
  mesh m = make_grid(8, 8, 0.0f);
  uint32_t* ja = malloc(m.V * sizeof *ja);
  float* wa = malloc(m.V * sizeof *wa);
  for (size_t v = 0; v < m.V; ++v) ja[v] = (uint32_t)((v % 8) / 2 + 4 * ((v / 8) / 4)), wa[v] = 1.0f;
  sk_skin* s = skin_two(m.V, 8, ja, ja, wa);
  snap before = take(s);
  sk_error e;
  sk_smooth_desc d = {.size = sizeof d, .triangles = m.tri, .triangle_count = 0, .iterations = 4};
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "smoothing needs triangles"));
  d.triangle_count = m.T;
  d.triangles = NULL;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.triangles = m.tri;
  uint32_t bad_list[2] = {1, 8};
  d.joints = bad_list;
  d.joint_list_count = 2;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_OUT_OF_RANGE);
  ck_assert_ptr_nonnull(strstr(e.message, "joint 8"));
  d.joints = NULL;
  d.joint_list_count = 0;
  d.method = SK_SMOOTH_COTANGENT; /* no positions */
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.positions = m.pos;
  d.position_count = m.V - 1;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.position_count = m.V;
  m.pos[3 * 10 + 1] = NAN;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "not finite"));
  m.pos[3 * 10 + 1] = 1.0f;
  d.method = 7;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.method = 0;
  d.factor = 1.5f;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.factor = 0.0f;
  m.tri[5] = (uint32_t)m.V;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_OUT_OF_RANGE);
  m.tri[5] = 1;
  d.size = 3;
  ck_assert_int_eq(sk_weights_smooth(s, &d, NULL, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_smooth(NULL, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(same(&before, s));
  drop(&before);
  /* heavy smoothing spreads many joints; the limit caps them */
  d.size = sizeof d;
  d.iterations = 10;
  d.factor = 1.0f;
  d.max_influences = 2;
  sk_weights_report r = new_report(NULL, NULL);
  ck_assert_int_eq(sk_weights_smooth(s, &d, &r, NULL), SK_OK);
  sk_validate_options vo = {.size = sizeof vo, .max_influences = 2, .tolerance = 1e-4f};
  sk_skin_report vr = {.size = sizeof vr};
  ck_assert_int_eq(sk_skin_validate(s, &vo, &vr, NULL, NULL), SK_OK);
  ck_assert_uint_eq(vr.findings, 0);
  ck_assert_uint_eq(vr.max_influences, 2);
  free(ja);
  free(wa);
  sk_skin_destroy(s);
  mesh_free(&m);
}
END_TEST

/* ------------------------------------------------------------------------------------------ rogue */

START_TEST(test_rogue_island_is_reattached) {
  /* 24 x 3 grid: joint 0 on x < 12, joint 1 on x >= 12; vertex (21, 1) also carries joint 0 (a small island far
   * from joint 0's main region on the same part) */
  mesh m = make_grid(24, 3, 0.0f);
  uint32_t* ja = malloc(m.V * sizeof *ja);
  uint32_t* jb = malloc(m.V * sizeof *jb);
  float* wa = malloc(m.V * sizeof *wa);
  for (size_t v = 0; v < m.V; ++v) {
    ja[v] = (v % 24) < 12 ? 0 : 1;
    jb[v] = ja[v];
    wa[v] = 1.0f;
  }
  size_t rogue_v = 24 + 21;
  ja[rogue_v] = 0, jb[rogue_v] = 1, wa[rogue_v] = 0.4f; /* joint 0 at 0.4 next to nothing of joint 0 */
  sk_skin* s = skin_two(m.V, 3, ja, jb, wa);
  uint8_t flags[72];
  uint32_t per_joint[3];
  sk_weights_report r = new_report(flags, per_joint);
  sk_rogue_desc d = {.size = sizeof d, .triangles = m.tri, .triangle_count = m.T};
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
  ck_assert_float_eq(wof(s, rogue_v, 0), 0.0f);
  ck_assert_float_eq_tol(wof(s, rogue_v, 1), 1.0f, 1e-6f);
  ck_assert_uint_eq(r.vertices_changed, 1);
  ck_assert_uint_eq(r.entries_changed, 1);
  ck_assert_uint_eq(r.joints_affected, 1);
  ck_assert_uint_eq(per_joint[0], 1);
  ck_assert_uint_eq(per_joint[1], 0);
  ck_assert_uint_eq(flags[rogue_v], SK_WFLAG_CHANGED | SK_WFLAG_ROGUE);
  for (size_t v = 0; v < m.V; ++v) ck_assert_float_eq_tol(vsum(s, v), 1.0, 1e-6);
  /* idempotent */
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.vertices_changed, 0);
  sk_skin_destroy(s);
  /* the same island on a locked joint is left alone; so is an unselected rogue vertex */
  s = skin_two(m.V, 3, ja, jb, wa);
  uint8_t locked[3] = {1, 0, 0};
  d.scope.locked_joints = locked;
  d.scope.locked_joint_count = 3;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
  ck_assert(wof(s, rogue_v, 0) == 0.4f);
  d.scope.locked_joints = NULL;
  d.scope.locked_joint_count = 0;
  uint8_t mask[72] = {0};
  d.scope.vertex_mask = mask;
  d.scope.vertex_mask_count = 72;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
  ck_assert(wof(s, rogue_v, 0) == 0.4f);
  ck_assert_uint_eq(r.vertices_changed, 0);
  sk_skin_destroy(s);
  free(ja);
  free(jb);
  free(wa);
  mesh_free(&m);
}
END_TEST

START_TEST(test_rogue_per_component_and_tie_breaks) {
  /* two separate strips, both fully on joint 0: separate parts are never rogue, with or without the (now
   * default) SK_ROGUE_PER_COMPONENT flag, with or without a skeleton */
  mesh a = make_grid(4, 2, 0.0f);
  mesh m;
  m.V = 2 * a.V;
  m.T = 2 * a.T;
  m.pos = malloc(3 * m.V * sizeof *m.pos);
  m.tri = malloc(3 * m.T * sizeof *m.tri);
  memcpy(m.pos, a.pos, 3 * a.V * sizeof *m.pos);
  for (size_t i = 0; i < 3 * a.V; ++i) m.pos[3 * a.V + i] = a.pos[i] + (i % 3 == 0 ? 10.0f : 0.0f);
  memcpy(m.tri, a.tri, 3 * a.T * sizeof *m.tri);
  for (size_t i = 0; i < 3 * a.T; ++i) m.tri[3 * a.T + i] = a.tri[i] + (uint32_t)a.V;
  uint32_t* ja = calloc(m.V, sizeof *ja);
  float* wa = malloc(m.V * sizeof *wa);
  for (size_t v = 0; v < m.V; ++v) wa[v] = 1.0f;
  ja[3] = ja[7] = 1;
  sk_skin* s = skin_two(m.V, 2, ja, ja, wa);
  sk_rogue_desc d = {.size = sizeof d, .triangles = m.tri, .triangle_count = m.T, .flags = SK_ROGUE_PER_COMPONENT};
  sk_weights_report r = new_report(NULL, NULL);
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.vertices_changed, 0);
  d.flags = 0;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.vertices_changed, 0);
  ck_assert_uint_eq(r.vertices_failed, 0);
  const char* names[2] = {"root", "tip"};
  int32_t parents[2] = {-1, 0};
  float rest[32] = {0};
  for (int k = 0; k < 2; ++k) rest[16 * k] = rest[16 * k + 5] = rest[16 * k + 10] = rest[16 * k + 15] = 1.0f;
  rest[12] = 11.0f;
  rest[16 + 12] = -11.0f;
  sk_skeleton_desc sd = {.size = sizeof sd, .joint_count = 2, .names = names, .parents = parents, .rest_local = rest};
  sk_skeleton* sk = NULL;
  ck_assert_int_eq(sk_skeleton_create(&sd, &sk, NULL), SK_OK);
  d.skeleton = sk;
  d.positions = m.pos;
  d.position_count = m.V;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.vertices_changed, 0);
  /* errors */
  sk_error e;
  d.triangle_count = 0;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "needs triangles"));
  d.triangle_count = m.T;
  d.epsilon = 1.0f;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.epsilon = 0.0f;
  d.flags = 2;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.flags = 0;
  m.pos[4] = NAN;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  m.pos[4] = 0.0f;
  d.position_count = 3;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.position_count = m.V;
  d.size = 0;
  ck_assert_int_eq(sk_weights_remove_rogue(s, &d, NULL, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_remove_rogue(NULL, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  sk_skeleton_destroy(sk);
  free(ja);
  free(wa);
  sk_skin_destroy(s);
  mesh_free(&m);
  mesh_free(&a);
}
END_TEST

/* five loose cylinders (12 rings x 8), each weighted to 1-3 of 4 joints with smooth ramps along Y; joint 0 is on
 * three parts, so a whole-mesh flood would take it from two of them */
enum { MP_PARTS = 5, MP_RINGS = 12, MP_SEG = 8, MP_PV = MP_RINGS * MP_SEG };
static float mp_ramp(size_t ring) { return ring < 4 ? 1.0f : ring >= 8 ? 0.0f : (float)(8 - ring) / 4.0f; }
static mesh make_multipart(uint32_t* ja, uint32_t* jb, float* wa) {
  mesh c = make_cylinder(MP_RINGS, MP_SEG), m;
  m.V = MP_PARTS * c.V;
  m.T = MP_PARTS * c.T;
  m.pos = malloc(3 * m.V * sizeof *m.pos);
  m.tri = malloc(3 * m.T * sizeof *m.tri);
  static const uint32_t pa[MP_PARTS] = {0, 1, 0, 2, 0}, pb[MP_PARTS] = {0, 2, 1, 3, 3};
  for (size_t k = 0; k < MP_PARTS; ++k) {
    for (size_t i = 0; i < 3 * c.V; ++i) m.pos[3 * c.V * k + i] = c.pos[i] + (i % 3 == 0 ? 5.0f * (float)k : 0.0f);
    for (size_t i = 0; i < 3 * c.T; ++i) m.tri[3 * c.T * k + i] = c.tri[i] + (uint32_t)(c.V * k);
    for (size_t v = 0; v < c.V; ++v) {
      size_t g = k * c.V + v;
      ja[g] = pa[k], jb[g] = pb[k];
      wa[g] = pa[k] == pb[k] ? 1.0f : mp_ramp(v / MP_SEG);
    }
  }
  mesh_free(&c);
  return m;
}

START_TEST(test_rogue_multipart_clean_and_planted) {
  uint32_t ja[MP_PARTS * MP_PV], jb[MP_PARTS * MP_PV];
  float wa[MP_PARTS * MP_PV];
  mesh m = make_multipart(ja, jb, wa);
  for (int with_pos = 0; with_pos < 2; ++with_pos) {
    /* clean: nothing changes, and the skin is kept bit for bit */
    sk_skin* s = skin_two(m.V, 4, ja, jb, wa);
    sk_skin* before = skin_two(m.V, 4, ja, jb, wa);
    sk_rogue_desc d = {.size = sizeof d, .triangles = m.tri, .triangle_count = m.T};
    if (with_pos) d.positions = m.pos, d.position_count = m.V;
    sk_weights_report r = new_report(NULL, NULL);
    ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
    ck_assert_uint_eq(r.vertices_changed, 0);
    ck_assert_uint_eq(r.vertices_failed, 0);
    ck_assert_uint_eq(r.entries_changed, 0);
    for (size_t v = 0; v < m.V; ++v)
      for (uint32_t j = 0; j < 4; ++j) ck_assert(wof(s, v, j) == wof(before, v, j));
    sk_skin_destroy(s);
    /* planted: two neighbouring vertices of part 1's top ring carry joint 1 at 0.05 (its main region is rings 0-7
     * of that part); a weight below float precision (1e-8) on part 3's top ring is no change */
    uint32_t pja[MP_PARTS * MP_PV], pjb[MP_PARTS * MP_PV];
    float pwa[MP_PARTS * MP_PV];
    memcpy(pja, ja, sizeof pja), memcpy(pjb, jb, sizeof pjb), memcpy(pwa, wa, sizeof pwa);
    size_t p1 = 1 * MP_PV + 11 * MP_SEG + 2, p2 = p1 + 1, tiny = 3 * MP_PV + 11 * MP_SEG + 5;
    pja[p1] = pja[p2] = 1, pjb[p1] = pjb[p2] = 2, pwa[p1] = pwa[p2] = 0.05f;
    pja[tiny] = 2, pjb[tiny] = 3, pwa[tiny] = 1e-8f;
    s = skin_two(m.V, 4, pja, pjb, pwa);
    uint8_t* flags = malloc(m.V);
    uint32_t per_joint[4];
    r = new_report(flags, per_joint);
    ck_assert_int_eq(sk_weights_remove_rogue(s, &d, &r, NULL), SK_OK);
    ck_assert_uint_eq(r.vertices_changed, 2);
    ck_assert_uint_eq(r.entries_changed, 2);
    ck_assert_uint_eq(r.joints_affected, 1);
    ck_assert_uint_eq(per_joint[1], 2);
    for (size_t v = 0; v < m.V; ++v) {
      if (v == p1 || v == p2) {
        ck_assert_uint_eq(flags[v], SK_WFLAG_CHANGED | SK_WFLAG_ROGUE);
        ck_assert(wof(s, v, 1) == 0.0f);
        ck_assert_float_eq_tol(wof(s, v, 2), 1.0f, 1e-6f);
        continue;
      }
      ck_assert_uint_eq(flags[v], 0);
      for (uint32_t j = 0; j < 4; ++j) ck_assert(wof(s, v, j) == (v == tiny && j == 2 ? 1e-8f : wof(before, v, j)) ||
                                                 (v == tiny && j == 3));
    }
    free(flags);
    sk_skin_destroy(s);
    sk_skin_destroy(before);
  }
  mesh_free(&m);
}
END_TEST

/* The clean corpus meshes (real characters made of loose parts, split at UV seams) lose nothing. */
START_TEST(test_corpus_rogue_leaves_clean_meshes) {
  if (!skt_assets_dir()) {
    ck_assert(!skt_assets_required());
    return;
  }
  const char* files[] = {"gltf/CesiumMan.glb", "gltf/CesiumMan_subdiv2.glb", "gltf/Fox.glb", "gltf/quad_skin.glb",
                         "gltf/SimpleSkin.gltf"};
  for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
    sk_scene* sc = NULL;
    sk_error e;
    ck_assert_msg(sk_scene_load(skt_asset(files[f]), NULL, &sc, &e) == SK_OK, "%s: %s", files[f], e.message);
    for (uint32_t k = 0; k < sk_scene_mesh_count(sc); ++k) {
      sk_skin* skin = sk_scene_mesh_skin(sc, k);
      if (!skin) continue;
      size_t np = sk_scene_mesh_positions(sc, k, NULL, 0), ni = sk_scene_mesh_indices(sc, k, NULL, 0);
      if (!ni) continue;
      float* pos = malloc(np * sizeof *pos);
      uint32_t* idx = malloc(ni * sizeof *idx);
      sk_scene_mesh_positions(sc, k, pos, np);
      sk_scene_mesh_indices(sc, k, idx, ni);
      for (int with_pos = 0; with_pos < 2; ++with_pos) {
        sk_rogue_desc d = {.size = sizeof d, .triangles = idx, .triangle_count = ni / 3};
        if (with_pos) d.positions = pos, d.position_count = np / 3;
        sk_weights_report r = new_report(NULL, NULL);
        ck_assert_int_eq(sk_weights_remove_rogue(skin, &d, &r, NULL), SK_OK);
        if (with_pos) ck_assert_msg(r.vertices_changed == 0, "%s mesh %u: %llu vertices changed", files[f], k,
                                    (unsigned long long)r.vertices_changed);
        ck_assert_uint_eq(r.vertices_failed, 0);
      }
      free(pos);
      free(idx);
    }
    sk_scene_destroy(sc);
  }
}
END_TEST

/* ------------------------------------------------------------------------------------------ mirror */

static void check_mirror(const char* in, const char* expect) {
  char out[64];
  sk_error e;
  ck_assert_int_eq(sk_joint_mirror_name(in, out, sizeof out, &e), SK_OK);
  ck_assert_str_eq(out, expect);
  /* involution */
  char back[64];
  ck_assert_int_eq(sk_joint_mirror_name(out, back, sizeof back, NULL), SK_OK);
  ck_assert_str_eq(back, in);
}

START_TEST(test_joint_mirror_name_conventions) {
  check_mirror("upper_arm.L", "upper_arm.R");
  check_mirror("hand.r", "hand.l");
  check_mirror("Thigh_L", "Thigh_R");
  check_mirror("foot_r", "foot_l");
  check_mirror("shin-L", "shin-R");
  check_mirror("L_Clavicle", "R_Clavicle");
  check_mirror("r_toe", "l_toe");
  check_mirror("Bip01 L Thigh", "Bip01 R Thigh");
  check_mirror("mixamorig:LeftHand", "mixamorig:RightHand");
  check_mirror("LeftUpLeg", "RightUpLeg");
  check_mirror("left_arm", "right_arm");
  check_mirror("arm_left", "arm_right");
  check_mirror("ArmRight", "ArmLeft");
  check_mirror("LEFT_EYE", "RIGHT_EYE");
  check_mirror("Leg.Left", "Leg.Right");
  char out[64] = "unchanged";
  sk_error e;
  const char* none[] = {"Spine", "Bright", "Lefty", "L", "Root_L2", "alright", "Head"};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i) {
    ck_assert_int_eq(sk_joint_mirror_name(none[i], out, sizeof out, &e), SK_ERR_NOT_FOUND);
    ck_assert_str_eq(out, "unchanged");
  }
  ck_assert_int_eq(sk_joint_mirror_name("LeftArm", out, 8, &e), SK_ERR_OUT_OF_RANGE); /* needs 9 */
  ck_assert_str_eq(out, "unchanged");
  ck_assert_int_eq(sk_joint_mirror_name("LeftArm", out, 9, &e), SK_OK);
  ck_assert_str_eq(out, "RightArm");
  ck_assert_int_eq(sk_joint_mirror_name(NULL, out, 9, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_joint_mirror_name("a.L", NULL, 9, &e), SK_ERR_INVALID_ARGUMENT);
}
END_TEST

static sk_skeleton* lr_skeleton(void) {
  const char* names[6] = {"spine", "arm.L", "arm.R", "hand.L", "b_LeftFoot_07", "b_RightFoot_12"}; /* no hand.R */
  int32_t parents[6] = {-1, 0, 0, 1, 0, 0};
  sk_skeleton_desc sd = {.size = sizeof sd, .joint_count = 6, .names = names, .parents = parents};
  sk_skeleton* sk = NULL;
  ck_assert_int_eq(sk_skeleton_create(&sd, &sk, NULL), SK_OK);
  return sk;
}

START_TEST(test_skeleton_mirror_map) {
  sk_skeleton* sk = lr_skeleton();
  uint32_t map[6], mapped = 0;
  ck_assert_int_eq(sk_skeleton_mirror_map(sk, map, &mapped, NULL), SK_OK);
  ck_assert_uint_eq(map[0], 0);
  ck_assert_uint_eq(map[1], 2);
  ck_assert_uint_eq(map[2], 1);
  ck_assert_uint_eq(map[3], 3);
  ck_assert_uint_eq(map[4], 5); /* serial numbers differ: matched on the stem */
  ck_assert_uint_eq(map[5], 4);
  ck_assert_uint_eq(mapped, 4);
  ck_assert_int_eq(sk_skeleton_mirror_map(NULL, map, &mapped, NULL), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skeleton_mirror_map(sk, NULL, &mapped, NULL), SK_ERR_INVALID_ARGUMENT);
  sk_skeleton_destroy(sk);
}
END_TEST

/* grid 9 x 3 from x = -4 .. 4: right side (x > 0) on arm.L (1), left side on spine (0), center on spine */
static sk_skin* mirror_case(mesh* m) {
  *m = make_grid(9, 3, -4.0f);
  uint32_t* ja = malloc(m->V * sizeof *ja);
  uint32_t* jb = malloc(m->V * sizeof *jb);
  float* wa = malloc(m->V * sizeof *wa);
  for (size_t v = 0; v < m->V; ++v) {
    float x = m->pos[3 * v];
    ja[v] = 0, jb[v] = 1;
    wa[v] = x > 0.0f ? 1.0f - 0.2f * x : 1.0f; /* + side: spine 1 - 0.2x, arm.L 0.2x */
  }
  sk_skin* s = skin_two(m->V, 4, ja, jb, wa);
  free(ja);
  free(jb);
  free(wa);
  return s;
}

START_TEST(test_mirror_copy_positive_to_negative) {
  mesh m;
  sk_skin* s = mirror_case(&m);
  sk_skeleton* sk = lr_skeleton();
  uint8_t flags[27];
  sk_weights_report r = new_report(flags, NULL);
  sk_mirror_desc d = {.size = sizeof d, .positions = m.pos, .position_count = m.V, .skeleton = sk};
  ck_assert_int_eq(sk_weights_mirror(s, &d, &r, NULL), SK_OK);
  for (size_t v = 0; v < m.V; ++v) {
    float x = m.pos[3 * v];
    if (x < 0.0f) {
      ck_assert_float_eq_tol(wof(s, v, 2), -0.2f * x, 1e-6f); /* arm.R mirrors arm.L */
      ck_assert_float_eq(wof(s, v, 1), 0.0f);
      ck_assert_float_eq_tol(wof(s, v, 0), 1.0f + 0.2f * x, 1e-6f);
    } else if (x > 0.0f) {
      ck_assert_float_eq_tol(wof(s, v, 1), 0.2f * x, 1e-6f);
    }
  }
  ck_assert_uint_eq(r.vertices_visited, 12);
  ck_assert_uint_eq(r.vertices_changed, 12);
  ck_assert_uint_eq(r.unmatched, 0);
  ck_assert_uint_eq(r.joints_affected, 2);
  /* a copied skin is symmetric: flipping it changes nothing */
  snap after_copy = take(s);
  d.mode = SK_MIRROR_FLIP;
  ck_assert_int_eq(sk_weights_mirror(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.vertices_visited, 27);
  ck_assert_uint_eq(r.vertices_changed, 0);
  ck_assert(same(&after_copy, s));
  sk_skin_destroy(s);
  /* flip of the one-sided skin swaps the sides; flipping twice restores it */
  mesh_free(&m);
  s = mirror_case(&m);
  d.positions = m.pos;
  snap orig = take(s);
  ck_assert_int_eq(sk_weights_mirror(s, &d, &r, NULL), SK_OK);
  ck_assert_float_eq_tol(wof(s, 0, 2), 0.8f, 1e-6f); /* x = -4 now on arm.R */
  ck_assert_float_eq(wof(s, 8, 1), 0.0f);            /* x = 4 lost arm.L */
  ck_assert_float_eq(wof(s, 8, 0), 1.0f);
  ck_assert_float_eq(wof(s, 4, 0), 1.0f); /* center unchanged */
  ck_assert_int_eq(sk_weights_mirror(s, &d, &r, NULL), SK_OK);
  ck_assert(same(&orig, s));
  drop(&orig);
  drop(&after_copy);
  sk_skeleton_destroy(sk);
  sk_skin_destroy(s);
  mesh_free(&m);
}
END_TEST

/* Weights that do not sum to 1 (a mask group, a partial subset) are copied as they are, with a lock array of no
 * locked joint too (what the addon passes): Blender's Mirror copies them; 0.6 became 1.0 when the row was normalized.
 */
START_TEST(test_mirror_copies_weights_exactly) {
  mesh m = make_grid(9, 3, -4.0f);
  uint32_t* off = malloc((m.V + 1) * sizeof *off);
  uint32_t* jt = malloc(2 * m.V * sizeof *jt);
  float* wt = malloc(2 * m.V * sizeof *wt);
  size_t n = 0;
  off[0] = 0;
  for (size_t v = 0; v < m.V; ++v) { /* + side: arm.L 0.6 and spine 0.1 * x; - side: arm.R 0.2 */
    float x = m.pos[3 * v];
    if (x > 0.0f) jt[n] = 1, wt[n] = 0.6f, ++n, jt[n] = 0, wt[n] = 0.1f * x, ++n;
    if (x < 0.0f) jt[n] = 2, wt[n] = 0.2f, ++n;
    off[v + 1] = (uint32_t)n;
  }
  sk_skin* s = make_skin(m.V, 4, off, jt, wt);
  sk_skeleton* sk = lr_skeleton();
  uint8_t locked[4] = {0, 0, 0, 0};
  sk_mirror_desc d = {.size = sizeof d,
                      .positions = m.pos,
                      .position_count = m.V,
                      .skeleton = sk,
                      .scope = {.locked_joints = locked, .locked_joint_count = 4}};
  for (int pass = 0; pass < 2; ++pass) { /* with the empty lock array, then without one */
    ck_assert_int_eq(sk_weights_mirror(s, &d, NULL, NULL), SK_OK);
    for (size_t v = 0; v < m.V; ++v) {
      float x = m.pos[3 * v];
      if (x >= 0.0f) continue;
      ck_assert(wof(s, v, 2) == 0.6f);
      ck_assert(wof(s, v, 0) == 0.1f * -x);
      ck_assert(wof(s, v, 1) == 0.0f);
    }
    d.scope.locked_joints = NULL, d.scope.locked_joint_count = 0;
  }
  /* a locked joint the destination has: kept, the copy normalized around it (0.2 locked + 0.6 + 0.1x -> sum 1) */
  sk_skin_destroy(s);
  s = make_skin(m.V, 4, off, jt, wt);
  locked[2] = 1;
  d.scope.locked_joints = locked, d.scope.locked_joint_count = 4;
  ck_assert_int_eq(sk_weights_mirror(s, &d, NULL, NULL), SK_OK);
  ck_assert(wof(s, 0, 2) == 0.2f);
  ck_assert_float_eq_tol(vsum(s, 0), 1.0, 1e-6);
  sk_skin_destroy(s);
  sk_skeleton_destroy(sk);
  free(off);
  free(jt);
  free(wt);
  mesh_free(&m);
}
END_TEST

START_TEST(test_mirror_unmatched_locked_and_errors) {
  mesh m;
  sk_skin* s = mirror_case(&m);
  sk_skeleton* sk = lr_skeleton();
  /* move one - side vertex so it has no partner; lock spine on the destination */
  m.pos[3 * 9] += 0.3f;
  uint8_t locked[4] = {1, 0, 0, 0};
  uint8_t flags[27];
  sk_weights_report r = new_report(flags, NULL);
  sk_mirror_desc d = {.size = sizeof d, .mode = SK_MIRROR_POSITIVE_TO_NEGATIVE, .positions = m.pos,
                      .position_count = m.V, .skeleton = sk, .plane = {2.0f, 0.0f, 0.0f, 0.0f}, .tolerance = 0.01f,
                      .scope = {.locked_joints = locked, .locked_joint_count = 4}};
  snap before = take(s);
  ck_assert_int_eq(sk_weights_mirror(s, &d, &r, NULL), SK_OK);
  ck_assert_uint_eq(r.unmatched, 1);
  ck_assert_uint_eq(flags[9], SK_WFLAG_FAILED | SK_WFLAG_UNMATCHED);
  /* vertex x = -4 (index 0): spine locked at 1.0 -> arm.R gets scaled to 1 - 1 = 0 */
  ck_assert(wof(s, 0, 0) == 1.0f);
  ck_assert_float_eq(wof(s, 0, 2), 0.0f);
  ck_assert_float_eq_tol(vsum(s, 0), 1.0, 1e-6);
  sk_skin_destroy(s);
  mesh_free(&m);
  s = mirror_case(&m);
  /* errors: nothing on the destination side, positions missing or NaN, bad mode, bad sizes */
  sk_error e;
  sk_mirror_desc d2 = {.size = sizeof d2, .positions = m.pos, .position_count = m.V, .plane = {1, 0, 0, -10.0f}};
  snap s0 = take(s);
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(e.message, "destination side"));
  d2.plane[3] = 0.0f;
  d2.plane[0] = 0.0f;
  d2.plane[1] = 1.0f; /* Y mirror of a grid with y in 0..2: partners exist only within the grid */
  d2.plane[3] = 1.0f;
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_OK);
  ck_assert_uint_eq(r.unmatched, 0);
  d2.plane[1] = 0.0f;
  d2.plane[0] = 1.0f;
  d2.plane[3] = 0.25f; /* x -> 0.5 - x lands between grid columns: nobody matches */
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(e.message, "mirror partner"));
  ck_assert(same(&s0, s));
  d2.plane[3] = 0.0f;
  d2.positions = NULL;
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d2.positions = m.pos;
  m.pos[5] = NAN;
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_INVALID_ARGUMENT);
  m.pos[5] = 0.0f;
  d2.mode = 3;
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d2.mode = 0;
  d2.plane[0] = INFINITY;
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d2.plane[0] = 1.0f;
  d2.position_count = 5;
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_INVALID_ARGUMENT);
  d2.position_count = m.V;
  d2.size = 1;
  ck_assert_int_eq(sk_weights_mirror(s, &d2, &r, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_mirror(NULL, &d2, &r, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(same(&s0, s));
  drop(&s0);
  drop(&before);
  sk_skeleton_destroy(sk);
  sk_skin_destroy(s);
  mesh_free(&m);
}
END_TEST


/* ------------------------------------------------------------------------------------------ brush */

START_TEST(test_brush_add_falloffs_and_normalize) {
  /* strip 11 x 2 along x, everything on joint 0; paint joint 1 with one dab at x = 5, radius 3 */
  mesh m = make_grid(11, 2, 0.0f);
  uint32_t* ja = calloc(m.V, sizeof *ja);
  float* wa = malloc(m.V * sizeof *wa);
  for (size_t v = 0; v < m.V; ++v) wa[v] = 1.0f;
  float dab[5] = {5.0f, 0.0f, 0.0f, 3.0f, 0.5f};
  float expect_lin[11], expect_sharp[11];
  for (int x = 0; x < 11; ++x) {
    float t = fabsf((float)x - 5.0f) / 3.0f;
    expect_lin[x] = t <= 1.0f ? 0.5f * (1.0f - t) : 0.0f;
    expect_sharp[x] = t <= 1.0f ? 0.5f * (1.0f - t) * (1.0f - t) : 0.0f;
  }
  for (int fo = 0; fo < 4; ++fo) {
    sk_skin* s = skin_two(m.V, 3, ja, ja, wa);
    uint8_t flags[22];
    sk_weights_report r = new_report(flags, NULL);
    sk_brush_desc d = {.size = sizeof d, .mode = SK_BRUSH_ADD, .falloff = (uint32_t)fo, .joint = 1, .positions = m.pos,
                       .position_count = m.V, .dabs = dab, .dab_count = 1};
    ck_assert_int_eq(sk_weights_brush(s, &d, &r, NULL), SK_OK);
    for (int x = 0; x < 11; ++x) {
      float w1 = wof(s, (size_t)x, 1);
      ck_assert_float_eq_tol(vsum(s, (size_t)x), 1.0, 1e-6);
      ck_assert_float_eq_tol(wof(s, (size_t)x, 0), 1.0f - w1, 1e-6f);
      if (fo == SK_FALLOFF_LINEAR) ck_assert_float_eq_tol(w1, expect_lin[x], 1e-6f);
      if (fo == SK_FALLOFF_SHARP) ck_assert_float_eq_tol(w1, expect_sharp[x], 1e-6f);
      if (fo == SK_FALLOFF_CONSTANT) ck_assert_float_eq_tol(w1, abs(x - 5) <= 3 ? 0.5f : 0.0f, 1e-6f);
      if (fo == SK_FALLOFF_SMOOTH && x >= 5) {
        ck_assert_float_le(w1, x > 5 ? wof(s, (size_t)x - 1, 1) : 0.5f);
      }
    }
    ck_assert_float_eq_tol(wof(s, 5, 1), 0.5f, 1e-6f);
    ck_assert_float_eq(wof(s, 9, 1), 0.0f);
    ck_assert_uint_eq(vget(s, 9, NULL, NULL), 1); /* untouched vertices gain no zero entry */
    ck_assert_uint_eq(flags[9], 0);
    sk_skin_destroy(s);
  }
  free(ja);
  free(wa);
  mesh_free(&m);
}
END_TEST

START_TEST(test_brush_modes_locks_mask_geodesic) {
  mesh m = make_grid(11, 2, 0.0f);
  /* joint 0 = 0.6, joint 1 = 0.2 (locked), joint 2 = 0.2 */
  uint32_t off[23], jt[66];
  float wt[66];
  size_t n = 0;
  off[0] = 0;
  for (size_t v = 0; v < m.V; ++v) {
    jt[n] = 0, wt[n++] = 0.6f;
    jt[n] = 1, wt[n++] = 0.2f;
    jt[n] = 2, wt[n++] = 0.2f;
    off[v + 1] = (uint32_t)n;
  }
  sk_skin* s = make_skin(m.V, 3, off, jt, wt);
  uint8_t locked[3] = {0, 1, 0};
  float dab[5] = {5.0f, 0.0f, 0.0f, 1.5f, 1.0f};
  sk_brush_desc d = {.size = sizeof d, .mode = SK_BRUSH_REPLACE, .falloff = SK_FALLOFF_CONSTANT, .joint = 2,
                     .value = 1.0f, .positions = m.pos, .position_count = m.V, .dabs = dab, .dab_count = 1,
                     .scope = {.locked_joints = locked, .locked_joint_count = 3}};
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, NULL), SK_OK);
  /* replace to 1 with the locked 0.2 kept: joint 2 clamps to 0.8, joint 0 goes to 0 */
  ck_assert(wof(s, 5, 1) == 0.2f);
  ck_assert_float_eq_tol(wof(s, 5, 2), 0.8f, 1e-6f);
  ck_assert_float_eq_tol(wof(s, 5, 0), 0.0f, 1e-6f);
  ck_assert_float_eq_tol(wof(s, 7, 2), 0.2f, 1e-6f); /* outside */
  /* subtract clamps at 0 and removes the entry; joint 0 (now 0) has nothing to scale: SUM_OFF, sum = locked 0.2 */
  d.mode = SK_BRUSH_SUBTRACT;
  uint8_t flags[22];
  sk_weights_report r = new_report(flags, NULL);
  ck_assert_int_eq(sk_weights_brush(s, &d, &r, NULL), SK_OK);
  ck_assert_float_eq(wof(s, 5, 2), 0.0f);
  ck_assert_uint_eq(vget(s, 5, NULL, NULL), 2);
  ck_assert_uint_eq(flags[5], SK_WFLAG_CHANGED | SK_WFLAG_SUM_OFF);
  ck_assert_float_eq_tol(vsum(s, 5), 0.2, 1e-6);
  ck_assert_uint_eq(r.sum_off, 6); /* x = 4, 5, 6 on both rows */
  /* on a vertex with joint 0 left, subtract hands the weight to joint 0 */
  float w7[3] = {0.4f, 0.2f, 0.4f};
  uint32_t j7[3] = {0, 1, 2};
  ck_assert_int_eq(sk_skin_set_vertex(s, 5, j7, w7, 3, NULL), SK_OK);
  ck_assert_int_eq(sk_weights_brush(s, &d, &r, NULL), SK_OK);
  ck_assert_float_eq_tol(wof(s, 5, 0), 0.8f, 1e-6f);
  ck_assert(wof(s, 5, 1) == 0.2f);
  /* the mask keeps vertex 4 unpainted */
  uint8_t mask[22] = {0};
  mask[6] = 1;
  d.mode = SK_BRUSH_ADD;
  d.scope.vertex_mask = mask;
  d.scope.vertex_mask_count = m.V;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, NULL), SK_OK);
  ck_assert_float_eq(wof(s, 4, 2), 0.0f); /* unselected: stays as the subtract left it */
  ck_assert_float_eq(wof(s, 5, 2), 0.0f);
  ck_assert_float_eq_tol(wof(s, 6, 2), 0.8f, 1e-6f);
  d.scope.vertex_mask = NULL;
  d.scope.vertex_mask_count = 0;
  /* painting a locked joint, unknown joint, bad dab, missing triangles for geodesic / smooth */
  sk_error e;
  snap before = take(s);
  d.joint = 1;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "locked"));
  d.joint = 3;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_OUT_OF_RANGE);
  d.joint = 2;
  dab[3] = 0.0f;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  dab[3] = 1.5f;
  dab[4] = NAN;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  dab[4] = 1.0f;
  d.flags = SK_BRUSH_GEODESIC;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "needs triangles"));
  d.flags = 0;
  d.mode = SK_BRUSH_SMOOTH;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.mode = 9;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.mode = 0;
  d.falloff = 9;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.falloff = 0;
  d.flags = 64;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.flags = 0;
  d.value = 2.0f;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.value = 1.0f;
  m.pos[2] = NAN;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  m.pos[2] = 0.0f;
  d.positions = NULL;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  d.positions = m.pos;
  d.size = 2;
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_brush(NULL, &d, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(same(&before, s));
  drop(&before);
  sk_skin_destroy(s);
  mesh_free(&m);
}
END_TEST

START_TEST(test_brush_geodesic_stays_on_the_surface) {
  /* a U: two strips x in 0..10 at y = 0 and y = 2 joined only at x = 10 (a fold). A dab at (0, 1) with radius 2
   * reaches both arms in Euclidean distance, only the arm of the nearest vertex geodesically. */
  mesh m;
  m.V = 2 * 11 + 2 * 11;
  m.pos = malloc(3 * m.V * sizeof *m.pos);
  for (size_t a = 0; a < 2; ++a)
    for (size_t r = 0; r < 2; ++r)
      for (size_t x = 0; x < 11; ++x) {
        float* p = m.pos + 3 * (a * 22 + r * 11 + x);
        p[0] = (float)x, p[1] = a ? 2.0f : 0.0f, p[2] = (float)r;
      }
  m.T = 2 * 2 * 10 + 2;
  m.tri = malloc(3 * m.T * sizeof *m.tri);
  size_t t = 0;
  for (uint32_t a = 0; a < 2; ++a)
    for (uint32_t x = 0; x < 10; ++x) {
      uint32_t b0 = a * 22 + x, b1 = b0 + 1, c0 = b0 + 11, c1 = c0 + 1;
      uint32_t* q = m.tri + 3 * t;
      q[0] = b0, q[1] = b1, q[2] = c1, q[3] = b0, q[4] = c1, q[5] = c0;
      t += 2;
    }
  uint32_t* q = m.tri + 3 * t; /* the fold at x = 10 */
  q[0] = 10, q[1] = 32, q[2] = 43, q[3] = 10, q[4] = 43, q[5] = 21;
  uint32_t* ja = calloc(m.V, sizeof *ja);
  float* wa = malloc(m.V * sizeof *wa);
  for (size_t v = 0; v < m.V; ++v) wa[v] = 1.0f;
  float dab[5] = {0.0f, 0.9f, 0.0f, 2.0f, 1.0f};
  for (int geo = 0; geo < 2; ++geo) {
    sk_skin* s = skin_two(m.V, 2, ja, ja, wa);
    sk_brush_desc d = {.size = sizeof d, .mode = SK_BRUSH_ADD, .falloff = SK_FALLOFF_CONSTANT, .joint = 1,
                       .flags = geo ? SK_BRUSH_GEODESIC : 0, .positions = m.pos, .position_count = m.V,
                       .triangles = m.tri, .triangle_count = m.T, .dabs = dab, .dab_count = 1};
    ck_assert_int_eq(sk_weights_brush(s, &d, NULL, NULL), SK_OK);
    ck_assert_float_eq(wof(s, 0, 1), 1.0f);  /* arm 0, x = 0: nearest */
    ck_assert_float_eq(wof(s, 1, 1), 1.0f);  /* 1 along the surface */
    ck_assert_float_eq(wof(s, 3, 1), 0.0f);  /* 3 away */
    ck_assert_float_eq(wof(s, 22, 1), geo ? 0.0f : 1.0f); /* arm 1, x = 0: 1.1 away in space, 20+ on the surface */
    sk_skin_destroy(s);
  }
  /* smooth brush: a spike of joint 1 at vertex 5 spreads to its neighbours */
  sk_skin* s = skin_two(m.V, 2, ja, ja, wa);
  uint32_t j1[2] = {0, 1};
  float w1[2] = {0.2f, 0.8f};
  ck_assert_int_eq(sk_skin_set_vertex(s, 5, j1, w1, 2, NULL), SK_OK);
  float sd[5] = {5.0f, 0.0f, 0.0f, 1.5f, 0.5f};
  sk_brush_desc d = {.size = sizeof d, .mode = SK_BRUSH_SMOOTH, .falloff = SK_FALLOFF_CONSTANT, .joint = 1,
                     .positions = m.pos, .position_count = m.V, .triangles = m.tri, .triangle_count = m.T,
                     .dabs = sd, .dab_count = 1};
  ck_assert_int_eq(sk_weights_brush(s, &d, NULL, NULL), SK_OK);
  ck_assert_float_eq_tol(wof(s, 5, 1), 0.4f, 1e-6f); /* 0.8 + (0 - 0.8) * 0.5: its neighbours carry none */
  ck_assert_float_eq_tol(wof(s, 5, 0), 0.6f, 1e-6f);
  ck_assert_float_gt(wof(s, 4, 1), 0.05f);
  ck_assert_float_eq_tol(vsum(s, 4), 1.0, 1e-6);
  ck_assert_float_eq_tol(vsum(s, 5), 1.0, 1e-6);
  sk_skin_destroy(s);
  free(ja);
  free(wa);
  mesh_free(&m);
}
END_TEST

/* ------------------------------------------------------------------------------------------ corpus */

static void corpus_pipeline(const char* rel) {
  if (!skt_assets_dir()) {
    ck_assert_msg(!skt_assets_required(), "SKINKIT_ASSETS is set but not a directory");
    return;
  }
  sk_scene* sc = NULL;
  sk_error e;
  sk_load_options lo = {.size = sizeof lo};
  ck_assert_msg(sk_scene_load(skt_asset(rel), &lo, &sc, &e) == SK_OK, "%s: %s", rel, e.message);
  const sk_skeleton* sk = sk_scene_skeleton(sc);
  int skinned = 0;
  for (uint32_t mi = 0; mi < sk_scene_mesh_count(sc); ++mi) {
    sk_skin* s = sk_scene_mesh_skin(sc, mi);
    if (!s) continue;
    ++skinned;
    size_t V = sk_scene_mesh_vertex_count(sc, mi), I = sk_scene_mesh_index_count(sc, mi);
    float* pos = malloc((3 * V + 1) * sizeof *pos);
    uint32_t* idx = malloc((I + 1) * sizeof *idx);
    sk_scene_mesh_positions(sc, mi, pos, 3 * V);
    sk_scene_mesh_indices(sc, mi, idx, I);
    sk_weights_report r = new_report(NULL, NULL);
    sk_normalize_desc nd = {.size = sizeof nd, .flags = SK_NORMALIZE_DROP_INVALID};
    ck_assert_int_eq(sk_weights_normalize(s, &nd, &r, &e), SK_OK);
    sk_validate_options vo = {.size = sizeof vo, .tolerance = 1e-4f};
    sk_skin_report vr = {.size = sizeof vr};
    ck_assert_int_eq(sk_skin_validate(s, &vo, &vr, NULL, NULL), SK_OK);
    ck_assert_msg(vr.off_tolerance == 0 && vr.nan == 0 && vr.negative == 0, "%s mesh %u: sums off after normalize", rel, mi);
    if (I >= 3) {
      sk_smooth_desc sd = {.size = sizeof sd, .method = SK_SMOOTH_COTANGENT, .positions = pos, .position_count = V,
                           .triangles = idx, .triangle_count = I / 3, .iterations = 3, .max_influences = 4};
      ck_assert_msg(sk_weights_smooth(s, &sd, &r, &e) == SK_OK, "%s: %s", rel, e.message);
      sk_rogue_desc rd = {.size = sizeof rd, .triangles = idx, .triangle_count = I / 3, .flags = SK_ROGUE_PER_COMPONENT,
                          .skeleton = sk, .positions = pos, .position_count = V};
      ck_assert_msg(sk_weights_remove_rogue(s, &rd, &r, &e) == SK_OK, "%s: %s", rel, e.message);
    }
    sk_limit_desc ld = {.size = sizeof ld, .max_influences = 4};
    ck_assert_int_eq(sk_weights_limit(s, &ld, &r, &e), SK_OK);
    sk_prune_desc pd = {.size = sizeof pd, .threshold = 0.0f};
    ck_assert_int_eq(sk_weights_prune(s, &pd, &r, &e), SK_OK);
    sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
    ck_assert_int_eq(sk_weights_quantize(s, &qd, &r, &e), SK_OK);
    vo.max_influences = 4;
    vo.tolerance = 1e-5f;
    ck_assert_int_eq(sk_skin_validate(s, &vo, &vr, NULL, NULL), SK_OK);
    ck_assert_msg(vr.off_tolerance == 0 && vr.over_limit == 0 && vr.nan == 0 && vr.negative == 0,
                  "%s mesh %u: invariants broken (off %llu, over %llu)", rel, mi, (unsigned long long)vr.off_tolerance,
                  (unsigned long long)vr.over_limit);
    free(pos);
    free(idx);
  }
  ck_assert_msg(skinned > 0, "%s has no skinned mesh", rel);
  sk_scene_destroy(sc);
}

START_TEST(test_corpus_pipeline_keeps_invariants) {
  const char* files[] = {"gltf/CesiumMan.glb", "fbx/huesitos.fbx", "gltf/quad_skin.glb", "gltf/Fox.glb",
                         "ogre/Clonk/Graphics.mesh"};
  corpus_pipeline(files[_i]);
}
END_TEST

START_TEST(test_corpus_fox_mirror_map_is_involution) {
  if (!skt_assets_dir()) {
    ck_assert(!skt_assets_required());
    return;
  }
  sk_scene* sc = NULL;
  sk_error e;
  ck_assert_msg(sk_scene_load(skt_asset("gltf/Fox.glb"), NULL, &sc, &e) == SK_OK, "%s", e.message);
  const sk_skeleton* sk = sk_scene_skeleton(sc);
  ck_assert_ptr_nonnull(sk);
  uint32_t J = sk_skeleton_joint_count(sk), mapped = 0;
  uint32_t* map = malloc(J * sizeof *map);
  ck_assert_int_eq(sk_skeleton_mirror_map(sk, map, &mapped, NULL), SK_OK);
  /* the fox rig names sides "b_RightUpperArm_06" / "b_LeftUpperArm_09": 7 pairs, matched on the stem */
  ck_assert_uint_eq(mapped, 14);
  uint32_t ra = 0, la = 0;
  ck_assert_int_eq(sk_skeleton_find_joint(sk, "b_RightUpperArm_06", &ra), SK_OK);
  ck_assert_int_eq(sk_skeleton_find_joint(sk, "b_LeftUpperArm_09", &la), SK_OK);
  ck_assert_uint_eq(map[ra], la);
  for (uint32_t j = 0; j < J; ++j) ck_assert_uint_eq(map[map[j]], j);
  free(map);
  sk_scene_destroy(sc);
}
END_TEST

static Suite* weights_suite(void) {
  Suite* s = suite_create("weights");
  TCase* tc = tcase_create("result");
  tcase_add_test(tc, test_normalize_scales_to_one);
  tcase_add_test(tc, test_normalize_is_idempotent);
  tcase_add_test(tc, test_normalize_locked_distributes_remainder);
  tcase_add_test(tc, test_normalize_reports_zero_unlocked_and_locked_over_one);
  tcase_add_test(tc, test_normalize_invalid_entries_left_or_dropped);
  tcase_add_test(tc, test_normalize_mask_leaves_unselected);
  tcase_add_test(tc, test_limit_keeps_largest_and_renormalizes);
  tcase_add_test(tc, test_limit_ties_lower_joint_and_no_normalize);
  tcase_add_test(tc, test_limit_prune_merge_duplicate_joints);
  tcase_add_test(tc, test_limit_locked_preferred_or_reported);
  tcase_add_test(tc, test_prune_threshold_keep_one_normalize);
  tcase_add_test(tc, test_quantize_sums_exactly_and_roundtrips);
  tcase_add_test(tc, test_quantize_largest_remainder_values);
  tcase_add_test(tc, test_quantize_matches_reference);
  tcase_add_test(tc, test_quantize_locked_grid_rule);
  tcase_add_test(tc, test_quantize_then_pack_implied_last_weight);
  tcase_add_test(tc, test_adjacency_grid_and_cotangent);
  tcase_add_test(tc, test_kdtree_matches_brute_force);
  tcase_add_test(tc, test_smooth_step_becomes_ramp);
  tcase_add_test(tc, test_smooth_welds_copies);
  tcase_add_test(tc, test_smooth_constant_field_is_fixed_point);
  tcase_add_test(tc, test_smooth_mask_locks_and_joint_list);
  tcase_add_test(tc, test_rogue_island_is_reattached);
  tcase_add_test(tc, test_rogue_per_component_and_tie_breaks);
  tcase_add_test(tc, test_rogue_multipart_clean_and_planted);
  tcase_add_test(tc, test_joint_mirror_name_conventions);
  tcase_add_test(tc, test_skeleton_mirror_map);
  tcase_add_test(tc, test_mirror_copy_positive_to_negative);
  tcase_add_test(tc, test_brush_add_falloffs_and_normalize);
  tcase_add_test(tc, test_brush_geodesic_stays_on_the_surface);
  suite_add_tcase(s, tc);
  TCase* tv = tcase_create("validity");
  tcase_add_test(tv, test_weights_reject_bad_arguments_untouched);
  tcase_add_test(tv, test_smooth_limit_and_errors);
  tcase_add_test(tv, test_mirror_copies_weights_exactly);
  tcase_add_test(tv, test_mirror_unmatched_locked_and_errors);
  tcase_add_test(tv, test_brush_modes_locks_mask_geodesic);
  suite_add_tcase(s, tv);
  TCase* tcorp = tcase_create("corpus");
  tcase_set_timeout(tcorp, 120);
  tcase_add_loop_test(tcorp, test_corpus_pipeline_keeps_invariants, 0, 5);
  tcase_add_test(tcorp, test_corpus_fox_mirror_map_is_involution);
  tcase_add_test(tcorp, test_corpus_rogue_leaves_clean_meshes);
  suite_add_tcase(s, tcorp);
  return s;
}

int main(void) { return skt_run_suite(weights_suite()); }
