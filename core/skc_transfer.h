/* skc_transfer.h - closest points on a triangle mesh (BVH), skin weight transfer between meshes (Abdrashitov et
 * al. 2023, "Robust Skin Weights Transfer via Weight Inpainting") and direct manipulation of one vertex's weights
 * (Mohr, Tokheim, Gleicher 2002). Internal API of core/closest_point.c, core/weights_transfer.c and
 * core/weights_direct.c. */
#ifndef SKC_TRANSFER_H
#define SKC_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_skin.h"
#include "skc_status.h"
#include "skc_weights.h"

/* ---- closest point on a triangle mesh ------------------------------------------------------------------ */
/* Static bounding-volume hierarchy over triangles (median split on the longest centroid axis, leaves of up to
 * 4 triangles). Positions and triangles are borrowed: they must outlive the tree. */
typedef struct skc_bvh_node {
  float lo[3], hi[3];
  uint32_t first; /* leaf: first index into tri_order; inner: index of the left child (right = left + 1) */
  uint32_t count; /* leaf: triangle count (>= 1); inner: 0 */
} skc_bvh_node;

typedef struct skc_tri_bvh {
  const float* positions;
  size_t stride;
  const uint32_t* triangles;
  size_t triangle_count;
  skc_bvh_node* nodes;
  size_t node_count;
  uint32_t* tri_order;
} skc_tri_bvh;

/* Builds the tree. Triangle indices must be < vertex_count and positions finite (the caller checks). */
int skc_tri_bvh_build(skc_tri_bvh* t, const float* positions, size_t stride, const uint32_t* triangles,
                      size_t triangle_count, skc_err* err);
void skc_tri_bvh_free(skc_tri_bvh* t);

typedef struct skc_closest_hit {
  uint32_t triangle; /* UINT32_MAX when the tree is empty */
  float point[3];
  float bary[3];     /* weights of the triangle's three vertices (sum 1) */
  float dist2;       /* squared distance */
} skc_closest_hit;

/* Closest point of the mesh to q (exact; ties: the first triangle met). */
void skc_tri_bvh_closest(const skc_tri_bvh* t, const float q[3], skc_closest_hit* out);
/* Closest point on one triangle (a, b, c) to p with barycentric weights; degenerate triangles are handled
 * (closest point of their edges). Returns the squared distance. */
float skc_closest_on_triangle(const float p[3], const float a[3], const float b[3], const float c[3],
                              float out_point[3], float out_bary[3]);
/* Area-weighted vertex normals (unit length; zero for vertices no non-degenerate triangle touches); vertices at
 * identical positions share one normal (seams).
 * out: 3 * vertex_count floats. */
void skc_vertex_normals(const float* positions, size_t stride, size_t vertex_count, const uint32_t* triangles,
                        size_t triangle_count, float* out);

/* ---- weight transfer -------------------------------------------------------------------------------------- */
enum {
  SKC_TRANSFER_ALLOW_FLIPPED = 1 << 0,    /* accept normals pointing the opposite way (|cos| test) */
  SKC_TRANSFER_UNIFORM_LAPLACIAN = 1 << 1 /* inpaint with the uniform graph Laplacian instead of cotangent */
};
/* Per target vertex outcome (public: SK_TRANSFER_VERTEX_*). */
enum {
  SKC_TRANSFER_KEPT = 0,      /* not selected: weights unchanged (they constrain the inpainting) */
  SKC_TRANSFER_MATCHED = 1,   /* closest source point within the thresholds */
  SKC_TRANSFER_INPAINTED = 2, /* filled by the Laplacian inpainting */
  SKC_TRANSFER_FALLBACK = 3,  /* its part had no constrained vertex: closest source point, thresholds ignored */
  SKC_TRANSFER_FAILED = 4     /* unchanged: locked weights prevent it (sum > 1, invalid, fill the limit) or the
                                 new weights are all zero */
};

typedef struct skc_transfer_params {
  const float* src_pos; size_t src_stride; size_t src_count;
  const float* src_nrm; size_t src_nrm_stride;  /* optional */
  const uint32_t* src_tri; size_t src_tri_count;
  const skc_skin* src_skin;
  const float* dst_pos; size_t dst_stride;
  const float* dst_nrm; size_t dst_nrm_stride;  /* optional */
  const uint32_t* dst_tri; size_t dst_tri_count;
  float dist_threshold;   /* absolute distance; < 0: 0.05 x source bounding-box diagonal */
  float angle_threshold;  /* radians, in [0, pi] */
  uint32_t flags;         /* SKC_TRANSFER_* */
  uint32_t smooth_iterations; /* 0 = no smoothing of the inpainted vertices */
  float smooth_factor;    /* (0, 1] */
  uint32_t max_influences; /* 0 = no limit */
  float min_weight;       /* weights below it are dropped before normalization; in [0, 1) */
} skc_transfer_params;

typedef struct skc_transfer_stats {
  uint64_t selected, matched, inpainted, fallback, fallback_components, failed;
  double milliseconds;
  float dist_threshold_used;
  uint8_t* vertex_status; /* optional caller array (target vertex_count): SKC_TRANSFER_* */
} skc_transfer_stats;

/* Transfers the source skin's weights onto dst (target skin, vertex_count = target vertices, same joint count).
 * Arguments are assumed checked by the caller except finiteness and triangle indices, which are checked here.
 * On error dst is unchanged. */
int skc_weights_transfer(skc_skin* dst, const skc_wscope* sc, const skc_transfer_params* p, skc_transfer_stats* st,
                         skc_err* err);

/* ---- direct manipulation ------------------------------------------------------------------------------------ */
/* Minimizes sum over poses of |sum_j w_j M_j^(pose) p - target^(pose)|^2 over w >= 0, sum w = 1 (locked joints
 * keep their weight and the candidates share 1 - L), writes the result into vertex `vertex` of s.
 * palettes: 16 * joint_count floats per pose (column-major), targets: 3 floats per pose. */
typedef struct skc_direct_params {
  size_t vertex;
  const float* rest;          /* 3 floats */
  const float* palettes;      /* 16 * joint_count * pose_count */
  const float* targets;       /* 3 * pose_count */
  uint32_t pose_count;
  const uint32_t* candidates; /* NULL: the vertex's current (valid, unlocked) joints */
  size_t candidate_count;
} skc_direct_params;

typedef struct skc_direct_result {
  double residual;     /* sqrt of the summed squared distances over the poses */
  double max_distance; /* largest per-pose distance */
  uint32_t candidates_used;
  uint32_t nonzero;    /* candidates with a positive weight */
  float* achieved;     /* optional caller array: 3 * pose_count achieved positions */
} skc_direct_result;

int skc_weights_direct(skc_skin* s, const skc_wscope* sc, const skc_direct_params* p, skc_direct_result* r,
                       skc_err* err);

/* Simplex-constrained least squares: min |A x - b|^2 + mu |x - x0|^2, x >= 0, sum x = total, with A m x n
 * (row-major), n <= 64. Exact primal active set. x0 may be NULL (= total / n each). Returns false on failure
 * (bad sizes); x receives the solution. */
bool skc_simplex_lsq(const double* A, size_t m, size_t n, const double* b, double total, const double* x0,
                     double mu, double* x);

#endif
