/* deform_avx2.c - deform_kernel.inc with AVX2 + FMA primitives (built with -mavx2 -mfma, picked at run time).
 * A column-major matrix lives in two ymm registers, columns 0|1 and 2|3: blending a joint is two FMAs and a
 * transform is two broadcasts, one multiply, one FMA and a 128-bit fold. cglm must not be included here. */
#include "skc_deform.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

typedef struct vmat {
  __m256 lo, hi; /* columns 0|1, columns 2|3 */
} vmat;
typedef __m256 vdq;

static inline vmat vm_zero(void) {
  vmat r = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  return r;
}
static inline vmat vm_load(const float* m) {
  vmat r = {_mm256_loadu_ps(m), _mm256_loadu_ps(m + 8)};
  return r;
}
static inline vmat vm_fma(vmat a, const float* m, float w) {
  __m256 ws = _mm256_set1_ps(w);
  a.lo = _mm256_fmadd_ps(ws, _mm256_loadu_ps(m), a.lo);
  a.hi = _mm256_fmadd_ps(ws, _mm256_loadu_ps(m + 8), a.hi);
  return a;
}
static inline vmat vm_add(vmat a, vmat b) {
  a.lo = _mm256_add_ps(a.lo, b.lo);
  a.hi = _mm256_add_ps(a.hi, b.hi);
  return a;
}
static inline vmat vm_add_diag(vmat a, float s) {
  a.lo = _mm256_add_ps(a.lo, _mm256_setr_ps(s, 0, 0, 0, 0, s, 0, 0));
  a.hi = _mm256_add_ps(a.hi, _mm256_setr_ps(0, 0, s, 0, 0, 0, 0, 0));
  return a;
}
static inline void store3(__m128 v, float out[3]) {
  float t[4];
  _mm_storeu_ps(t, v);
  out[0] = t[0];
  out[1] = t[1];
  out[2] = t[2];
}
static inline void vm_point(vmat m, const float p[3], float out[3]) {
  __m256 xy = _mm256_setr_m128(_mm_set1_ps(p[0]), _mm_set1_ps(p[1]));
  __m256 z1 = _mm256_setr_m128(_mm_set1_ps(p[2]), _mm_set1_ps(1.0f));
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z1));
  store3(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), out);
}
static inline void vm_dir(vmat m, const float d[3], float out[3]) {
  __m256 xy = _mm256_setr_m128(_mm_set1_ps(d[0]), _mm_set1_ps(d[1]));
  __m256 z0 = _mm256_setr_m128(_mm_set1_ps(d[2]), _mm_setzero_ps());
  __m256 r = _mm256_fmadd_ps(m.lo, xy, _mm256_mul_ps(m.hi, z0));
  store3(_mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1)), out);
}
static inline void vm_store(vmat m, float out[16]) {
  _mm256_storeu_ps(out, m.lo);
  _mm256_storeu_ps(out + 8, m.hi);
}
static inline vdq vd_zero(void) { return _mm256_setzero_ps(); }
static inline vdq vd_fma(vdq a, const float* d, float w) {
  return _mm256_fmadd_ps(_mm256_set1_ps(w), _mm256_loadu_ps(d), a);
}
static inline void vd_store(vdq d, float out[8]) { _mm256_storeu_ps(out, d); }

#define SKC_KERNEL_FN skc_deform_kernel_avx2
#include "deform_kernel.inc"

int skc_deform_kernel_avx2_available(void) { return 1; }

#else
size_t skc_deform_kernel_avx2(const skc_deform_ctx* c, size_t begin, size_t end) {
  return skc_deform_kernel_scalar(c, begin, end);
}
int skc_deform_kernel_avx2_available(void) { return 0; }
#endif
