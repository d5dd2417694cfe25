/* test_dae_edit.c - a Collada file written back as .dae is an edit of the source (io/dae_edit.c, session 27). Before,
 * every .dae went through Assimp's Collada writer: CesiumMan_blender.dae (0.79 MB) came back as 2.2 MB with a vertex
 * per triangle corner, and every <extra> (Blender's bone tips, rolls and layers) was gone. Asserted here, on
 * Blender-written files (tests/data) and the corpus's Collada file when SKINKIT_ASSETS is set:
 * - an unchanged scene writes the source byte for byte;
 * - new weights read back on every vertex, and nothing outside <library_controllers> changes; the weights the edit
 *   did not change keep their text (the new ones are appended);
 * - a joint that gets weight and that its controller does not list is appended to the controller;
 * - a scene that no longer maps onto its file (moved vertices, weight on a node that is no joint, a source that
 *   changed since it was read) is written whole by Assimp's writer with a note that says why; the source itself is
 *   never the output;
 * - damaged bytes never crash the editor (every truncation and byte flips of a file). */
#define _GNU_SOURCE /* memmem */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skio_collada.h"
#include "skio_dae_edit.h"
#include "skio_scene.h"

static char g_dir[64];

static skio_scene* load(const char* path) { return skt_scene_load(path); }

static const char* save(const skio_scene* s, const char* name, char* path, size_t path_size) {
  return skt_scene_save(s, g_dir, name, path, path_size);
}

static void save_edited(const skio_scene* s, const char* name, char* path, size_t path_size) {
  const char* note = save(s, name, path, path_size);
  ck_assert_msg(!strstr(note, "written whole by Assimp"), "%s: %s", name, note);
}

static void rewrite_all(skio_scene* s, skt_row_fn fn) {
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].skin && s->meshes[m].rigid_joint < 0) skt_scene_rewrite_skin(s, m, fn);
}

/* The bytes before <library_controllers and after </library_controllers> are the source's. */
static void only_controllers_changed(const char* src, const char* out) {
  size_t na, nb;
  char *a = skt_slurp(src, &na), *b = skt_slurp(out, &nb);
  const char *a0 = strstr(a, "<library_controllers"), *b0 = strstr(b, "<library_controllers");
  const char *a1 = strstr(a, "</library_controllers>"), *b1 = strstr(b, "</library_controllers>");
  ck_assert(a0 && b0 && a1 && b1);
  ck_assert_msg(a0 - a == b0 - b && !memcmp(a, b, (size_t)(a0 - a)), "%s: changed before the controllers", out);
  ck_assert_msg(na - (size_t)(a1 - a) == nb - (size_t)(b1 - b) && !memcmp(a1, b1, na - (size_t)(a1 - a)),
                "%s: changed after the controllers", out);
  free(a);
  free(b);
}

static const char* const k_data[] = {"textured_rig.dae", "two_material_leg.dae", "quad_leg.dae"};
static const char* const k_corpus[] = {"collada/CesiumMan_blender.dae"};

static void unchanged(const char* src) { skt_scene_written_unchanged(src, g_dir, "same.dae"); }

START_TEST(unchanged_scene_writes_the_source_bytes) {
  for (size_t i = 0; i < sizeof k_data / sizeof k_data[0]; ++i) unchanged(skt_data(k_data[i]));
  for (size_t i = 0; skt_assets_dir() && i < sizeof k_corpus / sizeof k_corpus[0]; ++i)
    unchanged(skt_asset(k_corpus[i]));
}
END_TEST


/* src's weights rewritten by fn, saved as an edit (out), read back equal, nothing outside the controllers changed. */
static void edit_with(const char* src, skt_row_fn fn, char* out, size_t out_size) {
  skio_scene* s = load(src);
  rewrite_all(s, fn);
  save_edited(s, "edited.dae", out, out_size);
  skio_scene* b = load(out);
  skt_scene_same_skins(s, b);
  only_controllers_changed(src, out);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}

