/* deform_scalar.c - the portable reference kernel: deform_kernel.inc over plain float arrays. */
#include "skc_deform.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef struct vmat {
  float m[16];
} vmat;
typedef struct vdq {
  float d[8];
} vdq;

SKC_KERNEL_INLINE vmat vm_zero(void) {
  vmat r;
  for (int i = 0; i < 16; ++i) r.m[i] = 0.0f;
  return r;
}
SKC_KERNEL_INLINE vmat vm_load(const float* m) {
  vmat r;
  for (int i = 0; i < 16; ++i) r.m[i] = m[i];
  return r;
}
SKC_KERNEL_INLINE vmat vm_fma(vmat acc, const float* m, float w) {
  for (int i = 0; i < 16; ++i) acc.m[i] += w * m[i];
  return acc;
}
SKC_KERNEL_INLINE vmat vm_add(vmat a, vmat b) {
  for (int i = 0; i < 16; ++i) a.m[i] += b.m[i];
  return a;
}
SKC_KERNEL_INLINE vmat vm_add_diag(vmat a, float s) {
  a.m[0] += s;
  a.m[5] += s;
  a.m[10] += s;
  return a;
}
SKC_KERNEL_INLINE void vm_point(vmat m, const float p[3], float out[3]) {
  for (int r = 0; r < 3; ++r) out[r] = m.m[r] * p[0] + m.m[4 + r] * p[1] + m.m[8 + r] * p[2] + m.m[12 + r];
}
SKC_KERNEL_INLINE void vm_dir(vmat m, const float d[3], float out[3]) {
  for (int r = 0; r < 3; ++r) out[r] = m.m[r] * d[0] + m.m[4 + r] * d[1] + m.m[8 + r] * d[2];
}
SKC_KERNEL_INLINE void vm_store(vmat m, float out[16]) {
  for (int i = 0; i < 16; ++i) out[i] = m.m[i];
}
SKC_KERNEL_INLINE vdq vd_zero(void) {
  vdq r;
  for (int i = 0; i < 8; ++i) r.d[i] = 0.0f;
  return r;
}
SKC_KERNEL_INLINE vdq vd_fma(vdq acc, const float* d, float w) {
  for (int i = 0; i < 8; ++i) acc.d[i] += w * d[i];
  return acc;
}
SKC_KERNEL_INLINE void vd_store(vdq d, float out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = d.d[i];
}

SKC_KERNEL_INLINE vmat vm_scaled(const float* m, float w) {
  vmat r;
  for (int i = 0; i < 16; ++i) r.m[i] = w * m[i];
  return r;
}
SKC_KERNEL_INLINE vdq vd_scaled(const float* d, float w) {
  vdq r;
  for (int i = 0; i < 8; ++i) r.d[i] = w * d[i];
  return r;
}
SKC_KERNEL_INLINE vdq vd_add(vdq a, vdq b) {
  for (int i = 0; i < 8; ++i) a.d[i] += b.d[i];
  return a;
}

typedef struct vp {
  float v[3];
} vp;

SKC_KERNEL_INLINE vp vm_point_m(vmat m, const unsigned char* p) {
  float x[3];
  vp r;
  memcpy(x, p, sizeof x);
  vm_point(m, x, r.v);
  return r;
}
SKC_KERNEL_INLINE vp vm_dir_m(vmat m, const unsigned char* d) {
  float x[3];
  vp r;
  memcpy(x, d, sizeof x);
  vm_dir(m, x, r.v);
  return r;
}
SKC_KERNEL_INLINE int vp_renorm(vp* n) {
  float l2 = n->v[0] * n->v[0] + n->v[1] * n->v[1] + n->v[2] * n->v[2];
  if (!(l2 >= FLT_MIN) || !(l2 <= 3.0e38f)) return 0;
  float inv = 1.0f / sqrtf(l2);
  for (int i = 0; i < 3; ++i) n->v[i] *= inv;
  return 1;
}
SKC_KERNEL_INLINE void vp_store3(unsigned char* d, vp v) { memcpy(d, v.v, sizeof v.v); }

/* the reference kernel reads K at run time (no unrolled copies of the fast loop) and keeps one vertex's
 * matrix in scalar registers (a block buffer of 16-float matrices costs more than it hides here) */
#define SKC_KFAST_CONST_K 0
#define SKC_KFAST_BLOCK 1
#define SKC_KERNEL_FN skc_deform_kernel_scalar
#include "deform_kernel.inc"
