#define _DEFAULT_SOURCE /* clock_gettime */
/* gltf_import.c - a glTF 2.0 document (skio_gltf_doc.h) -> skio_scene. Rules:
 *
 * Nodes: the node forest in preorder (parents first, children in file order) from the roots of the default scene
 * ("scene", else scene 0), then every other root in index order, so nodes outside every scene are read too. A node
 * listed as the child of two nodes (or of itself), or a cycle, is SKC_FORMAT (the specification requires a forest).
 *
 * Skeleton: every node some skin lists as a joint plus all its ancestors, in that preorder; no synthetic root.
 * Names: the node's name, "node<i>" for a node without one; a name already taken gets "#2", "#3", ... (as
 * scene_import.c does). rest_local = the node's matrix, or T * R * S (rotation normalized). bind = inverse of the
 * inverse bind matrix of the first skin listing the joint whose matrix is finite and invertible; an absent
 * inverseBindMatrices means identity matrices (specification); joints without one: bind = rest world. More than
 * SKC_MAX_JOINTS joints is SKC_UNSUPPORTED, refused before any per-joint array is allocated.
 *
 * Meshes: for each node with a mesh (preorder above), for each primitive of mode TRIANGLES (default),
 * TRIANGLE_STRIP or TRIANGLE_FAN (turned into triangles as the specification orders their corners) one skio_mesh:
 * gltf_mesh / gltf_primitive / gltf_node say where it comes from, vertex i is vertex i of the primitive. POINTS and
 * LINES primitives and primitives without POSITION are skipped (counted in the report; the latter also in a scene
 * note). A skin whose "joints" is empty is SKC_FORMAT (its primitives would pass as unskinned). POSITION, NORMAL,
 * TANGENT, TEXCOORD_0 are read in any form the specification allows (KHR_mesh_quantization types, normalized or not,
 * sparse, meshopt-compressed views); TEXCOORD_0 is stored as (u, 1 - v) like Assimp (the writer flips it back). Name:
 * the mesh's name ("mesh<m>" without one) and, when the mesh has several primitives, "-<p>" (Assimp's convention).
 * Primitives of one node's mesh whose attribute objects name the same accessors under the same keys (in the same
 * order) draw one vertex set (three.js writes a multi-material mesh so): they are one skio_mesh whose parts
 * (skio_mesh.parts) are the primitives' index lists and materials, named after the first ("-<p>" dropped when it
 * holds every triangle primitive of the mesh). Draco primitives are never merged.
 * Skinned positions are bind-space as stored (glTF ignores the node transform of a skinned mesh; where the joints'
 * nodes hold a pose rather than the bind pose, skin_bind_world notes the space Blender takes them in); a primitive
 * without a skin is placed by skio_mesh_place: its node's world transform baked in and, below a bone, bound to the
 * nearest bone rigidly (skio_mesh.rigid_joint), as the Assimp path does.
 * Indices: an index past the vertices is SKC_FORMAT; without indices the vertices are taken in order.
 *
 * Skins (node with "skin" and a skeleton): JOINTS_n / WEIGHTS_n for n = 0, 1, ... while JOINTS_n exists (a
 * JOINTS_n without WEIGHTS_n is SKC_FORMAT). Per vertex the sets in order, four entries each, kept as in the file
 * (NaN, negative, sums off 1, duplicates survive for validate to report) except weights exactly 0 (padding).
 * Joint indices go through the skin's joints to skeleton joints; a non-zero weight naming an index past the skin's
 * joints cannot be stored and is counted in skio_mesh.dropped_weights. inverse_bind = the skin's matrices for the
 * joints it lists (bound = 1), the skeleton's inverse bind for the others; bone_count = joints listed.
 *
 * Materials and images: the scene's tables (skio_scene.materials / images) and each mesh's material from its
 * primitive's "material" (UINT32_MAX for none), by io/gltf_import_material.c.
 *
 * KHR_draco_mesh_compression: the document layer decodes such primitives (gltf_draco.c); its errors pass through.
 *
 * Animations: every clip under its own name ("anim<i>" when unnamed), ticks_per_second 1 (times in seconds).
 * Channels on joint nodes with path translation / rotation / scale become one skio_channel per joint (a second
 * channel for the same joint and path replaces the first); those on the nodes listed as cameras, lights and empties
 * (scene_listing.c) one skio_object_channel per node and clip (ch.joint = its listing index); LINEAR samplers give
 * their keys, STEP ones theirs with each value held until just before the next key (hold_steps), CUBICSPLINE the
 * value element of each (in-tangent, value, out-tangent) triplet. Other channels ("weights", mesh nodes and nodes
 * above joints or meshes, no target node) are skipped and counted. duration =
 * the largest finite key time of the clip's channels (all of them, skipped ones too).
 *
 * Hostile files: every index is checked against its array, every accessor through the document's checked
 * readers; data volume is bounded (accessors without a bufferView, which cost no file bytes, may hold at most
 * max(2^24, file size) elements; mesh instances and their vertices are capped as above).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "skc_mem.h"
#include "skio_gltf_doc.h"
#include "skio_gltf_import.h"
#include "skio_scene.h"

#define MAX_INSTANCES 65535u
#define MAX_TOTAL_VERTICES ((size_t)1 << 27)
#define MAX_VIEWLESS ((size_t)1 << 24)
/* Keys of every animation channel in all, an accessor counted each time a sampler uses it: 300 clips sharing one
 * 200,000-key sampler (a 6 MB file) made 60 million keys, 1.4 GB read and more than 16 GB in the FBX writer. A
 * 10-minute 120 fps capture of 60 joints has 13 million. */
#define MAX_ANIM_KEYS ((size_t)1 << 25)

enum { MODE_POINTS = 0, MODE_TRIANGLES = 4, MODE_STRIP = 5, MODE_FAN = 6 };

typedef struct skin_info {
  uint32_t count;  /* joints listed */
  uint32_t* node;  /* count node indices */
  uint32_t* joint; /* count skeleton joints */
  float* ibm;      /* 16 * count (identity when the skin has no inverseBindMatrices) */
} skin_info;

typedef struct importer {
  const char* path;
  skio_gltf_doc* d;
  skio_scene* s;
  skio_gltf_import_report rep;
  uint32_t node_count;
  int32_t* parent;   /* node -> parent node or -1 */
  uint32_t* order;   /* preorder of the node forest */
  int32_t* scene_of; /* node -> the scene that lists it or an ancestor (node_scenes), or -1 */
  int32_t* joint_of; /* node -> skeleton joint or -1 */
  uint32_t jc;
  int32_t* object_of; /* node -> its index in the object listing (camera, light, empty) or -1 (build_anims) */
  int32_t* ochan_of;  /* object -> its channel in s->object_channels in the clip being read, or -1 */
  uint32_t object_count;
  skin_info* skins;
  uint32_t skin_count;
  size_t total_vertices;
  bool bare;           /* skio_import_options.skeleton_from_nodes */
  bool animated;       /* skio_import_options.animated_nodes: keyed mesh nodes are joints (mark_keyed_meshes) */
  uint8_t* keyed_node; /* node -> 1: a node with an unskinned mesh that a clip keys, made a joint (or NULL) */
  uint8_t* keyed_mesh; /* while clips are read: node -> 1 with an unskinned mesh at or below it, 3 once the clip being
                          read keys it and the scene holds no channel for it (note_keyed_meshes) */
} importer;

