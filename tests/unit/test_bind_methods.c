/* test_bind_methods.c - capsule containment (SK_BIND_CAPSULE) and Delaunay (SK_BIND_DELAUNAY) binding on the
 * generated cylinder and on the hard cases of issue 6: point cloud, loose 1 mm cubes, scale x0.001 and x1000, bones
 * outside the mesh, flat and degenerate input, duplicated shells; options and their errors; timing at 40k. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_bindmesh.h"
#include "sk_testutil.h"
#include "skinkit.h"

#define MAXW 300

typedef skt_bind_mesh mesh; /* tests/util/sk_bindmesh.h */

static sk_bind_report new_report(uint64_t* counts) {
  sk_bind_report r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  r.joint_vertex_counts = counts;
  return r;
}

static float weight_of(const sk_skin* s, size_t v, uint32_t joint) {
  uint32_t j[MAXW];
  float w[MAXW];
  size_t n = sk_skin_get_vertex(s, v, j, w, MAXW);
  for (size_t i = 0; i < n; ++i)
    if (j[i] == joint) return w[i];
  return 0.0f;
}

/* Vertices within 20% of a bone length of each end belong to the end bone (> end_min); bone 0's mean weight per
 * ring of the tube does not rise (0.02 slack) and ends below final_max. */
static void check_layout(const mesh* m, const sk_skin* s, size_t cyl_vertices, uint32_t segments, uint32_t rings,
                         float end_min, float final_max) {
  float end = 0.2f * m->length / (float)m->bones;
  for (size_t v = 0; v < cyl_vertices; ++v) {
    float x = m->pos[3 * v];
    if (x < end)
      ck_assert_msg(weight_of(s, v, 0) > end_min, "vertex %zu x=%g w0=%g", v, (double)x, (double)weight_of(s, v, 0));
    if (x > m->length - end)
      ck_assert_msg(weight_of(s, v, m->bones - 1) > end_min, "vertex %zu x=%g w_last=%g", v, (double)x,
                    (double)weight_of(s, v, m->bones - 1));
  }
  float prev = 2.0f;
  for (uint32_t r = 0; r <= rings; ++r) {
    float avg = 0.0f;
    for (uint32_t k = 0; k < segments; ++k) avg += weight_of(s, (size_t)r * segments + k, 0);
    avg /= (float)segments;
    ck_assert_msg(avg <= prev + 0.02f, "ring %u: w0 %g after %g", r, (double)avg, (double)prev);
    prev = avg;
  }
  ck_assert_float_lt(prev, final_max);
}

static const sk_bind_method k_methods[2] = {SK_BIND_CAPSULE, SK_BIND_DELAUNAY};

static void bind_cylinder(sk_bind_method method, uint32_t bones) {
  const uint32_t S = 24, R = 40;
  mesh m = skt_bind_cylinder(S, R, bones);
  sk_skin* s = skt_new_skin(m.nv, bones);
  sk_bind_desc d = skt_bind_desc_for(&m, method);
  uint64_t counts[16];
  sk_bind_report rep = new_report(counts);
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
  skt_check_bind_weights(s, m.nv, bones, 4, 1);
  check_layout(&m, s, m.nv, S, R, 0.9f, 0.01f);
  ck_assert_uint_eq(rep.method_used, method);
  ck_assert_uint_eq(rep.bound_vertices, m.nv);
  ck_assert_uint_eq(rep.fallback_vertices, 0);
  uint64_t total = 0;
  for (uint32_t b = 0; b < bones; ++b) {
    ck_assert_uint_gt(counts[b], m.nv / (bones + 2));
    total += counts[b];
  }
  ck_assert_uint_eq(total, sk_skin_influence_count(s));
  /* the joint ring between bone 0 and 1 is shared about equally; a quarter bone away one bone leads */
  size_t mid = (size_t)(R / bones) * S, before = (size_t)(R / bones - R / bones / 4) * S;
  ck_assert_msg(fabsf(weight_of(s, mid, 0) - 0.5f) < 0.2f, "joint ring w0 %g", (double)weight_of(s, mid, 0));
  ck_assert_float_gt(weight_of(s, before, 0), 0.6f);
  sk_skin_destroy(s);
  skt_bind_mesh_free(&m);
}

START_TEST(capsule_cylinders) {
  bind_cylinder(SK_BIND_CAPSULE, 2);
  bind_cylinder(SK_BIND_CAPSULE, 3);
}
END_TEST

START_TEST(delaunay_cylinders) {
  bind_cylinder(SK_BIND_DELAUNAY, 2);
  bind_cylinder(SK_BIND_DELAUNAY, 3);
}
END_TEST

