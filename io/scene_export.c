/* scene_export.c - skio_scene -> aiScene (built here in C, owned by us) -> Assimp exporter (FBX, Collada); glTF
 * goes to skinkit's own writer (skio_gltf_write).
 *
 * Assimp's exporter deep-copies the scene it is given (SceneCombiner::CopyScene) before running its own
 * post-processing, so a scene built with malloc here is only read by Assimp and freed by free_ai_scene.
 *
 * What Assimp 5.2.5 writes, per format (findings from round trips, see tests/unit/test_io.c):
 *  - glTF 2 (.glb "glb2", .gltf "gltf2") is NOT written through Assimp any more: skio_gltf_write (io/gltf_write.c,
 *    io/skio_gltf.h) writes it. Assimp 5.2.5's glTF2 exporter wrote one skin for the whole scene (per joint the
 *    offset matrix of the FIRST mesh binding it), at most 4 influences per vertex (JOINTS_0/WEIGHTS_0, in aiBone
 *    order, the rest silently dropped; its importer reads every JOINTS_n), joined identical vertices (merging the
 *    weights of co-located vertices that differ) and failed with an empty message when a clip name collided with
 *    another object id (duplicate clip names, a clip named like a node: Assimp's own test models man.mdl and
 *    box_nested_animation.dae). Our writer keeps every vertex in order, one skin per mesh with its own inverse
 *    binds, every JOINTS_n/WEIGHTS_n set asked for, every clip under its own name.
 *  - Binary FBX ("fbx", .fbx): Assimp 5.2.5's binary writer leaves out the null record that must end every
 *    nested node list (cause and byte offsets in fbx_fixup.c), so its own reader ("FBX-Tokenize ... block offset
 *    is out of range") and Blender ("failed to read nested block sentinel") rejected every file; records written
 *    with an empty child list (AnimationLayer, ...) lost their "{ }" scope too, and Assimp's importer then dropped
 *    every animation layer. The scene is exported to memory (aiExportSceneToBlob), repaired by skio_fbx_fix_binary
 *    and only then written: Assimp reads it back with the same meshes, joints, influences and animations as the
 *    ASCII FBX of the same scene (tests/unit/test_fbx_binary.c), Blender reads meshes, vertex groups, armature and
 *    animation (tests/addon/blender_readback.py).
 *  - Both FBX flavours: Assimp writes each clip's LocalStop/ReferenceStop as whole seconds (FBXExporter.cpp
 *    to_ktime(ticks, anim) divides integers) and its importer drops the keys after LocalStop (SimpleSkin's last
 *    0.5 s came back frozen); the exact stop is written over it (write_fbx). The importer also drops curves that
 *    repeat the rest value (a rest-pose clip such as Testwuson's "Wuson_Bind" vanished): scene_import.c keeps them.
 *  - ASCII FBX ("fbxa", only when asked by name): the binary FBX of the same scene (all the repairs and passes below,
 *    or the edit of an FBX source), written as text by fbx_ascii_write.c with every value exact (session 72; Assimp's
 *    own ASCII writer kept 6 significant digits and three.js read its P records as NaN). Blender's FBX importer
 *    refuses ASCII FBX. The skeleton is always put under a synthetic identity root here (see build_nodes): Assimp's
 *    FBX exporter turns the aiScene root into the file's implicit root, dropping its name and transform. Remaining
 *    Assimp losses (rotations as Euler-angle curves that readers interpolate as angles between keys) are listed per
 *    corpus file in tests/unit/test_roundtrip.c; `skinkit convert` warns about them.
 *  - Collada ("collada", .dae): reads back with joints, all influences and animations once every channel has
 *    equal T/R/S key counts (see build_anim; without that: "Unable to resolve library reference
 *    <node>_matrix-input", e.g. Fox.glb). Vertices are re-expanded per face corner by the Collada importer.
 *    Several clips: Assimp's writer gave every <animation> the same source ids (its reader then gave every clip
 *    one clip's keys) and Blender merged them into one action; they are now written in sequence on one timeline
 *    with a <library_animation_clips> (build_timeline, io/skio_collada.h) and cut apart again on import: names,
 *    key times and poses come back (tests/unit/test_collada_clips.c), Blender plays clip k at its start time.
 *  - For Blender's Collada and FBX importers (tests/addon/blender_readback.py): every skeleton node is written as
 *    a bone (write_all_bones) so no plain node with a transform sits above the joints, and FBX gets its rest pose
 *    equal to its bind pose (assimp_bake). Reasons at those functions.
 */
#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fbx_fixup.h"
#include "skio_ai_export.h"
#include "skio_atomic.h"
#include "skio_collada.h"
#include "skio_dae_edit.h"
#include "skio_fbx_edit.h"
#include "skio_gltf.h"
#include "skio_gltf_doc.h"
#include "skio_gltf_edit.h"
#include "skio_gltf_import.h"
#include "skio_scene.h"

/* An aiString holds MAXLEN - 1 bytes: a longer name is cut there, before a whole UTF-8 character (cut inside one,
 * the Collada file was malformed XML: a 3,000-character accented joint name). */
static void set_name(struct aiString* s, const char* name) {
  size_t n = strlen(name);
  if (n >= MAXLEN) n = skio_utf8_cut(name, MAXLEN - 1);
  memcpy(s->data, name, n);
  s->data[n] = 0;
  s->length = (ai_uint32)n;
}

/* ---- format table ---------------------------------------------------------------------------------- */
typedef struct format_entry {
  const char* ext;     /* lower-case, with dot */
  const char* id;      /* Assimp export id */
  const char* refused; /* NULL = supported; else the reason */
} format_entry;

static const format_entry k_formats[] = {
    {".glb", "glb2", NULL}, /* skinkit's own writer (io/gltf_write.c): any number of influences */
    {".vrm", "glb2", NULL}, /* a .glb by another name, written only as an edit of a VRM source (export_gltf) */
                            /* clang-format off */
    {".gltf", "gltf2", NULL},
    {".fbx", "fbx", NULL}, /* repaired after Assimp writes it: see write_fbx_binary */
    {".fbx", "fbxa", NULL},
    {".dae", "collada", NULL},
                            /* clang-format on */
};

int skio_export_format(const char* path, const char* format, const char** out_id, const char** out_ext, skc_err* err) {
  const format_entry* hit = NULL;
  if (format && format[0]) {
    for (size_t i = 0; i < sizeof k_formats / sizeof k_formats[0]; ++i)
      if (strcasecmp(format, k_formats[i].id) == 0 || strcasecmp(format, k_formats[i].ext + 1) == 0)
        if (!hit) hit = &k_formats[i];
    if (!hit) return skc_fail(err, SKC_UNSUPPORTED, "unknown export format \"%s\" (glb, gltf, fbx, fbxa, dae)", format);
  } else {
    const char* dot = path ? strrchr(path, '.') : NULL;
    const char* slash = path ? strrchr(path, '/') : NULL;
    if (!dot || (slash && dot < slash))
      return skc_fail(err, SKC_UNSUPPORTED, "%s: no file extension to pick the export format from", path ? path : "");
    for (size_t i = 0; i < sizeof k_formats / sizeof k_formats[0]; ++i)
      if (!hit && strcasecmp(dot, k_formats[i].ext) == 0) hit = &k_formats[i];
    if (!hit) return skc_fail(err, SKC_UNSUPPORTED, "%s: cannot write \"%s\" files (glb, gltf, fbx, dae)", path, dot);
  }
  if (hit->refused) return skc_fail(err, SKC_UNSUPPORTED, "%s", hit->refused);
  if (out_id) *out_id = hit->id;
  if (out_ext) *out_ext = hit->ext;
  return SKC_OK;
}

bool skio_export_fbx_ascii(const skio_export_options* o) {
  return o && o->format && strcasecmp(o->format, "fbxa") == 0;
}

int skio_export_extension_supported(const char* extension) {
  if (!extension || !extension[0]) return 0;
  const char* e = extension[0] == '.' ? extension + 1 : extension;
  for (size_t i = 0; i < sizeof k_formats / sizeof k_formats[0]; ++i)
    if (!k_formats[i].refused && strcasecmp(e, k_formats[i].ext + 1) == 0) return 1;
  return 0;
}

/* ---- weights processing ---------------------------------------------------------------------------- */
/* Processed CSR of one mesh (owned arrays). */
typedef struct csr {
  uint32_t* offsets;
  uint32_t* joints;
  float* weights;
} csr;

static void csr_free(csr* c) {
  free(c->offsets);
  free(c->joints);
  free(c->weights);
}

/* One entry per joint: the finite weights of a joint named twice in a vertex added into its first entry (the skin
 * deforms the same: skinning is linear in the weights; FBX clusters and glTF hold a joint once per vertex, and a
 * Collada vertex naming it twice reads back as a duplicate). Returns the new count. */
static size_t merge_repeats(uint32_t* j, float* w, size_t n) {
  size_t c = 0;
  for (size_t k = 0; k < n; ++k) {
    size_t at = 0;
    while (at < c && !(j[at] == j[k] && isfinite(w[at]) && isfinite(w[k]))) ++at;
    if (at < c) {
      w[at] += w[k];
    } else {
      j[c] = j[k];
      w[c++] = w[k];
    }
  }
  return c;
}

static int process_weights(const skio_mesh* m, const skio_export_options* o, uint32_t limit, csr* out, skc_err* err) {
  const skc_skin* s = m->skin;
  size_t V = s->vertex_count, n = skc_skin_entries(s);
  out->offsets = malloc((V + 1) * sizeof *out->offsets);
  out->joints = malloc(n * sizeof *out->joints + 1);
  out->weights = malloc(n * sizeof *out->weights + 1);
  uint32_t* tj = malloc(n * sizeof *tj + 1);
  float* tw = malloc(n * sizeof *tw + 1);
  if (!out->offsets || !out->joints || !out->weights || !tj || !tw) {
    free(tj);
    free(tw);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory processing weights of \"%s\"", m->name);
  }
  size_t at = 0;
  out->offsets[0] = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t b = s->offsets[v], e = s->offsets[v + 1], c = 0;
    for (size_t k = b; k < e; ++k) {
      float w = s->weights[k];
      if (o->prune > 0.0f && !(w >= o->prune)) continue;
      if ((o->normalize || limit) && !(w > 0.0f && isfinite(w)))
        continue; /* NaN, inf, negative: no renormalized
                     skin keeps them */
      tj[c] = s->joints[k];
      tw[c] = w;
      ++c;
    }
    c = merge_repeats(tj, tw, c);
    if (limit) {
      c = skc_select_top(tj, tw, c, limit, out->joints + at, out->weights + at);
    } else {
      memcpy(out->joints + at, tj, c * sizeof *tj);
      memcpy(out->weights + at, tw, c * sizeof *tw);
      if (o->normalize) {
        double sum = 0.0;
        for (size_t k = 0; k < c; ++k) sum += out->weights[at + k];
        if (sum > 0.0 && isfinite(sum))
          for (size_t k = 0; k < c; ++k) out->weights[at + k] = (float)(out->weights[at + k] / sum);
      }
    }
    at += c;
    out->offsets[v + 1] = (uint32_t)at;
  }
  free(tj);
  free(tw);
  return SKC_OK;
}

int skio_export_weights(const skio_mesh* m, const skio_export_options* o, uint32_t limit, uint32_t** offsets,
                        uint32_t** joints, float** weights, skc_err* err) {
  csr c = {0};
  int rc = process_weights(m, o, limit, &c, err);
  if (rc) {
    csr_free(&c);
    return rc;
  }
  *offsets = c.offsets, *joints = c.joints, *weights = c.weights;
  return SKC_OK;
}

/* ---- aiScene construction ---------------------------------------------------------------------------- */
static void free_node(struct aiNode* n) {
  if (!n) return;
  for (unsigned i = 0; i < n->mNumChildren; ++i) free_node(n->mChildren[i]);
  free(n->mChildren);
  free(n->mMeshes);
  free(n);
}

static void free_ai_scene(struct aiScene* sc) {
  if (!sc) return;
  free_node(sc->mRootNode);
  for (unsigned m = 0; m < sc->mNumMeshes; ++m) {
    struct aiMesh* am = sc->mMeshes[m];
    if (!am) continue;
    free(am->mVertices);
    free(am->mNormals);
    free(am->mTangents);
    free(am->mBitangents);
    free(am->mTextureCoords[0]);
    free(am->mTextureCoords[1]);
    free(am->mColors[0]);
    if (am->mFaces) free(am->mFaces[0].mIndices); /* one block for all faces */
    free(am->mFaces);
    for (unsigned b = 0; b < am->mNumBones; ++b)
      if (am->mBones[b]) {
        free(am->mBones[b]->mWeights);
        free(am->mBones[b]);
      }
    free(am->mBones);
    for (unsigned k = 0; k < am->mNumAnimMeshes; ++k)
      if (am->mAnimMeshes[k]) {
        free(am->mAnimMeshes[k]->mVertices);
        free(am->mAnimMeshes[k]->mNormals);
        free(am->mAnimMeshes[k]);
      }
    free(am->mAnimMeshes);
    free(am);
  }
  free(sc->mMeshes);
  for (unsigned m = 0; m < sc->mNumMaterials; ++m) {
    if (!sc->mMaterials[m]) continue;
    for (unsigned p = 0; p < sc->mMaterials[m]->mNumProperties; ++p) {
      free(sc->mMaterials[m]->mProperties[p]->mData);
      free(sc->mMaterials[m]->mProperties[p]);
    }
    free(sc->mMaterials[m]->mProperties);
    free(sc->mMaterials[m]);
  }
  free(sc->mMaterials);
  for (unsigned a = 0; a < sc->mNumAnimations; ++a) {
    struct aiAnimation* aa = sc->mAnimations[a];
    if (!aa) continue;
    for (unsigned c = 0; c < aa->mNumChannels; ++c) {
      if (!aa->mChannels[c]) continue;
      free(aa->mChannels[c]->mPositionKeys);
      free(aa->mChannels[c]->mRotationKeys);
      free(aa->mChannels[c]->mScalingKeys);
      free(aa->mChannels[c]);
    }
    free(aa->mChannels);
    for (unsigned c = 0; aa->mMorphMeshChannels && c < aa->mNumMorphMeshChannels; ++c) {
      struct aiMeshMorphAnim* mc = aa->mMorphMeshChannels[c];
      for (unsigned k = 0; mc && mc->mKeys && k < mc->mNumKeys; ++k) {
        free(mc->mKeys[k].mValues);
        free(mc->mKeys[k].mWeights);
      }
      if (mc) free(mc->mKeys);
      free(mc);
    }
    free(aa->mMorphMeshChannels);
    free(aa);
  }
  free(sc->mAnimations);
  free(sc);
}

struct aiNode* skio_ai_new_node(const char* name, struct aiNode* parent) {
  struct aiNode* n = calloc(1, sizeof *n);
  if (!n) return NULL;
  set_name(&n->mName, name);
  n->mParent = parent;
  float id[16];
  skc_mat4_identity(id);
  skio_mat_to_ai(id, &n->mTransformation.a1);
  return n;
}

bool skio_ai_add_child(struct aiNode* p, struct aiNode* c) {
  struct aiNode** ch = realloc(p->mChildren, (p->mNumChildren + 1) * sizeof *ch);
  if (!ch) return false;
  p->mChildren = ch;
  ch[p->mNumChildren++] = c;
  c->mParent = p;
  return true;
}

/* X with IB_mesh(j) = IB_shared(j) * X for every bound joint, if one common X exists. */
static bool common_rebind(const skio_mesh* m, const skc_skeleton* sk, float x[16], bool* identity) {
  bool have = false;
  *identity = true;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    if (!m->bound[j]) continue;
    const float* mine = m->inverse_bind + (size_t)j * 16;
    const float* shared = sk->inverse_bind + (size_t)j * 16;
    if (skc_mat4_max_abs_diff(mine, shared) <= 1e-6f) {
      if (have && !*identity) return false;
      if (!have) skc_mat4_identity(x);
      have = true;
      continue;
    }
    float inv[16], xj[16];
    if (!skc_mat4_inverse(shared, inv)) return false;
    skc_mat4_mul(inv, mine, xj);
    if (!have) {
      memcpy(x, xj, sizeof xj);
      have = true;
      *identity = false;
    } else if (skc_mat4_max_abs_diff(x, xj) > 1e-4f * (1.0f + fabsf(x[12]) + fabsf(x[13]) + fabsf(x[14]))) {
      return false;
    }
  }
  if (!have) skc_mat4_identity(x);
  return true;
}

/* The first joint mesh m binds whose inverse bind does not invert (singular, or not finite), or -1: FBX and Collada
 * hold the bind pose, its inverse. */
static int32_t singular_bind(const skio_mesh* m, const skc_skeleton* sk) {
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    const float* ib = m->inverse_bind + (size_t)j * 16;
    float inv[16];
    if (m->bound[j] && (!skc_mat4_is_finite(ib) || !skc_mat4_inverse(ib, inv))) return (int32_t)j;
  }
  return -1;
}

/* Inverse bind written for a joint no mesh binds (all_bones): the joint's rest pose carried into the meshes'
 * bind frame, inverse(rest_world(u)) * X with X = rest_world(k) * IB(k) of the first joint k (skeleton order)
 * that some mesh binds (IB: the skeleton's, i.e. the first binding mesh's). X is one matrix for every bound joint
 * when the file's rest pose is its bind pose up to the mesh transform (every corpus file), so an importer that
 * builds bones from the inverse binds puts the unbound ones where the node tree does relative to the bound ones.
 * Asserted in tests/unit/test_roundtrip.c. */
static void unbound_inverse_bind(const skio_scene* s, uint32_t u, float out[16]) {
  const skc_skeleton* sk = s->skeleton;
  float x[16], inv[16];
  skc_mat4_identity(x);
  bool found = false;
  for (uint32_t j = 0; j < sk->joint_count && !found; ++j)
    for (uint32_t m = 0; m < s->mesh_count && !found; ++m)
      if (s->meshes[m].skin && s->meshes[m].bound && s->meshes[m].bound[j]) {
        skc_mat4_mul(sk->rest_world + (size_t)j * 16, sk->inverse_bind + (size_t)j * 16, x);
        found = true;
      }
  if (!skc_mat4_inverse(sk->rest_world + (size_t)u * 16, inv)) {
    memcpy(out, sk->inverse_bind + (size_t)u * 16, 16 * sizeof(float));
    return;
  }
  skc_mat4_mul(inv, x, out);
}

/* FBX and Collada (since session 30: Blender placed an FBX-sourced leg sideways in our Collada without it): X =
 * rest_world(j) * IB(j), when it is one matrix for every joint some mesh binds and not the identity
 * (the file's rest pose is its bind pose up to a mesh transform: CesiumMan's Z_UP turn, huesitos' x100), is baked
 * into the written meshes (vertices *= X, normals by its normal matrix, inverse binds *= X^-1) so that the written
 * rest pose IS the bind pose. Skinned positions are unchanged (world(j) * IB(j) X^-1 * X v). Why: Blender's FBX
 * importer builds bones from the bind pose (cluster TransformLink) but plays the node curves relative to the node
 * rest pose, so with X != I the posed mesh lands X away from the rest mesh (tests/addon/blender_readback.py "posed
 * vertices": CesiumMan 0.76 of the diagonal, huesitos 65 before); and Assimp's FBX reader rebuilds inverse binds
 * from the node tree, which is now right. Returns false (nothing to bake) otherwise. Mirrored in
 * tests/unit/test_roundtrip.c.
 * With no single X but one per skinned mesh that its joints share (meshes bound in spaces of their own: an FBX in
 * centimetres with its body in metres and a prop the Collada view binds in world space), each mesh and joint its own
 * (plan_per_mesh). With none (a joint's rest is not its bind: a scene saved in a pose), the meshes' bind world where
 * every skinned mesh has one and they agree (skio_scene_bind_to_world: an FBX mesh's node, a posed glTF skin's armature
 * node), else the top bound joint's (the skin's root binds at its rest, the others at their binds relative to it, the
 * armature Blender's glTF and Collada importers build). Written so, the bind pose is the file's in world space; FBX's
 * clusters then hold it (fbx_assoc.c: TransformLink = (IB X^-1)^-1 = X IB^-1). Before session 53 only Collada took
 * these: a glTF saved in a pose came out of the FBX writer 0.23-1.7 of the model off at rest in Blender, and an FBX
 * written through Assimp (its edit refused) 0.5-1.5 off at rest and 23-110 off posed. */
static bool assimp_bake(const skio_scene* s, const char* id, float x[16]) {
  if (strcmp(id, "fbx") != 0 && strcmp(id, "collada") != 0) return false;
  if (skio_scene_rest_to_bind(s, x)) return true;
  return skio_scene_bind_to_world(s, x) || skio_scene_top_rest_to_bind(s, x);
}

/* assimp_bake per character: joint j's X (has[j]: any) and the inverse bind written for it when no mesh binds it
 * (unbound[j]: unbound_inverse_bind over its character's meshes), mesh m's X (mesh_has[m]). A character is a skeleton
 * root (below an FBX file's implicit "RootNode") with the skinned meshes that bind joints below it. With one (or a mesh
 * binding joints of two), every joint and mesh takes the scene's X as before; with several, each its own: two
 * characters posed away from their binds in different ways (three.js's scene of an Arm and a Tail, two_rigs_three.glb)
 * came into Blender 0.30 of the scene off at rest, one character bound by the other's X. */
typedef struct bake_plan {
  float* x;       /* 16 per joint */
  uint8_t* has;   /* per joint */
  float* unbound; /* 16 per joint */
  float* mesh_x;  /* 16 per mesh */
  uint8_t* mesh_has;
} bake_plan;

