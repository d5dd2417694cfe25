/* fbx_cameras.c - which cameras of a binary FBX file are orthographic (skio_fbx_tree.h). Assimp 5.2.5's FBX reader
 * reads every camera as perspective (it does not look at CameraProjectionType); Blender's and Maya's exporters write
 * an orthographic camera as a NodeAttribute of class "Camera" with CameraProjectionType 1 and its view width in
 * OrthoZoom (Blender: ortho_scale), connected to its Model. At most 256 are listed (each costs a walk of the
 * connections and models: a hostile file of many cannot make that quadratic). */
#include <stdlib.h>
#include <string.h>

#include "skio_fbx_tree.h"

/* An orthographic camera attribute: its OrthoZoom into *zoom (1 when absent). */
static bool ortho_attribute(const skio_fbx_tree* t, uint32_t attr, double* zoom) {
  if (!skio_fbx_prop_str_is(t, attr, 2, "Camera")) return false;
  const uint32_t props = skio_fbx_child(t, attr, "Properties70", SKIO_FBX_NONE);
  bool ortho = false;
  *zoom = 1.0;
  for (uint32_t p = props == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, props, "P", SKIO_FBX_NONE);
       p != SKIO_FBX_NONE; p = skio_fbx_child(t, props, "P", p)) {
    double v;
    if (skio_fbx_prop_str_is(t, p, 0, "CameraProjectionType") && skio_fbx_p_number(t, p, 4, &v)) ortho = v == 1.0;
    if (skio_fbx_prop_str_is(t, p, 0, "OrthoZoom") && skio_fbx_p_number(t, p, 4, &v) && v > 0.0 && v < 1e30) *zoom = v;
  }
  return ortho;
}

/* The Model record with id `id`, or SKIO_FBX_NONE. */
static uint32_t model_of_id(const skio_fbx_tree* t, uint32_t objects, int64_t id) {
  for (uint32_t r = skio_fbx_child(t, objects, "Model", SKIO_FBX_NONE); r != SKIO_FBX_NONE;
       r = skio_fbx_child(t, objects, "Model", r)) {
    int64_t v;
    if (skio_fbx_prop_i64(t, r, 0, &v) && v == id) return r;
  }
  return SKIO_FBX_NONE;
}

/* The name of the Model an "OO" connection links the attribute `id` to; false when none. */
static bool model_name(const skio_fbx_tree* t, uint32_t objects, int64_t id, const uint8_t** name, size_t* n) {
  const uint32_t conns = skio_fbx_child(t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  for (uint32_t c = conns == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, conns, "C", SKIO_FBX_NONE);
       c != SKIO_FBX_NONE; c = skio_fbx_child(t, conns, "C", c)) {
    int64_t child, parent;
    if (!skio_fbx_prop_str_is(t, c, 0, "OO") || !skio_fbx_prop_i64(t, c, 1, &child) || child != id ||
        !skio_fbx_prop_i64(t, c, 2, &parent))
      continue;
    const uint32_t m = model_of_id(t, objects, parent);
    if (m != SKIO_FBX_NONE && skio_fbx_prop_name(t, m, 1, name, n)) return true;
  }
  return false;
}

static int add(skio_fbx_ortho** out, uint32_t* count, const uint8_t* name, size_t n, double zoom, skc_err* err) {
  skio_fbx_ortho* grown = realloc(*out, ((size_t)*count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX cameras");
  *out = grown;
  if (!(grown[*count].name = malloc(n + 1)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX cameras");
  memcpy(grown[*count].name, name, n);
  grown[*count].name[n] = 0;
  grown[*count].zoom = zoom;
  ++*count;
  return SKC_OK;
}

int skio_fbx_ortho_list(const uint8_t* data, size_t size, skio_fbx_ortho** out, uint32_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, size, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  for (uint32_t a = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE
                                             : skio_fbx_child(&t, objects, "NodeAttribute", SKIO_FBX_NONE);
       a != SKIO_FBX_NONE && !rc && *count < 256; a = skio_fbx_child(&t, objects, "NodeAttribute", a)) {
    double zoom;
    int64_t id;
    const uint8_t* name;
    size_t n;
    if (ortho_attribute(&t, a, &zoom) && skio_fbx_prop_i64(&t, a, 0, &id) && model_name(&t, objects, id, &name, &n))
      rc = add(out, count, name, n, zoom, err);
  }
  skio_fbx_tree_free(&t);
  if (rc) {
    skio_fbx_ortho_free(*out, *count);
    *out = NULL;
    *count = 0;
  }
  return rc;
}

void skio_fbx_ortho_free(skio_fbx_ortho* list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) free(list[i].name);
  free(list);
}
