/* fbx_assoc.c - the skin clusters of a binary FBX file that Assimp 5.2.5's writer wrote, made what Blender's importer
 * and Assimp's reader need to put the bind pose back (skio_fbx_fix_clusters).
 *
 * TransformAssociateModel, which Assimp does not write, is the world matrix at bind time of the model the skin is
 * associated with: the armature (Blender's exporter writes the armature object's world matrix). Blender's importer
 * places a skinned mesh with it: the mesh's parent inverse is amat^-1 * (TransformLink * Transform), amat being
 * TransformAssociateModel or, when the cluster has none, the armature's bind matrix made local to its parent. So
 * without one, a rig under a moved, turned or scaled node lands its skinned meshes off by that node's transform
 * (0.4-0.7 of the model in session 45's audit of `convert` to .fbx). The armature, as Blender's importer finds it:
 * the first ancestor of the cluster's bone that is not a bone (a LimbNode / Limb, or a Model some cluster links), or
 * the scene root (identity); its world matrix is the product of the local transforms down to it
 * (skio_fbx_model_local).
 *
 * Transform and TransformLink: Assimp writes the bone's rest world as TransformLink and its inverse as Transform,
 * whatever the bone's offset matrix says, so a file whose bind pose is not its rest pose (three.js and Blender
 * exports of a posed rest, Fox_blender.fbx) lost its binds, and Blender's importer and Assimp's reader (both build
 * the bind pose from TransformLink) moved its skinned meshes. Given each bone's offset O (mesh space to bone space
 * at bind, as the aiBone held it), Transform becomes O and TransformLink M O^-1, M the mesh Model's world: the bind
 * world of the bone, as FBX defines it. The binds come in world space (skio_fbx_bind), so each cluster's O is the
 * bind times its own mesh Model's world: the meshes of one bone may stand at Models of their own (session 76: a
 * skinned mesh's Model carries its object's transform). A cluster whose chain cannot be read (no bone, a cycle, a
 * value that is not finite, a singular offset) is left as it is. */
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
  struct model* parent; /* its parent Model (NULL: the scene root, or a parent that is no Model; link_parents) */
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
  const model key = {id, 0, false, NULL};
  return a->nmodel ? bsearch(&key, a->models, a->nmodel, sizeof *a->models, by_id) : NULL;
}

/* Each Model's parent: the first Model among the parents of its OO connections. Found once for all: a bone's
 * connections also link it to every cluster that weights it (20,000 meshes of a crowd on one joint: 20,000), and
 * looking through them again at every step of every cluster's walk to the root was quadratic (5,000 instanced
 * meshes: 66 % of a 40 s convert to .fbx). */
static void link_parents(assoc* a) {
  for (size_t i = 0; i < a->nlink; ++i) {
    model* c = find_model(a, a->links[i].child);
    if (c && !c->parent) c->parent = find_model(a, a->links[i].parent);
  }
}

