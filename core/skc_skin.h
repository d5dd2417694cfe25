/* skc_skin.h - canonical variable-length skin weights (CSR) and conversions to packed fixed-K streams. */
#ifndef SKC_SKIN_H
#define SKC_SKIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

/* The public handle sk_skin is this struct. Vertex v owns entries offsets[v] .. offsets[v+1]-1. */
struct sk_skin {
  size_t vertex_count;
  uint32_t joint_count; /* valid joint indices are 0 .. joint_count-1 */
  uint32_t* offsets;    /* vertex_count + 1 */
  uint32_t* joints;     /* capacity entries */
  float* weights;       /* capacity entries */
  size_t capacity;
};
typedef struct sk_skin skc_skin;

/* Read-only view of CSR arrays; validation and ops work on views so that io can check raw file data. */
typedef struct skc_skin_view {
  size_t vertex_count;
  uint32_t joint_count;
  const uint32_t* offsets;
  const uint32_t* joints;
  const float* weights;
} skc_skin_view;

#define SKC_MAX_INFLUENCES_PER_VERTEX 65535u

int skc_skin_create(size_t vertex_count, uint32_t joint_count, skc_skin** out, skc_err* err);
void skc_skin_destroy(skc_skin* s);
int skc_skin_clone(const skc_skin* s, skc_skin** out, skc_err* err);
skc_skin_view skc_skin_as_view(const skc_skin* s);
static inline size_t skc_skin_entries(const skc_skin* s) { return s->offsets[s->vertex_count]; }
/* Checks offsets: offsets[0] = 0, non-decreasing, no vertex above SKC_MAX_INFLUENCES_PER_VERTEX entries. */
int skc_offsets_check(const uint32_t* offsets, size_t vertex_count, skc_err* err);
/* Replaces the arrays (copies). */
int skc_skin_set(skc_skin* s, const uint32_t* offsets, const uint32_t* joints, const float* weights, skc_err* err);
/* Ensures room for `entries` influences without changing content. */
int skc_skin_reserve(skc_skin* s, size_t entries, skc_err* err);
/* Replaces one vertex's influences (shifts the tail; O(entries)). */
int skc_skin_set_vertex(skc_skin* s, size_t v, const uint32_t* joints, const float* weights, size_t count,
                        skc_err* err);

/* Incremental builder used by operations that rewrite every vertex: append vertex by vertex, then take. */
typedef struct skc_skin_builder {
  uint32_t* offsets;
  uint32_t* joints;
  float* weights;
  size_t vertex_count, vertices_done, entries, capacity;
  int failed;
} skc_skin_builder;
int skc_skin_builder_init(skc_skin_builder* b, size_t vertex_count, size_t capacity_hint, skc_err* err);
int skc_skin_builder_push(skc_skin_builder* b, const uint32_t* joints, const float* weights, size_t count);
/* Moves the built arrays into s (replacing its weights) when all vertices were pushed; frees b either way. */
int skc_skin_builder_finish(skc_skin_builder* b, skc_skin* s, skc_err* err);
void skc_skin_builder_free(skc_skin_builder* b);

/* ---- packed fixed-K streams ------------------------------------------------------------------------- */
typedef enum skc_type { SKC_TYPE_NONE = 0, SKC_TYPE_U8 = 1, SKC_TYPE_U16 = 2, SKC_TYPE_U32 = 3, SKC_TYPE_F32 = 4 } skc_type;
size_t skc_type_size(int type);

typedef struct skc_packed {
  uint32_t k;
  int joint_type;  /* U8/U16/U32 */
  int weight_type; /* F32/U8/U16 */
  void* joints;
  size_t joints_stride;
  void* weights;
  size_t weights_stride;
} skc_packed;

/* Selects the k largest valid (finite, > 0) weights of one vertex, sorted by weight descending (ties: lower
 * joint), renormalized to sum 1. Returns the count kept (<= k). */
size_t skc_select_top(const uint32_t* joints, const float* weights, size_t count, size_t k, uint32_t* out_joints,
                      float* out_weights);
/* Integer weights summing exactly to `total` (255 / 65535) by largest remainder; weights must sum to 1. */
void skc_quantize_weights(const float* weights, size_t count, uint32_t total, uint32_t* out);

int skc_skin_to_packed(const skc_skin_view* v, const skc_packed* p, skc_err* err);
int skc_skin_from_packed(skc_skin* s, const skc_packed* p, skc_err* err);

/* ---- validation ---------------------------------------------------------------------------------- */
#define SKC_HISTOGRAM_BINS 17
enum {
  SKC_VFLAG_SUM_OFF = 1 << 0,
  SKC_VFLAG_UNWEIGHTED = 1 << 1,
  SKC_VFLAG_NAN = 1 << 2,
  SKC_VFLAG_NEGATIVE = 1 << 3,
  SKC_VFLAG_BAD_JOINT = 1 << 4,
  SKC_VFLAG_DUPLICATE = 1 << 5,
  SKC_VFLAG_OVER_LIMIT = 1 << 6
};
typedef struct skc_skin_report {
  uint32_t max_influences;
  uint64_t vertex_count, influence_count;
  float weight_sum_min, weight_sum_max;
  uint64_t off_tolerance, unweighted, nan, negative, bad_joint, duplicate, over_limit, joints_used;
  uint64_t histogram[SKC_HISTOGRAM_BINS];
  bool findings;
} skc_skin_report;

/* Adds one vertex's SKC_VFLAG_* flags to the report's counters (skc_skin_validate and the glTF raw check). */
void skc_skin_report_tally(skc_skin_report* r, uint8_t flags);
/* Sets r->findings from the counters. */
void skc_skin_report_finish(skc_skin_report* r);

/* tolerance <= 0 means 1e-3; max_influences 0 = no limit. flags (vertex_count bytes) may be NULL. */
int skc_skin_validate(const skc_skin_view* v, float tolerance, uint32_t max_influences, skc_skin_report* r,
                      uint8_t* flags, skc_err* err);

/* ---- partition by influence count (skin_partition.c; sk_skin_partition) ---------------------------------- */
#define SKC_PARTITION_MAX_RANGES 4
typedef struct skc_partition_range {
  size_t first, count;   /* vertices [first, first + count) of the new order */
  uint32_t influences;   /* K: 1, 2, 4 or 8 */
  uint32_t reserved;
  size_t entry_offset;   /* the range's count * K packed entries start here */
} skc_partition_range;
/* order (vertex_count: new -> old), ranges in ascending K (only non-empty ones; *range_count of them), joints /
 * weights (*entry_count each). order NULL: counts only. joints NULL (order given): the order alone.
 * SKC_OUT_OF_RANGE: a vertex with more than 8 influences or more than 65536 joints. */
int skc_skin_partition(const skc_skin* s, uint32_t* order, skc_partition_range ranges[SKC_PARTITION_MAX_RANGES],
                       uint32_t* range_count, uint16_t* joints, float* weights, size_t* entry_count, skc_err* err);

#endif
