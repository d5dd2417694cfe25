/* math.c - affine helpers over caller float arrays (see skc_math.h for conventions). */
#include "skc_math.h"

#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

static void load(const float src[16], mat4 dst) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) dst[c][r] = src[c * 4 + r];
}

static void store(mat4 src, float dst[16]) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) dst[c * 4 + r] = src[c][r];
}

void skc_mat4_identity(float out[16]) {
  memset(out, 0, 16 * sizeof(float));
  out[0] = out[5] = out[10] = out[15] = 1.0f;
}

void skc_mat4_mul(const float a[16], const float b[16], float out[16]) {
  mat4 ma, mb, mo;
  load(a, ma);
  load(b, mb);
  glm_mat4_mul(ma, mb, mo);
  store(mo, out);
}

bool skc_mat4_is_finite(const float m[16]) {
  for (int i = 0; i < 16; ++i)
    if (!isfinite(m[i])) return false;
  return true;
}

bool skc_mat4_is_affine(const float m[16], float tol) {
  return fabsf(m[3]) <= tol && fabsf(m[7]) <= tol && fabsf(m[11]) <= tol && fabsf(m[15] - 1.0f) <= tol;
}

float skc_mat3_det_of_mat4(const float m[16]) {
  /* columns a = m[0..2], b = m[4..6], c = m[8..10]; det = a . (b x c) */
  double a0 = m[0], a1 = m[1], a2 = m[2], b0 = m[4], b1 = m[5], b2 = m[6], c0 = m[8], c1 = m[9], c2 = m[10];
  return (float)(a0 * (b1 * c2 - b2 * c1) - a1 * (b0 * c2 - b2 * c0) + a2 * (b0 * c1 - b1 * c0));
}

bool skc_mat4_inverse(const float m[16], float out[16]) {
  if (!skc_mat4_is_finite(m)) return false;
  /* Double precision cofactor inverse: bind matrices of real assets span large scales. */
  double a[16], inv[16];
  for (int i = 0; i < 16; ++i) a[i] = m[i];
  inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] +
           a[13] * a[6] * a[11] - a[13] * a[7] * a[10];
  inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] -
           a[12] * a[6] * a[11] + a[12] * a[7] * a[10];
  inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] +
           a[12] * a[5] * a[11] - a[12] * a[7] * a[9];
  inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] -
            a[12] * a[5] * a[10] + a[12] * a[6] * a[9];
  inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] -
           a[13] * a[2] * a[11] + a[13] * a[3] * a[10];
  inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] +
           a[12] * a[2] * a[11] - a[12] * a[3] * a[10];
  inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] -
           a[12] * a[1] * a[11] + a[12] * a[3] * a[9];
  inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] +
            a[12] * a[1] * a[10] - a[12] * a[2] * a[9];
  inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] +
           a[13] * a[2] * a[7] - a[13] * a[3] * a[6];
  inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] -
           a[12] * a[2] * a[7] + a[12] * a[3] * a[6];
  inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] +
            a[12] * a[1] * a[7] - a[12] * a[3] * a[5];
  inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] -
            a[12] * a[1] * a[6] + a[12] * a[2] * a[5];
  inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] -
           a[9] * a[2] * a[7] + a[9] * a[3] * a[6];
  inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] +
           a[8] * a[2] * a[7] - a[8] * a[3] * a[6];
  inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] -
            a[8] * a[1] * a[7] + a[8] * a[3] * a[5];
  inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] +
            a[8] * a[1] * a[6] - a[8] * a[2] * a[5];
  double det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
  /* Relative singularity test: compare with the product of column norms (Hadamard bound). */
  double bound = 1.0;
  for (int c = 0; c < 4; ++c) {
    double n = sqrt(a[c * 4] * a[c * 4] + a[c * 4 + 1] * a[c * 4 + 1] + a[c * 4 + 2] * a[c * 4 + 2] +
                    a[c * 4 + 3] * a[c * 4 + 3]);
    bound *= n;
  }
  if (!(fabs(det) > 1e-12 * bound) || !isfinite(det)) return false;
  double r = 1.0 / det;
  for (int i = 0; i < 16; ++i) {
    double v = inv[i] * r;
    if (!isfinite(v) || fabs(v) > 3.0e38) return false;
    out[i] = (float)v;
  }
  return true;
}

bool skc_mat4_is_rigid(const float m[16], float tol) {
  for (int i = 0; i < 3; ++i) {
    for (int j = i; j < 3; ++j) {
      float d = m[i * 4] * m[j * 4] + m[i * 4 + 1] * m[j * 4 + 1] + m[i * 4 + 2] * m[j * 4 + 2];
      if (fabsf(d - (i == j ? 1.0f : 0.0f)) > tol) return false;
    }
  }
  return skc_mat3_det_of_mat4(m) > 0.0f;
}

void skc_mat4_transform_point(const float m[16], const float p[3], float out[3]) {
  float x = p[0], y = p[1], z = p[2];
  for (int r = 0; r < 3; ++r) out[r] = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r];
}

