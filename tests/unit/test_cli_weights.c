/* test_cli_weights.c - `skinkit weights IN OUT [ops]` end to end: the drift sample's sums are fixed, OUT is readable
 * and holds the weights as edited, IN is never changed or overwritten, existing OUT needs --force, JSON report,
 * locked joints, bad arguments (exit 2 with a message), glTF primitives that share their vertices edited as one
 * surface. Runs the real build/skinkit on tests/data/. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"
#include "skio_gltf_doc.h"

#ifndef SK_CLI_PATH
#error "SK_CLI_PATH must name the built skinkit executable"
#endif

#define DRIFT "tests/data/cylinder_rig_drift.glb"

static char g_tmp[256];
static char g_out[1 << 16];

/* Runs `skinkit ARGS` from the source tree; stdout goes to g_out; returns the exit status (or -1). */
static int run(const char* args) {
  char err[300];
  snprintf(err, sizeof err, "%s/stderr.txt", g_tmp);
  return skt_run_cli(SK_SOURCE_DIR, SK_CLI_PATH, args, err, g_out, sizeof g_out);
}

static const char* err_text(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/stderr.txt", g_tmp);
  return skt_read_text(path);
}

/* Whole file into a malloc'd buffer (size in *n); NULL if unreadable. */
static unsigned char* slurp(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* b = malloc(sz > 0 ? (size_t)sz : 1);
  *n = b ? fread(b, 1, (size_t)sz, f) : 0;
  fclose(f);
  return b;
}

static unsigned char* g_in_bytes;
static size_t g_in_size;

static void setup(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/skinkit-cliw-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(g_tmp));
  g_in_bytes = slurp(SK_SOURCE_DIR "/" DRIFT, &g_in_size);
  ck_assert_ptr_nonnull(g_in_bytes);
}

static void teardown(void) {
  /* the input file is never modified */
  size_t n = 0;
  unsigned char* now = slurp(SK_SOURCE_DIR "/" DRIFT, &n);
  ck_assert_ptr_nonnull(now);
  ck_assert_msg(n == g_in_size && memcmp(now, g_in_bytes, n) == 0, "%s was modified", DRIFT);
  free(now);
  free(g_in_bytes);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_tmp);
}

START_TEST(weights_normalize_fixes_sums) {
  char args[2048];
  /* the sample is off: validate finds 224 vertices summing to 0.96 */
  ck_assert_int_eq(run("validate " DRIFT), 1);
  snprintf(args, sizeof args, "weights " DRIFT " %s/fixed.glb --normalize", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert_msg(strstr(g_out, "normalize") && strstr(g_out, "224 changed"), "report: %s", g_out);
  ck_assert(strstr(g_out, "wrote ") != NULL);
  snprintf(args, sizeof args, "validate %s/fixed.glb --json -", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "\"off_tolerance_count\":0") != NULL);
  snprintf(args, sizeof args, "info %s/fixed.glb --json", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "\"vertex_count\":1122") != NULL);
}
END_TEST

/* --mirror on gltfpack's quantized output (tests/data/mirror_rig*.glb, make_mirror_rig.py): the plane X = 0 of its
 * integer positions is not the model's, and the mirror skipped the mesh ("no selected vertex lies on the destination
 * side"); it now looks in the rest pose's space when the stored positions find no partner, as on the unquantized file.
 */
START_TEST(weights_mirror_quantized_positions) {
  static const char* const files[2] = {"tests/data/mirror_rig.glb", "tests/data/mirror_rig_gltfpack.glb"};
  for (int i = 0; i < 2; ++i) {
    char args[2048];
    snprintf(args, sizeof args, "weights %s %s/m%d.glb --mirror +x", files[i], g_tmp, i);
    ck_assert_int_eq(run(args), 0);
    ck_assert_msg(strstr(g_out, "mirror        12 changed"), "%s: %s", files[i], g_out);
    snprintf(args, sizeof args, "info %s/m%d.glb --json", g_tmp, i);
    ck_assert_int_eq(run(args), 0);
  }
  /* a vertex whose weights are all 0 (tests/data/unweighted_vertex.glb): the glTF written in place keeps it, which
   * glTF does not allow - said now (convert and weights said nothing) */
  char args[2048];
  snprintf(args, sizeof args, "convert tests/data/unweighted_vertex.glb %s/u.glb", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert_msg(strstr(err_text(), "1 vertices have no weight"), "%s", err_text());
}
END_TEST

START_TEST(weights_written_as_edited) {
  /* an operation that leaves the drifting vertices alone: a glTF OUT gets them renormalized, as glTF requires, and a
   * warning counts them; --as-is keeps their sums (an invalid glTF, as asked) */
  char args[2048];
  snprintf(args, sizeof args, "weights " DRIFT " %s/limited.glb --limit 4", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "0 changed") != NULL);
  ck_assert_msg(strstr(err_text(), "224 vertices have weights that do not sum to 1: written renormalized"),
                "stderr: %s", err_text());
  snprintf(args, sizeof args, "validate %s/limited.glb --json -", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "\"off_tolerance_count\":0") != NULL);
  snprintf(args, sizeof args, "weights " DRIFT " %s/as_is.glb --limit 4 --as-is", g_tmp);
  ck_assert_int_eq(run(args), 0);
  snprintf(args, sizeof args, "validate %s/as_is.glb --json -", g_tmp);
  ck_assert_int_eq(run(args), 1);
  ck_assert(strstr(g_out, "\"off_tolerance_count\":224") != NULL);
  /* the same from another format (an FBX whose vertices sum to 0.97-0.9996, as Blender's FBX writes them) to .glb;
   * a .dae OUT keeps them as edited */
  snprintf(args, sizeof args, "weights tests/data/rigid_parts.fbx %s/fbx.glb --limit 2", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert_msg(strstr(err_text(), "written renormalized, as glTF requires"), "stderr: %s", err_text());
  snprintf(args, sizeof args, "validate %s/fbx.glb --json -", g_tmp);
  ck_assert_int_eq(run(args), 0);
  snprintf(args, sizeof args, "weights tests/data/rigid_parts.fbx %s/fbx.dae --limit 2", g_tmp);
  ck_assert_int_eq(run(args), 0);
  snprintf(args, sizeof args, "validate %s/fbx.dae --json -", g_tmp);
  ck_assert_int_eq(run(args), 1);
  /* limit 1 keeps one influence per vertex, renormalized */
  snprintf(args, sizeof args, "weights " DRIFT " %s/one.glb --limit 1", g_tmp);
  ck_assert_int_eq(run(args), 0);
  snprintf(args, sizeof args, "validate %s/one.glb --max-influences 1", g_tmp);
  ck_assert_int_eq(run(args), 0);
}
END_TEST

