#define _POSIX_C_SOURCE 200809L /* mkdtemp, clock_gettime */
#define _DEFAULT_SOURCE /* wait4 */
/* bench_bind.c - automatic binding: speed and quality against Blender 3.4's automatic weights, in one run.
 *
 *   build/bench_bind [--quick] [--no-blender] [--only NAME] [--keep]
 *
 * Blender: env SKINKIT_BLENDER, else `blender` on PATH, run once for all jobs as `blender -b --factory-startup
 * --python tests/bench/blender_autoweights.py -- JOBS.json` (the script sits beside this file; env
 * SKINKIT_BENCH_SCRIPTS overrides its folder). Without Blender a line says so and only our figures are printed.
 * Work files go to a fresh /tmp/skinkit_bench_bind.XXXXXX (removed at the end unless --keep or a Blender job
 * failed; Blender's output is blender.log there).
 *
 * Speed (issue 6): closed cylinders from sk_mesh_cylinder along +X with a 3-bone chain (128 x 300 = 38,786 and
 * 256 x 780 = 200,450 vertices), and gltf/CesiumMan_subdiv2.glb (one mesh, 19 bones; 92,569 vertices as both
 * Assimp and Blender's glTF importer load it, 67,279 once identical ones are joined). Each cylinder is written as a raw
 * file (positions, triangles, bone segments) that the Blender script builds with foreach_set (same vertices, same
 * order) with an armature whose bones are exactly our segments; Blender times
 * bpy.ops.object.parent_set(type='ARMATURE_AUTO') only. Ours: sk_bind (wall time from its report; it uses both cores),
 * every method 7 / 3 / 1 times (a run over 5 s is not repeated): median [min - max]. Against Blender, each cylinder
 * given to it runs in 3 rounds, each round one in-process bind of the default method, one `skinkit bind` process
 * and one Blender process (ARMATURE_AUTO once on the cylinder built afresh), their order rotating with the round so
 * that a slow phase of the shared machine falls on every side of a ratio: the speedups (Blender / ours) are taken
 * per round, and their median and range printed. Wall and process CPU times are both printed. Prints `BENCH
 * bind_<method>_<mesh>_ms` (median), `BENCH blender_autoweights_<mesh>_ms` (the median of the rounds) and `BENCH
 * bind_<method>_<mesh>_speedup <Blender wall time / our wall time> ratio` (the default method: the median of the
 * rounds' ratios; the others: the two medians). CesiumMan_subdiv2 (a speed asset) runs the same rounds after its
 * quality figures, Blender importing the file afresh in each (its import job, timed call only).
 *
 * The CLI as users run it (issue 20): `skinkit bind IN OUT --force` (default method, isolated reading) as a whole
 * process, fork/exec of the skinkit binary beside this program (env SKINKIT_CLI overrides) on each cylinder
 * (written as .glb by `skinkit sample`, same mesh and bones) and on CesiumMan_subdiv2: wall, user and system time
 * and peak RSS from wait4 (they include the isolated reader child), best wall of up to 5 runs (1 at 614k), user
 * and sys of the run that used least CPU, and the median [min - max] over the runs of each run's sys / user
 * (`BENCH cli_bind_<mesh>_sys_over_user_median_pct`: the least-CPU run is often the one that found its huge pages
 * cleared cheaply, so its share alone flatters). A third cylinder, 512 x 1196 = 613,890 vertices (full runs only, not
 * given to Blender), is the memory yardstick. Prints `BENCH cli_bind_<mesh>_{wall,user,sys}_ms`,
 * `BENCH cli_bind_<mesh>_peak_kb_per_vertex`, `BENCH cli_bind_<mesh>_speedup <Blender wall / CLI wall> ratio` (the
 * median of the rounds' ratios), a table, and `BENCH bind_peak_kb_per_vertex <KB> KB` for the largest
 * mesh the CLI bound. Growth from the 40k to the
 * 200k cylinder as the exponent of the vertex ratio: `BENCH bind_<method>_growth_40k_200k` (in process: the median
 * of 9 alternated pairs, then min .. max) and `BENCH cli_bind_growth_40k_200k` (whole CLI).
 *
 * Quality: every corpus asset with artist weights (SKINKIT_ASSETS): all twelve files of its README, as they are
 * small (the largest, CesiumMan_subdiv2, only in full runs). Per skinned mesh: a skeleton whose rest pose is the
 * mesh's bind pose (rest local = IB_parent * B_j from the mesh's inverse binds), the artist weights set aside, a
 * bind with each method over the joints the mesh binds (bone segments as sk_skeleton_bone_segments), and scores
 * against the artist's weights:
 *   (a) weight error: mean over vertices of 1/2 L1 between the normalized weight vectors (joints by name; weight
 *       Blender puts on a group no joint matches counts as error);
 *   (b) deformation error: LBS (sk_deform_run, weights normalized on the fly) with the artist's weights and with
 *       ours over 24 seeded random poses (every joint the mesh binds rotated in its bind frame by up to 40
 *       degrees about a uniformly random axis; palettes from sk_skeleton_palette_from_trs): mean and max vertex
 *       distance in % of the asset's bounding-box diagonal. Non-deforming ancestors (scene root, "Armature")
 *       stay: turning them only moves the whole mesh rigidly, around a pivot that can lie far away (huesitos:
 *       300 units off a 5-unit mesh), which would turn a vertex left without weights into a 2000 % outlier.
 * Blender's automatic weights come from the same run for the files Blender 3.4 imports (glTF/GLB, FBX, Collada;
 * .x, .b3d, .md5mesh and Ogre are scored for us only) and are scored the same way, after each of our vertices
 * takes the weights of the nearest Blender vertex (the script's docstring says how: similarity among the 48 axis
 * permutations/flips, scale and centre from the bounding boxes, k-d tree; the match distance is printed) and
 * Blender's groups are matched to our joints by name (exact, else the unique joint name ending in it after a
 * separator: Assimp names Collada joints by node id; a glTF node without a name is "Node_N" in Blender and
 * "nodes[N]" in Assimp). We bind with as many influences per vertex as the artist used, at least sk_bind's
 * default 4 (quad_skin: 10; Blender has no limit). An asset whose bones do not sit in its mesh as loaded
 * (fewer than half the bound joints' bind-space heads inside the padded mesh box: an import problem) gets a
 * WARNING and no ratio lines. Bound joints whose segments all collapse onto one point (quad_skin, SimpleSkin) get
 * a note: sk_bind binds coincident bones as one group sharing its weight evenly, as Blender does. Prints
 * `BENCH bind_<method>_<asset>_deform_mean <our % / Blender's %> ratio` (< 1: closer to the artist than Blender),
 * the raw figures and a table. Vertices are those Assimp loads (no joining):
 * seam duplicates count several times, for us and for Blender alike.
 *
 * --quick (or env SKINKIT_BENCH_QUICK=1): the 40k cylinder and the assets but CesiumMan_subdiv2 (~1-2 min).
 * --only NAME: only meshes/assets whose name contains NAME. --no-blender: our figures only. --per-joint: for each
 * asset and method, the deformation error split by the artist's dominant joint of each vertex (mesh units; the
 * figures of one line add up to the mean distance), to see which body part carries the error; with env
 * SKINKIT_BENCH_PER_JOINT_MIX=1 also the bone segments and, per artist joint, where each method puts the weight
 * of its vertices (the artist's own distribution first, on the Blender line).
 * Asserts nothing, but exits 1 if sk_bind fails on any mesh or asset (or the setup fails, e.g. a corpus file is
 * missing while SKINKIT_ASSETS is set), so a broken method is loud.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "sk_hardcases.h"
#include "sk_testutil.h"
#include "skinkit.h"

/* The methods measured: adding one is one line. max_vertices keeps the run within its time budget (0 = no
 * limit; none needed since Delaunay binding tetrahedralizes a sample of at most ~4000 vertices). */
typedef struct bench_method {
  const char* name;
  uint32_t method;
  size_t max_vertices;
} bench_method;
static const bench_method k_methods[] = {
    {"heat", SK_BIND_HEAT, 0},       {"robust", SK_BIND_ROBUST, 0},         {"nearest", SK_BIND_NEAREST, 0},
    {"capsule", SK_BIND_CAPSULE, 0}, {"delaunay", SK_BIND_DELAUNAY, 0},
};
#define METHOD_COUNT (sizeof k_methods / sizeof k_methods[0])

#define POSES 24
#define MAX_ANGLE_DEG 40.0
#define REPEAT_BELOW_MS 5000.0 /* a bind slower than this is not repeated (best of 1) */

typedef struct cylinder_def {
  const char* name;
  uint32_t segments, rings;
  int runs_ours, rounds_blender, full_only; /* rounds_blender: rounds of ours, the CLI and Blender alternated */
} cylinder_def;
static const cylinder_def k_cylinders[] = {
    {"40k", 128, 300, 7, 3, 0}, {"200k", 256, 780, 3, 3, 1}, {"614k", 512, 1196, 1, 0, 1} /* no Blender: memory */};
#define MAX_ROUNDS 3
#define CYLINDER_COUNT (sizeof k_cylinders / sizeof k_cylinders[0])

typedef struct asset_def {
  const char* path; /* relative to SKINKIT_ASSETS, or a file of the work dir for generated cases */
  int blender;      /* Blender 3.4 has an importer for it */
  int speed;        /* also a speed mesh */
  int full_only;    /* skipped by --quick */
  int generated;    /* written by skt_write_hard_cases (sk_hardcases.c) with reference weights */
} asset_def;
static const asset_def k_assets[] = {
    {"gltf/SimpleSkin.gltf", 1, 0, 0, 0},          {"gltf/quad_skin.glb", 1, 0, 0, 0},
    {"gltf/Fox.glb", 1, 0, 0, 0},                  {"gltf/CesiumMan.glb", 1, 0, 0, 0},
    {"gltf/CesiumMan_subdiv2.glb", 1, 1, 1, 0},    {"fbx/huesitos.fbx", 1, 0, 0, 0},
    {"fbx/Fox_blender.fbx", 1, 0, 0, 0},           {"collada/CesiumMan_blender.dae", 1, 0, 0, 0},
    {"x/Testwuson.X", 0, 0, 0, 0},                 {"b3d/character.b3d", 0, 0, 0, 0},
    {"md5/drone.md5mesh", 0, 0, 0, 0},             {"ogre/Clonk/Graphics.mesh", 0, 0, 0, 0},
    {"multipart.glb", 1, 0, 0, 1},              {"outside.glb", 1, 0, 0, 1},
};
#define ASSET_COUNT (sizeof k_assets / sizeof k_assets[0])

/* What the Blender script reported for one job. */
typedef struct blender_result {
  int ran;                /* a job was submitted */
  int ok;
  char error[256];
  double seconds;     /* wall time of ARMATURE_AUTO: the best of the job's calls (after rounds alternated with
                       * ours: their median) */
  double cpu_seconds; /* process CPU time of the call of least CPU */
  int runs;
  long unweighted, blender_vertices;
  double match_mean_pct, match_max_pct;
  char** groups;          /* group names (weights file columns) */
  uint32_t group_count;
  float* weights;         /* our_vertices x group_count, or NULL */
} blender_result;

typedef struct score {
  int ok;                 /* figures valid */
  double ms;              /* best sk_bind wall time (ours; Blender: its ARMATURE_AUTO) */
  double cpu_ms;          /* best process CPU time of those calls (all threads) */
  double werr_sum, dist_sum, dist_max;
  size_t vertices;        /* weight error samples; distances: vertices * POSES */
  uint64_t fallback;
} score;

/* One `skinkit` process: wall time, user and system CPU time and peak resident memory (wait4; they include the
 * isolated reader child, which the CLI waits for). */
typedef struct cli_run {
  int ok;
  double wall_ms, user_ms, sys_ms;
  long maxrss_kb;
  double speedup;                 /* Blender / this, the median of rounds alternated with Blender (0: not so) */
  double sys_pct, sys_lo, sys_hi; /* system / user time of each run, %: median and range */
} cli_run;

