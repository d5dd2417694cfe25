/* bind_heat.c - bone heat binding (Baran & Popovic, "Automatic Rigging and Animation of 3D Characters", 2007).
 *
 * For every bone j solve (-L + A H) w_j = A H p_j, where L is the cotangent Laplacian (0.5 (cot a + cot b) per
 * edge), A the barycentric vertex area (one third of the incident triangle areas), H_i = 4 c k / d_i^2 with d_i the
 * distance to the nearest bone whose closest point the vertex sees (the segment vertex -> bone point crosses no
 * triangle; BVH in bvh.c) and k the number of visible bones within a factor 1.0001 of it, which share
 * p_ij = 1 / k. As in Blender (meshlaplacian.c), distances are surface-aware: the distance to a bone is divided
 * by (1.001 + cos) / 2, cos between the vertex normal and the direction from the bone's closest point to the
 * vertex, so a bone the surface faces (in front of it: outside the body) counts as far, one behind it (inside) as
 * near; and the factor 4 keeps Blender's balance of heat against diffusion (its Laplacian is 1/4 of ours). Bones
 * that only place the skeleton - head outside the mesh, most of the segment outside, tail inside (a root at the
 * ground reaching up into the hips) - emit no heat while another bone does. Multiplying the Laplacian form by A
 * makes the system symmetric positive definite on every connected component with a visible bone and
 * scale-invariant (A H is dimensionless). One sparse Cholesky factorization (CHOLMOD: AMD order and simplicial up
 * to 100k rows, CHOLMOD's own choice above) serves every bone; the right-hand sides are solved in two halves on two
 * threads. Vertices at identical positions are welded for the Laplacian (hash of the exact coordinates), so UV
 * seams and split caps do not split the heat. A component that no bone sees is weighted by nearest bone instead:
 * rigidly by its centroid when it is small (under 5% of the mesh size: buttons, eyes), per vertex (blended)
 * otherwise; vertices the heat leaves empty also get per-vertex nearest weights.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_chol.h"
#include "skc_bind.h"

#define HEAT_TIES 4           /* bones sharing the heat of one vertex */
#define HEAT_VIS_TESTS 64     /* nearest bones tested for visibility per vertex */
#define HEAT_CHUNK 16         /* right-hand sides solved at once (per thread) */
#define HEAT_SIMPLICIAL_ROWS 100000 /* systems up to this size: AMD + simplicial factorization */
#define HEAT_FADE_START 0.05  /* heat weights below this fade linearly ... */
#define HEAT_FADE_END 0.025   /* ... to 0 here */
/* Blender's Laplacian is 1/4 of the cotangent one with vertex areas (cot weights over 4x the Voronoi area), so its
 * c = 1 balances heat against diffusion 4 times more strongly than H = c / d^2 would with ours: keep its balance */
#define HEAT_BLENDER_SCALE 4.0

