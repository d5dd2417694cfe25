/* bind_coarse.c - heat and robust binds of very large meshes on a simplified copy.
 *
 * The heat system's Cholesky factor grows a little faster than the vertex count (~0.7 KB per vertex at 614k
 * vertices), and heat weights are smooth over the surface. Above SKC_BIND_COARSE_ABOVE vertices (desc field
 * coarse_above), the mesh is welded and simplified by meshoptimizer's vertex clustering (meshopt_simplifySloppy: a
 * uniform grid, so triangles stay about equally sized - the edge-collapse simplifier, meshopt_simplify, leaves
 * flat and straight regions as long slivers, on which the heat solution differed from the full one by 0.19 on
 * average on a cylinder); kept vertices are original ones, about SKC_BIND_COARSE_TARGET of them. The method runs
 * on the simplified mesh, and every vertex takes the candidates of its own kept vertex or, for a collapsed one,
 * the barycentric blend of the candidates at its closest point on the simplified surface. Memory then stays near
 * that of a SKC_BIND_COARSE_TARGET-vertex bind plus the mesh itself. A clustering cell can join parts that pass
 * closer than about two edge lengths; such parts then share weights. Measured in docs/bind.md ("Coarse solve"). */
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "skc_bind.h"
#include "skc_transfer.h"

/* The simplified mesh: kept vertices (indices into the input), their positions, triangles over them. */
typedef struct coarse_mesh {
  uint32_t* rep;    /* input vertex -> welded representative (an input index) */
  int32_t* kept;    /* input vertex (representatives only) -> kept index, -1 when collapsed */
  float* pos;       /* 3 * nk */
  uint32_t* tri;    /* 3 * nt */
  size_t nk, nt;
} coarse_mesh;

static void coarse_free(coarse_mesh* m) {
  free(m->rep);
  free(m->kept);
  free(m->pos);
  free(m->tri);
}

/* Welded triangles (representatives), degenerate ones dropped; returns their index count. */
static size_t welded_triangles(const skc_bind_desc* d, const uint32_t* rep, uint32_t* out) {
  size_t n = 0;
  for (size_t t = 0; t < d->triangle_count; ++t) {
    uint32_t a = rep[d->triangles[3 * t]], b = rep[d->triangles[3 * t + 1]], c = rep[d->triangles[3 * t + 2]];
    if (a == b || b == c || a == c) continue;
    out[n++] = a, out[n++] = b, out[n++] = c;
  }
  return n;
}

/* Simplifies d's welded mesh to about `target` vertices (asks the clustering for the triangles `target` of the
 * input's vertices carry). Returns SKC_OK with m filled, SKC_BIND_NOT_COARSE when it would not shrink the mesh to
 * 3/4 (the caller binds the full mesh), or SKC_OUT_OF_MEMORY. */
static int simplify(const skc_bind_desc* d, size_t target, coarse_mesh* m) {
  size_t nv = d->vertex_count, ni = 3 * d->triangle_count;
  uint32_t* idx = malloc((ni ? ni : 1) * sizeof *idx);
  uint32_t* dst = malloc((ni ? ni : 1) * sizeof *dst);
  m->rep = malloc(nv * sizeof *m->rep);
  m->kept = malloc(nv * sizeof *m->kept);
  if (!idx || !dst || !m->rep || !m->kept || skc_bind_weld(d->positions, nv, m->rep)) {
    free(idx);
    free(dst);
    return SKC_OUT_OF_MEMORY;
  }
  size_t n = welded_triangles(d, m->rep, idx), distinct = 0;
  for (size_t v = 0; v < nv; ++v) distinct += m->rep[v] == v;
  size_t goal = distinct ? n * target / distinct / 3 * 3 : 0;
  if (goal < 3 || goal >= n) { /* nothing to gain (meshoptimizer asserts goal <= n) */
    free(idx);
    free(dst);
    return SKC_BIND_NOT_COARSE;
  }
  size_t nd = meshopt_simplifySloppy(dst, idx, n, d->positions, nv, 3 * sizeof(float), goal, 0.01f, NULL);
  free(idx);
  for (size_t v = 0; v < nv; ++v) m->kept[v] = -1;
  for (size_t i = 0; i < nd; ++i)
    if (m->kept[dst[i]] < 0) m->kept[dst[i]] = (int32_t)m->nk++;
  if (nd == 0 || 4 * m->nk > 3 * distinct) {
    free(dst);
    return SKC_BIND_NOT_COARSE;
  }
  m->pos = malloc(3 * m->nk * sizeof *m->pos);
  if (!m->pos) {
    free(dst);
    return SKC_OUT_OF_MEMORY;
  }
  for (size_t v = 0; v < nv; ++v)
    if (m->kept[v] >= 0) memcpy(m->pos + 3 * (size_t)m->kept[v], d->positions + 3 * v, 3 * sizeof(float));
  for (size_t i = 0; i < nd; ++i) dst[i] = (uint32_t)m->kept[dst[i]];
  m->tri = dst;
  m->nt = nd / 3;
  return SKC_OK;
}

