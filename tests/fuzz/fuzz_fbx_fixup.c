/* fuzz_fbx_fixup.c - libFuzzer target for the FBX fix-up (io/fbx_fixup.c), in process. The first input byte picks the
 * entry point, the rest is the FBX: 0 binary record repair (skio_fbx_fix_sentinels), checked to be idempotent
 * (repairing its own output changes nothing, as fbx_fixup.h promises); 1 the same with stop times and the Euler
 * unwrapping (skio_fbx_fix_binary), then the clusters' TransformAssociateModel and binds (fbx_assoc.c, twice: the
 * second adds none), the blend shapes of a one-triangle aiScene with one anim mesh (fbx_shapes_write.c, twice: the
 * second adds none, the Geometry has its BlendShape then; with the shape's DeformPercent curves in two clips) and the
 * merge of an object's Mesh Models (fbx_merge.c with their blend shapes, fbx_merge_shapes.c; twice: the second merges
 * none); 2 and 3 the binary file as ASCII FBX text (fbx_ascii_write.c) and the bytes as an ASCII file's stacks'
 * starts (fbx_stacks.c); with bit 2 set the frame declaration (fbx_settings.c, patched in place on a copy). Every call
 * must return a code, never read outside the input. Seeds:
 * tests/fuzz/seeds-fuzz_fbx_fixup/ (tests/fuzz/make_seeds.py: binary and ASCII FBX that `skinkit convert` wrote;
 * lcl_scale_binary / lcl_scale_ascii: Assimp's own output with its "Lcl Scale" scale connections; shape_anim_binary:
 * Assimp 5.2.5's own output, kept as made, of blend_shapes' triangle with two clips, so that the shape curves are
 * written; merge_shapes_binary: mode 1 and the binary FBX `skinkit convert` wrote of tests/data/shape_key_anim.glb
 * before fbx_merge_shapes.c, kept as made: two Mesh Models "Leg" each with a BlendShape of Bulge and Thin and their
 * DeformPercent curves, which the merge makes one) and the corpus .fbx files (scripts/fuzz.sh). */
#include <assimp/scene.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void binary_idempotent(const uint8_t* in, size_t n) {
  uint8_t *a = NULL, *b = NULL;
  size_t an = 0, bn = 0;
  if (skio_fbx_fix_sentinels(in, n, &a, &an, NULL, NULL) != SKC_OK) return;
  if (skio_fbx_fix_sentinels(a, an, &b, &bn, NULL, NULL) != SKC_OK || bn != an || memcmp(a, b, an) != 0)
    __builtin_trap(); /* the repaired file must be one the fix-up reads and leaves alone */
  free(a);
  free(b);
}

/* Two clips keying the shape: the first densely (3 keys, ticks per second 0: Assimp's 25), the second with a sparse
 * key, a key out of order, a target out of range, a weight not finite and channels naming no mesh ("x", "7"). Their
 * curves go into the file's first two AnimationStacks, when it has them. */
static struct aiAnimation** morph_clips(void) {
  static unsigned v0[1] = {0}, v2[2] = {0, 5};
  static double w0[1] = {0.25}, w1[1] = {1.0}, w2[2] = {INFINITY, 0.5};
  static struct aiMeshMorphKey dense[3] = {{0, v0, w0, 1}, {2, v0, w1, 1}, {5, v0, w0, 1}};
  static struct aiMeshMorphKey sparse[4] = {{0.5, v2, w2, 2}, {0.25, v0, w1, 1}, {1, v2, w0, 0}, {1.5, v0, w0, 1}};
  static struct aiMeshMorphAnim a = {.mNumKeys = 3, .mKeys = dense}, b = {.mNumKeys = 4, .mKeys = sparse}, x, y;
  static struct aiMeshMorphAnim *first[1] = {&a}, *second[3] = {&x, &b, &y};
  static struct aiAnimation clips[2] = {
      {.mNumMorphMeshChannels = 1, .mMorphMeshChannels = first},
      {.mTicksPerSecond = 1, .mNumMorphMeshChannels = 3, .mMorphMeshChannels = second}};
  static struct aiAnimation* list[2] = {&clips[0], &clips[1]};
  memcpy(a.mName.data, "0", 2), a.mName.length = 1;
  memcpy(b.mName.data, "0", 2), b.mName.length = 1;
  memcpy(x.mName.data, "x", 2), x.mName.length = 1;
  memcpy(y.mName.data, "7", 2), y.mName.length = 1;
  return list;
}

/* A scene of one triangle (positions at 0 and 1, the corners of many seeds' meshes) with a blend shape moving one
 * corner and two clips keying it (morph_clips); its shapes and their curves added to in, then again to the output:
 * none the second time. */