static uint32_t uf_find(uint32_t* parent, uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

typedef struct heat_ctx {
  const skc_bind_desc* d;
  size_t n;
  uint32_t* rep;       /* n: representative (lowest index at the same position) */
  uint32_t* tri;       /* 3 * triangle_count, corners remapped to representatives */
  uint8_t* tri_ok;     /* non-degenerate after welding */
  double* area;        /* n (representatives only) */
  uint32_t* comp;      /* n: component root (representatives only) */
  double* h;           /* n: heat H_i (0 = no visible bone) */
  uint32_t* hbone;     /* n * HEAT_TIES */
  uint8_t* hcount;     /* n */
  int32_t* sidx;       /* n: row in the system or -1 */
  uint8_t* source;     /* joint_count: active joint that emits heat */
  float* nrm;          /* 3 n: unit vertex normals (representatives; sum of the unit face normals) */
} heat_ctx;

static void ctx_free(heat_ctx* c) {
  free(c->rep);
  free(c->tri);
  free(c->tri_ok);
  free(c->area);
  free(c->comp);
  free(c->h);
  free(c->hbone);
  free(c->hcount);
  free(c->sidx);
  free(c->source);
  free(c->nrm);
}

static uint32_t pos_bits(float x) {
  uint32_t u;
  if (x == 0.0f) x = 0.0f; /* -0 and +0 are the same position */
  memcpy(&u, &x, sizeof u);
  return u;
}

/* rep[v] = the lowest index at v's exact position: one pass over an open-addressing hash table of the bit
 * patterns (positions are finite). */
static int weld(heat_ctx* c) {
  const skc_bind_desc* d = c->d;
  for (size_t v = 0; v < c->n; ++v) c->rep[v] = (uint32_t)v;
  if (d->no_weld) return SKC_OK;
  size_t cap = 16;
  while (cap < 2 * c->n) cap *= 2;
  uint32_t* table = malloc(cap * sizeof *table);
  if (!table) return SKC_OUT_OF_MEMORY;
  memset(table, 0xff, cap * sizeof *table);
  const float* p = d->positions;
  for (size_t v = 0; v < c->n; ++v) {
    uint32_t x = pos_bits(p[3 * v]), y = pos_bits(p[3 * v + 1]), z = pos_bits(p[3 * v + 2]);
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)z * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
      uint32_t o = table[i];
      if (o == UINT32_MAX) {
        table[i] = (uint32_t)v;
        break;
      }
      if (pos_bits(p[3 * (size_t)o]) == x && pos_bits(p[3 * (size_t)o + 1]) == y &&
          pos_bits(p[3 * (size_t)o + 2]) == z) {
        c->rep[v] = o;
        break;
      }
    }
  }
  free(table);
  return SKC_OK;
}

/* Areas, components (over non-degenerate welded triangles). */
static void geometry(heat_ctx* c) {
  const skc_bind_desc* d = c->d;
  for (size_t v = 0; v < c->n; ++v) {
    c->area[v] = 0.0;
    c->comp[v] = (uint32_t)v;
    c->nrm[3 * v] = c->nrm[3 * v + 1] = c->nrm[3 * v + 2] = 0.0f;
  }
  for (size_t t = 0; t < d->triangle_count; ++t) {
    uint32_t* tv = c->tri + 3 * t;
    for (int k = 0; k < 3; ++k) tv[k] = c->rep[d->triangles[3 * t + k]];
    c->tri_ok[t] = 0;
    if (tv[0] == tv[1] || tv[1] == tv[2] || tv[0] == tv[2]) continue;
    const float* a = d->positions + 3 * (size_t)tv[0];
    const float* b = d->positions + 3 * (size_t)tv[1];
    const float* e = d->positions + 3 * (size_t)tv[2];
    double u[3], w[3], x[3], emax = 0.0;
    for (int k = 0; k < 3; ++k) {
      u[k] = (double)b[k] - a[k];
      w[k] = (double)e[k] - a[k];
      x[k] = (double)e[k] - b[k];
    }
    double lu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], lw = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    double lx = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    emax = lu > lw ? lu : lw;
    emax = emax > lx ? emax : lx;
    double cr[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    double dbl_area = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    if (!(dbl_area > 1e-9 * emax)) continue; /* needle or sliver: cotangents would blow up */
    c->tri_ok[t] = 1;
    for (int k = 0; k < 3; ++k) {
      c->area[tv[k]] += dbl_area / 6.0;
      for (int q = 0; q < 3; ++q) c->nrm[3 * (size_t)tv[k] + q] += (float)(cr[q] / dbl_area);
    }
    uint32_t r0 = uf_find(c->comp, tv[0]);
    for (int k = 1; k < 3; ++k) {
      uint32_t r = uf_find(c->comp, tv[k]);
      if (r != r0) {
        if (r < r0) {
          uint32_t tmp = r;
          r = r0;
          r0 = tmp;
        }
        c->comp[r] = r0;
      }
    }
  }
  for (size_t v = 0; v < c->n; ++v) {
    c->comp[v] = uf_find(c->comp, (uint32_t)v);
    float* nv = c->nrm + 3 * v;
    double len = sqrt((double)nv[0] * nv[0] + (double)nv[1] * nv[1] + (double)nv[2] * nv[2]);
    for (int q = 0; q < 3; ++q) nv[q] = len > 0.0 ? (float)(nv[q] / len) : 0.0f;
  }
}


