/* test_export_empties.c - a scene's empty nodes (locators, sockets) in the .dae and .fbx files Assimp's writers make
 * (io/scene_export_objects.c). Before, every file written anew through Assimp dropped them: a glTF character's
 * socket converted to FBX was gone. Asserted on Blender-written files (tests/data):
 * - scene_objects.fbx's empties (one on the mesh object, one on top, one under that one) to .dae, and through its .glb
 *   to .fbx and .dae: each read back under the same parent (in .fbx the one on the mesh on top), at the same place
 *   (compared in glTF's frame);
 * - animated_objects.fbx's keyed empties (one along a path, one turning and scaling) through its .glb to .fbx and .dae
 *   and from the .fbx to .dae (Collada's one timeline): the same first and last key times and the same places at
 *   six times;
 * - a glTF socket keyed alone (socket_anim.glb) stays an empty on its bone with its keys in .fbx and .dae;
 * - perspective cameras and lights reach .dae too, with their keys (cameras_and_lights_reach_dae), and every camera
 *   and light binary FBX (cameras_and_lights_reach_fbx);
 * - the writers name the cameras and lights they leave out.
 * Across glTF and FBX / Collada an empty's own axes turn (session 75, k_c): compared so, positions exactly. */
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

static sk_scene* through_as(const sk_scene* s, const char* name, const char* format) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  sk_save_options o = {.size = sizeof o, .overwrite = 1, .format = format};
  sk_error e;
  ck_assert_msg(sk_scene_save(s, path, &o, &e) == SK_OK, "%s: %s", path, e.message);
  return load(path);
}

static sk_scene* through(const sk_scene* s, const char* name) { return through_as(s, name, NULL); }

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

/* The own axes an empty of a glTF file is given in .fbx and .dae, and the other way (session 75, scene_frame.c:
 * Blender's glTF exporter and importer turn an object's own axes between Z up and Y up, its FBX and Collada ones do
 * not, so the same empty in Blender has world W in a .glb and W C in the .fbx or .dae): C, (x, y, z) -> (x, z, -y),
 * on the right of its world; its position is the same. Cameras and lights keep their own axes (no turn). */
static const float k_c[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
static const float k_c_inv[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1};

/* w turn (turn NULL: w). */
static void turned(const float w[16], const float* turn, float out[16]) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      float v = 0.0f;
      for (int k = 0; k < 4; ++k) v += w[k * 4 + r] * (turn ? turn[c * 4 + k] : (float)(c == k));
      out[c * 4 + r] = v;
    }
}

/* b's wb is a's wa turned by turn (NULL: none) on the right, both compared in glTF's frame. */
static void same_place(const sk_scene* a, const float* wa, const sk_scene* b, const float* wb, const char* what,
                       const float* turn) {
  double x[16], y[16];
  float t[16];
  turned(wa, turn, t);
  to_gltf(a, t, x);
  to_gltf(b, wb, y);
  for (int k = 0; k < 16; ++k)
    ck_assert_msg(fabs(x[k] - y[k]) <= 1e-4 * fmax(1.0, fabs(x[k])), "%s: [%d] %g, read back %g", what, k, x[k], y[k]);
}

/* Every empty of src is in out, under the same parent (object, joint or mesh), at the same place (its world turned
 * by turn on the right, NULL: none). */
static void same_empties(const sk_scene* src, const sk_scene* out, const char* label, uint32_t want, bool mesh_parents,
                         const float* turn) {
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
    same_place(src, a.world, out, b.world, what, turn);
    ++seen;
  }
  ck_assert_uint_eq(seen, want);
}

