#define _DEFAULT_SOURCE /* clock_gettime, fork, kill, strsignal, setrlimit */
/* scene_import.c - any skinned file Assimp reads -> skio_scene (meshes, one skeleton, CSR skins, per-mesh
 * inverse binds, animations).
 *
 * Post-processing: aiProcess_Triangulate only (SKIO_IMPORT_FLAGS_BASE). Vertex counts are therefore those of
 * the file's own vertex streams (glTF/Ogre/MD5/.X/B3D: as stored; FBX/Collada: Assimp's per-face-corner
 * expansion, i.e. larger than with JoinIdenticalVertices). Weights are never touched.
 *
 * Skeleton: every node named by an aiBone of any mesh plus all its ancestors up to the root node, in the
 * node tree's depth-first preorder (parents first; a node whose mParent names another node of the tree than the one
 * listing it hangs from that node: take_parent_links). rest_local = node transform; bind = inverse of the first
 * mesh's aiBone offset matrix for that joint (rest world when no mesh binds it or the offset is singular).
 * A bone whose node is missing becomes an extra root joint with rest = inverse(offset).
 *
 * Weights: every (bone, vertex) entry is kept as in the file (duplicates, negative, unnormalized, NaN), in
 * aiBone order, except exact zeros: Assimp's glTF importer adds a dummy (vertex 0, weight 0) entry to every
 * joint without weights, which would otherwise show up as extra influences of vertex 0. Entries naming a
 * vertex past the end cannot be stored and are counted in skio_mesh.dropped_weights.
 */
#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h> /* setrlimit */
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fbx_fixup.h"
#include "skio_ai.h"
#include "skio_ai_export.h"
#include "skio_child.h"
#include "skio_collada.h"
#include "skio_dae_edit.h"
#include "skio_fbx_tree.h"
#include "skio_gltf_import.h"
#include "skio_iqm.h"
#include "skio_md5.h"
#include "skio_ogre.h"
#include "skio_scene.h"

_Static_assert(sizeof(ai_real) == sizeof(float), "skinkit expects Assimp built with single-precision ai_real");
_Static_assert(sizeof(struct aiMatrix4x4) == 16 * sizeof(float), "aiMatrix4x4 layout");
_Static_assert(aiProcess_Triangulate == SKIO_IMPORT_FLAGS_BASE, "SKIO_IMPORT_FLAGS_BASE");

static char* dup_str(const char* s) {
  size_t n = strlen(s);
  char* d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

/* ---- flattened node tree ----------------------------------------------------------------------- */
typedef struct flat_node {
  const struct aiNode* node;
  int32_t parent; /* index into the flat array */
  int32_t joint;  /* joint index or -1 */
  bool needed;
  bool keyed_mesh; /* a node a clip keys with a mesh without bones at or below it, made a joint (mark_keyed_meshes) */
} flat_node;

typedef struct builder {
  const char* path;
  const struct aiScene* ai;
  flat_node* nodes;
  uint32_t node_count;
  /* bones without a node: names (borrowed from aiBone) and offsets */
  const struct aiBone** orphans;
  uint32_t orphan_count;
  uint32_t joint_count;
  bool bare;     /* skio_import_options.skeleton_from_nodes */
  bool animated; /* skio_import_options.animated_nodes */
  skio_scene* out;
  /* Collada: Assimp names nodes by id; joints and objects take their node's name attribute where it is unique
   * (skio_collada.h) */
  skio_collada_name_sets dae;
  char* dae_text;         /* a .dae file's text, read once for the names and Blender's placement, freed after both */
  char** plain;           /* a .dae's plain (not JOINT) nodes' ids, sorted, for mark_sockets */
  skio_collada_tip* tips; /* a .dae's Blender bone tips (collada_tips.c), for stored_tails */
  uint32_t tip_count;
  uint32_t tips_refused; /* tips not along their bone's +Y axis: not taken (noted) */
  uint32_t plain_count;
  size_t dae_n;
  /* a .dae's skinned meshes (16 per Assimp mesh, NULL for other files): what Assimp's bone offsets carry beyond the
   * inverse binds, the bind shape matrix BSM (Blender's files: P BSM, skin_place), for their bind_world */
  float* dae_bind_shape;
  int32_t* object_of; /* per flat node: its object (skio_scene.objects) or -1; NULL before read_objects */
  /* the source file's bytes, read once for the FBX fixes Assimp needs (geometric transforms, orthographic cameras,
   * clip starts: source_bytes) and freed at the end of the import */
  uint8_t* src;
  size_t src_n;
  bool src_read;
  uint8_t* keyed_mesh; /* per flat node while clips are read: 1 with an unskinned mesh at or below it, 3 once keyed */
} builder;

static uint32_t count_nodes(const struct aiNode* n, uint32_t depth) {
  if (!n || depth > 100000) return 0;
  uint32_t c = 1;
  for (unsigned i = 0; i < n->mNumChildren; ++i) c += count_nodes(n->mChildren[i], depth + 1);
  return c;
}

static void flatten(builder* b, const struct aiNode* n, int32_t parent, uint32_t depth) {
  if (!n || depth > 100000) return;
  uint32_t me = b->node_count++;
  b->nodes[me].node = n;
  b->nodes[me].parent = parent;
  b->nodes[me].joint = -1;
  b->nodes[me].needed = false;
  for (unsigned i = 0; i < n->mNumChildren; ++i) flatten(b, n->mChildren[i], (int32_t)me, depth + 1);
}

/* ---- parent links that disagree with the tree ---------------------------------------------------------------
 * A reader may list a node under one node while its mParent names another: Assimp's Half-Life 1 MDL reader puts
 * every bone directly under "<MDL_bones>" and links each to its parent bone (a root bone to the root node). The
 * bone's transform is relative to that parent, its aiBone offset is the inverse of the world through those links,
 * and Assimp evaluates worlds through mParent; taken from mChildren, every bone's world would miss its ancestors'
 * transforms (the skinned torso and head turned 90 degrees). Such a node is moved under the node its mParent names,
 * when that is in the tree and not below it; readers whose links agree with their tree are left as they are. */
typedef struct node_at {
  const struct aiNode* node;
  int32_t index; /* flat index */
} node_at;

static int cmp_node_at(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)((const node_at*)a)->node, y = (uintptr_t)((const node_at*)b)->node;
  return (x > y) - (x < y);
}

/* The flat index of node among the sorted pairs, or -1. */
static int32_t flat_index_of(const node_at* sorted, uint32_t n, const struct aiNode* node) {
  node_at key = {node, -1};
  const node_at* hit = node ? bsearch(&key, sorted, n, sizeof key, cmp_node_at) : NULL;
  return hit ? hit->index : -1;
}

/* Whether flat node a is node b or lies below it. */
static bool at_or_below(const flat_node* nodes, int32_t a, int32_t b) {
  for (int32_t k = a; k >= 0; k = nodes[k].parent)
    if (k == b) return true;
  return false;
}

/* Whether some node's mParent names another node than the one above it in the flat tree (a NULL link says nothing). */
static bool links_disagree(const builder* b) {
  for (uint32_t i = 0; i < b->node_count; ++i) {
    const struct aiNode* above = b->nodes[i].parent >= 0 ? b->nodes[b->nodes[i].parent].node : NULL;
    if (b->nodes[i].node->mParent && b->nodes[i].node->mParent != above) return true;
  }
  return false;
}

/* Moves each node whose mParent is another node of the flat tree, not below it, under that node; the count moved. */
static uint32_t follow_links(builder* b, node_at* sorted) {
  for (uint32_t i = 0; i < b->node_count; ++i) sorted[i] = (node_at){b->nodes[i].node, (int32_t)i};
  qsort(sorted, b->node_count, sizeof *sorted, cmp_node_at);
  uint32_t moved = 0;
  for (uint32_t i = 0; i < b->node_count; ++i) {
    flat_node* fn = &b->nodes[i];
    const int32_t p = flat_index_of(sorted, b->node_count, fn->node->mParent);
    if (p < 0 || p == fn->parent || at_or_below(b->nodes, p, (int32_t)i)) continue;
    fn->parent = p;
    ++moved;
  }
  return moved;
}

/* Each flat node's place in depth-first preorder after follow_links (parents first, which the joint numbering needs;
 * siblings in their former order), in scratch's 3 * node_count entries; returns the places. */
static const int32_t* preorder_places(const builder* b, int32_t* scratch) {
  const uint32_t n = b->node_count;
  int32_t *first = scratch, *next = scratch + n, *at = scratch + 2 * n;
  int32_t roots = -1;
  for (uint32_t i = 0; i < n; ++i) first[i] = -1;
  for (uint32_t i = n; i-- > 0;) { /* backwards, so each child list comes out in the former order */
    int32_t* head = b->nodes[i].parent >= 0 ? &first[b->nodes[i].parent] : &roots;
    next[i] = *head;
    *head = (int32_t)i;
  }
  int32_t out = 0;
  for (int32_t r = roots; r >= 0; r = next[r]) { /* each root's subtree, walked through the parent links: no stack */
    for (int32_t k = r; k >= 0;) {
      at[k] = out++;
      if (first[k] >= 0) {
        k = first[k];
        continue;
      }
      while (k != r && next[k] < 0) k = b->nodes[k].parent;
      k = k == r ? -1 : next[k];
    }
  }
  return at;
}

/* The node tree as the nodes' mParent links make it (follow_links), in preorder again; false when out of memory. */
static bool take_parent_links(builder* b) {
  const uint32_t n = b->node_count;
  if (n < 2 || !links_disagree(b)) return true;
  node_at* sorted = malloc(n * sizeof *sorted);
  if (!sorted) return false;
  const uint32_t moved = follow_links(b, sorted);
  free(sorted);
  if (!moved) return true;
  int32_t* scratch = malloc((size_t)n * 3 * sizeof *scratch);
  flat_node* again = malloc(n * sizeof *again);
  if (!scratch || !again) {
    free(scratch);
    free(again);
    return false;
  }
  const int32_t* at = preorder_places(b, scratch);
  for (uint32_t k = 0; k < n; ++k) {
    again[at[k]] = b->nodes[k];
    again[at[k]].parent = b->nodes[k].parent >= 0 ? at[b->nodes[k].parent] : -1;
  }
  free(b->nodes);
  b->nodes = again;
  free(scratch);
  return true;
}

/* Assimp's glTF 2 importer gathers several top-level nodes of a scene under a node "ROOT" of its own that is not
 * in the file (skio_gltf_write writes the root joints and the mesh nodes at the top level, as the glTF
 * specification recommends for skinned meshes). Such a node is not taken for a joint: identity transform, no
 * mesh, two or more children, and no bone of that name. */
static bool synthetic_gltf_root(const char* path, const struct aiScene* ai) {
  const struct aiNode* r = ai->mRootNode;
  const char* dot = strrchr(path, '.');
  if (!r || !dot || (strcasecmp(dot, ".gltf") != 0 && strcasecmp(dot, ".glb") != 0)) return false;
  if (strcmp(r->mName.data, "ROOT") != 0 || r->mNumChildren < 2 || r->mNumMeshes) return false;
  const float* m = &r->mTransformation.a1;
  for (int i = 0; i < 16; ++i)
    if (m[i] != ((i % 5) == 0 ? 1.0f : 0.0f)) return false;
  for (unsigned k = 0; k < ai->mNumMeshes; ++k)
    for (unsigned bi = 0; ai->mMeshes[k] && bi < ai->mMeshes[k]->mNumBones; ++bi)
      if (ai->mMeshes[k]->mBones[bi] && strcmp(ai->mMeshes[k]->mBones[bi]->mName.data, "ROOT") == 0) return false;
  return true;
}

/* First node in preorder with this name (what Assimp's own FindNode returns), or -1. */
static int32_t find_node(const builder* b, const struct aiString* name) {
  for (uint32_t i = 0; i < b->node_count; ++i) {
    const struct aiString* nn = &b->nodes[i].node->mName;
    if (nn->length == name->length && memcmp(nn->data, name->data, name->length) == 0) return (int32_t)i;
  }
  return -1;
}

static int32_t find_orphan(const builder* b, const struct aiString* name) {
  for (uint32_t i = 0; i < b->orphan_count; ++i)
    if (strcmp(b->orphans[i]->mName.data, name->data) == 0) return (int32_t)i;
  return -1;
}

/* Joint index of an aiBone: its node's joint, else the orphan joint (appended after all node joints). */
static int32_t bone_joint(const builder* b, const struct aiBone* bone) {
  int32_t n = find_node(b, &bone->mName);
  if (n >= 0) return b->nodes[n].joint;
  int32_t o = find_orphan(b, &bone->mName);
  return o >= 0 ? (int32_t)(b->joint_count - b->orphan_count + (uint32_t)o) : -1;
}

static bool name_taken(char** names, uint32_t count, const char* nm) {
  for (uint32_t i = 0; i < count; ++i)
    if (names[i] && strcmp(names[i], nm) == 0) return true;
  return false;
}

static void mark_needed(builder* b, int32_t n) {
  for (int32_t p = n; p >= 0 && !b->nodes[p].needed; p = b->nodes[p].parent) b->nodes[p].needed = true;
}

/* The nodes of the meshes' bones and their ancestors (needed), and the bones without a node (orphans). */
static int mark_bones(builder* b, uint32_t bone_total, skc_err* err) {
  const struct aiScene* ai = b->ai;
  b->orphans = calloc(bone_total, sizeof *b->orphans);
  if (!b->orphans) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
    const struct aiMesh* mesh = ai->mMeshes[m];
    if (!mesh) continue;
    for (unsigned k = 0; k < mesh->mNumBones; ++k) {
      const struct aiBone* bone = mesh->mBones[k];
      if (!bone) continue;
      int32_t n = find_node(b, &bone->mName);
      if (n >= 0)
        mark_needed(b, n);
      else if (find_orphan(b, &bone->mName) < 0)
        b->orphans[b->orphan_count++] = bone;
    }
  }
  return SKC_OK;
}

/* The flat nodes that carry a mesh, camera or light (Assimp ties those to a node by name) or have one below them
 * (1), an array of node_count + 1; NULL when out of memory. */
static uint8_t* node_payload(const builder* b) {
  uint8_t* payload = calloc(b->node_count + 1, 1);
  skio_ai_index idx = {NULL, 0};
  if (!payload || !skio_ai_index_build(b->ai, &idx)) {
    free(payload);
    return NULL;
  }
  for (uint32_t i = b->node_count; i-- > 0;) { /* preorder: children come after their parent */
    payload[i] |= b->nodes[i].node->mNumMeshes > 0 || skio_ai_index_find(&idx, b->nodes[i].node->mName.data);
    if (payload[i] && b->nodes[i].parent >= 0) payload[b->nodes[i].parent] = 1;
  }
  skio_ai_index_free(&idx);
  return payload;
}

static const uint8_t* source_bytes(builder* b, size_t* n, bool* oom);
static bool has_extension(const char* path, const char* ext);

/* The nodes of the file that are empties, sorted, for mark_sockets: an FBX file's Null Models (fbx_geometric.c), a
 * Collada file's nodes not of type JOINT (b->plain, taken over); none for other files. False when out of memory. */
static bool fbx_null_names(builder* b, char*** names, uint32_t* count) {
  *names = b->plain;
  *count = b->plain_count;
  b->plain = NULL;
  b->plain_count = 0;
  if (*names || !has_extension(b->path, ".fbx")) return true;
  bool oom = false;
  size_t n = 0;
  const uint8_t* data = source_bytes(b, &n, &oom);
  if (oom) return false;
  return !data || skio_fbx_null_names(data, n, names, count) == SKC_OK;
}

/* Attachment points: the nodes below a bone's node with no mesh, camera or light at or below them, and the like below
 * those - a game's weapon or head sockets, the leaf bones Blender's FBX exporter adds ("hand_end") - become joints
 * (needed) that no mesh binds, so that each node, its name and its place survive a conversion. Left out when they
 * would take the skeleton past SKC_MAX_JOINTS. In an FBX file a Null Model (an empty: Blender's, a Maya
 * locator), in a Collada file a node not of type JOINT, is no such joint: it stays a node and is read as an empty
 * object hanging from its bone (read_objects), as Blender's FBX importer makes it, so a .glb does not list it in the
 * skin (Blender's glTF importer made it a bone, engines gave it a palette slot). False when out of memory. */
