/* fbx_merge_shapes.c - the blend shapes of an object's parts merged with its Mesh Models (fbx_merge.c).
 *
 * An object of several materials and shape keys reaches Assimp's writer as several aiMeshes (one per material) with
 * the same anim meshes, and fbx_shapes_write.c gives each part's Geometry a BlendShape, a BlendShapeChannel per shape
 * (a Shape Geometry under it: Indexes into the part's control points, Vertices and Normals offsets) and the shape's
 * DeformPercent curves (an AnimationCurveNode per clip, connected OO to the clip's AnimationLayer and OP to the
 * channel's DeformPercent, with its AnimationCurve connected OP to the node). Blender's exporter writes one
 * BlendShape on the object's one Geometry, one channel per shape over all its control points and one curve per
 * channel and clip. When fbx_merge.c merges the parts and every part's Geometry has one BlendShape, this merges them
 * into the first part's:
 *  - channel j of every part is channel j of the first (connection order): same name, same records (Version,
 *    DeformPercent, FullWeights: the first part's are kept), one Shape each with nothing connected to it;
 *  - the first part's Shape j gets the parts' Indexes concatenated, each offset by its part's first control point in
 *    the merged Geometry (an index outside its part's control points refuses), and their Vertices and Normals
 *    (3 numbers per index; Normals in every part or none; no record but Version, Indexes, Vertices, Normals);
 *  - channel j's curve nodes of every part (each connected to its channel's DeformPercent and one other object, its
 *    layer, with curves connected to it only) are the first part's: the same count, in connection order each node
 *    on the same layer with the same records (Properties70) and the same curves, record for record (KeyTime,
 *    KeyValueFloat, ... byte for byte). The first part's stay, connected to the merged channel;
 *  - the later parts' BlendShapes (the same records as the first's), channels, Shapes, curve nodes and curves are
 *    dropped with their connections; the Deformer, Geometry, AnimationCurveNode and AnimationCurve counts of the
 *    Definitions are lowered by fbx_merge.c.
 * Anything else (another number or order of channels, another name, different keys, an extra connection) refuses:
 * the whole group stays as it is, each part with its own shapes. */
#include <stdlib.h>
#include <string.h>

#include "fbx_merge.h"

#define MAX_CHANNELS 1024u /* BlendShapeChannels a BlendShape */

typedef struct chan {
  int64_t id, shape_id;
  uint32_t rec, shape;
  uint32_t node0, nnode; /* its curve nodes: nodes[node0 .. node0 + nnode) */
} chan;

typedef struct cnode {
  int64_t id, layer;
  uint32_t rec, conn;      /* its connection to its channel */
  uint32_t curve0, ncurve; /* its curves: curves[curve0 .. curve0 + ncurve) */
} cnode;

typedef struct curve {
  int64_t id;
  uint32_t rec, conn; /* its connection to its node */
} curve;

typedef struct shapeset {
  plan* P;
  uint32_t C; /* channels a part */
  chan* ch;   /* channel j of part k: ch[k * C + j] */
  cnode* nodes;
  size_t nnodes, capnodes;
  curve* curves;
  size_t ncurves, capcurves;
} shapeset;

static bool grow(void* pp, size_t* cap, size_t need, size_t elem) {
  void** p = pp;
  if (need <= *cap) return true;
  size_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void* q = realloc(*p, c * elem);
  if (!q) return false;
  *p = q;
  *cap = c;
  return true;
}

/* ---- records compared ------------------------------------------------------------------------------------------ */

/* Records a and b: same name, same property bytes. */
static bool same_rec(const skio_fbx_tree* t, uint32_t a, uint32_t b) {
  const skio_fbx_rec *x = &t->recs[a], *y = &t->recs[b];
  return x->name_len == y->name_len && !memcmp(t->data + x->at + t->hdr, t->data + y->at + t->hdr, x->name_len) &&
         x->prop_count == y->prop_count && x->props_len == y->props_len &&
         !memcmp(t->data + x->props, t->data + y->props, x->props_len);
}

/* The children of a and b are the same records, all the way down (the tree is at most 64 deep: fbx_tree.c). */
static bool same_kids(const skio_fbx_tree* t, uint32_t a, uint32_t b) {
  uint32_t x = t->recs[a].first, y = t->recs[b].first;
  for (; x != SKIO_FBX_NONE && y != SKIO_FBX_NONE; x = t->recs[x].next, y = t->recs[y].next)
    if (!same_rec(t, x, y) || !same_kids(t, x, y)) return false;
  return x == SKIO_FBX_NONE && y == SKIO_FBX_NONE;
}

