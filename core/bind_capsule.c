/* bind_capsule.c - containment binding (seed 000): a capsule per bone, scores, blend, smoothing over mesh edges.
 *
 * Every active bone j is a capsule: its head -> tail segment and a radius r_j, given by the caller or estimated
 * from the mesh cross-section as the median distance of the vertices whose nearest bone is j (a bone nearest to no
 * vertex takes the median of the other estimates), estimates then damped towards their geometric mean g as
 * g (r / g)^(1/4) (see CAPSULE_RADIUS_DAMPING). A vertex at segment distance d_j scores
 * s_j = 1 / (1 + (d_j / r_j)^p): above 1/2 inside the capsule, 1/2 on its surface, falling smoothly outside, so a
 * thin bone does not take the vertices of a thick neighbour that lie closer to its axis. The best scores of each
 * vertex (relative to its best one) are blended, faded out by a smoothstep window on x_j / x_best from 1 to
 * falloff_cutoff (x = d / r) so that far capsules add nothing, then a few uniform Laplacian passes over the edges
 * of the welded mesh (copies of a vertex joined as for heat, skc_bind_weld_surfaces: seams and flat shading keep
 * identical weights, closed shells that only touch do not blend) smooth the blend (w <- (1 - f) w + f mean of the
 * neighbours, f = 1/2). Distances only enter as ratios, so the result does not depend on the mesh scale. The common
 * pass in bind.c prunes, limits and normalizes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "skc_bind.h"

#define CAPSULE_SMOOTH_FACTOR 0.5
/* Exponent of the damping of estimated radii. A median cross-section overstates how far a thick bone should
 * reach: raw radii (1) let a torso capsule take arm and leg vertices, none (0) is plain nearest bone. Weight error
 * (mean half L1 against the artist's weights) on CesiumMan: 0.163 at 1, 0.141 at 1/2, 0.127 at 1/4, 0.279 at 0;
 * Fox: 0.440, 0.407, 0.392, 0.395 (bone heat: 0.151 and 0.336). */
#define CAPSULE_RADIUS_DAMPING 0.25
#define CAPSULE_PARALLEL_MIN 8192 /* below this many vertices threads cost more than they save */

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : (x > y);
}

/* Each vertex's nearest active bone and its distance to it. */
static void nearest_bones(const skc_bind_desc* d, uint32_t* nearest, double* dist) {
  const long long nv = (long long)d->vertex_count;
  const uint32_t nj = d->joint_count;
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for schedule(static) if (nv > CAPSULE_PARALLEL_MIN)
#endif
  for (long long vi = 0; vi < nv; ++vi) {
    size_t v = (size_t)vi;
    double p[3] = {d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]};
    double best = INFINITY;
    uint32_t best_j = 0;
    for (uint32_t j = 0; j < nj; ++j) {
      if (!skc_bind_joint_active(d, j)) continue;
      double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
      double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]};
      double d2 = skc_seg_dist2(p, a, b, NULL);
      if (d2 < best) {
        best = d2;
        best_j = j;
      }
    }
    nearest[v] = best_j;
    dist[v] = sqrt(best);
  }
}

/* radius[j]: the median distance of the vertices nearest to active bone j (0 when none are); start[j..j+1) their
 * range in sorted (a counting sort by bone). Returns the median of those medians (eps when there are none); dist is
 * reused as scratch. */
static double bucket_medians(const skc_bind_desc* d, const uint32_t* nearest, double* dist, uint32_t* start,
                             double* sorted, double eps, double* radius) {
  const size_t n = d->vertex_count;
  const uint32_t nj = d->joint_count;
  for (size_t v = 0; v < n; ++v) ++start[nearest[v] + 1];
  for (uint32_t j = 0; j < nj; ++j) start[j + 1] += start[j];
  for (size_t v = 0; v < n; ++v) sorted[start[nearest[v]]++] = dist[v];
  for (uint32_t j = nj; j > 0; --j) start[j] = start[j - 1];
  start[0] = 0;
  double* estimates = dist; /* reused: n >= 1 slots, at most nj are needed per bone below */
  size_t estimated = 0;
  for (uint32_t j = 0; j < nj; ++j) {
    radius[j] = 0.0;
    uint32_t c = start[j + 1] - start[j];
    if (!skc_bind_joint_active(d, j) || c == 0) continue;
    double* bucket = sorted + start[j];
    qsort(bucket, c, sizeof *bucket, cmp_double);
    radius[j] = c % 2 ? bucket[c / 2] : 0.5 * (bucket[c / 2 - 1] + bucket[c / 2]);
    if (estimated < n) estimates[estimated++] = radius[j];
  }
  if (!estimated) return eps;
  qsort(estimates, estimated, sizeof *estimates, cmp_double);
  return estimates[estimated / 2];
}

/* Given radii kept; estimated ones (fallback for a bone no vertex is nearest to) damped towards their geometric mean
 * g: r' = g (r / g)^(1/4); none below eps. */
