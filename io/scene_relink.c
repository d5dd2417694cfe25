/* scene_relink.c - a scene given a skeleton with more joints (bone links: sk_bone_links inserts link joints along a
 * bone), keeping everything else the scene holds: meshes with their streams, materials, blend shapes and names, the
 * clips, the frame. Before, `weights --links` wrote a new scene of the meshes' geometry and weights alone.
 *
 * Every joint of the old skeleton is found in the new one by name. Skins, per-joint mesh arrays and clip channels
 * are renumbered; a joint new to the skeleton gets no weight, the new skeleton's inverse bind (then moved into each
 * mesh's own bind frame, skio_mesh_unbound_in_bind_frame) and no channel. A joint whose parent changed (a linked
 * bone's children now hang under its last link) has its clip keys re-expressed under the new parent: with M = (new
 * parent's rest world)^-1 (old parent's rest world), which the unanimated joints in between keep fixed, the local
 * transform L becomes M L, so every world transform of every clip is unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

/* M for old joint j (new index n): identity when its parent is the same joint in both skeletons. */
static bool parent_change(const skc_skeleton* old, const skc_skeleton* nsk, const int32_t* map, uint32_t j,
                          float m[16]) {
  skc_mat4_identity(m);
  const uint32_t n = (uint32_t)map[j];
  const bool old_root = skc_skeleton_is_root(old, j), new_root = skc_skeleton_is_root(nsk, n);
  if (old_root && new_root) return false;
  if (!old_root && !new_root && map[old->parents[j]] == nsk->parents[n]) return false;
  float inv[16], op[16];
  if (old_root) skc_mat4_identity(op);
  else memcpy(op, old->rest_world + 16 * (size_t)old->parents[j], sizeof op);
  if (new_root) skc_mat4_identity(inv);
  else if (!skc_mat4_inverse(nsk->rest_world + 16 * (size_t)nsk->parents[n], inv)) return false;
  skc_mat4_mul(inv, op, m);
  return true;
}

/* Keys of channel c premultiplied by rigid M (translations M t, rotations qM r; scales kept). */
static void move_keys(skio_channel* c, const float m[16]) {
  float q[4];
  skc_quat_from_mat4(m, q);
  skc_quat_normalize(q);
  for (uint32_t k = 0; c->pos && k < c->pos_count; ++k) {
    float t[3];
    skc_mat4_transform_point(m, c->pos + 3 * (size_t)k, t);
    memcpy(c->pos + 3 * (size_t)k, t, sizeof t);
  }
  for (uint32_t k = 0; c->rot && k < c->rot_count; ++k) {
    float r[4];
    skc_quat_mul(q, c->rot + 4 * (size_t)k, r);
    memcpy(c->rot + 4 * (size_t)k, r, sizeof r);
  }
}

/* Mesh m's skin, inverse binds and flags over the new joints, into the arrays ib (16 nj) and bound (nj) it takes. */
static void relink_mesh(skio_mesh* m, const skc_skeleton* nsk, const int32_t* map, uint32_t oj, float* ib,
                        uint8_t* bound) {
  const uint32_t nj = nsk->joint_count;
  memcpy(ib, nsk->inverse_bind, (size_t)nj * 16 * sizeof *ib);
  memset(bound, 0, nj);
  for (uint32_t j = 0; j < oj; ++j) {
    memcpy(ib + 16 * (size_t)map[j], m->inverse_bind + 16 * (size_t)j, 16 * sizeof *ib);
    bound[map[j]] = m->bound ? m->bound[j] : 0;
  }
  for (size_t e = 0, ne = m->skin->offsets[m->vertex_count]; e < ne; ++e)
    if (m->skin->joints[e] < oj) m->skin->joints[e] = (uint32_t)map[m->skin->joints[e]];
  m->skin->joint_count = nj;
  free(m->inverse_bind);
  free(m->bound);
  m->inverse_bind = ib;
  m->bound = bound;
  if (m->rigid_joint >= 0 && (uint32_t)m->rigid_joint < oj) m->rigid_joint = map[m->rigid_joint];
  skio_mesh_unbound_in_bind_frame(nsk, m);
}

/* The new per-joint arrays of every mesh and of the scene, all allocated before anything changes. */
typedef struct staged {
  float** ib;
  uint8_t** bound;
  uint8_t* joint_mesh;
  int32_t* joint_node;
} staged;

static void staged_free(staged* st, uint32_t meshes) {
  for (uint32_t m = 0; m < meshes && st->ib; ++m) free(st->ib[m]);
  for (uint32_t m = 0; m < meshes && st->bound; ++m) free(st->bound[m]);
  free(st->ib);
  free(st->bound);
  free(st->joint_mesh);
  free(st->joint_node);
}

