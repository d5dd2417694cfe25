/* closest_point.c - exact closest point on a triangle mesh: a median-split BVH over triangle bounding boxes and
 * a branch-and-bound query (nearer child first, subtrees pruned by their box distance), plus vertex normals.
 * Used by weight transfer (core/weights_transfer.c). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "skc_transfer.h"

#define LEAF_SIZE 4
#define STACK_DEPTH 128

typedef struct build_ctx {
  skc_tri_bvh* t;
  float* cent; /* 3 per triangle */
  size_t used;
} build_ctx;

static void tri_box(const skc_tri_bvh* t, uint32_t tri, float lo[3], float hi[3]) {
  for (int k = 0; k < 3; ++k) {
    lo[k] = FLT_MAX;
    hi[k] = -FLT_MAX;
  }
  for (int c = 0; c < 3; ++c) {
    const float* p = skc_pos(t->positions, t->stride, t->triangles[3 * (size_t)tri + c]);
    for (int k = 0; k < 3; ++k) {
      if (p[k] < lo[k]) lo[k] = p[k];
      if (p[k] > hi[k]) hi[k] = p[k];
    }
  }
}

/* Quickselect (three-way partition) of tri_order[b, e) on the centroid axis: position mid gets the median. */
static void select_median(build_ctx* c, size_t b, size_t e, size_t mid, int axis) {
  uint32_t* o = c->t->tri_order;
  while (e - b > 1) {
    float pivot = c->cent[3 * (size_t)o[b + (e - b) / 2] + axis];
    size_t lt = b, i = b, gt = e;
    while (i < gt) {
      float k = c->cent[3 * (size_t)o[i] + axis];
      uint32_t tmp = o[i];
      if (k < pivot) {
        o[i++] = o[lt];
        o[lt++] = tmp;
      } else if (k > pivot) {
        o[i] = o[--gt];
        o[gt] = tmp;
      } else {
        ++i;
      }
    }
    if (mid < lt)
      e = lt;
    else if (mid >= gt)
      b = gt;
    else
      return;
  }
}

static void build_node(build_ctx* c, size_t node, size_t b, size_t e) {
  skc_tri_bvh* t = c->t;
  skc_bvh_node* n = &t->nodes[node];
  float clo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, chi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
  for (int k = 0; k < 3; ++k) {
    n->lo[k] = FLT_MAX;
    n->hi[k] = -FLT_MAX;
  }
  for (size_t i = b; i < e; ++i) {
    float lo[3], hi[3];
    uint32_t tri = t->tri_order[i];
    tri_box(t, tri, lo, hi);
    for (int k = 0; k < 3; ++k) {
      if (lo[k] < n->lo[k]) n->lo[k] = lo[k];
      if (hi[k] > n->hi[k]) n->hi[k] = hi[k];
      float cc = c->cent[3 * (size_t)tri + k];
      if (cc < clo[k]) clo[k] = cc;
      if (cc > chi[k]) chi[k] = cc;
    }
  }
  if (e - b <= LEAF_SIZE) {
    n->first = (uint32_t)b;
    n->count = (uint32_t)(e - b);
    return;
  }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
  size_t mid = b + (e - b) / 2;
  select_median(c, b, e, mid, axis);
  size_t left = c->used;
  c->used += 2;
  n->first = (uint32_t)left;
  n->count = 0;
  build_node(c, left, b, mid);
  build_node(c, left + 1, mid, e);
}

int skc_tri_bvh_build(skc_tri_bvh* t, const float* positions, size_t stride, const uint32_t* triangles,
                      size_t triangle_count, skc_err* err) {
  memset(t, 0, sizeof *t);
  if (triangle_count == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "closest point: the mesh has no triangles");
  if (triangle_count > UINT32_MAX / 2)
    return skc_fail(err, SKC_OUT_OF_RANGE, "closest point: %zu triangles is too many", triangle_count);
  t->positions = positions;
  t->stride = stride;
  t->triangles = triangles;
  t->triangle_count = triangle_count;
  t->nodes = malloc(2 * triangle_count * sizeof *t->nodes);
  t->tri_order = malloc(triangle_count * sizeof *t->tri_order);
  float* cent = malloc(3 * triangle_count * sizeof *cent);
  if (!t->nodes || !t->tri_order || !cent) {
    free(cent);
    skc_tri_bvh_free(t);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "closest point: out of memory for %zu triangles", triangle_count);
  }
  for (size_t i = 0; i < triangle_count; ++i) {
    t->tri_order[i] = (uint32_t)i;
    float lo[3], hi[3];
    tri_box(t, (uint32_t)i, lo, hi);
    for (int k = 0; k < 3; ++k) cent[3 * i + k] = 0.5f * (lo[k] + hi[k]);
  }
  build_ctx c = {t, cent, 1};
  build_node(&c, 0, 0, triangle_count);
  t->node_count = c.used;
  free(cent);
  return SKC_OK;
}