static void bake_plan_free(bake_plan* p) {
  free(p->x);
  free(p->has);
  free(p->unbound);
  free(p->mesh_x);
  free(p->mesh_has);
  memset(p, 0, sizeof *p);
}

static bool implicit_fbx_root(const skio_scene* s);

/* The character root of joint j: its top ancestor, or the one below an FBX file's implicit root (joint 0 "RootNode",
 * which holds every character of the file: top = 0; else top = -1). */
static uint32_t root_of(const skc_skeleton* sk, uint32_t j, int32_t top) {
  for (uint32_t steps = 0; sk->parents[j] >= 0 && sk->parents[j] != top && steps < sk->joint_count; ++steps)
    j = (uint32_t)sk->parents[j];
  return j;
}

/* The character root of the joints skinned mesh m binds, UINT32_MAX for none, UINT32_MAX - 1 for several. */
static uint32_t mesh_root(const skc_skeleton* sk, const skio_mesh* m, int32_t top) {
  uint32_t r = UINT32_MAX;
  for (uint32_t j = 0; m->skin && m->bound && j < sk->joint_count; ++j) {
    if (!m->bound[j]) continue;
    const uint32_t rj = root_of(sk, j, top);
    if (r != UINT32_MAX && rj != r) return UINT32_MAX - 1;
    r = rj;
  }
  return r;
}

/* X(j) = rest_world(j) * IB(j) (the skeleton's inverse bind) into x; false when it is not finite or not invertible. */
static bool joint_x(const skc_skeleton* sk, uint32_t j, float x[16]) {
  float inv[16];
  skc_mat4_mul(sk->rest_world + (size_t)j * 16, sk->inverse_bind + (size_t)j * 16, x);
  return skc_mat4_is_finite(x) && skc_mat4_inverse(x, inv) && skc_mat4_is_finite(inv);
}

/* assimp_bake per skinned mesh, for a character (the meshes of view, a part of s; joints of root r as in
 * plan_character) whose X = rest_world(j) * IB(j) is not one matrix over all its bound joints but is one over the
 * joints each skinned mesh binds or weights (its X_m; a joint no mesh of view binds counts with X of the first bound
 * joint, the X unbound_inverse_bind puts it in): every mesh is baked by its own X_m and every joint's inverse bind
 * by its own X(j), so that the written rest pose IS the bind pose for every joint, as with one X. Such a scene: an FBX
 * in centimetres whose meshes are in metres (mesh X = the unit scale) and an unskinned prop under the armature node,
 * which the Collada writer's framed view binds to that node with its world-space (X = the frame) inverse bind
 * (maya_style.fbx). With the one-X fallbacks instead (skio_scene_top_rest_to_bind: the prop's X) every mesh took the
 * prop's X, the body's inverse binds kept the x100 and Blender's Collada importer, whose bones carry no scale, drew
 * the body 100 times too small at the origin. false (plan untouched) when the scene has one X, or some mesh has none:
 * assimp_bake's rules then. */
static bool plan_per_mesh(const skio_scene* s, const skio_scene* view, const char* id, uint32_t r, int32_t top,
                          const uint32_t* roots, bake_plan* p) {
  const skc_skeleton* sk = s->skeleton;
  if (strcmp(id, "fbx") != 0 && strcmp(id, "collada") != 0) return false;
  const uint32_t jc = sk->joint_count;
  float first[16];
  bool have = false, one = true;
  for (uint32_t j = 0; j < jc; ++j) { /* one X over the bound joints (the identity too): assimp_bake's case */
    if (!skio_joint_bound_anywhere(view, j)) continue;
    float xj[16];
    if (!joint_x(sk, j, have ? xj : first)) return false;
    if (have && !skio_mat4_same(first, xj)) one = false;
    have = true;
  }
  if (!have || one) return false;
  for (uint32_t m = 0; m < view->mesh_count; ++m) { /* one X per skinned mesh over the joints it binds or weights */
    const skio_mesh* me = &view->meshes[m];
    if (!me->skin || !me->bound) continue;
    float xm[16], xj[16];
    bool got = false;
    for (uint32_t j = 0; j < jc; ++j)
      if (me->bound[j]) {
        if (!joint_x(sk, j, got ? xj : xm)) return false;
        if (got && !skio_mat4_same(xm, xj)) return false;
        got = true;
      }
    for (size_t e = 0, n = skc_skin_entries(me->skin); e < n; ++e) {
      const uint32_t j = me->skin->joints[e];
      if (j >= jc || !(me->skin->weights[e] > 0.0f) || skio_joint_bound_anywhere(view, j)) continue;
      if (got && !skio_mat4_same(xm, first)) return false; /* weights a joint written in the first joint's X */
      if (!got) memcpy(xm, first, sizeof xm);
      got = true;
    }
  }
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    if (r != UINT32_MAX && roots[m] != r) continue;
    const skio_mesh* me = &s->meshes[m];
    float* xm = p->mesh_x + (size_t)m * 16;
    memcpy(xm, first, sizeof first); /* no joint bound: as the joints it weights */
    for (uint32_t j = 0; me->skin && me->bound && j < jc; ++j)
      if (me->bound[j]) {
        joint_x(sk, j, xm);
        break;
      }
    p->mesh_has[m] = 1;
  }
  for (uint32_t j = 0; j < jc; ++j) {
    if (r != UINT32_MAX && root_of(sk, j, top) != r) continue;
    if (skio_joint_bound_anywhere(view, j))
      joint_x(sk, j, p->x + (size_t)j * 16);
    else
      memcpy(p->x + (size_t)j * 16, first, sizeof first);
    p->has[j] = 1;
    unbound_inverse_bind(view, j, p->unbound + (size_t)j * 16); /* rest_world(j)^-1 first */
  }
  return true;
}

/* Fills the plan for the character of root r (r == UINT32_MAX: the whole scene): its meshes' X through a view of s
 * holding only them, its joints' X and unbound inverse binds. */
static bool plan_character(const skio_scene* s, const char* id, uint32_t r, int32_t top, const uint32_t* roots,
                           bake_plan* p) {
  const skc_skeleton* sk = s->skeleton;
  skio_scene view = *s;
  view.meshes = malloc(((size_t)s->mesh_count + 1) * sizeof *view.meshes);
  if (!view.meshes) return false;
  view.mesh_count = 0;
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (r == UINT32_MAX || roots[m] == r) view.meshes[view.mesh_count++] = s->meshes[m];
  float x[16];
  if (plan_per_mesh(s, &view, id, r, top, roots, p)) {
    free(view.meshes);
    return true;
  }
  const bool has = assimp_bake(&view, id, x);
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    if (r != UINT32_MAX && roots[m] != r) continue;
    memcpy(p->mesh_x + (size_t)m * 16, x, sizeof x);
    p->mesh_has[m] = has;
  }
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    if (r != UINT32_MAX && root_of(sk, j, top) != r) continue;
    memcpy(p->x + (size_t)j * 16, x, sizeof x);
    p->has[j] = has;
    unbound_inverse_bind(&view, j, p->unbound + (size_t)j * 16);
  }
  free(view.meshes);
  return true;
}

static bool bake_plan_make(const skio_scene* s, const char* id, bake_plan* p) {
  const skc_skeleton* sk = s->skeleton;
  memset(p, 0, sizeof *p);
  if (!sk) return true;
  const size_t jc = sk->joint_count, mc = s->mesh_count;
  p->x = malloc((jc + 1) * 16 * sizeof(float));
  p->has = calloc(jc + 1, 1);
  p->unbound = malloc((jc + 1) * 16 * sizeof(float));
  p->mesh_x = malloc((mc + 1) * 16 * sizeof(float));
  p->mesh_has = calloc(mc + 1, 1);
  uint32_t* roots = calloc(mc + 1, sizeof *roots);
  bool ok = p->x && p->has && p->unbound && p->mesh_x && p->mesh_has && roots;
  uint32_t first = UINT32_MAX;
  bool several = false, spans = false;
  const int32_t top = implicit_fbx_root(s) ? 0 : -1;
  for (uint32_t m = 0; ok && m < mc; ++m) {
    roots[m] = mesh_root(sk, &s->meshes[m], top);
    spans |= roots[m] == UINT32_MAX - 1;
    if (roots[m] >= UINT32_MAX - 1) continue;
    if (first == UINT32_MAX) first = roots[m];
    several |= roots[m] != first;
  }
  /* the scene's X for every joint and mesh first (a root no skinned mesh binds below keeps it: unbound_inverse_bind's
   * rest^-1 X X^-1), then each character's own */
  ok = ok && plan_character(s, id, UINT32_MAX, top, roots, p);
  for (uint32_t r = 0; ok && several && !spans && r < jc; ++r) {
    bool used = false;
    for (uint32_t m = 0; m < mc && !used; ++m) used = roots[m] == r;
    if (used) ok = plan_character(s, id, r, top, roots, p);
  }
  free(roots);
  if (!ok) bake_plan_free(p);
  return ok;
}

/* Whether every skeleton joint is written as a bone of every skinned mesh (unbound ones with no weights and the
 * inverse bind of unbound_inverse_bind), so that the whole skeleton is one joint tree and no plain node with a
 * transform sits above the joints. Blender 3.4's importers (tests/addon/blender_readback.py):
 *  - Collada: the plain parent node of the root joint becomes the armature object, and each bone's matrix is made
 *    local to that object with the object's world matrix before that matrix is evaluated (identity), while the
 *    mesh is placed by its bind shape: any transform above the joints (CesiumMan's Z_UP and Armature nodes, the
 *    drone's MD5_Root, Testwuson's frame nodes) ends up between bones and mesh (0.3 to 1.2 bounding-box
 *    diagonals). With every node a joint, the armature object is created at the origin and bones sit on the
 *    inverse binds. Always done for Collada.
 *  - FBX: same for the Null ancestors of the LimbNodes (CesiumMan, drone), but Blender's bones cannot carry scale:
 *    a scaled node written as a LimbNode (huesitos' Armature, x100) throws its children 55 diagonals off, while
 *    as a Null it is the armature object's transform and imports right. So for FBX only when every joint's rest
 *    world matrix is rigid.
 * Assimp's readers ignore or keep the weightless bones; libskinkit's reader marks them bound with the written
 * inverse bind (test_roundtrip). */
static bool write_all_bones(const skio_scene* s, const char* id) {
  if (!s->skeleton) return false;
  if (strcmp(id, "collada") == 0) return true;
  if (strcmp(id, "fbx") != 0) return false;
  for (uint32_t j = 0; j < s->skeleton->joint_count; ++j)
    if (!skc_mat4_is_rigid(s->skeleton->rest_world + (size_t)j * 16, 1e-4f)) return false;
  return true;
}

/* Texture coordinate set `set` of am from 2 floats per vertex; false when out of memory. */
static bool put_uv(struct aiMesh* am, unsigned set, const float* uv, size_t V) {
  if (!(am->mTextureCoords[set] = calloc(V + 1, sizeof(struct aiVector3D)))) return false;
  am->mNumUVComponents[set] = 2;
  for (size_t v = 0; v < V; ++v) {
    am->mTextureCoords[set][v].x = uv[v * 2];
    am->mTextureCoords[set][v].y = uv[v * 2 + 1];
  }
  return true;
}

/* Colour set 0 from linear RGBA, written as the sRGB values FBX and Collada readers expect. */
static bool put_colors(struct aiMesh* am, const float* rgba, size_t V) {
  if (!(am->mColors[0] = calloc(V + 1, sizeof(struct aiColor4D)))) return false;
  for (size_t v = 0; v < V; ++v) {
    am->mColors[0][v].r = skio_linear_to_srgb(rgba[v * 4]);
    am->mColors[0][v].g = skio_linear_to_srgb(rgba[v * 4 + 1]);
    am->mColors[0][v].b = skio_linear_to_srgb(rgba[v * 4 + 2]);
    am->mColors[0][v].a = rgba[v * 4 + 3];
  }
  return true;
}

/* The plain root (plain_roots) at or above joint j, or -1: a mesh written with every bone lists its own character's
 * only (two armatures' bones in one mesh gave it an Armature modifier of each in Blender). */
static int32_t plain_above(const skc_skeleton* sk, const uint8_t* plain, uint32_t j) {
  for (uint32_t steps = 0; plain && j < sk->joint_count && steps <= sk->joint_count; ++steps) {
    if (plain[j]) return (int32_t)j;
    const int32_t p = sk->parents[j];
    if (p == SKC_NO_PARENT || p < 0) break;
    j = (uint32_t)p;
  }
  return -1;
}

/* V positions (3 floats each) as a new aiVector3D array, transformed by x (NULL: as they are). */
static struct aiVector3D* put_points(const float* src, size_t V, const float* x) {
  struct aiVector3D* out = calloc(V + 1, sizeof *out);
  for (size_t v = 0; out && v < V; ++v) {
    float p[3];
    if (x)
      skc_mat4_transform_point(x, src + v * 3, p);
    else
      memcpy(p, src + v * 3, sizeof p);
    out[v] = (struct aiVector3D){p[0], p[1], p[2]};
  }
  return out;
}

/* V normals turned by the normal matrix nx (NULL: as they are) and made unit length again (a scaled X). */
static struct aiVector3D* put_normals(const float* src, size_t V, const float* nx) {
  struct aiVector3D* out = calloc(V + 1, sizeof *out);
  for (size_t v = 0; out && v < V; ++v) {
    float n[3];
    if (!nx)
      memcpy(n, src + v * 3, sizeof n);
    else {
      skc_mat4_transform_dir(nx, src + v * 3, n);
      float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      if (len > 0.0f && isfinite(len))
        for (int k = 0; k < 3; ++k) n[k] /= len;
    }
    out[v] = (struct aiVector3D){n[0], n[1], n[2]};
  }
  return out;
}

/* Binary FBX: the mesh's blend shapes as anim meshes, transformed as its vertices are, for fbx_shapes_write.c to
 * write into Assimp's output (write_fbx hides them from Assimp's writer); false when out of memory. */
static bool put_morphs(const skio_mesh* m, struct aiMesh* am, const float* x, const float* nx) {
  const size_t V = m->vertex_count;
  if (!(am->mAnimMeshes = calloc(m->morph_count, sizeof *am->mAnimMeshes))) return false;
  for (uint32_t t = 0; t < m->morph_count; ++t) {
    struct aiAnimMesh* a = calloc(1, sizeof *a);
    if (!a) return false;
    am->mAnimMeshes[am->mNumAnimMeshes++] = a;
    set_name(&a->mName, m->morph_names[t]);
    a->mNumVertices = (unsigned)V;
    a->mWeight = m->morph_weights ? m->morph_weights[t] : 0.0f;
    if (!(a->mVertices = put_points(m->morph_positions + (size_t)t * V * 3, V, x))) return false;
    if (m->normals && m->morph_normals && !(a->mNormals = put_normals(m->morph_normals + (size_t)t * V * 3, V, nx)))
      return false;
  }
  return true;
}

/* FBX: the joints below a joint mesh m binds or weights (attachment points, leaf bones, an unweighted twist bone)
 * marked in below (jc bytes), so that they are written as its weightless bones - LimbNodes - and not as Null Models,
 * which readers take for empties (io/scene_import.c mark_sockets). */
static void below_bones(const skc_skeleton* sk, const skio_mesh* m, const uint32_t* per_joint, uint8_t* below) {
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    const int32_t p = sk->parents[j];
    below[j] = !skc_skeleton_is_root(sk, j) && (m->bound[p] || per_joint[p] || below[p]);
  }
}

/* The joint whose node is mesh m's own (m without skin hung from a joint that carries it, mesh_joints_plain, named as
 * the node that held m in the source: a keyed prop or crate), or -1. Its node carries the mesh, its vertices in that
 * node's space, as the source had it (Blender's importers read an object with its own keys; a child node of its
 * own under it was an extra empty, and in Collada a node under a bone without a geometry of its own was dropped). */
static int32_t mesh_on_joint(const skio_scene* s, const skio_mesh* m, const uint8_t* plain) {
  const int32_t pj = m->parent_joint;
  const skc_skeleton* sk = s->skeleton;
  if (!plain || m->skin || !sk || pj < 0 || (uint32_t)pj >= sk->joint_count || plain[pj] != 2) return -1;
  const char* own = m->node_name ? m->node_name : m->name;
  return own && sk->names[pj] && !strcmp(own, sk->names[pj]) ? pj : -1;
}

/* Whether some mesh of s has a skin. */
static bool any_skinned(const skio_scene* s) {
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].skin) return true;
  return false;
}

/* The joint in whose space mesh m's vertices are written, its node under that joint's node (mesh_nodes) at the
 * identity: its own node's joint (mesh_on_joint), else the joint it hangs from where mesh_nodes hangs it there - a
 * joint that carries it (mesh_joints_plain), or in FBX - in Collada when no mesh has a skin, so that every node is a
 * plain NODE - any other joint (a keyed node above the bones that no skin lists; an animated empty), and a plain
 * root (an armature object, which may stand under a transformed node). -1: none, or a rest that does not invert. (The
 * vertices move, not the node: the inverse of a rest with a non-uniform scale under a turn is a shear, which no FBX
 * node transform holds.) x, nx: the inverse rest and its normal matrix. */
static int32_t mesh_space_joint(const skio_scene* s, const skio_mesh* m, const uint8_t* plain, bool fbx, float x[16],
                                float nx[16]) {
  const skc_skeleton* sk = s->skeleton;
  int32_t j = mesh_on_joint(s, m, plain);
  const int32_t pj = m->parent_joint;
  if (j < 0 && !m->skin && sk && pj >= 0 && (uint32_t)pj < sk->joint_count) {
    const uint8_t p = plain ? plain[pj] : 0;
    /* Collada: no JOINT without a skin; a plain root (an armature object) keeps its meshes in its space too, as it
     * may stand anywhere (a glTF's armature under a transformed empty: at the identity with world-space vertices,
     * its transform counted twice) */
    j = p == 2 || p == 1 || (p == 0 && (fbx || !any_skinned(s))) ? pj : -1;
  }
  if (j < 0 || !skc_mat4_inverse(sk->rest_world + (size_t)j * 16, x) || !skc_mat4_normal_matrix(x, nx)) return -1;
  return j;
}

/* Mesh m without skin in its node's own space (session 74): under the node of joint j (-1: a node at the identity)
 * its node's matrix rest_world(j)^-1 N and its vertices N^-1 v, N its node transform (skio_mesh_node_space), so the
 * object keeps its origin where it was read with one (a prop's pivot; before, its node was at the identity and its
 * vertices in the parent's space). A mirror N too (*mirror set: the triangles are then written in the reverse order,
 * put_geometry; session 75). Only when that matrix is a TRS (an FBX Model holds no shear, and Blender's Collada
 * importer decomposes a node's matrix into loc / rot / scale, dropping one) and the mesh is not on a joint's own node
 * (mesh_on_joint). false: the vertices go in j's space at the identity, as before. */
static bool own_node_space(const skio_scene* s, const skio_mesh* m, const uint8_t* plain, int32_t j, float local[16],
                           float x[16], float nx[16], bool* mirror) {
  const skc_skeleton* sk = s->skeleton;
  float n[16], pinv[16];
  skc_trs trs;
  if (m->skin || mesh_on_joint(s, m, plain) >= 0 || !skio_mesh_node_space(m, n, mirror)) return false;
  const int32_t pj = m->parent_joint; /* a plain root whose rest does not invert holds it (mesh_nodes' at_root) */
  if (j < 0 && plain && sk && pj >= 0 && (uint32_t)pj < sk->joint_count && plain[pj] == 1) return false;
  skc_mat4_identity(pinv);
  if (j >= 0 && (!sk || (uint32_t)j >= sk->joint_count || !skc_mat4_inverse(sk->rest_world + (size_t)j * 16, pinv)))
    return false;
  skc_mat4_mul(pinv, n, local);
  return skc_mat4_is_finite(local) && skc_mat4_to_trs(local, &trs, 1e-5f) && skc_mat4_inverse(n, x) &&
         skc_mat4_normal_matrix(x, nx);
}

/* x premultiplied by the inverse of skinned mesh m's Model (skio_mesh.skin_node: the FBX view's), so that its points
 * are written in that Model's space; true with x unchanged when it has none, false when it does not invert. */
static bool skin_node_space(const skio_mesh* m, float x[16]) {
  float inv[16], lx[16];
  if (!m->skin_node_set) return true;
  if (!skc_mat4_inverse(m->skin_node, inv)) return false;
  skc_mat4_mul(inv, x, lx);
  memcpy(x, lx, sizeof lx);
  return true;
}

/* The transform mesh m's points are written with (*ident stays true when none: x and nx unset): its joint's space
 * (mesh_space_joint) or its node's own (own_node_space; *reverse: under a mirrored node), the rebind of its skin
 * (common_rebind) and the bake of its character (bake, NULL: none). */
