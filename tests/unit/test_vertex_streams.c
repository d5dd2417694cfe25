/* test_vertex_streams.c - the second texture coordinate set and vertex colours kept through every reader and writer.
 * tests/data/colored_leg.{fbx,glb} (make_vertex_colors.py, Blender 3.4): a cylinder with a "Lightmap" UV map and a
 * per-corner byte colour "Col" in sRGB steps of 1/6, 1/4, 1/2; the FBX holds the colours as sRGB values, the glTF as
 * linear COLOR_0. Asserted:
 * - the FBX reads to the painted colour at every face corner (the corner told by its Lightmap uv), as linear values;
 *   the glTF reads both streams;
 * - written as .fbx, .dae, .glb and .gltf and read back, every vertex keeps both (FBX and Collada hold sRGB: the
 *   conversion both ways returns the values within 1e-5);
 * - a glTF written from the scene carries TEXCOORD_1 and COLOR_0 and passes through skinkit's reader;
 * - sk_mesh_desc of ABI 1.9 hands both to a new scene, and the 1.8 size of the struct is still accepted.
 * Before session 25 the scene had neither stream: `weights` and `convert` dropped them from every file. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"
#include "skio_scene.h"

static skio_scene* load(const char* path) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s: %s", path, err.message);
  ck_assert_uint_ge(s->mesh_count, 1);
  return s;
}

/* Vertex of b with a's vertex va's two UV pairs (within tol), or -1. */
static long match(const skio_mesh* a, size_t va, const skio_mesh* b, float tol) {
  for (size_t v = 0; v < b->vertex_count; ++v) {
    bool same = true;
    for (int k = 0; k < 2 && same; ++k)
      same = fabsf(a->uv0[va * 2 + k] - b->uv0[v * 2 + k]) <= tol && fabsf(a->uv1[va * 2 + k] - b->uv1[v * 2 + k]) <= tol;
    if (same) return (long)v;
  }
  return -1;
}

/* Every vertex of a has a vertex in b with the same UV pairs and colours within tol. */
static void same_streams(const skio_mesh* a, const skio_mesh* b, float tol, const char* what) {
  ck_assert_msg(a->uv1 && b->uv1, "%s: second UV set missing", what);
  ck_assert_msg(a->colors && b->colors, "%s: colours missing", what);
  for (size_t v = 0; v < a->vertex_count; ++v) {
    long w = match(a, v, b, 1e-4f);
    ck_assert_msg(w >= 0, "%s: vertex %zu (uv %g %g / %g %g) has no match", what, v, a->uv0[v * 2], a->uv0[v * 2 + 1],
                  a->uv1[v * 2], a->uv1[v * 2 + 1]);
    for (int c = 0; c < 4; ++c)
      ck_assert_msg(fabsf(a->colors[v * 4 + c] - b->colors[(size_t)w * 4 + c]) <= tol, "%s: vertex %zu channel %d: %g vs %g",
                    what, v, c, a->colors[v * 4 + c], b->colors[(size_t)w * 4 + c]);
  }
}

START_TEST(srgb_curve) {
  ck_assert_float_eq(skio_srgb_to_linear(0.0f), 0.0f);
  ck_assert_float_eq_tol(skio_srgb_to_linear(1.0f), 1.0f, 1e-6f);
  ck_assert_float_eq_tol(skio_srgb_to_linear(0.5f), 0.214041f, 1e-5f); /* ((0.5 + 0.055) / 1.055)^2.4 */
  ck_assert_float_eq_tol(skio_srgb_to_linear(0.04f), 0.04f / 12.92f, 1e-7f);
  for (int i = -10; i <= 300; ++i) {
    float x = (float)i / 255.0f;
    ck_assert_float_eq_tol(skio_linear_to_srgb(skio_srgb_to_linear(x)), x, 2e-6f);
  }
}
END_TEST

/* Face corner i of the cylinder (the order Blender keeps them in) has Lightmap uv (0.01 (i % 50), 0.02 (i % 37)), which
 * tells i back, and colour ((i % 7) / 6, (i % 5) / 4, (i % 3) / 2) in sRGB, stored as bytes. */
static int corner_of(const float* uv1) {
  for (int i = 0; i < 72; ++i)
    if (fabsf(uv1[0] - 0.01f * (float)(i % 50)) < 1e-4f && fabsf(uv1[1] - 0.02f * (float)(i % 37)) < 1e-4f) return i;
  return -1;
}

START_TEST(fbx_reads_the_painted_colours) {
  skio_scene* fbx = load(skt_data("colored_leg.fbx"));
  const skio_mesh* f = &fbx->meshes[0];
  ck_assert_uint_eq(f->vertex_count, 72);
  ck_assert_ptr_nonnull(f->uv1);
  ck_assert_ptr_nonnull(f->colors);
  for (size_t v = 0; v < f->vertex_count; ++v) {
    int i = corner_of(f->uv1 + v * 2);
    ck_assert_msg(i >= 0, "vertex %zu: Lightmap uv %g %g", v, f->uv1[v * 2], f->uv1[v * 2 + 1]);
    const float painted[4] = {(float)(i % 7) / 6.0f, (float)(i % 5) / 4.0f, (float)(i % 3) / 2.0f, 1.0f};
    for (int c = 0; c < 4; ++c) {
      float srgb = c < 3 ? skio_linear_to_srgb(f->colors[v * 4 + c]) : f->colors[v * 4 + c];
      ck_assert_msg(fabsf(srgb - painted[c]) <= 0.5f / 255.0f + 1e-5f, "corner %d channel %d: sRGB %g, painted %g", i, c,
                    srgb, painted[c]);
    }
  }
  skio_scene_destroy(fbx);
  /* Blender 3.4's glTF exporter wrote the same colours to other corners (70 of 72 differ from the painting, which
   * its FBX exporter keeps), so the .glb only has to carry both streams; its values go through the round trips */
  skio_scene* glb = load(skt_data("colored_leg.glb"));
  ck_assert_uint_eq(glb->meshes[0].vertex_count, 72);
  ck_assert_ptr_nonnull(glb->meshes[0].uv1);
  ck_assert_ptr_nonnull(glb->meshes[0].colors);
  for (size_t v = 0; v < 72; ++v) ck_assert_int_ge(corner_of(glb->meshes[0].uv1 + v * 2), 0);
  skio_scene_destroy(glb);
}
END_TEST

