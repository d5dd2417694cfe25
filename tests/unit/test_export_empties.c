/* test_export_empties.c - a scene's empty nodes (locators, sockets) in the .dae and .fbx files Assimp's writers make
 * (io/scene_export_objects.c). Before, every file written anew through Assimp dropped them: a glTF character's
 * socket converted to FBX was gone. Asserted on Blender-written files (tests/data):
 * - scene_objects.fbx's empties (one on the mesh object, one on top, one under that one) to .dae, and through its .glb
 *   to .fbx and .dae: each read back under the same parent (in .fbx the one on the mesh on top), at the same place
 *   (compared in glTF's frame);
 * - animated_objects.fbx's keyed empties (one along a path, one turning and scaling) through its .glb to .fbx and .dae
 *   and from the .fbx to .dae (Collada's one timeline): the same first and last key times and the same places at
 *   six times;
 * - the writers name the cameras and lights they leave out. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skinkit.h"

static char g_dir[64];

static sk_scene* load(const char* path) {
  sk_scene* s = NULL;
  sk_error e;
  ck_assert_msg(sk_scene_load(path, NULL, &s, &e) == SK_OK, "%s: %s", path, e.message);
  return s;
}

static sk_scene* through(const sk_scene* s, const char* name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  sk_save_options o = {.size = sizeof o, .overwrite = 1};
  sk_error e;
  ck_assert_msg(sk_scene_save(s, path, &o, &e) == SK_OK, "%s: %s", path, e.message);
  return load(path);
}

static int32_t find(const sk_scene* s, const char* name) {
  for (uint32_t i = 0; i < sk_scene_object_count(s); ++i)
    if (!strcmp(sk_scene_object_name(s, i), name)) return (int32_t)i;
  return -1;
}

/* m (column-major, the scene's frame) into glTF's frame. */
static void to_gltf(const sk_scene* s, const float m[16], double out[16]) {
  float g[16];
  sk_scene_frame(s, NULL, NULL, g);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double w = 0.0;
      for (int k = 0; k < 4; ++k) w += (double)g[k * 4 + r] * m[c * 4 + k];
      out[c * 4 + r] = w;
    }
}

static void same_place(const sk_scene* a, const float* wa, const sk_scene* b, const float* wb, const char* what) {
  double x[16], y[16];
  to_gltf(a, wa, x);
  to_gltf(b, wb, y);
  for (int k = 0; k < 16; ++k)
    ck_assert_msg(fabs(x[k] - y[k]) <= 1e-4 * fmax(1.0, fabs(x[k])), "%s: [%d] %g, read back %g", what, k, x[k], y[k]);
}

/* Every empty of src is in out, under the same parent (object, joint or mesh), at the same place. */
static void same_empties(const sk_scene* src, const sk_scene* out, const char* label, uint32_t want,
                         bool mesh_parents) {
  uint32_t seen = 0;
  for (uint32_t i = 0; i < sk_scene_object_count(src); ++i) {
    sk_object_info a = {.size = sizeof a}, b = {.size = sizeof b};
    ck_assert_int_eq(sk_scene_object_info(src, i, &a, NULL), SK_OK);
    if (a.kind != SK_OBJECT_EMPTY) continue;
    const int32_t k = find(out, a.name);
    ck_assert_msg(k >= 0, "%s: empty %s not written", label, a.name);
    ck_assert_int_eq(sk_scene_object_info(out, (uint32_t)k, &b, NULL), SK_OK);
    ck_assert_int_eq(b.kind, SK_OBJECT_EMPTY);
    const char* pa = a.parent_mesh && !mesh_parents ? NULL : sk_scene_object_parent(src, i);
    const char* pb = sk_scene_object_parent(out, (uint32_t)k);
    ck_assert_msg(pa ? pb && !strcmp(pa, pb) : !pb, "%s: %s hangs from %s, read back from %s", label, a.name,
                  pa ? pa : "(top)", pb ? pb : "(top)");
    if (mesh_parents) /* .fbx: an empty on a mesh hangs from the root, at its place (scene_export_objects.c) */
      ck_assert_msg(!a.parent_mesh || (b.parent_mesh && !strcmp(a.parent_mesh, b.parent_mesh)), "%s: %s off its mesh",
                    label, a.name);
    char what[160];
    snprintf(what, sizeof what, "%s: %s", label, a.name);
    same_place(src, a.world, out, b.world, what);
    ++seen;
  }
  ck_assert_uint_eq(seen, want);
}

