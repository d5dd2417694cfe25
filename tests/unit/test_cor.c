/* test_cor.c - optimized centres of rotation (sk_cor_compute, SK_DEFORM_COR): the candy wrapper and the bend on
 * the generated two-bone cylinder against LBS / DQS, single-influence vertices against LBS, the precompute against
 * an O(vertices * triangles) reference, bad arguments, and jobs of the ABI 1.4 size. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skc_cor.h"
#include "skc_deform.h"
#include "skinkit.h"

#define PI_F 3.14159265358979f

/* ---------------------------------------------------------------------------------------------- fixture */

typedef struct rig {
  size_t nv, nt;
  float *pos, *nrm;
  uint32_t* tri;
  uint32_t *off, *jnt;
  float* wgt;
  uint32_t joints;
  float* centers;
} rig;

static rig rig_cylinder(uint32_t segments, uint32_t rings, uint32_t bones, float blend) {
  rig r;
  memset(&r, 0, sizeof r);
  sk_cylinder_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.segments = segments;
  d.rings = rings;
  d.bones = bones;
  d.blend = blend;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &r.nv, &r.nt, NULL, NULL, NULL, NULL, NULL), SK_OK);
  r.pos = malloc(3 * r.nv * sizeof(float));
  r.nrm = malloc(3 * r.nv * sizeof(float));
  r.tri = malloc(3 * r.nt * sizeof(uint32_t));
  sk_skin* skin = NULL;
  ck_assert_int_eq(sk_skin_create(r.nv, bones, &skin, NULL), SK_OK);
  ck_assert_int_eq(sk_mesh_cylinder(&d, &r.nv, &r.nt, r.pos, r.nrm, r.tri, skin, NULL), SK_OK);
  r.off = malloc((r.nv + 1) * sizeof(uint32_t));
  ck_assert_int_eq(sk_skin_get_csr(skin, r.off, NULL, NULL, NULL), SK_OK);
  r.jnt = malloc((r.off[r.nv] + 1) * sizeof(uint32_t));
  r.wgt = malloc((r.off[r.nv] + 1) * sizeof(float));
  ck_assert_int_eq(sk_skin_get_csr(skin, r.off, r.jnt, r.wgt, NULL), SK_OK);
  sk_skin_destroy(skin);
  r.joints = bones;
  r.centers = malloc(3 * r.nv * sizeof(float));
  return r;
}

static void rig_free(rig* r) {
  free(r->pos);
  free(r->nrm);
  free(r->tri);
  free(r->off);
  free(r->jnt);
  free(r->wgt);
  free(r->centers);
}

static void rig_centers(rig* r) {
  sk_error e;
  ck_assert_msg(sk_cor_compute(r->pos, r->nv, r->tri, r->nt, r->off, r->jnt, r->wgt, r->joints, 0.0f, 0,
                               r->centers, &e) == SK_OK,
                "%s", e.message);
}

