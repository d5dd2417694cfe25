/* bench_io.c - import cost of sk_scene_load next to Assimp's bare import, and validate throughput.
 *  (a) gltf/CesiumMan_subdiv2.glb: sk_scene_load (default options) against aiImportFile(path,
 *      aiProcess_Triangulate) + aiReleaseImport of the same file, interleaved, best of N each (process CPU
 *      time: the machine is shared, wall time would measure the neighbours; both are single-threaded).
 *      Prints BENCH import_over_assimp_subdiv2 <ours / assimp> ratio (target <= 1.15).
 *  (b) every corpus file: sk_scene_load + sk_scene_validate; prints files/s and MB/s of file bytes
 *      (BENCH validate_corpus <files/s> fps, BENCH validate_corpus_mbps <MB/s> mbps), best of N passes.
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
  double best_ours = 1e30, best_ai = 1e30;
  for (int r = 0; r < reps; ++r) {
    /* interleaved, alternating which goes first */
    double x, y;
    if (r & 1) {
      y = time_assimp(path);
      x = time_ours(path);
    } else {
      x = time_ours(path);
      y = time_assimp(path);
    }
    if (x < best_ours) best_ours = x;
    if (y < best_ai) best_ai = y;
  }
  printf("import subdiv2: sk_scene_load %.2f ms, aiImportFile %.2f ms (best of %d, CPU time)\n", best_ours * 1e3,
         best_ai * 1e3, reps);
  printf("BENCH import_over_assimp_subdiv2 %.3f ratio\n", best_ours / best_ai);

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
  double best_pass = 1e30;
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
    double dt = cpu_now() - t0;
    if (dt < best_pass) best_pass = dt;
  }
  printf("validate corpus: %zu files, %.1f MB in %.1f ms (best of %d; %u files with findings)\n", nfiles, bytes / 1e6,
         best_pass * 1e3, reps, findings_total);
  printf("BENCH validate_corpus %.2f fps\n", (double)nfiles / best_pass);
  printf("BENCH validate_corpus_mbps %.2f mbps\n", bytes / 1e6 / best_pass);
  return 0;
}
