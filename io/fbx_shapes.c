/* fbx_shapes.c - the default values of a binary FBX file's shape keys (skio_fbx_tree.h). Assimp 5.2.5's FBX reader
 * gives each blend shape channel as an anim mesh with the weight at which the channel reaches that shape (1), not the
 * channel's current value; Blender's and Maya's exporters write that value as the BlendShapeChannel deformer's
 * DeformPercent (0-100; a Properties70 "P" record, or a direct child record in older files). At most 4,096 channels
 * are listed (each costs one walk of its properties), each with the Model it belongs to (channel -> BlendShape ->
 * Geometry -> Model by "OO" connections, looked up in tables sorted once): two meshes' keys of one name ("Key 1")
 * may hold different values. */
#include <math.h>
#include <stdbool.h>
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

/* A sorted table of (key, value) pairs: "OO" connections child id -> parent id, Model ids -> records. */
typedef struct id_pair {
  int64_t key, value;
} id_pair;
typedef struct id_table {
  id_pair* p;
  size_t n, cap;
  bool oom;
} id_table;

static void table_add(id_table* t, int64_t key, int64_t value) {
  if (t->oom) return;
  if (t->n == t->cap) {
    const size_t cap = t->cap ? 2 * t->cap : 256;
    id_pair* grown = realloc(t->p, cap * sizeof *grown);
    if (!grown) {
      t->oom = true;
      return;
    }
    t->p = grown, t->cap = cap;
  }
  t->p[t->n++] = (id_pair){key, value};
}

static int by_key(const void* a, const void* b) {
  const int64_t x = ((const id_pair*)a)->key, y = ((const id_pair*)b)->key;
  return (x > y) - (x < y);
}

/* Sorted for table_get; a table memory ran short for is emptied (the channels then go without their Model). */
static void table_sort(id_table* t) {
  if (t->oom) free(t->p), t->p = NULL, t->n = 0;
  if (t->n) qsort(t->p, t->n, sizeof *t->p, by_key);
}

/* The value of a pair of that key (a child connected to two parents: either), or 0 (ids are positive). */
static int64_t table_get(const id_table* t, int64_t key) {
  const id_pair k = {key, 0};
  const id_pair* hit = t->n && key ? bsearch(&k, t->p, t->n, sizeof *t->p, by_key) : NULL;
  return hit ? hit->value : 0;
}

/* The file's "OO" connections (child -> parent) and Model records (id -> record), each sorted by key. */
static void tables(const skio_fbx_tree* t, uint32_t objects, id_table* links, id_table* models) {
  const uint32_t conns = skio_fbx_child(t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  for (uint32_t c = skio_fbx_child(t, conns, "C", SKIO_FBX_NONE); conns != SKIO_FBX_NONE && c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, conns, "C", c)) {
    int64_t child, parent;
    if (skio_fbx_prop_str_is(t, c, 0, "OO") && skio_fbx_prop_i64(t, c, 1, &child) &&
        skio_fbx_prop_i64(t, c, 2, &parent))
      table_add(links, child, parent);
  }
  for (uint32_t m = skio_fbx_child(t, objects, "Model", SKIO_FBX_NONE); objects != SKIO_FBX_NONE && m != SKIO_FBX_NONE;
       m = skio_fbx_child(t, objects, "Model", m)) {
    int64_t id;
    if (skio_fbx_prop_i64(t, m, 0, &id)) table_add(models, id, (int64_t)m + 1); /* + 1: record 0 is not "none" */
  }
  table_sort(links);
  table_sort(models);
}

/* The name of the Model of id `id` (a new string), or NULL. */
static char* model_name(const skio_fbx_tree* t, const id_table* models, int64_t id) {
  const int64_t rec = table_get(models, id);
  const uint8_t* name;
  size_t len;
  if (!rec || !skio_fbx_prop_name(t, (uint32_t)(rec - 1), 1, &name, &len)) return NULL;
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
  id_table links = {0}, models = {0};
  tables(&t, objects, &links, &models);
  for (uint32_t d = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, objects, "Deformer", SKIO_FBX_NONE);
       d != SKIO_FBX_NONE && !rc && *count < 4096; d = skio_fbx_child(&t, objects, "Deformer", d)) {
    double percent;
    const uint8_t* name;
    size_t n;
    int64_t id;
    if (!skio_fbx_prop_str_is(&t, d, 2, "BlendShapeChannel") || !deform_percent(&t, d, &percent) ||
        !skio_fbx_prop_name(&t, d, 1, &name, &n))
      continue;
    const int64_t model = skio_fbx_prop_i64(&t, d, 0, &id) ? table_get(&links, table_get(&links, table_get(&links, id)))
                                                           : 0; /* channel -> BlendShape -> Geometry -> Model */
    rc = add(out, count, name, n, percent / 100.0, model_name(&t, &models, model), err);
  }
  free(links.p);
  free(models.p);
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
