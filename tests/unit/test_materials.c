#define _DEFAULT_SOURCE /* mkdtemp */
/* test_materials.c - materials, textures and images through the scene (io/scene_material.c) and every writer.
 *
 * tests/data/textured_rig.{fbx,dae} were written by Blender 3.4 (tests/data/make_textured_rig.py): a skinned
 * cylinder with a material "Skin" (base colour texture textured_rig_albedo.png, normal map textured_rig_normal.png)
 * and a material "Paint" (base colour 0.8 0.2 0.1 1, no texture). The .fbx embeds the PNG files, the .dae refers to
 * the one it exports (the albedo) by relative path. References: the script's values and the PNG files' bytes (an
 * image must come back byte for byte). Read back: .glb / .gltf through our own document layer (skio_gltf_doc.h:
 * the JSON and the image bufferViews), .dae / .fbx through Assimp (skio_scene_import). A .glb / .gltf read by
 * skinkit's glTF reader fills the same tables from the document (io/gltf_import_material.c): checked against the
 * FBX scene it was written from and, for the corpus glTFs, against the documents' own material and image arrays. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"
#include "skio_gltf_doc.h"
#include "skio_gltf_import.h"
#include "skio_scene.h"

static const char* data_path(const char* name) {
  static char buf[4][4096];
  static int k;
  k = (k + 1) % 4;
  const char* me = __FILE__; /* <repo>/tests/unit/test_materials.c */
  const char* cut = strstr(me, "tests/unit/");
  snprintf(buf[k], sizeof buf[k], "%.*s%s", cut ? (int)(cut - me) : 0, me, name);
  return buf[k];
}

static unsigned char* slurp(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* d = malloc(sz > 0 ? (size_t)sz : 1);
  if (d && fread(d, 1, (size_t)sz, f) != (size_t)sz) {
    free(d);
    d = NULL;
  }
  fclose(f);
  *n = (size_t)sz;
  return d;
}

static const skio_material* find_material(const skio_scene* s, const char* name) {
  for (uint32_t i = 0; i < s->material_count; ++i)
    if (strcmp(s->materials[i].name, name) == 0) return &s->materials[i];
  return NULL;
}

/* The image bytes equal the file's. */
static void assert_image_is(const skio_scene* s, int32_t image, const char* file) {
  ck_assert_int_ge(image, 0);
  ck_assert_uint_lt((uint32_t)image, s->image_count);
  const skio_image* im = &s->images[image];
  size_t n = 0;
  unsigned char* want = slurp(data_path(file), &n);
  ck_assert_ptr_nonnull(want);
  ck_assert_msg(im->data != NULL, "image %s has no bytes", im->name);
  ck_assert_uint_eq(im->size, n);
  ck_assert_msg(memcmp(im->data, want, n) == 0, "image %s: bytes differ from %s", im->name, file);
  ck_assert_str_eq(im->mime, "image/png");
  free(want);
}

/* What Blender wrote: Skin textured (albedo, and the normal map where the format has it), Paint 0.8 0.2 0.1 1, every
 * mesh on one of them. */
static void assert_blender_materials(const skio_scene* s, bool normal_map, const char* what) {
  const skio_material* skin = find_material(s, "Skin");
  const skio_material* paint = find_material(s, "Paint");
  ck_assert_msg(skin && paint, "%s: materials Skin and Paint expected (%u materials)", what, s->material_count);
  const float want[4] = {0.8f, 0.2f, 0.1f, 1.0f};
  for (int c = 0; c < 4; ++c)
    ck_assert_msg(fabsf(paint->base_color[c] - want[c]) < 1e-4f, "%s: Paint base colour[%d] %g", what, c,
                  (double)paint->base_color[c]);
  ck_assert_int_lt(paint->base_color_tex.image, 0);
  assert_image_is(s, skin->base_color_tex.image, "tests/data/textured_rig_albedo.png");
  /* the texture replaces a legacy diffuse colour: glTF's factor (which multiplies) is white */
  for (int c = 0; c < 4; ++c) ck_assert_float_eq_tol(skin->base_color[c], 1.0f, 1e-6f);
  if (normal_map) assert_image_is(s, skin->normal_tex.image, "tests/data/textured_rig_normal.png");
  bool on_skin = false, on_paint = false;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    ck_assert_uint_lt(s->meshes[m].material, s->material_count);
    on_skin |= &s->materials[s->meshes[m].material] == skin;
    on_paint |= &s->materials[s->meshes[m].material] == paint;
  }
  ck_assert_msg(on_skin && on_paint, "%s: meshes on both materials", what);
}

START_TEST(blender_fbx_and_dae_materials_are_read) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(data_path("tests/data/textured_rig.fbx"), NULL, &s, &err) == SKC_OK, "%s", err.message);
  assert_blender_materials(s, true, "fbx");
  ck_assert(s->images[find_material(s, "Skin")->base_color_tex.image].embedded);
  ck_assert_uint_eq(s->image_count, 2);
  skio_scene_destroy(s);
  ck_assert_msg(skio_scene_import(data_path("tests/data/textured_rig.dae"), NULL, &s, &err) == SKC_OK, "%s", err.message);
  assert_blender_materials(s, false, "dae");
  const skio_image* im = &s->images[find_material(s, "Skin")->base_color_tex.image];
  ck_assert(!im->embedded);
  ck_assert_ptr_nonnull(im->path); /* read beside the model */
  skio_scene_destroy(s);
}
END_TEST

/* tests/data/material_factors.fbx (make_material_factors.py): Blender's FBX exporter writes metallic as
 * ReflectionFactor, which Maya's and 3ds Max's Phong materials use for a reflection: read as metallic for files
 * Blender (or skinkit, through Assimp) wrote, whose ReflectionColor is the diffuse colour. Roughness comes from
 * Assimp's reading of the Shininess exponent. */
