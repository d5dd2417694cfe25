/* deform.c - deform job validation, per-call palette preparation, kernel dispatch and threading. */
#include "skc_deform.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skc_math.h"
#include "skc_skin.h"

#if defined(SK_HAVE_OPENMP)
#include <omp.h>
#endif

/* ---------------------------------------------------------------------------------------------- kernels */

static atomic_int g_forced = SKC_KERNEL_AUTO;
static atomic_int g_generic;
static _Atomic uint64_t g_path[SKC_DEFORM_PATH_COUNT];

void skc_deform_path_note(skc_deform_path p, size_t n) {
  if ((unsigned)p < SKC_DEFORM_PATH_COUNT) atomic_fetch_add_explicit(&g_path[p], (uint64_t)n, memory_order_relaxed);
}
void skc_deform_path_counts(uint64_t out[SKC_DEFORM_PATH_COUNT]) {
  for (int i = 0; i < SKC_DEFORM_PATH_COUNT; ++i) out[i] = atomic_load_explicit(&g_path[i], memory_order_relaxed);
}
void skc_deform_path_reset(void) {
  for (int i = 0; i < SKC_DEFORM_PATH_COUNT; ++i) atomic_store_explicit(&g_path[i], 0, memory_order_relaxed);
}
const char* skc_deform_path_name(skc_deform_path p) {
  static const char* const names[SKC_DEFORM_PATH_COUNT] = {"generic", "fast",          "soa8",
                                                           "wide16",  "uniform-signs", "sign-bits"};
  return (unsigned)p < SKC_DEFORM_PATH_COUNT ? names[p] : "?";
}

void skc_deform_force_kernel(skc_deform_kernel k) { atomic_store(&g_forced, (int)k); }
void skc_deform_force_generic(int on) { atomic_store(&g_generic, on != 0); }

const char* skc_deform_kernel_name(skc_deform_kernel k) {
  switch (k) {
    case SKC_KERNEL_SCALAR:
      return "scalar";
    case SKC_KERNEL_SSE2:
      return "sse2";
    case SKC_KERNEL_AVX2:
      return "avx2";
    case SKC_KERNEL_AVX512:
      return "avx512";
    default:
      return "auto";
  }
}

