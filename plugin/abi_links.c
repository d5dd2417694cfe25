/* abi_links.c - bone links entry points: argument and size checks, then core/weights_links.c. */
#include "abi_internal.h"
#include "skc_links.h"
#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skc_weights.h"

_Static_assert(SK_BONE_LINKS_MAX == SKC_LINKS_MAX, "link limits differ");

SK_API sk_result sk_bone_links(const sk_skeleton* skeleton, const sk_skin* skin, const sk_bone_links_desc* desc,
                               sk_skeleton** out_skeleton, sk_skin** out_skin, sk_weights_report* report,
                               sk_error* err) {
  if (!skeleton) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skeleton must not be NULL");
  SK__CHECK_SIZE(desc, sk_bone_links_desc, err);
  if (report) SK__CHECK_SIZE(report, sk_weights_report, err);
  if (!out_skeleton) SK__FAIL(err, SKC_INVALID_ARGUMENT, "out_skeleton must not be NULL");
  if (skin && !out_skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "a skin was given: out_skin must not be NULL");
  const sk_weight_scope* sc = &desc->scope;
  uint32_t J = skeleton->joint_count;
  size_t V = skin ? skin->vertex_count : 0;
  if (sc->vertex_mask && !skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "vertex_mask given without a skin");
  if (sc->vertex_mask && sc->vertex_mask_count != V)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "vertex_mask has %zu entries but the skin has %zu vertices",
             sc->vertex_mask_count, V);
  if (!sc->vertex_mask && sc->vertex_mask_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "vertex_mask_count is %zu but vertex_mask is NULL", sc->vertex_mask_count);
  if (sc->locked_joints && sc->locked_joint_count != J)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "locked_joints has %zu entries but the skeleton has %u joints",
             sc->locked_joint_count, J);
  if (!sc->locked_joints && sc->locked_joint_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "locked_joint_count is %zu but locked_joints is NULL", sc->locked_joint_count);
  if (desc->ranges && desc->range_count != J)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "ranges has %zu entries but the skeleton has %u joints", desc->range_count, J);
  if (!desc->ranges && desc->range_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "range_count is %zu but ranges is NULL", desc->range_count);
  if (!desc->joints && desc->joint_list_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "joint_list_count is %zu but joints is NULL", desc->joint_list_count);
  if (desc->bone_space != SK_BONE_SPACE_BIND && desc->bone_space != SK_BONE_SPACE_REST)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown bone_space %u", desc->bone_space);
  if (!(desc->threshold >= 0.0f && desc->threshold <= 360.0f))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "threshold %g degrees is outside (0, 360]", (double)desc->threshold);
  if (skin) {
    if (skin->joint_count != J)
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "the skin has %u joints, the skeleton %u", skin->joint_count, J);
    if (!desc->positions) SK__FAIL(err, SKC_INVALID_ARGUMENT, "positions are required with a skin");
    if (desc->position_count != V)
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "position_count is %zu but the skin has %zu vertices", desc->position_count,
               V);
    if (desc->positions_stride && desc->positions_stride < 3 * sizeof(float))
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "positions_stride %zu is below 12 bytes", desc->positions_stride);
    if (desc->positions_stride % sizeof(float))
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "positions_stride %zu is not a multiple of 4", desc->positions_stride);
  }
  skc_wscope scope = {sc->vertex_mask, sc->locked_joints};
  skc_links_params p = {desc->ranges,
                        desc->joints,
                        desc->joint_list_count,
                        desc->links,
                        desc->threshold == 0.0f ? 60.0f : desc->threshold,
                        desc->positions,
                        desc->positions_stride,
                        desc->bone_space == SK_BONE_SPACE_REST};
  skc_wreport r = {0};
  if (report) {
    r.joint_counts = report->joint_counts;
    r.vertex_flags = report->vertex_flags;
  }
  skc_err e;
  skc_skeleton* os = NULL;
  skc_skin* on = NULL;
  int rc = skc_bone_links(skeleton, skin, &scope, &p, &os, skin ? &on : NULL, report ? &r : NULL, &e);
  if (rc == SKC_OK) {
    *out_skeleton = os;
    if (skin) *out_skin = on;
    if (report) {
      report->vertices_visited = r.vertices_visited;
      report->vertices_changed = r.vertices_changed;
      report->vertices_failed = r.vertices_failed;
      report->invalid_entries = r.invalid_entries;
      report->sum_off = r.sum_off;
      report->influences_before = r.influences_before;
      report->influences_after = r.influences_after;
      report->unmatched = r.unmatched;
      report->entries_changed = r.entries_changed;
      report->joints_affected = r.joints_affected;
    }
  }
  return sk__ret(rc, &e, err);
}

SK_API sk_result sk_bone_links_source(const sk_skeleton* original, const sk_skeleton* linked, uint32_t* out_source,
                                      uint32_t* out_link_index, sk_error* err) {
  if (!original || !linked) SK__FAIL(err, SKC_INVALID_ARGUMENT, "original and linked skeletons must not be NULL");
  skc_err e;
  return sk__ret(skc_bone_links_source(original, linked, out_source, out_link_index, &e), &e, err);
}

SK_API sk_result sk_bone_links_pose(const sk_skeleton* original, const sk_skeleton* linked, const float* trs,
                                    float* out_trs, sk_error* err) {
  if (!original || !linked || !trs || !out_trs)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "original, linked, trs and out_trs must not be NULL");
  skc_err e;
  return sk__ret(skc_bone_links_pose(original, linked, trs, out_trs, &e), &e, err);
}