static char* dup_str(const char* s) {
  size_t n = strlen(s);
  char* d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(const importer* im, skc_err* err, int code, const char* fmt, ...) {
  char msg[SKC_ERR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return skc_fail(err, code, "%s: %s", im->path, msg);
}

static int oom(const importer* im, skc_err* err) { return fail(im, err, SKC_OUT_OF_MEMORY, "out of memory"); }

int skio_path_is_gltf(const char* path) {
  const char* dot = path ? strrchr(path, '.') : NULL;
  return dot && (strcasecmp(dot, ".gltf") == 0 || strcasecmp(dot, ".glb") == 0 || strcasecmp(dot, ".vrm") == 0);
}

int skio_path_is_vrm(const char* path) {
  const char* dot = path ? strrchr(path, '.') : NULL;
  return dot && strcasecmp(dot, ".vrm") == 0;
}

int skio_file_is_glb(const char* path) {
  FILE* f = path ? fopen(path, "rb") : NULL;
  char magic[4] = {0};
  const int glb = f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "glTF", 4) == 0;
  if (f) fclose(f);
  return glb;
}

/* ---- accessors ------------------------------------------------------------------------------------- */
/* The count of a view-backed accessor, checked against its view before read_floats / read_uints allocate count x
 * components values: the reader checks the bytes only when it reads, so a 6 KB file claiming 6E8 indices made the
 * importer allocate 2.4 GB first (fuzz_gltf). Every element takes at least components x component-size bytes
 * (byteStride is never smaller), so this refuses nothing the reader would accept. */
static int fits_view(importer* im, const skio_gltf_accessor* a, const char* what, skc_err* err) {
  const uint8_t* data;
  size_t size, stride;
  int rc = skio_gltf_view_data(im->d, (uint32_t)a->view, &data, &size, &stride, err);
  if (rc) return rc;
  size_t elem = a->components * skio_gltf_component_size(a->component_type);
  size_t room = a->byte_offset < size ? size - a->byte_offset : 0;
  if (a->count > room / elem)
    return fail(im, err, SKC_FORMAT,
                "%s: accessor %u has %zu elements of %zu bytes, more than the %zu bytes of "
                "bufferView %d past byteOffset %zu",
                what, a->index, a->count, elem, room, a->view, a->byte_offset);
  return SKC_OK;
}

/* Declaration of accessor `tok` (a JSON index), checked for its components and its size. */
static int accessor(importer* im, int tok, const char* what, uint32_t components, skio_gltf_accessor* a, skc_err* err) {
  uint32_t index;
  if (!skio_json_u32(im->d, tok, &index)) return fail(im, err, SKC_FORMAT, "%s: accessor index is not valid", what);
  int rc = skio_gltf_accessor_info(im->d, index, a, err);
  if (rc) return rc;
  if (components && a->components != components)
    return fail(im, err, SKC_FORMAT, "%s: accessor %u has %u components, %u expected", what, index, a->components,
                components);
  size_t cap = im->d->file_size > MAX_VIEWLESS ? im->d->file_size : MAX_VIEWLESS;
  if (a->view < 0 && a->count > cap)
    return fail(im, err, SKC_UNSUPPORTED, "%s: accessor %u has %zu elements but no buffer view", what, index, a->count);
  return a->view >= 0 && !a->draco ? fits_view(im, a, what, err) : SKC_OK;
}

/* A block for an accessor's values, written whole next, its pages faulted in at once: the count was checked against
 * the buffer view, or against the file's size for an accessor without one (written whole too, zeros). A Draco
 * accessor's count is what its data decoded to (skio_gltf_accessor_info decodes first, the decode held to the
 * declared counts: gltf_draco.c), and its block stays a plain malloc. */
static void* values_block(const skio_gltf_accessor* a, size_t n) {
  return a->draco ? malloc(n ? n : 1) : skc_malloc_filled(n);
}

/* The accessor's values as floats; weights: unsigned integers read as normalized (skio_gltf_accessor_weights). */
static float* read_floats_as(importer* im, const skio_gltf_accessor* a, bool weights, skc_err* err) {
  float* out = values_block(a, a->count * a->components * sizeof(float));
  if (!out) {
    oom(im, err);
    return NULL;
  }
  if (weights ? skio_gltf_accessor_weights(im->d, a->index, out, err)
              : skio_gltf_accessor_floats(im->d, a->index, out, err)) {
    free(out);
    return NULL;
  }
  return out;
}

static float* read_floats(importer* im, const skio_gltf_accessor* a, skc_err* err) {
  return read_floats_as(im, a, false, err);
}

static uint32_t* read_uints(importer* im, const skio_gltf_accessor* a, skc_err* err) {
  uint32_t* out = values_block(a, a->count * a->components * sizeof(uint32_t));
  if (!out) {
    oom(im, err);
    return NULL;
  }
  if (skio_gltf_accessor_uints(im->d, a->index, out, err)) {
    free(out);
    return NULL;
  }
  return out;
}

/* ---- node forest ----------------------------------------------------------------------------------- */
static int build_forest(importer* im, skc_err* err) {
  skio_gltf_doc* d = im->d;
  uint32_t n = im->node_count;
  im->parent = malloc((n + 1) * sizeof *im->parent);
  im->order = malloc((n + 1) * sizeof *im->order);
  im->joint_of = malloc((n + 1) * sizeof *im->joint_of);
  uint32_t* stack = malloc((n + 1) * sizeof *stack);
  uint8_t* seen = calloc(n + 1, 1);
  int rc = SKC_OK;
  if (!im->parent || !im->order || !im->joint_of || !stack || !seen) {
    rc = oom(im, err);
    goto done;
  }
  for (uint32_t i = 0; i < n; ++i) im->joint_of[i] = -1;
  if ((rc = skio_gltf_node_parents(d, im->path, im->parent, err))) goto done;
  /* roots: the default scene's, then every other root */
  uint32_t scene = 0, done_count = 0;
  int st = skio_json_get(d, 0, "scene");
  if (st >= 0 && !skio_json_u32(d, st, &scene)) scene = 0;
  int roots = skio_json_get(d, skio_gltf_item(d, "scenes", scene), "nodes");
  int rlen = skio_json_len(d, roots);
  for (int k = 0; k <= rlen; ++k) {
    /* k < rlen: the scene's roots; k == rlen: every node in index order (roots not yet visited) */
    for (uint32_t i = 0; i < (k < rlen ? 1u : n); ++i) {
      uint32_t root = i;
      if (k < rlen && (!skio_json_u32(d, skio_json_at(d, roots, k), &root) || root >= n)) {
        rc = fail(im, err, SKC_FORMAT, "scene %u: node %d is not a node index", scene, k);
        goto done;
      }
      if (seen[root] || im->parent[root] >= 0) continue; /* a scene listing a child node: read under its parent */
      uint32_t sp = 0;
      stack[sp++] = root;
      seen[root] = 1;
      while (sp) {
        uint32_t node = stack[--sp];
        im->order[done_count++] = node;
        int children = skio_json_get(d, skio_gltf_item(d, "nodes", node), "children");
        for (int c = skio_json_len(d, children) - 1; c >= 0; --c) {
          uint32_t ch = 0;
          skio_json_u32(d, skio_json_at(d, children, c), &ch); /* checked above */
          if (!seen[ch]) {
            seen[ch] = 1;
            stack[sp++] = ch;
          }
        }
      }
    }
  }
  if (done_count != n) rc = fail(im, err, SKC_FORMAT, "the node hierarchy has a cycle: nodes must form a forest");
done:
  free(stack);
  free(seen);
  return rc;
}

/* rest local transform of a node: "matrix" or T * R * S */
static int node_local(importer* im, uint32_t i, float out[16], skc_err* err) {
  skio_gltf_doc* d = im->d;
  int nt = skio_gltf_item(d, "nodes", i);
  int mt = skio_json_get(d, nt, "matrix");
  if (mt >= 0) {
    if (skio_json_floats(d, mt, out, 16) != 16 || skio_json_len(d, mt) != 16)
      return fail(im, err, SKC_FORMAT, "node %u: matrix is not 16 numbers", i);
    return SKC_OK;
  }
  skc_trs trs;
  skc_trs_identity(&trs);
  int t = skio_json_get(d, nt, "translation"), r = skio_json_get(d, nt, "rotation"), s = skio_json_get(d, nt, "scale");
  if (t >= 0 && (skio_json_len(d, t) != 3 || skio_json_floats(d, t, trs.t, 3) != 3))
    return fail(im, err, SKC_FORMAT, "node %u: translation is not 3 numbers", i);
  if (r >= 0 && (skio_json_len(d, r) != 4 || skio_json_floats(d, r, trs.r, 4) != 4))
    return fail(im, err, SKC_FORMAT, "node %u: rotation is not 4 numbers", i);
  if (s >= 0 && (skio_json_len(d, s) != 3 || skio_json_floats(d, s, trs.s, 3) != 3))
    return fail(im, err, SKC_FORMAT, "node %u: scale is not 3 numbers", i);
  double len = sqrt((double)trs.r[0] * trs.r[0] + (double)trs.r[1] * trs.r[1] + (double)trs.r[2] * trs.r[2] +
                    (double)trs.r[3] * trs.r[3]);
  if (len > 0.0 && isfinite(len)) {
    for (int k = 0; k < 4; ++k) trs.r[k] = (float)(trs.r[k] / len);
  } else {
    trs.r[0] = trs.r[1] = trs.r[2] = 0.0f;
    trs.r[3] = 1.0f;
  }
  skc_trs_to_mat4(&trs, out);
  return SKC_OK;
}

/* Node i's rest scale signs as its file splits the rest (skio_channel.rest_signs): SKIO_REST_SIGNS_KNOWN | bit k for
 * a negative component k; 0 for a "matrix" node or an unreadable scale (no split given). */
static uint8_t node_scale_signs(importer* im, uint32_t i) {
  skio_gltf_doc* d = im->d;
  int nt = skio_gltf_item(d, "nodes", i), st = skio_json_get(d, nt, "scale");
  float s[3] = {1.0f, 1.0f, 1.0f};
  if (skio_json_get(d, nt, "matrix") >= 0 || (st >= 0 && skio_json_floats(d, st, s, 3) != 3)) return 0;
  return (uint8_t)(SKIO_REST_SIGNS_KNOWN | (s[0] < 0.0f) | (s[1] < 0.0f) << 1 | (s[2] < 0.0f) << 2);
}

/* ---- unique joint names ---------------------------------------------------------------------------- */
typedef struct name_slot {
  const char* name;
  uint32_t next; /* next "#k" suffix to try for this base name */
} name_slot;

static uint64_t name_hash(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* slot of name (empty slot where it would go when absent) */
static name_slot* name_find(name_slot* t, size_t mask, const char* name) {
  for (size_t i = (size_t)name_hash(name) & mask;; i = (i + 1) & mask)
    if (!t[i].name || strcmp(t[i].name, name) == 0) return &t[i];
}

/* names[j] (malloc'd, from the file) -> unique names in place */
static int unique_names(importer* im, char** names, uint32_t jc, skc_err* err) {
  size_t cap = 16;
  while (cap < (size_t)jc * 2 + 2) cap <<= 1;
  name_slot* t = calloc(cap, sizeof *t);
  if (!t) return oom(im, err);
  int rc = SKC_OK;
  for (uint32_t j = 0; j < jc && !rc; ++j) {
    name_slot* slot = name_find(t, cap - 1, names[j]);
    if (!slot->name) {
      slot->name = names[j];
      slot->next = 2;
      continue;
    }
    name_slot* base = slot;
    size_t blen = strlen(names[j]);
    char* cand = malloc(blen + 16);
    if (!cand) {
      rc = oom(im, err);
      break;
    }
    name_slot* free_slot;
    for (;;) {
      snprintf(cand, blen + 16, "%s#%u", names[j], base->next++);
      free_slot = name_find(t, cap - 1, cand);
      if (!free_slot->name) break;
    }
    free(names[j]);
    names[j] = cand;
    free_slot->name = cand;
    free_slot->next = 2;
  }
  free(t);
  return rc;
}

/* ---- skeleton -------------------------------------------------------------------------------------- */
/* The needed nodes become the joints, numbered in preorder (parents first). */
static int number_joints(importer* im, const uint8_t* needed, skc_err* err) {
  uint32_t jc = 0;
  for (uint32_t i = 0; i < im->node_count; ++i) jc += needed[i];
  if (jc > SKC_MAX_JOINTS)
    return fail(
        im, err, SKC_UNSUPPORTED,
        "its skins' joints and the nodes above them (each a joint of the skeleton) come to %u joints, more than "
        "the limit of %u",
        jc, SKC_MAX_JOINTS);
  for (uint32_t k = 0; k < im->node_count; ++k) {
    uint32_t node = im->order[k];
    if (needed[node]) im->joint_of[node] = (int32_t)im->jc++;
  }
  return SKC_OK;
}

/* The nodes that carry a mesh, camera or light or have one below them (1), an array of node_count + 1; NULL when out
 * of memory. */
static uint8_t* node_payload(const importer* im) {
  skio_gltf_doc* d = im->d;
  uint8_t* payload = calloc(im->node_count + 1, 1);
  for (uint32_t k = im->node_count; payload && k-- > 0;) { /* preorder backwards: children before their parent */
    uint32_t node = im->order[k];
    int nt = skio_gltf_item(d, "nodes", node);
    payload[node] |= skio_json_get(d, nt, "mesh") >= 0 || skio_json_get(d, nt, "camera") >= 0 ||
                     skio_json_get(d, skio_json_get(d, nt, "extensions"), "KHR_lights_punctual") >= 0;
    if (payload[node] && im->parent[node] >= 0) payload[im->parent[node]] = 1;
  }
  return payload;
}

/* skeleton_from_nodes, for a document without skins: the nodes with no mesh, camera or light at or below them (with
 * animated_nodes also the keyed nodes of meshes, mark_keyed_meshes), and their ancestors; no skeleton when there is
 * none or more than a skeleton may hold (the document then loads as without the option). */
static int mark_keyed_meshes(importer* im, uint8_t* needed, skc_err* err);

static int bare_skeleton(importer* im, skc_err* err) {
  uint32_t n = im->node_count;
  uint8_t* payload = node_payload(im);
  uint8_t* needed = calloc(n + 1, 1);
  if (!payload || !needed) {
    free(payload);
    free(needed);
    return oom(im, err);
  }
  for (uint32_t i = 0; i < n; ++i)
    for (int32_t p = payload[i] ? -1 : (int32_t)i; p >= 0 && !needed[p]; p = im->parent[p]) needed[p] = 1;
  int rc = im->animated ? mark_keyed_meshes(im, needed, err) : SKC_OK;
  uint32_t jc = 0;
  for (uint32_t i = 0; i < n; ++i) jc += needed[i];
  if (!rc && jc <= SKC_MAX_JOINTS) rc = number_joints(im, needed, err);
  free(payload);
  free(needed);
  return rc;
}

/* 1 per node with an unskinned mesh at or below it (a skinned mesh ignores its node's transform), node_count + 1
 * entries; NULL when out of memory. */
static uint8_t* unskinned_below(const importer* im) {
  uint8_t* below = calloc(im->node_count + 1, 1);
  for (uint32_t k = im->node_count; below && k-- > 0;) { /* preorder backwards: children before their parent */
    const uint32_t node = im->order[k];
    const int nt = skio_gltf_item(im->d, "nodes", node);
    below[node] |= skio_json_get(im->d, nt, "mesh") >= 0 && skio_json_get(im->d, nt, "skin") < 0;
    if (below[node] && im->parent[node] >= 0) below[im->parent[node]] = 1;
  }
  return below;
}

/* With animated_nodes: each node with an unskinned mesh at or below it that a clip keys (translation, rotation or
 * scale), and its ancestors, are joints (needed; im->keyed_node), so that the mesh keeps its motion through the writers
 * (a prop turning on a bone with an action of its own, a crate moving beside the character): the meshes hang from the
 * keyed node's joint (place_unskinned), which no skin lists, as the Assimp path does (scene_import.c). */
static int mark_keyed_meshes(importer* im, uint8_t* needed, skc_err* err) {
  skio_gltf_doc* d = im->d;
  if (!d->animation_count) return SKC_OK;
  uint8_t* below = unskinned_below(im);
  if (!below) return oom(im, err);
  int rc = SKC_OK;
  for (uint32_t a = 0; a < d->animation_count && !rc; ++a) {
    const int channels = skio_json_get(d, skio_gltf_item(d, "animations", a), "channels");
    for (int c = 0, cn = skio_json_len(d, channels); c < cn; ++c) {
      const int tt = skio_json_get(d, skio_json_at(d, channels, c), "target"), pth = skio_json_get(d, tt, "path");
      uint32_t node;
      if (!skio_json_u32(d, skio_json_get(d, tt, "node"), &node) || node >= im->node_count || needed[node]) continue;
      if (!skio_json_streq(d, pth, "translation") && !skio_json_streq(d, pth, "rotation") &&
          !skio_json_streq(d, pth, "scale"))
        continue;
      if (!below[node]) continue;
      if (!im->keyed_node && !(im->keyed_node = calloc(im->node_count + 1, 1))) {
        rc = oom(im, err);
        break;
      }
      im->keyed_node[node] = 1;
      for (int32_t p = (int32_t)node; p >= 0 && !needed[p]; p = im->parent[p]) needed[p] = 1;
    }
  }
  free(below);
  return rc;
}

static int read_skins(importer* im, skc_err* err) {
  skio_gltf_doc* d = im->d;
  uint32_t sc = d->skin_count;
  if (!sc) return im->bare ? bare_skeleton(im, err) : SKC_OK;
  if (!(im->skins = calloc(sc, sizeof *im->skins))) return oom(im, err);
  im->skin_count = sc;
  uint8_t* needed = calloc(im->node_count + 1, 1);
  if (!needed) return oom(im, err);
  int rc = SKC_OK;
  for (uint32_t s = 0; s < sc && !rc; ++s) {
    skin_info* si = &im->skins[s];
    int st = skio_gltf_item(d, "skins", s);
    int jt = skio_json_get(d, st, "joints");
    if (!skio_json_is(d, jt, 2)) {
      rc = fail(im, err, SKC_FORMAT, "skin %u has no joints array", s);
      break;
    }
    uint32_t len = (uint32_t)skio_json_len(d, jt);
    if (!len) { /* glTF requires one or more: skinned primitives read as unskinned would pass every check */
      rc = fail(im, err, SKC_FORMAT, "skin %u: \"joints\" is empty (glTF requires one or more)", s);
      break;
    }
    si->node = malloc((len + 1) * sizeof *si->node);
    si->joint = malloc((len + 1) * sizeof *si->joint);
    if (!si->node || !si->joint) {
      rc = oom(im, err);
      break;
    }
    si->count = len;
    for (uint32_t k = 0; k < len; ++k) {
      uint32_t node;
      if (!skio_json_u32(d, skio_json_at(d, jt, (int)k), &node) || node >= im->node_count) {
        rc = fail(im, err, SKC_FORMAT, "skin %u: joint %u is not a node index", s, k);
        break;
      }
      si->node[k] = node;
      for (int32_t p = (int32_t)node; p >= 0 && !needed[p]; p = im->parent[p]) needed[p] = 1;
    }
  }
  if (!rc && im->animated) rc = mark_keyed_meshes(im, needed, err);
  /* A node below a joint that no skin lists and that is no joint's ancestor (a weapon or head socket, an exporter's
   * leaf bone) is no joint: it is listed as an empty hanging from its joint (scene_listing.c), as Blender's glTF
   * importer makes it (an object parented to the bone), so that conversions keep it an empty. */
  if (!rc) rc = number_joints(im, needed, err);
  free(needed);
  if (rc) return rc;
  /* skeleton joints and inverse bind matrices of every skin */
  for (uint32_t s = 0; s < sc; ++s) {
    skin_info* si = &im->skins[s];
    for (uint32_t k = 0; k < si->count; ++k) si->joint[k] = (uint32_t)im->joint_of[si->node[k]];
    if (!(si->ibm = malloc(((size_t)si->count + 1) * 16 * sizeof(float)))) return oom(im, err);
    for (uint32_t k = 0; k < si->count; ++k) skc_mat4_identity(si->ibm + (size_t)k * 16);
    int it = skio_json_get(d, skio_gltf_item(d, "skins", s), "inverseBindMatrices");
    if (it < 0 || !si->count) continue;
    skio_gltf_accessor a;
    char what[48];
    snprintf(what, sizeof what, "skin %u inverseBindMatrices", s);
    if ((rc = accessor(im, it, what, 16, &a, err))) return rc;
    if (a.component_type != SKIO_GLTF_FLOAT) /* the specification's only format for them, MAT4 of FLOAT */
      return fail(im, err, SKC_FORMAT, "%s: accessor %u has componentType %u; inverse bind matrices are FLOAT (5126)",
                  what, a.index, a.component_type);
    if (a.count < si->count)
      return fail(im, err, SKC_FORMAT, "%s: %zu matrices for %u joints", what, a.count, si->count);
    float* m = read_floats(im, &a, err);
    if (!m) return err ? err->code : SKC_FORMAT;
    memcpy(si->ibm, m, (size_t)si->count * 16 * sizeof(float));
    free(m);
  }
  return SKC_OK;
}

static int build_skeleton(importer* im, skc_err* err) {
  uint32_t jc = im->jc;
  if (!jc) return SKC_OK;
  skio_gltf_doc* d = im->d;
  char** names = calloc(jc, sizeof *names);
  int32_t* parents = malloc(jc * sizeof *parents);
  float* local = malloc((size_t)jc * 16 * sizeof(float));
  float* world = malloc((size_t)jc * 16 * sizeof(float));
  float* bind = malloc((size_t)jc * 16 * sizeof(float));
  float* ibind = malloc((size_t)jc * 16 * sizeof(float));
  uint8_t* have = calloc(jc, 1);
  int rc = SKC_OK;
  if (!names || !parents || !local || !world || !bind || !ibind || !have ||
      !(im->s->joint_node = malloc(jc * sizeof *im->s->joint_node))) {
    rc = oom(im, err);
    goto done;
  }
  for (uint32_t node = 0; node < im->node_count && !rc; ++node) {
    int32_t j = im->joint_of[node];
    if (j < 0) continue;
    im->s->joint_node[j] = (int32_t)node;
    parents[j] = im->parent[node] >= 0 ? im->joint_of[im->parent[node]] : SKC_NO_PARENT;
    if ((rc = node_local(im, node, local + (size_t)j * 16, err))) break;
    int nt = skio_json_get(d, skio_gltf_item(d, "nodes", node), "name");
    char* nm = skio_json_is(d, nt, 3) ? skio_json_strdup(d, nt) : NULL;
    if (nm && !nm[0]) {
      free(nm);
      nm = NULL;
    }
    if (!nm) {
      char tmp[32];
      snprintf(tmp, sizeof tmp, "node%u", node);
      nm = dup_str(tmp);
    }
    if (!(names[j] = nm)) rc = oom(im, err);
  }
  if (rc || (rc = unique_names(im, names, jc, err))) goto done;
  skc_fk(parents, jc, local, NULL, world);
  for (uint32_t s = 0; s < im->skin_count; ++s) {
    const skin_info* si = &im->skins[s];
    for (uint32_t k = 0; k < si->count; ++k) skio_bind_take(si->joint[k], si->ibm + (size_t)k * 16, bind, ibind, have);
  }
  skio_bind_fill_rest(jc, world, have, bind, ibind);
  skc_skeleton_init init = {jc, (const char* const*)names, parents, local, bind, ibind, NULL};
  skc_err e2 = {0};
  if ((rc = skc_skeleton_create(&init, &im->s->skeleton, &e2)))
    rc = fail(im, err, rc == SKC_OUT_OF_MEMORY ? rc : SKC_FORMAT, "skeleton: %s", e2.message);
done:
  if (names)
    for (uint32_t j = 0; j < jc; ++j) free(names[j]);
  free(names);
  free(parents);
  free(local);
  free(world);
  free(bind);
  free(ibind);
  free(have);
  return rc;
}

/* ---- meshes ---------------------------------------------------------------------------------------- */
typedef struct prim_ref {
  uint32_t node, mesh, prim;
} prim_ref;

static int prim_mode(const skio_gltf_doc* d, int pt) {
  uint32_t mode = MODE_TRIANGLES;
  int mt = skio_json_get(d, pt, "mode");
  if (mt >= 0 && !skio_json_u32(d, mt, &mode)) return -1;
  return mode <= MODE_FAN ? (int)mode : -1;
}

/* One attribute of a primitive: its accessor declaration, or found = false. */
static int attribute(importer* im, int attrs, const char* key, uint32_t components, size_t vertices, const char* where,
                     skio_gltf_accessor* a, bool* found, skc_err* err) {
  int t = skio_json_get(im->d, attrs, key);
  *found = t >= 0;
  if (t < 0) return SKC_OK;
  char what[160];
  snprintf(what, sizeof what, "%s %s", where, key);
  int rc = accessor(im, t, what, components, a, err);
  if (rc) return rc;
  if (vertices && a->count != vertices)
    return fail(im, err, SKC_FORMAT, "%s: %zu elements for %zu vertices", what, a->count, vertices);
  return SKC_OK;
}

static uint32_t node_depth(const importer* im, uint32_t node) {
  uint32_t depth = 0;
  for (int32_t p = im->parent[node]; p >= 0 && depth < im->node_count; p = im->parent[p]) ++depth;
  return depth;
}

/* The deepest common ancestor of nodes a and b (either may be it), or -1 when they have none (different roots). */
static int32_t common_ancestor(const importer* im, int32_t a, int32_t b) {
  uint32_t da = node_depth(im, (uint32_t)a), db = node_depth(im, (uint32_t)b);
  for (; da > db; --da) a = im->parent[a];
  for (; db > da; --db) b = im->parent[b];
  while (a != b && a >= 0 && b >= 0) {
    a = im->parent[a];
    b = im->parent[b];
  }
  return a == b ? a : -1;
}

/* Where Blender's glTF importer (3.4, "Guess Original Bind Pose") takes skin `skin`'s inverse binds to be relative
 * to: the armature node A (the deepest common ancestor of the joints and the "skeleton" node, or its parent when it
 * is one of the joints), when the skin names its skeleton (A is then the skeleton node or its parent) or A is the
 * scene root (*node = -1). false otherwise: the top joint's bind is then its rest (skio_mesh_top_rest_to_bind). */
static bool skin_bind_node(const importer* im, uint32_t skin, int32_t* node) {
  const skin_info* si = &im->skins[skin];
  int32_t a = (int32_t)si->node[0];
  for (uint32_t k = 1; k < si->count && a >= 0; ++k) a = common_ancestor(im, a, (int32_t)si->node[k]);
  uint32_t skel;
  int st = skio_json_get(im->d, skio_gltf_item(im->d, "skins", skin), "skeleton");
  const bool named = skio_json_u32(im->d, st, &skel) && skel < im->node_count;
  if (a >= 0 && named) a = common_ancestor(im, a, (int32_t)skel);
  for (uint32_t k = 0; k < si->count && a >= 0; ++k)
    if (si->node[k] == (uint32_t)a) a = im->parent[a];
  *node = a;
  return named || a < 0;
}

/* A skin whose joints' rest pose is not its bind pose up to one transform (a scene saved in a pose, what `convert`
 * writes for an FBX saved in an animated frame) does not say in glTF where its bind pose sits; Blender's importer
 * takes the inverse binds relative to the skin's armature node where skin_bind_node says so (bones at A IB(j)^-1,
 * the mesh at A v), and that node's world is then the mesh's bind_world, with which the FBX and Collada writers
 * place the bind pose. */
static void skin_bind_world(const importer* im, uint32_t skin, skio_mesh* m) {
  int32_t a;
  if (skio_mesh_rest_is_bind(im->s, m) || !skin_bind_node(im, skin, &a)) return;
  if (a >= 0 && im->joint_of[a] < 0) return; /* every ancestor of a joint is one: not reached */
  if (a < 0)
    skc_mat4_identity(m->bind_world);
  else
    memcpy(m->bind_world, im->s->skeleton->rest_world + (size_t)im->joint_of[a] * 16, sizeof m->bind_world);
  m->bind_world_set = true;
}

/* WEIGHTS_n's values; unsigned byte / short weights without "normalized" (not valid glTF, but the writer's intent
 * is plain: as raw integers every weight would be in the hundreds) are read as normalized, with a note. */
static float* read_weights(importer* im, const skio_gltf_accessor* a, const char* where, const char* key,
                           skc_err* err) {
  float* out = read_floats_as(im, a, true, err);
  if (out && !a->normalized &&
      (a->component_type == SKIO_GLTF_UNSIGNED_BYTE || a->component_type == SKIO_GLTF_UNSIGNED_SHORT)) {
    char line[200];
    snprintf(line, sizeof line, "%s: %s is unsigned %s without \"normalized\": read as normalized", where, key,
             a->component_type == SKIO_GLTF_UNSIGNED_BYTE ? "byte" : "short");
    skio_scene_note(im->s, line);
  }
  return out;
}

/* A primitive's JOINTS_n / WEIGHTS_n sets as read, four values per vertex each. */
typedef struct weight_sets {
  uint32_t count;
  uint32_t** joints;
  float** weights;
} weight_sets;

/* How many JOINTS_n sets a primitive's attributes hold (JOINTS_0, JOINTS_1, ... while one exists). */
static uint32_t joint_set_count(const skio_gltf_doc* d, int attrs) {
  uint32_t sets = 0;
  for (;; ++sets) {
    char jk[32];
    snprintf(jk, sizeof jk, "JOINTS_%u", sets);
    if (skio_json_get(d, attrs, jk) < 0) break;
  }
  return sets;
}

/* Reads ws->count JOINTS_n / WEIGHTS_n sets of V vertices whole into ws (a JOINTS_n without WEIGHTS_n is
 * SKC_FORMAT); on failure ws keeps what was read, for free_weight_sets. */
static int read_weight_sets(importer* im, int attrs, size_t V, const char* where, weight_sets* ws, skc_err* err) {
  int rc = SKC_OK;
  ws->joints = calloc(ws->count + 1, sizeof *ws->joints);
  ws->weights = calloc(ws->count + 1, sizeof *ws->weights);
  if (!ws->joints || !ws->weights) return oom(im, err);
  for (uint32_t n = 0; n < ws->count && !rc; ++n) {
    char jk[32], wk[32];
    snprintf(jk, sizeof jk, "JOINTS_%u", n);
    snprintf(wk, sizeof wk, "WEIGHTS_%u", n);
    skio_gltf_accessor ja, wa;
    bool jf, wf;
    if ((rc = attribute(im, attrs, jk, 4, V, where, &ja, &jf, err)) ||
        (rc = attribute(im, attrs, wk, 4, V, where, &wa, &wf, err)))
      break;
    if (!wf) {
      rc = fail(im, err, SKC_FORMAT, "%s: %s without %s", where, jk, wk);
      break;
    }
    if (!(ws->joints[n] = read_uints(im, &ja, err)) || !(ws->weights[n] = read_weights(im, &wa, where, wk, err)))
      rc = err ? err->code : SKC_FORMAT;
  }
  return rc;
}

/* Frees the sets in ws and the arrays that hold them. */
static void free_weight_sets(weight_sets* ws) {
  for (uint32_t n = 0; ws->joints && n < ws->count; ++n) free(ws->joints[n]);
  for (uint32_t n = 0; ws->weights && n < ws->count; ++n) free(ws->weights[n]);
  free(ws->joints);
  free(ws->weights);
}

/* Mesh m's inverse binds and bound joints: skin si's matrices for the joints it lists (the first listing of a joint),
 * the skeleton's inverse bind for the others; bone_count = joints listed. */
static int mesh_inverse_binds(importer* im, const skin_info* si, skio_mesh* m, skc_err* err) {
  const skc_skeleton* sk = im->s->skeleton;
  const uint32_t jc = sk->joint_count;
  m->inverse_bind = malloc((size_t)jc * 16 * sizeof(float));
  m->bound = calloc(jc, 1);
  if (!m->inverse_bind || !m->bound) return oom(im, err);
  memcpy(m->inverse_bind, sk->inverse_bind, (size_t)jc * 16 * sizeof(float));
  for (uint32_t k = 0; k < si->count; ++k) {
    uint32_t j = si->joint[k];
    if (m->bound[j]) continue;
    m->bound[j] = 1;
    m->bone_count++;
    memcpy(m->inverse_bind + (size_t)j * 16, si->ibm + (size_t)k * 16, 16 * sizeof(float));
  }
  return SKC_OK;
}

/* The influences of each of the V vertices in ws into m->skin's offsets[v + 1] (counts), non-zero weights only; those
 * naming an index past skin si's joints are counted in m->dropped_weights. Returns the influences kept. */
static size_t count_influences(const skin_info* si, const weight_sets* ws, size_t V, skio_mesh* m) {
  uint32_t* offsets = m->skin->offsets;
  size_t total = 0;
  for (size_t v = 0; v < V; ++v)
    for (uint32_t n = 0; n < ws->count; ++n)
      for (int c = 0; c < 4; ++c) {
        float w = ws->weights[n][v * 4 + (size_t)c];
        if (w == 0.0f) continue;
        if (ws->joints[n][v * 4 + (size_t)c] >= si->count) {
          m->dropped_weights++;
          continue;
        }
        offsets[v + 1]++;
        total++;
      }
  return total;
}

/* m->skin's influences from ws, joint indices through skin si's joints to skeleton joints. */
static int fill_influences(importer* im, const skin_info* si, const weight_sets* ws, skio_mesh* m, const char* where,
                           skc_err* err) {
  const size_t V = m->vertex_count;
  /* counting pass into offsets[v + 1], running sum, fill pass (as scene_import.c's build_skin) */
  uint32_t* offsets = m->skin->offsets;
  size_t total = count_influences(si, ws, V, m);
  if (total > UINT32_MAX) return fail(im, err, SKC_UNSUPPORTED, "%s has too many influences", where);
  int rc = skc_skin_reserve(m->skin, total, err);
  if (rc) return rc;
  uint32_t start = 0;
  for (size_t v = 0; v < V; ++v) {
    uint32_t c = offsets[v + 1];
    offsets[v + 1] = start;
    start += c;
  }
  for (size_t v = 0; v < V; ++v)
    for (uint32_t n = 0; n < ws->count; ++n)
      for (int c = 0; c < 4; ++c) {
        float w = ws->weights[n][v * 4 + (size_t)c];
        uint32_t jj = ws->joints[n][v * 4 + (size_t)c];
        if (w == 0.0f || jj >= si->count) continue;
        uint32_t at = offsets[v + 1]++;
        m->skin->joints[at] = si->joint[jj];
        m->skin->weights[at] = w;
      }
  return SKC_OK;
}

/* Mesh m's skin from the sets ws read for skin si_index: the skin, its inverse binds and influences, its bind world. */
static int skin_from_sets(importer* im, uint32_t si_index, const weight_sets* ws, skio_mesh* m, const char* where,
                          skc_err* err) {
  const skc_skeleton* sk = im->s->skeleton;
  const skin_info* si = &im->skins[si_index];
  int rc = skc_skin_create(m->vertex_count, sk->joint_count, &m->skin, err);
  if (rc || (rc = mesh_inverse_binds(im, si, m, err))) return rc;
  skio_mesh_unbound_in_bind_frame(sk, m);
  if ((rc = fill_influences(im, si, ws, m, where, err))) return rc;
  im->rep.dropped_weights += m->dropped_weights;
  skin_bind_world(im, si_index, m);
  return SKC_OK;
}

static int build_skin(importer* im, const prim_ref* r, int attrs, skio_mesh* m, const char* where, skc_err* err) {
  skio_gltf_doc* d = im->d;
  const skc_skeleton* sk = im->s->skeleton;
  uint32_t si_index;
  if (!skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "nodes", r->node), "skin"), &si_index) ||
      si_index >= im->skin_count)
    return fail(im, err, SKC_FORMAT, "node %u: skin is not a skin index", r->node);
  const skin_info* si = &im->skins[si_index];
  if (!sk || !si->count) return SKC_OK; /* a skin without joints: the mesh stays unskinned */
  /* every JOINTS_n / WEIGHTS_n set, read whole */
  weight_sets ws = {joint_set_count(d, attrs), NULL, NULL};
  if (ws.count > SKC_MAX_INFLUENCES_PER_VERTEX / 4)
    return fail(im, err, SKC_UNSUPPORTED, "%s: %u JOINTS_n sets, more than %u influences per vertex", where, ws.count,
                SKC_MAX_INFLUENCES_PER_VERTEX);
  int rc = read_weight_sets(im, attrs, m->vertex_count, where, &ws, err);
  if (!rc) rc = skin_from_sets(im, si_index, &ws, m, where, err);
  free_weight_sets(&ws);
  return rc;
}

