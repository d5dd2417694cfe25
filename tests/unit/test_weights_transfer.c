/* test_weights_transfer.c - sk_weights_transfer (closest point + inpainting, Abdrashitov et al. 2023) and the
 * closest-point BVH: analytic weights on differently tessellated cylinders, inpainting of a part far from the
 * source, fallback parts, mask and locks, bad input, and an asset transferred onto itself. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skc_transfer.h"
#include "skinkit.h"

/* ------------------------------------------------------------------------------------------ helpers */

typedef struct mesh {
  size_t V, T;
  float* pos;
  uint32_t* tri;
} mesh;

static void mesh_free(mesh* m) {
  free(m->pos);
  free(m->tri);
  memset(m, 0, sizeof *m);
}

/* Open tube around z: S segments, R rings of quads (R + 1 vertex rows), height h, radius radius(z) (phase rotates
 * the rings so two tubes do not share vertices). Extra vertices (for loose parts) are appended by the caller. */
static mesh tube(uint32_t S, uint32_t R, float h, float (*radius)(float z), float phase, size_t extra_v,
                 size_t extra_t) {
  mesh m;
  m.V = (size_t)S * (R + 1);
  m.T = 2 * (size_t)S * R;
  m.pos = malloc(3 * (m.V + extra_v) * sizeof *m.pos);
  m.tri = malloc(3 * (m.T + extra_t) * sizeof *m.tri);
  for (uint32_t r = 0; r <= R; ++r)
    for (uint32_t s = 0; s < S; ++s) {
      float z = h * (float)r / (float)R;
      float a = 6.28318530718f * ((float)s + phase) / (float)S;
      float* p = m.pos + 3 * ((size_t)r * S + s);
      p[0] = radius(z) * cosf(a);
      p[1] = radius(z) * sinf(a);
      p[2] = z;
    }
  size_t t = 0;
  for (uint32_t r = 0; r < R; ++r)
    for (uint32_t s = 0; s < S; ++s) {
      uint32_t a = r * S + s, b = r * S + (s + 1) % S, c = (r + 1) * S + s, d = (r + 1) * S + (s + 1) % S;
      uint32_t* q = m.tri + 6 * t++;
      q[0] = a, q[1] = b, q[2] = d;
      q[3] = a, q[4] = d, q[5] = c;
    }
  return m;
}

#define H 2.0f
static float r_src(float z) { (void)z; return 0.5f; }
static float r_offset(float z) { (void)z; return 0.505f; }
/* a band around the middle pushed far out (beyond the 0.05 x diagonal threshold) */
static float r_bulge(float z) { return (z > 0.75f && z < 1.25f) ? 0.85f : 0.505f; }

/* Bernstein weights of t = z / H over joints 0..2 (sum 1, smooth). */
static void analytic(float z, float w[3]) {
  double t = z / H;
  w[0] = (float)((1 - t) * (1 - t));
  w[1] = (float)(2 * t * (1 - t));
  w[2] = (float)(t * t);
}

static sk_skin* analytic_skin(const mesh* m, uint32_t J) {
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(m->V, J, &s, NULL), SK_OK);
  uint32_t* off = malloc((m->V + 1) * sizeof *off);
  uint32_t* jt = malloc(3 * m->V * sizeof *jt);
  float* wt = malloc(3 * m->V * sizeof *wt);
  for (size_t v = 0; v < m->V; ++v) {
    off[v] = (uint32_t)(3 * v);
    float w[3];
    analytic(m->pos[3 * v + 2], w);
    for (int k = 0; k < 3; ++k) {
      jt[3 * v + k] = (uint32_t)k;
      wt[3 * v + k] = w[k];
    }
  }
  off[m->V] = (uint32_t)(3 * m->V);
  ck_assert_int_eq(sk_skin_set_csr(s, off, jt, wt, NULL), SK_OK);
  free(off);
  free(jt);
  free(wt);
  return s;
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

static void same_as(const snap* x, const sk_skin* s) {
  snap y = take(s);
  ck_assert_uint_eq(x->V, y.V);
  ck_assert_uint_eq(x->N, y.N);
  ck_assert(memcmp(x->off, y.off, (x->V + 1) * sizeof *x->off) == 0);
  ck_assert(memcmp(x->j, y.j, x->N * sizeof *x->j) == 0);
  ck_assert(memcmp(x->w, y.w, x->N * sizeof *x->w) == 0);
  free(y.off);
  free(y.j);
  free(y.w);
}

