/* scene_rigid.c - unskinned meshes and rigid attachments keep their place (skio_mesh_place, skio_scene.h).
 *
 * A mesh without a skin is stored in its node's space, and every writer puts a mesh node at the scene root
 * without a transform: a prop, a helmet parented to a head bone or a robot's plate would land at the origin, up
 * to half the model's size away. skio_mesh_place bakes the node's world transform into the vertices, and when
 * the node hangs below a joint it also binds every vertex to that joint with weight 1 (the rigid skin every
 * engine and DCC tool reads): the part then sits where it sat and follows its bone in every clip, whatever the
 * writer. The new skin is in the scene's bind space: with X = rest_world(j) * IB(j) shared by the scene's bound
 * joints (skio_scene_rest_to_bind; identity otherwise), vertices become X^-1 W v and the joint's inverse bind
 * inverse(rest_world(j)) X, so rest_world(j) IB v = W v and the writers' one-transform bake stays valid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

static void normalize3(float* v) {
  float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0.0f && isfinite(n)) {
    v[0] /= n;
    v[1] /= n;
    v[2] /= n;
  }
}

static bool is_identity(const float m[16]) {
  for (int i = 0; i < 16; ++i)
    if (m[i] != ((i % 5) == 0 ? 1.0f : 0.0f)) return false;
  return true;
}

/* n positions by M (as points) and, with nrm, their normals by its normal matrix nm (renormalized). */
static void transform_points(const float M[16], const float nm[16], float* pos, float* nrm, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float p[3];
    skc_mat4_transform_point(M, pos + i * 3, p);
    memcpy(pos + i * 3, p, sizeof p);
    if (nrm) {
      skc_mat4_transform_dir(nm, nrm + i * 3, p);
      normalize3(p);
      memcpy(nrm + i * 3, p, sizeof p);
    }
  }
}

/* Vertices, normals, tangents and blend shapes by M (positions as points, normals by the inverse transpose,
 * tangents by the 3x3, both renormalized); a mirroring M flips the winding and the tangents' handedness so faces
 * keep facing out. */
static int transform_mesh(skio_mesh* m, const float M[16], skc_err* err) {
  float nm[16];
  if (!skc_mat4_is_finite(M) || !skc_mat4_normal_matrix(M, nm))
    return skc_fail(err, SKC_SINGULAR_MATRIX, "mesh \"%s\": its node transform is singular or not finite", m->name);
  bool mirror = skc_mat3_det_of_mat4(M) < 0.0f;
  transform_points(M, nm, m->positions, m->normals, m->vertex_count);
  transform_points(M, nm, m->morph_positions, m->morph_normals, (size_t)m->morph_count * m->vertex_count);
  for (size_t i = 0; m->tangents && i < m->vertex_count; ++i) {
    float p[3];
    skc_mat4_transform_dir(M, m->tangents + i * 4, p);
    normalize3(p);
    memcpy(m->tangents + i * 4, p, sizeof p);
    if (mirror) m->tangents[i * 4 + 3] = -m->tangents[i * 4 + 3];
  }
  for (size_t t = 0; mirror && t + 2 < m->index_count; t += 3) {
    uint32_t a = m->indices[t + 1];
    m->indices[t + 1] = m->indices[t + 2];
    m->indices[t + 2] = a;
  }
  return SKC_OK;
}

int skio_mesh_transform(skio_mesh* m, const float M[16], skc_err* err) {
  if (!m || !M) return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh and matrix must not be NULL");
  return is_identity(M) ? SKC_OK : transform_mesh(m, M, err);
}

