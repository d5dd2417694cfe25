/* fbx_shapes.c - the default values of a binary FBX file's shape keys (skio_fbx_tree.h). Assimp 5.2.5's FBX reader
 * gives each blend shape channel as an anim mesh with the weight at which the channel reaches that shape (1), not the
 * channel's current value; Blender's and Maya's exporters write that value as the BlendShapeChannel deformer's
 * DeformPercent (0-100; a Properties70 "P" record, or a direct child record in older files). At most 4,096 channels
 * are listed (each costs one walk of its properties). */
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

static int add(skio_fbx_shape_weight** out, uint32_t* count, const uint8_t* name, size_t n, double w, skc_err* err) {
  skio_fbx_shape_weight* grown = realloc(*out, ((size_t)*count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX shape keys");
  *out = grown;
  if (!(grown[*count].name = malloc(n + 1))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX shape keys");
  memcpy(grown[*count].name, name, n);
  grown[*count].name[n] = 0;
  grown[*count].weight = w;
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
  for (uint32_t d = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, objects, "Deformer", SKIO_FBX_NONE);
       d != SKIO_FBX_NONE && !rc && *count < 4096; d = skio_fbx_child(&t, objects, "Deformer", d)) {
    double percent;
    const uint8_t* name;
    size_t n;
    if (skio_fbx_prop_str_is(&t, d, 2, "BlendShapeChannel") && deform_percent(&t, d, &percent) &&
        skio_fbx_prop_name(&t, d, 1, &name, &n))
      rc = add(out, count, name, n, percent / 100.0, err);
  }
  skio_fbx_tree_free(&t);
  if (rc) {
    skio_fbx_shape_weights_free(*out, *count);
    *out = NULL;
    *count = 0;
  }
  return rc;
}

void skio_fbx_shape_weights_free(skio_fbx_shape_weight* list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) free(list[i].name);
  free(list);
}
