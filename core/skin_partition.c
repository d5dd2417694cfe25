/* skin_partition.c - a skin's vertices ordered for deformation by influence count: ranges of K = 1, 2, 4 and 8
 * influences (the widths the SIMD deformer kernels run), each packed without per-vertex padding beyond its K, so
 * a rigid vertex costs one matrix and a two-joint vertex two, instead of every vertex paying the largest count. */
#include <string.h>

#include "skc_skin.h"

/* The range a vertex with n influences goes into: 0..3 for K = 1, 2, 4, 8 (a vertex without any joins K = 1). */
static int bucket_of(size_t n) { return n <= 1 ? 0 : n == 2 ? 1 : n <= 4 ? 2 : 3; }

static const uint32_t bucket_k[SKC_PARTITION_MAX_RANGES] = {1, 2, 4, 8};

/* Counts per bucket; SKC_OUT_OF_RANGE when a vertex has more than 8 influences or a joint does not fit 16 bits. */
static int count_buckets(const skc_skin* s, size_t counts[SKC_PARTITION_MAX_RANGES], skc_err* err) {
  memset(counts, 0, SKC_PARTITION_MAX_RANGES * sizeof counts[0]);
  if (s->joint_count > 65536u)
    return skc_fail(err, SKC_OUT_OF_RANGE, "%u joints do not fit the 16-bit joint indices of a partition", s->joint_count);
  for (size_t v = 0; v < s->vertex_count; v++) {
    size_t n = s->offsets[v + 1] - s->offsets[v];
    if (n > 8)
      return skc_fail(err, SKC_OUT_OF_RANGE, "vertex %zu has %zu influences; a partition holds at most 8 (limit first)",
                      v, n);
    counts[bucket_of(n)]++;
  }
  return SKC_OK;
}

/* Packs vertex v's influences into K slots at j / w: its own entries in order, then weight-0 copies of its first
 * joint (joint 0 for a vertex without influences: the deformer keeps a zero-sum vertex at rest). */
static void pack_vertex(const skc_skin* s, size_t v, uint32_t K, uint16_t* j, float* w) {
  size_t b = s->offsets[v], n = s->offsets[v + 1] - b;
  for (uint32_t k = 0; k < K; k++) {
    j[k] = (uint16_t)(k < n ? s->joints[b + k] : n ? s->joints[b] : 0);
    w[k] = k < n ? s->weights[b + k] : 0.0f;
  }
}

int skc_skin_partition(const skc_skin* s, uint32_t* order, skc_partition_range ranges[SKC_PARTITION_MAX_RANGES],
                       uint32_t* range_count, uint16_t* joints, float* weights, size_t* entry_count, skc_err* err) {
  size_t counts[SKC_PARTITION_MAX_RANGES];
  int rc = count_buckets(s, counts, err);
  if (rc) return rc;
  size_t first[SKC_PARTITION_MAX_RANGES], entry[SKC_PARTITION_MAX_RANGES], v0 = 0, e0 = 0;
  uint32_t nr = 0;
  for (int b = 0; b < SKC_PARTITION_MAX_RANGES; b++) {
    first[b] = v0, entry[b] = e0;
    if (counts[b]) ranges[nr++] = (skc_partition_range){v0, counts[b], bucket_k[b], 0, e0};
    v0 += counts[b];
    e0 += counts[b] * bucket_k[b];
  }
  *range_count = nr;
  *entry_count = e0;
  if (!order) return SKC_OK; /* the query */
  for (size_t v = 0; v < s->vertex_count; v++) { /* stable: each range keeps the vertices' own order */
    int b = bucket_of(s->offsets[v + 1] - s->offsets[v]);
    size_t at = first[b]++;
    order[at] = (uint32_t)v;
    if (joints) pack_vertex(s, v, bucket_k[b], joints + entry[b], weights + entry[b]);
    entry[b] += bucket_k[b];
  }
  return SKC_OK;
}