/* triangles of a primitive's corner list (indices or 0..n-1) by mode */
static int triangulate(importer* im, const uint32_t* c, size_t n, int mode, skio_mesh* m, skc_err* err) {
  size_t tris = mode == MODE_TRIANGLES ? n / 3 : (n >= 3 ? n - 2 : 0);
  if (!(m->indices = skc_malloc_filled(tris * 3 * sizeof *m->indices + 1))) return oom(im, err);
  uint32_t* o = m->indices;
  for (size_t t = 0; t < tris; ++t, o += 3) {
    if (mode == MODE_TRIANGLES) {
      o[0] = c[t * 3], o[1] = c[t * 3 + 1], o[2] = c[t * 3 + 2];
    } else if (mode == MODE_STRIP) { /* {v_i, v_(i + 1 + i % 2), v_(i + 2 - i % 2)} */
      o[0] = c[t], o[1] = c[t + 1 + t % 2], o[2] = c[t + 2 - t % 2];
    } else { /* fan: {v_(i + 1), v_(i + 2), v_0} */
      o[0] = c[t + 1], o[1] = c[t + 2], o[2] = c[0];
    }
  }
  m->index_count = tris * 3;
  return SKC_OK;
}

/* The triangles of primitive pt (its indices, or its vertices in order) into m->indices / m->index_count. */
static int read_corners(importer* im, int pt, int mode, size_t V, const char* where, skio_mesh* m, skc_err* err) {
  skio_gltf_doc* d = im->d;
  skio_gltf_accessor ia;
  int rc = SKC_OK;
  int it = skio_json_get(d, pt, "indices");
  if (it >= 0) {
    char what[112];
    snprintf(what, sizeof what, "%s indices", where);
    if ((rc = accessor(im, it, what, 1, &ia, err))) return rc;
    if (ia.component_type == SKIO_GLTF_FLOAT || ia.normalized)
      return fail(im, err, SKC_FORMAT, "%s: indices are not unsigned integers", where);
    uint32_t* idx = read_uints(im, &ia, err);
    if (!idx) return err ? err->code : SKC_FORMAT;
    for (size_t k = 0; k < ia.count; ++k)
      if (idx[k] >= V) {
        rc = fail(im, err, SKC_FORMAT, "%s: index %u (corner %zu) is past the %zu vertices", where, idx[k], k, V);
        break;
      }
    if (!rc) rc = triangulate(im, idx, ia.count, mode, m, err);
    free(idx);
  } else {
    uint32_t* seq = malloc(V * sizeof *seq + 1);
    if (!seq) return oom(im, err);
    for (size_t v = 0; v < V; ++v) seq[v] = (uint32_t)v;
    rc = triangulate(im, seq, V, mode, m, err);
    free(seq);
  }
  return rc;
}