static void snap_free(snap* x) {
  free(x->off);
  free(x->j);
  free(x->w);
}

static sk_transfer_desc desc_for(const mesh* src, const sk_skin* src_skin, const mesh* dst) {
  sk_transfer_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.source_skin = src_skin;
  d.source_positions = src->pos;
  d.source_vertex_count = src->V;
  d.source_triangles = src->tri;
  d.source_triangle_count = src->T;
  d.target_positions = dst->pos;
  d.target_vertex_count = dst->V;
  d.target_triangles = dst->tri;
  d.target_triangle_count = dst->T;
  return d;
}

/* ------------------------------------------------------------------------------------------ closest point */

START_TEST(test_closest_point_matches_brute_force) {
  mesh m = tube(13, 7, H, r_src, 0.0f, 0, 0);
  skc_tri_bvh bvh;
  ck_assert_int_eq(skc_tri_bvh_build(&bvh, m.pos, 0, m.tri, m.T, NULL), SKC_OK);
  skt_rng rng = {12345};
  for (int i = 0; i < 500; ++i) {
    float q[3] = {skt_rand_range(&rng, -1.5f, 1.5f), skt_rand_range(&rng, -1.5f, 1.5f),
                  skt_rand_range(&rng, -0.5f, 2.5f)};
    skc_closest_hit h;
    skc_tri_bvh_closest(&bvh, q, &h);
    float best = FLT_MAX;
    for (size_t t = 0; t < m.T; ++t) {
      float pt[3], bc[3];
      float d2 = skc_closest_on_triangle(q, m.pos + 3 * m.tri[3 * t], m.pos + 3 * m.tri[3 * t + 1],
                                         m.pos + 3 * m.tri[3 * t + 2], pt, bc);
      if (d2 < best) best = d2;
    }
    ck_assert_uint_lt(h.triangle, m.T);
    ck_assert_float_eq_tol(h.dist2, best, 1e-6f);
    /* the barycentrics reproduce the point and sum to 1 */
    const uint32_t* tv = m.tri + 3 * h.triangle;
    ck_assert_float_eq_tol(h.bary[0] + h.bary[1] + h.bary[2], 1.0f, 1e-5f);
    for (int k = 0; k < 3; ++k) {
      float x = h.bary[0] * m.pos[3 * tv[0] + k] + h.bary[1] * m.pos[3 * tv[1] + k] + h.bary[2] * m.pos[3 * tv[2] + k];
      ck_assert_float_eq_tol(x, h.point[k], 1e-5f);
    }
  }
  skc_tri_bvh_free(&bvh);
  mesh_free(&m);
}
END_TEST

START_TEST(test_closest_on_triangle_regions_and_degenerate) {
  float a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, pt[3], bc[3];
  /* above the interior */
  ck_assert_float_eq_tol(skc_closest_on_triangle((float[3]){0.25f, 0.25f, 2.0f}, a, b, c, pt, bc), 4.0f, 1e-6f);
  ck_assert_float_eq_tol(bc[0], 0.5f, 1e-6f);
  ck_assert_float_eq_tol(bc[1], 0.25f, 1e-6f);
  /* beyond vertex b */
  ck_assert_float_eq_tol(skc_closest_on_triangle((float[3]){2.0f, -1.0f, 0.0f}, a, b, c, pt, bc), 2.0f, 1e-6f);
  ck_assert_float_eq_tol(bc[1], 1.0f, 1e-6f);
  /* outside the hypotenuse */
  ck_assert_float_eq_tol(skc_closest_on_triangle((float[3]){1.0f, 1.0f, 0.0f}, a, b, c, pt, bc), 0.5f, 1e-6f);
  ck_assert_float_eq_tol(bc[1], 0.5f, 1e-6f);
  ck_assert_float_eq_tol(bc[2], 0.5f, 1e-6f);
  /* a degenerate (collinear) triangle: closest point of its longest edge */
  float d[3] = {2, 0, 0};
  ck_assert_float_eq_tol(skc_closest_on_triangle((float[3]){1.5f, 1.0f, 0.0f}, a, b, d, pt, bc), 1.0f, 1e-6f);
  ck_assert_float_eq_tol(pt[0], 1.5f, 1e-6f);
  ck_assert(isfinite(bc[0]) && isfinite(bc[1]) && isfinite(bc[2]));
}
END_TEST

