/* skinkit.h - the public C ABI of libskinkit (skinned meshes: deform, exchange, bind, edit, validate, compress).
 *
 * Conventions (every function below follows them):
 *  - Every function returns sk_result (0 = SK_OK) unless it is a pure getter; objects come back through an
 *    out-parameter. On failure an optional caller-owned sk_error receives the code and a message; outputs are
 *    left untouched unless the doc says otherwise.
 *  - Desc and job structs start with `uint32_t size`, which the caller sets to sizeof(the struct); a zeroed
 *    field means "default". Opaque handles are created by the _create and _load functions and freed by _destroy (NULL is
 *    fine).
 *  - The caller owns every buffer it passes. Counts are size_t; each doc comment states the size a buffer must
 *    have. Passing NULL for an output array where a doc says "NULL asks for the count" returns the count only.
 *  - Matrices are 16 floats, column-major (m[col * 4 + row], glTF and cglm layout), points are column vectors
 *    (p' = M p). Quaternions are x, y, z, w. A TRS is 10 floats: t[3], r[4] (x,y,z,w), s[3]; M = T * R * S.
 *  - Skinning palette: M_j = W_j * inverse(B_j), W_j the joint's world matrix in the pose, B_j its bind matrix.
 *  - No function aborts, exits or asserts on caller data; bad input gets an error code and a message.
 *  - Thread safety: distinct objects may be used from distinct threads; one object is not locked.
 */
#ifndef SKINKIT_H
#define SKINKIT_H

#include <stddef.h>
#include <stdint.h>

#ifndef SK_API
#if defined(_WIN32)
#if defined(SK_BUILDING_LIBRARY)
#define SK_API __declspec(dllexport)
#else
#define SK_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define SK_API __attribute__((visibility("default")))
#else
#define SK_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================ common */

/* Library version as MAJOR * 10000 + MINOR * 100 + PATCH (1.25.0 -> 12500); MAJOR.MINOR is the ABI version. */
#define SK_VERSION 12702
/* ABI major: changes only on incompatible changes of this header. Bindings must refuse another major. */
#define SK_ABI_MAJOR 1
#define SK_ABI_MINOR 27

typedef enum sk_result {
  SK_OK = 0,
  SK_ERR_INVALID_ARGUMENT = 1,
  SK_ERR_OUT_OF_MEMORY = 2,
  SK_ERR_OUT_OF_RANGE = 3,
  SK_ERR_BAD_HIERARCHY = 4,
  SK_ERR_SINGULAR_MATRIX = 5,
  SK_ERR_NOT_FOUND = 6,
  SK_ERR_IO = 7,
  SK_ERR_FORMAT = 8,
  SK_ERR_UNSUPPORTED = 9,
  SK_ERR_TRUNCATED = 10,
  SK_ERR_CHECKSUM = 11,
  SK_ERR_VERSION = 12,
  SK_ERR_NO_SKIN = 13,
  SK_ERR_STRUCT_SIZE = 14,
  SK_ERR_NO_SOLUTION = 15,
  SK_ERR_CANCELLED = 16,
  SK_ERR_EXISTS = 17,
  SK_ERR_INTERNAL = 18,
  SK_RESULT_MAX_ENUM = 0x7fffffff
} sk_result;

#define SK_ERROR_MESSAGE_SIZE 256
/* Caller-owned error record, filled on failure by any function taking one (NULL is allowed). */
typedef struct sk_error {
  int32_t code; /* sk_result */
  char message[SK_ERROR_MESSAGE_SIZE];
} sk_error;

/* Version of the loaded library (SK_VERSION form) and its ABI major/minor (compare with SK_ABI_MAJOR). */
SK_API uint32_t sk_version(void);
SK_API const char* sk_version_string(void);
SK_API uint32_t sk_abi_major(void);
SK_API uint32_t sk_abi_minor(void);
/* Static text for a result code; never NULL. */
SK_API const char* sk_result_string(sk_result result);
/* Name of the deformer kernel picked for this CPU at run time ("scalar", "sse2", "avx2", "avx512"). */
SK_API const char* sk_cpu_kernel(void);

/* Component types of packed streams. U8/U16 weights are unsigned normalized (255 / 65535 = 1.0). */
typedef enum sk_type { SK_TYPE_NONE = 0, SK_TYPE_U8 = 1, SK_TYPE_U16 = 2, SK_TYPE_U32 = 3, SK_TYPE_F32 = 4 } sk_type;

#define SK_MAX_JOINTS 65535u
#define SK_NO_PARENT (-1)

/* ============================================================================================ skeleton */

typedef struct sk_skeleton sk_skeleton;

typedef struct sk_skeleton_desc {
  uint32_t size;              /* sizeof(sk_skeleton_desc) */
  uint32_t joint_count;       /* 1 .. SK_MAX_JOINTS */
  const char* const* names;   /* joint_count UTF-8 names, unique and non-empty; NULL names them "joint<i>" */
  const int32_t* parents;     /* joint_count entries: SK_NO_PARENT or an index < own index (parents first) */
  const float* rest_local;    /* 16 * joint_count: rest transform relative to the parent; NULL = identity */
  const float* bind;          /* 16 * joint_count: bind matrices B (joint -> skin space); optional */
  const float* inverse_bind;  /* 16 * joint_count: B^-1; optional. If only one of bind / inverse_bind is */
                              /* given the other is its inverse; if neither, B = world rest transform. */
  /* since ABI 1.23 (a desc of the 1.22 size, offsetof(sk_skeleton_desc, tails), is still accepted): */
  const float* tails; /* 3 * joint_count or NULL: each bone's tail as the authoring tool placed it, a point */
                      /* in the joint's own rest frame (moves with it); NaN (any non-finite) where not */
                      /* known. sk_skeleton_bone_segments takes these before its rules. */
} sk_skeleton_desc;

/* Creates a skeleton. Fails with SK_ERR_BAD_HIERARCHY if a parent does not come before its child (cycles
 * included), SK_ERR_OUT_OF_RANGE for a parent index past the end, SK_ERR_INVALID_ARGUMENT for duplicate or
 * empty names, SK_ERR_SINGULAR_MATRIX if a bind matrix cannot be inverted. */
SK_API sk_result sk_skeleton_create(const sk_skeleton_desc* desc, sk_skeleton** out, sk_error* err);
SK_API void sk_skeleton_destroy(sk_skeleton* skeleton);
SK_API uint32_t sk_skeleton_joint_count(const sk_skeleton* skeleton);
/* Name of joint i, or NULL if out of range. Valid until the skeleton is destroyed. */
SK_API const char* sk_skeleton_joint_name(const sk_skeleton* skeleton, uint32_t joint);
/* Parent of joint i, SK_NO_PARENT for roots and for out-of-range i. */
SK_API int32_t sk_skeleton_joint_parent(const sk_skeleton* skeleton, uint32_t joint);
/* Index of the joint with this exact name; SK_ERR_NOT_FOUND if none. */
SK_API sk_result sk_skeleton_find_joint(const sk_skeleton* skeleton, const char* name, uint32_t* out_joint);
/* Copies 16 * joint_count floats of the rest-local, world-rest, bind or inverse-bind matrices. */
SK_API sk_result sk_skeleton_get_rest_local(const sk_skeleton* skeleton, float* out_matrices);
SK_API sk_result sk_skeleton_get_rest_world(const sk_skeleton* skeleton, float* out_matrices);
SK_API sk_result sk_skeleton_get_bind(const sk_skeleton* skeleton, float* out_matrices);
SK_API sk_result sk_skeleton_get_inverse_bind(const sk_skeleton* skeleton, float* out_matrices);
/* The stored bone tails (sk_skeleton_desc.tails; a Collada file from Blender gives its bones' tails): the number
 * of joints with one, and when out_tails is not NULL 3 * joint_count floats written, NaN where none is stored.
 * Pass them to sk_skeleton_desc.tails to keep them in a skeleton made from this one. */
SK_API uint32_t sk_skeleton_get_tails(const sk_skeleton* skeleton, float* out_tails);
/* Rest pose as TRS (10 * joint_count floats). SK_ERR_UNSUPPORTED if a rest transform has shear (the TRS is
 * still written, as close as TRS can get). */
SK_API sk_result sk_skeleton_get_rest_trs(const sk_skeleton* skeleton, float* out_trs);

/* Order that puts parents before children for an arbitrary parent array (e.g. from a file): writes
 * joint_count indices into out_order (out_order[k] = old index of the k-th joint). SK_ERR_BAD_HIERARCHY on a
 * cycle, SK_ERR_OUT_OF_RANGE on a parent index >= joint_count. */
SK_API sk_result sk_hierarchy_order(const int32_t* parents, uint32_t joint_count, uint32_t* out_order,
                                    sk_error* err);

/* Local matrices (16 per joint) from a TRS pose (10 per joint). Rotations are normalized; a zero quaternion
 * counts as identity. */
SK_API sk_result sk_pose_local_from_trs(const float* trs, uint32_t joint_count, float* out_local, sk_error* err);
/* Forward kinematics: world = parent_world * local, roots get root * local (root NULL = identity).
 * local and out_world hold 16 * joint_count floats and must not overlap. Per-frame paths: the values are not checked
 * (a NaN in gives NaN out, which sk_deform_run refuses as SK_ERR_SINGULAR_MATRIX; sk_pose_local_from_trs checks). */
SK_API sk_result sk_skeleton_world(const sk_skeleton* skeleton, const float* local, const float* root,
                                   float* out_world, sk_error* err);
/* Skinning palette M_j = world_j * inverse_bind_j (16 * joint_count floats each). inverse_bind NULL uses the
 * skeleton's; a skin bound with other bind matrices passes its own. out_palette may alias world. Values not checked,
 * as sk_skeleton_world. */
SK_API sk_result sk_palette_compute(const sk_skeleton* skeleton, const float* world, const float* inverse_bind,
                                    float* out_palette, sk_error* err);
/* Convenience: palette for a TRS pose (NULL = rest pose, which yields identities when B is the rest pose). */
SK_API sk_result sk_skeleton_palette_from_trs(const sk_skeleton* skeleton, const float* trs,
                                              const float* inverse_bind, float* out_palette, sk_error* err);

/* ============================================================================================ skin weights */

/* Canonical variable-length weights (CSR): vertex v owns entries offsets[v] .. offsets[v+1]-1 of joints[]
 * and weights[]. Nothing is normalized or reordered behind the caller's back. */
typedef struct sk_skin sk_skin;

/* Creates a skin of vertex_count vertices with no influences, over joints 0 .. joint_count-1. */
SK_API sk_result sk_skin_create(size_t vertex_count, uint32_t joint_count, sk_skin** out, sk_error* err);
SK_API void sk_skin_destroy(sk_skin* skin);
SK_API sk_result sk_skin_clone(const sk_skin* skin, sk_skin** out, sk_error* err);
SK_API size_t sk_skin_vertex_count(const sk_skin* skin);
SK_API uint32_t sk_skin_joint_count(const sk_skin* skin);
SK_API size_t sk_skin_influence_count(const sk_skin* skin);
/* Replaces all weights. offsets: vertex_count + 1 entries, offsets[0] = 0, non-decreasing; joints and
 * weights: offsets[vertex_count] entries. Values are stored as given (validate reports NaN, negative,
 * out-of-range joints, duplicates); only a malformed offsets array is refused. */
SK_API sk_result sk_skin_set_csr(sk_skin* skin, const uint32_t* offsets, const uint32_t* joints,
                                 const float* weights, sk_error* err);
/* Reads the CSR arrays into caller buffers sized as above; any pointer may be NULL to skip it. */
SK_API sk_result sk_skin_get_csr(const sk_skin* skin, uint32_t* out_offsets, uint32_t* out_joints,
                                 float* out_weights, sk_error* err);
/* Influences of one vertex: returns the count; copies up to capacity entries (arrays may be NULL). */
SK_API size_t sk_skin_get_vertex(const sk_skin* skin, size_t vertex, uint32_t* out_joints, float* out_weights,
                                 size_t capacity);
/* Replaces the influences of one vertex (count entries). */
SK_API sk_result sk_skin_set_vertex(sk_skin* skin, size_t vertex, const uint32_t* joints, const float* weights,
                                    size_t count, sk_error* err);

/* Packed fixed-K streams (glTF JOINTS_n/WEIGHTS_n style). */
typedef struct sk_packed_desc {
  uint32_t size;          /* sizeof(sk_packed_desc) */
  uint32_t influences;    /* K: 1 .. 8 */
  sk_type joint_type;     /* SK_TYPE_U8, U16 or U32 (0 = U16) */
  sk_type weight_type;    /* SK_TYPE_F32, U8 or U16 (0 = F32) */
  void* joints;           /* vertex_count * K joint indices, vertex v at (char*)joints + v * joints_stride */
  size_t joints_stride;   /* bytes between vertices; 0 = tightly packed */
  void* weights;          /* vertex_count * K weights, likewise */
  size_t weights_stride;  /* 0 = tightly packed */
} sk_packed_desc;

/* Packs the skin into K slots per vertex: keeps the K largest weights (ties: lower joint index), sorts them by
 * weight (largest first), renormalizes them to sum 1 (integer types: sum exactly 255 / 65535 by largest
 * remainder) and zero-fills unused slots (joint 0, weight 0). A vertex without influences gets all zeros.
 * Negative or non-finite weights count as 0. SK_ERR_OUT_OF_RANGE if a joint index does not fit joint_type. */
SK_API sk_result sk_skin_to_packed(const sk_skin* skin, const sk_packed_desc* packed, sk_error* err);
/* Replaces the skin's weights with packed streams (vertex_count vertices); zero weights are dropped. */
SK_API sk_result sk_skin_from_packed(sk_skin* skin, const sk_packed_desc* packed, sk_error* err);

/* Skin partition (ABI 1.5): a skin's vertices ordered by influence count for engines that prepare a mesh once and
 * skin it every frame. Ranges, in this order: 0-1 influences (K = 1: one matrix per vertex, a rigid transform),
 * 2 (K = 2), 3-4 (K = 4), 5-8 (K = 8); each keeps its vertices' own order and packs K (uint16 joint, float weight)
 * slots per vertex: the vertex's own entries in order, then weight-0 copies of its first joint (joint 0 for a
 * vertex without influences, which the deformer keeps at rest). So no vertex pays for more joints than its range's
 * K, where one packed stream makes every vertex pay the largest count. The caller reorders its vertex streams
 * once by out_order (out_order[new] = old vertex), then runs one sk_deform_job per range (vertex_count = count,
 * influences = K, joint_type U16, weight_type F32, joints / weights from entry_offset, vertex streams from first):
 * the same positions, normals and tangents as one job over the whole skin. */
#define SK_PARTITION_MAX_RANGES 4
typedef struct sk_partition_range {
  size_t first;        /* first vertex of the range in the new order */
  size_t count;        /* its vertices */
  uint32_t influences; /* K of its packed streams: 1, 2, 4 or 8 */
  uint32_t reserved;
  size_t entry_offset; /* its count * K joints and weights start here in out_joints / out_weights */
} sk_partition_range;

/* out_ranges (SK_PARTITION_MAX_RANGES entries; the first *out_range_count are the non-empty ranges) and
 * *out_entry_count (the size of out_joints and of out_weights) are always filled; out_order (vertex_count) NULL:
 * nothing else; out_joints / out_weights (both or neither) NULL: the order only. SK_ERR_OUT_OF_RANGE: a vertex with
 * more than 8 influences (limit first) or more than 65536 joints. */
SK_API sk_result sk_skin_partition(const sk_skin* skin, uint32_t* out_order,
                                   sk_partition_range out_ranges[SK_PARTITION_MAX_RANGES], uint32_t* out_range_count,
                                   uint16_t* out_joints, float* out_weights, size_t* out_entry_count, sk_error* err);

/* Per-vertex problem bits written by sk_skin_validate into an optional flags array. */
enum {
  SK_VFLAG_SUM_OFF = 1 << 0,    /* |sum - 1| > tolerance (vertices with influences only) */
  SK_VFLAG_UNWEIGHTED = 1 << 1, /* no influence, or all weights zero */
  SK_VFLAG_NAN = 1 << 2,        /* a NaN or infinite weight */
  SK_VFLAG_NEGATIVE = 1 << 3,   /* a negative weight */
  SK_VFLAG_BAD_JOINT = 1 << 4,  /* a joint index >= joint_count */
  SK_VFLAG_DUPLICATE = 1 << 5,  /* the same joint twice in one vertex */
  SK_VFLAG_OVER_LIMIT = 1 << 6  /* more influences than max_influences */
};

#define SK_HISTOGRAM_BINS 17 /* vertices with 0, 1, ..., 15 and >= 16 influences */

typedef struct sk_skin_report {
  uint32_t size;               /* sizeof(sk_skin_report), set by the caller */
  uint32_t max_influences;     /* largest influence count of any vertex */
  uint64_t vertex_count;
  uint64_t influence_count;    /* stored entries, zero weights included */
  float weight_sum_min;        /* over vertices that have influences; 0 if none has */
  float weight_sum_max;
  uint64_t off_tolerance;      /* vertices (with influences) whose sum is off 1 by more than tolerance */
  uint64_t unweighted;
  uint64_t nan;                /* vertices with a NaN/Inf weight */
  uint64_t negative;           /* vertices with a negative weight */
  uint64_t bad_joint;          /* vertices with an out-of-range joint */
  uint64_t duplicate;          /* vertices with a repeated joint */
  uint64_t over_limit;         /* vertices with more than the limit */
  uint64_t joints_used;        /* distinct joints with a non-zero weight somewhere */
  uint64_t histogram[SK_HISTOGRAM_BINS];
  uint32_t findings;           /* 1 if any problem counter above is non-zero (over_limit only with a limit) */
  uint32_t reserved;
} sk_skin_report;

