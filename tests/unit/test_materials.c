#define _DEFAULT_SOURCE /* mkdtemp */
/* test_materials.c - materials, textures and images through the scene (io/scene_material.c) and every writer.
 *
 * tests/data/textured_rig.{fbx,dae} were written by Blender 3.4 (tests/data/make_textured_rig.py): a skinned
 * cylinder with a material "Skin" (base colour texture textured_rig_albedo.png, normal map textured_rig_normal.png)
 * and a material "Paint" (base colour 0.8 0.2 0.1 1, no texture). The .fbx embeds the PNG files, the .dae refers to
 * the one it exports (the albedo) by relative path. References: the script's values and the PNG files' bytes (an
 * image must come back byte for byte). Read back: .glb / .gltf through our own document layer (skio_gltf_doc.h:
 * the JSON and the image bufferViews), .dae / .fbx through Assimp (skio_scene_import). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skio_gltf_doc.h"
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
  /* every primitive's material is its mesh's */
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    int prim = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", m), "primitives"), 0);
    uint32_t mat = UINT32_MAX;
    ck_assert(skio_json_u32(d, skio_json_get(d, prim, "material"), &mat));
    ck_assert_uint_eq(mat, s->meshes[m].material);
  }
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

static Suite* suite(void) {
  Suite* s = suite_create("materials");
  TCase* tc = tcase_create("materials");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, blender_fbx_and_dae_materials_are_read);
  tcase_add_test(tc, gltf_writer_keeps_materials_textures_and_images);
  tcase_add_test(tc, collada_and_fbx_writers_keep_materials);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
