/* sk_testutil.c - shared helpers for tests and benchmarks. */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "sk_testutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "skinkit.h"

const char* skt_assets_dir(void) {
  static int warned = 0;
  const char* d = getenv("SKINKIT_ASSETS");
  if (!d || !d[0]) {
    if (!warned++) fprintf(stderr, "SKINKIT_ASSETS not set: corpus tests skipped (set it to ../shared/assets)\n");
    return NULL;
  }
  struct stat st;
  if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
    if (!warned++) fprintf(stderr, "SKINKIT_ASSETS=%s is not a directory: corpus tests FAIL\n", d);
    return NULL;
  }
  return d;
}

int skt_assets_required(void) {
  const char* d = getenv("SKINKIT_ASSETS");
  return d && d[0];
}

const char* skt_asset(const char* relative) {
  static char buf[4096];
  const char* d = skt_assets_dir();
  snprintf(buf, sizeof buf, "%s/%s", d ? d : ".", relative);
  return buf;
}

void skt_triangle_scene(sk_skeleton** sk, sk_scene** scene, sk_mesh_desc* d) {
  static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  static const uint32_t idx[3] = {0, 1, 2};
  static const int32_t parents[] = {SK_NO_PARENT};
  sk_skeleton_desc sd = {sizeof sd, 1, NULL, parents, NULL, NULL, NULL, NULL};
  ck_assert_int_eq(sk_skeleton_create(&sd, sk, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_create(*sk, scene, NULL), SK_OK);
  memset(d, 0, sizeof *d);
  d->size = sizeof *d;
  d->vertex_count = 3;
  d->positions = pos;
  d->indices = idx;
  d->index_count = 3;
}

static int ends_with(const char* s, const char* tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n >= k && strcasecmp(s + n - k, tail) == 0;
}

int skt_implicit_fbx_root(const char* source, const char* ext, const sk_skeleton* ka, const sk_skeleton* kb,
                          uint32_t j) {
  uint32_t at;
  const int gltf = ends_with(ext, "glb") || ends_with(ext, "gltf");
  if (j != 0 || sk_skeleton_find_joint(kb, sk_skeleton_joint_name(ka, 0), &at) == SK_OK) return 0;
  if (ends_with(source, ".dae")) return gltf || ends_with(ext, "fbx"); /* the <visual_scene> (session 51) */
  return ends_with(source, ".fbx") && (gltf || ends_with(ext, "dae")) &&
         !strcmp(sk_skeleton_joint_name(ka, 0), "RootNode");
}

/* Folders to remove when the process that made them exits (skt_tmpdir_remove_at_exit). A forked test inherits its
 * parent's list and handler: each entry is removed by its own process only. */
enum { AT_EXIT_MAX = 64 };
static struct {
  pid_t pid;
  char dir[256];
} g_at_exit[AT_EXIT_MAX];
static int g_at_exit_n;

static void remove_own_dirs(void) {
  for (int i = 0; i < g_at_exit_n; ++i)
    if (g_at_exit[i].pid == getpid()) skt_tmpdir_remove(g_at_exit[i].dir);
}

void skt_tmpdir_remove_at_exit(const char* dir) {
  static pid_t registered; /* the handler, once per process (fork keeps the parent's, which serves the child) */
  const char* keep = getenv("SKT_KEEP_TMP");
  if ((keep && keep[0] == '1') || g_at_exit_n == AT_EXIT_MAX || strlen(dir) >= sizeof g_at_exit[0].dir) return;
  if (!registered && atexit(remove_own_dirs) == 0) registered = getpid();
  g_at_exit[g_at_exit_n].pid = getpid();
  snprintf(g_at_exit[g_at_exit_n++].dir, sizeof g_at_exit[0].dir, "%s", dir);
}

void skt_tmpdir_make(char* dir, size_t n, const char* tag) {
  snprintf(dir, n, "/tmp/skinkit_%s_XXXXXX", tag);
  ck_assert_ptr_nonnull(mkdtemp(dir));
  skt_tmpdir_remove_at_exit(dir);
}

void skt_tmpdir_remove(const char* dir) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

const char* skt_data(const char* name) {
  static char buf[4][4096];
  static int k;
  k = (k + 1) % 4;
  const char* f = __FILE__; /* <repo>/tests/util/sk_testutil.c */
  const char* slash = strrchr(f, '/');
  snprintf(buf[k], sizeof buf[k], "%.*s/../data/%s", slash ? (int)(slash - f) : 1, slash ? f : ".", name);
  return buf[k];
}

uint32_t skt_rand_u32(skt_rng* r) {
  uint64_t x = r->s ? r->s : 0x9E3779B97F4A7C15ull;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  r->s = x;
  return (uint32_t)(x >> 32);
}

float skt_rand_float(skt_rng* r) { return (skt_rand_u32(r) >> 8) * (1.0f / 16777216.0f); }

float skt_rand_range(skt_rng* r, float lo, float hi) { return lo + (hi - lo) * skt_rand_float(r); }

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

double skt_median(double* v, int n, double* lo, double* hi) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  if (lo) *lo = v[0];
  if (hi) *hi = v[n - 1];
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int skt_run_suite(Suite* suite) {
  SRunner* sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int skt_run_cli(const char* dir, const char* cli, const char* args, const char* err_path, char* out, size_t cap) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>%s", dir, cli, args, err_path);
  FILE* p = popen(cmd, "r");
  if (!p) return -1;
  size_t n = cap ? fread(out, 1, cap - 1, p) : 0;
  if (cap) out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char* skt_read_text(const char* path) {
  static char buf[1 << 16];
  FILE* f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = 0;
  if (f) fclose(f);
  return buf;
}


char* skt_base64(const uint8_t* p, size_t n) {
  static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char* o = malloc(n / 3 * 4 + 8);
  if (!o) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    o[k++] = a[v >> 18 & 63];
    o[k++] = a[v >> 12 & 63];
    o[k++] = i + 1 < n ? a[v >> 6 & 63] : '=';
    o[k++] = i + 2 < n ? a[v & 63] : '=';
  }
  o[k] = 0;
  return o;
}

void skt_rot_about(int axis, float angle, float px, float m[16]) {
  memset(m, 0, 16 * sizeof(float));
  float c = cosf(angle), s = sinf(angle);
  m[15] = 1.0f;
  if (axis == 0) {
    m[0] = 1.0f;
    m[5] = c;
    m[6] = s;
    m[9] = -s;
    m[10] = c;
  } else {
    m[0] = c;
    m[1] = s;
    m[4] = -s;
    m[5] = c;
    m[10] = 1.0f;
  }
  m[12] = px - m[0] * px; /* t = p - R p for p = (px, 0, 0) */
  m[13] = -m[1] * px;
  m[14] = -m[2] * px;
}

unsigned char* skt_skf_encode(const sk_skf_encode_desc* d, size_t* out_size) {
  size_t bound = sk_skf_encode_bound(d);
  ck_assert_uint_gt(bound, 0);
  unsigned char* buf = malloc(bound);
  ck_assert_ptr_nonnull(buf);
  sk_error err;
  ck_assert_msg(sk_skf_encode(d, buf, bound, out_size, &err) == SK_OK, "encode: %s", err.message);
  ck_assert_uint_le(*out_size, bound);
  return buf;
}