static void edit_and_read_back(const char* src) {
  char out[256];
  edit_with(src, skt_row_perturb, out, sizeof out);
}

START_TEST(new_weights_go_into_the_controllers) {
  for (size_t i = 0; i < sizeof k_data / sizeof k_data[0]; ++i) edit_and_read_back(skt_data(k_data[i]));
  for (size_t i = 0; skt_assets_dir() && i < sizeof k_corpus / sizeof k_corpus[0]; ++i)
    edit_and_read_back(skt_asset(k_corpus[i]));
}
END_TEST

/* Collada written by Assimp's exporter (skinkit's .glb -> .dae): a geometry and a controller per mesh, the meshes of
 * one object as several controllers instanced by one node (two_material_leg.glb's two primitives). */
START_TEST(assimp_written_collada_edits_too) {
  static const char* const glb[] = {"cylinder_rig.glb", "two_material_leg.glb", "rigid_parts.glb"};
  for (size_t i = 0; i < sizeof glb / sizeof glb[0]; ++i) {
    skio_scene* s = load(skt_data(glb[i]));
    char dae[256];
    save(s, "assimp.dae", dae, sizeof dae);
    skio_scene_destroy(s);
    unchanged(dae);
    edit_and_read_back(dae);
  }
}
END_TEST

/* The vertices on the +x side of the leg perturbed, the others as they were. */
static uint32_t perturb_upper(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                              uint32_t* oj, float* ow) {
  if (p[0] > 0.0f) return skt_row_perturb(s, p, j, w, n, oj, ow);
  memcpy(oj, j, n * sizeof *j);
  memcpy(ow, w, n * sizeof *w);
  return n;
}

/* The text of element tag's first occurrence whose open tag contains key. */
static char* element_text(const char* doc, const char* tag, const char* key) {
  char open[64];
  snprintf(open, sizeof open, "<%s", tag);
  for (const char* p = doc; (p = strstr(p, open)) != NULL; ++p) {
    const char* gt = strchr(p, '>');
    if (!gt) break;
    if (p[strlen(open)] != '>' && p[strlen(open)] != ' ') continue; /* <v, not <vertices */
    if (!memmem(p, (size_t)(gt - p), key, strlen(key))) continue;
    const char* lt = strchr(gt, '<');
    return strndup(gt + 1, (size_t)(lt - gt - 1));
  }
  return NULL;
}

START_TEST(unchanged_weights_keep_their_text) {
  const char* src = skt_data("two_material_leg.dae");
  skio_scene* s = load(src);
  rewrite_all(s, perturb_upper);
  char out[256];
  save_edited(s, "upper.dae", out, sizeof out);
  skio_scene* b = load(out);
  skt_scene_same_skins(s, b);
  size_t na, nb;
  char *a = skt_slurp(src, &na), *o = skt_slurp(out, &nb);
  char *wa = element_text(a, "float_array", "skin-weights"), *wo = element_text(o, "float_array", "skin-weights");
  ck_assert_ptr_nonnull(wa);
  ck_assert_ptr_nonnull(wo);
  ck_assert_msg(strlen(wo) > strlen(wa) && !strncmp(wa, wo, strlen(wa)), "the file's weights are not kept as a prefix");
  char *va = element_text(a, "v", ""), *vo = element_text(o, "v", "");
  ck_assert_str_ne(va, vo);
  free(wa), free(wo), free(va), free(vo), free(a), free(o);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
}
END_TEST

/* src with its skin weights spelled in exponent form ("8.01983e-04": Assimp's parser, which does not round
 * correctly, reads some such weights a float step away from strtof), written as dir/name. */