START_TEST(capsule_radii_and_smoothing) {
  const uint32_t S = 24, R = 40;
  mesh m = skt_bind_cylinder(S, R, 2);
  size_t mid = 20 * S;
  sk_error err;
  /* a fat capsule on bone 0 and a thin one on bone 1 move the blend towards bone 1 */
  float radii[2] = {1.0f, 0.02f};
  sk_skin* est = skt_new_skin(m.nv, 2);
  sk_skin* given = skt_new_skin(m.nv, 2);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_CAPSULE);
  ck_assert_int_eq(sk_bind(&d, est, NULL, &err), SK_OK);
  d.capsule_radii = radii;
  ck_assert_int_eq(sk_bind(&d, given, NULL, &err), SK_OK);
  skt_check_bind_weights(given, m.nv, 2, 4, 1);
  ck_assert_float_gt(weight_of(given, mid, 0), 0.9f);
  ck_assert_float_lt(weight_of(est, mid, 0), 0.7f);
  /* a zero entry means "estimate": equal to the estimated run for that pattern */
  float half[2] = {0.0f, 0.0f};
  d.capsule_radii = half;
  sk_skin* zero = skt_new_skin(m.nv, 2);
  ck_assert_int_eq(sk_bind(&d, zero, NULL, &err), SK_OK);
  for (size_t v = 0; v < m.nv; ++v) ck_assert_float_eq(weight_of(zero, v, 0), weight_of(est, v, 0));
  /* no smoothing gives different (sharper) weights; more smoothing widens the blend */
  d.capsule_radii = NULL;
  d.smooth_iterations = SK_BIND_NO_SMOOTHING;
  sk_skin* raw = skt_new_skin(m.nv, 2);
  ck_assert_int_eq(sk_bind(&d, raw, NULL, &err), SK_OK);
  skt_check_bind_weights(raw, m.nv, 2, 4, 1);
  d.smooth_iterations = 40;
  sk_skin* wide = skt_new_skin(m.nv, 2);
  ck_assert_int_eq(sk_bind(&d, wide, NULL, &err), SK_OK);
  skt_check_bind_weights(wide, m.nv, 2, 4, 1);
  size_t blended_raw = 0, blended_wide = 0;
  float maxdiff = 0.0f;
  for (size_t v = 0; v < m.nv; ++v) {
    blended_raw += sk_skin_get_vertex(raw, v, NULL, NULL, 0) > 1;
    blended_wide += sk_skin_get_vertex(wide, v, NULL, NULL, 0) > 1;
    float diff = fabsf(weight_of(raw, v, 0) - weight_of(est, v, 0));
    if (diff > maxdiff) maxdiff = diff;
  }
  ck_assert_float_gt(maxdiff, 1e-3f);
  ck_assert_uint_gt(blended_wide, blended_raw);
  /* bad radii and options: clear errors, skin untouched */
  float bad[2] = {0.1f, -1.0f};
  d.smooth_iterations = 0;
  d.capsule_radii = bad;
  ck_assert_int_eq(sk_bind(&d, raw, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(err.message, "capsule radius") != NULL);
  bad[1] = NAN;
  ck_assert_int_eq(sk_bind(&d, raw, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  d.capsule_radii = NULL;
  d.smooth_iterations = 5000;
  ck_assert_int_eq(sk_bind(&d, raw, NULL, &err), SK_ERR_OUT_OF_RANGE);
  d.smooth_iterations = 0;
  d.method = SK_BIND_DELAUNAY;
  d.bone_samples = 5000;
  ck_assert_int_eq(sk_bind(&d, raw, NULL, &err), SK_ERR_OUT_OF_RANGE);
  d.bone_samples = 0;
  d.method = 5;
  ck_assert_int_eq(sk_bind(&d, raw, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  skt_check_bind_weights(raw, m.nv, 2, 4, 1); /* still the earlier weights */
  sk_skin_destroy(est);
  sk_skin_destroy(given);
  sk_skin_destroy(zero);
  sk_skin_destroy(raw);
  sk_skin_destroy(wide);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(delaunay_bone_samples) {
  mesh m = skt_bind_cylinder(24, 40, 3);
  sk_error err;
  const uint32_t counts[3] = {1, 4, 64};
  for (int i = 0; i < 3; ++i) {
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_DELAUNAY);
    d.bone_samples = counts[i];
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    /* even one sample (the bone's middle) per bone keeps the ends on their bones */
    check_layout(&m, s, m.nv, 24, 40, counts[i] == 1 ? 0.7f : 0.9f, 0.05f);
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(point_cloud) {
  for (int mi = 0; mi < 2; ++mi) {
    mesh m = skt_bind_cylinder(16, 30, 3);
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, k_methods[mi]);
    d.triangles = NULL;
    d.triangle_count = 0;
    sk_bind_report rep = new_report(NULL);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    check_layout(&m, s, m.nv, 16, 30, 0.9f, 0.01f);
    ck_assert_uint_eq(rep.method_used, k_methods[mi]); /* neither needs triangles */
    ck_assert_uint_eq(rep.fallback_vertices, 0);
    sk_skin_destroy(s);
    skt_bind_mesh_free(&m);
  }
}
END_TEST

START_TEST(loose_cubes) {
  const uint32_t S = 24, R = 40;
  for (int mi = 0; mi < 2; ++mi) {
    mesh m = skt_bind_cylinder(S, R, 3);
    size_t cyl = m.nv;
    skt_bind_add_loose_cubes(&m);
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, k_methods[mi]);
    sk_bind_report rep = new_report(NULL);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    check_layout(&m, s, cyl, S, R, 0.9f, 0.01f);
    ck_assert_uint_eq(rep.method_used, k_methods[mi]);
    for (uint32_t c = 0; c < 13; ++c) { /* a cube takes the bone it sits on */
      size_t v = cyl + 8 * (size_t)c;
      float x = m.pos[3 * v];
      uint32_t bone = (uint32_t)(x / (m.length / 3.0f));
      float rel = x / (m.length / 3.0f) - (float)bone; /* away from the joints */
      if (rel > 0.25f && rel < 0.75f)
        ck_assert_msg(weight_of(s, v, bone) > 0.5f, "method %d cube %u w=%g", mi, c, (double)weight_of(s, v, bone));
    }
    sk_skin_destroy(s);
    skt_bind_mesh_free(&m);
  }
}
END_TEST

START_TEST(scale_x0001_and_x1000) {
  for (int mi = 0; mi < 2; ++mi) {
    mesh m = skt_bind_cylinder(20, 30, 3);
    skt_bind_add_loose_cubes(&m);
    sk_skin* ref = skt_new_skin(m.nv, 3);
    sk_error err;
    sk_bind_desc d = skt_bind_desc_for(&m, k_methods[mi]);
    ck_assert_int_eq(sk_bind(&d, ref, NULL, &err), SK_OK);
    const float scales[2] = {0.001f, 1000.0f};
    for (int si = 0; si < 2; ++si) {
      mesh k = m;
      k.length = m.length * scales[si];
      k.pos = malloc(m.nv * 3 * sizeof(float));
      for (size_t i = 0; i < 3 * m.nv; ++i) k.pos[i] = m.pos[i] * scales[si];
      for (int i = 0; i < 9; ++i) {
        k.heads[i] = m.heads[i] * scales[si];
        k.tails[i] = m.tails[i] * scales[si];
      }
      sk_skin* s = skt_new_skin(m.nv, 3);
      sk_bind_desc ds = skt_bind_desc_for(&k, k_methods[mi]);
      sk_bind_report rep = new_report(NULL);
      ck_assert_msg(sk_bind(&ds, s, &rep, &err) == SK_OK, "%s", err.message);
      ck_assert_uint_eq(rep.method_used, k_methods[mi]);
      skt_check_bind_weights(s, m.nv, 3, 4, 1);
      check_layout(&k, s, 21 * 31, 20, 30, 0.9f, 0.01f);
      /* distances enter as ratios only: the same weights (float rounding of the scaled input aside) */
      size_t off = 0;
      for (size_t v = 0; v < m.nv; ++v)
        for (uint32_t b = 0; b < 3; ++b) off += fabsf(weight_of(s, v, b) - weight_of(ref, v, b)) > 1e-3f;
      ck_assert_msg(off <= m.nv / 100, "method %d scale %g: %zu weights differ", mi, (double)scales[si], off);
      sk_skin_destroy(s);
      free(k.pos);
    }
    sk_skin_destroy(ref);
    skt_bind_mesh_free(&m);
  }
}
END_TEST

START_TEST(bones_outside_the_mesh) {
  mesh m = skt_bind_cylinder(24, 40, 2);
  for (int i = 0; i < 2; ++i) { /* chain parallel to the axis, beside the tube */
    m.heads[3 * i + 1] = 0.6f;
    m.tails[3 * i + 1] = 0.6f;
  }
  for (int mi = 0; mi < 2; ++mi) {
    sk_skin* s = skt_new_skin(m.nv, 2);
    sk_bind_desc d = skt_bind_desc_for(&m, k_methods[mi]);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 2, 4, 1);
    check_layout(&m, s, m.nv, 24, 40, 0.6f, 0.3f);
    sk_skin_destroy(s);
  }
  /* one bone far away from everything: still valid weights, the far bone gets (almost) nothing */
  mesh f = skt_bind_cylinder(24, 40, 2);
  f.heads[3] = 50.0f;
  f.tails[3] = 60.0f;
  for (int mi = 0; mi < 2; ++mi) {
    sk_skin* s = skt_new_skin(f.nv, 2);
    sk_bind_desc d = skt_bind_desc_for(&f, k_methods[mi]);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, f.nv, 2, 4, 1);
    for (size_t v = 0; v < f.nv; ++v) ck_assert_float_gt(weight_of(s, v, 0), 0.5f);
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
  skt_bind_mesh_free(&f);
}
END_TEST

START_TEST(flat_and_degenerate_input) {
  /* a flat grid (z = 0) with the bones in its plane: qhull cannot tetrahedralize it -> nearest bone for all */
  enum { N = 11 };
  float pos[3 * N * N];
  uint32_t tri[6 * (N - 1) * (N - 1)];
  size_t nt = 0;
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      pos[3 * (y * N + x)] = (float)x / (N - 1) * 2.0f;
      pos[3 * (y * N + x) + 1] = (float)y / (N - 1) - 0.5f;
      pos[3 * (y * N + x) + 2] = 0.0f;
      if (x < N - 1 && y < N - 1) {
        uint32_t a = (uint32_t)(y * N + x);
        uint32_t q[6] = {a, a + 1, a + N + 1, a, a + N + 1, a + N};
        memcpy(tri + 3 * nt, q, sizeof q);
        nt += 2;
      }
    }
  float heads[6] = {0, 0, 0, 1, 0, 0}, tails[6] = {1, 0, 0, 2, 0, 0};
  for (int mi = 0; mi < 2; ++mi) {
    sk_bind_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.method = k_methods[mi];
    d.positions = pos;
    d.vertex_count = N * N;
    d.triangles = tri;
    d.triangle_count = nt;
    d.heads = heads;
    d.tails = tails;
    d.joint_count = 2;
    sk_skin* s = skt_new_skin(N * N, 2);
    sk_bind_report rep = new_report(NULL);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, N * N, 2, 4, 1);
    /* the joggle before qhull makes a flat grid tetrahedralizable (slivers whose edges are the grid's 2-D
     * Delaunay edges), so it binds like any mesh */
    ck_assert_uint_eq(rep.method_used, k_methods[mi]);
    ck_assert_uint_eq(rep.fallback_vertices, 0);
    ck_assert_float_gt(weight_of(s, 0, 0), 0.9f);     /* x = 0 */
    ck_assert_float_gt(weight_of(s, N - 1, 1), 0.9f); /* x = 2 */
    sk_skin_destroy(s);
  }
  /* all vertices at one point, zero-area triangles, a zero-length bone; then 3 points (fewer than a tet) */
  float same[12] = {0};
  uint32_t ztri[6] = {0, 1, 2, 1, 2, 3};
  float h2[6] = {0, 0, 0, 1, 0, 0}, t2[6] = {0, 0, 0, 2, 0, 0};
  float three[9] = {0.1f, 0, 0, 1.9f, 0, 0, 1.0f, 0.3f, 0};
  for (int mi = 0; mi < 2; ++mi)
    for (int c = 0; c < 2; ++c) {
      sk_bind_desc d;
      memset(&d, 0, sizeof d);
      d.size = sizeof d;
      d.method = k_methods[mi];
      d.positions = c ? three : same;
      d.vertex_count = c ? 3 : 4;
      d.triangles = ztri;
      d.triangle_count = c ? 0 : 2;
      d.heads = c ? heads : h2;
      d.tails = c ? tails : t2;
      d.joint_count = 2;
      sk_skin* s = skt_new_skin(d.vertex_count, 2);
      sk_bind_report rep = new_report(NULL);
      sk_error err;
      ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
      skt_check_bind_weights(s, d.vertex_count, 2, 4, 1);
      if (k_methods[mi] == SK_BIND_DELAUNAY && c == 0) { /* 3 distinct points in all: no tetrahedron, nearest */
        ck_assert_uint_eq(rep.method_used, SK_BIND_NEAREST);
        ck_assert_uint_eq(rep.fallback_vertices, 4);
      }
      ck_assert_float_gt(weight_of(s, 0, 0), 0.9f);
      if (c) ck_assert_float_gt(weight_of(s, 1, 1), 0.9f);
      sk_skin_destroy(s);
    }
}
END_TEST

START_TEST(duplicated_shells_and_masks) {
  const uint32_t S = 24, R = 40;
  for (int mi = 0; mi < 2; ++mi) {
    mesh m = skt_bind_cylinder(S, R, 2);
    size_t n = m.nv, nt = m.nt; /* a second shell on top of the first (same positions, own triangles) */
    memcpy(m.pos + 3 * n, m.pos, 3 * n * sizeof(float));
    for (size_t i = 0; i < 3 * nt; ++i) m.tri[3 * nt + i] = m.tri[i] + (uint32_t)n;
    m.nv = 2 * n;
    m.nt = 2 * nt;
    sk_skin* s = skt_new_skin(m.nv, 2);
    sk_bind_desc d = skt_bind_desc_for(&m, k_methods[mi]);
    sk_bind_report rep = new_report(NULL);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 2, 4, 1);
    ck_assert_uint_eq(rep.fallback_vertices, 0);
    for (size_t v = 0; v < n; ++v) /* the copies weigh the same */
      for (uint32_t b = 0; b < 2; ++b) ck_assert_float_eq_tol(weight_of(s, v, b), weight_of(s, v + n, b), 1e-6f);
    /* vertex mask: only the first shell is rebound; the second keeps the weights set here */
    uint8_t* mask = calloc(m.nv, 1);
    for (size_t v = 0; v < n; ++v) mask[v] = 1;
    uint32_t j0 = 0;
    float w1 = 1.0f;
    for (size_t v = n; v < m.nv; ++v) ck_assert_int_eq(sk_skin_set_vertex(s, v, &j0, &w1, 1, &err), SK_OK);
    d.vertex_mask = mask;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    ck_assert_uint_eq(rep.bound_vertices, n);
    skt_check_bind_weights(s, m.nv, 2, 4, 1);
    for (size_t v = n; v < m.nv; ++v) ck_assert_float_eq(weight_of(s, v, 0), 1.0f);
    ck_assert_float_gt(weight_of(s, n - 1, 1), 0.9f); /* the last cap vertex of the first shell: x = 2 */
    free(mask);
    sk_skin_destroy(s);
    skt_bind_mesh_free(&m);
  }
}
END_TEST