typedef struct sk_validate_options {
  uint32_t size;           /* sizeof(sk_validate_options) */
  uint32_t max_influences; /* 0 = no limit */
  float tolerance;         /* 0 = 1e-3 */
  uint32_t reserved;
} sk_validate_options;

/* Checks every vertex; options may be NULL (defaults). out_vertex_flags (vertex_count bytes, SK_VFLAG_*) may be
 * NULL. Returns SK_OK whether or not there are findings: read report->findings. */
SK_API sk_result sk_skin_validate(const sk_skin* skin, const sk_validate_options* options, sk_skin_report* report,
                                  uint8_t* out_vertex_flags, sk_error* err);

/* ============================================================================================ deform */

typedef enum sk_deform_method {
  SK_DEFORM_LBS = 0,  /* linear blend (smooth) skinning */
  SK_DEFORM_DQS = 1,  /* dual quaternion skinning (Kavan et al. 2008), scale/shear in a separate linear pass */
  SK_DEFORM_RIGID = 2, /* each vertex follows its largest-weight joint only (rigid parts / simple skin) */
  SK_DEFORM_COR = 3    /* optimized centres of rotation (Le & Hodgins 2016), needs centers (sk_cor_compute); ABI 1.5 */
} sk_deform_method;

enum {
  /* Weights need not sum to 1: the remainder 1 - sum stays at rest, p' = p + sum w_i (M_i p - p). For helper and
   * muscle joints layered on top of normalized weights (sums above 1 add the helper's motion). */
  SK_DEFORM_ADDITIVE = 1 << 0,
  /* Divide by the weight sum of each vertex on the fly (assets whose sums drift from 1). */
  SK_DEFORM_NORMALIZE_WEIGHTS = 1 << 1,
  /* Normals and tangents follow the largest-weight joint only (seed 000's fast path; no blending). */
  SK_DEFORM_NORMAL_FAST = 1 << 2,
  /* Leave blended normals / tangents unnormalized. */
  SK_DEFORM_NO_RENORMALIZE = 1 << 3,
  /* ABI 1.5. Packed influences (influences = K >= 1) store K joints but only K - 1 weights per vertex; the last is
   * what the others leave of the whole, in the weight type's own units (U8: (255 - sum) / 255, U16: of 65535, F32:
   * 1 - sum; never below 0). The 56-bit layout of 4 x U8 joints + 3 x U8 weights, as compact runtime formats store
   * it. weights_stride 0 means K - 1 weights tightly packed; with K = 1, weights may be NULL (the weight is 1). */
  SK_DEFORM_IMPLIED_LAST_WEIGHT = 1 << 4
};

/* A deformation job: plain inputs and outputs over strided streams, validated before any work. No
 * allocation happens per vertex (a per-call scratch holds the prepared palettes: on the stack up to 256 joints,
 * on the heap above); the job may be run from any thread. Streams: positions, normals and tangents are 3 floats
 * per vertex at the given byte stride (0 = tightly packed: 12 bytes, 16 for 4-component tangents); tangents may
 * carry a 4th float (handedness) that is copied through when tangent_components = 4. Streams need no alignment.
 * Outputs may alias their inputs (in-place) only with equal strides.
 * Methods: LBS blends the matrices M_j by weight, then transforms. DQS splits each M_j by polar decomposition
 * into rotation R_j and stretch S_j; stretches are blended linearly (p_s = sum w S_j p, skipped when every M_j is
 * rigid), then (R_j, t_j) are blended as dual quaternions aligned to the hemisphere of the vertex's
 * largest-weight joint and applied to p_s. RIGID moves each vertex by its largest-weight joint only (weights
 * otherwise ignored; on a tie the lowest joint index, whatever the slots' order). COR (ABI 1.5) needs job.centers, one
 * centre c per vertex from sk_cor_compute: the rotation R is the normalized blend of the joints' rotation quaternions
 * (hemisphere of the largest-weight joint, as DQS), the stretch S = sum w_j S_j (polar split as DQS, identity when
 * every M_j is rigid), and p' = R S (p - c) + LBS(c), LBS(c) = (sum w_j M_j) c: no candy-wrapper collapse (like DQS),
 * and the paper's answer to DQS's bulging at bends; normals and tangents follow R (and S as DQS). A vertex with one
 * joint moves exactly as LBS. COR takes the AVX2 and AVX-512 paths for packed jobs whose palette is rigid, the
 * generic loop otherwise (and with tangents). When any M_j has scale or shear, normals use the inverse transposes of
 * the M_j (DQS: of the blended stretch, then the blended rotation); tangents use M_j. Normals and tangents are
 * renormalized (unless SK_DEFORM_NO_RENORMALIZE); a blend of zero length keeps the input vector.
 * A vertex whose weight sum is 0 keeps its input values (with SK_DEFORM_ADDITIVE the formula applies instead),
 * as does a DQS vertex whose blended rotation cancels to zero; neither is an error.
 * Validation errors: SK_ERR_STRUCT_SIZE (size), SK_ERR_OUT_OF_RANGE (joint_count not 1..SK_MAX_JOINTS,
 * influences > 8), SK_ERR_SINGULAR_MATRIX (a non-finite entry in the upper 3 rows of a palette matrix),
 * SK_ERR_INVALID_ARGUMENT (everything else: method, unknown flags, vertex_count 0, NULL palette/streams,
 * half of a stream pair, types, strides below the element size, tangent_components, in-place with unequal
 * strides; COR with centers NULL or a job of the ABI 1.4 size). joint_type / weight_type 0 mean U16 / F32, as in
 * sk_packed_desc.
 * The deformer kernel (sk_cpu_kernel) is chosen at run time; SKINKIT_KERNEL=scalar|sse2|avx2|avx512 forces one
 * (one the CPU cannot run falls back to the best it can, an unknown name is ignored; docs/cpu_dispatch.md). */
typedef struct sk_deform_job {
  uint32_t size;            /* sizeof(sk_deform_job); the ABI 1.4 size, offsetof(sk_deform_job, centers), is still
                               accepted for LBS / DQS / RIGID (the fields after it then count as NULL / 0) */
  uint32_t method;          /* sk_deform_method */
  uint32_t flags;           /* SK_DEFORM_* */
  uint32_t threads;         /* 0 = all available, 1 = calling thread only */
  size_t vertex_count;

  const float* palette;     /* joint_count column-major 4x4 skinning matrices M_j (bottom row ignored) */
  size_t joint_count;

  /* Influences, either packed fixed-K streams ... */
  uint32_t influences;      /* K (1 .. 8); 0 selects the CSR arrays below */
  sk_type joint_type;       /* U8, U16 or U32 */
  sk_type weight_type;      /* F32, U8 or U16 (normalized) */
  uint32_t reserved0;
  const void* joints;
  size_t joints_stride;     /* 0 = tightly packed */
  const void* weights;
  size_t weights_stride;    /* 0 = tightly packed */
  /* ... or CSR (influences == 0), e.g. from sk_skin_get_csr: offsets[vertex_count + 1]. */
  const uint32_t* csr_offsets;
  const uint32_t* csr_joints;
  const float* csr_weights;

  const float* in_positions;
  size_t in_positions_stride;
  float* out_positions;
  size_t out_positions_stride;
  const float* in_normals;  /* optional; requires out_normals */
  size_t in_normals_stride;
  float* out_normals;
  size_t out_normals_stride;
  const float* in_tangents; /* optional; requires out_tangents */
  size_t in_tangents_stride;
  float* out_tangents;
  size_t out_tangents_stride;
  uint32_t tangent_components; /* 3 or 4 (0 = 3) */
  uint32_t reserved1;
  /* ABI 1.5: COR centres, 3 floats per vertex (sk_cor_compute); required by SK_DEFORM_COR, ignored otherwise. */
  const float* centers;
  size_t centers_stride; /* 0 = tightly packed (12 bytes) */
} sk_deform_job;

/* Checks the job without running it: size field, method, counts, strides, K, types, required pairs of
 * streams, palette finiteness. */
SK_API sk_result sk_deform_validate(const sk_deform_job* job, sk_error* err);
/* Validates, then deforms. A vertex naming a joint >= joint_count (or with a non-finite weight, or CSR offsets
 * that decrease) keeps its input position/normal/tangent, and the call returns SK_ERR_OUT_OF_RANGE (the message
 * says how many vertices) after finishing all other vertices. threads: 0 = all OpenMP threads, 1 = the calling
 * thread only, n = at most n; results do not depend on the thread count. */
SK_API sk_result sk_deform_run(const sk_deform_job* job, sk_error* err);

/* Precompute of SK_DEFORM_COR (ABI 1.5): one centre of rotation per vertex, written to out_centers (3 *
 * vertex_count floats, caller-owned), from the rest pose: positions (3 * vertex_count floats), triangles
 * (3 * triangle_count indices; NULL when triangle_count is 0) and CSR influences (csr_offsets[vertex_count + 1],
 * csr_joints / csr_weights[csr_offsets[vertex_count]], e.g. from sk_skin_get_csr). Le & Hodgins 2016: the centre
 * of vertex i is sum_t s(w_i, w_t) A_t c_t / sum_t s(w_i, w_t) A_t over the triangles t (area A_t, centroid c_t,
 * w_t = mean of the corners' weights), s(a, b) = sum over joint pairs j < k of a_j a_k b_j b_k
 * exp(-(a_j b_k - a_k b_j)^2 / sigma^2). Each vertex's weights are first sorted, merged per joint, stripped of
 * entries <= 0 and rescaled to sum 1. A vertex with nothing similar (one joint, no weights, no triangle sharing a
 * joint pair) gets its own position, so COR moves it as LBS does. sigma: 0 = 0.1 (the paper's default).
 * threads: 0 = all OpenMP threads, 1 = the calling thread only; results do not depend on it. The work is done once
 * per distinct weight vector and only over triangles sharing a joint pair; very large pair groups are merged into
 * small cells of weight space (relative error ~1e-5). docs/deform.md has timings (200k-vertex cylinder: 0.2 s
 * with one weight vector per ring, 6-9 s with every vertex's weights distinct).
 * Errors: SK_ERR_INVALID_ARGUMENT (NULL arrays, vertex_count 0, sigma negative or not finite, a non-finite position
 * or weight, offsets not starting at 0 or decreasing), SK_ERR_OUT_OF_RANGE (a joint >= joint_count, a triangle
 * index >= vertex_count, a vertex above 65535 influences), SK_ERR_OUT_OF_MEMORY. */
SK_API sk_result sk_cor_compute(const float* positions, size_t vertex_count, const uint32_t* triangles,
                                size_t triangle_count, const uint32_t* csr_offsets, const uint32_t* csr_joints,
                                const float* csr_weights, size_t joint_count, float sigma, uint32_t threads,
                                float* out_centers, sk_error* err);

/* ============================================================================================ sample geometry */

/* A capped cylinder along +X from x = 0 to length, rigged with `bones` bones splitting it evenly: the rig of the
 * README sample, the quality tests and the benchmarks. Zero fields take the defaults. */
typedef struct sk_cylinder_desc {
  uint32_t size;     /* sizeof(sk_cylinder_desc) */
  uint32_t segments; /* around the axis, 3 .. 1e5 (0 = 32) */
  uint32_t rings;    /* along the axis, 1 .. 1e5 (0 = 64) */
  uint32_t bones;    /* 1 .. 1000 (0 = 2) */
  float radius;      /* 0 = 0.25 */
  float length;      /* 0 = 2 */
  float blend;       /* half-width of the linear weight ramp around each joint (0 = 0.25; negative = rigid) */
  uint32_t reserved;
} sk_cylinder_desc;

/* Writes the counts, and fills whichever outputs are non-NULL: positions and normals (3 * vertex_count floats),
 * triangles (3 * triangle_count indices, counter-clockwise seen from outside), skin (created by the caller with
 * sk_skin_create(vertex_count, >= bones)). Call once with NULL outputs to get the counts. */
SK_API sk_result sk_mesh_cylinder(const sk_cylinder_desc* desc, size_t* out_vertex_count, size_t* out_triangle_count,
                                  float* out_positions, float* out_normals, uint32_t* out_triangles, sk_skin* out_skin,
                                  sk_error* err);

/* ---- scene import / export (io) ---------------------------------------------------------------------
 * An sk_scene owns everything read from one file: meshes (positions, normals, tangents, UV0, triangles), one
 * skeleton (every bone node plus its ancestors, parents first), per-mesh skins keyed to the skeleton's joints,
 * per-mesh inverse bind matrices and animations. Any format Assimp reads. Post-processing: triangulation only
 * (no vertex joining, nothing that touches weights); weights are kept as in the file, duplicates included
 * (exact zero entries are dropped). Strings and borrowed handles stay valid until sk_scene_destroy: a skin replaced
 * by sk_scene_mesh_set_skin keeps its handle (holding the new weights), a blend shape's name its string (since 1.26);
 * only sk_scene_relink ends the old skeleton and its joint names. */
typedef struct sk_scene sk_scene;

typedef struct sk_load_options {
  uint32_t size;               /* sizeof(sk_load_options) */
  uint32_t join_vertices;      /* 1 = also run Assimp's JoinIdenticalVertices (slow on huge meshes) */
  uint32_t validate_structure; /* 1 = run Assimp's ValidateDataStructure and fail on its findings */
  uint32_t isolate;            /* 1 = read the file once in a child process first, so that an importer crash or
                                  hang on a damaged file becomes SK_ERR_FORMAT instead of killing the caller
                                  (POSIX fork; costs one extra parse). Use it for untrusted files. Every format:
                                  since 1.26 also glTF (libdraco, meshopt data) and IQM, which skinkit reads itself. */
  float timeout_seconds;       /* with isolate: reject a file whose reading takes longer (0 = no limit) */
  uint32_t max_memory_mb;      /* with isolate: the child may grow its address space by at most this many MiB
                                  (setrlimit RLIMIT_AS); a file needing more is rejected (0 = no limit). ABI 1.4;
                                  the field was reserved (0) before. */
  /* since ABI 1.7 (options of the 1.6 size, offsetof(sk_load_options, skeleton_from_nodes), are still accepted and
     leave it 0): */
  uint32_t skeleton_from_nodes; /* 1 = a file whose meshes reference no bone - an armature beside the unweighted
                                   mesh it is meant to deform, as modellers hand it over for binding - gets a
                                   skeleton anyway: the nodes with no mesh, camera or light at or below them, plus
                                   their ancestors, in their rest pose (bind pose = rest pose). Its deform joints
                                   are then chosen by the hierarchy rule (sk_scene_deform_joints). 0 = such a file
                                   has no skeleton. Files with skins are read the same either way.
                                   | SK_NODES_ANIMATED (ABI 1.11): also every node a clip animates, and its
                                   ancestors, so that meshes below them (a machine animated without skins) keep their
                                   motion: the glTF writer hangs their nodes under those joints (what `convert`
                                   asks for; not for binding, where such nodes are no bones). Since 1.21.1 also in a
                                   file with skins: each node a clip keys that has an unskinned mesh at or below it
                                   (a prop keyed on a bone, a crate keyed beside the character) is a joint no skin
                                   lists, its meshes hung from it; the writers keep it a plain node. */
} sk_load_options;
enum { SK_NODES_ANIMATED = 2 };

/* Loads a file. SK_ERR_IO: missing/unreadable/directory/not a regular file (FIFOs, devices and sockets are refused
 * before anything is read); SK_ERR_FORMAT: empty file or Assimp refused it (the message names the file and carries
 * Assimp's reason). With isolate, SK_ERR_FORMAT also when the isolated reader crashed (message: the signal's
 * name), ran out of time ("did not finish within") or over max_memory_mb ("memory limit"); the file is then not
 * read in the caller's process. A file without bones loads (no skins; no skeleton unless skeleton_from_nodes). */
SK_API sk_result sk_scene_load(const char* path, const sk_load_options* options, sk_scene** out, sk_error* err);
SK_API void sk_scene_destroy(sk_scene* scene);
/* SK_ERR_NO_SKIN (message names the file) when no mesh has a skin; SK_OK otherwise. */
SK_API sk_result sk_scene_require_skin(const sk_scene* scene, sk_error* err);
/* Seconds spent in sk_scene_load. */
SK_API double sk_scene_load_seconds(const sk_scene* scene);
/* The scene's coordinate frame: the unit and axes its file declares (an FBX file's GlobalSettings: Blender's and Maya's
 * FBX are in centimetres), which the scene's numbers keep; every other reader gives glTF's frame (metres, +Y up, +Z
 * front, +X right). unit_metres: metres per unit; axes: the up, front and coord axes as signed axis numbers (1 = +X, -1
 * = -X, 2 = +Y, 3 = +Z, ...); to_gltf: the matrix (column-major) taking the scene's numbers into glTF's frame, which
 * the .glb / .gltf writers apply to the top-level nodes (.dae: then turned to Z up; sk_scene_save: an FBX in
 * centimetres becomes metres) and the .fbx writer declares instead. Each output may be NULL. Returns 1 when the source
 * declared a frame, 0 when the scene is in glTF's frame (the outputs are then that frame's), -1 for a NULL scene. */
SK_API int sk_scene_frame(const sk_scene* scene, double* unit_metres, int32_t axes[3], float to_gltf[16]);
/* Declares a frame for the scene's numbers, as an FBX file's GlobalSettings would (a scene built in centimetres,
 * or a copy of another scene's sk_scene_frame): unit_metres > 0 (1e-8 .. 1e5), axes (NULL: Y up, Z front, X coord)
 * the up and front axes as signed axis numbers on different axes and the coord axis (0: the right-handed one).
 * The numbers are not changed; the writers then convert or declare as for an FBX source. SK_ERR_INVALID_ARGUMENT
 * otherwise (nothing changes). */
SK_API sk_result sk_scene_set_frame(sk_scene* scene, double unit_metres, const int32_t axes[3], sk_error* err);

