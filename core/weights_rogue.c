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
#include "skc_weights.h"

static uint32_t uf_find(uint32_t* parent, uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]]; /* path halving */
    x = parent[x];
  }
  return x;
}

static void uf_union(uint32_t* parent, uint32_t a, uint32_t b) {
  a = uf_find(parent, a);
  b = uf_find(parent, b);
  if (a == b) return;
  if (a < b)
    parent[b] = a;
  else
    parent[a] = b;
}

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
    if (s->joints[i] == j) return att[i] && uf_find(parent, (uint32_t)i) == main_root;
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

int skc_weights_remove_rogue(skc_skin* s, const skc_wscope* sc, const skc_rogue_params* p, skc_wreport* r,
                             skc_err* err) {
  if (!p->triangles || p->triangle_count == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "rogue removal needs triangles (the mesh has no faces)");
  if (!(p->epsilon >= 0.0f && p->epsilon < 1.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "epsilon %g is outside [0, 1)", (double)p->epsilon);
  if (p->skeleton && p->skeleton->joint_count < s->joint_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "skeleton has %u joints, the skin uses %u", p->skeleton->joint_count,
                    s->joint_count);
  size_t V = s->vertex_count;
  uint32_t J = s->joint_count;
  if (p->positions) {
    if (p->positions_stride && p->positions_stride < 12)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "positions stride %zu is below 12 bytes", p->positions_stride);
    for (size_t v = 0; v < V; ++v) {
      const float* x = skc_pos(p->positions, p->positions_stride, v);
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        return skc_fail(err, SKC_INVALID_ARGUMENT, "position of vertex %zu is not finite", v);
    }
  }
  skc_adjacency adj;
  int rc = build_adjacency(&adj, V, p, err);
  if (rc) return rc;
  const float eps = p->epsilon;
  size_t N = skc_skin_entries(s);
  const uint32_t* off = s->offsets;
  const uint32_t* SJ = s->joints;
  const float* SW = s->weights;
  uint8_t* valid = calloc(N ? N : 1, 1);
  uint8_t* rogue_set = calloc(N ? N : 1, 1);
  uint32_t* part = malloc((V ? V : 1) * sizeof *part);
  uint32_t* qv = malloc((V ? V : 1) * sizeof *qv);
  uint32_t* parent = malloc((N ? N : 1) * sizeof *parent);
  island* isl = malloc((N ? N : 1) * sizeof *isl);
  uint32_t* slot = malloc((N ? N : 1) * sizeof *slot); /* root entry -> its island */
  uint32_t* donor = calloc(V ? V : 1, sizeof *donor); /* first the BFS stamps of near_main */
  float* box = malloc(6 * (V ? V : 1) * sizeof *box);  /* per part: min xyz, max xyz */
  uint32_t* per_joint = calloc(J ? J : 1, sizeof *per_joint);
  size_t maxd = skc_wmax_degree(s);
  uint32_t* tj = malloc((2 * maxd + 1) * sizeof *tj);
  float* tw = malloc((2 * maxd + 1) * sizeof *tw);
  skc_skin_builder bld;
  bool have_builder = false;
  if (!valid || !rogue_set || !part || !qv || !parent || !isl || !slot || !donor || !per_joint || !tj || !tw || !box)
    goto oom;
  for (size_t k = 0; k < V; ++k) {
    box[6 * k] = box[6 * k + 1] = box[6 * k + 2] = INFINITY;
    box[6 * k + 3] = box[6 * k + 4] = box[6 * k + 5] = -INFINITY;
  }

  /* parts: connected components over the edges */
  for (size_t v = 0; v < V; ++v) part[v] = UINT32_MAX;
  uint32_t parts = 0;
  for (size_t v0 = 0; v0 < V; ++v0) {
    if (part[v0] != UINT32_MAX) continue;
    size_t head = 0, tail = 0;
    part[v0] = parts;
    qv[tail++] = (uint32_t)v0;
    while (head < tail) {
      uint32_t u = qv[head++];
      for (size_t k = adj.offsets[u]; k < adj.offsets[u + 1]; ++k) {
        uint32_t x = adj.neighbors[k];
        if (part[x] == UINT32_MAX) {
          part[x] = parts;
          qv[tail++] = x;
        }
      }
    }
    ++parts;
  }

  /* islands: union (u, j) with (x, j) over every edge u-x where both carry j */
  for (size_t i = 0; i < N; ++i) {
    parent[i] = (uint32_t)i;
    valid[i] = SW[i] > eps && skc_wentry_valid(SJ[i], SW[i], J); /* attachment; becomes "valid" below */
  }
  for (size_t u = 0; u < V; ++u) {
    size_t ub = off[u], ue = off[u + 1];
    for (size_t k = adj.offsets[u]; k < adj.offsets[u + 1]; ++k) {
      uint32_t x = adj.neighbors[k];
      if (x <= u) continue;
      for (size_t i = ub; i < ue; ++i) {
        if (!valid[i]) continue;
        uint32_t j = SJ[i];
        for (size_t ii = off[x], ie = off[x + 1]; ii < ie; ++ii)
          if (SJ[ii] == j) {
            if (valid[ii]) uf_union(parent, (uint32_t)i, (uint32_t)ii);
            break;
          }
      }
    }
  }
  /* island totals; the root is the lowest entry of its set, met first in vertex order */
  size_t ni = 0;
  for (size_t v = 0; v < V; ++v)
    for (size_t i = off[v]; i < off[v + 1]; ++i) {
      if (!valid[i]) continue;
      uint32_t root = uf_find(parent, (uint32_t)i);
      if (root == i) {
        isl[ni] = (island){part[v], SJ[i], root, 0, (uint32_t)v, 0.0};
        slot[root] = (uint32_t)ni++;
      }
      island* t = &isl[slot[root]];
      t->count++;
      t->total += SW[i];
    }
  qsort(isl, ni, sizeof *isl, island_cmp);
  /* candidates: the small islands besides the main one of each (part, joint); slot[root] = its main island's root */
  size_t candidates = 0;
  for (size_t a = 0; a < ni;) {
    size_t b = a + 1;
    while (b < ni && isl[b].part == isl[a].part && isl[b].joint == isl[a].joint) {
      if (isl[b].total < SKC_ROGUE_ISLAND_RATIO * isl[a].total &&
          (double)isl[b].count < SKC_ROGUE_ISLAND_RATIO * (double)isl[a].count) {
        rogue_set[isl[b].root] = 1;
        slot[isl[b].root] = isl[a].root;
        ++candidates;
      }
      ++b;
    }
    a = b;
  }
  /* a small island close to its main island (SKC_ROGUE_GAP of the part's size, along the surface) is the main
   * region's falloff cut by an influence limit or by quantization, not rogue */
  if (candidates && p->positions) {
    for (size_t v = 0; v < V; ++v) {
      const float* x = skc_pos(p->positions, p->positions_stride, v);
      float* b = box + 6 * (size_t)part[v];
      for (int k = 0; k < 3; ++k) {
        if (x[k] < b[k]) b[k] = x[k];
        if (x[k] > b[3 + k]) b[3 + k] = x[k];
      }
    }
  }
  uint32_t tick = 0;
  for (size_t v = 0; v < V && candidates; ++v)
    for (size_t i = off[v]; i < off[v + 1]; ++i) {
      if (!valid[i]) continue;
      uint32_t root = uf_find(parent, (uint32_t)i);
      if (rogue_set[root] != 1) continue;
      double reach2 = 0.0;
      if (p->positions) {
        const float* b = box + 6 * (size_t)part[v];
        double dx = b[3] - b[0], dy = b[4] - b[1], dz = b[5] - b[2];
        reach2 = SKC_ROGUE_GAP * SKC_ROGUE_GAP * (dx * dx + dy * dy + dz * dz);
      }
      if (near_main(&adj, s, valid, parent, p, reach2, donor, &tick, qv, (uint32_t)v, SJ[i], slot[root]))
        rogue_set[root] = 2;
    }
  for (size_t i = 0; i < N; ++i) valid[i] = valid[i] && rogue_set[uf_find(parent, (uint32_t)i)] != 1;

  /* donors: vertices with attachments, all valid; multi-source BFS gives every vertex its nearest donor (edges
   * never leave a part, so the donor is on the vertex's own part) */
  size_t head = 0, tail = 0;
  for (size_t v = 0; v < V; ++v) {
    bool any = false, all = true;
    for (size_t i = off[v]; i < off[v + 1]; ++i) {
      if (!(SW[i] > eps) || !skc_wentry_valid(SJ[i], SW[i], J)) continue;
      any = true;
      if (!valid[i]) all = false;
    }
    donor[v] = any && all ? (uint32_t)v : UINT32_MAX;
    if (donor[v] != UINT32_MAX) qv[tail++] = (uint32_t)v;
  }
  while (head < tail) {
    uint32_t u = qv[head++];
    for (size_t k = adj.offsets[u]; k < adj.offsets[u + 1]; ++k) {
      uint32_t x = adj.neighbors[k];
      if (donor[x] == UINT32_MAX) {
        donor[x] = donor[u];
        qv[tail++] = x;
      }
    }
  }

  if ((rc = skc_skin_builder_init(&bld, V, N + 16, err))) goto done;
  have_builder = true;
  skc_wreport_begin(r, s);
  const double tol = p->tolerance > 0.0f ? p->tolerance : 1e-5;
  size_t changed_entries = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t b = off[v], e = off[v + 1], n = e - b;
    bool sel = skc_wsel(sc, v);
    size_t bad = 0, rogue = 0;
    if (sel) {
      r->vertices_visited++;
      bad = skc_wcount_invalid(s, b, e);
      r->invalid_entries += bad;
      if (!bad)
        for (size_t i = b; i < e; ++i)
          if (SW[i] > eps && !valid[i] && !skc_wlocked(sc, SJ[i])) ++rogue;
    }
    if (bad) skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
    if (!rogue) {
      skc_skin_builder_push(&bld, SJ + b, SW + b, n);
      continue;
    }
    size_t m = 0;
    double moved = 0.0, left = 0.0;
    for (size_t i = b; i < e; ++i) {
      if (SW[i] > eps && !valid[i] && !skc_wlocked(sc, SJ[i])) {
        moved += SW[i];
        continue;
      }
      if (!skc_wlocked(sc, SJ[i])) left += SW[i];
      tj[m] = SJ[i];
      tw[m] = SW[i];
      ++m;
    }
    uint32_t d = donor[v];
    if (!(left > 0.0) && d != UINT32_MAX && moved > 0.0) {
      /* nothing unlocked left to renormalize: the nearest valid vertex's unlocked weights, in proportion */
      double dsum = 0.0;
      for (size_t i = off[d]; i < off[d + 1]; ++i)
        if (SW[i] > eps && !skc_wlocked(sc, SJ[i])) dsum += SW[i];
      for (size_t i = off[d]; i < off[d + 1] && dsum > 0.0; ++i) {
        if (!(SW[i] > eps) || skc_wlocked(sc, SJ[i])) continue;
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
    }
    int nf = skc_wnormalize_vertex(tj, tw, m, sc->locked, tol, NULL);
    if (nf) {
      skc_wreport_flag(r, v, (uint8_t)(SKC_WFLAG_FAILED | SKC_WFLAG_ROGUE | nf));
      skc_skin_builder_push(&bld, SJ + b, SW + b, n);
      continue;
    }
    /* a real change only: some weight moved by more than the stored precision */
    double diff = 0.0;
    for (size_t i = b; i < e; ++i) {
      float now = 0.0f;
      for (size_t k = 0; k < m; ++k)
        if (tj[k] == SJ[i]) now = tw[k];
      double dd = fabs((double)now - (double)SW[i]);
      if (dd > diff) diff = dd;
    }
    for (size_t k = 0; k < m; ++k) {
      bool old = false;
      for (size_t i = b; i < e && !old; ++i) old = SJ[i] == tj[k];
      if (!old && tw[k] > diff) diff = tw[k];
    }
    if (!(diff > SKC_ROGUE_NO_CHANGE)) {
      skc_skin_builder_push(&bld, SJ + b, SW + b, n);
      continue;
    }
    for (size_t i = b; i < e; ++i)
      if (SW[i] > eps && !valid[i] && !skc_wlocked(sc, SJ[i])) per_joint[SJ[i]]++;
    changed_entries += rogue;
    skc_wreport_flag(r, v, SKC_WFLAG_CHANGED | SKC_WFLAG_ROGUE);
    skc_skin_builder_push(&bld, tj, tw, m);
  }
  r->entries_changed = changed_entries;
  have_builder = false;
  if (r->vertices_changed) {
    if ((rc = skc_skin_builder_finish(&bld, s, err))) goto done;
  } else {
    skc_skin_builder_free(&bld); /* nothing changed: keep the skin exactly as it is */
  }
  for (uint32_t j = 0; j < J; ++j) r->joints_affected += per_joint[j] != 0;
  if (r->joint_counts) memcpy(r->joint_counts, per_joint, J * sizeof *per_joint);
  r->influences_after = skc_skin_entries(s);
  rc = SKC_OK;
  goto done;
oom:
  rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory removing rogue vertices");
done:
  if (have_builder) skc_skin_builder_free(&bld);
  skc_adjacency_free(&adj);
  free(valid);
  free(rogue_set);
  free(part);
  free(qv);
  free(parent);
  free(isl);
  free(slot);
  free(donor);
  free(box);
  free(per_joint);
  free(tj);
  free(tw);
  return rc;
}
