/* skc_deform.h - skinning deformers (rigid, LBS, DQS, COR) over strided streams, and their run-time kernels.
 *
 * skc_deform_args mirrors the public sk_deform_job (plugin/skinkit.h) minus its size field; see the doc comments
 * there for the contract. The numeric values of methods, flags and types are the public ones.
 *
 * Layout: deform.c validates a job, prepares per-call palettes (aligned copy of M_j, normal matrices, dual
 * quaternions, stretch matrices) and splits the vertices into chunks run by one kernel, optionally on OpenMP
 * threads. A kernel (deform_scalar.c, deform_sse2.c, deform_avx2.c; deform_avx512.c adds a 16-wide path) is the same vertex-major loop
 * (deform_kernel.inc) instantiated with a different set of small vector primitives: a generic loop for every
 * job, and a fast loop for packed LBS / DQS without tangents (unrolled per influence count for tightly packed
 * u8 / u16 joints with float weights, two stages per block of vertices, branch-free SIMD renormalization).
 */
#ifndef SKC_DEFORM_H
#define SKC_DEFORM_H

#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

/* The kernel files (deform_*.c, deform_kernel.inc) force their helpers inline: every (format, influence count,
 * method) specialization then optimizes to straight-line code. Sanitizer and fuzz builds define
 * SKC_DEFORM_NO_FORCE_INLINE (CMakeLists.txt): instrumented before simplification, the ~100 inlined copies made
 * deform_avx2.o 139 MB under GCC's ASan + UBSan (265 MB under the fuzz build's clang) and took 430 s to compile, and
 * every test executable linked them. Plain calls check the same source lines once. */
#ifdef SKC_DEFORM_NO_FORCE_INLINE
#define SKC_KERNEL_INLINE static inline
#else
#define SKC_KERNEL_INLINE static inline __attribute__((always_inline))
#endif

/* COR: optimized centres of rotation (Le & Hodgins 2016; centres from skc_cor_compute, skc_cor.h). Per vertex the
 * rotation q = normalized blend of the joints' rotation quaternions (hemisphere of the largest-weight joint, as
 * DQS), the stretch S = sum w_j S_j (polar split as DQS, identity for rigid palettes), and
 * p' = R(q) S (p - c) + (sum w_j M_j) c, with c the vertex's centre. The generic loop implements it all; the AVX2
 * 8-wide path (also under AVX-512) takes rigid packed jobs, blending per influence one 16-float record of
 * skc_deform_ctx.cor_pm (rows 0..2 of M_j and the hemisphere-aligned q_j: the cost of an LBS blend). */
enum { SKC_DEFORM_LBS = 0, SKC_DEFORM_DQS = 1, SKC_DEFORM_RIGID = 2, SKC_DEFORM_COR = 3 };
enum {
  SKC_DEFORM_ADDITIVE = 1 << 0,
  SKC_DEFORM_NORMALIZE_WEIGHTS = 1 << 1,
  SKC_DEFORM_NORMAL_FAST = 1 << 2,
  SKC_DEFORM_NO_RENORMALIZE = 1 << 3,
  SKC_DEFORM_IMPLIED_LAST_WEIGHT = 1 << 4, /* packed weights hold K - 1 per vertex; the last is what they leave */
  SKC_DEFORM_ALL_FLAGS = (1 << 5) - 1
};
#define SKC_DEFORM_MAX_INFLUENCES 8u
#define SKC_DEFORM_MAX_JOINTS 65535u
/* A palette matrix counts as rigid when its upper 3x3 is orthonormal within this tolerance. */
#define SKC_DEFORM_RIGID_TOL 1e-4f

typedef struct skc_deform_args {
  uint32_t method; /* SKC_DEFORM_LBS / DQS / RIGID / COR */
  uint32_t flags;  /* SKC_DEFORM_* bits */
  uint32_t threads;
  size_t vertex_count;
  const float* palette;
  size_t joint_count;
  uint32_t influences; /* 1..8; 0 = CSR */
  int joint_type;      /* skc_type; 0 = U16 */
  int weight_type;     /* skc_type; 0 = F32 */
  const void* joints;
  size_t joints_stride;
  const void* weights;
  size_t weights_stride;
  const uint32_t* csr_offsets;
  const uint32_t* csr_joints;
  const float* csr_weights;
  const float* in_positions;
  size_t in_positions_stride;
  float* out_positions;
  size_t out_positions_stride;
  const float* in_normals;
  size_t in_normals_stride;
  float* out_normals;
  size_t out_normals_stride;
  const float* in_tangents;
  size_t in_tangents_stride;
  float* out_tangents;
  size_t out_tangents_stride;
  uint32_t tangent_components; /* 0/3 or 4 */
  const float* centers;        /* COR: 3 floats per vertex at centers_stride bytes (0 = 12); required for COR */
  size_t centers_stride;
} skc_deform_args;