SK_API uint32_t sk_scene_mesh_count(const sk_scene* scene);
/* Mesh name (never NULL for a valid index; NULL if out of range). */
SK_API const char* sk_scene_mesh_name(const sk_scene* scene, uint32_t mesh);
SK_API size_t sk_scene_mesh_vertex_count(const sk_scene* scene, uint32_t mesh);
/* Triangle index count (3 per triangle). */
SK_API size_t sk_scene_mesh_index_count(const sk_scene* scene, uint32_t mesh);
/* Copy-outs; each returns the number of floats/indices the full stream has (0 if the mesh lacks it or the
 * index is out of range) and copies min(capacity, that) of them when out is non-NULL. NULL asks for the count.
 * positions/normals: 3 per vertex; tangents: 4 per vertex (x, y, z, bitangent sign); uv0: 2 per vertex. */
SK_API size_t sk_scene_mesh_positions(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity);
SK_API size_t sk_scene_mesh_normals(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity);
/* ABI 1.13: a mesh's blend shapes (FBX shape keys, Collada morphs, glTF morph targets): how many (0 for an index out
 * of range), each one's name (NULL out of range) and default weight (0 out of range), and its whole positions - 3
 * per vertex in the mesh's space like sk_scene_mesh_positions, not offsets - counted and copied as the streams are. */
SK_API uint32_t sk_scene_mesh_morph_count(const sk_scene* scene, uint32_t mesh);
SK_API const char* sk_scene_mesh_morph_name(const sk_scene* scene, uint32_t mesh, uint32_t morph);
SK_API float sk_scene_mesh_morph_weight(const sk_scene* scene, uint32_t mesh, uint32_t morph);
SK_API size_t sk_scene_mesh_morph_positions(const sk_scene* scene, uint32_t mesh, uint32_t morph, float* out,
                                            size_t capacity);
/* ABI 1.17: the keys clip `anim` gives a mesh's blend shape weights (a glTF "weights" channel, FBX DeformPercent
 * curves): returns how many (0: none, or an index out of range) and copies min(capacity, that) of them when times
 * and/or weights are non-NULL - times in seconds, ascending; weights morph_count per key (key k's weight of shape t at
 * weights[k * morph_count + t], 1 = the whole shape), linear between keys and held outside them. */
SK_API size_t sk_scene_mesh_morph_keys(const sk_scene* scene, uint32_t mesh, uint32_t anim, double* times,
                                       float* weights, size_t capacity);
/* ABI 1.17: custom properties of the file's nodes, by node name - a binary FBX's Model user properties (Blender's
 * custom properties, Maya's extra attributes), a glTF's named nodes' extras: how many, and property i's node and
 * name (valid while the scene is), kind (SK_PROP_*), value in v[0] (v[0..2] for SK_PROP_VEC3) and text
 * (SK_PROP_STRING). Outputs are optional. SK_ERR_INVALID_ARGUMENT for a NULL scene, SK_ERR_OUT_OF_RANGE past the
 * last. */
enum { SK_PROP_INT = 1, SK_PROP_BOOL = 2, SK_PROP_NUMBER = 3, SK_PROP_STRING = 4, SK_PROP_VEC3 = 5 };
SK_API uint32_t sk_scene_prop_count(const sk_scene* scene);
SK_API sk_result sk_scene_prop(const sk_scene* scene, uint32_t i, const char** out_node, const char** out_key,
                               int32_t* out_kind, double out_v[3], const char** out_text, sk_error* err);
/* ABI 1.17: adds a custom property of node `node` (a joint's, a mesh node's or an object's name; copied): the glTF
 * writer writes it in the node's extras, binary FBX as a user property of the Model of that name, other writers name
 * it. On a scene read from a file the in-place edits then no longer apply. SK_ERR_INVALID_ARGUMENT for an empty node
 * or key, another kind, values that are not finite (v: 1 value, 3 for SK_PROP_VEC3) or a NULL text for
 * SK_PROP_STRING. */
SK_API sk_result sk_scene_add_prop(sk_scene* scene, const char* node, const char* key, int32_t kind, const double* v,
                                   const char* text, sk_error* err);
/* ABI 1.18: the same for the materials, by material name (sk_scene_material_info's name) - a binary FBX's Material
 * user properties, a glTF's named materials' extras (Blender's material custom properties): the glTF writer writes
 * them in the material's extras, binary FBX as its Material's user properties. */
SK_API uint32_t sk_scene_material_prop_count(const sk_scene* scene);
SK_API sk_result sk_scene_material_prop(const sk_scene* scene, uint32_t i, const char** out_material,
                                        const char** out_key, int32_t* out_kind, double out_v[3], const char** out_text,
                                        sk_error* err);
SK_API sk_result sk_scene_add_material_prop(sk_scene* scene, const char* material, const char* key, int32_t kind,
                                            const double* v, const char* text, sk_error* err);
/* ABI 1.19: the same for the meshes, by mesh name (sk_scene_mesh_name: the mesh data's, not its node's) - a binary
 * FBX's Geometry user properties, a glTF's named meshes' extras (Blender's mesh data custom properties): the glTF
 * writer writes them in the mesh's extras, binary FBX as its Geometry's user properties. */
SK_API uint32_t sk_scene_mesh_prop_count(const sk_scene* scene);
SK_API sk_result sk_scene_mesh_prop(const sk_scene* scene, uint32_t i, const char** out_mesh, const char** out_key,
                                    int32_t* out_kind, double out_v[3], const char** out_text, sk_error* err);
SK_API sk_result sk_scene_add_mesh_prop(sk_scene* scene, const char* mesh, const char* key, int32_t kind,
                                        const double* v, const char* text, sk_error* err);
/* ABI 1.17: sets those keys (copied: `keys` times, finite and strictly ascending, and keys * morph_count finite
 * weights); keys 0 removes them. glTF writes them as a "weights" channel of the mesh's node, binary FBX as
 * DeformPercent curves of its shape keys; other writers name them as not written. The keys belong to the mesh's
 * current shapes: sk_scene_mesh_set_morphs with other shapes (count or names) drops them. On a scene read from a file
 * the in-place edits then no longer apply. SK_ERR_OUT_OF_RANGE for a mesh or clip out of range, SK_ERR_INVALID_ARGUMENT
 * for a mesh without shapes, NULL arrays with keys, or times / weights that break the rules; nothing changes on
 * failure. */
SK_API sk_result sk_scene_mesh_set_morph_keys(sk_scene* scene, uint32_t mesh, uint32_t anim, size_t keys,
                                              const double* times, const float* weights, sk_error* err);
/* ABI 1.20: merges each mesh's vertices that are the same in everything the scene keeps of them - position, normal,
 * tangent, texture coordinates, colour, every blend shape's position and normal, and the skin's row (joints and
 * weights in the same order) - bit for bit, keeping the first of each and renumbering the triangles. Assimp's FBX,
 * Collada, .X and OBJ readers give every face corner a vertex of its own (CesiumMan_blender.dae: 14,016 vertices for
 * 3,273 points), so a file written from such a scene is a soup of separate triangles; after this it has the
 * source's shared vertices again (4,170: split only where normals or texture coordinates differ). Nothing a writer
 * writes changes but the vertex numbering and the index buffers. Meshes read from a glTF by skinkit's reader (the
 * file's own vertex list) are left as they are. On a scene read from a file that has changed anything, the
 * in-place .fbx / .dae edits no longer apply: those outputs are written whole. Skins and arrays taken from the scene
 * before (sk_scene_mesh_skin, vertex counts) are stale after a mesh was merged. *out_merged (optional): the
 * vertices removed. SK_ERR_INVALID_ARGUMENT for a NULL scene, SK_ERR_OUT_OF_MEMORY (meshes before the one named
 * merged, the rest unchanged). */
SK_API sk_result sk_scene_weld(sk_scene* scene, uint64_t* out_merged, sk_error* err);
/* ABI 1.14: replaces a mesh's blend shapes with count new ones (0 removes them; at most 4096): names (NULL, or a NULL
 * or empty entry: "shape<t>"), default weights (NULL: 0), each shape's whole positions (3 * vertex_count floats per
 * shape, shape after shape, in the mesh's space like its positions: not offsets) and optionally its normals (the
 * same layout, or NULL); all copied and finite. glTF writes them as morph targets (offsets from the mesh, with
 * targetNames); binary FBX as shape keys (BlendShape deformers, DeformPercent the default weight); Collada and ASCII
 * FBX cannot (the writer's note says so). On a scene read from a file the
 * in-place edits then no longer apply: the scene is written whole. SK_ERR_OUT_OF_RANGE for a mesh out of range or
 * too many shapes, SK_ERR_INVALID_ARGUMENT for missing or non-finite positions; nothing changes on failure. */
SK_API sk_result sk_scene_mesh_set_morphs(sk_scene* scene, uint32_t mesh, uint32_t count, const char* const* names,
                                          const float* weights, const float* positions, const float* normals,
                                          sk_error* err);
SK_API size_t sk_scene_mesh_tangents(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity);
SK_API size_t sk_scene_mesh_uv0(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity);
/* ABI 1.9: the second texture coordinate set (2 per vertex, as uv0) and vertex colour set 0 (4 per vertex, linear
 * RGBA: glTF's COLOR_0 as stored; FBX, Collada and the other Assimp formats' sRGB values converted). */
SK_API size_t sk_scene_mesh_uv1(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity);
SK_API size_t sk_scene_mesh_colors(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity);
/* ABI 1.9: the name of the node (object) that holds the mesh in the source file, NULL when unnamed or unknown (an
 * FBX object "Leg" whose mesh data is "Cylinder": the mesh is "Cylinder", its node "Leg"; Assimp splits an object
 * of several materials into meshes of one node). Writers name the mesh's node after it. Valid while the scene is. */
SK_API const char* sk_scene_mesh_node_name(const sk_scene* scene, uint32_t mesh);
/* ABI 1.9: the parts of a mesh - glTF primitives that draw one vertex set with their own indices and material (a
 * three.js multi-material mesh), read as one mesh - 1 for a mesh of one part, 0 for an index out of range. */
SK_API uint32_t sk_scene_mesh_part_count(const sk_scene* scene, uint32_t mesh);
/* ABI 1.16: part `part` of a mesh (0 .. sk_scene_mesh_part_count - 1; part 0 of a one-part mesh is the whole mesh):
 * its range of the mesh's indices (sk_scene_mesh_indices: first index and count, whole triangles) and its material
 * (-1: none; as sk_scene_mesh_material). Outputs are optional. SK_ERR_INVALID_ARGUMENT for a NULL scene,
 * SK_ERR_OUT_OF_RANGE for a mesh or part past the last. */
SK_API sk_result sk_scene_mesh_part(const sk_scene* scene, uint32_t mesh, uint32_t part, uint64_t* out_first_index,
                                    uint64_t* out_index_count, int32_t* out_material, sk_error* err);
/* ABI 1.10: the joint a mesh is rigidly attached to - a mesh without a skin in its file, under a joint's node (a sword
 * in a hand, a gauntlet), which the reader bound with weight 1 to that joint - while its skin is still that one;
 * -1 otherwise (a skinned mesh, a free one, one whose skin sk_scene_mesh_set_skin or a bind replaced, an index out
 * of range). `skinkit bind` leaves such meshes as they are unless --meshes names them. */
SK_API int32_t sk_scene_mesh_rigid_joint(const sk_scene* scene, uint32_t mesh);
/* ABI 1.16: for a mesh without a skin that is no rigid attachment, the nearest joint its node hangs below in the file
 * (a prop parented to the armature object, which is a joint only as the bones' ancestor; an importer's scene root);
 * -1 otherwise (no such joint, a skinned mesh, a scene built with sk_scene_create, an index out of range). */
SK_API int32_t sk_scene_mesh_parent_joint(const sk_scene* scene, uint32_t mesh);
/* ABI 1.25: makes a mesh without a skin hang below joint (-1: none) in what the writers write - a prop parented to
 * the armature object, whose clips it then follows - its vertices staying where they are (the scene's space, at
 * rest). sk_scene_mesh_parent_joint reads it back. SK_ERR_INVALID_ARGUMENT for a skinned mesh (it follows its
 * joints) or a NULL scene, SK_ERR_OUT_OF_RANGE for a mesh or joint past the last. A glTF source edited in place
 * (sk_scene_save to .glb / .gltf of a scene read from glTF) keeps its own node tree. */
SK_API sk_result sk_scene_mesh_set_parent_joint(sk_scene* scene, uint32_t mesh, int32_t joint, sk_error* err);
/* ABI 1.21: for a skinned mesh read from an FBX file, the world transform of its node in the file (column-major, in
 * the file's own frame like sk_skeleton_get_rest_world), the space its inverse binds are relative to: out x
 * inverse_bind(j)^-1 is the bind pose the file declares for joint j (its cluster's TransformLink). It tells the bind
 * pose apart from the file's rest pose, which Blender's FBX exporter writes as the pose of the frame the scene was
 * in. Since 1.21 too (library 1.21.1), for a skinned mesh of a glTF file whose node transforms are not its bind pose
 * up to one transform and whose skin names its "skeleton" node (or whose joints hang from the scene root): the world
 * transform of the skin's armature node (that node, or its parent when it is a joint), which Blender's glTF importer
 * takes the inverse binds to be relative to. Since 1.27.2, for a skinned mesh of a
 * Collada file whose node transforms are not its bind pose up to one transform: the root node's transform (the
 * document's up axis) times the skin's bind shape matrix, the space of Assimp's offsets. SK_ERR_NOT_FOUND when the
 * reader noted none (other formats and cases, an unskinned mesh, a scene built with sk_scene_create) or
 * sk_scene_mesh_set_skin gave the mesh other inverse binds, SK_ERR_OUT_OF_RANGE for a mesh past the last,
 * SK_ERR_INVALID_ARGUMENT for a NULL scene or out. */
SK_API sk_result sk_scene_mesh_bind_world(const sk_scene* scene, uint32_t mesh, float out[16], sk_error* err);
/* ABI 1.27: the node transform N of a mesh without a skin in its file, or of a rigid attachment whose skin is still
 * the reader's one-joint skin (column-major, in the scene's space like sk_scene_mesh_positions): the transform the
 * reader placed its vertices with - its node's world transform, into the bind pose's space for a rigid attachment -
 * so inv(N) x each vertex is the vertex in its node's own space and N puts it back: the node's origin and axes, which
 * the writers give the mesh's node (since session 74) and an importer gives its object (Blender's importers put an
 * object's origin there). The identity when there is none: a skinned mesh, a mesh whose skin sk_scene_mesh_set_skin
 * or a bind replaced, a scene built with sk_scene_create, a node at the identity, or one whose N cannot be undone
 * (singular, not finite, a mirror: its vertices stay as stored). out_joint (optional): the joint of a rigid
 * attachment (sk_scene_mesh_rigid_joint), whose node is that joint's child in the file - a sword in a hand, which
 * writers and importers make a child of that bone without skin - else -1. SK_ERR_INVALID_ARGUMENT for a NULL scene
 * or out, SK_ERR_OUT_OF_RANGE for a mesh past the last (outputs untouched on failure). */
SK_API sk_result sk_scene_mesh_node_transform(const sk_scene* scene, uint32_t mesh, float out[16], int32_t* out_joint,
                                              sk_error* err);
/* ABI 1.15: for a scene read by skinkit's glTF reader, the index in "scenes" of the scene whose node tree holds the
 * mesh's node (the default scene when it does, else the first other one); -1 when no scene lists it, for other
 * formats, scenes built with sk_scene_create and an index out of range. A skin's joints must be in the scene of the
 * node that uses it (glTF: NODE_SKIN_NO_SCENE), so `skinkit bind` leaves a mesh of another scene as it is. */
SK_API int32_t sk_scene_mesh_gltf_scene(const sk_scene* scene, uint32_t mesh);
SK_API size_t sk_scene_mesh_indices(const sk_scene* scene, uint32_t mesh, uint32_t* out, size_t capacity);

/* The scene skeleton (borrowed), NULL when the file has no bones. */
SK_API const sk_skeleton* sk_scene_skeleton(const sk_scene* scene);
/* Skin of a mesh (borrowed, editable in place), NULL when the mesh has no bones. Joint indices are skeleton
 * joints; the skin's joint_count is the skeleton's. */
SK_API sk_skin* sk_scene_mesh_skin(sk_scene* scene, uint32_t mesh);
/* ABI 1.9: gives a mesh (one without bones, or one whose skin is replaced) a copy of skin - the mesh's vertex count
 * over the skeleton's joints - with inverse_bind (16 * joint_count; NULL = the skeleton's inverse binds). The mesh
 * stays where it is in the scene, with its materials, node and the scene's clips: what `skinkit bind` does for a
 * mesh that had no skin. SK_ERR_NO_SKIN on a scene without skeleton, SK_ERR_INVALID_ARGUMENT for counts that do not
 * match or inverse binds that are not finite, SK_ERR_OUT_OF_RANGE for a mesh index past the end. */
SK_API sk_result sk_scene_mesh_set_skin(sk_scene* scene, uint32_t mesh, const sk_skin* skin, const float* inverse_bind,
                                        sk_error* err);
/* Gives the scene a skeleton with more joints - sk_bone_links' linked skeleton: every joint of the scene's skeleton by
 * name, plus new ones - keeping meshes, materials, blend shapes and clips: skins and clip channels renumbered, new
 * joints without weight or keys, a joint whose parent changed (a linked bone's children under its last link) with its
 * keys re-expressed under the new parent so that every clip poses the same world transforms. Then give each mesh its
 * linked skin with sk_scene_mesh_set_skin. The skeleton is copied; sk_scene_skeleton returns the new one (earlier
 * pointers to the old one are invalid). SK_ERR_INVALID_ARGUMENT when a joint is missing, SK_ERR_NO_SKIN without
 * skeleton; the scene is unchanged on failure. */
