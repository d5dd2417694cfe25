/* bvh.c - bounding volume hierarchy over triangles for segment visibility queries (bone heat).
 *
 * Build: top-down, split at the spatial middle of the centroid bounds along their longest axis (median of the
 * index range when every centroid falls on one side), leaves of at most 4 triangles. Query: any-hit of an open
 * segment, iterative traversal with an explicit stack, Moller-Trumbore in double precision.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_bind.h"

#define BVH_LEAF 4
#define BVH_STACK 128

typedef struct bvh_node {
  float lo[3], hi[3];
  uint32_t first; /* leaf: first triangle slot; inner: index of the left child (right = left + 1) */
  uint32_t count; /* leaf: triangle count (> 0); inner: 0 */
} bvh_node;

struct skc_bvh {
  bvh_node* nodes;
  size_t node_count;
  float* tri;        /* 9 floats per slot (corners, in slot order) */
  uint32_t* corner;  /* 3 vertex indices per slot */
};

typedef struct build_item {
  uint32_t node, first, count, depth;
} build_item;

/* Past this depth splits halve the index range, so depth <= BVH_SPATIAL_DEPTH + 32 < BVH_STACK (the traversal
 * stack holds at most depth + 1 entries). */
#define BVH_SPATIAL_DEPTH 48

/* Per-triangle record of the build: bounds, centroid, triangle index. The records are partitioned in place, so
 * each level of the build reads memory sequentially instead of three scattered vertices per triangle. */
typedef struct bvh_rec {
  float lo[3], hi[3], c[3];
  uint32_t t;
} bvh_rec;

int skc_bvh_build(const float* positions, const uint32_t* triangles, size_t triangle_count, skc_bvh** out,
                  skc_err* err) {
  if (triangle_count == 0 || triangle_count > UINT32_MAX / 2)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bvh needs 1 .. 2^31 triangles");
  size_t n = triangle_count;
  skc_bvh* b = calloc(1, sizeof *b);
  bvh_rec* rec = malloc(n * sizeof *rec);
  build_item* stack = malloc(n * sizeof *stack + sizeof *stack);
  if (b) {
    b->nodes = malloc(2 * n * sizeof *b->nodes);
    b->tri = malloc(n * 9 * sizeof *b->tri);
    b->corner = malloc(n * 3 * sizeof *b->corner);
  }
  if (!b || !rec || !stack || !b->nodes || !b->tri || !b->corner) {
    free(rec);
    free(stack);
    skc_bvh_destroy(b);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory building the bvh of %zu triangles", n);
  }
  for (size_t t = 0; t < n; ++t) {
    const float* a = positions + 3 * (size_t)triangles[3 * t];
    const float* c = positions + 3 * (size_t)triangles[3 * t + 1];
    const float* d = positions + 3 * (size_t)triangles[3 * t + 2];
    bvh_rec* r = &rec[t];
    r->t = (uint32_t)t;
    for (int k = 0; k < 3; ++k) {
      float lo = a[k] < c[k] ? a[k] : c[k], hi = a[k] > c[k] ? a[k] : c[k];
      r->lo[k] = d[k] < lo ? d[k] : lo;
      r->hi[k] = d[k] > hi ? d[k] : hi;
      r->c[k] = (a[k] + c[k] + d[k]) * (1.0f / 3.0f);
    }
  }
  size_t top = 0, nodes = 1;
  stack[top++] = (build_item){0, 0, (uint32_t)n, 0};
  while (top) {
    build_item it = stack[--top];
    bvh_node* nd = &b->nodes[it.node];
    float clo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, chi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t i = it.first; i < it.first + it.count; ++i) {
      const bvh_rec* r = &rec[i];
      for (int k = 0; k < 3; ++k) {
        lo[k] = r->lo[k] < lo[k] ? r->lo[k] : lo[k];
        hi[k] = r->hi[k] > hi[k] ? r->hi[k] : hi[k];
        clo[k] = r->c[k] < clo[k] ? r->c[k] : clo[k];
        chi[k] = r->c[k] > chi[k] ? r->c[k] : chi[k];
      }
    }
    memcpy(nd->lo, lo, sizeof lo);
    memcpy(nd->hi, hi, sizeof hi);
    if (it.count <= BVH_LEAF) {
      nd->first = it.first;
      nd->count = it.count;
      continue;
    }
    int axis = 0;
    for (int k = 1; k < 3; ++k)
      if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
    float mid = 0.5f * (clo[axis] + chi[axis]);
    uint32_t i = it.first, j = it.first + it.count;
    while (i < j) { /* partition: centroids < mid first */
      if (rec[i].c[axis] < mid) {
        ++i;
      } else {
        --j;
        bvh_rec tmp = rec[i];
        rec[i] = rec[j];
        rec[j] = tmp;
      }
    }
    uint32_t left = i - it.first;
    /* all centroids coincide along the axis, or a very uneven mesh got deep: halve the range */
    if (left == 0 || left == it.count || it.depth >= BVH_SPATIAL_DEPTH) left = it.count / 2;
    nd->first = (uint32_t)nodes;
    nd->count = 0;
    stack[top++] = (build_item){(uint32_t)nodes, it.first, left, it.depth + 1};
    stack[top++] = (build_item){(uint32_t)nodes + 1, it.first + left, it.count - left, it.depth + 1};
    nodes += 2;
  }
  b->node_count = nodes;
  for (size_t s = 0; s < n; ++s) {
    size_t t = rec[s].t;
    for (int c = 0; c < 3; ++c) {
      uint32_t v = triangles[3 * t + c];
      b->corner[3 * s + c] = v;
      memcpy(b->tri + 9 * s + 3 * c, positions + 3 * (size_t)v, 3 * sizeof(float));
    }
  }
  free(rec);
  free(stack);
  *out = b;
  return SKC_OK;
}