static void identity(float m[16]) {
  memset(m, 0, 16 * sizeof(float));
  m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static sk_deform_job rig_job(const rig* r, uint32_t method, const float* palette, float* out_pos, float* out_nrm) {
  sk_deform_job j;
  memset(&j, 0, sizeof j);
  j.size = sizeof j;
  j.method = method;
  j.threads = 1;
  j.vertex_count = r->nv;
  j.palette = palette;
  j.joint_count = r->joints;
  j.csr_offsets = r->off;
  j.csr_joints = r->jnt;
  j.csr_weights = r->wgt;
  j.in_positions = r->pos;
  j.out_positions = out_pos;
  if (out_nrm) {
    j.in_normals = r->nrm;
    j.out_normals = out_nrm;
  }
  j.centers = r->centers;
  return j;
}

static void run_ok(const sk_deform_job* j) {
  sk_error e;
  ck_assert_msg(sk_deform_run(j, &e) == SK_OK, "%s", e.message);
}

/* Mean distance from the X axis of the side vertices whose rest x is within 1e-4 of x0 (the ring at x0), and
 * their count; the positions are the deformed ones, but the ring is chosen by rest position. */
static double ring_radius(const rig* r, const float* out, float x0, int* count) {
  double sum = 0.0;
  int n = 0;
  for (size_t v = 0; v < r->nv; ++v) {
    const float* p = r->pos + 3 * v;
    if (fabsf(p[0] - x0) > 1e-4f || fabsf(r->nrm[3 * v]) > 0.5f) continue; /* side vertices only, not caps */
    const float* q = out + 3 * v;
    /* from the rest axis: a twist about it keeps the ring's axis point */
    sum += sqrt((double)q[1] * q[1] + (double)q[2] * q[2]);
    ++n;
  }
  *count = n;
  return n ? sum / n : 0.0;
}

/* Enclosed volume of the closed mesh (divergence theorem over the triangles). */
static double volume(const rig* r, const float* p) {
  double v = 0.0;
  for (size_t t = 0; t < r->nt; ++t) {
    const float *a = p + 3 * (size_t)r->tri[3 * t], *b = p + 3 * (size_t)r->tri[3 * t + 1],
                *c = p + 3 * (size_t)r->tri[3 * t + 2];
    v += ((double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
          (double)a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
          (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) /
         6.0;
  }
  return v;
}

/* ---------------------------------------------------------------------------------------------- quality */

START_TEST(cor_candy_wrapper) {
  rig r = rig_cylinder(32, 64, 2, 0.25f);
  rig_centers(&r);
  float pal[32];
  identity(pal);
  skt_rot_about(0, PI_F, 1.0f, pal + 16);
  float* lbs = malloc(3 * r.nv * sizeof(float));
  float* cor = malloc(3 * r.nv * sizeof(float));
  sk_deform_job j = rig_job(&r, SK_DEFORM_LBS, pal, lbs, NULL);
  run_ok(&j);
  j = rig_job(&r, SK_DEFORM_COR, pal, cor, NULL);
  uint64_t before[SKC_DEFORM_PATH_COUNT], after[SKC_DEFORM_PATH_COUNT];
  skc_deform_path_counts(before);
  run_ok(&j);
  skc_deform_path_counts(after);
  /* CSR influences: COR's wide paths take packed ones only, so every vertex goes through the generic loop */
  ck_assert_uint_eq(after[SKC_DEFORM_PATH_GENERIC] - before[SKC_DEFORM_PATH_GENERIC], r.nv);
  for (int p = 1; p < SKC_DEFORM_PATH_COUNT; ++p) ck_assert_uint_eq(after[p], before[p]);
  int n_rest, n_lbs, n_cor;
  double rest = ring_radius(&r, r.pos, 1.0f, &n_rest);
  double rl = ring_radius(&r, lbs, 1.0f, &n_lbs);
  double rc = ring_radius(&r, cor, 1.0f, &n_cor);
  printf("candy wrapper, 180 deg twist, middle ring (%d vertices): rest radius %.4f, LBS %.4f (%.1f %%), COR %.4f "
         "(%.1f %%)\n", n_rest, rest, rl, 100.0 * rl / rest, rc, 100.0 * rc / rest);
  ck_assert_int_eq(n_rest, 32);
  ck_assert_double_lt(rl, 0.05 * rest); /* LBS collapses the ring to the axis */
  ck_assert_double_ge(rc, 0.95 * rest);
  free(lbs);
  free(cor);
  rig_free(&r);
}
END_TEST

/* Packed influences (u8 / u16 joints, K = 1, 2, 4 or 8 float weights, the engine layouts) on every kernel this CPU
 * runs: the avx2 kernel takes COR on its 8-wide path (path counter SOA8), avx512 on its 16-wide one (WIDE16), the
 * others the generic loop,
 * and every kernel gives the CSR generic result within 2e-6 (positions; normals renormalized or not). A 4-bone
 * cylinder bent at every joint, with 3 vertices past the last block of 8 (the tail goes to the generic loop). */
START_TEST(cor_packed_kernels_match_generic) {
  static const char* kernels[4] = {"scalar", "sse2", "avx2", "avx512"};
  rig r = rig_cylinder(24, 40, 4, 0.3f);
  rig_centers(&r);
  float pal[4 * 16];
  for (uint32_t j = 0; j < 4; ++j) skt_rot_about(j % 2 ? 2 : 0, 0.4f + 0.3f * (float)j, 0.5f * (float)j, pal + 16 * j);
  size_t nv = r.nv - (r.nv % 8 == 3 ? 0 : (r.nv % 8 + 5) % 8); /* nv = 3 (mod 8) */
  ck_assert_uint_eq(nv % 8, 3);
  float* ref = malloc(3 * nv * sizeof(float));
  float* refn = malloc(3 * nv * sizeof(float));
  float* out = malloc(3 * nv * sizeof(float));
  float* outn = malloc(3 * nv * sizeof(float));
  uint16_t* j16 = malloc(8 * nv * sizeof *j16);
  uint8_t* j8 = malloc(8 * nv);
  float* w = malloc(8 * nv * sizeof *w);
  static const uint32_t ks[4] = {1, 2, 4, 8};
  for (int ki = 0; ki < 4; ++ki) {
    uint32_t K = ks[ki];
    for (size_t v = 0; v < nv; ++v) { /* the CSR influences, largest first, cut to K and padded with zeros */
      uint32_t n = r.off[v + 1] - r.off[v];
      for (uint32_t i = 0; i < K; ++i) {
        uint32_t src = i < n ? r.off[v] + i : 0;
        j16[K * v + i] = (uint16_t)(i < n ? r.jnt[src] : 0);
        j8[K * v + i] = (uint8_t)j16[K * v + i];
        w[K * v + i] = i < n ? r.wgt[src] : 0.0f;
      }
    }
    for (int rn = 0; rn < 2; ++rn) {
      /* the reference: the same packed weights through the CSR generic loop */
      uint32_t* off = malloc((nv + 1) * sizeof *off);
      uint32_t* jj = malloc(K * nv * sizeof *jj);
      for (size_t v = 0; v <= nv; ++v) off[v] = (uint32_t)(K * v);
      for (size_t i = 0; i < K * nv; ++i) jj[i] = j16[i];
      sk_deform_job g = rig_job(&r, SK_DEFORM_COR, pal, ref, refn);
      g.vertex_count = nv;
      g.csr_offsets = off;
      g.csr_joints = jj;
      g.csr_weights = w;
      g.flags = rn ? SK_DEFORM_NO_RENORMALIZE : 0;
      run_ok(&g);
      for (int kn = 0; kn < 4; ++kn) {
        setenv("SKINKIT_KERNEL", kernels[kn], 1);
        if (strcmp(sk_cpu_kernel(), kernels[kn]) != 0) continue; /* this CPU lacks it */
        for (int jt = 0; jt < 2; ++jt) {
          sk_deform_job j = rig_job(&r, SK_DEFORM_COR, pal, out, outn);
          j.vertex_count = nv;
          j.csr_offsets = NULL;
          j.influences = K;
          j.joint_type = jt ? SK_TYPE_U16 : SK_TYPE_U8;
          j.joints = jt ? (const void*)j16 : (const void*)j8;
          j.weight_type = SK_TYPE_F32;
          j.weights = w;
          j.flags = g.flags;
          uint64_t before[SKC_DEFORM_PATH_COUNT], after[SKC_DEFORM_PATH_COUNT];
          skc_deform_path_counts(before);
          run_ok(&j);
          skc_deform_path_counts(after);
          /* 4 joints and 1027 vertices: K = 1, or uniform signs, or the (pivot, joint) table - the avx512 kernel's
           * 16-wide path in each case */
          const int path = kn == 3 ? SKC_DEFORM_PATH_WIDE16 : kn == 2 ? SKC_DEFORM_PATH_SOA8 : SKC_DEFORM_PATH_GENERIC;
          ck_assert_uint_eq(after[path] - before[path], nv);
          float worst = 0.0f;
          for (size_t i = 0; i < 3 * nv; ++i) {
            float e = fmaxf(fabsf(out[i] - ref[i]), fabsf(outn[i] - refn[i]));
            if (!(e <= worst)) worst = e;
          }
          ck_assert_msg(worst <= 2e-6f, "kernel %s K %u %s %s: max difference %g", kernels[kn], K, jt ? "u16" : "u8",
                        rn ? "no renormalize" : "renormalize", (double)worst);
        }
      }
      free(off);
      free(jj);
    }
  }
  unsetenv("SKINKIT_KERNEL");
  free(ref);
  free(refn);
  free(out);
  free(outn);
  free(j16);
  free(j8);
  free(w);
  rig_free(&r);
}
END_TEST

/* Mean distance of a ring's deformed vertices (chosen as in ring_radius) from their centroid. */
static double ring_own_radius(const rig* r, const float* out, float x0) {
  double c[3] = {0, 0, 0}, sum = 0.0;
  int n = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t v = 0; v < r->nv; ++v) {
      const float* p = r->pos + 3 * v;
      if (fabsf(p[0] - x0) > 1e-4f || fabsf(r->nrm[3 * v]) > 0.5f) continue;
      const float* q = out + 3 * v;
      if (pass == 0) {
        for (int k = 0; k < 3; ++k) c[k] += q[k];
        ++n;
      } else {
        sum += sqrt((q[0] - c[0] / n) * (q[0] - c[0] / n) + (q[1] - c[1] / n) * (q[1] - c[1] / n) +
                    (q[2] - c[2] / n) * (q[2] - c[2] / n));
      }
    }
  return n ? sum / n : 0.0;
}

/* 90 degree bend about Z at the joint: enclosed volume and the middle ring's radius. On this tube DQS keeps the
 * volume as well (its artefact at a bend is a bulge that redistributes volume, not a loss); the test pins COR
 * within 2 % and well ahead of LBS, and prints all three. */
START_TEST(cor_bend_volume) {
  rig r = rig_cylinder(32, 64, 2, 0.25f);
  rig_centers(&r);
  float pal[32];
  identity(pal);
  skt_rot_about(2, 0.5f * PI_F, 1.0f, pal + 16);
  float* out = malloc(3 * r.nv * sizeof(float));
  double v0 = volume(&r, r.pos), r0 = ring_own_radius(&r, r.pos, 1.0f), err[3], rad[3];
  const uint32_t methods[3] = {SK_DEFORM_LBS, SK_DEFORM_DQS, SK_DEFORM_COR};
  const char* names[3] = {"LBS", "DQS", "COR"};
  for (int m = 0; m < 3; ++m) {
    sk_deform_job j = rig_job(&r, methods[m], pal, out, NULL);
    run_ok(&j);
    double v = volume(&r, out);
    err[m] = (v - v0) / v0;
    rad[m] = ring_own_radius(&r, out, 1.0f) / r0;
    printf("bend 90 deg: %s volume %.5f vs rest %.5f (%+.2f %%), middle ring radius %.1f %% of rest\n", names[m], v,
           v0, 100.0 * err[m], 100.0 * rad[m]);
  }
  ck_assert_double_lt(fabs(err[2]), 0.02);
  ck_assert_double_lt(err[0], -0.02); /* LBS loses volume at the bend */
  ck_assert_double_lt(fabs(err[2]), 0.25 * fabs(err[0]));
  ck_assert_double_gt(rad[2], 0.98);
  ck_assert_double_lt(rad[2], 1.02);
  ck_assert_double_lt(rad[0], 0.9);
  free(out);
  rig_free(&r);
}
END_TEST

/* Vertices with one influence move exactly as LBS moves them (positions and normals), with a palette that
 * rotates and translates both joints. */
START_TEST(cor_single_influence_is_lbs) {
  rig r = rig_cylinder(16, 32, 3, 0.2f);
  rig_centers(&r);
  float pal[48];
  skt_rot_about(2, 0.3f, 0.2f, pal);
  skt_rot_about(0, 1.1f, 0.7f, pal + 16);
  skt_rot_about(2, -0.8f, 1.4f, pal + 32);
  pal[12] += 0.5f;
  pal[29] -= 0.25f;
  float *pl = malloc(3 * r.nv * sizeof(float)), *nl = malloc(3 * r.nv * sizeof(float));
  float *pc = malloc(3 * r.nv * sizeof(float)), *nc = malloc(3 * r.nv * sizeof(float));
  sk_deform_job j = rig_job(&r, SK_DEFORM_LBS, pal, pl, nl);
  run_ok(&j);
  j = rig_job(&r, SK_DEFORM_COR, pal, pc, nc);
  run_ok(&j);
  size_t single = 0;
  for (size_t v = 0; v < r.nv; ++v) {
    if (r.off[v + 1] - r.off[v] != 1) continue;
    ++single;
    for (int k = 0; k < 3; ++k) {
      ck_assert_float_eq_tol(pc[3 * v + k], pl[3 * v + k], 1e-6f);
      ck_assert_float_eq_tol(nc[3 * v + k], nl[3 * v + k], 1e-6f);
    }
    ck_assert_float_eq(r.centers[3 * v], r.pos[3 * v]); /* nothing similar: the centre is the vertex */
  }
  ck_assert_uint_gt(single, r.nv / 3);
  free(pl);
  free(nl);
  free(pc);
  free(nc);
  rig_free(&r);
}
END_TEST

/* Every joint with the same matrix (rotation, translation, uniform and non-uniform scale): whatever the centres,
 * R S (p - c) + M c = M p, so COR equals LBS (this exercises the stretch split of scaled palettes). */
START_TEST(cor_equal_joints_is_lbs) {
  rig r = rig_cylinder(16, 32, 3, 0.3f);
  rig_centers(&r);
  float pal[48];
  skt_rot_about(2, 0.9f, 0.5f, pal);
  for (int k = 0; k < 3; ++k) {
    pal[k] *= 1.5f; /* column 0 scaled: non-uniform scale */
    pal[8 + k] *= 0.8f;
  }
  memcpy(pal + 16, pal, sizeof(float) * 16);
  memcpy(pal + 32, pal, sizeof(float) * 16);
  float *pl = malloc(3 * r.nv * sizeof(float)), *pc = malloc(3 * r.nv * sizeof(float));
  float *nl = malloc(3 * r.nv * sizeof(float)), *nc = malloc(3 * r.nv * sizeof(float));
  sk_deform_job j = rig_job(&r, SK_DEFORM_LBS, pal, pl, nl);
  run_ok(&j);
  j = rig_job(&r, SK_DEFORM_COR, pal, pc, nc);
  run_ok(&j);
  double worst = 0.0, worst_n = 0.0;
  for (size_t i = 0; i < 3 * r.nv; ++i) {
    if (fabs((double)pc[i] - pl[i]) > worst) worst = fabs((double)pc[i] - pl[i]);
    if (fabs((double)nc[i] - nl[i]) > worst_n) worst_n = fabs((double)nc[i] - nl[i]);
  }
  ck_assert_double_lt(worst, 1e-5);
  ck_assert_double_lt(worst_n, 1e-4);
  free(pl);
  free(pc);
  free(nl);
  free(nc);
  rig_free(&r);
}
END_TEST

/* NORMALIZE_WEIGHTS on doubled weights gives the plain result; normals stay unit; threads do not matter. */
START_TEST(cor_flags_and_threads) {
  rig r = rig_cylinder(16, 600, 3, 0.3f); /* > 8192 vertices: more than one chunk for the threads */
  rig_centers(&r);
  float pal[48];
  identity(pal);
  skt_rot_about(0, 2.0f, 0.7f, pal + 16);
  skt_rot_about(2, 1.2f, 1.3f, pal + 32);
  size_t bytes = 3 * r.nv * sizeof(float);
  float *p1 = malloc(bytes), *n1 = malloc(bytes), *p2 = malloc(bytes), *n2 = malloc(bytes);
  sk_deform_job j = rig_job(&r, SK_DEFORM_COR, pal, p1, n1);
  run_ok(&j);
  for (size_t v = 0; v < r.nv; ++v) {
    const float* n = n1 + 3 * v;
    ck_assert_float_eq_tol(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0f, 1e-5f);
  }
  j = rig_job(&r, SK_DEFORM_COR, pal, p2, n2);
  j.threads = 0;
  run_ok(&j);
  ck_assert_int_eq(memcmp(p1, p2, bytes), 0);
  ck_assert_int_eq(memcmp(n1, n2, bytes), 0);
  for (uint32_t e = 0; e < r.off[r.nv]; ++e) r.wgt[e] *= 2.0f;
  j = rig_job(&r, SK_DEFORM_COR, pal, p2, n2);
  j.flags = SK_DEFORM_NORMALIZE_WEIGHTS;
  run_ok(&j);
  for (size_t i = 0; i < 3 * r.nv; ++i) ck_assert_float_eq_tol(p2[i], p1[i], 1e-5f);
  free(p1);
  free(n1);
  free(p2);
  free(n2);
  rig_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- precompute */

/* The paper's formula over every (vertex, triangle) pair, in double, with dense weights rescaled to sum 1. */
static void reference_centres(const rig* r, double sigma, double* out) {
  const size_t J = r->joints;
  double* dense = calloc(r->nv * J, sizeof(double));
  for (size_t v = 0; v < r->nv; ++v) {
    double sum = 0.0;
    for (uint32_t e = r->off[v]; e < r->off[v + 1]; ++e) sum += r->wgt[e];
    for (uint32_t e = r->off[v]; e < r->off[v + 1]; ++e) dense[v * J + r->jnt[e]] += r->wgt[e] / sum;
  }
  double* wt = malloc(J * sizeof(double));
  for (size_t v = 0; v < r->nv; ++v) {
    const double* wp = dense + v * J;
    double den = 0.0, num[3] = {0, 0, 0};
    for (size_t t = 0; t < r->nt; ++t) {
      const uint32_t* tri = r->tri + 3 * t;
      for (size_t j = 0; j < J; ++j)
        wt[j] = (dense[tri[0] * J + j] + dense[tri[1] * J + j] + dense[tri[2] * J + j]) / 3.0;
      double s = 0.0;
      for (size_t j = 0; j < J; ++j)
        for (size_t k = j + 1; k < J; ++k) {
          double d = wp[j] * wt[k] - wp[k] * wt[j];
          s += wp[j] * wp[k] * wt[j] * wt[k] * exp(-d * d / (sigma * sigma));
        }
      const float *a = r->pos + 3 * (size_t)tri[0], *b = r->pos + 3 * (size_t)tri[1], *c = r->pos + 3 * (size_t)tri[2];
      double e1[3], e2[3];
      for (int k = 0; k < 3; ++k) {
        e1[k] = (double)b[k] - a[k];
        e2[k] = (double)c[k] - a[k];
      }
      double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2], z = e1[0] * e2[1] - e1[1] * e2[0];
      double area = 0.5 * sqrt(x * x + y * y + z * z);
      den += s * area;
      for (int k = 0; k < 3; ++k) num[k] += s * area * ((double)a[k] + b[k] + c[k]) / 3.0;
    }
    for (int k = 0; k < 3; ++k) out[3 * v + k] = den > 0.0 ? num[k] / den : r->pos[3 * v + k];
  }
  free(wt);
  free(dense);
}

/* Replaces the cylinder's weights: vertex v takes vector v % 7 of a pool of random vectors over 1..4 of 5 joints
 * (so many vertices share each vector, and vectors share several joint pairs). */
static void pool_weights(rig* r) {
  static const uint32_t pj[7][4] = {{0, 1, 0, 0}, {1, 2, 3, 0}, {0, 2, 4, 1}, {3, 0, 0, 0},
                                    {2, 3, 0, 0}, {4, 1, 3, 2}, {0, 4, 0, 0}};
  static const float pw[7][4] = {{0.6f, 0.4f}, {0.5f, 0.3f, 0.2f}, {0.4f, 0.3f, 0.2f, 0.1f}, {1.0f},
                                 {0.55f, 0.45f}, {0.25f, 0.25f, 0.3f, 0.2f}, {0.7f, 0.3f}};
  static const int pn[7] = {2, 3, 4, 1, 2, 4, 2};
  free(r->jnt);
  free(r->wgt);
  r->jnt = malloc(4 * r->nv * sizeof(uint32_t));
  r->wgt = malloc(4 * r->nv * sizeof(float));
  uint32_t e = 0;
  for (size_t v = 0; v < r->nv; ++v) {
    r->off[v] = e;
    int p = (int)(v % 7);
    for (int i = 0; i < pn[p]; ++i, ++e) {
      r->jnt[e] = pj[p][i];
      r->wgt[e] = pw[p][i];
    }
  }
  r->off[r->nv] = e;
  r->joints = 5;
}

static double check_against_reference(rig* r, double sigma, double tol) {
  double* ref = malloc(3 * r->nv * sizeof(double));
  reference_centres(r, sigma, ref);
  double worst = 0.0;
  for (size_t i = 0; i < 3 * r->nv; ++i) {
    double d = fabs(ref[i] - r->centers[i]);
    if (d > worst) worst = d;
  }
  printf("precompute vs O(n t) reference (%zu vertices, %zu triangles, sigma %.2f): max |difference| %.2e\n", r->nv,
         r->nt, sigma, worst);
  ck_assert_double_lt(worst, tol);
  free(ref);
  return worst;
}

START_TEST(cor_precompute_matches_reference) {
  rig r = rig_cylinder(8, 12, 3, 0.3f);
  rig_centers(&r);
  check_against_reference(&r, 0.1, 1e-5);
  /* a shared vector gives one centre: the 8 side vertices of a ring share their weights */
  pool_weights(&r);
  sk_error e;
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, r.joints, 0.3f, 1, r.centers, &e),
                   SK_OK);
  check_against_reference(&r, 0.3, 1e-5);
  for (size_t v = 7; v < r.nv; ++v)
    if (r.off[v + 1] - r.off[v] > 1)
      for (int k = 0; k < 3; ++k) ck_assert_float_eq(r.centers[3 * v + k], r.centers[3 * (v % 7) + k]);
  /* the thread count does not change the result */
  float* again = malloc(3 * r.nv * sizeof(float));
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, r.joints, 0.3f, 0, again, &e),
                   SK_OK);
  ck_assert_int_eq(memcmp(again, r.centers, 3 * r.nv * sizeof(float)), 0);
  free(again);
  rig_free(&r);
}
END_TEST

