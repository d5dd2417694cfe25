#define _DEFAULT_SOURCE /* mkdtemp */
/* test_collada_clips.c - several animation clips through Collada (io/skio_collada.h): scene_export.c writes every
 * clip on one timeline in one <animation> plus a <library_animation_clips>; skio_scene_import cuts it back.
 *  - a generated rig with three clips (special characters in the names, tracks that start after 0 and end before
 *    the clip's end, a key at a negative time, a zero-length clip, joints animated in one clip only): names,
 *    durations, key times (every source key inside the clip comes back; the only new keys are at 0 and at the
 *    clip's end) and poses at and between keys; Assimp's own reading of the file is one animation whose keys at
 *    start_k + t are clip k's at t;
 *  - damaged clip libraries are ignored (the timeline stays one animation), defaults and entities are read, and
 *    random byte damage inside the library never crashes the reader;
 *  - corpus files with several clips (Testwuson.X 3, Fox.glb 3, Clonk 83): every clip, key time and pose;
 *  - many meshes on one skeleton (modular_rig.glb): each controller names only the joints its mesh weights, one the
 *    rest of the skeleton once (session 76). */
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skc_math.h"
#include "skio_buf.h"
#include "skio_collada.h"
#include "skio_scene.h"

static char g_tmp[256];

static void make_tmp(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/sk_test_clips_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(g_tmp));
}
static void rm_tmp(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  ck_assert_int_eq(system(cmd), 0);
}
static const char* tmp_path(const char* name) {
  static char buf[2][512];
  static int k;
  k ^= 1;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, name);
  return buf[k];
}

