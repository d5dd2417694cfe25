/* fbx_materials_write.c - what Assimp 5.2.5's FBX writer leaves out of each material, added to the binary FBX it
 * wrote (skio_fbx_fix_materials). Assimp writes aiScene mMaterials in order: material k's record is the first one
 * of its name after material k - 1's, since two materials may share a name (and a pass before may drop one: the
 * placeholder's, by name).
 *
 * - EmissiveColor and SpecularFactor, as Blender's FBX exporter writes them: Assimp writes the emissive colour only
 *   as the legacy "Emissive", which neither Blender's importer nor Assimp's reads, and its Phong template says
 *   SpecularFactor 1.0 (a specular of 2 in Blender; 0.25 is Blender's default 0.5, glTF's fixed F0 of 0.04).
 * - A texture's UV set: Assimp's writer names no UV layer (a LayerElementUV's Name is "") and gives no Texture a
 *   UVSet (the template's "default": the first set), so a texture on glTF's TEXCOORD_1 came back reading set 0. A
 *   Texture's UVSet holds the Name of one of the mesh's LayerElementUV (the FBX SDK - Maya, Unity, Unreal - and
 *   Assimp's reader resolve it by name; Blender's exporter writes it, its importer ignores it). So when a texture
 *   reads a set past the first, every unnamed LayerElementUV k of the file is named as Blender names UV maps
 *   ("UVMap", "UVMap.001", ...) and that texture's UVSet names its set.
 * - BumpFactor: the strength of the normal map (glTF's normalTexture.scale), where Blender's FBX exporter writes its
 *   Normal Map node's Strength and its importer and Assimp's reader (AI_MATKEY_BUMPSCALING) read it. Assimp's writer
 *   leaves it at the template's 1.0, so a strength of 0.8 came back as 1 (the session 73 scene audit).
 * Work is bounded by the file and the list (connections times materials, at most 3 slots each). */
#include <math.h>
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

/* Material k's record: the first Material record after the previous material's (file order) named mats[k].name, so
 * that two materials of one name are told apart and a record another pass dropped shifts nothing; into recs, with
 * its id into ids and its Properties70 into props70 (none: SKIO_FBX_NONE and id -1, ids being positive). */
static void material_ids(const skio_fbx_tree* t, uint32_t objects, const skio_fbx_material_fix* mats, uint32_t count,
                         int64_t* ids, uint32_t* props70, uint32_t* recs) {
  uint32_t from = SKIO_FBX_NONE; /* search after this record */
  for (uint32_t k = 0; k < count; ++k) {
    ids[k] = -1, props70[k] = recs[k] = SKIO_FBX_NONE;
    const size_t want = mats[k].name ? strlen(mats[k].name) : 0;
    for (uint32_t m = skio_fbx_child(t, objects, "Material", from); m != SKIO_FBX_NONE;
         m = skio_fbx_child(t, objects, "Material", m)) {
      const uint8_t* name;
      size_t len;
      if (!skio_fbx_prop_name(t, m, 1, &name, &len) || len != want || (len && memcmp(name, mats[k].name, len)) ||
          !skio_fbx_prop_i64(t, m, 0, &ids[k]))
        continue;
      props70[k] = skio_fbx_child(t, m, "Properties70", SKIO_FBX_NONE);
      recs[k] = from = m;
      break;
    }
  }
}

/* The Texture record of id `id`, or SKIO_FBX_NONE. */
static uint32_t texture_of(const skio_fbx_tree* t, uint32_t objects, int64_t id) {
  int64_t v;
  for (uint32_t x = skio_fbx_child(t, objects, "Texture", SKIO_FBX_NONE); x != SKIO_FBX_NONE;
       x = skio_fbx_child(t, objects, "Texture", x))
    if (skio_fbx_prop_i64(t, x, 0, &v) && v == id) return x;
  return SKIO_FBX_NONE;
}

/* The UV set of the texture connection c ("C" "OP" texture material property) attaches, 0 when it is none of
 * mats' slots. */
static uint32_t uv_of(const skio_fbx_tree* t, uint32_t c, const int64_t* ids, const skio_fbx_material_fix* mats,
                      uint32_t count) {
  static const char* const slots[3] = {"DiffuseColor", "NormalMap", "EmissiveColor"}; /* Assimp's property names */
  int64_t parent;
  if (!skio_fbx_prop_str_is(t, c, 0, "OP") || !skio_fbx_prop_i64(t, c, 2, &parent)) return 0;
  for (uint32_t k = 0; k < count; ++k)
    for (int s = 0; ids[k] == parent && s < 3; ++s)
      if (skio_fbx_prop_str_is(t, c, 3, slots[s])) return mats[k].uv[s];
  return 0;
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

/* Whether Properties70 record props (SKIO_FBX_NONE: none) has a P named key. */
static bool has_key(const skio_fbx_tree* t, uint32_t props, const char* key) {
  for (uint32_t p = props == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, props, "P", SKIO_FBX_NONE);
       p != SKIO_FBX_NONE; p = skio_fbx_child(t, props, "P", p))
    if (skio_fbx_prop_str_is(t, p, 0, key)) return true;
  return false;
}

/* Records added under record r: its Properties70 (made when r has none) gets adds[0, n). */
typedef struct additions {
  skio_fbx_new p[3]; /* the P records */
  uint32_t n;
  skio_fbx_new wrap; /* a new Properties70 */
} additions;