static bool mark_sockets(builder* b) {
  uint8_t* payload = node_payload(b);
  uint8_t* below = calloc(b->node_count + 1, 1); /* 1: a bone's node, 2: a socket */
  char** nulls = NULL;
  uint32_t null_count = 0;
  bool ok = payload && below && fbx_null_names(b, &nulls, &null_count);
  for (unsigned m = 0; ok && m < b->ai->mNumMeshes; ++m)
    for (unsigned k = 0; b->ai->mMeshes[m] && k < b->ai->mMeshes[m]->mNumBones; ++k) {
      const struct aiBone* bone = b->ai->mMeshes[m]->mBones[k];
      int32_t n = bone ? find_node(b, &bone->mName) : -1;
      if (n >= 0) below[n] = 1;
    }
  uint32_t jc = b->orphan_count, added = 0;
  for (uint32_t i = 0; ok && i < b->node_count; ++i) { /* preorder: a parent before its children */
    const int32_t p = b->nodes[i].parent;
    jc += b->nodes[i].needed;
    if (!b->nodes[i].needed && !payload[i] && p >= 0 && below[p] &&
        !skio_names_have(nulls, null_count, b->nodes[i].node->mName.data))
      below[i] = 2, ++added;
  }
  for (uint32_t i = 0; ok && jc + added <= SKC_MAX_JOINTS && i < b->node_count; ++i)
    if (below[i] == 2) b->nodes[i].needed = true;
  free(payload);
  free(below);
  skio_names_free(nulls, null_count);
  return ok;
}

/* skio_scene.bone_names: a binary FBX file's LimbNode / Limb Models, the nodes it declares bones. False when out of
 * memory; a file our parser does not take leaves them unknown. */
static bool declared_bones(builder* b) {
  if (!has_extension(b->path, ".fbx")) return true;
  bool oom = false;
  size_t n = 0;
  const uint8_t* data = source_bytes(b, &n, &oom);
  if (oom) return false;
  if (!data || !skio_fbx_is_binary(data, n)) return true;
  int rc = skio_fbx_limb_names(data, n, &b->out->bone_names, &b->out->bone_name_count, &b->out->bone_names_known);
  return rc == SKC_OK;
}

/* skeleton_from_nodes, for a file whose meshes reference no bone: the nodes with no mesh, camera or light at or
 * below them (with animated_nodes also every node a clip animates), and their ancestors (needed). Returns false when
 * there is none, or more than a skeleton may hold (a file of many plain nodes then loads without a skeleton, as without
 * the option), or no memory. */
static bool mark_bare_bones(builder* b) {
  uint8_t* payload = node_payload(b);
  if (!payload) return false;
  uint32_t n = 0;
  for (uint32_t i = 0; i < b->node_count; ++i)
    if (!payload[i]) mark_needed(b, (int32_t)i);
  for (unsigned a = 0; b->animated && a < b->ai->mNumAnimations; ++a) { /* animated nodes: their meshes follow */
    const struct aiAnimation* an = b->ai->mAnimations[a];
    for (unsigned c = 0; an && an->mChannels && c < an->mNumChannels; ++c) {
      int32_t k = an->mChannels[c] ? find_node(b, &an->mChannels[c]->mNodeName) : -1;
      if (k >= 0) mark_needed(b, k);
    }
  }
  for (uint32_t i = 0; i < b->node_count; ++i) n += b->nodes[i].needed;
  free(payload);
  if (n <= SKC_MAX_JOINTS) return n > 0;
  for (uint32_t i = 0; i < b->node_count; ++i) b->nodes[i].needed = false;
  return false;
}

/* 1 per flat node with a mesh without bones at or below it (a skinned mesh follows its bones, not its node),
 * node_count + 1 entries; NULL when out of memory. */
static uint8_t* unboned_below(const builder* b) {
  uint8_t* below = calloc(b->node_count + 1, 1);
  for (uint32_t i = b->node_count; below && i-- > 0;) { /* preorder: children come after their parent */
    const struct aiNode* nd = b->nodes[i].node;
    for (unsigned k = 0; nd->mMeshes && k < nd->mNumMeshes; ++k) {
      const unsigned m = nd->mMeshes[k];
      below[i] |= m < b->ai->mNumMeshes && b->ai->mMeshes[m] && !b->ai->mMeshes[m]->mNumBones;
    }
    if (below[i] && b->nodes[i].parent >= 0) below[b->nodes[i].parent] = 1;
  }
  return below;
}

/* With animated_nodes, in a file with bones: every node a clip keys that has a mesh without bones at or below it, and
 * its ancestors (needed), so that the mesh keeps its motion (a prop turning on a bone with an action of its own, a
 * crate moving beside the character): the node is a joint no skin lists, and the meshes hang from it (parent_joint,
 * not a rigid skin: place_meshes) as the meshes under a file's animated nodes do in a file without skins. False when
 * out of memory. */
static bool mark_keyed_meshes(builder* b) {
  if (!b->animated || !b->ai->mNumAnimations) return true;
  uint8_t* below = unboned_below(b);
  if (!below) return false;
  for (unsigned a = 0; a < b->ai->mNumAnimations; ++a) {
    const struct aiAnimation* an = b->ai->mAnimations[a];
    for (unsigned c = 0; an && an->mChannels && c < an->mNumChannels; ++c) {
      const int32_t k = an->mChannels[c] ? find_node(b, &an->mChannels[c]->mNodeName) : -1;
      if (k >= 0 && !b->nodes[k].needed && below[k]) mark_needed(b, k), b->nodes[k].keyed_mesh = true;
    }
  }
  free(below);
  return true;
}

/* joint_mesh of a bare skeleton: the joints whose node carries a mesh (ancestors of bones); with bones, the keyed
 * mesh nodes (mark_keyed_meshes: the ones that carry a mesh, and those that hold meshes below them). */
static int mark_mesh_joints(builder* b, uint32_t jc, skc_err* err) {
  if (!(b->out->joint_mesh = calloc(jc, 1))) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  for (uint32_t i = 0; i < b->node_count; ++i)
    if (b->nodes[i].joint >= 0)
      b->out->joint_mesh[b->nodes[i].joint] = b->nodes[i].node->mNumMeshes > 0 || b->nodes[i].keyed_mesh;
  return SKC_OK;
}

/* For every joint, the nearest joint at or above it that is named as some tip's armature (-1: none), in found[]:
 * one pass, parents first (a chain of n tipped bones costs O(n log n), not a walk to the root for each). False when
 * out of memory. */
static bool armature_joints(const builder* b, const char* const* node_name, const int32_t* parents, uint32_t jc,
                            int32_t* found) {
  char** arms = NULL;
  uint32_t na = 0, cap = 0;
  for (uint32_t i = 0; i < b->tip_count; ++i)
    if (b->tips[i].armature[0] && !skio_names_add(&arms, &na, &cap, b->tips[i].armature, strlen(b->tips[i].armature))) {
      skio_names_free(arms, na);
      return false;
    }
  skio_names_sort(arms, na);
  for (uint32_t j = 0; j < jc; ++j)
    found[j] = node_name[j] && skio_names_have(arms, na, node_name[j]) ? (int32_t)j
               : parents[j] >= 0                                       ? found[parents[j]]
                                                                       : -1;
  skio_names_free(arms, na);
  return true;
}

/* Whether the point p in a bone's frame lies on its +Y axis (within ~1.1 degrees), as every Blender bone's tail
 * does: else the frame was not the one assumed (a global orientation applied on export, another writer). */
static bool along_y(const float* p) {
  const double len = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
  return len > 0.0 && isfinite(len) && p[1] >= 0.9998 * len;
}

/* Joint j's tail from its Blender tip t, a point in its own rest frame (*out); false when it is not along_y or the
 * frames are degenerate. */
static bool tip_in_frame(const float* arm, const float* w, const double* tip, float* out) {
  float inv[16], d[3], along[3], tail[3];
  const float t[3] = {(float)tip[0], (float)tip[1], (float)tip[2]};
  if (!skc_mat4_inverse(w, inv)) return false;
  skc_mat4_transform_dir(arm, t, d);
  for (int k = 0; k < 3; ++k) tail[k] = w[12 + k] + d[k];
  skc_mat4_transform_point(inv, tail, along);
  if (!along_y(along)) return false;
  memcpy(out, along, sizeof along);
  return true;
}

/* Blender's connected bones: the parent of a joint whose node says connect ends at that joint's head (its local
 * translation, a point in the parent's frame), where that lies along the parent's +Y. Counts into *taken and
 * b->tips_refused. */
static void connected_tails(builder* b, uint32_t jc, const char* const* node_name, const int32_t* parents,
                            const float* local, float* t, uint32_t* taken) {
  for (uint32_t c = 0; c < jc; ++c) {
    const skio_collada_tip* tip = node_name[c] ? skio_collada_tip_of(b->tips, b->tip_count, node_name[c]) : NULL;
    const int32_t p = parents[c];
    if (!tip || !tip->connect || p < 0 || t[3 * (size_t)p] == t[3 * (size_t)p]) continue; /* p's tail known */
    const float* head = local + 16 * (size_t)c + 12;
    if (along_y(head)) {
      memcpy(t + 3 * (size_t)p, head, 3 * sizeof *t);
      (*taken)++;
    } else {
      b->tips_refused++;
    }
  }
}

/* The Blender armatures (their nodes' ids, sorted, in *built) that were built in Blender: some bone is connected to its
 * parent (extruded chains are). One that came in through an importer has none (Blender's glTF importer never connects
 * bones, its FBX importer only when asked) and its tails are that importer's guesses: CesiumMan_blender.dae, a glTF
 * taken through Blender, has its head bone turned back into the neck and its legs 40 degrees off their children, and
 * binding to those tails put 1.11 % mean deformation error on it against 0.22 % with the rules (docs/bind.md, "Tails
 * the file stores"). False when out of memory. */
static bool built_in_blender(const builder* b, char*** built, uint32_t* count) {
  uint32_t cap = 0;
  for (uint32_t i = 0; i < b->tip_count; ++i)
    if (b->tips[i].connect && !skio_names_add(built, count, &cap, b->tips[i].armature, strlen(b->tips[i].armature)))
      return false;
  skio_names_sort(*built, *count);
  return true;
}

/* The tails of a Collada file's joints, for an armature built_in_blender: Blender's tips turned from armature space
 * into each joint's rest frame, and the heads of connected children, into t (3 * jc, NaN where none); *taken counts
 * them. False when out of memory. */
static bool blender_tips(builder* b, uint32_t jc, const int32_t* parents, const float* local, const float* world,
                         float* t, uint32_t* taken) {
  const char** node_name = calloc(jc, sizeof *node_name);
  int32_t* found = malloc((size_t)jc * sizeof *found);
  char** built = NULL;
  uint32_t nb = 0;
  for (uint32_t i = 0; node_name && i < b->node_count; ++i)
    if (b->nodes[i].joint >= 0) node_name[b->nodes[i].joint] = b->nodes[i].node->mName.data;
  const bool ok =
      node_name && found && built_in_blender(b, &built, &nb) && armature_joints(b, node_name, parents, jc, found);
  for (uint32_t j = 0; ok && j < jc; ++j) {
    const skio_collada_tip* tip = node_name[j] ? skio_collada_tip_of(b->tips, b->tip_count, node_name[j]) : NULL;
    const bool take = tip && tip->has_tip && skio_names_have(built, nb, tip->armature);
    const int32_t arm = take && parents[j] >= 0 ? found[parents[j]] : -1;
    if (arm < 0 || strcmp(node_name[arm], tip->armature)) continue;
    if (tip_in_frame(world + 16 * (size_t)arm, world + 16 * (size_t)j, tip->tip, t + 3 * (size_t)j))
      (*taken)++;
    else
      b->tips_refused++;
  }
  if (ok) connected_tails(b, jc, node_name, parents, local, t, taken);
  free(node_name);
  free(found);
  skio_names_free(built, nb);
  return ok;
}

/* Whether name ends in "_end" (any case): the leaf bone Blender's FBX exporter adds at each leaf's tail
 * ("hand_end"), Mixamo's "HeadTop_End". */
static bool end_bone_name(const char* name) {
  const size_t n = strlen(name);
  return n > 4 && name[n - 4] == '_' && (name[n - 3] | 32) == 'e' && (name[n - 2] | 32) == 'n' &&
         (name[n - 1] | 32) == 'd';
}

/* Leaf bones that mark a tail: a joint no skin lists (skinned[c] 0), without children, named end_bone_name, the only
 * child of a skinned joint p whose +Y axis it lies on (the exporter's bone axis: Blender, Mixamo) gives p's tail,
 * its local translation, unless p has one already. Returns how many were set in t. */
static uint32_t end_bone_tails(const builder* b, uint32_t jc, const int32_t* parents, const float* local,
                               const uint8_t* skinned, float* t) {
  uint32_t* kids = calloc((size_t)jc + 1, sizeof *kids);
  uint32_t taken = 0;
  for (uint32_t c = 0; kids && c < jc; ++c)
    if (parents[c] >= 0) kids[parents[c]]++;
  for (uint32_t i = 0; kids && i < b->node_count; ++i) {
    const int32_t c = b->nodes[i].joint;
    const int32_t p = c >= 0 ? parents[c] : -1;
    if (p < 0 || skinned[c] || !skinned[p] || kids[c] || kids[p] != 1 || t[3 * (size_t)p] == t[3 * (size_t)p] ||
        !end_bone_name(b->nodes[i].node->mName.data) || !along_y(local + 16 * (size_t)c + 12))
      continue;
    memcpy(t + 3 * (size_t)p, local + 16 * (size_t)c + 12, 3 * sizeof *t);
    taken++;
  }
  free(kids);
  return taken;
}

/* The stored tails of the file's joints (skc_skeleton.tail_local): blender_tips, then end_bone_tails. *out NULL when
 * none applies; false when out of memory. */
static bool stored_tails(builder* b, uint32_t jc, const int32_t* parents, const float* local, const float* world,
                         const uint8_t* skinned, float** out) {
  *out = NULL;
  float* t = malloc(3 * (size_t)jc * sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < 3 * (size_t)jc; ++i) t[i] = NAN;
  uint32_t taken = 0;
  const bool ok = !b->tip_count || blender_tips(b, jc, parents, local, world, t, &taken);
  if (ok) taken += end_bone_tails(b, jc, parents, local, skinned, t);
  if (ok && taken)
    *out = t;
  else
    free(t);
  return ok;
}

/* How many aiBones the scene's meshes hold in all. */
static uint32_t bone_count(const struct aiScene* ai) {
  uint32_t bone_total = 0;
  for (unsigned m = 0; m < ai->mNumMeshes; ++m)
    if (ai->mMeshes[m]) bone_total += ai->mMeshes[m]->mNumBones;
  return bone_total;
}

/* Marks the nodes that become joints and numbers them in preorder, the orphan bones last (b->joint_count, *out), with
 * joint_mesh where it applies. *out stays 0 when the scene has no skeleton. */
static int number_joints(builder* b, uint32_t* out, skc_err* err) {
  const uint32_t bone_total = bone_count(b->ai);
  if (bone_total == 0 && (!b->bare || !mark_bare_bones(b))) return SKC_OK;
  if (bone_total) {
    int rc = mark_bones(b, bone_total, err);
    if (rc) return rc;
    if (!mark_sockets(b) || !declared_bones(b) || !mark_keyed_meshes(b))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  }
  uint32_t jc = 0;
  for (uint32_t i = 0; i < b->node_count; ++i)
    if (b->nodes[i].needed) b->nodes[i].joint = (int32_t)jc++;
  jc += b->orphan_count;
  if (jc == 0) return SKC_OK;
  if (jc > SKC_MAX_JOINTS)
    return skc_fail(err, SKC_UNSUPPORTED, "%s: %u joints exceed the limit of %u", b->path, jc, SKC_MAX_JOINTS);
  b->joint_count = jc;
  *out = jc;
  bool keyed = false;
  for (uint32_t i = 0; i < b->node_count; ++i) keyed |= b->nodes[i].keyed_mesh;
  if (!bone_total || keyed) { /* (with bones: the keyed mesh nodes alone are no ancestors of bones) */
    int rc = mark_mesh_joints(b, jc, err);
    if (rc) return rc;
  }
  return SKC_OK;
}

/* The per-joint arrays build_skeleton fills for skc_skeleton_create (names owned once joint_names made them). */
typedef struct joint_arrays {
  char** names;
  int32_t* parents;
  float* local;
  float* world;
  float* bind;
  float* ibind;
  uint8_t* have; /* per joint: 1 once a mesh's bone gave its bind */
  float* tails;  /* stored_tails' result, or NULL */
} joint_arrays;

/* Allocates the arrays for jc joints (tails stays NULL); false when any is missing (free_joint_arrays frees the
 * others). */
static bool alloc_joint_arrays(joint_arrays* ja, uint32_t jc) {
  ja->names = calloc(jc, sizeof *ja->names);
  ja->parents = malloc(jc * sizeof *ja->parents);
  ja->local = malloc((size_t)jc * 16 * sizeof(float));
  ja->world = malloc((size_t)jc * 16 * sizeof(float));
  ja->bind = malloc((size_t)jc * 16 * sizeof(float));
  ja->ibind = malloc((size_t)jc * 16 * sizeof(float));
  ja->have = calloc(jc, 1);
  ja->tails = NULL;
  return ja->names && ja->parents && ja->local && ja->world && ja->bind && ja->ibind && ja->have;
}

