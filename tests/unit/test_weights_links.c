#define _POSIX_C_SOURCE 200809L /* strdup */
/* test_weights_links.c - bone links (sk_bone_links, sk_bone_links_source, sk_bone_links_pose): the linked skeleton's
 * structure and matrices, the link count rule, the piecewise-linear spread of the weights, the pose mapping (the
 * child's world transform is unchanged), the volume of the cylinder rig at a 150-degree bend, and bad input. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

#define PI_D 3.14159265358979323846

/* ------------------------------------------------------------------------------------------ helpers */

static void mat_identity(float m[16]) {
  memset(m, 0, 16 * sizeof(float));
  m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void mat_translate(float m[16], float x, float y, float z) {
  mat_identity(m);
  m[12] = x, m[13] = y, m[14] = z;
}

static void mat_mul(const float a[16], const float b[16], float out[16]) {
  float r[16];
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 4; ++k) {
      double s = 0.0;
      for (int i = 0; i < 4; ++i) s += (double)a[i * 4 + k] * b[c * 4 + i];
      r[c * 4 + k] = (float)s;
    }
  memcpy(out, r, sizeof r);
}

static float mat_diff(const float a[16], const float b[16]) {
  float d = 0.0f;
  for (int i = 0; i < 16; ++i) d = fmaxf(d, fabsf(a[i] - b[i]));
  return d;
}

/* TRS with a rotation of angle (radians) about the unit axis */
static void trs_set(float* t, float tx, float ty, float tz, const float axis[3], double angle, float s) {
  t[0] = tx, t[1] = ty, t[2] = tz;
  double h = 0.5 * angle, sh = sin(h);
  t[3] = (float)(axis[0] * sh), t[4] = (float)(axis[1] * sh), t[5] = (float)(axis[2] * sh), t[6] = (float)cos(h);
  t[7] = t[8] = t[9] = s;
}

/* A chain of n joints "j0".."j<n-1>" along +X, one unit apart (j0 at x0); bind = rest moved by bind_offset_x. */
/* A chain of n joints along x from x0, step apart (each bind moved by bind_offset_x, 0: the rest pose). */
static sk_skeleton* make_chain_step(uint32_t n, float x0, float step, float bind_offset_x) {
  static const char* names[] = {"j0", "j1", "j2", "j3", "j4"};
  int32_t parents[5];
  float rest[5 * 16], bind[5 * 16];
  for (uint32_t j = 0; j < n; ++j) {
    parents[j] = (int32_t)j - 1;
    mat_translate(rest + 16 * j, j ? step : x0, 0, 0);
    mat_translate(bind + 16 * j, x0 + (float)j * step + bind_offset_x, 0, 0);
  }
  sk_skeleton_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.joint_count = n;
  d.names = names;
  d.parents = parents;
  d.rest_local = rest;
  d.bind = bind_offset_x != 0.0f ? bind : NULL;
  sk_skeleton* s = NULL;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, NULL), SK_OK);
  return s;
}

static sk_skeleton* make_chain(uint32_t n, float x0, float bind_offset_x) {
  return make_chain_step(n, x0, 1.0f, bind_offset_x);
}

static sk_bone_links_desc links_desc(const float* ranges, size_t range_count) {
  sk_bone_links_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.ranges = ranges;
  d.range_count = range_count;
  return d;
}

/* weight of joint j at vertex v (0 if absent) and the vertex's sum */
static float wof(const sk_skin* s, size_t v, uint32_t j) {
  uint32_t jj[32];
  float ww[32];
  size_t n = sk_skin_get_vertex(s, v, jj, ww, 32);
  float w = 0.0f;
  for (size_t i = 0; i < n && i < 32; ++i)
    if (jj[i] == j) w += ww[i];
  return w;
}

static double vsum(const sk_skin* s, size_t v) {
  uint32_t jj[32];
  float ww[32];
  size_t n = sk_skin_get_vertex(s, v, jj, ww, 32);
  double sum = 0.0;
  for (size_t i = 0; i < n && i < 32; ++i) sum += ww[i];
  return sum;
}

/* ------------------------------------------------------------------------------------------ skeleton */

START_TEST(test_links_skeleton_structure) {
  sk_skeleton* sk = make_chain(3, 0.0f, 0.0f);
  float ranges[3] = {0.0f, 150.0f, 0.0f};
  sk_bone_links_desc d = links_desc(ranges, 3);
  sk_skeleton* ls = NULL;
  sk_weights_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  uint32_t per_joint[3] = {9, 9, 9};
  rep.joint_counts = per_joint;
  ck_assert_int_eq(sk_bone_links(sk, NULL, &d, &ls, NULL, &rep, NULL), SK_OK);
  ck_assert_uint_eq(sk_skeleton_joint_count(ls), 5); /* ceil(150 / 60) - 1 = 2 links */
  ck_assert_uint_eq(rep.joints_affected, 1);
  ck_assert_uint_eq(rep.entries_changed, 2);
  ck_assert_uint_eq(per_joint[0], 0);
  ck_assert_uint_eq(per_joint[1], 2);
  ck_assert_uint_eq(per_joint[2], 0);
  const char* want[5] = {"j0", "j1", "j1_link1", "j1_link2", "j2"};
  const int32_t want_parent[5] = {-1, 0, 1, 2, 3};
  const float want_x[5] = {0.0f, 1.0f, 1.0f + 1.0f / 3.0f, 1.0f + 2.0f / 3.0f, 2.0f};
  float world[5 * 16], bind[5 * 16], ibind[5 * 16], local[5 * 16];
  ck_assert_int_eq(sk_skeleton_get_rest_world(ls, world), SK_OK);
  ck_assert_int_eq(sk_skeleton_get_bind(ls, bind), SK_OK);
  ck_assert_int_eq(sk_skeleton_get_inverse_bind(ls, ibind), SK_OK);
  ck_assert_int_eq(sk_skeleton_get_rest_local(ls, local), SK_OK);
  for (uint32_t j = 0; j < 5; ++j) {
    ck_assert_str_eq(sk_skeleton_joint_name(ls, j), want[j]);
    ck_assert_int_eq(sk_skeleton_joint_parent(ls, j), want_parent[j]);
    ck_assert_msg(fabsf(world[16 * j + 12] - want_x[j]) < 1e-6f, "joint %u at x %g", j, (double)world[16 * j + 12]);
    ck_assert(fabsf(world[16 * j + 13]) < 1e-7f && fabsf(world[16 * j + 14]) < 1e-7f);
    float prod[16], id[16];
    mat_mul(bind + 16 * j, ibind + 16 * j, prod);
    mat_identity(id);
    ck_assert_msg(mat_diff(prod, id) < 1e-6f, "bind * inverse bind of joint %u", j);
    ck_assert_msg(mat_diff(bind + 16 * j, world + 16 * j) < 1e-6f, "bind = rest world for joint %u", j);
  }
  /* the child keeps its rest world transform: its local is now relative to the last link */
  ck_assert(fabsf(local[16 * 4 + 12] - 1.0f / 3.0f) < 1e-6f);
  /* the source map */
  uint32_t src[5], lnk[5];
  ck_assert_int_eq(sk_bone_links_source(sk, ls, src, lnk, NULL), SK_OK);
  const uint32_t want_src[5] = {0, 1, 1, 1, 2}, want_lnk[5] = {0, 0, 1, 2, 0};
  for (int j = 0; j < 5; ++j) {
    ck_assert_uint_eq(src[j], want_src[j]);
    ck_assert_uint_eq(lnk[j], want_lnk[j]);
  }
  /* the original is not a linked version of the linked skeleton */
  ck_assert_int_eq(sk_bone_links_source(ls, sk, src, lnk, NULL), SK_ERR_INVALID_ARGUMENT);
  sk_skeleton_destroy(ls);
  sk_skeleton_destroy(sk);
}
END_TEST