/* A narrow sigma: most kernel values are below float's range (the AVX2 walk computes them in float), and a vertex
 * vector whose terms are all tiny is redone in double; the centres still match the reference. */
START_TEST(cor_precompute_narrow_sigma) {
  rig r = rig_cylinder(8, 12, 3, 0.3f);
  pool_weights(&r);
  const float sigmas[2] = {0.02f, 0.001f};
  for (int i = 0; i < 2; ++i) {
    sk_error e;
    ck_assert_int_eq(
        sk_cor_compute(r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, r.joints, sigmas[i], 0, r.centers, &e), SK_OK);
    check_against_reference(&r, sigmas[i], 1e-5);
  }
  rig_free(&r);
}
END_TEST

/* Every blended vertex with its own weights (jitter 1e-3): the joint pair's bucket is large enough for the cell
 * merging of cor.c, whose error against the exact formula is measured here. */
START_TEST(cor_precompute_merged_cells) {
  rig r = rig_cylinder(32, 128, 2, 0.5f);
  uint64_t g = 0x9E3779B97F4A7C15ull;
  for (size_t v = 0; v < r.nv; ++v)
    if (r.off[v + 1] - r.off[v] == 2) {
      g ^= g << 13;
      g ^= g >> 7;
      g ^= g << 17;
      float e = ((float)(g >> 40) / 16777216.0f - 0.5f) * 2e-3f;
      r.wgt[r.off[v]] += e;
      r.wgt[r.off[v] + 1] -= e;
    }
  rig_centers(&r);
  check_against_reference(&r, 0.1, 2e-5);
  rig_free(&r);
}
END_TEST

