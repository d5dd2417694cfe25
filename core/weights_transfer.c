/* weights_transfer.c - skin weight transfer between meshes (Abdrashitov, Raichstat, Monsen, Hill: "Robust Skin
 * Weights Transfer via Weight Inpainting", SIGGRAPH Asia 2023 technical communications).
 *
 * 1. Matching: every selected target vertex takes the closest point of the source surface (core/closest_point.c)
 *    and the barycentric blend of the source weights there. The match is accepted when the distance is within
 *    dist_threshold (default 0.05 x source bounding-box diagonal, as in the paper) and the angle between the
 *    target normal and the interpolated source normal is within angle_threshold (default 30 degrees; optionally
 *    |cos| so flipped normals pass). A zero normal (isolated vertex, degenerate fan) skips the angle test.
 * 2. Inpainting: the unmatched selected vertices minimize trace(W^T Q W) with Q = K + K M^-1 K (the paper's
 *    Q = -L + L M^-1 L, written with the positive semi-definite cotangent stiffness K = -L and the lumped
 *    barycentric mass matrix M), with the matched vertices and the unselected ones (their current weights) as
 *    fixed values. One sparse Cholesky factorization of Q_uu (SuiteSparse CHOLMOD) serves every joint (64 right-
 *    hand sides per solve). If the cotangent system is not positive definite (badly degenerate triangles) it is
 *    rebuilt with the uniform graph Laplacian. Connected parts of the target without any fixed vertex cannot be
 *    inpainted: their vertices take the closest source point's weights with the thresholds ignored (fallback,
 *    counted). Inpainted values are clamped at 0.
 * 3. Optional smoothing of the inpainted vertices (the uniform Laplacian smoothing of core/weights_smooth.c).
 * Then per vertex: locked joints keep their current weights L, the transferred unlocked weights are normalized,
 * pruned below min_weight, limited to max_influences (locked entries count) and scaled to 1 - L; the float sum is
 * made exactly 1 by adjusting the largest new weight. */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh_adjacency.h"
#include "skc_chol.h"
#include "skc_transfer.h"

#define SOLVE_CHUNK 64
#define INPAINT_EPS 1e-7 /* inpainted weights below this are dropped before normalization */

typedef struct grow {
  uint32_t* a;
  uint32_t* b;
  double* x;
  size_t n, cap;
} grow;

static bool grow_push(grow* g, uint32_t a, uint32_t b, double x) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 4096;
    uint32_t* na = realloc(g->a, cap * sizeof *na);
    if (!na) return false;
    g->a = na;
    uint32_t* nb = realloc(g->b, cap * sizeof *nb);
    if (!nb) return false;
    g->b = nb;
    double* nx = realloc(g->x, cap * sizeof *nx);
    if (!nx) return false;
    g->x = nx;
    g->cap = cap;
  }
  g->a[g->n] = a;
  g->b[g->n] = b;
  g->x[g->n++] = x;
  return true;
}

static void grow_free(grow* g) {
  free(g->a);
  free(g->b);
  free(g->x);
  memset(g, 0, sizeof *g);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct tctx {
  const skc_transfer_params* p;
  skc_skin* dst;
  const skc_wscope* sc;
  size_t nv;
  uint32_t nj;
  float* src_n;      /* computed or copied source normals (3 per source vertex) */
  float* dst_n;      /* target normals */
  uint32_t* hit_tri; /* per target vertex (selected): closest source triangle */
  float* hit_bary;   /* 3 per target vertex */
  uint8_t* status;   /* SKC_TRANSFER_* per target vertex; selected & unknown = 255 until resolved */
  /* matched weights (raw blends), CSR over target vertices (empty for the others) */
  uint32_t* m_off;
  uint32_t* m_j;
  float* m_w;
  /* inpainted values, CSR over system rows */
  int32_t* row;    /* target vertex -> system row, -1 */
  uint32_t* row_v; /* system row -> target vertex */
  size_t rows;
  uint32_t* i_off;
  uint32_t* i_j;
  float* i_w;
  /* scratch for blending */
  double* acc;
  uint8_t* mark;
  uint32_t* touched;
} tctx;

#define PENDING 255

static bool finite_stream(const float* pos, size_t stride, size_t n) {
  for (size_t v = 0; v < n; ++v) {
    const float* q = skc_pos(pos, stride, v);
    if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) return false;
  }
  return true;
}

/* Barycentric blend of the source weights at a hit; writes valid entries (w > 0) into jo/wo, returns count. */
static size_t blend(tctx* c, uint32_t tri, const float bary[3], uint32_t* jo, float* wo) {
  const skc_skin* s = c->p->src_skin;
  const uint32_t* tv = c->p->src_tri + 3 * (size_t)tri;
  size_t nt = 0;
  for (int k = 0; k < 3; ++k) {
    double b = bary[k];
    if (!(b > 0.0)) continue;
    uint32_t sv = tv[k];
    for (uint32_t e = s->offsets[sv]; e < s->offsets[sv + 1]; ++e) {
      uint32_t j = s->joints[e];
      float w = s->weights[e];
      if (!skc_wentry_valid(j, w, c->nj) || w == 0.0f) continue;
      if (!c->mark[j]) {
        c->mark[j] = 1;
        c->acc[j] = 0.0;
        c->touched[nt++] = j;
      }
      c->acc[j] += b * w;
    }
  }
  size_t n = 0;
  for (size_t i = 0; i < nt; ++i) {
    uint32_t j = c->touched[i];
    c->mark[j] = 0;
    if (c->acc[j] > 0.0) {
      jo[n] = j;
      wo[n++] = (float)c->acc[j];
    }
  }
  return n;
}

/* Fixed values of vertex b for the inpainting right-hand side: matched blend or the current (valid) weights. */
static size_t fixed_values(const tctx* c, uint32_t b, const uint32_t** j, const float** w) {
  if (c->status[b] == SKC_TRANSFER_MATCHED) {
    *j = c->m_j + c->m_off[b];
    *w = c->m_w + c->m_off[b];
    return c->m_off[b + 1] - c->m_off[b];
  }
  *j = c->dst->joints + c->dst->offsets[b];
  *w = c->dst->weights + c->dst->offsets[b];
  return c->dst->offsets[b + 1] - c->dst->offsets[b];
}