static uint32_t links_for(sk_skeleton* sk, float range, uint32_t given, int listed) {
  float ranges[3] = {0.0f, range, 0.0f};
  uint32_t list[1] = {1};
  sk_bone_links_desc d = links_desc(listed ? NULL : ranges, listed ? 0 : 3);
  if (listed) {
    d.joints = list;
    d.joint_list_count = 1;
  }
  d.links = given;
  sk_skeleton* ls = NULL;
  sk_result rc = sk_bone_links(sk, NULL, &d, &ls, NULL, NULL, NULL);
  if (rc == SK_ERR_NOT_FOUND) return 0;
  ck_assert_int_eq(rc, SK_OK);
  uint32_t k = sk_skeleton_joint_count(ls) - 3;
  sk_skeleton_destroy(ls);
  return k;
}

START_TEST(test_links_count_rule) {
  sk_skeleton* sk = make_chain(3, 0.0f, 0.0f);
  ck_assert_uint_eq(links_for(sk, 60.0f, 0, 0), 0);   /* not above the threshold */
  ck_assert_uint_eq(links_for(sk, 61.0f, 0, 0), 1);
  ck_assert_uint_eq(links_for(sk, 120.0f, 0, 0), 1);
  ck_assert_uint_eq(links_for(sk, 121.0f, 0, 0), 2);
  ck_assert_uint_eq(links_for(sk, 180.0f, 0, 0), 2);
  ck_assert_uint_eq(links_for(sk, 300.0f, 0, 0), 4);
  ck_assert_uint_eq(links_for(sk, 150.0f, 3, 0), 3);  /* given */
  ck_assert_uint_eq(links_for(sk, 0.0f, 0, 1), 2);    /* listed without a range: 180 degrees */
  ck_assert_uint_eq(links_for(sk, 0.0f, 5, 1), 5);
  /* a threshold of 30 degrees: 150 -> 4 links */
  float ranges[3] = {0.0f, 150.0f, 0.0f};
  sk_bone_links_desc d = links_desc(ranges, 3);
  d.threshold = 30.0f;
  sk_skeleton* ls = NULL;
  ck_assert_int_eq(sk_bone_links(sk, NULL, &d, &ls, NULL, NULL, NULL), SK_OK);
  ck_assert_uint_eq(sk_skeleton_joint_count(ls), 7);
  sk_skeleton_destroy(ls);
  sk_skeleton_destroy(sk);
}
END_TEST

/* ------------------------------------------------------------------------------------------ weights */

/* Vertices on the X axis (y = offset) with hand-made weights over j0, j1, j2. */
enum { NV = 8 };
static const float k_vx[NV] = {1.1f, 1.2f, 1.5f, 1.9f, 2.5f, 0.5f, 1.5f, 1.2f};
static const uint32_t k_off[NV + 1] = {0, 2, 3, 4, 6, 7, 8, 10, 11};
static const uint32_t k_jt[11] = {0, 1, 1, 1, 1, 2, 2, 0, 0, 2, 1};
static const float k_wt[11] = {0.5f, 0.5f, 1.0f, 1.0f, 0.5f, 0.5f, 1.0f, 1.0f, 0.25f, 0.75f, 0.96f};

static sk_skin* make_line_skin(float* pos, float dx) {
  for (int v = 0; v < NV; ++v) pos[3 * v] = k_vx[v] + dx, pos[3 * v + 1] = 0.0f, pos[3 * v + 2] = 0.0f;
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(NV, 3, &s, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(s, k_off, k_jt, k_wt, NULL), SK_OK);
  return s;
}