START_TEST(blender_fbx_metallic_is_read) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(data_path("tests/data/material_factors.fbx"), NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  const skio_material* brass = find_material(s, "Brass");
  const skio_material* rubber = find_material(s, "Rubber");
  ck_assert_msg(brass && rubber, "%u materials", s->material_count);
  ck_assert_float_eq_tol(brass->metallic, 0.8f, 1e-6f);
  ck_assert_float_eq_tol(brass->roughness, 0.3f, 1e-5f);
  const float emit[3] = {0.5f, 0.25f, 0.1f};
  for (int c = 0; c < 3; ++c) ck_assert_float_eq_tol(brass->emissive[c], emit[c], 1e-6f);
  ck_assert_float_eq(rubber->metallic, 0.0f);
  ck_assert_float_eq(rubber->roughness, 1.0f);
  skio_scene_destroy(s);
  /* Assimp's own tool wrote this one (make_assimp_phong.sh): a Phong material with the template's ReflectionFactor
   * 1.0 and a black ReflectionColor is no metal (read as metallic 1 before the reflection colour was checked) */
  ck_assert_msg(skio_scene_import(data_path("tests/unskinned/assimp_phong.fbx"), NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  const skio_material* shiny = find_material(s, "Shiny");
  ck_assert_ptr_nonnull(shiny);
  ck_assert_float_eq(shiny->metallic, 0.0f);
  ck_assert_float_eq_tol(shiny->base_color[0], 0.6f, 1e-6f);
  skio_scene_destroy(s);
}
END_TEST

/* The written glTF against the scene: materials in order with their factors, one texture per image, image bytes
 * (bufferView) or URI, every primitive's material. */
static void check_gltf(const skio_scene* s, const char* path, bool expect_uri) {
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_doc_load(path, &d, &err) == SKC_OK, "%s", err.message);
  int mats = skio_json_get(d, 0, "materials");
  ck_assert_int_eq(skio_json_len(d, mats), (int)s->material_count);
  uint32_t used_images = 0;
  for (uint32_t i = 0; i < s->image_count; ++i) {
    bool used = false;
    for (uint32_t m = 0; m < s->material_count; ++m) {
      const skio_material* mm = &s->materials[m];
      used |= mm->base_color_tex.image == (int32_t)i || mm->normal_tex.image == (int32_t)i ||
              mm->emissive_tex.image == (int32_t)i || mm->occlusion_tex.image == (int32_t)i ||
              mm->metallic_roughness_tex.image == (int32_t)i;
    }
    used_images += used;
  }
  ck_assert_int_eq(skio_json_len(d, skio_json_get(d, 0, "textures")), (int)used_images);
  ck_assert_int_eq(skio_json_len(d, skio_json_get(d, 0, "images")), (int)used_images);
  ck_assert_int_eq(skio_json_len(d, skio_json_get(d, 0, "samplers")), used_images ? 1 : 0);
  for (uint32_t m = 0; m < s->material_count; ++m) {
    const skio_material* sm = &s->materials[m];
    int mt = skio_json_at(d, mats, (int)m);
    ck_assert(skio_json_streq(d, skio_json_get(d, mt, "name"), sm->name));
    int pbr = skio_json_get(d, mt, "pbrMetallicRoughness");
    float bc[4] = {0};
    ck_assert_int_eq(skio_json_floats(d, skio_json_get(d, pbr, "baseColorFactor"), bc, 4), 4);
    for (int c = 0; c < 4; ++c) ck_assert_float_eq(bc[c], sm->base_color[c]);
    double f = -1;
    ck_assert(skio_json_num(d, skio_json_get(d, pbr, "metallicFactor"), &f) && (float)f == sm->metallic);
    ck_assert(skio_json_num(d, skio_json_get(d, pbr, "roughnessFactor"), &f) && (float)f == sm->roughness);
    const struct {
      int tok;
      const skio_texref* ref;
    } refs[2] = {{skio_json_get(d, pbr, "baseColorTexture"), &sm->base_color_tex},
                 {skio_json_get(d, mt, "normalTexture"), &sm->normal_tex}};
    for (int k = 0; k < 2; ++k) {
      ck_assert_int_eq(refs[k].tok >= 0, refs[k].ref->image >= 0);
      if (refs[k].tok < 0) continue;
      uint32_t t = 0, src = 0, view = 0;
      ck_assert(skio_json_u32(d, skio_json_get(d, refs[k].tok, "index"), &t));
      ck_assert(skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "textures", t), "source"), &src));
      int img = skio_gltf_item(d, "images", src);
      const skio_image* want = &s->images[refs[k].ref->image];
      if (expect_uri) {
        ck_assert(skio_json_streq(d, skio_json_get(d, img, "uri"), "textured_rig_albedo.png"));
        continue;
      }
      ck_assert(skio_json_streq(d, skio_json_get(d, img, "mimeType"), "image/png"));
      ck_assert(skio_json_u32(d, skio_json_get(d, img, "bufferView"), &view));
      const uint8_t* bytes = NULL;
      size_t n = 0, stride = 0;
      ck_assert_msg(skio_gltf_view_data(d, view, &bytes, &n, &stride, &err) == SKC_OK, "%s", err.message);
      ck_assert_uint_eq(n, want->size);
      ck_assert(memcmp(bytes, want->data, n) == 0);
    }
  }
  /* every primitive's material is its mesh's: the meshes of one object are primitives of one glTF mesh, so each
   * primitive (vertex count, material) is matched to a mesh of the scene not matched yet */
  bool* taken = calloc(s->mesh_count + 1, sizeof *taken);
  uint32_t prims = 0;
  for (uint32_t g = 0; skio_gltf_item(d, "meshes", g) >= 0; ++g) {
    int list = skio_json_get(d, skio_gltf_item(d, "meshes", g), "primitives");
    for (int p = 0; p < skio_json_len(d, list); ++p, ++prims) {
      int prim = skio_json_at(d, list, p);
      uint32_t mat = UINT32_MAX, pa = UINT32_MAX, count = 0;
      if (!skio_json_u32(d, skio_json_get(d, prim, "material"), &mat)) mat = UINT32_MAX;
      ck_assert(skio_json_u32(d, skio_json_get(d, skio_json_get(d, prim, "attributes"), "POSITION"), &pa));
      ck_assert(skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "accessors", pa), "count"), &count));
      uint32_t m = 0;
      for (; m < s->mesh_count; ++m) {
        uint32_t want = s->meshes[m].material < s->material_count ? s->meshes[m].material : UINT32_MAX;
        if (!taken[m] && s->meshes[m].vertex_count == count && want == mat) break;
      }
      ck_assert_msg(m < s->mesh_count, "primitive %d of mesh %u (material %u) matches no mesh", p, g, mat);
      taken[m] = true;
    }
  }
  ck_assert_uint_eq(prims, s->mesh_count);
  free(taken);
  skio_gltf_doc_destroy(d);
}

