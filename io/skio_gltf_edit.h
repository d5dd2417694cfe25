/* skio_gltf_edit.h - writing a glTF that skinkit read back with new skin weights, as an edit of the source document
 * (io/gltf_edit.c) instead of a new file from the scene (io/gltf_write.c): every byte an operation does not change
 * stays as it was (materials, textures, images, samplers, cameras, lights, morph targets, unskinned meshes, node
 * order and names, joint order, clip names, extensions and extras, number spelling, whitespace).
 *
 * What changes, per edited primitive (mesh, primitive):
 *  - JOINTS_n / WEIGHTS_n. A primitive whose sets already hold the new influences (same sets, component types and
 *    normalized flags; per vertex the same joint / weight pairs of non-zero weight, in any order) is left as it is.
 *    Otherwise the old accessors' bytes are overwritten in place when the new data has their layout
 *    (same sets, component types, normalized flag and count; a plain, uncompressed view in the GLB's BIN chunk; no
 *    sparse, no min/max; referenced by no other primitive; no other buffer view overlapping its view and no other
 *    accessor reading its bytes): the JSON does not change. Otherwise the new data goes to tightly packed views of
 *    their own appended to "bufferViews", and an old accessor that only this attribute names (no other primitive,
 *    no indices, inverse binds or animation sampler) is declared anew in its place on that view, its name and
 *    extras kept: its index stays and no accessor keeps the old values (validators check every accessor, used or
 *    not). One named elsewhere stays, and the attribute points at a new accessor appended to "accessors". The old
 *    views stay, referenced by nothing new (a meshopt-compressed view is never rewritten).
 *    Primitives on one POSITION accessor that named the same old accessor (or none) for a set and get the same new
 *    values share one new accessor, as they shared the old (a multi-material mesh: skio_mesh.parts); a primitive the
 *    reader does not read (POINTS, LINES) drawing those vertices with those old accessors takes the new ones too. A
 *    set beyond the new ones that holds only zeros does not count as a change.
 *    Sets no longer needed lose their attributes (also in KHR_draco_mesh_compression's attribute map, whose decoded
 *    JOINTS/WEIGHTS would otherwise replace the new ones).
 *  - Draco counts. A KHR_draco_mesh_compression accessor the reader decoded to another count than it declares
 *    (FBX2glTF 0.9.7 declares the count before compression: io/gltf_draco.c) is declared with the decoded count, the
 *    one the new sets have. One that also holds uncompressed fallback data (of the declared count) cannot be: the
 *    scene is then written whole (SKIO_GLTF_EDIT_CANNOT).
 *  - Buffers. GLB: the BIN chunk is kept byte for byte (except in-place accessors) and the new data is appended at
 *    its end (4-byte aligned), buffers[0].byteLength updated. .gltf: the input's .bin files are never modified; new
 *    data goes to one more buffer, a file "<stem>_skin.bin" beside the output (characters outside [A-Za-z0-9._~-]
 *    replaced by '_', a counter added when the name is taken by one of the document's own files); files the
 *    document references by relative URI (buffers, images) are copied beside the output when it is written to
 *    another folder. A GLB whose buffer 0 is not its BIN chunk gets the new data as a data: URI buffer.
 *    extensionsUsed never needs a change (u8/u16 normalized weights and u8/u16 joints are core glTF).
 *  - Skins. A primitive whose node had no skin (skio_gltf_prim_edit.new_skin_joints) gets one: appended to "skins"
 *    (created when the document has none), the node's "skin" set; its joints are every joint node of the scene's
 *    skeleton, its inverse binds the scene's times the transform the reader placed the mesh with, so the file's
 *    vertices (node space) skin to where the scene had them. When the edit gives the primitive's vertices in the
 *    skin's bind space (bind_positions: the node had a transform, no children and a plain primitive), those are
 *    written instead - POSITION, NORMAL and TANGENT as new float accessors the attributes name - its inverse binds
 *    are the scene's and the node's translation / rotation / scale / matrix are removed (a skinned mesh's node
 *    transform does not apply): every new skin then agrees with the file's skins on each joint's bind matrix, from
 *    which Blender's importer builds the armature's rest pose (a belt parented to the armature object, bound, had
 *    moved the whole rig's rest pose by the belt's offset).
 *  - Joints the document has no node for (bone links added after reading: skio_gltf_added_joints): new nodes
 *    appended to "nodes" (name, rest translation / rotation / scale), each added to its parent's "children"; the
 *    skins of the primitives that weight them list them after their own joints, with a new inverse-bind accessor
 *    (the old matrices, then theirs). Nothing else of the skeleton changes: the linked joint keeps its children and
 *    the clips their channels (links have none: they follow their joint).
 * Weights: entries that are not finite or not > 0 are left out; each vertex's influences are written sorted by
 * weight (descending, ties lower joint), 4 per set, unused slots joint 0 weight 0. Component type: the source
 * WEIGHTS_0's (float, normalized u8 or u16; float when it had none) or the one asked for. Floats are written as
 * given, except where they replace Draco data that held them quantized (WEIGHTS_n in KHR_draco_mesh_compression):
 * a vertex whose sum is off 1 by more than the Khronos validator's slack (2e-7 a weight) but by no more than half the
 * quantization step a weight is divided by its sum, counted (report.renormalized) and noted; u8 / u16 are the
 * weights divided by their sum, quantized with exact integer sums 255 / 65535 (largest
 * remainder, skc_quantize_weights), entries that quantize to 0 left out. Joints: the source JOINTS_0's component
 * type when every index fits, else u8 when the skin has <= 256 joints, u16 up to 65536.
 * Files: built in memory, each written to a temporary file in the target folder, flushed and renamed (companion
 * files first, the .glb/.gltf last); on failure the previous output is unchanged. The output (or a companion file)
 * is never one of the source's own files (device and inode compared): SKC_EXISTS.
 */
