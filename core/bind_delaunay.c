/* bind_delaunay.c - Delaunay tetrahedralization binding (Shin & Shin 2000, seed 000).
 *
 * Each vertex is attached to its topological neighbours among the bones in a graph that spans the volume of the
 * mesh: a multi-source Dijkstra (edge length as cost) from sample points along every active bone keeps for every
 * node the K nearest bones (K = the candidate count) - a bone is among the K nearest of a node only if it is among
 * the K nearest of every node on its shortest path, so one search serves all bones - and the vertex blends them by
 * inverse graph distance with the smooth relative cutoff of the nearest-bone method.
 *
 * The graph: the welded vertices (copies joined, skc_bind_weld) with the mesh's own edges, plus the edges of a 3-D
 * Delaunay tetrahedralization (qhull, reentrant libqhull_r, "d Qt Qbb Qz") of a sample of the vertices and of the
 * bone sample points. The vertex sample is all welded vertices up to DEL_TARGET_SAMPLES, else one vertex per cell
 * of a grid (per connected part, so every part keeps one; the vertex nearest the cell's centroid) whose cell size
 * gives about that many occupied cells, so qhull's time no longer grows with the mesh; bone samples are spaced like
 * the cells. A tetrahedron edge that leaves the surface outward at a vertex end - more than 30 degrees above the
 * tangent plane of that vertex's normal - runs through the air (between two legs, from an arm into the torso) and
 * is dropped. Without triangles (a point cloud) every tetrahedron edge stays, and each vertex outside the sample is
 * joined to its cell's sample.
 * Coordinates are centred and scaled into the unit box before qhull (scale-free) and joggled by 1e-6 (see jitter()).
 * Vertices the graph does not reach (a part whose every edge was dropped) fall back to nearest bone, as does every
 * vertex when qhull cannot tetrahedralize the input (fewer than 5 distinct points, or a qhull error). qhull reports
 * errors through setjmp inside qh_new_qhull and its exit code; its messages go to an in-memory stream, never to the
 * process's stderr, and it never exits the process.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <libqhull_r/libqhull_r.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_bind.h"
#include "skc_uf.h"

#define DEL_MIN_SAMPLES 2u
#define DEL_MAX_SAMPLES 256u
#define DEL_JITTER 1e-6          /* in the unit box */
#define DEL_TARGET_SAMPLES 4000u /* vertex sample size for the tetrahedralization */
#define DEL_OUTWARD 0.5          /* cos 60 deg: an edge leaving its end's tangent plane steeper than 30 deg is out */

static double falloff(double ratio, double cutoff) {
  if (ratio <= 1.0) return 1.0;
  if (ratio >= cutoff) return 0.0;
  double t = (ratio - 1.0) / (cutoff - 1.0);
  return 1.0 - t * t * (3.0 - 2.0 * t);
}

/* Deterministic offset in [-DEL_JITTER, DEL_JITTER] (splitmix64 of the coordinate's index). Meshes are full of
 * co-spherical points (rings of a cylinder, regular grids), on which qhull merges facets for tens of seconds; a
 * joggle far below any mesh spacing makes the input general and qhull 5-10x faster. */
static double jitter(size_t i) {
  uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return DEL_JITTER * ((double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int u32_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return x < y ? -1 : (x > y);
}

/* ---- edges: a growable list of node pairs, then CSR -------------------------------------------------------- */
typedef struct del_edges {
  uint32_t* a; /* 2 per edge */
  size_t n, cap;
} del_edges;

static int edges_push(del_edges* e, uint32_t u, uint32_t v) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? 2 * e->cap : 4096;
    uint32_t* a = realloc(e->a, 2 * cap * sizeof *a);
    if (!a) return 1;
    e->a = a;
    e->cap = cap;
  }
  e->a[2 * e->n] = u;
  e->a[2 * e->n + 1] = v;
  ++e->n;
  return 0;
}

typedef struct del_graph {
  size_t n;            /* nodes */
  uint32_t* offsets;   /* n + 1 */
  uint32_t* neighbors; /* offsets[n] */
  float* length;       /* offsets[n] */
} del_graph;

static void graph_free(del_graph* g) {
  free(g->offsets);
  free(g->neighbors);
  free(g->length);
  memset(g, 0, sizeof *g);
}

/* Undirected CSR of the edge list, rows sorted and without duplicates or loops; lengths from pos (3 doubles per
 * node). Returns 1 when out of memory. */
