#define _DEFAULT_SOURCE /* mkdtemp */
/* test_formats.c - skinned formats the corpus does not hold, written here as text files we make ourselves.
 *
 * Valve SMD (Source/GoldSrc studiomdl input): a two-bone chain along +Y (root at the origin, "child" at y = 1),
 * a strip of vertices from y = 0 to y = 2 with known links, and a two-frame skeleton animation that turns the
 * child 90 degrees about Z. Checked through the public API only: every link comes back on the right joint with
 * its weight, the rest pose deforms nothing, the animated frame puts each vertex where the analytic two-bone
 * blend does, links summing below 1 leave the rest to the parent bone (SMD semantics), and damaged files (bone index out of range, truncated)
 * give an error or a consistent scene, never a crash.
 *
 * Half-Life 1 .mdl (Assimp's HL1 reader, which lists the bones flat under one node and links each to its parent
 * bone through mParent only): a three-bone chain whose rest pose must deform the mesh rigidly and whose clip must
 * carry the head with the turning spine. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"

/* Vertex i of the strip sits at (x, y, 0) with weight w_child on "child" and 1 - w_child on "root". */
typedef struct strip_vertex {
  float x, y, w_child;
} strip_vertex;

static const strip_vertex k_strip[] = {
    {0.0f, 0.0f, 0.0f}, {0.2f, 0.0f, 0.0f}, {0.0f, 0.8f, 0.25f}, {0.2f, 0.8f, 0.25f},
    {0.0f, 1.2f, 0.75f}, {0.2f, 1.2f, 0.75f}, {0.0f, 2.0f, 1.0f}, {0.2f, 2.0f, 1.0f},
};
enum { STRIP_N = sizeof k_strip / sizeof k_strip[0] };

static char g_dir[64];

