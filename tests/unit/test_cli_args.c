/* test_cli_args.c - strict command-line arguments in every skinkit command (plugin/cli_args.c): malformed
 * numbers (abc, 0,1, nan, inf, 1e99, negative), missing values, unknown options, --format against OUT's
 * extension and missing output folders all exit 2 with one or two lines on stderr (never the whole help) and
 * write nothing; `info` lists joints and takes several files. Runs the real build/skinkit on tests/data/. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sk_testutil.h"

#ifndef SK_CLI_PATH
#error "SK_CLI_PATH must name the built skinkit executable"
#endif

#define RIG "tests/data/cylinder_rig.glb"

static char g_tmp[256];
static char g_out[1 << 16];
static char g_err[1 << 13];

/* Runs `skinkit ARGS` from the source folder; stdout in g_out, stderr in g_err; returns the exit status. */
static int run(const char* args) {
  char err[300];
  snprintf(err, sizeof err, "%s/stderr.txt", g_tmp);
  int rc = skt_run_cli(SK_SOURCE_DIR, SK_CLI_PATH, args, err, g_out, sizeof g_out);
  snprintf(g_err, sizeof g_err, "%s", skt_read_text(err));
  return rc;
}

static int lines(const char* s) {
  int n = 0;
  for (; *s; ++s) n += *s == '\n';
  return n;
}

static const char* tmp(const char* name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) & 3;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, name);
  return buf[k];
}

static int exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* The command must refuse the arguments: exit 2, one or two stderr lines, no usage text, nothing written to
 * out (when given), and the error names the bad value (when given). */
static void refuse(const char* args, const char* out, const char* names) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s", args);
  int rc = run(cmd);
  ck_assert_msg(rc == 2, "skinkit %s: exit %d, want 2 (stderr: %s)", args, rc, g_err);
  int n = lines(g_err);
  ck_assert_msg(n >= 1 && n <= 2, "skinkit %s: %d stderr lines:\n%s", args, n, g_err);
  ck_assert_msg(strstr(g_err, "usage:") == NULL, "skinkit %s printed the help:\n%s", args, g_err);
  ck_assert_msg(strncmp(g_err, "skinkit ", 8) == 0, "skinkit %s: error does not name the command: %s", args, g_err);
  if (names) ck_assert_msg(strstr(g_err, names) != NULL, "skinkit %s: \"%s\" not in: %s", args, names, g_err);
  if (out) ck_assert_msg(!exists(out), "skinkit %s wrote %s", args, out);
}

static void setup(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/skinkit-args-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(g_tmp));
}

static void teardown(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_tmp);
}

static const char* const k_bad_real[] = {"abc", "0,1", "nan", "inf", "-inf", "1e99", "1e999", "", " 0.1", "0.1x"};
static const char* const k_bad_int[] = {"abc", "0,1", "nan", "inf", "-1", "1e99", "99999999999", "", "2.5", " 3",
                                        "3x"};

START_TEST(validate_numbers) {
  char args[512];
  for (size_t k = 0; k < sizeof k_bad_real / sizeof *k_bad_real; ++k) {
    snprintf(args, sizeof args, "validate " RIG " --tolerance '%s'", k_bad_real[k]);
    refuse(args, NULL, "--tolerance");
    snprintf(args, sizeof args, "validate " RIG " --timeout '%s'", k_bad_real[k]);
    refuse(args, NULL, "--timeout");
  }
  refuse("validate " RIG " --tolerance -1", NULL, "\"-1\"");
  refuse("validate " RIG " --tolerance 0", NULL, "--tolerance");
  refuse("validate " RIG " --timeout -1", NULL, "--timeout");
  for (size_t k = 0; k < sizeof k_bad_int / sizeof *k_bad_int; ++k) {
    snprintf(args, sizeof args, "validate " RIG " --max-influences '%s'", k_bad_int[k]);
    refuse(args, NULL, "--max-influences");
    snprintf(args, sizeof args, "validate " RIG " --jobs '%s'", k_bad_int[k]);
    refuse(args, NULL, "--jobs");
    snprintf(args, sizeof args, "validate " RIG " --max-memory '%s'", k_bad_int[k]);
    refuse(args, NULL, "--max-memory");
  }
  refuse("validate " RIG " --tolerance", NULL, "needs a value");
  refuse("validate " RIG " --jobs", NULL, "needs a value");
  refuse("validate " RIG " --json=", NULL, "--json="); /* a bare --json is stdout */
  refuse("validate " RIG " --bogus", NULL, "--bogus");
  refuse("validate", NULL, NULL);
  snprintf(args, sizeof args, "validate " RIG " --json %s", tmp("no/such/dir/v.json"));
  refuse(args, NULL, "no/such/dir");
  /* the same flags with good values still work */
  ck_assert_int_eq(run("validate " RIG " --tolerance 0.01 --max-influences 4 --jobs 1 --timeout 60"), 0);
  ck_assert_int_eq(run("validate " RIG " --tolerance 1e-3 --timeout 0"), 0);
}
END_TEST

