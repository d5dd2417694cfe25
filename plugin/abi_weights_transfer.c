/* abi_weights_transfer.c - sk_weights_transfer and sk_weights_direct: argument and size checks, then
 * core/weights_transfer.c and core/weights_direct.c. */
#include <math.h>

#include "abi_internal.h"
#include "skc_skin.h"
#include "skc_transfer.h"
#include "skc_weights.h"

_Static_assert((int)SK_TRANSFER_ALLOW_FLIPPED_NORMALS == SKC_TRANSFER_ALLOW_FLIPPED &&
                   (int)SK_TRANSFER_UNIFORM_LAPLACIAN == SKC_TRANSFER_UNIFORM_LAPLACIAN,
               "transfer flags differ");
_Static_assert((int)SK_TRANSFER_VERTEX_KEPT == SKC_TRANSFER_KEPT && (int)SK_TRANSFER_VERTEX_MATCHED == SKC_TRANSFER_MATCHED &&
                   (int)SK_TRANSFER_VERTEX_INPAINTED == SKC_TRANSFER_INPAINTED &&
                   (int)SK_TRANSFER_VERTEX_FALLBACK == SKC_TRANSFER_FALLBACK &&
                   (int)SK_TRANSFER_VERTEX_FAILED == SKC_TRANSFER_FAILED,
               "transfer vertex status values differ");

static int scope_in(const sk_skin* skin, const sk_weight_scope* sc, skc_wscope* out, skc_err* e) {
  if (sc->vertex_mask && sc->vertex_mask_count != skin->vertex_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT, "vertex_mask has %zu entries but the skin has %zu vertices",
                    sc->vertex_mask_count, skin->vertex_count);
  if (!sc->vertex_mask && sc->vertex_mask_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT, "vertex_mask_count is %zu but vertex_mask is NULL", sc->vertex_mask_count);
  if (sc->locked_joints && sc->locked_joint_count != skin->joint_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT, "locked_joints has %zu entries but the skin has %u joints",
                    sc->locked_joint_count, skin->joint_count);
  if (!sc->locked_joints && sc->locked_joint_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT, "locked_joint_count is %zu but locked_joints is NULL",
                    sc->locked_joint_count);
  out->mask = sc->vertex_mask;
  out->locked = sc->locked_joints;
  return SKC_OK;
}

static int stride_ok(const char* what, size_t stride, skc_err* e) {
  if (stride && stride < 3 * sizeof(float))
    return skc_fail(e, SKC_INVALID_ARGUMENT, "%s stride %zu is below 12 bytes", what, stride);
  if (stride % sizeof(float))
    return skc_fail(e, SKC_INVALID_ARGUMENT, "%s stride %zu is not a multiple of 4", what, stride);
  return SKC_OK;
}