static void exponent_weights(const char* src, const char* path) {
  size_t n;
  char* d = skt_slurp(src, &n);
  char* open = strstr(d, "skin-weights-array");
  ck_assert_ptr_nonnull(open);
  char *gt = strchr(open, '>'), *lt = strchr(gt, '<');
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(d, 1, (size_t)(gt + 1 - d), f);
  for (char *p = gt + 1, *e; p < lt; p = e) {
    const double w = strtod(p, &e);
    if (e == p) break;
    fprintf(f, "%s%.5e", p == gt + 1 ? "" : " ", w);
  }
  fwrite(lt, 1, n - (size_t)(lt - d), f);
  ck_assert_int_eq(fclose(f), 0);
  free(d);
}

static uint32_t row_same_as_read(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                                 uint32_t* oj, float* ow) {
  (void)s, (void)p;
  memcpy(oj, j, n * sizeof *j);
  memcpy(ow, w, n * sizeof *w);
  return n;
}

/* Weights set again to what was read are no change, whatever the number parsers make of their text: the file comes
 * back byte for byte (it did not: rows whose weights Assimp read a step away from strtof were re-pointed at appended
 * weights). */
START_TEST(weights_set_as_read_keep_exponent_text) {
  const char* files[2] = {skt_data("moved_armature.dae"), skt_assets_dir() ? skt_asset(k_corpus[0]) : NULL};
  for (size_t i = 0; i < 2 && files[i]; ++i) {
    char src[256], out[256];
    snprintf(src, sizeof src, "%s/exp%zu.dae", g_dir, i);
    exponent_weights(files[i], src);
    skio_scene* s = load(src);
    rewrite_all(s, row_same_as_read);
    save_edited(s, "exp_same.dae", out, sizeof out);
    size_t na, nb;
    char *a = skt_slurp(src, &na), *b = skt_slurp(out, &nb);
    ck_assert_msg(na == nb && !memcmp(a, b, na), "%s: written differently (%zu -> %zu bytes)", files[i], na, nb);
    free(a), free(b);
    skio_scene_destroy(s);
  }
}
END_TEST

/* An edit written into another folder takes the textures the source names by relative path along (the output named
 * files that were not there: Blender read it without its image, the audit of session 44); a different file of that
 * name already there is left alone and noted. */
START_TEST(edit_elsewhere_copies_textures) {
  skio_scene* s = load(skt_data("textured_rig.dae"));
  rewrite_all(s, skt_row_perturb);
  char out[256], png[300];
  save_edited(s, "elsewhere.dae", out, sizeof out);
  snprintf(png, sizeof png, "%s/textured_rig_albedo.png", g_dir);
  size_t na, nb;
  char *a = skt_slurp(skt_data("textured_rig_albedo.png"), &na), *b = skt_slurp(png, &nb);
  ck_assert_msg(na == nb && !memcmp(a, b, na), "the texture was not copied beside the output");
  free(b);
  FILE* f = fopen(png, "wb"); /* another file of that name */
  ck_assert_ptr_nonnull(f);
  fputs("not the texture", f);
  ck_assert_int_eq(fclose(f), 0);
  const char* note = save(s, "elsewhere2.dae", out, sizeof out);
  ck_assert_msg(strstr(note, "image left as it is beside the output") && strstr(note, "textured_rig_albedo.png"), "%s",
                note);
  b = skt_slurp(png, &nb);
  ck_assert_msg(nb == 15 && !memcmp(b, "not the texture", 15), "the other file was replaced");
  free(a), free(b);
  skio_scene_destroy(s);
}
END_TEST

static int32_t g_armature; /* the armature's node: no joint of the controller */

static uint32_t half_to_armature(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                                 uint32_t* oj, float* ow) {
  (void)s, (void)p;
  for (uint32_t k = 0; k < n; ++k) oj[k] = j[k], ow[k] = 0.5f * w[k];
  for (uint32_t k = 0; k < n; ++k) /* a vertex that has it already gets it once (the writers merge a repeat) */
    if (oj[k] == (uint32_t)g_armature) {
      ow[k] += 0.5f;
      return n;
    }
  oj[n] = (uint32_t)g_armature, ow[n] = 0.5f;
  return n + 1;
}

