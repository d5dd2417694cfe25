/* test_hostile.c - the CLI and the loader on hostile input and faults (issue 16): a crashing file, FIFOs and
 * devices, a full disk (RLIMIT_FSIZE), a writer killed mid-write, same-file outputs through links, symbolic-link
 * loops in folders, invalid UTF-8 in file names, the per-load memory limit. Every input is generated here. */
#define _GNU_SOURCE /* mkdtemp, setrlimit, kill, symlink, link, mkfifo, memmem */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"

#ifndef SK_CLI_PATH
#error "SK_CLI_PATH must name the built skinkit executable"
#endif

static char g_dir[256];
static char g_err[8192]; /* stderr of the last run */

static const char* at(const char* name) {
  static char buf[4][1024];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
  return buf[k];
}

typedef struct run_opts {
  long fsize;     /* RLIMIT_FSIZE in bytes (SIGXFSZ ignored), 0 = none */
  double kill_at; /* SIGKILL (or kill_sig) after this many seconds, 0 = never */
  int kill_sig;   /* 0 = SIGKILL */
  const char* out; /* stdout to this file, NULL = /dev/null */
} run_opts;

/* Runs the CLI with argv (NULL-terminated, argv[0] ignored) in g_dir; stderr is kept in g_err. Returns the exit
 * status, 128 + signal when killed by one, -1 when it could not run or ran longer than 60 s. */
static int run(const char* const* argv, const run_opts* o) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(o && o->out ? o->out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(fds[1], 2);
    close(fds[0]);
    if (chdir(g_dir) != 0) _exit(126);
    if (o && o->fsize) {
      signal(SIGXFSZ, SIG_IGN);
      struct rlimit rl = {(rlim_t)o->fsize, (rlim_t)o->fsize};
      setrlimit(RLIMIT_FSIZE, &rl);
    }
    execv(SK_CLI_PATH, (char* const*)argv);
    _exit(127);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  size_t n = 0;
  int st = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    ssize_t r = read(fds[0], g_err + n, sizeof g_err - 1 - n);
    if (r > 0) n += (size_t)r;
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) break;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double s = (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9;
    if ((o && o->kill_at > 0.0 && s >= o->kill_at) || s > 60.0) {
      kill(pid, s <= 60.0 && o->kill_sig ? o->kill_sig : SIGKILL);
      waitpid(pid, &st, 0);
      if (s > 60.0) st = -1;
      break;
    }
    struct timespec d = {0, 1000000};
    nanosleep(&d, NULL);
  }
  ssize_t r;
  while (n < sizeof g_err - 1 && (r = read(fds[0], g_err + n, sizeof g_err - 1 - n)) > 0) n += (size_t)r;
  g_err[n] = 0;
  close(fds[0]);
  if (st == -1) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define RUN(...) run((const char* const[]){"skinkit", __VA_ARGS__, NULL}, NULL)

static unsigned char* slurp(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* d = malloc((size_t)len + 1);
  *n = d ? fread(d, 1, (size_t)len, f) : 0;
  fclose(f);
  return d;
}

static void put(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* 1 when the file holds exactly these bytes. */
static int same_bytes(const char* path, const unsigned char* d, size_t n) {
  size_t m = 0;
  unsigned char* e = slurp(path, &m);
  int same = e && m == n && memcmp(d, e, n) == 0;
  free(e);
  return same;
}

/* Number of entries in g_dir/sub whose name contains ".tmp" (a writer's leftovers). */
static int temp_files(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '\\.tmp$'", g_dir);
  FILE* p = popen(cmd, "r");
  int c = 0;
  if (p && fscanf(p, "%d", &c) != 1) c = 0;
  if (p) pclose(p);
  return c;
}

/* Collada with a chain of n nested nodes: Assimp 5.2's recursive node reader overflows its stack on it. */
static void write_deep_dae(const char* path, int n) {
  FILE* f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" "
        "version=\"1.4.1\">\n<library_visual_scenes><visual_scene id=\"s\">",
        f);
  for (int i = 0; i < n; ++i) fprintf(f, "<node id=\"n%d\">", i);
  for (int i = 0; i < n; ++i) fputs("</node>", f);
  fputs("</visual_scene></library_visual_scenes><scene><instance_visual_scene url=\"#s\"/></scene></COLLADA>\n", f);
  fclose(f);
}

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/skinkit_hostile_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(g_dir));
  ck_assert_int_eq(RUN("sample", "rig.glb"), 0);
  ck_assert_int_eq(RUN("sample", "rig.dae"), 0);
}

static void teardown(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
}

/* ---- a crashing input is contained ---- */
START_TEST(crash_contained) {
  write_deep_dae(at("deep.dae"), 100000);
  const char* const* cmds[] = {
      (const char* const[]){"skinkit", "info", "deep.dae", NULL},
      (const char* const[]){"skinkit", "convert", "deep.dae", "out.glb", NULL},
      (const char* const[]){"skinkit", "pack", "deep.dae", "-o", "out.skf", NULL},
      (const char* const[]){"skinkit", "weights", "deep.dae", "w.glb", "--normalize", NULL},
      (const char* const[]){"skinkit", "bind", "deep.dae", "b.glb", NULL},
  };
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; ++i) {
    ck_assert_msg(run(cmds[i], NULL) == 2, "%s: %s", cmds[i][1], g_err);
    ck_assert_msg(strstr(g_err, "crashed") && strstr(g_err, "SIGSEGV"), "%s: %s", cmds[i][1], g_err);
    ck_assert_msg(strchr(g_err, '\n') == g_err + strlen(g_err) - 1, "one line: %s", g_err);
  }
  run_opts o = {0};
  o.out = at("v.txt");
  ck_assert_int_eq(run((const char* const[]){"skinkit", "validate", "deep.dae", NULL}, &o), 2);
  /* (under ASan the worker's stack overflow is ASan's report and exit, not a signal) */
  ck_assert_msg(SANITIZED || strstr(skt_read_text(at("v.txt")), "crashed"), "%s", skt_read_text(at("v.txt")));
  /* through the ABI */
  sk_load_options lo = {0};
  lo.size = sizeof lo;
  lo.isolate = 1;
  lo.timeout_seconds = 60.0f;
  lo.max_memory_mb = 4096;
  sk_scene* s = NULL;
  sk_error e;
  ck_assert_int_eq(sk_scene_load(at("deep.dae"), &lo, &s, &e), SK_ERR_FORMAT);
  ck_assert_ptr_nonnull(strstr(e.message, "SIGSEGV"));
  ck_assert_ptr_null(s);
}
END_TEST

