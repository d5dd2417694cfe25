/* weights_rogue.c - rogue-vertex removal (Weber 2000, as summarized in seed 000).
 *
 * For every joint, its best-attached vertex (highest weight; ties: closest to the joint's bind position when a
 * skeleton and positions are given, else the lowest vertex index) seeds a flood over mesh edges through the
 * vertices attached to that joint (weight > epsilon). Attachments the flood does not reach are rogue. A rogue
 * attachment of a selected vertex on an unlocked joint is removed and its weight handed to the unlocked joints of
 * the nearest valid vertex (edge hops, multi-source BFS from the vertices whose attachments are all valid),
 * proportionally to that vertex's weights; then the normalization rule. With SKC_ROGUE_PER_COMPONENT every
 * connected component gets its own seed per joint (separate pieces such as eyes or props are not rogue).
 * The floods of all joints are computed at once as connected sets of attachments (union-find over the edges, in
 * vertex order for memory locality): O(edges * influences^2) near-linear work. */
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

static float dist2_to_joint(const skc_rogue_params* p, size_t v, uint32_t j) {
  const float* x = skc_pos(p->positions, p->positions_stride, v);
  const float* B = p->skeleton->bind + 16 * (size_t)j;
  float dx = x[0] - B[12], dy = x[1] - B[13], dz = x[2] - B[14];
  return dx * dx + dy * dy + dz * dz;
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
  bool use_dist = p->skeleton && p->positions;
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
  int rc = skc_adjacency_build(&adj, V, p->triangles, p->triangle_count, err);
  if (rc) return rc;
  const float eps = p->epsilon;
  size_t N = skc_skin_entries(s);
  const uint32_t* off = s->offsets;
  const uint32_t* SJ = s->joints;
  const float* SW = s->weights;
  uint8_t* valid = calloc(N ? N : 1, 1);
  uint32_t* order = malloc((V ? V : 1) * sizeof *order);
  uint32_t* region_end = NULL;
  uint32_t* best_e = malloc(J * sizeof *best_e);
  uint32_t* best_v = malloc(J * sizeof *best_v);
  uint32_t* stamp = calloc(J, sizeof *stamp);
  uint32_t* qv = malloc((N > V ? N : V ? V : 1) * sizeof *qv);
  uint32_t* parent = malloc((N ? N : 1) * sizeof *parent);
  uint8_t* seedok = calloc(N ? N : 1, 1);
  uint32_t* donor = malloc((V ? V : 1) * sizeof *donor);
  uint32_t* per_joint = calloc(J, sizeof *per_joint);
  size_t maxd = skc_wmax_degree(s);
  uint32_t* tj = malloc((2 * maxd + 1) * sizeof *tj);
  float* tw = malloc((2 * maxd + 1) * sizeof *tw);
  skc_skin_builder bld;
  bool have_builder = false;
  if (!valid || !order || !best_e || !best_v || !stamp || !qv || !parent || !seedok || !donor || !per_joint || !tj || !tw) goto oom;

  /* regions: the whole mesh, or connected components in BFS order */
  size_t regions = 1;
  if (p->flags & SKC_ROGUE_PER_COMPONENT) {
    memset(donor, 0xff, V * sizeof *donor); /* reused as "seen" */
    region_end = malloc((V + 1) * sizeof *region_end);
    if (!region_end) goto oom;
    size_t head = 0, tail = 0;
    regions = 0;
    for (size_t v0 = 0; v0 < V; ++v0) {
      if (donor[v0] != UINT32_MAX) continue;
      donor[v0] = 0;
      order[tail++] = (uint32_t)v0;
      while (head < tail) {
        uint32_t u = order[head++];
        for (size_t k = adj.offsets[u]; k < adj.offsets[u + 1]; ++k) {
          uint32_t x = adj.neighbors[k];
          if (donor[x] == UINT32_MAX) {
            donor[x] = 0;
            order[tail++] = x;
          }
        }
      }
      region_end[regions++] = (uint32_t)tail;
    }
  } else {
    for (size_t v = 0; v < V; ++v) order[v] = (uint32_t)v;
  }

  /* connected sets of attachments: union (u, j) with (x, j) over every edge u-x where both carry j. Vertex order
   * keeps memory access local (a BFS flood jumps around the mesh and is bound by cache misses). */
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
  /* seeds: best attachment per (region, joint); the set of each seed is valid */
  size_t qn = 0, rb = 0;
  for (size_t reg = 0; reg < regions; ++reg) {
    size_t re = region_end ? region_end[reg] : V;
    size_t first_seed = qn;
    for (size_t k = rb; k < re; ++k) {
      uint32_t v = order[k];
      for (size_t i = off[v]; i < off[v + 1]; ++i) {
        uint32_t j = SJ[i];
        float w = SW[i];
        if (!skc_wentry_valid(j, w, J) || !(w > eps)) continue;
        if (stamp[j] != reg + 1) {
          stamp[j] = (uint32_t)(reg + 1);
          best_e[j] = (uint32_t)i;
          best_v[j] = v;
          qv[qn] = j; /* joints seen in this region, resolved below */
          ++qn;
          continue;
        }
        float bw = SW[best_e[j]];
        bool better = w > bw;
        if (w == bw) {
          if (use_dist) {
            float d = dist2_to_joint(p, v, j), bd = dist2_to_joint(p, best_v[j], j);
            better = d < bd || (d == bd && v < best_v[j]);
          } else {
            better = v < best_v[j];
          }
        }
        if (better) {
          best_e[j] = (uint32_t)i;
          best_v[j] = v;
        }
      }
    }
    for (size_t k = first_seed; k < qn; ++k) seedok[uf_find(parent, best_e[qv[k]])] = 1;
    rb = re;
  }
  for (size_t i = 0; i < N; ++i) valid[i] = valid[i] && seedok[uf_find(parent, (uint32_t)i)];

  /* donors: vertices with attachments, all valid; multi-source BFS gives every vertex its nearest donor */
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

  /* nothing rogue on a selected vertex (the common case): report and keep the skin as it is */
  size_t any_rogue = 0;
  for (size_t v = 0; v < V && !any_rogue; ++v)
    if (skc_wsel(sc, v))
      for (size_t i = off[v]; i < off[v + 1]; ++i)
        if (SW[i] > eps && !valid[i] && skc_wentry_valid(SJ[i], SW[i], J) && !skc_wlocked(sc, SJ[i])) ++any_rogue;
  if (!any_rogue) {
    skc_wreport_begin(r, s);
    for (size_t v = 0; v < V; ++v) {
      if (!skc_wsel(sc, v)) continue;
      r->vertices_visited++;
      size_t bad = skc_wcount_invalid(s, off[v], off[v + 1]);
      if (bad) {
        r->invalid_entries += bad;
        skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
      }
    }
    r->influences_after = N;
    rc = SKC_OK;
    goto done;
  }
  if ((rc = skc_skin_builder_init(&bld, V, N + N / 4 + 16, err))) goto done;
  have_builder = true;
  skc_wreport_begin(r, s);
  const double tol = p->tolerance > 0.0f ? p->tolerance : 1e-5;
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
    double moved = 0.0;
    for (size_t i = b; i < e; ++i) {
      if (SW[i] > eps && !valid[i] && !skc_wlocked(sc, SJ[i])) {
        moved += SW[i];
        continue;
      }
      tj[m] = SJ[i];
      tw[m] = SW[i];
      ++m;
    }
    uint32_t d = donor[v];
    if (d != UINT32_MAX && moved > 0.0) {
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
    for (size_t i = b; i < e; ++i)
      if (SW[i] > eps && !valid[i] && !skc_wlocked(sc, SJ[i])) per_joint[SJ[i]]++;
    r->entries_changed += rogue;
    skc_wreport_flag(r, v, SKC_WFLAG_CHANGED | SKC_WFLAG_ROGUE);
    skc_skin_builder_push(&bld, tj, tw, m);
  }
  have_builder = false;
  if ((rc = skc_skin_builder_finish(&bld, s, err))) goto done;
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
  free(order);
  free(region_end);
  free(best_e);
  free(best_v);
  free(stamp);
  free(qv);
  free(parent);
  free(seedok);
  free(donor);
  free(per_joint);
  free(tj);
  free(tw);
  return rc;
}
