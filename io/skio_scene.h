/* skio_scene.h - the owning scene object of the io layer: meshes, one skeleton, per-mesh skins and inverse
 * binds, animations. Built by skio_scene_import (scene_import.c), written by skio_scene_export
 * (scene_export.c), checked by skio_scene_validate (scene_validate.c), sampled by skio_anim_sample
 * (scene_anim.c). Freed by skio_scene_destroy (scene.c).
 *
 * Matrix convention: every matrix here is 16 floats, column-major (m[col * 4 + row]) like the rest of skinkit.
 * Assimp's aiMatrix4x4 is row-major (a1..a4 is the first row, a4 the x translation), so
 * skio_mat_from_ai / skio_mat_to_ai transpose on the way in and out. Quaternions are x, y, z, w here and
 * w, x, y, z in Assimp's aiQuaternion.
 */
#ifndef SKIO_SCENE_H
#define SKIO_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_math.h"
#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skc_status.h"

typedef struct skio_mesh {
  char* name;             /* never NULL ("mesh<i>" if the file has none) */
  /* The node (object) that instances the mesh in the source file: its name (NULL when unnamed or unknown), and a
   * group id shared by the meshes one node instances (an object Assimp split by material, the primitives of a glTF
   * mesh), -1 when unknown. The writers name the mesh's node after it and put a group under one node. */
  char* node_name;
  int32_t node_group;
  size_t vertex_count;
  float* positions;       /* 3 * vertex_count */
  float* normals;         /* 3 * vertex_count or NULL */
  float* tangents;        /* 4 * vertex_count (x, y, z, bitangent sign) or NULL */
  float* uv0;             /* 2 * vertex_count or NULL */
  float* uv1;             /* 2 * vertex_count or NULL: the second texture coordinate set (lightmaps), as uv0 */
  float* colors;          /* 4 * vertex_count or NULL: the first vertex colour set, RGBA, linear (glTF's COLOR_0;
                             the formats read through Assimp store sRGB values, converted on the way in and out) */
  uint32_t* indices;      /* index_count (triangles only; points/lines of mixed meshes are not kept) */
  size_t index_count;
  uint32_t material;      /* material index in the file (informational) */
  /* Skin: NULL when the mesh has no bones. Joint indices are skeleton joint indices. Entries are kept as in
   * the file: duplicates, zero, negative and unnormalized weights survive; validate reports them. */
  skc_skin* skin;
  uint32_t bone_count;    /* aiBones in this mesh */
  float* inverse_bind;    /* 16 * skeleton joint_count when skin != NULL: the mesh's aiBone offset matrix for
                             joints it binds, the skeleton's inverse bind for the others */
  uint8_t* bound;         /* joint_count flags when skin != NULL: 1 = this mesh has an aiBone for the joint */
  /* A Collada source's skin as read (a copy, owned), or NULL: the weights as Assimp parsed the file's text, which
   * its parser does not round correctly (a weight written "8.01983e-4" reads a float step away from strtof's
   * reading), so that the in-place edit knows which of the file's weights an edit left as they were. */
  skc_skin* read_skin;
  size_t dropped_weights; /* (bone, vertex) entries whose vertex id was out of range (not representable) */
  /* Origin in a glTF read by skinkit's own reader (io/gltf_import.c); meaningful only when the scene's gltf
   * document is set: the glTF mesh, its primitive, and the node that instances it (-1 when none). */
  int32_t gltf_mesh, gltf_primitive, gltf_node;
  int32_t gltf_scene; /* the "scenes" entry whose node tree holds gltf_node (the default scene first), -1: none */
  /* Set by skio_mesh_place (the glTF reader places every primitive without a skin; Assimp's path every mesh
   * without bones): the joint it bound the mesh to with weight 1 (a rigid attachment in the file), or -1. The glTF
   * in-place editor leaves such a primitive as its file has it while the skin is still that one-joint skin. */
  int32_t rigid_joint;
  /* Set by the readers beside skio_mesh_place for a mesh that is no rigid attachment: the nearest joint its node
   * hangs below (a prop parented to the armature object, which is a joint only as the bones' ancestor), or -1.
   * The glTF writer makes the mesh's node a child of that joint's node (its vertices stay where they are placed),
   * so the prop follows the object's animation and reads back parented as in the source. -1 once a skin is set. */
  int32_t parent_joint;
  /* Set by skio_mesh_place too: the transform it applied to the file's vertices (the node's world transform, into
   * bind space), placed_set false when none was applied (identity). The glTF editor's new skins use it, and the
   * writers give the mesh's node that transform back (skio_mesh_node_space); a view that moves the vertices moves
   * it too (scene_frame.c). */
  float placed[16];
  bool placed_set;
  /* A skinned mesh of an FBX file: the world transform of its node at import, the space Assimp's FBX reader made its
   * inverse binds relative to (offset = TransformLink^-1 x this), so bind_world x IB(j)^-1 is the bind pose the file
   * declares for joint j (its cluster's TransformLink) even when the file's rest pose is another (a scene saved in an
   * animated frame). A skinned mesh of a glTF file whose rest pose is not its bind pose up to one transform
   * (skio_mesh_rest_is_bind): the world transform of its skin's armature node, the space Blender's glTF importer
   * takes the inverse binds relative to (gltf_import.c). A skinned mesh of a Collada file whose rest pose is not its
   * bind pose up to one transform: the root node's transform times the skin's bind shape matrix (Blender's files: P x
   * BSM, scene_import.c skin_place), since Assimp's offsets are IB x that with IB in the document's world
   * (scene_import.c collada_bind_world). bind_world_set false otherwise. See skio_mesh_bind_to_world. */
  float bind_world[16];
  bool bind_world_set;
  /* Set only in the FBX writer's view (skio_scene_held_root_view, scene_frame.c) for a skinned mesh: the transform of
   * its Model, its object's place and own axes as Blender's FBX importer shows them, which its vertices and bone
   * offsets are then written relative to (scene_export.c). skin_node_set false: its Model at the identity. */
  float skin_node[16];
  bool skin_node_set;
  /* Parts: glTF primitives of one mesh that draw this vertex set (the same attribute accessors: three.js's exporter
   * writes a multi-material mesh so) with their own indices and material, merged by the glTF reader so that
   * binding, smoothing and counting see one surface. part_count 0 (parts NULL): one part, the whole mesh. Else
   * parts[0] is the mesh's own primitive and material, indices holds the parts' index lists one after another,
   * and the writers take each part as its own mesh (skio_scene_split_parts). */
  uint32_t part_count;
  struct skio_mesh_part* parts;
  /* Blend shapes (FBX shape keys, Collada morphs: Assimp's anim meshes of this mesh's vertex count): morph_count
   * targets, each with a name (never NULL), its default weight, its positions (3 * vertex_count: whole positions,
   * not offsets, in the mesh's space like positions) and normals (likewise, or NULL when the mesh or a target has
   * none). glTF's writer writes them as morph targets (offsets), binary FBX as blend shapes (fbx_shapes_write.c);
   * Collada and ASCII FBX cannot (their note says so). */
  uint32_t morph_count;
  char** morph_names;
  float* morph_weights;
  float* morph_positions;
  float* morph_normals;
  /* Clips that key the blend shapes' weights (glTF "weights" channels, FBX DeformPercent curves as Assimp reads them):
   * at most one entry per clip, owned by the mesh (a parts view shares them). The glTF writer writes them as "weights"
   * channels of the mesh's node, binary FBX as DeformPercent curves (fbx_shapes_write.c); dropped with the targets
   * when these are replaced by other ones (skio_mesh_set_morphs). */
  uint32_t morph_key_count;
  struct skio_morph_keys* morph_keys;
} skio_mesh;

/* The keys of one clip for one mesh's blend shapes: key_count keys at time[k] (seconds, ascending), each with the
 * weight of every target (weights[k * morph_count + t], 1 = the whole shape), linear between keys and held before
 * the first and after the last. */
typedef struct skio_morph_keys {
  uint32_t anim; /* the clip (skio_scene.anims) */
  uint32_t key_count;
  double* time;
  float* weights;
} skio_morph_keys;

typedef struct skio_mesh_part {
  char* name;                 /* the primitive's mesh name as the reader gives it ("Body-1") */
  size_t index_start, index_count; /* its range of skio_mesh.indices */
  uint32_t material;          /* as skio_mesh.material */
  int32_t gltf_primitive;     /* the primitive in skio_mesh.gltf_mesh */
} skio_mesh_part;

typedef struct skio_channel {
  uint32_t joint;                 /* skeleton joint */
  uint32_t pos_count, rot_count, scl_count;
  double *pos_time, *rot_time, *scl_time; /* seconds, ascending as in the file */
  float *pos, *rot, *scl;         /* 3, 4 (x, y, z, w), 3 floats per key */
  /* The signs of the node's rest scale as its file splits the rest (the split rotation-only keys join):
   * SKIO_REST_SIGNS_KNOWN | bit i for a negative component i; 0 = not known (skio_rest_trs_keyed then infers it). */
  uint8_t rest_signs;
} skio_channel;
enum { SKIO_REST_SIGNS_KNOWN = 8 };

