/* deform_avx2.c - deform_kernel.inc with AVX2 + FMA primitives (built with -mavx2 -mfma, picked at run time).
 * A column-major matrix lives in two ymm registers, columns 0|1 and 2|3: blending a joint is two FMAs and a
 * transform is two broadcasts, one multiply, one FMA and a 128-bit fold. cglm must not be included here. */
#include "skc_deform.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <float.h>
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

typedef struct vmat {
  __m256 lo, hi; /* columns 0|1, columns 2|3 */
} vmat;
typedef __m256 vdq;

/* Two floats into the low half (the rest 0) from an address that need only be float-aligned: the weights of a K = 2
 * range start wherever the ranges before it end. _mm_load_sd would read them as a double, which C requires to be
 * 8-byte aligned (UBSan flags it); _mm_loadl_epi64 takes an unaligned pointer. */
SKC_KERNEL_INLINE __m128 load2(const float* p) {
  return _mm_castsi128_ps(_mm_loadl_epi64((const __m128i_u*)(const void*)p));
}

SKC_KERNEL_INLINE vmat vm_zero(void) {
  vmat r = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  return r;
}
SKC_KERNEL_INLINE vmat vm_load(const float* m) {
  vmat r = {_mm256_loadu_ps(m), _mm256_loadu_ps(m + 8)};
  return r;
}
SKC_KERNEL_INLINE vmat vm_fma(vmat a, const float* m, float w) {
  __m256 ws = _mm256_set1_ps(w);
  a.lo = _mm256_fmadd_ps(ws, _mm256_loadu_ps(m), a.lo);
  a.hi = _mm256_fmadd_ps(ws, _mm256_loadu_ps(m + 8), a.hi);
  return a;
}
SKC_KERNEL_INLINE vmat vm_add(vmat a, vmat b) {
  a.lo = _mm256_add_ps(a.lo, b.lo);
  a.hi = _mm256_add_ps(a.hi, b.hi);
  return a;
}
SKC_KERNEL_INLINE vmat vm_add_diag(vmat a, float s) {
  a.lo = _mm256_add_ps(a.lo, _mm256_setr_ps(s, 0, 0, 0, 0, s, 0, 0));
  a.hi = _mm256_add_ps(a.hi, _mm256_setr_ps(0, 0, s, 0, 0, 0, 0, 0));
  return a;
}
SKC_KERNEL_INLINE void store3(__m128 v, float out[3]) {
  float t[4];
  _mm_storeu_ps(t, v);
  out[0] = t[0];
  out[1] = t[1];
  out[2] = t[2];
}
SKC_KERNEL_INLINE void vm_point(vmat m, const float p[3], float out[3]) {
  __m256 xy = _mm256_setr_m128(_mm_set1_ps(p[0]), _mm_set1_ps(p[1]));
  __m256 z1 = _mm256_setr_m128(_mm_set1_ps(p[2]), _mm_set1_ps(1.0f));
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z1));
  store3(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), out);
}
SKC_KERNEL_INLINE void vm_dir(vmat m, const float d[3], float out[3]) {
  __m256 xy = _mm256_setr_m128(_mm_set1_ps(d[0]), _mm_set1_ps(d[1]));
  __m256 z0 = _mm256_setr_m128(_mm_set1_ps(d[2]), _mm_setzero_ps());
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z0));
  store3(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), out);
}
SKC_KERNEL_INLINE void vm_store(vmat m, float out[16]) {
  _mm256_storeu_ps(out, m.lo);
  _mm256_storeu_ps(out + 8, m.hi);
}
SKC_KERNEL_INLINE vdq vd_zero(void) { return _mm256_setzero_ps(); }
SKC_KERNEL_INLINE vdq vd_fma(vdq a, const float* d, float w) {
  return _mm256_fmadd_ps(_mm256_set1_ps(w), _mm256_loadu_ps(d), a);
}
SKC_KERNEL_INLINE void vd_store(vdq d, float out[8]) { _mm256_storeu_ps(out, d); }

SKC_KERNEL_INLINE vmat vm_scaled(const float* m, float w) {
  __m256 ws = _mm256_set1_ps(w);
  vmat r = {_mm256_mul_ps(ws, _mm256_loadu_ps(m)), _mm256_mul_ps(ws, _mm256_loadu_ps(m + 8))};
  return r;
}
SKC_KERNEL_INLINE vdq vd_scaled(const float* d, float w) { return _mm256_mul_ps(_mm256_set1_ps(w), _mm256_loadu_ps(d)); }
SKC_KERNEL_INLINE vdq vd_add(vdq a, vdq b) { return _mm256_add_ps(a, b); }

/* ---- fast-loop vertex primitives: the vertex stays in one register ---- */
typedef __m128 vp;

SKC_KERNEL_INLINE __m256 bcast_at(const unsigned char* p) {
  float x;
  memcpy(&x, p, sizeof x);
  return _mm256_set1_ps(x);
}
/* lo * (x x x x | y y y y) + hi * (z z z z | 1 1 1 1), folded: c0 x + c1 y + c2 z + c3 */
SKC_KERNEL_INLINE vp vm_point_m(vmat m, const unsigned char* p) {
  __m256 xy = _mm256_blend_ps(bcast_at(p), bcast_at(p + 4), 0xF0);
  __m256 z1 = _mm256_blend_ps(bcast_at(p + 8), _mm256_set1_ps(1.0f), 0xF0);
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z1));
  return _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
}
SKC_KERNEL_INLINE vp vm_dir_m(vmat m, const unsigned char* d) {
  __m256 xy = _mm256_blend_ps(bcast_at(d), bcast_at(d + 4), 0xF0);
  __m128 rz = _mm_mul_ps(_mm256_castps256_ps128(m.hi), _mm256_castps256_ps128(bcast_at(d + 8)));
  __m256 r = _mm256_mul_ps(m.lo, xy);
  return _mm_add_ps(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), rz);
}
/* |n|^2 broadcast, range [FLT_MIN, 3e38] as one unsigned compare of its bits, rsqrt with one
 * Newton-Raphson step (~1e-7) */
SKC_KERNEL_INLINE int vp_renorm(vp* n) {
  __m128 v = *n;
  __m128 sq = _mm_mul_ps(v, v); /* lane 3 is 0 (palette rows 3 are 0), or NaN, which fails the range test */
  __m128 s = _mm_add_ps(sq, _mm_permute_ps(sq, _MM_SHUFFLE(2, 3, 0, 1)));
  s = _mm_add_ps(s, _mm_permute_ps(s, _MM_SHUFFLE(1, 0, 3, 2)));
  uint32_t bits = (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(s));
  __m128 r = _mm_rsqrt_ps(s);
  __m128 hr = _mm_mul_ps(_mm_set1_ps(0.5f), r);
  r = _mm_mul_ps(hr, _mm_fnmadd_ps(_mm_mul_ps(s, r), r, _mm_set1_ps(3.0f)));
  *n = _mm_mul_ps(v, r);
  return bits - 0x00800000u <= 0x7f61b1e6u - 0x00800000u;
}
SKC_KERNEL_INLINE void vp_store3(unsigned char* d, vp v) {
  _mm_storel_pi((__m64*)(void*)d, v);
  int z = _mm_extract_ps(v, 2);
  memcpy(d + 8, &z, sizeof z);
}

/* ---- DQS in registers: hemisphere signs of K dot products at once, blend -> 3x4 matrix with shuffles ---- */
#define SKC_HAVE_VD_HEMI 1
#define SKC_HAVE_VD_TO_MAT 1
/* The K dot products four at a time (multiply, two horizontal adds), their signs xor-ed into the weights. */
SKC_KERNEL_INLINE void vd_hemi_weights(const float* DQ, const uint32_t* j, float* w,
                                                                  uint32_t K, const float* q0) {
  const __m128 r0 = _mm_loadu_ps(q0);
  const __m128 sign = _mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u));
  for (uint32_t g = 0; g < K; g += 4) {
    __m128 m[4];
    for (uint32_t i = 0; i < 4; ++i)
      m[i] = g + i < K ? _mm_mul_ps(_mm_loadu_ps(DQ + 8 * (size_t)j[g + i]), r0) : _mm_setzero_ps();
    __m128 d = _mm_hadd_ps(_mm_hadd_ps(m[0], m[1]), _mm_hadd_ps(m[2], m[3]));
    float t[4];
    _mm_storeu_ps(t, _mm_and_ps(d, sign));
    for (uint32_t i = 0; i < 4 && g + i < K; ++i)
      w[g + i] = _mm_cvtss_f32(_mm_xor_ps(_mm_set_ss(w[g + i]), _mm_load_ss(&t[i])));
  }
}
/* kdq_matrix in registers: with q2 = 2 q / |q|^2 and a = w q2_w - 1, column i = q2_i (x, y, z) + q2_w [e_i]x q
 * + a e_i, translation q2_w d - d_w q2 + q2 x d. Lane 3 of the columns is left unspecified (never read: vm_dir_m
 * and vp_renorm use lanes 0..2 only). */
SKC_KERNEL_INLINE int vd_to_mat(vdq D, vmat* M) {
  const int sg = (int)0x80000000u;
  const __m128 q = _mm256_castps256_ps128(D), d = _mm256_extractf128_ps(D, 1);
  __m128 l2 = _mm_mul_ps(q, q);
  l2 = _mm_add_ps(l2, _mm_permute_ps(l2, _MM_SHUFFLE(2, 3, 0, 1)));
  l2 = _mm_add_ps(l2, _mm_permute_ps(l2, _MM_SHUFFLE(1, 0, 3, 2)));
  const uint32_t bits = (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(l2));
  const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), l2);
  const __m128 q2 = _mm_mul_ps(_mm_add_ps(q, q), inv);
  const __m128 w2 = _mm_shuffle_ps(q2, q2, 0xFF);
  const __m128 a = _mm_fmsub_ps(_mm_shuffle_ps(q, q, 0xFF), w2, _mm_set1_ps(1.0f));
  const __m128 qz4 = _mm_blend_ps(q, _mm_setzero_ps(), 0x8);
  const __m256 qz = _mm256_set_m128(qz4, qz4);
  const __m256 q28 = _mm256_set_m128(q2, q2);
  const __m256 skew01 = _mm256_xor_ps(_mm256_permutevar8x32_ps(qz, _mm256_setr_epi32(3, 2, 1, 3, 2, 3, 0, 3)),
                                      _mm256_castsi256_ps(_mm256_setr_epi32(0, 0, sg, 0, sg, 0, 0, 0)));
  const __m256 ae01 = _mm256_and_ps(_mm256_set_m128(a, a), _mm256_castsi256_ps(_mm256_setr_epi32(-1, 0, 0, 0, 0, -1, 0, 0)));
  M->lo = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(q28, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1)), qz,
                          _mm256_fmadd_ps(_mm256_set_m128(w2, w2), skew01, ae01));
  const __m128 skew2 = _mm_xor_ps(_mm_shuffle_ps(qz4, qz4, _MM_SHUFFLE(3, 3, 0, 1)),
                                  _mm_castsi128_ps(_mm_setr_epi32(0, sg, 0, 0)));
  const __m128 c2 = _mm_fmadd_ps(_mm_shuffle_ps(q2, q2, 0xAA), qz4,
                                 _mm_fmadd_ps(w2, skew2, _mm_and_ps(a, _mm_castsi128_ps(_mm_setr_epi32(0, 0, -1, 0)))));
  const __m128 cross = _mm_fmsub_ps(_mm_shuffle_ps(q2, q2, _MM_SHUFFLE(3, 0, 2, 1)), _mm_shuffle_ps(d, d, _MM_SHUFFLE(3, 1, 0, 2)),
                                    _mm_mul_ps(_mm_shuffle_ps(q2, q2, _MM_SHUFFLE(3, 1, 0, 2)), _mm_shuffle_ps(d, d, _MM_SHUFFLE(3, 0, 2, 1))));
  const __m128 t = _mm_fmadd_ps(w2, d, _mm_fnmadd_ps(_mm_shuffle_ps(d, d, 0xFF), q2, cross));
  M->hi = _mm256_set_m128(t, c2);
  /* |q|^2 in (1e-30, 3e38] as one unsigned compare of its bits (NaN fails) */
  return bits - 0x0da24261u <= 0x71bf6f85u;
}