/* Frees the arrays of jc joints, the names each one holds among them. */
static void free_joint_arrays(joint_arrays* ja, uint32_t jc) {
  free(ja->tails);
  if (ja->names)
    for (uint32_t j = 0; j < jc; ++j) free(ja->names[j]);
  free(ja->names);
  free(ja->parents);
  free(ja->local);
  free(ja->world);
  free(ja->bind);
  free(ja->ibind);
  free(ja->have);
}

/* Every joint's parent and rest_local: its node's transform, or for an orphan bone (a root) the inverse of its offset
 * (identity when that is singular). */
static void joint_rest(const builder* b, uint32_t jc, int32_t* parents, float* local) {
  for (uint32_t i = 0; i < b->node_count; ++i) {
    const flat_node* fn = &b->nodes[i];
    if (fn->joint < 0) continue;
    uint32_t j = (uint32_t)fn->joint;
    parents[j] = fn->parent >= 0 ? b->nodes[fn->parent].joint : SKC_NO_PARENT;
    skio_mat_from_ai(&fn->node->mTransformation.a1, local + (size_t)j * 16);
  }
  for (uint32_t o = 0; o < b->orphan_count; ++o) {
    uint32_t j = jc - b->orphan_count + o;
    parents[j] = SKC_NO_PARENT;
    float off[16];
    skio_mat_from_ai(&b->orphans[o]->mOffsetMatrix.a1, off);
    if (!skc_mat4_inverse(off, local + (size_t)j * 16)) skc_mat4_identity(local + (size_t)j * 16);
  }
}

/* The joints' names as owned copies in names (all NULL on entry): the node's or orphan bone's name, a Collada node's
 * name attribute where it has one, "joint<j>" for an empty one. On failure only the names made are left. */
static int joint_names(const builder* b, uint32_t jc, char** names, skc_err* err) {
  /* unique, non-empty names: a later duplicate gets "#2", "#3", ... */
  for (uint32_t i = 0; i < b->node_count; ++i)
    if (b->nodes[i].joint >= 0) names[b->nodes[i].joint] = (char*)b->nodes[i].node->mName.data; /* borrowed */
  for (uint32_t o = 0; o < b->orphan_count; ++o) names[jc - b->orphan_count + o] = (char*)b->orphans[o]->mName.data;
  for (uint32_t j = 0; j < jc; ++j) {
    const char* base = names[j];
    names[j] = NULL; /* from here on names[0..j-1] are owned copies */
    const char* named = skio_collada_name_of(b->dae.nodes, b->dae.node_count, base);
    if (named) base = named;
    char tmp[32];
    if (!base[0]) {
      snprintf(tmp, sizeof tmp, "joint%u", j);
      base = tmp;
    }
    char cand[1200];
    snprintf(cand, sizeof cand, "%s", base);
    for (unsigned k = 2; name_taken(names, j, cand); ++k) snprintf(cand, sizeof cand, "%s#%u", base, k);
    if (!(names[j] = dup_str(cand))) {
      for (uint32_t r = j + 1; r < jc; ++r) names[r] = NULL;
      return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
    }
  }
  return SKC_OK;
}

/* Each joint's bind from the first mesh whose bones bind it (have[j] set for those). */
static void first_binds(const builder* b, float* bind, float* ibind, uint8_t* have) {
  const struct aiScene* ai = b->ai;
  for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
    const struct aiMesh* mesh = ai->mMeshes[m];
    if (!mesh) continue;
    for (unsigned k = 0; k < mesh->mNumBones; ++k) {
      const struct aiBone* bone = mesh->mBones[k];
      if (!bone) continue;
      int32_t j = bone_joint(b, bone);
      if (j < 0 || have[j]) continue;
      float off[16];
      skio_mat_from_ai(&bone->mOffsetMatrix.a1, off);
      skio_bind_take((uint32_t)j, off, bind, ibind, have);
    }
  }
}

/* The skeleton of jc numbered joints into b->out->skeleton, filling the arrays of ja on the way. */
static int make_skeleton(builder* b, uint32_t jc, joint_arrays* ja, skc_err* err) {
  joint_rest(b, jc, ja->parents, ja->local);
  int rc = joint_names(b, jc, ja->names, err);
  if (rc) return rc;
  skc_fk(ja->parents, jc, ja->local, NULL, ja->world);
  /* bind from the first mesh binding each joint */
  first_binds(b, ja->bind, ja->ibind, ja->have);
  skio_bind_fill_rest(jc, ja->world, ja->have, ja->bind, ja->ibind);
  if (!stored_tails(b, jc, ja->parents, ja->local, ja->world, ja->have, &ja->tails))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for %u joints", b->path, jc);
  skc_skeleton_init init = {jc, (const char* const*)ja->names, ja->parents, ja->local, ja->bind, ja->ibind, ja->tails};
  skc_err e2 = {0};
  if ((rc = skc_skeleton_create(&init, &b->out->skeleton, &e2)))
    rc = skc_fail(err, rc == SKC_OUT_OF_MEMORY ? rc : SKC_FORMAT, "%s: skeleton: %s", b->path, e2.message);
  return rc;
}

static int build_skeleton(builder* b, skc_err* err) {
  uint32_t jc = 0;
  int rc = number_joints(b, &jc, err);
  if (rc || jc == 0) return rc;
  joint_arrays ja;
  if (alloc_joint_arrays(&ja, jc))
    rc = make_skeleton(b, jc, &ja, err);
  else
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for %u joints", b->path, jc);
  free_joint_arrays(&ja, jc);
  return rc;
}

/* ---- meshes ---------------------------------------------------------------------------------------- */
static void put_vec3(float* d, const struct aiVector3D* v, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    d[i * 3 + 0] = v[i].x;
    d[i * 3 + 1] = v[i].y;
    d[i * 3 + 2] = v[i].z;
  }
}

static float* copy_vec3(const struct aiVector3D* v, size_t n) {
  float* d = malloc(n * 3 * sizeof(float) + 1);
  if (!d) return NULL;
  for (size_t i = 0; i < n; ++i) {
    d[i * 3 + 0] = v[i].x;
    d[i * 3 + 1] = v[i].y;
    d[i * 3 + 2] = v[i].z;
  }
  return d;
}

/* The CSR arrays are filled in place in the skin (no staging copies: this is on the import's critical path, see
 * tests/bench/bench_io.c): a counting pass puts each vertex's count in offsets[v + 1], a running sum turns it into
 * the vertex's start, and the fill pass advances offsets[v + 1] to the vertex's end. */
static int build_skin(builder* b, const struct aiMesh* am, skio_mesh* m, skc_err* err) {
  const skc_skeleton* sk = b->out->skeleton;
  uint32_t jc = sk->joint_count;
  size_t V = m->vertex_count;
  m->bone_count = am->mNumBones;
  int rc = skc_skin_create(V, jc, &m->skin, err);
  if (rc) return rc;
  m->inverse_bind = malloc((size_t)jc * 16 * sizeof(float));
  m->bound = calloc(jc, 1);
  int32_t* bone_j = malloc((am->mNumBones + 1) * sizeof *bone_j);
  if (!m->inverse_bind || !m->bound || !bone_j) {
    free(bone_j);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for the weights of mesh \"%s\"", b->path, m->name);
  }
  uint32_t* offsets = m->skin->offsets; /* V + 1 zeros */
  memcpy(m->inverse_bind, sk->inverse_bind, (size_t)jc * 16 * sizeof(float));
  size_t total = 0;
  for (unsigned k = 0; k < am->mNumBones; ++k) {
    const struct aiBone* bone = am->mBones[k];
    bone_j[k] = bone ? bone_joint(b, bone) : -1;
    if (bone_j[k] < 0) continue;
    uint32_t j = (uint32_t)bone_j[k];
    if (!m->bound[j]) {
      m->bound[j] = 1;
      skio_mat_from_ai(&bone->mOffsetMatrix.a1, m->inverse_bind + (size_t)j * 16);
    }
    for (unsigned w = 0; w < bone->mNumWeights; ++w) {
      unsigned v = bone->mWeights[w].mVertexId;
      if (v >= V) {
        m->dropped_weights++;
        continue;
      }
      if (bone->mWeights[w].mWeight == 0.0f) continue; /* see the note at the top */
      if (offsets[v + 1] == SKC_MAX_INFLUENCES_PER_VERTEX) {
        free(bone_j);
        return skc_fail(err, SKC_UNSUPPORTED, "%s: mesh \"%s\" vertex %u has more than %u influences", b->path, m->name,
                        v, SKC_MAX_INFLUENCES_PER_VERTEX);
      }
      offsets[v + 1]++;
      total++;
    }
  }
  if (total > UINT32_MAX) {
    free(bone_j);
    return skc_fail(err, SKC_UNSUPPORTED, "%s: mesh \"%s\" has too many influences", b->path, m->name);
  }
  if ((rc = skc_skin_reserve(m->skin, total, err))) {
    free(bone_j);
    return rc;
  }
  uint32_t start = 0;
  for (size_t v = 0; v < V; ++v) {
    uint32_t c = offsets[v + 1];
    offsets[v + 1] = start;
    start += c;
  }
  uint32_t* joints = m->skin->joints;
  float* weights = m->skin->weights;
  /* bone order within a vertex = order of the aiBones in the mesh, as in the file */
  for (unsigned k = 0; k < am->mNumBones; ++k) {
    if (bone_j[k] < 0) continue;
    const struct aiBone* bone = am->mBones[k];
    const uint32_t j = (uint32_t)bone_j[k];
    for (unsigned w = 0; w < bone->mNumWeights; ++w) {
      unsigned v = bone->mWeights[w].mVertexId;
      if (v >= V || bone->mWeights[w].mWeight == 0.0f) continue;
      uint32_t at = offsets[v + 1]++;
      joints[at] = j;
      weights[at] = bone->mWeights[w].mWeight;
    }
  }
  free(bone_j);
  skio_mesh_unbound_in_bind_frame(sk, m);
  return SKC_OK;
}

/* Tangents with their handedness as a fourth component (the sign of (n x t) . bitangent). */
static float* copy_tangents(const struct aiMesh* am, size_t V) {
  float* d = malloc(V * 4 * sizeof(float) + 1);
  if (!d) return NULL;
  for (size_t i = 0; i < V; ++i) {
    const struct aiVector3D t = am->mTangents[i], n = am->mNormals[i];
    float sign = 1.0f;
    if (am->mBitangents) {
      const struct aiVector3D bt = am->mBitangents[i];
      float cx = n.y * t.z - n.z * t.y, cy = n.z * t.x - n.x * t.z, cz = n.x * t.y - n.y * t.x;
      sign = (cx * bt.x + cy * bt.y + cz * bt.z) < 0.0f ? -1.0f : 1.0f;
    }
    d[i * 4 + 0] = t.x;
    d[i * 4 + 1] = t.y;
    d[i * 4 + 2] = t.z;
    d[i * 4 + 3] = sign;
  }
  return d;
}

static float* copy_uv(const struct aiVector3D* t, size_t V) {
  float* d = malloc(V * 2 * sizeof(float) + 1);
  if (!d) return NULL;
  for (size_t i = 0; i < V; ++i) {
    d[i * 2] = t[i].x;
    d[i * 2 + 1] = t[i].y;
  }
  return d;
}

/* Assimp's colour set 0 (the file's values: sRGB in FBX, Collada and the rest) as linear RGBA. */
static float* copy_colors(const struct aiColor4D* c, size_t V) {
  float* d = malloc(V * 4 * sizeof(float) + 1);
  if (!d) return NULL;
  for (size_t i = 0; i < V; ++i) {
    d[i * 4 + 0] = skio_srgb_to_linear(c[i].r);
    d[i * 4 + 1] = skio_srgb_to_linear(c[i].g);
    d[i * 4 + 2] = skio_srgb_to_linear(c[i].b);
    d[i * 4 + 3] = c[i].a;
  }
  return d;
}

/* The vertex streams of a mesh with V > 0 vertices; true when out of memory. */
static bool read_streams(const struct aiMesh* am, size_t V, skio_mesh* m) {
  bool oom = !(m->positions = copy_vec3(am->mVertices, V));
  if (am->mNormals) oom |= !(m->normals = copy_vec3(am->mNormals, V));
  if (am->mTangents && am->mNormals) oom |= !(m->tangents = copy_tangents(am, V));
  if (am->mTextureCoords[0]) oom |= !(m->uv0 = copy_uv(am->mTextureCoords[0], V));
  if (am->mTextureCoords[1]) oom |= !(m->uv1 = copy_uv(am->mTextureCoords[1], V));
  if (am->mColors[0]) oom |= !(m->colors = copy_colors(am->mColors[0], V));
  return oom;
}

/* A note naming the meshes whose UV sets past the second or colour sets past the first are not read (the scene has
 * two UV sets and one colour set; a file edited in place keeps them, one written anew says so). */
static void note_unread_sets(skio_scene* s, const struct aiScene* ai) {
  uint32_t n = 0;
  for (unsigned m = 0; ai->mMeshes && m < ai->mNumMeshes; ++m) {
    const struct aiMesh* am = ai->mMeshes[m];
    bool more = false;
    for (unsigned k = 2; am && k < AI_MAX_NUMBER_OF_TEXTURECOORDS; ++k) more |= am->mTextureCoords[k] != NULL;
    for (unsigned k = 1; am && k < AI_MAX_NUMBER_OF_COLOR_SETS; ++k) more |= am->mColors[k] != NULL;
    n += more;
  }
  if (!n) return;
  char line[120];
  snprintf(line, sizeof line, "not read: UV sets past the second or colour sets past the first of %u mesh(es)", n);
  skio_scene_note(s, line);
}

/* Blend shapes: Assimp's anim meshes (FBX shape keys, Collada morphs) as whole positions and normals of the mesh's
 * vertices (skio_mesh.morph_*). Targets whose vertex count differs from the mesh's are not read (a note names them).
 * Default weights: Collada's morph weights; an FBX shape's mWeight is where its channel reaches it (1, or the
 * in-between's percentage), not the channel's value, so FBX shapes start at 0 (the mesh as its file draws it).
 * Returns true when out of memory. */
static bool read_morphs(skio_scene* s, const struct aiMesh* am, size_t V, bool fbx, skio_mesh* m) {
  uint32_t n = 0;
  bool nrm = am->mNormals != NULL;
  for (unsigned k = 0; k < am->mNumAnimMeshes; ++k) {
    const struct aiAnimMesh* a = am->mAnimMeshes[k];
    if (!a || !a->mVertices || a->mNumVertices != V) continue;
    ++n;
    nrm &= a->mNormals != NULL;
  }
  if (n < am->mNumAnimMeshes) {
    char line[200];
    snprintf(line, sizeof line, "mesh \"%.80s\": %u of %u blend shapes have no positions for its vertices: not read",
             m->name, am->mNumAnimMeshes - n, am->mNumAnimMeshes);
    skio_scene_note(s, line);
  }
  if (!n) return false;
  m->morph_names = calloc(n, sizeof *m->morph_names);
  m->morph_weights = malloc(n * sizeof *m->morph_weights);
  m->morph_positions = malloc((size_t)n * V * 3 * sizeof *m->morph_positions);
  m->morph_normals = nrm ? malloc((size_t)n * V * 3 * sizeof *m->morph_normals) : NULL;
  if (!m->morph_names || !m->morph_weights || !m->morph_positions || (nrm && !m->morph_normals)) return true;
  for (unsigned k = 0; k < am->mNumAnimMeshes; ++k) {
    const struct aiAnimMesh* a = am->mAnimMeshes[k];
    if (!a || !a->mVertices || a->mNumVertices != V) continue;
    const uint32_t t = m->morph_count;
    char name[32];
    snprintf(name, sizeof name, "target%u", t);
    if (!(m->morph_names[t] = dup_str(a->mName.length ? a->mName.data : name))) return true;
    m->morph_weights[t] = !fbx && isfinite(a->mWeight) ? a->mWeight : 0.0f;
    put_vec3(m->morph_positions + (size_t)t * V * 3, a->mVertices, V);
    if (nrm) put_vec3(m->morph_normals + (size_t)t * V * 3, a->mNormals, V);
    m->morph_count = t + 1;
  }
  return false;
}