START_TEST(empties_reach_dae_and_fbx) {
  sk_scene* fbx = load(skt_data("scene_objects.fbx"));
  sk_scene* dae = through(fbx, "objects.dae");
  same_empties(fbx, dae, "fbx -> dae", 3, true, NULL);
  sk_scene* glb = through(fbx, "objects.glb");
  same_empties(fbx, glb, "fbx -> glb", 3, true, k_c_inv);
  sk_scene* fbx2 = through(glb, "objects_from_glb.fbx");
  same_empties(glb, fbx2, "glb -> fbx", 3, false, k_c);
  sk_scene* dae2 = through(glb, "objects_from_glb.dae");
  same_empties(glb, dae2, "glb -> dae", 3, true, k_c);
  sk_scene_destroy(dae2);
  sk_scene_destroy(fbx2);
  sk_scene_destroy(glb);
  sk_scene_destroy(dae);
  sk_scene_destroy(fbx);
}
END_TEST

/* The keyed objects of src named in k_keyed[0, n) (by default: the empties Dolly along a path, Spinner turning and
 * scaling) in out: each of the source's key times among out's, and the same places at times before, between and after
 * the keys. */
static void same_keyed(const sk_scene* src, const sk_scene* out, const char* label, const char* const* k_keyed, int n,
                       const float* turn) {
  for (int e = 0; e < n; ++e) {
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
      same_place(src, wa, out, wb, what, turn);
    }
  }
}

static void same_keyed_empties(const sk_scene* src, const sk_scene* out, const char* label, const float* turn) {
  static const char* const k_keyed[] = {"Dolly", "Spinner"};
  same_keyed(src, out, label, k_keyed, 2, turn);
}

/* A glTF socket (a node no skin lists, on bone "shin") keyed by a clip that keys nothing else (socket_anim.glb): an
 * empty on its bone in the source, and in the .fbx and the .dae with its keys. Before, the socket was read as a joint
 * (a bone in Blender's FBX import, where its glTF import makes an empty), and once an empty its clip was not written:
 * it keyed no joint. */
START_TEST(keyed_socket_alone_reaches_fbx_and_dae) {
  static const char* const k_socket[] = {"WeaponSocket"};
  sk_scene* src = load(skt_data("socket_anim.glb"));
  const int32_t at = find(src, "WeaponSocket");
  ck_assert_int_ge(at, 0);
  ck_assert_int_eq(sk_scene_object_kind(src, (uint32_t)at), SK_OBJECT_EMPTY);
  ck_assert_str_eq(sk_scene_object_parent(src, (uint32_t)at), "shin");
  sk_scene* fbx = through(src, "socket_anim.fbx"); /* the socket's own axes as Blender's importers read each file */
  same_keyed(src, fbx, "glb -> fbx", k_socket, 1, k_c);
  sk_scene* dae = through(src, "socket_anim.dae");
  same_keyed(src, dae, "glb -> dae", k_socket, 1, k_c);
  sk_scene_destroy(dae);
  sk_scene_destroy(fbx);
  sk_scene_destroy(src);
}
END_TEST

START_TEST(keyed_empties_reach_fbx_and_dae) {
  sk_scene* src = load(skt_data("animated_objects.fbx"));
  sk_scene* glb = through(src, "animated.glb");
  same_keyed_empties(src, glb, "fbx -> glb", k_c_inv);
  sk_scene* fbx = through(glb, "animated_from_glb.fbx");
  same_empties(glb, fbx, "glb -> fbx", 2, false, k_c);
  same_keyed_empties(glb, fbx, "glb -> fbx", k_c);
  sk_scene* dae = through(src, "animated.dae");
  same_empties(src, dae, "fbx -> dae", 2, true, NULL);
  same_keyed_empties(src, dae, "fbx -> dae", NULL);
  sk_scene* dae2 = through(glb, "animated_from_glb.dae");
  same_keyed_empties(glb, dae2, "glb -> dae", k_c);
  sk_scene_destroy(dae2);
  sk_scene_destroy(dae);
  sk_scene_destroy(fbx);
  sk_scene_destroy(glb);
  sk_scene_destroy(src);
}
END_TEST

static bool near_rel(double a, double b) { return fabs(a - b) <= 1e-4 * fmax(1.0, fabs(a)); }

