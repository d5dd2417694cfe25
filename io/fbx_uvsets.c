/* fbx_uvsets.c - which UV set a texture reads, in the binary FBX Assimp 5.2.5's writer wrote (skio_fbx_set_uvsets).
 *
 * Assimp's writer names no UV layer (a LayerElementUV's Name is "") and gives no Texture a UVSet (the template's
 * "default": the first set), so a material's texture on glTF's TEXCOORD_1 came back reading set 0. FBX names the
 * set: a Texture's UVSet property holds the Name of one of the mesh's LayerElementUV (the FBX SDK - Maya, Unity,
 * Unreal - and Assimp's reader resolve it by name; Blender's exporter writes it, its importer ignores it). So when a
 * texture reads a set past the first, every unnamed LayerElementUV k of the file is named as Blender names UV maps
 * ("UVMap", "UVMap.001", ...) and that texture's UVSet names its set. Work is bounded by the file and the list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"

/* Blender's name of UV map k. */
static void uv_name(uint32_t k, char* out, size_t size) {
  if (k == 0)
    snprintf(out, size, "UVMap");
  else
    snprintf(out, size, "UVMap.%03u", (unsigned)k);
}

/* The id of the Material record named name[0, len) (its name before "\0\1"), or -1 (ids are positive). */
static int64_t material_id(const skio_fbx_tree* t, uint32_t objects, const char* name) {
  for (uint32_t m = skio_fbx_child(t, objects, "Material", SKIO_FBX_NONE); m != SKIO_FBX_NONE;
       m = skio_fbx_child(t, objects, "Material", m)) {
    const uint8_t* s;
    size_t len;
    int64_t id;
    if (skio_fbx_prop_name(t, m, 1, &s, &len) && len == strlen(name) && !memcmp(s, name, len) &&
        skio_fbx_prop_i64(t, m, 0, &id))
      return id;
  }
  return -1;
}

/* The Texture record of id `id`, or SKIO_FBX_NONE. */
static uint32_t texture_of(const skio_fbx_tree* t, uint32_t objects, int64_t id) {
  int64_t v;
  for (uint32_t x = skio_fbx_child(t, objects, "Texture", SKIO_FBX_NONE); x != SKIO_FBX_NONE;
       x = skio_fbx_child(t, objects, "Texture", x))
    if (skio_fbx_prop_i64(t, x, 0, &v) && v == id) return x;
  return SKIO_FBX_NONE;
}

/* The UV set entry e of the list names for the texture connected to a material by connection c ("C" "OP" texture
 * material property), or NULL. */
static const skio_fbx_texuv* entry_of(const skio_fbx_tree* t, uint32_t c, const int64_t* mat_ids,
                                      const skio_fbx_texuv* list, uint32_t count) {
  int64_t parent;
  if (!skio_fbx_prop_str_is(t, c, 0, "OP") || !skio_fbx_prop_i64(t, c, 2, &parent)) return NULL;
  for (uint32_t k = 0; k < count; ++k)
    if (mat_ids[k] == parent && skio_fbx_prop_str_is(t, c, 3, list[k].slot)) return &list[k];
  return NULL;
}

/* A P record "UVSet" "KString" "" "" name into *r. */
static bool uvset_record(uint32_t uv, skio_fbx_new* r) {
  char name[32];
  uv_name(uv, name, sizeof name);
  skio_fbx_props b = {0};
  skio_fbx_put_str(&b, "UVSet", 5);
  skio_fbx_put_str(&b, "KString", 7);
  skio_fbx_put_str(&b, "", 0);
  skio_fbx_put_str(&b, "", 0);
  skio_fbx_put_str(&b, name, strlen(name));
  if (b.oom) return false;
  *r = (skio_fbx_new){"P", b.p, b.n, b.count, NULL, 0};
  return true;
}

/* Every unnamed LayerElementUV's Name record of the file gets its set's name (new property bytes in names[], one per
 * record of the tree, pointed at by ch). False when memory is short. */