START_TEST(what_cannot_be_edited_is_written_whole) {
  /* vertices moved after reading: the scene no longer maps onto the file */
  skio_scene* s = load(skt_data("two_material_leg.dae"));
  s->meshes[0].positions[0] += 0.25f;
  char out[256];
  const char* note = save(s, "moved.dae", out, sizeof out);
  ck_assert_msg(strstr(note, "written whole by Assimp") && strstr(note, "moved vertices"), "%s", note);
  skio_scene_destroy(s);
  /* weight on the armature's node, which the controller does not list */
  s = load(skt_data("two_material_leg.dae"));
  g_armature = skt_scene_joint(s, "Rig");
  rewrite_all(s, half_to_armature);
  note = save(s, "armature.dae", out, sizeof out);
  ck_assert_msg(strstr(note, "written whole by Assimp") && strstr(note, "not among"), "%s", note);
  skio_scene_destroy(s);
  /* the source changed since it was read */
  char copy[256], cmd[600];
  snprintf(copy, sizeof copy, "%s/copy.dae", g_dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", skt_data("two_material_leg.dae"), copy);
  ck_assert_int_eq(system(cmd), 0);
  s = load(copy);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s' && touch -d '2001-01-01' '%s'", skt_data("textured_rig.dae"), copy, copy);
  ck_assert_int_eq(system(cmd), 0);
  rewrite_all(s, skt_row_perturb);
  note = save(s, "changed.dae", out, sizeof out);
  ck_assert_msg(strstr(note, "changed or went away"), "%s", note);
  /* never the source itself */
  skio_export_options o = {0};
  skc_err err = {0};
  ck_assert_int_eq(skio_scene_export(s, copy, &o, &err), SKC_EXISTS);
  skio_scene_destroy(s);
}
END_TEST

/* The bytes of element tag's first occurrence (open to close). */
static char* element(const char* doc, const char* tag) {
  char open[64], close[64];
  snprintf(open, sizeof open, "<%s", tag);
  snprintf(close, sizeof close, "</%s>", tag);
  const char *a = strstr(doc, open), *b = a ? strstr(a, close) : NULL;
  return b ? strndup(a, (size_t)(b - a) + strlen(close)) : NULL;
}

/* tests/unskinned/bare_rig.dae (Blender): "Body" under the armature's node (which has a transform) and "Crate" at the
 * top, both plain geometry instances; read with the skeleton from the nodes, as `bind` reads a file without skins.
 * The meshes named get half "upper", half "lower", as `bind` gives them a skin (scene_build.c). */
static skio_scene* bare_rig_bound(const char* src, const char* a, const char* b) {
  skio_import_options io = {0};
  io.skeleton_from_nodes = true;
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(src, &io, &s, &err) == SKC_OK, "%s", err.message);
  ck_assert_uint_eq(s->mesh_count, 2);
  for (uint32_t m = 0; m < 2; ++m) {
    ck_assert_ptr_null(s->meshes[m].skin);
    if (strcmp(s->meshes[m].node_name, a) && (!b || strcmp(s->meshes[m].node_name, b))) continue;
    skc_skin* k = NULL;
    ck_assert_int_eq(skc_skin_create(s->meshes[m].vertex_count, s->skeleton->joint_count, &k, &err), SKC_OK);
    s->meshes[m].skin = k;
    s->meshes[m].inverse_bind = malloc(16 * sizeof(float) * s->skeleton->joint_count);
    memcpy(s->meshes[m].inverse_bind, s->skeleton->inverse_bind, 16 * sizeof(float) * s->skeleton->joint_count);
    s->meshes[m].bound = calloc(s->skeleton->joint_count, 1);
    skt_scene_rewrite_skin(s, m, skt_row_upper_lower);
  }
  return s;
}

