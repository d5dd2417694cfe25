/* test_bind.c - automatic binding: nearest bone, bone heat, robust mode, masks, locks and error paths. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sk_bindmesh.h"
#include "sk_testutil.h"
#include "skinkit.h"

#define MAXW 300

typedef skt_bind_mesh mesh; /* tests/util/sk_bindmesh.h */

static float weight_of(const sk_skin* s, size_t v, uint32_t joint) {
  uint32_t j[MAXW];
  float w[MAXW];
  size_t n = sk_skin_get_vertex(s, v, j, w, MAXW);
  for (size_t i = 0; i < n; ++i)
    if (j[i] == joint) return w[i];
  return 0.0f;
}

/* Ends belong to the end bones; bone 0's mean weight per ring of the tube falls (monotone within 0.02). */
static void check_layout_min(const mesh* m, const sk_skin* s, size_t cyl_vertices, uint32_t segments,
                             uint32_t rings, float end_min, float final_max) {
  float end = 0.2f * m->length / (float)m->bones;
  for (size_t v = 0; v < cyl_vertices; ++v) {
    float x = m->pos[3 * v];
    if (x < end) ck_assert_msg(weight_of(s, v, 0) > end_min, "vertex %zu x=%g w0=%g", v, (double)x,
                               (double)weight_of(s, v, 0));
    if (x > m->length - end)
      ck_assert_msg(weight_of(s, v, m->bones - 1) > end_min, "vertex %zu x=%g", v, (double)x);
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

static void check_cylinder_layout(const mesh* m, const sk_skin* s, size_t cyl_vertices, uint32_t segments,
                                  uint32_t rings) {
  check_layout_min(m, s, cyl_vertices, segments, rings, 0.9f, 0.01f);
}

static void bind_cylinder(sk_bind_method method, uint32_t bones, uint32_t rigid) {
  const uint32_t S = 24, R = 40;
  mesh m = skt_bind_cylinder(S, R, bones);
  sk_skin* s = skt_new_skin(m.nv, bones);
  sk_bind_desc d = skt_bind_desc_for(&m, method);
  d.rigid = rigid;
  uint64_t counts[16];
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  rep.joint_vertex_counts = counts;
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
  skt_check_bind_weights(s, m.nv, bones, rigid ? 1 : 4, 1);
  check_cylinder_layout(&m, s, m.nv, S, R);
  ck_assert_uint_eq(rep.bound_vertices, m.nv);
  ck_assert_uint_eq(rep.fallback_vertices, 0);
  ck_assert(rep.milliseconds >= 0.0);
  ck_assert_uint_eq(rep.method_used, method == SK_BIND_NEAREST ? SK_BIND_NEAREST : SK_BIND_HEAT);
  uint64_t total = 0;
  for (uint32_t b = 0; b < bones; ++b) {
    ck_assert_uint_gt(counts[b], m.nv / (bones + 2));
    total += counts[b];
  }
  ck_assert_uint_eq(total, sk_skin_influence_count(s));
  if (method != SK_BIND_NEAREST) ck_assert_uint_eq(rep.components, 1); /* caps welded to the tube */
  sk_skin_destroy(s);
  skt_bind_mesh_free(&m);
}

START_TEST(nearest_blended_cylinders) {
  bind_cylinder(SK_BIND_NEAREST, 2, 0);
  bind_cylinder(SK_BIND_NEAREST, 3, 0);
}
END_TEST

START_TEST(nearest_rigid_cylinders) {
  bind_cylinder(SK_BIND_NEAREST, 2, 1);
  bind_cylinder(SK_BIND_NEAREST, 3, 1);
}
END_TEST

START_TEST(heat_cylinders) {
  bind_cylinder(SK_BIND_HEAT, 2, 0);
  bind_cylinder(SK_BIND_HEAT, 3, 0);
}
END_TEST

START_TEST(robust_cylinders) {
  bind_cylinder(SK_BIND_ROBUST, 2, 0);
  bind_cylinder(SK_BIND_ROBUST, 3, 0);
}
END_TEST

START_TEST(heat_blends_smoothly_across_the_joint) {
  mesh m = skt_bind_cylinder(24, 40, 2);
  sk_skin* s = skt_new_skin(m.nv, 2);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_HEAT);
  sk_error err;
  ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_OK);
  /* at the joint ring (x = 1) both bones share about equally; a quarter away each side one bone leads */
  size_t mid = 20 * 24;
  ck_assert_float_eq_tol(weight_of(s, mid, 0), 0.5f, 0.1f);
  ck_assert_float_gt(weight_of(s, 15 * 24, 0), 0.6f);
  ck_assert_float_gt(weight_of(s, 25 * 24, 1), 0.6f);
  ck_assert_float_gt(weight_of(s, 15 * 24, 1), 0.0f); /* heat blends, it is not rigid */
  sk_skin_destroy(s);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(heat_with_loose_cubes_weights_everything) {
  const uint32_t S = 24, R = 40;
  for (int method = 0; method < 2; ++method) {
    mesh m = skt_bind_cylinder(S, R, 3);
    size_t cyl = m.nv;
    skt_bind_add_loose_cubes(&m);
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, method ? SK_BIND_HEAT : SK_BIND_ROBUST);
    sk_bind_report rep;
    memset(&rep, 0, sizeof rep);
    rep.size = sizeof rep;
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    check_cylinder_layout(&m, s, cyl, S, R);
    ck_assert_uint_eq(rep.components, 14);
    ck_assert_uint_eq(rep.fallback_components, 13);
    ck_assert_uint_eq(rep.fallback_vertices, 13 * 8);
    ck_assert_uint_eq(rep.method_used, SK_BIND_HEAT);
    /* heat: a cube gets the bone nearest to it; robust: the weights of the skin under it (the nearest vertex of
     * the cylinder, 3 mm away: its weights differ from the closest surface point's by the slope over 3 mm) */
    for (uint32_t c = 0; c < 13; ++c) {
      size_t v = cyl + 8 * (size_t)c;
      uint32_t bone = (uint32_t)(m.pos[3 * v] / (m.length / 3.0f));
      if (method) ck_assert_float_gt(weight_of(s, v, bone), 0.5f);
      else {
        size_t near = 0;
        float best = INFINITY;
        for (size_t u = 0; u < cyl; ++u) {
          float e = 0.0f;
          for (int q = 0; q < 3; ++q) e += (m.pos[3 * u + q] - m.pos[3 * v + q]) * (m.pos[3 * u + q] - m.pos[3 * v + q]);
          if (e < best) best = e, near = u;
        }
        for (uint32_t b = 0; b < 3; ++b)
          ck_assert_msg(fabsf(weight_of(s, v, b) - weight_of(s, near, b)) < 0.1f, "cube %u bone %u: %g, skin %g", c, b,
                        (double)weight_of(s, v, b), (double)weight_of(s, near, b));
      }
      for (size_t k = 1; k < 8; ++k) /* a small loose part moves rigidly: identical weights on every corner */
        for (uint32_t b = 0; b < 3; ++b) ck_assert_float_eq(weight_of(s, v + k, b), weight_of(s, v, b));
    }
    sk_skin_destroy(s);
    skt_bind_mesh_free(&m);
  }
}
END_TEST

