/* fbx_fixup.h - repairs the binary FBX that Assimp 5.2.5's exporter writes (see fbx_fixup.c for the cause). */
#ifndef SKIO_FBX_FIXUP_H
#define SKIO_FBX_FIXUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"
#include "skio_scene.h"

/* Rewrites the binary FBX `in` (n bytes) so that every node record with children ends with the null record
 * (13 zero bytes before version 7500, 25 from 7500 on) that Assimp's and Blender's readers require, with every
 * end offset recomputed and the footer's 16-byte alignment padding redone. A node that already ends with a null
 * record keeps exactly one, so the fix is idempotent. Properties are copied byte for byte.
 * On success *out is a malloc'd buffer of *out_n bytes (the caller frees it) and *out_added (may be NULL) the
 * number of null records inserted. Errors: SKC_INVALID_ARGUMENT (NULL pointers), SKC_FORMAT (not binary FBX, or a
 * record whose offsets leave its parent: the message gives the byte offset), SKC_OUT_OF_MEMORY; outputs are then
 * untouched. Never reads outside in[0, n). */
int skio_fbx_fix_sentinels(const uint8_t* in, size_t n, uint8_t** out, size_t* out_n, size_t* out_added,
                           skc_err* err);

/* FBX time: ticks per second. */
#define SKIO_FBX_TICKS_PER_SECOND 46186158000LL

typedef struct skio_fbx_fix_options {
  const int64_t* stack_stops; /* per AnimationStack, its LocalStop / ReferenceStop in FBX ticks (NULL: kept) */
  uint32_t stop_count;
  bool unwrap_rotations;      /* make Assimp's Euler rotation curves continuous (see fbx_fixup.c, euler_filter) */
  bool linear_keys;           /* KeyAttrFlags 0 (Assimp's) becomes linear interpolation (SKIO_FBX_KEY_LINEAR) */
} skio_fbx_fix_options;

/* KeyAttrFlags of linear keys with automatic tangents, as Blender's FBX exporter writes them: Assimp 5.2.5's writer
 * leaves the flags 0, no interpolation at all, and the Autodesk FBX SDK (Maya, 3ds Max, MotionBuilder, Unity,
 * Unreal, FBX2glTF) then evaluates every time between two keys as 0 - bones at the origin, scale 0; Assimp's and
 * Blender's readers ignore the flags, which is why it went unseen. */
#define SKIO_FBX_KEY_LINEAR 24836

/* skio_fbx_fix_sentinels, plus: records Assimp writes with an empty child list (AnimationStack, AnimationLayer,
 * References) get their null record even without children (Assimp's importer needs the scope), the LocalStop /
 * ReferenceStop properties of the k-th AnimationStack (k < stop_count) become stack_stops[k] (FBX ticks) instead
 * of Assimp's whole seconds, a scale curve node's connection to "Lcl Scale" (Assimp 5.2.5) names "Lcl Scaling",
 * with unwrap_rotations every rotation curve triple Assimp wrote is made continuous, and with linear_keys every
 * raw KeyAttrFlags value 0 of an AnimationCurve becomes SKIO_FBX_KEY_LINEAR. opts may be NULL (=
 * skio_fbx_fix_sentinels). */
int skio_fbx_fix_binary(const uint8_t* in, size_t n, const skio_fbx_fix_options* opts, uint8_t** out, size_t* out_n,
                        size_t* out_added, skc_err* err);

/* fbx_settings.c: declares frame f (skio_scene_declared_frame: unit, up / front / coord axes) in the file's
 * GlobalSettings - UpAxis, UpAxisSign, FrontAxis, FrontAxisSign, CoordAxis, CoordAxisSign, UnitScaleFactor and
 * OriginalUnitScaleFactor - where the file has those properties (Assimp's exporter writes all eight). Binary: the
 * values are patched in data[0, n) in place; *out_set (may be NULL) gets one bit per property set, in that order.
 * SKC_FORMAT when the file does not parse. */
int skio_fbx_set_frame(uint8_t* data, size_t n, const skio_frame* f, uint32_t* out_set, skc_err* err);

