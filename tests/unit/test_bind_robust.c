/* test_bind_robust.c - what the robust method adds over bone heat (issue 17): parts no bone sees (a sleeve over an
 * arm, a plate over the body, a ring around it) follow the body under them instead of the nearest bone.
 *
 * The generated case: the 3-bone cylinder arm (tests/util/sk_bindmesh.h) in a sleeve, an open tube over its middle
 * 15 % wider, so every line from a sleeve vertex to a bone crosses the arm: bone heat sees nothing of it. The
 * reference an artist would paint is the arm's weights under each sleeve vertex (the vertex it was copied from).
 * Measured: the weight difference to that reference and, bending the elbow 60 degrees with LBS, how far each
 * sleeve vertex moves from where it sits relative to its arm vertex (the sleeve cutting into the arm or lifting). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_bindmesh.h"
#include "skc_bind.h"
#include "sk_hardcases.h"
#include "sk_testutil.h"
#include "skinkit.h"

#define MAXW 16

typedef skt_bind_mesh mesh;

static void weights_of(const sk_skin* s, size_t v, float out[3]) {
  uint32_t j[MAXW];
  float w[MAXW];
  size_t n = sk_skin_get_vertex(s, v, j, w, MAXW);
  out[0] = out[1] = out[2] = 0.0f;
  for (size_t i = 0; i < n; ++i)
    if (j[i] < 3) out[j[i]] += w[i];
}

/* The arm and its sleeve: an open tube over the side rings with 0.3 <= x <= 1.7 (both joints), 15 % wider. The
 * arm's vertices come first; sleeve vertex nv0 + i copies arm vertex src[i] (returned, *count of them). */
static mesh arm_in_sleeve(uint32_t** src_out, size_t* count) {
  const uint32_t S = 24, R = 48;
  mesh m = skt_bind_cylinder(S, R, 3);
  size_t n = m.nv, nt = m.nt, side = (size_t)(R + 1) * S, k = 0;
  uint32_t* map = malloc(n * sizeof *map);
  uint32_t* src = malloc(n * sizeof *src);
  ck_assert_ptr_nonnull(map);
  ck_assert_ptr_nonnull(src);
  for (size_t v = 0; v < n; ++v) {
    const float* p = m.pos + 3 * v;
    map[v] = UINT32_MAX;
    if (v >= side || p[0] < 0.3f || p[0] > 1.7f) continue;
    float* q = m.pos + 3 * (n + k);
    q[0] = p[0]; /* the line from q to its bone passes exactly through arm vertex v: it must still be blocked */
    q[1] = p[1] * 1.15f;
    q[2] = p[2] * 1.15f;
    src[k] = (uint32_t)v;
    map[v] = (uint32_t)(n + k++);
  }
  for (size_t t = 0; t < nt; ++t) {
    const uint32_t* tv = m.tri + 3 * t;
    if (map[tv[0]] == UINT32_MAX || map[tv[1]] == UINT32_MAX || map[tv[2]] == UINT32_MAX) continue;
    for (int c = 0; c < 3; ++c) m.tri[3 * m.nt + c] = map[tv[c]];
    ++m.nt;
  }
  m.nv = n + k;
  free(map);
  *src_out = src;
  *count = k;
  return m;
}

/* LBS of p with weights w: bone 0 stays, bones 1 and 2 turn by `deg` about z around the elbow (x = 2/3). */
static void bend(const float p[3], const float w[3], float deg, float out[3]) {
  float a = deg * 3.14159265f / 180.0f, c = cosf(a), s = sinf(a), ex = 2.0f / 3.0f;
  float r[3] = {ex + c * (p[0] - ex) - s * p[1], s * (p[0] - ex) + c * p[1], p[2]};
  float moved = w[1] + w[2], sum = w[0] + moved;
  for (int k = 0; k < 3; ++k) out[k] = (w[0] * p[k] + moved * r[k]) / sum;
}

typedef struct sleeve_score {
  double weight_err;  /* mean 1/2 L1 to the arm vertex's weights */
  double drift_mean;  /* bent: mean change of the sleeve-to-arm offset, in % of the arm's radius */
  double drift_max;
  uint64_t fallback;  /* the report's fallback vertices */
} sleeve_score;

