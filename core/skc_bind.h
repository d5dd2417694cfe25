/* skc_bind.h - automatic binding: skin weights from a mesh and bone segments (internal).
 *
 * Pipeline: skc_bind() validates the description, resolves defaults, runs one method (bind_nearest.c,
 * bind_heat.c, bind_robust.c, bind_capsule.c, bind_delaunay.c), each of which fills per-vertex candidate lists
 * (joint, weight), then skc_bind_finish() prunes, limits, normalizes to exact sums, merges locked joints and
 * writes the skin.
 * Nothing is written to the skin unless every step succeeded.
 */
#ifndef SKC_BIND_H
#define SKC_BIND_H

#include <stddef.h>
#include <stdint.h>

#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skc_status.h"

enum { SKC_BIND_ROBUST = 0, SKC_BIND_NEAREST = 1, SKC_BIND_HEAT = 2, SKC_BIND_CAPSULE = 3, SKC_BIND_DELAUNAY = 4 };

typedef struct skc_bind_desc {
  const float* positions; /* 3 * vertex_count */
  size_t vertex_count;
  const uint32_t* triangles; /* 3 * triangle_count (may be NULL when triangle_count = 0) */
  size_t triangle_count;
  const float* heads; /* 3 * joint_count bone segment starts */
  const float* tails; /* 3 * joint_count bone segment ends (== head: a point bone) */
  uint32_t joint_count;
  const uint8_t* deform;      /* joint_count, NULL = every joint */
  const uint8_t* locked;      /* joint_count, NULL = none */
  const uint8_t* vertex_mask; /* vertex_count, NULL = every vertex */
  uint32_t max_influences;    /* >= 1 */
  int method;                 /* SKC_BIND_* */
  /* nearest */
  int rigid;            /* 1 = one bone per vertex */
  float falloff_power;  /* > 0 */
  float falloff_cutoff; /* > 1: bones farther than cutoff * nearest distance get nothing */
  /* heat */
  float heat_scale; /* c > 0 */
  int no_weld;      /* 1 = do not join copies of a vertex (skc_bind_weld) for the Laplacian */
  /* capsule */
  const float* capsule_radii; /* joint_count, > 0 given, 0 = estimated; NULL = all estimated */
  uint32_t smooth_iterations; /* smoothing passes over mesh edges (0 = none) */
  /* delaunay */
  uint32_t bone_samples; /* points per bone (0 = from the mesh density) */
  /* finish */
  float prune; /* relative: drop weights below prune * the vertex's largest weight */
  const int32_t* parents; /* joint_count parent indices (-1: root), NULL when the bones have no hierarchy */
  /* heat and robust on very large meshes (bind_coarse.c): solved on a simplified copy above coarse_above vertices
   * (0 = SKC_BIND_COARSE_ABOVE; SIZE_MAX = never), of about coarse_target vertices (0 = SKC_BIND_COARSE_TARGET) */
  size_t coarse_above;
  size_t coarse_target;
} skc_bind_desc;

typedef struct skc_bind_report {
  int method_used;
  double milliseconds;
  uint64_t fallback_vertices;   /* weighted by the nearest-bone fallback inside heat/robust */
  uint64_t components;          /* connected components (heat) */
  uint64_t fallback_components; /* components no bone sees (weighted by nearest) */
  uint64_t bound_vertices;      /* vertices (re)weighted */
  uint64_t coarse_vertices;     /* > 0: heat / robust ran on a simplified mesh of that many vertices */
  uint64_t* joint_vertex_counts; /* optional, joint_count: vertices with a non-zero weight, whole skin */
  /* optional caller arrays, filled by skc_bind after the weights are written: */
  uint8_t* vertex_fallback;        /* vertex_count: 1 = weighted by the nearest-bone fallback (0 for unbound) */
  uint64_t* joint_fallback_counts; /* joint_count: fallback vertices with a non-zero weight on the joint */
  double* joint_weight_sums;       /* joint_count: sum of the joint's weights, whole skin */
} skc_bind_report;

/* Candidates produced by a method: vertex v owns count[v] pairs at v * stride (stride = max candidates). */
typedef struct skc_bind_cands {
  size_t vertex_count;
  uint32_t stride;
  uint32_t* count;
  uint32_t* joints;
  float* weights;
  uint8_t* fallback; /* vertex_count: 1 = the nearest-bone fallback gave v its candidates (set by the methods) */
} skc_bind_cands;