/* ---- FIFOs and devices ---- */
/* ---- a cut or damaged .md5mesh is refused, not read as fewer meshes (io/md5_check.c) ---- */
static const char k_quad_md5[] =
    "MD5Version 10\ncommandline \"\"\n\nnumJoints 2\nnumMeshes 1\n\njoints {\n"
    "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\t\t//\n\t\"tip\"\t0 ( 0 0 1 ) ( 0 0 0 )\t\t// root\n}\n\n"
    "mesh {\n\tshader \"skin\"\n\tnumverts 4\n\tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 1 1 ) 2 2\n"
    "\tvert 3 ( 0 1 ) 4 1\n\tnumtris 2\n\ttri 0 0 1 2\n\ttri 1 0 2 3\n\tnumweights 5\n"
    "\tweight 0 0 1 ( -0.5 0 0 )\n\tweight 1 0 1 ( 0.5 0 0 )\n\tweight 2 0 0.5 ( 0.5 0 1 )\n"
    "\tweight 3 1 0.5 ( 0.5 0 0 )\n\tweight 4 1 1 ( -0.5 0 0 )\n}\n";

static sk_result load_md5(const char* text, size_t n, sk_error* e) {
  FILE* f = fopen(at("q.md5mesh"), "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(text, 1, n, f), n);
  fclose(f);
  sk_scene* s = NULL;
  sk_result rc = sk_scene_load(at("q.md5mesh"), NULL, &s, e);
  if (rc == SK_OK) ck_assert_uint_eq(sk_scene_mesh_count(s), 1);
  sk_scene_destroy(s);
  return rc;
}

/* The text with the first `from` replaced by `to`. */
static sk_result load_md5_edited(const char* from, const char* to, sk_error* e) {
  static char text[2048];
  const char* at_from = strstr(k_quad_md5, from);
  ck_assert_ptr_nonnull(at_from);
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at_from - k_quad_md5), k_quad_md5, to, at_from + strlen(from));
  return load_md5(text, strlen(text), e);
}