/* Flat shading: every triangle has its own 3 vertices. Vertices at one position must get identical weights (else
 * exporters that weld them write sums off 1), so smoothing runs over the welded mesh. */
START_TEST(split_triangles_keep_colocated_weights) {
  mesh m = skt_bind_cylinder(16, 20, 2);
  size_t nt = m.nt;
  float* pos = malloc(9 * nt * sizeof(float));
  uint32_t* tri = malloc(3 * nt * sizeof(uint32_t));
  uint32_t* orig = malloc(3 * nt * sizeof(uint32_t));
  for (size_t i = 0; i < 3 * nt; ++i) {
    orig[i] = m.tri[i];
    memcpy(pos + 3 * i, m.pos + 3 * (size_t)m.tri[i], 3 * sizeof(float));
    tri[i] = (uint32_t)i;
  }
  for (int mi = 0; mi < 2; ++mi) {
    sk_bind_desc d = skt_bind_desc_for(&m, k_methods[mi]);
    d.positions = pos;
    d.vertex_count = 3 * nt;
    d.triangles = tri;
    sk_skin* s = skt_new_skin(3 * nt, 2);
    sk_skin* welded = skt_new_skin(m.nv, 2);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, 3 * nt, 2, 4, 1);
    sk_bind_desc dw = skt_bind_desc_for(&m, k_methods[mi]);
    ck_assert_int_eq(sk_bind(&dw, welded, NULL, &err), SK_OK);
    /* every copy of a vertex carries the weights the welded mesh gives it */
    for (size_t i = 0; i < 3 * nt; ++i)
      for (uint32_t b = 0; b < 2; ++b)
        ck_assert_msg(fabsf(weight_of(s, i, b) - weight_of(welded, orig[i], b)) <= 1e-6f, "method %d corner %zu", mi,
                      i);
    sk_skin_destroy(s);
    sk_skin_destroy(welded);
  }
  free(pos);
  free(tri);
  free(orig);
  skt_bind_mesh_free(&m);
}
END_TEST