/* ---- step 1: closest points and matching ---------------------------------------------------------------- */
/* Whether the target normal of vertex v and the source normal interpolated at hit h are within the angle
 * threshold (cos_thr; flip: |cos|); a zero normal passes. */
static inline bool normals_agree(const tctx* c, const skc_closest_hit* h, size_t v, double cos_thr, bool flip) {
  const uint32_t* tv = c->p->src_tri + 3 * (size_t)h->triangle;
  double ns[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i) ns[i] += (double)h->bary[k] * c->src_n[3 * (size_t)tv[k] + i];
  const float* nt = c->dst_n + 3 * v;
  double ls = sqrt(ns[0] * ns[0] + ns[1] * ns[1] + ns[2] * ns[2]);
  double lt = sqrt((double)nt[0] * nt[0] + (double)nt[1] * nt[1] + (double)nt[2] * nt[2]);
  bool ok = true;
  if (ls > 1e-12 && lt > 1e-12) {
    double cs = (ns[0] * nt[0] + ns[1] * nt[1] + ns[2] * nt[2]) / (ls * lt);
    if (flip) cs = fabs(cs);
    ok = cs >= cos_thr - 1e-7;
  }
  return ok;
}

/* Finds every pending vertex's closest source point (c->hit_*) and marks it MATCHED when within both thresholds. */
static void closest_matches(tctx* c, const skc_tri_bvh* bvh, float thr) {
  const skc_transfer_params* p = c->p;
  double cos_thr = cos((double)p->angle_threshold);
  bool flip = (p->flags & SKC_TRANSFER_ALLOW_FLIPPED) != 0;
  double thr2 = (double)thr * thr;
  ptrdiff_t nv = (ptrdiff_t)c->nv;
#ifdef SK_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 256) if (nv > 2048) /* a small mesh: no thread team to wake */
#endif
  for (ptrdiff_t vi = 0; vi < nv; ++vi) {
    size_t v = (size_t)vi;
    if (c->status[v] != PENDING) continue;
    skc_closest_hit h;
    skc_tri_bvh_closest(bvh, skc_pos(p->dst_pos, p->dst_stride, v), &h);
    c->hit_tri[v] = h.triangle;
    memcpy(c->hit_bary + 3 * v, h.bary, sizeof h.bary);
    if (h.triangle == UINT32_MAX || !((double)h.dist2 <= thr2)) continue;
    if (normals_agree(c, &h, v, cos_thr, flip)) c->status[v] = SKC_TRANSFER_MATCHED;
  }
}

/* Stores the blends of the matched vertices as a CSR over the target vertices (c->m_*). */
static int matched_blends(tctx* c, skc_err* err) {
  const skc_transfer_params* p = c->p;
  /* blends of the matched vertices (serial: shares the scratch accumulator) */
  size_t deg = skc_wmax_degree(p->src_skin);
  size_t cap = 3 * deg + 1;
  uint32_t* jb = malloc(cap * sizeof *jb);
  float* wb = malloc(cap * sizeof *wb);
  c->m_off = malloc((c->nv + 1) * sizeof *c->m_off);
  size_t total = 0;
  for (size_t v = 0; v < c->nv; ++v)
    if (c->status[v] == SKC_TRANSFER_MATCHED) total += 3 * deg;
  if (total > UINT32_MAX) total = UINT32_MAX;
  c->m_j = malloc((total + 1) * sizeof *c->m_j);
  c->m_w = malloc((total + 1) * sizeof *c->m_w);
  if (!jb || !wb || !c->m_off || !c->m_j || !c->m_w) {
    free(jb);
    free(wb);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "transfer: out of memory for the matched weights");
  }
  size_t at = 0;
  c->m_off[0] = 0;
  for (size_t v = 0; v < c->nv; ++v) {
    if (c->status[v] == SKC_TRANSFER_MATCHED) {
      size_t n = blend(c, c->hit_tri[v], c->hit_bary + 3 * v, jb, wb);
      if (at + n > total) {
        free(jb);
        free(wb);
        return skc_fail(err, SKC_OUT_OF_RANGE, "transfer: too many matched influences");
      }
      memcpy(c->m_j + at, jb, n * sizeof *jb);
      memcpy(c->m_w + at, wb, n * sizeof *wb);
      at += n;
    }
    c->m_off[v + 1] = (uint32_t)at;
  }
  free(jb);
  free(wb);
  return SKC_OK;
}

/* Step 1: closest points, the matched vertices and their blends. */
static int match(tctx* c, const skc_tri_bvh* bvh, float thr, skc_err* err) {
  closest_matches(c, bvh, thr);
  return matched_blends(c, err);
}

/* ---- step 2: inpainting ----------------------------------------------------------------------------------- */
typedef struct qsys {
  grow uu; /* lower triangle of Q_uu: (row, col, value), row >= col */
  grow uk; /* Q_uk: (row, fixed vertex, value) */
} qsys;

/* A sparse row accumulator: acc and mark over the vertices, the entries met listed in touched (nt of them). */
typedef struct spacc {
  double* acc;
  uint8_t* mark;
  uint32_t* touched;
  size_t nt;
} spacc;

/* Adds val to entry vtx of the row (first time: the entry starts at 0 and is listed). */
static inline void spacc_add(spacc* s, uint32_t vtx, double val) {
  if (!s->mark[vtx]) {
    s->mark[vtx] = 1;
    s->acc[vtx] = 0.0;
    s->touched[s->nt++] = vtx;
  }
  s->acc[vtx] += val;
}