/* Property k of records a and b: both present, same type and bytes (a name, a connection's property). */
static bool same_prop(const skio_fbx_tree* t, uint32_t a, uint32_t b, uint32_t k) {
  skio_fbx_prop x, y;
  return skio_fbx_prop_at(t, a, k, &x) && skio_fbx_prop_at(t, b, k, &y) && x.type == y.type && x.len == y.len &&
         !memcmp(x.p, y.p, x.len);
}

/* ---- one part's BlendShape read ---------------------------------------------------------------------------------- */

/* The one connection of object id as child, to parent (any type): its record, or SKIO_FBX_NONE. */
static uint32_t single_link(const merger* M, int64_t id, int64_t parent) {
  size_t first, end = skio_fbxm_conn_range(M, M->by_child, false, id, &first);
  return end == first + 1 && M->by_child[first].parent == parent ? M->by_child[first].rec : SKIO_FBX_NONE;
}

/* Nothing is connected to object id as its parent. */
static bool no_kids(const merger* M, int64_t id) {
  size_t first, end = skio_fbxm_conn_range(M, M->by_parent, true, id, &first);
  return end == first;
}

/* Curve node o of channel ch: connected OP to its DeformPercent and OO to one other object (its layer), its kids
 * curves (OP, connected to it only); appended to S->nodes. */
static int read_node(shapeset* S, chan* ch, const obj* o) {
  const merger* M = S->P->M;
  cnode nd = {o->id, 0, o->rec, SKIO_FBX_NONE, (uint32_t)S->ncurves, 0};
  size_t first, end = skio_fbxm_conn_range(M, M->by_child, false, o->id, &first);
  for (size_t c = first; c < end; ++c) {
    const conn* l = &M->by_child[c];
    if (l->parent == ch->id && !l->oo && nd.conn == SKIO_FBX_NONE &&
        skio_fbx_prop_str_is(&M->t, l->rec, 3, "DeformPercent"))
      nd.conn = l->rec;
    else if (l->oo && !nd.layer && l->parent != ch->id)
      nd.layer = l->parent;
    else
      return REFUSE;
  }
  if (nd.conn == SKIO_FBX_NONE || !nd.layer) return REFUSE;
  end = skio_fbxm_conn_range(M, M->by_parent, true, o->id, &first);
  for (size_t c = first; c < end; ++c) {
    const obj* k = skio_fbxm_find_obj(M, M->by_parent[c].child);
    const uint32_t l = k && k->kind == K_CURVE ? single_link(M, k->id, o->id) : SKIO_FBX_NONE;
    if (l == SKIO_FBX_NONE || M->by_parent[c].oo || S->ncurves >= MAX_ELEMS) return REFUSE;
    if (!grow(&S->curves, &S->capcurves, S->ncurves + 1, sizeof *S->curves)) return SKC_OUT_OF_MEMORY;
    S->curves[S->ncurves++] = (curve){k->id, k->rec, l};
    ++nd.ncurve;
  }
  if (S->nnodes >= MAX_ELEMS) return REFUSE;
  if (!grow(&S->nodes, &S->capnodes, S->nnodes + 1, sizeof *S->nodes)) return SKC_OUT_OF_MEMORY;
  S->nodes[S->nnodes++] = nd;
  ch->nnode++;
  return SKC_OK;
}

/* Channel ch of BlendShape bs: on bs only, with one Shape (OO, nothing connected to it) and curve nodes (OP). */
static int read_channel(shapeset* S, chan* ch, int64_t bs) {
  const merger* M = S->P->M;
  if (!skio_fbxm_only_parent(M, ch->id, bs)) return REFUSE;
  ch->node0 = (uint32_t)S->nnodes;
  size_t first, end = skio_fbxm_conn_range(M, M->by_parent, true, ch->id, &first);
  int rc = SKC_OK;
  for (size_t c = first; c < end && !rc; ++c) {
    const conn* l = &M->by_parent[c];
    const obj* o = skio_fbxm_find_obj(M, l->child);
    if (o && o->kind == K_CURVENODE && !l->oo) {
      rc = read_node(S, ch, o);
    } else if (o && o->kind == K_SHAPE && l->oo && ch->shape == SKIO_FBX_NONE &&
               skio_fbxm_only_parent(M, o->id, ch->id) && no_kids(M, o->id)) {
      ch->shape = o->rec;
      ch->shape_id = o->id;
    } else {
      rc = REFUSE;
    }
  }
  return rc ? rc : ch->shape == SKIO_FBX_NONE ? REFUSE : SKC_OK;
}

