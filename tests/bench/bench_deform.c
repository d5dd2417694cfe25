/* bench_deform.c - LBS / DQS / COR throughput measured so that it cannot flatter itself.
 *
 * Every figure is a ratio taken inside one round: each round runs every contender of a case once (kernel jobs,
 * a memcpy of the same number of bytes, and our own ozz-style reference loop), in an order shuffled
 * from round to round, so a busy machine slows all of them alike. N rounds; the table prints the median and the
 * min-max of each ratio over the rounds. A case whose working set fits the last-level cache (sysfs, else 8 MiB)
 * is labelled "cache" and not compared with memory-copy bandwidth.
 *
 * Data: u16 joints + f32 weights (the glTF-style packed layout), 64 rigid joints (a palette of random rotations,
 * and for the "posed" lines one of a posed character, see posed_rigid), random normalized weights,
 * tightly packed float32 streams. Bytes of a job = positions (and normals) in and out + joints + weights; the
 * copy moves the same bytes (half read, half written).
 *
 * Reference loop ("ref"): what an engine's CPU skinning loop (ozz-animation's SkinningJob style) does, in plain
 * C compiled here: AoS vertices {position, normal, 4 u16 joints, 4 f32 weights} -> {position, normal}, 4x4
 * matrices blended with 4 weights, normals transformed by the blended matrix, not renormalized. Built for AVX2 +
 * FMA (function target attribute) when the CPU has them, so the yardstick gets the same ISA as our AVX2 tier.
 *
 * The kernel tier of a contender is chosen with SKINKIT_KERNEL (docs/cpu_dispatch.md), set and unset in-process.
 * COR (optimized centres of rotation) takes the 16-wide path of the avx512 kernel (K = 1, uniform signs or the
 * hemisphere table: the random and posed palettes here), the 8-wide path of the avx2 kernel and the generic loop
 * of the other tiers; its row uses the vertices as their own centres (the cost does not depend on the values). The precompute (sk_cor_compute) is timed on its own, on
 * generated cylinders, with the median of the rounds.
 * Prints "BENCH <id> <value> <unit>" lines (medians). Asserts nothing. --headline: the 1M-vertex headline ratios only.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skinkit.h"

#if defined(SK_HAVE_OPENMP)
#include <omp.h>
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t g_rng = 0x243F6A8885A308D3ull;
static uint32_t rnd_u32(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 16);
}
static float rnd(float lo, float hi) { return lo + (hi - lo) * (float)(rnd_u32() & 0xffffff) / 16777216.0f; }

static int max_threads(void) {
#if defined(SK_HAVE_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* Last-level cache size from sysfs (the largest cpu0 cache index size), else 8 MiB. */
static size_t llc_bytes(void) {
  size_t best = 0;
  for (int i = 0; i < 8; ++i) {
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    FILE* f = fopen(path, "r");
    if (!f) continue;
    unsigned long n = 0;
    char unit = 0;
    if (fscanf(f, "%lu%c", &n, &unit) >= 1) {
      size_t b = (size_t)n * (unit == 'K' ? 1024u : unit == 'M' ? 1048576u : 1u);
      if (b > best) best = b;
    }
    fclose(f);
  }
  return best ? best : (size_t)8 << 20;
}

/* ---------------------------------------------------------------------------------------------- data */

typedef struct ref_in {
  float p[3], n[3];
  uint16_t j[4];
  float w[4];
} ref_in;
typedef struct ref_out {
  float p[3], n[3];
} ref_out;

typedef struct scene {
  size_t V, J;
  uint32_t K;
  float* palette;
  float* posed; /* the palette of a posed character (posed_rigid) */
  uint16_t* joints;
  float* weights;
  float *pin, *nin, *pout, *nout;
  float* centers; /* COR: a copy of pin */
  ref_in* rin;   /* K == 4 only */
  ref_out* rout;
} scene;

static void rigid_from_quat(const float q[4], float m[16]) {
  float x = q[0], y = q[1], z = q[2], w = q[3];
  float r[16] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0,
                 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0,
                 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0,
                 rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), 1};
  memcpy(m, r, sizeof r);
}

static void random_unit_quat(float q[4]) {
  float l = 0.0f;
  while (!(l > 1e-3f)) {
    for (int i = 0; i < 4; ++i) q[i] = rnd(-1, 1);
    l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  }
  for (int i = 0; i < 4; ++i) q[i] /= l;
}

/* A joint of a random palette: any rotation (the worst case for DQS and COR: their hemisphere signs need a pivot) */
static void random_rigid(float m[16]) {
  float q[4];
  random_unit_quat(q);
  rigid_from_quat(q, m);
}

/* A joint of a posed character: the character turned by g, the joint turned up to 90 degrees from its bind pose
 * about a random axis (then one sign per joint explains every pair's hemisphere test; skc_deform_ctx.dq_uni). */