/* new indices: j0 0, j1 1, link1 2, link2 3, j2 4 */
static void check_spread(const sk_skin* ns, int locked_child) {
  ck_assert_uint_eq(sk_skin_joint_count(ns), 5);
  ck_assert_uint_eq(sk_skin_vertex_count(ns), NV);
  /* x = 1.1, j0 0.5 j1 0.5: the j1 share 0.5 at u = 0.3 -> j1 0.35, link1 0.15; j0 kept */
  ck_assert(fabsf(wof(ns, 0, 0) - 0.5f) < 1e-7f);
  ck_assert(fabsf(wof(ns, 0, 1) - 0.35f) < 1e-6f);
  ck_assert(fabsf(wof(ns, 0, 2) - 0.15f) < 1e-6f);
  /* x = 1.2 on j1 only: u = 0.6 */
  ck_assert(fabsf(wof(ns, 1, 1) - 0.4f) < 1e-6f);
  ck_assert(fabsf(wof(ns, 1, 2) - 0.6f) < 1e-6f);
  /* x = 1.5: halfway between the links */
  ck_assert(fabsf(wof(ns, 2, 2) - 0.5f) < 1e-6f);
  ck_assert(fabsf(wof(ns, 2, 3) - 0.5f) < 1e-6f);
  ck_assert(wof(ns, 2, 1) == 0.0f);
  if (!locked_child) {
    /* x = 1.9, j1 0.5 j2 0.5: share 1 at u = 2.7 -> link2 0.3, j2 0.7 */
    ck_assert(fabsf(wof(ns, 3, 3) - 0.3f) < 1e-6f);
    ck_assert(fabsf(wof(ns, 3, 4) - 0.7f) < 1e-6f);
    /* the vertex at x = 1.5 with j0 0.25 j2 0.75: the child's share goes onto the chain too */
    ck_assert(fabsf(wof(ns, 6, 0) - 0.25f) < 1e-7f);
    ck_assert(fabsf(wof(ns, 6, 2) - 0.375f) < 1e-6f);
    ck_assert(fabsf(wof(ns, 6, 3) - 0.375f) < 1e-6f);
  } else {
    /* a locked child keeps its weight; the j1 share 0.5 past the last link goes to link2 */
    ck_assert(fabsf(wof(ns, 3, 3) - 0.5f) < 1e-7f);
    ck_assert(fabsf(wof(ns, 3, 4) - 0.5f) < 1e-7f);
    ck_assert(fabsf(wof(ns, 6, 4) - 0.75f) < 1e-7f);
  }
  /* x = 2.5 on j2, x = 0.5 on j0: unchanged (renumbered) */
  ck_assert(wof(ns, 4, 4) == 1.0f);
  ck_assert(wof(ns, 5, 0) == 1.0f);
  /* sums kept (the drifting vertex too), at most two chain joints per vertex */
  for (size_t v = 0; v < NV; ++v) {
    double want = 0.0;
    for (uint32_t e = k_off[v]; e < k_off[v + 1]; ++e) want += k_wt[e];
    ck_assert_msg(fabs(vsum(ns, v) - want) < 1e-6, "vertex %zu sum %g, was %g", v, vsum(ns, v), want);
    int chain = 0;
    for (uint32_t j = 1; j < 5; ++j) chain += wof(ns, v, j) > 0.0f;
    ck_assert_msg(chain <= 2, "vertex %zu holds %d chain joints", v, chain);
  }
  ck_assert(fabsf(wof(ns, 7, 1) - 0.96f * 0.4f) < 1e-6f);
}

START_TEST(test_links_spread_weights) {
  float pos[3 * NV];
  sk_skeleton* sk = make_chain(3, 0.0f, 0.0f);
  sk_skin* skin = make_line_skin(pos, 0.0f);
  float ranges[3] = {0.0f, 150.0f, 0.0f};
  sk_bone_links_desc d = links_desc(ranges, 3);
  d.positions = pos;
  d.position_count = NV;
  sk_skeleton* ls = NULL;
  sk_skin* ns = NULL;
  sk_weights_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  uint8_t flags[NV];
  rep.vertex_flags = flags;
  ck_assert_int_eq(sk_bone_links(sk, skin, &d, &ls, &ns, &rep, NULL), SK_OK);
  check_spread(ns, 0);
  ck_assert_uint_eq(rep.vertices_visited, NV);
  ck_assert_uint_eq(rep.vertices_changed, 6); /* all but x = 2.5 and x = 0.5 */
  ck_assert(!(flags[4] & SK_WFLAG_CHANGED) && !(flags[5] & SK_WFLAG_CHANGED));
  ck_assert(flags[2] & SK_WFLAG_CHANGED);
  /* the input skin is unchanged */
  ck_assert_uint_eq(sk_skin_joint_count(skin), 3);
  ck_assert(wof(skin, 1, 1) == 1.0f);
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);

  /* a locked child keeps its weights */
  uint8_t locked[3] = {0, 0, 1};
  d.scope.locked_joints = locked;
  d.scope.locked_joint_count = 3;
  ck_assert_int_eq(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, NULL), SK_OK);
  check_spread(ns, 1);
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);
  d.scope.locked_joints = NULL;
  d.scope.locked_joint_count = 0;

  /* the mask: an unselected vertex keeps its (renumbered) weights */
  uint8_t mask[NV] = {1, 0, 1, 1, 1, 1, 1, 1};
  d.scope.vertex_mask = mask;
  d.scope.vertex_mask_count = NV;
  ck_assert_int_eq(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, NULL), SK_OK);
  ck_assert(wof(ns, 1, 1) == 1.0f && wof(ns, 1, 2) == 0.0f);
  ck_assert(fabsf(wof(ns, 2, 2) - 0.5f) < 1e-6f);
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(sk);
}
END_TEST

/* Bind space apart from the rest pose: the skinned mesh lives where the bind matrices put the bones (x + 0.5). */
START_TEST(test_links_bind_space) {
  float pos[3 * NV];
  sk_skeleton* sk = make_chain(3, 0.0f, 0.5f);
  sk_skin* skin = make_line_skin(pos, 0.5f);
  float ranges[3] = {0.0f, 150.0f, 0.0f};
  sk_bone_links_desc d = links_desc(ranges, 3);
  d.positions = pos;
  d.position_count = NV;
  sk_skeleton* ls = NULL;
  sk_skin* ns = NULL;
  ck_assert_int_eq(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, NULL), SK_OK);
  check_spread(ns, 0);
  float bind[5 * 16], ibind[5 * 16], world[5 * 16];
  ck_assert_int_eq(sk_skeleton_get_bind(ls, bind), SK_OK);
  ck_assert_int_eq(sk_skeleton_get_inverse_bind(ls, ibind), SK_OK);
  ck_assert_int_eq(sk_skeleton_get_rest_world(ls, world), SK_OK);
  ck_assert(fabsf(bind[16 * 2 + 12] - (1.5f + 1.0f / 3.0f)) < 1e-6f);
  ck_assert(fabsf(ibind[16 * 2 + 12] + (1.5f + 1.0f / 3.0f)) < 1e-6f);
  ck_assert(fabsf(world[16 * 2 + 12] - (1.0f + 1.0f / 3.0f)) < 1e-6f);
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);
  /* the same positions read as rest space sit 0.5 further along: x = 1.7 on j1 gives link2 0.9, j2 0.1 */
  d.bone_space = SK_BONE_SPACE_REST;
  ck_assert_int_eq(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, NULL), SK_OK);
  ck_assert(fabsf(wof(ns, 1, 3) - 0.9f) < 1e-6f);
  ck_assert(fabsf(wof(ns, 1, 4) - 0.1f) < 1e-6f);
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(sk);
}
END_TEST

/* ------------------------------------------------------------------------------------------ pose */