/* Centres from core's skc_cor_compute with flags (SKC_COR_EXACT or 0) into out; the walk's counts into st. */
static void core_centres(const rig* r, uint32_t flags, float* out, skc_cor_stats* st) {
  skc_cor_args a = {r->pos, r->nv, r->tri, r->nt, r->off, r->jnt, r->wgt, r->joints, 0.0f, 0, flags, st};
  skc_err e;
  ck_assert_msg(skc_cor_compute(&a, out, &e) == SKC_OK, "skc_cor_compute: %s", e.message);
}

/* Largest distance between the interpolated and the walked centres, in units of the bounding box diagonal. */
static double grid_error(const rig* r, const float* grid, const float* walked) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  double worst = 0.0, diag = 0.0;
  for (size_t v = 0; v < r->nv; ++v) {
    double d = 0.0;
    for (int k = 0; k < 3; ++k) {
      float p = r->pos[3 * v + k];
      lo[k] = p < lo[k] ? p : lo[k], hi[k] = p > hi[k] ? p : hi[k];
      double x = (double)grid[3 * v + k] - walked[3 * v + k];
      d += x * x;
    }
    worst = sqrt(d) > worst ? sqrt(d) : worst;
  }
  for (int k = 0; k < 3; ++k) diag += (double)(hi[k] - lo[k]) * (hi[k] - lo[k]);
  return worst / sqrt(diag);
}

