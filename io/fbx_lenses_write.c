/* fbx_lenses_write.c - the scene's cameras and lights added to the binary FBX Assimp 5.2.5's writer wrote, which has
 * neither (skio_fbx_add_lenses).
 *
 * scene_export_objects.c gave each camera and light a node, which Assimp writes as a Model of class "Null", placed in
 * FBX's frame for its kind (a camera looks down +X with +Y up, a light down -Y with -Z up: what Assimp's and
 * Blender's FBX readers take). Here that Model's class becomes "Camera" or "Light" (Blender's importer turns the
 * axes by the class) and a NodeAttribute of that class, connected to it, holds the properties Blender's FBX exporter
 * writes and its importer and Assimp's read:
 *  - camera: FieldOfView / FieldOfViewX (horizontal, degrees) and FieldOfViewY, AspectWidth / AspectHeight (the aspect
 *    ratio; 1 when not given), FilmWidth (36 mm in inches) and FilmHeight by the aspect, FocalLength from the
 *    horizontal field of view (ApertureMode 3: focal length), NearPlane / FarPlane (file units; an infinite far plane
 *    at 1000 units), CameraProjectionType 1 and OrthoZoom (the view's width in metres, as Blender writes it) for an
 *    orthographic one;
 *  - light: LightType (0 point, 1 directional, 2 spot), Color, Intensity (Blender's W x 100: its importer and Assimp's
 *    divide by 100), CastLight, and for a spot OuterAngle / InnerAngle (full cone angles, degrees); a sun decays
 *    with no distance (DecayType 0).
 * New ids are above every id of the file; the Definitions' NodeAttribute count is raised (or its ObjectType added).
 * A lens whose Model is not found (or not a Null) is skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_buf.h"
#include "skio_collada.h"
#include "skio_fbx_tree.h"
#include "skio_scene.h"

#define RAD2DEG (180.0 / 3.14159265358979323846)

typedef struct lenses {
  skio_fbx_tree t;
  uint32_t objects, conns;
  int64_t next_id;
  void** kept; /* every buffer the change list points into, freed at the end */
  size_t nkept, capkept;
  skio_fbx_new *attrs, *links;
  uint32_t nattr, nlink;
  bool oom;
} lenses;

static void* keep(lenses* L, void* p) {
  if (!p) return L->oom = true, NULL;
  if (L->nkept == L->capkept) {
    size_t c = L->capkept ? L->capkept * 2 : 32;
    void** q = realloc(L->kept, c * sizeof *q);
    if (!q) {
      free(p);
      return L->oom = true, NULL;
    }
    L->kept = q;
    L->capkept = c;
  }
  return L->kept[L->nkept++] = p;
}

/* Property bytes b as a record `name` (no children): false when out of memory. */
static bool record(lenses* L, skio_fbx_new* r, const char* name, skio_fbx_props* b) {
  if (b->oom || !keep(L, b->p)) return L->oom = true, false;
  *r = (skio_fbx_new){name, b->p, b->n, b->count, NULL, 0};
  return true;
}

/* A Properties70 "P" record: name, type, label, flags, then n doubles (or one integer when integer). */
static bool p_rec(lenses* L, skio_fbx_new* r, const char* name, const char* type, const char* label, const char* flags,
                  const double* v, int n, bool integer) {
  skio_fbx_props b = {0};
  skio_fbx_put_str(&b, name, strlen(name));
  skio_fbx_put_str(&b, type, strlen(type));
  skio_fbx_put_str(&b, label, strlen(label));
  skio_fbx_put_str(&b, flags, strlen(flags));
  for (int k = 0; k < n; ++k) {
    if (integer)
      skio_fbx_put_i32(&b, (int32_t)v[k]);
    else
      skio_fbx_put_f64(&b, v[k]);
  }
  return record(L, r, "P", &b);
}

/* A camera's or light's property as a "P" record will hold it: name, type, label, flags and n values (integers). */
typedef struct pspec {
  const char *name, *type, *label, *flags;
  double v[3];
  int n;
  bool integer;
} pspec;

#define P_NUM(nm, value) (p[n++] = (pspec){nm, "double", "Number", "", {value}, 1, false})
#define P_ANIM(nm, ty, value) (p[n++] = (pspec){nm, ty, "", "A", {value}, 1, false})
#define P_ENUM(nm, value) (p[n++] = (pspec){nm, "enum", "", "", {value}, 1, true})