/* Accumulates row a of Q = K + K M^-1 K into s. */
static void q_row(const skc_adjacency* adj, const double* diag, const double* inv_mass, bool uniform, uint32_t a,
                  spacc* s) {
  s->nt = 0;
  /* K row */
  spacc_add(s, a, diag[a]);
  for (uint32_t e = adj->offsets[a]; e < adj->offsets[a + 1]; ++e)
    spacc_add(s, adj->neighbors[e], -(uniform ? 1.0 : (double)adj->weights[e]));
  /* (K M^-1 K) row: sum over c of K_ac / m_c * K_c. */
  for (uint32_t e = adj->offsets[a]; e <= adj->offsets[a + 1]; ++e) {
    uint32_t cv;
    double kac;
    if (e == adj->offsets[a + 1]) {
      cv = a;
      kac = diag[a];
    } else {
      cv = adj->neighbors[e];
      kac = -(uniform ? 1.0 : (double)adj->weights[e]);
    }
    double f = kac * inv_mass[cv];
    spacc_add(s, cv, f * diag[cv]);
    for (uint32_t g = adj->offsets[cv]; g < adj->offsets[cv + 1]; ++g)
      spacc_add(s, adj->neighbors[g], -f * (uniform ? 1.0 : (double)adj->weights[g]));
  }
}

/* Stores the non-zero entries of row r (in s): unknowns at or left of the diagonal into q->uu, fixed vertices into
 * q->uk; clears the marks. SKC_OUT_OF_MEMORY when a store fails. */
static int store_row(const tctx* c, size_t r, spacc* s, qsys* q) {
  int rc = SKC_OK;
  for (size_t i = 0; i < s->nt; ++i) {
    uint32_t b = s->touched[i];
    s->mark[b] = 0;
    double x = s->acc[b];
    if (x == 0.0) continue;
    int32_t rb = c->row[b];
    bool ok = true;
    if (rb >= 0) {
      if ((size_t)rb <= r) ok = grow_push(&q->uu, (uint32_t)r, (uint32_t)rb, x);
    } else if (c->status[b] == SKC_TRANSFER_MATCHED || c->status[b] == SKC_TRANSFER_KEPT) {
      ok = grow_push(&q->uk, (uint32_t)r, b, x);
    }
    if (!ok) {
      rc = SKC_OUT_OF_MEMORY;
      break;
    }
  }
  if (rc) /* clear the remaining marks */
    for (size_t i = 0; i < s->nt; ++i) s->mark[s->touched[i]] = 0;
  return rc;
}

/* Assembles the rows of Q = K + K M^-1 K for the unknowns. */
static int assemble(tctx* c, const skc_adjacency* adj, const double* diag, const double* inv_mass, bool uniform,
                    qsys* q) {
  spacc s;
  s.acc = calloc(c->nv, sizeof *s.acc);
  s.mark = calloc(c->nv, 1);
  s.touched = malloc(c->nv * sizeof *s.touched);
  s.nt = 0;
  if (!s.acc || !s.mark || !s.touched) {
    free(s.acc);
    free(s.mark);
    free(s.touched);
    return SKC_OUT_OF_MEMORY;
  }
  int rc = SKC_OK;
  for (size_t r = 0; r < c->rows && !rc; ++r) {
    uint32_t a = c->row_v[r];
    q_row(adj, diag, inv_mass, uniform, a, &s);
    s.acc[a] *= 1.0 + 1e-10; /* a hair of regularization on the diagonal */
    rc = store_row(c, r, &s, q);
  }
  free(s.acc);
  free(s.mark);
  free(s.touched);
  return rc;
}

static cholmod_factor* factor_q(const qsys* q, size_t m, cholmod_common* cm, cholmod_sparse** out_a, int* oom) {
  *oom = 0;
  if (q->uu.n > (size_t)INT_MAX || m > (size_t)INT_MAX) {
    *oom = 1;
    return NULL;
  }
  cholmod_triplet* T = cholmod_allocate_triplet(m, m, q->uu.n, -1, CHOLMOD_REAL, cm);
  if (!T) {
    *oom = 1;
    return NULL;
  }
  int* ti = T->i;
  int* tj = T->j;
  double* tx = T->x;
  for (size_t k = 0; k < q->uu.n; ++k) {
    ti[k] = (int)q->uu.a[k];
    tj[k] = (int)q->uu.b[k];
    tx[k] = q->uu.x[k];
  }
  T->nnz = q->uu.n;
  return skc_chol_factor_triplet(&T, q->uu.n, cm, out_a, oom);
}

/* Lists the joints with a positive valid weight in some fixed value (joints; returns their count), marked -2 in col
 * (the others -1). */
static uint32_t active_joints(const tctx* c, const qsys* q, int32_t* col, uint32_t* joints) {
  uint32_t nact = 0;
  for (uint32_t j = 0; j < c->nj; ++j) col[j] = -1;
  for (size_t k = 0; k < q->uk.n; ++k) {
    const uint32_t* fj;
    const float* fw;
    size_t n = fixed_values(c, q->uk.b[k], &fj, &fw);
    for (size_t i = 0; i < n; ++i)
      if (skc_wentry_valid(fj[i], fw[i], c->nj) && fw[i] > 0.0f && col[fj[i]] == -1) {
        col[fj[i]] = -2;
        joints[nact++] = fj[i];
      }
  }
  return nact;
}

/* Solves the system for the cols joints jc (one right-hand side each, col[j] = its column while solving) and adds
 * the values above INPAINT_EPS to out as (row, joint, value). */
static int solve_chunk(const tctx* c, const qsys* q, cholmod_factor* L, cholmod_common* cm, int32_t* col,
                       const uint32_t* jc, uint32_t cols, grow* out) {
  size_t m = c->rows;
  int rc = SKC_OK;
  for (uint32_t i = 0; i < cols; ++i) col[jc[i]] = (int32_t)i;
  cholmod_dense* B = cholmod_zeros(m, cols, CHOLMOD_REAL, cm);
  if (!B) return SKC_OUT_OF_MEMORY;
  double* bx = B->x;
  size_t ld = B->d;
  for (size_t k = 0; k < q->uk.n; ++k) {
    const uint32_t* fj;
    const float* fw;
    size_t n = fixed_values(c, q->uk.b[k], &fj, &fw);
    for (size_t i = 0; i < n; ++i) {
      if (!skc_wentry_valid(fj[i], fw[i], c->nj)) continue;
      int32_t cc = col[fj[i]];
      if (cc >= 0) bx[(size_t)cc * ld + q->uk.a[k]] -= q->uk.x[k] * fw[i];
    }
  }
  cholmod_dense* X = cholmod_solve(CHOLMOD_A, L, B, cm);
  cholmod_free_dense(&B, cm);
  if (!X) return cm->status == CHOLMOD_OUT_OF_MEMORY ? SKC_OUT_OF_MEMORY : SKC_NO_SOLUTION;
  const double* xx = X->x;
  size_t xd = X->d;
  for (size_t r = 0; r < m && !rc; ++r)
    for (uint32_t i = 0; i < cols; ++i) {
      double x = xx[(size_t)i * xd + r];
      if (x > INPAINT_EPS && isfinite(x) && !grow_push(out, (uint32_t)r, jc[i], x)) {
        rc = SKC_OUT_OF_MEMORY;
        break;
      }
    }
  cholmod_free_dense(&X, cm);
  for (uint32_t i = 0; i < cols; ++i) col[jc[i]] = -2;
  return rc;
}