/* ------------------------------------------------------------------------------------------ transfer */

START_TEST(test_transfer_recovers_analytic_weights) {
  mesh src = tube(24, 20, H, r_src, 0.0f, 0, 0);
  mesh dst = tube(31, 27, H, r_offset, 0.37f, 0, 0); /* other tessellation, 1% larger radius */
  sk_skin* ss = analytic_skin(&src, 3);
  sk_skin* ts = NULL;
  ck_assert_int_eq(sk_skin_create(dst.V, 3, &ts, NULL), SK_OK);
  sk_transfer_desc d = desc_for(&src, ss, &dst);
  uint8_t* status = calloc(dst.V, 1);
  sk_transfer_report rep = {.size = sizeof rep, .vertex_status = status};
  sk_error e;
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(rep.selected, dst.V);
  ck_assert_uint_eq(rep.matched, dst.V);
  ck_assert_uint_eq(rep.inpainted + rep.fallback + rep.failed, 0);
  ck_assert(rep.milliseconds >= 0.0);
  ck_assert_float_eq_tol(rep.distance_threshold, 0.05f * sqrtf(1.0f + 1.0f * 0.9f + H * H), 0.02f);
  double worst = 0.0;
  for (size_t v = 0; v < dst.V; ++v) {
    ck_assert_uint_eq(status[v], SK_TRANSFER_VERTEX_MATCHED);
    float w[3];
    analytic(dst.pos[3 * v + 2], w);
    for (uint32_t j = 0; j < 3; ++j) worst = fmax(worst, fabs(wof(ts, v, j) - w[j]));
    ck_assert_float_eq_tol(fsum(ts, v), 1.0f, 1e-6f);
  }
  /* quadratic weights interpolated linearly over rings 0.1 apart: error <= (0.05)^2 */
  ck_assert_msg(worst < 3e-3, "worst deviation from the analytic weights %g", worst);
  /* target winding reversed: its normals point inwards, no match passes the angle test (the one part has no
   * fixed vertex, so it all falls back), unless flipped normals are accepted */
  for (size_t t = 0; t < dst.T; ++t) {
    uint32_t x = dst.tri[3 * t + 1];
    dst.tri[3 * t + 1] = dst.tri[3 * t + 2];
    dst.tri[3 * t + 2] = x;
  }
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(rep.matched, 0);
  ck_assert_uint_eq(rep.fallback, dst.V);
  ck_assert_uint_eq(rep.fallback_components, 1);
  d.flags = SK_TRANSFER_ALLOW_FLIPPED_NORMALS;
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(rep.matched, dst.V);
  /* a tight distance threshold (below the 0.005 offset) leaves nothing matched either */
  d.distance_threshold = 0.004f;
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(rep.matched, 0);
  ck_assert_float_eq(rep.distance_threshold, 0.004f);
  free(status);
  sk_skin_destroy(ss);
  sk_skin_destroy(ts);
  mesh_free(&src);
  mesh_free(&dst);
}
END_TEST

