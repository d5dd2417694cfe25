#define _POSIX_C_SOURCE 200809L /* strdup */
/* fuzz_collada_clips.c - libFuzzer target for the Collada scanners of our own (io/collada_clips.c), in process:
 * the input is the document text. The clip library reader (skio_collada_apply_clips_memory) cuts the one
 * animation of a small fixed scene (2 joints, keys every 0.25 s over 4 s) into the file's clips, which are then
 * sampled; the name scanners (skio_collada_node_names_memory, _geometry_names_memory) read the <node> and
 * <geometry> tags; the two writers
 * (skio_collada_add_clips, skio_collada_restore_names) rewrite the text, and so does the morph-controller remover
 * (skio_collada_without_morphs, io/collada_morphs.c) and the unbound material binder (skio_collada_bind_unbound,
 * io/collada_unbound.c); the orthographic cameras' scanner (skio_collada_ortho_list,
 * io/collada_cameras.c) reads <camera> and <node> tags, and so does the plain nodes' list (skio_collada_plain_nodes,
 * io/collada_text.c: sorted, none empty), and so does the Blender bone tips' scanner (skio_collada_tips,
 * io/collada_tips.c: sorted, unique, finite), and the controller ring check (skio_collada_controller_check,
 * io/collada_controllers.c: attributes in either quote, references decoded, comments skipped). Seeds:
 * tests/fuzz/seeds-fuzz_collada_clips/ (tests/fuzz/make_seeds.py: .dae files `skinkit convert` wrote, one with a clip
 * library) and the corpus .dae files (scripts/fuzz.sh). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skio_collada.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

enum { KEYS = 17 };

static skio_scene* make_scene(void) {
  static const char* const names[2] = {"root", "arm"};
  static const int32_t parents[2] = {-1, 0};
  float rest[32] = {0};
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 4; ++i) rest[16 * j + 5 * i] = 1.0f;
  skc_skeleton* sk = NULL;
  skio_scene* s = NULL;
  skc_skeleton_init init = {2, names, parents, rest, NULL, NULL, NULL};
  if (skc_skeleton_create(&init, &sk, NULL) || skio_scene_create(sk, &s, NULL)) goto fail;
  skc_skeleton_destroy(sk);
  sk = NULL;
  if (!(s->anims = calloc(1, sizeof *s->anims)) || !(s->anims[0].channels = calloc(1, sizeof(skio_channel)))) goto fail;
  s->anim_count = 1;
  skio_anim* a = &s->anims[0];
  a->duration = 4.0;
  a->channel_count = 1;
  a->name = strdup("timeline");
  skio_channel* ch = &a->channels[0];
  ch->joint = 1;
  ch->pos_count = ch->rot_count = KEYS; /* no scale keys: the rest scale */
  ch->pos_time = malloc(KEYS * sizeof(double));
  ch->rot_time = malloc(KEYS * sizeof(double));
  ch->pos = malloc(KEYS * 3 * sizeof(float));
  ch->rot = calloc(KEYS * 4, sizeof(float));
  if (!a->name || !ch->pos_time || !ch->rot_time || !ch->pos || !ch->rot) goto fail;
  for (int k = 0; k < KEYS; ++k) {
    ch->pos_time[k] = ch->rot_time[k] = 0.25 * k;
    ch->pos[3 * k] = ch->pos[3 * k + 1] = ch->pos[3 * k + 2] = (float)k;
    ch->rot[4 * k + 3] = 1.0f;
  }
  return s;
fail:
  skc_skeleton_destroy(sk);
  skio_scene_destroy(s);
  return NULL;
}

static void clips(const char* xml, size_t n) {
  skio_scene* s = make_scene();
  if (!s) return;
  if (skio_collada_apply_clips_memory(xml, n, s, NULL) == SKC_OK) {
    skc_trs pose[2];
    for (uint32_t a = 0; a < s->anim_count; ++a)
      for (int k = 0; k < 3; ++k) skio_anim_sample(s, a, s->anims[a].duration * k / 2.0, pose, NULL);
  }
  skio_scene_destroy(s);
}