static void world_of(const sk_skeleton* s, const float* trs, float* world) {
  uint32_t n = sk_skeleton_joint_count(s);
  float* local = malloc((size_t)n * 16 * sizeof(float));
  ck_assert_int_eq(sk_pose_local_from_trs(trs, n, local, NULL), SK_OK);
  ck_assert_int_eq(sk_skeleton_world(s, local, NULL, world, NULL), SK_OK);
  free(local);
}

START_TEST(test_links_pose_keeps_child_world) {
  sk_skeleton* sk = make_chain(4, 0.5f, 0.0f);
  float ranges[4] = {0.0f, 150.0f, 100.0f, 0.0f}; /* j1: 2 links, j2 (a linked joint's child): 1 link */
  sk_bone_links_desc d = links_desc(ranges, 4);
  sk_skeleton* ls = NULL;
  ck_assert_int_eq(sk_bone_links(sk, NULL, &d, &ls, NULL, NULL, NULL), SK_OK);
  ck_assert_uint_eq(sk_skeleton_joint_count(ls), 7);
  float z[3] = {0, 0, 1}, y[3] = {0, 1, 0};
  float ax[3] = {0.48f, 0.6f, 0.64f};
  const float scales[3] = {1.0f, 1.0f, 2.0f};
  for (int trial = 0; trial < 3; ++trial) {
    float trs[4 * 10], out[7 * 10], w0[4 * 16], w1[7 * 16];
    trs_set(trs, 0.5f, 0.2f, 0.0f, y, 0.3, 1.0f);
    trs_set(trs + 10, 1.0f, 0.0f, 0.0f, trial == 1 ? ax : z, 150.0 * PI_D / 180.0, scales[trial]);
    trs_set(trs + 20, 1.0f, 0.1f, 0.0f, z, -95.0 * PI_D / 180.0, 1.0f);
    trs_set(trs + 30, 1.0f, 0.0f, 0.0f, ax, 0.7, 1.0f);
    ck_assert_int_eq(sk_bone_links_pose(sk, ls, trs, out, NULL), SK_OK);
    world_of(sk, trs, w0);
    world_of(ls, out, w1);
    /* original joints j0 .. j3 sit at 0, 1, 4, 6 in the linked skeleton */
    const int at[4] = {0, 1, 4, 6};
    /* j0 and j3 (an unlinked child of a linked joint): same world transform */
    ck_assert_msg(mat_diff(w0, w1) < 1e-6f, "j0");
    ck_assert_msg(mat_diff(w0 + 48, w1 + 16 * at[3]) < 2e-5f, "trial %d: j3 world differs by %g", trial,
                  (double)mat_diff(w0 + 48, w1 + 16 * at[3]));
    /* linked joints (j1, and j2, itself a linked joint's child) stay where they were but turn by a share; their last
     * link has the full rotation */
    const int last[2] = {3, 5};
    for (int q = 1; q <= 2; ++q) {
      for (int a = 0; a < 3; ++a)
        ck_assert_msg(fabsf(w0[16 * q + 12 + a] - w1[16 * at[q] + 12 + a]) < 2e-5f, "trial %d: j%d position", trial, q);
      float rot_full[16], rot_last[16];
      memcpy(rot_full, w0 + 16 * q, sizeof rot_full);
      memcpy(rot_last, w1 + 16 * last[q - 1], sizeof rot_last);
      rot_full[12] = rot_full[13] = rot_full[14] = rot_last[12] = rot_last[13] = rot_last[14] = 0.0f;
      ck_assert_msg(mat_diff(rot_full, rot_last) < 2e-5f, "trial %d: j%d last link rotation", trial, q);
    }
    /* each of j1's three joints turns by 50 degrees: q.w = cos(25 deg) for j1 (rest rotation identity) */
    ck_assert(fabs(fabs((double)out[10 + 6]) - cos(25.0 * PI_D / 180.0)) < 1e-5);
    ck_assert(fabs(fabs((double)out[20 + 6]) - cos(25.0 * PI_D / 180.0)) < 1e-5);
  }
  /* the rest pose maps to the linked rest pose */
  float rest_trs[4 * 10], out[7 * 10], lrest[7 * 10];
  ck_assert_int_eq(sk_skeleton_get_rest_trs(sk, rest_trs), SK_OK);
  ck_assert_int_eq(sk_bone_links_pose(sk, ls, rest_trs, out, NULL), SK_OK);
  ck_assert_int_eq(sk_skeleton_get_rest_trs(ls, lrest), SK_OK);
  for (int i = 0; i < 70; ++i) ck_assert_msg(fabsf(out[i] - lrest[i]) < 1e-6f, "rest trs %d: %g vs %g", i,
                                             (double)out[i], (double)lrest[i]);
  /* a non-uniform scale on a linked joint cannot be split */
  float trs[4 * 10];
  memcpy(trs, rest_trs, sizeof trs);
  trs_set(trs + 10, 1.0f, 0.0f, 0.0f, z, 1.0, 1.0f);
  trs[10 + 8] = 3.0f;
  for (int i = 0; i < 70; ++i) out[i] = -7.0f;
  ck_assert_int_eq(sk_bone_links_pose(sk, ls, trs, out, NULL), SK_ERR_UNSUPPORTED);
  ck_assert(out[0] == -7.0f); /* untouched */
  /* NaN in the pose */
  trs[3] = NAN;
  sk_error e;
  ck_assert_int_eq(sk_bone_links_pose(sk, ls, trs, out, &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(e.message, "not finite") != NULL);
  ck_assert_int_eq(sk_bone_links_pose(sk, sk, rest_trs, out, NULL), SK_OK); /* nothing linked: identity map */
  /* the skeletons the other way round (trs sized for the 7 joints of "original") */
  float big[7 * 10], big_out[7 * 10];
  ck_assert_int_eq(sk_skeleton_get_rest_trs(ls, big), SK_OK);
  ck_assert_int_eq(sk_bone_links_pose(ls, sk, big, big_out, NULL), SK_ERR_INVALID_ARGUMENT);
  sk_skeleton_destroy(ls);
  sk_skeleton_destroy(sk);
}
END_TEST

/* ------------------------------------------------------------------------------------------ cylinder */

static double mesh_volume(const float* p, const uint32_t* tri, size_t T) {
  double vol = 0;
  for (size_t t = 0; t < T; ++t) {
    const float* a = p + 3 * tri[3 * t];
    const float* b = p + 3 * tri[3 * t + 1];
    const float* c = p + 3 * tri[3 * t + 2];
    double cx = (double)b[1] * c[2] - (double)b[2] * c[1];
    double cy = (double)b[2] * c[0] - (double)b[0] * c[2];
    double cz = (double)b[0] * c[1] - (double)b[1] * c[0];
    vol += (a[0] * cx + a[1] * cy + a[2] * cz) / 6.0;
  }
  return vol;
}

static void deform(const sk_skeleton* s, const sk_skin* skin, const float* trs, int method, const float* in,
                   float* out) {
  uint32_t J = sk_skeleton_joint_count(s);
  size_t V = sk_skin_vertex_count(skin), N = sk_skin_influence_count(skin);
  float* pal = malloc((size_t)J * 16 * sizeof(float));
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* jt = malloc((N + 1) * sizeof *jt);
  float* wt = malloc((N + 1) * sizeof *wt);
  ck_assert_int_eq(sk_skeleton_palette_from_trs(s, trs, NULL, pal, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_get_csr(skin, off, jt, wt, NULL), SK_OK);
  sk_deform_job j;
  memset(&j, 0, sizeof j);
  j.size = sizeof j;
  j.method = (uint32_t)method;
  j.threads = 1;
  j.vertex_count = V;
  j.palette = pal;
  j.joint_count = J;
  j.csr_offsets = off;
  j.csr_joints = jt;
  j.csr_weights = wt;
  j.in_positions = in;
  j.out_positions = out;
  ck_assert_int_eq(sk_deform_run(&j, NULL), SK_OK);
  free(pal);
  free(off);
  free(jt);
  free(wt);
}

START_TEST(test_links_cylinder_volume_150) {
  sk_cylinder_desc cd;
  memset(&cd, 0, sizeof cd);
  cd.size = sizeof cd;
  cd.segments = 64;
  cd.rings = 128;
  size_t V = 0, T = 0;
  ck_assert_int_eq(sk_mesh_cylinder(&cd, &V, &T, NULL, NULL, NULL, NULL, NULL), SK_OK);
  float* pos = malloc(3 * V * sizeof(float));
  float* out = malloc(3 * V * sizeof(float));
  uint32_t* tri = malloc(3 * T * sizeof(uint32_t));
  sk_skin* skin = NULL;
  ck_assert_int_eq(sk_skin_create(V, 2, &skin, NULL), SK_OK);
  ck_assert_int_eq(sk_mesh_cylinder(&cd, &V, &T, pos, NULL, tri, skin, NULL), SK_OK);
  /* the rig's skeleton: bone0 at x = 0, bone1 at x = 1 (a leaf: its bone runs to x = 2) */
  sk_skeleton* sk = make_chain(2, 0.0f, 0.0f);
  double rest = mesh_volume(pos, tri, T);
  ck_assert(fabs(rest - PI_D * 0.25 * 0.25 * 2.0) < 0.01 * rest);

  float ranges[2] = {0.0f, 150.0f};
  sk_bone_links_desc d = links_desc(ranges, 2);
  d.positions = pos;
  d.position_count = V;
  sk_skeleton* ls = NULL;
  sk_skin* ns = NULL;
  ck_assert_int_eq(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, NULL), SK_OK);
  ck_assert_uint_eq(sk_skeleton_joint_count(ls), 4);

  /* at rest the linked rig reproduces the mesh */
  float trs[2 * 10], ltrs[4 * 10];
  ck_assert_int_eq(sk_skeleton_get_rest_trs(sk, trs), SK_OK);
  ck_assert_int_eq(sk_bone_links_pose(sk, ls, trs, ltrs, NULL), SK_OK);
  deform(ls, ns, ltrs, SK_DEFORM_LBS, pos, out);
  for (size_t i = 0; i < 3 * V; ++i) ck_assert(fabsf(out[i] - pos[i]) < 1e-5f);

  /* a pose that does not turn the linked joint moves the linked rig exactly like the original */
  float* ref = malloc(3 * V * sizeof(float));
  float yax[3] = {0.0f, 0.6f, 0.8f};
  trs_set(trs, 0.1f, -0.2f, 0.3f, yax, 0.8, 1.0f);
  ck_assert_int_eq(sk_bone_links_pose(sk, ls, trs, ltrs, NULL), SK_OK);
  deform(sk, skin, trs, SK_DEFORM_LBS, pos, ref);
  deform(ls, ns, ltrs, SK_DEFORM_LBS, pos, out);
  for (size_t i = 0; i < 3 * V; ++i) ck_assert_msg(fabsf(out[i] - ref[i]) < 1e-5f, "entry %zu: %g vs %g", i,
                                                   (double)out[i], (double)ref[i]);
  free(ref);
  ck_assert_int_eq(sk_skeleton_get_rest_trs(sk, trs), SK_OK);

  /* 150-degree bend of bone1 about +Z */
  float z[3] = {0, 0, 1};
  trs_set(trs + 10, 1.0f, 0.0f, 0.0f, z, 150.0 * PI_D / 180.0, 1.0f);
  ck_assert_int_eq(sk_bone_links_pose(sk, ls, trs, ltrs, NULL), SK_OK);
  deform(sk, skin, trs, SK_DEFORM_LBS, pos, out);
  double lbs = mesh_volume(out, tri, T) / rest;
  deform(sk, skin, trs, SK_DEFORM_DQS, pos, out);
  double dqs = mesh_volume(out, tri, T) / rest;
  deform(ls, ns, ltrs, SK_DEFORM_LBS, pos, out);
  double linked = mesh_volume(out, tri, T) / rest;
  deform(ls, ns, ltrs, SK_DEFORM_DQS, pos, out);
  double linked_dqs = mesh_volume(out, tri, T) / rest;
  printf("cylinder 150deg bend volume ratio: LBS %.4f, LBS + 2 bone links %.4f, DQS %.4f (DQS + links %.4f)\n", lbs,
         linked, dqs, linked_dqs);
  ck_assert_msg(lbs < 0.95, "plain LBS at 150 degrees should lose volume (ratio %g)", lbs);
  ck_assert_msg(linked > lbs + 0.03, "links: volume ratio %g, plain LBS %g", linked, lbs);
  ck_assert_msg(fabs(linked - 1.0) < fabs(lbs - 1.0) / 2.0, "links halve the volume error (%g vs %g)", linked, lbs);
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);
  sk_skeleton_destroy(sk);
  sk_skin_destroy(skin);
  free(pos);
  free(out);
  free(tri);
}
END_TEST

