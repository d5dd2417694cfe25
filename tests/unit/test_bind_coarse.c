/* test_bind_coarse.c - heat and robust binds of very large meshes on a simplified copy (core/bind_coarse.c): the
 * weights match the full solve's, the simplified copy is used only when it shrinks the mesh, and a vertex mask or
 * a small mesh keeps the full solve. Thresholds are lowered through skc_bind_desc so a test-sized cylinder takes
 * the path. Also the solver settings large binds depend on (core/chol.c): fewer, larger supernodes than CHOLMOD's
 * defaults, one BLAS thread during a bind with the caller's count restored after, CHOLMOD's allocator wrapped, and
 * the bind's own large arrays in huge pages (core/mem.c). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_bindmesh.h"
#include "sk_testutil.h"
#include "skc_bind.h"
#include "skc_chol.h"
#include "skc_mem.h"
#include "skinkit.h"
#include "skc_skin.h"

static skc_bind_desc desc_for(const skt_bind_mesh* m, int method) {
  skc_bind_desc d;
  memset(&d, 0, sizeof d);
  d.positions = m->pos;
  d.vertex_count = m->nv;
  d.triangles = m->tri;
  d.triangle_count = m->nt;
  d.heads = m->heads;
  d.tails = m->tails;
  d.joint_count = m->bones;
  d.max_influences = 4;
  d.method = method;
  d.smooth_iterations = 2;
  d.falloff_power = 4.0f;
  d.falloff_cutoff = 1.5f;
  d.heat_scale = 1.0f;
  d.prune = 0.01f;
  d.coarse_above = SIZE_MAX; /* the full solve unless a test asks */
  return d;
}

static skc_skin* bound(const skc_bind_desc* d, skc_bind_report* rep) {
  skc_skin* s = NULL;
  skc_err e;
  ck_assert_int_eq(skc_skin_create(d->vertex_count, d->joint_count, &s, &e), SKC_OK);
  memset(rep, 0, sizeof *rep);
  ck_assert_msg(skc_bind(d, s, rep, &e) == SKC_OK, "skc_bind: %s", e.message);
  return s;
}

/* Largest and mean half-L1 distance between the two skins' weight vectors. */
static void distance(const skc_skin* a, const skc_skin* b, uint32_t nj, double* mean, double* worst) {
  double sum = 0.0;
  *worst = 0.0;
  for (size_t v = 0; v < a->vertex_count; ++v) {
    double w[16] = {0};
    for (uint32_t e = a->offsets[v]; e < a->offsets[v + 1]; ++e) w[a->joints[e]] += a->weights[e];
    for (uint32_t e = b->offsets[v]; e < b->offsets[v + 1]; ++e) w[b->joints[e]] -= b->weights[e];
    double d = 0.0;
    for (uint32_t j = 0; j < nj; ++j) d += fabs(w[j]);
    sum += 0.5 * d;
    *worst = 0.5 * d > *worst ? 0.5 * d : *worst;
  }
  *mean = sum / (double)a->vertex_count;
}

/* A 38k-vertex cylinder (64 x 600) bound on a copy of at most 8,000 vertices: every vertex weighted, within a few
 * hundredths of the full solve (the 610k cylinder of docs/bind.md: mean 0.0007, max 0.008 at 150k). */
START_TEST(coarse_matches_the_full_solve) {
  static const int methods[2] = {SKC_BIND_HEAT, SKC_BIND_ROBUST};
  skt_bind_mesh m = skt_bind_cylinder(64, 600, 3);
  for (int i = 0; i < 2; ++i) {
    skc_bind_desc d = desc_for(&m, methods[i]);
    skc_bind_report full_rep, rep;
    skc_skin* full = bound(&d, &full_rep);
    d.coarse_above = 10000;
    d.coarse_target = 8000;
    skc_skin* coarse = bound(&d, &rep);
    double mean, worst;
    distance(full, coarse, m.bones, &mean, &worst);
    printf("method %d: full solve of %zu vertices vs a copy of %llu: weight distance mean %.4f max %.4f\n",
           methods[i], m.nv, (unsigned long long)rep.coarse_vertices, mean, worst);
    ck_assert_uint_eq(full_rep.coarse_vertices, 0);
    ck_assert_uint_gt(rep.coarse_vertices, 1000);
    ck_assert_uint_le(rep.coarse_vertices, 8000);
    ck_assert_uint_eq(rep.bound_vertices, m.nv);
    for (size_t v = 0; v < m.nv; ++v) ck_assert_uint_gt(coarse->offsets[v + 1], coarse->offsets[v]);
    ck_assert_double_lt(mean, 0.005);
    ck_assert_double_lt(worst, 0.05);
    skc_skin_destroy(full);
    skc_skin_destroy(coarse);
  }
  skt_bind_mesh_free(&m);
}
END_TEST

