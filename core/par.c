/* par.c - skc_par_run: the caller works from the start, pool threads join while there is work (skc_par.h).
 *
 * One pool per process, one run at a time in it (another caller meanwhile works alone). A run is published under the
 * pool's lock with a new generation number; a sleeping pool thread wakes, and joins under the same lock unless the
 * run is closed. The caller closes the run once every chunk has been handed out, withdraws it under the lock, and
 * waits only for the threads that joined: a thread that joins later finds no run, so the job on the caller's stack
 * is never touched after the caller returns. */
#define _POSIX_C_SOURCE 200809L /* sigset_t, pthread_sigmask under -std=c11 (gcc declared them only with -fopenmp) */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "skc_par.h"

enum { MAX_WORKERS = 15 };
#define CLOSED (1u << 31)

struct skc_par_job {
  skc_par_body body;
  void* ctx;
  size_t chunks;
  unsigned slots;
  atomic_size_t next; /* next chunk to hand out; >= chunks when done or stopped */
  atomic_uint state;  /* CLOSED | the number of pool threads inside body */
  unsigned joined;    /* pool threads that took a slot (under the pool's lock) */
};

static struct pool {
  pthread_mutex_t lock;
  pthread_cond_t wake; /* a new generation: pool threads look for a run */
  pthread_cond_t done; /* a pool thread left a closed run */
  skc_par_job* job;    /* the run pool threads may join, or NULL */
  unsigned long gen;
  unsigned workers; /* started */
  bool busy;        /* a caller's run owns the pool */
  bool quit;
  pthread_t threads[MAX_WORKERS];
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

bool skc_par_take(skc_par_job* job, size_t* k) {
  if (atomic_load_explicit(&job->next, memory_order_relaxed) >= job->chunks) return false;
  *k = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
  return *k < job->chunks;
}

void skc_par_stop(skc_par_job* job) { atomic_store(&job->next, job->chunks); }

/* Under the lock: a slot in job for a pool thread, or 0 when the run is closed or has all its slots. */
static unsigned join(skc_par_job* job) {
  unsigned s = atomic_load(&job->state);
  if (job->joined + 1 >= job->slots) return 0;
  do {
    if (s & CLOSED) return 0;
  } while (!atomic_compare_exchange_weak(&job->state, &s, s + 1));
  return ++job->joined;
}

/* After body: the last thread out of a closed run wakes its caller. job is not read after the decrement. */
static void leave(skc_par_job* job) {
  if (atomic_fetch_sub(&job->state, 1) - 1 != CLOSED) return;
  pthread_mutex_lock(&g.lock);
  pthread_cond_broadcast(&g.done);
  pthread_mutex_unlock(&g.lock);
}

static void* worker(void* arg) {
  unsigned long seen = (unsigned long)(uintptr_t)arg;
  pthread_mutex_lock(&g.lock);
  for (;;) {
    while (g.gen == seen && !g.quit) pthread_cond_wait(&g.wake, &g.lock);
    if (g.quit) break;
    seen = g.gen;
    skc_par_job* job = g.job;
    const unsigned slot = job ? join(job) : 0;
    if (!slot) continue;
    pthread_mutex_unlock(&g.lock);
    job->body(job->ctx, slot, job);
    leave(job);
    pthread_mutex_lock(&g.lock);
  }
  pthread_mutex_unlock(&g.lock);
  return NULL;
}

/* A fork keeps only the forking thread: the child's pool starts again from nothing. */
static void fork_prepare(void) { pthread_mutex_lock(&g.lock); }
static void fork_parent(void) { pthread_mutex_unlock(&g.lock); }
static void fork_child(void) {
  pthread_mutex_init(&g.lock, NULL);
  pthread_cond_init(&g.wake, NULL);
  pthread_cond_init(&g.done, NULL);
  g.job = NULL;
  g.workers = 0;
  g.busy = false;
}

static void at_fork(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

/* Under the lock: pool threads up to want (fewer when the system refuses), all signals blocked in them so that a
 * program's handlers run on its own threads. */
static void start_workers(unsigned want) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, at_fork);
  if (want > MAX_WORKERS) want = MAX_WORKERS;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  while (g.workers < want && pthread_create(&g.threads[g.workers], NULL, worker, (void*)(uintptr_t)g.gen) == 0)
    ++g.workers;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Offers job to the pool; false when another run owns it (or no thread could be started). */
static bool publish(skc_par_job* job) {
  pthread_mutex_lock(&g.lock);
  bool ok = !g.busy && !g.quit;
  if (ok) start_workers(job->slots - 1);
  ok = ok && g.workers > 0;
  if (ok) {
    g.busy = true;
    g.job = job;
    ++g.gen;
    pthread_cond_broadcast(&g.wake);
  }
  pthread_mutex_unlock(&g.lock);
  return ok;
}

/* Closes job, withdraws it and waits for the pool threads inside it. */
static void finish(skc_par_job* job) {
  atomic_fetch_or(&job->state, CLOSED);
  pthread_mutex_lock(&g.lock);
  g.job = NULL;
  while (atomic_load(&job->state) != CLOSED) pthread_cond_wait(&g.done, &g.lock);
  g.busy = false;
  pthread_mutex_unlock(&g.lock);
}

unsigned skc_par_run(size_t chunks, unsigned slots, skc_par_body body, void* ctx) {
  skc_par_job job = {.body = body, .ctx = ctx, .chunks = chunks, .slots = slots};
  atomic_init(&job.next, 0);
  atomic_init(&job.state, 0);
  const bool shared = slots > 1 && chunks > 1 && publish(&job);
  body(ctx, 0, &job);
  if (!shared) return 1;
  finish(&job);
  return 1 + job.joined;
}

/* Unloading the library (dlclose) must not leave threads running its code. */
__attribute__((destructor)) static void pool_end(void) {
  pthread_mutex_lock(&g.lock);
  g.quit = true;
  pthread_cond_broadcast(&g.wake);
  const unsigned n = g.workers;
  g.workers = 0;
  pthread_mutex_unlock(&g.lock);
  for (unsigned i = 0; i < n; ++i) pthread_join(g.threads[i], NULL);
}