/* ------------------------------------------------------------------------------------------ corpus */

/* CesiumMan: every joint with a bone of non-zero length gets links for a 150-degree range; sums are kept, the walk
 * animation's pose maps so that every original joint keeps its world position and its last link its world rotation. */
START_TEST(test_links_corpus_cesium_man) {
  if (!skt_assets_dir()) {
    ck_assert_msg(!skt_assets_required(), "SKINKIT_ASSETS is set but not a directory");
    return;
  }
  const char* rel = "gltf/CesiumMan.glb";
  sk_scene* sc = NULL;
  sk_error e;
  ck_assert_msg(sk_scene_load(skt_asset(rel), NULL, &sc, &e) == SK_OK, "%s: %s", rel, e.message);
  const sk_skeleton* sk = sk_scene_skeleton(sc);
  ck_assert_ptr_nonnull(sk);
  uint32_t J = sk_skeleton_joint_count(sk), mesh = UINT32_MAX;
  for (uint32_t m = 0; m < sk_scene_mesh_count(sc) && mesh == UINT32_MAX; ++m)
    if (sk_scene_mesh_skin(sc, m)) mesh = m;
  ck_assert(mesh != UINT32_MAX);
  sk_skin* skin = sk_scene_mesh_skin(sc, mesh);
  size_t V = sk_skin_vertex_count(skin);
  float* pos = malloc(3 * V * sizeof(float));
  ck_assert_uint_eq(sk_scene_mesh_positions(sc, mesh, pos, 3 * V), 3 * V);
  /* a skeleton carrying this mesh's inverse binds: the positions live in that bind space */
  float* rest = malloc((size_t)J * 16 * sizeof(float));
  float* ib = malloc((size_t)J * 16 * sizeof(float));
  float* heads = malloc((size_t)J * 3 * sizeof(float));
  float* tails = malloc((size_t)J * 3 * sizeof(float));
  int32_t* parents = malloc(J * sizeof *parents);
  const char** names = malloc(J * sizeof *names);
  float* ranges = calloc(J, sizeof *ranges);
  for (uint32_t j = 0; j < J; ++j) {
    names[j] = sk_skeleton_joint_name(sk, j);
    parents[j] = sk_skeleton_joint_parent(sk, j);
  }
  ck_assert_int_eq(sk_skeleton_get_rest_local(sk, rest), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_inverse_binds(sc, mesh, ib, NULL, NULL), SK_OK);
  sk_skeleton_desc sd = {.size = sizeof sd, .joint_count = J, .names = names, .parents = parents, .rest_local = rest,
                         .inverse_bind = ib};
  sk_skeleton* msk = NULL;
  ck_assert_int_eq(sk_skeleton_create(&sd, &msk, NULL), SK_OK);
  ck_assert_int_eq(sk_skeleton_bone_segments(msk, SK_BONE_SPACE_REST, heads, tails, NULL), SK_OK);
  uint32_t linked_joints = 0;
  for (uint32_t j = 0; j < J; ++j) {
    float d2 = 0.0f;
    for (int a = 0; a < 3; ++a) d2 += (tails[3 * j + a] - heads[3 * j + a]) * (tails[3 * j + a] - heads[3 * j + a]);
    if (d2 > 1e-8f) {
      ranges[j] = 150.0f;
      ++linked_joints;
    }
  }
  ck_assert_uint_gt(linked_joints, J / 2);
  sk_bone_links_desc d = links_desc(ranges, J);
  d.positions = pos;
  d.position_count = V;
  sk_skeleton* ls = NULL;
  sk_skin* ns = NULL;
  sk_weights_report rep = {.size = sizeof rep};
  ck_assert_msg(sk_bone_links(msk, skin, &d, &ls, &ns, &rep, &e) == SK_OK, "%s", e.message);
  ck_assert_uint_eq(sk_skeleton_joint_count(ls), J + 2 * linked_joints);
  ck_assert_uint_gt(rep.vertices_changed, V / 2);
  for (size_t v = 0; v < V; ++v) ck_assert_msg(fabs(vsum(ns, v) - vsum(skin, v)) < 1e-5, "vertex %zu sum", v);
  sk_skin_report sr = {.size = sizeof sr};
  ck_assert_int_eq(sk_skin_validate(ns, NULL, &sr, NULL, NULL), SK_OK);
  ck_assert_uint_eq(sr.bad_joint + sr.nan + sr.negative + sr.duplicate, 0);
  /* the walk at 0.5 s */
  uint32_t LJ = sk_skeleton_joint_count(ls);
  float* trs = malloc((size_t)J * 10 * sizeof(float));
  float* ltrs = malloc((size_t)LJ * 10 * sizeof(float));
  float* w0 = malloc((size_t)J * 16 * sizeof(float));
  float* w1 = malloc((size_t)LJ * 16 * sizeof(float));
  uint32_t* src = malloc(LJ * sizeof *src);
  uint32_t* lnk = malloc(LJ * sizeof *lnk);
  ck_assert_uint_gt(sk_scene_animation_count(sc), 0);
  ck_assert_int_eq(sk_scene_sample_pose(sc, 0, 0.5, trs, NULL), SK_OK);
  ck_assert_msg(sk_bone_links_pose(msk, ls, trs, ltrs, &e) == SK_OK, "%s", e.message);
  world_of(msk, trs, w0);
  world_of(ls, ltrs, w1);
  ck_assert_int_eq(sk_bone_links_source(msk, ls, src, lnk, NULL), SK_OK);
  float scale = 0.0f;
  for (uint32_t j = 0; j < J; ++j)
    for (int a = 0; a < 3; ++a) scale = fmaxf(scale, fabsf(w0[16 * j + 12 + a]));
  for (uint32_t q = 0; q < LJ; ++q) {
    uint32_t j = src[q];
    int is_last = q + 1 == LJ || src[q + 1] != j || lnk[q + 1] == 0;
    if (lnk[q] == 0)
      for (int a = 0; a < 3; ++a)
        ck_assert_msg(fabsf(w0[16 * j + 12 + a] - w1[16 * q + 12 + a]) < 1e-4f * fmaxf(1.0f, scale),
                      "joint %s position", names[j]);
    if (is_last)
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k)
          ck_assert_msg(fabsf(w0[16 * j + 4 * c + k] - w1[16 * q + 4 * c + k]) < 1e-4f, "joint %s rotation", names[j]);
  }
  free(trs), free(ltrs), free(w0), free(w1), free(src), free(lnk);
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);
  sk_skeleton_destroy(msk);
  free(pos), free(rest), free(ib), free(heads), free(tails), free(parents), free(names), free(ranges);
  sk_scene_destroy(sc);
}
END_TEST