static void damp_radii(const skc_bind_desc* d, const uint32_t* start, double fallback, double eps, double* radius) {
  const uint32_t nj = d->joint_count;
  double log_sum = 0.0;
  uint32_t log_count = 0;
  for (uint32_t j = 0; j < nj; ++j) {
    if (!skc_bind_joint_active(d, j) || (d->capsule_radii && d->capsule_radii[j] > 0.0f)) continue;
    if (start[j + 1] == start[j]) radius[j] = fallback;
    if (!(radius[j] > eps)) radius[j] = eps;
    log_sum += log(radius[j]);
    ++log_count;
  }
  double g = log_count ? exp(log_sum / log_count) : 1.0;
  for (uint32_t j = 0; j < nj; ++j) {
    if (!skc_bind_joint_active(d, j)) continue;
    if (d->capsule_radii && d->capsule_radii[j] > 0.0f)
      radius[j] = d->capsule_radii[j];
    else
      radius[j] = g * pow(radius[j] / g, CAPSULE_RADIUS_DAMPING);
    if (!(radius[j] > eps)) radius[j] = eps;
  }
}

/* Radii: given ones, else the median distance of the vertices nearest to each bone. */
static int estimate_radii(const skc_bind_desc* d, double eps, double* radius, skc_err* err) {
  const size_t n = d->vertex_count;
  uint32_t* nearest = malloc(n * sizeof *nearest);
  double* dist = malloc(n * sizeof *dist);
  uint32_t* start = calloc((size_t)d->joint_count + 1, sizeof *start);
  double* sorted = malloc(n * sizeof *sorted);
  int rc = SKC_OK;
  if (nearest && dist && start && sorted) {
    nearest_bones(d, nearest, dist);
    double fallback = bucket_medians(d, nearest, dist, start, sorted, eps, radius);
    damp_radii(d, start, fallback, eps, radius);
  } else {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind (capsule): out of memory for %zu vertices", n);
  }
  free(nearest);
  free(dist);
  free(start);
  free(sorted);
  return rc;
}

/* 1 up to ratio 1, smoothstep down to 0 at cutoff (as the nearest-bone falloff). */
static double window(double ratio, double cutoff) {
  if (ratio <= 1.0) return 1.0;
  if (ratio >= cutoff) return 0.0;
  double t = (ratio - 1.0) / (cutoff - 1.0);
  return 1.0 - t * t * (3.0 - 2.0 * t);
}

/* Scales vertex v's list to sum 1. */
static void normalize_list(skc_bind_cands* c, size_t v) {
  float* w = c->weights + v * c->stride;
  double s = 0.0;
  for (uint32_t i = 0; i < c->count[v]; ++i) s += w[i];
  if (s > 0.0)
    for (uint32_t i = 0; i < c->count[v]; ++i) w[i] = (float)(w[i] / s);
}

/* One smoothing pass from src into dst (every vertex; isolated vertices keep their list). acc/touched: per-thread
 * scratch of joint_count entries (acc all zero on entry and exit). */
static void smooth_vertex(const skc_adjacency* adj, const skc_bind_cands* src, skc_bind_cands* dst, size_t v,
                          double* acc, uint32_t* touched) {
  uint32_t s = src->stride, nt = 0;
  uint32_t e0 = adj->offsets[v], e1 = adj->offsets[v + 1];
  dst->count[v] = 0;
  double self = e1 > e0 ? 1.0 - CAPSULE_SMOOTH_FACTOR : 1.0;
  double other = e1 > e0 ? CAPSULE_SMOOTH_FACTOR / (double)(e1 - e0) : 0.0;
  for (uint32_t e = e0; e <= e1; ++e) {
    size_t u = e < e1 ? adj->neighbors[e] : v;
    double f = e < e1 ? other : self;
    for (uint32_t i = 0; i < src->count[u]; ++i) {
      uint32_t j = src->joints[u * s + i];
      if (acc[j] == 0.0) touched[nt++] = j;
      acc[j] += f * src->weights[u * s + i];
    }
  }
  for (uint32_t i = 0; i < nt; ++i) {
    uint32_t j = touched[i];
    skc_bind_cands_offer(dst, v, j, (float)acc[j]);
    acc[j] = 0.0;
  }
  normalize_list(dst, v);
}

/* Smoothing over the edges of the welded mesh (skc_bind_weld_surfaces), so that copies of a vertex keep identical
 * weights; shells that only touch stay apart. */
