/* chol_lazy.c - CHOLMOD loaded on first use.
 *
 * Only bone-heat binding and weight transfer's inpainting solve sparse systems, but as a needed library CHOLMOD
 * came with OpenBLAS, gfortran, METIS, LAPACK and SuiteSparse's orderings into every process that loads the
 * library: ~9 ms of each `skinkit` start-up on a paravirtualized guest (a program linking only libcholmod took
 * 19.7 ms to run against 9.3 ms for an empty one), and OpenBLAS's constructor started a worker thread that spun on
 * sched_yield for 0.1 s. The 16 CHOLMOD functions the library calls are now defined below and forward to CHOLMOD,
 * which dlopen maps the first time one is called (its soname, SKC_CHOLMOD_SONAME, found by CMake, or the file
 * SKINKIT_CHOLMOD names). Their names are CHOLMOD's own, so the call sites are unchanged; they stay inside the
 * library (the version script exports sk_* only), and CHOLMOD's own calls bind within CHOLMOD.
 *
 * Without CHOLMOD, cholmod_start leaves Common->status at CHOLMOD_NOT_INSTALLED and every other call fails (NULL
 * or FALSE); the callers ask skc_chol_unavailable first and report its reason. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_chol.h"
#include "skc_dl.h"

#ifndef SKC_CHOLMOD_SONAME
#define SKC_CHOLMOD_SONAME "libcholmod.so.3"
#endif

#define CHOLMOD_FUNCTIONS(X)                                                                                    \
  X(cholmod_start, int, (cholmod_common*))                                                                      \
  X(cholmod_finish, int, (cholmod_common*))                                                                     \
  X(cholmod_free_work, int, (cholmod_common*))                                                                  \
  X(cholmod_allocate_sparse, cholmod_sparse*, (size_t, size_t, size_t, int, int, int, int, cholmod_common*))    \
  X(cholmod_free_sparse, int, (cholmod_sparse**, cholmod_common*))                                              \
  X(cholmod_allocate_triplet, cholmod_triplet*, (size_t, size_t, size_t, int, int, cholmod_common*))            \
  X(cholmod_free_triplet, int, (cholmod_triplet**, cholmod_common*))                                            \
  X(cholmod_triplet_to_sparse, cholmod_sparse*, (cholmod_triplet*, size_t, cholmod_common*))                    \
  X(cholmod_allocate_dense, cholmod_dense*, (size_t, size_t, size_t, int, cholmod_common*))                     \
  X(cholmod_zeros, cholmod_dense*, (size_t, size_t, int, cholmod_common*))                                      \
  X(cholmod_free_dense, int, (cholmod_dense**, cholmod_common*))                                                \
  X(cholmod_analyze, cholmod_factor*, (cholmod_sparse*, cholmod_common*))                                       \
  X(cholmod_factorize, int, (cholmod_sparse*, cholmod_factor*, cholmod_common*))                                \
  X(cholmod_free_factor, int, (cholmod_factor**, cholmod_common*))                                              \
  X(cholmod_solve, cholmod_dense*, (int, cholmod_factor*, cholmod_dense*, cholmod_common*))                     \
  X(cholmod_solve2, int,                                                                                        \
    (int, cholmod_factor*, cholmod_dense*, cholmod_sparse*, cholmod_dense**, cholmod_sparse**, cholmod_dense**, \
     cholmod_dense**, cholmod_common*))

#define CHOLMOD_POINTER(name, ret, args) ret(*name) args;
static struct { CHOLMOD_FUNCTIONS(CHOLMOD_POINTER) } g_ch;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void* g_lib;
static struct SuiteSparse_config_struct* g_config;
static const char* g_missing; /* NULL once every function was found */
static char g_reason[512];

#define CHOLMOD_NAME(name, ret, args) #name,
static const char* const k_names[] = {CHOLMOD_FUNCTIONS(CHOLMOD_NAME)};
_Static_assert(sizeof g_ch == sizeof k_names / sizeof k_names[0] * sizeof(void*), "one pointer a name");

static void load(void) {
  const char* file;
  void* lib = skc_dl_open("SKINKIT_CHOLMOD", SKC_CHOLMOD_SONAME, "CHOLMOD", &file, g_reason, sizeof g_reason);
  if (!lib || !skc_dl_resolve(lib, k_names, (void**)&g_ch, sizeof k_names / sizeof k_names[0], "CHOLMOD", file,
                              g_reason, sizeof g_reason)) {
    g_missing = g_reason;
    return;
  }
  g_config = (struct SuiteSparse_config_struct*)dlsym(lib, "SuiteSparse_config");
  if (!g_config) {
    snprintf(g_reason, sizeof g_reason, "CHOLMOD (%s): SuiteSparse_config not found", file);
    g_missing = g_reason;
    return;
  }
  __atomic_store_n(&g_lib, lib, __ATOMIC_RELEASE); /* stays loaded: factors it made may be freed at any time */
}

