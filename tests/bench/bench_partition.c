/* bench_partition.c - skin partitioning (sk_skin_partition) against one packed K = 4 job, the layout engines use.
 *
 *   bench_partition [rounds]
 *
 * 1M vertices, positions + normals, one thread, rigid palettes of 64 joints, influence counts drawn with the
 * histogram of a corpus character (CesiumMan_subdiv2: 11 % one joint, 60 % two, 17 % three, 12 % four; Fox:
 * 45 % one, 53 % two, 2 % three or four). Each round runs both contenders back to back (alternating which goes
 * first); prints the median and min-max of time(packed K=4) / time(partitioned ranges) as
 * "BENCH partition_over_packed4_<mix>_1m_t1 <ratio> ratio", and the largest difference between the two outputs.
 * The partition's one-time cost (sk_skin_partition and the reorder of the streams) is printed apart: an engine
 * pays it at load. Asserts nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skinkit.h"

enum { V = 1000000, J = 64 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double rnd(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

static void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "bench_partition: out of memory\n");
    exit(2);
  }
  return p;
}

/* Rigid palette: rotation about a random axis, a translation; column-major. */
static void palette(float* m) {
  for (int j = 0; j < J; j++, m += 16) {
    double ax[3] = {rnd() - 0.5, rnd() - 0.5, rnd() - 0.5}, n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    double x = ax[0] / n, y = ax[1] / n, z = ax[2] / n, a = 3.0 * (rnd() - 0.5), c = cos(a), s = sin(a), t = 1 - c;
    const double R[9] = {t * x * x + c,     t * x * y + s * z, t * x * z - s * y, t * x * y - s * z, t * y * y + c,
                         t * y * z + s * x, t * x * z + s * y, t * y * z - s * x, t * z * z + c};
    memset(m, 0, 16 * sizeof *m);
    for (int i = 0; i < 9; i++) m[4 * (i / 3) + i % 3] = (float)R[i];
    m[12] = (float)rnd(), m[13] = (float)rnd(), m[14] = (float)rnd(), m[15] = 1.0f;
  }
}

/* A skin whose influence counts follow cdf (cumulative shares of 1, 2, 3, 4 joints); neighbouring joints. */
static sk_skin* make_skin(const double cdf[4]) {
  uint32_t* off = xmalloc((V + 1) * sizeof *off);
  uint32_t* jt = xmalloc((size_t)V * 4 * sizeof *jt);
  float* wt = xmalloc((size_t)V * 4 * sizeof *wt);
  off[0] = 0;
  for (size_t v = 0; v < V; v++) {
    double u = rnd();
    uint32_t n = u < cdf[0] ? 1 : u < cdf[1] ? 2 : u < cdf[2] ? 3 : 4, first = (uint32_t)(v * J / V);
    float w[4], sum = 0.0f;
    for (uint32_t k = 0; k < n; k++) sum += w[k] = (float)(0.1 + rnd());
    for (uint32_t k = 0; k < n; k++) jt[off[v] + k] = (first + k) % J, wt[off[v] + k] = w[k] / sum;
    off[v + 1] = off[v] + n;
  }
  sk_skin* s = NULL;
  if (sk_skin_create(V, J, &s, NULL) || sk_skin_set_csr(s, off, jt, wt, NULL)) exit(2);
  free(off), free(jt), free(wt);
  return s;
}

typedef struct inputs {
  float *pal, *pos, *nrm, *out_p, *out_n;
} inputs;

static double run_packed(const inputs* in, const uint16_t* j4, const float* w4) {
  sk_deform_job job = {.size = sizeof job, .method = SK_DEFORM_LBS, .threads = 1, .vertex_count = V,
                       .palette = in->pal, .joint_count = J, .influences = 4, .joint_type = SK_TYPE_U16,
                       .weight_type = SK_TYPE_F32, .joints = j4, .weights = w4, .in_positions = in->pos,
                       .out_positions = in->out_p, .in_normals = in->nrm, .out_normals = in->out_n};
  double t = now();
  if (sk_deform_run(&job, NULL)) exit(2);
  return now() - t;
}

typedef struct parted {
  uint32_t* order;
  sk_partition_range r[SK_PARTITION_MAX_RANGES];
  uint32_t n;
  uint16_t* j;
  float* w;
  float *pos, *nrm, *out_p, *out_n; /* reordered streams */
} parted;

static double run_parted(const inputs* in, const parted* p) {
  double t = now();
  for (uint32_t i = 0; i < p->n; i++) {
    const sk_partition_range* r = &p->r[i];
    sk_deform_job job = {.size = sizeof job, .method = SK_DEFORM_LBS, .threads = 1, .vertex_count = r->count,
                         .palette = in->pal, .joint_count = J, .influences = r->influences,
                         .joint_type = SK_TYPE_U16, .weight_type = SK_TYPE_F32, .joints = p->j + r->entry_offset,
                         .weights = p->w + r->entry_offset, .in_positions = p->pos + 3 * r->first,
                         .out_positions = p->out_p + 3 * r->first, .in_normals = p->nrm + 3 * r->first,
                         .out_normals = p->out_n + 3 * r->first};
    if (sk_deform_run(&job, NULL)) exit(2);
  }
  return now() - t;
}