/* Sorts the solved values (row, joint, value) by row into the CSR c->i_* (counting sort). */
static int rows_to_csr(tctx* c, const grow* out) {
  size_t m = c->rows;
  c->i_off = calloc(m + 1, sizeof *c->i_off);
  c->i_j = malloc((out->n + 1) * sizeof *c->i_j);
  c->i_w = malloc((out->n + 1) * sizeof *c->i_w);
  if (!c->i_off || !c->i_j || !c->i_w || out->n > UINT32_MAX) return SKC_OUT_OF_MEMORY;
  for (size_t k = 0; k < out->n; ++k) ++c->i_off[out->a[k] + 1];
  for (size_t r = 0; r < m; ++r) c->i_off[r + 1] += c->i_off[r];
  uint32_t* fill = malloc((m + 1) * sizeof *fill);
  if (!fill) return SKC_OUT_OF_MEMORY;
  memcpy(fill, c->i_off, (m + 1) * sizeof *fill);
  for (size_t k = 0; k < out->n; ++k) {
    uint32_t at = fill[out->a[k]]++;
    c->i_j[at] = out->b[k];
    c->i_w[at] = (float)out->x[k];
  }
  free(fill);
  return SKC_OK;
}

/* Solves every joint present in the fixed values, SOLVE_CHUNK right-hand sides at a time; fills c->i_*. */
static int solve_q(tctx* c, const qsys* q, cholmod_factor* L, cholmod_common* cm) {
  int32_t* col = malloc(c->nj * sizeof *col);
  uint32_t* joints = malloc(c->nj * sizeof *joints);
  grow out = {0};
  int rc = SKC_OK;
  if (!col || !joints) rc = SKC_OUT_OF_MEMORY;
  uint32_t nact = 0;
  if (!rc) nact = active_joints(c, q, col, joints);
  for (uint32_t c0 = 0; c0 < nact && !rc; c0 += SOLVE_CHUNK) {
    uint32_t cols = nact - c0 < SOLVE_CHUNK ? nact - c0 : SOLVE_CHUNK;
    rc = solve_chunk(c, q, L, cm, col, joints + c0, cols, &out);
  }
  if (!rc) rc = rows_to_csr(c, &out);
  grow_free(&out);
  free(col);
  free(joints);
  return rc;
}

/* Connected components (breadth first over edges) and whether each has a fixed vertex: comp[v] = the first vertex of
 * v's component, comp_fixed[that vertex] = 1 when a matched or kept vertex lies in it (queue: nv scratch). */
static void components(const tctx* c, const skc_adjacency* adj, uint32_t* comp, uint32_t* queue, uint8_t* comp_fixed) {
  size_t nv = c->nv;
  for (size_t v = 0; v < nv; ++v) comp[v] = UINT32_MAX;
  for (size_t s = 0; s < nv; ++s) {
    if (comp[s] != UINT32_MAX) continue;
    size_t head = 0, tail = 0;
    queue[tail++] = (uint32_t)s;
    comp[s] = (uint32_t)s;
    while (head < tail) {
      uint32_t v = queue[head++];
      if (c->status[v] == SKC_TRANSFER_MATCHED || c->status[v] == SKC_TRANSFER_KEPT) comp_fixed[s] = 1;
      for (uint32_t e = adj->offsets[v]; e < adj->offsets[v + 1]; ++e) {
        uint32_t u = adj->neighbors[e];
        if (comp[u] == UINT32_MAX) {
          comp[u] = (uint32_t)s;
          queue[tail++] = u;
        }
      }
    }
  }
}

/* Gives each pending vertex in a component with a fixed vertex a system row (status INPAINTED); the other pending
 * vertices become FALLBACK. Sets c->row, c->row_v and c->rows. */
static void assign_rows(tctx* c, const uint32_t* comp, const uint8_t* comp_fixed) {
  c->rows = 0;
  for (size_t v = 0; v < c->nv; ++v) {
    c->row[v] = -1;
    if (c->status[v] != PENDING) continue;
    if (comp_fixed[comp[v]]) {
      c->row[v] = (int32_t)c->rows;
      c->row_v[c->rows++] = (uint32_t)v;
      c->status[v] = SKC_TRANSFER_INPAINTED;
    } else {
      c->status[v] = SKC_TRANSFER_FALLBACK;
    }
  }
}

