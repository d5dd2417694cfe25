/* ai_lazy.c - Assimp loaded on first use.
 *
 * Assimp serves the formats the library does not read itself (FBX, Collada, X, B3D, MD5, Ogre...) and the FBX and
 * Collada writers. Linked as a needed library, it was mapped and relocated by every process that loads the
 * library: ~15 ms of each `skinkit` start-up on a paravirtualized guest (a program linking only libassimp took
 * 24 ms to run against 9 ms for an empty one; ~20,000 symbol relocations, most of them Assimp's C++), paid by
 * every command on a .glb as well. The library now calls the 17 functions of Assimp's C API it uses through the
 * definitions below, which load Assimp (its soname, SKIO_ASSIMP_SONAME, found by CMake) the first time one is
 * called and forward to it. These names are Assimp's own, so the call sites are unchanged; they stay inside the
 * library (the version script exports sk_* only), and Assimp's own calls bind within Assimp.
 *
 * SKINKIT_ASSIMP in the environment names another file to load (a path or a soname). When Assimp cannot be loaded,
 * importing and exporting through it fail with the loader's reason (what aiGetErrorString returns then) and the queries
 * answer "no extension"; the formats read natively work as before. Code that forks a child to run Assimp (the isolated
 * reader and writer) calls skio_ai_available first, so that the child does not map a library while another thread of
 * the parent may hold the loader's lock. */
#define _GNU_SOURCE
#include <assimp/cexport.h>
#include <assimp/cimport.h>
#include <assimp/material.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_dl.h"
#include "skio_ai.h"

#ifndef SKIO_ASSIMP_SONAME
#define SKIO_ASSIMP_SONAME "libassimp.so.5"
#endif

#define AI_FUNCTIONS(X)                                                                                      \
  X(aiCreatePropertyStore, struct aiPropertyStore*, (void))                                                  \
  X(aiReleasePropertyStore, void, (struct aiPropertyStore*))                                                 \
  X(aiSetImportPropertyInteger, void, (struct aiPropertyStore*, const char*, int))                           \
  X(aiImportFileExWithProperties, const struct aiScene*,                                                     \
    (const char*, unsigned int, struct aiFileIO*, const struct aiPropertyStore*))                            \
  X(aiImportFileFromMemoryWithProperties, const struct aiScene*,                                             \
    (const char*, unsigned int, unsigned int, const char*, const struct aiPropertyStore*))                   \
  X(aiReleaseImport, void, (const struct aiScene*))                                                          \
  X(aiGetErrorString, const char*, (void))                                                                   \
  X(aiIsExtensionSupported, aiBool, (const char*))                                                           \
  X(aiGetExtensionList, void, (struct aiString*))                                                            \
  X(aiExportSceneToBlob, const struct aiExportDataBlob*, (const struct aiScene*, const char*, unsigned int)) \
  X(aiReleaseExportBlob, void, (const struct aiExportDataBlob*))                                             \
  X(aiGetMaterialColor, enum aiReturn,                                                                       \
    (const struct aiMaterial*, const char*, unsigned int, unsigned int, struct aiColor4D*))                  \
  X(aiGetMaterialFloatArray, enum aiReturn,                                                                  \
    (const struct aiMaterial*, const char*, unsigned int, unsigned int, ai_real*, unsigned int*))            \
  X(aiGetMaterialIntegerArray, enum aiReturn,                                                                \
    (const struct aiMaterial*, const char*, unsigned int, unsigned int, int*, unsigned int*))                \
  X(aiGetMaterialString, enum aiReturn,                                                                      \
    (const struct aiMaterial*, const char*, unsigned int, unsigned int, struct aiString*))                   \
  X(aiGetMaterialTextureCount, unsigned int, (const struct aiMaterial*, enum aiTextureType))                 \
  X(aiGetMaterialTexture, enum aiReturn,                                                                     \
    (const struct aiMaterial*, enum aiTextureType, unsigned int, struct aiString*, enum aiTextureMapping*,   \
     unsigned int*, ai_real*, enum aiTextureOp*, enum aiTextureMapMode*, unsigned int*))

#define AI_POINTER(name, ret, args) ret(*name) args;
static struct { AI_FUNCTIONS(AI_POINTER) } g_ai;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const char* g_missing; /* NULL once every function was found */
static char g_reason[512];

#define AI_NAME(name, ret, args) #name,
static const char* const k_names[] = {AI_FUNCTIONS(AI_NAME)};
_Static_assert(sizeof g_ai == sizeof k_names / sizeof k_names[0] * sizeof(void*), "one pointer a name");