static uint64_t xorshift(uint64_t* g) {
  *g ^= *g << 13;
  *g ^= *g >> 7;
  *g ^= *g << 17;
  return *g;
}

/* A 5,152-vertex cylinder, four joints along it, every vertex on all four with smooth, jittered weights (all
 * distinct): every joint pair's queries cover a region of the (p_j, p_k) plane, as on a painted mesh, and the
 * buckets are large. */
static rig rig_smooth4(void) {
  rig r = rig_cylinder(32, 160, 2, 0.5f);
  free(r.jnt);
  free(r.wgt);
  r.jnt = malloc(4 * r.nv * sizeof(uint32_t));
  r.wgt = malloc(4 * r.nv * sizeof(float));
  r.joints = 4;
  float x0 = INFINITY, x1 = -INFINITY;
  for (size_t v = 0; v < r.nv; ++v) {
    x0 = r.pos[3 * v] < x0 ? r.pos[3 * v] : x0;
    x1 = r.pos[3 * v] > x1 ? r.pos[3 * v] : x1;
  }
  uint64_t g = 0x9E3779B97F4A7C15ull;
  for (size_t v = 0; v < r.nv; ++v) {
    float t = (r.pos[3 * v] - x0) / (x1 - x0);
    r.off[v] = (uint32_t)(4 * v);
    for (uint32_t j = 0; j < 4; ++j) {
      float c = (j + 0.5f) / 4.0f, d = (t - c) / 0.3f;
      r.jnt[4 * v + j] = j;
      r.wgt[4 * v + j] = expf(-d * d) + 0.05f * (float)(xorshift(&g) >> 40) / 16777216.0f;
    }
  }
  r.off[r.nv] = (uint32_t)(4 * r.nv);
  return r;
}