static int build_mesh(builder* b, unsigned index, skio_mesh* m, skc_err* err) {
  const struct aiMesh* am = b->ai->mMeshes[index];
  char tmp[32];
  snprintf(tmp, sizeof tmp, "mesh%u", index);
  const char* geometry = am ? skio_collada_name_of(b->dae.geometries, b->dae.geometry_count, am->mName.data) : NULL;
  m->name = dup_str(geometry ? geometry : am && am->mName.length ? am->mName.data : tmp);
  m->gltf_mesh = m->gltf_primitive = m->gltf_node = m->gltf_scene = m->rigid_joint = m->parent_joint =
      -1; /* no document yet */
  if (!m->name) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  if (!am) return SKC_OK;
  size_t V = am->mNumVertices;
  m->vertex_count = am->mVertices ? V : 0;
  V = m->vertex_count;
  m->material = am->mMaterialIndex;
  bool oom = V && read_streams(am, V, m);
  if (!oom && am->mFaces && am->mNumFaces) {
    /* room for every face as a triangle (after aiProcess_Triangulate all are, except points and lines, which are
     * skipped): one pass over Assimp's face array instead of a counting pass first */
    if ((m->indices = malloc((size_t)am->mNumFaces * 3 * sizeof *m->indices + 1))) {
      size_t at = 0;
      for (unsigned f = 0; f < am->mNumFaces; ++f) {
        const struct aiFace* face = &am->mFaces[f];
        if (face->mNumIndices != 3 || !face->mIndices) continue;
        if (face->mIndices[0] >= V || face->mIndices[1] >= V || face->mIndices[2] >= V) continue;
        m->indices[at++] = face->mIndices[0];
        m->indices[at++] = face->mIndices[1];
        m->indices[at++] = face->mIndices[2];
      }
      m->index_count = at;
    } else {
      oom = true;
    }
  }
  if (oom) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for mesh \"%s\"", b->path, m->name);
  const size_t plen = strlen(b->path);
  const bool fbx = plen > 4 && !strcasecmp(b->path + plen - 4, ".fbx");
  if (V && am->mNumAnimMeshes && am->mAnimMeshes && read_morphs(b->out, am, V, fbx, m))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for the blend shapes of mesh \"%s\"", b->path, m->name);
  if (am->mNumBones && am->mBones && b->out->skeleton) return build_skin(b, am, m, err);
  return SKC_OK;
}

/* ---- animations --------------------------------------------------------------------------------- */
/* ---- unskinned meshes and rigid attachments ---------------------------------------------------------------- */

/* A joint is a bone when it or one of its ancestors is bound by a skin: a prop under the armature object (a joint
 * only as an ancestor of the bones) is placed, not bound to that object node. */
static bool joint_is_bone(const skio_scene* s, int32_t j) {
  for (; j >= 0 && s->skeleton; j = (int32_t)s->skeleton->parents[j]) {
    if (skio_joint_bound_anywhere(s, (uint32_t)j)) return true;
  }
  return false;
}

/* World transform of flat node i (the product of its ancestors' transforms), its nearest bone and its nearest joint
 * of any kind (the armature object's node too), itself included. */
static void node_world(const builder* b, int32_t i, float world[16], int32_t* bone, int32_t* joint) {
  skc_mat4_identity(world);
  *bone = *joint = -1;
  for (int32_t k = i; k >= 0; k = b->nodes[k].parent) {
    float local[16];
    skio_mat_from_ai(&b->nodes[k].node->mTransformation.a1, local);
    skc_mat4_mul(local, world, world);
    if (*joint < 0) *joint = b->nodes[k].joint;
    if (*bone < 0 && b->nodes[k].joint >= 0 && joint_is_bone(b->out, b->nodes[k].joint)) *bone = b->nodes[k].joint;
  }
}

/* Each mesh's node: the first node that instances it (its name, and its index as the group id). */
static int name_meshes(builder* b, skc_err* err) {
  for (uint32_t m = 0; m < b->out->mesh_count; ++m) b->out->meshes[m].node_group = -1;
  for (uint32_t i = 0; i < b->node_count; ++i) { /* one pass over the nodes in preorder: linear in the file */
    const struct aiNode* n = b->nodes[i].node;
    for (unsigned k = 0; n->mMeshes && k < n->mNumMeshes; ++k) {
      if (n->mMeshes[k] >= b->out->mesh_count) continue;
      skio_mesh* mesh = &b->out->meshes[n->mMeshes[k]];
      if (mesh->node_group >= 0) continue;
      mesh->node_group = (int32_t)i;
      const char* named = skio_collada_name_of(b->dae.nodes, b->dae.node_count, n->mName.data);
      if (n->mName.length && !(mesh->node_name = dup_str(named ? named : n->mName.data)))
        return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
    }
  }
  return SKC_OK;
}

/* Whether the nearest joint at or above flat node i is a keyed mesh node (mark_keyed_meshes). */
static bool keyed_holder(const builder* b, int32_t i) {
  for (int32_t k = i; k >= 0; k = b->nodes[k].parent)
    if (b->nodes[k].joint >= 0) return b->nodes[k].keyed_mesh;
  return false;
}

/* A Collada skin's bind_world (skio_mesh_bind_to_world), when its joints' rest pose is not its bind pose up to one
 * transform (a scene saved in a pose: a .dae of walker_rig.fbx). Assimp's bone offsets are IB BSM, the inverse binds
 * in the document's world (the world of the root node, which holds the turn of its up axis) and the bind shape after
 * them, so the bind pose of joint j is R IB(j)^-1 = R BSM offset(j)^-1: X = R BSM, R the root's transform. Without
 * it the writers took the top bound joint's rest for the bind (skio_mesh_top_rest_to_bind) and put the whole bind pose
 * where the file's pose has its root: walker_rig.fbx -> .dae -> .glb or .fbx came into Blender 0.23 off at rest
 * (session 76). */
static void collada_bind_world(const builder* b, uint32_t m) {
  skio_mesh* me = &b->out->meshes[m];
  if (!b->dae_bind_shape || !me->skin || !b->node_count || m >= b->ai->mNumMeshes || skio_mesh_rest_is_bind(b->out, me))
    return;
  float root[16];
  skio_mat_from_ai(&b->nodes[0].node->mTransformation.a1, root);
  skc_mat4_mul(root, b->dae_bind_shape + (size_t)m * 16, me->bind_world);
  me->bind_world_set = true;
}

/* Each mesh without a skin at the world place of the first node that instances it (skio_mesh_place); an FBX
 * file's skinned meshes note that place as their bind_world (the space of Assimp's offsets), a Collada file's their
 * bind shape's (collada_bind_world). */
static int place_meshes(builder* b, skc_err* err) {
  const bool fbx = has_extension(b->path, ".fbx");
  for (uint32_t m = 0; m < b->out->mesh_count; ++m) {
    if (b->out->meshes[m].skin && !fbx) {
      collada_bind_world(b, m);
      continue;
    }
    for (uint32_t i = 0; i < b->node_count; ++i) {
      const struct aiNode* n = b->nodes[i].node;
      bool uses = false;
      for (unsigned k = 0; n->mMeshes && k < n->mNumMeshes; ++k) uses |= n->mMeshes[k] == m;
      if (!uses) continue;
      float world[16];
      int32_t bone, joint;
      node_world(b, (int32_t)i, world, &bone, &joint);
      if (keyed_holder(b, (int32_t)i)) bone = -1; /* it hangs from the keyed node above it */
      skio_mesh* me = &b->out->meshes[m];
      if (me->skin) {
        memcpy(me->bind_world, world, sizeof world);
        me->bind_world_set = true;
        break;
      }
      int rc = skio_mesh_place(b->out, me, world, bone, err);
      if (rc) return rc;
      if (bone < 0) b->out->meshes[m].parent_joint = joint; /* a prop under the armature object */
      break;
    }
  }
  return SKC_OK;
}

static bool has_extension(const char* path, const char* ext) {
  const char* dot = strrchr(path, '.');
  return dot && strcasecmp(dot, ext) == 0;
}

/* An ASCII .fbx source as the binary file it stands for (skio_fbx_binary_of), so the binary passes read it as Assimp
 * did (import_fbx). Text that does not convert stays text: Assimp read it alone, and the passes that read text
 * (skio_fbx_null_names, skio_fbx_ascii_stack_list) still do. False when out of memory. */
static bool source_as_binary(builder* b) {
  uint8_t* bin = NULL;
  size_t bn = 0;
  skc_err e = {0};
  if (!b->src || !has_extension(b->path, ".fbx") || skio_fbx_binary_of(b->src, b->src_n, &bin, &bn, &e) || !bin)
    return e.code != SKC_OUT_OF_MEMORY;
  free(b->src);
  b->src = bin;
  b->src_n = bn;
  return true;
}

/* The source file's bytes (read on the first call, then kept: builder.src; an ASCII FBX as binary FBX), NULL when it
 * cannot be read; *oom set when memory ran out reading it. */
static const uint8_t* source_bytes(builder* b, size_t* n, bool* oom) {
  if (!b->src_read) {
    bool short_of_memory = false;
    b->src = (uint8_t*)skio_read_whole(b->path, (size_t)1 << 32, &b->src_n, &short_of_memory);
    if (!short_of_memory && !source_as_binary(b)) {
      free(b->src);
      b->src = NULL;
      short_of_memory = true;
    }
    b->src_read = !short_of_memory; /* out of memory: every caller fails anyway */
    if (short_of_memory) *oom = true;
  }
  *n = b->src_n;
  return b->src;
}

/* A skinned FBX mesh whose Model has a geometric transform (fbx_geometric.c: 3ds Max writes one for most objects)
 * comes from Assimp 5.2.5 without it, off by it from where Blender and the FBX SDK draw it (on top of the skin's
 * mesh matrix); its vertices are moved by it here. Unskinned meshes have it already (Assimp folds it into their
 * node). A name two Models with geometric transforms share is left alone, as is a file the tree parser refuses. */
static int fbx_geometric_skins(builder* b, skc_err* err) {
  bool any = false;
  for (uint32_t m = 0; m < b->out->mesh_count; ++m) any |= b->out->meshes[m].skin != NULL;
  if (!any || !has_extension(b->path, ".fbx")) return SKC_OK;
  size_t n = 0;
  bool oom = false;
  const uint8_t* data = source_bytes(b, &n, &oom);
  skio_fbx_geometric* geo = NULL;
  uint32_t count = 0;
  skc_err ignored = {0};
  if (data && skio_fbx_is_binary(data, n) && skio_fbx_geometric_list(data, n, &geo, &count, &ignored) != SKC_OK)
    oom = ignored.code == SKC_OUT_OF_MEMORY;
  if (oom) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  int rc = SKC_OK;
  for (uint32_t i = 0; i < count && !rc; ++i) {
    uint32_t same = 0;
    for (uint32_t k = 0; k < count; ++k) same += !strcmp(geo[k].name, geo[i].name);
    float g[16];
    skio_fbx_geometric_float(geo[i].g, g);
    for (uint32_t m = 0; same == 1 && m < b->out->mesh_count && !rc; ++m) {
      skio_mesh* me = &b->out->meshes[m];
      if (me->skin && me->node_name && !strcmp(me->node_name, geo[i].name)) rc = skio_mesh_transform(me, g, err);
    }
  }
  skio_fbx_geometric_free(geo, count);
  return rc;
}

/* An orthographic view found in the file: the camera's (node's) name, half width and height, clip planes (0: not
 * given). */
typedef struct ortho_view {
  const char* name;
  double xmag, ymag, znear, zfar;
} ortho_view;

static int cmp_ortho_view(const void* a, const void* b) {
  return strcmp(((const ortho_view*)a)->name, ((const ortho_view*)b)->name);
}

/* Each camera object named in views (sorted by name) is made orthographic with that view. */
static void set_ortho(skio_scene* s, const ortho_view* views, size_t n) {
  for (uint32_t k = 0; n && k < s->object_count; ++k) {
    skio_object* o = &s->objects[k];
    const ortho_view key = {o->name, 0, 0, 0, 0};
    const ortho_view* v = o->kind == SKIO_OBJECT_CAMERA ? bsearch(&key, views, n, sizeof *views, cmp_ortho_view) : NULL;
    if (!v || !(v->xmag > 0.0)) continue;
    o->ortho = 1;
    o->xmag = (float)v->xmag;
    o->ymag = v->ymag > 0.0 ? (float)v->ymag : o->xmag / (o->aspect > 0.0f ? o->aspect : 1.0f);
    if (v->znear > 0.0 && v->zfar > v->znear) {
      o->znear = (float)v->znear;
      o->zfar = (float)v->zfar;
    }
  }
}

/* Orthographic cameras, which Assimp 5.2 reads as perspective ones: a binary FBX's (fbx_cameras.c: the view's half
 * width is OrthoZoom / 2, as Blender reads and writes it) and a Collada document's (collada_cameras.c: xmag, ymag).
 * A file the readers refuse keeps Assimp's cameras. SKC_OUT_OF_MEMORY is the only failure. */
static int ortho_cameras(builder* b, skc_err* err) {
  skio_scene* s = b->out;
  uint32_t cams = 0;
  for (uint32_t k = 0; k < s->object_count; ++k) cams += s->objects[k].kind == SKIO_OBJECT_CAMERA;
  if (!cams) return SKC_OK;
  bool oom = false;
  size_t n = 0;
  const uint8_t* data = source_bytes(b, &n, &oom);
  skio_fbx_ortho* fbx = NULL;
  skio_collada_ortho* dae = NULL;
  uint32_t nf = 0, nd = 0;
  skc_err ignored = {0};
  int rc = oom ? SKC_OUT_OF_MEMORY : SKC_OK;
  if (!rc && data && skio_fbx_is_binary(data, n) && skio_fbx_ortho_list(data, n, &fbx, &nf, &ignored) != SKC_OK &&
      ignored.code == SKC_OUT_OF_MEMORY)
    rc = SKC_OUT_OF_MEMORY;
  if (!rc && data && !skio_fbx_is_binary(data, n) &&
      skio_text_find((const char*)data, (const char*)data + (n < 4096 ? n : 4096), "<COLLADA"))
    rc = skio_collada_ortho_list((const char*)data, n, &dae, &nd, &ignored);
  ortho_view* views = nf + nd ? malloc(((size_t)nf + nd) * sizeof *views) : NULL;
  if (!rc && nf + nd && !views) rc = SKC_OUT_OF_MEMORY;
  for (uint32_t i = 0; views && i < nf; ++i) views[i] = (ortho_view){fbx[i].name, fbx[i].zoom / 2.0, 0.0, 0.0, 0.0};
  for (uint32_t i = 0; views && i < nd; ++i)
    views[nf + i] = (ortho_view){dae[i].node, dae[i].xmag, dae[i].ymag, dae[i].znear, dae[i].zfar};
  if (views) {
    qsort(views, (size_t)nf + nd, sizeof *views, cmp_ortho_view);
    set_ortho(s, views, (size_t)nf + nd);
  }
  free(views);
  skio_fbx_ortho_free(fbx, nf);
  skio_collada_ortho_free(dae, nd);
  return rc ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path) : SKC_OK;
}

/* An FBX's OrthoZoom is the view's width in the exporting tool's units (Blender writes its ortho_scale, metres,
 * unscaled, though it scales the clip planes into the file's unit): the half widths into the file's unit, as every
 * other length of the scene. */
static void fbx_ortho_in_units(skio_scene* s) {
  if (!s->frame.set || !(s->frame.unit_cm > 0.0)) return;
  const float per_metre = (float)(100.0 / s->frame.unit_cm);
  for (uint32_t k = 0; k < s->object_count; ++k) {
    skio_object* o = &s->objects[k];
    if (o->kind != SKIO_OBJECT_CAMERA || !o->ortho) continue;
    o->xmag *= per_metre;
    o->ymag *= per_metre;
  }
}

/* A Collada file's objects named as its joints and mesh nodes are: by the node's name attribute where Assimp took its
 * id (Blender's control bone <node id="Rig_ctrl_IK" name="ctrl_IK" type="JOINT"> was an empty "Rig_ctrl_IK"), and
 * the mesh node an object hangs from likewise. */
static int collada_object_names(builder* b, skc_err* err) {
  for (uint32_t i = 0; b->dae.node_count && i < b->out->object_count; ++i) {
    skio_object* o = &b->out->objects[i];
    char** names[2] = {&o->name, &o->parent_mesh};
    for (int k = 0; k < 2; ++k) {
      const char* named = *names[k] ? skio_collada_name_of(b->dae.nodes, b->dae.node_count, *names[k]) : NULL;
      if (!named || !strcmp(named, *names[k])) continue;
      char* copy = dup_str(named);
      if (!copy) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
      free(*names[k]);
      *names[k] = copy;
    }
  }
  return SKC_OK;
}

