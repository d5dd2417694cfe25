/* child.c - waiting for a forked helper process and collecting its pipe (see skio_child.h). */
#define _DEFAULT_SOURCE /* nanosleep */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skio_child.h"

double skio_seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Appends what fd holds now to got (kept up to cap bytes), never blocking: 1 while the pipe is open, 0 at its end
 * (every writer closed it), -1 on an error (errno) or when got ran out of memory. */
static int drain(int fd, size_t cap, skio_buf* got) {
  unsigned char spill[4096];
  for (;;) {
    struct pollfd p = {fd, POLLIN, 0};
    const int ready = poll(&p, 1, 0);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return -1;
    if (ready == 0) return 1;
    const bool keep = got->n < cap;
    if (keep && !skio_buf_reserve(got, 1 << 16)) return -1;
    unsigned char* to = keep ? got->p + got->n : spill;
    size_t room = keep ? got->cap - got->n : sizeof spill;
    if (keep && room > cap - got->n) room = cap - got->n;
    const ssize_t r = read(fd, to, room);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return 0;
    if (keep) got->n += (size_t)r;
  }
}

void skio_child_die_with_parent(pid_t parent) {
#ifdef __linux__
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(5); /* the parent died before the request took effect */
#else
  (void)parent;
#endif
}

static void kill_and_reap(pid_t pid, int* st) {
  kill(pid, SIGKILL);
  while (waitpid(pid, st, 0) < 0 && errno == EINTR) {
  }
}

int skio_child_wait(pid_t pid, int fd, double timeout, size_t cap, int* st, skio_buf* got) {
  const double start = skio_seconds_now();
  bool open = true;
  for (;;) {
    const pid_t r = waitpid(pid, st, WNOHANG);
    if (r == pid) { /* what it wrote before it exited is in the pipe */
      if (open && drain(fd, cap, got) < 0) return -1;
      return 1;
    }
    if (r < 0 && errno != EINTR) return -1;
    const double left = timeout > 0.0 ? timeout - (skio_seconds_now() - start) : 1.0;
    if (left <= 0.0) {
      kill_and_reap(pid, st);
      return 0;
    }
    const int ms = left >= 0.05 ? 50 : (int)ceil(left * 1000.0);
    if (!open) { /* its end closed: it is exiting; reap it without spinning */
      struct timespec step = {0, 1000000};
      nanosleep(&step, NULL);
      continue;
    }
    struct pollfd p = {fd, POLLIN, 0};
    const int n = poll(&p, 1, ms);
    if (n < 0 && errno != EINTR) {
      const int e = errno;
      kill_and_reap(pid, st);
      errno = e;
      return -1;
    }
    if (n > 0) {
      const int d = drain(fd, cap, got);
      if (d < 0) {
        const int e = errno;
        kill_and_reap(pid, st);
        errno = e;
        return -1;
      }
      open = d == 1;
    }
  }
}
