/* bind_heat.c - bone heat binding (Baran & Popovic, "Automatic Rigging and Animation of 3D Characters", 2007).
 *
 * For every bone j solve (-L + A H) w_j = A H p_j, where L is the cotangent Laplacian (0.5 (cot a + cot b) per
 * edge), A the barycentric vertex area (one third of the incident triangle areas). Heat sources follow Blender's
 * rule (meshlaplacian.c heat_set_H, heat_source_closest): d_i is the minimum distance over ALL bones, the candidates
 * are the bones within a factor 1.0001 of it, and of those the k whose closest point the vertex sees (the segment
 * vertex -> bone point enters no triangle from its front side; BVH in bvh.c) share p_ij = 1 / k, H_i = 4 c k / d_i^2.
 * A vertex whose nearest bone(s) it cannot see gets H_i = 0 - no farther bone stands in (a tooth's far side is not
 * handed to the neck, a skirt to the feet seen through its hem): the diffusion fills it from its neighbours (robust
 * lets its nearest visible bone within HEAT_WINDOW = 1.5 x d_i stand in: window_heat). As in Blender, leaving a
 * closed part from inside does not hide a bone (a tooth sees the head bone through its own back), and distances are
 * surface-aware: the distance to a bone is divided by (1.001 + cos) / 2, cos between the vertex normal and the
 * direction from the bone's closest point to the vertex, so a bone the surface faces (in front of it: outside the
 * body) counts as far, one behind it (inside) as near; and the factor 4 keeps Blender's balance of heat against
 * diffusion (its Laplacian is 1/4 of ours). Bones that only place the skeleton - head outside the mesh, most of the
 * segment outside, tail inside (a root at the ground reaching up into the hips) - emit no heat while another bone
 * does. Multiplying the Laplacian form by A makes the system symmetric positive definite on every connected
 * component with a visible bone and scale-invariant (A H is dimensionless). One sparse Cholesky factorization
 * (CHOLMOD, AMD order; supernodal when it does more than HEAT_SUPERNODAL_SWITCH flops per entry of the factor,
 * simplicial below) serves every bone; the matrix is assembled in compressed columns straight from the triangles,
 * and its ordering and symbolic analysis run on one core while the BVH is built on the other (the pattern does not
 * depend on the heat); the right-hand sides are solved in two halves on two threads. Copies of a vertex (closer
 * than the rounding or a gap in the mesh's own pairs, skc_bind_weld_surfaces) are welded for the Laplacian, so UV seams
 * and split caps do not split the heat. A component that no bone sees is weighted by nearest bone instead: rigidly by
 * its centroid when it is small (under 5% of the mesh size: buttons, eyes), per vertex otherwise; vertices the heat
 * leaves empty also get per-vertex nearest weights (blended for robust, the one nearest bone for heat, as Blender).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_bind.h"
#include "skc_chol.h"
#include "skc_mem.h"
#include "skc_uf.h"

#if defined(SK_HAVE_OPENMP)
#include <omp.h>
#endif

#define HEAT_TIES 4           /* bones sharing the heat of one vertex */
#define HEAT_TIE 1.0001       /* Blender's 1 + DISTANCE_EPSILON: bones this close to the nearest share it */
#define HEAT_WINDOW 1.5       /* robust: a hidden vertex takes its nearest visible bone within this factor */
#define HEAT_VIS_TESTS 64     /* robust: bones of the window tested for visibility per hidden vertex */
#define HEAT_CHUNK 4          /* right-hand sides solved at once (per thread) */
#define HEAT_SUPERNODAL_SWITCH 100.0 /* flops per entry of L from which the factorization is supernodal */
#define HEAT_FADE_START 0.05  /* heat weights below this fade linearly ... */
#define HEAT_FADE_END 0.025   /* ... to 0 here */
/* Blender's Laplacian is 1/4 of the cotangent one with vertex areas (cot weights over 4x the Voronoi area), so its
 * c = 1 balances heat against diffusion 4 times more strongly than H = c / d^2 would with ours: keep its balance */
#define HEAT_BLENDER_SCALE 4.0

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
  double diag;         /* the positions' bounding-box diagonal */
  double window;       /* robust: HEAT_WINDOW (a hidden vertex's nearest visible bone); heat: 0 (Blender's rule) */
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

/* rep[v] = the copy v joins at its position, only where the surface was cut (skc_bind_weld_surfaces), or v itself
 * with no_weld. */
static int weld(heat_ctx* c) {
  if (c->d->no_weld) {
    for (size_t v = 0; v < c->n; ++v) c->rep[v] = (uint32_t)v;
    return SKC_OK;
  }
  return skc_bind_weld_surfaces(c->d->positions, c->n, c->d->triangles, c->d->triangle_count, c->rep);
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
    uint32_t r0 = skc_uf_find(c->comp, tv[0]);
    for (int k = 1; k < 3; ++k) {
      uint32_t r = skc_uf_find(c->comp, tv[k]);
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
    c->comp[v] = skc_uf_find(c->comp, (uint32_t)v);
    float* nv = c->nrm + 3 * v;
    double len = sqrt((double)nv[0] * nv[0] + (double)nv[1] * nv[1] + (double)nv[2] * nv[2]);
    for (int q = 0; q < 3; ++q) nv[q] = len > 0.0 ? (float)(nv[q] / len) : 0.0f;
  }
}


/* Inside test: the majority of three rays (fixed, non-axial directions) to beyond the mesh, each saying inside by
 * an odd crossing count or by a positive winding (it leaves more surfaces than it enters): a point inside two
 * overlapping closed parts (an arm inside its sleeve) crosses an even number of surfaces, leaving both. */
static int point_inside(const skc_bvh* bvh, const double p[3], double reach) {
  static const double dirs[3][3] = {{0.5773, 0.5774, 0.5774}, {-0.6247, 0.2182, 0.7497}, {0.1387, -0.8321, -0.5373}};
  int votes = 0;
  for (int r = 0; r < 3; ++r) {
    double q[3] = {p[0] + reach * dirs[r][0], p[1] + reach * dirs[r][1], p[2] + reach * dirs[r][2]};
    long winding = 0;
    size_t hits = skc_bvh_segment_count(bvh, p, q, &winding);
    votes += (hits & 1u) || winding > 0;
  }
  return votes >= 2;
}