/* A texture coordinate set, stored as (u, 1 - v) like Assimp (the writer flips it back); *out stays NULL when the
 * primitive has none. */
static int read_uv(importer* im, int attrs, const char* key, const char* where, skio_mesh* m, float** out,
                   skc_err* err) {
  skio_gltf_accessor a;
  bool found;
  int rc = attribute(im, attrs, key, 2, m->vertex_count, where, &a, &found, err);
  if (rc || !found) return rc;
  if (!(*out = read_floats(im, &a, err))) return err ? err->code : SKC_FORMAT;
  for (size_t v = 0; v < m->vertex_count; ++v) (*out)[v * 2 + 1] = 1.0f - (*out)[v * 2 + 1];
  return SKC_OK;
}

/* COLOR_0 (VEC3 or VEC4; float, normalized unsigned byte or short) as linear RGBA, alpha 1 for VEC3. */
static int read_colors(importer* im, int attrs, const char* where, skio_mesh* m, skc_err* err) {
  skio_gltf_accessor a;
  bool found;
  int rc = attribute(im, attrs, "COLOR_0", 0, m->vertex_count, where, &a, &found, err);
  if (rc || !found) return rc;
  if (a.components != 3 && a.components != 4)
    return fail(im, err, SKC_FORMAT, "%s COLOR_0: accessor %u has %u components (VEC3 or VEC4)", where, a.index,
                a.components);
  float* c = read_floats(im, &a, err);
  if (!c) return err ? err->code : SKC_FORMAT;
  if (a.components == 3) { /* widen in place, from the end */
    float* w = realloc(c, m->vertex_count * 4 * sizeof *w + 1);
    if (!w) {
      free(c);
      return oom(im, err);
    }
    c = w;
    for (size_t v = m->vertex_count; v-- > 0;) {
      c[v * 4 + 3] = 1.0f;
      for (int k = 2; k >= 0; --k) c[v * 4 + k] = c[v * 3 + k];
    }
  }
  m->colors = c;
  return SKC_OK;
}

#define MAX_MORPH_FLOATS ((size_t)1 << 27) /* 512 MiB of whole target positions per primitive */

/* One target's attribute as whole values: base + the target's offsets (n vertices, 3 floats). NULL with *bad set
 * when the target lacks it (or it does not read); NULL with *oom when memory ran out. */
static float* target_values(importer* im, int target, const char* key, const float* base, size_t n, bool* bad,
                            bool* oom_hit) {
  skio_gltf_accessor a;
  bool found = false;
  skc_err e = {0};
  if (attribute(im, target, key, 3, n, "morph target", &a, &found, &e) || !found) {
    *bad = true;
    return NULL;
  }
  float* v = read_floats(im, &a, &e);
  if (!v) {
    *oom_hit |= e.code == SKC_OUT_OF_MEMORY;
    *bad = true;
    return NULL;
  }
  for (size_t i = 0; i < 3 * n; ++i) v[i] += base[i];
  return v;
}

/* Names (the mesh's extras.targetNames, which Blender and three.js write) and default weights (the mesh's weights,
 * else 0) of T targets. false when out of memory. */
static bool morph_labels(importer* im, int mt, uint32_t T, skio_mesh* m) {
  const skio_gltf_doc* d = im->d;
  int names = skio_json_get(d, skio_json_get(d, mt, "extras"), "targetNames");
  int weights = skio_json_get(d, mt, "weights");
  m->morph_names = calloc(T, sizeof *m->morph_names);
  m->morph_weights = calloc(T, sizeof *m->morph_weights);
  if (!m->morph_names || !m->morph_weights) return false;
  for (uint32_t k = 0; k < T; ++k) {
    int nt = skio_json_at(d, names, (int)k);
    if (skio_json_is(d, nt, 3)) m->morph_names[k] = skio_json_strdup(d, nt);
    if (!m->morph_names[k] && (m->morph_names[k] = malloc(24))) snprintf(m->morph_names[k], 24, "target%u", k);
    if (!m->morph_names[k]) return false;
    double w = 0.0;
    if (skio_json_num(d, skio_json_at(d, weights, (int)k), &w)) m->morph_weights[k] = (float)w;
  }
  return true;
}

static void drop_morphs(skio_mesh* m) {
  for (uint32_t k = 0; m->morph_names && k < m->morph_count; ++k) free(m->morph_names[k]);
  free(m->morph_names);
  free(m->morph_weights);
  free(m->morph_positions);
  free(m->morph_normals);
  m->morph_names = NULL;
  m->morph_weights = m->morph_positions = m->morph_normals = NULL;
  m->morph_count = 0;
  skio_mesh_free_morph_keys(m);
}

/* scene_of[node]: the "scenes" entry whose nodes hold the node (it or an ancestor listed there): the default scene
 * ("scene", else 0) when it does, else the first other one; -1 when no scene lists it. One pass over the scenes'
 * lists and one down the forest (a mesh looked its scene up over every root before: 20,000 meshes listed as roots
 * took 20 s to read). */
static int node_scenes(importer* im, skc_err* err) {
  const skio_gltf_doc* d = im->d;
  const uint32_t n = im->node_count;
  if (!(im->scene_of = malloc((n + 1) * sizeof *im->scene_of))) return oom(im, err);
  int32_t* rank = im->scene_of; /* first: the best rank of a scene listing the node itself (0: the default) */
  for (uint32_t i = 0; i < n; ++i) rank[i] = INT32_MAX;
  uint32_t def = 0;
  const int st = skio_json_get(d, 0, "scene");
  if (st >= 0 && !skio_json_u32(d, st, &def)) def = 0;
  const int count = skio_json_len(d, skio_json_get(d, 0, "scenes"));
  for (int sc = 0; sc < count; ++sc) {
    const int roots = skio_json_get(d, skio_gltf_item(d, "scenes", (uint32_t)sc), "nodes");
    const int32_t r = (uint32_t)sc == def ? 0 : sc + 1;
    for (int k = 0, nr = skio_json_len(d, roots); k < nr; ++k) {
      uint32_t x;
      if (skio_json_u32(d, skio_json_at(d, roots, k), &x) && x < n && r < rank[x]) rank[x] = r;
    }
  }
  for (uint32_t k = 0; k < n; ++k) { /* preorder: a parent's best rank is final before its children's */
    const uint32_t x = im->order[k];
    const int32_t p = im->parent[x];
    if (p >= 0 && rank[p] < rank[x]) rank[x] = rank[p];
  }
  for (uint32_t i = 0; i < n; ++i)
    im->scene_of[i] = rank[i] == INT32_MAX ? -1 : rank[i] == 0 ? (int32_t)def : rank[i] - 1;
  return SKC_OK;
}

/* The primitive's morph targets as blend shapes (skio_mesh.morph_*: whole positions, and whole normals when the
 * mesh and every target have them), so that a glTF written from the scene (its skeleton changed: --links) keeps them
 * and the FBX and Collada writers say they cannot. A target that does not read (a missing or mismatched POSITION, a
 * broken accessor) drops the primitive's blend shapes with a note instead of failing the file, which loaded before
 * they were read. Only running out of memory fails. */
static int read_morphs(importer* im, int mt, int pt, const char* where, skio_mesh* m, skc_err* err) {
  const skio_gltf_doc* d = im->d;
  int targets = skio_json_get(d, pt, "targets");
  const uint32_t T = (uint32_t)skio_json_len(d, targets);
  const size_t V = m->vertex_count;
  if (!T || !V) return SKC_OK;
  char line[200];
  if ((size_t)T * V * 3 > MAX_MORPH_FLOATS) {
    snprintf(line, sizeof line, "%s: %u morph targets of %zu vertices not read (too large)", where, T, V);
    skio_scene_note(im->s, line);
    return SKC_OK;
  }
  m->morph_count = T;
  bool bad = false, oom_hit = false, normals = m->normals != NULL;
  m->morph_positions = malloc((size_t)T * V * 3 * sizeof(float));
  m->morph_normals = normals ? malloc((size_t)T * V * 3 * sizeof(float)) : NULL;
  oom_hit = !m->morph_positions || (normals && !m->morph_normals) || !morph_labels(im, mt, T, m);
  for (uint32_t k = 0; k < T && !bad && !oom_hit; ++k) {
    int tt = skio_json_at(d, targets, (int)k);
    float* p = target_values(im, tt, "POSITION", m->positions, V, &bad, &oom_hit);
    if (p) memcpy(m->morph_positions + (size_t)k * V * 3, p, V * 3 * sizeof(float));
    free(p);
    bool no_normal = false;
    float* q = normals && !bad ? target_values(im, tt, "NORMAL", m->normals, V, &no_normal, &oom_hit) : NULL;
    if (q) memcpy(m->morph_normals + (size_t)k * V * 3, q, V * 3 * sizeof(float));
    free(q);
    if (no_normal && normals) { /* a target without normal offsets: the shapes keep no normals */
      free(m->morph_normals);
      m->morph_normals = NULL;
      normals = false;
    }
  }
  if (oom_hit) {
    drop_morphs(m);
    return oom(im, err);
  }
  if (bad) {
    drop_morphs(m);
    snprintf(line, sizeof line, "%s: morph targets not read (a target's POSITION is missing or does not read)", where);
    skio_scene_note(im->s, line);
  }
  return SKC_OK;
}