/* Inside test by ray parity: the majority of three rays (fixed, non-axial directions) to beyond the mesh. */
static int point_inside(const skc_bvh* bvh, const double p[3], double reach) {
  static const double dirs[3][3] = {{0.5773, 0.5774, 0.5774}, {-0.6247, 0.2182, 0.7497}, {0.1387, -0.8321, -0.5373}};
  int votes = 0;
  for (int r = 0; r < 3; ++r) {
    double q[3] = {p[0] + reach * dirs[r][0], p[1] + reach * dirs[r][1], p[2] + reach * dirs[r][2]};
    votes += (int)(skc_bvh_segment_count(bvh, p, q) & 1u);
  }
  return votes >= 2;
}

/* Heat sources: every active joint, but a placement bone - its head outside the mesh and most of its segment
 * too (a root at the ground reaching up into the hips) - emits no heat when another bone does: artists never
 * weight such bones, and their segment crossing the body would steal the weight of the bones inside. */
static void heat_sources(heat_ctx* c, const skc_bvh* bvh) {
  const skc_bind_desc* d = c->d;
  uint32_t nb = d->joint_count, inside_any = 0;
  double reach = 4.0 * skc_bind_bbox_diag(d->positions, c->n);
  for (uint32_t j = 0; j < nb; ++j) c->source[j] = (uint8_t)skc_bind_joint_active(d, j);
  if (!(reach > 0.0)) return;
  uint8_t* placement = calloc(nb, 1);
  if (!placement) return; /* every active joint stays a source */
  for (uint32_t j = 0; j < nb; ++j) {
    if (!c->source[j]) continue;
    int samples = 0, in = 0, tail_in = 0;
    for (int i = 0; i <= 8; ++i) {
      double t = i / 8.0, p[3];
      for (int k = 0; k < 3; ++k) {
        double h = d->heads[3 * j + k];
        p[k] = h + t * ((double)d->tails[3 * j + k] - h);
      }
      int inside = point_inside(bvh, p, reach);
      if (i == 0 && inside) break; /* head inside: a source */
      in += inside;
      tail_in = inside;
      ++samples;
    }
    if (samples > 0 && tail_in && 2 * in < samples) placement[j] = 1;
    else ++inside_any;
  }
  for (uint32_t j = 0; j < nb && inside_any; ++j)
    if (placement[j]) c->source[j] = 0;
  free(placement);
}

