/* fbx_merge.c - one Mesh Model per source object in a binary FBX file Assimp 5.2.5 wrote.
 *
 * Assimp's aiMesh has one material, so an object of several materials reaches its FBX writer as several meshes and
 * comes out as several Mesh Models of one name under one parent, each with its own Geometry, Skin, clusters and
 * Material; Blender's FBX importer then shows objects "Leg" and "Leg.001" where the source has one object with two
 * material slots. Blender's own exporter writes one Model, one Geometry whose LayerElementMaterial maps a material
 * index to each polygon, and one Material connection per slot. This pass merges each group of Mesh Models with the
 * same name, parent and Properties70, one Geometry each, into the group's first Model (the parts in file order):
 *  - one Geometry (the first's record): Vertices and PolygonVertexIndex concatenated (indices offset by the earlier
 *    parts' control points), every normal / UV / color / tangent / binormal layer concatenated (index arrays offset
 *    by the earlier parts' elements); LayerElementMaterial ByPolygon, IndexToDirect, the polygons' indices into the
 *    merged Model's materials (the parts' in part order, each once);
 *  - one Skin (the first's), one Cluster per bone (Indexes offset and Weights concatenated; a bone of later parts
 *    only keeps its cluster, moved to the first Skin);
 *  - one BlendShape (the first's) when every part's Geometry has one (fbx_shapes_write.c gives each part of an
 *    object with shape keys the same channels and curves): one channel per shape, its Shape's Indexes offset like
 *    the polygons', one DeformPercent curve node per channel and clip (fbx_merge_shapes.c, which has the rules);
 *  - the other parts' Models, Geometries, Skins, merged clusters and blend shapes dropped with their connections,
 *    their PoseNodes and their share of the Definitions' counts (AnimationCurveNode and AnimationCurve too).
 * A group with anything the pass does not understand stays as it is: parts whose layers or mappings differ, a
 * bone's Transform / TransformLink / TransformAssociateModel that differ between parts, an array that disagrees with
 * its mapping, a later part any other object connects to (an animation curve node, a child, a NodeAttribute), a
 * part's Geometry with anything but one Skin and one BlendShape connected to it, a BlendShape in some parts only or
 * parts whose shapes or curves differ (names, order, keys: fbx_merge_shapes.c), an object shared with another Model,
 * more than MAX_PARTS parts. Work is bounded: each object belongs to one group. The types and helpers both files use
 * are in fbx_merge.h. */
#include "fbx_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"

#define MAX_PARTS 256u          /* Models a group */
#define MAX_GROUPS 65536u       /* groups a file */
#define MAX_MATERIALS 256u      /* material connections a group */
#define MAX_GEOMETRY_KIDS 1024u /* records in a Geometry */
#define MAX_LAYERS 64u          /* LayerElement records a Geometry */

/* ---- small helpers ---------------------------------------------------------------------------------------- */

static bool grow(void* pp, size_t* cap, size_t need, size_t elem) {
  void** p = pp;
  if (need <= *cap) return true;
  size_t c = *cap ? *cap : 8;
  while (c < need) c *= 2;
  void* q = realloc(*p, c * elem);
  if (!q) return false;
  *p = q;
  *cap = c;
  return true;
}

static const uint8_t* rec_name(const skio_fbx_tree* t, uint32_t r, size_t* n) {
  *n = t->recs[r].name_len;
  return t->data + t->recs[r].at + t->hdr;
}

static bool name_is(const skio_fbx_tree* t, uint32_t r, const char* s) { return skio_fbx_is(t, r, s); }

static bool same_name(const skio_fbx_tree* t, uint32_t a, uint32_t b) {
  size_t na, nb;
  const uint8_t *x = rec_name(t, a, &na), *y = rec_name(t, b, &nb);
  return na == nb && memcmp(x, y, na) == 0;
}

static bool same_props(const skio_fbx_tree* t, uint32_t a, uint32_t b) {
  const skio_fbx_rec *x = &t->recs[a], *y = &t->recs[b];
  return x->prop_count == y->prop_count && x->props_len == y->props_len &&
         memcmp(t->data + x->props, t->data + y->props, x->props_len) == 0;
}

/* The string property 0 of child `name` of r equals the same of s (both present). */
static bool same_child_str(const skio_fbx_tree* t, uint32_t r, uint32_t s, const char* name) {
  const uint32_t a = skio_fbx_child(t, r, name, SKIO_FBX_NONE), b = skio_fbx_child(t, s, name, SKIO_FBX_NONE);
  skio_fbx_prop x, y;
  return a != SKIO_FBX_NONE && b != SKIO_FBX_NONE && skio_fbx_prop_at(t, a, 0, &x) && skio_fbx_prop_at(t, b, 0, &y) &&
         x.type == 'S' && y.type == 'S' && x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
}

static bool child_str_is(const skio_fbx_tree* t, uint32_t r, const char* name, const char* s) {
  const uint32_t c = skio_fbx_child(t, r, name, SKIO_FBX_NONE);
  return c != SKIO_FBX_NONE && skio_fbx_prop_str_is(t, c, 0, s);
}

