/* weights_prune.c - remove small influences (locked joints kept), optionally renormalizing. */
#include <stdint.h>

#include "skc_weights.h"

uint8_t skc_wrow_prune(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n, void* scratch,
                       skc_wreport* r) {
  size_t bad = skc_wrow_invalid(J, W, *n, op->joint_count);
  r->invalid_entries += bad;
  if (bad) return SKC_WFLAG_FAILED | SKC_WFLAG_INVALID;
  const size_t merged = skc_wrow_merge_duplicates(J, W, n, scratch);
  r->entries_changed += merged;
  const size_t N = *n;
  float threshold = op->threshold;
  /* largest unlocked entry and whether an unlocked one survives; KEEP_ONE keeps that largest when none does and the
   * locked weights alone are not the whole vertex (a renormalization would otherwise scale them: an auditor's
   * locked 0.25 became 1.0) */
  size_t best = SIZE_MAX;
  bool survivor = false;
  double locked_sum = 0.0;
  for (size_t i = 0; i < N; ++i) {
    bool lk = skc_wlocked(sc, J[i]);
    if (lk && W[i] > 0.0f) locked_sum += W[i];
    if (!lk && skc_wprune_keeps(W[i], threshold)) survivor = true;
    if (!lk && W[i] > 0.0f && (best == SIZE_MAX || W[i] > W[best])) best = i;
  }
  bool keep_best = (op->flags & SKC_PRUNE_KEEP_ONE) && !survivor && best != SIZE_MAX &&
                   !(locked_sum > 0.0 && locked_sum >= 1.0 - op->tol);
  size_t out = 0;
  for (size_t i = 0; i < N; ++i)
    if (skc_wlocked(sc, J[i]) || skc_wprune_keeps(W[i], threshold) || (keep_best && i == best)) {
      J[out] = J[i];
      W[out++] = W[i];
    }
  *n = out;
  bool changed = out != N || merged;
  r->entries_changed += N - out;
  uint8_t f = changed ? SKC_WFLAG_CHANGED : 0;
  if (op->flags & SKC_PRUNE_NORMALIZE) {
    int nf = skc_wnormalize_vertex(J, W, out, sc->locked, op->tol, &changed);
    if (changed) f |= SKC_WFLAG_CHANGED;
    if (nf) f |= (uint8_t)(nf | (changed ? SKC_WFLAG_SUM_OFF : SKC_WFLAG_FAILED));
  }
  return f;
}

int skc_weights_prune(skc_skin* s, const skc_wscope* sc, float threshold, uint32_t flags, float tolerance,
                      skc_wreport* r, skc_err* err) {
  skc_wrow_op op;
  int rc = skc_wrow_init(&op, SKC_WROW_PRUNE, s->joint_count, flags, 0, threshold, tolerance, err);
  return rc ? rc : skc_weights_rows(s, sc, &op, r, err);
}
