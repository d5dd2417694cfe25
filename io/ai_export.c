/* ai_export.c - Assimp's exporters behind a depth limit and, on request, in a child process (skio_ai_export.h). */
#define _DEFAULT_SOURCE /* fork, kill, strsignal, clock_gettime */
#include <assimp/cexport.h>
#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skio_ai.h"
#include "skio_ai_export.h"
#include "skio_child.h"

const char* skio_signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGABRT:
      return "SIGABRT";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGSYS:
      return "SIGSYS";
    case SIGTRAP:
      return "SIGTRAP";
    default:
      return "signal";
  }
}

/* Depth-first with the path kept in two arrays of limit + 1 entries: node and next child to visit. */
bool skio_ai_deeper_than(const struct aiNode* root, unsigned limit) {
  if (!root) return false;
  const struct aiNode** node = malloc(((size_t)limit + 1) * sizeof *node);
  unsigned* next = malloc(((size_t)limit + 1) * sizeof *next);
  bool deeper = !node || !next; /* out of memory: answer as for too deep, which refuses rather than crashes */
  size_t top = 0;
  if (!deeper) node[0] = root, next[0] = 0;
  while (!deeper) {
    const struct aiNode* n = node[top];
    if (next[top] < n->mNumChildren && n->mChildren && n->mChildren[next[top]]) {
      const struct aiNode* c = n->mChildren[next[top]++];
      if (top == limit) { /* c is at level limit + 1 */
        deeper = true;
        break;
      }
      node[++top] = c;
      next[top] = 0;
    } else if (top == 0) {
      break;
    } else {
      --top;
    }
  }
  free(node);
  free(next);
  return deeper;
}

bool skio_parents_deeper_than(const int32_t* parents, uint32_t count, unsigned limit) {
  uint32_t* depth = malloc(((size_t)count + 1) * sizeof *depth);
  bool deeper = !depth; /* out of memory: answer as for too deep, which refuses rather than crashes */
  for (uint32_t j = 0; j < count && !deeper; ++j) {
    const int32_t p = parents[j];
    depth[j] = p >= 0 && (uint32_t)p < j ? depth[p] + 1 : 0;
    deeper = depth[j] > limit;
  }
  free(depth);
  return deeper;
}

int skio_ai_too_deep(const char* path, const char* id, skc_err* err) {
  return skc_fail(err, SKC_UNSUPPORTED,
                  "%s: not written: its node hierarchy is more than %u levels deep, which Assimp's %s writer cannot "
                  "take (it recurses per level); .glb and .gltf have no such limit",
                  path, SKIO_AI_EXPORT_MAX_DEPTH, id);
}

static int export_here(const struct aiScene* sc, const char* id, const char* path, skio_buf* out, skc_err* err) {
  skio_ai_lock(); /* one thread in Assimp at a time (skio_ai.h): its writers call localtime, its error is global */
  const struct aiExportDataBlob* blob = aiExportSceneToBlob(sc, id, 0);
  if (!blob || !blob->data) {
    const char* why = aiGetErrorString();
    if (blob) aiReleaseExportBlob(blob);
    const int rc = skc_fail(err, SKC_IO, "%s: Assimp could not write it (%s): %s", path, id,
                            why && why[0] ? why : "unknown error");
    skio_ai_unlock();
    return rc;
  }
  skio_buf_put(out, blob->data, blob->size);
  aiReleaseExportBlob(blob);
  skio_ai_unlock();
  return out->oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path) : SKC_OK;
}

static bool write_all(int fd, const void* p, size_t n) {
  const char* c = p;
  while (n) {
    const ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= (size_t)w;
  }
  return true;
}

