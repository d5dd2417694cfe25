/* abi_records.c - per-vertex weight records (Blender's MDeformVert layout) to CSR and back, in place. The addon
 * reads a mesh's vertex groups through these in a few milliseconds instead of evaluating the scene, and writes the
 * changes a weight tool made without allocating: weights rewritten, memberships removed. Anything that needs an
 * allocation (a new membership, a vertex left with none) is handed back as deferred, for the caller's own API. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "abi_internal.h"
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

static sk_result check_common(const sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                              uint32_t group_count, sk_error* err) {
  if (vertex_count && !records) SK__FAIL(err, SKC_INVALID_ARGUMENT, "records must not be NULL");
  if (group_count && !group_to_joint) SK__FAIL(err, SKC_INVALID_ARGUMENT, "group_to_joint must not be NULL");
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

/* The records are edited a block of vertices at a time: read into a CSR (the rows as sk_records_read gives them),
 * copied into a skin over the same block, edited by the sk_weights_* function, compared and written back. A block
 * of EDIT_BLOCK vertices stays in the cache from read to write, and the few buffers are allocated once per call
 * instead of two copies of every vertex's weights (92k-vertex records in a driver: Prune 3.4 -> 2.1 ms, the other
 * operations unchanged, their time being the operation itself and the scattered first read of each record). Each
 * operation edits every vertex on its own, so blocks give the same result. */
enum { EDIT_BLOCK = 2048 };

typedef struct edit_buffers {
  uint32_t *offsets, *joints, *skin_offsets, *skin_joints;
  float *weights, *skin_weights;
} edit_buffers;

static void buffers_free(edit_buffers* b) {
  free(b->offsets), free(b->joints), free(b->weights);
  free(b->skin_offsets), free(b->skin_joints), free(b->skin_weights);
}

/* Buffers for the largest block: its entry count bounded by the records' own counts (checked by check_common). */
static sk_result buffers_alloc(const sk_weight_record* records, size_t vertex_count, edit_buffers* b, size_t* cap,
                               sk_error* err) {
  size_t most = 1;
  for (size_t v0 = 0; v0 < vertex_count; v0 += EDIT_BLOCK) {
    size_t n = 0, v1 = vertex_count - v0 < EDIT_BLOCK ? vertex_count : v0 + EDIT_BLOCK;
    for (size_t v = v0; v < v1; v++) n += (size_t)records[v].count;
    if (n > most) most = n;
  }
  b->offsets = malloc((EDIT_BLOCK + 1) * sizeof *b->offsets);
  b->skin_offsets = malloc((EDIT_BLOCK + 1) * sizeof *b->skin_offsets);
  b->joints = malloc(most * sizeof *b->joints);
  b->skin_joints = malloc(most * sizeof *b->skin_joints);
  b->weights = malloc(most * sizeof *b->weights);
  b->skin_weights = malloc(most * sizeof *b->skin_weights);
  if (!b->offsets || !b->skin_offsets || !b->joints || !b->skin_joints || !b->weights || !b->skin_weights)
    SK__FAIL(err, SKC_OUT_OF_MEMORY, "no memory for a block of %zu weights", most);
  *cap = most;
  return sk__ret(0, NULL, err);
}

/* The operation's descriptor, copied with its scope narrowed to vertices v0 .. v0 + n - 1 (the vertex mask moved
 * to the block); the caller's own descriptor when it has no scope to narrow (missing, another size: the
 * operation's checks report it). */
typedef union op_descs {
  sk_normalize_desc normalize;
  sk_limit_desc limit;
  sk_prune_desc prune;
  sk_quantize_desc quantize;
} op_descs;

