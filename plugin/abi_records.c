/* abi_records.c - per-vertex weight records (Blender's MDeformVert layout) to CSR and back, in place. The addon
 * reads a mesh's vertex groups through these in a few milliseconds instead of evaluating the scene, and writes the
 * changes a weight tool made without allocating: weights rewritten, memberships removed. Anything that needs an
 * allocation (a new membership, a vertex left with none) is handed back as deferred, for the caller's own API. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */

#include <float.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(SK_HAVE_OPENMP)
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "abi_internal.h"
#include "skc_par.h"
#include "skc_skin.h"

_Static_assert(sizeof(sk_weight_entry) == 8, "sk_weight_entry must match MDeformWeight");

static int32_t joint_of(const int32_t* group_to_joint, uint32_t group_count, uint32_t group) {
  return group < group_count ? group_to_joint[group] : -1;
}

/* 0 when every record has a sane count and an array when it has entries; else the index of the first bad one + 1. */
static size_t first_bad_record(const sk_weight_record* records, size_t vertex_count) {
  for (size_t v = 0; v < vertex_count; v++) {
    const sk_weight_record* r = &records[v];
    if (r->count < 0 || r->count > SK_RECORD_MAX_ENTRIES || (r->count > 0 && !r->entries)) return v + 1;
  }
  return 0;
}

static sk_result check_pointers(const sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                uint32_t group_count, sk_error* err) {
  if (vertex_count && !records) SK__FAIL(err, SKC_INVALID_ARGUMENT, "records must not be NULL");
  if (group_count && !group_to_joint) SK__FAIL(err, SKC_INVALID_ARGUMENT, "group_to_joint must not be NULL");
  return sk__ret(0, NULL, err);
}

static sk_result check_common(const sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                              uint32_t group_count, sk_error* err) {
  sk_result rc = check_pointers(records, vertex_count, group_to_joint, group_count, err);
  if (rc != SK_OK) return rc;
  size_t bad = first_bad_record(records, vertex_count);
  if (bad)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "record %zu has count %d and entries %p", bad - 1, (int)records[bad - 1].count,
             (void*)records[bad - 1].entries);
  return sk__ret(0, NULL, err);
}

/* sk_records_read after the checks; take (optional): vertices whose entries are read, the others get empty rows. */
static sk_result read_rows(const sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                           uint32_t group_count, const uint8_t* take, uint32_t* out_offsets, uint32_t* out_joints,
                           float* out_weights, size_t capacity, size_t* out_entry_count, sk_error* err) {
  /* one pass: a cold record array costs a cache miss per vertex, so entries are copied while counting */
  size_t total = 0;
  int fill = out_joints != NULL;
  out_offsets[0] = 0;
  for (size_t v = 0; v < vertex_count; v++) {
    for (int32_t i = 0; (!take || take[v]) && i < records[v].count; i++) {
      int32_t j = joint_of(group_to_joint, group_count, records[v].entries[i].group);
      if (j < 0) continue;
      if (fill && total < capacity) {
        out_joints[total] = (uint32_t)j;
        out_weights[total] = records[v].entries[i].weight;
      }
      total++;
    }
    if (total > UINT32_MAX) SK__FAIL(err, SKC_OUT_OF_RANGE, "more than 2^32 - 1 entries");
    out_offsets[v + 1] = (uint32_t)total;
  }
  *out_entry_count = total;
  if (fill && capacity < total)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "capacity %zu is below the %zu entries", capacity, total);
  return sk__ret(0, NULL, err);
}

SK_API sk_result sk_records_read(const sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                 uint32_t group_count, uint32_t* out_offsets, uint32_t* out_joints,
                                 float* out_weights, size_t capacity, size_t* out_entry_count, sk_error* err) {
  if (!out_offsets || !out_entry_count) SK__FAIL(err, SKC_INVALID_ARGUMENT, "out_offsets and out_entry_count are required");
  if (!out_joints != !out_weights) SK__FAIL(err, SKC_INVALID_ARGUMENT, "give both out_joints and out_weights, or neither");
  sk_result rc = check_common(records, vertex_count, group_to_joint, group_count, err);
  if (rc != SK_OK) return rc;
  return read_rows(records, vertex_count, group_to_joint, group_count, NULL, out_offsets, out_joints, out_weights,
                   capacity, out_entry_count, err);
}

/* The group of each joint (joint_count entries, -1 where none); NULL (err set) when two groups map to one joint. */
static int32_t* group_of_joints(const int32_t* group_to_joint, uint32_t group_count, uint32_t* joint_count,
                                sk_result* rc, sk_error* err) {
  uint32_t jc = 0;
  for (uint32_t g = 0; g < group_count; g++)
    if (group_to_joint[g] >= 0 && (uint32_t)group_to_joint[g] + 1 > jc) jc = (uint32_t)group_to_joint[g] + 1;
  int32_t* out = malloc(((size_t)jc + 1) * sizeof *out);
  if (!out) {
    skc_err e;
    skc_fail(&e, SKC_OUT_OF_MEMORY, "group map of %u joints", jc);
    *rc = sk__ret(e.code, &e, err);
    return NULL;
  }
  for (uint32_t j = 0; j < jc; j++) out[j] = -1;
  for (uint32_t g = 0; g < group_count; g++) {
    int32_t j = group_to_joint[g];
    if (j < 0) continue;
    if (out[j] >= 0) {
      skc_err e;
      skc_fail(&e, SKC_INVALID_ARGUMENT, "groups %d and %u both map to joint %d", (int)out[j], g, (int)j);
      *rc = sk__ret(e.code, &e, err);
      free(out);
      return NULL;
    }
    out[j] = (int32_t)g;
  }
  *joint_count = jc;
  return out;
}

static int row_has(const uint32_t* joints, uint32_t begin, uint32_t end, int32_t joint, uint32_t* at) {
  for (uint32_t k = begin; k < end; k++)
    if ((int32_t)joints[k] == joint) {
      *at = k;
      return 1;
    }
  return 0;
}

/* Whether the record can take the row in place: every row joint has an entry, and some entry stays. */
static int fits(const sk_weight_record* r, const int32_t* map, uint32_t group_count, const int32_t* group_of,
                const uint32_t* joints, uint32_t begin, uint32_t end) {
  for (uint32_t k = begin; k < end; k++) {
    int found = 0;
    for (int32_t i = 0; i < r->count && !found; i++) found = (int32_t)r->entries[i].group == group_of[joints[k]];
    if (!found) return 0;
  }
  int32_t kept = 0;
  uint32_t at;
  for (int32_t i = 0; i < r->count; i++) {
    int32_t j = joint_of(map, group_count, r->entries[i].group);
    kept += j < 0 || row_has(joints, begin, end, j, &at);
  }
  return kept > 0 || r->count == 0;
}

