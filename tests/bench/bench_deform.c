/* bench_deform.c - LBS / DQS throughput against the memory-copy bandwidth of this machine.
 *
 * Main figures use u16 joints + f32 weights (the glTF-style packed layout), 64 rigid joints, random normalized
 * weights, tightly packed float32 streams. Effective bandwidth counts bytes read + written: positions (and
 * normals) in and out as float32, plus the joint and weight streams as stored. Best of N runs, CLOCK_MONOTONIC.
 * Prints a human table and machine-readable "BENCH <name> <value> <unit>" lines. Asserts nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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

/* Best-of-reps copy bandwidth (GB/s, bytes read + written) over `bytes`-sized arrays on nt threads. */
static double copy_bandwidth(char* dst, const char* src, size_t bytes, int nt, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
#if defined(SK_HAVE_OPENMP)
    if (nt > 1) {
#pragma omp parallel num_threads(nt)
      {
        int id = omp_get_thread_num(), n = omp_get_num_threads();
        size_t per = (bytes / (size_t)n + 4095) & ~(size_t)4095;
        size_t b = per * (size_t)id, e = b + per < bytes ? b + per : bytes;
        if (b < e) memcpy(dst + b, src + b, e - b);
      }
    } else {
      memcpy(dst, src, bytes);
    }
#else
    (void)nt;
    memcpy(dst, src, bytes);
#endif
    double t = now() - t0;
    if (t < best) best = t;
  }
  return 2.0 * (double)bytes / best / 1e9;
}

typedef struct scene {
  size_t V, J;
  uint32_t K;
  float* palette;
  uint16_t* joints;
  float* weights;
  float *pin, *nin, *pout, *nout;
} scene;

static void random_rigid(float m[16]) {
  float q[4] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
  float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] /= l;
  float x = q[0], y = q[1], z = q[2], w = q[3];
  float r[16] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0,
                 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0,
                 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0,
                 rnd(-1, 1), rnd(-1, 1), rnd(-1, 1), 1};
  memcpy(m, r, sizeof r);
}

static void scene_make(scene* s, size_t V, uint32_t K) {
  s->V = V;
  s->J = 64;
  s->K = K;
  s->palette = malloc(16 * s->J * sizeof(float));
  for (size_t j = 0; j < s->J; ++j) random_rigid(s->palette + 16 * j);
  s->joints = malloc(V * K * sizeof(uint16_t));
  s->weights = malloc(V * K * sizeof(float));
  s->pin = malloc(3 * V * sizeof(float));
  s->nin = malloc(3 * V * sizeof(float));
  s->pout = malloc(3 * V * sizeof(float));
  s->nout = malloc(3 * V * sizeof(float));
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
  memset(s->pout, 0, 3 * V * sizeof(float));
  memset(s->nout, 0, 3 * V * sizeof(float));
}

static void scene_free(scene* s) {
  free(s->palette);
  free(s->joints);
  free(s->weights);
  free(s->pin);
  free(s->nin);
  free(s->pout);
  free(s->nout);
}

/* Best time (s) of reps runs. */
static double time_deform(const scene* s, int method, int normals, int threads, int reps) {
  sk_deform_job j;
  memset(&j, 0, sizeof j);
  j.size = sizeof j;
  j.method = (uint32_t)method;
  j.threads = (uint32_t)threads;
  j.vertex_count = s->V;
  j.palette = s->palette;
  j.joint_count = s->J;
  j.influences = s->K;
  j.joint_type = SK_TYPE_U16;
  j.weight_type = SK_TYPE_F32;
  j.joints = s->joints;
  j.weights = s->weights;
  j.in_positions = s->pin;
  j.out_positions = s->pout;
  if (normals) {
    j.in_normals = s->nin;
    j.out_normals = s->nout;
  }
  sk_error e;
  if (sk_deform_run(&j, &e) != SK_OK) { /* warm-up, and a sanity check */
    fprintf(stderr, "deform failed: %s\n", e.message);
    exit(1);
  }
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    sk_deform_run(&j, NULL);
    double t = now() - t0;
    if (t < best) best = t;
  }
  return best;
}

static double bytes_per_vertex(uint32_t K, int normals) {
  return (normals ? 48.0 : 24.0) + K * (2.0 + 4.0);
}

