/* ai_fileio.c - the file system Assimp reads through (skio_ai.h): regular files only, one name optionally served
 * from memory.
 *
 * Assimp opens more than the file it is given: an OBJ's material library (`mtllib`), an .md5mesh's .md5anim, an Ogre
 * mesh's skeleton and material scripts. Through its default file system a name that is a FIFO made open() wait for
 * a writer (the command sat in the isolated reader until its time limit, then exit 2: docs/fuzzing.md, session 74),
 * and a character device (/dev/zero, /dev/urandom) read without end. Here every name is opened without blocking and
 * taken only when it is a regular file; the first one refused that is no folder is kept, so that the import can be
 * refused with its name instead of reading on without it (a folder is taken for a missing file, as Assimp did). */
#define _POSIX_C_SOURCE 200809L /* fdopen, O_CLOEXEC under -std=c11 */

#include <assimp/cfileio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skio_ai.h"

typedef struct file {
  FILE* f;          /* a file on disk, or NULL */
  const uint8_t* p; /* the memory file */
  size_t n, pos;
} file;

static size_t f_read(struct aiFile* af, char* buf, size_t size, size_t count) {
  file* f = (file*)af->UserData;
  if (f->f) return fread(buf, size, count, f->f);
  if (!size) return 0;
  size_t items = (f->n - f->pos) / size;
  if (items > count) items = count;
  memcpy(buf, f->p + f->pos, items * size);
  f->pos += items * size;
  return items;
}

static size_t f_write(struct aiFile* af, const char* buf, size_t size, size_t count) {
  (void)af, (void)buf, (void)size, (void)count;
  return 0; /* reading only */
}

static size_t f_tell(struct aiFile* af) {
  file* f = (file*)af->UserData;
  if (!f->f) return f->pos;
  long t = ftell(f->f);
  return t < 0 ? 0 : (size_t)t;
}

static size_t f_size(struct aiFile* af) {
  file* f = (file*)af->UserData;
  if (!f->f) return f->n;
  long here = ftell(f->f);
  if (here < 0 || fseek(f->f, 0, SEEK_END)) return 0;
  long end = ftell(f->f);
  if (fseek(f->f, here, SEEK_SET) || end < 0) return 0;
  return (size_t)end;
}

static enum aiReturn f_seek(struct aiFile* af, size_t off, enum aiOrigin origin) {
  file* f = (file*)af->UserData;
  if (f->f) {
    const int whence = origin == aiOrigin_SET ? SEEK_SET : origin == aiOrigin_CUR ? SEEK_CUR : SEEK_END;
    return fseek(f->f, (long)off, whence) ? aiReturn_FAILURE : aiReturn_SUCCESS;
  }
  size_t to = origin == aiOrigin_SET ? off : origin == aiOrigin_CUR ? f->pos + off : f->n + off; /* END: negative */
  if (to > f->n) return aiReturn_FAILURE;
  f->pos = to;
  return aiReturn_SUCCESS;
}

static void f_flush(struct aiFile* af) { (void)af; }

static const char* kind_of(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    default:
      return "not a regular file";
  }
}

/* name opened for reading when it is a regular file (NULL otherwise; a name that is there but is neither a regular
 * file nor a folder is noted in files as the first refused). O_NONBLOCK: opening a FIFO does not wait for a writer. */
static FILE* open_regular(skio_ai_files* files, const char* name) {
  const int fd = open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    /* a folder (an `mtllib` with no name names the OBJ's own folder) is a missing file, as before */
    if (!files->refused[0] && !S_ISDIR(st.st_mode)) {
      snprintf(files->refused, sizeof files->refused, "%s", name);
      files->refused_kind = kind_of(st.st_mode);
    }
    close(fd);
    return NULL;
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  FILE* f = fdopen(fd, "rb");
  if (!f) close(fd);
  return f;
}

static struct aiFile* f_open(struct aiFileIO* io, const char* name, const char* mode) {
  skio_ai_files* files = (skio_ai_files*)io->UserData;
  if (!name || !mode || strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+')) return NULL;
  file* f = calloc(1, sizeof *f);
  struct aiFile* af = calloc(1, sizeof *af);
  if (!f || !af) {
    free(f), free(af);
    return NULL;
  }
  if (files->overlay_path && strcmp(name, files->overlay_path) == 0) {
    f->p = files->overlay_data, f->n = files->overlay_size;
  } else if (!(f->f = open_regular(files, name))) {
    free(f), free(af);
    return NULL;
  }
  *af = (struct aiFile){f_read, f_write, f_tell, f_size, f_seek, f_flush, (aiUserData)f};
  return af;
}

static void f_close(struct aiFileIO* io, struct aiFile* af) {
  (void)io;
  if (!af) return;
  file* f = (file*)af->UserData;
  if (f && f->f) fclose(f->f);
  free(f);
  free(af);
}

struct aiFileIO skio_ai_fileio(skio_ai_files* files) {
  return (struct aiFileIO){f_open, f_close, (aiUserData)files};
}
