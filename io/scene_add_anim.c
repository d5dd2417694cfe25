/* scene_add_anim.c - a clip added to a scene by hand (the ABI's sk_scene_add_animation: the Blender addon's export of
 * the armature's actions, sampled): every keyed joint gets one channel with translation, rotation and scale keys at
 * the clip's times, as a reader's clip would hold them, for every writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

static bool finite_floats(const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(v[i])) return false;
  return true;
}

/* Times finite, the first >= 0, strictly ascending; poses finite with a non-zero rotation. */
static int check_keys(const skio_scene* s, const double* times, size_t n, const float* trs, skc_err* err) {
  const size_t jc = s->skeleton->joint_count;
  for (size_t k = 0; k < n; ++k)
    if (!isfinite(times[k]) || times[k] < 0.0 || (k && !(times[k] > times[k - 1])))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "key time %zu (%g): times must be finite, >= 0 and ascending", k,
                      times[k]);
  if (!finite_floats(trs, n * jc * 10)) return skc_fail(err, SKC_INVALID_ARGUMENT, "a key pose is not finite");
  for (size_t i = 0; i < n * jc; ++i) {
    const float* r = trs + i * 10 + 3;
    if (!((double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3] > 1e-24))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "key %zu, joint %zu: zero rotation quaternion", i / jc, i % jc);
  }
  return SKC_OK;
}

/* Joint j's keys as one channel (n keys each of translation, rotation - normalized - and scale). */
static bool fill_channel(skio_channel* ch, uint32_t j, const double* times, size_t n, const float* trs, size_t jc) {
  ch->joint = j;
  ch->pos_count = ch->rot_count = ch->scl_count = (uint32_t)n;
  ch->pos_time = malloc(n * sizeof *ch->pos_time);
  ch->rot_time = malloc(n * sizeof *ch->rot_time);
  ch->scl_time = malloc(n * sizeof *ch->scl_time);
  ch->pos = malloc(n * 3 * sizeof *ch->pos);
  ch->rot = malloc(n * 4 * sizeof *ch->rot);
  ch->scl = malloc(n * 3 * sizeof *ch->scl);
  if (!ch->pos_time || !ch->rot_time || !ch->scl_time || !ch->pos || !ch->rot || !ch->scl) return false;
  memcpy(ch->pos_time, times, n * sizeof *times);
  memcpy(ch->rot_time, times, n * sizeof *times);
  memcpy(ch->scl_time, times, n * sizeof *times);
  for (size_t k = 0; k < n; ++k) {
    const float* p = trs + (k * jc + j) * 10;
    memcpy(ch->pos + k * 3, p, 3 * sizeof *p);
    memcpy(ch->scl + k * 3, p + 7, 3 * sizeof *p);
    const double len = sqrt((double)p[3] * p[3] + (double)p[4] * p[4] + (double)p[5] * p[5] + (double)p[6] * p[6]);
    for (int c = 0; c < 4; ++c) ch->rot[k * 4 + c] = (float)(p[3 + c] / len);
  }
  return true;
}

static int build_anim(const skio_scene* s, const char* name, const double* times, size_t n, const float* trs,
                      const uint8_t* keyed, skio_anim* a, skc_err* err) {
  const uint32_t jc = s->skeleton->joint_count;
  uint32_t count = 0;
  for (uint32_t j = 0; j < jc; ++j) count += !keyed || keyed[j];
  char fallback[32];
  snprintf(fallback, sizeof fallback, "anim%u", s->anim_count);
  const char* nm = name && name[0] ? name : fallback;
  const size_t len = strlen(nm) + 1;
  memset(a, 0, sizeof *a);
  a->name = malloc(len);
  a->channels = count ? calloc(count, sizeof *a->channels) : NULL;
  if (!a->name || (count && !a->channels)) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding a clip");
  memcpy(a->name, nm, len);
  a->duration = times[n - 1];
  a->ticks_per_second = 1.0; /* times in seconds */
  for (uint32_t j = 0; j < jc; ++j) {
    if (keyed && !keyed[j]) continue;
    skio_channel* ch = &a->channels[a->channel_count++];
    if (!fill_channel(ch, j, times, n, trs, jc)) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding a clip");
  }
  return SKC_OK;
}

int skio_scene_add_anim(skio_scene* s, const char* name, const double* times, size_t n, const float* trs,
                        const uint8_t* keyed, uint32_t* out, skc_err* err) {
  if (s->gltf)
    return skc_fail(err, SKC_UNSUPPORTED,
                    "%s: a scene read from a glTF document keeps that document's clips; clips can be added to scenes "
                    "made with sk_scene_create or read through Assimp",
                    s->source);
  if (!s->skeleton) return skc_fail(err, SKC_NO_SKIN, "a clip needs the scene's skeleton: this scene has none");
  if (!n || n > UINT32_MAX) return skc_fail(err, SKC_INVALID_ARGUMENT, "a clip needs 1 to 2^32 - 1 keys, not %zu", n);
  if (n > SIZE_MAX / ((size_t)s->skeleton->joint_count * 10 * sizeof(float) + 1))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%zu keys of %u joints: too many", n, s->skeleton->joint_count);
  int rc = check_keys(s, times, n, trs, err);
  if (rc) return rc;
  skio_anim* grown = realloc(s->anims, ((size_t)s->anim_count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding a clip");
  s->anims = grown;
  skio_anim a;
  if ((rc = build_anim(s, name, times, n, trs, keyed, &a, err))) {
    skio_anim_free(&a);
    return rc;
  }
  s->anims[s->anim_count] = a;
  if (out) *out = s->anim_count;
  s->anim_count++;
  return SKC_OK;
}
