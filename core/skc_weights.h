/* skc_weights.h - weight editing operations on canonical CSR skins (internal API).
 *
 * Every operation:
 *  - works on a struct sk_skin in place (CSR), touching only the selected vertices (scope.mask, vertex_count
 *    bytes, non-zero = selected; NULL = all) and never changing the weight of a locked joint
 *    (scope.locked, joint_count bytes, non-zero = locked; NULL = none);
 *  - treats an entry as invalid when its weight is NaN/Inf or negative or its joint is >= joint_count; a
 *    selected vertex holding an invalid entry is reported (SKC_WFLAG_FAILED | SKC_WFLAG_INVALID) and left
 *    unchanged, unless the operation documents otherwise;
 *  - returns an error (and leaves the weights untouched) only for bad arguments or out of memory; per-vertex
 *    problems are counted in the report and flagged in report->vertex_flags (optional, vertex_count bytes).
 *
 * Normalization rule (shared by every op that renormalizes): with L = sum of locked weights and U = sum of
 * unlocked weights of a vertex, the unlocked weights are scaled by (1 - L) / U. If L > 1 + tol the vertex is
 * SKC_WFLAG_LOCKED; if U = 0 and |1 - L| > tol it is SKC_WFLAG_UNWEIGHTED (nothing to scale).
 */
#ifndef SKC_WEIGHTS_H
#define SKC_WEIGHTS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skc_status.h"

/* Per-vertex report bits (public: SK_WFLAG_*). */
enum {
  SKC_WFLAG_CHANGED = 1 << 0,    /* the vertex's weights were rewritten */
  SKC_WFLAG_FAILED = 1 << 1,     /* the op could not be applied; the vertex is unchanged (reason below) */
  SKC_WFLAG_INVALID = 1 << 2,    /* NaN/Inf/negative weight or out-of-range joint */
  SKC_WFLAG_UNWEIGHTED = 1 << 3, /* no unlocked weight to scale (all zero / no influence) */
  SKC_WFLAG_LOCKED = 1 << 4,     /* locked weights prevent it: sum > 1, too many, or off the integer grid */
  SKC_WFLAG_SUM_OFF = 1 << 5,    /* changed, but locked weights kept the sum from reaching 1 */
  SKC_WFLAG_UNMATCHED = 1 << 6,  /* mirror: no partner vertex within tolerance */
  SKC_WFLAG_ROGUE = 1 << 7       /* rogue removal: had attachments outside their joint's region */
};

typedef struct skc_wscope {
  const uint8_t* mask;   /* vertex_count bytes or NULL */
  const uint8_t* locked; /* joint_count bytes or NULL */
} skc_wscope;

typedef struct skc_wreport {
  uint64_t vertices_visited; /* selected vertices examined */
  uint64_t vertices_changed;
  uint64_t vertices_failed;
  uint64_t invalid_entries;  /* invalid entries seen in selected vertices (dropped ones included) */
  uint64_t sum_off;          /* changed vertices left off sum 1 by locked weights */
  uint64_t influences_before, influences_after; /* whole skin */
  uint64_t unmatched;        /* mirror */
  uint64_t entries_changed;  /* rogue: attachments replaced; prune/limit: entries removed */
  uint64_t joints_affected;  /* rogue: joints with at least one rogue attachment; mirror: joints renamed */
  uint32_t* joint_counts;    /* optional (joint_count): rogue attachments removed per joint; zeroed first */
  uint8_t* vertex_flags;     /* optional (vertex_count): SKC_WFLAG_*; zeroed first */
} skc_wreport;

static inline bool skc_wsel(const skc_wscope* s, size_t v) { return !s->mask || s->mask[v]; }
/* j must be < joint_count */
static inline bool skc_wlocked(const skc_wscope* s, uint32_t j) { return s->locked && s->locked[j]; }
static inline bool skc_wentry_valid(uint32_t j, float w, uint32_t joint_count) {
  return j < joint_count && isfinite(w) && w >= 0.0f;
}

/* Zeroes counters and the optional arrays; records influences_before. */
void skc_wreport_begin(skc_wreport* r, const skc_skin* s);
static inline void skc_wreport_flag(skc_wreport* r, size_t v, uint8_t bits) {
  r->vertices_changed += (bits & SKC_WFLAG_CHANGED) != 0;
  r->vertices_failed += (bits & SKC_WFLAG_FAILED) != 0;
  r->sum_off += (bits & SKC_WFLAG_SUM_OFF) != 0;
  if (r->vertex_flags) r->vertex_flags[v] |= bits;
}
/* Scans [b, e) and returns the number of invalid entries. */
size_t skc_wcount_invalid(const skc_skin* s, size_t b, size_t e);
/* Largest per-vertex influence count of the skin. */
size_t skc_wmax_degree(const skc_skin* s);