/* Cameras, lights and empty nodes - no joint, no mesh, none below them (a locator, a spawn marker) - become the
 * scene's objects (scene_objects.c), which the glTF writer writes; b->object_of then maps each node to its object,
 * so that build_anim keeps a clip's keys on such a node (skio_scene.object_channels). SKC_OUT_OF_MEMORY is the only
 * failure. */
static int read_objects(builder* b, skc_err* err) {
  skio_object_source* src = calloc((size_t)b->node_count + 1, sizeof *src);
  if (!src) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  for (uint32_t i = b->node_count; i-- > 0;) { /* flatten is depth-first: children after their parent */
    src[i].node = b->nodes[i].node;
    src[i].parent = b->nodes[i].parent;
    src[i].joint = b->nodes[i].joint;
    src[i].held |= b->nodes[i].joint >= 0 || b->nodes[i].node->mNumMeshes > 0;
    if (src[i].held && b->nodes[i].parent >= 0) src[b->nodes[i].parent].held = true;
  }
  if (!(b->object_of = malloc(((size_t)b->node_count + 1) * sizeof *b->object_of))) {
    free(src);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  }
  int rc = skio_scene_read_objects(b->out, b->ai, src, b->node_count, b->object_of, err);
  if (!rc) rc = ortho_cameras(b, err);
  if (!rc) rc = collada_object_names(b, err);
  free(src);
  return rc;
}

/* Objects' keys of a Collada timeline that skio_collada_apply_clips cut into clips: not carried, said. */
static void drop_object_channels(skio_scene* s) {
  char line[120];
  snprintf(line, sizeof line, "not read: %u clip channel(s) of cameras, lights or empties (placed at rest)",
           s->object_channel_count);
  skio_scene_note(s, line);
  skio_scene_free_object_channels(s);
}

/* n position or scaling keys: times in seconds (ticks / tps) and xyz values. */
static void copy_vector_keys(const struct aiVectorKey* keys, unsigned n, double tps, double* t, float* v) {
  for (unsigned k = 0; k < n; ++k) {
    t[k] = keys[k].mTime / tps;
    v[k * 3 + 0] = keys[k].mValue.x;
    v[k * 3 + 1] = keys[k].mValue.y;
    v[k * 3 + 2] = keys[k].mValue.z;
  }
}

/* A channel's keys (times in seconds: tps ticks a second); false when out of memory (what was made is ch's). */
static bool copy_keys(const struct aiNodeAnim* na, double tps, skio_channel* ch) {
  unsigned np = na->mPositionKeys ? na->mNumPositionKeys : 0;
  unsigned nr = na->mRotationKeys ? na->mNumRotationKeys : 0;
  unsigned ns = na->mScalingKeys ? na->mNumScalingKeys : 0;
  ch->pos_time = malloc(np * sizeof(double) + 1);
  ch->rot_time = malloc(nr * sizeof(double) + 1);
  ch->scl_time = malloc(ns * sizeof(double) + 1);
  ch->pos = malloc(np * 3 * sizeof(float) + 1);
  ch->rot = malloc(nr * 4 * sizeof(float) + 1);
  ch->scl = malloc(ns * 3 * sizeof(float) + 1);
  if (!ch->pos_time || !ch->rot_time || !ch->scl_time || !ch->pos || !ch->rot || !ch->scl) return false;
  ch->pos_count = np;
  ch->rot_count = nr;
  ch->scl_count = ns;
  copy_vector_keys(na->mPositionKeys, np, tps, ch->pos_time, ch->pos);
  for (unsigned k = 0; k < nr; ++k) {
    ch->rot_time[k] = na->mRotationKeys[k].mTime / tps;
    ch->rot[k * 4 + 0] = na->mRotationKeys[k].mValue.x;
    ch->rot[k * 4 + 1] = na->mRotationKeys[k].mValue.y;
    ch->rot[k * 4 + 2] = na->mRotationKeys[k].mValue.z;
    ch->rot[k * 4 + 3] = na->mRotationKeys[k].mValue.w;
  }
  copy_vector_keys(na->mScalingKeys, ns, tps, ch->scl_time, ch->scl);
  return true;
}

/* The keys of object `object` in clip `anim` (an animated camera, light or empty), appended to the scene's. */
static int object_channel(builder* b, const struct aiNodeAnim* na, double tps, unsigned anim, int32_t object,
                          skc_err* err) {
  skio_scene* s = b->out;
  skio_object_channel* grown = realloc(s->object_channels, ((size_t)s->object_channel_count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  s->object_channels = grown;
  skio_object_channel* oc = &grown[s->object_channel_count++];
  memset(oc, 0, sizeof *oc);
  oc->anim = anim;
  oc->ch.joint = (uint32_t)object;
  return copy_keys(na, tps, &oc->ch) ? SKC_OK : skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
}

/* Clip a's keys of nodes with a mesh without bones at or below them that the scene holds no channel for (keyed_mesh 3:
 * read without animated_nodes): the scene keeps no motion for those meshes (an edit of the file in place keeps the
 * file's clip; the other writers write them at rest), so the scene's note names them. Clears the marks. */
static void note_keyed_meshes(builder* b, const skio_anim* a) {
  uint32_t count = 0, first = 0;
  for (uint32_t i = 0; i < b->node_count; ++i)
    if (b->keyed_mesh[i] == 3) {
      if (!count++) first = i;
      b->keyed_mesh[i] = 1;
    }
  if (!count) return;
  char line[400];
  snprintf(
      line, sizeof line,
      "clip \"%.80s\" keys %u node(s) of meshes that are no joints (\"%.80s\"%s): read without their motion "
      "(convert reads them as nodes of their own; written other than by an edit in place, the meshes stay at rest)",
      a->name, count, b->nodes[first].node->mName.data, count > 1 ? ", ..." : "");
  skio_scene_note(b->out, line);
}

static int build_anim(builder* b, const struct aiAnimation* aa, unsigned index, skio_anim* a, skc_err* err) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "anim%u", index);
  a->name = dup_str(aa && aa->mName.length ? aa->mName.data : tmp);
  if (!a->name) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  if (!aa) return SKC_OK;
  a->ticks_per_second = aa->mTicksPerSecond;
  double tps = aa->mTicksPerSecond > 0.0 ? aa->mTicksPerSecond : 25.0;
  a->duration = aa->mDuration / tps;
  if (!aa->mNumChannels || !b->out->skeleton) return SKC_OK;
  a->channels = calloc(aa->mNumChannels, sizeof *a->channels);
  if (!a->channels) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  for (unsigned c = 0; c < aa->mNumChannels; ++c) {
    const struct aiNodeAnim* na = aa->mChannels[c];
    if (!na) continue;
    int32_t n = find_node(b, &na->mNodeName);
    if (n >= 0 && b->nodes[n].joint < 0 && b->object_of && b->object_of[n] >= 0) {
      int rc = object_channel(b, na, tps, index, b->object_of[n], err);
      if (rc) return rc;
      continue;
    }
    if (n >= 0 && b->nodes[n].joint < 0 && b->keyed_mesh) b->keyed_mesh[n] |= 2;
    if (n < 0 || b->nodes[n].joint < 0) continue;
    skio_channel* ch = &a->channels[a->channel_count++];
    ch->joint = (uint32_t)b->nodes[n].joint;
    if (!copy_keys(na, tps, ch))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for animation \"%s\"", b->path, a->name);
  }
  return SKC_OK;
}

/* ---- blend shape keys: Assimp's morph mesh channels ---------------------------------------------------------- */
/* Target t's values in channel mc as (time, weight) pairs in key order (finite ones); returns their count. */
static size_t morph_track(const struct aiMeshMorphAnim* mc, unsigned t, double tps, double* tt, float* vv) {
  size_t n = 0;
  for (unsigned k = 0; k < mc->mNumKeys; ++k) {
    const struct aiMeshMorphKey* key = &mc->mKeys[k];
    for (unsigned i = 0; key->mValues && key->mWeights && i < key->mNumValuesAndWeights; ++i) {
      const double x = key->mTime / tps, w = key->mWeights[i];
      if (key->mValues[i] != t || !isfinite(x) || !isfinite(w) || (n && x < tt[n - 1])) continue;
      tt[n] = x, vv[n++] = (float)w;
      break;
    }
  }
  return n;
}

/* Every target's weight at each of channel mc's key times (Assimp lists at a key only the targets keyed there): the
 * target's own keys interpolated linearly, held before the first and after the last; its default weight when it has
 * none. *time / *w (keys x T) malloc'd; false when out of memory. */
static bool morph_dense(const struct aiMeshMorphAnim* mc, double tps, const skio_mesh* m, double** time, float** w,
                        size_t* keys) {
  const size_t K = mc->mNumKeys, T = m->morph_count;
  double* t = malloc((K + 1) * sizeof *t);
  double* tt = malloc((K + 1) * sizeof *tt);
  float* vv = malloc((K + 1) * sizeof *vv);
  float* out = K <= SIZE_MAX / sizeof(float) / (T + 1) ? malloc((K * T + 1) * sizeof *out) : NULL;
  size_t n = 0;
  for (size_t k = 0; t && k < K; ++k) {
    const double x = mc->mKeys[k].mTime / tps;
    if (isfinite(x) && (!n || x > t[n - 1])) t[n++] = x;
  }
  for (uint32_t j = 0; t && tt && vv && out && j < T; ++j) {
    const size_t c = morph_track(mc, j, tps, tt, vv);
    for (size_t k = 0, a = 0; k < n; ++k) {
      while (a + 1 < c && tt[a + 1] <= t[k]) ++a;
      float v = c ? vv[a] : m->morph_weights ? m->morph_weights[j] : 0.0f;
      if (c > a + 1 && t[k] > tt[a]) v += (vv[a + 1] - vv[a]) * (float)((t[k] - tt[a]) / (tt[a + 1] - tt[a]));
      out[k * T + j] = v;
    }
  }
  free(tt);
  free(vv);
  if (!t || !out || !n) {
    free(t);
    free(out);
    *time = NULL, *w = NULL, *keys = 0;
    return t && out;
  }
  *time = t, *w = out, *keys = n;
  return true;
}

/* Channel mc's keys on the meshes with blend shapes of one node. */
static int node_morph_keys(builder* b, const struct aiNode* node, const struct aiMeshMorphAnim* mc, double tps,
                           uint32_t anim, uint32_t* matched) {
  for (unsigned k = 0; node->mMeshes && k < node->mNumMeshes; ++k) {
    if (node->mMeshes[k] >= b->out->mesh_count || !b->out->meshes[node->mMeshes[k]].morph_count) continue;
    skio_mesh* m = &b->out->meshes[node->mMeshes[k]];
    double* t = NULL;
    float* w = NULL;
    size_t keys = 0;
    if (!morph_dense(mc, tps, m, &t, &w, &keys)) return SKC_OUT_OF_MEMORY;
    const int rc = skio_mesh_add_morph_keys(m, anim, t, w, keys);
    free(t);
    free(w);
    if (rc) return rc;
    *matched += keys > 0;
  }
  return SKC_OK;
}

/* Clip anim's morph channel mc on the meshes of its node (named "<node>" or, by Assimp's FBX reader, "<node>*<n>"):
 * of every node of that name, as Assimp's reader keeps one channel for same-named Models (an FBX object of two
 * materials written as two Models "Leg", each with its shapes and the same curves). *matched counts the meshes given
 * keys. SKC_OUT_OF_MEMORY is the only failure. */
static int morph_channel(builder* b, const struct aiMeshMorphAnim* mc, double tps, uint32_t anim, uint32_t* matched) {
  struct aiString name = mc->mName;
  const char* star = memchr(name.data, '*', name.length < MAXLEN ? name.length : MAXLEN - 1);
  if (star && star[1] && strspn(star + 1, "0123456789") == strlen(star + 1))
    name.length = (ai_uint32)(star - name.data);
  name.data[name.length < MAXLEN ? name.length : MAXLEN - 1] = '\0';
  for (uint32_t i = 0; i < b->node_count; ++i) {
    const struct aiNode* node = b->nodes[i].node;
    if (node->mName.length == name.length && !memcmp(node->mName.data, name.data, name.length)) {
      const int rc = node_morph_keys(b, node, mc, tps, anim, matched);
      if (rc) return rc;
    }
  }
  return SKC_OK;
}

/* The blend shape keys of every clip (aiAnimation::mMorphMeshChannels: FBX DeformPercent curves) on their meshes
 * (skio_mesh.morph_keys); a channel no mesh with blend shapes takes is named in a note. */
static int read_morph_keys(builder* b, skc_err* err) {
  const struct aiScene* ai = b->ai;
  uint32_t lost = 0;
  const char* first = NULL;
  for (unsigned a = 0; a < ai->mNumAnimations && a < b->out->anim_count; ++a) {
    const struct aiAnimation* aa = ai->mAnimations[a];
    const double tps = aa && aa->mTicksPerSecond > 0.0 ? aa->mTicksPerSecond : 25.0;
    for (unsigned c = 0; aa && aa->mMorphMeshChannels && c < aa->mNumMorphMeshChannels; ++c) {
      if (!aa->mMorphMeshChannels[c]) continue;
      uint32_t matched = 0;
      if (morph_channel(b, aa->mMorphMeshChannels[c], tps, a, &matched))
        return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for the blend shape keys", b->path);
      if (!matched && !lost++) first = aa->mMorphMeshChannels[c]->mName.data;
    }
  }
  if (lost) {
    char line[200];
    snprintf(line, sizeof line,
             "not read: the blend shape keys of %u clip channel(s) (\"%.60s\"%s): no mesh of their "
             "node has blend shapes",
             lost, first ? first : "", lost > 1 ? ", ..." : "");
    skio_scene_note(b->out, line);
  }
  return SKC_OK;
}

static void shift_channel(skio_channel* ch, double dt) {
  for (uint32_t k = 0; k < ch->pos_count; ++k) ch->pos_time[k] += dt;
  for (uint32_t k = 0; k < ch->rot_count; ++k) ch->rot_time[k] += dt;
  for (uint32_t k = 0; k < ch->scl_count; ++k) ch->scl_time[k] += dt;
}

/* Clip `a` moved dt seconds later on the timeline: every key of its joints and objects, and its end. */
static void shift_clip(skio_scene* s, uint32_t a, double dt) {
  skio_anim* an = &s->anims[a];
  for (uint32_t c = 0; c < an->channel_count; ++c) shift_channel(&an->channels[c], dt);
  for (uint32_t k = 0; k < s->object_channel_count; ++k)
    if (s->object_channels[k].anim == a) shift_channel(&s->object_channels[k].ch, dt);
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    for (uint32_t k = 0; k < s->meshes[m].morph_key_count; ++k) {
      skio_morph_keys* mk = &s->meshes[m].morph_keys[k];
      for (uint32_t i = 0; mk->anim == a && i < mk->key_count; ++i) mk->time[i] += dt;
    }
  an->duration += dt;
}

/* An FBX file's clips back where the file has them on its timeline: Assimp 5.2.5 starts every clip at 0
 * (fbx_stacks.c), so a Blender clip keyed from frame 1 came out one frame early in every file written from it.
 * Animations are matched to stacks by name, in order; a file the stack readers refuse keeps Assimp's times.
 * SKC_OUT_OF_MEMORY is the only failure. */
static int fbx_clip_starts(builder* b, skc_err* err) {
  skio_scene* s = b->out;
  if (!s->anim_count || !has_extension(b->path, ".fbx")) return SKC_OK;
  bool oom = false;
  size_t n = 0;
  const uint8_t* data = source_bytes(b, &n, &oom);
  skio_fbx_stack* stacks = NULL;
  uint32_t count = 0;
  skc_err ignored = {0};
  int rc = oom ? SKC_OUT_OF_MEMORY : SKC_OK;
  const bool binary = data && skio_fbx_is_binary(data, n);
  const bool ascii = data && !binary &&
                     skio_text_find((const char*)data, (const char*)data + (n < 4096 ? n : 4096), "FBXHeaderExtension");
  if (binary && skio_fbx_stack_list(data, n, &stacks, &count, &ignored) && ignored.code == SKC_OUT_OF_MEMORY)
    rc = SKC_OUT_OF_MEMORY;
  if (ascii && skio_fbx_ascii_stack_list((const char*)data, n, &stacks, &count, &ignored)) rc = SKC_OUT_OF_MEMORY;
  uint64_t used[4] = {0}; /* at most 256 stacks */
  for (uint32_t a = 0; !rc && a < s->anim_count; ++a)
    for (uint32_t k = 0; k < count; ++k) {
      if ((used[k / 64] >> (k % 64) & 1u) || strcmp(stacks[k].name, s->anims[a].name) != 0) continue;
      used[k / 64] |= (uint64_t)1 << (k % 64);
      if (stacks[k].start != 0.0 && isfinite(stacks[k].start)) shift_clip(s, a, stacks[k].start);
      break;
    }
  skio_fbx_stack_free(stacks, count);
  return rc ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path) : SKC_OK;
}

