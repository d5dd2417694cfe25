/* weights_prune.c - remove small influences (locked joints kept), optionally renormalizing. */
#include <string.h>

#include "skc_weights.h"

int skc_weights_prune(skc_skin* s, const skc_wscope* sc, float threshold, uint32_t flags, float tolerance,
                      skc_wreport* r, skc_err* err) {
  if (!isfinite(threshold) || threshold < 0.0f || threshold > 1.0f)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "prune threshold %g is outside [0, 1]", (double)threshold);
  double tol = tolerance > 0.0f ? tolerance : 1e-5;
  skc_wreport_begin(r, s);
  size_t V = s->vertex_count, out = 0, b = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t e = s->offsets[v + 1], n = e - b, start = out;
    bool sel = skc_wsel(sc, v);
    size_t bad = sel ? skc_wcount_invalid(s, b, e) : 0;
    if (!sel || bad) {
      if (sel) {
        r->vertices_visited++;
        r->invalid_entries += bad;
        skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
      }
      if (out != b) {
        memmove(s->joints + out, s->joints + b, n * sizeof *s->joints);
        memmove(s->weights + out, s->weights + b, n * sizeof *s->weights);
      }
      out += n;
      b = e;
      s->offsets[v + 1] = (uint32_t)out;
      continue;
    }
    r->vertices_visited++;
    /* largest unlocked entry and whether anything non-zero survives */
    size_t best = SIZE_MAX;
    bool survivor = false;
    for (size_t i = b; i < e; ++i) {
      float w = s->weights[i];
      bool lk = skc_wlocked(sc, s->joints[i]);
      if (lk ? w > 0.0f : (w >= threshold && w > 0.0f)) survivor = true;
      if (!lk && w > 0.0f && (best == SIZE_MAX || w > s->weights[best])) best = i;
    }
    bool keep_best = (flags & SKC_PRUNE_KEEP_ONE) && !survivor && best != SIZE_MAX;
    for (size_t i = b; i < e; ++i) {
      float w = s->weights[i];
      bool lk = skc_wlocked(sc, s->joints[i]);
      if (lk || (w >= threshold && w > 0.0f) || (keep_best && i == best)) {
        s->joints[out] = s->joints[i];
        s->weights[out] = w;
        ++out;
      }
    }
    b = e;
    s->offsets[v + 1] = (uint32_t)out;
    bool changed = out - start != n;
    r->entries_changed += n - (out - start);
    uint8_t f = changed ? SKC_WFLAG_CHANGED : 0;
    if (flags & SKC_PRUNE_NORMALIZE) {
      int nf = skc_wnormalize_vertex(s->joints + start, s->weights + start, out - start, sc->locked, tol, &changed);
      if (changed) f |= SKC_WFLAG_CHANGED;
      if (nf) f |= (uint8_t)(nf | (changed ? SKC_WFLAG_SUM_OFF : SKC_WFLAG_FAILED));
    }
    if (f) skc_wreport_flag(r, v, f);
  }
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}