/* O(joint_count) checks that touch no per-vertex data. Returns SKC_OK or the error code (message in err). */
int skc_deform_validate(const skc_deform_args* a, skc_err* err);
/* Validates, then deforms. Vertices naming a joint >= joint_count or carrying a non-finite weight (CSR: also a
 * decreasing offset) keep their input values; the call then returns SKC_OUT_OF_RANGE after all other vertices. */
int skc_deform_run(const skc_deform_args* a, skc_err* err);

/* ---- kernels (internal) --------------------------------------------------------------------------- */
typedef enum skc_deform_kernel {
  SKC_KERNEL_AUTO = -1,
  SKC_KERNEL_SCALAR = 0,
  SKC_KERNEL_SSE2 = 1,
  SKC_KERNEL_AVX2 = 2,
  SKC_KERNEL_AVX512 = 3
} skc_deform_kernel;

/* Kernel that the next run will use: a forced one (skc_deform_force_kernel), else the environment variable
 * SKINKIT_KERNEL=scalar|sse2|avx2|avx512, else the best one this CPU supports. A request this CPU cannot run falls
 * back to the best supported kernel. */
skc_deform_kernel skc_deform_active_kernel(void);
const char* skc_deform_kernel_name(skc_deform_kernel k);
/* Forces a kernel for all later runs in this process (tests); SKC_KERNEL_AUTO restores the default. */
void skc_deform_force_kernel(skc_deform_kernel k);
/* on != 0: later runs in this process take the generic loop of their kernel for every vertex (tests compare the
 * fast loops and the wide paths with it); 0 restores the choice by job. */
void skc_deform_force_generic(int on);

/* Prepared job shared by the kernels (read-only during the run). */
typedef struct skc_deform_ctx {
  uint32_t method, flags;
  uint32_t fmt; /* 0 = CSR, else joint_type * 8 + weight_type */
  uint32_t k;
  uint32_t jcount;
  int nonrigid;    /* some palette matrix has scale/shear: npalette holds inverse transposes */
  int dqs_scaled;  /* DQS / COR: stretch holds S_j of the polar decompositions */
  int has_n, has_t, tc4;
  int generic;           /* every vertex through the generic loop (skc_deform_force_generic: the tests' reference) */
  const float* palette;  /* 16 per joint, 32-byte aligned copy, bottom row (0, 0, 0, 1) */
  const float* npalette; /* normal matrices, or == palette when every matrix is rigid */
  const float* dq;       /* DQS / COR: 8 per joint (real xyzw, dual xyzw) */
  /* DQS / COR tables of the AVX-512 and AVX2 kernels (rigid palette, packed influences; deform.c wide_tables), or
   * NULL. dq_pm (DQS with dq_sel): per joint its dual quaternion, then the negation (16 floats, 64-byte aligned).
   * cor_pm (COR): per joint two 64-byte records, rows 0..2 of M_j (row-major) then q_j, and the same rows then
   * -q_j. dq_sel (enough vertices per joint pair) row p, entry (p << dq_sel_shift) + k: the byte offset in dq_pm
   * (DQS) or cor_pm (COR) of joint k's entry as the blend around pivot joint p takes it, the negated one when its
   * rotation quaternion has a negative dot with p's (the scalar loop's test). */
  const float* dq_pm;
  const float* cor_pm;
  /* when one sign s_k per joint explains every pair's hemisphere test (deform.c uniform_signs): joint k's DQS
   * (8 floats) or COR (16) record with the sign s_k, so that a blend around any pivot p is s_p times the blend of
   * these */
  const float* dq_uni;
  const uint16_t* dq_sel;
  /* dq_sel for the AVX2 kernel's DQS with at most 128 joints: one byte an entry, 2 k + (1 for the negated record),
   * i.e. the byte offset / 32; rows at the same (p << dq_sel_shift) entries. Half the bytes in L1 (1M vertices:
   * the AVX2 DQS job 5-7 % faster than with dq_sel); NULL otherwise. */
  const uint8_t* dq_sel8;
  uint32_t dq_sel_shift;
  /* COR with dq_sel, at most 64 joints and the avx512 kernel: the same sign tests as bits, cor_bits[p] bit k (k < 32)
   * and cor_bits[64 + p] bit k - 32: joint k's record around pivot p is the negated one. 512 bytes, 64-byte aligned,
   * rows past the joint count 0. The AVX-512 kernel looks a block's rows up in registers (permutes) and resolves
   * every influence's record offset two blocks ahead, so its blend has no table load; NULL otherwise. */
  const uint32_t* cor_bits;
  const float* stretch;  /* DQS scaled: 16 per joint (upper 3x3 = S_j, rest zero) */
  const unsigned char* joints;
  const unsigned char* weights;
  size_t jstride, wstride;
  const uint32_t* csr_offsets;
  const uint32_t* csr_joints;
  const float* csr_weights;
  const unsigned char* pin;
  unsigned char* pout;
  const unsigned char* nin;
  unsigned char* nout;
  const unsigned char* tin;
  unsigned char* tout;
  size_t pis, pos, nis, nos, tis, tos;
  const unsigned char* cin; /* COR centres */
  size_t cis;
} skc_deform_ctx;