static void posed_rigid(const float g[4], float m[16]) {
  float a[3], l = 0.0f;
  while (!(l > 1e-3f)) {
    for (int i = 0; i < 3; ++i) a[i] = rnd(-1, 1);
    l = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  }
  const float h = 0.5f * rnd(0.0f, 1.5707963f), sh = sinf(h) / l;
  const float r[4] = {a[0] * sh, a[1] * sh, a[2] * sh, cosf(h)};
  const float q[4] = {g[3] * r[0] + g[0] * r[3] + g[1] * r[2] - g[2] * r[1],
                      g[3] * r[1] - g[0] * r[2] + g[1] * r[3] + g[2] * r[0],
                      g[3] * r[2] + g[0] * r[1] - g[1] * r[0] + g[2] * r[3],
                      g[3] * r[3] - g[0] * r[0] - g[1] * r[1] - g[2] * r[2]}; /* g r */
  rigid_from_quat(q, m);
}

static void* xmalloc(size_t n) {
  void* p = malloc(n);
  if (!p) {
    fprintf(stderr, "bench_deform: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  memset(p, 0, n); /* faulted in before timing */
  return p;
}

static void scene_make(scene* s, size_t V, uint32_t K) {
  memset(s, 0, sizeof *s);
  s->V = V;
  s->J = 64;
  s->K = K;
  s->palette = xmalloc(16 * s->J * sizeof(float));
  for (size_t j = 0; j < s->J; ++j) random_rigid(s->palette + 16 * j);
  s->posed = xmalloc(16 * s->J * sizeof(float));
  float g[4];
  random_unit_quat(g);
  for (size_t j = 0; j < s->J; ++j) posed_rigid(g, s->posed + 16 * j);
  s->joints = xmalloc(V * K * sizeof(uint16_t));
  s->weights = xmalloc(V * K * sizeof(float));
  s->pin = xmalloc(3 * V * sizeof(float));
  s->nin = xmalloc(3 * V * sizeof(float));
  s->pout = xmalloc(3 * V * sizeof(float));
  s->nout = xmalloc(3 * V * sizeof(float));
  for (size_t v = 0; v < V; ++v) {
    float sum = 0;
    for (uint32_t k = 0; k < K; ++k) {
      s->joints[v * K + k] = (uint16_t)(rnd_u32() % s->J);
      s->weights[v * K + k] = rnd(0.05f, 1.0f);
      sum += s->weights[v * K + k];
    }
    for (uint32_t k = 0; k < K; ++k) s->weights[v * K + k] /= sum;
    for (int i = 0; i < 3; ++i) s->pin[3 * v + i] = rnd(-1, 1);
    float n[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1) + 2.0f};
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3; ++i) s->nin[3 * v + i] = n[i] / l;
  }
  s->centers = xmalloc(3 * V * sizeof(float));
  memcpy(s->centers, s->pin, 3 * V * sizeof(float));
  if (K == 4) {
    s->rin = xmalloc(V * sizeof(ref_in));
    s->rout = xmalloc(V * sizeof(ref_out));
    for (size_t v = 0; v < V; ++v) {
      memcpy(s->rin[v].p, s->pin + 3 * v, 12);
      memcpy(s->rin[v].n, s->nin + 3 * v, 12);
      memcpy(s->rin[v].j, s->joints + 4 * v, 8);
      memcpy(s->rin[v].w, s->weights + 4 * v, 16);
    }
  }
}

static void scene_free(scene* s) {
  free(s->palette);
  free(s->posed);
  free(s->joints);
  free(s->weights);
  free(s->pin);
  free(s->nin);
  free(s->pout);
  free(s->nout);
  free(s->centers);
  free(s->rin);
  free(s->rout);
}

static double job_bytes(const scene* s, int normals) {
  return (double)s->V * ((normals ? 48.0 : 24.0) + s->K * (2.0 + 4.0));
}

/* ---------------------------------------------------------------------------------------------- reference */

#define REF_BODY                                                                                    \
  for (size_t v = b; v < e; ++v) {                                                                  \
    const ref_in* s = in + v;                                                                       \
    const float* m0 = pal + 16 * (size_t)s->j[0];                                                   \
    const float* m1 = pal + 16 * (size_t)s->j[1];                                                   \
    const float* m2 = pal + 16 * (size_t)s->j[2];                                                   \
    const float* m3 = pal + 16 * (size_t)s->j[3];                                                   \
    float m[16];                                                                                    \
    for (int i = 0; i < 16; ++i) m[i] = s->w[0] * m0[i] + s->w[1] * m1[i] + s->w[2] * m2[i] + s->w[3] * m3[i]; \
    ref_out* o = out + v;                                                                           \
    for (int r = 0; r < 3; ++r) {                                                                   \
      o->p[r] = m[r] * s->p[0] + m[4 + r] * s->p[1] + m[8 + r] * s->p[2] + m[12 + r];               \
      o->n[r] = m[r] * s->n[0] + m[4 + r] * s->n[1] + m[8 + r] * s->n[2];                           \
    }                                                                                               \
  }