START_TEST(md5mesh_cut_refused) {
  sk_error e;
  ck_assert_int_eq(load_md5(k_quad_md5, sizeof k_quad_md5 - 1, &e), SK_OK);
  /* every cut before the last brace (Assimp read cuts inside the joints as a scene without meshes, exit 0) */
  const size_t last = (size_t)(strrchr(k_quad_md5, '}') - k_quad_md5);
  for (size_t n = 1; n <= last; ++n) {
    sk_result rc = load_md5(k_quad_md5, n, &e);
    ck_assert_msg(rc == SK_ERR_FORMAT, "cut at %zu: %d %s", n, rc, e.message);
    ck_assert_msg(strstr(e.message, "md5mesh"), "cut at %zu: %s", n, e.message);
  }
  /* indices outside their lists and counts the blocks do not meet */
  static const char* const bad[][2] = {
      {"tri 1 0 2 3", "tri 1 0 2 4"}, {"weight 4 1", "weight 4 2"},   {") 4 1", ") 4 2"},
      {"numMeshes 1", "numMeshes 2"}, {"numJoints 2", "numJoints 3"}, {"0 ( 0 0 1 )", "5 ( 0 0 1 )"},
      {"numtris 2", "numtris 3"},     {"tri 1 0", "tri 2 0"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    sk_result rc = load_md5_edited(bad[i][0], bad[i][1], &e);
    ck_assert_msg(rc == SK_ERR_FORMAT && strstr(e.message, "md5mesh"), "%s: %d %s", bad[i][1], rc, e.message);
  }
  /* joints that are each other's parents: Assimp read them as two roots, the hierarchy dropped (session 74); a parent
   * listed after its child is no cycle and reads */
  sk_result rc = load_md5_edited("\"root\"\t-1", "\"root\"\t1", &e);
  ck_assert_msg(rc == SK_ERR_FORMAT && strstr(e.message, "joint 0 is its own ancestor"), "cycle: %d %s", rc, e.message);
  rc = load_md5_edited("\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\t\t//\n\t\"tip\"\t0",
                       "\"root\"\t1 ( 0 0 0 ) ( 0 0 0 )\t\t//\n\t\"tip\"\t-1", &e);
  ck_assert_msg(rc == SK_OK, "forward parent: %d %s", rc, e.message);
  /* a brace on a line of its own: Assimp skips the block (read with success as no mesh) */
  ck_assert_int_eq(load_md5_edited("mesh {", "mesh\n{", &e), SK_ERR_FORMAT);
  /* what writers vary: CRLF line ends, no spaces inside parentheses */
  ck_assert_int_eq(load_md5_edited("\tvert 0", "\r\n\tvert 0", &e), SK_OK);
  ck_assert_int_eq(load_md5_edited("( 0 0 ) 0 1", "(0 0) 0 1", &e), SK_OK);
  /* the CLI: exit 2 and the line */
  ck_assert_int_eq(load_md5(k_quad_md5, 200, &e), SK_ERR_FORMAT);
  ck_assert_int_eq(RUN("info", "q.md5mesh"), 2);
  ck_assert_msg(strstr(g_err, "q.md5mesh") && strstr(g_err, "truncated"), "%s", g_err);
}
END_TEST

START_TEST(fifo_and_devices_refused) {
  ck_assert_int_eq(mkfifo(at("pipe.dae"), 0644), 0);
  ck_assert_int_eq(RUN("info", "pipe.dae"), 2);
  ck_assert_msg(strstr(g_err, "FIFO"), "%s", g_err);
  ck_assert_int_eq(RUN("convert", "pipe.dae", "o.glb"), 2);
  ck_assert_int_eq(RUN("pack", "pipe.dae", "-o", "o.skf"), 2);
  ck_assert_int_eq(RUN("unpack", "pipe.dae"), 2);
  ck_assert_int_eq(RUN("unpack", "/dev/zero"), 2);
  ck_assert_msg(strstr(g_err, "not a regular file"), "%s", g_err);
  ck_assert_int_eq(RUN("info", "/dev/zero"), 2);
  ck_assert_int_eq(RUN("validate", "pipe.dae"), 2); /* named explicitly: an error */
  /* the library itself, isolated or not, refuses before opening for a blocking read */
  sk_load_options lo = {0};
  lo.size = sizeof lo;
  lo.isolate = 1;
  lo.timeout_seconds = 3.0f;
  sk_scene* s = NULL;
  sk_error e;
  ck_assert_int_eq(sk_scene_load(at("pipe.dae"), &lo, &s, &e), SK_ERR_IO);
  ck_assert_int_eq(sk_scene_load(at("pipe.dae"), NULL, &s, &e), SK_ERR_IO);
  ck_assert_int_eq(sk_scene_load("/dev/zero", NULL, &s, &e), SK_ERR_IO);
}
END_TEST

/* ---- disk full: the previous OUT stays byte-identical ---- */
static void full_disk_case(const char* const* argv, const char* out) {
  static const char old[] = "previous output, must survive\n";
  put(at(out), old);
  run_opts o = {0};
  o.fsize = 16; /* smaller than any of these outputs */
  int rc = run(argv, &o);
  ck_assert_msg(rc == 2, "%s %s: exit %d: %s", argv[1], out, rc, g_err);
  ck_assert_msg(same_bytes(at(out), (const unsigned char*)old, sizeof old - 1), "%s changed", out);
  ck_assert_int_eq(temp_files(), 0);
}

START_TEST(disk_full_keeps_old_output) {
  full_disk_case((const char* const[]){"skinkit", "pack", "rig.glb", "-o", "o.skf", "--force", NULL}, "o.skf");
  full_disk_case((const char* const[]){"skinkit", "convert", "rig.glb", "o.dae", "--force", NULL}, "o.dae");
  full_disk_case((const char* const[]){"skinkit", "convert", "rig.glb", "o.fbx", "--force", NULL}, "o.fbx");
  full_disk_case((const char* const[]){"skinkit", "convert", "rig.dae", "o.glb", "--force", NULL}, "o.glb");
  full_disk_case((const char* const[]){"skinkit", "weights", "rig.glb", "o2.dae", "--normalize", "--force", NULL},
                 "o2.dae");
  full_disk_case((const char* const[]){"skinkit", "validate", "rig.glb", "--json", "v.json", NULL}, "v.json");
  /* and without the limit the same commands write */
  ck_assert_int_eq(RUN("pack", "rig.glb", "-o", "o.skf", "--force"), 0);
  ck_assert_int_eq(RUN("validate", "rig.glb", "--json", "v.json"), 0);
  ck_assert_ptr_nonnull(strstr(skt_read_text(at("v.json")), "\"summary\""));
}
END_TEST

/* The names in folder dir, space-separated ("" when empty). */
static const char* listing(const char* dir) {
  static char buf[2048];
  char cmd[600];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | tr '\\n' ' '", dir);
  FILE* p = popen(cmd, "r");
  size_t n = p ? fread(buf, 1, sizeof buf - 1, p) : 0;
  buf[n] = 0;
  if (p) pclose(p);
  return buf;
}

/* A textured model written to .dae / .fbx in another folder: its images go beside the output, and when the output
 * cannot be written (disk full) none of them stays behind (they were left there before) and the old output is
 * unchanged; written, the output has them. */
START_TEST(disk_full_leaves_no_images) {
  ck_assert_int_eq(mkdir(at("sub"), 0755), 0);
  const char* src = SK_SOURCE_DIR "/tests/data/textured_rig.fbx";
  static const char old[] = "previous output, must survive\n";
  const char* outs[2] = {"sub/o.dae", "sub/o.fbx"};
  for (int i = 0; i < 2; ++i) {
    put(at(outs[i]), old);
    run_opts o = {0};
    o.fsize = 1024; /* more than either image (119 and 126 bytes), less than the model */
    int rc = run((const char* const[]){"skinkit", "convert", src, outs[i], "--force", NULL}, &o);
    ck_assert_msg(rc == 2, "%s: exit %d: %s", outs[i], rc, g_err);
    ck_assert(same_bytes(at(outs[i]), (const unsigned char*)old, sizeof old - 1));
    const char* names = listing(at("sub"));
    ck_assert_msg(!strstr(names, ".png") && !strstr(names, ".tmp"), "%s left: %s", outs[i], names);
    unlink(at(outs[i]));
  }
  ck_assert_int_eq(RUN("convert", src, "sub/o.dae"), 0);
  const char* names = listing(at("sub"));
  ck_assert_msg(strstr(names, "textured_rig_albedo.png") && strstr(names, "textured_rig_normal.png"), "%s", names);
}
END_TEST

/* ---- a writer killed mid-write leaves the old OUT or the whole new one ---- */
START_TEST(killed_writer_keeps_old_output) {
  /* .glb: byte-identical from run to run (Collada carries a time stamp) */
  ck_assert_int_eq(RUN("sample", "new.glb", "--segments", "300", "--rings", "300"), 0);
  ck_assert_int_eq(RUN("sample", "big.glb", "--segments", "280", "--rings", "280"), 0);
  size_t nn = 0, no = 0;
  unsigned char* fresh = slurp(at("new.glb"), &nn);
  unsigned char* old = slurp(at("big.glb"), &no);
  ck_assert(fresh && old && nn > (1u << 20));
  skt_rng rng = {12345};
  int killed = 0;
  for (int k = 0; k < 6; ++k) {
    run_opts o = {0};
    o.kill_at = 0.005 + 0.25 * skt_rand_float(&rng); /* the whole run takes about 0.2 s here */
    int rc = run((const char* const[]){"skinkit", "sample", "big.glb", "--segments", "300", "--rings", "300",
                                       "--force", NULL},
                 &o);
    killed += rc == 128 + SIGKILL;
    int is_old = same_bytes(at("big.glb"), old, no), is_new = same_bytes(at("big.glb"), fresh, nn);
    ck_assert_msg(is_old || is_new, "run %d (kill at %.3f s, exit %d): big.glb is neither", k, o.kill_at, rc);
    if (is_new) { /* start over from the old file */
      FILE* f = fopen(at("big.glb"), "wb");
      fwrite(old, 1, no, f);
      fclose(f);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/.*.tmp", g_dir); /* a killed writer may leave its temporary file */
    ck_assert_int_eq(system(cmd), 0);
  }
  ck_assert_int_gt(killed, 0);
  free(fresh);
  free(old);
}
END_TEST

/* SIGTERM / SIGINT / SIGHUP while writing: the old output or the new one, and no temporary file left beside it */
START_TEST(stopped_writer_leaves_nothing) {
  ck_assert_int_eq(RUN("sample", "new.glb", "--segments", "300", "--rings", "300"), 0);
  ck_assert_int_eq(RUN("sample", "big.glb", "--segments", "280", "--rings", "280"), 0);
  size_t nn = 0, no = 0;
  unsigned char* fresh = slurp(at("new.glb"), &nn);
  unsigned char* old = slurp(at("big.glb"), &no);
  skt_rng rng = {777};
  const int sigs[3] = {SIGTERM, SIGINT, SIGHUP};
  int stopped = 0;
  for (int k = 0; k < 9; ++k) {
    run_opts o = {0};
    o.kill_at = 0.005 + 0.25 * skt_rand_float(&rng);
    o.kill_sig = sigs[k % 3];
    int rc = run(
        (const char* const[]){"skinkit", "sample", "big.glb", "--segments", "300", "--rings", "300", "--force", NULL},
        &o);
    stopped += rc == 128 + o.kill_sig;
    ck_assert_msg(rc == 0 || rc == 128 + o.kill_sig, "run %d: exit %d", k, rc);
    int is_old = same_bytes(at("big.glb"), old, no), is_new = same_bytes(at("big.glb"), fresh, nn);
    ck_assert_msg(is_old || is_new, "run %d (signal %d at %.3f s, exit %d): big.glb is neither", k, o.kill_sig,
                  o.kill_at, rc);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '\\.tmp$'", g_dir);
    ck_assert_msg(system(cmd) != 0, "run %d (signal %d at %.3f s): a temporary file was left", k, o.kill_sig,
                  o.kill_at);
  }
  ck_assert_int_gt(stopped, 0);
  free(fresh);
  free(old);
}
END_TEST

/* Outputs that are no regular file are written into, not replaced (a FIFO read by another process: the JSON arrives
 * and the FIFO stays one); a JSON destination that is the command's own OUT is refused before anything is written */
START_TEST(outputs_into_fifos_not_over_them) {
  ck_assert_int_eq(mkfifo(at("out.fifo"), 0644), 0);
  pid_t reader = fork();
  if (reader == 0) { /* the FIFO's contents into fifo.txt */
    int in = open(at("out.fifo"), O_RDONLY), out = open(at("fifo.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char b[4096];
    ssize_t r;
    while ((r = read(in, b, sizeof b)) > 0)
      if (write(out, b, (size_t)r) != r) _exit(1);
    _exit(0);
  }
  ck_assert_int_eq(RUN("info", "rig.glb", "--json=out.fifo"), 0);
  int st = 0;
  waitpid(reader, &st, 0);
  struct stat fs;
  ck_assert(stat(at("out.fifo"), &fs) == 0 && S_ISFIFO(fs.st_mode));
  ck_assert_ptr_nonnull(strstr(skt_read_text(at("fifo.txt")), "{\"schema\":\"skinkit.info\""));
  /* --json over OUT (not written yet) or over a .gltf's buffer */
  ck_assert_int_eq(RUN("convert", "rig.glb", "c.glb", "--json=c.glb"), 2);
  ck_assert_int_eq(access(at("c.glb"), F_OK), -1);
  ck_assert_int_eq(RUN("convert", "rig.glb", "c.gltf", "--json=c.bin"), 2);
  ck_assert_int_eq(access(at("c.gltf"), F_OK), -1);
  /* standard output that cannot take the report: exit 2, not a clean run with nothing printed */
  run_opts o = {0};
  o.out = "/dev/full";
  ck_assert_int_eq(run((const char* const[]){"skinkit", "info", "rig.glb", "--json", NULL}, &o), 2);
  /* report: a piece cut short, or a folder, fails and writes no summary */
  o.out = at("v.jsonl");
  ck_assert_int_eq(run((const char* const[]){"skinkit", "validate", "rig.glb", "--jsonl", NULL}, &o), 0);
  const char* whole = skt_read_text(at("v.jsonl"));
  char cut[64];
  snprintf(cut, sizeof cut, "%.40s\n", whole);
  put(at("cut.jsonl"), cut);
  ck_assert_int_eq(RUN("report", "v.jsonl", "cut.jsonl", "--json", "r.json"), 2);
  ck_assert_int_eq(access(at("r.json"), F_OK), -1);
  ck_assert_int_eq(RUN("report", "v.jsonl", ".", "--json", "r.json"), 2);
  ck_assert_int_eq(RUN("report", "v.jsonl", "--json", "r.json"), 0);
  /* validate: a model name that cannot be opened (a broken link) in a folder is an error of the run */
  ck_assert_int_eq(mkdir(at("tree"), 0755), 0);
  ck_assert_int_eq(symlink("nowhere.glb", at("tree/broken.glb")), 0);
  o.out = at("broken.txt"); /* a row of its own (it was a line on stderr and no row) */
  ck_assert_int_eq(run((const char* const[]){"skinkit", "validate", "tree", NULL}, &o), 2);
  ck_assert_msg(strstr(skt_read_text(at("broken.txt")), "tree/broken.glb: cannot open"), "%s",
                skt_read_text(at("broken.txt")));
}
END_TEST

/* A .gltf whose buffer or image URI climbs out of its folder (../, also percent-encoded) is not read there: a
 * hostile file naming ../../etc/passwd had its bytes carried into the rewritten model */
START_TEST(gltf_uris_stay_in_the_folder) {
  ck_assert_int_eq(mkdir(at("sub"), 0755), 0);
  ck_assert_int_eq(mkdir(at("sub/deep"), 0755), 0);
  ck_assert_int_eq(RUN("convert", "rig.glb", "sub/deep/r.gltf"), 0);
  ck_assert_int_eq(rename(at("sub/deep/r.bin"), at("up.bin")), 0);
  put(at("secret.png"), "SECRET-BYTES-0123456789");
  const char* uris[2] = {"../../up.bin", "%2e%2e/%2E%2E/up.bin"};
  for (int k = 0; k < 2; ++k) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && sed -e 's|\"uri\":\"[^\"]*\"|\"uri\":\"%s\"|' sub/deep/r.gltf > sub/deep/e%d.gltf", g_dir,
             uris[k], k);
    ck_assert_int_eq(system(cmd), 0);
    char name[32];
    snprintf(name, sizeof name, "sub/deep/e%d.gltf", k);
    ck_assert_int_eq(RUN("info", name), 2);
    ck_assert_msg(strstr(g_err, "reaches outside"), "%s", g_err);
  }
  /* an image two folders up: the model is read and rewritten without it, and says so */
  ck_assert_int_eq(rename(at("up.bin"), at("sub/deep/r.bin")), 0);
  char cmd[1400];
  snprintf(cmd, sizeof cmd,
           "cd '%s' && sed -e 's|\"asset\":{|\"images\":[{\"uri\":\"../../secret.png\"}],\"asset\":{|' sub/deep/r.gltf "
           "> sub/deep/i.gltf",
           g_dir);
  ck_assert_int_eq(system(cmd), 0);
  run_opts o = {0};
  o.out = at("info.txt");
  ck_assert_int_eq(run((const char* const[]){"skinkit", "info", "sub/deep/i.gltf", NULL}, &o), 0);
  ck_assert_msg(strstr(skt_read_text(at("info.txt")), "reaches outside"), "%s", skt_read_text(at("info.txt")));
  /* the glTF editor keeps the source's references and refuses one it cannot carry; a writer from the scene leaves
   * the image out */
  ck_assert_int_eq(RUN("convert", "sub/deep/i.gltf", "i.glb"), 2);
  ck_assert_msg(strstr(g_err, "not a file beside the source"), "%s", g_err);
  ck_assert_int_eq(access(at("i.glb"), F_OK), -1);
  ck_assert_int_eq(RUN("convert", "sub/deep/i.gltf", "i.dae"), 0);
  size_t n = 0;
  unsigned char* dae = slurp(at("i.dae"), &n);
  ck_assert_ptr_nonnull(dae);
  ck_assert_ptr_null(memmem(dae, n, "SECRET-BYTES", 12));
  free(dae);
  /* the same image named by its absolute path, percent-encoded ("%2Ftmp%2F...%2Fsecret.png"): it was decoded, read
   * and embedded in the .glb */
  char enc[1200] = "", *e = enc;
  for (const char* c = at("secret.png"); *c && e < enc + sizeof enc - 4; ++c)
    e += *c == '/' ? sprintf(e, "%%2F") : sprintf(e, "%c", *c);
  char sed[4096];
  snprintf(
      sed, sizeof sed,
      "cd '%s' && sed -e 's|\"asset\":{|\"images\":[{\"uri\":\"%s\",\"mimeType\":\"image/png\"}],\"textures\":[{"
      "\"source\":0}],\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],\"asset\":{|' "
      "sub/deep/r.gltf > sub/deep/a.gltf",
      g_dir, enc);
  ck_assert_int_eq(system(sed), 0);
  char info[1100];
  snprintf(info, sizeof info, "%s", at("info2.txt")); /* at()'s buffers turn over: o.out named secret.png by now */
  o.out = info;
  ck_assert_int_eq(run((const char* const[]){"skinkit", "info", "sub/deep/a.gltf", NULL}, &o), 0);
  ck_assert_msg(strstr(skt_read_text(info), "reaches outside"), "%s", skt_read_text(info));
  ck_assert_int_eq(RUN("convert", "sub/deep/a.gltf", "a.glb"), 0);
  unsigned char* glb = slurp(at("a.glb"), &n);
  ck_assert(!glb || !memmem(glb, n, "SECRET-BYTES", 12));
  free(glb);
}
END_TEST

/* ---- same file through links: exit 2, IN untouched ---- */
START_TEST(same_file_refused) {
  size_t n = 0;
  unsigned char* in = slurp(at("rig.glb"), &n);
  ck_assert_int_eq(link(at("rig.glb"), at("hard.glb")), 0);
  ck_assert_int_eq(symlink("rig.glb", at("soft.glb")), 0);
  const char* outs[] = {"hard.glb", "soft.glb"};
  for (int i = 0; i < 2; ++i) {
    const char* out = outs[i];
    ck_assert_int_eq(RUN("convert", "rig.glb", out, "--force"), 2);
    ck_assert_int_eq(RUN("bind", "rig.glb", out, "--force"), 2);
    ck_assert_int_eq(RUN("weights", "rig.glb", out, "--normalize", "--force"), 2);
    ck_assert_int_eq(RUN("pack", "rig.glb", "-o", out, "--force"), 2);
    ck_assert_msg(strstr(g_err, "refusing to overwrite the input"), "%s", g_err);
    ck_assert(same_bytes(at("rig.glb"), in, n));
  }
  free(in);
}
END_TEST

/* ---- folders: symbolic-link loops, special files, one file through two links ---- */
START_TEST(walk_loops_terminate) {
  ck_assert_int_eq(mkdir(at("tree"), 0755), 0);
  ck_assert_int_eq(mkdir(at("tree/sub"), 0755), 0);
  ck_assert_int_eq(symlink(".", at("tree/a")), 0);
  ck_assert_int_eq(symlink(".", at("tree/b")), 0);
  ck_assert_int_eq(symlink("..", at("tree/sub/up")), 0);
  ck_assert_int_eq(link(at("rig.glb"), at("tree/sub/one.glb")), 0);
  ck_assert_int_eq(symlink("sub/one.glb", at("tree/two.glb")), 0);
  ck_assert_int_eq(mkfifo(at("tree/pipe.dae"), 0644), 0);
  run_opts o = {0};
  o.out = at("walk.txt");
  int rc = run((const char* const[]){"skinkit", "validate", "tree", "--timeout", "30", NULL}, &o);
  ck_assert_msg(rc == 0, "exit %d: %s", rc, g_err);
  ck_assert_msg(strstr(skt_read_text(at("walk.txt")), "1 file(s): 1 ok"), "%s", skt_read_text(at("walk.txt")));
  ck_assert_msg(strstr(g_err, "skipped") && strstr(g_err, "FIFO"), "%s", g_err);
}
END_TEST

/* ---- invalid UTF-8 in names: the JSON stays valid ---- */
static int python_json_ok(const char* path) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 -c 'import json,sys; json.loads(open(sys.argv[1],\"rb\").read().decode(\"utf-8\"))' "
           "'%s'",
           path);
  return system(cmd) == 0;
}