static sleeve_score score(const mesh* m, const uint32_t* src, size_t n, sk_bind_method method) {
  size_t first = m->nv - n;
  sk_skin* s = skt_new_skin(m->nv, 3);
  sk_bind_desc d = skt_bind_desc_for(m, method);
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, &rep, &err) == SK_OK, "%s", err.message);
  skt_check_bind_weights(s, m->nv, 3, 4, 1);
  sleeve_score sc = {0, 0, 0, rep.fallback_vertices};
  for (size_t i = 0; i < n; ++i) {
    size_t v = src[i], sv = first + i;
    float wa[3], ws[3], pa[3], ps[3];
    weights_of(s, v, wa);
    weights_of(s, sv, ws);
    sc.weight_err += 0.5 * (fabs(wa[0] - ws[0]) + fabs(wa[1] - ws[1]) + fabs(wa[2] - ws[2]));
    bend(m->pos + 3 * v, wa, 60.0f, pa);
    bend(m->pos + 3 * sv, ws, 60.0f, ps);
    /* the offset sleeve - arm, bent, against the rest offset turned by the arm vertex's own blend of the turn */
    float rest[3], rot[3], zero[3] = {0, 0, 0}, origin[3];
    for (int k = 0; k < 3; ++k) rest[k] = m->pos[3 * sv + k] - m->pos[3 * v + k];
    bend(rest, wa, 60.0f, rot);
    bend(zero, wa, 60.0f, origin);
    double e2 = 0.0;
    for (int k = 0; k < 3; ++k) {
      double e = (double)(ps[k] - pa[k]) - (double)(rot[k] - origin[k]);
      e2 += e * e;
    }
    double e = 100.0 * sqrt(e2) / 0.25;
    sc.drift_mean += e;
    if (e > sc.drift_max) sc.drift_max = e;
  }
  sc.weight_err /= (double)n;
  sc.drift_mean /= (double)n;
  sk_skin_destroy(s);
  return sc;
}

START_TEST(sleeve_follows_the_arm) {
  size_t n;
  uint32_t* src;
  mesh m = arm_in_sleeve(&src, &n);
  sleeve_score heat = score(&m, src, n, SK_BIND_HEAT), robust = score(&m, src, n, SK_BIND_ROBUST);
  printf("sleeve over the arm (%zu + %zu vertices): heat (nearest-bone fallback) weight err %.4f, drift mean %.2f %% "
         "max %.2f %% of the radius; robust %.4f, %.2f %%, %.2f %%\n",
         m.nv - n, n, heat.weight_err, heat.drift_mean, heat.drift_max, robust.weight_err, robust.drift_mean,
         robust.drift_max);
  fflush(stdout);
  ck_assert_uint_ge(heat.fallback, n); /* the sleeve is invisible to the heat: the whole of it falls back */
  ck_assert_uint_ge(robust.fallback, n);
  ck_assert_double_lt(robust.weight_err, 0.02);
  ck_assert_double_lt(robust.drift_max, 5.0);
  ck_assert_double_lt(robust.drift_mean, 0.5 * heat.drift_mean);
  ck_assert_double_lt(robust.weight_err, 0.5 * heat.weight_err);
  free(src);
  skt_bind_mesh_free(&m);
}
END_TEST

/* A small part no bone sees (a 4 cm ring around the arm's middle bone, outside the skin) moves rigidly with the
 * body's weights at its centroid: all its vertices the same weights; so does a prop 3 units away (the skin under it
 * is still closer than any bone). */
