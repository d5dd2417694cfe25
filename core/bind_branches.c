/* bind_branches.c - robust's last step: weight that two branches of the skeleton pull on one vertex goes to the
 * trunk they hang from (see skc_bind_merge_branches in skc_bind.h).
 *
 * Bone heat weights a vertex by the bones it sees nearest. A vertex on the midline between two limbs (a chest
 * between the front legs, a crotch, the top of a head between its ears) sees both limbs about equally, so it gets
 * half of each, and any pose that moves the limbs apart tears it between them; an artist gives it to the body
 * bone it lies against. Weight on two branches below a joint is exactly that: each branch's weight is summed (a
 * leg's upper and lower bone pull as one), the smaller sum is taken from both branches and given twice to the
 * trunk, which keeps the vertex's sum and leaves a vertex that leans to one limb with the rest of it. Weight along
 * one chain (a parent and its child) is not touched: it is the blend across a joint that skinning needs.
 *
 * The trunk is the joint where the branches meet, its ancestors while their bones run in line, and the chain that
 * goes on in line past it to the next fork (a spine on past the front legs to the neck); the weight goes to the
 * trunk bones nearest the vertex. Without bone segments or positions in the desc, to the meeting joint.
 */
#include <math.h>
#include <stdlib.h>

#include "skc_bind.h"

/* How much distance along the direction both branches hang counts (legs hang down: a belly vertex belongs to the
 * spine bone above it more than to the one nearest in space). */
#define TRUNK_ALONG 0.5f
/* cos of the largest angle between the bones of a trunk that goes on past the meeting joint (60 degrees), and
 * between the bones of its ancestors (30 degrees: a bone from the floor to the hips is no part of a spine) */
#define TRUNK_ON_COS 0.5f
#define TRUNK_UP_COS 0.866f
/* Bones this close (a share of the shorter one's length) along one another are one limb (along_one_another). */
#define BRANCH_ALONG 0.1

/* Depth of every joint (roots 0); parents come before their children (skc_skeleton's order), and a parent index
 * that does not is taken for a root. */
static void joint_depths(const int32_t* parents, uint32_t nj, uint32_t* depth) {
  for (uint32_t j = 0; j < nj; ++j)
    depth[j] = parents[j] >= 0 && (uint32_t)parents[j] < j ? depth[parents[j]] + 1 : 0;
}

/* Child lists of the joints (parents before children, as joint_depths takes them). */
static void joint_children(const int32_t* parents, uint32_t nj, int32_t* first, int32_t* next) {
  for (uint32_t j = 0; j < nj; ++j) first[j] = next[j] = -1;
  for (uint32_t j = nj; j-- > 0;)
    if (parents[j] >= 0 && (uint32_t)parents[j] < j) {
      next[j] = first[parents[j]];
      first[parents[j]] = (int32_t)j;
    }
}

/* parents, depth and child lists together: walks that stop at a root or at the depth of the joint sought. */
typedef struct tree {
  const int32_t* parents;
  const uint32_t* depth;
  const int32_t* first_child;  /* -1: a leaf */
  const int32_t* next_sibling; /* -1: the last child */
} tree;

static int32_t up(const tree* t, int32_t x) {
  return t->parents[x] >= 0 && (uint32_t)t->parents[x] < (uint32_t)x ? t->parents[x] : -1;
}

/* Whether joint a is b or above it. */
static int at_or_above(const tree* t, uint32_t a, uint32_t b) {
  int32_t x = (int32_t)b;
  while (x >= 0 && t->depth[x] > t->depth[a]) x = up(t, x);
  return x == (int32_t)a;
}

/* The lowest joint at or above both a and b, or -1. */
static int32_t common_ancestor(const tree* t, uint32_t a, uint32_t b) {
  int32_t x = (int32_t)a, y = (int32_t)b;
  while (x >= 0 && y >= 0 && x != y) {
    if (t->depth[x] >= t->depth[y]) x = up(t, x);
    else y = up(t, y);
  }
  return x == y ? x : -1;
}