/* Node i's name, or NULL when it has none (or an empty one). */
static char* node_name_of(importer* im, uint32_t i) {
  int nt = skio_json_get(im->d, skio_gltf_item(im->d, "nodes", i), "name");
  char* name = skio_json_is(im->d, nt, 3) ? skio_json_strdup(im->d, nt) : NULL;
  if (name && !name[0]) free(name), name = NULL;
  return name;
}

/* The name of the node that holds a mesh instanced at node i: its own, else (an unnamed node under a named one that is
 * no bone and holds no mesh: gltfpack's and other optimizers' node carrying the dequantization of a named object's
 * mesh; a keyed one is a joint only to hold its motion) its parent's; NULL for none. */
static char* mesh_node_name(importer* im, uint32_t i) {
  char* name = node_name_of(im, i);
  const int32_t p = im->parent[i];
  if (name || p < 0 || (im->joint_of[p] >= 0 && !(im->keyed_node && im->keyed_node[p])) ||
      skio_json_get(im->d, skio_gltf_item(im->d, "nodes", (uint32_t)p), "mesh") >= 0)
    return name;
  return node_name_of(im, (uint32_t)p);
}

/* A Draco primitive whose accessors declare another vertex count than its Draco data decodes to (FBX2glTF 0.9.7's
 * count before compression; gltf_draco.c takes the decoded one): noted once, however many nodes instance it. */
static void note_draco_recount(importer* im, const char* where, const char* name, const skio_gltf_accessor* pa) {
  if (!pa->draco || pa->declared_count == pa->count) return;
  char line[400];
  snprintf(line, sizeof line,
           "%s (\"%.120s\"): its KHR_draco_mesh_compression accessors declare %zu vertices, its Draco data decodes to "
           "%zu: read as decoded",
           where, name, pa->declared_count, pa->count);
  if (!im->s->material_note || !strstr(im->s->material_note, line)) skio_scene_note(im->s, line);
}

static int build_mesh(importer* im, const prim_ref* r, skio_mesh* m, skc_err* err) {
  skio_gltf_doc* d = im->d;
  int mt = skio_gltf_item(d, "meshes", r->mesh);
  int prims = skio_json_get(d, mt, "primitives");
  int pt = skio_json_at(d, prims, (int)r->prim);
  int attrs = skio_json_get(d, pt, "attributes");
  int mode = prim_mode(d, pt);
  m->gltf_mesh = (int32_t)r->mesh;
  m->gltf_primitive = (int32_t)r->prim;
  m->gltf_node = m->node_group = (int32_t)r->node;
  m->gltf_scene = im->scene_of[r->node];
  m->node_name = mesh_node_name(im, r->node);
  int nt = skio_json_get(d, mt, "name"); /* an unnamed mesh takes its node's name (three.js names only nodes) */
  char* base = skio_json_is(d, nt, 3) ? skio_json_strdup(d, nt) : NULL;
  if ((!base || !base[0]) && m->node_name) free(base), base = strdup(m->node_name);
  char tmp[48];
  snprintf(tmp, sizeof tmp, "mesh%u", r->mesh);
  size_t blen = base && base[0] ? strlen(base) : strlen(tmp);
  if ((m->name = malloc(blen + 16))) {
    if (skio_json_len(d, prims) > 1)
      snprintf(m->name, blen + 16, "%s-%u", base && base[0] ? base : tmp, r->prim);
    else
      snprintf(m->name, blen + 16, "%s", base && base[0] ? base : tmp);
  }
  free(base);
  int own = skio_json_get(d, skio_json_get(d, pt, "extras"), "name"); /* skinkit's writer: one object's meshes */
  char* named = skio_json_is(d, own, 3) ? skio_json_strdup(d, own) : NULL;
  if (named && named[0] && m->name) {
    free(m->name);
    m->name = named;
  } else {
    free(named);
  }
  if (!m->name) return oom(im, err);
  char where[96];
  snprintf(where, sizeof where, "mesh %u primitive %u", r->mesh, r->prim);

  skio_gltf_accessor pa, na, ta;
  bool pf, nf, tf;
  int rc = attribute(im, attrs, "POSITION", 3, 0, where, &pa, &pf, err);
  if (rc) return rc;
  note_draco_recount(im, where, m->name, &pa);
  size_t V = pa.count;
  if ((rc = attribute(im, attrs, "NORMAL", 3, V, where, &na, &nf, err)) ||
      (rc = attribute(im, attrs, "TANGENT", 4, V, where, &ta, &tf, err)))
    return rc;
  if (V >= UINT32_MAX) return fail(im, err, SKC_UNSUPPORTED, "%s has %zu vertices", where, V);
  m->vertex_count = V;
  if (!(m->positions = read_floats(im, &pa, err))) return err ? err->code : SKC_FORMAT;
  if (nf && !(m->normals = read_floats(im, &na, err))) return err ? err->code : SKC_FORMAT;
  if (tf && !(m->tangents = read_floats(im, &ta, err))) return err ? err->code : SKC_FORMAT;
  if ((rc = read_uv(im, attrs, "TEXCOORD_0", where, m, &m->uv0, err)) ||
      (rc = read_uv(im, attrs, "TEXCOORD_1", where, m, &m->uv1, err)) || (rc = read_colors(im, attrs, where, m, err)))
    return rc;
  m->material = UINT32_MAX; /* set by skio_gltf_read_materials once the tables are read */
  if ((rc = read_corners(im, pt, mode, V, where, m, err)) || (rc = read_morphs(im, mt, pt, where, m, err))) return rc;
  if (skio_json_get(d, skio_gltf_item(d, "nodes", r->node), "skin") >= 0)
    return build_skin(im, r, attrs, m, where, err);
  return SKC_OK;
}

/* The (node, mesh, primitive) triples to read, in node preorder: triangle primitives with a POSITION. */
static int list_prims(importer* im, prim_ref** out, size_t* out_count, skc_err* err) {
  skio_gltf_doc* d = im->d;
  size_t count = 0, cap = 0;
  prim_ref* refs = NULL;
  int rc = SKC_OK;
  for (uint32_t k = 0; k < im->node_count && !rc; ++k) {
    uint32_t node = im->order[k], mesh;
    int nt = skio_gltf_item(d, "nodes", node);
    int mt = skio_json_get(d, nt, "mesh");
    if (mt < 0) continue;
    if (!skio_json_u32(d, mt, &mesh) || mesh >= d->mesh_count) {
      rc = fail(im, err, SKC_FORMAT, "node %u: mesh is not a mesh index", node);
      break;
    }
    int prims = skio_json_get(d, skio_gltf_item(d, "meshes", mesh), "primitives");
    int len = skio_json_len(d, prims);
    for (int p = 0; p < len; ++p) {
      int pt = skio_json_at(d, prims, p);
      int mode = prim_mode(d, pt);
      if (mode < 0) {
        rc = fail(im, err, SKC_FORMAT, "mesh %u primitive %d: mode is not 0..6", mesh, p);
        break;
      }
      if (mode < MODE_TRIANGLES || skio_json_get(d, skio_json_get(d, pt, "attributes"), "POSITION") < 0) {
        im->rep.primitives_skipped++;
        im->rep.primitives_no_position += mode >= MODE_TRIANGLES;
        continue;
      }
      if (count == MAX_INSTANCES) {
        rc = fail(im, err, SKC_UNSUPPORTED, "more than %u triangle primitives (counting each node instancing one)",
                  MAX_INSTANCES);
        break;
      }
      if (count == cap) {
        cap = cap ? cap * 2 : 16;
        prim_ref* grown = realloc(refs, cap * sizeof *refs);
        if (!grown) {
          rc = oom(im, err);
          break;
        }
        refs = grown;
      }
      refs[count++] = (prim_ref){node, mesh, (uint32_t)p};
    }
  }
  *out = refs;
  *out_count = count;
  return rc;
}

static int prim_token(const skio_gltf_doc* d, const prim_ref* r) {
  return skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", r->mesh), "primitives"), (int)r->prim);
}

/* Whether two primitives draw one vertex set: their attribute objects name the same accessors under the same keys in
 * the same order (three.js's exporter writes a multi-material mesh so). A Draco primitive decodes its own vertices
 * and is never merged; nor are attribute objects of more than MERGE_MAX_KEYS keys, and a primitive is compared with
 * at most MERGE_MAX_GROUPS vertex sets of its mesh, so hostile files stay cheap (65535 primitives x 16 x 32 keys). */
#define MERGE_MAX_KEYS 32
#define MERGE_MAX_GROUPS 16
static bool same_vertices(const skio_gltf_doc* d, int pa, int pb) {
  int a = skio_json_get(d, pa, "attributes"), b = skio_json_get(d, pb, "attributes");
  if (!skio_json_is(d, a, 1) || !skio_json_is(d, b, 1) || d->tok[a].size != d->tok[b].size ||
      d->tok[a].size > MERGE_MAX_KEYS)
    return false;
  if (skio_json_get(d, skio_json_get(d, pa, "extensions"), "KHR_draco_mesh_compression") >= 0 ||
      skio_json_get(d, skio_json_get(d, pb, "extensions"), "KHR_draco_mesh_compression") >= 0)
    return false;
  for (int i = 0; i < d->tok[a].size; ++i) {
    int ka = skio_json_key_at(d, a, i), kb = skio_json_key_at(d, b, i);
    size_t la = (size_t)(d->tok[ka].end - d->tok[ka].start);
    uint32_t x, y;
    if ((size_t)(d->tok[kb].end - d->tok[kb].start) != la ||
        memcmp(d->json + d->tok[ka].start, d->json + d->tok[kb].start, la) || !skio_json_u32(d, ka + 1, &x) ||
        !skio_json_u32(d, kb + 1, &y) || x != y)
      return false;
  }
  return true;
}

/* leader[i]: the first primitive of i's (node, mesh) that draws the same vertex set, i itself when none (the
 * primitives of one node's mesh are listed one after another). */
static void group_prims(const skio_gltf_doc* d, const prim_ref* refs, size_t count, uint32_t* leader) {
  uint32_t sets[MERGE_MAX_GROUPS];
  int nsets = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i && (refs[i].node != refs[i - 1].node || refs[i].mesh != refs[i - 1].mesh)) nsets = 0;
    leader[i] = (uint32_t)i;
    for (int k = 0; k < nsets; ++k)
      if (same_vertices(d, prim_token(d, &refs[sets[k]]), prim_token(d, &refs[i]))) {
        leader[i] = sets[k];
        break;
      }
    if (leader[i] == i && nsets < MERGE_MAX_GROUPS) sets[nsets++] = (uint32_t)i;
  }
}

/* The mesh's first part (its own primitive), before a second is added. */
static int first_part(importer* im, skio_mesh* m, uint32_t parts, skc_err* err) {
  if (!(m->parts = calloc(parts, sizeof *m->parts)) || !(m->parts[0].name = dup_str(m->name))) return oom(im, err);
  m->part_count = 1;
  m->parts[0] = (skio_mesh_part){m->parts[0].name, 0, m->index_count, UINT32_MAX, m->gltf_primitive};
  return SKC_OK;
}

/* Primitive r, which draws m's vertex set, as m's next part: its triangles appended to m's indices. */
static int add_part(importer* im, const prim_ref* r, skio_mesh* m, skc_err* err) {
  skio_mesh tmp = {0};
  char where[96];
  snprintf(where, sizeof where, "mesh %u primitive %u", r->mesh, r->prim);
  int pt = prim_token(im->d, r);
  int rc = read_corners(im, pt, prim_mode(im->d, pt), m->vertex_count, where, &tmp, err);
  uint32_t* grown = rc ? NULL : realloc(m->indices, (m->index_count + tmp.index_count) * sizeof *grown + 1);
  char* name = rc ? NULL : malloc(strlen(m->parts[0].name) + 16);
  if (!rc && (!grown || !name)) rc = oom(im, err);
  if (grown) m->indices = grown;
  if (!rc) {
    memcpy(m->indices + m->index_count, tmp.indices, tmp.index_count * sizeof *tmp.indices);
    /* the reader's name for the primitive: the mesh's name with "-<primitive>" */
    const char* base = m->parts[0].name;
    const char* dash = strrchr(base, '-');
    int keep = dash ? (int)(dash - base) : (int)strlen(base);
    snprintf(name, strlen(base) + 16, "%.*s-%u", keep, base, r->prim);
    m->parts[m->part_count++] = (skio_mesh_part){name, m->index_count, tmp.index_count, UINT32_MAX, (int32_t)r->prim};
    m->index_count += tmp.index_count;
    name = NULL;
  }
  free(name);
  free(tmp.indices);
  return rc;
}

/* A mesh that holds every primitive of its glTF mesh takes the mesh's name without the "-<primitive>" suffix. */
static void name_whole(importer* im, skio_mesh* m) {
  int prims = skio_json_get(im->d, skio_gltf_item(im->d, "meshes", (uint32_t)m->gltf_mesh), "primitives");
  char* dash = strrchr(m->name, '-');
  if (m->part_count > 1 && (int)m->part_count == skio_json_len(im->d, prims) && dash) *dash = 0;
}