static int graph_build(const del_edges* e, size_t n, const double* pos, del_graph* g) {
  memset(g, 0, sizeof *g);
  g->n = n;
  g->offsets = calloc(n + 1, sizeof *g->offsets);
  g->neighbors = malloc((2 * e->n + 1) * sizeof *g->neighbors);
  uint32_t* fill = malloc((n + 1) * sizeof *fill);
  if (!g->offsets || !g->neighbors || !fill) {
    free(fill);
    graph_free(g);
    return 1;
  }
  for (size_t k = 0; k < e->n; ++k)
    if (e->a[2 * k] != e->a[2 * k + 1]) ++g->offsets[e->a[2 * k] + 1], ++g->offsets[e->a[2 * k + 1] + 1];
  for (size_t i = 0; i < n; ++i) g->offsets[i + 1] += g->offsets[i];
  memcpy(fill, g->offsets, n * sizeof *fill);
  for (size_t k = 0; k < e->n; ++k) {
    uint32_t u = e->a[2 * k], v = e->a[2 * k + 1];
    if (u == v) continue;
    g->neighbors[fill[u]++] = v;
    g->neighbors[fill[v]++] = u;
  }
  free(fill);
  uint32_t w = 0;
  for (size_t i = 0; i < n; ++i) { /* sort (insertion for the usual short rows), drop duplicates, compact */
    uint32_t e0 = g->offsets[i], e1 = g->offsets[i + 1];
    if (e1 - e0 > 32) qsort(g->neighbors + e0, e1 - e0, sizeof *g->neighbors, u32_cmp);
    for (uint32_t x = e0 + 1; x < e1 && e1 - e0 <= 32; ++x) {
      uint32_t y = g->neighbors[x], k = x;
      while (k > e0 && g->neighbors[k - 1] > y) {
        g->neighbors[k] = g->neighbors[k - 1];
        --k;
      }
      g->neighbors[k] = y;
    }
    g->offsets[i] = w;
    for (uint32_t x = e0; x < e1; ++x)
      if (x == e0 || g->neighbors[x] != g->neighbors[x - 1]) g->neighbors[w++] = g->neighbors[x];
  }
  g->offsets[n] = w;
  g->length = malloc((w ? w : 1) * sizeof *g->length);
  if (!g->length) {
    graph_free(g);
    return 1;
  }
  for (size_t i = 0; i < n; ++i)
    for (uint32_t x = g->offsets[i]; x < g->offsets[i + 1]; ++x) {
      const double* p = pos + 3 * i;
      const double* q = pos + 3 * (size_t)g->neighbors[x];
      double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
      g->length[x] = (float)sqrt(dx * dx + dy * dy + dz * dz);
    }
  return 0;
}

/* ---- qhull -------------------------------------------------------------------------------------------------- */
/* Tetrahedralizes coords (3 * count doubles, unit box) and appends the tetrahedra's edges, mapped by ids[], to e.
 * Returns SKC_OK, SKC_OUT_OF_MEMORY, or SKC_NO_SOLUTION (qhull could not build it; its messages are discarded). */
static int tetrahedralize(double* coords, size_t count, const uint32_t* ids, del_edges* e) {
  char* log_text = NULL;
  size_t log_size = 0;
  FILE* log = open_memstream(&log_text, &log_size);
  if (!log) return SKC_OUT_OF_MEMORY;
  qhT* qh = calloc(1, sizeof *qh);
  if (!qh) {
    fclose(log);
    free(log_text);
    return SKC_OUT_OF_MEMORY;
  }
  char cmd[] = "qhull d Qt Qbb Qz";
  qh_zero(qh, log);
  int exitcode = qh_new_qhull(qh, 3, (int)count, coords, False, cmd, NULL, log);
  int rc = SKC_OK;
  if (exitcode) rc = exitcode == qh_ERRmem ? SKC_OUT_OF_MEMORY : SKC_NO_SOLUTION;
  if (!rc) {
    facetT* facet;
    FORALLfacets { /* the lower Delaunay facets are the tetrahedra */
      if (facet->upperdelaunay) continue;
      uint32_t id[4];
      int k = 0;
      vertexT *vertex, **vertexp;
      FOREACHvertex_(facet->vertices) {
        int pid = qh_pointid(qh, vertex->point);
        if (k < 4 && pid >= 0 && (size_t)pid < count) id[k++] = ids[pid];
      }
      if (k != 4) continue; /* a facet through the point at infinity (Qz) or a malformed one */
      for (int a = 0; a < 4 && !rc; ++a)
        for (int b = a + 1; b < 4 && !rc; ++b)
          if (id[a] != id[b] && edges_push(e, id[a] < id[b] ? id[a] : id[b], id[a] < id[b] ? id[b] : id[a]))
            rc = SKC_OUT_OF_MEMORY;
    }
  }
  int curlong = 0, totlong = 0;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  free(qh);
  fclose(log);
  free(log_text);
  return rc;
}

