#define _GNU_SOURCE /* pthread_barrier_t */
/* test_threads.c - skinkit.h's promise that distinct objects may be used from distinct threads at once, and one
 * const object read (const getters, sk_scene_validate) from several.
 *
 * - validate_one_scene: 8 threads validate one freshly loaded glTF scene at once, many rounds. The document's memos
 *   (its node parents and each skin's structure) were made by the first caller without a guard: two threads each
 *   allocated one and a pointer was lost (LeakSanitizer: 4 and 12 bytes lost in the sanitizer suite; ThreadSanitizer:
 *   a race at gltf_validate.c). Every thread's report must also equal the one-thread report.
 * - save_different_scenes: threads save their own scene to .glb, .fbx and .dae at once (Assimp's writers called
 *   localtime/tzset and used its global error string in parallel; the registry of temporary files compared a name
 *   another thread was writing), isolated writers (fork) among them; every file reads back whole, no temporary
 *   file is left.
 * - load_dae_files: threads read Collada files at once through Assimp (heap data inside libassimp raced), with the
 *   isolated reader among them; every scene equals the one read alone. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

enum { THREADS = 8 };

/* Isolated readers and writers (fork) among the threads, except under a sanitizer: its allocator (GCC 12's libasan
 * and libtsan) is not made safe across fork, so a child forked while another thread allocated can wait forever on
 * the allocator's lock (seen here under both: an isolated FBX writer stuck in operator new). glibc's malloc is. */
#if defined(__SANITIZE_THREAD__)
#define ISOLATE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ISOLATE 0
#endif
#endif
#ifndef ISOLATE
#define ISOLATE (!SANITIZED)
#endif

static pthread_barrier_t g_bar;

/* what a scene read is compared on: its counts and a sum over its first mesh's positions */
typedef struct scene_sig {
  size_t meshes, vertices;
  uint32_t joints, anims;
  double pos_sum;
} scene_sig;

static scene_sig signature(const sk_scene* sc) {
  scene_sig s = {0};
  s.meshes = sk_scene_mesh_count(sc);
  s.joints = sk_skeleton_joint_count(sk_scene_skeleton(sc));
  s.anims = sk_scene_animation_count(sc);
  for (size_t m = 0; m < s.meshes; ++m) s.vertices += sk_scene_mesh_vertex_count(sc, m);
  if (s.meshes) {
    const size_t n = sk_scene_mesh_vertex_count(sc, 0);
    float* p = malloc(n * 3 * sizeof *p + 1);
    if (p && sk_scene_mesh_positions(sc, 0, p, n * 3) == SK_OK)
      for (size_t i = 0; i < n * 3; ++i) s.pos_sum += (double)p[i] * (double)((i % 7) + 1);
    free(p);
  }
  return s;
}

static int same_sig(const scene_sig* a, const scene_sig* b) {
  return a->meshes == b->meshes && a->vertices == b->vertices && a->joints == b->joints && a->anims == b->anims &&
         fabs(a->pos_sum - b->pos_sum) <= 1e-6 * (1.0 + fabs(a->pos_sum));
}

/* ---- validate_one_scene ---- */

enum { MAX_MESHES = 8 };

typedef struct validate_job {
  const sk_scene* scene;
  size_t meshes;
  sk_mesh_report reports[MAX_MESHES];
  uint32_t findings;
  sk_result rc;
} validate_job;

static sk_result validate(const sk_scene* sc, size_t meshes, sk_mesh_report* reports, uint32_t* findings) {
  memset(reports, 0, meshes * sizeof *reports);
  for (size_t m = 0; m < meshes; ++m)
    reports[m].size = sizeof reports[m], reports[m].skin.size = sizeof reports[m].skin;
  return sk_scene_validate(sc, NULL, reports, meshes, findings, NULL);
}

static void* validate_thread(void* arg) {
  validate_job* j = arg;
  pthread_barrier_wait(&g_bar);
  j->rc = validate(j->scene, j->meshes, j->reports, &j->findings);
  return NULL;
}

static int same_report(const sk_mesh_report* a, const sk_mesh_report* b) {
  return a->skinned == b->skinned && a->findings == b->findings && a->skin_structure == b->skin_structure &&
         a->singular_binds == b->singular_binds && a->nonrigid_binds == b->nonrigid_binds &&
         a->unused_bones == b->unused_bones && a->dropped_weights == b->dropped_weights &&
         a->skin.findings == b->skin.findings;
}

