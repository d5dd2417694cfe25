/* fuzz_import.c - libFuzzer target for the import -> validate path (sk_scene_load, sk_scene_validate). Assimp reads
 * files by path and picks the importer from the extension and content, so the input is written to a temporary file
 * whose extension comes from the first byte. Seeds: the corpus files (scripts/fuzz.sh) and
 * tests/fuzz/seeds-fuzz_import/ (collada_clips: a two-clip rig skinkit wrote as .dae, so the clip-library scanner of
 * io/collada_clips.c is fuzzed too; first byte 3 = "dae"). A first byte of 128 or more also writes the scene as .glb
 * and .dae (the frame view of an FBX, scene_frame.c; seed leg_xup_cm_fbx: first byte 132, "fbx"). Every loaded scene
 * is read back as the addon's importer reads it (objects and their keys, blend shapes, materials, images, key times:
 * ABI 1.13), then its identical vertices merged (sk_scene_weld, ABI 1.20) before the writes. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skinkit.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static const char* const kExt[] = {"glb", "gltf", "fbx", "dae", "x", "b3d", "md5mesh", "smd", "obj", "ms3d"};

/* ABI 1.13's read-back of a loaded scene over everything it lists (a few clips at most). */
static void read_back(const sk_scene* scene) {
  sk_error err;
  const uint32_t na = sk_scene_animation_count(scene) < 3 ? sk_scene_animation_count(scene) : 3;
  for (uint32_t i = 0; i < sk_scene_object_count(scene); ++i) {
    sk_object_info o = {.size = sizeof o};
    sk_scene_object_info(scene, i, &o, &err);
    for (uint32_t a = 0; a < na; ++a) {
      size_t n = 0;
      double t[4];
      float m[16];
      sk_scene_object_key_times(scene, a, i, t, 4, &n, &err);
      for (size_t k = 0; k < n && k < 4; ++k) sk_scene_object_sample(scene, a, i, t[k] + 0.01, m, &err);
    }
  }
  for (uint32_t a = 0; a < na; ++a) {
    size_t n = 0;
    sk_scene_animation_key_times(scene, a, NULL, 0, &n, &err);
  }
  for (uint32_t m = 0; m < sk_scene_mesh_count(scene); ++m) /* blend shapes: name, weight, positions counted */
    for (uint32_t k = 0; k < sk_scene_mesh_morph_count(scene, m) && k < 4; ++k) {
      (void)sk_scene_mesh_morph_name(scene, m, k);
      (void)sk_scene_mesh_morph_weight(scene, m, k);
      (void)sk_scene_mesh_morph_positions(scene, m, k, NULL, 0);
    }
  for (uint32_t i = 0; i < sk_scene_material_count(scene); ++i) {
    sk_material_desc d = {.size = sizeof d};
    sk_scene_material_info(scene, i, &d, &err);
  }
  for (uint32_t i = 0; i < sk_scene_image_count(scene); ++i) {
    sk_image_info d = {.size = sizeof d};
    sk_scene_image_info(scene, i, &d, &err);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  char path[256];
  snprintf(path, sizeof path, "/tmp/skinkit-fuzz-%ld.%s", (long)getpid(), kExt[data[0] % (sizeof kExt / sizeof kExt[0])]);
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data + 1, 1, size - 1, f);
  fclose(f);
  sk_scene* scene = NULL;
  sk_error err;
  /* isolate: Assimp's own crashes on damaged files are rejected in a child; our code runs (with coverage) here */
  sk_load_options lo = {sizeof lo, 0, 0, 1, 10.0f, 0, 1 | SK_NODES_ANIMATED}; /* as `convert` reads: keyed nodes */
  if (sk_scene_load(path, &lo, &scene, &err) == SK_OK) {
    uint32_t n = sk_scene_mesh_count(scene);
    sk_mesh_report* reports = calloc(n ? n : 1, sizeof *reports);
    if (reports) {
      for (uint32_t i = 0; i < n; ++i) {
        reports[i].size = sizeof reports[i];
        reports[i].skin.size = sizeof reports[i].skin;
      }
      uint32_t findings = 0;
      sk_scene_validate(scene, NULL, reports, n, &findings, &err);
      free(reports);
    }
    const sk_skeleton* sk = sk_scene_skeleton(scene);
    uint32_t nj = sk_skeleton_joint_count(sk);
    if (nj && sk_scene_animation_count(scene)) {
      float* trs = malloc((size_t)nj * 10 * sizeof(float));
      if (trs) sk_scene_sample_pose(scene, 0, 0.5, trs, &err);
      free(trs);
    }
    read_back(scene); /* what the addon's importer reads: objects with their keys, materials, images, key times */
    sk_scene_weld(scene, NULL, &err); /* as the CLI and the addon do before writing or building meshes */
    if (data[0] >= 128) { /* also written as .glb and .dae: an FBX's frame converted (scene_frame.c) */
      static const char* const kOut[] = {"glb", "dae"};
      for (int k = 0; k < 2; ++k) {
        char out[300];
        snprintf(out, sizeof out, "/tmp/skinkit-fuzz-%ld-out.%s", (long)getpid(), kOut[k]);
        sk_save_options so;
        memset(&so, 0, sizeof so);
        so.size = sizeof so;
        so.overwrite = 1;
        sk_scene_save(scene, out, &so, &err);
        unlink(out);
      }
    }
    sk_scene_destroy(scene);
  }
  unlink(path);
  return 0;
}
