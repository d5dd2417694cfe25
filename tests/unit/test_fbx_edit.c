/* test_fbx_edit.c - a binary FBX written back as .fbx is an edit of the source (io/fbx_edit.c, session 26). Before,
 * every .fbx went through Assimp's FBX writer: a Blender leg of quads and an n-gon cap (240 vertices, 194 polygons)
 * came back as 238 triangles over 432 control points, an object of two materials as two objects, and what Assimp does
 * not read (blend shapes, custom properties) was gone. Asserted here, on Blender-written files (tests/data) and the
 * corpus's FBX files when SKINKIT_ASSETS is set:
 * - an unchanged scene writes the source byte for byte;
 * - new weights land in the clusters: read back, every vertex has them; every Geometry record (vertices, polygons,
 *   normals, UVs, materials) is unchanged; a weight the edit did not change keeps the file's double;
 * - a bone that gains weight gets a cluster (bind matrix from the bind pose), a cluster that loses all its weight
 *   its Indexes / Weights removed, and both read back;
 * - a scene that no longer maps onto its file (moved vertices, a source that changed since it was read) is written
 *   whole by Assimp's writer with a note that says why; the source itself is never the output;
 * - damaged bytes never crash the editor (every truncation and byte flips of a file). */
#define _GNU_SOURCE /* mkdtemp, memmem */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skio_fbx_edit.h"
#include "skio_fbx_tree.h"
#include "skio_scene.h"

static char g_dir[64];

static skio_scene* load(const char* path) { return skt_scene_load(path); }

static uint8_t* slurp(const char* path, size_t* n) { return (uint8_t*)skt_slurp(path, n); }

/* Writes s as dir/name; returns the note. */
static const char* save(const skio_scene* s, const char* name, char* path, size_t path_size) {
  return skt_scene_save(s, g_dir, name, path, path_size);
}

/* save(), asserting the file was edited in place (not written whole by Assimp's FBX writer). */
static void save_edited(const skio_scene* s, const char* name, char* path, size_t path_size) {
  const char* note = save(s, name, path, path_size);
  ck_assert_msg(!strstr(note, "written whole by Assimp"), "%s: %s", name, note);
}

/* Records ra of ta and rb of tb have the same name, properties and children, recursively (end offsets aside). */
static bool same_subtree(const skio_fbx_tree* ta, uint32_t ra, const skio_fbx_tree* tb, uint32_t rb) {
  const skio_fbx_rec *a = &ta->recs[ra], *b = &tb->recs[rb];
  if (a->name_len != b->name_len || a->props_len != b->props_len || a->prop_count != b->prop_count ||
      memcmp(ta->data + a->at + ta->hdr, tb->data + b->at + tb->hdr, a->name_len) ||
      memcmp(ta->data + a->props, tb->data + b->props, a->props_len))
    return false;
  uint32_t x = a->first, y = b->first;
  for (; x != SKIO_FBX_NONE && y != SKIO_FBX_NONE; x = ta->recs[x].next, y = tb->recs[y].next)
    if (!same_subtree(ta, x, tb, y)) return false;
  return x == y;
}

/* Every record of the source but the Deformers, Connections and Definitions is in the output unchanged. */
static void only_skins_changed(const char* src, const char* out) {
  size_t na, nb;
  uint8_t *a = slurp(src, &na), *b = slurp(out, &nb);
  skio_fbx_tree ta, tb;
  skc_err err = {0};
  ck_assert_int_eq(skio_fbx_tree_parse(a, na, &ta, &err), SKC_OK);
  ck_assert_msg(skio_fbx_tree_parse(b, nb, &tb, &err) == SKC_OK, "%s: %s", out, err.message);
  uint32_t x = ta.first, y = tb.first;
  for (; x != SKIO_FBX_NONE; x = ta.recs[x].next, y = tb.recs[y].next) {
    ck_assert_uint_ne(y, SKIO_FBX_NONE);
    if (skio_fbx_is(&ta, x, "Connections") || skio_fbx_is(&ta, x, "Definitions")) continue;
    if (!skio_fbx_is(&ta, x, "Objects")) {
      ck_assert_msg(same_subtree(&ta, x, &tb, y), "%s: a top-level record changed", out);
      continue;
    }
    uint32_t geoms = 0;
    for (uint32_t g = skio_fbx_child(&ta, x, "Geometry", SKIO_FBX_NONE); g != SKIO_FBX_NONE;
         g = skio_fbx_child(&ta, x, "Geometry", g), ++geoms) {
      uint32_t h = skio_fbx_child(&tb, y, "Geometry", SKIO_FBX_NONE);
      for (uint32_t k = 0; k < geoms; ++k) h = skio_fbx_child(&tb, y, "Geometry", h);
      ck_assert_msg(h != SKIO_FBX_NONE && same_subtree(&ta, g, &tb, h), "%s: geometry %u changed", out, geoms);
    }
    ck_assert_uint_gt(geoms, 0);
  }
  skio_fbx_tree_free(&ta);
  skio_fbx_tree_free(&tb);
  free(a);
  free(b);
}