/* The per-joint figures of the report (ABI 1.5): the loose cubes are the fallback vertices, flagged one by one;
 * each joint's fallback count, vertex count and weight sum agree with the skin written. A 1.4-sized report is still
 * accepted and leaves the new arrays alone. */
START_TEST(report_per_joint_fallback_and_shares) {
  mesh m = skt_bind_cylinder(24, 40, 3);
  size_t cyl = m.nv;
  skt_bind_add_loose_cubes(&m);
  sk_skin* s = skt_new_skin(m.nv, 3);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_ROBUST);
  uint8_t* flags = malloc(m.nv);
  uint64_t counts[3], fb[3];
  double sums[3];
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  rep.vertex_fallback = flags;
  rep.joint_vertex_counts = counts;
  rep.joint_fallback_counts = fb;
  rep.joint_weight_sums = sums;
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
  ck_assert_uint_eq(rep.fallback_vertices, 13 * 8);
  for (size_t v = 0; v < m.nv; ++v) ck_assert_uint_eq(flags[v], v >= cyl);
  uint64_t want_n[3] = {0}, want_fb[3] = {0};
  double want_w[3] = {0}, total = 0.0;
  for (size_t v = 0; v < m.nv; ++v)
    for (uint32_t b = 0; b < 3; ++b) {
      float w = weight_of(s, v, b);
      if (w <= 0.0f) continue;
      want_n[b]++;
      want_fb[b] += v >= cyl;
      want_w[b] += w;
    }
  uint64_t fb_total = 0;
  for (uint32_t b = 0; b < 3; ++b) {
    ck_assert_uint_eq(counts[b], want_n[b]);
    ck_assert_uint_eq(fb[b], want_fb[b]);
    ck_assert_double_eq_tol(sums[b], want_w[b], 1e-9);
    ck_assert_uint_gt(fb[b], 0); /* the 13 cubes sit along the whole tube */
    total += sums[b];
    fb_total += fb[b];
  }
  ck_assert_double_eq_tol(total, (double)m.nv, 1e-3); /* every vertex sums to 1 */
  ck_assert_uint_ge(fb_total, rep.fallback_vertices);
  /* 1.4-sized report: accepted, the new arrays are not written */
  memset(flags, 7, m.nv);
  fb[0] = 99;
  rep.size = (uint32_t)offsetof(sk_bind_report, vertex_fallback);
  ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
  ck_assert_uint_eq(flags[0], 7);
  ck_assert_uint_eq(fb[0], 99);
  ck_assert_uint_eq(counts[0], want_n[0]);
  rep.size = (uint32_t)offsetof(sk_bind_report, vertex_fallback) + 8;
  ck_assert_int_eq(sk_bind(&d, s, &rep, &err), SK_ERR_STRUCT_SIZE);
  free(flags);
  sk_skin_destroy(s);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(isolated_vertices_and_unwelded_caps) {
  mesh m = skt_bind_cylinder(24, 40, 2);
  size_t cyl = m.nv;
  for (int i = 0; i < 5; ++i) { /* vertices no triangle uses, inside the tube near each end */
    m.pos[3 * (cyl + i)] = i < 3 ? 0.05f : 1.95f;
    m.pos[3 * (cyl + i) + 1] = 0.02f * (float)i;
    m.pos[3 * (cyl + i) + 2] = 0.0f;
  }
  m.nv += 5;
  for (int weld = 0; weld < 2; ++weld) {
    sk_skin* s = skt_new_skin(m.nv, 2);
    sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_HEAT);
    d.no_weld = weld ? 0u : 1u;
    sk_bind_report rep;
    memset(&rep, 0, sizeof rep);
    rep.size = sizeof rep;
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 2, 4, 1);
    check_cylinder_layout(&m, s, cyl, 24, 40);
    ck_assert_uint_eq(rep.fallback_vertices, 5);
    ck_assert_uint_eq(rep.fallback_components, 5);
    ck_assert_uint_eq(rep.components, weld ? 6u : 8u); /* unwelded: tube and two cap disks */
    for (int i = 0; i < 5; ++i) ck_assert_float_eq(weight_of(s, cyl + i, i < 3 ? 0 : 1), 1.0f);
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(point_cloud_falls_back_to_nearest) {
  mesh m = skt_bind_cylinder(16, 20, 3);
  sk_skin* heat = skt_new_skin(m.nv, 3);
  sk_skin* near = skt_new_skin(m.nv, 3);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_HEAT);
  d.triangles = NULL;
  d.triangle_count = 0;
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  sk_error err;
  ck_assert_int_eq(sk_bind(&d, heat, &rep, &err), SK_OK);
  ck_assert_uint_eq(rep.method_used, SK_BIND_NEAREST);
  ck_assert_uint_eq(rep.fallback_vertices, m.nv);
  skt_check_bind_weights(heat, m.nv, 3, 4, 1);
  /* heat (Blender's bone heat) gives each point its one nearest bone */
  d.method = SK_BIND_NEAREST;
  d.rigid = 1;
  ck_assert_int_eq(sk_bind(&d, near, NULL, &err), SK_OK);
  for (size_t v = 0; v < m.nv; ++v)
    for (uint32_t b = 0; b < 3; ++b) ck_assert_float_eq(weight_of(heat, v, b), weight_of(near, v, b));
  d.rigid = 0;
  d.method = SK_BIND_ROBUST;
  ck_assert_int_eq(sk_bind(&d, heat, NULL, &err), SK_OK);
  skt_check_bind_weights(heat, m.nv, 3, 4, 1);
  sk_skin_destroy(heat);
  sk_skin_destroy(near);
  skt_bind_mesh_free(&m);
}
END_TEST

