#define _DEFAULT_SOURCE /* fsync, O_CLOEXEC */
/* gltf_write.c - skio_scene -> glTF 2.0 (.glb, or .gltf + .bin), written by us instead of Assimp's exporter.
 * What is written and why: io/skio_gltf.h. Facts used from the glTF 2.0 specification:
 *  - GLB: 12-byte header (magic "glTF", version 2, total length), then chunks of (length, type, data); the JSON
 *    chunk first, padded with spaces to 4 bytes, then the BIN chunk padded with zeros; little-endian throughout.
 *  - accessors: componentType 5121 u8, 5123 u16, 5125 u32, 5126 float; byteOffset (and bufferView offset plus
 *    byteOffset) a multiple of the component size; vertex attribute data aligned to 4 bytes; byteStride is only
 *    needed when several accessors share a view, so every vertex accessor gets a tightly packed view of its own
 *    (target 34962; indices 34963). IBM and animation accessors share one view per kind, without byteStride.
 *  - POSITION needs min/max; an animation input needs min/max, times >= 0 and strictly increasing; rotations are
 *    unit quaternions x, y, z, w; a channel target (node, path) appears once per animation; a node animated
 *    through TRS must not have "matrix"; index values must not be the primitive-restart value (65535 for u16).
 *  - JOINTS_n: VEC4 u8/u16, WEIGHTS_n: VEC4 float; JOINTS values index skin.joints.
 * Little-endian host assumed (x86-64 / aarch64, like the rest of skinkit's binary formats). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skc_weights.h"
#include "skio_atomic.h"
#include "skio_buf.h"
#include "skio_gltf.h"
#include "skio_image.h"

enum { CT_U8 = 5121, CT_U16 = 5123, CT_U32 = 5125, CT_F32 = 5126 };
enum { TARGET_NONE = 0, TARGET_VERTEX = 34962, TARGET_INDEX = 34963 };
enum { REGION_MAIN = 0, REGION_IBM = 1, REGION_ANIM = 2, REGIONS = 3 };

/* ---- growable byte buffer (also used for JSON text) ------------------------------------------------- */
typedef skio_buf buf;

/* A float as the shortest-safe decimal that reads back to the same float (9 significant digits). Only finite
 * values reach JSON. */
static void put_float(buf* b, float v) { skio_buf_printf(b, "%.9g", (double)v); }

static void put_floats(buf* b, const float* v, int n) {
  skio_buf_str(b, "[");
  for (int i = 0; i < n; ++i) {
    if (i) skio_buf_str(b, ",");
    put_float(b, v[i]);
  }
  skio_buf_str(b, "]");
}

/* ---- writer state ------------------------------------------------------------------------------------ */
typedef struct view_rec {
  int region;
  size_t offset, length; /* within the region */
  int target;
} view_rec;

struct objects_out;
typedef struct writer {
  const skio_scene* s;
  const struct objects_out* objs; /* the cameras, lights and empties written (their clip keys), or NULL */
  const char* path;
  skio_gltf_options o;
  skio_gltf_report rep;
  buf data[REGIONS]; /* binary regions, concatenated at the end (each 4-aligned) */
  view_rec* views;
  uint32_t view_count, view_cap;
  int32_t pool_view[REGIONS]; /* the shared view of a pooled region, -1 until used */
  buf accessors;              /* JSON objects, comma-separated */
  uint32_t accessor_count;
  bool oom;
  skc_err* err;
  const uint8_t* used;       /* joint_count: 1 = some mesh binds the joint or weights it */
  const float* bake;         /* X baked into skinned meshes (rest pose = bind pose), or NULL: see skio_gltf_write */
  const struct mesh_out* mo; /* the meshes as written (their nodes: joint_nodes + mo[m].group), once known */
  const uint8_t* bone_child; /* per mesh: 1 = a rigid attachment written without skin under its joint (NULL: none) */
  const float* jworld;       /* the joints' rest world as written (written_rest_world) while the meshes are written */
  uint32_t joint_nodes;
  const skio_user_prop** props; /* the scene's custom properties by node and name (skio_user_props_sorted), or NULL */
  uint32_t prop_count;
  const skio_user_prop** mprops; /* the meshes' by mesh name, or NULL */
  uint32_t mprop_count;
} writer;

/* The cameras, lights and empties as written (skio_object; objects_plan). */
typedef struct objects_out {
  uint32_t first;     /* node index of object 0 */
  int32_t* joint;     /* per object without a parent object: the joint whose node holds it, or -1 (top level) */
  float* world;       /* per object: the world transform written (a camera's or light's without scale) */
  float* local;       /* per object: its node's matrix under its parent */
  float* pre;         /* per object: (the written parent's world)^-1 (the file parent's world), before its clip keys */
  int32_t* child;     /* per object: its first child object, -1: none (children in increasing index) */
  int32_t* next;      /* per object: the next child object of its parent object or joint, -1: none */
  int32_t* held;      /* per joint: the first object its node holds, -1: none (then next, increasing index) */
  int32_t* mesh;      /* per object held by neither: the mesh node (group) that holds it, or -1 (top level) */
  int32_t* mesh_held; /* per mesh node: the first object it holds, -1: none (then next) */
  uint32_t cameras, lights;
} objects_out;

static int32_t new_view(writer* w, int region, size_t offset, size_t length, int target) {
  if (w->view_count == w->view_cap) {
    uint32_t cap = w->view_cap ? w->view_cap * 2 : 64;
    view_rec* v = realloc(w->views, cap * sizeof *v);
    if (!v) {
      w->oom = true;
      return -1;
    }
    w->views = v;
    w->view_cap = cap;
  }
  w->views[w->view_count] = (view_rec){region, offset, length, target};
  return (int32_t)w->view_count++;
}

static const char* type_name(int comps) {
  switch (comps) {
    case 1:
      return "SCALAR";
    case 2:
      return "VEC2";
    case 3:
      return "VEC3";
    case 4:
      return "VEC4";
    default:
      return "MAT4";
  }
}

/* Appends count elements of comps components (component size from ctype) to a region and declares the accessor;
 * REGION_MAIN gets a view of its own (target), pooled regions share one. min/max: comps floats each, or NULL.
 * Returns the accessor index, -1 when out of memory. */
static int32_t put_accessor(writer* w, int region, const void* d, size_t count, int comps, int ctype, int target,
                            const float* mn, const float* mx) {
  size_t csize = ctype == CT_U8 ? 1 : ctype == CT_U16 ? 2 : 4;
  size_t bytes = count * (size_t)comps * csize;
  buf* b = &w->data[region];
  skio_buf_pad(b, 4, 0);
  size_t at = b->n;
  skio_buf_put(b, d, bytes);
  if (b->oom) {
    w->oom = true;
    return -1;
  }
  int32_t view;
  size_t offset = 0;
  if (region == REGION_MAIN) {
    view = new_view(w, region, at, bytes, target);
  } else {
    if (w->pool_view[region] < 0) w->pool_view[region] = new_view(w, region, 0, 0, TARGET_NONE);
    view = w->pool_view[region];
    offset = at;
  }
  if (view < 0) return -1;
  buf* a = &w->accessors;
  if (w->accessor_count) skio_buf_str(a, ",");
  skio_buf_printf(a, "{\"bufferView\":%d,", (int)view);
  if (offset) skio_buf_printf(a, "\"byteOffset\":%zu,", offset);
  skio_buf_printf(a, "\"componentType\":%d,\"count\":%zu,\"type\":\"%s\"", ctype, count, type_name(comps));
  if (mn && mx) {
    skio_buf_str(a, ",\"min\":");
    put_floats(a, mn, comps);
    skio_buf_str(a, ",\"max\":");
    put_floats(a, mx, comps);
  }
  skio_buf_str(a, "}");
  if (a->oom) {
    w->oom = true;
    return -1;
  }
  return (int32_t)w->accessor_count++;
}

static int oom_fail(writer* w) {
  return skc_fail(w->err, SKC_OUT_OF_MEMORY, "%s: out of memory writing glTF", w->path);
}

static bool all_finite(const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(v[i])) return false;
  return true;
}

/* ---- weights ----------------------------------------------------------------------------------------- */
/* Sort (joint, weight) pairs by weight descending, ties lower joint first (the order skc_select_top keeps). */
typedef struct jw {
  uint32_t j;
  float w;
} jw;

static int cmp_jw(const void* a, const void* b) {
  const jw* x = a;
  const jw* y = b;
  if (x->w != y->w) return x->w > y->w ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

static int cmp_jw_joint(const void* a, const void* b) {
  const jw* x = a;
  const jw* y = b;
  return x->j < y->j ? -1 : x->j > y->j;
}

/* Whether c weights sum to 1 as glTF wants it: within SKC_WSUM_ROUNDING (2e-7) a weight, no looser than the
 * Khronos validator (which accepts 8e-7 for a vertex of four and reports 9e-7). Such a vertex is written with its
 * stored weights: renormalizing it would only move the last bits. */
static bool sums_to_one(const jw* tmp, size_t c) {
  double sum = 0.0;
  for (size_t i = 0; i < c; ++i) sum += tmp[i].w;
  return fabs(sum - 1.0) <= SKC_WSUM_ROUNDING * (double)c;
}

/* Copies the usable entries of in (a skeleton joint, a finite weight > 0) into tmp; returns their count. */
static size_t usable_influences(uint32_t joint_count, const uint32_t* in_j, const float* in_w, size_t n, jw* tmp,
                                skio_gltf_report* rep) {
  size_t c = 0;
  for (size_t i = 0; i < n; ++i) {
    if (in_j[i] >= joint_count || !(in_w[i] > 0.0f) || !isfinite(in_w[i])) {
      rep->influences_dropped++;
      continue;
    }
    tmp[c].j = in_j[i];
    tmp[c].w = in_w[i];
    ++c;
  }
  return c;
}

/* Merges the c entries of tmp that name one joint twice: the later entries are added into the first (stored order
 * kept for the sums). Returns the new count. */
static size_t merge_duplicates(jw* tmp, size_t c, skio_gltf_report* rep) {
  if (c <= 1) return c;
  size_t u = 0;
  if (c <= 64) {
    for (size_t i = 0; i < c; ++i) {
      size_t k = 0;
      while (k < u && tmp[k].j != tmp[i].j) ++k;
      if (k < u) {
        tmp[k].w += tmp[i].w;
        rep->duplicates_merged++;
      } else {
        tmp[u++] = tmp[i];
      }
    }
    return u;
  }
  qsort(tmp, c, sizeof *tmp, cmp_jw_joint);
  for (size_t i = 0; i < c; ++i) {
    if (u && tmp[u - 1].j == tmp[i].j) {
      tmp[u - 1].w += tmp[i].w;
      rep->duplicates_merged++;
    } else {
      tmp[u++] = tmp[i];
    }
  }
  return u;
}

/* Drops the c entries of tmp below o->prune (all below: the largest is kept). Returns the new count. */
static size_t prune_influences(const skio_gltf_options* o, jw* tmp, size_t c, skio_gltf_report* rep) {
  if (!(o->prune > 0.0f && c)) return c;
  size_t keep = 0, best = 0;
  for (size_t i = 0; i < c; ++i) {
    if (tmp[i].w >= o->prune) keep++;
    if (tmp[i].w > tmp[best].w || (tmp[i].w == tmp[best].w && tmp[i].j < tmp[best].j)) best = i;
  }
  if (keep == 0) { /* all below: keep the largest rather than unweighting the vertex */
    tmp[0] = tmp[best];
    rep->influences_dropped += c - 1;
    return 1;
  }
  size_t u = 0;
  for (size_t i = 0; i < c; ++i)
    if (tmp[i].w >= o->prune) tmp[u++] = tmp[i];
  rep->influences_dropped += c - u;
  return u;
}

/* The c entries of tmp as written unchanged: sorted (cmp_jw) into out. Returns c. */
static size_t influences_as_stored(jw* tmp, size_t c, uint32_t* out_j, float* out_w) {
  qsort(tmp, c, sizeof *tmp, cmp_jw);
  for (size_t i = 0; i < c; ++i) out_j[i] = tmp[i].j, out_w[i] = tmp[i].w;
  return c;
}

/* The k largest of the c entries of tmp into out, renormalized (skc_select_top). Returns the count written. */
static size_t select_influences(jw* tmp, size_t c, size_t k, uint32_t* out_j, float* out_w) {
  /* skc_select_top reads separate arrays: unpack tmp into out first, then select in place through tmp */
  uint32_t* sj = (uint32_t*)(void*)tmp;
  float* sw = (float*)(void*)(sj + c);
  uint32_t js[64];
  float ws[64];
  if (c <= 64) {
    for (size_t i = 0; i < c; ++i) js[i] = tmp[i].j, ws[i] = tmp[i].w;
    sj = js;
    sw = ws;
  } else { /* tmp holds c pairs = 2c words: lay the joints then the weights over it (joints first, in place) */
    for (size_t i = 0; i < c; ++i) out_j[i] = tmp[i].j, out_w[i] = tmp[i].w;
    memcpy(sj, out_j, c * sizeof *sj);
    memcpy(sw, out_w, c * sizeof *sw);
  }
  return skc_select_top(sj, sw, c, k, out_j, out_w);
}

/* One vertex's influences as written (see skio_gltf_options): in = n stored entries; tmp has room for n; out
 * receives at most n entries (joints are skeleton joints). Returns the count. */
static size_t vertex_weights(const skio_gltf_options* o, uint32_t joint_count, const uint32_t* in_j, const float* in_w,
                             size_t n, jw* tmp, uint32_t* out_j, float* out_w, skio_gltf_report* rep) {
  size_t c = usable_influences(joint_count, in_j, in_w, n, tmp, rep);
  /* the same joint twice: add the later entries into the first (stored order kept for the sums) */
  c = merge_duplicates(tmp, c, rep);
  c = prune_influences(o, tmp, c, rep);
  if (o->as_is) return influences_as_stored(tmp, c, out_j, out_w);
  size_t k = o->limit ? o->limit : o->normalize ? c : 4;
  if (!o->normalize && c <= k && c && sums_to_one(tmp, c)) /* nothing to cut, nothing to mend: kept as stored */
    return influences_as_stored(tmp, c, out_j, out_w);
  rep->vertices_renormalized += c && c <= k; /* a vertex without influence is none (see anchor_unweighted) */
  size_t got = select_influences(tmp, c, k, out_j, out_w);
  rep->influences_dropped += c - got;
  rep->vertices_limited += c > k;
  return got;
}

size_t skio_gltf_vertex_weights(const skio_gltf_options* o, uint32_t joint_count, const uint32_t* in_j,
                                const float* in_w, size_t n, void* tmp, uint32_t* out_j, float* out_w,
                                skio_gltf_report* rep) {
  return vertex_weights(o, joint_count, in_j, in_w, n, tmp, out_j, out_w, rep);
}

/* True when the written influences of a vertex equal the stored ones (same count, same joint -> same bits). */
static bool same_as_stored(const uint32_t* in_j, const float* in_w, size_t n, const uint32_t* out_j, const float* out_w,
                           size_t m) {
  if (n != m) return false;
  for (size_t i = 0; i < m; ++i) {
    bool found = false;
    for (size_t k = 0; k < n && !found; ++k) found = in_j[k] == out_j[i] && memcmp(&in_w[k], &out_w[i], 4) == 0;
    if (!found) return false;
  }
  return true;
}

/* ---- per-mesh output ------------------------------------------------------------------------------------ */
typedef struct mesh_out {
  bool skinned;     /* written with a skin */
  uint32_t listed;  /* joints in its skin */
  uint32_t* joints; /* listed skeleton joints, skeleton order */
  int32_t ibm;      /* accessor */
  int32_t skeleton; /* node or -1 */
  int32_t anchor;   /* the plain node above the joints it binds (skeleton index), -1 none: see anchor_unweighted */
  bool moved;       /* written in another space: vertices t v, inverse binds IB t^-1 (write_mesh) */
  float t[16];
  bool local;     /* written without skin in its node's own space: vertices node^-1 v (skio_mesh_node_space) */
  bool mirror;    /* local with a mirror node: its triangles written in the reverse order */
  float node[16]; /* its node's transform in the scene's space with local, else the identity */
  int32_t bone;   /* a rigid attachment written as a child of this joint's node (plan_bone_children), else -1 */
  buf prims;      /* its "primitives" entries (write_mesh), one per part */
  uint32_t lead;  /* the first mesh of its node's group (mesh_groups), itself when alone */
  uint32_t group; /* its glTF mesh and mesh node: the group's index */
} mesh_out;

/* n indices of a mesh of V vertices as an accessor: unsigned short when the vertices allow, else unsigned int. */
static int32_t put_indices(writer* w, const uint32_t* idx, size_t n, size_t V) {
  if (V > 65535) return put_accessor(w, REGION_MAIN, idx, n, 1, CT_U32, TARGET_INDEX, NULL, NULL);
  uint16_t* ix = malloc(n * sizeof *ix);
  if (!ix) {
    w->oom = true;
    return -1;
  }
  for (size_t i = 0; i < n; ++i) ix[i] = (uint16_t)idx[i];
  int32_t a = put_accessor(w, REGION_MAIN, ix, n, 1, CT_U16, TARGET_INDEX, NULL, NULL);
  free(ix);
  return a;
}

/* ---- custom properties (skio_scene.user_props) as the nodes' "extras" ------------------------------------------ */
static void put_prop_value(buf* b, const skio_user_prop* u) {
  if (u->kind == SKIO_PROP_STRING)
    skio_buf_json_string(b, u->text ? u->text : "", NULL);
  else if (u->kind == SKIO_PROP_BOOL)
    skio_buf_str(b, u->v[0] != 0.0 ? "true" : "false");
  else if (u->kind == SKIO_PROP_INT)
    skio_buf_printf(b, "%.0f", u->v[0]);
  else if (u->kind == SKIO_PROP_VEC3)
    skio_buf_printf(b, "[%.17g,%.17g,%.17g]", u->v[0], u->v[1], u->v[2]);
  else
    skio_buf_printf(b, "%.17g", u->v[0]);
}

/* The custom properties of `name` in p[0, count) (sorted: skio_user_props_sorted) as "extras" (nothing when it has
 * none; a key given twice, by two records of one name: the first). */
/* The same into an "extras" object that *open says is open already (it is opened when needed: *open set), without
 * the keys in skip (NULL-terminated; a key skinkit writes there itself). */
static void put_extras_into(buf* b, const skio_user_prop* const* p, uint32_t count, const char* name,
                            const char* const* skip, bool* open) {
  if (!p || !name) return;
  const size_t len = strlen(name);
  const char* last = NULL;
  for (uint32_t i = skio_user_props_first(p, count, name, len); i < count && skio_user_prop_of(p[i], name, len); ++i) {
    bool skipped = last && !strcmp(last, p[i]->key);
    for (const char* const* k = skip; k && *k && !skipped; ++k) skipped = !strcmp(*k, p[i]->key);
    if (skipped) continue;
    skio_buf_str(b, *open ? "," : ",\"extras\":{");
    *open = true;
    last = p[i]->key;
    skio_buf_json_string(b, p[i]->key, NULL);
    skio_buf_str(b, ":");
    put_prop_value(b, p[i]);
  }
}

static void put_extras_of(buf* b, const skio_user_prop* const* p, uint32_t count, const char* name) {
  bool open = false;
  put_extras_into(b, p, count, name, NULL, &open);
  if (open) skio_buf_str(b, "}");
}

/* The custom properties of the source's node `name` as this node's "extras". */
static void put_extras(buf* b, const writer* w, const char* name) { put_extras_of(b, w->props, w->prop_count, name); }

/* ---- the meshes of one object as one glTF mesh ------------------------------------------------------------ */
static bool bone_child(const writer* w, uint32_t mi) { return w->bone_child && w->bone_child[mi]; }

/* Whether unskinned meshes a and b (written) can share a node: the same node transform, and both under the same bone
 * with the same inverse bind (bone children, plan_bone_children), or neither. */
static bool same_unskinned_node(const skio_scene* s, const mesh_out* mo, uint32_t a, uint32_t b) {
  const skio_mesh *ma = &s->meshes[a], *mb = &s->meshes[b];
  if (mo[a].local != mo[b].local || memcmp(mo[a].node, mo[b].node, sizeof mo[a].node) != 0) return false;
  if (mo[a].bone != mo[b].bone) return false;
  const int32_t j = mo[a].bone;
  return j < 0 || !memcmp(ma->inverse_bind + (size_t)j * 16, mb->inverse_bind + (size_t)j * 16, 16 * sizeof(float));
}

/* Whether meshes a and b (written, mo filled) can be primitives of one glTF mesh in one node: one object of the
 * source (node_group and node name), and nothing a node or a mesh holds once differs - the skin (listed joints, their
 * inverse binds, the space the vertices were written in), the parent joint, the morph targets (count and names). */
static bool same_node(const skio_scene* s, const mesh_out* mo, uint32_t a, uint32_t b) {
  const skio_mesh *ma = &s->meshes[a], *mb = &s->meshes[b];
  if (ma->node_group < 0 || ma->node_group != mb->node_group || !ma->node_name || !mb->node_name ||
      strcmp(ma->node_name, mb->node_name) != 0 || ma->parent_joint != mb->parent_joint)
    return false;
  if (ma->part_count || mb->part_count) return false; /* a mesh of parts is a glTF mesh of its own */
  if (mo[a].skinned != mo[b].skinned || ma->morph_count != mb->morph_count) return false;
  for (uint32_t t = 0; t < ma->morph_count; ++t)
    if (strcmp(ma->morph_names[t], mb->morph_names[t]) != 0) return false;
  if (!mo[a].skinned) return same_unskinned_node(s, mo, a, b);
  if (mo[a].listed != mo[b].listed || mo[a].moved != mo[b].moved ||
      (mo[a].moved && memcmp(mo[a].t, mo[b].t, sizeof mo[a].t) != 0))
    return false;
  for (uint32_t i = 0; i < mo[a].listed; ++i) {
    const uint32_t j = mo[a].joints[i];
    if (j != mo[b].joints[i] ||
        memcmp(ma->inverse_bind + (size_t)j * 16, mb->inverse_bind + (size_t)j * 16, 16 * sizeof(float)) != 0)
      return false;
  }
  return true;
}

/* Each mesh's lead (the first mesh of its group) and group index (groups numbered in the order of their leads).
 * Assimp splits an object of several materials into one mesh per material, and a glTF written with one node per
 * mesh read back in Blender as one object per material ("Leg", "Leg.001"); as primitives of one mesh it is one
 * object again. */
static void mesh_groups(const skio_scene* s, mesh_out* mo) {
  uint32_t groups = 0;
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) { /* runs of meshes only: read back, the order is the scene's */
    const uint32_t prev = mi ? mo[mi - 1].lead : 0;
    mo[mi].lead = mi && same_node(s, mo, prev, mi) ? prev : mi;
    mo[mi].group = mo[mi].lead == mi ? groups++ : mo[prev].group;
  }
}