START_TEST(json_valid_utf8) {
  if (access("/usr/bin/python3", X_OK) != 0) return;
  const char* dir = "bad\xff\xfe\x01name";
  const char* file = "bad\xff\xfe\x01name/r\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\"q\\.dae";
  ck_assert_int_eq(mkdir(at(dir), 0755), 0);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", at("rig.dae"), at(file));
  ck_assert_int_eq(system(cmd), 0);
  run_opts o = {0};
  o.out = at("info.json");
  ck_assert_int_eq(run((const char* const[]){"skinkit", "info", file, "--json", NULL}, &o), 0);
  ck_assert(python_json_ok(at("info.json")));
  ck_assert_int_eq(RUN("validate", dir, "--json", "v.json"), 0);
  ck_assert(python_json_ok(at("v.json")));
  o.out = at("v.jsonl");
  ck_assert_int_eq(run((const char* const[]){"skinkit", "validate", dir, "--jsonl", NULL}, &o), 0);
  ck_assert(python_json_ok(at("v.jsonl")));
  /* a piece holding raw invalid bytes inside a string: the report is valid UTF-8 all the same */
  put(at("raw.jsonl"),
      "{\"schema\":\"skinkit.validate.file\",\"version\":1,\"path\":\"x\xff\xc0.glb\",\"status\":"
      "\"ok\",\"error\":null,\"meshes\":[]}\n");
  ck_assert_int_eq(RUN("report", "v.jsonl", "raw.jsonl", "--json", "r.json"), 0);
  ck_assert(python_json_ok(at("r.json")));
  ck_assert_ptr_nonnull(strstr(skt_read_text(at("r.json")), "\"file_count\":2"));
}
END_TEST