static void make_dir(void) {
  strcpy(g_dir, "/tmp/skinkit_formats.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static void remove_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* One SMD triangle corner: parent bone, position, normal, uv, then the links. */
static void smd_corner(FILE* f, int v, float sum_scale) {
  const strip_vertex* s = &k_strip[v];
  float wc = s->w_child * sum_scale, wr = (1.0f - s->w_child) * sum_scale;
  fprintf(f, "0 %g %g 0 0 0 1 %g %g ", s->x, s->y, s->x, s->y / 2.0f);
  if (s->w_child == 0.0f)
    fprintf(f, "1 0 %g\n", wr);
  else if (s->w_child == 1.0f)
    fprintf(f, "1 1 %g\n", wc);
  else
    fprintf(f, "2 0 %g 1 %g\n", wr, wc);
}

/* Writes the strip as SMD; vertex 2's weights are scaled by `drift` (1 = normalized); bad_bone writes a link to
 * bone 7, which the file does not declare. Returns the path (static buffer). */
static const char* write_smd(const char* name, float drift, int bad_bone, int truncate) {
  static char path[128];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "version 1\nnodes\n0 \"root\" -1\n1 \"child\" 0\nend\n");
  fprintf(f, "skeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 1 0 0 0 0\ntime 1\n0 0 0 0 0 0 0\n1 0 1 0 0 0 %.9f\nend\n",
          M_PI / 2.0);
  fprintf(f, "triangles\n");
  for (int q = 0; q + 3 < STRIP_N; q += 2) { /* quad (q, q+1, q+3, q+2) as two triangles */
    const int tri[2][3] = {{q, q + 1, q + 3}, {q, q + 3, q + 2}};
    for (int t = 0; t < 2; ++t) {
      fprintf(f, "skin.bmp\n");
      for (int c = 0; c < 3; ++c) {
        int v = tri[t][c];
        if (bad_bone && v == 5) {
          fprintf(f, "0 %g %g 0 0 0 1 0 0 1 7 1\n", k_strip[v].x, k_strip[v].y);
          continue;
        }
        smd_corner(f, v, v == 2 ? drift : 1.0f);
      }
      if (truncate && q == 2) { /* cut the file in the middle of the triangle list */
        fprintf(f, "0 0.0 1");
        fclose(f);
        return path;
      }
    }
  }
  fprintf(f, "end\n");
  fclose(f);
  return path;
}

static int strip_index(const float* p) {
  for (int i = 0; i < STRIP_N; ++i)
    if (fabsf(p[0] - k_strip[i].x) < 1e-5f && fabsf(p[1] - k_strip[i].y) < 1e-5f && fabsf(p[2]) < 1e-5f) return i;
  return -1;
}

/* Where the analytic blend puts strip vertex i with the child turned by angle about Z at (0, 1, 0). */
static void expected_position(int i, double angle, double out[3]) {
  const strip_vertex* s = &k_strip[i];
  double lx = s->x, ly = s->y - 1.0; /* relative to the child's head */
  double cx = cos(angle) * lx - sin(angle) * ly, cy = sin(angle) * lx + cos(angle) * ly + 1.0;
  out[0] = (1.0 - s->w_child) * s->x + s->w_child * cx;
  out[1] = (1.0 - s->w_child) * s->y + s->w_child * cy;
  out[2] = 0.0;
}

typedef struct loaded {
  sk_scene* scene;
  size_t n;
  float* pos;
  uint32_t *off, *joints;
  float* weights;
  uint32_t root, child, jc;
} loaded;

/* The one skinned mesh of path: positions and CSR weights (root and child left 0). */
static void load_skinned(const char* path, loaded* L) {
  sk_error err;
  memset(L, 0, sizeof *L);
  ck_assert_msg(sk_scene_load(path, NULL, &L->scene, &err) == SK_OK, "%s", err.message);
  ck_assert_int_eq(sk_scene_require_skin(L->scene, &err), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_count(L->scene), 1);
  L->jc = sk_skeleton_joint_count(sk_scene_skeleton(L->scene));
  L->n = sk_scene_mesh_vertex_count(L->scene, 0);
  L->pos = malloc(L->n * 3 * sizeof(float));
  ck_assert_uint_eq(sk_scene_mesh_positions(L->scene, 0, L->pos, L->n * 3), L->n * 3);
  sk_skin* skin = sk_scene_mesh_skin(L->scene, 0);
  ck_assert_ptr_nonnull(skin);
  size_t ni = sk_skin_influence_count(skin);
  L->off = malloc((L->n + 1) * sizeof(uint32_t));
  L->joints = malloc((ni + 1) * sizeof(uint32_t));
  L->weights = malloc((ni + 1) * sizeof(float));
  ck_assert_int_eq(sk_skin_get_csr(skin, L->off, L->joints, L->weights, &err), SK_OK);
}

static void load_strip(const char* path, loaded* L) {
  load_skinned(path, L);
  const sk_skeleton* sk = sk_scene_skeleton(L->scene);
  ck_assert_int_eq(sk_skeleton_find_joint(sk, "root", &L->root), SK_OK);
  ck_assert_int_eq(sk_skeleton_find_joint(sk, "child", &L->child), SK_OK);
  ck_assert_int_eq(sk_skeleton_joint_parent(sk, L->child), (int32_t)L->root);
  ck_assert_uint_ge(L->n, STRIP_N);
}

static void free_loaded(loaded* L) {
  sk_scene_destroy(L->scene);
  free(L->pos);
  free(L->off);
  free(L->joints);
  free(L->weights);
}

/* LBS positions of the loaded strip in the given TRS pose (NULL = rest). */
static float* deform(const loaded* L, const float* trs) {
  sk_error err;
  float* ib = malloc(L->jc * 16 * sizeof(float));
  float* pal = malloc(L->jc * 16 * sizeof(float));
  float* out = malloc(L->n * 3 * sizeof(float));
  ck_assert_int_eq(sk_scene_mesh_inverse_binds(L->scene, 0, ib, NULL, &err), SK_OK);
  ck_assert_msg(sk_skeleton_palette_from_trs(sk_scene_skeleton(L->scene), trs, ib, pal, &err) == SK_OK, "%s",
                err.message);
  sk_deform_job job;
  memset(&job, 0, sizeof job);
  job.size = sizeof job;
  job.method = SK_DEFORM_LBS;
  job.threads = 1;
  job.vertex_count = L->n;
  job.palette = pal;
  job.joint_count = L->jc;
  job.csr_offsets = L->off;
  job.csr_joints = L->joints;
  job.csr_weights = L->weights;
  job.in_positions = L->pos;
  job.out_positions = out;
  ck_assert_msg(sk_deform_run(&job, &err) == SK_OK, "%s", err.message);
  free(ib);
  free(pal);
  return out;
}

START_TEST(smd_links_come_back_on_their_joints) {
  make_dir();
  loaded L;
  load_strip(write_smd("strip.smd", 1.0f, 0, 0), &L);
  int seen[STRIP_N] = {0};
  for (size_t v = 0; v < L.n; ++v) {
    int i = strip_index(L.pos + 3 * v);
    ck_assert_msg(i >= 0, "vertex %zu at (%g %g %g) is not one we wrote", v, L.pos[3 * v], L.pos[3 * v + 1],
                  L.pos[3 * v + 2]);
    seen[i] = 1;
    float wr = 0.0f, wc = 0.0f;
    for (uint32_t e = L.off[v]; e < L.off[v + 1]; ++e) {
      if (L.joints[e] == L.root) wr += L.weights[e];
      else if (L.joints[e] == L.child) wc += L.weights[e];
      else ck_abort_msg("vertex %d has a link to joint %u", i, L.joints[e]);
    }
    ck_assert_msg(fabsf(wc - k_strip[i].w_child) < 1e-6f && fabsf(wr - (1.0f - k_strip[i].w_child)) < 1e-6f,
                  "vertex %d: root %g child %g, wrote %g / %g", i, wr, wc, 1.0f - k_strip[i].w_child,
                  k_strip[i].w_child);
  }
  for (int i = 0; i < STRIP_N; ++i) ck_assert_msg(seen[i], "strip vertex %d missing", i);
  free_loaded(&L);
  remove_dir();
}
END_TEST

START_TEST(smd_rest_is_identity_and_frame_bends_the_child) {
  make_dir();
  loaded L;
  load_strip(write_smd("strip.smd", 1.0f, 0, 0), &L);
  sk_error err;
  float* rest = deform(&L, NULL);
  for (size_t k = 0; k < L.n * 3; ++k) ck_assert_msg(fabsf(rest[k] - L.pos[k]) < 1e-5f, "rest moved %zu", k);
  free(rest);

  ck_assert_uint_ge(sk_scene_animation_count(L.scene), 1);
  double dur = sk_scene_animation_duration(L.scene, 0);
  ck_assert_msg(dur > 0.0, "animation duration %g", dur);
  float* trs = malloc(L.jc * 10 * sizeof(float));
  /* frame 0 = the rest pose, the last frame = child turned 90 degrees about Z */
  const double times[2] = {0.0, dur};
  const double angles[2] = {0.0, M_PI / 2.0};
  for (int t = 0; t < 2; ++t) {
    ck_assert_int_eq(sk_scene_sample_pose(L.scene, 0, times[t], trs, &err), SK_OK);
    float* out = deform(&L, trs);
    for (size_t v = 0; v < L.n; ++v) {
      int i = strip_index(L.pos + 3 * v);
      double want[3];
      expected_position(i, angles[t], want);
      for (int c = 0; c < 3; ++c)
        ck_assert_msg(fabs(out[3 * v + c] - want[c]) < 1e-4, "t=%g vertex %d axis %d: %g, want %g", times[t], i, c,
                      out[3 * v + c], want[c]);
    }
    free(out);
  }
  free(trs);
  free_loaded(&L);
  remove_dir();
}
END_TEST

/* SMD semantics: links that sum below 1 leave the rest to the corner's parent bone (studiomdl does so, and so
 * does Assimp's reader). Vertex 2's links are written scaled by 0.9, parent bone = root: root must end with
 * 0.9 * 0.75 + 0.1 = 0.775, child with 0.9 * 0.25 = 0.225, and every sum is 1. */
START_TEST(smd_short_links_go_to_the_parent_bone) {
  make_dir();
  loaded L;
  load_strip(write_smd("drift.smd", 0.9f, 0, 0), &L);
  int checked = 0;
  for (size_t v = 0; v < L.n; ++v) {
    if (strip_index(L.pos + 3 * v) != 2) continue;
    float wr = 0.0f, wc = 0.0f;
    for (uint32_t e = L.off[v]; e < L.off[v + 1]; ++e) *(L.joints[e] == L.root ? &wr : &wc) += L.weights[e];
    ck_assert_msg(fabsf(wr - 0.775f) < 1e-6f && fabsf(wc - 0.225f) < 1e-6f, "root %g child %g", wr, wc);
    ++checked;
  }
  ck_assert_int_eq(checked, 3); /* vertex 2 is a corner of three triangles; no joining: three vertices */
  sk_error err;
  sk_skin_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  ck_assert_int_eq(sk_skin_validate(sk_scene_mesh_skin(L.scene, 0), NULL, &rep, NULL, &err), SK_OK);
  ck_assert_uint_eq(rep.off_tolerance, 0);
  ck_assert_float_eq_tol(rep.weight_sum_min, 1.0f, 1e-5f);
  free_loaded(&L);
  remove_dir();
}
END_TEST

START_TEST(smd_damaged_files_fail_cleanly) {
  make_dir();
  sk_error err;
  /* a link to an undeclared bone: an error, or a scene whose every joint index is in range */
  sk_scene* s = NULL;
  sk_result r = sk_scene_load(write_smd("badbone.smd", 1.0f, 1, 0), NULL, &s, &err);
  if (r == SK_OK) {
    for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
      sk_skin* skin = sk_scene_mesh_skin(s, m);
      if (!skin) continue;
      sk_skin_report rep;
      memset(&rep, 0, sizeof rep);
      rep.size = sizeof rep;
      ck_assert_int_eq(sk_skin_validate(skin, NULL, &rep, NULL, &err), SK_OK);
      ck_assert_uint_eq(rep.bad_joint, 0);
    }
    sk_scene_destroy(s);
  } else {
    ck_assert_ptr_null(s);
    ck_assert_msg(err.message[0] != '\0', "error without a message");
  }
  /* truncated in the triangle list */
  s = NULL;
  r = sk_scene_load(write_smd("cut.smd", 1.0f, 0, 1), NULL, &s, &err);
  if (r == SK_OK) {
    ck_assert_ptr_nonnull(s);
    sk_scene_destroy(s);
  } else {
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err.message, "cut.smd") != NULL || err.message[0] != '\0', "no message");
  }
  remove_dir();
}
END_TEST