/* The figure asked for in issue 6: both methods on a ~40k-vertex cylinder with 3 bones. */

/* Blender's bone distance for heat: a bone in front of the surface (the side its normal points to: outside the
 * body) counts as far. An open sheet facing +z, bone A 0.3 behind it (inside), bone B only 0.1 in front: plain
 * distance would give the sheet to B, the surface-aware distance gives it to A. */
START_TEST(heat_prefers_bones_behind_the_surface) {
  enum { G = 21 };
  float pos[3 * G * G];
  uint32_t tri[6 * (G - 1) * (G - 1)];
  size_t nt = 0;
  for (int y = 0; y < G; ++y)
    for (int x = 0; x < G; ++x) {
      pos[3 * (y * G + x)] = (float)x / (G - 1);
      pos[3 * (y * G + x) + 1] = (float)y / (G - 1);
      pos[3 * (y * G + x) + 2] = 0.0f;
    }
  for (int y = 0; y + 1 < G; ++y)
    for (int x = 0; x + 1 < G; ++x) { /* counter-clockwise seen from +z: normals +z */
      uint32_t a = (uint32_t)(y * G + x), b = a + 1, c = a + G, e = a + G + 1;
      uint32_t t[6] = {a, b, e, a, e, c};
      memcpy(tri + 3 * nt, t, sizeof t);
      nt += 2;
    }
  float heads[6] = {0.0f, 0.5f, -0.3f, 0.0f, 0.5f, 0.1f}, tails[6] = {1.0f, 0.5f, -0.3f, 1.0f, 0.5f, 0.1f};
  for (int method = SK_BIND_ROBUST; method <= SK_BIND_HEAT; method += SK_BIND_HEAT) {
    sk_bind_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.method = (uint32_t)method;
    d.positions = pos;
    d.vertex_count = G * G;
    d.triangles = tri;
    d.triangle_count = nt;
    d.heads = heads;
    d.tails = tails;
    d.joint_count = 2;
    sk_skin* s = skt_new_skin(G * G, 2);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, G * G, 2, 4, 1);
    for (size_t v = 0; v < G * G; ++v)
      ck_assert_msg(weight_of(s, v, 0) > 0.99f, "method %d vertex %zu: bone behind %g", method, v,
                    (double)weight_of(s, v, 0));
    /* nearest bone knows nothing of surfaces: the sheet goes to the bone in front */
    d.method = SK_BIND_NEAREST;
    ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_OK);
    ck_assert_float_gt(weight_of(s, (G / 2) * G + G / 2, 1), 0.5f);
    sk_skin_destroy(s);
  }
}
END_TEST