#ifndef SKIO_GLTF_EDIT_H
#define SKIO_GLTF_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"
#include "skio_gltf.h"
#include "skio_gltf_doc.h"
#include "skio_scene.h"

/* Weight component type written (skio_export_options.weights_type, sk_save_options.weights_type). */
typedef enum skio_weights_type {
  SKIO_WEIGHTS_SOURCE = 0, /* as the source file has them (glTF edit); float for files written from the scene */
  SKIO_WEIGHTS_FLOAT = 1,
  SKIO_WEIGHTS_U8 = 2,     /* unsigned byte, normalized (sums exactly 255) */
  SKIO_WEIGHTS_U16 = 3     /* unsigned short, normalized (sums exactly 65535) */
} skio_weights_type;

/* New influences of one primitive. Vertex i is vertex i of the primitive (its POSITION accessor's element i);
 * joints are indices into the "joints" of the skin of the node that instances the primitive. */
typedef struct skio_gltf_prim_edit {
  uint32_t mesh, primitive;
  size_t vertex_count;     /* must equal the primitive's POSITION count */
  const uint32_t* offsets; /* CSR: vertex_count + 1 entries; NULL: k entries per vertex */
  uint32_t k;
  const uint32_t* joints;  /* offsets[vertex_count] (or vertex_count * k) entries, each < joint_limit */
  const float* weights;    /* as many */
  uint32_t joint_limit;    /* joints in that skin (1..65536) */
  /* A node without a skin (an unskinned mesh `bind` weighted): new_skin_joints (joint_limit node indices, what the
   * skin added for node lists) and new_skin_ibm (16 floats per joint, column-major) give it one: appended to
   * "skins" with its inverse binds on a view and accessor of their own, the node's "skin" pointing at it; one per
   * node (the primitives of one node share it). NULL: the node has its skin. */
  int32_t node;
  const uint32_t* new_skin_joints;
  const float* new_skin_ibm;
  /* With new_skin_joints: the primitive's vertices in the skin's bind space (3 floats each, vertex_count), its normals
   * (3, NULL: none) and tangents (4, NULL: none), written in place of the file's, the node's transform removed (see
   * Skins above). NULL: the file's vertices are kept. */
  const float* bind_positions;
  const float* bind_normals;
  const float* bind_tangents;
} skio_gltf_prim_edit;

typedef struct skio_gltf_edit_report {
  uint32_t primitives;        /* primitives edited */
  uint32_t kept;              /* primitives whose JOINTS_n / WEIGHTS_n already held the new influences (kept) */
  uint32_t in_place;          /* accessors overwritten in place */
  uint32_t added;             /* accessors appended */
  uint32_t redeclared;        /* accessors declared anew in their place, on appended data (only their attribute
                                 named them): no accessor keeps the old values */
  uint32_t sets_removed;      /* JOINTS_n/WEIGHTS_n pairs removed */
  uint32_t weights_component; /* component type of the weights written by the last primitive (SKIO_GLTF_*) */
  size_t bytes_appended;      /* new buffer bytes */
  size_t renormalized;        /* vertices whose Draco-quantized float weights were renormalized (see Weights) */
} skio_gltf_edit_report;

