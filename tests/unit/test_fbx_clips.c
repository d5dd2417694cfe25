/* test_fbx_clips.c - a clip read from a binary FBX keeps its place on the timeline (io/fbx_stacks.c). Assimp 5.2.5's
 * FBX reader moves every clip to start at 0 (it subtracts the AnimationStack's LocalStart, or its earliest transform
 * key when the stack sets no LocalStart / LocalStop); Blender keys a scene's clip from frame 1, so every file written
 * from one of its FBX characters had the motion one frame early (docs/formats.md). Asserted on Blender-written files
 * (tests/data): the keys sit at the frames Blender keyed (make_animated_objects.py, make_bone_keyed_light.py: frames
 * 1-40 at 24 fps), through .glb and Assimp's FBX writer (LocalStart 0) and back; a stack stripped of LocalStart /
 * LocalStop gets its earliest key back; an ASCII file's LocalStart is read too; the stack readers survive damaged
 * bytes. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skio_fbx_tree.h"
#include "skio_scene.h"

static char g_dir[64];

static void span_of(const skio_channel* ch, double* lo, double* hi) {
  const double* t[3] = {ch->pos_time, ch->rot_time, ch->scl_time};
  const uint32_t n[3] = {ch->pos_count, ch->rot_count, ch->scl_count};
  for (int k = 0; k < 3; ++k)
    if (n[k]) *lo = fmin(*lo, t[k][0]), *hi = fmax(*hi, t[k][n[k] - 1]);
}

/* First and last key time (seconds) of clip a over its joints' and objects' channels. */
static void clip_span(const skio_scene* s, uint32_t a, double* lo, double* hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (uint32_t c = 0; c < s->anims[a].channel_count; ++c) span_of(&s->anims[a].channels[c], lo, hi);
  for (uint32_t k = 0; k < s->object_channel_count; ++k)
    if (s->object_channels[k].anim == a) span_of(&s->object_channels[k].ch, lo, hi);
  ck_assert(*lo <= *hi);
}

static void expect_frames(const skio_scene* s, const char* what, double first, double last) {
  ck_assert_uint_ge(s->anim_count, 1);
  double lo, hi;
  clip_span(s, 0, &lo, &hi);
  ck_assert_msg(fabs(lo * 24.0 - first) < 1e-4 && fabs(hi * 24.0 - last) < 1e-4,
                "%s: keys at frames %.4f..%.4f, Blender keyed %g..%g", what, lo * 24.0, hi * 24.0, first, last);
  ck_assert_msg(s->anims[0].duration * 24.0 > last - 1e-4, "%s: clip ends at frame %.4f", what,
                s->anims[0].duration * 24.0);
}

/* The file, its .glb and the .fbx Assimp's writer makes from that .glb: the keys stay at the frames. */
static void keeps_frames(const char* name, double first, double last) {
  skio_scene* s = skt_scene_load(skt_data(name));
  expect_frames(s, name, first, last);
  char glb[256], fbx[256];
  skt_scene_save(s, g_dir, "clip.glb", glb, sizeof glb);
  skio_scene* g = skt_scene_load(glb);
  expect_frames(g, "its .glb", first, last);
  skt_scene_save(g, g_dir, "clip.fbx", fbx, sizeof fbx);
  skio_scene* f = skt_scene_load(fbx);
  expect_frames(f, "the .fbx written from the .glb", first, last);
  skio_scene_destroy(f);
  skio_scene_destroy(g);
  skio_scene_destroy(s);
}

START_TEST(clips_keep_their_frames) {
  keeps_frames("animated_objects.fbx", 1.0, 40.0);
  keeps_frames("bone_keyed_light.fbx", 1.0, 40.0);
}
END_TEST

