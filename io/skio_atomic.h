/* skio_atomic.h - replacing a file atomically: write a temporary file in the target's folder, flush it to disk,
 * rename it over the target, flush the folder. A reader (or a later run) sees either the old file or the whole new
 * one, whether the writer fails (disk full, file size limit), is killed, or the machine stops; on failure the
 * temporary file is removed and the old target is left byte-identical. */
#ifndef SKIO_ATOMIC_H
#define SKIO_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>

#include "skc_status.h"

/* Replaces path with size bytes of data (size 0 writes an empty file). SKC_IO with the reason on failure. */
int skio_atomic_write(const char* path, const void* data, size_t size, skc_err* err);

/* For writers that take a path (Assimp's exporters): *tmp_out gets a new, empty temporary file's name (malloc'd)
 * in path's folder. Write it, then skio_atomic_commit (which frees *tmp_out) or skio_atomic_abort. */
int skio_atomic_temp(const char* path, char** tmp_out, skc_err* err);
/* Flushes the written temporary file, renames it over path and flushes the folder; removes it on failure. Frees
 * tmp. */
int skio_atomic_commit(char* tmp, const char* path, skc_err* err);
/* Removes the temporary file and frees tmp (NULL is allowed). */
void skio_atomic_abort(char* tmp);

/* Puts the written temporary file tmp in path's place: renamed over path, or, where path is a device, FIFO or
 * socket (/dev/null, /dev/stdout on a pipe, bash's /dev/fd/N) or this process's standard output reached through a
 * link, its bytes written into that (the temporary file then removed). Returns 0 or the errno of the failure (tmp is
 * then left for the caller to remove). Writers that stage files themselves (skio_atomic_stage) place them with this
 * and remove a temporary file with skio_atomic_forget + unlink. */
int skio_atomic_place(const char* tmp, const char* path);
/* Until called again with NULL, this thread's commits to path fail with EEXIST when a file appeared there since the
 * writer checked (a concurrent run writing the same name): an output that must not replace an existing file is
 * created, never renamed over one. */
void skio_atomic_keep_existing(const char* path);
/* tmp is no longer a write in progress (skio_atomic_remove_temporaries leaves it alone). */
void skio_atomic_forget(const char* tmp);
/* Removes the temporary files of every write in progress in this process; async-signal-safe, for a handler of
 * SIGINT / SIGTERM that then ends the process. */
void skio_atomic_remove_temporaries(void);

/* For a set of files that must all be replaced or none (a .gltf and its .bin): writes the pieces (count buffers, in
 * order) to a new temporary file beside path and flushes it; *tmp_out gets its name (malloc'd). Stage every file,
 * then skio_atomic_commit each, or skio_atomic_abort all when one fails. */
int skio_atomic_stage(const char* path, const void* const* data, const size_t* sizes, int count, char** tmp_out,
                      skc_err* err);

/* True when a and b name one existing file (device and inode: hard links and symbolic links included). */
bool skio_same_file(const char* a, const char* b);

/* True when relative path p has a ".." segment ('/' or '\\' separated): it climbs out of its folder ("rig..v2.bin"
 * does not). */
bool skio_path_climbs(const char* p);

#endif