static bool json_morphs(buf* j, const skio_mesh* m, const int32_t* a, bool mesh_level, bool* fixed);

/* The "meshes" entries: per group its lead's name, every member's primitive (in a group of several with the
 * member's name in its extras), the lead's morph target names and default weights. */
static int mesh_json(writer* w, const mesh_out* mo, buf* j) {
  const skio_scene* s = w->s;
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) {
    if (mo[mi].lead != mi) continue;
    bool fixed = false;
    skio_buf_str(j, mo[mi].group ? ",{\"name\":" : "{\"name\":");
    skio_buf_json_string(j, s->meshes[mi].name, &fixed);
    skio_buf_str(j, ",\"primitives\":[");
    const bool several = mi + 1 < s->mesh_count && mo[mi + 1].lead == mi;
    for (uint32_t k = mi; k < s->mesh_count && mo[k].lead == mi; ++k) {
      if (k != mi) skio_buf_str(j, ",");
      if (!several || !mo[k].prims.n) {
        skio_buf_put(j, mo[k].prims.p, mo[k].prims.n);
        continue;
      }
      /* one primitive per member: its own name in the primitive's extras (skinkit's reader names it so) */
      skio_buf_put(j, mo[k].prims.p, mo[k].prims.n - 1);
      skio_buf_str(j, ",\"extras\":{\"name\":");
      skio_buf_json_string(j, s->meshes[k].name, &fixed);
      skio_buf_str(j, "}}");
    }
    skio_buf_str(j, "]");
    bool open = json_morphs(j, &s->meshes[mi], NULL, true, &fixed); /* "extras" opened: its targetNames */
    static const char* const k_own[] = {"targetNames", NULL};       /* and the mesh's custom properties */
    put_extras_into(j, w->mprops, w->mprop_count, s->meshes[mi].name, k_own, &open);
    skio_buf_str(j, open ? "}}" : "}");
    if (fixed) w->rep.names_fixed++;
  }
  return j->oom ? oom_fail(w) : SKC_OK;
}

/* ---- unskinned meshes under a joint (skio_mesh.parent_joint: a prop parented to the armature object) ---- */
static bool near_identity(const float* t, const skio_mesh* m);

typedef struct holders {
  int32_t* joint; /* per mesh: the joint whose node holds the mesh's node, or -1 (the scene's top level) */
  float* local;   /* per mesh: 16 floats, its node's matrix there */
  float* world;   /* per mesh: 16 floats, its node's world transform at rest as written */
  uint32_t* off;  /* per joint j: the meshes it holds are mesh[off[j] .. off[j + 1]) (joint_count + 1 entries) */
  uint32_t* mesh;
} holders;

static void holders_free(holders* h) {
  free(h->joint);
  free(h->local);
  free(h->world);
  free(h->off);
  free(h->mesh);
}

/* Rest world transforms of the joints as written: the product of the rest_local of each and its ancestors (a
 * parent index not below the joint's makes it a root, as the node writer does). */
static void written_rest_world(const skc_skeleton* sk, float* world) {
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    int32_t p = sk->parents[j];
    if (p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j)
      memcpy(world + (size_t)j * 16, sk->rest_local + (size_t)j * 16, 16 * sizeof *world);
    else
      skc_mat4_mul(world + (size_t)p * 16, sk->rest_local + (size_t)j * 16, world + (size_t)j * 16);
  }
}

/* Where unskinned mesh mi's node goes (a group's lead holds its group): under joint *j (else at the top) with matrix
 * l there. Its node transform N (mo->node, the identity unless written in its own space) is the place of its vertices
 * as written: a rigid attachment written under its bone (plan_bone_children) takes IB(bone) N, its one-joint skin's
 * rest and every pose then; a mesh whose parent_joint is set (a prop parented to the armature object) hangs under
 * that joint's node with (the joint's written rest world)^-1 N, so at rest it sits where it sat, follows the joint's
 * clips and reads back parented as it was; a joint whose rest world does not invert leaves it at the top. */
static void holder_of(const skio_scene* s, const skio_mesh* m, int32_t bone, const float node[16], const float* jworld,
                      int32_t* j, float* l) {
  const uint32_t jc = s->skeleton ? s->skeleton->joint_count : 0;
  float inv[16];
  *j = -1;
  memcpy(l, node, 16 * sizeof *l);
  if (bone >= 0) {
    skc_mat4_mul(m->inverse_bind + (size_t)bone * 16, node, l);
    *j = bone;
  } else if (m->parent_joint >= 0 && (uint32_t)m->parent_joint < jc &&
             skc_mat4_inverse(jworld + (size_t)m->parent_joint * 16, inv) && skc_mat4_is_finite(inv)) {
    skc_mat4_mul(inv, node, l);
    *j = m->parent_joint;
  }
  if (near_identity(l, m)) skc_mat4_identity(l); /* a keyed mesh node's own joint: N is its rest world */
}

static void mesh_holder(const skio_scene* s, const mesh_out* mo, const float* jworld, int32_t* j, float* l) {
  holder_of(s, &s->meshes[mo->lead], mo->bone, mo->node, jworld, j, l);
}

/* Each unskinned mesh's node: where it hangs and its matrix there (mesh_holder), and its world at rest as written.
 * false: out of memory. */
static bool mesh_holders(const skio_scene* s, const mesh_out* mo, holders* h) {
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = sk ? sk->joint_count : 0, M = s->mesh_count;
  h->joint = malloc(((size_t)M + 1) * sizeof *h->joint);
  h->local = malloc(((size_t)M + 1) * 16 * sizeof *h->local);
  h->world = malloc(((size_t)M + 1) * 16 * sizeof *h->world);
  h->off = calloc((size_t)jc + 2, sizeof *h->off);
  h->mesh = malloc(((size_t)M + 1) * sizeof *h->mesh);
  float* world = malloc(((size_t)jc + 1) * 16 * sizeof *world);
  bool ok = h->joint && h->local && h->world && h->off && h->mesh && world;
  if (ok && jc) written_rest_world(sk, world);
  for (uint32_t mi = 0; ok && mi < M; ++mi) {
    int32_t* j = &h->joint[mi];
    float *l = h->local + (size_t)mi * 16, *wd = h->world + (size_t)mi * 16;
    *j = -1;
    skc_mat4_identity(l);
    skc_mat4_identity(wd);
    if (mo[mi].lead != mi || mo[mi].skinned) continue; /* a lead holds its group */
    mesh_holder(s, &mo[mi], world, j, l);
    if (*j >= 0)
      skc_mat4_mul(world + (size_t)*j * 16, l, wd);
    else
      memcpy(wd, l, 16 * sizeof *wd);
    if (*j >= 0) h->off[*j + 1]++;
  }
  for (uint32_t j = 0; ok && j < jc; ++j) h->off[j + 1] += h->off[j];
  for (uint32_t mi = 0; ok && mi < M; ++mi) /* each joint's start advances to the next joint's */
    if (h->joint[mi] >= 0) h->mesh[h->off[h->joint[mi]]++] = mi;
  for (uint32_t j = jc; ok && j > 0; --j) h->off[j] = h->off[j - 1];
  if (ok) h->off[0] = 0;
  free(world);
  return ok;
}

/* A node's TRS members, those that differ from the default (the rotation normalized). */
static void put_trs(buf* b, skc_trs trs) {
  skc_quat_normalize(trs.r);
  if (trs.t[0] != 0.0f || trs.t[1] != 0.0f || trs.t[2] != 0.0f) {
    skio_buf_str(b, ",\"translation\":");
    put_floats(b, trs.t, 3);
  }
  if (trs.r[0] != 0.0f || trs.r[1] != 0.0f || trs.r[2] != 0.0f || trs.r[3] != 1.0f) {
    skio_buf_str(b, ",\"rotation\":");
    put_floats(b, trs.r, 4);
  }
  if (trs.s[0] != 1.0f || trs.s[1] != 1.0f || trs.s[2] != 1.0f) {
    skio_buf_str(b, ",\"scale\":");
    put_floats(b, trs.s, 3);
  }
}

/* A node's transform m as TRS members, or as "matrix" when m is no TRS. */
static void put_node_transform(buf* b, const float m[16]) {
  skc_trs trs;
  if (skc_mat4_to_trs(m, &trs, 1e-5f)) {
    put_trs(b, trs);
  } else {
    skio_buf_str(b, ",\"matrix\":");
    put_floats(b, m, 16);
  }
}

/* The skins' name: the armature's, which readers name the armature object after (Blender does): the parent of the
 * common ancestor of every joint the skins list when no skin lists it (an armature object node, as Blender's and
 * Maya's exporters write them), else that ancestor; NULL when the joints have none in common. */
static const char* armature_name(const skc_skeleton* sk, const mesh_out* mo, uint32_t M, const uint32_t* depth) {
  if (!sk) return NULL;
  int64_t lca = -2; /* -2: no joint yet */
  uint8_t* listed = calloc(sk->joint_count + 1, 1);
  if (!listed) return NULL;
  for (uint32_t mi = 0; mi < M; ++mi)
    for (uint32_t i = 0; mo[mi].skinned && i < mo[mi].listed; ++i) {
      int64_t b = mo[mi].joints[i];
      listed[b] = 1;
      if (lca == -2) lca = b;
      while (lca >= 0 && b >= 0 && lca != b) {
        int64_t* up = depth[lca] >= depth[b] ? &lca : &b;
        int32_t p = sk->parents[*up];
        *up = (p == SKC_NO_PARENT || p < 0 || p >= *up) ? -1 : p;
      }
      if (b < 0) lca = -1;
    }
  const char* name = NULL;
  if (lca >= 0) {
    int32_t p = sk->parents[lca];
    name = (p == SKC_NO_PARENT || p < 0 || p >= lca || listed[p]) ? sk->names[lca] : sk->names[p];
  }
  free(listed);
  return name;
}

/* A texture coordinate set in glTF's convention (v flipped back), or -1 when uv is NULL (w->oom on failure). */
static int32_t put_uv(writer* w, const float* uv, size_t V) {
  if (!uv) return -1;
  float* f = malloc(V * 2 * sizeof *f + 1);
  if (!f) {
    w->oom = true;
    return -1;
  }
  for (size_t v = 0; v < V; ++v) {
    f[v * 2] = uv[v * 2];
    f[v * 2 + 1] = 1.0f - uv[v * 2 + 1];
  }
  int32_t a = put_accessor(w, REGION_MAIN, f, V, 2, CT_F32, TARGET_VERTEX, NULL, NULL);
  free(f);
  return a;
}

/* Blend shapes (skio_mesh.morph_*) as morph targets: per target its POSITION offsets (with the min / max glTF
 * requires) and, where the mesh and its targets have normals, its NORMAL offsets: whole target positions and normals
 * taken to the space the mesh is written in (x; NULL: as stored) minus the written ones (pos, nrm). a_out receives 2
 * accessors per target (NORMAL -1 when none); w->oom on failure. */
static void put_morphs(writer* w, const skio_mesh* m, const float* x, const float* pos, const float* nrm,
                       int32_t* a_out) {
  const size_t V = m->vertex_count;
  float nx[16];
  if (x && !skc_mat4_normal_matrix(x, nx)) x = NULL; /* invertible: checked by write_mesh */
  float* d = malloc(V * 3 * sizeof *d + 1);
  if (!d) {
    w->oom = true;
    return;
  }
  for (uint32_t t = 0; t < m->morph_count && !w->oom; ++t) {
    const float* tp = m->morph_positions + (size_t)t * V * 3;
    float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < V; ++v) {
      float q[3];
      if (x)
        skc_mat4_transform_point(x, tp + v * 3, q);
      else
        memcpy(q, tp + v * 3, sizeof q);
      for (int k = 0; k < 3; ++k) {
        d[v * 3 + k] = q[k] - pos[v * 3 + k];
        mn[k] = fminf(mn[k], d[v * 3 + k]);
        mx[k] = fmaxf(mx[k], d[v * 3 + k]);
      }
    }
    a_out[2 * t] = put_accessor(w, REGION_MAIN, d, V, 3, CT_F32, TARGET_VERTEX, mn, mx);
    a_out[2 * t + 1] = -1;
    if (!nrm || !m->morph_normals) continue;
    const float* tn = m->morph_normals + (size_t)t * V * 3;
    for (size_t v = 0; v < V; ++v) {
      float q[3];
      if (x)
        skc_mat4_transform_dir(nx, tn + v * 3, q);
      else
        memcpy(q, tn + v * 3, sizeof q);
      float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
      for (int k = 0; k < 3; ++k) d[v * 3 + k] = (x && l > 0.0f ? q[k] / l : q[k]) - nrm[v * 3 + k];
    }
    a_out[2 * t + 1] = put_accessor(w, REGION_MAIN, d, V, 3, CT_F32, TARGET_VERTEX, NULL, NULL);
  }
  free(d);
}

/* The nearest ancestor of joint j that no skin lists (used: some mesh weights or binds it; extra: listed in this
 * mesh's skin beside those), or -1 when there is none (a parent index not below its joint ends the walk). */
static int32_t plain_parent(const skc_skeleton* sk, uint32_t j, const uint8_t* used, const uint8_t* extra) {
  for (int32_t p = sk->parents[j];; p = sk->parents[j]) {
    if (p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j) return -1;
    if (!(used && used[p]) && !(extra && extra[p])) return p;
    j = (uint32_t)p;
  }
}

/* The "targets" of a primitive and, once per mesh (mesh_level), its default "weights" and extras.targetNames (fixed:
 * set when a target name needed repair; only the mesh level writes names). */
static bool json_morphs(buf* j, const skio_mesh* m, const int32_t* a, bool mesh_level, bool* fixed) {
  if (!m->morph_count) return false;
  if (mesh_level) { /* the mesh's "extras" is left open */
    skio_buf_str(j, ",\"weights\":[");
    for (uint32_t t = 0; t < m->morph_count; ++t)
      skio_buf_printf(j, "%s%.9g", t ? "," : "", (double)m->morph_weights[t]);
    skio_buf_str(j, "],\"extras\":{\"targetNames\":[");
    for (uint32_t t = 0; t < m->morph_count; ++t) {
      if (t) skio_buf_str(j, ",");
      skio_buf_json_string(j, m->morph_names[t], fixed);
    }
    skio_buf_str(j, "]");
    return true;
  }
  skio_buf_str(j, ",\"targets\":[");
  for (uint32_t t = 0; t < m->morph_count; ++t) {
    skio_buf_printf(j, "%s{\"POSITION\":%d", t ? "," : "", (int)a[2 * t]);
    if (a[2 * t + 1] >= 0) skio_buf_printf(j, ",\"NORMAL\":%d", (int)a[2 * t + 1]);
    skio_buf_str(j, "}");
  }
  skio_buf_str(j, "]");
  return false;
}

/* Whether t is the identity but for float rounding (a plain parent P = X, the bake: P^-1 X off by 2.4e-7 for
 * drone.md5mesh's MD5_Root): within 1e-6 in its 3 x 3 part and 1e-6 of the mesh's extent in its translation. Such a
 * mesh is written as stored, bit for bit. */
static bool near_identity(const float* t, const skio_mesh* m) {
  float extent = 0.0f;
  for (size_t i = 0; i < m->vertex_count * 3; ++i)
    if (isfinite(m->positions[i])) extent = fmaxf(extent, fabsf(m->positions[i]));
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r)
      if (fabsf(t[c * 4 + r] - (c == r ? 1.0f : 0.0f)) > 1e-6f) return false;
  for (int r = 0; r < 3; ++r)
    if (fabsf(t[12 + r]) > 1e-6f * extent || t[3 + 4 * r] != 0.0f) return false;
  return t[15] == 1.0f;
}

/* A vertex of a skinned mesh that has no influence (Blender: a vertex in no deform group, which the Armature
 * modifier leaves where the mesh object puts it, under the armature object) would be written with weights that sum
 * to 0, which glTF forbids and engines collapse to the origin. Where the mesh's joints hang from a plain node (the
 * armature object: mo->anchor), it gets weight 1 on that node, listed in the skin like a joint no mesh binds: it
 * follows that node and no bone, as in the source (Blender's glTF exporter adds a "neutral_bone" for the same
 * vertices). Returns the influences written: 1, or 0 (no such node). */
static size_t anchor_unweighted(writer* w, const mesh_out* mo, uint32_t* out_j, float* out_w) {
  if (mo->anchor < 0) return 0;
  out_j[0] = (uint32_t)mo->anchor;
  out_w[0] = 1.0f;
  w->rep.anchored++;
  return 1;
}

/* The scratch of write_skin: each vertex's influences as written, the joints the skin lists and the buffers its
 * accessors are written from (NULL until allocated). */
typedef struct skin_work {
  uint32_t* off;   /* per vertex: its influences are oj / ow [off[v], off[v + 1]) */
  uint32_t* oj;    /* the influences' skeleton joints */
  float* ow;       /* and their weights */
  jw* tmp;         /* vertex_weights' room for the widest vertex */
  uint8_t* listed; /* per joint: 1 = the skin lists it */
  uint32_t* local; /* per listed joint: its index in the skin */
  uint8_t* jbuf;   /* one set of JOINTS_n (u8, or u16 when wide) */
  float* wbuf;     /* one set of WEIGHTS_n */
  float* ibm;      /* the listed joints' inverse binds */
  size_t most;     /* the most influences a vertex has */
  size_t none;     /* vertices written without influence */
} skin_work;

/* Frees the arrays of k. */
static void skin_work_free(skin_work* k) {
  free(k->off);
  free(k->oj);
  free(k->ow);
  free(k->tmp);
  free(k->listed);
  free(k->local);
  free(k->jbuf);
  free(k->wbuf);
  free(k->ibm);
}

/* Allocates the per-vertex and per-joint arrays of k for mesh m over jc joints; false when out of memory. */
static bool skin_work_alloc(const skio_mesh* m, uint32_t jc, skin_work* k) {
  const skc_skin* skin = m->skin;
  const size_t V = m->vertex_count;
  size_t widest = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t n = skin->offsets[v + 1] - skin->offsets[v];
    if (n > widest) widest = n;
  }
  size_t entries = skin->offsets[V];
  k->off = malloc((V + 1) * sizeof *k->off);
  k->oj = malloc((entries + V) * sizeof *k->oj + 4); /* + V: anchor_unweighted's entries */
  k->ow = malloc((entries + V) * sizeof *k->ow + 4);
  k->tmp = malloc(widest * sizeof *k->tmp + sizeof *k->tmp);
  k->listed = calloc(jc, 1);
  k->local = malloc(jc * sizeof *k->local + 4);
  return k->off && k->oj && k->ow && k->tmp && k->listed && k->local;
}

/* Each vertex's influences as written (vertex_weights, anchor_unweighted) into k, the joints they name marked in
 * k->listed. */
static void skin_influences(writer* w, const skio_mesh* m, const mesh_out* mo, skin_work* k) {
  const skc_skin* skin = m->skin;
  const uint32_t jc = w->s->skeleton->joint_count;
  size_t at = 0;
  k->off[0] = 0;
  for (size_t v = 0; v < m->vertex_count; ++v) {
    size_t b = skin->offsets[v], n = skin->offsets[v + 1] - b;
    uint32_t* oj = k->oj + at;
    float* ow = k->ow + at;
    size_t got = vertex_weights(&w->o, jc, skin->joints + b, skin->weights + b, n, k->tmp, oj, ow, &w->rep);
    if (!same_as_stored(skin->joints + b, skin->weights + b, n, oj, ow, got)) w->rep.vertices_changed++;
    if (!got) got = anchor_unweighted(w, mo, oj, ow);
    k->none += !got;
    for (size_t i = 0; i < got; ++i) k->listed[oj[i]] = 1;
    at += got;
    k->off[v + 1] = (uint32_t)at;
    if (got > k->most) k->most = got;
  }
}

/* Marks the joints the skin lists besides those weighted (bound by the mesh, or extra) and numbers every listed
 * joint in k->local. Returns how many it lists. */
static uint32_t skin_listed(const skio_mesh* m, uint32_t jc, const uint8_t* extra, skin_work* k) {
  for (uint32_t j = 0; j < jc; ++j) k->listed[j] |= (m->bound && m->bound[j]) || (extra && extra[j]);
  uint32_t L = 0;
  for (uint32_t j = 0; j < jc; ++j)
    if (k->listed[j]) k->local[j] = L++;
  return L;
}

/* The report's notes on a skinned mesh: vertices without weight, the anchor's name, the most influences. */
static void note_skin(writer* w, const mesh_out* mo, const skin_work* k) {
  const skc_skeleton* sk = w->s->skeleton;
  w->rep.unweighted += k->none;                              /* written with weights that sum to 0 */
  if (mo->anchor >= 0 && k->listed[mo->anchor] && sk->names) /* the note names the node (the last mesh's) */
    snprintf(w->rep.anchor_name, sizeof w->rep.anchor_name, "%s", sk->names[mo->anchor] ? sk->names[mo->anchor] : "");
  if (k->most > w->rep.max_influences) w->rep.max_influences = (uint32_t)k->most;
}

/* A joint that no mesh binds gets inverse(rest_world(j)) * X, X = rest_world(k) * IB(k) of the mesh's first bound
 * joint k: the same bind space as the joints the mesh binds, so a reader that places bones from the inverse
 * binds (Blender) puts it where the rest pose has it relative to them (scene_export.c does the same for
 * Collada and FBX). Joints another mesh binds keep their bind (the skeleton's). x_mesh receives X; x_anchor the
 * same for the anchor (anchor_unweighted), from a joint the mesh weights if none binds. */
static void bind_spaces(const skio_mesh* m, const skc_skeleton* sk, const mesh_out* mo, const uint8_t* listed,
                        const float* src_ib, float* x_mesh, float* x_anchor) {
  const uint32_t jc = sk->joint_count;
  bool bound = false;
  skc_mat4_identity(x_mesh);
  skc_mat4_identity(x_anchor);
  for (uint32_t j = 0; j < jc && !bound; ++j)
    if (m->bound && m->bound[j]) {
      skc_mat4_mul(sk->rest_world + (size_t)j * 16, src_ib + (size_t)j * 16, x_mesh);
      memcpy(x_anchor, x_mesh, 16 * sizeof *x_anchor);
      bound = true;
    }
  for (uint32_t j = 0; !bound && j < jc; ++j)
    if (listed[j] && (int32_t)j != mo->anchor) {
      skc_mat4_mul(sk->rest_world + (size_t)j * 16, src_ib + (size_t)j * 16, x_anchor);
      break;
    }
}

/* glTF wants the bottom row of an inverse bind exactly (0, 0, 0, 1) (the Khronos validator flags 0.99999988,
 * as inverted Ogre / MD5 binds have): rounding noise there is dropped, a real projective row is kept. */
static void exact_bottom_row(float* b) {
  if (fabsf(b[3]) < 1e-5f && fabsf(b[7]) < 1e-5f && fabsf(b[11]) < 1e-5f && fabsf(b[15] - 1.0f) < 1e-5f) {
    b[3] = b[7] = b[11] = 0.0f;
    b[15] = 1.0f;
  }
}

