/* bind_robust.c - binding that never leaves a vertex unweighted.
 *
 * Bone heat with every fallback enabled: copies of a vertex welded, components that no bone sees and vertices
 * the heat leaves empty weighted by nearest bone, a system that is not positive definite (degenerate or
 * self-overlapping triangles give negative cotangent weights) retried with clamped non-negative cotangents,
 * and if that fails too (or the mesh is beyond the solver's limits) nearest bone for the whole mesh. Then what
 * sets it apart from heat: the parts the heat could not see (shells over the body, plates, eyes) follow the body
 * under them instead of the nearest bone (skc_bind_follow_body, bind_body.c). Only running out of memory and a
 * missing sparse solver (CHOLMOD could not be loaded: nearest bone everywhere would be a silent loss of quality)
 * are reported as errors.
 */
#include <string.h>

#include "skc_bind.h"

int skc_bind_robust(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err) {
  skc_bind_report rep;
  memset(&rep, 0, sizeof rep);
  int rc = skc_bind_heat(d, 0, out, &rep, err);
  if (rc && rc != SKC_OUT_OF_MEMORY && rc != SKC_UNSUPPORTED) {
    memset(&rep, 0, sizeof rep);
    memset(out->count, 0, out->vertex_count * sizeof *out->count);
    skc_err_clear(err);
    rc = skc_bind_nearest(d, d->vertex_mask, out, err);
    rep.method_used = SKC_BIND_NEAREST;
    for (size_t v = 0; v < d->vertex_count; ++v) {
      out->fallback[v] = !d->vertex_mask || d->vertex_mask[v];
      rep.fallback_vertices += out->fallback[v];
    }
  }
  if (!rc) rc = skc_bind_follow_body(d, out, NULL, err); /* parts the heat could not see follow the body */
  if (rc) return rc;
  for (size_t v = 0; v < d->vertex_count; ++v) /* guarantee: every bound vertex has a weight */
    if (out->count[v] == 0 && (!d->vertex_mask || d->vertex_mask[v]))
      return skc_fail(err, SKC_INTERNAL, "bind: vertex %zu left without weights", v);
  if (report) {
    uint64_t* counts = report->joint_vertex_counts;
    *report = rep;
    report->joint_vertex_counts = counts;
  }
  return SKC_OK;
}