/* The common case (Quantize, Normalize, Smooth): the row holds the record's mapped entries, in the same order.
 * Writes the row's weights over them and returns 1 when anything changed, 0 when nothing did; -1 (nothing
 * written) when the row and the record differ in their joints. */
static int same_entries(sk_weight_record* r, const int32_t* map, uint32_t group_count, const uint32_t* joints,
                        const float* weights, uint32_t begin, uint32_t end) {
  uint32_t k = begin;
  for (int32_t i = 0; i < r->count; i++) {
    int32_t j = joint_of(map, group_count, r->entries[i].group);
    if (j < 0) continue;
    if (k == end || (int32_t)joints[k] != j) return -1;
    k++;
  }
  if (k != end) return -1;
  int changed = 0;
  k = begin;
  for (int32_t i = 0; i < r->count; i++) {
    if (joint_of(map, group_count, r->entries[i].group) < 0) continue;
    changed |= r->entries[i].weight != weights[k];
    r->entries[i].weight = weights[k++];
  }
  return changed;
}

/* Rewrites the record from the row (see sk_records_update); 1 when anything changed. */
static int apply_row(sk_weight_record* r, const int32_t* map, uint32_t group_count, const uint32_t* joints,
                     const float* weights, uint32_t begin, uint32_t end) {
  int32_t w = 0;
  int changed = 0;
  for (int32_t i = 0; i < r->count; i++) {
    sk_weight_entry e = r->entries[i];
    int32_t j = joint_of(map, group_count, e.group);
    uint32_t at;
    if (j >= 0 && !row_has(joints, begin, end, j, &at)) {
      changed = 1;  /* removed */
      continue;
    }
    if (j >= 0 && e.weight != weights[at]) {
      e.weight = weights[at];
      changed = 1;
    }
    r->entries[w++] = e;
  }
  r->count = w;
  return changed;
}

static sk_result check_rows(const uint32_t* offsets, const uint32_t* joints, size_t vertex_count,
                            const int32_t* group_of, uint32_t joint_count, sk_error* err) {
  for (size_t v = 0; v < vertex_count; v++) {
    if (offsets[v + 1] < offsets[v]) SK__FAIL(err, SKC_INVALID_ARGUMENT, "offsets decrease at vertex %zu", v);
    for (uint32_t k = offsets[v]; k < offsets[v + 1]; k++)
      if (joints[k] >= joint_count || group_of[joints[k]] < 0)
        SK__FAIL(err, SKC_INVALID_ARGUMENT, "vertex %zu: joint %u comes from no group", v, joints[k]);
  }
  return sk__ret(0, NULL, err);
}

SK_API sk_result sk_records_update(sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                   uint32_t group_count, const uint32_t* offsets, const uint32_t* joints,
                                   const float* weights, const uint8_t* mask, uint8_t* out_deferred,
                                   size_t* out_changed, sk_error* err) {
  if (!offsets || !out_deferred) SK__FAIL(err, SKC_INVALID_ARGUMENT, "offsets and out_deferred are required");
  if (offsets[vertex_count] && (!joints || !weights)) SK__FAIL(err, SKC_INVALID_ARGUMENT, "joints and weights are required");
  sk_result rc = check_common(records, vertex_count, group_to_joint, group_count, err);
  if (rc != SK_OK) return rc;
  uint32_t joint_count = 0;
  int32_t* group_of = group_of_joints(group_to_joint, group_count, &joint_count, &rc, err);
  if (!group_of) return rc;
  rc = check_rows(offsets, joints, vertex_count, group_of, joint_count, err);
  size_t changed = 0;
  for (size_t v = 0; v < vertex_count && rc == SK_OK; v++) {
    out_deferred[v] = 0;
    if (mask && !mask[v]) continue;
    int same = same_entries(&records[v], group_to_joint, group_count, joints, weights, offsets[v], offsets[v + 1]);
    if (same >= 0)
      changed += (size_t)same;
    else if (!fits(&records[v], group_to_joint, group_count, group_of, joints, offsets[v], offsets[v + 1]))
      out_deferred[v] = 1;
    else
      changed += apply_row(&records[v], group_to_joint, group_count, joints, weights, offsets[v], offsets[v + 1]);
  }
  free(group_of);
  if (out_changed && rc == SK_OK) *out_changed = changed;
  return rc;
}

/* ---- sk_records_edit ------------------------------------------------------------------------------------ */

/* Each selected vertex's mapped entries are gathered into a row, edited by the operation's row function (the one
 * sk_weights_* runs over a skin, core/weights_rows.c), compared with the entries read and written back: one pass
 * over the records, nothing copied but the row in hand (docs/addon.md has the figures). */

/* The row being edited: as read (j0, w0, and where each entry sits in the record: at) and as edited (j1, w1),
 * with the operation's scratch; grown on demand. */
typedef struct row_buf {
  uint32_t *j0, *j1, *at;
  float *w0, *w1;
  void* scratch;
  size_t cap;
} row_buf;

static void row_buf_free(row_buf* b) {
  free(b->j0), free(b->j1), free(b->at), free(b->w0), free(b->w1), free(b->scratch);
  *b = (row_buf){0};
}

static int row_buf_reserve(row_buf* b, size_t n) {
  if (b->cap && n <= b->cap) return 1; /* (allocated even for an empty row: the row functions take real arrays) */
  size_t cap = n < 32 ? 32 : n;
  row_buf_free(b);
  b->j0 = malloc(cap * sizeof *b->j0), b->j1 = malloc(cap * sizeof *b->j1), b->at = malloc(cap * sizeof *b->at);
  b->w0 = malloc(cap * sizeof *b->w0), b->w1 = malloc(cap * sizeof *b->w1);
  b->scratch = malloc(skc_wrow_scratch_bytes(cap));
  if (!b->j0 || !b->j1 || !b->at || !b->w0 || !b->w1 || !b->scratch) {
    row_buf_free(b);
    return 0;
  }
  b->cap = cap;
  return 1;
}

/* Whether two rows differ: another entry count, another joint at some place (j0 NULL: the same joints), or a weight
 * moved by more than eps (a weight left bit for bit as it was, NaN included, has not moved). */