/* The bytes of path with the LocalStart / LocalStop P records of its AnimationStacks dropped. */
static uint8_t* without_local_range(const char* path, size_t* out_n) {
  size_t n;
  uint8_t* d = (uint8_t*)skt_slurp(path, &n);
  skio_fbx_tree t;
  skc_err err = {0};
  ck_assert_int_eq(skio_fbx_tree_parse(d, n, &t, &err), SKC_OK);
  skio_fbx_change* ch = calloc(t.count, sizeof *ch);
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  int dropped = 0;
  for (uint32_t st = skio_fbx_child(&t, objects, "AnimationStack", SKIO_FBX_NONE); st != SKIO_FBX_NONE;
       st = skio_fbx_child(&t, objects, "AnimationStack", st)) {
    const uint32_t props = skio_fbx_child(&t, st, "Properties70", SKIO_FBX_NONE);
    for (uint32_t p = skio_fbx_child(&t, props, "P", SKIO_FBX_NONE); p != SKIO_FBX_NONE;
         p = skio_fbx_child(&t, props, "P", p))
      if (skio_fbx_prop_str_is(&t, p, 0, "LocalStart") || skio_fbx_prop_str_is(&t, p, 0, "LocalStop"))
        ch[p].drop = true, ++dropped;
  }
  ck_assert_int_eq(dropped, 2);
  uint8_t* out = NULL;
  ck_assert_int_eq(skio_fbx_tree_write(&t, ch, &out, out_n, &err), SKC_OK);
  skio_fbx_tree_free(&t);
  free(ch);
  free(d);
  return out;
}

START_TEST(a_stack_without_local_range_starts_at_its_earliest_key) {
  size_t n;
  uint8_t* d = without_local_range(skt_data("animated_objects.fbx"), &n);
  char path[256];
  snprintf(path, sizeof path, "%s/no_range.fbx", g_dir);
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(d, 1, n, f), n);
  fclose(f);
  skio_fbx_stack* st = NULL;
  uint32_t count = 0;
  skc_err err = {0};
  ck_assert_int_eq(skio_fbx_stack_list(d, n, &st, &count, &err), SKC_OK);
  ck_assert_uint_eq(count, 1);
  ck_assert_str_eq(st[0].name, "Scene");
  ck_assert_msg(fabs(st[0].start * 24.0 - 1.0) < 1e-9, "earliest key at frame %.6f", st[0].start * 24.0);
  skio_fbx_stack_free(st, count);
  skio_scene* s = skt_scene_load(path);
  expect_frames(s, "no LocalStart / LocalStop", 1.0, 40.0);
  skio_scene_destroy(s);
  free(d);
}
END_TEST

/* An ASCII file written through Assimp (from the .glb: keys where the clip sits, LocalStart 0; the .fbx itself would be
 * an edit that keeps Blender's LocalStart) given a LocalStart of 1/24 s: Assimp moves the keys 1/24 s earlier, the
 * reader puts them back. */
START_TEST(an_ascii_stack_keeps_its_local_start) {
  skio_scene* src = skt_scene_load(skt_data("animated_objects.fbx"));
  char glb[256];
  skt_scene_save(src, g_dir, "via.glb", glb, sizeof glb);
  skio_scene_destroy(src);
  skio_scene* s = skt_scene_load(glb);
  char path[256], note[512];
  snprintf(path, sizeof path, "%s/ascii.fbx", g_dir);
  skio_export_options o = {.format = "fbxa", .note = note, .note_size = sizeof note};
  skc_err err = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s", err.message);
  skio_scene_destroy(s);
  size_t n;
  char* text = skt_slurp(path, &n);
  static const char k_zero[] = "P: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n";
  char* stack = strstr(text, "AnimationStack: "); /* the object, not the Definitions template before it */
  ck_assert_ptr_nonnull(stack);
  char* at = strstr(stack, k_zero);
  ck_assert_ptr_nonnull(at);
  char patched[256];
  snprintf(patched, sizeof patched, "%.*s1924423250\n", (int)(sizeof k_zero - 3), k_zero); /* 1/24 s in ticks */
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(text, 1, (size_t)(at - text), f);
  fputs(patched, f);
  fputs(at + sizeof k_zero - 1, f);
  fclose(f);
  free(text);
  skio_scene* a = skt_scene_load(path);
  expect_frames(a, "ASCII with LocalStart 1/24 s", 1.0, 40.0);
  skio_scene_destroy(a);
  /* damaged text: truncated anywhere, bytes flipped (braces, quotes and newlines included) */
  text = skt_slurp(path, &n);
  char* bad = malloc(n);
  skt_rng r = {11};
  for (int i = 0; i < 1000; ++i) {
    memcpy(bad, text, n);
    for (int k = 0; k < 1 + i % 6; ++k) bad[skt_rand_u32(&r) % n] ^= (char)(1u << (skt_rand_u32(&r) % 8));
    skio_fbx_stack* st = NULL;
    uint32_t count = 0;
    ck_assert_int_eq(skio_fbx_ascii_stack_list(bad, i % 3 ? n : skt_rand_u32(&r) % n, &st, &count, &err), SKC_OK);
    for (uint32_t k = 0; k < count; ++k) ck_assert(isfinite(st[k].start) && st[k].name);
    skio_fbx_stack_free(st, count);
  }
  free(bad);
  free(text);
}
END_TEST