typedef struct part { /* one skinned mesh of an asset */
  size_t nv, nt;
  float* pos;
  uint32_t* tri;
  sk_skeleton* skel;      /* rest pose = this mesh's bind pose */
  uint8_t* deform;        /* joints the mesh binds */
  uint32_t *a_off, *a_jt; /* the artist's CSR weights */
  float* a_w;
  float* palettes;        /* POSES x 16 J */
  float* artist_posed;    /* POSES x 3 nv */
} part;

typedef struct asset {
  const asset_def* def;
  char name[64];
  int loaded;
  sk_scene* scene;
  uint32_t joints, deform_joints;
  part* parts;
  uint32_t part_count;
  size_t nv;              /* all parts */
  double diag;
  uint32_t heads_inside, heads_bound; /* bound joints whose bind-space head lies in the mesh's (padded) box */
  int bones_coincide;     /* every bound joint's segment is the same point: no method can tell bones apart */
  uint32_t budget;        /* influences per vertex we bind with: the artist's largest count, at least 4 */
  char file[512];         /* the file read (corpus or work dir) */
  char ours_path[512], out_prefix[512];
  blender_result bl;
  score ours[METHOD_COUNT];
  score blender;
  cli_run cli;            /* speed assets: `skinkit bind` as a whole process */
} asset;

typedef struct cylinder {
  const cylinder_def* def;
  size_t nv, nt;
  float* pos;
  uint32_t* tri;
  char mesh_path[512], out_prefix[512];
  blender_result bl;
  double ours_ms[METHOD_COUNT], ours_cpu_ms[METHOD_COUNT];
  int ours_ok[METHOD_COUNT];
  cli_run cli; /* `skinkit bind` as a whole process */
} cylinder;

static int g_failures; /* sk_bind errors and setup failures: exit status 1 */
static int g_per_joint;   /* --per-joint: deformation error by the artist's dominant joint */
static const char* g_label = ""; /* what score_part is scoring (for --per-joint) */
static char g_workdir[256];

/* ------------------------------------------------------------------------------------------ small helpers */

static int method_skipped(size_t k, size_t vertices) {
  if (!k_methods[k].max_vertices || vertices <= k_methods[k].max_vertices) return 0;
  printf("  %s: skipped on %zu vertices (benchmark limit %zu, time budget)\n", k_methods[k].name, vertices,
         k_methods[k].max_vertices);
  return 1;
}

static double cpu_ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void fail(const char* what, const char* name, const sk_error* err) {
  fprintf(stderr, "FAIL %s (%s): %s\n", what, name, err ? err->message : "");
  printf("FAIL %s (%s): %s\n", what, name, err ? err->message : "");
  ++g_failures;
}

static void safe_name(const char* path, char* out, size_t cap) {
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = 0;
  for (const char* p = base; *p && *p != '.' && n + 1 < cap; ++p)
    out[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_');
  out[n] = 0;
  if (!strcmp(out, "Graphics")) snprintf(out, cap, "Clonk"); /* ogre/Clonk/Graphics.mesh */
}

static int write_file(const char* path, const void* const* chunks, const size_t* sizes, int count) {
  FILE* f = fopen(path, "wb");
  if (!f) return 1;
  int bad = 0;
  for (int i = 0; i < count; ++i)
    if (sizes[i] && fwrite(chunks[i], 1, sizes[i], f) != sizes[i]) bad = 1;
  if (fclose(f)) bad = 1;
  return bad;
}

static char* read_text(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char* s = malloc(cap);
  while (s) {
    if (n + 2048 > cap) {
      char* t = realloc(s, cap *= 2);
      if (!t) {
        free(s);
        s = NULL;
        break;
      }
      s = t;
    }
    size_t got = fread(s + n, 1, cap - n - 1, f);
    n += got;
    if (!got) break;
  }
  fclose(f);
  if (s) s[n] = 0;
  return s;
}

/* Number after "key": in a flat JSON object (enough for the script's output); def when absent. */
static double json_number(const char* text, const char* key, double def) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char* p = strstr(text, pat);
  if (!p) return def;
  p += strlen(pat);
  while (*p == ' ') ++p;
  if (!strncmp(p, "true", 4)) return 1.0;
  if (!strncmp(p, "false", 5)) return 0.0;
  if (*p == '[') ++p;
  char* end;
  double v = strtod(p, &end);
  return end == p ? def : v;
}

/* Smallest number of the list after "key": [ ... ]; *count receives the list's length (0: absent or empty). */
static double json_list_min(const char* text, const char* key, int* count) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": [", key);
  double best = 1e300;
  *count = 0;
  const char* s = strstr(text, pat);
  if (!s) return best;
  s += strlen(pat);
  for (;;) {
    char* end;
    double v = strtod(s, &end);
    if (end == s) break;
    if (v < best) best = v;
    ++*count;
    s = end;
    while (*s == ',' || *s == ' ') ++s;
  }
  return best;
}

static void free_blender(blender_result* b) {
  for (uint32_t i = 0; i < b->group_count; ++i) free(b->groups[i]);
  free(b->groups);
  free(b->weights);
  memset(b, 0, sizeof *b);
}

/* Reads PREFIX.json (+ PREFIX.groups and PREFIX.f32 for import jobs with rows = our vertex count). */
static void read_blender(const char* prefix, size_t rows, blender_result* b) {
  char path[600];
  snprintf(path, sizeof path, "%s.json", prefix);
  char* js = read_text(path);
  if (!js) {
    snprintf(b->error, sizeof b->error, "no result (Blender crashed or timed out? see %.120s/blender.log)", g_workdir);
    return;
  }
  b->ok = json_number(js, "ok", 0) != 0;
  const char* e = strstr(js, "\"error\": \"");
  if (e) {
    e += 10;
    size_t n = 0;
    while (e[n] && e[n] != '"' && n + 1 < sizeof b->error) ++n;
    memcpy(b->error, e, n);
    b->error[n] = 0;
  }
  b->unweighted = (long)json_number(js, "unweighted", 0);
  b->blender_vertices = (long)json_number(js, "blender_vertices", 0);
  b->match_mean_pct = json_number(js, "match_mean_pct", -1);
  b->match_max_pct = json_number(js, "match_max_pct", -1);
  b->seconds = json_list_min(js, "seconds", &b->runs);
  int cpu_runs = 0;
  b->cpu_seconds = json_list_min(js, "cpu_seconds", &cpu_runs);
  free(js);
  if (!b->runs) b->ok = 0;
  if (!b->ok || !rows) return;
  snprintf(path, sizeof path, "%s.groups", prefix);
  char* names = read_text(path);
  if (!names) {
    b->ok = 0;
    snprintf(b->error, sizeof b->error, "missing %.200s", path);
    return;
  }
  for (char* p = names; *p; ++p) b->group_count += *p == '\n';
  b->groups = calloc(b->group_count ? b->group_count : 1, sizeof *b->groups);
  char* line = names;
  for (uint32_t g = 0; b->groups && g < b->group_count; ++g) {
    char* nl = strchr(line, '\n');
    *nl = 0;
    b->groups[g] = strdup(line);
    if (!b->groups[g]) b->group_count = g; /* out of memory: the check below fails the job */
    line = nl + 1;
  }
  free(names);
  size_t count = rows * b->group_count;
  b->weights = malloc((count ? count : 1) * sizeof *b->weights);
  snprintf(path, sizeof path, "%s.f32", prefix);
  FILE* f = fopen(path, "rb");
  if (!b->groups || !b->weights || !f || fread(b->weights, sizeof *b->weights, count, f) != count ||
      fgetc(f) != EOF) {
    b->ok = 0;
    snprintf(b->error, sizeof b->error, "cannot read %.160s (%zu x %u floats)", path, rows, b->group_count);
  }
  if (f) fclose(f);
}

static const char* find_blender(char* buf, size_t cap) {
  const char* env = getenv("SKINKIT_BLENDER");
  if (env && env[0]) return access(env, X_OK) == 0 ? env : NULL;
  const char* path = getenv("PATH");
  while (path && *path) {
    const char* colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    snprintf(buf, cap, "%.*s/blender", (int)n, path);
    if (n && access(buf, X_OK) == 0) return buf;
    path = colon ? colon + 1 : NULL;
  }
  return NULL;
}

/* ------------------------------------------------------------------------------------------ math */

static void mat4_mul(const float* a, const float* b, float* out) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      float s = 0;
      for (int k = 0; k < 4; ++k) s += a[k * 4 + r] * b[c * 4 + k];
      out[c * 4 + r] = s;
    }
}

static void quat_mul(const float* a, const float* b, float* out) {
  float x = a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1];
  float y = a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2];
  float z = a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0];
  float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  out[0] = x, out[1] = y, out[2] = z, out[3] = w;
}

static void random_rotation(skt_rng* rng, float* q) {
  float x, y, z, r2;
  do {
    x = skt_rand_range(rng, -1, 1), y = skt_rand_range(rng, -1, 1), z = skt_rand_range(rng, -1, 1);
    r2 = x * x + y * y + z * z;
  } while (r2 > 1.0f || r2 < 1e-6f);
  float inv = 1.0f / sqrtf(r2);
  double angle = skt_rand_float(rng) * MAX_ANGLE_DEG * 3.14159265358979323846 / 180.0;
  float s = (float)sin(angle / 2);
  q[0] = x * inv * s, q[1] = y * inv * s, q[2] = z * inv * s, q[3] = (float)cos(angle / 2);
}

/* ------------------------------------------------------------------------------------------ scoring */

/* 1/2 L1 between the normalized weight vectors of one vertex; `extra` is weight on joints outside the skeleton
 * (counted in b's sum and entirely as error). scratch: joint_count zeros, left zeroed. */
static double weight_error_vertex(const uint32_t* aj, const float* aw, uint32_t an, const uint32_t* bj,
                                  const float* bw, uint32_t bn, double extra, uint32_t joints, double* scratch) {
  double sa = 0, sb = extra;
  for (uint32_t i = 0; i < an; ++i) sa += aw[i] > 0 ? aw[i] : 0;
  for (uint32_t i = 0; i < bn; ++i) sb += bw[i] > 0 ? bw[i] : 0;
  for (uint32_t i = 0; i < an; ++i)
    if (aj[i] < joints && sa > 0 && aw[i] > 0) scratch[aj[i]] += aw[i] / sa;
  for (uint32_t i = 0; i < bn; ++i)
    if (bj[i] < joints && sb > 0 && bw[i] > 0) scratch[bj[i]] -= bw[i] / sb;
  double l1 = sb > 0 ? extra / sb : 0;
  for (uint32_t i = 0; i < an; ++i)
    if (aj[i] < joints) l1 += fabs(scratch[aj[i]]), scratch[aj[i]] = 0;
  for (uint32_t i = 0; i < bn; ++i)
    if (bj[i] < joints) l1 += fabs(scratch[bj[i]]), scratch[bj[i]] = 0;
  return 0.5 * l1;
}

static int deform_csr(const part* p, uint32_t joints, int pose, const uint32_t* off, const uint32_t* jt,
                      const float* w, float* out, sk_error* err) {
  sk_deform_job job;
  memset(&job, 0, sizeof job);
  job.size = sizeof job;
  job.method = SK_DEFORM_LBS;
  job.flags = SK_DEFORM_NORMALIZE_WEIGHTS;
  job.vertex_count = p->nv;
  job.palette = p->palettes + (size_t)pose * 16 * joints;
  job.joint_count = joints;
  job.csr_offsets = off;
  job.csr_joints = jt;
  job.csr_weights = w;
  job.in_positions = p->pos;
  job.out_positions = out;
  return sk_deform_run(&job, err);
}

