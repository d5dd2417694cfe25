/* scene_deform.c - the deform joints of a scene (skio_scene_deform_joints, skio_scene.h).
 *
 * Rule 1, some skin lists a joint: the joints some mesh's skin lists (skio_mesh.bound: the file's aiBones or glTF
 * skin joints; for a scene built in memory, the joints some vertex names). The file's own statement of which nodes
 * deform wins over any guess - except for the wrappers of rule 2 that a skin lists and no vertex weights (writers
 * that list every skeleton node in each skin, skinkit's glTF writer among them, list the scene root and the
 * armature object too). A skin may list bones that do not deform (Blender's glTF and FBX exporters list every bone:
 * IK targets, poles, control bones), and weights that leave a listed joint out are no proof (a mesh weighted to the
 * thigh alone, waiting for a bind), so only Rigify's naming (below) narrows the list.
 * Rule 2, no skin lists a joint (a bare skeleton, an armature beside unskinned meshes): every joint except
 *  - wrappers: a joint whose ancestors are all wrappers (the top of the tree) and whose name is an importer's
 *    synthetic root or scene root (RootNode, ROOT, Scene, Z_UP, Y_UP, <MD5_Root>, <MD5_Mesh>, <MD5_Hierarchy>) or an
 *    armature object (Armature, Armature.001, Rig, Rig_2 ...: "armature" or "rig" then nothing or a non-letter;
 *    any name ending in "_rig"); case-insensitive;
 *  - the scene root: the skeleton's only root joint when a child of it is named as above (it holds the armature
 *    object, it is not a bone);
 *  - nodes that carry a mesh (glTF: the node that instances a mesh primitive; a skeleton built from the nodes on
 *    the Assimp path: skio_scene.joint_mesh).
 * When that leaves no joint (every node a wrapper), every joint deforms.
 * Either rule, a Rigify rig (DEF-* joints beside ORG-* or MCH-* ones): only its DEF-* joints deform. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "skio_scene.h"

bool skio_wrapper_name(const char* nm) {
  if (!nm) return false;
  static const char* const k_roots[] = {"RootNode", "ROOT",      "Scene",         "Z_UP",
                                        "Y_UP",     "<MD5_Root>", "<MD5_Mesh>", "<MD5_Hierarchy>"};
  for (size_t k = 0; k < sizeof k_roots / sizeof *k_roots; ++k)
    if (strcasecmp(nm, k_roots[k]) == 0) return true;
  if (strncasecmp(nm, "armature", 8) == 0 && !isalpha((unsigned char)nm[8])) return true;
  if (strncasecmp(nm, "rig", 3) == 0 && !isalpha((unsigned char)nm[3])) return true;
  size_t len = strlen(nm);
  return len >= 4 && strcasecmp(nm + len - 4, "_rig") == 0;
}

bool skio_chain_wrapper_name(const char* nm) {
  return skio_wrapper_name(nm) && (strcasecmp(nm, "root") != 0 || strcmp(nm, "ROOT") == 0);
}

/* carries[j] = 1 when joint j's node instances a mesh (known for glTF read by skinkit's reader and for skeletons
 * built from the nodes). Through a node -> joint map, so the work is joints + meshes. 1 when out of memory. */
static int mesh_nodes(const skio_scene* s, uint8_t* carries) {
  uint32_t jc = s->skeleton->joint_count;
  if (s->joint_mesh) memcpy(carries, s->joint_mesh, jc);
  if (!s->gltf || !s->joint_node) return 0;
  int32_t top = -1;
  for (uint32_t j = 0; j < jc; ++j)
    if (s->joint_node[j] > top) top = s->joint_node[j];
  if (top < 0) return 0;
  int32_t* joint_of = malloc(((size_t)top + 1) * sizeof *joint_of);
  if (!joint_of) return 1;
  for (int32_t n = 0; n <= top; ++n) joint_of[n] = -1;
  for (uint32_t j = 0; j < jc; ++j)
    if (s->joint_node[j] >= 0) joint_of[s->joint_node[j]] = (int32_t)j;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    int32_t node = s->meshes[m].gltf_node;
    if (node >= 0 && node <= top && joint_of[node] >= 0) carries[joint_of[node]] = 1;
  }
  free(joint_of);
  return 0;
}