/* The properties of camera ob into p (room for 16); their count. unit_metres: the file's unit. */
static uint32_t camera_specs(const skio_object* ob, double unit_metres, pspec* p) {
  uint32_t n = 0;
  const double aspect = ob->aspect > 0.0f && isfinite(ob->aspect) ? ob->aspect : 1.0;
  const double yfov = ob->yfov > 0.0f && ob->yfov < 3.1f ? ob->yfov : 0.8;
  const double hfov = 2.0 * atan(tan(0.5 * yfov) * aspect);
  const double film = 36.0 / 25.4; /* inches */
  P_NUM("AspectWidth", aspect);
  P_NUM("AspectHeight", 1.0);
  P_NUM("FilmWidth", film);
  P_NUM("FilmHeight", film / aspect);
  P_NUM("FilmAspectRatio", aspect);
  P_ENUM("ApertureMode", 3);
  P_ANIM("FieldOfView", "FieldOfView", hfov * RAD2DEG);
  P_ANIM("FieldOfViewX", "FieldOfViewX", hfov * RAD2DEG);
  P_ANIM("FieldOfViewY", "FieldOfViewY", yfov * RAD2DEG);
  p[n++] = (pspec){"FocalLength", "double", "Number", "A", {18.0 / tan(0.5 * hfov)}, 1, false};
  P_NUM("NearPlane", ob->znear > 0.0f ? ob->znear : 0.01);
  P_NUM("FarPlane", ob->zfar > ob->znear ? ob->zfar : 1000.0);
  P_ENUM("CameraProjectionType", ob->ortho ? 1 : 0);
  if (ob->ortho) P_NUM("OrthoZoom", 2.0 * (double)ob->xmag * (unit_metres > 0.0 ? unit_metres : 1.0));
  return n;
}

/* The properties of light ob into p (room for 16): intensity in glTF's units (the listing's) back to Blender's W. */
static uint32_t light_specs(const skio_object* ob, pspec* p) {
  uint32_t n = 0;
  const double per = skio_light_gltf_intensity(&(skio_object){.light = ob->light, .intensity = 1.0f});
  const double watts = isfinite(ob->intensity) && ob->intensity > 0.0f ? ob->intensity / per : 0.0;
  const int type = ob->light == SKIO_LIGHT_DIRECTIONAL ? 1 : ob->light == SKIO_LIGHT_SPOT ? 2 : 0;
  P_ENUM("LightType", type);
  p[n++] = (pspec){"Color", "Color", "", "A", {ob->color[0], ob->color[1], ob->color[2]}, 3, false};
  p[n++] = (pspec){"Intensity", "Number", "", "A", {watts * 100.0}, 1, false};
  p[n++] = (pspec){"CastLight", "bool", "", "", {1}, 1, true};
  if (type == 1) P_ENUM("DecayType", 0);
  if (type == 2) {
    const double outer = ob->outer_cone > 0.0f ? ob->outer_cone : 0.7853982;
    const double inner = ob->inner_cone >= 0.0f && ob->inner_cone <= outer ? ob->inner_cone : 0.0;
    P_NUM("OuterAngle", 2.0 * outer * RAD2DEG);
    P_NUM("InnerAngle", 2.0 * inner * RAD2DEG);
  }
  return n;
}

static uint32_t lens_specs(const skio_object* ob, double unit_metres, pspec* p) {
  return ob->kind == SKIO_OBJECT_CAMERA ? camera_specs(ob, unit_metres, p) : light_specs(ob, p);
}

/* The P records of ob into p (room for 16); their count, 0 when out of memory. */
static uint32_t lens_props(lenses* L, const skio_object* ob, double unit_metres, skio_fbx_new* p) {
  pspec spec[16];
  const uint32_t n = lens_specs(ob, unit_metres, spec);
  for (uint32_t k = 0; k < n; ++k)
    if (!p_rec(L, &p[k], spec[k].name, spec[k].type, spec[k].label, spec[k].flags, spec[k].v, spec[k].n,
               spec[k].integer))
      return 0;
  return n;
}