int skc_bind_cands_init(skc_bind_cands* c, size_t vertex_count, uint32_t stride, skc_err* err);
void skc_bind_cands_free(skc_bind_cands* c);
/* Inserts (joint, w) into vertex v's list, keeping the stride largest, sorted by weight descending. */
void skc_bind_cands_offer(skc_bind_cands* c, size_t v, uint32_t joint, float w);

/* Validates, runs the method and writes the weights into skin (vertex_count / joint_count must match).
 * report may be NULL. On failure the skin is untouched. */
int skc_bind(const skc_bind_desc* d, skc_skin* skin, skc_bind_report* report, skc_err* err);

/* Robust's last step (bind_branches.c): weight that two branches of the skeleton pull on one vertex goes to the
 * trunk they hang from. For the two branches below a common ancestor (each the sum of the vertex's candidates on
 * it) whose smaller sum m is largest, when m > SKC_BRANCH_SHARE of the vertex's candidate weight: m is taken from
 * both branches (in proportion on each) and 2 m given to the trunk - the lowest common deform ancestor (unlocked;
 * none: left as is), its ancestors while their bones run in line, and the chain that goes on in line past it to
 * the next fork - split between the two trunk bones nearest the vertex; repeated while such a pair remains. A
 * vertex between two legs follows the pelvis, a chest between the front legs the spine bone above it. Needs
 * d->parents (else nothing); without heads, tails or positions, to the common deform ancestor. */
#define SKC_BRANCH_SHARE 0.2
int skc_bind_merge_branches(const skc_bind_desc* d, skc_bind_cands* c); /* SKC_OK or SKC_OUT_OF_MEMORY */

/* Bone segments of a skeleton: head = world rest origin; tail = the stored one (s->tail_local: Blender's Collada
 * tips) where the file gave it, else by these rules: the only child's head. When the skeleton has a
 * bone axis (a signed local axis pointing at the only child for >= 75 % of the >= 3 single-child joints: Blender's
 * +Y, Maya's +X), joints with several children and chain-ending leaves point along it (plugin/skinkit.h,
 * sk_skeleton_bone_segments, has the rule). Otherwise, with several children, head + the unit direction to the
 * children's average head times how far the child most in line with it reaches along it (else the distance of the
 * nearest child; the average itself when it or a child coincides with the head: a hip's spine, tail and legs
 * average to a point near the hip); for a leaf
 * head + (head - parent head) (a root without children: tail = head). */
void skc_skeleton_bone_segments(const skc_skeleton* s, float* heads, float* tails);
/* The same segments carried into bind space (the space skinned mesh positions live in): each joint's segment is
 * moved by B_j * inverse(rest_world_j), so head = the bind matrix origin. Equal to the rest segments when the
 * bind matrices are the rest pose. A joint whose rest matrix is singular keeps its rest segment. */
void skc_skeleton_bone_segments_bind(const skc_skeleton* s, float* heads, float* tails);

/* Sibling leaves (a leaf whose parent has other children: limbs hung from one body joint, ears, a jaw) have no
 * direction in the skeleton (bind_aim.c): when the leaf's head lies on a connected part of the mesh (triangles
 * over welded vertices; its box grown by 1 % of the mesh diagonal) whose centroid is nearer the leaf's head than
 * the parent's, the largest such part, tail = head + 2 (centroid - head). deform: NULL = every joint; heads,
 * tails and positions in one space. Out of memory: tails unchanged. */
void skc_bind_aim_sibling_leaves(const skc_skeleton* s, const uint8_t* deform, const float* positions, size_t n,
                                 const uint32_t* tris, size_t nt, const float* heads, float* tails);


/* ---- fit check (bind_fit.c): does the armature sit in the mesh? ---------------------------------------------
 * Head, middle and tail of every deform bone (at most 768 points) are tested against the mesh: inside its box
 * grown by SKC_FIT_GROW of the box diagonal and within SKC_FIT_NEAR of the diagonal of a mesh vertex. ok when at
 * least SKC_FIT_INSIDE_SHARE of them are, and the bones' box diagonal is SKC_FIT_SCALE_MIN..MAX of the mesh's
 * (checked from 4 points on). Otherwise hint: SCALE (size off: units), AXIS (the bones fit once turned 90 degrees
 * about X: Y-up vs Z-up) or OFFSET (moved away, or another character's armature). */