/* A bone's bind for skio_fbx_fix_clusters: its Model's name and its offset matrix from world space to bone space at
 * bind (Assimp's aiBone::mOffsetMatrix times the inverse of its mesh node's world: the offset of a mesh whose Model
 * stands at the identity), 16 doubles column-major as FBX stores matrices. */
typedef struct skio_fbx_bind {
  const char* name;
  double offset[16];
} skio_fbx_bind;

/* fbx_assoc.c: binary FBX in[0, n) with every skin cluster that lacks a TransformAssociateModel given one (the world
 * matrix of the cluster's armature: the first ancestor of its bone that is no bone), as Blender's importer needs to
 * place a skinned mesh whose armature has a transformed parent, and with the Transform / TransformLink of each cluster
 * whose bone binds (bind_count of them, may be 0) names set from that bind. *out is malloc'd (*out_n bytes); *added
 * (may be NULL) the TransformAssociateModel records added. SKC_FORMAT when the file does not parse. */
int skio_fbx_fix_clusters(const uint8_t* in, size_t n, const skio_fbx_bind* binds, uint32_t bind_count, uint8_t** out,
                          size_t* out_n, uint32_t* added, skc_err* err);

/* fbx_merge.c: binary FBX in[0, n) with each group of Mesh Models Assimp wrote for one object of several materials
 * (same name, parent and Properties70, one Geometry each) merged into the group's first Model: one Geometry (vertices,
 * polygons and layers concatenated; LayerElementMaterial ByPolygon into the merged Model's materials), one Skin with
 * one cluster per bone, one BlendShape with one channel per shape and one DeformPercent curve per channel and clip
 * when every part has the same shapes and curves (fbx_merge_shapes.c), every part's Material connected to the first
 * Model in part order; the other parts' objects, connections, PoseNodes and Definitions counts dropped. A group the
 * pass does not fully understand stays as it is.
 * *out is malloc'd (*out_n bytes); *merged (may be NULL) the groups merged. SKC_FORMAT when the file does not
 * parse. */
int skio_fbx_merge_parts(const uint8_t* in, size_t n, uint8_t** out, size_t* out_n, uint32_t* merged, skc_err* err);

/* fbx_placeholder.c: binary FBX in[0, n) without its Material objects named `name` (the placeholder skinkit's Assimp
 * writer gives a mesh without material), their connections and their share of the Definitions' counts. *out is
 * malloc'd (*out_n bytes); *count (may be NULL) the materials dropped. SKC_FORMAT when the file does not parse. */
int skio_fbx_drop_material(const uint8_t* in, size_t n, const char* name, uint8_t** out, size_t* out_n, uint32_t* count,
                           skc_err* err);

struct aiScene;
/* fbx_shapes_write.c: binary FBX in[0, n) that Assimp wrote from sc with each mesh's anim meshes (sc's) added as blend
 * shapes: per mesh Geometry a BlendShape Deformer, per anim mesh a BlendShapeChannel (DeformPercent = mWeight x 100)
 * and a Shape Geometry (Indexes, Vertices and Normals: offsets of the control points it moves). Geometries are matched
 * to sc's meshes in order and each aiMesh vertex to the control point of its position; a mesh that does not match, or
 * whose Geometry has a BlendShape already, gets none. The shape key animation of sc's aiAnimations
 * (mMorphMeshChannels: mName = the aiMesh's index in decimal, mValues = anim mesh indices, mWeights 1 = the full shape,
 * mTime in ticks of mTicksPerSecond) is added to the channels made: per animated shape a DeformPercent
 * AnimationCurveNode and AnimationCurve as Blender 3.4 writes them, in the AnimationLayer of the a-th AnimationStack
 * for animation a (Assimp writes one stack per aiAnimation, in order), whose LocalStop / ReferenceStop are raised to
 * its last shape key. *out is malloc'd (*out_n bytes); *added (may be NULL) the shapes added. SKC_FORMAT when the file
 * does not parse. */