/* The value of shape key `name` of the mesh whose object is `model` (NULL: any) among list[0, count): *w, and 1 when
 * exactly one value is found, 2 when values disagree, 0 when there is none. */
static int shape_value(const skio_fbx_shape_weight* list, uint32_t count, const char* model, const char* name,
                       double* w) {
  int found = 0;
  for (uint32_t k = 0; k < count && found < 2; ++k) {
    if (strcmp(list[k].name, name) != 0 || (model && (!list[k].model || strcmp(list[k].model, model) != 0))) continue;
    found = found && list[k].weight != *w ? 2 : 1;
    *w = list[k].weight;
  }
  return found;
}

/* An FBX file's shape key values (fbx_shapes.c: each BlendShapeChannel's DeformPercent) as its blend shapes' default
 * weights, matched by the mesh's object and the key's name, else by the name alone: read_morphs left them 0 (Assimp
 * gives the weight at which a channel reaches its shape), and a file written from it lost the values ("Thin" at 0.4
 * came out of `convert` at 0). Keys of one name on two objects ("Key 1") keep their own values (session 56: by name
 * alone, two different values left both at 0); a name whose values still disagree is left at 0.
 * SKC_OUT_OF_MEMORY is the only failure. */
static int fbx_shape_values(builder* b, skc_err* err) {
  skio_scene* s = b->out;
  bool any = false;
  for (uint32_t m = 0; m < s->mesh_count; ++m) any |= s->meshes[m].morph_count > 0;
  if (!any || !has_extension(b->path, ".fbx")) return SKC_OK;
  bool oom = false;
  size_t n = 0;
  const uint8_t* data = source_bytes(b, &n, &oom);
  skio_fbx_shape_weight* list = NULL;
  uint32_t count = 0;
  skc_err ignored = {0};
  if (data && skio_fbx_is_binary(data, n) && skio_fbx_shape_weights(data, n, &list, &count, &ignored) != SKC_OK)
    oom = ignored.code == SKC_OUT_OF_MEMORY;
  for (uint32_t m = 0; !oom && m < s->mesh_count; ++m) {
    skio_mesh* me = &s->meshes[m];
    for (uint32_t t = 0; t < me->morph_count; ++t) {
      double w = 0.0;
      int found = me->node_name ? shape_value(list, count, me->node_name, me->morph_names[t], &w) : 0;
      if (!found) found = shape_value(list, count, NULL, me->morph_names[t], &w);
      if (found == 1) me->morph_weights[t] = (float)w;
    }
  }
  skio_fbx_shape_weights_free(list, count);
  return oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path) : SKC_OK;
}

/* A binary FBX file's custom properties (fbx_user_props.c: its Models' user properties) into s->user_props and its
 * Materials' into s->material_props, for the glTF writer's "extras"; those of a type not kept are named in a note. A
 * file the reader refuses has none. SKC_OUT_OF_MEMORY is the only failure. */
static int fbx_custom_props(builder* b, skc_err* err) {
  skio_scene* s = b->out;
  if (!has_extension(b->path, ".fbx")) return SKC_OK;
  bool oom = false;
  size_t n = 0;
  const uint8_t* data = source_bytes(b, &n, &oom);
  uint32_t skipped = 0;
  skc_err ignored = {0};
  if (data && skio_fbx_is_binary(data, n) &&
      skio_fbx_user_props(data, n, &s->user_props, &s->user_prop_count, &skipped, &ignored) != SKC_OK)
    oom = ignored.code == SKC_OUT_OF_MEMORY;
  uint32_t more = 0, geo = 0; /* the materials' and the meshes' */
  if (!oom && data && skio_fbx_is_binary(data, n) &&
      skio_fbx_material_props(data, n, &s->material_props, &s->material_prop_count, &more, &ignored) != SKC_OK)
    oom = ignored.code == SKC_OUT_OF_MEMORY;
  if (!oom && data && skio_fbx_is_binary(data, n) &&
      skio_fbx_mesh_props(data, n, &s->mesh_props, &s->mesh_prop_count, &geo, &ignored) != SKC_OK)
    oom = ignored.code == SKC_OUT_OF_MEMORY;
  skipped += more + geo;
  if (skipped) {
    char line[120];
    snprintf(line, sizeof line, "not read: %u custom propert%s of a type glTF extras do not take", skipped,
             skipped == 1 ? "y" : "ies");
    skio_scene_note(s, line);
  }
  return oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path) : SKC_OK;
}

/* A binary FBX file with no skin and no bone (fbx_geometric.c: no LimbNode / Limb Model): its skeleton is the node
 * tree of empties (spin_rig.fbx: an animated machine), which Blender's importer shows as empties; the glTF writer made
 * a skin of it and Blender's glTF importer an armature. */
static void fbx_no_bones(builder* b) {
  skio_scene* s = b->out;
  if (!s->skeleton || !has_extension(b->path, ".fbx")) return;
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].skin) return;
  bool oom = false;
  size_t n = 0;
  const uint8_t* data = source_bytes(b, &n, &oom);
  s->no_bones = data && skio_fbx_is_binary(data, n) && skio_fbx_limb_count(data, n) == 0;
}

/* ---- Ogre skeleton link --------------------------------------------------------------------------- */
static bool ends_with_ci(const char* s, const char* tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcasecmp(s + n - t, tail) == 0;
}

static bool name_char(unsigned char c) { return c > 32 && c < 127 && c != '"' && c != '<' && c != '>' && c != '='; }

/* An Ogre mesh names its skeleton (binary: the M_MESH_SKELETON_LINK chunk's string; XML: <skeletonlink
 * name="...">); Assimp 5.2.5 reads it from the mesh's folder and, when it is missing, loads the mesh without bones
 * and only logs the error. The reason for that case, or NULL: the first "<name>.skeleton" in the file (at most
 * 64 MiB read) that does not exist beside it. */
static char* ogre_missing_skeleton(const char* path) {
  if (!ends_with_ci(path, ".mesh") && !ends_with_ci(path, ".mesh.xml")) return NULL;
  struct stat fst;
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  const size_t cap = fstat(fileno(f), &fst) == 0 && fst.st_size > 0 && fst.st_size < (64 << 20) ? (size_t)fst.st_size
                                                                                                : (size_t)64 << 20;
  char* buf = malloc(cap + 1);
  size_t n = buf ? fread(buf, 1, cap, f) : 0;
  fclose(f);
  if (!buf) return NULL;
  char* reason = NULL;
  static const char k_ext[] = ".skeleton";
  for (size_t i = 0; i + sizeof k_ext - 1 <= n && !reason; ++i) {
    if (memcmp(buf + i, k_ext, sizeof k_ext - 1) != 0) continue;
    size_t a = i, e = i + sizeof k_ext - 1;
    while (a > 0 && name_char((unsigned char)buf[a - 1]) && i - a < 512) --a;
    if (a == i) continue;
    char name[600];
    snprintf(name, sizeof name, "%.*s", (int)(e - a), buf + a);
    const char* slash = strrchr(path, '/');
    char beside[4600];
    snprintf(beside, sizeof beside, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, name);
    struct stat st;
    if (stat(beside, &st) == 0) break; /* present: the missing bones have another cause */
    char msg[800];
    snprintf(msg, sizeof msg, "its Ogre skeleton \"%s\" (named in the mesh) is not beside it", name);
    reason = dup_str(msg);
  }
  free(buf);
  return reason;
}

/* ---- entry -------------------------------------------------------------------------------------- */
/* Opened without blocking (a FIFO without a writer would block open() forever) and checked to be a regular file
 * before anything reads it: FIFOs, devices and sockets never end or never start. */
static int check_file(const char* path, skc_err* err) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
      return skc_fail(err, SKC_IO, "%s: is a directory, not a file", path);
    return skc_fail(err, SKC_IO, "%s: cannot open: %s", path, strerror(e));
  }
  struct stat st;
  int ok = fstat(fd, &st) == 0;
  int e = errno;
  close(fd);
  if (!ok) return skc_fail(err, SKC_IO, "%s: cannot open: %s", path, strerror(e));
  if (S_ISDIR(st.st_mode)) return skc_fail(err, SKC_IO, "%s: is a directory, not a file", path);
  if (!S_ISREG(st.st_mode))
    return skc_fail(err, SKC_IO, "%s: not a regular file (%s): refused", path,
                    S_ISFIFO(st.st_mode)   ? "a FIFO"
                    : S_ISSOCK(st.st_mode) ? "a socket"
                                           : "a device");
  if (st.st_size == 0) return skc_fail(err, SKC_FORMAT, "%s: file is empty", path);
  return SKC_OK;
}

/* Address space of this process in bytes (/proc/self/statm), 0 when unknown. */
static uint64_t memory_now(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  unsigned long long size = 0;
  if (!f) return 0;
  if (fscanf(f, "%llu", &size) != 1) size = 0;
  fclose(f);
  long page = sysconf(_SC_PAGESIZE);
  return size * (uint64_t)(page > 0 ? page : 4096);
}

/* Peak address space of this process in bytes (VmPeak), 0 when unknown. */
static uint64_t memory_peak(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long kib = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmPeak: %llu kB", &kib) == 1) break;
  if (f) fclose(f);
  return (uint64_t)kib << 10;
}

/* In the child: the address space may grow by at most limit_mb MiB from what the fork inherited (so sanitizer
 * shadow memory and the caller's own heap do not count against the file). */
static void limit_memory(uint64_t start, uint32_t limit_mb) {
  if (!limit_mb) return;
  uint64_t cap = start + ((uint64_t)limit_mb << 20);
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0) return;
  if (rl.rlim_max != RLIM_INFINITY && cap > rl.rlim_max) cap = rl.rlim_max;
  rl.rlim_cur = (rlim_t)cap;
  (void)setrlimit(RLIMIT_AS, &rl);
}

/* What import_ai had to mend before Assimp would read the file. */
typedef struct import_fixes {
  uint32_t morphs_dropped;        /* Collada morph controllers left out (Assimp 5.2 refuses them) */
  size_t fbx_records;             /* binary FBX: end-of-children records put back (fbx_fixup.h) */
  uint32_t ogre_lods;             /* an Ogre [MeshSerializer_v1.100] mesh read in the 1.8 layout (skio_ogre.h): its LOD
                                     levels left out */
  char why[SKC_ERR_MESSAGE_SIZE]; /* why a mended copy could not be made, when that says more than Assimp */
  char fbx_text_why[SKC_ERR_MESSAGE_SIZE]; /* ASCII FBX: why it was not read as binary FBX (import_fbx_text) */
} import_fixes;

/* Assimp's import of path, every file through skio_ai_fileio: NULL, with fx->why, when Assimp asked for a file beside
 * it that is there but is no regular file (an OBJ's material library that is a FIFO kept open() waiting for a writer
 * until the isolated reader's time limit; a device reads without end), rather than a scene read without it. */
static const struct aiScene* import_regular(const char* path, unsigned int flags, const struct aiPropertyStore* props,
                                            import_fixes* fx) {
  skio_ai_files files = {0};
  struct aiFileIO io = skio_ai_fileio(&files);
  const struct aiScene* ai = aiImportFileExWithProperties(path, flags, &io, props);
  if (!files.refused[0]) return ai;
  aiReleaseImport(ai);
  snprintf(fx->why, sizeof fx->why, "it names \"%.200s\", which is %s, not a regular file: refused", files.refused,
           files.refused_kind);
  return NULL;
}

/* A Collada file read by Assimp: from a copy whose unbound material symbols are bound to the placeholder
 * (skio_collada_bind_unbound: Assimp gave such a mesh the first material) when it has any, and when Assimp refuses
 * it, without its morph controllers (skio_collada_without_morphs). */
static const struct aiScene* import_dae(const char* path, unsigned int flags, const struct aiPropertyStore* props,
                                        import_fixes* fx) {
  size_t n = 0, bn = 0, pn = 0;
  char* xml = skio_read_whole(path, (size_t)1 << 30, &n, NULL);
  char* bound = xml && n <= UINT32_MAX ? skio_collada_bind_unbound(xml, n, &bn, NULL) : NULL;
  const struct aiScene* ai =
      bound ? aiImportFileFromMemoryWithProperties(bound, (unsigned int)bn, flags, "dae", props) : NULL;
  if (!ai) ai = import_regular(path, flags, props, fx);
  const char* text = bound ? bound : xml;
  char* patched = !ai && text ? skio_collada_without_morphs(text, bound ? bn : n, &pn, &fx->morphs_dropped) : NULL;
  if (patched && pn <= UINT32_MAX) {
    ai = aiImportFileFromMemoryWithProperties(patched, (unsigned int)pn, flags, "dae", props);
    if (!ai) fx->morphs_dropped = 0; /* Assimp's reason stands */
  }
  free(patched);
  free(bound);
  free(xml);
  return ai;
}

/* Whether the file at path starts like binary FBX (its first 27 bytes). */
static bool fbx_file_is_binary(const char* path) {
  uint8_t head[27];
  FILE* fp = fopen(path, "rb");
  const size_t got = fp ? fread(head, 1, sizeof head, fp) : 0;
  if (fp) fclose(fp);
  return skio_fbx_is_binary(head, got);
}

/* An ASCII FBX file read by Assimp as the binary file it stands for (skio_fbx_from_ascii), so Assimp's binary reader
 * sees the records skinkit's binary passes read (source_bytes) with their exact values; NULL with the reason in
 * fx->fbx_text_why when the text does not convert or Assimp refuses the conversion (the caller lets Assimp read the
 * text itself, as before session 72). */
static const struct aiScene* import_fbx_text(const char* path, unsigned int flags, const struct aiPropertyStore* props,
                                             import_fixes* fx) {
  size_t n = 0, bn = 0;
  bool oom = false;
  char* text = skio_read_whole(path, (size_t)1 << 30, &n, &oom);
  uint8_t* bin = NULL;
  skc_err e = {0};
  const bool read = text != NULL;
  if (read) skio_fbx_from_ascii(text, n, &bin, &bn, &e);
  free(text);
  const bool converted = bin != NULL;
  const struct aiScene* ai =
      converted && bn <= UINT32_MAX
          ? aiImportFileFromMemoryWithProperties((const char*)bin, (unsigned int)bn, flags, "fbx", props)
          : NULL;
  free(bin);
  if (!ai && converted) snprintf(e.message, sizeof e.message, "Assimp refused its binary form: %s", aiGetErrorString());
  if (!ai) snprintf(fx->fbx_text_why, sizeof fx->fbx_text_why, "%s", read ? e.message : "it cannot be read");
  return ai;
}

/* A binary FBX file Assimp refused, with the null records that end a record's children put back: Assimp 5.2.5's
 * own FBX writer leaves them out (fbx_fixup.c), so every file an Assimp-based tool wrote failed to read with
 * "FBX-Tokenize ... block offset is out of range". Nothing else is changed. */
static const struct aiScene* import_fbx_repaired(const char* path, unsigned int flags,
                                                 const struct aiPropertyStore* props, import_fixes* fx) {
  size_t n = 0, fn = 0, added = 0;
  char* data = skio_read_whole(path, (size_t)1 << 30, &n, NULL);
  uint8_t* fixed = NULL;
  const skio_fbx_fix_options keep = {NULL, 0, false, false}; /* stops kept, curves as they are */
  const bool ok = data && skio_fbx_fix_binary((const uint8_t*)data, n, &keep, &fixed, &fn, &added, NULL) == SKC_OK;
  free(data);
  if (!ok) return NULL; /* Assimp's first reason stands */
  const struct aiScene* ai = added && fn <= UINT32_MAX ? aiImportFileFromMemoryWithProperties(
                                                             (const char*)fixed, (unsigned int)fn, flags, "fbx", props)
                                                       : NULL;
  free(fixed);
  if (ai) fx->fbx_records = added;
  return ai;
}

/* The world transform of flat node i's parent below the root (Assimp's root node of a Collada file is the visual
 * scene, whose transformation carries the up-axis turn, not a node of the file). */
static void parent_world_below_root(const builder* b, int32_t i, float out[16]) {
  skc_mat4_identity(out);
  for (int32_t k = b->nodes[i].parent; k >= 0 && b->nodes[k].parent >= 0; k = b->nodes[k].parent) {
    float local[16];
    skio_mat_from_ai(&b->nodes[k].node->mTransformation.a1, local);
    skc_mat4_mul(local, out, out);
  }
}

/* Mesh m's bones' offsets times c (row-major aiMatrix4x4 in, column-major math). */
static void offsets_times(const struct aiMesh* am, const float c[16]) {
  for (unsigned k = 0; k < am->mNumBones; ++k) {
    struct aiBone* bone = am->mBones[k];
    if (!bone) continue;
    float off[16];
    skio_mat_from_ai(&bone->mOffsetMatrix.a1, off);
    skc_mat4_mul(off, c, off);
    skio_mat_to_ai(off, &bone->mOffsetMatrix.a1);
  }
}