#define SKC_FIT_GROW 0.10
#define SKC_FIT_NEAR 0.35
#define SKC_FIT_INSIDE_SHARE 0.75
#define SKC_FIT_SCALE_MIN 0.1
#define SKC_FIT_SCALE_MAX 3.0
enum { SKC_FIT_HINT_NONE = 0, SKC_FIT_HINT_SCALE = 1, SKC_FIT_HINT_AXIS = 2, SKC_FIT_HINT_OFFSET = 3 };
typedef struct skc_bind_fit {
  double inside_share; /* of the bone points, 0..1 */
  double scale_ratio;  /* bones' box diagonal / mesh box diagonal */
  int ok;
  int hint; /* SKC_FIT_HINT_* (NONE when ok) */
} skc_bind_fit;
void skc_bind_fit_check(const float* positions, size_t vertex_count, const float* heads, const float* tails,
                        uint32_t joint_count, const uint8_t* deform, skc_bind_fit* out);

/* ---- shared helpers (bind.c) -------------------------------------------------------------------- */
/* Squared distance from p to segment a-b (a point when a == b); out_t (optional) = parameter of the closest.
 * Inline: the binders call it for every vertex and bone. */
static inline double skc_seg_dist2(const double p[3], const double a[3], const double b[3], double* out_t) {
  double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2], t = 0.0;
  if (l2 > 0.0) {
    t = (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / l2;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  }
  double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
  if (out_t) *out_t = t;
  return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}
/* True when joint j receives new weights (deform and not locked). */
int skc_bind_joint_active(const skc_bind_desc* d, uint32_t j);
/* rep[v] = the lowest vertex index of v's cluster: positions chained by steps within a tolerance (identical ones,
 * -0 = +0, always; closer than the coordinates' rounding always; above, the middle of the widest stretch without a
 * pair up to 2^-16 of the mesh's size), so that the clusters stay when the mesh is moved (bind_weld.c).
 * SKC_OUT_OF_MEMORY or SKC_OK. */
int skc_bind_weld(const float* positions, size_t n, uint32_t* rep);
/* skc_bind_weld for a surface's Laplacian, without joining shells that only touch (fingers side by side, a plate on a
 * body: welded, the touching fingers' heat flowed across - an auditor's hand: 35 vertices with > 0.1 of a neighbour
 * finger's weight). A copy inside a closed surface (on no open edge of the unwelded mesh) stays alone: nothing was
 * cut there. Where two copies' open edges lie on the same two positions back to back (faces more than 120 degrees
 * apart), shells touch: there only the sides of a cut (open edges on the same positions, same side) join. Elsewhere
 * every copy on an open edge or on no triangle joins as skc_bind_weld would (UV seams, hard edges, triangle soups),
 * but where two closed shells of the welded mesh only touch (a soup's boxes: skc_bind_split_shells). rep[v] <= v, the
 * lowest copy v joins. triangles: nt index triples (indices >= n ignored). SKC_OUT_OF_MEMORY or SKC_OK. */
int skc_bind_weld_surfaces(const float* positions, size_t n, const uint32_t* triangles, size_t nt, uint32_t* rep);
/* Splits rep (skc_bind_weld_surfaces' joins) where copies of two closed shells share a position: shells found over
 * the welded positions wrep (skc_bind_weld), the triangles at each edge paired as a closed surface's would be (two:
 * one shell; more: by their order around the edge and their winding), so that boxes of a triangle soup which only
 * touch stay apart (bind_shells.c). rep[v] stays <= v. SKC_OUT_OF_MEMORY or SKC_OK. */
int skc_bind_split_shells(const float* positions, size_t n, const uint32_t* triangles, size_t nt, const uint32_t* wrep,
                          uint32_t* rep);
/* Diagonal of the positions' bounding box (> 0 unless all points coincide). */
double skc_bind_bbox_diag(const float* positions, size_t n);

/* ---- methods: fill candidates for every vertex whose mask is set ------------------------------- */
/* Nearest bone by point-to-segment distance: rigid, or blended by inverse-distance power with a smooth relative
 * cutoff. only (optional, vertex_count bytes) restricts the vertices computed (others left empty). */
int skc_bind_nearest(const skc_bind_desc* d, const uint8_t* only, skc_bind_cands* out, skc_err* err);
/* Bone heat (Baran & Popovic 2007). strict = 1: a factorization failure is an error (SKC_NO_SOLUTION);
 * strict = 0 retries with clamped non-negative cotangents, then nearest. */
