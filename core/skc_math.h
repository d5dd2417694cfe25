/* skc_math.h - small affine math on caller float arrays, built on cglm.
 *
 * Conventions used by every layer of skinkit:
 *  - A matrix is 16 floats, column-major (m[col * 4 + row]), the layout of glTF and of cglm's mat4. Points are
 *    column vectors: p' = M p. Transforms compose right to left: world = parent_world * local.
 *  - A quaternion is 4 floats x, y, z, w (w last, as cglm's versor and glTF).
 *  - A TRS transform is skc_trs (10 floats): translation, rotation quaternion, scale; M = T * R * S.
 * Caller arrays are never cast to cglm's aligned mat4: they are copied into aligned locals first.
 */
#ifndef SKC_MATH_H
#define SKC_MATH_H

#include <stdbool.h>

typedef struct skc_trs {
  float t[3];
  float r[4]; /* x, y, z, w */
  float s[3];
} skc_trs;

void skc_mat4_identity(float out[16]);
/* out = a * b. out may alias a or b. */
void skc_mat4_mul(const float a[16], const float b[16], float out[16]);
/* Inverse of a general 4x4 matrix; returns false (out untouched) if singular or not finite. */
bool skc_mat4_inverse(const float m[16], float out[16]);
bool skc_mat4_is_finite(const float m[16]);
/* True if the bottom row is (0, 0, 0, 1) within tol. */
bool skc_mat4_is_affine(const float m[16], float tol);
/* True if the upper 3x3 is a rotation (orthonormal columns, det > 0) within tol. */
bool skc_mat4_is_rigid(const float m[16], float tol);
float skc_mat3_det_of_mat4(const float m[16]);
/* Transforms a point (w = 1) / a direction (w = 0). */
void skc_mat4_transform_point(const float m[16], const float p[3], float out[3]);
void skc_mat4_transform_dir(const float m[16], const float d[3], float out[3]);
/* Inverse transpose of the upper 3x3 as a 16-float matrix with zero translation; false if singular. */
bool skc_mat4_normal_matrix(const float m[16], float out[16]);
/* Largest absolute difference between entries. */
float skc_mat4_max_abs_diff(const float a[16], const float b[16]);

void skc_trs_identity(skc_trs* out);
void skc_trs_to_mat4(const skc_trs* trs, float out[16]);
/* Decomposes an affine matrix into TRS. Returns false if it is not affine, singular, or has shear beyond tol
 * (the TRS would not reproduce it); out is filled with the best TRS either way. */
bool skc_mat4_to_trs(const float m[16], skc_trs* out, float tol);

void skc_quat_normalize(float q[4]);
/* q = a * b (apply b first). */
void skc_quat_mul(const float a[4], const float b[4], float out[4]);
void skc_quat_from_axis_angle(const float axis[3], float angle, float out[4]);
void skc_quat_rotate(const float q[4], const float v[3], float out[3]);
/* Rotation part of an orthonormal 3x3 (upper-left of a column-major 4x4). */
void skc_quat_from_mat4(const float m[16], float out[4]);

/* Polar decomposition of the upper 3x3 A of m: A = R * S with R a rotation (det +1) and S symmetric (stretch,
 * possibly with a reflection folded in). Both written as 16-float matrices without translation.
 * Returns false when A is singular. */
bool skc_mat4_polar(const float m[16], float r[16], float s[16]);

/* Unit dual quaternion (real x,y,z,w, dual x,y,z,w) of a rigid transform given as rotation q and translation t. */
void skc_dq_from_rt(const float q[4], const float t[3], float out[8]);

#endif
