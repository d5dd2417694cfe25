/* deform_sse2.c - deform_kernel.inc with SSE2 primitives (x86-64 baseline: no extra compiler flags). */
#include "skc_deform.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#include <float.h>
#include <string.h>

typedef struct vmat {
  __m128 c0, c1, c2, c3;
} vmat;
typedef struct vdq {
  __m128 r, d;
} vdq;

SKC_KERNEL_INLINE vmat vm_zero(void) {
  vmat r = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
  return r;
}
SKC_KERNEL_INLINE vmat vm_load(const float* m) {
  vmat r = {_mm_loadu_ps(m), _mm_loadu_ps(m + 4), _mm_loadu_ps(m + 8), _mm_loadu_ps(m + 12)};
  return r;
}
SKC_KERNEL_INLINE vmat vm_fma(vmat a, const float* m, float w) {
  __m128 ws = _mm_set1_ps(w);
  a.c0 = _mm_add_ps(a.c0, _mm_mul_ps(ws, _mm_loadu_ps(m)));
  a.c1 = _mm_add_ps(a.c1, _mm_mul_ps(ws, _mm_loadu_ps(m + 4)));
  a.c2 = _mm_add_ps(a.c2, _mm_mul_ps(ws, _mm_loadu_ps(m + 8)));
  a.c3 = _mm_add_ps(a.c3, _mm_mul_ps(ws, _mm_loadu_ps(m + 12)));
  return a;
}
SKC_KERNEL_INLINE vmat vm_add(vmat a, vmat b) {
  a.c0 = _mm_add_ps(a.c0, b.c0);
  a.c1 = _mm_add_ps(a.c1, b.c1);
  a.c2 = _mm_add_ps(a.c2, b.c2);
  a.c3 = _mm_add_ps(a.c3, b.c3);
  return a;
}
SKC_KERNEL_INLINE vmat vm_add_diag(vmat a, float s) {
  a.c0 = _mm_add_ps(a.c0, _mm_setr_ps(s, 0, 0, 0));
  a.c1 = _mm_add_ps(a.c1, _mm_setr_ps(0, s, 0, 0));
  a.c2 = _mm_add_ps(a.c2, _mm_setr_ps(0, 0, s, 0));
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
  __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m.c0, _mm_set1_ps(p[0])), _mm_mul_ps(m.c1, _mm_set1_ps(p[1]))),
                        _mm_add_ps(_mm_mul_ps(m.c2, _mm_set1_ps(p[2])), m.c3));
  store3(r, out);
}
SKC_KERNEL_INLINE void vm_dir(vmat m, const float d[3], float out[3]) {
  __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m.c0, _mm_set1_ps(d[0])), _mm_mul_ps(m.c1, _mm_set1_ps(d[1]))),
                        _mm_mul_ps(m.c2, _mm_set1_ps(d[2])));
  store3(r, out);
}
SKC_KERNEL_INLINE void vm_store(vmat m, float out[16]) {
  _mm_storeu_ps(out, m.c0);
  _mm_storeu_ps(out + 4, m.c1);
  _mm_storeu_ps(out + 8, m.c2);
  _mm_storeu_ps(out + 12, m.c3);
}
SKC_KERNEL_INLINE vdq vd_zero(void) {
  vdq r = {_mm_setzero_ps(), _mm_setzero_ps()};
  return r;
}
SKC_KERNEL_INLINE vdq vd_fma(vdq a, const float* d, float w) {
  __m128 ws = _mm_set1_ps(w);
  a.r = _mm_add_ps(a.r, _mm_mul_ps(ws, _mm_loadu_ps(d)));
  a.d = _mm_add_ps(a.d, _mm_mul_ps(ws, _mm_loadu_ps(d + 4)));
  return a;
}
SKC_KERNEL_INLINE void vd_store(vdq d, float out[8]) {
  _mm_storeu_ps(out, d.r);
  _mm_storeu_ps(out + 4, d.d);
}