/* Below the threshold, with a vertex mask, or when the copy would not shrink the mesh by a quarter: the full
 * solve. */
START_TEST(coarse_only_where_it_applies) {
  skt_bind_mesh m = skt_bind_cylinder(64, 200, 3);
  skc_bind_desc d = desc_for(&m, SKC_BIND_ROBUST);
  skc_bind_report rep;
  d.coarse_above = m.nv; /* not above */
  d.coarse_target = m.nv / 4;
  skc_skin_destroy(bound(&d, &rep));
  ck_assert_uint_eq(rep.coarse_vertices, 0);
  d.coarse_above = 1000;
  d.coarse_target = m.nv; /* nothing to gain */
  skc_skin_destroy(bound(&d, &rep));
  ck_assert_uint_eq(rep.coarse_vertices, 0);
  uint8_t* mask = malloc(m.nv);
  memset(mask, 1, m.nv);
  d.vertex_mask = mask;
  d.coarse_target = m.nv / 4;
  skc_skin_destroy(bound(&d, &rep));
  ck_assert_uint_eq(rep.coarse_vertices, 0);
  d.vertex_mask = NULL;
  skc_skin_destroy(bound(&d, &rep));
  ck_assert_uint_gt(rep.coarse_vertices, 0);
  free(mask);
  skt_bind_mesh_free(&m);
}
END_TEST

/* The heat system's pattern of a 38k-vertex cylinder (its cotangent Laplacian's graph, one entry per edge): with
 * skc_chol_start's amalgamation the supernodal factor has far fewer supernodes than with CHOLMOD's defaults (each
 * supernode and each update between two opens an OpenMP region in the factorization: docs/bind.md, session 31). */
static size_t supernodes(const skt_bind_mesh* m, int relaxed) {
  cholmod_common cm;
  if (relaxed) {
    skc_chol_start(&cm);
  } else {
    cholmod_start(&cm);
    cm.print = 0;
  }
  cm.nmethods = 1;
  cm.method[0].ordering = CHOLMOD_AMD;
  cm.supernodal = CHOLMOD_SUPERNODAL;
  cholmod_triplet* T = cholmod_allocate_triplet(m->nv, m->nv, m->nv + 3 * m->nt, -1, CHOLMOD_REAL, &cm);
  ck_assert_ptr_nonnull(T);
  int* ti = T->i;
  int* tj = T->j;
  double* tx = T->x;
  size_t k = 0;
  for (size_t v = 0; v < m->nv; ++v, ++k) ti[k] = tj[k] = (int)v, tx[k] = 8.0;
  for (size_t t = 0; t < m->nt; ++t)
    for (int e = 0; e < 3; ++e, ++k) {
      int a = (int)m->tri[3 * t + e], b = (int)m->tri[3 * t + (e + 1) % 3];
      ti[k] = a > b ? a : b;
      tj[k] = a > b ? b : a;
      tx[k] = -0.5;
    }
  T->nnz = k;
  cholmod_sparse* A = cholmod_triplet_to_sparse(T, k, &cm);
  cholmod_factor* L = cholmod_analyze(A, &cm);
  ck_assert_ptr_nonnull(L);
  ck_assert(L->is_super);
  size_t n = L->nsuper;
  cholmod_free_factor(&L, &cm);
  cholmod_free_sparse(&A, &cm);
  cholmod_free_triplet(&T, &cm);
  cholmod_finish(&cm);
  return n;
}

START_TEST(fewer_larger_supernodes) {
  skt_bind_mesh m = skt_bind_cylinder(64, 600, 3);
  size_t plain = supernodes(&m, 0), relaxed = supernodes(&m, 1);
  printf("supernodes of the 38k cylinder's factor: %zu with CHOLMOD's defaults, %zu relaxed\n", plain, relaxed);
  ck_assert_uint_lt(relaxed, plain * 2 / 3);
  skt_bind_mesh_free(&m);
}
END_TEST

