/* test_deform.c - deformers (sk_deform_validate / sk_deform_run / sk_cpu_kernel): job validity, properties,
 * kernels against the scalar reference, and skinning quality on a two-bone cylinder. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_deform.h"
#include "skc_math.h"
#include "skinkit.h"

#define PI_F 3.14159265358979f

/* ---------------------------------------------------------------------------------------------- helpers */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static void rng_seed(uint64_t s) { g_rng = s * 0x9E3779B97F4A7C15ull + 1; }
static uint32_t rnd_u32(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 16);
}
static float rnd(float lo, float hi) { return lo + (hi - lo) * (float)(rnd_u32() & 0xffffff) / 16777216.0f; }

static void job_init(sk_deform_job* j) {
  memset(j, 0, sizeof *j);
  j->size = sizeof *j;
}

/* M = T(t) * R(axis, angle) * S(s) */
static void make_trs(const float axis[3], float angle, const float t[3], const float s[3], float out[16]) {
  skc_trs trs;
  skc_trs_identity(&trs);
  skc_quat_from_axis_angle(axis, angle, trs.r);
  memcpy(trs.t, t, sizeof trs.t);
  memcpy(trs.s, s, sizeof trs.s);
  skc_trs_to_mat4(&trs, out);
}

static void random_matrix(float out[16], int scaled) {
  float axis[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
  if (fabsf(axis[0]) + fabsf(axis[1]) + fabsf(axis[2]) < 1e-3f) axis[0] = 1;
  float t[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
  float s[3] = {1, 1, 1};
  if (scaled) {
    s[0] = rnd(0.5f, 2.0f);
    s[1] = rnd(0.5f, 2.0f);
    s[2] = rnd(0.5f, 2.0f);
  }
  make_trs(axis, rnd(-PI_F, PI_F), t, s, out);
}

static void random_unit(float v[3]) {
  for (;;) {
    v[0] = rnd(-1, 1);
    v[1] = rnd(-1, 1);
    v[2] = rnd(-1, 1);
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.1f && l <= 1.0f) {
      v[0] /= l;
      v[1] /= l;
      v[2] /= l;
      return;
    }
  }
}

static float vdist(const float a[3], const float b[3]) {
  float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return sqrtf(d0 * d0 + d1 * d1 + d2 * d2);
}

static void normalize3(float v[3]) {
  float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  v[0] /= l;
  v[1] /= l;
  v[2] /= l;
}

/* Inverse transpose of the upper 3x3 via the general 4x4 inverse (independent of the library's normal matrix). */
static void inverse_transpose(const float m[16], float out[16]) {
  float inv[16];
  ck_assert(skc_mat4_inverse(m, inv));
  memset(out, 0, 16 * sizeof(float));
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) out[c * 4 + r] = inv[r * 4 + c];
  out[15] = 1;
}

/* A small tight job: V vertices, K = 2, u16 joints, f32 weights, positions + normals + tangents (4 comps). */
typedef struct small_job {
  size_t V, J;
  float* palette;
  uint16_t* joints;
  float* weights;
  float *pin, *pout, *nin, *nout, *tin, *tout;
  sk_deform_job job;
} small_job;

static void small_make(small_job* s, size_t V, size_t J) {
  s->V = V;
  s->J = J;
  s->palette = calloc(16 * J, sizeof(float));
  for (size_t j = 0; j < J; ++j) skc_mat4_identity(s->palette + 16 * j);
  s->joints = calloc(2 * V, sizeof(uint16_t));
  s->weights = calloc(2 * V, sizeof(float));
  s->pin = calloc(3 * V, sizeof(float));
  s->pout = calloc(3 * V, sizeof(float));
  s->nin = calloc(3 * V, sizeof(float));
  s->nout = calloc(3 * V, sizeof(float));
  s->tin = calloc(4 * V, sizeof(float));
  s->tout = calloc(4 * V, sizeof(float));
  for (size_t v = 0; v < V; ++v) {
    for (int i = 0; i < 3; ++i) s->pin[3 * v + i] = rnd(-2, 2);
    random_unit(s->nin + 3 * v);
    random_unit(s->tin + 4 * v);
    s->tin[4 * v + 3] = (v & 1) ? 1.0f : -1.0f;
    s->joints[2 * v] = (uint16_t)(rnd_u32() % J);
    s->joints[2 * v + 1] = (uint16_t)(rnd_u32() % J);
    float w = rnd(0, 1);
    s->weights[2 * v] = w;
    s->weights[2 * v + 1] = 1 - w;
  }
  sk_deform_job* j = &s->job;
  job_init(j);
  j->vertex_count = V;
  j->palette = s->palette;
  j->joint_count = J;
  j->influences = 2;
  j->joint_type = SK_TYPE_U16;
  j->weight_type = SK_TYPE_F32;
  j->joints = s->joints;
  j->weights = s->weights;
  j->in_positions = s->pin;
  j->out_positions = s->pout;
  j->in_normals = s->nin;
  j->out_normals = s->nout;
  j->in_tangents = s->tin;
  j->out_tangents = s->tout;
  j->tangent_components = 4;
}

static void small_free(small_job* s) {
  free(s->palette);
  free(s->joints);
  free(s->weights);
  free(s->pin);
  free(s->pout);
  free(s->nin);
  free(s->nout);
  free(s->tin);
  free(s->tout);
}

/* ---------------------------------------------------------------------------------------------- validity */

