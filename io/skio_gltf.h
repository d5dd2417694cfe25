/* skio_gltf.h - skinkit's own glTF 2.0 writer (io/gltf_write.c): an skio_scene as .glb (one JSON chunk + one
 * BIN chunk) or .gltf (JSON + one .bin beside it). It exists because Assimp 5.2.5's glTF2 exporter cannot write
 * our scenes losslessly: it throws on an animation named like another object (duplicate clip names, a clip named
 * like a node), writes only JOINTS_0/WEIGHTS_0 and welds identical vertices (merging the weights of co-located
 * vertices that differ).
 *
 * What is written (vertex i of a mesh is vertex i of its primitive; nothing is welded or reordered):
 *  - one node per skeleton joint (its name; its rest local transform as translation/rotation/scale, or as
 *    "matrix" when the transform has shear that TRS cannot hold and no clip animates the joint), the hierarchy
 *    from the parents; one node per mesh (no transform); one scene whose top-level nodes are the root joints and
 *    every mesh node (as the specification recommends for skinned meshes: a mesh under a transformed joint reads
 *    back with other inverse binds in Assimp, which turns them into the mesh node's space). Assimp gathers several
 *    top-level nodes under a "ROOT" node of its own, which skio_scene_import does not take for a joint.
 *  - per mesh one primitive: POSITION (with min/max), NORMAL, TANGENT (vec4), TEXCOORD_0 stored as (u, 1 - v)
 *    (glTF's v axis points down; Assimp and Blender flip it back), indices (u16 below 65535 vertices, else u32;
 *    POINTS when the mesh has no triangles), and for a skinned mesh JOINTS_n (u8 when its skin lists <= 256 joints,
 *    else u16) / WEIGHTS_n (float) for as many sets of 4 as its most influenced vertex needs; unused slots are
 *    joint 0 with weight 0.
 *  - per skinned mesh its own skin listing every joint of the skeleton in skeleton order (bound or not: unbound
 *    ones with the skeleton's inverse bind and no weight), with the mesh's own inverse binds (column-major float
 *    mat4; a bottom row within 1e-5 of 0 0 0 1 is written as exactly that, as glTF requires) and "skeleton" = the
 *    closest common ancestor of those joints. A skinned mesh with no joint to list is written without skin.
 *    Listing every joint keeps plain transformed nodes from sitting above a skin's joints (Blender's importer
 *    makes such a node the armature object and moves the mesh with it) and brings back joints no mesh binds
 *    (readers such as Assimp build their skeleton from skin joints and their ancestors); read back, every mesh
 *    binds every joint, most with no weight. When some joint's rest world transform is not rigid (scale, shear),
 *    only the joints meshes bind are listed, plus those no mesh binds that are no ancestor of a bound joint:
 *    Blender's bones cannot carry scale, and a scaled plain node becomes its armature object instead. A joint no
 *    mesh binds gets inverse(rest_world(j)) * X, X = rest_world(k) * IB(k) of the mesh's first bound joint k.
 *  - each skinned mesh in the space of its skin: T = P^-1 X, X = rest_world(j) * IB(j) when that is one matrix for
 *    every bound joint and not the identity (the rest pose is the bind pose up to one transform: it is baked, so
 *    the written rest pose IS the bind pose), P the rest world transform of the plain node above the skin's root
 *    joint: vertices T v, normals and tangents by T, inverse binds IB T^-1. Skinned positions are unchanged; Blender
 *    3.4's importer builds bones from the node rest pose and reads vertices in its armature object's space, so
 *    without T it misplaced CesiumMan (1.1 bounding-box diagonals) and huesitos (37).
 *  - every animation under its own name (duplicates allowed), one LINEAR sampler per joint and path (when a clip
 *    has several channels for one joint, the last one holding keys for the path, which is what skio_anim_sample
 *    poses with), times in seconds as floats (the clip's end rounded up, so a reader's duration is never shorter),
 *    rotations normalized. glTF has no clip length: a clip whose duration runs past its last key gets one more key
 *    at the duration repeating the last value of one track (the pose is unchanged), and a clip without channels
 *    gets a rest-pose rotation track on one joint. Keys that glTF cannot hold are fixed where the pose allows: keys at
 *    negative times become one key at 0 (the pose there), keys whose float times collide keep the last one,
 *    non-finite keys and keys out of order are dropped (counted in the report).
 *  - normals, tangents and uvs exactly as stored (the Khronos validator reports ACCESSOR_VECTOR3_NON_UNIT where a
 *    source's normals are not unit length: BVH, CSM, some Collada / SMD files read through Assimp).
 *  - the scene's materials in order (each primitive's "material" is its mesh's): pbrMetallicRoughness (base colour,
 *    metallic, roughness factors and textures), normalTexture (scale), occlusionTexture (strength), emissiveTexture
 *    and emissiveFactor, alphaMode / alphaCutoff, doubleSided; one texture per image with one default sampler; image
 *    bytes as bufferViews with their mimeType (.glb, and .gltf for embedded images or files elsewhere), or in a .gltf
 *    the relative URI of an image file that sits beside the output. WebP / KTX2 through EXT_texture_webp /
 *    KHR_texture_basisu (required). An image without bytes or of another type (TGA, DDS...) is not written: its
 *    references are dropped and named in the note. Texture uv sets above 0 read TEXCOORD_0 (the only set written).
 *  - names as UTF-8 JSON strings (quotes, backslashes and control characters escaped; a byte that is not valid
 *    UTF-8 is read as Latin-1). Joint names must be unique for readers that bind by name (Assimp): a repeated or
 *    empty name is written as the importer would name it ("<name>#2", "joint<i>").
 *
 * Files: the output is built in memory, written to a temporary file in the target folder and renamed, so a failure
 * never leaves a half file. .gltf: the buffer goes beside it, named after its stem with every character outside
 * [A-Za-z0-9._~-] replaced by '_' ("my model.gltf" -> "my_model.bin"), so that the relative URI needs no
 * percent-encoding: Assimp 5.2.5 does not decode one (a "my%20model.bin" URI is not found). An existing file of
 * that name is replaced only with replace_bin, and never when it is the scene's own source file.
 */