static int build_meshes(importer* im, skc_err* err) {
  skio_gltf_doc* d = im->d;
  size_t count = 0;
  prim_ref* refs = NULL;
  int rc = list_prims(im, &refs, &count, err);
  uint32_t* leader = rc || !count ? NULL : malloc(count * sizeof *leader);
  uint32_t* mesh_of = rc || !count ? NULL : malloc(count * sizeof *mesh_of);
  uint32_t* parts = rc || !count ? NULL : calloc(count, sizeof *parts);
  if (!rc && count && (!leader || !mesh_of || !parts)) rc = oom(im, err);
  size_t meshes = 0;
  if (!rc && count) {
    group_prims(d, refs, count, leader);
    for (size_t i = 0; i < count; ++i) parts[leader[i]]++;
    for (size_t i = 0; i < count; ++i) meshes += leader[i] == i;
    if (!(im->s->meshes = calloc(meshes, sizeof *im->s->meshes))) rc = oom(im, err);
  }
  for (size_t i = 0, at = 0; i < count && !rc; ++i) {
    if (leader[i] != i) { /* a later part of an earlier mesh */
      skio_mesh* m = &im->s->meshes[mesh_of[leader[i]]];
      if (!m->parts) rc = first_part(im, m, parts[leader[i]], err);
      if (!rc) rc = add_part(im, &refs[i], m, err);
      if (!rc && m->part_count == parts[leader[i]]) name_whole(im, m);
      continue;
    }
    mesh_of[i] = (uint32_t)at;
    skio_mesh* m = &im->s->meshes[at++];
    m->gltf_mesh = m->gltf_primitive = m->gltf_node = m->rigid_joint = m->parent_joint = m->node_group = -1;
    m->gltf_scene = -1;
    im->s->mesh_count = (uint32_t)at;
    /* vertex budget before reading: POSITION's declared count */
    skio_gltf_accessor pa;
    char where[96];
    snprintf(where, sizeof where, "mesh %u primitive %u POSITION", refs[i].mesh, refs[i].prim);
    int attrs = skio_json_get(d, prim_token(d, &refs[i]), "attributes");
    if ((rc = accessor(im, skio_json_get(d, attrs, "POSITION"), where, 3, &pa, err))) break;
    im->total_vertices += pa.count;
    if (im->total_vertices > MAX_TOTAL_VERTICES) {
      rc = fail(im, err, SKC_UNSUPPORTED, "more than %zu vertices in all mesh instances", MAX_TOTAL_VERTICES);
      break;
    }
    rc = build_mesh(im, &refs[i], m, err);
  }
  free(refs);
  free(leader);
  free(mesh_of);
  free(parts);
  return rc;
}

/* ---- unskinned meshes at their place ---------------------------------------------------------------------- */
/* Every mesh without a skin gets its node's world transform baked in and, when the node hangs below a bone (a
 * joint some skin binds, or a joint below one), a rigid binding to the nearest such joint (skio_mesh_place, as the
 * Assimp path does). World transforms are computed once per node on the paths from those nodes to their roots. */
static int place_unskinned(importer* im, skc_err* err) {
  skio_scene* s = im->s;
  bool any = false;
  for (uint32_t m = 0; m < s->mesh_count; ++m) any |= s->meshes[m].skin == NULL;
  if (!any) return SKC_OK;
  uint32_t n = im->node_count, jc = im->jc, marked = 0;
  int32_t* widx = malloc((n + 1) * sizeof *widx);
  uint8_t* isbone = calloc(jc + 1, 1);
  int rc = SKC_OK;
  float* world = NULL;
  int32_t* bone = NULL;
  if (!widx || !isbone) {
    rc = oom(im, err);
    goto done;
  }
  for (uint32_t i = 0; i < n; ++i) widx[i] = -1;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    if (s->meshes[m].skin) continue;
    for (int32_t p = s->meshes[m].gltf_node; p >= 0 && widx[p] == -1; p = im->parent[p]) widx[p] = -2, ++marked;
  }
  /* a joint is a bone when it or a joint above it is bound by a skin (scene_import.c's joint_is_bone) */
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].skin && s->meshes[m].bound)
      for (uint32_t j = 0; j < jc; ++j) isbone[j] |= s->meshes[m].bound[j];
  for (uint32_t j = 0; j < jc; ++j)
    if (s->skeleton->parents[j] >= 0) isbone[j] |= isbone[s->skeleton->parents[j]];
  world = malloc(((size_t)marked + 1) * 16 * sizeof *world);
  bone = malloc(2 * ((size_t)marked + 1) * sizeof *bone);
  if (!world || !bone) {
    rc = oom(im, err);
    goto done;
  }
  int32_t* holder = bone + marked + 1; /* the nearest joint of any kind (the armature object's node too) */
  uint32_t k = 0;
  for (uint32_t o = 0; o < n && !rc; ++o) { /* preorder: parents first */
    uint32_t node = im->order[o];
    if (widx[node] != -2) continue;
    float local[16];
    if ((rc = node_local(im, node, local, err))) break;
    int32_t p = im->parent[node], j = im->joint_of[node];
    if (p >= 0) {
      skc_mat4_mul(world + (size_t)widx[p] * 16, local, world + (size_t)k * 16);
      bone[k] = bone[widx[p]];
      holder[k] = holder[widx[p]];
    } else {
      memcpy(world + (size_t)k * 16, local, sizeof local);
      bone[k] = holder[k] = -1;
    }
    if (j >= 0 && isbone[j]) bone[k] = j;
    if (im->keyed_node && im->keyed_node[node]) bone[k] = -1; /* its mesh hangs from its own joint */
    if (j >= 0) holder[k] = j;
    widx[node] = (int32_t)k++;
  }
  for (uint32_t m = 0; m < s->mesh_count && !rc; ++m) {
    skio_mesh* me = &s->meshes[m];
    if (me->skin) continue;
    int32_t w = widx[me->gltf_node];
    skc_err e2 = {0};
    if ((rc = skio_mesh_place(s, me, world + (size_t)w * 16, bone[w], &e2)))
      rc = fail(im, err, rc, "mesh %u primitive %u at node %u: %s", (unsigned)me->gltf_mesh,
                (unsigned)me->gltf_primitive, (unsigned)me->gltf_node, e2.message);
    else if (bone[w] < 0)
      me->parent_joint = holder[w]; /* a prop under the armature object */
  }
done:
  free(widx);
  free(isbone);
  free(world);
  free(bone);
  return rc;
}

/* ---- animations ------------------------------------------------------------------------------------ */
/* Joint j's channel in clip a (made on its first key track; a->channels has room for every joint). */
static skio_channel* joint_channel(skio_anim* a, int32_t* chan_of, int32_t j) {
  if (chan_of[j] < 0) {
    chan_of[j] = (int32_t)a->channel_count;
    a->channels[a->channel_count++].joint = (uint32_t)j;
  }
  return &a->channels[chan_of[j]];
}

/* Listed object ob's channel in clip ai (s->object_channels, grown on its first key track); NULL when out of
 * memory. */
static skio_channel* object_channel(importer* im, uint32_t ai, int32_t ob) {
  skio_scene* s = im->s;
  if (im->ochan_of[ob] < 0) {
    skio_object_channel* grown = realloc(s->object_channels, ((size_t)s->object_channel_count + 1) * sizeof *grown);
    if (!grown) return NULL;
    s->object_channels = grown;
    memset(&grown[s->object_channel_count], 0, sizeof *grown);
    grown[s->object_channel_count].anim = ai;
    grown[s->object_channel_count].ch.joint = (uint32_t)ob;
    im->ochan_of[ob] = (int32_t)s->object_channel_count++;
  }
  return &s->object_channels[im->ochan_of[ob]].ch;
}

/* A LINEAR or STEP sampler's n keys (times, values of comps floats) into new arrays *ot, *ov; false when out of
 * memory. */
static bool plain_keys(const float* t, const float* v, size_t n, uint32_t comps, double** ot, float** ov) {
  *ot = malloc((n ? n : 1) * sizeof **ot);
  *ov = malloc((n ? n : 1) * comps * sizeof **ov);
  if (!*ot || !*ov) return false;
  for (size_t k = 0; k < n; ++k) (*ot)[k] = t[k];
  if (n) memcpy(*ov, v, n * comps * sizeof **ov);
  return true;
}

/* Component c of the curve of a CUBICSPLINE sampler (v: per key, comps in-tangents, values, out-tangents) in interval
 * k at fraction u: the specification's Hermite form. */
static double hermite(const float* t, const float* v, uint32_t comps, size_t k, double u, uint32_t c) {
  const double td = (double)t[k + 1] - t[k], u2 = u * u, u3 = u2 * u;
  const float* p = v + 3 * k * comps + c; /* key k's in-tangent; its value at + comps, ... key k + 1's at + 3 comps */
  return (2 * u3 - 3 * u2 + 1) * p[comps] + td * (u3 - 2 * u2 + u) * p[2 * comps] + (-2 * u3 + 3 * u2) * p[4 * comps] +
         td * (u3 - u2) * p[3 * comps];
}

/* The curve in interval k at fraction u into out (comps floats), a rotation normalized, as the specification asks. */
static void cubic_at(const float* t, const float* v, uint32_t comps, size_t k, double u, bool rot, float* out) {
  double len = 0.0;
  for (uint32_t c = 0; c < comps; ++c) {
    const double x = hermite(t, v, comps, k, u, c);
    out[c] = (float)x;
    len += x * x;
  }
  if (!rot || !(len > 0.0) || !isfinite(len)) return;
  len = sqrt(len);
  for (uint32_t c = 0; c < comps; ++c) out[c] = (float)(out[c] / len);
}

/* At most 64 pieces an interval; at most 4 keys a key past the first 65,536 (memory bounded by the file's size); no
 * cuts past a million keys (the work bounded too). */
enum { CUBIC_PIECES_MAX = 64, CUBIC_CUTS_FREE = 65536, CUBIC_CUT_KEYS_MAX = 1 << 20 };

/* The scene's interpolation from a to b at fraction f into c: a slerp for a rotation (the shorter way), else a lerp. */
static void chord_at(const float* a, const float* b, uint32_t comps, bool rot, double f, double* c) {
  double wa = 1.0 - f, wb = f, dot = 0.0;
  for (uint32_t i = 0; rot && i < comps; ++i) dot += (double)a[i] * b[i];
  if (rot && fabs(dot) < 0.9995) {
    const double th = acos(fabs(dot) < 1.0 ? fabs(dot) : 1.0), st = sin(th);
    wa = sin((1.0 - f) * th) / st, wb = sin(f * th) / st;
  }
  if (dot < 0.0) wb = -wb;
  for (uint32_t i = 0; i < comps; ++i) c[i] = wa * a[i] + wb * b[i];
}

/* Whether linear keys at fractions u0 and u1 of interval k follow the curve within tol (each component, at a quarter,
 * half and three quarters of the piece; a rotation up to its sign). A NaN counts as near: no cut mends it. */
static bool piece_near(const float* t, const float* v, uint32_t comps, size_t k, double u0, double u1, bool rot,
                       float tol) {
  for (uint32_t i = 0; !rot && i < comps; ++i) { /* any count of components (a morph-weights channel's targets) */
    const double a = hermite(t, v, comps, k, u0, i), b = hermite(t, v, comps, k, u1, i);
    for (int q = 1; q < 4; ++q)
      if (fabs(hermite(t, v, comps, k, u0 + (u1 - u0) * q / 4.0, i) - (a + (b - a) * q / 4.0)) > tol) return false;
  }
  if (!rot) return true;
  float a[4], b[4], m[4]; /* a rotation: 4 components, compared with the scene's slerp */
  cubic_at(t, v, comps, k, u0, rot, a);
  cubic_at(t, v, comps, k, u1, rot, b);
  for (int q = 1; q < 4; ++q) {
    double c[4], md = 0.0;
    cubic_at(t, v, comps, k, u0 + (u1 - u0) * q / 4.0, rot, m);
    chord_at(a, b, comps, rot, q / 4.0, c);
    for (uint32_t i = 0; i < comps; ++i) md += m[i] * c[i];
    const double sign = rot && md < 0.0 ? -1.0 : 1.0;
    for (uint32_t i = 0; i < comps; ++i)
      if (fabs(sign * m[i] - c[i]) > tol) return false;
  }
  return true;
}

/* The pieces interval k of a CUBICSPLINE sampler takes as linear keys: the fewest of 1, 2, 4, .., CUBIC_PIECES_MAX
 * that follow the curve within tol. */
static uint32_t cubic_pieces(const float* t, const float* v, uint32_t comps, size_t k, bool rot, float tol) {
  if (!((double)t[k + 1] - t[k] > 0.0)) return 1;
  uint32_t n = 1;
  for (; n < CUBIC_PIECES_MAX; n *= 2) {
    bool near = true;
    for (uint32_t i = 0; i < n && near; ++i) near = piece_near(t, v, comps, k, (double)i / n, (i + 1.0) / n, rot, tol);
    if (near) break;
  }
  return n;
}

/* A CUBICSPLINE sampler's n keys as linear ones that follow its curve (the scene's clips are linear; taking the
 * values alone made every interval a straight line): each interval cut into as many pieces as bring the chords
 * within 1e-4 of the curve (a rotation's quaternion components; translations and scales relative to the largest
 * value of the track), at most CUBIC_PIECES_MAX, within the budget above. *ot, *ov: new arrays of *keys keys; false
 * when out of memory. */
