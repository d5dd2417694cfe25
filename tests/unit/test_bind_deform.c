#define _DEFAULT_SOURCE /* mkdtemp, readlink */
/* test_bind_deform.c - `skinkit bind` weights only deform joints by default: the joints some skin of the input lists,
 * never the scene root, an armature object node or an importer's synthetic root (which are in the skeleton only as
 * ancestors of the bones). Checked through the real CLI (build/skinkit, beside this test) on Blender 3.4's
 * tests/data/rigid_parts.fbx (RootNode and the armature object "Rig" above the bones) for every method, with
 * `--all-joints` as the control that does reach them; and, when SKINKIT_ASSETS is set, on every skinned corpus file
 * for every method (release builds only: five binds per file take minutes under the sanitizers). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"

static const char* const k_methods[] = {"robust", "heat", "nearest", "capsule", "delaunay"};

static const char* cli_path(void) {
  static char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 16);
  ck_assert(n > 0);
  buf[n] = 0;
  char* slash = strrchr(buf, '/');
  strcpy(slash + 1, "skinkit");
  return buf;
}

static const char* data_path(const char* name) {
  static char buf[4096];
  const char* me = __FILE__;
  const char* cut = strstr(me, "tests/unit/");
  snprintf(buf, sizeof buf, "%.*s%s", cut ? (int)(cut - me) : 0, me, name);
  return buf;
}

/* Names of the joints some mesh of `path` binds (a NUL-separated list in a malloc'd buffer), or NULL. */
static char* deform_names(const char* path, uint32_t* count) {
  sk_scene* s = NULL;
  *count = 0;
  if (sk_scene_load(path, NULL, &s, NULL) != SK_OK) return NULL;
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nj = sk ? sk_skeleton_joint_count(sk) : 0;
  uint8_t* any = calloc(nj + 1, 1);
  uint8_t* bound = calloc(nj + 1, 1);
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m)
    if (sk_scene_mesh_inverse_binds(s, m, NULL, bound, NULL) == SK_OK)
      for (uint32_t j = 0; j < nj; ++j) any[j] |= bound[j];
  size_t len = 1;
  for (uint32_t j = 0; j < nj; ++j) len += any[j] ? strlen(sk_skeleton_joint_name(sk, j)) + 1 : 0;
  char* names = calloc(len, 1);
  char* at = names;
  for (uint32_t j = 0; j < nj; ++j)
    if (any[j]) {
      strcpy(at, sk_skeleton_joint_name(sk, j));
      at += strlen(at) + 1;
      ++*count;
    }
  free(any);
  free(bound);
  sk_scene_destroy(s);
  return names;
}

static int in_list(const char* names, uint32_t count, const char* name) {
  for (uint32_t k = 0; k < count; ++k, names += strlen(names) + 1)
    if (strcmp(names, name) == 0) return 1;
  return 0;
}

/* A node that never deforms whatever the skins say: a synthetic root (Assimp's RootNode/ROOT, Z_UP, Scene), an
 * armature object node (Armature, *_rig), or the skeleton's root when it has children (the scene root). This is
 * checked independently of the CLI's own rule, so the test does not only echo it. */
static int never_deforms(const sk_skeleton* sk, uint32_t j) {
  static const char* const k_synthetic[] = {"RootNode", "ROOT", "Z_UP", "Scene", "Armature"};
  const char* nm = sk_skeleton_joint_name(sk, j);
  for (size_t k = 0; k < sizeof k_synthetic / sizeof *k_synthetic; ++k)
    if (strcmp(nm, k_synthetic[k]) == 0) return 1;
  size_t len = strlen(nm);
  if (len >= 4 && strcmp(nm + len - 4, "_rig") == 0) return 1;
  if (sk_skeleton_joint_parent(sk, j) >= 0) return 0;
  for (uint32_t c = 0; c < sk_skeleton_joint_count(sk); ++c)
    if (sk_skeleton_joint_parent(sk, c) == (int32_t)j) return 1;
  return 0;
}

/* Joint names of `out` that carry weight but are not in the allowed list: how many, and the first in *first. */
static uint32_t foreign_weight(const char* out, const char* names, uint32_t count, char* first, size_t cap) {
  sk_scene* s = NULL;
  ck_assert_msg(sk_scene_load(out, NULL, &s, NULL) == SK_OK, "cannot read back %s", out);
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t bad = 0;
  for (uint32_t m = 0; sk && m < sk_scene_mesh_count(s); ++m) {
    sk_skin* skin = sk_scene_mesh_skin(s, m);
    size_t nv = skin ? sk_scene_mesh_vertex_count(s, m) : 0;
    for (size_t v = 0; v < nv; ++v) {
      uint32_t j[64];
      float w[64];
      size_t n = sk_skin_get_vertex(skin, v, j, w, 64);
      for (size_t k = 0; k < n && k < 64; ++k) {
        const char* nm = sk_skeleton_joint_name(sk, j[k]);
        if (w[k] > 0.0f && (!in_list(names, count, nm) || never_deforms(sk, j[k]))) {
          if (!bad++) snprintf(first, cap, "%s", nm);
        }
      }
    }
  }
  sk_scene_destroy(s);
  return bad;
}

