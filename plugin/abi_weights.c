/* abi_weights.c - weight editing entry points: argument and size checks, then core/weights_*.c. */
#include "abi_internal.h"
#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skc_weights.h"

_Static_assert((int)SK_WFLAG_CHANGED == SKC_WFLAG_CHANGED && (int)SK_WFLAG_FAILED == SKC_WFLAG_FAILED &&
                   (int)SK_WFLAG_INVALID == SKC_WFLAG_INVALID && (int)SK_WFLAG_UNWEIGHTED == SKC_WFLAG_UNWEIGHTED &&
                   (int)SK_WFLAG_LOCKED == SKC_WFLAG_LOCKED && (int)SK_WFLAG_SUM_OFF == SKC_WFLAG_SUM_OFF &&
                   (int)SK_WFLAG_UNMATCHED == SKC_WFLAG_UNMATCHED && (int)SK_WFLAG_ROGUE == SKC_WFLAG_ROGUE,
               "weight flag bits differ");
_Static_assert((int)SK_MIRROR_POSITIVE_TO_NEGATIVE == SKC_MIRROR_POS_TO_NEG &&
                   (int)SK_MIRROR_NEGATIVE_TO_POSITIVE == SKC_MIRROR_NEG_TO_POS && (int)SK_MIRROR_FLIP == SKC_MIRROR_FLIP,
               "mirror modes differ");

/* Common checks: skin, desc size (done by the caller's macro), report size, scope sizes. */
static int check_scope(size_t vertex_count, uint32_t joint_count, const sk_weight_scope* sc, skc_wscope* out,
                       skc_err* e) {
  if (sc->vertex_mask && sc->vertex_mask_count != vertex_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT,
                    "vertex_mask has %zu entries but the skin has %zu vertices (a joint mask passed as vertex mask?)",
                    sc->vertex_mask_count, vertex_count);
  if (!sc->vertex_mask && sc->vertex_mask_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT, "vertex_mask_count is %zu but vertex_mask is NULL", sc->vertex_mask_count);
  if (sc->locked_joints && sc->locked_joint_count != joint_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT,
                    "locked_joints has %zu entries but the skin has %u joints (a vertex mask passed as joint locks?)",
                    sc->locked_joint_count, joint_count);
  if (!sc->locked_joints && sc->locked_joint_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT, "locked_joint_count is %zu but locked_joints is NULL", sc->locked_joint_count);
  out->mask = sc->vertex_mask;
  out->locked = sc->locked_joints;
  return SKC_OK;
}

static int check_positions(const sk_skin* skin, const float* positions, size_t stride, size_t count, bool required,
                           skc_err* e) {
  if (!positions) {
    if (required) return skc_fail(e, SKC_INVALID_ARGUMENT, "positions are required");
    return SKC_OK;
  }
  if (count != skin->vertex_count)
    return skc_fail(e, SKC_INVALID_ARGUMENT, "position_count is %zu but the skin has %zu vertices", count,
                    skin->vertex_count);
  if (stride && stride < 3 * sizeof(float))
    return skc_fail(e, SKC_INVALID_ARGUMENT, "positions_stride %zu is below 12 bytes", stride);
  if (stride % sizeof(float))
    return skc_fail(e, SKC_INVALID_ARGUMENT, "positions_stride %zu is not a multiple of 4", stride);
  return SKC_OK;
}

void sk__report_out(const skc_wreport* r, sk_weights_report* out) {
  if (!out) return;
  out->vertices_visited = r->vertices_visited;
  out->vertices_changed = r->vertices_changed;
  out->vertices_failed = r->vertices_failed;
  out->invalid_entries = r->invalid_entries;
  out->sum_off = r->sum_off;
  out->influences_before = r->influences_before;
  out->influences_after = r->influences_after;
  out->unmatched = r->unmatched;
  out->entries_changed = r->entries_changed;
  out->joints_affected = r->joints_affected;
}

#define WEIGHTS_PROLOGUE(desc_type)                                              \
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");      \
  SK__CHECK_SIZE(desc, desc_type, err);                                          \
  if (report) SK__CHECK_SIZE(report, sk_weights_report, err);                    \
  skc_err e;                                                                     \
  skc_wscope sc;                                                                 \
  skc_wreport r = {0};                                                           \
  if (report) {                                                                  \
    r.joint_counts = report->joint_counts;                                       \
    r.vertex_flags = report->vertex_flags;                                       \
  }                                                                              \
  int rc = check_scope(skin->vertex_count, skin->joint_count, &desc->scope, &sc, &e); \
  if (rc) return sk__ret(rc, &e, err)