static bool stage(const skio_scene* s, uint32_t nj, staged* st) {
  memset(st, 0, sizeof *st);
  st->ib = calloc((size_t)s->mesh_count + 1, sizeof *st->ib);
  st->bound = calloc((size_t)s->mesh_count + 1, sizeof *st->bound);
  if (!st->ib || !st->bound) return false;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    if (!s->meshes[m].skin) continue;
    st->ib[m] = malloc((size_t)nj * 16 * sizeof **st->ib);
    st->bound[m] = malloc(nj);
    if (!st->ib[m] || !st->bound[m]) return false;
  }
  if (s->joint_mesh && !(st->joint_mesh = calloc(nj, 1))) return false;
  if (s->joint_node && !(st->joint_node = malloc((size_t)nj * sizeof *st->joint_node))) return false;
  return true;
}

/* map[j]: old joint j's index in linked, by name, each once; SKC_INVALID_ARGUMENT naming the first that is not. */
static int map_joints(const skc_skeleton* old, const skc_skeleton* linked, int32_t* map, uint8_t* taken,
                      skc_err* err) {
  for (uint32_t j = 0; j < old->joint_count; ++j) {
    map[j] = skc_skeleton_find(linked, old->names[j]);
    if (map[j] < 0 || taken[map[j]])
      return skc_fail(err, SKC_INVALID_ARGUMENT, "joint \"%s\" is not in the new skeleton (once)", old->names[j]);
    taken[map[j]] = 1;
  }
  return SKC_OK;
}

/* Channels renumbered; the keys of a joint whose parent changed re-expressed under the new one. */
static void relink_clips(skio_scene* s, const skc_skeleton* old, const skc_skeleton* nsk, const int32_t* map) {
  for (uint32_t a = 0; a < s->anim_count; ++a)
    for (uint32_t c = 0; c < s->anims[a].channel_count; ++c) {
      skio_channel* ch = &s->anims[a].channels[c];
      if (ch->joint >= old->joint_count) continue;
      float mm[16];
      if (parent_change(old, nsk, map, ch->joint, mm)) move_keys(ch, mm);
      ch->joint = (uint32_t)map[ch->joint];
    }
}

int skio_scene_relink(skio_scene* s, const skc_skeleton* linked, skc_err* err) {
  if (!s || !linked) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and skeleton must not be NULL");
  const skc_skeleton* old = s->skeleton;
  if (!old) return skc_fail(err, SKC_NO_SKIN, "the scene has no skeleton to relink");
  const uint32_t oj = old->joint_count, nj = linked->joint_count;
  int32_t* map = malloc((size_t)oj * sizeof *map + 1);
  uint8_t* taken = calloc(nj + 1, 1);
  if (!map || !taken) {
    free(map);
    free(taken);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  int rc = map_joints(old, linked, map, taken, err);
  skc_skeleton* nsk = NULL;
  if (!rc) {
    skc_skeleton_init init = {nj,
                              (const char* const*)linked->names,
                              linked->parents,
                              linked->rest_local,
                              linked->bind,
                              linked->inverse_bind,
                              linked->tail_local};
    rc = skc_skeleton_create(&init, &nsk, err);
  }
  staged st;
  memset(&st, 0, sizeof st);
  if (!rc && !stage(s, nj, &st)) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory relinking the scene");
  if (rc) {
    staged_free(&st, s->mesh_count);
    skc_skeleton_destroy(nsk);
    free(map);
    free(taken);
    return rc;
  }
  /* nothing of s changed so far, and nothing below can fail */
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    int32_t* pj = &s->meshes[m].parent_joint;
    if (*pj >= 0) *pj = (uint32_t)*pj < oj ? map[*pj] : -1;
    if (!s->meshes[m].skin) continue;
    relink_mesh(&s->meshes[m], nsk, map, oj, st.ib[m], st.bound[m]);
    st.ib[m] = NULL;
    st.bound[m] = NULL;
  }
  if (s->joint_mesh) {
    for (uint32_t j = 0; j < oj; ++j) st.joint_mesh[map[j]] = s->joint_mesh[j];
    free(s->joint_mesh);
    s->joint_mesh = st.joint_mesh;
    st.joint_mesh = NULL;
  }
  if (s->joint_node) {
    for (uint32_t n = 0; n < nj; ++n) st.joint_node[n] = -1; /* no node of the source document */
    for (uint32_t j = 0; j < oj; ++j) st.joint_node[map[j]] = s->joint_node[j];
    free(s->joint_node);
    s->joint_node = st.joint_node;
    st.joint_node = NULL;
  }
  staged_free(&st, s->mesh_count);
  relink_clips(s, old, nsk, map);
  skc_skeleton_destroy(s->skeleton);
  s->skeleton = nsk;
  free(map);
  free(taken);
  return rc;
}
