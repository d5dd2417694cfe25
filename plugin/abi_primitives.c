/* abi_primitives.c - generated sample geometry. */
#include "abi_internal.h"
#include "skc_primitives.h"

SK_API sk_result sk_mesh_cylinder(const sk_cylinder_desc* desc, size_t* out_vertex_count, size_t* out_triangle_count,
                                  float* out_positions, float* out_normals, uint32_t* out_triangles, sk_skin* out_skin,
                                  sk_error* err) {
  SK__CHECK_SIZE(desc, sk_cylinder_desc, err);
  skc_cylinder c = {desc->radius != 0.0f ? desc->radius : 0.25f,
                    desc->length != 0.0f ? desc->length : 2.0f,
                    desc->blend != 0.0f ? (desc->blend < 0.0f ? 0.0f : desc->blend) : 0.25f,
                    desc->segments ? desc->segments : 32u,
                    desc->rings ? desc->rings : 64u,
                    desc->bones ? desc->bones : 2u};
  skc_err e;
  int rc = skc_cylinder_build(&c, NULL, NULL, NULL, NULL, &e); /* validates the parameters only */
  if (rc) return sk__ret(rc, &e, err);
  size_t nv, nt;
  skc_cylinder_counts(&c, &nv, &nt);
  if (out_vertex_count) *out_vertex_count = nv;
  if (out_triangle_count) *out_triangle_count = nt;
  return sk__ret(skc_cylinder_build(&c, out_positions, out_normals, out_triangles, out_skin, &e), &e, err);
}