/* On rig_smooth4, cor.c interpolates most queries from its node grids. They must match the exact walk. */
START_TEST(cor_grid_matches_walk) {
  rig r = rig_smooth4();
  float* walked = malloc(3 * r.nv * sizeof(float));
  skc_cor_stats st = {0}, ex = {0};
  core_centres(&r, 0, r.centers, &st);
  core_centres(&r, SKC_COR_EXACT, walked, &ex);
  double err = grid_error(&r, r.centers, walked);
  printf("grid: %zu of %zu queries interpolated from %zu nodes, %zu steep; max difference to the walk %.2e of the "
         "diagonal\n", st.interpolated, st.queries, st.nodes, st.steep, err);
  ck_assert_uint_gt(st.interpolated, st.queries / 2);
  ck_assert_uint_eq(ex.interpolated + ex.nodes, 0);
  ck_assert_double_lt(err, 1e-5);
  /* extreme widths: a node spacing far below any weight step (no grid) or above the whole range (one cell) */
  const float sigmas[2] = {1e-20f, 1e30f};
  for (int i = 0; i < 2; ++i) {
    skc_cor_args a = {r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, r.joints, sigmas[i], 0, 0, &st};
    skc_err e;
    ck_assert_int_eq(skc_cor_compute(&a, r.centers, &e), SKC_OK);
    for (size_t k = 0; k < 3 * r.nv; ++k) ck_assert(isfinite(r.centers[k]));
    printf("sigma %g: %zu of %zu queries interpolated\n", (double)sigmas[i], st.interpolated, st.queries);
  }
  free(walked);
  rig_free(&r);
}
END_TEST

