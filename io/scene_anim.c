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

void skio_channel_sample(const skio_channel* ch, double t, skc_trs* p) {
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

/* A rest transform's TRS is not unique: a scale with two negative components and the rotation turned a half turn
 * about the third axis give the same matrix, so a mirror (one or three negative components) or a half turn may sit
 * on any axis. skc_mat4_to_trs folds a mirror into x; a file that mirrors another axis keys its rotations for its own
 * scale, and joining those keys to x's would turn the joint a half turn. These are the four sign patterns with the
 * half turn each needs (R D = R q): identity, about x, about y, about z. */
static const float flip_sign[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
static const float flip_turn[4][4] = {{0, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};

/* How near rotation q lies to ch's rotation keys, over at most 16 of them spread over the clip: the sum of |cos| of
 * the half angles (*sum), and whether one of them is q (within 1e-5 of |cos|, *hit). */
static void keys_nearness(const skio_channel* ch, const float q[4], float* sum, bool* hit) {
  const uint32_t n = ch->rot_count, step = n > 16 ? n / 16 : 1;
  *sum = 0.0f;
  *hit = false;
  for (uint32_t k = 0; k < n; k += step) {
    const float* r = ch->rot + (size_t)k * 4;
    const float len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    if (!(len > 0.0f) || !isfinite(len)) continue;
    const float c = fabsf(q[0] * r[0] + q[1] * r[1] + q[2] * r[2] + q[3] * r[3]) / len;
    *sum += c;
    *hit |= c >= 1.0f - 1e-5f;
  }
}

/* The flip (flip_turn's index) of rotation r whose rotation ch's keys hold. A mirrored rest (det < 0) has no natural
 * axis for its mirror: the one a key holds, else the nearest to the keys. Otherwise the positive scale stands unless
 * a key holds a half-turned rotation (the file's scale has two negative components) and none holds r. */
static int keyed_flip(const skio_channel* ch, const float r[4], bool mirrored) {
  float q[4], near[4];
  bool hit[4];
  int best = 0, hits = 0, hit_at = 0;
  for (int f = 0; f < 4; ++f) {
    skc_quat_mul(r, flip_turn[f], q);
    keys_nearness(ch, q, &near[f], &hit[f]);
    if (hit[f]) ++hits, hit_at = f;
    if (near[f] > near[best] + 1e-3f) best = f;
  }
  if (hits == 1) return hit_at;
  return mirrored && !hits ? best : 0;
}

/* The flip (flip_turn's index) that gives split scale s the sign pattern bits (bit i: component i negative), or -1
 * when none does (the patterns of the other determinant sign). */
static int signs_flip(const float s[3], unsigned bits) {
  for (int f = 0; f < 4; ++f) {
    bool all = true;
    for (int i = 0; i < 3; ++i) all &= (s[i] * flip_sign[f][i] < 0.0f) == (((bits >> i) & 1u) != 0);
    if (all) return f;
  }
  return -1;
}

/* The sign pattern of ch's first scale key among flip_sign's applied to s, or 0 when none matches. */
static int scale_key_pattern(const skio_channel* ch, const float s[3]) {
  const unsigned bits = (ch->scl[0] < 0.0f) | (ch->scl[1] < 0.0f) << 1 | (ch->scl[2] < 0.0f) << 2;
  const int f = signs_flip(s, bits);
  return f < 0 ? 0 : f;
}

bool skio_rest_trs_keyed(const float m[16], const skio_channel* ch, skc_trs* out, float tol) {
  const bool ok = skc_mat4_to_trs(m, out, tol);
  if (!ch || !((ch->rot_count && ch->rot) || (ch->scl_count && ch->scl))) return ok;
  int best = -1;
  if (ch->scl_count && ch->scl)
    best = scale_key_pattern(ch, out->s);
  else if (ch->rest_signs & SKIO_REST_SIGNS_KNOWN)
    best = signs_flip(out->s, ch->rest_signs & 7u);
  if (best < 0) best = keyed_flip(ch, out->r, out->s[0] < 0.0f);
  if (!best) return ok;
  float q[4];
  skc_quat_mul(out->r, flip_turn[best], q);
  memcpy(out->r, q, sizeof q);
  for (int i = 0; i < 3; ++i) out->s[i] *= flip_sign[best][i];
  return ok;
}

bool skio_joint_rest_trs(const skio_scene* s, uint32_t j, skc_trs* out, float tol) {
  const float* m = s->skeleton->rest_local + (size_t)j * 16;
  for (uint32_t a = 0; a < s->anim_count; ++a)
    for (uint32_t c = 0; c < s->anims[a].channel_count; ++c) {
      const skio_channel* ch = &s->anims[a].channels[c];
      if (ch->joint == j && (ch->rot_count && ch->rot) != (ch->scl_count && ch->scl))
        return skio_rest_trs_keyed(m, ch, out, tol);
    }
  return skc_mat4_to_trs(m, out, tol);
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
    if (ch->joint >= sk->joint_count) continue;
    skio_rest_trs_keyed(sk->rest_local + (size_t)ch->joint * 16, ch, &out[ch->joint], 1e-4f);
    skio_channel_sample(ch, t, &out[ch->joint]);
  }
  return SKC_OK;
}

/* Object `object`'s channel in clip `anim`, or NULL. */
const skio_channel* skio_object_channel_of(const skio_scene* s, uint32_t anim, uint32_t object) {
  for (uint32_t c = 0; c < s->object_channel_count; ++c)
    if (s->object_channels[c].anim == anim && s->object_channels[c].ch.joint == object)
      return &s->object_channels[c].ch;
  return NULL;
}

int skio_object_sample(const skio_scene* s, uint32_t anim, uint32_t object, double t, float out[16], skc_err* err) {
  if (anim >= s->anim_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u animations)", anim, s->anim_count);
  if (!isfinite(t)) return skc_fail(err, SKC_INVALID_ARGUMENT, "time is not finite");
  const skio_channel* ch = object < s->object_count ? skio_object_channel_of(s, anim, object) : NULL;
  if (!ch) return SKC_OK; /* out untouched: not keyed */
  const skio_object* o = &s->objects[object];
  float inv[16], local[16];
  if (!skc_mat4_inverse(o->parent_rest, inv)) skc_mat4_identity(inv);
  skc_mat4_mul(inv, o->world, local);
  float look_inv[16], key[16];
  if (!skc_mat4_inverse(o->look, look_inv)) skc_mat4_identity(look_inv);
  skc_mat4_mul(local, look_inv, key); /* the node's own rest transform: components a channel lacks come from it */
  skc_trs p;
  if (!skio_rest_trs_keyed(key, ch, &p, 1e-4f)) skc_trs_identity(&p);
  skio_channel_sample(ch, t, &p);
  skc_trs_to_mat4(&p, key);
  skc_mat4_mul(key, o->look, out);
  return SKC_OK;
}

int skio_listed_object_sample(const skio_scene* s, uint32_t anim, uint32_t object, double t, float local[16],
                              skc_err* err) {
  if (anim >= s->anim_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u animations)", anim, s->anim_count);
  if (!isfinite(t)) return skc_fail(err, SKC_INVALID_ARGUMENT, "time is not finite");
  const skio_channel* ch = skio_object_channel_of(s, anim, object);
  if (!ch) return SKC_OK; /* not keyed: its rest transform */
  skc_trs p;
  if (!skio_rest_trs_keyed(local, ch, &p, 1e-4f)) skc_trs_identity(&p);
  skio_channel_sample(ch, t, &p);
  skc_trs_to_mat4(&p, local);
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

static size_t channel_times(const skio_channel* ch, double* t, size_t n) {
  n = append_times(t, n, ch->pos_time, ch->pos_count);
  n = append_times(t, n, ch->rot_time, ch->rot_count);
  return append_times(t, n, ch->scl_time, ch->scl_count);
}

static size_t channel_keys(const skio_channel* ch) { return (size_t)ch->pos_count + ch->rot_count + ch->scl_count; }

/* The n times in t sorted, those less than SKIO_KEY_TIME_MERGE apart taken once, into *out (t freed when empty). */
static void merge_times(double* t, size_t n, double** out, size_t* count) {
  qsort(t, n, sizeof *t, cmp_double);
  size_t w = 0;
  for (size_t i = 0; i < n; ++i) /* keys of different channels a microsecond apart are one time */
    if (!w || t[i] - t[w - 1] > SKIO_KEY_TIME_MERGE) t[w++] = t[i];
  if (!w) {
    free(t);
    t = NULL;
  }
  *out = t;
  *count = w;
}

int skio_anim_key_times(const skio_scene* s, uint32_t anim, double** out, size_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  if (anim >= s->anim_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u animations)", anim, s->anim_count);
  const skio_anim* a = &s->anims[anim];
  size_t total = 0;
  for (uint32_t c = 0; c < a->channel_count; ++c) total += channel_keys(&a->channels[c]);
  if (!total) return SKC_OK;
  double* t = malloc(total * sizeof *t);
  if (!t) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory collecting the key times of animation %u", anim);
  size_t n = 0;
  for (uint32_t c = 0; c < a->channel_count; ++c) n = channel_times(&a->channels[c], t, n);
  merge_times(t, n, out, count);
  return SKC_OK;
}

int skio_object_key_times(const skio_scene* s, uint32_t anim, uint32_t object, double** out, size_t* count,
                          skc_err* err) {
  *out = NULL;
  *count = 0;
  if (anim >= s->anim_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u animations)", anim, s->anim_count);
  const skio_channel* ch = object < s->object_count || s->gltf ? skio_object_channel_of(s, anim, object) : NULL;
  if (!ch || !channel_keys(ch)) return SKC_OK;
  double* t = malloc(channel_keys(ch) * sizeof *t);
  if (!t) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory collecting an object's key times");
  merge_times(t, channel_times(ch, t, 0), out, count);
  return SKC_OK;
}
