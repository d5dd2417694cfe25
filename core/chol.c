/* chol.c - triplet -> sparse -> analyze -> factorize with CHOLMOD, and the settings every CHOLMOD user here
 * shares (see skc_chol.h). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <stdlib.h>

#include "skc_chol.h"
#include "skc_mem.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#define SKC_BLAS_BY_NAME 1
#if defined(MADV_HUGEPAGE)
#define SKC_HUGE_FACTOR 1
#endif
#endif

#if SKC_HUGE_FACTOR
/* CHOLMOD's large blocks in huge pages. The supernodal factor's values (110 MB for a 200k-vertex mesh) are
 * allocated fresh on every bind and zeroed supernode by supernode; glibc maps blocks that large anew each time, so
 * each bind faults them in 4 KiB at a time, which on virtual machines costs ~9 us a fault (docs/bind.md, session
 * 31: page faults under CHOLMOD's memset were ~20 % of an in-process 200k bind). The CLI advises its heap for
 * huge pages itself; a program calling the library has its own malloc settings, so CHOLMOD's allocator - the
 * documented SuiteSparse_config.malloc_func - is wrapped: the function that was there allocates, and a block of
 * 2 MiB or more has its whole 2 MiB pages advised MADV_HUGEPAGE before CHOLMOD touches it (when that function is
 * the C library's malloc, skc_malloc_big also starts the block on a huge page: still a malloc block, which free
 * and realloc take). The wrapper only adds the advice, so other CHOLMOD users in the process are unaffected; an
 * allocator the program installs later is wrapped in turn at the next bind, and unloading the library puts the one
 * it found back. */
static pthread_mutex_t huge_lock = PTHREAD_MUTEX_INITIALIZER;
static void* (*volatile huge_inner)(size_t);

static void* huge_malloc(size_t n) {
  /* the C library's allocator (SuiteSparse's default): the block can start on a huge page too */
  const struct SuiteSparse_config_struct* cfg = skc_chol_config_if_loaded(); /* loaded: it calls us */
  if (huge_inner == malloc && cfg->free_func == free && cfg->realloc_func == realloc) return skc_malloc_big(n);
  void* p = huge_inner(n);
  skc_advise_huge(p, n);
  return p;
}

static void huge_wrap(struct SuiteSparse_config_struct* cfg) {
  pthread_mutex_lock(&huge_lock);
  void* (*cur)(size_t) = cfg->malloc_func;
  if (cur && cur != huge_malloc) {
    huge_inner = cur;
    cfg->malloc_func = huge_malloc;
  }
  pthread_mutex_unlock(&huge_lock);
}

/* The library unloaded (dlclose) while CHOLMOD stays loaded for another user: the allocator that was there again. */
__attribute__((destructor)) static void huge_unwrap(void) {
  struct SuiteSparse_config_struct* cfg = skc_chol_config_if_loaded();
  if (!cfg) return;
  pthread_mutex_lock(&huge_lock);
  if (cfg->malloc_func == huge_malloc) cfg->malloc_func = huge_inner;
  pthread_mutex_unlock(&huge_lock);
}
#endif

int skc_chol_huge_pages(void) {
#if SKC_HUGE_FACTOR
  const struct SuiteSparse_config_struct* cfg = skc_chol_config_if_loaded();
  return cfg && cfg->malloc_func == huge_malloc;
#else
  return 0;
#endif
}

/* Relaxed amalgamation: a supernode may absorb up to 8 / 32 / 96 columns (CHOLMOD's defaults: 4 / 16 / 48) at the
 * same share of explicit zeros. CHOLMOD's supernodal code opens an OpenMP region for every supernode and for every
 * update from a descendant, and libgomp ends each with a futex wake even when it runs on one thread: 45,563 system
 * calls for the 38k-vertex sample cylinder (17,488 now), dear on virtual machines. Fewer, larger supernodes also
 * give the BLAS larger blocks. `skinkit bind`, same output bytes: 38k cylinder 0.27 -> 0.23 s, 200k 1.13-1.54 ->
 * 1.01-1.37 s, peak memory +9-10 %; 12 / 48 / 128 or 16 / 64 / 128 were no faster and took more memory
 * (docs/bind.md, session 31). */
