/* atomic_file.c - replacing a file atomically (skio_atomic.h). */
#define _GNU_SOURCE /* fsync, fchmod, O_CLOEXEC, O_DIRECTORY, renameat2 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skio_atomic.h"

static size_t dir_length(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) + 1 : 0;
}

/* ---- writes in progress: the names of their temporary files (copies, so a name outlives its malloc'd string), for
 * skio_atomic_remove_temporaries in a signal handler. A slot is free (0), busy (1: its name being written, or being
 * removed by the handler) or held: then it holds the address of the write's malloc'd name, which every caller passes
 * back (the string create_temp gave it, unique while it lives). One atomic word per slot, so a write drops its own
 * slot with one compare-and-swap of that address (no other thread's slot can match, even one freed and taken again
 * meanwhile), and a slot's name is only written by the thread that took it from free and only read by whoever took
 * it from held: concurrent writes in different threads never touch a name another one is writing. ---- */
#define LIVE_SLOTS 16
#define LIVE_NAME 4096
#define LIVE_FREE ((uintptr_t)0)
#define LIVE_BUSY ((uintptr_t)1)
static _Atomic(uintptr_t) g_live[LIVE_SLOTS];
static char g_live_name[LIVE_SLOTS][LIVE_NAME];

static void live_add(const char* tmp) {
  if (strlen(tmp) >= LIVE_NAME) return;
  for (int i = 0; i < LIVE_SLOTS; ++i) {
    uintptr_t free_slot = LIVE_FREE;
    if (!atomic_compare_exchange_strong(&g_live[i], &free_slot, LIVE_BUSY)) continue;
    strcpy(g_live_name[i], tmp);
    atomic_store(&g_live[i], (uintptr_t)tmp); /* published once the name is complete */
    return;
  } /* all taken (16 writes at once): this one is not removed by a signal handler */
}
static void live_drop(const char* tmp) {
  for (int i = 0; i < LIVE_SLOTS; ++i) {
    uintptr_t mine = (uintptr_t)tmp;
    if (atomic_load(&g_live[i]) == mine && atomic_compare_exchange_strong(&g_live[i], &mine, LIVE_FREE)) return;
  } /* not held (any more): never added, already dropped, or being removed by the handler, which frees the slot */
}
void skio_atomic_remove_temporaries(void) {
  for (int i = 0; i < LIVE_SLOTS; ++i) {
    uintptr_t held = atomic_load(&g_live[i]);
    if (held > LIVE_BUSY && atomic_compare_exchange_strong(&g_live[i], &held, LIVE_BUSY)) {
      unlink(g_live_name[i]); /* async-signal-safe */
      atomic_store(&g_live[i], LIVE_FREE);
    }
  }
}

/* Whether a write to path goes into what is there instead of replacing it: something that is no regular file (a
 * device such as /dev/null, a FIFO or socket, /dev/stdout on a terminal or pipe, bash's /dev/fd/N: *fd = -1, open
 * path), or this process's standard output or error reached through a link (/dev/stdout redirected to a file: *fd
 * = 1 or 2). Not for a regular file, a folder or nothing there (replaced by rename, or refused by it). */
static bool write_into(const char* path, int* fd) {
  struct stat st, ln, o;
  *fd = -1;
  if (stat(path, &st) != 0 || S_ISDIR(st.st_mode)) return false;
  if (!S_ISREG(st.st_mode)) return true;
  if (lstat(path, &ln) != 0 || !S_ISLNK(ln.st_mode)) return false;
  for (int f = 1; f <= 2; ++f)
    if (fstat(f, &o) == 0 && o.st_dev == st.st_dev && o.st_ino == st.st_ino) {
      *fd = f;
      return true;
    }
  return false;
}

static int create_fail(const char* path, size_t dir_len, int e, skc_err* err) {
  if (dir_len)
    return skc_fail(err, SKC_IO, "%s: cannot create a file in folder \"%.*s\": %s", path, (int)(dir_len - 1), path,
                    strerror(e));
  return skc_fail(err, SKC_IO, "%s: cannot create a file in the current folder: %s", path, strerror(e));
}