static bool cpu_has_avx2(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (!skc_deform_kernel_avx2_available()) return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

/* AVX-512 needs the CPU feature bits and the OS saving the opmask and zmm state: XCR0 bits 1, 2 (SSE, AVX), 5, 6
 * and 7 (opmask, zmm0-15 upper halves, zmm16-31), read with xgetbv after checking OSXSAVE (CPUID.1:ECX bit 27).
 * libgcc's __builtin_cpu_supports checks XCR0 too; the explicit test keeps that independent of its version. */
static bool cpu_has_avx512_probe(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  if (!skc_deform_kernel_avx512_available() || !cpu_has_avx2()) return false;
  if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")))
    return false;
  uint32_t eax = 1, ebx, ecx = 0, edx;
  __asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
  if (!(ecx & (1u << 27))) return false;
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  return (lo & 0xE6u) == 0xE6u;
#else
  return false;
#endif
}

/* cpuid traps to the hypervisor on virtual machines: probe once per process */
static bool cpu_has_avx512(void) {
  static atomic_int cached = -1;
  int v = atomic_load(&cached);
  if (v < 0) {
    v = cpu_has_avx512_probe() ? 1 : 0;
    atomic_store(&cached, v);
  }
  return v == 1;
}

static bool kernel_supported(skc_deform_kernel k) {
  switch (k) {
    case SKC_KERNEL_SCALAR:
      return true;
    case SKC_KERNEL_SSE2:
      return skc_deform_kernel_sse2_available() != 0;
    case SKC_KERNEL_AVX2:
      return cpu_has_avx2();
    case SKC_KERNEL_AVX512:
      return cpu_has_avx512();
    default:
      return false;
  }
}

skc_deform_kernel skc_deform_active_kernel(void) {
  skc_deform_kernel k = (skc_deform_kernel)atomic_load(&g_forced);
  if (k == SKC_KERNEL_AUTO) {
    const char* env = getenv("SKINKIT_KERNEL");
    if (env && strcmp(env, "scalar") == 0)
      k = SKC_KERNEL_SCALAR;
    else if (env && strcmp(env, "sse2") == 0)
      k = SKC_KERNEL_SSE2;
    else if (env && strcmp(env, "avx2") == 0)
      k = SKC_KERNEL_AVX2;
    else if (env && strcmp(env, "avx512") == 0)
      k = SKC_KERNEL_AVX512;
  }
  if (k != SKC_KERNEL_AUTO && kernel_supported(k)) return k;
  if (cpu_has_avx512()) return SKC_KERNEL_AVX512;
  if (cpu_has_avx2()) return SKC_KERNEL_AVX2;
  if (skc_deform_kernel_sse2_available()) return SKC_KERNEL_SSE2;
  return SKC_KERNEL_SCALAR;
}

typedef size_t (*kernel_fn)(const skc_deform_ctx*, size_t, size_t);

static kernel_fn kernel_of(skc_deform_kernel k) {
  switch (k) {
    case SKC_KERNEL_AVX512:
      return skc_deform_kernel_avx512;
    case SKC_KERNEL_AVX2:
      return skc_deform_kernel_avx2;
    case SKC_KERNEL_SSE2:
      return skc_deform_kernel_sse2;
    default:
      return skc_deform_kernel_scalar;
  }
}

/* ---------------------------------------------------------------------------------------------- validate */

static bool type_ok_joint(int t) { return t == SKC_TYPE_U8 || t == SKC_TYPE_U16 || t == SKC_TYPE_U32; }
static bool type_ok_weight(int t) { return t == SKC_TYPE_U8 || t == SKC_TYPE_U16 || t == SKC_TYPE_F32; }

static int check_stream(const void* in, size_t in_stride, const void* out, size_t out_stride, size_t elem,
                        const char* name, bool required, skc_err* err) {
  if (!in && !out) {
    if (required) return skc_fail(err, SKC_INVALID_ARGUMENT, "in_%s and out_%s are required", name, name);
    return SKC_OK;
  }
  if (!in || !out)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "in_%s and out_%s must be given together", name, name);
  if (in_stride != 0 && in_stride < elem)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "in_%s_stride %zu is below the element size %zu", name, in_stride,
                    elem);
  if (out_stride != 0 && out_stride < elem)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "out_%s_stride %zu is below the element size %zu", name,
                    out_stride, elem);
  size_t is = in_stride ? in_stride : elem, os = out_stride ? out_stride : elem;
  if ((const void*)in == (const void*)out && is != os)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "in-place %s need equal input and output strides", name);
  return SKC_OK;
}

