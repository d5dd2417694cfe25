/* skin_validate.c - every weight defect we know of, counted per vertex. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_skin.h"

int skc_skin_validate(const skc_skin_view* v, float tolerance, uint32_t max_influences, skc_skin_report* r,
                      uint8_t* flags, skc_err* err) {
  if (!v || !r) return skc_fail(err, SKC_INVALID_ARGUMENT, "skin and report must not be NULL");
  if (!(tolerance > 0.0f)) tolerance = 1e-3f;
  memset(r, 0, sizeof *r);
  r->vertex_count = v->vertex_count;
  r->influence_count = v->offsets[v->vertex_count];
  /* joint usage bitmap over the declared joint range */
  uint8_t* used = v->joint_count ? calloc(v->joint_count, 1) : NULL;
  /* stamp[j] = last vertex (+1) that named joint j: duplicate detection in O(influences) */
  size_t* stamp = v->joint_count ? calloc(v->joint_count, sizeof *stamp) : NULL;
  if (v->joint_count && (!used || !stamp)) {
    free(used);
    free(stamp);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory validating weights");
  }
  bool any_sum = false;
  float smin = 0.0f, smax = 0.0f;
  for (size_t vi = 0; vi < v->vertex_count; ++vi) {
    size_t b = v->offsets[vi], e = v->offsets[vi + 1], n = e - b;
    uint8_t f = 0;
    double sum = 0.0;
    bool nonzero = false;
    for (size_t i = b; i < e; ++i) {
      float w = v->weights[i];
      uint32_t j = v->joints[i];
      if (!isfinite(w))
        f |= SKC_VFLAG_NAN;
      else {
        if (w < 0.0f) f |= SKC_VFLAG_NEGATIVE;
        if (w != 0.0f) nonzero = true;
        sum += w;
      }
      if (j >= v->joint_count) {
        f |= SKC_VFLAG_BAD_JOINT;
        continue;
      }
      if (w != 0.0f && isfinite(w)) used[j] = 1;
      if (stamp[j] == vi + 1) f |= SKC_VFLAG_DUPLICATE;
      stamp[j] = vi + 1;
    }
    if (n > r->max_influences) r->max_influences = (uint32_t)n;
    r->histogram[n < SKC_HISTOGRAM_BINS - 1 ? n : SKC_HISTOGRAM_BINS - 1]++;
    if (f & SKC_VFLAG_NAN) {
      /* counted as NaN only: its sum is meaningless */
    } else if (!nonzero) {
      f |= SKC_VFLAG_UNWEIGHTED;
    } else {
      float s = (float)sum;
      if (!any_sum || s < smin) smin = s;
      if (!any_sum || s > smax) smax = s;
      any_sum = true;
      if (fabs(sum - 1.0) > tolerance) f |= SKC_VFLAG_SUM_OFF;
    }
    if (max_influences && n > max_influences) f |= SKC_VFLAG_OVER_LIMIT;
    skc_skin_report_tally(r, f);
    if (flags) flags[vi] = f;
  }
  for (uint32_t j = 0; j < v->joint_count; ++j) r->joints_used += used[j];
  free(used);
  free(stamp);
  r->weight_sum_min = smin;
  r->weight_sum_max = smax;
  skc_skin_report_finish(r);
  return SKC_OK;
}

void skc_skin_report_tally(skc_skin_report* r, uint8_t f) {
  if (f & SKC_VFLAG_SUM_OFF) r->off_tolerance++;
  if (f & SKC_VFLAG_UNWEIGHTED) r->unweighted++;
  if (f & SKC_VFLAG_NAN) r->nan++;
  if (f & SKC_VFLAG_NEGATIVE) r->negative++;
  if (f & SKC_VFLAG_BAD_JOINT) r->bad_joint++;
  if (f & SKC_VFLAG_DUPLICATE) r->duplicate++;
  if (f & SKC_VFLAG_OVER_LIMIT) r->over_limit++;
}

void skc_skin_report_finish(skc_skin_report* r) {
  r->findings = r->off_tolerance || r->unweighted || r->nan || r->negative || r->bad_joint || r->duplicate ||
                r->over_limit;
}