START_TEST(weights_json_report_and_chain) {
  char args[2048];
  snprintf(args, sizeof args, "weights " DRIFT " %s/q.glb --quantize 8 --prune 0.02 --normalize --smooth 2:0.5 --json",
           g_tmp);
  ck_assert_int_eq(run(args), 0);
  /* the fixed order: smooth, normalize, prune, quantize */
  const char* sm = strstr(g_out, "\"op\":\"smooth\"");
  const char* no = strstr(g_out, "\"op\":\"normalize\"");
  const char* pr = strstr(g_out, "\"op\":\"prune\"");
  const char* qu = strstr(g_out, "\"op\":\"quantize-8\"");
  ck_assert_msg(sm && no && pr && qu && sm < no && no < pr && pr < qu, "report: %s", g_out);
  ck_assert(strstr(g_out, "\"written\":true") != NULL);
  ck_assert(strstr(g_out, "\"path\":\"" DRIFT "\"") != NULL);
  snprintf(args, sizeof args, "validate %s/q.glb --json -", g_tmp);
  ck_assert_int_eq(run(args), 0);
  /* rogue removal on the rig (one connected piece per joint region): nothing is rogue */
  snprintf(args, sizeof args, "weights " DRIFT " %s/r.glb --remove-rogue --per-component --json", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert_msg(strstr(g_out, "\"op\":\"remove-rogue\",\"visited_count\":1122,\"changed_count\":0") != NULL, "report: %s", g_out);
  /* mirroring a mesh that lies on one side of the plane is reported as skipped, not an error */
  snprintf(args, sizeof args, "weights " DRIFT " %s/m.glb --mirror +x", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "skipped") != NULL);
}
END_TEST

START_TEST(weights_lock_and_joints) {
  char args[2048];
  /* bone1 locked: bone0 takes the remainder, sums are fixed all the same */
  snprintf(args, sizeof args, "weights " DRIFT " %s/locked.glb --normalize --lock bone1 --json", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "\"changed_count\":224") != NULL);
  snprintf(args, sizeof args, "validate %s/locked.glb", g_tmp);
  ck_assert_int_eq(run(args), 0);
  /* both locked: nothing can move, the drifting vertices are flagged and the file keeps them */
  snprintf(args, sizeof args, "weights " DRIFT " %s/both.glb --normalize --lock bone0,bone1 --json", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "\"changed_count\":0") != NULL);
  ck_assert(strstr(g_out, "\"flagged_count\":224") != NULL);
  /* only vertices influenced by bone1 (the x >= 0.75 half) are visited */
  snprintf(args, sizeof args, "weights " DRIFT " %s/half.glb --normalize --joints bone1 --json", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert(strstr(g_out, "\"visited_count\":1122") == NULL);
  ck_assert(strstr(g_out, "\"changed_count\":224") != NULL);
}
END_TEST

/* The weight of joint `name` on each vertex of mesh 0 of the file at path (0 where it has none), malloc'd (*n). */
static float* joint_weights(const char* path, const char* name, size_t* n) {
  sk_scene* sc = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &sc, NULL), SK_OK);
  uint32_t j = 0;
  ck_assert_int_eq(sk_skeleton_find_joint(sk_scene_skeleton(sc), name, &j), SK_OK);
  const sk_skin* skin = sk_scene_mesh_skin(sc, 0);
  *n = sk_skin_vertex_count(skin);
  float* w = calloc(*n, sizeof *w);
  for (size_t v = 0; v < *n; ++v) {
    uint32_t js[64];
    float ws[64];
    const size_t k = sk_skin_get_vertex(skin, v, js, ws, 64);
    for (size_t i = 0; i < k && i < 64; ++i)
      if (js[i] == j) w[v] += ws[i];
  }
  sk_scene_destroy(sc);
  return w;
}

/* Smoothing spreads a vertex over more joints than the glTF primitive holds (4): the writer's own cut (largest kept,
 * renormalized) moved locked weights (the audit of session 66: Fox.glb --smooth 3 --lock b_Head_05,b_Neck_04, 44
 * vertices). With --lock the edit cuts first, around the locked joints, and their weights do not move. */
START_TEST(weights_lock_survives_the_writers_cut) {
  char args[2048], in[300], out[300];
  snprintf(in, sizeof in, "%s/eight.glb", g_tmp);
  snprintf(out, sizeof out, "%s/eight_locked.glb", g_tmp);
  snprintf(args, sizeof args, "sample %s --bones 8 --rings 32 --segments 8", in);
  ck_assert_int_eq(run(args), 0);
  snprintf(args, sizeof args, "weights %s %s --smooth 12 --lock bone3", in, out);
  ck_assert_int_eq(run(args), 0);
  const int cut = strstr(g_out, "limit") != NULL;
  size_t n0 = 0, n1 = 0;
  float* before = joint_weights(in, "bone3", &n0);
  float* after = joint_weights(out, "bone3", &n1);
  ck_assert_uint_eq(n0, n1);
  size_t moved = 0;
  for (size_t v = 0; v < n0; ++v) moved += fabsf(before[v] - after[v]) > 1e-6f;
  ck_assert_msg(moved == 0, "%zu vertices moved a locked weight", moved);
  ck_assert_msg(cut, "no cut before the writer's");
  free(after);
  /* with --links the skin written is the linked one (link joints after the skeleton's): cut that one */
  snprintf(args, sizeof args, "weights %s %s --smooth 12 --lock bone3 --links bone5:150 --force", in, out);
  ck_assert_int_eq(run(args), 0);
  after = joint_weights(out, "bone3", &n1);
  moved = 0;
  for (size_t v = 0; v < n0; ++v) moved += fabsf(before[v] - after[v]) > 1e-6f;
  ck_assert_msg(moved == 0, "with links: %zu vertices moved a locked weight", moved);
  free(before);
  free(after);
}
END_TEST