static int rows_differ(const uint32_t* j0, const float* w0, size_t n0, const uint32_t* j1, const float* w1, size_t n1,
                       float eps) {
  if (n0 != n1) return 1;
  for (size_t k = 0; k < n0; k++)
    if ((j0 && j0[k] != j1[k]) || (memcmp(&w0[k], &w1[k], sizeof *w0) && !(fabsf(w0[k] - w1[k]) <= eps))) return 1;
  return 0;
}

/* What the quick paths need to know of an entry's group, in one lookup (instead of the map, then the joint's lock). */
enum { GROUP_MAPPED = 1, GROUP_LOCKED = 2 /* only with GROUP_MAPPED */ };

/* Everything sk_records_edit needs across vertices. */
typedef struct edit_call {
  sk_weight_record* records;
  const int32_t* map;
  uint32_t group_count;
  const int32_t* group_of;
  const uint8_t* group_flags; /* GROUP_MAPPED | GROUP_LOCKED per group (group_count entries): the quick paths' lookup */
  skc_wrow_op op;
  skc_wscope scope;
  float no_change;
  int prune_quick;    /* Clean without normalization: prune_keeps_all first */
  int quantize_quick; /* Quantize locking no joint: quantize_quick first */
  int normalize_quick; /* Normalize: normalize_range */
  int all_mapped;      /* every group of the call maps to a joint (quantize_quick4) */
  const float* level;  /* q / 255 as floats when Quantize makes 8 bits (skc_wrow_op.level), else NULL */
  row_buf row;
  skc_wreport r;
  size_t changed, deferred;
  uint8_t* state;
} edit_call;

static inline unsigned group_flags_of(const edit_call* c, uint32_t group) {
  return group < c->group_count ? c->group_flags[group] : 0u;
}

/* The mapped entries of a record into the row (read and to-edit copies); returns their count. */
static size_t gather(const sk_weight_record* rec, const int32_t* map, uint32_t group_count, row_buf* b) {
  size_t n = 0;
  for (int32_t i = 0; i < rec->count; i++) {
    int32_t j = joint_of(map, group_count, rec->entries[i].group);
    if (j < 0) continue;
    float w = rec->entries[i].weight;
    b->j0[n] = b->j1[n] = (uint32_t)j;
    b->w0[n] = b->w1[n] = w;
    b->at[n++] = (uint32_t)i;
  }
  return n;
}

/* Writes the edited row into record v when it differs from the row read by more than no_change (see
 * sk_records_edit): 0 unchanged, 1 written, 2 deferred. */
static uint8_t write_row(edit_call* c, size_t v, size_t n0, size_t n1) {
  row_buf* b = &c->row;
  if (!rows_differ(b->j0, b->w0, n0, b->j1, b->w1, n1, c->no_change)) {
    if (c->r.vertex_flags) c->r.vertex_flags[v] &= (uint8_t)~SKC_WFLAG_CHANGED; /* below no_change: no change */
    return 0;
  }
  c->changed++;
  sk_weight_record* rec = &c->records[v];
  if (n1 == n0) { /* rows only lose entries: the same count is the same joints */
    for (size_t k = 0; k < n1; k++) rec->entries[b->at[k]].weight = b->w1[k];
    return 1;
  }
  if (!fits(rec, c->map, c->group_count, c->group_of, b->j1, 0, (uint32_t)n1)) {
    c->deferred++;
    return 2;
  }
  apply_row(rec, c->map, c->group_count, b->j1, b->w1, 0, (uint32_t)n1);
  return 1;
}

/* Clean (prune without normalization) straight on a record of 1-4 entries, all mapped to distinct joints with
 * valid weights, of which one at least stays (as nearly every record): the entries skc_wrow_prune drops (unlocked,
 * below the threshold or zero) are removed in place, the others keep their order, which is what the row path
 * writes. The test has no branch per entry. Returns the entries removed (0: the record is untouched), or -1 when
 * the row path must decide (an unmapped or invalid entry, a repeated group or joint, no unlocked entry left). */
static inline int prune_in_place(const edit_call* c, sk_weight_record* rec) {
  const int32_t n = rec->count;
  if (n < 1 || n > 4) return -1;
  sk_weight_entry* en = rec->entries;
  const float t = c->op.threshold;
  unsigned ok = 1, survivor = 0;
  uint32_t keep = 0;
  for (int32_t i = 0; i < n; i++) {
    const sk_weight_entry e = en[i];
    const unsigned f = group_flags_of(c, e.group);
    ok &= (f & GROUP_MAPPED) & (e.weight >= 0.0f) & (e.weight <= FLT_MAX);
    const unsigned locked = (f & GROUP_LOCKED) != 0;
    const unsigned stays = (e.weight >= t) & (e.weight > 0.0f); /* skc_wprune_keeps without a branch */
    survivor |= (!locked) & stays; /* only locked ones left: the row path's keep-one rule decides (weights_prune.c) */
    keep |= (uint32_t)(locked | stays) << i;
    /* two entries of one group (the row path merges them); two mapped groups are two joints (group_of_joints) */
    for (int32_t k = 0; k < i; k++) ok &= en[k].group != e.group;
  }
  if (!ok || !survivor) return -1;
  if (keep == (1u << n) - 1u) return 0;
  int32_t w = 0;
  for (int32_t i = 0; i < n; i++)
    if (keep >> i & 1u) en[w++] = en[i];
  rec->count = w;
  return n - w;
}

/* The end of the quick paths below: record v's n weights w0 (as read) become w1 when some moved by more than
 * no_change; flagged, counted and stated as edit_row and write_row do it. */
static void write_in_place(edit_call* c, size_t v, const float* w0, const float* w1, int32_t n) {
  int exact = 1;
  for (int32_t i = 0; i < n; i++) exact &= w1[i] == w0[i];
  if (!exact) skc_wreport_flag(&c->r, v, SKC_WFLAG_CHANGED);
  const int moved = rows_differ(NULL, w0, (size_t)n, NULL, w1, (size_t)n, c->no_change);
  if (moved) {
    c->changed++;
    for (int32_t i = 0; i < n; i++) c->records[v].entries[i].weight = w1[i];
  } else if (c->r.vertex_flags) {
    c->r.vertex_flags[v] &= (uint8_t)~SKC_WFLAG_CHANGED; /* below no_change: no change */
  }
  if (c->state) c->state[v] = (uint8_t)moved;
}

/* Quantize on a record whose 1-8 entries all map to joints, hold valid weights and are unlocked (the call locks
 * no joint): the floats of skc_wquantize_nearest (the row function's own for such a row) compared and written
 * straight into the record, counted as edit_vertex counts them, without gathering a row. Returns 0 when the row
 * path must decide. */