static const void* block_desc(const sk_records_edit_desc* d, const sk_weight_scope* sc, size_t v0, size_t n,
                              op_descs* u) {
  sk_weight_scope* out;
  if (!sc) return d->op_desc;
  switch (d->op) {
    case SK_RECORDS_NORMALIZE: u->normalize = *(const sk_normalize_desc*)d->op_desc, out = &u->normalize.scope; break;
    case SK_RECORDS_LIMIT: u->limit = *(const sk_limit_desc*)d->op_desc, out = &u->limit.scope; break;
    case SK_RECORDS_PRUNE: u->prune = *(const sk_prune_desc*)d->op_desc, out = &u->prune.scope; break;
    default: u->quantize = *(const sk_quantize_desc*)d->op_desc, out = &u->quantize.scope; break;
  }
  if (out->vertex_mask) {
    out->vertex_mask += v0;
    out->vertex_mask_count = n;
  }
  return u;
}

static sk_result run_op(sk_skin* skin, uint32_t op, const void* op_desc, sk_weights_report* report, sk_error* err) {
  switch (op) {
    case SK_RECORDS_NORMALIZE:
      return sk_weights_normalize(skin, op_desc, report, err);
    case SK_RECORDS_LIMIT:
      return sk_weights_limit(skin, op_desc, report, err);
    case SK_RECORDS_PRUNE:
      return sk_weights_prune(skin, op_desc, report, err);
    case SK_RECORDS_QUANTIZE: {
      const sk_quantize_desc* q = op_desc;
      if (q && q->size == sizeof *q && q->out_values)
        SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_records_edit does not fill out_values");
      return sk_weights_quantize(skin, op_desc, report, err);
    }
    case SK_RECORDS_ROUND:
      return sk__weights_round(skin, op_desc, report, err);
    default:
      SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown records operation %u", op);
  }
}

/* The scope of the operation's descriptor, NULL when the descriptor is missing or of another size. */
static const sk_weight_scope* op_scope(const sk_records_edit_desc* d) {
  const void* p = d->op_desc;
  if (!p) return NULL;
  switch (d->op) {
    case SK_RECORDS_NORMALIZE:
      return ((const sk_normalize_desc*)p)->size == sizeof(sk_normalize_desc) ? &((const sk_normalize_desc*)p)->scope : NULL;
    case SK_RECORDS_LIMIT:
      return ((const sk_limit_desc*)p)->size == sizeof(sk_limit_desc) ? &((const sk_limit_desc*)p)->scope : NULL;
    case SK_RECORDS_PRUNE:
      return ((const sk_prune_desc*)p)->size == sizeof(sk_prune_desc) ? &((const sk_prune_desc*)p)->scope : NULL;
    case SK_RECORDS_QUANTIZE:
    case SK_RECORDS_ROUND:
      return ((const sk_quantize_desc*)p)->size == sizeof(sk_quantize_desc) ? &((const sk_quantize_desc*)p)->scope : NULL;
    default:
      return NULL;
  }
}

/* The vertices the operation can change, whose entries are read (NULL: all, *rc set on failure): the scope's mask,
 * and for Limit only records holding more entries than the limit (a record's count bounds its mapped entries, and
 * counts sit in the contiguous record array, so a mesh already within the limit costs no scattered read). */
static uint8_t* candidates(const sk_weight_record* records, size_t vertex_count, const sk_records_edit_desc* d,
                           sk_result* rc, sk_error* err) {
  const sk_weight_scope* sc = op_scope(d);
  uint32_t limit = d->op == SK_RECORDS_LIMIT && sc ? ((const sk_limit_desc*)d->op_desc)->max_influences : 0;
  /* (a bad desc or mask: the operation's own checks report it) */
  if (!sc || (!sc->vertex_mask && !limit) || (sc->vertex_mask && sc->vertex_mask_count != vertex_count)) return NULL;
  uint8_t* take = malloc(vertex_count ? vertex_count : 1);
  if (!take) {
    skc_err e;
    skc_fail(&e, SKC_OUT_OF_MEMORY, "no memory for a vertex mask of %zu", vertex_count);
    *rc = sk__ret(e.code, &e, err);
    return NULL;
  }
  for (size_t v = 0; v < vertex_count; v++)
    take[v] = (!sc->vertex_mask || sc->vertex_mask[v]) && (!limit || records[v].count > (int32_t)limit);
  return take;
}