#define SKC_KERNEL_FN skc_deform_kernel_avx2
#define SKC_SOA_FN ksoa
#define SKC_SOA_COR 1 /* ksoa takes COR jobs too */
static int ksoa(const skc_deform_ctx* c, size_t b, size_t e, size_t* bad);
#include "deform_kernel.inc"

/* ---- 8-wide path: influences -> per-vertex matrix (or dual quaternion) in registers, then the vertex math for
 * 8 vertices at once in SoA form (x, y, z of 8 vertices per register). Covers the common job: packed u8/u16
 * joints with K = 1, 2, 4 or 8 float weights, packed float3 positions (and normals), LBS, RIGID, or rigid-palette DQS
 * or COR. A block of 8 vertices with anything unusual (bad joint or weight, weight sum 0 or not finite, zero normal,
 * cancelled DQS blend) is redone by kgeneric before anything of it is written, so results follow kbody. */

#define SKC_SOA_W 8

/* 8 packed float3 (96 bytes) -> x, y, z of vertices 0..7 (lanes 0-3 = vertices 0-3, lanes 4-7 = 4-7) */
SKC_KERNEL_INLINE void soa_load3(const unsigned char* p, __m256* x, __m256* y,
                                                            __m256* z) {
  const float* f = (const float*)(const void*)p;
  __m256 m03 = _mm256_castps128_ps256(_mm_loadu_ps(f + 0));
  __m256 m14 = _mm256_castps128_ps256(_mm_loadu_ps(f + 4));
  __m256 m25 = _mm256_castps128_ps256(_mm_loadu_ps(f + 8));
  m03 = _mm256_insertf128_ps(m03, _mm_loadu_ps(f + 12), 1);
  m14 = _mm256_insertf128_ps(m14, _mm_loadu_ps(f + 16), 1);
  m25 = _mm256_insertf128_ps(m25, _mm_loadu_ps(f + 20), 1);
  __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2));
  __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1));
  *x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));
  *y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));
  *z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));
}

/* inverse of soa_load3. Plain stores: non-temporal ones (16 bytes at a time, two output streams) made the whole
 * job 3.5x slower on this path (AMD Zen 3, 1M vertices, p+n: LBS 60 against 213 M vertices/s) */
SKC_KERNEL_INLINE void soa_store3(unsigned char* p, __m256 x, __m256 y, __m256 z) {
  float* f = (float*)(void*)p;
  __m256 rxy = _mm256_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0));
  __m256 ryz = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 1, 3, 1));
  __m256 rzx = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 1, 2, 0));
  __m256 r03 = _mm256_shuffle_ps(rxy, rzx, _MM_SHUFFLE(2, 0, 2, 0));
  __m256 r14 = _mm256_shuffle_ps(ryz, rxy, _MM_SHUFFLE(3, 1, 2, 0));
  __m256 r25 = _mm256_shuffle_ps(rzx, ryz, _MM_SHUFFLE(3, 1, 3, 1));
  _mm_storeu_ps(f + 0, _mm256_castps256_ps128(r03));
  _mm_storeu_ps(f + 4, _mm256_castps256_ps128(r14));
  _mm_storeu_ps(f + 8, _mm256_castps256_ps128(r25));
  _mm_storeu_ps(f + 12, _mm256_extractf128_ps(r03, 1));
  _mm_storeu_ps(f + 16, _mm256_extractf128_ps(r14, 1));
  _mm_storeu_ps(f + 20, _mm256_extractf128_ps(r25, 1));
}

/* 8 float4 (128 bytes: tangents with their handedness) -> x, y, z, w of vertices 0..7 */
SKC_KERNEL_INLINE void soa_load4(const unsigned char* p, __m256* x, __m256* y, __m256* z, __m256* w) {
  const float* f = (const float*)(const void*)p;
  const __m256 a = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f + 0)), _mm_loadu_ps(f + 16), 1);
  const __m256 b = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f + 4)), _mm_loadu_ps(f + 20), 1);
  const __m256 c = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f + 8)), _mm_loadu_ps(f + 24), 1);
  const __m256 d = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(f + 12)), _mm_loadu_ps(f + 28), 1);
  const __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
  const __m256 t2 = _mm256_unpacklo_ps(c, d), t3 = _mm256_unpackhi_ps(c, d);
  *x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  *y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  *z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  *w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* inverse of soa_load4 */
SKC_KERNEL_INLINE void soa_store4(unsigned char* p, __m256 x, __m256 y, __m256 z, __m256 w) {
  float* f = (float*)(void*)p;
  const __m256 t0 = _mm256_unpacklo_ps(x, y), t1 = _mm256_unpackhi_ps(x, y);
  const __m256 t2 = _mm256_unpacklo_ps(z, w), t3 = _mm256_unpackhi_ps(z, w);
  const __m256 v04 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 v15 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 v26 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 v37 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  _mm_storeu_ps(f + 0, _mm256_castps256_ps128(v04));
  _mm_storeu_ps(f + 4, _mm256_castps256_ps128(v15));
  _mm_storeu_ps(f + 8, _mm256_castps256_ps128(v26));
  _mm_storeu_ps(f + 12, _mm256_castps256_ps128(v37));
  _mm_storeu_ps(f + 16, _mm256_extractf128_ps(v04, 1));
  _mm_storeu_ps(f + 20, _mm256_extractf128_ps(v15, 1));
  _mm_storeu_ps(f + 24, _mm256_extractf128_ps(v26, 1));
  _mm_storeu_ps(f + 28, _mm256_extractf128_ps(v37, 1));
}

/* Rows r_i = buf + i * stride (8 rows), 4 floats at column offset col: out[k] lane i = r_i[col + k]. */
SKC_KERNEL_INLINE void soa_transpose4(const float* buf, size_t stride, size_t col,
                                                                 __m256 out[4]) {
  __m256 t[4];
  _Pragma("GCC unroll 4")
  for (int i = 0; i < 4; ++i)
    t[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(buf + (size_t)i * stride + col)),
                                _mm_load_ps(buf + (size_t)(i + 4) * stride + col), 1);
  __m256 u0 = _mm256_unpacklo_ps(t[0], t[1]), u1 = _mm256_unpackhi_ps(t[0], t[1]);
  __m256 u2 = _mm256_unpacklo_ps(t[2], t[3]), u3 = _mm256_unpackhi_ps(t[2], t[3]);
  out[0] = _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(1, 0, 1, 0));
  out[1] = _mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(3, 2, 3, 2));
  out[2] = _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(1, 0, 1, 0));
  out[3] = _mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* 2 / x for x in (1e-30, 2^126): reciprocal estimate and one Newton-Raphson step (~2e-7 relative). Measured
 * against the division in the DQS block: 7.95 against 9.5 ms (1M vertices, K = 4, p + n, min of 20 runs). */
SKC_KERNEL_INLINE __m256 soa_two_over(__m256 x) {
  const __m256 r = _mm256_rcp_ps(x);
  const __m256 r2 = _mm256_add_ps(r, r);
  return _mm256_fmadd_ps(r2, _mm256_fnmadd_ps(x, r, _mm256_set1_ps(1.0f)), r2);
}

/* lanes whose |x| lies outside [lo, hi] (bit patterns of positive floats; NaN is outside), as a mask */
SKC_KERNEL_INLINE __m256i soa_out_of_range(__m256 x, int lo, int hi) {
  __m256i b = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7fffffff));
  return _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(lo), b), _mm256_cmpgt_epi32(b, _mm256_set1_epi32(hi)));
}

/* soa_out_of_range for a squared length x (>= 0 or NaN): two compares with the bounds as float constants, which
 * GCC takes as memory operands (the integer version's four broadcasts were rebuilt in every block of the COR loop) */
SKC_KERNEL_INLINE __m256i soa_l2_out_of_range(__m256 x, int lo, int hi) {
  const __m256 l = _mm256_castsi256_ps(_mm256_set1_epi32(lo)), h = _mm256_castsi256_ps(_mm256_set1_epi32(hi));
  return _mm256_castps_si256(_mm256_or_ps(_mm256_cmp_ps(x, l, _CMP_NGE_UQ), _mm256_cmp_ps(x, h, _CMP_NLE_UQ)));
}

/* 1 if every joint of the block (bytes = 8 K JT) is <= lim */
SKC_KERNEL_INLINE int soa_joints_ok(const unsigned char* jb, const size_t bytes,
                                                              const int JT, __m256i lim) {
  if (bytes >= 32) {
    __m256i mx = _mm256_loadu_si256((const __m256i*)(const void*)jb);
    for (size_t o = 32; o < bytes; o += 32) {
      __m256i x = _mm256_loadu_si256((const __m256i*)(const void*)(jb + o));
      mx = JT == 1 ? _mm256_max_epu8(mx, x) : _mm256_max_epu16(mx, x);
    }
    __m256i eq = JT == 1 ? _mm256_cmpeq_epi8(_mm256_max_epu8(mx, lim), lim)
                         : _mm256_cmpeq_epi16(_mm256_max_epu16(mx, lim), lim);
    return _mm256_movemask_epi8(eq) == -1;
  }
  __m128i x = bytes == 16 ? _mm_loadu_si128((const __m128i*)(const void*)jb)
                          : _mm_loadl_epi64((const __m128i*)(const void*)jb);
  __m128i l = _mm256_castsi256_si128(lim);
  __m128i eq = JT == 1 ? _mm_cmpeq_epi8(_mm_max_epu8(x, l), l) : _mm_cmpeq_epi16(_mm_max_epu16(x, l), l);
  return (_mm_movemask_epi8(eq) & 0xffff) == 0xffff; /* an 8-byte load leaves zeros above: always <= lim */
}

/* Index of the largest of the K weights w (the first on ties, like kbody; a NaN weight may pick any lane: its
 * blend is NaN and the block goes to kgeneric anyway). */
SKC_KERNEL_INLINE uint32_t soa_pivot(const float* w, const uint32_t K) {
  if (K == 1) return 0;
  if (K == 2) return w[1] > w[0];
  unsigned msk;
  if (K == 4) {
    const __m128 w4 = _mm_loadu_ps(w);
    __m128 mx = _mm_max_ps(w4, _mm_permute_ps(w4, _MM_SHUFFLE(2, 3, 0, 1)));
    mx = _mm_max_ps(mx, _mm_permute_ps(mx, _MM_SHUFFLE(1, 0, 3, 2)));
    msk = (unsigned)_mm_movemask_ps(_mm_cmp_ps(w4, mx, _CMP_EQ_OQ));
  } else {
    const __m256 w8 = _mm256_loadu_ps(w);
    __m256 mx = _mm256_max_ps(w8, _mm256_permute_ps(w8, _MM_SHUFFLE(2, 3, 0, 1)));
    mx = _mm256_max_ps(mx, _mm256_permute_ps(mx, _MM_SHUFFLE(1, 0, 3, 2)));
    mx = _mm256_max_ps(mx, _mm256_permute2f128_ps(mx, mx, 0x01));
    msk = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(w8, mx, _CMP_EQ_OQ));
  }
  return msk ? (uint32_t)__builtin_ctz(msk) : 0;
}