static void attach(const skio_fbx_tree* t, uint32_t r, additions* a, skio_fbx_change* ch) {
  const uint32_t props70 = skio_fbx_child(t, r, "Properties70", SKIO_FBX_NONE);
  if (props70 != SKIO_FBX_NONE) {
    ch[props70].add = a->p, ch[props70].add_count = a->n;
  } else {
    a->wrap = (skio_fbx_new){"Properties70", NULL, 0, 0, a->p, a->n};
    ch[r].add = &a->wrap, ch[r].add_count = 1;
  }
}

/* P record key of type "Color" (3 values) or "Number" (1) with flags "A", as Blender writes a material's. */
static bool own_record(const char* key, bool color, const double* v, skio_fbx_new* r) {
  skio_fbx_props b = {0};
  skio_fbx_put_str(&b, key, strlen(key));
  skio_fbx_put_str(&b, color ? "Color" : "Number", color ? 5 : 6);
  skio_fbx_put_str(&b, "", 0);
  skio_fbx_put_str(&b, "A", 1);
  for (int k = 0; k < (color ? 3 : 1); ++k) skio_fbx_put_f64(&b, v[k]);
  if (b.oom) return false;
  *r = (skio_fbx_new){"P", b.p, b.n, b.count, NULL, 0};
  return true;
}

/* Material k's EmissiveColor (when not black), SpecularFactor and BumpFactor (when not 1), where its Properties70
 * lacks them. */
static bool material_records(const skio_fbx_tree* t, uint32_t props70, const skio_fbx_material_fix* m, additions* a) {
  const double emit[3] = {m->emissive[0], m->emissive[1], m->emissive[2]}, spec = 0.25, bump = m->normal_scale;
  if ((emit[0] > 0.0 || emit[1] > 0.0 || emit[2] > 0.0) && !has_key(t, props70, "EmissiveColor") &&
      !own_record("EmissiveColor", true, emit, &a->p[a->n++]))
    return false;
  if (isfinite(bump) && bump != 1.0 && !has_key(t, props70, "BumpFactor") &&
      !own_record("BumpFactor", false, &bump, &a->p[a->n++]))
    return false;
  return has_key(t, props70, "SpecularFactor") || own_record("SpecularFactor", false, &spec, &a->p[a->n++]);
}

/* Each texture on a set past the first gets its UVSet record (add[] per tree record, pointed at by ch). */
static bool set_textures(const skio_fbx_tree* t, uint32_t objects, const int64_t* ids,
                         const skio_fbx_material_fix* mats, uint32_t count, skio_fbx_change* ch, additions* add) {
  const uint32_t conns = skio_fbx_child(t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  for (uint32_t c = skio_fbx_child(t, conns, "C", SKIO_FBX_NONE); conns != SKIO_FBX_NONE && c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, conns, "C", c)) {
    const uint32_t uv = uv_of(t, c, ids, mats, count);
    int64_t child;
    const uint32_t x = uv && skio_fbx_prop_i64(t, c, 1, &child) ? texture_of(t, objects, child) : SKIO_FBX_NONE;
    if (x == SKIO_FBX_NONE || add[x].n) continue; /* a texture shared by two slots: the first names it */
    if (!uvset_record(uv, &add[x].p[0])) return false;
    add[x].n = 1;
    attach(t, x, &add[x], ch);
  }
  return true;
}

int skio_fbx_fix_materials(const uint8_t* in, size_t n, const skio_fbx_material_fix* mats, uint32_t count,
                           uint8_t** out, size_t* out_n, skc_err* err) {
  if (!in || !out || !out_n || (count && !mats)) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(in, n, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  const size_t slots = t.count ? t.count : 1;
  skio_fbx_change* ch = calloc(slots, sizeof *ch);
  skio_fbx_props* names = calloc(slots, sizeof *names);
  additions* add = calloc(slots, sizeof *add);
  int64_t* ids = calloc(count + 1, sizeof *ids);
  uint32_t* props70 = calloc(count + 1, sizeof *props70);
  uint32_t* recs = calloc(count + 1, sizeof *recs);
  bool other_uv = false, ok = ch && names && add && ids && props70 && recs;
  if (ok && objects != SKIO_FBX_NONE) {
    material_ids(&t, objects, mats, count, ids, props70, recs);
    for (uint32_t k = 0; ok && k < count; ++k) {
      other_uv |= mats[k].uv[0] || mats[k].uv[1] || mats[k].uv[2];
      if (recs[k] == SKIO_FBX_NONE) continue;
      ok = material_records(&t, props70[k], &mats[k], &add[recs[k]]);
      if (add[recs[k]].n) attach(&t, recs[k], &add[recs[k]], ch);
    }
    if (ok && other_uv)
      ok = name_layers(&t, objects, ch, names) && set_textures(&t, objects, ids, mats, count, ch, add);
  }
  rc = ok ? skio_fbx_tree_write(&t, ch, out, out_n, err) : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (size_t r = 0; names && add && r < slots; ++r) {
    free(names[r].p);
    for (uint32_t i = 0; i < add[r].n; ++i) free(add[r].p[i].props);
  }
  free(ch);
  free(names);
  free(add);
  free(ids);
  free(props70);
  free(recs);
  skio_fbx_tree_free(&t);
  return rc;
}