static int bind_rigid(const skio_scene* s, skio_mesh* m, uint32_t joint, const float x[16], skc_err* err) {
  const skc_skeleton* sk = s->skeleton;
  size_t jc = sk->joint_count;
  float inv_rest[16];
  if (!skc_mat4_inverse(sk->rest_world + (size_t)joint * 16, inv_rest))
    return skc_fail(err, SKC_SINGULAR_MATRIX, "mesh \"%s\": joint %u's rest transform is singular", m->name, joint);
  skc_skin* skin = NULL;
  int rc = skc_skin_create(m->vertex_count, (uint32_t)jc, &skin, err);
  if (rc) return rc;
  uint32_t* offsets = malloc((m->vertex_count + 1) * sizeof *offsets);
  uint32_t* joints = malloc((m->vertex_count ? m->vertex_count : 1) * sizeof *joints);
  float* weights = malloc((m->vertex_count ? m->vertex_count : 1) * sizeof *weights);
  m->inverse_bind = malloc(jc * 16 * sizeof *m->inverse_bind);
  m->bound = calloc(jc, 1);
  if (!offsets || !joints || !weights || !m->inverse_bind || !m->bound) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (size_t v = 0; !rc && v <= m->vertex_count; ++v) {
    offsets[v] = (uint32_t)v;
    if (v < m->vertex_count) {
      joints[v] = joint;
      weights[v] = 1.0f;
    }
  }
  if (!rc) rc = skc_skin_set(skin, offsets, joints, weights, err);
  if (!rc) {
    memcpy(m->inverse_bind, sk->inverse_bind, jc * 16 * sizeof *m->inverse_bind);
    skc_mat4_mul(inv_rest, x, m->inverse_bind + (size_t)joint * 16);
    m->bound[joint] = 1;
    m->bone_count = 1;
    m->rigid_joint = (int32_t)joint;
    m->skin = skin;
    skin = NULL;
  } else {
    free(m->inverse_bind);
    free(m->bound);
    m->inverse_bind = NULL;
    m->bound = NULL;
  }
  skc_skin_destroy(skin);
  free(offsets);
  free(joints);
  free(weights);
  return rc;
}

int skio_mesh_bind_rigid(const skio_scene* s, skio_mesh* m, uint32_t joint, skc_err* err) {
  if (!s || !m || !s->skeleton || joint >= s->skeleton->joint_count || m->skin)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "an unskinned mesh and a joint of the scene's skeleton are needed");
  float id4[16];
  skc_mat4_identity(id4);
  return bind_rigid(s, m, joint, id4, err);
}

bool skio_mesh_still_rigid(const skio_mesh* m) {
  if (!m || m->rigid_joint < 0 || !m->skin) return false;
  for (size_t v = 0; v < m->vertex_count; ++v) {
    uint32_t b = m->skin->offsets[v];
    if (m->skin->offsets[v + 1] - b != 1 || m->skin->joints[b] != (uint32_t)m->rigid_joint ||
        m->skin->weights[b] != 1.0f)
      return false;
  }
  return true;
}

bool skio_mesh_node_space(const skio_mesh* m, float n[16], bool* mirror) {
  skc_mat4_identity(n);
  if (mirror) *mirror = false;
  if (!m || !m->placed_set || is_identity(m->placed) || !skc_mat4_is_finite(m->placed)) return false;
  float inv[16];
  const float det = skc_mat3_det_of_mat4(m->placed);
  if (!(det > 0.0f || (mirror && det < 0.0f)) || !skc_mat4_inverse(m->placed, inv) || !skc_mat4_is_finite(inv))
    return false;
  memcpy(n, m->placed, sizeof inv);
  if (mirror) *mirror = det < 0.0f;
  return true;
}

int skio_mesh_place(const skio_scene* s, skio_mesh* m, const float world[16], int32_t joint, skc_err* err) {
  if (!s || !m || !world) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene, mesh and world must not be NULL");
  if (m->skin) return SKC_OK; /* skinned: its vertices are in bind space, the node transform does not apply */
  m->rigid_joint = -1;
  bool rigid = joint >= 0 && s->skeleton && (uint32_t)joint < s->skeleton->joint_count;
  float x[16], xinv[16], M[16];
  skc_mat4_identity(x);
  if (rigid && skio_scene_rest_to_bind(s, x) && !skc_mat4_inverse(x, xinv)) skc_mat4_identity(x);
  if (!skc_mat4_inverse(x, xinv)) skc_mat4_identity(xinv);
  skc_mat4_mul(xinv, world, M);
  memcpy(m->placed, M, sizeof M);
  m->placed_set = true;
  int rc = is_identity(M) ? SKC_OK : transform_mesh(m, M, err);
  if (rc || !rigid) return rc;
  return bind_rigid(s, m, (uint32_t)joint, x, err);
}