/* Keys of an object (skio_scene.objects) in a clip, local to the object's file parent (skio_object.parent_rest). */
typedef struct skio_object_channel {
  uint32_t anim;
  skio_channel ch; /* ch.joint: the object */
} skio_object_channel;

typedef struct skio_anim {
  char* name;             /* never NULL ("anim<i>" if unnamed) */
  double duration;        /* seconds */
  double ticks_per_second;/* as found in the file (0 = unspecified, 25 assumed as Assimp does) */
  uint32_t channel_count; /* channels targeting skeleton joints; others are dropped */
  skio_channel* channels;
} skio_anim;

/* Identity of a source file (skio_source_identify). */
enum { SKIO_SOURCE_FBX = 1, SKIO_SOURCE_COLLADA = 2 };
typedef struct skio_source_id {
  bool set;
  int kind; /* SKIO_SOURCE_FBX (binary FBX, or an .fbx of ASCII FBX text) or SKIO_SOURCE_COLLADA */
  uint64_t size, dev, ino;
  int64_t mtime_ns;
  uint64_t scene; /* skio_scene_fingerprint of the scene as read */
} skio_source_id;

/* A scene's coordinate frame: the unit and axes its file declares, which the numbers in the scene keep. Only an FBX
 * source has one (its GlobalSettings: UnitScaleFactor, centimetres per unit, 1 in Blender's and Maya's files; the
 * up, front and coord axes with signs); every other reader gives glTF's frame - metres, +Y up, +Z front, +X right -
 * (Assimp turns Collada's <unit> and <up_axis> into its root node, which is a joint of the scene). Axes are signed
 * axis numbers: 1 = +X, -1 = -X, 2 = +Y, 3 = +Z, ... (scene_frame.c). */
typedef struct skio_frame {
  bool set;        /* false: glTF's frame (the fields below then mean nothing) */
  double unit_cm;  /* centimetres per unit (> 0) */
  int8_t up, front, coord;
} skio_frame;

/* A camera, punctual light or empty node of the file outside the skeleton and the meshes (scene_objects.c): a level's
 * or a shot's locators, markers, cameras and lights around a character. Read on the Assimp path; the glTF writer
 * writes them as nodes (cameras, KHR_lights_punctual), the in-place FBX and Collada edits keep the file's own, and
 * the other writers name them as not written. */
enum { SKIO_OBJECT_EMPTY = 0, SKIO_OBJECT_CAMERA = 1, SKIO_OBJECT_LIGHT = 2 };
enum { SKIO_LIGHT_DIRECTIONAL = 0, SKIO_LIGHT_POINT = 1, SKIO_LIGHT_SPOT = 2 };
typedef struct skio_object {
  char* name;
  int32_t parent;     /* the object it hangs from (a lower index), or -1 */
  char* parent_joint; /* with parent -1: the joint it hangs from (the nearest joint above its node), NULL: none */
  char* parent_mesh;  /* with neither: the node drawing a mesh it hangs from (nearer than any object or joint above
                         it: an attachment point parented to the character's mesh object), NULL: none */
  float world[16];    /* in the scene's frame; a camera's and a light's own axes as glTF's: -Z forward, +Y up */
  float look[16];     /* world = (the node's world) look: a camera's or light's frame in its node, else identity */
  float parent_rest[16]; /* the world transform of the file node it hangs from, at rest (its clip keys are local
                            to that node), in the scene's frame */
  uint8_t kind;       /* SKIO_OBJECT_* */
  uint8_t light;      /* SKIO_LIGHT_* */
  /* camera: vertical field of view (radians), width / height (0: not given), clip planes in scene units; an
   * orthographic one (ortho 1) its half width and height (xmag, ymag, scene units) instead of yfov */
  float yfov, aspect, znear, zfar;
  uint8_t ortho;
  float xmag, ymag;
  /* light: colour (largest component 1), intensity (the source's units: Blender's W for point and spot lights,
   * W/m^2 for a sun), spot cone half-angles (radians) */
  float color[3], intensity, inner_cone, outer_cone;
} skio_object;

/* A custom property of a node (skio_scene.user_props): an FBX Model's user property (fbx_user_props.c: Blender's
 * custom properties, Maya's extra attributes): its node's name, its name, and its value - an integer, a bool or a
 * number in v[0], three numbers in v (a vector or colour), or text. */
enum { SKIO_PROP_INT = 1, SKIO_PROP_BOOL, SKIO_PROP_NUMBER, SKIO_PROP_STRING, SKIO_PROP_VEC3 };
typedef struct skio_user_prop {
  char* node;
  char* key;
  uint8_t kind; /* SKIO_PROP_* */
  double v[3];
  char* text; /* SKIO_PROP_STRING */
} skio_user_prop;
void skio_user_props_free(skio_user_prop* list, uint32_t count);
/* props[0, count) sorted by node, then name (file order within): a new array of pointers (NULL when there are none
 * or memory is short); the first of them whose node is node[0, len) (count when none; names compared as bytes); and
 * whether u is of that node. */
const skio_user_prop** skio_user_props_sorted(const skio_user_prop* props, uint32_t count);
uint32_t skio_user_props_first(const skio_user_prop* const* sorted, uint32_t count, const char* node, size_t len);
bool skio_user_prop_of(const skio_user_prop* u, const char* node, size_t len);
/* A custom property of node `node` appended to s->user_props (copied; ABI sk_scene_add_prop's rules); sets
 * props_changed. SKC_INVALID_ARGUMENT, SKC_OUT_OF_MEMORY. */
struct skio_scene;
int skio_scene_add_user_prop(struct skio_scene* s, const char* node, const char* key, int kind, const double* v,
                             const char* text, skc_err* err);
/* The same for material `material` (by name: skio_scene.material_props). */
int skio_scene_add_material_prop(struct skio_scene* s, const char* material, const char* key, int kind, const double* v,
                                 const char* text, skc_err* err);
/* The same for mesh `mesh` (by the mesh's name, skio_mesh.name: skio_scene.mesh_props). */
int skio_scene_add_mesh_prop(struct skio_scene* s, const char* mesh, const char* key, int kind, const double* v,
                             const char* text, skc_err* err);

typedef struct skio_scene {
  char* source;           /* path it was loaded from, or "" */
  uint32_t mesh_count;
  skio_mesh* meshes;
  skc_skeleton* skeleton; /* NULL when no mesh has bones */
  uint32_t anim_count;
  skio_anim* anims;
  unsigned int import_flags; /* Assimp post-processing flags used */
  double load_seconds;
  struct skio_gltf_doc* gltf; /* the source document when read by skinkit's glTF reader (owned), else NULL: the
                             glTF writer then edits that document in place instead of writing a new one */
  int32_t* joint_node;    /* gltf: skeleton joint -> glTF node index (joint_count entries), else NULL */
  uint8_t* joint_mesh;    /* a skeleton read with skeleton_from_nodes on the Assimp path: 1 per joint whose node
                             carries a mesh (an ancestor of the bones; never a deform joint); with animated_nodes in
                             a file with bones (both readers), the nodes a clip keys that carry or hold unskinned
                             meshes, made joints so that the clip keeps their motion; else NULL */
  char* no_skin_reason;   /* why a file that should have bones has none, or NULL (an Ogre .mesh whose .skeleton
                             is not beside it: Assimp then loads the mesh without bones and says nothing) */
  /* The nodes the file declares bones, sorted (skio_names_have): a binary FBX file's LimbNode / Limb Models;
   * bone_names_known false for other files. The glTF writer keeps such a node out of its armature-object chain
   * (io/gltf_write.c armature_chain): Blender's FBX importer makes it a bone. */
  char** bone_names;
  uint32_t bone_name_count;
  bool bone_names_known;
  bool no_bones;          /* a binary FBX file with no skin and no bone (no LimbNode / Limb Model): its nodes are
                             empties (an animated machine), so the glTF writer makes no skin of them */
  /* Materials and images (scene_material.c), read on the Assimp path; skio_mesh.material indexes materials
   * (UINT32_MAX or any index >= material_count: none); the glTF reader fills them from the document
   * (gltf_import_material.c), the IQM reader from its meshes' material names (iqm.c). Empty for the other
   * readers. */
  uint32_t material_count;
  struct skio_material* materials;
  uint32_t image_count;
  struct skio_image* images;
  bool materials_changed; /* a material, image or mesh material set after reading (skio_scene_add_material) */
  bool shapes_changed;    /* a mesh's blend shapes set after reading (skio_mesh_set_morphs) */
  /* Blocks the ABI handed out as borrowed (valid until the scene is destroyed) that an edit replaced: freed with the
   * scene (skio_scene_retire), not when replaced. */
  void** retired;
  uint32_t retired_count, retired_capacity;
  char* material_note;    /* what of the source could not be read (materials, images, blend shapes; one line of
                             "; "-separated notes), or NULL */
  /* An FBX (binary or ASCII) or a Collada file read through Assimp: the file as it was when read (size, modification
   * time, device, inode) and the meshes Assimp gave, so that writing .fbx / .dae can edit that file's skins in place
   * (io/scene_fbx_edit.c, io/scene_dae_edit.c) while it is still the same file and the scene still has those
   * meshes. source_file.set false for every other source. */
  skio_source_id source_file;
  uint32_t import_mesh_count;
  skio_frame frame;       /* the unit and axes of an FBX source (set = false: glTF's frame) */
  /* an FBX source written by neither Blender nor Assimp (skinkit's FBX writer): Maya, 3ds Max and MotionBuilder
   * write an object's data in the file's own axes, where Blender's exporter leaves it in Blender's Z-up ones and
   * turns the node only (skio_scene_zup_objects); its object nodes are written as they are (skio_scene_read_frame) */
  bool foreign_objects;
  uint32_t object_count;  /* cameras, lights and empty nodes (skio_object), in preorder (parents first) */
  skio_object* objects;
  uint32_t object_channel_count; /* clip keys of objects: channel.joint is the object, anim the clip */
  struct skio_object_channel* object_channels;
  /* Custom properties of the file's nodes (a binary FBX's Model user properties), by node name: the glTF writer
   * gives them as each node's "extras"; the in-place FBX edit keeps the file's own; other writers name them. */
  uint32_t user_prop_count;
  skio_user_prop* user_props;
  bool props_changed; /* a custom property added after reading (skio_scene_add_user_prop) */
  /* Custom properties of the materials (a binary FBX's Material user properties, a glTF's material extras), by
   * material name (skio_user_prop.node): the glTF writer's material "extras", the binary FBX writer's Material user
   * properties. */
  uint32_t material_prop_count;
  skio_user_prop* material_props;
  /* ... and of the meshes (an FBX Geometry's user properties, a glTF mesh's extras: Blender's mesh data custom
   * properties), by mesh name (skio_mesh.name). */
  uint32_t mesh_prop_count;
  skio_user_prop* mesh_props;
} skio_scene;