/* ---- Half-Life 1 .mdl ---------------------------------------------------------------------------------------
 * A minimal GoldSrc studio model (version 10) as Assimp 5.2's HL1 reader reads it: three bones pelvis - spine -
 * head, each turned about another axis so that no bone's world is its own local transform; a quad of vertices in
 * each bone's frame, bound to it alone; one texture (Assimp refuses a model without one); one sequence of two frames
 * that turns the spine. Little-endian, packed, laid out in one buffer section after section. */
enum { HL1_BONES = 3, HL1_QUAD = 4, HL1_VERTS = HL1_BONES * HL1_QUAD, HL1_HEADER = 244, HL1_TEX = 4 };

typedef struct hl1_buf {
  unsigned char b[4096];
  size_t n;
} hl1_buf;

static size_t hl1_put(hl1_buf* h, const void* p, size_t n) {
  ck_assert_uint_le(h->n + n, sizeof h->b);
  size_t at = h->n;
  if (p) memcpy(h->b + at, p, n);
  else memset(h->b + at, 0, n);
  h->n += n;
  return at;
}
static size_t hl1_i32(hl1_buf* h, int32_t v) { return hl1_put(h, &v, 4); }
static size_t hl1_f32(hl1_buf* h, float v) { return hl1_put(h, &v, 4); }
static size_t hl1_i16(hl1_buf* h, int16_t v) { return hl1_put(h, &v, 2); }
static size_t hl1_name(hl1_buf* h, const char* s, size_t field) {
  char z[64] = {0};
  snprintf(z, sizeof z, "%s", s);
  return hl1_put(h, z, field);
}
/* Sets the header's int32 at byte `at` (header fields whose sections come later). */
static void hl1_set(hl1_buf* h, size_t at, int32_t v) { memcpy(h->b + at, &v, 4); }