SKC_KERNEL_INLINE vmat vm_scaled(const float* m, float w) {
  __m128 ws = _mm_set1_ps(w);
  vmat r = {_mm_mul_ps(ws, _mm_loadu_ps(m)), _mm_mul_ps(ws, _mm_loadu_ps(m + 4)), _mm_mul_ps(ws, _mm_loadu_ps(m + 8)),
            _mm_mul_ps(ws, _mm_loadu_ps(m + 12))};
  return r;
}
SKC_KERNEL_INLINE vdq vd_scaled(const float* d, float w) {
  __m128 ws = _mm_set1_ps(w);
  vdq r = {_mm_mul_ps(ws, _mm_loadu_ps(d)), _mm_mul_ps(ws, _mm_loadu_ps(d + 4))};
  return r;
}
SKC_KERNEL_INLINE vdq vd_add(vdq a, vdq b) {
  a.r = _mm_add_ps(a.r, b.r);
  a.d = _mm_add_ps(a.d, b.d);
  return a;
}

/* ---- fast-loop vertex primitives: the vertex stays in one register ---- */
typedef __m128 vp;

SKC_KERNEL_INLINE __m128 bcast_at(const unsigned char* p) {
  float x;
  memcpy(&x, p, sizeof x);
  return _mm_set1_ps(x);
}
SKC_KERNEL_INLINE vp vm_point_m(vmat m, const unsigned char* p) {
  __m128 a = _mm_add_ps(_mm_mul_ps(m.c0, bcast_at(p)), _mm_mul_ps(m.c1, bcast_at(p + 4)));
  return _mm_add_ps(a, _mm_add_ps(_mm_mul_ps(m.c2, bcast_at(p + 8)), m.c3));
}
SKC_KERNEL_INLINE vp vm_dir_m(vmat m, const unsigned char* d) {
  __m128 a = _mm_add_ps(_mm_mul_ps(m.c0, bcast_at(d)), _mm_mul_ps(m.c1, bcast_at(d + 4)));
  return _mm_add_ps(a, _mm_mul_ps(m.c2, bcast_at(d + 8)));
}
/* |n|^2 over the 3 lanes (lane 3 of a vm_dir_m result is 0 or NaN; NaN fails the range test anyway) */
SKC_KERNEL_INLINE int vp_renorm(vp* n) {
  __m128 v = *n;
  __m128 sq = _mm_mul_ps(v, v);
  __m128 s = _mm_add_ps(sq, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(2, 3, 0, 1)));
  s = _mm_add_ps(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 0, 3, 2)));
  /* |n|^2 in [FLT_MIN, 3e38] (NaN fails) as one unsigned compare of its bits */
  uint32_t bits = (uint32_t)_mm_cvtsi128_si32(_mm_castps_si128(s));
  __m128 r = _mm_rsqrt_ps(s); /* ~12 bits, one Newton-Raphson step: ~1e-7 */
  __m128 t = _mm_mul_ps(_mm_mul_ps(s, r), r);
  r = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), r), _mm_sub_ps(_mm_set1_ps(3.0f), t));
  *n = _mm_mul_ps(v, r);
  return bits - 0x00800000u <= 0x7f61b1e6u - 0x00800000u;
}
SKC_KERNEL_INLINE void vp_store3(unsigned char* d, vp v) {
  _mm_storel_pi((__m64*)(void*)d, v);
  float z = _mm_cvtss_f32(_mm_movehl_ps(v, v));
  memcpy(d + 8, &z, sizeof z);
}

#define SKC_KERNEL_FN skc_deform_kernel_sse2
#include "deform_kernel.inc"

int skc_deform_kernel_sse2_available(void) { return 1; }

#else
size_t skc_deform_kernel_sse2(const skc_deform_ctx* c, size_t begin, size_t end) {
  return skc_deform_kernel_scalar(c, begin, end);
}
int skc_deform_kernel_sse2_available(void) { return 0; }
#endif