/* ---- K nearest bones per node: one multi-source Dijkstra with K labels per node ------------------------ */
typedef struct del_item {
  double d;
  uint32_t node, bone;
} del_item;

typedef struct del_heap {
  del_item* a;
  size_t n, cap;
} del_heap;

static int heap_push(del_heap* h, del_item it) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 1024;
    del_item* a = realloc(h->a, cap * sizeof *a);
    if (!a) return 1;
    h->a = a;
    h->cap = cap;
  }
  size_t i = h->n++;
  while (i > 0 && h->a[(i - 1) / 2].d > it.d) {
    h->a[i] = h->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->a[i] = it;
  return 0;
}

static del_item heap_pop(del_heap* h) {
  del_item top = h->a[0], last = h->a[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->a[c + 1].d < h->a[c].d) ++c;
    if (h->a[c].d >= last.d) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (h->n) h->a[i] = last;
  return top;
}

typedef struct del_labels {
  uint32_t k;
  uint32_t* count; /* n */
  uint32_t* bone;  /* n * k, sorted by distance ascending */
  double* dist;    /* n * k */
} del_labels;

/* Offers (bone, dist) to node u; returns 1 when the node's list changed. */
static int label_offer(del_labels* L, size_t u, uint32_t bone, double dist) {
  uint32_t k = L->k, n = L->count[u];
  uint32_t* b = L->bone + u * k;
  double* x = L->dist + u * k;
  uint32_t at = n;
  for (uint32_t i = 0; i < n; ++i)
    if (b[i] == bone) {
      if (x[i] <= dist) return 0;
      at = i; /* improve in place, then move up */
      break;
    }
  if (at == n) {
    if (n == k && dist >= x[n - 1]) return 0;
    at = n < k ? n : k - 1;
    if (n < k) L->count[u] = n + 1;
  }
  while (at > 0 && x[at - 1] > dist) {
    x[at] = x[at - 1];
    b[at] = b[at - 1];
    --at;
  }
  x[at] = dist;
  b[at] = bone;
  return 1;
}

static int label_current(const del_labels* L, size_t u, uint32_t bone, double dist) {
  for (uint32_t i = 0; i < L->count[u]; ++i)
    if (L->bone[u * L->k + i] == bone) return L->dist[u * L->k + i] == dist;
  return 0;
}

static int nearest_bones(const del_graph* g, const uint32_t* src_node, const uint32_t* src_bone, size_t src_count,
                         del_labels* L) {
  del_heap h = {0};
  for (size_t s = 0; s < src_count; ++s)
    if (label_offer(L, src_node[s], src_bone[s], 0.0)) {
      del_item it = {0.0, src_node[s], src_bone[s]};
      if (heap_push(&h, it)) goto oom;
    }
  while (h.n) {
    del_item it = heap_pop(&h);
    if (!label_current(L, it.node, it.bone, it.d)) continue; /* superseded */
    for (uint32_t e = g->offsets[it.node]; e < g->offsets[it.node + 1]; ++e) {
      uint32_t u = g->neighbors[e];
      double nd = it.d + g->length[e];
      if (label_offer(L, u, it.bone, nd)) {
        del_item next = {nd, u, it.bone};
        if (heap_push(&h, next)) goto oom;
      }
    }
  }
  free(h.a);
  return SKC_OK;
oom:
  free(h.a);
  return SKC_OUT_OF_MEMORY;
}

/* ---- the method ---------------------------------------------------------------------------------------- */
typedef struct del_ctx {
  const skc_bind_desc* d;
  size_t n, nodes;       /* vertices; welded vertices + bone samples */
  uint32_t* node_of;     /* n: vertex -> node (welded vertices first, in order of their lowest vertex) */
  uint32_t* vert_of;     /* nodes: welded node -> its lowest vertex (UINT32_MAX for bone samples) */
  double* pos;           /* 3 * nodes */
  float* nrm;            /* 3 * welded: area-weighted normal (unit, or 0) */
  uint32_t* comp;        /* welded: connected part (root node) */
  uint32_t* tri;         /* 3 * triangle_count over the original vertex indices of the welded nodes */
  size_t welded;         /* welded vertex nodes (the bone samples follow) */
  uint32_t* sample_bone; /* bone samples: their joint */
  size_t samples;        /* bone sample count */
} del_ctx;