/* Nearest visible bone(s) of every representative vertex with area. */
static int visibility(heat_ctx* c, const skc_bvh* bvh, double dclamp) {
  const skc_bind_desc* d = c->d;
  uint32_t nb = d->joint_count;
  int failed = 0;
  const long long n = (long long)c->n;
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel
#endif
  {
    double* dist = malloc(nb * sizeof *dist);
    uint32_t* order = malloc((HEAT_VIS_TESTS + 1) * sizeof *order);
    if (!dist || !order) {
#if defined(SK_HAVE_OPENMP)
#pragma omp atomic write
#endif
      failed = 1;
    }
#if defined(SK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 256)
#endif
    for (long long vi = 0; vi < n; ++vi) {
      size_t v = (size_t)vi;
      c->h[v] = 0.0;
      c->hcount[v] = 0;
      if (!dist || !order || c->rep[v] != v || !(c->area[v] > 0.0)) continue;
      double p[3] = {d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]};
      /* the HEAT_VIS_TESTS nearest active bones, ascending (insertion into a short sorted list) */
      uint32_t m = 0;
      for (uint32_t j = 0; j < nb; ++j) {
        dist[j] = INFINITY;
        if (!c->source[j]) continue;
        double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
        double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]};
        double t;
        dist[j] = sqrt(skc_seg_dist2(p, a, b, &t));
        if (dist[j] > 0.0) { /* a bone the surface faces away from counts as farther (as Blender does) */
          const float* nv = c->nrm + 3 * v;
          double cosine = 0.0;
          for (int k = 0; k < 3; ++k) cosine += (p[k] - (a[k] + t * (b[k] - a[k]))) * nv[k];
          dist[j] /= 0.5 * (cosine / dist[j] + 1.001);
        }
        if (m == HEAT_VIS_TESTS && dist[j] >= dist[order[m - 1]]) continue;
        uint32_t i = m < HEAT_VIS_TESTS ? m++ : m - 1;
        while (i > 0 && dist[order[i - 1]] > dist[j]) {
          order[i] = order[i - 1];
          --i;
        }
        order[i] = j;
      }
      double dmin = -1.0;
      for (uint32_t i = 0; i < m; ++i) {
        uint32_t j = order[i];
        if (dmin >= 0.0 && dist[j] > dmin * 1.0001) break;
        double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
        double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]}, t;
        skc_seg_dist2(p, a, b, &t);
        double q[3] = {a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])};
        if (skc_bvh_segment_hits(bvh, p, q, (uint32_t)v, 1e-5)) continue;
        if (dmin < 0.0) dmin = dist[j];
        if (c->hcount[v] < HEAT_TIES) c->hbone[v * HEAT_TIES + c->hcount[v]++] = j;
      }
      if (c->hcount[v]) {
        double dd = dmin > dclamp ? dmin : dclamp;
        c->h[v] = HEAT_BLENDER_SCALE * (double)d->heat_scale * c->hcount[v] / (dd * dd);
      }
    }
    free(dist);
    free(order);
  }
  return failed ? SKC_OUT_OF_MEMORY : SKC_OK;
}