static uint64_t fnv(uint64_t h, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* Properties70 of model m: hash of its P records' names and property bytes (no Properties70: a hash too). */
static uint64_t p70_hash(const skio_fbx_tree* t, uint32_t m) {
  const uint32_t r = skio_fbx_child(t, m, "Properties70", SKIO_FBX_NONE);
  uint64_t h = 14695981039346656037ull;
  for (uint32_t k = r == SKIO_FBX_NONE ? SKIO_FBX_NONE : t->recs[r].first; k != SKIO_FBX_NONE; k = t->recs[k].next) {
    size_t n;
    const uint8_t* s = rec_name(t, k, &n);
    h = fnv(fnv(h, s, n), t->data + t->recs[k].props, t->recs[k].props_len) * 31 + t->recs[k].prop_count;
  }
  return h;
}

/* The two Models' Properties70 are the same records (names and property bytes; none with children). */
static bool p70_equal(const skio_fbx_tree* t, uint32_t a, uint32_t b) {
  const uint32_t ra = skio_fbx_child(t, a, "Properties70", SKIO_FBX_NONE);
  const uint32_t rb = skio_fbx_child(t, b, "Properties70", SKIO_FBX_NONE);
  if ((ra == SKIO_FBX_NONE) != (rb == SKIO_FBX_NONE)) return false;
  uint32_t x = ra == SKIO_FBX_NONE ? SKIO_FBX_NONE : t->recs[ra].first;
  uint32_t y = rb == SKIO_FBX_NONE ? SKIO_FBX_NONE : t->recs[rb].first;
  for (; x != SKIO_FBX_NONE && y != SKIO_FBX_NONE; x = t->recs[x].next, y = t->recs[y].next)
    if (!same_name(t, x, y) || !same_props(t, x, y) || t->recs[x].first != SKIO_FBX_NONE ||
        t->recs[y].first != SKIO_FBX_NONE)
      return false;
  return x == SKIO_FBX_NONE && y == SKIO_FBX_NONE;
}

/* ---- the file's objects and connections ------------------------------------------------------------------- */

static int by_child(const void* a, const void* b) {
  const conn *x = a, *y = b;
  if (x->child != y->child) return x->child < y->child ? -1 : 1;
  return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int by_parent(const void* a, const void* b) {
  const conn *x = a, *y = b;
  if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
  return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static int by_id(const void* a, const void* b) {
  const obj *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static uint32_t count_kids(const skio_fbx_tree* t, uint32_t r) {
  uint32_t n = 0;
  for (uint32_t k = r == SKIO_FBX_NONE ? SKIO_FBX_NONE : t->recs[r].first; k != SKIO_FBX_NONE; k = t->recs[k].next) ++n;
  return n;
}

static int read_connections(merger* M, skc_err* err) {
  const skio_fbx_tree* t = &M->t;
  const uint32_t n = count_kids(t, M->connections);
  if (!n) return SKC_OK;
  M->by_child = malloc(n * sizeof *M->by_child);
  M->by_parent = malloc(n * sizeof *M->by_parent);
  if (!M->by_child || !M->by_parent) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX connections");
  for (uint32_t c = t->recs[M->connections].first; c != SKIO_FBX_NONE; c = t->recs[c].next) {
    conn k = {0, 0, c, skio_fbx_prop_str_is(t, c, 0, "OO")};
    if (name_is(t, c, "C") && skio_fbx_prop_i64(t, c, 1, &k.child) && skio_fbx_prop_i64(t, c, 2, &k.parent))
      M->by_child[M->nconn++] = k;
  }
  memcpy(M->by_parent, M->by_child, M->nconn * sizeof *M->by_child);
  qsort(M->by_child, M->nconn, sizeof *M->by_child, by_child);
  qsort(M->by_parent, M->nconn, sizeof *M->by_parent, by_parent);
  return SKC_OK;
}

static int kind_of(const skio_fbx_tree* t, uint32_t r) {
  if (name_is(t, r, "Model")) return skio_fbx_prop_str_is(t, r, 2, "Mesh") ? K_MESH : K_MODEL;
  if (name_is(t, r, "Geometry"))
    return skio_fbx_prop_str_is(t, r, 2, "Mesh") ? K_GEOM : skio_fbx_prop_str_is(t, r, 2, "Shape") ? K_SHAPE : K_OTHER;
  if (name_is(t, r, "Material")) return K_MATERIAL;
  if (name_is(t, r, "AnimationCurveNode")) return K_CURVENODE;
  if (name_is(t, r, "AnimationCurve")) return K_CURVE;
  if (!name_is(t, r, "Deformer")) return K_OTHER;
  if (skio_fbx_prop_str_is(t, r, 2, "Skin")) return K_SKIN;
  if (skio_fbx_prop_str_is(t, r, 2, "BlendShape")) return K_BLENDSHAPE;
  if (skio_fbx_prop_str_is(t, r, 2, "BlendShapeChannel")) return K_CHANNEL;
  return skio_fbx_prop_str_is(t, r, 2, "Cluster") ? K_CLUSTER : K_OTHER;
}

/* The objects by id; an id two records share is K_DUP (never merged). */
static int read_objects(merger* M, skc_err* err) {
  const skio_fbx_tree* t = &M->t;
  const uint32_t n = count_kids(t, M->objects);
  if (!n) return SKC_OK;
  if (!(M->objs = malloc(n * sizeof *M->objs))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t r = t->recs[M->objects].first; r != SKIO_FBX_NONE; r = t->recs[r].next) {
    obj o = {0, r, kind_of(t, r)};
    if (skio_fbx_prop_i64(t, r, 0, &o.id)) M->objs[M->nobj++] = o;
  }
  qsort(M->objs, M->nobj, sizeof *M->objs, by_id);
  for (size_t i = 1; i < M->nobj; ++i)
    if (M->objs[i].id == M->objs[i - 1].id) M->objs[i].kind = M->objs[i - 1].kind = K_DUP;
  return SKC_OK;
}

const obj* skio_fbxm_find_obj(const merger* M, int64_t id) {
  size_t lo = 0, hi = M->nobj;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (M->objs[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < M->nobj && M->objs[lo].id == id ? &M->objs[lo] : NULL;
}

/* The connections with child (parent: by_parent) id: [*first, return). */
size_t skio_fbxm_conn_range(const merger* M, const conn* arr, bool parent, int64_t id, size_t* first) {
  size_t lo = 0, hi = M->nconn;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((parent ? arr[mid].parent : arr[mid].child) < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  *first = lo;
  while (hi < M->nconn && (parent ? arr[hi].parent : arr[hi].child) == id) ++hi;
  return hi;
}

/* Mesh Models with one OO parent connection: their name, parent and Properties70 hash. */
static int read_meshes(merger* M, skc_err* err) {
  size_t n = 0;
  for (size_t i = 0; i < M->nobj; ++i) n += M->objs[i].kind == K_MESH;
  if (!n) return SKC_OK;
  if (!(M->meshes = malloc(n * sizeof *M->meshes))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < M->nobj; ++i) {
    const obj* o = &M->objs[i];
    mesh m = {o->id, 0, o->rec, NULL, 0, 0};
    size_t first, end = o->kind == K_MESH ? skio_fbxm_conn_range(M, M->by_child, false, o->id, &first) : 0, parents = 0;
    for (size_t c = o->kind == K_MESH ? first : end; c < end; ++c)
      if (M->by_child[c].oo && ++parents == 1) m.parent = M->by_child[c].parent;
    if (o->kind != K_MESH || parents != 1 || !skio_fbx_prop_name(&M->t, o->rec, 1, &m.name, &m.name_len)) continue;
    m.hash = p70_hash(&M->t, o->rec);
    M->meshes[M->nmesh++] = m;
  }
  return SKC_OK;
}

static int by_group(const void* a, const void* b) {
  const mesh *x = a, *y = b;
  if (x->name_len != y->name_len) return x->name_len < y->name_len ? -1 : 1;
  int c = memcmp(x->name, y->name, x->name_len);
  if (c) return c;
  if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return x->rec < y->rec ? -1 : x->rec > y->rec;
}

static bool same_group(const mesh* x, const mesh* y) {
  return x->name_len == y->name_len && !memcmp(x->name, y->name, x->name_len) && x->parent == y->parent &&
         x->hash == y->hash;
}

/* ---- one group: its plan ---------------------------------------------------------------------------------- */

int skio_fbxm_drop(plan* P, uint32_t rec) {
  if (rec == SKIO_FBX_NONE) return REFUSE;
  if (!grow(&P->pd, &P->cappd, P->npd + 1, sizeof *P->pd)) return SKC_OUT_OF_MEMORY;
  P->pd[P->npd++] = (pend){rec, NULL};
  return SKC_OK;
}

/* A builder for record rec's new properties (NULL: out of memory). */
static skio_fbx_props* pend_props(plan* P, uint32_t rec) {
  skio_fbx_props* b = calloc(1, sizeof *b);
  if (!b || !grow(&P->pd, &P->cappd, P->npd + 1, sizeof *P->pd)) {
    free(b);
    return NULL;
  }
  P->pd[P->npd++] = (pend){rec, b};
  return b;
}

static int add_link(plan* P, int64_t child, int64_t parent) {
  if (!grow(&P->links, &P->caplink, P->nlink + 1, sizeof *P->links)) return SKC_OUT_OF_MEMORY;
  P->links[P->nlink++] = (link){child, parent};
  return SKC_OK;
}

/* Drops every connection that touches id. */
int skio_fbxm_drop_touching(plan* P, int64_t id) {
  const merger* M = P->M;
  size_t first, end = skio_fbxm_conn_range(M, M->by_child, false, id, &first);
  int rc = SKC_OK;
  for (size_t c = first; c < end && !rc; ++c) rc = skio_fbxm_drop(P, M->by_child[c].rec);
  end = skio_fbxm_conn_range(M, M->by_parent, true, id, &first);
  for (size_t c = first; c < end && !rc; ++c) rc = skio_fbxm_drop(P, M->by_parent[c].rec);
  return rc;
}

/* Object id is connected (as child) to exactly one object, with OO, and that is `parent`. */
bool skio_fbxm_only_parent(const merger* M, int64_t id, int64_t parent) {
  size_t first, end = skio_fbxm_conn_range(M, M->by_child, false, id, &first);
  return end == first + 1 && M->by_child[first].oo && M->by_child[first].parent == parent;
}

/* Cluster o of part k: linked to its Skin only, and by one bone Model. */
static int part_cluster(plan* P, uint32_t k, const obj* o) {
  const merger* M = P->M;
  if (!skio_fbxm_only_parent(M, o->id, P->parts[k].skin_id)) return REFUSE;
  size_t first, end = skio_fbxm_conn_range(M, M->by_parent, true, o->id, &first);
  const obj* bone =
      end == first + 1 && M->by_parent[first].oo ? skio_fbxm_find_obj(M, M->by_parent[first].child) : NULL;
  if (!bone || (bone->kind != K_MODEL && bone->kind != K_MESH)) return REFUSE;
  if (!grow(&P->cl, &P->capcl, P->ncl + 1, sizeof *P->cl)) return SKC_OUT_OF_MEMORY;
  P->cl[P->ncl++] = (clus){bone->id, o->id, k, o->rec};
  return SKC_OK;
}

/* Skin of part k: on its Geometry only, with clusters only. */
static int part_skin(plan* P, uint32_t k) {
  const merger* M = P->M;
  part* p = &P->parts[k];
  if (!skio_fbxm_only_parent(M, p->skin_id, p->geom_id)) return REFUSE;
  size_t first, end = skio_fbxm_conn_range(M, M->by_parent, true, p->skin_id, &first);
  int rc = SKC_OK;
  for (size_t c = first; c < end && !rc; ++c) {
    const obj* o = M->by_parent[c].oo ? skio_fbxm_find_obj(M, M->by_parent[c].child) : NULL;
    rc = o && o->kind == K_CLUSTER ? part_cluster(P, k, o) : REFUSE;
  }
  return rc;
}

/* Geometry of part k: on its Model only, with at most one Skin and one BlendShape. */
static int part_geometry(plan* P, uint32_t k) {
  const merger* M = P->M;
  part* p = &P->parts[k];
  if (!skio_fbxm_only_parent(M, p->geom_id, p->m->id)) return REFUSE;
  size_t first, end = skio_fbxm_conn_range(M, M->by_parent, true, p->geom_id, &first);
  for (size_t c = first; c < end; ++c) {
    const obj* o = M->by_parent[c].oo ? skio_fbxm_find_obj(M, M->by_parent[c].child) : NULL;
    const int kind = o ? o->kind : K_OTHER;
    uint32_t* rec = kind == K_SKIN ? &p->skin : kind == K_BLENDSHAPE ? &p->shapes : NULL;
    if (!rec || *rec != SKIO_FBX_NONE) return REFUSE;
    *rec = o->rec;
    *(kind == K_SKIN ? &p->skin_id : &p->shapes_id) = o->id;
  }
  return p->skin == SKIO_FBX_NONE ? SKC_OK : part_skin(P, k);
}

static int add_material(plan* P, int64_t id, uint32_t rec) {
  if (P->nmat >= MAX_MATERIALS) return REFUSE;
  if (!grow(&P->mats, &P->capmat, P->nmat + 1, sizeof *P->mats) ||
      !grow(&P->mat_conns, &P->capmatc, P->nmat + 1, sizeof *P->mat_conns))
    return SKC_OUT_OF_MEMORY;
  P->mat_conns[P->nmat] = rec;
  P->mats[P->nmat++] = id;
  return SKC_OK;
}

/* Model of part k: one Geometry, its Materials; a later part has no other connection but its parent. */
static int part_model(plan* P, uint32_t k) {
  const merger* M = P->M;
  part* p = &P->parts[k];
  size_t first, end = skio_fbxm_conn_range(M, M->by_child, false, p->m->id, &first);
  if (k && end != first + 1) return REFUSE; /* its one OO parent (read_meshes), nothing else */
  end = skio_fbxm_conn_range(M, M->by_parent, true, p->m->id, &first);
  p->mat0 = (uint32_t)P->nmat;
  int rc = SKC_OK;
  for (size_t c = first; c < end && !rc; ++c) {
    const conn* l = &M->by_parent[c];
    const obj* o = l->oo ? skio_fbxm_find_obj(M, l->child) : NULL;
    if (o && o->kind == K_GEOM && p->geom == SKIO_FBX_NONE) {
      p->geom = o->rec;
      p->geom_id = o->id;
    } else if (o && o->kind == K_MATERIAL) {
      rc = add_material(P, o->id, l->rec);
    } else if (k || (o && (o->kind == K_GEOM || o->kind == K_DUP))) {
      rc = REFUSE; /* a second Geometry, an id two objects share, or a later part's child, curve node ... */
    }
  }
  p->nmat = (uint32_t)P->nmat - p->mat0;
  return rc ? rc : p->geom == SKIO_FBX_NONE ? REFUSE : part_geometry(P, k);
}

/* The merged Model's Materials: every part's, in part order, each once (slot: where each went). */
static int merge_material_list(plan* P) {
  if (P->nmat && !(P->slot = malloc(P->nmat * sizeof *P->slot))) return SKC_OUT_OF_MEMORY;
  for (size_t i = 0; i < P->nmat; ++i) {
    size_t j = 0;
    while (j < P->nmerged && P->merged[j] != P->mats[i]) ++j;
    if (j == P->nmerged && !grow(&P->merged, &P->capmerged, P->nmerged + 1, sizeof *P->merged))
      return SKC_OUT_OF_MEMORY;
    if (j == P->nmerged) P->merged[P->nmerged++] = P->mats[i];
    P->slot[i] = (int32_t)j;
  }
  return SKC_OK;
}

static int collect_parts(plan* P) {
  int rc = SKC_OK;
  for (uint32_t k = 0; k < P->n && !rc; ++k) rc = part_model(P, k);
  for (uint32_t k = 1; k < P->n && !rc; ++k)
    if ((P->parts[k].skin == SKIO_FBX_NONE) != (P->parts[0].skin == SKIO_FBX_NONE) ||
        (P->parts[k].shapes == SKIO_FBX_NONE) != (P->parts[0].shapes == SKIO_FBX_NONE))
      rc = REFUSE;
  for (uint32_t k = 0; k < P->n && !rc; ++k) /* all with Materials or none */
    if ((P->parts[k].nmat == 0) != (P->parts[0].nmat == 0)) rc = REFUSE;
  return rc ? rc : merge_material_list(P);
}

/* ---- arrays ----------------------------------------------------------------------------------------------- */

/* An array of property 0 of record r (SKIO_FBX_NONE: empty), decoded: REFUSE when it is not one. */
int skio_fbxm_read_f64(const skio_fbx_tree* t, uint32_t r, double** v, size_t* n) {
  skio_fbx_prop p;
  skc_err e = {0};
  *v = NULL;
  *n = 0;
  if (r == SKIO_FBX_NONE) return SKC_OK;
  if (!skio_fbx_prop_at(t, r, 0, &p) || (p.type != 'd' && p.type != 'f')) return REFUSE;
  int rc = skio_fbx_array_f64(&p, v, &e);
  if (!rc) *n = p.count;
  return rc == SKC_OUT_OF_MEMORY ? rc : rc ? REFUSE : SKC_OK;
}

int skio_fbxm_read_i32(const skio_fbx_tree* t, uint32_t r, int32_t** v, size_t* n) {
  skio_fbx_prop p;
  skc_err e = {0};
  *v = NULL;
  *n = 0;
  if (r == SKIO_FBX_NONE) return SKC_OK;
  if (!skio_fbx_prop_at(t, r, 0, &p) || p.type != 'i') return REFUSE;
  int rc = skio_fbx_array_i32(&p, v, &e);
  if (!rc) *n = p.count;
  return rc == SKC_OUT_OF_MEMORY ? rc : rc ? REFUSE : SKC_OK;
}

int skio_fbxm_dvec_add(dvec* d, const double* v, size_t n) {
  if (d->n + n > MAX_ELEMS) return REFUSE;
  if (!grow(&d->v, &d->cap, d->n + n + 1, sizeof *d->v)) return SKC_OUT_OF_MEMORY;
  if (n) memcpy(d->v + d->n, v, n * sizeof *v);
  d->n += n;
  return SKC_OK;
}

int skio_fbxm_ivec_add(ivec* d, int32_t v) {
  if (d->n + 1 > MAX_ELEMS) return REFUSE;
  if (!grow(&d->v, &d->cap, d->n + 1, sizeof *d->v)) return SKC_OUT_OF_MEMORY;
  d->v[d->n++] = v;
  return SKC_OK;
}

/* Record rec's one property becomes the array (deflated as writers do). */
int skio_fbxm_set_f64(plan* P, uint32_t rec, const dvec* d) {
  if (rec == SKIO_FBX_NONE) return REFUSE;
  skio_fbx_props* b = pend_props(P, rec);
  if (!b) return SKC_OUT_OF_MEMORY;
  skio_fbx_put_f64_array(b, d->v, d->n, 1);
  return SKC_OK;
}

int skio_fbxm_set_i32(plan* P, uint32_t rec, const ivec* d) {
  if (rec == SKIO_FBX_NONE) return REFUSE;
  skio_fbx_props* b = pend_props(P, rec);
  if (!b) return SKC_OUT_OF_MEMORY;
  skio_fbx_put_i32_array(b, d->v, d->n, 1);
  return SKC_OK;
}

static int pend_str(plan* P, uint32_t rec, const char* s) {
  if (rec == SKIO_FBX_NONE) return REFUSE;
  skio_fbx_props* b = pend_props(P, rec);
  if (!b) return SKC_OUT_OF_MEMORY;
  skio_fbx_put_str(b, s, strlen(s));
  return SKC_OK;
}

/* ---- geometry --------------------------------------------------------------------------------------------- */

static bool is_layer(const skio_fbx_tree* t, uint32_t r) {
  size_t n;
  const uint8_t* s = rec_name(t, r, &n);
  return n > 12 && memcmp(s, "LayerElement", 12) == 0;
}

/* Every child of Geometry g is one the pass merges or keeps from the first part (and not too many). */
static bool geometry_known(const skio_fbx_tree* t, uint32_t g) {
  static const char* const known[] = {"Vertices",
                                      "PolygonVertexIndex",
                                      "GeometryVersion",
                                      "Layer",
                                      "Properties70",
                                      "LayerElementNormal",
                                      "LayerElementUV",
                                      "LayerElementColor",
                                      "LayerElementTangent",
                                      "LayerElementBinormal",
                                      "LayerElementMaterial"};
  uint32_t n = 0;
  for (uint32_t k = t->recs[g].first; k != SKIO_FBX_NONE; k = t->recs[k].next) {
    if (++n > MAX_GEOMETRY_KIDS) return false;
    bool ok = false;
    for (size_t i = 0; i < sizeof known / sizeof *known && !ok; ++i) ok = name_is(t, k, known[i]);
    if (!ok) return false;
  }
  return true;
}

/* Part k's polygons: every index inside its control points, the last polygon closed; appended with offset off. */
static int add_polygons(part* p, const int32_t* v, size_t n, uint32_t off, ivec* out) {
  if (!n || v[n - 1] >= 0 || n > MAX_ELEMS) return REFUSE;
  int rc = SKC_OK;
  for (size_t i = 0; i < n && !rc; ++i) {
    const int64_t at = v[i] < 0 ? -(int64_t)v[i] - 1 : v[i];
    if (at >= p->nverts) return REFUSE;
    p->npoly += v[i] < 0;
    rc = skio_fbxm_ivec_add(out, (int32_t)(v[i] < 0 ? -(at + off) - 1 : at + off));
  }
  p->npv = (uint32_t)n;
  return rc;
}

/* Vertices and PolygonVertexIndex concatenated; *off gets each part's first control point. */
static int merge_vertices(plan* P, uint32_t* off) {
  const skio_fbx_tree* t = &P->M->t;
  dvec verts = {0};
  ivec poly = {0};
  int rc = SKC_OK;
  for (uint32_t k = 0; k < P->n && !rc; ++k) {
    part* p = &P->parts[k];
    double* v = NULL;
    int32_t* pv = NULL;
    size_t nv = 0, npv = 0;
    if (!geometry_known(t, p->geom)) rc = REFUSE;
    if (!rc) rc = skio_fbxm_read_f64(t, skio_fbx_child(t, p->geom, "Vertices", SKIO_FBX_NONE), &v, &nv);
    if (!rc) rc = skio_fbxm_read_i32(t, skio_fbx_child(t, p->geom, "PolygonVertexIndex", SKIO_FBX_NONE), &pv, &npv);
    if (!rc && (nv % 3 || verts.n / 3 + nv / 3 > INT32_MAX / 2)) rc = REFUSE;
    off[k] = (uint32_t)(verts.n / 3);
    p->nverts = (uint32_t)(nv / 3);
    if (!rc) rc = skio_fbxm_dvec_add(&verts, v, nv);
    if (!rc) rc = add_polygons(p, pv, npv, off[k], &poly);
    free(v);
    free(pv);
  }
  if (!rc) rc = skio_fbxm_set_f64(P, skio_fbx_child(t, P->parts[0].geom, "Vertices", SKIO_FBX_NONE), &verts);
  if (!rc) rc = skio_fbxm_set_i32(P, skio_fbx_child(t, P->parts[0].geom, "PolygonVertexIndex", SKIO_FBX_NONE), &poly);
  free(verts.v);
  free(poly.v);
  return rc;
}

/* The j-th LayerElement* child of Geometry g (SKIO_FBX_NONE: none). */
static uint32_t nth_layer(const skio_fbx_tree* t, uint32_t g, uint32_t j) {
  for (uint32_t k = t->recs[g].first; k != SKIO_FBX_NONE; k = t->recs[k].next)
    if (is_layer(t, k) && !j--) return k;
  return SKIO_FBX_NONE;
}

/* Layer records a and b: same name, typed index and children (by name, in order). */
static bool same_layer_shape(const skio_fbx_tree* t, uint32_t a, uint32_t b) {
  int64_t ia, ib;
  if (!same_name(t, a, b) || !skio_fbx_prop_i64(t, a, 0, &ia) || !skio_fbx_prop_i64(t, b, 0, &ib) || ia != ib)
    return false;
  uint32_t x = t->recs[a].first, y = t->recs[b].first;
  for (; x != SKIO_FBX_NONE && y != SKIO_FBX_NONE; x = t->recs[x].next, y = t->recs[y].next)
    if (!same_name(t, x, y)) return false;
  return x == SKIO_FBX_NONE && y == SKIO_FBX_NONE;
}

typedef struct layer_kind {
  const char* layer;
  const char *data, *index, *w; /* child arrays: direct values, their index, per-value W */
  uint32_t comps;
} layer_kind;

static const layer_kind k_layers[] = {
    {"LayerElementNormal", "Normals", "NormalsIndex", "NormalsW", 3},
    {"LayerElementUV", "UV", "UVIndex", NULL, 2},
    {"LayerElementColor", "Colors", "ColorIndex", NULL, 4},
    {"LayerElementTangent", "Tangents", "TangentsIndex", "TangentsW", 3},
    {"LayerElementBinormal", "Binormals", "BinormalsIndex", "BinormalsW", 3},
};

/* A layer's elements per part as its mapping wants them (0: a mapping the pass does not merge). */
static uint32_t mapped_count(const skio_fbx_tree* t, uint32_t layer, const part* p) {
  if (child_str_is(t, layer, "MappingInformationType", "ByPolygonVertex")) return p->npv;
  if (child_str_is(t, layer, "MappingInformationType", "ByVertice") ||
      child_str_is(t, layer, "MappingInformationType", "ByVertex"))
    return p->nverts;
  return child_str_is(t, layer, "MappingInformationType", "ByPolygon") ? p->npoly : 0;
}

typedef struct layer_job {
  const layer_kind* kind;
  uint32_t j;      /* the layer's place among its Geometry's layers */
  bool indexed;    /* IndexToDirect, else Direct */
  uint32_t* elems; /* per part: elements of its data array */
} layer_job;

/* Child `name` of layer j concatenated over the parts (comps values an element); elems[k] = part k's elements. */
static int merge_layer_data(plan* P, const layer_job* L, const char* name, uint32_t comps, bool count_elems) {
  const skio_fbx_tree* t = &P->M->t;
  dvec all = {0};
  int rc = SKC_OK;
  for (uint32_t k = 0; k < P->n && !rc; ++k) {
    const uint32_t layer = nth_layer(t, P->parts[k].geom, L->j);
    const uint32_t r = skio_fbx_child(t, layer, name, SKIO_FBX_NONE);
    double* v = NULL;
    size_t n = 0;
    rc = r == SKIO_FBX_NONE ? REFUSE : skio_fbxm_read_f64(t, r, &v, &n);
    if (!rc && count_elems) {
      const uint32_t want = mapped_count(t, layer, &P->parts[k]);
      if (n % comps || (!L->indexed && n / comps != want)) rc = REFUSE;
      L->elems[k] = (uint32_t)(n / comps);
    } else if (!rc && n != L->elems[k]) {
      rc = REFUSE; /* a W array: one value per element */
    }
    if (!rc) rc = skio_fbxm_dvec_add(&all, v, n);
    free(v);
  }
  const uint32_t first = skio_fbx_child(t, nth_layer(t, P->parts[0].geom, L->j), name, SKIO_FBX_NONE);
  if (!rc) rc = skio_fbxm_set_f64(P, first, &all);
  free(all.v);
  return rc;
}

/* The layer's index array concatenated, each part's indices offset by the earlier parts' elements. */
static int merge_layer_index(plan* P, const layer_job* L) {
  const skio_fbx_tree* t = &P->M->t;
  ivec all = {0};
  int rc = SKC_OK;
  uint32_t off = 0;
  for (uint32_t k = 0; k < P->n && !rc; ++k) {
    const uint32_t layer = nth_layer(t, P->parts[k].geom, L->j);
    const uint32_t r = skio_fbx_child(t, layer, L->kind->index, SKIO_FBX_NONE);
    int32_t* v = NULL;
    size_t n = 0;
    rc = r == SKIO_FBX_NONE ? REFUSE : skio_fbxm_read_i32(t, r, &v, &n);
    if (!rc && n != mapped_count(t, layer, &P->parts[k])) rc = REFUSE;
    for (size_t i = 0; i < n && !rc; ++i)
      rc = v[i] >= 0 && (uint32_t)v[i] < L->elems[k] ? skio_fbxm_ivec_add(&all, (int32_t)(v[i] + off)) : REFUSE;
    off += L->elems[k];
    free(v);
  }
  const uint32_t first = skio_fbx_child(t, nth_layer(t, P->parts[0].geom, L->j), L->kind->index, SKIO_FBX_NONE);
  if (!rc) rc = skio_fbxm_set_i32(P, first, &all);
  free(all.v);
  return rc;
}

/* Only the layer's known children: its header strings and its arrays. */
static bool layer_children_known(const skio_fbx_tree* t, uint32_t layer, const layer_kind* lk) {
  for (uint32_t c = t->recs[layer].first; c != SKIO_FBX_NONE; c = t->recs[c].next) {
    const bool ok = name_is(t, c, "Version") || name_is(t, c, "Name") || name_is(t, c, "MappingInformationType") ||
                    name_is(t, c, "ReferenceInformationType") || name_is(t, c, lk->data) ||
                    (lk->index && name_is(t, c, lk->index)) || (lk->w && name_is(t, c, lk->w));
    if (!ok) return false;
  }
  return true;
}

/* A normal / UV / color / tangent / binormal layer, the same mapping and reference in every part. */
static int merge_data_layer(plan* P, uint32_t j) {
  const skio_fbx_tree* t = &P->M->t;
  const uint32_t l0 = nth_layer(t, P->parts[0].geom, j);
  const layer_kind* lk = NULL;
  for (size_t i = 0; i < sizeof k_layers / sizeof *k_layers && !lk; ++i)
    if (name_is(t, l0, k_layers[i].layer)) lk = &k_layers[i];
  if (!lk || !layer_children_known(t, l0, lk)) return REFUSE;
  for (uint32_t k = 0; k < P->n; ++k) {
    const uint32_t l = nth_layer(t, P->parts[k].geom, j);
    if (!same_child_str(t, l, l0, "MappingInformationType") || !same_child_str(t, l, l0, "ReferenceInformationType") ||
        !mapped_count(t, l, &P->parts[k]))
      return REFUSE;
  }
  layer_job L = {lk, j, child_str_is(t, l0, "ReferenceInformationType", "IndexToDirect"), NULL};
  const bool has_index = skio_fbx_child(t, l0, lk->index, SKIO_FBX_NONE) != SKIO_FBX_NONE;
  if (L.indexed != has_index || (!L.indexed && !child_str_is(t, l0, "ReferenceInformationType", "Direct")))
    return REFUSE;
  if (!(L.elems = calloc(P->n, sizeof *L.elems))) return SKC_OUT_OF_MEMORY;
  int rc = merge_layer_data(P, &L, lk->data, lk->comps, true);
  if (!rc && lk->w && skio_fbx_child(t, l0, lk->w, SKIO_FBX_NONE) != SKIO_FBX_NONE)
    rc = merge_layer_data(P, &L, lk->w, 1, false);
  if (!rc && L.indexed) rc = merge_layer_index(P, &L);
  free(L.elems);
  return rc;
}

/* The merged Materials index of part p's material v (p's list), or -1. */
static int32_t merged_index(const plan* P, const part* p, int32_t v) {
  if (!p->nmat) return v == 0 ? 0 : -1; /* no part has a Material: index 0 */
  return v < 0 || (uint32_t)v >= p->nmat ? -1 : P->slot[p->mat0 + (uint32_t)v];
}

/* Part p's material layer (AllSame or ByPolygon) appended as per-polygon merged indices. */
static int add_part_materials(const plan* P, const part* p, uint32_t layer, ivec* out) {
  const skio_fbx_tree* t = &P->M->t;
  const bool same = child_str_is(t, layer, "MappingInformationType", "AllSame");
  if (!same && !child_str_is(t, layer, "MappingInformationType", "ByPolygon")) return REFUSE;
  if (!child_str_is(t, layer, "ReferenceInformationType", "IndexToDirect") &&
      !child_str_is(t, layer, "ReferenceInformationType", "Direct"))
    return REFUSE;
  int32_t* v = NULL;
  size_t n = 0;
  int rc = skio_fbxm_read_i32(t, skio_fbx_child(t, layer, "Materials", SKIO_FBX_NONE), &v, &n);
  if (!rc && (same ? n < 1 : n != p->npoly)) rc = REFUSE;
  for (uint32_t i = 0; i < p->npoly && !rc; ++i) {
    const int32_t m = merged_index(P, p, v[same ? 0 : i]);
    rc = m < 0 ? REFUSE : skio_fbxm_ivec_add(out, m);
  }
  free(v);
  return rc;
}

static int merge_material_layer(plan* P, uint32_t j) {
  const skio_fbx_tree* t = &P->M->t;
  const uint32_t l0 = nth_layer(t, P->parts[0].geom, j);
  for (uint32_t c = t->recs[l0].first; c != SKIO_FBX_NONE; c = t->recs[c].next)
    if (!name_is(t, c, "Version") && !name_is(t, c, "Name") && !name_is(t, c, "MappingInformationType") &&
        !name_is(t, c, "ReferenceInformationType") && !name_is(t, c, "Materials"))
      return REFUSE;
  ivec all = {0};
  int rc = SKC_OK;
  for (uint32_t k = 0; k < P->n && !rc; ++k)
    rc = add_part_materials(P, &P->parts[k], nth_layer(t, P->parts[k].geom, j), &all);
  if (!rc) rc = pend_str(P, skio_fbx_child(t, l0, "MappingInformationType", SKIO_FBX_NONE), "ByPolygon");
  if (!rc) rc = pend_str(P, skio_fbx_child(t, l0, "ReferenceInformationType", SKIO_FBX_NONE), "IndexToDirect");
  if (!rc) rc = skio_fbxm_set_i32(P, skio_fbx_child(t, l0, "Materials", SKIO_FBX_NONE), &all);
  free(all.v);
  return rc;
}

/* Every layer: the same layers in every part (names, typed indices, children), merged one by one. */
static int merge_layers(plan* P) {
  const skio_fbx_tree* t = &P->M->t;
  uint32_t nlayers = 0, materials = 0;
  for (uint32_t l = t->recs[P->parts[0].geom].first; l != SKIO_FBX_NONE; l = t->recs[l].next) {
    nlayers += is_layer(t, l);
    materials += name_is(t, l, "LayerElementMaterial");
  }
  if (nlayers > MAX_LAYERS || materials > 1 || (!materials && P->nmerged > 1)) return REFUSE;
  for (uint32_t k = 1; k < P->n; ++k) {
    for (uint32_t j = 0; j < nlayers; ++j)
      if (!same_layer_shape(t, nth_layer(t, P->parts[0].geom, j), nth_layer(t, P->parts[k].geom, j))) return REFUSE;
    if (nth_layer(t, P->parts[k].geom, nlayers) != SKIO_FBX_NONE) return REFUSE;
  }
  int rc = SKC_OK;
  for (uint32_t j = 0; j < nlayers && !rc; ++j)
    rc = name_is(t, nth_layer(t, P->parts[0].geom, j), "LayerElementMaterial") ? merge_material_layer(P, j)
                                                                               : merge_data_layer(P, j);
  return rc;
}

/* ---- skin ------------------------------------------------------------------------------------------------- */

static int by_bone(const void* a, const void* b) {
  const clus *x = a, *y = b;
  if (x->bone != y->bone) return x->bone < y->bone ? -1 : 1;
  return x->part < y->part ? -1 : x->part > y->part;
}

/* Clusters a and b carry the same matrices: each present in both or neither, equal within 1e-6 relative. */
static int same_matrices(const skio_fbx_tree* t, uint32_t a, uint32_t b) {
  static const char* const names[] = {"Transform", "TransformLink", "TransformAssociateModel"};
  int rc = SKC_OK;
  for (size_t i = 0; i < 3 && !rc; ++i) {
    const uint32_t ra = skio_fbx_child(t, a, names[i], SKIO_FBX_NONE),
                   rb = skio_fbx_child(t, b, names[i], SKIO_FBX_NONE);
    double *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    rc = (ra == SKIO_FBX_NONE) != (rb == SKIO_FBX_NONE) ? REFUSE : skio_fbxm_read_f64(t, ra, &x, &nx);
    if (!rc) rc = skio_fbxm_read_f64(t, rb, &y, &ny);
    if (!rc && nx != ny) rc = REFUSE;
    for (size_t e = 0; e < nx && !rc; ++e)
      if (!(fabs(x[e] - y[e]) <= 1e-6 * fmax(1.0, fmax(fabs(x[e]), fabs(y[e]))))) rc = REFUSE;
    free(x);
    free(y);
  }
  return rc;
}

/* A cluster the merge drops holds nothing but what its bone's merged cluster gets. */
static bool cluster_known(const skio_fbx_tree* t, uint32_t r) {
  for (uint32_t c = t->recs[r].first; c != SKIO_FBX_NONE; c = t->recs[c].next)
    if (!name_is(t, c, "Version") && !name_is(t, c, "UserData") && !name_is(t, c, "Indexes") &&
        !name_is(t, c, "Weights") && !name_is(t, c, "Transform") && !name_is(t, c, "TransformLink") &&
        !name_is(t, c, "TransformAssociateModel"))
      return false;
  return true;
}

/* Cluster c's influences appended: its indices offset by its part's first control point. */
static int add_influences(const plan* P, const clus* c, uint32_t off, ivec* idx, dvec* w) {
  const skio_fbx_tree* t = &P->M->t;
  int32_t* i32 = NULL;
  double* f64 = NULL;
  size_t ni = 0, nw = 0;
  int rc = skio_fbxm_read_i32(t, skio_fbx_child(t, c->rec, "Indexes", SKIO_FBX_NONE), &i32, &ni);
  if (!rc) rc = skio_fbxm_read_f64(t, skio_fbx_child(t, c->rec, "Weights", SKIO_FBX_NONE), &f64, &nw);
  if (!rc && ni != nw) rc = REFUSE;
  for (size_t i = 0; i < ni && !rc; ++i)
    rc = i32[i] >= 0 && (uint32_t)i32[i] < P->parts[c->part].nverts ? skio_fbxm_ivec_add(idx, (int32_t)(i32[i] + off))
                                                                    : REFUSE;
  if (!rc) rc = skio_fbxm_dvec_add(w, f64, nw);
  free(i32);
  free(f64);
  return rc;
}

/* One bone's clusters run[0 .. n) (by part) become run[0]: influences concatenated, the others dropped; run[0] of a
 * later part moves to the first Skin. */
static int merge_bone(plan* P, const clus* run, size_t n, const uint32_t* off) {
  const skio_fbx_tree* t = &P->M->t;
  int rc = SKC_OK;
  for (size_t i = 1; i < n && !rc; ++i)
    rc = run[i].part == run[i - 1].part || !cluster_known(t, run[i].rec) ? REFUSE
                                                                         : same_matrices(t, run[0].rec, run[i].rec);
  if (rc || (n == 1 && run[0].part == 0)) return rc;
  ivec idx = {0};
  dvec w = {0};
  for (size_t i = 0; i < n && !rc; ++i) rc = add_influences(P, &run[i], off[run[i].part], &idx, &w);
  const uint32_t ri = skio_fbx_child(t, run[0].rec, "Indexes", SKIO_FBX_NONE);
  const uint32_t rw = skio_fbx_child(t, run[0].rec, "Weights", SKIO_FBX_NONE);
  if (!rc && (ri != SKIO_FBX_NONE || idx.n)) rc = skio_fbxm_set_i32(P, ri, &idx);
  if (!rc && (rw != SKIO_FBX_NONE || w.n)) rc = skio_fbxm_set_f64(P, rw, &w);
  free(idx.v);
  free(w.v);
  for (size_t i = 1; i < n && !rc; ++i) {
    rc = skio_fbxm_drop(P, run[i].rec);
    if (!rc) rc = skio_fbxm_drop_touching(P, run[i].id);
    ++P->drop_deformer;
  }
  if (!rc && run[0].part) rc = add_link(P, run[0].id, P->parts[0].skin_id);
  return rc;
}

/* One Skin, the first part's, with one cluster per bone; the later Skins dropped. */
static int merge_skins(plan* P, const uint32_t* off) {
  if (P->parts[0].skin == SKIO_FBX_NONE) return SKC_OK;
  if (P->ncl) qsort(P->cl, P->ncl, sizeof *P->cl, by_bone);
  int rc = SKC_OK;
  for (size_t i = 0, j; i < P->ncl && !rc; i = j) {
    for (j = i + 1; j < P->ncl && P->cl[j].bone == P->cl[i].bone;) ++j;
    rc = merge_bone(P, &P->cl[i], j - i, off);
  }
  for (uint32_t k = 1; k < P->n && !rc; ++k) {
    rc = skio_fbxm_drop(P, P->parts[k].skin);
    if (!rc) rc = skio_fbxm_drop_touching(P, P->parts[k].skin_id);
    ++P->drop_deformer;
  }
  return rc;
}

/* The later parts' Models and Geometries dropped; every Material connected to the first Model, in order. */
static int drop_parts(plan* P) {
  int rc = SKC_OK;
  for (uint32_t k = 1; k < P->n && !rc; ++k) {
    const part* p = &P->parts[k];
    rc = skio_fbxm_drop(P, p->m->rec);
    if (!rc) rc = skio_fbxm_drop_touching(P, p->m->id);
    if (!rc) rc = skio_fbxm_drop(P, p->geom);
    if (!rc) rc = skio_fbxm_drop_touching(P, p->geom_id);
  }
  for (uint32_t i = 0; i < P->parts[0].nmat && !rc; ++i) rc = skio_fbxm_drop(P, P->mat_conns[P->parts[0].mat0 + i]);
  for (size_t i = 0; i < P->nmerged && !rc; ++i) rc = add_link(P, P->merged[i], P->parts[0].m->id);
  return rc;
}

/* ---- one group: applied -------------------------------------------------------------------------------------- */

static int commit(plan* P) {
  merger* M = P->M;
  for (size_t i = 0; i < P->npd; ++i)
    if (P->pd[i].p && P->pd[i].p->oom) return SKC_OUT_OF_MEMORY;
  if (!grow(&M->bufs, &M->capbuf, M->nbuf + P->npd, sizeof *M->bufs) ||
      !grow(&M->links, &M->caplink, M->nlink + P->nlink, sizeof *M->links) ||
      !grow(&M->gone, &M->capgone, M->ngone + P->n, sizeof *M->gone))
    return SKC_OUT_OF_MEMORY;
  for (size_t i = 0; i < P->npd; ++i) {
    skio_fbx_change* c = &M->ch[P->pd[i].rec];
    const skio_fbx_props* b = P->pd[i].p;
    if (!b) {
      c->drop = true;
      continue;
    }
    c->props = b->p;
    c->props_len = b->n;
    c->prop_count = b->count;
    M->bufs[M->nbuf++] = P->pd[i].p;
    P->pd[i].p = NULL; /* the merger frees it */
  }
  if (P->nlink) memcpy(M->links + M->nlink, P->links, P->nlink * sizeof *P->links);
  M->nlink += P->nlink;
  for (uint32_t k = 1; k < P->n; ++k) M->gone[M->ngone++] = P->parts[k].m->id;
  M->drop_model += P->n - 1;
  M->drop_geom += P->n - 1 + P->drop_geom;
  M->drop_deformer += P->drop_deformer;
  M->drop_node += P->drop_node;
  M->drop_curve += P->drop_curve;
  ++M->groups;
  return SKC_OK;
}

static void plan_free(plan* P) {
  for (size_t i = 0; i < P->npd; ++i)
    if (P->pd[i].p) {
      free(P->pd[i].p->p);
      free(P->pd[i].p);
    }
  free(P->pd);
  free(P->parts);
  free(P->mats);
  free(P->mat_conns);
  free(P->merged);
  free(P->slot);
  free(P->cl);
  free(P->links);
}

/* Merges Models ms[0 .. n) (file order) into ms[0], or leaves them (SKC_OK either way; errors: out of memory). */
static int merge_group(merger* M, const mesh* const* ms, uint32_t n) {
  plan P = {0};
  P.M = M;
  P.n = n;
  P.parts = calloc(n, sizeof *P.parts);
  uint32_t* off = calloc(n, sizeof *off);
  int rc = P.parts && off ? SKC_OK : SKC_OUT_OF_MEMORY;
  for (uint32_t k = 0; k < n && !rc; ++k)
    P.parts[k] = (part){ms[k], SKIO_FBX_NONE, SKIO_FBX_NONE, SKIO_FBX_NONE, 0, 0, 0, 0, 0, 0, 0, 0};
  if (!rc) rc = collect_parts(&P);
  if (!rc) rc = merge_vertices(&P, off);
  if (!rc) rc = merge_layers(&P);
  if (!rc) rc = merge_skins(&P, off);
  if (!rc && P.parts[0].shapes != SKIO_FBX_NONE) rc = skio_fbxm_merge_shapes(&P, off); /* fbx_merge_shapes.c */
  if (!rc) rc = drop_parts(&P);
  if (!rc) rc = commit(&P);
  plan_free(&P);
  free(off);
  return rc == REFUSE ? SKC_OK : rc;
}

/* Every group: meshes of one name, parent and Properties70 (exactly equal), in file order. */
static int merge_all(merger* M) {
  if (!M->nmesh) return SKC_OK;
  qsort(M->meshes, M->nmesh, sizeof *M->meshes, by_group);
  const mesh* parts[MAX_PARTS];
  int rc = SKC_OK;
  for (size_t i = 0, j; i < M->nmesh && !rc; i = j) {
    for (j = i + 1; j < M->nmesh && same_group(&M->meshes[i], &M->meshes[j]);) ++j;
    if (j - i < 2 || j - i > MAX_PARTS) continue;
    bool taken[MAX_PARTS] = {false};
    for (size_t a = i; a < j && !rc && M->groups < MAX_GROUPS; ++a) {
      if (taken[a - i]) continue;
      uint32_t n = 0;
      parts[n++] = &M->meshes[a];
      for (size_t b = a + 1; b < j; ++b)
        if (!taken[b - i] && p70_equal(&M->t, M->meshes[a].rec, M->meshes[b].rec)) {
          taken[b - i] = true;
          parts[n++] = &M->meshes[b];
        }
      if (n > 1) rc = merge_group(M, parts, n);
    }
  }
  return rc == REFUSE ? SKC_OK : rc;
}

/* ---- the file: poses, counts, connections ----------------------------------------------------------------- */

static skio_fbx_props* new_buf(merger* M) {
  skio_fbx_props* b = calloc(1, sizeof *b);
  if (!b || !grow(&M->bufs, &M->capbuf, M->nbuf + 1, sizeof *M->bufs)) {
    free(b);
    return NULL;
  }
  M->bufs[M->nbuf++] = b;
  return b;
}

/* Integer record r (none: nothing) lowered by k. */
static int lower(merger* M, uint32_t r, uint32_t k) {
  int64_t v;
  if (r == SKIO_FBX_NONE || !k || !skio_fbx_prop_i64(&M->t, r, 0, &v)) return SKC_OK;
  skio_fbx_props* b = new_buf(M);
  if (!b) return SKC_OUT_OF_MEMORY;
  skio_fbx_put_i32(b, (int32_t)(v > (int64_t)k ? (v - (int64_t)k > INT32_MAX ? INT32_MAX : v - (int64_t)k) : 0));
  if (b->oom) return SKC_OUT_OF_MEMORY;
  M->ch[r].props = b->p;
  M->ch[r].props_len = b->n;
  M->ch[r].prop_count = b->count;
  return SKC_OK;
}

static int by_i64(const void* a, const void* b) {
  const int64_t *x = a, *y = b;
  return *x < *y ? -1 : *x > *y;
}

/* The dropped Models' PoseNodes dropped, NbPoseNodes lowered. */
static int fix_poses(merger* M) {
  const skio_fbx_tree* t = &M->t;
  qsort(M->gone, M->ngone, sizeof *M->gone, by_i64);
  int rc = SKC_OK;
  for (uint32_t r = t->recs[M->objects].first; r != SKIO_FBX_NONE && !rc; r = t->recs[r].next) {
    if (!name_is(t, r, "Pose")) continue;
    uint32_t dropped = 0;
    for (uint32_t c = skio_fbx_child(t, r, "PoseNode", SKIO_FBX_NONE); c != SKIO_FBX_NONE;
         c = skio_fbx_child(t, r, "PoseNode", c)) {
      const uint32_t node = skio_fbx_child(t, c, "Node", SKIO_FBX_NONE);
      int64_t id;
      if (node == SKIO_FBX_NONE || !skio_fbx_prop_i64(t, node, 0, &id) ||
          !bsearch(&id, M->gone, M->ngone, sizeof *M->gone, by_i64))
        continue;
      M->ch[c].drop = true;
      ++dropped;
    }
    rc = lower(M, skio_fbx_child(t, r, "NbPoseNodes", SKIO_FBX_NONE), dropped);
  }
  return rc;
}

/* The Definitions' total Count and the Model, Geometry, Deformer, AnimationCurveNode and AnimationCurve ObjectTypes'
 * lowered by what was dropped. */
static int lower_definitions(merger* M) {
  const skio_fbx_tree* t = &M->t;
  const uint32_t defs = skio_fbx_child(t, SKIO_FBX_NONE, "Definitions", SKIO_FBX_NONE);
  if (defs == SKIO_FBX_NONE) return SKC_OK;
  int rc = lower(M, skio_fbx_child(t, defs, "Count", SKIO_FBX_NONE),
                 M->drop_model + M->drop_geom + M->drop_deformer + M->drop_node + M->drop_curve);
  for (uint32_t o = skio_fbx_child(t, defs, "ObjectType", SKIO_FBX_NONE); o != SKIO_FBX_NONE && !rc;
       o = skio_fbx_child(t, defs, "ObjectType", o)) {
    const uint32_t k = skio_fbx_prop_str_is(t, o, 0, "Model")                ? M->drop_model
                       : skio_fbx_prop_str_is(t, o, 0, "Geometry")           ? M->drop_geom
                       : skio_fbx_prop_str_is(t, o, 0, "Deformer")           ? M->drop_deformer
                       : skio_fbx_prop_str_is(t, o, 0, "AnimationCurveNode") ? M->drop_node
                       : skio_fbx_prop_str_is(t, o, 0, "AnimationCurve")     ? M->drop_curve
                                                                             : 0;
    rc = lower(M, skio_fbx_child(t, o, "Count", SKIO_FBX_NONE), k);
  }
  return rc;
}

/* The new OO connections appended to Connections (*recs: freed by the caller). */
static int add_connections(merger* M, skio_fbx_new** recs) {
  if (!M->nlink) return SKC_OK;
  if (!(*recs = calloc(M->nlink, sizeof **recs))) return SKC_OUT_OF_MEMORY;
  for (size_t i = 0; i < M->nlink; ++i) {
    skio_fbx_props* b = new_buf(M);
    if (!b) return SKC_OUT_OF_MEMORY;
    skio_fbx_put_str(b, "OO", 2);
    skio_fbx_put_i64(b, M->links[i].child);
    skio_fbx_put_i64(b, M->links[i].parent);
    if (b->oom) return SKC_OUT_OF_MEMORY;
    (*recs)[i] = (skio_fbx_new){"C", b->p, b->n, b->count, NULL, 0};
  }
  M->ch[M->connections].add = *recs;
  M->ch[M->connections].add_count = (uint32_t)M->nlink;
  return SKC_OK;
}

static int merge_file(merger* M, uint8_t** out, size_t* out_n, skc_err* err) {
  int rc = read_connections(M, err);
  if (!rc) rc = read_objects(M, err);
  if (!rc) rc = read_meshes(M, err);
  if (!rc) rc = merge_all(M);
  skio_fbx_new* recs = NULL;
  if (!rc && M->groups) rc = fix_poses(M);
  if (!rc && M->groups) rc = lower_definitions(M);
  if (!rc && M->groups) rc = add_connections(M, &recs);
  if (rc == SKC_OUT_OF_MEMORY && !(err && err->code)) rc = skc_fail(err, rc, "out of memory merging FBX meshes");
  if (!rc) rc = skio_fbx_tree_write(&M->t, M->ch, out, out_n, err);
  free(recs);
  return rc;
}

int skio_fbx_merge_parts(const uint8_t* in, size_t n, uint8_t** out, size_t* out_n, uint32_t* merged, skc_err* err) {
  if (!in || !out || !out_n) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  if (merged) *merged = 0;
  merger M = {0};
  int rc = skio_fbx_tree_parse(in, n, &M.t, err);
  if (rc) return rc;
  M.objects = skio_fbx_child(&M.t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  M.connections = skio_fbx_child(&M.t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  M.ch = calloc(M.t.count ? M.t.count : 1, sizeof *M.ch);
  rc = M.ch ? merge_file(&M, out, out_n, err) : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc && merged) *merged = M.groups;
  for (size_t i = 0; i < M.nbuf; ++i) {
    free(M.bufs[i]->p);
    free(M.bufs[i]);
  }
  free(M.bufs);
  free(M.links);
  free(M.gone);
  free(M.ch);
  free(M.by_child);
  free(M.by_parent);
  free(M.objs);
  free(M.meshes);
  skio_fbx_tree_free(&M.t);
  return rc;
}
