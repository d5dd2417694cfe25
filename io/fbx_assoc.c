/* fbx_assoc.c - a TransformAssociateModel for every skin cluster of a binary FBX file that lacks one (Assimp 5.2.5's
 * writer writes Transform and TransformLink only).
 *
 * TransformAssociateModel is the world matrix, at bind time, of the model the skin is associated with: the armature
 * (Blender's exporter writes the armature object's world matrix). Blender's importer places a skinned mesh with it:
 * the mesh's parent inverse is amat^-1 * (TransformLink * Transform), amat being TransformAssociateModel or, when the
 * cluster has none, the armature's bind matrix made local to its parent. So without one, a rig under a moved, turned
 * or scaled node lands its skinned meshes off by that node's transform (0.4-0.7 of the model in session 45's audit of
 * `convert` to .fbx). The armature, as Blender's importer finds it: the first ancestor of the cluster's bone that is
 * not a bone (a LimbNode / Limb, or a Model some cluster links), or the scene root (identity); its world matrix is
 * the product of the local transforms down to it (skio_fbx_model_local). A cluster whose chain cannot be read (no
 * bone, a cycle, a value that is not finite) is left as it is. */
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"

typedef struct link {
  int64_t child, parent;
} link;

typedef struct model {
  int64_t id;
  uint32_t rec;
  bool bone;
} model;

typedef struct cluster {
  int64_t id;
  model* bone; /* the Model it links (NULL: none) */
} cluster;

typedef struct assoc {
  skio_fbx_tree t;
  link* links; /* OO connections, by child */
  size_t nlink;
  model* models; /* by id */
  size_t nmodel;
  cluster* clusters; /* by id */
  size_t ncluster;
} assoc;

static int by_child(const void* a, const void* b) {
  const link *x = a, *y = b;
  return x->child < y->child ? -1 : x->child > y->child;
}

static int by_id(const void* a, const void* b) {
  const model *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static size_t first_link(const assoc* a, int64_t child) {
  size_t lo = 0, hi = a->nlink;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->links[mid].child < child)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static model* find_model(const assoc* a, int64_t id) {
  const model key = {id, 0, false};
  return a->nmodel ? bsearch(&key, a->models, a->nmodel, sizeof *a->models, by_id) : NULL;
}

/* The Model that is child's parent (NULL: the scene root, or a parent that is no Model). */
static model* parent_model(const assoc* a, int64_t child) {
  for (size_t i = first_link(a, child); i < a->nlink && a->links[i].child == child; ++i) {
    model* m = find_model(a, a->links[i].parent);
    if (m) return m;
  }
  return NULL;
}

static uint32_t count_children(const skio_fbx_tree* t, uint32_t r, const char* name) {
  uint32_t n = 0;
  for (uint32_t c = r == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, r, name, SKIO_FBX_NONE); c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, r, name, c))
    ++n;
  return n;
}

static bool is_cluster(const skio_fbx_tree* t, uint32_t r) {
  return skio_fbx_is(t, r, "Deformer") && skio_fbx_prop_str_is(t, r, 2, "Cluster");
}

