/* primitives.c - a capped cylinder rig: the sample of the README job, tests and benchmarks. */
#include <math.h>
#include <stdlib.h>

#include "skc_primitives.h"

void skc_cylinder_counts(const skc_cylinder* c, size_t* vertices, size_t* triangles) {
  size_t s = c->segments, r = c->rings;
  if (vertices) *vertices = (r + 1) * s + 2 * (s + 1);
  if (triangles) *triangles = 2 * r * s + 2 * s;
}

/* The arguments' checks; *nv gets the vertex count. */
static int cylinder_check(const skc_cylinder* c, const skc_skin* skin, size_t* nv, skc_err* err) {
  if (!(c->radius > 0.0f) || !(c->length > 0.0f) || !isfinite(c->radius) || !isfinite(c->length) || !(c->blend >= 0.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "cylinder radius and length must be positive, blend >= 0");
  if (c->segments < 3 || c->rings < 1 || c->bones < 1 || c->segments > 100000 || c->rings > 100000 ||
      c->bones > 1000)
    return skc_fail(err, SKC_OUT_OF_RANGE, "cylinder needs segments 3..1e5, rings 1..1e5, bones 1..1000");
  skc_cylinder_counts(c, nv, NULL);
  if (*nv >= UINT32_MAX) return skc_fail(err, SKC_OUT_OF_RANGE, "cylinder has too many vertices");
  if (skin && (skin->vertex_count != *nv || skin->joint_count < c->bones))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "skin must have %zu vertices and at least %u joints", *nv, c->bones);
  return SKC_OK;
}

static const float TWO_PI = 6.28318530718f;

/* The side's rings of segments vertices, x from 0 to length; returns their count (the caps' first vertex). */
static size_t side_vertices(const skc_cylinder* c, float* positions, float* normals) {
  const uint32_t S = c->segments, R = c->rings;
  size_t v = 0;
  for (uint32_t i = 0; i <= R; ++i) {
    float x = c->length * (float)i / (float)R;
    for (uint32_t k = 0; k < S; ++k, ++v) {
      float a = TWO_PI * (float)k / (float)S;
      float cy = cosf(a), sz = sinf(a);
      if (positions) {
        positions[v * 3] = x;
        positions[v * 3 + 1] = c->radius * cy;
        positions[v * 3 + 2] = c->radius * sz;
      }
      if (normals) {
        normals[v * 3] = 0.0f;
        normals[v * 3 + 1] = cy;
        normals[v * 3 + 2] = sz;
      }
    }
  }
  return v;
}

/* Each cap (x = 0, then x = length) from vertex cap0 on: its ring, then its centre, facing out along x. */
static void cap_vertices(const skc_cylinder* c, size_t cap0, float* positions, float* normals) {
  const uint32_t S = c->segments;
  size_t v = cap0;
  for (int cap = 0; cap < 2; ++cap) {
    float x = cap ? c->length : 0.0f, nx = cap ? 1.0f : -1.0f;
    for (uint32_t k = 0; k <= S; ++k, ++v) { /* ring then centre */
      float a = TWO_PI * (float)k / (float)S;
      if (positions) {
        positions[v * 3] = x;
        positions[v * 3 + 1] = k < S ? c->radius * cosf(a) : 0.0f;
        positions[v * 3 + 2] = k < S ? c->radius * sinf(a) : 0.0f;
      }
      if (normals) {
        normals[v * 3] = nx;
        normals[v * 3 + 1] = 0.0f;
        normals[v * 3 + 2] = 0.0f;
      }
    }
  }
}

/* Two triangles per side quad, then each cap's fan around its centre, all wound counter-clockwise from outside. */
static void cylinder_triangles(const skc_cylinder* c, size_t cap0, uint32_t* triangles) {
  const uint32_t S = c->segments, R = c->rings;
  size_t t = 0;
  for (uint32_t i = 0; i < R; ++i)
    for (uint32_t k = 0; k < S; ++k) {
      uint32_t a = i * S + k, b = i * S + (k + 1) % S, d = (i + 1) * S + k, e = (i + 1) * S + (k + 1) % S;
      /* outward: the surface parameter runs +x then +angle; (a, b, e) winds counter-clockwise seen from outside */
      uint32_t tri[6] = {a, b, e, a, e, d};
      for (int q = 0; q < 6; ++q) triangles[t * 3 + q] = tri[q];
      t += 2;
    }
  for (int cap = 0; cap < 2; ++cap) {
    uint32_t base = (uint32_t)(cap0 + (size_t)cap * (S + 1)), centre = base + S;
    for (uint32_t k = 0; k < S; ++k, ++t) {
      uint32_t a = base + k, b = base + (k + 1) % S;
      triangles[t * 3] = centre;
      triangles[t * 3 + 1] = cap ? a : b; /* x = length faces +x, x = 0 faces -x */
      triangles[t * 3 + 2] = cap ? b : a;
    }
  }
}

/* Each vertex on the bone its x falls in, blended linearly with the next bone within blend of each joint between
 * bones (x from positions, or from the layout when there are none). */
static int cylinder_skin(const skc_cylinder* c, size_t nv, size_t cap0, const float* positions, skc_skin* skin,
                         skc_err* err) {
  const uint32_t S = c->segments, R = c->rings;
  skc_skin_builder b;
  int rc = skc_skin_builder_init(&b, nv, nv * 2, err);
  if (rc) return rc;
  float seg = c->length / (float)c->bones;
  for (size_t vi = 0; vi < nv; ++vi) {
    float x = positions ? positions[vi * 3] : 0.0f;
    if (!positions) { /* recompute x from the layout */
      x = vi < cap0 ? c->length * (float)(vi / S) / (float)R : (vi < cap0 + S + 1 ? 0.0f : c->length);
    }
    uint32_t bone = (uint32_t)fminf(floorf(x / seg), (float)(c->bones - 1));
    uint32_t j[2];
    float w[2];
    size_t n = 1;
    j[0] = bone;
    w[0] = 1.0f;
    /* nearest joint between bones: k = round(x / seg) in 1..bones-1 */
    float kf = roundf(x / seg);
    if (c->blend > 0.0f && kf >= 1.0f && kf <= (float)(c->bones - 1)) {
      float jx = kf * seg, t = (x - jx) / (2.0f * c->blend) + 0.5f;
      if (t > 0.0f && t < 1.0f) {
        j[0] = (uint32_t)kf - 1;
        w[0] = 1.0f - t;
        j[1] = (uint32_t)kf;
        w[1] = t;
        n = 2;
      }
    }
    skc_skin_builder_push(&b, j, w, n);
  }
  return skc_skin_builder_finish(&b, skin, err);
}

int skc_cylinder_build(const skc_cylinder* c, float* positions, float* normals, uint32_t* triangles, skc_skin* skin,
                       skc_err* err) {
  size_t nv = 0;
  int rc = cylinder_check(c, skin, &nv, err);
  if (rc) return rc;
  const size_t cap0 = side_vertices(c, positions, normals); /* the side's vertices come first */
  cap_vertices(c, cap0, positions, normals);
  if (triangles) cylinder_triangles(c, cap0, triangles);
  return skin ? cylinder_skin(c, nv, cap0, positions, skin, err) : SKC_OK;
}
