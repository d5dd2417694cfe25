/* atomic_file.c - replacing a file atomically (skio_atomic.h). */
#define _DEFAULT_SOURCE /* fsync, fchmod, O_CLOEXEC, O_DIRECTORY */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
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

static int create_fail(const char* path, size_t dir_len, int e, skc_err* err) {
  if (dir_len)
    return skc_fail(err, SKC_IO, "%s: cannot create a file in folder \"%.*s\": %s", path, (int)(dir_len - 1), path,
                    strerror(e));
  return skc_fail(err, SKC_IO, "%s: cannot create a file in the current folder: %s", path, strerror(e));
}

/* A new file "<dir>.<name>.<pid>-<n>-<time>.tmp" beside path (O_EXCL, so never an existing file; mode 0666 less the
 * umask, or the replaced file's permissions): *fd_out and *tmp_out are set on success. */
static int create_temp(const char* path, int* fd_out, char** tmp_out, skc_err* err) {
  static _Atomic unsigned counter; /* with the pid and the clock: unique per call, also across threads */
  const size_t dir_len = dir_length(path);
  const char* base = path + dir_len;
  const size_t cap = dir_len + 128;
  char* tmp = malloc(cap);
  if (!tmp) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path);
  int fd = -1, e = 0;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
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
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) (void)fchmod(fd, st.st_mode & 07777);
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

static int finish(char* tmp, const char* path, int e, skc_err* err) {
  if (!e && rename(tmp, path) != 0) e = errno;
  if (e) {
    unlink(tmp);
    free(tmp);
    return skc_fail(err, SKC_IO, "%s: not written (the previous file, if any, is unchanged): %s", path, strerror(e));
  }
  free(tmp);
  sync_dir(path);
  return SKC_OK;
}

int skio_atomic_write(const char* path, const void* data, size_t size, skc_err* err) {
  if (!path || (!data && size)) return skc_fail(err, SKC_INVALID_ARGUMENT, "path and data must not be NULL");
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
