/* test_object_names.c - the objects of a file keep their names through the writers (session 25). An FBX object
 * "Leg" whose mesh data is "Cylinder" came back from `weights`, `bind` and `convert` as an object "Cylinder" (the
 * writers named each node after its mesh), and an FBX read through Assimp came back with an extra empty "RootNode"
 * object above the armature. Asserted on Blender-written files (tests/data/two_material_leg.fbx: object "Leg" of two
 * materials, which Assimp splits into two meshes; rigid_parts.fbx: "Body", "Gauntlet" on a bone, "Prop"):
 * - the reader records each mesh's node name and the group of meshes one node holds;
 * - written as .fbx, .dae and .glb and read back, every mesh's node has its object's name, the FBX has no second
 *   "RootNode", the Collada file holds an object's meshes under one node, the glTF file has no "RootNode" node at all
 *   and its skin (whose name Blender gives the armature object) is named after the armature "Rig";
 * - sk_mesh_desc.node_name and sk_scene_mesh_node_name carry a name through a rebuilt scene. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"
#include "skio_gltf_doc.h"
#include "skio_scene.h"

static skio_scene* load(const char* path) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s: %s", path, err.message);
  return s;
}

static char g_dir[64];

static skio_scene* round_trip(const skio_scene* s, const char* ext) {
  char path[256];
  snprintf(path, sizeof path, "%s/out.%s", g_dir, ext);
  skio_export_options o = {0};
  o.overwrite = true;
  skc_err err = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", path, err.message);
  return load(path);
}

static uint32_t joints_named(const skio_scene* s, const char* name) {
  uint32_t n = 0;
  for (uint32_t j = 0; s->skeleton && j < s->skeleton->joint_count; ++j) n += !strcmp(s->skeleton->names[j], name);
  return n;
}

START_TEST(reader_records_the_objects) {
  skio_scene* s = load(skt_data("two_material_leg.fbx"));
  ck_assert_uint_eq(s->mesh_count, 2);
  for (uint32_t m = 0; m < 2; ++m) {
    ck_assert_str_eq(s->meshes[m].node_name, "Leg");
    ck_assert_int_ge(s->meshes[m].node_group, 0);
  }
  ck_assert_int_eq(s->meshes[0].node_group, s->meshes[1].node_group);
  skio_scene_destroy(s);
  s = load(skt_data("two_material_leg.glb"));
  ck_assert_uint_eq(s->mesh_count, 2);
  ck_assert_str_eq(s->meshes[0].node_name, "Leg");
  ck_assert_int_eq(s->meshes[0].node_group, s->meshes[1].node_group);
  skio_scene_destroy(s);
}
END_TEST

START_TEST(writers_keep_the_object_names) {
  static const char* const exts[] = {"fbx", "dae", "glb"};
  skio_scene* leg = load(skt_data("two_material_leg.fbx"));
  skio_scene* parts = load(skt_data("rigid_parts.fbx"));
  ck_assert_uint_eq(joints_named(leg, "RootNode"), 1);
  for (int e = 0; e < 3; ++e) {
    skio_scene* b = round_trip(leg, exts[e]);
    ck_assert_uint_eq(b->mesh_count, 2);
    for (uint32_t m = 0; m < 2; ++m) ck_assert_msg(!strcmp(b->meshes[m].node_name, "Leg"), "%s: mesh %u on node %s",
                                                   exts[e], m, b->meshes[m].node_name);
    if (e == 0) { /* FBX: the implicit root is Assimp's RootNode again, not a second one under it */
      ck_assert_uint_eq(joints_named(b, "RootNode"), 1);
      ck_assert_uint_eq(joints_named(b, "RootNode#2"), 0);
      ck_assert_uint_eq(b->skeleton->joint_count, leg->skeleton->joint_count);
    }
    if (e == 1) ck_assert_int_eq(b->meshes[0].node_group, b->meshes[1].node_group); /* one <node> */
    if (e == 2) { /* glTF: Assimp's RootNode is no node of the FBX file, so none of the glTF either */
      ck_assert_uint_eq(joints_named(b, "RootNode"), 0);
      ck_assert_uint_eq(b->skeleton->joint_count + 1, leg->skeleton->joint_count);
    }
    skio_scene_destroy(b);
    b = round_trip(parts, exts[e]);
    static const char* const objects[] = {"Body", "Gauntlet", "Prop"};
    for (int o = 0; o < 3; ++o) {
      bool found = false;
      for (uint32_t m = 0; m < b->mesh_count; ++m) found |= b->meshes[m].node_name && !strcmp(b->meshes[m].node_name, objects[o]);
      ck_assert_msg(found, "%s: no object %s", exts[e], objects[o]);
    }
    skio_scene_destroy(b);
  }
  /* the glTF skin is named after the armature object */
  char path[256];
  snprintf(path, sizeof path, "%s/out.glb", g_dir);
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_int_eq(skio_gltf_doc_load(path, &d, &err), SKC_OK);
  int skin = skio_gltf_item(d, "skins", 0);
  ck_assert(skio_json_streq(d, skio_json_get(d, skin, "name"), "Rig"));
  skio_gltf_doc_destroy(d);
  skio_scene_destroy(leg);
  skio_scene_destroy(parts);
}
END_TEST