/* The L joints the skin lists into mo->joints (skeleton order) and their inverse binds into k->ibm. */
static void skin_inverse_binds(const writer* w, const skio_mesh* m, mesh_out* mo, uint32_t L, skin_work* k) {
  const skc_skeleton* sk = w->s->skeleton;
  const uint32_t jc = sk->joint_count;
  float* ibm = k->ibm;
  const float* src_ib = m->inverse_bind ? m->inverse_bind : sk->inverse_bind;
  float x_mesh[16], x_anchor[16];
  bind_spaces(m, sk, mo, k->listed, src_ib, x_mesh, x_anchor);
  for (uint32_t j = 0, i = 0; j < jc; ++j) {
    if (!k->listed[j]) continue;
    mo->joints[i] = j;
    float inv[16];
    if (!w->used[j] && skc_mat4_inverse(sk->rest_world + (size_t)j * 16, inv))
      skc_mat4_mul(inv, (int32_t)j == mo->anchor ? x_anchor : x_mesh, ibm + (size_t)i * 16);
    else
      memcpy(ibm + (size_t)i * 16, src_ib + (size_t)j * 16, 16 * sizeof *ibm);
    ++i;
  }
  if (mo->moved) { /* the mesh was moved by T above: IB T^-1 keeps every skinned position */
    float inv[16], t[16];
    skc_mat4_inverse(mo->t, inv);
    for (uint32_t i = 0; i < L; ++i) {
      skc_mat4_mul(ibm + (size_t)i * 16, inv, t);
      memcpy(ibm + (size_t)i * 16, t, sizeof t);
    }
  }
  for (uint32_t i = 0; i < L; ++i) exact_bottom_row(ibm + (size_t)i * 16);
}

/* The sets JOINTS_n / WEIGHTS_n accessor pairs of V vertices into a_joints / a_weights (joints as skin indices,
 * u16 when wide). */
static int put_skin_sets(writer* w, size_t V, const skin_work* k, bool wide, uint32_t sets, int32_t* a_joints,
                         int32_t* a_weights) {
  for (uint32_t set = 0; set < sets; ++set) {
    for (size_t v = 0; v < V; ++v) {
      size_t b = k->off[v], n = k->off[v + 1] - b;
      for (size_t slot = 0; slot < 4; ++slot) {
        size_t i = (size_t)set * 4 + slot;
        uint32_t jj = i < n ? k->local[k->oj[b + i]] : 0;
        float ww = i < n ? k->ow[b + i] : 0.0f;
        if (wide)
          ((uint16_t*)(void*)k->jbuf)[v * 4 + slot] = (uint16_t)jj;
        else
          k->jbuf[v * 4 + slot] = (uint8_t)jj;
        k->wbuf[v * 4 + slot] = ww;
      }
    }
    a_joints[set] = put_accessor(w, REGION_MAIN, k->jbuf, V, 4, wide ? CT_U16 : CT_U8, TARGET_VERTEX, NULL, NULL);
    a_weights[set] = put_accessor(w, REGION_MAIN, k->wbuf, V, 4, CT_F32, TARGET_VERTEX, NULL, NULL);
    if (w->oom) return oom_fail(w);
  }
  return SKC_OK;
}

/* The skin of mesh mi (write_mesh): each vertex's influences as written (vertex_weights, anchor_unweighted), the
 * joints its skin lists (mo->joints, mo->listed) with their inverse binds (mo->ibm), and *sets JOINTS_n / WEIGHTS_n
 * accessor pairs in *a_joints / *a_weights (malloc'ed; *sets 0 when the mesh is written without skin). */
static int write_skin(writer* w, uint32_t mi, const uint8_t* extra, mesh_out* mo, int32_t** a_joints,
                      int32_t** a_weights, uint32_t* sets) {
  const skio_mesh* m = &w->s->meshes[mi];
  const uint32_t jc = w->s->skeleton->joint_count;
  const size_t V = m->vertex_count;
  int rc = SKC_OK;
  skin_work k = {0};
  if (!skin_work_alloc(m, jc, &k)) {
    rc = oom_fail(w);
    goto skin_done;
  }
  skin_influences(w, m, mo, &k);
  const uint32_t L = skin_listed(m, jc, extra, &k);
  if (L == 0) {
    w->rep.unskinned_meshes++;
    goto skin_done;
  }
  note_skin(w, mo, &k);
  mo->joints = malloc(L * sizeof *mo->joints);
  k.ibm = malloc((size_t)L * 16 * sizeof *k.ibm);
  *sets = (uint32_t)((k.most + 3) / 4);
  if (*sets == 0) *sets = 1;
  const bool wide = L > 256;
  k.jbuf = calloc(V * 4, wide ? 2 : 1);
  k.wbuf = malloc(V * 4 * sizeof *k.wbuf);
  *a_joints = malloc(*sets * sizeof **a_joints);
  *a_weights = malloc(*sets * sizeof **a_weights);
  if (!mo->joints || !k.ibm || !k.jbuf || !k.wbuf || !*a_joints || !*a_weights) {
    rc = oom_fail(w);
    goto skin_done;
  }
  skin_inverse_binds(w, m, mo, L, &k);
  if (!all_finite(k.ibm, (size_t)L * 16)) {
    rc = skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: mesh %u \"%s\" has inverse bind matrices that are not finite",
                  w->path, mi, m->name);
    goto skin_done;
  }
  mo->listed = L;
  mo->skinned = true;
  if ((rc = put_skin_sets(w, V, &k, wide, *sets, *a_joints, *a_weights))) goto skin_done;
  mo->ibm = put_accessor(w, REGION_IBM, k.ibm, L, 16, CT_F32, TARGET_NONE, NULL, NULL);
  if (w->oom) rc = oom_fail(w);
skin_done:
  skin_work_free(&k);
  if (!rc && !mo->skinned) *sets = 0;
  return rc;
}

/* The closest common ancestor of the joints a skin of mesh m would list (bound, extra, or weighted) into *lca_out:
 * -1 when they have none in common, -2 when there is no such joint. false when out of memory. */
static bool listed_ancestor(const skio_mesh* m, const skc_skeleton* sk, const uint8_t* extra, int32_t* lca_out) {
  const uint32_t jc = sk->joint_count;
  uint8_t* set = calloc(jc ? jc : 1, 1);
  if (!set) return false;
  for (uint32_t j = 0; j < jc; ++j) set[j] = (m->bound && m->bound[j]) || (extra && extra[j]);
  for (size_t e = 0, n = skc_skin_entries(m->skin); e < n; ++e)
    if (m->skin->joints[e] < jc && isfinite(m->skin->weights[e]) && m->skin->weights[e] > 0.0f)
      set[m->skin->joints[e]] = 1;
  int32_t lca = -2; /* -2: none yet, -1: no common ancestor */
  for (uint32_t j = 0; j < jc; ++j) {
    if (!set[j]) continue;
    if (lca == -2) {
      lca = (int32_t)j;
      continue;
    }
    int32_t a = lca, b = (int32_t)j; /* parents come first: walk the larger index up */
    while (a >= 0 && b >= 0 && a != b) {
      if (a > b) {
        int32_t p = sk->parents[a];
        a = (p == SKC_NO_PARENT || p < 0 || p >= a) ? -1 : p;
      } else {
        int32_t p = sk->parents[b];
        b = (p == SKC_NO_PARENT || p < 0 || p >= b) ? -1 : p;
      }
    }
    lca = (a >= 0 && a == b) ? a : -1;
    if (lca < 0) break;
  }
  free(set);
  *lca_out = lca;
  return true;
}

/* A skinned mesh is written in the space of its skin: T = P^-1 X, X the bake (rest pose = bind pose, see
 * skio_gltf_write) and P the rest world transform of the plain node above the skin's root joint (the closest
 * common ancestor of the joints it lists; from there up past every joint some skin lists): vertices T v, normals
 * and tangents by T (renormalized; the bitangent sign flips when T mirrors), inverse binds IB T^-1, so every
 * skinned position is unchanged. Blender 3.4's glTF importer makes that plain node the armature object and reads
 * the vertices in its space (huesitos' x100 "Armature" threw the mesh 37 diagonals away without P). Every mesh of
 * a character takes the same P: a prop bound to one bone alone, written in that bone's parent's space, gave the
 * bone other inverse binds than the body's, and Blender's importer moved the body (a scaled armature).
 * Fills tm with T and mo->anchor with P's joint; *gets_skin: the mesh will list some joint (else it is written
 * without skin, and not moved); *moved: T is applied. */
static int skin_space(writer* w, const skio_mesh* m, const uint8_t* extra, mesh_out* mo, float* tm, bool* gets_skin,
                      bool* moved) {
  const skio_scene* s = w->s;
  const skc_skeleton* sk = s->skeleton;
  int32_t lca;
  if (!listed_ancestor(m, sk, extra, &lca)) return oom_fail(w);
  *gets_skin = lca != -2;
  float pinv[16];
  skc_mat4_identity(tm);
  if (lca >= 0) {
    int32_t p = plain_parent(sk, lca, w->used, extra);
    mo->anchor = p;
    if (p >= 0 && skc_mat4_inverse(sk->rest_world + (size_t)p * 16, pinv) && skc_mat4_is_finite(pinv)) {
      memcpy(tm, pinv, 16 * sizeof *tm);
      *moved = true;
    }
  }
  float own[16]; /* the mesh's own X: its inverse binds may differ from the skeleton's (see skio_gltf_write) */
  const float* bake = !*gets_skin                             ? NULL
                      : skio_mesh_rest_to_bind(s, m, own)     ? own
                      : w->bake                               ? w->bake
                      : skio_mesh_bind_to_world(m, own)       ? own
                      : skio_mesh_top_rest_to_bind(s, m, own) ? own
                                                              : NULL;
  if (bake) {
    float t2[16];
    skc_mat4_mul(tm, bake, t2);
    memcpy(tm, t2, 16 * sizeof *tm);
    *moved = true;
  }
  float tinv[16];
  if (*moved && near_identity(tm, m)) *moved = false; /* an identity plain parent, or P^-1 X = I but for rounding */
  if (*moved && (!skc_mat4_inverse(tm, tinv) || !skc_mat4_is_finite(tinv))) *moved = false;
  return SKC_OK;
}

/* Normal n taken by nm (the inverse transpose of the upper 3x3) and renormalized into out (n when it vanishes). */
static void move_normal(const float* nm, const float* n, float* out) {
  float o[3], l = 0.0f;
  for (int r = 0; r < 3; ++r) o[r] = nm[r] * n[0] + nm[3 + r] * n[1] + nm[6 + r] * n[2], l += o[r] * o[r];
  l = l > 0.0f ? 1.0f / sqrtf(l) : 0.0f;
  for (int r = 0; r < 3; ++r) out[r] = l > 0.0f ? o[r] * l : n[r];
}

/* Tangent t taken by x and renormalized into out (t when it vanishes), its bitangent sign flipped when x mirrors
 * (det < 0). */
static void move_tangent(const float* x, float det, const float* t, float* out) {
  float o[3], l = 0.0f;
  for (int r = 0; r < 3; ++r) o[r] = x[r] * t[0] + x[4 + r] * t[1] + x[8 + r] * t[2], l += o[r] * o[r];
  l = l > 0.0f ? 1.0f / sqrtf(l) : 0.0f;
  for (int r = 0; r < 3; ++r) out[r] = l > 0.0f ? o[r] * l : t[r];
  out[3] = det < 0.0f ? -t[3] : t[3];
}

/* The positions, normals and tangents of mesh m taken by x (invertible) into new arrays (*bnrm, *btan NULL when
 * the mesh has none). false when out of memory (nothing kept). */
static bool moved_streams(const skio_mesh* m, const float* x, float** bpos, float** bnrm, float** btan) {
  const size_t V = m->vertex_count;
  float inv[16], nm[9];
  skc_mat4_inverse(x, inv); /* checked above */
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) nm[c * 3 + r] = inv[r * 4 + c]; /* inverse transpose of the upper 3x3 */
  const float det =
      x[0] * (x[5] * x[10] - x[9] * x[6]) - x[4] * (x[1] * x[10] - x[9] * x[2]) + x[8] * (x[1] * x[6] - x[5] * x[2]);
  float* pos = malloc(V * 3 * sizeof *pos + 1);
  float* nrm = m->normals ? malloc(V * 3 * sizeof *nrm) : NULL;
  float* tan = m->tangents ? malloc(V * 4 * sizeof *tan) : NULL;
  if (!pos || (m->normals && !nrm) || (m->tangents && !tan)) {
    free(pos);
    free(nrm);
    free(tan);
    return false;
  }
  for (size_t v = 0; v < V; ++v) {
    const float* p = m->positions + v * 3;
    for (int r = 0; r < 3; ++r) pos[v * 3 + r] = x[r] * p[0] + x[4 + r] * p[1] + x[8 + r] * p[2] + x[12 + r];
    if (nrm) move_normal(nm, m->normals + v * 3, nrm + v * 3);
    if (tan) move_tangent(x, det, m->tangents + v * 4, tan + v * 4);
  }
  *bpos = pos;
  *bnrm = nrm;
  *btan = tan;
  return true;
}

/* The accessors of one mesh as written (write_mesh); -1: none. */
typedef struct mesh_acc {
  int32_t pos, nrm, tan, uv, uv1, col;
  int32_t* morph;   /* 2 per morph target (put_morphs), or NULL */
  int32_t* part;    /* per part (skio_mesh.parts; one without): its indices, -1 none */
  int32_t* joints;  /* per set of 4 */
  int32_t* weights; /* per set of 4 */
  uint32_t sets;
} mesh_acc;

/* Frees the accessor lists of a. */
static void mesh_acc_free(mesh_acc* a) {
  free(a->part);
  free(a->morph);
  free(a->joints);
  free(a->weights);
}

/* The POSITION accessor of V positions, with its bounds. */
static int32_t put_positions(writer* w, const float* pos, size_t V) {
  float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t v = 0; v < V; ++v)
    for (int k = 0; k < 3; ++k) {
      float p = pos[v * 3 + k];
      if (p < mn[k]) mn[k] = p;
      if (p > mx[k]) mx[k] = p;
    }
  return put_accessor(w, REGION_MAIN, pos, V, 3, CT_F32, TARGET_VERTEX, mn, mx);
}

static void note_add(writer* w, const char* what, const char* name);

/* nrm as glTF requires normals, unit length (the Khronos validator's ACCESSOR_VECTOR3_NON_UNIT, past ~0.0067): a
 * normalized copy in *copy when some normal's length is off 1 by more than 0.005 (an SMD's (1, 1, 1)), with a note;
 * zero and non-finite ones stay as they are (no direction to keep). nrm itself when all are unit, NULL when out of
 * memory. */
static const float* unit_normals(writer* w, const skio_mesh* m, const float* nrm, size_t V, float** copy) {
  size_t v = 0;
  for (; v < V; ++v) {
    const float* n = nrm + v * 3;
    const float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (isfinite(l) && l > 0.0f && fabsf(l - 1.0f) > 0.005f) break;
  }
  if (v == V) return nrm;
  if (!(*copy = malloc(V * 3 * sizeof **copy))) return NULL;
  memcpy(*copy, nrm, V * 3 * sizeof **copy);
  for (; v < V; ++v) {
    float* n = *copy + v * 3;
    const float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (isfinite(l) && l > 0.0f && fabsf(l - 1.0f) > 0.005f) n[0] /= l, n[1] /= l, n[2] /= l;
  }
  note_add(w, "normals not of unit length written normalized (glTF requires unit normals): mesh", m->name);
  return *copy;
}

/* The vertex streams of mesh m as accessors into a: positions, normals and tangents (taken by x, the space the mesh
 * is written in, unless NULL: moved_streams), its morph targets, texture coordinates and colors (w->oom on failure). */
static int put_vertex_streams(writer* w, const skio_mesh* m, const float* x, mesh_acc* a) {
  const size_t V = m->vertex_count;
  const float* pos = m->positions;
  const float* nrm = m->normals;
  const float* tan = m->tangents;
  float *bpos = NULL, *bnrm = NULL, *btan = NULL;
  if (x) {
    if (!moved_streams(m, x, &bpos, &bnrm, &btan)) return oom_fail(w);
    pos = bpos;
    nrm = bnrm;
    tan = btan;
  }
  a->pos = put_positions(w, pos, V);
  float* unit = NULL;
  if (nrm && !(nrm = unit_normals(w, m, nrm, V, &unit))) {
    free(bpos), free(bnrm), free(btan);
    return oom_fail(w);
  }
  if (nrm) a->nrm = put_accessor(w, REGION_MAIN, nrm, V, 3, CT_F32, TARGET_VERTEX, NULL, NULL);
  if (tan) a->tan = put_accessor(w, REGION_MAIN, tan, V, 4, CT_F32, TARGET_VERTEX, NULL, NULL);
  a->morph = m->morph_count ? malloc(2 * (size_t)m->morph_count * sizeof *a->morph) : NULL;
  if (m->morph_count && !a->morph) w->oom = true;
  if (a->morph) put_morphs(w, m, x, pos, nrm, a->morph);
  free(unit);
  free(bpos);
  free(bnrm);
  free(btan);
  /* TEXCOORD_n numbered from 0 without gaps: a mesh with only the second set writes it as TEXCOORD_0 */
  a->uv = put_uv(w, m->uv0 ? m->uv0 : m->uv1, V);
  if (m->uv0) a->uv1 = put_uv(w, m->uv1, V);
  if (m->colors) a->col = put_accessor(w, REGION_MAIN, m->colors, V, 4, CT_F32, TARGET_VERTEX, NULL, NULL);
  return SKC_OK;
}

/* The n indices idx with every triangle's last two swapped (malloc'd; NULL: out of memory). */
static uint32_t* reversed_triangles(const uint32_t* idx, size_t n) {
  uint32_t* r = malloc(n * sizeof *r + 1);
  if (!r) return NULL;
  memcpy(r, idx, n * sizeof *r);
  for (size_t t = 0; t + 2 < n; t += 3) {
    r[t + 1] = idx[t + 2];
    r[t + 2] = idx[t + 1];
  }
  return r;
}

/* One primitive per part (skio_mesh.parts), all on the same vertex accessors: each part's indices into a->part (-1:
 * none, the vertices as points). reverse: every triangle in the reverse order (under a mirrored node, whose negative
 * determinant makes readers take the winding as clockwise: glTF 2.0 3.7.4). */
static int put_parts(writer* w, const skio_mesh* m, bool reverse, mesh_acc* a) {
  const uint32_t parts = m->part_count ? m->part_count : 1;
  a->part = w->oom ? NULL : malloc(parts * sizeof *a->part);
  if (!a->part) return oom_fail(w);
  uint32_t* idx = reverse ? reversed_triangles(m->indices, m->index_count) : m->indices;
  if (reverse && !idx) return oom_fail(w);
  for (uint32_t p = 0; p < parts; ++p) {
    size_t start = m->part_count ? m->parts[p].index_start : 0,
           n = m->part_count ? m->parts[p].index_count : m->index_count;
    a->part[p] = n ? put_indices(w, idx + start, n, m->vertex_count) : -1;
  }
  if (reverse) free(idx);
  return w->oom ? oom_fail(w) : SKC_OK;
}

/* JSON: the primitives, one per part, into j (mesh_json wraps them, with the other meshes of the node). */
static void put_primitives(const skio_scene* s, const skio_mesh* m, const mesh_acc* a, buf* j) {
  const uint32_t parts = m->part_count ? m->part_count : 1;
  for (uint32_t p = 0; p < parts; ++p) {
    skio_buf_printf(j, "%s{\"attributes\":{\"POSITION\":%d", p ? "," : "", (int)a->pos);
    if (a->nrm >= 0) skio_buf_printf(j, ",\"NORMAL\":%d", (int)a->nrm);
    if (a->tan >= 0) skio_buf_printf(j, ",\"TANGENT\":%d", (int)a->tan);
    if (a->uv >= 0) skio_buf_printf(j, ",\"TEXCOORD_0\":%d", (int)a->uv);
    if (a->uv1 >= 0) skio_buf_printf(j, ",\"TEXCOORD_1\":%d", (int)a->uv1);
    if (a->col >= 0) skio_buf_printf(j, ",\"COLOR_0\":%d", (int)a->col);
    for (uint32_t set = 0; set < a->sets; ++set)
      skio_buf_printf(j, ",\"JOINTS_%u\":%d,\"WEIGHTS_%u\":%d", set, (int)a->joints[set], set, (int)a->weights[set]);
    skio_buf_str(j, "}");
    json_morphs(j, m, a->morph, false, NULL);
    if (a->part[p] >= 0)
      skio_buf_printf(j, ",\"indices\":%d", (int)a->part[p]);
    else
      skio_buf_str(j, ",\"mode\":0"); /* no triangles: the vertices as points */
    const uint32_t mat = m->part_count ? m->parts[p].material : m->material;
    if (mat < s->material_count) skio_buf_printf(j, ",\"material\":%u", mat);
    skio_buf_str(j, "}");
  }
}

/* Writes the vertex streams of mesh mi and appends its JSON to mo->prims (mesh_json wraps it); fills mo. extra:
 * joints its skin lists besides its own (NULL = none). */
/* Whether mesh m goes in its node's own space (mo->node: N, mo->mirror: whether N mirrors): it has one
 * (skio_mesh_node_space; a mirror too, its triangles then reversed) that is not the identity, and its node's matrix
 * where it hangs (holder_of) is a TRS - a node's matrix must be one (glTF 2.0 5.25). A sheared one (a prop turned under
 * a non-uniformly scaled parent) keeps the old form, its vertices in the parent's space: Blender's glTF importer
 * decomposes a "matrix" into TRS, so the shear was lost and the prop came back 0.15 off in session 75's scene. */
static bool own_node(const writer* w, const skio_mesh* m, mesh_out* mo) {
  float l[16], world[16];
  int32_t j;
  skc_trs trs;
  if (!skio_mesh_node_space(m, mo->node, &mo->mirror) || near_identity(mo->node, m)) return false;
  holder_of(w->s, m, mo->bone, mo->node, w->jworld, &j, l);
  if (j >= 0)
    skc_mat4_mul(w->jworld + (size_t)j * 16, l, world);
  else
    memcpy(world, l, sizeof l);
  /* the node's world as written mirrors exactly when N does (not so under a bone whose rest mirrors its bind) */
  const bool mirrored = skc_mat3_det_of_mat4(world) < 0.0f;
  return mirrored == mo->mirror && skc_mat4_to_trs(l, &trs, 1e-5f);
}