START_TEST(convert_numbers_and_format) {
  char args[512];
  const char* out = tmp("out.glb");
  for (size_t k = 0; k < sizeof k_bad_int / sizeof *k_bad_int; ++k) {
    snprintf(args, sizeof args, "convert " RIG " %s --limit '%s'", out, k_bad_int[k]);
    refuse(args, out, "--limit");
  }
  snprintf(args, sizeof args, "convert " RIG " %s --limit 0", out);
  refuse(args, out, "--limit");
  for (size_t k = 0; k < sizeof k_bad_real / sizeof *k_bad_real; ++k) {
    snprintf(args, sizeof args, "convert " RIG " %s --prune '%s'", out, k_bad_real[k]);
    refuse(args, out, "--prune");
  }
  snprintf(args, sizeof args, "convert " RIG " %s --prune -0.5", out);
  refuse(args, out, "--prune");
  snprintf(args, sizeof args, "convert " RIG " %s --limit", out);
  refuse(args, out, "needs a value");
  snprintf(args, sizeof args, "convert " RIG " %s --frobnicate", out);
  refuse(args, out, "--frobnicate");
  snprintf(args, sizeof args, "convert " RIG " %s --weights-type f64", out);
  refuse(args, out, "f64");
  refuse("convert " RIG, NULL, NULL);
  snprintf(args, sizeof args, "convert " RIG " %s extra", out);
  refuse(args, out, "extra");
  /* --format must agree with OUT's extension */
  snprintf(args, sizeof args, "convert " RIG " %s --format glb", tmp("b.fbx"));
  refuse(args, tmp("b.fbx"), "--format");
  snprintf(args, sizeof args, "convert " RIG " %s --format gltf", tmp("b.glb"));
  refuse(args, tmp("b.glb"), "--format");
  snprintf(args, sizeof args, "convert " RIG " %s --format fbxa", tmp("b.dae"));
  refuse(args, tmp("b.dae"), "--format");
  snprintf(args, sizeof args, "convert " RIG " %s --format obj", tmp("b.obj"));
  refuse(args, tmp("b.obj"), "obj");
  /* missing output folder: one line naming it, before anything is read */
  snprintf(args, sizeof args, "convert " RIG " %s", tmp("missing/dir/b.glb"));
  refuse(args, NULL, "missing/dir");
  /* agreeing --format (any case) and good numbers still work */
  snprintf(args, sizeof args, "convert " RIG " %s --format GLB --limit 4 --prune 0.001", tmp("ok.glb"));
  ck_assert_msg(run(args) == 0, "%s", g_err);
  ck_assert(exists(tmp("ok.glb")));
}
END_TEST

