/* skf_runtime_gen.c - writes a .skf (generated skin, 3 meshes, file order) and the library decoder's output as
 * a reference, for the isolated runtime-decoder example (tests/runtime/skf_runtime_example.c).
 * usage: skf_runtime_gen OUT.skf OUT.ref [joint_count] */
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
  size_t nvs[3] = {3000, 0, 777};
  uint32_t ks[3] = {4, 4, 8};
  sk_skf_mesh ms[3];
  memset(ms, 0, sizeof ms);
  for (int m = 0; m < 3; ++m) {
    sk_skin* s = NULL;
    if (sk_skin_create(nvs[m], nj, &s, &err)) return fail("skin", &err);
    uint32_t j[8] = {0};
    float w[8];
    size_t n = 0;
    for (size_t v = 0; v < nvs[m]; ++v) {
      if (v % 16 == 0) {
        n = 1 + skt_rand_u32(&r) % ks[m];
        for (size_t i = 0; i < n; ++i) j[i] = skt_rand_u32(&r) % nj;
      }
      for (size_t i = 0; i < n; ++i) w[i] = skt_rand_range(&r, 0.05f, 1.0f);
      if (sk_skin_set_vertex(s, v, j, w, n, &err)) return fail("vertex", &err);
    }
    ms[m].skin = s;
  }
  sk_skf_encode_desc d = {0};
  d.size = sizeof d;
  d.max_influences = 8;
  d.skeleton = skel;
  d.meshes = ms;
  d.mesh_count = 3;
  size_t bound = sk_skf_encode_bound(&d), n = 0;
  unsigned char* buf = malloc(bound);
  if (sk_skf_encode(&d, buf, bound, &n, &err)) return fail("encode", &err);
  FILE* f = fopen(argv[1], "wb");
  if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) return 1;

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
    if (sk_skf_decode(buf, n, &dd, &err)) return fail("decode", &err);
    fwrite(jo, 1, vc * slots * jb, rf);
    fwrite(we, 1, vc * slots, rf);
    free(jo);
    free(we);
  }
  if (fclose(rf)) return 1;
  printf("wrote %s (%zu bytes) and %s\n", argv[1], n, argv[2]);
  for (int m = 0; m < 3; ++m) sk_skin_destroy((sk_skin*)ms[m].skin);
  sk_skeleton_destroy(skel);
  free(ib);
  free(buf);
  free(parents);
  return 0;
}