int skc_deform_validate(const skc_deform_args* a, skc_err* err) {
  if (!a) return skc_fail(err, SKC_INVALID_ARGUMENT, "job must not be NULL");
  if (a->method > SKC_DEFORM_COR) return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown method %u", a->method);
  if (a->method == SKC_DEFORM_COR && !a->centers)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "method COR needs centers (3 floats per vertex, from sk_cor_compute)");
  if (a->method == SKC_DEFORM_COR && a->centers_stride != 0 && a->centers_stride < 12)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "centers_stride %zu is below the element size 12", a->centers_stride);
  if (a->flags & ~(uint32_t)SKC_DEFORM_ALL_FLAGS)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown flag bits 0x%x", a->flags & ~(uint32_t)SKC_DEFORM_ALL_FLAGS);
  if (a->vertex_count == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "vertex_count is 0");
  if (a->joint_count == 0 || a->joint_count > SKC_DEFORM_MAX_JOINTS)
    return skc_fail(err, SKC_OUT_OF_RANGE, "joint_count %zu is outside 1..%u", a->joint_count, SKC_DEFORM_MAX_JOINTS);
  if (!a->palette) return skc_fail(err, SKC_INVALID_ARGUMENT, "palette must not be NULL");
  if (a->influences > SKC_DEFORM_MAX_INFLUENCES)
    return skc_fail(err, SKC_OUT_OF_RANGE, "influences %u is outside 1..%u (0 selects CSR)", a->influences,
                    SKC_DEFORM_MAX_INFLUENCES);
  const uint32_t implied = (a->flags & SKC_DEFORM_IMPLIED_LAST_WEIGHT) != 0;
  if (implied && a->influences == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "IMPLIED_LAST_WEIGHT needs packed influences (influences 1..8)");
  if (a->influences > 0) {
    int jt = a->joint_type ? a->joint_type : SKC_TYPE_U16;
    int wt = a->weight_type ? a->weight_type : SKC_TYPE_F32;
    if (!type_ok_joint(jt)) return skc_fail(err, SKC_INVALID_ARGUMENT, "joint_type %d is not U8, U16 or U32", jt);
    if (!type_ok_weight(wt)) return skc_fail(err, SKC_INVALID_ARGUMENT, "weight_type %d is not F32, U8 or U16", wt);
    if (!a->joints || (!a->weights && a->influences > implied))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "joints and weights must not be NULL with influences = %u",
                      a->influences);
    size_t jrow = skc_type_size(jt) * a->influences, wrow = skc_type_size(wt) * (a->influences - implied);
    if (a->joints_stride != 0 && a->joints_stride < jrow)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "joints_stride %zu is below %u influences of %zu bytes",
                      a->joints_stride, a->influences, skc_type_size(jt));
    if (a->weights_stride != 0 && a->weights_stride < wrow)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "weights_stride %zu is below %u influences of %zu bytes",
                      a->weights_stride, a->influences, skc_type_size(wt));
  } else if (!a->csr_offsets || !a->csr_joints || !a->csr_weights) {
    return skc_fail(err, SKC_INVALID_ARGUMENT, "influences = 0 selects CSR: csr_offsets, csr_joints and csr_weights "
                                               "must not be NULL");
  }
  if (a->tangent_components != 0 && a->tangent_components != 3 && a->tangent_components != 4)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "tangent_components %u is not 3 or 4", a->tangent_components);
  int rc = check_stream(a->in_positions, a->in_positions_stride, a->out_positions, a->out_positions_stride, 12,
                        "positions", true, err);
  if (rc) return rc;
  rc = check_stream(a->in_normals, a->in_normals_stride, a->out_normals, a->out_normals_stride, 12, "normals", false,
                    err);
  if (rc) return rc;
  rc = check_stream(a->in_tangents, a->in_tangents_stride, a->out_tangents, a->out_tangents_stride,
                    a->tangent_components == 4 ? 16 : 12, "tangents", false, err);
  if (rc) return rc;
  for (size_t j = 0; j < a->joint_count; ++j) {
    const float* m = a->palette + 16 * j;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) {
        float x;
        memcpy(&x, m + c * 4 + r, sizeof x);
        if (!isfinite(x))
          return skc_fail(err, SKC_SINGULAR_MATRIX, "palette matrix %zu has a non-finite entry (column %d, row %d)",
                          j, c, r);
      }
  }
  return SKC_OK;
}

/* ---------------------------------------------------------------------------------------------- run */

#define STACK_JOINTS 256
#define FLOATS_PER_JOINT (16 + 16 + 8 + 16)
#define CHUNK 8192