START_TEST(other_commands) {
  char args[512];
  const char* out = tmp("s.glb");
  for (size_t k = 0; k < sizeof k_bad_int / sizeof *k_bad_int; ++k) {
    snprintf(args, sizeof args, "sample %s --bones '%s'", out, k_bad_int[k]);
    refuse(args, out, "--bones");
    snprintf(args, sizeof args, "sample %s --segments '%s'", out, k_bad_int[k]);
    refuse(args, out, "--segments");
    snprintf(args, sizeof args, "pack " RIG " -o %s --level '%s'", tmp("p.skf"), k_bad_int[k]);
    refuse(args, tmp("p.skf"), "--level");
    snprintf(args, sizeof args, "pack " RIG " -o %s --bits '%s'", tmp("p.skf"), k_bad_int[k]);
    refuse(args, tmp("p.skf"), "--bits");
    snprintf(args, sizeof args, "pack " RIG " -o %s --max-influences '%s'", tmp("p.skf"), k_bad_int[k]);
    refuse(args, tmp("p.skf"), "--max-influences");
    snprintf(args, sizeof args, "unpack %s --max-vertices '%s'", tmp("p.skf"), k_bad_int[k]);
    refuse(args, NULL, "--max-vertices");
    snprintf(args, sizeof args, "weights " RIG " %s --limit '%s'", tmp("w.glb"), k_bad_int[k]);
    refuse(args, tmp("w.glb"), "--limit");
    snprintf(args, sizeof args, "bind " RIG " %s --max-influences '%s'", tmp("b.glb"), k_bad_int[k]);
    refuse(args, tmp("b.glb"), "--max-influences");
    snprintf(args, sizeof args, "info " RIG " --max-memory '%s'", k_bad_int[k]);
    refuse(args, NULL, "--max-memory");
  }
  for (size_t k = 0; k < sizeof k_bad_real / sizeof *k_bad_real; ++k) {
    snprintf(args, sizeof args, "info " RIG " --timeout '%s'", k_bad_real[k]);
    refuse(args, NULL, "--timeout");
    snprintf(args, sizeof args, "sample %s --drift '%s'", out, k_bad_real[k]);
    refuse(args, out, "--drift");
    snprintf(args, sizeof args, "weights " RIG " %s --prune '%s'", tmp("w.glb"), k_bad_real[k]);
    refuse(args, tmp("w.glb"), "--prune");
    snprintf(args, sizeof args, "weights " RIG " %s --smooth '3:%s'", tmp("w.glb"), k_bad_real[k]);
    refuse(args, tmp("w.glb"), "--smooth");
  }
  snprintf(args, sizeof args, "sample %s --drift 1", out);
  refuse(args, out, "--drift");
  snprintf(args, sizeof args, "sample %s --bones 65", out);
  refuse(args, out, "--bones");
  snprintf(args, sizeof args, "sample %s --bones", out);
  refuse(args, out, "needs a value");
  refuse("sample", NULL, NULL);
  snprintf(args, sizeof args, "sample %s", tmp("nodir/s.glb"));
  refuse(args, NULL, "nodir");
  refuse("demo --fast", NULL, "--fast");
  refuse("info", NULL, NULL);
  refuse("info " RIG " --verbose", NULL, "--verbose");
  snprintf(args, sizeof args, "pack " RIG " -o");
  refuse(args, NULL, "needs a value");
  snprintf(args, sizeof args, "pack " RIG " -o %s", tmp("nodir/p.skf"));
  refuse(args, NULL, "nodir");
  /* pack IN OUT as the other writers take it; OUT once (own names: tmp's buffers hold `out`) */
  char pa[300], pb[300], cmd[800];
  snprintf(pa, sizeof pa, "%s/a.skf", g_tmp);
  snprintf(pb, sizeof pb, "%s/b.skf", g_tmp);
  snprintf(cmd, sizeof cmd, "pack " RIG " %s", pa);
  ck_assert_msg(run(cmd) == 0 && exists(pa), "skinkit %s: %s", cmd, g_err);
  remove(pa);
  snprintf(cmd, sizeof cmd, "pack " RIG " %s -o %s", pa, pb);
  refuse(cmd, pb, "given twice");
  ck_assert(!exists(pa));
  snprintf(cmd, sizeof cmd, "pack " RIG " %s %s", pa, pb);
  refuse(cmd, pb, "unexpected argument");
  ck_assert(!exists(pa));
  refuse("unpack", NULL, NULL);
  refuse("unpack x.skf --indices-from", NULL, "needs a value");
  snprintf(args, sizeof args, "weights " RIG " %s --normalize --bogus", tmp("w.glb"));
  refuse(args, tmp("w.glb"), "--bogus");
  snprintf(args, sizeof args, "weights " RIG " %s --limit", tmp("w.glb"));
  refuse(args, tmp("w.glb"), "needs a value");
  snprintf(args, sizeof args, "weights " RIG " %s --normalize", tmp("nodir/w.glb"));
  refuse(args, NULL, "nodir");
  snprintf(args, sizeof args, "bind " RIG " %s --method", tmp("b.glb"));
  refuse(args, tmp("b.glb"), "needs a value");
  snprintf(args, sizeof args, "bind " RIG " %s --method magic", tmp("b.glb"));
  refuse(args, tmp("b.glb"), "magic");
  snprintf(args, sizeof args, "bind " RIG " %s --bogus", tmp("b.glb"));
  refuse(args, tmp("b.glb"), "--bogus");
  snprintf(args, sizeof args, "bind " RIG " %s", tmp("nodir/b.glb"));
  refuse(args, NULL, "nodir");
  refuse("bind " RIG, NULL, NULL);
  refuse("report", NULL, NULL);
  refuse("report x.jsonl --json=", NULL, "--json=");
  refuse("report --bogus x.jsonl", NULL, "--bogus");
  /* good values still work */
  snprintf(args, sizeof args, "sample %s --bones 3 --segments 8 --rings 8 --drift 0.05", out);
  ck_assert_msg(run(args) == 0, "%s", g_err);
}
END_TEST

