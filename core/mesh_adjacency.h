/* mesh_adjacency.h - vertex edge adjacency of a triangle mesh in CSR form, with optional cotangent weights.
 * Shared by the weight operations (smoothing, rogue removal, brushes) and by binding (Laplacians). */
#ifndef SKC_MESH_ADJACENCY_H
#define SKC_MESH_ADJACENCY_H

#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

/* Neighbours of v: neighbors[offsets[v] .. offsets[v+1]-1], sorted ascending, no duplicates, never v itself.
 * weights is NULL until skc_adjacency_cotangent fills it (one per directed edge, symmetric). */
typedef struct skc_adjacency {
  size_t vertex_count;
  uint32_t* offsets;   /* vertex_count + 1 */
  uint32_t* neighbors; /* offsets[vertex_count] */
  float* weights;
} skc_adjacency;

/* Builds the adjacency of triangle_count triangles (3 uint32 indices each). Triangles that repeat a vertex
 * contribute only their distinct edges. SKC_OUT_OF_RANGE if an index is >= vertex_count; SKC_INVALID_ARGUMENT
 * for NULL triangles with a non-zero count. On failure adj is zeroed. */
int skc_adjacency_build(skc_adjacency* adj, size_t vertex_count, const uint32_t* triangles, size_t triangle_count,
                        skc_err* err);
/* Fills adj->weights with the cotangent weights w_uv = (cot a + cot b) / 2 of the angles opposite edge uv
 * (one term for a boundary edge). Degenerate triangles (zero area) add nothing. Positions: 3 floats per vertex at
 * stride bytes (0 = 12); they must be finite (SKC_INVALID_ARGUMENT otherwise). Weights may be negative
 * (obtuse angles); callers clamp if they need a convex combination. */
int skc_adjacency_cotangent(skc_adjacency* adj, const float* positions, size_t stride, const uint32_t* triangles,
                            size_t triangle_count, skc_err* err);
/* Index of the directed edge u -> v in neighbors[], or -1. O(log degree). */
long skc_adjacency_find(const skc_adjacency* adj, uint32_t u, uint32_t v);
void skc_adjacency_free(skc_adjacency* adj);

/* Reads vertex v's position from a strided float stream (stride 0 = 12 bytes). */
static inline const float* skc_pos(const float* positions, size_t stride, size_t v) {
  return (const float*)(const void*)((const unsigned char*)positions + v * (stride ? stride : 3 * sizeof(float)));
}

#endif