/* The ASCII reader parses numbers within the bytes it is given (a file is not NUL-terminated): a file ending on a
 * LocalStart's digits is read without a byte past its end (ASan, exact-size copies), a negative start is kept and a
 * value past int64 saturates. */
START_TEST(ascii_numbers_are_read_within_the_input) {
  static const char k_head[] = "AnimationStack: 7, \"AnimStack::Take\", \"\" {\n Properties70:  {\n";
  static const char k_start[] = "  P: \"LocalStart\", \"KTime\", \"Time\", \"\", ";
  static const struct {
    const char* value;
    double seconds;
  } k_cases[] = {{"-1924423250", -1.0 / 24.0}, {"3848846500", 2.0 / 24.0}, {"99999999999999999999999", 0.0}};
  char text[512];
  for (size_t c = 0; c < sizeof k_cases / sizeof *k_cases; ++c) {
    const int whole = snprintf(text, sizeof text, "%s%s%s\n }\n}\n", k_head, k_start, k_cases[c].value);
    const size_t digits_end = strlen(k_head) + strlen(k_start) + strlen(k_cases[c].value);
    for (size_t len = digits_end - 3; len <= (size_t)whole; ++len) {
      char* exact = malloc(len);
      memcpy(exact, text, len);
      skio_fbx_stack* st = NULL;
      uint32_t count = 0;
      skc_err err = {0};
      ck_assert_int_eq(skio_fbx_ascii_stack_list(exact, len, &st, &count, &err), SKC_OK);
      ck_assert_uint_eq(count, 1);
      ck_assert_str_eq(st[0].name, "Take");
      ck_assert(isfinite(st[0].start));
      if (len == (size_t)whole && k_cases[c].seconds != 0.0)
        ck_assert_double_eq_tol(st[0].start, k_cases[c].seconds, 1e-12);
      if (len == (size_t)whole && k_cases[c].seconds == 0.0) ck_assert(st[0].start > 1e6); /* saturated, not wrapped */
      skio_fbx_stack_free(st, count);
      free(exact);
    }
  }
}
END_TEST