START_TEST(validate_one_scene) {
  const char* path = skt_data("cylinder_rig.glb");
  sk_scene* sc = NULL;
  sk_error e = {0};
  ck_assert_msg(sk_scene_load(path, NULL, &sc, &e) == SK_OK, "%s", e.message);
  const size_t meshes = sk_scene_mesh_count(sc);
  ck_assert(meshes >= 1 && meshes <= MAX_MESHES);
  sk_mesh_report want[MAX_MESHES];
  uint32_t want_findings = 0;
  ck_assert_int_eq(validate(sc, meshes, want, &want_findings), SK_OK);
  ck_assert_uint_eq(want[0].skinned, 1);
  sk_scene_destroy(sc);
  /* a new scene each round: the memos are made by the first validation of a document */
  const int rounds = SANITIZED ? 150 : 300;
  for (int r = 0; r < rounds; ++r) {
    ck_assert_msg(sk_scene_load(path, NULL, &sc, &e) == SK_OK, "%s", e.message);
    validate_job jobs[THREADS];
    pthread_t t[THREADS];
    ck_assert_int_eq(pthread_barrier_init(&g_bar, NULL, THREADS), 0);
    for (int i = 0; i < THREADS; ++i) {
      jobs[i] = (validate_job){.scene = sc, .meshes = meshes};
      ck_assert_int_eq(pthread_create(&t[i], NULL, validate_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&g_bar);
    for (int i = 0; i < THREADS; ++i) {
      ck_assert_int_eq(jobs[i].rc, SK_OK);
      ck_assert_uint_eq(jobs[i].findings, want_findings);
      for (size_t m = 0; m < meshes; ++m)
        ck_assert_msg(same_report(&jobs[i].reports[m], &want[m]), "round %d thread %d mesh %zu: report differs", r, i,
                      m);
    }
    sk_scene_destroy(sc);
  }
}
END_TEST

/* ---- save_different_scenes ---- */

static const char* const k_save_ext[] = {".glb", ".fbx", ".dae"};
enum { SAVE_EXTS = sizeof k_save_ext / sizeof k_save_ext[0] };

typedef struct save_job {
  const char* dir;
  int id, rounds;
  sk_scene* scene;
  int failures;
  char why[512];
} save_job;

static void* save_thread(void* arg) {
  save_job* j = arg;
  pthread_barrier_wait(&g_bar);
  for (int r = 0; r < j->rounds && !j->failures; ++r)
    for (int x = 0; x < SAVE_EXTS && !j->failures; ++x) {
      char path[256];
      snprintf(path, sizeof path, "%s/t%d%s", j->dir, j->id, k_save_ext[x]);
      sk_save_options so;
      memset(&so, 0, sizeof so);
      so.size = sizeof so;
      so.overwrite = 1;
      so.isolate = (uint32_t)(ISOLATE && j->id % 4 == 3); /* an isolated writer (fork) now and then */
      sk_error e = {0};
      if (sk_scene_save(j->scene, path, &so, &e) != SK_OK) {
        j->failures++;
        snprintf(j->why, sizeof j->why, "%.200s: %.300s", path, e.message);
      }
    }
  return NULL;
}

START_TEST(save_different_scenes) {
  char dir[96];
  skt_tmpdir_make(dir, sizeof dir, "threads_save");
  const char* path = skt_data("cylinder_rig.glb");
  sk_error e = {0};
  /* what each format reads back as when written by one thread alone */
  scene_sig want[SAVE_EXTS];
  sk_scene* ref = NULL;
  ck_assert_msg(sk_scene_load(path, NULL, &ref, &e) == SK_OK, "%s", e.message);
  for (int x = 0; x < SAVE_EXTS; ++x) {
    char out[256];
    snprintf(out, sizeof out, "%s/ref%s", dir, k_save_ext[x]);
    sk_save_options so;
    memset(&so, 0, sizeof so);
    so.size = sizeof so;
    ck_assert_msg(sk_scene_save(ref, out, &so, &e) == SK_OK, "%s", e.message);
    sk_scene* back = NULL;
    ck_assert_msg(sk_scene_load(out, NULL, &back, &e) == SK_OK, "%s", e.message);
    want[x] = signature(back);
    sk_scene_destroy(back);
  }
  sk_scene_destroy(ref);
  save_job jobs[THREADS];
  pthread_t t[THREADS];
  ck_assert_int_eq(pthread_barrier_init(&g_bar, NULL, THREADS), 0);
  for (int i = 0; i < THREADS; ++i) {
    jobs[i] = (save_job){.dir = dir, .id = i, .rounds = SANITIZED ? 2 : 4};
    ck_assert_msg(sk_scene_load(path, NULL, &jobs[i].scene, &e) == SK_OK, "%s", e.message);
  }
  for (int i = 0; i < THREADS; ++i) ck_assert_int_eq(pthread_create(&t[i], NULL, save_thread, &jobs[i]), 0);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&g_bar);
  for (int i = 0; i < THREADS; ++i) {
    ck_assert_msg(jobs[i].failures == 0, "thread %d: %s", i, jobs[i].why);
    sk_scene_destroy(jobs[i].scene);
  }
  /* every file whole: what was saved reads back (the FBX and Collada writers keep counts and positions) */
  for (int i = 0; i < THREADS; ++i)
    for (int x = 0; x < SAVE_EXTS; ++x) {
      char out[256];
      snprintf(out, sizeof out, "%s/t%d%s", dir, i, k_save_ext[x]);
      sk_scene* back = NULL;
      ck_assert_msg(sk_scene_load(out, NULL, &back, &e) == SK_OK, "%s", e.message);
      const scene_sig got = signature(back);
      ck_assert_msg(same_sig(&got, &want[x]), "%s: read back as %zu vertices, %u joints, not %zu, %u", out,
                    got.vertices, got.joints, want[x].vertices, want[x].joints);
      sk_scene_destroy(back);
    }
  /* and nothing else in the folder: no temporary file left behind */
  DIR* d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int files = 0;
  for (struct dirent* de; (de = readdir(d));) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    ck_assert_msg(strstr(de->d_name, ".tmp") == NULL, "left behind: %s", de->d_name);
    ++files;
  }
  closedir(d);
  ck_assert_int_ge(files, (THREADS + 1) * SAVE_EXTS); /* .dae / .glb may bring images beside them */
  skt_tmpdir_remove(dir);
}
END_TEST