/* --smooth with --joints softens the listed joint's region outward too: the vertices the smoothing reaches are
 * edited, not only those the joint had (an auditor's hard-edged region: "0 changed of 126 visited"). */
START_TEST(weights_smooth_of_listed_joints_spreads_outward) {
  char args[2048], in[300], out[300];
  snprintf(in, sizeof in, "%s/ramp.glb", g_tmp);
  snprintf(out, sizeof out, "%s/ramp_smooth.glb", g_tmp);
  snprintf(args, sizeof args, "sample %s --bones 2 --rings 32 --segments 8", in);
  ck_assert_int_eq(run(args), 0);
  snprintf(args, sizeof args, "weights %s %s --smooth 3 --joints bone1", in, out);
  ck_assert_int_eq(run(args), 0);
  size_t n0 = 0, n1 = 0, had = 0, has = 0;
  float* before = joint_weights(in, "bone1", &n0);
  float* after = joint_weights(out, "bone1", &n1);
  ck_assert_uint_eq(n0, n1);
  for (size_t v = 0; v < n0; ++v) had += before[v] > 0.0f, has += after[v] > 0.0f;
  ck_assert_msg(has > had, "bone1 on %zu vertices before, %zu after", had, has);
  free(before);
  free(after);
}
END_TEST

/* --mirror across another plane of the mesh's coordinates (+y / --mirror-axis) and with a looser match
 * (--mirror-tolerance); a mirror that finds no partner for most vertices says which options change the plane (an
 * auditor's CesiumMan, symmetric about its Y = 0 plane: "1489 flagged ... without a mirror partner", no hint). */
START_TEST(weights_mirror_axis_and_tolerance) {
  char args[2048], in[300], out[300];
  snprintf(in, sizeof in, "%s/axis.glb", g_tmp);
  snprintf(out, sizeof out, "%s/axis_m.glb", g_tmp);
  snprintf(args, sizeof args, "sample %s --bones 2 --rings 16 --segments 12", in); /* along +x: symmetric in y, z */
  ck_assert_int_eq(run(args), 0);
  snprintf(args, sizeof args, "weights %s %s --mirror flip", in, out);
  ck_assert_int_eq(run(args), 0);
  ck_assert_msg(strstr(err_text(), "no mirror partner across the X = 0 plane") != NULL, "%s", err_text());
  const char* ok[3] = {"--mirror +y", "--mirror flip --mirror-axis z", "--mirror -y --mirror-tolerance 0.001"};
  for (int k = 0; k < 3; ++k) {
    snprintf(args, sizeof args, "weights %s %s %s --force", in, out, ok[k]);
    ck_assert_msg(run(args) == 0, "%s: %s", ok[k], err_text());
    ck_assert_msg(strstr(g_out, "without a mirror partner") == NULL && strstr(err_text(), "no mirror partner") == NULL,
                  "%s: %s %s", ok[k], g_out, err_text());
  }
  const char* bad_args[4] = {"--mirror +w", "--mirror-axis y --normalize", "--mirror +x --mirror-axis y",
                             "--mirror flip --mirror-tolerance 2"};
  for (int k = 0; k < 4; ++k) {
    snprintf(args, sizeof args, "weights %s %s %s --force", in, out, bad_args[k]);
    ck_assert_msg(run(args) == 2, "%s accepted", bad_args[k]);
  }
}
END_TEST

/* A mesh with an infinite position: --mirror names the vertex. Its matching distance (a share of the bounding box's
 * diagonal, 0 x inf by default) came out NaN, and the error blamed "mirror tolerance -nan", an option never given.
 * Session 73. */