/* Fills the palette-derived arrays of ctx from scratch (FLOATS_PER_JOINT * J floats, 32-byte aligned). */
static void prepare(const skc_deform_args* a, float* scratch, skc_deform_ctx* c) {
  size_t J = a->joint_count;
  float* pal = scratch;
  float* npal = pal + 16 * J;
  float* dq = npal + 16 * J;
  float* st = dq + 8 * J;
  bool nonrigid = false;
  for (size_t j = 0; j < J; ++j) {
    float* m = pal + 16 * j;
    memcpy(m, a->palette + 16 * j, 16 * sizeof(float));
    m[3] = m[7] = m[11] = 0.0f;
    m[15] = 1.0f;
    if (!skc_mat4_is_rigid(m, SKC_DEFORM_RIGID_TOL)) nonrigid = true;
  }
  c->palette = pal;
  c->npalette = pal;
  c->nonrigid = 0;
  c->dqs_scaled = 0;
  c->dq = NULL;
  c->stretch = NULL;
  if (nonrigid && c->has_n) {
    c->nonrigid = 1;
    c->npalette = npal;
    for (size_t j = 0; j < J; ++j)
      if (!skc_mat4_normal_matrix(pal + 16 * j, npal + 16 * j)) memset(npal + 16 * j, 0, 16 * sizeof(float));
  }
  if (a->method == SKC_DEFORM_DQS || a->method == SKC_DEFORM_COR) { /* COR blends the rotations the same way */
    c->dq = dq;
    c->dqs_scaled = nonrigid;
    if (nonrigid) c->stretch = st;
    for (size_t j = 0; j < J; ++j) {
      const float* m = pal + 16 * j;
      float q[4], r[16], s[16];
      if (!nonrigid || skc_mat4_is_rigid(m, SKC_DEFORM_RIGID_TOL)) {
        skc_quat_from_mat4(m, q);
        skc_mat4_identity(s);
      } else if (skc_mat4_polar(m, r, s)) {
        skc_quat_from_mat4(r, q);
      } else { /* singular: no rotation to extract; the linear pass carries the whole 3x3 */
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        memcpy(s, m, sizeof s);
      }
      if (nonrigid) {
        float* sj = st + 16 * j;
        for (int i = 0; i < 16; ++i) sj[i] = 0.0f;
        for (int col = 0; col < 3; ++col)
          for (int row = 0; row < 3; ++row) sj[col * 4 + row] = s[col * 4 + row];
      }
      skc_dq_from_rt(q, m + 12, dq + 8 * j);
    }
  }
}

/* The per-call tables of the AVX-512 and AVX2 wide paths (skc_deform_ctx.dq_pm / cor_pm / dq_sel) in one 64-byte
 * aligned block, for the jobs those paths take (rigid DQS or COR, packed u8 / u16 joints with K = 1, 2, 4 or 8 f32
 * weights, packed float3 streams, no tangents, no flags but NO_RENORMALIZE):
 * - COR: cor_pm, always (the AVX2 path blends nothing else);
 * - DQS: dq_pm, only with the hemisphere table (dq_uni holds what the uniform-sign paths need);
 * - the hemisphere table dq_sel: the sign test of every (pivot, joint) pair with the scalar loop's dot product, in
 *   the same order of operations (the loop over k vectorizes lane by lane, so each dot is the scalar one). Built
 *   when it pays off: K >= 2, at most DQ_TABLE_MAX_JOINTS joints (rows stay in L1/L2) and at least J^2 vertices
 *   (an entry costs a small fraction of the dots it saves a vertex: measured faster from V = J^2 on for J = 64
 *   and 256), and only when the signs are not uniform;
 * - dq_uni, when the signs are consistent (one sign per joint explains every pair's test;
 *   a posed character's joints, all turned less than 180 degrees from the bind pose relative to one rotation,
 *   have one): each joint's record with that sign. K >= 2, at most DQ_UNIFORM_MAX_JOINTS joints and at least
 *   J^2 / 8 vertices (the check costs up to J^2 / 2 dots). Every blend around a pivot p is then s_p times the
 *   blend of these records (negation is exact) and a dual quaternion and its negation move a point alike, so the
 *   AVX2 and AVX-512 paths blend them without a pivot and get the per-pivot results bit for bit.
 * NULL when the job is not one of those or memory is short (DQS then computes the dots per vertex; COR runs the
 * generic loop). */
