/* scene_formats.c - which file extensions the importer reads (glTF natively, the rest through Assimp). */
#include <assimp/cimport.h>
#include <assimp/types.h>
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "skio_ai.h"
#include "skio_scene.h"

static pthread_once_t g_ext_once = PTHREAD_ONCE_INIT;
static char g_ext[4096];

static void load_extensions(void) {
  struct aiString* s = calloc(1, sizeof *s);
  if (!s) return;
  skio_ai_lock();
  aiGetExtensionList(s);
  skio_ai_unlock();
  size_t n = s->length < sizeof g_ext - 1 ? s->length : sizeof g_ext - 1;
  memcpy(g_ext, s->data, n);
  g_ext[n] = 0;
  free(s);
  /* VRM avatars are .glb files read natively (skio_gltf_import.h), which Assimp does not list */
  if (!strstr(g_ext, "*.vrm") && n + 7 < sizeof g_ext) strcat(g_ext, n ? ";*.vrm" : "*.vrm");
}

const char* skio_import_extensions(void) {
  pthread_once(&g_ext_once, load_extensions);
  return g_ext;
}

int skio_extension_supported(const char* extension) {
  if (!extension || !extension[0]) return 0;
  char buf[64] = ".";
  const char* e = extension[0] == '.' ? extension + 1 : extension;
  size_t n = strlen(e);
  if (n == 0 || n >= sizeof buf - 1) return 0;
  for (size_t i = 0; i < n; ++i) buf[1 + i] = (char)tolower((unsigned char)e[i]);
  buf[1 + n] = 0;
  if (strcmp(buf, ".skeleton") == 0) return 0; /* Ogre skeletons are read beside their .mesh */
  if (!strcmp(buf, ".glb") || !strcmp(buf, ".gltf") || !strcmp(buf, ".vrm"))
    return 1; /* read natively: no need to load Assimp to say so */
  skio_ai_lock(); /* Assimp's C API makes an Importer for the question */
  const bool yes = aiIsExtensionSupported(buf) == AI_TRUE;
  skio_ai_unlock();
  return yes;
}
