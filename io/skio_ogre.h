/* skio_ogre.h - Ogre binary meshes of Ogre 1.10 - 14 ([MeshSerializer_v1.100]) read through the 1.8 layout that
 * Assimp 5.2.5 reads (io/ogre_mesh.c). Internal to io/. */
#ifndef SKIO_OGRE_H
#define SKIO_OGRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

struct aiScene;
struct aiPropertyStore;

/* Whether the bytes start as a little-endian Ogre mesh of version [MeshSerializer_v1.100]. */
bool skio_ogre_is_v110(const uint8_t* data, size_t n);
/* For such a mesh, a copy in the 1.8 layout in *out (malloc'd): the header's version string, and the mesh's LOD
 * level chunks left out (*lods counts them; optional); every other byte as it is. *out NULL (SKC_OK) for any other
 * file; SKC_FORMAT when the mesh's chunks overrun it; SKC_OUT_OF_MEMORY. */
int skio_ogre_mesh_downgrade(const uint8_t* data, size_t n, uint8_t** out, size_t* out_n, uint32_t* lods, skc_err* err);
/* Assimp's import of the mesh at path through that copy, served under path itself (the skeleton and material
 * scripts beside it are read from disk as usual); NULL when the file is no such mesh or Assimp refuses the copy,
 * with err (optional) set when it is such a mesh but damaged (SKC_FORMAT) or memory ran out. */
const struct aiScene* skio_ogre_import_v110(const char* path, unsigned int flags, const struct aiPropertyStore* props,
                                            uint32_t* lods, skc_err* err);

#endif