/* A closed ellipsoid (centre c, radii r; rings x segs, outward triangles) appended at pos + 3 * *nv, tri + 3 * *nt. */
static void add_ellipsoid(float* pos, size_t* nv, uint32_t* tri, size_t* nt, const float c[3], const float r[3],
                          int rings, int segs) {
  uint32_t base = (uint32_t)*nv, south = base + 1 + (uint32_t)((rings - 1) * segs);
  float* p = pos + 3 * *nv;
  for (int i = 0; i <= rings; ++i)
    for (int k = 0; k < ((i == 0 || i == rings) ? 1 : segs); ++k, p += 3) {
      double th = 3.14159265358979 * i / rings, ph = 2.0 * 3.14159265358979 * k / segs;
      p[0] = c[0] + r[0] * (float)(sin(th) * cos(ph));
      p[1] = c[1] + r[1] * (float)(sin(th) * sin(ph));
      p[2] = c[2] + r[2] * (float)cos(th);
    }
  *nv = south + 1;
  for (int k = 0; k < segs; ++k) {
    uint32_t k1 = (uint32_t)((k + 1) % segs), t[3] = {base, base + 1 + (uint32_t)k, base + 1 + k1};
    memcpy(tri + 3 * (*nt)++, t, sizeof t);
    for (int i = 1; i < rings; ++i) {
      uint32_t a0 = base + 1 + (uint32_t)((i - 1) * segs), a1 = a0 + (uint32_t)segs;
      uint32_t q[6] = {a0 + (uint32_t)k, a1 + (uint32_t)k, a1 + k1, a0 + (uint32_t)k, a1 + k1, a0 + k1};
      if (i + 1 < rings)
        memcpy(tri + 3 * *nt, q, sizeof q), *nt += 2;
      else {
        uint32_t e[3] = {a0 + (uint32_t)k, south, a0 + k1};
        memcpy(tri + 3 * (*nt)++, e, sizeof e);
      }
    }
  }
}

/* A closed cube (centre c, half size h, outward triangles) appended like add_ellipsoid. */
static void add_cube(float* pos, size_t* nv, uint32_t* tri, size_t* nt, const float c[3], float h) {
  static const uint32_t f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                    {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  uint32_t base = (uint32_t)*nv;
  for (int i = 0; i < 8; ++i, ++*nv)
    for (int k = 0; k < 3; ++k) pos[3 * *nv + k] = c[k] + ((i >> k & 1) ? h : -h);
  for (int t = 0; t < 12; ++t, ++*nt)
    for (int k = 0; k < 3; ++k) tri[3 * *nt + k] = base + f[t][k];
}

/* Blender's heat sources: only the bones nearest to a vertex (surface-aware distance) heat it, when it sees them;
 * leaving a closed part from inside does not hide a bone. A tooth (8 mm cube) in a head (closed ellipsoid) in front
 * of the head bone, the neck bone below: the head bone is the nearest for most of the tooth, but the tooth itself
 * lies between its front and that bone. The old rule (the nearest bone seen through no surface at all, else the
 * next one) gave the front to the neck (head 0.43 at a front corner); Blender and now skinkit: head > 0.9. */
START_TEST(heat_shell_goes_to_its_nearest_bone) {
  float pos[3 * 900];
  uint32_t tri[3 * 1700];
  size_t nv = 0, nt = 0;
  const float head_c[3] = {0.0f, 0.0f, 1.65f}, head_r[3] = {0.1f, 0.12f, 0.33f}, tooth_c[3] = {0.0f, -0.055f, 1.71f};
  add_ellipsoid(pos, &nv, tri, &nt, head_c, head_r, 24, 32);
  size_t body = nv;
  add_cube(pos, &nv, tri, &nt, tooth_c, 0.004f);
  float heads[6] = {0.0f, 0.0f, 1.5f, 0.0f, 0.0f, 1.62f}, tails[6] = {0.0f, 0.0f, 1.62f, 0.0f, 0.0f, 1.92f};
  for (int method = SK_BIND_ROBUST; method <= SK_BIND_HEAT; method += SK_BIND_HEAT) {
    sk_bind_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.method = (uint32_t)method;
    d.positions = pos;
    d.vertex_count = nv;
    d.triangles = tri;
    d.triangle_count = nt;
    d.heads = heads;
    d.tails = tails;
    d.joint_count = 2;
    sk_skin* s = skt_new_skin(nv, 2);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, nv, 2, 4, 1);
    double mean = 0.0;
    for (size_t v = body; v < nv; ++v) {
      mean += weight_of(s, v, 1) / (double)(nv - body);
      ck_assert_msg(weight_of(s, v, 1) > 0.8f, "method %d tooth vertex %zu: head %g", method, v - body,
                    (double)weight_of(s, v, 1));
    }
    ck_assert_msg(mean > 0.9, "method %d: the tooth's head weight %g", method, mean);
    sk_skin_destroy(s);
  }
}
END_TEST

/* A placement bone (the usual root at the ground reaching up into the hips: head outside the mesh, most of the
 * segment outside, tail inside) gets no heat when bones inside the mesh do; its region goes to those bones. A
 * bone whose head is inside, or one wholly outside the mesh, stays a heat source. */