START_TEST(test_deform_zeroed_job_is_invalid) {
  sk_deform_job j;
  memset(&j, 0, sizeof j);
  sk_error e;
  ck_assert_int_eq(sk_deform_validate(&j, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(e.code, SK_ERR_STRUCT_SIZE);
  ck_assert(e.message[0] != '\0');
  ck_assert_int_eq(sk_deform_run(&j, NULL), SK_ERR_STRUCT_SIZE);
  job_init(&j); /* right size, nothing else: still invalid */
  ck_assert_int_eq(sk_deform_validate(&j, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_deform_validate(NULL, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_deform_run(NULL, NULL), SK_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_deform_wrong_size) {
  small_job s;
  small_make(&s, 4, 2);
  sk_error e;
  ck_assert_int_eq(sk_deform_validate(&s.job, &e), SK_OK);
  s.job.size = sizeof(sk_deform_job) - 8;
  ck_assert_int_eq(sk_deform_validate(&s.job, &e), SK_ERR_STRUCT_SIZE);
  s.job.size = sizeof(sk_deform_job) + 8;
  ck_assert_int_eq(sk_deform_run(&s.job, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(e.code, SK_ERR_STRUCT_SIZE);
  small_free(&s);
}
END_TEST

typedef void (*mutate_fn)(sk_deform_job* j, small_job* s);
static void m_method(sk_deform_job* j, small_job* s) { (void)s, j->method = 3; }
static void m_flags(sk_deform_job* j, small_job* s) { (void)s, j->flags = 1u << 9; }
static void m_vcount(sk_deform_job* j, small_job* s) { (void)s, j->vertex_count = 0; }
static void m_jcount0(sk_deform_job* j, small_job* s) { (void)s, j->joint_count = 0; }
static void m_jcount_big(sk_deform_job* j, small_job* s) { (void)s, j->joint_count = 65536; }
static void m_palette(sk_deform_job* j, small_job* s) { (void)s, j->palette = NULL; }
static void m_palette_nan(sk_deform_job* j, small_job* s) { (void)j, s->palette[16 + 13] = NAN; }
static void m_palette_inf(sk_deform_job* j, small_job* s) { (void)j, s->palette[2] = INFINITY; }
static void m_k9(sk_deform_job* j, small_job* s) { (void)s, j->influences = 9; }
static void m_jtype(sk_deform_job* j, small_job* s) { (void)s, j->joint_type = SK_TYPE_F32; }
static void m_wtype(sk_deform_job* j, small_job* s) { (void)s, j->weight_type = SK_TYPE_U32; }
static void m_jtype_bad(sk_deform_job* j, small_job* s) { (void)s, j->joint_type = (sk_type)77; }
static void m_joints_null(sk_deform_job* j, small_job* s) { (void)s, j->joints = NULL; }
static void m_weights_null(sk_deform_job* j, small_job* s) { (void)s, j->weights = NULL; }
static void m_jstride(sk_deform_job* j, small_job* s) { (void)s, j->joints_stride = 3; }
static void m_wstride(sk_deform_job* j, small_job* s) { (void)s, j->weights_stride = 7; }
static void m_csr_null(sk_deform_job* j, small_job* s) { (void)s, j->influences = 0; }
static void m_pin_null(sk_deform_job* j, small_job* s) { (void)s, j->in_positions = NULL; }
static void m_pout_null(sk_deform_job* j, small_job* s) { (void)s, j->out_positions = NULL; }
static void m_pstride(sk_deform_job* j, small_job* s) { (void)s, j->in_positions_stride = 8; }
static void m_pout_stride(sk_deform_job* j, small_job* s) { (void)s, j->out_positions_stride = 11; }
static void m_nout_null(sk_deform_job* j, small_job* s) { (void)s, j->out_normals = NULL; }
static void m_nin_null(sk_deform_job* j, small_job* s) { (void)s, j->in_normals = NULL; }
static void m_nstride(sk_deform_job* j, small_job* s) { (void)s, j->out_normals_stride = 4; }
static void m_tout_null(sk_deform_job* j, small_job* s) { (void)s, j->out_tangents = NULL; }
static void m_tstride(sk_deform_job* j, small_job* s) { (void)s, j->in_tangents_stride = 12; } /* 4 comps: 16 */
static void m_tcomp(sk_deform_job* j, small_job* s) { (void)s, j->tangent_components = 5; }
static void m_inplace_stride(sk_deform_job* j, small_job* s) {
  (void)s;
  j->out_positions = (float*)j->in_positions;
  j->out_positions_stride = 16;
}

START_TEST(test_deform_invalid_fields) {
  struct {
    const char* name;
    mutate_fn f;
    sk_result code;
  } cases[] = {
      {"method", m_method, SK_ERR_INVALID_ARGUMENT},
      {"flags", m_flags, SK_ERR_INVALID_ARGUMENT},
      {"vertex_count", m_vcount, SK_ERR_INVALID_ARGUMENT},
      {"joint_count 0", m_jcount0, SK_ERR_OUT_OF_RANGE},
      {"joint_count 65536", m_jcount_big, SK_ERR_OUT_OF_RANGE},
      {"palette NULL", m_palette, SK_ERR_INVALID_ARGUMENT},
      {"palette NaN", m_palette_nan, SK_ERR_SINGULAR_MATRIX},
      {"palette Inf", m_palette_inf, SK_ERR_SINGULAR_MATRIX},
      {"influences 9", m_k9, SK_ERR_OUT_OF_RANGE},
      {"joint_type F32", m_jtype, SK_ERR_INVALID_ARGUMENT},
      {"weight_type U32", m_wtype, SK_ERR_INVALID_ARGUMENT},
      {"joint_type 77", m_jtype_bad, SK_ERR_INVALID_ARGUMENT},
      {"joints NULL", m_joints_null, SK_ERR_INVALID_ARGUMENT},
      {"weights NULL", m_weights_null, SK_ERR_INVALID_ARGUMENT},
      {"joints_stride", m_jstride, SK_ERR_INVALID_ARGUMENT},
      {"weights_stride", m_wstride, SK_ERR_INVALID_ARGUMENT},
      {"CSR arrays NULL", m_csr_null, SK_ERR_INVALID_ARGUMENT},
      {"in_positions NULL", m_pin_null, SK_ERR_INVALID_ARGUMENT},
      {"out_positions NULL", m_pout_null, SK_ERR_INVALID_ARGUMENT},
      {"in_positions_stride", m_pstride, SK_ERR_INVALID_ARGUMENT},
      {"out_positions_stride", m_pout_stride, SK_ERR_INVALID_ARGUMENT},
      {"normals without output", m_nout_null, SK_ERR_INVALID_ARGUMENT},
      {"normal output without input", m_nin_null, SK_ERR_INVALID_ARGUMENT},
      {"out_normals_stride", m_nstride, SK_ERR_INVALID_ARGUMENT},
      {"tangents without output", m_tout_null, SK_ERR_INVALID_ARGUMENT},
      {"tangent stride < 16 with 4 components", m_tstride, SK_ERR_INVALID_ARGUMENT},
      {"tangent_components", m_tcomp, SK_ERR_INVALID_ARGUMENT},
      {"in-place with different strides", m_inplace_stride, SK_ERR_INVALID_ARGUMENT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    small_job s;
    small_make(&s, 8, 2);
    sk_error e;
    ck_assert_int_eq(sk_deform_validate(&s.job, &e), SK_OK);
    cases[i].f(&s.job, &s);
    memset(&e, 0, sizeof e);
    sk_result r = sk_deform_validate(&s.job, &e);
    ck_assert_msg(r == cases[i].code, "%s: validate gave %d, expected %d (%s)", cases[i].name, (int)r,
                  (int)cases[i].code, e.message);
    ck_assert_int_eq(e.code, (int)cases[i].code);
    ck_assert_msg(e.message[0] != '\0', "%s: empty message", cases[i].name);
    /* run refuses the same way and writes nothing */
    memset(s.pout, 0x7f, 3 * s.V * sizeof(float));
    float first;
    memcpy(&first, s.pout, sizeof first);
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), cases[i].code);
    ck_assert(memcmp(&first, s.pout, sizeof first) == 0);
    small_free(&s);
  }
}
END_TEST

START_TEST(test_deform_validate_does_not_read_vertices) {
  small_job s;
  small_make(&s, 8, 2);
  s.joints[3] = 999; /* out of range, but only run looks at per-vertex data */
  s.weights[5] = NAN;
  ck_assert_int_eq(sk_deform_validate(&s.job, NULL), SK_OK);
  /* zero means default: u16 joints, f32 weights */
  s.job.joint_type = SK_TYPE_NONE;
  s.job.weight_type = SK_TYPE_NONE;
  ck_assert_int_eq(sk_deform_validate(&s.job, NULL), SK_OK);
  small_free(&s);
}
END_TEST

static void check_bad_vertices(int method, int csr) {
  small_job s;
  small_make(&s, 6, 3);
  float t[3] = {1, 2, 3}, ax[3] = {0, 0, 1}, one[3] = {1, 1, 1};
  for (size_t j = 0; j < 3; ++j) make_trs(ax, 0.3f * (float)j, t, one, s.palette + 16 * j);
  s.joints[2 * 1 + 1] = 7;    /* vertex 1: joint 7 >= 3 */
  s.weights[2 * 4] = NAN;     /* vertex 4: NaN weight */
  s.weights[2 * 5] = INFINITY; /* vertex 5: Inf weight */
  uint32_t off[7], cj[12];
  float cw[12];
  if (csr) {
    for (int v = 0; v <= 6; ++v) off[v] = 2u * (uint32_t)v;
    for (int i = 0; i < 12; ++i) {
      cj[i] = s.joints[i];
      cw[i] = s.weights[i];
    }
    s.job.influences = 0;
    s.job.csr_offsets = off;
    s.job.csr_joints = cj;
    s.job.csr_weights = cw;
  }
  s.job.method = (uint32_t)method;
  memset(s.pout, 0, 3 * s.V * sizeof(float));
  sk_error e;
  ck_assert_int_eq(sk_deform_run(&s.job, &e), SK_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(e.code, SK_ERR_OUT_OF_RANGE);
  ck_assert_msg(strstr(e.message, "3 of 6") != NULL, "message: %s", e.message);
  for (size_t v = 0; v < s.V; ++v) {
    int bad = v == 1 || v == 4 || v == 5;
    float d = vdist(s.pout + 3 * v, s.pin + 3 * v);
    if (bad) {
      ck_assert_msg(d == 0.0f, "bad vertex %zu moved", v);
      ck_assert(vdist(s.nout + 3 * v, s.nin + 3 * v) == 0.0f);
      ck_assert(memcmp(s.tout + 4 * v, s.tin + 4 * v, 16) == 0);
    } else {
      ck_assert_msg(d > 0.5f, "good vertex %zu was not deformed", v);
    }
  }
  small_free(&s);
}

START_TEST(test_deform_out_of_range_joint_keeps_vertex) {
  for (int m = 0; m < 3; ++m) {
    check_bad_vertices(m, 0);
    check_bad_vertices(m, 1);
  }
}
END_TEST

START_TEST(test_deform_csr_decreasing_offsets) {
  small_job s;
  small_make(&s, 3, 2);
  float t[3] = {0, 5, 0}, ax[3] = {0, 0, 1}, one[3] = {1, 1, 1};
  make_trs(ax, 0, t, one, s.palette);
  uint32_t off[4] = {0, 1, 0, 1}; /* vertex 1 has offsets 1 -> 0 */
  uint32_t cj[1] = {0};
  float cw[1] = {1.0f};
  s.job.influences = 0;
  s.job.csr_offsets = off;
  s.job.csr_joints = cj;
  s.job.csr_weights = cw;
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_ERR_OUT_OF_RANGE);
  ck_assert_float_eq_tol(s.pout[1], s.pin[1] + 5, 1e-5f);
  ck_assert(vdist(s.pout + 3, s.pin + 3) == 0.0f);
  ck_assert_float_eq_tol(s.pout[7], s.pin[7] + 5, 1e-5f);
  small_free(&s);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- properties */

START_TEST(test_deform_identity_palette_is_noop) {
  for (int m = 0; m < 3; ++m) {
    small_job s;
    small_make(&s, 500, 4);
    s.job.method = (uint32_t)m;
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
    for (size_t v = 0; v < s.V; ++v) {
      ck_assert_float_le(vdist(s.pout + 3 * v, s.pin + 3 * v), 1e-6f);
      ck_assert_float_le(vdist(s.nout + 3 * v, s.nin + 3 * v), 1e-6f);
      ck_assert_float_le(vdist(s.tout + 4 * v, s.tin + 4 * v), 1e-6f);
      ck_assert(s.tout[4 * v + 3] == s.tin[4 * v + 3]);
    }
    small_free(&s);
  }
}
END_TEST

START_TEST(test_deform_single_rigid_palette_moves_rigidly) {
  rng_seed(2);
  for (int m = 0; m < 3; ++m) {
    small_job s;
    small_make(&s, 500, 3);
    float M[16];
    random_matrix(M, 0);
    for (size_t j = 0; j < 3; ++j) memcpy(s.palette + 16 * j, M, sizeof M);
    s.job.method = (uint32_t)m;
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
    for (size_t v = 0; v < s.V; ++v) {
      float p[3], n[3], t[3];
      skc_mat4_transform_point(M, s.pin + 3 * v, p);
      skc_mat4_transform_dir(M, s.nin + 3 * v, n);
      skc_mat4_transform_dir(M, s.tin + 4 * v, t);
      ck_assert_float_le(vdist(s.pout + 3 * v, p), 2e-5f);
      ck_assert_float_le(vdist(s.nout + 3 * v, n), 2e-5f);
      ck_assert_float_le(vdist(s.tout + 4 * v, t), 2e-5f);
    }
    small_free(&s);
  }
}
END_TEST

START_TEST(test_deform_dqs_equals_lbs_for_translations) {
  rng_seed(3);
  small_job s;
  small_make(&s, 1000, 5);
  for (size_t j = 0; j < 5; ++j) {
    float* m = s.palette + 16 * j;
    skc_mat4_identity(m);
    m[12] = rnd(-3, 3);
    m[13] = rnd(-3, 3);
    m[14] = rnd(-3, 3);
  }
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  float* lbs = malloc(3 * s.V * sizeof(float));
  memcpy(lbs, s.pout, 3 * s.V * sizeof(float));
  s.job.method = SK_DEFORM_DQS;
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  for (size_t v = 0; v < s.V; ++v) {
    ck_assert_float_le(vdist(s.pout + 3 * v, lbs + 3 * v), 1e-5f);
    ck_assert_float_le(vdist(s.nout + 3 * v, s.nin + 3 * v), 1e-5f); /* translations leave normals alone */
  }
  free(lbs);
  small_free(&s);
}
END_TEST

START_TEST(test_deform_lbs_inside_hull_of_joint_images) {
  rng_seed(4);
  enum { V = 2000, J = 6, K = 4 };
  float* pal = malloc(16 * J * sizeof(float));
  for (int j = 0; j < J; ++j) random_matrix(pal + 16 * j, 0);
  uint32_t* jn = malloc(V * K * sizeof(uint32_t));
  float* w = malloc(V * K * sizeof(float));
  float* pin = malloc(3 * V * sizeof(float));
  float* pout = malloc(3 * V * sizeof(float));
  for (int v = 0; v < V; ++v) {
    float sum = 0;
    for (int k = 0; k < K; ++k) {
      jn[v * K + k] = rnd_u32() % J;
      w[v * K + k] = rnd(0, 1);
      sum += w[v * K + k];
    }
    for (int k = 0; k < K; ++k) w[v * K + k] /= sum;
    for (int i = 0; i < 3; ++i) pin[3 * v + i] = rnd(-2, 2);
  }
  sk_deform_job j;
  job_init(&j);
  j.vertex_count = V;
  j.palette = pal;
  j.joint_count = J;
  j.influences = K;
  j.joint_type = SK_TYPE_U32;
  j.weight_type = SK_TYPE_F32;
  j.joints = jn;
  j.weights = w;
  j.in_positions = pin;
  j.out_positions = pout;
  ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
  for (int v = 0; v < V; ++v) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < K; ++k) {
      float q[3];
      skc_mat4_transform_point(pal + 16 * jn[v * K + k], pin + 3 * v, q);
      for (int i = 0; i < 3; ++i) {
        lo[i] = fminf(lo[i], q[i]);
        hi[i] = fmaxf(hi[i], q[i]);
      }
    }
    for (int i = 0; i < 3; ++i) {
      ck_assert_float_ge(pout[3 * v + i], lo[i] - 1e-5f);
      ck_assert_float_le(pout[3 * v + i], hi[i] + 1e-5f);
    }
  }
  free(pal);
  free(jn);
  free(w);
  free(pin);
  free(pout);
}
END_TEST

/* ---- every kernel against the scalar reference, on randomized streams of every layout ---- */

typedef struct rscene {
  size_t V, J;
  uint32_t K; /* 0 = CSR */
  int jt, wt;
  float* palette;
  unsigned char *jraw, *wraw, *praw, *nraw, *traw;
  unsigned char *jb, *wb, *pb, *nb, *tb; /* unaligned views (raw + 1) */
  size_t js, ws, ps, ns, ts;
  uint32_t *off, *cj;
  float* cw;
} rscene;

static size_t tsize(int t) { return t == SK_TYPE_U8 ? 1 : t == SK_TYPE_U16 ? 2 : 4; }

static void put_joint(unsigned char* p, int jt, uint32_t x) {
  if (jt == SK_TYPE_U8) {
    *p = (unsigned char)x;
  } else if (jt == SK_TYPE_U16) {
    uint16_t y = (uint16_t)x;
    memcpy(p, &y, 2);
  } else {
    memcpy(p, &x, 4);
  }
}
static void put_weight(unsigned char* p, int wt, float w) {
  if (wt == SK_TYPE_U8) {
    *p = (unsigned char)lrintf(w * 255.0f);
  } else if (wt == SK_TYPE_U16) {
    uint16_t y = (uint16_t)lrintf(w * 65535.0f);
    memcpy(p, &y, 2);
  } else {
    memcpy(p, &w, 4);
  }
}

static void rscene_make(rscene* s, size_t V, size_t J, uint32_t K, int jt, int wt, int scaled) {
  memset(s, 0, sizeof *s);
  s->V = V;
  s->J = J;
  s->K = K;
  s->jt = jt;
  s->wt = wt;
  s->palette = malloc(16 * J * sizeof(float));
  for (size_t j = 0; j < J; ++j) random_matrix(s->palette + 16 * j, scaled && (j % 2 == 1));
  s->ps = 12 + 5;
  s->ns = 12 + 3;
  s->ts = 16 + 1;
  s->praw = malloc(V * s->ps + 8);
  s->nraw = malloc(V * s->ns + 8);
  s->traw = malloc(V * s->ts + 8);
  s->pb = s->praw + 1;
  s->nb = s->nraw + 1;
  s->tb = s->traw + 1;
  for (size_t v = 0; v < V; ++v) {
    float p[3] = {rnd(-2, 2), rnd(-2, 2), rnd(-2, 2)}, n[3], t[4];
    random_unit(n);
    random_unit(t);
    t[3] = (v % 3) ? 1.0f : -1.0f;
    memcpy(s->pb + v * s->ps, p, 12);
    memcpy(s->nb + v * s->ns, n, 12);
    memcpy(s->tb + v * s->ts, t, 16);
  }
  if (K > 0) {
    s->js = K * tsize(jt) + 3;
    s->ws = K * tsize(wt) + 5;
    s->jraw = calloc(V * s->js + 8, 1);
    s->wraw = calloc(V * s->ws + 8, 1);
    s->jb = s->jraw + 1;
    s->wb = s->wraw + 1;
    size_t jmax = jt == SK_TYPE_U8 ? (J < 256 ? J : 256) : J;
    for (size_t v = 0; v < V; ++v) {
      float w[8], sum = 0;
      uint32_t used = 1 + rnd_u32() % K; /* some slots stay zero */
      for (uint32_t k = 0; k < K; ++k) {
        w[k] = k < used ? rnd(0.05f, 1.0f) : 0.0f;
        sum += w[k];
      }
      if (v % 7 == 0) { /* 100 % on one joint: rigid fast path */
        w[0] = 1;
        for (uint32_t k = 1; k < K; ++k) w[k] = 0;
        sum = 1;
      }
      for (uint32_t k = 0; k < K; ++k) {
        put_joint(s->jb + v * s->js + k * tsize(jt), jt, rnd_u32() % jmax);
        put_weight(s->wb + v * s->ws + k * tsize(wt), wt, w[k] / sum);
      }
    }
  } else {
    s->off = malloc((V + 1) * sizeof(uint32_t));
    s->cj = malloc(V * 12 * sizeof(uint32_t));
    s->cw = malloc(V * 12 * sizeof(float));
    uint32_t e = 0;
    for (size_t v = 0; v < V; ++v) {
      s->off[v] = e;
      uint32_t n = rnd_u32() % 12; /* 0 .. 11 influences: more than the packed maximum */
      float sum = 0;
      for (uint32_t i = 0; i < n; ++i) {
        s->cj[e + i] = rnd_u32() % J;
        s->cw[e + i] = rnd(0.0f, 1.0f);
        sum += s->cw[e + i];
      }
      for (uint32_t i = 0; i < n; ++i) s->cw[e + i] /= sum;
      e += n;
    }
    s->off[V] = e;
  }
}

static void rscene_free(rscene* s) {
  free(s->palette);
  free(s->jraw);
  free(s->wraw);
  free(s->praw);
  free(s->nraw);
  free(s->traw);
  free(s->off);
  free(s->cj);
  free(s->cw);
}

typedef struct routs {
  unsigned char *p, *n, *t;
} routs;

static void rscene_job(const rscene* s, sk_deform_job* j, routs* o, int method, uint32_t flags, int normals) {
  job_init(j);
  j->method = (uint32_t)method;
  j->flags = flags;
  j->vertex_count = s->V;
  j->palette = s->palette;
  j->joint_count = s->J;
  j->influences = s->K;
  j->joint_type = (sk_type)s->jt;
  j->weight_type = (sk_type)s->wt;
  j->joints = s->jb;
  j->joints_stride = s->js;
  j->weights = s->wb;
  j->weights_stride = s->ws;
  j->csr_offsets = s->off;
  j->csr_joints = s->cj;
  j->csr_weights = s->cw;
  j->in_positions = (const float*)(const void*)s->pb; /* unaligned on purpose: read through memcpy only */
  j->in_positions_stride = s->ps;
  j->out_positions = (float*)(void*)(o->p + 1);
  j->out_positions_stride = s->ps;
  if (normals) {
    j->in_normals = (const float*)(const void*)s->nb;
    j->in_normals_stride = s->ns;
    j->out_normals = (float*)(void*)(o->n + 1);
    j->out_normals_stride = s->ns;
  }
  if (normals == 1) { /* normals == 2: normals without tangents (the fast loops) */
    j->in_tangents = (const float*)(const void*)s->tb;
    j->in_tangents_stride = s->ts;
    j->out_tangents = (float*)(void*)(o->t + 1);
    j->out_tangents_stride = s->ts;
    j->tangent_components = 4;
  }
}

static void routs_alloc(const rscene* s, routs* o) {
  o->p = calloc(s->V * s->ps + 8, 1);
  o->n = calloc(s->V * s->ns + 8, 1);
  o->t = calloc(s->V * s->ts + 8, 1);
}
static void routs_free(routs* o) {
  free(o->p);
  free(o->n);
  free(o->t);
}

/* max relative difference over a strided stream of `comps` floats */
static float stream_diff(const unsigned char* a, const unsigned char* b, size_t V, size_t stride, int comps) {
  float worst = 0;
  for (size_t v = 0; v < V; ++v)
    for (int c = 0; c < comps; ++c) {
      float x, y;
      memcpy(&x, a + 1 + v * stride + 4 * c, 4);
      memcpy(&y, b + 1 + v * stride + 4 * c, 4);
      float d = fabsf(x - y) / (1.0f + fabsf(x));
      if (!(d <= worst)) worst = d;
    }
  return worst;
}

#define NKERNELS 4
static const char* kernel_names[NKERNELS] = {"scalar", "sse2", "avx2", "avx512"};

/* Selects kernel k through SKINKIT_KERNEL; 0 when this CPU cannot run it (the dispatcher then falls back). The
 * avx512 kernel being skipped is said once per process, so a run on a CPU without it is visible in the log. */
static int use_kernel(int k) {
  static int said;
  setenv("SKINKIT_KERNEL", kernel_names[k], 1);
  if (strcmp(sk_cpu_kernel(), kernel_names[k]) == 0) return 1;
  if (k == 3 && !said) {
    said = 1;
    printf("test_deform: this CPU (or OS) lacks AVX-512 F/VL/BW/DQ: the avx512 kernel was NOT run\n");
  }
  return 0;
}

START_TEST(test_deform_kernels_match_scalar) {
  rng_seed(5);
  const int jts[3] = {SK_TYPE_U8, SK_TYPE_U16, SK_TYPE_U32};
  const int wts[3] = {SK_TYPE_F32, SK_TYPE_U8, SK_TYPE_U16};
  const uint32_t flag_sets[5] = {0, SK_DEFORM_ADDITIVE, SK_DEFORM_NORMALIZE_WEIGHTS, SK_DEFORM_NORMAL_FAST,
                                 SK_DEFORM_NO_RENORMALIZE};
  int configs = 0;
  for (int layout = 0; layout < 9 * 8 + 1; ++layout) {
    uint32_t K = layout < 72 ? 1 + (uint32_t)(layout % 8) : 0;
    int jt = jts[(layout / 8) % 3], wt = wts[(layout / 24) % 3];
    int scaled = layout % 3 == 0;
    rscene s;
    rscene_make(&s, 777, 300, K, jt, wt, scaled); /* 300 joints: heap scratch path */
    for (int method = 0; method < 3; ++method) {
      uint32_t flags = flag_sets[(layout + method) % 5];
      /* 1: normals + tangents, 2: normals only, 0: positions only. The reference always runs the generic
       * loop (skc_deform_force_generic; with tangents when there are normals), so the fast loops of every kernel,
       * scalar included, are checked against it. */
      int normals = (layout + method) % 4 == 3 ? 0 : (layout + method) % 4 == 2 ? 2 : 1;
      routs ref, out;
      routs_alloc(&s, &ref);
      routs_alloc(&s, &out);
      sk_deform_job j;
      setenv("SKINKIT_KERNEL", "scalar", 1);
      ck_assert_str_eq(sk_cpu_kernel(), "scalar");
      rscene_job(&s, &j, &ref, method, flags, normals ? 1 : 0);
      j.threads = 1;
      sk_error e;
      skc_deform_force_generic(1);
      ck_assert_msg(sk_deform_run(&j, &e) == SK_OK, "scalar: %s", e.message);
      skc_deform_force_generic(0);
      for (int k = 0; k < NKERNELS; ++k) {
        if (!use_kernel(k)) continue; /* CPU lacks it */
        rscene_job(&s, &j, &out, method, flags, normals);
        ck_assert_msg(sk_deform_run(&j, &e) == SK_OK, "%s: %s", kernel_names[k], e.message);
        float dp = stream_diff(ref.p, out.p, s.V, s.ps, 3);
        ck_assert_msg(dp <= 1e-5f, "%s K=%u jt=%d wt=%d method=%d flags=%u: positions differ by %g", kernel_names[k],
                      K, jt, wt, method, flags, dp);
        if (normals) {
          float dn = stream_diff(ref.n, out.n, s.V, s.ns, 3);
          float dt = normals == 1 ? stream_diff(ref.t, out.t, s.V, s.ts, 4) : 0.0f;
          ck_assert_msg(dn <= 1e-5f && dt <= 1e-5f, "%s K=%u method=%d flags=%u: normals %g tangents %g",
                        kernel_names[k], K, method, flags, dn, dt);
        }
        configs++;
      }
      routs_free(&ref);
      routs_free(&out);
    }
    rscene_free(&s);
  }
  unsetenv("SKINKIT_KERNEL");
  printf("kernels vs scalar: %d configurations compared (active kernel here: %s)\n", configs, sk_cpu_kernel());
  ck_assert_int_gt(configs, 0);
}
END_TEST

/* max relative difference of two float arrays */
static float packed_diff(const float* a, const float* b, size_t n) {
  float worst = 0;
  for (size_t i = 0; i < n; ++i) {
    float d = fabsf(a[i] - b[i]) / (1.0f + fabsf(a[i]));
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

/* The reference of a kernel comparison: job j (inputs pin, and nin when normals) through the scalar kernel's
 * generic loop (skc_deform_force_generic), with tangents (tin, 4 components), into rp / rn / rt. Returns its result
 * code. */
static int scalar_reference(sk_deform_job* j, const float* pin, const float* nin, const float* tin, int normals,
                            float* rp, float* rn, float* rt) {
  j->in_positions = pin;
  j->out_positions = rp;
  if (normals) {
    j->in_normals = nin;
    j->out_normals = rn;
  }
  j->in_tangents = tin;
  j->out_tangents = rt;
  j->tangent_components = 4;
  setenv("SKINKIT_KERNEL", "scalar", 1);
  sk_error e;
  skc_deform_force_generic(1);
  int rc = sk_deform_run(j, &e);
  skc_deform_force_generic(0);
  j->in_tangents = NULL;
  j->out_tangents = NULL;
  j->tangent_components = 0;
  return rc;
}

/* One comparison set-up for kernels_match_reference: the job's inputs, the reference (scalar_reference), the
 * output buffers, whether the avx2 / avx512 kernels must run every vertex through the 8-wide path, and a label for
 * failure messages. */
typedef struct kernel_run {
  size_t V;
  const float *pin, *nin;
  int normals, inplace, rc_ref;
  const float *rp, *rn;
  float *op, *on;
  int soa8_only;
  const char* label;
  int uniform; /* the avx2 kernel must blend every vertex from consistently signed records (dq_uni), and so must
                  the avx512 kernel's 16-wide path for DQS */
  int wide16;  /* with soa8_only: the avx512 kernel must take every vertex on its 16-wide path instead */
  int bits;    /* COR with the (pivot, joint) table and at most 64 joints, i.e. the sign bits (deform.c cor_bits):
                  2 = the avx512 kernel must blend its 16-wide blocks from the record offsets it resolves from them
                  (path counter SIGN_BITS), 1 = it may (few joints: their signs may be uniform, then no table is
                  built); no other kernel, nor any other job, may count a vertex there */
} kernel_run;

/* Runs j on every kernel the CPU has, in place (outputs over a copy of the inputs) or not, and checks each
 * against the reference: same result code, positions and normals within 1e-5. Returns the kernels compared. */
static int kernels_match_reference(sk_deform_job* j, const kernel_run* r) {
  const size_t V = r->V;
  int compared = 0;
  for (int k = 0; k < NKERNELS; ++k) {
    if (!use_kernel(k)) continue;
    memset(r->op, 0, V * 12);
    memset(r->on, 0, V * 12);
    if (r->inplace) {
      memcpy(r->op, r->pin, V * 12);
      memcpy(r->on, r->nin, V * 12);
      j->in_positions = r->op;
      if (r->normals) j->in_normals = r->on;
    }
    j->out_positions = r->op;
    if (r->normals) j->out_normals = r->on;
    skc_deform_path_reset();
    sk_error e;
    const int rc = sk_deform_run(j, &e);
    uint64_t n[SKC_DEFORM_PATH_COUNT];
    skc_deform_path_counts(n);
    j->in_positions = r->pin;
    if (r->normals) j->in_normals = r->nin;
    ck_assert_int_eq(rc, r->rc_ref);
    if (r->uniform && (k == 2 || (k == 3 && !r->soa8_only)))
      ck_assert_msg(n[SKC_DEFORM_PATH_UNIFORM_SIGNS] == V, "%s %s: uniform signs took %llu of the vertices",
                    kernel_names[k], r->label, (unsigned long long)n[SKC_DEFORM_PATH_UNIFORM_SIGNS]);
    if (r->uniform && k == 3 && !r->soa8_only)
      ck_assert_msg(n[SKC_DEFORM_PATH_WIDE16] == V, "%s %s: wide16 took %llu of the vertices", kernel_names[k],
                    r->label, (unsigned long long)n[SKC_DEFORM_PATH_WIDE16]);
    const uint64_t nb = n[SKC_DEFORM_PATH_SIGN_BITS]; /* whole blocks of 16, at least one clean in hemi_case */
    ck_assert_msg(r->bits && k == 3 ? nb >= (r->bits == 2 ? 16u : 0u) && nb % 16 == 0 && nb <= V : nb == 0,
                  "%s %s: sign bits took %llu of the vertices", kernel_names[k], r->label, (unsigned long long)nb);
    if (r->soa8_only && k >= 2) {
      const int path = k == 3 && r->wide16 ? SKC_DEFORM_PATH_WIDE16 : SKC_DEFORM_PATH_SOA8;
      ck_assert_msg(n[path] == V, "%s %s: %s took %llu of the vertices", kernel_names[k], r->label,
                    path == SKC_DEFORM_PATH_WIDE16 ? "wide16" : "soa8", (unsigned long long)n[path]);
    }
    const float dp = packed_diff(r->rp, r->op, 3 * V), dn = r->normals ? packed_diff(r->rn, r->on, 3 * V) : 0.0f;
    ck_assert_msg(dp <= 1e-5f && dn <= 1e-5f, "%s %s: positions %g normals %g", kernel_names[k], r->label, dp, dn);
    compared++;
  }
  return compared;
}

/* The fast loops with compile-time influence counts run only on tightly packed streams (the layout above is
 * strided on purpose): every kernel against the scalar generic loop on packed streams, K = 1..8, every joint
 * type with float weights (plus the quantized ones), with vertices that must bail out to the generic loop
 * (joint out of range, NaN weight, weight sum 0 with zero or cancelling weights, zero normal), out of place and in
 * place. */
START_TEST(test_deform_packed_fast_matches_scalar) {
  rng_seed(11);
  const int jts[3] = {SK_TYPE_U8, SK_TYPE_U16, SK_TYPE_U32};
  const int wts[3] = {SK_TYPE_F32, SK_TYPE_U8, SK_TYPE_U16};
  const size_t V = 1003, J = 70; /* 125 wide blocks of 8 and a tail of 3 */
  int configs = 0;
  for (uint32_t K = 1; K <= 8; ++K)
    for (int ti = 0; ti < 5; ++ti) {
      int jt = jts[ti % 3], wt = ti < 3 ? SK_TYPE_F32 : wts[ti - 2];
      int scaled = (K + (uint32_t)ti) % 2;
      size_t jsz = tsize(jt), wsz = tsize(wt);
      float* pal = malloc(16 * J * sizeof(float));
      unsigned char* jb = malloc(V * K * jsz);
      unsigned char* wb = malloc(V * K * wsz);
      float* pin = malloc(V * 12);
      float* nin = malloc(V * 12);
      float* tin = malloc(V * 16);
      for (size_t j = 0; j < J; ++j) random_matrix(pal + 16 * j, scaled && j % 3 == 1);
      for (size_t v = 0; v < V; ++v) {
        float w[8], sum = 0;
        for (uint32_t k = 0; k < K; ++k) {
          w[k] = rnd_u32() % 4 == 0 ? 0.0f : rnd(0.05f, 1.0f);
          sum += w[k];
        }
        if (sum == 0) w[0] = sum = 1;
        for (uint32_t k = 0; k < K; ++k) {
          uint32_t jj = rnd_u32() % (uint32_t)J;
          if (v % 97 == 5 && k == K - 1) jj = (uint32_t)J + (uint32_t)(v % 3); /* out of range */
          float wk = w[k] / sum;
          if (v % 89 == 7) wk = 0.0f; /* weight sum 0 */
          if (wt == SK_TYPE_F32 && K >= 2 && v % 71 == 11) wk = k == 0 ? 0.5f : k == 1 ? -0.5f : 0.0f; /* sum 0, not all 0 */
          if (wt == SK_TYPE_F32 && v % 83 == 9 && k == 0) wk = NAN;
          put_joint(jb + (v * K + k) * jsz, jt, jj);
          put_weight(wb + (v * K + k) * wsz, wt, wk);
        }
        float n[3];
        random_unit(n);
        if (v % 79 == 3) n[0] = n[1] = n[2] = 0.0f; /* zero normal: keeps the input */
        for (int i = 0; i < 3; ++i) {
          pin[3 * v + (size_t)i] = rnd(-3, 3);
          nin[3 * v + (size_t)i] = n[i];
          tin[4 * v + (size_t)i] = n[(i + 1) % 3];
        }
        tin[4 * v + 3] = 1.0f;
      }
      for (int method = 0; method < 2; ++method)
        for (int variant = 0; variant < 4; ++variant) {
          int normals = variant & 1, inplace = (variant & 2) != 0;
          uint32_t flags = (K + (uint32_t)variant) % 3 == 0 ? SK_DEFORM_NO_RENORMALIZE : 0;
          float* rp = calloc(V, 12);
          float* rn = calloc(V, 12);
          float* rt = calloc(V, 16);
          float* op = calloc(V, 12);
          float* on = calloc(V, 12);
          sk_deform_job j;
          job_init(&j);
          j.method = (uint32_t)method;
          j.flags = flags;
          j.threads = 1;
          j.vertex_count = V;
          j.palette = pal;
          j.joint_count = J;
          j.influences = K;
          j.joint_type = (sk_type)jt;
          j.weight_type = (sk_type)wt;
          j.joints = jb;
          j.weights = wb;
          const int rc_ref = scalar_reference(&j, pin, nin, tin, normals, rp, rn, rt);
          ck_assert_int_eq(rc_ref, SK_ERR_OUT_OF_RANGE); /* the out-of-range joints and NaN weights */
          char label[96];
          snprintf(label, sizeof label, "K=%u jt=%d wt=%d method=%d normals=%d inplace=%d flags=%u", K, jt, wt,
                   method, normals, inplace, flags);
          const kernel_run run = {V, pin, nin, normals, inplace, rc_ref, rp, rn, op, on, 0, label, 0, 0, 0};
          configs += kernels_match_reference(&j, &run);
          free(rp);
          free(rn);
          free(rt);
          free(op);
          free(on);
        }
      free(pal);
      free(jb);
      free(wb);
      free(pin);
      free(nin);
      free(tin);
    }
  unsetenv("SKINKIT_KERNEL");
  ck_assert_int_gt(configs, 8 * 5 * 2 * 4);
}
END_TEST

/* One packed rigid DQS or COR job of V vertices over J joints with K influences (u8 or u16 joints) against the
 * scalar generic loop: joints 0..3 turned +-170 and +-179 degrees about one axis and blended by half the vertices
 * (Shepperd's conversion gives those four quaternions within 10 degrees of each other, dots 0.985-1; the other
 * joints are random rotations, about half in the opposite hemisphere of any given joint, and there the sign
 * decides the result; a posed palette below has genuine flips among joints near one axis), ties for
 * the pivot, and vertices to keep or redo (joint out of range, NaN weight, weights summing to 0, cancelling
 * weights, zero normal), in and out of place, positions only and with normals. COR jobs must stay on the avx2 /
 * avx512 kernels' 8-wide path (path counter SOA8). posed: every other joint turned +-100 to 180 degrees about the
 * same axis, so that the quaternions (Shepperd's signs: w > 0 below 120 degrees, the axis component otherwise) lie
 * in two opposite 80-degree arcs: one sign per joint explains every pair's hemisphere test, some joints need the
 * negative one, and the avx2 kernel must blend without pivots (path counter UNIFORM_SIGNS). Returns the number of
 * (kernel, variant) runs compared. */
static int hemi_case(uint32_t method, size_t J, size_t V, uint32_t K, int jt, int posed) {
  const size_t jsz = tsize(jt);
  float* pal = malloc(16 * J * sizeof(float));
  unsigned char* jb = malloc(V * K * jsz);
  float* wb = malloc(V * K * sizeof(float));
  float *pin = malloc(V * 12), *nin = malloc(V * 12), *tin = malloc(V * 16), *cen = malloc(V * 12);
  ck_assert(pal && jb && wb && pin && nin && tin && cen);
  const float axis[3] = {0.48f, -0.6f, 0.64f};
  const float degrees[4] = {170.0f, -170.0f, 179.0f, -179.0f};
  for (size_t j = 0; j < J; ++j) {
    if (j < 4) {
      const float t[3] = {0.1f * (float)j, -0.2f, 0.3f}, one[3] = {1, 1, 1};
      make_trs(axis, degrees[j] * PI_F / 180.0f, t, one, pal + 16 * j);
    } else if (posed) {
      const float t[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)}, one[3] = {1, 1, 1};
      const float deg = rnd(100.0f, 180.0f) * (rnd_u32() % 2 ? 1.0f : -1.0f);
      make_trs(axis, deg * PI_F / 180.0f, t, one, pal + 16 * j);
    } else {
      random_matrix(pal + 16 * j, 0);
    }
  }
  int bad_expected = 0;
  for (size_t v = 0; v < V; ++v) {
    float w[8], sum = 0;
    for (uint32_t k = 0; k < K; ++k) {
      w[k] = v % 7 == 2 ? 1.0f : rnd_u32() % 5 == 0 ? 0.0f : rnd(0.05f, 1.0f); /* v % 7 == 2: all tied */
      sum += w[k];
    }
    if (sum == 0) w[0] = sum = 1;
    for (uint32_t k = 0; k < K; ++k) {
      /* half the vertices blend the opposite-hemisphere joints 0..3 */
      uint32_t jj = v % 2 ? rnd_u32() % 4 : rnd_u32() % (uint32_t)J;
      float wk = w[k] / sum;
      if (v % 97 == 5 && k == K - 1) {
        jj = (uint32_t)J + (uint32_t)(v % 3); /* out of range */
        bad_expected = 1;
      }
      if (v % 89 == 7) wk = 0.0f;                                         /* weight sum 0 */
      if (v % 71 == 11 && K > 1) wk = k == 0 ? 0.5f : k == 1 ? -0.5f : 0.0f; /* sum 0, not all 0 */
      if (v % 83 == 9 && k == 0) {
        wk = NAN;
        bad_expected = 1;
      }
      put_joint(jb + (v * K + k) * jsz, jt, jj);
      memcpy(wb + v * K + k, &wk, sizeof wk);
    }
    float n[3];
    random_unit(n);
    if (v % 79 == 3) n[0] = n[1] = n[2] = 0.0f; /* zero normal: keeps the input */
    for (int i = 0; i < 3; ++i) {
      pin[3 * v + (size_t)i] = rnd(-3, 3);
      cen[3 * v + (size_t)i] = pin[3 * v + (size_t)i] * 0.5f + rnd(-0.2f, 0.2f); /* a centre near the vertex */
      nin[3 * v + (size_t)i] = n[i];
      tin[4 * v + (size_t)i] = n[(i + 1) % 3];
    }
    tin[4 * v + 3] = 1.0f;
  }
  int configs = 0;
  for (int variant = 0; variant < 4; ++variant) {
    const int normals = variant != 1, inplace = variant == 2;
    const uint32_t flags = variant == 3 ? SK_DEFORM_NO_RENORMALIZE : 0;
    float *rp = calloc(V, 12), *rn = calloc(V, 12), *rt = calloc(V, 16), *op = calloc(V, 12), *on = calloc(V, 12);
    ck_assert(rp && rn && rt && op && on);
    sk_deform_job j;
    job_init(&j);
    j.method = method;
    j.flags = flags;
    j.threads = 1;
    j.vertex_count = V;
    j.palette = pal;
    j.joint_count = J;
    j.influences = K;
    j.joint_type = (sk_type)jt;
    j.weight_type = SK_TYPE_F32;
    j.joints = jb;
    j.weights = wb;
    if (method == SK_DEFORM_COR) j.centers = cen;
    const int rc_ref = scalar_reference(&j, pin, nin, tin, normals, rp, rn, rt);
    ck_assert_int_eq(rc_ref, bad_expected ? SK_ERR_OUT_OF_RANGE : SK_OK);
    char label[96];
    snprintf(label, sizeof label, "%s J=%zu V=%zu K=%u jt=%d variant=%d", method == SK_DEFORM_COR ? "COR" : "DQS", J,
             V, K, jt, variant);
    const int uniform = posed && K > 1 && 8 * V >= J * J && J <= 1024;
    /* COR on avx512: the 16-wide path when each record's sign needs no per-vertex dot (K = 1, uniform signs, or the
     * (pivot, joint) table: deform.c wide_tables); the AVX2 8-wide path otherwise */
    const int wide16 = method == SK_DEFORM_COR && (K == 1 || uniform || (J <= 256 && J * J <= V));
    /* 8 or more random joints: no uniform signs */
    const int bits = method == SK_DEFORM_COR && K > 1 && !uniform && J <= 64 && J * J <= V ? (J >= 12 ? 2 : 1) : 0;
    const kernel_run run = {V,     pin,     nin,    normals, inplace, rc_ref, rp, rn, op, on, method == SK_DEFORM_COR,
                            label, uniform, wide16, bits};
    configs += kernels_match_reference(&j, &run);
    free(rp);
    free(rn);
    free(rt);
    free(op);
    free(on);
  }
  free(pal);
  free(jb);
  free(wb);
  free(pin);
  free(nin);
  free(tin);
  free(cen);
  return configs;
}

/* Rigid DQS and COR jobs with at least J^2 vertices take the wide paths that read each joint's entry as +q or -q
 * from a (pivot, joint) hemisphere table instead of computing the dots per vertex (hemi_case): every kernel
 * against the scalar generic loop for K = 2, 4, 8, u8 / u16 joints, vertex counts from one block to many (the
 * pipelines' start and end, tails). */
START_TEST(test_deform_dqs_table_matches_scalar) {
  rng_seed(13);
  const size_t Js[3] = {6, 12, 40};
  const size_t Vs[3][5] = {{36, 47, 48, 50, 63}, {144, 191, 192, 300, 1003}, {1600, 1615, 2049, 4099, 4100}};
  const uint32_t Ks[3] = {2, 4, 8};
  int configs = 0;
  for (int method = 0; method < 2; ++method)
    for (int ji = 0; ji < 3; ++ji)
      for (int vi = 0; vi < 5; ++vi)
        for (int ki = 0; ki < 3; ++ki) {
          ck_assert_uint_ge(Vs[ji][vi], Js[ji] * Js[ji]); /* the table's condition */
          configs += hemi_case(method ? SK_DEFORM_COR : SK_DEFORM_DQS, Js[ji], Vs[ji][vi], Ks[ki],
                               (vi + ki) % 2 ? SK_TYPE_U8 : SK_TYPE_U16, 0);
        }
  /* more than 128 joints: the AVX2 kernel's DQS reads the 16-bit table (dq_sel) instead of the byte one */
  for (uint32_t ki = 0; ki < 3; ++ki) configs += hemi_case(SK_DEFORM_DQS, 130, 16900 + 7 * ki, Ks[ki], SK_TYPE_U16, 0);
  /* COR's sign bits (cor_bits) up to 64 joints, both 32-bit rows used; 65 joints: the table's entries */
  for (uint32_t ki = 0; ki < 3; ++ki) {
    configs += hemi_case(SK_DEFORM_COR, 64, 4096 + 16 * ki + ki, Ks[ki], ki % 2 ? SK_TYPE_U8 : SK_TYPE_U16, 0);
    configs += hemi_case(SK_DEFORM_COR, 65, 4225 + 3 * ki, Ks[ki], SK_TYPE_U16, 0);
  }
  unsetenv("SKINKIT_KERNEL");
  ck_assert_int_ge(configs, 2 * 3 * 5 * 3 * 4 * 3 + 3 * 4 * 3 + 6 * 4 * 3);
}
END_TEST

/* A posed palette (hemi_case's posed: one sign per joint explains every pair's test): the avx2 kernel blends the
 * consistently signed records without a pivot, with or without the (pivot, joint) table, and every kernel still
 * matches the scalar generic loop, hemisphere flips, ties, kept and redone vertices included; K = 2, 4, 8, u8 / u16
 * joints, one block to many. */
START_TEST(test_deform_uniform_signs_match_scalar) {
  rng_seed(15);
  const size_t Js[3] = {6, 40, 40};
  /* J = 40 below J^2 vertices: no (pivot, joint) table, uniform signs still (from J^2 / 8) */
  const size_t Vs[3][3] = {{36, 50, 1003}, {1600, 2049, 4100}, {203, 500, 1003}};
  const uint32_t Ks[3] = {2, 4, 8};
  int configs = 0;
  for (int method = 0; method < 2; ++method)
    for (int ji = 0; ji < 3; ++ji)
      for (int vi = 0; vi < 3; ++vi)
        for (int ki = 0; ki < 3; ++ki)
          configs += hemi_case(method ? SK_DEFORM_COR : SK_DEFORM_DQS, Js[ji], Vs[ji][vi], Ks[ki],
                               (vi + ki) % 2 ? SK_TYPE_U8 : SK_TYPE_U16, 1);
  unsetenv("SKINKIT_KERNEL");
  ck_assert_int_ge(configs, 2 * 3 * 3 * 3 * 4 * 3);
}
END_TEST

/* The same without the table (fewer than J^2 vertices, or more than 256 joints): COR's 8-wide path takes the
 * hemisphere signs from per-vertex dots, DQS's from its own; K = 1 too. */
START_TEST(test_deform_hemisphere_untabled_matches_scalar) {
  rng_seed(14);
  const size_t Js[2] = {40, 300}, Vs[2] = {1003, 1600};
  const uint32_t Ks[4] = {1, 2, 4, 8};
  int configs = 0;
  for (int method = 0; method < 2; ++method)
    for (int ji = 0; ji < 2; ++ji)
      for (int ki = 0; ki < 4; ++ki) {
        ck_assert(Vs[ji] < Js[ji] * Js[ji]);
        configs += hemi_case(method ? SK_DEFORM_COR : SK_DEFORM_DQS, Js[ji], Vs[ji], Ks[ki],
                             ki % 2 ? SK_TYPE_U16 : (Js[ji] > 255 ? SK_TYPE_U16 : SK_TYPE_U8), 0);
      }
  unsetenv("SKINKIT_KERNEL");
  ck_assert_int_ge(configs, 2 * 2 * 4 * 4 * 3);
}
END_TEST

/* Which loop each packed job takes, on every kernel this CPU runs (skc_deform_path_counts): a job the tier's
 * SIMD path is meant to take must not fall back to a slower loop unnoticed (NO_RENORMALIZE with normals used to
 * drop from the AVX2 8-wide path to the generic loop, slower than renormalizing; tangents sent every job to the
 * generic loop, 8-15x slower than the same job without them). Expected: scalar and sse2 the per-vertex fast loop,
 * avx2 the 8-wide path, avx512 the 16-wide path, for packed u8/u16 joints + f32 weights, K = 1/2/4/8, LBS and
 * DQS (RIGID: the 8-wide path on both; it ran the generic loop, 5-7x LBS's time), with and without normals, flags 0 and
 * NO_RENORMALIZE; with tangents (and normals) the 8-wide path on avx2 and avx512 (the 16-wide blocks do not take
 * tangents yet), the per-vertex fast loop on scalar and sse2; the flags the fast loops do not implement (ADDITIVE,
 * NORMALIZE_WEIGHTS, NORMAL_FAST) the generic loop on every tier. Outputs match the scalar generic loop. */
static int expected_path(int k, int method, uint32_t flags, int tangents) {
  if (flags & ~(uint32_t)SK_DEFORM_NO_RENORMALIZE) return SKC_DEFORM_PATH_GENERIC;
  if (tangents || method == SK_DEFORM_RIGID) return k >= 2 ? SKC_DEFORM_PATH_SOA8 : SKC_DEFORM_PATH_FAST;
  return k == 3 ? SKC_DEFORM_PATH_WIDE16 : k == 2 ? SKC_DEFORM_PATH_SOA8 : SKC_DEFORM_PATH_FAST;
}

/* Tangents of 3 or 4 components (tc) on job j, or none (tc 0). */
static void with_tangents(sk_deform_job* j, int tc, const float* tin, float* tout) {
  j->in_tangents = tc ? tin : NULL;
  j->out_tangents = tc ? tout : NULL;
  j->tangent_components = (uint32_t)tc;
}

static void packed_job(sk_deform_job* j, int method, uint32_t flags, size_t V, size_t J, uint32_t K, int jt,
                       const float* pal, const void* jb, const float* wb, const float* pin, const float* nin,
                       float* pout, float* nout) {
  job_init(j);
  j->method = (uint32_t)method;
  j->flags = flags;
  j->threads = 1;
  j->vertex_count = V;
  j->palette = pal;
  j->joint_count = J;
  j->influences = K;
  j->joint_type = (sk_type)jt;
  j->weight_type = SK_TYPE_F32;
  j->joints = jb;
  j->weights = wb;
  j->in_positions = pin;
  j->out_positions = pout;
  if (nin) {
    j->in_normals = nin;
    j->out_normals = nout;
  }
}

START_TEST(test_deform_simd_path_taken) {
  rng_seed(20);
  const size_t V = 1003, J = 40; /* not a multiple of 8 or 16: the tails go through the fallback loops */
  float* pal = malloc(16 * J * sizeof(float));
  for (size_t j = 0; j < J; ++j) random_matrix(pal + 16 * j, 0);
  float* pin = malloc(3 * V * sizeof(float));
  float* nin = malloc(3 * V * sizeof(float));
  float* tin = malloc(4 * V * sizeof(float));
  float *pref = malloc(3 * V * sizeof(float)), *nref = malloc(3 * V * sizeof(float));
  float *pout = malloc(3 * V * sizeof(float)), *nout = malloc(3 * V * sizeof(float));
  float *tref = malloc(4 * V * sizeof(float)), *tout = malloc(4 * V * sizeof(float));
  for (size_t v = 0; v < V; ++v) {
    for (int i = 0; i < 3; ++i) pin[3 * v + i] = rnd(-2, 2);
    random_unit(nin + 3 * v);
    random_unit(tin + 4 * v);
    tin[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
  }
  const uint32_t ks[4] = {1, 2, 4, 8};
  const uint32_t flag_sets[5] = {0, SK_DEFORM_NO_RENORMALIZE, SK_DEFORM_ADDITIVE, SK_DEFORM_NORMALIZE_WEIGHTS,
                                 SK_DEFORM_NORMAL_FAST};
  int checked = 0;
  for (int ki = 0; ki < 4; ++ki)
    for (int jti = 0; jti < 2; ++jti) {
      const uint32_t K = ks[ki];
      const int jt = jti ? SK_TYPE_U16 : SK_TYPE_U8;
      unsigned char* jb = malloc(V * K * 2);
      float* wb = malloc(V * K * sizeof(float));
      for (size_t v = 0; v < V; ++v) {
        float sum = 0;
        for (uint32_t k = 0; k < K; ++k) {
          uint32_t x = rnd_u32() % (uint32_t)J;
          if (jt == SK_TYPE_U8)
            jb[v * K + k] = (unsigned char)x;
          else {
            uint16_t y = (uint16_t)x;
            memcpy(jb + 2 * (v * K + k), &y, 2);
          }
          wb[v * K + k] = rnd(0.05f, 1.0f);
          sum += wb[v * K + k];
        }
        for (uint32_t k = 0; k < K; ++k) wb[v * K + k] /= sum;
      }
      for (int method = 0; method < 3; ++method)      /* LBS, DQS, RIGID */
        for (int normals = 0; normals < 3; ++normals) /* 2: normals and tangents of 3 or 4 components */
          for (int fi = 0; fi < 5; ++fi) {
            const uint32_t flags = flag_sets[fi];
            const int tc = normals == 2 ? 3 + (int)((ki + jti + fi) % 2) : 0;
            sk_deform_job j;
            sk_error e;
            setenv("SKINKIT_KERNEL", "scalar", 1);
            packed_job(&j, method, flags, V, J, K, jt, pal, jb, wb, pin, normals ? nin : NULL, pref, nref);
            with_tangents(&j, tc, tin, tref);
            skc_deform_force_generic(1);
            ck_assert_msg(sk_deform_run(&j, &e) == SK_OK, "scalar: %s", e.message);
            skc_deform_force_generic(0);
            for (int k = 0; k < NKERNELS; ++k) {
              if (!use_kernel(k)) continue;
              packed_job(&j, method, flags, V, J, K, jt, pal, jb, wb, pin, normals ? nin : NULL, pout, nout);
              with_tangents(&j, tc, tin, tout);
              skc_deform_path_reset();
              ck_assert_msg(sk_deform_run(&j, &e) == SK_OK, "%s: %s", kernel_names[k], e.message);
              uint64_t n[SKC_DEFORM_PATH_COUNT];
              skc_deform_path_counts(n);
              const int want = expected_path(k, method, flags, tc != 0);
              /* the wide paths hand tails and odd blocks to the narrower ones, which count as their own path:
               * the expected path takes most vertices, the per-vertex loops none (unless one is the one expected) */
              uint64_t slower = want == SKC_DEFORM_PATH_GENERIC ? 0 : n[SKC_DEFORM_PATH_GENERIC];
              if (want >= SKC_DEFORM_PATH_SOA8) slower += n[SKC_DEFORM_PATH_FAST];
              ck_assert_msg(n[want] >= V / 2 && (want == SKC_DEFORM_PATH_GENERIC || slower == 0),
                            "%s K=%u jt=%d method=%d normals=%d flags=%u: want path %s, got generic %llu fast %llu "
                            "soa8 %llu wide16 %llu",
                            kernel_names[k], K, jt, method, normals, flags,
                            skc_deform_path_name((skc_deform_path)want), (unsigned long long)n[0],
                            (unsigned long long)n[1], (unsigned long long)n[2], (unsigned long long)n[3]);
              float dp = packed_diff(pref, pout, 3 * V);
              float dn = normals ? packed_diff(nref, nout, 3 * V) : 0.0f;
              float dt = tc ? packed_diff(tref, tout, (size_t)tc * V) : 0.0f;
              ck_assert_msg(dp <= 1e-5f && dn <= 1e-5f && dt <= 1e-5f,
                            "%s K=%u method=%d flags=%u tangents=%d: positions %g normals %g tangents %g",
                            kernel_names[k], K, method, flags, tc, dp, dn, dt);
              checked++;
            }
          }
      free(jb);
      free(wb);
    }
  unsetenv("SKINKIT_KERNEL");
  printf("simd path taken: %d jobs checked\n", checked);
  ck_assert_int_gt(checked, 0);
  free(pal);
  free(pin);
  free(nin);
  free(tin);
  free(tref);
  free(tout);
  free(pref);
  free(nref);
  free(pout);
  free(nout);
}
END_TEST

START_TEST(test_deform_cpu_kernel_name) {
  unsetenv("SKINKIT_KERNEL");
  const char* k = sk_cpu_kernel();
  ck_assert(strcmp(k, "scalar") == 0 || strcmp(k, "sse2") == 0 || strcmp(k, "avx2") == 0 ||
            strcmp(k, "avx512") == 0);
  /* the default is the widest kernel the CPU runs: avx512 whenever it can be forced */
  setenv("SKINKIT_KERNEL", "avx512", 1);
  if (strcmp(sk_cpu_kernel(), "avx512") == 0) {
    ck_assert_str_eq(k, "avx512");
  } else { /* a CPU without it falls back to the default */
    ck_assert_str_eq(sk_cpu_kernel(), k);
    printf("test_deform: this CPU (or OS) lacks AVX-512 F/VL/BW/DQ: the avx512 kernel was NOT run\n");
  }
  setenv("SKINKIT_KERNEL", "avx2", 1);
  ck_assert(strcmp(sk_cpu_kernel(), "avx2") == 0 || strcmp(k, "avx2") != 0);
  skc_deform_force_kernel(SKC_KERNEL_AVX512);
  ck_assert(strcmp(sk_cpu_kernel(), "avx512") == 0 || strcmp(k, "avx512") != 0);
  skc_deform_force_kernel(SKC_KERNEL_AUTO);
  setenv("SKINKIT_KERNEL", "scalar", 1);
  ck_assert_str_eq(sk_cpu_kernel(), "scalar");
  setenv("SKINKIT_KERNEL", "bogus", 1);
  ck_assert_str_eq(sk_cpu_kernel(), k);
  unsetenv("SKINKIT_KERNEL");
  skc_deform_force_kernel(SKC_KERNEL_SCALAR);
  ck_assert_str_eq(sk_cpu_kernel(), "scalar");
  skc_deform_force_kernel(SKC_KERNEL_AUTO);
  ck_assert_str_eq(sk_cpu_kernel(), k);
}
END_TEST

/* Outputs of 16 MiB and more (they used to take a non-temporal store variant of the wide paths; all stores are plain
 * since session 11) must give what the scalar kernel gives, on one thread and on several, with a few vertices that
 * bail out to the generic loop. */
START_TEST(test_deform_large_outputs_match_scalar) {
  rng_seed(12);
  const size_t V = 720000, J = 50; /* 720000 * 24 bytes of positions + normals > 16 MiB */
  const uint32_t K = 4;
  float* pal = malloc(16 * J * sizeof(float));
  uint16_t* jb = malloc(V * K * sizeof(uint16_t));
  float* wb = malloc(V * K * sizeof(float));
  float* pin = malloc(V * 12);
  float* nin = malloc(V * 12);
  float *rp = malloc(V * 12), *rn = malloc(V * 12), *op = malloc(V * 12), *on = malloc(V * 12);
  ck_assert(pal && jb && wb && pin && nin && rp && rn && op && on);
  for (size_t j = 0; j < J; ++j) random_matrix(pal + 16 * j, 0);
  for (size_t v = 0; v < V; ++v) {
    float sum = 0;
    for (uint32_t k = 0; k < K; ++k) {
      jb[v * K + k] = (uint16_t)(rnd_u32() % J);
      wb[v * K + k] = rnd(0.05f, 1.0f);
      sum += wb[v * K + k];
    }
    for (uint32_t k = 0; k < K; ++k) wb[v * K + k] /= sum;
    if (v % 100003 == 17) jb[v * K + 2] = (uint16_t)(J + 1); /* bad joint: kept at the input */
    float n[3];
    random_unit(n);
    for (int i = 0; i < 3; ++i) {
      pin[3 * v + (size_t)i] = rnd(-2, 2);
      nin[3 * v + (size_t)i] = n[i];
    }
  }
  int compared = 0;
  for (int method = 0; method < 2; ++method)
    for (int threads = 1; threads <= 2; ++threads) {
      sk_deform_job j;
      job_init(&j);
      j.method = (uint32_t)method;
      j.threads = (uint32_t)threads;
      j.vertex_count = V;
      j.palette = pal;
      j.joint_count = J;
      j.influences = K;
      j.joint_type = SK_TYPE_U16;
      j.weight_type = SK_TYPE_F32;
      j.joints = jb;
      j.weights = wb;
      j.in_positions = pin;
      j.in_normals = nin;
      j.out_positions = rp;
      j.out_normals = rn;
      setenv("SKINKIT_KERNEL", "scalar", 1);
      ck_assert_int_eq(sk_deform_run(&j, NULL), SK_ERR_OUT_OF_RANGE);
      for (int k = 1; k < NKERNELS; ++k) {
        if (!use_kernel(k)) continue;
        memset(op, 0, V * 12);
        memset(on, 0, V * 12);
        j.out_positions = op;
        j.out_normals = on;
        ck_assert_int_eq(sk_deform_run(&j, NULL), SK_ERR_OUT_OF_RANGE);
        float dp = packed_diff(rp, op, 3 * V), dn = packed_diff(rn, on, 3 * V);
        ck_assert_msg(dp <= 1e-5f && dn <= 1e-5f, "%s method %d threads %d: positions %g normals %g", kernel_names[k],
                      method, threads, dp, dn);
        ck_assert(memcmp(op + 3 * 17, pin + 3 * 17, 12) == 0); /* the bad vertex kept its input */
        j.out_positions = rp;
        j.out_normals = rn;
        compared++;
      }
    }
  unsetenv("SKINKIT_KERNEL");
  ck_assert_int_gt(compared, 0);
  free(pal);
  free(jb);
  free(wb);
  free(pin);
  free(nin);
  free(rp);
  free(rn);
  free(op);
  free(on);
}
END_TEST

START_TEST(test_deform_threads_identical) {
  rng_seed(6);
  for (int method = 0; method < 3; ++method) {
    rscene s;
    rscene_make(&s, 100000, 40, 4, SK_TYPE_U16, SK_TYPE_F32, method == 1);
    routs a, b;
    routs_alloc(&s, &a);
    routs_alloc(&s, &b);
    sk_deform_job j;
    rscene_job(&s, &j, &a, method, 0, 1);
    j.threads = 1;
    ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
    rscene_job(&s, &j, &b, method, 0, 1);
    j.threads = 0;
    ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
    ck_assert(memcmp(a.p, b.p, s.V * s.ps + 8) == 0);
    ck_assert(memcmp(a.n, b.n, s.V * s.ns + 8) == 0);
    ck_assert(memcmp(a.t, b.t, s.V * s.ts + 8) == 0);
    rscene_job(&s, &j, &b, method, 0, 1);
    j.threads = 3;
    ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
    ck_assert(memcmp(a.p, b.p, s.V * s.ps + 8) == 0);
    routs_free(&a);
    routs_free(&b);
    rscene_free(&s);
  }
}
END_TEST

START_TEST(test_deform_in_place) {
  rng_seed(7);
  small_job s;
  small_make(&s, 300, 4);
  for (size_t j = 0; j < 4; ++j) random_matrix(s.palette + 16 * j, 0);
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  s.job.out_positions = s.pin;
  s.job.out_normals = s.nin;
  s.job.out_tangents = s.tin;
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  ck_assert(memcmp(s.pin, s.pout, 3 * s.V * sizeof(float)) == 0);
  ck_assert(memcmp(s.nin, s.nout, 3 * s.V * sizeof(float)) == 0);
  ck_assert(memcmp(s.tin, s.tout, 4 * s.V * sizeof(float)) == 0);
  small_free(&s);
}
END_TEST

START_TEST(test_deform_additive) {
  rng_seed(8);
  small_job s;
  small_make(&s, 400, 3);
  for (size_t j = 0; j < 3; ++j) random_matrix(s.palette + 16 * j, 0);
  for (size_t v = 0; v < s.V; ++v) { /* sums from 0 to 1.5 */
    s.weights[2 * v] = rnd(0, 0.75f);
    s.weights[2 * v + 1] = rnd(0, 0.75f);
  }
  s.weights[0] = s.weights[1] = 0; /* sum 0: stays at rest */
  s.job.flags = SK_DEFORM_ADDITIVE;
  s.job.in_normals = NULL;
  s.job.out_normals = NULL;
  s.job.in_tangents = NULL;
  s.job.out_tangents = NULL;
  for (int method = 0; method < 2; ++method) {
    s.job.method = (uint32_t)method;
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
    for (size_t v = 0; v < s.V; ++v) {
      const float* p = s.pin + 3 * v;
      float ref[3] = {p[0], p[1], p[2]};
      for (int k = 0; k < 2; ++k) {
        float q[3], w = s.weights[2 * v + k];
        skc_mat4_transform_point(s.palette + 16 * s.joints[2 * v + k], p, q);
        for (int i = 0; i < 3; ++i) ref[i] += w * (q[i] - p[i]);
      }
      if (method == 0 || v == 0)
        ck_assert_float_le(vdist(s.pout + 3 * v, ref), 2e-5f);
      else /* DQS differs from the linear formula, but stays finite and moves the vertex */
        ck_assert(isfinite(s.pout[3 * v]));
    }
  }
  small_free(&s);
}
END_TEST

START_TEST(test_deform_normalize_weights) {
  rng_seed(9);
  small_job s;
  small_make(&s, 400, 3);
  for (size_t j = 0; j < 3; ++j) random_matrix(s.palette + 16 * j, 0);
  for (int method = 0; method < 2; ++method) {
    s.job.method = (uint32_t)method;
    s.job.flags = 0;
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
    float* ref = malloc(3 * s.V * sizeof(float));
    memcpy(ref, s.pout, 3 * s.V * sizeof(float));
    float* w2 = malloc(2 * s.V * sizeof(float));
    for (size_t v = 0; v < s.V; ++v) {
      float f = rnd(0.3f, 3.0f);
      w2[2 * v] = s.weights[2 * v] * f;
      w2[2 * v + 1] = s.weights[2 * v + 1] * f;
    }
    w2[2 * 5] = w2[2 * 5 + 1] = 0; /* sum 0: keeps its input */
    s.job.weights = w2;
    s.job.flags = SK_DEFORM_NORMALIZE_WEIGHTS;
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
    for (size_t v = 0; v < s.V; ++v) {
      if (v == 5)
        ck_assert(vdist(s.pout + 3 * v, s.pin + 3 * v) == 0.0f);
      else
        ck_assert_float_le(vdist(s.pout + 3 * v, ref + 3 * v), 2e-5f);
    }
    /* without the flag, scaled weights scale the LBS result: the flag mattered */
    s.job.flags = 0;
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
    if (method == 0) ck_assert_float_gt(vdist(s.pout + 3, ref + 3), 1e-3f);
    s.job.weights = s.weights;
    free(w2);
    free(ref);
  }
  small_free(&s);
}
END_TEST

START_TEST(test_deform_nonrigid_normals_inverse_transpose) {
  rng_seed(10);
  small_job s;
  small_make(&s, 500, 4);
  for (size_t j = 0; j < 4; ++j) random_matrix(s.palette + 16 * j, 1);
  ck_assert(!skc_mat4_is_rigid(s.palette, 1e-4f) || !skc_mat4_is_rigid(s.palette + 16, 1e-4f));
  float N[4][16];
  for (int j = 0; j < 4; ++j) inverse_transpose(s.palette + 16 * j, N[j]);
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  int differs_from_m = 0;
  for (size_t v = 0; v < s.V; ++v) {
    float n[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    for (int k = 0; k < 2; ++k) {
      float a[3], b[3], w = s.weights[2 * v + k];
      int jj = s.joints[2 * v + k];
      skc_mat4_transform_dir(N[jj], s.nin + 3 * v, a);
      skc_mat4_transform_dir(s.palette + 16 * jj, s.tin + 4 * v, b);
      for (int i = 0; i < 3; ++i) {
        n[i] += w * a[i];
        t[i] += w * b[i];
      }
    }
    normalize3(n);
    normalize3(t);
    ck_assert_float_le(vdist(s.nout + 3 * v, n), 1e-4f);
    ck_assert_float_le(vdist(s.tout + 4 * v, t), 1e-4f);
    float nm[3];
    skc_mat4_transform_dir(s.palette + 16 * s.joints[2 * v], s.nin + 3 * v, nm);
    normalize3(nm);
    if (s.weights[2 * v] > 0.99f && vdist(nm, n) > 1e-2f) differs_from_m = 1;
  }
  (void)differs_from_m;
  /* a vertex fully on one scaled joint: inverse transpose, not M, and still unit length */
  small_job u;
  small_make(&u, 1, 1);
  float ax[3] = {0, 0, 1}, t0[3] = {0, 0, 0}, sc[3] = {3, 1, 1};
  make_trs(ax, 0, t0, sc, u.palette);
  float nin[3] = {0.70710678f, 0.70710678f, 0}, nref[3] = {1.0f / 3.0f, 1.0f, 0};
  normalize3(nref);
  memcpy(u.nin, nin, sizeof nin);
  u.weights[0] = 1;
  u.weights[1] = 0;
  ck_assert_int_eq(sk_deform_run(&u.job, NULL), SK_OK);
  ck_assert_float_le(vdist(u.nout, nref), 1e-5f);
  small_free(&u);
  small_free(&s);
}
END_TEST

START_TEST(test_deform_normal_fast) {
  rng_seed(11);
  for (int scaled = 0; scaled < 2; ++scaled) {
    small_job s;
    small_make(&s, 500, 4);
    for (size_t j = 0; j < 4; ++j) random_matrix(s.palette + 16 * j, scaled);
    s.job.flags = SK_DEFORM_NORMAL_FAST;
    for (int method = 0; method < 2; ++method) {
      s.job.method = (uint32_t)method;
      ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
      for (size_t v = 0; v < s.V; ++v) {
        int k = s.weights[2 * v + 1] > s.weights[2 * v] ? 1 : 0;
        const float* m = s.palette + 16 * s.joints[2 * v + k];
        float nm[16], n[3], t[3];
        inverse_transpose(m, nm);
        skc_mat4_transform_dir(nm, s.nin + 3 * v, n);
        skc_mat4_transform_dir(m, s.tin + 4 * v, t);
        normalize3(n);
        normalize3(t);
        ck_assert_float_le(vdist(s.nout + 3 * v, n), 1e-4f);
        ck_assert_float_le(vdist(s.tout + 4 * v, t), 1e-4f);
      }
    }
    small_free(&s);
  }
}
END_TEST

START_TEST(test_deform_no_renormalize_and_tangent_w) {
  small_job s;
  small_make(&s, 50, 1);
  float ax[3] = {0, 0, 1}, t0[3] = {0, 0, 0}, sc[3] = {2, 2, 2};
  make_trs(ax, 0, t0, sc, s.palette);
  s.job.flags = SK_DEFORM_NO_RENORMALIZE;
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  for (size_t v = 0; v < s.V; ++v) {
    float tl = sqrtf(s.tout[4 * v] * s.tout[4 * v] + s.tout[4 * v + 1] * s.tout[4 * v + 1] +
                     s.tout[4 * v + 2] * s.tout[4 * v + 2]);
    float nl = sqrtf(s.nout[3 * v] * s.nout[3 * v] + s.nout[3 * v + 1] * s.nout[3 * v + 1] +
                     s.nout[3 * v + 2] * s.nout[3 * v + 2]);
    ck_assert_float_eq_tol(tl, 2.0f, 1e-4f);
    ck_assert_float_eq_tol(nl, 0.5f, 1e-4f);
    ck_assert(s.tout[4 * v + 3] == s.tin[4 * v + 3]);
  }
  s.job.flags = 0;
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  for (size_t v = 0; v < s.V; ++v) ck_assert_float_le(vdist(s.nout + 3 * v, s.nin + 3 * v), 1e-5f);
  small_free(&s);
}
END_TEST

START_TEST(test_deform_zero_length_normal_keeps_input) {
  small_job s;
  small_make(&s, 1, 2);
  float* m1 = s.palette + 16; /* joint 1: exact half turn about X, flips the normal (0, 1, 0) */
  m1[5] = -1;
  m1[10] = -1;
  float n[3] = {0, 1, 0};
  memcpy(s.nin, n, sizeof n);
  s.joints[0] = 0;
  s.joints[1] = 1;
  s.weights[0] = 0.5f;
  s.weights[1] = 0.5f;
  ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
  ck_assert_float_le(vdist(s.nout, n), 1e-6f);
  ck_assert(isfinite(s.pout[0]) && isfinite(s.tout[0]));
  small_free(&s);
}
END_TEST

START_TEST(test_deform_rigid_method_picks_largest) {
  small_job s;
  small_make(&s, 200, 2);
  float ax[3] = {0, 0, 1}, t1[3] = {0, 10, 0}, one[3] = {1, 1, 1};
  make_trs(ax, 0, t1, one, s.palette + 16);
  s.job.method = SK_DEFORM_RIGID;
  for (size_t v = 0; v < s.V; ++v) {
    s.joints[2 * v] = 0;
    s.joints[2 * v + 1] = 1;
  }
  /* ties take the lowest joint, whatever its slot (a skin's CSR and packed forms may order tied entries either
   * way); a NaN weight or a sum of 0 keeps the input (kbody), in blocks of the SIMD paths too */
  s.weights[2 * 17] = s.weights[2 * 17 + 1] = 0.5f;
  s.weights[2 * 18] = s.weights[2 * 18 + 1] = 0.5f;
  s.joints[2 * 18] = 1;
  s.joints[2 * 18 + 1] = 0;
  s.weights[2 * 40] = NAN;
  s.weights[2 * 41] = 0.7f;
  s.weights[2 * 41 + 1] = -0.7f;
  for (int k = 0; k < NKERNELS; ++k) {
    if (!use_kernel(k)) continue;
    memset(s.pout, 0, s.V * 3 * sizeof(float));
    sk_error e;
    ck_assert_int_eq(sk_deform_run(&s.job, &e), SK_ERR_OUT_OF_RANGE); /* the NaN weight */
    ck_assert_msg(strncmp(e.message, "1 of 200 ", 9) == 0, "%s: %s", kernel_names[k], e.message);
    for (size_t v = 0; v < s.V; ++v) {
      float dy = s.pout[3 * v + 1] - s.pin[3 * v + 1];
      const float w0 = s.weights[2 * v], w1 = s.weights[2 * v + 1];
      const int second = w1 > w0 || (w1 == w0 && s.joints[2 * v + 1] < s.joints[2 * v]);
      const float expect = v != 40 && v != 41 && s.joints[2 * v + second] == 1 ? 10.0f : 0.0f;
      ck_assert_msg(fabsf(dy - expect) <= 1e-5f, "%s: vertex %zu moved %g, not %g", kernel_names[k], v, dy, expect);
    }
  }
  /* a vertex whose weights are all 0 keeps its input, as with every method (it followed the joint in its first
   * slot: joints {1, 0} moved it by 10; sk_skin_partition gives influence-less vertices such a row), every kernel */
  for (size_t v = 0; v < s.V; ++v) {
    s.joints[2 * v] = 1;
    s.joints[2 * v + 1] = 0;
    s.weights[2 * v] = s.weights[2 * v + 1] = 0.0f;
  }
  for (int k = 0; k < NKERNELS; ++k) {
    if (!use_kernel(k)) continue;
    memset(s.pout, 0, s.V * 3 * sizeof(float));
    ck_assert_int_eq(sk_deform_run(&s.job, NULL), SK_OK);
    for (size_t v = 0; v < s.V; ++v)
      ck_assert_msg(!memcmp(s.pout + 3 * v, s.pin + 3 * v, 12), "%s: vertex %zu moved", kernel_names[k], v);
  }
  unsetenv("SKINKIT_KERNEL");
  small_free(&s);
}
END_TEST

/* SK_DEFORM_IMPLIED_LAST_WEIGHT: K joints and K - 1 stored weights per vertex give exactly the job whose K-th weight
 * is what the others leave (U8: 255 - sum, U16: 65535 - sum, F32: 1 - sum), for every method; K = 1 needs no weights;
 * CSR influences are refused. */
START_TEST(test_deform_implied_last_weight) {
  enum { V = 300, J = 6 };
  float pal[16 * J], pin[3 * V], nin[3 * V], want_p[3 * V], want_n[3 * V], got_p[3 * V], got_n[3 * V];
  rng_seed(31);
  for (int j = 0; j < J; ++j) {
    float ax[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)}, t[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)}, one[3] = {1, 1, 1};
    make_trs(ax, rnd(-2.5f, 2.5f), t, one, pal + 16 * j);
  }
  for (int v = 0; v < V; ++v) {
    for (int i = 0; i < 3; ++i) pin[3 * v + i] = rnd(-2, 2);
    random_unit(nin + 3 * v);
  }
  const uint32_t ks[3] = {4, 2, 3};
  const sk_type wts[3] = {SK_TYPE_U8, SK_TYPE_U16, SK_TYPE_F32};
  for (int method = 0; method < 3; ++method) /* LBS, DQS, RIGID */
    for (int c = 0; c < 3; ++c) {
      const uint32_t K = ks[c];
      uint8_t jt[V * 4], w8[V * 4], s8[V * 4];
      uint16_t w16[V * 4], s16[V * 4];
      float wf[V * 4], sf[V * 4];
      for (int v = 0; v < V; ++v) {
        uint32_t left8 = 255, left16 = 65535;
        float leftf = 1.0f;
        for (uint32_t k = 0; k < K; ++k) {
          jt[K * v + k] = (uint8_t)((v + k) % J);
          int last = k == K - 1;
          uint32_t q8 = last ? left8 : (uint32_t)(rnd(0, 1) * (float)left8);
          uint32_t q16 = last ? left16 : (uint32_t)(rnd(0, 1) * (float)left16);
          float f = last ? leftf : rnd(0, 1) * leftf;
          left8 -= q8, left16 -= q16, leftf -= f;
          w8[K * v + k] = (uint8_t)q8, w16[K * v + k] = (uint16_t)q16, wf[K * v + k] = f;
          if (!last) s8[(K - 1) * v + k] = (uint8_t)q8, s16[(K - 1) * v + k] = (uint16_t)q16, sf[(K - 1) * v + k] = f;
        }
        wf[K * v + K - 1] = 1.0f; /* F32 reference: the same 1 - sum the deformer computes */
        for (uint32_t k = 0; k + 1 < K; ++k) wf[K * v + K - 1] -= wf[K * v + k];
        if (wf[K * v + K - 1] < 0.0f) wf[K * v + K - 1] = 0.0f;
      }
      const void* full = wts[c] == SK_TYPE_U8 ? (const void*)w8 : wts[c] == SK_TYPE_U16 ? (const void*)w16 : (const void*)wf;
      const void* part = wts[c] == SK_TYPE_U8 ? (const void*)s8 : wts[c] == SK_TYPE_U16 ? (const void*)s16 : (const void*)sf;
      sk_deform_job j;
      job_init(&j);
      j.method = (uint32_t)method, j.threads = 1, j.vertex_count = V, j.palette = pal, j.joint_count = J;
      j.influences = K, j.joint_type = SK_TYPE_U8, j.weight_type = wts[c], j.joints = jt, j.weights = full;
      j.in_positions = pin, j.out_positions = want_p, j.in_normals = nin, j.out_normals = want_n;
      ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
      j.flags = SK_DEFORM_IMPLIED_LAST_WEIGHT, j.weights = part, j.out_positions = got_p, j.out_normals = got_n;
      ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
      for (int i = 0; i < 3 * V; ++i) {
        /* the explicit job may take a SIMD path, the implied one the generic loop: equal within rounding */
        ck_assert_msg(fabsf(got_p[i] - want_p[i]) <= 1e-5f && fabsf(got_n[i] - want_n[i]) <= 1e-5f,
                      "method %d K %u type %d: component %d %g / %g vs %g / %g", method, K, wts[c], i,
                      (double)got_p[i], (double)got_n[i], (double)want_p[i], (double)want_n[i]);
      }
    }
  /* K = 1: no weights at all, every vertex fully on its joint */
  uint16_t j1[V];
  for (int v = 0; v < V; ++v) j1[v] = (uint16_t)(v % J);
  sk_deform_job j;
  job_init(&j);
  j.threads = 1, j.vertex_count = V, j.palette = pal, j.joint_count = J, j.influences = 1, j.joint_type = SK_TYPE_U16;
  j.joints = j1, j.flags = SK_DEFORM_IMPLIED_LAST_WEIGHT, j.in_positions = pin, j.out_positions = got_p;
  ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
  for (int v = 0; v < V; ++v)
    for (int i = 0; i < 3; ++i) {
      const float* m = pal + 16 * (v % J);
      float e = m[i] * pin[3 * v] + m[4 + i] * pin[3 * v + 1] + m[8 + i] * pin[3 * v + 2] + m[12 + i];
      ck_assert_float_eq_tol(got_p[3 * v + i], e, 1e-5f);
    }
  /* CSR influences have no implied weight */
  uint32_t off[2] = {0, 1}, cj[1] = {0};
  float cw[1] = {1.0f};
  j.vertex_count = 1, j.influences = 0, j.csr_offsets = off, j.csr_joints = cj, j.csr_weights = cw;
  ck_assert_int_eq(sk_deform_run(&j, NULL), SK_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_deform_dqs_nonuniform_scale) {
  /* joint 0 = T * R * S(2, 1, 1); DQS must reproduce M p exactly for vertices 100 % on it, whether through the
   * single-joint fast path (packed) or the full blend (CSR, two half entries on the same joint) */
  float ax[3] = {0.3f, 1, 0.2f}, t[3] = {0.5f, -1, 2}, sc[3] = {2, 1, 1};
  float pal[32];
  make_trs(ax, 1.1f, t, sc, pal);
  float ax2[3] = {1, 0, 0}, t2[3] = {0, 0, 0}, sc2[3] = {1, 1.5f, 1};
  make_trs(ax2, -0.4f, t2, sc2, pal + 16);
  enum { V = 64 };
  float pin[3 * V], nin[3 * V], pout[3 * V], nout[3 * V];
  rng_seed(12);
  for (int v = 0; v < V; ++v) {
    for (int i = 0; i < 3; ++i) pin[3 * v + i] = rnd(-2, 2);
    random_unit(nin + 3 * v);
  }
  float nm[16];
  inverse_transpose(pal, nm);
  for (int path = 0; path < 2; ++path) {
    sk_deform_job j;
    job_init(&j);
    j.method = SK_DEFORM_DQS;
    j.vertex_count = V;
    j.palette = pal;
    j.joint_count = 2;
    uint16_t pj[2 * V];
    float pw[2 * V];
    uint32_t off[V + 1], cj[2 * V];
    float cw[2 * V];
    for (int v = 0; v < V; ++v) {
      pj[2 * v] = 0;
      pj[2 * v + 1] = 1;
      pw[2 * v] = 1;
      pw[2 * v + 1] = 0;
      off[v] = 2u * (uint32_t)v;
      cj[2 * v] = cj[2 * v + 1] = 0;
      cw[2 * v] = cw[2 * v + 1] = 0.5f;
    }
    off[V] = 2 * V;
    if (path == 0) {
      j.influences = 2;
      j.joint_type = SK_TYPE_U16;
      j.weight_type = SK_TYPE_F32;
      j.joints = pj;
      j.weights = pw;
    } else {
      j.csr_offsets = off;
      j.csr_joints = cj;
      j.csr_weights = cw;
    }
    j.in_positions = pin;
    j.out_positions = pout;
    j.in_normals = nin;
    j.out_normals = nout;
    ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
    for (int v = 0; v < V; ++v) {
      float p[3], n[3];
      skc_mat4_transform_point(pal, pin + 3 * v, p);
      skc_mat4_transform_dir(nm, nin + 3 * v, n);
      normalize3(n);
      ck_assert_msg(vdist(pout + 3 * v, p) <= 1e-4f, "path %d vertex %d: %g", path, v, vdist(pout + 3 * v, p));
      ck_assert_float_le(vdist(nout + 3 * v, n), 1e-4f);
    }
  }
}
END_TEST

/* ---------------------------------------------------------------------------------------------- quality */

enum { CYL_SEG = 64, CYL_RINGS = 128 };
#define CYL_R 0.25f

typedef struct cylinder {
  size_t V, T;
  float* p;
  uint32_t* tri;
  uint16_t* joints;
  float* weights;
} cylinder;

static void cylinder_make(cylinder* c) {
  size_t ring_v = CYL_SEG;
  c->V = (CYL_RINGS + 1) * ring_v + 2;
  c->T = (size_t)CYL_RINGS * CYL_SEG * 2 + 2 * CYL_SEG;
  c->p = malloc(3 * c->V * sizeof(float));
  c->tri = malloc(3 * c->T * sizeof(uint32_t));
  c->joints = malloc(2 * c->V * sizeof(uint16_t));
  c->weights = malloc(2 * c->V * sizeof(float));
  for (int i = 0; i <= CYL_RINGS; ++i)
    for (int s = 0; s < CYL_SEG; ++s) {
      size_t v = (size_t)i * ring_v + (size_t)s;
      float phi = 2.0f * PI_F * (float)s / CYL_SEG;
      c->p[3 * v] = 2.0f * (float)i / CYL_RINGS;
      c->p[3 * v + 1] = CYL_R * cosf(phi);
      c->p[3 * v + 2] = CYL_R * sinf(phi);
    }
  size_t c0 = (CYL_RINGS + 1) * ring_v, c1 = c0 + 1;
  memset(c->p + 3 * c0, 0, 6 * sizeof(float));
  c->p[3 * c1] = 2.0f;
  size_t t = 0;
#define TRI(a, b, d)                \
  do {                              \
    c->tri[3 * t] = (uint32_t)(a);  \
    c->tri[3 * t + 1] = (uint32_t)(b); \
    c->tri[3 * t + 2] = (uint32_t)(d); \
    ++t;                            \
  } while (0)
  for (int i = 0; i < CYL_RINGS; ++i)
    for (int s = 0; s < CYL_SEG; ++s) {
      size_t a = (size_t)i * ring_v + (size_t)s, b = a + ring_v;
      size_t d = (size_t)i * ring_v + (size_t)((s + 1) % CYL_SEG), cc = d + ring_v;
      TRI(a, cc, b);
      TRI(a, d, cc);
    }
  for (int s = 0; s < CYL_SEG; ++s) {
    size_t a = (size_t)s, b = (size_t)((s + 1) % CYL_SEG);
    TRI(c0, b, a);
    TRI(c1, CYL_RINGS * ring_v + a, CYL_RINGS * ring_v + b);
  }
#undef TRI
  for (size_t v = 0; v < c->V; ++v) {
    float x = c->p[3 * v];
    float u = (x - 0.75f) / 0.5f; /* linear ramp over [0.75, 1.25], smoothed */
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    float w1 = u * u * (3 - 2 * u);
    c->joints[2 * v] = 0;
    c->joints[2 * v + 1] = 1;
    c->weights[2 * v] = 1 - w1;
    c->weights[2 * v + 1] = w1;
  }
}

static void cylinder_free(cylinder* c) {
  free(c->p);
  free(c->tri);
  free(c->joints);
  free(c->weights);
}

static double mesh_volume(const cylinder* c, const float* p) {
  double vol = 0;
  for (size_t t = 0; t < c->T; ++t) {
    const float* a = p + 3 * c->tri[3 * t];
    const float* b = p + 3 * c->tri[3 * t + 1];
    const float* d = p + 3 * c->tri[3 * t + 2];
    double cx = (double)b[1] * d[2] - (double)b[2] * d[1];
    double cy = (double)b[2] * d[0] - (double)b[0] * d[2];
    double cz = (double)b[0] * d[1] - (double)b[1] * d[0];
    vol += (a[0] * cx + a[1] * cy + a[2] * cz) / 6.0;
  }
  return vol;
}

/* mean distance of the ring at x = 1 from the deformed bone axis point (joint at (1, 0, 0)) */
static double joint_ring_radius(const float* p) {
  size_t base = (size_t)(CYL_RINGS / 2) * CYL_SEG;
  double cx = 0, cy = 0, cz = 0;
  for (int s = 0; s < CYL_SEG; ++s) {
    cx += p[3 * (base + s)];
    cy += p[3 * (base + s) + 1];
    cz += p[3 * (base + s) + 2];
  }
  cx /= CYL_SEG;
  cy /= CYL_SEG;
  cz /= CYL_SEG;
  double r = 0;
  for (int s = 0; s < CYL_SEG; ++s) {
    double dx = p[3 * (base + s)] - cx, dy = p[3 * (base + s) + 1] - cy, dz = p[3 * (base + s) + 2] - cz;
    r += sqrt(dx * dx + dy * dy + dz * dz);
  }
  return r / CYL_SEG / CYL_R;
}

static void cylinder_pose(const cylinder* c, int method, const float m1[16], float* out) {
  float pal[32];
  skc_mat4_identity(pal);
  memcpy(pal + 16, m1, 16 * sizeof(float));
  sk_deform_job j;
  job_init(&j);
  j.method = (uint32_t)method;
  j.vertex_count = c->V;
  j.palette = pal;
  j.joint_count = 2;
  j.influences = 2;
  j.joint_type = SK_TYPE_U16;
  j.weight_type = SK_TYPE_F32;
  j.joints = c->joints;
  j.weights = c->weights;
  j.in_positions = c->p;
  j.out_positions = out;
  ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
}

START_TEST(test_deform_cylinder_quality) {
  cylinder c;
  cylinder_make(&c);
  double rest = mesh_volume(&c, c.p);
  ck_assert(rest > 0);
  ck_assert(fabs(rest - PI_F * CYL_R * CYL_R * 2.0) < 0.01 * rest); /* sanity of the mesh */
  float* out = malloc(3 * c.V * sizeof(float));
  /* bend: 90 degrees about +Z at the joint (1, 0, 0); twist: 180 degrees about the bone axis +X */
  float bend[16], twist[16], tmp[16], tr[16], trn[16];
  float z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  float j1[3] = {1, 0, 0}, mj1[3] = {-1, 0, 0};
  make_trs(z, 0.5f * PI_F, zero, one, tmp);
  make_trs(z, 0, j1, one, tr);
  make_trs(z, 0, mj1, one, trn);
  skc_mat4_mul(tr, tmp, bend);
  skc_mat4_mul(bend, trn, bend);
  make_trs(x, PI_F, zero, one, twist);

  cylinder_pose(&c, SK_DEFORM_LBS, bend, out);
  double lbs_vol = mesh_volume(&c, out) / rest;
  cylinder_pose(&c, SK_DEFORM_LBS, twist, out);
  double lbs_rad = joint_ring_radius(out);
  cylinder_pose(&c, SK_DEFORM_DQS, bend, out);
  double dqs_vol = mesh_volume(&c, out) / rest;
  cylinder_pose(&c, SK_DEFORM_DQS, twist, out);
  double dqs_rad = joint_ring_radius(out);
  double dqs_tw_vol = mesh_volume(&c, out) / rest;
  printf("cylinder 90deg bend volume ratio: LBS %.4f DQS %.4f; 180deg twist joint ring radius: LBS %.4f DQS %.4f "
         "(DQS twist volume %.4f)\n",
         lbs_vol, dqs_vol, lbs_rad, dqs_rad, dqs_tw_vol);
  ck_assert_msg(lbs_vol >= 0.93 && lbs_vol <= 0.985, "LBS bend volume ratio %g", lbs_vol);
  ck_assert_msg(lbs_rad < 0.3, "LBS twist ring radius %g", lbs_rad);
  ck_assert_msg(dqs_vol >= 0.99, "DQS bend volume ratio %g", dqs_vol);
  ck_assert_msg(dqs_rad > 0.95, "DQS twist ring radius %g", dqs_rad);
  free(out);
  cylinder_free(&c);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- main */

static Suite* deform_suite(void) {
  Suite* s = suite_create("deform");
  TCase* v = tcase_create("validity");
  tcase_add_test(v, test_deform_zeroed_job_is_invalid);
  tcase_add_test(v, test_deform_wrong_size);
  tcase_add_test(v, test_deform_invalid_fields);
  tcase_add_test(v, test_deform_validate_does_not_read_vertices);
  tcase_add_test(v, test_deform_out_of_range_joint_keeps_vertex);
  tcase_add_test(v, test_deform_csr_decreasing_offsets);
  suite_add_tcase(s, v);
  TCase* r = tcase_create("result");
  tcase_set_timeout(r, 120);
  tcase_add_test(r, test_deform_identity_palette_is_noop);
  tcase_add_test(r, test_deform_single_rigid_palette_moves_rigidly);
  tcase_add_test(r, test_deform_dqs_equals_lbs_for_translations);
  tcase_add_test(r, test_deform_lbs_inside_hull_of_joint_images);
  tcase_add_test(r, test_deform_cpu_kernel_name);
  tcase_add_test(r, test_deform_simd_path_taken);
  tcase_add_test(r, test_deform_kernels_match_scalar);
  tcase_add_test(r, test_deform_packed_fast_matches_scalar);
  tcase_add_test(r, test_deform_dqs_table_matches_scalar);
  tcase_add_test(r, test_deform_hemisphere_untabled_matches_scalar);
  tcase_add_test(r, test_deform_uniform_signs_match_scalar);
  tcase_add_test(r, test_deform_large_outputs_match_scalar);
  tcase_add_test(r, test_deform_threads_identical);
  tcase_add_test(r, test_deform_in_place);
  tcase_add_test(r, test_deform_additive);
  tcase_add_test(r, test_deform_normalize_weights);
  tcase_add_test(r, test_deform_nonrigid_normals_inverse_transpose);
  tcase_add_test(r, test_deform_normal_fast);
  tcase_add_test(r, test_deform_no_renormalize_and_tangent_w);
  tcase_add_test(r, test_deform_zero_length_normal_keeps_input);
  tcase_add_test(r, test_deform_rigid_method_picks_largest);
  tcase_add_test(r, test_deform_implied_last_weight);
  tcase_add_test(r, test_deform_dqs_nonuniform_scale);
  suite_add_tcase(s, r);
  TCase* q = tcase_create("quality");
  tcase_set_timeout(q, 120);
  tcase_add_test(q, test_deform_cylinder_quality);
  suite_add_tcase(s, q);
  return s;
}

int main(void) {
  SRunner* sr = srunner_create(deform_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
