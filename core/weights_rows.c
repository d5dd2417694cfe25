/* weights_rows.c - the per-vertex weight edits (normalize, limit, prune, quantize, round) as rows: argument checks,
 * the dispatch, and the loop over a CSR skin. The rows themselves live with their operations (weights_*.c). */
#include <stdlib.h>
#include <string.h>

#include "skc_weights.h"

int skc_wrow_init(skc_wrow_op* op, int kind, uint32_t joint_count, uint32_t flags, uint32_t count, float threshold,
                  float tolerance, skc_err* err) {
  memset(op, 0, offsetof(skc_wrow_op, level));
  op->kind = kind;
  op->flags = flags;
  op->count = count;
  op->threshold = threshold;
  op->tol = tolerance > 0.0f ? tolerance : 1e-5;
  op->joint_count = joint_count;
  switch (kind) {
    case SKC_WROW_NORMALIZE:
      return SKC_OK;
    case SKC_WROW_LIMIT:
      if (count == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "max_influences must be at least 1");
      return SKC_OK;
    case SKC_WROW_PRUNE:
      if (!isfinite(threshold) || threshold < 0.0f || threshold > 1.0f)
        return skc_fail(err, SKC_INVALID_ARGUMENT, "prune threshold %g is outside [0, 1]", (double)threshold);
      return SKC_OK;
    case SKC_WROW_QUANTIZE:
      if (count != 8 && count != 16)
        return skc_fail(err, SKC_INVALID_ARGUMENT, "quantization bits must be 8 or 16, got %u", count);
      op->count = count == 8 ? 255u : 65535u;
      for (uint32_t i = 0; count == 8 && i <= 255u; i++) op->level[i] = (float)((double)i / 255.0);
      return SKC_OK;
    case SKC_WROW_ROUND:
      if (count < 1 || count > 65535)
        return skc_fail(err, SKC_INVALID_ARGUMENT, "rounding steps must be 1 .. 65535, got %u", count);
      return SKC_OK;
    default:
      return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown row operation %d", kind);
  }
}

static int key_cmp(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

/* Many entries: (joint, index) keys sorted, so each joint's entries are adjacent and in their order. */
static size_t merge_sorted(uint32_t* J, float* W, size_t N, void* scratch) {
  uint64_t* key = scratch;
  uint8_t* drop = (uint8_t*)(key + N);
  for (size_t i = 0; i < N; ++i) key[i] = (uint64_t)J[i] << 32 | i;
  qsort(key, N, sizeof *key, key_cmp);
  memset(drop, 0, N);
  for (size_t a = 0, b; a < N; a = b) {
    const size_t first = (uint32_t)key[a];
    for (b = a + 1; b < N && key[b] >> 32 == key[a] >> 32; ++b) {
      W[first] += W[(uint32_t)key[b]];
      drop[(uint32_t)key[b]] = 1;
    }
  }
  size_t out = 0;
  for (size_t i = 0; i < N; ++i)
    if (!drop[i]) J[out] = J[i], W[out++] = W[i];
  return out;
}

size_t skc_wrow_merge_duplicates(uint32_t* J, float* W, size_t* n, void* scratch) {
  const size_t N = *n;
  size_t out = 0;
  if (N < 2) return 0;
  if (N > 64) {
    out = merge_sorted(J, W, N, scratch);
  } else {
    for (size_t i = 0; i < N; ++i) {
      size_t k = 0;
      while (k < out && J[k] != J[i]) ++k;
      if (k < out) {
        W[k] += W[i];
      } else {
        J[out] = J[i];
        W[out++] = W[i];
      }
    }
  }
  *n = out;
  return N - out;
}

/* limit: a 12-byte candidate and a keep byte per entry; quantize: an integer and a 24-byte remainder record;
 * skc_wrow_merge_duplicates: an 8-byte key and a byte */
size_t skc_wrow_scratch_bytes(size_t max_n) { return 32 * (max_n ? max_n : 1) + 16; }

uint8_t skc_wrow_apply(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n, void* scratch,
                       skc_wreport* r) {
  switch (op->kind) {
    case SKC_WROW_NORMALIZE:
      return skc_wrow_normalize(op, sc, J, W, n, r);
    case SKC_WROW_LIMIT:
      return skc_wrow_limit(op, sc, J, W, n, scratch, r);
    case SKC_WROW_PRUNE:
      return skc_wrow_prune(op, sc, J, W, n, scratch, r);
    case SKC_WROW_QUANTIZE:
      return skc_wrow_quantize(op, sc, J, W, *n, scratch, r);
    default:
      return skc_wrow_round(op, sc, J, W, *n, r);
  }
}

int skc_weights_rows(skc_skin* s, const skc_wscope* sc, const skc_wrow_op* op, skc_wreport* r, skc_err* err) {
  void* scratch = malloc(skc_wrow_scratch_bytes(skc_wmax_degree(s)));
  if (!scratch) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory editing weights");
  skc_wreport_begin(r, s);
  size_t out = 0, b = 0;
  for (size_t v = 0; v < s->vertex_count; ++v) {
    size_t e = s->offsets[v + 1], n = e - b;
    if (out != b) { /* rows before this one lost entries: move it down */
      memmove(s->joints + out, s->joints + b, n * sizeof *s->joints);
      memmove(s->weights + out, s->weights + b, n * sizeof *s->weights);
    }
    if (skc_wsel(sc, v)) {
      r->vertices_visited++;
      uint8_t f = skc_wrow_apply(op, sc, s->joints + out, s->weights + out, &n, scratch, r);
      if (f) skc_wreport_flag(r, v, f);
    }
    out += n;
    b = e;
    s->offsets[v + 1] = (uint32_t)out;
  }
  free(scratch);
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}