/* Adds one part's figures for the weights (off, jt, w; extra per vertex or NULL) to s. */
static int score_part(const part* p, uint32_t joints, const uint32_t* off, const uint32_t* jt, const float* w,
                      const double* extra, score* s, sk_error* err) {
  double* scratch = calloc(joints, sizeof *scratch);
  float* posed = malloc(3 * p->nv * sizeof *posed);
  int rc = !scratch || !posed ? SK_ERR_OUT_OF_MEMORY : SK_OK;
  for (size_t v = 0; !rc && v < p->nv; ++v)
    s->werr_sum += weight_error_vertex(p->a_jt + p->a_off[v], p->a_w + p->a_off[v], p->a_off[v + 1] - p->a_off[v],
                                       jt + off[v], w + off[v], off[v + 1] - off[v], extra ? extra[v] : 0.0, joints,
                                       scratch);
  /* --per-joint: per artist-dominant joint, the distance sum and the vertex count */
  double* pj = g_per_joint || !strcmp(g_label, "artist") ? calloc(2 * (size_t)joints, sizeof *pj) : NULL;
  for (int k = 0; !rc && k < POSES; ++k) {
    rc = deform_csr(p, joints, k, off, jt, w, posed, err);
    const float* ref = p->artist_posed + (size_t)k * 3 * p->nv;
    for (size_t v = 0; !rc && v < p->nv; ++v) {
      double dx = posed[3 * v] - ref[3 * v], dy = posed[3 * v + 1] - ref[3 * v + 1],
             dz = posed[3 * v + 2] - ref[3 * v + 2];
      double d = sqrt(dx * dx + dy * dy + dz * dz);
      s->dist_sum += d;
      if (getenv("SKB_WORST") && (d > s->dist_max || (getenv("SKB_OVER") && d > atof(getenv("SKB_OVER"))))) {
        fprintf(stderr, "WORST %s v%zu pose %d d %.4f at (%.3f %.3f %.3f) ours:", g_label, v, k, d, p->pos[3*v], p->pos[3*v+1], p->pos[3*v+2]);
        for (uint32_t i = off[v]; i < off[v + 1]; ++i) fprintf(stderr, " %s=%.2f", sk_skeleton_joint_name(p->skel, jt[i]), w[i]);
        fprintf(stderr, " artist:");
        for (uint32_t i = p->a_off[v]; i < p->a_off[v + 1]; ++i) fprintf(stderr, " %s=%.2f", sk_skeleton_joint_name(p->skel, p->a_jt[i]), p->a_w[i]);
        fprintf(stderr, "\n");
      }
      if (d > s->dist_max) s->dist_max = d;
      if (pj && p->a_off[v + 1] > p->a_off[v]) {
        uint32_t best = p->a_off[v];
        for (uint32_t i = p->a_off[v]; i < p->a_off[v + 1]; ++i)
          if (p->a_w[i] > p->a_w[best]) best = i;
        if (p->a_jt[best] < joints) pj[2 * p->a_jt[best]] += d, pj[2 * p->a_jt[best] + 1] += k == 0;
      }
    }
  }
  if (pj && !rc && getenv("SKINKIT_BENCH_PER_JOINT_MIX") && !strcmp(g_label, "Blender")) {
    const char* saved = g_label;
    g_label = "artist";
    g_per_joint = 0;
    score tmp;
    memset(&tmp, 0, sizeof tmp);
    score_part(p, joints, p->a_off, p->a_jt, p->a_w, NULL, &tmp, err);
    g_per_joint = 1;
    g_label = saved;
  }
  if (pj && !rc) { /* sum of each joint's share of the total (so the columns add up to the mean) */
    printf("  per-joint %-8s", g_label);
    for (uint32_t j = 0; j < joints; ++j)
      if (pj[2 * j + 1] > 0)
        printf(" %s=%.4f", sk_skeleton_joint_name(p->skel, j), pj[2 * j] / ((double)p->nv * POSES));
    printf("\n");
    if (getenv("SKINKIT_BENCH_PER_JOINT_MIX")) { /* where the weight of each artist joint's vertices goes */
      double* mix = calloc((size_t)joints * joints, sizeof *mix);
      for (size_t v = 0; mix && v < p->nv; ++v) {
        if (p->a_off[v + 1] == p->a_off[v]) continue;
        uint32_t best = p->a_off[v];
        for (uint32_t i = p->a_off[v]; i < p->a_off[v + 1]; ++i)
          if (p->a_w[i] > p->a_w[best]) best = i;
        double sum = 0;
        for (uint32_t i = off[v]; i < off[v + 1]; ++i) sum += w[i];
        for (uint32_t i = off[v]; i < off[v + 1] && sum > 0; ++i)
          if (jt[i] < joints && p->a_jt[best] < joints) mix[(size_t)p->a_jt[best] * joints + jt[i]] += w[i] / sum;
      }
      for (uint32_t j = 0; mix && j < joints; ++j) {
        if (!(pj[2 * j + 1] > 0)) continue;
        printf("    %s (%g v):", sk_skeleton_joint_name(p->skel, j), pj[2 * j + 1]);
        for (uint32_t k = 0; k < joints; ++k)
          if (mix[(size_t)j * joints + k] / pj[2 * j + 1] > 0.02)
            printf(" %s %.2f", sk_skeleton_joint_name(p->skel, k), mix[(size_t)j * joints + k] / pj[2 * j + 1]);
        printf("\n");
      }
      free(mix);
    }
  }
  free(pj);
  if (!rc) s->vertices += p->nv;
  if (rc == SK_ERR_OUT_OF_MEMORY && err) snprintf(err->message, sizeof err->message, "out of memory");
  free(scratch);
  free(posed);
  return rc;
}

/* Fewer than half the bound joints' heads inside the mesh: the figures of this asset measure the import, not
 * the binding (no ratio lines). */
static int frames_disagree(const asset* a) { return 2 * a->heads_inside < a->heads_bound; }
/* Every bound bone at one point (quad_skin: ten zero-length bones at the origin; SimpleSkin: both joints'
 * bind-space segments collapse onto one point) still gets its ratio: coincident bones are bound as one group and
 * share its weight evenly, over as many influences as the artist used (a->budget), which is all any method can
 * do, Blender included. */
static int no_ratio(const asset* a) { return frames_disagree(a); }

static double werr(const score* s) { return s->vertices ? s->werr_sum / (double)s->vertices : 0; }
static double dmean_pct(const score* s, double diag) {
  return s->vertices ? 100.0 * s->dist_sum / ((double)s->vertices * POSES) / diag : 0;
}
static double dmax_pct(const score* s, double diag) { return 100.0 * s->dist_max / diag; }

/* ------------------------------------------------------------------------------------------ assets */

static void free_part(part* p) {
  free(p->pos);
  free(p->tri);
  sk_skeleton_destroy(p->skel);
  free(p->deform);
  free(p->a_off);
  free(p->a_jt);
  free(p->a_w);
  free(p->palettes);
  free(p->artist_posed);
}

/* Meshes m .. m + count - 1 as one part (one surface, as `skinkit bind` binds it: plugin/cli_surface.c): positions,
 * triangles and the artist's weights joined, the joints any of them binds, the first one's inverse binds into ib
 * (the surface rule gives them all the same). */
static int read_surface(asset* a, uint32_t m, uint32_t count, part* p, float* ib, sk_error* err) {
  size_t ni = 0;
  for (uint32_t k = m; k < m + count; ++k) {
    sk_skin* skin = sk_scene_mesh_skin(a->scene, k);
    if (!skin) {
      snprintf(err->message, sizeof err->message, "mesh %u has no skin", k);
      return SK_ERR_NO_SKIN;
    }
    p->nv += sk_scene_mesh_vertex_count(a->scene, k);
    p->nt += sk_scene_mesh_index_count(a->scene, k) / 3;
    ni += sk_skin_influence_count(skin);
  }
  p->deform = calloc(a->joints, 1);
  uint8_t* bound = calloc(a->joints, 1);
  p->pos = malloc(3 * p->nv * sizeof *p->pos);
  p->tri = malloc((3 * p->nt + 1) * sizeof *p->tri);
  p->a_off = malloc((p->nv + 2) * sizeof *p->a_off);
  p->a_jt = malloc((ni + 1) * sizeof *p->a_jt);
  p->a_w = malloc((ni + 1) * sizeof *p->a_w);
  int rc = SK_OK;
  if (!bound || !p->deform || !p->pos || !p->tri || !p->a_off || !p->a_jt || !p->a_w) {
    snprintf(err->message, sizeof err->message, "out of memory");
    rc = SK_ERR_OUT_OF_MEMORY;
  }
  size_t v0 = 0, t0 = 0, e0 = 0;
  for (uint32_t k = m; k < m + count && !rc; ++k) {
    sk_skin* skin = sk_scene_mesh_skin(a->scene, k);
    size_t nv = sk_scene_mesh_vertex_count(a->scene, k), nt = sk_scene_mesh_index_count(a->scene, k) / 3;
    sk_scene_mesh_positions(a->scene, k, p->pos + 3 * v0, 3 * nv);
    sk_scene_mesh_indices(a->scene, k, p->tri + 3 * t0, 3 * nt);
    for (size_t i = 3 * t0; i < 3 * (t0 + nt); ++i) p->tri[i] += (uint32_t)v0;
    rc = sk_scene_mesh_inverse_binds(a->scene, k, ib, bound, err); /* the same binds for every mesh of it */
    for (uint32_t j = 0; j < a->joints; ++j) p->deform[j] |= bound[j];
    if (!rc) rc = sk_skin_get_csr(skin, p->a_off + v0, p->a_jt + e0, p->a_w + e0, err);
    for (size_t v = v0; v <= v0 + nv && !rc; ++v) p->a_off[v] += (uint32_t)e0; /* the next mesh rewrites its first */
    v0 += nv, t0 += nt, e0 += sk_skin_influence_count(skin);
  }
  free(bound);
  return rc;
}

/* Skeleton of meshes m .. m + count - 1 (one surface: read_surface) whose rest pose is their bind pose, the joints
 * they bind, the artist weights, the random pose palettes and the artist's posed positions. */
static int load_part(asset* a, uint32_t m, uint32_t count, part* p, sk_error* err) {
  const sk_skeleton* sc = sk_scene_skeleton(a->scene);
  uint32_t J = a->joints;
  const char** names = calloc(J, sizeof *names);
  int32_t* parents = malloc(J * sizeof *parents);
  float* rest = malloc(16 * J * sizeof *rest);
  float* ib = malloc(16 * J * sizeof *ib);
  float* bind = malloc(16 * J * sizeof *bind);
  float* local = malloc(16 * J * sizeof *local);
  float* trs = malloc(10 * J * sizeof *trs);
  float* pose = malloc(10 * J * sizeof *pose);
  float* tails = malloc(3 * J * sizeof *tails + 1);
  sk_skeleton* tmp = NULL;
  int rc = SK_OK;
  if (!names || !parents || !rest || !ib || !bind || !local || !trs || !pose || !tails) {
    rc = SK_ERR_OUT_OF_MEMORY;
    snprintf(err->message, sizeof err->message, "out of memory");
  }
  if (!rc) rc = read_surface(a, m, count, p, ib, err);
  p->palettes = rc ? NULL : malloc((size_t)POSES * 16 * J * sizeof *p->palettes);
  p->artist_posed = rc ? NULL : malloc((size_t)POSES * 3 * p->nv * sizeof *p->artist_posed);
  if (!rc && (!p->palettes || !p->artist_posed)) {
    rc = SK_ERR_OUT_OF_MEMORY;
    snprintf(err->message, sizeof err->message, "out of memory");
  }
  if (!rc) {
    for (uint32_t j = 0; j < J; ++j) names[j] = sk_skeleton_joint_name(sc, j), parents[j] = sk_skeleton_joint_parent(sc, j);
    rc = sk_skeleton_get_rest_local(sc, rest);
  }
  /* the file's own tails (Blender's .dae and _end bones) carried into both skeletons */
  sk_skeleton_desc d = {.size = sizeof d,
                        .joint_count = J,
                        .names = names,
                        .parents = parents,
                        .rest_local = rest,
                        .inverse_bind = ib,
                        .tails = !rc && sk_skeleton_get_tails(sc, tails) ? tails : NULL};
  if (!rc) rc = sk_skeleton_create(&d, &tmp, err);
  if (!rc) rc = sk_skeleton_get_bind(tmp, bind);
  if (!rc) {
    for (uint32_t j = 0; j < J; ++j) {
      if (parents[j] < 0)
        memcpy(local + 16 * j, bind + 16 * j, 16 * sizeof *local);
      else
        mat4_mul(ib + 16 * (size_t)parents[j], bind + 16 * j, local + 16 * j);
    }
    d.rest_local = local;
    rc = sk_skeleton_create(&d, &p->skel, err);
  }
  if (!rc) {
    sk_skeleton_get_rest_trs(p->skel, trs); /* SK_ERR_UNSUPPORTED (shear) still writes the closest TRS */
    skt_rng rng = {0x5eed0000u + m};
    for (int k = 0; !rc && k < POSES; ++k) {
      memcpy(pose, trs, 10 * J * sizeof *pose);
      for (uint32_t j = 0; j < J; ++j) {
        float q[4];
        random_rotation(&rng, q);
        if (p->deform[j]) quat_mul(trs + 10 * j + 3, q, pose + 10 * j + 3);
      }
      rc = sk_skeleton_palette_from_trs(p->skel, pose, NULL, p->palettes + (size_t)k * 16 * J, err);
      if (!rc) rc = deform_csr(p, J, k, p->a_off, p->a_jt, p->a_w, p->artist_posed + (size_t)k * 3 * p->nv, err);
    }
  }
  uint32_t bound = 0;
  for (uint32_t j = 0; j < J && !rc; ++j) bound += p->deform[j] != 0;
  if (bound > a->deform_joints) a->deform_joints = bound;
  sk_skeleton_destroy(tmp);
  free(names);
  free(parents);
  free(rest);
  free(ib);
  free(bind);
  free(local);
  free(trs);
  free(pose);
  free(tails);
  return rc;
}

