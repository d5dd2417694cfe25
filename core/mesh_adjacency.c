/* mesh_adjacency.c - edge adjacency (CSR) from triangles, cotangent edge weights. */
#include "mesh_adjacency.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

static void sort_u32(uint32_t* a, size_t n) {
  if (n > 24) {
    qsort(a, n, sizeof *a, cmp_u32);
    return;
  }
  for (size_t i = 1; i < n; ++i) {
    uint32_t x = a[i];
    size_t k = i;
    while (k > 0 && a[k - 1] > x) {
      a[k] = a[k - 1];
      --k;
    }
    a[k] = x;
  }
}

void skc_adjacency_free(skc_adjacency* adj) {
  if (!adj) return;
  free(adj->offsets);
  free(adj->neighbors);
  free(adj->weights);
  memset(adj, 0, sizeof *adj);
}

int skc_adjacency_build(skc_adjacency* adj, size_t vertex_count, const uint32_t* triangles, size_t triangle_count,
                        skc_err* err) {
  memset(adj, 0, sizeof *adj);
  if (triangle_count && !triangles) return skc_fail(err, SKC_INVALID_ARGUMENT, "triangles must not be NULL");
  if (vertex_count >= UINT32_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "vertex_count %zu is too large for adjacency", vertex_count);
  if (triangle_count > (size_t)UINT32_MAX / 6)
    return skc_fail(err, SKC_OUT_OF_RANGE, "%zu triangles exceed the adjacency limit", triangle_count);
  for (size_t t = 0; t < triangle_count; ++t)
    for (int k = 0; k < 3; ++k)
      if (triangles[3 * t + k] >= vertex_count)
        return skc_fail(err, SKC_OUT_OF_RANGE, "triangle %zu: vertex index %u >= vertex_count %zu", t,
                        triangles[3 * t + k], vertex_count);
  uint32_t* off = calloc(vertex_count + 1, sizeof *off);
  if (!off) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for adjacency of %zu vertices", vertex_count);
  for (size_t t = 0; t < triangle_count; ++t) {
    const uint32_t* tri = triangles + 3 * t;
    for (int k = 0; k < 3; ++k) {
      uint32_t a = tri[k], b = tri[(k + 1) % 3];
      if (a == b) continue;
      off[a + 1]++;
      off[b + 1]++;
    }
  }
  for (size_t v = 0; v < vertex_count; ++v) off[v + 1] += off[v];
  size_t total = off[vertex_count];
  uint32_t* nb = malloc((total ? total : 1) * sizeof *nb);
  uint32_t* fill = malloc((vertex_count ? vertex_count : 1) * sizeof *fill);
  if (!nb || !fill) {
    free(off);
    free(nb);
    free(fill);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu directed edges", total);
  }
  if (vertex_count) memcpy(fill, off, vertex_count * sizeof *fill);
  for (size_t t = 0; t < triangle_count; ++t) {
    const uint32_t* tri = triangles + 3 * t;
    for (int k = 0; k < 3; ++k) {
      uint32_t a = tri[k], b = tri[(k + 1) % 3];
      if (a == b) continue;
      nb[fill[a]++] = b;
      nb[fill[b]++] = a;
    }
  }
  free(fill);
  /* sort each list, drop duplicates, compact in place */
  size_t w = 0;
  for (size_t v = 0; v < vertex_count; ++v) {
    size_t b = off[v], e = off[v + 1];
    sort_u32(nb + b, e - b);
    off[v] = (uint32_t)w;
    for (size_t i = b; i < e; ++i)
      if (i == b || nb[i] != nb[i - 1]) nb[w++] = nb[i];
  }
  off[vertex_count] = (uint32_t)w;
  if (w && w < total) {
    uint32_t* shrunk = realloc(nb, w * sizeof *nb);
    if (shrunk) nb = shrunk;
  }
  adj->vertex_count = vertex_count;
  adj->offsets = off;
  adj->neighbors = nb;
  return SKC_OK;
}

long skc_adjacency_find(const skc_adjacency* adj, uint32_t u, uint32_t v) {
  size_t lo = adj->offsets[u], hi = adj->offsets[u + 1];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (adj->neighbors[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < adj->offsets[u + 1] && adj->neighbors[lo] == v ? (long)lo : -1;
}

int skc_adjacency_cotangent(skc_adjacency* adj, const float* positions, size_t stride, const uint32_t* triangles,
                            size_t triangle_count, skc_err* err) {
  if (!positions) return skc_fail(err, SKC_INVALID_ARGUMENT, "cotangent weights need positions");
  if (stride && stride < 3 * sizeof(float))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "positions stride %zu is below 12 bytes", stride);
  for (size_t v = 0; v < adj->vertex_count; ++v) {
    const float* p = skc_pos(positions, stride, v);
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "position of vertex %zu is not finite", v);
  }
  size_t total = adj->offsets[adj->vertex_count];
  float* wt = calloc(total ? total : 1, sizeof *wt);
  if (!wt) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu edge weights", total);
  for (size_t t = 0; t < triangle_count; ++t) {
    const uint32_t* tri = triangles + 3 * t;
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0]) continue;
    const float* P[3] = {skc_pos(positions, stride, tri[0]), skc_pos(positions, stride, tri[1]),
                         skc_pos(positions, stride, tri[2])};
    for (int k = 0; k < 3; ++k) {
      /* angle at corner k is opposite edge (k+1, k+2) */
      const float *c = P[k], *a = P[(k + 1) % 3], *b = P[(k + 2) % 3];
      double u[3] = {a[0] - c[0], a[1] - c[1], a[2] - c[2]};
      double v[3] = {b[0] - c[0], b[1] - c[1], b[2] - c[2]};
      double dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
      double cx = u[1] * v[2] - u[2] * v[1], cy = u[2] * v[0] - u[0] * v[2], cz = u[0] * v[1] - u[1] * v[0];
      double cr = sqrt(cx * cx + cy * cy + cz * cz);
      double scale = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (!(cr > 1e-12 * sqrt(scale)) || !(cr > 0.0)) continue; /* degenerate corner */
      float half_cot = (float)(0.5 * dot / cr);
      uint32_t ia = tri[(k + 1) % 3], ib = tri[(k + 2) % 3];
      long e1 = skc_adjacency_find(adj, ia, ib), e2 = skc_adjacency_find(adj, ib, ia);
      if (e1 >= 0) wt[e1] += half_cot;
      if (e2 >= 0) wt[e2] += half_cot;
    }
  }
  free(adj->weights);
  adj->weights = wt;
  return SKC_OK;
}
