/* skio_dae_edit.h - writing a Collada file that skinkit read (through Assimp) back with new skin weights, as an edit
 * of the source document (io/dae_edit.c) instead of a new file from Assimp's exporter, which writes a vertex per
 * triangle corner (CesiumMan_blender.dae: 0.79 MB -> 2.2 MB) and drops what it does not know (every <extra>: Blender's
 * bone tips, rolls and layers, which its importer uses for the bones' tails).
 *
 * What changes: for each skin controller whose weights differ, the <vcount> and <v> of its <vertex_weights>, and
 * the weights the new pairs need appended to its WEIGHT source's float_array (count and accessor count follow; the
 * values already there keep their text, and a pair whose weight equals, as a float, the file's weight for that
 * joint of that vertex - as the reader read it, read_weights - keeps pointing at it). A mesh instanced as plain
 * geometry that got weights gets a new skin controller and its <instance_geometry> becomes an <instance_controller>
 * (only where the node's parents do not move it: Blender reads a bind shape relative to them, Assimp to the world).
 * Every other byte stays; an unchanged scene writes the source as it was.
 *
 * Mapping: Assimp 5.2.5 gives each primitive element (<triangles>, <polylist>, <polygons>) of a controller's geometry
 * one mesh under the node that instances the controller, whose vertices are the element's corners in order
 * (triangulation adds none), so vertex k of a mesh is a known position index of the geometry; the corners' positions
 * must equal the mesh's (within float parsing). A position drawn by several corners takes the weights of its first
 * corner (split_points counts those whose corners disagree). A joint with weight must be in the controller's joint
 * list (matched to the skeleton through the nodes' sid, id and name as Assimp names them).
 */
#ifndef SKIO_DAE_EDIT_H
#define SKIO_DAE_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

#define SKIO_DAE_EDIT_CANNOT (-1)

typedef struct skio_dae_mesh_edit {
  const char* node_name;   /* the node that instances the mesh, as Assimp names it (name, else id, else sid) */
  size_t vertex_count;
  const float* positions;  /* 3 per vertex, as the reader gave them */
  const uint32_t* offsets; /* CSR over the vertices: vertex_count + 1; NULL: the mesh has no skin */
  const uint32_t* joints;  /* skeleton joints (< joint_count) */
  const float* weights;    /* exact zeros are left out */
  /* The transform the reader applied to the file's vertices to place a mesh that had no skin in the file (16
   * floats, column-major; NULL: none): a mesh instanced as plain geometry that got weights gets a new skin
   * controller whose bind shape matrix it is. */
  const float* place;
  /* The mesh's inverse bind matrices (16 floats per skeleton joint, column-major, the reader's; NULL: none): a joint
   * that gets weight and that its controller does not list is appended to the controller with its own. */
  const float* inverse_binds;
  /* The skin as the reader read it (CSR over the vertices like offsets; NULL: not known): a file weight whose pair
   * this row holds within a few float steps of the weight text's own reading is taken as read, so a weight the edit
   * left alone keeps its text though the reader's number parser and strtof disagree by a step. */
  const uint32_t* read_offsets;
  const uint32_t* read_joints;
  const float* read_weights;
} skio_dae_mesh_edit;

typedef struct skio_dae_edit_report {
  uint32_t controllers; /* skin controllers the meshes matched */
  uint32_t rewritten;   /* of which written with new weights */
  uint32_t skins_added; /* new skin controllers (geometry instances that got weights) */
  size_t split_points;  /* positions whose corners had different weights (the first corner's written) */
} skio_dae_edit_report;

/* Edits the Collada document src (n bytes) so that its skins hold the meshes' weights (every mesh of the scene, in
 * the reader's order; joint_names names the skeleton joints, joint_binds - 16 floats each, column-major, or NULL -
 * are their bind matrices in the scene's bind space, which a new skin's inverse binds come from). On SKC_OK *out
 * (malloc'd, *out_n bytes) is the new file. SKIO_DAE_EDIT_CANNOT, with a sentence in why, when the file cannot
 * take the edit (not a document this scanner reads, a skinned mesh that matches no skin controller's element, moved
 * vertices, a joint with weight the controller does not list, a mesh that lost its skin, a new skin under a
 * transformed node): the caller then writes the scene whole. SKC_OUT_OF_MEMORY otherwise. */
int skio_dae_edit(const char* src, size_t n, const skio_dae_mesh_edit* meshes, uint32_t count,
                  const char* const* joint_names, const float* joint_binds, uint32_t joint_count, char** out,
                  size_t* out_n, skio_dae_edit_report* report, char* why, size_t why_size, skc_err* err);

/* What a reader must know to place a Collada file's skins and bone children as Blender does (scene_import.c).
 *  - skins: Collada readers disagree on what a skin's bind shape matrix is relative to when the node instancing the
 *    skin sits under nodes with a transform: Assimp (and the specification's formula) apply it in world space;
 *    Blender's exporter writes it relative to the object's parent (the armature object it is parented to) while its
 *    inverse binds are in world space, and its importer reads it so. One entry per <instance_controller> of a skin
 *    controller: the instancing node's id, whether that node has a transform of its own, and the controller's bind
 *    shape matrix (column-major; the identity when it has none).
 *  - children: Blender parents an object to a bone at the bone's tail, and its exporter writes the object's node
 *    under the joint's node with its matrix relative to that tail, where Collada's node tree places it at the joint
 *    (the bone's head). One entry per node that is no joint and whose parent is one, with that bone's length when
 *    the file says it (Blender's <extra> tip of a leaf bone, else the head of a connected child joint).
 *  - blender: the document's <authoring_tool> starts with "Blender".
 * A document the scanner cannot read gives no entries (SKC_OK); SKC_OUT_OF_MEMORY (nothing to free then). Free with
 * skio_dae_free_places. */
typedef struct skio_dae_skin_place {
  char* node_id;
  bool node_moves;
  float bsm[16];
} skio_dae_skin_place;
typedef struct skio_dae_bone_child {
  char* node_id;
  float bone_length;
} skio_dae_bone_child;
typedef struct skio_dae_places {
  bool blender;
  skio_dae_skin_place* skins;
  uint32_t skin_count;
  skio_dae_bone_child* children;
  uint32_t child_count;
} skio_dae_places;
int skio_dae_read_places(const char* src, size_t n, skio_dae_places* out, skc_err* err);
void skio_dae_free_places(skio_dae_places* p);

#endif