#define WEIGHTS_EPILOGUE()         \
  if (rc == SKC_OK) sk__report_out(&r, report); \
  return sk__ret(rc, &e, err)

/* The checks shared by the row operations' descriptors: size, flags, tolerance, scope. */
#define ROW_DESC_CHECKS(type, allowed_flags, name)                                                    \
  do {                                                                                                \
    const type* d_ = desc;                                                                            \
    SK__CHECK_SIZE(d_, type, err);                                                                    \
    if (d_->flags & ~(uint32_t)(allowed_flags))                                                       \
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown " name " flags 0x%x", d_->flags);                  \
    if (!(d_->tolerance >= 0.0f && d_->tolerance < 1.0f))                                             \
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "tolerance %g is outside [0, 1)", (double)d_->tolerance);   \
    scope = &d_->scope;                                                                               \
  } while (0)

/* The row operation (core/weights_rows.c) of an SK_RECORDS_* kind and its descriptor, checked as the
 * sk_weights_* function checks it, for vertex_count vertices and joint_count joints. */
sk_result sk__wrow_from_desc(uint32_t kind, const void* desc, size_t vertex_count, uint32_t joint_count,
                             skc_wrow_op* op, skc_wscope* sc, sk_error* err) {
  const sk_weight_scope* scope = NULL;
  skc_err e;
  int rc;
  if (kind == SK_RECORDS_NORMALIZE) {
    ROW_DESC_CHECKS(sk_normalize_desc, SK_NORMALIZE_DROP_INVALID, "normalize");
    const sk_normalize_desc* d = desc;
    rc = skc_wrow_init(op, SKC_WROW_NORMALIZE, joint_count, d->flags, 0, 0.0f, d->tolerance, &e);
  } else if (kind == SK_RECORDS_LIMIT) {
    ROW_DESC_CHECKS(sk_limit_desc, SK_LIMIT_NO_NORMALIZE, "limit");
    const sk_limit_desc* d = desc;
    rc = skc_wrow_init(op, SKC_WROW_LIMIT, joint_count, d->flags, d->max_influences ? d->max_influences : 4, 0.0f,
                       d->tolerance, &e);
  } else if (kind == SK_RECORDS_PRUNE) {
    ROW_DESC_CHECKS(sk_prune_desc, SK_PRUNE_KEEP_ONE | SK_PRUNE_NORMALIZE, "prune");
    const sk_prune_desc* d = desc;
    rc = skc_wrow_init(op, SKC_WROW_PRUNE, joint_count, d->flags, 0, d->threshold, d->tolerance, &e);
  } else if (kind == SK_RECORDS_QUANTIZE || kind == SK_RECORDS_ROUND) {
    const sk_quantize_desc* d = desc;
    SK__CHECK_SIZE(d, sk_quantize_desc, err);
    uint32_t bits = d->bits ? d->bits : 8;
    if (kind == SK_RECORDS_ROUND && bits != 8 && bits != 16)
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "quantization bits must be 8 or 16, got %u", bits);
    scope = &d->scope;
    if (kind == SK_RECORDS_QUANTIZE)
      rc = skc_wrow_init(op, SKC_WROW_QUANTIZE, joint_count, 0, bits, 0.0f, 0.0f, &e);
    else
      rc = skc_wrow_init(op, SKC_WROW_ROUND, joint_count, 0, (1u << bits) - 1u, 0.0f, 0.0f, &e);
  } else {
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown records operation %u", kind);
  }
  if (!rc) rc = check_scope(vertex_count, joint_count, scope, sc, &e);
  return sk__ret(rc, &e, err);
}