START_TEST(gltf_writer_keeps_materials_textures_and_images) {
  skc_err err = {0};
  char dir[] = "/tmp/skt_mat_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char* sources[] = {"tests/data/textured_rig.fbx", "tests/data/textured_rig.dae"};
  char path[512], bin[512];
  for (int k = 0; k < 2; ++k) {
    skio_scene* s = NULL;
    ck_assert_msg(skio_scene_import(data_path(sources[k]), NULL, &s, &err) == SKC_OK, "%s", err.message);
    for (int binary = 0; binary < 2; ++binary) {
      snprintf(path, sizeof path, "%s/out.%s", dir, binary ? "glb" : "gltf");
      skio_export_options o = {0};
      o.overwrite = true;
      o.keep_all = true;
      char note[512] = "x";
      o.note = note;
      o.note_size = sizeof note;
      ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", path, err.message);
      ck_assert_msg(note[0] == 0, "unexpected note: %s", note);
      check_gltf(s, path, false); /* the images sit elsewhere: their bytes are embedded */
      unlink(path);
      snprintf(bin, sizeof bin, "%s/out.bin", dir);
      unlink(bin);
    }
    skio_scene_destroy(s);
  }
  /* a .gltf beside the .dae's image keeps it by relative URI */
  size_t n = 0;
  static const char* files[] = {"textured_rig.dae", "textured_rig_albedo.png"};
  for (int f = 0; f < 2; ++f) {
    char src[256];
    snprintf(src, sizeof src, "tests/data/%s", files[f]);
    unsigned char* d = slurp(data_path(src), &n);
    ck_assert_ptr_nonnull(d);
    snprintf(path, sizeof path, "%s/%s", dir, files[f]);
    FILE* fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(d, 1, n, fp), n);
    fclose(fp);
    free(d);
  }
  skio_scene* s = NULL;
  snprintf(path, sizeof path, "%s/textured_rig.dae", dir);
  ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s", err.message);
  snprintf(path, sizeof path, "%s/out.gltf", dir);
  skio_export_options o = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s", err.message);
  check_gltf(s, path, true);
  skio_scene_destroy(s);
  unlink(path);
  snprintf(bin, sizeof bin, "%s/out.bin", dir);
  unlink(bin);
  for (int f = 0; f < 2; ++f) {
    snprintf(path, sizeof path, "%s/%s", dir, files[f]);
    unlink(path);
  }
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(collada_and_fbx_writers_keep_materials) {
  skc_err err = {0};
  skio_scene* s = NULL;
  ck_assert_msg(skio_scene_import(data_path("tests/data/textured_rig.fbx"), NULL, &s, &err) == SKC_OK, "%s", err.message);
  char dir[] = "/tmp/skt_matx_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char* exts[] = {"dae", "fbx"};
  for (int i = 0; i < 2; ++i) {
    char path[256];
    snprintf(path, sizeof path, "%s/out.%s", dir, exts[i]);
    skio_export_options o = {0};
    o.keep_all = true;
    char note[512] = "x";
    o.note = note;
    o.note_size = sizeof note;
    ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", exts[i], err.message);
    fprintf(stderr, "%s note: %s\n", exts[i], note);
    skio_scene* back = NULL;
    ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s: %s", exts[i], err.message);
    ck_assert_uint_eq(back->material_count, s->material_count);
    assert_blender_materials(back, true, exts[i]); /* images written beside the output, read back from there */
    skio_scene_destroy(back);
    unlink(path);
  }
  static const char* images[] = {"textured_rig_albedo.png", "textured_rig_normal.png"};
  for (int i = 0; i < 2; ++i) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, images[i]);
    ck_assert_int_eq(unlink(path), 0);
  }
  ck_assert_int_eq(rmdir(dir), 0);
  skio_scene_destroy(s);
}
END_TEST

static void rm_dir(const char* dir);

/* s written to path (every joint kept) and read back. */
static skio_scene* written_and_read(const skio_scene* s, const char* path) {
  skc_err err = {0};
  skio_export_options o = {0};
  o.keep_all = true;
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", path, err.message);
  skio_scene* back = NULL;
  ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s: %s", path, err.message);
  return back;
}

/* The material of the mesh whose node is `node` (NULL: none). */
static const char* node_material(const skio_scene* s, const char* node) {
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].node_name && !strcmp(s->meshes[m].node_name, node))
      return s->meshes[m].material < s->material_count ? s->materials[s->meshes[m].material].name : NULL;
  ck_abort_msg("no mesh of node %s", node);
  return NULL;
}

/* tests/data/unbound_material.dae (make_unbound_material.py, Blender's Collada exporter): meshes without material
 * beside one with - a <triangles> naming none under an <instance_geometry> binding none, and a skinned one under an
 * <instance_controller> without <bind_material>. Assimp gives them the document's first material; Blender none: read
 * without one (collada_unbound.c), here and after skinkit's own .dae (whose placeholder symbol it leaves unbound). */