typedef struct skio_import_options {
  bool validate_structure;    /* run aiProcess_ValidateDataStructure (fails on e.g. B3D key past duration) */
  bool join_vertices;         /* also run aiProcess_JoinIdenticalVertices (slow on huge meshes) */
  bool isolate;               /* read the file once in a child process first (crash / hang protection) */
  double timeout_seconds;     /* with isolate: give up after this long (0 = no limit) */
  uint32_t max_memory_mb;     /* with isolate: address-space growth allowed to the child, MiB (0 = no limit) */
  bool skeleton_from_nodes;   /* a file whose meshes reference no bone (an armature beside the unweighted mesh it is
                                 meant to deform): the skeleton is the nodes that can be bones - no mesh, camera or
                                 light at or below them - and their ancestors; without it such a file has none */
  bool animated_nodes;        /* with skeleton_from_nodes: also every node a clip animates, and its ancestors, so
                                 that meshes under them (a machine animated without skins) keep their motion: the
                                 glTF writer hangs their nodes under those joints (skio_mesh.parent_joint); in a file
                                 with skins, each keyed node with an unskinned mesh at or below it (joint_mesh) */
} skio_import_options;

/* Post-processing always used: aiProcess_Triangulate only. No JoinIdenticalVertices (slow on huge meshes; it
 * can be asked for with join_vertices), nothing that touches weights (no LimitBoneWeights, no Debone), no
 * ValidateDataStructure unless asked. FBX pivots are collapsed (AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS = 0)
 * so no $AssimpFbx$ helper nodes enter the skeleton; empty bones are kept
 * (AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES = 0) so validate can report them; FBX curves equal to the rest value are
 * kept (AI_CONFIG_IMPORT_FBX_OPTIMIZE_EMPTY_ANIMATION_CURVES = 0) so a clip holding the rest pose is not dropped. */
#define SKIO_IMPORT_FLAGS_BASE 0x8u /* aiProcess_Triangulate */

/* Loads any file Assimp reads. Errors: SKC_IO (missing/unreadable), SKC_FORMAT (Assimp refused it: the
 * message has the file name and Assimp's error string), SKC_NO_SKIN is NOT returned here (a scene without
 * bones loads with skeleton == NULL; use skio_scene_require_skin). */
int skio_scene_import(const char* path, const skio_import_options* opts, skio_scene** out, skc_err* err);
void skio_scene_destroy(skio_scene* s);
/* Keeps p (malloc'ed) until s is destroyed: a block replaced by an edit that callers may still hold (a blend shape's
 * name from sk_scene_mesh_morph_name). Out of memory, p is left allocated (lost rather than freed under a reader). */
void skio_scene_retire(skio_scene* s, void* p);
/* Frees what one mesh / one animation owns (not the struct itself). */
void skio_mesh_free(skio_mesh* m);
/* The mesh's blend shape keys (skio_mesh.morph_keys): freed; those of clip anim (NULL: none, or no keys); keys
 * key_count keys of time[k] and weights[k * morph_count + t] copied in as clip anim's (nothing when the mesh has no
 * targets, no keys are given or the clip has keys already). SKC_OUT_OF_MEMORY is add's only failure. */
void skio_mesh_free_morph_keys(skio_mesh* m);
const skio_morph_keys* skio_mesh_morph_keys_of(const skio_mesh* m, uint32_t anim);
int skio_mesh_add_morph_keys(skio_mesh* m, uint32_t anim, const double* time, const float* weights, size_t keys);
/* A view of s for the writers: every mesh of several parts (skio_mesh.parts) becomes one mesh per part, which
 * shares the merged mesh's vertex data and skin and has the part's indices, material, primitive and name; other
 * meshes are copied as they are. Everything is borrowed from s: release with skio_scene_parts_view_free only
 * (it frees the mesh array), and do not use the view past s. When no mesh has parts, *view is *s with
 * view->meshes == s->meshes and freeing it does nothing. SKC_OUT_OF_MEMORY is the only failure. */
int skio_scene_split_parts(const skio_scene* s, skio_scene* view, skc_err* err);
/* Merges each mesh's vertices that are identical in every stream the scene keeps (position, normal, tangent, texture
 * coordinates, colour, blend shapes' positions and normals, the skin's and the read skin's rows), bit for bit, keeping
 * the first of each in order and renumbering the indices (scene_weld.c): the corners Assimp's FBX / Collada / .X /
 * OBJ readers give a vertex each become the file's shared vertices again. Meshes read by skinkit's glTF reader (the
 * file's own vertex list) and meshes of several parts are left as they are. *merged (optional): vertices removed.
 * SKC_OUT_OF_MEMORY (the mesh it names unchanged) is the only failure. */
int skio_scene_weld(skio_scene* s, size_t* merged, skc_err* err);
void skio_scene_parts_view_free(const skio_scene* s, skio_scene* view);
/* A view of s without its skeleton's root joint 0 (scene_rootless.c): joints, skins, per-joint mesh arrays and clip
 * channels one index lower, the root's children at their world place, channels on the root dropped; mesh and key
 * data borrowed from s. Meant for a root no mesh weights (Assimp's FBX "RootNode"); an entry on it is written at
 * weight 0. Release with skio_scene_drop_root_free. SKC_INVALID_ARGUMENT without a root to drop. */
int skio_scene_drop_root(const skio_scene* s, skio_scene* view, skc_err* err);
void skio_scene_drop_root_free(const skio_scene* s, skio_scene* view);
/* Gives s the skeleton `linked` (copied), which holds every joint of s's skeleton by name plus new ones (bone links),
 * keeping meshes, materials, blend shapes and clips (scene_relink.c): skins, per-joint arrays and channels renumbered,
 * new joints without weight or channel (their inverse binds the new skeleton's, in each mesh's bind frame), and the
 * clip keys of a joint whose parent changed re-expressed under the new parent so that every posed world transform is
 * kept (the joints in between are unanimated). SKC_INVALID_ARGUMENT when a joint is missing (s unchanged),
 * SKC_NO_SKIN without skeleton, SKC_OUT_OF_MEMORY (s unchanged). */
int skio_scene_relink(skio_scene* s, const skc_skeleton* linked, skc_err* err);
void skio_anim_free(skio_anim* a);
void skio_channel_free(skio_channel* ch); /* its key arrays */
/* SKC_NO_SKIN with a message naming the file (and no_skin_reason when set) when no mesh has a skin. */
int skio_scene_require_skin(const skio_scene* s, skc_err* err);

/* Building a scene in memory (scene_build.c). The skeleton is copied (NULL: a scene without bones). */
typedef struct skio_mesh_init {
  const char* name;           /* NULL or "" = "mesh<i>" */
  size_t vertex_count;
  const float* positions;     /* 3 * vertex_count, required */
  const float* normals;       /* optional, 3 * vertex_count */
  const float* tangents;      /* optional, 4 * vertex_count */
  const float* uv0;           /* optional, 2 * vertex_count */
  const uint32_t* indices;    /* index_count, triangles */
  size_t index_count;
  const skc_skin* skin;       /* optional (copied); joint_count must equal the skeleton's */
  const float* inverse_bind;  /* optional, 16 * joint_count; NULL = the skeleton's */
  const float* uv1;           /* optional, 2 * vertex_count */
  const float* colors;        /* optional, 4 * vertex_count, linear RGBA */
} skio_mesh_init;
int skio_scene_create(const skc_skeleton* skeleton, skio_scene** out, skc_err* err);
/* Sets mesh m's node name (copied; "" = none) and its group: that of an earlier mesh with the same node name, else
 * its own index (the scan stops at 4096 meshes: later ones stay alone). */