static void ref_plain(const ref_in* in, ref_out* out, size_t b, size_t e, const float* pal) { REF_BODY }

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HAVE_REF_AVX2 1
__attribute__((target("avx2,fma"))) static void ref_avx2(const ref_in* in, ref_out* out, size_t b, size_t e,
                                                         const float* pal) {
  REF_BODY
}
#endif

static int g_ref_avx2;

static void ref_run(const scene* s, int threads) {
  void (*fn)(const ref_in*, ref_out*, size_t, size_t, const float*) = ref_plain;
#ifdef HAVE_REF_AVX2
  if (g_ref_avx2) fn = ref_avx2;
#endif
#if defined(SK_HAVE_OPENMP)
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    {
      int id = omp_get_thread_num(), n = omp_get_num_threads();
      size_t per = (s->V + (size_t)n - 1) / (size_t)n;
      size_t b = per * (size_t)id, e = b + per < s->V ? b + per : s->V;
      if (b < e) fn(s->rin, s->rout, b, e, s->palette);
    }
    return;
  }
#else
  (void)threads;
#endif
  fn(s->rin, s->rout, 0, s->V, s->palette);
}

/* ---------------------------------------------------------------------------------------------- contenders */

static char *g_csrc, *g_cdst;

static void copy_run(size_t bytes, int threads) {
#if defined(SK_HAVE_OPENMP)
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    {
      int id = omp_get_thread_num(), n = omp_get_num_threads();
      size_t per = (bytes / (size_t)n + 4095) & ~(size_t)4095;
      size_t b = per * (size_t)id, e = b + per < bytes ? b + per : bytes;
      if (b < e) memcpy(g_cdst + b, g_csrc + b, e - b);
    }
    return;
  }
#else
  (void)threads;
#endif
  memcpy(g_cdst, g_csrc, bytes);
}

typedef enum { C_COPY, C_REF, C_JOB } ckind;
typedef struct contender {
  ckind kind;
  int method, normals, threads;
  uint32_t flags;
  const char* kernel; /* SKINKIT_KERNEL value, NULL = the default */
  int posed;          /* the posed palette instead of the random one */
} contender;

static void set_kernel(const char* k) {
  if (k)
    setenv("SKINKIT_KERNEL", k, 1);
  else
    unsetenv("SKINKIT_KERNEL");
}

static void job_run(const scene* s, const contender* c) {
  sk_deform_job j;
  memset(&j, 0, sizeof j);
  j.size = sizeof j;
  j.method = (uint32_t)c->method;
  j.flags = c->flags;
  j.threads = (uint32_t)c->threads;
  j.vertex_count = s->V;
  j.palette = c->posed ? s->posed : s->palette;
  j.joint_count = s->J;
  j.influences = s->K;
  j.joint_type = SK_TYPE_U16;
  j.weight_type = SK_TYPE_F32;
  j.joints = s->joints;
  j.weights = s->weights;
  j.in_positions = s->pin;
  j.out_positions = s->pout;
  j.centers = s->centers;
  if (c->normals) {
    j.in_normals = s->nin;
    j.out_normals = s->nout;
  }
  sk_error e;
  if (sk_deform_run(&j, &e) != SK_OK) {
    fprintf(stderr, "bench_deform: deform failed: %s\n", e.message);
    exit(1);
  }
}

static double run_once(const scene* s, const contender* c, size_t copy_bytes) {
  set_kernel(c->kernel);
  double t0 = now();
  if (c->kind == C_COPY)
    copy_run(copy_bytes, c->threads);
  else if (c->kind == C_REF)
    ref_run(s, c->threads);
  else
    job_run(s, c);
  double t = now() - t0;
  set_kernel(NULL);
  return t;
}

/* times[r * n + i]: round r, contender i; one warm-up run each, then each round in a fresh random order (a
 * rotating order would keep every contender behind the same neighbour, whose cache and store state it inherits) */
static void measure(const scene* s, const contender* cs, int n, int rounds, size_t copy_bytes, double* times) {
  int order[32];
  for (int i = 0; i < n; ++i) {
    order[i] = i;
    run_once(s, &cs[i], copy_bytes);
  }
  for (int r = 0; r < rounds; ++r) {
    for (int i = n - 1; i > 0; --i) {
      int k = (int)(rnd_u32() % (uint32_t)(i + 1)), t = order[i];
      order[i] = order[k];
      order[k] = t;
    }
    for (int k = 0; k < n; ++k) times[r * n + order[k]] = run_once(s, &cs[order[k]], copy_bytes);
  }
}