/* Heat gives what no bone sees - a loose vertex above the chain, a cube behind the tube from every bone - its one
 * nearest bone, as Blender's bone heat does (they were blended between bones: an auditor's vertex 0.09 / 0.29 /
 * 0.62, cube 1/3 each); robust keeps its blend. */
START_TEST(heat_gives_unseen_parts_the_nearest_bone) {
  mesh m = skt_bind_cylinder(16, 30, 3); /* bones along x over [0, 2]: bone 1 holds x in [0.67, 1.33] */
  const size_t cyl = m.nv;
  m.pos[3 * cyl] = 1.0f, m.pos[3 * cyl + 1] = 3.0f, m.pos[3 * cyl + 2] = 0.0f; /* far beside bone 1 */
  m.nv += 1;
  sk_skin* s = skt_new_skin(m.nv, 3);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_HEAT);
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
  ck_assert_float_eq(weight_of(s, cyl, 1), 1.0f);
  d.method = SK_BIND_ROBUST;
  ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
  skt_check_bind_weights(s, m.nv, 3, 4, 1);
  sk_skin_destroy(s);
  skt_bind_mesh_free(&m);
}
END_TEST

/* Two closed tubes side by side that touch along a line of shared positions (fingers of a mitten, a plate on a body)
 * are two surfaces: neither takes the other's bones (the touching vertices were welded into one surface, and the
 * neighbour's heat flowed across: an auditor's hand had 35 vertices with > 0.1 of a neighbour finger's weight). */
