/* test_par.c - skc_par_run (core/par.c): every chunk runs once, each slot one participant, a stopped run ends, a
 * second caller never waits on a pool another run holds, and a forked child gets a pool of its own. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skc_par.h"

enum { CHUNKS = 5000, SLOTS = 4 };

typedef struct count_ctx {
  atomic_int runs[CHUNKS];
  atomic_int in_slot[SLOTS];
  atomic_int bad_slot;
  size_t stop_at; /* skc_par_stop after taking this chunk (CHUNKS: never) */
} count_ctx;

static void count_body(void* ctx, unsigned slot, skc_par_job* job) {
  count_ctx* c = ctx;
  if (slot >= SLOTS || atomic_exchange(&c->in_slot[slot], 1) != 0) {
    atomic_store(&c->bad_slot, 1);
    return;
  }
  size_t k;
  while (skc_par_take(job, &k)) {
    atomic_fetch_add(&c->runs[k], 1);
    if (k == c->stop_at) skc_par_stop(job);
  }
}

static count_ctx* fresh(size_t stop_at) {
  count_ctx* c = calloc(1, sizeof *c);
  c->stop_at = stop_at;
  return c;
}

START_TEST(every_chunk_runs_once) {
  unsigned most = 0;
  for (int rep = 0; rep < 300; ++rep) {
    count_ctx* c = fresh(CHUNKS);
    const size_t chunks = rep % 3 == 0 ? 1 : rep % 3 == 1 ? 7 : CHUNKS;
    const unsigned used = skc_par_run(chunks, SLOTS, count_body, c);
    ck_assert_uint_ge(used, 1);
    ck_assert_uint_le(used, SLOTS);
    if (used > most) most = used;
    ck_assert_int_eq(atomic_load(&c->bad_slot), 0);
    for (size_t k = 0; k < CHUNKS; ++k) ck_assert_int_eq(atomic_load(&c->runs[k]), k < chunks ? 1 : 0);
    for (unsigned s = 0; s < used; ++s) ck_assert_int_eq(atomic_load(&c->in_slot[s]), 1);
    free(c);
  }
  count_ctx* alone = fresh(CHUNKS);
  ck_assert_uint_eq(skc_par_run(CHUNKS, 1, count_body, alone), 1);
  for (size_t k = 0; k < CHUNKS; ++k) ck_assert_int_eq(atomic_load(&alone->runs[k]), 1);
  free(alone);
  ck_assert_uint_ge(most, 1);
}
END_TEST

START_TEST(a_stopped_run_ends) {
  for (int rep = 0; rep < 100; ++rep) {
    count_ctx* c = fresh(10);
    const unsigned slots = rep % 2 ? SLOTS : 1;
    skc_par_run(CHUNKS, slots, count_body, c);
    size_t done = 0;
    for (size_t k = 0; k < CHUNKS; ++k) {
      ck_assert_int_le(atomic_load(&c->runs[k]), 1);
      done += (size_t)atomic_load(&c->runs[k]);
    }
    ck_assert_int_eq(atomic_load(&c->runs[10]), 1);
    if (slots == 1) ck_assert_uint_eq(done, 11); /* with others, they may take more before the stop lands */
    free(c);
  }
}
END_TEST

static void nap_ms(void) { nanosleep(&(struct timespec){0, 1000000}, NULL); }

/* A run whose pool threads block until released, on its own thread. */
typedef struct held {
  atomic_int entered, release;
} held;

static void hold_body(void* ctx, unsigned slot, skc_par_job* job) {
  held* h = ctx;
  size_t k;
  if (slot > 0) {
    atomic_store(&h->entered, 1);
    while (!atomic_load(&h->release)) nap_ms();
  }
  for (int i = 0; slot == 0 && i < 5000 && !atomic_load(&h->entered); ++i) nap_ms(); /* keep the run open */
  while (skc_par_take(job, &k)) {
  }
}

static void* hold_run(void* arg) {
  skc_par_run(1000, 2, hold_body, arg);
  return NULL;
}

START_TEST(a_second_caller_never_waits_on_the_pool) {
  held h;
  atomic_init(&h.entered, 0);
  atomic_init(&h.release, 0);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, hold_run, &h), 0);
  for (int i = 0; i < 5000 && !atomic_load(&h.entered); ++i) nap_ms();
  ck_assert_msg(atomic_load(&h.entered), "no pool thread joined the first run in 5 s");
  count_ctx* c = fresh(CHUNKS); /* the pool is held: this caller works alone and returns */
  ck_assert_uint_eq(skc_par_run(CHUNKS, SLOTS, count_body, c), 1);
  for (size_t k = 0; k < CHUNKS; ++k) ck_assert_int_eq(atomic_load(&c->runs[k]), 1);
  free(c);
  atomic_store(&h.release, 1);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
}
END_TEST

START_TEST(a_forked_child_has_a_pool_of_its_own) {
  count_ctx* c = fresh(CHUNKS);
  skc_par_run(CHUNKS, SLOTS, count_body, c); /* the parent's pool threads exist now */
  free(c);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int ok = 1;
    for (int rep = 0; rep < 20 && ok; ++rep) {
      count_ctx* cc = fresh(CHUNKS);
      skc_par_run(CHUNKS, SLOTS, count_body, cc);
      for (size_t k = 0; k < CHUNKS; ++k) ok &= atomic_load(&cc->runs[k]) == 1;
      free(cc);
    }
    _exit(ok ? 0 : 3);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}
END_TEST

int main(void) {
  Suite* s = suite_create("par");
  TCase* t = tcase_create("par");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, every_chunk_runs_once);
  tcase_add_test(t, a_stopped_run_ends);
  tcase_add_test(t, a_second_caller_never_waits_on_the_pool);
  tcase_add_test(t, a_forked_child_has_a_pool_of_its_own);
  suite_add_tcase(s, t);
  return skt_run_suite(s);
}
