/* deform_scalar.c - the portable reference kernel: deform_kernel.inc over plain float arrays. */
#include "skc_deform.h"

typedef struct vmat {
  float m[16];
} vmat;
typedef struct vdq {
  float d[8];
} vdq;

static inline vmat vm_zero(void) {
  vmat r;
  for (int i = 0; i < 16; ++i) r.m[i] = 0.0f;
  return r;
}
static inline vmat vm_load(const float* m) {
  vmat r;
  for (int i = 0; i < 16; ++i) r.m[i] = m[i];
  return r;
}
static inline vmat vm_fma(vmat acc, const float* m, float w) {
  for (int i = 0; i < 16; ++i) acc.m[i] += w * m[i];
  return acc;
}
static inline vmat vm_add(vmat a, vmat b) {
  for (int i = 0; i < 16; ++i) a.m[i] += b.m[i];
  return a;
}
static inline vmat vm_add_diag(vmat a, float s) {
  a.m[0] += s;
  a.m[5] += s;
  a.m[10] += s;
  return a;
}
static inline void vm_point(vmat m, const float p[3], float out[3]) {
  for (int r = 0; r < 3; ++r) out[r] = m.m[r] * p[0] + m.m[4 + r] * p[1] + m.m[8 + r] * p[2] + m.m[12 + r];
}
static inline void vm_dir(vmat m, const float d[3], float out[3]) {
  for (int r = 0; r < 3; ++r) out[r] = m.m[r] * d[0] + m.m[4 + r] * d[1] + m.m[8 + r] * d[2];
}
static inline void vm_store(vmat m, float out[16]) {
  for (int i = 0; i < 16; ++i) out[i] = m.m[i];
}
static inline vdq vd_zero(void) {
  vdq r;
  for (int i = 0; i < 8; ++i) r.d[i] = 0.0f;
  return r;
}
static inline vdq vd_fma(vdq acc, const float* d, float w) {
  for (int i = 0; i < 8; ++i) acc.d[i] += w * d[i];
  return acc;
}
static inline void vd_store(vdq d, float out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = d.d[i];
}

#define SKC_KERNEL_FN skc_deform_kernel_scalar
#include "deform_kernel.inc"