SK_API sk_result sk_scene_relink(sk_scene* scene, const sk_skeleton* skeleton, sk_error* err);
/* Inverse bind matrices of a skinned mesh, 16 * joint_count floats, column-major (the file's aiBone offset
 * matrices, transposed from Assimp's row-major; joints the mesh does not bind get the skeleton's inverse bind).
 * out_bound (joint_count bytes, optional): 1 where the mesh binds the joint. Either output may be NULL (both NULL
 * only asks whether the mesh is skinned). SK_ERR_NO_SKIN if unskinned, SK_ERR_OUT_OF_RANGE for a bad mesh index. */
SK_API sk_result sk_scene_mesh_inverse_binds(const sk_scene* scene, uint32_t mesh, float* out_matrices,
                                            uint8_t* out_bound, sk_error* err);
/* Deform joints (ABI 1.5): the joints that should receive weights when the scene is bound (sk_bind's deform).
 *  1. Some skin lists a joint (SK_DEFORM_RULE_SKINS): the joints some mesh's skin lists (the file's bones:
 *     sk_scene_mesh_inverse_binds' out_bound, over all meshes), except the wrappers of rule 2 that no vertex weights
 *     (writers that list every skeleton node in each skin list the scene root and armature object too).
 *  2. No skin lists one (SK_DEFORM_RULE_HIERARCHY; a skeleton without skins: an armature beside unskinned meshes, a
 *     scene built in memory): the bone hierarchy below, never including, the wrappers, and without mesh nodes.
 *     Wrappers are the joints at the top of the tree (every ancestor a wrapper) named as an importer's synthetic or
 *     scene root - RootNode, ROOT, Scene, Z_UP, Y_UP, <MD5_Root>, <MD5_Mesh>, <MD5_Hierarchy> - or as an armature
 *     object - "Armature" or "Rig" alone or followed by a non-letter (Armature.001), or any name ending in "_rig" -
 *     compared case-insensitively, plus the skeleton's only root when one of its children is such a wrapper (the scene
 *     root holding the armature object). Mesh nodes: joints whose node instances a mesh (glTF read by skinkit).
 *  3. When rule 2 leaves no joint, every joint (SK_DEFORM_RULE_ALL). Without a skeleton: count 0, SK_DEFORM_RULE_NONE.
 *  Rules 1 and 2 in a Rigify rig (joints named DEF-* beside ORG-* or MCH-* ones): only its DEF-* joints (when some
 *  is left), the rule number unchanged.
 * out_mask: mask_count >= joint_count bytes, set to 1 / 0 (SK_ERR_INVALID_ARGUMENT when NULL with joints, or short).
 * out_count (deform joints) and out_rule (sk_deform_rule) are optional. */
typedef enum sk_deform_rule {
  SK_DEFORM_RULE_NONE = 0,
  SK_DEFORM_RULE_SKINS = 1,
  SK_DEFORM_RULE_HIERARCHY = 2,
  SK_DEFORM_RULE_ALL = 3,
  SK_DEFORM_RULE_MAX_ENUM = 0x7fffffff
} sk_deform_rule;
SK_API sk_result sk_scene_deform_joints(const sk_scene* scene, uint8_t* out_mask, uint32_t mask_count,
                                        uint32_t* out_count, uint32_t* out_rule, sk_error* err);

SK_API uint32_t sk_scene_animation_count(const sk_scene* scene);
SK_API const char* sk_scene_animation_name(const sk_scene* scene, uint32_t anim);
/* Duration in seconds (0 for an out-of-range index). */
SK_API double sk_scene_animation_duration(const sk_scene* scene, uint32_t anim);
/* ABI 1.19: which joints animation anim keys (has a channel for, whether or not the keys move it): out_mask[j] = 1
 * for those, 0 for the others (mask_count >= the skeleton's joint count); *out_count (optional) how many.
 * SK_ERR_INVALID_ARGUMENT for a NULL scene or mask, or a mask too short; SK_ERR_OUT_OF_RANGE for anim. */
SK_API sk_result sk_scene_animation_keyed_joints(const sk_scene* scene, uint32_t anim, uint8_t* out_mask,
                                                 uint32_t mask_count, uint32_t* out_count, sk_error* err);
/* TRS pose (10 * joint_count floats) of an animation at time seconds (clamped to the keys). As the file's keys
 * interpolate: linear for translation/scale and slerp for rotation, glTF's STEP and CUBICSPLINE as the specification
 * says; joints without a channel keep their rest TRS. */
SK_API sk_result sk_scene_sample_pose(const sk_scene* scene, uint32_t anim, double time, float* out_trs,
                                      sk_error* err);

typedef struct sk_save_options {
  uint32_t size;           /* sizeof(sk_save_options) */
  uint32_t overwrite;      /* 1 = replace an existing file; otherwise SK_ERR_EXISTS. The file the scene was read
                              from is never replaced: SK_ERR_EXISTS even with 1 (write elsewhere, then rename). */
  const char* format;      /* NULL = from the extension: .glb, .gltf, .dae, .fbx; "fbxa" = ASCII FBX */
  uint32_t normalize;      /* 1 = renormalize each vertex's weights to sum 1 */
  uint32_t max_influences; /* keep the N largest (sorted, renormalized); 0 = format default (glTF 4, or what the
                              source primitive held when a glTF is written as an edit of its source, 4 per JOINTS_n
                              set; others all); glTF writes past 4 in JOINTS_1/WEIGHTS_1... */
  float prune;             /* drop weights below this first; 0 = keep */
  uint32_t as_is;          /* 1 = write weights unchanged (glTF: every influence; with max_influences: refused) */
  uint32_t weights_type;   /* glTF weight components, sk_weights_type: 0 = as the source glTF has them (float
                              for other sources), or float / normalized u8 / normalized u16 (integer sums exact:
                              255 / 65535 per vertex). ABI 1.3; a 1.2-sized struct (without it) is accepted. */
  char* notes;             /* ABI 1.15: with notes_size > 0, every note of a successful save - what the output could
                              not keep ("; "-separated, NUL-terminated, cut at notes_size) - while err->message gets
                              those that fit its SK_ERROR_MESSAGE_SIZE bytes, whole, then "; ... (N more notes)".
                              NULL / 0: err->message only. A 1.3-sized struct (without these) is accepted. */
  size_t notes_size;
  /* ABI 1.22 (a 1.15-sized struct, without these, is accepted): */
  uint32_t isolate;      /* 1 = a .fbx or .dae written anew goes through Assimp's writer in a child process (POSIX
                            fork), so that its crash or hang becomes SK_ERR_IO naming it instead of killing the
                            caller. Every save also refuses (SK_ERR_UNSUPPORTED) a scene whose nodes lie more than
                            1,024 levels deep for those writers, which recurse per level. */
  float timeout_seconds; /* with isolate: give up on the writer after this long (0 = no limit) */
} sk_save_options;

/* sk_save_options.weights_type */
typedef enum sk_weights_type {
  SK_WEIGHTS_SOURCE = 0,
  SK_WEIGHTS_FLOAT = 1,
  SK_WEIGHTS_U8 = 2,
  SK_WEIGHTS_U16 = 3
} sk_weights_type;

/* Writes the scene. glTF/GLB: skinkit's own writer (every vertex in order, one skin per skinned mesh with its own
 * inverse binds, every clip under its own name; default the 4 largest influences, renormalized (an edit of a glTF
 * source: as many as each primitive held, 4 per JOINTS_n set; vertices with more are counted in a note; a vertex
 * with no more and weights that sum to 1 within 2e-7 each keeps them bit for bit, and vertices renormalized
 * because their sums were off 1 are counted in a note too); more in
 * JOINTS_1/WEIGHTS_1... when asked; a .gltf writes its .bin beside it, replaced only with overwrite). A skinned
 * mesh may be written in another space T (vertices T v, inverse binds IB T^-1, skinned positions unchanged) so
 * that the file's rest pose is its bind pose and Blender places it right. Collada and FBX: Assimp's exporters,
 * with fixes (binary FBX records repaired, Collada clips on one timeline, dot-free Collada ids); every writer writes
 * the scene's materials and images. glTF -> glTF: a scene read from a .glb/.gltf by skinkit's glTF reader is written as
 * an edit of that file (to .glb or .gltf): only JOINTS_n/WEIGHTS_n change, where the influences do (in place when their
 * layout allows, else new accessors appended; a .gltf gets its new data in "<stem>_skin.bin", a .glb written as .gltf
 * its BIN chunk as "<stem>.bin", a .gltf written as .glb its buffers and image files packed into the BIN chunk, and
 * copies of the files it still names when written to another folder);
 * materials, textures, extensions, cameras, morph targets, node order and names stay byte for byte. Likewise a
 * scene read from a binary FBX and written as binary .fbx is an edit of that file: only its clusters' Indexes /
 * Weights change (a cluster added for a bone that gains weight, a Skin for a mesh that had none), polygons, control
 * points, blend shapes and every other record stay; and a scene read from a Collada file and written as .dae: only
 * its skin controllers' <vcount> / <v> change (new weights appended to the weight array), geometry, <extra>s and
 * every other byte stay. When the scene no longer maps onto its source (a joint the primitive's skin does not list;
 * FBX and Collada: moved vertices, a changed skeleton, clip or material, a source changed on disk; FBX: a mesh
 * parented to a bone given a skin; Collada: a joint the controller does not list, a mesh without a controller given
 * a skin), it
 * is written whole as above and, on SK_OK, err->message (code SK_OK) says why. weights_type u8/u16 apply to glTF
 * edits. */
SK_API sk_result sk_scene_save(const sk_scene* scene, const char* path, const sk_save_options* options,
                               sk_error* err);

/* Replaces the file at path with size bytes of data (size 0: an empty file) atomically: the bytes go to a new
 * temporary file in path's folder, are flushed to disk (fsync), and the temporary file is renamed over path (a
 * symbolic link at path is replaced, not followed); the folder is flushed too. On any failure (disk full, file
 * size limit, no permission, path is a folder) the temporary file is removed, the previous file at path is left
 * byte-identical and SK_ERR_IO names the reason. A killed writer leaves the old file and at most a stray
 * ".NAME.*.tmp" file beside it (none when its SIGINT / SIGTERM handler calls sk_remove_temporary_files). Where
 * path is no regular file - a device such as /dev/null, a FIFO or socket, /dev/stdout on a terminal or pipe, bash's
 * /dev/fd/N - or is this process's standard output or error reached through a link (/dev/stdout redirected to a
 * file), the bytes are written into it instead (since ABI 1.24; it used to be replaced by a regular file).
 * sk_scene_save and the .skf writers of the CLI replace files the same way.
 * SK_ERR_INVALID_ARGUMENT: path NULL, or data NULL with size > 0. */
SK_API sk_result sk_write_file_atomic(const char* path, const void* data, size_t size, sk_error* err);
/* ABI 1.24. Removes the temporary files of the writes in progress in this process (sk_write_file_atomic,
 * sk_scene_save, the .skf writers): for a handler of SIGINT / SIGTERM / SIGHUP that then ends the process, so that
 * an interrupted write leaves the previous file and nothing beside it. Async-signal-safe; a write it interrupts
 * fails (its temporary file is gone) and must not be retried in the same process. */
SK_API void sk_remove_temporary_files(void);

/* Per-mesh validation report: the skin report plus bind-matrix checks. */
typedef struct sk_mesh_report {
  uint32_t size;            /* sizeof(sk_mesh_report), set by the caller */
  uint32_t skinned;         /* 0: mesh has no skin (nothing else filled) */
  sk_skin_report skin;      /* skin.size must be set by the caller too (or left 0: filled for you) */
  uint64_t singular_binds;  /* bound joints whose inverse bind is singular or not finite */
  uint64_t nonrigid_binds;  /* bound joints whose inverse bind has shear, non-uniform scale or a mirror (informational),
                               or is not affine (a finding; glTF: bottom row not exactly 0 0 0 1) */
  uint64_t unused_bones;    /* bones of the mesh without any non-zero weight (informational, not a finding) */
  uint64_t dropped_weights; /* file entries naming a vertex past the end, or (.iqm) a missing joint */
  uint32_t findings;        /* 1 if the skin, the binds or the skin's structure have findings */
  uint32_t skin_structure;  /* glTF (ABI 1.8; 0 before): SK_SKIN_* bits, the Khronos validator's skin errors */
} sk_mesh_report;

/* sk_mesh_report.skin_structure bits (glTF files; the specification's joint-hierarchy rules):
 * SK_SKIN_NO_COMMON_ROOT    no node is an ancestor of (or one of) every joint of the skin (SKIN_NO_COMMON_ROOT)
 * SK_SKIN_SKELETON_INVALID  skin.skeleton is not the joints' closest common root or one of its ancestors
 *                           (SKIN_SKELETON_INVALID)
 * SK_SKIN_DUPLICATE_JOINT   skin.joints lists a node twice (DUPLICATE_ELEMENTS)
 * SK_SKIN_INFLUENCE_FORMAT  (library 1.21.2) a JOINTS_n / WEIGHTS_n accessor of a form glTF does not
 *                           allow: joints must be unsigned byte / short, weights float or normalized unsigned byte
 *                           / short (MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT). Integer weights without
 *                           "normalized" are read as normalized. Since library 1.25, also a set past a missing
 *                           one (JOINTS_2 without JOINTS_1: MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY), whose
 *                           influences are not read. */
#define SK_SKIN_NO_COMMON_ROOT 1u
#define SK_SKIN_SKELETON_INVALID 2u
#define SK_SKIN_DUPLICATE_JOINT 4u
#define SK_SKIN_INFLUENCE_FORMAT 8u
/* SK_SKIN_DRACO_COUNT (library 1.26.1) the mesh's KHR_draco_mesh_compression primitive declares another vertex count
 *                     than its Draco data decodes to (the extension requires them to match; FBX2glTF 0.9.7 declares
 *                     the count before compression). The scene holds the decoded vertices, as glTF-Transform and
 *                     three.js read them; the Khronos validator does not decode Draco data and cannot report it. */
#define SK_SKIN_DRACO_COUNT 16u
/* SK_SKIN_JSON_UTF8 (library 1.26.2) the glTF document's JSON holds bytes that are not UTF-8 (the specification
 *                   requires UTF-8; the Khronos validator refuses such a file, INVALID_JSON). Set on every mesh of the
 *                   file; the reader takes the bytes as they are and the in-place writer keeps them. */
#define SK_SKIN_JSON_UTF8 32u

/* Validates every mesh: reports holds report_count entries (>= mesh count; each .size set). Unskinned meshes
 * get skinned = 0. SK_ERR_NO_SKIN if no mesh is skinned; out_findings (optional) = 1 if any mesh has findings. */
SK_API sk_result sk_scene_validate(const sk_scene* scene, const sk_validate_options* options,
                                   sk_mesh_report* reports, size_t report_count, uint32_t* out_findings,
                                   sk_error* err);

/* Building a scene in memory (to save generated or edited data through sk_scene_save, or to pack it). The
 * skeleton is copied (NULL: a scene without bones). */
SK_API sk_result sk_scene_create(const sk_skeleton* skeleton, sk_scene** out, sk_error* err);

typedef struct sk_mesh_desc {
  uint32_t size;              /* sizeof(sk_mesh_desc) */
  uint32_t reserved;
  const char* name;           /* NULL or "" = "mesh<i>" */
  size_t vertex_count;
  const float* positions;     /* 3 * vertex_count, finite, required */
  const float* normals;       /* optional, 3 * vertex_count */
  const float* tangents;      /* optional, 4 * vertex_count (x, y, z, bitangent sign) */
  const float* uv0;           /* optional, 2 * vertex_count */
  const uint32_t* indices;    /* index_count indices, triangles (index_count % 3 == 0), each < vertex_count */
  size_t index_count;
  const sk_skin* skin;        /* optional, copied: vertex_count vertices over the scene skeleton's joints */
  const float* inverse_bind;  /* optional, 16 * joint_count; NULL = the skeleton's inverse binds */
  /* ABI 1.9 (a caller that sets size to the 1.8 struct, which ends above, gives none of these) */
  const float* uv1;           /* optional, 2 * vertex_count: the second texture coordinate set */
  const float* colors;        /* optional, 4 * vertex_count: vertex colour set 0, linear RGBA */
  const char* node_name;      /* optional: the object (node) the mesh belongs to; meshes of one node name are written
                                 under one node where the format allows (sk_scene_mesh_node_name) */
} sk_mesh_desc;

/* Appends a mesh (all data copied); out_index (optional) receives its index. SK_ERR_NO_SKIN for a skin on a
 * scene without skeleton, SK_ERR_OUT_OF_RANGE for an index past the vertices. The mesh has no material until
 * sk_scene_mesh_set_material gives it one. */
SK_API sk_result sk_scene_add_mesh(sk_scene* scene, const sk_mesh_desc* mesh, uint32_t* out_index, sk_error* err);

/* ABI 1.11: materials for a scene built with sk_scene_add_mesh (or added to a loaded one); every writer writes them
 * (glTF's metallic-roughness material, with the images embedded in a .glb, as bufferViews or files beside a .gltf;
 * Collada and FBX through Assimp with the images written beside the file). Once one of these is called on a scene
 * read from a file, its in-place edits no longer apply: the scene is written whole. */
/* Appends an image (bytes copied): PNG, JPEG, WebP or KTX2, told by their magic bytes; anything else is
 * SK_ERR_UNSUPPORTED, more than 64 MiB SK_ERR_OUT_OF_RANGE. name: its file name where an output writes images
 * beside the model (NULL or "" = "image<i>"). */
SK_API sk_result sk_scene_add_image(sk_scene* scene, const char* name, const void* data, size_t size,
                                    uint32_t* out_index, sk_error* err);