int skio_mesh_set_node(skio_scene* s, uint32_t m, const char* node_name, skc_err* err);
/* Gives mesh m a copy of skin (its vertex count, the skeleton's joint count) with inverse_bind (16 per joint; NULL:
 * the skeleton's), replacing the skin it had; it is no rigid attachment any more. Nothing changes on failure. */
int skio_mesh_set_skin(skio_scene* s, uint32_t m, const skc_skin* skin, const float* inverse_bind, skc_err* err);
/* Bind pose of an imported skeleton. skio_bind_take records joint j's inverse bind matrix `ibm` (and its inverse
 * as the bind matrix) unless j already has one or `ibm` is not finite and invertible; false when it was not taken.
 * skio_bind_fill_rest gives every joint still without one its rest world matrix (world: 16 * jc) as bind. */
bool skio_bind_take(uint32_t j, const float ibm[16], float* bind, float* ibind, uint8_t* have);
void skio_bind_fill_rest(uint32_t jc, const float* world, const uint8_t* have, float* bind, float* ibind);
int skio_scene_add_mesh(skio_scene* s, const skio_mesh_init* mesh, uint32_t* out_index, skc_err* err);
/* Replaces mesh m's blend shapes with count new ones (0: none): names (NULL or an empty name: "shape<t>"), default
 * weights (NULL: 0), whole positions (3 per vertex each, the mesh's space) and optional normals, all copied; sets
 * shapes_changed. Nothing changes on failure. */
#define SKIO_MAX_MORPHS 4096u
int skio_mesh_set_morphs(skio_scene* s, uint32_t m, uint32_t count, const char* const* names, const float* weights,
                         const float* positions, const float* normals, skc_err* err);
/* Mesh m's blend shape keys in clip anim replaced (ABI sk_scene_mesh_set_morph_keys: keys 0 removes them): times
 * finite and strictly ascending, keys * morph_count finite weights, copied. Sets shapes_changed. SKC_OUT_OF_RANGE,
 * SKC_INVALID_ARGUMENT, SKC_OUT_OF_MEMORY; nothing changes on failure. */
int skio_mesh_set_morph_keys(skio_scene* s, uint32_t m, uint32_t anim, size_t keys, const double* times,
                             const float* weights, skc_err* err);

/* Pose of animation a at time t (seconds, clamped to the keys) as joint_count skc_trs. Joints without a
 * channel (or a channel lacking a component) keep the rest component. Positions and scales: linear
 * interpolation; rotations: shortest-arc slerp. */
int skio_anim_sample(const skio_scene* s, uint32_t anim, double t, skc_trs* out_pose, skc_err* err);
/* Every time animation `anim` has a joint key at (finite ones, ascending; times of different channels less than
 * SKIO_KEY_TIME_MERGE seconds apart taken once): *out malloc'ed (caller frees), NULL with *count 0 when it has none.
 * SKC_OUT_OF_RANGE, SKC_OUT_OF_MEMORY. */
#define SKIO_KEY_TIME_MERGE 1e-6
int skio_anim_key_times(const skio_scene* s, uint32_t anim, double** out, size_t* count, skc_err* err);
/* The same for object `object`'s keys in the clip (skio_scene.object_channels; none for an object it does not key). */
int skio_object_key_times(const skio_scene* s, uint32_t anim, uint32_t object, double** out, size_t* count,
                          skc_err* err);
/* Object `object`'s transform relative to its file parent's rest world (skio_object.parent_rest) at time t of clip
 * anim: its keys (components it lacks from its rest transform) times its look; out untouched when the clip does not
 * key it. SKC_OUT_OF_RANGE (anim), SKC_INVALID_ARGUMENT (t not finite). */
int skio_object_sample(const skio_scene* s, uint32_t anim, uint32_t object, double t, float out[16], skc_err* err);
/* Rest local transform m as the TRS channel ch's keys complete (skc_mat4_to_trs's, tol likewise): the sign pattern
 * of the scale (a mirror on another axis than x, two negative components) of ch's first scale key, or where ch keys
 * rotation only, the file's (ch->rest_signs) where known, else the one whose rotation a key holds (a mirror: else the
 * one nearest its keys; a positive scale stays unless a key holds the half-turned rotation and none the rest's). ch
 * NULL: skc_mat4_to_trs's. */
bool skio_rest_trs_keyed(const float m[16], const skio_channel* ch, skc_trs* out, float tol);
/* The same for joint j of scene s, with the first channel of any clip that keys j's rotation or scale but not both. */
bool skio_joint_rest_trs(const skio_scene* s, uint32_t j, skc_trs* out, float tol);
/* One channel's keys at time t (clamped to its keys) into p: the components it keys; the others kept. */
void skio_channel_sample(const skio_channel* ch, double t, skc_trs* p);
/* Object `object`'s channel in clip anim (skio_scene.object_channels), or NULL when the clip does not key it. */
const skio_channel* skio_object_channel_of(const skio_scene* s, uint32_t anim, uint32_t object);
/* The key times of every track of ch into times (room for all its keys + 1), sorted, distinct and finite; a channel
 * without keys gets time 0. Returns the count. */
size_t skio_channel_key_times(const skio_channel* ch, double* times);

/* ---- the aiScene the Assimp writers get (scene_export.c, scene_export_objects.c) ---- */
struct aiNode;
struct aiNodeAnim;
struct aiAnimation;
/* A node named name (identity transform, parent set, not yet a child: skio_ai_add_child), NULL when out of memory. */
struct aiNode* skio_ai_new_node(const char* name, struct aiNode* parent);
bool skio_ai_add_child(struct aiNode* p, struct aiNode* c);
/* Key k of na (its three key arrays) at time t: p's translation, rotation and scale. */
void skio_ai_put_key(struct aiNodeAnim* na, size_t k, double t, const skc_trs* p);
/* The empty nodes written (scene_export_objects.c): per listed object (skio_scene_list_objects) its node or NULL,
 * and the matrix taking its clip keys (local to its source parent) into its node's parent; the cameras and lights
 * left out. */
typedef struct skio_ai_objects {
  uint32_t count;
  struct aiNode** node;
  float* to_export; /* 16 per object */
  float* look;      /* 16 per object: its camera's or light's frame in its source node (identity: an empty) */
  uint32_t empties, cameras, lights; /* written empties; cameras and lights not written */
  uint32_t keys_dropped; /* keys skio_ai_object_channels could not write */
  /* lenses: the cameras and lights written (each named as its node), for aiScene.mCameras / mLights */
  struct aiCamera** cams;
  struct aiLight** lamps;
  float* lamp_blend; /* per lamp: its spot blend (1 - inner / outer cone), for Blender's <extra> (collada_lights.c) */
  float* cam_ortho;  /* per camera: xmag, ymag (0 0: perspective), for skio_collada_ortho_cameras */
  unsigned cam_count, lamp_count;
  /* SKIO_LENSES_FBX: the cameras and lights written as nodes (listed: glTF's units; name owned), for
   * skio_fbx_add_lenses */
  struct skio_object* lens_obs;
  uint32_t lens_count;
} skio_ai_objects;
/* What skio_ai_object_nodes writes of cameras and lights: none; Collada's (Assimp's writer: aiCamera / aiLight); FBX's
 * (nodes in FBX's frame for the kind, made cameras and lights by fbx_lenses_write.c after Assimp's writer). */
enum { SKIO_LENSES_NONE = 0, SKIO_LENSES_COLLADA = 1, SKIO_LENSES_FBX = 2 };
/* Adds the scene's empties under their parents below root (call after the joints' and meshes' nodes exist, before
 * the root's transform is set); doc_frame (or NULL): the turn of the view written, for a glTF document's objects,
 * which are listed in the document's frame; mesh_parents: an empty on a mesh hangs from the mesh's node (else from
 * the root, at its place); lenses (SKIO_LENSES_*): the cameras and lights too - Collada: Assimp's writer writes
 * out->cams and out->lamps (an orthographic one as a perspective camera: out->cam_ortho says which to fix); FBX:
 * every one, as a node in FBX's frame of its kind, listed in out->lens_obs for skio_fbx_add_lenses.
 * SKC_OUT_OF_MEMORY only. */
int skio_ai_object_nodes(const skio_scene* s, struct aiNode* root, const float* doc_frame, bool mesh_parents,
                         int lenses, skio_ai_objects* out, skc_err* err);
/* Appends to aa a channel per written empty that clip anim keys; keys that would need a shear count in *dropped. */
int skio_ai_object_channels(const skio_scene* s, uint32_t anim, const skio_ai_objects* o, struct aiAnimation* aa,
                            uint32_t* dropped, skc_err* err);
/* Collada: a channel per written empty that any clip keys on the one timeline build_timeline lays out (clips[a]: clip
 * a's place), the clips that do not key it holding its rest transform. */
struct skio_clip;
int skio_ai_object_timeline(const skio_scene* s, const skio_ai_objects* o, const struct skio_clip* clips,
                            struct aiAnimation* aa, uint32_t* dropped, skc_err* err);
void skio_ai_objects_free(skio_ai_objects* o);
/* v[0..n) sorted, finite and distinct in place; returns the count left (scene_export.c). */
size_t skio_sorted_unique_times(double* v, size_t n);