START_TEST(collada_mesh_without_material_keeps_none) {
  skc_err err = {0};
  skio_scene* s = NULL;
  ck_assert_msg(skio_scene_import(data_path("tests/data/unbound_material.dae"), NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  char dir[] = "/tmp/skt_unbound_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/out.dae", dir);
  for (int pass = 0; pass < 2; ++pass) {
    ck_assert_uint_eq(s->mesh_count, 3);
    ck_assert_uint_eq(s->material_count, 1);
    ck_assert_str_eq(node_material(s, "Painted"), "Red");
    ck_assert_ptr_null(node_material(s, "Plain"));
    ck_assert_ptr_null(node_material(s, "Skin"));
    skio_scene* back = pass ? NULL : written_and_read(s, path);
    skio_scene_destroy(s);
    s = back;
  }
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A base colour texture on the second UV set (tests/data/colored_leg.fbx has "UVMap" and "Lightmap") written as binary
 * FBX reads that set back: the Texture's UVSet names the layer (fbx_materials_write.c). Assimp's writer names neither,
 * so it came back on set 0 (also in Maya, Unity and Unreal, whose FBX SDK resolves UVSet by name). */
START_TEST(fbx_texture_keeps_its_uv_set) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(data_path("tests/data/colored_leg.fbx"), NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  ck_assert_ptr_nonnull(s->meshes[0].uv1);
  size_t n = 0;
  unsigned char* png = slurp(data_path("tests/data/textured_rig_albedo.png"), &n);
  uint32_t img = 0, mat = 0;
  ck_assert_int_eq(skio_scene_add_image(s, "albedo.png", png, n, &img, &err), SKC_OK);
  free(png);
  skio_material m;
  skio_material_init(&m);
  m.name = "Baked";
  m.base_color_tex.image = (int32_t)img;
  m.base_color_tex.uv = 1;
  ck_assert_int_eq(skio_scene_add_material(s, &m, &mat, &err), SKC_OK);
  ck_assert_int_eq(skio_mesh_set_material(s, 0, mat, &err), SKC_OK);
  char dir[] = "/tmp/skt_uvset_XXXXXX", path[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/leg.fbx", dir);
  skio_scene* back = written_and_read(s, path);
  const skio_material* b = find_material(back, "Baked");
  ck_assert_ptr_nonnull(b);
  assert_image_is(back, b->base_color_tex.image, "tests/data/textured_rig_albedo.png");
  ck_assert_uint_eq(b->base_color_tex.uv, 1);
  skio_scene_destroy(back);
  skio_scene_destroy(s);
  rm_dir(dir);
}
END_TEST

/* A glTF mesh of two primitives (tests/data/two_material_leg.glb: mesh "Cylinder", a primitive per material) written
 * as .dae keeps its name: Assimp names the parts' geometries "Cylinder-0" and "Cylinder-1", which came back as the
 * mesh's name; now both geometries are named "Cylinder" (collada_geometries.c) and the reader takes a name several
 * geometries share. The .fbx merges the parts into one Geometry of that name (scene_export.c geometry_names). */
START_TEST(a_gltf_meshs_name_survives_collada_and_fbx) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(data_path("tests/data/two_material_leg.glb"), NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  char dir[] = "/tmp/skt_meshname_XXXXXX", path[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char* const exts[] = {"dae", "fbx"};
  for (int e = 0; e < 2; ++e) {
    snprintf(path, sizeof path, "%s/leg.%s", dir, exts[e]);
    skio_scene* back = written_and_read(s, path);
    ck_assert_uint_ge(back->mesh_count, 1);
    for (uint32_t m = 0; m < back->mesh_count; ++m)
      ck_assert_msg(!strcmp(back->meshes[m].name, "Cylinder"), "%s: mesh %u named %s", exts[e], m,
                    back->meshes[m].name);
    skio_scene_destroy(back);
  }
  skio_scene_destroy(s);
  rm_dir(dir);
}
END_TEST

/* Removes every file of dir, then dir. */
static void rm_dir(const char* dir) {
  DIR* dd = opendir(dir);
  ck_assert_ptr_nonnull(dd);
  struct dirent* e;
  char path[1024];
  while ((e = readdir(dd)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      ck_assert_int_eq(unlink(path), 0);
    }
  closedir(dd);
  ck_assert_int_eq(rmdir(dir), 0);
}

/* An image named like the output ("out.fbx"): it is written under another name and the output stays the model
 * (the images are renamed into place after the output, so the image took its place: session 50). */
START_TEST(image_named_like_the_output) {
  skc_err err = {0};
  skio_scene* s = NULL;
  ck_assert_msg(skio_scene_import(data_path("tests/data/textured_rig.fbx"), NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  char dir[] = "/tmp/skt_matn_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char* exts[] = {"dae", "fbx"};
  for (int i = 0; i < 2; ++i) {
    char path[256], name[32];
    snprintf(name, sizeof name, "out.%s", exts[i]);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ck_assert_uint_ge(s->image_count, 1);
    free(s->images[0].name);
    s->images[0].name = strdup(name);
    skio_export_options o = {0};
    ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", exts[i], err.message);
    size_t n = 0;
    unsigned char* head = slurp(path, &n);
    const char* magic = i ? "Kaydara FBX Binary" : "<?xml";
    ck_assert_msg(head && n > 1000 && !memcmp(head, magic, strlen(magic)), "%s is not the model", name);
    free(head);
    skio_scene* back = NULL;
    ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s: %s", exts[i], err.message);
    assert_blender_materials(back, true, exts[i]); /* both images found beside it, with their bytes */
    skio_scene_destroy(back);
  }
  rm_dir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* The tables of b (read back) equal a's (what was written): counts, factors, flags, texture slots and image bytes. */
static void assert_same_materials(const skio_scene* a, const skio_scene* b, const char* what) {
  ck_assert_msg(b->material_count == a->material_count, "%s: %u materials, %u written", what, b->material_count,
                a->material_count);
  ck_assert_msg(b->image_count == a->image_count, "%s: %u images, %u written", what, b->image_count, a->image_count);
  for (uint32_t i = 0; i < a->material_count; ++i) {
    const skio_material* x = &a->materials[i];
    const skio_material* y = find_material(b, x->name);
    ck_assert_msg(y != NULL, "%s: material %s missing", what, x->name);
    for (int c = 0; c < 4; ++c) ck_assert_float_eq_tol(y->base_color[c], x->base_color[c], 1e-6f);
    for (int c = 0; c < 3; ++c) ck_assert_float_eq_tol(y->emissive[c], x->emissive[c], 1e-6f);
    ck_assert_float_eq_tol(y->metallic, x->metallic, 1e-6f);
    ck_assert_float_eq_tol(y->roughness, x->roughness, 1e-6f);
    ck_assert_uint_eq(y->alpha_mode, x->alpha_mode);
    ck_assert_int_eq(y->double_sided, x->double_sided);
    const skio_texref* xr[5] = {&x->base_color_tex, &x->normal_tex, &x->metallic_roughness_tex, &x->emissive_tex,
                                &x->occlusion_tex};
    const skio_texref* yr[5] = {&y->base_color_tex, &y->normal_tex, &y->metallic_roughness_tex, &y->emissive_tex,
                                &y->occlusion_tex};
    for (int k = 0; k < 5; ++k) {
      ck_assert_msg((xr[k]->image >= 0) == (yr[k]->image >= 0), "%s: %s texture slot %d", what, x->name, k);
      if (xr[k]->image < 0) continue;
      ck_assert_uint_lt((uint32_t)yr[k]->image, b->image_count);
      ck_assert_uint_eq(yr[k]->uv, xr[k]->uv);
      const skio_image* xi = &a->images[xr[k]->image];
      const skio_image* yi = &b->images[yr[k]->image];
      ck_assert_msg(yi->data && yi->size == xi->size && memcmp(yi->data, xi->data, xi->size) == 0,
                    "%s: image of %s slot %d: bytes differ", what, x->name, k);
      ck_assert_str_eq(yi->mime, xi->mime);
    }
  }
}

/* FBX -> .glb with the library; the .glb read back by skinkit's glTF reader has the FBX scene's tables; written on to
 * .gltf and back to .glb (edits of the document) and to .dae they are kept. */
START_TEST(gltf_reader_fills_material_tables) {
  skc_err err = {0};
  skio_scene* s = NULL;
  ck_assert_msg(skio_scene_import(data_path("tests/data/textured_rig.fbx"), NULL, &s, &err) == SKC_OK, "%s", err.message);
  char dir[] = "/tmp/skt_matg_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char glb[512], path[512];
  snprintf(glb, sizeof glb, "%s/rig.glb", dir);
  skio_scene* g = written_and_read(s, glb);
  ck_assert_ptr_nonnull(g->gltf); /* the native reader */
  ck_assert_msg(g->material_note == NULL, "note: %s", g->material_note);
  assert_same_materials(s, g, "fbx -> glb");
  assert_blender_materials(g, true, "glb");
  for (uint32_t i = 0; i < g->image_count; ++i) ck_assert(g->images[i].embedded);

  /* .glb -> .gltf: an edit of the .glb (its BIN chunk becomes rig.bin), materials as they were */
  snprintf(path, sizeof path, "%s/rig.gltf", dir);
  char note[512] = "";
  skio_export_options o = {0};
  o.keep_all = true;
  o.note = note;
  o.note_size = sizeof note;
  ck_assert_msg(skio_scene_export(g, path, &o, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(note[0] == 0, "note: %s", note);
  skio_scene* back = NULL;
  ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s", err.message);
  assert_same_materials(g, back, "glb -> gltf");
  /* .gltf -> .glb: an edit too, rig.bin packed into the BIN chunk */
  char glb2[512];
  snprintf(glb2, sizeof glb2, "%s/rig2.glb", dir);
  ck_assert_msg(skio_scene_export(back, glb2, &o, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(note[0] == 0, "note: %s", note);
  check_gltf(back, glb2, false);
  skio_scene* back2 = NULL;
  ck_assert_msg(skio_scene_import(glb2, NULL, &back2, &err) == SKC_OK, "%s", err.message);
  assert_same_materials(back, back2, "gltf -> glb");
  skio_scene_destroy(back2);
  skio_scene_destroy(back);

  /* .glb -> .dae: images written beside it, read back by Assimp */
  snprintf(path, sizeof path, "%s/rig.dae", dir);
  ck_assert_msg(skio_scene_export(g, path, &o, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s", err.message);
  ck_assert_uint_eq(back->material_count, g->material_count);
  ck_assert_uint_eq(back->image_count, g->image_count);
  assert_blender_materials(back, true, "glb -> dae");
  skio_scene_destroy(back);
  skio_scene_destroy(g);
  skio_scene_destroy(s);
  rm_dir(dir);
}
END_TEST

/* Hostile tables: indices past their arrays, a data: URI image, a missing file, bad factors. Nothing fails. */
START_TEST(gltf_reader_material_hostile) {
  static const char json[] =
      "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
      "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteLength\":99999}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
      "\"images\":[{\"uri\":\"data:image/png;base64,iVBORw0KGgo=\"},{\"bufferView\":7},{\"uri\":\"missing.png\"},"
      "{\"bufferView\":1},{\"uri\":\"/etc/passwd\"},{}],"
      "\"textures\":[{\"source\":0},{\"source\":99},{\"extensions\":{\"EXT_texture_webp\":{\"source\":2}}}],"
      "\"materials\":[{\"name\":\"a\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[2,-1,0.5],"
      "\"metallicFactor\":7,\"baseColorTexture\":{\"index\":0,\"texCoord\":1}},\"normalTexture\":{\"index\":1},"
      "\"emissiveTexture\":{\"index\":55},\"occlusionTexture\":{\"index\":2,\"strength\":0.5},"
      "\"alphaMode\":\"MASK\",\"alphaCutoff\":0.25,\"doubleSided\":true},{}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":1}]},"
      "{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":9}]},{\"primitives\":[{\"attributes\":"
      "{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0},{\"mesh\":1},{\"mesh\":2}],\"scenes\":[{\"nodes\":[0,1,2]}]}";
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_load_memory(json, sizeof json - 1, "hostile.gltf", &s, &err) == SKC_OK, "%s", err.message);
  ck_assert_uint_eq(s->material_count, 2);
  ck_assert_uint_eq(s->image_count, 6);
  ck_assert_ptr_nonnull(s->material_note);
  const skio_material* a = &s->materials[0];
  ck_assert_str_eq(a->name, "a");
  ck_assert_str_eq(s->materials[1].name, "material1");
  ck_assert_float_eq(a->base_color[0], 1.0f); /* 3 values: the default stays */
  ck_assert_float_eq(a->metallic, 1.0f);
  ck_assert_int_eq(a->base_color_tex.image, 0);
  ck_assert_uint_eq(a->base_color_tex.uv, 1);
  ck_assert_int_lt(a->normal_tex.image, 0);
  ck_assert_int_lt(a->emissive_tex.image, 0);
  ck_assert_int_eq(a->occlusion_tex.image, 2);
  ck_assert_float_eq(a->occlusion_tex.scale, 0.5f);
  ck_assert_uint_eq(a->alpha_mode, SKIO_ALPHA_MASK);
  ck_assert_float_eq(a->alpha_cutoff, 0.25f);
  ck_assert(a->double_sided);
  ck_assert_uint_eq(s->images[0].size, 8);
  ck_assert_str_eq(s->images[0].mime, "image/png");
  for (uint32_t i = 1; i < 6; ++i) ck_assert_ptr_null(s->images[i].data);
  ck_assert_str_eq(s->images[2].name, "missing.png");
  ck_assert_uint_eq(s->mesh_count, 3);
  for (uint32_t m = 0; m < 3; ++m)
    ck_assert_uint_eq(s->meshes[m].material, s->meshes[m].gltf_mesh == 0 ? 1u : UINT32_MAX);
  skio_scene_destroy(s);
}
END_TEST

/* Corpus glTFs: the tables hold every material and image of the document; a change of container keeps them. */
START_TEST(corpus_gltf_materials_kept) {
  static const char* files[] = {"CesiumMan.glb", "CesiumMan_subdiv2.glb", "Fox.glb", "SimpleSkin.gltf", "quad_skin.glb"};
  char dir[] = "/tmp/skt_matc_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
    if (!skt_assets_dir()) {
      ck_assert(!skt_assets_required());
      break;
    }
    char rel[64];
    snprintf(rel, sizeof rel, "gltf/%s", files[f]);
    const char* src = skt_asset(rel);
    skc_err err = {0};
    skio_scene* s = NULL;
    ck_assert_msg(skio_scene_import(src, NULL, &s, &err) == SKC_OK, "%s", err.message);
    ck_assert_ptr_nonnull(s->gltf);
    int mats = skio_json_len(s->gltf, skio_json_get(s->gltf, 0, "materials"));
    int imgs = skio_json_len(s->gltf, skio_json_get(s->gltf, 0, "images"));
    ck_assert_int_eq((int)s->material_count, mats);
    ck_assert_int_eq((int)s->image_count, imgs);
    for (uint32_t i = 0; i < s->image_count; ++i)
      ck_assert_msg(s->images[i].data && s->images[i].mime[0], "%s: image %u", files[f], i);
    bool glb = strstr(files[f], ".glb") != NULL;
    char out[512];
    snprintf(out, sizeof out, "%s/out.%s", dir, glb ? "gltf" : "glb");
    skio_export_options o = {0};
    o.keep_all = true;
    o.overwrite = true;
    ck_assert_msg(skio_scene_export(s, out, &o, &err) == SKC_OK, "%s: %s", files[f], err.message);
    if (!glb) check_gltf(s, out, false); /* the scene writer's form; a .glb -> .gltf edit keeps the source's JSON */
    skio_gltf_doc* d = NULL;
    ck_assert_msg(skio_gltf_doc_load(out, &d, &err) == SKC_OK, "%s", err.message);
    ck_assert_int_eq(skio_json_len(d, skio_json_get(d, 0, "materials")), mats);
    ck_assert_int_eq(skio_json_len(d, skio_json_get(d, 0, "images")), imgs);
    skio_gltf_doc_destroy(d);
    fprintf(stderr, "%s: %d materials, %d images kept\n", files[f], mats, imgs);
    skio_scene_destroy(s);
  }
  rm_dir(dir);
}
END_TEST

/* Assimp's X exporter writes TextureFilename "*0" (its notation for an embedded image) for a texture it embeds
 * nowhere. The reader drops that dangling reference with a note (it was kept, and Assimp's Collada exporter then
 * failed the whole conversion with "unknown error"), and every writer passes the note on; a file written
 * without it has no texture on that material. */
START_TEST(dangling_embedded_texture_is_dropped_with_a_note) {
  char dir[] = "/tmp/skt_matx_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[600];
  snprintf(path, sizeof path, "%s/in.x", dir);
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("xof 0303txt 0032\nFrame Root {\n Mesh tri {\n  3;\n  0.0;0.0;0.0;,\n  1.0;0.0;0.0;,\n  0.0;1.0;0.0;;\n"
        "  1;\n  3;0,1,2;;\n  MeshMaterialList {\n   1;\n   1;\n   0;;\n   Material paint {\n    1.0;0.5;0.25;1.0;;\n"
        "    0.0;\n    0.0;0.0;0.0;;\n    0.0;0.0;0.0;;\n    TextureFilename { \"*0\"; }\n   }\n  }\n }\n}\n",
        f);
  fclose(f);
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s", err.message);
  ck_assert_ptr_nonnull(s->material_note);
  ck_assert_ptr_nonnull(strstr(s->material_note, "*0"));
  ck_assert_uint_eq(s->image_count, 0);
  const char* outs[] = {"out.dae", "out.glb", "out.fbx"};
  for (int k = 0; k < 3; ++k) {
    char note[512] = "", out[700];
    snprintf(out, sizeof out, "%s/%s", dir, outs[k]);
    skio_export_options o = {0};
    o.note = note;
    o.note_size = sizeof note;
    ck_assert_msg(skio_scene_export(s, out, &o, &err) == SKC_OK, "%s: %s", outs[k], err.message);
    ck_assert_msg(strstr(note, "texture *0 names no embedded image") != NULL, "%s: note \"%s\"", outs[k], note);
    skio_scene* back = NULL;
    ck_assert_msg(skio_scene_import(out, NULL, &back, &err) == SKC_OK, "%s: %s", outs[k], err.message);
    ck_assert_uint_eq(back->image_count, 0);
    skio_scene_destroy(back);
    unlink(out);
  }
  skio_scene_destroy(s);
  unlink(path);
  rmdir(dir);
}
END_TEST

/* ABI 1.11: materials given to a scene built by hand (what the Blender addon's export does) reach every writer: a
 * textured and a plain material on two meshes of one object, written as .glb, .dae and .fbx and read back (factors,
 * alpha mode, double-sidedness where the format has them; the image byte for byte; each mesh on its material). */
static sk_scene* hand_built_scene_named(const char* skin_name, const char* paint_name);
static sk_scene* hand_built_scene(void) { return hand_built_scene_named("Skin", "Paint"); }

/* Two materials of one name (glTF allows it) stay apart through binary FBX: the pass that adds EmissiveColor and
 * SpecularFactor finds material k's record by its place, not its name (fbx_materials_write.c; by name, the first
 * one's emission went to both). */
START_TEST(fbx_materials_of_one_name_stay_apart) {
  sk_scene* sc = hand_built_scene_named("Same", "Same");
  char dir[] = "/tmp/skt_samename_XXXXXX", path[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/same.fbx", dir);
  sk_save_options o = {.size = sizeof o, .overwrite = 1, .as_is = 0};
  sk_error e;
  ck_assert_msg(sk_scene_save(sc, path, &o, &e) == SK_OK, "%s", e.message);
  skio_scene* back = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s", err.message);
  ck_assert_uint_eq(back->mesh_count, 2);
  for (uint32_t k = 0; k < 2; ++k) { /* the mesh with triangle (0, 1, 2) on the first (no emission, metallic 0.3) */
    const skio_mesh* mm = &back->meshes[k];
    ck_assert_uint_lt(mm->material, back->material_count);
    const skio_material* got = &back->materials[mm->material];
    const bool first = mm->positions[3 * mm->indices[1]] == 1.0f && mm->positions[3 * mm->indices[1] + 1] == 0.0f;
    ck_assert_float_eq_tol(got->emissive[0], first ? 0.0f : 0.1f, 1e-6f);
    ck_assert_float_eq_tol(got->metallic, first ? 0.3f : 0.0f, 1e-6f);
  }
  skio_scene_destroy(back);
  rm_dir(dir);
  sk_scene_destroy(sc);
}
END_TEST

static sk_scene* hand_built_scene_named(const char* skin_name, const char* paint_name) {
  sk_scene* sc = NULL;
  ck_assert_int_eq(sk_scene_create(NULL, &sc, NULL), SK_OK);
  const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  const float uv[8] = {0, 0, 1, 0, 0, 1, 1, 1};
  const uint32_t a[3] = {0, 1, 2}, b[3] = {1, 3, 2};
  for (int k = 0; k < 2; ++k) {
    sk_mesh_desc md = {sizeof md, 0,    k ? "Arm-1" : "Arm-0", 4, pos, NULL, NULL, uv, k ? b : a, 3, NULL, NULL, NULL,
                       NULL,      "Arm"};
    ck_assert_int_eq(sk_scene_add_mesh(sc, &md, NULL, NULL), SK_OK);
  }
  size_t n = 0;
  unsigned char* png = slurp(data_path("tests/data/textured_rig_albedo.png"), &n);
  ck_assert_ptr_nonnull(png);
  uint32_t img = 0, skin = 0, paint = 0;
  ck_assert_int_eq(sk_scene_add_image(sc, "albedo.png", png, n, &img, NULL), SK_OK);
  free(png);
  sk_material_desc m = {sizeof m, SK_ALPHA_OPAQUE, skin_name, {1, 1, 1, 1}, 0.3f, 0.6f, {0, 0, 0}, 0.5f, 0,
                        1,        (int32_t)img,    -1,        -1,           -1,   -1};
  ck_assert_int_eq(sk_scene_add_material(sc, &m, &skin, NULL), SK_OK);
  sk_material_desc p = {
      sizeof p, SK_ALPHA_MASK, paint_name, {0.8f, 0.2f, 0.1f, 1}, 0, 1.0f, {0.1f, 0, 0}, 0.4f, 1, 1, -1, -1, -1, -1,
      -1};
  ck_assert_int_eq(sk_scene_add_material(sc, &p, &paint, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_material(sc, 0, skin, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_material(sc, 1, paint, NULL), SK_OK);
  return sc;
}

START_TEST(hand_built_materials_reach_every_writer) {
  sk_scene* sc = hand_built_scene();
  char dir[] = "/tmp/skt_matabi_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char* exts[] = {"glb", "gltf", "dae", "fbx"};
  for (int i = 0; i < 4; ++i) {
    char path[256];
    snprintf(path, sizeof path, "%s/out.%s", dir, exts[i]);
    sk_save_options o = {.size = sizeof o, .overwrite = 1, .as_is = 0};
    sk_error e;
    ck_assert_msg(sk_scene_save(sc, path, &o, &e) == SK_OK, "%s: %s", exts[i], e.message);
    skio_scene* back = NULL;
    skc_err err = {0};
    ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s: %s", exts[i], err.message);
    const skio_material* skin = find_material(back, "Skin");
    const skio_material* paint = find_material(back, "Paint");
    ck_assert_msg(skin && paint, "%s: %u materials read back", exts[i], back->material_count);
    assert_image_is(back, skin->base_color_tex.image, "tests/data/textured_rig_albedo.png");
    const float want[4] = {0.8f, 0.2f, 0.1f, 1.0f};
    for (int c = 0; c < 4; ++c) ck_assert_float_eq_tol(paint->base_color[c], want[c], 1e-4f);
    ck_assert_int_lt(paint->base_color_tex.image, 0);
    if (i < 2) { /* glTF carries every factor and flag */
      ck_assert_float_eq_tol(skin->metallic, 0.3f, 1e-6f);
      ck_assert_float_eq_tol(skin->roughness, 0.6f, 1e-6f);
      ck_assert_uint_eq(paint->alpha_mode, SKIO_ALPHA_MASK);
      ck_assert_float_eq_tol(paint->alpha_cutoff, 0.4f, 1e-6f);
      ck_assert(paint->double_sided && !skin->double_sided);
      ck_assert_float_eq_tol(paint->emissive[0], 0.1f, 1e-6f);
    }
    if (i == 2) ck_assert(paint->double_sided && !skin->double_sided); /* GOOGLEEARTH's <double_sided> */
    if (i == 3) { /* FBX the way Blender writes it: ReflectionFactor, Shininess ((1 - r) * 10)^2, EmissiveColor */
      ck_assert_float_eq_tol(skin->metallic, 0.3f, 1e-6f);
      ck_assert_float_eq_tol(skin->roughness, 0.6f, 1e-5f);
      ck_assert_float_eq(paint->metallic, 0.0f);
      ck_assert_float_eq(paint->roughness, 1.0f); /* written as a tiny exponent: Assimp writes none at 0 */
      ck_assert_float_eq_tol(paint->emissive[0], 0.1f, 1e-6f);
      ck_assert_float_eq(skin->emissive[0], 0.0f);
    }
    ck_assert_uint_eq(back->mesh_count, 2);
    for (uint32_t k = 0; k < 2; ++k) { /* the mesh with triangle (0, 1, 2) on Skin, the other on Paint */
      const skio_mesh* mm = &back->meshes[k];
      ck_assert_uint_lt(mm->material, back->material_count);
      bool first = mm->index_count == 3 && mm->positions[3 * mm->indices[1]] == 1.0f &&
                   mm->positions[3 * mm->indices[1] + 1] == 0.0f;
      ck_assert_ptr_eq(&back->materials[mm->material], first ? skin : paint);
    }
    skio_scene_destroy(back);
  }
  rm_dir(dir);
  sk_scene_destroy(sc);
}
END_TEST

/* The strength of a normal map (glTF's normalTexture.scale) through binary FBX, found by the scene audit of session
 * 73 (0.8 came back as 1 both ways): FBX holds it as the material's BumpFactor, where Blender's exporter writes its
 * Normal Map node's Strength (tests/data/normal_strength.fbx, make_normal_strength.py: 0.6) and its importer reads
 * it. Assimp's reader gives it as AI_MATKEY_BUMPSCALING (read now); its writer left it at the template's 1.0
 * (fbx_materials_write.c now writes it). */
START_TEST(fbx_keeps_the_normal_map_strength) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(data_path("tests/data/normal_strength.fbx"), NULL, &s, &err) == SKC_OK, "%.400s",
                err.message);
  const skio_material* bumpy = find_material(s, "Bumpy");
  ck_assert_ptr_nonnull(bumpy);
  ck_assert_int_ge(bumpy->normal_tex.image, 0);
  ck_assert_float_eq_tol(bumpy->normal_tex.scale, 0.6f, 1e-6f);
  skio_scene_destroy(s);
  sk_scene* sc = hand_built_scene();
  size_t n = 0;
  unsigned char* png = slurp(data_path("tests/data/textured_rig_normal.png"), &n);
  ck_assert_ptr_nonnull(png);
  uint32_t img = 0, mat = 0;
  ck_assert_int_eq(sk_scene_add_image(sc, "normal.png", png, n, &img, NULL), SK_OK);
  free(png);
  sk_material_desc m = {.size = sizeof m,
                        .name = "Bumpy",
                        .base_color = {1, 1, 1, 1},
                        .roughness = 0.5f,
                        .alpha_cutoff = 0.5f,
                        .normal_scale = 0.35f,
                        .base_color_image = -1,
                        .metallic_roughness_image = -1,
                        .normal_image = (int32_t)img,
                        .emissive_image = -1,
                        .occlusion_image = -1};
  ck_assert_int_eq(sk_scene_add_material(sc, &m, &mat, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_material(sc, 0, mat, NULL), SK_OK);
  char dir[] = "/tmp/skt_bump_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char* exts[] = {"fbx", "glb"};
  for (int i = 0; i < 2; ++i) {
    char path[256];
    snprintf(path, sizeof path, "%s/out.%s", dir, exts[i]);
    sk_save_options o = {.size = sizeof o, .overwrite = 1};
    sk_error e;
    ck_assert_msg(sk_scene_save(sc, path, &o, &e) == SK_OK, "%s: %.400s", exts[i], e.message);
    skio_scene* back = NULL;
    ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s: %.400s", exts[i], err.message);
    const skio_material* b = find_material(back, "Bumpy");
    ck_assert_msg(b && b->normal_tex.image >= 0, "%s: no normal map read back", exts[i]);
    ck_assert_msg(fabsf(b->normal_tex.scale - 0.35f) < 1e-6f, "%s: strength %g", exts[i], b->normal_tex.scale);
    skio_scene_destroy(back);
  }
  rm_dir(dir);
  sk_scene_destroy(sc);
}
END_TEST

/* A material assigned on a scene read from a glTF is written: the in-place edit (which keeps the document's own
 * materials byte for byte) steps aside and the scene is written whole. */
START_TEST(material_set_on_a_read_gltf_is_written) {
  sk_scene* sc = NULL;
  ck_assert_int_eq(sk_scene_load(data_path("tests/data/skinrig.glb"), NULL, &sc, NULL), SK_OK);
  uint32_t before = sk_scene_material_count(sc), mt = 0;
  sk_material_desc m = {
      sizeof m, SK_ALPHA_OPAQUE, "Added", {0.25f, 0.5f, 0.75f, 1}, 0, 1, {0, 0, 0}, 0.5f, 0, 1, -1, -1, -1, -1, -1};
  ck_assert_int_eq(sk_scene_add_material(sc, &m, &mt, NULL), SK_OK);
  ck_assert_uint_eq(mt, before);
  ck_assert_int_eq(sk_scene_mesh_set_material(sc, 0, mt, NULL), SK_OK);
  char dir[] = "/tmp/skt_matgl_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/out.glb", dir);
  sk_save_options o = {.size = sizeof o, .overwrite = 1, .as_is = 0};
  ck_assert_int_eq(sk_scene_save(sc, path, &o, NULL), SK_OK);
  skio_scene* back = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &back, &err) == SKC_OK, "%s", err.message);
  const skio_material* added = find_material(back, "Added");
  ck_assert_ptr_nonnull(added);
  ck_assert_float_eq_tol(added->base_color[2], 0.75f, 1e-6f);
  ck_assert_ptr_eq(&back->materials[back->meshes[0].material], added);
  skio_scene_destroy(back);
  rm_dir(dir);
  sk_scene_destroy(sc);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("materials");
  TCase* tc = tcase_create("materials");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, blender_fbx_and_dae_materials_are_read);
  tcase_add_test(tc, blender_fbx_metallic_is_read);
  tcase_add_test(tc, gltf_writer_keeps_materials_textures_and_images);
  tcase_add_test(tc, collada_and_fbx_writers_keep_materials);
  tcase_add_test(tc, collada_mesh_without_material_keeps_none);
  tcase_add_test(tc, image_named_like_the_output);
  tcase_add_test(tc, fbx_texture_keeps_its_uv_set);
  tcase_add_test(tc, fbx_materials_of_one_name_stay_apart);
  tcase_add_test(tc, a_gltf_meshs_name_survives_collada_and_fbx);
  tcase_add_test(tc, gltf_reader_fills_material_tables);
  tcase_add_test(tc, gltf_reader_material_hostile);
  tcase_add_test(tc, corpus_gltf_materials_kept);
  tcase_add_test(tc, dangling_embedded_texture_is_dropped_with_a_note);
  tcase_add_test(tc, hand_built_materials_reach_every_writer);
  tcase_add_test(tc, material_set_on_a_read_gltf_is_written);
  tcase_add_test(tc, fbx_keeps_the_normal_map_strength);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