/* Whether two rows differ: another entry count, another joint at some place, or a weight moved by more than eps. */
static int rows_differ(const uint32_t* j0, const float* w0, uint32_t n0, const uint32_t* j1, const float* w1,
                       uint32_t n1, float eps) {
  if (n0 != n1) return 1;
  for (uint32_t k = 0; k < n0; k++)
    if (j0[k] != j1[k] || !(fabsf(w0[k] - w1[k]) <= eps)) return 1;
  return 0;
}

/* Writes the rows of `after` that differ from the rows read (`before`) into the records (see sk_records_edit);
 * returns the number of vertices changed, deferred ones included. */
static size_t write_changes(sk_weight_record* records, size_t vertex_count, const int32_t* map, uint32_t group_count,
                            const int32_t* group_of, const edit_buffers* before, const sk_skin* after, float eps,
                            uint8_t* state, size_t* deferred, uint8_t* flags) {
  const uint32_t *ob = before->offsets, *oa = after->offsets, *ja = after->joints;
  const float* wa = after->weights;
  size_t changed = 0;
  for (size_t v = 0; v < vertex_count; v++) {
    uint8_t st = 0;
    if (rows_differ(before->joints + ob[v], before->weights + ob[v], ob[v + 1] - ob[v], ja + oa[v], wa + oa[v],
                    oa[v + 1] - oa[v], eps)) {
      changed++;
      sk_weight_record* r = &records[v];
      if (same_entries(r, map, group_count, ja, wa, oa[v], oa[v + 1]) >= 0)
        st = 1;
      else if (fits(r, map, group_count, group_of, ja, oa[v], oa[v + 1]))
        st = (uint8_t)(apply_row(r, map, group_count, ja, wa, oa[v], oa[v + 1]), 1);
      else
        st = 2;
      *deferred += st == 2;
    } else if (flags) {
      flags[v] &= (uint8_t)~SK_WFLAG_CHANGED; /* a change below no_change is no change */
    }
    if (state) state[v] = st;
  }
  return changed;
}

static void report_add(sk_weights_report* total, const sk_weights_report* r) {
  total->vertices_visited += r->vertices_visited;
  total->vertices_failed += r->vertices_failed;
  total->invalid_entries += r->invalid_entries;
  total->sum_off += r->sum_off;
  total->influences_before += r->influences_before;
  total->influences_after += r->influences_after;
  total->unmatched += r->unmatched;
  total->entries_changed += r->entries_changed;
  total->joints_affected += r->joints_affected;
}

/* Everything sk_records_edit needs across blocks. */
typedef struct edit_call {
  sk_weight_record* records;
  const int32_t* map;
  uint32_t group_count, joint_count;
  const int32_t* group_of;
  const sk_records_edit_desc* desc;
  const sk_weight_scope* scope;
  const uint8_t* take;
  edit_buffers buf;
  size_t cap, changed, deferred;
  uint8_t* state;
  sk_weights_report* report; /* the caller's, or NULL */
} edit_call;

/* Vertices v0 .. v0 + n - 1: read, edit, compare, write. */
static sk_result edit_block(edit_call* c, size_t v0, size_t n, sk_error* err) {
  edit_buffers* b = &c->buf;
  sk_weight_record* records = n ? c->records + v0 : c->records; /* (no offset on the NULL of an empty mesh) */
  size_t entries = 0;
  sk_result rc = read_rows(records, n, c->map, c->group_count, c->take ? c->take + v0 : NULL, b->offsets,
                           b->joints, b->weights, c->cap, &entries, err);
  if (rc != SK_OK) return rc;
  memcpy(b->skin_offsets, b->offsets, (n + 1) * sizeof *b->offsets);
  memcpy(b->skin_joints, b->joints, entries * sizeof *b->joints);
  memcpy(b->skin_weights, b->weights, entries * sizeof *b->weights);
  /* rows come from mapped groups only, so every joint is below joint_count: no skin validation needed */
  sk_skin skin = {n, c->joint_count, b->skin_offsets, b->skin_joints, b->skin_weights, c->cap};
  uint8_t* flags = c->report && c->report->vertex_flags ? c->report->vertex_flags + v0 : NULL;
  sk_weights_report r = {.size = sizeof r, .vertex_flags = flags};
  op_descs u;
  rc = run_op(&skin, c->desc->op, block_desc(c->desc, c->scope, v0, n, &u), &r, err);
  if (rc != SK_OK) return rc;
  if (c->report) report_add(c->report, &r);
  c->changed += write_changes(records, n, c->map, c->group_count, c->group_of, b, &skin, c->desc->no_change,
                              c->state ? c->state + v0 : NULL, &c->deferred, flags);
  return SK_OK;
}