/* ---- options and limits ---- */
START_TEST(memory_and_time_limits) {
  ck_assert_int_eq(RUN("sample", "m.dae", "--segments", "120", "--rings", "120"), 0);
  if (!SANITIZED) { /* ASan's allocator cannot live under RLIMIT_AS (its shadow mappings fail a CHECK and hang) */
    ck_assert_int_eq(RUN("info", "m.dae", "--max-memory", "4"), 2);
    ck_assert_msg(strstr(g_err, "memory limit of 4 MiB"), "%s", g_err);
    run_opts o = {0};
    o.out = at("v.txt");
    ck_assert_int_eq(run((const char* const[]){"skinkit", "validate", "m.dae", "--max-memory", "4", NULL}, &o), 2);
    ck_assert_msg(strstr(skt_read_text(at("v.txt")), "memory limit of 4 MiB"), "%s", skt_read_text(at("v.txt")));
  }
  ck_assert_int_eq(RUN("info", "m.dae"), 0);
  ck_assert_int_eq(RUN("info", "m.dae", "--no-isolate", "--max-memory", "0", "--timeout", "0"), 0);
  ck_assert_int_eq(RUN("info", "m.dae", "--timeout", "-1"), 2);
  ck_assert_int_eq(RUN("info", "m.dae", "--max-memory", "lots"), 2);
  ck_assert_int_eq(RUN("info", "m.dae", "--timeout"), 2);
}
END_TEST