/* Places an unskinned mesh (scene_rigid.c): bakes its node's world transform `world` (column-major) into its
 * vertices, normals and tangents, and when `joint` >= 0 (the joint its node hangs below) binds every vertex to that
 * joint with weight 1, with an inverse bind in the scene's bind space, so a rigid attachment keeps its place and
 * follows its bone in every writer. A skinned mesh is left as it is. SKC_SINGULAR_MATRIX for a singular world or
 * rest transform. */
int skio_mesh_place(const skio_scene* s, skio_mesh* m, const float world[16], int32_t joint, skc_err* err);
/* Binds unskinned mesh m, already placed at rest, to joint `joint` with weight 1 (a new skin, inverse_bind and bound
 * that the caller frees; inverse bind: the joint's rest world inverted), as skio_mesh_place binds a rigid attachment.
 * SKC_SINGULAR_MATRIX for a singular rest transform, SKC_OUT_OF_MEMORY. */
int skio_mesh_bind_rigid(const skio_scene* s, skio_mesh* m, uint32_t joint, skc_err* err);
/* Moves mesh m's vertices, normals, tangents and blend shapes by M (normals by its inverse transpose; a mirroring M
 * flips the winding): what skio_mesh_place does with a node's world transform. SKC_SINGULAR_MATRIX when M is. */
int skio_mesh_transform(skio_mesh* m, const float M[16], skc_err* err);

/* The frame's transform into glTF's (scene_frame.c): G = s A, s = unit_cm / 100 metres per unit and A the rotation
 * taking the up axis to +Y and the front axis to +Z (the third axis follows by the right hand: a left-handed
 * declaration is read as the right-handed one with its up and front axes; the reader notes it). false, with g the
 * identity, when the frame is glTF's (unset, or metres with Y up and Z front). */
bool skio_frame_matrix(const skio_frame* f, float g[16]);
/* The frame a writer of a frame-declaring format (FBX) declares: the source's, or glTF's (100 cm, +Y up, +Z front,
 * +X coord) for a scene without one. */
skio_frame skio_scene_declared_frame(const skio_scene* s);
/* Sets s->frame from an FBX file's GlobalSettings as Assimp gives them (scene metadata); other sources leave it
 * unset. A unit that is no length or axes that are no axis system are noted (skio_scene_note) and read as FBX's
 * defaults. */
struct aiScene;
void skio_scene_read_frame(skio_scene* s, const struct aiScene* ai);
/* A view of s in glTF's frame, for the writers of formats read in one frame (glTF: metres, Y up; and Collada, which
 * Blender's importer reads without its <unit> by default): the root joints' rest transforms and their clip keys
 * premultiplied by G, every mesh without a skin (placed in the world) transformed by G; skinned meshes, inverse binds
 * and every other joint borrowed unchanged, so every skinned position becomes G times the source's. This view and
 * the two below also turn the object nodes' own axes for the target format (skio_scene_object_basis's p), this one
 * (glTF's) holding the armature object as the FBX view does when p is not the identity. view->frame is unset. When
 * skio_frame_matrix is false and nothing turns, *view is *s and freeing it does nothing. Release with
 * skio_scene_frame_view_free before s. SKC_OUT_OF_MEMORY is the only failure. */
int skio_scene_frame_view(const skio_scene* s, skio_scene* view, skc_err* err);
/* The same with post x G (post: a rotation times a uniform scale, or NULL) instead of G: the Collada writer's Z-up
 * view (Blender's Collada importer reads the numbers of a Z_UP document as they are). hold_root: when the skeleton
 * has one root, with joints below it, that no mesh binds or weights and no clip moves but for keys that hold its rest
 * (a Blender rig's armature object; skio_scene_armature_object_keyed_at_rest: Blender's FBX exporter keys it so), and
 * post x G x its rest transform M is a rotation times a uniform scale and not the identity, that root is held at the
 * identity, its clip keys written as the identity (same times), and M goes to its children's rest transforms and clip
 * keys instead: every other joint's world is as without it, and the root can be written as a plain node
 * (io/scene_export.c plain_roots). The chain below it (skio_scene_armature_chain_next: mover_rig's Rig under Mover)
 * is held with it, M the product of their rest transforms, given to the last one's children (session 75).
 * SKC_INVALID_ARGUMENT for a singular post. */
int skio_scene_frame_view_to(const skio_scene* s, const float post[16], bool hold_root, skio_scene* view, skc_err* err);
/* s in its own frame (view->frame is s->frame): the Assimp FBX writer's view. Its armature object (the one root
 * above joints that nothing binds, weights or moves but for keys that hold its rest) stands where it is with its own
 * axes turned as every object node's (skio_scene_object_basis: M p, its children's rest transforms and keys
 * premultiplied by p^-1, its keys M p); until session 75 an unkeyed one was held at the identity, which Blender's FBX
 * importer then turned 90 degrees about X. Released with skio_scene_frame_view_free. */
int skio_scene_held_root_view(const skio_scene* s, skio_scene* view, skc_err* err);
/* s in its own frame with joint 0, when it is the skeleton's one root and its rest transform M is rigid and not the
 * identity, held at the identity and M given to its children's rest transforms and clip keys (held_channel's identity
 * keys for any of its own): every joint's world but the root's is as in s, so that skio_scene_drop_root can then
 * leave the root out of a scene whose clips move its children (a Collada file's visual scene holding the turn of its
 * up axis above Blender's keyed armature object; io/scene_export.c collada_scene_root). Otherwise *view is *s.
 * Released with skio_scene_frame_view_free. */
int skio_scene_root_baked_view(const skio_scene* s, skio_scene* view, skc_err* err);
/* Whether s's objects have Blender's own axes in their nodes (an FBX source written by Blender or skinkit, a scene
 * given a frame, a Collada source: Blender's FBX and Collada files leave each object's data in its Z-up axes), and
 * the basis p every view above postmultiplies onto the object nodes (unskinned meshes' node transforms N p - their
 * vertices then written as (N p)^-1 v -, a rigid attachment's node, an empty's world and look) for the target's
 * importer: for glTF (gltf true) C^-1 when they have, else none (NULL); for FBX and Collada none when they have or
 * the source is another tool's FBX (skio_scene.foreign_objects: nodes as they are), else C; C the turn from Z up to
 * glTF's Y up, (x, y, z) -> (x, z, -y) (scene_frame.c). */
bool skio_scene_zup_objects(const skio_scene* s);
const float* skio_scene_object_basis(const skio_scene* s, bool gltf);
void skio_scene_frame_view_free(const skio_scene* s, skio_scene* view);

/* The deform joints (scene_deform.c, where the rule is spelled out): mask (joint_count bytes) = 1 for the joints
 * some skin lists (rule SKIO_DEFORM_SKINS); when no skin lists any, the bone hierarchy without the scene root,
 * armature object nodes, importers' synthetic roots and mesh nodes (SKIO_DEFORM_HIERARCHY), or every joint when that
 * leaves none (SKIO_DEFORM_ALL); SKIO_DEFORM_NONE without a skeleton. *out_count / *out_rule optional. */
enum { SKIO_DEFORM_NONE = 0, SKIO_DEFORM_SKINS = 1, SKIO_DEFORM_HIERARCHY = 2, SKIO_DEFORM_ALL = 3 };
int skio_scene_deform_joints(const skio_scene* s, uint8_t* mask, uint32_t* out_count, int* out_rule, skc_err* err);
/* carries[j] (joint_count entries) = 1 when joint j's node instances a mesh (a glTF read by skinkit's reader, a
 * skeleton built from the nodes, a keyed mesh node: skio_scene.joint_mesh); returns 1 when out of memory. */
int skio_scene_mesh_joints(const skio_scene* s, uint8_t* carries);
/* Whether a node name is an importer's synthetic or scene root (RootNode, ROOT, Scene, Z_UP, Y_UP, <MD5_Root>,
 * <MD5_Mesh>, <MD5_Hierarchy>) or an armature object's (Armature, Armature.001, Rig, Rig_2 ..., *_rig),
 * case-insensitive: rule 2's wrappers above. NULL: false. */
bool skio_wrapper_name(const char* name);
/* skio_wrapper_name but for "Root" in any case other than Assimp's own "ROOT": the names of the nodes that may stand
 * between a plain root and the armature object below it (io/gltf_write.c armature_chain, io/scene_export.c
 * plain_chains); a rig's top bone is often named "root" (Unreal's skeletons), and it stays a bone. */
bool skio_chain_wrapper_name(const char* name);
/* Whether joint j is bound (skio_mesh.bound) by some skinned mesh. */
bool skio_joint_bound_anywhere(const skio_scene* s, uint32_t j);
/* Whether joint j is bound by some skinned mesh, carries weight in one, or is moved by some clip. */
bool skio_joint_used(const skio_scene* s, uint32_t j);
/* What Blender calls the armature object: the one joint whose parent is `parent` (-1: the skeleton's one root) when
 * it has joints below it and skio_joint_used is false for it; else -1. The Collada and FBX writers write it as a
 * plain node (io/scene_export.c plain_root, io/scene_frame.c held_root). */
