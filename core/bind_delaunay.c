/* bind_delaunay.c - Delaunay tetrahedralization binding (Shin & Shin 2000, seed 000).
 *
 * The space holding the skin vertices and the bones is cut into tetrahedra: a 3-D Delaunay tetrahedralization
 * (qhull, reentrant libqhull_r, "d Qt Qbb Qz") of the welded vertex positions plus sample points along every active
 * bone (bone_samples per bone, or one per mesh spacing, 2 .. 256). Each vertex is then attached to its topological
 * neighbours among the bones: a multi-source Dijkstra over the tet edges (edge length as cost) keeps for every
 * node the K nearest bones (K = the candidate count) - a bone is among the K nearest of a node only if it is among
 * the K nearest of every node on its shortest path, so one search serves all bones - and the vertex blends them by
 * inverse graph distance with the smooth relative cutoff of the nearest-bone method. Coordinates are centred and
 * scaled into the unit box before qhull (scale-free) and joggled by 1e-6 (see jitter()). Vertices that the
 * tetrahedralization leaves out (qhull drops near-duplicates) fall back to nearest bone, as does every vertex when
 * qhull cannot tetrahedralize the input (fewer than 5 distinct points, or a qhull error). qhull reports errors through
 * setjmp inside qh_new_qhull and its exit code; its messages go to an in-memory stream, never to the process's
 * stderr, and it never exits the process.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/libqhull_r.h>

#include "skc_bind.h"

#define DEL_MIN_SAMPLES 2u
#define DEL_MAX_SAMPLES 256u
#define DEL_JITTER 1e-6 /* in the unit box */

typedef struct del_key {
  double x, y, z;
  uint32_t i;
} del_key;

static int key_cmp(const void* a, const void* b) {
  const del_key* p = a;
  const del_key* q = b;
  if (p->x != q->x) return p->x < q->x ? -1 : 1;
  if (p->y != q->y) return p->y < q->y ? -1 : 1;
  if (p->z != q->z) return p->z < q->z ? -1 : 1;
  return p->i < q->i ? -1 : (p->i > q->i);
}

static int u32_cmp(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return x < y ? -1 : (x > y);
}

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

/* ---- graph: tet edges in CSR form over the welded points ---------------------------------------------- */
typedef struct del_graph {
  size_t n;            /* welded points */
  uint32_t* offsets;   /* n + 1 */
  uint32_t* neighbors; /* offsets[n] */
  float* length;       /* offsets[n] */
  uint8_t* in_mesh;    /* n: a corner of some tetrahedron */
} del_graph;

static void graph_free(del_graph* g) {
  free(g->offsets);
  free(g->neighbors);
  free(g->length);
  free(g->in_mesh);
  memset(g, 0, sizeof *g);
}

/* Tetrahedralizes coords (3 * n doubles, unit box) and fills g. Returns SKC_OK, SKC_OUT_OF_MEMORY, or
 * SKC_NO_SOLUTION (qhull could not build it; its messages are discarded). */