static int cmp_d(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

typedef struct stat3 {
  double med, lo, hi;
} stat3;

/* over rounds: times[r][num] / times[r][den] (den < 0: times[r][num] alone) */
static stat3 ratio_stat(const double* times, int n, int rounds, int num, int den) {
  double v[64];
  for (int r = 0; r < rounds; ++r) v[r] = times[r * n + num] / (den < 0 ? 1.0 : times[r * n + den]);
  qsort(v, (size_t)rounds, sizeof v[0], cmp_d);
  stat3 st = {rounds & 1 ? v[rounds / 2] : 0.5 * (v[rounds / 2 - 1] + v[rounds / 2]), v[0], v[rounds - 1]};
  return st;
}

static void print_stat(const char* label, stat3 st, const char* unit) {
  printf("  %-54s %8.3f  [%.3f - %.3f] %s\n", label, st.med, st.lo, st.hi, unit);
}

static void bench_line(const char* id, double v, const char* unit) { printf("BENCH %s %.3f %s\n", id, v, unit); }

/* ---------------------------------------------------------------------------------------------- table */

/* One row per (method, data, threads): median M vertices/s with its range, and the median speed relative to
 * the copy of the same bytes in the same rounds (memory-sized cases only). */
static void table_case(const scene* s, int nt_all, size_t llc, int rounds) {
  contender cs[16];
  int n = 0;
  int tl[2] = {1, nt_all};
  int nthr = nt_all > 1 ? 2 : 1;
  for (int ti = 0; ti < nthr; ++ti) {
    cs[n++] = (contender){C_COPY, 0, 0, tl[ti], 0, NULL, 0};
    cs[n++] = (contender){C_COPY, 0, 1, tl[ti], 0, NULL, 0};
    for (int method = 0; method < 2; ++method)
      for (int normals = 0; normals < 2; ++normals) cs[n++] = (contender){C_JOB, method, normals, tl[ti], 0, NULL, 0};
  }
  /* the two copies of a thread count have the byte counts of p and p+n: run copies per data kind */
  for (int normals = 0; normals < 2; ++normals) {
    double bytes = job_bytes(s, normals);
    int cached = bytes <= (double)llc;
    contender sub[8];
    int m = 0;
    for (int i = 0; i < n; ++i)
      if (cs[i].normals == normals) sub[m++] = cs[i];
    double* st = xmalloc((size_t)rounds * (size_t)m * sizeof(double));
    measure(s, sub, m, rounds, (size_t)(bytes / 2), st);
    for (int i = 0; i < m; ++i) {
      if (sub[i].kind != C_JOB) continue;
      int copy = -1;
      for (int k = 0; k < m; ++k)
        if (sub[k].kind == C_COPY && sub[k].threads == sub[i].threads) copy = k;
      stat3 t = ratio_stat(st, m, rounds, i, -1);
      stat3 rc = ratio_stat(st, m, rounds, copy, i); /* copy time / job time = share of copy speed */
      char of_copy[48];
      if (cached)
        snprintf(of_copy, sizeof of_copy, "cache (%.1f MB <= LLC)", bytes / 1e6);
      else
        snprintf(of_copy, sizeof of_copy, "%.2f [%.2f-%.2f]", rc.med, rc.lo, rc.hi);
      printf("%-4s %-8zu %2u %-4s %3d %9.1f [%7.1f-%7.1f] %s\n", sub[i].method ? "DQS" : "LBS", s->V, s->K,
             normals ? "p+n" : "p", sub[i].threads, (double)s->V / t.med / 1e6, (double)s->V / t.hi / 1e6,
             (double)s->V / t.lo / 1e6, of_copy);
    }
    free(st);
  }
}

/* ---------------------------------------------------------------------------------------------- headline */

enum {
  H_COPY, H_REF, H_LBS, H_DQS, H_LBS_NR, H_DQS_NR, H_COR, H_DQS_P, H_COR_P,
  H_LBS2, H_DQS2, H_LBS2_NR, H_DQS2_NR, H_DQS2_P, H_COR2, H_COR2_P, H_N
};

static void headline(int rounds, int have_avx2, size_t llc) {
  scene s;
  scene_make(&s, 1000000, 4);
  const uint32_t NR = SK_DEFORM_NO_RENORMALIZE;
  const char* a2 = have_avx2 ? "avx2" : NULL;
  contender cs[H_N] = {
      [H_COPY] = {C_COPY, 0, 1, 1, 0, NULL, 0},       [H_REF] = {C_REF, 0, 1, 1, 0, NULL, 0},
      [H_LBS] = {C_JOB, 0, 1, 1, 0, NULL, 0},         [H_DQS] = {C_JOB, 1, 1, 1, 0, NULL, 0},
      [H_LBS_NR] = {C_JOB, 0, 1, 1, NR, NULL, 0},     [H_DQS_NR] = {C_JOB, 1, 1, 1, NR, NULL, 0},
      [H_COR] = {C_JOB, SK_DEFORM_COR, 1, 1, 0, NULL, 0},
      [H_DQS_P] = {C_JOB, 1, 1, 1, 0, NULL, 1},    [H_COR_P] = {C_JOB, SK_DEFORM_COR, 1, 1, 0, NULL, 1},
      [H_DQS2_P] = {C_JOB, 1, 1, 1, 0, a2, 1},
      [H_LBS2] = {C_JOB, 0, 1, 1, 0, a2, 0},          [H_DQS2] = {C_JOB, 1, 1, 1, 0, a2, 0},
      [H_LBS2_NR] = {C_JOB, 0, 1, 1, NR, a2, 0},      [H_DQS2_NR] = {C_JOB, 1, 1, 1, NR, a2, 0},
      [H_COR2] = {C_JOB, SK_DEFORM_COR, 1, 1, 0, a2, 0}, [H_COR2_P] = {C_JOB, SK_DEFORM_COR, 1, 1, 0, a2, 1},
  };
  double bytes = job_bytes(&s, 1);
  double* t = xmalloc((size_t)rounds * H_N * sizeof(double));
  measure(&s, cs, H_N, rounds, (size_t)(bytes / 2), t);
  printf("\n1M vertices, 4 influences, positions + normals, 1 thread, %d rounds (median [min - max] over rounds)\n",
         rounds);
  printf("  reference loop: AoS, plain C, %s\n", g_ref_avx2 ? "AVX2+FMA target" : "default target");
  stat3 copy = ratio_stat(t, H_N, rounds, H_COPY, -1), ref = ratio_stat(t, H_N, rounds, H_REF, -1);
  printf("  %-54s %8.1f  [%.1f - %.1f] GB/s (read + write)\n", "memcpy of the same bytes", bytes / copy.med / 1e9,
         bytes / copy.hi / 1e9, bytes / copy.lo / 1e9);
  printf("  %-54s %8.1f  [%.1f - %.1f] M vertices/s\n", "reference loop", 1.0 / ref.med, 1.0 / ref.hi,
         1.0 / ref.lo);
  const char* dk = sk_cpu_kernel();
  char lab[96];
  struct {
    int i;
    const char* name;
  } rows[] = {{H_LBS, "LBS"}, {H_DQS, "DQS"}, {H_LBS_NR, "LBS no-renormalize"}, {H_DQS_NR, "DQS no-renormalize"},
              {H_COR, "COR"}, {H_DQS_P, "DQS posed"}, {H_COR_P, "COR posed"},
              {H_LBS2, "LBS"}, {H_DQS2, "DQS"}, {H_LBS2_NR, "LBS no-renormalize"},
              {H_DQS2_NR, "DQS no-renormalize"}, {H_DQS2_P, "DQS posed"}, {H_COR2, "COR"}, {H_COR2_P, "COR posed"}};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
    int i = rows[r].i;
    if (i >= H_LBS2 && !have_avx2) continue;
    snprintf(lab, sizeof lab, "%s [%s] M vertices/s", rows[r].name, i >= H_LBS2 ? "avx2" : dk);
    stat3 a = ratio_stat(t, H_N, rounds, i, -1);
    printf("  %-54s %8.1f  [%.1f - %.1f]\n", lab, 1.0 / a.med, 1.0 / a.hi, 1.0 / a.lo);
    snprintf(lab, sizeof lab, "  %s [%s] speed / reference loop", rows[r].name, i >= H_LBS2 ? "avx2" : dk);
    print_stat(lab, ratio_stat(t, H_N, rounds, H_REF, i), "");
  }
  stat3 lbs_copy = ratio_stat(t, H_N, rounds, H_COPY, H_LBS);
  stat3 dqs_lbs = ratio_stat(t, H_N, rounds, H_DQS, H_LBS);
  stat3 nr_lbs = ratio_stat(t, H_N, rounds, H_LBS_NR, H_LBS), nr_dqs = ratio_stat(t, H_N, rounds, H_DQS_NR, H_DQS);
  char cached[128] = "";
  if (bytes <= (double)llc) /* as the table labels such cases: the copy is then no memory-bandwidth bound */
    snprintf(cached, sizeof cached, "(%.0f MB <= LLC %.0f MB: cache-resident here)", bytes / 1e6, (double)llc / 1e6);
  print_stat("LBS speed / copy speed (same bytes)", lbs_copy, cached);
  print_stat("DQS time / LBS time", dqs_lbs, "");
  stat3 cor_lbs = ratio_stat(t, H_N, rounds, H_COR, H_LBS);
  print_stat("COR time / LBS time", cor_lbs, "");
  stat3 dqsp_lbs = ratio_stat(t, H_N, rounds, H_DQS_P, H_LBS), corp_lbs = ratio_stat(t, H_N, rounds, H_COR_P, H_LBS);
  print_stat("DQS time / LBS time, posed palette", dqsp_lbs, "");
  print_stat("COR time / LBS time, posed palette", corp_lbs, "");
  print_stat("LBS no-renormalize time / renormalize time", nr_lbs, "");
  print_stat("DQS no-renormalize time / renormalize time", nr_dqs, "");
  stat3 l2 = {0, 0, 0}, d2 = {0, 0, 0}, nr2 = {0, 0, 0}, dnr2 = {0, 0, 0}, dl2 = {0, 0, 0}, dpl2 = {0, 0, 0};
  stat3 cl2 = {0, 0, 0}, cpl2 = {0, 0, 0};
  if (have_avx2) {
    l2 = ratio_stat(t, H_N, rounds, H_REF, H_LBS2);
    d2 = ratio_stat(t, H_N, rounds, H_REF, H_DQS2);
    dl2 = ratio_stat(t, H_N, rounds, H_DQS2, H_LBS2);
    nr2 = ratio_stat(t, H_N, rounds, H_LBS2_NR, H_LBS2);
    dnr2 = ratio_stat(t, H_N, rounds, H_DQS2_NR, H_DQS2);
    dpl2 = ratio_stat(t, H_N, rounds, H_DQS2_P, H_LBS2);
    cl2 = ratio_stat(t, H_N, rounds, H_COR2, H_LBS2);
    cpl2 = ratio_stat(t, H_N, rounds, H_COR2_P, H_LBS2);
    print_stat("DQS time / LBS time [avx2]", dl2, "");
    print_stat("DQS time / LBS time, posed palette [avx2]", dpl2, "");
    print_stat("COR time / LBS time [avx2]", cl2, "");
    print_stat("COR time / LBS time, posed palette [avx2]", cpl2, "");
    print_stat("LBS no-renormalize time / renormalize [avx2]", nr2, "");
    print_stat("DQS no-renormalize time / renormalize [avx2]", dnr2, "");
  }
  printf("\n");
  printf("BENCH kernel_default %s name\n", dk);
  bench_line("copy_bw_pn4_1m_t1", bytes / copy.med / 1e9, "gbps");
  bench_line("ref_pn4_1m_t1", 1.0 / ref.med, "mvps");
  bench_line("lbs_pn4_1m_t1", 1.0 / ratio_stat(t, H_N, rounds, H_LBS, -1).med, "mvps");
  bench_line("dqs_pn4_1m_t1", 1.0 / ratio_stat(t, H_N, rounds, H_DQS, -1).med, "mvps");
  bench_line("lbs_over_ref_pn4_1m_t1", ratio_stat(t, H_N, rounds, H_REF, H_LBS).med, "ratio");
  bench_line("dqs_over_ref_pn4_1m_t1", ratio_stat(t, H_N, rounds, H_REF, H_DQS).med, "ratio");
  bench_line("dqs_over_lbs_pn4_1m_t1", dqs_lbs.med, "ratio");
  bench_line("cor_pn4_1m_t1", 1.0 / ratio_stat(t, H_N, rounds, H_COR, -1).med, "mvps");
  bench_line("cor_over_lbs_pn4_1m_t1", cor_lbs.med, "ratio");
  bench_line("dqs_posed_over_lbs_pn4_1m_t1", dqsp_lbs.med, "ratio");
  bench_line("dqs_posed_over_ref_pn4_1m_t1", ratio_stat(t, H_N, rounds, H_REF, H_DQS_P).med, "ratio");
  bench_line("cor_posed_over_lbs_pn4_1m_t1", corp_lbs.med, "ratio");
  bench_line("lbs_over_copy_pn4_1m_t1", lbs_copy.med, "ratio");
  bench_line("lbs_norenorm_over_renorm_pn4_1m_t1", nr_lbs.med, "ratio");
  bench_line("dqs_norenorm_over_renorm_pn4_1m_t1", nr_dqs.med, "ratio");
  if (have_avx2) {
    bench_line("lbs_over_ref_pn4_1m_t1_avx2", l2.med, "ratio");
    bench_line("dqs_over_ref_pn4_1m_t1_avx2", d2.med, "ratio");
    bench_line("dqs_over_lbs_pn4_1m_t1_avx2", dl2.med, "ratio");
    bench_line("dqs_posed_over_lbs_pn4_1m_t1_avx2", dpl2.med, "ratio");
    bench_line("dqs_posed_over_ref_pn4_1m_t1_avx2", ratio_stat(t, H_N, rounds, H_REF, H_DQS2_P).med, "ratio");
    bench_line("cor_over_lbs_pn4_1m_t1_avx2", cl2.med, "ratio");
    bench_line("cor_posed_over_lbs_pn4_1m_t1_avx2", cpl2.med, "ratio");
    bench_line("lbs_norenorm_over_renorm_pn4_1m_t1_avx2", nr2.med, "ratio");
    bench_line("dqs_norenorm_over_renorm_pn4_1m_t1_avx2", dnr2.med, "ratio");
  }
  free(t);
  scene_free(&s);
}

