/* weights_direct.c - direct manipulation of one vertex's skin weights (Mohr, Tokheim, Gleicher 2002, "Direct
 * manipulation of interactive character skins").
 *
 * For a vertex with rest position p, candidate joints c_1..c_n and, per pose k, skinning matrices M_j^k and a
 * desired deformed position t^k, the weights solve
 *     min  sum_k | L_k + R sum_i u_i M_{c_i}^k p - t^k |^2    subject to  u >= 0, sum u = 1,
 * where L_k = sum over the locked joints of w_l M_l^k p (their weights stay) and R = 1 - sum of locked weights;
 * the candidates receive w = R u. One pose is the paper's single drag; several poses are its multi-pose least
 * squares. The small QP (n <= 64) is solved exactly by a primal active-set method on the KKT systems of the free
 * set; a tiny Tikhonov term mu |u - u0|^2 (u0 = the current weights) picks the solution nearest the current
 * weights when the candidates' points are not affinely independent (e.g. more than 4 joints for one pose), and
 * makes the problem strictly convex so the active set terminates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_math.h"
#include "skc_transfer.h"

#define MAX_CANDIDATES 64

/* Solves the dense system M x = r (size k, row-major, overwritten) by Gaussian elimination with partial
 * pivoting. Returns false if singular. */
static bool dense_solve(double* M, double* r, size_t k) {
  for (size_t col = 0; col < k; ++col) {
    size_t piv = col;
    double best = fabs(M[col * k + col]);
    for (size_t i = col + 1; i < k; ++i)
      if (fabs(M[i * k + col]) > best) {
        best = fabs(M[i * k + col]);
        piv = i;
      }
    if (!(best > 0.0) || !isfinite(best)) return false;
    if (piv != col) {
      for (size_t j = 0; j < k; ++j) {
        double t = M[col * k + j];
        M[col * k + j] = M[piv * k + j];
        M[piv * k + j] = t;
      }
      double t = r[col];
      r[col] = r[piv];
      r[piv] = t;
    }
    for (size_t i = col + 1; i < k; ++i) {
      double f = M[i * k + col] / M[col * k + col];
      if (f == 0.0) continue;
      for (size_t j = col; j < k; ++j) M[i * k + j] -= f * M[col * k + j];
      r[i] -= f * r[col];
    }
  }
  for (size_t i = k; i-- > 0;) {
    double s = r[i];
    for (size_t j = i + 1; j < k; ++j) s -= M[i * k + j] * r[j];
    r[i] = s / M[i * k + i];
  }
  return true;
}

/* Normal equations of min |A x - b|^2 + mu |x - x0|^2: H = A^T A + mu I and f = A^T b + mu x0 (x0 NULL: the
 * simplex's centre). */
static void normal_equations(const double* A, size_t m, size_t n, const double* b, double total, const double* x0,
                             double mu, double* H, double* f) {
  for (size_t i = 0; i < n; ++i) {
    f[i] = mu * (x0 ? x0[i] : total / (double)n);
    for (size_t j = 0; j < n; ++j) H[i * n + j] = i == j ? mu : 0.0;
  }
  for (size_t row = 0; row < m; ++row) {
    const double* a = A + row * n;
    for (size_t i = 0; i < n; ++i) {
      f[i] += a[i] * b[row];
      for (size_t j = 0; j < n; ++j) H[i * n + j] += a[i] * a[j];
    }
  }
}

/* The simplex vertex (all of total on one candidate) with the lowest objective. */
static size_t best_vertex(const double* H, const double* f, size_t n, double total) {
  size_t best = 0;
  double bobj = INFINITY;
  for (size_t i = 0; i < n; ++i) {
    double obj = 0.5 * total * total * H[i * n + i] - total * f[i];
    if (obj < bobj) {
      bobj = obj;
      best = i;
    }
  }
  return best;
}

/* Puts x on simplex vertex best, with only that candidate free. */
static void start_at_vertex(double* x, bool* freev, size_t n, size_t best, double total) {
  for (size_t j = 0; j < n; ++j) {
    x[j] = j == best ? total : 0.0;
    freev[j] = j == best;
  }
}

