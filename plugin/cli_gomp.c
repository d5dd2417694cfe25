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
 * else goes to libgomp's GOMP_parallel. A region asking for more threads while dynamic adjustment is on (a library
 * that turned it on) gets the team libgomp would give it (dynamic_team), run inline when that is one thread, and so
 * does every region while no region may be active (max-active-levels 0: bind's factorization, core/bind_heat.c).
 * SKINKIT_OMP_INLINE=0 in the environment sends every region to libgomp as asked.
 * Only the executable does this: a program linking libskinkit keeps its OpenMP runtime as it is. docs/bind.md,
 * session 59, has the measurements. */
#define _GNU_SOURCE /* dlvsym, RTLD_NEXT */
#if defined(_OPENMP) && defined(__linux__)
#include <dlfcn.h> /* glibc's, which defines __GLIBC__ */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* The team libgomp's dynamic adjustment gives (gomp_dynamic_max_threads: the processors this process may use less
 * the 15-minute load average plus 0.1, at least 1), worked out at most once a second. libgomp works it out for every
 * region while dynamic adjustment is on (bind's factorization turned it on until session 65): getloadavg's sysinfo
 * and sched_getaffinity, two system calls for each of the 1,076 regions of a 38k-vertex bind, which the 15-minute
 * average does not need. */
static unsigned dynamic_team(void) {
  static unsigned cached;
  static long until;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now); /* the vDSO: no system call */
  unsigned n = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (n && now.tv_sec < __atomic_load_n(&until, __ATOMIC_RELAXED)) return n;
  double load[3];
  const int procs = omp_get_num_procs();
  const unsigned busy = getloadavg(load, 3) == 3 && load[2] >= 0.0 ? (unsigned)(load[2] + 0.1) : 0;
  n = procs > 0 && (unsigned)procs > busy ? (unsigned)procs - busy : 1;
  __atomic_store_n(&cached, n, __ATOMIC_RELAXED);
  __atomic_store_n(&until, (long)now.tv_sec + 1, __ATOMIC_RELAXED);
  return n;
}

__attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads,
                                                          unsigned flags);
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  gomp_parallel_fn next = next_gomp_parallel();
  if (omp_get_level() == 0 && inline_wanted()) {
    /* num_threads 1: an if clause that came out false or num_threads(1); 0 means the default count */
    unsigned n = omp_get_max_active_levels() > 0 ? num_threads : 1; /* 0: no region may be active (bind_heat.c) */
    if (n != 1 && omp_get_dynamic()) { /* the team dynamic adjustment would give, without its system calls */
      const unsigned asked = n ? n : (unsigned)omp_get_max_threads(), room = dynamic_team();
      n = asked < room ? asked : room;
      if (n > 1 && next) {
        omp_set_dynamic(0); /* an ICV of this thread: libgomp takes n as it is */
        next(fn, data, n, flags);
        omp_set_dynamic(1);
        return;
      }
    }
    if (n == 1) {
      fn(data);
      return;
    }
  }
  if (next)
    next(fn, data, num_threads, flags);
  else
    fn(data);
}
#else
typedef int cli_gomp_unused; /* ISO C wants a declaration in every translation unit */
#endif