static void names(const char* xml, size_t n) {
  skio_name_pair* pairs = NULL;
  uint32_t count = 0;
  if (skio_collada_node_names_memory(xml, n, &pairs, &count, NULL) != SKC_OK) return;
  if (count) skio_collada_name_of(pairs, count, pairs[count / 2].written);
  char* out = NULL;
  size_t on = 0;
  if (skio_collada_restore_names(xml, n, pairs, count, &out, &on, NULL) == SKC_OK) free(out);
  skio_collada_free_names(pairs, count);
  if (skio_collada_geometry_names_memory(xml, n, &pairs, &count, NULL) != SKC_OK) return;
  if (count) skio_collada_name_of(pairs, count, pairs[0].written);
  skio_collada_free_names(pairs, count);
  const skio_clip c[2] = {{"walk & <run>", 0.0, 1.0}, {NULL, 2.0, 2.5}};
  if (skio_collada_add_clips(xml, n, c, 2, &out, &on, NULL) == SKC_OK) free(out);
}

/* the morph-controller remover (collada_morphs.c): its copy is scanned again */
static void morphs(const char* xml, size_t n) {
  size_t on = 0;
  uint32_t removed = 0;
  char* out = skio_collada_without_morphs(xml, n, &on, &removed);
  if (!out) return;
  char* again = skio_collada_without_morphs(out, on, &on, &removed);
  free(again);
  free(out);
}

/* the unbound material binder (collada_unbound.c): a copy no shorter, NUL-terminated, that needs no second pass */
static void unbound(const char* xml, size_t n) {
  size_t on = 0, on2 = 0;
  uint32_t bound = 0;
  char* out = skio_collada_bind_unbound(xml, n, &on, &bound);
  if (!out) return;
  if (on < n || out[on] != 0 || !bound) __builtin_trap();
  char* again = skio_collada_bind_unbound(out, on, &on2, NULL);
  if (again) __builtin_trap();
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* xml = malloc(size ? size : 1); /* exactly the bytes, no terminator: ASan sees any read past them */
  if (!xml) return 0;
  memcpy(xml, data, size);
  clips(xml, size);
  names(xml, size);
  morphs(xml, size);
  unbound(xml, size);
  skio_collada_ortho* cams = NULL; /* the orthographic cameras' scanner (io/collada_cameras.c) */
  uint32_t nc = 0;
  if (skio_collada_ortho_list(xml, size, &cams, &nc, NULL) == SKC_OK) skio_collada_ortho_free(cams, nc);
  char** plain = NULL; /* the plain nodes' ids (io/collada_text.c): sorted, non-empty */
  uint32_t np = 0;
  if (skio_collada_plain_nodes(xml, size, &plain, &np) == SKC_OK)
    for (uint32_t i = 0; i < np; ++i)
      if (!plain[i][0] || (i && strcmp(plain[i - 1], plain[i]) > 0)) __builtin_trap();
  skio_names_free(plain, np);
  skio_collada_tip* tips = NULL; /* Blender's bone tips (io/collada_tips.c): sorted, unique, finite, each found */
  uint32_t nt = 0;
  if (skio_collada_tips(xml, size, &tips, &nt) == SKC_OK)
    for (uint32_t i = 0; i < nt; ++i) {
      const skio_collada_tip* t = &tips[i];
      if (!t->node[0] || (i && strcmp(tips[i - 1].node, t->node) >= 0) || (!t->has_tip && !t->connect) ||
          (t->has_tip && !(isfinite(t->tip[0]) && isfinite(t->tip[1]) && isfinite(t->tip[2]))) ||
          skio_collada_tip_of(tips, nt, t->node) != t)
        __builtin_trap();
    }
  skio_collada_tips_free(tips, nt);
  skio_collada_controller_check(xml, size, NULL);
  free(xml);
  return 0;
}