START_TEST(an_unskinned_mesh_gets_a_skin) {
  char src[512];
  snprintf(src, sizeof src, "%s/../unskinned/bare_rig.dae", skt_data(""));
  skio_scene* s = bare_rig_bound(src, "Crate", NULL);
  char out[256];
  save_edited(s, "bound.dae", out, sizeof out);
  size_t na, nb;
  char *a = skt_slurp(src, &na), *o = skt_slurp(out, &nb);
  char *ga = element(a, "library_geometries"), *go = element(o, "library_geometries");
  ck_assert_ptr_nonnull(ga);
  ck_assert_ptr_nonnull(go);
  ck_assert_str_eq(ga, go); /* the geometry keeps its bytes */
  ck_assert_ptr_nonnull(strstr(o, "<instance_controller url=\"#Cube-mesh-skin\""));
  ck_assert_ptr_nonnull(strstr(o, "<instance_geometry url=\"#Body-mesh\""));
  free(ga), free(go), free(a), free(o);
  skio_scene* b = load(out);
  ck_assert_uint_eq(b->mesh_count, 2);
  skt_scene_same_skins(s, b);
  for (uint32_t m = 0; m < 2; ++m) /* skinned at rest, the crate sits where the source had it */
    for (size_t v = 0; b->meshes[m].skin && v < b->meshes[m].vertex_count; ++v) {
      float p[3];
      skt_scene_skinned_rest(b, m, v, p);
      for (int c = 0; c < 3; ++c)
        ck_assert_msg(fabsf(p[c] - s->meshes[m].positions[3 * v + c]) < 1e-4f, "mesh %u vertex %zu: %g vs %g", m, v,
                      (double)p[c], (double)s->meshes[m].positions[3 * v + c]);
    }
  skio_scene_destroy(b);
  skio_scene_destroy(s);
  /* the body sits under the armature's node, which moves it: Blender and Assimp read a new skin there differently */
  s = bare_rig_bound(src, "Crate", "Body");
  const char* note = save(s, "both.dae", out, sizeof out);
  ck_assert_msg(strstr(note, "written whole by Assimp") && strstr(note, "under a node with a transform"), "%s", note);
  skio_scene_destroy(s);
}
END_TEST

/* Weight given to a joint the file binds no mesh to leaves the vertices where they are at rest, in the scene and in
 * the formats it is written to (outs; "" = in memory): the mesh's inverse bind for such a joint is in the mesh's own
 * bind frame (io/scene_build.c skio_mesh_unbound_in_bind_frame), which for Blender's Collada (Z up turned, the bind
 * shape matrix) and glTF's CesiumMan (its skin turns Z up) is not the reader's world: before, two_material_leg.dae's
 * leg moved by 0.91 on its 2-unit length with half its weight on the armature's node. */
static void unbound_joint_keeps_rest(const char* src, const char* joint_name, const char* const* outs, size_t nouts) {
  skio_scene* s = load(src);
  float* before[8];
  ck_assert_uint_le(s->mesh_count, 8);
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    before[m] = malloc(3 * sizeof(float) * s->meshes[m].vertex_count + 1);
    for (size_t v = 0; s->meshes[m].skin && v < s->meshes[m].vertex_count; ++v)
      skt_scene_skinned_rest(s, m, v, before[m] + 3 * v);
  }
  g_armature = skt_scene_joint(s, joint_name);
  rewrite_all(s, half_to_armature);
  for (size_t o = 0; o < nouts; ++o) {
    skio_scene* b = s;
    if (outs[o][0]) {
      char out[256];
      save(s, outs[o], out, sizeof out);
      b = load(out);
    }
    ck_assert_uint_eq(b->mesh_count, s->mesh_count);
    for (uint32_t m = 0; m < b->mesh_count; ++m)
      for (size_t v = 0; b->meshes[m].skin && v < b->meshes[m].vertex_count; ++v) {
        float p[3];
        skt_scene_skinned_rest(b, m, v, p);
        for (int c = 0; c < 3; ++c)
          ck_assert_msg(fabsf(p[c] - before[m][3 * v + c]) < 1e-4f * (1.0f + fabsf(before[m][3 * v + c])),
                        "%s -> %s mesh %u vertex %zu: %g, was %g", src, outs[o][0] ? outs[o] : "memory", m, v,
                        (double)p[c], (double)before[m][3 * v + c]);
      }
    if (b != s) skio_scene_destroy(b);
  }
  for (uint32_t m = 0; m < s->mesh_count; ++m) free(before[m]);
  skio_scene_destroy(s);
}

