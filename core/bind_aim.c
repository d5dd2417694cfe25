/* bind_aim.c - tails of sibling leaves from the mesh part they sit on.
 *
 * A leaf whose parent has other children (limbs hung from one body joint, ears and a jaw under a head) has no
 * direction in the skeleton: bone_segments continues its parent's direction, which for a character whose legs
 * and arms start beside the pelvis joint (character.b3d) points them sideways and up. Characters built from
 * separate parts (blocky and low-poly models, robots, armour) tell the direction: the leaf's head lies on a part
 * that lies beyond it, away from its parent's head, and the bone runs through that part. A one-piece body never
 * qualifies (its centroid is nearer the parent than the leaf), so such skeletons keep their segments.
 */
#include <math.h>
#include <stdlib.h>

#include "skc_bind.h"

#define AIM_BOX_SLACK 0.01 /* a head on a part: inside its box grown by this share of the mesh diagonal */

typedef struct aim_part {
  double sum[3], lo[3], hi[3];
  size_t count;
} aim_part;

static uint32_t find(uint32_t* p, uint32_t v) {
  while (p[v] != v) v = p[v] = p[p[v]];
  return v;
}

/* Connected parts over welded vertices: part[v] = its root (a vertex index). Welded as for heat
 * (skc_bind_weld_surfaces): closed shells that only touch (a blocky character's boxes) are parts of their own. */
static int connect_parts(const float* positions, size_t n, const uint32_t* tris, size_t nt, uint32_t* part) {
  if (skc_bind_weld_surfaces(positions, n, tris, nt, part)) return SKC_OUT_OF_MEMORY;
  for (size_t t = 0; t < nt; ++t) {
    const uint32_t* tv = tris + 3 * t;
    if (tv[0] >= n || tv[1] >= n || tv[2] >= n) continue; /* skc_bind refuses such meshes later */
    for (int k = 1; k < 3; ++k) { /* the lower root wins: roots stay their part's lowest vertex */
      uint32_t a = find(part, tv[0]), b = find(part, tv[k]);
      if (a < b) part[b] = a;
      else part[a] = b;
    }
  }
  for (size_t v = 0; v < n; ++v) part[v] = find(part, (uint32_t)v);
  return SKC_OK;
}

/* Children per joint (joint_count entries), or NULL when out of memory. */
static uint32_t* child_counts(const skc_skeleton* s) {
  uint32_t* kids = calloc(s->joint_count ? s->joint_count : 1, sizeof *kids);
  if (kids)
    for (uint32_t c = 0; c < s->joint_count; ++c)
      if (s->parents[c] >= 0) kids[s->parents[c]]++;
  return kids;
}

/* Whether joint j is a leaf with siblings and no stored tail (kids from child_counts: linear in the joints, a 65k-joint
 * file too). */
static int sibling_leaf(const skc_skeleton* s, const uint32_t* kids, uint32_t j) {
  return !skc_skeleton_has_tail(s, j) && s->parents[j] >= 0 && kids[j] == 0 && kids[s->parents[j]] > 1;
}

static double dist2(const double a[3], const float* b) {
  double e2 = 0.0;
  for (int k = 0; k < 3; ++k) e2 += (a[k] - b[k]) * (a[k] - b[k]);
  return e2;
}

/* The largest part whose (grown) box holds head h and whose centroid is nearer h than the parent's head ph;
 * NULL when none. */
static const aim_part* part_beyond(const aim_part* parts, size_t np, const float* h, const float* ph, double slack) {
  const aim_part* best = NULL;
  for (size_t i = 0; i < np; ++i) {
    const aim_part* q = parts + i;
    int inside = 1;
    for (int k = 0; k < 3; ++k) inside &= h[k] >= q->lo[k] - slack && h[k] <= q->hi[k] + slack;
    double c[3] = {q->sum[0] / q->count, q->sum[1] / q->count, q->sum[2] / q->count};
    if (inside && dist2(c, h) < dist2(c, ph) && (!best || q->count > best->count)) best = q;
  }
  return best;
}

/* Box, centroid sum and size of every part; *np parts. NULL when out of memory. */
static aim_part* measure_parts(const float* positions, size_t n, uint32_t* part, size_t* np) {
  size_t count = 0;
  for (size_t v = 0; v < n; ++v) count += part[v] == v;
  aim_part* parts = calloc(count ? count : 1, sizeof *parts);
  if (!parts) return NULL;
  *np = 0;
  for (size_t v = 0; v < n; ++v) /* roots are their part's lowest vertex: numbered before their members */
    part[v] = part[v] == v ? (uint32_t)(*np)++ : part[part[v]];
  for (size_t i = 0; i < *np; ++i)
    for (int k = 0; k < 3; ++k) parts[i].lo[k] = INFINITY, parts[i].hi[k] = -INFINITY;
  for (size_t v = 0; v < n; ++v) {
    aim_part* q = parts + part[v];
    for (int k = 0; k < 3; ++k) {
      double x = positions[3 * v + k];
      q->sum[k] += x;
      q->lo[k] = x < q->lo[k] ? x : q->lo[k];
      q->hi[k] = x > q->hi[k] ? x : q->hi[k];
    }
    ++q->count;
  }
  return parts;
}

void skc_bind_aim_sibling_leaves(const skc_skeleton* s, const uint8_t* deform, const float* positions, size_t n,
                                 const uint32_t* tris, size_t nt, const float* heads, float* tails) {
  uint32_t nj = s->joint_count, any = 0;
  uint32_t* kids = child_counts(s);
  for (uint32_t j = 0; kids && j < nj && !any; ++j) any = (!deform || deform[j]) && sibling_leaf(s, kids, j);
  if (!any || !positions || !tris || !nt) {
    free(kids);
    return;
  }
  uint32_t* part = malloc(n * sizeof *part);
  aim_part* parts = NULL;
  size_t np = 0;
  if (part && !connect_parts(positions, n, tris, nt, part)) parts = measure_parts(positions, n, part, &np);
  double slack = AIM_BOX_SLACK * skc_bind_bbox_diag(positions, n);
  for (uint32_t j = 0; parts && j < nj; ++j) {
    if ((deform && !deform[j]) || !sibling_leaf(s, kids, j)) continue;
    const float* h = heads + 3 * (size_t)j;
    const aim_part* q = part_beyond(parts, np, h, heads + 3 * (size_t)s->parents[j], slack);
    if (!q) continue;
    for (int k = 0; k < 3; ++k) /* a limb's vertices centre halfway along it */
      tails[3 * j + k] = (float)(h[k] + 2.0 * (q->sum[k] / q->count - h[k]));
  }
  free(parts);
  free(part);
  free(kids);
}