/* lumped barycentric masses; vertices without area get the mean mass. Writes their inverses to inv_mass (nv). */
static void inverse_masses(const tctx* c, double* inv_mass) {
  const skc_transfer_params* p = c->p;
  size_t nv = c->nv;
  double* mass = inv_mass;
  for (size_t v = 0; v < nv; ++v) mass[v] = 0.0;
  for (size_t t = 0; t < p->dst_tri_count; ++t) {
    const uint32_t* tv = p->dst_tri + 3 * t;
    const float* a = skc_pos(p->dst_pos, p->dst_stride, tv[0]);
    const float* b = skc_pos(p->dst_pos, p->dst_stride, tv[1]);
    const float* d = skc_pos(p->dst_pos, p->dst_stride, tv[2]);
    double ab[3], ad[3];
    for (int k = 0; k < 3; ++k) {
      ab[k] = (double)b[k] - a[k];
      ad[k] = (double)d[k] - a[k];
    }
    double cr[3] = {ab[1] * ad[2] - ab[2] * ad[1], ab[2] * ad[0] - ab[0] * ad[2], ab[0] * ad[1] - ab[1] * ad[0]};
    double area = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    for (int k = 0; k < 3; ++k) mass[tv[k]] += area / 3.0;
  }
  double sum = 0.0;
  size_t cnt = 0;
  for (size_t v = 0; v < nv; ++v)
    if (mass[v] > 0.0 && isfinite(mass[v])) {
      sum += mass[v];
      ++cnt;
    }
  double mean = cnt ? sum / (double)cnt : 1.0;
  if (!(mean > 0.0)) mean = 1.0;
  for (size_t v = 0; v < nv; ++v) inv_mass[v] = 1.0 / (mass[v] > 1e-12 * mean && isfinite(mass[v]) ? mass[v] : mean);
}

/* The diagonal of the stiffness K: the sum of each vertex's edge weights (cotangent, or 1 per edge when uni). */
static void stiffness_diagonal(const skc_adjacency* adj, size_t nv, bool uni, double* diag) {
  for (size_t v = 0; v < nv; ++v) {
    double d = 0.0;
    for (uint32_t e = adj->offsets[v]; e < adj->offsets[v + 1]; ++e) d += uni ? 1.0 : (double)adj->weights[e];
    diag[v] = d;
  }
}

/* Assembles and factors Q_uu (with the uniform Laplacian when asked for, or when the cotangent system is not positive
 * definite) and solves it for every joint, filling c->i_*; diag (nv) is scratch for the stiffness diagonal. */
static int solve_system(tctx* c, const skc_adjacency* adj, double* diag, const double* inv_mass, bool uniform, qsys* q,
                        skc_err* err) {
  int rc = SKC_OK;
  cholmod_common cm;
  skc_chol_start(&cm);
  if (!skc_chol_blas_room()) cm.supernodal = CHOLMOD_SIMPLICIAL; /* skc_chol.h: no room for the BLAS's buffer */
  cholmod_factor* L = NULL;
  cholmod_sparse* A = NULL;
  for (int attempt = 0; attempt < 2 && !L; ++attempt) {
    bool uni = uniform || attempt == 1;
    if (attempt == 1 && uniform) break;
    stiffness_diagonal(adj, c->nv, uni, diag);
    grow_free(&q->uu);
    grow_free(&q->uk);
    if (assemble(c, adj, diag, inv_mass, uni, q)) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "transfer: out of memory assembling the inpainting system");
      break;
    }
    int oom = 0;
    L = factor_q(q, c->rows, &cm, &A, &oom);
    if (!L && oom) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "transfer: out of memory factoring the inpainting system");
      break;
    }
  }
  if (!rc && !L)
    rc = skc_fail(err, SKC_NO_SOLUTION, "transfer: the inpainting system is not positive definite (degenerate mesh)");
  if (!rc) {
    rc = solve_q(c, q, L, &cm);
    if (rc) rc = skc_fail(err, rc, "transfer: solving the inpainting system failed (%s)", skc_status_string(rc));
  }
  if (L) cholmod_free_factor(&L, &cm);
  if (A) cholmod_free_sparse(&A, &cm);
  cholmod_finish(&cm);
  return rc;
}

/* Step 2: the pending vertices of components with a fixed vertex are inpainted (c->i_*, status INPAINTED); the
 * others become FALLBACK. */
static int inpaint(tctx* c, skc_err* err) {
  const skc_transfer_params* p = c->p;
  const char* no_solver = skc_chol_unavailable();
  if (no_solver) return skc_fail(err, SKC_UNSUPPORTED, "transfer: inpainting needs the sparse solver: %s", no_solver);
  skc_adjacency adj;
  int rc = skc_adjacency_build(&adj, c->nv, p->dst_tri, p->dst_tri_count, err);
  if (rc) return rc;
  bool uniform = (p->flags & SKC_TRANSFER_UNIFORM_LAPLACIAN) != 0;
  if (!uniform && (rc = skc_adjacency_cotangent(&adj, p->dst_pos, p->dst_stride, p->dst_tri, p->dst_tri_count, err))) {
    skc_adjacency_free(&adj);
    return rc;
  }
  size_t nv = c->nv;
  uint32_t* comp = malloc(nv * sizeof *comp);
  uint32_t* queue = malloc(nv * sizeof *queue);
  uint8_t* comp_fixed = calloc(nv, 1);
  double* diag = malloc(nv * sizeof *diag);
  double* inv_mass = malloc(nv * sizeof *inv_mass);
  c->row = malloc(nv * sizeof *c->row);
  c->row_v = malloc(nv * sizeof *c->row_v);
  qsys q = {{0}, {0}};
  if (!comp || !queue || !comp_fixed || !diag || !inv_mass || !c->row || !c->row_v) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "transfer: out of memory for the inpainting");
    goto done;
  }
  components(c, &adj, comp, queue, comp_fixed);
  assign_rows(c, comp, comp_fixed);
  if (c->rows == 0) goto done;
  if (c->rows > (size_t)INT_MAX) {
    rc = skc_fail(err, SKC_OUT_OF_RANGE, "transfer: %zu vertices to inpaint is too many", c->rows);
    goto done;
  }
  inverse_masses(c, inv_mass);
  rc = solve_system(c, &adj, diag, inv_mass, uniform, &q, err);
done:
  grow_free(&q.uu);
  grow_free(&q.uk);
  free(comp);
  free(queue);
  free(comp_fixed);
  free(diag);
  free(inv_mass);
  skc_adjacency_free(&adj);
  return rc;
}

/* ---- final per-vertex assembly ---------------------------------------------------------------------------- */
typedef struct vbuf {
  uint32_t* j;
  float* w;
  uint32_t* tj;
  float* tw;
} vbuf;

/* Builds the new weights of selected vertex v from raw values (rj, rw, rn); returns the entry count or 0 with
 * *failed set (then the vertex keeps its current weights). */