static const char* const k_data[] = {"two_material_leg.fbx", "colored_leg.fbx", "rigid_parts.fbx", "textured_rig.fbx",
                                     "shape_key_leg.fbx"};
static const char* const k_corpus[] = {"fbx/Fox_blender.fbx", "fbx/huesitos.fbx"};

static void unchanged(const char* src) { skt_scene_written_unchanged(src, g_dir, "same.fbx"); }

START_TEST(unchanged_scene_writes_the_source_bytes) {
  for (size_t i = 0; i < sizeof k_data / sizeof k_data[0]; ++i) unchanged(skt_data(k_data[i]));
  for (size_t i = 0; skt_assets_dir() && i < sizeof k_corpus / sizeof k_corpus[0]; ++i) unchanged(skt_asset(k_corpus[i]));
}
END_TEST


static void edit_and_read_back(const char* src) {
  skio_scene* s = load(src);
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].skin && s->meshes[m].rigid_joint < 0) {
      skt_scene_rewrite_skin(s, m, skt_row_perturb);
    }
  char out[256];
  save_edited(s, "edited.fbx", out, sizeof out);
  skio_scene* b = load(out);
  skt_scene_same_skins(s, b);
  only_skins_changed(src, out);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}

START_TEST(new_weights_go_into_the_clusters) {
  for (size_t i = 0; i < sizeof k_data / sizeof k_data[0]; ++i) edit_and_read_back(skt_data(k_data[i]));
  for (size_t i = 0; skt_assets_dir() && i < sizeof k_corpus / sizeof k_corpus[0]; ++i)
    edit_and_read_back(skt_asset(k_corpus[i]));
}
END_TEST

/* Half of each vertex to the armature's node "Rig" (a Model with no cluster: its matrix comes from the bind pose). */
static uint32_t half_to_rig(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n, uint32_t* oj,
                            float* ow) {
  (void)p;
  for (uint32_t k = 0; k < n; ++k) oj[k] = j[k], ow[k] = w[k] * 0.5f;
  oj[n] = (uint32_t)skt_scene_joint(s, "Rig");
  ow[n] = 0.5f;
  return n + 1;
}

/* Everything of "shin" to "thigh". */
static uint32_t shin_to_thigh(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                              uint32_t* oj, float* ow) {
  (void)p, (void)w, (void)j, (void)n;
  oj[0] = (uint32_t)skt_scene_joint(s, "thigh");
  ow[0] = 1.0f;
  return 1;
}

static uint32_t count_clusters(const char* path, uint32_t* with_weights) {
  size_t n;
  uint8_t* d = slurp(path, &n);
  skio_fbx_tree t;
  skc_err err = {0};
  ck_assert_int_eq(skio_fbx_tree_parse(d, n, &t, &err), SKC_OK);
  uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE), c = 0;
  *with_weights = 0;
  for (uint32_t r = skio_fbx_child(&t, objects, "Deformer", SKIO_FBX_NONE); r != SKIO_FBX_NONE;
       r = skio_fbx_child(&t, objects, "Deformer", r)) {
    if (!skio_fbx_prop_str_is(&t, r, 2, "Cluster")) continue;
    ++c;
    *with_weights += skio_fbx_child(&t, r, "Weights", SKIO_FBX_NONE) != SKIO_FBX_NONE;
  }
  skio_fbx_tree_free(&t);
  free(d);
  return c;
}

