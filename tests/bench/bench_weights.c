#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/* bench_weights.c - throughput of the weight operations on a generated 1 M-vertex cylinder (4 influences per
 * vertex over 20 joints) and, with SKINKIT_ASSETS, on gltf/CesiumMan_subdiv2.glb. Prints a table and one line
 * per operation: "BENCH <op>_1m <M influences/s> mips". Asserts nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sk_testutil.h"
#include "skinkit.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct mesh {
  size_t V, T;
  float* pos;
  uint32_t* tri;
  sk_skin* skin;
} mesh;

/* rings x seg cylinder along Y; joint j covers height band j; each vertex gets the 4 nearest joints with
 * smooth falloff (plus a little noise so sums are off 1 and normalize has work to do) */
static int make_cylinder(mesh* m, size_t rings, size_t seg, uint32_t J) {
  m->V = rings * seg;
  m->T = 2 * (rings - 1) * seg;
  m->pos = malloc(3 * m->V * sizeof *m->pos);
  m->tri = malloc(3 * m->T * sizeof *m->tri);
  uint32_t* off = malloc((m->V + 1) * sizeof *off);
  uint32_t* jt = malloc(4 * m->V * sizeof *jt);
  float* wt = malloc(4 * m->V * sizeof *wt);
  if (!m->pos || !m->tri || !off || !jt || !wt) return 1;
  skt_rng rng = {42};
  off[0] = 0;
  for (size_t r = 0; r < rings; ++r) {
    float h = (float)r / (float)(rings - 1) * (float)J; /* 0 .. J */
    for (size_t k = 0; k < seg; ++k) {
      size_t v = r * seg + k;
      float a = (float)(6.283185307179586 * (double)k / (double)seg);
      m->pos[3 * v] = cosf(a), m->pos[3 * v + 1] = h, m->pos[3 * v + 2] = sinf(a);
      int j0 = (int)floorf(h - 1.5f);
      if (j0 < 0) j0 = 0;
      if (j0 > (int)J - 4) j0 = (int)J - 4;
      for (int i = 0; i < 4; ++i) {
        float c = (float)(j0 + i) + 0.5f, d = fabsf(h - c);
        jt[4 * v + i] = (uint32_t)(j0 + i);
        wt[4 * v + i] = 1.0f / (1.0f + d * d * 4.0f) * skt_rand_range(&rng, 0.95f, 1.05f);
      }
      off[v + 1] = (uint32_t)(4 * (v + 1));
    }
  }
  size_t t = 0;
  for (size_t r = 0; r + 1 < rings; ++r)
    for (size_t k = 0; k < seg; ++k) {
      uint32_t a = (uint32_t)(r * seg + k), b = (uint32_t)(r * seg + (k + 1) % seg), c = (uint32_t)(a + seg),
               d = (uint32_t)(b + seg);
      uint32_t* q = m->tri + 3 * t;
      q[0] = a, q[1] = b, q[2] = d, q[3] = a, q[4] = d, q[5] = c;
      t += 2;
    }
  int rc = sk_skin_create(m->V, J, &m->skin, NULL) || sk_skin_set_csr(m->skin, off, jt, wt, NULL);
  free(off);
  free(jt);
  free(wt);
  return rc;
}

static void row(const char* label, const char* key, double sec, size_t influences, int bench_line) {
  double mips = influences / sec * 1e-6;
  printf("%-28s %10.2f ms %10.1f M infl/s\n", label, sec * 1e3, mips);
  if (bench_line) printf("BENCH %s %.1f mips\n", key, mips);
}