#define DQ_TABLE_MAX_JOINTS 256
#define DQ_UNIFORM_MAX_JOINTS 1024
static bool wide_job(const skc_deform_ctx* c) {
  const uint32_t jt = c->fmt >> 3, wt = c->fmt & 7, K = c->k;
  return (c->method == SKC_DEFORM_DQS || c->method == SKC_DEFORM_COR) && !c->dqs_scaled && !c->has_t &&
         (jt == SKC_TYPE_U8 || jt == SKC_TYPE_U16) && wt == SKC_TYPE_F32 && (K == 1 || K == 2 || K == 4 || K == 8) &&
         (c->flags & ~(uint32_t)SKC_DEFORM_NO_RENORMALIZE) == 0 && c->jstride == (size_t)K * jt &&
         c->wstride == (size_t)K * 4 && c->pis == 12 && c->pos == 12 && (!c->has_n || (c->nis == 12 && c->nos == 12)) &&
         (c->method != SKC_DEFORM_COR || c->cis == 12);
}

/* COR's two records of joint j (32 floats): rows 0..2 of M_j (row-major, 12 floats) then +q_j, and the same rows
 * then -q_j, so that a vertex blends one 16-float record per influence (the cost of an LBS blend) and takes the
 * sign of each q_j by picking the record. */
static void cor_records(const skc_deform_ctx* c, size_t j, float* rec) {
  const float* m = c->palette + 16 * j;
  const float* q = c->dq + 8 * j;
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 4; ++col) rec[4 * r + col] = rec[16 + 4 * r + col] = m[4 * col + r];
  for (int i = 0; i < 4; ++i) {
    rec[12 + i] = q[i];
    rec[28 + i] = -q[i];
  }
}

/* The scalar loop's hemisphere test of joint k around pivot p: q_k . q_p < 0, in its order of operations (kbody:
 * dq[0] * q0[0] + ...; the products commute, so the test of (p, k) is that of (k, p)). */
static int neg_dot(const float* dq, size_t p, size_t k) {
  const float *a = dq + 8 * k, *b = dq + 8 * p;
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f;
}

/* Whether one sign s_k per joint (s_0 = +) explains every pair's test: "q_k has a negative dot with q_p" exactly
 * when s_p != s_k. neg0[k] then holds s_k != s_0. Stops at the first pair that disagrees (a palette of unrelated
 * rotations does so within a few joints). */
static int uniform_signs(const skc_deform_ctx* c, size_t J, uint8_t* neg0) {
  for (size_t k = 0; k < J; ++k) neg0[k] = (uint8_t)neg_dot(c->dq, 0, k);
  for (size_t p = 1; p < J; ++p)
    for (size_t k = p + 1; k < J; ++k)
      if (neg_dot(c->dq, p, k) != (neg0[p] != neg0[k])) return 0;
  return 1;
}

/* The sign table dq_sel: row p, entry k = the byte offset of joint k's record as the blend around pivot p takes
 * it (the negated one after a negative dot). */
static void sign_table(const skc_deform_ctx* c, size_t J, size_t rec, uint32_t sh, uint16_t* sel) {
  float qx[DQ_TABLE_MAX_JOINTS], qy[DQ_TABLE_MAX_JOINTS], qz[DQ_TABLE_MAX_JOINTS], qw[DQ_TABLE_MAX_JOINTS];
  for (size_t j = 0; j < J; ++j) {
    const float* q = c->dq + 8 * j;
    qx[j] = q[0];
    qy[j] = q[1];
    qz[j] = q[2];
    qw[j] = q[3];
  }
  for (size_t p = 0; p < J; ++p) {
    const float x0 = qx[p], y0 = qy[p], z0 = qz[p], w0 = qw[p];
    uint16_t* row = sel + (p << sh);
    for (size_t k = 0; k < J; ++k) {
      float d = qx[k] * x0 + qy[k] * y0 + qz[k] * z0 + qw[k] * w0; /* kbody: dq[0] * q0[0] + ... */
      row[k] = (uint16_t)(rec * k + (d < 0.0f ? rec / 2 : 0));
    }
  }
}