START_TEST(empties_reach_dae_and_fbx) {
  sk_scene* fbx = load(skt_data("scene_objects.fbx"));
  sk_scene* dae = through(fbx, "objects.dae");
  same_empties(fbx, dae, "fbx -> dae", 3, true);
  sk_scene* glb = through(fbx, "objects.glb");
  sk_scene* fbx2 = through(glb, "objects_from_glb.fbx");
  same_empties(glb, fbx2, "glb -> fbx", 3, false);
  sk_scene* dae2 = through(glb, "objects_from_glb.dae");
  same_empties(glb, dae2, "glb -> dae", 3, true);
  sk_scene_destroy(dae2);
  sk_scene_destroy(fbx2);
  sk_scene_destroy(glb);
  sk_scene_destroy(dae);
  sk_scene_destroy(fbx);
}
END_TEST

/* The keyed empties of src (Dolly along a path, Spinner turning and scaling) in out: each of the source's key times
 * among out's, and the same places at times before, between and after the keys. */
static void same_keyed_empties(const sk_scene* src, const sk_scene* out, const char* label) {
  static const char* const k_keyed[] = {"Dolly", "Spinner"};
  for (int e = 0; e < 2; ++e) {
    const int32_t a = find(src, k_keyed[e]), b = find(out, k_keyed[e]);
    ck_assert(a >= 0 && b >= 0);
    double ta[256], tb[256];
    size_t na = 0, nb = 0;
    ck_assert_int_eq(sk_scene_object_key_times(src, 0, (uint32_t)a, ta, 256, &na, NULL), SK_OK);
    ck_assert_int_eq(sk_scene_object_key_times(out, 0, (uint32_t)b, tb, 256, &nb, NULL), SK_OK);
    ck_assert_msg(na >= 2 && nb >= 2, "%s: %s: %zu keys, %zu read back", label, k_keyed[e], na, nb);
    for (size_t i = 0; i < na; ++i) { /* every source key is kept (Collada's timeline adds the clip's 0 and end) */
      size_t j = 0;
      while (j < nb && fabs(ta[i] - tb[j]) >= 1e-5) ++j;
      ck_assert_msg(j < nb, "%s: %s: key at %g s not read back", label, k_keyed[e], ta[i]);
    }
    static const double k_times[] = {0.0, 0.3, 0.77, 1.25, 1.6667, 3.0};
    for (size_t q = 0; q < sizeof k_times / sizeof *k_times; ++q) {
      float wa[16], wb[16];
      skt_object_world_at(src, (uint32_t)a, k_times[q], wa);
      skt_object_world_at(out, (uint32_t)b, k_times[q], wb);
      char what[96];
      snprintf(what, sizeof what, "%s: %s at %g s", label, k_keyed[e], k_times[q]);
      same_place(src, wa, out, wb, what);
    }
  }
}

START_TEST(keyed_empties_reach_fbx_and_dae) {
  sk_scene* src = load(skt_data("animated_objects.fbx"));
  sk_scene* glb = through(src, "animated.glb");
  sk_scene* fbx = through(glb, "animated_from_glb.fbx");
  same_empties(glb, fbx, "glb -> fbx", 2, false);
  same_keyed_empties(glb, fbx, "glb -> fbx");
  sk_scene* dae = through(src, "animated.dae");
  same_empties(src, dae, "fbx -> dae", 2, true);
  same_keyed_empties(src, dae, "fbx -> dae");
  sk_scene* dae2 = through(glb, "animated_from_glb.dae");
  same_keyed_empties(glb, dae2, "glb -> dae");
  sk_scene_destroy(dae2);
  sk_scene_destroy(dae);
  sk_scene_destroy(fbx);
  sk_scene_destroy(glb);
  sk_scene_destroy(src);
}
END_TEST

START_TEST(collada_says_what_it_leaves_out) {
  skio_scene* s = skt_scene_load(skt_data("animated_objects.fbx"));
  char path[256];
  const char* note = skt_scene_save(s, g_dir, "animated.dae", path, sizeof path);
  ck_assert_msg(strstr(note, "not written: 2 camera(s), 1 light(s)") && !strstr(note, "empty"), "note: %s", note);
  skio_scene_destroy(s);
}
END_TEST

static void setup(void) { skt_tmpdir_make(g_dir, sizeof g_dir, "empties"); }

static void teardown(void) { skt_tmpdir_remove(g_dir); }

int main(void) {
  Suite* s = suite_create("export_empties");
  TCase* tc = tcase_create("empties");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, empties_reach_dae_and_fbx);
  tcase_add_test(tc, keyed_empties_reach_fbx_and_dae);
  tcase_add_test(tc, collada_says_what_it_leaves_out);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