static void run_suite(const char* tag, const float* pos, size_t V, const uint32_t* tri, size_t T, sk_skin* src,
                      int bench_lines) {
  sk_error e;
  sk_skin* s = NULL;
  char key[64];
  size_t N = sk_skin_influence_count(src);
  printf("\n%s: %zu vertices, %zu triangles, %zu influences, %u joints\n", tag, V, T, N, sk_skin_joint_count(src));
  printf("%-28s %13s %19s\n", "operation", "time", "throughput");

  sk_skin_clone(src, &s, NULL);
  sk_normalize_desc nd = {.size = sizeof nd};
  double t0 = now();
  if (sk_weights_normalize(s, &nd, NULL, &e)) printf("normalize failed: %s\n", e.message);
  snprintf(key, sizeof key, "normalize_%s", tag);
  row("normalize", key, now() - t0, N, bench_lines);

  sk_limit_desc ld = {.size = sizeof ld, .max_influences = 3};
  t0 = now();
  if (sk_weights_limit(s, &ld, NULL, &e)) printf("limit failed: %s\n", e.message);
  snprintf(key, sizeof key, "limit_%s", tag);
  row("limit 4 -> 3", key, now() - t0, N, bench_lines);
  sk_skin_destroy(s);

  sk_skin_clone(src, &s, NULL);
  sk_prune_desc pd = {.size = sizeof pd, .threshold = 0.05f, .flags = SK_PRUNE_NORMALIZE};
  t0 = now();
  if (sk_weights_prune(s, &pd, NULL, &e)) printf("prune failed: %s\n", e.message);
  snprintf(key, sizeof key, "prune_%s", tag);
  row("prune 0.05", key, now() - t0, N, bench_lines);
  sk_skin_destroy(s);

  sk_skin_clone(src, &s, NULL);
  sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
  t0 = now();
  if (sk_weights_quantize(s, &qd, NULL, &e)) printf("quantize failed: %s\n", e.message);
  snprintf(key, sizeof key, "quantize_%s", tag);
  row("quantize 8 bit", key, now() - t0, N, bench_lines);
  sk_skin_destroy(s);

  /* smoothing: 1 and 10 iterations, to separate the adjacency build from the per-iteration cost */
  double tsm[2] = {0, 0};
  uint32_t its[2] = {1, 10};
  for (int k = 0; k < 2; ++k) {
    sk_skin_clone(src, &s, NULL);
    sk_smooth_desc sd = {.size = sizeof sd, .triangles = tri, .triangle_count = T, .iterations = its[k], .factor = 0.5f,
                         .positions = pos, .position_count = V};
    t0 = now();
    if (sk_weights_smooth(s, &sd, NULL, &e)) printf("smooth failed: %s\n", e.message);
    tsm[k] = now() - t0;
    sk_skin_destroy(s);
  }
  size_t edges = 3 * T / 2; /* closed-ish manifold estimate: each edge shared by two triangles */
  snprintf(key, sizeof key, "smooth10_%s", tag);
  row("smooth uniform x10", key, tsm[1], 10 * N, bench_lines);
  double per_it = (tsm[1] - tsm[0]) / 9.0;
  printf("%-28s %10.2f ms   (%.2f ns per iteration-edge, setup %.2f ms)\n", "  per extra iteration", per_it * 1e3,
         per_it / (double)edges * 1e9, (tsm[0] - per_it) * 1e3);
  sk_skin_clone(src, &s, NULL);
  sk_smooth_desc cd = {.size = sizeof cd, .method = SK_SMOOTH_COTANGENT, .triangles = tri, .triangle_count = T,
                       .iterations = 10, .positions = pos, .position_count = V};
  t0 = now();
  if (sk_weights_smooth(s, &cd, NULL, &e)) printf("smooth failed: %s\n", e.message);
  snprintf(key, sizeof key, "smooth10_cot_%s", tag);
  row("smooth cotangent x10", key, now() - t0, 10 * N, bench_lines);
  sk_skin_destroy(s);

  sk_skin_clone(src, &s, NULL);
  sk_rogue_desc rd = {.size = sizeof rd, .triangles = tri, .triangle_count = T};
  sk_weights_report rep = {.size = sizeof rep};
  t0 = now();
  if (sk_weights_remove_rogue(s, &rd, &rep, &e)) printf("rogue failed: %s\n", e.message);
  snprintf(key, sizeof key, "rogue_%s", tag);
  row("rogue removal", key, now() - t0, N, bench_lines);
  printf("  (%llu vertices changed)\n", (unsigned long long)rep.vertices_changed);
  sk_skin_destroy(s);
}

int main(void) {
  mesh m = {0};
  if (make_cylinder(&m, 1000, 1000, 20)) {
    fprintf(stderr, "could not build the benchmark mesh\n");
    return 1;
  }
  run_suite("1m", m.pos, m.V, m.tri, m.T, m.skin, 1);
  sk_skin_destroy(m.skin);
  free(m.pos);
  free(m.tri);

  if (skt_assets_dir()) {
    sk_scene* sc = NULL;
    sk_error e;
    if (sk_scene_load(skt_asset("gltf/CesiumMan_subdiv2.glb"), NULL, &sc, &e) != SK_OK) {
      fprintf(stderr, "CesiumMan_subdiv2.glb: %s\n", e.message);
      return 1;
    }
    for (uint32_t mi = 0; mi < sk_scene_mesh_count(sc); ++mi) {
      sk_skin* s = sk_scene_mesh_skin(sc, mi);
      if (!s) continue;
      size_t V = sk_scene_mesh_vertex_count(sc, mi), I = sk_scene_mesh_index_count(sc, mi);
      float* pos = malloc(3 * V * sizeof *pos);
      uint32_t* idx = malloc((I + 1) * sizeof *idx);
      sk_scene_mesh_positions(sc, mi, pos, 3 * V);
      sk_scene_mesh_indices(sc, mi, idx, I);
      char tag[64];
      snprintf(tag, sizeof tag, "cesium_subdiv2_mesh%u", mi);
      run_suite(tag, pos, V, idx, I / 3, s, 0);
      free(pos);
      free(idx);
    }
    sk_scene_destroy(sc);
  }
  return 0;
}