static int quantize_quick(edit_call* c, size_t v) {
  const sk_weight_record* rec = &c->records[v];
  const int32_t n = rec->count;
  if (n < 1 || n > SKC_WQUANTIZE_NEAREST_MAX) return 0;
  float w0[SKC_WQUANTIZE_NEAREST_MAX], w1[SKC_WQUANTIZE_NEAREST_MAX];
  for (int32_t i = 0; i < n; i++) {
    const sk_weight_entry e = rec->entries[i];
    if (joint_of(c->map, c->group_count, e.group) < 0 || !(e.weight >= 0.0f && e.weight <= FLT_MAX)) return 0;
    w0[i] = e.weight;
  }
  if (!skc_wquantize_nearest(w0, (size_t)n, c->op.count, c->op.count == 255u ? c->op.level : NULL, w1)) return 0;
  c->r.influences_before += (uint64_t)n;
  c->r.influences_after += (uint64_t)n;
  write_in_place(c, v, w0, w1, n);
  return 1;
}

/* What Quantize's quick paths count, kept in quantize_range's locals (in edit_call, each vertex's counts were a
 * load and a store through c). */
typedef struct quick_counts {
  uint64_t visited, influences;
  size_t changed;
} quick_counts;

/* The end of a quick path on record v of n entries (written already when moved): flagged, counted and stated as
 * write_in_place does it. */
static inline void quick_done(edit_call* c, size_t v, int exact, int moved, int32_t n, quick_counts* k) {
  k->visited++;
  k->influences += (uint64_t)n;
  k->changed += (size_t)moved;
  if (!exact) skc_wreport_flag(&c->r, v, SKC_WFLAG_CHANGED);
  if (!moved && c->r.vertex_flags) c->r.vertex_flags[v] &= (uint8_t)~SKC_WFLAG_CHANGED; /* below no_change */
  if (c->state) c->state[v] = (uint8_t)moved;
}

/* quantize_quick (which counts the entries and changes in c) counted as visited in k. */
static int quantize_full(edit_call* c, size_t v, quick_counts* k) {
  if (!quantize_quick(c, v)) return 0;
  k->visited++;
  return 1;
}

/* quantize_quick for a record of 1 or 2 entries when every group of the call maps to a joint (nearly two thirds of
 * a skinned mesh's records hold one or two): the same floats, counts, flags and state as quantize_quick4, in scalar
 * code with no lane set-up (callgrind over CesiumMan_subdiv2's records: ~110 instructions such a record, ~147 in the
 * lanes; the whole call 189 -> 166 a vertex, one thread 2.13 -> 1.79 ms: docs/addon.md, session 74). Rounding to
 * nearest hands out T units in nearly every record; otherwise the full rule decides (quantize_quick, which computes
 * the same rounding first). Returns 0 when the row path must decide. */
static int quantize_quick12(edit_call* c, size_t v, quick_counts* k) {
  sk_weight_entry* en = c->records[v].entries;
  const int32_t n = c->records[v].count;
  const float a = en[0].weight, b = n == 2 ? en[1].weight : 0.0f;
  const uint32_t gb = n == 2 ? en[1].group : en[0].group;
  if (!((en[0].group < c->group_count) & (gb < c->group_count) & (a >= 0.0f) & (a <= FLT_MAX) & (b >= 0.0f) &
        (b <= FLT_MAX)))
    return 0;
  const double U = (double)a + (double)b; /* entry order, as quantize_quick4 adds its lanes (b = 0 adds nothing) */
  if (!(U > 0.0)) return 0;
  const uint32_t T = c->op.count;
  const double scale = T / U, xa = (double)a * scale, xb = (double)b * scale;
  const int32_t ta = (int32_t)xa, tb = (int32_t)xb; /* x < 2^31: truncation, as cvttpd */
  const int32_t qa = ta + (xa - (double)ta >= 0.5), qb = tb + (xb - (double)tb >= 0.5);
  if ((uint32_t)(qa + qb) != T) return quantize_full(c, v, k);
  /* q / T: the 8-bit grid's table (the same floats: see the division in quantize_quick4), else the division */
  const float* lv = c->level;
  const float wa = lv ? lv[qa] : (float)qa / (float)T, wb = lv ? lv[qb] : (float)qb / (float)T;
  const float eps = c->no_change;
  const int moved = (fabsf(a - wa) > eps) | (fabsf(b - wb) > eps); /* rows_differ (valid weights: no NaN) */
  if (moved) {
    en[0].weight = wa;
    if (n == 2) en[1].weight = wb;
  }
  quick_done(c, v, (wa == a) & (wb == b), moved, n, k);
  return 1;
}

#if defined(__SSE2__)
/* quantize_quick for a record of 1-4 entries when every group of the call maps to a joint: the same floats, counts
 * and state, in four SSE2 lanes. Lane i reads entry QUICK4_AT[n - 1][i] (always inside the record) and weighs 0 past
 * n, so nothing loops over the entry count (1-4 at random from one vertex to the next: the row functions' short
 * loops cost ~270 instructions and several mispredicted exits a vertex; this is ~150 and the branches on the result).
 * Lanes of weight 0 leave the sum (added in entry order, in double), the integers and the comparisons as they were;
 * q / T is divided in float (see the division below). The stores go from the last lane to the first, so an
 * entry that lanes past n share ends with lane n - 1's weight. */
static const uint8_t QUICK4_AT[4][4] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
static const int32_t QUICK4_LIVE[4][4] = {{-1, 0, 0, 0}, {-1, -1, 0, 0}, {-1, -1, -1, 0}, {-1, -1, -1, -1}};

static inline __m128i quick4_pair(const sk_weight_entry* en, uint8_t a, uint8_t b) {
  return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i*)(const void*)&en[a]),
                            _mm_loadl_epi64((const __m128i*)(const void*)&en[b]));
}

/* Rounding to nearest handed out one unit too many (up) or too few: nearest_off_by_one on the four lanes' remainders
 * x - trunc(x), as skc_wquantize_nearest computes them. The rounded-up entry last in rem_cmp order (smallest
 * remainder, then smallest weight, then last entry) gives its unit back, or the rounded-down entry with a fraction
 * first in that order (largest remainder, then largest weight, then first entry) takes one. Returns 0 (q as it was)
 * when no entry qualifies: then the full rule decides. */
