/* abi_skin.c - skin weight storage, packing and validation entry points. */
#include <stddef.h>

#include "abi_internal.h"
#include "skc_skin.h"

_Static_assert((int)SK_TYPE_U8 == SKC_TYPE_U8 && (int)SK_TYPE_U16 == SKC_TYPE_U16 && (int)SK_TYPE_U32 == SKC_TYPE_U32 &&
                   (int)SK_TYPE_F32 == SKC_TYPE_F32,
               "sk_type and skc_type differ");
_Static_assert(SK_HISTOGRAM_BINS == SKC_HISTOGRAM_BINS, "histogram sizes differ");
_Static_assert((int)SK_VFLAG_SUM_OFF == (int)SKC_VFLAG_SUM_OFF && (int)SK_VFLAG_UNWEIGHTED == (int)SKC_VFLAG_UNWEIGHTED &&
                   (int)SK_VFLAG_NAN == (int)SKC_VFLAG_NAN && (int)SK_VFLAG_NEGATIVE == (int)SKC_VFLAG_NEGATIVE &&
                   (int)SK_VFLAG_BAD_JOINT == (int)SKC_VFLAG_BAD_JOINT && (int)SK_VFLAG_DUPLICATE == (int)SKC_VFLAG_DUPLICATE &&
                   (int)SK_VFLAG_OVER_LIMIT == (int)SKC_VFLAG_OVER_LIMIT,
               "vertex flag bits differ");

SK_API sk_result sk_skin_create(size_t vertex_count, uint32_t joint_count, sk_skin** out, sk_error* err) {
  skc_err e;
  return sk__ret(skc_skin_create(vertex_count, joint_count, out, &e), &e, err);
}

SK_API void sk_skin_destroy(sk_skin* skin) { skc_skin_destroy(skin); }

SK_API sk_result sk_skin_clone(const sk_skin* skin, sk_skin** out, sk_error* err) {
  if (!skin || !out) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin and out must not be NULL");
  skc_err e;
  return sk__ret(skc_skin_clone(skin, out, &e), &e, err);
}

SK_API size_t sk_skin_vertex_count(const sk_skin* skin) { return skin ? skin->vertex_count : 0; }
SK_API uint32_t sk_skin_joint_count(const sk_skin* skin) { return skin ? skin->joint_count : 0; }
SK_API size_t sk_skin_influence_count(const sk_skin* skin) { return skin ? skc_skin_entries(skin) : 0; }

SK_API sk_result sk_skin_set_csr(sk_skin* skin, const uint32_t* offsets, const uint32_t* joints, const float* weights,
                                 sk_error* err) {
  skc_err e;
  return sk__ret(skc_skin_set(skin, offsets, joints, weights, &e), &e, err);
}

SK_API sk_result sk_skin_get_csr(const sk_skin* skin, uint32_t* out_offsets, uint32_t* out_joints, float* out_weights,
                                 sk_error* err) {
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");
  size_t n = skc_skin_entries(skin);
  if (out_offsets) memcpy(out_offsets, skin->offsets, (skin->vertex_count + 1) * sizeof *out_offsets);
  if (out_joints && n) memcpy(out_joints, skin->joints, n * sizeof *out_joints);
  if (out_weights && n) memcpy(out_weights, skin->weights, n * sizeof *out_weights);
  return sk__ret(SKC_OK, NULL, err);
}

SK_API size_t sk_skin_get_vertex(const sk_skin* skin, size_t vertex, uint32_t* out_joints, float* out_weights,
                                 size_t capacity) {
  if (!skin || vertex >= skin->vertex_count) return 0;
  size_t b = skin->offsets[vertex], n = skin->offsets[vertex + 1] - b;
  size_t c = n < capacity ? n : capacity;
  if (out_joints && c) memcpy(out_joints, skin->joints + b, c * sizeof *out_joints);
  if (out_weights && c) memcpy(out_weights, skin->weights + b, c * sizeof *out_weights);
  return n;
}

SK_API sk_result sk_skin_set_vertex(sk_skin* skin, size_t vertex, const uint32_t* joints, const float* weights,
                                    size_t count, sk_error* err) {
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");
  skc_err e;
  return sk__ret(skc_skin_set_vertex(skin, vertex, joints, weights, count, &e), &e, err);
}