/* The weights of the 8 vertices of a block for K = 2 or 4, transposed: W[k] lane L = weight k of vertex map[L]
 * (K = 4: vertices 0 2 4 6 | 1 3 5 7; K = 2: 0 1 4 5 | 2 3 6 7). */
SKC_KERNEL_INLINE void soa_weights_t(const float* w, const uint32_t K, __m256 W[4]) {
  if (K == 4) {
    const __m256 r0 = _mm256_loadu_ps(w), r1 = _mm256_loadu_ps(w + 8);
    const __m256 r2 = _mm256_loadu_ps(w + 16), r3 = _mm256_loadu_ps(w + 24);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    W[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    W[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    W[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    W[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  } else {
    const __m256 r0 = _mm256_loadu_ps(w), r1 = _mm256_loadu_ps(w + 8);
    W[0] = _mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(2, 0, 2, 0));
    W[1] = _mm256_shuffle_ps(r0, r1, _MM_SHUFFLE(3, 1, 3, 1));
  }
}

/* 1 if some vertex of the block has weights summing to 0 (in kbody's order), which kbody keeps as it is. */
SKC_KERNEL_INLINE int soa_zero_sum(const float* w, const uint32_t K) {
  if (K != 2 && K != 4) {
    int zero_sum = 0;
    _Pragma("GCC unroll 8")
    for (int i = 0; i < SKC_SOA_W; ++i) {
      const float* wi = w + (size_t)K * (size_t)i;
      float wsum = wi[0];
      _Pragma("GCC unroll 8")
      for (uint32_t k = 1; k < K; ++k) wsum += wi[k];
      zero_sum |= wsum == 0.0f;
    }
    return zero_sum;
  }
  __m256 W[4];
  soa_weights_t(w, K, W);
  __m256 sum = _mm256_add_ps(W[0], W[1]);
  if (K == 4) sum = _mm256_add_ps(_mm256_add_ps(sum, W[2]), W[3]);
  return _mm256_movemask_ps(_mm256_cmp_ps(sum, _mm256_setzero_ps(), _CMP_EQ_OQ)) != 0;
}

/* Pivots (index of the largest weight, first on ties, as kbody) and "weights sum to 0" of the 8 vertices of a
 * block at once for K = 2 and 4: the weights transposed into K registers (lane L holds vertex map[L]), the sum
 * in kbody's order, the pivot by K - 1 compares. kp[i] = vertex i's pivot. Returns 1 if a sum is 0. Other K:
 * per vertex (soa_pivot). */
SKC_KERNEL_INLINE int soa_pivots(const float* w, const uint32_t K, uint32_t kp[8]) {
  if (K != 2 && K != 4) {
    _Pragma("GCC unroll 8")
    for (int i = 0; i < SKC_SOA_W; ++i) kp[i] = soa_pivot(w + (size_t)K * (size_t)i, K);
    return soa_zero_sum(w, K);
  }
  __m256 W[4];
  static const int map4[8] = {0, 4, 1, 5, 2, 6, 3, 7}, map2[8] = {0, 1, 4, 5, 2, 3, 6, 7};
  soa_weights_t(w, K, W);
  __m256 sum = W[0], best = W[0];
  __m256i idx = _mm256_setzero_si256();
  _Pragma("GCC unroll 4")
  for (uint32_t k = 1; k < K; ++k) {
    sum = _mm256_add_ps(sum, W[k]);
    const __m256 gt = _mm256_cmp_ps(W[k], best, _CMP_GT_OQ);
    best = _mm256_blendv_ps(best, W[k], gt);
    idx = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(idx), _mm256_castsi256_ps(_mm256_set1_epi32((int)k)), gt));
  }
  uint32_t lanes[8];
  _mm256_storeu_si256((__m256i*)(void*)lanes, idx);
  _Pragma("GCC unroll 8")
  for (int i = 0; i < SKC_SOA_W; ++i) kp[i] = lanes[K == 4 ? map4[i] : map2[i]];
  return _mm256_movemask_ps(_mm256_cmp_ps(sum, _mm256_setzero_ps(), _CMP_EQ_OQ)) != 0;
}

/* The joints of the block as 32-bit lanes in soa_weights_t's order (J[k] lane L = joint k of vertex map[L]) for
 * K = 2 or 4 and 8- or 16-bit joints: widened rows of 8, then the weights' shuffles. */
SKC_KERNEL_INLINE void soa_joints_t(const unsigned char* jb, const int JT, const uint32_t K, __m256i J[4]) {
  __m256 r[4];
  _Pragma("GCC unroll 4") for (uint32_t n = 0; n < K; ++n) { /* row n: joints 8n .. 8n + 7 of the block */
    const __m256i x = JT == 1 ? _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)(const void*)(jb + 8 * n)))
                              : _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)(const void*)(jb + 16 * n)));
    r[n] = _mm256_castsi256_ps(x);
  }
  if (K == 4) {
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    J[0] = _mm256_castps_si256(_mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    J[1] = _mm256_castps_si256(_mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    J[2] = _mm256_castps_si256(_mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
    J[3] = _mm256_castps_si256(_mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)));
  } else {
    J[0] = _mm256_castps_si256(_mm256_shuffle_ps(r[0], r[1], _MM_SHUFFLE(2, 0, 2, 0)));
    J[1] = _mm256_castps_si256(_mm256_shuffle_ps(r[0], r[1], _MM_SHUFFLE(3, 1, 3, 1)));
  }
}

/* The byte address of pivot joint p's row of the hemisphere table: dq_sel8 (DQS on this kernel, J <= 128: one byte
 * an entry) or dq_sel (two). */
SKC_KERNEL_INLINE const unsigned char* soa_sel_row(const skc_deform_ctx* c, uint32_t p) {
  const size_t o = (size_t)p << c->dq_sel_shift;
  return c->dq_sel8 ? c->dq_sel8 + o : (const unsigned char*)(c->dq_sel + o);
}

/* soa_pivots for the hemisphere table with K = 2 or 4, all in registers: J[k] as soa_joints_t, pj lane L = the
 * pivot joint of vertex map[L], picked by the same compares. Returns 1 if a weight sum is 0. */
SKC_KERNEL_INLINE int soa_pivot_joints(const float* w, const unsigned char* jb, const int JT, const uint32_t K,
                                       __m256i J[4], __m256i* pj) {
  __m256 W[4];
  soa_weights_t(w, K, W);
  soa_joints_t(jb, JT, K, J);
  __m256 sum = W[0], best = W[0];
  __m256 p = _mm256_castsi256_ps(J[0]);
  _Pragma("GCC unroll 4") for (uint32_t k = 1; k < K; ++k) {
    sum = _mm256_add_ps(sum, W[k]);
    const __m256 gt = _mm256_cmp_ps(W[k], best, _CMP_GT_OQ);
    best = _mm256_blendv_ps(best, W[k], gt);
    p = _mm256_blendv_ps(p, _mm256_castsi256_ps(J[k]), gt);
  }
  *pj = _mm256_castps_si256(p);
  return _mm256_movemask_ps(_mm256_cmp_ps(sum, _mm256_setzero_ps(), _CMP_EQ_OQ)) != 0;
}

/* row[i] = soa_sel_row(vertex i's pivot joint) for K = 2 or 4, built in registers. The per-vertex version (a pivot
 * slot stored, read back, its joint loaded, the row pointer built) took 2 % more of the DQS job's time (alternated
 * runs, 1M vertices). */
SKC_KERNEL_INLINE int soa_pivot_rows(const skc_deform_ctx* c, const float* w, const unsigned char* jb, const int JT,
                                     const uint32_t K, const unsigned char* row[SKC_SOA_W]) {
  __m256i J[4], pj;
  const int zero_sum = soa_pivot_joints(w, jb, JT, K, J, &pj);
  /* back to vertex order: lane i = vertex i */
  const __m256i map = K == 4 ? _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7) : _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
  const __m256i pv = _mm256_permutevar8x32_epi32(pj, map);
  const __m128i sh = _mm_cvtsi32_si128((int)c->dq_sel_shift + (c->dq_sel8 ? 0 : 1));
  const __m256i base = _mm256_set1_epi64x((long long)(uintptr_t)soa_sel_row(c, 0));
  const __m256i lo = _mm256_sll_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(pv)), sh);
  const __m256i hi = _mm256_sll_epi64(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(pv, 1)), sh);
  _mm256_storeu_si256((__m256i*)(void*)row, _mm256_add_epi64(base, lo));
  _mm256_storeu_si256((__m256i*)(void*)(row + 4), _mm256_add_epi64(base, hi));
  return zero_sum;
}

/* x + s (w (v x x) + v x (v x x)) for the 8 quaternions q (v = q[0..2], w = q[3]; s = 2 / |q|^2): x rotated. */
SKC_KERNEL_INLINE void soa_rotate(const __m256 q[4], __m256 s, __m256 x, __m256 y,
                                                             __m256 z, __m256* ox, __m256* oy, __m256* oz) {
  __m256 ex = _mm256_fmsub_ps(q[1], z, _mm256_mul_ps(q[2], y));
  __m256 ey = _mm256_fmsub_ps(q[2], x, _mm256_mul_ps(q[0], z));
  __m256 ez = _mm256_fmsub_ps(q[0], y, _mm256_mul_ps(q[1], x));
  __m256 fx = _mm256_fmsub_ps(q[1], ez, _mm256_mul_ps(q[2], ey));
  __m256 fy = _mm256_fmsub_ps(q[2], ex, _mm256_mul_ps(q[0], ez));
  __m256 fz = _mm256_fmsub_ps(q[0], ey, _mm256_mul_ps(q[1], ex));
  *ox = _mm256_fmadd_ps(s, _mm256_fmadd_ps(q[3], ex, fx), x);
  *oy = _mm256_fmadd_ps(s, _mm256_fmadd_ps(q[3], ey, fy), y);
  *oz = _mm256_fmadd_ps(s, _mm256_fmadd_ps(q[3], ez, fz), z);
}

/* First pass over a block for the hemisphere-aligned blends (COR; DQS with the table). ok: the block can take the
 * 8-wide path (joints in range, no vertex whose weights sum to 0: kbody keeps those, kgeneric redoes the block).
 * With the table dq_sel: row[i] = the row of vertex i's pivot joint (index of the largest weight, as kbody);
 * without (COR only): neg[i] bit k = influence k of vertex i takes -q_j (a negative dot with the pivot's q, kbody's
 * test; the dots four at a time as in the DQS loop). */
/* How a COR or DQS block picks each influence's record (SOA_SIGN_*, a constant of each loop: the
 * record addressing then has no branch): by the sign bits of soa_hemi_pre.neg, by the pivot's
 * row of the table, or joint j's consistently signed record (c->dq_uni). */
enum { SOA_SIGN_BITS = 0, SOA_SIGN_TABLE = 1, SOA_SIGN_UNIFORM = 2 };

typedef struct soa_hemi_pre {
  int ok;
  const unsigned char* row[SKC_SOA_W]; /* the pivot's row: dq_sel8 (bytes) or dq_sel (16-bit entries) */
  uint32_t neg[SKC_SOA_W];
} soa_hemi_pre;