/* Processes of the CLI's executable whose command line holds word (the CLI and its forked helpers carry its argv);
 * killed when kill_them. */
static int processes_with(const char* word, int kill_them) {
  char exe[4096];
  if (!realpath(SK_CLI_PATH, exe)) return -1;
  DIR* proc = opendir("/proc");
  if (!proc) return -1;
  int count = 0;
  for (struct dirent* d; (d = readdir(proc)) != NULL;) {
    const int pid = atoi(d->d_name);
    if (pid <= 0) continue;
    char path[300], target[4096] = {0}, args[4096];
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    if (readlink(path, target, sizeof target - 1) < 0 || strcmp(target, exe) != 0) continue;
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    FILE* f = fopen(path, "rb");
    const size_t n = f ? fread(args, 1, sizeof args - 1, f) : 0;
    if (f) fclose(f);
    for (size_t k = 0; k < n; ++k) args[k] = args[k] ? args[k] : ' ';
    args[n] = 0;
    if (!strstr(args, word)) continue;
    ++count;
    if (kill_them) kill(pid, SIGKILL);
  }
  closedir(proc);
  return count;
}

/* An OBJ Assimp takes a second or more to read (a 1000 x 1000 grid: 34 MB, 1.5 s on a 2021 Xeon). */
static void put_slow_obj(const char* name) {
  FILE* f = fopen(at(name), "w");
  ck_assert_ptr_nonnull(f);
  enum { N = 1000 };
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) fprintf(f, "v %d %d 0\n", i, j);
  for (int i = 0; i + 1 < N; ++i)
    for (int j = 0; j + 1 < N; ++j) fprintf(f, "f %d %d %d\n", i * N + j + 1, i * N + j + 2, i * N + j + N + 1);
  ck_assert_int_eq(fclose(f), 0);
}