/* Header field offsets (studiohdr_t): after ident, version, name[64], length, 5 vec3 and flags. */
enum {
  HL1_LENGTH = 72, HL1_NUMBONES = 140, HL1_BONEINDEX = 144, HL1_NUMSEQ = 164, HL1_SEQINDEX = 168,
  HL1_NUMSEQGROUPS = 172, HL1_SEQGROUPINDEX = 176, HL1_NUMTEXTURES = 180, HL1_TEXTUREINDEX = 184,
  HL1_TEXTUREDATAINDEX = 188, HL1_NUMSKINREF = 192, HL1_NUMSKINFAMILIES = 196, HL1_SKININDEX = 200,
  HL1_NUMBODYPARTS = 204, HL1_BODYPARTINDEX = 208
};

/* Bone value: position then Euler angles (radians) relative to the parent bone. */
static const float k_hl1_bone[HL1_BONES][6] = {
    {0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 1.5707964f}, /* pelvis: a quarter turn */
    {1.0f, 0.0f, 0.0f, 0.3f, 0.0f, 0.0f},       /* spine */
    {1.0f, 0.0f, 0.0f, 0.0f, 0.4f, 0.0f},       /* head */
};
static const char* const k_hl1_names[HL1_BONES] = {"pelvis", "spine", "head"};
static const float k_hl1_spine_turn = 0.8f; /* frame 1 adds this to the spine's third angle */

