/* fbx_shapes_write.c - the blend shapes of skinkit's meshes added to the binary FBX Assimp 5.2.5's writer wrote
 * (skio_fbx_add_blend_shapes).
 *
 * Assimp's FBX writer writes no blend shapes, so shape keys / morph targets were lost in .fbx. scene_export.c gives
 * each aiMesh its blend shapes as anim meshes (whole positions and normals, transformed as the mesh's vertices); this
 * pass writes them as Blender's and Maya's FBX files hold them: per mesh Geometry a Deformer "BlendShape" connected to
 * it, per shape a Deformer "BlendShapeChannel" (DeformPercent = the default weight x 100, FullWeights [100])
 * connected to the BlendShape and a Geometry "Shape" connected to its channel: Indexes (the control points the shape
 * moves), Vertices (their offsets) and Normals (offsets too; zeros without normals, as Blender writes them: Assimp's
 * reader requires the record).
 *
 * Assimp writes one Geometry per aiMesh in mesh order. Assimp 5.2.4 writes each aiMesh vertex as a control point, in
 * order (seam twins too): then vertex i is control point i. A writer that writes each distinct position once (in
 * order of first appearance, compared exactly) is matched too: a vertex is then the first control point of its
 * position (a hash map), and of the vertices of one control point that move differently the first one's offset is
 * written. A mesh whose Geometry is matched neither way (a position not found) or already has a BlendShape gets
 * none.
 * New objects get ids above every id of the file; the Definitions' Geometry and Deformer counts (where the file has
 * those ObjectTypes) and the total Count grow by what is added. Work is bounded by the file's and the scene's size. */
#include <assimp/scene.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"

#define MAX_NAME 1024u /* bytes of a name written before its class */

typedef struct shapes {
  skio_fbx_tree t;
  uint32_t objects, conns;
  skio_fbx_new *objs, *links; /* records added to Objects and to Connections */
  uint32_t nobj, capobj, nlink, caplink;
  void** kept; /* what the new records point to */
  size_t nkept, capkept;
  int64_t next_id;
  uint32_t geoms, deformers; /* added */
  int64_t* shaped;           /* ids of the Geometries that already have a BlendShape, sorted */
  uint32_t nshaped;
  bool oom;
} shapes;

static bool grow(void** p, uint32_t* cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t c = *cap ? (size_t)*cap * 2 : 16;
  while (c < need) c *= 2;
  if (c > UINT32_MAX) return false;
  void* q = realloc(*p, c * size);
  if (!q) return false;
  *p = q;
  *cap = (uint32_t)c;
  return true;
}

/* p kept until the pass ends (NULL, or no room to keep it: out of memory, p freed). */
static void* keep(shapes* S, void* p) {
  if (!p) {
    S->oom = true;
    return NULL;
  }
  if (S->nkept == S->capkept) {
    size_t c = S->capkept ? S->capkept * 2 : 64;
    void** q = realloc(S->kept, c * sizeof *q);
    if (!q) {
      free(p);
      S->oom = true;
      return NULL;
    }
    S->kept = q;
    S->capkept = c;
  }
  return S->kept[S->nkept++] = p;
}

/* A record of props b with kids (count of them) appended to list; false when out of memory. */
static bool push(shapes* S, skio_fbx_new** list, uint32_t* n, uint32_t* cap, const char* name, skio_fbx_props* b,
                 skio_fbx_new* kids, uint32_t kid_count) {
  if (b->oom || !keep(S, b->p) || !grow((void**)list, cap, (size_t)*n + 1, sizeof **list)) return S->oom = true, false;
  (*list)[(*n)++] = (skio_fbx_new){name, b->p, b->n, b->count, kids, kid_count};
  return true;
}

static bool link(shapes* S, int64_t child, int64_t parent) {
  skio_fbx_props b = {0};
  skio_fbx_put_str(&b, "OO", 2);
  skio_fbx_put_i64(&b, child);
  skio_fbx_put_i64(&b, parent);
  return push(S, &S->links, &S->nlink, &S->caplink, "C", &b, NULL, 0);
}