/* How far the float weights of a normalized vertex may sum from 1, per weight: the rounding of float32 weights (a
 * rescaled vertex of n weights lands within n * 6e-8 of its target), and what the Khronos glTF validator accepts
 * (8e-7 for a vertex of four). */
#define SKC_WSUM_ROUNDING 2e-7
/* Applies the normalization rule to one vertex (valid entries only; joints < joint_count). Returns 0 or the
 * failure bits (SKC_WFLAG_LOCKED / SKC_WFLAG_UNWEIGHTED), in which case w is unchanged. Unlocked weights that
 * already sum to what the rule asks within SKC_WSUM_ROUNDING a weight are left as they are: rescaling them would
 * only move their last bits, and normalizing again would move them again. */
int skc_wnormalize_vertex(const uint32_t* joints, float* w, size_t n, const uint8_t* locked, double tol,
                          bool* changed);
/* (changed, optional, is set to true when a weight was rewritten; it is never cleared) */

/* ---- normalize ------------------------------------------------------------------------------------ */
enum { SKC_NORMALIZE_DROP_INVALID = 1 << 0 }; /* remove invalid entries of selected vertices, then normalize */
int skc_weights_normalize(skc_skin* s, const skc_wscope* sc, uint32_t flags, float tolerance, skc_wreport* r,
                          skc_err* err);

/* ---- limit ---------------------------------------------------------------------------------------- */
enum { SKC_LIMIT_NO_NORMALIZE = 1 << 0 };
/* Vertices with more than max_influences entries keep their locked entries (weight > 0) and the largest unlocked
 * ones (ties: lower joint), in their original order; zero entries are dropped first. More than max_influences
 * non-zero locked entries: SKC_WFLAG_LOCKED, unchanged. Then the normalization rule (unless NO_NORMALIZE). */
int skc_weights_limit(skc_skin* s, const skc_wscope* sc, uint32_t max_influences, uint32_t flags, float tolerance,
                      skc_wreport* r, skc_err* err);

/* ---- prune ---------------------------------------------------------------------------------------- */
enum { SKC_PRUNE_KEEP_ONE = 1 << 0, SKC_PRUNE_NORMALIZE = 1 << 1 };
/* Removes unlocked entries with weight < threshold, and unlocked zero entries. KEEP_ONE keeps the largest
 * unlocked entry of a vertex that would otherwise have no non-zero influence left. */
int skc_weights_prune(skc_skin* s, const skc_wscope* sc, float threshold, uint32_t flags, float tolerance,
                      skc_wreport* r, skc_err* err);

/* ---- quantize ------------------------------------------------------------------------------------- */
/* bits 8 or 16: each selected vertex's weights become q_i / T (T = 255 or 65535) with integer q_i summing
 * exactly to T (largest remainder on the proportions; ties: larger weight, then earlier entry). Locked weights
 * must already lie on the grid (|w T - round(w T)| <= 1e-3), else SKC_WFLAG_LOCKED. out_values (optional,
 * one per entry, like the CSR) receives q_i; for unquantized vertices round(clamp(w, 0, 1) T). */
int skc_weights_quantize(skc_skin* s, const skc_wscope* sc, uint32_t bits, uint16_t* out_values, skc_wreport* r,
                         skc_err* err);
/* Each unlocked weight of the selected vertices rounded on its own to the nearest q / steps (steps 1 .. 65535), no
 * sum kept: Blender's Quantize. Invalid entries fail the vertex (SKC_WFLAG_INVALID), which is left unchanged. */
int skc_weights_round(skc_skin* s, const skc_wscope* sc, uint32_t steps, skc_wreport* r, skc_err* err);

/* ---- per-vertex edits: one row at a time -------------------------------------------------------- */
/* Normalize, limit, prune, quantize and round edit each vertex on its own: skc_wrow_op describes the edit,
 * skc_wrow_apply applies it to one selected vertex's entries, and skc_weights_rows runs it over a skin (the
 * skc_weights_* functions above are that loop). sk_records_edit applies the same rows straight to Blender's
 * records. A row is edited in place and only ever loses entries (order kept), so *n can only shrink. */
enum { SKC_WROW_NORMALIZE, SKC_WROW_LIMIT, SKC_WROW_PRUNE, SKC_WROW_QUANTIZE, SKC_WROW_ROUND };
typedef struct skc_wrow_op {
  int kind;             /* SKC_WROW_* */
  uint32_t flags;       /* the operation's SKC_NORMALIZE_ / SKC_LIMIT_ / SKC_PRUNE_ flags */
  uint32_t count;       /* limit: max_influences; quantize: T (255 or 65535); round: steps */
  float threshold;      /* prune */
  double tol;           /* the normalization rule's tolerance */
  uint32_t joint_count; /* an entry whose joint is >= this is invalid */
  float level[256];     /* quantize to 8 bits: q / 255 as floats (the values the division gives) */
} skc_wrow_op;
/* Checks the operation's arguments as the skin-wide function does and fills op. count: limit max_influences
 * (>= 1), quantize bits (8 or 16), round steps (1 .. 65535); threshold: prune, in [0, 1]. */