/* A CLI killed by SIGKILL (a CI job's time limit, the OOM killer) takes its isolated reader along: the reader used to
 * run on alone (session 73: Assimp 5.2.5 looping on a Collada controller whose skin is itself, at full speed and with
 * no time limit left). The reader here is reading a large OBJ: since session 74 the controller ring is refused before
 * Assimp reads (collada_controllers_refused), since session 75 an OBJ whose material library is a FIFO no one writes
 * (files_beside_that_are_no_regular_files). */
START_TEST(isolated_reader_dies_with_the_cli) {
  char name[300];
  snprintf(name, sizeof name, "%s.obj", strrchr(g_dir, '/') + 1); /* unique: the test folder's random name */
  put_slow_obj(name);
  run_opts o = {0};
  o.kill_at = 0.3; /* the reader is reading by then */
  ck_assert_int_eq(run((const char* const[]){"skinkit", "info", name, "--timeout", "120", NULL}, &o), 128 + SIGKILL);
  int left = 0;
  for (int k = 0; k < 40 && (left = processes_with(name, 0)) > 0; ++k) usleep(50000);
  if (left) processes_with(name, 1);
  ck_assert_msg(left == 0, "%d process(es) reading %s outlived the killed CLI", left, name);
  unlink(at(name));
}
END_TEST

/* Assimp opens files beside the one it reads: an OBJ's material library, an Ogre mesh's skeleton, an .md5mesh's
 * .md5anim. One that was a FIFO kept the command in open() until the time limit (60 s, then exit 2); a character
 * device read without end. Such a file is refused at once, by name; a folder is a missing file, as before. */
START_TEST(files_beside_that_are_no_regular_files) {
  static const char obj[] = "mtllib %s\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  char text[200];
  ck_assert_int_eq(mkfifo(at("pipe.mtl"), 0600), 0);
  ck_assert_int_eq(symlink("/dev/zero", at("zero.mtl")), 0);
  ck_assert_int_eq(mkdir(at("dir.mtl"), 0700), 0);
  static const char *const libs[] = {"pipe.mtl", "zero.mtl"}, *const kinds[] = {"a FIFO", "a character device"};
  for (int i = 0; i < 2; ++i) {
    snprintf(text, sizeof text, obj, libs[i]);
    put(at("m.obj"), text);
    const time_t t0 = time(NULL);
    ck_assert_msg(RUN("info", "m.obj", "--timeout", "50") == 2, "%s: %.400s", libs[i], g_err);
    ck_assert_msg(strstr(g_err, "m.obj") && strstr(g_err, libs[i]) && strstr(g_err, kinds[i]), "%.400s", g_err);
    ck_assert_msg(time(NULL) - t0 < 20, "%s: %lds", libs[i], (long)(time(NULL) - t0));
  }
  snprintf(text, sizeof text, obj, "dir.mtl");
  put(at("m.obj"), text);
  ck_assert_msg(RUN("info", "m.obj") == 0, "%.400s", g_err);
  /* an Ogre 1.10 mesh (read through a copy in memory) whose skeleton is a FIFO */
  FILE *in = fopen(skt_data("ogre_rig_v110.mesh"), "rb"), *out = fopen(at("ogre_rig_v110.mesh"), "wb");
  ck_assert(in && out);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
  ck_assert(fclose(in) == 0 && fclose(out) == 0);
  ck_assert_int_eq(mkfifo(at("ogre_rig.skeleton"), 0600), 0);
  ck_assert_msg(RUN("info", "ogre_rig_v110.mesh", "--timeout", "50") == 2, "%.400s", g_err);
  ck_assert_msg(strstr(g_err, "ogre_rig.skeleton") && strstr(g_err, "a FIFO"), "%.400s", g_err);
}
END_TEST