/* Every perspective camera and every light of src is in out (Collada: Assimp's writer, Blender's light <extra>) as
 * the same kind under the same parent at the same place, with the same field of view, aspect and clip planes (an
 * infinite far plane at 1000 units), or the same type, colour, intensity and cone; want of them. */
static void same_lenses(const sk_scene* src, const sk_scene* out, const char* label, uint32_t want, bool ortho) {
  uint32_t seen = 0;
  for (uint32_t i = 0; i < sk_scene_object_count(src); ++i) {
    sk_object_info a = {.size = sizeof a}, b = {.size = sizeof b};
    ck_assert_int_eq(sk_scene_object_info(src, i, &a, NULL), SK_OK);
    if (a.kind == SK_OBJECT_EMPTY || (a.kind == SK_OBJECT_CAMERA && a.orthographic && !ortho)) continue;
    const int32_t k = find(out, a.name);
    ck_assert_msg(k >= 0, "%s: %s not written", label, a.name);
    ck_assert_int_eq(sk_scene_object_info(out, (uint32_t)k, &b, NULL), SK_OK);
    ck_assert_int_eq(b.kind, a.kind);
    const char *pa = sk_scene_object_parent(src, i), *pb = sk_scene_object_parent(out, (uint32_t)k);
    ck_assert_msg(pa ? pb && !strcmp(pa, pb) : !pb, "%s: %s hangs from %s, read back from %s", label, a.name,
                  pa ? pa : "(top)", pb ? pb : "(top)");
    char what[160];
    snprintf(what, sizeof what, "%s: %s", label, a.name);
    same_place(src, a.world, out, b.world, what, NULL);
    double ua = 1.0, ub = 1.0; /* clip planes in metres (an FBX's scene is in its unit, centimetres) */
    sk_scene_frame(src, &ua, NULL, NULL);
    sk_scene_frame(out, &ub, NULL, NULL);
    if (a.kind == SK_OBJECT_CAMERA && a.orthographic)
      ck_assert_msg(b.orthographic && near_rel(a.xmag * ua, b.xmag * ub) && near_rel(a.znear * ua, b.znear * ub),
                    "%s: orthographic %u, half width %g m, read back %g m", what, b.orthographic, a.xmag * ua,
                    b.xmag * ub);
    else if (a.kind == SK_OBJECT_CAMERA)
      ck_assert_msg(near_rel(a.yfov, b.yfov) && near_rel(a.aspect > 0 ? a.aspect : 1.0, b.aspect) &&
                        near_rel(a.znear * ua, b.znear * ub) &&
                        near_rel(a.zfar > 0 ? a.zfar * ua : 1000.0 * ub, b.zfar * ub),
                    "%s: yfov %g %g, aspect %g %g, clip %g-%g, read back %g-%g", what, a.yfov, b.yfov, a.aspect,
                    b.aspect, a.znear, a.zfar, b.znear, b.zfar);
    else
      ck_assert_msg(b.light_type == a.light_type && near_rel(a.color[0], b.color[0]) &&
                        near_rel(a.color[1], b.color[1]) && near_rel(a.color[2], b.color[2]) &&
                        near_rel(a.intensity, b.intensity) &&
                        (a.light_type != SK_LIGHT_SPOT || near_rel(a.outer_cone, b.outer_cone)),
                    "%s: type %d %d, intensity %g %g, cone %g %g", what, a.light_type, b.light_type, a.intensity,
                    b.intensity, a.outer_cone, b.outer_cone);
    ++seen;
  }
  ck_assert_uint_eq(seen, want);
}

/* Cameras and lights reach .dae (Assimp's Collada writer, its perspective <optics> made orthographic where the camera
 * is; before, the note named them as not written): from Blender's FBX and from its .glb, both cameras and four lights
 * (one on a bone), and the keyed camera and spot light of animated_objects.fbx with their keys. */