static void report_clear(sk_weights_report* report, uint32_t joint_count) {
  /* the counters, not the caller's arrays */
  memset(&report->vertices_visited, 0,
         offsetof(sk_weights_report, joint_counts) - offsetof(sk_weights_report, vertices_visited));
  if (report->joint_counts) memset(report->joint_counts, 0, joint_count * sizeof *report->joint_counts);
}

/* Block by block; the first block (there is one even without vertices) runs the operation's argument checks
 * before anything is written. */
static sk_result edit_blocks(edit_call* c, size_t vertex_count, sk_error* err) {
  sk_result rc = buffers_alloc(c->records, vertex_count, &c->buf, &c->cap, err);
  for (size_t v0 = 0; rc == SK_OK && (v0 == 0 || v0 < vertex_count); v0 += EDIT_BLOCK) {
    size_t n = vertex_count - v0 < EDIT_BLOCK ? vertex_count - v0 : EDIT_BLOCK;
    rc = edit_block(c, v0, n, err);
  }
  buffers_free(&c->buf);
  return rc;
}

SK_API sk_result sk_records_edit(sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                 uint32_t group_count, const sk_records_edit_desc* desc, uint8_t* out_state,
                                 size_t* out_deferred, sk_weights_report* report, sk_error* err) {
  SK__CHECK_SIZE(desc, sk_records_edit_desc, err);
  if (!(desc->no_change >= 0.0f) || desc->reserved) SK__FAIL(err, SKC_INVALID_ARGUMENT, "no_change must be >= 0 and reserved 0");
  if (desc->op < SK_RECORDS_NORMALIZE || desc->op > SK_RECORDS_ROUND || !desc->op_desc)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown records operation %u or no op_desc", desc->op);
  if (report) SK__CHECK_SIZE(report, sk_weights_report, err);
  const sk_weight_scope* sc = op_scope(desc);
  if (sc && sc->vertex_mask && sc->vertex_mask_count != vertex_count)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "vertex_mask has %zu entries but there are %zu records", sc->vertex_mask_count,
             vertex_count);
  sk_result rc = check_common(records, vertex_count, group_to_joint, group_count, err);
  if (rc != SK_OK) return rc;
  uint32_t joint_count = 0;
  int32_t* group_of = group_of_joints(group_to_joint, group_count, &joint_count, &rc, err);
  if (!group_of) return rc;
  if (report && report->vertex_flags) memset(report->vertex_flags, 0, vertex_count);
  if (out_state) memset(out_state, 0, vertex_count);
  if (out_deferred) *out_deferred = 0;
  if (report) report_clear(report, joint_count);
  if (joint_count == 0) { /* no group mapped: nothing to edit */
    free(group_of);
    return sk__ret(0, NULL, err);
  }
  edit_call c = {records, group_to_joint, group_count, joint_count, group_of, desc, sc, NULL, {0}, 0, 0, 0,
                 out_state, report};
  uint8_t* take = candidates(records, vertex_count, desc, &rc, err);
  c.take = take;
  if (rc == SK_OK) rc = edit_blocks(&c, vertex_count, err);
  if (rc == SK_OK && report) report->vertices_changed = c.changed;
  if (rc == SK_OK && out_deferred) *out_deferred = c.deferred;
  free(take);
  free(group_of);
  return rc;
}
