/* deform_avx2.c - deform_kernel.inc with AVX2 + FMA primitives (built with -mavx2 -mfma, picked at run time).
 * A column-major matrix lives in two ymm registers, columns 0|1 and 2|3: blending a joint is two FMAs and a
 * transform is two broadcasts, one multiply, one FMA and a 128-bit fold. cglm must not be included here. */
#include "skc_deform.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <float.h>
#include <immintrin.h>
#include <string.h>

typedef struct vmat {
  __m256 lo, hi; /* columns 0|1, columns 2|3 */
} vmat;
typedef __m256 vdq;

static inline __attribute__((always_inline)) vmat vm_zero(void) {
  vmat r = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  return r;
}
static inline __attribute__((always_inline)) vmat vm_load(const float* m) {
  vmat r = {_mm256_loadu_ps(m), _mm256_loadu_ps(m + 8)};
  return r;
}
static inline __attribute__((always_inline)) vmat vm_fma(vmat a, const float* m, float w) {
  __m256 ws = _mm256_set1_ps(w);
  a.lo = _mm256_fmadd_ps(ws, _mm256_loadu_ps(m), a.lo);
  a.hi = _mm256_fmadd_ps(ws, _mm256_loadu_ps(m + 8), a.hi);
  return a;
}
static inline __attribute__((always_inline)) vmat vm_add(vmat a, vmat b) {
  a.lo = _mm256_add_ps(a.lo, b.lo);
  a.hi = _mm256_add_ps(a.hi, b.hi);
  return a;
}
static inline __attribute__((always_inline)) vmat vm_add_diag(vmat a, float s) {
  a.lo = _mm256_add_ps(a.lo, _mm256_setr_ps(s, 0, 0, 0, 0, s, 0, 0));
  a.hi = _mm256_add_ps(a.hi, _mm256_setr_ps(0, 0, s, 0, 0, 0, 0, 0));
  return a;
}
static inline __attribute__((always_inline)) void store3(__m128 v, float out[3]) {
  float t[4];
  _mm_storeu_ps(t, v);
  out[0] = t[0];
  out[1] = t[1];
  out[2] = t[2];
}
static inline __attribute__((always_inline)) void vm_point(vmat m, const float p[3], float out[3]) {
  __m256 xy = _mm256_setr_m128(_mm_set1_ps(p[0]), _mm_set1_ps(p[1]));
  __m256 z1 = _mm256_setr_m128(_mm_set1_ps(p[2]), _mm_set1_ps(1.0f));
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z1));
  store3(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), out);
}
static inline __attribute__((always_inline)) void vm_dir(vmat m, const float d[3], float out[3]) {
  __m256 xy = _mm256_setr_m128(_mm_set1_ps(d[0]), _mm_set1_ps(d[1]));
  __m256 z0 = _mm256_setr_m128(_mm_set1_ps(d[2]), _mm_setzero_ps());
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z0));
  store3(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), out);
}
static inline __attribute__((always_inline)) void vm_store(vmat m, float out[16]) {
  _mm256_storeu_ps(out, m.lo);
  _mm256_storeu_ps(out + 8, m.hi);
}
static inline __attribute__((always_inline)) vdq vd_zero(void) { return _mm256_setzero_ps(); }
static inline __attribute__((always_inline)) vdq vd_fma(vdq a, const float* d, float w) {
  return _mm256_fmadd_ps(_mm256_set1_ps(w), _mm256_loadu_ps(d), a);
}
static inline __attribute__((always_inline)) void vd_store(vdq d, float out[8]) { _mm256_storeu_ps(out, d); }

static inline __attribute__((always_inline)) vmat vm_scaled(const float* m, float w) {
  __m256 ws = _mm256_set1_ps(w);
  vmat r = {_mm256_mul_ps(ws, _mm256_loadu_ps(m)), _mm256_mul_ps(ws, _mm256_loadu_ps(m + 8))};
  return r;
}
static inline __attribute__((always_inline)) vdq vd_scaled(const float* d, float w) { return _mm256_mul_ps(_mm256_set1_ps(w), _mm256_loadu_ps(d)); }
static inline __attribute__((always_inline)) vdq vd_add(vdq a, vdq b) { return _mm256_add_ps(a, b); }

/* ---- fast-loop vertex primitives: the vertex stays in one register ---- */
typedef __m128 vp;

static inline __attribute__((always_inline)) __m256 bcast_at(const unsigned char* p) {
  float x;
  memcpy(&x, p, sizeof x);
  return _mm256_set1_ps(x);
}
/* lo * (x x x x | y y y y) + hi * (z z z z | 1 1 1 1), folded: c0 x + c1 y + c2 z + c3 */
static inline __attribute__((always_inline)) vp vm_point_m(vmat m, const unsigned char* p) {
  __m256 xy = _mm256_blend_ps(bcast_at(p), bcast_at(p + 4), 0xF0);
  __m256 z1 = _mm256_blend_ps(bcast_at(p + 8), _mm256_set1_ps(1.0f), 0xF0);
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z1));
  return _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
}
static inline __attribute__((always_inline)) vp vm_dir_m(vmat m, const unsigned char* d) {
  __m256 xy = _mm256_blend_ps(bcast_at(d), bcast_at(d + 4), 0xF0);
  __m128 rz = _mm_mul_ps(_mm256_castps256_ps128(m.hi), _mm256_castps256_ps128(bcast_at(d + 8)));
  __m256 r = _mm256_mul_ps(m.lo, xy);
  return _mm_add_ps(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), rz);
}
/* |n|^2 broadcast, range [FLT_MIN, 3e38] as one unsigned compare of its bits, rsqrt with one
 * Newton-Raphson step (~1e-7) */
static inline __attribute__((always_inline)) int vp_renorm(vp* n) {
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
static inline __attribute__((always_inline)) void vp_store3(unsigned char* d, vp v) {
  _mm_storel_pi((__m64*)(void*)d, v);
  int z = _mm_extract_ps(v, 2);
  memcpy(d + 8, &z, sizeof z);
}

/* ---- DQS in registers: hemisphere signs of K dot products at once, blend -> 3x4 matrix with shuffles ---- */
#define SKC_HAVE_VD_HEMI 1
#define SKC_HAVE_VD_TO_MAT 1
/* The K dot products four at a time (multiply, two horizontal adds), their signs xor-ed into the weights. */
static inline __attribute__((always_inline)) void vd_hemi_weights(const float* DQ, const uint32_t* j, float* w,
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
static inline __attribute__((always_inline)) int vd_to_mat(vdq D, vmat* M) {
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
#include "deform_kernel.inc"

int skc_deform_kernel_avx2_available(void) { return 1; }

#else
size_t skc_deform_kernel_avx2(const skc_deform_ctx* c, size_t begin, size_t end) {
  return skc_deform_kernel_scalar(c, begin, end);
}
int skc_deform_kernel_avx2_available(void) { return 0; }
#endif