static double cot(const float* a, const float* b, const float* e) { /* cotangent of the angle at a */
  double u[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = (double)b[k] - a[k];
    w[k] = (double)e[k] - a[k];
  }
  double dot = u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
  double cr[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
  return dot / sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
}

/* Assembles and factors -L + A H over the system rows; clamp = 1 uses max(cot, 0). Returns NULL if not SPD. */
static cholmod_factor* factor(heat_ctx* c, int32_t m, int clamp, cholmod_sparse** out_a, cholmod_common* cm,
                              int* oom) {
  const skc_bind_desc* d = c->d;
  size_t nz = (size_t)m;
  for (size_t t = 0; t < d->triangle_count; ++t)
    if (c->tri_ok[t] && c->sidx[c->tri[3 * t]] >= 0) nz += 9;
  if (nz > (size_t)INT_MAX) { /* beyond the 32-bit CHOLMOD interface */
    *oom = 1;
    return NULL;
  }
  cholmod_triplet* T = cholmod_allocate_triplet((size_t)m, (size_t)m, nz, -1, CHOLMOD_REAL, cm);
  if (!T) {
    *oom = 1;
    return NULL;
  }
  int* ti = T->i;
  int* tj = T->j;
  double* tx = T->x;
  size_t k = 0;
  for (size_t v = 0; v < c->n; ++v)
    if (c->sidx[v] >= 0) {
      ti[k] = tj[k] = c->sidx[v];
      tx[k++] = c->area[v] * c->h[v];
    }
  for (size_t t = 0; t < d->triangle_count; ++t) {
    const uint32_t* tv = c->tri + 3 * t;
    if (!c->tri_ok[t] || c->sidx[tv[0]] < 0) continue;
    for (int e = 0; e < 3; ++e) {
      uint32_t a = tv[e], b = tv[(e + 1) % 3], o = tv[(e + 2) % 3];
      double w = 0.5 * cot(d->positions + 3 * (size_t)o, d->positions + 3 * (size_t)a, d->positions + 3 * (size_t)b);
      if (clamp && w < 0.0) w = 0.0;
      int ia = c->sidx[a], ib = c->sidx[b];
      ti[k] = tj[k] = ia;
      tx[k++] = w;
      ti[k] = tj[k] = ib;
      tx[k++] = w;
      ti[k] = ia > ib ? ia : ib;
      tj[k] = ia > ib ? ib : ia;
      tx[k++] = -w;
    }
  }
  T->nnz = k;
  return skc_chol_factor_triplet(&T, k, cm, out_a, oom);
}

/* Solves every heated bone, chunk by chunk, and offers the weights of the system rows. */
static int solve(heat_ctx* c, int32_t m, cholmod_factor* L, cholmod_common* cm, skc_bind_cands* out) {
  const skc_bind_desc* d = c->d;
  uint32_t nb = d->joint_count;
  uint8_t* heated = calloc(nb, 1);
  uint32_t* bones = malloc(nb * sizeof *bones);
  int32_t* row_v = malloc((size_t)m * sizeof *row_v);
  if (!heated || !bones || !row_v) {
    free(heated);
    free(bones);
    free(row_v);
    return SKC_OUT_OF_MEMORY;
  }
  for (size_t v = 0; v < c->n; ++v)
    if (c->sidx[v] >= 0) {
      row_v[c->sidx[v]] = (int32_t)v;
      for (uint32_t i = 0; i < c->hcount[v]; ++i) heated[c->hbone[v * HEAT_TIES + i]] = 1;
    }
  uint32_t nh = 0;
  for (uint32_t j = 0; j < nb; ++j)
    if (heated[j]) bones[nh++] = j;
  /* Groups of up to 2 HEAT_CHUNK bones: each half is solved by its own thread with its own CHOLMOD workspace
   * (the factor is only read), then the rows (one vertex each) take their candidates in parallel. */
  cholmod_common own;
  cholmod_start(&own);
  own.print = 0;
  own.error_handler = NULL;
  cholmod_common* cms[2] = {cm, &own};
  int rc = SKC_OK;
  for (uint32_t g0 = 0; g0 < nh && !rc; g0 += 2 * HEAT_CHUNK) {
    uint32_t gcols = nh - g0 < 2 * HEAT_CHUNK ? nh - g0 : 2 * HEAT_CHUNK;
    uint32_t half = (gcols + 1) / 2;
    cholmod_dense* X[2] = {NULL, NULL};
    int part_rc[2] = {SKC_OK, SKC_OK};
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for num_threads(2) schedule(static, 1) if (gcols > 1 && m > 4096)
#endif
    for (int h = 0; h < 2; ++h) {
      uint32_t q0 = h ? half : 0, cols = h ? gcols - half : half;
      if (!cols) continue;
      cholmod_common* cc = cms[h];
      cholmod_dense* B = cholmod_zeros((size_t)m, cols, CHOLMOD_REAL, cc);
      if (!B) {
        part_rc[h] = SKC_OUT_OF_MEMORY;
        continue;
      }
      double* bx = B->x;
      size_t ld = B->d;
      for (int32_t r = 0; r < m; ++r) {
        size_t v = (size_t)row_v[r];
        uint32_t hc = c->hcount[v];
        for (uint32_t i = 0; i < hc; ++i) {
          uint32_t j = c->hbone[v * HEAT_TIES + i];
          for (uint32_t q = 0; q < cols; ++q)
            if (bones[g0 + q0 + q] == j) bx[q * ld + (size_t)r] = c->area[v] * c->h[v] / hc;
        }
      }
      X[h] = cholmod_solve(CHOLMOD_A, L, B, cc);
      cholmod_free_dense(&B, cc);
      if (!X[h]) part_rc[h] = cc->status == CHOLMOD_OUT_OF_MEMORY ? SKC_OUT_OF_MEMORY : SKC_NO_SOLUTION;
    }
    rc = part_rc[0] ? part_rc[0] : part_rc[1];
    if (!rc) {
      const long long rows = m;
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 2048) if (m > 4096)
#endif
      for (long long ri = 0; ri < rows; ++ri) {
        size_t r = (size_t)ri;
        for (uint32_t q = 0; q < gcols; ++q) {
          const cholmod_dense* x = X[q < half ? 0 : 1];
          double w = ((const double*)x->x)[(q < half ? q : q - half) * x->d + r];
          /* heat leaks a few percent along the whole mesh: fade it out between HEAT_FADE_END and
           * HEAT_FADE_START (continuous, so weights stay smooth), which keeps far bones off a vertex */
          if (w < HEAT_FADE_END) continue;
          if (w < HEAT_FADE_START) w = (w - HEAT_FADE_END) * HEAT_FADE_START / (HEAT_FADE_START - HEAT_FADE_END);
          skc_bind_cands_offer(out, (size_t)row_v[r], bones[g0 + q], (float)(w < 1.0 ? w : 1.0));
        }
      }
    }
    cholmod_free_dense(&X[0], cm);
    cholmod_free_dense(&X[1], &own);
  }
  cholmod_finish(&own);
  free(heated);
  free(bones);
  free(row_v);
  return rc;
}

