/* fbx_edit.c - new skin weights written into the source FBX's clusters, the rest of the file kept (skio_fbx_edit.h).
 *
 * Steps: parse the record tree -> index Objects by id and Connections ("OO": child -> parent) -> the "Mesh"
 * geometries (with their "Skin" Deformer child, if any) with their control points, polygon corners and per-polygon
 * materials -> the corner lists Assimp made meshes of -> each edited mesh matched to one of them by its positions (a
 * mesh the reader placed only to a geometry without a skin) -> per control point the row of its first corner ->
 * joint -> Model (through the clusters' links, else a Model of that name) -> per drawn geometry: a Skin when it had
 * none, each cluster's new Indexes / Weights, new clusters -> the tree written back. */
#include "skio_fbx_edit.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_math.h"
#include "skio_fbx_tree.h"

#define NONE SKIO_FBX_NONE

typedef struct obj {
  int64_t id;
  uint32_t rec;
} obj;

typedef struct link {
  int64_t child, parent;
} link;

typedef struct geom {
  uint32_t rec, skin;
  int64_t id, skin_id;
  double* cp;            /* 3 * ncp */
  size_t ncp;
  int32_t* pvi;
  size_t npvi;
  uint32_t* corner_cp;   /* npvi: control point of each corner (NONE: out of range) */
  uint32_t slots;        /* corner lists Assimp makes meshes of */
  uint32_t* slot_start;  /* slots + 1 */
  uint32_t* slot_corner; /* corners, slot after slot */
  bool deflate;          /* the file compresses its arrays */
  const float* place;    /* a geometry without a skin: the placement of the mesh matched to it (skio_fbx_mesh_edit) */
  bool has_geo;          /* its Model has a geometric transform geo (fbx_geometric.c) */
  double geo[16];
  bool matched;          /* some edited mesh is drawn from it */
  uint32_t* row_mesh;    /* ncp: mesh whose vertex gives the control point's weights (NONE: not drawn) */
  uint32_t* row_vertex;
  uint32_t* jstart;      /* joint_count + 1: per joint, its non-zero weights in the rows, by control point */
  uint32_t* jcp;
  float* jw;
} geom;

typedef struct entry {
  uint32_t cp, order; /* control point (NONE: an index outside the geometry), place in the file or the row */
  int32_t idx;        /* the index as the file has it */
  double w;
} entry;

typedef struct fx {
  skio_fbx_tree t;
  uint32_t objects, connections, definitions;
  obj* objs;
  size_t nobj;
  link* by_parent; /* Connections "OO" sorted by parent */
  link* by_child;  /* ... by child */
  size_t nlink;
  geom* geoms;
  uint32_t ngeom;
  const skio_fbx_mesh_edit* meshes;
  uint32_t mesh_count;
  uint32_t *mesh_geom, *mesh_slot;
  const char* const* names;
  const float* binds; /* the scene's joint bind matrices (16 floats each) or NULL */
  uint32_t joint_count;
  bool any_skin;      /* the file has some Skin */
  int64_t* joint_model;
  uint8_t* joint_state; /* 0 no Model, 1 one, 2 several */
  skio_fbx_change* ch;
  skio_fbx_new *new_objs, *new_links;
  uint32_t n_new_objs, n_new_links, cap_new_objs, cap_new_links;
  void** owned;
  size_t nowned, cap_owned;
  bool oom;
  int64_t next_id;
  struct pose_add { int64_t model; skio_fbx_props matrix; } * poses; /* bind pose nodes the new objects need */
  uint32_t n_poses, cap_poses;
  skio_fbx_edit_report rep;
  char* why;
  size_t why_size;
  skc_err* err;
} fx;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int cannot(fx* f, const char* fmt, ...) {
  if (f->why && f->why_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, f->why_size, fmt, ap);
    va_end(ap);
  }
  return SKIO_FBX_EDIT_CANNOT;
}

/* Frees p with the editor; NULL passes through (the caller checks its own allocations). */
static void* keep(fx* f, void* p) {
  if (!p) return NULL;
  if (f->nowned == f->cap_owned) {
    size_t cap = f->cap_owned ? 2 * f->cap_owned : 64;
    void** o = realloc(f->owned, cap * sizeof *o);
    if (!o) {
      free(p);
      f->oom = true;
      return NULL;
    }
    f->owned = o;
    f->cap_owned = cap;
  }
  return f->owned[f->nowned++] = p;
}

/* ---- objects and connections ------------------------------------------------------------------------------ */