/* COR's sign bits for at most 64 joints (skc_deform_ctx.cor_bits) from the table's entries: bit k of row p is set
 * when the entry is the negated record's (the second half of joint k's rec bytes). */
#define COR_BITS_MAX_JOINTS 64
static void cor_sign_bits(size_t J, size_t rec, uint32_t sh, const uint16_t* sel, uint32_t* bits) {
  memset(bits, 0, 2 * COR_BITS_MAX_JOINTS * sizeof *bits);
  for (size_t p = 0; p < J; ++p)
    for (size_t k = 0; k < J; ++k)
      if (sel[(p << sh) + k] % rec != 0) bits[(k < 32 ? 0 : COR_BITS_MAX_JOINTS) + p] |= 1u << (k & 31);
}

/* Joint j's + and - records (rec bytes together) at pm + rec j: COR's (cor_records) or DQS's dual quaternion. */
static void signed_records(const skc_deform_ctx* c, bool cor, size_t J, float* pm) {
  for (size_t j = 0; j < J; ++j) {
    if (cor) {
      cor_records(c, j, pm + 32 * j);
      continue;
    }
    const float* q = c->dq + 8 * j;
    for (int i = 0; i < 8; ++i) {
      pm[16 * j + (size_t)i] = q[i];
      pm[16 * j + 8 + (size_t)i] = -q[i];
    }
  }
}

/* Joint k's dual quaternion with the sign s_k (neg0[k]: negated), 8 floats each. */
static void signed_dq(const skc_deform_ctx* c, size_t J, const uint8_t* neg0, float* u) {
  for (size_t k = 0; k < J; ++k)
    for (size_t i = 0; i < 8; ++i) u[8 * k + i] = neg0[k] ? -c->dq[8 * k + i] : c->dq[8 * k + i];
}

/* Whether the uniform-sign check is worth running: K >= 2, at most DQ_UNIFORM_MAX_JOINTS joints, and at least J^2
 * / 8 vertices (it costs up to J^2 / 2 dots; a vertex's own test costs K). */
static bool uniform_worth(const skc_deform_ctx* c, size_t J, size_t V) {
  return c->k >= 2 && J <= DQ_UNIFORM_MAX_JOINTS && J * J <= 8 * V;
}

/* For the other kernels' per-vertex fast loop (packed rigid DQS): dq_uni alone when the signs are uniform, so the
 * loop skips its pivot and dot products. NULL when not (or memory is short: the loop computes them). */
static void* uniform_dq(skc_deform_ctx* c, size_t V) {
  size_t J = c->jcount;
  uint8_t neg0[DQ_UNIFORM_MAX_JOINTS];
  if (c->method != SKC_DEFORM_DQS || c->dqs_scaled || c->fmt == 0 || !uniform_worth(c, J, V) ||
      !uniform_signs(c, J, neg0))
    return NULL;
  float* u = aligned_alloc(64, (32 * J + 63) & ~(size_t)63);
  if (!u) return NULL;
  signed_dq(c, J, neg0, u);
  c->dq_uni = u;
  return u;
}