static char* read_all(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* p = malloc((size_t)len + 1);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(fread(p, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  p[len] = 0;
  *n = (size_t)len;
  return p;
}

static void write_all(const char* path, const char* p, size_t n) {
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(p, 1, n, f), n);
  fclose(f);
}

static size_t count_of(const char* hay, const char* needle) {
  size_t c = 0;
  for (const char* p = strstr(hay, needle); p; p = strstr(p + 1, needle)) ++c;
  return c;
}

/* ---- the generated rig ------------------------------------------------------------------------------------ */
static void track(double** tt, float** vv, uint32_t* n, int width, uint32_t count, const double* times,
                  const float* vals) {
  *tt = malloc(count * sizeof(double) + 8);
  *vv = malloc(count * (size_t)width * sizeof(float) + 4);
  ck_assert(*tt && *vv);
  memcpy(*tt, times, count * sizeof(double));
  memcpy(*vv, vals, count * (size_t)width * sizeof(float));
  *n = count;
}

static void quat_z(float deg, float* q) {
  float h = deg * 3.14159265f / 360.0f;
  q[0] = 0.0f, q[1] = 0.0f, q[2] = sinf(h), q[3] = cosf(h);
}

/* root - mid - tip chain (1 apart on y), 6 vertices on two triangles weighted along it, three clips:
 *  0 "Run & <Jump> \"1\"": 1 s; mid rotates (keys 0.25, 0.5, 0.75: starts after 0, ends before 1), mid moves
 *    (keys 0, 1);
 *  1 "Idle 'é'": 2 s; tip scales (keys 0, 0.5, 1, 1.5, 2) and moves (keys -0.5, 0.5, 1.5: a negative time);
 *  2 "Bind": 0 s; root one key at 0. */
static skio_scene* rig_scene_named(const char* const names_in[3]) {
  const char* names[3] = {names_in[0], names_in[1], names_in[2]};
  int32_t parents[3] = {-1, 0, 1};
  float local[48];
  for (int j = 0; j < 3; ++j) {
    skc_mat4_identity(local + j * 16);
    if (j) local[j * 16 + 13] = 1.0f;
  }
  skc_skeleton_init init = {3, names, parents, local, NULL, NULL, NULL};
  skc_skeleton* sk = NULL;
  skc_err err = {0};
  ck_assert_msg(skc_skeleton_create(&init, &sk, &err) == SKC_OK, "%s", err.message);
  skio_scene* s = NULL;
  ck_assert_int_eq(skio_scene_create(sk, &s, &err), SKC_OK);
  skc_skeleton_destroy(sk);
  const float pos[18] = {-0.2f, 0, 0, 0.2f, 0, 0, -0.2f, 1, 0, 0.2f, 1, 0, -0.2f, 2, 0, 0.2f, 2, 0};
  const uint32_t idx[12] = {0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5};
  skc_skin* skin = NULL;
  ck_assert_int_eq(skc_skin_create(6, 3, &skin, &err), SKC_OK);
  const uint32_t off[7] = {0, 1, 2, 4, 6, 7, 8};
  const uint32_t jt[8] = {0, 0, 0, 1, 0, 1, 2, 2};
  const float wt[8] = {1, 1, 0.5f, 0.5f, 0.5f, 0.5f, 1, 1};
  ck_assert_int_eq(skc_skin_set(skin, off, jt, wt, &err), SKC_OK);
  skio_mesh_init mi = {"strip", 6, pos, NULL, NULL, NULL, idx, 12, skin, NULL, NULL, NULL};
  ck_assert_msg(skio_scene_add_mesh(s, &mi, NULL, &err) == SKC_OK, "%s", err.message);
  skc_skin_destroy(skin);

  s->anims = calloc(3, sizeof *s->anims);
  ck_assert_ptr_nonnull(s->anims);
  s->anim_count = 3;
  const char* an[3] = {"Run & <Jump> \"1\"", "Idle '\xc3\xa9'", "Bind"};
  const double dur[3] = {1.0, 2.0, 0.0};
  const uint32_t nch[3] = {1, 1, 1};
  for (int a = 0; a < 3; ++a) {
    s->anims[a].name = malloc(strlen(an[a]) + 1);
    memcpy(s->anims[a].name, an[a], strlen(an[a]) + 1);
    s->anims[a].duration = dur[a];
    s->anims[a].ticks_per_second = 1.0;
    s->anims[a].channels = calloc(nch[a], sizeof(skio_channel));
    s->anims[a].channel_count = nch[a];
  }
  skio_channel* c = &s->anims[0].channels[0];
  c->joint = 1;
  {
    const double t[3] = {0.25, 0.5, 0.75};
    float q[12];
    quat_z(10, q), quat_z(60, q + 4), quat_z(-30, q + 8);
    track(&c->rot_time, &c->rot, &c->rot_count, 4, 3, t, q);
    const double tp[2] = {0.0, 1.0};
    const float p[6] = {0, 1, 0, 0.3f, 1, 0};
    track(&c->pos_time, &c->pos, &c->pos_count, 3, 2, tp, p);
  }
  c = &s->anims[1].channels[0];
  c->joint = 2;
  {
    const double t[5] = {0, 0.5, 1, 1.5, 2};
    const float sc[15] = {1, 1, 1, 1.5f, 1, 1, 1, 2, 1, 0.5f, 0.5f, 0.5f, 1, 1, 1};
    track(&c->scl_time, &c->scl, &c->scl_count, 3, 5, t, sc);
    const double tp[3] = {-0.5, 0.5, 1.5};
    const float p[9] = {0, 1, 0, 0, 1.5f, 0, 0.2f, 1, 0};
    track(&c->pos_time, &c->pos, &c->pos_count, 3, 3, tp, p);
  }
  c = &s->anims[2].channels[0];
  c->joint = 0;
  {
    const double t[1] = {0.0};
    const float p[3] = {0, 0.5f, 0};
    track(&c->pos_time, &c->pos, &c->pos_count, 3, 1, t, p);
  }
  return s;
}

static skio_scene* rig_scene(void) {
  static const char* const names[3] = {"root", "mid", "tip"};
  return rig_scene_named(names);
}

/* ---- comparing clips ---------------------------------------------------------------------------------------- */
static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Collada joints come back under their own names (the name attribute; skio_collada.h), not as XML ids */
static int32_t rt_joint(const skio_scene* rt, const char* name) { return skc_skeleton_find(rt->skeleton, name); }

static const skio_channel* channel_of(const skio_anim* a, uint32_t joint) {
  for (uint32_t c = 0; c < a->channel_count; ++c)
    if (a->channels[c].joint == joint) return &a->channels[c];
  return NULL;
}

/* t[0, n) ascending (key times are): binary search for a time within tol of want. */
static int has_time(const double* t, uint32_t n, double want, double tol) {
  uint32_t lo = 0, hi = n; /* first index with t >= want - tol */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (t[mid] < want - tol)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && t[lo] <= want + tol;
}

/* Collada stores one matrix per key, so every track of the round trip has the union of the source channel's
 * T/R/S times: each source time in [0, duration] must be in each round-trip track, and each round-trip time must be
 * a source time, 0 or the duration. Returns how many source keys were found. */
static size_t check_times(const char* what, const skio_channel* sc, const double* rt, uint32_t rn, double dur,
                          double tol) {
  const double* st[3] = {sc->pos_time, sc->rot_time, sc->scl_time};
  const uint32_t sn[3] = {sc->pos_count, sc->rot_count, sc->scl_count};
  size_t compared = 0;
  for (int k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < sn[k]; ++i) {
      if (st[k][i] < -tol || st[k][i] > dur + tol) continue;
      if (!has_time(rt, rn, st[k][i], tol)) ck_abort_msg("%s: key at %.9g s lost", what, st[k][i]);
      ++compared;
    }
  /* (plain ifs in these loops: every ck_assert leaves a record in Check's message file, millions here) */
  for (uint32_t i = 0; i < rn; ++i)
    if (!(has_time(st[0], sn[0], rt[i], tol) || has_time(st[1], sn[1], rt[i], tol) ||
          has_time(st[2], sn[2], rt[i], tol) || fabs(rt[i]) <= tol || fabs(rt[i] - dur) <= tol))
      ck_abort_msg("%s: new key at %.9g s (only 0 and the end %.9g may be added)", what, rt[i], dur);
  return compared;
}

/* TRS of two poses within tolerance (translation relative to the scale of the rig, rotations by angle). */
static void check_pose(const char* what, double t, const skc_trs* a, const skc_trs* b, float ttol) {
  for (int k = 0; k < 3; ++k) {
    if (!(fabsf(a->t[k] - b->t[k]) <= ttol))
      ck_abort_msg("%s t=%g: translation %g vs %g", what, t, a->t[k], b->t[k]);
    if (!(fabsf(a->s[k] - b->s[k]) <= 1e-5f * (1.0f + fabsf(a->s[k]))))
      ck_abort_msg("%s t=%g: scale %g vs %g", what, t, a->s[k], b->s[k]);
  }
  double d = 0.0, na = 0.0, nb = 0.0; /* |cos| of half the angle between the rotations, in double */
  for (int k = 0; k < 4; ++k) d += (double)a->r[k] * b->r[k], na += (double)a->r[k] * a->r[k], nb += (double)b->r[k] * b->r[k];
  d = fabs(d) / sqrt(na * nb);
  /* 2.8e-4 rad: Assimp keeps Collada key times as float milliseconds, so a key of a clip late on the timeline
   * (Clonk's 45th, ~150 s in) moves by ~1e-5 s and a fast joint turns ~1e-4 rad in that time */
  if (!(d >= 1.0 - 1e-8)) ck_abort_msg("%s t=%g: rotations differ (|dot| %.12g)", what, t, d);
}

/* The pose of a root joint as the Collada writer writes it: Z up, C = (x, y, z) -> (x, -z, y), a quarter turn about
 * X (io/scene_export.c; Assimp's reader turns the document back with its root node). */
static void root_to_zup(skc_trs* p) {
  const float q[4] = {0.70710678f, 0.0f, 0.0f, 0.70710678f};
  const float t[3] = {p->t[0], -p->t[2], p->t[1]};
  float r[4];
  skc_quat_mul(q, p->r, r);
  memcpy(p->t, t, sizeof t);
  memcpy(p->r, r, sizeof r);
}

/* p := m p for a rigid m (no scale): the pose of a child of a held root (below). */
static void compose_rigid(const skc_trs* m, skc_trs* p) {
  float t[3], r[4];
  skc_quat_rotate(m->r, p->t, t);
  for (int k = 0; k < 3; ++k) p->t[k] = t[k] + m->t[k];
  skc_quat_mul(m->r, p->r, r);
  memcpy(p->r, r, sizeof r);
}

/* The source joint whose Z-up turn the writer gave to its children (skio_scene_frame_view_to's held root: the one
 * root, at the identity in rt); -1 when the roots carry the turn. */
static int32_t held_root(const skio_scene* src, const skio_scene* rt, const int32_t* map) {
  int32_t r = -1;
  for (uint32_t j = 0; j < src->skeleton->joint_count; ++j)
    if (src->skeleton->parents[j] < 0) {
      if (r >= 0) return -1;
      r = (int32_t)j;
    }
  if (r < 0) return -1;
  const float* l = rt->skeleton->rest_local + (size_t)map[r] * 16;
  for (int e = 0; e < 16; ++e)
    if (fabsf(l[e] - (e % 5 == 0 ? 1.0f : 0.0f)) > 1e-6f) return -1;
  return r;
}

/* The source's pose of every joint as the Collada writer writes it: the roots turned to Z up, or a held root (which
 * no clip moves) at the identity and its children turned by its own turned pose. */
static void as_written(const skio_scene* src, int32_t held, skc_trs* ps) {
  skc_trs m;
  if (held >= 0) {
    m = ps[held];
    root_to_zup(&m);
    skc_trs_identity(&ps[held]);
  }
  for (uint32_t j = 0; j < src->skeleton->joint_count; ++j) {
    const int32_t p = src->skeleton->parents[j];
    if (held >= 0 && p == held)
      compose_rigid(&m, &ps[j]);
    else if (p < 0 && (int32_t)j != held)
      root_to_zup(&ps[j]);
  }
}

/* Every clip of src comes back in rt (same order, name, duration), with every key time and the same poses of every
 * joint at every key time and half-way between keys. ttol: translation tolerance. Returns the number of keys
 * compared. */
static size_t compare_clips(const char* file, const skio_scene* src, const skio_scene* rt, float ttol) {
  ck_assert_uint_eq(rt->anim_count, src->anim_count);
  const uint32_t js = src->skeleton->joint_count, jr = rt->skeleton->joint_count;
  int32_t* map = malloc(js * sizeof *map);
  skc_trs* ps = malloc(js * sizeof *ps);
  skc_trs* pr = malloc(jr * sizeof *pr);
  ck_assert(map && ps && pr);
  for (uint32_t j = 0; j < js; ++j) {
    map[j] = rt_joint(rt, src->skeleton->names[j]);
    ck_assert_msg(map[j] >= 0, "%s: joint %s lost", file, src->skeleton->names[j]);
  }
  const int32_t held = held_root(src, rt, map);
  size_t compared = 0;
  for (uint32_t a = 0; a < src->anim_count; ++a) {
    const skio_anim* sa = &src->anims[a];
    const skio_anim* ra = &rt->anims[a];
    char what[512];
    snprintf(what, sizeof what, "%s clip %u \"%s\"", file, a, sa->name);
    ck_assert_msg(!strcmp(ra->name, sa->name), "%s: came back as \"%s\"", what, ra->name);
    /* a key past the source's duration extends the clip (b3d); none of these files has one */
    ck_assert_msg(fabs(ra->duration - sa->duration) <= 1e-6 * (1.0 + sa->duration), "%s: duration %.9g vs %.9g", what,
                  ra->duration, sa->duration);
    const double tol = 1e-4; /* Assimp keeps Collada times as float milliseconds: 1.6e-5 s at 250 s */
    for (uint32_t c = 0; c < sa->channel_count; ++c) {
      const skio_channel* sc = &sa->channels[c];
      const skio_channel* rc = channel_of(ra, (uint32_t)map[sc->joint]);
      char w2[700];
      snprintf(w2, sizeof w2, "%s joint %s", what, src->skeleton->names[sc->joint]);
      ck_assert_msg(rc != NULL, "%s: channel lost", w2);
      compared += check_times(w2, sc, rc->pos_time, rc->pos_count, sa->duration, tol);
      compared += check_times(w2, sc, rc->rot_time, rc->rot_count, sa->duration, tol);
      compared += check_times(w2, sc, rc->scl_time, rc->scl_count, sa->duration, tol);
    }
    /* poses of every joint at every key time of the clip and half-way to the next one (sampled once per time) */
    size_t nt = 0, cap = 16;
    double* times = malloc(cap * sizeof *times);
    ck_assert_ptr_nonnull(times);
    for (uint32_t c = 0; c < sa->channel_count; ++c) {
      const skio_channel* sc = &sa->channels[c];
      const double* tt[3] = {sc->pos_time, sc->rot_time, sc->scl_time};
      const uint32_t tn[3] = {sc->pos_count, sc->rot_count, sc->scl_count};
      for (int k = 0; k < 3; ++k)
        for (uint32_t i = 0; i < tn[k]; ++i) {
          if (nt + 2 > cap) {
            cap *= 2;
            times = realloc(times, cap * sizeof *times);
            ck_assert_ptr_nonnull(times);
          }
          times[nt++] = tt[k][i];
          if (i + 1 < tn[k]) times[nt++] = 0.5 * (tt[k][i] + tt[k][i + 1]);
        }
    }
    qsort(times, nt, sizeof *times, cmp_double);
    for (size_t i = 0; i < nt; ++i) {
      const double t = times[i];
      if ((i && t == times[i - 1]) || t < 0.0 || t > sa->duration) continue;
      if (skio_anim_sample(src, a, t, ps, NULL) || skio_anim_sample(rt, a, t, pr, NULL))
        ck_abort_msg("%s: cannot sample t=%g", what, t);
      as_written(src, held, ps);
      for (uint32_t j = 0; j < js; ++j) check_pose(what, t, &ps[j], &pr[map[j]], ttol);
    }
    free(times);
    /* joints this clip does not animate stay at rest */
    ck_assert_int_eq(skio_anim_sample(src, a, 0.5 * sa->duration, ps, NULL), SKC_OK);
    ck_assert_int_eq(skio_anim_sample(rt, a, 0.5 * sa->duration, pr, NULL), SKC_OK);
    as_written(src, held, ps);
    for (uint32_t j = 0; j < js; ++j) check_pose(what, 0.5 * sa->duration, &ps[j], &pr[map[j]], ttol);
  }
  free(map);
  free(ps);
  free(pr);
  return compared;
}

static skio_scene* load(const char* path) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s: %s", path, err.message);
  return s;
}