static void hl1_bones(hl1_buf* h) {
  hl1_set(h, HL1_BONEINDEX, (int32_t)h->n);
  for (int b = 0; b < HL1_BONES; ++b) {
    hl1_name(h, k_hl1_names[b], 32);
    hl1_i32(h, b - 1); /* parent: the previous bone, none for the pelvis */
    hl1_i32(h, 0);
    for (int k = 0; k < 6; ++k) hl1_i32(h, -1); /* no bone controllers */
    for (int k = 0; k < 6; ++k) hl1_f32(h, k_hl1_bone[b][k]);
    for (int k = 0; k < 6; ++k) hl1_f32(h, b == 1 && k == 5 ? k_hl1_spine_turn / 1000.0f : 1.0f); /* scales */
  }
}

/* One sequence group (the file itself) and one sequence of two frames: every channel at the bone's value but the
 * spine's third angle, which reads 0 then 1000 x its scale. */
static void hl1_sequence(hl1_buf* h) {
  hl1_set(h, HL1_SEQGROUPINDEX, (int32_t)h->n);
  hl1_name(h, "default", 32);
  hl1_put(h, NULL, 64 + 4 + 4); /* name, unused, data offset 0: the animation offsets are from the file's start */
  hl1_set(h, HL1_SEQINDEX, (int32_t)h->n);
  hl1_name(h, "turn", 32);
  hl1_f32(h, 10.0f);                          /* fps */
  hl1_put(h, NULL, 5 * 4);                    /* flags, activity, actweight, numevents, eventindex */
  hl1_i32(h, 2);                              /* numframes */
  hl1_put(h, NULL, 4 * 4 + 12 + 8 + 24);      /* unused x2, motiontype, motionbone, linearmovement, unused, bbox */
  hl1_i32(h, 1);                              /* numblends */
  const size_t animindex = hl1_i32(h, 0);     /* set below */
  hl1_put(h, NULL, 8 + 8 + 8 + 4 + 4 + 4 * 4); /* blend types, starts, ends, unused, seqgroup 0, nodes */
  hl1_set(h, animindex, (int32_t)h->n);
  const size_t offsets = h->n;
  for (int b = 0; b < HL1_BONES * 6; ++b) hl1_i16(h, 0);
  const size_t values = hl1_i16(h, 0x0202); /* valid 2, total 2 */
  hl1_i16(h, 0);
  hl1_i16(h, 1000);
  const size_t spine = offsets + 12; /* bone 1's offsets; its entry 5 is relative to them */
  const int16_t rel = (int16_t)(values - spine);
  memcpy(h->b + spine + 10, &rel, 2);
}

/* One 4 x 4 texture of palette index 0, its palette, and the skin table. */
static void hl1_texture(hl1_buf* h) {
  hl1_set(h, HL1_TEXTUREINDEX, (int32_t)h->n);
  hl1_name(h, "skin.bmp", 64);
  hl1_i32(h, 0);
  hl1_i32(h, HL1_TEX);
  hl1_i32(h, HL1_TEX);
  const size_t index = hl1_i32(h, 0);
  hl1_set(h, HL1_SKININDEX, (int32_t)hl1_i16(h, 0));
  hl1_i16(h, 0);
  hl1_set(h, index, (int32_t)h->n);
  hl1_set(h, HL1_TEXTUREDATAINDEX, (int32_t)h->n);
  hl1_put(h, NULL, HL1_TEX * HL1_TEX + 768);
}

/* Vertex v of the model in its bone's frame: a 0.5 x 0.2 quad in the bone's XY plane. */
static void hl1_local(int v, float out[3]) {
  const int q = v % HL1_QUAD;
  out[0] = (q & 1) ? 0.5f : 0.0f;
  out[1] = (q & 2) ? 0.2f : 0.0f;
  out[2] = 0.05f * (float)(v / HL1_QUAD);
}

