/* skio_ai.h - Assimp, loaded on first use (ai_lazy.c). */
#ifndef SKIO_AI_H
#define SKIO_AI_H

#include <stddef.h>
#include <stdint.h>

/* Loads Assimp once per process (later calls only look); NULL when its functions are there, else why not. */
const char* skio_ai_unavailable(void);

/* Assimp keeps process-wide state (its DefaultLogger, the C API's last error string, the time zone it formats dates
 * in: concurrent imports and exports raced in it), while skinkit.h lets distinct objects be used from distinct
 * threads. So the library's calls into Assimp in this process hold this one lock, from the call through reading its
 * error string: one thread in Assimp at a time. Reading the aiScene it returned needs no lock (the material queries
 * only read that scene). A child forked to run Assimp in isolation does not take it: the parent holds it across the
 * fork, so the child starts with Assimp's state at rest. Not recursive. */
void skio_ai_lock(void);
void skio_ai_unlock(void);

struct aiFileIO;

/* The files an import through skio_ai_fileio opened (ai_fileio.c): regular files only, overlay_path (when set) served
 * from overlay_data instead of the disk. refused: the first name Assimp asked for that is there but is no regular
 * file (a FIFO, a device, a folder), "" when none; refused_kind says which. */
typedef struct skio_ai_files {
  const char* overlay_path;
  const uint8_t* overlay_data;
  size_t overlay_size;
  char refused[512];
  const char* refused_kind;
} skio_ai_files;

/* An aiFileIO reading through files (which must outlive the import). */
struct aiFileIO skio_ai_fileio(skio_ai_files* files);

#endif