START_TEST(clusters_are_added_and_emptied) {
  const char* src = skt_data("two_material_leg.fbx");
  uint32_t full;
  ck_assert_uint_eq(count_clusters(src, &full), 2);
  skio_scene* s = load(src);
  for (uint32_t m = 0; m < s->mesh_count; ++m) skt_scene_rewrite_skin(s, m, half_to_rig);
  char out[256];
  save_edited(s, "rig.fbx", out, sizeof out);
  ck_assert_uint_eq(count_clusters(out, &full), 3);
  ck_assert_uint_eq(full, 3);
  skio_scene* b = load(out);
  skt_scene_same_skins(s, b);
  only_skins_changed(src, out);
  /* the new cluster's bind matrix is the bind pose's: rest world x inverse bind is the same matrix for "Rig" as for
   * the bones (the mesh skins to its place) */
  float x[2][16];
  const int32_t js[2] = {skt_scene_joint(b, "Rig"), skt_scene_joint(b, "thigh")};
  for (int i = 0; i < 2; ++i)
    skc_mat4_mul(b->skeleton->rest_world + 16 * (size_t)js[i], b->meshes[0].inverse_bind + 16 * (size_t)js[i], x[i]);
  for (int e = 0; e < 16; ++e) ck_assert_float_eq_tol(x[0][e], x[1][e], 1e-3f * (1.0f + fabsf(x[1][e])));
  skio_scene_destroy(b);
  skio_scene_destroy(s);

  s = load(src);
  for (uint32_t m = 0; m < s->mesh_count; ++m) skt_scene_rewrite_skin(s, m, shin_to_thigh);
  save_edited(s, "thigh.fbx", out, sizeof out);
  ck_assert_uint_eq(count_clusters(out, &full), 2);
  ck_assert_uint_eq(full, 1); /* shin's cluster stays, without Indexes / Weights */
  b = load(out);
  for (uint32_t m = 0; m < b->mesh_count; ++m)
    for (size_t v = 0; v < b->meshes[m].vertex_count; ++v) {
      const skc_skin* k = b->meshes[m].skin;
      ck_assert_uint_eq(k->offsets[v + 1] - k->offsets[v], 1);
      ck_assert_str_eq(b->skeleton->names[k->joints[k->offsets[v]]], "thigh");
    }
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}
END_TEST

/* The lower half of the leg (object space z < 0, the cylinder spans -1..1) to "shin". */
static uint32_t lower_to_shin(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                              uint32_t* oj, float* ow) {
  (void)j, (void)w, (void)n;
  oj[0] = (uint32_t)skt_scene_joint(s, p[2] < 0.0f ? "shin" : "thigh");
  ow[0] = 1.0f;
  return 1;
}

START_TEST(a_cluster_without_weights_gets_them_and_blend_shapes_stay) {
  /* Blender wrote "shin" as a cluster without Indexes / Weights and the mesh with a blend shape "Bulge" */
  const char* src = skt_data("shape_key_leg.fbx");
  uint32_t full;
  ck_assert_uint_eq(count_clusters(src, &full), 2);
  ck_assert_uint_eq(full, 1);
  skio_scene* s = load(src);
  skt_scene_rewrite_skin(s, 0, lower_to_shin);
  char out[256];
  save_edited(s, "shin.fbx", out, sizeof out);
  ck_assert_uint_eq(count_clusters(out, &full), 2);
  ck_assert_uint_eq(full, 2);
  skio_scene* b = load(out);
  skt_scene_same_skins(s, b);
  only_skins_changed(src, out); /* the shape's Geometry record ("Shape") included */
  size_t n;
  uint8_t* d = slurp(out, &n);
  ck_assert_ptr_nonnull(memmem(d, n, "BlendShapeChannel", 17));
  free(d);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}
END_TEST

