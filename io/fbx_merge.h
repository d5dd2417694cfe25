/* fbx_merge.h - what fbx_merge.c (one Mesh Model per source object) shares with fbx_merge_shapes.c (the parts'
 * blend shapes merged with them): the file's objects and connections, one group's plan, and the helpers that
 * read arrays and record a change. Private to io/. */
#ifndef SKIO_FBX_MERGE_H
#define SKIO_FBX_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skio_fbx_tree.h"

#define MAX_ELEMS (1u << 28) /* elements of a merged array (fbx_tree.c reads no more) */
#define REFUSE (-1)          /* internal: the group stays as it is */

/* What an object is, for the merge (K_DUP: an id two records share, never merged). */
enum {
  K_OTHER,
  K_MESH,
  K_MODEL,
  K_GEOM,
  K_SKIN,
  K_CLUSTER,
  K_MATERIAL,
  K_DUP,
  K_BLENDSHAPE, /* Deformer "BlendShape" */
  K_CHANNEL,    /* Deformer "BlendShapeChannel" */
  K_SHAPE,      /* Geometry "Shape" */
  K_CURVENODE,  /* AnimationCurveNode */
  K_CURVE       /* AnimationCurve */
};

typedef struct conn {
  int64_t child, parent;
  uint32_t rec;
  bool oo;
} conn;

typedef struct obj {
  int64_t id;
  uint32_t rec;
  int kind;
} obj;

typedef struct mesh {
  int64_t id, parent;
  uint32_t rec;
  const uint8_t* name;
  size_t name_len;
  uint64_t hash; /* of its Properties70 */
} mesh;

typedef struct link {
  int64_t child, parent;
} link;

typedef struct merger {
  skio_fbx_tree t;
  uint32_t objects, connections;
  conn *by_child, *by_parent; /* OO and OP connections, by child / parent id, then file order */
  size_t nconn;
  obj* objs; /* by id */
  size_t nobj;
  mesh* meshes;
  size_t nmesh;
  skio_fbx_change* ch;
  skio_fbx_props** bufs; /* property builders the changes point into */
  size_t nbuf, capbuf;
  link* links; /* connections to add */
  size_t nlink, caplink;
  int64_t* gone; /* Model ids dropped (their PoseNodes go too) */
  size_t ngone, capgone;
  uint32_t drop_model, drop_geom, drop_deformer, drop_node, drop_curve, groups;
} merger;

typedef struct part {
  const mesh* m;
  uint32_t geom, skin, shapes; /* records (skin, shapes = its BlendShape: SKIO_FBX_NONE when none) */
  int64_t geom_id, skin_id, shapes_id;
  uint32_t nverts, npoly, npv; /* control points, polygons, polygon vertices */
  uint32_t mat0, nmat;         /* its Materials: plan.mats[mat0 .. mat0 + nmat) */
} part;

typedef struct clus {
  int64_t bone, id;
  uint32_t part, rec;
} clus;

typedef struct pend {
  uint32_t rec;
  skio_fbx_props* p; /* NULL: the record is dropped */
} pend;

typedef struct plan {
  merger* M;
  part* parts;
  uint32_t n;
  int64_t* mats; /* per part, its Materials in connection order */
  uint32_t* mat_conns;
  size_t nmat, capmat, capmatc;
  int64_t* merged; /* the merged Model's Materials */
  size_t nmerged, capmerged;
  int32_t* slot; /* per entry of mats: its index in merged */
  clus* cl;
  size_t ncl, capcl;
  pend* pd;
  size_t npd, cappd;
  link* links;
  size_t nlink, caplink;
  uint32_t drop_deformer, drop_geom, drop_node, drop_curve; /* beyond the later parts' Models and Geometries */
} plan;

typedef struct dvec {
  double* v;
  size_t n, cap;
} dvec;

typedef struct ivec {
  int32_t* v;
  size_t n, cap;
} ivec;

/* The object of id (NULL: none). */
const obj* skio_fbxm_find_obj(const merger* M, int64_t id);
/* The connections of arr (M->by_child, or M->by_parent with parent) whose child (parent) is id: [*first, return). */
size_t skio_fbxm_conn_range(const merger* M, const conn* arr, bool parent, int64_t id, size_t* first);
/* Object id is connected (as child) to exactly one object, with OO, and that is `parent`. */
bool skio_fbxm_only_parent(const merger* M, int64_t id, int64_t parent);
/* Record rec dropped (REFUSE when it is SKIO_FBX_NONE); every connection that touches object id dropped. */
int skio_fbxm_drop(plan* P, uint32_t rec);
int skio_fbxm_drop_touching(plan* P, int64_t id);
/* The array of property 0 of record r (SKIO_FBX_NONE: empty), decoded into *v (malloc'd); REFUSE when not one. */
int skio_fbxm_read_f64(const skio_fbx_tree* t, uint32_t r, double** v, size_t* n);
int skio_fbxm_read_i32(const skio_fbx_tree* t, uint32_t r, int32_t** v, size_t* n);
/* Appended (REFUSE beyond MAX_ELEMS). */
int skio_fbxm_dvec_add(dvec* d, const double* v, size_t n);
int skio_fbxm_ivec_add(ivec* d, int32_t v);
/* Record rec's one property becomes the array (REFUSE when rec is SKIO_FBX_NONE). */
int skio_fbxm_set_f64(plan* P, uint32_t rec, const dvec* d);
int skio_fbxm_set_i32(plan* P, uint32_t rec, const ivec* d);

/* fbx_merge_shapes.c: the parts' BlendShapes (every part has one: parts[k].shapes) merged into the first part's:
 * one channel per shape, its Shape's arrays concatenated (indexes offset by off[k], each part's first control
 * point), the later parts' BlendShapes, channels, Shapes and DeformPercent curves dropped. REFUSE when the parts'
 * shapes or curves differ or hold what the merge does not understand. */
int skio_fbxm_merge_shapes(plan* P, const uint32_t* off);

#endif