START_TEST(weights_mirror_of_infinite_positions_names_the_vertex) {
  char args[2048], in[300], out[300];
  snprintf(in, sizeof in, "%s/infpos.glb", g_tmp);
  snprintf(out, sizeof out, "%s/infpos_m.glb", g_tmp);
  snprintf(args, sizeof args, "sample %s --bones 2 --rings 4 --segments 4", in);
  ck_assert_int_eq(run(args), 0);
  size_t n = 0;
  unsigned char* glb = slurp(in, &n);
  ck_assert(glb && n > 28);
  uint32_t json_len = 0;
  memcpy(&json_len, glb + 12, 4);
  const size_t pos0 = 20 + (size_t)json_len + 8; /* the BIN chunk's data: the sample writes POSITION first */
  ck_assert_uint_lt(pos0 + 4, n);
  const float inf_value = INFINITY;
  memcpy(glb + pos0, &inf_value, 4);
  FILE* f = fopen(in, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(glb, 1, n, f), n);
  fclose(f);
  free(glb);
  snprintf(args, sizeof args, "weights %s %s --mirror +x", in, out);
  ck_assert_int_eq(run(args), 2);
  ck_assert_msg(strstr(err_text(), "position of vertex 0 is not finite") && !strstr(err_text(), "tolerance"), "%.400s",
                err_text());
  /* the operation's error names IN, as a read error does (session 74: a batch log tells the files apart) */
  snprintf(args, sizeof args, "skinkit weights: %s: mesh \"", in);
  ck_assert_msg(!strncmp(err_text(), args, strlen(args)), "%.400s", err_text());
  ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

/* Errors and warnings after the read name their file in the read's form (session 74): "skinkit weights: IN: ..." for
 * IN's skeleton and meshes, "skinkit weights: warning: OUT: ..." for what the write of OUT could not keep. */
START_TEST(weights_messages_name_their_file) {
  char args[2048], line[600];
  snprintf(args, sizeof args, "weights " DRIFT " %s/a.glb --smooth 1 --lock nosuch", g_tmp);
  ck_assert_int_eq(run(args), 2);
  ck_assert_msg(strstr(err_text(), "skinkit weights: " DRIFT ": unknown joint \"nosuch\""), "%.400s", err_text());
  snprintf(args, sizeof args, "weights tests/data/material_factors.glb %s/mf.dae --smooth 1", g_tmp);
  ck_assert_int_eq(run(args), 0);
  snprintf(line, sizeof line, "skinkit weights: warning: %s/mf.dae: Collada has no metallic/roughness factors", g_tmp);
  ck_assert_msg(strstr(err_text(), line), "%.400s", err_text());
  ck_assert_msg(!strstr(err_text(), "skinkit weights: warning: Collada"), "%.400s", err_text());
}
END_TEST

START_TEST(weights_bone_links) {
  char args[2048];
  snprintf(args, sizeof args, "weights " DRIFT " %s/linked.glb --normalize --links bone1:150", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert_msg(strstr(g_out, "links") && strstr(g_out, "2 entries (link joints) added"), "report: %s", g_out);
  /* the scene is kept (session 30: it was rebuilt from the meshes' geometry and weights, with a warning) */
  ck_assert_msg(!strstr(err_text(), "rebuilt scene"), "%s", err_text());
  snprintf(args, sizeof args, "info %s/linked.glb", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert_msg(strstr(g_out, "4 joint(s)") && strstr(g_out, "max 3 influences"), "info: %s", g_out);
  snprintf(args, sizeof args, "validate %s/linked.glb", g_tmp);
  ck_assert_int_eq(run(args), 0);
  if (skt_assets_dir()) { /* a character keeps its clip (and materials: the scene writer's) through the links */
    snprintf(args, sizeof args, "weights '%s' %s/cm.glb --links Skeleton_arm_joint_L__4_:150",
             skt_asset("gltf/CesiumMan.glb"), g_tmp);
    ck_assert_int_eq(run(args), 0);
    snprintf(args, sizeof args, "info %s/cm.glb", g_tmp);
    ck_assert_int_eq(run(args), 0);
    ck_assert_msg(strstr(g_out, "23 joint(s), 1 animation(s)"), "info: %s", g_out);
  }
  /* 60 degrees or less needs no link; names and syntax are checked */
  snprintf(args, sizeof args, "weights " DRIFT " %s/x.glb --links bone1:60", g_tmp);
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "no joint needs links") != NULL);
  snprintf(args, sizeof args, "weights " DRIFT " %s/x.glb --links elbow:90", g_tmp);
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "unknown joint \"elbow\"") != NULL);
  snprintf(args, sizeof args, "weights " DRIFT " %s/x.glb --links bone1", g_tmp);
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "JOINT:DEGREES") != NULL);
  snprintf(args, sizeof args, "weights " DRIFT " %s/x.glb --links bone1:400", g_tmp);
  ck_assert_int_eq(run(args), 2);
  snprintf(args, sizeof args, "%s/x.glb", g_tmp);
  ck_assert(access(args, F_OK) != 0);
}
END_TEST

START_TEST(weights_exists_and_never_in) {
  char args[2048];
  snprintf(args, sizeof args, "weights " DRIFT " %s/o.glb --normalize", g_tmp);
  ck_assert_int_eq(run(args), 0);
  ck_assert_int_eq(run(args), 1);
  ck_assert(strstr(err_text(), "exists") != NULL);
  snprintf(args, sizeof args, "weights " DRIFT " %s/o.glb --normalize --force", g_tmp);
  ck_assert_int_eq(run(args), 0);
  /* never the input, not even with --force */
  ck_assert_int_eq(run("weights " DRIFT " " DRIFT " --normalize --force"), 2);
  ck_assert(strstr(err_text(), "refusing") != NULL);
  ck_assert_int_eq(run("weights " DRIFT " ./tests/../" DRIFT " --normalize --force"), 2);
}
END_TEST

START_TEST(weights_bad_arguments) {
  char args[2048];
  struct {
    const char* opts;
    const char* message;
  } cases[] = {
      {"--limit 0", "--limit"},
      {"--limit x", "--limit"},
      {"--prune 0", "--prune"},
      {"--prune 2", "--prune"},
      {"--quantize 12", "--quantize"},
      {"--smooth x", "--smooth"},
      {"--smooth 2:0", "--smooth"},
      {"--smooth 2:1.5", "--smooth"},
      {"--mirror y", "--mirror"},
      {"--bogus", "unknown option"},
      {"--normalize --joints nope", "unknown joint \"nope\""},
      {"--normalize --lock bone0,,bone1", "joint name"},
      {"--cotangent --normalize", "--cotangent"},
      {"--per-component --normalize", "--per-component"},
      {"", "no operation"},
      {"--limit", "needs a value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    snprintf(args, sizeof args, "weights " DRIFT " %s/bad.glb %s", g_tmp, cases[i].opts);
    ck_assert_msg(run(args) == 2, "%s: exit status", cases[i].opts);
    ck_assert_msg(strstr(err_text(), cases[i].message) != NULL, "%s: message \"%s\"", cases[i].opts, err_text());
    snprintf(args, sizeof args, "%s/bad.glb", g_tmp);
    ck_assert_msg(access(args, F_OK) != 0, "%s: OUT written", cases[i].opts);
  }
  ck_assert_int_eq(run("weights"), 2);
  ck_assert_int_eq(run("weights " DRIFT), 2);
  ck_assert_int_eq(run("weights " DRIFT " a.glb b.glb --normalize"), 2);
  ck_assert(strstr(err_text(), "too many") != NULL);
  /* unreadable and non-model inputs */
  snprintf(args, sizeof args, "weights %s/missing.glb %s/x.glb --normalize", g_tmp, g_tmp);
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "missing.glb") != NULL);
  snprintf(args, sizeof args, "sh -c 'echo not a model > %s/notes.glb'", g_tmp);
  ck_assert_int_eq(system(args), 0);
  snprintf(args, sizeof args, "weights %s/notes.glb %s/x.glb --normalize", g_tmp, g_tmp);
  ck_assert_int_eq(run(args), 2);
  ck_assert_int_eq(run("weights --help"), 0);
  ck_assert(strstr(g_out, "fixed order") != NULL);
  ck_assert_int_eq(run("--help"), 0);
  ck_assert(strstr(g_out, "weights") != NULL);
}
END_TEST

/* Attribute `key` of mesh 0 primitive `prim` of a written glTF: its accessor index and its values as floats
 * (malloc'd, count * 4). */