SKC_KERNEL_INLINE void soa_hemi_prep(const skc_deform_ctx* c, size_t v, const int JT,
                                                              const uint32_t K, const int SIGN, __m256i lim,
                                                              int check_joints, soa_hemi_pre* pre) {
  const size_t js = (size_t)K * (size_t)JT;
  const unsigned char* jb = c->joints + v * js;
  const unsigned char* wb = c->weights + v * (size_t)K * 4;
  pre->ok = 0;
  if (check_joints && !soa_joints_ok(jb, SKC_SOA_W * js, JT, lim)) return;
  if (K == 1) { /* a joint is in its own hemisphere */
    const __m256 w = _mm256_loadu_ps((const float*)(const void*)wb);
    pre->ok = _mm256_movemask_ps(_mm256_cmp_ps(w, _mm256_setzero_ps(), _CMP_EQ_OQ)) == 0;
    return;
  }
  if (SIGN == SOA_SIGN_UNIFORM) { /* consistent signs: no pivot needed */
    pre->ok = !soa_zero_sum((const float*)(const void*)wb, K);
    return;
  }
  if (SIGN == SOA_SIGN_TABLE && (K == 2 || K == 4) && JT <= 2) {
    pre->ok = !soa_pivot_rows(c, (const float*)(const void*)wb, jb, JT, K, pre->row);
    return;
  }
  uint32_t kp[SKC_SOA_W];
  const int zero_sum = soa_pivots((const float*)(const void*)wb, K, kp);
  if (SIGN == SOA_SIGN_TABLE) {
    _Pragma("GCC unroll 8") for (int i = 0; i < SKC_SOA_W; ++i) pre->row[i] =
        soa_sel_row(c, kload_joint(jb + js * (size_t)i, kp[i], JT));
  } else {
    const unsigned char* PM = (const unsigned char*)c->cor_pm;
    _Pragma("GCC unroll 2")
    for (int i = 0; i < SKC_SOA_W; ++i) {
      const unsigned char* ji = jb + js * (size_t)i;
      const __m128 r0 = _mm_load_ps((const float*)(const void*)(PM + 128 * (size_t)kload_joint(ji, kp[i], JT) + 48));
      uint32_t bits = 0;
      _Pragma("GCC unroll 2")
      for (uint32_t g = 0; g < K; g += 4) {
        __m128 m[4];
        _Pragma("GCC unroll 4")
        for (uint32_t t = 0; t < 4; ++t) {
          const size_t o = 128 * (size_t)kload_joint(ji, g + t < K ? g + t : 0, JT) + 48; /* q_j */
          m[t] = g + t < K ? _mm_mul_ps(_mm_load_ps((const float*)(const void*)(PM + o)), r0) : _mm_setzero_ps();
        }
        const __m128 dots = _mm_hadd_ps(_mm_hadd_ps(m[0], m[1]), _mm_hadd_ps(m[2], m[3]));
        bits |= (uint32_t)_mm_movemask_ps(_mm_cmplt_ps(dots, _mm_setzero_ps())) << g; /* kbody: d < 0 */
      }
      pre->neg[i] = bits;
    }
  }
  pre->ok = !zero_sum;
}

/* Record address of influence k of a vertex (joint j): PM + the table entry (row = the pivot's row), UNI's record
 * of j, or j's record with the sign bit of neg. */
SKC_KERNEL_INLINE const float* soa_cor_rec(const unsigned char* PM, const unsigned char* UNI, const unsigned char* row,
                                           uint32_t neg, uint32_t j, uint32_t k, const uint32_t K, const int sign) {
  if (K > 1 && sign == SOA_SIGN_UNIFORM) return (const float*)(const void*)(UNI + 64 * (size_t)j);
  const size_t o = K == 1                   ? 128 * (size_t)j
                   : sign == SOA_SIGN_TABLE ? ((const uint16_t*)(const void*)row)[j] /* COR: dq_sel */
                                            : 128 * (size_t)j + 64 * ((neg >> k) & 1u);
  return (const float*)(const void*)(PM + o);
}

/* The COR records of the block (c->cor_pm, built by deform.c: joint j's with +q_j or -q_j as the hemisphere test
 * against the vertex's pivot picks) blended per vertex as LBS blends its matrices, two FMAs per influence, into
 * buf row i (16 floats: rows 0..2 of M, then q). One FMA chain per vertex: the 8 vertices are independent, so the
 * core overlaps them. */
SKC_KERNEL_INLINE void soa_cor_blend_row(const skc_deform_ctx* c, const unsigned char* jb,
                                                                   const unsigned char* wb, const int JT,
                                                                   const uint32_t K, const soa_hemi_pre* pre,
                                                                   const int sign, int i, float* buf) {
  const unsigned char* PM = (const unsigned char*)c->cor_pm;
  const unsigned char* UNI = (const unsigned char*)c->dq_uni;
  const unsigned char* ji = jb + (size_t)K * (size_t)JT * (size_t)i;
  const float* w = (const float*)(const void*)(wb + (size_t)K * 4 * (size_t)i);
  const unsigned char* row = sign == SOA_SIGN_TABLE ? pre->row[i] : NULL;
  const uint32_t neg = sign != SOA_SIGN_BITS || K == 1 ? 0 : pre->neg[i];
  const float* r = soa_cor_rec(PM, UNI, row, neg, kload_joint(ji, 0, JT), 0, K, sign);
  const __m256 w0 = _mm256_broadcast_ss(&w[0]);
  __m256 lo = _mm256_mul_ps(w0, _mm256_load_ps(r)), hi = _mm256_mul_ps(w0, _mm256_load_ps(r + 8));
  _Pragma("GCC unroll 8")
  for (uint32_t k = 1; k < K; ++k) {
    const __m256 wk = _mm256_broadcast_ss(&w[k]);
    r = soa_cor_rec(PM, UNI, row, neg, kload_joint(ji, k, JT), k, K, sign);
    lo = _mm256_fmadd_ps(wk, _mm256_load_ps(r), lo);
    hi = _mm256_fmadd_ps(wk, _mm256_load_ps(r + 8), hi);
  }
  _mm256_store_ps(buf + 16 * i, lo);
  _mm256_store_ps(buf + 16 * i + 8, hi);
}

SKC_KERNEL_INLINE void soa_cor_blend(const skc_deform_ctx* c, const unsigned char* jb,
                                                               const unsigned char* wb, const int JT, const uint32_t K,
                                                               const soa_hemi_pre* pre, const int sign, float* buf) {
  _Pragma("GCC unroll 8")
  for (int i = 0; i < SKC_SOA_W; ++i) soa_cor_blend_row(c, jb, wb, JT, K, pre, sign, i, buf);
}

/* One vertex's DQS blend with the table: its K * JT joint bytes in one or two integer loads (joints taken out by
 * shifts, as the AVX-512 kernel does), each record at the offset its pivot row gives: dq_sel8's entry 2 j + s times
 * 32, or dq_sel's byte offset. A branch a vertex, always the same way within a job. */
SKC_KERNEL_INLINE __m256 soa_dq_blend_tab(const skc_deform_ctx* c, const unsigned char* ji, const float* w,
                                          const int JT, const uint32_t K, const soa_hemi_pre* pre, int i) {
  const unsigned char* PM = (const unsigned char*)c->dq_pm;
  const unsigned char* row = pre->row[i];
  uint64_t jw[2] = {0, 0};
  memcpy(&jw[0], ji, K * JT < 8 ? K * JT : 8);
  if (K * JT > 8) memcpy(&jw[1], ji + 8, 8);
#define SOA_JW(k) ((uint32_t)(jw[(k)*JT / 8] >> (8 * ((k)*JT % 8))) & (JT == 1 ? 0xffu : 0xffffu))
#define SOA_REC(o) _mm256_load_ps((const float*)(const void*)(PM + (o)))
  __m256 a;
  if (c->dq_sel8) {
    a = _mm256_mul_ps(_mm256_broadcast_ss(&w[0]), SOA_REC((size_t)row[SOA_JW(0)] << 5));
    _Pragma("GCC unroll 8") for (uint32_t k = 1; k < K; ++k) a =
        _mm256_fmadd_ps(_mm256_broadcast_ss(&w[k]), SOA_REC((size_t)row[SOA_JW(k)] << 5), a);
  } else {
    const uint16_t* r16 = (const uint16_t*)(const void*)row;
    a = _mm256_mul_ps(_mm256_broadcast_ss(&w[0]), SOA_REC(r16[SOA_JW(0)]));
    _Pragma("GCC unroll 8") for (uint32_t k = 1; k < K; ++k) a =
        _mm256_fmadd_ps(_mm256_broadcast_ss(&w[k]), SOA_REC(r16[SOA_JW(k)]), a);
  }
#undef SOA_REC
#undef SOA_JW
  return a;
}

/* DQS with the table: the blends of the block from c->dq_pm (+dq_j or -dq_j as the pivot's row of dq_sel picks;
 * pre NULL: the consistently signed records of c->dq_uni, no pivot),
 * blended as LBS blends its matrices (one FMA chain per vertex, stored to memory), then transposed from memory:
 * D[c] lane i = vertex i's blend, float c. Kept in registers for a shuffle transpose, GCC loaded and spilled
 * every record and weight of the block before the first FMA (DQS, 1M vertices, K = 4: 8.3 -> 7.5 ms). */
SKC_KERNEL_INLINE void soa_dq_blend_rows(const skc_deform_ctx* c, const unsigned char* jb, const unsigned char* wb,
                                         const int JT, const uint32_t K, const soa_hemi_pre* pre, __m256 D[8]) {
  const unsigned char* UNI = (const unsigned char*)c->dq_uni;
  const size_t js = (size_t)K * (size_t)JT, ws = (size_t)K * 4;
  _Alignas(32) float buf[SKC_SOA_W * 8];
  _Pragma("GCC unroll 8")
  for (int i = 0; i < SKC_SOA_W; ++i) {
    const unsigned char* ji = jb + js * (size_t)i;
    const float* w = (const float*)(const void*)(wb + ws * (size_t)i);
    if (pre) {
      _mm256_store_ps(buf + 8 * i, soa_dq_blend_tab(c, ji, w, JT, K, pre, i));
      continue;
    }
#define SOA_DQ_REC(k) ((const float*)(const void*)(UNI + 32 * (size_t)kload_joint(ji, k, JT)))
    __m256 a = _mm256_mul_ps(_mm256_broadcast_ss(&w[0]), _mm256_load_ps(SOA_DQ_REC(0)));
    _Pragma("GCC unroll 8")
    for (uint32_t k = 1; k < K; ++k) a = _mm256_fmadd_ps(_mm256_broadcast_ss(&w[k]), _mm256_load_ps(SOA_DQ_REC(k)), a);
#undef SOA_DQ_REC
    _mm256_store_ps(buf + 8 * i, a);
  }
  const float* b = buf;
  __asm__("" : "+r"(b) : : "memory"); /* GCC would keep buf "in registers" (spilled) otherwise */
  soa_transpose4(b, 8, 0, D);
  soa_transpose4(b, 8, 4, D + 4);
}

/* COR positions (and rotated normals) of the block at v: p' = R (p - c) + M c with M = sum w_j M_j and R from the
 * blended q, both from buf (soa_cor_blend). badm: lanes whose rotation blend cancelled out or is not finite (a
 * non-finite weight; kgeneric redoes the block). */