START_TEST(abi_node_names) {
  sk_skeleton* sk = NULL;
  sk_scene* scene = NULL;
  sk_error err;
  sk_mesh_desc d;
  skt_triangle_scene(&sk, &scene, &d);
  d.name = "Cylinder";
  d.node_name = "Leg";
  ck_assert_int_eq(sk_scene_add_mesh(scene, &d, NULL, &err), SK_OK);
  ck_assert_int_eq(sk_scene_add_mesh(scene, &d, NULL, &err), SK_OK);
  d.node_name = NULL;
  ck_assert_int_eq(sk_scene_add_mesh(scene, &d, NULL, &err), SK_OK);
  ck_assert_str_eq(sk_scene_mesh_node_name(scene, 0), "Leg");
  ck_assert_str_eq(sk_scene_mesh_node_name(scene, 1), "Leg");
  ck_assert_ptr_null(sk_scene_mesh_node_name(scene, 2));
  ck_assert_ptr_null(sk_scene_mesh_node_name(scene, 3));
  char path[256];
  snprintf(path, sizeof path, "%s/abi.dae", g_dir);
  sk_save_options so;
  memset(&so, 0, sizeof so);
  so.size = sizeof so;
  so.overwrite = 1;
  ck_assert_int_eq(sk_scene_save(scene, path, &so, &err), SK_OK);
  skio_scene* b = load(path);
  ck_assert_uint_eq(b->mesh_count, 3);
  ck_assert_str_eq(b->meshes[0].node_name, "Leg");
  ck_assert_int_eq(b->meshes[0].node_group, b->meshes[1].node_group); /* one node for the two meshes of "Leg" */
  ck_assert_int_ne(b->meshes[0].node_group, b->meshes[2].node_group);
  skio_scene_destroy(b);
  sk_scene_destroy(scene);
  sk_skeleton_destroy(sk);
}
END_TEST

/* Names that are no Collada ids (UTF-8, spaces, '<', '&', quotes, ':', a leading digit) on joints, objects,
 * meshes, materials and clips: Assimp 5.2.5's exporter wrote NUL bytes into the ids of UTF-8 names (a file no
 * reader opens) and could give two names one id. Written as .dae, the file holds no NUL, reads back, and every
 * joint, object and clip has its name (the reader took an object's node id for its name). */
static void rename_all(skio_scene* s) {
  static const char* const k_names[] = {"髪_根元",     "mixamorig:Hips", "left arm <L> & \"x\"",
                                        "ünïcödé.001", "1st bone",       "it's"};
  char name[1400];
  for (uint32_t j = 0; j < s->skeleton->joint_count; ++j) {
    snprintf(name, sizeof name, "%s %u", k_names[j % 6], j);
    free(s->skeleton->names[j]);
    s->skeleton->names[j] = strdup(name);
  }
  /* the last joint: 600 two-byte characters, past what an aiString holds (1023 bytes) */
  char* p = name;
  for (int k = 0; k < 600; ++k) p += sprintf(p, "é");
  free(s->skeleton->names[s->skeleton->joint_count - 1]);
  s->skeleton->names[s->skeleton->joint_count - 1] = strdup(name);
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    snprintf(name, sizeof name, "体 & body %u", m);
    free(s->meshes[m].name);
    s->meshes[m].name = strdup(name);
    free(s->meshes[m].node_name); /* one object (an object of several materials stays one) */
    s->meshes[m].node_name = strdup("Left Leg (L) 脚");
  }
  for (uint32_t m = 0; m < s->material_count; ++m) {
    snprintf(name, sizeof name, "マテリアル <%u>", m);
    free(s->materials[m].name);
    s->materials[m].name = strdup(name);
  }
  for (uint32_t a = 0; a < s->anim_count; ++a) {
    snprintf(name, sizeof name, "走る:run %u", a);
    free(s->anims[a].name);
    s->anims[a].name = strdup(name);
  }
}