static float* prim_attribute(const char* path, int prim, const char* key, uint32_t* acc, size_t* count) {
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s", e.message);
  int pt = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", 0), "primitives"), prim);
  ck_assert(skio_json_u32(d, skio_json_get(d, skio_json_get(d, pt, "attributes"), key), acc));
  skio_gltf_accessor a;
  ck_assert_int_eq(skio_gltf_accessor_info(d, *acc, &a, &e), SKC_OK);
  float* v = malloc(a.count * 4 * sizeof *v);
  ck_assert_int_eq(skio_gltf_accessor_floats(d, *acc, v, &e), SKC_OK);
  *count = a.count;
  skio_gltf_doc_destroy(d);
  return v;
}

/* three.js writes a two-material mesh as two primitives naming the same vertex accessors (tests/data/
 * make_three_multimaterial.mjs). Smoothing and binding must see one surface: the result is the one-material file's
 * (same vertices, one primitive with the same index list), written once for both primitives. Per-primitive editing
 * gave the ring between the materials two different sets of weights. */
START_TEST(parts_edit_as_one_surface) {
  static const char* const ops[] = {"weights %s %s/%s_%d.glb --smooth 3", "bind %s %s/%s_%d.glb"};
  for (int op = 0; op < 2; ++op) {
    char args[1024], two[300], one[300];
    snprintf(args, sizeof args, ops[op], "tests/data/three_multimaterial.glb", g_tmp, "two", op);
    ck_assert_int_eq(run(args), 0);
    snprintf(args, sizeof args, ops[op], "tests/data/three_onematerial.glb", g_tmp, "one", op);
    ck_assert_int_eq(run(args), 0);
    snprintf(two, sizeof two, "%s/two_%d.glb", g_tmp, op);
    snprintf(one, sizeof one, "%s/one_%d.glb", g_tmp, op);
    for (int k = 0; k < 2; ++k) {
      const char* key = k ? "WEIGHTS_0" : "JOINTS_0";
      uint32_t a0, a1, ar;
      size_t n0, n1, nr;
      float* p0 = prim_attribute(two, 0, key, &a0, &n0);
      float* p1 = prim_attribute(two, 1, key, &a1, &n1);
      float* ref = prim_attribute(one, 0, key, &ar, &nr);
      ck_assert_msg(a0 == a1, "%s: the primitives name accessors %u and %u", key, a0, a1);
      ck_assert_uint_eq(n0, 221);
      ck_assert_uint_eq(nr, 221);
      for (size_t i = 0; i < 4 * n0; ++i)
        ck_assert_msg(p0[i] == ref[i], "%s %s: vertex %zu slot %zu: %g, one surface gives %g", ops[op], key, i / 4,
                      i % 4, (double)p0[i], (double)ref[i]);
      free(p0), free(p1), free(ref);
    }
  }
}
END_TEST

/* Whether the node named `name` of a written glTF has a skin (-1: no such node). */
static int node_skinned(const char* path, const char* name) {
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s", e.message);
  int found = -1;
  const int nodes = skio_json_get(d, 0, "nodes");
  for (int i = 0; found < 0 && i < skio_json_len(d, nodes); ++i) {
    const int nd = skio_json_at(d, nodes, i);
    if (skio_json_streq(d, skio_json_get(d, nd, "name"), name)) found = skio_json_get(d, nd, "skin") >= 0;
  }
  skio_gltf_doc_destroy(d);
  return found;
}

/* A mesh attached rigidly to a bone (rigid_parts.glb's "Gauntlet" under "hand", no skin in the file) is left as it
 * is by every operation: mirroring, smoothing with locked joints and bone links skinned it (the audit of session 43:
 * a sword mirrored in its own space had 9 of 32 vertices moved to the other arm). The report names it; the output
 * keeps it an unskinned child of the bone; the skinned body is still edited. */
START_TEST(rigid_attachments_left_alone) {
  static const char* const ops[] = {"--mirror flip", "--mirror +x", "--lock upper --smooth 2", "--links lower:150",
                                    "--smooth 1 --json"};
  for (size_t k = 0; k < sizeof ops / sizeof *ops; ++k) {
    char args[1024], out[300];
    snprintf(out, sizeof out, "%s/rigid_%zu.glb", g_tmp, k);
    snprintf(args, sizeof args, "weights tests/data/rigid_parts.glb %s %s", out, ops[k]);
    ck_assert_msg(run(args) == 0, "%s: %s", ops[k], err_text());
    const bool json = strstr(ops[k], "--json") != NULL;
    ck_assert_msg(json ? strstr(g_out, "\"rigid_joint\":\"hand\",\"operations\":[]") != NULL
                       : strstr(g_out, "attached rigidly to joint \"hand\"") != NULL,
                  "%s: report %s", ops[k], g_out);
    ck_assert_msg(node_skinned(out, "Gauntlet") == 0, "%s: Gauntlet skinned in the output", ops[k]);
    ck_assert_msg(node_skinned(out, "Body") == 1, "%s: Body lost its skin", ops[k]);
  }
}
END_TEST

/* Every skinned vertex of every mesh of the file at path, posed by clip 0 at time t (the rest pose without a clip),
 * into a malloc'd array (*n floats). */
