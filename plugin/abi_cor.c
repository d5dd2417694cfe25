/* abi_cor.c - sk_cor_compute: the precompute of the optimized-centres-of-rotation deformer (SK_DEFORM_COR). */
#include "abi_internal.h"
#include "skc_cor.h"

SK_API sk_result sk_cor_compute(const float* positions, size_t vertex_count, const uint32_t* triangles,
                                size_t triangle_count, const uint32_t* csr_offsets, const uint32_t* csr_joints,
                                const float* csr_weights, size_t joint_count, float sigma, uint32_t threads,
                                float* out_centers, sk_error* err) {
  skc_cor_args a = {positions,   vertex_count, triangles,   triangle_count, csr_offsets, csr_joints,
                    csr_weights, joint_count,  sigma,       threads,        0,           NULL};
  skc_err e;
  return sk__ret(skc_cor_compute(&a, out_centers, &e), &e, err);
}
