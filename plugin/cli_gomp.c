/* cli_gomp.c - one-thread OpenMP regions of the libraries the CLI loads run as plain calls.
 *
 * CHOLMOD's supernodal factorization opens an OpenMP region for every supernode and lets its `if` clause decide
 * whether the region gets more than one thread; for most supernodes of a surface mesh it does not. GCC compiles
 * such a region to GOMP_parallel(fn, data, 1, flags), and libgomp ends even a one-thread team with a futex wake
 * of the team's barrier: a system call per region, 17,488 of them in `skinkit bind` of a 38k-vertex cylinder
 * (strace -f -c: 93 % of the process's system-call time; on paravirtualized guests a system call is dear). A
 * one-thread team outside any parallel region behaves as the calling thread running the body: thread number 0 of
 * 1, worksharing constructs orphaned (libgomp runs them without a team), barriers no-ops. So the executable
 * defines GOMP_parallel, which the dynamic linker binds the libraries' calls to ahead of libgomp's (exported with
 * --export-dynamic-symbol, CMakeLists.txt): a request for one thread at nesting level 0 calls the body, anything
 * else goes to libgomp's GOMP_parallel. SKINKIT_OMP_INLINE=0 in the environment sends every region to libgomp.
 * Only the executable does this: a program linking libskinkit keeps its OpenMP runtime as it is. docs/bind.md,
 * session 59, has the measurements. */
#define _GNU_SOURCE /* dlvsym, RTLD_NEXT */
#if defined(_OPENMP) && defined(__linux__)
#include <dlfcn.h> /* glibc's, which defines __GLIBC__ */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#endif

#if defined(_OPENMP) && defined(__linux__) && defined(__GLIBC__)

typedef void (*gomp_parallel_fn)(void (*)(void*), void*, unsigned, unsigned);

/* libgomp's own entry; NULL when it cannot be found, and then every region runs on the calling thread, which
 * OpenMP allows (a team may have fewer threads than asked for). */
static gomp_parallel_fn next_gomp_parallel(void) {
  static gomp_parallel_fn next;
  gomp_parallel_fn f = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
  if (f) return f;
  void* p = dlvsym(RTLD_NEXT, "GOMP_parallel", "GOMP_4.0");
  if (!p) p = dlsym(RTLD_NEXT, "GOMP_parallel");
  f = (gomp_parallel_fn)p;
  if (f) __atomic_store_n(&next, f, __ATOMIC_RELEASE);
  return f;
}

/* 1 unless SKINKIT_OMP_INLINE=0; read once (a race reads the same value twice) */
static int inline_wanted(void) {
  static int wanted = -1;
  int w = __atomic_load_n(&wanted, __ATOMIC_RELAXED);
  if (w < 0) {
    const char* v = getenv("SKINKIT_OMP_INLINE");
    w = !(v && !strcmp(v, "0"));
    __atomic_store_n(&wanted, w, __ATOMIC_RELAXED);
  }
  return w;
}

__attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads,
                                                          unsigned flags);
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  /* num_threads 1: an if clause that came out false or num_threads(1); 0 means the default count */
  if (num_threads == 1 && omp_get_level() == 0 && inline_wanted()) {
    fn(data);
    return;
  }
  gomp_parallel_fn next = next_gomp_parallel();
  if (next)
    next(fn, data, num_threads, flags);
  else
    fn(data);
}
#else
typedef int cli_gomp_unused; /* ISO C wants a declaration in every translation unit */
#endif
