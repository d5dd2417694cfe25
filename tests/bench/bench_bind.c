/* bench_bind.c - automatic binding time on generated cylinders (3-bone chain along the axis).
 *
 * Meshes: sk_mesh_cylinder with 128 x 300 (38,786 vertices, the size of the Blender comparison cylinder) and
 * 256 x 780 (200,450 vertices). Best of a few runs, wall time from the bind report (validation, visibility,
 * factorization, solves and writing the skin). Prints "BENCH <name> <value> <unit>" lines and the speedup
 * against Blender 3.4 "With Automatic Weights" reference timings measured on this machine (2.2 s at 38.7k
 * vertices, 26 s at 200k vertices; lower ends of the measured ranges). Asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skinkit.h"

typedef struct bench_mesh {
  const char* name;
  uint32_t segments, rings;
  double blender_ms;
} bench_mesh;

int main(void) {
  const bench_mesh meshes[2] = {{"40k", 128, 300, 2200.0}, {"200k", 256, 780, 26000.0}};
  const struct {
    const char* name;
    sk_bind_method method;
  } methods[3] = {{"heat", SK_BIND_HEAT}, {"robust", SK_BIND_ROBUST}, {"nearest", SK_BIND_NEAREST}};
  for (int mi = 0; mi < 2; ++mi) {
    sk_cylinder_desc cd = {.size = sizeof cd, .segments = meshes[mi].segments, .rings = meshes[mi].rings,
                           .bones = 3, .radius = 0.25f, .length = 2.0f};
    size_t nv = 0, nt = 0;
    sk_error err;
    if (sk_mesh_cylinder(&cd, &nv, &nt, NULL, NULL, NULL, NULL, &err)) return 1;
    float* pos = malloc(nv * 3 * sizeof *pos);
    uint32_t* tri = malloc(nt * 3 * sizeof *tri);
    sk_skin* skin = NULL;
    if (!pos || !tri || sk_mesh_cylinder(&cd, NULL, NULL, pos, NULL, tri, NULL, &err) ||
        sk_skin_create(nv, 3, &skin, &err)) {
      fprintf(stderr, "setup failed: %s\n", err.message);
      return 1;
    }
    float heads[9] = {0}, tails[9] = {0};
    for (int b = 0; b < 3; ++b) {
      heads[3 * b] = 2.0f * (float)b / 3.0f;
      tails[3 * b] = 2.0f * (float)(b + 1) / 3.0f;
    }
    printf("mesh %s: %zu vertices, %zu triangles, 3 bones\n", meshes[mi].name, nv, nt);
    for (int k = 0; k < 3; ++k) {
      sk_bind_desc d;
      memset(&d, 0, sizeof d);
      d.size = sizeof d;
      d.method = methods[k].method;
      d.positions = pos;
      d.vertex_count = nv;
      d.triangles = tri;
      d.triangle_count = nt;
      d.heads = heads;
      d.tails = tails;
      d.joint_count = 3;
      double best = 1e300;
      int runs = mi == 0 ? 5 : 3;
      for (int r = 0; r < runs; ++r) {
        sk_bind_report rep;
        memset(&rep, 0, sizeof rep);
        rep.size = sizeof rep;
        if (sk_bind(&d, skin, &rep, &err)) {
          fprintf(stderr, "bind failed: %s\n", err.message);
          return 1;
        }
        if (rep.milliseconds < best) best = rep.milliseconds;
      }
      printf("BENCH bind_%s_%s_ms %.2f ms\n", methods[k].name, meshes[mi].name, best);
      printf("  vs Blender reference (%.1f s): %.0fx faster\n", meshes[mi].blender_ms / 1000.0,
             meshes[mi].blender_ms / best);
    }
    sk_skin_destroy(skin);
    free(pos);
    free(tri);
  }
  return 0;
}
