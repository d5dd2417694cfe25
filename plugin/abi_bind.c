/* abi_bind.c - automatic binding (sk_bind) and bone segments of a skeleton. */
#include <stddef.h>
#include <stdlib.h>

#include "abi_internal.h"
#include "skc_bind.h"

SK_API sk_result sk_skeleton_bone_segments(const sk_skeleton* skeleton, uint32_t space, float* out_heads,
                                           float* out_tails, sk_error* err) {
  if (!skeleton || !out_heads || !out_tails)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_skeleton_bone_segments: skeleton and outputs must not be NULL");
  if (space > SK_BONE_SPACE_REST)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_skeleton_bone_segments: unknown space %u", space);
  if (space == SK_BONE_SPACE_REST)
    skc_skeleton_bone_segments(skeleton, out_heads, out_tails);
  else
    skc_skeleton_bone_segments_bind(skeleton, out_heads, out_tails);
  return sk__ret(SKC_OK, NULL, err);
}

/* desc's skeleton as the bone segments see it (*view, borrowing its arrays but parents): a joint with no deform joint
 * at or below it (an attachment point, an exporter's leaf bone past the last one) hangs from no parent, so that no
 * bone's tail, child count or sibling count sees it - the segments of a skeleton of the deform joints and their
 * ancestors. *parents is allocated (free it); without deform flags the view is the skeleton. 1 when out of memory. */
static int deform_view(const sk_bind_desc* desc, skc_skeleton* view, int32_t** parents) {
  const skc_skeleton* sk = desc->skeleton;
  const uint32_t n = sk->joint_count;
  *view = *sk;
  *parents = malloc(((size_t)n + 1) * sizeof **parents);
  uint8_t* leads = calloc((size_t)n + 1, 1);
  if (!*parents || !leads) {
    free(leads);
    return 1;
  }
  for (uint32_t j = n; j-- > 0;) {
    leads[j] |= !desc->deform || desc->deform[j];
    if (leads[j] && !skc_skeleton_is_root(sk, j)) leads[sk->parents[j]] = 1;
  }
  for (uint32_t j = 0; j < n; ++j) (*parents)[j] = leads[j] ? sk->parents[j] : SKC_NO_PARENT;
  view->parents = *parents;
  free(leads);
  return 0;
}

/* The bone segments desc names: its skeleton's (in desc->bone_space, see deform_view; *seg is then allocated, free
 * it) or its heads/tails. 1 when out of memory. */
static int bones_of(const sk_bind_desc* desc, float** seg, const float** heads, const float** tails, uint32_t* nj) {
  *seg = NULL;
  if (!desc->skeleton) {
    *heads = desc->heads;
    *tails = desc->tails;
    *nj = desc->joint_count;
    return 0;
  }
  uint32_t n = desc->skeleton->joint_count;
  skc_skeleton view;
  int32_t* parents = NULL;
  if (deform_view(desc, &view, &parents) || !(*seg = malloc((size_t)n * 6 * sizeof **seg))) {
    free(parents);
    return 1;
  }
  if (desc->bone_space == SK_BONE_SPACE_REST)
    skc_skeleton_bone_segments(&view, *seg, *seg + 3 * (size_t)n);
  else
    skc_skeleton_bone_segments_bind(&view, *seg, *seg + 3 * (size_t)n);
  skc_bind_aim_sibling_leaves(&view, desc->deform, desc->positions, desc->vertex_count, desc->triangles,
                              desc->triangle_count, *seg, *seg + 3 * (size_t)n);
  free(parents);
  *heads = *seg;
  *tails = *seg + 3 * (size_t)n;
  *nj = n;
  return 0;
}

/* The caller's descriptor as this version's: one of the 1.5 size (ending before parents) gets no parents. */
static sk_result desc_in(const sk_bind_desc* desc, sk_bind_desc* full, const char* fn, sk_error* err) {
  const size_t size_1_5 = offsetof(sk_bind_desc, parents);
  if (!desc) SK__FAIL(err, SKC_INVALID_ARGUMENT, "%s: sk_bind_desc pointer must not be NULL", fn);
  if (desc->size != sizeof(sk_bind_desc) && desc->size != size_1_5)
    SK__FAIL(err, SKC_STRUCT_SIZE, "sk_bind_desc.size is %u, this library expects %zu (set it to sizeof)",
             (unsigned)desc->size, sizeof(sk_bind_desc));
  memset(full, 0, sizeof *full);
  memcpy(full, desc, desc->size);
  return sk__ret(0, NULL, err);
}

/* Heads/tails with parents: each -1 or an earlier joint (so the hierarchy has no cycle). */
static sk_result check_parents(const sk_bind_desc* desc, sk_error* err) {
  if (!desc->parents || desc->skeleton) return sk__ret(0, NULL, err);
  for (uint32_t j = 0; j < desc->joint_count; ++j)
    if (desc->parents[j] < -1 || desc->parents[j] >= (int32_t)j)
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind: parents[%u] is %d: a parent must be -1 or an earlier joint", j,
               (int)desc->parents[j]);
  return sk__ret(0, NULL, err);
}