static int tetrahedralize(double* coords, size_t n, del_graph* g) {
  memset(g, 0, sizeof *g);
  g->n = n;
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
  int exitcode = qh_new_qhull(qh, 3, (int)n, coords, False, cmd, NULL, log);
  int rc = SKC_OK;
  if (exitcode) {
    rc = exitcode == qh_ERRmem ? SKC_OUT_OF_MEMORY : SKC_NO_SOLUTION;
  } else {
    g->offsets = calloc(n + 1, sizeof *g->offsets);
    g->in_mesh = calloc(n, 1);
    if (!g->offsets || !g->in_mesh) rc = SKC_OUT_OF_MEMORY;
  }
  /* two passes over the lower Delaunay facets (tetrahedra): count the corner pairs, then fill them */
  for (int pass = 0; pass < 2 && rc == SKC_OK; ++pass) {
    facetT* facet;
    FORALLfacets {
      if (facet->upperdelaunay) continue;
      uint32_t id[4];
      int k = 0;
      vertexT *vertex, **vertexp;
      FOREACHvertex_(facet->vertices) {
        int pid = qh_pointid(qh, vertex->point);
        if (k < 4 && pid >= 0 && (size_t)pid < n) id[k++] = (uint32_t)pid;
      }
      if (k != 4) continue; /* a facet through the point at infinity (Qz) or a malformed one */
      for (int a = 0; a < 4; ++a) {
        g->in_mesh[id[a]] = 1;
        for (int b = 0; b < 4; ++b) {
          if (a == b) continue;
          if (pass == 0)
            ++g->offsets[id[a] + 1];
          else
            g->neighbors[g->offsets[id[a]]++] = id[b];
        }
      }
    }
    if (pass == 0) {
      for (size_t i = 0; i < n; ++i) g->offsets[i + 1] += g->offsets[i];
      size_t m = g->offsets[n];
      g->neighbors = malloc((m ? m : 1) * sizeof *g->neighbors);
      if (!g->neighbors) rc = SKC_OUT_OF_MEMORY;
    } else {
      for (size_t i = n; i > 0; --i) g->offsets[i] = g->offsets[i - 1]; /* fill advanced each start to the end */
      g->offsets[0] = 0;
    }
  }
  int curlong = 0, totlong = 0;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  free(qh);
  fclose(log);
  free(log_text);
  if (rc) {
    graph_free(g);
    return rc;
  }
  /* sort and deduplicate each row (compacting in place), then the edge lengths */
  uint32_t w = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t e0 = g->offsets[i], e1 = g->offsets[i + 1];
    qsort(g->neighbors + e0, e1 - e0, sizeof *g->neighbors, u32_cmp);
    g->offsets[i] = w;
    for (uint32_t e = e0; e < e1; ++e)
      if (e == e0 || g->neighbors[e] != g->neighbors[e - 1]) g->neighbors[w++] = g->neighbors[e];
  }
  g->offsets[n] = w;
  g->length = malloc((w ? w : 1) * sizeof *g->length);
  if (!g->length) {
    graph_free(g);
    return SKC_OUT_OF_MEMORY;
  }
  for (size_t i = 0; i < n; ++i)
    for (uint32_t e = g->offsets[i]; e < g->offsets[i + 1]; ++e) {
      const double* p = coords + 3 * i;
      const double* q = coords + 3 * (size_t)g->neighbors[e];
      double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
      g->length[e] = (float)sqrt(dx * dx + dy * dy + dz * dz);
    }
  return SKC_OK;
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
    if (g->in_mesh[src_node[s]] && label_offer(L, src_node[s], src_bone[s], 0.0)) {
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

/* Number of distinct vertex positions (0 only when out of memory). */
static size_t distinct_positions(const float* positions, size_t n) {
  del_key* k = malloc(n * sizeof *k);
  if (!k) return 0;
  for (size_t v = 0; v < n; ++v) k[v] = (del_key){positions[3 * v], positions[3 * v + 1], positions[3 * v + 2], 0};
  qsort(k, n, sizeof *k, key_cmp);
  size_t c = 0;
  for (size_t i = 0; i < n; ++i) c += i == 0 || k[i].x != k[i - 1].x || k[i].y != k[i - 1].y || k[i].z != k[i - 1].z;
  free(k);
  return c;
}

/* ---- the method ---------------------------------------------------------------------------------------- */
int skc_bind_delaunay(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* report, skc_err* err) {
  const size_t n = d->vertex_count;
  const uint32_t nj = d->joint_count;
  /* bone samples: t = (i + 1/2) / count along each active bone; a point bone gets one */
  double diag = skc_bind_bbox_diag(d->positions, n);
  size_t distinct = distinct_positions(d->positions, n);
  if (distinct == 0) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind (delaunay): out of memory for %zu vertices", n);
  double spacing = diag / sqrt((double)distinct); /* welded: split normals or UVs do not change the sampling */
  size_t sample_total = 0;
  uint32_t* samples = malloc(nj * sizeof *samples);
  if (!samples) return skc_fail(err, SKC_OUT_OF_MEMORY, "bind (delaunay): out of memory");
  for (uint32_t j = 0; j < nj; ++j) {
    samples[j] = 0;
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
    samples[j] = c;
    sample_total += c;
  }
  const size_t total = n + sample_total;
  del_key* keys = malloc(total * sizeof *keys);
  uint32_t* uid = malloc(total * sizeof *uid);              /* point (vertex or sample) -> welded node */
  uint32_t* sample_bone = malloc((sample_total ? sample_total : 1) * sizeof *sample_bone);
  double* coords = malloc(3 * total * sizeof *coords);      /* welded nodes, unit box */
  uint8_t* fallback = calloc(n, 1);
  del_labels L = {0};
  del_graph g = {0};
  int rc = SKC_OK;
  if (!keys || !uid || !sample_bone || !coords || !fallback) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind (delaunay): out of memory for %zu points", total);
    goto done;
  }
  for (size_t v = 0; v < n; ++v) {
    keys[v].x = d->positions[3 * v];
    keys[v].y = d->positions[3 * v + 1];
    keys[v].z = d->positions[3 * v + 2];
    keys[v].i = (uint32_t)v;
  }
  size_t s = 0;
  for (uint32_t j = 0; j < nj; ++j)
    for (uint32_t i = 0; i < samples[j]; ++i, ++s) {
      double t = samples[j] == 1 ? 0.0 : ((double)i + 0.5) / (double)samples[j];
      double p[3];
      for (int k = 0; k < 3; ++k) p[k] = d->heads[3 * j + k] + t * ((double)d->tails[3 * j + k] - d->heads[3 * j + k]);
      keys[n + s] = (del_key){p[0], p[1], p[2], (uint32_t)(n + s)};
      sample_bone[s] = j;
    }
  /* weld identical points, centre and scale into the unit box */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < total; ++i) {
    double p[3] = {keys[i].x, keys[i].y, keys[i].z};
    for (int k = 0; k < 3; ++k) {
      if (p[k] < lo[k]) lo[k] = p[k];
      if (p[k] > hi[k]) hi[k] = p[k];
    }
  }
  double extent = 0.0;
  for (int k = 0; k < 3; ++k) extent = hi[k] - lo[k] > extent ? hi[k] - lo[k] : extent;
  qsort(keys, total, sizeof *keys, key_cmp);
  size_t nodes = 0;
  for (size_t i = 0; i < total; ++i) {
    const del_key* k = keys + i;
    if (i == 0 || k->x != k[-1].x || k->y != k[-1].y || k->z != k[-1].z) {
      double p[3] = {k->x, k->y, k->z};
      for (int c = 0; c < 3; ++c)
        coords[3 * nodes + c] =
            extent > 0.0 ? (p[c] - 0.5 * (lo[c] + hi[c])) / extent + jitter(3 * nodes + (size_t)c) : 0.0;
      ++nodes;
    }
    uid[k->i] = (uint32_t)(nodes - 1);
  }
  int qrc = SKC_NO_SOLUTION; /* fewer than 5 distinct points (bone samples included): no tetrahedra to speak of */
  if (nodes >= 5 && extent > 0.0 && nodes < (size_t)INT32_MAX) qrc = tetrahedralize(coords, nodes, &g);
  if (qrc == SKC_OUT_OF_MEMORY) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind (delaunay): out of memory in the tetrahedralization");
    goto done;
  }
  if (qrc == SKC_OK) {
    L.k = out->stride;
    L.count = calloc(nodes, sizeof *L.count);
    L.bone = malloc(nodes * L.k * sizeof *L.bone);
    L.dist = malloc(nodes * L.k * sizeof *L.dist);
    uint32_t* src_node = uid + n; /* the samples' nodes, in sample order */
    if (!L.count || !L.bone || !L.dist || nearest_bones(&g, src_node, sample_bone, sample_total, &L)) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind (delaunay): out of memory for the graph search");
      goto done;
    }
  }
  const double power = d->falloff_power, cutoff = d->falloff_cutoff, eps = 1e-7;
  uint64_t fell_back = 0;
  for (size_t v = 0; v < n; ++v) {
    if (d->vertex_mask && !d->vertex_mask[v]) continue;
    out->count[v] = 0;
    uint32_t u = uid[v];
    if (qrc != SKC_OK || !g.in_mesh[u] || L.count[u] == 0) {
      fallback[v] = 1;
      ++fell_back;
      continue;
    }
    const uint32_t* b = L.bone + (size_t)u * L.k;
    const double* x = L.dist + (size_t)u * L.k;
    double dmin = x[0] > eps ? x[0] : eps;
    for (uint32_t i = 0; i < L.count[u]; ++i) {
      double dj = x[i] > eps ? x[i] : eps;
      double f = falloff(dj / dmin, cutoff);
      if (f > 0.0) skc_bind_cands_offer(out, v, b[i], (float)(f * pow(dmin / dj, power)));
    }
    if (out->count[v] == 0) skc_bind_cands_offer(out, v, b[0], 1.0f);
  }
  if (fell_back) {
    skc_bind_desc nd = *d;
    nd.rigid = 0;
    rc = skc_bind_nearest(&nd, fallback, out, err);
    if (rc) goto done;
  }
  if (report) {
    report->method_used = qrc == SKC_OK ? SKC_BIND_DELAUNAY : SKC_BIND_NEAREST;
    report->fallback_vertices = fell_back;
  }
done:
  free(samples);
  free(keys);
  free(uid);
  free(sample_bone);
  free(coords);
  free(fallback);
  free(L.count);
  free(L.bone);
  free(L.dist);
  graph_free(&g);
  return rc;
}
