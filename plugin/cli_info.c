/* cli_info.c - `skinkit info FILE [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_skf.h"
#include "skinkit.h"

const char cli_info_usage[] =
    "usage: skinkit info FILE [--json]\n"
    "  Meshes, vertices, joints, influence histogram, weight-sum range and animations of one file.\n"
    "  For an .skf file: header, meshes and the chunk list (tag, stored and raw sizes, influence_bytes).\n";

int cli_info(int argc, char** argv) {
  const char* path = NULL;
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!path && argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "skinkit info: unexpected argument %s\n%s", argv[i], cli_info_usage);
      return 2;
    }
  }
  if (!path) {
    fputs(cli_info_usage, stderr);
    return 2;
  }
  if (cli_check_input("info", path)) return 2;
  if (cli_skf_is_skf(path)) return cli_skf_info(argc, argv);
  sk_error err;
  sk_scene* s = NULL;
  if (cli_load_scene("info", path, &s)) return 2;
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nm = sk_scene_mesh_count(s), na = sk_scene_animation_count(s);
  sk_mesh_report* reps = calloc(nm ? nm : 1, sizeof *reps);
  for (uint32_t m = 0; m < nm; ++m) reps[m].size = sizeof *reps;
  int skinned = sk_scene_validate(s, NULL, reps, nm, NULL, &err) == SK_OK;
  uint32_t joints = sk ? sk_skeleton_joint_count(sk) : 0;
  if (json) {
    printf("{\"path\":");
    cli_json_string(stdout, path);
    printf(",\"load_seconds\":%.4f,\"joints\":%u,\"meshes\":[", sk_scene_load_seconds(s), joints);
    for (uint32_t m = 0; m < nm; ++m) {
      const sk_skin_report* r = &reps[m].skin;
      printf("%s{\"name\":", m ? "," : "");
      cli_json_string(stdout, sk_scene_mesh_name(s, m));
      printf(",\"vertices\":%zu,\"triangles\":%zu,\"skinned\":%s", sk_scene_mesh_vertex_count(s, m),
             sk_scene_mesh_index_count(s, m) / 3, reps[m].skinned ? "true" : "false");
      if (reps[m].skinned) {
        printf(",\"max_influences\":%u,\"weight_sum_min\":%.6g,\"weight_sum_max\":%.6g,\"histogram\":[",
               r->max_influences, r->weight_sum_min, r->weight_sum_max);
        for (int b = 0; b < SK_HISTOGRAM_BINS; ++b) printf("%s%llu", b ? "," : "", (unsigned long long)r->histogram[b]);
        printf("]");
      }
      printf("}");
    }
    printf("],\"animations\":[");
    for (uint32_t a = 0; a < na; ++a) {
      printf("%s{\"name\":", a ? "," : "");
      cli_json_string(stdout, sk_scene_animation_name(s, a));
      printf(",\"duration\":%.4f}", sk_scene_animation_duration(s, a));
    }
    printf("]}\n");
  } else {
    printf("%s: %u mesh(es), %u joint(s), %u animation(s), loaded in %.3f s%s\n", path, nm, joints, na,
           sk_scene_load_seconds(s), skinned ? "" : " -- no skin");
    for (uint32_t m = 0; m < nm; ++m) {
      const sk_skin_report* r = &reps[m].skin;
      printf("  mesh %u \"%s\": %zu vertices, %zu triangles", m, sk_scene_mesh_name(s, m),
             sk_scene_mesh_vertex_count(s, m), sk_scene_mesh_index_count(s, m) / 3);
      if (!reps[m].skinned) {
        printf(", not skinned\n");
        continue;
      }
      printf(", max %u influences, weight sums %.4f..%.4f\n    influences:", r->max_influences, r->weight_sum_min,
             r->weight_sum_max);
      for (int b = 0; b < SK_HISTOGRAM_BINS; ++b)
        if (r->histogram[b]) printf(" %d%s:%llu", b, b == SK_HISTOGRAM_BINS - 1 ? "+" : "", (unsigned long long)r->histogram[b]);
      printf("\n");
    }
    for (uint32_t a = 0; a < na && a < 20; ++a)
      printf("  animation %u \"%s\": %.3f s\n", a, sk_scene_animation_name(s, a), sk_scene_animation_duration(s, a));
    if (na > 20) printf("  ... %u more animations\n", na - 20);
    sk_error e;
    if (!skinned && sk_scene_require_skin(s, &e) == SK_ERR_NO_SKIN) printf("  note: %s\n", e.message);
  }
  free(reps);
  sk_scene_destroy(s);
  return 0;
}
