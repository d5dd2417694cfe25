/* test_morph_keys.c - clip keys of blend shape weights (shape key animation) read, kept and written.
 *  - Blender 3.4's FBX (DeformPercent curves, read by Assimp as morph mesh channels) and glTF ("weights" channel)
 *    exports of one leg with two animated shape keys (tests/data/make_shape_key_anim.py) give the keys Blender set:
 *    Bulge 0 at frame 1, 1 at frame 11, 0.25 at frame 21; Thin 0.5 until frame 5, 0 from frame 15;
 *  - every key survives .fbx -> .glb (written from the scene), .glb -> .glb (the in-place edit), .glb -> .fbx (the
 *    binary FBX pass, also for a clip that keys nothing but the shapes) and .fbx -> .fbx;
 *  - the "weights" channel's STEP and CUBICSPLINE forms are read as linear keys that move the same; a damaged one is
 *    left out with a note (the file loads as it did before such channels were read);
 *  - sk_scene_mesh_set_morph_keys: its rules, and keys that follow their shapes (set_morphs with other shapes drops
 *    them). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

static char g_dir[64];

static sk_scene* load(const char* path) {
  sk_error err;
  sk_scene* s = NULL;
  ck_assert_msg(sk_scene_load(path, NULL, &s, &err) == SK_OK, "%s: %s", path, err.message);
  return s;
}

/* s written to <g_dir>/<name> and read back. */
static sk_scene* round_trip(const sk_scene* s, const char* name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  sk_save_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.overwrite = 1;
  sk_error err;
  ck_assert_msg(sk_scene_save(s, path, &o, &err) == SK_OK, "%s: %s", path, err.message);
  return load(path);
}

static int32_t clip_named(const sk_scene* s, const char* name) {
  for (uint32_t a = 0; a < sk_scene_animation_count(s); ++a)
    if (!strcmp(sk_scene_animation_name(s, a), name)) return (int32_t)a;
  return -1;
}

typedef struct keys {
  size_t n;
  uint32_t T;
  double* t;
  float* w;
} keys;

static keys keys_of(const sk_scene* s, uint32_t m, uint32_t a) {
  keys k = {sk_scene_mesh_morph_keys(s, m, a, NULL, NULL, 0), sk_scene_mesh_morph_count(s, m), NULL, NULL};
  k.t = malloc((k.n + 1) * sizeof *k.t);
  k.w = malloc((k.n * k.T + 1) * sizeof *k.w);
  ck_assert(k.t && k.w);
  ck_assert_uint_eq(sk_scene_mesh_morph_keys(s, m, a, k.t, k.w, k.n), k.n);
  return k;
}

static void keys_free(keys* k) { free(k->t), free(k->w); }

static int32_t shape_named(const sk_scene* s, uint32_t m, const char* name) {
  for (uint32_t t = 0; t < sk_scene_mesh_morph_count(s, m); ++t)
    if (!strcmp(sk_scene_mesh_morph_name(s, m, t), name)) return (int32_t)t;
  return -1;
}

/* Every mesh with blend shapes carries Blender's curves in clip a: 21 keys a frame (1/24 s) apart, Bulge 0 / 1 / 0.25
 * at frames 1, 11, 21 and Thin 0.5 until frame 5, 0 from frame 15. Returns how many meshes have shapes. */
static uint32_t assert_blender_curves(const sk_scene* s, int32_t a, const char* what) {
  ck_assert_msg(a >= 0, "%s: no clip", what);
  uint32_t shaped = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
    if (!sk_scene_mesh_morph_count(s, m)) continue;
    ++shaped;
    keys k = keys_of(s, m, (uint32_t)a);
    const int32_t b = shape_named(s, m, "Bulge"), th = shape_named(s, m, "Thin");
    ck_assert_msg(k.n == 21 && b >= 0 && th >= 0, "%s: mesh %u: %zu keys, shapes %d %d", what, m, k.n, b, th);
    for (size_t i = 1; i < k.n; ++i)
      ck_assert_msg(fabs(k.t[i] - k.t[i - 1] - 1.0 / 24.0) < 1e-5, "%s: key %zu at %.6f after %.6f", what, i, k.t[i],
                    k.t[i - 1]);
    const float bulge[3] = {k.w[0 * k.T + b], k.w[10 * k.T + b], k.w[20 * k.T + b]};
    ck_assert_msg(fabsf(bulge[0]) < 1e-3f && fabsf(bulge[1] - 1.0f) < 1e-3f && fabsf(bulge[2] - 0.25f) < 1e-3f,
                  "%s: Bulge %g %g %g", what, bulge[0], bulge[1], bulge[2]);
    for (size_t i = 0; i < 5; ++i) ck_assert_msg(fabsf(k.w[i * k.T + th] - 0.5f) < 1e-3f, "%s: Thin key %zu", what, i);
    for (size_t i = 14; i < 21; ++i) ck_assert_msg(fabsf(k.w[i * k.T + th]) < 1e-3f, "%s: Thin key %zu", what, i);
    ck_assert_msg(k.w[5 * k.T + th] < 0.5f && k.w[5 * k.T + th] > 0.0f, "%s: Thin falls after frame 5", what);
    keys_free(&k);
  }
  ck_assert_msg(shaped > 0, "%s: no mesh with blend shapes", what);
  return shaped;
}