static int write_mesh(writer* w, uint32_t mi, const uint8_t* extra, mesh_out* mo) {
  const skio_scene* s = w->s;
  const skio_mesh* m = &s->meshes[mi];
  const skc_skeleton* sk = s->skeleton;
  int rc = SKC_OK;
  memset(mo, 0, sizeof *mo);
  mo->ibm = -1;
  mo->skeleton = -1;
  mo->anchor = -1;

  mo->bone = bone_child(w, mi) ? m->rigid_joint : -1;
  const bool skin = m->skin && sk && mo->bone < 0;
  bool gets_skin = false; /* the mesh will list some joint (else it is written without skin, and not moved) */
  float tm[16];
  bool moved = false;
  if (skin && (rc = skin_space(w, m, extra, mo, tm, &gets_skin, &moved))) return rc;
  mo->moved = moved;
  if (moved) memcpy(mo->t, tm, sizeof tm);
  /* without skin: in its node's own space, the node transform keeping the object's origin (mesh_holders) */
  mo->local = !gets_skin && own_node(w, m, mo);
  if (!mo->local) {
    skc_mat4_identity(mo->node);
    mo->mirror = false;
  }
  float ninv[16];
  if (mo->local) skc_mat4_inverse(mo->node, ninv); /* skio_mesh_node_space checked it */
  const float* x = moved && gets_skin ? tm : mo->local ? ninv : NULL;
  mesh_acc a = {.pos = -1, .nrm = -1, .tan = -1, .uv = -1, .uv1 = -1, .col = -1};
  if ((rc = put_vertex_streams(w, m, x, &a))) return rc;
  if ((rc = put_parts(w, m, mo->mirror, &a))) {
    mesh_acc_free(&a);
    return rc;
  }

  /* skin: weights as written, then the joints the skin lists */
  if (skin && (rc = write_skin(w, mi, extra, mo, &a.joints, &a.weights, &a.sets))) {
    mesh_acc_free(&a);
    return rc;
  }
  put_primitives(s, m, &a, &mo->prims);
  mesh_acc_free(&a);
  return mo->prims.oom ? oom_fail(w) : SKC_OK;
}

/* ---- names ------------------------------------------------------------------------------------------------ */
static char* dup_str(const char* s) {
  size_t n = strlen(s);
  char* d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

static int cmp_str_ptr(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }

/* Joint names as written: unique and non-empty, by the importer's rule (scene_import.c): "joint<j>" for an empty
 * name, "<name>#2", "#3", ... for a repeat. Also returns them sorted (pointers into names, for lookups). */
static int unique_names(writer* w, char*** out_names, const char*** out_sorted) {
  const skc_skeleton* sk = w->s->skeleton;
  const uint32_t jc = sk->joint_count;
  char** names = calloc(jc, sizeof *names);
  const char** sorted = malloc(jc * sizeof *sorted);
  if (!names || !sorted) {
    free(names);
    free(sorted);
    return oom_fail(w);
  }
  for (uint32_t j = 0; j < jc; ++j) sorted[j] = sk->names[j];
  qsort(sorted, jc, sizeof *sorted, cmp_str_ptr);
  bool clash = jc && !sorted[0][0];
  for (uint32_t k = 1; k < jc && !clash; ++k) clash = strcmp(sorted[k - 1], sorted[k]) == 0;
  for (uint32_t j = 0; j < jc; ++j) {
    const char* base = sk->names[j];
    char tmp[32];
    if (!base[0]) {
      snprintf(tmp, sizeof tmp, "joint%u", j);
      base = tmp;
    }
    if (!clash) {
      names[j] = dup_str(base);
    } else { /* rare: quadratic like the importer */
      size_t len = strlen(base) + 16;
      char* cand = malloc(len);
      if (cand) {
        snprintf(cand, len, "%s", base);
        for (unsigned k = 2;; ++k) {
          bool taken = false;
          for (uint32_t i = 0; i < j && !taken; ++i) taken = strcmp(names[i], cand) == 0;
          if (!taken) break;
          snprintf(cand, len, "%s#%u", base, k);
        }
      }
      names[j] = cand;
    }
    if (!names[j]) {
      for (uint32_t i = 0; i < j; ++i) free(names[i]);
      free(names);
      free(sorted);
      return oom_fail(w);
    }
    if (strcmp(names[j], sk->names[j]) != 0) w->rep.renamed_joints++;
  }
  for (uint32_t j = 0; j < jc; ++j) sorted[j] = names[j];
  qsort(sorted, jc, sizeof *sorted, cmp_str_ptr);
  *out_names = names;
  *out_sorted = sorted;
  return SKC_OK;
}

static bool name_in(const char* const* sorted, uint32_t n, const char* s) {
  return n && bsearch(&s, sorted, n, sizeof *sorted, cmp_str_ptr) != NULL;
}

/* A node name that is no joint's: base, else base + suffix, base + suffix + "#2", ... (malloc'd). */
static char* free_name(const char* const* sorted, uint32_t n, const char* base, const char* suffix) {
  size_t len = strlen(base) + strlen(suffix) + 16;
  char* cand = malloc(len);
  if (!cand) return NULL;
  snprintf(cand, len, "%s", base);
  for (unsigned k = 1; name_in(sorted, n, cand); ++k) {
    if (k == 1)
      snprintf(cand, len, "%s%s", base, suffix);
    else
      snprintf(cand, len, "%s%s#%u", base, suffix, k);
  }
  return cand;
}

/* ---- animation ---------------------------------------------------------------------------------------- */
/* Whether time t is the clip's end E up to what a file's rounding of E moves it: FBX stores ticks of 1/46186158000 s
 * (a float end written as ticks reads back up to 1.1e-11 s off), a text format its digits. Keys spaced closer are no
 * keys of a clip anyone made. */
static bool at_end(double t, double end) { return fabs(t - end) <= 1e-9 * fmax(1.0, fabs(end)); }

/* The float time written for t: nearest, except at the clip's end E (and a key within at_end of it). An E that is a
 * float up to that rounding (a glTF's end, or one read back from a file written from a glTF) is written as that
 * float, so a file written from a written file keeps its length and keys. Any other E (a frame time such as
 * 139/120 s) is rounded up far enough that a reader converting to milliseconds in float (Assimp: t * 1000.f) and
 * back still reaches E, so the clip keeps at least its length. Before session 74 every end was rounded up: a clip
 * grew a float step on every glb -> fbx -> glb or dae cycle and gained a key one step after the last. */
static float time_to_float(double t, double end) {
  if (!at_end(t, end)) return (float)t;
  float f = (float)end;
  if (at_end((double)f, end)) return f;
  for (int guard = 0; guard < 64 && ((double)f < end || (double)(f * 1000.0f) / 1000.0 < end); ++guard)
    f = nextafterf(f, INFINITY);
  return f;
}

static void slerp_shortest(const float* q0, const float* q1in, float a, float* out) {
  float q1[4] = {q1in[0], q1in[1], q1in[2], q1in[3]};
  float d = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3];
  if (d < 0.0f) {
    d = -d;
    for (int i = 0; i < 4; ++i) q1[i] = -q1[i];
  }
  float w0 = 1.0f - a, w1 = a;
  if (d <= 0.9995f) {
    float th = acosf(d), sn = sinf(th);
    w0 = sinf((1.0f - a) * th) / sn;
    w1 = sinf(a * th) / sn;
  }
  for (int i = 0; i < 4; ++i) out[i] = w0 * q0[i] + w1 * q1[i];
  skc_quat_normalize(out);
}

/* Keys of one track as written (see skio_gltf.h): returns the count; ot/ov have room for n + 1 keys. quat: the
 * values are rotations (comps 4: interpolated by slerp, normalized), else any number of components, linear. */
static size_t build_track(const double* t, const float* v, size_t n, int comps, bool quat, double end, float* ot,
                          float* ov, uint64_t* dropped) {
  size_t c = 0;
  size_t first = 0; /* first valid key at t >= 0 */
  long prev = -1;   /* last valid key at t < 0 */
  while (first < n) {
    bool valid = isfinite(t[first]) && all_finite(v + first * (size_t)comps, (size_t)comps);
    if (valid && t[first] >= 0.0) break;
    if (valid)
      prev = (long)first;
    else
      (*dropped)++;
    ++first;
  }
  if (prev >= 0) { /* keys before 0: one key at 0 holding the pose there */
    const float* a = v + (size_t)prev * comps;
    (*dropped)++;
    for (long i = 0; i < prev; ++i) (*dropped) += isfinite(t[i]) && all_finite(v + (size_t)i * comps, (size_t)comps);
    if (first < n && t[first] > 0.0) {
      const float* b = v + first * (size_t)comps;
      float al = (float)((0.0 - t[prev]) / (t[first] - t[prev]));
      if (quat) {
        slerp_shortest(a, b, al, ov);
      } else {
        for (int k = 0; k < comps; ++k) ov[k] = a[k] + (b[k] - a[k]) * al;
      }
      ot[c] = 0.0f;
      ++c;
    } else if (first >= n) {
      ot[c] = 0.0f;
      memcpy(ov, a, (size_t)comps * sizeof *ov);
      ++c;
    } /* else a key at exactly 0 follows */
  }
  for (size_t i = first; i < n; ++i) {
    if (!isfinite(t[i]) || !all_finite(v + i * (size_t)comps, (size_t)comps)) {
      (*dropped)++;
      continue;
    }
    float f = time_to_float(t[i], end);
    if (c && f <= ot[c - 1]) {
      (*dropped)++;
      if (f < ot[c - 1]) continue;                                                             /* out of order */
      memcpy(ov + (c - 1) * (size_t)comps, v + i * (size_t)comps, (size_t)comps * sizeof *ov); /* same time: last */
      continue;
    }
    ot[c] = f;
    memcpy(ov + c * (size_t)comps, v + i * (size_t)comps, (size_t)comps * sizeof *ov);
    ++c;
  }
  if (quat)
    for (size_t i = 0; i < c; ++i) skc_quat_normalize(ov + i * 4);
  return c;
}

typedef struct track_out {
  uint32_t node;
  const char* path;
  bool weights; /* blend shape weights: comps per key, written as scalars */
  int comps;
  size_t count;
  float* t;
  float* v;
} track_out;

/* Input accessors of the current clip, to share one between tracks with the same times. */
typedef struct input_rec {
  int32_t accessor;
  size_t offset, count;
} input_rec;

/* ---- clip keys of cameras, lights and empties -------------------------------------------------------------- */
/* How an object's keys become its node's: local(t) = pre key(t) look (objects_out.pre, skio_object.look). Carried
 * when pre is a uniform scale times a turn (its TRS: *a) and look has no offset and no scale (its turn: *qf); then
 * translation A T, rotation qA q qF, scale sA S (an empty's; a camera's or light's node keeps no scale). */
static bool object_key_map(const float pre[16], const float look[16], skc_trs* a, float qf[4]) {
  skc_trs f;
  if (!skc_mat4_to_trs(pre, a, 1e-4f) || !skc_mat4_to_trs(look, &f, 1e-4f)) return false;
  const float s0 = a->s[0];
  if (!(s0 > 0.0f) || fabsf(a->s[1] - s0) > 1e-4f * s0 || fabsf(a->s[2] - s0) > 1e-4f * s0) return false;
  for (int i = 0; i < 3; ++i)
    if (fabsf(f.t[i]) > 1e-6f || fabsf(f.s[i] - 1.0f) > 1e-4f) return false;
  memcpy(qf, f.r, sizeof f.r);
  return true;
}

/* Path p (0 translation, 1 rotation, 2 scale) of channel ch mapped by object_key_map into new arrays (*v; the
 * times are the channel's): a scale S with look's turn F becomes F^-1 S F's diagonal (an empty's look is the turn
 * of its own axes, skio_scene_object_basis: a quarter turn swaps two of its scale's axes). false when out of
 * memory. */
static bool object_keys(const skio_channel* ch, int p, const float pre[16], const skc_trs* a, const float qf[4],
                        float** v) {
  const uint32_t n = p == 0 ? ch->pos_count : p == 1 ? ch->rot_count : ch->scl_count;
  const int comps = p == 1 ? 4 : 3;
  skc_trs turn; /* F as a matrix: column i is where look takes axis i */
  skc_trs_identity(&turn);
  memcpy(turn.r, qf, sizeof turn.r);
  float f[16];
  skc_trs_to_mat4(&turn, f);
  if (!(*v = malloc(((size_t)n + 1) * (size_t)comps * sizeof **v))) return false;
  for (uint32_t k = 0; k < n; ++k) {
    float* o = *v + (size_t)k * (size_t)comps;
    if (p == 0) {
      skc_mat4_transform_point(pre, ch->pos + (size_t)k * 3, o);
    } else if (p == 1) {
      float t[4];
      skc_quat_mul(a->r, ch->rot + (size_t)k * 4, t);
      skc_quat_mul(t, qf, o);
    } else {
      for (int i = 0; i < 3; ++i) {
        float d = 0.0f;
        for (int j = 0; j < 3; ++j) d += f[i * 4 + j] * f[i * 4 + j] * ch->scl[(size_t)k * 3 + (size_t)j];
        o[i] = a->s[0] * d;
      }
    }
  }
  return true;
}

/* The tracks of object channel oc into out (up to 3): node objs->first + its object. Returns how many, -1 when
 * out of memory; an object whose keys object_key_map cannot carry, or a second channel of one object in one clip,
 * counts in object_keys_dropped. */
static int object_tracks(writer* w, const skio_object_channel* oc, double end, uint8_t* done, track_out* out) {
  const objects_out* objs = w->objs;
  const uint32_t k = oc->ch.joint;
  const skio_object* ob = &w->s->objects[k];
  skc_trs a;
  float qf[4];
  const float* pre = objs->pre + (size_t)k * 16;
  skc_trs rest;
  /* a node written as "matrix" (a sheared rest) cannot be animated in glTF */
  if (done[k] || !object_key_map(pre, ob->look, &a, qf) ||
      !skc_mat4_to_trs(objs->local + (size_t)k * 16, &rest, 1e-5f)) {
    w->rep.object_keys_dropped++;
    return 0;
  }
  done[k] = 1;
  static const char* const paths[3] = {"translation", "rotation", "scale"};
  const double* tt[3] = {oc->ch.pos_time, oc->ch.rot_time, oc->ch.scl_time};
  const uint32_t tn[3] = {oc->ch.pos_count, oc->ch.rot_count, oc->ch.scl_count};
  int made = 0;
  for (int p = 0; p < (ob->kind == SKIO_OBJECT_EMPTY ? 3 : 2); ++p) {
    if (!tn[p] || !tt[p]) continue;
    track_out* tr = &out[made];
    float* v = NULL;
    const int comps = p == 1 ? 4 : 3;
    tr->t = malloc(((size_t)tn[p] + 2) * sizeof *tr->t);
    tr->v = malloc(((size_t)tn[p] + 2) * (size_t)comps * sizeof *tr->v);
    if (!tr->t || !tr->v || !object_keys(&oc->ch, p, pre, &a, qf, &v)) {
      free(v);
      return -1; /* tr's arrays are freed with the others */
    }
    tr->node = objs->first + k;
    tr->path = paths[p];
    tr->comps = comps;
    tr->count = build_track(tt[p], v, tn[p], comps, p == 1, end, tr->t, tr->v, &w->rep.keys_dropped);
    free(v);
    if (tr->count) ++made;
  }
  return made;
}

/* The end of clip ai's object keys (as write_anim's end of its joints' keys). */
static double object_keys_end(const skio_scene* s, uint32_t ai, double end) {
  for (uint32_t c = 0; c < s->object_channel_count; ++c) {
    const skio_channel* ch = &s->object_channels[c].ch;
    if (s->object_channels[c].anim != ai) continue;
    const double* tt[3] = {ch->pos_time, ch->rot_time, ch->scl_time};
    const uint32_t tn[3] = {ch->pos_count, ch->rot_count, ch->scl_count};
    for (int p = 0; p < 3; ++p)
      for (uint32_t k = 0; tt[p] && k < tn[p]; ++k)
        if (isfinite(tt[p][k]) && tt[p][k] > end) end = tt[p][k];
  }
  return end;
}

/* ---- clip keys of blend shape weights ------------------------------------------------------------------------ */
/* The meshes whose node gets "weights" keys in clip ai: a group's lead (its members share the node and the
 * targets) with keys in the clip (skio_mesh.morph_keys). */
static const skio_morph_keys* morph_keys_written(const writer* w, uint32_t ai, uint32_t mi) {
  return w->mo && w->mo[mi].lead == mi ? skio_mesh_morph_keys_of(&w->s->meshes[mi], ai) : NULL;
}

/* Clip ai's blend shape keys as "weights" tracks of the mesh nodes, after *end (which grows to their last key
 * when first is true). Returns the tracks made, -1 when out of memory (the slot's arrays are freed with the others). */
static int morph_tracks(writer* w, uint32_t ai, double* end, bool first, track_out* out) {
  const skio_scene* s = w->s;
  int made = 0;
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) {
    const skio_morph_keys* mk = morph_keys_written(w, ai, mi);
    for (uint32_t k = 0; mk && first && k < mk->key_count; ++k)
      if (isfinite(mk->time[k]) && mk->time[k] > *end) *end = mk->time[k];
    if (!mk || first) continue;
    const int T = (int)s->meshes[mi].morph_count;
    track_out* tr = &out[made];
    tr->t = malloc(((size_t)mk->key_count + 2) * sizeof *tr->t);
    tr->v = malloc(((size_t)mk->key_count + 2) * (size_t)T * sizeof *tr->v);
    if (!tr->t || !tr->v) return -1;
    tr->node = w->joint_nodes + w->mo[mi].group;
    tr->path = "weights";
    tr->weights = true;
    tr->comps = T;
    tr->count = build_track(mk->time, mk->weights, mk->key_count, T, false, *end, tr->t, tr->v, &w->rep.keys_dropped);
    if (tr->count) {
      ++made;
      continue;
    }
    free(tr->t);
    free(tr->v);
    tr->t = NULL;
    tr->v = NULL;
  }
  return made;
}

/* The scratch of write_anim: the tracks of one clip and the samplers and channels written of them. */
typedef struct anim_work {
  int32_t* last;     /* per joint and path: the channel that is written, -1 none */
  uint32_t nobj;     /* this clip's object channels (written when the scene's objects are) */
  uint32_t nmorph;   /* meshes whose blend shape weights the clip keys */
  track_out* tracks; /* ntracks slots, nt made */
  size_t ntracks, nt;
  input_rec* inputs; /* ni input accessors (track_input) */
  size_t ni;
  uint8_t* obj_done; /* per object: its keys are taken (object_tracks) */
  buf samplers, channels;
} anim_work;

/* Frees the arrays of k, every track's keys among them. */
static void anim_work_free(anim_work* k) {
  if (k->tracks)
    for (size_t i = 0; i < k->ntracks; ++i) {
      free(k->tracks[i].t);
      free(k->tracks[i].v);
    }
  free(k->tracks);
  free(k->inputs);
  free(k->obj_done);
  free(k->last);
  free(k->samplers.p);
  free(k->channels.p);
}

/* Allocates k for clip ai over jc joints (room for every track it may make); false when out of memory. */
static bool anim_work_alloc(writer* w, uint32_t ai, uint32_t jc, anim_work* k) {
  const skio_scene* s = w->s;
  k->last = malloc((size_t)jc * 3 * sizeof *k->last + 4);
  for (uint32_t c = 0; w->objs && c < s->object_channel_count; ++c) k->nobj += s->object_channels[c].anim == ai;
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) k->nmorph += morph_keys_written(w, ai, mi) != NULL;
  k->ntracks = ((size_t)s->anims[ai].channel_count + k->nobj) * 3 + k->nmorph + 1;
  k->tracks = calloc(k->ntracks, sizeof *k->tracks);
  k->inputs = calloc(k->ntracks, sizeof *k->inputs);
  k->obj_done = calloc((size_t)s->object_count + 1, 1);
  return k->last && k->tracks && k->inputs && k->obj_done;
}

/* The channel of clip a written per joint and path (last; tracks_dropped counts the others). skio_anim_sample
 * applies every channel in order, so for each joint and path the last channel holding keys wins. */
static void written_channels(writer* w, const skio_anim* a, uint32_t jc, int32_t* last) {
  for (size_t i = 0; i < (size_t)jc * 3; ++i) last[i] = -1;
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    const skio_channel* ch = &a->channels[c];
    const uint32_t tn[3] = {ch->pos_count, ch->rot_count, ch->scl_count};
    const bool have[3] = {ch->pos_time && ch->pos, ch->rot_time && ch->rot, ch->scl_time && ch->scl};
    for (int p = 0; p < 3; ++p) {
      if (!tn[p] || !have[p]) continue;
      if (ch->joint >= jc || last[(size_t)ch->joint * 3 + p] >= 0) w->rep.tracks_dropped++;
      if (ch->joint < jc) last[(size_t)ch->joint * 3 + p] = (int32_t)c;
    }
  }
}

/* The end of clip ai: its duration, or the last key of its written channels, objects or blend shape weights when
 * that is later. */
static double clip_end(writer* w, uint32_t ai, uint32_t jc, const anim_work* k) {
  const skio_anim* a = &w->s->anims[ai];
  double end = a->duration > 0.0 && isfinite(a->duration) ? a->duration : 0.0;
  for (size_t i = 0; i < (size_t)jc * 3; ++i) {
    if (k->last[i] < 0) continue;
    const skio_channel* ch = &a->channels[k->last[i]];
    const int p = (int)(i % 3);
    const double* tt = p == 0 ? ch->pos_time : p == 1 ? ch->rot_time : ch->scl_time;
    const uint32_t n = p == 0 ? ch->pos_count : p == 1 ? ch->rot_count : ch->scl_count;
    for (uint32_t key = 0; key < n; ++key)
      if (isfinite(tt[key]) && tt[key] > end) end = tt[key];
  }
  if (k->nobj) end = object_keys_end(w->s, ai, end);
  if (k->nmorph) morph_tracks(w, ai, &end, true, NULL);
  return end;
}

/* The tracks of the written channels of clip a's joints (k->last) into k->tracks, keys up to end. */
static int joint_tracks(writer* w, const skio_anim* a, uint32_t jc, double end, anim_work* k) {
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    const skio_channel* ch = &a->channels[c];
    if (ch->joint >= jc) continue;
    const double* tt[3] = {ch->pos_time, ch->rot_time, ch->scl_time};
    const float* vv[3] = {ch->pos, ch->rot, ch->scl};
    const uint32_t tn[3] = {ch->pos_count, ch->rot_count, ch->scl_count};
    static const char* const paths[3] = {"translation", "rotation", "scale"};
    for (int p = 0; p < 3; ++p) {
      if (k->last[(size_t)ch->joint * 3 + p] != (int32_t)c) continue;
      const int comps = p == 1 ? 4 : 3;
      track_out* tr = &k->tracks[k->nt];
      tr->t = malloc(((size_t)tn[p] + 2) * sizeof *tr->t);
      tr->v = malloc(((size_t)tn[p] + 2) * (size_t)comps * sizeof *tr->v);
      if (!tr->t || !tr->v) return oom_fail(w); /* tr's arrays are freed with the others */
      tr->node = ch->joint;
      tr->path = paths[p];
      tr->comps = comps;
      tr->count = build_track(tt[p], vv[p], tn[p], comps, p == 1, end, tr->t, tr->v, &w->rep.keys_dropped);
      if (!tr->count) {
        free(tr->t);
        free(tr->v);
        tr->t = NULL;
        tr->v = NULL;
        continue;
      }
      ++k->nt;
    }
  }
  return SKC_OK;
}