static float* posed_vertices(const char* path, double t, size_t* n) {
  sk_scene* sc = NULL;
  sk_error e;
  ck_assert_msg(sk_scene_load(path, NULL, &sc, &e) == SK_OK, "%s: %s", path, e.message);
  const sk_skeleton* sk = sk_scene_skeleton(sc);
  const uint32_t J = sk_skeleton_joint_count(sk);
  float* trs = malloc((size_t)J * 10 * sizeof *trs);
  float* local = malloc((size_t)J * 16 * sizeof *local);
  float* world = malloc((size_t)J * 16 * sizeof *world);
  float* ib = malloc((size_t)J * 16 * sizeof *ib);
  float* pal = malloc((size_t)J * 16 * sizeof *pal);
  ck_assert(trs && local && world && ib && pal);
  if (sk_scene_animation_count(sc)) ck_assert_int_eq(sk_scene_sample_pose(sc, 0, t, trs, NULL), SK_OK);
  const int posed = sk_scene_animation_count(sc) > 0;
  if (posed) ck_assert_int_eq(sk_pose_local_from_trs(trs, J, local, NULL), SK_OK);
  if (posed) ck_assert_int_eq(sk_skeleton_world(sk, local, NULL, world, NULL), SK_OK);
  float* out = NULL;
  *n = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(sc); ++m) {
    const sk_skin* skin = sk_scene_mesh_skin(sc, m);
    if (!skin || sk_scene_mesh_rigid_joint(sc, m) >= 0) continue;
    ck_assert_int_eq(sk_scene_mesh_inverse_binds(sc, m, ib, NULL, NULL), SK_OK);
    if (posed) ck_assert_int_eq(sk_palette_compute(sk, world, ib, pal, NULL), SK_OK);
    else ck_assert_int_eq(sk_skeleton_palette_from_trs(sk, NULL, ib, pal, NULL), SK_OK);
    const size_t V = sk_scene_mesh_positions(sc, m, NULL, 0);
    float* p = malloc(V * 3 * sizeof *p);
    sk_scene_mesh_positions(sc, m, p, V * 3);
    out = realloc(out, (*n + V * 3) * sizeof *out);
    for (size_t v = 0; v < V; ++v) {
      uint32_t jj[16];
      float ww[16], acc[3] = {0, 0, 0};
      const size_t k = sk_skin_get_vertex(skin, v, jj, ww, 16);
      for (size_t i = 0; i < k; ++i) {
        const float* M = pal + (size_t)jj[i] * 16;
        for (int r = 0; r < 3; ++r)
          acc[r] += ww[i] * (M[r] * p[v * 3] + M[4 + r] * p[v * 3 + 1] + M[8 + r] * p[v * 3 + 2] + M[12 + r]);
      }
      memcpy(out + *n + v * 3, acc, sizeof acc);
    }
    *n += V * 3;
    free(p);
  }
  free(trs), free(local), free(world), free(ib), free(pal);
  sk_scene_destroy(sc);
  return out;
}

/* The text of top-level member `key` of a glTF's JSON (malloc'd; "" when absent). */
static char* member_text(const char* path, const char* key) {
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s", e.message);
  const int t = skio_json_get(d, 0, key);
  const int a = t >= 0 ? d->tok[t].start : 0, b = t >= 0 ? d->tok[t].end : 0;
  char* out = malloc((size_t)(b - a) + 1);
  memcpy(out, d->json + a, (size_t)(b - a));
  out[b - a] = 0;
  skio_gltf_doc_destroy(d);
  return out;
}

/* --links on a glTF edits the document in place (session 43): the link joints are new nodes under the linked joint,
 * appended to the skins of the meshes that weight them with their inverse binds; animations, materials, cameras,
 * lights, extras, scenes and every other node stay as they were, and the meshes deform as before in every pose of
 * the clip. Before, the whole scene was written anew: a morph-target clip became a rotation channel of the root,
 * cameras, lights, empties, extras and a second scene were dropped, with a warning that named a part of it. */
START_TEST(links_edit_in_place) {
  static const struct {
    const char *file, *joint;
  } k_cases[] = {{"tests/data/moved_armature.glb", "knee"}, {"tests/data/two_rigs_three.glb", "Arm_bone1"}};
  static const char* const kept[] = {"animations", "materials", "textures", "images", "cameras", "scenes", "scene",
                                     "extensions", "extensionsUsed", "asset", "samplers"};
  for (size_t c = 0; c < sizeof k_cases / sizeof *k_cases; ++c) {
    char args[1024], out[300], in[300];
    snprintf(in, sizeof in, "%s/%s", SK_SOURCE_DIR, k_cases[c].file);
    snprintf(out, sizeof out, "%s/links_%zu.glb", g_tmp, c);
    snprintf(args, sizeof args, "weights %s %s --links %s:150", k_cases[c].file, out, k_cases[c].joint);
    ck_assert_msg(run(args) == 0, "%s: %s", k_cases[c].file, err_text());
    ck_assert_msg(!strstr(err_text(), "written from the scene"), "%s: %s", k_cases[c].file, err_text());
    for (size_t k = 0; k < sizeof kept / sizeof *kept; ++k) {
      char *a = member_text(in, kept[k]), *b = member_text(out, kept[k]);
      ck_assert_msg(!strcmp(a, b), "%s: \"%s\" changed", k_cases[c].file, kept[k]);
      free(a), free(b);
    }
    snprintf(args, sizeof args, "info %s", out);
    ck_assert_int_eq(run(args), 0);
    ck_assert_msg(strstr(g_out, "_link1") && strstr(g_out, "_link2"), "%s: info %s", k_cases[c].file, g_out);
    sk_scene* sc = NULL;
    ck_assert_int_eq(sk_scene_load(in, NULL, &sc, NULL), SK_OK);
    const double dur = sk_scene_animation_count(sc) ? sk_scene_animation_duration(sc, 0) : 0.0;
    sk_scene_destroy(sc);
    for (int i = 0; i <= 4; ++i) {
      size_t na, nb;
      float *a = posed_vertices(in, dur * i / 4.0, &na), *b = posed_vertices(out, dur * i / 4.0, &nb);
      ck_assert_uint_eq(na, nb);
      float worst = 0.0f, reach = 1e-6f;
      for (size_t k = 0; k < na; ++k) worst = fmaxf(worst, fabsf(a[k] - b[k])), reach = fmaxf(reach, fabsf(a[k]));
      ck_assert_msg(worst <= 1e-5f * reach, "%s at %.3f s: a vertex moved by %g", k_cases[c].file, dur * i / 4.0,
                    (double)worst);
      free(a), free(b);
    }
  }
}
END_TEST

/* The joints weighting mesh `mesh` of path: 1 when every influence is on a joint whose name starts with prefix, 0 when
 * none is, -1 when mixed or the mesh is missing. */
static int mesh_on_joints(const char* path, const char* mesh, const char* prefix) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &s, NULL), SK_OK);
  const sk_skeleton* sk = sk_scene_skeleton(s);
  size_t on = 0, off = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
    sk_skin* skin = sk_scene_mesh_skin(s, m);
    if (strcmp(sk_scene_mesh_name(s, m), mesh) != 0 || !skin) continue;
    for (size_t v = 0; v < sk_scene_mesh_vertex_count(s, m); ++v) {
      uint32_t jt[16];
      float w[16];
      size_t n = sk_skin_get_vertex(skin, v, jt, w, 16);
      for (size_t k = 0; k < n && k < 16; ++k)
        if (w[k] != 0.0f) ++*(strncmp(sk_skeleton_joint_name(sk, jt[k]), prefix, strlen(prefix)) ? &off : &on);
    }
  }
  sk_scene_destroy(s);
  return on && !off ? 1 : off && !on ? 0 : -1;
}

