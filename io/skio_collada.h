/* skio_collada.h - animation clips in Collada files (collada_clips.c).
 *
 * Why: Assimp 5.2.5's Collada exporter writes every aiAnimation as its own top-level <animation> with the same
 * <source> ids ("<node>_matrix-input", ...) in each, so its own reader resolves every clip to one clip's keys, and
 * Blender 3.4's Collada importer merges all <animation>s that target a node into one action (3 clips = 48 curves
 * on a 16-value matrix target: "expected 16 curves, got 48") and can pose none of them. Its reader also ignores
 * <library_animation_clips>: ReadStructure hands the library element itself to ReadAnimationClipLibrary, which
 * looks for <instance_animation> children of the library (they are children of each <animation_clip>), so no
 * clip is ever registered (checked with `assimp info` on a file with a clip library: unchanged).
 * So scene_export.c writes all clips of a scene as ONE aiAnimation, the clips placed in sequence on one timeline
 * (every clip starts on a whole second, at least 0.5 s after the previous one ends, and every animated joint has
 * keys at each clip's start and end, so a reader that plays the timeline - Blender - shows clip k at time
 * start_k + t), and adds a <library_animation_clips> with one <animation_clip name start end> per clip;
 * skio_scene_import (scene_import.c) cuts the one animation Assimp reads back into those clips again. */
#ifndef SKIO_COLLADA_H
#define SKIO_COLLADA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"
#include "skio_scene.h"

typedef struct skio_clip {
  const char* name; /* clip name (XML-escaped when written) */
  double start, end; /* seconds on the file's timeline, start <= end */
} skio_clip;

/* Inserts <library_animation_clips> (one <animation_clip> per clip, each instancing the first <animation> of
 * <library_animations>; its id made of the clip's name, unique in the document, since three.js names its clips by
 * that id) right after </library_animations> of the Collada document xml[0, n). *out is malloc'd
 * (*out_n bytes, the caller frees it). SKC_FORMAT when the document has no <library_animations> with an
 * <animation id="...">; SKC_OUT_OF_MEMORY. Outputs are untouched on error. */
int skio_collada_add_clips(const char* xml, size_t n, const skio_clip* clips, uint32_t count, char** out,
                           size_t* out_n, skc_err* err);

/* Collada node names. Assimp 5.2.5's Collada reader names nodes by their id, which must be an XML NCName, so
 * "nodes[0]" came back as "nodesP0R" and "<IQMRoot>" as "_yIQMRoot_"; and it splits a channel target
 * "id/sid.member" at the FIRST '.', so a dotted id ("Finger.L.001", Blender's naming) lost its animation; and its
 * exporter turns the bytes of a name that are not id characters into garbage (NUL bytes for UTF-8 names).
 * Writing: scene_export.c gives Assimp's Collada exporter id-safe names (a pair per renamed node, mesh, material
 * or clip: the name it writes as id/sid/name, and the original) and skio_collada_restore_names puts each original
 * back into the name attribute of its element. Reading: Assimp still reads by id (ids are unique, so bones resolve
 * unambiguously); skio_collada_names_memory then gives each joint the name attribute of its node where that name is
 * unique in the file (two armatures' "Hips" keep their ids). */
typedef struct skio_name_pair {
  char* written;  /* the dot-free name given to the exporter (unique among the scene's node names) */
  char* original; /* the scene's own name */
} skio_name_pair;

/* Replaces name="<written>" by name="<original>" (XML-escaped) in every start tag of xml[0, n) (<node>,
 * <geometry>, <material>, <effect>, <animation>...) whose name attribute is one of the written names. *out is malloc'd
 * (*out_n bytes). SKC_OUT_OF_MEMORY; SKC_FORMAT when a renamed node is not found (the exporter changed its output:
 * nothing is written then). */
int skio_collada_restore_names(const char* xml, size_t n, const skio_name_pair* pairs, uint32_t count, char** out,
                               size_t* out_n, skc_err* err);