static int load_asset(asset* a, sk_error* err) {
  int rc = sk_scene_load(a->file, NULL, &a->scene, err);
  if (!rc) rc = sk_scene_require_skin(a->scene, err);
  if (rc) return rc;
  a->joints = sk_skeleton_joint_count(sk_scene_skeleton(a->scene));
  uint32_t meshes = sk_scene_mesh_count(a->scene);
  a->parts = calloc(meshes, sizeof *a->parts);
  if (!a->parts) return SK_ERR_OUT_OF_MEMORY;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  /* consecutive meshes of one surface are one part, bound as `skinkit bind` binds them (plugin/cli_surface.c) */
  uint8_t* skinned = calloc(meshes ? meshes : 1, 1);
  for (uint32_t m = 0; skinned && m < meshes; ++m) skinned[m] = sk_scene_mesh_skin(a->scene, m) != NULL;
  uint32_t* group = skinned ? cli_surface_groups(a->scene, skinned) : NULL;
  for (uint32_t m = 0, count = 1; m < meshes && !rc; m += count) {
    count = 1;
    if (!sk_scene_mesh_skin(a->scene, m)) continue;
    while (group && m + count < meshes && skinned[m + count] && group[m + count] == group[m]) ++count;
    part* p = &a->parts[a->part_count++];
    rc = load_part(a, m, count, p, err);
    a->nv += p->nv;
    for (size_t v = 0; v < p->nv * 3 && !rc; ++v) {
      if (p->pos[v] < lo[v % 3]) lo[v % 3] = p->pos[v];
      if (p->pos[v] > hi[v % 3]) hi[v % 3] = p->pos[v];
    }
  }
  free(skinned);
  free(group);
  a->budget = 4; /* sk_bind's default; more when the artist used more (quad_skin: 10), as Blender has no limit */
  for (uint32_t i = 0; i < a->part_count && !rc; ++i)
    for (size_t v = 0; v < a->parts[i].nv; ++v) {
      uint32_t used = 0;
      for (uint32_t e = a->parts[i].a_off[v]; e < a->parts[i].a_off[v + 1]; ++e) used += a->parts[i].a_w[e] > 0;
      if (used > a->budget) a->budget = used;
    }
  a->diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                 (hi[2] - lo[2]) * (hi[2] - lo[2]));
  /* Sanity of the import: the bones must sit in the mesh. Heads outside its box (padded by 5 % of the
   * diagonal) mean the mesh and the skeleton are in different frames as loaded. */
  float* heads = malloc(3 * (size_t)a->joints * sizeof *heads);
  float* tails = malloc(3 * (size_t)a->joints * sizeof *tails);
  float first[3] = {0, 0, 0};
  for (uint32_t i = 0; i < a->part_count && !rc && heads && tails; ++i) {
    const part* p = &a->parts[i];
    if (sk_skeleton_bone_segments(p->skel, SK_BONE_SPACE_BIND, heads, tails, err)) continue;
    for (uint32_t j = 0; j < a->joints; ++j) {
      if (g_per_joint && getenv("SKINKIT_BENCH_PER_JOINT_MIX") && i == 0)
        printf("    segment %s%s: %.3g %.3g %.3g -> %.3g %.3g %.3g\n", sk_skeleton_joint_name(p->skel, j),
               p->deform[j] ? "" : " (no deform)", heads[3 * j], heads[3 * j + 1], heads[3 * j + 2], tails[3 * j],
               tails[3 * j + 1], tails[3 * j + 2]);
      if (!p->deform[j]) continue;
      if (!a->heads_bound) memcpy(first, heads + 3 * j, sizeof first), a->bones_coincide = 1;
      for (int k = 0; k < 3; ++k)
        if (fabsf(heads[3 * j + k] - first[k]) > 1e-6f * (float)a->diag ||
            fabsf(tails[3 * j + k] - first[k]) > 1e-6f * (float)a->diag)
          a->bones_coincide = 0;
      int in = 1;
      for (int k = 0; k < 3; ++k)
        in &= heads[3 * j + k] >= lo[k] - 0.05 * a->diag && heads[3 * j + k] <= hi[k] + 0.05 * a->diag;
      a->heads_inside += (uint32_t)in;
      ++a->heads_bound;
    }
  }
  free(heads);
  free(tails);
  if (!rc && !(a->diag > 0)) {
    rc = SK_ERR_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message, "empty bounding box");
  }
  a->loaded = !rc;
  return rc;
}

static void free_asset(asset* a) {
  for (uint32_t i = 0; i < a->part_count; ++i) free_part(&a->parts[i]);
  free(a->parts);
  sk_scene_destroy(a->scene);
  free_blender(&a->bl);
}

/* Our positions for the Blender script (all parts, in order). */
static int write_ours(asset* a) {
  const void** chunks = calloc(a->part_count + 1, sizeof *chunks);
  size_t* sizes = calloc(a->part_count + 1, sizeof *sizes);
  int rc = !chunks || !sizes;
  for (uint32_t i = 0; !rc && i < a->part_count; ++i)
    chunks[i] = a->parts[i].pos, sizes[i] = 3 * a->parts[i].nv * sizeof(float);
  if (!rc) rc = write_file(a->ours_path, chunks, sizes, (int)a->part_count);
  free(chunks);
  free(sizes);
  return rc;
}

static int bind_part(const part* p, uint32_t J, uint32_t method, uint32_t budget, sk_skin* out, double* ms,
                     double* cpu_ms, uint64_t* fallback, sk_error* err) {
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.method = method;
  d.max_influences = budget;
  d.positions = p->pos;
  d.vertex_count = p->nv;
  d.triangles = p->tri;
  d.triangle_count = p->nt;
  d.skeleton = p->skel;
  d.joint_count = J;
  d.deform = p->deform;
  d.bone_space = SK_BONE_SPACE_BIND;
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  double c0 = cpu_ms_now();
  int rc = sk_bind(&d, out, &rep, err);
  if (!rc) *ms = rep.milliseconds, *cpu_ms = cpu_ms_now() - c0, *fallback += rep.fallback_vertices;
  return rc;
}

static int score_method(asset* a, size_t mi, int runs, sk_error* err) {
  score* s = &a->ours[mi];
  for (uint32_t i = 0; i < a->part_count; ++i) {
    part* p = &a->parts[i];
    sk_skin* skin = NULL;
    int rc = sk_skin_create(p->nv, a->joints, &skin, err);
    g_label = k_methods[mi].name;
    double best = 1e300, best_cpu = 1e300;
    for (int r = 0; !rc && r < runs && (r == 0 || best < REPEAT_BELOW_MS); ++r) {
      double ms = 0, cpu = 0;
      uint64_t fb = 0;
      rc = bind_part(p, a->joints, k_methods[mi].method, a->budget, skin, &ms, &cpu, &fb, err);
      if (!rc && ms < best) best = ms;
      if (!rc && cpu < best_cpu) best_cpu = cpu;
      if (!rc && r == 0) s->fallback += fb;
    }
    size_t ni = rc ? 0 : sk_skin_influence_count(skin);
    uint32_t* off = malloc((p->nv + 1) * sizeof *off);
    uint32_t* jt = malloc((ni + 1) * sizeof *jt);
    float* w = malloc((ni + 1) * sizeof *w);
    if (!rc && (!off || !jt || !w)) rc = SK_ERR_OUT_OF_MEMORY;
    if (!rc) rc = sk_skin_get_csr(skin, off, jt, w, err);
    if (!rc) rc = score_part(p, a->joints, off, jt, w, NULL, s, err);
    free(off);
    free(jt);
    free(w);
    sk_skin_destroy(skin);
    if (rc) return rc;
    s->ms += best;
    s->cpu_ms += best_cpu;
  }
  s->ok = 1;
  return SK_OK;
}

/* Joint for a Blender group name: the same name, else the one joint whose name ends with it after a separator
 * (Assimp names Collada joints by node id, "Armature_Skeleton_torso_joint_1", Blender by name,
 * "Skeleton_torso_joint_1"). -1 if none or ambiguous. */
static int32_t match_joint(const sk_skeleton* skel, const char* name) {
  uint32_t j;
  if (sk_skeleton_find_joint(skel, name, &j) == SK_OK) return (int32_t)j;
  /* a glTF node without a name: Blender's importer calls node N "Node_N", our glTF reader "nodeN", Assimp
   * "nodes[N]" (SimpleSkin) */
  unsigned node = 0;
  int used = 0;
  if (sscanf(name, "Node_%u%n", &node, &used) == 1 && name[used] == 0) {
    static const char* const forms[] = {"node%u", "nodes[%u]"};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; ++f) {
      char alt[32];
      snprintf(alt, sizeof alt, forms[f], node);
      if (sk_skeleton_find_joint(skel, alt, &j) == SK_OK) return (int32_t)j;
    }
  }
  int32_t found = -1;
  size_t n = strlen(name);
  for (j = 0; n && j < sk_skeleton_joint_count(skel); ++j) {
    const char* jn = sk_skeleton_joint_name(skel, j);
    size_t m = strlen(jn);
    if (m > n && !strcmp(jn + m - n, name) && strchr("_|:.", jn[m - n - 1])) {
      if (found >= 0) return -1;
      found = (int32_t)j;
    }
  }
  return found;
}

/* Blender's weights (rows = our vertices of all parts) as CSR over each part's joints, scored. */
static void score_blender(asset* a) {
  blender_result* b = &a->bl;
  if (!b->ok || !b->weights) return;
  int32_t* map = malloc((b->group_count + 1) * sizeof *map);
  if (!map) return;
  uint32_t unmatched = 0;
  size_t row = 0;
  int rc = SK_OK;
  sk_error err;
  memset(&err, 0, sizeof err);
  for (uint32_t i = 0; i < a->part_count && !rc; ++i) {
    part* p = &a->parts[i];
    for (uint32_t g = 0; g < b->group_count; ++g) {
      map[g] = match_joint(p->skel, b->groups[g]);
      if (i == 0 && map[g] < 0) {
        if (!unmatched++) printf("  Blender groups without a joint of that name:");
        printf(" \"%s\"", b->groups[g]);
      }
    }
    if (i == 0 && unmatched) printf("\n");
    if (i == 0 && unmatched == b->group_count) {
      printf("  no Blender group matches a joint by name: Blender's figures left out for this asset\n");
      break;
    }
    size_t cap = p->nv * (b->group_count ? b->group_count : 1);
    uint32_t* off = malloc((p->nv + 1) * sizeof *off);
    uint32_t* jt = malloc(cap * sizeof *jt);
    float* w = malloc(cap * sizeof *w);
    double* extra = calloc(p->nv, sizeof *extra);
    if (!off || !jt || !w || !extra) rc = SK_ERR_OUT_OF_MEMORY;
    size_t n = 0;
    for (size_t v = 0; !rc && v < p->nv; ++v, ++row) {
      off[v] = (uint32_t)n;
      const float* r = b->weights + row * b->group_count;
      for (uint32_t g = 0; g < b->group_count; ++g) {
        if (!(r[g] > 0)) continue;
        if (map[g] < 0)
          extra[v] += r[g];
        else
          jt[n] = (uint32_t)map[g], w[n++] = r[g];
      }
    }
    if (!rc) off[p->nv] = (uint32_t)n;
    g_label = "Blender";
    if (!rc) rc = score_part(p, a->joints, off, jt, w, extra, &a->blender, &err);
    free(off);
    free(jt);
    free(w);
    free(extra);
  }
  free(map);
  if (rc)
    printf("  scoring Blender's weights failed: %s\n", err.message);
  else if (!unmatched || unmatched < b->group_count)
    a->blender.ok = 1, a->blender.ms = b->seconds * 1000.0, a->blender.cpu_ms = b->cpu_seconds * 1000.0;
}

