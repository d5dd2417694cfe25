/* bind_weld.c - which vertices the binders take as one point (skc_bind_weld).
 *
 * Copies of a vertex (UV seams, hard edges, parts modelled apart) must be one point for the binders' surfaces, or
 * heat stops at the cut. Before session 76 only identical positions were welded; then a character moved as a whole
 * bound differently: CesiumMan_subdiv2 moved by (5, 3, 1) changed up to 0.43 of a weight on 29,405 of its 92,569
 * vertices (robust), because its subdivision left ~600 pairs of copies 1e-7 .. 5e-7 apart, which rounding to floats
 * at 5 units makes identical: two of its parts joined there and not at home (74 -> 72 parts).
 *
 * No fixed tolerance is right for every mesh: a weld within 1e-5 of the size fixed CesiumMan_subdiv2 and broke
 * Testwuson.X (0.51 off at (5, 3, 1), stable before), whose close pairs run evenly from 1.6e-7 of its size up: some
 * always lie within the rounding of any fixed tolerance. So the tolerance is put where the mesh has no pairs: the
 * distances of the pairs closer than WELD_REACH of the size are sorted and the tolerance goes to the middle (on a log
 * scale) of the widest empty stretch between WELD_FLOOR and WELD_REACH of the size. Rounding moves a distance far
 * less than that stretch's half, so the same pairs fall below it at home and moved: Testwuson's tolerance lies below
 * its closest pair (as exact welding did), CesiumMan_subdiv2's above its subdivision's copies. Pairs below
 * WELD_FLOOR (a float's rounding at a few times the size) are always one point.
 *
 * The size is four times the mean absolute deviation of the positions about their mean (a uniform box's diagonal
 * for a box): a few stray vertices far away do not change it, as they would the bounding box's diagonal.
 * Clustering is transitive (union-find): points chained by steps within the tolerance are one point, each cluster
 * represented by its lowest index. A uniform grid of cells 16 reaches wide finds the pairs: a point looks into the
 * neighbouring cells only along the axes where it lies within the reach of its cell's side. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_bind.h"
#include "skc_mem.h"
#include "skc_uf.h"

#define WELD_FLOOR 0x1p-26 /* always welded below this (of the size), whatever the coordinates' rounding */
#define WELD_REACH 0x1p-16 /* pairs considered up to this (of the size, 1.5e-5) */
#define WELD_ROUNDING 1.0  /* always welded below this many ulps of the largest coordinate */
#define WELD_CELL 16.0     /* cell width / reach */
#define WELD_PAIRS 8       /* pairs kept at most per point (more: a pile; then only WELD_FLOOR welds) */
#define WELD_SCAN 64       /* points compared in one cell at most (a hostile file's pile stays linear) */
#define WELD_AXIS_BITS 21  /* cell coordinates per axis in the key (farther cells share the last one) */

/* The size of the positions: 4 x |mean absolute deviation about the mean| of their finite coordinates (0 when
 * those all coincide). */
static double weld_size(const float* p, size_t n) {
  double mean[3] = {0, 0, 0}, dev[3] = {0, 0, 0};
  size_t count[3] = {0, 0, 0};
  for (size_t v = 0; v < n; ++v)
    for (int k = 0; k < 3; ++k)
      if (isfinite(p[3 * v + k])) mean[k] += p[3 * v + k], count[k]++;
  for (int k = 0; k < 3; ++k) mean[k] /= count[k] ? (double)count[k] : 1.0;
  for (size_t v = 0; v < n; ++v)
    for (int k = 0; k < 3; ++k)
      if (isfinite(p[3 * v + k])) dev[k] += fabs(p[3 * v + k] - mean[k]);
  for (int k = 0; k < 3; ++k) dev[k] /= count[k] ? (double)count[k] : 1.0;
  const double size = 4.0 * sqrt(dev[0] * dev[0] + dev[1] * dev[1] + dev[2] * dev[2]);
  return isfinite(size) ? size : 0.0;
}

/* The grid: cells of width 1 / inv from lo, each holding a chain of the points put in it so far (the last one in an
 * open-addressing table keyed by the cell, verified by that point's own cell; next[] per point). */
typedef struct weld_grid {
  double lo[3], inv;
  const float* p;
  size_t cap;
  uint32_t* head; /* cap: the last point put in the slot's cell, UINT32_MAX = empty */
  uint32_t* next; /* n: the point put in the same cell before this one, UINT32_MAX = none */
} weld_grid;