/* Solves the KKT system of the free set (idx: its k candidates) into r: z in r[0..k), the multiplier nu in r[k].
 * K is scratch. Returns false if singular. */
static bool solve_kkt(const double* H, const double* f, size_t n, const size_t* idx, size_t k, double total, double* K,
                      double* r) {
  /* KKT of the free set: [H_FF 1; 1^T 0] [z; nu] = [f_F; total] */
  size_t dim = k + 1;
  for (size_t i = 0; i < k; ++i) {
    for (size_t j = 0; j < k; ++j) K[i * dim + j] = H[idx[i] * n + idx[j]];
    K[i * dim + k] = 1.0;
    K[k * dim + i] = 1.0;
    r[i] = f[idx[i]];
  }
  K[k * dim + k] = 0.0;
  r[k] = total;
  return dense_solve(K, r, dim);
}

/* The fixed-at-zero candidate with the most negative multiplier below -tol (n when none: x is optimal). */
static size_t entering_candidate(const double* H, const double* f, size_t n, const bool* freev, const double* x,
                                 double nu, double tol) {
  /* multipliers of the fixed-at-zero candidates: mu_j = (H x)_j - f_j + nu */
  size_t add = n;
  double most = -tol;
  for (size_t j = 0; j < n; ++j) {
    if (freev[j]) continue;
    double g = -f[j] + nu;
    for (size_t i = 0; i < n; ++i) g += H[j * n + i] * x[i];
    if (g < most) {
      most = g;
      add = j;
    }
  }
  return add;
}

/* Moves x from its free weights towards the infeasible solution z until the first free weight reaches 0, and fixes
 * the weights that did at 0. */
static void step_to_boundary(double* x, bool* freev, const double* z, const size_t* idx, size_t k, size_t n,
                             double total) {
  /* step towards z until the first free weight hits 0, and fix it there */
  double alpha = 1.0;
  size_t block = n;
  for (size_t i = 0; i < k; ++i) {
    size_t j = idx[i];
    if (z[i] < x[j]) {
      double a = x[j] / (x[j] - z[i]);
      if (z[i] < 0.0 && a < alpha) {
        alpha = a;
        block = j;
      }
    }
  }
  for (size_t i = 0; i < k; ++i) {
    size_t j = idx[i];
    x[j] += alpha * (z[i] - x[j]);
    if (x[j] <= 1e-15 * total) {
      x[j] = 0.0;
      freev[j] = false;
    }
  }
  if (block < n) {
    x[block] = 0.0;
    freev[block] = false;
  }
}

bool skc_simplex_lsq(const double* A, size_t m, size_t n, const double* b, double total, const double* x0, double mu,
                     double* x) {
  if (n == 0 || n > MAX_CANDIDATES || !(total >= 0.0) || !(mu >= 0.0)) return false;
  double H[MAX_CANDIDATES * MAX_CANDIDATES], f[MAX_CANDIDATES];
  double K[(MAX_CANDIDATES + 1) * (MAX_CANDIDATES + 1)], r[MAX_CANDIDATES + 1], z[MAX_CANDIDATES];
  bool freev[MAX_CANDIDATES];
  size_t idx[MAX_CANDIDATES];
  normal_equations(A, m, n, b, total, x0, mu, H, f);
  double scale = 0.0;
  for (size_t i = 0; i < n; ++i) scale = fmax(scale, fabs(H[i * n + i]) * (total > 0 ? total : 1.0) + fabs(f[i]));
  double tol = 1e-12 * (scale > 0.0 ? scale : 1.0);
  /* start at the best single vertex of the simplex */
  size_t best = best_vertex(H, f, n, total);
  start_at_vertex(x, freev, n, best, total);
  if (total == 0.0) return true;
  for (size_t iter = 0; iter < 20 * n + 50; ++iter) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
      if (freev[i]) idx[k++] = i;
    if (!solve_kkt(H, f, n, idx, k, total, K, r)) return false;
    bool feasible = true;
    for (size_t i = 0; i < k; ++i) {
      z[i] = r[i];
      if (z[i] < -1e-14 * total) feasible = false;
    }
    if (feasible) {
      for (size_t i = 0; i < k; ++i) x[idx[i]] = z[i] > 0.0 ? z[i] : 0.0;
      size_t add = entering_candidate(H, f, n, freev, x, r[k], tol);
      if (add == n) return true;
      freev[add] = true;
      continue;
    }
    step_to_boundary(x, freev, z, idx, k, n, total);
    size_t left = 0;
    for (size_t j = 0; j < n; ++j) left += freev[j];
    if (!left) start_at_vertex(x, freev, n, best, total); /* numerical corner: restart from the best vertex */
  }
  return true; /* iteration cap: x is feasible and no worse than the start */
}

