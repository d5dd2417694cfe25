/* bvh.c - bounding volume hierarchy over triangles for segment visibility queries (bone heat).
 *
 * Build: top-down, split at the spatial middle of the centroid bounds along their longest axis (median of the
 * index range when every centroid falls on one side), leaves of at most 4 triangles; one pass over a node's
 * records partitions them and gathers both children's bounds. Boxes are padded by 1e-6 of the mesh's size (its
 * largest coordinate plus its diagonal), so the queries can test them in float and stay conservative.
 * The binary tree is then collapsed to 4 children per node (bvh4_node). Query: any-hit of an open segment, the four
 * boxes of a node in one pass; triangles by Moller-Trumbore in double precision.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_bind.h"
#include "skc_mem.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define BVH_LEAF 4
#define BVH_STACK 256

typedef struct bvh_node {
  float lo[3], hi[3];
  uint32_t first; /* leaf: first triangle slot; inner: index of the left child (right = left + 1) */
  uint32_t count; /* leaf: triangle count (> 0); inner: 0 */
} bvh_node;

/* The query tree: the binary tree collapsed to 4 children per node (each inner node takes its children, then
 * replaces its inner child of largest box surface by that child's two until it has 4), boxes stored by axis so
 * one pass tests all four. */
typedef struct bvh4_node {
  float lo[3][4], hi[3][4];
  uint32_t ref[4];   /* inner child: its bvh4 node; leaf: first triangle slot */
  uint32_t count[4]; /* leaf: its triangles (> 0); inner child: 0; unused lane: BVH4_EMPTY */
} bvh4_node;
#define BVH4_EMPTY UINT32_MAX

struct skc_bvh {
  bvh_node* nodes; /* binary build tree (freed once collapsed) */
  size_t node_count;
  bvh4_node* quads;
  size_t quad_count;
  float* tri;       /* 9 floats per slot (corners, in slot order) */
  uint32_t* corner; /* 3 vertex indices per slot */
  size_t tri_count;
};

typedef struct build_item {
  uint32_t node, first, count, depth;
  float clo[3], chi[3]; /* centroid bounds of the range (computed by the parent's pass) */
} build_item;

/* Past this depth splits halve the index range, so depth <= BVH_SPATIAL_DEPTH + 32 < BVH_STACK (the traversal
 * stack holds at most depth + 1 entries). */
#define BVH_SPATIAL_DEPTH 48

/* Per-triangle record of the build: bounds, centroid, triangle index. The records are partitioned in place, so
 * each level of the build reads memory sequentially instead of three scattered vertices per triangle. */
typedef struct bvh_rec {
  float lo[3], hi[3], c[3];
  uint32_t t;
} bvh_rec;

static void grow(float* lo, float* hi, const float* plo, const float* phi) {
  for (int k = 0; k < 3; ++k) {
    lo[k] = plo[k] < lo[k] ? plo[k] : lo[k];
    hi[k] = phi[k] > hi[k] ? phi[k] : hi[k];
  }
}

static void reset(float* lo, float* hi) {
  lo[0] = lo[1] = lo[2] = FLT_MAX;
  hi[0] = hi[1] = hi[2] = -FLT_MAX;
}

static float half_area(const bvh_node* nd) {
  float e[3] = {nd->hi[0] - nd->lo[0], nd->hi[1] - nd->lo[1], nd->hi[2] - nd->lo[2]};
  return e[0] * e[1] + e[1] * e[2] + e[2] * e[0];
}