/* ------------------------------------------------------------------------------------------ cylinders */

static int make_cylinder(cylinder* c, float* heads, float* tails, sk_error* err) {
  sk_cylinder_desc cd = {.size = sizeof cd, .segments = c->def->segments, .rings = c->def->rings, .bones = 3,
                         .radius = 0.25f, .length = 2.0f};
  int rc = sk_mesh_cylinder(&cd, &c->nv, &c->nt, NULL, NULL, NULL, NULL, err);
  if (rc) return rc;
  c->pos = malloc(3 * c->nv * sizeof *c->pos);
  c->tri = malloc(3 * c->nt * sizeof *c->tri);
  if (!c->pos || !c->tri) return SK_ERR_OUT_OF_MEMORY;
  rc = sk_mesh_cylinder(&cd, NULL, NULL, c->pos, NULL, c->tri, NULL, err);
  for (int b = 0; b < 3; ++b) {
    heads[3 * b] = 2.0f * (float)b / 3.0f, heads[3 * b + 1] = heads[3 * b + 2] = 0;
    tails[3 * b] = 2.0f * (float)(b + 1) / 3.0f, tails[3 * b + 1] = tails[3 * b + 2] = 0;
  }
  return rc;
}

static int write_cylinder(const cylinder* c, const float* heads, const float* tails) {
  uint32_t header[3] = {(uint32_t)c->nv, (uint32_t)c->nt, 3};
  int32_t parents[3] = {-1, 0, 1};
  const void* chunks[6] = {header, c->pos, c->tri, heads, tails, parents};
  size_t sizes[6] = {sizeof header, 3 * c->nv * sizeof(float), 3 * c->nt * sizeof(uint32_t), 9 * sizeof(float),
                     9 * sizeof(float), sizeof parents};
  return write_file(c->mesh_path, chunks, sizes, 6);
}

/* One in-process bind of cylinder c by method k into skin: sk_bind's own wall time (ms) and the process CPU time
 * into *cpu_ms; -1 after a failure (reported). */
static double bind_once(const cylinder* c, size_t k, const float* heads, const float* tails, sk_skin* skin,
                        double* cpu_ms) {
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.method = k_methods[k].method;
  d.positions = c->pos;
  d.vertex_count = c->nv;
  d.triangles = c->tri;
  d.triangle_count = c->nt;
  d.heads = heads;
  d.tails = tails;
  d.joint_count = 3;
  sk_bind_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  sk_error err;
  double c0 = cpu_ms_now();
  if (sk_bind(&d, skin, &rep, &err)) {
    char what[64];
    snprintf(what, sizeof what, "bind %s", k_methods[k].name);
    fail(what, c->def->name, &err);
    return -1.0;
  }
  if (cpu_ms) *cpu_ms = cpu_ms_now() - c0;
  return rep.milliseconds;
}

static void time_cylinder(cylinder* c, const float* heads, const float* tails) {
  sk_error err;
  sk_skin* skin = NULL;
  if (sk_skin_create(c->nv, 3, &skin, &err)) {
    fail("setup", c->def->name, &err);
    return;
  }
  for (size_t k = 0; k < METHOD_COUNT; ++k) {
    if (method_skipped(k, c->nv)) continue;
    double ms[8], cpu[8], lo, hi;
    int ok = 1, n = 0;
    for (; n < c->def->runs_ours && n < 8 && ok && (n == 0 || ms[n - 1] < REPEAT_BELOW_MS); ++n) {
      ms[n] = bind_once(c, k, heads, tails, skin, &cpu[n]);
      ok = ms[n] >= 0.0;
    }
    c->ours_ok[k] = ok;
    if (!ok) continue;
    c->ours_ms[k] = skt_median(ms, n, &lo, &hi);
    c->ours_cpu_ms[k] = skt_median(cpu, n, NULL, NULL);
    printf("  %-9s %.1f [%.1f - %.1f] ms (median [min - max] of %d runs)\n", k_methods[k].name, c->ours_ms[k], lo, hi,
           n);
    printf("BENCH bind_%s_%s_ms %.2f ms\n", k_methods[k].name, c->def->name, c->ours_ms[k]);
  }
  sk_skin_destroy(skin);
}

/* The speedup lines of every method but `skip` (SIZE_MAX: none; its line came from rounds alternated with Blender) */
static void print_speedups(const char* mesh, const double* ours_ms, const int* ours_ok, const blender_result* b,
                           size_t skip) {
  if (!b->ok) return;
  printf("BENCH blender_autoweights_%s_ms %.2f ms\n", mesh, b->seconds * 1000.0);
  for (size_t k = 0; k < METHOD_COUNT; ++k)
    if (ours_ok[k] && ours_ms[k] > 0 && k != skip)
      printf("BENCH bind_%s_%s_speedup %.2f ratio\n", k_methods[k].name, mesh, b->seconds * 1000.0 / ours_ms[k]);
}

static void print_speed_row(const char* mesh, size_t nv, size_t k, double ms, double cpu_ms,
                            const blender_result* b) {
  char bms[32] = "-", bcpu[32] = "-", speedup[32] = "-", cpu_speedup[32] = "-";
  if (b->ok) {
    snprintf(bms, sizeof bms, "%.1f", b->seconds * 1000.0);
    snprintf(bcpu, sizeof bcpu, "%.1f", b->cpu_seconds * 1000.0);
    snprintf(speedup, sizeof speedup, "%.1fx", b->seconds * 1000.0 / ms);
    snprintf(cpu_speedup, sizeof cpu_speedup, "%.1fx", b->cpu_seconds * 1000.0 / cpu_ms);
  }
  printf("%-18s %8zu %-9s %10.1f %10.1f %11s %11s %8s %8s\n", mesh, nv, k_methods[k].name, ms, cpu_ms, bms, bcpu,
         speedup, cpu_speedup);
}

/* ------------------------------------------------------------------------------------------ the CLI as users run it */

static double wall_ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The skinkit binary beside this benchmark (env SKINKIT_CLI overrides). */
static const char* find_cli(char* buf, size_t cap) {
  const char* env = getenv("SKINKIT_CLI");
  if (env && env[0]) return access(env, X_OK) == 0 ? env : NULL;
  ssize_t n = readlink("/proc/self/exe", buf, cap - 16);
  if (n <= 0) return NULL;
  buf[n] = 0;
  char* slash = strrchr(buf, '/');
  if (!slash) return NULL;
  strcpy(slash + 1, "skinkit");
  return access(buf, X_OK) == 0 ? buf : NULL;
}

/* Runs argv (stdout and stderr to /dev/null) and measures it; ok = exit status 0. */
static cli_run spawn_and_wait(char* const* argv) {
  cli_run r;
  memset(&r, 0, sizeof r);
  double t0 = wall_ms_now();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv(argv[0], argv);
    _exit(127);
  }
  if (pid < 0) return r;
  int st = 0;
  struct rusage ru;
  if (wait4(pid, &st, 0, &ru) != pid) return r;
  r.wall_ms = wall_ms_now() - t0;
  r.ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  r.user_ms = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec * 1e-3;
  r.sys_ms = ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec * 1e-3;
  r.maxrss_kb = ru.ru_maxrss;
  return r;
}

/* The CLI runs go through a small process forked at start-up, before this program holds any mesh: a child's peak
 * RSS (ru_maxrss) starts at the resident size of the process it was forked from, so runs forked from here late in a
 * full run reported this program's own 150-330 MB as the peak of a 70 MB `skinkit bind`. Requests on a pipe: an
 * argument count, then each argument's length and bytes; the reply is the cli_run. */
static int g_spawn_req = -1, g_spawn_rep = -1;

static int read_all(int fd, void* p, size_t n) {
  for (size_t got = 0; got < n;) {
    ssize_t k = read(fd, (char*)p + got, n - got);
    if (k <= 0) return 0;
    got += (size_t)k;
  }
  return 1;
}

static int write_all(int fd, const void* p, size_t n) {
  for (size_t put = 0; put < n;) {
    ssize_t k = write(fd, (const char*)p + put, n - put);
    if (k <= 0) return 0;
    put += (size_t)k;
  }
  return 1;
}

static void spawner_loop(int req, int rep) {
  for (;;) {
    uint32_t argc = 0;
    if (!read_all(req, &argc, sizeof argc) || argc == 0 || argc > 32) _exit(0);
    char* argv[33] = {0};
    for (uint32_t i = 0; i < argc; ++i) {
      uint32_t n = 0;
      if (!read_all(req, &n, sizeof n) || n > 4096 || !(argv[i] = calloc(n + 1, 1)) || !read_all(req, argv[i], n))
        _exit(1);
    }
    cli_run r = spawn_and_wait(argv);
    for (uint32_t i = 0; i < argc; ++i) free(argv[i]);
    if (!write_all(rep, &r, sizeof r)) _exit(1);
  }
}

/* Forks the spawner (call before any large allocation); without it, runs are forked from here */
static void spawner_start(void) {
  signal(SIGPIPE, SIG_IGN); /* a spawner that died fails the run (write returns EPIPE) instead of killing this one */
  int a[2], b[2];
  if (pipe(a) || pipe(b)) return;
  pid_t pid = fork();
  if (pid == 0) {
    close(a[1]);
    close(b[0]);
    spawner_loop(a[0], b[1]);
  }
  close(a[0]);
  close(b[1]);
  if (pid < 0) {
    close(a[1]);
    close(b[0]);
    return;
  }
  g_spawn_req = a[1], g_spawn_rep = b[0];
}

static cli_run run_cli(char* const* argv) {
  if (g_spawn_req < 0) return spawn_and_wait(argv);
  uint32_t argc = 0;
  while (argv[argc] && argc < 32) ++argc;
  int ok = write_all(g_spawn_req, &argc, sizeof argc);
  for (uint32_t i = 0; ok && i < argc; ++i) {
    uint32_t n = (uint32_t)strlen(argv[i]);
    ok = write_all(g_spawn_req, &n, sizeof n) && write_all(g_spawn_req, argv[i], n);
  }
  cli_run r;
  memset(&r, 0, sizeof r);
  if (!ok || !read_all(g_spawn_rep, &r, sizeof r)) memset(&r, 0, sizeof r);
  return r;
}

/* `skinkit bind IN OUT --force` (default method, isolated reading: as a user runs it) `runs` times (at most 32):
 * best wall time; user and system time of the run that used the least CPU; the median and range over the runs of
 * system / user time; the largest peak RSS. */
static cli_run time_cli_bind(const char* cli, const char* in, const char* name, int runs) {
  char out[600];
  snprintf(out, sizeof out, "%s/%s_cli_out.glb", g_workdir, name);
  char* argv[] = {(char*)cli, "bind", (char*)in, out, "--force", NULL};
  cli_run best;
  memset(&best, 0, sizeof best);
  double best_wall = 1e300, best_cpu = 1e300, pct[32];
  if (runs > 32) runs = 32;
  for (int i = 0; i < runs; ++i) {
    cli_run r = run_cli(argv);
    if (!r.ok) {
      printf("FAIL skinkit bind %s (exit status or signal; run it by hand to see why)\n", in);
      ++g_failures;
      best.ok = 0;
      return best;
    }
    best.ok = 1;
    if (r.wall_ms < best_wall) best_wall = r.wall_ms;
    if (r.user_ms + r.sys_ms < best_cpu) best_cpu = r.user_ms + r.sys_ms, best.user_ms = r.user_ms, best.sys_ms = r.sys_ms;
    if (r.maxrss_kb > best.maxrss_kb) best.maxrss_kb = r.maxrss_kb;
    pct[i] = r.user_ms > 0 ? 100.0 * r.sys_ms / r.user_ms : 0.0;
  }
  best.wall_ms = best_wall;
  best.sys_pct = runs > 0 ? skt_median(pct, runs, &best.sys_lo, &best.sys_hi) : 0.0;
  return best;
}

