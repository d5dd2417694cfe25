/* abi_records.c - per-vertex weight records (Blender's MDeformVert layout) to CSR and back, in place. The addon
 * reads a mesh's vertex groups through these in a few milliseconds instead of evaluating the scene, and writes the
 * changes a weight tool made without allocating: weights rewritten, memberships removed. Anything that needs an
 * allocation (a new membership, a vertex left with none) is handed back as deferred, for the caller's own API. */
#include <stdlib.h>

#include "abi_internal.h"

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

SK_API sk_result sk_records_read(const sk_weight_record* records, size_t vertex_count, const int32_t* group_to_joint,
                                 uint32_t group_count, uint32_t* out_offsets, uint32_t* out_joints,
                                 float* out_weights, size_t capacity, size_t* out_entry_count, sk_error* err) {
  if (!out_offsets || !out_entry_count) SK__FAIL(err, SKC_INVALID_ARGUMENT, "out_offsets and out_entry_count are required");
  if (!out_joints != !out_weights) SK__FAIL(err, SKC_INVALID_ARGUMENT, "give both out_joints and out_weights, or neither");
  sk_result rc = check_common(records, vertex_count, group_to_joint, group_count, err);
  if (rc != SK_OK) return rc;
  /* one pass: a cold record array costs a cache miss per vertex, so entries are copied while counting */
  size_t total = 0;
  int fill = out_joints != NULL;
  out_offsets[0] = 0;
  for (size_t v = 0; v < vertex_count; v++) {
    for (int32_t i = 0; i < records[v].count; i++) {
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