static size_t finish_vertex(tctx* c, size_t v, const uint32_t* rj, const float* rw, size_t rn, vbuf* vb, bool* failed) {
  const skc_transfer_params* p = c->p;
  const skc_skin* d = c->dst;
  *failed = false;
  size_t n = 0;
  double lsum = 0.0;
  size_t nl = 0;
  for (uint32_t e = d->offsets[v]; e < d->offsets[v + 1]; ++e) {
    uint32_t j = d->joints[e];
    float w = d->weights[e];
    if (j >= c->nj || !skc_wlocked(c->sc, j)) continue;
    if (!isfinite(w) || w < 0.0f) {
      *failed = true;
      return 0;
    }
    if (w > 0.0f) {
      vb->j[n] = j;
      vb->w[n++] = w;
      lsum += w;
      ++nl;
    }
  }
  if (lsum > 1.0 + 1e-5) {
    *failed = true;
    return 0;
  }
  double rem = 1.0 - lsum;
  if (rem <= 1e-7) return n; /* the locked weights already fill the vertex */
  size_t m = 0;
  for (size_t i = 0; i < rn; ++i)
    if (rj[i] < c->nj && !skc_wlocked(c->sc, rj[i]) && isfinite(rw[i]) && rw[i] > 0.0f) {
      vb->tj[m] = rj[i];
      vb->tw[m++] = rw[i];
    }
  size_t k = m;
  if (p->max_influences) {
    if (nl >= p->max_influences) {
      *failed = true;
      return 0;
    }
    if (k > p->max_influences - nl) k = p->max_influences - nl;
  }
  /* sorted by weight, normalized; then prune (keep the largest) and limit, renormalizing */
  size_t cnt = skc_select_top(vb->tj, vb->tw, m, m, vb->j + n, vb->w + n);
  if (cnt == 0) {
    *failed = true;
    return 0;
  }
  size_t keep = cnt;
  while (keep > 1 && (double)vb->w[n + keep - 1] * rem < (double)p->min_weight) --keep;
  if (keep > k) keep = k;
  double s = 0.0;
  for (size_t i = 0; i < keep; ++i) s += vb->w[n + i];
  for (size_t i = 0; i < keep; ++i) vb->w[n + i] = (float)((double)vb->w[n + i] / s * rem);
  size_t first = n;
  n += keep;
  float fs = 0.0f;
  for (size_t i = 0; i < n; ++i) fs += vb->w[i];
  vb->w[first] += 1.0f - fs; /* exact float sum */
  if (vb->w[first] < 0.0f) vb->w[first] = 0.0f;
  return n;
}

/* Checks triangles, joint and vertex counts, triangle indices and finite positions and normals; *selected: the
 * selected target vertices (at least one). */
static int check_transfer(const skc_skin* dst, const skc_wscope* sc, const skc_transfer_params* p, size_t* selected,
                          skc_err* err) {
  size_t nv = dst->vertex_count;
  const skc_skin* src = p->src_skin;
  if (!p->src_tri || p->src_tri_count == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "transfer needs source triangles (the source mesh has no faces)");
  if (!p->dst_tri || p->dst_tri_count == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "transfer needs target triangles (the target mesh has no faces)");
  if (src->joint_count != dst->joint_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "source skin has %u joints, target skin %u: joint indexing differs",
                    src->joint_count, dst->joint_count);
  if (src->vertex_count != p->src_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "source skin has %zu vertices, source mesh %zu", src->vertex_count,
                    p->src_count);
  for (size_t i = 0; i < 3 * p->src_tri_count; ++i)
    if (p->src_tri[i] >= p->src_count)
      return skc_fail(err, SKC_OUT_OF_RANGE, "source triangle %zu uses vertex %u, the mesh has %zu", i / 3,
                      p->src_tri[i], p->src_count);
  for (size_t i = 0; i < 3 * p->dst_tri_count; ++i)
    if (p->dst_tri[i] >= nv)
      return skc_fail(err, SKC_OUT_OF_RANGE, "target triangle %zu uses vertex %u, the mesh has %zu", i / 3,
                      p->dst_tri[i], nv);
  if (!finite_stream(p->src_pos, p->src_stride, p->src_count))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "source positions contain NaN or infinity");
  if (!finite_stream(p->dst_pos, p->dst_stride, nv))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "target positions contain NaN or infinity");
  if (p->src_nrm && !finite_stream(p->src_nrm, p->src_nrm_stride, p->src_count))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "source normals contain NaN or infinity");
  if (p->dst_nrm && !finite_stream(p->dst_nrm, p->dst_nrm_stride, nv))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "target normals contain NaN or infinity");
  *selected = 0;
  for (size_t v = 0; v < nv; ++v) *selected += skc_wsel(sc, v);
  if (*selected == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "the vertex mask selects no target vertex");
  return SKC_OK;
}

/* Sets up the context: its arrays, every selected vertex PENDING (the others KEPT) and the source and target
 * normals. c is zeroed first, so tctx_free can follow a failure. */
static int tctx_start(tctx* c, skc_skin* dst, const skc_wscope* sc, const skc_transfer_params* p, skc_err* err) {
  size_t nv = dst->vertex_count;
  memset(c, 0, sizeof *c);
  c->p = p;
  c->dst = dst;
  c->sc = sc;
  c->nv = nv;
  c->nj = dst->joint_count;
  c->src_n = malloc(3 * p->src_count * sizeof *c->src_n);
  c->dst_n = malloc(3 * nv * sizeof *c->dst_n);
  c->hit_tri = malloc(nv * sizeof *c->hit_tri);
  c->hit_bary = malloc(3 * nv * sizeof *c->hit_bary);
  c->status = malloc(nv);
  c->acc = malloc((c->nj ? c->nj : 1) * sizeof *c->acc);
  c->mark = calloc(c->nj ? c->nj : 1, 1);
  c->touched = malloc((c->nj ? c->nj : 1) * sizeof *c->touched);
  if (!c->src_n || !c->dst_n || !c->hit_tri || !c->hit_bary || !c->status || !c->acc || !c->mark || !c->touched)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "transfer: out of memory");
  for (size_t v = 0; v < nv; ++v) {
    c->status[v] = skc_wsel(sc, v) ? PENDING : SKC_TRANSFER_KEPT;
    c->hit_tri[v] = UINT32_MAX;
  }
  /* normals */
  if (p->src_nrm) {
    for (size_t v = 0; v < p->src_count; ++v) memcpy(c->src_n + 3 * v, skc_pos(p->src_nrm, p->src_nrm_stride, v), 12);
  } else {
    skc_vertex_normals(p->src_pos, p->src_stride, p->src_count, p->src_tri, p->src_tri_count, c->src_n);
  }
  if (p->dst_nrm) {
    for (size_t v = 0; v < nv; ++v) memcpy(c->dst_n + 3 * v, skc_pos(p->dst_nrm, p->dst_nrm_stride, v), 12);
  } else {
    skc_vertex_normals(p->dst_pos, p->dst_stride, nv, p->dst_tri, p->dst_tri_count, c->dst_n);
  }
  return SKC_OK;
}