START_TEST(writers_keep_the_streams) {
  static const char* const exts[] = {"fbx", "dae", "glb", "gltf"};
  static const char* const sources[] = {"colored_leg.fbx", "colored_leg.glb"};
  char dir[] = "/tmp/skinkit_streams_XXXXXX", path[512];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  for (int k = 0; k < 2; ++k) {
    skio_scene* s = load(skt_data(sources[k]));
    for (int e = 0; e < 4; ++e) {
      snprintf(path, sizeof path, "%s/out.%s", dir, exts[e]);
      skio_export_options o = {0};
      o.overwrite = true;
      skc_err err = {0};
      ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", path, err.message);
      skio_scene* back = load(path);
      char what[64];
      snprintf(what, sizeof what, "%s -> %s", sources[k], exts[e]);
      ck_assert_uint_eq(back->mesh_count, 1);
      same_streams(&s->meshes[0], &back->meshes[0], 1e-5f, what);
      skio_scene_destroy(back);
    }
    skio_scene_destroy(s);
  }
  snprintf(path, sizeof path, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(path), 0);
}
END_TEST

START_TEST(abi_mesh_desc_carries_the_streams) {
  sk_skeleton* sk = NULL;
  sk_scene* scene = NULL;
  sk_error err;
  const float uv1[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f};
  const float col[12] = {1, 0, 0, 1, 0, 1, 0, 0.5f, 0, 0, 1, 0.25f};
  sk_mesh_desc d;
  skt_triangle_scene(&sk, &scene, &d);
  d.uv1 = uv1;
  d.colors = col;
  ck_assert_int_eq(sk_scene_add_mesh(scene, &d, NULL, &err), SK_OK);
  float got[12];
  ck_assert_uint_eq(sk_scene_mesh_uv1(scene, 0, got, 12), 6);
  ck_assert(memcmp(got, uv1, sizeof uv1) == 0);
  ck_assert_uint_eq(sk_scene_mesh_colors(scene, 0, got, 12), 12);
  ck_assert(memcmp(got, col, sizeof col) == 0);
  /* every writer keeps the alpha (.dae since session 56: Assimp's Collada writer writes R G B, collada_geometries.c) */
  static const char* const exts[] = {"dae", "fbx", "glb"};
  char dir[] = "/tmp/skinkit_alpha_XXXXXX", path[512];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  for (int e = 0; e < 3; ++e) {
    snprintf(path, sizeof path, "%s/tri.%s", dir, exts[e]);
    sk_save_options so = {.size = sizeof so, .overwrite = 1};
    ck_assert_msg(sk_scene_save(scene, path, &so, &err) == SK_OK, "%s: %s", exts[e], err.message);
    sk_scene* back = NULL;
    ck_assert_msg(sk_scene_load(path, NULL, &back, &err) == SK_OK, "%s: %s", exts[e], err.message);
    ck_assert_uint_eq(sk_scene_mesh_colors(back, 0, got, 12), 12);
    for (int v = 0; v < 3; ++v) /* the same three corners, in any order */
      ck_assert_msg(fabsf(got[v * 4 + 3] - col[v * 4 + 3]) < 1e-6f ||
                        fabsf(got[v * 4 + 3] - col[((v + 1) % 3) * 4 + 3]) < 1e-6f ||
                        fabsf(got[v * 4 + 3] - col[((v + 2) % 3) * 4 + 3]) < 1e-6f,
                    "%s: alpha %g of vertex %d", exts[e], got[v * 4 + 3], v);
    float sum = 0.0f;
    for (int v = 0; v < 3; ++v) sum += got[v * 4 + 3];
    ck_assert_msg(fabsf(sum - 1.75f) < 1e-5f, "%s: alphas add up to %g, not 1.75", exts[e], sum);
    sk_scene_destroy(back);
  }
  snprintf(path, sizeof path, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(path), 0);
  d.size = (uint32_t)offsetof(sk_mesh_desc, uv1); /* a caller built against ABI 1.8: its struct ends there */
  ck_assert_int_eq(sk_scene_add_mesh(scene, &d, NULL, &err), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_uv1(scene, 1, NULL, 0), 0);
  ck_assert_uint_eq(sk_scene_mesh_colors(scene, 1, NULL, 0), 0);
  d.size = (uint32_t)sizeof d + 8;
  ck_assert_int_eq(sk_scene_add_mesh(scene, &d, NULL, &err), SK_ERR_STRUCT_SIZE);
  sk_scene_destroy(scene);
  sk_skeleton_destroy(sk);
}
END_TEST

int main(void) {
  Suite* s = suite_create("vertex_streams");
  TCase* tc = tcase_create("streams");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, srgb_curve);
  tcase_add_test(tc, fbx_reads_the_painted_colours);
  tcase_add_test(tc, writers_keep_the_streams);
  tcase_add_test(tc, abi_mesh_desc_carries_the_streams);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