/* ---- load_dae_files ---- */

static const char* const k_dae[] = {"leg_thigh_only.dae", "blender_tips.dae", "quad_leg.dae", "textured_rig.dae"};
enum { DAES = sizeof k_dae / sizeof k_dae[0] };

static char g_dae_path[DAES][512]; /* skt_data's buffers are not for threads: copied first */

typedef struct load_job {
  int id, rounds;
  const scene_sig* want; /* DAES entries */
  int failures;
  char why[512];
} load_job;

static void* load_thread(void* arg) {
  load_job* j = arg;
  pthread_barrier_wait(&g_bar);
  for (int r = 0; r < j->rounds && !j->failures; ++r) {
    const int f = (j->id + r) % DAES;
    sk_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.size = sizeof lo;
    lo.isolate = (uint32_t)(ISOLATE && j->id % 4 == 3); /* the isolated reader (fork) among in-process reads */
    sk_scene* sc = NULL;
    sk_error e = {0};
    (void)sk_import_extension_supported("dae");
    if (sk_scene_load(g_dae_path[f], &lo, &sc, &e) != SK_OK) {
      j->failures++;
      snprintf(j->why, sizeof j->why, "%.60s: %.300s", k_dae[f], e.message);
      break;
    }
    const scene_sig got = signature(sc);
    if (!same_sig(&got, &j->want[f])) {
      j->failures++;
      snprintf(j->why, sizeof j->why, "%s: read differently (%zu vertices, %u joints)", k_dae[f], got.vertices,
               got.joints);
    }
    sk_scene_destroy(sc);
  }
  return NULL;
}

START_TEST(load_dae_files) {
  scene_sig want[DAES];
  for (int f = 0; f < DAES; ++f) {
    sk_scene* sc = NULL;
    sk_error e = {0};
    snprintf(g_dae_path[f], sizeof g_dae_path[f], "%s", skt_data(k_dae[f]));
    ck_assert_msg(sk_scene_load(g_dae_path[f], NULL, &sc, &e) == SK_OK, "%s", e.message);
    want[f] = signature(sc);
    ck_assert_uint_gt(want[f].vertices, 0);
    sk_scene_destroy(sc);
  }
  load_job jobs[THREADS];
  pthread_t t[THREADS];
  ck_assert_int_eq(pthread_barrier_init(&g_bar, NULL, THREADS), 0);
  for (int i = 0; i < THREADS; ++i) {
    jobs[i] = (load_job){.id = i, .rounds = SANITIZED ? 3 : 8, .want = want};
    ck_assert_int_eq(pthread_create(&t[i], NULL, load_thread, &jobs[i]), 0);
  }
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&g_bar);
  for (int i = 0; i < THREADS; ++i) ck_assert_msg(jobs[i].failures == 0, "thread %d: %s", i, jobs[i].why);
}
END_TEST

int main(void) {
  Suite* s = suite_create("threads");
  TCase* tc = tcase_create("threads");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, validate_one_scene);
  tcase_add_test(tc, save_different_scenes);
  tcase_add_test(tc, load_dae_files);
  suite_add_tcase(s, tc);
  SRunner* sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