static int cmp_obj(const void* a, const void* b) {
  const obj *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_parent(const void* a, const void* b) {
  const link *x = a, *y = b;
  return x->parent < y->parent ? -1 : x->parent > y->parent;
}

static int cmp_child(const void* a, const void* b) {
  const link *x = a, *y = b;
  return x->child < y->child ? -1 : x->child > y->child;
}

static uint32_t count_kids(const skio_fbx_tree* t, uint32_t r) {
  uint32_t n = 0;
  for (uint32_t k = t->recs[r].first; k != NONE; k = t->recs[k].next) ++n;
  return n;
}

static int index_objects(fx* f) {
  const skio_fbx_tree* t = &f->t;
  f->objs = keep(f, malloc(((size_t)count_kids(t, f->objects) + 1) * sizeof *f->objs));
  if (!f->objs) return SKC_OUT_OF_MEMORY;
  int64_t top = 0;
  for (uint32_t k = t->recs[f->objects].first; k != NONE; k = t->recs[k].next) {
    int64_t id;
    if (!skio_fbx_prop_i64(t, k, 0, &id)) continue;
    f->objs[f->nobj++] = (obj){id, k};
    if (id > top) top = id;
  }
  qsort(f->objs, f->nobj, sizeof *f->objs, cmp_obj);
  f->next_id = top < INT64_MAX ? top + 1 : 0;
  return SKC_OK;
}

static int read_links(fx* f) {
  const skio_fbx_tree* t = &f->t;
  size_t n = f->connections == NONE ? 0 : count_kids(t, f->connections);
  f->by_parent = keep(f, malloc((n + 1) * sizeof *f->by_parent));
  f->by_child = keep(f, malloc((n + 1) * sizeof *f->by_child));
  if (!f->by_parent || !f->by_child) return SKC_OUT_OF_MEMORY;
  for (uint32_t k = n ? t->recs[f->connections].first : NONE; k != NONE; k = t->recs[k].next) {
    link l;
    if (skio_fbx_is(t, k, "C") && skio_fbx_prop_str_is(t, k, 0, "OO") && skio_fbx_prop_i64(t, k, 1, &l.child) &&
        skio_fbx_prop_i64(t, k, 2, &l.parent))
      f->by_parent[f->nlink++] = l;
  }
  memcpy(f->by_child, f->by_parent, f->nlink * sizeof *f->by_child);
  qsort(f->by_parent, f->nlink, sizeof *f->by_parent, cmp_parent);
  qsort(f->by_child, f->nlink, sizeof *f->by_child, cmp_child);
  return SKC_OK;
}

static uint32_t find_obj(const fx* f, int64_t id) {
  size_t lo = 0, hi = f->nobj;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->objs[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < f->nobj && f->objs[lo].id == id ? f->objs[lo].rec : NONE;
}

/* First index of links (sorted by the key get() reads) whose key is id. */
static size_t first_link(const link* l, size_t n, int64_t id, bool parent) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((parent ? l[mid].parent : l[mid].child) < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The k-th object (after `after` matches skipped) connected as a child of parent_id, of record name and class (NULL:
 * any). NONE when no more. */
static uint32_t child_obj(const fx* f, int64_t parent_id, const char* name, const char* cls, uint32_t nth,
                          int64_t* id) {
  for (size_t i = first_link(f->by_parent, f->nlink, parent_id, true);
       i < f->nlink && f->by_parent[i].parent == parent_id; ++i) {
    uint32_t r = find_obj(f, f->by_parent[i].child);
    if (r == NONE || !skio_fbx_is(&f->t, r, name) || (cls && !skio_fbx_prop_str_is(&f->t, r, 2, cls))) continue;
    if (nth-- == 0) {
      if (id) *id = f->by_parent[i].child;
      return r;
    }
  }
  return NONE;
}

/* Whether an object of record name `name` that geometry/cluster `child_id` is connected to is called `want`. */
static bool parent_named(const fx* f, int64_t child_id, const char* name, const char* want) {
  size_t wl = strlen(want);
  for (size_t i = first_link(f->by_child, f->nlink, child_id, false);
       i < f->nlink && f->by_child[i].child == child_id; ++i) {
    uint32_t r = find_obj(f, f->by_child[i].parent);
    const uint8_t* s;
    size_t n;
    if (r != NONE && skio_fbx_is(&f->t, r, name) && skio_fbx_prop_name(&f->t, r, 1, &s, &n) && n == wl &&
        memcmp(s, want, n) == 0)
      return true;
  }
  return false;
}

/* ---- geometries ------------------------------------------------------------------------------------------- */

/* The geometric transform of the Model that draws geometry geom_id (skio_fbx_model_geometric): readers apply it on
 * top of the mesh's placement or its skin's mesh matrix. false when the Model has none. */
static bool geometric_of(const fx* f, int64_t geom_id, double g[16]) {
  for (size_t i = first_link(f->by_child, f->nlink, geom_id, false); i < f->nlink && f->by_child[i].child == geom_id;
       ++i) {
    uint32_t r = find_obj(f, f->by_child[i].parent);
    if (r != NONE && skio_fbx_is(&f->t, r, "Model")) return skio_fbx_model_geometric(&f->t, r, g);
  }
  return false;
}

/* Per polygon material as Assimp 5.2.5 reads LayerElementMaterial 0 (MeshGeometry::ReadVertexDataMaterials): AllSame
 * -> one for all; ByPolygon -> the array, padded with 0 or cut to the polygon count. *mats NULL: no materials. */
static int polygon_materials(fx* f, const geom* g, uint32_t polys, int32_t** mats) {
  const skio_fbx_tree* t = &f->t;
  *mats = NULL;
  uint32_t le = NONE;
  for (uint32_t k = skio_fbx_child(t, g->rec, "LayerElementMaterial", NONE); k != NONE;
       k = skio_fbx_child(t, g->rec, "LayerElementMaterial", k)) {
    int64_t idx;
    if (skio_fbx_prop_i64(t, k, 0, &idx) && idx == 0) {
      le = k;
      break;
    }
  }
  if (le == NONE || !polys) return SKC_OK;
  int32_t* raw;
  size_t n;
  int rc = skio_fbx_child_i32(t, le, "Materials", &raw, &n, f->err);
  if (rc) return rc;
  uint32_t mit = skio_fbx_child(t, le, "MappingInformationType", NONE);
  const bool same = mit != NONE && skio_fbx_prop_str_is(t, mit, 0, "AllSame");
  int32_t* m = n ? malloc((size_t)polys * sizeof *m) : NULL;
  if (n && !m) {
    free(raw);
    return SKC_OUT_OF_MEMORY;
  }
  for (uint32_t p = 0; m && p < polys; ++p) m[p] = same ? raw[0] : (p < n ? raw[p] : 0);
  free(raw);
  *mats = keep(f, m);
  return n && !*mats ? SKC_OUT_OF_MEMORY : SKC_OK;
}

/* Corner lists: one of every corner when every polygon has one material (or none), else one per material in order
 * of first use, each the corners of its polygons in polygon order (FBXConverter::ConvertMeshMultiMaterial). */
static int geom_slots(fx* f, geom* g) {
  g->corner_cp = keep(f, malloc((g->npvi + 1) * sizeof *g->corner_cp));
  uint32_t* poly_end = keep(f, malloc((g->npvi + 1) * sizeof *poly_end));
  if (!g->corner_cp || !poly_end) return SKC_OUT_OF_MEMORY;
  uint32_t polys = 0;
  for (size_t k = 0; k < g->npvi; ++k) {
    int64_t v = g->pvi[k] < 0 ? -(int64_t)g->pvi[k] - 1 : g->pvi[k];
    g->corner_cp[k] = (uint64_t)v < g->ncp ? (uint32_t)v : NONE;
    if (g->pvi[k] < 0) poly_end[polys++] = (uint32_t)k + 1;
  }
  int32_t* mats;
  int rc = polygon_materials(f, g, polys, &mats);
  if (rc) return rc;
  bool one = true;
  for (uint32_t p = 1; mats && p < polys; ++p) one &= mats[p] == mats[0];
  g->slot_start = keep(f, malloc(((size_t)polys + 2) * sizeof *g->slot_start));
  g->slot_corner = keep(f, malloc((g->npvi + 1) * sizeof *g->slot_corner));
  if (!g->slot_start || !g->slot_corner) return SKC_OUT_OF_MEMORY;
  g->slot_start[0] = 0;
  if (one || !mats) {
    for (size_t k = 0; k < g->npvi; ++k) g->slot_corner[k] = (uint32_t)k;
    g->slots = 1;
    g->slot_start[1] = (uint32_t)g->npvi;
    return SKC_OK;
  }
  uint8_t* done = keep(f, calloc(polys, 1));
  if (!done) return SKC_OUT_OF_MEMORY;
  uint32_t n = 0;
  for (uint32_t p = 0; p < polys; ++p) {
    if (done[p]) continue;
    for (uint32_t q = p; q < polys; ++q) {
      if (done[q] || mats[q] != mats[p]) continue;
      done[q] = 1;
      for (uint32_t k = q ? poly_end[q - 1] : 0; k < poly_end[q]; ++k) g->slot_corner[n++] = k;
    }
    g->slot_start[++g->slots] = n;
  }
  return SKC_OK;
}

static int load_geom(fx* f, uint32_t rec, int64_t id, uint32_t skin, int64_t skin_id) {
  geom* g = &f->geoms[f->ngeom];
  memset(g, 0, sizeof *g);
  g->rec = rec, g->id = id, g->skin = skin, g->skin_id = skin_id;
  size_t n;
  int rc = skio_fbx_child_f64(&f->t, rec, "Vertices", &g->cp, &n, f->err);
  keep(f, g->cp);
  if (!rc) rc = skio_fbx_child_i32(&f->t, rec, "PolygonVertexIndex", &g->pvi, &g->npvi, f->err);
  keep(f, g->pvi);
  if (rc) return rc;
  g->ncp = n / 3;
  skio_fbx_prop p;
  uint32_t pv = skio_fbx_child(&f->t, rec, "PolygonVertexIndex", NONE);
  g->deflate = pv != NONE && skio_fbx_prop_at(&f->t, pv, 0, &p) && p.encoding == 1;
  g->has_geo = geometric_of(f, id, g->geo);
  if ((rc = geom_slots(f, g))) return rc;
  f->ngeom++;
  return SKC_OK;
}

static int load_geoms(fx* f) {
  const skio_fbx_tree* t = &f->t;
  f->geoms = keep(f, calloc((size_t)count_kids(t, f->objects) + 1, sizeof *f->geoms));
  if (!f->geoms) return SKC_OUT_OF_MEMORY;
  for (uint32_t k = skio_fbx_child(t, f->objects, "Geometry", NONE); k != NONE;
       k = skio_fbx_child(t, f->objects, "Geometry", k)) {
    int64_t id, skin_id;
    if (!skio_fbx_prop_str_is(t, k, 2, "Mesh") || !skio_fbx_prop_i64(t, k, 0, &id)) continue;
    uint32_t skin = child_obj(f, id, "Deformer", "Skin", 0, &skin_id);
    if (skin == NONE) skin_id = 0;
    f->any_skin |= skin != NONE;
    if (child_obj(f, id, "Deformer", "Skin", 1, NULL) != NONE) return cannot(f, "a geometry has two skins");
    int rc = load_geom(f, k, id, skin, skin_id);
    if (rc) return rc;
  }
  return SKC_OK;
}

/* ---- meshes onto geometries ------------------------------------------------------------------------------- */

/* Whether slot s's control points, as floats moved by M (NULL: not moved), are mesh m's positions bit for bit. */
static bool same_points(const geom* g, uint32_t s, const skio_fbx_mesh_edit* m, const float* M) {
  for (size_t v = 0; v < m->vertex_count; ++v) {
    uint32_t c = g->corner_cp[g->slot_corner[g->slot_start[s] + v]];
    if (c == NONE) return false;
    float p[3] = {(float)g->cp[3 * (size_t)c], (float)g->cp[3 * (size_t)c + 1], (float)g->cp[3 * (size_t)c + 2]}, q[3];
    if (M) skc_mat4_transform_point(M, p, q);
    if (memcmp(M ? q : p, m->positions + 3 * v, sizeof p) != 0) return false;
  }
  return true;
}

/* A mesh with a placement matches only a geometry without a skin, one without only a skinned geometry; its corner
 * positions, as the reader made them (the control point as a float, placed as skio_mesh_place did, or a skinned
 * one moved by its Model's geometric transform), bit for bit. */
static bool slot_matches(const geom* g, uint32_t s, const skio_fbx_mesh_edit* m) {
  if ((g->skin == NONE) != (m->place != NULL) || g->slot_start[s + 1] - g->slot_start[s] != m->vertex_count)
    return false;
  bool moved = false; /* the reader leaves a mesh placed by the identity untouched */
  for (int e = 0; m->place && e < 16; ++e) moved |= m->place[e] != (e % 5 == 0 ? 1.0f : 0.0f);
  if (m->place) return same_points(g, s, m, moved ? m->place : NULL);
  float geo[16];
  skio_fbx_geometric_float(g->geo, geo);
  return same_points(g, s, m, NULL) || (g->has_geo && same_points(g, s, m, geo));
}

static int match_mesh(fx* f, uint32_t mi) {
  const skio_fbx_mesh_edit* m = &f->meshes[mi];
  uint32_t hits = 0, named = 0;
  for (uint32_t g = 0; g < f->ngeom; ++g)
    for (uint32_t s = 0; s < f->geoms[g].slots; ++s) {
      if (!slot_matches(&f->geoms[g], s, m)) continue;
      bool by_name = m->node_name && parent_named(f, f->geoms[g].id, "Model", m->node_name);
      if (hits++ == 0 || (by_name && !named)) f->mesh_geom[mi] = g, f->mesh_slot[mi] = s;
      named += by_name;
    }
  const char* name = m->node_name ? m->node_name : "(unnamed)";
  if (!hits) return cannot(f, "mesh of object \"%s\" (%zu vertices) matches no skinned geometry of the file", name,
                           m->vertex_count);
  if (hits > 1 && named != 1)
    return cannot(f, "mesh of object \"%s\" matches %u geometries of the file", name, hits);
  if (m->place) f->geoms[f->mesh_geom[mi]].place = m->place;
  return SKC_OK;
}

static bool same_row(const fx* f, uint32_t ma, size_t va, uint32_t mb, size_t vb) {
  const skio_fbx_mesh_edit *a = &f->meshes[ma], *b = &f->meshes[mb];
  uint32_t na = a->offsets[va + 1] - a->offsets[va], nb = b->offsets[vb + 1] - b->offsets[vb];
  return na == nb && !memcmp(a->joints + a->offsets[va], b->joints + b->offsets[vb], na * sizeof *a->joints) &&
         !memcmp(a->weights + a->offsets[va], b->weights + b->offsets[vb], na * sizeof *a->weights);
}

/* Per control point the row of its first corner (slot order, then the meshes' order). */
static int choose_rows(fx* f, geom* g, uint32_t gi) {
  g->row_mesh = keep(f, malloc((g->ncp + 1) * sizeof *g->row_mesh));
  g->row_vertex = keep(f, malloc((g->ncp + 1) * sizeof *g->row_vertex));
  if (!g->row_mesh || !g->row_vertex) return SKC_OUT_OF_MEMORY;
  for (size_t c = 0; c < g->ncp; ++c) g->row_mesh[c] = NONE;
  uint8_t* split = keep(f, calloc(g->ncp + 1, 1));
  if (!split) return SKC_OUT_OF_MEMORY;
  bool any = false;
  for (uint32_t s = 0; s < g->slots; ++s)
    for (uint32_t mi = 0; mi < f->mesh_count; ++mi) {
      if (f->mesh_geom[mi] != gi || f->mesh_slot[mi] != s) continue;
      any = true;
      for (size_t v = 0; v < f->meshes[mi].vertex_count; ++v) {
        uint32_t c = g->corner_cp[g->slot_corner[g->slot_start[s] + v]];
        if (g->row_mesh[c] == NONE) {
          g->row_mesh[c] = mi, g->row_vertex[c] = (uint32_t)v;
        } else if (!split[c] && !same_row(f, g->row_mesh[c], g->row_vertex[c], mi, v)) {
          split[c] = 1;
          f->rep.split_points++;
        }
      }
    }
  g->matched = any;
  f->rep.geometries += any;
  return SKC_OK;
}

/* ---- joints onto Models ----------------------------------------------------------------------------------- */

static void name_model(fx* f, const uint8_t* s, size_t n, int64_t id) {
  for (uint32_t j = 0; j < f->joint_count; ++j) {
    if (!f->names[j] || strlen(f->names[j]) != n || memcmp(f->names[j], s, n) != 0) continue;
    if (f->joint_state[j] == 0)
      f->joint_model[j] = id, f->joint_state[j] = 1;
    else if (f->joint_model[j] != id)
      f->joint_state[j] = 2;
  }
}

/* The Model a cluster deforms by (its LimbNode, or any Model); NONE when it has none. */
static uint32_t cluster_model(const fx* f, int64_t cluster_id, int64_t* model_id) {
  return child_obj(f, cluster_id, "Model", NULL, 0, model_id);
}

static int map_joints(fx* f) {
  f->joint_model = keep(f, calloc((size_t)f->joint_count + 1, sizeof *f->joint_model));
  f->joint_state = keep(f, calloc((size_t)f->joint_count + 1, 1));
  if (!f->joint_model || !f->joint_state) return SKC_OUT_OF_MEMORY;
  const skio_fbx_tree* t = &f->t;
  for (size_t i = 0; i < f->nobj; ++i) { /* the bones clusters name first: they are the skin's joints */
    uint32_t r = f->objs[i].rec, mr;
    int64_t mid;
    const uint8_t* s;
    size_t n;
    if (!skio_fbx_is(t, r, "Deformer") || !skio_fbx_prop_str_is(t, r, 2, "Cluster")) continue;
    if ((mr = cluster_model(f, f->objs[i].id, &mid)) != NONE && skio_fbx_prop_name(t, mr, 1, &s, &n))
      name_model(f, s, n, mid);
  }
  for (size_t i = 0; i < f->nobj; ++i) { /* then any Model of a joint's name */
    uint32_t r = f->objs[i].rec;
    const uint8_t* s;
    size_t n;
    if (!skio_fbx_is(t, r, "Model") || !skio_fbx_prop_name(t, r, 1, &s, &n)) continue;
    for (uint32_t j = 0; j < f->joint_count; ++j)
      if (f->joint_state[j] == 1 && f->joint_model[j] != f->objs[i].id && f->names[j] &&
          strlen(f->names[j]) == n && memcmp(f->names[j], s, n) == 0)
        f->joint_state[j] = 2;
    name_model(f, s, n, f->objs[i].id);
  }
  return SKC_OK;
}

static int32_t joint_of_model(const fx* f, int64_t model) {
  for (uint32_t j = 0; j < f->joint_count; ++j)
    if (f->joint_state[j] == 1 && f->joint_model[j] == model) return (int32_t)j;
  return -1;
}

/* ---- cluster contents ------------------------------------------------------------------------------------- */

static int cmp_entry(const void* a, const void* b) {
  const entry *x = a, *y = b;
  if (x->cp != y->cp) return x->cp < y->cp ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* A cluster's Indexes / Weights as entries sorted by control point (file order among equal ones). */
static int old_entries(fx* f, uint32_t cl, entry** out, size_t* n) {
  int32_t* idx;
  double* w;
  size_t ni, nw;
  *out = NULL;
  *n = 0;
  int rc = skio_fbx_child_i32(&f->t, cl, "Indexes", &idx, &ni, f->err);
  if (!rc) rc = skio_fbx_child_f64(&f->t, cl, "Weights", &w, &nw, f->err);
  else w = NULL;
  if (!rc && ni != nw) rc = cannot(f, "a cluster has %zu indexes and %zu weights", ni, nw);
  entry* e = !rc && ni ? malloc(ni * sizeof *e) : NULL;
  if (!rc && ni && !e) rc = SKC_OUT_OF_MEMORY;
  for (size_t i = 0; e && i < ni; ++i) e[i] = (entry){idx[i] < 0 ? NONE : (uint32_t)idx[i], (uint32_t)i, idx[i], w[i]};
  free(idx);
  free(w);
  if (rc) {
    free(e);
    return rc;
  }
  bool sorted = true; /* as writers write them: then the sort (and its time on big clusters) is not needed */
  for (size_t i = 1; e && i < ni && sorted; ++i) sorted = e[i - 1].cp <= e[i].cp;
  if (e && !sorted) qsort(e, ni, sizeof *e, cmp_entry);
  *out = keep(f, e);
  *n = ni;
  return ni && !*out ? SKC_OUT_OF_MEMORY : SKC_OK;
}

static bool covered(const geom* g, uint32_t cp) {
  return cp < g->ncp && g->row_mesh[cp] != NONE;
}

/* Per joint, its non-zero weights in g's rows, by control point (a counting pass, then a fill in control point order). */
static int joint_lists(fx* f, geom* g) {
  const uint32_t nj = f->joint_count;
  g->jstart = keep(f, calloc((size_t)nj + 2, sizeof *g->jstart));
  if (!g->jstart) return SKC_OUT_OF_MEMORY;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t c = 0; c < g->ncp; ++c) {
      if (g->row_mesh[c] == NONE) continue;
      const skio_fbx_mesh_edit* m = &f->meshes[g->row_mesh[c]];
      for (uint32_t q = m->offsets[g->row_vertex[c]]; q < m->offsets[g->row_vertex[c] + 1]; ++q) {
        if (m->weights[q] == 0.0f) continue;
        if (!pass) {
          g->jstart[m->joints[q] + 2]++;
          continue;
        }
        uint32_t at = g->jstart[m->joints[q] + 1]++;
        g->jcp[at] = (uint32_t)c, g->jw[at] = m->weights[q];
      }
    }
    if (pass) break;
    for (uint32_t j = 0; j < nj; ++j) g->jstart[j + 2] += g->jstart[j + 1];
    g->jcp = keep(f, malloc(((size_t)g->jstart[nj + 1] + 1) * sizeof *g->jcp));
    g->jw = keep(f, malloc(((size_t)g->jstart[nj + 1] + 1) * sizeof *g->jw));
    if (!g->jcp || !g->jw) return SKC_OUT_OF_MEMORY;
  }
  return SKC_OK; /* jstart[j] .. jstart[j + 1] now holds joint j */
}

/* New entries of joint j (or of the cluster's uncovered control points only, j < 0): the old entries of control
 * points no mesh draws merged with the joint's weights in the rows, by control point (both lists are sorted). */
static int new_entries(fx* f, const geom* g, int32_t j, const entry* old, size_t nold, entry** out, size_t* n) {
  const uint32_t b = j >= 0 ? g->jstart[j] : 0, e_ = j >= 0 ? g->jstart[j + 1] : 0;
  entry* e = keep(f, malloc((nold + (e_ - b) + 1) * sizeof *e));
  if (!e) return SKC_OUT_OF_MEMORY;
  size_t k = 0, i = 0;
  for (uint32_t q = b; q < e_; ++q) {
    const uint32_t cp = g->jcp[q];
    for (; i < nold && old[i].cp < cp; ++i)
      if (!covered(g, old[i].cp)) e[k++] = old[i];
    double w = g->jw[q]; /* the file's double when it is this weight as a float */
    for (size_t t = i; t < nold && old[t].cp == cp; ++t)
      if ((float)old[t].w == g->jw[q]) {
        w = old[t].w;
        break;
      }
    e[k] = (entry){cp, (uint32_t)(nold + k), (int32_t)cp, w}, ++k;
  }
  for (; i < nold; ++i) /* the rest, NONE (an index outside the geometry) last */
    if (!covered(g, old[i].cp)) e[k++] = old[i];
  *out = e;
  *n = k;
  return SKC_OK;
}

static bool same_entries(const entry* a, size_t na, const entry* b, size_t nb) {
  if (na != nb) return false;
  for (size_t i = 0; i < na; ++i)
    if (a[i].cp != b[i].cp || (float)a[i].w != (float)b[i].w) return false;
  return true;
}

/* Indexes and Weights records (new property bytes) for entries. */
static int entry_props(fx* f, const entry* e, size_t n, bool deflate, skio_fbx_props* pi, skio_fbx_props* pw) {
  int32_t* idx = malloc((n + 1) * sizeof *idx);
  double* w = malloc((n + 1) * sizeof *w);
  if (idx && w)
    for (size_t i = 0; i < n; ++i) idx[i] = e[i].idx, w[i] = e[i].w;
  memset(pi, 0, sizeof *pi);
  memset(pw, 0, sizeof *pw);
  if (idx && w) {
    skio_fbx_put_i32_array(pi, idx, n, deflate);
    skio_fbx_put_f64_array(pw, w, n, deflate);
  }
  bool ok = idx && w && !pi->oom && !pw->oom;
  free(idx);
  free(w);
  if (!ok) {
    free(pi->p);
    free(pw->p);
    return SKC_OUT_OF_MEMORY;
  }
  keep(f, pi->p);
  keep(f, pw->p);
  return f->oom ? SKC_OUT_OF_MEMORY : SKC_OK;
}

static skio_fbx_new* push_new(fx* f, skio_fbx_new** arr, uint32_t* n, uint32_t* cap) {
  if (*n == *cap) {
    uint32_t c = *cap ? *cap * 2 : 16;
    skio_fbx_new* a = realloc(*arr, (size_t)c * sizeof *a);
    if (!a) {
      f->oom = true;
      return NULL;
    }
    *arr = a;
    *cap = c;
  }
  skio_fbx_new* r = &(*arr)[(*n)++];
  memset(r, 0, sizeof *r);
  return r;
}

/* Rewrites an existing cluster's Indexes / Weights (records replaced, removed, or added at its end). */
static int set_cluster(fx* f, uint32_t cl, const entry* e, size_t n, bool deflate) {
  const skio_fbx_tree* t = &f->t;
  uint32_t ri = skio_fbx_child(t, cl, "Indexes", NONE), rw = skio_fbx_child(t, cl, "Weights", NONE);
  skio_fbx_prop p;
  if (ri != NONE && skio_fbx_prop_at(t, ri, 0, &p)) deflate = p.encoding == 1;
  if (!n) {
    if (ri != NONE) f->ch[ri].drop = true;
    if (rw != NONE) f->ch[rw].drop = true;
    f->rep.emptied++;
    return SKC_OK;
  }
  skio_fbx_props pi, pw;
  int rc = entry_props(f, e, n, deflate, &pi, &pw);
  if (rc) return rc;
  f->rep.rewritten++;
  if (ri != NONE && rw != NONE) {
    f->ch[ri] = (skio_fbx_change){pi.p, pi.n, pi.count, false, NULL, 0};
    f->ch[rw] = (skio_fbx_change){pw.p, pw.n, pw.count, false, NULL, 0};
    return SKC_OK;
  }
  if (ri != NONE) f->ch[ri].drop = true;
  if (rw != NONE) f->ch[rw].drop = true;
  skio_fbx_new* kids = keep(f, calloc(2, sizeof *kids));
  if (!kids) return SKC_OUT_OF_MEMORY;
  kids[0] = (skio_fbx_new){"Indexes", pi.p, pi.n, pi.count, NULL, 0};
  kids[1] = (skio_fbx_new){"Weights", pw.p, pw.n, pw.count, NULL, 0};
  f->ch[cl].add = kids;
  f->ch[cl].add_count = 2;
  return SKC_OK;
}

/* Property bytes of record name under object rec (a Transform, a Matrix), NONE-safe; false when missing. */
static bool record_props(const fx* f, uint32_t rec, const char* name, skio_fbx_props* out) {
  uint32_t r = rec == NONE ? NONE : skio_fbx_child(&f->t, rec, name, NONE);
  if (r == NONE) return false;
  *out = (skio_fbx_props){(uint8_t*)(f->t.data + f->t.recs[r].props), f->t.recs[r].props_len,
                          f->t.recs[r].props_len, f->t.recs[r].prop_count, false};
  return true;
}

/* A joint's bind matrix in the file: TransformLink of a cluster of its Model, else its BindPose matrix. */
static bool bind_matrix(const fx* f, int64_t model, skio_fbx_props* out) {
  for (size_t i = first_link(f->by_child, f->nlink, model, false); i < f->nlink && f->by_child[i].child == model;
       ++i) {
    uint32_t r = find_obj(f, f->by_child[i].parent);
    if (r != NONE && skio_fbx_is(&f->t, r, "Deformer") && skio_fbx_prop_str_is(&f->t, r, 2, "Cluster") &&
        record_props(f, r, "TransformLink", out))
      return true;
  }
  for (uint32_t p = skio_fbx_child(&f->t, f->objects, "Pose", NONE); p != NONE;
       p = skio_fbx_child(&f->t, f->objects, "Pose", p))
    for (uint32_t n = skio_fbx_child(&f->t, p, "PoseNode", NONE); n != NONE; n = skio_fbx_child(&f->t, p, "PoseNode", n)) {
      uint32_t node = skio_fbx_child(&f->t, n, "Node", NONE);
      int64_t id;
      if (node != NONE && skio_fbx_prop_i64(&f->t, node, 0, &id) && id == model && record_props(f, n, "Matrix", out))
        return true;
    }
  return false;
}

/* ---- bind matrices of a new cluster -------------------------------------------------------------------------- */

/* FBX matrices: 16 doubles, column-major (translation in 12..14); products by skio_fbx_mat_mul. */

static bool mat_near(const double* a, const double* b) {
  double scale = 1.0;
  for (int e = 0; e < 16; ++e) scale = fmax(scale, fmax(fabs(a[e]), fabs(b[e])));
  for (int e = 0; e < 16; ++e)
    if (!(fabs(a[e] - b[e]) <= 1e-6 * scale)) return false;
  return true;
}

/* The 16 doubles of child `name` of rec (a Transform, a Matrix); false when missing or not 16 numbers. */
static bool matrix_of(fx* f, uint32_t rec, const char* name, double m[16]) {
  skio_fbx_prop p;
  uint32_t r = rec == NONE ? NONE : skio_fbx_child(&f->t, rec, name, NONE);
  double* v = NULL;
  skc_err e = {0};
  if (r == NONE || !skio_fbx_prop_at(&f->t, r, 0, &p) || p.count != 16 || skio_fbx_array_f64(&p, &v, &e)) return false;
  memcpy(m, v, 16 * sizeof *m);
  free(v);
  return true;
}

/* The mesh's bind matrix as the skin's clusters hold it, and how they hold it: the FBX SDK's writers put it in every
 * cluster's Transform (TransformLink^-1 * Transform is the offset), Blender's (and what Assimp 5.2.5 reads as the
 * offset) TransformLink^-1 * mesh in Transform. Told apart by two clusters of different bones, else by the mesh
 * Model's bind pose; false when neither says. */
static bool skin_mesh_matrix(fx* f, const geom* g, double mesh[16], bool* per_bone) {
  double t0[16], l0[16], m0[16], t[16], l[16], m[16];
  bool have = false, same_t = true, same_m = true, other = false;
  for (uint32_t k = 0;; ++k) {
    uint32_t cl = child_obj(f, g->skin_id, "Deformer", "Cluster", k, NULL);
    if (cl == NONE) break;
    if (!matrix_of(f, cl, "Transform", have ? t : t0) || !matrix_of(f, cl, "TransformLink", have ? l : l0)) continue;
    if (!have) {
      skio_fbx_mat_mul(l0, t0, m0);
      have = true;
      continue;
    }
    skio_fbx_mat_mul(l, t, m);
    other |= !mat_near(l, l0);
    same_t &= mat_near(t, t0);
    same_m &= mat_near(m, m0);
  }
  if (!have) return false;
  if (other && same_t != same_m) {
    *per_bone = same_m;
    memcpy(mesh, same_m ? m0 : t0, 16 * sizeof *mesh);
    return true;
  }
  int64_t model;
  double pose[16];
  for (size_t i = first_link(f->by_child, f->nlink, g->id, false); i < f->nlink && f->by_child[i].child == g->id; ++i) {
    model = f->by_child[i].parent;
    for (uint32_t p = skio_fbx_child(&f->t, f->objects, "Pose", NONE); p != NONE;
         p = skio_fbx_child(&f->t, f->objects, "Pose", p))
      for (uint32_t n = skio_fbx_child(&f->t, p, "PoseNode", NONE); n != NONE;
           n = skio_fbx_child(&f->t, p, "PoseNode", n)) {
        uint32_t node = skio_fbx_child(&f->t, n, "Node", NONE);
        int64_t id;
        if (node == NONE || !skio_fbx_prop_i64(&f->t, node, 0, &id) || id != model || !matrix_of(f, n, "Matrix", pose))
          continue;
        if (mat_near(pose, t0) != mat_near(pose, m0)) {
          *per_bone = mat_near(pose, m0);
          memcpy(mesh, pose, sizeof pose);
          return true;
        }
      }
  }
  return false;
}

/* Remembers that model's bind matrix belongs in the file's bind pose (added at the end when it is not there). */
static int want_pose(fx* f, int64_t model, const skio_fbx_props* matrix) {
  if (f->n_poses == f->cap_poses) {
    uint32_t cap = f->cap_poses ? 2 * f->cap_poses : 8;
    struct pose_add* a = realloc(f->poses, (size_t)cap * sizeof *a);
    if (!a) return SKC_OUT_OF_MEMORY;
    f->poses = a, f->cap_poses = cap;
  }
  f->poses[f->n_poses++] = (struct pose_add){model, *matrix};
  return SKC_OK;
}

static int add_link(fx* f, int64_t child, int64_t parent) {
  skio_fbx_new* r = push_new(f, &f->new_links, &f->n_new_links, &f->cap_new_links);
  skio_fbx_props p = {0};
  skio_fbx_put_str(&p, "OO", 2);
  skio_fbx_put_i64(&p, child);
  skio_fbx_put_i64(&p, parent);
  if (!r || p.oom || !keep(f, p.p)) return SKC_OUT_OF_MEMORY;
  *r = (skio_fbx_new){"C", p.p, p.n, p.count, NULL, 0};
  return SKC_OK;
}

/* The 16 doubles of one property list holding a 'd' array (a TransformLink's, a Matrix's); false otherwise. */
static bool props_matrix(const skio_fbx_props* b, double m[16]) {
  skio_fbx_rec rec = {.props = 0, .props_len = b->n, .prop_count = b->count};
  skio_fbx_tree one = {.data = b->p, .size = b->n, .recs = &rec, .count = 1};
  skio_fbx_prop p;
  double* v = NULL;
  skc_err e = {0};
  if (!skio_fbx_prop_at(&one, 0, 0, &p) || p.count != 16 || skio_fbx_array_f64(&p, &v, &e)) return false;
  memcpy(m, v, 16 * sizeof *m);
  free(v);
  return true;
}

/* How the file's skins store the mesh's bind matrix (skin_mesh_matrix of the first skin that tells); Blender's
 * way, which Assimp 5.2.5 reads too, when none does. */
static bool file_per_bone(fx* f) {
  double mesh[16];
  bool per_bone;
  for (uint32_t g = 0; g < f->ngeom; ++g)
    if (f->geoms[g].skin != NONE && skin_mesh_matrix(f, &f->geoms[g], mesh, &per_bone)) return per_bone;
  return true;
}

/* A new skin's cluster whose TransformLink is tl: the mesh had no skin, so its bind matrix is where the reader
 * placed it (skio_mesh_place: its world matrix, for a mesh under no bone) without its Model's geometric transform,
 * which readers apply on top (P = place G^-1); Transform = tl^-1 P in Blender's way (what Assimp 5.2.5 reads as the
 * offset), P itself in the FBX SDK's. */
static int placed_transform(fx* f, const geom* g, const double tl[16], double t[16]) {
  double p[16], inv[16];
  for (int e = 0; e < 16; ++e) p[e] = g->place[e];
  if (g->has_geo) {
    if (!skio_fbx_mat_inverse(g->geo, inv)) return cannot(f, "a mesh's geometric transform is singular");
    double q[16];
    skio_fbx_mat_mul(p, inv, q);
    memcpy(p, q, sizeof q);
  }
  if (!file_per_bone(f)) {
    memcpy(t, p, sizeof p);
    return SKC_OK;
  }
  if (!skio_fbx_mat_inverse(tl, inv)) return cannot(f, "a bone's bind matrix is singular");
  skio_fbx_mat_mul(inv, p, t);
  return SKC_OK;
}

/* Transform of a new cluster whose TransformLink is tl: in the convention of g's skin (skin_mesh_matrix), or from
 * the mesh's placement for a new skin. */
static int new_transform(fx* f, const geom* g, const skio_fbx_props* tl, skio_fbx_props* out) {
  double mesh[16], bone[16], inv[16], t[16];
  bool per_bone = true;
  if (!props_matrix(tl, bone)) return cannot(f, "a bone's bind matrix is no 4x4 matrix");
  if (g->place) {
    int rc = placed_transform(f, g, bone, t);
    if (rc) return rc;
  } else if (!skin_mesh_matrix(f, g, mesh, &per_bone)) {
    return cannot(f, "the skin's clusters do not tell how it stores the mesh's bind matrix");
  } else if (per_bone) {
    if (!skio_fbx_mat_inverse(bone, inv)) return cannot(f, "a bone's bind matrix is singular");
    skio_fbx_mat_mul(inv, mesh, t);
  } else {
    memcpy(t, mesh, sizeof t);
  }
  memset(out, 0, sizeof *out);
  skio_fbx_put_f64_array(out, t, 16, 0);
  return out->oom || !keep(f, out->p) ? SKC_OUT_OF_MEMORY : SKC_OK;
}

/* TransformLink of joint j: the file's (another cluster of its Model, its bind pose), or the scene's bind matrix
 * when the file has no skin at all (its bind space is then the rest pose's world space, as the file's). */
static bool link_matrix(fx* f, uint32_t j, skio_fbx_props* out) {
  if (bind_matrix(f, f->joint_model[j], out)) return true;
  if (f->any_skin || !f->binds) return false;
  double m[16];
  for (int e = 0; e < 16; ++e) m[e] = f->binds[16 * (size_t)j + e];
  memset(out, 0, sizeof *out);
  skio_fbx_put_f64_array(out, m, 16, 0);
  return !out->oom && keep(f, out->p);
}

/* TransformAssociateModel for a new skin's cluster (no sibling to copy it from): a cluster of the same bone in
 * another skin, else any cluster of the file that has one - the armature's world matrix at bind, which Blender's
 * importer takes as the armature's place; without it Blender falls back to the armature's bind matrix made local to
 * its parent and misplaces the mesh by the parent's transform (a Crate 216 units off under a moved "Mover" empty,
 * the audit of session 44). */
static bool file_assoc(const fx* f, int64_t model, skio_fbx_props* out) {
  for (size_t i = first_link(f->by_child, f->nlink, model, false); i < f->nlink && f->by_child[i].child == model; ++i) {
    uint32_t r = find_obj(f, f->by_child[i].parent);
    if (r != NONE && skio_fbx_is(&f->t, r, "Deformer") && skio_fbx_prop_str_is(&f->t, r, 2, "Cluster") &&
        record_props(f, r, "TransformAssociateModel", out))
      return true;
  }
  for (size_t i = 0; i < f->nobj; ++i) {
    uint32_t r = f->objs[i].rec;
    if (skio_fbx_is(&f->t, r, "Deformer") && skio_fbx_prop_str_is(&f->t, r, 2, "Cluster") &&
        record_props(f, r, "TransformAssociateModel", out))
      return true;
  }
  return false;
}

/* A new cluster of joint j in geometry g's skin (`sibling`: one of its clusters, for TransformAssociateModel). */
static int add_cluster(fx* f, const geom* g, uint32_t j, uint32_t sibling, const entry* e, size_t n) {
  skio_fbx_props tr, tl, am = {0};
  if (f->joint_state[j] != 1)
    return cannot(f, "joint \"%s\" gained weight but %s FBX Model of that name", f->names[j] ? f->names[j] : "",
                  f->joint_state[j] ? "names more than one" : "there is no");
  if (!link_matrix(f, j, &tl))
    return cannot(f, "joint \"%s\" gained weight but the file holds no bind matrix for it", f->names[j]);
  int rc = new_transform(f, g, &tl, &tr);
  if (rc) return rc;
  const bool assoc = record_props(f, sibling, "TransformAssociateModel", &am) || file_assoc(f, f->joint_model[j], &am);
  if (!f->next_id) return cannot(f, "no object id left for a new cluster");
  const int64_t id = f->next_id++;
  skio_fbx_props head = {0}, ver = {0}, ud = {0}, pi, pw;
  char name[300];
  size_t len = strlen(f->names[j]); /* the joint's name, cut to fit before the class */
  if (len > sizeof name - 13) len = sizeof name - 13;
  memcpy(name, f->names[j], len);
  memcpy(name + len, "\0\1SubDeformer", 13);
  skio_fbx_put_i64(&head, id);
  skio_fbx_put_str(&head, name, len + 13);
  skio_fbx_put_str(&head, "Cluster", 7);
  skio_fbx_put_i32(&ver, 100);
  skio_fbx_put_str(&ud, "", 0);
  skio_fbx_put_str(&ud, "", 0);
  keep(f, head.p), keep(f, ver.p), keep(f, ud.p);
  rc = head.oom || ver.oom || ud.oom ? SKC_OUT_OF_MEMORY : entry_props(f, e, n, g->deflate, &pi, &pw);
  skio_fbx_new* kids = rc ? NULL : keep(f, calloc(7, sizeof *kids));
  skio_fbx_new* r = kids ? push_new(f, &f->new_objs, &f->n_new_objs, &f->cap_new_objs) : NULL;
  if (rc || !r) return rc ? rc : SKC_OUT_OF_MEMORY;
  kids[0] = (skio_fbx_new){"Version", ver.p, ver.n, ver.count, NULL, 0};
  kids[1] = (skio_fbx_new){"UserData", ud.p, ud.n, ud.count, NULL, 0};
  kids[2] = (skio_fbx_new){"Indexes", pi.p, pi.n, pi.count, NULL, 0};
  kids[3] = (skio_fbx_new){"Weights", pw.p, pw.n, pw.count, NULL, 0};
  kids[4] = (skio_fbx_new){"Transform", tr.p, tr.n, tr.count, NULL, 0};
  kids[5] = (skio_fbx_new){"TransformLink", tl.p, tl.n, tl.count, NULL, 0};
  if (assoc) kids[6] = (skio_fbx_new){"TransformAssociateModel", am.p, am.n, am.count, NULL, 0};
  *r = (skio_fbx_new){"Deformer", head.p, head.n, head.count, kids, assoc ? 7 : 6};
  f->rep.added++;
  if ((rc = add_link(f, id, g->skin_id)) || (rc = want_pose(f, f->joint_model[j], &tl))) return rc;
  return add_link(f, f->joint_model[j], id);
}

static int edit_existing(fx* f, const geom* g, uint32_t cl, int64_t cid, uint8_t* has) {
  int64_t model;
  int32_t j = cluster_model(f, cid, &model) != NONE ? joint_of_model(f, model) : -1;
  entry *old, *now;
  size_t nold, nnow;
  int rc = old_entries(f, cl, &old, &nold);
  if (!rc) rc = new_entries(f, g, j, old, nold, &now, &nnow);
  if (rc) return rc;
  if (j < 0) { /* a bone the skeleton does not know: only its control points no mesh draws can stay */
    if (nnow != nold) return cannot(f, "a cluster deforms by a bone that is no joint of the scene");
    f->rep.kept++;
    return SKC_OK;
  }
  has[j] = 1;
  if (same_entries(old, nold, now, nnow)) {
    f->rep.kept++;
    return SKC_OK;
  }
  return set_cluster(f, cl, now, nnow, g->deflate);
}

/* The bind pose of a mesh given a skin: its placement (where the reader put it), for each Model that holds it. */
static int mesh_pose(fx* f, const geom* g) {
  double p[16];
  for (int e = 0; e < 16; ++e) p[e] = g->place[e];
  skio_fbx_props m = {0};
  skio_fbx_put_f64_array(&m, p, 16, 0);
  if (m.oom || !keep(f, m.p)) return SKC_OUT_OF_MEMORY;
  for (size_t i = first_link(f->by_child, f->nlink, g->id, false); i < f->nlink && f->by_child[i].child == g->id;
       ++i) {
    uint32_t r = find_obj(f, f->by_child[i].parent);
    int rc = r != NONE && skio_fbx_is(&f->t, r, "Model") ? want_pose(f, f->by_child[i].parent, &m) : SKC_OK;
    if (rc) return rc;
  }
  return SKC_OK;
}

/* A Skin for geometry g (a mesh `bind` weighted that had none): Version 101, Link_DeformAcuracy 50 (what Blender's
 * and the FBX SDK's writers put), connected to the geometry. Not for a mesh parented to a bone: in FBX the bone
 * would move it and the skin deform it again. */
static int add_skin(fx* f, geom* g) {
  for (size_t i = first_link(f->by_child, f->nlink, g->id, false); i < f->nlink && f->by_child[i].child == g->id;
       ++i) {
    int64_t model = f->by_child[i].parent;
    for (size_t k = first_link(f->by_child, f->nlink, model, false); k < f->nlink && f->by_child[k].child == model;
         ++k) {
      uint32_t up = find_obj(f, f->by_child[k].parent);
      if (up != NONE && skio_fbx_is(&f->t, up, "Model") && skio_fbx_prop_str_is(&f->t, up, 2, "LimbNode"))
        return cannot(f, "a mesh parented to a bone cannot take a skin in place");
    }
  }
  if (!f->next_id) return cannot(f, "no object id left for a new skin");
  const int64_t id = f->next_id++;
  skio_fbx_props head = {0}, ver = {0}, acc = {0};
  skio_fbx_put_i64(&head, id);
  skio_fbx_put_str(&head, "Skin\0\1Deformer", 14);
  skio_fbx_put_str(&head, "Skin", 4);
  skio_fbx_put_i32(&ver, 101);
  static const uint8_t k_fifty[9] = {'D', 0, 0, 0, 0, 0, 0, 0x49, 0x40}; /* 50.0 as a double property */
  skio_fbx_put_raw(&acc, k_fifty, sizeof k_fifty, 1);
  keep(f, head.p), keep(f, ver.p), keep(f, acc.p);
  skio_fbx_new* kids = head.oom || ver.oom || acc.oom ? NULL : keep(f, calloc(2, sizeof *kids));
  skio_fbx_new* r = kids ? push_new(f, &f->new_objs, &f->n_new_objs, &f->cap_new_objs) : NULL;
  if (!r) return SKC_OUT_OF_MEMORY;
  kids[0] = (skio_fbx_new){"Version", ver.p, ver.n, ver.count, NULL, 0};
  kids[1] = (skio_fbx_new){"Link_DeformAcuracy", acc.p, acc.n, acc.count, NULL, 0};
  *r = (skio_fbx_new){"Deformer", head.p, head.n, head.count, kids, 2};
  g->skin_id = id;
  f->rep.skins_added++;
  int rc = mesh_pose(f, g);
  return rc ? rc : add_link(f, id, g->id);
}

static int edit_geom(fx* f, geom* g) {
  uint8_t* has = keep(f, calloc((size_t)f->joint_count + 1, 1));
  if (!has) return SKC_OUT_OF_MEMORY;
  int rc0 = joint_lists(f, g);
  if (rc0) return rc0;
  if (g->skin == NONE) {
    int rc = add_skin(f, g);
    if (rc) return rc;
  }
  uint32_t sibling = NONE;
  for (uint32_t k = 0;; ++k) {
    int64_t cid;
    uint32_t cl = child_obj(f, g->skin_id, "Deformer", "Cluster", k, &cid);
    if (cl == NONE) break;
    if (sibling == NONE) sibling = cl;
    int rc = edit_existing(f, g, cl, cid, has);
    if (rc) return rc;
  }
  for (uint32_t j = 0; j < f->joint_count; ++j) {
    if (has[j] || g->jstart[j + 1] == g->jstart[j]) continue; /* has a cluster, or no weight here */
    entry* e;
    size_t n;
    int rc = new_entries(f, g, (int32_t)j, NULL, 0, &e, &n);
    if (!rc) rc = add_cluster(f, g, j, sibling, e, n);
    if (rc) return rc;
  }
  return SKC_OK;
}

static int set_count(fx* f, uint32_t rec, int64_t add) {
  int64_t v;
  if (rec == NONE || !skio_fbx_prop_i64(&f->t, rec, 0, &v) || f->t.recs[rec].prop_count != 1) return SKC_OK;
  skio_fbx_props p = {0};
  skio_fbx_put_i32(&p, (int32_t)(v + add));
  if (p.oom || !keep(f, p.p)) return SKC_OUT_OF_MEMORY;
  f->ch[rec] = (skio_fbx_change){p.p, p.n, p.count, false, NULL, 0};
  return SKC_OK;
}

/* Definitions: the Deformer template's Count (a template added when the file had no deformer) and the total Count
 * grow by the deformers added. */
static int count_added(fx* f) {
  const skio_fbx_tree* t = &f->t;
  const uint32_t d = f->definitions, added = f->rep.added + f->rep.skins_added;
  if (!added || d == NONE) return SKC_OK;
  uint32_t deformer = NONE;
  for (uint32_t o = skio_fbx_child(t, d, "ObjectType", NONE); o != NONE; o = skio_fbx_child(t, d, "ObjectType", o))
    if (skio_fbx_prop_str_is(t, o, 0, "Deformer")) deformer = o;
  int rc = set_count(f, skio_fbx_child(t, d, "Count", NONE), added);
  if (rc || deformer != NONE) return rc ? rc : set_count(f, skio_fbx_child(t, deformer, "Count", NONE), added);
  skio_fbx_props type = {0}, count = {0};
  skio_fbx_put_str(&type, "Deformer", 8);
  skio_fbx_put_i32(&count, (int32_t)added);
  keep(f, type.p), keep(f, count.p);
  skio_fbx_new* kid = type.oom || count.oom ? NULL : keep(f, calloc(2, sizeof *kid));
  if (!kid) return SKC_OUT_OF_MEMORY;
  kid[0] = (skio_fbx_new){"Count", count.p, count.n, count.count, NULL, 0};
  kid[1] = (skio_fbx_new){"ObjectType", type.p, type.n, type.count, kid, 1};
  f->ch[d].add = &kid[1];
  f->ch[d].add_count = 1;
  return SKC_OK;
}

/* The first BindPose gets a PoseNode (Node, Matrix) for every model a new cluster or skin needs that it does not list
 * yet, and its NbPoseNodes grows (readers that take bind matrices from the pose - the FBX SDK's - then find them). A
 * file without a bind pose gets none (its readers use the clusters' matrices). */
static int extend_bind_pose(fx* f) {
  const skio_fbx_tree* t = &f->t;
  uint32_t pose = NONE;
  for (uint32_t p = skio_fbx_child(t, f->objects, "Pose", NONE); p != NONE && pose == NONE;
       p = skio_fbx_child(t, f->objects, "Pose", p))
    if (skio_fbx_prop_str_is(t, p, 2, "BindPose")) pose = p;
  if (pose == NONE || !f->n_poses) return SKC_OK;
  skio_fbx_new* kids = keep(f, calloc((size_t)f->n_poses * 3 + 1, sizeof *kids));
  if (!kids) return SKC_OUT_OF_MEMORY;
  uint32_t added = 0;
  for (uint32_t a = 0; a < f->n_poses; ++a) {
    bool listed = false;
    for (uint32_t n = skio_fbx_child(t, pose, "PoseNode", NONE); n != NONE && !listed;
         n = skio_fbx_child(t, pose, "PoseNode", n)) {
      uint32_t node = skio_fbx_child(t, n, "Node", NONE);
      int64_t id;
      listed = node != NONE && skio_fbx_prop_i64(t, node, 0, &id) && id == f->poses[a].model;
    }
    for (uint32_t b = 0; b < added && !listed; ++b) listed = f->poses[b].model == f->poses[a].model; /* one each */
    if (listed) continue;
    skio_fbx_props node = {0};
    skio_fbx_put_i64(&node, f->poses[a].model);
    if (node.oom || !keep(f, node.p)) return SKC_OUT_OF_MEMORY;
    skio_fbx_new* two = kids + f->n_poses + 2 * (size_t)added;
    two[0] = (skio_fbx_new){"Node", node.p, node.n, node.count, NULL, 0};
    two[1] = (skio_fbx_new){"Matrix", f->poses[a].matrix.p, f->poses[a].matrix.n, f->poses[a].matrix.count, NULL, 0};
    kids[added] = (skio_fbx_new){"PoseNode", NULL, 0, 0, two, 2};
    f->poses[added++] = f->poses[a];
  }
  if (!added) return SKC_OK;
  f->ch[pose].add = kids, f->ch[pose].add_count = added;
  return set_count(f, skio_fbx_child(t, pose, "NbPoseNodes", NONE), added);
}

/* ---- driver ----------------------------------------------------------------------------------------------- */

static int setup(fx* f) {
  const skio_fbx_tree* t = &f->t;
  f->objects = skio_fbx_child(t, NONE, "Objects", NONE);
  f->connections = skio_fbx_child(t, NONE, "Connections", NONE);
  f->definitions = skio_fbx_child(t, NONE, "Definitions", NONE);
  if (f->objects == NONE || f->connections == NONE) return cannot(f, "the file has no Objects or no Connections");
  f->ch = keep(f, calloc((size_t)t->count + 1, sizeof *f->ch));
  f->mesh_geom = keep(f, malloc(((size_t)f->mesh_count + 1) * sizeof *f->mesh_geom));
  f->mesh_slot = keep(f, malloc(((size_t)f->mesh_count + 1) * sizeof *f->mesh_slot));
  if (!f->ch || !f->mesh_geom || !f->mesh_slot) return SKC_OUT_OF_MEMORY;
  int rc = index_objects(f);
  if (!rc) rc = read_links(f);
  if (!rc) rc = load_geoms(f);
  if (!rc) rc = map_joints(f);
  return rc;
}

static int run(fx* f) {
  int rc = setup(f);
  for (uint32_t m = 0; !rc && m < f->mesh_count; ++m) rc = match_mesh(f, m);
  for (uint32_t g = 0; !rc && g < f->ngeom; ++g) rc = choose_rows(f, &f->geoms[g], g);
  for (uint32_t g = 0; !rc && g < f->ngeom; ++g)
    if (f->geoms[g].matched) rc = edit_geom(f, &f->geoms[g]);
  if (!rc) rc = count_added(f);
  if (!rc) rc = extend_bind_pose(f);
  if (!rc) {
    f->ch[f->objects].add = f->new_objs, f->ch[f->objects].add_count = f->n_new_objs;
    f->ch[f->connections].add = f->new_links, f->ch[f->connections].add_count = f->n_new_links;
  }
  return rc;
}

static int check_args(const skio_fbx_mesh_edit* meshes, uint32_t mesh_count, uint32_t joint_count, skc_err* err) {
  for (uint32_t m = 0; m < mesh_count; ++m) {
    const skio_fbx_mesh_edit* e = &meshes[m];
    if ((e->vertex_count && (!e->positions || !e->offsets)) || e->vertex_count >= UINT32_MAX ||
        (e->vertex_count && e->offsets[e->vertex_count] && (!e->joints || !e->weights)))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "FBX edit: mesh %u has no positions or offsets", m);
    for (size_t v = 0; v < e->vertex_count; ++v)
      if (e->offsets[v + 1] < e->offsets[v])
        return skc_fail(err, SKC_INVALID_ARGUMENT, "FBX edit: mesh %u has decreasing offsets", m);
    for (uint32_t q = 0; e->vertex_count && q < e->offsets[e->vertex_count]; ++q)
      if (e->joints[q] >= joint_count)
        return skc_fail(err, SKC_INVALID_ARGUMENT, "FBX edit: mesh %u names joint %u of %u", m, e->joints[q],
                        joint_count);
  }
  return SKC_OK;
}

int skio_fbx_edit(const uint8_t* src, size_t size, const skio_fbx_mesh_edit* meshes, uint32_t mesh_count,
                  const char* const* joint_names, const float* joint_binds, uint32_t joint_count, uint8_t** out,
                  size_t* out_n, skio_fbx_edit_report* report, char* why, size_t why_size, skc_err* err) {
  if (!src || !out || !out_n || (mesh_count && !meshes) || (joint_count && !joint_names))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "FBX edit: NULL argument");
  if (why && why_size) why[0] = 0;
  int rc = check_args(meshes, mesh_count, joint_count, err);
  if (rc) return rc;
  skc_err ferr = {0};
  fx f = {.meshes = meshes, .mesh_count = mesh_count, .names = joint_names, .binds = joint_binds,
          .joint_count = joint_count, .why = why, .why_size = why_size, .err = &ferr};
  if (skio_fbx_tree_parse(src, size, &f.t, &ferr)) {
    if (ferr.code == SKC_OUT_OF_MEMORY) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s", ferr.message);
    return cannot(&f, "%s", ferr.message);
  }
  rc = run(&f);
  if (rc == SKC_FORMAT) rc = cannot(&f, "%s", ferr.message);
  if (rc == SKC_OUT_OF_MEMORY || (rc == SKC_OK && f.oom)) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "FBX edit: out of memory");
  if (!rc) rc = skio_fbx_tree_write(&f.t, f.ch, out, out_n, err);
  if (!rc && report) *report = f.rep;
  for (size_t i = 0; i < f.nowned; ++i) free(f.owned[i]);
  free(f.owned);
  free(f.new_objs);
  free(f.new_links);
  free(f.poses);
  skio_fbx_tree_free(&f.t);
  return rc;
}