static int cmp_d(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The partition and the reordered streams; returns the seconds it took (the engine's load-time cost). */
static double prepare(const sk_skin* s, const inputs* in, parted* p) {
  double t = now();
  size_t n = 0;
  if (sk_skin_partition(s, NULL, p->r, &p->n, NULL, NULL, &n, NULL)) exit(2);
  p->order = xmalloc(V * sizeof *p->order);
  p->j = xmalloc(n * sizeof *p->j);
  p->w = xmalloc(n * sizeof *p->w);
  if (sk_skin_partition(s, p->order, p->r, &p->n, p->j, p->w, &n, NULL)) exit(2);
  p->pos = xmalloc((size_t)V * 12), p->nrm = xmalloc((size_t)V * 12);
  for (size_t i = 0; i < V; i++)
    memcpy(p->pos + 3 * i, in->pos + 3 * (size_t)p->order[i], 12), memcpy(p->nrm + 3 * i, in->nrm + 3 * (size_t)p->order[i], 12);
  p->out_p = xmalloc((size_t)V * 12), p->out_n = xmalloc((size_t)V * 12);
  return now() - t;
}

static void bench_mix(const char* name, const double cdf[4], const inputs* in, int rounds) {
  sk_skin* s = make_skin(cdf);
  uint16_t* j4 = xmalloc((size_t)V * 4 * sizeof *j4);
  float* w4 = xmalloc((size_t)V * 4 * sizeof *w4);
  sk_packed_desc pd = {sizeof pd, 4, SK_TYPE_U16, SK_TYPE_F32, j4, 0, w4, 0};
  if (sk_skin_to_packed(s, &pd, NULL)) exit(2);
  parted p;
  double prep = prepare(s, in, &p);
  double* ratio = xmalloc((size_t)rounds * sizeof *ratio);
  run_packed(in, j4, w4); /* first touch of the outputs (page faults) outside the timing */
  run_parted(in, &p);
  for (int r = 0; r < rounds; r++) {
    double a, b;
    if (r & 1) {
      b = run_parted(in, &p);
      a = run_packed(in, j4, w4);
    } else {
      a = run_packed(in, j4, w4);
      b = run_parted(in, &p);
    }
    ratio[r] = a / b;
  }
  double worst = 0.0; /* to_packed sorts and renormalizes: compare positions, which that does not move here */
  for (size_t i = 0; i < V; i++)
    for (int c = 0; c < 3; c++) worst = fmax(worst, fabs(p.out_p[3 * i + c] - in->out_p[3 * (size_t)p.order[i] + c]));
  qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_d);
  printf("%-10s ranges:", name);
  for (uint32_t i = 0; i < p.n; i++) printf(" K%u x %zu", p.r[i].influences, p.r[i].count);
  printf("  packed4 / partitioned %.2f [%.2f-%.2f]  max |dp| %.2g  partition + reorder %.1f ms\n", ratio[rounds / 2],
         ratio[0], ratio[rounds - 1], worst, 1e3 * prep);
  printf("BENCH partition_over_packed4_%s_1m_t1 %.3f ratio\n", name, ratio[rounds / 2]);
  free(ratio), free(j4), free(w4), free(p.order), free(p.j), free(p.w), free(p.pos), free(p.nrm), free(p.out_p);
  free(p.out_n);
  sk_skin_destroy(s);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 15;
  if (rounds < 1) rounds = 1;
  inputs in;
  in.pal = xmalloc(16 * J * sizeof(float));
  palette(in.pal);
  in.pos = xmalloc((size_t)V * 12), in.nrm = xmalloc((size_t)V * 12);
  in.out_p = xmalloc((size_t)V * 12), in.out_n = xmalloc((size_t)V * 12);
  for (size_t i = 0; i < 3 * (size_t)V; i++) in.pos[i] = (float)rnd(), in.nrm[i] = (float)(rnd() - 0.5);
  printf("skinkit %s, kernel %s, %d rounds, one thread, LBS positions + normals, %d vertices\n", sk_version_string(),
         sk_cpu_kernel(), rounds, V);
  const double subdiv2[4] = {0.109, 0.711, 0.877, 1.0}, fox[4] = {0.448, 0.980, 0.996, 1.0};
  bench_mix("subdiv2mix", subdiv2, &in, rounds);
  bench_mix("foxmix", fox, &in, rounds);
  free(in.pal), free(in.pos), free(in.nrm), free(in.out_p), free(in.out_n);
  return 0;
}