enum { SK_ALPHA_OPAQUE = 0, SK_ALPHA_MASK = 1, SK_ALPHA_BLEND = 2 };
typedef struct sk_material_desc {
  uint32_t size;             /* sizeof(sk_material_desc) */
  uint32_t alpha_mode;       /* SK_ALPHA_* */
  const char* name;          /* NULL or "" = "material<i>" */
  float base_color[4];       /* linear RGBA; multiplies the base colour image */
  float metallic, roughness; /* 0..1 */
  float emissive[3];         /* linear RGB, 0..1 */
  float alpha_cutoff;        /* SK_ALPHA_MASK's threshold */
  uint32_t double_sided;     /* 0 or 1 */
  float normal_scale;        /* strength of the normal image (1 = as stored) */
  int32_t base_color_image;  /* image indices (sk_scene_add_image), -1 = none; each on texture coordinate set 0 */
  int32_t metallic_roughness_image;
  int32_t normal_image;
  int32_t emissive_image;
  int32_t occlusion_image;
} sk_material_desc;
/* Appends a material (copied). SK_ERR_OUT_OF_RANGE for an image index past the scene's images or below -1,
 * SK_ERR_INVALID_ARGUMENT for a non-finite factor, an unknown alpha mode or double_sided other than 0 / 1. */
SK_API sk_result sk_scene_add_material(sk_scene* scene, const sk_material_desc* material, uint32_t* out_index,
                                       sk_error* err);
/* The material of a mesh (and of each of its parts): an index from sk_scene_add_material or of the file's own
 * materials, UINT32_MAX = none. */
SK_API sk_result sk_scene_mesh_set_material(sk_scene* scene, uint32_t mesh, uint32_t material, sk_error* err);
/* Materials and images the scene holds (the file's, then those added). */
SK_API uint32_t sk_scene_material_count(const sk_scene* scene);
SK_API uint32_t sk_scene_image_count(const sk_scene* scene);

/* ABI 1.12: what else a loaded scene holds, for listings (`skinkit info`). A material's name (NULL: out of range) and
 * a mesh's material (-1: none). */
SK_API const char* sk_scene_material_name(const sk_scene* scene, uint32_t material);
SK_API int32_t sk_scene_mesh_material(const sk_scene* scene, uint32_t mesh);
/* The file's cameras, punctual lights and empty nodes (a node that is no joint and has no mesh, nor any at or below
 * it): what the glTF writer writes as nodes (cameras, KHR_lights_punctual) and the other writers name as not
 * written. Listed when the scene was loaded, parents first; none for a scene made with sk_scene_create. kind:
 * SK_OBJECT_* (-1: out of range); parent: the name of the object or joint it hangs from, NULL at the top level. */
typedef enum sk_object_kind { SK_OBJECT_EMPTY = 0, SK_OBJECT_CAMERA = 1, SK_OBJECT_LIGHT = 2 } sk_object_kind;
SK_API uint32_t sk_scene_object_count(const sk_scene* scene);
SK_API const char* sk_scene_object_name(const sk_scene* scene, uint32_t object);
SK_API int32_t sk_scene_object_kind(const sk_scene* scene, uint32_t object);
SK_API const char* sk_scene_object_parent(const sk_scene* scene, uint32_t object);
/* What of the source could not be read (materials, images, blend shapes, lights of kinds glTF lacks): one line of
 * "; "-separated notes, or NULL. */
SK_API const char* sk_scene_note(const sk_scene* scene);

/* ABI 1.13: reading back what a loaded scene holds, to rebuild it elsewhere (the Blender addon's importer). Strings
 * and bytes are the scene's: valid until it is destroyed. */

/* An image (sk_scene_image_count): the bytes when the model embeds them or they were found beside it, else only
 * the path the model names. */
typedef struct sk_image_info {
  uint32_t size;     /* sizeof(sk_image_info) */
  uint32_t embedded; /* 1: the bytes came from inside the model file */
  const char* name;  /* never NULL */
  const char* uri;   /* the path as the model names it (an embedded image may have one), NULL: none */
  const char* path;  /* the file the bytes were read from, NULL: embedded or not found */
  const void* data;  /* NULL when neither embedded nor found (at most 64 MiB are read) */
  size_t data_size;
  const char* mime; /* "image/png", "image/jpeg", "image/webp", "image/ktx2", or "" when unknown */
} sk_image_info;
SK_API sk_result sk_scene_image_info(const sk_scene* scene, uint32_t image, sk_image_info* out, sk_error* err);
/* A material (sk_scene_material_count) as glTF's metallic-roughness model, into the desc sk_scene_add_material
 * takes (out->size set by the caller): name borrowed, image indices into the scene's images, -1: none. */
SK_API sk_result sk_scene_material_info(const sk_scene* scene, uint32_t material, sk_material_desc* out, sk_error* err);

/* A camera, light or empty node of sk_scene_object_count, whole. */
typedef enum sk_light_type { SK_LIGHT_DIRECTIONAL = 0, SK_LIGHT_POINT = 1, SK_LIGHT_SPOT = 2 } sk_light_type;
typedef struct sk_object_info {
  uint32_t size; /* sizeof(sk_object_info) */
  int32_t kind;  /* SK_OBJECT_* */
  const char* name;
  int32_t parent_object;    /* the object it hangs from (an index of this listing, lower: parents come first), -1 */
  const char* parent_joint; /* else the skeleton joint it hangs from (sk_skeleton_joint_name), NULL: none */
  const char* parent_mesh;  /* else the node drawing a mesh it hangs from (sk_scene_mesh_node_name), NULL: none */
  float world[16];          /* column-major, at rest, in the scene's frame (sk_scene_frame); cameras and lights look
                               down their -Z with +Y up, as glTF's */
  float parent_world[16];   /* the rest world of the file node it hangs from (identity at the top level): its keys
                               (sk_scene_object_sample) are relative to it; ignored by sk_scene_add_object */
  /* SK_OBJECT_CAMERA */
  uint32_t orthographic; /* 1: xmag and ymag instead of yfov */
  float yfov;            /* vertical field of view, radians */
  float aspect;          /* width / height, 0: not given */
  float xmag, ymag;      /* half width and height, scene units */
  float znear, zfar;     /* clip distances, scene units; zfar 0: none given (infinite) */
  /* SK_OBJECT_LIGHT */
  int32_t light_type;           /* SK_LIGHT_* */
  float color[3];               /* linear RGB */
  float intensity;              /* KHR_lights_punctual's units: candela (point, spot), lux (directional); from Blender's
                                   W and W/m^2 by 683 lm/W (over 4 pi sr for point and spot), as Blender's exporter */
  float inner_cone, outer_cone; /* spot: half-angles, radians */
} sk_object_info;
SK_API sk_result sk_scene_object_info(const sk_scene* scene, uint32_t object, sk_object_info* out, sk_error* err);
/* An object's keys in a clip (a camera on a dolly, a keyed locator: read from FBX and Collada files through Assimp;
 * none for a scene read from a glTF document): the times, as sk_scene_animation_key_times gives a clip's (0 when the
 * clip does not key it), and its transform at a time relative to parent_world (column-major; its look included, as
 * world is), the rest one when the clip does not key it. So the object's world at time t is its file parent's world
 * then times this: parent_world itself for a parent that does not move. SK_ERR_OUT_OF_RANGE for anim or object. */
SK_API sk_result sk_scene_object_key_times(const sk_scene* scene, uint32_t anim, uint32_t object, double* out,
                                           size_t capacity, size_t* out_count, sk_error* err);
SK_API sk_result sk_scene_object_sample(const sk_scene* scene, uint32_t anim, uint32_t object, double time,
                                        float out_matrix[16], sk_error* err);
/* Appends a camera, light or empty to a scene made with sk_scene_create or read through Assimp (not one read from a
 * glTF document, SK_ERR_UNSUPPORTED: its nodes are kept as the document has them), as sk_scene_object_info gives
 * them: name (NULL or "" = "object<i>"), kind, parent_object (an object added before, -1) or parent_joint (a joint of
 * the scene's skeleton by name) or parent_mesh (a mesh's node name), world (finite, in the scene's frame), the lens
 * (perspective: 0 < yfov < pi; orthographic: xmag, ymag > 0; none negative) or light (type, colour and intensity
 * >= 0, a spot's 0 <= inner <= outer <= pi/2). The glTF writer writes them (nodes, cameras, KHR_lights_punctual),
 * the others name them as not written. SK_ERR_INVALID_ARGUMENT, SK_ERR_OUT_OF_RANGE (parent_object). */
SK_API sk_result sk_scene_add_object(sk_scene* scene, const sk_object_info* object, uint32_t* out_index, sk_error* err);

/* Appends a clip to a scene made with sk_scene_create or read through Assimp (SK_ERR_UNSUPPORTED for one read from a
 * glTF document), every writer writes it: key_count keys at ascending times (seconds, finite, the first >= 0), and
 * for each key the local TRS pose of every joint as sk_scene_sample_pose gives it (10 floats a joint: translation,
 * rotation x y z w, scale; key k's at trs + k * joint_count * 10), in the scene's frame; keyed: one byte a joint, 0 =
 * no channel (it keeps its rest pose), NULL = every joint keyed. Rotations are normalized. name NULL or "" =
 * "anim<i>". SK_ERR_NO_SKIN without skeleton; SK_ERR_INVALID_ARGUMENT for no keys, times out of order, non-finite
 * values or a zero rotation. */
SK_API sk_result sk_scene_add_animation(sk_scene* scene, const char* name, const double* times, size_t key_count,
                                        const float* trs, const uint8_t* keyed, uint32_t* out_index, sk_error* err);
/* The times (seconds, ascending) at which animation anim has a joint key, keys of different joints less than a
 * microsecond apart once: *out_count of them, the first `capacity` written to out (NULL with 0 to ask the count). */
SK_API sk_result sk_scene_animation_key_times(const sk_scene* scene, uint32_t anim, double* out, size_t capacity,
                                              size_t* out_count, sk_error* err);

/* Assimp's importable extensions as one string "*.3ds;*.obj;..." (static, never NULL) and a test for one
 * extension (with or without the dot, case-insensitive). Ogre ".skeleton" files are reported as not importable
 * on their own (they are read beside their .mesh). */
SK_API const char* sk_import_extensions(void);
SK_API int sk_import_extension_supported(const char* extension);
/* Whether sk_scene_save writes files of this extension (with or without the dot, case-insensitive): glb, gltf, fbx,
 * dae, and vrm (a VRM avatar: written only as the in-place edit of a scene read from one). ABI 1.26. */
SK_API int sk_export_extension_supported(const char* extension);

/* SK_SECTION io (scene import/export): add declarations above this line */

/* Weight editing. Every operation edits the skin's CSR weights in place and:
 *  - touches only the vertices selected by scope.vertex_mask (NULL = all) and never changes the weight of a joint
 *    marked in scope.locked_joints (NULL = none);
 *  - treats an entry as invalid when its weight is NaN/Inf or negative or its joint is >= joint_count; a
 *    selected vertex holding one is reported (SK_WFLAG_FAILED | SK_WFLAG_INVALID) and left unchanged unless the
 *    operation says otherwise (sk_weights_normalize with SK_NORMALIZE_DROP_INVALID);
 *  - renormalizes with one rule: with L the sum of a vertex's locked weights and U the sum of its unlocked ones,
 *    the unlocked weights are scaled by (1 - L) / U. L > 1 + tolerance is SK_WFLAG_LOCKED, U = 0 with L != 1 is
 *    SK_WFLAG_UNWEIGHTED: such a vertex is counted in vertices_failed and not divided by zero. A vertex whose U is
 *    1 - L within float rounding (2e-7 a weight) is normalized already: left bit for bit and not counted, so
 *    normalizing twice changes nothing the second time;
 *  - fails (weights untouched, report untouched) only for bad arguments and out of memory; per-vertex problems
 *    are counted in the optional report. On SK_ERR_OUT_OF_MEMORY the report's caller arrays may be partly
 *    written. */

/* Per-vertex bits written to sk_weights_report.vertex_flags. */
enum {
  SK_WFLAG_CHANGED = 1 << 0,    /* the vertex's weights were rewritten */
  SK_WFLAG_FAILED = 1 << 1,     /* not processed, left unchanged; the reason is in the other bits */
  SK_WFLAG_INVALID = 1 << 2,    /* a NaN/Inf/negative weight or an out-of-range joint */
  SK_WFLAG_UNWEIGHTED = 1 << 3, /* no influence, or no unlocked weight to scale */
  SK_WFLAG_LOCKED = 1 << 4,     /* locked weights prevent it: sum > 1, more locked influences than the limit,
                                   or a locked weight off the quantization grid */
  SK_WFLAG_SUM_OFF = 1 << 5,    /* changed, but locked weights kept the sum from reaching 1 */
  SK_WFLAG_UNMATCHED = 1 << 6,  /* mirror: no partner vertex within the tolerance */
  SK_WFLAG_ROGUE = 1 << 7       /* rogue removal: had attachments outside their joint's connected region */
};

/* Selection and locks, embedded in every weight desc. */
typedef struct sk_weight_scope {
  const uint8_t* vertex_mask;   /* vertex_count bytes, non-zero = selected; NULL = every vertex */
  size_t vertex_mask_count;     /* must equal the skin's vertex_count when vertex_mask is given */
  const uint8_t* locked_joints; /* joint_count bytes, non-zero = locked (never changed); NULL = none */
  size_t locked_joint_count;    /* must equal the skin's joint_count when locked_joints is given */
} sk_weight_scope;

/* What an operation did (optional; set size). Counters cover the selected vertices. */
typedef struct sk_weights_report {
  uint32_t size;              /* sizeof(sk_weights_report) */
  uint32_t reserved;
  uint64_t vertices_visited;  /* selected vertices the operation examined */
  uint64_t vertices_changed;
  uint64_t vertices_failed;   /* left unchanged (SK_WFLAG_FAILED) */
  uint64_t invalid_entries;   /* invalid entries met (dropped ones included) */
  uint64_t sum_off;           /* changed vertices that locked weights kept off sum 1 */
  uint64_t influences_before; /* whole skin */
  uint64_t influences_after;
  uint64_t unmatched;         /* mirror: destination vertices without a partner */
  uint64_t entries_changed;   /* limit/prune: entries removed; rogue: attachments moved */
  uint64_t joints_affected;   /* rogue: joints with a rogue attachment; mirror: joints mapped to another joint */
  uint32_t* joint_counts;     /* optional caller array of joint_count: rogue attachments removed per joint */
  uint8_t* vertex_flags;      /* optional caller array of vertex_count bytes: SK_WFLAG_* per vertex */
} sk_weights_report;

enum { SK_NORMALIZE_DROP_INVALID = 1 << 0 }; /* remove invalid entries of selected vertices, then normalize */

typedef struct sk_normalize_desc {
  uint32_t size;       /* sizeof(sk_normalize_desc) */
  uint32_t flags;      /* SK_NORMALIZE_* */
  sk_weight_scope scope;
  float tolerance;     /* 0 = 1e-5: slack on the locked sum */
  uint32_t reserved;
} sk_normalize_desc;

/* Makes each selected vertex sum to 1 by the rule above (all joints scale when none is locked). By default a
 * vertex with an invalid entry is reported and unchanged; SK_NORMALIZE_DROP_INVALID removes those entries. */
SK_API sk_result sk_weights_normalize(sk_skin* skin, const sk_normalize_desc* desc, sk_weights_report* report,
                                      sk_error* err);

enum { SK_LIMIT_NO_NORMALIZE = 1 << 0 };

typedef struct sk_limit_desc {
  uint32_t size;            /* sizeof(sk_limit_desc) */
  uint32_t max_influences;  /* N >= 1; 0 = 4 */
  sk_weight_scope scope;
  uint32_t flags;           /* SK_LIMIT_* */
  float tolerance;          /* 0 = 1e-5 */
} sk_limit_desc;

/* Vertices with more than N entries keep their non-zero locked entries and the largest unlocked ones (ties:
 * lower joint) in their original order, then are renormalized (unless SK_LIMIT_NO_NORMALIZE). A vertex with
 * more than N non-zero locked entries, or N whose weights sum under 1 beside unlocked ones (renormalizing would
 * scale them), is reported (SK_WFLAG_FAILED | SK_WFLAG_LOCKED) and unchanged. Entries naming one joint twice count
 * as one (added). Vertices with <= N entries are not touched. */
SK_API sk_result sk_weights_limit(sk_skin* skin, const sk_limit_desc* desc, sk_weights_report* report,
                                  sk_error* err);

enum {
  SK_PRUNE_KEEP_ONE = 1 << 0, /* a vertex that would lose every non-zero unlocked influence keeps its largest one
                                 (unless its locked weights already sum to 1) */
  SK_PRUNE_NORMALIZE = 1 << 1 /* renormalize pruned vertices */
};

typedef struct sk_prune_desc {
  uint32_t size;       /* sizeof(sk_prune_desc) */
  uint32_t flags;      /* SK_PRUNE_* */
  sk_weight_scope scope;
  float threshold;     /* unlocked entries with weight < threshold go, and zero ones; 0 = zeros only; <= 1 */
  float tolerance;     /* 0 = 1e-5 */
} sk_prune_desc;

/* Removes small unlocked influences of the selected vertices (locked entries always stay). */
SK_API sk_result sk_weights_prune(sk_skin* skin, const sk_prune_desc* desc, sk_weights_report* report,
                                  sk_error* err);

typedef struct sk_quantize_desc {
  uint32_t size;           /* sizeof(sk_quantize_desc) */
  uint32_t bits;           /* 8 or 16; 0 = 8 */
  sk_weight_scope scope;
  uint16_t* out_values;    /* optional: one integer per CSR entry (sk_skin_influence_count) */
  size_t out_values_count; /* capacity of out_values; must be >= sk_skin_influence_count */
} sk_quantize_desc;

