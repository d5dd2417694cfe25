/* sk_bindmesh.c - see sk_bindmesh.h. */
#include "sk_bindmesh.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

skt_bind_mesh skt_bind_cylinder(uint32_t segments, uint32_t rings, uint32_t bones) {
  skt_bind_mesh m;
  memset(&m, 0, sizeof m);
  ck_assert_uint_le(bones, 16);
  sk_cylinder_desc cd = {
      .size = sizeof cd, .segments = segments, .rings = rings, .bones = bones, .radius = 0.25f, .length = 2.0f};
  sk_error err;
  ck_assert_int_eq(sk_mesh_cylinder(&cd, &m.nv, &m.nt, NULL, NULL, NULL, NULL, &err), SK_OK);
  m.pos = malloc(2 * m.nv * 3 * sizeof(float) + 13 * 8 * 3 * sizeof(float));
  m.tri = malloc(2 * m.nt * 3 * sizeof(uint32_t) + 13 * 12 * 3 * sizeof(uint32_t));
  ck_assert_ptr_nonnull(m.pos);
  ck_assert_ptr_nonnull(m.tri);
  ck_assert_int_eq(sk_mesh_cylinder(&cd, NULL, NULL, m.pos, NULL, m.tri, NULL, &err), SK_OK);
  m.bones = bones;
  m.length = 2.0f;
  for (uint32_t b = 0; b < bones; ++b) {
    m.heads[3 * b] = m.length * (float)b / (float)bones;
    m.tails[3 * b] = m.length * (float)(b + 1) / (float)bones;
  }
  return m;
}

void skt_bind_mesh_free(skt_bind_mesh* m) {
  free(m->pos);
  free(m->tri);
}

void skt_bind_add_loose_cubes(skt_bind_mesh* m) {
  static const float corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  static const uint32_t faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                        {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  for (uint32_t c = 0; c < 13; ++c) {
    float x = 0.15f + 0.13f * (float)c, a = 0.9f * (float)c;
    float base[3] = {x, 0.253f * cosf(a), 0.253f * sinf(a)};
    uint32_t v0 = (uint32_t)m->nv;
    for (int k = 0; k < 8; ++k)
      for (int q = 0; q < 3; ++q) m->pos[3 * (m->nv + (size_t)k) + q] = base[q] + 0.001f * corner[k][q];
    for (int f = 0; f < 12; ++f)
      for (int q = 0; q < 3; ++q) m->tri[3 * (m->nt + (size_t)f) + q] = v0 + faces[f][q];
    m->nv += 8;
    m->nt += 12;
  }
}

sk_bind_desc skt_bind_desc_for(const skt_bind_mesh* m, sk_bind_method method) {
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.method = method;
  d.positions = m->pos;
  d.vertex_count = m->nv;
  d.triangles = m->tri;
  d.triangle_count = m->nt;
  d.heads = m->heads;
  d.tails = m->tails;
  d.joint_count = m->bones;
  return d;
}

sk_skin* skt_new_skin(size_t nv, uint32_t nj) {
  sk_skin* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_skin_create(nv, nj, &s, &err), SK_OK);
  return s;
}

void skt_check_bind_weights(const sk_skin* s, size_t nv, uint32_t nj, uint32_t max_inf, int sorted) {
  enum { MAXW = 300 };
  uint32_t j[MAXW];
  float w[MAXW];
  ck_assert_uint_eq(sk_skin_vertex_count(s), nv);
  for (size_t v = 0; v < nv; ++v) {
    size_t n = sk_skin_get_vertex(s, v, j, w, MAXW);
    ck_assert_msg(n >= 1 && n <= max_inf, "vertex %zu has %zu influences", v, n);
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
      ck_assert_uint_lt(j[i], nj);
      ck_assert_msg(w[i] > 0.0f && w[i] <= 1.0f, "vertex %zu weight %g", v, (double)w[i]);
      if (i && sorted) ck_assert(w[i] <= w[i - 1]);
      sum += w[i];
    }
    ck_assert_msg(fabsf(sum - 1.0f) <= 1e-6f, "vertex %zu sums to %.9g", v, (double)sum);
  }
}