static uint32_t bind_and_count(const char* in, const char* method, const char* extra, const char* names,
                               uint32_t count, char* first, int* exit_code) {
  char dir[] = "/tmp/skt_bdeform_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char args[8192], out[4096], errp[4200], text[4096];
  snprintf(out, sizeof out, "%s/out.glb", dir);
  snprintf(errp, sizeof errp, "%s/err.txt", dir);
  snprintf(args, sizeof args, "bind '%s' '%s' --method %s %s", in, out, method, extra);
  *exit_code = skt_run_cli(dir, cli_path(), args, errp, text, sizeof text);
  uint32_t bad = *exit_code == 0 ? foreign_weight(out, names, count, first, 128) : 0;
  unlink(out);
  unlink(errp);
  rmdir(dir);
  return bad;
}

START_TEST(bind_weights_only_the_skins_joints) {
  const char* in = data_path("tests/data/rigid_parts.fbx");
  uint32_t count;
  char* names = deform_names(in, &count);
  ck_assert_ptr_nonnull(names);
  ck_assert(in_list(names, count, "upper") && in_list(names, count, "lower") && !in_list(names, count, "Rig"));
  for (size_t m = 0; m < sizeof k_methods / sizeof *k_methods; ++m) {
    char first[128] = "";
    int rc;
    uint32_t bad = bind_and_count(in, k_methods[m], "", names, count, first, &rc);
    ck_assert_msg(rc == 0, "%s: exit %d", k_methods[m], rc);
    ck_assert_msg(bad == 0, "%s: %u weights on non-deform joints (first %s)", k_methods[m], bad, first);
  }
  /* the control: with every node allowed, nearest binding does reach a non-deform node */
  char first[128] = "";
  int rc;
  ck_assert_uint_gt(bind_and_count(in, "nearest", "--all-joints", names, count, first, &rc), 0);
  ck_assert_int_eq(rc, 0);
  free(names);
}
END_TEST

/* A scene built in memory over the joints (names, parents; rest_local NULL) with one unskinned triangle, or
 * (skin_joint >= 0) a triangle whose skin weights every vertex to that joint. */
static sk_scene* scene_of(const char* const* names, const int32_t* parents, uint32_t n, int skin_joint) {
  sk_skeleton_desc sd = {sizeof sd, n, names, parents, NULL, NULL, NULL, NULL};
  sk_skeleton* sk = NULL;
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_skeleton_create(&sd, &sk, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_create(sk, &s, NULL), SK_OK);
  static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  static const uint32_t tri[3] = {0, 1, 2};
  sk_skin* skin = NULL;
  if (skin_joint >= 0) {
    ck_assert_int_eq(sk_skin_create(3, n, &skin, NULL), SK_OK);
    uint32_t off[4] = {0, 1, 2, 3}, jt[3] = {(uint32_t)skin_joint, (uint32_t)skin_joint, (uint32_t)skin_joint};
    float w[3] = {1, 1, 1};
    ck_assert_int_eq(sk_skin_set_csr(skin, off, jt, w, NULL), SK_OK);
  }
  sk_mesh_desc md;
  memset(&md, 0, sizeof md);
  md.size = sizeof md;
  md.vertex_count = 3;
  md.positions = pos;
  md.indices = tri;
  md.index_count = 3;
  md.skin = skin;
  ck_assert_int_eq(sk_scene_add_mesh(s, &md, NULL, NULL), SK_OK);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(sk);
  return s;
}

/* sk_scene_deform_joints on the scene: expect[j] per joint, the count and the rule. */
static void expect_deform(sk_scene* s, const char* expect, uint32_t rule) {
  uint32_t n = (uint32_t)strlen(expect), count = 99, got_rule = 99;
  uint8_t mask[16];
  memset(mask, 7, sizeof mask);
  sk_error err;
  ck_assert_msg(sk_scene_deform_joints(s, mask, 16, &count, &got_rule, &err) == SK_OK, "%s", err.message);
  uint32_t want = 0;
  for (uint32_t j = 0; j < n; ++j) {
    ck_assert_msg(mask[j] == (expect[j] == '1'), "joint %u: %u, expected %c (%s)", j, mask[j], expect[j], expect);
    want += expect[j] == '1';
  }
  ck_assert_uint_eq(count, want);
  ck_assert_uint_eq(got_rule, rule);
}