static void ctx_free(del_ctx* c) {
  free(c->node_of);
  free(c->vert_of);
  free(c->pos);
  free(c->nrm);
  free(c->comp);
  free(c->tri);
  free(c->sample_bone);
}

/* Bone sample counts: bone_samples, or one per `spacing` along the bone (2 .. 256; a point bone gets one). */
static size_t bone_sample_counts(const skc_bind_desc* d, double spacing, uint32_t* per_bone) {
  size_t total = 0;
  for (uint32_t j = 0; j < d->joint_count; ++j) {
    per_bone[j] = 0;
    if (!skc_bind_joint_active(d, j)) continue;
    double len = 0.0;
    for (int k = 0; k < 3; ++k) {
      double t = (double)d->tails[3 * j + k] - d->heads[3 * j + k];
      len += t * t;
    }
    len = sqrt(len);
    uint32_t c = 1;
    if (len > 0.0) {
      if (d->bone_samples) {
        c = d->bone_samples;
      } else {
        double want = spacing > 0.0 ? ceil(len / spacing) : DEL_MIN_SAMPLES;
        c = want < DEL_MIN_SAMPLES ? DEL_MIN_SAMPLES : (want > DEL_MAX_SAMPLES ? DEL_MAX_SAMPLES : (uint32_t)want);
      }
    }
    per_bone[j] = c;
    total += c;
  }
  return total;
}

/* The cell of the grid of size h (from corner lo) that node i lies in, as its three indices. */
static void grid_cell(const del_ctx* c, size_t i, const double lo[3], double h, double cell[3]) {
  for (int k = 0; k < 3; ++k) cell[k] = floor((c->pos[3 * i + k] - lo[k]) / h);
}

/* One grid of size h: slot_of[i] = the hash slot of node i's (cell, part) among cap slots (keys and slot_node say
 * which (cell, part) a slot holds). Returns the number of occupied cells. */
static size_t grid_round(const del_ctx* c, const double lo[3], double h, size_t cap, uint64_t* keys,
                         uint32_t* slot_node, uint32_t* slot_of) {
  memset(slot_node, 0xff, cap * sizeof *slot_node);
  size_t used = 0;
  for (size_t i = 0; i < c->welded; ++i) {
    double ci[3], co[3];
    grid_cell(c, i, lo, h, ci);
    uint64_t key = c->comp[i];
    for (int k = 0; k < 3; ++k) key = key * 0x100000001b3ull ^ (uint64_t)(int64_t)ci[k];
    size_t s = (size_t)mix64(key) & (cap - 1);
    for (;; s = (s + 1) & (cap - 1)) {
      if (slot_node[s] == UINT32_MAX) {
        slot_node[s] = (uint32_t)i;
        keys[s] = key;
        ++used;
        break;
      }
      uint32_t o = slot_node[s];
      if (keys[s] != key || c->comp[o] != c->comp[i]) continue;
      grid_cell(c, o, lo, h, co);
      if (co[0] == ci[0] && co[1] == ci[1] && co[2] == ci[2]) break;
    }
    slot_of[i] = (uint32_t)s;
  }
  return used;
}

/* rep_of[i] = the node of node i's cell nearest that cell's centroid (best is cap slots of scratch). False when out
 * of memory. */
static bool cell_representatives(const del_ctx* c, size_t cap, const uint32_t* slot_of, uint64_t* best,
                                 uint32_t* rep_of) {
  const size_t nw = c->welded;
  double* acc = calloc(4 * cap, sizeof *acc);
  if (!acc) return false;
  for (size_t i = 0; i < nw; ++i) {
    double* a = acc + 4 * (size_t)slot_of[i];
    for (int k = 0; k < 3; ++k) a[k] += c->pos[3 * i + k];
    a[3] += 1.0;
  }
  for (size_t s = 0; s < cap; ++s) { /* acc becomes (centroid, best squared distance) */
    best[s] = UINT64_MAX;
    if (acc[4 * s + 3] > 0.0)
      for (int k = 0; k < 3; ++k) acc[4 * s + k] /= acc[4 * s + 3];
  }
  for (size_t i = 0; i < nw; ++i) {
    double* a = acc + 4 * (size_t)slot_of[i];
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k) d2 += (c->pos[3 * i + k] - a[k]) * (c->pos[3 * i + k] - a[k]);
    if (best[slot_of[i]] == UINT64_MAX || d2 < a[3]) {
      best[slot_of[i]] = i;
      a[3] = d2;
    }
  }
  for (size_t i = 0; i < nw; ++i) rep_of[i] = (uint32_t)best[slot_of[i]];
  free(acc);
  return true;
}