#define SOA_PIN(x) __asm__ volatile("" : "+x"(x))
#define SOA_COR_STEP(i, x0, x1, x2)                                     \
  if (NX) {                                                             \
    SOA_PIN(x0);                                                        \
    SOA_PIN(x1);                                                        \
    SOA_PIN(x2);                                                        \
    soa_cor_blend_row(c, jbx, wbx, JT, K, prx, SIGN, (i), bufx);        \
  }
SKC_KERNEL_INLINE void soa_cor(const skc_deform_ctx* c, size_t v, const float* buf,
                                                         const int HAS_N, __m256 o[3], __m256 m[3], __m256i* badm,
                                                         const int NX, const unsigned char* jbx,
                                                         const unsigned char* wbx, const int JT, const uint32_t K,
                                                         const soa_hemi_pre* prx, const int SIGN, float* bufx) {
  /* In an order that keeps few registers live (GCC does not schedule before register allocation on x86), from a
   * laundered buf: seeing through it, GCC kept all 32 half-rows of buf "in registers", i.e. copied them to other
   * stack slots, before the first transpose. NX: the next block's blend into bufx, one vertex at each of eight
   * points (see soa_pipe_run). */
  const float* b = buf;
  __asm__("" : "+r"(b) : : "memory");
  __m256 q[4], x, y, z;
  soa_transpose4(b, 16, 12, q);
  __m256 l2 =
      _mm256_fmadd_ps(q[3], q[3], _mm256_fmadd_ps(q[2], q[2], _mm256_fmadd_ps(q[1], q[1], _mm256_mul_ps(q[0], q[0]))));
  *badm = soa_l2_out_of_range(l2, 0x0da24262, 0x7e7fffff); /* the DQS range: soa_two_over */
  __m256 s = soa_two_over(l2);
  SOA_COR_STEP(0, s, l2, q[3])
  if (HAS_N) {
    soa_load3(c->nin + v * 12, &x, &y, &z);
    SOA_COR_STEP(1, x, y, z)
    soa_rotate(q, s, x, y, z, &m[0], &m[1], &m[2]);
    SOA_COR_STEP(2, m[0], m[1], m[2])
  }
  __m256 cx, cy, cz, r[4];
  soa_load3(c->pin + v * 12, &x, &y, &z);
  soa_load3(c->cin + v * 12, &cx, &cy, &cz);
  SOA_COR_STEP(3, x, cx, cz)
  x = _mm256_sub_ps(x, cx);
  y = _mm256_sub_ps(y, cy);
  z = _mm256_sub_ps(z, cz);
  soa_rotate(q, s, x, y, z, &o[0], &o[1], &o[2]);
  SOA_COR_STEP(4, o[0], o[1], o[2])
  if (!HAS_N) {
    SOA_COR_STEP(1, o[0], o[1], o[2])
    SOA_COR_STEP(2, o[0], o[1], o[2])
  }
  _Pragma("GCC unroll 3")
  for (int i = 0; i < 3; ++i) { /* + row i of M times c */
    soa_transpose4(b, 16, 4 * (size_t)i, r);
    o[i] = _mm256_add_ps(o[i], _mm256_fmadd_ps(r[2], cz, _mm256_fmadd_ps(r[1], cy, _mm256_fmadd_ps(r[0], cx, r[3]))));
    SOA_COR_STEP(5 + i, o[0], o[1], o[2])
  }
}
#undef SOA_COR_STEP
#undef SOA_PIN

/* The end of a block: the normals' length check (and renormalization), then the stores unless a lane of badm or
 * of that check is set. Returns 0 if nothing was written (redo with kgeneric). */
/* The lanes of direction (x, y, z) whose length is zero, tiny or not finite; with RN the directions made unit
 * length: rsqrt and one Newton-Raphson step (~1e-7), like vp_renorm. The length check also without renormalization:
 * a block with a zero or non-finite normal goes to the generic loop, which writes the same values (no effect on
 * results), and the check keeps the normal math ahead of the branch (without it the no-renormalize loop ran ~25 %
 * slower than the renormalizing one). */
SKC_KERNEL_INLINE __m256i soa_unit(__m256* x, __m256* y, __m256* z, const int RN) {
  __m256 l2 = _mm256_fmadd_ps(*z, *z, _mm256_fmadd_ps(*y, *y, _mm256_mul_ps(*x, *x)));
  const __m256i bad = soa_l2_out_of_range(l2, 0x00800000, 0x7f61b1e6);
  if (RN) {
    __m256 r = _mm256_rsqrt_ps(l2);
    r = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), r),
                      _mm256_fnmadd_ps(_mm256_mul_ps(l2, r), r, _mm256_set1_ps(3.0f)));
    *x = _mm256_mul_ps(*x, r);
    *y = _mm256_mul_ps(*y, r);
    *z = _mm256_mul_ps(*z, r);
  }
  return bad;
}

SKC_KERNEL_INLINE int soa_finish(const skc_deform_ctx* c, size_t v, const int HAS_N,
                                                           const int RN, __m256i badm, __m256 ox, __m256 oy,
                                                           __m256 oz, __m256 mx, __m256 my, __m256 mz) {
  if (HAS_N) badm = _mm256_or_si256(badm, soa_unit(&mx, &my, &mz, RN));
  if (!_mm256_testz_si256(badm, badm)) return 0;
  soa_store3(c->pout + v * 12, ox, oy, oz);
  if (HAS_N) soa_store3(c->nout + v * 12, mx, my, mz);
  return 1;
}

/* DQS with the table, software-pipelined as the AVX-512 kernel's run16_tab: the first pass (soa_hemi_prep: pivot
 * -> pivot's joint -> table row, a chain of dependent loads) two blocks ahead, and the blend of block n + 1 (one
 * ymm FMA chain per vertex over the table's +dq / -dq records, stored to a row buffer) interleaved with the
 * transform of block n, one vertex at each of eight points pinned by empty asm statements: one block's chain is
 * longer than the out-of-order window, and the compiler would otherwise emit the load-bound blend and the
 * arithmetic-bound transform one after the other (soa_pipe_run below runs it). One vertex's blend into row i of
 * buf: */
SKC_KERNEL_INLINE void soa_dq_blend_row(const skc_deform_ctx* c, const unsigned char* jb, const unsigned char* wb,
                                        const int JT, const uint32_t K, const soa_hemi_pre* pre, int i, float* buf) {
  const unsigned char* ji = jb + (size_t)K * (size_t)JT * (size_t)i;
  const float* w = (const float*)(const void*)(wb + (size_t)K * 4 * (size_t)i);
  _mm256_store_ps(buf + 8 * i, soa_dq_blend_tab(c, ji, w, JT, K, pre, i));
}

#define SOA_PIN(x) __asm__ volatile("" : "+x"(x))
#define SOA_DQ_STEP(i, x0, x1, x2)                                      \
  if (NX) {                                                             \
    SOA_PIN(x0);                                                        \
    SOA_PIN(x1);                                                        \
    SOA_PIN(x2);                                                        \
    soa_dq_blend_row(c, jbx, wbx, JT, K, prx, (i), bufx);               \
  }
#define SOA_CROSS(ax, ay, az, bx, by, bz, rx, ry, rz)       \
  rx = _mm256_fmsub_ps(ay, bz, _mm256_mul_ps(az, by)); \
  ry = _mm256_fmsub_ps(az, bx, _mm256_mul_ps(ax, bz)); \
  rz = _mm256_fmsub_ps(ax, by, _mm256_mul_ps(ay, bx))
/* The transform of soa_block's DQS branch on the blends in buf (8 rows of 8 floats) for the block at v, with the
 * next block's blend (joints jbx, weights wbx, first pass prx, into bufx) interleaved when NX. */
SKC_KERNEL_INLINE int soa_dq_apply_x(const skc_deform_ctx* c, size_t v, const float* buf,
                                                                const int HAS_N, const int RN, const int NX,
                                                                const unsigned char* jbx, const unsigned char* wbx,
                                                                const int JT, const uint32_t K,
                                                                const soa_hemi_pre* prx, float* bufx) {
  __m256 D[8];
  const float* b = buf;
  __asm__("" : "+r"(b) : : "memory");
  soa_transpose4(b, 8, 0, D);
  soa_transpose4(b, 8, 4, D + 4);
  const __m256* d = D + 4;
  __m256 qx = D[0], qy = D[1], qz = D[2], qw = D[3];
  __m256 l2 = _mm256_fmadd_ps(qw, qw, _mm256_fmadd_ps(qz, qz, _mm256_fmadd_ps(qy, qy, _mm256_mul_ps(qx, qx))));
  __m256i badm = soa_l2_out_of_range(l2, 0x0da24262, 0x7e7fffff); /* as soa_block */
  __m256 s = soa_two_over(l2);
  SOA_DQ_STEP(0, s, l2, qw)
  __m256 tx, ty, tz, ex, ey, ez, fx, fy, fz, px, py, pz, ox, oy, oz;
  __m256 nx = _mm256_setzero_ps(), ny = nx, nz = nx, mx = nx, my = nx, mz = nx;
  SOA_CROSS(qx, qy, qz, d[0], d[1], d[2], tx, ty, tz);
  tx = _mm256_fmadd_ps(qw, d[0], _mm256_fnmadd_ps(d[3], qx, tx));
  ty = _mm256_fmadd_ps(qw, d[1], _mm256_fnmadd_ps(d[3], qy, ty));
  tz = _mm256_fmadd_ps(qw, d[2], _mm256_fnmadd_ps(d[3], qz, tz));
  SOA_DQ_STEP(1, tx, ty, tz)
  soa_load3(c->pin + v * 12, &px, &py, &pz);
  SOA_CROSS(qx, qy, qz, px, py, pz, ex, ey, ez);
  SOA_DQ_STEP(2, ex, ey, ez)
  SOA_CROSS(qx, qy, qz, ex, ey, ez, fx, fy, fz);
  SOA_DQ_STEP(3, fx, fy, fz)
  ox = _mm256_fmadd_ps(s, _mm256_add_ps(_mm256_fmadd_ps(qw, ex, fx), tx), px);
  oy = _mm256_fmadd_ps(s, _mm256_add_ps(_mm256_fmadd_ps(qw, ey, fy), ty), py);
  oz = _mm256_fmadd_ps(s, _mm256_add_ps(_mm256_fmadd_ps(qw, ez, fz), tz), pz);
  SOA_DQ_STEP(4, ox, oy, oz)
  if (HAS_N) {
    soa_load3(c->nin + v * 12, &nx, &ny, &nz);
    SOA_CROSS(qx, qy, qz, nx, ny, nz, ex, ey, ez);
    SOA_DQ_STEP(5, ex, ey, ez)
    SOA_CROSS(qx, qy, qz, ex, ey, ez, fx, fy, fz);
    SOA_DQ_STEP(6, fx, fy, fz)
    mx = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ex, fx), nx);
    my = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ey, fy), ny);
    mz = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ez, fz), nz);
    SOA_DQ_STEP(7, mx, my, mz)
  } else {
    SOA_DQ_STEP(5, ox, oy, oz)
    SOA_DQ_STEP(6, ox, oy, oz)
    SOA_DQ_STEP(7, ox, oy, oz)
  }
  return soa_finish(c, v, HAS_N, RN, badm, ox, oy, oz, mx, my, mz);
}
#undef SOA_CROSS
#undef SOA_DQ_STEP
#undef SOA_PIN

/* The pipelined loops (MODE 1: DQS with the table; 2: COR, sign mode SIGN) over the blocks of [v, e): the first
 * pass (soa_hemi_prep) two blocks ahead, the blend of block n + 1 interleaved with the transform of block n. A
 * block whose first pass or math fails is redone by kgeneric. Returns the count of bad vertices; *vend = the
 * first vertex not covered. */