static void collada_names(const char* source) {
  skio_scene* s = load(source);
  rename_all(s);
  char path[256];
  snprintf(path, sizeof path, "%s/names.dae", g_dir);
  skio_export_options o = {0};
  o.overwrite = true;
  skc_err err = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", path, err.message);
  FILE* f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  size_t nul = 0, size = 0, bad_utf8 = 0;
  int follow = 0; /* continuation bytes still expected */
  for (int c; (c = fgetc(f)) != EOF; ++size) {
    nul += c == 0;
    if (follow) {
      bad_utf8 += (c & 0xC0) != 0x80;
      follow = (c & 0xC0) == 0x80 ? follow - 1 : 0;
    } else {
      follow = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
      bad_utf8 += c >= 0x80 && c < 0xC0;
    }
  }
  fclose(f);
  ck_assert_msg(size > 0 && nul == 0, "%s (from %s): %zu NUL bytes", path, source, nul);
  ck_assert_msg(!bad_utf8 && !follow, "%s (from %s): %zu bytes break UTF-8", path, source, bad_utf8);
  skio_scene* b = load(path);
  for (uint32_t j = 0; j + 1 < s->skeleton->joint_count; ++j)
    ck_assert_msg(joints_named(b, s->skeleton->names[j]) == 1, "%s: joint \"%s\" lost", source, s->skeleton->names[j]);
  /* the long one: cut to 1022 bytes (511 whole characters), not inside a character */
  const char* longest = s->skeleton->names[s->skeleton->joint_count - 1];
  uint32_t cut = 0;
  for (uint32_t j = 0; j < b->skeleton->joint_count; ++j)
    cut += strlen(b->skeleton->names[j]) == 1022 && !strncmp(b->skeleton->names[j], longest, 1022);
  ck_assert_msg(cut == 1, "%s: the 1,200-byte joint name did not come back cut to 1,022 bytes", source);
  ck_assert_uint_eq(b->mesh_count, s->mesh_count);
  for (uint32_t m = 0; m < b->mesh_count; ++m) { /* the object's and the geometry's names, not their ids */
    ck_assert_msg(b->meshes[m].node_name && !strcmp(b->meshes[m].node_name, "Left Leg (L) 脚"), "%s: mesh %u object %s",
                  source, m, b->meshes[m].node_name ? b->meshes[m].node_name : "(none)");
    ck_assert_str_eq(b->meshes[m].name, s->meshes[m].name);
  }
  ck_assert_uint_eq(b->anim_count, s->anim_count);
  for (uint32_t a = 0; a < s->anim_count; ++a) ck_assert_str_eq(b->anims[a].name, s->anims[a].name);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}

START_TEST(collada_takes_any_name) {
  collada_names(skt_data("two_material_leg.glb"));
  if (skt_assets_dir()) collada_names(skt_asset("gltf/CesiumMan.glb")); /* a clip too */
}
END_TEST

/* Two characters, each its own armature object (tests/data/two_armatures.fbx, Blender 3.4): written as glTF, each
 * skin lists its own character's joints and is named after its armature object. Every skin listed every joint, so
 * Blender's glTF importer made one armature "Cylinder.001" of both, the armature objects turned into bones. With one
 * armature object turned and scaled (two_armatures_scaled.fbx) the armature objects are no plain nodes any more, and
 * each skin listed the other character's leaf joint (Khronos validator: SKIN_NO_COMMON_ROOT; Blender moved a body). */
static void two_armatures(const char* file) {
  skio_scene* s = load(skt_data(file));
  skio_scene* b = round_trip(s, "glb");
  char path[256];
  snprintf(path, sizeof path, "%s/out.glb", g_dir);
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_int_eq(skio_gltf_doc_load(path, &d, &err), SKC_OK);
  ck_assert_int_eq(skio_json_len(d, skio_json_get(d, 0, "skins")), 2);
  for (int k = 0; k < 2; ++k) {
    int skin = skio_gltf_item(d, "skins", (uint32_t)k);
    char* name = skio_json_strdup(d, skio_json_get(d, skin, "name"));
    ck_assert_msg(name && (!strcmp(name, "Knight") || !strcmp(name, "Horse")), "skin %d named %s", k, name);
    int joints = skio_json_get(d, skin, "joints");
    for (int i = 0; i < skio_json_len(d, joints); ++i) { /* every joint of the skin is its own character's */
      uint32_t node = 0;
      ck_assert(skio_json_u32(d, skio_json_at(d, joints, i), &node));
      char* jn = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "nodes", node), "name"));
      ck_assert_msg(jn && !strncmp(jn, name, strlen(name)), "skin %s lists joint %s", name, jn);
      free(jn);
    }
    free(name);
  }
  skio_gltf_doc_destroy(d);
  ck_assert_uint_eq(b->mesh_count, 2); /* and the reader takes both characters back */
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}

START_TEST(two_armatures_stay_two) {
  two_armatures("two_armatures.fbx");
  two_armatures("two_armatures_scaled.fbx");
}
END_TEST

static void setup(void) {
  skt_tmpdir_make(g_dir, sizeof g_dir, "names");
}

static void teardown(void) {
  skt_tmpdir_remove(g_dir);
}

int main(void) {
  Suite* s = suite_create("object_names");
  TCase* tc = tcase_create("names");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, reader_records_the_objects);
  tcase_add_test(tc, writers_keep_the_object_names);
  tcase_add_test(tc, abi_node_names);
  tcase_add_test(tc, collada_takes_any_name);
  tcase_add_test(tc, two_armatures_stay_two);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
