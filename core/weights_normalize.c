/* weights_normalize.c - the normalization rule (locked joints respected) and the normalize operation; also the
 * small report/scan helpers every weight operation shares. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skc_weights.h"

void skc_wreport_begin(skc_wreport* r, const skc_skin* s) {
  uint32_t* jc = r->joint_counts;
  uint8_t* vf = r->vertex_flags;
  memset(r, 0, sizeof *r);
  r->joint_counts = jc;
  r->vertex_flags = vf;
  r->influences_before = skc_skin_entries(s);
  if (jc) memset(jc, 0, s->joint_count * sizeof *jc);
  if (vf && s->vertex_count) memset(vf, 0, s->vertex_count);
}

size_t skc_wcount_invalid(const skc_skin* s, size_t b, size_t e) {
  return skc_wrow_invalid(s->joints + b, s->weights + b, e - b, s->joint_count);
}

size_t skc_wmax_degree(const skc_skin* s) {
  size_t m = 0;
  for (size_t v = 0; v < s->vertex_count; ++v) {
    size_t d = s->offsets[v + 1] - s->offsets[v];
    if (d > m) m = d;
  }
  return m;
}

int skc_wnormalize_vertex(const uint32_t* joints, float* w, size_t n, const uint8_t* locked, double tol,
                          bool* changed) {
  double L = 0.0, U = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (locked && locked[joints[i]])
      L += w[i];
    else
      U += w[i];
  }
  if (n == 0 || (L <= 0.0 && U <= 0.0)) return SKC_WFLAG_UNWEIGHTED;
  if (L > 1.0 + tol) return SKC_WFLAG_LOCKED;
  double R = L > 1.0 ? 0.0 : 1.0 - L;
  if (U <= 0.0) return R <= tol ? 0 : SKC_WFLAG_UNWEIGHTED;
  double k = R / U;
  if (k == 1.0 || (R > 0.0 && fabs(U - R) <= SKC_WSUM_ROUNDING * (double)n)) return 0;
  bool c = false;
  for (size_t i = 0; i < n; ++i)
    if (!(locked && locked[joints[i]])) {
      float x = (float)(w[i] * k);
      c |= x != w[i];
      w[i] = x;
    }
  if (changed && c) *changed = true;
  return 0;
}

/* Drops the invalid entries of a row (order kept); returns the new count. */
static size_t keep_valid(uint32_t* J, float* W, size_t n, uint32_t joint_count) {
  size_t out = 0;
  for (size_t i = 0; i < n; ++i)
    if (skc_wentry_valid(J[i], W[i], joint_count)) {
      J[out] = J[i];
      W[out++] = W[i];
    }
  return out;
}

uint8_t skc_wrow_normalize(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n,
                           skc_wreport* r) {
  size_t bad = skc_wrow_invalid(J, W, *n, op->joint_count);
  r->invalid_entries += bad;
  uint8_t f = bad ? SKC_WFLAG_INVALID : 0;
  bool changed = false;
  if (bad && !(op->flags & SKC_NORMALIZE_DROP_INVALID)) return f | SKC_WFLAG_FAILED;
  if (bad) {
    *n = keep_valid(J, W, *n, op->joint_count);
    changed = true;
  }
  int nf = skc_wnormalize_vertex(J, W, *n, sc->locked, op->tol, &changed);
  if (nf) f |= (uint8_t)(nf | (changed ? SKC_WFLAG_SUM_OFF : SKC_WFLAG_FAILED));
  if (changed) f |= SKC_WFLAG_CHANGED;
  return f;
}

int skc_weights_normalize(skc_skin* s, const skc_wscope* sc, uint32_t flags, float tolerance, skc_wreport* r,
                          skc_err* err) {
  skc_wrow_op op;
  int rc = skc_wrow_init(&op, SKC_WROW_NORMALIZE, s->joint_count, flags, 0, 0.0f, tolerance, err);
  return rc ? rc : skc_weights_rows(s, sc, &op, r, err);
}