START_TEST(info_joints_and_files) {
  ck_assert_int_eq(run("info " RIG " --json"), 0);
  ck_assert_msg(strstr(g_out, "\"joint_count\":2") != NULL, "%s", g_out);
  ck_assert_msg(strstr(g_out, "\"joints\":[{\"name\":\"bone0\",\"parent\":-1,\"deform\":true,\"vertex_count\":") != NULL, "%s",
                g_out);
  ck_assert(strstr(g_out, "{\"name\":\"bone1\",\"parent\":0,\"deform\":true,\"vertex_count\":") != NULL);
  /* independent reference: every vertex of the rig has a non-zero weight on some joint, so the counts over
   * the two joints add up to at least the vertex count (blended vertices count on both) */
  const char* v0 = strstr(g_out, "\"name\":\"bone0\",\"parent\":-1,\"deform\":true,\"vertex_count\":");
  const char* v1 = strstr(g_out, "\"name\":\"bone1\",\"parent\":0,\"deform\":true,\"vertex_count\":");
  ck_assert(v0 && v1);
  long n0 = strtol(strstr(v0, "\"vertex_count\":") + 15, NULL, 10), n1 = strtol(strstr(v1, "\"vertex_count\":") + 15, NULL, 10);
  ck_assert_msg(n0 > 0 && n1 > 0 && n0 + n1 >= 1122 && n0 < 1122 && n1 < 1122, "%ld %ld", n0, n1);
  /* text: a tree after the meshes */
  ck_assert_int_eq(run("info " RIG), 0);
  const char* mesh = strstr(g_out, "mesh 0");
  const char* tree = strstr(g_out, "\n  joints:\n");
  ck_assert_msg(mesh && tree && mesh < tree, "%s", g_out);
  ck_assert(strstr(tree, "\n    bone0  deform") != NULL);
  ck_assert(strstr(tree, "\n      bone1  deform") != NULL);
  /* several files: one block each; a missing one makes the exit 2 and the others are still listed */
  char args[512];
  snprintf(args, sizeof args, "info " RIG " %s tests/data/cylinder_rig_drift.glb --json", tmp("missing.glb"));
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(g_err, "missing.glb") != NULL);
  const char* first = strstr(g_out, "\"path\":\"" RIG "\"");
  const char* second = strstr(g_out, "\"path\":\"tests/data/cylinder_rig_drift.glb\"");
  ck_assert_msg(first && second && first < second, "%s", g_out);
  ck_assert_int_eq(run("info " RIG " tests/data/cylinder_rig_drift.glb"), 0);
  ck_assert(strstr(g_out, RIG ":") && strstr(g_out, "cylinder_rig_drift.glb:"));
}
END_TEST

int main(void) {
  Suite* s = suite_create("cli_args");
  TCase* t = tcase_create("cli_args");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 600);
  tcase_add_test(t, validate_numbers);
  tcase_add_test(t, convert_numbers_and_format);
  tcase_add_test(t, other_commands);
  tcase_add_test(t, info_joints_and_files);
  suite_add_tcase(s, t);
  return skt_run_suite(s);
}
