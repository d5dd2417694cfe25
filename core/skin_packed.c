/* skin_packed.c - conversion between CSR weights and packed fixed-K streams. */
#include <math.h>
#include <string.h>

#include "skc_skin.h"

size_t skc_type_size(int type) {
  switch (type) {
    case SKC_TYPE_U8: return 1;
    case SKC_TYPE_U16: return 2;
    case SKC_TYPE_U32: return 4;
    case SKC_TYPE_F32: return 4;
    default: return 0;
  }
}

size_t skc_select_top(const uint32_t* joints, const float* weights, size_t count, size_t k, uint32_t* out_joints,
                      float* out_weights) {
  /* insertion into a sorted top-k list; k is at most a few dozen */
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    float w = weights[i];
    if (!(w > 0.0f) || !isfinite(w)) continue;
    uint32_t j = joints[i];
    size_t pos = n;
    while (pos > 0 && (out_weights[pos - 1] < w || (out_weights[pos - 1] == w && out_joints[pos - 1] > j))) --pos;
    if (pos >= k) continue;
    size_t last = n < k ? n : k - 1;
    for (size_t q = last; q > pos; --q) {
      out_weights[q] = out_weights[q - 1];
      out_joints[q] = out_joints[q - 1];
    }
    out_weights[pos] = w;
    out_joints[pos] = j;
    if (n < k) ++n;
  }
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += out_weights[i];
  if (n && sum > 0.0)
    for (size_t i = 0; i < n; ++i) out_weights[i] = (float)(out_weights[i] / sum);
  return n;
}

void skc_quantize_weights(const float* weights, size_t count, uint32_t total, uint32_t* out) {
  /* largest remainder (Hamilton): floor everything, then hand the missing units to the largest remainders
   * (ties: earlier entry, which is the larger weight when the input is sorted). */
  double rem[64];
  size_t n = count < 64 ? count : 64;
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += weights[i] > 0.0f ? weights[i] : 0.0f;
  uint32_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    double w = weights[i] > 0.0f && sum > 0.0 ? weights[i] / sum * total : 0.0;
    double f = floor(w);
    out[i] = (uint32_t)f;
    rem[i] = w - f;
    given += out[i];
  }
  if (sum <= 0.0) return;
  while (given < total) {
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
      if (rem[i] > rem[best]) best = i;
    out[best]++;
    rem[best] = -1.0;
    given++;
  }
  for (size_t i = n; i < count; ++i) out[i] = 0;
}

static void put_index(void* base, int type, size_t i, uint32_t v) {
  unsigned char* p = (unsigned char*)base + i * skc_type_size(type);
  if (type == SKC_TYPE_U8) {
    uint8_t x = (uint8_t)v;
    memcpy(p, &x, 1);
  } else if (type == SKC_TYPE_U16) {
    uint16_t x = (uint16_t)v;
    memcpy(p, &x, 2);
  } else {
    memcpy(p, &v, 4);
  }
}

static uint32_t get_index(const void* base, int type, size_t i) {
  const unsigned char* p = (const unsigned char*)base + i * skc_type_size(type);
  if (type == SKC_TYPE_U8) return p[0];
  if (type == SKC_TYPE_U16) {
    uint16_t x;
    memcpy(&x, p, 2);
    return x;
  }
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

static float get_weight(const void* base, int type, size_t i) {
  const unsigned char* p = (const unsigned char*)base + i * skc_type_size(type);
  if (type == SKC_TYPE_U8) return p[0] / 255.0f;
  if (type == SKC_TYPE_U16) {
    uint16_t x;
    memcpy(&x, p, 2);
    return x / 65535.0f;
  }
  float f;
  memcpy(&f, p, 4);
  return f;
}

static int check_packed(const skc_packed* p, skc_err* err) {
  if (p->k < 1 || p->k > 8) return skc_fail(err, SKC_OUT_OF_RANGE, "influences per vertex must be 1..8, got %u", p->k);
  if (p->joint_type != SKC_TYPE_U8 && p->joint_type != SKC_TYPE_U16 && p->joint_type != SKC_TYPE_U32)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "joint type must be U8, U16 or U32");
  if (p->weight_type != SKC_TYPE_U8 && p->weight_type != SKC_TYPE_U16 && p->weight_type != SKC_TYPE_F32)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "weight type must be F32, U8 or U16");
  if (!p->joints || !p->weights) return skc_fail(err, SKC_INVALID_ARGUMENT, "joint and weight streams must not be NULL");
  if (p->joints_stride && p->joints_stride < p->k * skc_type_size(p->joint_type))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "joints stride %zu is smaller than %u elements", p->joints_stride, p->k);
  if (p->weights_stride && p->weights_stride < p->k * skc_type_size(p->weight_type))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "weights stride %zu is smaller than %u elements", p->weights_stride, p->k);
  return SKC_OK;
}