/* Nodes Blender parented to a bone sit at its tail (skio_dae_places.children): their translation gains the bone's
 * length along the bone's y axis, the joint frame's y in Blender's Collada. */
static void bone_child_places(builder* b, const skio_dae_places* pl) {
  for (uint32_t i = 0; i < b->node_count; ++i) {
    struct aiNode* node = (struct aiNode*)b->nodes[i].node;
    const struct aiMatrix4x4* t = &node->mTransformation;
    if (t->d1 != 0.0f || t->d2 != 0.0f || t->d3 != 0.0f || t->d4 != 1.0f) continue;
    for (uint32_t k = 0; k < pl->child_count; ++k)
      if (!strcmp(pl->children[k].node_id, node->mName.data)) node->mTransformation.b4 += pl->children[k].bone_length;
  }
}

/* The first flat node instancing mesh m, or -1. */
static int32_t mesh_node(const builder* b, unsigned m) {
  for (uint32_t i = 0; i < b->node_count; ++i)
    for (unsigned k = 0; k < b->nodes[i].node->mNumMeshes; ++k)
      if (b->nodes[i].node->mMeshes[k] == m) return (int32_t)i;
  return -1;
}

/* The one transform X = JW(j) IB(j) that takes every bone j of mesh am from its bind pose to its rest pose (JW the
 * node's world below the root, IB = offset BSM^-1), into x; false when the bones disagree (a posed skeleton) or it is
 * the identity. When the armature object moved after the bind (Blender writes the armature node at the frame of its
 * animation it last took, the bind poses at the current frame, or a user moved it), the bones disagree with their
 * inverse binds by that one move. */
static bool armature_moved(const builder* b, const struct aiMesh* am, const float* bsm_inv, float x[16]) {
  float first[16], id[16];
  skc_mat4_identity(id);
  bool have = false;
  for (unsigned k = 0; k < am->mNumBones; ++k) {
    const struct aiBone* bone = am->mBones[k];
    const int32_t i = bone ? find_node(b, &bone->mName) : -1;
    if (i < 0) return false;
    float off[16], ib[16], jw[16], local[16], xk[16];
    skio_mat_from_ai(&bone->mOffsetMatrix.a1, off);
    skc_mat4_mul(off, bsm_inv, ib);
    parent_world_below_root(b, i, jw);
    skio_mat_from_ai(&b->nodes[i].node->mTransformation.a1, local);
    skc_mat4_mul(jw, local, jw);
    skc_mat4_mul(jw, ib, xk);
    if (!have) memcpy(first, xk, sizeof first);
    float big = 1.0f;
    for (int e = 0; e < 16; ++e) big = fmaxf(big, fabsf(first[e]));
    if (have && skc_mat4_max_abs_diff(first, xk) > 1e-4f * big) return false;
    have = true;
  }
  if (!have || skc_mat4_max_abs_diff(first, id) <= 1e-6f) return false;
  memcpy(x, first, sizeof first);
  return true;
}

/* The entry of pl for the skin instanced by flat node at (-1: none), or NULL. */
static const skio_dae_skin_place* skin_place_of(const builder* b, int32_t at, const skio_dae_places* pl) {
  for (uint32_t q = 0; at >= 0 && q < pl->skin_count; ++q)
    if (!strcmp(pl->skins[q].node_id, b->nodes[at].node->mName.data)) return &pl->skins[q];
  return NULL;
}

/* Mesh m's bind shape matrix into b->dae_bind_shape (the identity without skin or entry). */
static void bind_shape_of(builder* b, unsigned m, const skio_dae_places* pl) {
  const struct aiMesh* am = b->ai->mMeshes[m];
  const skio_dae_skin_place* sp = skin_place_of(b, am && am->mNumBones && pl->skin_count ? mesh_node(b, m) : -1, pl);
  float* out = b->dae_bind_shape + (size_t)m * 16;
  if (sp)
    memcpy(out, sp->bsm, sizeof sp->bsm);
  else
    skc_mat4_identity(out);
}

/* Mesh m's skin as Blender places it (blender_collada_places): its offsets times BSM^-1 P BSM, P the world of the
 * mesh's parent at the bind (the armature object's move since then taken out: armature_moved). With P as it is now,
 * a move of the armature object after the bind moved the skinned meshes twice (Blender's importer, which binds at
 * the rest pose, once). */
static void skin_place(builder* b, unsigned m, const skio_dae_places* pl) {
  const struct aiMesh* am = b->ai->mMeshes[m];
  const int32_t at = am && am->mNumBones ? mesh_node(b, m) : -1;
  const skio_dae_skin_place* sp = skin_place_of(b, at, pl);
  float p[16], id[16], inv[16], c[16];
  skc_mat4_identity(id);
  if (!sp || sp->node_moves || !skc_mat4_inverse(sp->bsm, inv)) return;
  parent_world_below_root(b, at, p);
  if (skc_mat4_max_abs_diff(p, id) <= 1e-6f) return;
  float x[16], xinv[16];
  if (armature_moved(b, am, inv, x) && skc_mat4_inverse(x, xinv)) skc_mat4_mul(xinv, p, p); /* P at the bind */
  skc_mat4_mul(inv, p, c);
  skc_mat4_mul(c, sp->bsm, c);
  offsets_times(am, c);
  skc_mat4_mul(p, sp->bsm, b->dae_bind_shape + (size_t)m * 16); /* offsets IB P BSM */
}

/* A Collada file Blender wrote, placed as Blender places it. Blender writes a skin's bind shape matrix relative to
 * the mesh object's parent (the armature object) and its inverse binds in world space, and its importer reads them
 * so; Assimp applies the bind shape in world space (bone offset = inverse bind x bind shape). A character whose
 * armature object is not at the origin lost that transform: a Blender scene's second armature, at x = 1, came out of
 * `convert` with its body at x = 0, away from its bones, and bind saw its bones outside it. So each skinned mesh
 * whose instancing node has no transform of its own but sits under nodes that have one (P) gets the offsets inverse
 * bind x P x bind shape = offset x (BSM^-1 P BSM), and a node parented to a bone moves to the bone's tail
 * (bone_child_places): every reader of the scene then sees them where Blender does. Other writers' files are read by
 * the specification's formula, as before. Every Collada file's skins also note what their offsets carry beyond the
 * inverse binds (b->dae_bind_shape, for collada_bind_world). 0, or SKC_OUT_OF_MEMORY. */
static int blender_collada_places(builder* b, skc_err* err) {
  if (!b->dae_text) return SKC_OK;
  skio_dae_places pl;
  int rc = skio_dae_read_places(b->dae_text, b->dae_n, &pl, err);
  if (rc) return rc;
  if (!(b->dae_bind_shape = malloc(((size_t)b->ai->mNumMeshes + 1) * 16 * sizeof *b->dae_bind_shape))) {
    skio_dae_free_places(&pl);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  }
  for (unsigned m = 0; m < b->ai->mNumMeshes; ++m) bind_shape_of(b, m, &pl);
  if (pl.blender) {
    bone_child_places(b, &pl);
    for (unsigned m = 0; m < b->ai->mNumMeshes; ++m) skin_place(b, m, &pl);
  }
  skio_dae_free_places(&pl);
  return SKC_OK;
}

/* Assimp's import of path. A file it refuses is read again from a mended copy: a Collada file without its morph
 * controllers (Blender's shape keys), a binary FBX with its missing end records, an Ogre 1.10+ mesh in the 1.8
 * layout (ogre_mesh.c); fx says what was mended. */
static const struct aiScene* import_ai(const char* path, unsigned int flags, const struct aiPropertyStore* props,
                                       import_fixes* fx) {
  memset(fx, 0, sizeof *fx);
  if (has_extension(path, ".dae")) return import_dae(path, flags, props, fx);
  const bool fbx = has_extension(path, ".fbx"), fbx_text = fbx && !fbx_file_is_binary(path);
  const struct aiScene* ai = fbx_text ? import_fbx_text(path, flags, props, fx) : NULL;
  if (!ai) ai = import_regular(path, flags, props, fx);
  if (ai || fbx_text) return ai;
  if (fbx) return import_fbx_repaired(path, flags, props, fx);
  if (has_extension(path, ".mesh")) {
    skc_err e = {0};
    ai = skio_ogre_import_v110(path, flags, props, &fx->ogre_lods, &e);
    if (!ai && e.code) snprintf(fx->why, sizeof fx->why, "%s", e.message);
    return ai;
  }
  return NULL;
}

/* What the isolated reader reads: Assimp's import (props set), or skinkit's own glTF or IQM reader. */
typedef struct isolated_read {
  const char* path;
  unsigned int flags;
  const struct aiPropertyStore* props; /* NULL: a reader of skinkit's own */
  int (*native)(const char* path, unsigned int flags, skc_err* err);
  const skio_import_options* opts;
} isolated_read;

/* A reader of skinkit's own run for the isolated reader: read and drop the scene, the message in why; *oom when it
 * ran out of memory (under the limit: it says so itself, where Assimp throws). */
static const char* native_read(const isolated_read* r, char* why, size_t why_size, bool* oom) {
  skc_err e = {0};
  if (!r->native(r->path, r->flags, &e)) return NULL;
  *oom = e.code == SKC_OUT_OF_MEMORY;
  snprintf(why, why_size, "%s", e.message);
  return why;
}

/* Assimp's import for the isolated reader: NULL when it succeeded, else its reason. */
static const char* assimp_read(const isolated_read* r, char* why, size_t why_size) {
  import_fixes fx;
  const struct aiScene* ai = import_ai(r->path, r->flags, r->props, &fx);
  if (ai) {
    aiReleaseImport(ai); /* releasing can crash too (a fuzzed scene was freed twice in ~aiScene) */
    return NULL;
  }
  const char* reason = fx.why[0] ? fx.why : aiGetErrorString();
  snprintf(why, why_size, "%s", reason ? reason : "");
  return why;
}

/* The isolated reader: import, report a refusal on fd (one flag byte, 'M' when the address space came within
 * half the limit of it, so an allocation failure is the likely reason, else '-'; then the reader's reason), leave. */
static void isolated_child(const isolated_read* r, uint32_t limit_mb, int fd) {
  /* Default actions for fatal signals, so a crash shows as a signal even where a host program (a fuzzer, a
   * crash reporter) installed its own handlers. */
  const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) signal(fatal[i], SIG_DFL);
  const uint64_t forked = memory_now(); /* the address space at the fork: the peak's floor */
#if defined(__GLIBC__)
  /* free heap the parent kept (the CLI grows its heap by a large pad for huge pages) would be room the limit,
   * which counts address space, does not see: handed back first */
  if (limit_mb) malloc_trim(0);
#endif
  const uint64_t start = memory_now();
  limit_memory(start, limit_mb);
  char reason[SKC_ERR_MESSAGE_SIZE];
  bool oom = false;
  const char* why = r->props ? assimp_read(r, reason, sizeof reason) : native_read(r, reason, sizeof reason, &oom);
  if (why) {
    /* the peak when the reader grew past the fork's address space, else what it holds now (its heap keeps what it
     * freed: the trim threshold) */
    const uint64_t peak = memory_peak() > forked ? memory_peak() : memory_now();
    const char flag = limit_mb && (oom || (peak > start && peak - start >= ((uint64_t)limit_mb << 19))) ? 'M' : '-';
    if (write(fd, &flag, 1) == 1 && why[0] && write(fd, why, strnlen(why, SKC_ERR_MESSAGE_SIZE - 2)) < 0) _exit(3);
    _exit(3);
  }
  _exit(0); /* no atexit handlers, no leak checks: the child only answers "did it survive" */
}

/* What to do instead when Assimp cannot read path: its .blend reader knows the data layout of old Blender versions
 * only (a file saved by Blender 3.4: "Did not find a field named `no` in structure `MVert`"). */
static const char* assimp_hint(const char* path) {
  const char* dot = strrchr(path, '.');
  return dot && !strcasecmp(dot, ".blend")
             ? " (it reads .blend files of old Blender versions only: export .glb or .fbx from Blender, or use the "
               "skinkit addon in Blender)"
             : "";
}

/* Why the isolated reader did not succeed, as an error (status from wait4, report what the child wrote: flag
 * byte and Assimp's reason). A crash is reported by its signal: the memory limit is named only when the reader
 * said so (or Assimp did: std::bad_alloc). */
static int child_failure(const char* path, int st, const char* report, uint32_t limit_mb, skc_err* err) {
  const char* why = report[0] ? report + 1 : report;
  const bool oom_msg = strstr(why, "bad_alloc") || strstr(why, "memory");
  if (limit_mb && (report[0] == 'M' || oom_msg))
    return skc_fail(err, SKC_FORMAT, "%s: reading it needs more than the memory limit of %u MiB (isolated reader)",
                    path, limit_mb);
  if (WIFSIGNALED(st))
    return skc_fail(err, SKC_FORMAT, "%s: the importer crashed reading it (%s, %s, in an isolated reader)", path,
                    skio_signal_name(WTERMSIG(st)), strsignal(WTERMSIG(st)));
  if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
    return skc_fail(err, SKC_FORMAT, "%s: Assimp cannot read it%s: %s", path, assimp_hint(path),
                    why[0] ? why : "unknown error");
  return skc_fail(err, SKC_FORMAT, "%s: the importer crashed reading it (isolated reader exit %d)", path,
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1); /* a handler made the crash an exit */
}

/* Reads the file once in a child process first: Assimp 5.2.5 crashes on some damaged files (found by
 * tests/fuzz/fuzz_import.c, e.g. a heap corruption in its MD5 reader), may not finish or may need more memory than
 * the machine has; a crash, a time-out or the memory limit there rejects the file with the reason instead of
 * taking the caller's process down. The import is deterministic, so a file that the child read safely is then read
 * in this process (one extra parse); a file the child's Assimp refused is refused with its reason, unread here. */
static int preflight(const isolated_read* r, skc_err* err) {
  const char* path = r->path;
  const skio_import_options* opts = r->opts;
  int fds[2];
  if (pipe(fds) != 0) return skc_fail(err, SKC_IO, "%s: cannot start the isolated reader: %s", path, strerror(errno));
  fflush(NULL);
  skio_ai_lock(); /* the child starts with Assimp at rest, not halfway through another thread's call */
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0) skio_ai_unlock(); /* the child never takes the lock */
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    return skc_fail(err, SKC_IO, "%s: cannot start the isolated reader: %s", path, strerror(e));
  }
  if (pid == 0) {
    skio_child_die_with_parent(parent);
    close(fds[0]);
    isolated_child(r, opts->max_memory_mb, fds[1]);
  }
  close(fds[1]);
  int st = 0;
  skio_buf got = {0};
  const int done = skio_child_wait(pid, fds[0], opts->timeout_seconds, SKC_ERR_MESSAGE_SIZE - 1, &st, &got);
  const int e = errno;
  close(fds[0]);
  char why[SKC_ERR_MESSAGE_SIZE] = {0};
  if (got.n) memcpy(why, got.p, got.n); /* at most SKC_ERR_MESSAGE_SIZE - 1 */
  free(got.p);
  if (done < 0)
    return skc_fail(err, SKC_IO, "%s: lost the isolated reader: %s", path, got.oom ? "out of memory" : strerror(e));
  if (done == 0)
    return skc_fail(err, SKC_FORMAT, "%s: the importer did not finish within the time limit of %g s", path,
                    opts->timeout_seconds);
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return SKC_OK;
  /* skinkit's own reader refused the file: read it here, for its own error code and message */
  if (!r->props && WIFEXITED(st) && WEXITSTATUS(st) == 3 && why[0] != 'M') return SKC_OK;
  return child_failure(path, st, why, opts->max_memory_mb, err);
}

/* A Collada source's skins as read, kept beside the meshes' (skio_mesh.read_skin): the in-place edit matches the
 * weights an edit left alone to the file's text through them. */
static int keep_read_skins(skio_scene* s, skc_err* err) {
  for (uint32_t i = 0; i < s->mesh_count; ++i) {
    skio_mesh* m = &s->meshes[i];
    int rc = m->skin ? skc_skin_clone(m->skin, &m->read_skin, err) : SKC_OK;
    if (rc) return rc;
  }
  return SKC_OK;
}

/* Assimp's post-processing flags for opts (SKIO_IMPORT_FLAGS_BASE plus what opts ask for). */
static unsigned int import_flags(const skio_import_options* opts) {
  unsigned int flags = aiProcess_Triangulate;
  if (opts) {
    if (opts->join_vertices) flags |= aiProcess_JoinIdenticalVertices;
    if (opts->validate_structure) flags |= aiProcess_ValidateDataStructure;
  }
  return flags;
}