static int quick4_off_by_one(__m128d x01, __m128d x23, __m128i t01, __m128i t23, __m128 w, int32_t n, int up,
                             __m128i* q) {
  double rem[4];
  float wv[4];
  int32_t qv[4];
  _mm_storeu_pd(rem, _mm_sub_pd(x01, _mm_cvtepi32_pd(t01)));
  _mm_storeu_pd(rem + 2, _mm_sub_pd(x23, _mm_cvtepi32_pd(t23)));
  _mm_storeu_ps(wv, w);
  int pick = -1;
  for (int32_t i = 0; i < n; i++) {
    const double r = rem[i];
    if (up ? !(r >= 0.5) : !(r < 0.5 && r > 0.0)) continue;
    if (pick >= 0) {
      const double rb = rem[pick];
      const float wb = wv[pick];
      if (up ? !(r < rb || (r == rb && wv[i] <= wb)) : !(r > rb || (r == rb && wv[i] > wb))) continue;
    }
    pick = (int)i;
  }
  if (pick < 0) return 0;
  _mm_storeu_si128((__m128i*)(void*)qv, *q);
  qv[pick] += up ? -1 : 1;
  *q = _mm_loadu_si128((const __m128i*)(const void*)qv);
  return 1;
}

static int quantize_quick4(edit_call* c, size_t v, quick_counts* k) {
  sk_weight_entry* en = c->records[v].entries;
  const int32_t n = c->records[v].count;
  const uint8_t* at = QUICK4_AT[n - 1];
  const __m128 e01 = _mm_castsi128_ps(quick4_pair(en, at[0], at[1])),
               e23 = _mm_castsi128_ps(quick4_pair(en, at[2], at[3]));
  const __m128 g = _mm_shuffle_ps(e01, e23, _MM_SHUFFLE(2, 0, 2, 0)); /* groups (as bits) */
  __m128 w = _mm_shuffle_ps(e01, e23, _MM_SHUFFLE(3, 1, 3, 1));
  const __m128i bias = _mm_set1_epi32(INT32_MIN); /* unsigned group < group_count as a signed compare */
  const __m128i mapped = _mm_cmpgt_epi32(_mm_set1_epi32((int32_t)(c->group_count ^ 0x80000000u)),
                                         _mm_xor_si128(_mm_castps_si128(g), bias));
  const __m128 valid = _mm_and_ps(_mm_cmpge_ps(w, _mm_setzero_ps()), _mm_cmple_ps(w, _mm_set1_ps(FLT_MAX)));
  if (_mm_movemask_ps(_mm_and_ps(valid, _mm_castsi128_ps(mapped))) != 0xF) return 0;
  w = _mm_and_ps(w, _mm_castsi128_ps(_mm_loadu_si128((const __m128i*)(const void*)QUICK4_LIVE[n - 1])));
  const __m128d d01 = _mm_cvtps_pd(w), d23 = _mm_cvtps_pd(_mm_movehl_ps(w, w));
  const double U = ((_mm_cvtsd_f64(d01) + _mm_cvtsd_f64(_mm_unpackhi_pd(d01, d01))) + _mm_cvtsd_f64(d23)) +
                   _mm_cvtsd_f64(_mm_unpackhi_pd(d23, d23));
  if (!(U > 0.0)) return 0;
  const uint32_t T = c->op.count;
  const __m128d scale = _mm_set1_pd(T / U), half = _mm_set1_pd(0.5);
  const __m128d x01 = _mm_mul_pd(d01, scale), x23 = _mm_mul_pd(d23, scale);
  const __m128i t01 = _mm_cvttpd_epi32(x01), t23 = _mm_cvttpd_epi32(x23); /* x < 2^31: (uint32_t)x */
  const __m128d up01 = _mm_cmpge_pd(_mm_sub_pd(x01, _mm_cvtepi32_pd(t01)), half);
  const __m128d up23 = _mm_cmpge_pd(_mm_sub_pd(x23, _mm_cvtepi32_pd(t23)), half);
  const __m128i q01 = _mm_sub_epi32(t01, _mm_shuffle_epi32(_mm_castpd_si128(up01), _MM_SHUFFLE(3, 3, 2, 0)));
  const __m128i q23 = _mm_sub_epi32(t23, _mm_shuffle_epi32(_mm_castpd_si128(up23), _MM_SHUFFLE(3, 3, 2, 0)));
  __m128i q = _mm_unpacklo_epi64(q01, q23);
  __m128i sum = _mm_add_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(1, 0, 3, 2)));
  sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
  const uint32_t given = (uint32_t)_mm_cvtsi128_si32(sum);
  if (given != T &&
      ((given != T + 1u && given + 1u != T) || !quick4_off_by_one(x01, x23, t01, t23, w, n, given > T, &q)))
    return quantize_full(c, v, k); /* the full rule: more than one unit off, or no entry to move it */
  /* q / T in float: the quotient of two float-exact integers rounded once, which is what rounding the double
   * quotient to float gives (53 >= 2 x 24 + 2 bits: double rounding is innocuous for a division; checked for every
   * q of both grids) */
  const __m128 w1 = _mm_div_ps(_mm_cvtepi32_ps(q), _mm_set1_ps((float)T));
  const int exact = _mm_movemask_ps(_mm_cmpeq_ps(w1, w)) == 0xF;
  const __m128 dist = _mm_and_ps(_mm_sub_ps(w, w1), _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
  const int moved = _mm_movemask_ps(_mm_cmpgt_ps(dist, _mm_set1_ps(c->no_change))) != 0; /* rows_differ */
  if (moved) {
    const __m128 p01 = _mm_unpacklo_ps(g, w1), p23 = _mm_unpackhi_ps(g, w1); /* (group, weight) pairs */
    _mm_storeh_pi((__m64*)(void*)&en[at[3]], p23);
    _mm_storel_pi((__m64*)(void*)&en[at[2]], p23);
    _mm_storeh_pi((__m64*)(void*)&en[at[1]], p01);
    _mm_storel_pi((__m64*)(void*)&en[at[0]], p01);
  }
  quick_done(c, v, exact, moved, n, k);
  return 1;
}
#endif

/* The row path of one vertex: read, edit, compare, write. Out of line, so that the loop over the vertices is the
 * quick paths above and a call (the common records of Clean and Quantize never come here). */
static __attribute__((noinline)) int edit_row(edit_call* c, size_t v) {
  const sk_weight_record* rec = &c->records[v];
  if (!row_buf_reserve(&c->row, (size_t)rec->count)) return 0;
  row_buf* b = &c->row;
  size_t n0 = gather(rec, c->map, c->group_count, b), n = n0;
  uint8_t f = skc_wrow_apply(&c->op, &c->scope, b->j1, b->w1, &n, b->scratch, &c->r);
  if (f) skc_wreport_flag(&c->r, v, f);
  c->r.influences_before += n0;
  c->r.influences_after += n;
  uint8_t st = write_row(c, v, n0, n);
  if (c->state) c->state[v] = st;
  return 1;
}

