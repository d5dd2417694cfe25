/* weights_rogue.c - rogue-vertex removal (after Weber 2000), per loose part.
 *
 * A part is a connected component of the mesh over its triangle edges (shared vertex indices). For every part and
 * joint, the joint's influence region on that part is split into islands: the connected components, over the
 * part's edges, of the vertices whose weight for the joint is > epsilon. The main island is the one with the
 * largest total weight (ties: more vertices, then the lowest vertex index). Another island of the same joint in
 * the same part is rogue when its total weight is below SKC_ROGUE_ISLAND_RATIO times the main island's; a joint
 * whose weight on a part is one island is never touched, and neither is anything on another part (so separate
 * pieces - eyes, props, the loose parts of a game character - keep their weights).
 *
 * A rogue attachment of a selected vertex on an unlocked joint is removed and the vertex renormalized over its
 * remaining joints (the normalization rule). A vertex left with no unlocked weight takes the unlocked weights of
 * the nearest vertex of its part (edge hops, multi-source BFS) whose attachments are all valid, in proportion.
 * A vertex whose weights move by at most SKC_ROGUE_NO_CHANGE (below a float weight's stored precision) is left as
 * it was and not counted.
 *
 * Islands of all joints are found at once as connected sets of attachments (union-find over the edges, in vertex
 * order for memory locality), then sorted by (part, joint, total weight): O(edges * influences^2 + N log N). */
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "skc_uf.h"
#include "skc_weights.h"

/* One island: a connected set of attachments of one joint on one part. */
typedef struct island {
  uint32_t part, joint, root, count, first_vertex;
  double total;
} island;

static int island_cmp(const void* pa, const void* pb) {
  const island *a = pa, *b = pb;
  if (a->part != b->part) return a->part < b->part ? -1 : 1;
  if (a->joint != b->joint) return a->joint < b->joint ? -1 : 1;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return a->first_vertex < b->first_vertex ? -1 : a->first_vertex > b->first_vertex;
}

static bool carries(const skc_skin* s, const uint8_t* att, uint32_t* parent, uint32_t u, uint32_t j,
                    uint32_t main_root) {
  for (size_t i = s->offsets[u]; i < s->offsets[u + 1]; ++i)
    if (s->joints[i] == j) return att[i] && skc_uf_find(parent, (uint32_t)i) == main_root;
  return false;
}

/* Whether the island vertex v is near the main island (root main_root) of joint j: a vertex carrying it is
 * reachable over edges through vertices within sqrt(reach2) of v (with positions), or within 2 edges (without).
 * stamp/queue: V entries; stamp holds no value >= *tick. */
static bool near_main(const skc_adjacency* adj, const skc_skin* s, const uint8_t* att, uint32_t* parent,
                      const skc_rogue_params* p, double reach2, uint32_t* stamp, uint32_t* tick, uint32_t* queue,
                      uint32_t v, uint32_t j, uint32_t main_root) {
  if (!p->positions) {
    for (size_t k = adj->offsets[v]; k < adj->offsets[v + 1]; ++k) {
      uint32_t x = adj->neighbors[k];
      if (carries(s, att, parent, x, j, main_root)) return true;
      for (size_t kk = adj->offsets[x]; kk < adj->offsets[x + 1]; ++kk)
        if (carries(s, att, parent, adj->neighbors[kk], j, main_root)) return true;
    }
    return false;
  }
  uint32_t t = ++*tick;
  const float* o = skc_pos(p->positions, p->positions_stride, v);
  size_t head = 0, tail = 0;
  queue[tail++] = v;
  stamp[v] = t;
  while (head < tail) {
    uint32_t u = queue[head++];
    for (size_t k = adj->offsets[u]; k < adj->offsets[u + 1]; ++k) {
      uint32_t x = adj->neighbors[k];
      if (stamp[x] == t) continue;
      stamp[x] = t;
      const float* y = skc_pos(p->positions, p->positions_stride, x);
      double dx = y[0] - o[0], dy = y[1] - o[1], dz = y[2] - o[2];
      if (dx * dx + dy * dy + dz * dz > reach2) continue;
      if (carries(s, att, parent, x, j, main_root)) return true;
      queue[tail++] = x;
    }
  }
  return false;
}