/* Body part "body", model "body", one mesh of a triangle strip per bone's quad. */
static void hl1_model(hl1_buf* h) {
  hl1_set(h, HL1_BODYPARTINDEX, (int32_t)h->n);
  hl1_name(h, "body", 64);
  hl1_i32(h, 1);
  hl1_i32(h, 1);
  const size_t modelindex = hl1_i32(h, 0);
  hl1_set(h, modelindex, (int32_t)h->n);
  hl1_name(h, "body", 64);
  hl1_put(h, NULL, 8);
  hl1_i32(h, 1);
  size_t f[8]; /* meshindex, numverts, vertinfoindex, vertindex, numnorms, norminfoindex, normindex, unused */
  for (int k = 0; k < 8; ++k) f[k] = hl1_i32(h, 0);
  hl1_i32(h, 0);
  hl1_set(h, f[1], HL1_VERTS);
  hl1_set(h, f[4], HL1_VERTS);
  hl1_set(h, f[0], (int32_t)h->n);
  hl1_i32(h, HL1_BONES * 2); /* numtris */
  const size_t triindex = hl1_i32(h, 0);
  hl1_i32(h, 0); /* skinref */
  hl1_i32(h, HL1_VERTS);
  hl1_i32(h, 0);
  for (int k = 0; k < 2; ++k) { /* vertex and normal bones */
    hl1_set(h, f[k ? 5 : 2], (int32_t)h->n);
    for (int v = 0; v < HL1_VERTS; ++v) hl1_put(h, &(unsigned char){(unsigned char)(v / HL1_QUAD)}, 1);
  }
  hl1_set(h, f[3], (int32_t)h->n);
  for (int v = 0; v < HL1_VERTS; ++v) {
    float p[3];
    hl1_local(v, p);
    hl1_put(h, p, sizeof p);
  }
  hl1_set(h, f[6], (int32_t)h->n);
  for (int v = 0; v < HL1_VERTS; ++v) hl1_put(h, (const float[3]){0.0f, 0.0f, 1.0f}, 12);
  hl1_set(h, triindex, (int32_t)h->n);
  for (int b = 0; b < HL1_BONES; ++b) {
    hl1_i16(h, HL1_QUAD); /* a strip of the quad's four corners */
    for (int q = 0; q < HL1_QUAD; ++q) {
      const int16_t v = (int16_t)(b * HL1_QUAD + q);
      hl1_i16(h, v);
      hl1_i16(h, v);
      hl1_i16(h, (int16_t)(q & 1));
      hl1_i16(h, (int16_t)(q >> 1));
    }
  }
  hl1_i16(h, 0);
}

static const char* write_hl1(const char* name) {
  static char path[128];
  static hl1_buf h;
  memset(&h, 0, sizeof h);
  hl1_put(&h, "IDST", 4);
  hl1_i32(&h, 10);
  hl1_name(&h, name, 64);
  hl1_put(&h, NULL, HL1_HEADER - h.n);
  hl1_set(&h, HL1_NUMBONES, HL1_BONES);
  hl1_set(&h, HL1_NUMSEQ, 1);
  hl1_set(&h, HL1_NUMSEQGROUPS, 1);
  hl1_set(&h, HL1_NUMTEXTURES, 1);
  hl1_set(&h, HL1_NUMSKINREF, 1);
  hl1_set(&h, HL1_NUMSKINFAMILIES, 1);
  hl1_set(&h, HL1_NUMBODYPARTS, 1);
  hl1_bones(&h);
  hl1_sequence(&h);
  hl1_texture(&h);
  hl1_model(&h);
  hl1_set(&h, HL1_LENGTH, (int32_t)h.n);
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(h.b, 1, h.n, f), h.n);
  fclose(f);
  return path;
}

/* The bone (0 pelvis, 1 spine, 2 head) each vertex of L is bound to, with a weight of 1. */
static void hl1_vertex_bones(const loaded* L, const uint32_t joint[HL1_BONES], int* bone) {
  for (size_t v = 0; v < L->n; ++v) {
    ck_assert_uint_eq(L->off[v + 1] - L->off[v], 1);
    ck_assert_float_eq_tol(L->weights[L->off[v]], 1.0f, 1e-6f);
    bone[v] = -1;
    for (int b = 0; b < HL1_BONES; ++b)
      if (L->joints[L->off[v]] == joint[b]) bone[v] = b;
    ck_assert_msg(bone[v] >= 0, "vertex %zu bound to joint %u, no bone", v, L->joints[L->off[v]]);
  }
}