/* A new file "<dir>.<name>.<pid>-<n>-<time>.tmp" beside path (O_EXCL, so never an existing file; mode 0666 less the
 * umask, or the replaced file's permissions): *fd_out and *tmp_out are set on success. A path written into
 * (write_into: /dev/null, a FIFO) gets its temporary file in $TMPDIR or /tmp instead of the device's folder. */
static int create_temp(const char* path, int* fd_out, char** tmp_out, skc_err* err) {
  static _Atomic unsigned counter; /* with the pid and the clock: unique per call, also across threads */
  const char* tmpdir = getenv("TMPDIR");
  if (!tmpdir || tmpdir[0] != '/') tmpdir = "/tmp";
  int std_fd;
  const bool aside = write_into(path, &std_fd);
  const size_t dir_len = dir_length(path);
  const char* base = path + dir_len;
  const size_t cap = (aside ? strlen(tmpdir) + 1 : dir_len) + 128;
  char* tmp = malloc(cap);
  if (!tmp) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path);
  int fd = -1, e = 0;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (aside)
      snprintf(tmp, cap, "%s/.skinkit.%ld-%u-%lx.tmp", tmpdir, (long)getpid(), atomic_fetch_add(&counter, 1u),
               (unsigned long)ts.tv_nsec);
    else
      snprintf(tmp, cap, "%.*s.%.48s.%ld-%u-%lx.tmp", (int)dir_len, path, base, (long)getpid(),
               atomic_fetch_add(&counter, 1u), (unsigned long)ts.tv_nsec);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    e = errno;
    if (fd < 0 && e != EEXIST) break;
  }
  if (fd < 0) {
    free(tmp);
    return create_fail(path, dir_len, e, err);
  }
  struct stat st;
  if (!aside && stat(path, &st) == 0 && S_ISREG(st.st_mode)) (void)fchmod(fd, st.st_mode & 07777);
  live_add(tmp);
  *tmp_out = tmp;
  *fd_out = fd;
  return SKC_OK;
}