/* The cell coordinate of x along axis k, and (frac) where x lies in it, 0 .. 1; far points share the last cell. */
static int64_t cell_of(const weld_grid* g, double x, int k, double* frac) {
  const double t = (x - g->lo[k]) * g->inv, top = (double)(((int64_t)1 << WELD_AXIS_BITS) - 1);
  const int64_t c = !(t >= 0.0) ? 0 : t > top ? (int64_t)top : (int64_t)t; /* t >= 0: truncation is floor (NaN: 0) */
  if (frac) *frac = t - (double)c;
  return c;
}

static uint64_t cell_key(const int64_t c[3]) {
  return (uint64_t)c[0] | (uint64_t)c[1] << WELD_AXIS_BITS | (uint64_t)c[2] << (2 * WELD_AXIS_BITS);
}

static uint64_t point_key(const weld_grid* g, uint32_t v) {
  int64_t c[3];
  for (int k = 0; k < 3; ++k) c[k] = cell_of(g, g->p[3 * (size_t)v + k], k, NULL);
  return cell_key(c);
}

static uint64_t mix(uint64_t h) {
  h ^= h >> 31;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

/* The slot of cell `key` (its own, or the empty one where it would go). */
static size_t grid_slot(const weld_grid* g, uint64_t key) {
  size_t i = (size_t)mix(key) & (g->cap - 1);
  while (g->head[i] != UINT32_MAX && point_key(g, g->head[i]) != key) i = (i + 1) & (g->cap - 1);
  return i;
}

static int grid_init(weld_grid* g, const float* p, size_t n, double reach) {
  memset(g, 0, sizeof *g);
  g->p = p;
  g->inv = 1.0 / (WELD_CELL * reach);
  for (int k = 0; k < 3; ++k) g->lo[k] = p[k];
  for (size_t v = 1; v < n; ++v)
    for (int k = 0; k < 3; ++k)
      if (p[3 * v + k] < g->lo[k]) g->lo[k] = p[3 * v + k];
  g->cap = 16; /* at most n cells: the table at most half full */
  while (g->cap < 2 * n) g->cap *= 2;
  g->head = skc_malloc_big(g->cap * sizeof *g->head);
  g->next = skc_malloc_big(n * sizeof *g->next);
  if (!g->head || !g->next) {
    free(g->head);
    free(g->next);
    return SKC_OUT_OF_MEMORY;
  }
  memset(g->head, 0xff, g->cap * sizeof *g->head);
  return SKC_OK;
}

/* One weld: the grid, the clusters (rep, a union-find), and the pairs between floor and reach apart. */
typedef struct weld_run {
  weld_grid g;
  uint32_t* rep;
  double floor, reach;
  uint32_t* ends; /* 2 per pair */
  float* dist;
  size_t n, cap, max;
  int full; /* more than max pairs (a pile of points) or memory short: none is kept, only floor welds */
} weld_run;

static void pair_keep(weld_run* w, uint32_t u, uint32_t v, float d) {
  if (w->full) return;
  if (w->n == w->cap) {
    const size_t cap = w->cap ? 2 * w->cap : 1024;
    uint32_t* e = cap <= w->max ? realloc(w->ends, 2 * cap * sizeof *e) : NULL;
    if (e) w->ends = e;
    float* f = e ? realloc(w->dist, cap * sizeof *f) : NULL;
    if (!f) {
      w->full = 1;
      return;
    }
    w->dist = f, w->cap = cap;
  }
  w->ends[2 * w->n] = u, w->ends[2 * w->n + 1] = v, w->dist[w->n++] = d;
}

/* v against the points already in the cell of table slot i: those within floor joined, those within reach kept. */
static void pairs_in_slot(weld_run* w, uint32_t v, size_t i) {
  int scanned = 0;
  const float* y = w->g.p + 3 * (size_t)v;
  for (uint32_t u = w->g.head[i]; u != UINT32_MAX && scanned < WELD_SCAN; u = w->g.next[u], ++scanned) {
    const float* x = w->g.p + 3 * (size_t)u;
    const double d[3] = {(double)x[0] - y[0], (double)x[1] - y[1], (double)x[2] - y[2]};
    const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (d2 <= w->floor * w->floor)
      skc_uf_join_low(w->rep, u, v);
    else if (d2 <= w->reach * w->reach)
      pair_keep(w, u, v, (float)sqrt(d2));
  }
}

/* v against the points already in the grid: its own cell's, and the neighbours' across the sides it lies within
 * reach of (up to 7 more cells); then v is put in its cell. */
static void pairs_and_put(weld_run* w, uint32_t v) {
  weld_grid* g = &w->g;
  int64_t c[3];
  int side[3]; /* -1 / +1: the neighbour along k is within reach, 0: none */
  const double near = 1.0 / WELD_CELL, top = (double)(((int64_t)1 << WELD_AXIS_BITS) - 1);
  for (int k = 0; k < 3; ++k) {
    double f;
    c[k] = cell_of(g, g->p[3 * (size_t)v + k], k, &f);
    side[k] = f < near && c[k] > 0 ? -1 : f > 1.0 - near && (double)c[k] < top ? 1 : 0;
  }
  if (side[0] | side[1] | side[2])
    for (int m = 1; m < 8; ++m) {
      int64_t q[3];
      int skip = 0;
      for (int k = 0; k < 3; ++k) {
        const int use = m >> k & 1;
        skip |= use && !side[k];
        q[k] = c[k] + (use ? side[k] : 0);
      }
      if (!skip) pairs_in_slot(w, v, grid_slot(g, cell_key(q)));
    }
  const size_t i = grid_slot(g, cell_key(c));
  pairs_in_slot(w, v, i);
  g->next[v] = g->head[i];
  g->head[i] = v;
}

static int cmp_float(const void* a, const void* b) {
  const float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

/* The tolerance: the middle (log scale) of the widest stretch of [lo, hi] that no pair distance falls in (the lowest
 * of equally wide ones). d: the n distances, sorted here. */
static double gap_tolerance(float* d, size_t n, double lo, double hi) {
  qsort(d, n, sizeof *d, cmp_float);
  double prev = lo, best = 0.0, at = lo;
  for (size_t i = 0; i <= n; ++i) {
    const double next = i < n ? (double)d[i] : hi;
    if (next <= prev) continue;
    if (next > hi) break;
    if (next / prev > best) best = next / prev, at = sqrt(prev * next);
    prev = next;
  }
  if (hi / prev > best) at = sqrt(prev * hi);
  return at;
}

/* Below this distance points are always one: WELD_ROUNDING ulps of the largest finite coordinate (pairs closer than
 * the rounding could have been identical before it), at least WELD_FLOOR of the size; a mesh so far from the origin
 * that its rounding passes the reach gets WELD_FLOOR (no weld is reliable there). */
static double weld_floor(const float* p, size_t n, double size) {
  float big = 0.0f;
  for (size_t i = 0; i < 3 * n; ++i)
    if (isfinite(p[i]) && fabsf(p[i]) > big) big = fabsf(p[i]);
  const double ulp = (double)nextafterf(big, INFINITY) - (double)big;
  const double f = WELD_FLOOR * size, r = WELD_ROUNDING * ulp;
  return r > f && r < WELD_REACH * size ? r : f;
}

/* The kept pairs within the tolerance joined: the widest empty stretch's middle (memory short: floor). */
static void join_kept(weld_run* w) {
  if (w->full || !w->n) return;
  float* d = malloc(w->n * sizeof *d);
  double tol = w->floor;
  if (d) {
    memcpy(d, w->dist, w->n * sizeof *d);
    tol = gap_tolerance(d, w->n, w->floor, w->reach);
    free(d);
  }
  for (size_t i = 0; i < w->n; ++i)
    if (w->dist[i] <= tol) skc_uf_join_low(w->rep, w->ends[2 * i], w->ends[2 * i + 1]);
}

int skc_bind_weld(const float* p, size_t n, uint32_t* rep) {
  for (size_t v = 0; v < n; ++v) rep[v] = (uint32_t)v;
  if (n < 2) return SKC_OK;
  const double size = weld_size(p, n);
  weld_run w = {.rep = rep, .floor = weld_floor(p, n, size), .reach = WELD_REACH * size, .max = WELD_PAIRS * n};
  if (grid_init(&w.g, p, n, size > 0.0 ? w.reach : 1.0)) return SKC_OUT_OF_MEMORY;
  for (size_t v = 0; v < n; ++v) pairs_and_put(&w, (uint32_t)v);
  free(w.g.head);
  free(w.g.next);
  join_kept(&w);
  free(w.ends);
  free(w.dist);
  for (size_t v = 0; v < n; ++v) rep[v] = skc_uf_find(rep, (uint32_t)v);
  return SKC_OK;
}