/* kid k of kids: record `name` with props b (kept by the caller). */
static bool kid(shapes* S, skio_fbx_new* kids, uint32_t k, const char* name, skio_fbx_props* b) {
  if (b->oom) return S->oom = true, false;
  kids[k] = (skio_fbx_new){name, b->p, b->n, b->count, NULL, 0};
  return true;
}

static bool version_kid(shapes* S, skio_fbx_new* kids, uint32_t k) {
  skio_fbx_props b = {0};
  skio_fbx_put_i32(&b, 100);
  b.oom = b.oom || !keep(S, b.p);
  return kid(S, kids, k, "Version", &b);
}

/* An object's first properties: a new id, "name\0\1cls", type. 0 when out of ids or memory. */
static int64_t head(shapes* S, skio_fbx_props* b, const char* name, const char* cls, const char* type) {
  if (S->next_id <= 0 || S->next_id == INT64_MAX) return 0;
  const int64_t id = S->next_id++;
  char buf[MAX_NAME + 32];
  size_t len = 0, cl = strlen(cls);
  while (len < MAX_NAME && name[len]) ++len;
  memcpy(buf, name, len);
  memcpy(buf + len, "\0\1", 2);
  memcpy(buf + len + 2, cls, cl);
  skio_fbx_put_i64(b, id);
  skio_fbx_put_str(b, buf, len + 2 + cl);
  skio_fbx_put_str(b, type, strlen(type));
  return b->oom ? 0 : id;
}

/* ---- control points ------------------------------------------------------------------------------------------ */

typedef struct cpmap {
  const double* v; /* control points, 3 doubles each */
  uint32_t* slot;  /* hash table of control point index + 1 (0: empty) */
  size_t mask;
} cpmap;

static double canon(double d) { return d == 0.0 ? 0.0 : d; } /* -0 is 0, as Assimp's writer compares */

static size_t hash3(const double p[3]) {
  uint64_t h = 1469598103934665603ull;
  for (int k = 0; k < 3; ++k) {
    double d = canon(p[k]);
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    h = (h ^ b) * 1099511628211ull;
    h ^= h >> 29;
  }
  return (size_t)h;
}

