/* scene_listing.c - the cameras, lights and empty nodes of a scene as one flat list for listings (`skinkit info`,
 * the ABI's sk_scene_object_*). The Assimp path has them in skio_scene.objects; a scene read by skinkit's glTF
 * reader keeps them in its document (the glTF writer's in-place edit carries them), so they are found there by the
 * rule scene_objects.c applies to Assimp's nodes: a node with a camera or a KHR_lights_punctual light, or a node
 * that is no joint, has no mesh and has no joint or mesh below it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_math.h"
#include "skio_gltf_doc.h"
#include "skio_scene.h"

void skio_listed_objects_free(skio_listed_object* o, uint32_t n) {
  for (uint32_t i = 0; o && i < n; ++i) {
    free(o[i].ob.name);
    free(o[i].ob.parent_joint);
    free(o[i].ob.parent_mesh);
    free(o[i].parent);
  }
  free(o);
}

double skio_light_gltf_intensity(const skio_object* ob) {
  const bool sun = ob->light == SKIO_LIGHT_DIRECTIONAL;
  return (double)ob->intensity * (sun ? 683.0 : 683.0 / (4.0 * 3.14159265358979));
}

char* skio_dup_or_null(const char* s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* A node's name, or "node<i>" when it has none (the glTF writer's and Blender's fallback). */
static char* node_name(const skio_gltf_doc* d, int node, uint32_t i) {
  char* n = skio_json_strdup(d, skio_json_get(d, node, "name"));
  if (n) return n;
  char buf[24];
  snprintf(buf, sizeof buf, "node%u", i);
  return skio_dup_or_null(buf);
}

/* Per glTF node: its parent (the first node listing it as a child, -1 if none), busy: 1 = it holds a mesh, 2 = it
 * is a joint (either or both), whether something busy is at or below it, its joint (-1: none) and the nodes in
 * preorder (roots first in index order; a node of a cycle, which the reader refuses anyway, after them). */
typedef struct gltf_nodes {
  uint32_t n;
  int32_t* parent;
  uint8_t* busy;
  uint8_t* busy_below;
  int32_t* joint;
  uint32_t* order;
} gltf_nodes;

static void gltf_node_preorder(const skio_gltf_doc* d, gltf_nodes* g, uint32_t* stack, uint8_t* seen) {
  uint32_t w = 0;
  for (uint32_t r = 0; r < g->n; ++r) {
    if (g->parent[r] >= 0 || seen[r]) continue;
    uint32_t top = 0;
    stack[top++] = r;
    seen[r] = 1;
    while (top) {
      const uint32_t i = stack[--top];
      g->order[w++] = i;
      const int ch = skio_json_get(d, skio_json_at(d, d->t_nodes, (int)i), "children");
      for (int c = skio_json_len(d, ch) - 1; c >= 0; --c) { /* pushed last to first: popped in the file's order */
        uint32_t k;
        if (skio_json_u32(d, skio_json_at(d, ch, c), &k) && k < g->n && g->parent[k] == (int32_t)i && !seen[k]) {
          seen[k] = 1;
          stack[top++] = k;
        }
      }
    }
  }
  for (uint32_t i = 0; i < g->n; ++i)
    if (!seen[i]) g->order[w++] = i;
}

static void gltf_node_busy_below(gltf_nodes* g) {
  for (uint32_t i = 0; i < g->n; ++i) { /* up from each busy node until a marked one; at most n steps (cycles) */
    if (!g->busy[i]) continue;
    int32_t p = (int32_t)i;
    for (uint32_t step = 0; p >= 0 && step <= g->n && !(g->busy_below[p] && p != (int32_t)i); ++step) {
      g->busy_below[p] = 1;
      p = g->parent[p];
    }
  }
}