/* Binary tree -> 4-wide tree (see bvh4_node); frees the binary nodes. Returns 1 when out of memory. */
static int collapse(skc_bvh* b) {
  size_t inner = 0;
  for (size_t k = 0; k < b->node_count; ++k) inner += b->nodes[k].count == 0;
  b->quads = skc_malloc_big((inner ? inner : 1) * sizeof *b->quads);
  uint32_t* work = malloc(2 * (inner + 1) * sizeof *work); /* (binary node, quad) pairs still to fill */
  if (!b->quads || !work) {
    free(work);
    return 1;
  }
  size_t quads = 1, top = 0;
  uint32_t root_kids[1] = {0};
  /* a root that is a leaf: one quad with that leaf as its only lane */
  int root_leaf = b->nodes[0].count != 0;
  work[top++] = 0;
  work[top++] = 0;
  while (top) {
    uint32_t q = work[--top], nb = work[--top];
    uint32_t kids[4];
    int nk = 0;
    if (root_leaf) {
      kids[nk++] = root_kids[0];
      root_leaf = 0;
    } else {
      kids[nk++] = b->nodes[nb].first;
      kids[nk++] = b->nodes[nb].first + 1;
    }
    while (nk < 4) { /* open the inner child with the largest surface */
      int best = -1;
      float area = -1.0f;
      for (int i = 0; i < nk; ++i)
        if (b->nodes[kids[i]].count == 0 && half_area(&b->nodes[kids[i]]) > area)
          area = half_area(&b->nodes[kids[i]]), best = i;
      if (best < 0) break;
      uint32_t open = kids[best];
      kids[best] = b->nodes[open].first;
      kids[nk++] = b->nodes[open].first + 1;
    }
    bvh4_node* qn = &b->quads[q];
    for (int l = 0; l < 4; ++l) {
      if (l >= nk) {
        for (int k = 0; k < 3; ++k) qn->lo[k][l] = qn->hi[k][l] = 0.0f;
        qn->ref[l] = 0;
        qn->count[l] = BVH4_EMPTY;
        continue;
      }
      const bvh_node* cn = &b->nodes[kids[l]];
      for (int k = 0; k < 3; ++k) {
        qn->lo[k][l] = cn->lo[k];
        qn->hi[k][l] = cn->hi[k];
      }
      if (cn->count) {
        qn->ref[l] = cn->first;
        qn->count[l] = cn->count;
      } else {
        qn->ref[l] = (uint32_t)quads;
        qn->count[l] = 0;
        work[top++] = kids[l];
        work[top++] = (uint32_t)quads++;
      }
    }
  }
  b->quad_count = quads;
  free(work);
  free(b->nodes);
  b->nodes = NULL;
  return 0;
}

/* Each triangle's record (bounds, centroid) and the root's item; *lo0 / *hi0 = the bounds of all triangles. */
static void triangle_records(const float* positions, const uint32_t* triangles, size_t n, bvh_rec* rec,
                             build_item* root, float* lo0, float* hi0) {
  reset(lo0, hi0);
  for (size_t t = 0; t < n; ++t) {
    const float* a = positions + 3 * (size_t)triangles[3 * t];
    const float* c = positions + 3 * (size_t)triangles[3 * t + 1];
    const float* d = positions + 3 * (size_t)triangles[3 * t + 2];
    bvh_rec* r = &rec[t];
    r->t = (uint32_t)t;
    for (int k = 0; k < 3; ++k) {
      float lo = a[k] < c[k] ? a[k] : c[k], hi = a[k] > c[k] ? a[k] : c[k];
      r->lo[k] = d[k] < lo ? d[k] : lo;
      r->hi[k] = d[k] > hi ? d[k] : hi;
      r->c[k] = (a[k] + c[k] + d[k]) * (1.0f / 3.0f);
    }
    grow(root->clo, root->chi, r->c, r->c);
    grow(lo0, hi0, r->lo, r->hi);
  }
}

/* Padding of every node: 1e-6 of the largest coordinate magnitude plus the diagonal (float query rounding stays
 * inside). */
static float node_pad(const float* lo0, const float* hi0) {
  double mag = 0.0, diag2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    double x = fabs((double)lo0[k]) > fabs((double)hi0[k]) ? fabs((double)lo0[k]) : fabs((double)hi0[k]);
    mag = x > mag ? x : mag;
    diag2 += ((double)hi0[k] - lo0[k]) * ((double)hi0[k] - lo0[k]);
  }
  return (float)(1e-6 * (mag + sqrt(diag2)));
}

/* Splits item it's records at the middle of its centroids' longest axis into kid[0] and kid[1] (node bounds into
 * kn[0], kn[1]): centroids below the middle first, both sides' bounds gathered on the way; when every centroid falls
 * on one side, or a very uneven mesh got deep, the range is halved instead. */