/* The channels of part k's BlendShape (on its Geometry only), in connection order: S->C of them (part 0 sets it). */
static int read_blend_shape(shapeset* S, uint32_t k) {
  const merger* M = S->P->M;
  const part* p = &S->P->parts[k];
  if (!skio_fbxm_only_parent(M, p->shapes_id, p->geom_id)) return REFUSE;
  size_t first, end = skio_fbxm_conn_range(M, M->by_parent, true, p->shapes_id, &first);
  if (k == 0 && end - first > MAX_CHANNELS) return REFUSE;
  if (k == 0 && end > first) {
    S->C = (uint32_t)(end - first);
    if (!(S->ch = calloc((size_t)S->P->n * S->C, sizeof *S->ch))) return SKC_OUT_OF_MEMORY;
  }
  if (end - first != S->C) return REFUSE;
  int rc = SKC_OK;
  for (uint32_t j = 0; j < S->C && !rc; ++j) {
    const conn* l = &M->by_parent[first + j];
    const obj* o = skio_fbxm_find_obj(M, l->child);
    chan* ch = &S->ch[(size_t)k * S->C + j];
    *ch = (chan){l->child, 0, o ? o->rec : 0, SKIO_FBX_NONE, 0, 0};
    rc = o && o->kind == K_CHANNEL && l->oo ? read_channel(S, ch, p->shapes_id) : REFUSE;
  }
  return rc;
}

/* ---- the parts compared -------------------------------------------------------------------------------------- */

/* Curve node a (the first part's) and b: same layer and records, the same curves in order. */
static bool same_node(const shapeset* S, const cnode* a, const cnode* b) {
  const skio_fbx_tree* t = &S->P->M->t;
  if (a->layer != b->layer || a->ncurve != b->ncurve || !same_kids(t, a->rec, b->rec)) return false;
  for (uint32_t i = 0; i < a->ncurve; ++i) {
    const curve *x = &S->curves[a->curve0 + i], *y = &S->curves[b->curve0 + i];
    if (!same_prop(t, x->conn, y->conn, 3) || !same_kids(t, x->rec, y->rec)) return false;
  }
  return true;
}

/* Part k's channels (k > 0) against the first part's: names, records, curves. */
static bool same_channels(const shapeset* S, uint32_t k) {
  const skio_fbx_tree* t = &S->P->M->t;
  if (!same_kids(t, S->P->parts[0].shapes, S->P->parts[k].shapes)) return false;
  for (uint32_t j = 0; j < S->C; ++j) {
    const chan *a = &S->ch[j], *b = &S->ch[(size_t)k * S->C + j];
    if (!same_prop(t, a->rec, b->rec, 1) || !same_kids(t, a->rec, b->rec) || a->nnode != b->nnode) return false;
    for (uint32_t i = 0; i < a->nnode; ++i)
      if (!same_node(S, &S->nodes[a->node0 + i], &S->nodes[b->node0 + i])) return false;
  }
  return true;
}

/* ---- the Shapes merged ----------------------------------------------------------------------------------------- */

static bool shape_known(const skio_fbx_tree* t, uint32_t r) {
  for (uint32_t c = t->recs[r].first; c != SKIO_FBX_NONE; c = t->recs[c].next)
    if (!skio_fbx_is(t, c, "Version") && !skio_fbx_is(t, c, "Indexes") && !skio_fbx_is(t, c, "Vertices") &&
        !skio_fbx_is(t, c, "Normals"))
      return false;
  return true;
}

typedef struct shape_arrays {
  ivec idx;
  dvec pos, nrm;
} shape_arrays;