START_TEST(a_joint_no_mesh_binds_keeps_vertices_at_rest) {
  static const char* const all[] = {"", "rig.glb", "rig.fbx", "rig.dae"};
  unbound_joint_keeps_rest(skt_data("two_material_leg.dae"), "Rig", all, 4);
  static const char* const same_vertices[] = {"", "cesium.glb"}; /* (Assimp's writers split CesiumMan per corner) */
  if (skt_assets_dir()) unbound_joint_keeps_rest(skt_asset("gltf/CesiumMan.glb"), "Armature", same_vertices, 2);
}
END_TEST

/* Blender lists in a skin controller only the bones the mesh has vertex groups for (tests/data/leg_thigh_only.dae:
 * "thigh", the armature has "shin" too). Weight given to the shin is an edit of the file: the joint and its inverse
 * bind are appended to the controller (nothing outside it changes), the weights read back on every vertex, and the
 * vertices stay where they were at rest, in memory and read back from the .dae (so the appended inverse bind is the
 * one the scene had). */
START_TEST(a_joint_the_controller_lacks_is_appended) {
  const char* src = skt_data("leg_thigh_only.dae");
  static const char* const outs[] = {"", "thigh_shin.dae"};
  unbound_joint_keeps_rest(src, "shin", outs, 2);
  skio_scene* s = load(src);
  g_armature = skt_scene_joint(s, "shin");
  skio_scene_destroy(s);
  char out[256];
  edit_with(src, half_to_armature, out, sizeof out);
  size_t n;
  char* doc = skt_slurp(out, &n);
  char* names = element_text(doc, "Name_array", "Guard-skin-joints");
  ck_assert_msg(names && !strcmp(names, "thigh shin"), "%s", names ? names : "(none)");
  ck_assert(strstr(doc, "<Name_array id=\"Rig_Guard-skin-joints-array\" count=\"2\">"));
  ck_assert(strstr(doc, "<accessor source=\"#Rig_Guard-skin-joints-array\" count=\"2\" stride=\"1\">"));
  ck_assert(strstr(doc, "<float_array id=\"Rig_Guard-skin-bind_poses-array\" count=\"32\">"));
  ck_assert(strstr(doc, "<accessor source=\"#Rig_Guard-skin-bind_poses-array\" count=\"2\" stride=\"16\">"));
  free(names), free(doc);
}
END_TEST

/* skio_dae_edit of n bytes of doc with the two meshes e of s: its return code (the output freed). */
static int edit_bytes(const char* doc, size_t n, const skio_dae_mesh_edit* e, const skio_scene* s, skc_err* err) {
  char* out = NULL;
  size_t out_n;
  char why[200];
  skio_dae_edit_report rep;
  int rc = skio_dae_edit(doc, n, e, 2, (const char* const*)s->skeleton->names, s->skeleton->bind,
                         s->skeleton->joint_count, &out, &out_n, &rep, why, sizeof why, err);
  free(out);
  return rc;
}

/* The editor on damaged bytes: every truncation, and byte flips all over, of a file with new weights to write. It
 * may refuse (SKIO_DAE_EDIT_CANNOT) or write; it must not crash (ASan build). */