const char* skc_chol_unavailable(void) {
  pthread_once(&g_once, load);
  return g_missing;
}

static int ready(void) { return skc_chol_unavailable() == NULL; }

struct SuiteSparse_config_struct* skc_chol_config(void) {
  return ready() ? g_config : NULL;
}

struct SuiteSparse_config_struct* skc_chol_config_if_loaded(void) {
  return __atomic_load_n(&g_lib, __ATOMIC_ACQUIRE) ? g_config : NULL;
}

void* skc_chol_symbol(const char* name) { return ready() ? dlsym(g_lib, name) : NULL; }

int cholmod_start(cholmod_common* c) {
  if (ready()) return g_ch.cholmod_start(c);
  if (c) {
    memset(c, 0, sizeof *c);
    c->status = CHOLMOD_NOT_INSTALLED;
  }
  return 0;
}

int cholmod_finish(cholmod_common* c) { return ready() ? g_ch.cholmod_finish(c) : 1; }

int cholmod_free_work(cholmod_common* c) { return ready() ? g_ch.cholmod_free_work(c) : 1; }

cholmod_sparse* cholmod_allocate_sparse(size_t nrow, size_t ncol, size_t nzmax, int sorted, int packed, int stype,
                                        int xtype, cholmod_common* c) {
  return ready() ? g_ch.cholmod_allocate_sparse(nrow, ncol, nzmax, sorted, packed, stype, xtype, c) : NULL;
}

int cholmod_free_sparse(cholmod_sparse** a, cholmod_common* c) { return ready() ? g_ch.cholmod_free_sparse(a, c) : 1; }

cholmod_triplet* cholmod_allocate_triplet(size_t nrow, size_t ncol, size_t nzmax, int stype, int xtype,
                                          cholmod_common* c) {
  return ready() ? g_ch.cholmod_allocate_triplet(nrow, ncol, nzmax, stype, xtype, c) : NULL;
}

int cholmod_free_triplet(cholmod_triplet** t, cholmod_common* c) {
  return ready() ? g_ch.cholmod_free_triplet(t, c) : 1;
}

cholmod_sparse* cholmod_triplet_to_sparse(cholmod_triplet* t, size_t nzmax, cholmod_common* c) {
  return ready() ? g_ch.cholmod_triplet_to_sparse(t, nzmax, c) : NULL;
}

cholmod_dense* cholmod_allocate_dense(size_t nrow, size_t ncol, size_t d, int xtype, cholmod_common* c) {
  return ready() ? g_ch.cholmod_allocate_dense(nrow, ncol, d, xtype, c) : NULL;
}

cholmod_dense* cholmod_zeros(size_t nrow, size_t ncol, int xtype, cholmod_common* c) {
  return ready() ? g_ch.cholmod_zeros(nrow, ncol, xtype, c) : NULL;
}

int cholmod_free_dense(cholmod_dense** x, cholmod_common* c) { return ready() ? g_ch.cholmod_free_dense(x, c) : 1; }

cholmod_factor* cholmod_analyze(cholmod_sparse* a, cholmod_common* c) {
  return ready() ? g_ch.cholmod_analyze(a, c) : NULL;
}

int cholmod_factorize(cholmod_sparse* a, cholmod_factor* l, cholmod_common* c) {
  return ready() ? g_ch.cholmod_factorize(a, l, c) : 0;
}

int cholmod_free_factor(cholmod_factor** l, cholmod_common* c) { return ready() ? g_ch.cholmod_free_factor(l, c) : 1; }

cholmod_dense* cholmod_solve(int sys, cholmod_factor* l, cholmod_dense* b, cholmod_common* c) {
  return ready() ? g_ch.cholmod_solve(sys, l, b, c) : NULL;
}

int cholmod_solve2(int sys, cholmod_factor* l, cholmod_dense* b, cholmod_sparse* bset, cholmod_dense** x,
                   cholmod_sparse** xset, cholmod_dense** y, cholmod_dense** e, cholmod_common* c) {
  return ready() ? g_ch.cholmod_solve2(sys, l, b, bset, x, xset, y, e, c) : 0;
}
