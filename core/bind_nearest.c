/* bind_nearest.c - nearest-bone binding by point-to-segment distance.
 *
 * Rigid: each vertex goes to the bone at the smallest distance (ties: lowest index). Blended: bone j gets
 * s(d_j / d_min) / d_j^p, where s is 1 up to the nearest distance and falls smoothly (smoothstep) to 0 at
 * cutoff * d_min, so the weights are continuous across the mesh and scale-invariant; distances are clamped to
 * 1e-6 of the mesh size so a vertex lying on a bone is fully that bone's.
 */
#include <math.h>

#include "skc_bind.h"

static double falloff(double ratio, double cutoff) {
  if (ratio <= 1.0) return 1.0;
  if (ratio >= cutoff) return 0.0;
  double t = (ratio - 1.0) / (cutoff - 1.0);
  return 1.0 - t * t * (3.0 - 2.0 * t);
}

int skc_bind_nearest(const skc_bind_desc* d, const uint8_t* only, skc_bind_cands* out, skc_err* err) {
  double eps = 1e-6 * skc_bind_bbox_diag(d->positions, d->vertex_count);
  if (!(eps > 0.0)) eps = 1e-30;
  const double eps2 = eps * eps, power = d->falloff_power, cutoff = d->falloff_cutoff;
  const long long n = (long long)d->vertex_count;
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 1024) if (n > 8192) /* a small mesh: no thread team to wake */
#endif
  for (long long vi = 0; vi < n; ++vi) {
    size_t v = (size_t)vi;
    if (only && !only[v]) continue;
    double p[3] = {d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]};
    double best = INFINITY;
    uint32_t best_j = 0;
    for (uint32_t j = 0; j < d->joint_count; ++j) {
      if (!skc_bind_joint_active(d, j)) continue;
      double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
      double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]};
      double d2 = skc_seg_dist2(p, a, b, NULL);
      if (d2 < best) {
        best = d2;
        best_j = j;
      }
    }
    out->count[v] = 0;
    if (d->rigid) {
      skc_bind_cands_offer(out, v, best_j, 1.0f);
      continue;
    }
    double dmin = sqrt(best > eps2 ? best : eps2);
    for (uint32_t j = 0; j < d->joint_count; ++j) {
      if (!skc_bind_joint_active(d, j)) continue;
      double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
      double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]};
      double d2 = skc_seg_dist2(p, a, b, NULL);
      double dj = sqrt(d2 > eps2 ? d2 : eps2);
      double s = falloff(dj / dmin, cutoff);
      if (s <= 0.0) continue;
      /* relative to the nearest bone (weight 1) so the float candidates never under/overflow */
      double w = s * pow(dmin / dj, power);
      skc_bind_cands_offer(out, v, j, (float)w);
    }
    if (out->count[v] == 0) skc_bind_cands_offer(out, v, best_j, 1.0f);
  }
  (void)err;
  return SKC_OK;
}