/* Snaps each selected vertex to integers q_i summing exactly to T = 255 (8 bits) or 65535 (16 bits): largest
 * remainder on the proportions w_i / sum (ties: larger weight, then earlier entry), and writes w_i = q_i / T back,
 * so that round(w_i * T) reproduces q_i on export. Locked weights must already lie on the grid (|w T - round| <=
 * 1e-3), else SK_WFLAG_LOCKED. Zero entries are kept (prune removes them). out_values receives q_i (for vertices
 * not quantized: round(clamp(w, 0, 1) * T), NaN -> 0). The packed form with an implied last weight (e.g. 4 x 8-bit
 * joints + 3 x 8-bit weights, the 4th being 255 minus the others) is sk_skin_to_packed with U8 weights. */
SK_API sk_result sk_weights_quantize(sk_skin* skin, const sk_quantize_desc* desc, sk_weights_report* report,
                                     sk_error* err);

typedef enum sk_smooth_method { SK_SMOOTH_UNIFORM = 0, SK_SMOOTH_COTANGENT = 1 } sk_smooth_method;

typedef struct sk_smooth_desc {
  uint32_t size;            /* sizeof(sk_smooth_desc) */
  uint32_t method;          /* sk_smooth_method */
  sk_weight_scope scope;
  const float* positions;   /* 3 floats per vertex (required for SK_SMOOTH_COTANGENT; finite) */
  size_t positions_stride;  /* bytes; 0 = 12 */
  size_t position_count;    /* must equal vertex_count when positions are given */
  const uint32_t* triangles; /* 3 indices per triangle (required) */
  size_t triangle_count;
  uint32_t iterations;      /* 0 = 1 */
  float factor;             /* (0, 1]; 0 = 0.5 */
  const uint32_t* joints;   /* joints to smooth; NULL = all (locked joints are never smoothed) */
  size_t joint_list_count;
  uint32_t max_influences;  /* limit applied after smoothing; 0 = none */
  float min_weight;         /* smoothed weights below this are dropped; 0 = 1e-4; must be < 1 */
  float tolerance;          /* 0 = 1e-5 */
  uint32_t reserved;
} sk_smooth_desc;

/* Laplacian smoothing over mesh edges: per iteration w(v) <- (1 - f) w(v) + f * sum_u a_vu w(u) for the listed
 * unlocked joints of each selected vertex (unselected vertices still feed their neighbours), a_vu = 1/degree
 * (uniform) or the cotangent weights clamped at 0 and normalized per vertex (uniform where all are 0); then the
 * vertex is renormalized. The edges are the triangles' sides; a degenerate triangle (a, b, b) adds the one edge a-b,
 * so a mesh of quads, n-gons or loose edges can be smoothed over its own edges (uniform; the cotangent weights need
 * the surface's triangles). Cost per iteration is linear in edges x influences. SK_ERR_INVALID_ARGUMENT "smoothing
 * needs triangles" for a mesh without faces; SK_ERR_OUT_OF_RANGE for a triangle index or listed joint past the
 * end. */
SK_API sk_result sk_weights_smooth(sk_skin* skin, const sk_smooth_desc* desc, sk_weights_report* report,
                                   sk_error* err);

enum { SK_ROGUE_PER_COMPONENT = 1 << 0 }; /* accepted, no effect: every loose part is on its own (the default) */

typedef struct sk_rogue_desc {
  uint32_t size;            /* sizeof(sk_rogue_desc) */
  uint32_t flags;           /* SK_ROGUE_* */
  sk_weight_scope scope;
  const float* positions;   /* optional (recommended): vertices at the same position count as connected */
  size_t positions_stride;
  size_t position_count;    /* must equal vertex_count when positions are given */
  const uint32_t* triangles; /* required */
  size_t triangle_count;
  const sk_skeleton* skeleton; /* optional; only checked (enough joints) */
  float epsilon;            /* a vertex is attached to a joint when its weight > epsilon; 0 = 0 (any weight) */
  float tolerance;          /* 0 = 1e-5 */
} sk_rogue_desc;

/* Rogue-vertex removal (after Weber 2000), per loose part. A part is a connected component over the mesh edges
 * (plus, with positions, vertices at exactly the same position: UV-seam copies). On each part, a joint's influence
 * region (vertices with weight > epsilon) splits into islands (connected components over the part's edges); the
 * main island has the largest total weight. Another island of that joint on that part is rogue when it is small -
 * below 5 % of the main island's total weight and below 5 % of its vertex count - and far - no vertex of it reaches
 * the main island over edges within 10 % of the part's bounding-box diagonal (without positions: within 2 edges;
 * closer islands are the main region's falloff cut by an influence limit). A joint whose weight on a part is one
 * island is never touched, nor is anything on another part. Rogue attachments of selected vertices on unlocked
 * joints are removed and the vertex renormalized over its other joints; a vertex left without unlocked weight
 * takes the unlocked weights of the nearest vertex (edge hops) with no rogue attachment. Only real changes count:
 * a vertex whose weights would move by at most 1e-6 is left as it is. report: vertices_changed, entries_changed
 * (attachments removed), joints_affected, joint_counts[j], SK_WFLAG_ROGUE; vertices_failed counts vertices left
 * unchanged because of an invalid entry or because locked weights leave nothing to renormalize. */
SK_API sk_result sk_weights_remove_rogue(sk_skin* skin, const sk_rogue_desc* desc, sk_weights_report* report,
                                         sk_error* err);

typedef enum sk_mirror_mode {
  SK_MIRROR_POSITIVE_TO_NEGATIVE = 0, /* copy the + side of the plane onto the - side */
  SK_MIRROR_NEGATIVE_TO_POSITIVE = 1,
  SK_MIRROR_FLIP = 2                  /* swap the sides (every selected vertex takes its partner's weights) */
} sk_mirror_mode;

typedef struct sk_mirror_desc {
  uint32_t size;            /* sizeof(sk_mirror_desc) */
  uint32_t mode;            /* sk_mirror_mode */
  sk_weight_scope scope;    /* the mask selects destination vertices */
  const float* positions;   /* required, finite */
  size_t positions_stride;
  size_t position_count;    /* must equal vertex_count */
  const sk_skeleton* skeleton; /* joint names for Left/Right mapping; NULL = joints keep their index */
  float plane[4];           /* normal x, y, z and offset d: n . p = d; zero normal = the X = 0 plane */
  float tolerance;          /* matching distance; 0 = 1e-4 x bounding-box diagonal */
  uint32_t reserved;
} sk_mirror_desc;

/* Mirrors weights across a plane: every selected destination vertex (the - side for POSITIVE_TO_NEGATIVE,
 * vertices within the tolerance of the plane are neither side; every vertex for FLIP) is matched to the vertex
 * nearest its reflection (k-d tree, within tolerance) and takes that vertex's weights as they are (as Blender's
 * Mirror copies them) with joints renamed Left <-> Right (sk_joint_mirror_name); a destination with weights in
 * locked joints keeps those and the copied weights are normalized around them (the scope's rule). Unmatched vertices
 * are counted (report.unmatched, SK_WFLAG_UNMATCHED) and unchanged. SK_ERR_NOT_FOUND (weights untouched) when no
 * selected destination vertex has a partner, e.g. all vertices on one side of the plane. */
SK_API sk_result sk_weights_mirror(sk_skin* skin, const sk_mirror_desc* desc, sk_weights_report* report,
                                   sk_error* err);

/* Mirrored joint name, first matching convention: suffix ".L"/"_R"/"-l"/" r", prefix "L_"/"r."/"R ", infix
 * " L "/"_l_", then the words Left/Right, left/right, LEFT/RIGHT (case kept; "LeftArm", "arm_left"; not
 * "Bright"). SK_OK writes the mirrored name (NUL-terminated) into out; SK_ERR_NOT_FOUND when the name has no
 * side (out untouched); SK_ERR_OUT_OF_RANGE when cap is too small (at most strlen(name) + 2 is needed). */
SK_API sk_result sk_joint_mirror_name(const char* name, char* out, size_t cap, sk_error* err);

/* Left <-> Right joint permutation of a skeleton: out_map[j] (joint_count entries) is the joint whose name is the
 * mirror of j's, or j itself. When no joint has exactly the mirrored name, names are compared without a trailing
 * serial number ("b_RightHand_08" <-> "b_LeftHand_011"), if both stems are unique. out_mapped (optional) receives
 * how many joints map to another one. sk_weights_mirror uses this map. */
SK_API sk_result sk_skeleton_mirror_map(const sk_skeleton* skeleton, uint32_t* out_map, uint32_t* out_mapped,
                                        sk_error* err);

typedef enum sk_brush_mode {
  SK_BRUSH_ADD = 0,      /* w += a */
  SK_BRUSH_SUBTRACT = 1, /* w -= a */
  SK_BRUSH_REPLACE = 2,  /* w += (value - w) a */
  SK_BRUSH_SMOOTH = 3    /* w += (mean of the neighbours' w - w) a */
} sk_brush_mode;

/* a = strength * falloff(distance / radius): SMOOTH 1 - t^2 (3 - 2t), LINEAR 1 - t, CONSTANT 1, SHARP (1 - t)^2 */
typedef enum sk_brush_falloff {
  SK_FALLOFF_SMOOTH = 0,
  SK_FALLOFF_LINEAR = 1,
  SK_FALLOFF_CONSTANT = 2,
  SK_FALLOFF_SHARP = 3
} sk_brush_falloff;

enum {
  SK_BRUSH_GEODESIC = 1 << 0,    /* distance along mesh edges (Dijkstra from the vertex nearest the center) */
  SK_BRUSH_NO_NORMALIZE = 1 << 1 /* leave the other joints alone */
};

typedef struct sk_brush_desc {
  uint32_t size;            /* sizeof(sk_brush_desc) */
  uint32_t mode;            /* sk_brush_mode */
  uint32_t falloff;         /* sk_brush_falloff */
  uint32_t flags;           /* SK_BRUSH_* */
  sk_weight_scope scope;    /* the mask limits where the stroke paints; the painted joint must not be locked */
  uint32_t joint;           /* the painted joint */
  float value;              /* REPLACE target weight in [0, 1] */
  const float* positions;   /* required, finite */
  size_t positions_stride;
  size_t position_count;    /* must equal vertex_count */
  const uint32_t* triangles; /* required for SK_BRUSH_GEODESIC and SK_BRUSH_SMOOTH */
  size_t triangle_count;
  const float* dabs;        /* 5 floats per dab: center x, y, z, radius (> 0), strength in [0, 1] */
  size_t dab_count;
  float tolerance;          /* 0 = 1e-5 */
  uint32_t reserved;
} sk_brush_desc;

/* Paints one joint with a stroke of dabs, applied in order (each dab sees the previous ones); the painted weight is
 * clamped to [0, 1]. Unless SK_BRUSH_NO_NORMALIZE, each touched vertex then keeps its locked weights L and its
 * painted weight t (clamped to 1 - L) and its other unlocked joints are scaled to 1 - L - t; with no other unlocked
 * weight to scale the vertex is SK_WFLAG_SUM_OFF. A painted weight of 0 removes the entry. SMOOTH smooths the
 * painted joint only (Blender's behaviour); a selected vertex with an invalid entry is reported and not painted. */
SK_API sk_result sk_weights_brush(sk_skin* skin, const sk_brush_desc* desc, sk_weights_report* report, sk_error* err);

/* ---- weight transfer between meshes (Abdrashitov, Raichstat, Monsen, Hill 2023, "Robust Skin Weights Transfer via
 * Weight Inpainting"). The source (positions, triangles, skin) and the target (positions, triangles, skin) share the
 * joint indexing (same joint_count). Steps:
 *  1. each selected target vertex takes the closest point of the source surface (exact, BVH) and the barycentric
 *     blend of the source weights there; the match is accepted when the distance is <= distance_threshold and the
 *     angle between the target normal and the interpolated source normal is <= angle_threshold (a zero normal
 *     skips the angle test). Normals not given are computed from the triangles (area-weighted);
 *  2. the unmatched selected vertices are inpainted: they minimize trace(W^T Q W) with Q = K + K M^-1 K (the
 *     paper's -L + L M^-1 L; K the cotangent stiffness matrix, M the lumped mass matrix), the matched vertices and
 *     the unselected ones (their current weights) held fixed; one sparse Cholesky factorization (CHOLMOD) for all
 *     joints; negative values are clamped to 0. A connected part of the target with no fixed vertex cannot be
 *     inpainted: its vertices take the closest source point's weights with the thresholds ignored (fallback);
 *  3. optional uniform Laplacian smoothing of the inpainted vertices (as sk_weights_smooth);
 *  then per selected vertex: locked joints keep their current weights L, the new unlocked weights are normalized,
 *  entries below min_weight dropped (the largest stays), at most max_influences kept (locked entries count), scaled
 *  to 1 - L, sorted by weight, and the float sum made exactly 1. A vertex whose locked weights are invalid or sum
 *  above 1, or fill max_influences, or whose new weights are all zero, is left unchanged (SK_TRANSFER_VERTEX_FAILED).
 *  Source and target may be the same skin (the result is written only at the end).
 * Errors (target weights untouched): SK_ERR_INVALID_ARGUMENT for a mesh without triangles, NaN/Inf positions or
 * normals, differing joint counts, vertex counts that differ from the skins', a vertex mask selecting nothing;
 * SK_ERR_OUT_OF_RANGE for a triangle index past the end; SK_ERR_NO_SOLUTION if the inpainting system cannot be
 * factored even with the uniform Laplacian. Invalid source entries (NaN, negative, bad joint) are ignored. */
enum {
  SK_TRANSFER_ALLOW_FLIPPED_NORMALS = 1 << 0, /* angle test on |cos| (normals pointing the opposite way pass) */
  SK_TRANSFER_UNIFORM_LAPLACIAN = 1 << 1      /* inpaint with the uniform graph Laplacian instead of cotangent */
};

/* Per target vertex outcome, written to sk_transfer_report.vertex_status. */
enum {
  SK_TRANSFER_VERTEX_KEPT = 0,      /* not selected: unchanged (its weights constrain the inpainting) */
  SK_TRANSFER_VERTEX_MATCHED = 1,   /* closest source point within both thresholds */
  SK_TRANSFER_VERTEX_INPAINTED = 2, /* filled by the inpainting */
  SK_TRANSFER_VERTEX_FALLBACK = 3,  /* in a part without matched or unselected vertex: closest source point */
  SK_TRANSFER_VERTEX_FAILED = 4     /* unchanged: locked weights prevent it, or nothing non-zero to transfer */
};

typedef struct sk_transfer_desc {
  uint32_t size;                    /* sizeof(sk_transfer_desc) */
  uint32_t flags;                   /* SK_TRANSFER_* */
  sk_weight_scope scope;            /* over the target skin: selected vertices get new weights; locked joints stay */
  const sk_skin* source_skin;       /* required; joint_count equal to the target's */
  const float* source_positions;    /* 3 floats per source vertex, finite (required) */
  size_t source_positions_stride;   /* bytes; 0 = 12 */
  size_t source_vertex_count;       /* must equal the source skin's vertex_count */
  const float* source_normals;      /* optional, 3 floats per source vertex */
  size_t source_normals_stride;
  const uint32_t* source_triangles; /* 3 indices per triangle (required, >= 1 triangle) */
  size_t source_triangle_count;
  const float* target_positions;    /* 3 floats per target vertex, finite (required) */
  size_t target_positions_stride;
  size_t target_vertex_count;       /* must equal the target skin's vertex_count */
  const float* target_normals;      /* optional */
  size_t target_normals_stride;
  const uint32_t* target_triangles; /* required, >= 1 triangle */
  size_t target_triangle_count;
  float distance_threshold;         /* absolute; 0 = 0.05 x the source bounding-box diagonal; must be >= 0 */
  float angle_threshold;            /* degrees in (0, 180]; 0 = 30 */
  uint32_t smooth_iterations;       /* 0 = no smoothing */
  float smooth_factor;              /* (0, 1]; 0 = 0.5 */
  uint32_t max_influences;          /* 0 = no limit */
  float min_weight;                 /* new weights below it are dropped; 0 = 1e-4; negative = keep all; < 1 */
} sk_transfer_desc;

typedef struct sk_transfer_report {
  uint32_t size;                /* sizeof(sk_transfer_report), set by the caller */
  uint32_t reserved;
  double milliseconds;          /* wall time */
  uint64_t selected;            /* target vertices selected by the mask */
  uint64_t matched;             /* selected vertices weighted from their closest source point */
  uint64_t inpainted;           /* selected vertices filled by the inpainting */
  uint64_t fallback;            /* selected vertices in parts without a fixed vertex (closest source point) */
  uint64_t fallback_components; /* such parts */
  uint64_t failed;              /* selected vertices left unchanged (SK_TRANSFER_VERTEX_FAILED) */
  float distance_threshold;     /* the absolute distance threshold used */
  uint32_t reserved2;
  uint8_t* vertex_status;       /* optional caller array of target_vertex_count bytes: SK_TRANSFER_VERTEX_* */
} sk_transfer_report;

/* Transfers the source skin's weights onto target (in place). report (optional) must have .size set. */
SK_API sk_result sk_weights_transfer(sk_skin* target, const sk_transfer_desc* desc, sk_transfer_report* report,
                                     sk_error* err);

/* ---- direct manipulation (Mohr, Tokheim, Gleicher 2002, "Direct manipulation of interactive character skins").
 * For one vertex with rest position p, candidate joints c_i and, per pose k, a palette M^k (skinning matrices) and a
 * desired deformed position t^k, finds the weights w >= 0 minimizing sum_k |sum_j w_j M_j^k p - t^k|^2 with the
 * locked joints' weights kept and the candidates' weights summing to 1 - (locked sum) (exact active-set solution of
 * the small QP; when several solutions exist, the one nearest the current weights). The vertex's other unlocked
 * joints are removed; the float sum is exactly 1 (unless locked weights fill it). residual is the remaining
 * distance: for one pose, the distance from the target to the set of positions the candidates can reach (the
 * convex hull of the points M_c p scaled into what the locked weights leave). Errors (weights untouched):
 * SK_ERR_OUT_OF_RANGE for a vertex or candidate joint past the end; SK_ERR_INVALID_ARGUMENT for NaN/Inf input, a
 * mask not selecting the vertex, locked weights invalid or above 1, no unlocked candidate, more than 64 candidates. */
