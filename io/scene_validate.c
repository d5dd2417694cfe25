/* scene_validate.c - per-mesh checks of an imported scene: the skin weights plus the mesh's inverse bind matrices
 * and bones that influence nothing. Weights: for a glTF read by skinkit's own reader, the file's JOINTS_n /
 * WEIGHTS_n values themselves (gltf_validate.c: padding, out-of-range joints and integer sums are only visible
 * there); for every other file, the scene's skin (skc_skin_validate), i.e. what the importer kept. */
#include <math.h>
#include <string.h>

#include "skio_gltf_doc.h"
#include "skio_gltf_validate.h"
#include "skio_scene.h"

/* Upper 3x3 is a rotation times a uniform positive scale (no shear, no non-uniform scale, no mirror). */
static bool is_similarity(const float m[16], float tol, float affine_tol) {
  float len[3];
  for (int c = 0; c < 3; ++c)
    len[c] = sqrtf(m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] + m[c * 4 + 2] * m[c * 4 + 2]);
  float mean = (len[0] + len[1] + len[2]) / 3.0f;
  if (!(mean > 0.0f)) return false;
  for (int c = 0; c < 3; ++c)
    if (fabsf(len[c] - mean) > tol * mean) return false;
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b) {
      float d = m[a * 4] * m[b * 4] + m[a * 4 + 1] * m[b * 4 + 1] + m[a * 4 + 2] * m[b * 4 + 2];
      if (fabsf(d) > tol * len[a] * len[b]) return false;
    }
  return skc_mat3_det_of_mat4(m) > 0.0f && skc_mat4_is_affine(m, affine_tol);
}

/* Singular relative to its own scale: |det A| <= 1e-6 ||A||_F^3 for the upper 3x3 A. |det A| / ||A||_F^3 is
 * s1 s2 s3 / (s1^2 + s2^2 + s3^2)^(3/2) for the singular values s, which does not change when the matrix is scaled:
 * 3^(-3/2) = 0.19 for any rotation times any uniform scale (gltfpack's -q inverse binds carry the dequantization
 * scale, e.g. 1.2e-4, so det 1.8e-12), about s3 / (2.8 s1) when s1 = s2 >> s3, 0 for a rank-deficient
 * A. A fixed |det| < 1e-12 called those scaled binds singular. */
static bool is_singular(const float m[16]) {
  double f2 = 0.0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) f2 += (double)m[c * 4 + r] * m[c * 4 + r];
  double det = fabs((double)skc_mat3_det_of_mat4(m));
  return !(f2 > 0.0) || !(det > 1e-6 * f2 * sqrt(f2));
}

int skio_mesh_validate(const skio_scene* s, uint32_t mi, float tolerance, uint32_t max_influences,
                       skio_mesh_report* out, skc_err* err) {
  if (!s || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and report must not be NULL");
  if (mi >= s->mesh_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u out of range (%u meshes)", mi, s->mesh_count);
  const skio_mesh* m = &s->meshes[mi];
  if (!m->skin || !s->skeleton)
    return skc_fail(err, SKC_NO_SKIN, "%s: mesh \"%s\" has no skin", s->source, m->name);
  memset(out, 0, sizeof *out);
  bool raw = false;
  int rc;
  if (s->gltf && m->gltf_node >= 0 && m->gltf_primitive >= 0 &&
      (rc = skio_gltf_validate_primitive(s->gltf, (uint32_t)m->gltf_node, (uint32_t)m->gltf_primitive,
                                         m->vertex_count, m->skin, s->joint_node, tolerance, max_influences,
                                         &out->skin, &raw, err)))
    return rc;
  if (!raw) {
    skc_skin_view v = skc_skin_as_view(m->skin);
    if ((rc = skc_skin_validate(&v, tolerance, max_influences, &out->skin, NULL, err))) return rc;
  }
  uint32_t jc = s->skeleton->joint_count;
  size_t entries = skc_skin_entries(m->skin);
  uint8_t used[SKC_MAX_JOINTS / 8 + 1];
  uint64_t non_affine = 0; /* of the nonrigid binds, those that are not affine at all */
  memset(used, 0, sizeof used);
  for (size_t e = 0; e < entries; ++e) {
    uint32_t j = m->skin->joints[e];
    if (j < jc && m->skin->weights[e] > 0.0f) used[j >> 3] |= (uint8_t)(1u << (j & 7));
  }
  for (uint32_t j = 0; j < jc; ++j) {
    if (!m->bound[j]) continue;
    const float* ib = m->inverse_bind + (size_t)j * 16;
    float inv[16];
    if (!skc_mat4_is_finite(ib) || !skc_mat4_inverse(ib, inv) || is_singular(ib))
      out->singular_binds++;
    else if (!is_similarity(ib, 1e-3f, s->gltf ? 0.0f : 1e-3f)) { /* glTF: bottom row exactly 0 0 0 1 */
      out->nonrigid_binds++;
      non_affine += !skc_mat4_is_affine(ib, s->gltf ? 0.0f : 1e-3f);
    }
    if (!(used[j >> 3] & (1u << (j & 7)))) out->unused_bones++;
  }
  out->dropped_weights = m->dropped_weights;
  if (s->gltf && m->gltf_node >= 0) out->skin_structure = skio_gltf_skin_structure(s->gltf, (uint32_t)m->gltf_node);
  if (s->gltf && s->gltf->json_not_utf8) out->skin_structure |= SKIO_SKIN_JSON_UTF8;
  if (s->gltf && m->gltf_node >= 0 && m->gltf_primitive >= 0)
    out->skin_structure |= skio_gltf_influence_format(s->gltf, (uint32_t)m->gltf_node, (uint32_t)m->gltf_primitive) |
                           skio_gltf_draco_count_differs(s->gltf, (uint32_t)m->gltf_node, (uint32_t)m->gltf_primitive);
  /* unused bones are informational: glTF skins routinely list joints (roots, helpers) that carry no weight; so are
   * mirrored, non-uniformly scaled or sheared binds (a mirrored rig is valid glTF, and the Khronos validator agrees):
   * only a bind that is not affine (glTF's ACCESSOR_INVALID_IBM) is a finding */
  out->findings =
      out->skin.findings || out->singular_binds || non_affine || out->dropped_weights || out->skin_structure;
  return SKC_OK;
}