SK_API sk_result sk_bind_fit_check(const sk_bind_desc* caller_desc, sk_bind_fit* out, sk_error* err) {
  sk_bind_desc full;
  sk_result in = desc_in(caller_desc, &full, "sk_bind_fit_check", err);
  if (in != SK_OK) return in;
  const sk_bind_desc* desc = &full;
  if (!out || out->size != sizeof(sk_bind_fit))
    SK__FAIL(err, SKC_STRUCT_SIZE, "sk_bind_fit_check: out must be set and out->size = sizeof(sk_bind_fit)");
  if (desc->skeleton && (desc->heads || desc->tails))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind_fit_check: give either a skeleton or heads/tails, not both");
  if (desc->bone_space > SK_BONE_SPACE_REST)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind_fit_check: unknown bone_space %u", desc->bone_space);
  if (desc->vertex_count && !desc->positions)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind_fit_check: positions must not be NULL");
  float* seg = NULL;
  const float *heads, *tails;
  uint32_t nj;
  if (bones_of(desc, &seg, &heads, &tails, &nj)) SK__FAIL(err, SKC_OUT_OF_MEMORY, "sk_bind_fit_check: out of memory");
  if (nj && (!heads || !tails)) {
    free(seg);
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind_fit_check: give a skeleton or heads and tails");
  }
  skc_bind_fit f;
  skc_bind_fit_check(desc->positions, desc->vertex_count, heads, tails, nj, desc->deform, &f);
  free(seg);
  out->ok = (uint32_t)f.ok;
  out->hint = (uint32_t)f.hint;
  out->reserved = 0;
  out->inside_share = f.inside_share;
  out->scale_ratio = f.scale_ratio;
  return SK_OK;
}

SK_API sk_result sk_bind(const sk_bind_desc* caller_desc, sk_skin* out, sk_bind_report* report, sk_error* err) {
  sk_bind_desc whole;
  sk_result in = desc_in(caller_desc, &whole, "sk_bind", err);
  if (in != SK_OK) return in;
  const sk_bind_desc* desc = &whole;
  const size_t size_1_4 = offsetof(sk_bind_report, vertex_fallback); /* 1.4 callers end at joint_vertex_counts */
  if (report && report->size != sizeof(sk_bind_report) && report->size != size_1_4)
    SK__FAIL(err, SKC_STRUCT_SIZE, "sk_bind_report.size is %u, this library expects %zu (set it to sizeof)",
             (unsigned)report->size, sizeof(sk_bind_report));
  int full = report && report->size == sizeof(sk_bind_report);
  if (!out) SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind: output skin must not be NULL");
  if (desc->skeleton && (desc->heads || desc->tails))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind: give either a skeleton or heads/tails, not both");
  if (desc->method > SK_BIND_DELAUNAY) SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind: unknown method %u", desc->method);
  if (desc->bone_space > SK_BONE_SPACE_REST)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_bind: unknown bone_space %u", desc->bone_space);
  skc_bind_desc d = {0};
  d.positions = desc->positions;
  d.vertex_count = desc->vertex_count;
  d.triangles = desc->triangles;
  d.triangle_count = desc->triangle_count;
  d.deform = desc->deform;
  d.locked = desc->locked;
  d.vertex_mask = desc->vertex_mask;
  d.max_influences = desc->max_influences ? desc->max_influences : 4u;
  d.method = (int)desc->method; /* SK_BIND_* and SKC_BIND_* have the same values (checked below) */
  _Static_assert((int)SK_BIND_ROBUST == SKC_BIND_ROBUST && (int)SK_BIND_NEAREST == SKC_BIND_NEAREST &&
                     (int)SK_BIND_HEAT == SKC_BIND_HEAT && (int)SK_BIND_CAPSULE == SKC_BIND_CAPSULE &&
                     (int)SK_BIND_DELAUNAY == SKC_BIND_DELAUNAY,
                 "bind method values");
  d.capsule_radii = desc->capsule_radii;
  d.smooth_iterations = desc->smooth_iterations == 0 ? 2u
                        : (desc->smooth_iterations == SK_BIND_NO_SMOOTHING ? 0u : desc->smooth_iterations);
  d.bone_samples = desc->bone_samples;
  d.rigid = desc->rigid != 0;
  d.falloff_power = desc->falloff_power != 0.0f ? desc->falloff_power : 4.0f;
  d.falloff_cutoff = desc->falloff_cutoff != 0.0f ? desc->falloff_cutoff : 1.5f;
  d.heat_scale = desc->heat_scale != 0.0f ? desc->heat_scale : 1.0f;
  d.no_weld = desc->no_weld != 0;
  /* default: one 8-bit step (1/255) of the vertex's largest weight, the smallest weight a u8 file stores */
  d.prune = desc->prune == 0.0f ? 1.0f / 255.0f : (desc->prune < 0.0f ? 0.0f : desc->prune);
  if ((in = check_parents(desc, err)) != SK_OK) return in;
  d.parents = desc->skeleton ? desc->skeleton->parents : desc->parents;
  float* seg = NULL;
  if (bones_of(desc, &seg, &d.heads, &d.tails, &d.joint_count)) SK__FAIL(err, SKC_OUT_OF_MEMORY, "sk_bind: out of memory");
  skc_bind_report rep = {0};
  rep.joint_vertex_counts = report ? report->joint_vertex_counts : NULL;
  if (full) {
    rep.vertex_fallback = report->vertex_fallback;
    rep.joint_fallback_counts = report->joint_fallback_counts;
    rep.joint_weight_sums = report->joint_weight_sums;
  }
  skc_err e;
  skc_err_clear(&e);
  int rc = skc_bind(&d, out, &rep, &e);
  free(seg);
  if (!rc && report) {
    report->method_used = (uint32_t)rep.method_used;
    report->milliseconds = rep.milliseconds;
    report->bound_vertices = rep.bound_vertices;
    report->fallback_vertices = rep.fallback_vertices;
    report->components = rep.components;
    report->fallback_components = rep.fallback_components;
  }
  return sk__ret(rc, &e, err);
}