int skio_fbx_add_blend_shapes(const uint8_t* in, size_t n, const struct aiScene* sc, uint8_t** out, size_t* out_n,
                              uint32_t* added, skc_err* err);
struct skio_user_prop;
/* fbx_user_props_write.c: binary FBX in[0, n) with the custom properties props[0, count) (skio_scene.user_props) added
 * to the records of class cls ("Model", "Material", "Geometry") named as their nodes, as user properties ("P" records
 * with flags "A+U", Blender's layout); a name a Model has already is left alone. *out is malloc'd (*out_n bytes);
 * *added (may be NULL) the records added. SKC_FORMAT when the file does not parse. */
int skio_fbx_add_user_props(const uint8_t* in, size_t n, const char* cls, const struct skio_user_prop* props,
                            uint32_t count, uint8_t** out, size_t* out_n, uint32_t* added, skc_err* err);
/* fbx_user_props_write.c: binary FBX in[0, n) written by Assimp's writer with its k-th Geometry of class Mesh named
 * names[k] (Assimp's writer leaves them unnamed, so a mesh's name - Blender's mesh data name - was lost); a named
 * one is left alone. *out malloc'd (*out_n bytes). SKC_FORMAT when the file does not parse. */
int skio_fbx_name_geometries(const uint8_t* in, size_t n, const char* const* names, uint32_t count, uint8_t** out,
                             size_t* out_n, skc_err* err);
/* What Assimp's FBX writer leaves out of a material: its emissive colour and the UV set of its DiffuseColor,
 * NormalMap and EmissiveColor textures; its name finds its record. */
typedef struct skio_fbx_material_fix {
  const char* name;
  float emissive[3];
  uint32_t uv[3];
  float normal_scale; /* the normal image's strength (1: none written, the template's) */
} skio_fbx_material_fix;
/* fbx_materials_write.c: binary FBX in[0, n) written by Assimp's writer with material k's record (k < count: the
 * first Material record named mats[k].name after material k - 1's) given mats[k]'s EmissiveColor (when not black),
 * SpecularFactor 0.25 (Blender's layout) and BumpFactor (its normal_scale, when not 1), and, when a texture reads a UV
 * set past the first, every unnamed LayerElementUV k named as Blender names UV map k ("UVMap", "UVMap.001", ...) and
 * that texture a UVSet naming its set (the FBX SDK and Assimp's reader find a texture's set by that name). *out
 * malloc'd (*out_n bytes). SKC_FORMAT when the file does not parse. */
int skio_fbx_fix_materials(const uint8_t* in, size_t n, const skio_fbx_material_fix* mats, uint32_t count,
                           uint8_t** out, size_t* out_n, skc_err* err);
struct skio_object;
/* fbx_lenses_write.c: binary FBX in[0, n) with each camera and light of obs[0, count) (named as its node, listed in
 * glTF's units: skio_scene_list_objects) made a Camera or Light Model with its NodeAttribute; empties and names with
 * no Null Model are skipped. unit_metres: the file's unit (an orthographic camera's OrthoZoom is in metres). *out is
 * malloc'd (*out_n bytes); *added (may be NULL) the cameras and lights made. SKC_FORMAT when the file does not
 * parse. */
int skio_fbx_add_lenses(const uint8_t* in, size_t n, const struct skio_object* obs, uint32_t count, double unit_metres,
                        uint8_t** out, size_t* out_n, uint32_t* added, skc_err* err);

struct tm;
/* write_stamp.c: SOURCE_DATE_EPOCH (seconds since 1970 UTC, the reproducible-builds convention) as a UTC time in
 * *out; false when it is unset or not such a count up to the year 9999. */
bool skio_source_date(struct tm* out);

/* write_stamp.c: the FBXHeaderExtension/CreationTimeStamp of binary FBX data[0, n) (Year .. Millisecond) set to
 * `when`, in place; fields the file lacks are left alone. SKC_FORMAT when the file does not parse. */
int skio_fbx_stamp(uint8_t* data, size_t n, const struct tm* when, skc_err* err);

#endif