START_TEST(touching_shells_keep_their_own_bones) {
  skt_bind_mesh m = skt_bind_cylinder(24, 30, 2);
  const size_t nv = m.nv, nt = m.nt;
  size_t touching = 0;
  for (size_t v = 0; v < nv; ++v) { /* B: A mirrored about y = 0.25, where A's vertices at angle 0 lie */
    m.pos[3 * (nv + v)] = m.pos[3 * v];
    m.pos[3 * (nv + v) + 1] = 0.5f - m.pos[3 * v + 1];
    m.pos[3 * (nv + v) + 2] = m.pos[3 * v + 2];
    touching += m.pos[3 * v + 1] == 0.25f;
  }
  for (size_t t = 0; t < nt; ++t) /* mirrored: the winding turns */
    for (int k = 0; k < 3; ++k) m.tri[3 * (nt + t) + k] = (uint32_t)nv + m.tri[3 * t + (k == 0 ? 0 : 3 - k)];
  m.nv = 2 * nv, m.nt = 2 * nt;
  for (uint32_t b = 0; b < 2; ++b)
    for (int q = 0; q < 3; ++q) {
      m.heads[3 * (2 + b) + q] = m.heads[3 * b + q] + (q == 1 ? 0.5f : 0.0f);
      m.tails[3 * (2 + b) + q] = m.tails[3 * b + q] + (q == 1 ? 0.5f : 0.0f);
    }
  m.bones = 4;
  ck_assert_uint_gt(touching, 20);
  const sk_bind_method methods[2] = {SK_BIND_HEAT, SK_BIND_ROBUST};
  for (int k = 0; k < 2; ++k) {
    sk_skin* s = skt_new_skin(m.nv, 4);
    sk_bind_desc d = skt_bind_desc_for(&m, methods[k]);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    float worst = 0.0f;
    for (size_t v = 0; v < m.nv; ++v) {
      const uint32_t other = v < nv ? 2 : 0; /* the other tube's bones */
      const float w = weight_of(s, v, other) + weight_of(s, v, other + 1);
      worst = w > worst ? w : worst;
    }
    ck_assert_msg(worst < 1e-4f, "method %d: a vertex took %.3f of the other tube's bones", (int)methods[k], worst);
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

/* A mesh whose every face corner is its own vertex (what an FBX edit binds: Assimp gives the corners apart), some
 * faces turned the wrong way, binds as the same mesh with shared vertices: two open edges alone at the same
 * positions are one surface whatever their angle. (A turned face met its neighbours back to back and was left a
 * shell of its own: an auditor's character bound from .fbx into .fbx had 1,820 control points whose corners took
 * different weights, 817 vertices off the .glb bind by more than 0.5.) */
START_TEST(corner_split_mesh_with_turned_faces_binds_as_one_surface) {
  skt_bind_mesh m = skt_bind_cylinder(16, 24, 3);
  skt_bind_mesh soup = m;
  soup.nv = 3 * m.nt;
  soup.pos = malloc(soup.nv * 3 * sizeof(float));
  soup.tri = malloc(soup.nv * sizeof(uint32_t));
  for (size_t t = 0; t < m.nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int from = t % 5 == 0 ? (3 - k) % 3 : k; /* every fifth face turned */
      memcpy(soup.pos + 3 * (3 * t + k), m.pos + 3 * (size_t)m.tri[3 * t + from], 3 * sizeof(float));
      soup.tri[3 * t + k] = (uint32_t)(3 * t + k);
    }
  const sk_bind_method methods[2] = {SK_BIND_HEAT, SK_BIND_ROBUST};
  for (int k = 0; k < 2; ++k) {
    sk_skin* shared = skt_new_skin(m.nv, 3);
    sk_skin* split = skt_new_skin(soup.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, methods[k]), ds = skt_bind_desc_for(&soup, methods[k]);
    sk_error err;
    ck_assert_msg(sk_bind(&d, shared, NULL, &err) == SK_OK, "%s", err.message);
    ck_assert_msg(sk_bind(&ds, split, NULL, &err) == SK_OK, "%s", err.message);
    float worst = 0.0f;
    for (size_t t = 0; t < m.nt; ++t)
      for (int c = 0; c < 3; ++c) {
        const size_t v = m.tri[3 * t + (t % 5 == 0 ? (3 - c) % 3 : c)], u = 3 * t + (size_t)c;
        for (uint32_t b = 0; b < 3; ++b) {
          const float e = fabsf(weight_of(shared, v, b) - weight_of(split, u, b));
          worst = e > worst ? e : worst;
        }
      }
    /* (the turned faces' normals count against their neighbours' in the heat: 0.006 off here; 1.0 before) */
    ck_assert_msg(worst < 0.02f, "method %d: a corner's weight is %.3f off the shared mesh's", (int)methods[k], worst);
    sk_skin_destroy(shared);
    sk_skin_destroy(split);
  }
  free(soup.pos);
  free(soup.tri);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(scale_invariance) {
  for (int method = 0; method < 3; ++method) {
    mesh m = skt_bind_cylinder(20, 30, 3);
    skt_bind_add_loose_cubes(&m);
    sk_skin* ref = skt_new_skin(m.nv, 3);
    sk_error err;
    sk_bind_desc d = skt_bind_desc_for(&m, (sk_bind_method)method);
    ck_assert_int_eq(sk_bind(&d, ref, NULL, &err), SK_OK);
    const float scales[2] = {0.001f, 1000.0f};
    for (int si = 0; si < 2; ++si) {
      mesh k = m;
      k.pos = malloc(m.nv * 3 * sizeof(float));
      for (size_t i = 0; i < 3 * m.nv; ++i) k.pos[i] = m.pos[i] * scales[si];
      for (int i = 0; i < 9; ++i) {
        k.heads[i] = m.heads[i] * scales[si];
        k.tails[i] = m.tails[i] * scales[si];
      }
      sk_skin* s = skt_new_skin(m.nv, 3);
      sk_bind_desc ds = skt_bind_desc_for(&k, (sk_bind_method)method);
      ck_assert_int_eq(sk_bind(&ds, s, NULL, &err), SK_OK);
      for (size_t v = 0; v < m.nv; ++v)
        for (uint32_t b = 0; b < 3; ++b)
          ck_assert_msg(fabsf(weight_of(s, v, b) - weight_of(ref, v, b)) <= 1e-4f, "method %d scale %g vertex %zu",
                        method, (double)scales[si], v);
      sk_skin_destroy(s);
      free(k.pos);
    }
    sk_skin_destroy(ref);
    skt_bind_mesh_free(&m);
  }
}
END_TEST

/* A zigzag chain of n bones 0.5 long inside skt_bind_cylinder's tube turned 30 degrees about z (each joint turned
 * 20 degrees from its parent, alternately, so that each knee has an outer side whose vertices are equally near both
 * of its bones), as a skeleton whose rest pose is moved by A = T(o) S(k) (the root's local). bind: NULL (bind =
 * rest), or the bind matrices to give it. */
static sk_skeleton* chain_skeleton(uint32_t n, const float o[3], float k, const float* bind) {
  float local[16 * 4];
  int32_t parents[4];
  ck_assert_uint_le(n, 4);
  for (uint32_t j = 0; j < n; ++j) {
    const float turn = j ? (j % 2 ? 0.34906585f : -0.34906585f) : 0.52359878f, c = cosf(turn), s = sinf(turn);
    const float kj = j ? 1.0f : k;
    float* l = local + 16 * j;
    memset(l, 0, 16 * sizeof(float));
    l[0] = l[5] = kj * c, l[1] = kj * s, l[4] = -kj * s, l[10] = kj, l[15] = 1.0f;
    for (int i = 0; i < 3; ++i) l[12 + i] = j ? (i ? 0.0f : 0.5f) : o[i];
    parents[j] = (int32_t)j - 1;
  }
  sk_skeleton_desc sd = {.size = sizeof sd, .joint_count = n, .parents = parents, .rest_local = local, .bind = bind};
  sk_skeleton* sk = NULL;
  sk_error err;
  ck_assert_msg(sk_skeleton_create(&sd, &sk, &err) == SK_OK, "%.400s", err.message);
  return sk;
}

/* Largest weight difference of any vertex and joint between skins a and b. */
static float weights_apart(const sk_skin* a, const sk_skin* b, size_t nv, uint32_t nj) {
  float worst = 0.0f;
  for (size_t v = 0; v < nv; ++v)
    for (uint32_t j = 0; j < nj; ++j) worst = fmaxf(worst, fabsf(weight_of(a, v, j) - weight_of(b, v, j)));
  return worst;
}

/* skt_bind_cylinder's tube cut in two at its ring nearest x = 1: the ring's vertices copied (at the end of m.pos,
 * each moved by `off` along y) and the triangles beyond the ring moved onto the copies. Returns the first copy. */
static size_t cut_tube(skt_bind_mesh* m, float off) {
  float mid = 0.0f;
  for (size_t v = 0; v < m->nv; ++v)
    if (fabsf(m->pos[3 * v] - 1.0f) < fabsf(mid - 1.0f)) mid = m->pos[3 * v];
  uint32_t* copy = malloc(m->nv * sizeof *copy);
  ck_assert_ptr_nonnull(copy);
  const size_t first = m->nv;
  for (size_t v = 0; v < first; ++v) {
    copy[v] = (uint32_t)v;
    if (m->pos[3 * v] != mid) continue;
    copy[v] = (uint32_t)m->nv;
    for (int k = 0; k < 3; ++k) m->pos[3 * m->nv + (size_t)k] = m->pos[3 * v + (size_t)k] + (k == 1 ? off : 0.0f);
    m->nv++;
  }
  ck_assert_uint_gt(m->nv, first);
  for (size_t t = 0; t < m->nt; ++t) {
    uint32_t* tv = m->tri + 3 * t;
    if (m->pos[3 * tv[0]] + m->pos[3 * tv[1]] + m->pos[3 * tv[2]] > 3.0f * mid)
      for (int k = 0; k < 3; ++k) tv[k] = copy[tv[k]];
  }
  free(copy);
  return first;
}

START_TEST(copies_a_rounding_apart_weld_as_identical_ones) {
  /* A tube cut in two whose cut's copies lie 2e-7 apart (the rounding of a float at a few units) binds as the tube
   * whose copies are identical, by every method: CesiumMan_subdiv2's subdivision left ~600 such pairs, which moved by
   * (5, 3, 1) became identical, joined two of its parts and bound up to 0.43 apart (29,405 vertices) until session 76
   * welded copies closer than the coordinates' rounding (docs/bind.md "Session 76: copies a rounding apart"). */
  skt_bind_mesh same = skt_bind_cylinder(20, 32, 4), near = skt_bind_cylinder(20, 32, 4);
  const size_t first = cut_tube(&same, 0.0f);
  ck_assert_uint_eq(cut_tube(&near, 2e-7f), first);
  ck_assert_float_ne(near.pos[3 * first + 1], same.pos[3 * first + 1]);
  for (int method = 0; method < 5; ++method) {
    sk_skin* a = skt_new_skin(same.nv, 4);
    sk_skin* b = skt_new_skin(near.nv, 4);
    sk_bind_desc da = skt_bind_desc_for(&same, (sk_bind_method)method), db = skt_bind_desc_for(&near, method);
    sk_error err;
    ck_assert_msg(sk_bind(&da, a, NULL, &err) == SK_OK, "%.400s", err.message);
    ck_assert_msg(sk_bind(&db, b, NULL, &err) == SK_OK, "%.400s", err.message);
    const float apart = weights_apart(a, b, same.nv, 4);
    ck_assert_msg(apart <= 1e-4f, "method %d: the cut 2e-7 apart binds %g off the cut of identical copies", method,
                  (double)apart);
    sk_skin_destroy(a);
    sk_skin_destroy(b);
  }
  skt_bind_mesh_free(&same);
  skt_bind_mesh_free(&near);
}
END_TEST

/* Box b of a soup (36 vertices, 12 triangles from 36 * b on, winding outward) from lo to hi. */
static void soup_box(skt_bind_mesh* m, uint32_t b, const float lo[3], const float hi[3]) {
  static const int quad[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}}, split[6] = {0, 1, 2, 0, 2, 3};
  for (int f = 0; f < 6; ++f) {
    const int k = f / 2, a = (k + 1) % 3, c = (k + 2) % 3;
    float q[4][3];
    for (int i = 0; i < 4; ++i) {
      q[i][k] = f & 1 ? hi[k] : lo[k];
      q[i][a] = quad[i][0] ? hi[a] : lo[a];
      q[i][c] = quad[i][1] ? hi[c] : lo[c];
    }
    for (int i = 0; i < 6; ++i) { /* (a, c) turns about +k: outward on the high side, turned on the low one */
      const int corner = f & 1 ? split[i] : split[i - i % 3 + (3 - i % 3) % 3];
      const size_t v = 36 * (size_t)b + 6 * (size_t)f + (size_t)i;
      memcpy(m->pos + 3 * v, q[corner], sizeof q[corner]);
      m->tri[v] = (uint32_t)v;
    }
  }
}

/* Three closed boxes of a triangle soup (body, one beside it sharing a face, one on top sharing an edge), whose
 * shared corners lie a float step apart, each with its bone inside, bind one bone per box, and alike when moved by
 * (5, 3, 1). Those corners are one point since session 76, and in a soup every edge is open, so the boxes were one
 * surface and heat blended them (b3d/character.b3d: 0.19 -> 0.46 off its artist's weights; docs/bind.md "Session
 * 76: touching boxes"). */
START_TEST(touching_boxes_of_a_soup_keep_their_own_bones) {
  skt_bind_mesh m = {.nv = 108, .nt = 36, .bones = 3};
  m.pos = malloc(3 * m.nv * sizeof(float));
  m.tri = malloc(3 * m.nt * sizeof(uint32_t));
  ck_assert_ptr_nonnull(m.pos);
  ck_assert_ptr_nonnull(m.tri);
  const float step = nextafterf(1.0f, 2.0f);
  const float lo[3][3] = {{0, 0, 0}, {step, 0, 0}, {0, step, step}}, hi[3][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 2}};
  const float head[3][3] = {{0.2f, 0.5f, 0.5f}, {1.2f, 0.5f, 0.5f}, {0.2f, 1.5f, 1.5f}};
  for (uint32_t b = 0; b < 3; ++b) {
    soup_box(&m, b, lo[b], hi[b]);
    memcpy(m.heads + 3 * b, head[b], sizeof head[b]);
    memcpy(m.tails + 3 * b, head[b], sizeof head[b]);
    m.tails[3 * b] += 0.6f;
  }
  skt_bind_mesh moved = m;
  moved.pos = malloc(3 * m.nv * sizeof(float));
  ck_assert_ptr_nonnull(moved.pos);
  const float o[3] = {5, 3, 1};
  for (size_t i = 0; i < 3 * m.nv; ++i) moved.pos[i] = m.pos[i] + o[i % 3];
  for (size_t i = 0; i < 9; ++i) moved.heads[i] += o[i % 3], moved.tails[i] += o[i % 3];
  const sk_bind_method methods[2] = {SK_BIND_HEAT, SK_BIND_ROBUST};
  for (int k = 0; k < 2; ++k) {
    sk_skin* s = skt_new_skin(m.nv, 3);
    sk_skin* t = skt_new_skin(m.nv, 3);
    sk_bind_desc d = skt_bind_desc_for(&m, methods[k]), dt = skt_bind_desc_for(&moved, methods[k]);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%.400s", err.message);
    ck_assert_msg(sk_bind(&dt, t, NULL, &err) == SK_OK, "%.400s", err.message);
    for (size_t v = 0; v < m.nv; ++v)
      ck_assert_msg(weight_of(s, v, (uint32_t)(v / 36)) > 0.9f, "method %d: box %zu's vertex %zu: %.3f of its bone",
                    (int)methods[k], v / 36, v, (double)weight_of(s, v, (uint32_t)(v / 36)));
    const float apart = weights_apart(s, t, m.nv, 3);
    ck_assert_msg(apart <= 1e-4f, "method %d: moved by (5, 3, 1) %g apart", (int)methods[k], (double)apart);
    sk_skin_destroy(s);
    sk_skin_destroy(t);
  }
  free(moved.pos);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(translation_invariance) {
  /* A character and its armature moved together bind alike, by every method: moved to (100, -50, 25) (its floats
   * rounded there: within 1e-3), 64 x larger (exact: 1e-5), and its rest pose moved to (1000, -500, 250) while the
   * mesh stays bound where it was (a glTF character placed by its root node: the bind's input is the same bit for
   * bit, and so are the weights). Before session 72 the tails, carried into the bind pose by float matrices as
   * large as the offset, missed the children's heads by 1e-4, and heat's ties on the outer side of each knee broke
   * (robust and heat 0.18 apart, capsule 0.009). Left: delaunay moved to (100, -50, 25), where the rounding of the
   * coordinates (2e-6 of the box) outweighs qhull's joggle (1e-6) on the tube's co-circular rings (0.093 apart), is
   * not checked (docs/bind.md, session 72). */
  mesh m = skt_bind_cylinder(20, 32, 4);
  for (size_t v = 0; v < m.nv; ++v) { /* the tube turned as the chain's root */
    float x = m.pos[3 * v], y = m.pos[3 * v + 1];
    m.pos[3 * v] = 0.8660254f * x - 0.5f * y;
    m.pos[3 * v + 1] = 0.5f * x + 0.8660254f * y;
  }
  const float zero[3] = {0, 0, 0}, o_far[3] = {1000.0f, -500.0f, 250.0f}, o_near[3] = {100.0f, -50.0f, 25.0f};
  const struct {
    const float* o;
    float k;
    int rest_only;
    float tol;
  } cases[3] = {{o_far, 1.0f, 1, 0.0f}, {o_near, 1.0f, 0, 1e-3f}, {zero, 64.0f, 0, 1e-5f}};
  float* moved = malloc(m.nv * 3 * sizeof(float));
  ck_assert_ptr_nonnull(moved);
  sk_skeleton* home = chain_skeleton(4, zero, 1.0f, NULL);
  float home_bind[64], bind[64];
  sk_error err;
  ck_assert_int_eq(sk_skeleton_get_bind(home, home_bind), SK_OK);
  for (int method = 0; method < 5; ++method) {
    sk_bind_desc d = skt_bind_desc_for(&m, (sk_bind_method)method);
    d.heads = d.tails = NULL;
    d.joint_count = 0;
    d.skeleton = home;
    sk_skin* ref = skt_new_skin(m.nv, 4);
    ck_assert_msg(sk_bind(&d, ref, NULL, &err) == SK_OK, "%.400s", err.message);
    for (int c = 0; c < 3; ++c) {
      const float k = cases[c].k, *o = cases[c].o;
      memcpy(bind, home_bind, sizeof bind);
      memcpy(moved, m.pos, m.nv * 3 * sizeof(float));
      if (!cases[c].rest_only) { /* mesh and bind pose moved by A too */
        for (size_t i = 0; i < 3 * m.nv; ++i) moved[i] = k * m.pos[i] + o[i % 3];
        for (int j = 0; j < 4; ++j)
          for (int i = 0; i < 15; ++i) bind[16 * j + i] = k * bind[16 * j + i] + (i >= 12 ? o[i - 12] : 0.0f);
      }
      sk_skeleton* sk = chain_skeleton(4, cases[c].o, cases[c].k, bind);
      sk_skin* s = skt_new_skin(m.nv, 4);
      d.positions = moved;
      d.skeleton = sk;
      ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%.400s", err.message);
      const float apart = weights_apart(s, ref, m.nv, 4);
      ck_assert_msg(apart <= cases[c].tol || (method == SK_BIND_DELAUNAY && c == 1),
                    "method %d case %d: weights %g apart", method, c, (double)apart);
      d.positions = m.pos;
      d.skeleton = home;
      sk_skin_destroy(s);
      sk_skeleton_destroy(sk);
    }
    sk_skin_destroy(ref);
  }
  sk_skeleton_destroy(home);
  free(moved);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(bones_outside_the_mesh) {
  mesh m = skt_bind_cylinder(24, 40, 2);
  for (int i = 0; i < 2; ++i) { /* chain parallel to the axis, beside the tube */
    m.heads[3 * i + 1] = 0.6f;
    m.tails[3 * i + 1] = 0.6f;
  }
  for (int method = 0; method < 3; ++method) {
    sk_skin* s = skt_new_skin(m.nv, 2);
    sk_bind_desc d = skt_bind_desc_for(&m, (sk_bind_method)method);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, m.nv, 2, 4, 1);
    /* bones beside the tube: weak heat (large distances, larger still where the surface faces away from the
     * bones) and half the tube unseen, so heat blends wide; the ends still go mostly to their bone (0.43 at the
     * far end since lines through a vertex of the near wall are blocked: they used to slip through it) */
    check_layout_min(&m, s, m.nv, 24, 40, method == 1 ? 0.7f : 0.5f, method == 1 ? 0.25f : 0.45f);
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(skeleton_bones_match_explicit_segments) {
  /* chain of 3 joints along +x at 0, 2/3, 4/3: the leaf extends its parent direction to 2 */
  float local[48];
  for (int j = 0; j < 3; ++j) {
    memset(local + 16 * j, 0, 16 * sizeof(float));
    for (int k = 0; k < 4; ++k) local[16 * j + 5 * k] = 1.0f;
    local[16 * j + 12] = j ? 2.0f / 3.0f : 0.0f;
  }
  int32_t parents[3] = {-1, 0, 1};
  sk_skeleton_desc sd = {.size = sizeof sd, .joint_count = 3, .parents = parents, .rest_local = local};
  sk_skeleton* sk = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skeleton_create(&sd, &sk, &err), SK_OK);
  float h[9], t[9];
  ck_assert_int_eq(sk_skeleton_bone_segments(sk, SK_BONE_SPACE_REST, h, t, &err), SK_OK);
  ck_assert_float_eq_tol(t[0], 2.0f / 3.0f, 1e-6f);
  ck_assert_float_eq_tol(h[6], 4.0f / 3.0f, 1e-6f);
  ck_assert_float_eq_tol(t[6], 2.0f, 1e-6f);
  float hb[9], tb[9];
  ck_assert_int_eq(sk_skeleton_bone_segments(sk, SK_BONE_SPACE_BIND, hb, tb, &err), SK_OK);
  ck_assert_mem_eq(hb, h, sizeof h); /* no bind matrices given: bind = rest */
  ck_assert_mem_eq(tb, t, sizeof t);
  ck_assert_int_eq(sk_skeleton_bone_segments(NULL, SK_BONE_SPACE_REST, h, t, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_skeleton_bone_segments(sk, 2, h, t, &err), SK_ERR_INVALID_ARGUMENT);

  mesh m = skt_bind_cylinder(16, 30, 3);
  sk_skin* a = skt_new_skin(m.nv, 3);
  sk_skin* b = skt_new_skin(m.nv, 3);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_HEAT);
  ck_assert_int_eq(sk_bind(&d, a, NULL, &err), SK_OK);
  d.heads = d.tails = NULL;
  d.joint_count = 0;
  d.skeleton = sk;
  ck_assert_int_eq(sk_bind(&d, b, NULL, &err), SK_OK);
  for (size_t v = 0; v < m.nv; ++v)
    for (uint32_t j = 0; j < 3; ++j) ck_assert_float_eq_tol(weight_of(a, v, j), weight_of(b, v, j), 1e-4f);
  d.heads = m.heads; /* both a skeleton and heads: ambiguous */
  ck_assert_int_eq(sk_bind(&d, b, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  d.heads = NULL;
  d.bone_space = 2;
  ck_assert_int_eq(sk_bind(&d, b, NULL, &err), SK_ERR_INVALID_ARGUMENT);

  /* a mesh bound 5 units up: bind matrices = rest world moved by +5 y, mesh positions moved the same way */
  float bind[48];
  for (int j = 0; j < 3; ++j) {
    memset(bind + 16 * j, 0, 16 * sizeof(float));
    for (int k = 0; k < 4; ++k) bind[16 * j + 5 * k] = 1.0f;
    bind[16 * j + 12] = 2.0f / 3.0f * (float)j;
    bind[16 * j + 13] = 5.0f;
  }
  sk_skeleton_desc sb = {.size = sizeof sb, .joint_count = 3, .parents = parents, .rest_local = local, .bind = bind};
  sk_skeleton* moved = NULL;
  ck_assert_int_eq(sk_skeleton_create(&sb, &moved, &err), SK_OK);
  ck_assert_int_eq(sk_skeleton_bone_segments(moved, SK_BONE_SPACE_BIND, hb, tb, &err), SK_OK);
  ck_assert_float_eq_tol(hb[7], 5.0f, 1e-5f);
  ck_assert_float_eq_tol(tb[6], 2.0f, 1e-5f);
  ck_assert_float_eq_tol(tb[7], 5.0f, 1e-5f);
  float* up = malloc(m.nv * 3 * sizeof(float));
  for (size_t i = 0; i < 3 * m.nv; ++i) up[i] = m.pos[i] + (i % 3 == 1 ? 5.0f : 0.0f);
  d.positions = up;
  d.skeleton = moved;
  d.bone_space = SK_BONE_SPACE_BIND;
  ck_assert_int_eq(sk_bind(&d, b, NULL, &err), SK_OK);
  for (size_t v = 0; v < m.nv; ++v)
    for (uint32_t j = 0; j < 3; ++j) ck_assert_float_eq_tol(weight_of(a, v, j), weight_of(b, v, j), 1e-3f);
  d.bone_space = SK_BONE_SPACE_REST; /* rest bones sit 5 units below the mesh: heat sees nothing useful */
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  ck_assert_int_eq(sk_bind(&d, b, &rep, &err), SK_OK);
  skt_check_bind_weights(b, m.nv, 3, 4, 1);
  float diff = 0.0f;
  for (size_t v = 0; v < m.nv; ++v) diff += fabsf(weight_of(a, v, 0) - weight_of(b, v, 0));
  ck_assert_float_gt(diff / (float)m.nv, 0.05f);
  free(up);
  sk_skeleton_destroy(moved);
  sk_skin_destroy(a);
  sk_skin_destroy(b);
  sk_skeleton_destroy(sk);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(deform_mask_locks_and_vertex_mask) {
  mesh m = skt_bind_cylinder(16, 30, 3);
  for (int method = 0; method < 3; ++method) {
    sk_error err;
    /* deform mask: joint 1 gets nothing, the others cover everything */
    sk_skin* s = skt_new_skin(m.nv, 3);
    uint8_t deform[3] = {1, 0, 1};
    sk_bind_desc d = skt_bind_desc_for(&m, (sk_bind_method)method);
    d.deform = deform;
    ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_OK);
    skt_check_bind_weights(s, m.nv, 3, 4, 1);
    for (size_t v = 0; v < m.nv; ++v) ck_assert_float_eq(weight_of(s, v, 1), 0.0f);
    sk_skin_destroy(s);

    /* vertex mask + locked joint over the cylinder's own rig weights */
    sk_cylinder_desc cd = {.size = sizeof cd, .segments = 16, .rings = 30, .bones = 3, .radius = 0.25f, .length = 2.0f};
    sk_skin* orig = skt_new_skin(m.nv, 3);
    ck_assert_int_eq(sk_mesh_cylinder(&cd, NULL, NULL, NULL, NULL, NULL, orig, &err), SK_OK);
    sk_skin* w = NULL;
    ck_assert_int_eq(sk_skin_clone(orig, &w, &err), SK_OK);
    uint8_t* mask = calloc(m.nv, 1);
    for (size_t v = 0; v < m.nv; v += 2) mask[v] = 1;
    uint8_t locked[3] = {0, 1, 0};
    d = skt_bind_desc_for(&m, (sk_bind_method)method);
    d.vertex_mask = mask;
    d.locked = locked;
    sk_bind_report rep;
    memset(&rep, 0, sizeof rep);
    rep.size = sizeof rep;
    ck_assert_int_eq(sk_bind(&d, w, &rep, &err), SK_OK);
    ck_assert_uint_eq(rep.bound_vertices, (m.nv + 1) / 2);
    skt_check_bind_weights(w, m.nv, 3, 4, 0); /* the rig's own weights are not sorted */
    for (size_t v = 0; v < m.nv; ++v) {
      ck_assert_float_eq(weight_of(w, v, 1), weight_of(orig, v, 1)); /* locked or unmasked: kept */
      if (!mask[v])
        for (uint32_t j = 0; j < 3; ++j) ck_assert_float_eq(weight_of(w, v, j), weight_of(orig, v, j));
    }
    /* a masked vertex near x = 0 was re-bound to bone 0 */
    ck_assert_float_gt(weight_of(w, 0, 0), 0.9f);
    free(mask);
    sk_skin_destroy(w);
    sk_skin_destroy(orig);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(max_influences_limit) {
  mesh m = skt_bind_cylinder(16, 60, 8);
  for (int method = 0; method < 3; ++method) {
    sk_skin* s = skt_new_skin(m.nv, 8);
    sk_bind_desc d = skt_bind_desc_for(&m, (sk_bind_method)method);
    d.max_influences = 2;
    d.prune = -1.0f;
    sk_error err;
    ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_OK);
    skt_check_bind_weights(s, m.nv, 8, 2, 1);
    check_layout_min(&m, s, m.nv, 16, 60, 0.75f, 0.01f); /* bones shorter than the radius blend wider */
    sk_skin_destroy(s);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

/* The default prune (desc.prune 0) drops only weights below one 8-bit step (1/255) of the vertex's largest: a
 * weight an 8-bit file can store is kept (artists' weights carry such weights: huesitos.fbx down to 0.34 % of the
 * vertex's largest). Heat on an 8-bone chain (4 influences a vertex) gives 32 weights between 1/255 and 1/100 of the
 * largest. */
START_TEST(default_prune_keeps_what_8_bits_store) {
  mesh m = skt_bind_cylinder(16, 60, 8);
  sk_skin* s = skt_new_skin(m.nv, 8);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_HEAT);
  sk_error err;
  ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_OK);
  size_t small = 0;
  for (size_t v = 0; v < m.nv; ++v) {
    uint32_t jt[8];
    float w[8], top = 0.0f;
    size_t n = sk_skin_get_vertex(s, v, jt, w, 8);
    for (size_t i = 0; i < n; ++i) top = w[i] > top ? w[i] : top;
    for (size_t i = 0; i < n; ++i) {
      ck_assert_float_ge(w[i], top / 255.0f * 0.999f);
      small += w[i] < 0.01f * top;
    }
  }
  ck_assert_uint_gt(small, 0); /* the former default (0.01) would have dropped these */
  sk_skin_destroy(s);
  skt_bind_mesh_free(&m);
}
END_TEST

static void expect_untouched(const sk_skin* s, const sk_skin* ref) {
  ck_assert_uint_eq(sk_skin_influence_count(s), sk_skin_influence_count(ref));
  for (size_t v = 0; v < sk_skin_vertex_count(ref); ++v)
    for (uint32_t j = 0; j < sk_skin_joint_count(ref); ++j)
      ck_assert_float_eq(weight_of(s, v, j), weight_of(ref, v, j));
}

START_TEST(error_paths_leave_the_skin_untouched) {
  mesh m = skt_bind_cylinder(8, 4, 2);
  sk_cylinder_desc cd = {.size = sizeof cd, .segments = 8, .rings = 4, .bones = 2, .radius = 0.25f, .length = 2.0f};
  sk_skin* ref = skt_new_skin(m.nv, 2);
  sk_error err;
  ck_assert_int_eq(sk_mesh_cylinder(&cd, NULL, NULL, NULL, NULL, NULL, ref, &err), SK_OK);
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_clone(ref, &s, &err), SK_OK);
  for (int method = 0; method < 3; ++method) {
    sk_bind_desc d = skt_bind_desc_for(&m, (sk_bind_method)method);
    ck_assert_int_eq(sk_bind(NULL, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(sk_bind(&d, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    sk_bind_desc bad = d;
    bad.size = 8;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_STRUCT_SIZE);
    sk_bind_report rep = {0};
    ck_assert_int_eq(sk_bind(&d, s, &rep, &err), SK_ERR_STRUCT_SIZE);
    bad = d;
    bad.joint_count = 3; /* skin has 2 */
    float h3[9] = {0}, t3[9] = {1, 0, 0, 1, 0, 0, 1, 0, 0};
    bad.heads = h3;
    bad.tails = t3;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    ck_assert(strstr(err.message, "joints") != NULL);
    bad = d;
    bad.vertex_count = m.nv - 1;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    bad = d;
    bad.positions = NULL;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    bad = d;
    bad.heads = NULL;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    bad = d;
    bad.triangles = NULL;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    bad = d;
    bad.method = 7;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    bad = d;
    bad.max_influences = 256;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_OUT_OF_RANGE);
    bad = d;
    bad.falloff_cutoff = 0.5f;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    uint8_t none[2] = {0, 0};
    bad = d;
    bad.deform = none;
    ck_assert_int_eq(sk_bind(&bad, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);

    float saved = m.pos[7];
    m.pos[7] = NAN;
    ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    ck_assert(strstr(err.message, "vertex 2") != NULL);
    m.pos[7] = INFINITY;
    ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    m.pos[7] = saved;
    float hs = m.heads[0];
    m.heads[0] = NAN;
    ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_ERR_INVALID_ARGUMENT);
    m.heads[0] = hs;
    uint32_t st = m.tri[5];
    m.tri[5] = (uint32_t)m.nv;
    ck_assert_int_eq(sk_bind(&d, s, NULL, &err), SK_ERR_OUT_OF_RANGE);
    ck_assert(strstr(err.message, "triangle 1") != NULL);
    m.tri[5] = st;
    expect_untouched(s, ref);
  }
  sk_skin_destroy(s);
  sk_skin_destroy(ref);
  skt_bind_mesh_free(&m);
}
END_TEST

START_TEST(degenerate_geometry_is_robust) {
  /* all vertices at one point, triangles of zero area, a bone of zero length */
  float pos[12] = {0};
  uint32_t tri[6] = {0, 1, 2, 1, 2, 3};
  float heads[6] = {0, 0, 0, 1, 0, 0}, tails[6] = {0, 0, 0, 2, 0, 0};
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.positions = pos;
  d.vertex_count = 4;
  d.triangles = tri;
  d.triangle_count = 2;
  d.heads = heads;
  d.tails = tails;
  d.joint_count = 2;
  for (int method = 0; method < 3; ++method) {
    d.method = (uint32_t)method;
    sk_skin* s = skt_new_skin(4, 2);
    sk_error err;
    ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
    skt_check_bind_weights(s, 4, 2, 4, 1);
    for (size_t v = 0; v < 4; ++v) ck_assert_float_eq(weight_of(s, v, 0), 1.0f);
    sk_skin_destroy(s);
  }
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("bind");
  TCase* t = tcase_create("methods");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, nearest_blended_cylinders);
  tcase_add_test(t, nearest_rigid_cylinders);
  tcase_add_test(t, heat_cylinders);
  tcase_add_test(t, robust_cylinders);
  tcase_add_test(t, heat_blends_smoothly_across_the_joint);
  tcase_add_test(t, heat_with_loose_cubes_weights_everything);
  tcase_add_test(t, report_per_joint_fallback_and_shares);
  tcase_add_test(t, isolated_vertices_and_unwelded_caps);
  tcase_add_test(t, point_cloud_falls_back_to_nearest);
  tcase_add_test(t, heat_gives_unseen_parts_the_nearest_bone);
  tcase_add_test(t, touching_shells_keep_their_own_bones);
  tcase_add_test(t, corner_split_mesh_with_turned_faces_binds_as_one_surface);
  tcase_add_test(t, touching_boxes_of_a_soup_keep_their_own_bones);
  tcase_add_test(t, scale_invariance);
  tcase_add_test(t, translation_invariance);
  tcase_add_test(t, copies_a_rounding_apart_weld_as_identical_ones);
  tcase_add_test(t, bones_outside_the_mesh);
  tcase_add_test(t, skeleton_bones_match_explicit_segments);
  tcase_add_test(t, deform_mask_locks_and_vertex_mask);
  tcase_add_test(t, max_influences_limit);
  tcase_add_test(t, default_prune_keeps_what_8_bits_store);
  suite_add_tcase(s, t);
  TCase* e = tcase_create("errors");
  tcase_add_test(e, error_paths_leave_the_skin_untouched);
  tcase_add_test(e, degenerate_geometry_is_robust);
  suite_add_tcase(s, e);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