/* Clip ai's tracks into k->tracks, keys up to end: its joints', its objects', its blend shape weights'. */
static int clip_tracks(writer* w, uint32_t ai, uint32_t jc, double end, anim_work* k) {
  const skio_scene* s = w->s;
  int rc = joint_tracks(w, &s->anims[ai], jc, end, k);
  for (uint32_t c = 0; k->nobj && c < s->object_channel_count && !rc; ++c) {
    if (s->object_channels[c].anim != ai) continue;
    const int made = object_tracks(w, &s->object_channels[c], end, k->obj_done, &k->tracks[k->nt]);
    if (made < 0)
      rc = oom_fail(w);
    else
      k->nt += (size_t)made;
  }
  if (!rc && k->nmorph) {
    const int made = morph_tracks(w, ai, &end, false, &k->tracks[k->nt]);
    if (made < 0)
      rc = oom_fail(w);
    else
      k->nt += (size_t)made;
  }
  return rc;
}

/* The one track of a clip without any: the rest rotation of joint rest_joint into tr, so the clip and its length
 * survive. false when out of memory (tr's arrays are freed with the others). */
static bool rest_track(writer* w, int32_t rest_joint, track_out* tr) {
  tr->t = malloc(2 * sizeof *tr->t);
  tr->v = malloc(8 * sizeof *tr->v);
  if (!tr->t || !tr->v) return false;
  skc_trs trs;
  skio_joint_rest_trs(w->s, (uint32_t)rest_joint, &trs, 1e-5f);
  skc_quat_normalize(trs.r);
  tr->node = (uint32_t)rest_joint;
  tr->path = "rotation";
  tr->comps = 4;
  tr->t[0] = 0.0f;
  memcpy(tr->v, trs.r, sizeof trs.r);
  tr->count = 1;
  return true;
}

/* When the clip lasts past the last key of its nt tracks (end_f): one more key of the first track at end_f,
 * repeating its last value. */
static void hold_to_end(track_out* tracks, size_t nt, float end_f) {
  float last_t = 0.0f;
  for (size_t i = 0; i < nt; ++i)
    if (tracks[i].t[tracks[i].count - 1] > last_t) last_t = tracks[i].t[tracks[i].count - 1];
  if (end_f > last_t) { /* the clip lasts past its last key: one more key repeating the last value */
    track_out* tr = &tracks[0];
    tr->t[tr->count] = end_f;
    memcpy(tr->v + tr->count * (size_t)tr->comps, tr->v + (tr->count - 1) * (size_t)tr->comps,
           (size_t)tr->comps * sizeof *tr->v);
    tr->count++;
  }
}

/* The input accessor of track tr: the clip's input with the same times when there is one, else a new one (in
 * k->inputs). -1 when out of memory. */
static int32_t track_input(writer* w, const track_out* tr, anim_work* k) {
  for (size_t i = 0; i < k->ni; ++i)
    if (k->inputs[i].count == tr->count &&
        memcmp(w->data[REGION_ANIM].p + k->inputs[i].offset, tr->t, tr->count * sizeof *tr->t) == 0)
      return k->inputs[i].accessor;
  float tmin = tr->t[0], tmax = tr->t[tr->count - 1];
  skio_buf_pad(&w->data[REGION_ANIM], 4, 0);
  size_t at = w->data[REGION_ANIM].n;
  int32_t in = put_accessor(w, REGION_ANIM, tr->t, tr->count, 1, CT_F32, TARGET_NONE, &tmin, &tmax);
  if (in >= 0) k->inputs[k->ni++] = (input_rec){in, at, tr->count};
  return in;
}

/* The accessors of the clip's tracks, and their samplers and channels into k->samplers / k->channels. */
static int put_tracks(writer* w, uint32_t jc, const bool* matrix_joint, anim_work* k) {
  for (size_t i = 0; i < k->nt; ++i) {
    track_out* tr = &k->tracks[i];
    if (tr->node < jc && matrix_joint[tr->node]) /* cannot happen: animated joints are written as TRS */
      return skc_fail(w->err, SKC_INTERNAL, "%s: animation targets a matrix node", w->path);
    int32_t in = track_input(w, tr, k);
    if (in < 0) return oom_fail(w);
    const size_t values = tr->weights ? tr->count * (size_t)tr->comps : tr->count;
    int32_t outp =
        put_accessor(w, REGION_ANIM, tr->v, values, tr->weights ? 1 : tr->comps, CT_F32, TARGET_NONE, NULL, NULL);
    if (outp < 0) return oom_fail(w);
    if (i) {
      skio_buf_str(&k->samplers, ",");
      skio_buf_str(&k->channels, ",");
    }
    skio_buf_printf(&k->samplers, "{\"input\":%d,\"interpolation\":\"LINEAR\",\"output\":%d}", (int)in, (int)outp);
    skio_buf_printf(&k->channels, "{\"sampler\":%zu,\"target\":{\"node\":%u,\"path\":\"%s\"}}", i, tr->node, tr->path);
  }
  return SKC_OK;
}

/* Clip a as an "animations" entry into out: its name, channels and samplers. */
static int anim_json(writer* w, const skio_anim* a, const anim_work* k, buf* out) {
  bool fixed = false;
  skio_buf_str(out, "{\"name\":");
  skio_buf_json_string(out, a->name, &fixed);
  skio_buf_str(out, ",\"channels\":[");
  skio_buf_put(out, k->channels.p, k->channels.n);
  skio_buf_str(out, "],\"samplers\":[");
  skio_buf_put(out, k->samplers.p, k->samplers.n);
  skio_buf_str(out, "]}");
  if (fixed) w->rep.names_fixed++;
  return out->oom || k->samplers.oom || k->channels.oom ? oom_fail(w) : SKC_OK;
}

/* Clip ai as an "animations" entry into out (*wrote: one was written; a clip without keys holds rest_joint's rest
 * rotation, and is dropped without a TRS joint to hold it). */
static int write_anim(writer* w, uint32_t ai, int32_t rest_joint, const bool* matrix_joint, buf* out, bool* wrote) {
  const skio_scene* s = w->s;
  const skc_skeleton* sk = s->skeleton;
  *wrote = false;
  if (!sk) {
    w->rep.anims_dropped++;
    return SKC_OK;
  }
  const uint32_t jc = sk->joint_count;
  int rc = SKC_OK;
  anim_work k = {0};
  if (!anim_work_alloc(w, ai, jc, &k)) {
    rc = oom_fail(w);
    goto done;
  }
  written_channels(w, &s->anims[ai], jc, k.last);
  const double end = clip_end(w, ai, jc, &k);
  if ((rc = clip_tracks(w, ai, jc, end, &k))) goto done;
  const float end_f = time_to_float(end, end);
  if (k.nt == 0) { /* no track: hold the rest rotation of one joint, so the clip and its length survive */
    if (rest_joint < 0) {
      w->rep.anims_dropped++;
      goto done;
    }
    if (!rest_track(w, rest_joint, &k.tracks[0])) {
      rc = oom_fail(w);
      goto done;
    }
    k.nt = 1;
  }
  hold_to_end(k.tracks, k.nt, end_f);
  if ((rc = put_tracks(w, jc, matrix_joint, &k))) goto done;
  rc = anim_json(w, &s->anims[ai], &k, out);
  *wrote = !rc;
done:
  anim_work_free(&k);
  return rc;
}

/* Writes the pieces to a new temporary file in path's folder (skio_atomic_stage); *tmp_out gets its name. */
static int write_temp(const char* path, const buf* const* pieces, int count, char** tmp_out, skc_err* err) {
  const void* data[4];
  size_t sizes[4];
  for (int i = 0; i < count && i < 4; ++i) {
    data[i] = pieces[i]->p;
    sizes[i] = pieces[i]->n;
  }
  return skio_atomic_stage(path, data, sizes, count < 4 ? count : 4, tmp_out, err);
}

static void percent_encode(buf* b, const char* s) {
  for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
    unsigned c = *p;
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~')
      skio_buf_put(b, p, 1);
    else
      skio_buf_printf(b, "%%%02X", c);
  }
}

/* ---- materials, textures, images ------------------------------------------------------------------------- */
static void note_add(writer* w, const char* what, const char* name) {
  char* n = w->o.note;
  size_t size = w->o.note_size;
  if (!n || !size) return;
  size_t at = strlen(n);
  if (at + 8 < size) snprintf(n + at, size - at, "%s%s '%s'", at ? "; " : "", what, name);
}

/* Whether file sits in the folder of out (both resolved). */
static bool beside(const char* file, const char* out) {
  char a[PATH_MAX], b[PATH_MAX];
  char* fd = strdup(file);
  char* od = strdup(out);
  bool same = false;
  if (fd && od) {
    char* s1 = strrchr(fd, '/');
    char* s2 = strrchr(od, '/');
    const char* d1 = s1 ? (*s1 = 0, fd[0] ? fd : "/") : ".";
    const char* d2 = s2 ? (*s2 = 0, od[0] ? od : "/") : ".";
    same = realpath(d1, a) && realpath(d2, b) && strcmp(a, b) == 0;
  }
  free(fd);
  free(od);
  return same;
}

/* Whether every mesh part drawn with material mat has both texture coordinate sets (so a texture of it may name
 * TEXCOORD_1), and some part uses it. */
static bool material_has_uv1(const skio_scene* s, uint32_t mat) {
  bool used = false;
  for (uint32_t i = 0; i < s->mesh_count; ++i) {
    const skio_mesh* m = &s->meshes[i];
    for (uint32_t p = 0; p < (m->part_count ? m->part_count : 1); ++p) {
      if ((m->part_count ? m->parts[p].material : m->material) != mat) continue;
      if (!m->uv0 || !m->uv1) return false;
      used = true;
    }
  }
  return used;
}

/* `,"key":{"index":N` and its texCoord when not 0; the caller closes the object. */
static void put_texinfo(buf* b, const char* key, int32_t tex, uint32_t texcoord) {
  skio_buf_printf(b, ",\"%s\":{\"index\":%d", key, (int)tex);
  if (texcoord) skio_buf_printf(b, ",\"texCoord\":%u", texcoord);
}

/* The textures and images written so far (write_materials): one texture per image. */
typedef struct tex_out {
  int binary;
  int32_t* tex_of; /* scene image -> texture (-1 not yet, -2 not writable) */
  uint32_t count;  /* textures (and images) written */
  buf* texs;
  buf* imgs;
  bool* webp; /* set when a texture needs EXT_texture_webp */
  bool* ktx2; /* set when one needs KHR_texture_basisu */
} tex_out;

/* The "images" entry of img: by relative URI (by_uri: a .gltf beside the file), else its bytes in the buffer as a
 * bufferView with mimeType. */
static int put_image(writer* w, const skio_image* img, bool by_uri, buf* imgs) {
  skio_buf_str(imgs, "{\"name\":");
  skio_buf_json_string(imgs, img->name, NULL);
  if (by_uri) {
    const char* slash = strrchr(img->path, '/');
    skio_buf_str(imgs, ",\"uri\":\"");
    percent_encode(imgs, slash ? slash + 1 : img->path);
    skio_buf_str(imgs, "\"");
  } else {
    buf* b = &w->data[REGION_MAIN];
    skio_buf_pad(b, 4, 0);
    size_t at = b->n;
    skio_buf_put(b, img->data, img->size);
    int32_t v = b->oom ? -1 : new_view(w, REGION_MAIN, at, img->size, TARGET_NONE);
    if (v < 0) return oom_fail(w);
    skio_buf_printf(imgs, ",\"bufferView\":%d,\"mimeType\":\"%s\"", (int)v, img->mime);
  }
  skio_buf_str(imgs, "}");
  return SKC_OK;
}

/* A TGA, BMP or DDS image as an image of PNG bytes named "<stem>.png" (io/image_decode.c, io/image_dds.c: its
 * pixels, 8 bits a channel; the caller frees its data and name); SKC_UNSUPPORTED and the rest when it cannot be
 * decoded. The file read, else the name (an embedded texture's "*0" URI says nothing of its kind; its name does,
 * "image0.tga" from the format hint) tells a TGA, which has no magic bytes. */
static int as_png(const skio_image* img, skio_image* png) {
  const char* hint = img->path ? img->path : img->name;
  int rc = skio_image_to_png(img->data, img->size, hint, &png->data, &png->size, NULL);
  if (rc) return rc;
  const char* dot = strrchr(img->name, '.');
  const size_t stem = dot && dot != img->name ? (size_t)(dot - img->name) : strlen(img->name);
  if (!(png->name = malloc(stem + 5))) {
    free(png->data);
    png->data = NULL;
    return SKC_OUT_OF_MEMORY;
  }
  memcpy(png->name, img->name, stem);
  memcpy(png->name + stem, ".png", 5);
  snprintf(png->mime, sizeof png->mime, "image/png");
  return SKC_OK;
}

/* Scene image im as an image and its texture (t->tex_of[im]), or not written with a note (-2): without bytes, or
 * of a type glTF cannot carry (TGA, BMP and DDS are written as PNG). */
static int image_texture(writer* w, tex_out* t, int32_t im) {
  const skio_image* img = &w->s->images[im];
  bool is_webp = !strcmp(img->mime, "image/webp"), is_ktx2 = !strcmp(img->mime, "image/ktx2");
  bool core = !strcmp(img->mime, "image/png") || !strcmp(img->mime, "image/jpeg");
  bool by_uri = !t->binary && img->path && beside(img->path, w->path);
  if (!img->data && !by_uri) {
    t->tex_of[im] = -2;
    const char* named = img->uri ? img->uri : img->name;
    note_add(w, "image not found, not written:",
             named && named[0] && strcmp(named, ".") ? named : "(a texture without an image file name)");
    return SKC_OK;
  }
  skio_image png = {0}; /* a TGA, BMP or DDS as PNG */
  if (!core && !is_webp && !is_ktx2) {
    int rc = as_png(img, &png);
    if (rc == SKC_OUT_OF_MEMORY) return oom_fail(w);
    if (rc) {
      t->tex_of[im] = -2;
      note_add(
          w, img->mime[0] ? "image type not in glTF, not written:" : "image of unknown type, not written:", img->name);
      return SKC_OK;
    }
  }
  uint32_t n = t->count++;
  if (n) skio_buf_str(t->imgs, ",");
  int rc = put_image(w, png.data ? &png : img, by_uri && !png.data, t->imgs);
  free(png.data);
  free(png.name);
  if (rc) return rc;
  if (n) skio_buf_str(t->texs, ",");
  if (is_webp || is_ktx2) {
    skio_buf_printf(t->texs, "{\"sampler\":0,\"extensions\":{\"%s\":{\"source\":%u}}}",
                    is_webp ? "EXT_texture_webp" : "KHR_texture_basisu", n);
    *t->webp |= is_webp;
    *t->ktx2 |= is_ktx2;
  } else {
    skio_buf_printf(t->texs, "{\"sampler\":0,\"source\":%u}", n);
  }
  t->tex_of[im] = (int32_t)n;
  return SKC_OK;
}

/* The textures of material mi (base color, metallic-roughness, normal, occlusion, emissive) into tex (-1: none) and
 * their texture coordinate sets into tc; the images they use are written first (image_texture). */
static int material_textures(writer* w, tex_out* t, uint32_t mi, int32_t* tex, uint32_t* tc) {
  const skio_scene* s = w->s;
  const skio_material* m = &s->materials[mi];
  const skio_texref* refs[5] = {&m->base_color_tex, &m->metallic_roughness_tex, &m->normal_tex, &m->occlusion_tex,
                                &m->emissive_tex};
  const bool uv1 = material_has_uv1(s, mi);
  for (int k = 0; k < 5; ++k) {
    tex[k] = -1;
    tc[k] = refs[k]->uv == 1 && uv1 ? 1 : 0;
    int32_t im = refs[k]->image;
    if (im < 0 || (uint32_t)im >= s->image_count) continue;
    int rc;
    if (t->tex_of[im] == -1 && (rc = image_texture(w, t, im))) return rc;
    tex[k] = t->tex_of[im] >= 0 ? t->tex_of[im] : -1;
    if (tex[k] >= 0 && refs[k]->uv != tc[k])
      note_add(w, "texture uv set not in the meshes (TEXCOORD_0 used), material", m->name);
  }
  return SKC_OK;
}

/* v clamped to [0, 1], or dflt when v is not finite. */
static float unit_factor(float v, float dflt) { return isfinite(v) ? fminf(fmaxf(v, 0.0f), 1.0f) : dflt; }

/* Material m's "pbrMetallicRoughness": its factors and its base color and metallic-roughness textures (tex, tc:
 * material_textures). */
static void put_pbr(buf* mats, const skio_material* m, const int32_t* tex, const uint32_t* tc) {
  skio_buf_str(mats, ",\"pbrMetallicRoughness\":{\"baseColorFactor\":");
  float bc[4];
  for (int c = 0; c < 4; ++c) bc[c] = unit_factor(m->base_color[c], 1.0f);
  put_floats(mats, bc, 4);
  skio_buf_str(mats, ",\"metallicFactor\":");
  put_float(mats, unit_factor(m->metallic, 1.0f));
  skio_buf_str(mats, ",\"roughnessFactor\":");
  put_float(mats, unit_factor(m->roughness, 1.0f));
  if (tex[0] >= 0) {
    put_texinfo(mats, "baseColorTexture", tex[0], tc[0]);
    skio_buf_str(mats, "}");
  }
  if (tex[1] >= 0) {
    put_texinfo(mats, "metallicRoughnessTexture", tex[1], tc[1]);
    skio_buf_str(mats, "}");
  }
  skio_buf_str(mats, "}");
}

/* Material m's normal, occlusion and emissive textures (tex, tc: material_textures), with the normal scale and the
 * occlusion strength when not 1. */
static void put_maps(buf* mats, const skio_material* m, const int32_t* tex, const uint32_t* tc) {
  if (tex[2] >= 0) {
    put_texinfo(mats, "normalTexture", tex[2], tc[2]);
    if (isfinite(m->normal_tex.scale) && m->normal_tex.scale != 1.0f) {
      skio_buf_str(mats, ",\"scale\":");
      put_float(mats, m->normal_tex.scale);
    }
    skio_buf_str(mats, "}");
  }
  if (tex[3] >= 0) {
    put_texinfo(mats, "occlusionTexture", tex[3], tc[3]);
    float st = m->occlusion_tex.scale;
    if (isfinite(st) && st >= 0.0f && st <= 1.0f && st != 1.0f) {
      skio_buf_str(mats, ",\"strength\":");
      put_float(mats, st);
    }
    skio_buf_str(mats, "}");
  }
  if (tex[4] >= 0) {
    put_texinfo(mats, "emissiveTexture", tex[4], tc[4]);
    skio_buf_str(mats, "}");
  }
}

/* Material m as a "materials" entry (tex, tc: material_textures; p[0, count): the materials' custom properties). */
static void put_material(buf* mats, const skio_material* m, const int32_t* tex, const uint32_t* tc,
                         const skio_user_prop* const* p, uint32_t count) {
  skio_buf_str(mats, "{\"name\":");
  skio_buf_json_string(mats, m->name, NULL);
  put_pbr(mats, m, tex, tc);
  put_maps(mats, m, tex, tc);
  float em[3];
  for (int c = 0; c < 3; ++c) em[c] = unit_factor(m->emissive[c], 0.0f);
  if (em[0] != 0.0f || em[1] != 0.0f || em[2] != 0.0f) {
    skio_buf_str(mats, ",\"emissiveFactor\":");
    put_floats(mats, em, 3);
  }
  if (m->alpha_mode == SKIO_ALPHA_MASK) {
    skio_buf_str(mats, ",\"alphaMode\":\"MASK\"");
    if (isfinite(m->alpha_cutoff) && m->alpha_cutoff >= 0.0f && m->alpha_cutoff != 0.5f) {
      skio_buf_str(mats, ",\"alphaCutoff\":");
      put_float(mats, m->alpha_cutoff);
    }
  } else if (m->alpha_mode == SKIO_ALPHA_BLEND) {
    skio_buf_str(mats, ",\"alphaMode\":\"BLEND\"");
  }
  if (m->double_sided) skio_buf_str(mats, ",\"doubleSided\":true");
  put_extras_of(mats, p, count, m->name); /* its custom properties */
  skio_buf_str(mats, "}");
}

/* The scene's materials as glTF materials (same order, so skio_mesh.material indexes them), with the textures and
 * images they use: one texture per image (default sampler 0), images in the buffer as bufferViews with mimeType,
 * except in a .gltf an image file beside the output, kept by relative URI. WebP / KTX2 images go through
 * EXT_texture_webp / KHR_texture_basisu (required: there is no fallback). An image without bytes or of a type glTF
 * cannot carry is not written, and its references are dropped with a note. */
static int write_materials(writer* w, int binary, buf* mats, buf* texs, buf* imgs, bool* webp, bool* ktx2) {
  const skio_scene* s = w->s;
  int32_t* tex_of =
      malloc((s->image_count + 1) * sizeof *tex_of); /* scene image -> texture (-1 not yet, -2 not writable) */
  const skio_user_prop** mprops = skio_user_props_sorted(s->material_props, s->material_prop_count);
  if (!tex_of || (s->material_prop_count && !mprops)) {
    free(tex_of);
    free((void*)mprops);
    return oom_fail(w);
  }
  for (uint32_t i = 0; i < s->image_count; ++i) tex_of[i] = -1;
  tex_out t = {binary, tex_of, 0, texs, imgs, webp, ktx2};
  int rc = SKC_OK;
  for (uint32_t mi = 0; mi < s->material_count; ++mi) {
    int32_t tex[5];
    uint32_t tc[5];
    if ((rc = material_textures(w, &t, mi, tex, tc))) break;
    if (mi) skio_buf_str(mats, ",");
    put_material(mats, &s->materials[mi], tex, tc, mprops, mprops ? s->material_prop_count : 0);
  }
  free(tex_of);
  free((void*)mprops);
  if (rc) return rc;
  return mats->oom || texs->oom || imgs->oom ? oom_fail(w) : SKC_OK;
}

/* A scene whose skeleton no mesh is skinned to (an armature alone with its clips, or beside unweighted meshes):
 * one skin over its deform joints (every joint when the rule finds none; joint j is node j) with the skeleton's
 * inverse binds, as Blender writes an armature without meshes, so that readers make the joints an armature rather
 * than empties. Appended to skins_json. */