static void split_records(bvh_rec* rec, const build_item* it, build_item kid[2], bvh_node* kn[2]) {
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (it->chi[k] - it->clo[k] > it->chi[axis] - it->clo[axis]) axis = k;
  float mid = 0.5f * (it->clo[axis] + it->chi[axis]);
  for (int h = 0; h < 2; ++h) {
    reset(kn[h]->lo, kn[h]->hi);
    reset(kid[h].clo, kid[h].chi);
  }
  uint32_t i = it->first, j = it->first + it->count;
  while (i < j) {
    if (rec[i].c[axis] < mid) {
      grow(kn[0]->lo, kn[0]->hi, rec[i].lo, rec[i].hi);
      grow(kid[0].clo, kid[0].chi, rec[i].c, rec[i].c);
      ++i;
    } else {
      --j;
      bvh_rec tmp = rec[i];
      rec[i] = rec[j];
      rec[j] = tmp;
      grow(kn[1]->lo, kn[1]->hi, rec[j].lo, rec[j].hi);
      grow(kid[1].clo, kid[1].chi, rec[j].c, rec[j].c);
    }
  }
  uint32_t left = i - it->first;
  if (left == 0 || left == it->count || it->depth >= BVH_SPATIAL_DEPTH) {
    left = it->count / 2;
    for (int h = 0; h < 2; ++h) {
      uint32_t r0 = h ? it->first + left : it->first, r1 = h ? it->first + it->count : it->first + left;
      reset(kn[h]->lo, kn[h]->hi);
      reset(kid[h].clo, kid[h].chi);
      for (uint32_t r = r0; r < r1; ++r) {
        grow(kn[h]->lo, kn[h]->hi, rec[r].lo, rec[r].hi);
        grow(kid[h].clo, kid[h].chi, rec[r].c, rec[r].c);
      }
    }
  }
  kid[0].count = left;
  kid[1].first = it->first + left;
  kid[1].count = it->count - left;
}

/* The binary tree over rec from the root item (its bounds lo0 / hi0), depth first; returns the node count. */
static size_t build_nodes(skc_bvh* b, bvh_rec* rec, build_item* stack, build_item root, const float* lo0,
                          const float* hi0) {
  memcpy(b->nodes[0].lo, lo0, 3 * sizeof *lo0);
  memcpy(b->nodes[0].hi, hi0, 3 * sizeof *hi0);
  size_t top = 0, nodes = 1;
  stack[top++] = root;
  while (top) {
    build_item it = stack[--top];
    bvh_node* nd = &b->nodes[it.node]; /* its bounds were set by the parent */
    if (it.count <= BVH_LEAF) {
      nd->first = it.first;
      nd->count = it.count;
      continue;
    }
    build_item kid[2] = {{(uint32_t)nodes, it.first, 0, it.depth + 1, {0}, {0}},
                         {(uint32_t)nodes + 1, 0, 0, it.depth + 1, {0}, {0}}};
    bvh_node* kn[2] = {&b->nodes[nodes], &b->nodes[nodes + 1]};
    split_records(rec, &it, kid, kn);
    nd->first = (uint32_t)nodes;
    nd->count = 0;
    stack[top++] = kid[0];
    stack[top++] = kid[1];
    nodes += 2;
  }
  return nodes;
}

/* The triangles' corners and positions in leaf order. */
static void store_triangles(skc_bvh* b, const bvh_rec* rec, const float* positions, const uint32_t* triangles,
                            size_t n) {
  for (size_t s = 0; s < n; ++s) {
    size_t t = rec[s].t;
    for (int c = 0; c < 3; ++c) {
      uint32_t v = triangles[3 * t + c];
      b->corner[3 * s + c] = v;
      memcpy(b->tri + 9 * s + 3 * c, positions + 3 * (size_t)v, 3 * sizeof(float));
    }
  }
}

