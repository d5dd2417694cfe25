/* weights_quantize.c - snap weights to 8/16-bit integers that sum exactly to 255 / 65535 (largest remainder),
 * writing the dequantized floats back so a later integer export reproduces the same integers. */
#include <stdlib.h>
#include <string.h>

#include "skc_weights.h"

typedef struct rem_t {
  double rem;
  float w;
  uint32_t i;
} rem_t;

/* larger remainder first; ties: larger weight, then earlier entry */
static int rem_cmp(const void* pa, const void* pb) {
  const rem_t *a = pa, *b = pb;
  if (a->rem != b->rem) return a->rem > b->rem ? -1 : 1;
  if (a->w != b->w) return a->w > b->w ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

static void sort_rems(rem_t* c, size_t n) {
  if (n > 24) {
    qsort(c, n, sizeof *c, rem_cmp);
    return;
  }
  for (size_t i = 1; i < n; ++i) {
    rem_t x = c[i];
    size_t k = i;
    while (k > 0 && rem_cmp(&c[k - 1], &x) > 0) {
      c[k] = c[k - 1];
      --k;
    }
    c[k] = x;
  }
}

static uint16_t round_clamped(float w, uint32_t T) {
  if (!(w > 0.0f)) return 0;
  if (w >= 1.0f) return (uint16_t)T;
  return (uint16_t)lrint((double)w * T);
}

int skc_weights_quantize(skc_skin* s, const skc_wscope* sc, uint32_t bits, uint16_t* out_values, skc_wreport* r,
                         skc_err* err) {
  if (bits != 8 && bits != 16) return skc_fail(err, SKC_INVALID_ARGUMENT, "quantization bits must be 8 or 16, got %u", bits);
  uint32_t T = bits == 8 ? 255u : 65535u;
  size_t maxd = skc_wmax_degree(s);
  uint32_t* q = malloc((maxd ? maxd : 1) * sizeof *q);
  rem_t* c = malloc((maxd ? maxd : 1) * sizeof *c);
  if (!q || !c) {
    free(q);
    free(c);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory quantizing weights");
  }
  /* the 8-bit levels q / 255 as floats, the same values the division gives, without a division per entry */
  float level8[256], *level = bits == 8 ? level8 : NULL;
  for (uint32_t k = 0; level && k <= T; k++) level8[k] = (float)((double)k / T);
  skc_wreport_begin(r, s);
  for (size_t v = 0; v < s->vertex_count; ++v) {
    size_t b = s->offsets[v], n = s->offsets[v + 1] - b;
    const uint32_t* J = s->joints + b;
    float* W = s->weights + b;
    uint8_t f = 0;
    if (skc_wsel(sc, v)) {
      r->vertices_visited++;
      size_t bad = skc_wcount_invalid(s, b, b + n);
      r->invalid_entries += bad;
      if (bad) f = SKC_WFLAG_FAILED | SKC_WFLAG_INVALID;
      uint64_t QL = 0;
      double U = 0.0;
      for (size_t i = 0; i < n && !f; ++i) {
        if (skc_wlocked(sc, J[i])) {
          double x = (double)W[i] * T, rq = floor(x + 0.5);
          if (fabs(x - rq) > 1e-3) f = SKC_WFLAG_FAILED | SKC_WFLAG_LOCKED;
          q[i] = (uint32_t)rq;
          QL += q[i];
        } else {
          U += W[i];
        }
      }
      if (!f && QL > T) f = SKC_WFLAG_FAILED | SKC_WFLAG_LOCKED;
      if (!f && (n == 0 || (U <= 0.0 && QL != T))) f = SKC_WFLAG_FAILED | SKC_WFLAG_UNWEIGHTED;
      if (!f) {
        uint32_t R = (uint32_t)(T - QL), given = 0;
        size_t nc = 0;
        double scale = U > 0.0 ? R / U : 0.0;
        for (size_t i = 0; i < n; ++i) {
          if (skc_wlocked(sc, J[i])) continue;
          double x = W[i] * scale; /* >= 0, <= R (+ rounding) */
          q[i] = (uint32_t)x;        /* truncation = floor for x >= 0 */
          double fl = (double)q[i];
          given += q[i];
          if (x > fl) {
            c[nc].rem = x - fl;
            c[nc].w = W[i];
            c[nc].i = (uint32_t)i;
            ++nc;
          }
        }
        /* the missing units are fewer than the entries with a fractional part; if rounding left none with a
         * fraction (exact division), the floors already sum to R */
        if (given < R) {
          sort_rems(c, nc);
          for (size_t k = 0; k < nc && given < R; ++k, ++given) q[c[k].i]++;
          /* pathological float rounding: hand any rest to the largest unlocked weight */
          if (given < R) {
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < n; ++i)
              if (!skc_wlocked(sc, J[i]) && (best == SIZE_MAX || W[i] > W[best])) best = i;
            if (best != SIZE_MAX) q[best] += R - given;
          }
        }
        while (given > R) { /* float rounding pushed a floor over an integer: take it back from the largest */
          size_t best = SIZE_MAX;
          for (size_t i = 0; i < n; ++i)
            if (!skc_wlocked(sc, J[i]) && q[i] > 0 && (best == SIZE_MAX || q[i] > q[best])) best = i;
          q[best]--;
          given--;
        }
        bool changed = false;
        for (size_t i = 0; i < n; ++i) {
          if (skc_wlocked(sc, J[i])) continue;
          float nw = level ? level[q[i]] : (float)((double)q[i] / T);
          changed |= nw != W[i];
          W[i] = nw;
        }
        if (changed) f = SKC_WFLAG_CHANGED;
        if (out_values)
          for (size_t i = 0; i < n; ++i) out_values[b + i] = (uint16_t)q[i];
        if (f) skc_wreport_flag(r, v, f);
        continue;
      }
      skc_wreport_flag(r, v, f);
    }
    if (out_values)
      for (size_t i = 0; i < n; ++i) out_values[b + i] = round_clamped(W[i], T);
  }
  free(q);
  free(c);
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}