/* Blender's Collada with a shape key (tests/data/shape_key_leg.dae: a morph controller beside the skin), which
 * Assimp 5.2.5 refuses: the file reads (the morph left out, the note says so), its weights edit in place with the
 * morph controller kept, and skio_collada_without_morphs turns a node's instance of a morph controller (or a skin on
 * one) to the morph's geometry. */
/* thigh (the leg's one bound joint) at 0.75 below mid-height, 1 above */
static uint32_t row_thigh_lower(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                                uint32_t* oj, float* ow) {
  (void)j, (void)w, (void)n;
  oj[0] = (uint32_t)skt_scene_joint(s, "thigh"), ow[0] = p[2] < 1.0f ? 0.75f : 1.0f;
  return 1;
}

START_TEST(morph_controllers_are_read_around) {
  const char* src = skt_data("shape_key_leg.dae");
  skio_scene* s = load(src);
  ck_assert_uint_eq(s->mesh_count, 1);
  ck_assert_ptr_nonnull(s->meshes[0].skin);
  ck_assert_msg(s->material_note && strstr(s->material_note, "1 Collada morph controller(s) (blend shapes) not read"),
                "%s", s->material_note ? s->material_note : "(no note)");
  rewrite_all(s, row_thigh_lower);
  char out[256];
  save_edited(s, "morph.dae", out, sizeof out);
  only_controllers_changed(src, out);
  size_t n = 0, na = 0;
  char *o = skt_slurp(out, &n), *a = skt_slurp(src, &na);
  ck_assert(n != na || memcmp(o, a, n) != 0); /* the weights did change */
  free(a);
  ck_assert_ptr_nonnull(strstr(o, "<controller id=\"Leg-morph\""));
  ck_assert_ptr_nonnull(strstr(o, "<morph source=\"#Cylinder-mesh\" method=\"NORMALIZED\">"));
  free(o);
  skio_scene* b = load(out);
  skt_scene_same_skins(s, b);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
  static const char doc[] =
      "<library_controllers><controller id=\"skin\"><skin source=\"#m\"></skin></controller>"
      "<controller id=\"m\"><morph source=\"#geo\" method=\"RELATIVE\"></morph></controller></library_controllers>"
      "<node><instance_controller url=\"#m\"><bind_material/></instance_controller>"
      "<instance_controller url=\"#skin\"></instance_controller></node>";
  size_t on = 0;
  uint32_t removed = 0;
  char* fixed = skio_collada_without_morphs(doc, sizeof doc - 1, &on, &removed);
  ck_assert_ptr_nonnull(fixed);
  ck_assert_uint_eq(removed, 1);
  const char want[] =
      "<library_controllers><controller id=\"skin\"><skin source=\"#geo\"></skin></controller></library_controllers>"
      "<node><instance_geometry url=\"#geo\"><bind_material/></instance_geometry>"
      "<instance_controller url=\"#skin\"></instance_controller></node>";
  ck_assert_uint_eq(on, sizeof want - 1);
  ck_assert(!memcmp(fixed, want, on));
  ck_assert_ptr_null(skio_collada_without_morphs(fixed, on, &on, &removed)); /* nothing left to remove */
  free(fixed);
}
END_TEST