typedef struct keyed {
  float x, y, z;
  uint32_t v;
} keyed;

static int keyed_cmp(const void* pa, const void* pb) {
  const keyed *a = pa, *b = pb;
  if (a->x != b->x) return a->x < b->x ? -1 : 1;
  if (a->y != b->y) return a->y < b->y ? -1 : 1;
  if (a->z != b->z) return a->z < b->z ? -1 : 1;
  return a->v < b->v ? -1 : a->v > b->v;
}

/* Mesh edges, plus (with positions) an edge between vertices at exactly the same position: the copies a mesh
 * split at UV seams or normal creases keeps of one point are one point for connectivity. */
static int build_adjacency(skc_adjacency* adj, size_t V, const skc_rogue_params* p, skc_err* err) {
  if (!p->positions || V < 2) return skc_adjacency_build(adj, V, p->triangles, p->triangle_count, err);
  keyed* ord = malloc(V * sizeof *ord);
  uint32_t* tri = malloc((3 * p->triangle_count + 3 * V) * sizeof *tri);
  if (!ord || !tri) {
    free(ord);
    free(tri);
    memset(adj, 0, sizeof *adj);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory removing rogue vertices");
  }
  for (size_t v = 0; v < V; ++v) {
    const float* x = skc_pos(p->positions, p->positions_stride, v);
    ord[v] = (keyed){x[0], x[1], x[2], (uint32_t)v};
  }
  qsort(ord, V, sizeof *ord, keyed_cmp);
  memcpy(tri, p->triangles, 3 * p->triangle_count * sizeof *tri);
  size_t t = p->triangle_count;
  for (size_t k = 1; k < V; ++k) {
    if (ord[k - 1].x != ord[k].x || ord[k - 1].y != ord[k].y || ord[k - 1].z != ord[k].z) continue;
    tri[3 * t] = tri[3 * t + 1] = ord[k - 1].v; /* degenerate triangle = the one edge */
    tri[3 * t + 2] = ord[k].v;
    ++t;
  }
  int rc = skc_adjacency_build(adj, V, tri, t, err);
  free(ord);
  free(tri);
  return rc;
}

/* Shared state of one rogue removal: the skin's arrays, the mesh graph and every step's scratch. */
typedef struct rctx {
  skc_skin* s;
  const skc_wscope* sc;
  const skc_rogue_params* p;
  size_t V, N;
  uint32_t J;
  float eps;
  const uint32_t* off;
  const uint32_t* SJ;
  const float* SW;
  skc_adjacency adj;
  uint8_t* valid;
  uint8_t* rogue_set;
  uint32_t* part;
  uint32_t* qv;
  uint32_t* parent;
  island* isl;
  uint32_t* slot;
  uint32_t* donor;
  float* box;
  uint32_t* per_joint;
  uint32_t* tj;
  float* tw;
} rctx;

/* Checks the triangles, epsilon, the skeleton's joint count and the positions (stride, finite values). */
static int check_rogue(const skc_skin* s, const skc_rogue_params* p, skc_err* err) {
  if (!p->triangles || p->triangle_count == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "rogue removal needs triangles (the mesh has no faces)");
  if (!(p->epsilon >= 0.0f && p->epsilon < 1.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "epsilon %g is outside [0, 1)", (double)p->epsilon);
  if (p->skeleton && p->skeleton->joint_count < s->joint_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "skeleton has %u joints, the skin uses %u", p->skeleton->joint_count,
                    s->joint_count);
  if (p->positions) {
    if (p->positions_stride && p->positions_stride < 12)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "positions stride %zu is below 12 bytes", p->positions_stride);
    for (size_t v = 0; v < s->vertex_count; ++v) {
      const float* x = skc_pos(p->positions, p->positions_stride, v);
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        return skc_fail(err, SKC_INVALID_ARGUMENT, "position of vertex %zu is not finite", v);
    }
  }
  return SKC_OK;
}

/* Allocates the scratch arrays (per entry, per vertex, per joint and one vertex's entries); false when out of
 * memory (the caller frees what was allocated). */