static skc_packed to_core(const sk_packed_desc* p) {
  skc_packed c = {p->influences,
                  p->joint_type ? (int)p->joint_type : SKC_TYPE_U16,
                  p->weight_type ? (int)p->weight_type : SKC_TYPE_F32,
                  p->joints,
                  p->joints_stride,
                  p->weights,
                  p->weights_stride};
  return c;
}

SK_API sk_result sk_skin_to_packed(const sk_skin* skin, const sk_packed_desc* packed, sk_error* err) {
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");
  SK__CHECK_SIZE(packed, sk_packed_desc, err);
  skc_packed p = to_core(packed);
  skc_skin_view v = skc_skin_as_view(skin);
  skc_err e;
  return sk__ret(skc_skin_to_packed(&v, &p, &e), &e, err);
}

SK_API sk_result sk_skin_from_packed(sk_skin* skin, const sk_packed_desc* packed, sk_error* err) {
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");
  SK__CHECK_SIZE(packed, sk_packed_desc, err);
  skc_packed p = to_core(packed);
  skc_err e;
  return sk__ret(skc_skin_from_packed(skin, &p, &e), &e, err);
}

SK_API sk_result sk_skin_validate(const sk_skin* skin, const sk_validate_options* options, sk_skin_report* report,
                                  uint8_t* out_vertex_flags, sk_error* err) {
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");
  SK__CHECK_SIZE(report, sk_skin_report, err);
  if (options) SK__CHECK_SIZE(options, sk_validate_options, err);
  float tol = options ? options->tolerance : 0.0f;
  uint32_t limit = options ? options->max_influences : 0;
  if (options && !(tol >= 0.0f)) SK__FAIL(err, SKC_INVALID_ARGUMENT, "tolerance must be >= 0");
  skc_skin_view v = skc_skin_as_view(skin);
  skc_skin_report r;
  skc_err e;
  int rc = skc_skin_validate(&v, tol, limit, &r, out_vertex_flags, &e);
  if (rc) return sk__ret(rc, &e, err);
  uint32_t size = report->size;
  memset(report, 0, sizeof *report);
  report->size = size;
  report->max_influences = r.max_influences;
  report->vertex_count = r.vertex_count;
  report->influence_count = r.influence_count;
  report->weight_sum_min = r.weight_sum_min;
  report->weight_sum_max = r.weight_sum_max;
  report->off_tolerance = r.off_tolerance;
  report->unweighted = r.unweighted;
  report->nan = r.nan;
  report->negative = r.negative;
  report->bad_joint = r.bad_joint;
  report->duplicate = r.duplicate;
  report->over_limit = r.over_limit;
  report->joints_used = r.joints_used;
  memcpy(report->histogram, r.histogram, sizeof report->histogram);
  report->findings = r.findings ? 1u : 0u;
  return sk__ret(SKC_OK, NULL, err);
}

_Static_assert(sizeof(sk_partition_range) == sizeof(skc_partition_range) &&
                   offsetof(sk_partition_range, entry_offset) == offsetof(skc_partition_range, entry_offset) &&
                   SK_PARTITION_MAX_RANGES == SKC_PARTITION_MAX_RANGES,
               "sk_partition_range must match skc_partition_range");

SK_API sk_result sk_skin_partition(const sk_skin* skin, uint32_t* out_order,
                                   sk_partition_range out_ranges[SK_PARTITION_MAX_RANGES], uint32_t* out_range_count,
                                   uint16_t* out_joints, float* out_weights, size_t* out_entry_count, sk_error* err) {
  if (!skin || !out_ranges || !out_range_count || !out_entry_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin, out_ranges, out_range_count and out_entry_count are required");
  if (!out_joints != !out_weights) SK__FAIL(err, SKC_INVALID_ARGUMENT, "give both out_joints and out_weights, or neither");
  if (out_joints && !out_order) SK__FAIL(err, SKC_INVALID_ARGUMENT, "packed streams need out_order");
  if (skin->vertex_count > UINT32_MAX) SK__FAIL(err, SKC_OUT_OF_RANGE, "%zu vertices do not fit out_order", skin->vertex_count);
  skc_err e;
  int rc = skc_skin_partition(skin, out_order, (skc_partition_range*)out_ranges, out_range_count, out_joints,
                              out_weights, out_entry_count, &e);
  return sk__ret(rc, rc ? &e : NULL, err);
}