/* Prints the CLI lines of one mesh; blender_ms <= 0: no Blender figure. */
static void print_cli(const char* mesh, size_t nv, const cli_run* r, double blender_ms) {
  if (!r->ok) return;
  double kbv = (double)r->maxrss_kb / (double)nv;
  printf(
      "  skinkit bind (whole process: load + bind + save): wall %.1f ms, user %.1f ms, sys %.1f ms (%.0f %% of "
      "user; per run: median %.0f %% [%.0f - %.0f]), peak RSS %.1f MB = %.3f KB/vertex\n",
      r->wall_ms, r->user_ms, r->sys_ms, r->user_ms > 0 ? 100.0 * r->sys_ms / r->user_ms : 0.0, r->sys_pct, r->sys_lo,
      r->sys_hi, r->maxrss_kb / 1024.0, kbv);
  printf(
      "BENCH cli_bind_%s_wall_ms %.1f ms\nBENCH cli_bind_%s_user_ms %.1f ms\nBENCH cli_bind_%s_sys_ms %.1f ms\n"
      "BENCH cli_bind_%s_sys_over_user_median_pct %.1f %%\nBENCH cli_bind_%s_peak_kb_per_vertex %.3f KB\n",
      mesh, r->wall_ms, mesh, r->user_ms, mesh, r->sys_ms, mesh, r->sys_pct, mesh, kbv);
  if (blender_ms > 0)
    printf("BENCH cli_bind_%s_speedup %.2f ratio\n", mesh, blender_ms / r->wall_ms);
}

/* The cylinder as a skinned .glb for the CLI: `skinkit sample` writes the same mesh (sk_mesh_cylinder, radius
 * 0.25, length 2) with the same 3-bone chain. */
static int write_cylinder_glb(const char* cli, const cylinder* c, char* path, size_t cap) {
  snprintf(path, cap, "%s/cyl_%s.glb", g_workdir, c->def->name);
  char seg[16], rings[16];
  snprintf(seg, sizeof seg, "%u", c->def->segments);
  snprintf(rings, sizeof rings, "%u", c->def->rings);
  char* argv[] = {(char*)cli, "sample", path, "--segments", seg, "--rings", rings, "--bones", "3", "--force", NULL};
  return run_cli(argv).ok ? 0 : 1;
}

/* The whole-process table, and the peak memory per vertex of the largest mesh the CLI bound. */
static void print_cli_table(const cylinder* cyl, const asset* assets) {
  printf(
      "\n== skinkit bind as a whole process (load + bind + save; default method; best wall of runs, user/sys of "
      "the run with least CPU, sys %% of user: that run's and the median of every run's, largest peak RSS; "
      "speedup = Blender ARMATURE_AUTO wall / ours, the median of the rounds alternated with Blender) ==\n");
  printf("%-18s %8s %10s %10s %10s %6s %6s %9s %8s %8s\n", "mesh", "vertices", "wall ms", "user ms", "sys ms", "sys %",
         "med %", "peak MB", "KB/vert", "speedup");
  const cli_run* largest = NULL;
  size_t largest_nv = 0;
  for (size_t i = 0; i < CYLINDER_COUNT + ASSET_COUNT; ++i) {
    const cli_run* r = i < CYLINDER_COUNT ? &cyl[i].cli : &assets[i - CYLINDER_COUNT].cli;
    if (!r->ok) continue;
    const char* name = i < CYLINDER_COUNT ? cyl[i].def->name : assets[i - CYLINDER_COUNT].name;
    size_t nv = i < CYLINDER_COUNT ? cyl[i].nv : assets[i - CYLINDER_COUNT].nv;
    const blender_result* b = i < CYLINDER_COUNT ? &cyl[i].bl : &assets[i - CYLINDER_COUNT].bl;
    char speedup[32] = "-";
    if (r->speedup > 0)
      snprintf(speedup, sizeof speedup, "%.1fx", r->speedup);
    else if (b->ok)
      snprintf(speedup, sizeof speedup, "%.1fx", b->seconds * 1000.0 / r->wall_ms);
    printf("%-18s %8zu %10.1f %10.1f %10.1f %5.0f%% %5.0f%% %9.1f %8.3f %8s\n", name, nv, r->wall_ms, r->user_ms,
           r->sys_ms, r->user_ms > 0 ? 100.0 * r->sys_ms / r->user_ms : 0.0, r->sys_pct, r->maxrss_kb / 1024.0,
           (double)r->maxrss_kb / (double)nv, speedup);
    if (nv > largest_nv) largest = r, largest_nv = nv;
  }
  if (largest)
    printf("BENCH bind_peak_kb_per_vertex %.3f KB\n(peak RSS of `skinkit bind` on the largest mesh, %zu vertices)\n",
           (double)largest->maxrss_kb / (double)largest_nv, largest_nv);
}

/* ------------------------------------------------------------------------------------------ rounds with Blender */

/* The default method of sk_bind and of `skinkit bind` */
static size_t default_method(void) {
  for (size_t k = 0; k < METHOD_COUNT; ++k)
    if (k_methods[k].method == SK_BIND_ROBUST) return k;
  return 0;
}

/* What rounds alternated with Blender time: a cylinder or a speed asset. ours() binds it once in process with the
 * default method and returns sk_bind's wall time in ms (< 0: failed); job is the Blender job's JSON up to its "out"
 * (blender_round adds that and closes it); cli the `skinkit bind` argv (NULL: none). */
typedef struct subject {
  const char* name;
  size_t nv;
  double (*ours)(void* ctx);
  void* ctx;
  char job[1400];
  char* const* cli;
} subject;

/* One Blender process running the subject's job (ARMATURE_AUTO once on a fresh scene): the call's wall time in ms
 * into *b (b->seconds, b->cpu_seconds), or -1 with b->error set. */
static double blender_round(const char* blender, const char* script, const subject* x, int round, blender_result* b) {
  char jobs[600], prefix[600], cmd[4096];
  snprintf(jobs, sizeof jobs, "%s/jobs_%s_r%d.json", g_workdir, x->name, round);
  snprintf(prefix, sizeof prefix, "%s/%s_round%d", g_workdir, x->name, round);
  free_blender(b);
  FILE* f = fopen(jobs, "w");
  if (!f) {
    snprintf(b->error, sizeof b->error, "cannot write %.200s", jobs);
    return -1.0;
  }
  fprintf(f, "{\"jobs\": [%s, \"out\": \"%s\"}]}\n", x->job, prefix);
  fclose(f);
  snprintf(cmd, sizeof cmd, "timeout 1800 '%s' -b --factory-startup --python '%s' -- '%s' >> '%s/blender.log' 2>&1",
           blender, script, jobs, g_workdir);
  const int st = system(cmd);
  read_blender(prefix, 0, b);
  if (st != 0 && b->ok) {
    b->ok = 0;
    snprintf(b->error, sizeof b->error, "Blender exited with status %d (see %.160s/blender.log)",
             WIFEXITED(st) ? WEXITSTATUS(st) : st, g_workdir);
  }
  return b->ok ? b->seconds * 1000.0 : -1.0;
}

/* The times of the rounds of one subject (ms; cli < 0: not run or failed) */
typedef struct rounds {
  int n;
  double ours[MAX_ROUNDS], cli[MAX_ROUNDS], blender[MAX_ROUNDS], blender_cpu[MAX_ROUNDS];
  long unweighted;
} rounds;

/* One round: the in-process bind, `skinkit bind` as a whole process and Blender, one of each, the first of them
 * rotating with the round. 0 when ours or Blender failed. */
static int one_round(const subject* x, int r, const char* blender, const char* script, blender_result* b, rounds* out) {
  for (int i = 0; i < 3; ++i) {
    switch ((r + i) % 3) {
      case 0:
        out->ours[r] = x->ours(x->ctx);
        if (out->ours[r] < 0) return 0;
        break;
      case 1: {
        cli_run run = {0};
        if (x->cli) run = run_cli(x->cli);
        out->cli[r] = run.ok ? run.wall_ms : -1.0;
        if (x->cli && !run.ok) {
          printf("FAIL skinkit bind %s (exit status or signal; run it by hand to see why)\n", x->cli[2]);
          ++g_failures;
        }
        break;
      }
      default:
        out->blender[r] = blender_round(blender, script, x, r, b);
        if (out->blender[r] < 0) return 0;
        out->blender_cpu[r] = b->cpu_seconds * 1000.0;
        out->unweighted = b->unweighted > out->unweighted ? b->unweighted : out->unweighted;
    }
  }
  return 1;
}

/* Prints "label: median [min - max] ms, speedup median [min - max]" of times t against Blender's round by round (each
 * round's own ratio), and returns the median speedup. */
static double print_round_speedup(const char* label, const rounds* x, const double* t) {
  double v[MAX_ROUNDS], sp[MAX_ROUNDS], lo, hi, slo, shi;
  for (int r = 0; r < x->n; ++r) v[r] = t[r], sp[r] = x->blender[r] / t[r];
  const double m = skt_median(v, x->n, &lo, &hi), ms = skt_median(sp, x->n, &slo, &shi);
  printf("    %s: %.1f [%.1f - %.1f] ms, speedup %.1f [%.1f - %.1f]\n", label, m, lo, hi, ms, slo, shi);
  return ms;
}

/* Blender's ARMATURE_AUTO on subject x in `want` rounds alternated with ours (one_round), so that a slow phase of
 * the machine falls on both sides of each ratio: the speedups are taken per round, then their median and range.
 * *bl gets Blender's median time (its previous figures replaced); cli->speedup the whole CLI's median speedup.
 * Prints the default method's and the CLI's BENCH speedup lines. Returns 0 when a round failed (bl->error). */
static int rounds_with_blender(const subject* x, int want, const char* blender, const char* script, blender_result* bl,
                               cli_run* cli) {
  rounds t;
  memset(&t, 0, sizeof t);
  blender_result b;
  memset(&b, 0, sizeof b);
  if (want > MAX_ROUNDS) want = MAX_ROUNDS;
  int ok = 1;
  for (; t.n < want && ok; ++t.n) ok = one_round(x, t.n, blender, script, &b, &t);
  char error[256];
  snprintf(error, sizeof error, "%s", b.error[0] ? b.error : "our bind failed");
  free_blender(&b);
  free_blender(bl);
  bl->ran = 1;
  if (!ok) {
    snprintf(bl->error, sizeof bl->error, "%s", error);
    return 0;
  }
  double v[MAX_ROUNDS], lo, hi;
  memcpy(v, t.blender, sizeof v);
  bl->ok = 1, bl->runs = t.n, bl->unweighted = t.unweighted;
  bl->seconds = skt_median(v, t.n, &lo, &hi) / 1000.0;
  memcpy(v, t.blender_cpu, sizeof v);
  bl->cpu_seconds = skt_median(v, t.n, NULL, NULL) / 1000.0;
  printf(
      "  alternated with Blender, %d rounds (median [min - max]): ARMATURE_AUTO %.3f [%.3f - %.3f] s, %ld of %zu "
      "vertices unweighted\n",
      t.n, bl->seconds, lo / 1000.0, hi / 1000.0, t.unweighted, x->nv);
  const size_t k = default_method();
  char label[64];
  snprintf(label, sizeof label, "sk_bind %s", k_methods[k].name);
  printf("BENCH bind_%s_%s_speedup %.2f ratio\n", k_methods[k].name, x->name, print_round_speedup(label, &t, t.ours));
  int cli_ok = x->cli != NULL;
  for (int r = 0; r < t.n; ++r) cli_ok &= t.cli[r] > 0;
  if (cli_ok) {
    cli->speedup = print_round_speedup("skinkit bind (whole process)", &t, t.cli);
    printf("BENCH cli_bind_%s_speedup %.2f ratio\n", x->name, cli->speedup);
  }
  return 1;
}