/* Chooses the tetrahedralized welded nodes: all of them up to DEL_TARGET_SAMPLES, else one per (grid cell, part),
 * the cell size grown until at most 1.5 DEL_TARGET_SAMPLES cells are occupied. rep_of[i] = the chosen node of node
 * i's cell. Returns the count, 0 when out of memory; *cell_out = the cell size (0: all taken). */
static size_t choose_samples(const del_ctx* c, double surface_area, double diag, uint32_t* rep_of, double* cell_out) {
  size_t nw = c->welded;
  *cell_out = 0.0;
  if (nw <= DEL_TARGET_SAMPLES) {
    for (size_t i = 0; i < nw; ++i) rep_of[i] = (uint32_t)i;
    return nw;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  for (size_t i = 0; i < nw; ++i)
    for (int k = 0; k < 3; ++k) lo[k] = c->pos[3 * i + k] < lo[k] ? c->pos[3 * i + k] : lo[k];
  double h = surface_area > 0.0 ? sqrt(surface_area / DEL_TARGET_SAMPLES) : diag / sqrt((double)DEL_TARGET_SAMPLES);
  if (h < 1e-6 * diag) h = 1e-6 * diag; /* (needle triangles: keep the cell indices small) */
  if (!(h > 0.0)) h = 1.0;
  size_t cap = 16;
  while (cap < 2 * nw) cap *= 2;
  uint64_t* keys = malloc(cap * sizeof *keys);
  uint32_t* slot_node = malloc(cap * sizeof *slot_node);
  uint32_t* slot_of = malloc(nw * sizeof *slot_of);
  size_t used = 0;
  if (keys && slot_node && slot_of) {
    for (int round = 0; round < 40; ++round, h *= 1.25)
      if ((used = grid_round(c, lo, h, cap, keys, slot_node, slot_of)) <= DEL_TARGET_SAMPLES + DEL_TARGET_SAMPLES / 2)
        break;
    if (cell_representatives(c, cap, slot_of, keys, rep_of))
      *cell_out = h;
    else
      used = 0;
  }
  free(keys);
  free(slot_node);
  free(slot_of);
  return used;
}

/* Drops the tetrahedron edges [first, e->n) that leave the surface outward at a vertex end (see the file comment),
 * compacting the list. */
static void filter_edges(const del_ctx* c, del_edges* e, size_t first) {
  size_t w = first;
  for (size_t i = first; i < e->n; ++i) {
    const uint32_t* ab = e->a + 2 * i;
    double dir[3], len2 = 0.0;
    for (int k = 0; k < 3; ++k) {
      dir[k] = c->pos[3 * (size_t)ab[1] + k] - c->pos[3 * (size_t)ab[0] + k];
      len2 += dir[k] * dir[k];
    }
    double len = sqrt(len2);
    int keep = 1;
    for (int end = 0; end < 2 && keep; ++end) {
      uint32_t u = ab[end];
      if (u >= c->welded) continue; /* a bone sample */
      const float* nv = c->nrm + 3 * (size_t)u;
      double out = (dir[0] * nv[0] + dir[1] * nv[1] + dir[2] * nv[2]) * (end ? -1.0 : 1.0);
      keep = !(out > DEL_OUTWARD * len);
    }
    if (keep) {
      e->a[2 * w] = ab[0];
      e->a[2 * w + 1] = ab[1];
      ++w;
    }
  }
  e->n = w;
}

/* The method's working arrays beside the context (freed together by work_free). */
typedef struct del_work {
  uint32_t* per_bone; /* joint_count: bone samples per bone */
  uint32_t* rep;      /* n: lowest vertex at the same position */
  uint32_t* rep_of;   /* welded + 1: the chosen node of the node's cell */
  uint32_t* ids;      /* nodes given to the tetrahedralization: the vertex sample, then the bone samples */
  double* coords;     /* 3 per id: centred, scaled into the unit box, joggled */
  uint8_t* fallback;  /* n: vertices left to the nearest-bone fallback */
  del_edges e;
  del_graph g;
  del_labels L;
} del_work;

static void work_free(del_work* w) {
  free(w->per_bone);
  free(w->rep);
  free(w->rep_of);
  free(w->ids);
  free(w->coords);
  free(w->fallback);
  free(w->e.a);
  graph_free(&w->g);
  free(w->L.count);
  free(w->L.bone);
  free(w->L.dist);
}

/* Welded nodes in order of their lowest vertex. */
static void weld_nodes(del_ctx* c, const uint32_t* rep) {
  for (size_t v = 0; v < c->n; ++v) {
    if (rep[v] == v) {
      c->vert_of[c->welded] = (uint32_t)v;
      c->node_of[v] = (uint32_t)c->welded++;
    } else {
      c->node_of[v] = c->node_of[rep[v]];
    }
  }
}

/* Parts, normals and surface area over the welded, non-degenerate triangles (their corners into c->tri, *tris of
 * them); the area, or -1 when out of memory. */
static double surface(del_ctx* c, size_t* tris) {
  const skc_bind_desc* d = c->d;
  c->comp = malloc(c->welded * sizeof *c->comp);
  c->nrm = calloc(3 * c->welded, sizeof *c->nrm);
  if (!c->comp || !c->nrm) return -1.0;
  for (size_t i = 0; i < c->welded; ++i) c->comp[i] = (uint32_t)i;
  double area = 0.0;
  *tris = 0;
  for (size_t t = 0; t < d->triangle_count; ++t) {
    uint32_t a = c->node_of[d->triangles[3 * t]], b = c->node_of[d->triangles[3 * t + 1]],
             q = c->node_of[d->triangles[3 * t + 2]];
    if (a == b || b == q || a == q) continue;
    const float* pa = d->positions + 3 * (size_t)c->vert_of[a];
    const float* pb = d->positions + 3 * (size_t)c->vert_of[b];
    const float* pq = d->positions + 3 * (size_t)c->vert_of[q];
    double u[3], w[3];
    for (int k = 0; k < 3; ++k) u[k] = (double)pb[k] - pa[k], w[k] = (double)pq[k] - pa[k];
    double cr[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    area += 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    uint32_t corner[3] = {a, b, q};
    for (int k = 0; k < 3; ++k) {
      for (int x = 0; x < 3; ++x) c->nrm[3 * (size_t)corner[k] + x] += (float)cr[x];
      c->tri[3 * *tris + (size_t)k] = c->vert_of[corner[k]];
    }
    ++*tris;
    uint32_t ra = skc_uf_find(c->comp, a), rb = skc_uf_find(c->comp, b), rq = skc_uf_find(c->comp, q);
    uint32_t r = ra < rb ? ra : rb;
    r = r < rq ? r : rq;
    c->comp[ra] = c->comp[rb] = c->comp[rq] = r;
  }
  for (size_t i = 0; i < c->welded; ++i) {
    c->comp[i] = skc_uf_find(c->comp, (uint32_t)i);
    float* nv = c->nrm + 3 * i;
    double l = sqrt((double)nv[0] * nv[0] + (double)nv[1] * nv[1] + (double)nv[2] * nv[2]);
    for (int k = 0; k < 3; ++k) nv[k] = l > 0.0 ? (float)(nv[k] / l) : 0.0f;
  }
  return area;
}

/* The bone samples appended to the nodes, per_bone[j] evenly along bone j (one at the head of a bone with one). */
static int bone_samples(del_ctx* c, const uint32_t* per_bone) {
  const skc_bind_desc* d = c->d;
  c->nodes = c->welded + c->samples;
  double* grown = realloc(c->pos, 3 * c->nodes * sizeof *c->pos);
  if (!grown) return SKC_OUT_OF_MEMORY;
  c->pos = grown;
  c->sample_bone = malloc((c->samples ? c->samples : 1) * sizeof *c->sample_bone);
  if (!c->sample_bone) return SKC_OUT_OF_MEMORY;
  size_t s = 0;
  for (uint32_t j = 0; j < d->joint_count; ++j)
    for (uint32_t i = 0; i < per_bone[j]; ++i, ++s) {
      double t = per_bone[j] == 1 ? 0.0 : ((double)i + 0.5) / (double)per_bone[j];
      for (int k = 0; k < 3; ++k)
        c->pos[3 * (c->welded + s) + (size_t)k] =
            d->heads[3 * j + k] + t * ((double)d->tails[3 * j + k] - d->heads[3 * j + k]);
      c->sample_bone[s] = j;
    }
  return SKC_OK;
}

/* The mesh's edges; a point cloud instead joins every vertex to its cell's sample. */
static int mesh_edges(const del_ctx* c, size_t tris, const uint32_t* rep_of, del_edges* e) {
  for (size_t t = 0; t < tris; ++t)
    for (int k = 0; k < 3; ++k)
      if (edges_push(e, c->node_of[c->tri[3 * t + (size_t)k]], c->node_of[c->tri[3 * t + (size_t)(k + 1) % 3]]))
        return SKC_OUT_OF_MEMORY;
  if (!tris)
    for (size_t i = 0; i < c->welded; ++i)
      if (rep_of[i] != i && edges_push(e, (uint32_t)i, rep_of[i])) return SKC_OUT_OF_MEMORY;
  return SKC_OK;
}

/* The ids of the vertex sample and the bone samples, and their coordinates centred, scaled into the unit box and
 * joggled; returns the count, *extent = the larger side of their box. */
static size_t tet_input(const del_ctx* c, const uint32_t* rep_of, uint32_t* ids, double* coords, double* extent) {
  size_t tcount = 0;
  for (size_t i = 0; i < c->welded; ++i)
    if (rep_of[i] == i) ids[tcount++] = (uint32_t)i;
  for (size_t k = 0; k < c->samples; ++k) ids[tcount++] = (uint32_t)(c->welded + k);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < tcount; ++i)
    for (int k = 0; k < 3; ++k) {
      double x = c->pos[3 * (size_t)ids[i] + k];
      lo[k] = x < lo[k] ? x : lo[k];
      hi[k] = x > hi[k] ? x : hi[k];
    }
  double ext = 0.0;
  for (int k = 0; k < 3; ++k) ext = hi[k] - lo[k] > ext ? hi[k] - lo[k] : ext;
  for (size_t i = 0; i < tcount; ++i)
    for (int k = 0; k < 3; ++k)
      coords[3 * i + (size_t)k] =
          ext > 0.0 ? (c->pos[3 * (size_t)ids[i] + k] - 0.5 * (lo[k] + hi[k])) / ext + jitter(3 * i + (size_t)k) : 0.0;
  *extent = ext;
  return tcount;
}

/* After a tetrahedralization: the edges filtered, the graph, and each node's nearest bones along it (labels of
 * out->stride bones a node). */
static int label_nodes(const del_ctx* c, size_t tris, size_t mesh_edge_count, size_t chosen, uint32_t stride,
                       del_work* w) {
  if (tris) filter_edges(c, &w->e, mesh_edge_count);
  if (graph_build(&w->e, c->nodes, c->pos, &w->g)) return SKC_OUT_OF_MEMORY;
  del_labels* L = &w->L;
  L->k = stride;
  L->count = calloc(c->nodes, sizeof *L->count);
  L->bone = malloc(c->nodes * L->k * sizeof *L->bone);
  L->dist = malloc(c->nodes * L->k * sizeof *L->dist);
  if (!L->count || !L->bone || !L->dist) return SKC_OUT_OF_MEMORY;
  const uint32_t* src = w->ids + chosen; /* the bone samples' nodes, in sample order */
  return nearest_bones(&w->g, src, c->sample_bone, c->samples, L);
}

/* Each vertex's weights from its node's labels (falloff over the distance ratio); a vertex without labels (or all
 * of them when the tetrahedralization failed, labelled 0) is marked in fallback. Returns the count marked. */
static uint64_t weigh_vertices(const del_ctx* c, const del_labels* L, int labelled, double diag, uint8_t* fallback,
                               skc_bind_cands* out) {
  const skc_bind_desc* d = c->d;
  const double power = d->falloff_power, cutoff = d->falloff_cutoff, eps = 1e-7 * (diag > 0.0 ? diag : 1.0);
  uint64_t fell_back = 0;
  for (size_t v = 0; v < c->n; ++v) {
    if (d->vertex_mask && !d->vertex_mask[v]) continue;
    out->count[v] = 0;
    uint32_t u = c->node_of[v];
    if (!labelled || L->count[u] == 0) {
      fallback[v] = out->fallback[v] = 1;
      ++fell_back;
      continue;
    }
    const uint32_t* b = L->bone + (size_t)u * L->k;
    const double* x = L->dist + (size_t)u * L->k;
    double dmin = x[0] > eps ? x[0] : eps;
    for (uint32_t i = 0; i < L->count[u]; ++i) {
      double dj = x[i] > eps ? x[i] : eps;
      double f = falloff(dj / dmin, cutoff);
      if (f > 0.0) skc_bind_cands_offer(out, v, b[i], (float)(f * pow(dmin / dj, power)));
    }
    if (out->count[v] == 0) skc_bind_cands_offer(out, v, b[0], 1.0f);
  }
  return fell_back;
}

/* The nodes (welded vertices, then bone samples along every bone), the mesh's edges and the vertex sample;
 * *chosen = the sample's size, *tris = the welded triangles', *diag = the positions' box diagonal. */
static int build_nodes(del_ctx* c, del_work* w, size_t* chosen, size_t* tris, double* diag) {
  const skc_bind_desc* d = c->d;
  size_t n = c->n;
  uint32_t nj = d->joint_count;
  w->per_bone = malloc((nj ? nj : 1) * sizeof *w->per_bone);
  w->rep = malloc(n * sizeof *w->rep);
  c->node_of = malloc(n * sizeof *c->node_of);
  c->vert_of = malloc(n * sizeof *c->vert_of);
  c->tri = malloc((3 * d->triangle_count + 1) * sizeof *c->tri);
  if (!w->per_bone || !w->rep || !c->node_of || !c->vert_of || !c->tri || skc_bind_weld(d->positions, n, w->rep))
    return SKC_OUT_OF_MEMORY;
  weld_nodes(c, w->rep);
  *diag = skc_bind_bbox_diag(d->positions, n);
  double area = surface(c, tris);
  if (area < 0.0) return SKC_OUT_OF_MEMORY;
  /* node positions (double), the vertex sample, the bone samples */
  c->pos = malloc(3 * (c->welded + 1) * sizeof *c->pos);
  w->rep_of = malloc((c->welded + 1) * sizeof *w->rep_of);
  if (!c->pos || !w->rep_of) return SKC_OUT_OF_MEMORY;
  for (size_t i = 0; i < c->welded; ++i)
    for (int k = 0; k < 3; ++k) c->pos[3 * i + k] = d->positions[3 * (size_t)c->vert_of[i] + k];
  double cell = 0.0;
  *chosen = choose_samples(c, area, *diag, w->rep_of, &cell);
  if (!*chosen) return SKC_OUT_OF_MEMORY;
  double spacing = cell > 0.0 ? cell : *diag / sqrt((double)c->welded);
  c->samples = bone_sample_counts(d, spacing, w->per_bone);
  if (bone_samples(c, w->per_bone)) return SKC_OUT_OF_MEMORY;
  return mesh_edges(c, *tris, w->rep_of, &w->e);
}

int skc_bind_delaunay(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err) {
  del_ctx c = {.d = d, .n = d->vertex_count};
  del_work w = {0};
  size_t chosen = 0, tris = 0;
  double diag = 0.0;
  int rc = SKC_OK, qrc = SKC_NO_SOLUTION;
  if (build_nodes(&c, &w, &chosen, &tris, &diag)) goto oom;
  /* tetrahedralize the sample and the bone samples */
  w.ids = malloc((chosen + c.samples + 1) * sizeof *w.ids);
  w.coords = malloc(3 * (chosen + c.samples + 1) * sizeof *w.coords);
  if (!w.ids || !w.coords) goto oom;
  double extent = 0.0;
  size_t tcount = tet_input(&c, w.rep_of, w.ids, w.coords, &extent);
  size_t mesh_edge_count = w.e.n;
  if (tcount >= 5 && extent > 0.0 && tcount < (size_t)INT32_MAX) qrc = tetrahedralize(w.coords, tcount, w.ids, &w.e);
  if (qrc == SKC_OUT_OF_MEMORY) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind (delaunay): out of memory in the tetrahedralization");
    goto done;
  }
  if (qrc == SKC_OK && label_nodes(&c, tris, mesh_edge_count, chosen, out->stride, &w)) goto oom;
  w.fallback = calloc(c.n, 1);
  if (!w.fallback) goto oom;
  uint64_t fell_back = weigh_vertices(&c, &w.L, qrc == SKC_OK, diag, w.fallback, out);
  if (fell_back) {
    skc_bind_desc nd = *d;
    nd.rigid = 0;
    rc = skc_bind_nearest(&nd, w.fallback, out, err);
    if (rc) goto done;
  }
  if (report) {
    report->method_used = qrc == SKC_OK ? SKC_BIND_DELAUNAY : SKC_BIND_NEAREST;
    report->fallback_vertices = fell_back;
  }
  goto done;
oom:
  rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind (delaunay): out of memory for %zu vertices", d->vertex_count);
done:
  work_free(&w);
  ctx_free(&c);
  return rc;
}
