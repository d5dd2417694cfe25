/* weights_limit.c - cap the influence count per vertex, keeping locked joints and the largest weights. */
#include <stdlib.h>
#include <string.h>

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

int skc_weights_limit(skc_skin* s, const skc_wscope* sc, uint32_t max_influences, uint32_t flags, float tolerance,
                      skc_wreport* r, skc_err* err) {
  if (max_influences == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "max_influences must be at least 1");
  double tol = tolerance > 0.0f ? tolerance : 1e-5;
  size_t maxd = skc_wmax_degree(s);
  cand* c = NULL;
  uint8_t* keep = NULL;
  if (maxd > max_influences) {
    c = malloc(maxd * sizeof *c);
    keep = malloc(maxd);
    if (!c || !keep) {
      free(c);
      free(keep);
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory limiting influences");
    }
  }
  skc_wreport_begin(r, s);
  size_t V = s->vertex_count, out = 0, b = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t e = s->offsets[v + 1], n = e - b;
    bool sel = skc_wsel(sc, v);
    if (sel) r->vertices_visited++;
    uint8_t f = 0;
    if (sel && n > max_influences) {
      size_t bad = skc_wcount_invalid(s, b, e);
      r->invalid_entries += bad;
      if (bad) {
        f = SKC_WFLAG_FAILED | SKC_WFLAG_INVALID;
      } else {
        size_t nl = 0, nc = 0;
        for (size_t i = 0; i < n; ++i) {
          uint32_t j = s->joints[b + i];
          float w = s->weights[b + i];
          keep[i] = 0;
          if (!(w > 0.0f)) continue;
          if (skc_wlocked(sc, j)) {
            keep[i] = 1;
            ++nl;
          } else {
            c[nc].w = w;
            c[nc].j = j;
            c[nc].i = (uint32_t)i;
            ++nc;
          }
        }
        if (nl > max_influences) {
          f = SKC_WFLAG_FAILED | SKC_WFLAG_LOCKED;
        } else {
          sort_cands(c, nc);
          size_t room = max_influences - nl;
          for (size_t k = 0; k < nc && k < room; ++k) keep[c[k].i] = 1;
          size_t start = out;
          for (size_t i = 0; i < n; ++i)
            if (keep[i]) {
              s->joints[out] = s->joints[b + i];
              s->weights[out] = s->weights[b + i];
              ++out;
            }
          r->entries_changed += n - (out - start);
          f = SKC_WFLAG_CHANGED;
          if (!(flags & SKC_LIMIT_NO_NORMALIZE)) {
            int nf = skc_wnormalize_vertex(s->joints + start, s->weights + start, out - start, sc->locked, tol, NULL);
            if (nf) f |= (uint8_t)(SKC_WFLAG_SUM_OFF | nf);
          }
          skc_wreport_flag(r, v, f);
          b = e;
          s->offsets[v + 1] = (uint32_t)out;
          continue;
        }
      }
    }
    if (f) skc_wreport_flag(r, v, f);
    if (out != b) {
      memmove(s->joints + out, s->joints + b, n * sizeof *s->joints);
      memmove(s->weights + out, s->weights + b, n * sizeof *s->weights);
    }
    out += n;
    b = e;
    s->offsets[v + 1] = (uint32_t)out;
  }
  free(c);
  free(keep);
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}