/* ---------------------------------------------------------------------------------------------- COR precompute */

/* sk_cor_compute on a generated cylinder of about `vertices` vertices (64 segments, 4 bones, every side vertex
 * blended between two joints), as generated (one weight vector per ring) and with every vertex's weights jittered
 * by up to 1e-3 (every vector distinct, as on a painted mesh). Median of the rounds (all threads; 1 thread too). */
static void cor_precompute_case(size_t vertices, int rounds, int nt_all) {
  sk_cylinder_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.segments = 64;
  d.rings = (uint32_t)(vertices / 64);
  d.bones = 4;
  size_t nv, nt;
  sk_skin* skin = NULL;
  if (sk_mesh_cylinder(&d, &nv, &nt, NULL, NULL, NULL, NULL, NULL) != SK_OK ||
      sk_skin_create(nv, d.bones, &skin, NULL) != SK_OK) {
    fprintf(stderr, "bench_deform: cylinder failed\n");
    exit(1);
  }
  float* pos = xmalloc(3 * nv * sizeof(float));
  uint32_t* tri = xmalloc(3 * nt * sizeof(uint32_t));
  uint32_t* off = xmalloc((nv + 1) * sizeof(uint32_t));
  sk_mesh_cylinder(&d, &nv, &nt, pos, NULL, tri, skin, NULL);
  sk_skin_get_csr(skin, off, NULL, NULL, NULL);
  uint32_t* jn = xmalloc((off[nv] + 1) * sizeof(uint32_t));
  float* w = xmalloc((off[nv] + 1) * sizeof(float));
  sk_skin_get_csr(skin, off, jn, w, NULL);
  sk_skin_destroy(skin);
  float* centers = xmalloc(3 * nv * sizeof(float));
  for (int jitter = 0; jitter < 2; ++jitter) {
    if (jitter)
      for (size_t v = 0; v < nv; ++v)
        if (off[v + 1] - off[v] == 2) {
          float e = rnd(-1e-3f, 1e-3f);
          w[off[v]] += e;
          w[off[v] + 1] -= e;
        }
    int tl[2] = {nt_all, 1};
    for (int ti = 0; ti < (nt_all > 1 ? 2 : 1); ++ti) {
      double v[64];
      for (int r = 0; r < rounds; ++r) {
        double t0 = now();
        sk_error e;
        if (sk_cor_compute(pos, nv, tri, nt, off, jn, w, d.bones, 0.0f, (uint32_t)tl[ti], centers, &e) != SK_OK) {
          fprintf(stderr, "bench_deform: sk_cor_compute failed: %s\n", e.message);
          exit(1);
        }
        v[r] = now() - t0;
      }
      qsort(v, (size_t)rounds, sizeof v[0], cmp_d);
      printf("  sk_cor_compute, cylinder %zu vertices / %zu triangles, %s, %d thread(s): %.1f ms [%.1f - %.1f]\n",
             nv, nt, jitter ? "every vertex its own weights" : "one weight vector per ring", tl[ti],
             1e3 * v[rounds / 2], 1e3 * v[0], 1e3 * v[rounds - 1]);
      char id[96];
      snprintf(id, sizeof id, "cor_precompute_%zuk_%s_t%d", nv / 1000, jitter ? "distinct" : "rings", tl[ti]);
      bench_line(id, 1e3 * v[rounds / 2], "ms");
    }
  }
  free(pos);
  free(tri);
  free(off);
  free(jn);
  free(w);
  free(centers);
}