int skc_skin_to_packed(const skc_skin_view* v, const skc_packed* p, skc_err* err) {
  int rc = check_packed(p, err);
  if (rc) return rc;
  uint32_t jmax = p->joint_type == SKC_TYPE_U8 ? 0xffu : p->joint_type == SKC_TYPE_U16 ? 0xffffu : UINT32_MAX;
  for (size_t i = 0, n = v->offsets[v->vertex_count]; i < n; ++i)
    if (v->joints[i] > jmax && v->weights[i] > 0.0f)
      return skc_fail(err, SKC_OUT_OF_RANGE, "joint index %u does not fit the packed joint type", v->joints[i]);
  size_t js = p->joints_stride ? p->joints_stride : p->k * skc_type_size(p->joint_type);
  size_t ws = p->weights_stride ? p->weights_stride : p->k * skc_type_size(p->weight_type);
  uint32_t total = p->weight_type == SKC_TYPE_U8 ? 255u : 65535u;
  for (size_t vi = 0; vi < v->vertex_count; ++vi) {
    uint32_t tj[8];
    float tw[8];
    uint32_t q[8];
    size_t b = v->offsets[vi];
    size_t n = skc_select_top(v->joints + b, v->weights + b, v->offsets[vi + 1] - b, p->k, tj, tw);
    if (p->weight_type != SKC_TYPE_F32) skc_quantize_weights(tw, n, total, q);
    void* jd = (unsigned char*)p->joints + vi * js;
    void* wd = (unsigned char*)p->weights + vi * ws;
    for (size_t s = 0; s < p->k; ++s) {
      put_index(jd, p->joint_type, s, s < n ? tj[s] : 0u);
      if (p->weight_type == SKC_TYPE_F32) {
        float w = s < n ? tw[s] : 0.0f;
        memcpy((unsigned char*)wd + s * 4, &w, 4);
      } else {
        put_index(wd, p->weight_type, s, s < n ? q[s] : 0u);
      }
    }
  }
  return SKC_OK;
}

int skc_skin_from_packed(skc_skin* s, const skc_packed* p, skc_err* err) {
  int rc = check_packed(p, err);
  if (rc) return rc;
  size_t js = p->joints_stride ? p->joints_stride : p->k * skc_type_size(p->joint_type);
  size_t ws = p->weights_stride ? p->weights_stride : p->k * skc_type_size(p->weight_type);
  skc_skin_builder b;
  if ((rc = skc_skin_builder_init(&b, s->vertex_count, s->vertex_count * p->k, err))) return rc;
  for (size_t vi = 0; vi < s->vertex_count; ++vi) {
    uint32_t tj[8];
    float tw[8];
    size_t n = 0;
    const void* jd = (const unsigned char*)p->joints + vi * js;
    const void* wd = (const unsigned char*)p->weights + vi * ws;
    for (size_t k = 0; k < p->k; ++k) {
      float w = get_weight(wd, p->weight_type, k);
      if (w == 0.0f) continue;
      tj[n] = get_index(jd, p->joint_type, k);
      tw[n] = w;
      ++n;
    }
    skc_skin_builder_push(&b, tj, tw, n);
  }
  return skc_skin_builder_finish(&b, s, err);
}