/* Two characters standing at one spot, each with its own armature (tests/data/two_rigs_one_spot.glb,
 * make_two_rigs_one_spot.py): their meshes share every position but are not one surface - smoothing, mirroring and
 * links keep each on its own bones (the audit of session 44: both were weighted to all four joints, and a flip moved
 * the second onto the first's). */
START_TEST(two_characters_at_one_spot_keep_their_bones) {
  static const char* const ops[] = {"--smooth 2", "--mirror flip", "--smooth 1 --cotangent"};
  for (size_t k = 0; k < sizeof ops / sizeof *ops; ++k) {
    char args[1024], out[300];
    snprintf(out, sizeof out, "%s/two_rigs_%zu.glb", g_tmp, k);
    snprintf(args, sizeof args, "weights tests/data/two_rigs_one_spot.glb %s %s", out, ops[k]);
    ck_assert_msg(run(args) == 0, "%s: %s", ops[k], err_text());
    ck_assert_msg(mesh_on_joints(out, "cylinder", "rig2_") == 0, "%s: cylinder weighted to rig2", ops[k]);
    ck_assert_msg(mesh_on_joints(out, "cylinder2", "rig2_") == 1, "%s: cylinder2 weighted off rig2", ops[k]);
  }
}
END_TEST

/* A primitive with a JOINTS_1 / WEIGHTS_1 set of zeros beside its weights (tests/data/zero_second_set.glb,
 * make_zero_second_set.py; gltf-transform keeps such a set): edits that change nothing leave the file byte for byte
 * (the set was dropped and the file rewritten, the audit of session 44). */
START_TEST(zero_second_set_no_op_keeps_bytes) {
  static const char* const ops[] = {"--normalize", "--limit 4", "--prune 0.0001"};
  size_t na;
  unsigned char* a = slurp(SK_SOURCE_DIR "/tests/data/zero_second_set.glb", &na);
  ck_assert_ptr_nonnull(a);
  for (size_t k = 0; k < sizeof ops / sizeof *ops; ++k) {
    char args[1024], out[300];
    snprintf(out, sizeof out, "%s/zero_set_%zu.glb", g_tmp, k);
    snprintf(args, sizeof args, "weights tests/data/zero_second_set.glb %s %s", out, ops[k]);
    ck_assert_msg(run(args) == 0, "%s: %s", ops[k], err_text());
    size_t nb;
    unsigned char* b = slurp(out, &nb);
    ck_assert_msg(b && na == nb && !memcmp(a, b, na), "%s: written differently (%zu -> %zu bytes)", ops[k], na, nb);
    free(b);
  }
  free(a);
}
END_TEST

/* A POINTS primitive drawing the triangles' vertices with their attributes (tests/data/points_prim.glb,
 * make_points_prim.py; the reader reads triangles only) takes the edited weights too: it kept the old accessors (the
 * audit of session 44). */
START_TEST(points_primitive_follows_the_edit) {
  char args[1024], out[300];
  snprintf(out, sizeof out, "%s/points.glb", g_tmp);
  snprintf(args, sizeof args, "weights tests/data/points_prim.glb %s --limit 1", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  static const char* const keys[] = {"JOINTS_0", "WEIGHTS_0"};
  for (int k = 0; k < 2; ++k) {
    uint32_t src, tri, pts;
    size_t n0, n1, n2;
    free(prim_attribute(SK_SOURCE_DIR "/tests/data/points_prim.glb", 0, keys[k], &src, &n0));
    free(prim_attribute(out, 0, keys[k], &tri, &n1));
    free(prim_attribute(out, 1, keys[k], &pts, &n2));
    ck_assert_uint_ne(tri, src); /* the triangles' weights changed (a vertex had 2 influences) */
    ck_assert_uint_eq(pts, tri);
  }
}
END_TEST

/* tests/data/weight_defects.glb (make_weight_defects.py): a sparse WEIGHTS_0 with a NaN, a -inf and a -0.25 weight,
 * and a second set holding only a NaN and joint 200 of 2 with weight 0. --normalize removes the 4 invalid entries and
 * renormalizes; the written file is clean for validate (and for the Khronos validator, checked by hand: no error),
 * the WEIGHTS_0 accessor keeps its index, declared anew on the new data, and no accessor of the file reads a
 * non-finite value (the sparse one and the dropped set's were left holding them, which validators report). */
START_TEST(invalid_entries_removed_and_no_old_values_left) {
  char args[1024], out[300];
  snprintf(out, sizeof out, "%s/repaired.glb", g_tmp);
  ck_assert_int_eq(run("validate tests/data/weight_defects.glb"), 1);
  snprintf(args, sizeof args, "weights tests/data/weight_defects.glb %s --normalize", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "4 changed") && strstr(g_out, "4 invalid entries removed"), "%s", g_out);
  ck_assert_msg(!strstr(err_text(), "cannot keep"), "%s", err_text());
  /* an operation that leaves them (limit): said, not dropped without a word */
  char limited[300];
  snprintf(limited, sizeof limited, "%s/limited.glb", g_tmp);
  snprintf(args, sizeof args, "weights tests/data/weight_defects.glb %s --limit 4", limited);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(err_text(), "3 vertices hold NaN or infinite and 1 negative weights, which OUT cannot keep"),
                "%s", err_text());
  snprintf(args, sizeof args, "validate %s", out);
  ck_assert_msg(run(args) == 0, "%s", g_out);
  uint32_t src_w, out_w;
  size_t n;
  free(prim_attribute(SK_SOURCE_DIR "/tests/data/weight_defects.glb", 0, "WEIGHTS_0", &src_w, &n));
  free(prim_attribute(out, 0, "WEIGHTS_0", &out_w, &n));
  ck_assert_uint_eq(out_w, src_w);
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  ck_assert_int_eq(skio_gltf_doc_load(out, &d, &e), SKC_OK);
  int attrs = skio_json_get(d, skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", 0), "primitives"), 0),
                            "attributes");
  ck_assert_int_lt(skio_json_get(d, attrs, "WEIGHTS_1"), 0);
  ck_assert_int_lt(skio_json_get(d, skio_gltf_item(d, "accessors", out_w), "sparse"), 0);
  for (uint32_t a = 0; a < d->accessor_count; ++a) {
    skio_gltf_accessor info;
    ck_assert_int_eq(skio_gltf_accessor_info(d, a, &info, &e), SKC_OK);
    if (info.component_type != SKIO_GLTF_FLOAT) continue;
    float* v = malloc(info.count * info.components * sizeof *v + 4);
    ck_assert_int_eq(skio_gltf_accessor_floats(d, a, v, &e), SKC_OK);
    for (size_t k = 0; k < info.count * info.components; ++k)
      ck_assert_msg(isfinite(v[k]), "accessor %u element %zu: %g", a, k, (double)v[k]);
    free(v);
  }
  skio_gltf_doc_destroy(d);
}
END_TEST

