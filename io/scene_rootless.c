/* scene_rootless.c - a scene seen without its skeleton's root joint, for the glTF writer of an FBX read through
 * Assimp: Assimp's FBX importer puts the file's implicit root in the node tree as "RootNode", a node the FBX file does
 * not have; written to glTF it became an extra top-level node (an empty object above the armature in Blender). See
 * skio_scene.h (skio_scene_drop_root). */
#include <stdlib.h>
#include <string.h>

#include "skc_math.h"
#include "skio_scene.h"

static int drop_skeleton(const skc_skeleton* sk, skc_skeleton** out, skc_err* err) {
  const uint32_t n = sk->joint_count - 1;
  int32_t* parents = malloc((size_t)n * sizeof *parents + 1);
  float* rest = malloc((size_t)n * 16 * sizeof *rest + 1);
  int rc = parents && rest ? SKC_OK : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t j = 1; j <= n && !rc; ++j) {
    const int32_t p = sk->parents[j];
    parents[j - 1] = p <= 0 ? SKC_NO_PARENT : p - 1;
    if (p == 0) /* a child of the root: its place in the world (the root is at identity in practice) */
      skc_mat4_mul(sk->rest_local, sk->rest_local + (size_t)j * 16, rest + (size_t)(j - 1) * 16);
    else
      memcpy(rest + (size_t)(j - 1) * 16, sk->rest_local + (size_t)j * 16, 16 * sizeof *rest);
  }
  if (!rc) {
    skc_skeleton_init init = {n,
                              (const char* const*)sk->names + 1,
                              parents,
                              rest,
                              sk->bind + 16,
                              sk->inverse_bind + 16,
                              sk->tail_local ? sk->tail_local + 3 : NULL};
    rc = skc_skeleton_create(&init, out, err);
  }
  free(parents);
  free(rest);
  return rc;
}

/* The mesh with its skin's joint indices one lower (an entry on the root, weight 0 by the caller's rule, goes to
 * joint 0 at weight 0) and its per-joint arrays one further on (borrowed). */
static int drop_mesh(const skio_mesh* m, uint32_t n, skio_mesh* v, skc_err* err) {
  *v = *m;
  v->skin = NULL;
  v->parent_joint = m->parent_joint > 0 ? m->parent_joint - 1 : -1; /* under the dropped root: at the top */
  if (!m->skin) return SKC_OK;
  int rc = skc_skin_clone(m->skin, &v->skin, err);
  if (rc) return rc;
  v->skin->joint_count = n;
  for (size_t e = 0, ne = m->skin->offsets[m->vertex_count]; e < ne; ++e) {
    uint32_t j = v->skin->joints[e];
    v->skin->joints[e] = j ? j - 1 : 0;
    if (!j) v->skin->weights[e] = 0.0f;
  }
  v->inverse_bind = m->inverse_bind ? m->inverse_bind + 16 : NULL;
  v->bound = m->bound ? m->bound + 1 : NULL;
  v->bone_count = m->bone_count - (m->bound && m->bound[0] ? 1u : 0u);
  v->rigid_joint = m->rigid_joint > 0 ? m->rigid_joint - 1 : -1;
  return SKC_OK;
}

/* The clip without channels on the root, the others one joint lower (key arrays borrowed). */
static int drop_anim(const skio_anim* a, skio_anim* v, skc_err* err) {
  *v = *a;
  v->channels = calloc((size_t)a->channel_count + 1, sizeof *v->channels);
  if (!v->channels) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  v->channel_count = 0;
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    if (a->channels[c].joint == 0) continue;
    v->channels[v->channel_count] = a->channels[c];
    v->channels[v->channel_count++].joint--;
  }
  return SKC_OK;
}

int skio_scene_drop_root(const skio_scene* s, skio_scene* v, skc_err* err) {
  if (!s->skeleton || s->skeleton->joint_count < 2) return skc_fail(err, SKC_INVALID_ARGUMENT, "no root to drop");
  *v = *s;
  v->skeleton = NULL;
  v->meshes = NULL;
  v->anims = NULL;
  v->joint_node = NULL;
  v->joint_mesh = s->joint_mesh ? s->joint_mesh + 1 : NULL;
  const uint32_t n = s->skeleton->joint_count - 1;
  int rc = drop_skeleton(s->skeleton, &v->skeleton, err);
  if (!rc && !(v->meshes = calloc((size_t)s->mesh_count + 1, sizeof *v->meshes)))
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t m = 0; m < s->mesh_count && !rc; ++m) rc = drop_mesh(&s->meshes[m], n, &v->meshes[m], err);
  if (!rc && !(v->anims = calloc((size_t)s->anim_count + 1, sizeof *v->anims)))
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t a = 0; a < s->anim_count && !rc; ++a) rc = drop_anim(&s->anims[a], &v->anims[a], err);
  if (rc) skio_scene_drop_root_free(s, v);
  return rc;
}

void skio_scene_drop_root_free(const skio_scene* s, skio_scene* v) {
  skc_skeleton_destroy(v->skeleton);
  for (uint32_t m = 0; v->meshes && m < s->mesh_count; ++m) skc_skin_destroy(v->meshes[m].skin);
  for (uint32_t a = 0; v->anims && a < s->anim_count; ++a) free(v->anims[a].channels);
  free(v->meshes);
  free(v->anims);
  memset(v, 0, sizeof *v);
}
