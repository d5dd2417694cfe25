/* bind_branches.c - robust's last step: weight that two branches of the skeleton pull on one vertex goes to the
 * joint where the branches meet (see skc_bind_merge_branches in skc_bind.h).
 *
 * Bone heat weights a vertex by the bones it sees nearest. A vertex on the midline between two limbs (a chest
 * between the front legs, a crotch, the top of a head between its ears) sees both limbs about equally, so it gets
 * half of each, and any pose that moves the limbs apart tears it between them; an artist gives it to the body
 * joint the limbs hang from. Weight on two joints of which neither is above the other is exactly that: the smaller
 * of the two is taken from both and given twice to their lowest common ancestor, which keeps the sum and leaves a
 * vertex that leans to one limb with the rest of it. Weight along one chain (a parent and its child) is not
 * touched: it is the blend across a joint that skinning needs.
 */
#include <stdlib.h>

#include "skc_bind.h"

/* Depth of every joint (roots 0); parents come before their children (skc_skeleton's order), and a parent index
 * that does not is taken for a root. */
static void joint_depths(const int32_t* parents, uint32_t nj, uint32_t* depth) {
  for (uint32_t j = 0; j < nj; ++j)
    depth[j] = parents[j] >= 0 && (uint32_t)parents[j] < j ? depth[parents[j]] + 1 : 0;
}

/* parents and depth together: walks that stop at a root or at the depth of the joint sought. */
typedef struct tree {
  const int32_t* parents;
  const uint32_t* depth;
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

/* The lowest joint above both a and b, then the first deform, unlocked one from there up; -1 when none. */
static int32_t meeting_joint(const skc_bind_desc* d, const tree* t, uint32_t a, uint32_t b) {
  int32_t x = (int32_t)a, y = (int32_t)b;
  while (x >= 0 && y >= 0 && x != y) {
    if (t->depth[x] >= t->depth[y]) x = up(t, x);
    else y = up(t, y);
  }
  if (x != y) return -1;
  while (x >= 0 && ((d->deform && !d->deform[x]) || (d->locked && d->locked[x]))) x = up(t, x);
  return x;
}

/* The pair of candidates on two branches with the largest smaller weight (*m); 0 when there is none. */
static int worst_pair(const tree* t, const uint32_t* j, const float* w, uint32_t n, uint32_t* pa,
                      uint32_t* pb, float* m) {
  *m = 0.0f;
  for (uint32_t a = 0; a < n; ++a)
    for (uint32_t b = a + 1; b < n; ++b) {
      float s = w[a] < w[b] ? w[a] : w[b];
      if (s > *m && !at_or_above(t, j[a], j[b]) && !at_or_above(t, j[b], j[a])) {
        *m = s;
        *pa = a;
        *pb = b;
      }
    }
  return *m > 0.0f;
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

/* One vertex's candidates (sorted by weight); each pass empties one candidate, so n passes at most. */
static void merge_vertex(const skc_bind_desc* d, const tree* t, uint32_t* j, float* w, uint32_t* count) {
  uint32_t n = *count, a = 0, b = 0;
  double total = 0.0;
  for (uint32_t i = 0; i < n; ++i) total += w[i];
  float m;
  int merged = 0;
  for (uint32_t pass = 0; pass < n && worst_pair(t, j, w, n, &a, &b, &m) && m > SKC_BRANCH_SHARE * total; ++pass) {
    int32_t x = meeting_joint(d, t, j[a], j[b]);
    if (x < 0) break;
    w[a] -= m;
    w[b] -= m;
    uint32_t at = n;
    for (uint32_t i = 0; i < n; ++i)
      if (j[i] == (uint32_t)x) at = i;
    if (at == n) { /* a slot the move emptied */
      at = w[a] <= 0.0f ? a : b;
      j[at] = (uint32_t)x;
      w[at] = 0.0f;
    }
    w[at] += 2.0f * m;
    merged = 1;
  }
  if (merged) *count = compact(j, w, n);
}

int skc_bind_merge_branches(const skc_bind_desc* d, skc_bind_cands* c) {
  if (!d->parents || d->joint_count == 0) return SKC_OK;
  uint32_t* depth = malloc(d->joint_count * sizeof *depth);
  if (!depth) return SKC_OUT_OF_MEMORY;
  joint_depths(d->parents, d->joint_count, depth);
  const tree t = {d->parents, depth};
  for (size_t v = 0; v < c->vertex_count; ++v)
    if (c->count[v] > 1) merge_vertex(d, &t, c->joints + v * c->stride, c->weights + v * c->stride, &c->count[v]);
  free(depth);
  return SKC_OK;
}