START_TEST(heat_ignores_placement_bones) {
  mesh m = skt_bind_cylinder(24, 40, 2);
  /* joint 2: from 1.5 below the tube up to its axis at x = 1 (1/6 of it inside the radius 0.25) */
  float root_h[3] = {1.0f, -1.5f, 0.0f}, root_t[3] = {1.0f, 0.0f, 0.0f};
  memcpy(m.heads + 6, root_h, sizeof root_h);
  memcpy(m.tails + 6, root_t, sizeof root_t);
  m.bones = 3;
  for (int method = SK_BIND_ROBUST; method <= SK_BIND_HEAT; method += SK_BIND_HEAT) {
    sk_bind_desc d = skt_bind_desc_for(&m, (sk_bind_method)method);
    uint64_t counts[3] = {0, 0, 0};
    sk_bind_report rep = new_report(counts);
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    ck_assert_uint_eq(counts[2], 0);
    ck_assert_uint_gt(counts[0], m.nv / 3);
    ck_assert_uint_gt(counts[1], m.nv / 3);
    /* the same bone flipped (head on the axis, inside): a source again, it takes the vertices around x = 1 */
    memcpy(m.heads + 6, root_t, sizeof root_t);
    memcpy(m.tails + 6, root_h, sizeof root_h);
    d = skt_bind_desc_for(&m, (sk_bind_method)method);
    ck_assert_int_eq(sk_bind(&d, s, &rep, &err), SK_OK);
    ck_assert_uint_gt(counts[2], 0);
    memcpy(m.heads + 6, root_h, sizeof root_h);
    memcpy(m.tails + 6, root_t, sizeof root_t);
    sk_skin_destroy(s);
  }
  /* every bone outside (beside the tube): none is a placement bone (their tails are outside too), all bind */
  mesh o = skt_bind_cylinder(24, 40, 2);
  for (int i = 0; i < 2; ++i) o.heads[3 * i + 1] = o.tails[3 * i + 1] = 0.6f;
  sk_bind_desc d = skt_bind_desc_for(&o, SK_BIND_HEAT);
  uint64_t counts[2] = {0, 0};
  sk_bind_report rep = new_report(counts);
  sk_skin* s = skt_new_skin(o.nv, 2);
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
  ck_assert_uint_gt(counts[0], 0);
  ck_assert_uint_gt(counts[1], 0);
  sk_skin_destroy(s);
  skt_bind_mesh_free(&o);
  skt_bind_mesh_free(&m);
}
END_TEST

/* Bone segments of a joint with several children: towards the children's centroid, as far as the child most in
 * line with it reaches along it (the centroid of a hip's spine, tail and legs lies almost on the hip: a point
 * bone). */
START_TEST(segments_of_branching_joints) {
  float local[4 * 16];
  for (int j = 0; j < 4; ++j) {
    memset(local + 16 * j, 0, 16 * sizeof(float));
    for (int k = 0; k < 4; ++k) local[16 * j + 5 * k] = 1.0f;
  }
  local[16 * 1 + 12] = 1.0f;  /* child 1 at (1, 0, 0) */
  local[16 * 2 + 13] = 2.0f;  /* child 2 at (0, 2, 0) */
  local[16 * 3 + 12] = -1.0f; /* child 3 at (-1, 0, 0) */
  int32_t parents[4] = {-1, 0, 0, 0};
  sk_skeleton_desc sd = {.size = sizeof sd, .joint_count = 4, .parents = parents, .rest_local = local};
  sk_skeleton* sk = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skeleton_create(&sd, &sk, &err), SK_OK);
  float h[12], t[12];
  ck_assert_int_eq(sk_skeleton_bone_segments(sk, SK_BONE_SPACE_REST, h, t, &err), SK_OK);
  /* centroid (0, 2/3, 0): straight up, length 2 (child 2, straight up), not 2/3 nor the nearest child's 1 */
  ck_assert_float_eq_tol(t[0], 0.0f, 1e-6f);
  ck_assert_float_eq_tol(t[1], 2.0f, 1e-6f);
  ck_assert_float_eq_tol(t[2], 0.0f, 1e-6f);
  /* leaves extend their parent direction: child 1 (1,0,0) -> (2,0,0) */
  ck_assert_float_eq_tol(t[3], 2.0f, 1e-6f);
  /* children whose centroid is the joint itself: the centroid (a point bone) */
  local[16 * 2 + 13] = 0.0f;
  sk_skeleton_destroy(sk);
  sk = NULL;
  ck_assert_int_eq(sk_skeleton_create(&sd, &sk, &err), SK_OK);
  ck_assert_int_eq(sk_skeleton_bone_segments(sk, SK_BONE_SPACE_REST, h, t, &err), SK_OK);
  ck_assert_float_eq_tol(t[0], 0.0f, 1e-6f);
  ck_assert_float_eq_tol(t[1], 0.0f, 1e-6f);
  sk_skeleton_destroy(sk);
}
END_TEST

/* Bones with identical segments are one bone to every method: their weight is split evenly (quad_skin: ten
 * zero-length bones at one point). A duplicated middle bone gets exactly the weights the single bone got, halved;
 * ten coincident point bones share 1/10 each with room for ten influences, and the first four take 1/4 each with
 * four; with two influences a group is kept whole or not at all (never one member alone after another bone). */
