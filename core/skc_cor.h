/* skc_cor.h - optimized centres of rotation (Le & Hodgins 2016, "Real-time Skeletal Skinning with Optimized
 * Centers of Rotation"): the per-vertex precompute of the COR deformer (SKC_DEFORM_COR in skc_deform.h).
 *
 * Each vertex i gets the centre p_i = sum_t s(w_i, w_t) A_t c_t / sum_t s(w_i, w_t) A_t over the mesh triangles t
 * (area A_t, centroid c_t, weight vector w_t = mean of its corners' weights), with the weight similarity
 *   s(a, b) = sum over joint pairs j < k of a_j a_k b_j b_k exp(-(a_j b_k - a_k b_j)^2 / sigma^2).
 * A vertex for which the denominator is 0 (one joint, no weights, or no triangle sharing a joint pair with it)
 * gets its own position: COR then moves it like LBS of that point, i.e. rigidly for a single joint.
 *
 * Weights are canonicalised per vertex first: entries sorted by joint, duplicate joints summed, entries <= 0
 * dropped, the rest rescaled to sum 1 (the paper assumes convex weights; sigma is meant for them).
 *
 * Cost: the work is done once per distinct weight vector (vertices with equal canonical vectors share a centre;
 * triangles with equal vectors are merged, summing A_t and A_t c_t), and a vertex visits only the triangle
 * vectors of each joint pair it has (a triangle sharing no pair contributes s = 0): triangle vectors are indexed
 * by joint pair. A pair bucket with more than 2048 triangle vectors (a painted mesh: every vector distinct) is
 * merged per cell of side sigma / 256 in (w_j, w_k) (summed masses, area-weighted mean weights; error second order
 * in the cell size: 1.6e-5 on a 4k-vertex test cylinder of length 2, test_cor). The walk over the buckets is
 * streamed (SoA, masses as floats scaled to the model, tasks grouped by bucket over cache-sized blocks, OpenMP
 * over the groups); with AVX2+FMA the kernel is computed 8 wide in float and summed in float per block, in double
 * across blocks, and a task whose terms are all tiny is redone in double. A bucket with many more queries than grid nodes around them (spacing sigma / 4 in (p_j, p_k)) walks the
 * nodes instead and interpolates its queries (6 x 6 Lagrange; a query on a steep tail is walked): the work then grows
 * with the nodes, not the vertices (1.8e-6 of the diagonal from the exact walk on CesiumMan_subdiv2). Measured
 * (2-core machine): CesiumMan_subdiv2 (92,569 vertices) 0.18-0.22 s with 2 threads (0.72-0.77 s without the grids
 * and float sums); generated cylinder, every vertex's weights jittered, 2 threads: 40k vertices 42-54 ms, 200k
 * 0.21-0.25 s, 1M 1.1-1.3 s. docs/deform.md.
 */
#ifndef SKC_COR_H
#define SKC_COR_H

#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

#define SKC_COR_DEFAULT_SIGMA 0.1f

enum { SKC_COR_EXACT = 1u << 0 };

/* Counts of one precompute: queries = (distinct vertex vector, joint pair) tasks, of which interpolated from a
 * grid of `nodes` walked nodes, and steep = queries of grid buckets walked after all (steep stencil). */
typedef struct skc_cor_stats {
  size_t queries, interpolated, nodes, steep;
} skc_cor_stats;

typedef struct skc_cor_args {
  const float* positions; /* 3 * vertex_count, rest pose */
  size_t vertex_count;
  const uint32_t* triangles; /* 3 * triangle_count vertex indices (may be NULL when triangle_count is 0) */
  size_t triangle_count;
  const uint32_t* offsets; /* CSR influences: offsets[vertex_count + 1], joints / weights[offsets[n]] */
  const uint32_t* joints;
  const float* weights;
  size_t joint_count; /* every joint index must be below it */
  float sigma;        /* similarity width; 0 = SKC_COR_DEFAULT_SIGMA */
  uint32_t threads;   /* 0 = all OpenMP threads, 1 = calling thread only, n = at most n */
  uint32_t flags;     /* SKC_COR_EXACT: every query walked (no interpolation grid; tests compare against it) */
  skc_cor_stats* stats; /* optional: what the walk did */
} skc_cor_args;

/* Fills out_centers (3 * vertex_count floats). Errors: SKC_INVALID_ARGUMENT (NULL arrays, vertex_count 0,
 * sigma negative or not finite, a non-finite position or weight, offsets not starting at 0 or decreasing),
 * SKC_OUT_OF_RANGE (a joint >= joint_count, a triangle index >= vertex_count, a vertex above 65535 influences),
 * SKC_OUT_OF_MEMORY. Results do not depend on threads. */
int skc_cor_compute(const skc_cor_args* a, float* out_centers, skc_err* err);

#endif