/* sk_cor_compute on a corpus file's first mesh (gltf/NAME.glb), all threads: the median of the rounds in seconds into
 * *secs and the vertex count into *nv; 0 when not measured (no $SKINKIT_ASSETS, a load or compute error: one line). */
static int cor_precompute_asset(const char* name, int rounds, double* secs, size_t* nv_out) {
  const char* dir = getenv("SKINKIT_ASSETS");
  char path[1024];
  snprintf(path, sizeof path, "%s/gltf/%s.glb", dir ? dir : "", name);
  sk_scene* sc = NULL;
  sk_error e;
  if (!dir || !dir[0] || sk_scene_load(path, NULL, &sc, &e) != SK_OK) {
    printf("  %s: not measured (%s)\n", name, dir && dir[0] ? e.message : "SKINKIT_ASSETS not set");
    return 0;
  }
  size_t nv = sk_scene_mesh_vertex_count(sc, 0), ni = sk_scene_mesh_index_count(sc, 0);
  const sk_skin* skin = sk_scene_mesh_skin(sc, 0);
  float* pos = xmalloc(3 * nv * sizeof(float));
  uint32_t* tri = xmalloc((ni + 1) * sizeof(uint32_t));
  uint32_t* off = xmalloc((nv + 1) * sizeof(uint32_t));
  size_t ne = skin ? sk_skin_influence_count(skin) : 0;
  uint32_t* jn = xmalloc((ne + 1) * sizeof(uint32_t));
  float* w = xmalloc((ne + 1) * sizeof(float));
  float* centers = xmalloc(3 * nv * sizeof(float));
  int ok = skin && sk_scene_mesh_positions(sc, 0, pos, 3 * nv) == 3 * nv &&
           sk_scene_mesh_indices(sc, 0, tri, ni) == ni && sk_skin_get_csr(skin, off, jn, w, &e) == SK_OK;
  double v[64];
  for (int r = 0; ok && r < rounds; ++r) {
    double t0 = now();
    ok = sk_cor_compute(pos, nv, tri, ni / 3, off, jn, w, sk_skin_joint_count(skin), 0.0f, 0, centers, &e) == SK_OK;
    v[r] = now() - t0;
  }
  if (ok) {
    qsort(v, (size_t)rounds, sizeof v[0], cmp_d);
    printf("  sk_cor_compute, %s %zu vertices / %zu triangles, all threads: %.4f s [%.4f - %.4f]\n", name, nv, ni / 3,
           v[rounds / 2], v[0], v[rounds - 1]);
    *secs = v[rounds / 2];
    *nv_out = nv;
  } else {
    printf("  %s: sk_cor_compute failed (%s)\n", name, e.message);
  }
  free(pos), free(tri), free(off), free(jn), free(w), free(centers);
  sk_scene_destroy(sc);
  return ok;
}

