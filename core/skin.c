/* skin.c - CSR skin weight storage. */
#include "skc_skin.h"

#include <stdlib.h>
#include <string.h>

int skc_offsets_check(const uint32_t* offsets, size_t vertex_count, skc_err* err) {
  if (offsets[0] != 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "offsets[0] is %u, must be 0", offsets[0]);
  for (size_t v = 0; v < vertex_count; ++v) {
    if (offsets[v + 1] < offsets[v])
      return skc_fail(err, SKC_INVALID_ARGUMENT, "offsets decrease at vertex %zu (%u -> %u)", v, offsets[v],
                      offsets[v + 1]);
    if (offsets[v + 1] - offsets[v] > SKC_MAX_INFLUENCES_PER_VERTEX)
      return skc_fail(err, SKC_OUT_OF_RANGE, "vertex %zu has %u influences (limit %u)", v,
                      offsets[v + 1] - offsets[v], SKC_MAX_INFLUENCES_PER_VERTEX);
  }
  return SKC_OK;
}

int skc_skin_create(size_t vertex_count, uint32_t joint_count, skc_skin** out, skc_err* err) {
  if (!out) return skc_fail(err, SKC_INVALID_ARGUMENT, "out must not be NULL");
  if (vertex_count >= UINT32_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "vertex_count %zu is too large (limit %u)", vertex_count, UINT32_MAX - 1);
  if (joint_count == 0 || joint_count > 65535u)
    return skc_fail(err, SKC_OUT_OF_RANGE, "joint_count %u is outside 1..65535", joint_count);
  skc_skin* s = calloc(1, sizeof *s);
  if (!s) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory creating a skin");
  s->vertex_count = vertex_count;
  s->joint_count = joint_count;
  s->offsets = calloc(vertex_count + 1, sizeof *s->offsets);
  if (!s->offsets) {
    free(s);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory creating a skin of %zu vertices", vertex_count);
  }
  *out = s;
  return SKC_OK;
}

void skc_skin_destroy(skc_skin* s) {
  if (!s) return;
  free(s->offsets);
  free(s->joints);
  free(s->weights);
  free(s);
}

skc_skin_view skc_skin_as_view(const skc_skin* s) {
  skc_skin_view v = {s->vertex_count, s->joint_count, s->offsets, s->joints, s->weights};
  return v;
}

int skc_skin_reserve(skc_skin* s, size_t entries, skc_err* err) {
  if (entries <= s->capacity) return SKC_OK;
  if (entries > UINT32_MAX) return skc_fail(err, SKC_OUT_OF_RANGE, "%zu influences exceed the limit", entries);
  size_t cap = s->capacity ? s->capacity : 16;
  while (cap < entries) cap = cap * 2 > UINT32_MAX ? UINT32_MAX : cap * 2;
  uint32_t* j = realloc(s->joints, cap * sizeof *j);
  if (!j) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu influences", cap);
  s->joints = j;
  float* w = realloc(s->weights, cap * sizeof *w);
  if (!w) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu influences", cap);
  s->weights = w;
  s->capacity = cap;
  return SKC_OK;
}

int skc_skin_set(skc_skin* s, const uint32_t* offsets, const uint32_t* joints, const float* weights, skc_err* err) {
  if (!s || !offsets) return skc_fail(err, SKC_INVALID_ARGUMENT, "skin and offsets must not be NULL");
  int rc = skc_offsets_check(offsets, s->vertex_count, err);
  if (rc) return rc;
  size_t n = offsets[s->vertex_count];
  if (n && (!joints || !weights))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "joints and weights must not be NULL for %zu influences", n);
  if ((rc = skc_skin_reserve(s, n, err))) return rc;
  memcpy(s->offsets, offsets, (s->vertex_count + 1) * sizeof *offsets);
  if (n) {
    memcpy(s->joints, joints, n * sizeof *joints);
    memcpy(s->weights, weights, n * sizeof *weights);
  }
  return SKC_OK;
}

int skc_skin_clone(const skc_skin* s, skc_skin** out, skc_err* err) {
  skc_skin* c = NULL;
  int rc = skc_skin_create(s->vertex_count, s->joint_count, &c, err);
  if (rc) return rc;
  if ((rc = skc_skin_set(c, s->offsets, s->joints, s->weights, err))) {
    skc_skin_destroy(c);
    return rc;
  }
  *out = c;
  return SKC_OK;
}