START_TEST(damaged_stacks_do_not_crash_the_reader) {
  size_t n;
  uint8_t* d = (uint8_t*)skt_slurp(skt_data("animated_objects.fbx"), &n);
  uint8_t* bad = malloc(n);
  skt_rng r = {7};
  for (int i = 0; i < 2000; ++i) {
    memcpy(bad, d, n);
    for (int k = 0; k < 1 + i % 4; ++k) bad[skt_rand_u32(&r) % n] ^= (uint8_t)(1u << (skt_rand_u32(&r) % 8));
    const size_t len = i % 5 ? n : skt_rand_u32(&r) % n;
    skio_fbx_stack* st = NULL;
    uint32_t count = 0;
    skc_err err = {0};
    const int rc = skio_fbx_stack_list(bad, len, &st, &count, &err);
    ck_assert_msg(rc == SKC_OK || rc == SKC_FORMAT, "flip %d: %d %s", i, rc, err.message);
    for (uint32_t k = 0; k < count; ++k) ck_assert(isfinite(st[k].start));
    skio_fbx_stack_free(st, count);
    /* the same bytes as text: any line structure, braces and quotes at random */
    ck_assert_int_eq(skio_fbx_ascii_stack_list((const char*)bad, len, &st, &count, &err), SKC_OK);
    for (uint32_t k = 0; k < count; ++k) ck_assert(isfinite(st[k].start) && st[k].name);
    skio_fbx_stack_free(st, count);
  }
  free(bad);
  free(d);
}
END_TEST

/* Every AnimationCurve of an FBX skinkit writes says its keys are linear (KeyAttrFlags 24836, as Blender writes them):
 * Assimp's writer leaves 0, and the Autodesk FBX SDK (Maya, Unity, Unreal, FBX2glTF) then evaluates the bones at the
 * origin with scale 0 between keys (a three-key bend read by FBX2glTF 0.9.7: 2.08 off on a model 1.95 tall, 1.5e-5
 * with the flags). Binary: each "KeyAttrFlags" record's raw int array; ASCII: the "a:" line after it. */
START_TEST(fbx_curves_say_their_keys_are_linear) {
  skio_scene* s = skt_scene_load(skt_data("two_rigs_three.glb"));
  ck_assert_uint_ge(s->anim_count, 1);
  static const char* const formats[2] = {NULL, "fbxa"};
  for (int a = 0; a < 2; ++a) {
    char path[256];
    snprintf(path, sizeof path, "%s/linear%d.fbx", g_dir, a);
    skio_export_options o = {.format = formats[a]};
    skc_err err = {0};
    ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s", err.message);
    size_t n = 0;
    char* d = skt_slurp(path, &n);
    ck_assert_ptr_nonnull(d);
    unsigned curves = 0;
    static const char k_bin[] =
        "KeyAttrFlags"
        "i"
        "\x01\0\0\0"
        "\0\0\0\0"
        "\x04\0\0\0";
    static const char k_text[] = "KeyAttrFlags: *1 {";
    const char* key = a ? k_text : k_bin;
    const size_t kn = a ? sizeof k_text - 1 : sizeof k_bin - 1;
    for (size_t i = 0; i + kn + 16 < n; ++i) {
      if (memcmp(d + i, key, kn)) continue;
      ++curves;
      if (!a) {
        const unsigned char* v = (const unsigned char*)d + i + kn;
        ck_assert_uint_eq(v[0] | v[1] << 8 | v[2] << 16 | (unsigned)v[3] << 24, 24836);
      } else {
        const char* line = strchr(d + i, '\n') + 1;
        while (*line == '\t' || *line == ' ') ++line;
        ck_assert_msg(!strncmp(line, "a: 24836\n", 9) || !strncmp(line, "a: 24836\r", 9), "%.20s", line);
      }
    }
    ck_assert_msg(curves >= 9, "%s: %u curves", path, curves);
    free(d);
  }
  skio_scene_destroy(s);
}
END_TEST

static void setup(void) { skt_tmpdir_make(g_dir, sizeof g_dir, "fbxclips"); }

static void teardown(void) { skt_tmpdir_remove(g_dir); }

int main(void) {
  Suite* s = suite_create("fbx_clips");
  TCase* tc = tcase_create("clips");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, clips_keep_their_frames);
  tcase_add_test(tc, a_stack_without_local_range_starts_at_its_earliest_key);
  tcase_add_test(tc, an_ascii_stack_keeps_its_local_start);
  tcase_add_test(tc, ascii_numbers_are_read_within_the_input);
  tcase_add_test(tc, damaged_stacks_do_not_crash_the_reader);
  tcase_add_test(tc, fbx_curves_say_their_keys_are_linear);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