/* PoseNodes of the file's first BindPose, asserted equal to its NbPoseNodes. */
static uint32_t pose_nodes(const char* path) {
  size_t n;
  uint8_t* d = slurp(path, &n);
  skio_fbx_tree t;
  skc_err err = {0};
  ck_assert_int_eq(skio_fbx_tree_parse(d, n, &t, &err), SKC_OK);
  uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE), count = 0;
  uint32_t pose = skio_fbx_child(&t, objects, "Pose", SKIO_FBX_NONE);
  ck_assert_uint_ne(pose, SKIO_FBX_NONE);
  for (uint32_t r = skio_fbx_child(&t, pose, "PoseNode", SKIO_FBX_NONE); r != SKIO_FBX_NONE;
       r = skio_fbx_child(&t, pose, "PoseNode", r))
    ++count;
  int64_t nb = -1;
  ck_assert(skio_fbx_prop_i64(&t, skio_fbx_child(&t, pose, "NbPoseNodes", SKIO_FBX_NONE), 0, &nb));
  ck_assert_int_eq(nb, count);
  skio_fbx_tree_free(&t);
  free(d);
  return count;
}

START_TEST(an_unskinned_mesh_gets_a_skin) {
  /* tests/unskinned/bare_rig.fbx (Blender): "Body" under an Armature modifier with empty clusters, and "Crate", no
   * skin at all, beside the rig; the scene places the crate where it is (its world matrix) */
  char src[512];
  snprintf(src, sizeof src, "%s/../unskinned/bare_rig.fbx", skt_data(""));
  skio_scene* s = load(src);
  uint32_t crate = s->meshes[0].placed_set ? 0 : 1;
  ck_assert(s->meshes[crate].placed_set && !s->meshes[crate].skin);
  skc_skin* k = NULL;
  skc_err err = {0};
  ck_assert_int_eq(skc_skin_create(s->meshes[crate].vertex_count, s->skeleton->joint_count, &k, &err), SKC_OK);
  s->meshes[crate].skin = k; /* as `bind` gives it one (scene_build.c), with the skeleton's inverse binds */
  s->meshes[crate].inverse_bind = malloc(16 * sizeof(float) * s->skeleton->joint_count);
  memcpy(s->meshes[crate].inverse_bind, s->skeleton->inverse_bind, 16 * sizeof(float) * s->skeleton->joint_count);
  s->meshes[crate].bound = calloc(s->skeleton->joint_count, 1);
  skt_scene_rewrite_skin(s, crate, skt_row_upper_lower);
  char out[256];
  save_edited(s, "crate.fbx", out, sizeof out);
  only_skins_changed(src, out);
  skio_scene* b = load(out);
  ck_assert_uint_eq(b->mesh_count, 2);
  ck_assert_ptr_nonnull(b->meshes[crate].skin);
  skt_scene_same_skins(s, b);
  /* the bind pose lists the crate's object too, and counts it */
  uint32_t before = pose_nodes(src), after = pose_nodes(out);
  ck_assert_uint_eq(after, before + 1);
  /* skinned at rest, the crate sits where the source had it */
  for (size_t v = 0; v < b->meshes[crate].vertex_count; ++v) {
    float p[3];
    skt_scene_skinned_rest(b, crate, v, p);
    for (int c = 0; c < 3; ++c)
      ck_assert_msg(fabsf(p[c] - s->meshes[crate].positions[3 * v + c]) < 1e-3f, "vertex %zu: %g vs %g", v,
                    (double)p[c], (double)s->meshes[crate].positions[3 * v + c]);
  }
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}
END_TEST

/* The armature node "Rig" of two_material_leg.fbx renamed to 400 characters (a hostile or generated name), written
 * to dir/path: a new cluster for it must cut the name, not overrun it. */