/* CHOLMOD's allocator is wrapped (large blocks advised huge pages) and the wrapper calls the allocator that was
 * installed before it, including one a program installs after a bind. Linux only. */
static size_t counted_bytes;
static void* counting_malloc(size_t n) {
  counted_bytes += n;
  return malloc(n);
}

START_TEST(cholmod_allocator_wrapped) {
#if defined(__linux__)
  struct SuiteSparse_config_struct* cfg = skc_chol_config(); /* CHOLMOD is loaded on first use */
  ck_assert_ptr_nonnull(cfg);
  cfg->malloc_func = counting_malloc;
  cholmod_common cm;
  skc_chol_start(&cm);
  ck_assert(skc_chol_huge_pages());
  counted_bytes = 0;
  cholmod_dense* X = cholmod_allocate_dense(1024, 1024, 1024, CHOLMOD_REAL, &cm); /* 8 MiB */
  ck_assert_ptr_nonnull(X);
  ck_assert_uint_ge(counted_bytes, 8u << 20);
  double* x = X->x;
  for (size_t i = 0; i < 1024 * 1024; ++i) x[i] = (double)i;
  ck_assert(x[1024 * 1024 - 1] == 1048575.0);
  cholmod_free_dense(&X, &cm);
  cholmod_finish(&cm);
  cfg->malloc_func = malloc; /* SuiteSparse's default, wrapped again at the next start */
  skc_chol_start(&cm);
  ck_assert(skc_chol_huge_pages());
  X = cholmod_allocate_dense(1024, 1024, 1024, CHOLMOD_REAL, &cm); /* the C library's blocks start on a huge page */
  ck_assert_ptr_nonnull(X);
  ck_assert_uint_eq((uintptr_t)X->x % ((size_t)2 << 20), 0);
  ((double*)X->x)[1024 * 1024 - 1] = 1.0;
  cholmod_free_dense(&X, &cm);
  cholmod_finish(&cm);
#else
  printf("cholmod_allocator_wrapped: skipped (not Linux)\n");
#endif
}
END_TEST

/* The kernel's flags for the mapping holding address a (/proc/self/smaps): 1 when it is advised huge pages ("hg"
 * in VmFlags), 0 when not, -1 when smaps cannot tell. */
static int mapping_advised_huge(const void* a) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int inside = 0, found = -1;
  uintptr_t x = (uintptr_t)a;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's first line; the others are "Key: value" */
      inside = x >= lo && x < hi;
      continue;
    }
    if (inside && strncmp(line, "VmFlags:", 8) == 0) {
      found = strstr(line, " hg") != NULL;
      break;
    }
  }
  fclose(f);
  return found;
}

/* Work arrays of 2 MiB and more start on a huge page and are advised huge pages before they are touched; smaller
 * ones are plain malloc; calloc_big zeroes and refuses an overflowing count; realloc_big keeps the contents. */
START_TEST(big_blocks_in_huge_pages) {
  size_t n = ((size_t)9 << 20) + 12345;
  uint8_t* p = skc_malloc_big(n);
  ck_assert_ptr_nonnull(p);
  memset(p, 0xab, n);
  ck_assert(p[n - 1] == 0xab);
#if defined(__linux__)
  ck_assert_uint_eq((uintptr_t)p % ((size_t)2 << 20), 0);
  int advised = mapping_advised_huge(p + ((size_t)4 << 20));
  if (advised >= 0) ck_assert_int_eq(advised, 1);
#endif
  free(p);
  uint32_t* z = skc_calloc_big((size_t)3 << 20, sizeof *z);
  ck_assert_ptr_nonnull(z);
  for (size_t i = 0; i < ((size_t)3 << 20); i += 4093) ck_assert_uint_eq(z[i], 0);
  free(z);
  uint32_t* g = skc_realloc_big(NULL, 0, 1000 * sizeof *g); /* grows past the threshold, keeping its values */
  ck_assert_ptr_nonnull(g);
  for (uint32_t i = 0; i < 1000; ++i) g[i] = i * 7u;
  g = skc_realloc_big(g, 1000 * sizeof *g, ((size_t)5 << 20) * sizeof *g);
  ck_assert_ptr_nonnull(g);
#if defined(__linux__)
  ck_assert_uint_eq((uintptr_t)g % ((size_t)2 << 20), 0);
#endif
  for (uint32_t i = 0; i < 1000; ++i) ck_assert_uint_eq(g[i], i * 7u);
  g[((size_t)5 << 20) - 1] = 1;
  free(g);
  uint8_t* small = skc_malloc_big(100);
  ck_assert_ptr_nonnull(small);
  small[99] = 1;
  free(small);
  ck_assert_ptr_null(skc_calloc_big(SIZE_MAX / 2, 4));
  ck_assert_ptr_null(skc_malloc_big(SIZE_MAX - 100));
  skc_advise_huge(NULL, (size_t)8 << 20); /* no block: nothing to do */
}
END_TEST