/* The walk keeps its masses as floats scaled to the model by a power of two: a model 2^50 times larger (areas times
 * coordinates past float's range) or smaller gets exactly the same centres, scaled. */
START_TEST(cor_units_do_not_matter) {
  rig r = rig_smooth4();
  const size_t n = 3 * r.nv;
  float* base = malloc(n * sizeof(float));
  float* pos = r.pos;
  float* scaled = malloc(n * sizeof(float));
  core_centres(&r, 0, base, NULL);
  const float scales[2] = {0x1p50f, 0x1p-50f};
  for (int i = 0; i < 2; ++i) {
    r.pos = malloc(n * sizeof(float));
    for (size_t k = 0; k < n; ++k) r.pos[k] = pos[k] * scales[i];
    core_centres(&r, 0, scaled, NULL);
    for (size_t k = 0; k < n; ++k) ck_assert_msg(scaled[k] == base[k] * scales[i], "scale %g: %zu", (double)scales[i], k);
    free(r.pos);
  }
  r.pos = pos;
  free(base);
  free(scaled);
  rig_free(&r);
}
END_TEST

/* Queries far from every triangle of their bucket (weight ratios no triangle has: loose vertices at 1-99 %, the
 * triangles within 40-60 %) sit on the steep tails of the bucket's Gaussians, where interpolation is poor: cor.c
 * walks them exactly. The centres match the exact walk. */