START_TEST(damaged_files_do_not_crash_the_editor) {
  const char* src = skt_data("two_material_leg.dae");
  skio_scene* s = load(src);
  rewrite_all(s, skt_row_perturb);
  size_t n;
  char* d = skt_slurp(src, &n);
  ck_assert_uint_eq(s->mesh_count, 2);
  skio_dae_mesh_edit e[2];
  for (uint32_t m = 0; m < 2; ++m)
    e[m] = (skio_dae_mesh_edit){s->meshes[m].node_name,
                                s->meshes[m].vertex_count,
                                s->meshes[m].positions,
                                s->meshes[m].skin->offsets,
                                s->meshes[m].skin->joints,
                                s->meshes[m].skin->weights,
                                NULL,
                                s->meshes[m].inverse_bind,
                                s->meshes[m].read_skin->offsets,
                                s->meshes[m].read_skin->joints,
                                s->meshes[m].read_skin->weights};
  char* bad = malloc(n + 1);
  uint32_t ok = 0;
  for (size_t cut = 0; cut <= n; cut += cut < 3000 ? 1 : 37) {
    skc_err err = {0};
    memcpy(bad, d, cut);
    int rc = edit_bytes(bad, cut, e, s, &err);
    ck_assert_msg(rc == SKC_OK || rc == SKIO_DAE_EDIT_CANNOT, "cut %zu: %d %s", cut, rc, err.message);
    ok += rc == SKC_OK;
  }
  ck_assert_uint_ge(ok, 1); /* the whole file at least (a cut in the trailing closing tags may still edit) */
  { /* counts the text does not hold are refused before anything is allocated for them */
    static const char* const from[] = {"<vertex_weights count=\"240\">", "<vcount>1 "};
    static const char* const to[] = {"<vertex_weights count=\"4000000000\">", "<vcount>4000000000 "};
    for (int k = 0; k < 2; ++k) {
      char* at = strstr(d, from[k]);
      ck_assert_ptr_nonnull(at);
      size_t head = (size_t)(at - d), nb = n - strlen(from[k]) + strlen(to[k]);
      char* big = malloc(nb + 1);
      memcpy(big, d, head);
      memcpy(big + head, to[k], strlen(to[k]));
      memcpy(big + head + strlen(to[k]), at + strlen(from[k]), n - head - strlen(from[k]));
      skc_err err = {0};
      int rc = edit_bytes(big, nb, e, s, &err);
      ck_assert_msg(rc == SKIO_DAE_EDIT_CANNOT, "%s: %d %s", to[k], rc, err.message);
      free(big);
    }
  }
  skt_rng r = {27};
  for (int i = 0; i < 3000; ++i) {
    memcpy(bad, d, n);
    for (int k = 0; k < 1 + i % 4; ++k) {
      const size_t at = skt_rand_u32(&r) % n;
      bad[at] = i % 3 == 0 ? "<>\"' 0-9e#/"[skt_rand_u32(&r) % 11] : (char)(bad[at] ^ (1u << (skt_rand_u32(&r) % 8)));
    }
    skc_err err = {0};
    int rc = edit_bytes(bad, n, e, s, &err);
    ck_assert_msg(rc == SKC_OK || rc == SKIO_DAE_EDIT_CANNOT, "flip %d: %d %s", i, rc, err.message);
  }
  free(bad);
  free(d);
  skio_scene_destroy(s);
}
END_TEST

static void setup(void) {
  skt_tmpdir_make(g_dir, sizeof g_dir, "daeedit");
}

static void teardown(void) {
  skt_tmpdir_remove(g_dir);
}

int main(void) {
  Suite* s = suite_create("dae_edit");
  TCase* tc = tcase_create("edit");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, unchanged_scene_writes_the_source_bytes);
  tcase_add_test(tc, new_weights_go_into_the_controllers);
  tcase_add_test(tc, unchanged_weights_keep_their_text);
  tcase_add_test(tc, weights_set_as_read_keep_exponent_text);
  tcase_add_test(tc, edit_elsewhere_copies_textures);
  tcase_add_test(tc, assimp_written_collada_edits_too);
  tcase_add_test(tc, an_unskinned_mesh_gets_a_skin);
  tcase_add_test(tc, what_cannot_be_edited_is_written_whole);
  tcase_add_test(tc, a_joint_no_mesh_binds_keeps_vertices_at_rest);
  tcase_add_test(tc, a_joint_the_controller_lacks_is_appended);
  tcase_add_test(tc, morph_controllers_are_read_around);
  tcase_add_test(tc, damaged_files_do_not_crash_the_editor);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