static bool alloc_scratch(rctx* c) {
  size_t V = c->V, N = c->N;
  uint32_t J = c->J;
  c->valid = calloc(N ? N : 1, 1);
  c->rogue_set = calloc(N ? N : 1, 1);
  c->part = malloc((V ? V : 1) * sizeof *c->part);
  c->qv = malloc((V ? V : 1) * sizeof *c->qv);
  c->parent = malloc((N ? N : 1) * sizeof *c->parent);
  c->isl = malloc((N ? N : 1) * sizeof *c->isl);
  c->slot = malloc((N ? N : 1) * sizeof *c->slot);   /* root entry -> its island */
  c->donor = calloc(V ? V : 1, sizeof *c->donor);    /* first the BFS stamps of near_main */
  c->box = malloc(6 * (V ? V : 1) * sizeof *c->box); /* per part: min xyz, max xyz */
  c->per_joint = calloc(J ? J : 1, sizeof *c->per_joint);
  size_t maxd = skc_wmax_degree(c->s);
  c->tj = malloc((2 * maxd + 1) * sizeof *c->tj);
  c->tw = malloc((2 * maxd + 1) * sizeof *c->tw);
  return c->valid && c->rogue_set && c->part && c->qv && c->parent && c->isl && c->slot && c->donor && c->per_joint &&
         c->tj && c->tw && c->box;
}

/* Frees the mesh graph and the scratch arrays. */
static void free_scratch(rctx* c) {
  skc_adjacency_free(&c->adj);
  free(c->valid);
  free(c->rogue_set);
  free(c->part);
  free(c->qv);
  free(c->parent);
  free(c->isl);
  free(c->slot);
  free(c->donor);
  free(c->box);
  free(c->per_joint);
  free(c->tj);
  free(c->tw);
}

/* Numbers the loose parts (c->part): connected components over the edges, breadth first. */
static void find_parts(rctx* c) {
  const skc_adjacency* adj = &c->adj;
  uint32_t* part = c->part;
  uint32_t* qv = c->qv;
  /* parts: connected components over the edges */
  for (size_t v = 0; v < c->V; ++v) part[v] = UINT32_MAX;
  uint32_t parts = 0;
  for (size_t v0 = 0; v0 < c->V; ++v0) {
    if (part[v0] != UINT32_MAX) continue;
    size_t head = 0, tail = 0;
    part[v0] = parts;
    qv[tail++] = (uint32_t)v0;
    while (head < tail) {
      uint32_t u = qv[head++];
      for (size_t k = adj->offsets[u]; k < adj->offsets[u + 1]; ++k) {
        uint32_t x = adj->neighbors[k];
        if (part[x] == UINT32_MAX) {
          part[x] = parts;
          qv[tail++] = x;
        }
      }
    }
    ++parts;
  }
}

/* Marks the attachments (c->valid) and joins, over every edge, one joint's attachments at both ends (c->parent). */
static void union_islands(rctx* c) {
  const skc_adjacency* adj = &c->adj;
  const uint32_t* off = c->off;
  const uint32_t* SJ = c->SJ;
  const float* SW = c->SW;
  uint8_t* valid = c->valid;
  uint32_t* parent = c->parent;
  /* islands: union (u, j) with (x, j) over every edge u-x where both carry j */
  for (size_t i = 0; i < c->N; ++i) {
    parent[i] = (uint32_t)i;
    valid[i] = SW[i] > c->eps && skc_wentry_valid(SJ[i], SW[i], c->J); /* attachment; becomes "valid" below */
  }
  for (size_t u = 0; u < c->V; ++u) {
    size_t ub = off[u], ue = off[u + 1];
    for (size_t k = adj->offsets[u]; k < adj->offsets[u + 1]; ++k) {
      uint32_t x = adj->neighbors[k];
      if (x <= u) continue;
      for (size_t i = ub; i < ue; ++i) {
        if (!valid[i]) continue;
        uint32_t j = SJ[i];
        for (size_t ii = off[x], ie = off[x + 1]; ii < ie; ++ii)
          if (SJ[ii] == j) {
            if (valid[ii]) skc_uf_join_low(parent, (uint32_t)i, (uint32_t)ii);
            break;
          }
      }
    }
  }
}

