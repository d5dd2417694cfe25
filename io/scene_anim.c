/* scene_anim.c - sampling an imported animation into a TRS pose. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

/* Index k of the last key with time <= t (0 if t is before the first key), and the blend factor to k+1. */
static size_t locate(const double* times, size_t n, double t, float* alpha) {
  *alpha = 0.0f;
  if (n <= 1 || t <= times[0]) return 0;
  if (t >= times[n - 1]) return n - 1;
  size_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (times[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  double span = times[hi] - times[lo];
  *alpha = span > 0.0 ? (float)((t - times[lo]) / span) : 0.0f;
  return lo;
}

static void lerp3(const float* keys, size_t k, size_t n, float a, float out[3]) {
  const float* p = keys + k * 3;
  if (a <= 0.0f || k + 1 >= n) {
    memcpy(out, p, 3 * sizeof(float));
    return;
  }
  for (int i = 0; i < 3; ++i) out[i] = p[i] + (p[i + 3] - p[i]) * a;
}

static void slerp(const float* q0, const float* q1in, float a, float out[4]) {
  float q1[4] = {q1in[0], q1in[1], q1in[2], q1in[3]};
  float d = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3];
  if (d < 0.0f) { /* shortest arc */
    d = -d;
    for (int i = 0; i < 4; ++i) q1[i] = -q1[i];
  }
  float w0, w1;
  if (d > 0.9995f) { /* nearly equal: nlerp */
    w0 = 1.0f - a;
    w1 = a;
  } else {
    float th = acosf(d), s = sinf(th);
    w0 = sinf((1.0f - a) * th) / s;
    w1 = sinf(a * th) / s;
  }
  for (int i = 0; i < 4; ++i) out[i] = w0 * q0[i] + w1 * q1[i];
  skc_quat_normalize(out);
}

int skio_anim_sample(const skio_scene* s, uint32_t anim, double t, skc_trs* out, skc_err* err) {
  if (!s || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and out_pose must not be NULL");
  if (!s->skeleton) return skc_fail(err, SKC_NO_SKIN, "%s: no skeleton to pose", s->source);
  if (anim >= s->anim_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u animations)", anim, s->anim_count);
  if (!isfinite(t)) return skc_fail(err, SKC_INVALID_ARGUMENT, "time is not finite");
  const skc_skeleton* sk = s->skeleton;
  for (uint32_t j = 0; j < sk->joint_count; ++j) skc_mat4_to_trs(sk->rest_local + (size_t)j * 16, &out[j], 1e-4f);
  const skio_anim* a = &s->anims[anim];
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    const skio_channel* ch = &a->channels[c];
    skc_trs* p = &out[ch->joint];
    float al;
    size_t k;
    if (ch->pos_count) {
      k = locate(ch->pos_time, ch->pos_count, t, &al);
      lerp3(ch->pos, k, ch->pos_count, al, p->t);
    }
    if (ch->scl_count) {
      k = locate(ch->scl_time, ch->scl_count, t, &al);
      lerp3(ch->scl, k, ch->scl_count, al, p->s);
    }
    if (ch->rot_count) {
      k = locate(ch->rot_time, ch->rot_count, t, &al);
      if (al <= 0.0f || k + 1 >= ch->rot_count) {
        memcpy(p->r, ch->rot + k * 4, 4 * sizeof(float));
        skc_quat_normalize(p->r);
      } else {
        slerp(ch->rot + k * 4, ch->rot + (k + 1) * 4, al, p->r);
      }
    }
  }
  return SKC_OK;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static size_t append_times(double* out, size_t n, const double* t, uint32_t count) {
  for (uint32_t k = 0; k < count; ++k)
    if (isfinite(t[k])) out[n++] = t[k];
  return n;
}

int skio_anim_key_times(const skio_scene* s, uint32_t anim, double** out, size_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  if (anim >= s->anim_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u animations)", anim, s->anim_count);
  const skio_anim* a = &s->anims[anim];
  size_t total = 0;
  for (uint32_t c = 0; c < a->channel_count; ++c)
    total += (size_t)a->channels[c].pos_count + a->channels[c].rot_count + a->channels[c].scl_count;
  if (!total) return SKC_OK;
  double* t = malloc(total * sizeof *t);
  if (!t) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory collecting the key times of animation %u", anim);
  size_t n = 0;
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    const skio_channel* ch = &a->channels[c];
    n = append_times(t, n, ch->pos_time, ch->pos_count);
    n = append_times(t, n, ch->rot_time, ch->rot_count);
    n = append_times(t, n, ch->scl_time, ch->scl_count);
  }
  qsort(t, n, sizeof *t, cmp_double);
  size_t w = 0;
  for (size_t i = 0; i < n; ++i) /* keys of different channels a microsecond apart are one time */
    if (!w || t[i] - t[w - 1] > SKIO_KEY_TIME_MERGE) t[w++] = t[i];
  if (!w) {
    free(t);
    return SKC_OK;
  }
  *out = t;
  *count = w;
  return SKC_OK;
}