/* Collada text text[0, n) (need not be NUL-terminated): every <node> whose name attribute names no other node and
 * differs from its id, as pairs (written = id, original = name), sorted by id, in *out (free with
 * skio_collada_free_names). No such node: *out NULL, count 0, SKC_OK. SKC_OUT_OF_MEMORY. */
int skio_collada_node_names_memory(const char* text, size_t n, skio_name_pair** out, uint32_t* count, skc_err* err);
/* The same for <geometry> elements: Assimp names a Collada mesh by its geometry's id (Blender's "Cylinder-mesh"
 * for mesh data "Cylinder"); a name several geometries share is kept for each (the parts of one mesh). */
int skio_collada_geometry_names_memory(const char* text, size_t n, skio_name_pair** out, uint32_t* count, skc_err* err);
/* Both for a Collada document text[0, n) (NULL text: all empty, SKC_OK). SKC_OUT_OF_MEMORY. */
typedef struct skio_collada_name_sets {
  skio_name_pair* nodes;
  uint32_t node_count;
  skio_name_pair* geometries;
  uint32_t geometry_count;
} skio_collada_name_sets;
int skio_collada_names_memory(const char* text, size_t n, skio_collada_name_sets* out, skc_err* err);
void skio_collada_free_name_sets(skio_collada_name_sets* s);
/* The name for an id from one of these lists, or NULL. */
const char* skio_collada_name_of(const skio_name_pair* pairs, uint32_t count, const char* id);
void skio_collada_free_names(skio_name_pair* pairs, uint32_t count);

/* When path is a Collada file (.dae) with a <library_animation_clips> and s has exactly one animation (what
 * Assimp 5.2.5 reads from a single <animation>), replaces that animation by one per <animation_clip>: name =
 * its name (else id, else "clip<k>"), duration = end - start, and per channel track the keys with
 * start <= time <= end shifted by -start (a track with no key there gets the track's values at start and end).
 * start defaults to 0 and end to the animation's duration, as in the Collada specification. A clip library
 * that cannot be parsed (truncated, bad numbers, end < start, ...) is ignored: the one animation stays. Only
 * SKC_OUT_OF_MEMORY is an error. */
int skio_collada_apply_clips(const char* path, skio_scene* s, skc_err* err);
/* The same for Collada text already in memory, xml[0, n) (need not be NUL-terminated; the first
 * <library_animation_clips> of any size is used). */
int skio_collada_apply_clips_memory(const char* xml, size_t n, skio_scene* s, skc_err* err);

/* Blender's Collada with shape keys: Assimp 5.2.5's reader refuses a document whose <controller> holds a <morph>
 * ("Unable to resolve library reference": it keeps the '#' of the morph's source, and fails on its targets when
 * that is removed). skio_scene_import reads such a file, after Assimp refused it, from this copy: every morph
 * controller removed (at most 64), a node's <instance_controller> of one turned into an <instance_geometry> of its
 * geometry, a <skin> on one put on that geometry; the note then says the blend shapes were not read. NULL when
 * the document has no morph controller (or memory ran out); else malloc'd, *out_n bytes, *removed controllers. */
char* skio_collada_without_morphs(const char* xml, size_t n, size_t* out_n, uint32_t* removed);

/* The Collada document xml[0, n) without the material of id `id` (the placeholder skinkit's Assimp writer gives a
 * mesh without material: SKIO_PLACEHOLDER_MATERIAL): that <material>, its <effect> "<id>-fx", every
 * <instance_material> targeting it, a <bind_material> or library left without any (collada_placeholder.c). Malloc'd
 * and NUL-terminated (*out_n bytes before the NUL), *removed the materials dropped; NULL when memory ran out. */
char* skio_collada_drop_material(const char* xml, size_t n, const char* id, size_t* out_n, uint32_t* removed);

/* The Collada document xml[0, n) with every material symbol an instance leaves unbound (or a primitive leaves out)
 * bound to SKIO_PLACEHOLDER_MATERIAL, added to its libraries (collada_unbound.c): Assimp 5.2 gives such a mesh the
 * document's first material, Blender's importer none; the reader drops the placeholder, so the mesh reads without
 * one. NULL when nothing is unbound, the document has no material, the names are taken, or memory ran out; else
 * malloc'd and NUL-terminated, *out_n bytes before the NUL, *bound (optional) the bindings added. */