/* The rule of sk_scene_deform_joints (skinkit.h): a skin's list wins; without one the hierarchy below the scene
 * root, armature nodes and synthetic roots; every joint when nothing is left. */
START_TEST(deform_rule_cases) {
  /* RootNode -> Armature -> hips -> spine, leg: no skin -> the bones below the two wrappers */
  const char* const rig[] = {"RootNode", "Armature", "hips", "spine", "leg"};
  const int32_t rig_p[] = {-1, 0, 1, 2, 2};
  sk_scene* s = scene_of(rig, rig_p, 5, -1);
  expect_deform(s, "00111", SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  /* the same with a skin listing only spine: exactly the skin's list */
  s = scene_of(rig, rig_p, 5, 3);
  expect_deform(s, "00010", SK_DEFORM_RULE_SKINS);
  sk_scene_destroy(s);
  /* a skeleton whose root is a bone keeps it */
  const char* const bare[] = {"Hips", "Spine", "Leg.L", "Leg.R"};
  const int32_t bare_p[] = {-1, 0, 0, 0};
  s = scene_of(bare, bare_p, 4, -1);
  expect_deform(s, "1111", SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  /* an unnamed scene root above an armature object (any case, numbered) and a *_rig node; a bone named like a
   * wrapper below a bone stays a bone */
  const char* const odd[] = {"Scene_0", "armature.001", "Fox_RIG", "pelvis", "root", "ROOT#2"};
  const int32_t odd_p[] = {-1, 0, 1, 2, 3, 4};
  s = scene_of(odd, odd_p, 6, -1);
  expect_deform(s, "000111", SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  const char* const wrapped[] = {"Z_UP", "Armature", "ArmatureBone"}; /* "ArmatureBone": a letter follows */
  const int32_t wrapped_p[] = {-1, 0, 1};
  s = scene_of(wrapped, wrapped_p, 3, -1);
  expect_deform(s, "001", SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  const char* const rig2[] = {"Rig", "upper", "Rigging"}; /* Blender's rigid_parts.fbx armature object */
  const int32_t rig2_p[] = {-1, 0, 1};
  s = scene_of(rig2, rig2_p, 3, -1);
  expect_deform(s, "011", SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  /* a Rigify rig: DEF-* bones beside ORG-* and MCH-* ones and controls; only the DEF-* bones deform, with or
   * without a skin (Blender's exporters list every bone in it) */
  const char* const rigify[] = {"rig", "root", "torso", "ORG-spine", "DEF-spine", "MCH-spine", "DEF-spine.001"};
  const int32_t rigify_p[] = {-1, 0, 1, 2, 3, 3, 4};
  s = scene_of(rigify, rigify_p, 7, -1);
  expect_deform(s, "0000101", SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  s = scene_of(rigify, rigify_p, 7, 4);
  expect_deform(s, "0000100", SK_DEFORM_RULE_SKINS);
  sk_scene_destroy(s);
  s = scene_of(rigify, rigify_p, 7, 3); /* a skin on ORG-spine alone: no DEF-* bone in it, the skin's list stays */
  expect_deform(s, "0001000", SK_DEFORM_RULE_SKINS);
  sk_scene_destroy(s);
  const char* const def_only[] = {"Armature", "DEF-a", "b"}; /* DEF-* without ORG-* / MCH-*: an ordinary rig */
  const int32_t def_only_p[] = {-1, 0, 1};
  s = scene_of(def_only, def_only_p, 3, -1);
  expect_deform(s, "011", SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  /* only wrappers: every joint */
  const char* const lone[] = {"RootNode", "Armature"};
  const int32_t lone_p[] = {-1, 0};
  s = scene_of(lone, lone_p, 2, -1);
  expect_deform(s, "11", SK_DEFORM_RULE_ALL);
  sk_scene_destroy(s);
  /* no skeleton; bad arguments */
  ck_assert_int_eq(sk_scene_create(NULL, &s, NULL), SK_OK);
  uint32_t count = 9, rule = 9;
  ck_assert_int_eq(sk_scene_deform_joints(s, NULL, 0, &count, &rule, NULL), SK_OK);
  ck_assert_uint_eq(count, 0);
  ck_assert_uint_eq(rule, SK_DEFORM_RULE_NONE);
  sk_scene_destroy(s);
  s = scene_of(rig, rig_p, 5, -1);
  uint8_t mask[5];
  sk_error err;
  ck_assert_int_eq(sk_scene_deform_joints(s, mask, 4, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_scene_deform_joints(s, NULL, 5, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_scene_deform_joints(NULL, mask, 5, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sk_scene_deform_joints(s, mask, 5, NULL, NULL, NULL), SK_OK);
  sk_scene_destroy(s);
}
END_TEST

/* rigid_parts.fbx (RootNode -> Rig -> upper -> lower -> hand): its skins list upper, lower and hand */
START_TEST(deform_rule_on_a_skinned_file) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(data_path("tests/data/rigid_parts.fbx"), NULL, &s, NULL), SK_OK);
  const sk_skeleton* sk = sk_scene_skeleton(s);
  ck_assert_str_eq(sk_skeleton_joint_name(sk, 0), "RootNode");
  ck_assert_str_eq(sk_skeleton_joint_name(sk, 1), "Rig");
  expect_deform(s, "00111", SK_DEFORM_RULE_SKINS);
  sk_scene_destroy(s);
  /* two_material_leg.dae (Scene -> Rig -> thigh -> shin) written by skinkit's glTF writer (Rig -> thigh -> shin: the
   * visual scene is no node of it): the armature object, weighting no vertex, still does not deform (it did until
   * session 28: bind could weight it on the .glb and not on its source) */
  ck_assert_int_eq(sk_scene_load(data_path("tests/data/two_material_leg.dae"), NULL, &s, NULL), SK_OK);
  expect_deform(s, "0011", SK_DEFORM_RULE_SKINS);
  char dir[] = "/tmp/skinkit_deform_XXXXXX", out[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(out, sizeof out, "%s/leg.glb", dir);
  sk_save_options so;
  memset(&so, 0, sizeof so);
  so.size = sizeof so;
  sk_error err;
  ck_assert_msg(sk_scene_save(s, out, &so, &err) == SK_OK, "%s", err.message);
  char fbx[80];
  snprintf(fbx, sizeof fbx, "%s/leg.fbx", dir);
  ck_assert_msg(sk_scene_save(s, fbx, &so, &err) == SK_OK, "%s", err.message);
  sk_scene_destroy(s);
  ck_assert_int_eq(sk_scene_load(fbx, NULL, &s, NULL), SK_OK); /* nor of the .fbx: Rig under the file's root */
  uint32_t at;
  ck_assert_int_ne(sk_skeleton_find_joint(sk_scene_skeleton(s), "Scene", &at), SK_OK);
  ck_assert_int_eq(sk_skeleton_find_joint(sk_scene_skeleton(s), "Rig", &at), SK_OK);
  sk_scene_destroy(s);
  remove(fbx);
  ck_assert_int_eq(sk_scene_load(out, NULL, &s, NULL), SK_OK);
  const sk_skeleton* k2 = sk_scene_skeleton(s); /* the <visual_scene> "Scene" is no node of the .glb (session 51) */
  ck_assert_str_eq(sk_skeleton_joint_name(k2, 0), "Rig");
  ck_assert_str_eq(sk_skeleton_joint_name(k2, 1), "thigh");
  expect_deform(s, "011", SK_DEFORM_RULE_SKINS);
  sk_scene_destroy(s);
  remove(out);
  rmdir(dir);
}
END_TEST

static const char* const k_exts[] = {".glb", ".gltf", ".fbx", ".dae", ".x", ".X", ".b3d", ".md5mesh", ".mesh", ".iqm"};

static void walk(const char* dir, int* files) {
  DIR* d = opendir(dir);
  if (!d) return;
  struct dirent* e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(p, files);
      continue;
    }
    const char* dot = strrchr(e->d_name, '.');
    int known = 0;
    for (size_t k = 0; dot && k < sizeof k_exts / sizeof *k_exts; ++k) known |= strcmp(dot, k_exts[k]) == 0;
    if (!known || st.st_size > 4 * 1024 * 1024) continue;
    uint32_t count;
    char* names = deform_names(p, &count);
    if (names && count) {
      ++*files;
      for (size_t m = 0; m < sizeof k_methods / sizeof *k_methods; ++m) {
        char first[128] = "";
        int rc;
        uint32_t bad = bind_and_count(p, k_methods[m], "", names, count, first, &rc);
        ck_assert_msg(bad == 0, "%s %s: %u weights on non-deform joints (first %s)", p, k_methods[m], bad, first);
      }
    }
    free(names);
  }
  closedir(d);
}

START_TEST(corpus_binds_touch_no_non_deform_node) {
  const char* root = skt_assets_dir();
  if (!root || SANITIZED) return;
  int files = 0;
  walk(root, &files);
  ck_assert_int_gt(files, 5);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("bind_deform");
  TCase* tc = tcase_create("deform");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, deform_rule_cases);
  tcase_add_test(tc, deform_rule_on_a_skinned_file);
  tcase_add_test(tc, bind_weights_only_the_skins_joints);
  tcase_add_test(tc, corpus_binds_touch_no_non_deform_node);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