static int skeleton_skin(writer* w, buf* skins_json) {
  const skc_skeleton* sk = w->s->skeleton;
  const uint32_t jc = sk->joint_count;
  uint8_t* mask = calloc(jc, 1);
  float* ibm = malloc((size_t)jc * 16 * sizeof *ibm);
  uint32_t* joints = malloc(jc * sizeof *joints);
  uint32_t n = 0;
  int rc = SKC_OK;
  if (!mask || !ibm || !joints || skio_scene_deform_joints(w->s, mask, NULL, NULL, NULL) != SKC_OK) {
    rc = oom_fail(w);
    goto done;
  }
  for (uint32_t j = 0; j < jc; ++j) n += mask[j];
  for (uint32_t j = 0, k = 0; j < jc; ++j) {
    if (n && !mask[j]) continue;
    float* b = ibm + (size_t)k * 16;
    memcpy(b, sk->inverse_bind + (size_t)j * 16, 16 * sizeof *b);
    exact_bottom_row(b); /* glTF wants the bottom row exact (exact_bottom_row) */
    joints[k++] = j;
  }
  n = n ? n : jc;
  if (!all_finite(ibm, (size_t)n * 16)) {
    rc = skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: the skeleton's inverse bind matrices are not finite", w->path);
    goto done;
  }
  int32_t acc = put_accessor(w, REGION_IBM, ibm, n, 16, CT_F32, TARGET_NONE, NULL, NULL);
  if (acc < 0) {
    rc = oom_fail(w);
    goto done;
  }
  skio_buf_str(skins_json, "{\"name\":");
  skio_buf_json_string(skins_json, sk->names && sk->names[0] ? sk->names[0] : "skeleton", NULL);
  skio_buf_printf(skins_json, ",\"inverseBindMatrices\":%d,\"joints\":[", (int)acc);
  for (uint32_t k = 0; k < n; ++k) skio_buf_printf(skins_json, "%s%u", k ? "," : "", joints[k]);
  skio_buf_str(skins_json, "]}");
done:
  free(mask);
  free(ibm);
  free(joints);
  return rc;
}

/* ---- checks -------------------------------------------------------------------------------------------------- */
static int check_scene(writer* w) {
  const skio_scene* s = w->s;
  const skc_skeleton* sk = s->skeleton;
  if (s->mesh_count == 0 && !sk) /* a skeleton alone (with its clips) is a file: an animation library */
    return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: scene has no mesh and no skeleton to write", w->path);
  if (s->mesh_count > 65535)
    return skc_fail(w->err, SKC_UNSUPPORTED, "%s: %u meshes (at most 65535)", w->path, s->mesh_count);
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) {
    const skio_mesh* m = &s->meshes[mi];
    const char* nm = m->name ? m->name : "";
    if (!m->name) return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: mesh %u has no name", w->path, mi);
    if (!m->positions || m->vertex_count == 0)
      return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: mesh %u \"%s\" has no positions", w->path, mi, nm);
    if (m->vertex_count >= UINT32_MAX)
      return skc_fail(w->err, SKC_UNSUPPORTED, "%s: mesh %u \"%s\" has %zu vertices (at most 2^32-2)", w->path, mi, nm,
                      m->vertex_count);
    if (!all_finite(m->positions, m->vertex_count * 3))
      return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: mesh %u \"%s\" has positions that are not finite", w->path, mi,
                      nm);
    if (m->index_count % 3 || (m->index_count && !m->indices))
      return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: mesh %u \"%s\": %zu indices are not whole triangles", w->path,
                      mi, nm, m->index_count);
    for (size_t i = 0; i < m->index_count; ++i)
      if (m->indices[i] >= m->vertex_count)
        return skc_fail(w->err, SKC_OUT_OF_RANGE, "%s: mesh %u \"%s\": index %zu is %u, past the %zu vertices", w->path,
                        mi, nm, i, m->indices[i], m->vertex_count);
    if (!m->skin) continue;
    if (!sk)
      return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: mesh %u \"%s\" has a skin but the scene has no skeleton",
                      w->path, mi, nm);
    const skc_skin* k = m->skin;
    if (k->vertex_count != m->vertex_count || k->joint_count != sk->joint_count || !k->offsets)
      return skc_fail(w->err, SKC_INVALID_ARGUMENT,
                      "%s: mesh %u \"%s\": skin of %zu vertices over %u joints, mesh of %zu, skeleton of %u", w->path,
                      mi, nm, k->vertex_count, k->joint_count, m->vertex_count, sk->joint_count);
    skc_err e2 = {0};
    if (skc_offsets_check(k->offsets, k->vertex_count, &e2))
      return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: mesh %u \"%s\": %s", w->path, mi, nm, e2.message);
  }
  if (sk && !all_finite(sk->rest_local, (size_t)sk->joint_count * 16))
    return skc_fail(w->err, SKC_INVALID_ARGUMENT, "%s: the skeleton has rest transforms that are not finite", w->path);
  return SKC_OK;
}

/* ---- several characters ------------------------------------------------------------------------------------------ */

/* A scene of several characters, each under its own skeleton root (an armature object, a skeleton root that no skin
 * lists, kept a plain node: arm_obj, as Blender's FBX export of two armatures reads; or a root some skin lists). Every
 * skin listed the every-skin joints (extra) of every character, so Blender 3.4's glTF importer, which makes one
 * armature of skins that share joints, merged the characters into one armature named after a mesh, their armature
 * objects turned into bones, and a skin listing another root's leaf joint has no common root (the Khronos validator's
 * SKIN_NO_COMMON_ROOT; session 45, two armatures scaled in an FBX). With two or more roots that skins use, a skin lists
 * only its own characters' extra joints (and those under no character). chars.top[j]: the root above joint j;
 * chars.taken[r]: some skinned mesh uses a joint below root r. */
typedef struct characters {
  bool split;     /* two or more skeleton roots carry skinned meshes: skins list their own characters only */
  uint32_t* top;  /* joint_count */
  uint8_t* taken; /* joint_count */
  uint8_t* extra; /* joint_count: the mesh's own extra joints (characters_extra) */
  uint8_t* mine;  /* joint_count scratch */
} characters;

static void characters_free(characters* c) {
  free(c->top), free(c->taken), free(c->extra), free(c->mine);
  memset(c, 0, sizeof *c);
}

/* Marks in mark the roots (c->top) of the joints mesh m binds or weights. */
static void mesh_tops(const skio_mesh* m, uint32_t jc, const characters* c, uint8_t* mark) {
  for (uint32_t j = 0; m->skin && j < jc; ++j)
    if (m->bound && m->bound[j]) mark[c->top[j]] = 1;
  for (size_t e = 0, n = m->skin ? skc_skin_entries(m->skin) : 0; e < n; ++e)
    if (m->skin->joints[e] < jc && m->skin->weights[e] > 0.0f) mark[c->top[m->skin->joints[e]]] = 1;
}

/* Fills c for scene s; false when out of memory. */
static bool characters_find(const skio_scene* s, characters* c) {
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = sk ? sk->joint_count : 0;
  memset(c, 0, sizeof *c);
  if (!jc) return true;
  c->top = malloc(jc * sizeof *c->top);
  c->taken = calloc(jc, 1);
  c->extra = malloc(jc);
  c->mine = malloc(jc);
  if (!c->top || !c->taken || !c->extra || !c->mine) return false;
  for (uint32_t j = 0; j < jc; ++j) {
    int32_t p = sk->parents[j];
    c->top[j] = (p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j) ? j : c->top[p];
  }
  for (uint32_t m = 0; m < s->mesh_count; ++m) mesh_tops(&s->meshes[m], jc, c, c->taken);
  uint32_t in_use = 0;
  for (uint32_t j = 0; j < jc; ++j) in_use += c->top[j] == j && c->taken[j];
  c->split = in_use >= 2;
  return true;
}

/* The every-skin joints mesh m lists: orphan, less those below another character's root. */
static const uint8_t* characters_extra(characters* c, const skio_scene* s, uint32_t m, const uint8_t* orphan) {
  if (!c->split) return orphan;
  const uint32_t jc = s->skeleton->joint_count;
  memset(c->mine, 0, jc);
  mesh_tops(&s->meshes[m], jc, c, c->mine);
  for (uint32_t j = 0; j < jc; ++j) {
    const uint32_t r = c->top[j];
    c->extra[j] = orphan[j] && !(c->taken[r] && !c->mine[r]);
  }
  return c->extra;
}

/* A skin's joints must have a common root (glTF 2.0, skins; the Khronos validator's SKIN_NO_COMMON_ROOT). When a
 * mesh binds joints under several roots (bones at the top of a Maya scene, a flattened skeleton), those roots are
 * gathered under one added node at the identity, written after every other node: it becomes the skin's skeleton,
 * and Blender's importer its armature object. Nothing moves. gathered[jc] says whether there is one. */
static void gather_roots(const skc_skeleton* sk, const mesh_out* mo, uint8_t* gathered) {
  for (uint32_t i = 0; i < mo->listed; ++i) {
    uint32_t j = mo->joints[i];
    for (int32_t p = sk->parents[j]; p != SKC_NO_PARENT && p >= 0 && (uint32_t)p < j; p = sk->parents[j])
      j = (uint32_t)p;
    gathered[j] = 1;
  }
  gathered[sk->joint_count] = 1;
}

/* Appends the node gather_roots asked for (named "Armature", or so that no joint has its name). */
static int gathered_root_node(writer* w, const uint8_t* gathered, const char* const* jsorted, buf* nodes) {
  const skc_skeleton* sk = w->s->skeleton;
  const uint32_t jc = sk ? sk->joint_count : 0;
  if (!jc || !gathered[jc]) return SKC_OK;
  char* name = free_name(jsorted, jc, "Armature", "_root");
  if (!name) return oom_fail(w);
  skio_buf_str(nodes, ",{\"name\":");
  skio_buf_json_string(nodes, name, NULL);
  free(name);
  skio_buf_str(nodes, ",\"children\":[");
  bool comma = false;
  for (uint32_t j = 0; j < jc; ++j)
    if (gathered[j]) {
      skio_buf_printf(nodes, "%s%u", comma ? "," : "", j);
      comma = true;
    }
  skio_buf_str(nodes, "]}");
  w->rep.roots_gathered = 1;
  return SKC_OK;
}

/* The armature objects of a skeleton whose rest transforms are all rigid: each root above bound joints that no mesh
 * binds (anc: bound or an ancestor of a bound joint; used: bound or weighted), or the last of the nodes below it
 * named as armature objects or importers' roots (skio_chain_wrapper_name), each unused, the only child of the one
 * above and with joints below (a clip may move it, as one may move a root kept plain: Blender's FBX exporter keys the
 * armature object in every clip, and Blender's glTF importer gives the plain node's keys to the armature object), and
 * not declared a bone by the file (an FBX LimbNode: skio_scene.bone_names).
 * arm[j] marks the armature objects, above[j] the roots and wrappers above them.
 */
static void armature_chain(const skio_scene* s, const uint32_t* child_off, const uint32_t* child, const uint8_t* anc,
                           const uint8_t* used, uint8_t* arm, uint8_t* above) {
  const skc_skeleton* sk = s->skeleton;
  for (uint32_t r = 0; r < sk->joint_count; ++r) {
    if (!anc[r] || used[r] || !skc_skeleton_is_root(sk, r)) continue;
    uint32_t a = r;
    while (child_off[a + 1] - child_off[a] == 1) {
      const uint32_t c = child[child_off[a]];
      if (!anc[c] || used[c] || child_off[c + 1] == child_off[c] || !skio_chain_wrapper_name(sk->names[c])) break;
      if (s->bone_names_known && skio_names_have(s->bone_names, s->bone_name_count, sk->names[c]))
        break; /* the file declares it a bone (an FBX LimbNode): Blender's importer makes it one */
      above[a] = 1;
      a = c;
    }
    arm[a] = 1;
  }
}

/* ---- entry ------------------------------------------------------------------------------------------------------ */

/* ---- cameras, lights and empty nodes (skio_object) ------------------------------------------------------ */

static void objects_free(objects_out* o) {
  free(o->pre);
  free(o->child);
  free(o->next);
  free(o->held);
  free(o->mesh);
  free(o->mesh_held);
  free(o->joint);
  free(o->world);
  free(o->local);
}

/* m without its scale: the columns normalized (a camera's and a light's node is rigid in glTF; their clip planes
 * do not scale with the node, in glTF as in the formats read). */
static void unscaled(const float m[16], float out[16]) {
  memcpy(out, m, 16 * sizeof *out);
  for (int c = 0; c < 3; ++c) { /* in double: a float column's squares overflow past 1.8e19 */
    const double x = m[4 * c], y = m[4 * c + 1], z = m[4 * c + 2], l = sqrt(x * x + y * y + z * z);
    for (int r = 0; r < 3 && l > 0.0; ++r) out[4 * c + r] = (float)(m[4 * c + r] / l);
  }
}

/* The joints sorted by name (then index) for joint_named's binary search: many objects and joints cost n log n. */
typedef struct named_joint {
  const char* name;
  uint32_t j;
} named_joint;

static int cmp_named_joint(const void* a, const void* b) {
  const named_joint *x = a, *y = b;
  const int c = strcmp(x->name, y->name);
  return c ? c : (x->j > y->j) - (x->j < y->j);
}