/* ---- the two kinds of subject */
typedef struct cylinder_ctx {
  const cylinder* c;
  const float *heads, *tails;
  sk_skin* skin;
} cylinder_ctx;

static double cylinder_ours(void* ctx) {
  cylinder_ctx* x = ctx;
  return bind_once(x->c, default_method(), x->heads, x->tails, x->skin, NULL);
}

static void rounds_cylinder(cylinder* c, const float* heads, const float* tails, const char* blender,
                            const char* script, const char* cli, const char* glb) {
  cylinder_ctx ctx = {c, heads, tails, NULL};
  sk_error err;
  if (sk_skin_create(c->nv, 3, &ctx.skin, &err)) {
    fail("setup", c->def->name, &err);
    return;
  }
  char out[600];
  snprintf(out, sizeof out, "%s/%s_cli_out.glb", g_workdir, c->def->name);
  char* argv[] = {(char*)cli, "bind", (char*)glb, out, "--force", NULL};
  subject x = {c->def->name, c->nv, cylinder_ours, &ctx, "", cli && glb ? argv : NULL};
  snprintf(x.job, sizeof x.job, "{\"name\": \"%s\", \"kind\": \"mesh\", \"mesh\": \"%s\", \"repeat\": 1", c->def->name,
           c->mesh_path);
  rounds_with_blender(&x, c->def->rounds_blender, blender, script, &c->bl, &c->cli);
  sk_skin_destroy(ctx.skin);
}

/* every part of the asset bound once with the default method: the sum of sk_bind's times */
static double asset_ours(void* ctx) {
  const asset* a = ctx;
  double total = 0.0;
  for (uint32_t i = 0; i < a->part_count; ++i) {
    const part* p = &a->parts[i];
    sk_error err;
    sk_skin* skin = NULL;
    double ms = 0.0, cpu = 0.0;
    uint64_t fb = 0;
    int rc = sk_skin_create(p->nv, a->joints, &skin, &err);
    if (!rc) rc = bind_part(p, a->joints, k_methods[default_method()].method, a->budget, skin, &ms, &cpu, &fb, &err);
    sk_skin_destroy(skin);
    if (rc) {
      fail("bind", a->def->path, &err);
      return -1.0;
    }
    total += ms;
  }
  return total;
}

/* A speed asset's rounds with Blender (its import job, timed only); returns 0 when they failed */
static int rounds_asset(asset* a, const char* blender, const char* script, const char* cli) {
  char out[600];
  snprintf(out, sizeof out, "%s/%s_cli_out.glb", g_workdir, a->name);
  char* argv[] = {(char*)cli, "bind", a->file, out, "--force", NULL};
  subject x = {a->name, a->nv, asset_ours, a, "", cli ? argv : NULL};
  snprintf(x.job, sizeof x.job, "{\"name\": \"%s\", \"kind\": \"import\", \"file\": \"%s\", \"speed_only\": true",
           a->name, a->file);
  return rounds_with_blender(&x, MAX_ROUNDS, blender, script, &a->bl, &a->cli);
}

/* The speed section of one cylinder: every method in process, `skinkit bind` as a whole process, and (blender set,
 * the cylinder given to Blender) the rounds alternated with Blender. Returns 1 when Blender failed. */
static int speed_cylinder(cylinder* c, const float* heads, const float* tails, const char* blender, const char* script,
                          const char* cli) {
  printf("mesh %s: %zu vertices, %zu triangles, 3 bones\n", c->def->name, c->nv, c->nt);
  time_cylinder(c, heads, tails);
  char glb[600];
  const int have_glb = cli && !write_cylinder_glb(cli, c, glb, sizeof glb);
  if (cli && !have_glb) fail("skinkit sample", c->def->name, NULL);
  if (have_glb) c->cli = time_cli_bind(cli, glb, c->def->name, c->def->runs_ours < 5 ? c->def->runs_ours : 5);
  if (blender && c->def->rounds_blender)
    rounds_cylinder(c, heads, tails, blender, script, have_glb ? cli : NULL, have_glb ? glb : NULL);
  if (c->bl.ran && !c->bl.ok) printf("  Blender failed: %s\n", c->bl.error);
  print_speedups(c->def->name, c->ours_ms, c->ours_ok, &c->bl, c->bl.ok ? default_method() : SIZE_MAX);
  if (have_glb) {
    print_cli(c->def->name, c->nv, &c->cli, 0.0); /* its speedup line came from the rounds */
    remove(glb);
  }
  return c->bl.ran && !c->bl.ok;
}

#define GROWTH_PAIRS 9 /* alternated 40k / 200k binds per method for the growth exponent */

/* Each method's growth exponent between cylinders a and b from GROWTH_PAIRS pairs of binds, a and b one right after
 * the other (which one first alternates), so that both sizes of a pair see the same machine: on the VM the speed of
 * every bind moved by up to 2x between runs, and the exponent of two best-of-N times taken a minute apart read
 * N^1.08-1.16 for robust (and N^1.28 for nearest, which is linear) in three runs of the same build. Into med/lo/hi
 * (median, min, max; NAN when a bind failed). */
static void growth_alternated(const cylinder* a, const cylinder* b, const float* heads, const float* tails, double* med,
                              double* lo, double* hi) {
  sk_skin *sa = NULL, *sb = NULL;
  const double dn = log((double)b->nv / (double)a->nv);
  int setup = !sk_skin_create(a->nv, 3, &sa, NULL) && !sk_skin_create(b->nv, 3, &sb, NULL);
  for (size_t k = 0; k < METHOD_COUNT; ++k) {
    double e[GROWTH_PAIRS];
    int n = 0;
    med[k] = lo[k] = hi[k] = NAN;
    if (!setup || !a->ours_ok[k] || !b->ours_ok[k]) continue;
    for (int r = 0; r < GROWTH_PAIRS; ++r) {
      double ta = r % 2 ? -1.0 : bind_once(a, k, heads, tails, sa, NULL);
      double tb = bind_once(b, k, heads, tails, sb, NULL);
      if (r % 2) ta = bind_once(a, k, heads, tails, sa, NULL);
      if (ta > 0.0 && tb > 0.0) e[n++] = log(tb / ta) / dn;
    }
    if (n < GROWTH_PAIRS) continue;
    med[k] = skt_median(e, n, &lo[k], &hi[k]);
  }
  sk_skin_destroy(sa);
  sk_skin_destroy(sb);
}

/* Time growth between the 40k and 200k cylinders (issue 17: <= N^1.15), as the exponent e of t1 / t0 =
 * (n1 / n0)^e: each method in process (sk_bind's own wall time; the median of growth_alternated's pairs) and the
 * whole CLI (`skinkit bind`, both sizes cold). Needs both cylinders (not with --only naming one). */
static void print_growth(const cylinder* cyl, const float* heads, const float* tails) {
  const cylinder *a = &cyl[0], *b = &cyl[1];
  if (!a->pos || !b->pos || a->nv == 0 || b->nv <= a->nv) return;
  const double dn = log((double)b->nv / (double)a->nv);
  printf(
      "\n== time growth %s -> %s (exponent of the vertex ratio %.2f; in process: median of %d alternated pairs, "
      "min .. max) ==\n",
      a->def->name, b->def->name, (double)b->nv / (double)a->nv, GROWTH_PAIRS);
  double med[METHOD_COUNT], lo[METHOD_COUNT], hi[METHOD_COUNT];
  growth_alternated(a, b, heads, tails, med, lo, hi);
  for (size_t k = 0; k < METHOD_COUNT; ++k)
    if (!isnan(med[k]))
      printf("BENCH bind_%s_growth_%s_%s %.3f exponent (%.3f .. %.3f)\n", k_methods[k].name, a->def->name, b->def->name,
             med[k], lo[k], hi[k]);
  if (a->cli.ok && b->cli.ok && a->cli.wall_ms > 0)
    printf("BENCH cli_bind_growth_%s_%s %.3f exponent\n", a->def->name, b->def->name,
           log(b->cli.wall_ms / a->cli.wall_ms) / dn);
}

/* ------------------------------------------------------------------------------------------ main */

static int name_selected(const char* only, const char* name) { return !only || strstr(name, only) != NULL; }

static void remove_workdir(void) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_workdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_workdir);
}

/* Blender (NULL: none, and why is printed) and the path of its script into script[cap] */
static const char* find_blender_and_script(int no_blender, char* bbuf, size_t bcap, char* script, size_t cap) {
  const char* blender = no_blender ? NULL : find_blender(bbuf, bcap);
  const char* sdir = getenv("SKINKIT_BENCH_SCRIPTS");
  if (sdir && sdir[0]) {
    snprintf(script, cap, "%s/blender_autoweights.py", sdir);
  } else {
    const char* slash = strrchr(__FILE__, '/');
    snprintf(script, cap, "%.*s/blender_autoweights.py", slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
  }
  if (no_blender)
    printf("Blender: disabled (--no-blender): skinkit figures only\n");
  else if (!blender)
    printf("Blender: not found (PATH or SKINKIT_BLENDER): skinkit figures only, no speedups or ratios\n");
  else if (access(script, R_OK) != 0) {
    printf("Blender: script %s missing (set SKINKIT_BENCH_SCRIPTS): skinkit figures only\n", script);
    blender = NULL;
  }
  return blender;
}

/* The cylinders the run measures (cyl[i].pos set), and their raw files for Blender */
static void setup_cylinders(cylinder* cyl, int quick, const char* only, const char* blender, float* heads,
                            float* tails) {
  for (size_t i = 0; i < CYLINDER_COUNT; ++i) {
    cyl[i].def = &k_cylinders[i];
    if ((quick && k_cylinders[i].full_only) || !name_selected(only, k_cylinders[i].name)) continue;
    sk_error err;
    if (make_cylinder(&cyl[i], heads, tails, &err)) {
      fail("setup", k_cylinders[i].name, &err);
      continue;
    }
    snprintf(cyl[i].mesh_path, sizeof cyl[i].mesh_path, "%s/cyl_%s.bin", g_workdir, k_cylinders[i].name);
    snprintf(cyl[i].out_prefix, sizeof cyl[i].out_prefix, "%s/cyl_%s", g_workdir, k_cylinders[i].name);
    if (blender && k_cylinders[i].rounds_blender && write_cylinder(&cyl[i], heads, tails))
      fail("write", cyl[i].mesh_path, NULL);
  }
}

/* The assets the run scores (loaded), and our vertices for Blender's weights to be matched to */
static void setup_assets(asset* assets, int quick, const char* only, const char* blender) {
  const char* adir = skt_assets_dir(); /* prints the one skip line when SKINKIT_ASSETS is unset */
  if (!adir && skt_assets_required()) ++g_failures;
  sk_error gerr;
  memset(&gerr, 0, sizeof gerr);
  int generated = !skt_write_hard_cases(g_workdir, &gerr);
  if (!generated) fail("generate", "hard cases", &gerr);
  for (size_t i = 0; i < ASSET_COUNT; ++i) {
    asset* a = &assets[i];
    a->def = &k_assets[i];
    safe_name(a->def->path, a->name, sizeof a->name);
    if ((quick && a->def->full_only) || !name_selected(only, a->name)) continue;
    if (a->def->generated ? !generated : !adir) continue;
    if (a->def->generated)
      snprintf(a->file, sizeof a->file, "%s/%s", g_workdir, a->def->path);
    else
      snprintf(a->file, sizeof a->file, "%s", skt_asset(a->def->path));
    sk_error err;
    memset(&err, 0, sizeof err);
    if (load_asset(a, &err)) {
      fail("load", a->def->path, &err);
      continue;
    }
    snprintf(a->ours_path, sizeof a->ours_path, "%s/%s_ours.f32", g_workdir, a->name);
    snprintf(a->out_prefix, sizeof a->out_prefix, "%s/%s", g_workdir, a->name);
    if (blender && a->def->blender && write_ours(a)) fail("write", a->ours_path, NULL);
  }
}

/* Blender's automatic weights on every asset Blender imports: one process for all of them. Returns 1 when it failed. */
static int run_blender_batch(asset* assets, const char* blender, const char* script) {
  int blender_failed = 0;
  char jobs_path[400];
  snprintf(jobs_path, sizeof jobs_path, "%s/jobs.json", g_workdir);
  FILE* f = fopen(jobs_path, "w");
  int jobs = 0;
  if (f) {
    fprintf(f, "{\"jobs\": [");
    for (size_t i = 0; i < ASSET_COUNT; ++i) {
      if (!assets[i].loaded || !assets[i].def->blender) continue;
      fprintf(f, "%s\n {\"name\": \"%s\", \"kind\": \"import\", \"file\": \"%s\", \"ours\": \"%s\", \"out\": \"%s\"}",
              jobs++ ? "," : "", assets[i].name, assets[i].file, assets[i].ours_path, assets[i].out_prefix);
      assets[i].bl.ran = 1;
    }
    fprintf(f, "\n]}\n");
    fclose(f);
  }
  if (jobs) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "timeout 1800 '%s' -b --factory-startup --python '%s' -- '%s' > '%s/blender.log' 2>&1",
             blender, script, jobs_path, g_workdir);
    printf("Blender: %s, %d job(s) (log %s/blender.log) ...\n", blender, jobs, g_workdir);
    int st = system(cmd);
    if (st != 0) {
      printf("Blender: exited with status %d (see the log)\n", WIFEXITED(st) ? WEXITSTATUS(st) : st);
      blender_failed = 1;
    }
    for (size_t i = 0; i < ASSET_COUNT; ++i)
      if (assets[i].bl.ran) read_blender(assets[i].out_prefix, assets[i].nv, &assets[i].bl);
  }
  return blender_failed;
}