/* ------------------------------------------------------------------------------------------ validity */

/* World transforms of every joint of s in clip 0 at time t (rest when the scene has no clip): J matrices. */
static float* clip_world(const sk_scene* s, double t) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  const uint32_t J = sk_skeleton_joint_count(sk);
  float* trs = malloc((size_t)J * 10 * sizeof *trs);
  float* local = malloc((size_t)J * 16 * sizeof *local);
  float* world = malloc((size_t)J * 16 * sizeof *world);
  ck_assert(trs && local && world);
  ck_assert_int_eq(sk_scene_sample_pose(s, 0, t, trs, NULL), SK_OK);
  ck_assert_int_eq(sk_pose_local_from_trs(trs, J, local, NULL), SK_OK);
  ck_assert_int_eq(sk_skeleton_world(sk, local, NULL, world, NULL), SK_OK);
  free(trs);
  free(local);
  return world;
}

/* sk_scene_relink keeps the scene: the clip poses every original joint where it was (the children of a linked bone
 * hang under its last link now, their keys re-expressed), new joints have no keys, meshes keep their skins and
 * materials; the CLI's --links output keeps the clip and the materials (it wrote a rebuilt scene without them). */
static void relink_keeps_clips(const char* path, const char* joint) {
  sk_scene* s = NULL;
  sk_error e;
  ck_assert_msg(sk_scene_load(path, NULL, &s, &e) == SK_OK, "%s: %s", path, e.message);
  const sk_skeleton* sk = sk_scene_skeleton(s);
  const uint32_t J = sk_skeleton_joint_count(sk);
  uint32_t target;
  ck_assert_int_eq(sk_skeleton_find_joint(sk, joint, &target), SK_OK);
  const char** names = malloc(J * sizeof *names);
  for (uint32_t j = 0; j < J; ++j) names[j] = strdup(sk_skeleton_joint_name(sk, j));
  const double dur = sk_scene_animation_duration(s, 0);
  float* before[5];
  for (int i = 0; i < 5; ++i) before[i] = clip_world(s, dur * i / 4.0);
  float* ranges = calloc(J, sizeof *ranges);
  ranges[target] = 170.0f;
  sk_bone_links_desc d = links_desc(ranges, J);
  sk_skeleton* lsk = NULL;
  ck_assert_int_eq(sk_bone_links(sk, NULL, &d, &lsk, NULL, NULL, &e), SK_OK);
  const uint32_t LJ = sk_skeleton_joint_count(lsk);
  ck_assert_uint_eq(LJ, J + 2);
  ck_assert_int_eq(sk_scene_relink(s, lsk, &e), SK_OK);
  sk_skeleton_destroy(lsk);
  sk = sk_scene_skeleton(s);
  ck_assert_uint_eq(sk_skeleton_joint_count(sk), LJ);
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m)
    if (sk_scene_mesh_skin(s, m)) ck_assert_uint_eq(sk_skin_joint_count(sk_scene_mesh_skin(s, m)), LJ);
  for (int i = 0; i < 5; ++i) {
    float* after = clip_world(s, dur * i / 4.0);
    float worst = 0.0f, reach = 1.0f;
    for (uint32_t j = 0; j < J; ++j) {
      uint32_t n;
      ck_assert_int_eq(sk_skeleton_find_joint(sk, names[j], &n), SK_OK);
      worst = fmaxf(worst, mat_diff(before[i] + 16 * j, after + 16 * n));
      for (int k = 12; k < 15; ++k) reach = fmaxf(reach, fabsf(before[i][16 * j + k]));
    }
    ck_assert_msg(worst <= 2e-5f * reach, "%s at %.3f s: a joint moved by %g", path, dur * i / 4.0, (double)worst);
    free(after);
    free(before[i]);
  }
  /* bad input leaves the scene as it is */
  ck_assert_int_eq(sk_scene_relink(s, NULL, &e), SK_ERR_INVALID_ARGUMENT);
  for (uint32_t j = 0; j < J; ++j) free((char*)names[j]);
  free(names);
  free(ranges);
  sk_scene_destroy(s);
}