static int mesh_rebind(const skio_scene* s, const skio_mesh* m, const uint8_t* plain, bool fbx, const float* bake,
                       float x[16], float nx[16], bool* ident, bool* reverse, skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  const int32_t j = mesh_space_joint(s, m, plain, fbx, x, nx);
  if (j >= 0) *ident = false; /* in its joint's space */
  float local[16];
  *reverse = false;
  if (own_node_space(s, m, plain, j, local, x, nx, reverse))
    *ident = false;
  else
    *reverse = false;
  if (m->skin && sk) {
    const int32_t bad = singular_bind(m, sk);
    if (bad >= 0)
      return skc_fail(err, SKC_UNSUPPORTED,
                      "mesh \"%s\": the inverse bind matrix of joint \"%s\" does not invert (singular or not finite), "
                      "and %s stores the bind pose, its inverse (`skinkit validate` counts such binds)",
                      m->name, sk->names && sk->names[bad] ? sk->names[bad] : "?", fbx ? "FBX" : "Collada");
    if (!common_rebind(m, sk, x, ident))
      return skc_fail(err, SKC_UNSUPPORTED,
                      "mesh \"%s\" binds joints with inverse bind matrices that differ from the first mesh's in a "
                      "way no single mesh transform explains; Assimp writes one skin for all meshes",
                      m->name);
    if (bake) { /* rest pose = bind pose: see assimp_bake */
      float bx[16];
      skc_mat4_mul(bake, x, bx);
      memcpy(x, bx, sizeof bx);
      *ident = false;
    }
    if (!skin_node_space(m, x)) return skc_fail(err, SKC_UNSUPPORTED, "mesh \"%s\": singular Model", m->name);
    *ident &= !m->skin_node_set;
    if (!*ident && !skc_mat4_normal_matrix(x, nx))
      return skc_fail(err, SKC_UNSUPPORTED, "mesh \"%s\": singular rebind matrix", m->name);
  }
  return SKC_OK;
}

/* Mesh m's vertex streams (points, normals, morph targets when morphs, UV sets, colours) and triangles into am, the
 * points and normals through x and nx (NULL: as they are), each triangle in the reverse order with reverse (a mesh
 * under a mirrored node: readers flip the winding of a node whose matrix has a negative determinant). */