/* Frees the context's arrays. */
static void tctx_free(tctx* c) {
  free(c->src_n);
  free(c->dst_n);
  free(c->hit_tri);
  free(c->hit_bary);
  free(c->status);
  free(c->acc);
  free(c->mark);
  free(c->touched);
  free(c->m_off);
  free(c->m_j);
  free(c->m_w);
  free(c->row);
  free(c->row_v);
  free(c->i_off);
  free(c->i_j);
  free(c->i_w);
}

/* The distance threshold used: the given one, or (negative) 0.05 x the diagonal of the source triangles' box. */
static float distance_threshold(const skc_transfer_params* p) {
  float thr = p->dist_threshold;
  if (thr < 0.0f) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < 3 * p->src_tri_count; ++i) {
      const float* q = skc_pos(p->src_pos, p->src_stride, p->src_tri[i]);
      for (int k = 0; k < 3; ++k) {
        if (q[k] < lo[k]) lo[k] = q[k];
        if (q[k] > hi[k]) hi[k] = q[k];
      }
    }
    double dx = (double)hi[0] - lo[0], dy = (double)hi[1] - lo[1], dz = (double)hi[2] - lo[2];
    thr = (float)(0.05 * sqrt(dx * dx + dy * dy + dz * dz));
  }
  return thr;
}

/* The raw transferred values of vertex v (*rj, *rw; returns their count): its matched blend, its inpainted row or,
 * for a fallback vertex, the blend at its closest source point (thresholds ignored) written to fj/fw. */
static inline size_t raw_values(tctx* c, size_t v, uint32_t* fj, float* fw, const uint32_t** rj, const float** rw) {
  uint8_t s = c->status[v];
  *rj = NULL;
  *rw = NULL;
  size_t rn = 0;
  if (s == SKC_TRANSFER_MATCHED) {
    *rj = c->m_j + c->m_off[v];
    *rw = c->m_w + c->m_off[v];
    rn = c->m_off[v + 1] - c->m_off[v];
  } else if (s == SKC_TRANSFER_INPAINTED) {
    int32_t r = c->row[v];
    *rj = c->i_j + c->i_off[r];
    *rw = c->i_w + c->i_off[r];
    rn = c->i_off[r + 1] - c->i_off[r];
  } else if (c->hit_tri[v] != UINT32_MAX) { /* fallback: closest source point, thresholds ignored */
    rn = blend(c, c->hit_tri[v], c->hit_bary + 3 * v, fj, fw);
    *rj = fj;
    *rw = fw;
  }
  return rn;
}

/* Pushes every vertex's new weights (kept and failed vertices: their current ones) to b; a failed vertex's status
 * becomes FAILED. vb, fj and fw: one vertex's scratch. */
static int push_vertices(tctx* c, skc_skin_builder* b, vbuf* vb, uint32_t* fj, float* fw) {
  const skc_skin* dst = c->dst;
  int rc = SKC_OK;
  for (size_t v = 0; v < c->nv && !rc; ++v) {
    const uint32_t* ej = dst->joints + dst->offsets[v];
    const float* ew = dst->weights + dst->offsets[v];
    size_t en = dst->offsets[v + 1] - dst->offsets[v];
    if (c->status[v] == SKC_TRANSFER_KEPT) {
      rc = skc_skin_builder_push(b, ej, ew, en);
      continue;
    }
    const uint32_t* rj;
    const float* rw;
    size_t rn = raw_values(c, v, fj, fw, &rj, &rw);
    bool failed;
    size_t n = finish_vertex(c, v, rj, rw, rn, vb, &failed);
    if (failed) {
      c->status[v] = SKC_TRANSFER_FAILED;
      rc = skc_skin_builder_push(b, ej, ew, en);
    } else {
      rc = skc_skin_builder_push(b, vb->j, vb->w, n);
    }
  }
  return rc;
}

/* Builds the new weights of the whole target into a new skin (*tmp, the caller destroys it). */
static int build_weights(tctx* c, size_t selected, skc_skin** tmp, skc_err* err) {
  const skc_skin* dst = c->dst;
  int rc = SKC_OK;
  skc_skin_builder b;
  memset(&b, 0, sizeof b);
  vbuf vb = {0};
  /* assemble the new skin */
  size_t deg = skc_wmax_degree(dst);
  size_t sdeg = skc_wmax_degree(c->p->src_skin);
  size_t cap = deg + 3 * sdeg + c->nj + 4;
  vb.j = malloc(cap * sizeof *vb.j);
  vb.w = malloc(cap * sizeof *vb.w);
  vb.tj = malloc(cap * sizeof *vb.tj);
  vb.tw = malloc(cap * sizeof *vb.tw);
  uint32_t* fj = malloc(cap * sizeof *fj);
  float* fw = malloc(cap * sizeof *fw);
  if (!vb.j || !vb.w || !vb.tj || !vb.tw || !fj || !fw ||
      (rc = skc_skin_builder_init(&b, c->nv, skc_skin_entries(dst) + 4 * selected, err))) {
    free(fj);
    free(fw);
    if (!rc) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "transfer: out of memory");
    goto done;
  }
  rc = push_vertices(c, &b, &vb, fj, fw);
  free(fj);
  free(fw);
  if (rc) {
    rc = skc_fail(err, rc, "transfer: building the weights failed (%s)", skc_status_string(rc));
    goto done;
  }
  if ((rc = skc_skin_create(c->nv, c->nj, tmp, err))) goto done;
  rc = skc_skin_builder_finish(&b, *tmp, err);