/* The child of x on the way down to joint a (x above a), or -1. */
static int32_t child_toward(const tree* t, int32_t x, uint32_t a) {
  int32_t c = (int32_t)a;
  while (c >= 0 && up(t, c) != x) c = up(t, c);
  return c;
}

static int takes_weight(const skc_bind_desc* d, int32_t j) {
  return (!d->deform || d->deform[j]) && (!d->locked || !d->locked[j]);
}

/* The lowest common ancestor of a and b, then the first deform, unlocked one from there up; -1 when none. */
static int32_t meeting_joint(const skc_bind_desc* d, const tree* t, uint32_t a, uint32_t b) {
  int32_t x = common_ancestor(t, a, b);
  while (x >= 0 && !takes_weight(d, x)) x = up(t, x);
  return x;
}

/* ---- the trunk's geometry ---- */

static float dot3(const float* u, const float* v) {
  return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

/* Joint j's bone direction (tail - head; for a point bone, from its parent's head to its head), not normalized. */
static void bone_dir(const skc_bind_desc* d, const tree* t, int32_t j, float* out) {
  const float* h = d->heads + 3 * (size_t)j;
  const float* e = d->tails + 3 * (size_t)j;
  int32_t p = up(t, j);
  for (int k = 0; k < 3; ++k) out[k] = e[k] - h[k];
  if (out[0] == 0.0f && out[1] == 0.0f && out[2] == 0.0f && p >= 0)
    for (int k = 0; k < 3; ++k) out[k] = h[k] - d->heads[3 * (size_t)p + k];
}

/* Whether the bones of joints y and z point the same way within the angle whose cosine is c. */
static int in_line(const skc_bind_desc* d, const tree* t, int32_t y, int32_t z, float c) {
  float u[3], v[3];
  bone_dir(d, t, y, u);
  bone_dir(d, t, z, v);
  float uu = dot3(u, u), vv = dot3(v, v);
  return uu > 0.0f && vv > 0.0f && dot3(u, v) > c * sqrtf(uu * vv);
}

/* Where the trunk goes on below y: at the meeting joint its one child in line with its bone (none when several
 * are, or when that child is a leaf: an end cap), below it the only child; -1 at a leaf, at a fork, or where the
 * next joint is a or b or below them (their own branches are no trunk). */
static int32_t trunk_next(const skc_bind_desc* d, const tree* t, int32_t y, int at_meeting, uint32_t a, uint32_t b) {
  int32_t c = t->first_child[y];
  if (c < 0 || (!at_meeting && t->next_sibling[c] >= 0)) return -1;
  if (at_meeting) {
    c = -1;
    for (int32_t k = t->first_child[y]; k >= 0; k = t->next_sibling[k]) {
      if (!in_line(d, t, y, k, TRUNK_ON_COS)) continue;
      if (c >= 0) return -1;
      c = k;
    }
    if (c < 0 || t->first_child[c] < 0) return -1;
  }
  return at_or_above(t, a, (uint32_t)c) || at_or_above(t, b, (uint32_t)c) ? -1 : c;
}

/* v's squared length in the metric that counts its part along the unit vector h (zero: none) TRUNK_ALONG times. */
static float metric2(const float* v, const float* h) {
  float vh = dot3(v, h);
  return dot3(v, v) - (1.0f - TRUNK_ALONG) * vh * vh;
}

/* Squared distance in that metric from p to joint j's bone segment. */
static float bone_dist2(const skc_bind_desc* d, uint32_t j, const float* p, const float* h) {
  const float* hd = d->heads + 3 * (size_t)j;
  const float* e = d->tails + 3 * (size_t)j;
  float ab[3] = {e[0] - hd[0], e[1] - hd[1], e[2] - hd[2]}, ap[3] = {p[0] - hd[0], p[1] - hd[1], p[2] - hd[2]};
  float l2 = metric2(ab, h);
  float s = l2 > 0.0f ? (dot3(ap, ab) - (1.0f - TRUNK_ALONG) * dot3(ap, h) * dot3(ab, h)) / l2 : 0.0f;
  s = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
  float q[3] = {ap[0] - s * ab[0], ap[1] - s * ab[1], ap[2] - s * ab[2]};
  return metric2(q, h);
}

/* The unit direction in which the branch from x to joint a hangs: from its first joint's head to a's tail. */
static void branch_dir(const skc_bind_desc* d, const tree* t, int32_t x, uint32_t a, float* out) {
  int32_t c = child_toward(t, x, a);
  const float* h = d->heads + 3 * (size_t)(c >= 0 ? (uint32_t)c : a);
  const float* e = d->tails + 3 * (size_t)a;
  float v[3] = {e[0] - h[0], e[1] - h[1], e[2] - h[2]};
  float l = sqrtf(dot3(v, v));
  for (int k = 0; k < 3; ++k) out[k] = l > 0.0f ? v[k] / l : 0.0f;
}

/* The two trunk bones nearest the vertex (joint -1: none), with their squared distances. */
typedef struct near2 {
  int32_t j[2];
  float d2[2];
} near2;

static void near2_offer(const skc_bind_desc* d, int32_t y, const float* p, const float* h, near2* n) {
  if (!takes_weight(d, y)) return;
  float dy = bone_dist2(d, (uint32_t)y, p, h);
  if (n->j[0] < 0 || dy < n->d2[0]) {
    n->j[1] = n->j[0], n->d2[1] = n->d2[0];
    n->j[0] = y, n->d2[0] = dy;
  } else if (n->j[1] < 0 || dy < n->d2[1]) {
    n->j[1] = y, n->d2[1] = dy;
  }
}

/* The trunk bones nearest p for the branches of a and b meeting at x (deform and unlocked). Distances discount the
 * direction both branches hang when they hang the same way (legs; not arms held out to either side). */
static near2 trunk_nearest(const skc_bind_desc* d, const tree* t, int32_t x, uint32_t a, uint32_t b,
                           const float* p) {
  float da[3], db[3], h[3] = {0.0f, 0.0f, 0.0f};
  branch_dir(d, t, x, a, da);
  branch_dir(d, t, x, b, db);
  float s[3] = {da[0] + db[0], da[1] + db[1], da[2] + db[2]};
  float l = sqrtf(dot3(s, s));
  if (l > 1.0f) /* within 120 degrees of each other */
    for (int k = 0; k < 3; ++k) h[k] = s[k] / l;
  near2 n = {{-1, -1}, {0.0f, 0.0f}};
  near2_offer(d, x, p, h, &n);
  for (int32_t y = up(t, x), below = x; y >= 0 && in_line(d, t, y, below, TRUNK_UP_COS); below = y, y = up(t, y))
    near2_offer(d, y, p, h, &n);
  for (int32_t y = trunk_next(d, t, x, 1, a, b); y >= 0; y = trunk_next(d, t, y, 0, a, b)) near2_offer(d, y, p, h, &n);
  return n;
}

/* ---- one vertex ---- */

/* One pull: two branches below their common ancestor (first joints ca, cb) holding weights wa, wb. */
typedef struct pull {
  uint32_t a, b; /* the candidates that name it */
  int32_t ca, cb;
  float wa, wb;
} pull;

static int skipped(uint64_t skip, uint32_t i) {
  return i < 64 && (skip >> i) & 1;
}

/* Candidate weight at or below joint c, leaving out the slots in skip. */
static float branch_weight(const tree* t, int32_t c, const uint32_t* j, const float* w, uint32_t n, uint64_t skip) {
  float s = 0.0f;
  for (uint32_t i = 0; i < n; ++i)
    if (!skipped(skip, i) && at_or_above(t, (uint32_t)c, j[i])) s += w[i];
  return s;
}

/* Whether the bones of joints y and z lie along one another: both ends of the shorter within BRANCH_ALONG of its
 * length from the longer's segment. A mechanism or IK bone beside the deform bone it drives, or a sibling twist bone,
 * is one limb with it: a vertex weighted to both is not pulled apart between two limbs. */
static int along_one_another(const skc_bind_desc* d, int32_t y, int32_t z) {
  if (!d->heads || !d->tails || y < 0 || z < 0) return 0;
  double hy[3], ty[3], hz[3], tz[3], ly = 0.0, lz = 0.0, t;
  for (int k = 0; k < 3; ++k) {
    hy[k] = d->heads[3 * (size_t)y + k], ty[k] = d->tails[3 * (size_t)y + k];
    hz[k] = d->heads[3 * (size_t)z + k], tz[k] = d->tails[3 * (size_t)z + k];
    ly += (ty[k] - hy[k]) * (ty[k] - hy[k]), lz += (tz[k] - hz[k]) * (tz[k] - hz[k]);
  }
  if (ly < lz) /* y the longer */
    return along_one_another(d, z, y);
  const double r2 = BRANCH_ALONG * BRANCH_ALONG * lz;
  return lz > 0.0 && skc_seg_dist2(hz, hy, ty, &t) <= r2 && skc_seg_dist2(tz, hy, ty, &t) <= r2;
}

/* The two branches (of candidates neither above the other, nor lying along one another) whose smaller total weight is
 * largest, leaving out the slots in skip (weight a merge gave to the trunk, which is no branch of its own); 0 when
 * there is none. */
static int worst_pull(const skc_bind_desc* d, const tree* t, const uint32_t* j, const float* w, uint32_t n,
                      uint64_t skip, pull* out) {
  float best = 0.0f;
  for (uint32_t a = 0; a < n; ++a)
    for (uint32_t b = a + 1; b < n; ++b) {
      if (skipped(skip, a) || skipped(skip, b) || !(w[a] > 0.0f) || !(w[b] > 0.0f)) continue;
      if (at_or_above(t, j[a], j[b]) || at_or_above(t, j[b], j[a])) continue;
      int32_t x = common_ancestor(t, j[a], j[b]);
      if (x < 0) continue;
      pull p = {a, b, child_toward(t, x, j[a]), child_toward(t, x, j[b]), 0.0f, 0.0f};
      if (along_one_another(d, p.ca, p.cb) || along_one_another(d, (int32_t)j[a], (int32_t)j[b])) continue;
      p.wa = branch_weight(t, p.ca, j, w, n, skip);
      p.wb = branch_weight(t, p.cb, j, w, n, skip);
      float m = p.wa < p.wb ? p.wa : p.wb;
      if (m > best) best = m, *out = p;
    }
  return best > 0.0f;
}

/* Takes the share m / wsum of the weight of every candidate at or below joint c (not in skip). */
static void take_share(const tree* t, int32_t c, float m, float wsum, const uint32_t* j, float* w, uint32_t n,
                       uint64_t skip) {
  float keep = wsum > m ? 1.0f - m / wsum : 0.0f;
  for (uint32_t i = 0; i < n; ++i)
    if (!skipped(skip, i) && at_or_above(t, (uint32_t)c, j[i])) w[i] *= keep;
}

/* Adds weight to joint x's slot, or to an emptied slot taken for x; the slot, or n when there is none. */
static uint32_t give(uint32_t* j, float* w, uint32_t n, int32_t x, float add) {
  uint32_t at = n;
  for (uint32_t i = 0; i < n; ++i)
    if (j[i] == (uint32_t)x) at = i;
  for (uint32_t i = 0; i < n && at == n; ++i)
    if (!(w[i] > 0.0f)) at = i, j[i] = (uint32_t)x, w[i] = 0.0f;
  if (at < n) w[at] += add;
  return at;
}

/* Gives 2 m to the trunk: split between its two nearest bones by (d1 / d2)^4 when the second has a slot. Returns
 * the slots that took weight. */
static uint64_t give_to_trunk(const skc_bind_desc* d, const tree* t, const pull* q, int32_t x, float m,
                              const float* p, uint32_t* j, float* w, uint32_t n) {
  near2 to = {{x, -1}, {0.0f, 0.0f}};
  if (d->heads && d->tails && d->positions) to = trunk_nearest(d, t, x, j[q->a], j[q->b], p);
  float s2 = 0.0f;
  if (to.j[1] >= 0) {
    float r = to.d2[1] > 0.0f ? to.d2[0] / to.d2[1] : 1.0f;
    s2 = r * r / (1.0f + r * r);
  }
  uint32_t at = give(j, w, n, to.j[0], 2.0f * m * (1.0f - s2));
  if (at == n) return 0; /* cannot happen: the smaller branch is empty now */
  uint32_t at2 = s2 > 0.0f ? give(j, w, n, to.j[1], 2.0f * m * s2) : n;
  if (at2 == n) w[at] += 2.0f * m * s2; /* no slot for the second: the nearest takes it all */
  return (at < 64 ? (uint64_t)1 << at : 0) | (at2 < n && at2 < 64 ? (uint64_t)1 << at2 : 0);
}

/* Drops zero weights and sorts by weight, descending (n is at most the candidate stride). */
static uint32_t compact(uint32_t* j, float* w, uint32_t n) {
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (w[i] > 0.0f) j[m] = j[i], w[m++] = w[i];
  for (uint32_t i = 1; i < m; ++i)
    for (uint32_t k = i; k > 0 && w[k - 1] < w[k]; --k) {
      float tw = w[k];
      uint32_t tj = j[k];
      w[k] = w[k - 1], j[k] = j[k - 1];
      w[k - 1] = tw, j[k - 1] = tj;
    }
  return m;
}

/* One vertex's candidates (sorted by weight), at position p (NULL without positions); each pass empties a branch,
 * so n passes at most. */
static void merge_vertex(const skc_bind_desc* d, const tree* t, const float* p, uint32_t* j, float* w,
                         uint32_t* count) {
  uint32_t n = *count;
  double total = 0.0;
  for (uint32_t i = 0; i < n; ++i) total += w[i];
  pull q = {0, 0, -1, -1, 0.0f, 0.0f};
  uint64_t got = 0; /* slots that took merged weight */
  int merged = 0;
  for (uint32_t pass = 0; pass < n && worst_pull(d, t, j, w, n, got, &q); ++pass) {
    float m = q.wa < q.wb ? q.wa : q.wb;
    int32_t x = meeting_joint(d, t, j[q.a], j[q.b]);
    if (!(m > SKC_BRANCH_SHARE * total) || x < 0) break;
    take_share(t, q.ca, m, q.wa, j, w, n, got);
    take_share(t, q.cb, m, q.wb, j, w, n, got);
    got |= give_to_trunk(d, t, &q, x, m, p, j, w, n);
    merged = 1;
  }
  if (merged) *count = compact(j, w, n);
}

int skc_bind_merge_branches(const skc_bind_desc* d, skc_bind_cands* c) {
  if (!d->parents || d->joint_count == 0) return SKC_OK;
  uint32_t nj = d->joint_count;
  uint32_t* depth = malloc(nj * sizeof *depth);
  int32_t* links = malloc(2 * (size_t)nj * sizeof *links);
  if (!depth || !links) {
    free(depth);
    free(links);
    return SKC_OUT_OF_MEMORY;
  }
  joint_depths(d->parents, nj, depth);
  joint_children(d->parents, nj, links, links + nj);
  const tree t = {d->parents, depth, links, links + nj};
  for (size_t v = 0; v < c->vertex_count; ++v)
    if (c->count[v] > 1)
      merge_vertex(d, &t, d->positions ? d->positions + 3 * v : NULL, c->joints + v * c->stride,
                   c->weights + v * c->stride, &c->count[v]);
  free(depth);
  free(links);
  return SKC_OK;
}