SKC_KERNEL_INLINE void soa_pipe_blend(const skc_deform_ctx* c, const unsigned char* jb,
                                                                const unsigned char* wb, const int JT, const uint32_t K,
                                                                const soa_hemi_pre* pre, const int MODE,
                                                                const int SIGN, float* buf) {
  if (MODE == 2) {
    soa_cor_blend(c, jb, wb, JT, K, pre, SIGN, buf);
    return;
  }
  _Pragma("GCC unroll 8")
  for (int i = 0; i < SKC_SOA_W; ++i) soa_dq_blend_row(c, jb, wb, JT, K, pre, i, buf);
}

/* The transform of the block at v from buf, with the next block's blend into bufx when NX; 1 = written. */
SKC_KERNEL_INLINE int soa_pipe_apply(const skc_deform_ctx* c, size_t v, const float* buf,
                                                               const int HAS_N, const int RN, const int MODE,
                                                               const int SIGN, const int NX, const unsigned char* jbx,
                                                               const unsigned char* wbx, const int JT, const uint32_t K,
                                                               const soa_hemi_pre* prx, float* bufx) {
  if (MODE == 1) return soa_dq_apply_x(c, v, buf, HAS_N, RN, NX, jbx, wbx, JT, K, prx, bufx);
  __m256 o[3], m[3] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  __m256i badm;
  soa_cor(c, v, buf, HAS_N, o, m, &badm, NX, jbx, wbx, JT, K, prx, SIGN, bufx);
  /* the results in registers before soa_finish's branch: GCC sank their arithmetic past it and kept the loads of
   * buf above, so 24 half-rows of buf went through other stack slots */
  __asm__("" : "+x"(o[0]), "+x"(o[1]), "+x"(o[2]), "+x"(m[0]), "+x"(m[1]), "+x"(m[2]));
  return soa_finish(c, v, HAS_N, RN, badm, o[0], o[1], o[2], m[0], m[1], m[2]);
}

/* Software prefetch of the joints and weights 16 blocks (128 vertices) ahead of v, for the pipelined loop (COR, DQS
 * with the table): its first stage reads them two blocks ahead, too close for the hardware prefetcher beside four
 * other streams. AMD EPYC Zen 4, bench_deform --headline, 6 alternated runs (docs/deform.md session 50): COR / LBS
 * 1.65 -> 1.56, posed 1.32 -> 1.28; the same in the LBS block loop gained nothing measurable (not kept). */
SKC_KERNEL_INLINE void soa_prefetch_jw(const skc_deform_ctx* c, size_t v, size_t e, const int JT, const uint32_t K) {
  const size_t pw = v + 16 * SKC_SOA_W;
  if (pw + SKC_SOA_W > e) return;
  const char* wp = (const char*)c->weights + pw * K * 4;
  for (uint32_t l = 0; l < (K + 1) / 2; ++l) _mm_prefetch(wp + 64 * l, _MM_HINT_T0);
  const char* jp = (const char*)c->joints + pw * K * (size_t)JT;
  for (uint32_t l = 0; l < (K * (uint32_t)JT + 7) / 8; ++l) _mm_prefetch(jp + 64 * l, _MM_HINT_T0);
}

SKC_KERNEL_INLINE size_t soa_pipe_run(const skc_deform_ctx* c, size_t v, size_t e,
                                                                const int JT, const uint32_t K, const int HAS_N,
                                                                const int RN, const int MODE, const int SIGN,
                                                                __m256i lim, int check, size_t* vend) {
  const size_t nb = (e - v) / SKC_SOA_W;
  const size_t js = (size_t)K * (size_t)JT, ws = (size_t)K * 4;
  soa_hemi_pre pre[4];
  _Alignas(32) float buf[2][SKC_SOA_W * 16]; /* DQS uses 8 floats a vertex of each */
  size_t bad = 0;
  *vend = v + nb * SKC_SOA_W;
  if (nb == 0) return 0;
  for (size_t n = 0; n < nb && n < 2; ++n) soa_hemi_prep(c, v + n * SKC_SOA_W, JT, K, SIGN, lim, check, &pre[n]);
  if (pre[0].ok) soa_pipe_blend(c, c->joints + v * js, c->weights + v * ws, JT, K, &pre[0], MODE, SIGN, buf[0]);
  for (size_t n = 0; n < nb; ++n) {
    const size_t vn = v + n * SKC_SOA_W;
    soa_prefetch_jw(c, vn, e, JT, K);
    if (n + 2 < nb) soa_hemi_prep(c, vn + 2 * SKC_SOA_W, JT, K, SIGN, lim, check, &pre[(n + 2) & 3]);
    const int nx = n + 1 < nb && pre[(n + 1) & 3].ok;
    const unsigned char* jbx = c->joints + (vn + SKC_SOA_W) * js;
    const unsigned char* wbx = c->weights + (vn + SKC_SOA_W) * ws;
    float* bufx = buf[(n + 1) & 1];
    int done = 0;
    if (pre[n & 3].ok)
      done = nx ? soa_pipe_apply(c, vn, buf[n & 1], HAS_N, RN, MODE, SIGN, 1, jbx, wbx, JT, K, &pre[(n + 1) & 3], bufx)
                : soa_pipe_apply(c, vn, buf[n & 1], HAS_N, RN, MODE, SIGN, 0, NULL, NULL, JT, K, NULL, NULL);
    else if (nx)
      soa_pipe_blend(c, jbx, wbx, JT, K, &pre[(n + 1) & 3], MODE, SIGN, bufx);
    if (!done) bad += kgeneric(c, vn, vn + SKC_SOA_W);
  }
  return bad;
}

/* The block's tangents at v: 3 floats a vertex (t[3] 0) or, with tangent_components 4, 4 (ksoa: packed streams) */
SKC_KERNEL_INLINE void soa_tangents_in(const skc_deform_ctx* c, size_t v, __m256 t[4]) {
  if (c->tc4) {
    soa_load4(c->tin + v * 16, &t[0], &t[1], &t[2], &t[3]);
  } else {
    soa_load3(c->tin + v * 12, &t[0], &t[1], &t[2]);
    t[3] = _mm256_setzero_ps();
  }
}
SKC_KERNEL_INLINE void soa_tangents_out(const skc_deform_ctx* c, size_t v, const __m256 t[4]) {
  if (c->tc4)
    soa_store4(c->tout + v * 16, t[0], t[1], t[2], t[3]);
  else
    soa_store3(c->tout + v * 12, t[0], t[1], t[2]);
}

/* RIGID: the joint of the largest of a vertex's K (1, 2, 4 or 8) weights, the lowest such joint on ties (kbody's
 * rule), branch-free (per-vertex compares mispredicted on every other random weight: 10 against 3.5 ms for 1M
 * vertices). A NaN weight may give joint 0: its sum sends the block to kgeneric. */
SKC_KERNEL_INLINE uint32_t soa_rigid_joint(const unsigned char* ji, const float* w, const int JT, const uint32_t K) {
  if (K == 1) return kload_joint(ji, 0, JT);
  __m256 w8 = K >= 8 ? _mm256_loadu_ps(w) : _mm256_castps128_ps256(K >= 4 ? _mm_loadu_ps(w) : load2(w));
  /* exactly the vertex's K * JT bytes, through an integer register (through memory, the narrow store and wide load
   * missed store forwarding: 15 ms) */
  const size_t nb = (size_t)K * (size_t)JT;
  __m128i jx;
  if (nb == 16) {
    jx = _mm_loadu_si128((const __m128i*)(const void*)ji);
  } else if (nb == 8) {
    uint64_t x;
    memcpy(&x, ji, 8);
    jx = _mm_cvtsi64_si128((long long)x);
  } else {
    uint32_t x = 0;
    memcpy(&x, ji, nb); /* 2 or 4 */
    jx = _mm_cvtsi32_si128((int)x);
  }
  __m256i j8 = JT == 1 ? _mm256_cvtepu8_epi32(jx) : _mm256_cvtepu16_epi32(jx);
  if (K < 8) { /* lanes >= K: weight -inf */
    const __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)K), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    w8 = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), w8, _mm256_castsi256_ps(in));
  }
  __m256 mx = _mm256_max_ps(w8, _mm256_permute_ps(w8, _MM_SHUFFLE(2, 3, 0, 1)));
  mx = _mm256_max_ps(mx, _mm256_permute_ps(mx, _MM_SHUFFLE(1, 0, 3, 2)));
  mx = _mm256_max_ps(mx, _mm256_permute2f128_ps(mx, mx, 0x01));
  const __m256i at_max = _mm256_castps_si256(_mm256_cmp_ps(w8, mx, _CMP_EQ_OQ));
  __m256i jm = _mm256_or_si256(j8, _mm256_xor_si256(at_max, _mm256_set1_epi32(-1))); /* others: 0xffffffff */
  jm = _mm256_min_epu32(jm, _mm256_shuffle_epi32(jm, _MM_SHUFFLE(2, 3, 0, 1)));
  jm = _mm256_min_epu32(jm, _mm256_shuffle_epi32(jm, _MM_SHUFFLE(1, 0, 3, 2)));
  jm = _mm256_min_epu32(jm, _mm256_permute2x128_si256(jm, jm, 0x01));
  const uint32_t j = (uint32_t)_mm256_cvtsi256_si32(jm);
  return j == 0xffffffffu ? 0 : j;
}

/* RIGID: row i of buf = the matrix of vertex i's joint (soa_rigid_joint) with its weight sum in kbody's order as
 * element 15 (the palette's is 1), so soa_block's check of that element sends a block with a sum of 0 or a
 * non-finite weight to kgeneric, which keeps those vertices as kbody does. */
SKC_KERNEL_INLINE void soa_rigid_rows(const float* P, const unsigned char* jb, const float* w, const int JT,
                                      const uint32_t K, float* buf) {
  if (K == 2 || K == 4) { /* the block's weights and joints transposed: the pick is K - 1 compares for 8 vertices */
    static const int map4[8] = {0, 4, 1, 5, 2, 6, 3, 7}, map2[8] = {0, 1, 4, 5, 2, 3, 6, 7};
    __m256 W[4];
    __m256i J[4];
    soa_weights_t(w, K, W);
    soa_joints_t(jb, JT, K, J);
    __m256 sum = W[0], best = W[0];
    __m256i bj = J[0];
    _Pragma("GCC unroll 4")
    for (uint32_t k = 1; k < K; ++k) {
      sum = _mm256_add_ps(sum, W[k]); /* kbody's order */
      const __m256 tie = _mm256_and_ps(_mm256_cmp_ps(W[k], best, _CMP_EQ_OQ),
                                       _mm256_castsi256_ps(_mm256_cmpgt_epi32(bj, J[k])));
      const __m256 gt = _mm256_or_ps(_mm256_cmp_ps(W[k], best, _CMP_GT_OQ), tie);
      best = _mm256_blendv_ps(best, W[k], gt);
      bj = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(bj), _mm256_castsi256_ps(J[k]), gt));
    }
    uint32_t jl[8];
    _Alignas(32) float s8[8];
    _mm256_storeu_si256((__m256i*)(void*)jl, bj);
    _mm256_store_ps(s8, sum);
    _Pragma("GCC unroll 8")
    for (int i = 0; i < SKC_SOA_W; ++i) {
      const int lane = K == 4 ? map4[i] : map2[i];
      const float* m = P + 16 * (size_t)jl[lane];
      _mm256_store_ps(buf + 16 * i, _mm256_load_ps(m));
      _mm256_store_ps(buf + 16 * i + 8, _mm256_blend_ps(_mm256_load_ps(m + 8), _mm256_broadcast_ss(&s8[lane]), 0x80));
    }
    return;
  }
  _Pragma("GCC unroll 8")
  for (int i = 0; i < SKC_SOA_W; ++i, jb += (size_t)K * (size_t)JT, w += K) {
    float sum = w[0];
    _Pragma("GCC unroll 8")
    for (uint32_t k = 1; k < K; ++k) sum += w[k];
    const float* m = P + 16 * (size_t)soa_rigid_joint(jb, w, JT, K);
    _mm256_store_ps(buf + 16 * i, _mm256_load_ps(m));
    _mm256_store_ps(buf + 16 * i + 8, _mm256_blend_ps(_mm256_load_ps(m + 8), _mm256_set1_ps(sum), 0x80));
  }
}