START_TEST(test_transfer_inpaints_far_band_between_neighbours) {
  mesh src = tube(24, 20, H, r_src, 0.0f, 0, 0);
  mesh dst = tube(29, 40, H, r_bulge, 0.21f, 0, 0);
  sk_skin* ss = analytic_skin(&src, 3);
  sk_skin* ts = NULL;
  ck_assert_int_eq(sk_skin_create(dst.V, 3, &ts, NULL), SK_OK);
  sk_transfer_desc d = desc_for(&src, ss, &dst);
  uint8_t* status = calloc(dst.V, 1);
  sk_transfer_report rep = {.size = sizeof rep, .vertex_status = status};
  sk_error e;
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_gt(rep.inpainted, 0);
  ck_assert_uint_gt(rep.matched, 0);
  ck_assert_uint_eq(rep.matched + rep.inpainted, dst.V);
  ck_assert_uint_eq(rep.fallback, 0);
  /* fixed values around the band: lowest and highest matched rings next to it */
  float zlo = -1.0f, zhi = 10.0f;
  for (size_t v = 0; v < dst.V; ++v) {
    float z = dst.pos[3 * v + 2];
    if (dst.pos[3 * v] * dst.pos[3 * v] + dst.pos[3 * v + 1] * dst.pos[3 * v + 1] > 0.7f * 0.7f) {
      ck_assert_uint_eq(status[v], SK_TRANSFER_VERTEX_INPAINTED); /* every bulged vertex is far */
    }
    if (status[v] == SK_TRANSFER_VERTEX_MATCHED) {
      if (z < 1.0f && z > zlo) zlo = z;
      if (z > 1.0f && z < zhi) zhi = z;
    }
  }
  ck_assert(zlo > 0.5f && zhi < 1.5f);
  float wlo[3], whi[3];
  analytic(zlo, wlo);
  analytic(zhi, whi);
  size_t checked = 0;
  for (size_t v = 0; v < dst.V; ++v) {
    ck_assert_float_eq_tol(fsum(ts, v), 1.0f, 1e-6f);
    if (status[v] != SK_TRANSFER_VERTEX_INPAINTED) continue;
    float z = dst.pos[3 * v + 2];
    ck_assert(z > zlo && z < zhi);
    /* joint 0 falls and joint 2 rises along z: inpainted values lie between the fixed rings' values */
    ck_assert_msg(wof(ts, v, 0) <= wlo[0] + 2e-3f && wof(ts, v, 0) >= whi[0] - 2e-3f, "v %zu w0 %g not in [%g, %g]", v,
                  (double)wof(ts, v, 0), (double)whi[0], (double)wlo[0]);
    ck_assert(wof(ts, v, 2) >= wlo[2] - 2e-3f && wof(ts, v, 2) <= whi[2] + 2e-3f);
    /* and stay near the smooth field (the bulge's slanted walls lengthen the band, so not exactly) */
    float w[3];
    analytic(z, w);
    for (uint32_t j = 0; j < 3; ++j)
      ck_assert_msg(fabsf(wof(ts, v, j) - w[j]) < 0.1f, "v %zu joint %u: %g vs %g", v, j, (double)wof(ts, v, j),
                    (double)w[j]);
    ++checked;
  }
  ck_assert_uint_eq(checked, rep.inpainted);
  /* the uniform Laplacian variant and smoothing keep the same guarantees */
  sk_skin* t2 = NULL;
  ck_assert_int_eq(sk_skin_create(dst.V, 3, &t2, NULL), SK_OK);
  d.flags = SK_TRANSFER_UNIFORM_LAPLACIAN;
  d.smooth_iterations = 3;
  ck_assert_msg(sk_weights_transfer(t2, &d, &rep, &e) == SK_OK, "%s", e.message);
  for (size_t v = 0; v < dst.V; ++v) {
    ck_assert_float_eq_tol(fsum(t2, v), 1.0f, 1e-6f);
    float w[3];
    analytic(dst.pos[3 * v + 2], w);
    ck_assert(fabsf(wof(t2, v, 0) - w[0]) < 0.05f);
  }
  sk_skin_destroy(t2);
  free(status);
  sk_skin_destroy(ss);
  sk_skin_destroy(ts);
  mesh_free(&src);
  mesh_free(&dst);
}
END_TEST