static int put_geometry(const skio_mesh* m, struct aiMesh* am, bool morphs, const float* x, const float* nx,
                        bool reverse, skc_err* err) {
  const size_t V = m->vertex_count;
  if (!(am->mVertices = put_points(m->positions, V, x))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (m->normals && !(am->mNormals = put_normals(m->normals, V, nx)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (morphs && m->morph_count && !put_morphs(m, am, x, nx)) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if ((m->uv0 && !put_uv(am, 0, m->uv0, V)) || (m->uv1 && !put_uv(am, m->uv0 ? 1 : 0, m->uv1, V)) ||
      (m->colors && !put_colors(am, m->colors, V)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  size_t F = m->index_count / 3;
  am->mNumFaces = (unsigned)F;
  am->mFaces = calloc(F + 1, sizeof *am->mFaces);
  unsigned* idx = malloc((F * 3 + 1) * sizeof *idx);
  if (!am->mFaces || !idx) {
    free(idx);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  am->mFaces[0].mIndices = idx; /* freed through face 0 even when F == 0 */
  for (size_t f = 0; f < F; ++f) {
    am->mFaces[f].mNumIndices = 3;
    am->mFaces[f].mIndices = idx + f * 3;
    for (int k = 0; k < 3; ++k) idx[f * 3 + k] = m->indices[f * 3 + (reverse && k ? 3 - k : k)];
  }
  return SKC_OK;
}

/* FBX and Collada: which mesh of s has written each weightless bone first (by: per joint, -1 none), so that the others
 * like it need not (number_bones); mi is the mesh being built. */
typedef struct bone_carry {
  const skio_scene* s;
  const bake_plan* plan;
  int32_t* by;
  uint8_t* posed; /* per mesh: 0 not known yet, 1 its rest pose is its bind pose up to one transform, 2 not */
  uint32_t mi;
} bone_carry;

/* Whether mesh m's joints rest where they bind (up to one transform): a reader that finds no bone for a joint in m
 * takes its bind from the rest, which is right only then (skio_mesh_rest_is_bind, once per mesh). */
static bool rests_at_bind(const bone_carry* c, uint32_t m) {
  if (!c->posed[m]) c->posed[m] = skio_mesh_rest_is_bind(c->s, &c->s->meshes[m]) ? 1 : 2;
  return c->posed[m] == 1;
}

static bool same_mat(const float* a, const float* b) { return skc_mat4_max_abs_diff(a, b) <= 1e-6f; }

/* Whether meshes a and b of s bind joint j alike in the file written: same inverse bind, bake and parent joint,
 * neither with a bind world of its own and both resting at their bind (a skin saved in a pose: each mesh's bind then
 * depends on where the writer places that mesh, and a reader takes a missing bone's bind from the rest). Then a reader
 * given j's cluster or controller entry in a alone puts b's bind where b had it; otherwise b keeps its own
 * (walker_rig.fbx -> .dae -> .fbx: the Cube's hips 0.17 off without it). */
static bool bound_alike(const bone_carry* c, uint32_t a, uint32_t b, uint32_t j) {
  const skio_mesh *ma = &c->s->meshes[a], *mb = &c->s->meshes[b];
  const bool xa = c->plan->mesh_has && c->plan->mesh_has[a], xb = c->plan->mesh_has && c->plan->mesh_has[b];
  if (!ma->inverse_bind || !mb->inverse_bind || ma->parent_joint != mb->parent_joint || xa != xb ||
      ma->bind_world_set || mb->bind_world_set || !rests_at_bind(c, a) || !rests_at_bind(c, b))
    return false;
  if (xa && !same_mat(c->plan->mesh_x + (size_t)a * 16, c->plan->mesh_x + (size_t)b * 16)) return false;
  return same_mat(ma->inverse_bind + (size_t)j * 16, mb->inverse_bind + (size_t)j * 16);
}

/* Which joints become bones of mesh m (bone_of[j]: its index, -1 none): the joints it weights (per_joint: its weights
 * per joint), and the ones it binds and, under the same plain root, the ones all_bones or below_bones lists - those
 * only while no earlier mesh that binds them alike has a bone for them when carry is given. Returns the count. The
 * weightless bones are there so that the writers see each joint as a bone (an FBX LimbNode with its bind, a Collada
 * JOINT in a controller); the offset matrices are the same in every mesh (bone_offset). Repeating them in every mesh
 * of a modular character or a crowd gave each mesh every joint (1,000 meshes on a 400-joint skeleton: 400,000 FBX
 * clusters, 370 MB; Assimp's Collada writer looks joints up over every mesh's bones per node). */
static unsigned number_bones(const skc_skeleton* sk, const skio_mesh* m, bool all_bones, bool fbx, const uint8_t* plain,
                             const uint32_t* per_joint, uint8_t* below, bone_carry* carry, int32_t* bone_of) {
  const uint32_t jc = sk->joint_count;
  unsigned nb = 0;
  int32_t own = -2; /* the plain root above the joints the mesh binds or weights (-1: none) */
  for (uint32_t j = 0; j < jc && own == -2; ++j)
    if (m->bound[j] || per_joint[j]) own = plain_above(sk, plain, j);
  if (fbx && !all_bones) below_bones(sk, m, per_joint, below);
  for (uint32_t j = 0; j < jc; ++j) {
    const bool listed = (all_bones || below[j]) && !(plain && plain[j]) && plain_above(sk, plain, j) == own;
    const bool carried = carry && carry->by[j] >= 0 && bound_alike(carry, (uint32_t)carry->by[j], carry->mi, j);
    bone_of[j] = (per_joint[j] || ((listed || m->bound[j]) && !carried)) ? (int32_t)nb++ : -1;
    if (carry && bone_of[j] >= 0 && carry->by[j] < 0) carry->by[j] = (int32_t)carry->mi;
  }
  return nb;
}

/* Joint j's bone offset matrix for mesh m into out (Assimp's row-major aiMatrix4x4). */
static void bone_offset(const skio_scene* s, const skio_mesh* m, const bake_plan* plan, uint32_t j, float* out) {
  const skc_skeleton* sk = s->skeleton;
  /* shared inverse bind (the exporter keeps one per joint); the mesh was baked by X above */
  float ib[16], inv_bake[16], baked[16];
  if (m->bound[j] || skio_joint_bound_anywhere(s, j))
    memcpy(ib, sk->inverse_bind + (size_t)j * 16, sizeof ib);
  else /* (also a joint that got weight but no mesh binds in the file: its rest pose in the meshes' bind frame) */
    memcpy(ib, plan->unbound + (size_t)j * 16, sizeof ib);
  const float* jbake = plan->has[j] ? plan->x + (size_t)j * 16 : NULL; /* its character's X */
  if (jbake && skc_mat4_inverse(jbake, inv_bake)) {
    skc_mat4_mul(ib, inv_bake, baked);
    memcpy(ib, baked, sizeof ib);
  }
  if (m->skin_node_set) { /* the mesh's space is its Model's (skin_node_space) */
    skc_mat4_mul(ib, m->skin_node, baked);
    memcpy(ib, baked, sizeof ib);
  }
  skio_mat_to_ai(ib, out);
}

/* am's nb bones (joint j as bone bone_of[j], room for per_joint[j] weights), named and with their offset matrices;
 * on a failure am->mNumBones counts the bones made. */
static int make_bones(const skio_scene* s, const skio_mesh* m, struct aiMesh* am, const bake_plan* plan,
                      const uint32_t* per_joint, const int32_t* bone_of, unsigned nb, skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  am->mBones = calloc(nb + 1, sizeof *am->mBones);
  if (!am->mBones) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  am->mNumBones = nb;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    if (bone_of[j] < 0) continue;
    struct aiBone* b = calloc(1, sizeof *b);
    if (!b || !(b->mWeights = calloc(per_joint[j] + 1, sizeof *b->mWeights))) {
      free(b);
      am->mNumBones = (unsigned)bone_of[j];
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    }
    am->mBones[bone_of[j]] = b;
    set_name(&b->mName, sk->names[j]);
    bone_offset(s, m, plan, j, &b->mOffsetMatrix.a1);
  }
  return SKC_OK;
}

/* Mesh m's influences (process_weights) as am's bones and their weights. */
static int put_bones(const skio_scene* s, const skio_mesh* m, struct aiMesh* am, const skio_export_options* o,
                     uint32_t limit, bool all_bones, bool fbx, const uint8_t* plain, const bake_plan* plan,
                     bone_carry* carry, skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  const size_t V = m->vertex_count;
  csr c = {0};
  int rc = process_weights(m, o, limit, &c, err);
  if (rc) {
    csr_free(&c);
    return rc;
  }
  uint32_t jc = sk->joint_count;
  uint32_t* per_joint = calloc(jc, sizeof *per_joint);
  int32_t* bone_of = malloc(jc * sizeof *bone_of);
  uint8_t* below = calloc(jc, 1);
  if (!per_joint || !bone_of || !below) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  for (size_t e = 0; e < c.offsets[V]; ++e)
    if (c.joints[e] < jc) per_joint[c.joints[e]]++;
  const unsigned nb = number_bones(sk, m, all_bones, fbx, plain, per_joint, below, carry, bone_of);
  if ((rc = make_bones(s, m, am, plan, per_joint, bone_of, nb, err))) goto done;
  for (size_t v = 0; v < V; ++v)
    for (uint32_t e = c.offsets[v]; e < c.offsets[v + 1]; ++e) {
      uint32_t j = c.joints[e];
      if (j >= jc) continue;
      struct aiBone* b = am->mBones[bone_of[j]];
      b->mWeights[b->mNumWeights].mVertexId = (unsigned)v;
      b->mWeights[b->mNumWeights].mWeight = c.weights[e];
      b->mNumWeights++;
    }
done:
  free(per_joint);
  free(bone_of);
  free(below);
  csr_free(&c);
  return rc;
}

static int build_mesh(const skio_scene* s, uint32_t mi, const skio_export_options* o, uint32_t limit, bool all_bones,
                      bool fbx, bool morphs, const uint8_t* plain, const bake_plan* plan, bone_carry* carry,
                      struct aiMesh** out, skc_err* err) {
  const skio_mesh* m = &s->meshes[mi];
  const float* bake = plan->mesh_has && plan->mesh_has[mi] ? plan->mesh_x + (size_t)mi * 16 : NULL;
  const skc_skeleton* sk = s->skeleton;
  struct aiMesh* am = calloc(1, sizeof *am);
  if (!am) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  *out = am;
  set_name(&am->mName, m->name);
  am->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
  size_t V = m->vertex_count;
  am->mNumVertices = (unsigned)V;
  float x[16], nx[16];
  bool ident = true, reverse = false;
  int rc = mesh_rebind(s, m, plain, fbx, bake, x, nx, &ident, &reverse, err);
  if (!rc) rc = put_geometry(m, am, morphs, ident ? NULL : x, ident ? NULL : nx, reverse, err);
  if (rc || !m->skin || !sk) return rc;
  return put_bones(s, m, am, o, limit, all_bones, fbx, plain, plan, carry, err);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Sorts v[0, n), drops non-finite values and repeats; returns the new count. */
size_t skio_sorted_unique_times(double* v, size_t n) {
  size_t u = 0;
  for (size_t i = 0; i < n; ++i)
    if (isfinite(v[i])) v[u++] = v[i];
  qsort(v, u, sizeof *v, cmp_double);
  size_t m = u ? 1 : 0;
  for (size_t i = 1; i < u; ++i)
    if (v[i] != v[m - 1]) v[m++] = v[i];
  return m;
}

/* Every channel is written with T, R and S keys at the same times (the union of its tracks' times, sampled
 * with the same interpolation as skio_anim_sample, so linear playback is unchanged): Assimp's Collada
 * exporter silently skips the <source>s of a channel whose three key counts differ but still writes its
 * <sampler>, leaving "Unable to resolve library reference" for every reader; the glTF exporter writes an
 * empty sampler for a missing track. */
/* Key times of every track of channel ch into times (room for all its keys + 1), sorted, distinct and finite; a
 * channel without keys gets time 0. Returns the count. */
size_t skio_channel_key_times(const skio_channel* ch, double* times) {
  size_t n = 0;
  for (uint32_t k = 0; k < ch->pos_count; ++k) times[n++] = ch->pos_time[k];
  for (uint32_t k = 0; k < ch->rot_count; ++k) times[n++] = ch->rot_time[k];
  for (uint32_t k = 0; k < ch->scl_count; ++k) times[n++] = ch->scl_time[k];
  n = skio_sorted_unique_times(times, n);
  if (!n) times[n++] = 0.0;
  return n;
}

/* Poses of animation a at the sorted distinct times of all its channels (skio_anim_sample poses the whole
 * skeleton: once per time, not once per channel and time). *out_times / *out_poses are malloc'd. */
static int sample_all_times(const skio_scene* s, uint32_t a, double** out_times, size_t* out_n, skc_trs** out_poses,
                            skc_err* err) {
  const skio_anim* an = &s->anims[a];
  const uint32_t jc = s->skeleton->joint_count;
  size_t total = 1;
  for (uint32_t c = 0; c < an->channel_count; ++c)
    total += (size_t)an->channels[c].pos_count + an->channels[c].rot_count + an->channels[c].scl_count;
  double* t = malloc(total * sizeof *t);
  if (!t) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  size_t n = 0;
  for (uint32_t c = 0; c < an->channel_count; ++c) {
    const skio_channel* ch = &an->channels[c];
    for (uint32_t k = 0; k < ch->pos_count; ++k) t[n++] = ch->pos_time[k];
    for (uint32_t k = 0; k < ch->rot_count; ++k) t[n++] = ch->rot_time[k];
    for (uint32_t k = 0; k < ch->scl_count; ++k) t[n++] = ch->scl_time[k];
  }
  n = skio_sorted_unique_times(t, n);
  if (!n) t[n++] = 0.0;
  skc_trs* poses = (size_t)jc <= SIZE_MAX / sizeof(skc_trs) / n ? malloc(n * jc * sizeof *poses) : NULL;
  if (!poses) {
    free(t);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu poses of %u joints", n, jc);
  }
  int rc = SKC_OK;
  for (size_t i = 0; i < n && !rc; ++i) rc = skio_anim_sample(s, a, t[i], poses + i * jc, err);
  if (rc) {
    free(t);
    free(poses);
    return rc;
  }
  *out_times = t;
  *out_n = n;
  *out_poses = poses;
  return SKC_OK;
}

void skio_ai_put_key(struct aiNodeAnim* na, size_t k, double t, const skc_trs* p) {
  na->mPositionKeys[k].mTime = na->mRotationKeys[k].mTime = na->mScalingKeys[k].mTime = t;
  na->mPositionKeys[k].mValue.x = p->t[0];
  na->mPositionKeys[k].mValue.y = p->t[1];
  na->mPositionKeys[k].mValue.z = p->t[2];
  na->mRotationKeys[k].mValue.x = p->r[0];
  na->mRotationKeys[k].mValue.y = p->r[1];
  na->mRotationKeys[k].mValue.z = p->r[2];
  na->mRotationKeys[k].mValue.w = p->r[3];
  na->mScalingKeys[k].mValue.x = p->s[0];
  na->mScalingKeys[k].mValue.y = p->s[1];
  na->mScalingKeys[k].mValue.z = p->s[2];
}

static int build_anim(const skio_scene* s, uint32_t ai_index, struct aiAnimation** out, skc_err* err) {
  const skio_anim* a = &s->anims[ai_index];
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = sk->joint_count;
  struct aiAnimation* aa = calloc(1, sizeof *aa);
  if (!aa) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  *out = aa;
  set_name(&aa->mName, a->name);
  aa->mTicksPerSecond = 1.0; /* our key times are seconds */
  aa->mDuration = a->duration;
  aa->mChannels = calloc(a->channel_count + 1, sizeof *aa->mChannels);
  if (!aa->mChannels) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  double* all = NULL;
  skc_trs* poses = NULL;
  size_t m = 0;
  int rc = sample_all_times(s, ai_index, &all, &m, &poses, err);
  for (uint32_t c = 0; c < a->channel_count && !rc; ++c) {
    const skio_channel* ch = &a->channels[c];
    size_t total = (size_t)ch->pos_count + ch->rot_count + ch->scl_count + 1;
    double* times = malloc(total * sizeof *times);
    struct aiNodeAnim* na = calloc(1, sizeof *na);
    if (!times || !na) {
      free(times);
      free(na);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
      break;
    }
    aa->mChannels[aa->mNumChannels++] = na;
    set_name(&na->mNodeName, sk->names[ch->joint]);
    size_t n = skio_channel_key_times(ch, times);
    na->mPositionKeys = calloc(n, sizeof *na->mPositionKeys);
    na->mRotationKeys = calloc(n, sizeof *na->mRotationKeys);
    na->mScalingKeys = calloc(n, sizeof *na->mScalingKeys);
    if (!na->mPositionKeys || !na->mRotationKeys || !na->mScalingKeys) {
      free(times);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
      break;
    }
    na->mNumPositionKeys = na->mNumRotationKeys = na->mNumScalingKeys = (unsigned)n;
    size_t x = 0; /* times is a sorted subset of all */
    for (size_t k = 0; k < n; ++k) {
      while (x + 1 < m && all[x] != times[k]) ++x;
      skio_ai_put_key(na, k, times[k], poses + x * jc + ch->joint);
    }
    free(times);
  }
  free(all);
  free(poses);
  return rc;
}

/* Whether clip a keys some mesh's blend shapes (skio_mesh.morph_keys). */
static bool clip_keys_shapes(const skio_scene* s, uint32_t a) {
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (skio_mesh_morph_keys_of(&s->meshes[m], a)) return true;
  return false;
}

/* Binary FBX: clip a's blend shape keys as aa's morph mesh channels, one per mesh with keys, named by the aiMesh's
 * index in decimal, every key with every target (fbx_shapes_write.c writes them as DeformPercent curves); the clip
 * lasts at least to the last key. */
static int put_morph_channels(const skio_scene* s, uint32_t a, struct aiAnimation* aa, skc_err* err) {
  uint32_t n = 0;
  for (uint32_t m = 0; m < s->mesh_count; ++m) n += skio_mesh_morph_keys_of(&s->meshes[m], a) != NULL;
  if (!n) return SKC_OK;
  if (!(aa->mMorphMeshChannels = calloc(n, sizeof *aa->mMorphMeshChannels)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    const skio_morph_keys* mk = skio_mesh_morph_keys_of(&s->meshes[m], a);
    if (!mk) continue;
    const uint32_t T = s->meshes[m].morph_count;
    struct aiMeshMorphAnim* mc = calloc(1, sizeof *mc);
    if (mc) aa->mMorphMeshChannels[aa->mNumMorphMeshChannels++] = mc;
    if (!mc || !(mc->mKeys = calloc(mk->key_count, sizeof *mc->mKeys)))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    char name[16];
    snprintf(name, sizeof name, "%u", m);
    set_name(&mc->mName, name);
    mc->mNumKeys = mk->key_count;
    for (uint32_t k = 0; k < mk->key_count; ++k) {
      struct aiMeshMorphKey* key = &mc->mKeys[k];
      key->mTime = mk->time[k];
      if (!(key->mValues = calloc(T, sizeof *key->mValues)) || !(key->mWeights = calloc(T, sizeof *key->mWeights)))
        return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
      key->mNumValuesAndWeights = T;
      for (uint32_t t = 0; t < T; ++t) key->mValues[t] = t, key->mWeights[t] = mk->weights[(size_t)k * T + t];
    }
    if (mk->time[mk->key_count - 1] > aa->mDuration) aa->mDuration = mk->time[mk->key_count - 1];
  }
  return SKC_OK;
}

/* What build_timeline's steps share: the scene, its clip table and the one animation they fill. */
typedef struct timeline {
  const skio_scene* s;
  skio_clip* clips;
  struct aiAnimation* aa;
  uint8_t* animated;            /* per joint: 1 when some clip animates it */
  struct aiNodeAnim** of_joint; /* per joint: its channel in aa, or NULL */
  size_t cap;                   /* room for one joint's key times in any clip */
} timeline;

/* Places every clip on the timeline (clips[k]: see build_timeline), marks the joints a clip animates and sets tl->cap
 * to every key of the largest clip plus 2. */
static void place_clips(timeline* tl) {
  const skio_scene* s = tl->s;
  skio_clip* clips = tl->clips;
  double next = 0.0;
  for (uint32_t k = 0; k < s->anim_count; ++k) {
    const skio_anim* a = &s->anims[k];
    double l = 0.0, h = a->duration > 0.0 && isfinite(a->duration) ? a->duration : 0.0;
    size_t keys = 0;
    for (uint32_t c = 0; c < a->channel_count; ++c) {
      const skio_channel* ch = &a->channels[c];
      tl->animated[ch->joint] = 1;
      const double* tt[3] = {ch->pos_time, ch->rot_time, ch->scl_time};
      const uint32_t tn[3] = {ch->pos_count, ch->rot_count, ch->scl_count};
      for (int t = 0; t < 3; ++t)
        for (uint32_t i = 0; i < tn[t]; ++i)
          if (isfinite(tt[t][i])) l = fmin(l, tt[t][i]), h = fmax(h, tt[t][i]);
      keys += (size_t)tn[0] + tn[1] + tn[2];
    }
    if (keys + 2 > tl->cap) tl->cap = keys + 2;
    clips[k].name = a->name;
    clips[k].start = next - l; /* local 0 */
    clips[k].end = clips[k].start + h;
    next = ceil(clips[k].end + 0.5);
  }
}

/* The keys joint j gets on the timeline at most: those of its channels in every clip plus 2 per clip. */
static size_t joint_key_room(const skio_scene* s, uint32_t j) {
  size_t total = 0;
  for (uint32_t k = 0; k < s->anim_count; ++k) {
    const skio_anim* a = &s->anims[k];
    size_t n = 2;
    for (uint32_t c = 0; c < a->channel_count; ++c)
      if (a->channels[c].joint == j)
        n += (size_t)a->channels[c].pos_count + a->channels[c].rot_count + a->channels[c].scl_count;
    total += n;
  }
  return total;
}

/* One channel in tl->aa per animated joint (tl->of_joint), its key arrays allocated, no keys yet. */
static int joint_channels(timeline* tl, skc_err* err) {
  const skc_skeleton* sk = tl->s->skeleton;
  struct aiAnimation* aa = tl->aa;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    if (!tl->animated[j]) continue;
    size_t total = joint_key_room(tl->s, j);
    struct aiNodeAnim* ch = calloc(1, sizeof *ch);
    if (!ch || !(ch->mPositionKeys = calloc(total, sizeof *ch->mPositionKeys)) ||
        !(ch->mRotationKeys = calloc(total, sizeof *ch->mRotationKeys)) ||
        !(ch->mScalingKeys = calloc(total, sizeof *ch->mScalingKeys))) {
      if (ch) {
        free(ch->mPositionKeys);
        free(ch->mRotationKeys);
      }
      free(ch);
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    }
    aa->mChannels[aa->mNumChannels++] = ch;
    tl->of_joint[j] = ch;
    set_name(&ch->mNodeName, sk->names[j]);
  }
  return SKC_OK;
}

/* The most key times one clip samples: all its channels' keys plus 2. */
static size_t clip_key_room(const skio_scene* s) {
  size_t all_cap = 0;
  for (uint32_t k = 0; k < s->anim_count; ++k) {
    size_t n = 2;
    for (uint32_t c = 0; c < s->anims[k].channel_count; ++c)
      n += (size_t)s->anims[k].channels[c].pos_count + s->anims[k].channels[c].rot_count +
           s->anims[k].channels[c].scl_count;
    if (n > all_cap) all_cap = n;
  }
  return all_cap;
}

/* Clip a's local 0, its end h (when > 0) and the key times of all its channels into all, sorted and distinct;
 * returns their count. */
static size_t clip_key_times(const skio_anim* a, double h, double* all) {
  size_t m = 0;
  all[m++] = 0.0;
  if (h > 0.0) all[m++] = h;
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    const skio_channel* sc = &a->channels[c];
    for (uint32_t i = 0; i < sc->pos_count; ++i) all[m++] = sc->pos_time[i];
    for (uint32_t i = 0; i < sc->rot_count; ++i) all[m++] = sc->rot_time[i];
    for (uint32_t i = 0; i < sc->scl_count; ++i) all[m++] = sc->scl_time[i];
  }
  return skio_sorted_unique_times(all, m);
}

/* Clip a's local 0, its end h (when > 0) and the key times of joint j's channel in it into times, sorted and
 * distinct; returns their count. */
static size_t joint_key_times(const skio_anim* a, uint32_t j, double h, double* times) {
  size_t n = 0;
  times[n++] = 0.0;
  if (h > 0.0) times[n++] = h;
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    if (a->channels[c].joint != j) continue;
    const skio_channel* sc = &a->channels[c];
    for (uint32_t i = 0; i < sc->pos_count; ++i) times[n++] = sc->pos_time[i];
    for (uint32_t i = 0; i < sc->rot_count; ++i) times[n++] = sc->rot_time[i];
    for (uint32_t i = 0; i < sc->scl_count; ++i) times[n++] = sc->scl_time[i];
    break; /* the first channel of a joint is the one a reader keeps */
  }
  return skio_sorted_unique_times(times, n);
}

/* Clip k's keys appended to every animated joint's channel, at the clip's place on the timeline: the poses sampled
 * once at all of its key times (all, poses: room for them), each joint keyed at its own times (times: room). */
static int key_clip(const timeline* tl, uint32_t k, double* all, double* times, skc_trs* poses, skc_err* err) {
  const skio_scene* s = tl->s;
  const uint32_t jc = s->skeleton->joint_count;
  const skio_anim* a = &s->anims[k];
  const double h = tl->clips[k].end - tl->clips[k].start;
  const size_t m = clip_key_times(a, h, all);
  int rc = SKC_OK;
  for (size_t i = 0; i < m && !rc; ++i) rc = skio_anim_sample(s, k, all[i], poses + i * jc, err);
  for (uint32_t j = 0; j < jc && !rc; ++j) {
    struct aiNodeAnim* ch = tl->of_joint[j];
    if (!ch) continue;
    const size_t n = joint_key_times(a, j, h, times);
    unsigned at = ch->mNumPositionKeys;
    size_t x = 0; /* times is a sorted subset of all */
    for (size_t i = 0; i < n; ++i) {
      while (x + 1 < m && all[x] != times[i]) ++x;
      skio_ai_put_key(ch, at++, tl->clips[k].start + times[i], poses + x * jc + j);
    }
    ch->mNumPositionKeys = ch->mNumRotationKeys = ch->mNumScalingKeys = at;
  }
  return rc;
}

/* Every clip's keys on the timeline (key_clip), with the work arrays for the largest clip. */
static int key_clips(const timeline* tl, skc_err* err) {
  const uint32_t jc = tl->s->skeleton->joint_count;
  /* per clip: the pose at every key time of any of its channels, sampled once (skio_anim_sample poses the whole
   * skeleton), then each joint's keys at its own channel's times plus the clip's 0 and end */
  const size_t all_cap = clip_key_room(tl->s);
  double* all = malloc(all_cap * sizeof *all);
  double* times = malloc(tl->cap * sizeof *times);
  skc_trs* poses = NULL;
  int rc = SKC_OK;
  /* poses for the distinct key times of the largest clip, not for every channel's keys together (150 joints of
   * 10,000 shared key times asked for 4.5 million poses, 27 GB) */
  size_t distinct = 1;
  for (uint32_t k = 0; all && k < tl->s->anim_count; ++k) {
    const size_t m = clip_key_times(&tl->s->anims[k], tl->clips[k].end - tl->clips[k].start, all);
    if (m > distinct) distinct = m;
  }
  if (!all || !times || (size_t)jc > SIZE_MAX / sizeof(skc_trs) / distinct ||
      !(poses = malloc(distinct * jc * sizeof *poses)))
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu poses of %u joints", distinct, jc);
  for (uint32_t k = 0; k < tl->s->anim_count && !rc; ++k) rc = key_clip(tl, k, all, times, poses, err);
  free(poses);
  free(all);
  free(times);
  return rc;
}

/* The timeline in tl->aa: the clips placed, one channel per animated joint, every clip's keys. */
static int fill_timeline(timeline* tl, skc_err* err) {
  const skio_scene* s = tl->s;
  const uint32_t jc = s->skeleton->joint_count, na = s->anim_count;
  struct aiAnimation* aa = tl->aa;
  place_clips(tl);
  set_name(&aa->mName, na == 1 ? s->anims[0].name : "skinkit_clips");
  aa->mTicksPerSecond = 1.0;
  aa->mDuration = na ? tl->clips[na - 1].end : 0.0;
  uint32_t nj = 0;
  for (uint32_t j = 0; j < jc; ++j) nj += tl->animated[j];
  if (!(aa->mChannels = calloc(nj + 1, sizeof *aa->mChannels)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  /* one channel per animated joint, room for every key of its channel in every clip plus 2 per clip */
  if (!(tl->of_joint = calloc(jc, sizeof *tl->of_joint))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  int rc = joint_channels(tl, err);
  if (!rc) rc = key_clips(tl, err);
  free(tl->of_joint);
  return rc;
}

/* Collada: every clip of the scene on one timeline in ONE aiAnimation, plus the clip table for
 * skio_collada_add_clips (why: skio_collada.h). Clip k's local time 0 is at clips[k].start, a whole second at
 * least 0.5 s after the previous clip's end (its last key or its duration, whichever is later); keys before local
 * 0 (negative times) go before start. Every joint that any clip animates gets, in every clip, keys at the union
 * of that clip's T/R/S key times for it plus local 0 and the clip's end, each key sampled from the clip
 * (skio_anim_sample: a joint the clip does not animate holds its rest value, a clip's first and last keys hold
 * before and after them), so the timeline played by a reader that knows no clips (Blender) shows every clip
 * exactly, and the cut made by skio_collada_apply_clips gets back every key time of the source plus, where a
 * track started after 0 or ended before the clip's end, a key there with the value held. */
static int build_timeline(const skio_scene* s, struct aiAnimation** out, skio_clip* clips, skc_err* err) {
  timeline tl = {s, clips, NULL, NULL, NULL, 0};
  tl.animated = calloc(s->skeleton->joint_count, 1);
  tl.aa = calloc(1, sizeof *tl.aa);
  *out = tl.aa; /* the caller frees it with its scene, also on error */
  int rc;
  if (!tl.animated || !tl.aa)
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  else
    rc = fill_timeline(&tl, err);
  free(tl.animated);
  return rc;
}

/* The mesh nodes under root, named after the node that held each mesh in the source file (the mesh's name when
 * unknown; "<name>_mesh" when a joint has that name). group: one node per source node holding every mesh of its
 * group (Collada: an object Assimp split by material goes back as one <node> with an <instance_geometry> per
 * material, which readers make one object per material of, as from the source); else one node per mesh, several with
 * the same name (FBX: Assimp's FBX exporter writes a node of several meshes as an empty with a child per mesh, named
 * after the meshes). A mesh without skin whose parent joint is a plain root (plain_roots; jn: the joints' nodes) goes
 * under that root's node instead, at the identity as that node is: it moves with the armature object, as in the
 * source. Under a joint that carries it (mesh_joints_plain) it goes under that joint's node, placed so that its
 * vertices stay where they are, and moves with it; in FBX (not group) under any other parent joint too (a node above
 * the bones that no skin lists: Blender reads the model as an object parented to that bone; it stood still at the
 * root before session 55). Collada does not (Blender's Collada importer drops a node under a JOINT node): there
 * rigid_view binds such a mesh to its joint.
 * SKC_OUT_OF_MEMORY or SKC_OK. */
static int mesh_nodes(const skio_scene* s, struct aiNode* root, struct aiNode* const* jn, const uint8_t* plain,
                      bool group) {
  const skc_skeleton* sk = s->skeleton;
  int32_t top = -1;
  for (uint32_t m = 0; group && m < s->mesh_count; ++m)
    top = s->meshes[m].node_group > top ? s->meshes[m].node_group : top;
  if ((uint64_t)top + 1 > (uint64_t)s->mesh_count * 4 + 4096) top = -1; /* sparse ids (a hostile glTF): no groups */
  struct aiNode** of_group = calloc((size_t)top + 2, sizeof *of_group);
  if (!of_group) return SKC_OUT_OF_MEMORY;
  int rc = SKC_OK;
  for (uint32_t m = 0; m < s->mesh_count && !rc; ++m) {
    const skio_mesh* mesh = &s->meshes[m];
    const int32_t g = mesh->node_group <= top ? mesh->node_group : -1;
    const int32_t on = mesh_on_joint(s, mesh, plain);
    struct aiNode* n = on >= 0 ? jn[on] : g >= 0 ? of_group[g] : NULL;
    if (!n) {
      const char* base = mesh->node_name ? mesh->node_name : mesh->name;
      char nm[MAXLEN];
      snprintf(nm, sizeof nm, "%s", base);
      if (sk && skc_skeleton_find(sk, nm) >= 0) snprintf(nm, sizeof nm, "%.1000s_mesh", base);
      const int32_t pj = mesh->parent_joint;
      float x[16], nx[16]; /* Collada (group): under a bone only without skins (Blender drops a node under a JOINT) */
      const int32_t in = mesh_space_joint(s, mesh, plain, !group, x, nx);
      const bool at_root = !mesh->skin && plain && pj >= 0 && sk && (uint32_t)pj < sk->joint_count && plain[pj] == 1;
      struct aiNode* up = in >= 0 ? jn[in] : at_root ? jn[pj] : root;
      if (!(n = skio_ai_new_node(nm, up)) || !skio_ai_add_child(up, n)) {
        free(n);
        rc = SKC_OUT_OF_MEMORY;
        break;
      }
      float local[16]; /* in its own space: the node's matrix keeps its origin (build_mesh writes it so) */
      bool mirror;
      if ((in >= 0 || up == root) && own_node_space(s, mesh, plain, in, local, x, nx, &mirror))
        skio_mat_to_ai(local, &n->mTransformation.a1);
      else if (mesh->skin_node_set) /* FBX: a skinned mesh's Model (skin_node_space) */
        skio_mat_to_ai(mesh->skin_node, &n->mTransformation.a1);
      if (g >= 0) of_group[g] = n;
    }
    unsigned* grown = realloc(n->mMeshes, (n->mNumMeshes + 1) * sizeof *grown);
    if (!grown) {
      rc = SKC_OUT_OF_MEMORY;
      break;
    }
    n->mMeshes = grown;
    n->mMeshes[n->mNumMeshes++] = m;
  }
  free(of_group);
  return rc;
}

/* The only skeleton root, which no mesh binds or weighs and no clip moves, at the identity (turned: any rigid
 * transform, which drop_turned_root bakes into its children's places and clip keys): written as a node it adds
 * nothing but an empty object above the armature. */
static bool bare_root(const skio_scene* s, bool turned) {
  const skc_skeleton* sk = s->skeleton;
  if (!sk || !sk->joint_count || sk->parents[0] != SKC_NO_PARENT) return false;
  for (uint32_t j = 1; j < sk->joint_count; ++j)
    if (sk->parents[j] == SKC_NO_PARENT) return false;
  float id[16];
  skc_mat4_identity(id);
  bool identity = true;
  for (int k = 0; k < 16; ++k) identity &= fabsf(sk->rest_local[k] - id[k]) <= 1e-6f;
  if (!identity && !(turned && skc_mat4_is_rigid(sk->rest_local, 1e-5f))) return false;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    const skio_mesh* mesh = &s->meshes[m];
    if (!mesh->skin) continue;
    if (mesh->bound && mesh->bound[0]) return false;
    for (size_t e = 0, n = skc_skin_entries(mesh->skin); e < n; ++e)
      if (mesh->skin->joints[e] == 0 && mesh->skin->weights[e] != 0.0f) return false;
  }
  for (uint32_t a = 0; a < s->anim_count; ++a)
    for (uint32_t c = 0; c < s->anims[a].channel_count; ++c) {
      const uint32_t j = s->anims[a].channels[c].joint;
      if (j == 0) return false;
    }
  return true;
}

/* A skeleton whose only root is Assimp's "RootNode" (what its FBX importer calls the file's implicit root) at
 * identity, bound by no mesh: written as the aiScene root it is the FBX file's implicit root again, not an extra
 * empty "RootNode" object under it. */
static bool implicit_fbx_root(const skio_scene* s) {
  return s->skeleton && s->skeleton->joint_count && strcmp(s->skeleton->names[0], "RootNode") == 0 &&
         bare_root(s, false);
}

/* A Collada source's <visual_scene>, which Assimp reads as the root node holding its turn of the document's up axis
 * (CesiumMan_blender.dae's "Scene", skinkit's own "skinkit_root"): no node of the document, and Blender's own Collada
 * import makes no object of it; written as a node it was an extra empty "Scene" above the file's top nodes in the
 * .glb and .fbx. Left out with drop_turned_root, also when clips key the nodes below it (session 75: a .dae of a
 * Blender FBX, whose armature object is keyed, gave the next .fbx a Model "skinkit_root" holding the turn, and the
 * .dae after it an identity node "skinkit_root#2" above the armature, which stayed in every later cycle). */
static bool collada_scene_root(const skio_scene* s) {
  return s->source_file.set && s->source_file.kind == SKIO_SOURCE_COLLADA && bare_root(s, true);
}

/* s without its root joint (bare_root(s, true)), the root's rest transform given to its children's rest transforms
 * and clip keys first (skio_scene_root_baked_view), so every other joint's world is as in s at every time; baked is
 * the intermediate view. Release with drop_turned_root_free. */
static int drop_turned_root(const skio_scene* s, skio_scene* baked, skio_scene* rootless, skc_err* err) {
  int rc = skio_scene_root_baked_view(s, baked, err);
  if (rc) return rc;
  if ((rc = skio_scene_drop_root(baked, rootless, err))) skio_scene_frame_view_free(s, baked);
  return rc;
}

static void drop_turned_root_free(const skio_scene* s, skio_scene* baked, skio_scene* rootless) {
  skio_scene_drop_root_free(baked, rootless);
  skio_scene_frame_view_free(s, baked);
}

/* Below a plain root, the nodes named as armature objects or importers' roots (skio_chain_wrapper_name), each the
 * only child of the one above, unused (no weight, no clip) and with joints below, are plain too (a Collada file from
 * Blender read by Assimp: Scene > Z_UP > Armature > bones): Blender 3.4's FBX importer makes the last Null above the
 * bones the armature object, and the ones above it empties, as its own import of the source. Out of memory: the roots
 * alone. */
static void plain_chains(const skio_scene* s, uint8_t* mask) {
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = sk->joint_count;
  uint32_t* kids = calloc(jc + 1, sizeof *kids);    /* child count */
  uint32_t* only = malloc((jc + 1) * sizeof *only); /* the last child seen */
  if (!kids || !only) {
    free(kids);
    free(only);
    return;
  }
  for (uint32_t j = 0; j < jc; ++j) {
    const int32_t p = sk->parents[j];
    if (p >= 0 && (uint32_t)p < j) kids[p]++, only[p] = j;
  }
  for (uint32_t j = 0; j < jc; ++j) { /* parents come first: a chain is walked in one pass */
    const int32_t p = sk->parents[j];
    if (p >= 0 && (uint32_t)p < j && mask[p] && kids[p] == 1 && only[p] == j && kids[j] &&
        skio_chain_wrapper_name(sk->names[j]) && skio_joint_is_armature_object_keyed_at_rest(s, j))
      mask[j] = 1;
  }
  free(kids);
  free(only);
}

static bool at_identity(const float m[16]) {
  float id4[16];
  skc_mat4_identity(id4);
  for (int e = 0; e < 16; ++e)
    if (fabsf(m[e] - id4[e]) > 1e-6f) return false;
  return true;
}

/* The joints written as plain nodes (a Collada NODE, an FBX Null) instead of bones: mask[j] set for each, false when
 * there is none. Such a joint is what Blender calls an armature object: joints below it, no mesh binding or weighting
 * it, no clip moving it. As a weightless bone of every mesh (write_all_bones) Blender 3.4 read it back as an extra
 * bone of an armature object renamed "Armature" (rigid_parts.fbx -> .dae or .fbx: bones Rig, upper, lower, hand; two
 * characters' armatures one armature); as a plain node it is the armature object again, with its name and the meshes
 * the source hung under it (mesh_nodes). FBX: every root joint that is one (below an FBX's implicit root, which is
 * written as the file's own root), wherever it stands (fbx_assoc.c gives the clusters its place). Collada: the
 * skeleton's one root, and only at the identity: a transform above the joints is what write_all_bones keeps from
 * Blender's Collada importer. Both take a root whose clip keys only hold its rest (Blender's FBX exporter keys the
 * armature object so; skio_joint_is_armature_object_keyed_at_rest): the Collada view holds it at the identity with
 * identity keys (skio_scene_frame_view_to), so its keys are the identity here too. */
static bool plain_roots(const skio_scene* s, const char* id, uint8_t* mask) {
  const skc_skeleton* sk = s->skeleton;
  const bool fbx = strcmp(id, "fbx") == 0;
  if (!sk || (!fbx && strcmp(id, "collada") != 0)) return false;
  const bool below_root = fbx && implicit_fbx_root(s); /* RootNode is joint 0 */
  bool any = false;
  if (fbx) {
    for (uint32_t j = 0; j < sk->joint_count; ++j) {
      const bool root = below_root ? sk->parents[j] == 0 : sk->parents[j] == SKC_NO_PARENT;
      if (!root || !skio_joint_is_armature_object_keyed_at_rest(s, j)) continue;
      mask[j] = 1;
      any = true;
    }
    if (any) plain_chains(s, mask);
    return any;
  }
  int32_t r = -1; /* the skeleton's one root (skio_scene_armature_object), keyed mesh nodes aside (mesh_joints_plain) */
  for (uint32_t j = 0; j < sk->joint_count && r != -2; ++j)
    if (skc_skeleton_is_root(sk, j) && !mask[j]) r = r == -1 ? (int32_t)j : -2;
  if (r < 0 || !skio_joint_is_armature_object_keyed_at_rest(s, (uint32_t)r)) r = -1;
  if (r < 0 || !at_identity(sk->rest_world + (size_t)r * 16)) return false;
  mask[r] = 1; /* and the chain of armature objects the view holds with it (scene_frame.c held_root) */
  for (int32_t c = r; (c = skio_scene_armature_chain_next(s, c)) >= 0;) {
    if (!at_identity(sk->rest_local + (size_t)c * 16)) break;
    mask[c] = 1;
  }
  return true;
}

/* Joints that carry a mesh and that no mesh binds or weights, at or below them (a keyed prop on a bone, a keyed crate:
 * the readers make such a node a joint so that its clips hold its motion, skio_import_options.animated_nodes) are
 * plain nodes too, their meshes hung under them (mesh_nodes): as bones, Blender read them back as bones of the
 * character's armature or as armatures of their own. Marks them in mask; false when there is none (or no memory). */
static bool mesh_joints_plain(const skio_scene* s, uint8_t* mask) {
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = sk->joint_count;
  uint8_t* carries = calloc(jc + 1, 1);
  uint8_t* used = calloc(jc + 1, 1);
  bool any = false;
  if (carries && used && !skio_scene_mesh_joints(s, carries)) {
    for (uint32_t m = 0; m < s->mesh_count; ++m) {
      const skio_mesh* me = &s->meshes[m];
      for (uint32_t j = 0; me->skin && me->bound && j < jc; ++j) used[j] |= me->bound[j];
      for (size_t e = 0, n = me->skin ? skc_skin_entries(me->skin) : 0; e < n; ++e)
        if (me->skin->joints[e] < jc && me->skin->weights[e] != 0.0f) used[me->skin->joints[e]] = 1;
    }
    for (uint32_t j = jc; j-- > 0;) {
      const int32_t p = sk->parents[j];
      if (used[j] && p >= 0 && (uint32_t)p < j) used[p] = 1;
    }
    for (uint32_t j = 0; j < jc; ++j)
      if (carries[j] && !used[j]) mask[j] = 2, any = true; /* 2: mesh_nodes hangs the mesh in its space */
  }
  free(carries);
  free(used);
  return any;
}

/* synthetic_root: always put the skeleton under an identity "skinkit_root" node. Needed for FBX: Assimp's FBX
 * exporter writes the scene's root node as the file's implicit root (which its importer calls "RootNode"), so
 * a skeleton root written as the aiScene root would lose its name and its transform (found by
 * tests/unit/test_roundtrip.c: SimpleSkin's "nodes[0]" translation, CesiumMan's "Z_UP" rotation). Needed for
 * Collada too: its exporter turns the aiScene root into the <visual_scene> itself, so the root joint is no
 * <node>; Assimp reads that back, but Blender's Collada importer drops the root bone's vertex group
 * (tests/addon/blender_readback.py). */
static int build_nodes(const skio_scene* s, struct aiScene* sc, bool synthetic_root, bool group, const uint8_t* plain,
                       skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  uint32_t jc = sk ? sk->joint_count : 0, roots = 0;
  for (uint32_t j = 0; j < jc; ++j) roots += sk->parents[j] == SKC_NO_PARENT;
  if (synthetic_root && roots == 1) roots = 2; /* take the several-roots path below */
  struct aiNode** jn = calloc(jc + 1, sizeof *jn);
  if (!jn) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  struct aiNode* root = NULL;
  int rc = SKC_OK;
  if (roots != 1) {
    if (!(root = skio_ai_new_node("skinkit_root", NULL))) rc = SKC_OUT_OF_MEMORY;
    sc->mRootNode = root;
  }
  for (uint32_t j = 0; j < jc && !rc; ++j) {
    struct aiNode* n = skio_ai_new_node(sk->names[j], NULL);
    if (!n) {
      rc = SKC_OUT_OF_MEMORY;
      break;
    }
    jn[j] = n;
    skio_mat_to_ai(sk->rest_local + (size_t)j * 16, &n->mTransformation.a1);
    int32_t p = sk->parents[j];
    if (p == SKC_NO_PARENT && roots == 1) {
      root = n;
      sc->mRootNode = n;
    } else if (!skio_ai_add_child(p == SKC_NO_PARENT ? root : jn[p], n)) {
      free_node(n);
      rc = SKC_OUT_OF_MEMORY;
    }
  }
  if (!rc) rc = mesh_nodes(s, root, jn, plain, group);
  free(jn);
  return rc ? skc_fail(err, rc, "out of memory building the export node tree") : SKC_OK;
}

/* Writes n bytes to path atomically (skio_atomic.h): a failed write leaves no half file and the previous file, if
 * any, unchanged. */
static int write_bytes(const char* path, const void* data, size_t n, skc_err* err) {
  return skio_atomic_write(path, data, n, err);
}

/* Collada names Assimp cannot write as ids (skio_collada.h): a node name with a '.' (Assimp's reader splits
 * targets at the first one), and any name of a node, mesh, material or clip that is not an xsd:ID of letters,
 * digits, '_' and '-' starting with a letter or '_'. Assimp 5.2.5's exporter maps each other byte to an id
 * character by indexing a table with the (signed) char: UTF-8 bytes read before the table and wrote NUL bytes
 * into the file (malformed XML for any Japanese or accented bone name), and distinct names can meet in one id.
 * Each such name is written as an id-safe one (characters other than letters, digits, '_' and '-' become '_', a
 * '_' in front of a leading digit or '-'; "_<k>" appended until it is unique among all the names), and so are the
 * bones and channels that refer to it. The pairs are returned for skio_collada_restore_names, which puts the
 * originals back into the name attributes. */
typedef struct name_list {
  skio_name_pair* pairs;
  uint32_t count, cap;
  const char** all; /* every node name (original) */
  uint32_t all_count, all_cap;
} name_list;

static bool list_push_name(name_list* l, const char* name) {
  if (l->all_count == l->all_cap) {
    uint32_t cap = l->all_cap ? 2 * l->all_cap : 64;
    const char** a = realloc(l->all, cap * sizeof *a);
    if (!a) return false;
    l->all = a;
    l->all_cap = cap;
  }
  l->all[l->all_count++] = name;
  return true;
}

static bool collect_node_names(const struct aiNode* n, name_list* l) {
  if (!list_push_name(l, n->mName.data)) return false;
  for (unsigned c = 0; c < n->mNumChildren; ++c)
    if (!collect_node_names(n->mChildren[c], l)) return false;
  return true;
}

static bool name_taken(const name_list* l, const char* name) {
  for (uint32_t i = 0; i < l->all_count; ++i)
    if (strcmp(l->all[i], name) == 0) return true;
  for (uint32_t i = 0; i < l->count; ++i)
    if (strcmp(l->pairs[i].written, name) == 0) return true;
  return false;
}

static const char* renamed(const name_list* l, const char* name) {
  for (uint32_t i = 0; i < l->count; ++i)
    if (strcmp(l->pairs[i].original, name) == 0) return l->pairs[i].written;
  return NULL;
}

static void free_names(name_list* l) {
  for (uint32_t i = 0; i < l->count; ++i) {
    free(l->pairs[i].written);
    free(l->pairs[i].original);
  }
  free(l->pairs);
  free(l->all);
  memset(l, 0, sizeof *l);
}

static char* dup_string(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static bool id_unsafe_char(char c) { return !isalnum((unsigned char)c) && c != '_' && c != '-'; }

static bool id_unsafe(const char* name) {
  if (!name[0]) return false; /* unnamed: nothing to encode */
  if (!isalpha((unsigned char)name[0]) && name[0] != '_') return true;
  for (const char* c = name; *c; ++c)
    if (id_unsafe_char(*c)) return true;
  return false;
}

/* The id-safe name for name (a pair is added the first time); name itself when it is safe; NULL when out of
 * memory. */
static const char* safe_name(name_list* l, const char* name) {
  if (!id_unsafe(name)) return name;
  const char* done = renamed(l, name);
  if (done) return done;
  if (l->count == l->cap) {
    uint32_t cap = l->cap ? 2 * l->cap : 16;
    skio_name_pair* p = realloc(l->pairs, cap * sizeof *p);
    if (!p) return NULL;
    l->pairs = p;
    l->cap = cap;
  }
  size_t len = strlen(name);
  const size_t lead = !isalpha((unsigned char)name[0]) && name[0] != '_' && !id_unsafe_char(name[0]);
  char* w = malloc(lead + len + 16);
  char* o = dup_string(name);
  if (!w || !o) {
    free(w);
    free(o);
    return NULL;
  }
  w[0] = '_';
  for (size_t i = 0; i < len; ++i) w[lead + i] = id_unsafe_char(o[i]) ? '_' : o[i];
  len += lead;
  w[len] = 0;
  for (unsigned k = 1; name_taken(l, w); ++k) snprintf(w + len, 16, "_%u", k);
  l->pairs[l->count].written = w;
  l->pairs[l->count].original = o;
  return l->pairs[l->count++].written;
}

static bool rename_nodes(struct aiNode* n, name_list* l) {
  const char* w = safe_name(l, n->mName.data);
  if (!w) return false;
  if (w != n->mName.data) set_name(&n->mName, w);
  for (unsigned c = 0; c < n->mNumChildren; ++c)
    if (!rename_nodes(n->mChildren[c], l)) return false;
  return true;
}

/* The material's name property (an aiString as stored: u32 length, chars, NUL), or NULL. */
static struct aiMaterialProperty* material_name(const struct aiMaterial* m) {
  for (unsigned p = 0; m && p < m->mNumProperties; ++p)
    if (!strcmp(m->mProperties[p]->mKey.data, "?mat.name") && m->mProperties[p]->mType == aiPTI_String &&
        m->mProperties[p]->mDataLength >= 5)
      return m->mProperties[p];
  return NULL;
}

/* Every name an id is made from, copied (renaming changes the strings they would point at). */
static bool collect_names(const struct aiScene* sc, name_list* l) {
  name_list orig = {0};
  bool ok = collect_node_names(sc->mRootNode, &orig);
  for (unsigned m = 0; ok && m < sc->mNumMeshes; ++m) ok = list_push_name(&orig, sc->mMeshes[m]->mName.data);
  for (unsigned a = 0; ok && a < sc->mNumAnimations; ++a) ok = list_push_name(&orig, sc->mAnimations[a]->mName.data);
  for (unsigned m = 0; ok && m < sc->mNumMaterials; ++m) {
    const struct aiMaterialProperty* p = material_name(sc->mMaterials[m]);
    if (p) ok = list_push_name(&orig, p->mData + 4);
  }
  for (uint32_t i = 0; ok && i < orig.all_count; ++i) {
    char* c = dup_string(orig.all[i]);
    ok = c && list_push_name(l, c);
    if (!ok) free(c);
  }
  free(orig.all);
  return ok;
}

/* A material's name property replaced by w (a new block: the old one is the scene's). */
static bool rename_material(struct aiMaterialProperty* p, const char* w) {
  size_t n = strlen(w);
  char* d = malloc(4 + n + 1);
  if (!d) return false;
  uint32_t l32 = (uint32_t)n;
  memcpy(d, &l32, 4);
  memcpy(d + 4, w, n + 1);
  free(p->mData);
  p->mData = d;
  p->mDataLength = (unsigned)(4 + n + 1);
  return true;
}

static bool rename_refs(struct aiScene* sc, name_list* l) {
  for (unsigned m = 0; m < sc->mNumMeshes; ++m) {
    const char* w = safe_name(l, sc->mMeshes[m]->mName.data);
    if (!w) return false;
    if (w != sc->mMeshes[m]->mName.data) set_name(&sc->mMeshes[m]->mName, w);
    for (unsigned b = 0; b < sc->mMeshes[m]->mNumBones; ++b)
      if ((w = renamed(l, sc->mMeshes[m]->mBones[b]->mName.data))) set_name(&sc->mMeshes[m]->mBones[b]->mName, w);
  }
  for (unsigned a = 0; a < sc->mNumAnimations; ++a) {
    struct aiAnimation* an = sc->mAnimations[a];
    const char* w = safe_name(l, an->mName.data);
    if (!w) return false;
    if (w != an->mName.data) set_name(&an->mName, w);
    for (unsigned c = 0; c < an->mNumChannels; ++c)
      if ((w = renamed(l, an->mChannels[c]->mNodeName.data))) set_name(&an->mChannels[c]->mNodeName, w);
  }
  for (unsigned k = 0; k < sc->mNumCameras; ++k) { /* Assimp's writer ties a camera or light to its node by name */
    const char* r = renamed(l, sc->mCameras[k]->mName.data);
    if (r) set_name(&sc->mCameras[k]->mName, r);
  }
  for (unsigned k = 0; k < sc->mNumLights; ++k) {
    const char* r = renamed(l, sc->mLights[k]->mName.data);
    if (r) set_name(&sc->mLights[k]->mName, r);
  }
  for (unsigned m = 0; m < sc->mNumMaterials; ++m) {
    struct aiMaterialProperty* p = material_name(sc->mMaterials[m]);
    const char* w = p ? safe_name(l, p->mData + 4) : NULL;
    if (p && (!w || (w != p->mData + 4 && !rename_material(p, w)))) return false;
  }
  return true;
}

static int collada_safe_names(struct aiScene* sc, name_list* l, skc_err* err) {
  memset(l, 0, sizeof *l);
  if (!sc->mRootNode) return SKC_OK;
  bool ok = collect_names(sc, l) && rename_nodes(sc->mRootNode, l) && rename_refs(sc, l);
  for (uint32_t i = 0; i < l->all_count; ++i) free((char*)l->all[i]);
  free(l->all); /* only the pairs are kept */
  l->all = NULL;
  l->all_count = l->all_cap = 0;
  if (!ok) {
    free_names(l);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory renaming Collada nodes");
  }
  return SKC_OK;
}

/* *xml (malloc'd text of *n bytes) replaced by with (with_n bytes). */
static void replace_text(char** xml, size_t* n, char* with, size_t with_n) {
  free(*xml);
  *xml = with;
  *n = with_n;
}

/* Blender's description of the scene's lights (collada_lights.c) put into Assimp's Collada text xml[0, *n) (replaced;
 * blends: each light's spot blend). SKC_OUT_OF_MEMORY only. */
static int blender_lights(const struct aiScene* sc, const float* blends, char** xml, size_t* n) {
  if (!sc->mNumLights) return SKC_OK;
  skio_collada_light* l = calloc(sc->mNumLights, sizeof *l);
  if (!l) return SKC_OUT_OF_MEMORY;
  for (unsigned k = 0; k < sc->mNumLights; ++k) {
    const struct aiLight* a = sc->mLights[k];
    const float c[3] = {a->mColorDiffuse.r, a->mColorDiffuse.g, a->mColorDiffuse.b};
    const float top = fmaxf(fmaxf(c[0], c[1]), c[2]);
    l[k].type = a->mType == aiLightSource_DIRECTIONAL ? 1 : a->mType == aiLightSource_SPOT ? 2 : 0;
    for (int i = 0; i < 3; ++i) l[k].color[i] = top > 0.0f ? c[i] / top : 1.0f;
    l[k].energy = top;
    l[k].spot_size_deg = a->mAngleInnerCone * (float)(180.0 / 3.14159265358979);
    l[k].spot_blend = blends ? blends[k] : 0.0f;
  }
  char* with = NULL;
  size_t with_n = 0;
  const int rc = skio_collada_blender_lights(*xml, *n, l, sc->mNumLights, &with, &with_n);
  free(l);
  if (!rc) replace_text(xml, n, with, with_n);
  return rc;
}

/* The orthographic cameras (ortho: xmag, ymag per camera; 0 0 perspective) put into Assimp's Collada text xml[0, *n)
 * (replaced). SKC_OUT_OF_MEMORY only. */
static int ortho_views(const struct aiScene* sc, const float* ortho, char** xml, size_t* n) {
  bool any = false;
  for (unsigned k = 0; ortho && k < sc->mNumCameras; ++k) any |= ortho[2 * k] > 0.0f;
  if (!any) return SKC_OK;
  skio_collada_camera* c = calloc(sc->mNumCameras, sizeof *c);
  if (!c) return SKC_OUT_OF_MEMORY;
  for (unsigned k = 0; k < sc->mNumCameras; ++k)
    c[k] = (skio_collada_camera){ortho[2 * k], ortho[2 * k + 1], sc->mCameras[k]->mClipPlaneNear,
                                 sc->mCameras[k]->mClipPlaneFar};
  char* with = NULL;
  size_t with_n = 0;
  const int rc = skio_collada_ortho_cameras(*xml, *n, c, sc->mNumCameras, &with, &with_n);
  free(c);
  if (!rc) replace_text(xml, n, with, with_n);
  return rc;
}

/* Each material's two-sidedness put into Assimp's Collada text xml[0, *n) (replaced; skio_collada_double_sided: Assimp
 * reads $mat.twosided on no writer's behalf). SKC_OUT_OF_MEMORY only. */
static int double_sided_effects(const struct aiScene* sc, char** xml, size_t* n) {
  bool* two = calloc(sc->mNumMaterials + 1, sizeof *two);
  bool any = false;
  if (!two) return SKC_OUT_OF_MEMORY;
  for (unsigned k = 0; k < sc->mNumMaterials; ++k) {
    int v = 0;
    unsigned one = 1;
    two[k] = aiGetMaterialIntegerArray(sc->mMaterials[k], AI_MATKEY_TWOSIDED, &v, &one) == aiReturn_SUCCESS && v;
    any |= two[k];
  }
  char* with = NULL;
  size_t with_n = 0;
  const int rc = any ? skio_collada_double_sided(*xml, *n, two, sc->mNumMaterials, &with, &with_n) : SKC_OK;
  free(two);
  if (!rc && any) replace_text(xml, n, with, with_n);
  return rc;
}

/* The meshes' colour sets with their alpha (skio_collada_color_alpha) in Assimp's Collada text xml[0, *n) (replaced).
 * SKC_OUT_OF_MEMORY only. */
static int color_alpha(const struct aiScene* sc, char** xml, size_t* n) {
  bool any = false;
  for (unsigned m = 0; m < sc->mNumMeshes && !any; ++m)
    for (unsigned c = 0; c < AI_MAX_NUMBER_OF_COLOR_SETS && !any; ++c)
      for (unsigned v = 0; sc->mMeshes[m]->mColors[c] && v < sc->mMeshes[m]->mNumVertices && !any; ++v)
        any = sc->mMeshes[m]->mColors[c][v].a != 1.0f;
  if (!any) return SKC_OK;
  char* with = NULL;
  size_t with_n = 0;
  const int rc =
      skio_collada_color_alpha(*xml, *n, (const struct aiMesh* const*)sc->mMeshes, sc->mNumMeshes, &with, &with_n);
  if (!rc) replace_text(xml, n, with, with_n);
  return rc;
}

/* The glTF mesh's name (malloc'd) when scene mesh m is one primitive of a glTF mesh of several and still has the
 * name the reader gave it ("<mesh>-<primitive>": a name set since stays), else NULL (also when memory is short). */
static char* part_mesh_name(const skio_scene* s, unsigned m) {
  const skio_mesh* sm = m < s->mesh_count ? &s->meshes[m] : NULL;
  const int mesh =
      s->gltf && sm && sm->gltf_mesh >= 0 ? skio_gltf_item(s->gltf, "meshes", (uint32_t)sm->gltf_mesh) : -1;
  const int name = skio_json_len(s->gltf, skio_json_get(s->gltf, mesh, "primitives")) > 1
                       ? skio_json_get(s->gltf, mesh, "name")
                       : -1;
  char* gname = skio_json_is(s->gltf, name, 3) ? skio_json_strdup(s->gltf, name) : NULL;
  if (!gname || !sm->name) return gname;
  char suffix[16];
  snprintf(suffix, sizeof suffix, "-%d", (int)sm->gltf_primitive);
  const size_t g = strlen(gname);
  if (strncmp(sm->name, gname, g) || strcmp(sm->name + g, suffix)) free(gname), gname = NULL;
  return gname;
}

/* The names of the aiMeshes' FBX Geometries and Collada geometries (NULL when memory is short; free with
 * free_geometry_names): each aiMesh's own, but for a primitive of a glTF mesh with several ("Body-1") the glTF mesh's
 * name: FBX's parts are merged into one Geometry under its first part's name (fbx_merge.c), which Blender gives the
 * mesh, and the mesh's custom properties (skio_scene.mesh_props) are keyed by the glTF mesh's name; Collada's parts
 * stay geometries of their own, all named so. aiMesh m is s->meshes[m]. */
static char** geometry_names(const struct aiScene* sc, const skio_scene* s) {
  char** names = calloc(sc->mNumMeshes + 1, sizeof *names);
  for (unsigned m = 0; names && m < sc->mNumMeshes; ++m) {
    const char* own = sc->mMeshes[m] ? sc->mMeshes[m]->mName.data : "";
    char* mesh = part_mesh_name(s, m);
    names[m] = mesh ? mesh : dup_string(own);
    if (!names[m]) {
      while (m) free(names[--m]);
      free(names);
      return NULL;
    }
  }
  return names;
}

static void free_geometry_names(char** names, unsigned n) {
  for (unsigned m = 0; names && m < n; ++m) free(names[m]);
  free(names);
}

/* The k-th <geometry> of Assimp's Collada text xml[0, *n) (replaced) named as geometry_names says where that differs
 * from its aiMesh's name. SKC_OUT_OF_MEMORY only. */
static int dae_geometry_names(const struct aiScene* sc, const skio_scene* s, char** xml, size_t* n) {
  if (!s->gltf) return SKC_OK;
  char** names = geometry_names(sc, s);
  if (!names) return SKC_OUT_OF_MEMORY;
  bool any = false;
  for (unsigned m = 0; m < sc->mNumMeshes; ++m) {
    if (!strcmp(names[m], sc->mMeshes[m] ? sc->mMeshes[m]->mName.data : "")) free(names[m]), names[m] = NULL;
    any |= names[m] != NULL;
  }
  char* with = NULL;
  size_t with_n = 0;
  const int rc =
      any ? skio_collada_geometry_names(*xml, *n, (const char* const*)names, sc->mNumMeshes, &with, &with_n) : SKC_OK;
  free_geometry_names(names, sc->mNumMeshes);
  if (!rc && any) replace_text(xml, n, with, with_n);
  return rc;
}

/* Collada: Assimp writes to memory; the clip table is added (skio_collada_add_clips) when there are clips, the
 * nodes renamed by collada_safe_names get their names back (skio_collada_restore_names), the double-sided materials
 * their flag (double_sided_effects), the vertex colours their alpha (color_alpha), a glTF mesh's parts its name
 * (dae_geometry_names), the lights Blender's
 * description and the orthographic cameras their view (collada_lights.c), then the file is written. */
static int write_collada(const struct aiScene* sc, const skio_scene* s, const char* path, const skio_clip* clips,
                         uint32_t count, const name_list* names, const skio_ai_objects* objs,
                         const skio_ai_guard* guard, skc_err* err) {
  skio_buf blob = {0};
  int rc = skio_ai_export(sc, "collada", path, guard, &blob, err);
  if (rc) {
    free(blob.p);
    return rc;
  }
  char* xml = NULL;
  size_t xml_n = 0;
  skc_err sub = {0};
  if (clips) {
    rc = skio_collada_add_clips((const char*)blob.p, blob.n, clips, count, &xml, &xml_n, &sub);
    if (rc) rc = skc_fail(err, rc, "%s: not written: animation clips could not be added (%s)", path, sub.message);
    free(blob.p);
  } else {
    xml = (char*)blob.p; /* the text itself (NULL when Assimp wrote nothing: then an empty text) */
    xml_n = blob.n;
    if (!xml && !(xml = malloc(1))) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  if (!rc && names->count) {
    char* renamed_xml = NULL;
    size_t renamed_n = 0;
    rc = skio_collada_restore_names(xml, xml_n, names->pairs, names->count, &renamed_xml, &renamed_n, &sub);
    if (rc) {
      rc = skc_fail(err, rc, "%s: not written: node names could not be restored (%s)", path, sub.message);
    } else {
      free(xml);
      xml = renamed_xml;
      xml_n = renamed_n;
    }
  }
  if (!rc && (double_sided_effects(sc, &xml, &xml_n) || color_alpha(sc, &xml, &xml_n) ||
              dae_geometry_names(sc, s, &xml, &xml_n))) /* before the placeholder goes: effect k is material k */
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc) { /* without the placeholder material (collada_placeholder.c: Blender showed it) */
    size_t kept_n = 0;
    char* kept = skio_collada_drop_material(xml, xml_n, SKIO_PLACEHOLDER_MATERIAL, &kept_n, NULL);
    if (!kept) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    } else {
      free(xml);
      xml = kept;
      xml_n = kept_n;
    }
  }
  if (!rc && (blender_lights(sc, objs->lamp_blend, &xml, &xml_n) || ortho_views(sc, objs->cam_ortho, &xml, &xml_n)))
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  struct tm when;
  if (!rc && skio_source_date(&when)) skio_collada_stamp(xml, xml_n, &when); /* write_stamp.c */
  if (!rc) rc = write_bytes(path, xml, xml_n, err);
  free(xml);
  return rc;
}

/* FBX stop time (ticks) of every animation of sc: its duration or its last key, whichever is later (key times and
 * durations are seconds here: mTicksPerSecond 1). NULL when sc has none or memory is short (*ok false then). */
static int64_t* fbx_stops(const struct aiScene* sc, bool* ok) {
  *ok = true;
  if (!sc->mNumAnimations) return NULL;
  int64_t* stops = malloc(sc->mNumAnimations * sizeof *stops);
  if (!stops) {
    *ok = false;
    return NULL;
  }
  for (unsigned a = 0; a < sc->mNumAnimations; ++a) {
    const struct aiAnimation* aa = sc->mAnimations[a];
    double end = aa->mDuration > 0.0 ? aa->mDuration : 0.0;
    for (unsigned c = 0; c < aa->mNumChannels; ++c) {
      const struct aiNodeAnim* na = aa->mChannels[c];
      if (na->mNumPositionKeys) end = fmax(end, na->mPositionKeys[na->mNumPositionKeys - 1].mTime);
      if (na->mNumRotationKeys) end = fmax(end, na->mRotationKeys[na->mNumRotationKeys - 1].mTime);
      if (na->mNumScalingKeys) end = fmax(end, na->mScalingKeys[na->mNumScalingKeys - 1].mTime);
    }
    stops[a] = end < 1e6 ? llround(end * (double)SKIO_FBX_TICKS_PER_SECOND) : 0;
  }
  return stops;
}

/* The world matrix of the first node below n (n's parent's world: up) that holds mesh m into w; false when none. */
static bool mesh_node_world(const struct aiNode* n, const float up[16], unsigned m, float w[16]) {
  float local[16];
  skio_mat_from_ai(&n->mTransformation.a1, local);
  skc_mat4_mul(up, local, w);
  for (unsigned k = 0; k < n->mNumMeshes; ++k)
    if (n->mMeshes[k] == m) return true;
  float below[16];
  memcpy(below, w, sizeof below);
  for (unsigned c = 0; c < n->mNumChildren; ++c)
    if (n->mChildren[c] && mesh_node_world(n->mChildren[c], below, m, w)) return true;
  return false;
}

/* Bone offset o of mesh m made world-space (skio_fbx_bind): o times the inverse of m's node's world, which is the
 * identity but for a skinned mesh's Model (skin_node_space). */
static void world_offset(const struct aiScene* sc, unsigned m, const float o[16], double out[16]) {
  float id[16], w[16], inv[16], b[16];
  skc_mat4_identity(id);
  memcpy(b, o, sizeof b);
  if (sc->mRootNode && mesh_node_world(sc->mRootNode, id, m, w) && skc_mat4_inverse(w, inv)) skc_mat4_mul(o, inv, b);
  for (int e = 0; e < 16; ++e) out[e] = b[e];
}

/* Each bone's world-space offset matrix (world_offset), once per name (the writer gives a joint one in every mesh),
 * for skio_fbx_fix_clusters: Assimp's FBX writer writes the bone's rest instead. NULL with *count 0 when there is
 * none or memory is short (*ok false then). */
static skio_fbx_bind* fbx_binds(const struct aiScene* sc, uint32_t* count, bool* ok) {
  *count = 0;
  *ok = true;
  uint32_t cap = 0;
  for (unsigned m = 0; m < sc->mNumMeshes; ++m) cap += sc->mMeshes[m]->mNumBones;
  skio_fbx_bind* b = cap ? malloc(cap * sizeof *b) : NULL;
  if (cap && !b) *ok = false;
  for (unsigned m = 0; b && m < sc->mNumMeshes; ++m)
    for (unsigned k = 0; k < sc->mMeshes[m]->mNumBones; ++k) {
      const struct aiBone* bone = sc->mMeshes[m]->mBones[k];
      uint32_t i = 0;
      while (i < *count && strcmp(b[i].name, bone->mName.data) != 0) ++i;
      if (i < *count) continue;
      float o[16];
      skio_mat_from_ai(&bone->mOffsetMatrix.a1, o);
      b[i].name = bone->mName.data;
      world_offset(sc, m, o, b[i].offset);
      ++*count;
    }
  return b;
}

/* Binary FBX from Assimp: its records repaired (fbx_fixup.c), its clusters given a TransformAssociateModel and the
 * scene's binds (fbx_assoc.c: Blender's importer places skinned meshes by them, Assimp's reader takes its inverse
 * binds from them), the placeholder material dropped (fbx_placeholder.c: Blender showed it), the meshes' blend shapes
 * added (fbx_shapes_write.c, from the anim meshes build_mesh gave them: Assimp's writer writes none; *shapes gets
 * how many) with their animation (the aiAnimations' mMorphMeshChannels, which Assimp's writer ignores: it writes
 * nothing of them, so they need no hiding) and the Models Assimp wrote per material of one object merged into one
 * (fbx_merge.c: Blender showed one object per material; an object with blend shapes stays as it is). */
static int binary_fbx_passes(const struct aiScene* sc, const skio_scene* s, const void* data, size_t n,
                             const skio_fbx_fix_options* fo, uint8_t** out, size_t* out_n, uint32_t* shapes,
                             skc_err* err) {
  uint8_t *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
  size_t an = 0, bn = 0, cn = 0, dn = 0, en = 0;
  uint32_t nb = 0;
  bool ok = true;
  skio_fbx_bind* binds = fbx_binds(sc, &nb, &ok);
  char** names = geometry_names(sc, s);
  ok = ok && names;
  int rc =
      ok ? skio_fbx_fix_binary(data, n, fo, &a, &an, NULL, err) : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc) rc = skio_fbx_fix_clusters(a, an, binds, nb, &b, &bn, NULL, err);
  if (!rc) rc = skio_fbx_drop_material(b, bn, SKIO_PLACEHOLDER_MATERIAL, &c, &cn, NULL, err);
  if (!rc) rc = skio_fbx_add_blend_shapes(c, cn, sc, &d, &dn, shapes, err);
  if (!rc) rc = skio_fbx_name_geometries(d, dn, (const char* const*)names, sc->mNumMeshes, &e, &en, err);
  if (!rc) rc = skio_fbx_merge_parts(e, en, out, out_n, NULL, err);
  free(binds);
  free_geometry_names(names, sc->mNumMeshes);
  free(a);
  free(b);
  free(c);
  free(d);
  free(e);
  return rc;
}

/* Assimp 5.2's FBX writer writes an aiMesh's anim meshes itself, as blend shapes no reader takes: the Shape named
 * "<name>\x00\x01Blendshape" (Blender 3.4's importer asserts the class "Geometry" and the whole import fails),
 * Indexes that are aiMesh vertex indices, not control points, and DeformPercent 0 whatever mWeight says. So they are
 * hidden from it (hide = true: the counts saved in counts, false: put back) and fbx_shapes_write.c writes them. */
static void hide_anim_meshes(struct aiScene* sc, unsigned* counts, bool hide) {
  for (unsigned m = 0; counts && m < sc->mNumMeshes; ++m) {
    if (!sc->mMeshes[m]) continue;
    if (hide) counts[m] = sc->mMeshes[m]->mNumAnimMeshes;
    sc->mMeshes[m]->mNumAnimMeshes = hide ? 0 : counts[m];
  }
}

/* The binary FBX fixed[0, *n) (replaced) with what Assimp's writer leaves out of each material (fbx_materials_write.c):
 * its EmissiveColor, SpecularFactor and normal map strength, and the UV set of a texture on a set past the first. */
static int fbx_fix_materials(const skio_scene* s, uint8_t** fixed, size_t* n, skc_err* err) {
  if (!s->material_count) return SKC_OK;
  skio_fbx_material_fix* list = calloc(s->material_count, sizeof *list);
  if (!list) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t i = 0; i < s->material_count; ++i) {
    const skio_material* m = &s->materials[i];
    const skio_texref* refs[3] = {&m->base_color_tex, &m->normal_tex, &m->emissive_tex};
    list[i].name = m->name ? m->name : "";
    for (int c = 0; c < 3; ++c) list[i].emissive[c] = m->emissive[c];
    for (int t = 0; t < 3; ++t) list[i].uv[t] = refs[t]->image >= 0 ? refs[t]->uv : 0;
    list[i].normal_scale = m->normal_tex.image >= 0 ? m->normal_tex.scale : 1.0f;
  }
  uint8_t* with = NULL;
  size_t with_n = 0;
  const int rc = skio_fbx_fix_materials(*fixed, *n, list, s->material_count, &with, &with_n, err);
  free(list);
  if (!rc) free(*fixed), *fixed = with, *n = with_n;
  return rc;
}

/* FBX: Assimp writes binary FBX to memory, which gets binary_fbx_passes (each animation's exact stop time: Assimp
 * writes whole seconds and its importer drops the keys after them; continuous Euler rotation curves: Assimp's per-key
 * Euler angles jump, and its importer fills jumps over 180 degrees with keys interpolated in Euler space; and the
 * records Assimp leaves out), the frame, materials, custom properties, cameras and lights; then the file is written
 * atomically (skio_fbx_write_file), as ASCII FBX text when ascii (`--format fbxa`: fbx_ascii_write.c turns the
 * finished binary file into text, so both flavours carry the same records and values). */
static int write_fbx(struct aiScene* sc, const skio_frame* frame, const skio_scene* s, const skio_ai_objects* objs,
                     const char* path, bool ascii, const skio_ai_guard* guard, uint32_t* shapes, skc_err* err) {
  bool ok = true;
  int64_t* stops = fbx_stops(sc, &ok);
  unsigned* anim_meshes = ok ? calloc(sc->mNumMeshes + 1, sizeof *anim_meshes) : NULL;
  if (!anim_meshes) {
    free(stops);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  hide_anim_meshes(sc, anim_meshes, true);
  skio_buf blob = {0};
  int rc = skio_ai_export(sc, "fbx", path, guard, &blob, err);
  hide_anim_meshes(sc, anim_meshes, false);
  free(anim_meshes);
  if (rc) {
    free(blob.p);
    free(stops);
    return rc;
  }
  void* fixed = NULL;
  size_t fixed_n = 0;
  skc_err fix_err = {0};
  const skio_fbx_fix_options fo = {stops, sc->mNumAnimations, true, true};
  rc = binary_fbx_passes(sc, s, blob.p, blob.n, &fo, (uint8_t**)&fixed, &fixed_n, shapes, &fix_err);
  if (!rc) rc = skio_fbx_set_frame(fixed, fixed_n, frame, NULL, &fix_err);   /* fbx_settings.c */
  if (!rc) rc = fbx_fix_materials(s, (uint8_t**)&fixed, &fixed_n, &fix_err); /* fbx_materials_write.c */
  for (int m = 0; m < 3 && !rc; ++m) { /* the nodes', materials' and meshes' custom properties */
    static const char* const k_cls[3] = {"Model", "Material", "Geometry"};
    const skio_user_prop* props = m == 0 ? s->user_props : m == 1 ? s->material_props : s->mesh_props;
    const uint32_t count = m == 0 ? s->user_prop_count : m == 1 ? s->material_prop_count : s->mesh_prop_count;
    uint8_t* with = NULL;
    size_t with_n = 0;
    if (!count) continue;
    rc = skio_fbx_add_user_props(fixed, fixed_n, k_cls[m], props, count, &with, &with_n, NULL, &fix_err);
    if (!rc) free(fixed), fixed = with, fixed_n = with_n;
  }
  if (!rc && objs->lens_count) { /* the cameras and lights (fbx_lenses_write.c) */
    uint8_t* with = NULL;
    size_t with_n = 0;
    const double unit = frame->unit_cm > 0.0 ? frame->unit_cm / 100.0 : 1.0;
    rc = skio_fbx_add_lenses(fixed, fixed_n, objs->lens_obs, objs->lens_count, unit, &with, &with_n, NULL, &fix_err);
    if (!rc) free(fixed), fixed = with, fixed_n = with_n;
  }
  free(blob.p);
  free(stops);
  struct tm when;
  if (!rc && skio_source_date(&when)) rc = skio_fbx_stamp(fixed, fixed_n, &when, &fix_err); /* write_stamp.c */
  if (rc)
    return skc_fail(err, rc, "%s: not written: Assimp's FBX output could not be repaired (%s)", path, fix_err.message);
  rc = skio_fbx_write_file(path, fixed, fixed_n, ascii, err);
  free(fixed);
  return rc;
}

/* What the reader could not take from the source's materials (an image not found beside the model, a texture
 * naming no embedded image): the output lacks it too, so the note says so (the in-place glTF edit keeps the
 * source's own references and needs no note). */
static void note_read_losses(const skio_scene* s, char* note, size_t size) {
  if (!note || !size) return;
  size_t n = strlen(note);
  if (s->no_skin_reason && !s->skeleton && n + 1 < size) /* an Ogre mesh whose .skeleton is not beside it */
    n += (size_t)snprintf(note + n, size - n, "%swritten without a skeleton: %s", n ? "; " : "", s->no_skin_reason);
  n = strlen(note);
  if (s->material_note && n + 1 < size)
    snprintf(note + n, size - n, "%sfrom the source: %s", n ? "; " : "", s->material_note);
}

static int export_view(const skio_scene* s, const skio_scene* view, const char* path, const skio_export_options* opts,
                       skc_err* err);

/* Appends text and why to the caller's note ("; " between notes). */
static void note_add(const skio_export_options* o, const char* text, const char* why) {
  if (!o->note || !o->note_size) return;
  size_t n = strlen(o->note);
  snprintf(o->note + n, o->note_size - n, "%s%s%s", n ? "; " : "", text, why);
}

/* Whether clip a keys one of the empties, cameras or lights w writes as nodes. */
static bool clip_keys_objects(const skio_scene* s, const skio_ai_objects* w, uint32_t a) {
  for (uint32_t i = 0; i < w->count; ++i)
    if (w->node[i] && skio_object_channel_of(s, a, i)) return true;
  return false;
}

/* Whether clip a has something a file written anew through Assimp carries: keys of a joint, of a node w writes (an
 * empty hanging from a bone, a camera) or, with shape_keys (binary FBX), of a mesh's blend shapes. */
static bool clip_writable(const skio_scene* s, const skio_ai_objects* w, bool shape_keys, uint32_t a) {
  return s->anims[a].channel_count || clip_keys_objects(s, w, a) || (shape_keys && clip_keys_shapes(s, a));
}

/* Clips a file written anew through Assimp lacks: every clip when none has keys it carries (or there is no
 * skeleton), and with FBX each clip that has none (a glTF clip of morph-target weights only, or of nodes not written;
 * Collada lays every clip on its one timeline). Named, not dropped without a word. */
static void note_clips_unwritten(const skio_scene* s, const skio_ai_objects* w, bool collada, bool any_channel,
                                 bool shape_keys, const skio_export_options* o) {
  uint32_t n = 0;
  const char* first = NULL;
  for (uint32_t a = 0; a < s->anim_count; ++a) {
    const bool written = collada || clip_writable(s, w, shape_keys, a);
    if (s->skeleton && any_channel && written) continue;
    if (!first) first = s->anims[a].name;
    ++n;
  }
  if (!n) return;
  char text[200];
  snprintf(text, sizeof text,
           "%u clip(s) (\"%.60s\"%s) not written: they key no joint (nor a node or "
           "shape this writer carries)",
           n, first ? first : "", n > 1 ? ", ..." : "");
  note_add(o, text, "");
}

/* What of the scene's cameras, lights and empty nodes a file written anew through Assimp lacks (scene_export_objects.c
 * writes the empties and their keys): the cameras and lights (a glTF document's are named by note_gltf_only), an
 * empty's keys in a clip that is not written (it keys no joint) and keys that would need a shear. */
static void note_objects_written(const skio_scene* s, const skio_ai_objects* w, bool collada, bool shape_keys,
                                 const skio_export_options* o) {
  char text[240];
  if (!s->gltf && (w->cameras || w->lights)) { /* ASCII FBX */
    snprintf(text, sizeof text,
             "not written: %u camera(s), %u light(s) of the source (.glb, .gltf, binary .fbx and "
             ".dae keep them)",
             w->cameras, w->lights);
    note_add(o, text, "");
  }
  bool any = false; /* clips are written when one has keys to carry: Collada all on its timeline, FBX those */
  for (uint32_t a = 0; a < s->anim_count; ++a) any |= clip_writable(s, w, shape_keys, a);
  uint32_t keyed = 0; /* (clip, empty) pairs whose keys no written clip carries */
  for (uint32_t a = 0; a < s->anim_count; ++a) {
    const bool built = s->skeleton && any && (collada || clip_writable(s, w, shape_keys, a));
    for (uint32_t i = 0; !built && i < w->count; ++i) keyed += w->node[i] && skio_object_channel_of(s, a, i);
  }
  if (keyed) {
    snprintf(text, sizeof text,
             "the clip keys of %u empty node(s) not written: their clip keys no joint (placed at rest; .glb and "
             ".gltf keep them)",
             keyed);
    note_add(o, text, "");
  }
  if (w->keys_dropped) {
    snprintf(text, sizeof text, "%u clip key(s) of empty nodes not written: they need a shear in the new parent",
             w->keys_dropped);
    note_add(o, text, "");
  }
}

/* Notes on weights the glTF writer changed unasked: influences glTF's default limit cut (an explicit limit is no
 * surprise; what: "more than ..."), sums off 1 it mended (normalize asked for that) and a joint named twice in one
 * vertex, merged. */
static void note_weights(const skio_export_options* o, const skio_gltf_report* rep, const char* what) {
  char text[320];
  if (!o->limit && rep->vertices_limited) {
    snprintf(text, sizeof text, "glTF: %llu vertices have %s: their largest are written, renormalized",
             (unsigned long long)rep->vertices_limited, what);
    note_add(o, text, "");
  }
  if (!o->normalize && rep->vertices_renormalized) {
    snprintf(text, sizeof text,
             "glTF: %llu vertices have weights that do not sum to 1: written renormalized, as glTF requires",
             (unsigned long long)rep->vertices_renormalized);
    note_add(o, text, "");
  }
  if (rep->anchored && rep->anchor_is_joint) {
    snprintf(text, sizeof text,
             "glTF: %llu vertices have no weight, which glTF does not allow (an engine puts them at the origin): "
             "written with weight 1 on \"%.60s\", the root joint of their skin, which they follow",
             (unsigned long long)rep->anchored, rep->anchor_name);
    note_add(o, text, "");
  } else if (rep->anchored) {
    snprintf(text, sizeof text,
             "glTF: %llu vertices have no weight: written with weight 1 on \"%.60s\", the node above their mesh's "
             "joints, which they follow as in the source (no bone moves them)",
             (unsigned long long)rep->anchored, rep->anchor_name);
    note_add(o, text, "");
  }
  if (rep->unweighted) {
    snprintf(
        text, sizeof text,
        "glTF: %llu vertices have no weight (and no node above their joints, or single root joint in their skin, to "
        "anchor them to): written with "
        "weights that sum to 0, which glTF does not allow (an engine puts them at the origin)",
        (unsigned long long)rep->unweighted);
    note_add(o, text, "");
  }
  if (rep->object_keys_dropped) {
    snprintf(text, sizeof text, "glTF: %u clip channel(s) of cameras, lights or empties not written (placed at rest)",
             rep->object_keys_dropped);
    note_add(o, text, "");
  }
  if (rep->roots_gathered)
    note_add(o,
             "glTF: a mesh binds joints under several roots: those roots were put under an added node \"Armature\" "
             "(glTF asks a skin's joints for a common root; nothing moves)",
             "");
  if (rep->duplicates_merged) { /* three.js writes what it is given, a joint twice in one vertex included */
    snprintf(text, sizeof text,
             "glTF: %llu influence(s) name a joint their vertex already has: added into it, as glTF allows a joint "
             "once per vertex",
             (unsigned long long)rep->duplicates_merged);
    note_add(o, text, "");
  }
}

/* Assimp's FBX and Collada writers carry no blend shapes: the first mesh that has some is named in the note. Binary
 * FBX gets them from fbx_shapes_write.c: `written` of them were, and only a shortfall is noted. */
static void note_morphs(const skio_scene* s, const skio_export_options* o, uint32_t written) {
  uint32_t meshes = 0, shapes = 0;
  const skio_mesh* first = NULL;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    if (!s->meshes[m].morph_count) continue;
    if (!first) first = &s->meshes[m];
    ++meshes;
    shapes += s->meshes[m].morph_count;
  }
  if (!first || written >= shapes) return;
  if (written) shapes -= written; /* (the first mesh named may be one that was written) */
  char text[240];
  snprintf(text, sizeof text,
           "%u blend shape(s) of %u mesh(es) (\"%.40s\" of mesh \"%.60s\"%s) not written: this "
           "writer has none (glTF keeps them as morph targets)",
           shapes, meshes, first->morph_names[0], first->name, shapes > 1 ? ", ..." : "");
  note_add(o, text, "");
}

/* A glTF source written by Assimp's FBX or Collada writer: what only glTF carries is not written - extensions
 * other than the encodings the reader decodes (quantization, meshopt, Draco, WebP and KTX2 image sources):
 * KHR_materials_*, KHR_texture_transform, lights, vendor ones; "extras" (application data on any object); cameras;
 * more than one scene (merged into the file's one).
 * The note names them (the in-place glTF edit keeps them all; empty nodes are written: scene_export_objects.c). */
/* The custom properties of the source's nodes (an FBX's user properties: skio_scene.user_props), which Assimp's
 * writers do not write, named with how many nodes have them. */
static void note_custom_props(const skio_scene* s, const skio_export_options* o) {
  const uint32_t n = s->user_prop_count + s->material_prop_count + s->mesh_prop_count;
  if (!n) return;
  const skio_user_prop* first = s->user_prop_count       ? &s->user_props[0]
                                : s->material_prop_count ? &s->material_props[0]
                                                         : &s->mesh_props[0];
  char whose[40] = ""; /* the kinds that have some: "nodes", "materials and meshes", ... */
  const uint32_t counts[3] = {s->user_prop_count, s->material_prop_count, s->mesh_prop_count};
  static const char* const k_kind[3] = {"nodes", "materials", "meshes"};
  for (int k = 0, left = (counts[0] > 0) + (counts[1] > 0) + (counts[2] > 0); k < 3; ++k) {
    if (!counts[k]) continue;
    const size_t at = strlen(whose);
    snprintf(whose + at, sizeof whose - at, "%s%s", at ? (--left == 0 ? " and " : ", ") : (--left, ""), k_kind[k]);
  }
  char text[320];
  snprintf(text, sizeof text,
           "%u custom propert%s of the source's %s (\"%.40s\" of \"%.40s\"%s) not written: this writer has none "
           "(.glb and .gltf keep them as extras)",
           n, n == 1 ? "y" : "ies", whose, first->key, first->node, n > 1 ? ", ..." : "");
  note_add(o, text, "");
}

/* Whether a primitive attribute is one skinkit's scene does not carry: a third UV set or more (TEXCOORD_2..), a second
 * colour set or more (COLOR_1..), an application's own attribute ("_FEATURE_ID_0", "_BATCHID"). */
static bool unread_attribute(const char* name) {
  if (!strncmp(name, "TEXCOORD_", 9)) return strtoul(name + 9, NULL, 10) >= 2;
  if (!strncmp(name, "COLOR_", 6)) return strtoul(name + 6, NULL, 10) >= 1;
  return name[0] == '_';
}

/* The primitives of document d with an attribute unread_attribute names. */
static uint32_t prims_with_unread_attributes(const skio_gltf_doc* d) {
  uint32_t n = 0;
  const int meshes = skio_json_get(d, 0, "meshes");
  for (int m = 0; m < skio_json_len(d, meshes); ++m) {
    const int prims = skio_json_get(d, skio_json_at(d, meshes, m), "primitives");
    for (int p = 0; p < skio_json_len(d, prims); ++p) {
      const int attrs = skio_json_get(d, skio_json_at(d, prims, p), "attributes");
      bool any = false;
      for (int k = 0, key; !any && (key = skio_json_key_at(d, attrs, k)) >= 0; ++k) {
        char* name = skio_json_strdup(d, key);
        any = name && unread_attribute(name);
        free(name);
      }
      n += any;
    }
  }
  return n;
}

/* lenses_kept: the writer writes the cameras and lights (Collada, binary FBX). */
static void note_gltf_only(const skio_scene* s, const skio_export_options* o, bool node_extras_kept, bool lenses_kept) {
  static const char* const k_read[] = {"KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_draco_mesh_compression",
                                       "EXT_texture_webp", "KHR_texture_basisu"};
  const skio_gltf_doc* d = s->gltf;
  if (!d) return;
  char text[360];
  size_t n = 0;
  int used = skio_json_get(d, 0, "extensionsUsed"), dropped = 0;
  for (int i = 0; i < skio_json_len(d, used) && n + 80 < sizeof text; ++i) {
    int t = skio_json_at(d, used, i);
    bool read = false;
    for (size_t k = 0; k < sizeof k_read / sizeof *k_read; ++k) read |= skio_json_streq(d, t, k_read[k]);
    read |= lenses_kept && skio_json_streq(d, t, "KHR_lights_punctual");
    /* the reader bakes texture transforms into the UVs, unless it noted a mesh whose textures disagree */
    read |= skio_json_streq(d, t, "KHR_texture_transform") &&
            !(s->material_note && strstr(s->material_note, "KHR_texture_transform"));
    char* name = read ? NULL : skio_json_strdup(d, t);
    if (name) n += (size_t)snprintf(text + n, sizeof text - n, "%s%.60s", dropped++ ? ", " : "extensions ", name);
    free(name);
  }
  uint32_t extras = 0;
  for (int t = 0; t + 1 < d->tok_count; ++t)
    extras += d->tok[t].type == 3 && d->tok[t].size == 1 && skio_json_streq(d, t, "extras");
  const int nodes = skio_json_get(d, 0, "nodes"); /* binary FBX writes the named nodes' extras (user properties) */
  static const char* const k_kept[2] = {"materials", "meshes"}; /* and the named materials' and meshes' */
  for (int l = 0; l < 2; ++l) { /* (Material and Geometry user properties; a mesh's targetNames: its shapes' names) */
    const int items = skio_json_get(d, 0, k_kept[l]);
    for (int i = 0; node_extras_kept && i < skio_json_len(d, items); ++i) {
      const int m = skio_json_at(d, items, i);
      extras -= extras && skio_json_get(d, m, "extras") >= 0 && skio_json_is(d, skio_json_get(d, m, "name"), 3);
    }
  }
  for (int i = 0; node_extras_kept && i < skio_json_len(d, nodes); ++i) {
    const int node = skio_json_at(d, nodes, i);
    extras -= extras && skio_json_get(d, node, "extras") >= 0 && skio_json_is(d, skio_json_get(d, node, "name"), 3);
  }
  const int cameras = lenses_kept ? 0 : skio_json_len(d, skio_json_get(d, 0, "cameras"));
  const int scenes = skio_json_len(d, skio_json_get(d, 0, "scenes"));
  if (scenes > 1 && n + 60 < sizeof text) /* Assimp's writers have one scene: every node goes into it */
    n += (size_t)snprintf(text + n, sizeof text - n, "%s%d scenes (merged into one)", n ? ", " : "", scenes);
  if (extras && n + 60 < sizeof text)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s\"extras\" of %u object(s)", n ? ", " : "", extras);
  if (cameras > 0 && n + 40 < sizeof text)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s%d camera(s)", n ? ", " : "", cameras);
  const uint32_t attrs = prims_with_unread_attributes(d);
  if (attrs && n + 100 < sizeof text)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "%sUV sets past the second, colour sets past the first or custom attributes of %u "
                          "primitive(s)",
                          n ? ", " : "", attrs);
  if (!n) return;
  char line[480];
  snprintf(line, sizeof line, "glTF-only content not written: %s", text);
  note_add(o, line, "");
}

/* The glTF editor and the Assimp writers take every part of a merged glTF mesh (skio_mesh.parts) as its own mesh
 * (skio_scene_split_parts); skinkit's own glTF writer writes the parts as primitives of one mesh. */
int skio_scene_export(const skio_scene* s, const char* path, const skio_export_options* opts, skc_err* err) {
  if (!s || !path) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and path must not be NULL");
  skio_scene view;
  int rc = skio_scene_split_parts(s, &view, err);
  if (rc) return rc;
  rc = export_view(s, &view, path, opts, err);
  skio_scene_parts_view_free(s, &view);
  return rc;
}

/* sc's meshes, one per mesh of s (build_mesh; plan: the bakes, made here), each with its material or the default
 * one (no_material); on a failure sc->mNumMeshes counts the meshes begun. */
static int build_scene_meshes(const skio_scene* s, const char* id, const skio_export_options* o, uint32_t limit,
                              const uint8_t* plain, uint32_t no_material, bake_plan* plan, struct aiScene* sc,
                              skc_err* err) {
  if (!(sc->mMeshes = calloc(s->mesh_count, sizeof *sc->mMeshes)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!bake_plan_make(s, id, plan)) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  const bool fbx_id = strcmp(id, "fbx") == 0;
  const bool all_bones = write_all_bones(s, id);
  /* FBX and Collada: each weightless bone in the first of the meshes binding it alike that lists it (number_bones) */
  bone_carry carry = {s, plan, NULL, NULL, 0};
  const bool share = s->skeleton && (fbx_id || strcmp(id, "collada") == 0);
  if (share) {
    carry.by = malloc(((size_t)s->skeleton->joint_count + 1) * sizeof *carry.by);
    carry.posed = calloc((size_t)s->mesh_count + 1, 1);
    if (!carry.by || !carry.posed) {
      free(carry.by), free(carry.posed);
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    }
  }
  for (uint32_t j = 0; share && j < s->skeleton->joint_count; ++j) carry.by[j] = -1;
  int rc = SKC_OK;
  for (uint32_t m = 0; m < s->mesh_count && !rc; ++m) {
    sc->mNumMeshes = m + 1;
    carry.mi = m;
    rc =
        build_mesh(s, m, o, limit, all_bones, fbx_id, fbx_id, plain, plan, share ? &carry : NULL, &sc->mMeshes[m], err);
    if (!rc)
      sc->mMeshes[m]->mMaterialIndex = s->meshes[m].material < s->material_count ? s->meshes[m].material : no_material;
  }
  free(carry.by);
  free(carry.posed);
  return rc;
}

/* sc's animations: Collada's clips on one timeline (*clips: where each lies, calloc'd here), else one aiAnimation
 * per writable clip, with its object channels (and shape key channels when shape_keys). */
static int build_scene_anims(const skio_scene* s, const char* id, bool shape_keys, skio_ai_objects* objs,
                             struct aiScene* sc, skio_clip** clips, skc_err* err) {
  int rc = SKC_OK;
  if (!(sc->mAnimations = calloc(s->anim_count, sizeof *sc->mAnimations)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (strcmp(id, "collada") == 0) { /* all clips on one timeline: skio_collada.h */
    if (!(*clips = calloc(s->anim_count, sizeof **clips))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    rc = build_timeline(s, &sc->mAnimations[0], *clips, err);
    sc->mNumAnimations = sc->mAnimations[0] ? 1 : 0;
    if (!rc) rc = skio_ai_object_timeline(s, objs, *clips, sc->mAnimations[0], &objs->keys_dropped, err);
    return rc;
  }
  for (uint32_t a = 0; a < s->anim_count; ++a) {
    const bool keyed = shape_keys && clip_keys_shapes(s, a);
    if (!clip_writable(s, objs, shape_keys, a)) continue;
    struct aiAnimation** aa = &sc->mAnimations[sc->mNumAnimations++];
    if ((rc = build_anim(s, a, aa, err)) || (rc = skio_ai_object_channels(s, a, objs, *aa, &objs->keys_dropped, err)) ||
        (keyed && (rc = put_morph_channels(s, a, *aa, err))))
      return rc;
  }
  return SKC_OK;
}

/* The built aiScene written to path: FBX by write_fbx (binary FBX notes the shapes it did not write), Collada by
 * write_collada under names Collada accepts. */
static int write_ai_scene(struct aiScene* sc, const skio_scene* s, const char* id, const char* path,
                          const skio_clip* clips, const skio_ai_objects* objs, const skio_ai_guard* guard,
                          const skio_export_options* o, skc_err* err) {
  int rc;
  if (strcmp(id, "fbx") == 0) {
    const skio_frame frame = skio_scene_declared_frame(s); /* the source's unit and axes (else metres, Y up) */
    uint32_t shapes = 0;
    rc = write_fbx(sc, &frame, s, objs, path, skio_export_fbx_ascii(o), guard, &shapes, err);
    if (!rc) note_morphs(s, o, shapes);
  } else { /* collada: assimp_write's callers pass no other id */
    name_list names;
    if (!(rc = collada_safe_names(sc, &names, err))) {
      rc = write_collada(sc, s, path, clips, s->anim_count, &names, objs, guard, err);
      free_names(&names);
    }
  }
  return rc;
}

/* Assimp's writers (FBX when the source cannot be edited in place, ASCII FBX, Collada) from scene s; o->note gets
 * what the format cannot carry. root_xf (NULL: identity): the transform of the aiScene's root node, from which
 * Assimp's Collada writer takes <up_axis> (its reader's Z_UP turn gives Z_UP). */
static int assimp_write_scene(const skio_scene* s, const char* id, const float* root_xf, const char* path,
                              const skio_export_options* opts, skc_err* err) {
  const skio_export_options o = *opts;
  const skio_ai_guard guard = {o.isolate, o.timeout_seconds};
  int rc = SKC_OK;
  const uint32_t limit = o.limit; /* FBX and Collada: weights as-is unless a limit was asked */
  skio_clip* clips = NULL;
  skio_staged_files staged = {0}; /* image files beside the output: renamed into place once it is written */
  bake_plan plan = {0};
  struct aiScene* sc = calloc(1, sizeof *sc);
  if (!sc) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  const bool fbx = strcmp(id, "fbx") == 0, collada = strcmp(id, "collada") == 0;
  uint8_t* plain_mask = s->skeleton ? calloc(s->skeleton->joint_count + 1, 1) : NULL;
  if (s->skeleton && !plain_mask) {
    free(sc);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  bool plain_any = plain_mask && (fbx || collada) && mesh_joints_plain(s, plain_mask);
  if (plain_mask) plain_any |= plain_roots(s, id, plain_mask);
  const uint8_t* plain = plain_any ? plain_mask : NULL;
  skio_ai_objects objs = {0};
  float doc_frame[16];
  if (root_xf && !skc_mat4_inverse(root_xf, doc_frame)) skc_mat4_identity(doc_frame);
  if ((rc = build_nodes(s, sc, (fbx && !implicit_fbx_root(s)) || collada, !fbx, plain, err)) ||
      (rc = skio_ai_object_nodes(s, sc->mRootNode, root_xf ? doc_frame : NULL, collada,
                                 collada ? SKIO_LENSES_COLLADA
                                 : fbx   ? SKIO_LENSES_FBX
                                         : SKIO_LENSES_NONE,
                                 &objs, err)))
    goto done;
  sc->mCameras = objs.cams, sc->mNumCameras = objs.cam_count; /* owned by objs */
  sc->mLights = objs.lamps, sc->mNumLights = objs.lamp_count;
  if (root_xf && sc->mRootNode) skio_mat_to_ai(root_xf, &sc->mRootNode->mTransformation.a1);
  /* materials from the scene's table (scene_material.c), with a default one for meshes without; image files
   * beside the output; what the format cannot carry goes to the note */
  uint32_t no_material = 0;
  if (o.note && o.note_size) o.note[0] = 0;
  if ((rc = skio_ai_materials(s, id, path, o.overwrite, &sc->mMaterials, &sc->mNumMaterials, &no_material, &staged,
                              o.note, o.note_size, err)))
    goto done;
  if (strcmp(id, "fbx") != 0) note_morphs(s, &o, 0); /* binary FBX: after writing, the shapes not written */
  note_gltf_only(s, &o, strcmp(id, "fbx") == 0, collada || fbx);
  if (strcmp(id, "fbx") != 0 && !s->gltf) note_custom_props(s, &o); /* a glTF's: its extras note */
  if ((rc = build_scene_meshes(s, id, &o, limit, plain, no_material, &plan, sc, err))) goto done;
  bool any_channel = false;
  const bool shape_keys = strcmp(id, "fbx") == 0; /* binary FBX writes blend shape keys (fbx_shapes_write.c) */
  for (uint32_t a = 0; a < s->anim_count; ++a) any_channel |= clip_writable(s, &objs, shape_keys, a);
  if (any_channel && s->skeleton && (rc = build_scene_anims(s, id, shape_keys, &objs, sc, &clips, err))) goto done;
  note_objects_written(s, &objs, collada, shape_keys, &o);
  note_clips_unwritten(s, &objs, collada, any_channel, shape_keys, &o);
  rc = write_ai_scene(sc, s, id, path, clips, &objs, &guard, &o, err);
done:
  if (rc == SKC_OK)
    skio_staged_commit(&staged, o.note, o.note_size);
  else
    skio_staged_abort(&staged);
  skio_ai_objects_free(&objs);
  bake_plan_free(&plan);
  free(plain_mask);
  free(clips);
  free_ai_scene(sc);
  return rc;
}

/* The shared inverse binds (ib: the skeleton's, one per joint, adjusted in place) made to agree with every mesh up to
 * one transform per mesh. A quantized glTF folds each mesh's dequantization D into its own skin (gltf-transform
 * quantize, gltfpack), so a mesh's inverse binds are IB(j) D, and the shared table holds, per joint, those of the skin
 * that lists it first: a mesh whose own entries are in it beside entries from another skin found the identity for
 * the first and X = D'^-1 D for the others (refused: "no single mesh transform explains"). Each such mesh's own
 * entries become IB(j) D X^-1, in the others' frame. Only a mesh that common_rebind would refuse changes (X past its
 * tolerance); returns whether any did. */
static bool carry_first_binds(const skio_scene* s, float* ib) {
  const skc_skeleton* sk = s->skeleton;
  bool changed = false;
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) {
    const skio_mesh* m = &s->meshes[mi];
    if (!m->skin || !m->bound || !m->inverse_bind) continue;
    float x[16], inv[16], xinv[16], id4[16];
    bool have = false, own = false;
    for (uint32_t j = 0; j < sk->joint_count; ++j) {
      if (!m->bound[j]) continue;
      const float* mine = m->inverse_bind + (size_t)j * 16;
      if (skc_mat4_max_abs_diff(mine, ib + (size_t)j * 16) <= 1e-6f)
        own = true;
      else if (!have && skc_mat4_inverse(ib + (size_t)j * 16, inv))
        skc_mat4_mul(inv, mine, x), have = true;
    }
    skc_mat4_identity(id4);
    if (!own || !have || skc_mat4_max_abs_diff(x, id4) <= 1e-4f * (1.0f + fabsf(x[12]) + fabsf(x[13]) + fabsf(x[14])) ||
        !skc_mat4_inverse(x, xinv))
      continue;
    for (uint32_t j = 0; j < sk->joint_count; ++j) {
      const float* mine = m->inverse_bind + (size_t)j * 16;
      if (m->bound[j] && skc_mat4_max_abs_diff(mine, ib + (size_t)j * 16) <= 1e-6f)
        skc_mat4_mul(mine, xinv, ib + (size_t)j * 16), changed = true;
    }
  }
  return changed;
}

/* Frees what rigid_view made. */
static void rigid_view_free(const skio_scene* s, skio_scene* v) {
  for (uint32_t m = 0; v->meshes != s->meshes && m < v->mesh_count; ++m)
    if (v->meshes[m].skin != s->meshes[m].skin) {
      skc_skin_destroy(v->meshes[m].skin);
      free(v->meshes[m].inverse_bind);
      free(v->meshes[m].bound);
    }
  if (v->meshes != s->meshes) free(v->meshes);
}

/* Collada: the meshes mesh_nodes leaves at the root though they hang from a bone (a keyed node above the bones that no
 * skin lists: Blender's Collada importer drops a node under a JOINT, and at the root the mesh stood still while the
 * joint moved) bound rigidly to that joint in a copy of the meshes, as the readers bind a mesh parented to a bone:
 * it moves with it. *rigid: whether any was (v then holds the copy; rigid_view_free). */
static int rigid_view(const skio_scene* s, skio_scene* v, bool* rigid, skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  *v = *s;
  *rigid = false;
  if (!sk || !any_skinned(s)) return SKC_OK; /* no JOINT: mesh_nodes hangs such a mesh under its NODE */
  uint8_t* mask = calloc(sk->joint_count + 1, 1);
  skio_mesh* meshes = malloc(((size_t)s->mesh_count + 1) * sizeof *meshes);
  if (!mask || !meshes) {
    free(mask), free(meshes);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  mesh_joints_plain(s, mask);
  plain_roots(s, "collada", mask);
  if (s->mesh_count) memcpy(meshes, s->meshes, (size_t)s->mesh_count * sizeof *meshes);
  int rc = SKC_OK;
  for (uint32_t m = 0; m < s->mesh_count && !rc; ++m) {
    const int32_t pj = meshes[m].parent_joint;
    if (meshes[m].skin || pj < 0 || (uint32_t)pj >= sk->joint_count || mask[pj]) continue;
    meshes[m].inverse_bind = NULL, meshes[m].bound = NULL;
    skc_err e = {0}; /* a singular rest: the mesh stays at the root, as before */
    const int r = skio_mesh_bind_rigid(s, &meshes[m], (uint32_t)pj, &e);
    if (r == SKC_OK)
      meshes[m].parent_joint = -1, *rigid = true;
    else if (r != SKC_SINGULAR_MATRIX)
      rc = skc_fail(err, r, "%s", e.message);
  }
  free(mask);
  v->meshes = meshes;
  if (rc || !*rigid) {
    rigid_view_free(s, v);
    *v = *s;
  }
  return rc;
}

/* assimp_write_scene of s, or of a view whose skeleton's inverse binds carry_first_binds adjusted. */
static int assimp_write_binds(const skio_scene* s, const char* id, const float* root_xf, const char* path,
                              const skio_export_options* opts, skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  float* ib = sk ? malloc((size_t)sk->joint_count * 16 * sizeof *ib + 1) : NULL;
  if (sk && !ib) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (ib) memcpy(ib, sk->inverse_bind, (size_t)sk->joint_count * 16 * sizeof *ib);
  if (!ib || !carry_first_binds(s, ib)) {
    free(ib);
    return assimp_write_scene(s, id, root_xf, path, opts, err);
  }
  skc_skeleton_init init = {
      sk->joint_count, (const char* const*)sk->names, sk->parents, sk->rest_local, NULL, ib, NULL};
  skio_scene view = *s;
  skc_skeleton* carried = NULL;
  int rc = skc_skeleton_create(&init, &carried, err);
  free(ib);
  if (rc) return rc;
  view.skeleton = carried;
  rc = assimp_write_scene(&view, id, root_xf, path, opts, err);
  skc_skeleton_destroy(carried);
  return rc;
}

/* Whether joint j of s is bound by a mesh with a skin that is no rigid attachment (which keeps it a LimbNode). */
static bool bound_by_a_skin(const skio_scene* s, uint32_t j) {
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    const skio_mesh* me = &s->meshes[m];
    if (me->skin && me->bound && me->bound[j] && !skio_mesh_still_rigid(me)) return true;
  }
  return false;
}

/* FBX: the rigid attachments (skio_mesh.rigid_joint, a sword parented to a hand bone, its skin still that one-joint
 * skin) without their skin in a copy of the meshes, hung from their bone (parent_joint), as Blender's and Maya's
 * exporters write them (session 74): mesh_nodes puts the Model under the bone's LimbNode with its own transform
 * (own_node_space), and readers parent it to the bone again instead of making a one-joint skin. Its vertices are
 * in the bind space; where the bone's rest is not its bind (X = rest_world(j) IB(j) != I, a Collada source) they
 * and its node transform are moved by X into the world (copies). Only where some other skin binds the bone (it stays
 * a LimbNode) and X is no mirror. *any: whether any was (v then holds the copy: bone_children_free). */
static void bone_children_free(const skio_scene* s, skio_scene* v) {
  for (uint32_t m = 0; v->meshes != s->meshes && m < s->mesh_count; ++m) {
    const skio_mesh *a = &v->meshes[m], *b = &s->meshes[m];
    if (a->positions == b->positions) continue;
    free(a->positions), free(a->normals), free(a->tangents), free(a->morph_positions), free(a->morph_normals);
  }
  if (v->meshes != s->meshes) free(v->meshes);
  v->meshes = s->meshes;
}

/* Copies of mesh vm's vertex streams moved by x (no mirror: the winding stays), its node transform with them. false:
 * out of memory (vm's arrays then copies or NULL, which bone_children_free frees). */
static bool moved_copy(skio_mesh* vm, const float x[16]) {
  const size_t V = vm->vertex_count, T = (size_t)vm->morph_count * V;
  const float* src[5] = {vm->positions, vm->normals, vm->tangents, vm->morph_positions, vm->morph_normals};
  const size_t n[5] = {V * 3, V * 3, V * 4, T * 3, T * 3};
  float** dst[5] = {&vm->positions, &vm->normals, &vm->tangents, &vm->morph_positions, &vm->morph_normals};
  for (int k = 0; k < 5; ++k) *dst[k] = NULL;
  for (int k = 0; k < 5; ++k) {
    if (!src[k]) continue;
    if (!(*dst[k] = malloc(n[k] * sizeof(float) + 1))) return false;
    memcpy(*dst[k], src[k], n[k] * sizeof(float));
  }
  float placed[16];
  if (vm->placed_set)
    memcpy(placed, vm->placed, sizeof placed);
  else
    skc_mat4_identity(placed);
  skc_mat4_mul(x, placed, vm->placed);
  vm->placed_set = true;
  return skio_mesh_transform(vm, x, NULL) == SKC_OK;
}

static int bone_children_view(const skio_scene* s, skio_scene* v, bool* any, skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  *v = *s;
  *any = false;
  for (uint32_t m = 0; sk && m < s->mesh_count; ++m) {
    const skio_mesh* me = &s->meshes[m];
    const int32_t j = me->rigid_joint;
    if (!skio_mesh_still_rigid(me) || !me->inverse_bind || j < 0 || (uint32_t)j >= sk->joint_count ||
        !bound_by_a_skin(s, (uint32_t)j))
      continue;
    float x[16], id4[16];
    skc_mat4_mul(sk->rest_world + (size_t)j * 16, me->inverse_bind + (size_t)j * 16, x);
    skc_mat4_identity(id4);
    const bool moved = !(skc_mat4_max_abs_diff(x, id4) <= 1e-6f * (1.0f + fabsf(x[12]) + fabsf(x[13]) + fabsf(x[14])));
    if (moved && (!skc_mat4_is_finite(x) || skc_mat3_det_of_mat4(x) <= 0.0f)) continue;
    if (!*any && !(v->meshes = malloc(((size_t)s->mesh_count + 1) * sizeof *v->meshes)))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    if (!*any) memcpy(v->meshes, s->meshes, (size_t)s->mesh_count * sizeof *v->meshes);
    *any = true;
    skio_mesh* vm = &v->meshes[m]; /* borrowed arrays (moved: copies); skin and binds dropped, not freed */
    if (moved && !moved_copy(vm, x)) {
      bone_children_free(s, v);
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    }
    vm->skin = NULL, vm->inverse_bind = NULL, vm->bound = NULL, vm->read_skin = NULL;
    vm->bone_count = 0;
    vm->rigid_joint = -1;
    vm->parent_joint = j;
  }
  return SKC_OK;
}

/* assimp_write_binds of s, for Collada of its rigid_view. */
static int assimp_write(const skio_scene* s, const char* id, const float* root_xf, const char* path,
                        const skio_export_options* opts, skc_err* err) {
  const skc_skeleton* sk = s->skeleton; /* the aiScene is at least as deep: refused before it is built */
  if (sk && skio_parents_deeper_than(sk->parents, sk->joint_count, SKIO_AI_EXPORT_MAX_DEPTH))
    return skio_ai_too_deep(path, id, err);
  /* A mesh without vertices (an IQM mesh of 0 vertices reads as one) made Assimp's exporters free the arrays it
   * holds: its scene copy shares per-vertex arrays it does not copy when there are no vertices, then deletes them
   * (a double free: SIGSEGV writing .dae, heap corruption writing .fbx). Refused as the glTF writer does. */
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi)
    if (!s->meshes[mi].positions || s->meshes[mi].vertex_count == 0)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: mesh %u \"%s\" has no positions", path, mi,
                      s->meshes[mi].name ? s->meshes[mi].name : "");
  if (strcmp(id, "collada") != 0) return assimp_write_binds(s, id, root_xf, path, opts, err);
  skio_scene v;
  bool rigid = false;
  int rc = rigid_view(s, &v, &rigid, err);
  if (!rc) rc = assimp_write_binds(rigid ? &v : s, id, root_xf, path, opts, err);
  if (rigid) rigid_view_free(s, &v);
  return rc;
}

/* The glTF writers' options from o, with grep as their report. */
static void gltf_write_options(const skio_export_options* o, skio_gltf_options* go, skio_gltf_report* grep) {
  go->as_is = o->keep_all;
  go->normalize = o->normalize;
  go->limit = o->limit ? o->limit : (o->keep_all ? 0u : 4u);
  go->limit_to_source = !o->limit && !o->keep_all;
  go->report = grep;
  go->prune = o->prune;
  go->replace_bin = o->overwrite;
  go->note = o->note; /* images the writer leaves out are appended */
  go->note_size = o->note_size;
}

/* A glTF source edited in place (skio_gltf_edit.h): SKIO_GLTF_EDIT_CANNOT when it cannot be, with o's note saying
 * why the scene is written whole instead (and grep cleared). */
static int edit_gltf_source(const skio_scene* s, const char* id, const char* path, skio_export_options* o,
                            const skio_gltf_options* go, skio_gltf_report* grep, char why[200], skc_err* err) {
  skio_gltf_edit_options eo = {.weights_type = (skio_weights_type)o->weights_type,
                               .replace_files = o->overwrite,
                               .note = o->note,
                               .note_size = o->note_size};
  int rc = skio_gltf_edit_scene(s, path, strcmp(id, "glb2") == 0, go, &eo, why, 200, err);
  if (rc == SKC_OK) note_weights(o, grep, "more influences than their primitive holds (4 per JOINTS_n set)");
  if (rc != SKIO_GLTF_EDIT_CANNOT) return rc;
  memset(grep, 0, sizeof *grep);
  if (o->note && o->note_size)
    snprintf(o->note, o->note_size,
             "written from the scene (materials, textures, images, morph targets and their clips, clips, "
             "cameras, lights, empties and the nodes' extras kept; other \"extras\", the asset's copyright, the "
             "scenes' and skins' names, clips of mesh nodes, texture "
             "samplers and transforms, UV sets past the second, colour sets past the first, custom attributes "
             "and the source's other extensions are not): %s",
             why);
  return rc;
}

/* skinkit's glTF writer (skio_gltf_write) of the merged scene, from a view without an FBX or Collada root, its
 * objects listed, in glTF's frame. */
static int write_gltf_scene(const skio_scene* merged, const skio_scene* s, const char* id, const char* path,
                            const skio_gltf_options* go, skc_err* err) {
  int rc;
  /* an FBX's implicit root (Assimp's RootNode) and a Collada file's visual scene are no nodes of the glTF either */
  skio_scene rootless, baked;
  const bool drop = !s->gltf && (implicit_fbx_root(merged) || collada_scene_root(merged));
  if (drop && (rc = drop_turned_root(merged, &baked, &rootless, err))) return rc;
  skio_scene listed; /* a glTF source's cameras, lights and empties live in its document: listed as objects */
  skio_listed_object* list = NULL;
  uint32_t listed_n = 0;
  if (!drop && (rc = skio_scene_listed_view(merged, &listed, &list, &listed_n, err))) return rc;
  const skio_scene* ready = drop ? &rootless : &listed;
  skio_scene framed; /* glTF is in metres, Y up: an FBX source's unit and axes are converted (scene_frame.c) */
  if (!(rc = skio_scene_frame_view(ready, &framed, err))) {
    rc = skio_gltf_write(&framed, path, strcmp(id, "glb2") == 0, go, err);
    skio_scene_frame_view_free(ready, &framed);
  }
  if (drop)
    drop_turned_root_free(merged, &baked, &rootless);
  else
    skio_scene_listed_view_free(&listed, list, listed_n);
  return rc;
}

/* Whether document d is a VRM avatar's: its humanoid, expressions, look-at and spring bones are the top-level
 * extension "VRM" (VRM 0.x) or "VRMC_vrm" (1.0, spring bones in "VRMC_springBone"). */
static bool vrm_document(const skio_gltf_doc* d) {
  const int ext = d ? skio_json_get(d, 0, "extensions") : -1;
  return ext >= 0 && (skio_json_get(d, ext, "VRM") >= 0 || skio_json_get(d, ext, "VRMC_vrm") >= 0);
}

/* A .glb / .gltf: a glTF source edited in place, else the scene written by skinkit's glTF writer. A .vrm: a VRM
 * source edited in place or nothing (a .vrm without the source's VRM extension would be no avatar). */
static int export_gltf(const skio_scene* merged, const skio_scene* s, const char* id, const char* path,
                       skio_export_options* o, skc_err* err) {
  /* glTF: our own writer (io/skio_gltf.h). Default as the issue asks: the 4 largest, sorted, renormalized;
   * a limit writes up to N (JOINTS_1/WEIGHTS_1... past 4), as_is every influence unchanged. */
  skio_gltf_options go = {0};
  skio_gltf_report grep = {0};
  gltf_write_options(o, &go, &grep);
  if (o->note && o->note_size) o->note[0] = 0;
  if (go.as_is && (go.normalize || o->limit)) /* the same refusal whichever glTF writer runs */
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: writing weights as-is contradicts normalize or a limit", path);
  const bool vrm = skio_path_is_vrm(path);
  if (vrm && !vrm_document(s->gltf))
    return skc_fail(err, SKC_UNSUPPORTED,
                    "%s: a .vrm is written only as an edit of a VRM file (its humanoid, expressions and spring bones "
                    "are the source's VRM extension, which %s does not have): write .glb",
                    path, s->gltf ? "this glTF source" : "a source not read as glTF");
  if (s->gltf) { /* read by skinkit's glTF reader: edit that document in place (skio_gltf_edit.h) */
    char why[200] = "";
    const int rc = edit_gltf_source(s, id, path, o, &go, &grep, why, err);
    if (rc != SKIO_GLTF_EDIT_CANNOT) return rc;
    if (vrm)
      return skc_fail(err, SKC_UNSUPPORTED,
                      "%s: the VRM source cannot be edited in place (%s), and a .vrm is written no other way: write "
                      ".glb (a glTF without the VRM extension)",
                      path, why);
  }
  const int rc = write_gltf_scene(merged, s, id, path, &go, err);
  if (rc) return rc;
  note_weights(o, &grep, "more than 4 influences");
  note_read_losses(s, o->note, o->note_size);
  return SKC_OK;
}

/* FBX through Assimp (assimp_write), from a view without a Collada file's visual scene and with a moved armature
 * object held at the identity. */
static int export_assimp_fbx(const skio_scene* s, const char* id, const char* path, const skio_export_options* o,
                             skc_err* err) {
  int rc;
  skio_scene rootless, baked, held; /* held: a moved armature object a plain node at the identity, its children moved */
  const bool drop = collada_scene_root(s); /* a Collada file's visual scene: no FBX node either */
  if (drop && (rc = drop_turned_root(s, &baked, &rootless, err))) return rc;
  const skio_scene* ready = drop ? &rootless : s;
  if (!(rc = skio_scene_held_root_view(ready, &held, err))) {
    skio_scene hung; /* rigid attachments under their bones */
    bool any = false;
    if (!(rc = bone_children_view(&held, &hung, &any, err)))
      rc = assimp_write(any ? &hung : &held, id, NULL, path, o, err);
    if (any) bone_children_free(&held, &hung);
    skio_scene_frame_view_free(ready, &held);
  }
  if (drop) drop_turned_root_free(s, &baked, &rootless);
  return rc;
}

/* Collada through Assimp (assimp_write), from a view turned to Z up. */
static int export_assimp_collada(const skio_scene* s, const char* id, const char* path, const skio_export_options* o,
                                 skc_err* err) {
  /* Collada: metres, Z up, <up_axis>Z_UP</up_axis>, as Blender writes it. Blender 3.4's Collada importer ignores
   * <unit> by default and reads a Z_UP document's numbers as they are, while from a Y_UP one it turned the
   * skinned meshes but left a mesh without skin (a prop) lying on its side; Assimp's reader turns Z_UP back to Y
   * up. So the scene is written from a view in glTF's frame turned to Z up (C: (x, y, z) -> (x, -z, y)), with the
   * aiScene root holding C^-1, the turn from which Assimp's writer names Z_UP (scene_frame.c). An FBX's implicit
   * root is left out as for glTF (Blender's bones cannot carry its unit scale), also at 1 m and Y up (session 74):
   * written as a <node> "RootNode" it came back as a joint, and every fbx -> dae -> fbx cycle added one above the
   * armature (with the scene root the FBX writer keeps above keyed children: 2 joints a cycle, huesitos.fbx). A
   * glTF's own node "RootNode" (quad_skin.glb) stays. */
  static const float k_to_zup[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1};
  static const float k_from_zup[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
  int rc;
  skio_scene rootless, framed;
  float g[16];
  const bool fbx_source = s->source_file.set && s->source_file.kind == SKIO_SOURCE_FBX;
  const bool drop = implicit_fbx_root(s) && (fbx_source || skio_frame_matrix(&s->frame, g));
  if (drop && (rc = skio_scene_drop_root(s, &rootless, err))) return rc;
  const skio_scene* ready = drop ? &rootless : s;
  if (!(rc = skio_scene_frame_view_to(ready, k_to_zup, true, &framed, err))) {
    rc = assimp_write(&framed, id, k_from_zup, path, o, err);
    skio_scene_frame_view_free(ready, &framed);
  }
  if (drop) skio_scene_drop_root_free(s, &rootless);
  return rc;
}

/* The notes of a file Assimp wrote: what reading lost, and why the source was not edited in place (fbx_why,
 * dae_why: "" when not tried). */
static void note_assimp_written(const skio_scene* s, const skio_export_options* o, const char* fbx_why,
                                const char* dae_why) {
  note_read_losses(s, o->note, o->note_size);
  if (dae_why[0])
    note_add(o,
             "Collada written whole by Assimp, not edited in place (a vertex per triangle corner; <extra> data "
             "such as Blender's bone tips and layers lost): ",
             dae_why);
  if (fbx_why[0])
    note_add(o,
             "FBX written whole by Assimp, not edited in place (triangles, a control point per corner; blend "
             "shapes and custom properties lost): ",
             fbx_why);
}

static int export_view(const skio_scene* merged, const skio_scene* view, const char* path,
                       const skio_export_options* opts, skc_err* err) {
  const skio_scene* s = view;
  skio_export_options o = {0};
  if (opts) o = *opts;
  const char* id = NULL;
  int rc = skio_export_format(path, o.format, &id, NULL, err);
  if (rc) return rc;
  if (strcmp(id, "fbxa") == 0) id = "fbx"; /* ASCII FBX: the binary file, turned into text as it is written */
  if (s->mesh_count == 0 && !s->skeleton)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: scene has no mesh and no skeleton to write", path);
  if (strcmp(id, "glb2") == 0 || strcmp(id, "gltf2") == 0) return export_gltf(merged, s, id, path, &o, err);
  char fbx_why[200] = ""; /* why a binary FBX source could not be edited in place */
  if (strcmp(id, "fbx") == 0 && merged->source_file.kind == SKIO_SOURCE_FBX) {
    if (o.note && o.note_size) o.note[0] = 0;
    rc = skio_scene_fbx_edit(merged, path, &o, fbx_why, sizeof fbx_why, err);
    if (rc == SKC_OK) skio_scene_copy_images(merged, path, o.note, o.note_size);
    if (rc != SKIO_FBX_EDIT_CANNOT) return rc;
    rc = SKC_OK;
  }
  char dae_why[200] = ""; /* why a Collada source could not be edited in place */
  if (strcmp(id, "collada") == 0 && merged->source_file.kind == SKIO_SOURCE_COLLADA) {
    if (o.note && o.note_size) o.note[0] = 0;
    rc = skio_scene_dae_edit(merged, path, &o, dae_why, sizeof dae_why, err);
    if (rc == SKC_OK) skio_scene_copy_images(merged, path, o.note, o.note_size);
    if (rc != SKIO_DAE_EDIT_CANNOT) return rc;
    rc = SKC_OK;
  }
  const bool fbx = strcmp(id, "fbx") == 0;
  if (fbx)
    rc = export_assimp_fbx(s, id, path, &o, err);
  else
    rc = export_assimp_collada(s, id, path, &o, err);
  if (!rc) note_assimp_written(s, &o, fbx_why, dae_why);
  return rc;
}