/* Vertex v's candidates: the blend of the three corners' lists by the barycentric weights (joints merged, the
 * stride largest kept); the fallback flag of the corner with the largest share. */
static void blend_corners(const skc_bind_cands* src, const uint32_t corner[3], const float bary[3],
                          skc_bind_cands* out, size_t v) {
  uint32_t s = src->stride, nj = 0, jt[3 * 16];
  float wt[3 * 16];
  int top = 0;
  for (int c = 0; c < 3; ++c) {
    if (bary[c] > bary[top]) top = c;
    for (uint32_t i = 0; i < src->count[corner[c]] && i < 16; ++i) {
      uint32_t j = src->joints[(size_t)corner[c] * s + i], k = 0;
      float w = bary[c] * src->weights[(size_t)corner[c] * s + i];
      while (k < nj && jt[k] != j) ++k;
      if (k == nj) jt[nj] = j, wt[nj++] = 0.0f;
      wt[k] += w;
    }
  }
  for (uint32_t k = 0; k < nj; ++k) skc_bind_cands_offer(out, v, jt[k], wt[k]);
  out->fallback[v] = src->fallback[corner[top]];
}

/* Every input vertex's candidates from the simplified mesh's (src). */
static int transfer(const skc_bind_desc* d, const coarse_mesh* m, const skc_bind_cands* src, skc_bind_cands* out,
                    skc_err* err) {
  skc_tri_bvh bvh;
  int rc = skc_tri_bvh_build(&bvh, m->pos, 0, m->tri, m->nt, err);
  if (rc) return rc;
  long long nv = (long long)d->vertex_count;
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 4096)
#endif
  for (long long v = 0; v < nv; ++v) {
    int32_t k = m->kept[m->rep[v]];
    if (k >= 0) {
      uint32_t n = src->count[k];
      memcpy(out->joints + (size_t)v * out->stride, src->joints + (size_t)k * src->stride, n * sizeof *out->joints);
      memcpy(out->weights + (size_t)v * out->stride, src->weights + (size_t)k * src->stride, n * sizeof(float));
      out->count[v] = n;
      out->fallback[v] = src->fallback[k];
      continue;
    }
    skc_closest_hit hit;
    skc_tri_bvh_closest(&bvh, d->positions + 3 * (size_t)v, &hit);
    if (hit.triangle != UINT32_MAX) blend_corners(src, m->tri + 3 * (size_t)hit.triangle, hit.bary, out, (size_t)v);
  }
  skc_tri_bvh_free(&bvh);
  return SKC_OK;
}

int skc_bind_coarse(const skc_bind_desc* d, skc_bind_method_fn method, skc_bind_cands* out, skc_bind_report* rep,
                    skc_err* err) {
  size_t above = d->coarse_above ? d->coarse_above : SKC_BIND_COARSE_ABOVE;
  if (d->vertex_count <= above || d->vertex_mask || d->triangle_count == 0 || d->no_weld) return SKC_BIND_NOT_COARSE;
  size_t target = d->coarse_target ? d->coarse_target : SKC_BIND_COARSE_TARGET;
  coarse_mesh m;
  memset(&m, 0, sizeof m);
  int rc = simplify(d, target, &m);
  if (rc) {
    coarse_free(&m);
    return rc == SKC_BIND_NOT_COARSE ? rc : skc_fail(err, rc, "bind: out of memory simplifying the mesh");
  }
  skc_bind_desc sd = *d;
  sd.positions = m.pos;
  sd.vertex_count = m.nk;
  sd.triangles = m.tri;
  sd.triangle_count = m.nt;
  skc_bind_cands sc;
  rc = skc_bind_cands_init(&sc, m.nk, out->stride, err);
  if (!rc) rc = method(&sd, &sc, rep, err);
  if (!rc) rc = transfer(d, &m, &sc, out, err);
  if (!rc && rep) {
    rep->coarse_vertices = m.nk;
    rep->fallback_vertices = 0;
    for (size_t v = 0; v < d->vertex_count; ++v) rep->fallback_vertices += out->fallback[v];
  }
  skc_bind_cands_free(&sc);
  coarse_free(&m);
  return rc;
}
