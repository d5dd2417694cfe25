/* abi_skeleton.c - skeleton, forward kinematics and palette entry points. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "abi_internal.h"
#include "skc_skeleton.h"

SK_API sk_result sk_skeleton_create(const sk_skeleton_desc* desc, sk_skeleton** out, sk_error* err) {
  if (desc && desc->size == offsetof(sk_skeleton_desc, tails)) { /* ABI 1.22 and before: no tails */
    sk_skeleton_desc d;
    memset(&d, 0, sizeof d);
    memcpy(&d, desc, offsetof(sk_skeleton_desc, tails));
    d.size = sizeof d;
    return sk_skeleton_create(&d, out, err);
  }
  SK__CHECK_SIZE(desc, sk_skeleton_desc, err);
  if (!out) SK__FAIL(err, SKC_INVALID_ARGUMENT, "out must not be NULL");
  skc_skeleton_init init = {desc->joint_count, desc->names,        desc->parents, desc->rest_local,
                            desc->bind,        desc->inverse_bind, desc->tails};
  skc_err e;
  skc_skeleton* s = NULL;
  int rc = skc_skeleton_create(&init, &s, &e);
  if (rc == SKC_OK) *out = s;
  return sk__ret(rc, &e, err);
}

SK_API void sk_skeleton_destroy(sk_skeleton* skeleton) { skc_skeleton_destroy(skeleton); }

SK_API uint32_t sk_skeleton_joint_count(const sk_skeleton* s) { return s ? s->joint_count : 0; }

SK_API const char* sk_skeleton_joint_name(const sk_skeleton* s, uint32_t joint) {
  return (s && joint < s->joint_count) ? s->names[joint] : NULL;
}

SK_API int32_t sk_skeleton_joint_parent(const sk_skeleton* s, uint32_t joint) {
  return (s && joint < s->joint_count) ? s->parents[joint] : SK_NO_PARENT;
}

SK_API sk_result sk_skeleton_find_joint(const sk_skeleton* s, const char* name, uint32_t* out_joint) {
  if (!s || !name || !out_joint) return SK_ERR_INVALID_ARGUMENT;
  int32_t j = skc_skeleton_find(s, name);
  if (j < 0) return SK_ERR_NOT_FOUND;
  *out_joint = (uint32_t)j;
  return SK_OK;
}

static sk_result copy_matrices(const sk_skeleton* s, const float* src, float* out) {
  if (!s || !out) return SK_ERR_INVALID_ARGUMENT;
  memcpy(out, src, (size_t)s->joint_count * 16 * sizeof(float));
  return SK_OK;
}

SK_API sk_result sk_skeleton_get_rest_local(const sk_skeleton* s, float* out) {
  return copy_matrices(s, s ? s->rest_local : NULL, out);
}
SK_API sk_result sk_skeleton_get_rest_world(const sk_skeleton* s, float* out) {
  return copy_matrices(s, s ? s->rest_world : NULL, out);
}
SK_API sk_result sk_skeleton_get_bind(const sk_skeleton* s, float* out) { return copy_matrices(s, s ? s->bind : NULL, out); }
SK_API sk_result sk_skeleton_get_inverse_bind(const sk_skeleton* s, float* out) {
  return copy_matrices(s, s ? s->inverse_bind : NULL, out);
}

SK_API uint32_t sk_skeleton_get_tails(const sk_skeleton* s, float* out_tails) {
  if (!s) return 0;
  uint32_t stored = 0;
  for (uint32_t j = 0; j < s->joint_count; ++j) {
    const bool has = skc_skeleton_has_tail(s, j);
    stored += has;
    for (int k = 0; out_tails && k < 3; ++k)
      out_tails[3 * (size_t)j + k] = has ? s->tail_local[3 * (size_t)j + k] : NAN;
  }
  return stored;
}