int skc_bvh_build(const float* positions, const uint32_t* triangles, size_t triangle_count, skc_bvh** out,
                  skc_err* err) {
  if (triangle_count == 0 || triangle_count > UINT32_MAX / 2)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bvh needs 1 .. 2^31 triangles");
  size_t n = triangle_count;
  skc_bvh* b = calloc(1, sizeof *b);
  bvh_rec* rec = skc_malloc_big(n * sizeof *rec);
  build_item* stack = malloc(n * sizeof *stack + sizeof *stack);
  if (b) {
    b->nodes = skc_malloc_big(2 * n * sizeof *b->nodes);
    b->tri = skc_malloc_big(n * 9 * sizeof *b->tri);
    b->corner = skc_malloc_big(n * 3 * sizeof *b->corner);
  }
  int ok = b && rec && stack && b->nodes && b->tri && b->corner;
  if (ok) {
    build_item root = {0, 0, (uint32_t)n, 0, {FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    float lo0[3], hi0[3];
    triangle_records(positions, triangles, n, rec, &root, lo0, hi0);
    const float pad = node_pad(lo0, hi0);
    size_t nodes = build_nodes(b, rec, stack, root, lo0, hi0);
    b->node_count = nodes;
    b->tri_count = n;
    for (size_t k = 0; k < nodes; ++k)
      for (int q = 0; q < 3; ++q) {
        b->nodes[k].lo[q] -= pad;
        b->nodes[k].hi[q] += pad;
      }
    ok = !collapse(b);
  }
  if (ok) store_triangles(b, rec, positions, triangles, n);
  free(rec);
  free(stack);
  if (!ok) {
    skc_bvh_destroy(b);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory building the bvh of %zu triangles", n);
  }
  *out = b;
  return SKC_OK;
}

void skc_bvh_destroy(skc_bvh* b) {
  if (!b) return;
  free(b->nodes);
  free(b->quads);
  free(b->tri);
  free(b->corner);
  free(b);
}

/* The segment o + t d, t in [0, 1], in float: inv = 1 / d with a zero component replaced by a huge finite value
 * (never a NaN from 0 * inf: a segment parallel to a slab inside it has (lo - o) * inv of opposite signs). */
typedef struct seg {
  float o[3], inv[3];
} seg;

static seg seg_make(const double p[3], const double d[3]) {
  seg s;
  for (int k = 0; k < 3; ++k) {
    s.o[k] = (float)p[k];
    float dk = (float)d[k];
    s.inv[k] = dk != 0.0f ? 1.0f / dk : (signbit(dk) ? -1e30f : 1e30f);
    if (!isfinite(s.inv[k])) s.inv[k] = s.inv[k] > 0.0f ? 1e30f : -1e30f; /* d below 1e-38 */
  }
  return s;
}

/* The four boxes of a node against the segment: bit l set when lane l is hit, t0[l] its entry parameter. Unused
 * lanes hold zero boxes: the caller skips them by their count. */
#if defined(__SSE2__)
static int boxes4(const bvh4_node* nd, const seg* s, float* t0_out) {
  __m128 t0 = _mm_setzero_ps(), t1 = _mm_set1_ps(1.0f);
  for (int k = 0; k < 3; ++k) {
    __m128 o = _mm_set1_ps(s->o[k]), iv = _mm_set1_ps(s->inv[k]);
    __m128 a = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd->lo[k]), o), iv);
    __m128 c = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(nd->hi[k]), o), iv);
    t0 = _mm_max_ps(t0, _mm_min_ps(a, c));
    t1 = _mm_min_ps(t1, _mm_max_ps(a, c));
  }
  _mm_storeu_ps(t0_out, t0);
  return _mm_movemask_ps(_mm_cmple_ps(t0, t1));
}
#else
static int boxes4(const bvh4_node* nd, const seg* s, float* t0) {
  float t1[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  for (int l = 0; l < 4; ++l) t0[l] = 0.0f;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 4; ++l) {
      float a = (nd->lo[k][l] - s->o[k]) * s->inv[k], c = (nd->hi[k][l] - s->o[k]) * s->inv[k];
      float near = a < c ? a : c, far = a < c ? c : a;
      t0[l] = near > t0[l] ? near : t0[l];
      t1[l] = far < t1[l] ? far : t1[l];
    }
  int hit = 0;
  for (int l = 0; l < 4; ++l) hit |= (t0[l] <= t1[l]) << l;
  return hit;
}
#endif

#define BVH_EDGE_TOL 1e-9 /* barycentric: 1e-9 of an edge, far above double rounding, far below any gap */

/* Does o + t d, t in (t_eps, 1 - t_eps), cross the triangle? 0 when not; +1 when it leaves through the
 * triangle's front (d along the counter-clockwise normal), -1 when it enters. edge_tol widens the triangle by that
 * much in barycentric terms: an occlusion query (edge_tol > 0) must not see through the skin where the segment
 * passes exactly through a shared edge or vertex (rounding then puts it just outside every triangle around it); a
 * crossing count (edge_tol = 0) must not count one crossing twice. */