int main(void) {
  int nt_all = max_threads();
  printf("bench_deform: kernel %s, %d threads available; u16 joints + f32 weights, 64 joints, float32 streams\n",
         sk_cpu_kernel(), nt_all);

  size_t copy_bytes = (size_t)256 << 20;
  char* src = malloc(copy_bytes);
  char* dst = malloc(copy_bytes);
  memset(src, 1, copy_bytes);
  memset(dst, 2, copy_bytes);
  double bw1 = copy_bandwidth(dst, src, copy_bytes, 1, 5);
  double bwn = copy_bandwidth(dst, src, copy_bytes, nt_all, 5);
  free(src);
  free(dst);
  printf("memcpy 256 MB (read + write): 1 thread %.2f GB/s, %d threads %.2f GB/s\n\n", bw1, nt_all, bwn);

  printf("%-6s %-8s %2s %-4s %4s %10s %9s %10s %8s\n", "method", "vertices", "K", "data", "thr", "time(ms)", "Mvert/s",
         "eff GB/s", "of copy");
  const size_t sizes[2] = {100000, 1000000};
  const uint32_t ks[3] = {1, 2, 4};
  double lbs_pn4_1m_t1 = 0, lbs_pn4_1m_t2 = 0, dqs_pn4_1m_t1 = 0, lbs_pn4_1m_tall = 0, dqs_pn4_1m_tall = 0;
  double lbs_pn4_1m_t1_gbps = 0;
  for (int si = 0; si < 2; ++si)
    for (int ki = 0; ki < 3; ++ki) {
      scene s;
      scene_make(&s, sizes[si], ks[ki]);
      int reps = sizes[si] >= 1000000 ? 9 : 25;
      for (int method = 0; method < 2; ++method)
        for (int normals = 0; normals < 2; ++normals) {
          int tlist[2] = {1, nt_all};
          for (int ti = 0; ti < (nt_all > 1 ? 2 : 1); ++ti) {
            int threads = tlist[ti];
            double t = time_deform(&s, method, normals, threads, reps);
            double mvps = (double)s.V / t / 1e6;
            double gbps = (double)s.V * bytes_per_vertex(s.K, normals) / t / 1e9;
            double ref = threads == 1 ? bw1 : bwn;
            printf("%-6s %-8zu %2u %-4s %4d %10.3f %9.1f %10.2f %7.0f%%\n", method ? "DQS" : "LBS", s.V, s.K,
                   normals ? "p+n" : "p", threads, t * 1e3, mvps, gbps, 100.0 * gbps / ref);
            if (s.V == 1000000 && s.K == 4 && normals) {
              if (method == 0 && threads == 1) {
                lbs_pn4_1m_t1 = t;
                lbs_pn4_1m_t1_gbps = gbps;
              }
              if (method == 1 && threads == 1) dqs_pn4_1m_t1 = t;
              if (method == 0 && threads > 1) lbs_pn4_1m_tall = t;
              if (method == 1 && threads > 1) dqs_pn4_1m_tall = t;
            }
          }
        }
      if (s.V == 1000000 && s.K == 4) lbs_pn4_1m_t2 = time_deform(&s, 0, 1, 2, reps);
      scene_free(&s);
    }

  printf("\n");
  printf("BENCH copy_bw_t1 %.3f gbps\n", bw1);
  printf("BENCH copy_bw_all %.3f gbps\n", bwn);
  printf("BENCH lbs_pn4_1m_t1 %.1f mvps\n", 1.0 / lbs_pn4_1m_t1);
  printf("BENCH lbs_pn4_1m_t1_bw %.3f ratio\n", lbs_pn4_1m_t1_gbps / bw1);
  printf("BENCH lbs_pn4_1m_t2 %.1f mvps\n", 1.0 / lbs_pn4_1m_t2);
  printf("BENCH lbs_pn4_1m_t2_speedup %.3f ratio\n", lbs_pn4_1m_t1 / lbs_pn4_1m_t2);
  if (lbs_pn4_1m_tall > 0) printf("BENCH lbs_pn4_1m_tall %.1f mvps\n", 1.0 / lbs_pn4_1m_tall);
  printf("BENCH dqs_pn4_1m_t1 %.1f mvps\n", 1.0 / dqs_pn4_1m_t1);
  if (dqs_pn4_1m_tall > 0) printf("BENCH dqs_pn4_1m_tall %.1f mvps\n", 1.0 / dqs_pn4_1m_tall);
  printf("BENCH dqs_over_lbs_pn4_1m_t1 %.3f ratio\n", dqs_pn4_1m_t1 / lbs_pn4_1m_t1);
  return 0;
}