SK_API sk_result sk_weights_transfer(sk_skin* target, const sk_transfer_desc* desc, sk_transfer_report* report,
                                     sk_error* err) {
  if (!target) SK__FAIL(err, SKC_INVALID_ARGUMENT, "target skin must not be NULL");
  SK__CHECK_SIZE(desc, sk_transfer_desc, err);
  if (report) SK__CHECK_SIZE(report, sk_transfer_report, err);
  skc_err e;
  skc_wscope sc;
  int rc = scope_in(target, &desc->scope, &sc, &e);
  if (rc) return sk__ret(rc, &e, err);
  if (desc->flags & ~(uint32_t)(SK_TRANSFER_ALLOW_FLIPPED_NORMALS | SK_TRANSFER_UNIFORM_LAPLACIAN))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown transfer flags 0x%x", desc->flags);
  if (!desc->source_skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "source_skin must not be NULL");
  if (!desc->source_positions) SK__FAIL(err, SKC_INVALID_ARGUMENT, "source_positions are required");
  if (!desc->target_positions) SK__FAIL(err, SKC_INVALID_ARGUMENT, "target_positions are required");
  if (desc->source_vertex_count != desc->source_skin->vertex_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "source_vertex_count is %zu but the source skin has %zu vertices",
             desc->source_vertex_count, desc->source_skin->vertex_count);
  if (desc->target_vertex_count != target->vertex_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "target_vertex_count is %zu but the target skin has %zu vertices",
             desc->target_vertex_count, target->vertex_count);
  if (desc->source_skin->joint_count != target->joint_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT,
             "the source skin has %u joints and the target skin %u: they must share the joint indexing",
             desc->source_skin->joint_count, target->joint_count);
  if (!desc->source_triangles || desc->source_triangle_count == 0)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "transfer needs source triangles (the source mesh has no faces)");
  if (!desc->target_triangles || desc->target_triangle_count == 0)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "transfer needs target triangles (the target mesh has no faces)");
  if (target->vertex_count == 0) SK__FAIL(err, SKC_INVALID_ARGUMENT, "the target has no vertices");
  if ((rc = stride_ok("source_positions", desc->source_positions_stride, &e)) ||
      (rc = stride_ok("source_normals", desc->source_normals_stride, &e)) ||
      (rc = stride_ok("target_positions", desc->target_positions_stride, &e)) ||
      (rc = stride_ok("target_normals", desc->target_normals_stride, &e)))
    return sk__ret(rc, &e, err);
  if (!(desc->distance_threshold >= 0.0f) || !isfinite(desc->distance_threshold))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "distance_threshold %g must be finite and >= 0",
             (double)desc->distance_threshold);
  if (!(desc->angle_threshold >= 0.0f && desc->angle_threshold <= 180.0f))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "angle_threshold %g is outside (0, 180] degrees", (double)desc->angle_threshold);
  if (!(desc->smooth_factor >= 0.0f && desc->smooth_factor <= 1.0f))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "smooth_factor %g is outside (0, 1]", (double)desc->smooth_factor);
  if (!(desc->min_weight < 1.0f) || isnan(desc->min_weight))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "min_weight %g must be < 1", (double)desc->min_weight);
  skc_transfer_params p = {
      .src_pos = desc->source_positions,
      .src_stride = desc->source_positions_stride,
      .src_count = desc->source_vertex_count,
      .src_nrm = desc->source_normals,
      .src_nrm_stride = desc->source_normals_stride,
      .src_tri = desc->source_triangles,
      .src_tri_count = desc->source_triangle_count,
      .src_skin = desc->source_skin,
      .dst_pos = desc->target_positions,
      .dst_stride = desc->target_positions_stride,
      .dst_nrm = desc->target_normals,
      .dst_nrm_stride = desc->target_normals_stride,
      .dst_tri = desc->target_triangles,
      .dst_tri_count = desc->target_triangle_count,
      .dist_threshold = desc->distance_threshold == 0.0f ? -1.0f : desc->distance_threshold,
      .angle_threshold = (float)((desc->angle_threshold == 0.0f ? 30.0 : (double)desc->angle_threshold) * 3.14159265358979323846 / 180.0),
      .flags = desc->flags,
      .smooth_iterations = desc->smooth_iterations,
      .smooth_factor = desc->smooth_factor == 0.0f ? 0.5f : desc->smooth_factor,
      .max_influences = desc->max_influences,
      .min_weight = desc->min_weight == 0.0f ? 1e-4f : (desc->min_weight < 0.0f ? 0.0f : desc->min_weight),
  };
  skc_transfer_stats st = {0};
  if (report) st.vertex_status = report->vertex_status;
  rc = skc_weights_transfer(target, &sc, &p, &st, &e);
  if (rc == SKC_OK && report) {
    report->milliseconds = st.milliseconds;
    report->selected = st.selected;
    report->matched = st.matched;
    report->inpainted = st.inpainted;
    report->fallback = st.fallback;
    report->fallback_components = st.fallback_components;
    report->failed = st.failed;
    report->distance_threshold = st.dist_threshold_used;
  }
  return sk__ret(rc, &e, err);
}

SK_API sk_result sk_weights_direct(sk_skin* skin, const sk_direct_desc* desc, sk_direct_report* report,
                                   sk_error* err) {
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");
  SK__CHECK_SIZE(desc, sk_direct_desc, err);
  if (report) SK__CHECK_SIZE(report, sk_direct_report, err);
  skc_err e;
  skc_wscope sc;
  int rc = scope_in(skin, &desc->scope, &sc, &e);
  if (rc) return sk__ret(rc, &e, err);
  if (desc->vertex >= skin->vertex_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "vertex %zu is past the skin's %zu vertices", desc->vertex, skin->vertex_count);
  if (sc.mask && !sc.mask[desc->vertex])
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "the vertex mask does not select vertex %zu", desc->vertex);
  if (!desc->rest_position || !desc->palettes || !desc->targets)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "rest_position, palettes and targets are required");
  if (desc->candidates && desc->candidate_count == 0)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "candidates is given but candidate_count is 0");
  if (!desc->candidates && desc->candidate_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "candidate_count is %zu but candidates is NULL", desc->candidate_count);
  skc_direct_params p = {desc->vertex,        desc->rest_position, desc->palettes,
                         desc->targets,       desc->pose_count ? desc->pose_count : 1,
                         desc->candidates,    desc->candidate_count};
  skc_direct_result r = {0};
  if (report) r.achieved = report->achieved;
  rc = skc_weights_direct(skin, &sc, &p, &r, &e);
  if (rc == SKC_OK && report) {
    report->candidates_used = r.candidates_used;
    report->nonzero = r.nonzero;
    report->residual = r.residual;
    report->max_distance = r.max_distance;
  }
  return sk__ret(rc, &e, err);
}