START_TEST(test_transfer_loose_part_falls_back_and_limits) {
  mesh src = tube(24, 20, H, r_src, 0.0f, 0, 0);
  mesh dst = tube(20, 15, H, r_offset, 0.5f, 3, 1);
  /* a loose triangle far above the source: nothing fixed in its part */
  float far[9] = {0, 0, 5, 0.1f, 0, 5, 0, 0.1f, 5};
  memcpy(dst.pos + 3 * dst.V, far, sizeof far);
  uint32_t base = (uint32_t)dst.V;
  uint32_t lt[3] = {base, base + 1, base + 2};
  memcpy(dst.tri + 3 * dst.T, lt, sizeof lt);
  dst.V += 3;
  dst.T += 1;
  sk_skin* ss = analytic_skin(&src, 3);
  sk_skin* ts = NULL;
  ck_assert_int_eq(sk_skin_create(dst.V, 3, &ts, NULL), SK_OK);
  sk_transfer_desc d = desc_for(&src, ss, &dst);
  d.max_influences = 2;
  sk_transfer_report rep = {.size = sizeof rep};
  sk_error e;
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(rep.fallback, 3);
  ck_assert_uint_eq(rep.fallback_components, 1);
  ck_assert_uint_eq(rep.matched, dst.V - 3);
  for (size_t v = 0; v < dst.V; ++v) {
    ck_assert_uint_le(sk_skin_get_vertex(ts, v, NULL, NULL, 0), 2);
    ck_assert_float_eq_tol(fsum(ts, v), 1.0f, 1e-6f);
  }
  /* the loose part takes the weights of the source top (t = 1: joint 2 only) */
  for (size_t v = base; v < dst.V; ++v) ck_assert_float_eq_tol(wof(ts, v, 2), 1.0f, 1e-5f);
  sk_skin_destroy(ss);
  sk_skin_destroy(ts);
  mesh_free(&src);
  mesh_free(&dst);
}
END_TEST