/* A Collada document whose controllers (library_controllers' body) are given, one node instancing "c". */
static void put_controllers(const char* name, const char* controllers) {
  char text[2048];
  snprintf(text, sizeof text,
           "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<COLLADA xmlns=\"http://www.collada.org/2005/11/"
           "COLLADASchema\" version=\"1.4.1\">\n<library_controllers>%s</library_controllers>\n<library_visual_"
           "scenes><visual_scene id=\"s\"><node id=\"n\"><instance_controller url=\"#c\"/></node></visual_scene>"
           "</library_visual_scenes>\n<scene><instance_visual_scene url=\"#s\"/></scene></COLLADA>\n",
           controllers);
  put(at(name), text);
}

/* Assimp 5.2.5 follows a skin's source from controller to controller and never stops on a ring: a skin of itself (the
 * 400-byte file of session 73's audit) kept every command waiting for the time limit (60 s, validate 300 s), then
 * exit 2 for a time-out. Such a ring is refused before Assimp reads, at once, naming the controller; the rings Assimp
 * reads (through a morph, which it does not follow; a cyclic controller replaced by a later one of its id) are read as
 * before, and so is a ring inside a comment. */
START_TEST(collada_controllers_refused) {
  static const char* const rings[] = {
      "<controller id=\"c\"><skin source=\"#c\"></skin></controller>",
      "<controller id='c'><skin source = '#c'></skin></controller>",       /* either quote, blanks around = */
      "<controller id=\"c\"><skin source=\"#&#99;\"></skin></controller>", /* a character reference */
      "<controller id=\"c\"><skin source=\"#d\"/></controller><controller id=\"d\"><skin source=\"#e\"/>"
      "</controller><controller id=\"e\"><skin source=\"#d\"/></controller>",
      "<controller id=\"c\"><skin source=\"#g\"/></controller><controller id=\"c\"><skin source=\"#c\"/>"
      "</controller>"};
  for (size_t i = 0; i < sizeof rings / sizeof rings[0]; ++i) {
    put_controllers("ring.dae", rings[i]);
    const time_t t0 = time(NULL);
    ck_assert_msg(RUN("info", "ring.dae", "--timeout", "50") == 2, "ring %zu: %.400s", i, g_err);
    ck_assert_msg(strstr(g_err, "ring.dae: controller") && strstr(g_err, "takes its mesh from itself"),
                  "ring %zu: %.400s", i, g_err);
    ck_assert_msg(time(NULL) - t0 < 20, "ring %zu: %lds", i, (long)(time(NULL) - t0));
  }
  static const char* const read[] = {
      "<controller id=\"c\"><morph source=\"#c\"></morph></controller>",
      "<controller id=\"c\"><skin source=\"#d\"/></controller><controller id=\"d\"><morph source=\"#c\"/>"
      "</controller>",
      "<controller id=\"c\"><skin source=\"#c\"/></controller><controller id=\"c\"><skin source=\"#g\"/>"
      "</controller>",
      "<!-- <controller id=\"c\"><skin source=\"#c\"/></controller> --><controller id=\"c\"><skin "
      "source=\"#g\"/></controller>"};
  for (size_t i = 0; i < sizeof read / sizeof read[0]; ++i) {
    put_controllers("read.dae", read[i]);
    ck_assert_msg(RUN("info", "read.dae", "--timeout", "50") == 0, "read %zu: %.400s", i, g_err);
  }
}
END_TEST

/* ---- sk_write_file_atomic ---- */
START_TEST(atomic_write_api) {
  put(at("a.bin"), "old");
  sk_error e;
  ck_assert_int_eq(sk_write_file_atomic(at("a.bin"), "new bytes", 9, &e), SK_OK);
  ck_assert_str_eq(skt_read_text(at("a.bin")), "new bytes");
  ck_assert_int_eq(sk_write_file_atomic(at("a.bin"), NULL, 0, &e), SK_OK);
  ck_assert_str_eq(skt_read_text(at("a.bin")), "");
  ck_assert_int_eq(mkdir(at("d"), 0755), 0);
  ck_assert_int_eq(sk_write_file_atomic(at("d"), "x", 1, &e), SK_ERR_IO); /* a folder is not replaced */
  ck_assert_int_eq(sk_write_file_atomic(at("nope/x.bin"), "x", 1, &e), SK_ERR_IO);
  ck_assert_int_eq(temp_files(), 0);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("hostile");
  TCase* tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, crash_contained);
  tcase_add_test(tc, fifo_and_devices_refused);
  tcase_add_test(tc, md5mesh_cut_refused);
  tcase_add_test(tc, disk_full_keeps_old_output);
  tcase_add_test(tc, disk_full_leaves_no_images);
  tcase_add_test(tc, killed_writer_keeps_old_output);
  tcase_add_test(tc, stopped_writer_leaves_nothing);
  tcase_add_test(tc, outputs_into_fifos_not_over_them);
  tcase_add_test(tc, gltf_uris_stay_in_the_folder);
  tcase_add_test(tc, same_file_refused);
  tcase_add_test(tc, walk_loops_terminate);
  tcase_add_test(tc, json_valid_utf8);
  tcase_add_test(tc, memory_and_time_limits);
  tcase_add_test(tc, atomic_write_api);
  tcase_add_test(tc, isolated_reader_dies_with_the_cli);
  tcase_add_test(tc, files_beside_that_are_no_regular_files);
  tcase_add_test(tc, collada_controllers_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