START_TEST(small_parts_move_as_one) {
  mesh m = skt_bind_cylinder(24, 48, 3);
  size_t n = m.nv;
  m.pos = realloc(m.pos, (n + 16) * 3 * sizeof(float));
  m.tri = realloc(m.tri, (m.nt + 24) * 3 * sizeof(uint32_t));
  static const uint32_t faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                        {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  const float lo[2][3] = {{1.0f, 0.27f, -0.02f}, {1.0f, 3.0f, 0.0f}}; /* a stud on the skin; a prop 3 units away */
  for (int b = 0; b < 2; ++b) {
    for (int k = 0; k < 8; ++k) {
      int bits[3] = {(k == 1 || k == 2 || k == 5 || k == 6), (k == 2 || k == 3 || k == 6 || k == 7), k >= 4};
      for (int q = 0; q < 3; ++q) m.pos[3 * (m.nv + (size_t)k) + q] = lo[b][q] + (bits[q] ? 0.04f : 0.0f);
    }
    for (int f = 0; f < 12; ++f)
      for (int q = 0; q < 3; ++q) m.tri[3 * m.nt + 3 * (size_t)f + q] = (uint32_t)m.nv + faces[f][q];
    m.nv += 8;
    m.nt += 12;
  }
  sk_skin* s = skt_new_skin(m.nv, 3);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_ROBUST);
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
  skt_check_bind_weights(s, m.nv, 3, 4, 1);
  float first[3], w[3];
  weights_of(s, n, first);
  for (size_t v = n + 1; v < n + 8; ++v) {
    weights_of(s, v, w);
    for (int k = 0; k < 3; ++k) ck_assert_float_eq_tol(w[k], first[k], 1e-6f);
  }
  ck_assert_float_gt(first[1], 0.9f); /* x = 1.0 .. 1.04: the middle bone's, as the skin under it */
  weights_of(s, n + 8, w); /* the prop: the middle bone's too (x = 1.0 .. 1.04) */
  ck_assert_float_gt(w[1], 0.5f);
  sk_skin_destroy(s);
  skt_bind_mesh_free(&m);
}
END_TEST

/* The generated "multipart" case (sk_hardcases.c) loaded from a fresh temporary folder, bound by method into *out. */
typedef struct multipart {
  char dir[64];
  sk_scene* scene;
  float* pos;
  uint32_t* idx;
  size_t nv, ni;
  sk_skin* out;
} multipart;