static void save(const skio_scene* s, const char* path) {
  skc_err err = {0};
  skio_export_options o = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", path, err.message);
}

/* A fresh temporary folder with the rig written to rig.dae: the scene, *dae its path, the file's text (*n bytes). */
static char* rig_file(skio_scene** s, const char** dae, size_t* n) {
  make_tmp();
  *s = rig_scene();
  *dae = tmp_path("rig.dae");
  save(*s, *dae);
  return read_all(*dae, n);
}

/* ---- tests --------------------------------------------------------------------------------------------------- */
/* Blender-style joint names ("Finger.L.001"): Assimp's Collada reader splits a channel target "id/sid.member" at the
 * first '.', so a dotted id loses its animation. The export writes dot-free ids ("a.b" -> "a_b", made unique
 * against an existing "a_b" -> "a_b_1") and puts the names back; every joint, channel and pose returns under its
 * own name. */
START_TEST(dotted_joint_names_keep_names_and_animation) {
  static const char* const names[3] = {"Root.<L>", "a.b", "a_b"};
  make_tmp();
  skio_scene* s = rig_scene_named(names);
  const char* dae = tmp_path("dotted.dae");
  save(s, dae);
  size_t n = 0;
  char* text = read_all(dae, &n);
  ck_assert_ptr_nonnull(strstr(text, "<node id=\"a_b_1\" sid=\"a_b_1\" name=\"a.b\""));
  ck_assert_ptr_nonnull(strstr(text, "<node id=\"a_b\" sid=\"a_b\" name=\"a_b\""));
  ck_assert_ptr_nonnull(strstr(text, "name=\"Root.&lt;L&gt;\""));
  ck_assert_ptr_null(strstr(text, "target=\"a.b/")); /* no dotted channel target left */
  free(text);
  skio_scene* rt = load(dae);
  for (int j = 0; j < 3; ++j) ck_assert_msg(rt_joint(rt, names[j]) >= 0, "joint %s lost", names[j]);
  ck_assert_uint_ge(compare_clips("dotted", s, rt, 1e-5f), 13);
  skio_scene_destroy(rt);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* Names with bytes XML 1.0 cannot hold as they are (a Latin-1 byte that is no UTF-8, a control character, a line
 * feed) are written so that the .dae stays well-formed XML: the names came from the scene into name="..." raw, so a
 * glTF joint named "b\xff\xfe" or one with an ESC made the whole file unreadable (libxml2, Blender, the Khronos
 * tools), with exit 0. Session 73. Latin-1 bytes become their characters (as the glTF writer takes them), line
 * breaks and tabs character references, other control characters U+FFFD; clip names alike. */
START_TEST(names_xml_cannot_hold_are_written_as_characters) {
  static const char* const names[3] = {"b\xff\xfe", "esc\x1b[31m", "two\nlines\t<&>"};
  static const char* const back[3] = {"b\xc3\xbf\xc3\xbe", "esc\xef\xbf\xbd[31m", "two\nlines\t<&>"};
  make_tmp();
  skio_scene* s = rig_scene_named(names);
  free(s->anims[1].name);
  s->anims[1].name = strdup("clip\x01\xe9");
  const char* dae = tmp_path("bytes.dae");
  save(s, dae);
  size_t n = 0;
  char* text = read_all(dae, &n);
  for (size_t i = 0; i < n;) {
    const unsigned char c = (unsigned char)text[i];
    ck_assert_msg(c >= 0x20 || c == '\t' || c == '\n' || c == '\r', "control byte 0x%02x at %zu: %.80s", c, i,
                  text + (i > 40 ? i - 40 : 0));
    const size_t len = c < 0x80 ? 1 : skio_utf8_len((const unsigned char*)text + i);
    ck_assert_msg(len > 0, "byte 0x%02x at %zu is not UTF-8: %.80s", c, i, text + (i > 40 ? i - 40 : 0));
    i += len;
  }
  ck_assert_ptr_nonnull(strstr(text, "name=\"two&#10;lines&#9;&lt;&amp;&gt;\""));
  ck_assert_ptr_nonnull(strstr(text, "name=\"clip\xef\xbf\xbd\xc3\xa9\""));
  free(text);
  skio_scene* rt = load(dae);
  for (int j = 0; j < 3; ++j) ck_assert_msg(rt_joint(rt, back[j]) >= 0, "joint %d not read back as %s", j, back[j]);
  skio_scene_destroy(rt);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

START_TEST(rig_clips_come_back_with_names_keys_and_poses) {
  skio_scene* s = NULL;
  const char* dae = NULL;
  size_t n = 0;
  char* text = rig_file(&s, &dae, &n);
  /* one <animation>, three clips on whole seconds: Run [0, 1], Idle local 0 at 2.5 (its key at -0.5 at 2.0),
   * Bind at 5 (ceil(4.5 + 0.5)) */
  ck_assert_uint_eq(count_of(text, "<animation "), 1);
  ck_assert_uint_eq(count_of(text, "<animation_clip "), 3);
  ck_assert_msg(strstr(text, "name=\"Run &amp; &lt;Jump&gt; &quot;1&quot;\" start=\"0\" end=\"1\"") != NULL, "%s",
                strstr(text, "<library_animation_clips>"));
  ck_assert_ptr_nonnull(strstr(text, "name=\"Idle &apos;\xc3\xa9&apos;\" start=\"2.5\" end=\"4.5\""));
  ck_assert_ptr_nonnull(strstr(text, "name=\"Bind\" start=\"5\" end=\"5\""));
  free(text);
  skio_scene* rt = load(dae);
  ck_assert_uint_ge(compare_clips("rig", s, rt, 1e-5f), 13);
  /* the added keys, exactly: Run's rotation track gets 0 and 1 (0.25..0.75 held before and after); Idle's position
   * track starts at 0 (the -0.5 key is before the clip: the value at 0 is interpolated) and ends at 2 */
  const skio_channel* c = channel_of(&rt->anims[0], (uint32_t)rt_joint(rt, "mid"));
  ck_assert_uint_eq(c->rot_count, 5);
  ck_assert_double_eq_tol(c->rot_time[0], 0.0, 1e-6);
  ck_assert_double_eq_tol(c->rot_time[4], 1.0, 1e-6);
  c = channel_of(&rt->anims[1], (uint32_t)rt_joint(rt, "tip"));
  ck_assert_uint_eq(c->pos_count, 5); /* union with the scale keys 0, 0.5, 1, 1.5, 2 */
  ck_assert_float_eq_tol(c->pos[1], 1.25f, 1e-5f); /* at 0: half-way from 1 (at -0.5) to 1.5 (at 0.5) */

  /* Assimp's own reading: one animation, the timeline; mid's rotation at Run's 0.5 s is Run's key */
  const struct aiScene* ai = aiImportFile(dae, 0);
  ck_assert_ptr_nonnull(ai);
  ck_assert_uint_eq(ai->mNumAnimations, 1);
  const struct aiAnimation* aa = ai->mAnimations[0];
  double tps = aa->mTicksPerSecond > 0 ? aa->mTicksPerSecond : 1.0;
  int found = 0;
  for (unsigned k = 0; k < aa->mNumChannels; ++k) {
    const struct aiNodeAnim* na = aa->mChannels[k];
    if (strcmp(na->mNodeName.data, "mid")) continue;
    for (unsigned i = 0; i < na->mNumRotationKeys; ++i)
      if (fabs(na->mRotationKeys[i].mTime / tps - 0.5) < 1e-5) {
        float q[4];
        quat_z(60, q);
        const struct aiQuaternion r = na->mRotationKeys[i].mValue;
        ck_assert_float_ge(fabsf(r.x * q[0] + r.y * q[1] + r.z * q[2] + r.w * q[3]), 1.0f - 1e-6f);
        found = 1;
      }
  }
  ck_assert_msg(found, "no key for mid at 0.5 s in Assimp's timeline");
  aiReleaseImport(ai);
  skio_scene_destroy(rt);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* text with every occurrence of from replaced by to (a new malloc'd string); from must occur. */
static char* replaced(const char* text, const char* from, const char* to) {
  ck_assert_msg(strstr(text, from) != NULL, "\"%s\" not in the file", from);
  size_t fl = strlen(from), tl = strlen(to), n = strlen(text), hits = count_of(text, from);
  char* out = malloc(n + hits * tl + 1);
  ck_assert_ptr_nonnull(out);
  char* o = out;
  for (const char* p = text;;) {
    const char* at = strstr(p, from);
    if (!at) {
      memcpy(o, p, strlen(p) + 1);
      break;
    }
    memcpy(o, p, (size_t)(at - p));
    o += at - p;
    memcpy(o, to, tl);
    o += tl;
    p = at + fl;
  }
  return out;
}

static skio_scene* load_text(const char* text) {
  const char* p = tmp_path("edited.dae");
  write_all(p, text, strlen(text));
  return load(p);
}

START_TEST(damaged_clip_libraries_are_ignored_and_defaults_read) {
  skio_scene* s = NULL;
  const char* dae = NULL;
  size_t n = 0;
  char* text = rig_file(&s, &dae, &n);
  static const struct {
    const char* from;
    const char* to;
    uint32_t clips; /* 1 = the library was ignored: Assimp's one animation stays */
    const char* first_name;
  } cases[] = {
      {"start=\"2.5\" end=\"4.5\"", "start=\"2.5\" end=\"2.4\"", 1, NULL}, /* end before start */
      {"start=\"2.5\"", "start=\"2.5abc\"", 1, NULL},                      /* not a number */
      {"start=\"2.5\"", "start=\"nan\"", 1, NULL},                         /* not finite */
      {"start=\"2.5\"", "start=\"1e300\"", 1, NULL},                       /* out of range */
      {"animation_clips>", "animation_clipsX>", 1, NULL},                  /* another element */
      {" end=\"5\"", "", 3, "Run & <Jump> \"1\""},                         /* end = the timeline's end */
      {"name=\"Run &amp; &lt;Jump&gt; &quot;1&quot;\"", "name=\"&#x263A;&#9731;&amp;bogus;\"", 3,
       "\xe2\x98\xba\xe2\x98\x83&bogus;"},                                          /* references decoded */
      {"name=\"Run &amp; &lt;Jump&gt; &quot;1&quot;\"", "", 3, "Run____Jump___1_"}, /* no name: the id */
      {"id=\"Run____Jump___1_\" name=\"Run &amp; &lt;Jump&gt; &quot;1&quot;\"", "", 3, "clip0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char* t = replaced(text, cases[i].from, cases[i].to);
    skio_scene* rt = load_text(t);
    ck_assert_msg(rt->anim_count == cases[i].clips, "case %zu: %u animations", i, rt->anim_count);
    if (cases[i].first_name)
      ck_assert_msg(!strcmp(rt->anims[0].name, cases[i].first_name), "case %zu: \"%s\"", i, rt->anims[0].name);
    if (cases[i].clips == 1) ck_assert_double_eq_tol(rt->anims[0].duration, 5.0, 1e-4); /* the whole timeline */
    if (!strcmp(cases[i].from, " end=\"5\"")) ck_assert_double_eq_tol(rt->anims[2].duration, 0.0, 1e-4);
    skio_scene_destroy(rt);
    free(t);
  }
  /* random damage inside the clip library: loads or fails cleanly (Assimp's XML parser refuses what is no longer
   * well-formed), never crashes (the unit tests run under ASan in CI); every second round only with characters
   * that keep the XML well-formed, so the clip scanner itself sees the damage */
  const char* lib = strstr(text, "<library_animation_clips>");
  const char* end = strstr(text, "</library_animation_clips>");
  ck_assert(lib && end);
  size_t lo = (size_t)(lib - text), span = (size_t)(end - lib) + 26;
  skt_rng rng = {42};
  char* t = malloc(n + 1);
  ck_assert_ptr_nonnull(t);
  int loaded = 0;
  for (int it = 0; it < 120; ++it) {
    memcpy(t, text, n + 1);
    int flips = 1 + (int)(skt_rand_u32(&rng) % 6);
    for (int f = 0; f < flips; ++f) {
      static const char any[] = "<>\"'=&#;/ 0123456789.-eanx";
      static const char safe[] = " 0123456789.-+eEanxINF";
      const char* pool = it % 2 ? safe : any;
      size_t pn = it % 2 ? sizeof safe - 1 : sizeof any - 1;
      size_t at = lo + skt_rand_u32(&rng) % span;
      if (it % 2 && (t[at] == '"' || t[at] == '<' || t[at] == '>' || t[at] == '&' || t[at] == '/')) continue;
      t[at] = pool[skt_rand_u32(&rng) % pn];
    }
    const char* p = tmp_path("fuzz.dae");
    write_all(p, t, n);
    skio_scene* rt = NULL;
    skc_err err = {0};
    if (skio_scene_import(p, NULL, &rt, &err) == SKC_OK) {
      ck_assert_uint_ge(rt->anim_count, 1);
      for (uint32_t a = 0; a < rt->anim_count; ++a) ck_assert(rt->anims[a].duration >= 0.0);
      ++loaded;
      skio_scene_destroy(rt);
    }
  }
  ck_assert_int_gt(loaded, 20);
  free(t);
  free(text);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

START_TEST(clip_ranges_between_keys_take_the_values_there) {
  /* A clip library from elsewhere may cut through keys: a track with no key inside a clip gets its values at the
   * clip's start and end; keys inside are kept. */
  skio_scene* s = NULL;
  const char* dae = NULL;
  size_t n = 0;
  char* text = rig_file(&s, &dae, &n);
  /* Run's rotation keys (timeline 0.25, 0.5, 0.75): a clip [0.3, 0.45] holds none */
  char* t = replaced(text, "start=\"0\" end=\"1\"", "start=\"0.3\" end=\"0.45\"");
  skio_scene* rt = load_text(t);
  ck_assert_uint_eq(rt->anim_count, 3);
  ck_assert_double_eq_tol(rt->anims[0].duration, 0.15, 1e-9);
  const skio_channel* c = channel_of(&rt->anims[0], (uint32_t)rt_joint(rt, "mid"));
  ck_assert_ptr_nonnull(c);
  ck_assert_uint_eq(c->rot_count, 2);
  ck_assert_double_eq_tol(c->rot_time[1], 0.15, 1e-6);
  skc_trs want[3];
  skc_trs* got = malloc(rt->skeleton->joint_count * sizeof *got); /* the round trip adds skinkit_root */
  ck_assert_ptr_nonnull(got);
  ck_assert_int_eq(skio_anim_sample(s, 0, 0.3, want, NULL), SKC_OK);
  ck_assert_int_eq(skio_anim_sample(rt, 0, 0.0, got, NULL), SKC_OK);
  check_pose("cut start", 0.3, &want[1], &got[rt_joint(rt, "mid")], 1e-5f);
  ck_assert_int_eq(skio_anim_sample(s, 0, 0.45, want, NULL), SKC_OK);
  ck_assert_int_eq(skio_anim_sample(rt, 0, 0.15, got, NULL), SKC_OK);
  check_pose("cut end", 0.45, &want[1], &got[rt_joint(rt, "mid")], 1e-5f);
  free(got);
  skio_scene_destroy(rt);
  free(t);
  free(text);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

START_TEST(add_clips_refuses_documents_without_animations) {
  skio_clip c = {"a", 0.0, 1.0};
  char* out = (char*)1;
  size_t n = 7;
  skc_err err = {0};
  const char doc[] = "<COLLADA><library_geometries/></COLLADA>";
  ck_assert_int_eq(skio_collada_add_clips(doc, sizeof doc - 1, &c, 1, &out, &n, &err), SKC_FORMAT);
  ck_assert_ptr_eq(out, (char*)1);
  ck_assert_uint_eq(n, 7);
  ck_assert_int_eq(skio_collada_add_clips(NULL, 0, &c, 1, &out, &n, &err), SKC_INVALID_ARGUMENT);
  const char doc2[] = "<library_animations><animation id=\"x";
  ck_assert_int_eq(skio_collada_add_clips(doc2, sizeof doc2 - 1, &c, 1, &out, &n, &err), SKC_FORMAT);
}
END_TEST

/* The <animation_clip> ids are made of the clip names (three.js r187's ColladaLoader names each AnimationClip after
 * its clip's id and ignores the name attribute: the clips were "skinkit-clip-0", ...), xsd:IDs unique in the document:
 * a name taken by an id (not by a sid) or by an earlier clip gets "_<i>", other bytes become '_'. */
START_TEST(clip_ids_are_the_clip_names) {
  static const char doc[] =
      "<COLLADA><library_visual_scenes><node id=\"Walk\" sid=\"Run\"/><node id=\"Walk_1\"/></library_visual_scenes>"
      "<library_animations><animation id=\"tl\"/></library_animations></COLLADA>";
  static const skio_clip clips[] = {{"Walk", 0, 1}, {"Walk", 2, 3},           {"Run", 4, 5}, {"", 6, 7},
                                    {"2 go", 8, 9}, {"L\xc3\xa4uft", 10, 11}, {NULL, 12, 13}};
  static const char* const want[] = {"Walk_2", "Walk_3", "Run", "clip", "_2_go", "L__uft", "clip_1"};
  char* out = NULL;
  size_t n = 0;
  skc_err err = {0};
  ck_assert_int_eq(skio_collada_add_clips(doc, sizeof doc - 1, clips, 7, &out, &n, &err), SKC_OK);
  const char* at = out;
  for (int k = 0; k < 7; ++k) {
    char tag[64];
    snprintf(tag, sizeof tag, "<animation_clip id=\"%s\" name=\"", want[k]);
    const char* hit = strstr(at, tag);
    ck_assert_msg(hit != NULL, "clip %d: no %s in %.400s", k, tag, strstr(out, "<library_animation_clips>"));
    at = hit + 1;
  }
  ck_assert_ptr_nonnull(strstr(out, "<instance_animation url=\"#tl\"/>"));
  free(out);
}
END_TEST

/* Clips of one name get the smallest free suffix each, in time linear in their number: every clip compared its
 * candidate ids with every earlier clip's, so N clips of one name took O(N^3) (4,000 named "Walk": 42 s; a 393 KB
 * .glb with 2,000 animations of one name converted to .dae in 8.4 s). A document id and a clip named like a suffixed
 * id are skipped. */
START_TEST(many_clips_of_one_name_get_ids_in_linear_time) {
  static const char doc[] =
      "<COLLADA><library_visual_scenes><node id=\"Walk_5\"/></library_visual_scenes>"
      "<library_animations><animation id=\"tl\"/></library_animations></COLLADA>";
  enum { N = 3000 };
  skio_clip* clips = calloc(N, sizeof *clips);
  ck_assert_ptr_nonnull(clips);
  for (int k = 0; k < N; ++k) clips[k] = (skio_clip){k == 1 ? "Walk_7" : "Walk", k, k + 0.5};
  char* out = NULL;
  size_t n = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ck_assert_int_eq(skio_collada_add_clips(doc, sizeof doc - 1, clips, N, &out, &n, NULL), SKC_OK);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  ck_assert_msg(s < 1.0, "%d clips of one name took %.2f s", N, s);
  /* clip k: Walk, Walk_7, then Walk_1..4, Walk_6 (5 is the node's), Walk_8 (7 is clip 1's), ..., Walk_<k + 1> */
  const char* at = out;
  for (int k = 0; k < N; ++k) {
    char tag[64];
    const int suffix = k < 2 ? 0 : k < 6 ? k - 1 : k == 6 ? 6 : k + 1;
    if (k == 1)
      snprintf(tag, sizeof tag, "<animation_clip id=\"Walk_7\" name=\"");
    else if (suffix)
      snprintf(tag, sizeof tag, "<animation_clip id=\"Walk_%d\" name=\"", suffix);
    else
      snprintf(tag, sizeof tag, "<animation_clip id=\"Walk\" name=\"");
    const char* hit = strstr(at, tag);
    ck_assert_msg(hit != NULL, "clip %d: no %s after %.400s", k, tag, at);
    at = hit + 1;
  }
  free(out);
  free(clips);
}
END_TEST

/* The key times of Collada array `id` (a <float_array id="..."> of text) into t (room for cap); their count. */
static size_t float_array(const char* text, const char* id, double* t, size_t cap) {
  char tag[160];
  snprintf(tag, sizeof tag, "<float_array id=\"%s\"", id);
  const char* p = strstr(text, tag);
  ck_assert_msg(p != NULL, "no %s", tag);
  p = strchr(p, '>') + 1;
  size_t n = 0;
  for (char* e = NULL; n < cap; p = e) {
    t[n] = strtod(p, &e);
    if (e == p) break;
    ++n;
  }
  return n;
}

/* Clip timing pinned: every key keeps its second, a clip's local 0 is at its <animation_clip start>. Blender 3.4
 * reads a Collada time t at frame t * fps, as its own Collada exporter writes frame f at f / fps (frame_start does not
 * count) and as its glTF importer and exporter do; its FBX importer adds one frame (Animation Offset), so the .dae of
 * an FBX Blender wrote from a scene (keys at f / fps) plays one frame before Blender's FBX import of that FBX, which
 * is the FBX importer's shift, not the file's (docs/formats.md "Collada clip timing"). animated_objects.fbx (keyed at
 * frames 1-40 of a 24 fps scene) -> shin keyed at k / 24 s, k = 1..40, plus the clip's 0; two_rigs_anim.glb (two
 * clips at frames 1-20) -> Horse_Nod starts at 2 s, its keys at 2 + k / 24. */
START_TEST(collada_key_times_are_the_sources_seconds) {
  make_tmp();
  double t[64];
  skio_scene* s = load(skt_data("animated_objects.fbx"));
  const char* dae = tmp_path("timing.dae");
  save(s, dae);
  skio_scene_destroy(s);
  size_t n = 0;
  char* text = read_all(dae, &n);
  ck_assert_uint_eq(float_array(text, "shin_matrix-input-array", t, 64), 41);
  for (int k = 0; k <= 40; ++k) ck_assert_msg(fabs(t[k] - k / 24.0) < 1e-6, "shin key %d at %.9g s", k, t[k]);
  ck_assert_msg(strstr(text, "start=\"0\" end=\"1.66666666666666") != NULL, "%.400s",
                strstr(text, "<library_animation_clips>"));
  free(text);

  s = load(skt_data("two_rigs_anim.glb"));
  save(s, dae);
  skio_scene_destroy(s);
  text = read_all(dae, &n);
  ck_assert_msg(strstr(text, "name=\"Horse_Nod\" start=\"2\" end=\"2.83333331") != NULL, "%.400s",
                strstr(text, "<library_animation_clips>"));
  /* Horse's bones: held at Knight_Swing's 0 and end, then Horse_Nod's keys 1/24 .. 20/24 after its start */
  ck_assert_uint_eq(float_array(text, "Horse_b0_matrix-input-array", t, 64), 23);
  ck_assert(fabs(t[0]) < 1e-6 && fabs(t[1] - 20 / 24.0) < 1e-6 && fabs(t[2] - 2.0) < 1e-6);
  for (int k = 1; k <= 20; ++k)
    ck_assert_msg(fabs(t[2 + k] - (2.0 + k / 24.0)) < 1e-6, "Horse_b0 key %d at %.9g s", k, t[2 + k]);
  free(text);

  /* Assimp reads the same seconds (its ticks / ticks per second) */
  const struct aiScene* ai = aiImportFile(dae, 0);
  ck_assert_ptr_nonnull(ai);
  ck_assert_uint_eq(ai->mNumAnimations, 1);
  const struct aiAnimation* aa = ai->mAnimations[0];
  const double tps = aa->mTicksPerSecond > 0 ? aa->mTicksPerSecond : 1.0;
  int found = 0;
  for (unsigned c = 0; c < aa->mNumChannels; ++c)
    if (!strcmp(aa->mChannels[c]->mNodeName.data, "Horse_b0")) {
      const struct aiNodeAnim* na = aa->mChannels[c];
      ck_assert_uint_eq(na->mNumRotationKeys, 23);
      ck_assert_double_eq_tol(na->mRotationKeys[3].mTime / tps, 2.0 + 1 / 24.0, 1e-5);
      found = 1;
    }
  ck_assert(found);
  aiReleaseImport(ai);
  rm_tmp();
}
END_TEST

START_TEST(corpus_clips_survive_collada) {
  const char* dir = skt_assets_dir();
  if (!dir) {
    ck_assert_msg(!skt_assets_required(), "SKINKIT_ASSETS is set but not a directory");
    return;
  }
  static const struct {
    const char* file;
    uint32_t clips;
  } files[] = {{"x/Testwuson.X", 3}, {"gltf/Fox.glb", 3}, {"ogre/Clonk/Graphics.mesh", 83}};
  make_tmp();
  for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
    skio_scene* s = load(skt_asset(files[i].file));
    ck_assert_uint_eq(s->anim_count, files[i].clips);
    const char* dae = tmp_path("corpus.dae");
    save(s, dae);
    skio_scene* rt = load(dae);
    /* translations: 1e-4 of the rest skeleton's extent (the pose criterion of test_roundtrip; Clonk's Tumble, the
     * 82nd clip, ~250 s into the timeline, moves its root ~20 units/s, so the float-millisecond key times of Assimp's
     * Collada reader cost 3e-4 units there) */
    float ext = 0.0f;
    for (uint32_t j = 0; j < s->skeleton->joint_count; ++j)
      for (int k = 0; k < 3; ++k) ext = fmaxf(ext, fabsf(s->skeleton->rest_world[j * 16 + 12 + k]));
    size_t keys = compare_clips(files[i].file, s, rt, 1e-4f * (1.0f + ext));
    ck_assert_uint_gt(keys, files[i].clips);
    skio_scene_destroy(rt);
    skio_scene_destroy(s);
  }
  rm_tmp();
}
END_TEST

/* The orthographic cameras' scanner (io/collada_cameras.c): magnifications completed from aspect_ratio, clip
 * planes, the innermost open node that instantiates each camera (name, else id), a self-closing node not left
 * open, a non-positive magnification and a perspective camera not listed, a document without cameras. */
START_TEST(ortho_cameras_found_by_node) {
  static const char doc[] =
      "<COLLADA><library_cameras>"
      "<camera id=\"o1\"><optics><technique_common><orthographic><ymag>2</ymag><aspect_ratio>2</aspect_ratio>"
      "<znear>0.5</znear><zfar>10</zfar></orthographic></technique_common></optics></camera>"
      "<camera id=\"o2\" name=\"o2\"><optics><technique_common><orthographic><xmag>3</xmag><ymag>1.5</ymag>"
      "</orthographic></technique_common></optics></camera>"
      "<camera id=\"bad\"><optics><technique_common><orthographic><xmag>-1</xmag></orthographic>"
      "</technique_common></optics></camera>"
      "<camera id=\"p\"><optics><technique_common><perspective><xfov>40</xfov></perspective></technique_common>"
      "</optics></camera></library_cameras><library_visual_scenes><visual_scene id=\"s\">"
      "<node id=\"outer\" name=\"Outer\"><node id=\"leaf\"/><instance_camera url=\"#o1\"/>"
      "<node id=\"inner\"><instance_camera url=\"#o2\"/></node><instance_camera url=\"#bad\"/>"
      "<instance_camera url=\"#p\"/></node></visual_scene></library_visual_scenes></COLLADA>";
  skio_collada_ortho* l = NULL;
  uint32_t n = 9;
  ck_assert_int_eq(skio_collada_ortho_list(doc, sizeof doc - 1, &l, &n, NULL), SKC_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_str_eq(l[0].node, "Outer");
  ck_assert(l[0].xmag == 4.0 && l[0].ymag == 2.0 && l[0].znear == 0.5 && l[0].zfar == 10.0);
  ck_assert_str_eq(l[1].node, "inner");
  ck_assert(l[1].xmag == 3.0 && l[1].ymag == 1.5 && l[1].znear == 0.0);
  ck_assert_str_eq(l[2].node, "Outer"); /* "bad": listed with magnifications 0, which the importer ignores */
  ck_assert(l[2].xmag == 0.0);
  skio_collada_ortho_free(l, n);
  static const char none[] = "<COLLADA><library_visual_scenes/></COLLADA>";
  ck_assert_int_eq(skio_collada_ortho_list(none, sizeof none - 1, &l, &n, NULL), SKC_OK);
  ck_assert(n == 0 && l == NULL);
}
END_TEST

/* Blender's bone tails in the text (skio_collada_tips): a tip belongs to the node whose extra holds it, after that
 * node's children closed; connect alone counts; a plain node's technique, an incomplete or non-numeric tip, a
 * commented-out or CDATA node, and a node id given twice give nothing; the armature is the innermost plain node. */
START_TEST(blender_tips_scanned) {
  static const char doc[] =
      "<COLLADA><library_visual_scenes><visual_scene id=\"Scene\">"
      "<node id=\"Arm\" name=\"Arm\" type=\"NODE\">"
      " <node id=\"Arm_a\" name=\"a\" type=\"JOINT\"><matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</matrix>"
      "  <node id=\"Arm_b\" name=\"b\" type=\"JOINT\">"
      "   <node id=\"Arm_c\" type=\"JOINT\"/>"
      "   <extra><technique profile=\"blender\"><connect sid=\"connect\" type=\"bool\">1</connect>"
      "    <tip_x>0.5</tip_x><tip_y> -1e-1 </tip_y><tip_z>2</tip_z></technique></extra>"
      "  </node>"
      "  <!-- <node id=\"Ghost\" type=\"JOINT\"><extra><technique profile=\"blender\"><tip_x>1</tip_x><tip_y>1"
      "</tip_y><tip_z>1</tip_z></technique></extra></node> -->"
      "  <![CDATA[<node id=\"Data\" type=\"JOINT\"><extra><technique profile=\"blender\"><connect>1</connect>"
      "</technique></extra></node>]]>"
      "  <node id=\"Arm_d\" name=\"d\" type=\"JOINT\"><extra><technique profile='blender'><tip_x>1</tip_x>"
      "<tip_y>x</tip_y><tip_z>1</tip_z></technique></extra></node>"
      "  <node id=\"Arm_e\" name=\"e\" type=\"JOINT\"><extra><technique profile=\"blender\"><tip_x>1</tip_x>"
      "<tip_y>2</tip_y></technique><technique profile=\"other\"><tip_z>3</tip_z></technique></extra></node>"
      "  <node id=\"Dup\" type=\"JOINT\"><extra><technique profile=\"blender\"><connect>true</connect>"
      "</technique></extra></node>"
      "  <node id=\"Dup\" type=\"JOINT\"><extra><technique profile=\"blender\"><connect>1</connect></technique>"
      "</extra></node>"
      "  <extra><technique profile=\"blender\"><connect>0</connect><tip_x>0</tip_x><tip_y>0.25</tip_y>"
      "<tip_z>0</tip_z></technique></extra>"
      " </node>"
      " <node id=\"Cube\" type=\"NODE\"><extra><technique profile=\"blender\"><tip_x>1</tip_x><tip_y>1</tip_y>"
      "<tip_z>1</tip_z></technique></extra></node>"
      "</node>"
      "<node name=\"Loose\" type=\"JOINT\"><extra><technique profile=\"blender\"><connect>true</connect>"
      "</technique></extra></node>"
      "</visual_scene></library_visual_scenes></COLLADA>";
  skio_collada_tip* t = NULL;
  uint32_t n = 0;
  ck_assert_int_eq(skio_collada_tips(doc, sizeof doc - 1, &t, &n), SKC_OK);
  ck_assert_uint_eq(n, 3); /* Arm_a, Arm_b, Loose (sorted) */
  ck_assert_str_eq(t[0].node, "Arm_a");
  ck_assert(t[0].has_tip && !t[0].connect);
  ck_assert_str_eq(t[0].armature, "Arm");
  ck_assert(t[0].tip[0] == 0.0 && t[0].tip[1] == 0.25 && t[0].tip[2] == 0.0);
  ck_assert_str_eq(t[1].node, "Arm_b");
  ck_assert(t[1].has_tip && t[1].connect);
  ck_assert(t[1].tip[0] == 0.5 && t[1].tip[1] == -0.1 && t[1].tip[2] == 2.0);
  ck_assert_str_eq(t[2].node, "Loose");
  ck_assert(!t[2].has_tip && t[2].connect);
  ck_assert_str_eq(t[2].armature, "");
  ck_assert_ptr_eq(skio_collada_tip_of(t, n, "Arm_b"), &t[1]);
  ck_assert_ptr_null(skio_collada_tip_of(t, n, "Arm_c"));
  ck_assert_ptr_null(skio_collada_tip_of(t, n, "Dup"));
  skio_collada_tips_free(t, n);
  /* every prefix of the document (a truncated file) scans without reading past it */
  for (size_t k = 0; k < sizeof doc - 1; ++k) {
    char* cut = malloc(k + 1);
    memcpy(cut, doc, k);
    ck_assert_int_eq(skio_collada_tips(cut, k, &t, &n), SKC_OK);
    ck_assert_uint_le(n, 3);
    skio_collada_tips_free(t, n);
    free(cut);
  }
  ck_assert_int_eq(skio_collada_tips(NULL, 0, &t, &n), SKC_OK);
  ck_assert_uint_eq(n, 0);
}
END_TEST

/* Vertex v of mesh m skinned at rest (rest world x the mesh's inverse bind, by weight) into out: where any reader's
 * frame puts it, the same place for the same model. */
static void skinned_at_rest(const skio_scene* s, const skio_mesh* m, size_t v, float out[3]) {
  const skc_skin_view w = skc_skin_as_view(m->skin);
  out[0] = out[1] = out[2] = 0;
  for (uint32_t e = w.offsets[v]; e < w.offsets[v + 1]; ++e) {
    float x[16], p[3];
    skc_mat4_mul(s->skeleton->rest_world + (size_t)w.joints[e] * 16, m->inverse_bind + (size_t)w.joints[e] * 16, x);
    skc_mat4_transform_point(x, m->positions + v * 3, p);
    for (int c = 0; c < 3; ++c) out[c] += w.weights[e] * p[c];
  }
}

/* modular_rig.glb (make_modular_rig.py: 16 box meshes on one skin listing all 48 joints, each weighting 3) as .dae:
 * one controller names every joint, each other one only the 3 its mesh weights (93 names). Before, each named all 48
 * (768); Assimp's writer looks every node up in every mesh's bones, so 1,000 such meshes on 400 joints took 134 s.
 * Read back: every joint, every vertex skinned at rest where the source's is, with its influences (joint names and
 * weights). */
START_TEST(each_controller_names_the_joints_its_mesh_weights) {
  make_tmp();
  skio_scene* s = load(skt_data("modular_rig.glb"));
  save(s, tmp_path("modular.dae"));
  size_t n = 0;
  char* text = read_all(tmp_path("modular.dae"), &n);
  size_t names = 0;
  for (const char* p = strstr(text, "<Name_array"); p; p = strstr(p + 1, "<Name_array")) {
    const char* c = strstr(p, "count=\"");
    ck_assert_ptr_nonnull(c);
    names += strtoul(c + 7, NULL, 10);
  }
  ck_assert_uint_eq(count_of(text, "<controller "), 16);
  ck_assert_uint_eq(names, 48 + 15 * 3);
  skio_scene* rt = load(tmp_path("modular.dae"));
  const skc_skeleton *ks = s->skeleton, *kr = rt->skeleton;
  for (uint32_t j = 0; j < ks->joint_count; ++j)
    ck_assert_msg(skc_skeleton_find(kr, ks->names[j]) >= 0, "joint %s lost", ks->names[j]);
  ck_assert_uint_eq(rt->mesh_count, 16);
  for (uint32_t m = 0; m < rt->mesh_count; ++m) {
    const skio_mesh *a = &s->meshes[m], *b = &rt->meshes[m];
    ck_assert_str_eq(a->name, b->name);
    const skc_skin_view va = skc_skin_as_view(a->skin), vb = skc_skin_as_view(b->skin);
    for (size_t v = 0; v < b->vertex_count; ++v) {
      float pa[3], pb[3];
      skinned_at_rest(rt, b, v, pb);
      size_t u = 0; /* the source vertex at its place */
      for (; u < a->vertex_count; ++u) {
        skinned_at_rest(s, a, u, pa);
        if (fabsf(pa[0] - pb[0]) < 1e-5f && fabsf(pa[1] - pb[1]) < 1e-5f && fabsf(pa[2] - pb[2]) < 1e-5f) break;
      }
      ck_assert_msg(u < a->vertex_count, "%s: vertex %zu is at no source vertex", b->name, v);
      ck_assert_uint_eq(va.offsets[u + 1] - va.offsets[u], vb.offsets[v + 1] - vb.offsets[v]);
      for (uint32_t e = va.offsets[u]; e < va.offsets[u + 1]; ++e) {
        uint32_t f = vb.offsets[v];
        while (f < vb.offsets[v + 1] && strcmp(ks->names[va.joints[e]], kr->names[vb.joints[f]]) != 0) ++f;
        ck_assert_msg(f < vb.offsets[v + 1] && fabsf(va.weights[e] - vb.weights[f]) < 1e-5f, "%s: vertex %zu lost %s",
                      b->name, v, ks->names[va.joints[e]]);
      }
    }
  }
  free(text);
  skio_scene_destroy(rt);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

static Suite* clips_suite(void) {
  Suite* s = suite_create("collada_clips");
  TCase* t = tcase_create("clips");
  tcase_add_test(t, rig_clips_come_back_with_names_keys_and_poses);
  tcase_add_test(t, dotted_joint_names_keep_names_and_animation);
  tcase_add_test(t, names_xml_cannot_hold_are_written_as_characters);
  tcase_add_test(t, damaged_clip_libraries_are_ignored_and_defaults_read);
  tcase_add_test(t, clip_ranges_between_keys_take_the_values_there);
  tcase_add_test(t, add_clips_refuses_documents_without_animations);
  tcase_add_test(t, clip_ids_are_the_clip_names);
  tcase_add_test(t, many_clips_of_one_name_get_ids_in_linear_time);
  tcase_add_test(t, collada_key_times_are_the_sources_seconds);
  tcase_add_test(t, each_controller_names_the_joints_its_mesh_weights);
  tcase_add_test(t, corpus_clips_survive_collada);
  tcase_add_test(t, ortho_cameras_found_by_node);
  tcase_add_test(t, blender_tips_scanned);
  tcase_set_timeout(t, 300);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(clips_suite()); }