START_TEST(test_transfer_mask_and_locked_joints) {
  mesh src = tube(24, 20, H, r_src, 0.0f, 0, 0);
  mesh dst = tube(31, 27, H, r_offset, 0.37f, 0, 0);
  sk_skin* ss = analytic_skin(&src, 4);
  /* target starts with joint 3 = 0.2 (to be locked) and joint 0 = 0.8 */
  sk_skin* ts = NULL;
  ck_assert_int_eq(sk_skin_create(dst.V, 4, &ts, NULL), SK_OK);
  for (size_t v = 0; v < dst.V; ++v)
    ck_assert_int_eq(sk_skin_set_vertex(ts, v, (uint32_t[]){3, 0}, (float[]){0.2f, 0.8f}, 2, NULL), SK_OK);
  uint8_t* mask = calloc(dst.V, 1);
  for (size_t v = 0; v < dst.V; ++v) mask[v] = dst.pos[3 * v + 2] < 1.0f;
  uint8_t locked[4] = {0, 0, 0, 1};
  sk_transfer_desc d = desc_for(&src, ss, &dst);
  d.scope.vertex_mask = mask;
  d.scope.vertex_mask_count = dst.V;
  d.scope.locked_joints = locked;
  d.scope.locked_joint_count = 4;
  uint8_t* status = calloc(dst.V, 1);
  sk_transfer_report rep = {.size = sizeof rep, .vertex_status = status};
  sk_error e;
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  size_t sel = 0;
  for (size_t v = 0; v < dst.V; ++v) {
    sel += mask[v];
    ck_assert_float_eq_tol(fsum(ts, v), 1.0f, 1e-6f);
    ck_assert_float_eq(wof(ts, v, 3), 0.2f); /* locked weight kept exactly, selected or not */
    if (!mask[v]) {
      ck_assert_uint_eq(status[v], SK_TRANSFER_VERTEX_KEPT);
      ck_assert_float_eq(wof(ts, v, 0), 0.8f);
      ck_assert_uint_eq(sk_skin_get_vertex(ts, v, NULL, NULL, 0), 2);
      continue;
    }
    float w[3];
    analytic(dst.pos[3 * v + 2], w);
    for (uint32_t j = 0; j < 3; ++j) ck_assert_float_eq_tol(wof(ts, v, j), 0.8f * w[j], 3e-3f);
  }
  ck_assert_uint_eq(rep.selected, sel);
  ck_assert_uint_eq(rep.matched, sel);
  /* a locked weight above 1 makes the vertex fail (unchanged) instead of the whole call */
  ck_assert_int_eq(sk_skin_set_vertex(ts, 0, (uint32_t[]){3}, (float[]){1.5f}, 1, NULL), SK_OK);
  mask[0] = 1;
  ck_assert_msg(sk_weights_transfer(ts, &d, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(rep.failed, 1);
  ck_assert_uint_eq(status[0], SK_TRANSFER_VERTEX_FAILED);
  ck_assert_float_eq(wof(ts, 0, 3), 1.5f);
  free(mask);
  free(status);
  sk_skin_destroy(ss);
  sk_skin_destroy(ts);
  mesh_free(&src);
  mesh_free(&dst);
}
END_TEST

START_TEST(test_transfer_bad_input_leaves_weights) {
  mesh src = tube(12, 6, H, r_src, 0.0f, 0, 0);
  mesh dst = tube(10, 5, H, r_offset, 0.3f, 0, 0);
  sk_skin* ss = analytic_skin(&src, 3);
  sk_skin* ts = analytic_skin(&dst, 3);
  ck_assert_int_eq(sk_skin_set_vertex(ts, 0, (uint32_t[]){1}, (float[]){1.0f}, 1, NULL), SK_OK);
  snap before = take(ts);
  sk_transfer_report rep = {.size = sizeof rep, .matched = 777};
  sk_error e;
  sk_transfer_desc d;
  /* no faces */
  d = desc_for(&src, ss, &dst);
  d.target_triangle_count = 0;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(e.message, "faces") != NULL);
  d = desc_for(&src, ss, &dst);
  d.source_triangles = NULL;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  /* NaN positions */
  d = desc_for(&src, ss, &dst);
  float keep = dst.pos[7];
  dst.pos[7] = NAN;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(e.message, "NaN") != NULL);
  dst.pos[7] = keep;
  src.pos[4] = INFINITY;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  src.pos[4] = 0.0f;
  mesh_free(&src);
  src = tube(12, 6, H, r_src, 0.0f, 0, 0);
  d = desc_for(&src, ss, &dst);
  /* joint count mismatch */
  sk_skin* s4 = analytic_skin(&src, 4);
  d.source_skin = s4;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(e.message, "joints") != NULL);
  /* empty mask */
  d = desc_for(&src, ss, &dst);
  uint8_t* mask = calloc(dst.V, 1);
  d.scope.vertex_mask = mask;
  d.scope.vertex_mask_count = dst.V;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(e.message, "mask") != NULL);
  d.scope.vertex_mask_count = dst.V - 1;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  /* out-of-range triangle, bad counts, thresholds, struct size */
  d = desc_for(&src, ss, &dst);
  uint32_t old = dst.tri[4];
  dst.tri[4] = (uint32_t)dst.V;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_OUT_OF_RANGE);
  dst.tri[4] = old;
  d.target_vertex_count = dst.V + 1;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  d = desc_for(&src, ss, &dst);
  d.angle_threshold = 200.0f;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  d.angle_threshold = 0.0f;
  d.distance_threshold = NAN;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  d.distance_threshold = 0.0f;
  d.flags = 0x80;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_INVALID_ARGUMENT);
  d.flags = 0;
  d.size = 8;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_ERR_STRUCT_SIZE);
  ck_assert_int_eq(sk_weights_transfer(NULL, NULL, NULL, NULL), SK_ERR_INVALID_ARGUMENT);
  same_as(&before, ts);
  ck_assert_uint_eq(rep.matched, 777); /* report untouched on error */
  /* and the same desc, valid, does change them */
  d.size = sizeof d;
  ck_assert_int_eq(sk_weights_transfer(ts, &d, &rep, &e), SK_OK);
  ck_assert_float_lt(wof(ts, 0, 1), 0.5f);
  free(mask);
  snap_free(&before);
  sk_skin_destroy(s4);
  sk_skin_destroy(ss);
  sk_skin_destroy(ts);
  mesh_free(&src);
  mesh_free(&dst);
}
END_TEST