/* The importer properties every Assimp read takes (NULL when out of memory). */
static struct aiPropertyStore* import_properties(void) {
  struct aiPropertyStore* props = aiCreatePropertyStore();
  if (!props) return NULL;
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES, 0);
  /* a file of a skeleton and no mesh (an animation library, an armature alone) stays so: without this, Assimp's
   * Collada, BVH and MD5 readers invent a mesh of pyramids along the bones, skinned to them, which then reads as
   * the file's own mesh and is written out with it */
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
  /* keep FBX curves that only repeat the node's rest value: with them removed, a clip that holds the rest pose
   * (Testwuson's one-key "Wuson_Bind") has no channel left and Assimp drops the whole animation */
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_OPTIMIZE_EMPTY_ANIMATION_CURVES, 0);
  return props;
}

/* An .md5mesh's structure checked before Assimp reads it (skio_md5.h): Assimp reads a cut one as fewer meshes. */
static int check_md5mesh(const char* path, skc_err* err) {
  if (!skio_path_is_md5mesh(path)) return SKC_OK;
  size_t n = 0;
  bool oom = false;
  char* text = skio_read_whole(path, (size_t)1 << 30, &n, &oom);
  if (!text)
    return oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path)
               : skc_fail(err, SKC_IO, "%s: cannot read it (or larger than 1 GiB)", path);
  skc_err e = {0};
  int rc = skio_md5mesh_check(text, n, &e);
  free(text);
  return rc ? skc_fail(err, rc, "%s: %s", path, e.message) : SKC_OK;
}

/* Whether Assimp reads path as Collada: its ColladaLoader takes any file whose first 200 bytes hold "<collada" in any
 * case, whatever its extension. */
static bool collada_header(const char* path) {
  FILE* f = fopen(path, "rb");
  char head[201];
  size_t n = f ? fread(head, 1, 200, f) : 0;
  if (f) fclose(f);
  for (size_t i = 0; i < n; ++i) head[i] = (char)tolower((unsigned char)head[i]);
  head[n] = 0;
  return n && skio_text_find(head, head + n, "<collada") != NULL;
}

/* A Collada file's controllers checked before Assimp reads it (skio_collada_controller_check): Assimp follows a
 * chain of controllers that leads back to itself forever. */
static int check_collada(const char* path, skc_err* err) {
  if (!has_extension(path, ".dae") && !collada_header(path)) return SKC_OK;
  size_t n = 0;
  bool oom = false;
  char* text = skio_read_whole(path, (size_t)1 << 30, &n, &oom);
  if (!text) return oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path) : SKC_OK; /* Assimp says why */
  skc_err e = {0};
  int rc = skio_collada_controller_check(text, n, &e);
  free(text);
  return rc ? skc_fail(err, rc, "%s: %s", path, e.message) : SKC_OK;
}

/* Assimp's scene of path in *out, with a root node: read in the isolated reader first when opts ask for it, the file
 * identified (*source_id) just before this process reads it, what had to be mended in *fx. */
static int read_with_assimp(const char* path, const skio_import_options* opts, unsigned int flags,
                            skio_source_id* source_id, import_fixes* fx, const struct aiScene** out, skc_err* err) {
  const char* missing = skio_ai_unavailable(); /* loaded here, before the isolated reader forks */
  if (missing) return skc_fail(err, SKC_UNSUPPORTED, "%s: cannot read it: %s", path, missing);
  skio_ai_lock();
  struct aiPropertyStore* props = import_properties();
  skio_ai_unlock();
  if (!props) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path);
  int rc;
  if ((rc = check_md5mesh(path, err)) || (rc = check_collada(path, err)) ||
      (opts && opts->isolate && (rc = preflight(&(isolated_read){path, flags, props, NULL, opts}, err)))) {
    skio_ai_lock();
    aiReleasePropertyStore(props);
    skio_ai_unlock();
    return rc;
  }
  skio_source_identify(path, source_id); /* before Assimp reads it: a later change of the file must show */
  /* one thread in Assimp at a time (skio_ai.h), from the import through reading its error string */
  skio_ai_lock();
  const struct aiScene* ai = import_ai(path, flags, props, fx);
  aiReleasePropertyStore(props);
  if (!ai) {
    /* Note: aiGetErrorString is one global string in Assimp's C API (not per call). */
    const char* why = fx->why[0] ? fx->why : aiGetErrorString();
    rc = skc_fail(err, SKC_FORMAT, "%s: Assimp cannot read it%s: %s", path, assimp_hint(path),
                  why && why[0] ? why : "unknown error");
  } else if (!ai->mRootNode) {
    aiReleaseImport(ai);
    rc = skc_fail(err, SKC_FORMAT, "%s: empty scene (no root node)", path);
  } else {
    *out = ai;
  }
  skio_ai_unlock();
  return rc;
}

/* Frees what the builder holds for the import (not the scene it builds, nor Assimp's). */
static void free_builder(builder* b) {
  free(b->src);
  free(b->keyed_mesh);
  free(b->dae_text);
  free(b->dae_bind_shape);
  free(b->nodes);
  free(b->orphans);
  free(b->object_of);
  skio_collada_free_name_sets(&b->dae);
  skio_names_free(b->plain, b->plain_count);
  skio_collada_tips_free(b->tips, b->tip_count);
}

/* A .dae file's text (b->dae_text, NULL for other files or when it does not read) and what the import takes from it:
 * the node and geometry names, the plain nodes and Blender's bone tips. */
static int read_dae_text(builder* b, skc_err* err) {
  const char* path = b->path;
  bool oom = false; /* a .dae's text: its node and geometry names, and Blender's placement (blender_collada_places) */
  if (has_extension(path, ".dae") && !(b->dae_text = skio_read_whole(path, (size_t)1 << 30, &b->dae_n, &oom)) && oom)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path);
  int rc = skio_collada_names_memory(b->dae_text, b->dae_n, &b->dae, err);
  if (rc) return rc;
  if (b->dae_text && (skio_collada_plain_nodes(b->dae_text, b->dae_n, &b->plain, &b->plain_count) != SKC_OK ||
                      skio_collada_tips(b->dae_text, b->dae_n, &b->tips, &b->tip_count) != SKC_OK))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path);
  return SKC_OK;
}

/* The scene's meshes (build_mesh), one per aiMesh. */
static int read_meshes(builder* b, skc_err* err) {
  const struct aiScene* ai = b->ai;
  skio_scene* s = b->out;
  if (!ai->mNumMeshes || !ai->mMeshes) return SKC_OK;
  if (!(s->meshes = calloc(ai->mNumMeshes, sizeof *s->meshes)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  for (unsigned m = 0; m < ai->mNumMeshes; ++m) {
    s->mesh_count = m + 1;
    int rc = build_mesh(b, m, &s->meshes[m], err);
    if (rc) return rc;
  }
  return SKC_OK;
}

/* The scene's notes on what the import left out or mended (fx, b->tips_refused); a file read from a repaired copy
 * loses its source identity (*source_id). */
static void note_fixes(const builder* b, const import_fixes* fx, skio_source_id* source_id) {
  skio_scene* s = b->out;
  if (fx->morphs_dropped) {
    char line[200];
    snprintf(line, sizeof line,
             "%u Collada morph controller(s) (blend shapes) not read: Assimp 5.2 refuses them "
             "(an in-place .dae edit keeps them)",
             fx->morphs_dropped);
    skio_scene_note(s, line);
  }
  if (b->tips_refused) {
    char line[200];
    snprintf(line, sizeof line,
             "%u Blender bone tail(s) (tips, connected children) not taken: not along their bone's Y axis in this "
             "file's frame (the bone segments infer those tails)",
             b->tips_refused);
    skio_scene_note(s, line);
  }
  if (fx->ogre_lods) {
    char line[200];
    snprintf(line, sizeof line,
             "Ogre mesh [MeshSerializer_v1.100] read in the 1.8 layout Assimp knows: its %u LOD level(s) not read",
             fx->ogre_lods);
    skio_scene_note(s, line);
  }
  if (fx->fbx_text_why[0]) {
    char line[400];
    snprintf(line, sizeof line,
             "ASCII FBX read by Assimp's text reader alone, without skinkit's FBX fixes (geometric transforms, shape "
             "key values, custom properties): %.200s",
             fx->fbx_text_why);
    skio_scene_note(s, line);
  }
  if (fx->fbx_records) {
    char line[240];
    snprintf(line, sizeof line,
             "the FBX file lacks %zu end-of-children records (as Assimp's FBX writer leaves "
             "them out; Assimp and Blender refuse it): read from a repaired copy",
             fx->fbx_records);
    skio_scene_note(s, line);
    source_id->set = false; /* an in-place edit would keep the defect: .fbx is written anew */
  }
}

/* The scene's animations (build_anim), one per aiAnimation, with the notes on keyed meshes they leave still. */
static int read_anims(builder* b, skc_err* err) {
  const struct aiScene* ai = b->ai;
  skio_scene* s = b->out;
  if (!ai->mNumAnimations || !ai->mAnimations) return SKC_OK;
  if (!(s->anims = calloc(ai->mNumAnimations, sizeof *s->anims)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  if (!(b->keyed_mesh = unboned_below(b))) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  for (unsigned a = 0; a < ai->mNumAnimations; ++a) {
    s->anim_count = a + 1;
    int rc = build_anim(b, ai->mAnimations[a], a, &s->anims[a], err);
    if (rc) return rc;
    note_keyed_meshes(b, &s->anims[a]);
  }
  free(b->keyed_mesh);
  b->keyed_mesh = NULL;
  return SKC_OK;
}

/* Everything the scene b->out takes from Assimp's scene b->ai: nodes, skeleton, meshes, materials, frame, objects,
 * clips and the fixes of the FBX and Collada readers, with the notes on fx. */
static int read_scene(builder* b, const import_fixes* fx, skio_source_id* source_id, skc_err* err) {
  const struct aiScene* ai = b->ai;
  skio_scene* s = b->out;
  int rc = read_dae_text(b, err);
  if (rc) return rc;
  if (synthetic_gltf_root(b->path, ai)) {
    for (unsigned i = 0; i < ai->mRootNode->mNumChildren; ++i) flatten(b, ai->mRootNode->mChildren[i], -1, 1);
  } else {
    flatten(b, ai->mRootNode, -1, 0);
  }
  if (!take_parent_links(b)) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", b->path);
  rc = blender_collada_places(b, err);
  free(b->dae_text);
  b->dae_text = NULL;
  if (rc) return rc;
  if ((rc = build_skeleton(b, err)) || (rc = read_meshes(b, err))) return rc;
  if ((rc = skio_scene_read_materials(s, ai, b->path, err))) return rc; /* scene_material.c */
  skio_scene_read_frame(s, ai);                                         /* scene_frame.c */
  note_unread_sets(s, ai);
  note_fixes(b, fx, source_id);
  if ((rc = name_meshes(b, err)) || (rc = fbx_geometric_skins(b, err)) || (rc = place_meshes(b, err))) return rc;
  if ((rc = read_objects(b, err))) return rc;
  fbx_ortho_in_units(s);
  if ((rc = read_anims(b, err))) return rc;
  if ((rc = read_morph_keys(b, err)) || (rc = fbx_clip_starts(b, err)) || (rc = fbx_shape_values(b, err)) ||
      (rc = fbx_custom_props(b, err)))
    return rc;
  fbx_no_bones(b);
  return SKC_OK;
}

/* What the scene s of path gets once Assimp's scene is gone: the Collada clips cut apart, why a mesh has no skin, the
 * source's identity and the load time (since t0). */
static int finish_scene(const char* path, skio_scene* s, const skio_source_id* source_id, double t0, skc_err* err) {
  /* Collada clips on one timeline (what scene_export.c writes): one animation per <animation_clip> */
  const uint32_t timeline_anims = s->anim_count;
  int rc = skio_collada_apply_clips(path, s, err);
  if (rc) return rc;
  if (s->anim_count != timeline_anims && s->object_channel_count) /* the objects' keys are not cut apart */
    drop_object_channels(s);
  for (uint32_t m = 0; s->anim_count != timeline_anims && m < s->mesh_count; ++m) /* nor the blend shapes' */
    skio_mesh_free_morph_keys(&s->meshes[m]);
  if (!s->skeleton) s->no_skin_reason = ogre_missing_skeleton(path);
  s->source_file = *source_id;
  if (s->source_file.set) s->source_file.scene = skio_scene_fingerprint(s);
  if (s->source_file.set && s->source_file.kind == SKIO_SOURCE_COLLADA && (rc = keep_read_skins(s, err))) return rc;
  s->import_mesh_count = s->mesh_count;
  s->load_seconds = skio_seconds_now() - t0;
  return SKC_OK;
}

/* skinkit's own readers as the isolated reader runs them: the scene read, then dropped */
static int native_gltf(const char* path, unsigned int flags, skc_err* err) {
  skio_scene* s = NULL;
  const int rc = skio_gltf_import(path, flags, &s, err);
  skio_scene_destroy(s);
  return rc;
}

static int native_iqm(const char* path, unsigned int flags, skc_err* err) {
  (void)flags;
  skio_scene* s = NULL;
  const int rc = skio_iqm_import(path, &s, err);
  skio_scene_destroy(s);
  return rc;
}

/* With isolate, a file skinkit reads itself (glTF: libdraco and meshopt data inside; IQM) is read in a child process
 * first too, within the time and memory limits: a crash, hang or runaway allocation is refused there. */
static int native_preflight(const char* path, const skio_import_options* opts,
                            int (*native)(const char*, unsigned int, skc_err*), unsigned int flags, skc_err* err) {
  if (!opts || !opts->isolate) return SKC_OK;
  return preflight(&(isolated_read){path, flags, NULL, native, opts}, err);
}

int skio_scene_import(const char* path, const skio_import_options* opts, skio_scene** out, skc_err* err) {
  if (!path || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "path and out must not be NULL");
  int rc = check_file(path, err);
  if (rc) return rc;
  if (skio_path_is_iqm(path)) /* Assimp drops IQM skins: skio_iqm.h */
    return (rc = native_preflight(path, opts, native_iqm, 0, err)) ? rc : skio_iqm_import(path, out, err);
  /* glTF through our own reader (skio_gltf_import.h); JoinIdenticalVertices, which that reader does not do, still
   * through Assimp, which reads only .glb and .gltf names: a .vrm, or a .glb under another name (the GLB magic),
   * has no reader that joins */
  const bool join = opts && opts->join_vertices;
  const bool named = skio_path_is_gltf(path) && !skio_path_is_vrm(path);
  const bool renamed = !named && (skio_path_is_vrm(path) || skio_file_is_glb(path));
  if (renamed && join)
    return skc_fail(err, SKC_UNSUPPORTED,
                    "%s: a glTF file not named .glb or .gltf is read by skinkit's own reader, which does not join "
                    "vertices: load it without join_vertices, then weld the scene (sk_scene_weld)",
                    path);
  if ((named && !join) || renamed) {
    const unsigned int nodes =
        (opts && opts->skeleton_from_nodes ? SKIO_GLTF_NODES_BARE : 0) |
        (opts && opts->skeleton_from_nodes && opts->animated_nodes ? SKIO_GLTF_NODES_ANIMATED : 0);
    return (rc = native_preflight(path, opts, native_gltf, nodes, err)) ? rc : skio_gltf_import(path, nodes, out, err);
  }
  double t0 = skio_seconds_now();
  const unsigned int flags = import_flags(opts);
  skio_source_id source_id;
  import_fixes fx;
  const struct aiScene* ai = NULL;
  if ((rc = read_with_assimp(path, opts, flags, &source_id, &fx, &ai, err))) return rc;
  builder b = {0};
  b.path = path;
  b.ai = ai;
  b.bare = opts && opts->skeleton_from_nodes;
  b.animated = b.bare && opts->animated_nodes; /* with bones too: mark_keyed_meshes */
  skio_scene* s = calloc(1, sizeof *s);
  uint32_t nc = count_nodes(ai->mRootNode, 0);
  b.nodes = calloc(nc ? nc : 1, sizeof *b.nodes);
  if (!s || !b.nodes || !(s->source = dup_str(path))) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path);
  } else {
    b.out = s;
    s->import_flags = flags;
    rc = read_scene(&b, &fx, &source_id, err);
  }
  free_builder(&b);
  skio_ai_lock();
  aiReleaseImport(ai);
  skio_ai_unlock();
  if (!rc) rc = finish_scene(path, s, &source_id, t0, err);
  if (rc) {
    skio_scene_destroy(s);
    return rc;
  }
  *out = s;
  return SKC_OK;
}
