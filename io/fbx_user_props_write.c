/* fbx_user_props_write.c - the scene's custom properties (skio_scene.user_props: an FBX source's user properties, a
 * glTF source's node extras) added to the binary FBX Assimp 5.2.5's writer wrote, which has none
 * (skio_fbx_add_user_props).
 *
 * Each property goes to every Model named as its node, as a Properties70 "P" record with the flags "A+U" the way
 * Blender's FBX exporter writes custom properties and its importer reads them back (import_fbx.py
 * blen_read_custom_properties asserts the value types): an integer within int32 as "int" / "Integer" with an I value,
 * a bool as "bool" with an I value 0 / 1, other numbers as "double" / "Number" with a D value, text as "KString" with
 * an S value, three numbers as "Vector" with three D values. A name the Model's Properties70 already holds, or one
 * already added to it, is left alone; a Model without Properties70 gets one. Work is bounded by the file and the
 * property list (sorted once, looked up by binary search). */
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"
#include "skio_scene.h"

typedef struct adder {
  const skio_fbx_tree* t;
  const skio_user_prop** sorted; /* by node name, then key (skio_user_props_sorted) */
  uint32_t count;
  uint32_t added;
} adder;

/* Whether Properties70 record props (SKIO_FBX_NONE: none) has a P named key. */
static bool has_key(const skio_fbx_tree* t, uint32_t props, const char* key) {
  for (uint32_t p = props == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, props, "P", SKIO_FBX_NONE);
       p != SKIO_FBX_NONE; p = skio_fbx_child(t, props, "P", p))
    if (skio_fbx_prop_str_is(t, p, 0, key)) return true;
  return false;
}

/* The P record of property u into *r (its bytes malloc'd); false when out of memory. */
static bool p_record(const skio_user_prop* u, skio_fbx_new* r) {
  skio_fbx_props b = {0};
  const bool integer = u->kind == SKIO_PROP_INT && u->v[0] >= -2147483648.0 && u->v[0] <= 2147483647.0;
  const char* type = u->kind == SKIO_PROP_STRING ? "KString"
                     : u->kind == SKIO_PROP_VEC3 ? "Vector"
                     : u->kind == SKIO_PROP_BOOL ? "bool"
                     : integer                   ? "int"
                                                 : "double";
  const char* label = integer ? "Integer" : !strcmp(type, "double") ? "Number" : "";
  skio_fbx_put_str(&b, u->key, strlen(u->key));
  skio_fbx_put_str(&b, type, strlen(type));
  skio_fbx_put_str(&b, label, strlen(label));
  skio_fbx_put_str(&b, "A+U", 3);
  if (u->kind == SKIO_PROP_STRING)
    skio_fbx_put_str(&b, u->text ? u->text : "", u->text ? strlen(u->text) : 0);
  else if (u->kind == SKIO_PROP_BOOL)
    skio_fbx_put_i32(&b, u->v[0] != 0.0);
  else if (integer)
    skio_fbx_put_i32(&b, (int32_t)u->v[0]);
  else
    for (int k = 0; k < (u->kind == SKIO_PROP_VEC3 ? 3 : 1); ++k) skio_fbx_put_f64(&b, u->v[k]);
  if (b.oom) return false;
  *r = (skio_fbx_new){"P", b.p, b.n, b.count, NULL, 0};
  return true;
}

/* The P records Model m lacks of its node's properties, into a new array *out (*n records); false when out of
 * memory. */
static bool model_records(adder* A, uint32_t m, skio_fbx_new** out, uint32_t* n) {
  const uint8_t* name;
  size_t len;
  *out = NULL;
  *n = 0;
  if (!skio_fbx_prop_name(A->t, m, 1, &name, &len)) return true;
  const uint32_t props = skio_fbx_child(A->t, m, "Properties70", SKIO_FBX_NONE);
  for (uint32_t i = skio_user_props_first(A->sorted, A->count, (const char*)name, len);
       i < A->count && skio_user_prop_of(A->sorted[i], (const char*)name, len); ++i) {
    const skio_user_prop* u = A->sorted[i];
    if (has_key(A->t, props, u->key) || (*n && !strcmp(A->sorted[i - 1]->key, u->key))) continue;
    skio_fbx_new* grown = realloc(*out, ((size_t)*n + 1) * sizeof *grown);
    if (!grown) return false;
    *out = grown;
    if (!p_record(u, &grown[*n])) return false;
    ++*n;
  }
  return true;
}

static void free_records(skio_fbx_new* r, uint32_t n) {
  for (uint32_t i = 0; r && i < n; ++i) free(r[i].props);
  free(r);
}