int skc_skin_set_vertex(skc_skin* s, size_t v, const uint32_t* joints, const float* weights, size_t count,
                        skc_err* err) {
  if (v >= s->vertex_count) return skc_fail(err, SKC_OUT_OF_RANGE, "vertex %zu >= vertex_count %zu", v, s->vertex_count);
  if (count > SKC_MAX_INFLUENCES_PER_VERTEX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "%zu influences for one vertex exceed %u", count, SKC_MAX_INFLUENCES_PER_VERTEX);
  if (count && (!joints || !weights)) return skc_fail(err, SKC_INVALID_ARGUMENT, "joints and weights must not be NULL");
  size_t total = skc_skin_entries(s);
  size_t old = s->offsets[v + 1] - s->offsets[v];
  size_t next = total - old + count;
  int rc = skc_skin_reserve(s, next, err);
  if (rc) return rc;
  size_t begin = s->offsets[v], tail = total - s->offsets[v + 1];
  if (count != old && tail) {
    memmove(s->joints + begin + count, s->joints + begin + old, tail * sizeof *s->joints);
    memmove(s->weights + begin + count, s->weights + begin + old, tail * sizeof *s->weights);
  }
  if (count) {
    memcpy(s->joints + begin, joints, count * sizeof *joints);
    memcpy(s->weights + begin, weights, count * sizeof *weights);
  }
  if (count != old)
    for (size_t u = v + 1; u <= s->vertex_count; ++u) s->offsets[u] = (uint32_t)(s->offsets[u] - old + count);
  return SKC_OK;
}

int skc_skin_builder_init(skc_skin_builder* b, size_t vertex_count, size_t capacity_hint, skc_err* err) {
  memset(b, 0, sizeof *b);
  b->vertex_count = vertex_count;
  b->capacity = capacity_hint ? capacity_hint : 16;
  b->offsets = malloc((vertex_count + 1) * sizeof *b->offsets);
  b->joints = malloc(b->capacity * sizeof *b->joints);
  b->weights = malloc(b->capacity * sizeof *b->weights);
  if (!b->offsets || !b->joints || !b->weights) {
    skc_skin_builder_free(b);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu vertices of weights", vertex_count);
  }
  b->offsets[0] = 0;
  return SKC_OK;
}

int skc_skin_builder_push(skc_skin_builder* b, const uint32_t* joints, const float* weights, size_t count) {
  if (b->failed) return b->failed;
  if (b->vertices_done >= b->vertex_count || b->entries + count > UINT32_MAX) return b->failed = SKC_OUT_OF_RANGE;
  if (b->entries + count > b->capacity) {
    size_t cap = b->capacity;
    while (cap < b->entries + count) cap *= 2;
    uint32_t* j = realloc(b->joints, cap * sizeof *j);
    if (!j) return b->failed = SKC_OUT_OF_MEMORY;
    b->joints = j;
    float* w = realloc(b->weights, cap * sizeof *w);
    if (!w) return b->failed = SKC_OUT_OF_MEMORY;
    b->weights = w;
    b->capacity = cap;
  }
  if (count) {
    memcpy(b->joints + b->entries, joints, count * sizeof *joints);
    memcpy(b->weights + b->entries, weights, count * sizeof *weights);
  }
  b->entries += count;
  b->offsets[++b->vertices_done] = (uint32_t)b->entries;
  return SKC_OK;
}

int skc_skin_builder_finish(skc_skin_builder* b, skc_skin* s, skc_err* err) {
  int rc = b->failed;
  if (!rc && b->vertices_done != b->vertex_count) rc = SKC_INTERNAL;
  if (!rc && s->vertex_count != b->vertex_count) rc = SKC_INTERNAL;
  if (rc) {
    skc_skin_builder_free(b);
    return skc_fail(err, rc, "building weights failed: %s", skc_status_string(rc));
  }
  free(s->offsets);
  free(s->joints);
  free(s->weights);
  s->offsets = b->offsets;
  s->joints = b->joints;
  s->weights = b->weights;
  s->capacity = b->capacity;
  memset(b, 0, sizeof *b);
  return SKC_OK;
}

void skc_skin_builder_free(skc_skin_builder* b) {
  free(b->offsets);
  free(b->joints);
  free(b->weights);
  memset(b, 0, sizeof *b);
}
