/* cli_armature.c - the deform joints one skinned mesh is bound to: those of its own armature.
 *
 * A scene may hold several characters, each skinned to its own skeleton (a level or cutscene export, two rigs in
 * one .glb). The scene's deform joints are all of their bones, and a mesh bound to all of them took bones of the
 * other character wherever its bind space put them: in three.js' export of two rigs, whose skins each bind in their
 * own mesh space, the second rig's bones sat inside the first mesh, which got 52 % of its weight from them, and the
 * glTF edit then had to fall back to writing the file from the scene (a joint its skin did not list).
 *
 * Rule: a mesh with a skin whose weights name joints is bound to the deform joints below the root of its armature:
 * the lowest common ancestor of the joints its weights name, raised through its parents as long as they are deform
 * joints. So a glove weighted to the hand still reaches the whole body (hand, forearm, ... hips are all deform
 * joints), while another character's bones, below another root, are left out. Meshes without skin, or whose skin
 * weights nothing, keep every deform joint. */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

/* Marks in `used` (nj bytes) the joints with weight in mesh m's skin; returns how many. */
static uint32_t weighted_joints(sk_scene* s, uint32_t m, uint32_t nj, uint8_t* used) {
  const sk_skin* skin = sk_scene_mesh_skin(s, m);
  if (!skin) return 0;
  size_t nv = sk_skin_vertex_count(skin), ni = sk_skin_influence_count(skin);
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  uint32_t* j = malloc(ni * sizeof *j + 4);
  float* w = malloc(ni * sizeof *w + 4);
  uint32_t n = 0;
  if (off && j && w && sk_skin_get_csr(skin, off, j, w, NULL) == SK_OK)
    for (size_t e = 0; e < off[nv]; ++e)
      if (w[e] > 0.0f && j[e] < nj && !used[j[e]]) used[j[e]] = 1, ++n;
  free(off), free(j), free(w);
  return n;
}

static uint32_t depth_of(const sk_skeleton* sk, uint32_t j) {
  uint32_t d = 0;
  for (int32_t p = sk_skeleton_joint_parent(sk, j); p >= 0; p = sk_skeleton_joint_parent(sk, (uint32_t)p)) ++d;
  return d;
}

/* Lowest common ancestor of a and b (-1 when they are in different trees). */
static int32_t common_ancestor(const sk_skeleton* sk, int32_t a, int32_t b) {
  uint32_t da = depth_of(sk, (uint32_t)a), db = depth_of(sk, (uint32_t)b);
  for (; da > db; --da) a = sk_skeleton_joint_parent(sk, (uint32_t)a);
  for (; db > da; --db) b = sk_skeleton_joint_parent(sk, (uint32_t)b);
  while (a != b && a >= 0 && b >= 0) {
    a = sk_skeleton_joint_parent(sk, (uint32_t)a);
    b = sk_skeleton_joint_parent(sk, (uint32_t)b);
  }
  return a == b ? a : -1;
}

static int below(const sk_skeleton* sk, uint32_t j, int32_t root) {
  for (int32_t a = (int32_t)j; a >= 0; a = sk_skeleton_joint_parent(sk, (uint32_t)a))
    if (a == root) return 1;
  return 0;
}

/* The root of the armature of the joints marked in used: their common ancestor raised through deform parents. -1
 * when they have none (separate trees) or nothing is marked. */
static int32_t armature_root(const sk_skeleton* sk, const uint8_t* used, const uint8_t* deform) {
  uint32_t nj = sk_skeleton_joint_count(sk);
  int32_t root = -1, any = 0;
  for (uint32_t j = 0; j < nj; ++j) {
    if (!used[j]) continue;
    root = any ? common_ancestor(sk, root, (int32_t)j) : (int32_t)j;
    any = 1;
    if (root < 0) return -1;
  }
  for (int32_t p; root >= 0 && (p = sk_skeleton_joint_parent(sk, (uint32_t)root)) >= 0 && deform[p];) root = p;
  return root;
}

uint8_t* cli_armature_mask(sk_scene* s, const uint32_t* meshes, uint32_t count, const uint8_t* deform,
                           int32_t* out_root) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nj = sk ? sk_skeleton_joint_count(sk) : 0, n = 0;
  *out_root = -1;
  uint8_t* used = deform && nj ? calloc(nj, 1) : NULL;
  for (uint32_t k = 0; used && k < count; ++k) n += weighted_joints(s, meshes[k], nj, used);
  int32_t root = n ? armature_root(sk, used, deform) : -1;
  uint32_t kept = 0, dropped = 0;
  for (uint32_t j = 0; root >= 0 && j < nj; ++j) {
    used[j] = deform[j] && below(sk, j, root);
    kept += used[j];
    dropped += deform[j] && !used[j];
  }
  if (root < 0 || !kept || !dropped) { /* no armature found, or it is every deform joint: no restriction */
    free(used);
    return NULL;
  }
  *out_root = root;
  return used;
}