void skc_bvh_destroy(skc_bvh* b) {
  if (!b) return;
  free(b->nodes);
  free(b->tri);
  free(b->corner);
  free(b);
}

static int box_hit(const bvh_node* nd, const double o[3], const double inv[3]) {
  double t0 = 0.0, t1 = 1.0;
  for (int k = 0; k < 3; ++k) {
    double a = ((double)nd->lo[k] - o[k]) * inv[k], c = ((double)nd->hi[k] - o[k]) * inv[k];
    if (isnan(a) || isnan(c)) { /* direction 0 on this axis and o on a slab plane: inside iff within */
      if (o[k] < (double)nd->lo[k] || o[k] > (double)nd->hi[k]) return 0;
      continue;
    }
    if (a > c) {
      double tmp = a;
      a = c;
      c = tmp;
    }
    if (a > t0) t0 = a;
    if (c < t1) t1 = c;
    if (t0 > t1) return 0;
  }
  return 1;
}

static int tri_hit(const float* tri, const double o[3], const double d[3], double t_eps) {
  double v0[3], e1[3], e2[3];
  for (int k = 0; k < 3; ++k) {
    v0[k] = tri[k];
    e1[k] = (double)tri[3 + k] - v0[k];
    e2[k] = (double)tri[6 + k] - v0[k];
  }
  double pv[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
  double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
  double l1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2], l2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
  double scale = sqrt(l1 * l2 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
  if (!(fabs(det) > 1e-12 * scale)) return 0; /* parallel (coplanar segments graze, they do not cross) */
  double inv = 1.0 / det;
  double s[3] = {o[0] - v0[0], o[1] - v0[1], o[2] - v0[2]};
  double u = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) * inv;
  if (u < 0.0 || u > 1.0) return 0;
  double qv[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
  double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) * inv;
  if (v < 0.0 || u + v > 1.0) return 0;
  double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * inv;
  return t > t_eps && t < 1.0 - t_eps;
}

int skc_bvh_segment_hits(const skc_bvh* b, const double p[3], const double q[3], uint32_t skip_vertex, double t_eps) {
  double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, inv[3];
  for (int k = 0; k < 3; ++k) inv[k] = 1.0 / d[k];
  uint32_t stack[BVH_STACK];
  int top = 0;
  stack[top++] = 0;
  while (top) {
    const bvh_node* nd = &b->nodes[stack[--top]];
    if (!box_hit(nd, p, inv)) continue;
    if (nd->count) {
      for (uint32_t s = nd->first; s < nd->first + nd->count; ++s) {
        const uint32_t* c = b->corner + 3 * (size_t)s;
        if (c[0] == skip_vertex || c[1] == skip_vertex || c[2] == skip_vertex) continue;
        if (tri_hit(b->tri + 9 * (size_t)s, p, d, t_eps)) return 1;
      }
    } else if (top + 2 <= BVH_STACK) {
      stack[top++] = nd->first;
      stack[top++] = nd->first + 1;
    } else {
      return 1; /* unreachable (depth is bounded at build); occluded is the conservative answer */
    }
  }
  return 0;
}

size_t skc_bvh_segment_count(const skc_bvh* b, const double p[3], const double q[3]) {
  double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, inv[3];
  for (int k = 0; k < 3; ++k) inv[k] = 1.0 / d[k];
  uint32_t stack[BVH_STACK];
  int top = 0;
  size_t hits = 0;
  stack[top++] = 0;
  while (top) {
    const bvh_node* nd = &b->nodes[stack[--top]];
    if (!box_hit(nd, p, inv)) continue;
    if (nd->count) {
      for (uint32_t s = nd->first; s < nd->first + nd->count; ++s)
        hits += (size_t)tri_hit(b->tri + 9 * (size_t)s, p, d, 0.0);
    } else if (top + 2 <= BVH_STACK) {
      stack[top++] = nd->first;
      stack[top++] = nd->first + 1;
    }
  }
  return hits;
}
