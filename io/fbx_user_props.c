/* fbx_user_props.c - the custom properties of a binary FBX file's Models, Materials and Geometries
 * (skio_fbx_tree.h): what Blender writes for an object's or bone's custom properties (its FBX exporter's "Custom
 * Properties" option), Maya for extra attributes, 3ds Max for user-defined properties. Each is a Properties70 "P"
 * record of the Model whose flags (the fourth property) hold 'U': name, type, label, flags, value(s). Assimp 5.2.5 puts
 * every property of a Model, user or not, into its node's metadata without the flags, so they are read here and the
 * glTF writer gives them back as each node's "extras" (which Blender's glTF importer makes custom properties again).
 *
 * Types kept: integers ("int", "Integer", "enum", "ULongLong", "Short", ...: an integer value), "bool" / "Bool",
 * numbers ("double", "Number", "float", "Float"), strings ("KString": the value's bytes, at most 4,096), and
 * three-component values ("Vector", "Vector3D", "ColorRGB", "Color", "Lcl ..."). Others are counted in *skipped.
 * At most 65,536 properties and names of at most 1,024 bytes: work and memory bounded by the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_fbx_tree.h"
#include "skio_scene.h"

#define MAX_PROPS 65536u
#define MAX_NAME 1024u
#define MAX_TEXT 4096u

static char* dup_bytes(const uint8_t* p, size_t n, size_t cap) {
  if (n > cap) n = cap;
  char* s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, p, n);
  s[n] = 0;
  return s;
}

static void prop_clear(skio_user_prop* u) {
  free(u->node);
  free(u->key);
  free(u->text);
}

static bool type_is(const skio_fbx_tree* t, uint32_t p, const char* const* names) {
  for (; *names; ++names)
    if (skio_fbx_prop_str_is(t, p, 1, *names)) return true;
  return false;
}

/* Whether P record p is a user property (flags with 'U'). */
static bool is_user(const skio_fbx_tree* t, uint32_t p) {
  skio_fbx_prop f;
  return skio_fbx_prop_at(t, p, 3, &f) && f.type == 'S' && memchr(f.p, 'U', f.len) != NULL;
}

/* The value of user property p into *u (its kind and value); false when its type is not one kept. */
static bool read_value(const skio_fbx_tree* t, uint32_t p, skio_user_prop* u) {
  static const char* const k_int[] = {"int", "Integer", "enum", "ULongLong", "Short", "UShort", "Long", NULL};
  static const char* const k_bool[] = {"bool", "Bool", NULL};
  static const char* const k_num[] = {"double", "Number", "float", "Float", "KTime", NULL};
  static const char* const k_vec[] = {"Vector", "Vector3D", "ColorRGB", "Color", "Lcl Translation",
                                      "Lcl Rotation", "Lcl Scaling", NULL};
  if (type_is(t, p, k_vec)) {
    u->kind = SKIO_PROP_VEC3;
    for (uint32_t k = 0; k < 3; ++k)
      if (!skio_fbx_p_number(t, p, 4 + k, &u->v[k]) || !isfinite(u->v[k])) return false;
    return true;
  }
  if (skio_fbx_prop_str_is(t, p, 1, "KString")) {
    skio_fbx_prop s;
    if (!skio_fbx_prop_at(t, p, 4, &s) || s.type != 'S') return false;
    u->kind = SKIO_PROP_STRING;
    return (u->text = dup_bytes(s.p, s.len, MAX_TEXT)) != NULL;
  }
  const bool integer = type_is(t, p, k_int), boolean = !integer && type_is(t, p, k_bool);
  if (!integer && !boolean && !type_is(t, p, k_num)) return false;
  if (!skio_fbx_p_number(t, p, 4, &u->v[0]) || !isfinite(u->v[0])) return false;
  u->kind = integer ? SKIO_PROP_INT : boolean ? SKIO_PROP_BOOL : SKIO_PROP_NUMBER;
  return true;
}

/* Model m's user properties appended to *out; false when out of memory. */
static bool model_props(const skio_fbx_tree* t, uint32_t m, skio_user_prop** out, uint32_t* count, uint32_t* skipped) {
  const uint8_t* name;
  size_t n;
  const uint32_t props = skio_fbx_child(t, m, "Properties70", SKIO_FBX_NONE);
  if (props == SKIO_FBX_NONE || !skio_fbx_prop_name(t, m, 1, &name, &n)) return true;
  for (uint32_t p = skio_fbx_child(t, props, "P", SKIO_FBX_NONE); p != SKIO_FBX_NONE && *count < MAX_PROPS;
       p = skio_fbx_child(t, props, "P", p)) {
    skio_fbx_prop key;
    if (!is_user(t, p) || !skio_fbx_prop_at(t, p, 0, &key) || key.type != 'S' || !key.len) continue;
    skio_user_prop u = {0};
    if (!read_value(t, p, &u)) {
      ++*skipped;
      continue;
    }
    skio_user_prop* grown = realloc(*out, ((size_t)*count + 1) * sizeof *grown);
    if (grown) *out = grown;
    if (!grown || !(u.node = dup_bytes(name, n, MAX_NAME)) || !(u.key = dup_bytes(key.p, key.len, MAX_NAME))) {
      prop_clear(&u);
      return false;
    }
    grown[(*count)++] = u;
  }
  return true;
}

/* The user properties of every `cls` record (Model, Material) of the file. */
static int user_props_of(const uint8_t* data, size_t size, const char* cls, skio_user_prop** out, uint32_t* count,
                         uint32_t* skipped, skc_err* err) {
  *out = NULL;
  *count = 0;
  *skipped = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, size, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  for (uint32_t m = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, objects, cls, SKIO_FBX_NONE);
       m != SKIO_FBX_NONE && !rc; m = skio_fbx_child(&t, objects, cls, m))
    if (!model_props(&t, m, out, count, skipped))
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX custom properties");
  skio_fbx_tree_free(&t);
  if (rc) {
    skio_user_props_free(*out, *count);
    *out = NULL;
    *count = 0;
  }
  return rc;
}

int skio_fbx_user_props(const uint8_t* data, size_t size, skio_user_prop** out, uint32_t* count, uint32_t* skipped,
                        skc_err* err) {
  return user_props_of(data, size, "Model", out, count, skipped, err);
}

int skio_fbx_material_props(const uint8_t* data, size_t size, skio_user_prop** out, uint32_t* count, uint32_t* skipped,
                            skc_err* err) {
  return user_props_of(data, size, "Material", out, count, skipped, err);
}

int skio_fbx_mesh_props(const uint8_t* data, size_t size, skio_user_prop** out, uint32_t* count, uint32_t* skipped,
                        skc_err* err) {
  return user_props_of(data, size, "Geometry", out, count, skipped, err);
}

void skio_user_props_free(skio_user_prop* list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) prop_clear(&list[i]);
  free(list);
}