int32_t skio_scene_armature_object(const skio_scene* s, int32_t parent);
/* The same with skio_joint_is_armature_object_keyed_at_rest for its test (the Collada view's held root). */
int32_t skio_scene_armature_object_keyed_at_rest(const skio_scene* s, int32_t parent);
/* The only child joint of joint p when it is an armature object too (skio_joint_is_armature_object_keyed_at_rest)
 * named as one or as an importer's root (skio_chain_wrapper_name), else -1: the chain below a held root that the
 * Collada view holds at the identity with it (io/scene_frame.c held_root) and writes as plain nodes (mover_rig's Rig
 * under Mover, CesiumMan's Armature under Z_UP; session 75: Blender 3.4's Collada importer reads plain nodes above
 * the bones right only at the identity). */
int32_t skio_scene_armature_chain_next(const skio_scene* s, int32_t p);
/* Whether joint r has joints below it and skio_joint_used is false for it (what Blender calls an armature object). */
bool skio_joint_is_armature_object(const skio_scene* s, uint32_t r);
/* The same where clip keys that only hold r's rest local transform do not count as moving it (the FBX writer's
 * plain roots): Blender's FBX exporter keys the armature object with its rest in every clip, and a glTF of such a file
 * (`convert`'s, Blender's) keys its armature node so; written as a bone to keep them, Blender read the armature back
 * as "Armature" with an extra bone. As a plain node its keys are written all the same (aiNodeAnim by name). Collada
 * takes it too (session 74): its frame view holds such a root at the identity and writes its keys as the identity
 * (skio_scene_frame_view_to), so that they agree with the held rest. */
bool skio_joint_is_armature_object_keyed_at_rest(const skio_scene* s, uint32_t r);
/* X = rest_world(j) * IB(j) (the skeleton's inverse bind) when it is one matrix (within 1e-4 of its largest entry)
 * for every joint some mesh binds, not the identity, and invertible: the scene's rest pose is its bind pose up to
 * one transform X (CesiumMan's Z_UP turn, huesitos' x100). The glTF and FBX writers bake it into the skinned meshes
 * (vertices X v, inverse binds IB X^-1) so that a written file's rest pose IS its bind pose. false otherwise. */
bool skio_scene_rest_to_bind(const skio_scene* s, float x[16]);
/* Whether x is first but for rounding: every entry within 1e-4 of first's largest (at least 1), the tolerance of the
 * one-matrix checks (skio_scene_rest_to_bind, skio_scene_bind_to_world, the FBX writer's rebuilt binds). */
bool skio_mat4_same(const float first[16], const float x[16]);
/* The same for one skinned mesh, from its own inverse binds over the joints it binds or weights: each mesh's vertices
 * are in their own space (Assimp's meshes in their node's), so a mesh bound later (`bind` of a mesh the file had
 * without skin) has another X than the file's skinned meshes; the glTF writer bakes each mesh's own. */
bool skio_mesh_rest_to_bind(const skio_scene* s, const skio_mesh* m, float x[16]);
/* Whether the mesh's rest pose is its bind pose up to one transform (the identity included) over the joints it binds
 * or weights: rest_world(j) * IB(j) is one matrix. true too for a mesh without a skin (nothing to tell). */
bool skio_mesh_rest_is_bind(const skio_scene* s, const skio_mesh* m);
/* When neither is one matrix (a joint's rest is not its bind: an FBX file's rest pose is the pose it was saved in),
 * X of the mesh's top bound joint r (the first it binds or weights; parents come first): rest_world(r) * IB(r), from
 * the mesh's own inverse binds when it has them. Written in that space, the root's inverse bind is its rest and every
 * other joint's is its bind relative to its parent's, the bind pose Blender's glTF importer rebuilds the armature
 * from (without it, an FBX rig under a turned, scaled empty came into Blender with its bones and body at the origin).
 * false when it is the identity or not invertible. */
bool skio_mesh_top_rest_to_bind(const skio_scene* s, const skio_mesh* m, float x[16]);
/* The same over the whole scene: the first joint some mesh binds, with the skeleton's inverse binds (the Collada
 * writer's one skin per joint). */
bool skio_scene_top_rest_to_bind(const skio_scene* s, float x[16]);
/* X = the mesh's bind_world (set for FBX skins, and posed glTF and Collada skins: the file's bind pose is X IB(j)^-1),
 * when finite and invertible (it may be the identity): where skio_mesh_rest_to_bind has no single matrix, written in
 * that space the mesh and its joints keep the bind pose the file declares, the pose Blender's FBX importer builds the
 * armature from (the top bound joint's rest instead moved a Blender FBX export saved at frame 1 of a walk 3.5 cm away
 * from it). */
bool skio_mesh_bind_to_world(const skio_mesh* m, float x[16]);
/* The same for the skeleton's inverse binds, which the Collada writer gives every mesh (one skin per joint, each mesh
 * moved by its inverse binds' difference from them): X = bind_world IB_mesh(j)^-1 IB(j) of each skinned mesh's first
 * bound joint j, true when every skinned mesh has a bind_world and the X agree (a body and a hat whose nodes differ
 * give one X). */
bool skio_scene_bind_to_world(const skio_scene* s, float x[16]);

/* The objects of an Assimp scene (scene_objects.c): nodes[] is the file's node tree in preorder (parents first), each
 * with its parent's index, its joint (-1: none) and whether it is held (a joint or a mesh node, or above one). Every
 * node not held below the root becomes an object; cameras and lights take their aiCamera / aiLight. What cannot be
 * carried (ambient and area lights) is noted on s. SKC_OUT_OF_MEMORY is the only failure. */
struct aiNode;
typedef struct skio_object_source {
  const struct aiNode* node;
  int32_t parent;
  int32_t joint;
  bool held;
} skio_object_source;
int skio_scene_read_objects(skio_scene* s, const struct aiScene* ai, const skio_object_source* nodes, uint32_t n,
                            int32_t* object_of, skc_err* err); /* object_of: n entries, each node's object or -1 */
void skio_scene_free_objects(skio_scene* s);                   /* and their channels */
/* The scene's cameras, lights and empty nodes for listings (scene_listing.c): s->objects, or the glTF document's
 * nodes by the same rule when the glTF reader read the scene, parents first (preorder). Each entry is a
 * skio_object whose strings the listing owns: ob.parent indexes the listing, ob.parent_joint is the skeleton's name
 * of the joint (not the node's), ob.parent_mesh the mesh node's name; ob.world is the rest world in the scene's frame
 * and ob.parent_rest its file parent node's (identity at the top), ob.look is left identity; a light's ob.intensity is
 * in glTF's units (candela, lux for a directional light: skio_light_gltf_intensity). parent: the name of the object or
 * joint it hangs from (mesh nodes skipped), NULL: the top level. *out NULL with *count 0 when there are none;
 * SKC_OUT_OF_MEMORY only. */
typedef struct skio_listed_object {
  skio_object ob;
  char* parent;
} skio_listed_object;
int skio_scene_list_objects(const skio_scene* s, skio_listed_object** out, uint32_t* count, skc_err* err);
/* s with a glTF source's cameras, lights and empties (which stay in its document) as skio_scene.objects, in listing
 * order - the order its object channels are keyed by - so that a glTF written whole from it keeps them (they were
 * lost); *v borrows the rest of s, and is *s when s has objects already or is no glTF source. Release with
 * skio_scene_listed_view_free(v, *list, *n). SKC_OUT_OF_MEMORY only. */
int skio_scene_listed_view(const skio_scene* s, skio_scene* v, skio_listed_object** list, uint32_t* n, skc_err* err);
void skio_scene_listed_view_free(skio_scene* v, skio_listed_object* list, uint32_t n);
/* Per node of a scene read by skinkit's glTF reader: its index in that listing, or -1 (a joint, a mesh node, a node
 * above one); index_of holds s->gltf->node_count entries. SKC_OUT_OF_MEMORY only. The reader keys the clips of the
 * listed nodes by it (skio_scene.object_channels, ch.joint = the index: such a scene has no skio_scene.objects). */
int skio_gltf_object_of_nodes(const skio_scene* s, int32_t* index_of, skc_err* err);
/* Listed object `object` of a glTF document's scene (its object channels keyed by listing index) in clip anim at time
 * t: local holds its rest transform relative to its file parent and receives the keyed one (components its channel
 * lacks kept; untouched when the clip does not key it). */
int skio_listed_object_sample(const skio_scene* s, uint32_t anim, uint32_t object, double t, float local[16],
                              skc_err* err);
/* Object i of s->objects as a listed entry (zeroed first by the caller; strings copied, intensity in glTF's units):
 * -1 when out of memory (the entry then holds what was copied: skio_listed_objects_free frees it). */
int skio_scene_list_object(const skio_scene* s, uint32_t i, skio_listed_object* e);
/* A malloc'd copy of s, NULL for NULL (or when out of memory: compare with s to tell). */
char* skio_dup_or_null(const char* s);
/* Lists of names (name_list.c): add the n bytes at s (false when out of memory), sort (strcmp), look up in a sorted
 * list, free. */