/* libskinkit.so loaded, a bind run (the wrapper installed), unloaded: CHOLMOD, which the test program keeps
 * loaded, has the allocator that was there before, not a pointer into the unloaded library. */
START_TEST(cholmod_allocator_restored_on_unload) {
#if defined(__linux__) && defined(SK_LIB_PATH)
  struct SuiteSparse_config_struct* cfg = skc_chol_config(); /* the CHOLMOD the library will load too */
  ck_assert_ptr_nonnull(cfg);
  cfg->malloc_func = malloc;
  void* h = dlopen(SK_LIB_PATH, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(h != NULL, "dlopen: %s", dlerror());
  sk_result (*bind)(const sk_bind_desc*, sk_skin*, sk_bind_report*, sk_error*);
  sk_result (*create)(size_t, uint32_t, sk_skin**, sk_error*);
  void (*destroy)(sk_skin*);
  *(void**)&bind = dlsym(h, "sk_bind");
  *(void**)&create = dlsym(h, "sk_skin_create");
  *(void**)&destroy = dlsym(h, "sk_skin_destroy");
  ck_assert(bind && create && destroy);
  skt_bind_mesh m = skt_bind_cylinder(16, 20, 2);
  sk_bind_desc d = skt_bind_desc_for(&m, SK_BIND_HEAT);
  sk_skin* s = NULL;
  ck_assert_int_eq(create(m.nv, m.bones, &s, NULL), SK_OK);
  ck_assert_int_eq(bind(&d, s, NULL, NULL), SK_OK);
  ck_assert(cfg->malloc_func != malloc); /* the library's wrapper */
  destroy(s);
  dlclose(h);
  ck_assert(cfg->malloc_func == malloc);
  skt_bind_mesh_free(&m);
#else
  printf("cholmod_allocator_restored_on_unload: skipped (not Linux)\n");
#endif
}
END_TEST

/* A bind runs the BLAS on one thread and gives the caller its thread count back; nested and concurrent users are
 * counted; a count the user set in the environment is left alone. Skipped where the BLAS is not OpenBLAS. */
START_TEST(blas_threads_restored) {
  int (*get)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (!get || !set || getenv("OPENBLAS_NUM_THREADS") || getenv("GOTO_NUM_THREADS")) {
    printf("blas_threads_restored: skipped (no OpenBLAS, or its thread count set by the environment)\n");
    return;
  }
  set(2);
  ck_assert_int_eq(get(), 2);
  int a = skc_blas_serial_begin();
  ck_assert_int_eq(get(), 1);
  int b = skc_blas_serial_begin();
  skc_blas_serial_end(a);
  ck_assert_int_eq(get(), 1); /* b still inside */
  skc_blas_serial_end(b);
  ck_assert_int_eq(get(), 2);
  skt_bind_mesh m = skt_bind_cylinder(32, 60, 3);
  skc_bind_desc d = desc_for(&m, SKC_BIND_HEAT);
  skc_bind_report rep;
  skc_skin_destroy(bound(&d, &rep));
  ck_assert_int_eq(get(), 2);
  setenv("OPENBLAS_NUM_THREADS", "2", 1);
  int c = skc_blas_serial_begin();
  ck_assert_int_eq(c, 0);
  ck_assert_int_eq(get(), 2);
  skc_blas_serial_end(c);
  unsetenv("OPENBLAS_NUM_THREADS");
  skt_bind_mesh_free(&m);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("bind_coarse");
  TCase* t = tcase_create("coarse");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, coarse_matches_the_full_solve);
  tcase_add_test(t, coarse_only_where_it_applies);
  tcase_add_test(t, fewer_larger_supernodes);
  tcase_add_test(t, blas_threads_restored);
  tcase_add_test(t, cholmod_allocator_wrapped);
  tcase_add_test(t, cholmod_allocator_restored_on_unload);
  tcase_add_test(t, big_blocks_in_huge_pages);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