/* The keys of every shaped mesh of b equal a's (same clip names; mesh order kept): times shifted by one offset (a
 * format's clip may start elsewhere on its timeline) within 1e-4 s, weights within 1e-5. */
static void assert_same_keys(const sk_scene* a, const char* clip_a, const sk_scene* b, const char* clip_b,
                             const char* what) {
  const int32_t ca = clip_named(a, clip_a), cb = clip_named(b, clip_b);
  ck_assert_msg(ca >= 0 && cb >= 0, "%s: clip %s / %s missing", what, clip_a, clip_b);
  uint32_t ma = 0, mb = 0, compared = 0;
  for (;; ++ma, ++mb) {
    while (ma < sk_scene_mesh_count(a) && !sk_scene_mesh_morph_count(a, ma)) ++ma;
    while (mb < sk_scene_mesh_count(b) && !sk_scene_mesh_morph_count(b, mb)) ++mb;
    if (ma >= sk_scene_mesh_count(a) || mb >= sk_scene_mesh_count(b)) break;
    keys ka = keys_of(a, ma, (uint32_t)ca), kb = keys_of(b, mb, (uint32_t)cb);
    ck_assert_msg(ka.n > 0 && ka.n == kb.n && ka.T == kb.T, "%s: mesh %u: %zu / %zu keys", what, mb, ka.n, kb.n);
    for (size_t i = 0; i < ka.n; ++i) {
      ck_assert_msg(fabs((ka.t[i] - ka.t[0]) - (kb.t[i] - kb.t[0])) < 1e-4, "%s: key %zu time", what, i);
      for (uint32_t t = 0; t < ka.T; ++t) {
        const int32_t tb = shape_named(b, mb, sk_scene_mesh_morph_name(a, ma, t));
        ck_assert_msg(tb >= 0 && fabsf(ka.w[i * ka.T + t] - kb.w[i * kb.T + (uint32_t)tb]) < 1e-5f,
                      "%s: key %zu shape %u: %g", what, i, t, tb >= 0 ? (double)kb.w[i * kb.T + (uint32_t)tb] : -1.0);
      }
    }
    keys_free(&ka);
    keys_free(&kb);
    ++compared;
  }
  ck_assert_msg(compared > 0, "%s: no shaped mesh compared", what);
}

START_TEST(blender_fbx_shape_keys_are_read) {
  sk_scene* s = load(skt_data("shape_key_anim.fbx"));
  ck_assert_uint_eq(assert_blender_curves(s, clip_named(s, "Rig|RigAction"), "shape_key_anim.fbx"), 2);
  sk_scene_destroy(s);
}
END_TEST

START_TEST(blender_gltf_weights_channel_is_read) {
  sk_scene* s = load(skt_data("shape_key_anim.glb"));
  const int32_t a = clip_named(s, "KeyAction");
  assert_blender_curves(s, a, "shape_key_anim.glb");
  keys k = keys_of(s, 0, (uint32_t)a);
  ck_assert_msg(fabs(k.t[0] - 1.0 / 24.0) < 1e-5, "first key at frame 1 (%g s)", k.t[0]);
  keys_free(&k);
  ck_assert_uint_eq(sk_scene_mesh_morph_keys(s, 0, (uint32_t)clip_named(s, "RigAction"), NULL, NULL, 0), 0);
  sk_scene_destroy(s);
}
END_TEST

START_TEST(fbx_keys_through_gltf_and_fbx) {
  sk_scene* s = load(skt_data("shape_key_anim.fbx"));
  sk_scene* g = round_trip(s, "from_fbx.glb");
  assert_same_keys(s, "Rig|RigAction", g, "Rig|RigAction", "fbx -> glb");
  sk_scene* f = round_trip(s, "from_fbx.fbx");
  assert_same_keys(s, "Rig|RigAction", f, "Rig|RigAction", "fbx -> fbx");
  sk_scene* gf = round_trip(g, "from_glb.fbx");
  assert_same_keys(s, "Rig|RigAction", gf, "Rig|RigAction", "fbx -> glb -> fbx");
  sk_scene_destroy(gf);
  sk_scene_destroy(f);
  sk_scene_destroy(g);
  sk_scene_destroy(s);
}
END_TEST