int skc_chol_blas_room(void) {
#if defined(__linux__)
  /* a writable private mapping counts against RLIMIT_AS and RLIMIT_DATA as the buffer's malloc would; untouched, it
   * costs no memory, and it is returned at once */
  const size_t probe = (size_t)160 << 20;
  void* p = mmap(NULL, probe, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return 0;
  munmap(p, probe);
#endif
  return 1;
}

int skc_chol_start(cholmod_common* cm) {
  struct SuiteSparse_config_struct* cfg = skc_chol_config();
  if (!cfg) {
    (void)cholmod_start(cm); /* status CHOLMOD_NOT_INSTALLED */
    return 0;
  }
#if SKC_HUGE_FACTOR
  huge_wrap(cfg);
#endif
  cholmod_start(cm);
  cm->print = 0;
  cm->error_handler = NULL;
  cm->nrelax[0] = 8;
  cm->nrelax[1] = 32;
  cm->nrelax[2] = 96;
  return 1;
}

#if SKC_BLAS_BY_NAME
static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_users;  /* callers between begin and end */
static int blas_saved;  /* the BLAS's thread count before the first of them */
static int blas_looked; /* the two functions were looked up */
static int (*blas_get)(void);
static void (*blas_set)(int);
#endif

int skc_blas_serial_begin(void) {
#if SKC_BLAS_BY_NAME
  if (getenv("OPENBLAS_NUM_THREADS") || getenv("GOTO_NUM_THREADS")) return 0;
  pthread_mutex_lock(&blas_lock);
  if (!blas_looked) {
    blas_looked = 1;
    /* the BLAS CHOLMOD loaded (in its own scope: chol_lazy.c), else one the process has */
    *(void**)&blas_get = skc_chol_symbol("openblas_get_num_threads");
    *(void**)&blas_set = skc_chol_symbol("openblas_set_num_threads");
    if (!blas_get || !blas_set) {
      *(void**)&blas_get = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
      *(void**)&blas_set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    }
  }
  int token = blas_get && blas_set;
  if (token && blas_users++ == 0) {
    blas_saved = blas_get();
    if (blas_saved > 1) blas_set(1);
  }
  pthread_mutex_unlock(&blas_lock);
  return token;
#else
  return 0;
#endif
}

void skc_blas_serial_end(int token) {
#if SKC_BLAS_BY_NAME
  if (!token) return;
  pthread_mutex_lock(&blas_lock);
  if (--blas_users == 0 && blas_saved > 1) blas_set(blas_saved);
  pthread_mutex_unlock(&blas_lock);
#else
  (void)token;
#endif
}

cholmod_factor* skc_chol_factor_triplet(cholmod_triplet** T, size_t nnz, cholmod_common* cm, cholmod_sparse** out_a,
                                        int* oom) {
  *oom = 0;
  cholmod_sparse* A = cholmod_triplet_to_sparse(*T, nnz, cm);
  cholmod_free_triplet(T, cm);
  if (!A) {
    *oom = 1;
    return NULL;
  }
  cholmod_factor* L = cholmod_analyze(A, cm);
  if (!L) {
    *oom = cm->status == CHOLMOD_OUT_OF_MEMORY;
    cholmod_free_sparse(&A, cm);
    return NULL;
  }
  cholmod_factorize(A, L, cm);
  if (cm->status != CHOLMOD_OK || L->minor < L->n) {
    *oom = cm->status == CHOLMOD_OUT_OF_MEMORY;
    cholmod_free_factor(&L, cm);
    cholmod_free_sparse(&A, cm);
    return NULL;
  }
  *out_a = A;
  return L;
}
