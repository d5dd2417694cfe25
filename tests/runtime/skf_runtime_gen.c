/* skf_runtime_gen.c - writes a .skf and the library decoder's output as a reference, for the isolated
 * runtime-decoder example (tests/runtime/skf_runtime_example.c), plus the meshes' geometry the way an engine has
 * it (OUT.skf.geo: per mesh u32 vertex_count, u32 index_count, float positions[3 * vertex_count],
 * u32 indices[index_count], host byte order). Mesh 0: a corner-split grid (every triangle has its own three
 * vertices, as Collada exports store it), welded by position; mesh 1: empty; mesh 2: random skin with triangles.
 * With `fast` the file is of the speed profile (.skf 3.1): mesh 0's two influences take the decoder's 8-byte rows
 * and mesh 2's up to eight its 16-bit-lane rows on x86-64, which the example built with -DSKF_NO_SIMD checks against
 * the portable C.
 * usage: skf_runtime_gen OUT.skf OUT.ref [joint_count [fast]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

static int fail(const char* what, const sk_error* e) {
  fprintf(stderr, "%s: %s\n", what, e->message);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  uint32_t nj = argc > 3 ? (uint32_t)atoi(argv[3]) : 30;
  const int fast = argc > 4 && strcmp(argv[4], "fast") == 0;
  sk_error err;
  sk_skeleton_desc sd = {0};
  sd.size = sizeof sd;
  sd.joint_count = nj;
  int32_t* parents = malloc(nj * sizeof *parents);
  for (uint32_t i = 0; i < nj; ++i) parents[i] = (int32_t)i - 1;
  sd.parents = parents;
  sk_skeleton* skel = NULL;
  if (sk_skeleton_create(&sd, &skel, &err)) return fail("skeleton", &err);
  skt_rng r = {2024};
  enum { G = 20 };
  size_t nvs[3] = {6 * (G - 1) * (G - 1), 0, 777};
  uint32_t ks[3] = {4, 4, 8};
  sk_skf_mesh ms[3];
  memset(ms, 0, sizeof ms);
  float* pos[3] = {NULL, NULL, NULL};
  uint32_t* ix[3] = {NULL, NULL, NULL};
  for (int m = 0; m < 3; ++m) {
    sk_skin* s = NULL;
    if (sk_skin_create(nvs[m], nj, &s, &err)) return fail("skin", &err);
    pos[m] = malloc(3 * nvs[m] * sizeof(float) + 4);
    ix[m] = malloc(nvs[m] * sizeof(uint32_t) + 4);
    uint32_t j[8] = {0};
    float w[8];
    size_t n = 0;
    for (size_t v = 0; v < nvs[m]; ++v) {
      if (m == 0) {
        /* corner c of triangle t of grid cell (x, y); weights are a function of the grid point */
        static const int corner[6][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 1}};
        size_t cell = v / 6;
        int gx = (int)(cell % (G - 1)) + corner[v % 6][0], gy = (int)(cell / (G - 1)) + corner[v % 6][1];
        pos[m][3 * v] = (float)gx;
        pos[m][3 * v + 1] = (float)gy;
        pos[m][3 * v + 2] = 0.0f;
        ix[m][v] = (uint32_t)v;
        n = 2;
        j[0] = (uint32_t)(gy / 4) % nj;
        j[1] = (j[0] + 1) % nj;
        w[0] = 1.0f + (float)(gx % 5);
        w[1] = 1.0f + (float)(gy % 4);
      } else {
        if (v % 16 == 0) {
          n = 1 + skt_rand_u32(&r) % ks[m];
          for (size_t i = 0; i < n; ++i) j[i] = skt_rand_u32(&r) % nj;
        }
        for (size_t i = 0; i < n; ++i) w[i] = skt_rand_range(&r, 0.05f, 1.0f);
        for (int c = 0; c < 3; ++c) pos[m][3 * v + c] = skt_rand_range(&r, -1.0f, 1.0f);
        ix[m][v] = (uint32_t)((v * 7919u) % nvs[m]); /* a permutation: every vertex used, not in order */
      }
      if (sk_skin_set_vertex(s, v, j, w, n, &err)) return fail("vertex", &err);
    }
    ms[m].skin = s;
    ms[m].positions = pos[m];
    ms[m].indices = nvs[m] ? ix[m] : NULL;
    ms[m].index_count = nvs[m] - nvs[m] % 3;
  }
  sk_skf_encode_desc d = {0};
  d.size = sizeof d;
  d.max_influences = 8;
  d.flags = fast ? SK_SKF_FAST : 0;
  d.skeleton = skel;
  d.meshes = ms;
  d.mesh_count = 3;
  size_t bound = sk_skf_encode_bound(&d), n = 0;
  unsigned char* buf = malloc(bound);
  if (sk_skf_encode(&d, buf, bound, &n, &err)) return fail("encode", &err);
  FILE* f = fopen(argv[1], "wb");
  if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) return 1;
  char geo_path[4096];
  snprintf(geo_path, sizeof geo_path, "%s.geo", argv[1]);
  FILE* gf = fopen(geo_path, "wb");
  if (!gf) return 1;
  for (int m = 0; m < 3; ++m) {
    uint32_t hdr[2] = {(uint32_t)nvs[m], (uint32_t)ms[m].index_count};
    fwrite(hdr, sizeof hdr[0], 2, gf);
    fwrite(pos[m], sizeof(float), 3 * nvs[m], gf);
    fwrite(ix[m], sizeof(uint32_t), ms[m].index_count, gf);
  }
  if (fclose(gf)) return 1;

  /* reference: inverse binds, then per mesh joints then weights as the example requests them */
  FILE* rf = fopen(argv[2], "wb");
  if (!rf) return 1;
  float* ib = malloc(16 * nj * sizeof *ib);
  if (sk_skf_decode_skeleton(buf, n, NULL, ib, NULL, 0, &err)) return fail("skeleton decode", &err);
  fwrite(ib, sizeof *ib, 16 * nj, rf);
  for (uint32_t m = 0; m < 3; ++m) {
    sk_skf_mesh_info mi = {0};
    mi.size = sizeof mi;
    if (sk_skf_get_mesh_info(buf, n, m, &mi, &err)) return fail("mesh info", &err);
    uint32_t slots = mi.max_influences > 4 ? 8 : 4, jb = nj > 256 ? 2 : 1;
    size_t vc = (size_t)mi.vertex_count;
    unsigned char* jo = malloc(vc * slots * jb + 1);
    unsigned char* we = malloc(vc * slots + 1);
    sk_skf_decode_desc dd = {0};
    dd.size = sizeof dd;
    dd.mesh = m;
    dd.influences = slots;
    dd.joint_type = jb == 1 ? SK_TYPE_U8 : SK_TYPE_U16;
    dd.weight_type = SK_TYPE_U8;
    dd.joints = jo;
    dd.weights = we;
    dd.vertex_capacity = vc;
    dd.indices = ms[m].indices;
    dd.index_count = ms[m].index_count;
    dd.positions = ms[m].positions;
    if (m == 0 && mi.order != (fast ? 0u : 2u)) return fail("mesh 0 is not welded", &err);
    if (sk_skf_decode(buf, n, &dd, &err)) return fail("decode", &err);
    fwrite(jo, 1, vc * slots * jb, rf);
    fwrite(we, 1, vc * slots, rf);
    free(jo);
    free(we);
  }
  if (fclose(rf)) return 1;
  printf("wrote %s (%zu bytes) and %s\n", argv[1], n, argv[2]);
  for (int m = 0; m < 3; ++m) {
    sk_skin_destroy((sk_skin*)ms[m].skin);
    free(pos[m]);
    free(ix[m]);
  }
  sk_skeleton_destroy(skel);
  free(ib);
  free(buf);
  free(parents);
  return 0;
}