static void long_rig_name(const char* path, char* name, size_t n) {
  size_t size;
  uint8_t* d = slurp(skt_data("two_material_leg.fbx"), &size);
  skio_fbx_tree t;
  skc_err err = {0};
  ck_assert_int_eq(skio_fbx_tree_parse(d, size, &t, &err), SKC_OK);
  memset(name, 'R', n - 1);
  name[n - 1] = 0;
  skio_fbx_change* ch = calloc(t.count, sizeof *ch);
  skio_fbx_props p = {0};
  uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  for (uint32_t r = skio_fbx_child(&t, objects, "Model", SKIO_FBX_NONE); r != SKIO_FBX_NONE;
       r = skio_fbx_child(&t, objects, "Model", r)) {
    const uint8_t* nm;
    size_t len;
    int64_t id;
    if (!skio_fbx_prop_name(&t, r, 1, &nm, &len) || len != 3 || memcmp(nm, "Rig", 3)) continue;
    char full[512];
    memcpy(full, name, n - 1);
    memcpy(full + n - 1, "\0\1Model", 7);
    ck_assert(skio_fbx_prop_i64(&t, r, 0, &id));
    skio_fbx_put_i64(&p, id);
    skio_fbx_put_str(&p, full, n - 1 + 7);
    skio_fbx_put_str(&p, "Null", 4);
    ch[r] = (skio_fbx_change){p.p, p.n, p.count, false, NULL, 0};
  }
  ck_assert_ptr_nonnull(p.p);
  uint8_t* out;
  size_t out_n;
  ck_assert_int_eq(skio_fbx_tree_write(&t, ch, &out, &out_n, &err), SKC_OK);
  FILE* f = fopen(path, "wb");
  ck_assert_uint_eq(fwrite(out, 1, out_n, f), out_n);
  fclose(f);
  free(out), free(p.p), free(ch), free(d);
  skio_fbx_tree_free(&t);
}

static const char* g_long; /* the joint half_to_long gives half of every vertex */

static uint32_t half_to_long(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                             uint32_t* oj, float* ow) {
  (void)p;
  for (uint32_t k = 0; k < n; ++k) oj[k] = j[k], ow[k] = w[k] * 0.5f;
  oj[n] = (uint32_t)skt_scene_joint(s, g_long), ow[n] = 0.5f;
  return n + 1;
}

START_TEST(a_long_joint_name_is_cut_in_its_cluster) {
  char src[256], name[401], out[256];
  snprintf(src, sizeof src, "%s/long.fbx", g_dir);
  long_rig_name(src, name, sizeof name);
  skio_scene* s = load(src);
  g_long = name;
  for (uint32_t m = 0; m < s->mesh_count; ++m) skt_scene_rewrite_skin(s, m, half_to_long);
  save_edited(s, "long_out.fbx", out, sizeof out);
  skio_scene* b = load(out);
  skt_scene_same_skins(s, b); /* Assimp names the bone by its Model, so the cluster's cut name does not matter */
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}
END_TEST

START_TEST(what_cannot_be_edited_is_written_whole) {
  /* vertices moved after reading: the scene no longer maps onto the file */
  skio_scene* s = load(skt_data("two_material_leg.fbx"));
  s->meshes[0].positions[0] += 0.25f;
  char out[256];
  const char* note = save(s, "moved.fbx", out, sizeof out);
  ck_assert_msg(strstr(note, "written whole by Assimp") && strstr(note, "matches no skinned geometry"), "%s", note);
  skio_scene_destroy(s);
  /* a mesh parented to a bone (rigid_parts' "Gauntlet") given a skin: in FBX the bone would move it twice */
  s = load(skt_data("rigid_parts.fbx"));
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].rigid_joint >= 0) s->meshes[m].skin->weights[0] = 0.5f;
  note = save(s, "gauntlet.fbx", out, sizeof out);
  ck_assert_msg(strstr(note, "written whole by Assimp") && strstr(note, "parented to a bone"), "%s", note);
  skio_scene_destroy(s);
  /* a material changed: the edit would not carry it */
  s = load(skt_data("two_material_leg.fbx"));
  ck_assert_uint_gt(s->material_count, 0);
  s->materials[0].roughness = 0.123f;
  note = save(s, "material.fbx", out, sizeof out);
  ck_assert_msg(strstr(note, "written whole by Assimp") && strstr(note, "changed beyond its weights"), "%s", note);
  skio_scene_destroy(s);
  /* the source changed since it was read */
  char copy[256], cmd[600];
  snprintf(copy, sizeof copy, "%s/copy.fbx", g_dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", skt_data("two_material_leg.fbx"), copy);
  ck_assert_int_eq(system(cmd), 0);
  s = load(copy);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", skt_data("colored_leg.fbx"), copy);
  ck_assert_int_eq(system(cmd), 0);
  note = save(s, "changed.fbx", out, sizeof out);
  ck_assert_msg(strstr(note, "changed or went away"), "%s", note);
  /* never the source itself */
  skio_export_options o = {0};
  skc_err err = {0};
  ck_assert_int_eq(skio_scene_export(s, copy, &o, &err), SKC_EXISTS);
  skio_scene_destroy(s);
}
END_TEST