char* skio_collada_bind_unbound(const char* xml, size_t n, size_t* out_n, uint32_t* bound);

/* A light as Blender describes it (collada_lights.c): type 0 point, 1 sun, 2 spot; colour (largest component 1 or
 * less), energy in W (W/m^2 for a sun), spot size (full cone) in degrees and spot blend. */
typedef struct skio_collada_light {
  int type;
  float color[3], energy, spot_size_deg, spot_blend;
} skio_collada_light;
/* xml[0, n) written by Assimp's Collada writer with each of its first `count` <light> elements given Blender's <extra>
 * technique and, for a spot, the blend as its falloff exponent (lights[k] for the k-th element). *out malloc'd and
 * NUL-terminated (*out_n bytes before the NUL). SKC_OUT_OF_MEMORY is the only failure. */
int skio_collada_blender_lights(const char* xml, size_t n, const skio_collada_light* lights, uint32_t count, char** out,
                                size_t* out_n);
/* xml[0, n) written by Assimp's Collada writer with each of its first `count` <effect> elements (one per aiMaterial, in
 * order) whose two_sided[k] is set given GOOGLEEARTH's <double_sided>1</double_sided> (collada_lights.c). *out
 * malloc'd and NUL-terminated (*out_n bytes before the NUL). SKC_OUT_OF_MEMORY is the only failure. */
int skio_collada_double_sided(const char* xml, size_t n, const bool* two_sided, uint32_t count, char** out,
                              size_t* out_n);
/* xml[0, n) with each of the first count elements <open ...>...</close> (open: "<light ", close: "</light>") passed
 * through fix(b, element, element end with its close tag, ctx, k), the rest copied as written (fewer elements than
 * count: the missing ones skipped). *out malloc'd and NUL-terminated (*out_n bytes before the NUL); SKC_OUT_OF_MEMORY
 * is the only failure. For the passes over Assimp's Collada output (collada_lights.c, collada_geometries.c). */
struct skio_buf;
typedef void (*skio_collada_fix)(struct skio_buf* b, const char* p, const char* end, const void* ctx, uint32_t k);
int skio_collada_rewrite(const char* xml, size_t n, const char* open, const char* close, uint32_t count,
                         skio_collada_fix fix, const void* ctx, char** out, size_t* out_n);

/* xml[0, n) written by Assimp's Collada writer with the vertex colours of the k-th <geometry> (aiMesh k: meshes[k],
 * count of them) given their alpha: Assimp writes R G B only (ColladaExporter::WriteFloatArray). A colour set whose
 * alpha is 1 everywhere stays as written; the others become R G B A sources (collada_geometries.c). *out malloc'd and
 * NUL-terminated; SKC_OUT_OF_MEMORY is the only failure. */
struct aiMesh;
/* collada_geometries.c: */
int skio_collada_color_alpha(const char* xml, size_t n, const struct aiMesh* const* meshes, uint32_t count, char** out,
                             size_t* out_n);

/* collada_geometries.c: xml[0, n) written by Assimp's Collada writer with the k-th <geometry> element's name
 * attribute (k < count) set to names[k] (XML-escaped) where names[k] is not NULL. *out malloc'd and NUL-terminated;
 * SKC_OUT_OF_MEMORY is the only failure. */
int skio_collada_geometry_names(const char* xml, size_t n, const char* const* names, uint32_t count, char** out,
                                size_t* out_n);
/* A camera's orthographic view (collada_lights.c): half width and height, clip planes; xmag 0: perspective. */
typedef struct skio_collada_camera {
  float xmag, ymag, znear, zfar;
} skio_collada_camera;
/* xml[0, n) written by Assimp's Collada writer with the k-th <camera> element's <perspective> replaced by an
 * <orthographic> one where cams[k].xmag > 0. *out malloc'd and NUL-terminated. SKC_OUT_OF_MEMORY only. */