/* The lowest joint named name, or -1. */
static int32_t joint_named(const named_joint* sorted, uint32_t jc, const char* name) {
  uint32_t lo = 0, hi = jc;
  while (name && lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (strcmp(sorted[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return name && lo < jc && strcmp(sorted[lo].name, name) == 0 ? (int32_t)sorted[lo].j : -1;
}

/* The mesh node (group) written for the mesh node named name (skio_mesh.node_name, else the mesh's name), or -1. */
static int32_t mesh_node_named(const skio_scene* s, const mesh_out* mo, const char* name) {
  for (uint32_t mi = 0; name && mi < s->mesh_count; ++mi) {
    const char* own = s->meshes[mi].node_name ? s->meshes[mi].node_name : s->meshes[mi].name;
    if (mo[mi].lead == mi && own && strcmp(own, name) == 0) return (int32_t)mo[mi].group;
  }
  return -1;
}

/* The objects that hang from a mesh's node (skio_object.parent_mesh) go under that mesh's node, their matrices there
 * their worlds (as at the top) until objects_in_mesh_nodes takes them relative to the node's world as written; they
 * follow the node where the node goes. */
static bool objects_under_meshes(const skio_scene* s, const mesh_out* mo, uint32_t mesh_nodes, objects_out* o) {
  const uint32_t n = s->object_count;
  o->mesh = malloc(((size_t)n + 1) * sizeof *o->mesh);
  o->mesh_held = malloc(((size_t)mesh_nodes + 1) * sizeof *o->mesh_held);
  if (!o->mesh || !o->mesh_held) return false;
  for (uint32_t g = 0; g < mesh_nodes; ++g) o->mesh_held[g] = -1;
  const char* last = NULL; /* the previous lookup (objects under one mesh node come in runs) */
  int32_t last_group = -1;
  for (uint32_t k = n; k-- > 0;) { /* pushed in decreasing index: each list comes out increasing */
    const skio_object* ob = &s->objects[k];
    const bool look = ob->parent < 0 && o->joint[k] < 0 && ob->parent_mesh;
    if (look && !(last && strcmp(last, ob->parent_mesh) == 0)) {
      last = ob->parent_mesh;
      last_group = mesh_node_named(s, mo, last);
    }
    o->mesh[k] = look ? last_group : -1;
    if (o->mesh[k] < 0 || (uint32_t)o->mesh[k] >= mesh_nodes) {
      o->mesh[k] = -1;
      continue;
    }
    o->next[k] = o->mesh_held[o->mesh[k]];
    o->mesh_held[o->mesh[k]] = (int32_t)k;
  }
  return true;
}

/* ",\"children\":[...]" of mesh node g when it holds objects. */
static void objects_of_mesh(const objects_out* o, uint32_t g, buf* b) {
  if (!o || o->mesh_held[g] < 0) return;
  skio_buf_str(b, ",\"children\":[");
  for (int32_t k = o->mesh_held[g]; k >= 0; k = o->next[k])
    skio_buf_printf(b, "%s%u", k == o->mesh_held[g] ? "" : ",", o->first + (uint32_t)k);
  skio_buf_str(b, "]");
}

/* Where each object's node goes: under its parent object, under the joint it hung from (by name: a view may have
 * renumbered or dropped joints) unless that is a root no mesh binds and not written as an armature object (a
 * Collada file's scene root: Blender would make the objects children of a bone), under the mesh node it hung from,
 * else at the top; its matrix there from the world transforms, so every object stays where the scene has it.
 * false: out of memory. */
static bool objects_plan(const skio_scene* s, uint32_t first, const uint8_t* used, const uint8_t* arm_obj,
                         const mesh_out* mo, uint32_t mesh_nodes, objects_out* o) {
  const uint32_t n = s->object_count, jc = s->skeleton ? s->skeleton->joint_count : 0;
  o->first = first;
  o->joint = malloc(((size_t)n + 1) * sizeof *o->joint);
  o->world = malloc(((size_t)n + 1) * 16 * sizeof *o->world);
  o->local = malloc(((size_t)n + 1) * 16 * sizeof *o->local);
  float* jworld = malloc(((size_t)jc + 1) * 16 * sizeof *jworld);
  named_joint* sorted = malloc(((size_t)jc + 1) * sizeof *sorted);
  o->pre = malloc(((size_t)n + 1) * 16 * sizeof *o->pre);
  o->child = malloc(((size_t)n + 1) * sizeof *o->child);
  o->next = malloc(((size_t)n + 1) * sizeof *o->next);
  o->held = malloc(((size_t)jc + 1) * sizeof *o->held);
  bool ok = o->joint && o->world && o->local && o->pre && o->child && o->next && o->held && jworld && sorted;
  for (uint32_t j = 0; ok && j < jc; ++j) sorted[j] = (named_joint){s->skeleton->names[j], j};
  if (ok && jc) qsort(sorted, jc, sizeof *sorted, cmp_named_joint);
  for (uint32_t j = 0; ok && j < jc; ++j) o->held[j] = -1;
  for (uint32_t k = 0; ok && k < n; ++k) o->child[k] = o->next[k] = -1;
  for (uint32_t k = n; ok && k-- > 0;) { /* pushed in decreasing index: each list comes out increasing */
    const int32_t p = s->objects[k].parent;
    if (p < 0 || (uint32_t)p >= k) continue;
    o->next[k] = o->child[p];
    o->child[p] = (int32_t)k;
  }
  if (ok && jc) written_rest_world(s->skeleton, jworld);
  for (uint32_t k = 0; ok && k < n; ++k) {
    const skio_object* ob = &s->objects[k];
    float* wk = o->world + (size_t)k * 16;
    if (ob->kind == SKIO_OBJECT_EMPTY)
      memcpy(wk, ob->world, sizeof ob->world);
    else
      unscaled(ob->world, wk);
    o->cameras += ob->kind == SKIO_OBJECT_CAMERA;
    o->lights += ob->kind == SKIO_OBJECT_LIGHT;
    const bool under = ob->parent >= 0 && (uint32_t)ob->parent < k;
    o->joint[k] = under ? -1 : joint_named(sorted, jc, ob->parent_joint);
    if (o->joint[k] >= 0 && skc_skeleton_is_root(s->skeleton, (uint32_t)o->joint[k]) && !used[o->joint[k]] &&
        !arm_obj[o->joint[k]])
      o->joint[k] = -1;
    const float* pw = under              ? o->world + (size_t)ob->parent * 16
                      : o->joint[k] >= 0 ? jworld + (size_t)o->joint[k] * 16
                                         : NULL;
    float inv[16];
    if (pw && !skc_mat4_inverse(pw, inv)) pw = NULL, o->joint[k] = -1; /* a degenerate parent: at the top */
    if (pw) {
      skc_mat4_mul(inv, wk, o->local + (size_t)k * 16);
      skc_mat4_mul(inv, ob->parent_rest, o->pre + (size_t)k * 16);
    } else {
      memcpy(o->local + (size_t)k * 16, wk, 16 * sizeof *wk);
      memcpy(o->pre + (size_t)k * 16, ob->parent_rest, sizeof ob->parent_rest);
    }
  }
  for (uint32_t k = n; ok && k-- > 0;) /* the joints' lists, increasing index as the objects' */
    if (s->objects[k].parent < 0 && o->joint[k] >= 0) {
      o->next[k] = o->held[o->joint[k]];
      o->held[o->joint[k]] = (int32_t)k;
    }
  free(sorted);
  free(jworld);
  return ok && objects_under_meshes(s, mo, mesh_nodes, o);
}

/* ",N" for each object node that joint j's node holds */
static void objects_of_joint(const objects_out* o, uint32_t j, buf* b, bool* comma) {
  for (int32_t k = o->held[j]; k >= 0; k = o->next[k]) {
    skio_buf_printf(b, "%s%u", *comma ? "," : "", o->first + (uint32_t)k);
    *comma = true;
  }
}

/* The object nodes, each after a comma but the first when `first` (no node before them); camera c and light l
 * numbered in object order. */
static void objects_nodes(const writer* w, const objects_out* o, bool first, buf* b, uint32_t* names_fixed) {
  const skio_scene* s = w->s;
  uint32_t cam = 0, light = 0;
  for (uint32_t k = 0; k < s->object_count; ++k) {
    const skio_object* ob = &s->objects[k];
    bool fixed = false;
    skio_buf_str(b, k == 0 && first ? "{\"name\":" : ",{\"name\":");
    skio_buf_json_string(b, ob->name, &fixed);
    *names_fixed += fixed;
    put_node_transform(b, o->local + (size_t)k * 16);
    put_extras(b, w, ob->name);
    if (ob->kind == SKIO_OBJECT_CAMERA) skio_buf_printf(b, ",\"camera\":%u", cam++);
    if (ob->kind == SKIO_OBJECT_LIGHT)
      skio_buf_printf(b, ",\"extensions\":{\"KHR_lights_punctual\":{\"light\":%u}}", light++);
    for (int32_t c = o->child[k]; c >= 0; c = o->next[c])
      skio_buf_printf(b, "%s%u", c == o->child[k] ? ",\"children\":[" : ",", o->first + (uint32_t)c);
    skio_buf_str(b, o->child[k] >= 0 ? "]}" : "}");
  }
}

/* "cameras": perspective, or orthographic */
static void objects_cameras(const skio_scene* s, buf* b) {
  bool comma = false;
  for (uint32_t k = 0; k < s->object_count; ++k) {
    const skio_object* ob = &s->objects[k];
    if (ob->kind != SKIO_OBJECT_CAMERA) continue;
    skio_buf_str(b, comma ? ",{\"name\":" : "{\"name\":");
    comma = true;
    skio_buf_json_string(b, ob->name, NULL);
    if (ob->ortho) { /* glTF requires zfar here */
      const double zfar = ob->zfar > ob->znear ? ob->zfar : ob->znear + 1000.0;
      skio_buf_printf(b,
                      ",\"type\":\"orthographic\",\"orthographic\":{\"xmag\":%.9g,\"ymag\":%.9g,\"znear\":%.9g,"
                      "\"zfar\":%.9g}}",
                      (double)ob->xmag, (double)ob->ymag, (double)ob->znear, zfar);
      continue;
    }
    skio_buf_str(b, ",\"type\":\"perspective\",\"perspective\":{");
    if (ob->aspect > 0.0f) skio_buf_printf(b, "\"aspectRatio\":%.9g,", (double)ob->aspect);
    skio_buf_printf(b, "\"yfov\":%.9g,\"znear\":%.9g", (double)ob->yfov, (double)ob->znear);
    if (ob->zfar > ob->znear) skio_buf_printf(b, ",\"zfar\":%.9g", (double)ob->zfar);
    skio_buf_str(b, "}}");
  }
}

/* KHR_lights_punctual's "lights": glTF's photometric units from the source's (Blender's): a point or spot light's
 * W as candela (683 lm/W over 4 pi sr), a sun's W/m^2 as lux (683 lm/W), as Blender's own glTF exporter does. */
static void objects_lights(const skio_scene* s, buf* b) {
  bool comma = false;
  for (uint32_t k = 0; k < s->object_count; ++k) {
    const skio_object* ob = &s->objects[k];
    if (ob->kind != SKIO_OBJECT_LIGHT) continue;
    static const char* const types[3] = {"directional", "point", "spot"};
    const double intensity = skio_light_gltf_intensity(ob);
    skio_buf_str(b, comma ? ",{\"name\":" : "{\"name\":");
    comma = true;
    skio_buf_json_string(b, ob->name, NULL);
    skio_buf_printf(b, ",\"type\":\"%s\",\"color\":", types[ob->light <= SKIO_LIGHT_SPOT ? ob->light : 1]);
    put_floats(b, ob->color, 3);
    skio_buf_printf(b, ",\"intensity\":%.9g", intensity);
    if (ob->light == SKIO_LIGHT_SPOT)
      skio_buf_printf(b, ",\"spot\":{\"innerConeAngle\":%.9g,\"outerConeAngle\":%.9g}", (double)ob->inner_cone,
                      (double)ob->outer_cone);
    skio_buf_str(b, "}");
  }
}

/* ---- the document -------------------------------------------------------------------------------------------- */
/* What skio_gltf_write assembles between its pieces: the skeleton's layout, the meshes as written, the JSON arrays,
 * the binary buffer and the files written (all freed by doc_free). */
typedef struct doc {
  int binary;             /* .glb, else .gltf + .bin */
  uint32_t jc, M;         /* joints, meshes */
  char** jnames;          /* the joints' names as written (unique_names) */
  const char** jsorted;   /* the same sorted */
  char** mnames;          /* per mesh: its node's name (a group's lead only) */
  uint8_t* orphan;        /* joints listed in every skin */
  uint8_t* used;          /* joints some mesh binds or weights (writer.used) */
  uint8_t* arm_obj;       /* plain nodes kept as armature objects (armature_chain) */
  uint8_t* above;         /* plain nodes above one of those */
  uint8_t* gathered;      /* roots put under the added node; [jc]: there is one (gather_roots) */
  characters chars;       /* the characters (characters_find) */
  mesh_out* mo;           /* the meshes as written */
  bool* animated;         /* joints some clip keys */
  bool* matrix_joint;     /* joints written as "matrix" */
  uint32_t* child_off;    /* joint j's children are child[child_off[j] .. child_off[j + 1]) */
  uint32_t* child;        /* (jc + 1 entries) */
  uint32_t root;          /* the first root joint */
  int32_t rest_joint;     /* a TRS joint to hold empty clips: the root when possible */
  uint32_t mesh_nodes;    /* one node per group */
  uint32_t gathered_node; /* the node gather_roots adds, after every other node */
  float bake_x[16];       /* writer.bake, when there is one */
  holders hold;           /* unskinned meshes under a joint (mesh_holders) */
  uint8_t* bone_child;    /* per mesh: a rigid attachment written under its bone (plan_bone_children) */
  objects_out objs;       /* cameras, lights and empties (objects_plan) */
  buf meshes, anims, nodes, skins, mats, texs, imgs; /* the JSON arrays' entries */
  bool ext_webp, ext_ktx2;                           /* textures need EXT_texture_webp / KHR_texture_basisu */
  buf json, bin, glb_head;                           /* what is written */
  size_t base[REGIONS];                              /* each region's offset in bin */
  char* bin_path;                                    /* .gltf: its buffer's file */
  buf uri;                                           /* and that file's URI */
  bool bin_existed;
  char *tmp_bin, *tmp_main; /* the temporary files written (write_temp) */
} doc;

/* Frees everything d and w hold (what is not allocated is NULL). */
static void doc_free(writer* w, doc* d) {
  free((void*)w->props);
  free((void*)w->mprops);
  if (d->jnames)
    for (uint32_t j = 0; j < d->jc; ++j) free(d->jnames[j]);
  free(d->jnames);
  free(d->jsorted);
  if (d->mnames)
    for (uint32_t mi = 0; mi < d->M; ++mi) free(d->mnames[mi]);
  free(d->mnames);
  free(d->orphan);
  free(d->used);
  free(d->arm_obj);
  free(d->above);
  free(d->gathered);
  characters_free(&d->chars);
  holders_free(&d->hold);
  free(d->bone_child);
  objects_free(&d->objs);
  if (d->mo)
    for (uint32_t mi = 0; mi < d->M; ++mi) free(d->mo[mi].joints), free(d->mo[mi].prims.p);
  free(d->mo);
  free(d->animated);
  free(d->matrix_joint);
  free(d->child_off);
  free(d->child);
  free(d->meshes.p);
  free(d->mats.p);
  free(d->texs.p);
  free(d->imgs.p);
  free(d->anims.p);
  free(d->nodes.p);
  free(d->skins.p);
  free(d->json.p);
  free(d->bin.p);
  free(d->glb_head.p);
  free(d->tmp_bin);
  free(d->tmp_main);
  free(d->bin_path);
  free(d->uri.p);
  for (int r = 0; r < REGIONS; ++r) free(w->data[r].p);
  free(w->views);
  free(w->accessors.p);
}

/* The weight options: as-is alone, a finite prune >= 0, a limit up to SKC_MAX_INFLUENCES_PER_VERTEX. */
static int check_options(const writer* w) {
  if (w->o.as_is && (w->o.normalize || w->o.limit))
    return skc_fail(w->err, SKC_INVALID_ARGUMENT, "as-is weights cannot be combined with normalize or a limit");
  if (!(w->o.prune >= 0.0f) || !isfinite(w->o.prune))
    return skc_fail(w->err, SKC_INVALID_ARGUMENT, "prune must be finite and >= 0 (got %g)", (double)w->o.prune);
  if (w->o.limit > SKC_MAX_INFLUENCES_PER_VERTEX)
    return skc_fail(w->err, SKC_INVALID_ARGUMENT, "limit %u is above %u", w->o.limit, SKC_MAX_INFLUENCES_PER_VERTEX);
  return SKC_OK;
}

/* The output path: not a folder, not the scene's source file. */
static int check_output(const writer* w) {
  struct stat st;
  if (stat(w->path, &st) == 0 && S_ISDIR(st.st_mode)) return skc_fail(w->err, SKC_IO, "%s: is a folder", w->path);
  if (skio_same_file(w->path, w->s->source))
    return skc_fail(w->err, SKC_EXISTS, "%s: is the scene's source file; not overwritten", w->path);
  return SKC_OK;
}

/* The buffer file of a .gltf at path, beside it (malloc'd; NULL when out of memory). */
static char* bin_name(const char* path) {
  const char* slash = strrchr(path, '/');
  const char* base = slash ? slash + 1 : path;
  const char* dot = strrchr(base, '.');
  size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  char* bin_path = malloc(strlen(path) + 8);
  if (!bin_path) return NULL;
  /* The buffer's name: the stem with every character outside [A-Za-z0-9._~-] replaced by '_', so that its URI
   * needs no percent-encoding: Assimp 5.2.5 opens the URI as written ("my%20model.bin" is not found, measured),
   * while the spec (and Blender, the Khronos validator) decode it. */
  size_t at = (size_t)(base - path);
  memcpy(bin_path, path, at);
  for (const unsigned char* q = (const unsigned char*)base; q < (const unsigned char*)path + stem;) {
    unsigned c = *q;
    bool safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_' || c == '~';
    size_t n = c >= 0x80 ? skio_utf8_len(q) : 1;
    if (n == 0 || q + n > (const unsigned char*)path + stem) n = 1;
    bin_path[at++] = safe ? (char)c : '_';
    q += n;
  }
  strcpy(bin_path + at, ".bin");
  if (strcmp(bin_path, path) == 0) strcpy(bin_path + at, ".bin.bin");
  return bin_path;
}

/* .gltf: where the buffer goes (d->bin_path, its URI d->uri); refused when that is a folder, the scene's source, or
 * a file that the options do not allow replacing. */
static int buffer_file(const writer* w, doc* d) {
  const char* path = w->path;
  skc_err* err = w->err;
  if (!(d->bin_path = bin_name(path))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  const char* bin_path = d->bin_path;
  int rc = SKC_OK;
  struct stat st;
  if (stat(bin_path, &st) == 0) {
    d->bin_existed = true;
    if (S_ISDIR(st.st_mode))
      rc = skc_fail(err, SKC_IO, "%s: its buffer %s is a folder", path, bin_path);
    else if (skio_same_file(bin_path, w->s->source))
      rc = skc_fail(err, SKC_EXISTS, "%s: its buffer %s is the scene's source file; not overwritten", path, bin_path);
    else if (!w->o.replace_bin)
      rc = skc_fail(err, SKC_EXISTS, "%s: its buffer %s exists (allow replacing it to overwrite)", path, bin_path);
  }
  if (!rc) {
    const char* bslash = strrchr(bin_path, '/');
    percent_encode(&d->uri, bslash ? bslash + 1 : bin_path);
    if (d->uri.oom) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  return rc;
}

/* The per-joint and per-mesh arrays of d that every scene has. */
static int doc_alloc(writer* w, doc* d) {
  const uint32_t jc = d->jc;
  d->arm_obj = calloc(jc + 1, 1);
  d->above = calloc(jc + 1, 1);
  d->gathered = calloc(jc + 1, 1);
  d->mo = calloc(d->M, sizeof *d->mo);
  d->animated = calloc(jc + 1, sizeof *d->animated);
  d->matrix_joint = calloc(jc + 1, sizeof *d->matrix_joint);
  d->child_off = calloc(jc + 2, sizeof *d->child_off);
  d->child = malloc((jc + 1) * sizeof *d->child);
  if (!d->mo || !d->animated || !d->matrix_joint || !d->child_off || !d->child || !d->arm_obj || !d->above ||
      !d->gathered)
    return oom_fail(w);
  return SKC_OK;
}

/* Joint roots and animated joints: d->animated, d->root, and each joint's children (d->child_off, d->child). */
static int joint_tree(writer* w, doc* d) {
  const skio_scene* s = w->s;
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = d->jc;
  for (uint32_t a = 0; a < s->anim_count; ++a)
    for (uint32_t c = 0; c < s->anims[a].channel_count; ++c) {
      const skio_channel* ch = &s->anims[a].channels[c];
      if (ch->joint < jc && (ch->pos_count || ch->rot_count || ch->scl_count)) d->animated[ch->joint] = true;
    }
  uint32_t roots = 0;
  for (uint32_t j = 0; j < jc; ++j) {
    int32_t p = sk->parents[j];
    if (p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j) {
      if (roots++ == 0) d->root = j;
    } else {
      d->child_off[p + 1]++;
    }
  }
  for (uint32_t j = 0; j < jc; ++j) d->child_off[j + 1] += d->child_off[j];
  uint32_t* fill = malloc((jc + 1) * sizeof *fill);
  if (!fill) return oom_fail(w);
  memcpy(fill, d->child_off, (jc + 1) * sizeof *fill);
  for (uint32_t j = 0; j < jc; ++j) {
    int32_t p = sk->parents[j];
    if (!(p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j)) d->child[fill[p]++] = j;
  }
  free(fill);
  return SKC_OK;
}

/* Marks in used the joints that some mesh binds or weights; returns whether some mesh has a skin. */
static bool mark_used(const skio_scene* s, uint32_t jc, uint8_t* used) {
  bool any_skin = false;
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) {
    const skio_mesh* m = &s->meshes[mi];
    if (!m->skin) continue;
    any_skin = true;
    for (uint32_t j = 0; j < jc; ++j) used[j] |= m->bound && m->bound[j];
    for (size_t e = 0, n = skc_skin_entries(m->skin); e < n; ++e)
      if (m->skin->joints[e] < jc) used[m->skin->joints[e]] = 1;
  }
  return any_skin;
}

/* A node that carries a mesh and is neither bound nor above a bound joint (a keyed prop on a bone, a keyed crate
 * beside the character: the readers make them joints so that their clips hold their motion) stays a plain node:
 * listed, Blender's importer would make it a bone. Turns d->orphan (bound, or an ancestor of a bound joint) into
 * the joints listed in every skin. */
static int orphans_listed(writer* w, doc* d, bool all_rigid, bool any_skin) {
  const uint32_t jc = d->jc;
  uint8_t* carries = calloc(jc ? jc : 1, 1);
  if (!carries || skio_scene_mesh_joints(w->s, carries)) {
    free(carries);
    return oom_fail(w);
  }
  for (uint32_t j = 0; j < jc; ++j) carries[j] &= !d->orphan[j];
  for (uint32_t j = 0; j < jc; ++j) {
    d->orphan[j] =
        !d->above[j] && !carries[j] && ((all_rigid && !d->arm_obj[j]) || !d->orphan[j]); /* listed in every skin */
    w->rep.orphans_listed += any_skin && !d->used[j] && d->orphan[j];
  }
  free(carries);
  return SKC_OK;
}

/* Every skin lists every joint of the skeleton (unbound ones with the skeleton's inverse bind and no weight),
 * so no plain transformed node sits above a skin's joints: Blender 3.4's glTF importer makes such a node the
 * armature object and parents the mesh to it, which moved Testwuson.X and drone.md5mesh by 0.49-0.65 of the
 * diagonal; and readers that build the skeleton from the skins' joints and their ancestors (Assimp, and
 * through it skio_scene_import) bring back joints no mesh binds (attachment points, IK targets). */
static int skin_joint_plan(writer* w, doc* d) {
  const skio_scene* s = w->s;
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = d->jc;
  if (jc && !(d->orphan = calloc(jc, 1))) return oom_fail(w);
  d->used = calloc(jc ? jc : 1, 1);
  if (!d->used) return oom_fail(w);
  const bool any_skin = mark_used(s, jc, d->used);
  /* Every joint is listed when every rest transform is rigid. Blender's bones cannot carry scale: a scaled
   * joint (huesitos' x100 Armature node) throws its children off, while as a plain node it becomes the armature
   * object's transform and imports right (scene_export.c found the same for FBX). Then only the joints meshes
   * bind are listed, plus those no mesh binds that are no ancestor of a bound joint (attachment points, a
   * rig's tip), which readers would drop otherwise. */
  bool all_rigid = true;
  for (uint32_t j = 0; j < jc && all_rigid; ++j) all_rigid = skc_mat4_is_rigid(sk->rest_world + (size_t)j * 16, 1e-4f);
  for (uint32_t j = 0; j < jc; ++j) d->orphan[j] = d->used[j];
  for (uint32_t j = jc; j-- > 0;) {
    int32_t p = sk->parents[j];
    if (d->orphan[j] && p >= 0 && (uint32_t)p < j) d->orphan[p] = 1; /* 1 = bound, or an ancestor of a bound joint */
  }
  /* The one exception: a root above bound joints that no mesh binds - an armature object above its bones, as
   * Blender's FBX writes it (its x100 made it non-rigid until the unit was converted, session 30) and as the
   * addon writes an armature object, also above an unweighted top bone (Fox's "root" over "_rootJoint") - stays
   * a plain node: Blender's glTF importer makes it the armature object, with the source's name, instead of an
   * extra bone; the mesh is written in its space (write_mesh). A root some skin of the source listed is bound
   * (used) and stays a joint. Below such a root, nodes named as armature objects or importers' roots, each
   * the only child of the one above (a Collada file from Blender read by Assimp: Scene > Z_UP > Armature >
   * bones), move the armature object down to the last of them; those above it stay plain nodes too, the empties
   * Blender's own import makes of them (armature_chain). */
  if (all_rigid && jc) armature_chain(s, d->child_off, d->child, d->orphan, d->used, d->arm_obj, d->above);
  int rc = orphans_listed(w, d, all_rigid, any_skin);
  if (!rc) w->used = d->used;
  return rc;
}

/* A mesh the reader bound to the bone its node hangs from (skio_mesh.rigid_joint: a sword parented to a hand bone)
 * whose skin is still that one-joint skin is written without skin as a child of the bone's node, as Blender's own
 * exporter writes it (session 74): read back it is parented to the bone again, with its origin, and it follows the
 * bone in every clip as the skin did. Only where some other mesh keeps a skin that lists the joint (binds it, or
 * every skin lists it: d->orphan), so that the joint stays a bone for readers that take bones from skins; a file of
 * rigid parts alone keeps its one-joint skins, the only way its armature survives. */
static int plan_bone_children(writer* w, doc* d) {
  const skio_scene* s = w->s;
  const uint32_t jc = d->jc;
  d->bone_child = calloc((size_t)d->M + 1, 1);
  uint8_t* listed = calloc((size_t)jc + 1, 1);
  if (!d->bone_child || !listed) {
    free(listed);
    return oom_fail(w);
  }
  for (uint32_t mi = 0; mi < d->M; ++mi) {
    const skio_mesh* m = &s->meshes[mi];
    if (!m->skin || !m->bound || skio_mesh_still_rigid(m)) continue;
    for (uint32_t j = 0; j < jc; ++j) listed[j] |= m->bound[j] || (d->orphan && d->orphan[j]);
  }
  for (uint32_t mi = 0; mi < d->M; ++mi) {
    const skio_mesh* m = &s->meshes[mi];
    const int32_t j = m->rigid_joint;
    d->bone_child[mi] = skio_mesh_still_rigid(m) && m->inverse_bind && j >= 0 && (uint32_t)j < jc && listed[j] &&
                        skc_mat4_is_finite(m->inverse_bind + (size_t)j * 16);
  }
  free(listed);
  w->bone_child = d->bone_child;
  return SKC_OK;
}

/* Whether meshes a and b may become primitives of one glTF mesh before they are written (same_node decides after):
 * consecutive parts of one source object, both skinned, neither of parts. */
static bool same_object(const skio_mesh* a, const skio_mesh* b) {
  return a->node_group >= 0 && a->node_group == b->node_group && a->node_name && b->node_name &&
         !strcmp(a->node_name, b->node_name) && a->parent_joint == b->parent_joint && !a->part_count &&
         !b->part_count && a->skin && b->skin && a->bound && b->bound;
}

/* The end of the run of parts of one object that starts at mesh a (a + 1 when it is alone), and in binder[j] the
 * first of them that binds joint j (UINT32_MAX: none): O(parts x joints) once per run. */
static uint32_t object_run(const skio_scene* s, uint32_t a, uint32_t* binder) {
  const uint32_t jc = s->skeleton ? s->skeleton->joint_count : 0;
  const skio_mesh* m = &s->meshes[a];
  uint32_t b = a + 1;
  if (!same_object(m, m)) return b;
  while (b < s->mesh_count && same_object(&s->meshes[b], m)) ++b;
  for (uint32_t j = 0; j < jc; ++j) binder[j] = UINT32_MAX;
  for (uint32_t k = b; k-- > a;)
    for (uint32_t j = 0; j < jc; ++j)
      if (s->meshes[k].bound[j]) binder[j] = k;
  return b;
}

/* The joints mesh mi lists: base (NULL: none) and those another part of its object binds (binder, object_run) with
 * the same inverse bind (into out). An object of several materials is written as one glTF mesh only when its parts
 * list the same joints; each listed those it weights, so a part away from a bone (the bottom of a leg under a scaled
 * armature) split the object in two, and Blender read it as two objects. */
static const uint8_t* object_joints(const skio_scene* s, uint32_t mi, const uint32_t* binder, const uint8_t* base,
                                    uint8_t* out) {
  const uint32_t jc = s->skeleton ? s->skeleton->joint_count : 0;
  const skio_mesh* m = &s->meshes[mi];
  for (uint32_t j = 0; j < jc; ++j) {
    const uint32_t k = binder[j];
    out[j] = (base && base[j]) || (k != UINT32_MAX && k != mi &&
                                   !memcmp(s->meshes[k].inverse_bind + (size_t)j * 16, m->inverse_bind + (size_t)j * 16,
                                           16 * sizeof(float)));
  }
  return out;
}

/* The meshes (write_mesh), grouped into glTF meshes (mesh_groups), and their "meshes" entries (mesh_json). */
static int write_meshes(writer* w, doc* d) {
  const skio_scene* s = w->s;
  /* Bake: X = rest_world(j) * IB(j), when it is one matrix for every joint a mesh binds and not the identity
   * (the file's rest pose is its bind pose up to one transform: CesiumMan's Z_UP turn, huesitos' x100, SimpleSkin's
   * offset), is baked into the skinned meshes (vertices X v, inverse binds IB X^-1) so that the written rest pose
   * IS the bind pose. Skinned positions are unchanged. Blender 3.4's glTF importer places bones by the node rest
   * pose and leaves the mesh as stored, so with X != I it put huesitos' mesh 36 diagonals away from its bones.
   * The same rule as the FBX export (skio_scene_rest_to_bind). */
  if (skio_scene_rest_to_bind(s, d->bake_x)) w->bake = d->bake_x;
  if (!characters_find(s, &d->chars)) return oom_fail(w);
  const uint32_t jc = s->skeleton ? s->skeleton->joint_count : 0;
  uint8_t* listed = malloc(jc ? jc : 1);
  uint32_t* binder = malloc((jc ? jc : 1) * sizeof *binder);
  float* jworld = malloc(((size_t)jc + 1) * 16 * sizeof *jworld);
  if (!listed || !binder || !jworld) {
    free(listed), free(binder), free(jworld);
    return oom_fail(w);
  }
  if (jc) written_rest_world(s->skeleton, jworld);
  w->jworld = jworld; /* where a mesh node hangs (own_node) */
  int rc = SKC_OK;
  for (uint32_t mi = 0, run_a = 0, run_b = 0; mi < d->M && !rc; ++mi) {
    if (mi >= run_b) run_b = object_run(s, run_a = mi, binder);
    const uint8_t* extra = characters_extra(&d->chars, s, mi, d->orphan);
    rc = write_mesh(w, mi, run_b - run_a > 1 && jc ? object_joints(s, mi, binder, extra, listed) : extra, &d->mo[mi]);
  }
  w->jworld = NULL;
  free(listed);
  free(binder);
  free(jworld);
  if (rc) return rc;
  mesh_groups(s, d->mo);
  w->mprops = skio_user_props_sorted(s->mesh_props, s->mesh_prop_count); /* the meshes' custom properties */
  w->mprop_count = w->mprops ? s->mesh_prop_count : 0;
  if (s->mesh_prop_count && !w->mprops) return oom_fail(w);
  return mesh_json(w, d->mo, &d->meshes);
}

/* The objects under a mesh node (objects_under_meshes took the node's world for the identity) by the inverse of
 * that node's world as written (mesh_holders: a mesh written in its node's own space has its node's transform). */
static void objects_in_mesh_nodes(const skio_scene* s, const mesh_out* mo, const holders* h, objects_out* o) {
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) {
    float inv[16], t[16];
    if (mo[mi].lead != mi || o->mesh_held[mo[mi].group] < 0) continue;
    if (!skc_mat4_inverse(h->world + (size_t)mi * 16, inv) || !skc_mat4_is_finite(inv)) continue;
    for (int32_t k = o->mesh_held[mo[mi].group]; k >= 0; k = o->next[k]) {
      skc_mat4_mul(inv, o->local + (size_t)k * 16, t);
      memcpy(o->local + (size_t)k * 16, t, sizeof t);
      skc_mat4_mul(inv, o->pre + (size_t)k * 16, t);
      memcpy(o->pre + (size_t)k * 16, t, sizeof t);
    }
  }
}

/* Where the mesh and object nodes go: unskinned meshes under their joint (mesh_holders), one node per group after
 * the joints, the objects after those (objects_plan), the node gather_roots may add after every other node. */
static int plan_nodes(writer* w, doc* d) {
  const skio_scene* s = w->s;
  const uint32_t jc = d->jc;
  if (!mesh_holders(s, d->mo, &d->hold)) return oom_fail(w);
  d->mesh_nodes = 0; /* one node per group */
  for (uint32_t mi = 0; mi < d->M; ++mi)
    if (d->mo[mi].lead == mi && d->mo[mi].group + 1 > d->mesh_nodes) d->mesh_nodes = d->mo[mi].group + 1;
  if (s->object_count && !objects_plan(s, jc + d->mesh_nodes, d->used, d->arm_obj, d->mo, d->mesh_nodes, &d->objs))
    return oom_fail(w);
  if (s->object_count) w->objs = &d->objs;
  if (s->object_count) objects_in_mesh_nodes(s, d->mo, &d->hold, &d->objs);
  d->gathered_node = jc + d->mesh_nodes + s->object_count; /* after every other node */
  return SKC_OK;
}

/* ",\"children\":[...]" of joint j's node when it has any: its child joints, the meshes and objects it holds. */
static void joint_children(const writer* w, doc* d, uint32_t j) {
  const holders* hold = &d->hold;
  buf* nodes = &d->nodes;
  const bool objects = w->s->object_count;
  if (!(d->child_off[j + 1] > d->child_off[j] || hold->off[j + 1] > hold->off[j] || (objects && d->objs.held[j] >= 0)))
    return;
  skio_buf_str(nodes, ",\"children\":[");
  bool comma = false;
  for (uint32_t k = d->child_off[j]; k < d->child_off[j + 1]; ++k, comma = true)
    skio_buf_printf(nodes, "%s%u", comma ? "," : "", d->child[k]);
  for (uint32_t k = hold->off[j]; k < hold->off[j + 1]; ++k, comma = true)
    skio_buf_printf(nodes, "%s%u", comma ? "," : "", d->jc + d->mo[hold->mesh[k]].group);
  if (objects) objects_of_joint(&d->objs, j, nodes, &comma);
  skio_buf_str(nodes, "]");
}

/* The joints' nodes (node j is joint j), as TRS, or as "matrix" when a joint no clip keys has no TRS; picks
 * d->rest_joint. */
static void joint_nodes(writer* w, doc* d) {
  const skio_scene* s = w->s;
  const skc_skeleton* sk = s->skeleton;
  buf* nodes = &d->nodes;
  for (uint32_t j = 0; j < d->jc; ++j) {
    const float* m = sk->rest_local + (size_t)j * 16;
    skc_trs trs;
    bool trs_ok = skio_joint_rest_trs(s, j, &trs, 1e-5f);
    if (!trs_ok && !d->animated[j]) {
      d->matrix_joint[j] = true;
      w->rep.matrix_nodes++;
    } else if (!trs_ok) {
      w->rep.sheared_animated++;
    }
    if (!d->matrix_joint[j] && (d->rest_joint < 0 || j == d->root)) d->rest_joint = (int32_t)j;
    if (j) skio_buf_str(nodes, ",");
    skio_buf_str(nodes, "{\"name\":");
    bool fixed = false;
    skio_buf_json_string(nodes, d->jnames[j], &fixed);
    if (d->matrix_joint[j]) {
      skio_buf_str(nodes, ",\"matrix\":");
      put_floats(nodes, m, 16);
    } else {
      put_trs(nodes, trs);
    }
    put_extras(nodes, w, sk->names[j]);
    joint_children(w, d, j);
    skio_buf_str(nodes, "}");
    if (fixed) w->rep.names_fixed++;
  }
}

/* The mesh nodes, one per group (its lead's), named as the object and so that no joint has its name. */
static int mesh_nodes(writer* w, doc* d) {
  const skio_scene* s = w->s;
  const mesh_out* mo = d->mo;
  buf* nodes = &d->nodes;
  if (!(d->mnames = calloc(d->M, sizeof *d->mnames))) return oom_fail(w);
  uint32_t skin_count = 0;
  for (uint32_t mi = 0; mi < d->M; ++mi) { /* a node per group: its lead's */
    if (mo[mi].lead != mi) continue;
    const char* base = s->meshes[mi].node_name ? s->meshes[mi].node_name : s->meshes[mi].name; /* the object's name */
    d->mnames[mi] = d->jc ? free_name(d->jsorted, d->jc, base, "_mesh") : dup_str(base);
    if (!d->mnames[mi]) return oom_fail(w);
    if (d->jc || mo[mi].group) skio_buf_str(nodes, ",");
    skio_buf_str(nodes, "{\"name\":");
    skio_buf_json_string(nodes, d->mnames[mi], NULL);
    put_node_transform(nodes, d->hold.local + (size_t)mi * 16); /* nothing for the identity */
    skio_buf_printf(nodes, ",\"mesh\":%u", mo[mi].group);
    put_extras(nodes, w, base); /* the object's name, as the node is named */
    if (mo[mi].skinned) skio_buf_printf(nodes, ",\"skin\":%u", skin_count++);
    if (s->object_count) objects_of_mesh(&d->objs, mo[mi].group, nodes);
    skio_buf_str(nodes, "}");
  }
  return SKC_OK;
}

/* Layout: the root joints and every mesh node are the scene's top-level nodes, as the glTF specification
 * recommends for skinned meshes. A mesh node under a transformed joint would read back with other inverse binds
 * (Assimp turns them into the mesh node's space: offset = inverse bind * the node's global transform), and an
 * unskinned mesh would move with it. Assimp gathers several top-level nodes under a node "ROOT" of its own,
 * which skio_scene_import does not take for a joint. The nodes: joints, meshes, objects (with their custom
 * properties). */
static int write_nodes(writer* w, doc* d) {
  const skio_scene* s = w->s;
  w->props = skio_user_props_sorted(s->user_props, s->user_prop_count);
  w->prop_count = w->props ? s->user_prop_count : 0;
  if (s->user_prop_count && !w->props) return oom_fail(w);
  joint_nodes(w, d);
  int rc = mesh_nodes(w, d);
  if (rc) return rc;
  if (s->object_count) objects_nodes(w, &d->objs, d->jc + d->mesh_nodes == 0, &d->nodes, &w->rep.names_fixed);
  return SKC_OK;
}

/* The closest common ancestor of the joints skin mo lists (depth: each joint's), -1 when they have none. */
static int64_t skin_common_root(const skc_skeleton* sk, const uint32_t* depth, const mesh_out* mo) {
  int64_t lca = mo->joints[0];
  for (uint32_t i = 1; i < mo->listed && lca >= 0; ++i) {
    int64_t b = mo->joints[i];
    while (lca >= 0 && b >= 0 && lca != b) {
      if (depth[lca] >= depth[b]) {
        int32_t p = sk->parents[lca];
        lca = (p == SKC_NO_PARENT || p < 0 || p >= lca) ? -1 : p;
      } else {
        int32_t p = sk->parents[b];
        b = (p == SKC_NO_PARENT || p < 0 || p >= b) ? -1 : p;
      }
    }
    if (b < 0) lca = -1;
  }
  return lca;
}

/* The name of skin mo: the armature's (armature_name), or in a scene of several characters its character's own
 * armature object; NULL when there is none. */
static const char* skin_name(const doc* d, const skc_skeleton* sk, const mesh_out* mo, const char* armature) {
  const characters* chars = &d->chars;
  /* a character's own armature object: its root, when the skin does not list it (a plain node) */
  uint32_t top = chars->split ? chars->top[mo->joints[0]] : 0;
  while (chars->split && d->above[top]) top = d->child[d->child_off[top]]; /* down to its armature object */
  bool top_listed = false;
  for (uint32_t i = 0; chars->split && i < mo->listed; ++i) top_listed |= mo->joints[i] == top;
  return chars->split && (d->arm_obj[top] || !top_listed) ? sk->names[top] : armature;
}

/* The skins: joints, inverse binds, the closest common ancestor as "skeleton" (a skeleton no mesh is skinned to:
 * skeleton_skin). */
static int write_skins(writer* w, doc* d) {
  const skio_scene* s = w->s;
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = d->jc;
  buf* skins = &d->skins;
  uint32_t* depth = calloc(jc + 1, sizeof *depth);
  if (!depth) return oom_fail(w);
  for (uint32_t j = 0; j < jc; ++j) {
    int32_t p = sk->parents[j];
    depth[j] = (p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j) ? 0 : depth[p] + 1;
  }
  uint32_t k = 0;
  const char* armature = armature_name(sk, d->mo, d->M, depth);
  for (uint32_t mi = 0; mi < d->M; ++mi) {
    const mesh_out* mo = &d->mo[mi];
    if (!mo->skinned || mo->lead != mi) continue; /* one skin per node: the lead's */
    int64_t skel = skin_common_root(sk, depth, mo);
    if (skel < 0) { /* joints under several roots: those roots go under one added node, the skin's skeleton */
      gather_roots(sk, mo, d->gathered);
      skel = d->gathered_node;
    }
    if (k++) skio_buf_str(skins, ",");
    skio_buf_str(skins, "{\"name\":");
    const char* own = skin_name(d, sk, mo, armature);
    skio_buf_json_string(skins, own ? own : s->meshes[mi].name, NULL);
    skio_buf_printf(skins, ",\"inverseBindMatrices\":%d,\"joints\":[", (int)mo->ibm);
    for (uint32_t i = 0; i < mo->listed; ++i) skio_buf_printf(skins, "%s%u", i ? "," : "", mo->joints[i]);
    skio_buf_str(skins, "]");
    if (skel >= 0) skio_buf_printf(skins, ",\"skeleton\":%u", (uint32_t)skel);
    skio_buf_str(skins, "}");
  }
  free(depth);
  if (!k && jc && !s->no_bones) return skeleton_skin(w, skins); /* an FBX of empties: no skin (no_bones) */
  return SKC_OK;
}

/* The animations: each clip written by write_anim, in order. */
static int write_anims(writer* w, doc* d) {
  const skio_scene* s = w->s;
  w->mo = d->mo;
  w->joint_nodes = d->jc;
  uint32_t anim_written = 0;
  int rc = SKC_OK;
  for (uint32_t a = 0; a < s->anim_count && !rc; ++a) {
    buf one = {0};
    bool wrote = false;
    rc = write_anim(w, a, d->rest_joint, d->matrix_joint, &one, &wrote);
    if (!rc && wrote) {
      if (anim_written++) skio_buf_str(&d->anims, ",");
      skio_buf_put(&d->anims, one.p, one.n);
    }
    free(one.p);
  }
  return rc;
}

/* The binary buffer: the regions in order, 4-aligned (a .glb's within 4 GiB). */
static int assemble_bin(writer* w, doc* d) {
  buf* bin = &d->bin;
  for (int r = 0; r < REGIONS; ++r) {
    skio_buf_pad(bin, 4, 0);
    d->base[r] = bin->n;
    skio_buf_put(bin, w->data[r].p, w->data[r].n);
    if (w->pool_view[r] >= 0) w->views[w->pool_view[r]].length = w->data[r].n;
  }
  skio_buf_pad(bin, 4, 0);
  if (d->binary && bin->n > (size_t)UINT32_MAX - 1024)
    return skc_fail(w->err, SKC_UNSUPPORTED, "%s: %zu bytes of buffer do not fit a .glb (4 GiB); write .gltf", w->path,
                    bin->n);
  return SKC_OK;
}

/* The JSON's extensions used and required, its lights (KHR_lights_punctual) and cameras. */
static void json_extensions(const skio_scene* s, const doc* d, buf* json) {
  if (d->ext_webp || d->ext_ktx2 || d->objs.lights) {
    const char* list = d->ext_webp && d->ext_ktx2 ? "\"EXT_texture_webp\",\"KHR_texture_basisu\""
                       : d->ext_webp              ? "\"EXT_texture_webp\""
                       : d->ext_ktx2              ? "\"KHR_texture_basisu\""
                                                  : "";
    const char* lights = !d->objs.lights ? "" : list[0] ? ",\"KHR_lights_punctual\"" : "\"KHR_lights_punctual\"";
    skio_buf_printf(json, "\"extensionsUsed\":[%s%s],", list, lights);
    if (list[0]) skio_buf_printf(json, "\"extensionsRequired\":[%s],", list);
  }
  if (d->objs.lights) {
    skio_buf_str(json, "\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[");
    objects_lights(s, json);
    skio_buf_str(json, "]}},");
  }
  if (d->objs.cameras) {
    skio_buf_str(json, "\"cameras\":[");
    objects_cameras(s, json);
    skio_buf_str(json, "],");
  }
}

/* The scene's top-level nodes: root joints (but those gathered), the gathered node, mesh nodes under no joint,
 * objects under no object, no joint and no mesh. */
static void json_scene_nodes(const skio_scene* s, const doc* d, buf* json) {
  const uint32_t jc = d->jc;
  bool comma = false;
  for (uint32_t j = 0; j < jc; ++j) {
    int32_t p = s->skeleton->parents[j];
    if ((p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j) && !d->gathered[j]) {
      skio_buf_printf(json, "%s%u", comma ? "," : "", j);
      comma = true;
    }
  }
  if (d->gathered[jc]) {
    skio_buf_printf(json, "%s%u", comma ? "," : "", d->gathered_node);
    comma = true;
  }
  for (uint32_t mi = 0; mi < d->M; ++mi) {
    if (d->mo[mi].lead != mi || d->hold.joint[mi] >= 0) continue; /* a node per group; a held one under its joint */
    skio_buf_printf(json, "%s%u", comma ? "," : "", jc + d->mo[mi].group);
    comma = true;
  }
  for (uint32_t k = 0; k < s->object_count; ++k) /* objects under no object and no joint */
    if (s->objects[k].parent < 0 && d->objs.joint[k] < 0 && d->objs.mesh[k] < 0) {
      skio_buf_printf(json, "%s%u", comma ? "," : "", d->objs.first + k);
      comma = true;
    }
}

/* `,"name":[items]` when there are items (glTF forbids empty arrays). */
static void json_array(buf* json, const char* name, const buf* items) {
  if (!items->n) return;
  skio_buf_printf(json, ",\"%s\":[", name);
  skio_buf_put(json, items->p, items->n);
  skio_buf_str(json, "]");
}

/* The JSON's accessors, bufferViews (offsets in the buffer: d->base) and its one buffer (a .gltf's by URI). */
static void json_buffers(const writer* w, const doc* d, buf* json) {
  skio_buf_str(json, ",\"accessors\":[");
  skio_buf_put(json, w->accessors.p, w->accessors.n);
  skio_buf_str(json, "],\"bufferViews\":[");
  for (uint32_t v = 0; v < w->view_count; ++v) {
    const view_rec* r = &w->views[v];
    skio_buf_printf(json, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", v ? "," : "",
                    d->base[r->region] + r->offset, r->length);
    if (r->target) skio_buf_printf(json, ",\"target\":%d", r->target);
    skio_buf_str(json, "}");
  }
  skio_buf_printf(json, "],\"buffers\":[{\"byteLength\":%zu", d->bin.n);
  if (!d->binary) {
    skio_buf_str(json, ",\"uri\":\"");
    skio_buf_put(json, d->uri.p, d->uri.n); /* percent-encoded: nothing to escape */
    skio_buf_str(json, "\"");
  }
  skio_buf_str(json, "}]}");
}

/* The JSON: asset, extensions, scene, nodes, the other arrays, accessors, bufferViews and the buffer. */
static int assemble_json(writer* w, doc* d) {
  buf* json = &d->json;
  skio_buf_str(json, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"skinkit\"},");
  json_extensions(w->s, d, json);
  skio_buf_str(json, "\"scene\":0,\"scenes\":[{\"nodes\":[");
  json_scene_nodes(w->s, d, json);
  skio_buf_str(json, "]}],\"nodes\":[");
  skio_buf_put(json, d->nodes.p, d->nodes.n);
  skio_buf_str(json, "]");
  json_array(json, "meshes", &d->meshes); /* none: a skeleton with its clips (glTF forbids empty arrays) */
  json_array(json, "skins", &d->skins);
  json_array(json, "animations", &d->anims);
  json_array(json, "materials", &d->mats);
  if (d->texs.n) {
    skio_buf_str(json, ",\"textures\":[");
    skio_buf_put(json, d->texs.p, d->texs.n);
    skio_buf_str(json, "],\"samplers\":[{}],\"images\":[");
    skio_buf_put(json, d->imgs.p, d->imgs.n);
    skio_buf_str(json, "]");
  }
  json_buffers(w, d, json);
  if (w->oom || json->oom || d->bin.oom || d->nodes.oom || d->skins.oom || d->anims.oom || d->meshes.oom)
    return oom_fail(w);
  return SKC_OK;
}

/* .glb: the header, the JSON chunk (padded with spaces) and the BIN chunk, written to a temporary file that then
 * replaces path. */
static int write_glb(writer* w, doc* d) {
  const char* path = w->path;
  skio_buf_pad(&d->json, 4, ' ');
  uint32_t head[5];
  const size_t total = 12 + 8 + d->json.n + 8 + d->bin.n;
  head[0] = 0x46546C67u; /* "glTF" */
  head[1] = 2;
  head[2] = (uint32_t)total;
  head[3] = (uint32_t)d->json.n;
  head[4] = 0x4E4F534Au;                                    /* "JSON" */
  uint32_t bin_head[2] = {(uint32_t)d->bin.n, 0x004E4942u}; /* "BIN\0" */
  skio_buf_put(&d->glb_head, head, sizeof head);
  buf bh = {0};
  skio_buf_put(&bh, bin_head, sizeof bin_head);
  if (d->glb_head.oom || bh.oom || d->json.n > UINT32_MAX || total > UINT32_MAX) {
    free(bh.p);
    return total > UINT32_MAX ? skc_fail(w->err, SKC_UNSUPPORTED, "%s: too large for a .glb (4 GiB)", path)
                              : oom_fail(w);
  }
  const buf* pieces[4] = {&d->glb_head, &d->json, &bh, &d->bin};
  int rc = write_temp(path, pieces, 4, &d->tmp_main, w->err);
  free(bh.p);
  if (rc) return rc;
  int e = skio_atomic_place(d->tmp_main, path);
  if (e) {
    skio_atomic_forget(d->tmp_main);
    unlink(d->tmp_main);
    return skc_fail(w->err, SKC_IO, "%s: cannot replace: %s", path, strerror(e));
  }
  return SKC_OK;
}

/* .gltf: the buffer and the JSON written to temporary files, which then replace d->bin_path and path (a failure
 * removes what was written, and a buffer file that did not exist before). */
static int write_gltf(writer* w, doc* d) {
  const char* path = w->path;
  const buf* bp[1] = {&d->bin};
  int rc = write_temp(d->bin_path, bp, 1, &d->tmp_bin, w->err);
  if (rc) return rc;
  const buf* jp[1] = {&d->json};
  if ((rc = write_temp(path, jp, 1, &d->tmp_main, w->err))) {
    skio_atomic_forget(d->tmp_bin);
    unlink(d->tmp_bin);
    return rc;
  }
  int e = skio_atomic_place(d->tmp_bin, d->bin_path);
  if (e) {
    skio_atomic_forget(d->tmp_bin);
    skio_atomic_forget(d->tmp_main);
    unlink(d->tmp_bin);
    unlink(d->tmp_main);
    return skc_fail(w->err, SKC_IO, "%s: cannot write %s: %s", path, d->bin_path, strerror(e));
  }
  if ((e = skio_atomic_place(d->tmp_main, path))) {
    skio_atomic_forget(d->tmp_main);
    unlink(d->tmp_main);
    if (!d->bin_existed) unlink(d->bin_path);
    return skc_fail(w->err, SKC_IO, "%s: cannot replace: %s", path, strerror(e));
  }
  return SKC_OK;
}

/* The document's pieces in order, then its files; the report on success. */
static int write_doc(writer* w, doc* d) {
  int rc = doc_alloc(w, d);
  if (!rc && w->s->skeleton) rc = unique_names(w, &d->jnames, &d->jsorted);
  if (!rc) rc = joint_tree(w, d);
  if (!rc) rc = skin_joint_plan(w, d);
  if (!rc) rc = plan_bone_children(w, d);
  if (!rc) rc = write_meshes(w, d);
  if (!rc) rc = plan_nodes(w, d);
  if (!rc && w->s->material_count)
    rc = write_materials(w, d->binary, &d->mats, &d->texs, &d->imgs, &d->ext_webp, &d->ext_ktx2);
  if (!rc) rc = write_nodes(w, d);
  if (!rc) rc = write_skins(w, d);
  if (!rc) rc = gathered_root_node(w, d->gathered, d->jsorted, &d->nodes);
  if (!rc) rc = write_anims(w, d);
  if (!rc) rc = assemble_bin(w, d);
  if (!rc) rc = assemble_json(w, d);
  if (!rc) rc = d->binary ? write_glb(w, d) : write_gltf(w, d);
  if (!rc && w->o.report) *w->o.report = w->rep;
  return rc;
}

int skio_gltf_write(const skio_scene* s, const char* path, int binary, const skio_gltf_options* opts, skc_err* err) {
  if (!s || !path || !path[0]) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and path must not be NULL or empty");
  writer w;
  memset(&w, 0, sizeof w);
  w.s = s;
  w.path = path;
  w.err = err;
  if (opts) w.o = *opts;
  for (int r = 0; r < REGIONS; ++r) w.pool_view[r] = -1;
  int rc = check_options(&w);
  if (!rc) rc = check_scene(&w);
  if (!rc) rc = check_output(&w);
  if (rc) return rc;
  doc d;
  memset(&d, 0, sizeof d);
  d.binary = binary;
  d.jc = s->skeleton ? s->skeleton->joint_count : 0;
  d.M = s->mesh_count;
  d.rest_joint = -1;
  rc = binary ? SKC_OK : buffer_file(&w, &d); /* .gltf: where the buffer goes */
  if (!rc) rc = write_doc(&w, &d);
  doc_free(&w, &d);
  return rc;
}