/* Heat sources: every active joint, but a placement bone - its head outside the mesh and most of its segment
 * too (a root at the ground reaching up into the hips) - emits no heat when another bone does: artists never
 * weight such bones, and their segment crossing the body would steal the weight of the bones inside. */
static void heat_sources(heat_ctx* c, const skc_bvh* bvh) {
  const skc_bind_desc* d = c->d;
  uint32_t nb = d->joint_count, inside_any = 0;
  double reach = 4.0 * c->diag;
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

/* Vertex-bone queries below which the visibility pass runs on the calling thread alone. */
#define VISIBILITY_PARALLEL_MIN 10000

/* Blender's distance from p (unit vertex normal nv) to joint j's segment: the Euclidean distance divided by
 * (1.001 + cos) / 2, cos between nv and the direction from the segment's closest point (parameter *t) to p, so a
 * bone the surface faces away from (behind it: inside the body) counts as near, one in front of it as far. */
static double bone_distance(const skc_bind_desc* d, uint32_t j, const double p[3], const float* nv, double* t) {
  double a[3] = {d->heads[3 * j], d->heads[3 * j + 1], d->heads[3 * j + 2]};
  double b[3] = {d->tails[3 * j], d->tails[3 * j + 1], d->tails[3 * j + 2]};
  double dj = sqrt(skc_seg_dist2(p, a, b, t));
  if (!(dj > 0.0)) return dj;
  double cosine = 0.0;
  for (int k = 0; k < 3; ++k) cosine += (p[k] - (a[k] + *t * (b[k] - a[k]))) * nv[k];
  return dj / (0.5 * (cosine / dj + 1.001));
}

/* Whether v (at p) sees the point of joint j's segment at parameter t: the segment p -> point enters no triangle
 * from its front (Blender's one-sided test, skc_bvh_segment_enters). */
static int sees_bone(const heat_ctx* c, const skc_bvh* bvh, size_t v, const double p[3], uint32_t j, double t) {
  const skc_bind_desc* d = c->d;
  double q[3];
  for (int k = 0; k < 3; ++k) {
    double a = d->heads[3 * j + k];
    q[k] = a + t * ((double)d->tails[3 * j + k] - a);
  }
  return !skc_bvh_segment_enters(bvh, p, q, (uint32_t)v, 1e-5);
}

/* Robust, v sees none of its nearest bones: its nearest visible bone within c->window x dmin heats it, shared with
 * the visible bones within HEAT_TIE of that one's distance, which it returns (dmin when none: v stays cold). Not
 * Blender's rule: a body surface whose nearest bones a fold hides (Testwuson's chest underside behind the throat)
 * keeps a near bone it sees instead of the diffusion bringing a far one (Mouth). The window stays small, and heat
 * keeps Blender's rule: with a 2x window heat's open skirt went back to the feet and its belt to the chest.
 * bench_bind --quick, robust, mean / max % vs the artist, Blender's rule -> 1.5x (2x, 3x): Testwuson 0.720 / 14.39
 * -> 0.671 / 14.50 (0.668, 0.666), Clonk 0.495 / 4.71 -> 0.461 / 4.72 (0.468, 0.470), drone 0.315 -> 0.312 (0.313,
 * 0.317), the rest unchanged; the auditor's humanoid (teeth head 0.949, skirt thighs, belt hips / spine) unchanged
 * at 1.5x, at 2x hair takes neck 0.03 (0.004), at 3x the teeth neck 0.077 (0.051). dist is consumed (tested bones
 * set to INFINITY). */
static double window_heat(heat_ctx* c, const skc_bvh* bvh, size_t v, const double p[3], double dmin, double* dist,
                          const double* tpar) {
  uint32_t nb = c->d->joint_count;
  for (uint32_t tests = 0; tests < HEAT_VIS_TESTS; ++tests) {
    uint32_t jb = nb;
    double db = c->window * dmin;
    for (uint32_t j = 0; j < nb; ++j)
      if (dist[j] > dmin * HEAT_TIE && dist[j] <= db) db = dist[j], jb = j;
    if (jb == nb) break;
    dist[jb] = INFINITY; /* tested */
    if (!sees_bone(c, bvh, v, p, jb, tpar[jb])) continue;
    c->hbone[v * HEAT_TIES + c->hcount[v]++] = jb;
    for (uint32_t j = 0; j < nb && c->hcount[v] < HEAT_TIES; ++j)
      if (dist[j] <= db * HEAT_TIE && dist[j] > dmin * HEAT_TIE && sees_bone(c, bvh, v, p, j, tpar[j]))
        c->hbone[v * HEAT_TIES + c->hcount[v]++] = j;
    return db;
  }
  return dmin;
}

/* Heat of representative vertex v, Blender's rule (meshlaplacian.c heat_set_H, heat_source_closest): the
 * candidates are the sources within HEAT_TIE of the minimum distance over ALL sources; those whose closest point v
 * sees heat it, sharing it (p = 1 / k, H = 4 c k / dmin^2). Seeing is Blender's one-sided test: the segment
 * v -> point enters no triangle from its front (skc_bvh_segment_enters; leaving a closed part through its back does
 * not hide: a tooth's front sees the head bone behind it through the tooth; with a two-sided test an 8 mm tooth cube
 * in a humanoid's mouth got neck 0.31, with this one 0.045, Blender 0.036). When none of them is visible v gets no
 * heat of its own - it is not handed to a farther bone that it happens to see (a tooth's far side to the neck, a
 * skirt to the feet through its open hem, a belt to the chest): the diffusion fills it from its heated
 * neighbours, and a part with no heated vertex falls back (rigid_small_parts, nearest_fallback; robust: bind_body.c).
 * That is heat's rule (c->window 0); robust then tries its nearest visible bone within HEAT_WINDOW (window_heat).
 * dist, tpar: scratch of joint_count doubles. */
static void vertex_heat(heat_ctx* c, const skc_bvh* bvh, size_t v, double dclamp, double* dist, double* tpar) {
  const skc_bind_desc* d = c->d;
  uint32_t nb = d->joint_count;
  double p[3] = {d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]};
  double dmin = INFINITY;
  for (uint32_t j = 0; j < nb; ++j) {
    dist[j] = c->source[j] ? bone_distance(d, j, p, c->nrm + 3 * v, &tpar[j]) : INFINITY;
    if (dist[j] < dmin) dmin = dist[j];
  }
  if (!(dmin < INFINITY)) return;
  for (uint32_t j = 0; j < nb && c->hcount[v] < HEAT_TIES; ++j)
    if (dist[j] <= dmin * HEAT_TIE && sees_bone(c, bvh, v, p, j, tpar[j])) c->hbone[v * HEAT_TIES + c->hcount[v]++] = j;
  double dh = dmin;
  if (!c->hcount[v] && c->window > 0.0) dh = window_heat(c, bvh, v, p, dmin, dist, tpar);
  if (c->hcount[v]) {
    double dd = dh > dclamp ? dh : dclamp;
    c->h[v] = HEAT_BLENDER_SCALE * (double)d->heat_scale * c->hcount[v] / (dd * dd);
  }
}