static void* wide_tables(skc_deform_ctx* c, size_t V, skc_deform_kernel kid) {
  size_t J = c->jcount;
  if (!wide_job(c)) return NULL;
  const bool cor = c->method == SKC_DEFORM_COR;
  /* the consistency check costs up to J^2 / 2 dots: worth it from J^2 / 8 vertices (4 dots each otherwise) */
  uint8_t neg0[DQ_UNIFORM_MAX_JOINTS];
  const bool uni = uniform_worth(c, J, V) && uniform_signs(c, J, neg0);
  /* with uniform signs no path reads the table: every blend takes the signed records */
  const bool table = c->k >= 2 && J <= DQ_TABLE_MAX_JOINTS && J * J <= V && !uni;
  if (!cor && !table && !uni) return NULL;
  uint32_t sh = 0;
  while (((size_t)1 << sh) < J) ++sh;
  const size_t rec = cor ? 128 : 64; /* bytes per joint: the + and - records */
  /* pm (COR, or DQS with the table) | uni | sel; every part a multiple of 32 bytes */
  const size_t pm_bytes = cor || table ? rec * J : 0, uni_bytes = uni ? rec / 2 * J : 0;
  const size_t sel_bytes = table ? (J << sh) * sizeof(uint16_t) : 0;
  /* entries 2 k + s fit a byte */
  const bool sel8 = table && !cor && kid == SKC_KERNEL_AVX2 && J <= 128;
  /* COR's sign bits (read by the AVX-512 kernel only): after the other parts, on a 64-byte boundary */
  const bool bits = table && cor && J <= COR_BITS_MAX_JOINTS && kid == SKC_KERNEL_AVX512;
  const size_t head = (pm_bytes + uni_bytes + sel_bytes + (sel8 ? J << sh : 0) + 63) & ~(size_t)63;
  const size_t bytes = head + (bits ? 2 * COR_BITS_MAX_JOINTS * sizeof(uint32_t) : 0);
  float* pm = aligned_alloc(64, bytes);
  if (!pm) return NULL;
  float* recs = pm;
  if (pm_bytes) {
    signed_records(c, cor, J, pm);
    if (cor)
      c->cor_pm = pm;
    else
      c->dq_pm = pm;
  }
  if (uni) {
    float* u = (float*)(void*)((unsigned char*)pm + pm_bytes);
    const size_t f = rec / 8; /* floats per signed record */
    if (!pm_bytes) { /* DQS: the records are only needed signed */
      signed_dq(c, J, neg0, u);
    } else {
      for (size_t k = 0; k < J; ++k) memcpy(u + f * k, recs + 2 * f * k + (neg0[k] ? f : 0), f * sizeof *u);
    }
    c->dq_uni = u;
  }
  if (table) {
    uint16_t* sel = (uint16_t*)(void*)((unsigned char*)pm + pm_bytes + uni_bytes);
    sign_table(c, J, rec, sh, sel);
    c->dq_sel = sel;
    c->dq_sel_shift = sh;
    if (sel8) { /* DQS records are 32 bytes: offset / 32 = 2 k + s */
      uint8_t* s8 = (uint8_t*)sel + sel_bytes;
      for (size_t p = 0; p < J; ++p)
        for (size_t k = 0; k < J; ++k) s8[(p << sh) + k] = (uint8_t)(sel[(p << sh) + k] >> 5);
      c->dq_sel8 = s8;
    }
    if (bits) {
      uint32_t* b = (uint32_t*)(void*)((unsigned char*)pm + head);
      cor_sign_bits(J, rec, sh, sel, b);
      c->cor_bits = b;
    }
  }
  return pm;
}

/* The job's streams and formats into c (strides of 0 become the packed ones). */
static void ctx_from_args(const skc_deform_args* a, skc_deform_ctx* c) {
  memset(c, 0, sizeof *c);
  c->method = a->method;
  c->flags = a->flags;
  c->k = a->influences;
  c->jcount = (uint32_t)a->joint_count;
  if (a->influences > 0) {
    int jt = a->joint_type ? a->joint_type : SKC_TYPE_U16;
    int wt = a->weight_type ? a->weight_type : SKC_TYPE_F32;
    c->fmt = (uint32_t)(jt * 8 + wt);
    c->joints = (const unsigned char*)a->joints;
    c->weights = (const unsigned char*)a->weights;
    c->jstride = a->joints_stride ? a->joints_stride : skc_type_size(jt) * a->influences;
    c->wstride = a->weights_stride
                     ? a->weights_stride
                     : skc_type_size(wt) * (a->influences - ((a->flags & SKC_DEFORM_IMPLIED_LAST_WEIGHT) != 0));
  } else {
    c->fmt = 0;
    c->csr_offsets = a->csr_offsets;
    c->csr_joints = a->csr_joints;
    c->csr_weights = a->csr_weights;
  }
  c->pin = (const unsigned char*)a->in_positions;
  c->pout = (unsigned char*)a->out_positions;
  c->pis = a->in_positions_stride ? a->in_positions_stride : 12;
  c->pos = a->out_positions_stride ? a->out_positions_stride : 12;
  c->has_n = a->in_normals != NULL;
  if (c->has_n) {
    c->nin = (const unsigned char*)a->in_normals;
    c->nout = (unsigned char*)a->out_normals;
    c->nis = a->in_normals_stride ? a->in_normals_stride : 12;
    c->nos = a->out_normals_stride ? a->out_normals_stride : 12;
  }
  if (a->method == SKC_DEFORM_COR) {
    c->cin = (const unsigned char*)a->centers;
    c->cis = a->centers_stride ? a->centers_stride : 12;
  }
  c->has_t = a->in_tangents != NULL;
  c->tc4 = a->tangent_components == 4;
  c->generic = atomic_load(&g_generic);
  if (c->has_t) {
    size_t tb = c->tc4 ? 16 : 12;
    c->tin = (const unsigned char*)a->in_tangents;
    c->tout = (unsigned char*)a->out_tangents;
    c->tis = a->in_tangents_stride ? a->in_tangents_stride : tb;
    c->tos = a->out_tangents_stride ? a->out_tangents_stride : tb;
  }
}