static int gltf_node_tree(const skio_scene* s, const skio_gltf_doc* d, gltf_nodes* g) {
  const uint32_t n = d->node_count, n1 = n ? n : 1;
  g->n = n;
  g->parent = malloc(n1 * sizeof *g->parent);
  g->joint = malloc(n1 * sizeof *g->joint);
  g->order = malloc(n1 * sizeof *g->order);
  g->busy = calloc(n1, 1);
  g->busy_below = calloc(n1, 1);
  uint32_t* stack = malloc(n1 * sizeof *stack);
  uint8_t* seen = calloc(n1, 1);
  const bool ok = g->parent && g->joint && g->order && g->busy && g->busy_below && stack && seen;
  for (uint32_t i = 0; ok && i < n; ++i) g->parent[i] = g->joint[i] = -1;
  for (uint32_t i = 0; ok && i < n; ++i) {
    const int node = skio_json_at(d, d->t_nodes, (int)i), ch = skio_json_get(d, node, "children");
    g->busy[i] = skio_json_get(d, node, "mesh") >= 0;
    for (int c = 0; c < skio_json_len(d, ch); ++c) {
      uint32_t k;
      if (skio_json_u32(d, skio_json_at(d, ch, c), &k) && k < n && k != i && g->parent[k] < 0)
        g->parent[k] = (int32_t)i;
    }
  }
  const uint32_t jc = s->skeleton && s->joint_node ? s->skeleton->joint_count : 0;
  for (uint32_t j = 0; ok && j < jc; ++j)
    if (s->joint_node[j] >= 0 && (uint32_t)s->joint_node[j] < n) {
      g->busy[s->joint_node[j]] |= 2;
      g->joint[s->joint_node[j]] = (int32_t)j;
    }
  if (ok) {
    gltf_node_busy_below(g);
    gltf_node_preorder(d, g, stack, seen);
  }
  free(stack);
  free(seen);
  return ok ? 0 : -1;
}

static void gltf_node_tree_free(gltf_nodes* g) {
  free(g->parent);
  free(g->busy);
  free(g->busy_below);
  free(g->joint);
  free(g->order);
}

/* SKIO_OBJECT_* of glTF node i, or -1 when it is not an object. */
static int gltf_node_kind(const skio_gltf_doc* d, const gltf_nodes* g, uint32_t i) {
  const int node = skio_json_at(d, d->t_nodes, (int)i);
  if (skio_json_get(d, node, "camera") >= 0) return SKIO_OBJECT_CAMERA;
  const int ext = skio_json_get(d, skio_json_get(d, node, "extensions"), "KHR_lights_punctual");
  if (skio_json_get(d, ext, "light") >= 0) return SKIO_OBJECT_LIGHT;
  return g->busy_below[i] ? -1 : SKIO_OBJECT_EMPTY;
}

/* A node's rest transform: its "matrix", else T R S; a malformed part counts as absent (the reader checked the
 * nodes it uses; this one may be none of them). */
static void gltf_node_local(const skio_gltf_doc* d, int node, float out[16]) {
  const int mt = skio_json_get(d, node, "matrix");
  if (skio_json_len(d, mt) == 16 && skio_json_floats(d, mt, out, 16) == 16) return;
  skc_trs trs, id;
  skc_trs_identity(&trs);
  skc_trs_identity(&id);
  const int t = skio_json_get(d, node, "translation"), r = skio_json_get(d, node, "rotation");
  const int sc = skio_json_get(d, node, "scale");
  if (skio_json_len(d, t) != 3 || skio_json_floats(d, t, trs.t, 3) != 3) memcpy(trs.t, id.t, sizeof trs.t);
  if (skio_json_len(d, sc) != 3 || skio_json_floats(d, sc, trs.s, 3) != 3) memcpy(trs.s, id.s, sizeof trs.s);
  double len = 0.0;
  if (skio_json_len(d, r) == 4 && skio_json_floats(d, r, trs.r, 4) == 4)
    for (int k = 0; k < 4; ++k) len += (double)trs.r[k] * trs.r[k];
  len = sqrt(len);
  if (len > 0.0 && isfinite(len))
    for (int k = 0; k < 4; ++k) trs.r[k] = (float)(trs.r[k] / len);
  else
    memcpy(trs.r, id.r, sizeof trs.r);
  skc_trs_to_mat4(&trs, out);
}

