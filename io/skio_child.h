/* skio_child.h - waiting for a forked helper process (the isolated reader, scene_import.c, and writer,
 * ai_export.c) and collecting what it writes on a pipe. Internal to io/. */
#ifndef SKIO_CHILD_H
#define SKIO_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#include "skio_buf.h"

/* CLOCK_MONOTONIC in seconds. */
double skio_seconds_now(void);

/* Waits for child pid, appending what it writes on fd (the read end of its pipe) to got, at most cap bytes in all
 * (the rest is read and dropped, so the child never blocks on a full pipe). Woken by the child's writes and by its
 * end of the pipe closing; the exit itself is checked at least every 50 ms (another fork of this process may hold
 * the pipe open, so its end may never come). Kills and reaps the child after timeout seconds (0 = never).
 * Returns 1 when it exited (*st from waitpid), 0 when it timed out, -1 when it was lost (errno) or got ran out of
 * memory (got->oom). */
int skio_child_wait(pid_t pid, int fd, double timeout, size_t cap, int* st, skio_buf* got);

#endif