static double hl1_dist(const float* a, const float* b) {
  return sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[1] - b[1]) * (a[1] - b[1]) +
              (double)(a[2] - b[2]) * (a[2] - b[2]));
}

/* Whether every pair of vertices of the bones in `mask` is as far apart in `got` as in `want` (one rigid motion). */
static void hl1_rigid(const loaded* L, const int* bone, unsigned mask, const float* got, const float* want,
                      const char* what) {
  for (size_t a = 0; a < L->n; ++a)
    for (size_t c = a + 1; c < L->n; ++c) {
      if (!(mask >> bone[a] & 1) || !(mask >> bone[c] & 1)) continue;
      const double dg = hl1_dist(got + 3 * a, got + 3 * c), dw = hl1_dist(want + 3 * a, want + 3 * c);
      ck_assert_msg(fabs(dg - dw) < 1e-4, "%s: vertices %zu (%s) and %zu (%s) %g apart, want %g", what, a,
                    k_hl1_names[bone[a]], c, k_hl1_names[bone[c]], dg, dw);
    }
}

/* Assimp's HL1 reader lists the bones under one node "<MDL_bones>" and links each to its parent bone through
 * mParent alone; the vertices and offsets are in that hierarchy's bind pose. The skeleton must follow the links:
 * each bone under its parent, the rest pose moving the whole mesh as one rigid body (the reader turns the root node
 * a quarter turn: Z up), and the clip's spine turn carrying the head along while the pelvis stays. */
START_TEST(hl1_mdl_bones_hang_from_their_parent_bones) {
  make_dir();
  loaded L;
  load_skinned(write_hl1("chain.mdl"), &L);
  ck_assert_uint_eq(L.n, HL1_VERTS);
  const sk_skeleton* sk = sk_scene_skeleton(L.scene);
  uint32_t joint[HL1_BONES];
  for (int b = 0; b < HL1_BONES; ++b) ck_assert_int_eq(sk_skeleton_find_joint(sk, k_hl1_names[b], &joint[b]), SK_OK);
  ck_assert_int_eq(sk_skeleton_joint_parent(sk, joint[1]), (int32_t)joint[0]);
  ck_assert_int_eq(sk_skeleton_joint_parent(sk, joint[2]), (int32_t)joint[1]);
  int bone[HL1_VERTS];
  hl1_vertex_bones(&L, joint, bone);

  float* rest = deform(&L, NULL);
  hl1_rigid(&L, bone, 7u, rest, L.pos, "rest");

  ck_assert_uint_eq(sk_scene_animation_count(L.scene), 1);
  sk_error err;
  float* trs = malloc(L.jc * 10 * sizeof(float));
  ck_assert_int_eq(sk_scene_sample_pose(L.scene, 0, sk_scene_animation_duration(L.scene, 0), trs, &err), SK_OK);
  float* posed = deform(&L, trs);
  hl1_rigid(&L, bone, 6u, posed, L.pos, "frame 1, spine and head");
  double moved = 0.0;
  for (size_t v = 0; v < L.n; ++v) {
    const double d = hl1_dist(posed + 3 * v, rest + 3 * v);
    if (bone[v] == 0) ck_assert_msg(d < 1e-5, "frame 1 moved pelvis vertex %zu by %g", v, d);
    if (bone[v] == 2 && d > moved) moved = d;
  }
  ck_assert_msg(moved > 0.1, "the spine's turn moved the head by %g only", moved);
  free(trs);
  free(posed);
  free(rest);
  free_loaded(&L);
  remove_dir();
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("formats");
  TCase* tc = tcase_create("smd");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, smd_links_come_back_on_their_joints);
  tcase_add_test(tc, smd_rest_is_identity_and_frame_bends_the_child);
  tcase_add_test(tc, smd_short_links_go_to_the_parent_bone);
  tcase_add_test(tc, smd_damaged_files_fail_cleanly);
  suite_add_tcase(s, tc);
  tc = tcase_create("hl1");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, hl1_mdl_bones_hang_from_their_parent_bones);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