/* sk_weights_normalize, _limit, _prune and _quantize (without out_values): one row loop. */
static sk_result weights_rows(sk_skin* skin, uint32_t kind, const void* desc, sk_weights_report* report,
                              sk_error* err) {
  if (!skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skin must not be NULL");
  if (report) SK__CHECK_SIZE(report, sk_weights_report, err);
  skc_wrow_op op;
  skc_wscope sc;
  sk_result res = sk__wrow_from_desc(kind, desc, skin->vertex_count, skin->joint_count, &op, &sc, err);
  if (res != SK_OK) return res;
  skc_wreport r = {.joint_counts = report ? report->joint_counts : NULL,
                   .vertex_flags = report ? report->vertex_flags : NULL};
  skc_err e;
  int rc = skc_weights_rows(skin, &sc, &op, &r, &e);
  if (rc == SKC_OK) sk__report_out(&r, report);
  return sk__ret(rc, &e, err);
}

SK_API sk_result sk_weights_normalize(sk_skin* skin, const sk_normalize_desc* desc, sk_weights_report* report,
                                      sk_error* err) {
  return weights_rows(skin, SK_RECORDS_NORMALIZE, desc, report, err);
}

SK_API sk_result sk_weights_limit(sk_skin* skin, const sk_limit_desc* desc, sk_weights_report* report, sk_error* err) {
  return weights_rows(skin, SK_RECORDS_LIMIT, desc, report, err);
}

SK_API sk_result sk_weights_prune(sk_skin* skin, const sk_prune_desc* desc, sk_weights_report* report, sk_error* err) {
  return weights_rows(skin, SK_RECORDS_PRUNE, desc, report, err);
}

SK_API sk_result sk_weights_quantize(sk_skin* skin, const sk_quantize_desc* desc, sk_weights_report* report,
                                     sk_error* err) {
  if (!skin || !desc || desc->size != sizeof *desc || !desc->out_values)
    return weights_rows(skin, SK_RECORDS_QUANTIZE, desc, report, err);
  WEIGHTS_PROLOGUE(sk_quantize_desc);
  if (desc->out_values_count < skc_skin_entries(skin))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "out_values holds %zu entries, the skin has %zu influences",
             desc->out_values_count, (size_t)skc_skin_entries(skin));
  rc = skc_weights_quantize(skin, &sc, desc->bits ? desc->bits : 8, desc->out_values, &r, &e);
  WEIGHTS_EPILOGUE();
}

SK_API sk_result sk_weights_smooth(sk_skin* skin, const sk_smooth_desc* desc, sk_weights_report* report, sk_error* err) {
  WEIGHTS_PROLOGUE(sk_smooth_desc);
  if (desc->method != SK_SMOOTH_UNIFORM && desc->method != SK_SMOOTH_COTANGENT)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown smoothing method %u", desc->method);
  if ((rc = check_positions(skin, desc->positions, desc->positions_stride, desc->position_count,
                            desc->method == SK_SMOOTH_COTANGENT, &e)))
    return sk__ret(rc, &e, err);
  if (!(desc->tolerance >= 0.0f && desc->tolerance < 1.0f))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "tolerance %g is outside [0, 1)", (double)desc->tolerance);
  skc_smooth_params p = {desc->positions,
                         desc->positions_stride,
                         desc->triangles,
                         desc->triangle_count,
                         desc->iterations ? desc->iterations : 1,
                         desc->factor == 0.0f ? 0.5f : desc->factor,
                         desc->method == SK_SMOOTH_COTANGENT,
                         desc->joints,
                         desc->joint_list_count,
                         desc->max_influences,
                         desc->min_weight == 0.0f ? 1e-4f : desc->min_weight,
                         desc->tolerance};
  rc = skc_weights_smooth(skin, &sc, &p, &r, &e);
  WEIGHTS_EPILOGUE();
}

SK_API sk_result sk_weights_remove_rogue(sk_skin* skin, const sk_rogue_desc* desc, sk_weights_report* report,
                                         sk_error* err) {
  WEIGHTS_PROLOGUE(sk_rogue_desc);
  if (desc->flags & ~(uint32_t)SK_ROGUE_PER_COMPONENT)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown rogue-removal flags 0x%x", desc->flags);
  if ((rc = check_positions(skin, desc->positions, desc->positions_stride, desc->position_count, false, &e)))
    return sk__ret(rc, &e, err);
  if (!(desc->tolerance >= 0.0f && desc->tolerance < 1.0f))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "tolerance %g is outside [0, 1)", (double)desc->tolerance);
  skc_rogue_params p = {desc->positions, desc->positions_stride, desc->triangles, desc->triangle_count,
                        desc->skeleton,  desc->epsilon,          desc->flags,     desc->tolerance};
  rc = skc_weights_remove_rogue(skin, &sc, &p, &r, &e);
  WEIGHTS_EPILOGUE();
}