/* The isolated writer: 'B', the size (8 bytes), the bytes; or 'E' and Assimp's reason. Then leaves. */
static void export_child(const struct aiScene* sc, const char* id, int fd) {
  /* default actions for fatal signals, so a crash shows as one even where the host installed handlers */
  const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) signal(fatal[i], SIG_DFL);
  const struct aiExportDataBlob* blob = aiExportSceneToBlob(sc, id, 0);
  if (!blob || !blob->data) {
    const char* why = aiGetErrorString();
    if (write_all(fd, "E", 1) && why) (void)write_all(fd, why, strnlen(why, SKC_ERR_MESSAGE_SIZE - 2));
    _exit(3);
  }
  const uint64_t n = blob->size;
  _exit(write_all(fd, "B", 1) && write_all(fd, &n, sizeof n) && write_all(fd, blob->data, blob->size) ? 0 : 4);
}

/* What the isolated writer's run came to, as an error or as the file's bytes moved into out. */
static int child_result(const char* id, const char* path, int st, skio_buf* got, skio_buf* out, skc_err* err) {
  if (WIFSIGNALED(st))
    return skc_fail(err, SKC_IO, "%s: not written: Assimp's %s writer crashed (%s, %s; in an isolated writer)", path,
                    id, skio_signal_name(WTERMSIG(st)), strsignal(WTERMSIG(st)));
  if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
    const int len = got->n > 1 ? (int)(got->n - 1) : 0;
    return skc_fail(err, SKC_IO, "%s: Assimp could not write it (%s): %.*s", path, id, len ? len : 13,
                    len ? (const char*)got->p + 1 : "unknown error");
  }
  uint64_t n = 0;
  if (got->n >= 1 + sizeof n) memcpy(&n, got->p + 1, sizeof n);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || got->n < 1 + sizeof n || got->p[0] != 'B' || n != got->n - 1 - sizeof n)
    return skc_fail(err, SKC_IO, "%s: not written: Assimp's %s writer stopped (isolated writer exit %d)", path, id,
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  skio_buf_put(out, got->p + 1 + sizeof n, (size_t)n);
  return out->oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path) : SKC_OK;
}

static int export_isolated(const struct aiScene* sc, const char* id, const char* path, double timeout, skio_buf* out,
                           skc_err* err) {
  int fds[2];
  if (pipe(fds) != 0) return skc_fail(err, SKC_IO, "%s: cannot start the isolated writer: %s", path, strerror(errno));
  fflush(NULL);
  skio_ai_lock(); /* the child starts with Assimp at rest, not halfway through another thread's call */
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) skio_ai_unlock(); /* the child never takes the lock */
  if (pid < 0) {
    const int e = errno;
    close(fds[0]);
    close(fds[1]);
    return skc_fail(err, SKC_IO, "%s: cannot start the isolated writer: %s", path, strerror(e));
  }
  if (pid == 0) {
    skio_child_die_with_parent(parent);
    close(fds[0]);
    export_child(sc, id, fds[1]);
  }
  close(fds[1]);
  skio_buf got = {0};
  int st = 0, rc;
  const int done = skio_child_wait(pid, fds[0], timeout, SIZE_MAX, &st, &got);
  const int e = errno;
  close(fds[0]);
  if (done == 0)
    rc = skc_fail(err, SKC_IO, "%s: not written: Assimp's %s writer did not finish within the time limit of %g s", path,
                  id, timeout);
  else if (done < 0)
    rc = got.oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path)
                 : skc_fail(err, SKC_IO, "%s: lost the isolated writer: %s", path, strerror(e));
  else
    rc = child_result(id, path, st, &got, out, err);
  free(got.p);
  return rc;
}

int skio_ai_export(const struct aiScene* sc, const char* id, const char* path, const skio_ai_guard* guard,
                   skio_buf* out, skc_err* err) {
  if (skio_ai_deeper_than(sc->mRootNode, SKIO_AI_EXPORT_MAX_DEPTH)) return skio_ai_too_deep(path, id, err);
  const char* missing = skio_ai_unavailable(); /* loaded here, before an isolated writer forks */
  if (missing) return skc_fail(err, SKC_UNSUPPORTED, "%s: cannot write %s: %s", path, id, missing);
  if (guard && guard->isolate) return export_isolated(sc, id, path, guard->timeout_seconds, out, err);
  return export_here(sc, id, path, out, err);
}