/* Lists the islands with their totals (c->isl, sorted by part, joint and weight; returns their count). */
static size_t list_islands(rctx* c) {
  const uint32_t* off = c->off;
  const float* SW = c->SW;
  island* isl = c->isl;
  /* island totals; the root is the lowest entry of its set, met first in vertex order */
  size_t ni = 0;
  for (size_t v = 0; v < c->V; ++v)
    for (size_t i = off[v]; i < off[v + 1]; ++i) {
      if (!c->valid[i]) continue;
      uint32_t root = skc_uf_find(c->parent, (uint32_t)i);
      if (root == i) {
        isl[ni] = (island){c->part[v], c->SJ[i], root, 0, (uint32_t)v, 0.0};
        c->slot[root] = (uint32_t)ni++;
      }
      island* t = &isl[c->slot[root]];
      t->count++;
      t->total += SW[i];
    }
  qsort(isl, ni, sizeof *isl, island_cmp);
  return ni;
}

/* Marks the small islands besides the main one of each (part, joint) in c->rogue_set (1); returns how many. */
static size_t mark_candidates(rctx* c, size_t ni) {
  const island* isl = c->isl;
  /* candidates: the small islands besides the main one of each (part, joint); slot[root] = its main island's root */
  size_t candidates = 0;
  for (size_t a = 0; a < ni;) {
    size_t b = a + 1;
    while (b < ni && isl[b].part == isl[a].part && isl[b].joint == isl[a].joint) {
      if (isl[b].total < SKC_ROGUE_ISLAND_RATIO * isl[a].total &&
          (double)isl[b].count < SKC_ROGUE_ISLAND_RATIO * (double)isl[a].count) {
        c->rogue_set[isl[b].root] = 1;
        c->slot[isl[b].root] = isl[a].root;
        ++candidates;
      }
      ++b;
    }
    a = b;
  }
  return candidates;
}

/* Bounding box of every part (c->box). */
static void part_boxes(rctx* c) {
  float* box = c->box;
  for (size_t k = 0; k < c->V; ++k) {
    box[6 * k] = box[6 * k + 1] = box[6 * k + 2] = INFINITY;
    box[6 * k + 3] = box[6 * k + 4] = box[6 * k + 5] = -INFINITY;
  }
  for (size_t v = 0; v < c->V; ++v) {
    const float* x = skc_pos(c->p->positions, c->p->positions_stride, v);
    float* b = box + 6 * (size_t)c->part[v];
    for (int k = 0; k < 3; ++k) {
      if (x[k] < b[k]) b[k] = x[k];
      if (x[k] > b[3 + k]) b[3 + k] = x[k];
    }
  }
}

/* Spares (c->rogue_set 2) the candidate islands close to their main island, then leaves valid only the attachments
 * outside the remaining rogue islands. */
static void spare_near_islands(rctx* c, size_t candidates) {
  const skc_rogue_params* p = c->p;
  const uint32_t* off = c->off;
  /* a small island close to its main island (SKC_ROGUE_GAP of the part's size, along the surface) is the main
   * region's falloff cut by an influence limit or by quantization, not rogue */
  if (candidates && p->positions) part_boxes(c);
  uint32_t tick = 0;
  for (size_t v = 0; v < c->V && candidates; ++v)
    for (size_t i = off[v]; i < off[v + 1]; ++i) {
      if (!c->valid[i]) continue;
      uint32_t root = skc_uf_find(c->parent, (uint32_t)i);
      if (c->rogue_set[root] != 1) continue;
      double reach2 = 0.0;
      if (p->positions) {
        const float* b = c->box + 6 * (size_t)c->part[v];
        double dx = b[3] - b[0], dy = b[4] - b[1], dz = b[5] - b[2];
        reach2 = SKC_ROGUE_GAP * SKC_ROGUE_GAP * (dx * dx + dy * dy + dz * dz);
      }
      if (near_main(&c->adj, c->s, c->valid, c->parent, p, reach2, c->donor, &tick, c->qv, (uint32_t)v, c->SJ[i],
                    c->slot[root]))
        c->rogue_set[root] = 2;
    }
  for (size_t i = 0; i < c->N; ++i) c->valid[i] = c->valid[i] && c->rogue_set[skc_uf_find(c->parent, (uint32_t)i)] != 1;
}