/* The kernel over every vertex, in chunks shared by the job's threads; returns the vertices it left as they were. */
static size_t run_chunks(const skc_deform_args* a, const skc_deform_ctx* c, kernel_fn kernel) {
  const size_t V = a->vertex_count;
  size_t chunks = (V + CHUNK - 1) / CHUNK;
  size_t bad = 0;
#if defined(SK_HAVE_OPENMP)
  int nt = a->threads == 0 ? omp_get_max_threads() : (int)(a->threads > 4096 ? 4096 : a->threads);
  if ((size_t)nt > chunks) nt = (int)chunks;
  if (nt > 1) {
    long long nchunks = (long long)chunks;
    /* static: each thread takes one contiguous run of chunks (the kernels stream, so equal shares finish together,
     * and a thread keeps writing the pages it wrote on the previous call) */
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : bad)
    for (long long i = 0; i < nchunks; ++i) {
      size_t b = (size_t)i * CHUNK;
      size_t e = b + CHUNK < V ? b + CHUNK : V;
      bad += kernel(c, b, e);
    }
  } else {
    bad = kernel(c, 0, V);
  }
#else
  (void)chunks;
  bad = kernel(c, 0, V);
#endif
  return bad;
}

int skc_deform_run(const skc_deform_args* a, skc_err* err) {
  int rc = skc_deform_validate(a, err);
  if (rc) return rc;
  skc_deform_ctx c;
  ctx_from_args(a, &c);

  _Alignas(64) float stack_scratch[STACK_JOINTS * FLOATS_PER_JOINT];
  float* scratch = stack_scratch;
  void* heap = NULL;
  if (a->joint_count > STACK_JOINTS) {
    size_t bytes = a->joint_count * FLOATS_PER_JOINT * sizeof(float);
    bytes = (bytes + 63) & ~(size_t)63;
    heap = aligned_alloc(64, bytes);
    if (!heap) return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the palettes of %zu joints", a->joint_count);
    scratch = (float*)heap;
  }
  prepare(a, scratch, &c);

  skc_deform_kernel kid = skc_deform_active_kernel();
  void* hemi = NULL;
  if (kid == SKC_KERNEL_AVX512 || kid == SKC_KERNEL_AVX2)
    hemi = wide_tables(&c, a->vertex_count, kid);
  else
    hemi = uniform_dq(&c, a->vertex_count);
  size_t bad = run_chunks(a, &c, kernel_of(kid));
  free(hemi);
  free(heap);
  if (bad)
    return skc_fail(err, SKC_OUT_OF_RANGE,
                    "%zu of %zu vertices name a joint >= joint_count (%zu) or carry a non-finite weight; they kept "
                    "their input values",
                    bad, a->vertex_count, a->joint_count);
  skc_err_clear(err);
  return SKC_OK;
}
