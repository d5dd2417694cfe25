/* fbx_shapes.c - the default values of a binary FBX file's shape keys (skio_fbx_tree.h). Assimp 5.2.5's FBX reader
 * gives each blend shape channel as an anim mesh with the weight at which the channel reaches that shape (1), not the
 * channel's current value; Blender's and Maya's exporters write that value as the BlendShapeChannel deformer's
 * DeformPercent (0-100; a Properties70 "P" record, or a direct child record in older files). At most 4,096 channels
 * are listed (each costs one walk of its properties), each with the Model it belongs to (channel -> BlendShape ->
 * Geometry -> Model by "OO" connections, looked up in tables sorted once): two meshes' keys of one name ("Key 1")
 * may hold different values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_fbx_tree.h"

/* The DeformPercent of BlendShapeChannel deformer d; false when it has none or it is not finite. */
static bool deform_percent(const skio_fbx_tree* t, uint32_t d, double* v) {
  const uint32_t props = skio_fbx_child(t, d, "Properties70", SKIO_FBX_NONE);
  for (uint32_t p = props == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, props, "P", SKIO_FBX_NONE);
       p != SKIO_FBX_NONE; p = skio_fbx_child(t, props, "P", p))
    if (skio_fbx_prop_str_is(t, p, 0, "DeformPercent") && skio_fbx_p_number(t, p, 4, v)) return isfinite(*v);
  const uint32_t direct = skio_fbx_child(t, d, "DeformPercent", SKIO_FBX_NONE);
  skio_fbx_prop q;
  if (direct == SKIO_FBX_NONE || !skio_fbx_prop_at(t, direct, 0, &q)) return false;
  if (q.type == 'D' && q.len == 8) memcpy(v, q.p, 8);
  else if (q.type == 'F' && q.len == 4) {
    float f;
    memcpy(&f, q.p, 4);
    *v = f;
  } else {
    return false;
  }
  return isfinite(*v);
}

typedef struct oo_link { /* an "OO" connection: child object id -> parent object id */
  int64_t child, parent;
} oo_link;

static int by_child(const void* a, const void* b) {
  const int64_t x = ((const oo_link*)a)->child, y = ((const oo_link*)b)->child;
  return (x > y) - (x < y);
}

/* The "OO" connections of the file sorted by child (NULL with *n 0 when there are none or memory is short). */
static oo_link* oo_links(const skio_fbx_tree* t, size_t* n) {
  *n = 0;
  const uint32_t conns = skio_fbx_child(t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  size_t cap = 0;
  oo_link* links = NULL;
  for (uint32_t c = skio_fbx_child(t, conns, "C", SKIO_FBX_NONE); conns != SKIO_FBX_NONE && c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, conns, "C", c)) {
    oo_link l;
    if (!skio_fbx_prop_str_is(t, c, 0, "OO") || !skio_fbx_prop_i64(t, c, 1, &l.child) ||
        !skio_fbx_prop_i64(t, c, 2, &l.parent))
      continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 256;
      oo_link* grown = realloc(links, cap * sizeof *grown);
      if (!grown) {
        free(links);
        *n = 0;
        return NULL;
      }
      links = grown;
    }
    links[(*n)++] = l;
  }
  if (*n) qsort(links, *n, sizeof *links, by_child);
  return links;
}

/* The parent of object id (its first "OO" connection as the child), or 0. */
static int64_t parent_of(const oo_link* links, size_t n, int64_t id) {
  const oo_link key = {id, 0};
  const oo_link* hit = n ? bsearch(&key, links, n, sizeof *links, by_child) : NULL;
  return hit ? hit->parent : 0;
}

typedef struct model_rec { /* a Model record by its id */
  int64_t id;
  uint32_t rec;
} model_rec;

static int by_id(const void* a, const void* b) {
  const int64_t x = ((const model_rec*)a)->id, y = ((const model_rec*)b)->id;
  return (x > y) - (x < y);
}