/* The Model named `name` of class Null under Objects, or SKIO_FBX_NONE. */
static uint32_t null_model(const lenses* L, const char* name) {
  const size_t len = strlen(name);
  for (uint32_t r = skio_fbx_child(&L->t, L->objects, "Model", SKIO_FBX_NONE); r != SKIO_FBX_NONE;
       r = skio_fbx_child(&L->t, L->objects, "Model", r)) {
    const uint8_t* nm;
    size_t n;
    if (skio_fbx_prop_name(&L->t, r, 1, &nm, &n) && n == len && !memcmp(nm, name, n) &&
        skio_fbx_prop_str_is(&L->t, r, 2, "Null"))
      return r;
  }
  return SKIO_FBX_NONE;
}

/* The largest object id of the file, plus one; 0 when there is no room. */
static int64_t first_free_id(const skio_fbx_tree* t, uint32_t objects, uint32_t conns) {
  int64_t max = 0, v;
  for (uint32_t r = t->recs[objects].first; r != SKIO_FBX_NONE; r = t->recs[r].next)
    if (skio_fbx_prop_i64(t, r, 0, &v) && v > max) max = v;
  for (uint32_t c = skio_fbx_child(t, conns, "C", SKIO_FBX_NONE); c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, conns, "C", c))
    for (uint32_t k = 1; k < 3; ++k)
      if (skio_fbx_prop_i64(t, c, k, &v) && v > max) max = v;
  return max < INT64_MAX - 4096 ? max + 1 : 0;
}

/* Model m as class cls (its id and name kept) into ch[m]; its new NodeAttribute and connection appended. */
static void add_lens(lenses* L, uint32_t m, const skio_object* ob, double unit_metres, skio_fbx_change* ch) {
  const char* cls = ob->kind == SKIO_OBJECT_CAMERA ? "Camera" : "Light";
  int64_t model_id;
  const uint8_t* nm;
  size_t n;
  if (!skio_fbx_prop_i64(&L->t, m, 0, &model_id) || !skio_fbx_prop_name(&L->t, m, 1, &nm, &n) || n > 4096) return;
  skio_fbx_props mb = {0}, ab = {0}, cb = {0};
  skio_fbx_put_i64(&mb, model_id);
  char* full = keep(L, malloc(n + 32));
  if (!full) return;
  memcpy(full, nm, n);
  memcpy(full + n, "\0\1Model", 7);
  skio_fbx_put_str(&mb, full, n + 7);
  skio_fbx_put_str(&mb, cls, strlen(cls));
  if (mb.oom || !keep(L, mb.p)) return (void)(L->oom = true);
  ch[m].props = mb.p, ch[m].props_len = mb.n, ch[m].prop_count = mb.count;
  const int64_t id = L->next_id++;
  memcpy(full + n, "\0\1NodeAttribute", 15);
  skio_fbx_put_i64(&ab, id);
  skio_fbx_put_str(&ab, full, n + 15);
  skio_fbx_put_str(&ab, cls, strlen(cls));
  skio_fbx_new* p = keep(L, calloc(16, sizeof *p));
  skio_fbx_new* kids = keep(L, calloc(2, sizeof *kids));
  const uint32_t np = p ? lens_props(L, ob, unit_metres, p) : 0;
  skio_fbx_props tb = {0};
  skio_fbx_put_str(&tb, cls, strlen(cls));
  if (!kids || !np || !record(L, &kids[1], "TypeFlags", &tb)) return;
  kids[0] = (skio_fbx_new){"Properties70", NULL, 0, 0, p, np};
  skio_fbx_new* grown = realloc(L->attrs, ((size_t)L->nattr + 1) * sizeof *grown);
  if (!grown) return (void)(L->oom = true);
  L->attrs = grown;
  if (!record(L, &L->attrs[L->nattr], "NodeAttribute", &ab)) return;
  L->attrs[L->nattr].kids = kids, L->attrs[L->nattr++].kid_count = 2;
  skio_fbx_put_str(&cb, "OO", 2);
  skio_fbx_put_i64(&cb, id);
  skio_fbx_put_i64(&cb, model_id);
  skio_fbx_new* links = realloc(L->links, ((size_t)L->nlink + 1) * sizeof *links);
  if (!links) return (void)(L->oom = true);
  L->links = links;
  if (record(L, &L->links[L->nlink], "C", &cb)) ++L->nlink;
}