/* The yardsticks on the corpus: `BENCH cor_precompute_subdiv2 <s> s` (CesiumMan_subdiv2, 92,569 vertices,
 * painted weights: ~46k distinct vectors) and the growth from CesiumMan (3,273 vertices) to it,
 * `BENCH cor_precompute_growth_cesiumman_subdiv2 <exponent>` (time ~ N^exponent between the two). */
static void cor_precompute_corpus(int rounds) {
  double t1 = 0.0, t2 = 0.0;
  size_t n1 = 0, n2 = 0;
  int small = cor_precompute_asset("CesiumMan", 15, &t1, &n1);
  if (!cor_precompute_asset("CesiumMan_subdiv2", rounds, &t2, &n2)) return;
  bench_line("cor_precompute_subdiv2", t2, "s");
  if (small && t1 > 0.0 && n2 > n1) {
    double ex = log(t2 / t1) / log((double)n2 / (double)n1);
    printf("  growth CesiumMan -> CesiumMan_subdiv2: N^%.2f\n", ex);
    bench_line("cor_precompute_growth_cesiumman_subdiv2", ex, "exponent");
  }
}

static int have_avx2_cpu(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return 0;
#endif
}

int main(int argc, char** argv) {
  int rounds = 15, quick = 0, headline_only = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
      rounds = 5;
    } else if (strcmp(argv[i], "--headline") == 0) {
      headline_only = 1;
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: bench_deform [--quick] [--headline] [--rounds N (1..63)]\n");
      return 2;
    }
  }
  if (rounds < 1 || rounds > 63) {
    fprintf(stderr, "bench_deform: --rounds must be 1..63\n");
    return 2;
  }
  int nt_all = max_threads();
  int have_avx2 = have_avx2_cpu();
  g_ref_avx2 = have_avx2;
  size_t llc = llc_bytes();
  size_t cbytes = (size_t)40 << 20;
  g_csrc = xmalloc(cbytes);
  g_cdst = xmalloc(cbytes);
  memset(g_csrc, 1, cbytes);
  printf("bench_deform: default kernel %s, %d threads available, last-level cache %.1f MB; u16 joints + f32 "
         "weights, 64 joints, float32 streams\n",
         sk_cpu_kernel(), nt_all, (double)llc / 1048576.0);

  headline(rounds, have_avx2, llc);
  if (headline_only) { /* the 1M-vertex ratios alone (quick before/after comparisons of the kernels) */
    free(g_csrc);
    free(g_cdst);
    return 0;
  }
  printf("\nCOR precompute (median [min - max] over %d rounds)\n", rounds);
  cor_precompute_case(40000, rounds, nt_all);
  if (!quick) cor_precompute_case(200000, rounds, nt_all);
  cor_precompute_corpus(rounds < 3 ? rounds : 3);

  if (!quick) {
    printf("\n%-4s %-8s %2s %-4s %3s %9s %17s %s\n", "", "vertices", "K", "data", "thr", "Mvert/s", "[min - max]",
           "speed / copy of the same bytes, same rounds (median [min-max])");
    const size_t sizes[2] = {100000, 1000000};
    const uint32_t ks[3] = {1, 2, 4};
    for (int si = 0; si < 2; ++si)
      for (int ki = 0; ki < 3; ++ki) {
        scene s;
        scene_make(&s, sizes[si], ks[ki]);
        table_case(&s, nt_all, llc, sizes[si] >= 1000000 ? rounds : 2 * rounds + 1 > 63 ? 63 : 2 * rounds + 1);
        scene_free(&s);
      }
  }
  free(g_csrc);
  free(g_cdst);
  return 0;
}