START_TEST(cameras_and_lights_reach_dae) {
  sk_scene* fbx = load(skt_data("scene_objects.fbx"));
  sk_scene* dae = through(fbx, "lenses.dae");
  same_lenses(fbx, dae, "fbx -> dae", 6, true);
  sk_scene* glb = through(fbx, "lenses.glb");
  sk_scene* dae2 = through(glb, "lenses_from_glb.dae");
  same_lenses(glb, dae2, "glb -> dae", 6, true);
  sk_scene* anim = load(skt_data("animated_objects.fbx"));
  sk_scene* dae3 = through(anim, "animated_lenses.dae");
  same_lenses(anim, dae3, "animated fbx -> dae", 3, true);
  static const char* const k_keyed[] = {"DollyCam", "Follow"};
  same_keyed(anim, dae3, "animated fbx -> dae", k_keyed, 2, NULL);
  sk_scene_destroy(dae3);
  sk_scene_destroy(anim);
  sk_scene_destroy(dae2);
  sk_scene_destroy(glb);
  sk_scene_destroy(dae);
  sk_scene_destroy(fbx);
}
END_TEST

/* Cameras and lights reach binary FBX (fbx_lenses_write.c; before, Assimp's FBX writer dropped them, named in the
 * note): scene_objects.fbx through its .glb, both cameras (the orthographic one too) and the four lights, and
 * animated_objects.fbx through its .glb, the keyed camera and spot light with their keys and the camera riding the
 * keyed empty. */
START_TEST(cameras_and_lights_reach_fbx) {
  sk_scene* fbx = load(skt_data("scene_objects.fbx"));
  sk_scene* glb = through(fbx, "lenses.glb");
  sk_scene* back = through(glb, "lenses_from_glb.fbx");
  same_lenses(glb, back, "glb -> fbx", 6, true);
  sk_scene* ascii = through_as(glb, "lenses_from_glb_ascii.fbx", "fbxa"); /* its orthographic camera: not compared */
  same_lenses(glb, ascii, "glb -> ASCII fbx", 5, false);                  /* (read back as a perspective one) */
  sk_scene_destroy(ascii);
  sk_scene* anim = load(skt_data("animated_objects.fbx"));
  sk_scene* aglb = through(anim, "animated_lenses.glb");
  sk_scene* aback = through(aglb, "animated_lenses_from_glb.fbx");
  same_lenses(aglb, aback, "animated glb -> fbx", 3, true);
  static const char* const k_keyed[] = {"DollyCam", "Follow"};
  same_keyed(aglb, aback, "animated glb -> fbx", k_keyed, 2, NULL);
  sk_scene_destroy(aback);
  sk_scene_destroy(aglb);
  sk_scene_destroy(anim);
  sk_scene_destroy(back);
  sk_scene_destroy(glb);
  sk_scene_destroy(fbx);
}
END_TEST

START_TEST(collada_says_what_it_leaves_out) {
  skio_scene* s = skt_scene_load(skt_data("scene_objects.fbx")); /* every camera and light is written: no note */
  char path[256];
  const char* note = skt_scene_save(s, g_dir, "objects.dae", path, sizeof path);
  ck_assert_msg(!strstr(note, "camera") && !strstr(note, "light") && !strstr(note, "empty"), "note: %s", note);
  skio_scene_destroy(s);
  s = skt_scene_load(skt_data("animated_objects.fbx")); /* ASCII FBX too (session 48): nothing named */
  char ascii_note[1024];
  skio_export_options o = {0};
  o.format = "fbxa";
  o.note = ascii_note;
  o.note_size = sizeof ascii_note;
  snprintf(path, sizeof path, "%s/animated_ascii.fbx", g_dir);
  skc_err err = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(!strstr(ascii_note, "camera") && !strstr(ascii_note, "light"), "note: %s", ascii_note);
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
  tcase_add_test(tc, keyed_socket_alone_reaches_fbx_and_dae);
  tcase_add_test(tc, cameras_and_lights_reach_dae);
  tcase_add_test(tc, cameras_and_lights_reach_fbx);
  tcase_add_test(tc, collada_says_what_it_leaves_out);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