START_TEST(gltf_keys_through_gltf_and_fbx) {
  sk_scene* s = load(skt_data("shape_key_anim.glb"));
  sk_scene* g = round_trip(s, "edited.glb");
  assert_same_keys(s, "KeyAction", g, "KeyAction", "glb -> glb");
  sk_scene* f = round_trip(s, "from_glb.fbx"); /* KeyAction keys no joint: the clip must still be written */
  assert_same_keys(s, "KeyAction", f, "KeyAction", "glb -> fbx");
  sk_scene_destroy(f);
  sk_scene_destroy(g);
  sk_scene_destroy(s);
}
END_TEST

/* The keys of cub (CUBICSPLINE with zero tangents) against lin's (the same values, LINEAR): every key of lin at its
 * time with its weights, and every key between two of them on the eased curve, v0 + (3u^2 - 2u^3) (v1 - v0) at
 * fraction u (session 55: read as the values alone, each interval was a straight line); some interval cut. */
static void assert_eased_keys(const sk_scene* lin, const sk_scene* cub) {
  const int32_t a = clip_named(lin, "KeyAction"), c = clip_named(cub, "KeyAction");
  keys kl = keys_of(lin, 0, (uint32_t)a), kc = keys_of(cub, 0, (uint32_t)c);
  ck_assert_uint_gt(kc.n, kl.n);
  ck_assert_uint_eq(kc.T, kl.T);
  size_t j = 0;
  for (size_t i = 0; i < kl.n; ++i) {
    while (j < kc.n && kc.t[j] < kl.t[i] - 1e-6) ++j;
    ck_assert_msg(j < kc.n && fabs(kc.t[j] - kl.t[i]) < 1e-6, "key %zu of the file missing", i);
    for (uint32_t t = 0; t < kl.T; ++t) ck_assert(fabsf(kc.w[j * kc.T + t] - kl.w[i * kl.T + t]) < 1e-6f);
    for (++j; i + 1 < kl.n && j < kc.n && kc.t[j] < kl.t[i + 1] - 1e-6; ++j) {
      const double u = (kc.t[j] - kl.t[i]) / (kl.t[i + 1] - kl.t[i]), e = u * u * (3 - 2 * u);
      for (uint32_t t = 0; t < kl.T; ++t) {
        const double v0 = kl.w[i * kl.T + t], v1 = kl.w[(i + 1) * kl.T + t];
        ck_assert_msg(fabs(kc.w[j * kc.T + t] - (v0 + e * (v1 - v0))) < 1e-4, "interval %zu, u = %g, shape %u: %g", i,
                      u, t, (double)kc.w[j * kc.T + t]);
      }
    }
    --j;
  }
  keys_free(&kl);
  keys_free(&kc);
}

/* The glb with its "weights" sampler rewritten by make_morph_key_forms.py: STEP (every value held to the next key)
 * and CUBICSPLINE (values between zero tangents: eased). */
START_TEST(step_and_cubic_weights_are_read) {
  sk_scene* lin = load(skt_data("shape_key_anim.glb"));
  sk_scene* cub = load(skt_data("shape_key_anim_cubic.glb"));
  assert_eased_keys(lin, cub);
  sk_scene* st = load(skt_data("shape_key_anim_step.glb"));
  const int32_t a = clip_named(lin, "KeyAction"), b = clip_named(st, "KeyAction");
  keys kl = keys_of(lin, 0, (uint32_t)a), ks = keys_of(st, 0, (uint32_t)b);
  ck_assert_uint_eq(ks.n, 2 * kl.n - 1); /* one more key before each next one */
  for (size_t i = 0; i + 1 < kl.n; ++i) {
    ck_assert(fabs(ks.t[2 * i] - kl.t[i]) < 1e-6 && ks.t[2 * i + 1] < kl.t[i + 1] && ks.t[2 * i + 1] > kl.t[i]);
    for (uint32_t t = 0; t < kl.T; ++t) {
      ck_assert(ks.w[2 * i * ks.T + t] == kl.w[i * kl.T + t]);
      ck_assert(ks.w[(2 * i + 1) * ks.T + t] == kl.w[i * kl.T + t]); /* held */
    }
  }
  keys_free(&kl);
  keys_free(&ks);
  sk_scene_destroy(st);
  sk_scene_destroy(cub);
  sk_scene_destroy(lin);
}
END_TEST

/* A "weights" output accessor one value short (make_morph_key_forms.py): the file still loads, with its shapes and the
 * armature's clip, without that channel's keys, and a note says so. */
