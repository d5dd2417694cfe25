/* fuzz_skf_roundtrip.c - libFuzzer target: the input describes a skeleton and skins (counts, joints, weights,
 * triangles; mode bit 0x10: zlib level 9, else 1; 0x20: the speed profile); encode -> decode must succeed and give
 * exactly the canonical quantization, sums exact. Joint counts stop at 300 (past 256: two-byte joint indices) and
 * level 9 only with bit 0x10: the joint table's deflate at level 9 was a third of an execution, none of it our code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skf.h"
#include "skinkit.h"

typedef struct rd {
  const uint8_t* p;
  size_t n;
} rd;
static uint32_t take(rd* r, uint32_t bytes) {
  uint32_t v = 0;
  for (uint32_t i = 0; i < bytes; ++i) {
    v |= (uint32_t)(r->n ? *r->p : 0) << (8 * i);
    if (r->n) {
      ++r->p;
      --r->n;
    }
  }
  return v;
}

/* The skeleton: a chain of nj joints, built once per count and kept (the encoder only reads it; building a
 * 600-joint chain per input was half of the target's time). */
static const sk_skeleton* chain(uint32_t nj) {
  static sk_skeleton* made[301];
  if (made[nj]) return made[nj];
  sk_skeleton_desc sd = {0};
  sd.size = sizeof sd;
  sd.joint_count = nj;
  int32_t parents[300];
  for (uint32_t i = 0; i < nj; ++i) parents[i] = (int32_t)i - 1;
  sd.parents = parents;
  sk_error err;
  if (sk_skeleton_create(&sd, &made[nj], &err)) {
    fprintf(stderr, "skeleton: %s\n", err.message);
    abort();
  }
  return made[nj];
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rd r = {data, size};
  uint32_t mode = take(&r, 1);
  uint32_t nj = 1 + take(&r, 2) % 300, mesh_count = 1 + take(&r, 1) % 3;
  uint32_t bits = (mode & 1) ? 16 : 8, k = 1 + (mode >> 1) % 8;
  sk_error err;
  const sk_skeleton* skel = chain(nj);
  sk_skf_mesh ms[3];
  memset(ms, 0, sizeof ms);
  for (uint32_t m = 0; m < mesh_count; ++m) {
    size_t nv = take(&r, 1) * 4u;
    sk_skin* s = NULL;
    if (sk_skin_create(nv, nj, &s, &err)) {
      fprintf(stderr, "skin: %s\n", err.message);
      abort();
    }
    for (size_t v = 0; v < nv && r.n; ++v) {
      uint32_t n = take(&r, 1) % 11, j[10];
      float w[10];
      for (uint32_t i = 0; i < n; ++i) {
        j[i] = take(&r, 2) % nj;
        uint32_t q = take(&r, 1);
        w[i] = q == 255 ? -1.0f : (float)q / 64.0f;
      }
      if (sk_skin_set_vertex(s, v, j, w, n, &err)) abort();
    }
    ms[m].skin = s;
    if ((mode & 0x40) && nv) {
      size_t ni = 3 * (take(&r, 1) % 64);
      uint32_t* ix = malloc(ni * sizeof *ix + 1);
      for (size_t i = 0; i < ni; ++i) ix[i] = take(&r, 2) % (uint32_t)nv;
      ms[m].indices = ix;
      ms[m].index_count = ni;
    }
    if ((mode & 0x80) && nv) { /* positions with repeats: the encoder may weld (copies with equal influences) */
      float* pos = malloc(3 * nv * sizeof *pos);
      uint32_t spread = 1 + take(&r, 1);
      for (size_t v = 0; v < nv; ++v) {
        pos[3 * v] = (float)(take(&r, 1) % spread);
        pos[3 * v + 1] = (v & 1) ? 0.0f : -0.0f;
        pos[3 * v + 2] = 1.0f;
      }
      ms[m].positions = pos;
    }
  }
  sk_skf_encode_desc d = {0};
  d.size = sizeof d;
  d.weight_bits = bits;
  d.max_influences = k;
  d.level = (mode & 0x10) ? 9u : 1u;
  d.flags = (mode & 0x20) ? SK_SKF_FAST : 0u; /* the speed profile (.skf 3.1) */
  d.skeleton = skel;
  d.meshes = ms;
  d.mesh_count = mesh_count;
  size_t bound = sk_skf_encode_bound(&d), n = 0;
  if (!bound) {
    fprintf(stderr, "bound is 0\n");
    abort();
  }
  unsigned char* buf = malloc(bound);
  if (sk_skf_encode(&d, buf, bound, &n, &err)) {
    fprintf(stderr, "encode failed: %s\n", err.message);
    abort();
  }
  uint32_t total = bits == 16 ? 65535u : 255u;
  for (uint32_t m = 0; m < mesh_count; ++m) {
    size_t nv = sk_skin_vertex_count(ms[m].skin);
    uint16_t* jo = malloc(nv * k * 2 + 2);
    uint16_t* we = malloc(nv * k * 2 + 2);
    sk_skf_decode_desc dd = {0};
    dd.size = sizeof dd;
    dd.mesh = m;
    dd.influences = k;
    dd.joint_type = SK_TYPE_U16;
    dd.weight_type = SK_TYPE_U16;
    dd.joints = jo;
    dd.weights = we;
    dd.vertex_capacity = nv;
    dd.indices = ms[m].indices;
    dd.index_count = ms[m].index_count;
    dd.positions = ms[m].positions;
    if (sk_skf_decode(buf, n, &dd, &err)) {
      fprintf(stderr, "decode failed: %s\n", err.message);
      abort();
    }
    for (size_t v = 0; v < nv; ++v) {
      uint32_t cj[16], qj[8], qw[8];
      float cw[16];
      size_t cnt = sk_skin_get_vertex(ms[m].skin, v, cj, cw, 16);
      size_t q = skio_skf_quantize_vertex(cj, cw, cnt, k, total, qj, qw);
      uint32_t sum = 0;
      for (uint32_t s = 0; s < k; ++s) {
        uint32_t w = bits == 16 ? we[v * k + s] : we[v * k + s] / 257u;
        if (jo[v * k + s] != (s < q ? qj[s] : 0) || w != (s < q ? qw[s] : 0)) abort();
        sum += w;
      }
      if (sum != (q ? total : 0)) abort();
    }
    free(jo);
    free(we);
  }
  free(buf);
  for (uint32_t m = 0; m < mesh_count; ++m) {
    sk_skin_destroy((sk_skin*)ms[m].skin);
    free((void*)ms[m].indices);
    free((void*)ms[m].positions);
  }
  return 0;
}