static float json_float(const skio_gltf_doc* d, int obj, const char* key, float fallback) {
  double v;
  return skio_json_num(d, skio_json_get(d, obj, key), &v) ? (float)v : fallback;
}

/* A camera node's projection from the document's "cameras". */
static void gltf_camera(const skio_gltf_doc* d, int node, skio_object* o) {
  uint32_t c;
  if (!skio_json_u32(d, skio_json_get(d, node, "camera"), &c)) return;
  const int cam = skio_json_at(d, skio_json_get(d, 0, "cameras"), (int)c);
  const int ortho = skio_json_get(d, cam, "orthographic"), persp = skio_json_get(d, cam, "perspective");
  o->ortho = skio_json_streq(d, skio_json_get(d, cam, "type"), "orthographic");
  const int p = o->ortho ? ortho : persp;
  o->yfov = o->ortho ? 0.0f : json_float(d, p, "yfov", 0.0f);
  o->aspect = o->ortho ? 0.0f : json_float(d, p, "aspectRatio", 0.0f);
  o->xmag = o->ortho ? json_float(d, p, "xmag", 0.0f) : 0.0f;
  o->ymag = o->ortho ? json_float(d, p, "ymag", 0.0f) : 0.0f;
  o->znear = json_float(d, p, "znear", 0.0f);
  o->zfar = json_float(d, p, "zfar", 0.0f);
}

/* A light node's light from KHR_lights_punctual (glTF's defaults for what is absent). */
static void gltf_light(const skio_gltf_doc* d, int node, skio_object* o) {
  uint32_t l;
  const int ext = skio_json_get(d, skio_json_get(d, node, "extensions"), "KHR_lights_punctual");
  if (!skio_json_u32(d, skio_json_get(d, ext, "light"), &l)) return;
  const int lights =
      skio_json_get(d, skio_json_get(d, skio_json_get(d, 0, "extensions"), "KHR_lights_punctual"), "lights");
  const int li = skio_json_at(d, lights, (int)l), type = skio_json_get(d, li, "type"),
            spot = skio_json_get(d, li, "spot");
  o->light = skio_json_streq(d, type, "directional") ? SKIO_LIGHT_DIRECTIONAL
             : skio_json_streq(d, type, "spot")      ? SKIO_LIGHT_SPOT
                                                     : SKIO_LIGHT_POINT;
  const int col = skio_json_get(d, li, "color");
  if (skio_json_len(d, col) != 3 || skio_json_floats(d, col, o->color, 3) != 3)
    o->color[0] = o->color[1] = o->color[2] = 1.0f;
  o->intensity = json_float(d, li, "intensity", 1.0f);
  o->inner_cone = json_float(d, spot, "innerConeAngle", 0.0f);
  o->outer_cone = json_float(d, spot, "outerConeAngle", 0.7853981634f);
}

/* What node i hangs from: the nearest object (-> ob.parent), joint (-> ob.parent_joint, the skeleton's name) or mesh
 * node (-> ob.parent_mesh) above it; the listing's display parent skips mesh nodes to the nearest object or joint. */
static int gltf_parents(const skio_scene* s, const gltf_nodes* g, const int8_t* kind, const int32_t* index_of,
                        uint32_t i, skio_listed_object* e) {
  const skio_gltf_doc* d = s->gltf;
  int32_t p = g->parent[i];
  for (uint32_t step = 0; p >= 0 && step < g->n && kind[p] < 0 && !g->busy[p]; ++step) p = g->parent[p];
  if (p >= 0 && kind[p] >= 0) {
    e->ob.parent = index_of[p];
  } else if (p >= 0 && g->joint[p] >= 0) {
    if (!(e->ob.parent_joint = skio_dup_or_null(s->skeleton->names[g->joint[p]]))) return -1;
  } else if (p >= 0 && !(e->ob.parent_mesh = node_name(d, skio_json_at(d, d->t_nodes, p), (uint32_t)p))) {
    return -1;
  }
  for (uint32_t step = 0; p >= 0 && step < g->n && kind[p] < 0 && !(g->busy[p] & 2); ++step) p = g->parent[p];
  const bool held = p >= 0 && (kind[p] >= 0 || (g->busy[p] & 2));
  if (held && !(e->parent = node_name(d, skio_json_at(d, d->t_nodes, p), (uint32_t)p))) return -1;
  return 0;
}