static int smooth(const skc_bind_desc* d, skc_bind_cands* c, skc_err* err) {
  const size_t n = d->vertex_count, nt = d->triangle_count;
  uint32_t* rep = malloc(n * sizeof *rep);
  uint32_t* tri = malloc(3 * nt * sizeof *tri);
  if (!rep || !tri || skc_bind_weld_surfaces(d->positions, n, d->triangles, nt, rep)) {
    free(rep);
    free(tri);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind (capsule): out of memory for %zu vertices", n);
  }
  for (size_t i = 0; i < 3 * nt; ++i) tri[i] = rep[d->triangles[i]];
  skc_adjacency adj;
  int rc = skc_adjacency_build(&adj, n, tri, nt, err);
  free(tri);
  if (rc) {
    free(rep);
    return rc;
  }
  skc_bind_cands tmp;
  rc = skc_bind_cands_init(&tmp, d->vertex_count, c->stride, err);
  if (rc) {
    skc_adjacency_free(&adj);
    return rc;
  }
  int failed = 0;
  const long long nv = (long long)d->vertex_count;
  for (uint32_t it = 0; it < d->smooth_iterations && !failed; ++it) {
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel if (nv > CAPSULE_PARALLEL_MIN)
#endif
    {
      double* acc = calloc(d->joint_count, sizeof *acc);
      uint32_t* touched = malloc(d->joint_count * sizeof *touched);
      if (!acc || !touched) {
#if defined(SK_HAVE_OPENMP)
#pragma omp atomic write
#endif
        failed = 1;
      }
#if defined(SK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 2048)
#endif
      for (long long vi = 0; vi < nv; ++vi)
        if (acc && touched) smooth_vertex(&adj, c, &tmp, (size_t)vi, acc, touched);
      free(acc);
      free(touched);
    }
    if (failed) break;
    skc_bind_cands swap = *c;
    *c = tmp;
    tmp = swap;
  }
  skc_bind_cands_free(&tmp);
  skc_adjacency_free(&adj);
  if (!failed) /* duplicates (isolated in the welded graph) take their representative's list */
    for (size_t v = 0; v < n; ++v) {
      size_t r = rep[v];
      if (r == v) continue;
      c->count[v] = c->count[r];
      memcpy(c->joints + v * c->stride, c->joints + r * c->stride, c->count[r] * sizeof *c->joints);
      memcpy(c->weights + v * c->stride, c->weights + r * c->stride, c->count[r] * sizeof *c->weights);
    }
  free(rep);
  if (failed) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind (capsule): out of memory while smoothing");
  return SKC_OK;
}

int skc_bind_capsule(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err) {
  const uint32_t nj = d->joint_count;
  double eps = 1e-6 * skc_bind_bbox_diag(d->positions, d->vertex_count);
  if (!(eps > 0.0)) eps = 1e-30;
  double* radius = malloc(nj * sizeof *radius);
  if (!radius) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind (capsule): out of memory for %u bones", nj);
  int rc = estimate_radii(d, eps, radius, err);
  if (rc) {
    free(radius);
    return rc;
  }
  /* scores for every vertex (unselected ones still feed the smoothing of their selected neighbours) */
  const double power = d->falloff_power, cutoff = d->falloff_cutoff;
  const long long nv = (long long)d->vertex_count;
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 1024) if (nv > CAPSULE_PARALLEL_MIN)
#endif
  for (long long vi = 0; vi < nv; ++vi) {
    size_t v = (size_t)vi;
    double p[3] = {d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]};
    /* ratios x_j = d_j / r_j; score 1 / (1 + x^p), taken relative to the best (smallest x) so it never underflows */
    double best = INFINITY;
    uint32_t best_j = 0;
    for (uint32_t j = 0; j < nj; ++j) {
      if (!skc_bind_joint_active(d, j)) continue;
      double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
      double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]};
      double x = sqrt(skc_seg_dist2(p, a, b, NULL)) / radius[j];
      if (x < best) {
        best = x;
        best_j = j;
      }
    }
    out->count[v] = 0;
    double best_pow = pow(best, power);
    if (!isfinite(best_pow)) { /* everything absurdly far: the nearest capsule alone */
      skc_bind_cands_offer(out, v, best_j, 1.0f);
      continue;
    }
    for (uint32_t j = 0; j < nj; ++j) {
      if (!skc_bind_joint_active(d, j)) continue;
      double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
      double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]};
      double x = sqrt(skc_seg_dist2(p, a, b, NULL)) / radius[j];
      /* score_j / score_best in (0, 1], times the smooth window on x_j / x_best that ends the blend */
      double win = window(x / (best > 1e-6 ? best : 1e-6), cutoff);
      double w = win * (1.0 + best_pow) / (1.0 + pow(x, power));
      if (w >= 1e-4) skc_bind_cands_offer(out, v, j, (float)w);
    }
    if (out->count[v] == 0) skc_bind_cands_offer(out, v, best_j, 1.0f);
    normalize_list(out, v);
  }
  free(radius);
  if (d->triangle_count && d->smooth_iterations) {
    rc = smooth(d, out, err);
    if (rc) return rc;
  }
  if (report) report->method_used = SKC_BIND_CAPSULE;
  return SKC_OK;
}
