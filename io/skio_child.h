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

/* Called first in a helper just forked by parent (getpid() before the fork): the helper is killed when the thread
 * that forked it ends, which skio_child_wait keeps alive for the helper's whole life. Without it a helper outlived
 * a process killed by SIGKILL (a CI or harness time limit, the OOM killer): Assimp looping on a damaged file then
 * ran on at full speed with no time limit. Linux only; elsewhere the helper finishes on its own (its pipe closed,
 * its report then ends it by SIGPIPE). */
void skio_child_die_with_parent(pid_t parent);

#endif