/* Kind, world matrix and list index of every node (the worlds in preorder: a parent's before its children). */
static uint32_t gltf_kinds_worlds(const skio_gltf_doc* d, const gltf_nodes* g, int8_t* kind, float* world,
                                  int32_t* index_of) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < g->n; ++i) index_of[i] = -2; /* not reached yet */
  for (uint32_t w = 0; w < g->n; ++w) {
    const uint32_t i = g->order[w];
    float local[16];
    gltf_node_local(d, skio_json_at(d, d->t_nodes, (int)i), local);
    const int32_t p = g->parent[i];
    if (p >= 0 && index_of[p] != -2) /* a node of a cycle may come before its parent */
      skc_mat4_mul(world + (size_t)p * 16, local, world + (size_t)i * 16);
    else
      memcpy(world + (size_t)i * 16, local, sizeof local);
    kind[i] = (int8_t)gltf_node_kind(d, g, i);
    index_of[i] = kind[i] >= 0 ? (int32_t)k++ : -1;
  }
  return k;
}

static int gltf_entry(const skio_scene* s, const gltf_nodes* g, const int8_t* kind, const int32_t* index_of,
                      const float* world, uint32_t i, skio_listed_object* e) {
  const skio_gltf_doc* d = s->gltf;
  const int node = skio_json_at(d, d->t_nodes, (int)i);
  e->ob.kind = (uint8_t)kind[i];
  e->ob.parent = -1;
  memcpy(e->ob.world, world + (size_t)i * 16, sizeof e->ob.world);
  skc_mat4_identity(e->ob.look);
  if (g->parent[i] >= 0 && index_of[g->parent[i]] != -2) /* the file parent's world (reached before it) */
    memcpy(e->ob.parent_rest, world + (size_t)g->parent[i] * 16, sizeof e->ob.parent_rest);
  else
    skc_mat4_identity(e->ob.parent_rest);
  if (kind[i] == SKIO_OBJECT_CAMERA) gltf_camera(d, node, &e->ob);
  if (kind[i] == SKIO_OBJECT_LIGHT) gltf_light(d, node, &e->ob);
  if (!(e->ob.name = node_name(d, node, i))) return -1;
  return gltf_parents(s, g, kind, index_of, i, e);
}

static int list_gltf(const skio_scene* s, skio_listed_object** out, uint32_t* count) {
  const skio_gltf_doc* d = s->gltf;
  const size_t n1 = d->node_count ? d->node_count : 1;
  gltf_nodes g = {0};
  int8_t* kind = malloc(n1);
  int32_t* index_of = malloc(n1 * sizeof *index_of);
  float* world = malloc(n1 * 16 * sizeof *world);
  skio_listed_object* o = NULL;
  uint32_t k = 0;
  int rc = !kind || !index_of || !world || gltf_node_tree(s, d, &g) ? -1 : 0;
  if (!rc) k = gltf_kinds_worlds(d, &g, kind, world, index_of);
  if (!rc && k && !(o = calloc(k, sizeof *o))) rc = -1;
  for (uint32_t w = 0; !rc && w < d->node_count; ++w) {
    const uint32_t i = g.order[w];
    if (kind[i] >= 0) rc = gltf_entry(s, &g, kind, index_of, world, i, &o[index_of[i]]);
  }
  gltf_node_tree_free(&g);
  free(kind);
  free(index_of);
  free(world);
  if (rc) {
    skio_listed_objects_free(o, k);
    return -1;
  }
  *out = o;
  *count = k;
  return 0;
}