START_TEST(damaged_weights_channel_is_left_out) {
  sk_scene* s = load(skt_data("shape_key_anim_short.glb"));
  ck_assert_uint_eq(sk_scene_mesh_morph_count(s, 0), 2);
  ck_assert_uint_eq(sk_scene_mesh_morph_keys(s, 0, (uint32_t)clip_named(s, "KeyAction"), NULL, NULL, 0), 0);
  ck_assert_int_ge(clip_named(s, "RigAction"), 0);
  const char* note = sk_scene_note(s);
  ck_assert_msg(note && strstr(note, "blend shape weights channel") && strstr(note, "values for 21 keys"), "note %s",
                note ? note : "(none)");
  sk_scene_destroy(s);
}
END_TEST

START_TEST(set_morph_keys_rules) {
  sk_scene* s = load(skt_data("shape_key_anim.glb"));
  const uint32_t a = (uint32_t)clip_named(s, "RigAction"), T = sk_scene_mesh_morph_count(s, 0);
  ck_assert_uint_eq(T, 2);
  const double t[3] = {0.0, 0.5, 1.0}, bad_t[3] = {0.0, 0.5, 0.5};
  const float w[6] = {0, 0, 1, 0.5f, 0, 1};
  float nan_w[6] = {0, 0, 1, 0.5f, 0, 1};
  nan_w[3] = NAN;
  sk_error err;
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 99, a, 3, t, w, &err), SK_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 0, 99, 3, t, w, &err), SK_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 0, a, 3, bad_t, w, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 0, a, 3, t, nan_w, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 0, a, 3, NULL, w, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(sk_scene_mesh_morph_keys(s, 0, a, NULL, NULL, 0), 0); /* nothing changed */
  for (uint32_t m = 0; m < 2; ++m) /* the leg's two primitives: one node, one "weights" channel */
    ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, m, a, 3, t, w, &err), SK_OK);
  keys k = keys_of(s, 0, a);
  ck_assert(k.n == 3 && !memcmp(k.t, t, sizeof t) && !memcmp(k.w, w, sizeof w));
  keys_free(&k);
  /* the armature's clip now keys the shapes too: written and read back */
  sk_scene* g = round_trip(s, "set.glb");
  assert_same_keys(s, "RigAction", g, "RigAction", "set keys -> glb");
  sk_scene_destroy(g);
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 0, a, 0, NULL, NULL, &err), SK_OK); /* removed */
  ck_assert_uint_eq(sk_scene_mesh_morph_keys(s, 0, a, NULL, NULL, 0), 0);
  /* other shapes drop the keys of the old ones; the same shapes keep them */
  const size_t V = sk_scene_mesh_vertex_count(s, 0);
  float* pos = malloc(V * 3 * 2 * sizeof *pos);
  ck_assert(pos != NULL);
  sk_scene_mesh_morph_positions(s, 0, 0, pos, V * 3);
  sk_scene_mesh_morph_positions(s, 0, 1, pos + V * 3, V * 3);
  const uint32_t key_clip = (uint32_t)clip_named(s, "KeyAction");
  const char* same[2] = {sk_scene_mesh_morph_name(s, 0, 0), sk_scene_mesh_morph_name(s, 0, 1)};
  char n0[64], n1[64];
  snprintf(n0, sizeof n0, "%s", same[0]), snprintf(n1, sizeof n1, "%s", same[1]);
  const char* names[2] = {n0, n1};
  ck_assert_int_eq(sk_scene_mesh_set_morphs(s, 0, 2, names, NULL, pos, NULL, &err), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_morph_keys(s, 0, key_clip, NULL, NULL, 0), 21);
  const char* other[2] = {"Wide", "Thin"};
  ck_assert_int_eq(sk_scene_mesh_set_morphs(s, 0, 2, other, NULL, pos, NULL, &err), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_morph_keys(s, 0, key_clip, NULL, NULL, 0), 0);
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 0, a, 1, t, w, &err), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_morphs(s, 0, 0, NULL, NULL, NULL, NULL, &err), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_morph_keys(s, 0, a, 1, t, w, &err), SK_ERR_INVALID_ARGUMENT); /* no shapes */
  free(pos);
  sk_scene_destroy(s);
}
END_TEST

static void setup(void) { skt_tmpdir_make(g_dir, sizeof g_dir, "morphkeys"); }
static void teardown(void) { skt_tmpdir_remove(g_dir); }

static Suite* suite(void) {
  Suite* s = suite_create("morph_keys");
  TCase* t = tcase_create("keys");
  tcase_set_timeout(t, 120);
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, blender_fbx_shape_keys_are_read);
  tcase_add_test(t, blender_gltf_weights_channel_is_read);
  tcase_add_test(t, fbx_keys_through_gltf_and_fbx);
  tcase_add_test(t, gltf_keys_through_gltf_and_fbx);
  tcase_add_test(t, step_and_cubic_weights_are_read);
  tcase_add_test(t, damaged_weights_channel_is_left_out);
  tcase_add_test(t, set_morph_keys_rules);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