typedef struct sk_direct_desc {
  uint32_t size;                /* sizeof(sk_direct_desc) */
  uint32_t pose_count;          /* 0 = 1 */
  sk_weight_scope scope;        /* if a vertex mask is given it must select the vertex; locked joints keep their weight */
  size_t vertex;                /* the edited vertex */
  const float* rest_position;   /* 3 floats: the vertex in bind space (required) */
  const float* palettes;        /* 16 * joint_count floats per pose (M_j = W_j inverse(B_j)), poses one after another */
  const float* targets;         /* 3 floats per pose: desired deformed positions */
  const uint32_t* candidates;   /* joints allowed to carry weight; NULL = the vertex's current unlocked joints */
  size_t candidate_count;
} sk_direct_desc;

typedef struct sk_direct_report {
  uint32_t size;            /* sizeof(sk_direct_report), set by the caller */
  uint32_t candidates_used; /* unlocked, distinct candidates */
  uint32_t nonzero;         /* candidates given a positive weight */
  uint32_t reserved;
  double residual;          /* sqrt(sum over poses of the squared distance achieved - target) */
  double max_distance;      /* largest per-pose distance */
  float* achieved;          /* optional caller array of 3 * pose_count floats: the deformed positions reached */
} sk_direct_report;

SK_API sk_result sk_weights_direct(sk_skin* skin, const sk_direct_desc* desc, sk_direct_report* report, sk_error* err);

/* ---- bone links (Weber 2000; seed 000 "Bone Links") ----------------------------------------------------
 * A joint J whose expected range of motion exceeds a threshold (default 60 degrees) gets k link joints along its bone
 * (head h -> tail t as sk_skeleton_bone_segments): k = ceil(range / threshold) - 1, or desc.links. The result is a
 * NEW skeleton and skin (the inputs are not changed):
 *  - skeleton: links "<J>_link1" .. "<J>_link<k>" right after J (".<n>" appended if a name is taken), link i at
 *    h + i / (k + 1) (t - h) with J's orientation, chained J -> link1 -> ... -> link k; J's children hang under link k
 *    with their rest world transforms unchanged. Bind matrices: B_link = B_J moved along the bone the same way, inverse
 *    binds exact. Original joints keep names, order among themselves, bind and rest world transforms.
 *  - skin: for each selected vertex, the share s = w_J (+ w_C when J has exactly one child C, not locked) is laid on
 *    the chain J (f = 0), link i (f = i / (k + 1)) [, C (f = 1)] by the vertex's position f along the bone (clamped to
 *    the first and last node): piecewise-linear between the two nodes around f. Other weights are kept, so a vertex
 *    keeps its weight sum (to float rounding) and holds at most two of the chain's joints. Joint indices are the new
 *    skeleton's. Vertices with an invalid entry are copied (joints renumbered) and flagged FAILED | INVALID.
 *  - pose: sk_bone_links_pose splits J's rotation relative to its rest (d = rest^-1 r) into k + 1 equal parts
 *    (q = slerp(identity, d, 1 / (k + 1))): J gets rest * q, each link q; J's children get a corrected translation so
 *    that their world transforms equal the unlinked pose's. */
#define SK_BONE_LINKS_MAX 32

typedef struct sk_bone_links_desc {
  uint32_t size;            /* sizeof(sk_bone_links_desc) */
  uint32_t links;           /* links per linked joint, 1 .. SK_BONE_LINKS_MAX; 0 = ceil(range / threshold) - 1 */
  sk_weight_scope scope;    /* vertex_mask: vertices whose weights are spread; locked joints cannot be linked, and a
                               locked child keeps its weights */
  const float* ranges;      /* optional: expected range of motion of each joint in degrees, 0 .. 360 */
  size_t range_count;       /* must equal the skeleton's joint count when ranges are given */
  const uint32_t* joints;   /* optional: joints to link whatever their range (without a range: 180 degrees) */
  size_t joint_list_count;
  float threshold;          /* degrees, (0, 360]; 0 = 60 */
  uint32_t bone_space;      /* sk_bone_space the positions live in (0 = SK_BONE_SPACE_BIND, the skinned mesh's) */
  const float* positions;   /* 3 floats per vertex, finite; required with a skin */
  size_t positions_stride;  /* bytes; 0 = 12 */
  size_t position_count;    /* must equal the skin's vertex count */
} sk_bone_links_desc;

/* Builds the linked skeleton (*out_skeleton) and, when skin is given, the spread skin (*out_skin; NULL skin: only the
 * skeleton, out_skin may be NULL). Both are new objects the caller destroys. At least one of ranges / joints is
 * required. Errors (outputs untouched): SK_ERR_NOT_FOUND when no joint qualifies, SK_ERR_INVALID_ARGUMENT for a
 * range outside 0..360, a locked linked joint, a zero-length bone, a skin over another joint count, missing or
 * non-finite positions; SK_ERR_OUT_OF_RANGE for a listed joint past the end or links > SK_BONE_LINKS_MAX. report
 * (optional, .size set): vertices_visited / changed, joints_affected = joints linked, entries_changed = links
 * inserted, joint_counts[j] = links of original joint j, vertex_flags (vertex_count). */
SK_API sk_result sk_bone_links(const sk_skeleton* skeleton, const sk_skin* skin, const sk_bone_links_desc* desc,
                               sk_skeleton** out_skeleton, sk_skin** out_skin, sk_weights_report* report,
                               sk_error* err);
/* For each joint of a linked skeleton: the joint of original it comes from (out_source) and 0 for an original joint
 * or i for its i-th link (out_link_index); linked joint count entries each, either may be NULL.
 * SK_ERR_INVALID_ARGUMENT when linked is not original with link chains inserted. */
SK_API sk_result sk_bone_links_source(const sk_skeleton* original, const sk_skeleton* linked, uint32_t* out_source,
                                      uint32_t* out_link_index, sk_error* err);
/* Maps a TRS pose of original (10 floats per joint) to the linked skeleton (10 floats per linked joint) as described
 * above. SK_ERR_UNSUPPORTED when a linked joint has a non-uniform scale (its rotation cannot be split exactly). */
SK_API sk_result sk_bone_links_pose(const sk_skeleton* original, const sk_skeleton* linked, const float* trs,
                                    float* out_trs, sk_error* err);

/* ---- per-vertex weight records (ABI 1.5) ---------------------------------------------------------------
 * Weights kept as one record per vertex pointing at its own (group, weight) array: the layout Blender keeps vertex
 * groups in (MDeformVert / MDeformWeight). The Blender addon reads and edits a mesh's groups through these without
 * a scene evaluation (python_addon/skinkit/bridge.py). A record array of vertex_count records must be valid memory:
 * these functions check counts and pointers for sanity (a count outside 0 .. SK_RECORD_MAX_ENTRIES, a NULL array
 * with a count: SK_ERR_INVALID_ARGUMENT, nothing written) but cannot check that an address is mapped.
 * group_to_joint[g] (group_count entries) maps group g to a joint of the CSR, or -1 for a group not read or
 * written; entries of groups >= group_count are left alone like -1. Each joint must come from one group. */
#define SK_RECORD_MAX_ENTRIES 65536

typedef struct sk_weight_entry {
  uint32_t group;
  float weight;
} sk_weight_entry;

typedef struct sk_weight_record {
  sk_weight_entry* entries; /* count entries, owned by whoever made the records */
  int32_t count;
  int32_t flags;            /* not read or written */
} sk_weight_record;

/* CSR of the mapped entries, per vertex in record order (entries of weight 0 included). out_offsets (vertex_count
 * + 1) is always filled and *out_entry_count set; out_joints / out_weights (capacity entries each) are filled when
 * both are given, SK_ERR_OUT_OF_RANGE (offsets filled, entries up to capacity) when capacity is below the entry
 * count. One pass over the records: a capacity of the sum of the records' counts always suffices. */
SK_API sk_result sk_records_read(const sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                 uint32_t group_count, uint32_t* out_offsets, uint32_t* out_joints,
                                 float* out_weights, size_t capacity, size_t* out_entry_count, sk_error* err);

/* Makes the mapped entries of each record equal the CSR row of its vertex (offsets vertex_count + 1, joints and
 * weights as from sk_records_read), in place: weights rewritten, entries whose joint is not in the row removed (the
 * rest keep their order; memory is not freed: count shrinks). Unmapped entries are kept. Only vertices with
 * mask[v] != 0 are visited (every vertex when mask is NULL). A vertex the records cannot hold without allocating
 * (a joint in its row that has no entry, or every entry removed) is left untouched and marked out_deferred[v] = 1
 * (out_deferred: vertex_count bytes, all written); *out_changed (optional) counts the vertices changed.
 * SK_ERR_INVALID_ARGUMENT (nothing written) for a joint that no group maps to or a bad record. */
SK_API sk_result sk_records_update(sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                   uint32_t group_count, const uint32_t* offsets, const uint32_t* joints,
                                   const float* weights, const uint8_t* mask, uint8_t* out_deferred,
                                   size_t* out_changed, sk_error* err);

/* A weight operation run straight on the records (ABI 1.5): what the addon's weight tools call, one pass over
 * Blender's own memory instead of a read, an operation and a write. */
typedef enum sk_records_op {
  SK_RECORDS_NORMALIZE = 1, /* op_desc: const sk_normalize_desc* (sk_weights_normalize) */
  SK_RECORDS_LIMIT = 2,     /* const sk_limit_desc* (sk_weights_limit) */
  SK_RECORDS_PRUNE = 3,     /* const sk_prune_desc* (sk_weights_prune) */
  SK_RECORDS_QUANTIZE = 4,  /* const sk_quantize_desc* (sk_weights_quantize; out_values must be NULL) */
  SK_RECORDS_ROUND = 5      /* const sk_quantize_desc*: each unlocked weight rounded on its own to the nearest
                               q / (2^bits - 1), no sum kept (Blender's Quantize); invalid entries fail the vertex */
} sk_records_op;

typedef struct sk_records_edit_desc {
  uint32_t size;          /* sizeof(sk_records_edit_desc) */
  uint32_t op;            /* sk_records_op */
  const void* op_desc;    /* the operation's descriptor. Its scope applies: vertex_mask (vertex_count entries) and
                             locked_joints (one per joint: joint_count = the largest group_to_joint entry + 1) */
  float no_change;        /* a vertex whose row keeps its joints, in order, and moves no weight by more than this
                             is left as it was (0: any difference counts); must be >= 0 */
  uint32_t reserved;      /* 0 */
} sk_records_edit_desc;

/* Reads the mapped entries of the records (as sk_records_read), applies the operation to them exactly as the
 * sk_weights_* function does, and writes back (as sk_records_update) the vertices it changed by more than
 * no_change. A vertex whose new row the record cannot hold without an allocation (every entry removed, for
 * Prune) is deferred: its record is untouched and out_state[v] = 2 (run the operation for those vertices through
 * the caller's own API); else out_state[v] = 1 where the record was rewritten, 0 where it was left as it was.
 * out_state (vertex_count bytes) and out_deferred (the count of 2s) are optional. report (optional) is the
 * operation's, except that vertices_changed counts the vertices changed beyond no_change (deferred included) and
 * vertex_flags has SK_WFLAG_CHANGED only on those. The records are edited one vertex at a time, with the same
 * per-vertex code as the sk_weights_* function (a large mesh by the library's threads, in chunks): nothing is
 * allocated but a row's buffers per thread. Argument errors are found before anything is written; only an
 * out-of-memory failure for those buffers can stop it partway, with each vertex edited whole or not at all. */
SK_API sk_result sk_records_edit(sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                 uint32_t group_count, const sk_records_edit_desc* desc, uint8_t* out_state,
                                 size_t* out_deferred, sk_weights_report* report, sk_error* err);

/* SK_SECTION weights (weight editing operations): add declarations above this line */

/* ---- .skf compressed skin files (spec: docs/skf.md) ----------------------------------------------------
 * Per-vertex joints and weights plus the skeleton's joint table (names, parents, inverse binds), small on disk
 * and decoded straight into glTF-style JOINTS_0/WEIGHTS_0 arrays. Weights are quantized to 8 bits summing
 * exactly to 255 (or 16 bits summing to 65535); joints are lossless. Vertices of a mesh given with triangles are
 * coded in order of first appearance in its index buffer, so decoding that mesh needs the same index buffer. A
 * mesh given with positions is welded: a vertex at the same position as a lower one with the same influences (a
 * seam or corner copy) is not stored at all, so decoding that mesh needs the same positions (SK_SKF_NO_WELD
 * turns this off). Optionally (ABI 1.5, .skf 3.2) each mesh's centres of rotation for SK_DEFORM_COR are stored
 * too (sk_skf_encode_desc.centers, sk_skf_decode_desc.centers), so a runtime skips sk_cor_compute at load.
 * A standalone decoder (one header, zlib + libc) for engines ships as skf_decoder.h (io/runtime/). */

/* One mesh to encode. */
typedef struct sk_skf_mesh {
  const sk_skin* skin;       /* required; joint indices refer to the skeleton of the desc */
  const float* positions;    /* optional: 3 * vertex_count rest positions, hashed so a runtime can detect a
                                mismatched mesh (sk_skf_position_hash), and welded (order 2) unless SK_SKF_NO_WELD */
  const uint32_t* indices;   /* optional triangle list (index_count entries < vertex_count): coding order */
  size_t index_count;
} sk_skf_mesh;

enum {
  SK_SKF_FILE_ORDER = 1 << 0, /* ignore indices for the coding order (decoding then needs no index buffer) */
  SK_SKF_NO_WELD = 1 << 1,    /* positions are only hashed, never welded (decoding then needs no positions) */
  SK_SKF_FAST = 1 << 2        /* ABI 1.5: speed profile (.skf 3.1): every mesh in vertex order, no zlib, no weld;
                                 about 3.7x larger than the default (1.79 against 0.49 bytes per vertex on
                                 CesiumMan_subdiv2), decodes 17-20x faster (docs/skf_speed.md);
                                 decoding needs neither indices nor positions; SK_SKF_FILE_ORDER and
                                 SK_SKF_NO_WELD are implied */
};
/* sk_skf_info.flags: bit SK_SKF_INFO_WEIGHTS16 = 16-bit weights, SK_SKF_INFO_FAST = written with SK_SKF_FAST */
enum { SK_SKF_INFO_WEIGHTS16 = 1 << 0, SK_SKF_INFO_FAST = 1 << 1 };

typedef struct sk_skf_encode_desc {
  uint32_t size;             /* sizeof(sk_skf_encode_desc) */
  uint32_t weight_bits;      /* 8 or 16 (0 = 8) */
  uint32_t max_influences;   /* 1..8 (0 = 4): the largest weights are kept and renormalized */
  uint32_t level;            /* zlib level 1..9 (0 = 9) */
  uint32_t flags;            /* SK_SKF_* */
  uint32_t mesh_count;
  const sk_skeleton* skeleton; /* required: the joint table */
  const sk_skf_mesh* meshes;   /* mesh_count entries */
  /* since ABI 1.5 (a caller passing the 1.4 size, offsetof(sk_skf_encode_desc, centers), stores none): */
  const float* const* centers; /* optional: mesh_count pointers, each to 3 * that mesh's vertex_count centres of
                                  rotation (sk_cor_compute on the rest mesh), all non-NULL. Stored per mesh in a
                                  CORC chunk (.skf 3.2; an older reader skips it) on a 16-bit grid over the centres'
                                  bounding box: each decoded component is within half a grid step (1/131070 of
                                  the mesh's centre extent on that axis, plus float rounding) of the given one;
                                  a welded copy gets the centre of the vertex it copies. 3.3-6 bytes
                                  per stored (coded) vertex after deflate (docs/skf.md 3.2, 6.3). SK_ERR_INVALID_ARGUMENT for a NULL entry or a
                                  non-finite centre. NULL: no chunk, the file is byte-identical to before. */
} sk_skf_encode_desc;

/* Worst-case size of sk_skf_encode's output for this desc; 0 if the desc is invalid. */
SK_API size_t sk_skf_encode_bound(const sk_skf_encode_desc* desc);
/* Encodes into out (capacity bytes; sk_skf_encode_bound is always enough); *out_size receives the size.
 * SK_ERR_OUT_OF_RANGE for a joint index past the skeleton or a capacity that is too small. */
SK_API sk_result sk_skf_encode(const sk_skf_encode_desc* desc, void* out, size_t capacity, size_t* out_size,
                               sk_error* err);

typedef struct sk_skf_info {
  uint32_t size;             /* sizeof(sk_skf_info), set by the caller */
  uint32_t major, minor;     /* format version of the file */
  uint32_t flags;            /* header flags */
  uint32_t weight_bits;      /* 8 or 16 */
  uint32_t joint_bits;       /* 8 (<= 256 joints) or 16 */
  uint32_t joint_count, mesh_count, max_influences, chunk_count;
  uint32_t group_count;      /* influence chunks (small meshes share one) */
  uint32_t header_crc, payload_crc;
  uint32_t reserved;
  uint64_t vertex_count;     /* all meshes */
  uint64_t header_size, payload_size, file_size;
  uint64_t names_size;       /* bytes sk_skf_decode_skeleton needs for the names */
} sk_skf_info;

/* Validates the header, both CRC-32s and the chunk list. Distinct codes: SK_ERR_TRUNCATED (buffer ends early),
 * SK_ERR_CHECKSUM, SK_ERR_VERSION (unknown major), SK_ERR_UNSUPPORTED (reserved flags/fields set),
 * SK_ERR_FORMAT (not .skf or malformed). Nothing is allocated in proportion to counts read from the file. */