void skc_mat4_transform_dir(const float m[16], const float d[3], float out[3]) {
  float x = d[0], y = d[1], z = d[2];
  for (int r = 0; r < 3; ++r) out[r] = m[r] * x + m[4 + r] * y + m[8 + r] * z;
}

bool skc_mat4_normal_matrix(const float m[16], float out[16]) {
  /* inverse transpose of A = cofactor(A) / det(A); columns of cof(A) are cross products of A's columns. */
  const float* a = m;
  const float* b = m + 4;
  const float* c = m + 8;
  float det = skc_mat3_det_of_mat4(m);
  if (!(fabsf(det) > 1e-30f) || !isfinite(det)) return false;
  float inv = 1.0f / det;
  float cols[3][3] = {{b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]},
                      {c[1] * a[2] - c[2] * a[1], c[2] * a[0] - c[0] * a[2], c[0] * a[1] - c[1] * a[0]},
                      {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}};
  memset(out, 0, 16 * sizeof(float));
  for (int k = 0; k < 3; ++k)
    for (int r = 0; r < 3; ++r) out[k * 4 + r] = cols[k][r] * inv;
  out[15] = 1.0f;
  return true;
}

float skc_mat4_max_abs_diff(const float a[16], const float b[16]) {
  float d = 0.0f;
  for (int i = 0; i < 16; ++i) {
    float e = fabsf(a[i] - b[i]);
    if (!(e <= d)) d = e; /* NaN propagates as "large" */
  }
  return d;
}

void skc_trs_identity(skc_trs* out) {
  memset(out, 0, sizeof *out);
  out->r[3] = 1.0f;
  out->s[0] = out->s[1] = out->s[2] = 1.0f;
}

void skc_trs_to_mat4(const skc_trs* trs, float out[16]) {
  float q[4] = {trs->r[0], trs->r[1], trs->r[2], trs->r[3]};
  skc_quat_normalize(q);
  float x = q[0], y = q[1], z = q[2], w = q[3];
  float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y,
        wz = w * z;
  float rot[9] = {1 - 2 * (yy + zz), 2 * (xy + wz),     2 * (xz - wy),  /* column 0 */
                  2 * (xy - wz),     1 - 2 * (xx + zz), 2 * (yz + wx),  /* column 1 */
                  2 * (xz + wy),     2 * (yz - wx),     1 - 2 * (xx + yy)};
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 3; ++r) out[c * 4 + r] = rot[c * 3 + r] * trs->s[c];
    out[c * 4 + 3] = 0.0f;
  }
  out[12] = trs->t[0];
  out[13] = trs->t[1];
  out[14] = trs->t[2];
  out[15] = 1.0f;
}

bool skc_mat4_to_trs(const float m[16], skc_trs* out, float tol) {
  skc_trs_identity(out);
  out->t[0] = m[12];
  out->t[1] = m[13];
  out->t[2] = m[14];
  bool ok = skc_mat4_is_affine(m, tol) && skc_mat4_is_finite(m);
  float s[3];
  for (int c = 0; c < 3; ++c) { /* in double: the squares of a float column past 1.8e19 overflow a float */
    const double x = m[c * 4], y = m[c * 4 + 1], z = m[c * 4 + 2];
    s[c] = (float)sqrt(x * x + y * y + z * z);
  }
  if (!(s[0] > 0.0f && s[1] > 0.0f && s[2] > 0.0f) || !isfinite(s[0] + s[1] + s[2])) return false;
  if (skc_mat3_det_of_mat4(m) < 0.0f) s[0] = -s[0]; /* fold a mirror into the x scale */
  float r[16];
  skc_mat4_identity(r);
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k) r[c * 4 + k] = m[c * 4 + k] / s[c];
  skc_quat_from_mat4(r, out->r);
  memcpy(out->s, s, sizeof s);
  float back[16];
  skc_trs_to_mat4(out, back);
  float scale = fmaxf(1.0f, fmaxf(fabsf(s[0]), fmaxf(fabsf(s[1]), fabsf(s[2]))));
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k)
      if (fabsf(back[c * 4 + k] - m[c * 4 + k]) > tol * scale) ok = false;
  return ok;
}

void skc_quat_normalize(float q[4]) {
  float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0.0f && isfinite(n)) {
    float inv = 1.0f / n;
    for (int i = 0; i < 4; ++i) q[i] *= inv;
  } else {
    q[0] = q[1] = q[2] = 0.0f;
    q[3] = 1.0f;
  }
}

void skc_quat_mul(const float a[4], const float b[4], float out[4]) {
  float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
}

void skc_quat_from_axis_angle(const float axis[3], float angle, float out[4]) {
  float n = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  if (!(n > 0.0f)) {
    out[0] = out[1] = out[2] = 0.0f;
    out[3] = 1.0f;
    return;
  }
  float s = sinf(0.5f * angle) / n;
  out[0] = axis[0] * s;
  out[1] = axis[1] * s;
  out[2] = axis[2] * s;
  out[3] = cosf(0.5f * angle);
}

