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

/* Scratch of one quantization: integers and remainder candidates (max degree entries each), 8-bit levels. */
typedef struct qwork {
  uint32_t T;
  uint32_t* q;
  rem_t* c;
  const float* level; /* q / 255 as floats (skc_wrow_op.level), NULL for 16 bits */
} qwork;

/* Locked entries: their integers (they must already sit on the grid) into q, their sum into *QL, the unlocked
 * weights' sum into *U. Returns failure flags or 0. */
static uint8_t quantize_locked(const skc_wscope* sc, const uint32_t* J, const float* W, size_t n, qwork* k,
                               uint64_t* QL, double* U) {
  for (size_t i = 0; i < n; ++i) {
    if (skc_wlocked(sc, J[i])) {
      double x = (double)W[i] * k->T, rq = floor(x + 0.5);
      if (fabs(x - rq) > 1e-3) return SKC_WFLAG_FAILED | SKC_WFLAG_LOCKED;
      k->q[i] = (uint32_t)rq;
      *QL += k->q[i];
    } else {
      *U += W[i];
    }
  }
  return 0;
}

/* Rounding each scaled weight to nearest hands R out exactly in most vertices; when it does, the entries rounded
 * up are exactly those with a remainder >= 1/2, which are the largest remainders: the same integers as the
 * largest-remainder rule below, with no candidate list and no sort. Returns the units handed out. */
static uint32_t distribute_nearest(const skc_wscope* sc, const uint32_t* J, const float* W, size_t n, double scale,
                                   uint32_t* q) {
  uint32_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    if (sc->locked && skc_wlocked(sc, J[i])) continue; /* J may be NULL without locks */
    double x = W[i] * scale, fl = (double)(uint32_t)x;
    q[i] = (uint32_t)fl + (x - fl >= 0.5);
    given += q[i];
  }
  return given;
}

/* When rounding to nearest handed out one unit too many (too few), the largest-remainder integers differ from it in
 * one entry: the rounded-up entry last in rem_cmp order gives its unit back (the rounded-down entry with a fraction
 * first in that order takes one) - the rounded-up entries being exactly the first ones in that order. Returns 0
 * (q unusable) when the difference is larger or no such entry exists: then the full rule runs. */
static int nearest_off_by_one(const skc_wscope* sc, const uint32_t* J, const float* W, size_t n, double scale,
                              uint32_t given, uint32_t R, uint32_t* q) {
  int up = given == R + 1u; /* one too many: take one back */
  if (!up && given + 1u != R) return 0;
  size_t pick = SIZE_MAX;
  rem_t best = {0.0, 0.0f, 0};
  for (size_t i = 0; i < n; ++i) {
    if (skc_wlocked(sc, J[i])) continue;
    double x = W[i] * scale, fl = (double)(uint32_t)x;
    rem_t c = {x - fl, W[i], (uint32_t)i};
    if (up ? !(c.rem >= 0.5) : !(c.rem < 0.5 && c.rem > 0.0)) continue;
    if (pick == SIZE_MAX || (up ? rem_cmp(&c, &best) > 0 : rem_cmp(&c, &best) < 0)) best = c, pick = i;
  }
  if (pick == SIZE_MAX) return 0;
  q[pick] = up ? q[pick] - 1u : q[pick] + 1u;
  return 1;
}

/* Largest remainder: floors, then one more unit to each of the largest remainders until the unlocked integers sum
 * to R (see rem_cmp for ties). */
static void distribute_remainders(const skc_wscope* sc, const uint32_t* J, const float* W, size_t n, double scale,
                                  uint32_t R, uint32_t* q, rem_t* c) {
  uint32_t given = 0;
  size_t nc = 0;
  for (size_t i = 0; i < n; ++i) {
    if (skc_wlocked(sc, J[i])) continue;
    double x = W[i] * scale; /* >= 0, <= R (+ rounding) */
    q[i] = (uint32_t)x;      /* truncation = floor for x >= 0 */
    double fl = (double)q[i];
    given += q[i];
    if (x > fl) c[nc++] = (rem_t){x - fl, W[i], (uint32_t)i};
  }
  /* the missing units are fewer than the entries with a fractional part; if rounding left none with a fraction
   * (exact division), the floors already sum to R */
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
}

/* One selected vertex: integers into k->q and the dequantized floats over W. Returns its report flags. */
static uint8_t quantize_vertex(const skc_wscope* sc, const uint32_t* J, float* W, size_t n, qwork* k) {
  uint64_t QL = 0;
  double U = 0.0;
  uint8_t f = quantize_locked(sc, J, W, n, k, &QL, &U);
  if (!f && QL > k->T) f = SKC_WFLAG_FAILED | SKC_WFLAG_LOCKED;
  if (!f && (n == 0 || (U <= 0.0 && QL != k->T))) f = SKC_WFLAG_FAILED | SKC_WFLAG_UNWEIGHTED;
  if (f) return f;
  uint32_t R = (uint32_t)(k->T - QL);
  double scale = U > 0.0 ? R / U : 0.0;
  uint32_t given = distribute_nearest(sc, J, W, n, scale, k->q);
  if (given != R && !nearest_off_by_one(sc, J, W, n, scale, given, R, k->q))
    distribute_remainders(sc, J, W, n, scale, R, k->q, k->c);
  bool changed = false;
  for (size_t i = 0; i < n; ++i) {
    if (skc_wlocked(sc, J[i])) continue;
    float nw = k->level ? k->level[k->q[i]] : (float)((double)k->q[i] / k->T);
    changed |= nw != W[i];
    W[i] = nw;
  }
  return changed ? SKC_WFLAG_CHANGED : 0;
}