/* The file's Model records sorted by id (NULL with *n 0 when there are none or memory is short). */
static model_rec* model_table(const skio_fbx_tree* t, uint32_t objects, size_t* n) {
  *n = 0;
  size_t cap = 0;
  model_rec* table = NULL;
  for (uint32_t m = skio_fbx_child(t, objects, "Model", SKIO_FBX_NONE); objects != SKIO_FBX_NONE && m != SKIO_FBX_NONE;
       m = skio_fbx_child(t, objects, "Model", m)) {
    model_rec r = {0, m};
    if (!skio_fbx_prop_i64(t, m, 0, &r.id)) continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 64;
      model_rec* grown = realloc(table, cap * sizeof *grown);
      if (!grown) {
        free(table);
        *n = 0;
        return NULL;
      }
      table = grown;
    }
    table[(*n)++] = r;
  }
  if (*n) qsort(table, *n, sizeof *table, by_id);
  return table;
}

/* The name of the Model of id `id` (a new string), or NULL. */
static char* model_name(const skio_fbx_tree* t, const model_rec* table, size_t n, int64_t id) {
  const model_rec key = {id, 0};
  const model_rec* hit = n && id ? bsearch(&key, table, n, sizeof *table, by_id) : NULL;
  const uint8_t* name;
  size_t len;
  if (!hit || !skio_fbx_prop_name(t, hit->rec, 1, &name, &len)) return NULL;
  char* s = malloc(len + 1);
  if (s) memcpy(s, name, len), s[len] = 0;
  return s;
}

static int add(skio_fbx_shape_weight** out, uint32_t* count, const uint8_t* name, size_t n, double w, char* model,
               skc_err* err) {
  skio_fbx_shape_weight* grown = realloc(*out, ((size_t)*count + 1) * sizeof *grown);
  if (!grown) return free(model), skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX shape keys");
  *out = grown;
  grown[*count] = (skio_fbx_shape_weight){malloc(n + 1), w, model};
  if (!grown[*count].name) return free(model), skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX shape keys");
  memcpy(grown[*count].name, name, n);
  grown[*count].name[n] = 0;
  ++*count;
  return SKC_OK;
}

int skio_fbx_shape_weights(const uint8_t* data, size_t size, skio_fbx_shape_weight** out, uint32_t* count,
                           skc_err* err) {
  *out = NULL;
  *count = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, size, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  size_t nl = 0, nm = 0;
  oo_link* links = oo_links(&t, &nl); /* none (or memory short): channels without their Model */
  model_rec* models = model_table(&t, objects, &nm);
  for (uint32_t d = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, objects, "Deformer", SKIO_FBX_NONE);
       d != SKIO_FBX_NONE && !rc && *count < 4096; d = skio_fbx_child(&t, objects, "Deformer", d)) {
    double percent;
    const uint8_t* name;
    size_t n;
    int64_t id;
    if (!skio_fbx_prop_str_is(&t, d, 2, "BlendShapeChannel") || !deform_percent(&t, d, &percent) ||
        !skio_fbx_prop_name(&t, d, 1, &name, &n))
      continue;
    const int64_t model = skio_fbx_prop_i64(&t, d, 0, &id)
                              ? parent_of(links, nl, parent_of(links, nl, parent_of(links, nl, id)))
                              : 0; /* channel -> BlendShape -> Geometry -> Model */
    rc = add(out, count, name, n, percent / 100.0, model_name(&t, models, nm, model), err);
  }
  free(links);
  free(models);
  skio_fbx_tree_free(&t);
  if (rc) {
    skio_fbx_shape_weights_free(*out, *count);
    *out = NULL;
    *count = 0;
  }
  return rc;
}

void skio_fbx_shape_weights_free(skio_fbx_shape_weight* list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) free(list[i].name), free(list[i].model);
  free(list);
}