void skc_quat_rotate(const float q[4], const float v[3], float out[3]) {
  /* v' = v + 2w (q x v) + 2 q x (q x v) */
  float tx = 2.0f * (q[1] * v[2] - q[2] * v[1]);
  float ty = 2.0f * (q[2] * v[0] - q[0] * v[2]);
  float tz = 2.0f * (q[0] * v[1] - q[1] * v[0]);
  float x = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
  float y = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
  float z = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
  out[0] = x;
  out[1] = y;
  out[2] = z;
}

void skc_quat_from_mat4(const float m[16], float out[4]) {
  /* Shepperd's method on the upper 3x3 (column-major: element (r, c) = m[c * 4 + r]). */
  float m00 = m[0], m11 = m[5], m22 = m[10];
  float m01 = m[4], m02 = m[8], m10 = m[1], m12 = m[9], m20 = m[2], m21 = m[6];
  float tr = m00 + m11 + m22;
  float x, y, z, w;
  if (tr > 0.0f) {
    float s = sqrtf(tr + 1.0f) * 2.0f;
    w = 0.25f * s;
    x = (m21 - m12) / s;
    y = (m02 - m20) / s;
    z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    float s = sqrtf(1.0f + m00 - m11 - m22) * 2.0f;
    w = (m21 - m12) / s;
    x = 0.25f * s;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
  } else if (m11 > m22) {
    float s = sqrtf(1.0f + m11 - m00 - m22) * 2.0f;
    w = (m02 - m20) / s;
    x = (m01 + m10) / s;
    y = 0.25f * s;
    z = (m12 + m21) / s;
  } else {
    float s = sqrtf(1.0f + m22 - m00 - m11) * 2.0f;
    w = (m10 - m01) / s;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
    z = 0.25f * s;
  }
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
  skc_quat_normalize(out);
}

bool skc_mat4_polar(const float m[16], float r[16], float s[16]) {
  /* Higham's scaled Newton iteration R <- (g R + R^-T / g) / 2 in double precision. */
  double a[9], x[9];
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k) a[c * 3 + k] = m[c * 4 + k];
  memcpy(x, a, sizeof x);
  double det0 = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                a[2] * (a[3] * a[7] - a[4] * a[6]);
  if (!(fabs(det0) > 1e-30) || !isfinite(det0)) return false;
  bool flip = det0 < 0.0;
  if (flip)
    for (int i = 0; i < 9; ++i) x[i] = -x[i]; /* polar of -A gives a proper rotation; S absorbs the sign */
  for (int it = 0; it < 40; ++it) {
    /* column-major 3x3: element (row k, col c) = x[c*3+k] */
    double c0[3] = {x[0], x[1], x[2]}, c1[3] = {x[3], x[4], x[5]}, c2[3] = {x[6], x[7], x[8]};
    double cof[9] = {c1[1] * c2[2] - c1[2] * c2[1], c1[2] * c2[0] - c1[0] * c2[2], c1[0] * c2[1] - c1[1] * c2[0],
                     c2[1] * c0[2] - c2[2] * c0[1], c2[2] * c0[0] - c2[0] * c0[2], c2[0] * c0[1] - c2[1] * c0[0],
                     c0[1] * c1[2] - c0[2] * c1[1], c0[2] * c1[0] - c0[0] * c1[2], c0[0] * c1[1] - c0[1] * c1[0]};
    double det = c0[0] * cof[0] + c0[1] * cof[1] + c0[2] * cof[2];
    if (!(fabs(det) > 1e-300)) return false;
    /* inverse transpose = cof / det (cof columns are the cross products above) */
    double fro = 0.0, fro_inv = 0.0;
    for (int i = 0; i < 9; ++i) {
      fro += x[i] * x[i];
      fro_inv += (cof[i] / det) * (cof[i] / det);
    }
    double g = sqrt(sqrt(fro_inv / fro));
    double diff = 0.0;
    for (int i = 0; i < 9; ++i) {
      double nx = 0.5 * (g * x[i] + cof[i] / (det * g));
      diff = fmax(diff, fabs(nx - x[i]));
      x[i] = nx;
    }
    if (diff < 1e-12) break;
  }
  /* S = R^T A (symmetrize against rounding) */
  double st[9];
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k) {
      double v = 0.0;
      for (int j = 0; j < 3; ++j) v += x[k * 3 + j] * a[c * 3 + j]; /* (R^T)_{k j} = R_{j k} = x[k*3+j] */
      st[c * 3 + k] = v;
    }
  skc_mat4_identity(r);
  skc_mat4_identity(s);
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k) {
      r[c * 4 + k] = (float)x[c * 3 + k];
      s[c * 4 + k] = (float)(0.5 * (st[c * 3 + k] + st[k * 3 + c]));
    }
  return true;
}

void skc_dq_from_rt(const float q[4], const float t[3], float out[8]) {
  out[0] = q[0];
  out[1] = q[1];
  out[2] = q[2];
  out[3] = q[3];
  /* dual = 0.5 * (t, 0) * q */
  float tq[4] = {t[0], t[1], t[2], 0.0f};
  float d[4];
  skc_quat_mul(tq, q, d);
  for (int i = 0; i < 4; ++i) out[4 + i] = 0.5f * d[i];
}