static bool name_layers(const skio_fbx_tree* t, uint32_t objects, skio_fbx_change* ch, skio_fbx_props* names) {
  for (uint32_t g = skio_fbx_child(t, objects, "Geometry", SKIO_FBX_NONE); g != SKIO_FBX_NONE;
       g = skio_fbx_child(t, objects, "Geometry", g))
    for (uint32_t l = skio_fbx_child(t, g, "LayerElementUV", SKIO_FBX_NONE); l != SKIO_FBX_NONE;
         l = skio_fbx_child(t, g, "LayerElementUV", l)) {
      const uint32_t nm = skio_fbx_child(t, l, "Name", SKIO_FBX_NONE);
      int64_t k;
      skio_fbx_prop p;
      if (nm == SKIO_FBX_NONE || !skio_fbx_prop_i64(t, l, 0, &k) || k < 0 || k > 99 ||
          !skio_fbx_prop_at(t, nm, 0, &p) || p.type != 'S' || p.len)
        continue;
      char name[32];
      uv_name((uint32_t)k, name, sizeof name);
      skio_fbx_put_str(&names[nm], name, strlen(name));
      if (names[nm].oom) return false;
      ch[nm].props = names[nm].p, ch[nm].props_len = names[nm].n, ch[nm].prop_count = names[nm].count;
    }
  return true;
}

/* Each texture the list names gets its UVSet record (recs[] per tree record, pointed at by ch). */
static bool set_textures(const skio_fbx_tree* t, uint32_t objects, const int64_t* mat_ids, const skio_fbx_texuv* list,
                         uint32_t count, skio_fbx_change* ch, skio_fbx_new* recs, skio_fbx_new* wraps) {
  const uint32_t conns = skio_fbx_child(t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  for (uint32_t c = skio_fbx_child(t, conns, "C", SKIO_FBX_NONE); conns != SKIO_FBX_NONE && c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, conns, "C", c)) {
    const skio_fbx_texuv* e = entry_of(t, c, mat_ids, list, count);
    int64_t child;
    const uint32_t x = e && skio_fbx_prop_i64(t, c, 1, &child) ? texture_of(t, objects, child) : SKIO_FBX_NONE;
    if (x == SKIO_FBX_NONE || recs[x].name) continue; /* a texture shared by two slots: the first names it */
    if (!uvset_record(e->uv, &recs[x])) return false;
    const uint32_t props70 = skio_fbx_child(t, x, "Properties70", SKIO_FBX_NONE);
    if (props70 != SKIO_FBX_NONE) {
      ch[props70].add = &recs[x], ch[props70].add_count = 1;
    } else {
      wraps[x] = (skio_fbx_new){"Properties70", NULL, 0, 0, &recs[x], 1};
      ch[x].add = &wraps[x], ch[x].add_count = 1;
    }
  }
  return true;
}

int skio_fbx_set_uvsets(const uint8_t* in, size_t n, const skio_fbx_texuv* list, uint32_t count, uint8_t** out,
                        size_t* out_n, skc_err* err) {
  if (!in || !out || !out_n || (count && !list)) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(in, n, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  const size_t slots = t.count ? t.count : 1;
  skio_fbx_change* ch = calloc(slots, sizeof *ch);
  skio_fbx_props* names = calloc(slots, sizeof *names);
  skio_fbx_new* recs = calloc(slots, sizeof *recs);
  skio_fbx_new* wraps = calloc(slots, sizeof *wraps);
  int64_t* mat_ids = calloc(count + 1, sizeof *mat_ids);
  if (!ch || !names || !recs || !wraps || !mat_ids) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t k = 0; !rc && k < count; ++k) mat_ids[k] = material_id(&t, objects, list[k].material);
  if (!rc && objects != SKIO_FBX_NONE &&
      (!name_layers(&t, objects, ch, names) || !set_textures(&t, objects, mat_ids, list, count, ch, recs, wraps)))
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory naming UV sets");
  if (!rc) rc = skio_fbx_tree_write(&t, ch, out, out_n, err);
  for (size_t r = 0; names && recs && r < slots; ++r) free(names[r].p), free(recs[r].props);
  free(ch);
  free(names);
  free(recs);
  free(wraps);
  free(mat_ids);
  skio_fbx_tree_free(&t);
  return rc;
}