static bool same3(const double* a, const double* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

/* The table of the first control point of each position; false when out of memory. */
static bool cp_build(cpmap* m, const double* v, size_t count) {
  size_t cap = 16;
  while (cap < count * 2) cap *= 2;
  m->v = v;
  m->mask = cap - 1;
  if (!(m->slot = calloc(cap, sizeof *m->slot))) return false;
  for (size_t i = 0; i < count; ++i) {
    size_t h = hash3(v + i * 3) & m->mask;
    while (m->slot[h] && !same3(v + (m->slot[h] - 1) * 3, v + i * 3)) h = (h + 1) & m->mask;
    if (!m->slot[h]) m->slot[h] = (uint32_t)i + 1;
  }
  return true;
}

/* The control point at position p, or -1. */
static int64_t cp_find(const cpmap* m, const double p[3]) {
  for (size_t h = hash3(p) & m->mask; m->slot[h]; h = (h + 1) & m->mask)
    if (same3(m->v + (m->slot[h] - 1) * 3, p)) return (int64_t)m->slot[h] - 1;
  return -1;
}

/* Control point i is vertex i (Assimp 5.2.4 writes every vertex as one, seams' twins included). */
static bool is_identity(const struct aiMesh* am, const double* v, size_t count) {
  if (count != am->mNumVertices) return false;
  for (size_t i = 0; i < count; ++i) {
    const double p[3] = {am->mVertices[i].x, am->mVertices[i].y, am->mVertices[i].z};
    if (!same3(p, v + i * 3)) return false;
  }
  return true;
}

/* cp[v] = the control point of aiMesh vertex v: itself when the control points are the vertices, else the first of
 * its position (a writer that writes each position once); false when one has none. */
static bool map_vertices(const struct aiMesh* am, const double* v, size_t count, uint32_t* cp) {
  if (count <= UINT32_MAX - 1 && is_identity(am, v, count)) {
    for (uint32_t i = 0; i < am->mNumVertices; ++i) cp[i] = i;
    return true;
  }
  cpmap m = {0};
  bool ok = count <= UINT32_MAX - 1 && cp_build(&m, v, count);
  for (unsigned i = 0; ok && i < am->mNumVertices; ++i) {
    const double p[3] = {am->mVertices[i].x, am->mVertices[i].y, am->mVertices[i].z};
    const int64_t c = cp_find(&m, p);
    ok = c >= 0;
    cp[i] = (uint32_t)c;
  }
  free(m.slot);
  return ok;
}

/* ---- one shape ----------------------------------------------------------------------------------------------- */

/* Offsets per control point (3 doubles each for positions and normals; normals 0 without nrm): the first vertex's. */
typedef struct offsets {
  double *d, *n;
  uint8_t* set;
  int32_t* idx; /* the control points listed */
  size_t count;
} offsets;

static void diff(const struct aiVector3D* a, const struct aiVector3D* b, double* out) {
  out[0] = (double)a->x - (double)b->x;
  out[1] = (double)a->y - (double)b->y;
  out[2] = (double)a->z - (double)b->z;
}

/* The offsets of anim mesh a over aiMesh am (cp: vertex -> control point, C control points). */
static void shape_offsets(const struct aiMesh* am, const struct aiAnimMesh* a, const uint32_t* cp, size_t C, bool nrm,
                          offsets* o) {
  memset(o->set, 0, C);
  for (unsigned v = 0; v < am->mNumVertices; ++v) {
    const uint32_t c = cp[v];
    if (o->set[c]) continue; /* a later vertex of the control point: the first one's offset stands */
    o->set[c] = 1;
    diff(&a->mVertices[v], &am->mVertices[v], o->d + (size_t)c * 3);
    if (nrm)
      diff(&a->mNormals[v], &am->mNormals[v], o->n + (size_t)c * 3);
    else
      memset(o->n + (size_t)c * 3, 0, 3 * sizeof *o->n);
  }
  o->count = 0;
  for (size_t c = 0; c < C; ++c) {
    const double* d = o->d + c * 3;
    const double* n = o->n + c * 3;
    if (!o->set[c] || (!d[0] && !d[1] && !d[2] && !n[0] && !n[1] && !n[2])) continue;
    o->idx[o->count] = (int32_t)c;
    memmove(o->d + o->count * 3, d, 3 * sizeof *d); /* compacted in place: count <= c */
    memmove(o->n + o->count * 3, n, 3 * sizeof *n);
    o->count++;
  }
  if (!o->count && C) { /* a shape that moves nothing still lists one control point (readers skip empty ones) */
    o->idx[0] = 0;
    memset(o->d, 0, 3 * sizeof *o->d);
    memset(o->n, 0, 3 * sizeof *o->n);
    o->count = 1;
  }
}

/* The Shape Geometry of o and its channel, connected to blend shape deformer bs. */
static bool add_shape(shapes* S, const struct aiAnimMesh* a, const offsets* o, int64_t bs) {
  skio_fbx_props g = {0}, c = {0}, p[5] = {{0}, {0}, {0}, {0}, {0}}; /* Indexes Vertices Normals DeformPercent FullW. */
  const int64_t gid = head(S, &g, a->mName.data, "Geometry", "Shape");
  const int64_t cid = head(S, &c, a->mName.data, "SubDeformer", "BlendShapeChannel");
  const double percent = isfinite(a->mWeight) ? (double)a->mWeight * 100.0 : 0.0, full = 100.0;
  skio_fbx_put_i32_array(&p[0], o->idx, o->count, 1);
  skio_fbx_put_f64_array(&p[1], o->d, o->count * 3, 1);
  skio_fbx_put_f64_array(&p[2], o->n, o->count * 3, 1);
  skio_fbx_put_raw(&p[3], (const uint8_t*)"D", 1, 0);
  skio_fbx_put_raw(&p[3], (const uint8_t*)&percent, sizeof percent, 1); /* little-endian hosts, as fbx_tree.c */
  skio_fbx_put_f64_array(&p[4], &full, 1, 0);
  for (int k = 0; k < 5; ++k) p[k].oom = p[k].oom || !keep(S, p[k].p);
  skio_fbx_new* gk = keep(S, calloc(4, sizeof *gk));
  skio_fbx_new* ck = keep(S, calloc(3, sizeof *ck));
  if (!gid || !cid || !gk || !ck || !version_kid(S, gk, 0) || !kid(S, gk, 1, "Indexes", &p[0]) ||
      !kid(S, gk, 2, "Vertices", &p[1]) || !kid(S, gk, 3, "Normals", &p[2]) || !version_kid(S, ck, 0) ||
      !kid(S, ck, 1, "DeformPercent", &p[3]) || !kid(S, ck, 2, "FullWeights", &p[4])) {
    free(g.p), free(c.p);
    return S->oom = true, false;
  }
  if (!push(S, &S->objs, &S->nobj, &S->capobj, "Geometry", &g, gk, 4)) return free(c.p), false;
  if (!push(S, &S->objs, &S->nobj, &S->capobj, "Deformer", &c, ck, 3)) return false;
  S->geoms++;
  S->deformers++;
  return link(S, gid, cid) && link(S, cid, bs);
}

/* ---- one mesh ------------------------------------------------------------------------------------------------ */

static int by_value(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x < y ? -1 : x > y;
}

static bool in_sorted(const int64_t* v, size_t n, int64_t id) {
  return n && bsearch(&id, v, n, sizeof *v, by_value) != NULL;
}

/* S->shaped: the ids of the objects a BlendShape deformer is connected to (sorted); false when out of memory. */
static bool find_shaped(shapes* S) {
  const skio_fbx_tree* t = &S->t;
  int64_t* bs = NULL;
  uint32_t nbs = 0, cap = 0, capsh = 0;
  bool ok = true;
  for (uint32_t d = skio_fbx_child(t, S->objects, "Deformer", SKIO_FBX_NONE); ok && d != SKIO_FBX_NONE;
       d = skio_fbx_child(t, S->objects, "Deformer", d)) {
    int64_t id;
    if (!skio_fbx_prop_str_is(t, d, 2, "BlendShape") || !skio_fbx_prop_i64(t, d, 0, &id)) continue;
    if ((ok = grow((void**)&bs, &cap, (size_t)nbs + 1, sizeof *bs))) bs[nbs++] = id;
  }
  if (nbs) qsort(bs, nbs, sizeof *bs, by_value);
  for (uint32_t c = nbs ? skio_fbx_child(t, S->conns, "C", SKIO_FBX_NONE) : SKIO_FBX_NONE; ok && c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, S->conns, "C", c)) {
    int64_t child, parent;
    if (!skio_fbx_prop_i64(t, c, 1, &child) || !skio_fbx_prop_i64(t, c, 2, &parent) || !in_sorted(bs, nbs, child))
      continue;
    if ((ok = grow((void**)&S->shaped, &capsh, (size_t)S->nshaped + 1, sizeof *S->shaped)))
      S->shaped[S->nshaped++] = parent;
  }
  if (S->nshaped) qsort(S->shaped, S->nshaped, sizeof *S->shaped, by_value);
  free(bs);
  return ok;
}