SK_API sk_result sk_skf_peek(const void* data, size_t size, sk_skf_info* info, sk_error* err);

typedef struct sk_skf_mesh_info {
  uint32_t size;             /* sizeof(sk_skf_mesh_info) */
  uint32_t max_influences;
  uint32_t order;            /* 0 = vertex order, 1 = first appearance in the index buffer (decode needs it),
                                2 = welded by position (decode needs the positions, and the index buffer if
                                index_count is not 0) */
  uint32_t has_position_hash;
  uint32_t position_hash;
  uint32_t index_hash;
  uint32_t group;
  uint32_t reserved;
  uint64_t vertex_count;
  uint64_t index_count;      /* indices the decoder must be given (order 1, or 2 when not 0) */
  /* since ABI 1.2 (a caller passing the 1.1 size gets the fields above only): */
  uint32_t coded_count;      /* vertices stored in the file (order 2: the vertices that are no copies) */
  uint32_t distinct_positions; /* order 2: distinct rest positions of the mesh, else 0 */
  /* since ABI 1.5 (a caller passing the 1.2 size, offsetof(sk_skf_mesh_info, has_centers), gets the fields above): */
  uint32_t has_centers;      /* 1: the file stores centres of rotation (sk_skf_decode_desc.centers), else 0 */
  uint32_t reserved2;
} sk_skf_mesh_info;
SK_API sk_result sk_skf_get_mesh_info(const void* data, size_t size, uint32_t mesh, sk_skf_mesh_info* info,
                                      sk_error* err);

/* Hash of 3 * vertex_count rest positions as stored in the mesh records (compare with has_position_hash). */
SK_API uint32_t sk_skf_position_hash(const float* positions, size_t vertex_count);

/* Joint table: out_parents (joint_count), out_inverse_bind (16 * joint_count floats), out_names (joint_count
 * NUL-terminated names back to back, names_capacity >= info.names_size). Any output may be NULL. */
SK_API sk_result sk_skf_decode_skeleton(const void* data, size_t size, int32_t* out_parents, float* out_inverse_bind,
                                        char* out_names, size_t names_capacity, sk_error* err);

/* Decodes one mesh into packed streams (streaming: one influence chunk in memory at a time). Slots of a vertex
 * hold its joints in ascending joint order, unused slots joint 0 weight 0; weights sum to exactly 255 / 65535. */
typedef struct sk_skf_decode_desc {
  uint32_t size;             /* sizeof(sk_skf_decode_desc) */
  uint32_t mesh;             /* mesh index */
  uint32_t influences;       /* slots per vertex 1..8 (0 = 4), >= the mesh's max_influences */
  sk_type joint_type;        /* SK_TYPE_U8 (<= 256 joints) or SK_TYPE_U16 (0 = U16) */
  sk_type weight_type;       /* SK_TYPE_U8 (8-bit files) or SK_TYPE_U16 (0 = U8 for 8-bit files, else U16) */
  uint32_t reserved;
  const uint32_t* indices;   /* the mesh's index buffer when its order is 1 (or 2 with an index_count) */
  size_t index_count;
  void* joints;              /* vertex_capacity * influences components */
  void* weights;             /* vertex_capacity * influences components */
  size_t vertex_capacity;    /* >= the mesh's vertex count */
  /* since ABI 1.2 (a caller passing the 1.1 size decodes orders 0 and 1 only): */
  const float* positions;    /* 3 * vertex count rest positions when the mesh's order is 2 (welded) */
  /* since ABI 1.5 (a caller passing the 1.2 size, offsetof(sk_skf_decode_desc, centers), gets no centres): */
  float* centers;            /* optional: 3 * vertex_capacity floats receive the stored centres of rotation of every
                                vertex (for SK_DEFORM_COR's job.centers; bound at sk_skf_encode_desc.centers).
                                SK_ERR_NOT_FOUND, nothing written, when the file has none (has_centers 0). NULL:
                                not read, decoding costs what it did without them. */
} sk_skf_decode_desc;
SK_API sk_result sk_skf_decode(const void* data, size_t size, const sk_skf_decode_desc* desc, sk_error* err);

/* Chunk list for tools: tag (NUL-terminated), byte offset of the chunk header in the file, stored and raw sizes. */
typedef struct sk_skf_chunk {
  uint32_t size;             /* sizeof(sk_skf_chunk), set by the caller in every element */
  char tag[8];
  uint32_t stored_size, raw_size;
  uint64_t offset;
} sk_skf_chunk;
/* Returns the chunk count in *out_count; copies min(capacity, count) entries when out is non-NULL. */
SK_API sk_result sk_skf_chunks(const void* data, size_t size, sk_skf_chunk* out, uint32_t capacity,
                               uint32_t* out_count, sk_error* err);

/* SK_SECTION skf (compressed skin format): add declarations above this line */

/* ---- automatic binding --------------------------------------------------------------------------------
 * Skin weights from a mesh and bone segments (head -> tail per joint). Methods:
 *  - SK_BIND_ROBUST (default): bone heat with every fallback; never leaves a vertex unweighted (only out of
 *    memory fails). Parts no bone sees (sleeves, plates, hair shells over the body, eyes) take the weights of the
 *    closest point of the heat-weighted surface when it is closer than every bone, small parts (<= 5 % of the
 *    mesh's diagonal) rigidly at their centroid; point clouds and degenerate meshes get nearest-bone weights.
 *  - SK_BIND_HEAT: bone heat (Baran & Popovic 2007: cotangent Laplacian diffusion; as in Blender, a vertex is
 *    heated by its nearest bone(s) when it sees them - no surface entered from its front on the way - and by none
 *    otherwise, never by a farther bone; one sparse Cholesky factorization for all bones; heat weights fade out
 *    between 0.05 and 0.025 like Blender's; as in Blender, the distance to a bone is divided by (1.001 + cos) / 2,
 *    cos between the vertex normal and the direction from the bone, so bones in front of the surface count as far,
 *    and heat_scale 1 has Blender's balance of heat and diffusion; a placement bone - head outside the mesh, most
 *    of its segment outside, tail inside, like a root at the ground reaching into the hips - emits no heat). Parts
 *    no bone sees and point clouds still fall back to nearest bone (counted in the report; a part under 5% of the
 *    mesh size moves rigidly with the weights of its centroid);
 *    SK_ERR_NO_SOLUTION if the system is not positive definite.
 *  - SK_BIND_NEAREST: distance to the bone segments, rigid or blended by an inverse-distance falloff.
 *  - SK_BIND_CAPSULE: containment (seed 000): a capsule per bone (its segment and a radius r_j, given in
 *    capsule_radii or estimated as the median distance of the vertices nearest that bone, estimates damped towards
 *    their geometric mean g as g (r / g)^(1/4) so thick bones do not swallow thin neighbours); bone j scores
 *    1 / (1 + (d_j / r_j)^p) (p = falloff_power; above 1/2 inside the capsule, smooth falloff outside), the best
 *    scores are blended (bones whose d/r exceeds falloff_cutoff times the best one's get 0), then smoothed over
 *    mesh edges (smooth_iterations, none for a point cloud).
 *  - SK_BIND_DELAUNAY: Shin & Shin 2000: a Delaunay tetrahedralization (qhull) of the vertices (a grid sample of
 *    about 4000 of them on larger meshes, at least one per part) and of bone_samples points along each bone; each
 *    vertex takes the bones nearest to it in edge-length-weighted graph distance over the mesh's edges and the tet
 *    edges, blended by inverse distance like NEAREST (falloff_power, falloff_cutoff); tet edges that leave the
 *    surface outward at a vertex (through the air between limbs) are not used. Positions are joggled by 1e-6 of
 *    the mesh size for qhull (so flat input works too). Vertices the graph does not reach and inputs qhull cannot
 *    tetrahedralize (fewer than 5 distinct points with the bone samples, qhull failure) fall back to nearest bone
 *    (counted in the report).
 * Vertices at identical positions are welded for the heat diffusion (UV seams do not split weights).
 * Bones with identical segments (within 1e-6 of the mesh size) are bound as one bone whose weight is split evenly
 * over them; the limit keeps such a group whole or leaves it out (only a group coming first is cut to the limit).
 * Every bound vertex ends with 1 .. max_influences weights, sorted by weight descending, summing to 1 exactly
 * in float (|sum - 1| <= 1e-6). On any error the skin is left untouched. */
typedef enum sk_bind_method {
  SK_BIND_ROBUST = 0,
  SK_BIND_NEAREST = 1,
  SK_BIND_HEAT = 2,
  SK_BIND_CAPSULE = 3,
  SK_BIND_DELAUNAY = 4,
  SK_BIND_METHOD_MAX_ENUM = 0x7fffffff
} sk_bind_method;

typedef struct sk_bind_desc {
  uint32_t size;              /* sizeof(sk_bind_desc) */
  uint32_t method;            /* sk_bind_method */
  const float* positions;     /* 3 * vertex_count, finite (SK_ERR_INVALID_ARGUMENT otherwise) */
  size_t vertex_count;        /* >= 1, equal to the skin's */
  const uint32_t* triangles;  /* 3 * triangle_count (indices >= vertex_count: SK_ERR_OUT_OF_RANGE) */
  size_t triangle_count;      /* 0 = point cloud (nearest bone) */
  /* Bones: either a skeleton (segments as sk_skeleton_bone_segments, sibling leaves aimed at the mesh part their
   * head lies on) or explicit heads and tails. */
  const sk_skeleton* skeleton;
  const float* heads;         /* 3 * joint_count; used when skeleton is NULL */
  const float* tails;         /* 3 * joint_count; tail == head is a point bone */
  uint32_t joint_count;       /* with heads/tails; must equal the skin's joint count either way */
  uint32_t max_influences;    /* 1 .. 255; 0 = 4 */
  const uint8_t* deform;      /* joint_count bytes, 1 = joint gets weights; NULL = every joint. With a skeleton, a
                                 joint with no deform joint at or below it (an attachment point) shapes no bone's
                                 segment: the segments are those of the deform joints and their ancestors */
  const uint8_t* locked;      /* joint_count bytes, 1 = locked: its existing weights on bound vertices are kept,
                                 the new weights fill what is left of 1; NULL = none */
  const uint8_t* vertex_mask; /* vertex_count bytes, 1 = bind this vertex; others keep their weights. NULL = all */
  float prune;                /* drop weights below prune * the vertex's largest, < 1 (0 = 1/255, one 8-bit step,
                                 was 0.01; negative = keep all) */
  uint32_t rigid;             /* nearest: 1 = one bone per vertex */
  float falloff_power;        /* nearest: weight ~ 1 / distance^power (0 = 4) */
  float falloff_cutoff;       /* nearest: bones farther than cutoff * the nearest distance get 0 (0 = 1.5, > 1) */
  float heat_scale;           /* heat: c in H = c / d^2 (0 = 1) */
  uint32_t no_weld;           /* heat: 1 = do not weld copies of a vertex (UV seams, rounding-level copies) */
  uint32_t bone_space;        /* with a skeleton: sk_bone_space (0 = SK_BONE_SPACE_BIND) */
  const float* capsule_radii; /* capsule: joint_count radii; > 0 = given, 0 = estimate from the mesh; NULL = all
                                 estimated (negative or non-finite: SK_ERR_INVALID_ARGUMENT) */
  uint32_t smooth_iterations; /* capsule: smoothing passes over mesh edges (0 = 2; SK_BIND_NO_SMOOTHING = none) */
  uint32_t bone_samples;      /* delaunay: points per bone, 1 .. 4096 (0 = from the mesh density, 2 .. 256) */
  /* since ABI 1.6 (a desc of the 1.5 size, offsetof(sk_bind_desc, parents), is still accepted and has none): */
  const int32_t* parents;     /* with heads/tails: joint_count parent indices, -1 for a root, each parent before
                                 its child (SK_ERR_INVALID_ARGUMENT otherwise); NULL = no hierarchy. robust uses it
                                 to give weight two branches pull on one vertex to the trunk they hang from. Ignored
                                 with a skeleton, which has its own. */
} sk_bind_desc;
#define SK_BIND_NO_SMOOTHING 0xffffffffu

typedef struct sk_bind_report {
  uint32_t size;                 /* sizeof(sk_bind_report), set by the caller */
  uint32_t method_used;          /* sk_bind_method actually used (NEAREST for a point cloud or a total fallback) */
  double milliseconds;           /* wall time of sk_bind */
  uint64_t bound_vertices;       /* vertices (re)weighted (the vertex mask's count) */
  uint64_t fallback_vertices;    /* vertices weighted by the nearest-bone fallback inside heat/robust */
  uint64_t components;           /* connected parts of the welded mesh (heat) */
  uint64_t fallback_components;  /* parts no bone sees */
  uint64_t* joint_vertex_counts; /* optional caller array of joint_count: vertices with a non-zero weight per
                                    joint in the resulting skin; NULL = not computed */
  /* ABI 1.5 (a report of the 1.4 size, ending above, is still accepted): optional caller arrays, NULL = not
   * computed. weight share of joint j = joint_weight_sums[j] / the sum over all joints. */
  uint8_t* vertex_fallback;        /* vertex_count: 1 = weighted by the nearest-bone fallback (0: by the method, or
                                      not bound) */
  uint64_t* joint_fallback_counts; /* joint_count: of the joint's vertices (non-zero weight), the fallback ones */
  double* joint_weight_sums;       /* joint_count: sum of the joint's weights over the resulting skin */
} sk_bind_report;

/* Where bone segments are placed. BIND (default): in the skin's bind space, where skinned mesh positions live
 * (each rest segment moved by B_j * inverse(rest_world_j): head = the bind matrix origin); imported meshes
 * (glTF, FBX) need this when their bind pose is not the rest pose. REST: the skeleton's world rest pose. Both are
 * the same when the skeleton was created without bind matrices. */
typedef enum sk_bone_space {
  SK_BONE_SPACE_BIND = 0,
  SK_BONE_SPACE_REST = 1,
  SK_BONE_SPACE_MAX_ENUM = 0x7fffffff
} sk_bone_space;

/* Bone segments of a skeleton, 3 * joint_count floats each: in rest space, head = the joint's world rest origin;
 * tail = the stored one where the skeleton has it (sk_skeleton_get_tails: Blender's Collada tips and connected
 * bones), else its only child's head. The other tails follow the authoring tool's bone axis when the skeleton has one:
 * the signed local axis that points at the only child (within 8 degrees) for at least 75 % of the joints with one
 * child, at least 3 of them (Blender: +Y, kept by its FBX, glTF and Collada exports; Maya, 3ds Max and DirectX
 * exporters: usually +X). Then a joint with several children points along that axis as far as its child most in
 * line with the axis reaches along it (a hip reaches for its spine, not its legs), and a leaf that ends a chain (its
 * parent's only child: finger tip, toe, head) points along it for the distance to its parent's head. Otherwise, and
 * for sibling leaves (ears, jaw): with several children towards their average head as far as the child most in
 * line with that direction reaches along it (a body joint with limbs beside it reaches its neck; else as far as
 * the nearest child; the average itself when it or a child coincides with the head); a leaf head + (head - parent
 * head) (a lone root: tail = head). sk_bind with a skeleton then aims sibling leaves at the mesh: a leaf whose
 * head lies on a connected part of the mesh nearer to it than to its parent's head points through that part.
 * space = sk_bone_space (SK_ERR_INVALID_ARGUMENT otherwise). */
SK_API sk_result sk_skeleton_bone_segments(const sk_skeleton* skeleton, uint32_t space, float* out_heads,
                                           float* out_tails, sk_error* err);
/* Binds the mesh: writes weights into out (created by the caller with sk_skin_create(vertex_count, joint_count);
 * SK_ERR_INVALID_ARGUMENT when the counts differ). report (optional) must have .size set. */
SK_API sk_result sk_bind(const sk_bind_desc* desc, sk_skin* out, sk_bind_report* report, sk_error* err);

/* Fit check (ABI 1.5): does the armature sit in the mesh? Run it before sk_bind: bones imported with the wrong
 * axis or scale, moved away or taken from another character give weights worse than none, yet every method
 * succeeds. Reads desc's positions, vertex_count, skeleton + bone_space (or heads/tails/joint_count) and deform;
 * ignores the rest. Head, middle and tail of each deform bone (at most 768 points) must lie inside the mesh's box
 * grown by 10 % of its diagonal and within 35 % of the diagonal of a mesh vertex; ok when >= 75 % of them do and
 * the bones' box diagonal is 0.1 .. 3 x the mesh's. Bounded work: at most 768 points x 4096 vertices. */
typedef enum sk_bind_fit_hint {
  SK_BIND_FIT_HINT_NONE = 0,   /* ok */
  SK_BIND_FIT_HINT_SCALE = 1,  /* the bones' size is off (scale_ratio): a unit mismatch, cm vs m? */
  SK_BIND_FIT_HINT_AXIS = 2,   /* the bones fit once turned 90 degrees about X: a Y-up / Z-up mix-up */
  SK_BIND_FIT_HINT_OFFSET = 3, /* moved away from the mesh, or another character's armature */
  SK_BIND_FIT_HINT_MAX_ENUM = 0x7fffffff
} sk_bind_fit_hint;
typedef struct sk_bind_fit {
  uint32_t size;       /* sizeof(sk_bind_fit), set by the caller */
  uint32_t ok;         /* 1 = the armature fits the mesh */
  uint32_t hint;       /* sk_bind_fit_hint */
  uint32_t reserved;
  double inside_share; /* share of the bone points that sit in the mesh, 0..1 */
  double scale_ratio;  /* the bones' box diagonal / the mesh box diagonal */
} sk_bind_fit;
SK_API sk_result sk_bind_fit_check(const sk_bind_desc* desc, sk_bind_fit* out, sk_error* err);

/* SK_SECTION bind (automatic binding): add declarations above this line */

#ifdef __cplusplus
}
#endif

#endif /* SKINKIT_H */