SK_API sk_result sk_weights_mirror(sk_skin* skin, const sk_mirror_desc* desc, sk_weights_report* report, sk_error* err) {
  WEIGHTS_PROLOGUE(sk_mirror_desc);
  if ((rc = check_positions(skin, desc->positions, desc->positions_stride, desc->position_count, true, &e)))
    return sk__ret(rc, &e, err);
  if (desc->mode > SK_MIRROR_FLIP) SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown mirror mode %u", desc->mode);
  if (!(desc->tolerance >= 0.0f))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "mirror tolerance %g must be >= 0", (double)desc->tolerance);
  skc_mirror_params p = {desc->positions,
                         desc->positions_stride,
                         desc->skeleton,
                         {desc->plane[0], desc->plane[1], desc->plane[2]},
                         desc->plane[3],
                         desc->tolerance,
                         (int)desc->mode,
                         0.0f};
  rc = skc_weights_mirror(skin, &sc, &p, &r, &e);
  WEIGHTS_EPILOGUE();
}

_Static_assert((int)SK_BRUSH_ADD == SKC_BRUSH_ADD && (int)SK_BRUSH_SUBTRACT == SKC_BRUSH_SUBTRACT &&
                   (int)SK_BRUSH_REPLACE == SKC_BRUSH_REPLACE && (int)SK_BRUSH_SMOOTH == SKC_BRUSH_SMOOTH &&
                   (int)SK_FALLOFF_SMOOTH == SKC_FALLOFF_SMOOTH && (int)SK_FALLOFF_LINEAR == SKC_FALLOFF_LINEAR &&
                   (int)SK_FALLOFF_CONSTANT == SKC_FALLOFF_CONSTANT && (int)SK_FALLOFF_SHARP == SKC_FALLOFF_SHARP,
               "brush enums differ");

SK_API sk_result sk_weights_brush(sk_skin* skin, const sk_brush_desc* desc, sk_weights_report* report, sk_error* err) {
  WEIGHTS_PROLOGUE(sk_brush_desc);
  if (desc->flags & ~(uint32_t)(SK_BRUSH_GEODESIC | SK_BRUSH_NO_NORMALIZE))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown brush flags 0x%x", desc->flags);
  if (desc->mode > SK_BRUSH_SMOOTH) SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown brush mode %u", desc->mode);
  if (desc->falloff > SK_FALLOFF_SHARP) SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown brush falloff %u", desc->falloff);
  if ((rc = check_positions(skin, desc->positions, desc->positions_stride, desc->position_count, true, &e)))
    return sk__ret(rc, &e, err);
  if (!(desc->tolerance >= 0.0f && desc->tolerance < 1.0f))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "tolerance %g is outside [0, 1)", (double)desc->tolerance);
  skc_brush_params p = {desc->positions,
                        desc->positions_stride,
                        desc->triangles,
                        desc->triangle_count,
                        desc->dabs,
                        desc->dab_count,
                        desc->joint,
                        (int)desc->mode,
                        (int)desc->falloff,
                        (desc->flags & SK_BRUSH_GEODESIC) != 0,
                        (desc->flags & SK_BRUSH_NO_NORMALIZE) == 0,
                        desc->value,
                        desc->tolerance};
  rc = skc_weights_brush(skin, &sc, &p, &r, &e);
  WEIGHTS_EPILOGUE();
}

SK_API sk_result sk_joint_mirror_name(const char* name, char* out, size_t cap, sk_error* err) {
  skc_err e;
  return sk__ret(skc_joint_mirror_name(name, out, cap, &e), &e, err);
}

SK_API sk_result sk_skeleton_mirror_map(const sk_skeleton* skeleton, uint32_t* out_map, uint32_t* out_mapped,
                                        sk_error* err) {
  if (!skeleton || !out_map) SK__FAIL(err, SKC_INVALID_ARGUMENT, "skeleton and out_map must not be NULL");
  long n = skc_joint_mirror_map(skeleton, out_map);
  if (n < 0) SK__FAIL(err, SKC_OUT_OF_MEMORY, "out of memory mapping joint names");
  if (out_mapped) *out_mapped = (uint32_t)n;
  return sk__ret(SKC_OK, NULL, err);
}
