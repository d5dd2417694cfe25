/* ogre_mesh.c - Ogre binary meshes of the format Ogre 1.10 to 14 write ([MeshSerializer_v1.100]), read through the
 * 1.8 layout Assimp 5.2.5 knows (skio_ogre.h).
 *
 * Assimp refuses them ("Mesh version [MeshSerializer_v1.100] not supported ... Run OgreMeshUpgrader"), though
 * OgreMeshUpgrader and OgreXMLConverter write exactly that version. Ogre's own MeshSerializerImpl_v1_8 differs from
 * the 1.10 serializer in one part only: the LOD levels (M_MESH_LOD_LEVEL, chunk 0x8000, and its children). The copy
 * keeps every byte but the header's version string and those chunks; Assimp reads the LOD levels of neither
 * version, so nothing it would have read is lost. The copy is handed to Assimp under the file's own path by a file
 * system that serves every other name (the skeleton, the material scripts) from disk, so the skeleton link and the
 * material lookup work as for any mesh.
 *
 * Layout: a header chunk (uint16 0x1000, then the version string ended by '\n'), then chunks of uint16 id, uint32
 * length (the whole chunk, its 6-byte header included); the mesh chunk (0x3000) holds one bool then its children. */
#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_ai.h"
#include "skio_ogre.h"
#include "skio_scene.h"

#define OGRE_HEADER 0x1000u
#define OGRE_MESH 0x3000u
#define OGRE_LOD_LEVEL 0x8000u

static const char k_v110[] = "[MeshSerializer_v1.100]\n";
static const char k_v18[] = "[MeshSerializer_v1.8]\n";

static uint16_t get16(const uint8_t* p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_chunk_header(uint8_t* p, uint16_t id, uint32_t len) {
  p[0] = (uint8_t)id, p[1] = (uint8_t)(id >> 8);
  for (int k = 0; k < 4; ++k) p[2 + k] = (uint8_t)(len >> (8 * k));
}

bool skio_ogre_is_v110(const uint8_t* data, size_t n) {
  const size_t h = sizeof k_v110 - 1;
  return n >= 2 + h && get16(data) == OGRE_HEADER && memcmp(data + 2, k_v110, h) == 0;
}

int skio_ogre_mesh_downgrade(const uint8_t* data, size_t n, uint8_t** out, size_t* out_n, uint32_t* lods,
                             skc_err* err) {
  *out = NULL;
  *out_n = 0;
  if (lods) *lods = 0;
  if (!skio_ogre_is_v110(data, n)) return SKC_OK;
  const size_t at = 2 + sizeof k_v110 - 1; /* the mesh chunk */
  if (n - at < 7 || get16(data + at) != OGRE_MESH) return skc_fail(err, SKC_FORMAT, "Ogre mesh: no mesh chunk");
  const uint32_t mesh_len = get32(data + at + 2);
  if (mesh_len < 7 || mesh_len > n - at)
    return skc_fail(err, SKC_FORMAT, "Ogre mesh: the mesh chunk overruns the file");
  const size_t head = 2 + sizeof k_v18 - 1;
  uint8_t* o = malloc(head + (n - at));
  if (!o) return skc_fail(err, SKC_OUT_OF_MEMORY, "Ogre mesh: out of memory");
  put_chunk_header(o, OGRE_HEADER, 0);
  memcpy(o + 2, k_v18, sizeof k_v18 - 1);
  size_t w = head + 6;
  o[w++] = data[at + 6]; /* skeletally animated */
  uint32_t dropped = 0;
  for (size_t c = at + 7; c < at + mesh_len;) {
    if (at + mesh_len - c < 6) break; /* a stub Ogre ignores too */
    const uint32_t len = get32(data + c + 2);
    if (len < 6 || len > at + mesh_len - c) {
      free(o);
      return skc_fail(err, SKC_FORMAT, "Ogre mesh: a chunk at byte %zu overruns its mesh", c);
    }
    if (get16(data + c) == OGRE_LOD_LEVEL) {
      ++dropped;
    } else {
      memcpy(o + w, data + c, len);
      w += len;
    }
    c += len;
  }
  put_chunk_header(o + head, OGRE_MESH, (uint32_t)(w - head));
  memcpy(o + w, data + at + mesh_len, n - at - mesh_len); /* chunks after the mesh, as they are */
  w += n - at - mesh_len;
  *out = o;
  *out_n = w;
  if (lods) *lods = dropped;
  return SKC_OK;
}

const struct aiScene* skio_ogre_import_v110(const char* path, unsigned int flags, const struct aiPropertyStore* props,
                                            uint32_t* lods, skc_err* err) {
  size_t n = 0, dn = 0;
  char* data = skio_read_whole(path, (size_t)1 << 30, &n, NULL);
  uint8_t* down = NULL;
  const bool ok = data && skio_ogre_mesh_downgrade((const uint8_t*)data, n, &down, &dn, lods, err) == SKC_OK && down;
  free(data);
  if (!ok) return NULL; /* err says why for a damaged 1.100 mesh; else Assimp's first reason stands */
  skio_ai_files files = {.overlay_path = path, .overlay_data = down, .overlay_size = dn};
  struct aiFileIO io = skio_ai_fileio(&files);
  const struct aiScene* ai = aiImportFileExWithProperties(path, flags, &io, props);
  free(down);
  if (files.refused[0]) { /* a skeleton or material script that is a FIFO or a device: not read on without it */
    aiReleaseImport(ai);
    skc_fail(err, SKC_FORMAT, "it names \"%.200s\", which is %s, not a regular file: refused", files.refused,
             files.refused_kind);
    return NULL;
  }
  return ai;
}