bool skio_names_add(char*** list, uint32_t* count, uint32_t* cap, const char* s, size_t n);
void skio_names_sort(char** list, uint32_t count);
bool skio_names_have(char* const* list, uint32_t count, const char* name);
void skio_names_free(char** list, uint32_t count);
/* Appends a camera, light or empty made by hand (scene_add_object.c): `o` copied (name NULL or "" = "object<i>";
 * parent: an object added before, else parent_joint: a joint of s's skeleton by name, else parent_mesh: a mesh
 * node's name; world in the scene's frame, finite), a light's intensity given in glTF's units (gltf_intensity;
 * o->intensity ignored). SKC_INVALID_ARGUMENT (kind, non-finite or out-of-range lens and light values, an unknown
 * joint), SKC_OUT_OF_RANGE (parent), SKC_UNSUPPORTED for a scene read from a glTF document, SKC_OUT_OF_MEMORY. */
int skio_scene_add_object(skio_scene* s, const skio_object* o, double gltf_intensity, uint32_t* out, skc_err* err);
void skio_scene_drop_last_object(skio_scene* s); /* undoes the last skio_scene_add_object */
/* Appends a clip made by hand (scene_add_anim.c): n keys at ascending times (seconds, finite, >= 0), trs holding
 * n * joint_count local poses (skc_trs layout, key k's at trs + k * joint_count * 10); keyed: a byte per joint, 0 =
 * no channel (NULL: every joint); name NULL or "" = "anim<i>". Rotations normalized. SKC_NO_SKIN without skeleton,
 * SKC_INVALID_ARGUMENT (times, non-finite values, zero rotations, no keys), SKC_UNSUPPORTED for a scene read from a
 * glTF document, SKC_OUT_OF_MEMORY. */
int skio_scene_add_anim(skio_scene* s, const char* name, const double* times, size_t n, const float* trs,
                        const uint8_t* keyed, uint32_t* out, skc_err* err);
/* A light's intensity in glTF's photometric units from the source's (Blender's) W or W/m^2: 683 lm/W, over 4 pi sr
 * for point and spot lights (as Blender's own glTF exporter converts). */
double skio_light_gltf_intensity(const skio_object* ob);
void skio_listed_objects_free(skio_listed_object* o, uint32_t n);
void skio_scene_free_object_channels(skio_scene* s);
/* Assimp ties cameras and lights to nodes by name. Their names sorted (a camera before a light of the same name,
 * each kind in array order) for binary search, so that a file with many of them and many nodes costs n log n:
 * find gives the first entry of a name (kind SKIO_OBJECT_CAMERA or _LIGHT, index into mCameras / mLights) or NULL.
 * Build fails only when out of memory. The names are borrowed from ai. */
typedef struct skio_ai_named {
  const char* name;
  uint8_t kind;
  uint32_t index;
} skio_ai_named;
typedef struct skio_ai_index {
  skio_ai_named* e;
  uint32_t n;
} skio_ai_index;
bool skio_ai_index_build(const struct aiScene* ai, skio_ai_index* x);
const skio_ai_named* skio_ai_index_find(const skio_ai_index* x, const char* name);
void skio_ai_index_free(skio_ai_index* x);

/* Row-major aiMatrix4x4 (16 floats a1..a4, b1..d4) <-> column-major. */
void skio_mat_from_ai(const float* ai_row_major, float out[16]);
/* The sRGB transfer function (IEC 61966-2-1) both ways, for vertex colours: glTF's COLOR_0 is linear, the formats
 * Assimp reads and writes (FBX, Collada, ...) hold sRGB values as Blender's and Maya's exporters write them.
 * Values past [0, 1] follow the same curve (odd-symmetric below 0). */
float skio_srgb_to_linear(float c);
float skio_linear_to_srgb(float c);
void skio_mat_to_ai(const float m[16], float* ai_row_major);

/* Assimp's importable extensions "*.3ds;*.obj;..." (static) and a test for one extension (with or without the
 * dot, case-insensitive); Ogre ".skeleton" files are not importable on their own (scene_formats.c). */
const char* skio_import_extensions(void);
int skio_extension_supported(const char* extension);

/* Export. format: "glb2", "gltf2", "fbx", "fbxa", "collada" or NULL to take it from the path's extension. glb2/gltf2
 * are written by skinkit's own glTF writer (io/skio_gltf.h), the others through Assimp's exporters. */
typedef struct skio_export_options {
  const char* format;
  bool normalize;          /* renormalize each vertex to sum 1 */
  uint32_t limit;          /* keep the N largest influences (sorted, renormalized); 0 = format default */
  float prune;             /* drop weights below this (then renormalize if normalize/limit); 0 = keep */
  bool keep_all;           /* write weights as-is (only formats that can carry them) */
  bool overwrite;          /* companion files (a .gltf's .bin) may be replaced too */
  uint32_t weights_type;   /* glTF: skio_weights_type (skio_gltf_edit.h); 0 = the source's (float when new) */
  char* note;              /* optional, note_size bytes: on success, why a glTF source could not be edited in
                              place and the scene was written whole instead, or what the edit could not do (an
                              image file that did not read); what other formats cannot carry; "" when nothing */
  size_t note_size;
  bool isolate;           /* FBX and Collada written anew: Assimp's writer runs in a child process
                             (skio_ai_export.h) */
  double timeout_seconds; /* with isolate: give up after this long (0 = no limit) */
} skio_export_options;

/* Resolves the Assimp export format id for a path/format; SKC_UNSUPPORTED with the reason for formats this
 * library refuses to write (see scene_export.c for why). */
int skio_export_format(const char* path, const char* format, const char** out_id, const char** out_ext,
                       skc_err* err);
int skio_scene_export(const skio_scene* s, const char* path, const skio_export_options* opts, skc_err* err);
/* Whether files of this extension are written (with or without the dot, any case): .glb, .gltf, .vrm (as an edit of a
 * VRM source only), .fbx, .dae. */
int skio_export_extension_supported(const char* extension);
/* The weights the writers write of a skinned mesh (export options: prune, limit, normalize; limit 0 = keep all):
 * CSR over its vertices, arrays malloc'd (free each). SKC_OUT_OF_MEMORY. */
int skio_export_weights(const skio_mesh* m, const skio_export_options* o, uint32_t limit, uint32_t** offsets,
                        uint32_t** joints, float** weights, skc_err* err);
/* Sets the inverse bind of every joint mesh m has no bone for (m->bound 0) in the mesh's own bind frame: rest^-1 x
 * the rest x inverse bind of the nearest bound ancestor (else of the first bound joint), so that weight given to it
 * later keeps a vertex where it is at rest (io/scene_build.c). */
void skio_mesh_unbound_in_bind_frame(const skc_skeleton* sk, skio_mesh* m);
/* A mesh the reader bound rigidly to the joint it hangs from (skio_mesh_place; no skin in its file) whose skin is still
 * that: every vertex one influence of weight 1 on that joint. */
bool skio_mesh_still_rigid(const skio_mesh* m);
/* The node transform N of unskinned or still rigidly bound mesh m for writers that can give its node a transform
 * (session 74): its vertices are N times its file's, so N^-1 v are the vertices in its node's own space and N (times
 * the inverse of where the node is written) its node's matrix, which keeps the object's origin. N is the transform
 * skio_mesh_place applied (m->placed). false, with n the identity, when none was applied, or N is singular or not
 * finite: the vertices are then written as stored. A mirror N (negative determinant: a prop scaled -1 on one axis) is
 * handed only to a caller that passes mirror (set true then; NULL: refused as before): placing flipped the winding and
 * the tangents' handedness so that faces point out in the world, and under a mirrored node glTF, FBX and Collada
 * readers flip them again (glTF 2.0 3.7.4: a negative determinant makes the winding clockwise), so such a writer
 * writes the triangles in the reverse order (session 75). */
bool skio_mesh_node_space(const skio_mesh* m, float n[16], bool* mirror);
/* A hash of what an in-place edit cannot change: skeleton (names, parents, rest and bind matrices), clips (names,
 * durations, every key), materials (names, factors), each mesh's vertex and index counts, indices, material, object
 * name and inverse binds. Weights and bound flags are not in it. */
uint64_t skio_scene_fingerprint(const skio_scene* s);
/* id of the FBX (binary, or text named .fbx) or Collada file at path (set false when it is neither or cannot be
 * read). */
void skio_source_identify(const char* path, skio_source_id* id);
/* The whole source file, if it is still the one id describes (else SKIO_FBX_EDIT_CANNOT with why: the caller writes
 * the scene whole); SKC_IO, SKC_OUT_OF_MEMORY. The buffer has one NUL past its n bytes. */
int skio_read_source(const char* path, const skio_source_id* id, uint8_t** out, size_t* n, char* why,
                     size_t why_size, skc_err* err);
/* What every in-place edit of a source file needs first: the scene read from a source of that kind
 * (SKIO_SOURCE_FBX / SKIO_SOURCE_COLLADA), still the meshes the file gave, nothing changed but weights
 * (skio_scene_fingerprint), path not the source itself. SKC_OK, SKIO_FBX_EDIT_CANNOT (-1, as
 * SKIO_DAE_EDIT_CANNOT) with the reason in why, or SKC_EXISTS (path is the source). */
int skio_scene_edit_check(const skio_scene* s, int kind, const char* path, char* why, size_t why_size,
                          skc_err* err);
/* A checked scene without a skeleton (no skin, nothing an edit changes): the source's bytes written to path. SKC_OK,
 * SKIO_FBX_EDIT_CANNOT (the source changed since it was read), SKC_IO, SKC_OUT_OF_MEMORY. */