static void blend_shapes(const uint8_t* in, size_t n) {
  static struct aiVector3D base[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, moved[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 1}};
  static struct aiVector3D nrm[3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  static struct aiAnimMesh anim = {.mVertices = moved, .mNormals = nrm, .mNumVertices = 3, .mWeight = 0.5f};
  static struct aiAnimMesh* anims[1] = {&anim};
  static struct aiMesh mesh = {
      .mNumVertices = 3, .mVertices = base, .mNormals = nrm, .mNumAnimMeshes = 1, .mAnimMeshes = anims};
  static struct aiMesh* meshes[1] = {&mesh};
  static struct aiScene sc = {.mNumMeshes = 1, .mMeshes = meshes, .mNumAnimations = 2};
  sc.mAnimations = morph_clips();
  memcpy(anim.mName.data, "Shape", 6);
  anim.mName.length = 5;
  uint8_t *a = NULL, *b = NULL;
  size_t an = 0, bn = 0;
  uint32_t first = 0, second = 0;
  if (skio_fbx_add_blend_shapes(in, n, &sc, &a, &an, &first, NULL) != SKC_OK) return;
  if (skio_fbx_add_blend_shapes(a, an, &sc, &b, &bn, &second, NULL) != SKC_OK || second != 0) __builtin_trap();
  free(b);
  free(a);
}

static void binary_options(const uint8_t* in, size_t n) {
  const int64_t stops[3] = {46186158000LL, 0, -1};
  const skio_fbx_fix_options o = {stops, 3, true, true};
  uint8_t* out = NULL;
  size_t on = 0, added = 0;
  if (skio_fbx_fix_binary(in, n, &o, &out, &on, &added, NULL) != SKC_OK) return;
  uint8_t *a = NULL, *b = NULL; /* the clusters' TransformAssociateModel (fbx_assoc.c), then again: none to add */
  size_t an = 0, bn = 0;
  uint32_t first = 0, second = 0;
  skio_fbx_bind bind = {"Bone", {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 1}};
  if (skio_fbx_fix_clusters(out, on, &bind, 1, &a, &an, &first, NULL) == SKC_OK) {
    if (skio_fbx_fix_clusters(a, an, &bind, 1, &b, &bn, &second, NULL) != SKC_OK || second != 0) __builtin_trap();
    free(b);
    free(a);
  }
  blend_shapes(out, on);
  a = b = NULL; /* the Models of one object merged (fbx_merge.c), then again: none left to merge */
  if (skio_fbx_merge_parts(out, on, &a, &an, &first, NULL) == SKC_OK) {
    if (skio_fbx_merge_parts(a, an, &b, &bn, &second, NULL) != SKC_OK || second != 0) __builtin_trap();
    free(b);
    free(a);
  }
  free(out);
}

/* The binary FBX as ASCII FBX text (fbx_ascii_write.c: NUL-terminated, as documented), and any bytes as an ASCII
 * file's stacks (fbx_stacks.c: the clips' starts). */
static void ascii(const uint8_t* in, size_t n) {
  char* out = NULL;
  size_t on = 0;
  if (skio_fbx_to_ascii(in, n, &out, &on, NULL) == SKC_OK) {
    if (out[on] != 0 || strlen(out) != on) __builtin_trap();
    free(out);
  }
  skio_fbx_stack* st = NULL;
  uint32_t count = 0;
  if (skio_fbx_ascii_stack_list((const char*)in, n, &st, &count, NULL) == SKC_OK)
    for (uint32_t k = 0; k < count; ++k)
      if (count > 256 || !st[k].name || !(st[k].start == st[k].start)) __builtin_trap();
  skio_fbx_stack_free(st, count);
}

/* The frame declaration (fbx_settings.c) on any bytes, patched in place on a copy. */
static void frames(const uint8_t* in, size_t n) {
  const skio_frame f = {true, 2.54, 3, -2, 0};
  uint8_t* copy = malloc(n ? n : 1);
  if (!copy) return;
  memcpy(copy, in, n);
  uint32_t set = 0;
  skio_fbx_set_frame(copy, n, &f, &set, NULL);
  free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  /* a private copy of exactly the bytes, so ASan sees any read past them */
  uint8_t* in = malloc(size - 1 ? size - 1 : 1);
  if (!in) return 0;
  memcpy(in, data + 1, size - 1);
  if (data[0] & 4) {
    frames(in, size - 1);
  } else {
    switch (data[0] & 3) {
      case 0: binary_idempotent(in, size - 1); break;
      case 1: binary_options(in, size - 1); break;
      default:
        ascii(in, size - 1);
        break;
    }
  }
  free(in);
  return 0;
}