static int tri_hit(const float* tri, const double o[3], const double d[3], double t_eps, double edge_tol) {
  double v0[3], e1[3], e2[3];
  for (int k = 0; k < 3; ++k) {
    v0[k] = tri[k];
    e1[k] = (double)tri[3 + k] - v0[k];
    e2[k] = (double)tri[6 + k] - v0[k];
  }
  double pv[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
  double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
  double l1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2], l2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
  double scale = sqrt(l1 * l2 * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
  if (!(fabs(det) > 1e-12 * scale)) return 0; /* parallel (coplanar segments graze, they do not cross) */
  double inv = 1.0 / det;
  double s[3] = {o[0] - v0[0], o[1] - v0[1], o[2] - v0[2]};
  double u = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) * inv;
  if (u < -edge_tol || u > 1.0 + edge_tol) return 0;
  double qv[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
  double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) * inv;
  if (v < -edge_tol || u + v > 1.0 + edge_tol) return 0;
  double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) * inv;
  if (!(t > t_eps && t < 1.0 - t_eps)) return 0;
  return det < 0.0 ? 1 : -1; /* det = -d . (e1 x e2) */
}

/* Visits the leaves the segment's boxes reach; for each triangle without skip as a corner, count == NULL stops at
 * the first crossing (returns 1; front_only: the first that enters a triangle from its front), otherwise every
 * crossing is counted, and its sign (tri_hit) added to *winding. Leaves are tested as soon as their box is hit,
 * inner children are stacked farthest first. */
static int traverse(const skc_bvh* b, const double p[3], const double q[3], uint32_t skip, double t_eps, int front_only,
                    size_t* count, long* winding) {
  double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  seg s = seg_make(p, d);
  uint32_t stack[BVH_STACK];
  int top = 0;
  stack[top++] = 0;
  while (top) {
    const bvh4_node* nd = &b->quads[stack[--top]];
    float t0[4];
    int hit = boxes4(nd, &s, t0);
    uint32_t inner[4];
    float tin[4];
    int ni = 0;
    for (int l = 0; l < 4; ++l) {
      if (!(hit >> l & 1) || nd->count[l] == BVH4_EMPTY) continue;
      if (nd->count[l] == 0) {
        int at = ni++; /* insertion: tin descending */
        while (at > 0 && tin[at - 1] < t0[l]) {
          tin[at] = tin[at - 1];
          inner[at] = inner[at - 1];
          --at;
        }
        tin[at] = t0[l];
        inner[at] = nd->ref[l];
        continue;
      }
      for (uint32_t t = nd->ref[l]; t < nd->ref[l] + nd->count[l]; ++t) {
        const uint32_t* c = b->corner + 3 * (size_t)t;
        if (c[0] == skip || c[1] == skip || c[2] == skip) continue;
        int side = tri_hit(b->tri + 9 * (size_t)t, p, d, t_eps, count ? 0.0 : BVH_EDGE_TOL);
        if (side && !(front_only && side > 0)) {
          if (!count) return 1;
          ++*count;
          *winding += side;
        }
      }
    }
    if (top + ni > BVH_STACK) return 1; /* unreachable (depth is bounded at build); occluded is conservative */
    for (int i = 0; i < ni; ++i) stack[top++] = inner[i];
  }
  return 0;
}

size_t skc_bvh_vertex_order(const skc_bvh* b, size_t vertex_count, uint32_t* order) {
  uint8_t* seen = calloc(vertex_count ? vertex_count : 1, 1);
  if (!seen) return SIZE_MAX;
  size_t count = 0;
  for (size_t k = 0; k < 3 * b->tri_count; ++k) {
    uint32_t v = b->corner[k];
    if (v < vertex_count && !seen[v]) seen[v] = 1, order[count++] = v;
  }
  free(seen);
  return count;
}

int skc_bvh_segment_hits(const skc_bvh* b, const double p[3], const double q[3], uint32_t skip_vertex, double t_eps) {
  return traverse(b, p, q, skip_vertex, t_eps, 0, NULL, NULL);
}

int skc_bvh_segment_enters(const skc_bvh* b, const double p[3], const double q[3], uint32_t skip_vertex, double t_eps) {
  return traverse(b, p, q, skip_vertex, t_eps, 1, NULL, NULL);
}

size_t skc_bvh_segment_count(const skc_bvh* b, const double p[3], const double q[3], long* winding) {
  size_t hits = 0;
  long w = 0;
  traverse(b, p, q, UINT32_MAX, 0.0, 0, &hits, &w);
  if (winding) *winding = w;
  return hits;
}