int skc_wquantize_nearest(const float* W, size_t n, uint32_t T, const float* level, float* out) {
  double U = 0.0;
  for (size_t i = 0; i < n; ++i) U += W[i];
  if (!(U > 0.0) || n > SKC_WQUANTIZE_NEAREST_MAX) return 0;
  uint32_t q[SKC_WQUANTIZE_NEAREST_MAX], J[SKC_WQUANTIZE_NEAREST_MAX] = {0};
  rem_t c[SKC_WQUANTIZE_NEAREST_MAX];
  const skc_wscope none = {NULL, NULL};
  const double scale = T / U; /* quantize_vertex's steps with nothing locked (R = T) */
  const uint32_t given = distribute_nearest(&none, NULL, W, n, scale, q);
  if (given != T && !nearest_off_by_one(&none, J, W, n, scale, given, T, q))
    distribute_remainders(&none, J, W, n, scale, T, q, c);
  for (size_t i = 0; i < n; ++i) out[i] = level ? level[q[i]] : (float)((double)q[i] / T);
  return 1;
}

uint8_t skc_wrow_quantize(const skc_wrow_op* op, const skc_wscope* sc, const uint32_t* J, float* W, size_t n,
                          void* scratch, skc_wreport* r) {
  size_t bad = skc_wrow_invalid(J, W, n, op->joint_count);
  r->invalid_entries += bad;
  if (bad) return SKC_WFLAG_FAILED | SKC_WFLAG_INVALID;
  /* scratch: the integers, then the remainder records (8-byte aligned) */
  qwork k = {op->count, scratch, (rem_t*)((char*)scratch + ((n * sizeof(uint32_t) + 7) & ~(size_t)7)),
             op->count == 255u ? op->level : NULL};
  return quantize_vertex(sc, J, W, n, &k);
}

/* The skin-wide loop with the integers of every entry kept (out_values). */
static int quantize_with_values(skc_skin* s, const skc_wscope* sc, const skc_wrow_op* op, uint16_t* out_values,
                                skc_wreport* r, skc_err* err) {
  uint32_t* q = malloc(skc_wrow_scratch_bytes(skc_wmax_degree(s)));
  if (!q) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory quantizing weights");
  skc_wreport_begin(r, s);
  for (size_t v = 0; v < s->vertex_count; ++v) {
    size_t b = s->offsets[v], n = s->offsets[v + 1] - b;
    int quantized = 0;
    if (skc_wsel(sc, v)) {
      r->vertices_visited++;
      uint8_t f = skc_wrow_quantize(op, sc, s->joints + b, s->weights + b, n, q, r);
      quantized = !(f & SKC_WFLAG_FAILED);
      if (f) skc_wreport_flag(r, v, f);
    }
    for (size_t i = 0; i < n; ++i)
      out_values[b + i] = quantized ? (uint16_t)q[i] : round_clamped(s->weights[b + i], op->count);
  }
  free(q);
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}

int skc_weights_quantize(skc_skin* s, const skc_wscope* sc, uint32_t bits, uint16_t* out_values, skc_wreport* r,
                         skc_err* err) {
  skc_wrow_op op;
  int rc = skc_wrow_init(&op, SKC_WROW_QUANTIZE, s->joint_count, 0, bits, 0.0f, 0.0f, err);
  if (rc) return rc;
  return out_values ? quantize_with_values(s, sc, &op, out_values, r, err) : skc_weights_rows(s, sc, &op, r, err);
}

uint8_t skc_wrow_round(const skc_wrow_op* op, const skc_wscope* sc, const uint32_t* J, float* W, size_t n,
                       skc_wreport* r) {
  size_t bad = skc_wrow_invalid(J, W, n, op->joint_count);
  r->invalid_entries += bad;
  if (bad) return SKC_WFLAG_FAILED | SKC_WFLAG_INVALID;
  bool changed = false;
  for (size_t i = 0; i < n; ++i) {
    if (skc_wlocked(sc, J[i])) continue;
    float nw = (float)(floor((double)W[i] * op->count + 0.5) / op->count);
    changed |= nw != W[i];
    W[i] = nw;
  }
  return changed ? SKC_WFLAG_CHANGED : 0;
}

int skc_weights_round(skc_skin* s, const skc_wscope* sc, uint32_t steps, skc_wreport* r, skc_err* err) {
  skc_wrow_op op;
  int rc = skc_wrow_init(&op, SKC_WROW_ROUND, s->joint_count, 0, steps, 0.0f, 0.0f, err);
  return rc ? rc : skc_weights_rows(s, sc, &op, r, err);
}