SK_API sk_result sk_skeleton_get_rest_trs(const sk_skeleton* s, float* out_trs) {
  if (!s || !out_trs) return SK_ERR_INVALID_ARGUMENT;
  sk_result rc = SK_OK;
  for (uint32_t j = 0; j < s->joint_count; ++j) {
    skc_trs t;
    if (!skc_mat4_to_trs(s->rest_local + (size_t)j * 16, &t, 1e-4f)) rc = SK_ERR_UNSUPPORTED;
    memcpy(out_trs + (size_t)j * 10, &t, sizeof t);
  }
  return rc;
}

SK_API sk_result sk_hierarchy_order(const int32_t* parents, uint32_t joint_count, uint32_t* out_order, sk_error* err) {
  if (!parents || !out_order) SK__FAIL(err, SKC_INVALID_ARGUMENT, "parents and out_order must not be NULL");
  if (joint_count == 0 || joint_count > SK_MAX_JOINTS)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "joint_count %u is outside 1..%u", joint_count, SK_MAX_JOINTS);
  skc_err e;
  return sk__ret(skc_hierarchy_order(parents, joint_count, out_order, &e), &e, err);
}

_Static_assert(sizeof(skc_trs) == 10 * sizeof(float), "skc_trs must be 10 packed floats");

SK_API sk_result sk_pose_local_from_trs(const float* trs, uint32_t joint_count, float* out_local, sk_error* err) {
  if (!trs || !out_local) SK__FAIL(err, SKC_INVALID_ARGUMENT, "trs and out_local must not be NULL");
  for (uint32_t j = 0; j < joint_count; ++j) {
    skc_trs t;
    memcpy(&t, trs + (size_t)j * 10, sizeof t);
    for (int i = 0; i < 10; ++i)
      if (!isfinite(trs[(size_t)j * 10 + i]))
        SK__FAIL(err, SKC_INVALID_ARGUMENT, "TRS of joint %u is not finite", j);
    skc_trs_to_mat4(&t, out_local + (size_t)j * 16);
  }
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_skeleton_world(const sk_skeleton* s, const float* local, const float* root, float* out_world,
                                   sk_error* err) {
  if (!s || !local || !out_world) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skeleton, local and out_world must not be NULL");
  size_t bytes = (size_t)s->joint_count * 16 * sizeof(float);
  const char* a = (const char*)local;
  const char* b = (const char*)out_world;
  if (a < b + bytes && b < a + bytes) SK__FAIL(err, SKC_INVALID_ARGUMENT, "local and out_world must not overlap");
  skc_fk(s->parents, s->joint_count, local, root, out_world);
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_palette_compute(const sk_skeleton* s, const float* world, const float* inverse_bind,
                                    float* out_palette, sk_error* err) {
  if (!s || !world || !out_palette) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skeleton, world and out_palette must not be NULL");
  skc_palette(world, inverse_bind ? inverse_bind : s->inverse_bind, s->joint_count, out_palette);
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_skeleton_palette_from_trs(const sk_skeleton* s, const float* trs, const float* inverse_bind,
                                              float* out_palette, sk_error* err) {
  if (!s || !out_palette) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skeleton and out_palette must not be NULL");
  size_t n = s->joint_count;
  float* local = malloc(n * 16 * sizeof(float));
  if (!local) SK__FAIL(err, SKC_OUT_OF_MEMORY, "out of memory for %zu joints", n);
  if (trs) {
    sk_result rc = sk_pose_local_from_trs(trs, s->joint_count, local, err);
    if (rc) {
      free(local);
      return rc;
    }
  } else {
    memcpy(local, s->rest_local, n * 16 * sizeof(float));
  }
  skc_fk(s->parents, s->joint_count, local, NULL, out_palette);
  free(local);
  skc_palette(out_palette, inverse_bind ? inverse_bind : s->inverse_bind, s->joint_count, out_palette);
  return sk__ret(SKC_OK, NULL, err);
}