START_TEST(coincident_bones_share_weights) {
  static const sk_bind_method all[5] = {SK_BIND_ROBUST, SK_BIND_HEAT, SK_BIND_NEAREST, SK_BIND_CAPSULE,
                                        SK_BIND_DELAUNAY};
  mesh m = skt_bind_cylinder(24, 40, 3);
  float heads[12], tails[12];
  for (int b = 0, o = 0; b < 4; ++b) { /* 0, 1, 1 again, 2 */
    memcpy(heads + 3 * b, m.heads + 3 * o, 3 * sizeof(float));
    memcpy(tails + 3 * b, m.tails + 3 * o, 3 * sizeof(float));
    o += b != 1;
  }
  for (int mi = 0; mi < 5; ++mi) {
    sk_error err;
    sk_skin* ref = skt_new_skin(m.nv, 3);
    sk_skin* dup = skt_new_skin(m.nv, 4);
    sk_bind_desc d = skt_bind_desc_for(&m, all[mi]);
    ck_assert_msg(sk_bind(&d, ref, NULL, &err) == SK_OK, "%s", err.message);
    d.heads = heads, d.tails = tails, d.joint_count = 4;
    ck_assert_msg(sk_bind(&d, dup, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(dup, m.nv, 4, 4, 1);
    for (size_t v = 0; v < m.nv; ++v) {
      float a = weight_of(dup, v, 1), b = weight_of(dup, v, 2);
      ck_assert_msg(fabsf(a - b) <= 2e-7f, "method %d vertex %zu: %g vs %g", (int)all[mi], v, (double)a, (double)b);
      ck_assert_msg(fabsf(a + b - weight_of(ref, v, 1)) <= 1e-5f, "method %d vertex %zu", (int)all[mi], v);
      ck_assert_msg(fabsf(weight_of(dup, v, 0) - weight_of(ref, v, 0)) <= 1e-5f, "method %d vertex %zu", (int)all[mi],
                    v);
    }
    /* two influences: the pair is kept whole, or alone (cut to the limit) */
    d.max_influences = 2;
    ck_assert_msg(sk_bind(&d, dup, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(dup, m.nv, 4, 2, 1);
    for (size_t v = 0; v < m.nv; ++v) {
      float a = weight_of(dup, v, 1), b = weight_of(dup, v, 2);
      ck_assert_msg((a > 0) == (b > 0), "method %d vertex %zu: one of the pair (%g, %g)", (int)all[mi], v, (double)a,
                    (double)b);
      ck_assert_msg(fabsf(a - b) <= 2e-7f, "method %d vertex %zu", (int)all[mi], v);
    }
    sk_skin_destroy(ref);
    sk_skin_destroy(dup);
  }
  /* ten point bones at the cylinder's middle */
  float ph[30], pt[30];
  for (int b = 0; b < 10; ++b)
    for (int k = 0; k < 3; ++k) ph[3 * b + k] = pt[3 * b + k] = k == 0 ? 1.0f : 0.0f;
  for (int mi = 0; mi < 5; ++mi)
    for (uint32_t limit = 4; limit <= 10; limit += 6) {
      sk_error err;
      sk_skin* s = skt_new_skin(m.nv, 10);
      sk_bind_desc d = skt_bind_desc_for(&m, all[mi]);
      d.heads = ph, d.tails = pt, d.joint_count = 10, d.max_influences = limit;
      ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
      skt_check_bind_weights(s, m.nv, 10, limit, 1);
      for (size_t v = 0; v < m.nv; v += 7)
        for (uint32_t b = 0; b < 10; ++b)
          ck_assert_float_eq_tol(weight_of(s, v, b), b < limit ? 1.0f / (float)limit : 0.0f, 2e-7f);
      sk_skin_destroy(s);
    }
  skt_bind_mesh_free(&m);
}
END_TEST

/* Issue 6's hard cases, every method on each: the cylinder with a non-manifold fin (a strip of triangles standing
 * out of the surface along one line: its attachment edges have three triangles), two closed "eyes" floating inside
 * the tube near its end, a "hair card" (one open quad) floating outside, the 13 loose 1 mm cubes, and a duplicate
 * of the whole tube on top of it. Every vertex gets valid weights (robust: sums exactly 1 in float, summed in
 * storage order), each floating part takes the bone it floats at, the fin the bone it stands on, and the two
 * shells' copies of a vertex the same weights. */
static size_t add_box(mesh* m, const float lo[3], const float hi[3]) {
  static const uint32_t faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                        {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  size_t v0 = m->nv;
  for (int k = 0; k < 8; ++k) {
    int bits[3] = {(k == 1 || k == 2 || k == 5 || k == 6), (k == 2 || k == 3 || k == 6 || k == 7), k >= 4};
    for (int q = 0; q < 3; ++q) m->pos[3 * (v0 + (size_t)k) + q] = bits[q] ? hi[q] : lo[q];
  }
  for (int f = 0; f < 12; ++f)
    for (int q = 0; q < 3; ++q) m->tri[3 * m->nt + 3 * (size_t)f + q] = (uint32_t)v0 + faces[f][q];
  m->nv += 8;
  m->nt += 12;
  return v0;
}

START_TEST(hard_cases_every_method) {
  static const sk_bind_method all[5] = {SK_BIND_ROBUST, SK_BIND_HEAT, SK_BIND_NEAREST, SK_BIND_CAPSULE,
                                        SK_BIND_DELAUNAY};
  const uint32_t S = 24, R = 48;
  mesh m = skt_bind_cylinder(S, R, 3);
  size_t tube = m.nv, tube_tris = m.nt;
  /* room for: the fin (R + 1 outer vertices, 2 R triangles), eyes and card, cubes, then the duplicate shell */
  size_t cap_v = 4 * (tube + R + 64 + 13 * 8), cap_t = 4 * (tube_tris + 2 * R + 64 + 13 * 12);
  m.pos = realloc(m.pos, cap_v * 3 * sizeof(float));
  m.tri = realloc(m.tri, cap_t * 3 * sizeof(uint32_t));
  /* fin: outward from the generator line at segment 0 of every ring (y = +0.25 .. 0.45, z = 0) */
  size_t fin = m.nv;
  for (uint32_t r = 0; r <= R; ++r) {
    const float* base = m.pos + 3 * (size_t)r * S;
    m.pos[3 * (fin + r)] = base[0];
    m.pos[3 * (fin + r) + 1] = base[1] * 1.8f;
    m.pos[3 * (fin + r) + 2] = base[2] * 1.8f;
  }
  m.nv += R + 1;
  for (uint32_t r = 0; r < R; ++r) {
    uint32_t a = r * S, b = (r + 1) * S, c = (uint32_t)(fin + r), e = (uint32_t)(fin + r + 1);
    uint32_t q[6] = {a, b, e, a, e, c};
    memcpy(m.tri + 3 * m.nt, q, sizeof q);
    m.nt += 2;
  }
  /* two eyes inside the tube at x = 1.8 (bone 2), a hair card outside at x = 0.33 (bone 0) */
  const float eye_lo[2][3] = {{1.78f, 0.10f, 0.05f}, {1.78f, 0.10f, -0.09f}};
  size_t eyes = 0;
  for (int k = 0; k < 2; ++k) {
    float hi[3] = {eye_lo[k][0] + 0.04f, eye_lo[k][1] + 0.04f, eye_lo[k][2] + 0.04f};
    size_t v = add_box(&m, eye_lo[k], hi);
    if (!k) eyes = v;
  }
  size_t card = m.nv;
  const float cq[4][3] = {{0.28f, 0.40f, 0.0f}, {0.38f, 0.40f, 0.0f}, {0.38f, 0.55f, 0.05f}, {0.28f, 0.55f, 0.05f}};
  memcpy(m.pos + 3 * card, cq, sizeof cq);
  m.nv += 4;
  uint32_t ct[6] = {(uint32_t)card, (uint32_t)card + 1, (uint32_t)card + 2,
                    (uint32_t)card, (uint32_t)card + 2, (uint32_t)card + 3};
  memcpy(m.tri + 3 * m.nt, ct, sizeof ct);
  m.nt += 2;
  size_t cubes = m.nv;
  skt_bind_add_loose_cubes(&m);
  /* the duplicate shell: every vertex and triangle again, on top */
  size_t n = m.nv, nt = m.nt;
  memcpy(m.pos + 3 * n, m.pos, 3 * n * sizeof(float));
  for (size_t i = 0; i < 3 * nt; ++i) m.tri[3 * nt + i] = m.tri[i] + (uint32_t)n;
  m.nv = 2 * n;
  m.nt = 2 * nt;
  for (int mi = 0; mi < 5; ++mi) {
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, all[mi]);
    sk_bind_report rep = new_report(NULL);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "method %d: %s", (int)all[mi], err.message);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    if (all[mi] == SK_BIND_ROBUST)
      for (size_t v = 0; v < m.nv; ++v) {
        uint32_t j[MAXW];
        float w[MAXW], sum = 0.0f;
        size_t k = sk_skin_get_vertex(s, v, j, w, MAXW);
        for (size_t i = 0; i < k; ++i) sum += w[i];
        ck_assert_msg(k >= 1 && sum == 1.0f, "robust vertex %zu: %zu weights summing to %.9g", v, k, (double)sum);
      }
    for (size_t v = 0; v < n; ++v) /* both shells alike */
      for (uint32_t b = 0; b < 3; ++b)
        ck_assert_msg(fabsf(weight_of(s, v, b) - weight_of(s, v + n, b)) <= 1e-6f, "method %d vertex %zu", (int)all[mi],
                      v);
    for (size_t v = eyes; v < eyes + 16; ++v)
      ck_assert_msg(weight_of(s, v, 2) > 0.5f, "method %d eye vertex %zu: w2 %g", (int)all[mi], v,
                    (double)weight_of(s, v, 2));
    for (size_t v = card; v < card + 4; ++v)
      ck_assert_msg(weight_of(s, v, 0) > 0.5f, "method %d card vertex %zu: w0 %g", (int)all[mi], v,
                    (double)weight_of(s, v, 0));
    for (uint32_t r = 0; r <= R; ++r) { /* fin vertices in the middle of a bone belong to it */
      float x = m.pos[3 * (fin + r)], rel = x / (m.length / 3.0f);
      uint32_t bone = (uint32_t)rel;
      rel -= (float)bone;
      if (bone < 3 && rel > 0.3f && rel < 0.7f)
        ck_assert_msg(weight_of(s, fin + r, bone) > 0.5f, "method %d fin vertex %u: w%u %g", (int)all[mi], r, bone,
                      (double)weight_of(s, fin + r, bone));
    }
    for (uint32_t c = 0; c < 13; ++c) { /* a cube takes the bone it sits on (away from the joints) */
      size_t v = cubes + 8 * (size_t)c;
      float rel = m.pos[3 * v] / (m.length / 3.0f);
      uint32_t bone = (uint32_t)rel;
      rel -= (float)bone;
      if (rel > 0.25f && rel < 0.75f)
        ck_assert_msg(weight_of(s, v, bone) > 0.5f, "method %d cube %u", (int)all[mi], c);
    }
    check_layout(&m, s, tube, S, R, 0.9f, 0.01f);
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(timing_40k_cylinder) {
  mesh m = skt_bind_cylinder(128, 310, 3);
  ck_assert_uint_gt(m.nv, 39000);
  for (int mi = 0; mi < 2; ++mi) {
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, k_methods[mi]);
    sk_bind_report rep = new_report(NULL);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    check_layout(&m, s, m.nv, 128, 310, 0.9f, 0.01f);
    printf("BIND %s cylinder %zu vertices: %.1f ms\n", mi ? "delaunay" : "capsule", m.nv, rep.milliseconds);
    fflush(stdout);
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("bind_methods");
  TCase* t = tcase_create("methods");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, capsule_cylinders);
  tcase_add_test(t, delaunay_cylinders);
  tcase_add_test(t, capsule_radii_and_smoothing);
  tcase_add_test(t, delaunay_bone_samples);
  tcase_add_test(t, point_cloud);
  tcase_add_test(t, loose_cubes);
  tcase_add_test(t, scale_x0001_and_x1000);
  tcase_add_test(t, bones_outside_the_mesh);
  tcase_add_test(t, flat_and_degenerate_input);
  tcase_add_test(t, duplicated_shells_and_masks);
  tcase_add_test(t, split_triangles_keep_colocated_weights);
  tcase_add_test(t, heat_prefers_bones_behind_the_surface);
  tcase_add_test(t, heat_ignores_placement_bones);
  tcase_add_test(t, heat_shell_goes_to_its_nearest_bone);
  tcase_add_test(t, segments_of_branching_joints);
  tcase_add_test(t, coincident_bones_share_weights);
  tcase_add_test(t, hard_cases_every_method);
  tcase_add_test(t, timing_40k_cylinder);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