/* Quantize's quick paths for record v: scalar for 1-2 entries, four lanes for 3-4, the general one otherwise (every
 * group mapped; else the general one, which counts in c itself). 0: the row path decides. */
static inline int quantize_vertex(edit_call* c, size_t v, quick_counts* k) {
  const uint32_t m = (uint32_t)(c->records[v].count - 1); /* 0-3: 1-4 entries */
  if (c->all_mapped && m < 2u) return quantize_quick12(c, v, k);
#if defined(__SSE2__)
  if (c->all_mapped && m < 4u) return quantize_quick4(c, v, k);
#endif
  return quantize_full(c, v, k);
}

/* One selected vertex. Limit reads only records holding more entries than the limit (the count sits in the
 * contiguous record array, so a mesh already within it costs no scattered read): its row function leaves the others
 * alone. */
static inline int edit_vertex(edit_call* c, size_t v) {
  c->r.vertices_visited++;
  if (c->op.kind == SKC_WROW_LIMIT && c->records[v].count <= (int32_t)c->op.count) return 1; /* within the limit */
  return edit_row(c, v);
}

enum { NORMALIZE_QUICK_MAX = 8 }; /* entries a record may hold for normalize_range's quick path */

/* Normalize scaling record v's n weights by k (normalize_range found their sum off): written, flagged, counted and
 * stated as edit_row would. Out of line: weights that are normalized already (the common case) never come here. */
static __attribute__((noinline)) void normalize_scale(edit_call* c, size_t v, int32_t n, double k) {
  float w0[NORMALIZE_QUICK_MAX], w1[NORMALIZE_QUICK_MAX];
  for (int32_t i = 0; i < n; i++) {
    w0[i] = c->records[v].entries[i].weight;
    w1[i] = (float)(w0[i] * k);
  }
  write_in_place(c, v, w0, w1, n);
}

/* Whether all n entries map to unlocked joints and hold valid weights (no branch per entry); *sum: their sum in
 * double, in entry order. */
static inline unsigned normalize_quick_sum(const edit_call* c, const sk_weight_entry* en, int32_t n, double* sum) {
  unsigned ok = 1;
  double s = 0.0;
  for (int32_t i = 0; i < n; i++) {
    ok &= (group_flags_of(c, en[i].group) == GROUP_MAPPED) & (en[i].weight >= 0.0f) & (en[i].weight <= FLT_MAX);
    s += en[i].weight;
  }
  *sum = s;
  return ok;
}

/* Normalize over [b, e). A record whose 1-8 entries all map to unlocked joints and hold valid weights, some above 0
 * (nearly every record), gets skc_wnormalize_vertex's arithmetic for such a row straight in place: the sum in
 * double, one factor 1 / sum, left alone within SKC_WSUM_ROUNDING a weight of 1 (then it is only read). The test
 * has no branch per entry, 1 / sum is divided only for a sum that is off, and the counts stay in locals (the whole
 * call in callgrind: 96 instructions a vertex, 128 through edit_vertex before). Other records take the row path. */
static int normalize_range(edit_call* c, size_t b, size_t e) {
  uint64_t visited = 0, influences = 0;
  for (size_t v = b; v < e; v++) {
    if (!skc_wsel(&c->scope, v)) continue;
    const int32_t n = c->records[v].count;
    if ((uint32_t)(n - 1) < NORMALIZE_QUICK_MAX) {
      double sum;
      const unsigned ok = normalize_quick_sum(c, c->records[v].entries, n, &sum);
      if (ok && sum > 0.0) {
        visited++;
        influences += (uint64_t)n;
        if (!(fabs(sum - 1.0) <= SKC_WSUM_ROUNDING * (double)n) && 1.0 / sum != 1.0)
          normalize_scale(c, v, n, 1.0 / sum);
        continue; /* state and flags stay 0 when nothing was written */
      }
    }
    c->r.vertices_visited++;
    if (!edit_row(c, v)) return 0;
  }
  c->r.vertices_visited += visited;
  c->r.influences_before += influences;
  c->r.influences_after += influences;
  return 1;
}

/* Quantize over [b, e) when no joint is locked: the quick paths, counted in locals, the row path elsewhere. */
static int quantize_range(edit_call* c, size_t b, size_t e) {
  quick_counts k = {0, 0, 0};
  for (size_t v = b; v < e; v++)
    if (skc_wsel(&c->scope, v) && !quantize_vertex(c, v, &k) && !edit_vertex(c, v)) return 0;
  c->r.vertices_visited += k.visited;
  c->r.influences_before += k.influences;
  c->r.influences_after += k.influences;
  c->changed += k.changed;
  return 1;
}

/* Clean over [b, e): prune_in_place where it can (counted in locals, so the loop is the test and a few adds), the
 * row path elsewhere. Counts as edit_row would: a changed record is written (state 1) and flagged. */
static int prune_range(edit_call* c, size_t b, size_t e) {
  uint64_t visited = 0, before = 0, removed = 0;
  for (size_t v = b; v < e; v++) {
    if (!skc_wsel(&c->scope, v)) continue;
    sk_weight_record* rec = &c->records[v];
    const int32_t n = rec->count;
    const int gone = prune_in_place(c, rec);
    if (gone < 0) {
      if (!edit_vertex(c, v)) return 0;
      continue;
    }
    visited++;
    before += (uint64_t)n;
    removed += (uint64_t)gone;
    if (gone) {
      skc_wreport_flag(&c->r, v, SKC_WFLAG_CHANGED);
      c->changed++; /* another entry count: a change whatever no_change */
      if (c->state) c->state[v] = 1;
    }
  }
  c->r.vertices_visited += visited;
  c->r.influences_before += before;
  c->r.influences_after += before - removed;
  c->r.entries_changed += removed;
  return 1;
}

/* out_state and the report's vertex flags of [b, e) set to 0. */
static void clear_outputs(edit_call* c, size_t b, size_t e) {
  if (c->state) memset(c->state + b, 0, e - b);
  if (c->r.vertex_flags) memset(c->r.vertex_flags + b, 0, e - b);
}

/* The selected vertices of [b, e); 0 when a row's buffers could not be allocated. (Its outputs are cleared first: a
 * vertex left alone needs no store.) */