/* One block of 8 vertices starting at v; 0 = not written (redo with kgeneric). HAS_T: tangents (with normals), which
 * follow the blended matrix (LBS, RIGID) or rotation (DQS) as the normals do. */
SKC_KERNEL_INLINE int soa_block(const skc_deform_ctx* c, size_t v, const int JT, const uint32_t K, const int HAS_N,
                                const int HAS_T, const int MODE, const int RN, __m256i lim, int check_joints) {
  /* MODE 0: LBS; 1: DQS (DQS with the table and COR: soa_pipe_run); 3: RIGID (soa_rigid_rows, then as LBS) */
  const int DQS = MODE == 1;
  const size_t js = (size_t)K * (size_t)JT, ws = (size_t)K * 4;
  const unsigned char* jb = c->joints + v * js;
  const unsigned char* wb = c->weights + v * ws;
  if (check_joints && !soa_joints_ok(jb, SKC_SOA_W * js, JT, lim)) return 0;
  _Alignas(32) float buf[SKC_SOA_W * 16];
  const float* P = c->palette;
  const float* DQ = c->dq;
  if (MODE == 3) soa_rigid_rows(P, jb, (const float*)(const void*)wb, JT, K, buf);
  if (MODE == 0) {
    _Pragma("GCC unroll 8")
    for (int i = 0; i < SKC_SOA_W; ++i, jb += js, wb += ws) {
      /* one FMA chain per vertex: the 8 vertices of the block are independent, so the core overlaps them */
      const float* w = (const float*)(const void*)wb;
      vmat M = vm_scaled(P + 16 * (size_t)kload_joint(jb, 0, JT), w[0]);
      _Pragma("GCC unroll 8")
      for (uint32_t k = 1; k < K; ++k) M = vm_fma(M, P + 16 * (size_t)kload_joint(jb, k, JT), w[k]);
      _mm256_store_ps(buf + 16 * i, M.lo);
      _mm256_store_ps(buf + 16 * i + 8, M.hi);
    }
  }
  __m256 D[8]; /* DQS: the blends in SoA form */
  /* deform.c builds dq_uni and dq_sel for K >= 2 only */
  const int uni = MODE == 1 && K > 1 && c->dq_uni != NULL;
  const int table = MODE == 1 && K > 1 && (uni || c->dq_sel != NULL);
  if (uni) { /* consistent signs: no pivot */
    if (soa_zero_sum((const float*)(const void*)wb, K)) return 0;
    soa_dq_blend_rows(c, jb, wb, JT, K, NULL, D);
  } else if (table) {
    soa_hemi_pre pre; /* the joints are checked */
    soa_hemi_prep(c, v, JT, K, SOA_SIGN_TABLE, lim, 0, &pre);
    if (!pre.ok) return 0;
    soa_dq_blend_rows(c, jb, wb, JT, K, &pre, D);
  }
  if (MODE == 1 && !table) {
    /* Three passes over the 8 vertices, each with short independent chains so the core overlaps vertices:
     * pivot = largest weight (first on ties); each weight takes the sign of its real part's dot with the
     * pivot's (four dot products per register); then the blend. */
    uint32_t jl[SKC_SOA_W][8], jpiv[SKC_SOA_W];
    _Alignas(32) float sw[SKC_SOA_W][8];
    int zero_sum = 0;
    _Pragma("GCC unroll 2")
    for (int i = 0; i < SKC_SOA_W; ++i, jb += js, wb += ws) {
      _Pragma("GCC unroll 8")
      for (uint32_t k = 0; k < K; ++k) jl[i][k] = kload_joint(jb, k, JT);
      const float* w = (const float*)(const void*)wb;
      /* the generic loop keeps a vertex whose weights sum to 0 (e.g. 0.5 and -0.5): let it do this block */
      float wsum = w[0];
      _Pragma("GCC unroll 8")
      for (uint32_t k = 1; k < K; ++k) wsum += w[k];
      zero_sum |= wsum == 0.0f;
      jpiv[i] = jl[i][0];
      if (K > 1) { /* branch-free: the first lane equal to the maximum (a NaN weight may pick any valid lane: the
                      l2 test of the blend sends that block to kgeneric anyway) */
        __m256 w8 = K >= 8 ? _mm256_loadu_ps(w)
                           : _mm256_castps128_ps256(K >= 4 ? _mm_loadu_ps(w)
                                                           : load2(w));
        if (K < 8) { /* lanes >= K are -inf (a variable mask: unoptimized builds do not fold K into an immediate) */
          __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)K), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
          w8 = _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), w8, _mm256_castsi256_ps(in));
        }
        __m256 mx = _mm256_max_ps(w8, _mm256_permute_ps(w8, _MM_SHUFFLE(2, 3, 0, 1)));
        mx = _mm256_max_ps(mx, _mm256_permute_ps(mx, _MM_SHUFFLE(1, 0, 3, 2)));
        mx = _mm256_max_ps(mx, _mm256_permute2f128_ps(mx, mx, 0x01));
        unsigned msk = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(w8, mx, _CMP_EQ_OQ)) & ((1u << K) - 1u);
        jpiv[i] = jl[i][msk ? __builtin_ctz(msk) : 0];
      }
    }
    if (zero_sum) return 0; /* nothing written yet */
    wb = c->weights + v * ws;
    const __m128 sign = _mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u));
    _Pragma("GCC unroll 2")
    for (int i = 0; i < SKC_SOA_W; ++i, wb += ws) {
      const float* w = (const float*)(const void*)wb;
      const __m128 r0 = _mm_load_ps(DQ + 8 * (size_t)jpiv[i]);
      _Pragma("GCC unroll 2")
      for (uint32_t g = 0; g < K; g += 4) {
        __m128 m[4];
        _Pragma("GCC unroll 4")
        for (uint32_t t = 0; t < 4; ++t)
          m[t] = g + t < K ? _mm_mul_ps(_mm_load_ps(DQ + 8 * (size_t)jl[i][g + t]), r0) : _mm_setzero_ps();
        __m128 dots = _mm_hadd_ps(_mm_hadd_ps(m[0], m[1]), _mm_hadd_ps(m[2], m[3]));
        __m128 wv = K - g >= 4   ? _mm_loadu_ps(w + g)
                    : K - g == 2 ? load2(w + g)
                                 : _mm_load_ss(w + g);
        _mm_store_ps(&sw[i][g], _mm_xor_ps(wv, _mm_and_ps(dots, sign)));
      }
    }
    _Pragma("GCC unroll 2")
    for (int i = 0; i < SKC_SOA_W; ++i) {
      __m256 B = _mm256_mul_ps(_mm256_broadcast_ss(&sw[i][0]), _mm256_load_ps(DQ + 8 * (size_t)jl[i][0]));
      if (K > 1) {
        __m256 B1 = _mm256_mul_ps(_mm256_broadcast_ss(&sw[i][1]), _mm256_load_ps(DQ + 8 * (size_t)jl[i][1]));
        _Pragma("GCC unroll 4")
        for (uint32_t k = 2; k < K; ++k) {
          if (k & 1)
            B1 = _mm256_fmadd_ps(_mm256_broadcast_ss(&sw[i][k]), _mm256_load_ps(DQ + 8 * (size_t)jl[i][k]), B1);
          else
            B = _mm256_fmadd_ps(_mm256_broadcast_ss(&sw[i][k]), _mm256_load_ps(DQ + 8 * (size_t)jl[i][k]), B);
        }
        B = _mm256_add_ps(B, B1);
      }
      _mm256_store_ps(buf + 16 * i, B);
    }
  }

  const unsigned char* pin = c->pin + v * 12;
  __m256 px, py, pz, nx = _mm256_setzero_ps(), ny = nx, nz = nx, tv[4] = {nx, nx, nx, nx}, to[4] = {nx, nx, nx, nx};
  soa_load3(pin, &px, &py, &pz);
  if (HAS_N) soa_load3(c->nin + v * 12, &nx, &ny, &nz);
  if (HAS_T) soa_tangents_in(c, v, tv);
  __m256 ox, oy, oz, mx = _mm256_setzero_ps(), my = mx, mz = mx;
  __m256i badm;
  if (!DQS) {
    __m256 c0[4], c1[4], c2[4], c3[4];
    soa_transpose4(buf, 16, 0, c0);
    soa_transpose4(buf, 16, 4, c1);
    soa_transpose4(buf, 16, 8, c2);
    soa_transpose4(buf, 16, 12, c3); /* c3[3] = the weight sum (palette bottom rows are 0 0 0 1) */
    badm = soa_out_of_range(c3[3], 0x00800000, 0x7f61b1e6);
    ox = _mm256_fmadd_ps(c2[0], pz, _mm256_fmadd_ps(c1[0], py, _mm256_fmadd_ps(c0[0], px, c3[0])));
    oy = _mm256_fmadd_ps(c2[1], pz, _mm256_fmadd_ps(c1[1], py, _mm256_fmadd_ps(c0[1], px, c3[1])));
    oz = _mm256_fmadd_ps(c2[2], pz, _mm256_fmadd_ps(c1[2], py, _mm256_fmadd_ps(c0[2], px, c3[2])));
    if (HAS_N) {
      mx = _mm256_fmadd_ps(c2[0], nz, _mm256_fmadd_ps(c1[0], ny, _mm256_mul_ps(c0[0], nx)));
      my = _mm256_fmadd_ps(c2[1], nz, _mm256_fmadd_ps(c1[1], ny, _mm256_mul_ps(c0[1], nx)));
      mz = _mm256_fmadd_ps(c2[2], nz, _mm256_fmadd_ps(c1[2], ny, _mm256_mul_ps(c0[2], nx)));
    }
    if (HAS_T) {
      to[0] = _mm256_fmadd_ps(c2[0], tv[2], _mm256_fmadd_ps(c1[0], tv[1], _mm256_mul_ps(c0[0], tv[0])));
      to[1] = _mm256_fmadd_ps(c2[1], tv[2], _mm256_fmadd_ps(c1[1], tv[1], _mm256_mul_ps(c0[1], tv[0])));
      to[2] = _mm256_fmadd_ps(c2[2], tv[2], _mm256_fmadd_ps(c1[2], tv[1], _mm256_mul_ps(c0[2], tv[0])));
    }
  } else {
    if (!table) {
      soa_transpose4(buf, 16, 0, D);
      soa_transpose4(buf, 16, 4, D + 4);
    }
    const __m256* q = D;
    const __m256* d = D + 4;
    __m256 l2 = _mm256_fmadd_ps(q[3], q[3],
                                _mm256_fmadd_ps(q[2], q[2], _mm256_fmadd_ps(q[1], q[1], _mm256_mul_ps(q[0], q[0]))));
    /* (1e-30, 2^126): vd_to_mat takes up to 3e38, kgeneric redoes the (absurd) blocks between; below 2^126 the
     * reciprocal estimate is not flushed to 0 */
    badm = soa_l2_out_of_range(l2, 0x0da24262, 0x7e7fffff);
    const __m256 s = soa_two_over(l2);
    const __m256 qx = q[0], qy = q[1], qz = q[2], qw = q[3];
    /* x -> x + s (w (v x x) + v x (v x x)) + s (w d_v - d_w v + v x d_v) */
#define SOA_CROSS(ax, ay, az, bx, by, bz, rx, ry, rz)       \
  rx = _mm256_fmsub_ps(ay, bz, _mm256_mul_ps(az, by)); \
  ry = _mm256_fmsub_ps(az, bx, _mm256_mul_ps(ax, bz)); \
  rz = _mm256_fmsub_ps(ax, by, _mm256_mul_ps(ay, bx))
    __m256 tx, ty, tz, ex, ey, ez, fx, fy, fz;
    SOA_CROSS(qx, qy, qz, d[0], d[1], d[2], tx, ty, tz);
    tx = _mm256_fmadd_ps(qw, d[0], _mm256_fnmadd_ps(d[3], qx, tx));
    ty = _mm256_fmadd_ps(qw, d[1], _mm256_fnmadd_ps(d[3], qy, ty));
    tz = _mm256_fmadd_ps(qw, d[2], _mm256_fnmadd_ps(d[3], qz, tz));
    SOA_CROSS(qx, qy, qz, px, py, pz, ex, ey, ez);
    SOA_CROSS(qx, qy, qz, ex, ey, ez, fx, fy, fz);
    ox = _mm256_fmadd_ps(s, _mm256_add_ps(_mm256_fmadd_ps(qw, ex, fx), tx), px);
    oy = _mm256_fmadd_ps(s, _mm256_add_ps(_mm256_fmadd_ps(qw, ey, fy), ty), py);
    oz = _mm256_fmadd_ps(s, _mm256_add_ps(_mm256_fmadd_ps(qw, ez, fz), tz), pz);
    if (HAS_N) {
      SOA_CROSS(qx, qy, qz, nx, ny, nz, ex, ey, ez);
      SOA_CROSS(qx, qy, qz, ex, ey, ez, fx, fy, fz);
      mx = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ex, fx), nx);
      my = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ey, fy), ny);
      mz = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ez, fz), nz);
    }
    if (HAS_T) {
      SOA_CROSS(qx, qy, qz, tv[0], tv[1], tv[2], ex, ey, ez);
      SOA_CROSS(qx, qy, qz, ex, ey, ez, fx, fy, fz);
      to[0] = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ex, fx), tv[0]);
      to[1] = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ey, fy), tv[1]);
      to[2] = _mm256_fmadd_ps(s, _mm256_fmadd_ps(qw, ez, fz), tv[2]);
    }