int skc_bind_heat(const skc_bind_desc* d, int strict, skc_bind_cands* out, skc_bind_report* report, skc_err* err);
/* Heat with every fallback enabled, then skc_bind_follow_body; never fails on valid input except out of memory. */
int skc_bind_robust(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err);
/* A method over a whole mesh (heat in its strict or lenient form, robust). */
typedef int (*skc_bind_method_fn)(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err);
/* Meshes of more than coarse_above vertices (no vertex mask, welding on): the method on a simplified copy of about
 * coarse_target vertices, the candidates carried to every vertex (its kept vertex's, or the barycentric blend at
 * its closest point on the simplified surface). SKC_BIND_NOT_COARSE when the mesh is not simplified (small,
 * masked, or it would not shrink by a quarter): the caller runs the method itself. */
#define SKC_BIND_NOT_COARSE (-1)
#define SKC_BIND_COARSE_ABOVE 300000
#define SKC_BIND_COARSE_TARGET 150000
int skc_bind_coarse(const skc_bind_desc* d, skc_bind_method_fn method, skc_bind_cands* out, skc_bind_report* report,
                    skc_err* err);
/* Vertices the fallback weighted (out->fallback) take the weights of the closest point of the surface the heat
 * weighted when it is closer than every bone; small parts (<= 5 % of the mesh's diagonal) as one, at their
 * centroid (bind_body.c). moved (optional) = vertices that did. SKC_OK or SKC_OUT_OF_MEMORY. */
int skc_bind_follow_body(const skc_bind_desc* d, skc_bind_cands* out, uint64_t* moved, skc_err* err);
/* Capsule containment (seed 000): per-bone capsule radius (given or the median distance of the vertices nearest
 * that bone), score 1 / (1 + (d / r)^p), best scores blended, then smooth_iterations uniform smoothing passes over
 * mesh edges. Fails only for out of memory. */
int skc_bind_capsule(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err);
/* Delaunay binding (Shin & Shin 2000): k-nearest-bone multi-source Dijkstra from bone samples over the mesh's edges
 * plus the edges of a qhull tetrahedralization of a vertex sample (at most ~DEL_TARGET_SAMPLES grid cells) and the
 * bone samples, edges leaving the surface outward dropped; inverse-distance blend. Vertices the graph does not
 * reach, and every vertex when qhull cannot build one (< 5 distinct points, qhull error), fall back to nearest bone
 * (report->fallback_vertices; method_used NEAREST for a total fallback). Fails only for out of memory. */
int skc_bind_delaunay(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err);

/* ---- BVH over triangles (bvh.c) ----------------------------------------------------------------- */
typedef struct skc_bvh skc_bvh;
int skc_bvh_build(const float* positions, const uint32_t* triangles, size_t triangle_count, skc_bvh** out,
                  skc_err* err);
void skc_bvh_destroy(skc_bvh* b);
/* True when the open segment p + t (q - p), t in (t_eps, 1 - t_eps), crosses a triangle that does not have
 * skip_vertex as a corner. Thread-safe (read-only). */
int skc_bvh_segment_hits(const skc_bvh* b, const double p[3], const double q[3], uint32_t skip_vertex, double t_eps);
/* The same, counting only a triangle the segment enters from its front (the side its normal, (c1 - c0) x (c2 - c0),
 * points to): leaving a closed part from inside is not a crossing (Blender's bone heat visibility). */
int skc_bvh_segment_enters(const skc_bvh* b, const double p[3], const double q[3], uint32_t skip_vertex, double t_eps);
/* The triangles' corner vertices (< vertex_count) in the tree's leaf order, each once, into order (vertex_count
 * entries): neighbouring queries then walk the same nodes. Returns the count, SIZE_MAX when out of memory. */
size_t skc_bvh_vertex_order(const skc_bvh* b, size_t vertex_count, uint32_t* order);
/* Number of triangles the segment p-q crosses (for inside/outside parity tests); *winding (optional) gets the
 * crossings leaving through a triangle's front (counter-clockwise normal) minus those entering: from inside k
 * nested closed outward-facing surfaces to beyond them all, k. Thread-safe (read-only). */
size_t skc_bvh_segment_count(const skc_bvh* b, const double p[3], const double q[3], long* winding);

#endif