static int edit_range(edit_call* c, size_t b, size_t e) {
  clear_outputs(c, b, e);
  if (c->prune_quick) return prune_range(c, b, e);
  if (c->normalize_quick) return normalize_range(c, b, e);
  if (c->quantize_quick) return quantize_range(c, b, e);
  for (size_t v = b; v < e; v++)
    if (skc_wsel(&c->scope, v) && !edit_vertex(c, v)) return 0;
  return 1;
}

/* Large meshes are edited by the library's threads, a chunk of vertices at a time, each thread with its own row and
 * counters (summed at the end): the operations' arithmetic, not the reading of the records, is most of the time
 * (92k records: a bare read 0.2-0.5 ms, Quantize 2.4-4 ms). The threads are skc_par_run's (core/par.c), not an
 * OpenMP team: these calls take milliseconds, mostly from inside Blender, and an OpenMP region's closing barrier
 * waits for a worker whose core another program holds (Quantize on 92k vertices in Blender on a busy 2-core host:
 * 36 ms with two OpenMP threads, 5 ms with one; docs/addon.md, session 72). */
enum { EDIT_PARALLEL_MIN = 16384, EDIT_CHUNK = 4096, EDIT_MAX_THREADS = 16 };

static void counters_add(edit_call* total, const edit_call* part) {
  const skc_wreport* r = &part->r;
  total->r.vertices_visited += r->vertices_visited;
  total->r.vertices_changed += r->vertices_changed;
  total->r.vertices_failed += r->vertices_failed;
  total->r.invalid_entries += r->invalid_entries;
  total->r.sum_off += r->sum_off;
  total->r.influences_before += r->influences_before;
  total->r.influences_after += r->influences_after;
  total->r.entries_changed += r->entries_changed;
  total->changed += part->changed;
  total->deferred += part->deferred;
}

enum { EDIT_DONE = 0, EDIT_NO_MEMORY = 1, EDIT_BAD_RECORD = 2 };

typedef struct edit_run {
  edit_call parts[EDIT_MAX_THREADS]; /* one per participant slot */
  size_t vertex_count;
  size_t check_chunks;      /* chunks of records to check before any is edited */
  atomic_size_t check_next; /* the next of them to take */
  atomic_size_t checked;    /* those found sane */
  atomic_int failed;        /* EDIT_NO_MEMORY or EDIT_BAD_RECORD */
  double caller_done;       /* when the caller (slot 0) ran out of chunks */
  double caller_waited;     /* the seconds it waited at records_checked before */
} edit_run;

/* A busy host: a pool thread whose core another program holds keeps the caller waiting for the chunk it took, for
 * milliseconds where the whole call takes about one (docs/addon.md, session 73: at load 13 on 2 cores, Normalize
 * on 92k records 2.6 ms with the pool, 0.95 ms with this rule, medians). After a call whose caller waited longer for
 * the pool than it worked itself, the next SOLO_CALLS calls run on the caller alone, then the pool is tried again:
 * a quiet host keeps it (there the caller waits a chunk at most). The results do not depend on it: the chunks'
 * counters add up alike over any number of participants. */
enum { SOLO_CALLS = 8 };
static atomic_uint solo_left;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether this call runs alone (and one call fewer is left to). */
static int take_solo(void) {
  unsigned n = atomic_load(&solo_left);
  while (n && !atomic_compare_exchange_weak(&solo_left, &n, n - 1)) {
  }
  return n != 0;
}

/* The record check of sk_records_edit ("argument errors are found before anything is written"), shared by the
 * participants: each checks chunks of records until none is left, then waits for those the others took (one chunk
 * each at most, a few microseconds of reading). On a 92k-vertex mesh in Blender the check alone took 0.23-0.27 ms of
 * a 0.7-0.8 ms call when the caller made it before the threads started (cold records: docs/addon.md, session 75).
 * Returns 0 when a record is bad (nothing is edited then) or another participant failed; *waited: the seconds it
 * waited for the others (the solo rule counts them as the caller's waiting, not its work). */
static int records_checked(edit_run* run, skc_par_job* job, double* waited) {
  const sk_weight_record* records = run->parts[0].records;
  size_t k;
  while ((k = atomic_fetch_add(&run->check_next, 1)) < run->check_chunks) {
    const size_t b = k * EDIT_CHUNK, e = b + EDIT_CHUNK < run->vertex_count ? b + EDIT_CHUNK : run->vertex_count;
    if (first_bad_record(records + b, e - b)) {
      atomic_store(&run->failed, EDIT_BAD_RECORD);
      skc_par_stop(job);
      return 0;
    }
    atomic_fetch_add(&run->checked, 1);
  }
  if (atomic_load(&run->checked) < run->check_chunks) {
    const double t = now_s();
    for (unsigned spins = 0; atomic_load(&run->checked) < run->check_chunks && !atomic_load(&run->failed); spins++)
      if (spins >= 256) sched_yield(); /* the chunk's holder lost its core */
    *waited = now_s() - t;
  }
  return !atomic_load(&run->failed);
}

/* One participant: its chunks on a copy of its part on its own stack (the counters one thread bumps for every
 * vertex would otherwise share cache lines with the fields another thread reads for every vertex). */
static void edit_chunks(void* ctx, unsigned slot, skc_par_job* job) {
  edit_run* run = ctx;
  edit_call mine = run->parts[slot];
  size_t k;
  double waited = 0.0;
  const int sane = records_checked(run, job, &waited);
  while (sane && skc_par_take(job, &k)) {
    const size_t b = k * EDIT_CHUNK, e = b + EDIT_CHUNK < run->vertex_count ? b + EDIT_CHUNK : run->vertex_count;
    if (!edit_range(&mine, b, e)) {
      atomic_store(&run->failed, EDIT_NO_MEMORY);
      skc_par_stop(job);
    }
  }
  row_buf_free(&mine.row);
  run->parts[slot] = mine;
  if (!slot) run->caller_done = now_s(), run->caller_waited = waited;
}

/* Every record checked, then every selected vertex edited: EDIT_DONE, EDIT_BAD_RECORD (nothing edited) or
 * EDIT_NO_MEMORY when a row's buffers could not be allocated (each vertex is edited whole or not at all, and which
 * of the others were edited is then unknown). */
