/* weights_limit.c - cap the influence count per vertex, keeping locked joints and the largest weights. */
#include <stdlib.h>

#include "skc_weights.h"

typedef struct cand {
  float w;
  uint32_t j;
  uint32_t i;
} cand;

/* larger weight first; ties: lower joint, then earlier entry */
static int cand_cmp(const void* pa, const void* pb) {
  const cand *a = pa, *b = pb;
  if (a->w != b->w) return a->w > b->w ? -1 : 1;
  if (a->j != b->j) return a->j < b->j ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

static void sort_cands(cand* c, size_t n) {
  if (n > 24) {
    qsort(c, n, sizeof *c, cand_cmp);
    return;
  }
  for (size_t i = 1; i < n; ++i) {
    cand x = c[i];
    size_t k = i;
    while (k > 0 && cand_cmp(&c[k - 1], &x) > 0) {
      c[k] = c[k - 1];
      --k;
    }
    c[k] = x;
  }
}

/* Marks in keep the entries to keep (locked non-zero ones, then the largest unlocked); returns 0 or the failure
 * bits when the locked entries alone are too many, or fill the count while summing under 1 (slack tol) and a
 * renormalization would have to scale them (`renorm`): the locked weights never change, so the vertex stays. */
static uint8_t choose(const skc_wscope* sc, const uint32_t* J, const float* W, size_t n, size_t max, int renorm,
                      double tol, cand* c, uint8_t* keep) {
  size_t nl = 0, nc = 0;
  double locked_sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    keep[i] = 0;
    if (!(W[i] > 0.0f)) continue;
    if (skc_wlocked(sc, J[i])) {
      keep[i] = 1;
      ++nl;
      locked_sum += W[i];
    } else {
      c[nc++] = (cand){W[i], J[i], (uint32_t)i};
    }
  }
  if (nl > max || (renorm && nl == max && nc > 0 && locked_sum < 1.0 - tol)) return SKC_WFLAG_FAILED | SKC_WFLAG_LOCKED;
  sort_cands(c, nc);
  for (size_t k = 0; k < nc && k < max - nl; ++k) keep[c[k].i] = 1;
  return 0;
}

uint8_t skc_wrow_limit(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n, void* scratch,
                       skc_wreport* r) {
  if (*n <= op->count) return 0;
  size_t bad = skc_wrow_invalid(J, W, *n, op->joint_count);
  r->invalid_entries += bad;
  if (bad) return SKC_WFLAG_FAILED | SKC_WFLAG_INVALID;
  const size_t merged = skc_wrow_merge_duplicates(J, W, n, scratch);
  r->entries_changed += merged;
  const size_t N = *n;
  if (N <= op->count) return merged ? SKC_WFLAG_CHANGED : 0;
  cand* c = scratch;
  uint8_t* keep = (uint8_t*)(c + N);
  uint8_t f = choose(sc, J, W, N, op->count, !(op->flags & SKC_LIMIT_NO_NORMALIZE), op->tol, c, keep);
  if (f) return f;
  size_t out = 0;
  for (size_t i = 0; i < N; ++i)
    if (keep[i]) {
      J[out] = J[i];
      W[out++] = W[i];
    }
  *n = out;
  r->entries_changed += N - out;
  f = SKC_WFLAG_CHANGED;
  if (!(op->flags & SKC_LIMIT_NO_NORMALIZE)) {
    int nf = skc_wnormalize_vertex(J, W, out, sc->locked, op->tol, NULL);
    if (nf) f |= (uint8_t)(SKC_WFLAG_SUM_OFF | nf);
  }
  return f;
}

int skc_weights_limit(skc_skin* s, const skc_wscope* sc, uint32_t max_influences, uint32_t flags, float tolerance,
                      skc_wreport* r, skc_err* err) {
  skc_wrow_op op;
  int rc = skc_wrow_init(&op, SKC_WROW_LIMIT, s->joint_count, flags, max_influences, 0.0f, tolerance, err);
  return rc ? rc : skc_weights_rows(s, sc, &op, r, err);
}