int skc_wrow_init(skc_wrow_op* op, int kind, uint32_t joint_count, uint32_t flags, uint32_t count, float threshold,
                  float tolerance, skc_err* err);
/* Bytes of scratch skc_wrow_apply needs for rows of up to max_n entries. */
size_t skc_wrow_scratch_bytes(size_t max_n);
/* One selected vertex (J, W: *n entries): returns its SKC_WFLAG_* bits and adds to r->invalid_entries and
 * r->entries_changed; the caller counts vertices_visited and records the bits (skc_wreport_flag). scratch:
 * skc_wrow_scratch_bytes(*n) bytes, 8-byte aligned. After a quantization that did not fail, the first *n
 * uint32_t of scratch are the integers q_i. */
uint8_t skc_wrow_apply(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n, void* scratch,
                       skc_wreport* r);
int skc_weights_rows(skc_skin* s, const skc_wscope* sc, const skc_wrow_op* op, skc_wreport* r, skc_err* err);
/* The rows of each kind (skc_wrow_apply's cases), and the invalid entries of a row. */
uint8_t skc_wrow_normalize(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n,
                           skc_wreport* r);
/* Quantize's common case: a row of n (<= SKC_WQUANTIZE_NEAREST_MAX) valid weights none of which is locked: the
 * dequantized floats of its largest-remainder integers into out (level: q / 255 for T = 255, else NULL) and 1; 0
 * when the row path must decide (more entries, or the weights sum to 0). The floats skc_wrow_quantize writes for
 * such a row, by the same steps (rounding to nearest first, which decides 92 % of CesiumMan_subdiv2's rows). */
#define SKC_WQUANTIZE_NEAREST_MAX 8
int skc_wquantize_nearest(const float* W, size_t n, uint32_t T, const float* level, float* out);
uint8_t skc_wrow_limit(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n, void* scratch,
                       skc_wreport* r);
/* Prune's rule for an unlocked entry: it stays when its weight reaches the threshold and is not zero (locked
 * entries always stay). */
static inline bool skc_wprune_keeps(float w, float threshold) { return w >= threshold && w > 0.0f; }
uint8_t skc_wrow_prune(const skc_wrow_op* op, const skc_wscope* sc, uint32_t* J, float* W, size_t* n, void* scratch,
                       skc_wreport* r);
/* A row's entries naming one joint twice merged into the first (weights added in entry order; the others keep their
 * order), as the writers store them: limit and prune rank a joint by its whole weight (an auditor's [1, 1, 2] /
 * [0.3, 0.3, 0.4] lost joint 1's 0.6 to --limit 1). Returns the entries dropped. scratch: skc_wrow_scratch_bytes. */
size_t skc_wrow_merge_duplicates(uint32_t* J, float* W, size_t* n, void* scratch);
uint8_t skc_wrow_quantize(const skc_wrow_op* op, const skc_wscope* sc, const uint32_t* J, float* W, size_t n,
                          void* scratch, skc_wreport* r);
uint8_t skc_wrow_round(const skc_wrow_op* op, const skc_wscope* sc, const uint32_t* J, float* W, size_t n,
                       skc_wreport* r);
static inline size_t skc_wrow_invalid(const uint32_t* J, const float* W, size_t n, uint32_t joint_count) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += !skc_wentry_valid(J[i], W[i], joint_count);
  return bad;
}

/* ---- smooth --------------------------------------------------------------------------------------- */
typedef struct skc_smooth_params {
  const float* positions; size_t positions_stride; /* needed by cotangent */
  const uint32_t* triangles; size_t triangle_count;
  uint32_t iterations;   /* >= 1 */
  float factor;          /* (0, 1] */
  int cotangent;         /* 0 = uniform */
  const uint32_t* joints; size_t joint_list_count; /* joints to smooth; NULL/0 = all */
  uint32_t max_influences; /* 0 = no limit */
  float min_weight;      /* smoothed weights below it are dropped (> 0) */
  float tolerance;
} skc_smooth_params;
int skc_weights_smooth(skc_skin* s, const skc_wscope* sc, const skc_smooth_params* p, skc_wreport* r, skc_err* err);

