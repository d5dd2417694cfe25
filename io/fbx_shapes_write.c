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
 *
 * Shape key animation (add_anims): Assimp's writer ignores aiAnimation::mMorphMeshChannels, and for a clip that keys
 * only shape keys writes an AnimationStack (LocalStop: the duration cut to whole seconds) and its AnimationLayer with
 * nothing in them, which its reader drops. It writes one stack per aiAnimation, in order, each with one layer: the
 * a-th AnimationStack of the file is animation a. A morph channel names its aiMesh by index ("0", "3"; any other name
 * is ignored, as a mesh's second channel in one clip); for each target t of it with a channel made here, Blender
 * 3.4's layout is written: an AnimationCurveNode "DeformPercent" (P d|DeformPercent = the first value) connected to
 * the clip's layer (OO) and to the BlendShapeChannel's DeformPercent (OP), and an AnimationCurve (KeyVer 4008,
 * KeyTime in FBX ticks = seconds (mTime / mTicksPerSecond, 25 when that is not positive) x 46186158000, KeyValueFloat
 * = weight x 100, Blender's KeyAttrFlags / KeyAttrDataFloat for linear keys, KeyAttrRefCount = the key count)
 * connected to it (OP d|DeformPercent). The curve has a key at every key of the channel (times that are not finite,
 * beyond 1e7 s or not after the key before are skipped): where the key gives t no weight it is taken from t's own
 * keys, linear in time between them, held before the first and after the last. Then the stack's LocalStop and
 * ReferenceStop are raised to its last shape key where they are earlier (Assimp's reader takes a stack whose start and
 * stop are both 0 as having no range, and then shifts shape keys by a start of 1e10 s: a stop is kept past the
 * start), added when missing.
 *
 * New objects get ids above every id of the file; the Definitions' Geometry, Deformer, AnimationCurveNode and
 * AnimationCurve counts (the first ObjectType of each; the two curve types added when missing) and the total Count
 * grow by what is added. Work is bounded by the file's and the scene's size: per morph channel, keys x targets. */
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
  int64_t* chan; /* per anim mesh of the scene, mesh after mesh: the id of the BlendShapeChannel made of it (0: none) */
  size_t* base;  /* per aiMesh: its first entry in chan */
  uint32_t cnodes, curves; /* AnimationCurveNodes and AnimationCurves added */
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

/* The Shape Geometry of o and its channel (its id in *channel), connected to blend shape deformer bs. */
static bool add_shape(shapes* S, const struct aiAnimMesh* a, const offsets* o, int64_t bs, int64_t* channel) {
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
  *channel = cid;
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

/* The BlendShape of Geometry record g (id gid) and its shapes from am's anim meshes (cp: vertex -> control point);
 * ids[k]: the channel made of anim mesh k. */
static int add_mesh_shapes(shapes* S, const struct aiMesh* am, int64_t gid, const uint32_t* cp, size_t C,
                           int64_t* ids) {
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
    ok = add_shape(S, a, &o, bs, &ids[k]);
  }
  free(o.d), free(o.n), free(o.set), free(o.idx);
  return ok ? SKC_OK : SKC_OUT_OF_MEMORY;
}

/* aiMesh am and its Geometry record g: the shapes added when every vertex is a control point of g (ids as
 * add_mesh_shapes). */
static int mesh_shapes(shapes* S, const struct aiMesh* am, uint32_t g, int64_t* ids, skc_err* err) {
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
  int rc = cp && map_vertices(am, v, C, cp) ? add_mesh_shapes(S, am, gid, cp, C, ids) : SKC_OK;
  free(cp);
  free(v);
  return rc ? skc_fail(err, rc, "out of memory adding blend shapes") : SKC_OK;
}

/* ---- shape key animation ------------------------------------------------------------------------------------- */

#define KEY_VER 4008                 /* the KeyVer Blender 3.4 writes */
#define KEY_FLAGS_LINEAR 24836       /* its KeyAttrFlags: linear interpolation (0x4), auto tangents, as for every key */
#define KEY_DATA_WEIGHTS 0x0f3f0f3fu /* its KeyAttrDataFloat[2]: the packed default tangent weights */
#define MAX_SECONDS 1e7              /* keys kept: |time| <= 1e7 s, so tick differences stay inside int64 */
#define MAX_PERCENT 1e6              /* DeformPercent values clamped to +-1e6 (they are written as floats) */

typedef struct clip {
  uint32_t rec;  /* its AnimationStack record */
  int64_t layer; /* the id of the first AnimationLayer connected to it (0: none) */
  int64_t last;  /* the last shape key written to it, in FBX ticks */
  bool keyed;    /* shape keys were written to it */
} clip;

typedef struct stack_ref {
  int64_t id;
  uint32_t k;
} stack_ref;

static int by_stack_id(const void* a, const void* b) {
  return by_value(&((const stack_ref*)a)->id, &((const stack_ref*)b)->id);
}

/* The ids of the objects named `name` in Objects, sorted (*n of them); false when out of memory. */
static bool object_ids(const shapes* S, const char* name, int64_t** ids, uint32_t* n) {
  uint32_t cap = 0;
  *ids = NULL;
  *n = 0;
  for (uint32_t r = skio_fbx_child(&S->t, S->objects, name, SKIO_FBX_NONE); r != SKIO_FBX_NONE;
       r = skio_fbx_child(&S->t, S->objects, name, r)) {
    int64_t id;
    if (!skio_fbx_prop_i64(&S->t, r, 0, &id)) continue;
    if (!grow((void**)ids, &cap, (size_t)*n + 1, sizeof **ids)) return false;
    (*ids)[(*n)++] = id;
  }
  if (*n) qsort(*ids, *n, sizeof **ids, by_value);
  return true;
}

/* c[0..*found): the file's first AnimationStacks, n at most (Assimp writes one per aiAnimation, in order), each with
 * the first AnimationLayer connected to it (OO). False when out of memory. */
static bool find_clips(const shapes* S, clip* c, uint32_t n, uint32_t* found) {
  const skio_fbx_tree* t = &S->t;
  stack_ref* stacks = malloc((size_t)n * sizeof *stacks);
  int64_t* layers = NULL;
  uint32_t nl = 0;
  *found = 0;
  bool ok = stacks && object_ids(S, "AnimationLayer", &layers, &nl);
  for (uint32_t r = skio_fbx_child(t, S->objects, "AnimationStack", SKIO_FBX_NONE);
       ok && r != SKIO_FBX_NONE && *found < n; r = skio_fbx_child(t, S->objects, "AnimationStack", r)) {
    int64_t id;
    if (!skio_fbx_prop_i64(t, r, 0, &id)) continue;
    c[*found] = (clip){r, 0, 0, false};
    stacks[*found] = (stack_ref){id, *found};
    ++*found;
  }
  if (ok && *found) qsort(stacks, *found, sizeof *stacks, by_stack_id);
  for (uint32_t r = ok && *found && nl ? skio_fbx_child(t, S->conns, "C", SKIO_FBX_NONE) : SKIO_FBX_NONE;
       r != SKIO_FBX_NONE; r = skio_fbx_child(t, S->conns, "C", r)) {
    stack_ref key = {0, 0};
    int64_t layer;
    if (!skio_fbx_prop_str_is(t, r, 0, "OO") || !skio_fbx_prop_i64(t, r, 1, &layer) ||
        !skio_fbx_prop_i64(t, r, 2, &key.id) || !in_sorted(layers, nl, layer))
      continue;
    const stack_ref* s = bsearch(&key, stacks, *found, sizeof *stacks, by_stack_id);
    if (s && !c[s->k].layer) c[s->k].layer = layer;
  }
  free(stacks);
  free(layers);
  return ok;
}

/* The aiMesh index a morph channel's name gives ("0", "3"): false when it is not a decimal index below n. */
static bool mesh_index(const struct aiString* name, unsigned n, unsigned* m) {
  uint64_t v = 0;
  if (!name->length || name->length > 10) return false;
  for (uint32_t i = 0; i < name->length; ++i) {
    if (name->data[i] < '0' || name->data[i] > '9') return false;
    v = v * 10 + (uint64_t)(name->data[i] - '0');
  }
  *m = (unsigned)v;
  return v < n;
}

/* A morph channel's keys over its mesh's T targets. */
typedef struct samples {
  int64_t* time; /* FBX ticks of the keys kept, strictly ascending */
  double* w;     /* per key kept, per target: DeformPercent (NaN: the key gives the target none) */
  uint32_t keys, targets;
} samples;

/* The keys of mc (ticks per second tps) over T targets: a key whose time is not finite, too far or not after the
 * key before (in ticks) is left out; a target's first finite weight at a key counts. False when out of memory. */
static bool sample_keys(const struct aiMeshMorphAnim* mc, double tps, uint32_t T, samples* s) {
  *s = (samples){NULL, NULL, 0, T};
  const size_t K = mc->mKeys ? mc->mNumKeys : 0;
  if (!K || !T) return true;
  if (K > SIZE_MAX / sizeof *s->w / T) return false;
  s->time = malloc(K * sizeof *s->time);
  s->w = malloc(K * T * sizeof *s->w);
  if (!s->time || !s->w) return false;
  for (size_t k = 0; k < K; ++k) {
    const struct aiMeshMorphKey* key = &mc->mKeys[k];
    const double sec = key->mTime / tps;
    if (!(fabs(sec) <= MAX_SECONDS)) continue;
    const int64_t tick = llround(sec * (double)SKIO_FBX_TICKS_PER_SECOND);
    if (s->keys && tick <= s->time[s->keys - 1]) continue;
    double* row = s->w + (size_t)s->keys * T;
    for (uint32_t i = 0; i < T; ++i) row[i] = NAN;
    for (unsigned i = 0; key->mValues && key->mWeights && i < key->mNumValuesAndWeights; ++i) {
      const unsigned t = key->mValues[i];
      const double w = key->mWeights[i] * 100.0;
      if (t < T && isnan(row[t]) && isfinite(w)) row[t] = fmin(fmax(w, -MAX_PERCENT), MAX_PERCENT);
    }
    s->time[s->keys++] = tick;
  }
  return true;
}

/* out[k]: target t's value at every key of s: its own where it has one, linear in time between its own, held before
 * the first and after the last. False when it has none. */
static bool target_values(const samples* s, uint32_t t, float* out) {
  uint32_t prev = UINT32_MAX;
  for (uint32_t k = 0; k < s->keys; ++k) {
    const double w = s->w[(size_t)k * s->targets + t];
    if (isnan(w)) continue;
    for (uint32_t j = prev == UINT32_MAX ? 0 : prev + 1; j < k; ++j) {
      const double p = prev == UINT32_MAX ? w : s->w[(size_t)prev * s->targets + t];
      const double f =
          prev == UINT32_MAX ? 0.0 : (double)(s->time[j] - s->time[prev]) / (double)(s->time[k] - s->time[prev]);
      out[j] = (float)(p + (w - p) * f);
    }
    out[k] = (float)w;
    prev = k;
  }
  for (uint32_t j = prev == UINT32_MAX ? s->keys : prev + 1; j < s->keys; ++j) out[j] = out[prev];
  return prev != UINT32_MAX;
}

static bool link_op(shapes* S, int64_t child, int64_t parent, const char* prop) {
  skio_fbx_props b = {0};
  skio_fbx_put_str(&b, "OP", 2);
  skio_fbx_put_i64(&b, child);
  skio_fbx_put_i64(&b, parent);
  skio_fbx_put_str(&b, prop, strlen(prop));
  return push(S, &S->links, &S->nlink, &S->caplink, "C", &b, NULL, 0);
}

/* The AnimationCurve of K keys (times in ticks, values v) as Blender writes it, its id in *id. */
static bool add_anim_curve(shapes* S, const int64_t* time, const float* v, uint32_t K, int64_t* id) {
  skio_fbx_props c = {0}, p[7] = {{0}, {0}, {0}, {0}, {0}, {0}, {0}};
  static const char* const names[7] = {"Default",      "KeyVer",           "KeyTime",        "KeyValueFloat",
                                       "KeyAttrFlags", "KeyAttrDataFloat", "KeyAttrRefCount"};
  const uint32_t weights = KEY_DATA_WEIGHTS;
  float data[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  memcpy(&data[2], &weights, sizeof weights);
  const int32_t flags = KEY_FLAGS_LINEAR, refs = (int32_t)K;
  skio_fbx_put_f64(&p[0], v[0]);
  skio_fbx_put_i32(&p[1], KEY_VER);
  skio_fbx_put_i64_array(&p[2], time, K, 1);
  skio_fbx_put_f32_array(&p[3], v, K, 1);
  skio_fbx_put_i32_array(&p[4], &flags, 1, 0);
  skio_fbx_put_f32_array(&p[5], data, 4, 0);
  skio_fbx_put_i32_array(&p[6], &refs, 1, 0);
  *id = head(S, &c, "", "AnimCurve", "");
  skio_fbx_new* kids = keep(S, calloc(7, sizeof *kids));
  bool ok = *id && kids;
  for (int k = 0; k < 7; ++k) {
    p[k].oom = p[k].oom || !keep(S, p[k].p);
    ok = ok && kid(S, kids, (uint32_t)k, names[k], &p[k]);
  }
  if (!ok) return free(c.p), S->oom = true, false;
  return push(S, &S->objs, &S->nobj, &S->capobj, "AnimationCurve", &c, kids, 7);
}

/* A DeformPercent curve node (P d|DeformPercent = the first value) and its curve, animating BlendShapeChannel channel
 * in AnimationLayer layer: connected as Blender connects them. */
static bool add_shape_curve(shapes* S, int64_t channel, int64_t layer, const int64_t* time, const float* v,
                            uint32_t K) {
  skio_fbx_props n = {0}, p = {0};
  const int64_t nid = head(S, &n, "DeformPercent", "AnimCurveNode", "");
  skio_fbx_put_str(&p, "d|DeformPercent", 15);
  skio_fbx_put_str(&p, "Number", 6);
  skio_fbx_put_str(&p, "", 0);
  skio_fbx_put_str(&p, "A", 1);
  skio_fbx_put_f64(&p, v[0]);
  p.oom = p.oom || !keep(S, p.p);
  skio_fbx_new* pk = keep(S, calloc(1, sizeof *pk));
  skio_fbx_new* nk = keep(S, calloc(1, sizeof *nk));
  if (!nid || !pk || !nk || !kid(S, pk, 0, "P", &p)) {
    free(n.p);
    return S->oom = true, false;
  }
  nk[0] = (skio_fbx_new){"Properties70", NULL, 0, 0, pk, 1};
  int64_t cid = 0;
  if (!push(S, &S->objs, &S->nobj, &S->capobj, "AnimationCurveNode", &n, nk, 1) || !add_anim_curve(S, time, v, K, &cid))
    return false;
  S->cnodes++;
  S->curves++;
  return link(S, nid, layer) && link_op(S, nid, channel, "DeformPercent") && link_op(S, cid, nid, "d|DeformPercent");
}

/* The curves of morph channel mc into clip c: one per target of mesh m the pass made a channel of (ids) that mc
 * gives a value. False when out of memory. */
static bool channel_curves(shapes* S, const struct aiMeshMorphAnim* mc, double tps, const int64_t* ids, uint32_t T,
                           clip* c) {
  samples s;
  bool ok = sample_keys(mc, tps, T, &s);
  float* v = ok && s.keys ? malloc((size_t)s.keys * sizeof *v) : NULL;
  ok = ok && (!s.keys || (v && s.keys <= INT32_MAX));
  for (uint32_t t = 0; ok && s.keys && t < T; ++t) {
    if (!ids[t] || !target_values(&s, t, v)) continue;
    ok = add_shape_curve(S, ids[t], c->layer, s.time, v, s.keys);
    c->last = c->keyed && c->last > s.time[s.keys - 1] ? c->last : s.time[s.keys - 1];
    c->keyed = true;
  }
  free(v);
  free(s.time);
  free(s.w);
  return ok;
}

/* Animation an's morph channels into clip c (seen[m] == stamp: mesh m had its channel in this animation). */
static bool anim_curves(shapes* S, const struct aiScene* sc, const struct aiAnimation* an, clip* c, uint32_t* seen,
                        uint32_t stamp) {
  const double tps = an->mTicksPerSecond > 0.0 ? an->mTicksPerSecond : 25.0;
  bool ok = true;
  for (unsigned k = 0; ok && an->mMorphMeshChannels && k < an->mNumMorphMeshChannels; ++k) {
    const struct aiMeshMorphAnim* mc = an->mMorphMeshChannels[k];
    unsigned m;
    if (!mc || !mesh_index(&mc->mName, sc->mNumMeshes, &m) || seen[m] == stamp || !sc->mMeshes[m]) continue;
    seen[m] = stamp;
    ok = channel_curves(S, mc, tps, S->chan + S->base[m], sc->mMeshes[m]->mNumAnimMeshes, c);
  }
  return ok;
}

/* A P record "name" KTime "Time" "" v into b. */
static bool time_p(shapes* S, skio_fbx_props* b, const char* name, int64_t v) {
  skio_fbx_put_str(b, name, strlen(name));
  skio_fbx_put_str(b, "KTime", 5);
  skio_fbx_put_str(b, "Time", 4);
  skio_fbx_put_str(b, "", 0);
  skio_fbx_put_i64(b, v);
  b->oom = b->oom || !keep(S, b->p);
  return !b->oom;
}

/* Stack record r's LocalStop and ReferenceStop raised to `last` (and past its LocalStart: a stack whose start and
 * stop are both 0 has no range for Assimp's reader, which then shifts shape keys by a start of 1e10) where they are
 * earlier; missing ones are added. False when out of memory. */
static bool raise_stop(shapes* S, skio_fbx_change* ch, uint32_t r, int64_t last) {
  static const char* const names[2] = {"LocalStop", "ReferenceStop"};
  const skio_fbx_tree* t = &S->t;
  const uint32_t p70 = skio_fbx_child(t, r, "Properties70", SKIO_FBX_NONE);
  uint32_t at[2] = {SKIO_FBX_NONE, SKIO_FBX_NONE};
  int64_t start = 0, v;
  for (uint32_t p = skio_fbx_child(t, p70, "P", SKIO_FBX_NONE); p70 != SKIO_FBX_NONE && p != SKIO_FBX_NONE;
       p = skio_fbx_child(t, p70, "P", p)) {
    if (skio_fbx_prop_str_is(t, p, 0, "LocalStart")) skio_fbx_prop_i64(t, p, 4, &start);
    for (int k = 0; k < 2; ++k)
      if (at[k] == SKIO_FBX_NONE && skio_fbx_prop_str_is(t, p, 0, names[k])) at[k] = p;
  }
  const int64_t stop = start < last || start == INT64_MAX ? last : start + 1;
  skio_fbx_new* add = keep(S, calloc(2, sizeof *add));
  uint32_t nadd = 0;
  for (int k = 0; add && k < 2; ++k) {
    if (at[k] != SKIO_FBX_NONE && skio_fbx_prop_i64(t, at[k], 4, &v) && v >= stop) continue;
    skio_fbx_props b = {0};
    if (!time_p(S, &b, names[k], stop)) return S->oom = true, false;
    if (at[k] != SKIO_FBX_NONE)
      ch[at[k]] = (skio_fbx_change){b.p, b.n, b.count, false, NULL, 0};
    else
      add[nadd++] = (skio_fbx_new){"P", b.p, b.n, b.count, NULL, 0};
  }
  if (!add) return S->oom = true, false;
  if (!nadd) return true;
  if (p70 != SKIO_FBX_NONE && !ch[p70].add) { /* the missing ones after its properties */
    ch[p70].add = add, ch[p70].add_count = nadd;
  } else if (p70 == SKIO_FBX_NONE && !ch[r].add) { /* a Properties70 of them */
    skio_fbx_new* p = keep(S, calloc(1, sizeof *p));
    if (!p) return false;
    *p = (skio_fbx_new){"Properties70", NULL, 0, 0, add, nadd};
    ch[r].add = p, ch[r].add_count = 1;
  }
  return true;
}

/* Every aiAnimation's morph channels as DeformPercent curves of the channels the pass made, in the clip's
 * AnimationStack (the a-th one for animation a) and its first layer; the stack's stop raised to its last key. */
static int add_anims(shapes* S, const struct aiScene* sc, skio_fbx_change* ch, skc_err* err) {
  const uint32_t n = sc->mAnimations ? sc->mNumAnimations : 0;
  if (!S->nobj || !n || !sc->mMeshes || !sc->mNumMeshes) return SKC_OK;
  clip* c = calloc(n, sizeof *c);
  uint32_t* seen = calloc(sc->mNumMeshes, sizeof *seen);
  uint32_t found = 0;
  bool ok = c && seen && find_clips(S, c, n, &found);
  for (uint32_t a = 0; ok && a < found; ++a) {
    const struct aiAnimation* an = sc->mAnimations[a];
    if (an && c[a].layer) ok = anim_curves(S, sc, an, &c[a], seen, a + 1);
    if (ok && c[a].keyed) ok = raise_stop(S, ch, c[a].rec, c[a].last);
  }
  free(c);
  free(seen);
  return ok && !S->oom ? SKC_OK : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding shape key animation");
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
  skio_fbx_put_i32(b, (int32_t)(v > INT32_MAX - k ? INT32_MAX : v + k));
  if (b->oom || !keep(S, b->p)) return;
  ch[r] = (skio_fbx_change){b->p, b->n, b->count, false, NULL, 0};
}

/* A new ObjectType `name` of Count k into *list (room for two), for Definitions. */
static void new_type(shapes* S, skio_fbx_new* list, uint32_t* n, const char* name, int64_t k) {
  skio_fbx_props o = {0}, c = {0};
  skio_fbx_put_str(&o, name, strlen(name));
  skio_fbx_put_i32(&c, (int32_t)k);
  o.oom = o.oom || !keep(S, o.p);
  c.oom = c.oom || !keep(S, c.p);
  skio_fbx_new* kids = keep(S, calloc(1, sizeof *kids));
  if (!list || !kids || !kid(S, kids, 0, "Count", &c) || !kid(S, &list[*n], 0, "ObjectType", &o)) return;
  list[*n].kids = kids;
  list[*n].kid_count = 1;
  ++*n;
}

/* Definitions: the Count of each ObjectType objects were added to (its first one) and the total Count raised; the
 * animation curve types are added when the file has none. */
static void raise_definitions(shapes* S, skio_fbx_change* ch) {
  static const char* const types[4] = {"Geometry", "Deformer", "AnimationCurveNode", "AnimationCurve"};
  const int64_t added[4] = {S->geoms, S->deformers, S->cnodes, S->curves};
  const skio_fbx_tree* t = &S->t;
  const uint32_t defs = skio_fbx_child(t, SKIO_FBX_NONE, "Definitions", SKIO_FBX_NONE);
  if (defs == SKIO_FBX_NONE) return;
  skio_fbx_props b[5] = {{0}, {0}, {0}, {0}, {0}};
  bool had[4] = {false, false, false, false};
  int64_t total = 0;
  for (uint32_t o = skio_fbx_child(t, defs, "ObjectType", SKIO_FBX_NONE); o != SKIO_FBX_NONE;
       o = skio_fbx_child(t, defs, "ObjectType", o)) {
    int g = 0;
    while (g < 4 && !skio_fbx_prop_str_is(t, o, 0, types[g])) ++g;
    const uint32_t count = g < 4 ? skio_fbx_child(t, o, "Count", SKIO_FBX_NONE) : SKIO_FBX_NONE;
    if (g == 4 || count == SKIO_FBX_NONE || had[g] || ch[count].props) continue;
    had[g] = true;
    raise_count(S, count, added[g], &b[g + 1], ch);
    total += added[g];
  }
  skio_fbx_new* extra = added[2] || added[3] ? keep(S, calloc(2, sizeof *extra)) : NULL;
  uint32_t nextra = 0;
  for (int g = 2; g < 4; ++g)
    if (!had[g] && added[g]) new_type(S, extra, &nextra, types[g], added[g]), total += added[g];
  if (nextra && !ch[defs].add) ch[defs].add = extra, ch[defs].add_count = nextra;
  raise_count(S, skio_fbx_child(t, defs, "Count", SKIO_FBX_NONE), total, &b[0], ch);
}

/* S->chan and S->base: a slot per anim mesh of sc (0: no channel made of it); false when out of memory. */
static bool channel_table(shapes* S, const struct aiScene* sc) {
  const unsigned n = sc->mMeshes ? sc->mNumMeshes : 0;
  size_t total = 0;
  if (!(S->base = malloc(((size_t)n + 1) * sizeof *S->base))) return false;
  for (unsigned m = 0; m < n; ++m) {
    S->base[m] = total;
    total += sc->mMeshes[m] ? sc->mMeshes[m]->mNumAnimMeshes : 0;
  }
  S->base[n] = total;
  return (S->chan = calloc(total ? total : 1, sizeof *S->chan)) != NULL;
}

static int add_all(shapes* S, const struct aiScene* sc, skc_err* err) {
  const skio_fbx_tree* t = &S->t;
  uint32_t g = skio_fbx_child(t, S->objects, "Geometry", SKIO_FBX_NONE);
  int rc = SKC_OK;
  for (unsigned m = 0; m < sc->mNumMeshes && sc->mMeshes && !rc; ++m) {
    while (g != SKIO_FBX_NONE && !skio_fbx_prop_str_is(t, g, 2, "Mesh"))
      g = skio_fbx_child(t, S->objects, "Geometry", g);
    if (g == SKIO_FBX_NONE) break;
    if (sc->mMeshes[m]) rc = mesh_shapes(S, sc->mMeshes[m], g, S->chan + S->base[m], err);
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
    rc = find_shaped(&S) && channel_table(&S, sc) ? add_all(&S, sc, err)
                                                  : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc && S.objects != SKIO_FBX_NONE && S.conns != SKIO_FBX_NONE) rc = add_anims(&S, sc, ch, err);
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
  free(S.chan);
  free(S.base);
  free(ch);
  skio_fbx_tree_free(&S.t);
  return rc;
}