/* Each deforms vertices [begin, end) and returns how many were left at their input for bad influences. */
size_t skc_deform_kernel_scalar(const skc_deform_ctx* c, size_t begin, size_t end);
size_t skc_deform_kernel_sse2(const skc_deform_ctx* c, size_t begin, size_t end);
size_t skc_deform_kernel_avx2(const skc_deform_ctx* c, size_t begin, size_t end);
/* 16-wide SoA path for the common packed jobs (deform_avx512.c); everything else goes to the AVX2 kernel, so
 * it needs AVX2 + FMA as well as AVX-512 F/VL/BW/DQ. */
size_t skc_deform_kernel_avx512(const skc_deform_ctx* c, size_t begin, size_t end);
/* Which loop took a job's vertices, counted per chunk in the whole process (for tests and benchmarks: a job that
 * silently falls back to a slower loop shows up here). GENERIC: the per-vertex generic loop (kbody) took the
 * chunk whole; FAST: the per-vertex fast loop; SOA8: the AVX2 8-wide path; WIDE16: the AVX-512 16-wide path.
 * Blocks that a fast path hands to the generic loop for unusual vertices (bad joint, zero normal, ...) are not
 * counted separately: they are part of the path that took the chunk. UNIFORM_SIGNS is not a loop but a count
 * within SOA8: the DQS / COR vertices it blended from consistently signed records (skc_deform_ctx.dq_uni).
 * SIGN_BITS, likewise within WIDE16: the COR vertices blended from record offsets resolved from the sign bits
 * (skc_deform_ctx.cor_bits) instead of the (pivot, joint) table's entries. */
typedef enum skc_deform_path {
  SKC_DEFORM_PATH_GENERIC = 0,
  SKC_DEFORM_PATH_FAST = 1,
  SKC_DEFORM_PATH_SOA8 = 2,
  SKC_DEFORM_PATH_WIDE16 = 3,
  SKC_DEFORM_PATH_UNIFORM_SIGNS = 4,
  SKC_DEFORM_PATH_SIGN_BITS = 5,
  SKC_DEFORM_PATH_COUNT = 6
} skc_deform_path;
/* Adds n vertices to a path's counter (relaxed atomics; called by the kernels once per chunk). */
void skc_deform_path_note(skc_deform_path p, size_t n);
/* Copies the counters (vertices per path since the last reset) into out[SKC_DEFORM_PATH_COUNT]. */
void skc_deform_path_counts(uint64_t out[SKC_DEFORM_PATH_COUNT]);
void skc_deform_path_reset(void);
const char* skc_deform_path_name(skc_deform_path p);

/* 1 if the kernel was compiled in (the SSE2/AVX2/AVX-512 ones need an x86 compiler). */
int skc_deform_kernel_sse2_available(void);
int skc_deform_kernel_avx2_available(void);
int skc_deform_kernel_avx512_available(void);

#endif
