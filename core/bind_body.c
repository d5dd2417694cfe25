/* bind_body.c - the robust method's answer to parts that bone heat cannot see: they follow the body.
 *
 * Characters are rarely one closed surface: clothes, armour plates, hair shells, eyes and teeth overlap the body.
 * Bone heat only weights a connected part when some bone is visible from it, so a shell outside the body (every
 * line to a bone crosses the skin) gets nothing, and the nearest-bone fallback then ignores the body under it: a
 * sleeve over the elbow bends differently from the arm it covers and cuts into it.
 *
 * What a rigger does by hand is a weight transfer from the body. So: every vertex the heat left to the fallback
 * takes the weights of the closest point of the surface the heat did weight (barycentric blend of that
 * triangle's three corners), when that surface is closer to it than the nearest deform bone (a prop far from
 * the body keeps its nearest-bone weights). A small part (box diagonal <= 5 % of the mesh's: eyes, buttons,
 * studs) moves rigidly: all its vertices take the weights at the part's centroid. The heated vertices are never
 * changed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "skc_bind.h"
#include "skc_transfer.h"

#define BODY_SMALL_PART 0.05 /* of the mesh's box diagonal: parts up to this size move rigidly */

typedef struct body_ctx {
  const skc_bind_desc* d;
  skc_bind_cands* out;
  skc_tri_bvh tree;
  uint32_t* src;  /* 3 * src_count: the triangles whose corners the heat weighted */
  size_t src_count;
  uint32_t* part; /* vertex_count: union-find over the fallback vertices (triangles, welded copies) */
  float* centre;  /* 3 * vertex_count: a part's centroid, at its root's index */
  uint8_t* small; /* vertex_count: at a part's root: the part is small */
} body_ctx;

static int is_source(const skc_bind_cands* o, uint32_t v) { return o->count[v] > 0 && !o->fallback[v]; }

static uint32_t find(uint32_t* p, uint32_t v) {
  while (p[v] != v) v = p[v] = p[p[v]];
  return v;
}

static void unite(uint32_t* p, uint32_t a, uint32_t b) {
  a = find(p, a);
  b = find(p, b);
  if (a != b) p[a > b ? a : b] = a < b ? a : b;
}

/* The source triangles; returns the count of fallback vertices (0: nothing to do). */
static size_t collect_sources(body_ctx* c) {
  const skc_bind_desc* d = c->d;
  size_t fallback = 0, k = 0;
  for (size_t v = 0; v < d->vertex_count; ++v) fallback += c->out->fallback[v] && c->out->count[v] > 0;
  if (!fallback) return 0;
  for (size_t t = 0; t < d->triangle_count; ++t) {
    const uint32_t* tv = d->triangles + 3 * t;
    if (is_source(c->out, tv[0]) && is_source(c->out, tv[1]) && is_source(c->out, tv[2])) {
      memcpy(c->src + 3 * k, tv, 3 * sizeof *tv);
      ++k;
    }
  }
  c->src_count = k;
  return fallback;
}

/* Parts of the fallback vertices: joined by triangles and by welded copies (skc_bind_weld: seams split no part). */
static int find_parts(body_ctx* c, skc_err* err) {
  const skc_bind_desc* d = c->d;
  size_t n = d->vertex_count;
  uint32_t* rep = malloc(n * sizeof *rep);
  if (!rep || skc_bind_weld(d->positions, n, rep)) {
    free(rep);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory grouping parts");
  }
  for (size_t v = 0; v < n; ++v) c->part[v] = (uint32_t)v;
  for (size_t v = 0; v < n; ++v) unite(c->part, (uint32_t)v, rep[v]);
  free(rep);
  for (size_t t = 0; t < d->triangle_count; ++t) {
    const uint32_t* tv = d->triangles + 3 * t;
    if (c->out->fallback[tv[0]] && c->out->fallback[tv[1]] && c->out->fallback[tv[2]]) {
      unite(c->part, tv[0], tv[1]);
      unite(c->part, tv[0], tv[2]);
    }
  }
  return SKC_OK;
}

/* Centroid and size of every part (at its root's index; part[] flattened: part[v] is v's root). */
static void measure_parts(body_ctx* c) {
  const skc_bind_desc* d = c->d;
  size_t n = d->vertex_count;
  double* acc = calloc(n ? n : 1, 10 * sizeof *acc); /* sum xyz, count, lo xyz, hi xyz */
  if (!acc) { /* no sizes: every part is treated as large (per-vertex transfer) */
    memset(c->small, 0, n);
    return;
  }
  for (size_t v = 0; v < n; ++v) {
    double* a = acc + 10 * (size_t)c->part[v];
    for (int q = 0; q < 3; ++q) {
      double x = d->positions[3 * v + q];
      if (a[3] == 0.0 || x < a[4 + q]) a[4 + q] = x;
      if (a[3] == 0.0 || x > a[7 + q]) a[7 + q] = x;
    }
    for (int q = 0; q < 3; ++q) a[q] += d->positions[3 * v + q];
    a[3] += 1.0;
  }
  double limit = BODY_SMALL_PART * skc_bind_bbox_diag(d->positions, n);
  for (size_t r = 0; r < n; ++r) {
    const double* a = acc + 10 * r;
    if (a[3] == 0.0) continue;
    double diag2 = 0.0;
    for (int q = 0; q < 3; ++q) {
      c->centre[3 * r + q] = (float)(a[q] / a[3]);
      diag2 += (a[7 + q] - a[4 + q]) * (a[7 + q] - a[4 + q]);
    }
    c->small[r] = sqrt(diag2) <= limit;
  }
  free(acc);
}

