/* fbx_placeholder.c - a binary FBX file without the placeholder material skinkit's Assimp writer adds.
 *
 * Assimp 5.2.5's FBX writer needs a material for every mesh, so a mesh the source leaves without one is given
 * "skinkit_default" (scene_material.c); Blender's FBX importer then shows a material the source does not have
 * (session 45's audit: every such mesh). The pass drops each Material object of that name, the connections to and
 * from it and its share of the Definitions' counts; a mesh's LayerElementMaterial stays (index 0 with no material
 * connected: Blender's and Assimp's importers give such a mesh no material, and skinkit's reader drops the default
 * material Assimp makes for it). */
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"

typedef struct dropped {
  int64_t* ids;
  uint32_t n;
} dropped;

static bool is_dropped(const dropped* d, int64_t id) {
  for (uint32_t i = 0; i < d->n; ++i)
    if (d->ids[i] == id) return true;
  return false;
}

/* Marks the Material records named `name` (d: their ids). */
static int mark_materials(const skio_fbx_tree* t, const char* name, skio_fbx_change* ch, dropped* d, skc_err* err) {
  const uint32_t objects = skio_fbx_child(t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  const size_t len = strlen(name);
  for (uint32_t r = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, objects, "Material", SKIO_FBX_NONE);
       r != SKIO_FBX_NONE; r = skio_fbx_child(t, objects, "Material", r)) {
    const uint8_t* s;
    size_t n;
    int64_t id;
    if (!skio_fbx_prop_name(t, r, 1, &s, &n) || n != len || memcmp(s, name, n) || !skio_fbx_prop_i64(t, r, 0, &id))
      continue;
    int64_t* grown = realloc(d->ids, ((size_t)d->n + 1) * sizeof *grown);
    if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    d->ids = grown;
    d->ids[d->n++] = id;
    ch[r].drop = true;
  }
  return SKC_OK;
}

static void drop_connections(const skio_fbx_tree* t, const dropped* d, skio_fbx_change* ch) {
  const uint32_t conns = skio_fbx_child(t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  for (uint32_t c = conns == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, conns, "C", SKIO_FBX_NONE);
       c != SKIO_FBX_NONE; c = skio_fbx_child(t, conns, "C", c)) {
    int64_t a, b;
    if ((skio_fbx_prop_i64(t, c, 1, &a) && is_dropped(d, a)) || (skio_fbx_prop_i64(t, c, 2, &b) && is_dropped(d, b)))
      ch[c].drop = true;
  }
}

/* Count record r (an integer) lowered by k into props (kept by the caller): false when it is none. */
static bool lowered_count(const skio_fbx_tree* t, uint32_t r, uint32_t k, skio_fbx_props* props, skio_fbx_change* ch) {
  int64_t v;
  if (r == SKIO_FBX_NONE || !skio_fbx_prop_i64(t, r, 0, &v)) return false;
  skio_fbx_put_i32(props, (int32_t)(v > (int64_t)k ? v - (int64_t)k : 0));
  if (props->oom) return false;
  ch[r].props = props->p;
  ch[r].props_len = props->n;
  ch[r].prop_count = props->count;
  return true;
}

/* The Definitions: the total Count and the Material ObjectType's lowered by the materials dropped (the ObjectType
 * dropped when none is left). */
static void lower_definitions(const skio_fbx_tree* t, uint32_t k, skio_fbx_change* ch, skio_fbx_props p[2]) {
  const uint32_t defs = skio_fbx_child(t, SKIO_FBX_NONE, "Definitions", SKIO_FBX_NONE);
  if (defs == SKIO_FBX_NONE) return;
  lowered_count(t, skio_fbx_child(t, defs, "Count", SKIO_FBX_NONE), k, &p[0], ch);
  for (uint32_t o = skio_fbx_child(t, defs, "ObjectType", SKIO_FBX_NONE); o != SKIO_FBX_NONE;
       o = skio_fbx_child(t, defs, "ObjectType", o)) {
    if (!skio_fbx_prop_str_is(t, o, 0, "Material")) continue;
    const uint32_t count = skio_fbx_child(t, o, "Count", SKIO_FBX_NONE);
    int64_t v;
    if (count != SKIO_FBX_NONE && skio_fbx_prop_i64(t, count, 0, &v) && v <= (int64_t)k)
      ch[o].drop = true;
    else
      lowered_count(t, count, k, &p[1], ch);
  }
}

int skio_fbx_drop_material(const uint8_t* in, size_t n, const char* name, uint8_t** out, size_t* out_n, uint32_t* count,
                           skc_err* err) {
  if (!in || !name || !out || !out_n) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  if (count) *count = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(in, n, &t, err);
  if (rc) return rc;
  skio_fbx_change* ch = calloc(t.count ? t.count : 1, sizeof *ch);
  dropped d = {NULL, 0};
  skio_fbx_props p[2] = {{0}, {0}};
  rc = ch ? mark_materials(&t, name, ch, &d, err) : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc && d.n) {
    drop_connections(&t, &d, ch);
    lower_definitions(&t, d.n, ch, p);
  }
  if (!rc) rc = skio_fbx_tree_write(&t, ch, out, out_n, err);
  if (!rc && count) *count = d.n;
  free(p[0].p);
  free(p[1].p);
  free(d.ids);
  free(ch);
  skio_fbx_tree_free(&t);
  return rc;
}