int skio_scene_write_source(const skio_scene* s, const char* path, char* why, size_t why_size, skc_err* err);
/* .fbx from an FBX source (an ASCII one as the binary file it stands for): its skins edited in place
 * (io/scene_fbx_edit.c, skio_fbx_edit.h), SKC_OK; or SKIO_FBX_EDIT_CANNOT with the reason in why (the caller writes the
 * scene whole); or an error (SKC_EXISTS when path is the source, SKC_IO, SKC_OUT_OF_MEMORY). */
int skio_scene_fbx_edit(const skio_scene* s, const char* path, const skio_export_options* o, char* why,
                        size_t why_size, skc_err* err);
/* Whether o asks for ASCII FBX (format "fbxa"): every FBX writer then writes its finished binary file as text. */
bool skio_export_fbx_ascii(const skio_export_options* o);
/* A finished binary FBX file written to path atomically: as it is, or as ASCII FBX text when ascii
 * (skio_fbx_to_ascii). SKC_IO, SKC_FORMAT (data does not parse), SKC_OUT_OF_MEMORY. */
int skio_fbx_write_file(const char* path, const uint8_t* data, size_t n, bool ascii, skc_err* err);
/* .dae from a Collada source: its skin controllers' weights edited in place (io/scene_dae_edit.c, skio_dae_edit.h),
 * SKC_OK; or SKIO_DAE_EDIT_CANNOT with the reason in why; or an error as skio_scene_fbx_edit. */
int skio_scene_dae_edit(const skio_scene* s, const char* path, const skio_export_options* o, char* why,
                        size_t why_size, skc_err* err);

/* Validation of one mesh's skin plus its bind matrices. */
typedef struct skio_mesh_report {
  skc_skin_report skin;
  uint64_t singular_binds;  /* bound joints whose inverse bind is singular / not finite */
  uint64_t nonrigid_binds;  /* bound joints whose inverse bind has scale/shear (not a rotation+translation) */
  uint64_t unused_bones;    /* aiBones of the mesh with no non-zero weight */
  uint64_t dropped_weights; /* see skio_mesh */
  uint32_t skin_structure;  /* glTF: SKIO_SKIN_* bits of the mesh node's skin (skio_gltf_skin_structure) */
  bool findings;
} skio_mesh_report;

/* Validates mesh m (must have a skin). tolerance <= 0: 1e-3. max_influences 0: no limit. */
int skio_mesh_validate(const skio_scene* s, uint32_t m, float tolerance, uint32_t max_influences,
                       skio_mesh_report* out, skc_err* err);

/* ---- materials (scene_material.c) ---- */
/* A texture reference: image index (-1 = none) and the uv set it reads. scale: normal scale / occlusion strength. */
typedef struct skio_texref {
  int32_t image;
  uint32_t uv;
  float scale;
} skio_texref;

enum { SKIO_ALPHA_OPAQUE = 0, SKIO_ALPHA_MASK = 1, SKIO_ALPHA_BLEND = 2 };

/* glTF's metallic-roughness material: factors with glTF's meaning (the base colour multiplies the texture). */
typedef struct skio_material {
  char* name;              /* never NULL ("material<i>" when unnamed) */
  float base_color[4];     /* linear RGBA */
  float metallic, roughness;
  float emissive[3];       /* in [0, 1] */
  uint32_t alpha_mode;     /* SKIO_ALPHA_* */
  float alpha_cutoff;      /* SKIO_ALPHA_MASK: 0.5 default */
  bool double_sided;
  skio_texref base_color_tex, normal_tex, metallic_roughness_tex, emissive_tex, occlusion_tex;
} skio_material;

/* An image as the source refers to it. Bytes are held when embedded, or when the file could be read beside the
 * model (a relative path, or its file name in the model's folder) or at its absolute path; at most
 * SKIO_IMAGE_MAX_BYTES each. */
#define SKIO_IMAGE_MAX_BYTES (64u << 20)

/* The material skinkit's Assimp writers give a mesh without one (Assimp's writers need one); the binary FBX and
 * Collada written drop it again (fbx_placeholder.c, collada_placeholder.c) and the reader drops it if met. */
#define SKIO_PLACEHOLDER_MATERIAL "skinkit_default"

typedef struct skio_image {
  char* name;              /* never NULL: the file name, or "image<i>" for an unnamed embedded one */
  char* uri;               /* the path as found in the source (NULL for embedded images) */
  char* path;              /* the file the bytes were read from, or NULL (embedded, or not found) */
  unsigned char* data;     /* NULL when not embedded and not readable */
  size_t size;
  char mime[16];           /* "image/png", "image/jpeg", "image/webp", "image/ktx2", or "" when unknown */
  bool embedded;
} skio_image;

/* A scene built by hand (the ABI): appends an image (bytes copied; PNG, JPEG, WebP or KTX2 by magic bytes, else
 * SKC_UNSUPPORTED; name NULL or "" = "image<i>"), a material (copied, its name duplicated or "material<i>"; image
 * indices checked, factors finite), or sets a mesh's material (UINT32_MAX = none; every part of the mesh too).
 * Each sets materials_changed: the in-place editors then write the scene whole. */
int skio_scene_add_image(skio_scene* s, const char* name, const void* data, size_t size, uint32_t* out, skc_err* err);
int skio_scene_add_material(skio_scene* s, const skio_material* m, uint32_t* out, skc_err* err);
int skio_mesh_set_material(skio_scene* s, uint32_t mesh, uint32_t material, skc_err* err);
/* Frees an image's name, uri, path and bytes, and zeroes it. */
void skio_image_free(skio_image* im);
/* Frees the material and image tables (skio_scene_destroy calls it). */
void skio_scene_free_materials(skio_scene* s);
/* Defaults of glTF: base colour 1 1 1 1, metallic 1, roughness 1, no emission, opaque, cutoff 0.5, one-sided. */
void skio_material_init(skio_material* m);
/* MIME type from magic bytes (PNG, JPEG, WebP, KTX2), else from the name's extension; "" when unknown. */
const char* skio_image_mime(const unsigned char* data, size_t size, const char* name);
/* Reads img->uri as a file (scene_material.c's rules: relative to model_dir, which ends in '/', or absolute; then
 * percent-decoded; then its file name in model_dir), at most SKIO_IMAGE_MAX_BYTES: fills data, size and path.
 * false when not found or too large (*too_big, optional, says which). */
bool skio_image_load_file(skio_image* img, const char* model_dir, bool* too_big);
/* Reads aiScene's materials and textures into s (Assimp path of skio_scene_import) and sets each mesh's material
 * (meshes are in aiScene order). Only SKC_OUT_OF_MEMORY fails; what cannot be read goes to material_note. */
struct aiScene;
int skio_scene_read_materials(skio_scene* s, const struct aiScene* ai, const char* path, skc_err* err);
/* Appends a line to s->material_note (what of the source was not read; "; " between lines, capped at ~2 KB). */
void skio_scene_note(skio_scene* s, const char* line);
/* The length to cut s (at least max bytes long) to so that it holds at most max bytes and ends on a whole UTF-8
 * character: max, less the bytes of a character that would be split. */
size_t skio_utf8_cut(const char* s, size_t max);
/* The whole file at path (1 to max bytes) in a malloc'd buffer of *n bytes; NULL when it cannot be opened, is empty
 * or larger than max, or (*oom set, when oom is not NULL) memory is short. */
char* skio_read_whole(const char* path, size_t max, size_t* n, bool* oom);
/* For the Assimp exporters (scene_export.c): aiMaterials from the table, one more default material at the end when
 * some mesh has none (*none_index: its index). Images with bytes whose file is not in out_path's folder are written
 * there (never over a different existing file unless overwrite). What the format ("collada", "fbx", "fbxa") cannot
 * carry is appended to note (one line). */
/* After an in-place FBX or Collada edit written to out_path: each image the source names by a relative path (its
 * uri) whose bytes were read is copied to that path from out_path's folder, folders made, so that the output finds
 * its textures as the source did. A file there with other bytes is left alone and noted (the output names it). */
void skio_scene_copy_images(const skio_scene* s, const char* out_path, char* note, size_t note_size);
/* Image files an Assimp export writes beside its output, staged (temporary files in their folder, flushed) until the
 * output itself is written: then committed (renamed over their names), else aborted, so a failed export (disk full,
 * a file size limit) leaves the folder as it was. data/size: each staged image's bytes (borrowed from the scene), so
 * a second image of one name sees the first as written. */
typedef struct skio_staged_files {
  char** tmp;
  char** dest;
  const unsigned char** data;
  size_t* size;
  uint32_t count, cap;
} skio_staged_files;
/* Renames every staged file over its name; one that cannot be is removed and noted (the output names it). Frees. */
void skio_staged_commit(skio_staged_files* st, char* note, size_t note_size);
/* Removes every staged file. Frees. */
void skio_staged_abort(skio_staged_files* st);
struct aiMaterial;
int skio_ai_materials(const skio_scene* s, const char* format_id, const char* out_path, bool overwrite,
                      struct aiMaterial*** out, unsigned* count, uint32_t* none_index, skio_staged_files* staged,
                      char* note, size_t note_size, skc_err* err);

#endif
