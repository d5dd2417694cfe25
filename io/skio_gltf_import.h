/* skio_gltf_import.h - glTF 2.0 -> skio_scene through skinkit's own document layer (skio_gltf_doc.h), instead of
 * Assimp 5.2.5, which misreads normalized-integer weights (gltfpack's default output), cannot open
 * EXT_meshopt_compression files, names unnamed clips "anim0" after its own counter and turns inverse binds into
 * the mesh node's space. skio_scene_import sends .gltf / .glb files here (see io/gltf_import.c for every rule).
 *
 * The document stays in the scene (skio_scene.gltf) with the mapping an in-place editor needs: every skio_mesh is
 * one triangle primitive of one glTF mesh instanced by one node (gltf_mesh, gltf_primitive, gltf_node), vertex i
 * of the skio_mesh is vertex i of the primitive (never welded or reordered), and skio_scene.joint_node maps each
 * skeleton joint to its node.
 */
#ifndef SKIO_GLTF_IMPORT_H
#define SKIO_GLTF_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "skio_scene.h"

struct skio_gltf_doc;

/* What the reader left out (all zero: every triangle, influence and joint channel of the file is in the scene). */
typedef struct skio_gltf_import_report {
  uint32_t primitives_skipped;  /* POINTS / LINES / LINE_LOOP / LINE_STRIP primitives, primitives without POSITION */
  uint32_t primitives_no_position; /* of those, triangle primitives without POSITION (a scene note names them) */
  uint32_t channels_skipped;    /* animation channels not on a joint node, "weights" (morph) channels, channels
                                   without a target node (KHR_animation_pointer) */
  uint64_t dropped_weights;     /* non-zero weights whose joint index is past the skin's joints (sum over meshes) */
} skio_gltf_import_report;

/* True when the path ends in ".gltf", ".glb" or ".vrm" (any case): a VRM avatar (VRoid Studio, UniVRM, Blender's
 * VRM addon) is a .glb by another name, its humanoid, expressions and spring bones in the extension "VRM" (0.x) or
 * "VRMC_vrm" (1.0). */
int skio_path_is_gltf(const char* path);
/* True when the file starts with the GLB magic "glTF" (a .glb under any name or none; unreadable: false). */
int skio_file_is_glb(const char* path);
/* True when the path ends in ".vrm" (any case): written only as an edit of a VRM source (scene_export.c). */
int skio_path_is_vrm(const char* path);

/* Reads a .gltf / .glb file. Errors: those of skio_gltf_doc_load (SKC_IO, SKC_FORMAT, SKC_VERSION,
 * SKC_UNSUPPORTED), SKC_FORMAT for references the specification forbids (a node that is the child of two nodes or
 * of itself, an index past its array, attribute counts that differ, an index past the vertices, an accessor of the
 * wrong type), SKC_UNSUPPORTED for sizes past the limits (65535 joints, 65535 mesh instances, 2^27 vertices in
 * all), SKC_SINGULAR_MATRIX from skio_mesh_place (an unskinned mesh under a singular node transform),
 * SKC_OUT_OF_MEMORY. Every message starts with the path. *out is untouched on failure. nodes: SKIO_GLTF_NODES_BARE
 * (skio_import_options.skeleton_from_nodes: a document without skins gets the skeleton it describes),
 * SKIO_GLTF_NODES_ANIMATED (animated_nodes: a node with an unskinned mesh that a clip keys is a joint its mesh hangs
 * from, so that the motion survives the writers). */
#define SKIO_GLTF_NODES_BARE 1u
#define SKIO_GLTF_NODES_ANIMATED 2u
int skio_gltf_import(const char* path, unsigned nodes, skio_scene** out, skc_err* err);

/* The same from a loaded document, which the scene takes over (destroyed here on failure). report may be NULL;
 * nodes as for skio_gltf_import. */
int skio_gltf_import_doc(struct skio_gltf_doc* doc, unsigned nodes, skio_gltf_import_report* report, skio_scene** out,
                         skc_err* err);

/* The same for a file in memory (copied; external URIs refused); name stands for the path in messages and becomes
 * skio_scene.source. */
int skio_gltf_load_memory(const void* data, size_t size, const char* name, skio_scene** out, skc_err* err);

/* Fills s's material and image tables from d and sets each mesh's material (gltf_import_material.c: every rule
 * there). Nothing in the file makes it fail (what cannot be read is named in s->material_note): only
 * SKC_OUT_OF_MEMORY. */
int skio_gltf_read_materials(skio_scene* s, struct skio_gltf_doc* d, skc_err* err);

#endif