/* SKINKIT_ASSIMP names another build of the same Assimp major version (a path or a soname) */
static void load(void) {
  const char* file;
  void* lib = skc_dl_open("SKINKIT_ASSIMP", SKIO_ASSIMP_SONAME, "Assimp", &file, g_reason, sizeof g_reason);
  if (!lib || !skc_dl_resolve(lib, k_names, (void**)&g_ai, sizeof k_names / sizeof k_names[0], "Assimp", file, g_reason,
                              sizeof g_reason))
    g_missing = g_reason;
  /* the library stays loaded: scenes it made may be released at any time */
}

const char* skio_ai_unavailable(void) {
  pthread_once(&g_once, load);
  return g_missing;
}

static int ready(void) { return skio_ai_unavailable() == NULL; }

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

void skio_ai_lock(void) { pthread_mutex_lock(&g_lock); }

void skio_ai_unlock(void) { pthread_mutex_unlock(&g_lock); }

struct aiPropertyStore* aiCreatePropertyStore(void) {
  return ready() ? g_ai.aiCreatePropertyStore() : NULL;
}

void aiReleasePropertyStore(struct aiPropertyStore* p) {
  if (p && ready()) g_ai.aiReleasePropertyStore(p);
}

void aiSetImportPropertyInteger(struct aiPropertyStore* store, const char* name, int value) {
  if (store && ready()) g_ai.aiSetImportPropertyInteger(store, name, value);
}

const struct aiScene* aiImportFileExWithProperties(const char* file, unsigned int flags, struct aiFileIO* fs,
                                                   const struct aiPropertyStore* props) {
  return ready() ? g_ai.aiImportFileExWithProperties(file, flags, fs, props) : NULL;
}

const struct aiScene* aiImportFileFromMemoryWithProperties(const char* buffer, unsigned int length, unsigned int flags,
                                                           const char* hint, const struct aiPropertyStore* props) {
  return ready() ? g_ai.aiImportFileFromMemoryWithProperties(buffer, length, flags, hint, props) : NULL;
}

void aiReleaseImport(const struct aiScene* scene) {
  if (scene && ready()) g_ai.aiReleaseImport(scene);
}

const char* aiGetErrorString(void) {
  const char* missing = skio_ai_unavailable();
  return missing ? missing : g_ai.aiGetErrorString();
}

aiBool aiIsExtensionSupported(const char* extension) {
  return ready() ? g_ai.aiIsExtensionSupported(extension) : AI_FALSE;
}

void aiGetExtensionList(struct aiString* out) {
  if (ready()) {
    g_ai.aiGetExtensionList(out);
  } else if (out) {
    out->length = 0;
    out->data[0] = 0;
  }
}

const struct aiExportDataBlob* aiExportSceneToBlob(const struct aiScene* scene, const char* format,
                                                   unsigned int preprocessing) {
  return ready() ? g_ai.aiExportSceneToBlob(scene, format, preprocessing) : NULL;
}

void aiReleaseExportBlob(const struct aiExportDataBlob* blob) {
  if (blob && ready()) g_ai.aiReleaseExportBlob(blob);
}

/* The material queries are only asked of materials of a scene Assimp made: it is loaded by then. */
enum aiReturn aiGetMaterialColor(const struct aiMaterial* m, const char* key, unsigned int type, unsigned int index,
                                 struct aiColor4D* out) {
  return ready() ? g_ai.aiGetMaterialColor(m, key, type, index, out) : aiReturn_FAILURE;
}

enum aiReturn aiGetMaterialFloatArray(const struct aiMaterial* m, const char* key, unsigned int type,
                                      unsigned int index, ai_real* out, unsigned int* max) {
  return ready() ? g_ai.aiGetMaterialFloatArray(m, key, type, index, out, max) : aiReturn_FAILURE;
}

enum aiReturn aiGetMaterialIntegerArray(const struct aiMaterial* m, const char* key, unsigned int type,
                                        unsigned int index, int* out, unsigned int* max) {
  return ready() ? g_ai.aiGetMaterialIntegerArray(m, key, type, index, out, max) : aiReturn_FAILURE;
}

enum aiReturn aiGetMaterialString(const struct aiMaterial* m, const char* key, unsigned int type, unsigned int index,
                                  struct aiString* out) {
  return ready() ? g_ai.aiGetMaterialString(m, key, type, index, out) : aiReturn_FAILURE;
}

unsigned int aiGetMaterialTextureCount(const struct aiMaterial* m, enum aiTextureType type) {
  return ready() ? g_ai.aiGetMaterialTextureCount(m, type) : 0;
}

enum aiReturn aiGetMaterialTexture(const struct aiMaterial* m, enum aiTextureType type, unsigned int index,
                                   struct aiString* path, enum aiTextureMapping* mapping, unsigned int* uv_index,
                                   ai_real* blend, enum aiTextureOp* op, enum aiTextureMapMode* map_mode,
                                   unsigned int* flags) {
  return ready() ? g_ai.aiGetMaterialTexture(m, type, index, path, mapping, uv_index, blend, op, map_mode, flags)
                 : aiReturn_FAILURE;
}