/* The Model that is child's parent (NULL: the scene root, or a parent that is no Model). */
static model* parent_model(const assoc* a, int64_t child) {
  const model* m = find_model(a, child);
  return m ? m->parent : NULL;
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
    model m = {0, r, skio_fbx_prop_str_is(&a->t, r, 2, "LimbNode") || skio_fbx_prop_str_is(&a->t, r, 2, "Limb"), NULL};
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

/* The first parent of id through an OO connection (0: none). */
static int64_t first_parent(const assoc* a, int64_t id) {
  const size_t i = first_link(a, id);
  return i < a->nlink && a->links[i].child == id ? a->links[i].parent : 0;
}

/* The world matrix of the Model drawing cluster `id`'s mesh (cluster -> skin -> geometry -> Model). */
static bool mesh_world(const assoc* a, int64_t id, double w[16]) {
  const model* m = find_model(a, first_parent(a, first_parent(a, first_parent(a, id))));
  if (!m) return false;
  static const double k_id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  memcpy(w, k_id, sizeof k_id);
  for (size_t steps = 0; m; m = parent_model(a, m->id)) {
    double local[16], out[16];
    if (++steps > a->nmodel || !skio_fbx_model_local(&a->t, m->rec, local)) return false;
    skio_fbx_mat_mul(local, w, out);
    memcpy(w, out, sizeof out);
  }
  return true;
}

/* The bind of cluster c's bone in binds (NULL: none). */
static const skio_fbx_bind* bind_of(const assoc* a, const cluster* c, const skio_fbx_bind* binds, uint32_t count) {
  const uint8_t* name;
  size_t len;
  if (!c || !c->bone || !skio_fbx_prop_name(&a->t, c->bone->rec, 1, &name, &len)) return NULL;
  for (uint32_t i = 0; i < count; ++i)
    if (binds[i].name && strlen(binds[i].name) == len && !memcmp(binds[i].name, name, len)) return &binds[i];
  return NULL;
}

/* Per cluster record r: the props built for it (TransformAssociateModel, Transform, TransformLink). */
typedef struct cluster_out {
  skio_fbx_props p[3];
  skio_fbx_new assoc;
} cluster_out;

/* Transform = the bone's offset O = B M (B the world-space bind, M the mesh Model's world), TransformLink = M O^-1:
 * the bind the scene holds, where Assimp wrote the bone's rest. false when the cluster lacks either record or the
 * matrices do not invert. */
static bool set_bind(const assoc* a, uint32_t r, int64_t id, const skio_fbx_bind* b, cluster_out* co,
                     skio_fbx_change* changes) {
  const uint32_t tr = skio_fbx_child(&a->t, r, "Transform", SKIO_FBX_NONE);
  const uint32_t tl = skio_fbx_child(&a->t, r, "TransformLink", SKIO_FBX_NONE);
  double m[16], o[16], inv[16], bone[16];
  if (tr == SKIO_FBX_NONE || tl == SKIO_FBX_NONE || !mesh_world(a, id, m)) return false;
  skio_fbx_mat_mul(b->offset, m, o);
  if (!skio_fbx_mat_inverse(o, inv)) return false;
  skio_fbx_mat_mul(m, inv, bone);
  skio_fbx_put_f64_array(&co->p[1], o, 16, 0);
  skio_fbx_put_f64_array(&co->p[2], bone, 16, 0);
  if (co->p[1].oom || co->p[2].oom) return false;
  changes[tr] = (skio_fbx_change){co->p[1].p, co->p[1].n, co->p[1].count, false, NULL, 0};
  changes[tl] = (skio_fbx_change){co->p[2].p, co->p[2].n, co->p[2].count, false, NULL, 0};
  return true;
}

static bool add_assoc(const assoc* a, uint32_t r, int64_t id, cluster_out* co, skio_fbx_change* changes) {
  double w[16];
  if (skio_fbx_child(&a->t, r, "TransformAssociateModel", SKIO_FBX_NONE) != SKIO_FBX_NONE || !armature_world(a, id, w))
    return false;
  skio_fbx_put_f64_array(&co->p[0], w, 16, 0);
  if (co->p[0].oom) return false;
  co->assoc = (skio_fbx_new){"TransformAssociateModel", co->p[0].p, co->p[0].n, co->p[0].count, NULL, 0};
  changes[r].add = &co->assoc;
  changes[r].add_count = 1;
  return true;
}

static int fix_records(assoc* a, uint32_t objects, const skio_fbx_bind* binds, uint32_t bind_count, uint8_t** out,
                       size_t* out_n, uint32_t* added, skc_err* err) {
  const uint32_t n = count_children(&a->t, objects, "Deformer");
  skio_fbx_change* changes = calloc(a->t.count, sizeof *changes);
  cluster_out* co = n ? calloc(n, sizeof *co) : NULL;
  int rc = !changes || (n && !co) ? skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory") : SKC_OK;
  uint32_t k = 0, assoc_n = 0;
  for (uint32_t r = rc ? SKIO_FBX_NONE : skio_fbx_child(&a->t, objects, "Deformer", SKIO_FBX_NONE);
       r != SKIO_FBX_NONE && k < n; r = skio_fbx_child(&a->t, objects, "Deformer", r), ++k) {
    int64_t id;
    if (!is_cluster(&a->t, r) || !skio_fbx_prop_i64(&a->t, r, 0, &id)) continue;
    assoc_n += add_assoc(a, r, id, &co[k], changes);
    const cluster key = {id, NULL};
    const cluster* c = a->ncluster ? bsearch(&key, a->clusters, a->ncluster, sizeof *a->clusters, by_cluster) : NULL;
    const skio_fbx_bind* b = binds ? bind_of(a, c, binds, bind_count) : NULL;
    if (b) set_bind(a, r, id, b, &co[k], changes);
  }
  for (uint32_t i = 0; !rc && i < n; ++i)
    if (co[i].p[0].oom || co[i].p[1].oom || co[i].p[2].oom) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc) rc = skio_fbx_tree_write(&a->t, changes, out, out_n, err);
  if (!rc && added) *added = assoc_n;
  for (uint32_t i = 0; co && i < n; ++i)
    for (int j = 0; j < 3; ++j) free(co[i].p[j].p);
  free(co);
  free(changes);
  return rc;
}

int skio_fbx_fix_clusters(const uint8_t* in, size_t n, const skio_fbx_bind* binds, uint32_t bind_count, uint8_t** out,
                          size_t* out_n, uint32_t* added, skc_err* err) {
  if (!in || !out || !out_n || (bind_count && !binds)) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_n = 0;
  if (added) *added = 0;
  assoc a = {0};
  int rc = skio_fbx_tree_parse(in, n, &a.t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&a.t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  rc = read_links(&a, err);
  if (!rc) rc = read_models(&a, objects, err);
  if (!rc) link_parents(&a);
  if (!rc) rc = read_clusters(&a, objects, err);
  if (!rc) rc = fix_records(&a, objects, binds, bind_count, out, out_n, added, err);
  free(a.links);
  free(a.models);
  free(a.clusters);
  skio_fbx_tree_free(&a.t);
  return rc;
}