/* The edited vertex: its index, current entries and the skin's joint count. */
typedef struct dvert {
  size_t v;
  uint32_t nj;
  const uint32_t* ej;
  const float* ew;
  size_t en;
} dvert;

/* Checks the vertex index, the pose count and that rest position, targets and palettes are finite. */
static int check_direct(const skc_skin* s, const skc_direct_params* p, skc_err* err) {
  size_t v = p->vertex;
  uint32_t nj = s->joint_count;
  if (v >= s->vertex_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "direct: vertex %zu is past the skin's %zu vertices", v, s->vertex_count);
  if (p->pose_count == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: pose_count must be >= 1");
  for (int k = 0; k < 3; ++k)
    if (!isfinite(p->rest[k])) return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: rest position is not finite");
  for (size_t i = 0; i < 3 * (size_t)p->pose_count; ++i)
    if (!isfinite(p->targets[i]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: target of pose %zu is not finite", i / 3);
  for (size_t i = 0; i < 16 * (size_t)nj * p->pose_count; ++i)
    if (!isfinite(p->palettes[i]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: palette matrix %zu of pose %zu is not finite", (i / 16) % nj,
                      i / 16 / nj);
  return SKC_OK;
}

/* What the locked weights leave to the candidates (*rem = 1 - their sum, at least 0); fails on an invalid locked
 * weight or a locked sum above 1. */
static int unlocked_share(const dvert* dv, const skc_wscope* sc, double* rem, skc_err* err) {
  double lsum = 0.0;
  for (size_t e = 0; e < dv->en; ++e) {
    if (dv->ej[e] >= dv->nj || !skc_wlocked(sc, dv->ej[e])) continue;
    if (!isfinite(dv->ew[e]) || dv->ew[e] < 0.0f)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: vertex %zu has an invalid weight on locked joint %u", dv->v,
                      dv->ej[e]);
    lsum += dv->ew[e];
  }
  if (lsum > 1.0 + 1e-5)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: the locked weights of vertex %zu sum to %g (> 1)", dv->v, lsum);
  *rem = lsum < 1.0 ? 1.0 - lsum : 0.0;
  return SKC_OK;
}

/* The distinct unlocked candidates (cand, *n): the listed joints, or the vertex's current valid joints. */
static int gather_candidates(const dvert* dv, const skc_wscope* sc, const skc_direct_params* p, uint32_t* cand,
                             size_t* out_n, skc_err* err) {
  size_t n = 0;
  if (p->candidates) {
    for (size_t i = 0; i < p->candidate_count; ++i) {
      uint32_t j = p->candidates[i];
      if (j >= dv->nj)
        return skc_fail(err, SKC_OUT_OF_RANGE, "direct: candidate joint %u is past the %u joints", j, dv->nj);
      if (skc_wlocked(sc, j)) continue;
      bool dup = false;
      for (size_t q = 0; q < n; ++q) dup |= cand[q] == j;
      if (dup) continue;
      if (n == MAX_CANDIDATES)
        return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: more than %d candidate joints", MAX_CANDIDATES);
      cand[n++] = j;
    }
  } else {
    for (size_t e = 0; e < dv->en; ++e) {
      uint32_t j = dv->ej[e];
      if (!skc_wentry_valid(j, dv->ew[e], dv->nj) || skc_wlocked(sc, j)) continue;
      bool dup = false;
      for (size_t q = 0; q < n; ++q) dup |= cand[q] == j;
      if (dup) continue;
      if (n == MAX_CANDIDATES)
        return skc_fail(err, SKC_INVALID_ARGUMENT, "direct: vertex %zu has more than %d joints", dv->v, MAX_CANDIDATES);
      cand[n++] = j;
    }
  }
  if (n == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT,
                    "direct: no unlocked candidate joint (the vertex has no unlocked influence and no list was given)");
  *out_n = n;
  return SKC_OK;
}

/* The candidates' current weights, normalized (equal shares when they carry none): the regularization anchor. */
static void anchor_weights(const dvert* dv, const uint32_t* cand, size_t n, double* u0) {
  /* current weights of the candidates as the regularization anchor */
  double csum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    u0[i] = 0.0;
    for (size_t e = 0; e < dv->en; ++e)
      if (dv->ej[e] == cand[i] && isfinite(dv->ew[e]) && dv->ew[e] > 0.0f) u0[i] += dv->ew[e];
    csum += u0[i];
  }
  for (size_t i = 0; i < n; ++i) u0[i] = csum > 0.0 ? u0[i] / csum : 1.0 / (double)n;
}

/* Fills the least-squares system (A: 3 rows per pose, one column per candidate, scaled by rem; b: the targets less
 * the locked joints' part) and returns the trace of A^T A. */
static double lsq_system(const dvert* dv, const skc_wscope* sc, const skc_direct_params* p, const uint32_t* cand,
                         size_t n, double rem, double* A, double* b) {
  double trace = 0.0;
  for (uint32_t k = 0; k < p->pose_count; ++k) {
    const float* pal = p->palettes + 16 * (size_t)dv->nj * k;
    double lk[3] = {0, 0, 0};
    for (size_t e = 0; e < dv->en; ++e) {
      if (dv->ej[e] >= dv->nj || !skc_wlocked(sc, dv->ej[e])) continue;
      float q[3];
      skc_mat4_transform_point(pal + 16 * (size_t)dv->ej[e], p->rest, q);
      for (int d = 0; d < 3; ++d) lk[d] += (double)dv->ew[e] * q[d];
    }
    for (int d = 0; d < 3; ++d) b[3 * k + d] = (double)p->targets[3 * k + d] - lk[d];
    for (size_t i = 0; i < n; ++i) {
      float q[3];
      skc_mat4_transform_point(pal + 16 * (size_t)cand[i], p->rest, q);
      for (int d = 0; d < 3; ++d) {
        A[(3 * k + d) * n + i] = rem * q[d];
        trace += rem * rem * (double)q[d] * q[d];
      }
    }
  }
  return trace;
}

/* Solves the simplex-constrained least squares for the candidates' shares u (summing to 1). */
static int solve_shares(const dvert* dv, const skc_wscope* sc, const skc_direct_params* p, const uint32_t* cand,
                        size_t n, double rem, const double* u0, double* u, skc_err* err) {
  size_t m = 3 * (size_t)p->pose_count;
  double* A = malloc(m * n * sizeof *A);
  double* b = malloc(m * sizeof *b);
  if (!A || !b) {
    free(A);
    free(b);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "direct: out of memory for %u poses", p->pose_count);
  }
  double trace = lsq_system(dv, sc, p, cand, n, rem, A, b);
  double mu = 1e-11 * (trace / (double)n + 1e-30);
  bool ok = skc_simplex_lsq(A, m, n, b, 1.0, u0, mu, u);
  free(A);
  free(b);
  if (!ok) return skc_fail(err, SKC_NO_SOLUTION, "direct: the least-squares system could not be solved");
  return SKC_OK;
}

/* The vertex's new entries (jo/wo; returns their count): locked ones as they are, then the candidates with a
 * positive weight rem u_i, the float sum made exactly 1 on the largest. *nonzero: candidates kept. */
static size_t new_entries(const dvert* dv, const skc_wscope* sc, const uint32_t* cand, size_t n, double rem,
                          const double* u, uint32_t* jo, float* wo, uint32_t* nonzero) {
  /* new entries: locked ones as they are, then the candidates with a positive weight */
  size_t cnt = 0;
  for (size_t e = 0; e < dv->en; ++e)
    if (dv->ej[e] < dv->nj && skc_wlocked(sc, dv->ej[e]) && dv->ew[e] > 0.0f) {
      jo[cnt] = dv->ej[e];
      wo[cnt++] = dv->ew[e];
    }
  size_t first = cnt, largest = cnt;
  *nonzero = 0;
  for (size_t i = 0; i < n; ++i) {
    float w = (float)(rem * u[i]);
    if (!(w > 1e-9f)) continue;
    if (largest == cnt || w > wo[largest]) largest = cnt;
    jo[cnt] = cand[i];
    wo[cnt++] = w;
    ++*nonzero;
  }
  if (cnt > first && rem > 0.0) {
    float fs = 0.0f;
    for (size_t i = 0; i < cnt; ++i) fs += wo[i];
    wo[largest] += 1.0f - fs;
    if (wo[largest] < 0.0f) wo[largest] = 0.0f;
  }
  return cnt;
}

/* The positions the stored weights (jo/wo, cnt) reach in every pose: res->achieved (when given), the residual
 * (*sq: summed squared distances) and the largest distance (*mx). */
static void achieved_positions(const skc_direct_params* p, uint32_t nj, const uint32_t* jo, const float* wo, size_t cnt,
                               skc_direct_result* res, double* sq, double* mx) {
  /* achieved positions from the stored float weights */
  *sq = 0.0, *mx = 0.0;
  for (uint32_t k = 0; k < p->pose_count; ++k) {
    const float* pal = p->palettes + 16 * (size_t)nj * k;
    double a[3] = {0, 0, 0};
    for (size_t i = 0; i < cnt; ++i) {
      float q[3];
      skc_mat4_transform_point(pal + 16 * (size_t)jo[i], p->rest, q);
      for (int d = 0; d < 3; ++d) a[d] += (double)wo[i] * q[d];
    }
    double d2 = 0.0;
    for (int d = 0; d < 3; ++d) {
      double df = a[d] - p->targets[3 * k + d];
      d2 += df * df;
      if (res && res->achieved) res->achieved[3 * k + d] = (float)a[d];
    }
    *sq += d2;
    if (sqrt(d2) > *mx) *mx = sqrt(d2);
  }
}

int skc_weights_direct(skc_skin* s, const skc_wscope* sc, const skc_direct_params* p, skc_direct_result* res,
                       skc_err* err) {
  int rc = check_direct(s, p, err);
  if (rc) return rc;
  size_t v = p->vertex;
  uint32_t nj = s->joint_count;
  dvert dv = {v, nj, s->joints + s->offsets[v], s->weights + s->offsets[v], s->offsets[v + 1] - s->offsets[v]};
  double rem;
  if ((rc = unlocked_share(&dv, sc, &rem, err))) return rc;
  /* candidates */
  uint32_t cand[MAX_CANDIDATES];
  double u0[MAX_CANDIDATES];
  size_t n = 0;
  if ((rc = gather_candidates(&dv, sc, p, cand, &n, err))) return rc;
  anchor_weights(&dv, cand, n, u0);
  double u[MAX_CANDIDATES];
  if ((rc = solve_shares(&dv, sc, p, cand, n, rem, u0, u, err))) return rc;
  size_t cap = dv.en + n;
  uint32_t* nj_ = malloc(cap * sizeof *nj_);
  float* nw = malloc(cap * sizeof *nw);
  if (!nj_ || !nw) {
    free(nj_);
    free(nw);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "direct: out of memory");
  }
  uint32_t nonzero;
  size_t cnt = new_entries(&dv, sc, cand, n, rem, u, nj_, nw, &nonzero);
  rc = skc_skin_set_vertex(s, v, nj_, nw, cnt, err); /* dv's entries are stale from here */
  if (rc) {
    free(nj_);
    free(nw);
    return rc;
  }
  double sq, mx;
  achieved_positions(p, nj, nj_, nw, cnt, res, &sq, &mx);
  free(nj_);
  free(nw);
  if (res) {
    res->residual = sqrt(sq);
    res->max_distance = mx;
    res->candidates_used = (uint32_t)n;
    res->nonzero = nonzero;
  }
  return SKC_OK;
}