/* Scores every loaded asset (and times the speed assets, the CLI too); returns 1 when a Blender job failed */
/* One asset's quality section: Blender's figures, each method scored (and timed, for a speed asset, with the CLI
 * too). Returns 1 when its Blender job failed. */
static int quality_asset(asset* a, const char* cli, const char* blender, const char* script) {
  int blender_failed = 0;
  printf("asset %s (%s): %zu vertices in %u mesh(es), %u deforming joints\n", a->name, a->def->path, a->nv,
         a->part_count, a->deform_joints);
  if (a->bl.ran && !a->bl.ok) {
    printf("  Blender failed: %s\n", a->bl.error);
    blender_failed = 1;
  } else if (a->bl.ok) {
    printf(
        "  Blender: ARMATURE_AUTO %.3f s on %ld vertices, %ld unweighted; vertex match to ours: mean %.2g %%, "
        "max %.2g %% of the diagonal\n",
        a->bl.seconds, a->bl.blender_vertices, a->bl.unweighted, a->bl.match_mean_pct, a->bl.match_max_pct);
    score_blender(a);
  } else if (!a->def->blender) {
    printf("  Blender: no importer for this format (ours only)\n");
  }
  if (frames_disagree(a))
    printf(
        "  WARNING: only %u of %u bound joints have their bind-space head inside the mesh as loaded: mesh and "
        "skeleton are in different frames (import problem), so binding from these bones cannot match the "
        "artist; figures printed, deform_mean ratio lines left out\n",
        a->heads_inside, a->heads_bound);
  if (a->bones_coincide)
    printf(
        "  note: all %u bound joints' bone segments are one point as loaded: they are bound as one group "
        "sharing its weight evenly (Blender's automatic weights split it evenly too)\n",
        a->heads_bound);
  if (a->budget != 4) printf("  influence budget: %u (the artist's largest count per vertex)\n", a->budget);
  double bl_mean = a->blender.ok ? dmean_pct(&a->blender, a->diag) : 0;
  if (a->blender.ok)
    printf(
        "BENCH blender_%s_weight_err %.4f\nBENCH blender_%s_deform_mean_pct %.4f %%\n"
        "BENCH blender_%s_deform_max_pct %.4f %%\n",
        a->name, werr(&a->blender), a->name, bl_mean, a->name, dmax_pct(&a->blender, a->diag));
  double ours_ms[METHOD_COUNT];
  int ours_ok[METHOD_COUNT];
  for (size_t k = 0; k < METHOD_COUNT; ++k) {
    sk_error err;
    memset(&err, 0, sizeof err);
    ours_ok[k] = 0;
    if (method_skipped(k, a->nv)) continue;
    if (score_method(a, k, a->def->speed ? 5 : 1, &err)) {
      char what[64];
      snprintf(what, sizeof what, "bind %s", k_methods[k].name);
      fail(what, a->def->path, &err);
      continue;
    }
    const score* s = &a->ours[k];
    ours_ok[k] = 1, ours_ms[k] = s->ms;
    double mean = dmean_pct(s, a->diag);
    printf(
        "BENCH bind_%s_%s_ms %.2f ms\nBENCH bind_%s_%s_weight_err %.4f\nBENCH bind_%s_%s_deform_mean_pct %.4f %%\n"
        "BENCH bind_%s_%s_deform_max_pct %.4f %%\n",
        k_methods[k].name, a->name, s->ms, k_methods[k].name, a->name, werr(s), k_methods[k].name, a->name, mean,
        k_methods[k].name, a->name, dmax_pct(s, a->diag));
    if (s->fallback)
      printf("  (%s: %llu vertices by the nearest-bone fallback)\n", k_methods[k].name,
             (unsigned long long)s->fallback);
    if (a->blender.ok && bl_mean > 0 && !no_ratio(a))
      printf("BENCH bind_%s_%s_deform_mean %.3f ratio\n", k_methods[k].name, a->name, mean / bl_mean);
  }
  if (!a->def->speed) return blender_failed;
  if (cli) a->cli = time_cli_bind(cli, a->file, a->name, 5);
  int alternated = 0; /* Blender's time and the default method's and CLI's speedups from rounds */
  if (blender && a->bl.ok) {
    alternated = rounds_asset(a, blender, script, cli);
    if (!alternated) printf("  Blender failed in the rounds: %s\n", a->bl.error);
    blender_failed |= !alternated;
  }
  print_speedups(a->name, ours_ms, ours_ok, &a->bl, alternated ? default_method() : SIZE_MAX);
  if (cli) print_cli(a->name, a->nv, &a->cli, !alternated && a->bl.ok ? a->bl.seconds * 1000.0 : 0.0);
  return blender_failed;
}

/* Scores every loaded asset; returns 1 when a Blender job failed */
static int quality_section(asset* assets, const char* cli, const char* blender, const char* script) {
  int blender_failed = 0;
  printf("\n== quality: corpus assets, artist weights stripped, %d random poses (<= %.0f deg per joint) ==\n", POSES,
         MAX_ANGLE_DEG);
  for (size_t i = 0; i < ASSET_COUNT; ++i)
    if (assets[i].loaded) blender_failed |= quality_asset(&assets[i], cli, blender, script);
  return blender_failed;
}

static void print_tables(const cylinder* cyl, const asset* assets, const float* heads, const float* tails) {
  /* tables */
  printf(
      "\n== speed table (ours: sk_bind on all cores, median of runs (assets: best of runs); Blender: ARMATURE_AUTO, "
      "median of the rounds; wall and process CPU ms; speedup = Blender / ours) ==\n");
  printf("%-18s %8s %-9s %10s %10s %11s %11s %8s %8s\n", "mesh", "vertices", "method", "ours ms", "ours cpu",
         "Blender ms", "Blender cpu", "speedup", "cpu x");
  for (size_t i = 0; i < CYLINDER_COUNT; ++i)
    for (size_t k = 0; cyl[i].pos && k < METHOD_COUNT; ++k)
      if (cyl[i].ours_ok[k])
        print_speed_row(cyl[i].def->name, cyl[i].nv, k, cyl[i].ours_ms[k], cyl[i].ours_cpu_ms[k], &cyl[i].bl);
  for (size_t i = 0; i < ASSET_COUNT; ++i) {
    const asset* a = &assets[i];
    if (!a->loaded || !a->def->speed) continue;
    for (size_t k = 0; k < METHOD_COUNT; ++k)
      if (a->ours[k].ok) print_speed_row(a->name, a->nv, k, a->ours[k].ms, a->ours[k].cpu_ms, &a->bl);
  }
  print_cli_table(cyl, assets);
  print_growth(cyl, heads, tails);
  printf("\n== quality table (weight err: mean 1/2 L1; deform: %% of bbox diagonal over %d poses; ratio: ours / "
         "Blender deform mean; !: mesh and bones disagree as loaded: see WARNING) ==\n",
         POSES);
  printf("%-18s %7s %-9s %10s %10s %11s %10s %7s\n", "asset", "verts", "method", "ms", "weight err", "deform mean",
         "deform max", "ratio");
  for (size_t i = 0; i < ASSET_COUNT; ++i) {
    const asset* a = &assets[i];
    if (!a->loaded) continue;
    double bl_mean = a->blender.ok ? dmean_pct(&a->blender, a->diag) : 0;
    for (size_t k = 0; k <= METHOD_COUNT; ++k) {
      const score* s = k < METHOD_COUNT ? &a->ours[k] : &a->blender;
      if (!s->ok) continue;
      char ratio[32] = "-";
      if (k < METHOD_COUNT && bl_mean > 0)
        snprintf(ratio, sizeof ratio, "%.2f%s", dmean_pct(s, a->diag) / bl_mean, no_ratio(a) ? "!" : "");
      printf("%-18s %7zu %-9s %10.1f %10.4f %10.3f%% %9.3f%% %7s\n", a->name, a->nv,
             k < METHOD_COUNT ? k_methods[k].name : "Blender", s->ms, werr(s), dmean_pct(s, a->diag),
             dmax_pct(s, a->diag), ratio);
    }
  }
}

int main(int argc, char** argv) {
  int quick = getenv("SKINKIT_BENCH_QUICK") && atoi(getenv("SKINKIT_BENCH_QUICK")) != 0;
  int no_blender = 0, keep = 0;
  const char* only = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else if (!strcmp(argv[i], "--no-blender"))
      no_blender = 1;
    else if (!strcmp(argv[i], "--keep"))
      keep = 1;
    else if (!strcmp(argv[i], "--per-joint"))
      g_per_joint = 1;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--quick] [--no-blender] [--only NAME] [--keep] [--per-joint]\n", argv[0]);
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  spawner_start();

  char bbuf[1024], script[1024];
  const char* blender = find_blender_and_script(no_blender, bbuf, sizeof bbuf, script, sizeof script);
  char cbuf[1024];
  const char* cli = find_cli(cbuf, sizeof cbuf);
  if (!cli) printf("skinkit CLI: not found beside this program (env SKINKIT_CLI): no whole-process figures\n");
  snprintf(g_workdir, sizeof g_workdir, "/tmp/skinkit_bench_bind.XXXXXX");
  if (!mkdtemp(g_workdir)) {
    fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
    return 1;
  }
  printf("bench_bind: %s run, %zu methods, %d poses, work dir %s\n", quick ? "quick" : "full", METHOD_COUNT, POSES,
         g_workdir);

  /* setup: cylinders and assets, files for Blender */
  float heads[9], tails[9];
  cylinder cyl[CYLINDER_COUNT];
  memset(cyl, 0, sizeof cyl);
  setup_cylinders(cyl, quick, only, blender, heads, tails);
  asset assets[ASSET_COUNT];
  memset(assets, 0, sizeof assets);
  setup_assets(assets, quick, only, blender);

  int blender_failed = blender ? run_blender_batch(assets, blender, script) : 0;

  /* speed: cylinders */
  printf("\n== speed: generated cylinders, 3-bone chain ==\n");
  for (size_t i = 0; i < CYLINDER_COUNT; ++i)
    if (cyl[i].pos) blender_failed |= speed_cylinder(&cyl[i], heads, tails, blender, script, cli);

  blender_failed |= quality_section(assets, cli, blender, script);

  print_tables(cyl, assets, heads, tails);

  for (size_t i = 0; i < CYLINDER_COUNT; ++i) {
    free(cyl[i].pos);
    free(cyl[i].tri);
    free_blender(&cyl[i].bl);
  }
  for (size_t i = 0; i < ASSET_COUNT; ++i) free_asset(&assets[i]);
  if (keep || blender_failed)
    printf("\nwork files kept in %s\n", g_workdir);
  else
    remove_workdir();
  if (g_failures) printf("\nbench_bind: %d failure(s) of our binding or setup (see FAIL lines)\n", g_failures);
  return g_failures ? 1 : 0;
}