int skio_fbx_add_user_props(const uint8_t* in, size_t n, const char* cls, const skio_user_prop* props, uint32_t count,
                            uint8_t** out, size_t* out_n, uint32_t* added, skc_err* err) {
  if (!in || !out || !out_n) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  if (added) *added = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(in, n, &t, err);
  if (rc) return rc;
  adder A = {&t, skio_user_props_sorted(props, count), count, 0};
  skio_fbx_change* ch = calloc(t.count ? t.count : 1, sizeof *ch);
  skio_fbx_new** lists = calloc(t.count ? t.count : 1, sizeof *lists); /* per record: the records added to it */
  skio_fbx_new* wraps = calloc(t.count ? t.count : 1, sizeof *wraps);  /* a new Properties70 per Model without */
  if (!ch || !lists || !wraps || (count && !A.sorted)) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  for (uint32_t m = objects == SKIO_FBX_NONE || !count ? SKIO_FBX_NONE
                                                       : skio_fbx_child(&t, objects, cls, SKIO_FBX_NONE);
       !rc && m != SKIO_FBX_NONE; m = skio_fbx_child(&t, objects, cls, m)) {
    skio_fbx_new* recs = NULL;
    uint32_t nr = 0;
    if (!model_records(&A, m, &recs, &nr)) {
      free_records(recs, nr);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding custom properties");
      break;
    }
    if (!nr) continue;
    const uint32_t props70 = skio_fbx_child(&t, m, "Properties70", SKIO_FBX_NONE);
    lists[m] = recs;
    if (props70 != SKIO_FBX_NONE) {
      ch[props70].add = recs, ch[props70].add_count = nr;
    } else {
      wraps[m] = (skio_fbx_new){"Properties70", NULL, 0, 0, recs, nr};
      ch[m].add = &wraps[m], ch[m].add_count = 1;
    }
    A.added += nr; /* lists[m]'s count is kept in ch (or wraps): freed below through it */
  }
  if (!rc) rc = skio_fbx_tree_write(&t, ch, out, out_n, err);
  if (!rc && added) *added = A.added;
  for (uint32_t r = 0; lists && r < t.count; ++r) {
    if (!lists[r]) continue;
    const uint32_t props70 = skio_fbx_child(&t, r, "Properties70", SKIO_FBX_NONE);
    free_records(lists[r], props70 != SKIO_FBX_NONE ? ch[props70].add_count : wraps[r].kid_count);
  }
  free(lists);
  free(wraps);
  free(ch);
  free((void*)A.sorted);
  skio_fbx_tree_free(&t);
  return rc;
}

int skio_fbx_name_geometries(const uint8_t* in, size_t n, const char* const* names, uint32_t count, uint8_t** out,
                             size_t* out_n, skc_err* err) {
  *out = NULL;
  *out_n = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(in, n, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  skio_fbx_change* ch = calloc(t.count ? t.count : 1, sizeof *ch);
  uint8_t** kept = calloc(count + 1, sizeof *kept);
  if (!ch || !kept) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory naming FBX geometries");
  uint32_t k = 0;
  for (uint32_t g = rc || objects == SKIO_FBX_NONE ? SKIO_FBX_NONE
                                                   : skio_fbx_child(&t, objects, "Geometry", SKIO_FBX_NONE);
       g != SKIO_FBX_NONE && k < count && !rc; g = skio_fbx_child(&t, objects, "Geometry", g)) {
    int64_t id;
    const uint8_t* old;
    size_t old_n;
    if (!skio_fbx_prop_str_is(&t, g, 2, "Mesh")) continue; /* blend shapes are Geometry "Shape" records */
    const char* name = names[k++];
    if (!name || !name[0] || !skio_fbx_prop_i64(&t, g, 0, &id) || !skio_fbx_prop_name(&t, g, 1, &old, &old_n) ||
        old_n || strlen(name) > 1024)
      continue; /* only an unnamed one (Assimp's writer names none) */
    const size_t len = strlen(name);
    char* full = malloc(len + 12);
    skio_fbx_props b = {0};
    if (full) {
      memcpy(full, name, len);
      memcpy(full + len, "\0\1Geometry", 10);
      skio_fbx_put_i64(&b, id);
      skio_fbx_put_str(&b, full, len + 10);
      skio_fbx_put_str(&b, "Mesh", 4);
    }
    free(full);
    if (!full || b.oom) {
      free(b.p);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory naming FBX geometries");
      break;
    }
    kept[k - 1] = b.p;
    ch[g] = (skio_fbx_change){b.p, b.n, b.count, false, NULL, 0};
  }
  if (!rc) rc = skio_fbx_tree_write(&t, ch, out, out_n, err);
  for (uint32_t i = 0; kept && i < count; ++i) free(kept[i]);
  free(kept);
  free(ch);
  skio_fbx_tree_free(&t);
  return rc;
}