/* The corpus: an asset's own weights transferred onto its own mesh come back (after normalization). */
static void self_transfer(const char* rel) {
  if (!skt_assets_dir()) {
    ck_assert_msg(!skt_assets_required(), "SKINKIT_ASSETS is set but not a directory");
    return;
  }
  sk_scene* sc = NULL;
  sk_error e;
  ck_assert_msg(sk_scene_load(skt_asset(rel), NULL, &sc, &e) == SK_OK, "%s: %s", rel, e.message);
  int done = 0;
  for (uint32_t mi = 0; mi < sk_scene_mesh_count(sc); ++mi) {
    sk_skin* s = sk_scene_mesh_skin(sc, mi);
    size_t ic = sk_scene_mesh_index_count(sc, mi);
    if (!s || ic < 3) continue;
    size_t V = sk_scene_mesh_vertex_count(sc, mi);
    float* pos = malloc(3 * V * sizeof *pos);
    uint32_t* idx = malloc(ic * sizeof *idx);
    ck_assert_uint_eq(sk_scene_mesh_positions(sc, mi, pos, 3 * V), 3 * V);
    ck_assert_uint_eq(sk_scene_mesh_indices(sc, mi, idx, ic), ic);
    sk_skin* t = NULL;
    ck_assert_int_eq(sk_skin_create(V, sk_skin_joint_count(s), &t, NULL), SK_OK);
    sk_transfer_desc d = {.size = sizeof d,
                          .source_skin = s,
                          .source_positions = pos,
                          .source_vertex_count = V,
                          .source_triangles = idx,
                          .source_triangle_count = ic / 3,
                          .target_positions = pos,
                          .target_vertex_count = V,
                          .target_triangles = idx,
                          .target_triangle_count = ic / 3,
                          .min_weight = -1.0f};
    sk_transfer_report rep = {.size = sizeof rep};
    ck_assert_msg(sk_weights_transfer(t, &d, &rep, &e) == SK_OK, "%s: %s", rel, e.message);
    ck_assert_uint_eq(rep.matched, V);
    uint32_t J = sk_skin_joint_count(s);
    float* ref = calloc(J, sizeof *ref);
    double worst = 0.0;
    size_t worst_v = 0;
    for (size_t v = 0; v < V; ++v) {
      uint32_t jj[64];
      float ww[64];
      size_t n = sk_skin_get_vertex(s, v, jj, ww, 64);
      double sum = 0.0;
      for (size_t i = 0; i < n && i < 64; ++i) sum += ww[i] > 0.0f ? ww[i] : 0.0f;
      if (!(sum > 0.0)) continue;
      for (uint32_t j = 0; j < J; ++j) ref[j] = 0.0f;
      for (size_t i = 0; i < n && i < 64; ++i)
        if (jj[i] < J && ww[i] > 0.0f) ref[jj[i]] += (float)(ww[i] / sum);
      for (uint32_t j = 0; j < J; ++j) {
        double dlt = fabs(ref[j] - wof(t, v, j));
        if (dlt > worst) {
          worst = dlt;
          worst_v = v;
        }
      }
      ck_assert_float_eq_tol(fsum(t, v), 1.0f, 1e-6f);
    }
    ck_assert_msg(worst <= 1e-4, "%s mesh %u: vertex %zu differs by %g", rel, mi, worst_v, worst);
    free(ref);
    free(pos);
    free(idx);
    sk_skin_destroy(t);
    ++done;
  }
  ck_assert_int_gt(done, 0);
  sk_scene_destroy(sc);
}

START_TEST(test_transfer_corpus_self_transfer_returns_weights) {
  self_transfer("gltf/CesiumMan.glb");
  self_transfer("fbx/huesitos.fbx");
}
END_TEST

static Suite* transfer_suite(void) {
  Suite* s = suite_create("weights_transfer");
  TCase* tc = tcase_create("result");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_closest_point_matches_brute_force);
  tcase_add_test(tc, test_closest_on_triangle_regions_and_degenerate);
  tcase_add_test(tc, test_transfer_recovers_analytic_weights);
  tcase_add_test(tc, test_transfer_inpaints_far_band_between_neighbours);
  tcase_add_test(tc, test_transfer_loose_part_falls_back_and_limits);
  tcase_add_test(tc, test_transfer_mask_and_locked_joints);
  suite_add_tcase(s, tc);
  TCase* tv = tcase_create("validity");
  tcase_add_test(tv, test_transfer_bad_input_leaves_weights);
  suite_add_tcase(s, tv);
  TCase* tr = tcase_create("corpus");
  tcase_set_timeout(tr, 300);
  tcase_add_test(tr, test_transfer_corpus_self_transfer_returns_weights);
  suite_add_tcase(s, tr);
  return s;
}

int main(void) { return skt_run_suite(transfer_suite()); }