static int nearest_fallback(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* rep, skc_err* err) {
  uint8_t* need = malloc(d->vertex_count);
  if (!need) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory");
  uint64_t count = 0;
  for (size_t v = 0; v < d->vertex_count; ++v) {
    need[v] = out->count[v] == 0 && (!d->vertex_mask || d->vertex_mask[v]);
    count += need[v];
  }
  int rc = count ? skc_bind_nearest(d, need, out, err) : SKC_OK;
  free(need);
  if (rep) rep->fallback_vertices += count;
  return rc;
}

/* Cold components (no bone sees them) smaller than 5% of the mesh (buttons, eyes, studs) move rigidly: every
 * vertex takes the nearest-bone weights of the part's centroid, so the part is not sheared between bones. */
static int rigid_small_parts(heat_ctx* c, const uint8_t* comp_heated, skc_bind_cands* out, skc_bind_report* rep,
                             skc_err* err) {
  const skc_bind_desc* d = c->d;
  size_t n = c->n, parts = 0;
  uint32_t* slot = malloc(n * sizeof *slot);
  if (!slot) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory");
  for (size_t v = 0; v < n; ++v) {
    slot[v] = UINT32_MAX;
    if (c->rep[v] == v && c->comp[v] == v && !comp_heated[v]) slot[v] = (uint32_t)parts++;
  }
  if (!parts) {
    free(slot);
    return SKC_OK;
  }
  double* acc = malloc(parts * 10 * sizeof *acc); /* sum xyz, count, lo xyz, hi xyz */
  float* cen = malloc(parts * 3 * sizeof *cen);
  uint8_t* small = malloc(parts);
  skc_bind_cands pc;
  memset(&pc, 0, sizeof pc);
  int rc = (!acc || !cen || !small) ? skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory")
                                    : skc_bind_cands_init(&pc, parts, out->stride, err);
  if (!rc) {
    for (size_t k = 0; k < parts; ++k)
      for (int q = 0; q < 10; ++q) acc[10 * k + q] = q < 4 ? 0.0 : (q < 7 ? INFINITY : -INFINITY);
    for (size_t v = 0; v < n; ++v) {
      if (c->rep[v] != v) continue;
      uint32_t k = slot[c->comp[v]];
      if (k == UINT32_MAX) continue;
      double* a = acc + 10 * (size_t)k;
      for (int q = 0; q < 3; ++q) {
        double x = d->positions[3 * v + q];
        a[q] += x;
        if (x < a[4 + q]) a[4 + q] = x;
        if (x > a[7 + q]) a[7 + q] = x;
      }
      a[3] += 1.0;
    }
    double limit = 0.05 * skc_bind_bbox_diag(d->positions, n);
    for (size_t k = 0; k < parts; ++k) {
      const double* a = acc + 10 * k;
      double diag2 = 0.0;
      for (int q = 0; q < 3; ++q) {
        cen[3 * k + q] = (float)(a[q] / a[3]);
        diag2 += (a[7 + q] - a[4 + q]) * (a[7 + q] - a[4 + q]);
      }
      small[k] = sqrt(diag2) <= limit;
    }
    skc_bind_desc pd = *d;
    pd.positions = cen;
    pd.vertex_count = parts;
    pd.vertex_mask = NULL;
    rc = skc_bind_nearest(&pd, small, &pc, err);
  }
  if (!rc) {
    uint64_t count = 0;
    uint32_t s = out->stride;
    for (size_t v = 0; v < n; ++v) {
      uint32_t r = c->rep[v], k = slot[c->comp[r]];
      if (k == UINT32_MAX || !small[k]) continue;
      count += !d->vertex_mask || d->vertex_mask[v];
      if (r != v) continue; /* duplicates copy their representative later */
      out->count[v] = pc.count[k];
      memcpy(out->joints + v * s, pc.joints + (size_t)k * s, pc.count[k] * sizeof *out->joints);
      memcpy(out->weights + v * s, pc.weights + (size_t)k * s, pc.count[k] * sizeof *out->weights);
    }
    if (rep) rep->fallback_vertices += count;
  }
  skc_bind_cands_free(&pc);
  free(slot);
  free(acc);
  free(cen);
  free(small);
  return rc;
}

