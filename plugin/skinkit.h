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

/* Library version as MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 -> 100). */
#define SK_VERSION 100
/* ABI major: changes only on incompatible changes of this header. Bindings must refuse another major. */
#define SK_ABI_MAJOR 1
#define SK_ABI_MINOR 0

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
/* Name of the deformer kernel picked for this CPU at run time ("scalar", "sse2", "avx2"). */
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
 * local and out_world hold 16 * joint_count floats and must not overlap. */
SK_API sk_result sk_skeleton_world(const sk_skeleton* skeleton, const float* local, const float* root,
                                   float* out_world, sk_error* err);
/* Skinning palette M_j = world_j * inverse_bind_j (16 * joint_count floats each). inverse_bind NULL uses the
 * skeleton's; a skin bound with other bind matrices passes its own. out_palette may alias world. */
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
  SK_DEFORM_RIGID = 2 /* each vertex follows its largest-weight joint only (rigid parts / simple skin) */
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
  SK_DEFORM_NO_RENORMALIZE = 1 << 3
};

/* A deformation job: plain inputs and outputs over strided streams, validated before any work. No
 * allocation happens per vertex; the job may be run from any thread. Streams: positions, normals and
 * tangents are 3 floats per vertex at the given byte stride (0 = tightly packed, 12 bytes); tangents may carry
 * a 4th float (handedness) that is copied through when tangent_components = 4. Outputs may alias their inputs
 * (in-place) only with equal strides. */
typedef struct sk_deform_job {
  uint32_t size;            /* sizeof(sk_deform_job) */
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
} sk_deform_job;

/* Checks the job without running it: size field, method, counts, strides, K, types, required pairs of
 * streams, palette finiteness. */
SK_API sk_result sk_deform_validate(const sk_deform_job* job, sk_error* err);
/* Validates, then deforms. A vertex naming a joint >= joint_count (or a non-finite weight) keeps its input
 * position/normal, and the call returns SK_ERR_OUT_OF_RANGE after finishing all other vertices. */
SK_API sk_result sk_deform_run(const sk_deform_job* job, sk_error* err);

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

/* SK_SECTION io (scene import/export): add declarations above this line */

/* SK_SECTION weights (weight editing operations): add declarations above this line */

/* SK_SECTION skf (compressed skin format): add declarations above this line */

/* SK_SECTION bind (automatic binding): add declarations above this line */

#ifdef __cplusplus
}
#endif

#endif /* SKINKIT_H */