void skc_tri_bvh_free(skc_tri_bvh* t) {
  if (!t) return;
  free(t->nodes);
  free(t->tri_order);
  memset(t, 0, sizeof *t);
}

/* Closest point on segment a-b to p: parameter s in [0, 1]. */
static double seg_closest(const double p[3], const double a[3], const double b[3], double* s_out) {
  double ab[3], ap[3];
  for (int k = 0; k < 3; ++k) {
    ab[k] = b[k] - a[k];
    ap[k] = p[k] - a[k];
  }
  double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
  double s = l2 > 0.0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / l2 : 0.0;
  if (s < 0.0) s = 0.0;
  if (s > 1.0) s = 1.0;
  double d2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    double q = a[k] + s * ab[k] - p[k];
    d2 += q * q;
  }
  *s_out = s;
  return d2;
}

float skc_closest_on_triangle(const float pf[3], const float af[3], const float bf[3], const float cf[3],
                              float out_point[3], float out_bary[3]) {
  double p[3], a[3], b[3], c[3], ab[3], ac[3], ap[3];
  for (int k = 0; k < 3; ++k) {
    p[k] = pf[k];
    a[k] = af[k];
    b[k] = bf[k];
    c[k] = cf[k];
    ab[k] = b[k] - a[k];
    ac[k] = c[k] - a[k];
    ap[k] = p[k] - a[k];
  }
  double n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
  double n2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
  double scale = (ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2]) * (ac[0] * ac[0] + ac[1] * ac[1] + ac[2] * ac[2]);
  double u = 0, v = 0, w = 0;
  bool inside = false;
  if (n2 > 1e-14 * scale && n2 > 0.0) {
    /* project onto the plane and take barycentrics by sub-areas */
    double d = (ap[0] * n[0] + ap[1] * n[1] + ap[2] * n[2]) / n2;
    double q[3] = {p[0] - d * n[0], p[1] - d * n[1], p[2] - d * n[2]};
    double qa[3], qb[3], qc[3];
    for (int k = 0; k < 3; ++k) {
      qa[k] = a[k] - q[k];
      qb[k] = b[k] - q[k];
      qc[k] = c[k] - q[k];
    }
    /* signed areas of (q, b, c), (q, c, a), (q, a, b) along n */
    double cu[3] = {qb[1] * qc[2] - qb[2] * qc[1], qb[2] * qc[0] - qb[0] * qc[2], qb[0] * qc[1] - qb[1] * qc[0]};
    double cv[3] = {qc[1] * qa[2] - qc[2] * qa[1], qc[2] * qa[0] - qc[0] * qa[2], qc[0] * qa[1] - qc[1] * qa[0]};
    u = (cu[0] * n[0] + cu[1] * n[1] + cu[2] * n[2]) / n2;
    v = (cv[0] * n[0] + cv[1] * n[1] + cv[2] * n[2]) / n2;
    w = 1.0 - u - v;
    inside = u >= 0.0 && v >= 0.0 && w >= 0.0;
  }
  if (!inside) { /* closest point lies on an edge (or the triangle is degenerate) */
    double s, best, d2;
    best = seg_closest(p, a, b, &s);
    u = 1.0 - s;
    v = s;
    w = 0.0;
    d2 = seg_closest(p, b, c, &s);
    if (d2 < best) {
      best = d2;
      u = 0.0;
      v = 1.0 - s;
      w = s;
    }
    d2 = seg_closest(p, c, a, &s);
    if (d2 < best) {
      u = s;
      v = 0.0;
      w = 1.0 - s;
    }
  }
  double d2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    double x = u * a[k] + v * b[k] + w * c[k];
    out_point[k] = (float)x;
    d2 += (x - p[k]) * (x - p[k]);
  }
  out_bary[0] = (float)u;
  out_bary[1] = (float)v;
  out_bary[2] = (float)w;
  return (float)d2;
}

static float box_dist2(const skc_bvh_node* n, const float q[3]) {
  float d2 = 0.0f;
  for (int k = 0; k < 3; ++k) {
    float d = 0.0f;
    if (q[k] < n->lo[k])
      d = n->lo[k] - q[k];
    else if (q[k] > n->hi[k])
      d = q[k] - n->hi[k];
    d2 += d * d;
  }
  return d2;
}

