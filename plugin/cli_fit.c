/* cli_fit.c - the meshes of a scene in its rest pose, for bind's fit check (cli_common.h). Each mesh's vertices
 * are stored in a space of their own: an unskinned mesh where the file places it in the rest pose, a skinned one in
 * its skin's bind space, which in FBX is the mesh's own (Blender writes it so, in centimetres) and in a file of
 * several skins differs per skin. Judged together in one space, the rest pose, a character of a skinned body and
 * an unskinned prop fits its armature as it does in Blender. Also the object name `info` shows for a mesh. */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

/* c = a * b, column-major 4x4 */
static void mul4(const float* a, const float* b, float* c) {
  for (int col = 0; col < 4; ++col)
    for (int r = 0; r < 4; ++r) {
      float acc = 0.0f;
      for (int k = 0; k < 4; ++k) acc += a[k * 4 + r] * b[col * 4 + k];
      c[col * 4 + r] = acc;
    }
}

static void point(const float* m, const float* p, float* out) {
  for (int r = 0; r < 3; ++r) out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

/* Skinned vertex p to the rest pose: sum of w X(j) p over its weights (X = the palette RW(j) IB(j)), divided by their
 * sum (Blender's FBX weights sum to 0.97 .. 1); by joint j0's matrix when it has none. */
static void rest_vertex(const float* x, const uint32_t* joints, const float* weights, size_t n, uint32_t j0,
                        const float* p, float* out) {
  float sum = 0.0f, acc[3] = {0, 0, 0}, q[3];
  for (size_t e = 0; e < n; ++e) {
    if (!(weights[e] > 0.0f)) continue;
    point(x + (size_t)joints[e] * 16, p, q);
    for (int c = 0; c < 3; ++c) acc[c] += weights[e] * q[c];
    sum += weights[e];
  }
  if (sum > 0.0f) {
    for (int c = 0; c < 3; ++c) out[c] = acc[c] / sum;
    return;
  }
  point(x + (size_t)j0 * 16, p, out);
}

/* Skinned mesh m's positions (in pos, bind space) moved to the rest pose in place; 0 or -1 (out of memory). */
static int skinned_to_rest(sk_scene* s, uint32_t m, const sk_skin* skin, float* pos, size_t nv) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  const uint32_t nj = sk ? sk_skeleton_joint_count(sk) : 0;
  float* rw = malloc(((size_t)nj + 1) * 16 * sizeof *rw);
  float* ib = malloc(((size_t)nj + 1) * 16 * sizeof *ib);
  uint8_t* bound = calloc((size_t)nj + 1, 1);
  uint32_t joints[256];
  float weights[256];
  int rc = rw && ib && bound ? 0 : -1;
  if (!rc && nj && sk_skeleton_get_rest_world(sk, rw) == SK_OK &&
      sk_scene_mesh_inverse_binds(s, m, ib, bound, NULL) == SK_OK) {
    uint32_t j0 = 0;
    while (j0 + 1 < nj && !bound[j0]) ++j0;
    for (uint32_t j = 0; j < nj; ++j) { /* the palette, into ib */
      float x[16];
      mul4(rw + (size_t)j * 16, ib + (size_t)j * 16, x);
      memcpy(ib + (size_t)j * 16, x, sizeof x);
    }
    for (size_t v = 0; v < nv; ++v) {
      size_t n = sk_skin_get_vertex(skin, v, joints, weights, 256);
      size_t k = 0; /* joints inside the skeleton only */
      for (size_t e = 0; e < n && e < 256; ++e)
        if (joints[e] < nj) joints[k] = joints[e], weights[k++] = weights[e];
      float out[3];
      rest_vertex(ib, joints, weights, k, j0, pos + 3 * v, out);
      memcpy(pos + 3 * v, out, sizeof out);
    }
  }
  free(rw), free(ib), free(bound);
  return rc;
}

size_t cli_rest_positions(sk_scene* s, uint32_t m, float* out, size_t capacity) {
  const size_t n = sk_scene_mesh_positions(s, m, NULL, 0);
  if (!out) return n;
  if (capacity < n || sk_scene_mesh_positions(s, m, out, capacity) != n) return 0;
  const sk_skin* skin = sk_scene_mesh_skin(s, m);
  if (skin && sk_skin_vertex_count(skin) == n / 3 && skinned_to_rest(s, m, skin, out, n / 3)) return 0;
  return n;
}

const char* cli_mesh_object(sk_scene* s, uint32_t m) {
  const char* object = sk_scene_mesh_node_name(s, m);
  const char* name = sk_scene_mesh_name(s, m);
  if (!object || !object[0] || (name && !strcmp(object, name))) return NULL;
  const size_t n = strlen(object);
  return object[0] == '<' && object[n - 1] == '>' ? NULL : object;
}