int skio_scene_mesh_joints(const skio_scene* s, uint8_t* carries) {
  if (!s->skeleton) return 0;
  memset(carries, 0, s->skeleton->joint_count);
  return mesh_nodes(s, carries);
}

static uint32_t by_skins(const skio_scene* s, uint8_t* mask) {
  uint32_t jc = s->skeleton->joint_count, n = 0;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    const skio_mesh* me = &s->meshes[m];
    if (!me->skin || !me->bound) continue;
    for (uint32_t j = 0; j < jc; ++j) mask[j] |= me->bound[j] != 0;
  }
  for (uint32_t j = 0; j < jc; ++j) n += mask[j];
  return n;
}

/* Rigify's rigs name their deforming bones DEF-*, beside ORG-* (the metarig's bones) and MCH-* (mechanism) and
 * controls, none of which deform; glTF and FBX keep no deform flag, and Blender's exporters list every bone. When
 * the skeleton has DEF-* joints and ORG-* or MCH-* ones, only the DEF-* joints of mask stay (unless none is in it);
 * returns the count. */
static uint32_t rigify_deform(const skc_skeleton* sk, uint8_t* mask, uint32_t n) {
  uint32_t def = 0, other = 0, kept = 0;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    const char* nm = sk->names[j] ? sk->names[j] : "";
    const bool is_def = !strncmp(nm, "DEF-", 4);
    def += is_def;
    other += !strncmp(nm, "ORG-", 4) || !strncmp(nm, "MCH-", 4);
    kept += is_def && mask[j];
  }
  if (!def || !other || !kept) return n;
  for (uint32_t j = 0; j < sk->joint_count; ++j) mask[j] = mask[j] && sk->names[j] && !strncmp(sk->names[j], "DEF-", 4);
  return kept;
}

/* wrap[j] = 1 for the wrappers of rule 2 (jc bytes): wrapper names at the top of the tree, and the scene root. */
static void wrappers(const skc_skeleton* sk, uint8_t* wrap) {
  uint32_t jc = sk->joint_count, roots = 0;
  for (uint32_t j = 0; j < jc; ++j) {
    wrap[j] = skio_wrapper_name(sk->names[j]);
    roots += sk->parents[j] < 0;
  }
  for (uint32_t j = 0; roots == 1 && j < jc; ++j) { /* a lone root holding a wrapper is the scene root */
    int32_t p = sk->parents[j];
    if (p >= 0 && sk->parents[p] < 0 && wrap[j]) wrap[p] = 1;
  }
  for (uint32_t j = 0; j < jc; ++j) { /* parents come first: a wrapper only below wrappers */
    int32_t p = sk->parents[j];
    if (p >= 0 && !wrap[p]) wrap[j] = 0;
  }
}

/* Rule 2 into mask; returns the count. wrap[] and carries[] are jc zeroed scratch bytes, carries[] filled. */
static uint32_t by_hierarchy(const skio_scene* s, uint8_t* mask, uint8_t* wrap, const uint8_t* carries) {
  const skc_skeleton* sk = s->skeleton;
  uint32_t jc = sk->joint_count, n = 0;
  wrappers(sk, wrap);
  for (uint32_t j = 0; j < jc; ++j) {
    mask[j] = !wrap[j] && !carries[j];
    n += mask[j];
  }
  return n;
}

/* Blender's glTF exporter gives the vertices in no deform group weight 1 on a joint "neutral_bone" it adds (a
 * childless node under the armature object): such a joint, for wrap[] (see drop_idle_wrappers). */
static bool neutral_name(const char* nm) { return nm && strcmp(nm, "neutral_bone") == 0; }