/* The mesh node of a written glTF named `name`: its mesh index (-1: none). */
static int node_mesh(const char* path, const char* name) {
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s", e.message);
  int mesh = -1;
  for (uint32_t n = 0; n < d->node_count; ++n) {
    int t = skio_gltf_item(d, "nodes", n);
    uint32_t m;
    if (skio_json_streq(d, skio_json_get(d, t, "name"), name) && skio_json_u32(d, skio_json_get(d, t, "mesh"), &m))
      mesh = (int)m;
  }
  skio_gltf_doc_destroy(d);
  return mesh;
}

/* The weight of vertex v of mesh m on the joint named `joint` (0 when it has none). */
static float weight_of(sk_scene* s, uint32_t m, size_t v, const char* joint) {
  uint32_t j, js[64];
  float ws[64];
  ck_assert_int_eq(sk_skeleton_find_joint(sk_scene_skeleton(s), joint, &j), SK_OK);
  size_t n = sk_skin_get_vertex(sk_scene_mesh_skin(s, m), v, js, ws, 64);
  for (size_t k = 0; k < n && k < 64; ++k)
    if (js[k] == j) return ws[k];
  return 0.0f;
}

/* tests/data/twin_instances.glb (make_twin_instances.py): two skinned nodes instance one primitive, each with its own
 * armature. Smoothing both alike keeps the one primitive (an in-place edit); locking the first armature's bone0 gives
 * the two different weights, which one primitive cannot hold: the second instance's were dropped without a word (the
 * audit of session 57). Now the scene is written whole, each node its own mesh, with a warning. */
START_TEST(instances_edited_differently_keep_their_weights) {
  char args[1024], out[300];
  snprintf(out, sizeof out, "%s/alike.glb", g_tmp);
  snprintf(args, sizeof args, "weights tests/data/twin_instances.glb %s --smooth 3", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_int_eq(node_mesh(out, "cylinder"), 0);
  ck_assert_int_eq(node_mesh(out, "cylinder_b"), 0);
  snprintf(out, sizeof out, "%s/locked.glb", g_tmp);
  snprintf(args, sizeof args, "weights tests/data/twin_instances.glb %s --smooth 3 --lock bone0", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(err_text(), "different weights for each") != NULL, "%s", err_text());
  ck_assert_msg(strstr(g_out, "448 changed") && strstr(g_out, "960 changed"), "%s", g_out);
  const int ma = node_mesh(out, "cylinder"), mb = node_mesh(out, "cylinder_b");
  ck_assert_int_ge(ma, 0);
  ck_assert_int_ge(mb, 0);
  ck_assert_int_ne(ma, mb);
  /* each instance holds its own result: bone0's weights unchanged on the first, smoothed on the second */
  sk_scene* s = NULL;
  sk_error err;
  ck_assert_int_eq(sk_scene_load(out, NULL, &s, &err), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_count(s), 2);
  sk_scene* src = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/twin_instances.glb", NULL, &src, &err), SK_OK);
  size_t differ[2] = {0, 0};
  for (uint32_t m = 0; m < 2; ++m) {
    const char* bone = m ? "bone0b" : "bone0";
    ck_assert_uint_eq(sk_skin_vertex_count(sk_scene_mesh_skin(src, m)), sk_skin_vertex_count(sk_scene_mesh_skin(s, m)));
    for (size_t v = 0; v < sk_skin_vertex_count(sk_scene_mesh_skin(src, m)); ++v)
      differ[m] += fabsf(weight_of(src, m, v, bone) - weight_of(s, m, v, bone)) > 1e-6f;
  }
  ck_assert_uint_eq(differ[0], 0);
  ck_assert_uint_gt(differ[1], 0);
  sk_scene_destroy(src);
  sk_scene_destroy(s);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("cli_weights");
  TCase* t = tcase_create("cli_weights");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, weights_normalize_fixes_sums);
  tcase_add_test(t, weights_written_as_edited);
  tcase_add_test(t, weights_mirror_quantized_positions);
  tcase_add_test(t, weights_json_report_and_chain);
  tcase_add_test(t, weights_lock_and_joints);
  tcase_add_test(t, weights_lock_survives_the_writers_cut);
  tcase_add_test(t, weights_smooth_of_listed_joints_spreads_outward);
  tcase_add_test(t, weights_mirror_axis_and_tolerance);
  tcase_add_test(t, weights_mirror_of_infinite_positions_names_the_vertex);
  tcase_add_test(t, weights_messages_name_their_file);
  tcase_add_test(t, weights_bone_links);
  tcase_add_test(t, weights_exists_and_never_in);
  tcase_add_test(t, weights_bad_arguments);
  tcase_add_test(t, parts_edit_as_one_surface);
  tcase_add_test(t, rigid_attachments_left_alone);
  tcase_add_test(t, links_edit_in_place);
  tcase_add_test(t, two_characters_at_one_spot_keep_their_bones);
  tcase_add_test(t, zero_second_set_no_op_keeps_bytes);
  tcase_add_test(t, points_primitive_follows_the_edit);
  tcase_add_test(t, invalid_entries_removed_and_no_old_values_left);
  tcase_add_test(t, instances_edited_differently_keep_their_weights);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