#ifndef SKIO_GLTF_H
#define SKIO_GLTF_H

#include <stdbool.h>
#include <stdint.h>

#include "skc_status.h"
#include "skio_scene.h"

/* What a write changed or could not carry (all zero: every stored datum went out as stored). */
typedef struct skio_gltf_report {
  uint64_t vertices_changed;   /* vertices whose written influences differ from the stored ones */
  uint64_t influences_dropped; /* entries not written: past the limit, pruned, or not finite and > 0 */
  uint64_t vertices_limited;   /* vertices with more influences than the limit (their largest written) */
  uint64_t vertices_renormalized; /* vertices within the limit written renormalized: their sums were off 1 */
  uint64_t duplicates_merged;  /* entries added into an earlier entry of the same joint of the same vertex */
  uint64_t unweighted;         /* vertices of skinned meshes written without any influence */
  uint64_t anchored;           /* vertices of skinned meshes that had no influence, written with weight 1 on the
                                  plain node above the mesh's joints (the armature object: they follow it) */
  char anchor_name[64];        /* that node's name (the last one used, cut to 63 bytes) */
  bool anchor_is_joint;        /* the in-place edit's anchor: the root joint of the skin (a glTF edit cannot add a
                                  joint for the node above it), which moves them as it moves */
  uint32_t max_influences;     /* most influences written for one vertex */
  uint32_t unskinned_meshes;   /* meshes with a skin but no joint to list, written without skin */
  uint32_t orphans_listed;     /* joints no mesh binds, listed in every skin with no weight (see gltf_write.c) */
  uint32_t roots_gathered;     /* 1: a skin's joints had no common root; their roots went under an added node */
  uint32_t matrix_nodes;       /* joints written as "matrix" (sheared rest, not animated) */
  uint32_t sheared_animated;   /* joints with a sheared rest written as TRS because a clip animates them */
  uint32_t renamed_joints;     /* empty or repeated joint names written under another name */
  uint32_t names_fixed;        /* names holding bytes that are not UTF-8 (read as Latin-1) */
  uint64_t keys_dropped;       /* animation keys not written as stored (see the file comment) */
  uint32_t tracks_dropped;     /* T/R/S tracks replaced by a later channel of the same joint and clip, or of no joint */
  uint32_t anims_dropped;      /* clips with no joint that could hold them (scene without skeleton) */
  uint32_t object_keys_dropped; /* clip channels of cameras, lights or empties not written: their file parent is
                                   scaled unevenly against their written parent, or a camera's view sits off its node */
} skio_gltf_report;

