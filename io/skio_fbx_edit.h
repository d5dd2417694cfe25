/* skio_fbx_edit.h - writing a binary FBX that skinkit read (through Assimp) back with new skin weights, as an edit
 * of the source file (io/fbx_edit.c) instead of a new file from Assimp's exporter, which triangulates every polygon,
 * writes one control point per polygon corner, makes an object of several materials several objects and drops
 * what it does not know (blend shapes, constraints, custom properties, cameras, lights, display layers).
 *
 * What changes: the Indexes / Weights of the clusters (SubDeformer "Cluster") of each skinned geometry whose weights
 * differ, a Skin for a geometry that had none (an unskinned mesh `bind` weighted; not one parented to a bone), clusters
 * added for joints that gained weight (their Transform from a sibling cluster, TransformLink from
 * another cluster of the same bone or the bind pose; two connections each; the Definitions counts), and the Indexes /
 * Weights of a cluster left without weight removed (as the FBX SDK writes an empty cluster), and PoseNodes in the first
 * BindPose for the bones and objects those new records need that it does not list. Every other record keeps
 * its bytes; a cluster whose weights are unchanged is not touched; a weight equal, as a float, to the file's double
 * for that control point keeps the file's double.
 *
 * Mapping: Assimp 5.2.5 gives each geometry one mesh per material used (in order of first use over the polygons),
 * whose vertices are the polygon corners of that material in polygon order (triangulation adds no vertices), so
 * vertex k of a mesh is a known control point. Each edited mesh is matched to the (geometry, material) whose corner
 * positions equal its positions bit for bit (the object name breaks ties between equal geometries). A control point
 * drawn by several corners takes the weights of its first corner in that order (split_points counts those whose
 * corners disagree: a smoothing that saw two materials as two meshes).
 */
#ifndef SKIO_FBX_EDIT_H
#define SKIO_FBX_EDIT_H

#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

#define SKIO_FBX_EDIT_CANNOT (-1)

typedef struct skio_fbx_mesh_edit {
  const char* node_name;   /* the object (FBX Model) the mesh came from, or NULL */
  size_t vertex_count;
  const float* positions;  /* 3 per vertex, as the reader gave them */
  const uint32_t* offsets; /* CSR over the vertices: vertex_count + 1 */
  const uint32_t* joints;  /* skeleton joints (< joint_count) */
  const float* weights;    /* exact zeros are left out */
  /* A mesh whose geometry has no skin in the file (an unskinned mesh `bind` weighted): the transform the reader
   * applied to the file's vertices to place it (16 floats, column-major; NULL: none), and it gets a new Skin. */
  const float* place;
} skio_fbx_mesh_edit;

typedef struct skio_fbx_edit_report {
  uint32_t geometries;  /* skinned geometries the meshes matched */
  uint32_t kept;        /* clusters left as they were */
  uint32_t rewritten;   /* clusters with new Indexes / Weights */
  uint32_t added;       /* clusters added */
  uint32_t skins_added; /* Skin deformers added (geometries that had none) */
  uint32_t emptied;     /* clusters whose Indexes / Weights were removed */
  size_t split_points;  /* control points whose corners had different weights (the first corner's written) */
} skio_fbx_edit_report;

/* Edits the binary FBX src (size bytes) so that its skins hold the meshes' weights; joint_names names the skeleton
 * joints (FBX Model names), joint_binds (16 floats each, or NULL) are their bind matrices in the scene's bind space,
 * which a new Skin's clusters need (their Transform, and their TransformLink when the file has no skin at all and
 * so no bind matrix of its own). On SKC_OK *out (malloc'd, *out_n bytes) is the new file. SKIO_FBX_EDIT_CANNOT, with a
 * sentence in why, when the file cannot take the edit (not a binary FBX the parser reads, a mesh that matches no
 * skinned geometry or several, a joint with weight that names no Model or several, a new cluster without a bind
 * matrix to copy): the caller then writes the scene whole. SKC_OUT_OF_MEMORY, SKC_INVALID_ARGUMENT otherwise. */
int skio_fbx_edit(const uint8_t* src, size_t size, const skio_fbx_mesh_edit* meshes, uint32_t mesh_count,
                  const char* const* joint_names, const float* joint_binds, uint32_t joint_count, uint8_t** out,
                  size_t* out_n, skio_fbx_edit_report* report, char* why, size_t why_size, skc_err* err);

#endif
