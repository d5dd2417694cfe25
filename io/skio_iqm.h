/* skio_iqm.h - Inter-Quake Model (.iqm, version 2) reader of our own.
 *
 * Assimp 5.2.5 reads .iqm meshes but skips the joints, the blend indexes/weights and the animations (its
 * IQMImporter treats IQM_BLENDINDEXES / IQM_BLENDWEIGHTS as "not relevant"), so an IQM character would come out
 * unskinned. skio_scene_import sends .iqm files here instead. What comes back matches what Assimp gives for the
 * geometry (vertices as stored, triangle winding flipped to counter-clockwise, v = 1 - v, an "<IQMRoot>" root
 * joint turning IQM's Z-up into Y-up) plus everything Assimp leaves out, and the meshes' materials as Assimp names
 * them (one per distinct name, meshes of one name sharing it) with their image files (the name, or the name with an
 * image extension, beside the model) as base colour textures. See iqm.c for the format rules.
 */
#ifndef SKIO_IQM_H
#define SKIO_IQM_H

#include "skio_scene.h"

/* True when the path ends in ".iqm" (any case). */
int skio_path_is_iqm(const char* path);

/* Reads an IQM version 2 file. Errors: SKC_IO (unreadable), SKC_FORMAT (not IQM, version 1, a table or a
 * reference outside the file, ...: the message names the file and the table). Blend indexes naming a joint the
 * file does not have are counted in skio_mesh.dropped_weights (validate reports them), like Assimp entries
 * naming a missing vertex. */
int skio_iqm_import(const char* path, skio_scene** out, skc_err* err);

/* The same for an IQM file already in memory, data[0, n) (not kept: the scene owns copies); name stands for the
 * path in messages and becomes skio_scene.source. No image file is read: a material naming one gets an image without
 * bytes and a note. */
int skio_iqm_load_memory(const uint8_t* data, size_t n, const char* name, skio_scene** out, skc_err* err);

#endif