/* Joints the document has no node for (bone links added after reading: sk_scene_relink): appended to "nodes" as
 * node_count + k, each a child of parent_node[k] (a node of the document, or node_count + an earlier k), with its
 * rest transform; and to the "joints" of each skin in skins, with their inverse binds (the skin's inverse binds
 * become a new accessor: the old ones, then these). */
typedef struct skio_gltf_added_joints {
  uint32_t count;
  const char* const* names;   /* count */
  const int32_t* parent_node; /* count */
  const float* trs;           /* 10 floats each: translation, rotation x y z w, scale */
  uint32_t skin_count;
  const uint32_t* skins;      /* skin indices, each once, each with joints */
  const float* ibm;           /* skin_count * count * 16 floats, column-major: skin i's inverse binds of the joints */
} skio_gltf_added_joints;

typedef struct skio_gltf_edit_options {
  skio_weights_type weights_type;
  bool replace_files;            /* companion files ("<stem>_skin.bin", copies) may replace existing ones */
  skio_gltf_edit_report* report; /* optional: filled on success */
  /* A .gltf written as .glb: image i's bytes and MIME type (the scene's image table, in document order;
   * skio_gltf_edit_scene passes the scene's), embedded in the BIN chunk; an image without them keeps its URI. */
  const skio_image* images;
  uint32_t image_count;
  /* Optional: what the edit could not do, for the user (an image of a .gltf written as .glb whose file did not read:
   * its URI is kept, naming a file that is not there). "" when nothing. */
  char* note;
  size_t note_size;
  const skio_gltf_added_joints* added; /* optional */
} skio_gltf_edit_options;

/* Writes d with the edits applied to path: binary != 0 -> .glb (from a GLB; or from a .gltf, whose buffers with data
 * are packed into the BIN chunk, each at a multiple of 16, as buffer 0 - every bufferView and meshopt extension
 * re-pointed, buffers without a URI kept after it - and whose images named by URI are embedded as bufferViews when
 * o->images has their bytes), else .gltf (from a .gltf, or from a GLB whose BIN chunk, with the new data, becomes
 * "<stem>.bin" beside it and whose other chunks are not kept). o may be NULL. Errors: SKC_INVALID_ARGUMENT (a primitive that does
 * not exist or is listed twice, a vertex count that differs from the primitive's, a joint index >= joint_limit,
 * bad offsets), SKC_FORMAT (the source's accessors or buffers do not read), SKC_EXISTS (path or a companion file is
 * one of the source's files; or a companion file exists and replace_files is off), SKC_UNSUPPORTED (more than 4 GiB
 * for .glb), SKC_OUT_OF_MEMORY, SKC_IO. On failure nothing at path (or beside it) has changed. */
int skio_gltf_edit_write(skio_gltf_doc* d, const skio_gltf_prim_edit* edits, size_t count, const char* path,
                         int binary, const skio_gltf_edit_options* o, skc_err* err);

/* skio_scene_export's glTF path for a scene that skinkit's glTF reader loaded (s->gltf set): each skinned mesh's
 * influences, through the writer's weight rules (w: skio_gltf_vertex_weights), mapped from skeleton joints to the
 * joints of the skin of the node instancing its primitive (s->joint_node), then skio_gltf_edit_write. A primitive
 * instanced by several meshes is written from the first. Returns SKC_OK, an error of skio_gltf_edit_write, or
 * SKIO_GLTF_EDIT_CANNOT with a sentence in why when the scene no longer maps onto its document (a joint the
 * primitive's skin does not list, a mesh without a skinned node, a mesh added to the scene):
 * the caller then writes the scene with the full writer (skio_gltf_write). A scene without a skeleton (a document
 * without skins) has nothing to edit: the document is written as it is. */
#define SKIO_GLTF_EDIT_CANNOT (-1)
int skio_gltf_edit_scene(const skio_scene* s, const char* path, int binary, const skio_gltf_options* w,
                         const skio_gltf_edit_options* o, char* why, size_t why_size, skc_err* err);

#endif