/* Weights (applied per vertex, in this order): entries that are not finite or not > 0 are dropped (glTF
 * weights are non-negative; Assimp and the spec ignore zeros); entries naming the same joint are added into one
 * (glTF forbids a joint twice in a vertex; skinning is unchanged); prune drops weights below `prune`, keeping the
 * largest one when all are below; then
 *  - default (everything 0/false): the 4 largest, sorted by weight (ties: lower joint), renormalized to sum 1,
 *    i.e. skc_select_top with k = 4, the same rule as skio_scene_export's glTF default; a vertex of at most 4
 *    whose weights already sum to 1 (within 2e-7 a weight, what the Khronos validator accepts) keeps them as
 *    stored, bit for bit, sorted;
 *  - limit N: the N largest, sorted, renormalized (skc_select_top with k = N); at most N summing to 1: as stored;
 *  - normalize (limit 0): every influence, sorted, renormalized (skc_select_top with k = all);
 *  - as_is: every influence with its weight exactly as stored, sorted by weight; sums may differ from 1, which
 *    glTF forbids (the Khronos validator reports ACCESSOR_WEIGHTS_NON_NORMALIZED): only on request. as_is with
 *    normalize or a limit is SKC_INVALID_ARGUMENT.
 * A vertex left with no influence gets weight 1 on the plain node above its mesh's joints (skio_gltf_write only:
 * see anchor_unweighted in gltf_write.c; counted in skio_gltf_report.anchored), or none where there is no such node.
 * Mapping from skio_export_options: normalize -> normalize, limit -> limit, prune -> prune, keep_all -> as_is. */
typedef struct skio_gltf_options {
  bool as_is;
  bool normalize;
  uint32_t limit;           /* 0: 4 unless normalize or as_is (then all) */
  bool limit_to_source;     /* limit is the default 4: the in-place editor (skio_gltf_edit.h) raises it to what
                               the source primitive holds, 4 per JOINTS_n / WEIGHTS_n set */
  float prune;              /* 0 = keep every weight; must be finite and >= 0 */
  bool replace_bin;         /* .gltf: may replace an existing "<stem>.bin" (e.g. the CLI's --force) */
  skio_gltf_report* report; /* optional: filled on success */
  char* note;               /* optional, a string in note_size bytes: the images / texture references not written
                               (no bytes, a type glTF cannot hold) are appended to it, "; "-separated */
  size_t note_size;
} skio_gltf_options;

/* One vertex's influences by the rules above (o: the weight fields; the report's counters are added to): n stored
 * entries (skeleton joints, < joint_count) in, at most n out, sorted by weight; tmp: scratch of 8 * n bytes. Returns
 * the count written. The in-place glTF editor (skio_gltf_edit.h) applies the same rules. */
size_t skio_gltf_vertex_weights(const skio_gltf_options* o, uint32_t joint_count, const uint32_t* in_j,
                                const float* in_w, size_t n, void* tmp, uint32_t* out_j, float* out_w,
                                skio_gltf_report* rep);

/* Writes s to path: binary != 0 -> .glb, else .gltf + .bin (the extension of path is not checked). o may be NULL
 * (defaults). Errors: SKC_INVALID_ARGUMENT (NULL scene/path, bad options, a mesh without positions or with
 * non-finite geometry or bind matrices, indices out of range, a skin not matching its mesh or the skeleton),
 * SKC_EXISTS (the .bin exists and replace_bin is off, or it is the scene's source), SKC_UNSUPPORTED (more than
 * 4 GiB of buffer for .glb), SKC_OUT_OF_MEMORY, SKC_IO (folder missing or not writable, disk full; the message
 * has the path and the system's reason). When it fails, path and the .bin are as they were before the call (an
 * earlier file there is kept, no temporary is left). */
int skio_gltf_write(const skio_scene* s, const char* path, int binary, const skio_gltf_options* o, skc_err* err);

#endif