#undef SOA_CROSS
  }
  if (!HAS_T) return soa_finish(c, v, HAS_N, RN, badm, ox, oy, oz, mx, my, mz);
  /* the tangents checked with the rest before anything is written, stored after it */
  to[3] = tv[3];
  badm = _mm256_or_si256(badm, soa_unit(&to[0], &to[1], &to[2], RN));
  if (!soa_finish(c, v, HAS_N, RN, badm, ox, oy, oz, mx, my, mz)) return 0;
  soa_tangents_out(c, v, to);
  return 1;
}

SKC_KERNEL_INLINE size_t soa_run(const skc_deform_ctx* c, size_t b, size_t e, const int JT, const uint32_t K,
                                 const int HAS_N, const int HAS_T, const int MODE, const int RN) {
  const uint32_t maxj = JT == 1 ? 255u : 65535u;
  const uint32_t lim = c->jcount - 1 < maxj ? c->jcount - 1 : maxj;
  const int check = lim < maxj;
  const __m256i vlim = JT == 1 ? _mm256_set1_epi8((char)lim) : _mm256_set1_epi16((short)lim);
  size_t bad = 0, v = b;
  if ((MODE == 1 || MODE == 2) && K > 1 && c->dq_uni) skc_deform_path_note(SKC_DEFORM_PATH_UNIFORM_SIGNS, e - b);
  if (MODE == 2) { /* COR: no fast loop for the tail */
    if (K > 1 && c->dq_uni)
      bad = soa_pipe_run(c, b, e, JT, K, HAS_N, RN, 2, SOA_SIGN_UNIFORM, vlim, check, &v);
    else if (K > 1 && c->dq_sel)
      bad = soa_pipe_run(c, b, e, JT, K, HAS_N, RN, 2, SOA_SIGN_TABLE, vlim, check, &v);
    else
      bad = soa_pipe_run(c, b, e, JT, K, HAS_N, RN, 2, SOA_SIGN_BITS, vlim, check, &v);
    if (v < e) bad += kgeneric(c, v, e);
    return bad;
  }
  if (!HAS_T && MODE == 1 && K > 1 && !c->dq_uni && c->dq_sel) /* DQS with the table: the pipelined loop */
    bad = soa_pipe_run(c, b, e, JT, K, HAS_N, RN, 1, SOA_SIGN_TABLE, vlim, check, &v);
  for (; v + SKC_SOA_W <= e; v += SKC_SOA_W)
    if (!soa_block(c, v, JT, K, HAS_N, HAS_T, MODE, RN, vlim, check)) bad += kgeneric(c, v, v + SKC_SOA_W);
  if (v < e) bad += kfast_dispatch(c, v, e);
  return bad;
}

/* RN: renormalize the normals (0 with SKC_DEFORM_NO_RENORMALIZE: the normals are written as transformed) */
#define SOA_K(JT, HN, HT, DQ, RN)                     \
  switch (c->k) {                                     \
    case 1:                                           \
      *bad = soa_run(c, b, e, JT, 1, HN, HT, DQ, RN); \
      return 1;                                       \
    case 2:                                           \
      *bad = soa_run(c, b, e, JT, 2, HN, HT, DQ, RN); \
      return 1;                                       \
    case 4:                                           \
      *bad = soa_run(c, b, e, JT, 4, HN, HT, DQ, RN); \
      return 1;                                       \
    case 8:                                           \
      *bad = soa_run(c, b, e, JT, 8, HN, HT, DQ, RN); \
      return 1;                                       \
    default:                                          \
      return 0;                                       \
  }
/* one function per joint type and method (as in deform_avx512.c: an unoptimized sanitizer build gives every
 * inlined variant its own locals, and all of them in one frame would be large) */
#define SOA_FN(NAME, JT, DQ)                                                                            \
  static __attribute__((noinline)) int NAME(const skc_deform_ctx* c, size_t b, size_t e, size_t* bad) { \
    if (!c->has_n) SOA_K(JT, 0, 0, DQ, 0)                                                               \
    if ((c->flags & SKC_DEFORM_NO_RENORMALIZE) == 0) SOA_K(JT, 1, 0, DQ, 1)                             \
    SOA_K(JT, 1, 0, DQ, 0)                                                                              \
  }
/* tangents (with normals): LBS and DQS blocks (soa_block; ksoa keeps them from the pipelined loop), in functions of
 * their own: in the same ones as the jobs without tangents, the pipelined DQS loop ran 10-15 % slower (code layout) */
#define SOA_TFN(NAME, JT, DQ)                                                                           \
  static __attribute__((noinline)) int NAME(const skc_deform_ctx* c, size_t b, size_t e, size_t* bad) { \
    if ((c->flags & SKC_DEFORM_NO_RENORMALIZE) == 0) SOA_K(JT, 1, 1, DQ, 1)                             \
    SOA_K(JT, 1, 1, DQ, 0)                                                                              \
  }
SOA_FN(soa_lbs_u8, 1, 0)
SOA_FN(soa_lbs_u16, 2, 0)
SOA_FN(soa_dqs_u8, 1, 1)
SOA_FN(soa_dqs_u16, 2, 1)
SOA_FN(soa_cor_u8, 1, 2)
SOA_FN(soa_cor_u16, 2, 2)
SOA_FN(soa_rigid_u8, 1, 3)
SOA_FN(soa_rigid_u16, 2, 3)
SOA_TFN(soa_lbs_t_u8, 1, 0)
SOA_TFN(soa_lbs_t_u16, 2, 0)
SOA_TFN(soa_dqs_t_u8, 1, 1)
SOA_TFN(soa_dqs_t_u16, 2, 1)
SOA_TFN(soa_rigid_t_u8, 1, 3)
SOA_TFN(soa_rigid_t_u16, 2, 3)
#undef SOA_K
#undef SOA_FN
#undef SOA_TFN

static __attribute__((noinline)) int ksoa(const skc_deform_ctx* c, size_t b, size_t e, size_t* bad) {
  /* the caller checked: packed influences, no flags but NO_RENORMALIZE, LBS, RIGID or unscaled DQS / COR */
  const int jt = (int)(c->fmt >> 3), wt = (int)(c->fmt & 7);
  if ((jt != 1 && jt != 2) || wt != 4 || c->k == 0) return 0;
  const int has_n = c->has_n;
  if (c->jstride != (size_t)c->k * (size_t)jt || c->wstride != (size_t)c->k * 4 || c->pis != 12 || c->pos != 12 ||
      (has_n && (c->nis != 12 || c->nos != 12 || c->nonrigid)))
    return 0;
  if (c->has_t) { /* packed tangents, with normals, on soa_block's loop (not the pipelined DQS table or COR) */
    const size_t tb = c->tc4 ? 16 : 12;
    if (!has_n || c->tis != tb || c->tos != tb || c->method == SKC_DEFORM_COR) return 0;
    if (c->method == SKC_DEFORM_DQS && c->k > 1 && !c->dq_uni && c->dq_sel) return 0;
    if (c->method == SKC_DEFORM_DQS) return jt == 1 ? soa_dqs_t_u8(c, b, e, bad) : soa_dqs_t_u16(c, b, e, bad);
    if (c->method == SKC_DEFORM_RIGID) return jt == 1 ? soa_rigid_t_u8(c, b, e, bad) : soa_rigid_t_u16(c, b, e, bad);
    return jt == 1 ? soa_lbs_t_u8(c, b, e, bad) : soa_lbs_t_u16(c, b, e, bad);
  }
  if (c->method == SKC_DEFORM_DQS) return jt == 1 ? soa_dqs_u8(c, b, e, bad) : soa_dqs_u16(c, b, e, bad);
  if (c->method == SKC_DEFORM_COR) {
    if (c->cis != 12 || !c->cor_pm) return 0; /* no records (memory short): the generic loop */
    return jt == 1 ? soa_cor_u8(c, b, e, bad) : soa_cor_u16(c, b, e, bad);
  }
  if (c->method == SKC_DEFORM_RIGID) return jt == 1 ? soa_rigid_u8(c, b, e, bad) : soa_rigid_u16(c, b, e, bad);
  return jt == 1 ? soa_lbs_u8(c, b, e, bad) : soa_lbs_u16(c, b, e, bad);
}

int skc_deform_kernel_avx2_available(void) { return 1; }

#else
size_t skc_deform_kernel_avx2(const skc_deform_ctx* c, size_t begin, size_t end) {
  return skc_deform_kernel_scalar(c, begin, end);
}
int skc_deform_kernel_avx2_available(void) { return 0; }
#endif