int skio_collada_ortho_cameras(const char* xml, size_t n, const skio_collada_camera* cams, uint32_t count, char** out,
                               size_t* out_n);

/* SKC_OK unless a <controller> of Collada text[0, n) takes its mesh from itself through <skin> sources (directly or
 * through other skins): SKC_FORMAT naming it in err (optional), a chain Assimp 5.2's reader would follow forever
 * (collada_controllers.c). SKC_OUT_OF_MEMORY otherwise. */
int skio_collada_controller_check(const char* text, size_t n, skc_err* err);

/* Text scanning shared by the Collada helpers (collada_text.c): the first occurrence of s in [p, end) or NULL;
 * whether [p, end) starts with s; the value of attribute name="..." of the start tag at tag (up to its '>'),
 * without a leading '#', or an empty range (*v NULL). */
/* The ids (else names) of the <node>s of Collada text[0, n) that are not of type JOINT (an empty, a locator: a
 * plain node), sorted (strcmp) for a binary search. SKC_OUT_OF_MEMORY is the only failure. */
int skio_collada_plain_nodes(const char* text, size_t n, char*** out, uint32_t* count); /* skio_names_free */
const char* skio_text_find(const char* p, const char* end, const char* s);
bool skio_text_starts(const char* p, const char* end, const char* s);
/* Whether the text at p is the tag `name` ("<node", "</node") followed by a space, '>', '/' or a line break. */
bool skio_text_start_tag(const char* p, const char* end, const char* name);
void skio_text_attr(const char* tag, const char* end, const char* name, const char** v, size_t* n);

/* The orthographic cameras of a Collada document (collada_cameras.c), which Assimp 5.2 reads as perspective ones
 * with xmag taken for a field of view in degrees: per node that instantiates one (<instance_camera url="#id"> of
 * an <orthographic> camera), the node's name (its name attribute, else its id: Assimp's camera name) and the
 * view's half width and height (xmag, ymag; one from the other and aspect_ratio when absent, 0 when unknown).
 * A document without any gives none; SKC_OUT_OF_MEMORY is the only failure. */
typedef struct skio_collada_ortho {
  char* node;
  double xmag, ymag;
  double znear, zfar; /* the clip planes (0: not given; Assimp 5.2 keeps its default far plane, 1000) */
} skio_collada_ortho;
int skio_collada_ortho_list(const char* text, size_t n, skio_collada_ortho** out, uint32_t* count, skc_err* err);
void skio_collada_ortho_free(skio_collada_ortho* list, uint32_t count);

/* Blender's bone tails (collada_tips.c). Blender 3.4 writes for a leaf bone tip_x, tip_y, tip_z (its tail minus its
 * head in armature space: the frame of the armature object's node) and for a bone connected to its parent
 * connect = 1 (the parent's tail is its head), in the node's <extra><technique profile="blender">. For each
 * <node type="JOINT"> with a tip (three finite numbers) or connect: its id (else its name: Assimp's name for the
 * node), the id of the innermost node around it not of type JOINT (the armature; "" when none), the tip and the
 * flag. Sorted by node (a node id given twice is dropped: ambiguous). A document without profile="blender" costs
 * one search. SKC_OUT_OF_MEMORY is the only failure. */
typedef struct skio_collada_tip {
  char* node;
  char* armature;
  double tip[3];
  bool has_tip; /* tip holds the three numbers */
  bool connect; /* the bone starts at its parent's tail */
} skio_collada_tip;
int skio_collada_tips(const char* text, size_t n, skio_collada_tip** out, uint32_t* count);
const skio_collada_tip* skio_collada_tip_of(const skio_collada_tip* tips, uint32_t count, const char* node);
void skio_collada_tips_free(skio_collada_tip* tips, uint32_t count);

/* write_stamp.c: the text of the first <created> and <modified> of xml[0, n) set to `when` (YYYY-MM-DDTHH:MM:SS,
 * UTC), in place, where it has that form (Assimp's writer). */
struct tm;
void skio_collada_stamp(char* xml, size_t n, const struct tm* when);

#endif