/* The heat of every representative vertex with area (vertex_heat: Blender's nearest-bones rule). */
static int visibility(heat_ctx* c, const skc_bvh* bvh, double dclamp) {
  uint32_t nb = c->d->joint_count;
  int failed = 0;
  /* vertices in the tree's leaf order: consecutive queries start in the same part of the tree (cache) */
  uint32_t* order = malloc((c->n ? c->n : 1) * sizeof *order);
  size_t count = order ? skc_bvh_vertex_order(bvh, c->n, order) : SIZE_MAX;
  if (count == SIZE_MAX) {
    free(order);
    return SKC_OUT_OF_MEMORY;
  }
  memset(c->h, 0, c->n * sizeof *c->h);
  memset(c->hcount, 0, c->n);
  const long long n = (long long)count;
  /* a small mesh's queries take a few milliseconds: waking a thread team (and leaving it spinning) costs more than
   * it saves, and far more on a machine with other work on its cores */
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel if (n * (long long)nb > VISIBILITY_PARALLEL_MIN)
#endif
  {
    double* dist = malloc(nb * sizeof *dist);
    double* tpar = malloc(nb * sizeof *tpar);
    if (!dist || !tpar) {
#if defined(SK_HAVE_OPENMP)
#pragma omp atomic write
#endif
      failed = 1;
    }
#if defined(SK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 256)
#endif
    for (long long vi = 0; vi < n; ++vi) {
      size_t v = order[vi];
      if (dist && tpar && c->rep[v] == v && c->area[v] > 0.0) vertex_heat(c, bvh, v, dclamp, dist, tpar);
    }
    free(dist);
    free(tpar);
  }
  free(order);
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

/* The system matrix -L + A H over the rows (welded vertices with area), upper triangle in compressed columns,
 * built straight from the triangles: the pattern depends on the mesh only, so it is ordered (AMD) while the BVH
 * is built, and the values are filled once the heat is known. For each fill (and a refill with clamped,
 * non-negative weights) every half-edge gets its cotangent weight and the slot of its off-diagonal entry. */
typedef struct heat_sys {
  cholmod_sparse* A; /* m x m, stype 1 (upper), sorted, packed */
  double* lap;       /* m: diagonal of -L (sum of the row's cotangent weights); this and the next two exist only
                        around sys_fill (sys_weights .. sys_drop_weights) */
  double* cotw;      /* 3 * triangle_count: 0.5 cot of the angle opposite edge e of triangle t */
  uint32_t* slot;    /* 3 * triangle_count: entry of that edge in A->x (UINT32_MAX: triangle not in the system) */
} heat_sys;

static void sys_free(heat_sys* s, cholmod_common* cm) {
  if (s->A) cholmod_free_sparse(&s->A, cm);
  free(s->lap);
  free(s->cotw);
  free(s->slot);
  memset(s, 0, sizeof *s);
}

/* The pattern of A; slots, weights and values are left to sys_weights and sys_fill. Returns SKC_OUT_OF_MEMORY or
 * SKC_OK. */
static int sys_build(heat_ctx* c, int32_t m, heat_sys* s, cholmod_common* cm) {
  const skc_bind_desc* d = c->d;
  size_t nt = d->triangle_count;
  memset(s, 0, sizeof *s);
  uint32_t* cnt = skc_calloc_big((size_t)m + 1, sizeof *cnt);
  if (!cnt) return SKC_OUT_OF_MEMORY;
  /* half-edges per column (the larger row index of the edge), with duplicates, plus the diagonal */
  for (size_t t = 0; t < nt; ++t) {
    const uint32_t* tv = c->tri + 3 * t;
    if (!c->tri_ok[t]) continue;
    for (int e = 0; e < 3; ++e) {
      int32_t ia = c->sidx[tv[e]], ib = c->sidx[tv[(e + 1) % 3]];
      ++cnt[(ia > ib ? ia : ib) + 1];
    }
  }
  for (int32_t r = 0; r < m; ++r) cnt[r + 1] += cnt[r] + 1; /* + 1: the diagonal */
  size_t raw = cnt[m];
  uint32_t* rows = skc_malloc_big((raw ? raw : 1) * sizeof *rows);
  uint32_t* fill = skc_malloc_big((size_t)m * sizeof *fill);
  if (!rows || !fill) {
    free(cnt);
    free(rows);
    free(fill);
    sys_free(s, cm);
    return SKC_OUT_OF_MEMORY;
  }
  for (int32_t r = 0; r < m; ++r) fill[r] = cnt[r];
  for (size_t t = 0; t < nt; ++t) {
    const uint32_t* tv = c->tri + 3 * t;
    if (!c->tri_ok[t]) continue;
    for (int e = 0; e < 3; ++e) {
      int32_t ia = c->sidx[tv[e]], ib = c->sidx[tv[(e + 1) % 3]];
      rows[fill[ia > ib ? ia : ib]++] = (uint32_t)(ia > ib ? ib : ia);
    }
  }
  /* sort each column (a handful of rows) and drop duplicates; the diagonal comes last */
  size_t nz = 0;
  for (int32_t col = 0; col < m; ++col) {
    uint32_t e0 = cnt[col], e1 = fill[col];
    for (uint32_t i = e0 + 1; i < e1; ++i) {
      uint32_t x = rows[i], k = i;
      while (k > e0 && rows[k - 1] > x) {
        rows[k] = rows[k - 1];
        --k;
      }
      rows[k] = x;
    }
    size_t start = nz;
    for (uint32_t i = e0; i < e1; ++i)
      if (i == e0 || rows[i] != rows[i - 1]) rows[nz++] = rows[i];
    rows[nz++] = (uint32_t)col;
    fill[col] = (uint32_t)start; /* reused: where the column starts once packed */
  }
  free(cnt);
  s->A = cholmod_allocate_sparse((size_t)m, (size_t)m, nz, 1, 1, 1, CHOLMOD_REAL, cm);
  if (!s->A) {
    free(rows);
    free(fill);
    sys_free(s, cm);
    return SKC_OUT_OF_MEMORY;
  }
  int* ap = s->A->p;
  int* ai = s->A->i;
  for (int32_t col = 0; col < m; ++col) ap[col] = (int)fill[col];
  ap[m] = (int)nz;
  for (size_t k = 0; k < nz; ++k) ai[k] = (int)rows[k];
  free(rows);
  free(fill);
  return SKC_OK;
}

static void sys_drop_weights(heat_sys* s) {
  free(s->lap);
  free(s->cotw);
  free(s->slot);
  s->lap = NULL;
  s->cotw = NULL;
  s->slot = NULL;
}

/* Cotangent weights and their slots in A (a short scan of the column), and the diagonal's scratch: 80 bytes per
 * vertex that only sys_fill needs, so they live just around it, not through the BVH and the factorization. */
static int sys_weights(heat_ctx* c, heat_sys* s) {
  const skc_bind_desc* d = c->d;
  size_t nt = d->triangle_count;
  const int* ap = s->A->p;
  const int* ai = s->A->i;
  s->lap = skc_malloc_big(s->A->nrow * sizeof *s->lap);
  s->cotw = skc_malloc_big(3 * nt * sizeof *s->cotw);
  s->slot = skc_malloc_big(3 * nt * sizeof *s->slot);
  if (!s->lap || !s->cotw || !s->slot) {
    sys_drop_weights(s);
    return SKC_OUT_OF_MEMORY;
  }
  for (size_t t = 0; t < nt; ++t) {
    const uint32_t* tv = c->tri + 3 * t;
    for (int e = 0; e < 3; ++e) {
      s->slot[3 * t + e] = UINT32_MAX;
      if (!c->tri_ok[t]) continue;
      uint32_t a = tv[e], b = tv[(e + 1) % 3], o = tv[(e + 2) % 3];
      int32_t ia = c->sidx[a], ib = c->sidx[b];
      int32_t col = ia > ib ? ia : ib, row = ia > ib ? ib : ia;
      int k = ap[col];
      while (ai[k] != row) ++k;
      s->slot[3 * t + e] = (uint32_t)k;
      s->cotw[3 * t + e] =
          0.5 * cot(d->positions + 3 * (size_t)o, d->positions + 3 * (size_t)a, d->positions + 3 * (size_t)b);
    }
  }
  return SKC_OK;
}

/* Values of -L + A H (clamp = 1: max(cot, 0)); rows of components without heat get A times the heat of a bone at
 * the mesh's diagonal instead, which keeps the matrix positive definite there (their right-hand sides are zero,
 * so their solution is exactly zero and never mixes with the heated components: no edge joins them). */
static void sys_fill(heat_ctx* c, const uint8_t* comp_heated, double cold_heat, int clamp, heat_sys* s) {
  const skc_bind_desc* d = c->d;
  double* ax = s->A->x;
  const int* ap = s->A->p;
  size_t m = s->A->nrow;
  memset(ax, 0, (size_t)ap[m] * sizeof *ax);
  memset(s->lap, 0, m * sizeof *s->lap);
  for (size_t t = 0; t < d->triangle_count; ++t) {
    if (!c->tri_ok[t]) continue;
    const uint32_t* tv = c->tri + 3 * t;
    for (int e = 0; e < 3; ++e) {
      double w = s->cotw[3 * t + e];
      if (clamp && w < 0.0) w = 0.0;
      ax[s->slot[3 * t + e]] -= w;
      s->lap[c->sidx[tv[e]]] += w;
      s->lap[c->sidx[tv[(e + 1) % 3]]] += w;
    }
  }
  for (size_t v = 0; v < c->n; ++v) {
    int32_t r = c->sidx[v];
    if (r < 0) continue;
    double h = comp_heated[c->comp[v]] ? c->h[v] : cold_heat;
    ax[ap[r + 1] - 1] = s->lap[r] + c->area[v] * h;
  }
}

/* Numeric factorization. CHOLMOD's supernodal code opens an OpenMP region of 4 threads (fixed when it was built)
 * for every large supernode to clear and scatter it - memory work worth microseconds, where the factorization's
 * arithmetic is in the BLAS, which runs on this thread during a bind (skc_blas_serial_begin). Each region woke the
 * other threads and put them back to sleep: two futex calls a region, spinning between them (2,400 of the 38k
 * sample cylinder's ~2,500 system calls once the solve no longer contended: the dynamic adjustment of sessions 20
 * and 61 gave the regions both cores of a quiet machine). No region of the factorization is active now
 * (max-active-levels 0: each runs on this thread without asking the system). `skinkit bind`, same output bytes, medians
 * of 21 and 9 alternated runs: 38k 126 -> 119 ms wall, user 170 -> 130 ms; 200k 692 -> 629 ms wall, system 92 -> 64 ms
 * (docs/bind.md, session 65). */
static void factorize(cholmod_sparse* A, cholmod_factor* L, cholmod_common* cm) {
#if defined(SK_HAVE_OPENMP)
  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(0);
#endif
  cholmod_factorize(A, L, cm);
#if defined(SK_HAVE_OPENMP)
  omp_set_max_active_levels(levels);
#endif
}

/* The welded triangles (corners remapped to representatives), which the geometry pass computed; rebuilt here for
 * the rare refill after they were dropped. */
static int tri_remap(heat_ctx* c) {
  const skc_bind_desc* d = c->d;
  if (c->tri) return SKC_OK;
  c->tri = skc_malloc_big(3 * d->triangle_count * sizeof *c->tri);
  if (!c->tri) return SKC_OUT_OF_MEMORY;
  for (size_t k = 0; k < 3 * d->triangle_count; ++k) c->tri[k] = c->rep[d->triangles[k]];
  return SKC_OK;
}

/* Values (clamp: see sys_fill) and numeric factorization; 1 when L is positive definite. *oom = 1 when memory ran
 * out. The welded triangles (12 bytes per triangle) are dropped before the factorization: nothing after the fill
 * needs them and the factorization is the bind's peak of memory. */
static int fill_and_factorize(heat_ctx* c, const uint8_t* comp_heated, double cold_heat, int clamp, heat_sys* s,
                              cholmod_factor* L, cholmod_common* cm, int* oom) {
  *oom = 0;
  if (tri_remap(c) || sys_weights(c, s)) {
    *oom = 1;
    return 0;
  }
  sys_fill(c, comp_heated, cold_heat, clamp, s);
  sys_drop_weights(s);
  free(c->tri);
  c->tri = NULL;
  factorize(s->A, L, cm);
  *oom = cm->status == CHOLMOD_OUT_OF_MEMORY;
  return cm->status == CHOLMOD_OK && L->minor == L->n;
}

/* One thread's dense blocks of the solve, kept from group to group (cholmod_solve2 reuses X and its workspace Y
 * and E when their sizes match), so a bind allocates and faults them in once, not once per group of bones. */
typedef struct heat_rhs {
  cholmod_common* cm;
  cholmod_dense *B, *X, *Y, *E;
} heat_rhs;

static void rhs_free(heat_rhs* s) {
  cholmod_free_dense(&s->B, s->cm);
  cholmod_free_dense(&s->X, s->cm);
  cholmod_free_dense(&s->Y, s->cm);
  cholmod_free_dense(&s->E, s->cm);
}

/* Right-hand sides of bones[0 .. cols) (A H p_j over the rows) and their solutions in s->X. */
static int rhs_solve(const heat_ctx* c, int32_t m, const int32_t* row_v, const uint32_t* bones, uint32_t cols,
                     cholmod_factor* L, heat_rhs* s) {
  if (s->B && s->B->ncol != cols) cholmod_free_dense(&s->B, s->cm);
  if (!s->B) s->B = cholmod_allocate_dense((size_t)m, cols, (size_t)m, CHOLMOD_REAL, s->cm);
  if (!s->B) return SKC_OUT_OF_MEMORY;
  double* bx = s->B->x;
  size_t ld = s->B->d;
  memset(bx, 0, ld * cols * sizeof *bx);
  for (int32_t r = 0; r < m; ++r) {
    size_t v = (size_t)row_v[r];
    uint32_t hc = c->hcount[v];
    for (uint32_t i = 0; i < hc; ++i) {
      uint32_t j = c->hbone[v * HEAT_TIES + i];
      for (uint32_t q = 0; q < cols; ++q)
        if (bones[q] == j) bx[q * ld + (size_t)r] = c->area[v] * c->h[v] / hc;
    }
  }
  if (cholmod_solve2(CHOLMOD_A, L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, s->cm)) return SKC_OK;
  return s->cm->status == CHOLMOD_OUT_OF_MEMORY ? SKC_OUT_OF_MEMORY : SKC_NO_SOLUTION;
}

/* Solves a group of bones into rs[0].X (the first columns) and rs[1].X (the rest); returns how many columns rs[0]
 * holds. A simplicial factor's groups are 2 HEAT_CHUNK bones, their halves solved by two threads at once, each with
 * its own CHOLMOD workspace (the factor is only read). A supernodal factor's solve calls the BLAS for every
 * supernode, and OpenBLAS takes one process-wide lock around its buffer pool in each call, so two threads solving at
 * once waited on each other in the kernel (38k sample cylinder: ~1,600 futex calls of the bind's ~2,500): its groups
 * are HEAT_CHUNK bones, solved on this thread (8 at once, the first cut: 38k 134 -> 129 ms wall, user 190 -> 173 ms,
 * system 28 -> 24 ms; 200k 739 -> 708, 1108 -> 1023, 108 -> 88; medians of 9-21 alternated runs, same output bytes;
 * but the 604k-vertex cylinder's peak grew 356 -> 361-365 MB, past 0.6 KB a vertex; 4 at a time: 347-353 MB). */
static uint32_t solve_group(const heat_ctx* c, int32_t m, const int32_t* row_v, const uint32_t* bones, uint32_t gcols,
                            cholmod_factor* L, heat_rhs* rs, int* rc) {
  if (L->is_super || gcols < 2 || m <= 1024) {
    *rc = rhs_solve(c, m, row_v, bones, gcols, L, &rs[0]);
    return gcols;
  }
  uint32_t half = (gcols + 1) / 2;
  int part_rc[2] = {SKC_OK, SKC_OK};
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for num_threads(2) schedule(static, 1)
#endif
  for (int h = 0; h < 2; ++h) {
    uint32_t q0 = h ? half : 0, cols = h ? gcols - half : half;
    part_rc[h] = rhs_solve(c, m, row_v, bones + q0, cols, L, &rs[h]);
  }
  *rc = part_rc[0] ? part_rc[0] : part_rc[1];
  return half;
}

/* The rows (one vertex each) take their candidates from a solved group, in parallel: column q of the group is in
 * rs[0].X below half, in rs[1].X from there. */
static void offer_group(int32_t m, const int32_t* row_v, const uint32_t* bones, uint32_t gcols, uint32_t half,
                        const heat_rhs* rs, skc_bind_cands* out) {
  const long long rows = m;
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel for schedule(static, 1024) if (m > 2048)
#endif
  for (long long ri = 0; ri < rows; ++ri) {
    size_t r = (size_t)ri;
    for (uint32_t q = 0; q < gcols; ++q) {
      const cholmod_dense* x = rs[q < half ? 0 : 1].X;
      double w = ((const double*)x->x)[(q < half ? q : q - half) * x->d + r];
      /* heat leaks a few percent along the whole mesh: fade it out between HEAT_FADE_END and
       * HEAT_FADE_START (continuous, so weights stay smooth), which keeps far bones off a vertex */
      if (w < HEAT_FADE_END) continue;
      if (w < HEAT_FADE_START) w = (w - HEAT_FADE_END) * HEAT_FADE_START / (HEAT_FADE_START - HEAT_FADE_END);
      skc_bind_cands_offer(out, (size_t)row_v[r], bones[q], (float)(w < 1.0 ? w : 1.0));
    }
  }
}

/* Solves every heated bone, a group at a time (solve_group; bounded dense blocks: B, X and CHOLMOD's Y are
 * 3 m-vectors per bone of a group, whatever the number of bones; 16 per thread cost CesiumMan_subdiv2's bind 12 MB
 * more for no speed), and offers the weights of the system rows. */
static int solve(heat_ctx* c, int32_t m, cholmod_factor* L, cholmod_common* cm, skc_bind_cands* out) {
  const skc_bind_desc* d = c->d;
  uint32_t nb = d->joint_count;
  uint8_t* heated = calloc(nb, 1);
  uint32_t* bones = malloc(nb * sizeof *bones);
  int32_t* row_v = skc_malloc_big((size_t)m * sizeof *row_v);
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
  /* Each group solved (solve_group), then the rows take their candidates (offer_group). */
  cholmod_common own;
  skc_chol_start(&own);
  heat_rhs rs[2] = {{cm, NULL, NULL, NULL, NULL}, {&own, NULL, NULL, NULL, NULL}};
  int rc = SKC_OK;
  const uint32_t group = L->is_super ? HEAT_CHUNK : 2 * HEAT_CHUNK; /* see solve_group */
  for (uint32_t g0 = 0; g0 < nh && !rc; g0 += group) {
    uint32_t gcols = nh - g0 < group ? nh - g0 : group;
    uint32_t half = solve_group(c, m, row_v, bones + g0, gcols, L, rs, &rc);
    if (!rc) offer_group(m, row_v, bones + g0, gcols, half, rs, out);
  }
  rhs_free(&rs[0]);
  rhs_free(&rs[1]);
  cholmod_finish(&own);
  free(heated);
  free(bones);
  free(row_v);
  return rc;
}

/* Robust only: a connected part whose vertices see a bone over less than SHELL_VISIBLE_SHARE of its area, in a mesh
 * where another part sees its bones over at least BODY_VISIBLE_SHARE of its own and over at least half the shell's
 * area (a body, not an eye), is a shell over that body (a sleeve whose caps dip into the arm): its few visible
 * vertices would heat the whole shell from inside the body. It is made cold instead, so that it takes the body's
 * weights (bind_body.c) or moves rigidly when small. */
#define SHELL_VISIBLE_SHARE 0.25
#define BODY_VISIBLE_SHARE 0.5

static int demote_shells(heat_ctx* c) {
  size_t n = c->n;
  double* acc = calloc(2 * n, sizeof *acc); /* per component root: area, visible area */
  if (!acc) return SKC_OUT_OF_MEMORY;
  for (size_t v = 0; v < n; ++v) {
    if (c->rep[v] != v) continue;
    acc[2 * c->comp[v]] += c->area[v];
    if (c->h[v] > 0.0) acc[2 * c->comp[v] + 1] += c->area[v];
  }
  double body = 0.0; /* the largest visible area of a part seen over most of its own */
  for (size_t v = 0; v < n; ++v)
    if (c->rep[v] == v && c->comp[v] == v && acc[2 * v] > 0.0 && acc[2 * v + 1] >= BODY_VISIBLE_SHARE * acc[2 * v] &&
        acc[2 * v + 1] > body)
      body = acc[2 * v + 1];
  for (size_t v = 0; v < n && body > 0.0; ++v) {
    const double* a = acc + 2 * (size_t)c->comp[c->rep[v]];
    if (a[1] > 0.0 && a[1] < SHELL_VISIBLE_SHARE * a[0] && body >= 0.5 * a[0]) {
      c->h[v] = 0.0;
      c->hcount[v] = 0;
    }
  }
  free(acc);
  return SKC_OK;
}

/* The vertices heat left empty (no bone sees their part, a point cloud, a loose vertex) by nearest bone: blended for
 * robust, the one nearest bone for heat (`strict`: Blender's bone heat gives such a vertex its closest bone; an
 * auditor's loose vertex above the chain's last bone got 0.09 / 0.29 / 0.62, a cube beside the middle one 1/3 each). */
static int nearest_fallback(const skc_bind_desc* d, int strict, skc_bind_cands* out, skc_bind_report* rep,
                            skc_err* err) {
  skc_bind_desc nd = *d;
  if (strict) nd.rigid = 1;
  d = &nd;
  uint8_t* need = malloc(d->vertex_count);
  if (!need) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory");
  uint64_t count = 0;
  for (size_t v = 0; v < d->vertex_count; ++v) {
    need[v] = out->count[v] == 0 && (!d->vertex_mask || d->vertex_mask[v]);
    out->fallback[v] |= need[v];
    count += need[v];
  }
  int rc = count ? skc_bind_nearest(d, need, out, err) : SKC_OK;
  free(need);
  if (rep) rep->fallback_vertices += count;
  return rc;
}

/* Cold components (no bone sees them) smaller than 5% of the mesh (buttons, eyes, studs) move rigidly: every
 * vertex takes the nearest-bone weights of the part's centroid, so the part is not sheared between bones. */
static int rigid_small_parts(heat_ctx* c, const uint8_t* comp_heated, int strict, skc_bind_cands* out,
                             skc_bind_report* rep, skc_err* err) {
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
    double limit = 0.05 * c->diag;
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
    pd.rigid = strict ? 1 : d->rigid; /* heat: the one nearest bone (nearest_fallback) */
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
      out->fallback[v] = !d->vertex_mask || d->vertex_mask[v];
      count += out->fallback[v];
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

/* The context's arrays and the weld; SKC_OUT_OF_MEMORY (everything freed) when one could not be allocated. */
static int ctx_alloc(heat_ctx* c, const skc_bind_desc* d) {
  memset(c, 0, sizeof *c);
  c->d = d;
  c->n = d->vertex_count;
  c->diag = skc_bind_bbox_diag(d->positions, c->n);
  size_t n = c->n, nt = d->triangle_count;
  c->rep = skc_malloc_big(n * sizeof *c->rep);
  c->tri = skc_malloc_big(3 * nt * sizeof *c->tri);
  c->tri_ok = skc_malloc_big(nt);
  c->area = skc_malloc_big(n * sizeof *c->area);
  c->comp = skc_malloc_big(n * sizeof *c->comp);
  c->h = skc_malloc_big(n * sizeof *c->h);
  c->hbone = skc_malloc_big(n * HEAT_TIES * sizeof *c->hbone);
  c->hcount = skc_malloc_big(n);
  c->sidx = skc_malloc_big(n * sizeof *c->sidx);
  c->source = malloc(d->joint_count);
  c->nrm = skc_malloc_big(3 * n * sizeof *c->nrm);
  if (!c->rep || !c->tri || !c->tri_ok || !c->area || !c->comp || !c->h || !c->hbone || !c->hcount || !c->sidx ||
      !c->source || !c->nrm || weld(c)) {
    ctx_free(c);
    return SKC_OUT_OF_MEMORY;
  }
  return SKC_OK;
}

/* The sparse solver's state for one bind: CHOLMOD's common block, the system and its factor. */
typedef struct heat_solver {
  cholmod_common cm;
  heat_sys sys;
  cholmod_factor* L;
} heat_solver;

static void solver_free(heat_solver* s) {
  if (s->L) cholmod_free_factor(&s->L, &s->cm);
  sys_free(&s->sys, &s->cm);
  cholmod_finish(&s->cm);
}

/* Starts CHOLMOD and builds the pattern of the system over c's m rows (none when m is 0). */
static int solver_start(heat_ctx* c, int32_t m, heat_solver* s) {
  memset(s, 0, sizeof *s);
  skc_chol_start(&s->cm);
  /* AMD order (a METIS trial costs more than it saves on surface meshes); supernodal (BLAS) once the
   * factorization does enough work per entry, simplicial below (CesiumMan_subdiv2: 69 flops per entry of L,
   * simplicial 34 ms vs supernodal 42; the 40k cylinder: 145, supernodal 46 ms vs simplicial 80) */
  s->cm.nmethods = 1;
  s->cm.method[0].ordering = CHOLMOD_AMD;
  s->cm.supernodal = skc_chol_blas_room() ? CHOLMOD_AUTO : CHOLMOD_SIMPLICIAL; /* skc_chol.h: no BLAS buffer */
  s->cm.supernodal_switch = HEAT_SUPERNODAL_SWITCH;
  int rc = m > 0 ? sys_build(c, m, &s->sys, &s->cm) : SKC_OK;
  if (rc) cholmod_finish(&s->cm);
  return rc;
}

/* Two independent jobs on the two cores: the BVH (and the heat sources, which use it), and the ordering and
 * symbolic factorization of the system. On failure err says which failed; the caller frees the BVH and the factor. */
static int sources_and_order(heat_ctx* c, int32_t m, heat_solver* s, skc_bvh** bvh, skc_err* err) {
  int bvh_rc = SKC_OK;
  skc_err bvh_err;
  memset(&bvh_err, 0, sizeof bvh_err);
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel sections num_threads(2) if (m > 1024)
#endif
  {
#if defined(SK_HAVE_OPENMP)
#pragma omp section
#endif
    {
      bvh_rc = skc_bvh_build(c->d->positions, c->tri, c->d->triangle_count, bvh, &bvh_err);
      if (!bvh_rc) heat_sources(c, *bvh);
    }
#if defined(SK_HAVE_OPENMP)
#pragma omp section
#endif
    {
      if (m > 0) s->L = cholmod_analyze(s->sys.A, &s->cm);
    }
  }
  if (bvh_rc) {
    if (err) *err = bvh_err;
    return bvh_rc;
  }
  if (m > 0 && !s->L) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory ordering the heat system");
  /* the ordering's workspace (6 integers per row) would stay in cm to the end; the factorization allocates the
   * smaller one it needs */
  cholmod_free_work(&s->cm);
  return SKC_OK;
}

/* The visibility pass and, for robust, the shells' demotion; frees the BVH and the normals (only this pass needs
 * them: less memory at the factorization's peak). */
static int visible_heat(heat_ctx* c, skc_bvh* bvh, int strict) {
  double dclamp = 1e-4 * c->diag;
  c->window = strict ? 0.0 : HEAT_WINDOW;
  int rc = visibility(c, bvh, dclamp > 0.0 ? dclamp : 1e-30);
  if (!rc && !strict) rc = demote_shells(c);
  skc_bvh_destroy(bvh);
  free(c->nrm);
  c->nrm = NULL;
  return rc;
}

/* Marks the components that received heat (they are solved, the others fall back) and counts them into the report;
 * returns whether any vertex has heat. */
static int heated_components(const heat_ctx* c, uint8_t* comp_heated, skc_bind_report* rep) {
  uint64_t comps = 0, cold = 0;
  int any_heat = 0;
  for (size_t v = 0; v < c->n; ++v)
    if (c->rep[v] == v && c->h[v] > 0.0) comp_heated[c->comp[v]] = 1, any_heat = 1;
  for (size_t v = 0; v < c->n; ++v)
    if (c->rep[v] == v && c->comp[v] == v) {
      ++comps;
      cold += !comp_heated[v];
    }
  if (rep) {
    rep->components = comps;
    rep->fallback_components = cold;
  }
  return any_heat;
}

/* Fills, factors and solves the system (robust retries with non-negative cotangents, and on any failure but
 * memory leaves every vertex to the nearest-bone fallback). */
static int heat_solve(heat_ctx* c, int32_t m, const uint8_t* comp_heated, int strict, heat_solver* s,
                      skc_bind_cands* out, skc_bind_report* rep, skc_err* err) {
  const skc_bind_desc* d = c->d;
  double cold_heat = HEAT_BLENDER_SCALE * (double)d->heat_scale / (c->diag > 0.0 ? c->diag * c->diag : 1.0);
  int oom = 0, rc;
  int ok = fill_and_factorize(c, comp_heated, cold_heat, 0, &s->sys, s->L, &s->cm, &oom);
  if (!ok && !oom && !strict) /* retry with non-negative cotangents */
    ok = fill_and_factorize(c, comp_heated, cold_heat, 1, &s->sys, s->L, &s->cm, &oom);
  if (!ok) {
    rc = oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory factoring the heat system")
             : skc_fail(err, SKC_NO_SOLUTION,
                        "bind: the heat system is not positive definite (degenerate mesh); use the robust method");
  } else {
    rc = solve(c, m, s->L, &s->cm, out);
    if (rc) rc = skc_fail(err, rc, "bind: solving the heat system failed (%s)", skc_status_string(rc));
  }
  if (rc && !strict && rc != SKC_OUT_OF_MEMORY) { /* robust: nearest for everything */
    for (size_t v = 0; v < c->n; ++v) out->count[v] = 0;
    skc_err_clear(err);
    rc = SKC_OK;
    if (rep) rep->method_used = SKC_BIND_NEAREST;
  }
  return rc;
}

/* Duplicates take their representative's weights. */
static void copy_duplicates(const heat_ctx* c, skc_bind_cands* out) {
  uint32_t s = out->stride;
  for (size_t v = 0; v < c->n; ++v) {
    uint32_t r = c->rep[v];
    if (r == v) continue;
    out->count[v] = out->count[r];
    memcpy(out->joints + v * s, out->joints + (size_t)r * s, out->count[r] * sizeof *out->joints);
    memcpy(out->weights + v * s, out->weights + (size_t)r * s, out->count[r] * sizeof *out->weights);
  }
}

/* Bone heat over the welded mesh (a point cloud goes to the nearest bone), then the rigid small parts, the
 * duplicates and the nearest-bone fallback for what heat left unweighted. */
static int heat_bind(const skc_bind_desc* d, int strict, skc_bind_cands* out, skc_bind_report* rep, skc_err* err) {
  if (rep) rep->method_used = SKC_BIND_HEAT;
  for (size_t v = 0; v < d->vertex_count; ++v) out->count[v] = 0;
  if (d->triangle_count == 0) { /* point cloud: nothing to diffuse over */
    if (rep) {
      rep->method_used = SKC_BIND_NEAREST;
      rep->components = d->vertex_count;
      rep->fallback_components = d->vertex_count;
    }
    return nearest_fallback(d, strict, out, rep, err);
  }
  if (d->vertex_count > (size_t)INT_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bind: heat supports at most %d vertices", INT_MAX);
  const char* no_solver = skc_chol_unavailable();
  if (no_solver) return skc_fail(err, SKC_UNSUPPORTED, "bind: heat needs the sparse solver: %s", no_solver);
  heat_ctx c;
  if (ctx_alloc(&c, d))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory for heat on %zu vertices", d->vertex_count);
  geometry(&c);
  /* rows: every welded vertex with area (components without heat too, see sys_fill) */
  int32_t m = 0;
  for (size_t v = 0; v < c.n; ++v) c.sidx[v] = c.rep[v] == v && c.area[v] > 0.0 ? m++ : -1;
  heat_solver s;
  if (solver_start(&c, m, &s)) {
    ctx_free(&c);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory for the heat system of %zu vertices", d->vertex_count);
  }
  skc_bvh* bvh = NULL;
  int rc = sources_and_order(&c, m, &s, &bvh, err);
  if (rc) {
    skc_bvh_destroy(bvh);
    solver_free(&s);
    ctx_free(&c);
    return rc;
  }
  rc = visible_heat(&c, bvh, strict);
  uint8_t* comp_heated = rc ? NULL : calloc(c.n, 1);
  if (!comp_heated) {
    solver_free(&s);
    ctx_free(&c);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory in the visibility pass");
  }
  if (heated_components(&c, comp_heated, rep) && m > 0) rc = heat_solve(&c, m, comp_heated, strict, &s, out, rep, err);
  solver_free(&s);
  if (!rc) rc = rigid_small_parts(&c, comp_heated, strict, out, rep, err);
  free(comp_heated);
  if (!rc) copy_duplicates(&c, out);
  ctx_free(&c);
  if (rc) return rc;
  return nearest_fallback(d, strict, out, rep, err);
}

int skc_bind_heat(const skc_bind_desc* d, int strict, skc_bind_cands* out, skc_bind_report* rep, skc_err* err) {
  int blas = skc_blas_serial_begin();
  int rc = heat_bind(d, strict, out, rep, err);
  skc_blas_serial_end(blas);
  return rc;
}