static int read_links(assoc* a, skc_err* err) {
  const uint32_t conns = skio_fbx_child(&a->t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  const uint32_t n = count_children(&a->t, conns, "C");
  if (n && !(a->links = malloc(n * sizeof *a->links)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX connections");
  for (uint32_t c = n ? skio_fbx_child(&a->t, conns, "C", SKIO_FBX_NONE) : SKIO_FBX_NONE; c != SKIO_FBX_NONE;
       c = skio_fbx_child(&a->t, conns, "C", c)) {
    link l;
    if (skio_fbx_prop_str_is(&a->t, c, 0, "OO") && skio_fbx_prop_i64(&a->t, c, 1, &l.child) &&
        skio_fbx_prop_i64(&a->t, c, 2, &l.parent))
      a->links[a->nlink++] = l;
  }
  if (a->nlink) qsort(a->links, a->nlink, sizeof *a->links, by_child);
  return SKC_OK;
}

/* The Models, sorted by id. */
static int read_models(assoc* a, uint32_t objects, skc_err* err) {
  const uint32_t n = count_children(&a->t, objects, "Model");
  if (n && !(a->models = malloc(n * sizeof *a->models)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX models");
  for (uint32_t r = n ? skio_fbx_child(&a->t, objects, "Model", SKIO_FBX_NONE) : SKIO_FBX_NONE; r != SKIO_FBX_NONE;
       r = skio_fbx_child(&a->t, objects, "Model", r)) {
    model m = {0, r, skio_fbx_prop_str_is(&a->t, r, 2, "LimbNode") || skio_fbx_prop_str_is(&a->t, r, 2, "Limb")};
    if (skio_fbx_prop_i64(&a->t, r, 0, &m.id)) a->models[a->nmodel++] = m;
  }
  if (a->nmodel) qsort(a->models, a->nmodel, sizeof *a->models, by_id);
  return SKC_OK;
}

static int by_cluster(const void* x, const void* y) {
  const cluster *p = x, *q = y;
  return p->id < q->id ? -1 : p->id > q->id;
}

/* The clusters, sorted by id, each with the Model it links; a Model some cluster links is a bone (as Blender's
 * importer decides, besides LimbNode / Limb). */
static int read_clusters(assoc* a, uint32_t objects, skc_err* err) {
  const uint32_t n = count_children(&a->t, objects, "Deformer");
  if (n && !(a->clusters = malloc(n * sizeof *a->clusters)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX clusters");
  for (uint32_t r = n ? skio_fbx_child(&a->t, objects, "Deformer", SKIO_FBX_NONE) : SKIO_FBX_NONE; r != SKIO_FBX_NONE;
       r = skio_fbx_child(&a->t, objects, "Deformer", r)) {
    cluster c = {0, NULL};
    if (is_cluster(&a->t, r) && skio_fbx_prop_i64(&a->t, r, 0, &c.id)) a->clusters[a->ncluster++] = c;
  }
  if (!a->ncluster) return SKC_OK;
  qsort(a->clusters, a->ncluster, sizeof *a->clusters, by_cluster);
  for (size_t i = 0; i < a->nlink; ++i) {
    const cluster key = {a->links[i].parent, NULL};
    cluster* c = bsearch(&key, a->clusters, a->ncluster, sizeof *a->clusters, by_cluster);
    model* m = c ? find_model(a, a->links[i].child) : NULL;
    if (!m) continue;
    m->bone = true;
    if (!c->bone) c->bone = m;
  }
  return SKC_OK;
}

/* The world matrix of the armature of cluster `id`: false when it cannot be read. */
static bool armature_world(const assoc* a, int64_t id, double w[16]) {
  const cluster key = {id, NULL};
  const cluster* c = a->ncluster ? bsearch(&key, a->clusters, a->ncluster, sizeof *a->clusters, by_cluster) : NULL;
  if (!c || !c->bone) return false;
  size_t steps = 0;
  const model* m = c->bone;
  while (m && m->bone && steps++ <= a->nmodel) m = parent_model(a, m->id);
  if (steps > a->nmodel) return false; /* a cycle */
  static const double k_id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  memcpy(w, k_id, sizeof k_id);
  for (steps = 0; m; m = parent_model(a, m->id)) { /* w = local(m) * w, up to the root */
    double local[16], out[16];
    if (++steps > a->nmodel || !skio_fbx_model_local(&a->t, m->rec, local)) return false;
    skio_fbx_mat_mul(local, w, out);
    memcpy(w, out, sizeof out);
  }
  return true;
}

static int add_records(assoc* a, uint32_t objects, uint8_t** out, size_t* out_n, uint32_t* added, skc_err* err) {
  const uint32_t n = count_children(&a->t, objects, "Deformer");
  skio_fbx_change* changes = calloc(a->t.count, sizeof *changes);
  skio_fbx_new* recs = n ? calloc(n, sizeof *recs) : NULL;
  skio_fbx_props* props = n ? calloc(n, sizeof *props) : NULL;
  int rc = !changes || (n && (!recs || !props)) ? skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory") : SKC_OK;
  uint32_t k = 0;
  for (uint32_t r = rc ? SKIO_FBX_NONE : skio_fbx_child(&a->t, objects, "Deformer", SKIO_FBX_NONE);
       r != SKIO_FBX_NONE && !rc; r = skio_fbx_child(&a->t, objects, "Deformer", r)) {
    int64_t id;
    double w[16];
    if (!is_cluster(&a->t, r) || skio_fbx_child(&a->t, r, "TransformAssociateModel", SKIO_FBX_NONE) != SKIO_FBX_NONE ||
        !skio_fbx_prop_i64(&a->t, r, 0, &id) || !armature_world(a, id, w))
      continue;
    skio_fbx_put_f64_array(&props[k], w, 16, 0);
    if (props[k].oom) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
      break;
    }
    recs[k] = (skio_fbx_new){"TransformAssociateModel", props[k].p, props[k].n, props[k].count, NULL, 0};
    changes[r].add = &recs[k];
    changes[r].add_count = 1;
    ++k;
  }
  if (!rc) rc = skio_fbx_tree_write(&a->t, changes, out, out_n, err);
  if (!rc && added) *added = k;
  for (uint32_t i = 0; props && i < n; ++i) free(props[i].p);
  free(props);
  free(recs);
  free(changes);
  return rc;
}

int skio_fbx_add_associate_models(const uint8_t* in, size_t n, uint8_t** out, size_t* out_n, uint32_t* added,
                                  skc_err* err) {
  if (!in || !out || !out_n) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  if (added) *added = 0;
  assoc a = {0};
  int rc = skio_fbx_tree_parse(in, n, &a.t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&a.t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  rc = read_links(&a, err);
  if (!rc) rc = read_models(&a, objects, err);
  if (!rc) rc = read_clusters(&a, objects, err);
  if (!rc) rc = add_records(&a, objects, out, out_n, added, err);
  free(a.links);
  free(a.models);
  free(a.clusters);
  skio_fbx_tree_free(&a.t);
  return rc;
}