static bool cubic_keys(const float* t, const float* v, size_t n, uint32_t comps, bool rot, double** ot, float** ov,
                       size_t* keys) {
  float big = 0.0f;
  for (size_t k = 0; !rot && k < n; ++k)
    for (uint32_t c = 0; c < comps; ++c)
      if (fabsf(v[(3 * k + 1) * comps + c]) > big && isfinite(v[(3 * k + 1) * comps + c]))
        big = fabsf(v[(3 * k + 1) * comps + c]);
  const float tol = rot ? 1e-4f : 1e-4f * big;
  uint32_t* pieces = n > 1 ? malloc((n - 1) * sizeof *pieces) : NULL;
  if (n > 1 && !pieces) return false;
  size_t total = n; /* past CUBIC_CUT_KEYS_MAX keys (a sampled clip: short intervals) the keys' values alone */
  for (size_t k = 0; k + 1 < n; ++k)
    total += (pieces[k] = n > CUBIC_CUT_KEYS_MAX ? 1 : cubic_pieces(t, v, comps, k, rot, tol)) - 1;
  while (total > n * 4 + CUBIC_CUTS_FREE) { /* a hostile curve's cuts halved until they fit */
    total = n;
    for (size_t k = 0; k + 1 < n; ++k) total += (pieces[k] = pieces[k] > 1 ? pieces[k] / 2 : 1) - 1;
  }
  *ot = malloc((total ? total : 1) * sizeof **ot);
  *ov = malloc((total ? total : 1) * comps * sizeof **ov);
  if (!*ot || !*ov) {
    free(pieces);
    return false;
  }
  size_t o = 0;
  for (size_t k = 0; k < n; ++k) {
    (*ot)[o] = t[k];
    memcpy(*ov + o++ * comps, v + (3 * k + 1) * comps, comps * sizeof **ov);
    for (uint32_t i = 1; k + 1 < n && i < pieces[k]; ++i, ++o) {
      (*ot)[o] = t[k] + ((double)t[k + 1] - t[k]) * i / pieces[k];
      cubic_at(t, v, comps, k, (double)i / pieces[k], rot, *ov + o * comps);
    }
  }
  free(pieces);
  *keys = total;
  return true;
}

/* A STEP sampler's keys as linear ones that move the same (the scene's clips are linear; the writers would make the
 * jumps ramps): each value held until just before the next key - one more key per interval, at a thousandth of the
 * interval (at most 1 ms) before the next. *n keys of comps floats become up to 2 n - 1; false when out of memory. */
static bool hold_steps(double** t, float** v, size_t* n, uint32_t comps) {
  if (*n < 2) return true;
  double* nt = malloc((2 * *n - 1) * sizeof *nt);
  float* nv = malloc((2 * *n - 1) * comps * sizeof *nv);
  if (!nt || !nv) {
    free(nt), free(nv);
    return false;
  }
  size_t o = 0;
  for (size_t k = 0; k < *n; ++k) {
    nt[o] = (*t)[k];
    memcpy(nv + o++ * comps, *v + k * comps, comps * sizeof *nv);
    const double gap = k + 1 < *n ? (*t)[k + 1] - (*t)[k] : 0.0;
    if (!(gap > 0.0)) continue;
    const double before = gap * 1e-3 < 1e-3 ? gap * 1e-3 : 1e-3;
    nt[o] = (*t)[k + 1] - before;
    memcpy(nv + o++ * comps, *v + k * comps, comps * sizeof *nv);
  }
  free(*t), free(*v);
  *t = nt, *v = nv, *n = o;
  return true;
}

/* A "weights" channel of clip ai on node: its keys (times[0, keys), the sampler st's output: keys x T weights, 3 x
 * that with CUBICSPLINE, whose curve cubic_keys follows) as blend shape keys of every mesh the node instances with T
 * targets (skio_mesh.morph_keys). A node without such a mesh: the channel is counted as skipped. */
static int weights_channel(importer* im, uint32_t ai, uint32_t node, int st, const float* times, size_t keys,
                           skc_err* err) {
  skio_gltf_doc* d = im->d;
  skio_scene* s = im->s;
  uint32_t T = 0;
  for (uint32_t m = 0; m < s->mesh_count && !T; ++m)
    if (s->meshes[m].gltf_node == (int32_t)node) T = s->meshes[m].morph_count;
  if (!T || !keys) {
    im->rep.channels_skipped++;
    return SKC_OK;
  }
  int interp = skio_json_get(d, st, "interpolation");
  const bool cubic = skio_json_streq(d, interp, "CUBICSPLINE");
  char what[96];
  snprintf(what, sizeof what, "animation %u weights output", ai);
  skio_gltf_accessor oa;
  skc_err e = {0}; /* a channel that does not read is left out with a note: the file loaded before it was read */
  int rc = accessor(im, skio_json_get(d, st, "output"), what, 1, &oa, &e);
  const size_t per = (size_t)T * (cubic ? 3 : 1);
  if (!rc && (keys > SIZE_MAX / per || oa.count < keys * per))
    rc = fail(im, &e, SKC_FORMAT, "%s: %zu values for %zu keys of %u targets", what, oa.count, keys, T);
  float* values = rc ? NULL : read_floats(im, &oa, &e);
  if (!rc && !values) rc = e.code ? e.code : SKC_FORMAT;
  if (rc && rc != SKC_OUT_OF_MEMORY) {
    char line[sizeof e.message + 64];
    snprintf(line, sizeof line, "not read: a blend shape weights channel (%s)", e.message);
    im->rep.channels_skipped++;
    skio_scene_note(s, line);
    return SKC_OK;
  }
  if (rc) return oom(im, err);
  double* dt = NULL;
  float* dv = NULL;
  if (!(cubic ? cubic_keys(times, values, keys, T, false, &dt, &dv, &keys)
              : plain_keys(times, values, keys, T, &dt, &dv)))
    rc = oom(im, err);
  free(values);
  if (!rc && skio_json_streq(d, interp, "STEP") && !hold_steps(&dt, &dv, &keys, T)) rc = oom(im, err);
  for (uint32_t m = 0; !rc && m < s->mesh_count; ++m)
    if (s->meshes[m].gltf_node == (int32_t)node && s->meshes[m].morph_count == T &&
        skio_mesh_add_morph_keys(&s->meshes[m], ai, dt, dv, keys))
      rc = oom(im, err);
  free(dt);
  free(dv);
  return rc;
}

/* Clip ai's name (a->name): the file's, "anim<ai>" when it has none or an empty one. */
static int anim_name(importer* im, uint32_t ai, int at, skio_anim* a, skc_err* err) {
  skio_gltf_doc* d = im->d;
  int nt = skio_json_get(d, at, "name");
  a->name = skio_json_is(d, nt, 3) ? skio_json_strdup(d, nt) : NULL;
  if (a->name && !a->name[0]) {
    free(a->name);
    a->name = NULL;
  }
  if (!a->name) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "anim%u", ai);
    if (!(a->name = dup_str(tmp))) return oom(im, err);
  }
  return SKC_OK;
}

/* The clip build_anim reads: its index, its scene animation, its channels and samplers and its duration so far. */
typedef struct clip_reader {
  importer* im;
  uint32_t ai;
  skio_anim* a;
  int32_t* chan_of; /* joint -> its channel in a, or -1 */
  int channels, samplers, sn;
  double duration;
} clip_reader;

/* What a channel of the clip names: its sampler, target node and path (0 translation, 1 rotation, 2 scale, -1
 * other) and the sampler's interpolation. */
typedef struct channel_ref {
  uint32_t node, sampler;
  int pth, path;  /* the path's token and its kind */
  int st, interp; /* the sampler's and its interpolation's tokens */
  bool cubic;
} channel_ref;

/* Channel c's target and sampler (*r), checked: a sampler index, a node index when a node is named, a known
 * interpolation. */
static int channel_target(const clip_reader* cr, int c, channel_ref* r, skc_err* err) {
  importer* im = cr->im;
  skio_gltf_doc* d = im->d;
  int ct = skio_json_at(d, cr->channels, c);
  int tt = skio_json_get(d, ct, "target");
  r->node = UINT32_MAX;
  if (!skio_json_u32(d, skio_json_get(d, ct, "sampler"), &r->sampler) || r->sampler >= (uint32_t)cr->sn)
    return fail(im, err, SKC_FORMAT, "animation %u channel %d: sampler is not a sampler index", cr->ai, c);
  int nodet = skio_json_get(d, tt, "node");
  if (nodet >= 0 && (!skio_json_u32(d, nodet, &r->node) || r->node >= im->node_count))
    return fail(im, err, SKC_FORMAT, "animation %u channel %d: target node is not a node index", cr->ai, c);
  int pth = skio_json_get(d, tt, "path");
  r->pth = pth;
  r->path = skio_json_streq(d, pth, "translation") ? 0
            : skio_json_streq(d, pth, "rotation")  ? 1
            : skio_json_streq(d, pth, "scale")     ? 2
                                                   : -1;
  r->st = skio_json_at(d, cr->samplers, (int)r->sampler);
  r->interp = skio_json_get(d, r->st, "interpolation");
  r->cubic = skio_json_streq(d, r->interp, "CUBICSPLINE");
  if (r->interp >= 0 && !r->cubic && !skio_json_streq(d, r->interp, "LINEAR") && !skio_json_streq(d, r->interp, "STEP"))
    return fail(im, err, SKC_FORMAT, "animation %u sampler %u: unknown interpolation", cr->ai, r->sampler);
  return SKC_OK;
}

/* A T/R/S channel's keys as linear ones (*dt, *dv, *keys: new arrays) from the sampler's input times (n of them,
 * freed here) and its output (cubic_keys, plain_keys, hold_steps). */
static int channel_keys(const clip_reader* cr, const channel_ref* r, float* times, size_t n, double** dt, float** dv,
                        size_t* keys, skc_err* err) {
  importer* im = cr->im;
  uint32_t comps = r->path == 1 ? 4 : 3;
  char what[96];
  snprintf(what, sizeof what, "animation %u sampler %u output", cr->ai, r->sampler);
  skio_gltf_accessor oa;
  float* values = NULL;
  size_t need = n * (r->cubic ? 3 : 1);
  int rc;
  if (!(rc = accessor(im, skio_json_get(im->d, r->st, "output"), what, comps, &oa, err)) && oa.count < need)
    rc = fail(im, err, SKC_FORMAT, "%s: %zu values for %zu keys", what, oa.count, n);
  if (!rc && !(values = read_floats(im, &oa, err))) rc = err ? err->code : SKC_FORMAT;
  *keys = n;
  if (!rc && !(r->cubic ? cubic_keys(times, values, n, comps, r->path == 1, dt, dv, keys)
                        : plain_keys(times, values, n, comps, dt, dv)))
    rc = oom(im, err);
  free(times);
  free(values);
  if (rc) {
    free(*dt);
    free(*dv);
    return rc;
  }
  if (skio_json_streq(im->d, r->interp, "STEP") && !hold_steps(dt, dv, keys, comps)) {
    free(*dt);
    free(*dv);
    return oom(im, err);
  }
  return SKC_OK;
}

/* The keys (dt, dv: taken over) as track r->path of joint j's channel, or of object ob's channel when j < 0,
 * replacing the track an earlier channel gave. */
static int put_track(const clip_reader* cr, const channel_ref* r, int32_t j, int32_t ob, double* dt, float* dv,
                     size_t keys, skc_err* err) {
  importer* im = cr->im;
  skio_channel* ch = j >= 0 ? joint_channel(cr->a, cr->chan_of, j) : object_channel(im, cr->ai, ob);
  if (!ch) {
    free(dt);
    free(dv);
    return oom(im, err);
  }
  ch->rest_signs = node_scale_signs(im, r->node);
  double** tslot = r->path == 0 ? &ch->pos_time : r->path == 1 ? &ch->rot_time : &ch->scl_time;
  float** vslot = r->path == 0 ? &ch->pos : r->path == 1 ? &ch->rot : &ch->scl;
  uint32_t* nslot = r->path == 0 ? &ch->pos_count : r->path == 1 ? &ch->rot_count : &ch->scl_count;
  free(*tslot);
  free(*vslot);
  *tslot = dt;
  *vslot = dv;
  *nslot = (uint32_t)keys;
  return SKC_OK;
}

/* Channel c of the clip: its input times extend the duration; a "weights" channel goes to weights_channel, one on a
 * joint or an object becomes a track, any other is counted as skipped. */
static int read_channel(clip_reader* cr, int c, skc_err* err) {
  importer* im = cr->im;
  skio_gltf_doc* d = im->d;
  channel_ref r;
  int rc = channel_target(cr, c, &r, err);
  if (rc) return rc;
  char what[96];
  snprintf(what, sizeof what, "animation %u sampler %u input", cr->ai, r.sampler);
  skio_gltf_accessor ia;
  if ((rc = accessor(im, skio_json_get(d, r.st, "input"), what, 1, &ia, err))) return rc;
  float* times = read_floats(im, &ia, err);
  if (!times) return err ? err->code : SKC_FORMAT;
  for (size_t k = 0; k < ia.count; ++k)
    if (isfinite(times[k]) && times[k] > cr->duration) cr->duration = times[k];
  if (r.node < im->node_count && skio_json_streq(d, r.pth, "weights")) {
    rc = weights_channel(im, cr->ai, r.node, r.st, times, ia.count, err);
    free(times);
    return rc;
  }
  int32_t j = r.node < im->node_count ? im->joint_of[r.node] : -1;
  const int32_t ob = j < 0 && r.node < im->node_count && im->object_of ? im->object_of[r.node] : -1;
  if (r.path < 0 || (j < 0 && ob < 0)) {
    free(times);
    im->rep.channels_skipped++;
    if (r.path >= 0 && r.node < im->node_count && im->keyed_mesh) im->keyed_mesh[r.node] |= 2;
    return SKC_OK;
  }
  double* dt = NULL;
  float* dv = NULL;
  size_t keys;
  if ((rc = channel_keys(cr, &r, times, ia.count, &dt, &dv, &keys, err))) return rc;
  return put_track(cr, &r, j, ob, dt, dv, keys, err);
}