START_TEST(cor_grid_walks_steep_queries) {
  rig r = rig_cylinder(32, 256, 2, 0.5f);
  size_t nv = r.nv, loose = 600;
  uint64_t g = 0x2545F4914F6CDD1Dull;
  for (size_t v = 0; v < nv; ++v)
    if (r.off[v + 1] - r.off[v] == 2) {
      float a = 0.4f + 0.2f * r.wgt[r.off[v]] + 1e-3f * (float)(xorshift(&g) >> 40) / 16777216.0f;
      r.wgt[r.off[v]] = a;
      r.wgt[r.off[v] + 1] = 1.0f - a;
    }
  r.nv = nv + loose;
  r.pos = realloc(r.pos, 3 * r.nv * sizeof(float));
  r.off = realloc(r.off, (r.nv + 1) * sizeof(uint32_t));
  r.jnt = realloc(r.jnt, (r.off[nv] + 2 * loose) * sizeof(uint32_t));
  r.wgt = realloc(r.wgt, (r.off[nv] + 2 * loose) * sizeof(float));
  r.centers = realloc(r.centers, 3 * r.nv * sizeof(float));
  for (size_t i = 0; i < loose; ++i) {
    size_t v = nv + i, e = r.off[v];
    for (int k = 0; k < 3; ++k) r.pos[3 * v + k] = r.pos[3 * (i * 7 % nv) + k];
    r.jnt[e] = 0, r.jnt[e + 1] = 1;
    r.wgt[e] = 0.01f + 0.98f * (float)i / (float)(loose - 1);
    r.wgt[e + 1] = 1.0f - r.wgt[e];
    r.off[v + 1] = (uint32_t)(e + 2);
  }
  float* walked = malloc(3 * r.nv * sizeof(float));
  skc_cor_stats st = {0};
  core_centres(&r, 0, r.centers, &st);
  core_centres(&r, SKC_COR_EXACT, walked, NULL);
  double err = grid_error(&r, r.centers, walked);
  printf("grid: %zu of %zu queries interpolated from %zu nodes, %zu steep; max difference to the walk %.2e of the "
         "diagonal\n", st.interpolated, st.queries, st.nodes, st.steep, err);
  ck_assert_uint_gt(st.interpolated, 0);
  ck_assert_uint_gt(st.steep, 0);
  ck_assert_double_lt(err, 1e-5);
  free(walked);
  rig_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- arguments */

START_TEST(cor_bad_arguments) {
  rig r = rig_cylinder(8, 8, 2, 0.25f);
  sk_error e;
  float* c = r.centers;
  ck_assert_int_eq(sk_cor_compute(NULL, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, 2, 0, 1, c, &e),
                   SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, 2, 0, 1, NULL, &e),
                   SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, NULL, r.nt, r.off, r.jnt, r.wgt, 2, 0, 1, c, &e),
                   SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_cor_compute(r.pos, 0, r.tri, r.nt, r.off, r.jnt, r.wgt, 2, 0, 1, c, &e),
                   SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, 2, -1.0f, 1, c, &e),
                   SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, 1, 0, 1, c, &e),
                   SK_ERR_OUT_OF_RANGE); /* joint 1 >= joint_count 1 */
  ck_assert_ptr_nonnull(strstr(e.message, "joint"));
  r.tri[4] = (uint32_t)r.nv;
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, r.tri, r.nt, r.off, r.jnt, r.wgt, 2, 0, 1, c, &e),
                   SK_ERR_OUT_OF_RANGE);
  r.tri[4] = 0;
  ck_assert_int_eq(sk_cor_compute(r.pos, r.nv, NULL, 0, r.off, r.jnt, r.wgt, 2, 0, 1, c, &e), SK_OK);
  ck_assert_float_eq(c[0], r.pos[0]); /* no triangles: every centre is its vertex */

  float pal[32], *out = malloc(3 * r.nv * sizeof(float));
  identity(pal);
  identity(pal + 16);
  sk_deform_job j = rig_job(&r, SK_DEFORM_COR, pal, out, NULL);
  j.centers = NULL;
  ck_assert_int_eq(sk_deform_validate(&j, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "centers"));
  ck_assert_int_eq(sk_deform_run(&j, &e), SK_ERR_INVALID_ARGUMENT);
  j.centers = r.centers;
  j.centers_stride = 8;
  ck_assert_int_eq(sk_deform_run(&j, &e), SK_ERR_INVALID_ARGUMENT);
  j.centers_stride = 0;
  j.size = (uint32_t)offsetof(sk_deform_job, centers); /* ABI 1.4 size: no room for the centres */
  ck_assert_int_eq(sk_deform_validate(&j, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_deform_run(&j, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(e.message, "COR"));
  j.size = (uint32_t)sizeof j + 8;
  ck_assert_int_eq(sk_deform_run(&j, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_deform_run(NULL, &e), SK_ERR_INVALID_ARGUMENT);
  j.size = (uint32_t)sizeof j;
  j.method = 4;
  ck_assert_int_eq(sk_deform_run(&j, &e), SK_ERR_INVALID_ARGUMENT);
  free(out);
  rig_free(&r);
}
END_TEST

/* A job of the ABI 1.4 size (allocated to exactly that size, so a read past it would show under ASan) still runs
 * LBS, DQS and RIGID, with the same results as a full-size job. */
START_TEST(cor_old_job_size_still_works) {
  rig r = rig_cylinder(8, 8, 2, 0.25f);
  float pal[32];
  identity(pal);
  skt_rot_about(2, 0.7f, 1.0f, pal + 16);
  float *a = malloc(3 * r.nv * sizeof(float)), *b = malloc(3 * r.nv * sizeof(float));
  const size_t old = offsetof(sk_deform_job, centers);
  for (uint32_t m = SK_DEFORM_LBS; m <= SK_DEFORM_RIGID; ++m) {
    sk_deform_job j = rig_job(&r, m, pal, a, NULL);
    run_ok(&j);
    j.out_positions = b;
    j.size = (uint32_t)old;
    sk_deform_job* small = malloc(old);
    memcpy(small, &j, old);
    sk_error e;
    ck_assert_msg(sk_deform_validate(small, &e) == SK_OK, "%s", e.message);
    ck_assert_msg(sk_deform_run(small, &e) == SK_OK, "%s", e.message);
    free(small);
    ck_assert_int_eq(memcmp(a, b, 3 * r.nv * sizeof(float)), 0);
  }
  free(a);
  free(b);
  rig_free(&r);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("cor");
  TCase* q = tcase_create("quality");
  tcase_set_timeout(q, 60);
  tcase_add_test(q, cor_candy_wrapper);
  tcase_add_test(q, cor_bend_volume);
  tcase_add_test(q, cor_single_influence_is_lbs);
  tcase_add_test(q, cor_equal_joints_is_lbs);
  tcase_add_test(q, cor_flags_and_threads);
  tcase_add_test(q, cor_packed_kernels_match_generic);
  suite_add_tcase(s, q);
  TCase* p = tcase_create("precompute");
  tcase_set_timeout(p, 60);
  tcase_add_test(p, cor_precompute_matches_reference);
  tcase_add_test(p, cor_precompute_merged_cells);
  tcase_add_test(p, cor_precompute_narrow_sigma);
  tcase_add_test(p, cor_grid_matches_walk);
  tcase_add_test(p, cor_grid_walks_steep_queries);
  tcase_add_test(p, cor_units_do_not_matter);
  suite_add_tcase(s, p);
  TCase* a = tcase_create("arguments");
  tcase_add_test(a, cor_bad_arguments);
  tcase_add_test(a, cor_old_job_size_still_works);
  suite_add_tcase(s, a);
  return s;
}

int main(void) {
  SRunner* r = srunner_create(suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