static bool shape_usable(const struct aiMesh* am, const struct aiAnimMesh* a) {
  return a && a->mVertices && a->mNumVertices == am->mNumVertices;
}

/* The BlendShape of Geometry record g (id gid) and its shapes from am's anim meshes (cp: vertex -> control point). */
static int add_mesh_shapes(shapes* S, const struct aiMesh* am, int64_t gid, const uint32_t* cp, size_t C) {
  offsets o = {malloc(C * 3 * sizeof *o.d), malloc(C * 3 * sizeof *o.n), malloc(C), malloc(C * 4), 0};
  skio_fbx_props b = {0};
  int64_t bs = head(S, &b, am->mName.data, "Deformer", "BlendShape");
  skio_fbx_new* bk = keep(S, calloc(1, sizeof *bk));
  bool ok = bs && bk && o.d && o.n && o.set && o.idx && version_kid(S, bk, 0);
  if (!ok) free(b.p); /* push owns b.p from here on */
  ok = ok && push(S, &S->objs, &S->nobj, &S->capobj, "Deformer", &b, bk, 1) && link(S, bs, gid);
  if (ok) S->deformers++;
  for (unsigned k = 0; ok && k < am->mNumAnimMeshes; ++k) {
    const struct aiAnimMesh* a = am->mAnimMeshes[k];
    if (!shape_usable(am, a)) continue;
    shape_offsets(am, a, cp, C, am->mNormals && a->mNormals, &o);
    ok = add_shape(S, a, &o, bs);
  }
  free(o.d), free(o.n), free(o.set), free(o.idx);
  return ok ? SKC_OK : SKC_OUT_OF_MEMORY;
}