/* Squared distance from q to the nearest bone that takes weights. */
static double nearest_bone2(const skc_bind_desc* d, const float q[3]) {
  double p[3] = {q[0], q[1], q[2]}, best = INFINITY;
  for (uint32_t j = 0; j < d->joint_count; ++j) {
    if (!skc_bind_joint_active(d, j)) continue;
    const float* h = d->heads + 3 * (size_t)j;
    const float* t = d->tails + 3 * (size_t)j;
    double a[3] = {h[0], h[1], h[2]}, b[3] = {t[0], t[1], t[2]};
    double e = skc_seg_dist2(p, a, b, NULL);
    if (e < best) best = e;
  }
  return best;
}

/* Vertex v takes the blend of the hit triangle's corners' weights: the stride largest, normalized (its old
 * weights stay if the blend has no positive weight). joints and w are scratch of 3 * stride entries. */
static void take_blend(body_ctx* c, size_t v, const skc_closest_hit* hit, uint32_t* joints, float* w) {
  skc_bind_cands* o = c->out;
  uint32_t s = o->stride, m = 0;
  const uint32_t* tv = c->src + 3 * (size_t)hit->triangle;
  for (int k = 0; k < 3; ++k) {
    uint32_t u = tv[k];
    for (uint32_t i = 0; i < o->count[u]; ++i) {
      uint32_t j = o->joints[(size_t)u * s + i], e = 0;
      while (e < m && joints[e] != j) ++e;
      if (e == m) joints[m] = j, w[m++] = 0.0f;
      w[e] += hit->bary[k] * o->weights[(size_t)u * s + i];
    }
  }
  float total = 0.0f;
  for (uint32_t e = 0; e < m; ++e) total += w[e] > 0.0f ? w[e] : 0.0f;
  if (!(total > 0.0f)) return; /* nothing to take (cannot happen with positive source weights): keep the old */
  o->count[v] = 0;
  for (uint32_t e = 0; e < m; ++e) skc_bind_cands_offer(o, v, joints[e], w[e]);
  float sum = 0.0f;
  for (uint32_t i = 0; i < o->count[v]; ++i) sum += o->weights[v * s + i];
  for (uint32_t i = 0; i < o->count[v]; ++i) o->weights[v * s + i] /= sum;
}

/* Vertex v follows the body when the body's surface is closer than any bone; returns 1 when it did. */
static int follow_one(body_ctx* c, size_t v, uint32_t* joints, float* w) {
  const skc_bind_desc* d = c->d;
  uint32_t r = c->part[v];
  const float* q = c->small[r] ? c->centre + 3 * (size_t)r : d->positions + 3 * v;
  skc_closest_hit hit;
  skc_tri_bvh_closest(&c->tree, q, &hit);
  if (hit.triangle == UINT32_MAX || (double)hit.dist2 >= nearest_bone2(d, q)) return 0;
  take_blend(c, v, &hit, joints, w);
  return c->out->count[v] > 0;
}

/* Moves the fallback vertices to the body's weights; returns how many took them, or UINT64_MAX when out of
 * memory. Sources are never fallback vertices, so no vertex reads weights another thread writes. */
static uint64_t follow_body(body_ctx* c) {
  long n = (long)c->d->vertex_count;
  uint64_t moved = 0;
  int oom = 0;
#pragma omp parallel reduction(+ : moved) if (n > 4096)
  {
    uint32_t* joints = malloc(3 * (size_t)c->out->stride * sizeof *joints);
    float* w = malloc(3 * (size_t)c->out->stride * sizeof *w);
    if (!joints || !w) {
#pragma omp atomic write
      oom = 1;
    }
#pragma omp for schedule(dynamic, 256)
    for (long v = 0; v < n; ++v)
      if (joints && w && c->out->fallback[v] && c->out->count[v] > 0) moved += (uint64_t)follow_one(c, (size_t)v, joints, w);
    free(joints);
    free(w);
  }
  return oom ? UINT64_MAX : moved;
}

static void flatten_parts(uint32_t* p, size_t n) {
  for (size_t v = 0; v < n; ++v) p[v] = find(p, (uint32_t)v);
}

int skc_bind_follow_body(const skc_bind_desc* d, skc_bind_cands* out, uint64_t* moved, skc_err* err) {
  if (moved) *moved = 0;
  if (d->triangle_count == 0) return SKC_OK;
  body_ctx c;
  memset(&c, 0, sizeof c);
  c.d = d;
  c.out = out;
  size_t n = d->vertex_count;
  c.src = malloc(3 * d->triangle_count * sizeof *c.src);
  c.part = malloc(n * sizeof *c.part);
  c.centre = calloc(3 * n, sizeof *c.centre);
  c.small = calloc(n, 1);
  int rc = (!c.src || !c.part || !c.centre || !c.small) ? skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory")
                                                         : SKC_OK;
  if (!rc && collect_sources(&c) && c.src_count) {
    rc = find_parts(&c, err);
    if (!rc) {
      flatten_parts(c.part, n);
      measure_parts(&c);
      rc = skc_tri_bvh_build(&c.tree, d->positions, 0, c.src, c.src_count, err);
    }
    if (!rc) {
      uint64_t m = follow_body(&c);
      if (m == UINT64_MAX) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory");
      else if (moved) *moved = m;
    }
    skc_tri_bvh_free(&c.tree);
  }
  free(c.src);
  free(c.part);
  free(c.centre);
  free(c.small);
  return rc;
}