/* The editor on damaged bytes: every truncation, and single-byte changes all over, of a file with new weights to
 * write. It may refuse (SKIO_FBX_EDIT_CANNOT) or write; it must not crash (ASan build). */
START_TEST(damaged_files_do_not_crash_the_editor) {
  const char* src = skt_data("two_material_leg.fbx");
  skio_scene* s = load(src);
  size_t n;
  uint8_t* d = slurp(src, &n);
  skio_fbx_mesh_edit e[2];
  for (uint32_t m = 0; m < 2; ++m)
    e[m] = (skio_fbx_mesh_edit){"Leg", s->meshes[m].vertex_count, s->meshes[m].positions, s->meshes[m].skin->offsets,
                                s->meshes[m].skin->joints, s->meshes[m].skin->weights, NULL};
  uint8_t* bad = malloc(n);
  uint32_t ok = 0, cannot = 0;
  for (size_t cut = 0; cut <= n; cut += cut < 2000 ? 1 : 97) {
    uint8_t* out = NULL;
    size_t out_n;
    char why[200];
    skc_err err = {0};
    memcpy(bad, d, cut);
    int rc = skio_fbx_edit(bad, cut, e, 2, (const char* const*)s->skeleton->names, s->skeleton->bind, s->skeleton->joint_count, &out,
                           &out_n, NULL, why, sizeof why, &err);
    ck_assert_msg(rc == SKC_OK || rc == SKIO_FBX_EDIT_CANNOT, "cut %zu: %d %s", cut, rc, err.message);
    ok += rc == SKC_OK, cannot += rc != SKC_OK;
    free(out);
  }
  ck_assert_uint_eq(ok, 1); /* the whole file only */
  skt_rng r = {99};
  for (int i = 0; i < 3000; ++i) {
    memcpy(bad, d, n);
    for (int k = 0; k < 1 + i % 4; ++k) bad[skt_rand_u32(&r) % n] ^= (uint8_t)(1u << (skt_rand_u32(&r) % 8));
    uint8_t* out = NULL;
    size_t out_n;
    char why[200];
    skc_err err = {0};
    int rc = skio_fbx_edit(bad, n, e, 2, (const char* const*)s->skeleton->names, s->skeleton->bind, s->skeleton->joint_count, &out,
                           &out_n, NULL, why, sizeof why, &err);
    ck_assert_msg(rc == SKC_OK || rc == SKIO_FBX_EDIT_CANNOT, "flip %d: %d %s", i, rc, err.message);
    if (rc == SKC_OK) { /* what it wrote parses */
      skio_fbx_tree t;
      ck_assert_int_eq(skio_fbx_tree_parse(out, out_n, &t, &err), SKC_OK);
      skio_fbx_tree_free(&t);
    }
    free(out);
  }
  (void)cannot;
  free(bad);
  free(d);
  skio_scene_destroy(s);
}
END_TEST

static void setup(void) {
  skt_tmpdir_make(g_dir, sizeof g_dir, "fbxedit");
}

static void teardown(void) {
  skt_tmpdir_remove(g_dir);
}

int main(void) {
  Suite* s = suite_create("fbx_edit");
  TCase* tc = tcase_create("edit");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, unchanged_scene_writes_the_source_bytes);
  tcase_add_test(tc, new_weights_go_into_the_clusters);
  tcase_add_test(tc, clusters_are_added_and_emptied);
  tcase_add_test(tc, a_cluster_without_weights_gets_them_and_blend_shapes_stay);
  tcase_add_test(tc, an_unskinned_mesh_gets_a_skin);
  tcase_add_test(tc, a_long_joint_name_is_cut_in_its_cluster);
  tcase_add_test(tc, what_cannot_be_edited_is_written_whole);
  tcase_add_test(tc, damaged_files_do_not_crash_the_editor);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