static int write_fd(int fd, const void* data, size_t size) {
  const unsigned char* p = data;
  while (size) {
    ssize_t got = write(fd, p, size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno;
    if (got == 0) return EIO;
    p += got;
    size -= (size_t)got;
  }
  return 0;
}

/* fsync that tolerates file systems without it (EINVAL, EROFS). */
static int sync_fd(int fd) { return fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? errno : 0; }

static void sync_dir(const char* path) {
  size_t dir_len = dir_length(path);
  char* dir = malloc(dir_len + 2);
  if (!dir) return;
  if (dir_len)
    snprintf(dir, dir_len + 1, "%.*s", (int)dir_len, path);
  else
    strcpy(dir, ".");
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (fd < 0) return;
  (void)fsync(fd); /* best effort: the rename itself is already atomic */
  close(fd);
}

/* The bytes of file src written into dst (write_into: a device, FIFO or standard stream; fd: write_into's); errno or
 * 0. */
static int copy_into(const char* src, const char* dst, int fd) {
  int in = open(src, O_RDONLY | O_CLOEXEC), out = fd >= 0 ? fd : open(dst, O_WRONLY | O_CLOEXEC), e = 0;
  if (in < 0 || out < 0) e = errno;
  unsigned char buf[1 << 16];
  while (!e) {
    ssize_t got = read(in, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      e = got < 0 ? errno : 0;
      break;
    }
    e = write_fd(out, buf, (size_t)got);
  }
  if (in >= 0) close(in);
  if (out >= 0 && out != fd && close(out) != 0 && !e) e = errno;
  return e;
}

/* The path this thread's writes must not replace when it exists by then (skio_atomic_keep_existing), or NULL. */
static _Thread_local const char* g_keep;

void skio_atomic_keep_existing(const char* path) { g_keep = path; }

/* rename(tmp, path) that fails with EEXIST when path exists: renameat2's RENAME_NOREPLACE, or where the file system
 * lacks it a hard link (which fails on an existing name) and the temporary name removed. errno or 0. */
static int rename_no_replace(const char* tmp, const char* path) {
#if defined(RENAME_NOREPLACE)
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
#endif
  if (link(tmp, path) != 0) return errno;
  unlink(tmp);
  return 0;
}

int skio_atomic_place(const char* tmp, const char* path) {
  int fd, e = 0;
  if (write_into(path, &fd)) {
    e = copy_into(tmp, path, fd);
    unlink(tmp);
  } else if (g_keep && !strcmp(g_keep, path)) {
    e = rename_no_replace(tmp, path);
  } else if (rename(tmp, path) != 0) {
    e = errno;
  }
  live_drop(tmp);
  return e;
}

void skio_atomic_forget(const char* tmp) {
  if (tmp) live_drop(tmp);
}

static int finish(char* tmp, const char* path, int e, skc_err* err) {
  int fd;
  const bool into = !e && write_into(path, &fd);
  if (!e) e = skio_atomic_place(tmp, path);
  live_drop(tmp);
  if (e) unlink(tmp);
  free(tmp);
  if (e)
    return skc_fail(err, SKC_IO, "%s: not written (the previous file, if any, is unchanged): %s", path, strerror(e));
  if (!into) sync_dir(path);
  return SKC_OK;
}

/* data written into a device, FIFO or standard stream (std_fd: write_into's) */
static int write_device(const char* path, int std_fd, const void* data, size_t size, skc_err* err) {
  int fd = std_fd >= 0 ? std_fd : open(path, O_WRONLY | O_CLOEXEC), e = fd < 0 ? errno : write_fd(fd, data, size);
  if (fd >= 0 && fd != std_fd && close(fd) != 0 && !e) e = errno;
  return e ? skc_fail(err, SKC_IO, "%s: not written: %s", path, strerror(e)) : SKC_OK;
}

int skio_atomic_write(const char* path, const void* data, size_t size, skc_err* err) {
  if (!path || (!data && size)) return skc_fail(err, SKC_INVALID_ARGUMENT, "path and data must not be NULL");
  int std_fd;
  if (write_into(path, &std_fd)) return write_device(path, std_fd, data, size, err);
  char* tmp = NULL;
  int fd = -1, rc = create_temp(path, &fd, &tmp, err);
  if (rc) return rc;
  int e = write_fd(fd, data, size);
  if (!e) e = sync_fd(fd);
  if (close(fd) != 0 && !e) e = errno;
  return finish(tmp, path, e, err);
}

int skio_atomic_temp(const char* path, char** tmp_out, skc_err* err) {
  if (!path || !tmp_out) return skc_fail(err, SKC_INVALID_ARGUMENT, "path must not be NULL");
  int fd = -1, rc = create_temp(path, &fd, tmp_out, err);
  if (rc) return rc;
  close(fd);
  return SKC_OK;
}

int skio_atomic_commit(char* tmp, const char* path, skc_err* err) {
  int e = 0;
  int fd = open(tmp, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    e = errno;
  } else {
    e = sync_fd(fd);
    close(fd);
  }
  return finish(tmp, path, e, err);
}

void skio_atomic_abort(char* tmp) {
  if (!tmp) return;
  live_drop(tmp);
  unlink(tmp);
  free(tmp);
}

int skio_atomic_stage(const char* path, const void* const* data, const size_t* sizes, int count, char** tmp_out,
                      skc_err* err) {
  if (!path || !tmp_out || count < 0 || (count && (!data || !sizes)))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "path, pieces and tmp_out must not be NULL");
  char* tmp = NULL;
  int fd = -1, rc = create_temp(path, &fd, &tmp, err);
  if (rc) return rc;
  int e = 0;
  for (int i = 0; i < count && !e; ++i) e = write_fd(fd, data[i], sizes[i]);
  if (!e) e = sync_fd(fd);
  if (close(fd) != 0 && !e) e = errno;
  if (e) {
    live_drop(tmp);
    unlink(tmp);
    free(tmp);
    return skc_fail(err, SKC_IO, "%s: not written (the previous file, if any, is unchanged): %s", path, strerror(e));
  }
  *tmp_out = tmp;
  return SKC_OK;
}

bool skio_path_climbs(const char* p) {
  for (const char* seg = p; *seg;) {
    const size_t n = strcspn(seg, "/\\");
    if (n == 2 && seg[0] == '.' && seg[1] == '.') return true;
    seg += n;
    if (*seg) ++seg;
  }
  return false;
}

bool skio_same_file(const char* a, const char* b) {
  struct stat x, y;
  if (!a || !b || !a[0] || !b[0] || stat(a, &x) != 0 || stat(b, &y) != 0) return false;
  return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}