static void neutral_bones(const skc_skeleton* sk, uint8_t* wrap) {
  for (uint32_t j = 0; j < sk->joint_count; ++j)
    if (neutral_name(sk->names[j])) wrap[j] = 1;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    const int32_t p = sk->parents[j];
    if (p >= 0 && (uint32_t)p < sk->joint_count && neutral_name(sk->names[p])) wrap[p] = 0; /* a bone with children */
  }
}

/* Rule 1's exception: a wrapper (rule 2's, or Blender's "neutral_bone") that a skin lists but that no vertex blends
 * with another joint is no bone - a writer that lists every node of the skeleton in each skin (skinkit's own glTF
 * writer, for Blender's and Assimp's sake) lists the scene root and the armature object too, and the vertices
 * without weight in the source hold weight 1 on the armature object (skinkit's glTF writer) or on the neutral bone
 * (Blender's): they follow it, no bone. A wrapper some vertex weights below 1 or beside another joint is a bone,
 * whatever its name, and so is a "root" that some vertex holds (skio_chain_wrapper_name). Cleared
 * from mask unless that would leave nothing; returns the count. wrap[] is jc scratch bytes. */
static uint32_t drop_idle_wrappers(const skio_scene* s, uint8_t* mask, uint32_t n, uint8_t* wrap) {
  const skc_skeleton* sk = s->skeleton;
  uint32_t jc = sk->joint_count, left = n;
  wrappers(sk, wrap);
  neutral_bones(sk, wrap);
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    const skc_skin* k = s->meshes[m].skin;
    for (size_t v = 0; k && v < k->vertex_count; ++v) {
      uint32_t held = 0; /* the vertex's joints of positive weight */
      for (uint32_t e = k->offsets[v]; e < k->offsets[v + 1]; ++e) held += k->weights[e] > 0.0f;
      for (uint32_t e = k->offsets[v]; e < k->offsets[v + 1]; ++e) {
        const uint32_t j = k->joints[e];
        if (j >= jc || !(k->weights[e] > 0.0f)) continue;
        /* a "root" that vertices hold rigidly is a rig's root bone (a robot's base), not an armature object */
        const bool holder = skio_chain_wrapper_name(sk->names[j]) || neutral_name(sk->names[j]);
        if (held > 1 || k->weights[e] < 0.999f || !holder) wrap[j] = 0;
      }
    }
  }
  for (uint32_t j = 0; j < jc; ++j) left -= mask[j] && wrap[j];
  if (left == 0) return n;
  for (uint32_t j = 0; j < jc; ++j) mask[j] = mask[j] && !wrap[j];
  return left;
}

int skio_scene_deform_joints(const skio_scene* s, uint8_t* mask, uint32_t* out_count, int* out_rule, skc_err* err) {
  if (!s || !mask) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and mask must not be NULL");
  uint32_t jc = s->skeleton ? s->skeleton->joint_count : 0, n = 0;
  int rule = SKIO_DEFORM_NONE;
  memset(mask, 0, jc);
  uint8_t* wrap = jc ? malloc(jc) : NULL;
  if (jc && !wrap) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %u joints", jc);
  if (jc && (n = by_skins(s, mask)) > 0) {
    rule = SKIO_DEFORM_SKINS;
    n = drop_idle_wrappers(s, mask, n, wrap);
  }
  free(wrap);
  if (jc && !n) {
    uint8_t* scratch = calloc(2 * (size_t)jc, 1);
    if (!scratch || mesh_nodes(s, scratch + jc)) {
      free(scratch);
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %u joints", jc);
    }
    n = by_hierarchy(s, mask, scratch, scratch + jc);
    free(scratch);
    rule = SKIO_DEFORM_HIERARCHY;
    if (n == 0) {
      memset(mask, 1, jc);
      n = jc;
      rule = SKIO_DEFORM_ALL;
    }
  }
  if (n) n = rigify_deform(s->skeleton, mask, n);
  if (out_count) *out_count = n;
  if (out_rule) *out_rule = rule;
  return SKC_OK;
}