done:
  skc_skin_builder_free(&b);
  free(vb.j);
  free(vb.w);
  free(vb.tj);
  free(vb.tw);
  return rc;
}

/* Step 3: smooths the inpainted vertices' weights in tmp (the uniform Laplacian smoothing of weights_smooth.c). */
static int smooth_inpainted(const tctx* c, skc_skin* tmp, skc_err* err) {
  const skc_transfer_params* p = c->p;
  int rc = SKC_OK;
  const uint8_t* mask = c->status; /* reuse: 1 where inpainted */
  size_t inp = 0;
  uint8_t* sm = malloc(c->nv);
  if (!sm) return skc_fail(err, SKC_OUT_OF_MEMORY, "transfer: out of memory");
  for (size_t v = 0; v < c->nv; ++v) inp += (sm[v] = mask[v] == SKC_TRANSFER_INPAINTED);
  if (inp) {
    skc_wscope ssc = {sm, c->sc->locked};
    skc_smooth_params sp = {p->dst_pos,
                            p->dst_stride,
                            p->dst_tri,
                            p->dst_tri_count,
                            p->smooth_iterations,
                            p->smooth_factor,
                            0,
                            NULL,
                            0,
                            p->max_influences,
                            p->min_weight > 1e-6f ? p->min_weight : 1e-6f,
                            1e-5f};
    skc_wreport wr;
    memset(&wr, 0, sizeof wr);
    rc = skc_weights_smooth(tmp, &ssc, &sp, &wr, err);
  }
  free(sm);
  return rc;
}

/* Swaps the weight arrays of dst and tmp: dst gets the new weights, tmp the old ones (freed with it). */
static void commit(skc_skin* dst, skc_skin* tmp) {
  /* commit: swap the arrays into dst */
  skc_skin keep = *dst;
  dst->offsets = tmp->offsets;
  dst->joints = tmp->joints;
  dst->weights = tmp->weights;
  dst->capacity = tmp->capacity;
  tmp->offsets = keep.offsets;
  tmp->joints = keep.joints;
  tmp->weights = keep.weights;
  tmp->capacity = keep.capacity;
}

/* The per-status counts, the statuses and the threshold used, into st. */
static void fill_stats(const tctx* c, size_t selected, float thr, skc_transfer_stats* st) {
  st->selected = selected;
  st->matched = st->inpainted = st->fallback = st->failed = st->fallback_components = 0;
  for (size_t v = 0; v < c->nv; ++v) {
    switch (c->status[v]) {
      case SKC_TRANSFER_MATCHED:
        ++st->matched;
        break;
      case SKC_TRANSFER_INPAINTED:
        ++st->inpainted;
        break;
      case SKC_TRANSFER_FALLBACK:
        ++st->fallback;
        break;
      case SKC_TRANSFER_FAILED:
        ++st->failed;
        break;
      default:
        break;
    }
  }
  if (st->vertex_status) memcpy(st->vertex_status, c->status, c->nv);
  st->dist_threshold_used = thr;
}

/* Counts the connected parts of the target holding a fallback vertex (st->fallback_components); left 0 when out of
 * memory. */
static void count_fallback_parts(const tctx* c, skc_transfer_stats* st) {
  const skc_transfer_params* p = c->p;
  size_t nv = c->nv;
  /* parts without a fixed vertex: count components holding a fallback vertex */
  skc_adjacency adj;
  if (!st->fallback || skc_adjacency_build(&adj, nv, p->dst_tri, p->dst_tri_count, NULL) != SKC_OK) return;
  uint8_t* seen = calloc(nv, 1);
  uint32_t* queue = malloc(nv * sizeof *queue);
  if (seen && queue)
    for (size_t s = 0; s < nv; ++s) {
      if (seen[s] || c->status[s] != SKC_TRANSFER_FALLBACK) continue;
      ++st->fallback_components;
      size_t head = 0, tail = 0;
      queue[tail++] = (uint32_t)s;
      seen[s] = 1;
      while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = adj.offsets[v]; e < adj.offsets[v + 1]; ++e)
          if (!seen[adj.neighbors[e]]) {
            seen[adj.neighbors[e]] = 1;
            queue[tail++] = adj.neighbors[e];
          }
      }
    }
  free(seen);
  free(queue);
  skc_adjacency_free(&adj);
}

int skc_weights_transfer(skc_skin* dst, const skc_wscope* sc, const skc_transfer_params* p, skc_transfer_stats* st,
                         skc_err* err) {
  double t0 = now_ms();
  size_t selected = 0;
  int rc = check_transfer(dst, sc, p, &selected, err);
  if (rc) return rc;
  tctx c;
  skc_tri_bvh bvh;
  memset(&bvh, 0, sizeof bvh);
  skc_skin* tmp = NULL;
  float thr = 0.0f;
  if ((rc = tctx_start(&c, dst, sc, p, err))) goto done;
  thr = distance_threshold(p);
  if ((rc = skc_tri_bvh_build(&bvh, p->src_pos, p->src_stride, p->src_tri, p->src_tri_count, err))) goto done;
  if ((rc = match(&c, &bvh, thr, err))) goto done;
  {
    int blas = skc_blas_serial_begin();
    rc = inpaint(&c, err);
    skc_blas_serial_end(blas);
  }
  if (rc) goto done;
  if ((rc = build_weights(&c, selected, &tmp, err))) goto done;
  if (p->smooth_iterations && (rc = smooth_inpainted(&c, tmp, err))) goto done;
  commit(dst, tmp);
  if (st) {
    fill_stats(&c, selected, thr, st);
    count_fallback_parts(&c, st);
    st->milliseconds = now_ms() - t0;
  }
done:
  skc_skin_destroy(tmp);
  skc_tri_bvh_free(&bvh);
  tctx_free(&c);
  return rc;
}