/* aiMesh am and its Geometry record g: the shapes added when every vertex is a control point of g. */
static int mesh_shapes(shapes* S, const struct aiMesh* am, uint32_t g, skc_err* err) {
  int64_t gid;
  bool any = false;
  for (unsigned k = 0; k < am->mNumAnimMeshes && am->mAnimMeshes; ++k) any |= shape_usable(am, am->mAnimMeshes[k]);
  if (!any || !am->mVertices || !skio_fbx_prop_i64(&S->t, g, 0, &gid) || in_sorted(S->shaped, S->nshaped, gid) ||
      S->next_id > INT64_MAX - 2 * (int64_t)am->mNumAnimMeshes - 2)
    return SKC_OK;
  double* v = NULL;
  size_t n = 0;
  skc_err ignored = {0};
  if (skio_fbx_child_f64(&S->t, g, "Vertices", &v, &n, &ignored))
    return ignored.code == SKC_OUT_OF_MEMORY ? skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory") : SKC_OK;
  const size_t C = n / 3;
  uint32_t* cp = C && n % 3 == 0 && C <= am->mNumVertices ? malloc((size_t)am->mNumVertices * sizeof *cp) : NULL;
  int rc = cp && map_vertices(am, v, C, cp) ? add_mesh_shapes(S, am, gid, cp, C) : SKC_OK;
  free(cp);
  free(v);
  return rc ? skc_fail(err, rc, "out of memory adding blend shapes") : SKC_OK;
}

/* ---- the file ------------------------------------------------------------------------------------------------ */

/* The largest object id of the file, plus one (every Objects record's first property, and every connection's). */
static int64_t next_id(const skio_fbx_tree* t, uint32_t objects, uint32_t conns) {
  int64_t max = 0, v;
  for (uint32_t r = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : t->recs[objects].first; r != SKIO_FBX_NONE;
       r = t->recs[r].next)
    if (skio_fbx_prop_i64(t, r, 0, &v) && v > max) max = v;
  for (uint32_t c = conns == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, conns, "C", SKIO_FBX_NONE);
       c != SKIO_FBX_NONE; c = skio_fbx_child(t, conns, "C", c))
    for (uint32_t k = 1; k < 3; ++k)
      if (skio_fbx_prop_i64(t, c, k, &v) && v > max) max = v;
  return max < INT64_MAX ? max + 1 : 0;
}

/* Count record r (one integer) raised by k into b. */
static void raise_count(shapes* S, uint32_t r, int64_t k, skio_fbx_props* b, skio_fbx_change* ch) {
  int64_t v;
  if (r == SKIO_FBX_NONE || !k || S->t.recs[r].prop_count != 1 || !skio_fbx_prop_i64(&S->t, r, 0, &v)) return;
  skio_fbx_put_i32(b, (int32_t)(v + k > INT32_MAX ? INT32_MAX : v + k));
  if (b->oom || !keep(S, b->p)) return;
  ch[r] = (skio_fbx_change){b->p, b->n, b->count, false, NULL, 0};
}