/* ---- rogue-vertex removal (Weber 2000) ------------------------------------------------------------ */
enum { SKC_ROGUE_PER_COMPONENT = 1 << 0 }; /* accepted, no effect: loose parts are always separate */
/* An island of a joint on a part is small when both its total weight and its vertex count are below this fraction
 * of the main island's; a small island is rogue when none of its vertices reaches the main island over edges
 * within SKC_ROGUE_GAP of the part's bounding-box diagonal (without positions: within 2 edges). */
#define SKC_ROGUE_ISLAND_RATIO 0.05
#define SKC_ROGUE_GAP 0.1
/* A vertex whose weights move by at most this much is no change (below a float weight's stored precision). */
#define SKC_ROGUE_NO_CHANGE 1e-6
typedef struct skc_rogue_params {
  const float* positions; size_t positions_stride; /* optional: vertices at one position are connected */
  const uint32_t* triangles; size_t triangle_count;
  const skc_skeleton* skeleton; /* optional; only checked (joint count) */
  float epsilon;                /* attachment = weight > epsilon */
  uint32_t flags;
  float tolerance;
} skc_rogue_params;
int skc_weights_remove_rogue(skc_skin* s, const skc_wscope* sc, const skc_rogue_params* p, skc_wreport* r,
                             skc_err* err);

/* ---- mirror --------------------------------------------------------------------------------------- */
enum { SKC_MIRROR_POS_TO_NEG = 0, SKC_MIRROR_NEG_TO_POS = 1, SKC_MIRROR_FLIP = 2 };
typedef struct skc_mirror_params {
  const float* positions; size_t positions_stride;
  const skc_skeleton* skeleton; /* joint names; NULL = joints map to themselves */
  float normal[3];              /* plane n . x = offset; zero normal = X axis */
  float offset;
  float tolerance;              /* matching distance; <= 0: 1e-4 * bounding-box diagonal (min 1e-6) */
  int mode;
  float norm_tolerance;
} skc_mirror_params;
int skc_weights_mirror(skc_skin* s, const skc_wscope* sc, const skc_mirror_params* p, skc_wreport* r, skc_err* err);

/* Mirrored joint name (Left <-> Right in the usual conventions). Returns SKC_OK and writes out (cap bytes)
 * when the name carries a side, SKC_NOT_FOUND when it has none (out untouched), SKC_OUT_OF_RANGE when cap is
 * too small. */
int skc_joint_mirror_name(const char* name, char* out, size_t cap, skc_err* err);

/* Joint permutation Left <-> Right over a skeleton: out_map[j] = mirrored joint (j itself if the name has no
 * side or its counterpart is missing). Returns the number of joints mapped to another joint, or -1 on OOM. */
long skc_joint_mirror_map(const skc_skeleton* sk, uint32_t* out_map);

/* ---- brush strokes -------------------------------------------------------------------------------- */
enum { SKC_BRUSH_ADD = 0, SKC_BRUSH_SUBTRACT = 1, SKC_BRUSH_REPLACE = 2, SKC_BRUSH_SMOOTH = 3 };
enum { SKC_FALLOFF_SMOOTH = 0, SKC_FALLOFF_LINEAR = 1, SKC_FALLOFF_CONSTANT = 2, SKC_FALLOFF_SHARP = 3 };
typedef struct skc_brush_params {
  const float* positions; size_t positions_stride;
  const uint32_t* triangles; size_t triangle_count; /* geodesic distance and smooth mode */
  const float* dabs; size_t dab_count;              /* 5 floats per dab: center x, y, z, radius, strength */
  uint32_t joint;                                   /* painted joint (must not be locked) */
  int mode, falloff;
  bool geodesic, normalize;
  float value;                                      /* replace target */
  float tolerance;
} skc_brush_params;
/* Applies the dabs in order to the weight of one joint, then (normalize) rescales the other unlocked joints of each
 * touched vertex so it sums to 1 (the painted weight is clamped to 1 - locked sum). */
int skc_weights_brush(skc_skin* s, const skc_wscope* sc, const skc_brush_params* p, skc_wreport* r, skc_err* err);

/* ---- static 3-d k-d tree (nearest neighbour) ------------------------------------------------------ */
typedef struct skc_kdtree {
  size_t count;
  uint32_t* index;  /* point ids in tree order */
  float* points;    /* 3 * count, tree order */
  uint8_t* axis;    /* split axis per node (node = median of a range) */
} skc_kdtree;
int skc_kdtree_build(skc_kdtree* t, const float* positions, size_t stride, const uint32_t* ids, size_t count,
                     skc_err* err);
/* Nearest point to q within max_dist (inclusive); returns its id or UINT32_MAX. */
uint32_t skc_kdtree_nearest(const skc_kdtree* t, const float q[3], float max_dist, float* out_dist);
void skc_kdtree_free(skc_kdtree* t);

#endif