START_TEST(test_links_relink_keeps_the_scene) {
  relink_keeps_clips(skt_data("../unskinned/anim_only.glb"), "Hips"); /* no mesh: skeleton and clip */
  if (skt_assets_dir()) relink_keeps_clips(skt_asset("gltf/CesiumMan.glb"), "Skeleton_arm_joint_L__4_");
  /* a skeleton that lacks a joint of the scene's is refused, the scene unchanged */
  sk_scene* s = NULL;
  sk_error e;
  ck_assert_int_eq(sk_scene_load(skt_data("cylinder_rig.glb"), NULL, &s, &e), SK_OK);
  sk_scene* other = NULL;
  ck_assert_int_eq(sk_scene_load(skt_data("../unskinned/anim_only.glb"), NULL, &other, &e), SK_OK);
  ck_assert_int_eq(sk_scene_relink(s, sk_scene_skeleton(other), &e), SK_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(e.message, "bone0"), "%s", e.message);
  ck_assert_uint_eq(sk_skeleton_joint_count(sk_scene_skeleton(s)), 2);
  sk_scene_destroy(other);
  sk_scene_destroy(s);
}
END_TEST

START_TEST(test_links_bad_input) {
  float pos[3 * NV];
  sk_skeleton* sk = make_chain(3, 0.0f, 0.0f);
  sk_skin* skin = make_line_skin(pos, 0.0f);
  float ranges[3] = {0.0f, 150.0f, 0.0f};
  sk_bone_links_desc d = links_desc(ranges, 3);
  d.positions = pos;
  d.position_count = NV;
  sk_skeleton* const sentinel_sk = (sk_skeleton*)(uintptr_t)0x1;
  sk_skin* const sentinel_skin = (sk_skin*)(uintptr_t)0x1;
  sk_skeleton* ls = sentinel_sk;
  sk_skin* ns = sentinel_skin;
  sk_error e;
#define EXPECT(call, code, text)                                                                  \
  do {                                                                                            \
    memset(&e, 0, sizeof e);                                                                      \
    ck_assert_int_eq((call), (code));                                                             \
    ck_assert_msg(strstr(e.message, (text)) != NULL, "message \"%s\" lacks \"%s\"", e.message, (text)); \
    ck_assert(ls == sentinel_sk && ns == sentinel_skin);                                          \
  } while (0)
  EXPECT(sk_bone_links(NULL, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "skeleton");
  EXPECT(sk_bone_links(sk, skin, NULL, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "NULL");
  d.size = 8;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_STRUCT_SIZE, "size");
  d.size = sizeof d;
  EXPECT(sk_bone_links(sk, skin, &d, NULL, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "out_skeleton");
  EXPECT(sk_bone_links(sk, skin, &d, &ls, NULL, NULL, &e), SK_ERR_INVALID_ARGUMENT, "out_skin");
  d.range_count = 2;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "ranges");
  d.range_count = 3;
  ranges[1] = NAN;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "range of joint 1");
  ranges[1] = 400.0f;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "0..360");
  ranges[1] = 30.0f;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_NOT_FOUND, "no joint needs links");
  ranges[1] = 150.0f;
  d.threshold = -1.0f;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "threshold");
  d.threshold = 0.0f;
  d.links = 99;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_OUT_OF_RANGE, "links");
  d.links = 0;
  uint8_t locked[3] = {0, 1, 0};
  d.scope.locked_joints = locked;
  d.scope.locked_joint_count = 3;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "locked");
  d.scope.locked_joint_count = 2;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "locked_joints");
  d.scope.locked_joints = NULL;
  d.scope.locked_joint_count = 0;
  uint8_t mask[2] = {1, 1};
  d.scope.vertex_mask = mask;
  d.scope.vertex_mask_count = 2;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "vertex_mask");
  d.scope.vertex_mask = NULL;
  d.scope.vertex_mask_count = 0;
  d.positions = NULL;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "positions");
  d.positions = pos;
  d.position_count = NV - 1;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "position_count");
  d.position_count = NV;
  pos[4] = NAN;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "not finite");
  pos[4] = 0.0f;
  d.bone_space = 7;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "bone_space");
  d.bone_space = 0;
  uint32_t list[1] = {9};
  d.joints = list;
  d.joint_list_count = 1;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_OUT_OF_RANGE, "listed joint 9");
  d.joints = NULL;
  d.joint_list_count = 0;
  d.ranges = NULL;
  d.range_count = 0;
  EXPECT(sk_bone_links(sk, skin, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "ranges or a list");
  d.ranges = ranges;
  d.range_count = 3;
  /* a skin over another joint count */
  sk_skin* other = NULL;
  ck_assert_int_eq(sk_skin_create(NV, 4, &other, NULL), SK_OK);
  EXPECT(sk_bone_links(sk, other, &d, &ls, &ns, NULL, &e), SK_ERR_INVALID_ARGUMENT, "joints");
  sk_skin_destroy(other);
  /* a lone root has no bone direction */
  sk_skeleton* lone = make_chain(1, 0.0f, 0.0f);
  float r1[1] = {150.0f};
  sk_bone_links_desc d1 = links_desc(r1, 1);
  EXPECT(sk_bone_links(lone, NULL, &d1, &ls, NULL, NULL, &e), SK_ERR_INVALID_ARGUMENT,
         "zero-length bone (a root without children)");
  sk_skeleton_destroy(lone);
  /* a joint whose only child sits at its position: the reason names that, not a leaf */
  {
    sk_skeleton* twin = make_chain_step(2, 0.0f, 0.0f, 0.0f);
    float r2[2] = {150.0f, 0.0f}; /* links on the hip only */
    sk_bone_links_desc d2 = links_desc(r2, 2);
    EXPECT(sk_bone_links(twin, NULL, &d2, &ls, NULL, NULL, &e), SK_ERR_INVALID_ARGUMENT,
           "joint \"j0\" has a zero-length bone (its only child sits at its position)");
    sk_skeleton_destroy(twin);
  }
  /* an invalid entry: the vertex is copied and flagged, the rest proceeds */
  sk_skin* bad = NULL;
  ck_assert_int_eq(sk_skin_clone(skin, &bad, NULL), SK_OK);
  uint32_t bj[2] = {1, 7};
  float bw[2] = {0.5f, 0.5f};
  ck_assert_int_eq(sk_skin_set_vertex(bad, 2, bj, bw, 2, NULL), SK_OK);
  sk_weights_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  uint8_t flags[NV];
  rep.vertex_flags = flags;
  ck_assert_int_eq(sk_bone_links(sk, bad, &d, &ls, &ns, &rep, NULL), SK_OK);
  ck_assert_uint_eq(rep.vertices_failed, 1);
  ck_assert(flags[2] & SK_WFLAG_INVALID);
  ck_assert(wof(ns, 2, 1) == 0.5f);
  sk_skin_report sr;
  memset(&sr, 0, sizeof sr);
  sr.size = sizeof sr;
  ck_assert_int_eq(sk_skin_validate(ns, NULL, &sr, NULL, NULL), SK_OK);
  ck_assert_uint_eq(sr.bad_joint, 1); /* still out of range after renumbering */
  sk_skin_destroy(ns);
  sk_skeleton_destroy(ls);
  sk_skin_destroy(bad);
#undef EXPECT
  sk_skin_destroy(skin);
  sk_skeleton_destroy(sk);
}
END_TEST

static Suite* links_suite(void) {
  Suite* s = suite_create("weights_links");
  TCase* tr = tcase_create("result");
  tcase_set_timeout(tr, 60);
  tcase_add_test(tr, test_links_skeleton_structure);
  tcase_add_test(tr, test_links_count_rule);
  tcase_add_test(tr, test_links_spread_weights);
  tcase_add_test(tr, test_links_bind_space);
  tcase_add_test(tr, test_links_pose_keeps_child_world);
  tcase_add_test(tr, test_links_cylinder_volume_150);
  tcase_add_test(tr, test_links_relink_keeps_the_scene);
  suite_add_tcase(s, tr);
  TCase* tc = tcase_create("corpus");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_links_corpus_cesium_man);
  suite_add_tcase(s, tc);
  TCase* tv = tcase_create("validity");
  tcase_add_test(tv, test_links_bad_input);
  suite_add_tcase(s, tv);
  return s;
}

int main(void) { return skt_run_suite(links_suite()); }