/* Definitions: the Geometry and Deformer ObjectTypes' Count and the total Count raised (nothing created). */
static void raise_definitions(shapes* S, skio_fbx_change* ch) {
  const skio_fbx_tree* t = &S->t;
  const uint32_t defs = skio_fbx_child(t, SKIO_FBX_NONE, "Definitions", SKIO_FBX_NONE);
  if (defs == SKIO_FBX_NONE) return;
  skio_fbx_props b[3] = {{0}, {0}, {0}};
  int64_t total = 0;
  for (uint32_t o = skio_fbx_child(t, defs, "ObjectType", SKIO_FBX_NONE); o != SKIO_FBX_NONE;
       o = skio_fbx_child(t, defs, "ObjectType", o)) {
    const int g = skio_fbx_prop_str_is(t, o, 0, "Geometry") ? 1 : skio_fbx_prop_str_is(t, o, 0, "Deformer") ? 2 : 0;
    const uint32_t count = skio_fbx_child(t, o, "Count", SKIO_FBX_NONE);
    if (!g || count == SKIO_FBX_NONE || ch[count].props) continue;
    raise_count(S, count, g == 1 ? S->geoms : S->deformers, &b[g], ch);
    total += g == 1 ? S->geoms : S->deformers;
  }
  raise_count(S, skio_fbx_child(t, defs, "Count", SKIO_FBX_NONE), total, &b[0], ch);
}

static int add_all(shapes* S, const struct aiScene* sc, skc_err* err) {
  const skio_fbx_tree* t = &S->t;
  uint32_t g = skio_fbx_child(t, S->objects, "Geometry", SKIO_FBX_NONE);
  int rc = SKC_OK;
  for (unsigned m = 0; m < sc->mNumMeshes && sc->mMeshes && !rc; ++m) {
    while (g != SKIO_FBX_NONE && !skio_fbx_prop_str_is(t, g, 2, "Mesh"))
      g = skio_fbx_child(t, S->objects, "Geometry", g);
    if (g == SKIO_FBX_NONE) break;
    if (sc->mMeshes[m]) rc = mesh_shapes(S, sc->mMeshes[m], g, err);
    g = skio_fbx_child(t, S->objects, "Geometry", g);
  }
  return rc;
}

int skio_fbx_add_blend_shapes(const uint8_t* in, size_t n, const struct aiScene* sc, uint8_t** out, size_t* out_n,
                              uint32_t* added, skc_err* err) {
  if (!in || !sc || !out || !out_n) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  if (added) *added = 0;
  shapes S = {0};
  int rc = skio_fbx_tree_parse(in, n, &S.t, err);
  if (rc) return rc;
  S.objects = skio_fbx_child(&S.t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  S.conns = skio_fbx_child(&S.t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  S.next_id = next_id(&S.t, S.objects, S.conns);
  skio_fbx_change* ch = calloc(S.t.count ? S.t.count : 1, sizeof *ch);
  if (!ch) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc && S.objects != SKIO_FBX_NONE && S.conns != SKIO_FBX_NONE)
    rc = find_shaped(&S) ? add_all(&S, sc, err) : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc && S.oom) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding blend shapes");
  if (!rc && S.nobj) {
    raise_definitions(&S, ch);
    ch[S.objects].add = S.objs, ch[S.objects].add_count = S.nobj;
    ch[S.conns].add = S.links, ch[S.conns].add_count = S.nlink;
    if (S.oom) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding blend shapes");
  }
  if (!rc) rc = skio_fbx_tree_write(&S.t, ch, out, out_n, err);
  if (!rc && added) *added = S.geoms;
  for (size_t i = 0; i < S.nkept; ++i) free(S.kept[i]);
  free(S.kept);
  free(S.objs);
  free(S.links);
  free(S.shaped);
  free(ch);
  skio_fbx_tree_free(&S.t);
  return rc;
}
