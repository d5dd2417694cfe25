/* skc_links.h - bone links (Weber 2000; seed 000 "Bone Links"): extra joints inserted along a bone so that a large
 * rotation of one joint is spread over several smaller ones (internal API; public: sk_bone_links*).
 *
 * Linking joint J with k links (the bone runs from J's head h to its tail t, as skc_skeleton_bone_segments):
 *  - skeleton: the links "<J>_link1" .. "<J>_link<k>" come right after J (parents stay before children), link i at
 *    h + i / (k + 1) (t - h) with J's orientation, chained J -> link1 -> ... -> link k; J's children now hang under
 *    link k with unchanged rest world transforms. Links' bind matrices are J's moved along the bone the same way
 *    (B_link = B_J * inverse(rest_world_J) * rest_world_link), so bind and rest stay consistent; inverse binds are
 *    exact inverses (translation only differs).
 *  - weights: for every selected vertex, the share s = w_J (+ w_C when J has exactly one child C, not locked) is
 *    removed and laid on the chain nodes J (f = 0), link i (f = i / (k + 1)) [, C (f = 1)] by the vertex's position
 *    f along the bone (projection onto h -> t, clamped to the first and last node): s (1 - u) on the node below,
 *    s u on the node above (piecewise-linear). Every other weight is kept, so a vertex's sum is unchanged and it
 *    holds at most two of the chain's joints.
 *  - pose: J's rotation relative to its rest, d = rest^-1 r, is split into k + 1 equal parts q = slerp(1, d,
 *    1 / (k + 1)): J gets rest * q, each link its rest rotation * q; the children of J get their local translation
 *    corrected so that their world transforms equal the unlinked pose exactly.
 */
#ifndef SKC_LINKS_H
#define SKC_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skc_status.h"
#include "skc_weights.h"

#define SKC_LINKS_MAX 32u

typedef struct skc_links_params {
  const float* ranges;     /* joint_count entries, degrees in [0, 360], or NULL */
  const uint32_t* joints;  /* joints to link whatever their range, or NULL */
  size_t joint_list_count;
  uint32_t links;          /* links per linked joint, 1 .. SKC_LINKS_MAX; 0 = ceil(range / threshold) - 1 */
  float threshold;         /* degrees, (0, 360] */
  const float* positions;  /* with a skin: 3 floats per vertex at positions_stride bytes (0 = 12) */
  size_t positions_stride;
  int rest_space;          /* 1: positions are in the rest pose's space; 0: in bind space */
} skc_links_params;

/* Number of links of each joint (out_k: joint_count entries) under the rules of skc_bone_links; returns the total,
 * or fails (SKC_INVALID_ARGUMENT) on a bad range or list entry. */
int skc_links_plan(const skc_skeleton* sk, const skc_wscope* sc, const skc_links_params* p, uint32_t* out_k,
                   uint32_t* out_total, skc_err* err);

/* Builds the linked skeleton and (skin non-NULL) the redistributed skin. sc: the vertices to change and the locked
 * joints, which cannot be linked (NULL: every vertex, nothing locked). Nothing is written to the outputs unless
 * everything succeeded. SKC_NOT_FOUND when no joint qualifies for links. r (optional) reports vertices visited /
 * changed, joints_affected = joints linked, entries_changed = links inserted, joint_counts[j] = links of joint j
 * (original joint count), vertex_flags (vertex_count). */
int skc_bone_links(const skc_skeleton* sk, const skc_skin* skin, const skc_wscope* sc, const skc_links_params* p,
                   skc_skeleton** out_skeleton, skc_skin** out_skin, skc_wreport* r, skc_err* err);

/* For each joint of linked: the joint of original it comes from (out_source) and 0 for an original joint or i for
 * the i-th link (out_link). Both arrays hold linked->joint_count entries (either may be NULL). SKC_INVALID_ARGUMENT
 * if linked is not original with link chains inserted (names of original joints kept, chains unbranched, every
 * child of a linked joint under its last link). */
int skc_bone_links_source(const skc_skeleton* original, const skc_skeleton* linked, uint32_t* out_source,
                          uint32_t* out_link, skc_err* err);

/* Maps a TRS pose of original (10 floats per joint) to one of linked (10 floats per linked joint). */
int skc_bone_links_pose(const skc_skeleton* original, const skc_skeleton* linked, const float* trs, float* out_trs,
                        skc_err* err);

/* q^a for a unit quaternion (slerp from identity by fraction a along the shortest arc). */
void skc_quat_pow(const float q[4], float a, float out[4]);

#endif