int skio_gltf_object_of_nodes(const skio_scene* s, int32_t* index_of, skc_err* err) {
  const skio_gltf_doc* d = s->gltf;
  const size_t n1 = d->node_count ? d->node_count : 1;
  gltf_nodes g = {0};
  int8_t* kind = malloc(n1);
  float* world = malloc(n1 * 16 * sizeof *world);
  int rc = !kind || !world || gltf_node_tree(s, d, &g) ? -1 : 0;
  if (!rc) gltf_kinds_worlds(d, &g, kind, world, index_of);
  gltf_node_tree_free(&g);
  free(kind);
  free(world);
  return rc ? skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory listing the scene's nodes") : SKC_OK;
}

int skio_scene_list_object(const skio_scene* s, uint32_t i, skio_listed_object* e) {
  const skio_object* ob = &s->objects[i];
  const bool up = ob->parent >= 0 && (uint32_t)ob->parent < i;
  e->ob = *ob;
  e->ob.name = e->ob.parent_joint = e->ob.parent_mesh = NULL;
  e->ob.parent = up ? ob->parent : -1;
  e->ob.intensity = ob->kind == SKIO_OBJECT_LIGHT ? (float)skio_light_gltf_intensity(ob) : 0.0f;
  skc_mat4_identity(e->ob.look);
  const char* parent = up ? s->objects[ob->parent].name : ob->parent_joint;
  e->ob.name = skio_dup_or_null(ob->name ? ob->name : "");
  e->parent = skio_dup_or_null(parent);
  if (!up) {
    e->ob.parent_joint = skio_dup_or_null(ob->parent_joint);
    e->ob.parent_mesh = ob->parent_joint ? NULL : skio_dup_or_null(ob->parent_mesh);
  }
  const bool lost = !e->ob.name || (parent && !e->parent) || (!up && ob->parent_joint && !e->ob.parent_joint) ||
                    (!up && !ob->parent_joint && ob->parent_mesh && !e->ob.parent_mesh);
  return lost ? -1 : 0;
}

int skio_scene_list_objects(const skio_scene* s, skio_listed_object** out, uint32_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  if (s->gltf && s->gltf->t_nodes >= 0) {
    if (list_gltf(s, out, count)) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory listing the scene's nodes");
    return SKC_OK;
  }
  if (!s->object_count) return SKC_OK;
  skio_listed_object* o = calloc(s->object_count, sizeof *o);
  if (!o) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory listing the scene's objects");
  for (uint32_t i = 0; i < s->object_count; ++i)
    if (skio_scene_list_object(s, i, &o[i])) {
      skio_listed_objects_free(o, s->object_count);
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory listing the scene's objects");
    }
  *out = o;
  *count = s->object_count;
  return SKC_OK;
}

int skio_scene_listed_view(const skio_scene* s, skio_scene* v, skio_listed_object** list, uint32_t* n, skc_err* err) {
  *v = *s;
  *list = NULL;
  *n = 0;
  if (!s->gltf || s->object_count) return SKC_OK;
  int rc = skio_scene_list_objects(s, list, n, err);
  if (rc || !*n) return rc;
  skio_object* ob = calloc(*n, sizeof *ob);
  if (!ob) {
    skio_listed_objects_free(*list, *n);
    *list = NULL, *n = 0;
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  for (uint32_t i = 0; i < *n; ++i) {
    ob[i] = (*list)[i].ob;                 /* names borrowed from the listing */
    if (ob[i].kind == SKIO_OBJECT_LIGHT) { /* glTF's units back to the scene's (skio_light_gltf_intensity) */
      const double per = skio_light_gltf_intensity(&(skio_object){.light = ob[i].light, .intensity = 1.0f});
      ob[i].intensity = (float)(ob[i].intensity / per);
    }
  }
  v->objects = ob;
  v->object_count = *n;
  return SKC_OK;
}

void skio_scene_listed_view_free(skio_scene* v, skio_listed_object* list, uint32_t n) {
  if (list) free(v->objects);
  skio_listed_objects_free(list, n);
}
