/* scene_listing.c - the cameras, lights and empty nodes of a scene as one flat list for listings (`skinkit info`,
 * the ABI's sk_scene_object_*). The Assimp path has them in skio_scene.objects; a scene read by skinkit's glTF
 * reader keeps them in its document (the glTF writer's in-place edit carries them), so they are found there by the
 * rule scene_objects.c applies to Assimp's nodes: a node with a camera or a KHR_lights_punctual light, or a node
 * that is no joint, has no mesh and has no joint or mesh below it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_gltf_doc.h"
#include "skio_scene.h"

void skio_listed_objects_free(skio_listed_object* o, uint32_t n) {
  for (uint32_t i = 0; o && i < n; ++i) {
    free(o[i].name);
    free(o[i].parent);
  }
  free(o);
}

static char* dup_or_null(const char* s) {
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
  return dup_or_null(buf);
}

/* Per glTF node: its parent (the first node listing it as a child, -1 if none or on a cycle), busy: 1 = it holds a
 * mesh, 2 = it is a joint (either or both), and whether something busy is at or below it. */
typedef struct gltf_nodes {
  uint32_t n;
  int32_t* parent;
  uint8_t* busy;
  uint8_t* busy_below;
} gltf_nodes;

static int gltf_node_tree(const skio_scene* s, const skio_gltf_doc* d, gltf_nodes* g) {
  const uint32_t n = d->node_count;
  g->n = n;
  g->parent = malloc((n ? n : 1) * sizeof *g->parent);
  g->busy = calloc(n ? n : 1, 1);
  g->busy_below = calloc(n ? n : 1, 1);
  if (!g->parent || !g->busy || !g->busy_below) return -1;
  for (uint32_t i = 0; i < n; ++i) g->parent[i] = -1;
  for (uint32_t i = 0; i < n; ++i) {
    const int node = skio_json_at(d, d->t_nodes, (int)i), ch = skio_json_get(d, node, "children");
    g->busy[i] = skio_json_get(d, node, "mesh") >= 0;
    for (int c = 0; c < skio_json_len(d, ch); ++c) {
      uint32_t k;
      if (skio_json_u32(d, skio_json_at(d, ch, c), &k) && k < n && k != i && g->parent[k] < 0)
        g->parent[k] = (int32_t)i;
    }
  }
  const uint32_t jc = s->skeleton && s->joint_node ? s->skeleton->joint_count : 0;
  for (uint32_t j = 0; j < jc; ++j)
    if (s->joint_node[j] >= 0 && (uint32_t)s->joint_node[j] < n) g->busy[s->joint_node[j]] |= 2;
  for (uint32_t i = 0; i < n; ++i) { /* up from each busy node until a marked one; at most n steps (cycles) */
    if (!g->busy[i]) continue;
    int32_t p = (int32_t)i;
    for (uint32_t step = 0; p >= 0 && step <= n && !(g->busy_below[p] && p != (int32_t)i); ++step) {
      g->busy_below[p] = 1;
      p = g->parent[p];
    }
  }
  return 0;
}

static void gltf_node_tree_free(gltf_nodes* g) {
  free(g->parent);
  free(g->busy);
  free(g->busy_below);
}

/* SKIO_OBJECT_* of glTF node i, or -1 when it is not an object. */
static int gltf_node_kind(const skio_gltf_doc* d, const gltf_nodes* g, uint32_t i) {
  const int node = skio_json_at(d, d->t_nodes, (int)i);
  if (skio_json_get(d, node, "camera") >= 0) return SKIO_OBJECT_CAMERA;
  const int ext = skio_json_get(d, skio_json_get(d, node, "extensions"), "KHR_lights_punctual");
  if (skio_json_get(d, ext, "light") >= 0) return SKIO_OBJECT_LIGHT;
  return g->busy_below[i] ? -1 : SKIO_OBJECT_EMPTY;
}

static int list_gltf(const skio_scene* s, skio_listed_object** out, uint32_t* count) {
  const skio_gltf_doc* d = s->gltf;
  gltf_nodes g = {0};
  int8_t* kind = malloc(d->node_count ? d->node_count : 1);
  skio_listed_object* o = NULL;
  uint32_t k = 0;
  int rc = !kind || gltf_node_tree(s, d, &g) ? -1 : 0;
  for (uint32_t i = 0; !rc && i < d->node_count; ++i) {
    kind[i] = (int8_t)gltf_node_kind(d, &g, i);
    k += kind[i] >= 0;
  }
  if (!rc && k && !(o = calloc(k, sizeof *o))) rc = -1;
  uint32_t w = 0;
  for (uint32_t i = 0; !rc && i < d->node_count; ++i) {
    if (kind[i] < 0) continue;
    skio_listed_object* e = &o[w++];
    e->kind = (uint8_t)kind[i];
    int32_t p = g.parent[i]; /* the nearest object or joint above it */
    for (uint32_t step = 0; p >= 0 && step < d->node_count && kind[p] < 0 && !(g.busy[p] & 2); ++step) p = g.parent[p];
    const bool held = p >= 0 && (kind[p] >= 0 || (g.busy[p] & 2));
    if (!(e->name = node_name(d, skio_json_at(d, d->t_nodes, (int)i), i)) ||
        (held && !(e->parent = node_name(d, skio_json_at(d, d->t_nodes, p), (uint32_t)p))))
      rc = -1;
  }
  gltf_node_tree_free(&g);
  free(kind);
  if (rc) {
    skio_listed_objects_free(o, k);
    return -1;
  }
  *out = o;
  *count = k;
  return 0;
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
  for (uint32_t i = 0; i < s->object_count; ++i) {
    const skio_object* ob = &s->objects[i];
    const bool up = ob->parent >= 0 && (uint32_t)ob->parent < i;
    o[i].kind = ob->kind;
    o[i].name = dup_or_null(ob->name ? ob->name : "");
    o[i].parent = dup_or_null(up ? s->objects[ob->parent].name : ob->parent_joint);
    if (!o[i].name || (!o[i].parent && (up ? s->objects[ob->parent].name != NULL : ob->parent_joint != NULL))) {
      skio_listed_objects_free(o, s->object_count);
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory listing the scene's objects");
    }
  }
  *out = o;
  *count = s->object_count;
  return SKC_OK;
}
