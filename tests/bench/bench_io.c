/* bench_io.c - import cost of sk_scene_load next to Assimp's bare import, and validate throughput.
 *  (a) gltf/CesiumMan_subdiv2.glb: sk_scene_load (default options) against aiImportFile(path,
 *      aiProcess_Triangulate) + aiReleaseImport of the same file: N rounds, each timing both once (process CPU
 *      time: the machine is shared, wall time would measure the neighbours; both are single-threaded), the one
 *      that goes first alternating. Prints both times and the per-round ratio as median [min - max] over the
 *      rounds, and BENCH import_over_assimp_subdiv2 <median of ours / assimp> ratio (target <= 1.15).
 *  (b) every corpus file: sk_scene_load + sk_scene_validate; prints files/s and MB/s of file bytes
 *      (BENCH validate_corpus <files/s> fps, BENCH validate_corpus_mbps <MB/s> mbps), median of N passes, with
 *      the range of the pass times.
 * usage: bench_io [N]   (N = repetitions, default 7). Needs SKINKIT_ASSETS. */
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sk_testutil.h"
#include "skinkit.h"

static const char* const k_files[] = {
    "gltf/SimpleSkin.gltf",     "gltf/quad_skin.glb", "gltf/Fox.glb",
    "gltf/CesiumMan.glb",       "gltf/CesiumMan_subdiv2.glb",
    "fbx/huesitos.fbx",         "fbx/Fox_blender.fbx", "collada/CesiumMan_blender.dae",
    "x/Testwuson.X",            "b3d/character.b3d",  "md5/drone.md5mesh",
    "ogre/Clonk/Graphics.mesh",
};

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double time_ours(const char* path) {
  sk_error err;
  sk_scene* s = NULL;
  double t0 = cpu_now();
  if (sk_scene_load(path, NULL, &s, &err) != SK_OK) {
    fprintf(stderr, "FAIL %s: %s\n", path, err.message);
    exit(1);
  }
  sk_scene_destroy(s);
  return cpu_now() - t0;
}

static double time_assimp(const char* path) {
  double t0 = cpu_now();
  const struct aiScene* sc = aiImportFile(path, aiProcess_Triangulate);
  if (!sc) {
    fprintf(stderr, "FAIL assimp %s: %s\n", path, aiGetErrorString());
    exit(1);
  }
  aiReleaseImport(sc);
  return cpu_now() - t0;
}

int main(int argc, char** argv) {
  const char* dir = skt_assets_dir();
  if (!dir) return skt_assets_required() ? 1 : 0;
  int reps = argc > 1 ? atoi(argv[1]) : 7;
  if (reps < 1) reps = 1;

  /* (a) import overhead on the benchmark-sized file */
  char path[1024];
  snprintf(path, sizeof path, "%s", skt_asset("gltf/CesiumMan_subdiv2.glb"));
  time_ours(path); /* warm the page cache and Assimp's importer registry */
  time_assimp(path);
  double* ours = malloc(3 * (size_t)reps * sizeof *ours);
  if (!ours) return 1;
  double *ai = ours + reps, *ratio = ai + reps;
  for (int r = 0; r < reps; ++r) { /* both once a round, alternating which goes first */
    if (r & 1) {
      ai[r] = time_assimp(path);
      ours[r] = time_ours(path);
    } else {
      ours[r] = time_ours(path);
      ai[r] = time_assimp(path);
    }
    ratio[r] = ours[r] / ai[r];
  }
  const double mo = skt_median(ours, reps, NULL, NULL), ma = skt_median(ai, reps, NULL, NULL),
               mr = skt_median(ratio, reps, NULL, NULL);
  printf(
      "import subdiv2 (CPU time, median [min - max] over %d rounds): sk_scene_load %.2f [%.2f - %.2f] ms, "
      "aiImportFile %.2f [%.2f - %.2f] ms, ours / Assimp %.3f [%.3f - %.3f]\n",
      reps, mo * 1e3, ours[0] * 1e3, ours[reps - 1] * 1e3, ma * 1e3, ai[0] * 1e3, ai[reps - 1] * 1e3, mr, ratio[0],
      ratio[reps - 1]);
  printf("BENCH import_over_assimp_subdiv2 %.3f ratio\n", mr);
  free(ours);

  /* (b) load + validate over the corpus */
  size_t nfiles = sizeof k_files / sizeof k_files[0];
  double bytes = 0.0;
  for (size_t f = 0; f < nfiles; ++f) {
    struct stat st;
    if (stat(skt_asset(k_files[f]), &st) != 0) {
      fprintf(stderr, "FAIL missing %s\n", k_files[f]);
      return 1;
    }
    bytes += (double)st.st_size;
  }
  double* pass = malloc((size_t)reps * sizeof *pass);
  if (!pass) return 1;
  uint32_t findings_total = 0;
  for (int r = 0; r < reps; ++r) {
    double t0 = cpu_now();
    findings_total = 0;
    for (size_t f = 0; f < nfiles; ++f) {
      sk_error err;
      sk_scene* s = NULL;
      if (sk_scene_load(skt_asset(k_files[f]), NULL, &s, &err) != SK_OK) {
        fprintf(stderr, "FAIL %s: %s\n", k_files[f], err.message);
        return 1;
      }
      sk_mesh_report reps_[8];
      memset(reps_, 0, sizeof reps_);
      for (int m = 0; m < 8; ++m) reps_[m].size = sizeof reps_[m];
      uint32_t findings = 0;
      if (sk_scene_validate(s, NULL, reps_, 8, &findings, &err) != SK_OK) {
        fprintf(stderr, "FAIL validate %s: %s\n", k_files[f], err.message);
        return 1;
      }
      findings_total += findings;
      sk_scene_destroy(s);
    }
    pass[r] = cpu_now() - t0;
  }
  const double mp = skt_median(pass, reps, NULL, NULL);
  printf(
      "validate corpus: %zu files, %.1f MB in %.1f [%.1f - %.1f] ms (median [min - max] of %d passes; %u files "
      "with findings)\n",
      nfiles, bytes / 1e6, mp * 1e3, pass[0] * 1e3, pass[reps - 1] * 1e3, reps, findings_total);
  printf("BENCH validate_corpus %.2f fps\n", (double)nfiles / mp);
  printf("BENCH validate_corpus_mbps %.2f mbps\n", bytes / 1e6 / mp);
  free(pass);
  return 0;
}