static int build_anim(importer* im, uint32_t ai, int32_t* chan_of, skc_err* err) {
  skio_gltf_doc* d = im->d;
  skio_anim* a = &im->s->anims[ai];
  int at = skio_gltf_item(d, "animations", ai);
  int rc = anim_name(im, ai, at, a, err);
  if (rc) return rc;
  a->ticks_per_second = 1.0;
  clip_reader cr = {im, ai, a, chan_of, skio_json_get(d, at, "channels"), skio_json_get(d, at, "samplers"), 0, 0.0};
  int cn = skio_json_len(d, cr.channels);
  cr.sn = skio_json_len(d, cr.samplers);
  uint32_t cap = (uint32_t)cn < im->jc ? (uint32_t)cn : im->jc;
  if (cap && !(a->channels = calloc(cap, sizeof *a->channels))) return oom(im, err);
  for (int c = 0; c < cn && !rc; ++c) rc = read_channel(&cr, c, err);
  for (uint32_t c = 0; c < a->channel_count; ++c) chan_of[a->channels[c].joint] = -1;
  for (uint32_t k = 0; k < im->s->object_channel_count; ++k) /* the next clip's objects start without a channel */
    if (im->s->object_channels[k].anim == ai) im->ochan_of[im->s->object_channels[k].ch.joint] = -1;
  a->duration = cr.duration;
  return rc;
}

/* The listing index of every node (skio_gltf_object_of_nodes), so that the clips of cameras, lights and empties are
 * read too (the listing and sk_scene_object_sample give them back; the document keeps them for the in-place
 * writer). */
static int map_objects(importer* im, skc_err* err) {
  const size_t n1 = im->node_count ? im->node_count : 1;
  if (!(im->object_of = malloc(n1 * sizeof *im->object_of))) return oom(im, err);
  int rc = skio_gltf_object_of_nodes(im->s, im->object_of, err);
  for (uint32_t i = 0; !rc && i < im->node_count; ++i)
    if (im->object_of[i] >= 0 && (uint32_t)im->object_of[i] + 1 > im->object_count)
      im->object_count = (uint32_t)im->object_of[i] + 1;
  if (!rc && !(im->ochan_of = malloc(((size_t)im->object_count + 1) * sizeof *im->ochan_of))) rc = oom(im, err);
  for (uint32_t k = 0; !rc && k < im->object_count; ++k) im->ochan_of[k] = -1;
  return rc;
}

/* Clip a's keys of nodes with an unskinned mesh at or below them that the scene holds no channel for (keyed_mesh 3:
 * read without animated_nodes): the scene keeps no motion for those meshes (the glTF edit in place keeps the file's
 * clip; the other writers write them at rest), so the scene's note names them. Clears the marks. */
static void note_keyed_meshes(importer* im, uint32_t a) {
  uint32_t count = 0, first = 0;
  for (uint32_t node = 0; node < im->node_count; ++node)
    if (im->keyed_mesh[node] == 3) {
      if (!count++) first = node;
      im->keyed_mesh[node] = 1;
    }
  if (!count) return;
  char* name = skio_json_strdup(im->d, skio_json_get(im->d, skio_gltf_item(im->d, "nodes", first), "name"));
  char line[400];
  snprintf(
      line, sizeof line,
      "clip \"%.80s\" keys %u node(s) of meshes that are no joints (\"%.80s\"%s): read without their motion "
      "(convert reads them as nodes of their own; written other than by an edit in place, the meshes stay at rest)",
      im->s->anims[a].name, count, name && name[0] ? name : "unnamed", count > 1 ? ", ..." : "");
  free(name);
  skio_scene_note(im->s, line);
}

/* The keys the channels of every animation read, each use of an accessor counted, from the input accessors' counts
 * (a channel that names no such accessor is build_anim's to report). */
static size_t anim_keys_declared(const importer* im) {
  const skio_gltf_doc* d = im->d;
  size_t total = 0;
  for (uint32_t a = 0; a < d->animation_count; ++a) {
    const int at = skio_gltf_item(d, "animations", a);
    const int channels = skio_json_get(d, at, "channels"), samplers = skio_json_get(d, at, "samplers");
    for (int c = 0, cn = skio_json_len(d, channels); c < cn; ++c) {
      uint32_t sampler, input, count;
      if (skio_json_u32(d, skio_json_get(d, skio_json_at(d, channels, c), "sampler"), &sampler) &&
          skio_json_u32(d, skio_json_get(d, skio_json_at(d, samplers, (int)sampler), "input"), &input) &&
          skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "accessors", input), "count"), &count))
        total += count;
    }
  }
  return total;
}

static int build_anims(importer* im, skc_err* err) {
  uint32_t n = im->d->animation_count;
  if (!n) return SKC_OK;
  const size_t keys = anim_keys_declared(im);
  if (keys > MAX_ANIM_KEYS)
    return fail(im, err, SKC_UNSUPPORTED,
                "animations hold %zu keys in all, more than %zu (each use of an accessor counts: a sampler shared "
                "by many clips)",
                keys, MAX_ANIM_KEYS);
  if (im->d->t_nodes >= 0) {
    int rc = map_objects(im, err);
    if (rc) return rc;
  }
  if (!(im->s->anims = calloc(n, sizeof *im->s->anims))) return oom(im, err);
  int32_t* chan_of = malloc(((size_t)im->jc + 1) * sizeof *chan_of);
  if (!chan_of) return oom(im, err);
  for (uint32_t j = 0; j < im->jc; ++j) chan_of[j] = -1;
  int rc = SKC_OK;
  if (!(im->keyed_mesh = unskinned_below(im))) {
    free(chan_of);
    return oom(im, err);
  }
  for (uint32_t a = 0; a < n && !rc; ++a) {
    im->s->anim_count = a + 1;
    if (!(rc = build_anim(im, a, chan_of, err))) note_keyed_meshes(im, a);
  }
  free(chan_of);
  free(im->keyed_mesh);
  im->keyed_mesh = NULL;
  return rc;
}

/* ---- nodes' custom properties ------------------------------------------------------------------------------ */
/* Extras value v as property u's value (a number, a bool, a string, three numbers); false for other values. */
static bool extras_value(const skio_gltf_doc* d, int v, skio_user_prop* u) {
  if (skio_json_num(d, v, &u->v[0])) {
    u->kind = u->v[0] == floor(u->v[0]) && fabs(u->v[0]) < 2147483648.0 ? SKIO_PROP_INT : SKIO_PROP_NUMBER;
    return true;
  }
  bool b;
  if (skio_json_bool(d, v, &b)) {
    u->kind = SKIO_PROP_BOOL;
    u->v[0] = b;
    return true;
  }
  if (skio_json_is(d, v, 3)) {
    u->kind = SKIO_PROP_STRING;
    return (u->text = skio_json_strdup(d, v)) != NULL;
  }
  u->kind = SKIO_PROP_VEC3;
  return skio_json_len(d, v) == 3 && skio_json_num(d, skio_json_at(d, v, 0), &u->v[0]) &&
         skio_json_num(d, skio_json_at(d, v, 1), &u->v[1]) && skio_json_num(d, skio_json_at(d, v, 2), &u->v[2]);
}

/* The "extras" of the named items of `list` ("nodes", "materials", "meshes") appended to *props (at most 65,536);
 * values of other kinds (objects, other arrays, null) counted in *skipped. False when out of memory. */
static bool named_extras(const skio_gltf_doc* d, const char* list, skio_user_prop** props, uint32_t* count,
                         uint32_t* skipped) {
  const bool meshes = !strcmp(list, "meshes"); /* a mesh's targetNames are its morph targets' names, read as such */
  for (uint32_t i = 0; skio_gltf_item(d, list, i) >= 0 && *count < 65536; ++i) {
    const int item = skio_gltf_item(d, list, i), extras = skio_json_get(d, item, "extras");
    const int name = skio_json_get(d, item, "name");
    if (!skio_json_is(d, name, 3)) continue;
    for (int k = 0, key; (key = skio_json_key_at(d, extras, k)) >= 0 && *count < 65536; ++k) {
      if (meshes && skio_json_streq(d, key, "targetNames")) continue;
      skio_user_prop u = {0};
      if (!extras_value(d, key + 1, &u)) {
        free(u.text);
        ++*skipped;
        continue;
      }
      skio_user_prop* grown = realloc(*props, ((size_t)*count + 1) * sizeof *grown);
      if (grown) *props = grown;
      if (!grown || !(u.node = skio_json_strdup(d, name)) || !(u.key = skio_json_strdup(d, key))) {
        free(u.node), free(u.key), free(u.text);
        return false;
      }
      grown[(*count)++] = u;
    }
  }
  return true;
}

/* The named nodes', materials' and meshes' "extras" (Blender's glTF exporter writes an object's, a material's and a
 * mesh's custom properties there) as the scene's custom properties (skio_scene.user_props, material_props,
 * mesh_props), for the binary FBX writer's user properties and a glTF written from the scene; values of other kinds
 * are counted in a note. */
static int read_node_extras(importer* im, skc_err* err) {
  skio_scene* s = im->s;
  uint32_t skipped = 0;
  if (!named_extras(im->d, "nodes", &s->user_props, &s->user_prop_count, &skipped) ||
      !named_extras(im->d, "materials", &s->material_props, &s->material_prop_count, &skipped) ||
      !named_extras(im->d, "meshes", &s->mesh_props, &s->mesh_prop_count, &skipped))
    return oom(im, err);
  if (skipped) {
    char line[120];
    snprintf(line, sizeof line, "not read: %u extras value(s) of a kind FBX user properties do not take", skipped);
    skio_scene_note(s, line);
  }
  return SKC_OK;
}

/* ---- entry ----------------------------------------------------------------------------------------- */
/* skio_scene.joint_mesh for the keyed mesh nodes (mark_keyed_meshes): the writers keep them plain nodes that hold
 * their meshes. */
static int keyed_joints(importer* im, skc_err* err) {
  if (!im->keyed_node || !im->jc) return SKC_OK;
  if (!(im->s->joint_mesh = calloc(im->jc, 1))) return oom(im, err);
  for (uint32_t node = 0; node < im->node_count; ++node)
    if (im->keyed_node[node] && im->joint_of[node] >= 0) im->s->joint_mesh[im->joint_of[node]] = 1;
  return SKC_OK;
}

static int import_doc(skio_gltf_doc* doc, const char* name, unsigned nodes, skio_gltf_import_report* report,
                      skio_scene** out, skc_err* err) {
  importer im = {0};
  im.path = name;
  im.bare = (nodes & SKIO_GLTF_NODES_BARE) != 0;
  im.animated = (nodes & SKIO_GLTF_NODES_ANIMATED) != 0;
  im.d = doc;
  im.node_count = doc->node_count;
  int rc = SKC_OK;
  if (!(im.s = calloc(1, sizeof *im.s)) || !(im.s->source = dup_str(name))) {
    rc = oom(&im, err);
    goto done;
  }
  im.s->gltf = doc;
  doc = NULL; /* the scene owns it from here */
  if ((rc = build_forest(&im, err)) || (rc = node_scenes(&im, err)) || (rc = read_skins(&im, err)) ||
      (rc = build_skeleton(&im, err)) || (rc = keyed_joints(&im, err)) || (rc = build_meshes(&im, err)) ||
      (rc = place_unskinned(&im, err)) || (rc = build_anims(&im, err)) || (rc = read_node_extras(&im, err)) ||
      (rc = skio_gltf_read_materials(im.s, im.s->gltf, err)))
    goto done;
  if (im.rep.primitives_no_position) { /* not a mesh the file can draw, but not dropped without a word */
    char line[160];
    snprintf(line, sizeof line, "%u triangle primitive(s) without POSITION not read (nothing to draw)",
             im.rep.primitives_no_position);
    skio_scene_note(im.s, line);
  }
  if (im.rep.primitives_skipped > im.rep.primitives_no_position) { /* their weights are neither checked nor edited */
    char line[200];
    snprintf(line, sizeof line,
             "%u point or line primitive(s) not read (skinkit reads triangles: weights they do not share with a "
             "triangle primitive are neither checked nor edited)",
             im.rep.primitives_skipped - im.rep.primitives_no_position);
    skio_scene_note(im.s, line);
  }
  if (report) *report = im.rep;
  *out = im.s;
  im.s = NULL;
done:
  skio_scene_destroy(im.s);
  skio_gltf_doc_destroy(doc);
  free(im.parent);
  free(im.order);
  free(im.scene_of);
  free(im.joint_of);
  free(im.object_of);
  free(im.ochan_of);
  for (uint32_t s = 0; im.skins && s < im.skin_count; ++s) {
    free(im.skins[s].node);
    free(im.skins[s].joint);
    free(im.skins[s].ibm);
  }
  free(im.skins);
  free(im.keyed_node);
  return rc;
}

int skio_gltf_import_doc(skio_gltf_doc* doc, unsigned nodes, skio_gltf_import_report* report, skio_scene** out,
                         skc_err* err) {
  if (!doc || !out) {
    skio_gltf_doc_destroy(doc);
    return skc_fail(err, SKC_INVALID_ARGUMENT, "document and out must not be NULL");
  }
  return import_doc(doc, doc->path && doc->path[0] ? doc->path : "(memory)", nodes, report, out, err);
}

int skio_gltf_import(const char* path, unsigned nodes, skio_scene** out, skc_err* err) {
  if (!path || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "path and out must not be NULL");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  skio_gltf_doc* doc = NULL;
  int rc = skio_gltf_doc_load(path, &doc, err);
  if (rc) return rc;
  if ((rc = import_doc(doc, path, nodes, NULL, out, err))) return rc;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  (*out)->load_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  return SKC_OK;
}

int skio_gltf_load_memory(const void* data, size_t size, const char* name, skio_scene** out, skc_err* err) {
  if (!data || !name || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "data, name and out must not be NULL");
  skio_gltf_doc* doc = NULL;
  int rc = skio_gltf_doc_parse(data, size, NULL, &doc, err);
  if (rc) return rc;
  return import_doc(doc, name, 0, NULL, out, err);
}