static int edit_all(edit_call* c, size_t vertex_count) {
  unsigned nt = 1;
#if defined(SK_HAVE_OPENMP)
  if (vertex_count >= EDIT_PARALLEL_MIN) nt = (unsigned)omp_get_max_threads(); /* OMP_NUM_THREADS, as elsewhere */
#endif
  if (nt > EDIT_MAX_THREADS) nt = EDIT_MAX_THREADS;
  if (nt > 1 && take_solo()) nt = 1;
  edit_run* run = malloc(sizeof *run);
  if (!run) return EDIT_NO_MEMORY;
  run->vertex_count = vertex_count;
  run->check_chunks = (vertex_count + EDIT_CHUNK - 1) / EDIT_CHUNK;
  atomic_init(&run->check_next, 0);
  atomic_init(&run->checked, 0);
  atomic_init(&run->failed, EDIT_DONE);
  for (unsigned t = 0; t < nt; t++) {
    run->parts[t] = *c;
    run->parts[t].row = (row_buf){0};
    run->parts[t].r = (skc_wreport){.vertex_flags = c->r.vertex_flags};
    run->parts[t].changed = run->parts[t].deferred = 0;
  }
  const double start = now_s();
  const unsigned used = skc_par_run((vertex_count + EDIT_CHUNK - 1) / EDIT_CHUNK, nt, edit_chunks, run);
  const double waited = now_s() - run->caller_done + run->caller_waited,
               worked = run->caller_done - start - run->caller_waited;
  if (used > 1 && waited > worked) atomic_store(&solo_left, SOLO_CALLS);
  for (unsigned t = 0; t < used; t++) counters_add(c, &run->parts[t]);
  const int failed = atomic_load(&run->failed);
  free(run);
  return failed;
}

static int any_locked(const skc_wscope* sc, uint32_t joint_count) {
  for (uint32_t j = 0; sc->locked && j < joint_count; j++)
    if (sc->locked[j]) return 1;
  return 0;
}

static sk_result check_edit(const sk_records_edit_desc* desc, const sk_weights_report* report, sk_error* err) {
  SK__CHECK_SIZE(desc, sk_records_edit_desc, err);
  if (!(desc->no_change >= 0.0f) || desc->reserved) SK__FAIL(err, SKC_INVALID_ARGUMENT, "no_change must be >= 0 and reserved 0");
  if (desc->op < SK_RECORDS_NORMALIZE || desc->op > SK_RECORDS_ROUND || !desc->op_desc)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown records operation %u or no op_desc", desc->op);
  if (report) SK__CHECK_SIZE(report, sk_weights_report, err);
  const sk_quantize_desc* q = desc->op_desc;
  if ((desc->op == SK_RECORDS_QUANTIZE || desc->op == SK_RECORDS_ROUND) && q->size == sizeof *q && q->out_values)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_records_edit does not fill out_values");
  return sk__ret(0, NULL, err);
}

/* After the checks: the group flags and the quick paths that apply (the per-vertex outputs are cleared chunk by
 * chunk once the records passed: clear_outputs). */
static void edit_setup(edit_call* c, uint8_t* group_flags, sk_weights_report* report, size_t vertex_count,
                       uint32_t joint_count) {
  for (uint32_t g = 0; g < c->group_count; g++) {
    const int32_t j = c->map[g];
    group_flags[g] = (uint8_t)(j < 0 ? 0 : GROUP_MAPPED | (skc_wlocked(&c->scope, (uint32_t)j) ? GROUP_LOCKED : 0));
  }
  if (report && report->joint_counts) memset(report->joint_counts, 0, joint_count * sizeof *report->joint_counts);
  c->r.vertex_flags = report ? report->vertex_flags : NULL;
  c->prune_quick = c->op.kind == SKC_WROW_PRUNE && !(c->op.flags & SKC_PRUNE_NORMALIZE);
  c->quantize_quick = c->op.kind == SKC_WROW_QUANTIZE && !any_locked(&c->scope, joint_count);
  c->level = c->op.kind == SKC_WROW_QUANTIZE && c->op.count == 255u ? c->op.level : NULL;
  c->normalize_quick = c->op.kind == SKC_WROW_NORMALIZE; /* locks are checked per entry */
  c->all_mapped = c->group_count <= INT32_MAX;
  for (uint32_t g = 0; g < c->group_count && c->all_mapped; g++) c->all_mapped = c->map[g] >= 0;
}

SK_API sk_result sk_records_edit(sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                 uint32_t group_count, const sk_records_edit_desc* desc, uint8_t* out_state,
                                 size_t* out_deferred, sk_weights_report* report, sk_error* err) {
  sk_result rc = check_edit(desc, report, err);
  if (rc == SK_OK) rc = check_pointers(records, vertex_count, group_to_joint, group_count, err); /* records: below */
  if (rc != SK_OK) return rc;
  uint32_t joint_count = 0;
  int32_t* group_of = group_of_joints(group_to_joint, group_count, &joint_count, &rc, err);
  if (!group_of) return rc;
  uint8_t* group_flags = malloc(group_count ? group_count : 1);
  if (!group_flags) {
    free(group_of);
    SK__FAIL(err, SKC_OUT_OF_MEMORY, "group flags of %u groups", group_count);
  }
  edit_call c = {.records = records,
                 .map = group_to_joint,
                 .group_count = group_count,
                 .group_of = group_of,
                 .group_flags = group_flags,
                 .no_change = desc->no_change,
                 .state = out_state};
  /* no group mapped: nothing to edit (and no joint for the scope's locks to match) */
  if (joint_count) rc = sk__wrow_from_desc(desc->op, desc->op_desc, vertex_count, joint_count, &c.op, &c.scope, err);
  if (rc == SK_OK) edit_setup(&c, group_flags, report, vertex_count, joint_count); /* clears the outputs, too */
  /* the records are checked by edit_all's threads, or here when nothing is to be edited */
  int failed = EDIT_DONE;
  if (rc == SK_OK && joint_count) {
    failed = edit_all(&c, vertex_count);
  } else if (rc == SK_OK) {
    failed = first_bad_record(records, vertex_count) ? EDIT_BAD_RECORD : EDIT_DONE;
    if (!failed) clear_outputs(&c, 0, vertex_count);
  }
  free(group_of);
  free(group_flags);
  if (rc != SK_OK) return rc;
  if (failed == EDIT_BAD_RECORD) return check_common(records, vertex_count, group_to_joint, group_count, err);
  if (failed) SK__FAIL(err, SKC_OUT_OF_MEMORY, "no memory for the rows of the records");
  c.r.vertices_changed = c.changed; /* beyond no_change (the flags' count includes smaller changes) */
  sk__report_out(&c.r, report);
  if (out_deferred) *out_deferred = c.deferred;
  return sk__ret(0, NULL, err);
}