/* Gives every vertex its nearest donor (c->donor): a vertex with attachments, all valid. */
static void find_donors(rctx* c) {
  const skc_adjacency* adj = &c->adj;
  const uint32_t* off = c->off;
  const uint32_t* SJ = c->SJ;
  const float* SW = c->SW;
  uint32_t* donor = c->donor;
  uint32_t* qv = c->qv;
  /* donors: vertices with attachments, all valid; multi-source BFS gives every vertex its nearest donor (edges
   * never leave a part, so the donor is on the vertex's own part) */
  size_t head = 0, tail = 0;
  for (size_t v = 0; v < c->V; ++v) {
    bool any = false, all = true;
    for (size_t i = off[v]; i < off[v + 1]; ++i) {
      if (!(SW[i] > c->eps) || !skc_wentry_valid(SJ[i], SW[i], c->J)) continue;
      any = true;
      if (!c->valid[i]) all = false;
    }
    donor[v] = any && all ? (uint32_t)v : UINT32_MAX;
    if (donor[v] != UINT32_MAX) qv[tail++] = (uint32_t)v;
  }
  while (head < tail) {
    uint32_t u = qv[head++];
    for (size_t k = adj->offsets[u]; k < adj->offsets[u + 1]; ++k) {
      uint32_t x = adj->neighbors[k];
      if (donor[x] == UINT32_MAX) {
        donor[x] = donor[u];
        qv[tail++] = x;
      }
    }
  }
}

/* Whether entry i is a rogue attachment this removal may take away (not on a locked joint). */
static inline bool removable(const rctx* c, size_t i) {
  return c->SW[i] > c->eps && !c->valid[i] && !skc_wlocked(c->sc, c->SJ[i]);
}

/* Adds the unlocked weights of donor d, in proportion, to the vertex list c->tj/c->tw (m entries) so that they sum
 * to moved; returns the new count. */
static inline size_t take_donor_weights(const rctx* c, uint32_t d, double moved, size_t m) {
  const uint32_t* off = c->off;
  const uint32_t* SJ = c->SJ;
  const float* SW = c->SW;
  uint32_t* tj = c->tj;
  float* tw = c->tw;
  /* nothing unlocked left to renormalize: the nearest valid vertex's unlocked weights, in proportion */
  double dsum = 0.0;
  for (size_t i = off[d]; i < off[d + 1]; ++i)
    if (SW[i] > c->eps && !skc_wlocked(c->sc, SJ[i])) dsum += SW[i];
  for (size_t i = off[d]; i < off[d + 1] && dsum > 0.0; ++i) {
    if (!(SW[i] > c->eps) || skc_wlocked(c->sc, SJ[i])) continue;
    float add = (float)(moved * SW[i] / dsum);
    size_t k = 0;
    while (k < m && tj[k] != SJ[i]) ++k;
    if (k == m) {
      tj[m] = SJ[i];
      tw[m] = 0.0f;
      ++m;
    }
    tw[k] += add;
  }
  return m;
}

/* The largest weight change between the vertex's entries b..e and its new list c->tj/c->tw (m entries). */
static inline double largest_change(const rctx* c, size_t b, size_t e, size_t m) {
  const uint32_t* SJ = c->SJ;
  /* a real change only: some weight moved by more than the stored precision */
  double diff = 0.0;
  for (size_t i = b; i < e; ++i) {
    float now = 0.0f;
    for (size_t k = 0; k < m; ++k)
      if (c->tj[k] == SJ[i]) now = c->tw[k];
    double dd = fabs((double)now - (double)c->SW[i]);
    if (dd > diff) diff = dd;
  }
  for (size_t k = 0; k < m; ++k) {
    bool old = false;
    for (size_t i = b; i < e && !old; ++i) old = SJ[i] == c->tj[k];
    if (!old && c->tw[k] > diff) diff = c->tw[k];
  }
  return diff;
}

/* Pushes vertex v to bld: without its rogue attachments and renormalized when that is a real change, else as it
 * was. Reports it; returns the attachments removed. */