static multipart bind_multipart(sk_bind_method method) {
  multipart m;
  memset(&m, 0, sizeof m);
  char path[256];
  snprintf(m.dir, sizeof m.dir, "/tmp/skinkit_test_multipart.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(m.dir));
  sk_error err = {0};
  ck_assert_msg(!skt_write_hard_cases(m.dir, &err), "%s", err.message);
  snprintf(path, sizeof path, "%s/multipart.glb", m.dir);
  ck_assert_msg(!sk_scene_load(path, NULL, &m.scene, &err), "%s", err.message);
  m.nv = sk_scene_mesh_vertex_count(m.scene, 0);
  m.ni = sk_scene_mesh_index_count(m.scene, 0);
  m.pos = malloc(m.nv * 3 * sizeof *m.pos);
  m.idx = malloc(m.ni * sizeof *m.idx);
  ck_assert(sk_scene_mesh_positions(m.scene, 0, m.pos, m.nv * 3) == m.nv * 3);
  ck_assert(sk_scene_mesh_indices(m.scene, 0, m.idx, m.ni) == m.ni);
  ck_assert(!sk_skin_create(m.nv, 3, &m.out, &err));
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.method = method;
  d.positions = m.pos;
  d.vertex_count = m.nv;
  d.triangles = m.idx;
  d.triangle_count = m.ni / 3;
  d.skeleton = sk_scene_skeleton(m.scene);
  ck_assert_msg(!sk_bind(&d, m.out, NULL, &err), "%s", err.message);
  return m;
}

static void multipart_free(multipart* m) {
  char cmd[128];
  free(m->pos);
  free(m->idx);
  sk_skin_destroy(m->out);
  sk_scene_destroy(m->scene);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", m->dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* A bone running through two overlapping closed parts (an arm and a closed sleeve whose caps cut through it: the
 * generated "multipart" case) is inside the mesh: the heat pass once took it for a placement bone (even crossing
 * count), so it emitted no heat and the arm inside the sleeve went to the neighbouring bones. */
START_TEST(bone_through_overlapping_parts_emits_heat) {
  multipart m = bind_multipart(SK_BIND_HEAT);
  size_t checked = 0, on_middle = 0;
  for (size_t v = 0; v < m.nv; ++v) {
    const float* p = m.pos + 3 * v;
    if (!(p[0] > 1.3f && p[0] < 1.45f) || hypotf(p[1], p[2]) > 0.26f) continue; /* the arm inside the sleeve */
    float w[3];
    weights_of(m.out, v, w);
    ++checked;
    on_middle += w[1] > 0.8f; /* before the fix: 0 (0.7 upper, 0.3 hand) */
  }
  ck_assert_uint_gt(checked, 30);
  ck_assert_msg(on_middle == checked, "%zu of %zu arm vertices inside the sleeve on the middle bone", on_middle,
                checked);
  multipart_free(&m);
}
END_TEST

/* The same closed sleeve under robust: only its cap vertices inside the arm see a bone, and heat spread from them
 * over the whole sleeve once gave it weights far from the arm's under it (mean half-L1 error 0.27). It is a shell
 * over the body now, and takes the body's weights like the open sleeve above. */
START_TEST(closed_sleeve_seen_through_its_caps_takes_the_arm_weights) {
  multipart m = bind_multipart(SK_BIND_ROBUST);
  sk_skin* ref = sk_scene_mesh_skin(m.scene, 0);
  ck_assert_ptr_nonnull(ref);
  double err = 0.0;
  size_t count = 0;
  for (size_t v = 0; v < m.nv; ++v) {
    const float* p = m.pos + 3 * v;
    if (p[0] < 0.5f || p[0] > 1.5f || hypotf(p[1], p[2]) < 0.27f) continue; /* the sleeve's outer surface */
    float w[3], r[3];
    weights_of(m.out, v, w);
    weights_of(ref, v, r);
    err += 0.5 * (fabs(w[0] - r[0]) + fabs(w[1] - r[1]) + fabs(w[2] - r[2]));
    ++count;
  }
  ck_assert_uint_gt(count, 100);
  fprintf(stderr, "closed sleeve: %zu vertices, mean weight error %.4f\n", count, err / (double)count);
  ck_assert_double_lt(err / (double)count, 0.05);
  multipart_free(&m);
}
END_TEST

/* The last step of robust (core/bind_branches.c) on candidate lists: joints 0 pelvis, 1 left thigh, 2 right thigh,
 * 3 left shin (under 1). Weight two branches pull on one vertex goes to where they meet; a chain's blend stays. */
static void merged(const uint8_t* deform, const uint8_t* locked, uint32_t n, const uint32_t* j, const float* w,
                   uint32_t want_n, const uint32_t* want_j, const float* want_w) {
  static const int32_t parents[4] = {-1, 0, 0, 1};
  skc_bind_desc d = {0};
  d.joint_count = 4;
  d.parents = parents;
  d.deform = deform;
  d.locked = locked;
  uint32_t cj[4] = {0}, count = n;
  float cw[4] = {0};
  memcpy(cj, j, n * sizeof *j);
  memcpy(cw, w, n * sizeof *w);
  skc_bind_cands c = {1, 4, &count, cj, cw, NULL};
  ck_assert_int_eq(skc_bind_merge_branches(&d, &c), SKC_OK);
  ck_assert_uint_eq(count, want_n);
  for (uint32_t i = 0; i < want_n; ++i) {
    ck_assert_uint_eq(cj[i], want_j[i]);
    ck_assert_msg(fabsf(cw[i] - want_w[i]) < 1e-6f, "weight %u: %g, wanted %g", i, (double)cw[i], (double)want_w[i]);
  }
}

START_TEST(weight_between_two_branches_goes_where_they_meet) {
  /* a crotch: both thighs alike -> the pelvis */
  merged(NULL, NULL, 2, (uint32_t[]){1, 2}, (float[]){0.5f, 0.5f}, 1, (uint32_t[]){0}, (float[]){1.0f});
  /* leaning to one leg: the smaller pull twice to the pelvis, the rest stays */
  merged(NULL, NULL, 2, (uint32_t[]){1, 2}, (float[]){0.7f, 0.3f}, 2, (uint32_t[]){0, 1}, (float[]){0.6f, 0.4f});
  /* the smaller pull at most SKC_BRANCH_SHARE of the vertex: left as heat gave it */
  merged(NULL, NULL, 2, (uint32_t[]){1, 2}, (float[]){0.85f, 0.15f}, 2, (uint32_t[]){1, 2}, (float[]){0.85f, 0.15f});
  /* along one chain (knee: thigh and shin): untouched */
  merged(NULL, NULL, 2, (uint32_t[]){3, 1}, (float[]){0.5f, 0.5f}, 2, (uint32_t[]){3, 1}, (float[]){0.5f, 0.5f});
  /* shin and the other thigh meet at the pelvis too; the pelvis already a candidate takes it */
  merged(NULL, NULL, 3, (uint32_t[]){3, 2, 0}, (float[]){0.4f, 0.4f, 0.2f}, 1, (uint32_t[]){0}, (float[]){1.0f});
  /* a pelvis that does not deform, or is locked, with nothing above it: nowhere to go */
  const uint8_t no_pelvis[4] = {0, 1, 1, 1};
  merged(no_pelvis, NULL, 2, (uint32_t[]){1, 2}, (float[]){0.5f, 0.5f}, 2, (uint32_t[]){1, 2}, (float[]){0.5f, 0.5f});
  const uint8_t pelvis_locked[4] = {1, 0, 0, 0};
  merged(NULL, pelvis_locked, 2, (uint32_t[]){1, 2}, (float[]){0.5f, 0.5f}, 2, (uint32_t[]){1, 2},
         (float[]){0.5f, 0.5f});
}
END_TEST

/* A four-legged trunk: 0 a root bone from the floor up to the spine, 1-2 spine bones along +z, 3 / 4 the front
 * legs hanging from 2, 5 the spine going on past them, 6 the neck, 7 the head (a leaf). */
static const int32_t trunk_parents[8] = {-1, 0, 1, 2, 2, 2, 5, 6};
static const float trunk_heads[24] = {0, 0, 0,     0, 1, 0,     0, 1, 1, 0.5f, 1, 1.9f,
                                     -0.5f, 1, 1.9f, 0, 1, 2, 0, 1, 3, 0, 1.3f, 4};
static const float trunk_tails[24] = {0, 1, 0,     0, 1, 1,     0, 1, 2, 0.5f, 0, 1.9f,
                                     -0.5f, 0, 1.9f, 0, 1, 3, 0, 1.3f, 4, 0, 1.5f, 4.5f};

/* The candidates {legs 3 and 4 at 0.5 each} of a vertex at p after the merge, as weights per joint. */
static void trunk_merge(float x, float y, float z, float* per_joint) {
  const float p[3] = {x, y, z};
  skc_bind_desc d = {0};
  d.joint_count = 8;
  d.parents = trunk_parents;
  d.heads = trunk_heads;
  d.tails = trunk_tails;
  d.positions = p;
  d.vertex_count = 1;
  uint32_t cj[4] = {3, 4}, count = 2;
  float cw[4] = {0.5f, 0.5f};
  skc_bind_cands c = {1, 4, &count, cj, cw, NULL};
  ck_assert_int_eq(skc_bind_merge_branches(&d, &c), SKC_OK);
  memset(per_joint, 0, 8 * sizeof *per_joint);
  float sum = 0.0f;
  for (uint32_t i = 0; i < count; ++i) per_joint[cj[i]] += cw[i], sum += cw[i];
  ck_assert_msg(fabsf(sum - 1.0f) < 1e-6f, "sum %g", (double)sum);
}

static uint32_t heaviest(const float* per_joint, uint32_t n) {
  uint32_t best = 0;
  for (uint32_t j = 1; j < n; ++j)
    if (per_joint[j] > per_joint[best]) best = j;
  return best;
}

/* Weight the legs pull goes to the trunk bone the vertex lies under, which need not be the one the legs hang from:
 * the spine past the legs (5) for a chest below it, with some to the neck beside it; an earlier spine bone (1) for a
 * belly under it, but never the root bone from the floor (0), though that one is nearer in space; the legs keep
 * nothing. A limb's bones pull as one: a left thigh and shin at 0.25 + 0.15 against a right thigh at 0.6 give the
 * pelvis 0.8 (pairs of single joints gave it 0.5). */
START_TEST(pulled_weight_goes_to_the_trunk_bone_under_the_vertex) {
  float w[8];
  trunk_merge(0.0f, 0.3f, 2.6f, w);
  ck_assert_uint_eq(heaviest(w, 8), 5);
  ck_assert_float_gt(w[5], 0.6f);
  ck_assert_float_gt(w[6], 0.0f);
  ck_assert_float_eq(w[3] + w[4], 0.0f);
  trunk_merge(0.0f, 0.3f, 1.4f, w);
  ck_assert_uint_eq(heaviest(w, 8), 2);
  trunk_merge(0.0f, 0.3f, 0.3f, w);
  ck_assert_uint_eq(heaviest(w, 8), 1);
  ck_assert_float_eq(w[0], 0.0f);
  ck_assert_float_eq(w[3] + w[4], 0.0f);
  merged(NULL, NULL, 3, (uint32_t[]){2, 1, 3}, (float[]){0.6f, 0.25f, 0.15f}, 2, (uint32_t[]){0, 2},
         (float[]){0.8f, 0.2f});
}
END_TEST

/* A bone lying along another (a rig's mechanism or IK bone beside the forearm it drives, a sibling twist bone) is one
 * limb with it, not a second branch: a vertex weighted to both keeps its weights. Joints: 0 upper arm, 1 forearm, 2
 * a shorter bone along the forearm (both children of 0), 3 a branch of 0 at a right angle. (The forearm of an
 * auditor's rig went to the upper arm whole: bending the elbow 90 degrees moved it 2 mm, Blender's 0.19 m.) */
START_TEST(a_bone_along_another_is_no_second_branch) {
  static const int32_t parents[4] = {-1, 0, 0, 0};
  static const float heads[12] = {0, 0, 0, 1, 0, 0, 1.02f, 0.01f, 0, 1, 0, 0};
  static const float tails[12] = {1, 0, 0, 2, 0, 0, 1.9f, 0.02f, 0, 1, 1, 0};
  const float p[3] = {1.5f, 0.2f, 0.0f};
  const uint32_t pairs[2][2] = {{1, 2}, {1, 3}};
  for (int k = 0; k < 2; ++k) {
    skc_bind_desc d = {0};
    d.joint_count = 4;
    d.parents = parents;
    d.heads = heads;
    d.tails = tails;
    d.positions = p;
    d.vertex_count = 1;
    uint32_t cj[4] = {pairs[k][0], pairs[k][1]}, count = 2;
    float cw[4] = {0.5f, 0.5f};
    skc_bind_cands c = {1, 4, &count, cj, cw, NULL};
    ck_assert_int_eq(skc_bind_merge_branches(&d, &c), SKC_OK);
    if (k == 0) { /* along one another: untouched */
      ck_assert_uint_eq(count, 2);
      ck_assert_msg(cj[0] != 0 && cj[1] != 0 && cw[0] == 0.5f && cw[1] == 0.5f, "%u %g / %u %g", cj[0], (double)cw[0],
                    cj[1], (double)cw[1]);
    } else { /* two branches: to the joint they hang from */
      ck_assert_uint_eq(count, 1);
      ck_assert_uint_eq(cj[0], 0);
    }
  }
}
END_TEST

/* A small deterministic generator (xorshift) for the property test below. */
static uint32_t xs_next(uint32_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static float xs_unit(uint32_t* s) {
  return (float)(xs_next(s) % 10001) / 10000.0f;
}

/* Random skeletons (2-24 joints; bones of any direction, zero-length ones and coincident heads included; some joints
 * not deforming or locked), candidate lists and vertex positions through the merge: every vertex keeps its
 * candidates' sum, no weight is negative or NaN, a joint that does not deform or is locked never gains weight,
 * the list stays within its stride, sorted, without zeros or repeated joints. */
START_TEST(merge_keeps_sums_on_random_skeletons) {
  uint32_t seed = 0x9e3779b9u;
  for (int round = 0; round < 3000; ++round) {
    uint32_t nj = 2 + xs_next(&seed) % 23, stride = 1 + xs_next(&seed) % 6;
    int32_t parents[24];
    float heads[72], tails[72], pos[3];
    uint8_t deform[24], locked[24];
    for (uint32_t j = 0; j < nj; ++j) {
      parents[j] = j == 0 || xs_next(&seed) % 8 == 0 ? -1 : (int32_t)(xs_next(&seed) % j);
      for (int k = 0; k < 3; ++k) {
        heads[3 * j + k] = xs_next(&seed) % 5 == 0 && j ? heads[3 * (j - 1) + k] : xs_unit(&seed) * 4.0f - 2.0f;
        tails[3 * j + k] = xs_next(&seed) % 6 == 0 ? heads[3 * j + k] : xs_unit(&seed) * 4.0f - 2.0f;
      }
      deform[j] = xs_next(&seed) % 6 != 0;
      locked[j] = xs_next(&seed) % 9 == 0;
    }
    for (int k = 0; k < 3; ++k) pos[k] = xs_unit(&seed) * 4.0f - 2.0f;
    skc_bind_desc d = {0};
    d.joint_count = nj;
    d.parents = parents;
    d.heads = heads;
    d.tails = tails;
    d.positions = pos;
    d.vertex_count = 1;
    d.deform = deform;
    d.locked = locked;
    uint32_t cj[6], count = 1 + xs_next(&seed) % stride;
    if (count > nj) count = nj;
    float cw[6], before[24] = {0}, sum0 = 0.0f;
    for (uint32_t i = 0; i < count; ++i) { /* distinct joints, sorted by weight as the methods leave them */
      uint32_t j;
      int again;
      do {
        j = xs_next(&seed) % nj;
        again = 0;
        for (uint32_t q = 0; q < i; ++q) again |= cj[q] == j;
      } while (again);
      cj[i] = j;
      cw[i] = 0.05f + xs_unit(&seed);
    }
    for (uint32_t i = 1; i < count; ++i)
      for (uint32_t k = i; k > 0 && cw[k - 1] < cw[k]; --k) {
        float tw = cw[k];
        uint32_t tj = cj[k];
        cw[k] = cw[k - 1], cj[k] = cj[k - 1];
        cw[k - 1] = tw, cj[k - 1] = tj;
      }
    for (uint32_t i = 0; i < count; ++i) before[cj[i]] = cw[i], sum0 += cw[i];
    skc_bind_cands c = {1, stride, &count, cj, cw, NULL};
    ck_assert_int_eq(skc_bind_merge_branches(&d, &c), SKC_OK);
    ck_assert_uint_le(count, stride);
    float sum1 = 0.0f, after[24] = {0};
    for (uint32_t i = 0; i < count; ++i) {
      ck_assert_msg(cw[i] > 0.0f && isfinite(cw[i]), "round %d: weight %g", round, (double)cw[i]);
      ck_assert_msg(after[cj[i]] == 0.0f, "round %d: joint %u twice", round, cj[i]);
      if (i) ck_assert_float_le(cw[i], cw[i - 1]);
      after[cj[i]] = cw[i], sum1 += cw[i];
    }
    ck_assert_msg(fabsf(sum1 - sum0) <= 1e-5f * sum0, "round %d: sum %g -> %g", round, (double)sum0, (double)sum1);
    for (uint32_t j = 0; j < nj; ++j)
      if (!deform[j] || locked[j])
        ck_assert_msg(after[j] <= before[j] * (1.0f + 1e-6f), "round %d: joint %u (deform %d, locked %d) %g -> %g",
                      round, j, deform[j], locked[j], (double)before[j], (double)after[j]);
  }
}
END_TEST

/* Weight on joint j summed over the skin, and the vertices where j1 and j2 both hold more than share. */
static double joint_total(const sk_skin* s, uint32_t j) {
  double t = 0.0;
  for (size_t v = 0; v < sk_skin_vertex_count(s); ++v) {
    float w[3];
    weights_of(s, v, w);
    t += w[j];
  }
  return t;
}

static size_t torn(const sk_skin* s, uint32_t j1, uint32_t j2, float share) {
  size_t n = 0;
  for (size_t v = 0; v < sk_skin_vertex_count(s); ++v) {
    float w[3];
    weights_of(s, v, w);
    n += w[j1] > share && w[j2] > share;
  }
  return n;
}

static sk_skin* bind_with(const mesh* m, const int32_t* parents, uint32_t size) {
  sk_bind_desc d = skt_bind_desc_for(m, SK_BIND_ROBUST);
  d.parents = parents;
  d.size = size;
  sk_skin* s = skt_new_skin(m->nv, 3);
  sk_error err;
  ck_assert_msg(sk_bind(&d, s, NULL, &err) == SK_OK, "%s", err.message);
  return s;
}

/* sk_bind_desc.parents (ABI 1.6) with heads and tails: the three-bone arm told that bones 1 and 2 both hang from
 * bone 0 (siblings) gives the vertices around their meeting point to bone 0; told the real chain, or nothing, it
 * binds as before; a desc of the 1.5 size still binds; a parent after its child is refused. */
START_TEST(heads_and_tails_with_parents) {
  mesh m = skt_bind_cylinder(24, 48, 3);
  const int32_t chain[3] = {-1, 0, 1}, siblings[3] = {-1, 0, 0}, later[3] = {-1, 2, 0};
  sk_skin* none = bind_with(&m, NULL, sizeof(sk_bind_desc));
  sk_skin* old = bind_with(&m, NULL, (uint32_t)offsetof(sk_bind_desc, parents));
  sk_skin* along = bind_with(&m, chain, sizeof(sk_bind_desc));
  sk_skin* apart = bind_with(&m, siblings, sizeof(sk_bind_desc));
  for (size_t v = 0; v < m.nv; ++v) {
    float a[3], b[3], c[3];
    weights_of(none, v, a), weights_of(old, v, b), weights_of(along, v, c);
    ck_assert(memcmp(a, b, sizeof a) == 0 && memcmp(a, c, sizeof a) == 0);
  }
  ck_assert_uint_gt(torn(none, 1, 2, 0.3f), 0); /* heat blends the two across their joint */
  ck_assert_uint_eq(torn(apart, 1, 2, 0.3f), 0);
  ck_assert_double_gt(joint_total(apart, 0), joint_total(none, 0) + 1.0);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_ROBUST);
  d.parents = later;
  sk_error err;
  ck_assert_int_eq(sk_bind(&d, apart, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(err.message, "parents[1]"));
  sk_skin_destroy(none), sk_skin_destroy(old), sk_skin_destroy(along), sk_skin_destroy(apart);
  skt_bind_mesh_free(&m);
}
END_TEST

/* An armature 3 radii beside the cylinder (the fit check: offset, no bone point in or near it): robust binds by
 * Delaunay, which follows the bones' layout (each ring to the bones level with it), where bone heat from outside
 * weighted by what each vertex happens to see. A bone through the cylinder keeps heat. */
START_TEST(armature_beside_the_mesh_binds_by_delaunay) {
  skt_bind_mesh m = skt_bind_cylinder(24, 40, 3);
  for (uint32_t b = 0; b < m.bones; ++b) m.heads[3 * b + 1] += 0.75f, m.tails[3 * b + 1] += 0.75f;
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_ROBUST);
  sk_skin *r = skt_new_skin(m.nv, m.bones), *del = skt_new_skin(m.nv, m.bones);
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  sk_error err;
  ck_assert_msg(sk_bind(&d, r, &rep, &err) == SK_OK, "%s", err.message);
  ck_assert_uint_eq(rep.method_used, SK_BIND_DELAUNAY);
  d.method = SK_BIND_DELAUNAY;
  ck_assert_int_eq(sk_bind(&d, del, NULL, &err), SK_OK);
  skt_check_bind_weights(r, m.nv, m.bones, 4, 1);
  for (size_t v = 0; v < m.nv; ++v) { /* the same weights, and the ends on their own bone */
    uint32_t ja[8], jb[8];
    float wa[8], wb[8];
    size_t na = sk_skin_get_vertex(r, v, ja, wa, 8), nb = sk_skin_get_vertex(del, v, jb, wb, 8);
    ck_assert_uint_eq(na, nb);
    ck_assert(!memcmp(ja, jb, na * sizeof *ja) && !memcmp(wa, wb, na * sizeof *wa));
    const float x = m.pos[3 * v];
    if (x < 0.3f || x > 1.7f) ck_assert_uint_eq(ja[0], x < 0.3f ? 0u : m.bones - 1);
  }
  for (uint32_t b = 0; b < m.bones; ++b) m.heads[3 * b + 1] -= 0.75f, m.tails[3 * b + 1] -= 0.75f;
  d = skt_bind_desc_for(&m, SK_BIND_ROBUST);
  ck_assert_int_eq(sk_bind(&d, r, &rep, &err), SK_OK);
  ck_assert_uint_ne(rep.method_used, SK_BIND_DELAUNAY); /* heat (robust reports the heat it ran) */
  sk_skin_destroy(r);
  sk_skin_destroy(del);
  skt_bind_mesh_free(&m);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("bind_robust");
  TCase* t = tcase_create("robust");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, sleeve_follows_the_arm);
  tcase_add_test(t, small_parts_move_as_one);
  tcase_add_test(t, bone_through_overlapping_parts_emits_heat);
  tcase_add_test(t, closed_sleeve_seen_through_its_caps_takes_the_arm_weights);
  tcase_add_test(t, weight_between_two_branches_goes_where_they_meet);
  tcase_add_test(t, pulled_weight_goes_to_the_trunk_bone_under_the_vertex);
  tcase_add_test(t, a_bone_along_another_is_no_second_branch);
  tcase_add_test(t, merge_keeps_sums_on_random_skeletons);
  tcase_add_test(t, heads_and_tails_with_parents);
  tcase_add_test(t, armature_beside_the_mesh_binds_by_delaunay);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