void skc_tri_bvh_closest(const skc_tri_bvh* t, const float q[3], skc_closest_hit* out) {
  out->triangle = UINT32_MAX;
  out->dist2 = FLT_MAX;
  memset(out->point, 0, sizeof out->point);
  memset(out->bary, 0, sizeof out->bary);
  if (!t->node_count) return;
  uint32_t stack[STACK_DEPTH];
  float stack_d[STACK_DEPTH];
  int sp = 0;
  stack[sp] = 0;
  stack_d[sp++] = box_dist2(&t->nodes[0], q);
  while (sp > 0) {
    --sp;
    if (stack_d[sp] > out->dist2) continue;
    const skc_bvh_node* n = &t->nodes[stack[sp]];
    if (n->count) {
      for (uint32_t i = 0; i < n->count; ++i) {
        uint32_t tri = t->tri_order[n->first + i];
        const uint32_t* tv = t->triangles + 3 * (size_t)tri;
        const float* a = skc_pos(t->positions, t->stride, tv[0]);
        const float* b = skc_pos(t->positions, t->stride, tv[1]);
        const float* c = skc_pos(t->positions, t->stride, tv[2]);
        if (out->triangle != UINT32_MAX) { /* skip a triangle whose box is already farther than the best */
          float bd2 = 0.0f;
          for (int k = 0; k < 3; ++k) {
            float lo = fminf(a[k], fminf(b[k], c[k])), hi = fmaxf(a[k], fmaxf(b[k], c[k]));
            float d = q[k] < lo ? lo - q[k] : (q[k] > hi ? q[k] - hi : 0.0f);
            bd2 += d * d;
          }
          if (bd2 > out->dist2) continue;
        }
        float pt[3], bc[3];
        float d2 = skc_closest_on_triangle(q, a, b, c, pt, bc);
        if (d2 < out->dist2 || out->triangle == UINT32_MAX) {
          out->dist2 = d2;
          out->triangle = tri;
          memcpy(out->point, pt, sizeof pt);
          memcpy(out->bary, bc, sizeof bc);
        }
      }
      continue;
    }
    uint32_t l = n->first, r = n->first + 1;
    float dl = box_dist2(&t->nodes[l], q), dr = box_dist2(&t->nodes[r], q);
    if (sp + 2 > STACK_DEPTH) { /* cannot happen with median splits (depth ~ log2 n); stay exact anyway */
      if (dl <= out->dist2) {
        stack[sp] = l;
        stack_d[sp++] = dl;
      }
      continue;
    }
    /* push the farther one first so the nearer is visited next */
    if (dl <= dr) {
      stack[sp] = r;
      stack_d[sp++] = dr;
      stack[sp] = l;
      stack_d[sp++] = dl;
    } else {
      stack[sp] = l;
      stack_d[sp++] = dl;
      stack[sp] = r;
      stack_d[sp++] = dr;
    }
  }
}

typedef struct pos_key {
  float p[3];
  uint32_t v;
} pos_key;

static int pos_cmp(const void* a, const void* b) {
  const pos_key* x = a;
  const pos_key* y = b;
  for (int k = 0; k < 3; ++k) {
    if (x->p[k] < y->p[k]) return -1;
    if (x->p[k] > y->p[k]) return 1;
  }
  return x->v < y->v ? -1 : x->v > y->v;
}

/* Vertices at identical positions (UV seams, split normals) share the sum of their face normals, so both sides of
 * a seam get the same normal. Best effort: skipped when out of memory. */
static void weld_normals(const float* positions, size_t stride, size_t vertex_count, float* acc) {
  if (vertex_count < 2 || vertex_count > UINT32_MAX) return;
  pos_key* k = malloc(vertex_count * sizeof *k);
  if (!k) return;
  for (size_t v = 0; v < vertex_count; ++v) {
    memcpy(k[v].p, skc_pos(positions, stride, v), sizeof k[v].p);
    k[v].v = (uint32_t)v;
  }
  qsort(k, vertex_count, sizeof *k, pos_cmp);
  for (size_t b = 0; b < vertex_count;) {
    size_t e = b + 1;
    while (e < vertex_count && k[e].p[0] == k[b].p[0] && k[e].p[1] == k[b].p[1] && k[e].p[2] == k[b].p[2]) ++e;
    if (e - b > 1) {
      double s[3] = {0, 0, 0};
      for (size_t i = b; i < e; ++i)
        for (int c = 0; c < 3; ++c) s[c] += acc[3 * (size_t)k[i].v + c];
      for (size_t i = b; i < e; ++i)
        for (int c = 0; c < 3; ++c) acc[3 * (size_t)k[i].v + c] = (float)s[c];
    }
    b = e;
  }
  free(k);
}

void skc_vertex_normals(const float* positions, size_t stride, size_t vertex_count, const uint32_t* triangles,
                        size_t triangle_count, float* out) {
  memset(out, 0, 3 * vertex_count * sizeof *out);
  for (size_t t = 0; t < triangle_count; ++t) {
    const uint32_t* tv = triangles + 3 * t;
    const float* a = skc_pos(positions, stride, tv[0]);
    const float* b = skc_pos(positions, stride, tv[1]);
    const float* c = skc_pos(positions, stride, tv[2]);
    float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    float ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    float n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) out[3 * (size_t)tv[k] + i] += n[i]; /* |n| = 2 area: area weighting */
  }
  weld_normals(positions, stride, vertex_count, out);
  for (size_t v = 0; v < vertex_count; ++v) {
    float* n = out + 3 * v;
    double l = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
    if (l > 0.0 && isfinite(l)) {
      for (int i = 0; i < 3; ++i) n[i] = (float)(n[i] / l);
    } else {
      n[0] = n[1] = n[2] = 0.0f;
    }
  }
}