int skc_bind_heat(const skc_bind_desc* d, int strict, skc_bind_cands* out, skc_bind_report* rep, skc_err* err) {
  if (rep) rep->method_used = SKC_BIND_HEAT;
  for (size_t v = 0; v < d->vertex_count; ++v) out->count[v] = 0;
  if (d->triangle_count == 0) { /* point cloud: nothing to diffuse over */
    if (rep) {
      rep->method_used = SKC_BIND_NEAREST;
      rep->components = d->vertex_count;
      rep->fallback_components = d->vertex_count;
    }
    return nearest_fallback(d, out, rep, err);
  }
  if (d->vertex_count > (size_t)INT_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bind: heat supports at most %d vertices", INT_MAX);
  heat_ctx c;
  memset(&c, 0, sizeof c);
  c.d = d;
  c.n = d->vertex_count;
  size_t n = c.n, nt = d->triangle_count;
  c.rep = malloc(n * sizeof *c.rep);
  c.tri = malloc(3 * nt * sizeof *c.tri);
  c.tri_ok = malloc(nt);
  c.area = malloc(n * sizeof *c.area);
  c.comp = malloc(n * sizeof *c.comp);
  c.h = malloc(n * sizeof *c.h);
  c.hbone = malloc(n * HEAT_TIES * sizeof *c.hbone);
  c.hcount = malloc(n);
  c.sidx = malloc(n * sizeof *c.sidx);
  c.source = malloc(d->joint_count);
  c.nrm = malloc(3 * n * sizeof *c.nrm);
  if (!c.rep || !c.tri || !c.tri_ok || !c.area || !c.comp || !c.h || !c.hbone || !c.hcount || !c.sidx || !c.source ||
      !c.nrm ||
      weld(&c)) {
    ctx_free(&c);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory for heat on %zu vertices", n);
  }
  geometry(&c);
  skc_bvh* bvh = NULL;
  int rc = skc_bvh_build(d->positions, c.tri, nt, &bvh, err);
  if (rc) {
    ctx_free(&c);
    return rc;
  }
  heat_sources(&c, bvh);
  double dclamp = 1e-4 * skc_bind_bbox_diag(d->positions, n);
  rc = visibility(&c, bvh, dclamp > 0.0 ? dclamp : 1e-30);
  skc_bvh_destroy(bvh);
  if (rc) {
    ctx_free(&c);
    return skc_fail(err, rc, "bind: out of memory in the visibility pass");
  }
  /* components: heated ones enter the system, the others fall back */
  uint8_t* comp_heated = calloc(n, 1);
  if (!comp_heated) {
    ctx_free(&c);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory");
  }
  uint64_t comps = 0, cold = 0;
  for (size_t v = 0; v < n; ++v)
    if (c.rep[v] == v && c.h[v] > 0.0) comp_heated[c.comp[v]] = 1;
  int32_t m = 0;
  for (size_t v = 0; v < n; ++v) {
    c.sidx[v] = -1;
    if (c.rep[v] != v) continue;
    if (c.comp[v] == v) {
      ++comps;
      cold += !comp_heated[v];
    }
    if (comp_heated[c.comp[v]] && c.area[v] > 0.0) c.sidx[v] = m++;
  }
  if (rep) {
    rep->components = comps;
    rep->fallback_components = cold;
  }
  if (m > 0) {
    cholmod_common cm;
    cholmod_start(&cm);
    cm.print = 0;
    cm.error_handler = NULL;
    /* Up to HEAT_SIMPLICIAL_ROWS rows: AMD order and a simplicial LDL' (the fill of a surface mesh stays low there,
     * the supernodal BLAS path and a METIS trial only cost time: 67k rows, CesiumMan_subdiv2, ~30% less CPU).
     * Above, CHOLMOD's own choice (AMD or METIS, supernodal once the fill grows: 2x faster at 200k rows). */
    if (m <= HEAT_SIMPLICIAL_ROWS) {
      cm.nmethods = 1;
      cm.method[0].ordering = CHOLMOD_AMD;
      cm.supernodal = CHOLMOD_SIMPLICIAL;
    }
    cholmod_sparse* A = NULL;
    int oom = 0;
    cholmod_factor* L = factor(&c, m, 0, &A, &cm, &oom);
    if (!L && !oom && !strict) L = factor(&c, m, 1, &A, &cm, &oom);
    if (!L) {
      rc = oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory factoring the heat system")
               : skc_fail(err, SKC_NO_SOLUTION,
                          "bind: the heat system is not positive definite (degenerate mesh); use the robust method");
    } else {
      rc = solve(&c, m, L, &cm, out);
      if (rc) rc = skc_fail(err, rc, "bind: solving the heat system failed (%s)", skc_status_string(rc));
      cholmod_free_factor(&L, &cm);
      cholmod_free_sparse(&A, &cm);
    }
    cholmod_finish(&cm);
    if (rc && !strict && rc != SKC_OUT_OF_MEMORY) { /* robust: nearest for everything */
      for (size_t v = 0; v < n; ++v) out->count[v] = 0;
      skc_err_clear(err);
      rc = SKC_OK;
      if (rep) rep->method_used = SKC_BIND_NEAREST;
    }
  }
  if (!rc) rc = rigid_small_parts(&c, comp_heated, out, rep, err);
  free(comp_heated);
  if (!rc) { /* duplicates take their representative's weights */
    uint32_t s = out->stride;
    for (size_t v = 0; v < n; ++v) {
      uint32_t r = c.rep[v];
      if (r == v) continue;
      out->count[v] = out->count[r];
      memcpy(out->joints + v * s, out->joints + (size_t)r * s, out->count[r] * sizeof *out->joints);
      memcpy(out->weights + v * s, out->weights + (size_t)r * s, out->count[r] * sizeof *out->weights);
    }
  }
  ctx_free(&c);
  if (rc) return rc;
  return nearest_fallback(d, out, rep, err);
}