/* Shape record r of part k appended to a: indexes offset by off (inside the part's control points). */
static int add_shape(const plan* P, uint32_t k, uint32_t r, uint32_t off, bool normals, shape_arrays* a) {
  const skio_fbx_tree* t = &P->M->t;
  const uint32_t ri = skio_fbx_child(t, r, "Indexes", SKIO_FBX_NONE);
  const uint32_t rn = skio_fbx_child(t, r, "Normals", SKIO_FBX_NONE);
  if (!shape_known(t, r) || ri == SKIO_FBX_NONE || (rn != SKIO_FBX_NONE) != normals) return REFUSE;
  int32_t* idx = NULL;
  double *pos = NULL, *nrm = NULL;
  size_t ni = 0, np = 0, nn = 0;
  int rc = skio_fbxm_read_i32(t, ri, &idx, &ni);
  if (!rc) rc = skio_fbxm_read_f64(t, skio_fbx_child(t, r, "Vertices", SKIO_FBX_NONE), &pos, &np);
  if (!rc) rc = skio_fbxm_read_f64(t, rn, &nrm, &nn);
  if (!rc && (np != ni * 3 || (normals && nn != ni * 3))) rc = REFUSE;
  for (size_t i = 0; i < ni && !rc; ++i)
    rc = idx[i] >= 0 && (uint32_t)idx[i] < P->parts[k].nverts ? skio_fbxm_ivec_add(&a->idx, (int32_t)(idx[i] + off))
                                                              : REFUSE;
  if (!rc) rc = skio_fbxm_dvec_add(&a->pos, pos, np);
  if (!rc) rc = skio_fbxm_dvec_add(&a->nrm, nrm, nn);
  free(idx);
  free(pos);
  free(nrm);
  return rc;
}

/* Channel j's Shapes: the parts' arrays into the first part's Shape. */
static int merge_shape(shapeset* S, uint32_t j, const uint32_t* off) {
  plan* P = S->P;
  const skio_fbx_tree* t = &P->M->t;
  const uint32_t r0 = S->ch[j].shape, rn = skio_fbx_child(t, r0, "Normals", SKIO_FBX_NONE);
  shape_arrays a = {{0}, {0}, {0}};
  int rc = SKC_OK;
  for (uint32_t k = 0; k < P->n && !rc; ++k)
    rc = add_shape(P, k, S->ch[(size_t)k * S->C + j].shape, off[k], rn != SKIO_FBX_NONE, &a);
  if (!rc) rc = skio_fbxm_set_i32(P, skio_fbx_child(t, r0, "Indexes", SKIO_FBX_NONE), &a.idx);
  if (!rc) rc = skio_fbxm_set_f64(P, skio_fbx_child(t, r0, "Vertices", SKIO_FBX_NONE), &a.pos);
  if (!rc && rn != SKIO_FBX_NONE) rc = skio_fbxm_set_f64(P, rn, &a.nrm);
  free(a.idx.v);
  free(a.pos.v);
  free(a.nrm.v);
  return rc;
}

/* ---- the later parts' shapes dropped ----------------------------------------------------------------------------- */

static int drop_object(plan* P, uint32_t rec, int64_t id) {
  const int rc = skio_fbxm_drop(P, rec);
  return rc ? rc : skio_fbxm_drop_touching(P, id);
}

/* Part k's BlendShape, channels, Shapes, curve nodes and curves dropped with their connections, and counted. */
static int drop_part_shapes(shapeset* S, uint32_t k) {
  plan* P = S->P;
  int rc = drop_object(P, P->parts[k].shapes, P->parts[k].shapes_id);
  for (uint32_t j = 0; j < S->C && !rc; ++j) {
    const chan* ch = &S->ch[(size_t)k * S->C + j];
    rc = drop_object(P, ch->rec, ch->id);
    if (!rc) rc = drop_object(P, ch->shape, ch->shape_id);
    for (uint32_t i = 0; i < ch->nnode && !rc; ++i) {
      const cnode* nd = &S->nodes[ch->node0 + i];
      rc = drop_object(P, nd->rec, nd->id);
      for (uint32_t c = 0; c < nd->ncurve && !rc; ++c)
        rc = drop_object(P, S->curves[nd->curve0 + c].rec, S->curves[nd->curve0 + c].id);
      P->drop_curve += nd->ncurve;
    }
    P->drop_node += ch->nnode;
  }
  P->drop_deformer += 1 + S->C;
  P->drop_geom += S->C;
  return rc;
}

int skio_fbxm_merge_shapes(plan* P, const uint32_t* off) {
  shapeset S = {P, 0, NULL, NULL, 0, 0, NULL, 0, 0};
  int rc = SKC_OK;
  for (uint32_t k = 0; k < P->n && !rc; ++k) rc = read_blend_shape(&S, k);
  for (uint32_t k = 1; k < P->n && !rc; ++k) rc = same_channels(&S, k) ? SKC_OK : REFUSE;
  for (uint32_t j = 0; j < S.C && !rc; ++j) rc = merge_shape(&S, j, off);
  for (uint32_t k = 1; k < P->n && !rc; ++k) rc = drop_part_shapes(&S, k);
  free(S.ch);
  free(S.nodes);
  free(S.curves);
  return rc;
}