/* Definitions: the NodeAttribute ObjectType's Count and the total Count raised by k (the ObjectType added when the
 * file has none). */
static void raise_definitions(lenses* L, uint32_t k, skio_fbx_change* ch) {
  const skio_fbx_tree* t = &L->t;
  const uint32_t defs = skio_fbx_child(t, SKIO_FBX_NONE, "Definitions", SKIO_FBX_NONE);
  if (defs == SKIO_FBX_NONE) return;
  uint32_t own = SKIO_FBX_NONE;
  for (uint32_t o = skio_fbx_child(t, defs, "ObjectType", SKIO_FBX_NONE); o != SKIO_FBX_NONE && own == SKIO_FBX_NONE;
       o = skio_fbx_child(t, defs, "ObjectType", o))
    if (skio_fbx_prop_str_is(t, o, 0, "NodeAttribute")) own = skio_fbx_child(t, o, "Count", SKIO_FBX_NONE);
  const uint32_t counts[2] = {own, skio_fbx_child(t, defs, "Count", SKIO_FBX_NONE)};
  for (int i = 0; i < 2; ++i) {
    int64_t v;
    if (counts[i] == SKIO_FBX_NONE || t->recs[counts[i]].prop_count != 1 || !skio_fbx_prop_i64(t, counts[i], 0, &v))
      continue;
    skio_fbx_props b = {0};
    skio_fbx_put_i32(&b, (int32_t)(v > INT32_MAX - (int64_t)k ? INT32_MAX : v + k));
    if (b.oom || !keep(L, b.p)) return (void)(L->oom = true);
    ch[counts[i]] = (skio_fbx_change){b.p, b.n, b.count, false, NULL, 0};
  }
  if (own != SKIO_FBX_NONE) return;
  skio_fbx_props o = {0}, c = {0};
  skio_fbx_put_str(&o, "NodeAttribute", 13);
  skio_fbx_put_i32(&c, (int32_t)k);
  skio_fbx_new* type = keep(L, calloc(1, sizeof *type));
  skio_fbx_new* count = keep(L, calloc(1, sizeof *count));
  if (!type || !count || !record(L, count, "Count", &c) || !record(L, type, "ObjectType", &o)) return;
  type->kids = count, type->kid_count = 1;
  ch[defs].add = type, ch[defs].add_count = 1;
}

int skio_fbx_add_lenses(const uint8_t* in, size_t n, const skio_object* obs, uint32_t count, double unit_metres,
                        uint8_t** out, size_t* out_n, uint32_t* added, skc_err* err) {
  *out = NULL;
  *out_n = 0;
  if (added) *added = 0;
  lenses L = {0};
  int rc = skio_fbx_tree_parse(in, n, &L.t, err);
  if (rc) return rc;
  L.objects = skio_fbx_child(&L.t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  L.conns = skio_fbx_child(&L.t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  skio_fbx_change* ch = calloc(L.t.count ? L.t.count : 1, sizeof *ch);
  if (!ch) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding cameras and lights");
  const bool room = !rc && L.objects != SKIO_FBX_NONE && L.conns != SKIO_FBX_NONE &&
                    (L.next_id = first_free_id(&L.t, L.objects, L.conns)) > 0;
  for (uint32_t k = 0; room && k < count && !L.oom; ++k) {
    const uint32_t m = obs[k].kind == SKIO_OBJECT_EMPTY ? SKIO_FBX_NONE : null_model(&L, obs[k].name);
    if (m != SKIO_FBX_NONE && !ch[m].props) add_lens(&L, m, &obs[k], unit_metres, ch);
  }
  if (!rc && L.nattr) {
    raise_definitions(&L, L.nattr, ch);
    ch[L.objects].add = L.attrs, ch[L.objects].add_count = L.nattr;
    ch[L.conns].add = L.links, ch[L.conns].add_count = L.nlink;
  }
  if (!rc && L.oom) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding cameras and lights");
  if (!rc) rc = skio_fbx_tree_write(&L.t, ch, out, out_n, err);
  if (!rc && added) *added = L.nattr;
  for (size_t i = 0; i < L.nkept; ++i) free(L.kept[i]);
  free(L.kept);
  free(L.attrs);
  free(L.links);
  free(ch);
  skio_fbx_tree_free(&L.t);
  return rc;
}