static inline size_t rewrite_vertex(rctx* c, skc_skin_builder* bld, skc_wreport* r, size_t v, double tol) {
  const uint32_t* SJ = c->SJ;
  const float* SW = c->SW;
  size_t b = c->off[v], e = c->off[v + 1], n = e - b;
  bool sel = skc_wsel(c->sc, v);
  size_t bad = 0, rogue = 0;
  if (sel) {
    r->vertices_visited++;
    bad = skc_wcount_invalid(c->s, b, e);
    r->invalid_entries += bad;
    if (!bad)
      for (size_t i = b; i < e; ++i)
        if (removable(c, i)) ++rogue;
  }
  if (bad) skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
  if (!rogue) {
    skc_skin_builder_push(bld, SJ + b, SW + b, n);
    return 0;
  }
  size_t m = 0;
  double moved = 0.0, left = 0.0;
  for (size_t i = b; i < e; ++i) {
    if (removable(c, i)) {
      moved += SW[i];
      continue;
    }
    if (!skc_wlocked(c->sc, SJ[i])) left += SW[i];
    c->tj[m] = SJ[i];
    c->tw[m] = SW[i];
    ++m;
  }
  uint32_t d = c->donor[v];
  if (!(left > 0.0) && d != UINT32_MAX && moved > 0.0) m = take_donor_weights(c, d, moved, m);
  int nf = skc_wnormalize_vertex(c->tj, c->tw, m, c->sc->locked, tol, NULL);
  if (nf) {
    skc_wreport_flag(r, v, (uint8_t)(SKC_WFLAG_FAILED | SKC_WFLAG_ROGUE | nf));
    skc_skin_builder_push(bld, SJ + b, SW + b, n);
    return 0;
  }
  if (!(largest_change(c, b, e, m) > SKC_ROGUE_NO_CHANGE)) {
    skc_skin_builder_push(bld, SJ + b, SW + b, n);
    return 0;
  }
  for (size_t i = b; i < e; ++i)
    if (removable(c, i)) c->per_joint[SJ[i]]++;
  skc_wreport_flag(r, v, SKC_WFLAG_CHANGED | SKC_WFLAG_ROGUE);
  skc_skin_builder_push(bld, c->tj, c->tw, m);
  return rogue;
}

/* Rewrites every vertex into a new weight array, installed in the skin when some vertex changed; fills the report. */
static int rewrite_skin(rctx* c, skc_wreport* r, skc_err* err) {
  skc_skin_builder bld;
  int rc = skc_skin_builder_init(&bld, c->V, c->N + 16, err);
  if (rc) return rc;
  skc_wreport_begin(r, c->s);
  const double tol = c->p->tolerance > 0.0f ? c->p->tolerance : 1e-5;
  size_t changed_entries = 0;
  for (size_t v = 0; v < c->V; ++v) changed_entries += rewrite_vertex(c, &bld, r, v, tol);
  r->entries_changed = changed_entries;
  if (r->vertices_changed) {
    if ((rc = skc_skin_builder_finish(&bld, c->s, err))) return rc;
  } else {
    skc_skin_builder_free(&bld); /* nothing changed: keep the skin exactly as it is */
  }
  for (uint32_t j = 0; j < c->J; ++j) r->joints_affected += c->per_joint[j] != 0;
  if (r->joint_counts) memcpy(r->joint_counts, c->per_joint, c->J * sizeof *c->per_joint);
  r->influences_after = skc_skin_entries(c->s);
  return SKC_OK;
}

int skc_weights_remove_rogue(skc_skin* s, const skc_wscope* sc, const skc_rogue_params* p, skc_wreport* r,
                             skc_err* err) {
  int rc = check_rogue(s, p, err);
  if (rc) return rc;
  rctx c;
  memset(&c, 0, sizeof c);
  c.s = s, c.sc = sc, c.p = p;
  c.V = s->vertex_count, c.N = skc_skin_entries(s), c.J = s->joint_count;
  c.eps = p->epsilon;
  c.off = s->offsets, c.SJ = s->joints, c.SW = s->weights;
  if ((rc = build_adjacency(&c.adj, c.V, p, err))) return rc;
  if (!alloc_scratch(&c)) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory removing rogue vertices");
  } else {
    find_parts(&c);
    union_islands(&c);
    size_t candidates = mark_candidates(&c, list_islands(&c));
    spare_near_islands(&c, candidates);
    find_donors(&c);
    rc = rewrite_skin(&c, r, err);
  }
  free_scratch(&c);
  return rc;
}
