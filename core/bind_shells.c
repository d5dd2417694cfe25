/* bind_shells.c - closed shells of a welded mesh, so that boxes which only touch stay apart (skc_bind_split_shells).
 *
 * A triangle soup (every corner its own vertex: b3d/character.b3d, FBX edits) has no closed surface before welding,
 * so skc_bind_weld_surfaces joins every copy at a position, and a character of touching boxes (body, arms, legs and
 * head each a closed box, corners shared) binds as one surface: heat flows from the body into the arms across their
 * shared edges. The shells are found over the welded positions instead: the triangles at an edge (its two ends'
 * welded positions) pair up as a closed surface's would. Two there are one shell whatever their turn; four or more
 * (boxes sharing an edge) are ordered by their angle around the edge, and each triangle whose winding faces it back
 * (its inside lies ahead in that order) pairs with the next one, which must face the other way: the pairs enclose
 * each solid's own wedge, as the solids were built. A shell all of whose edges paired is closed. Where copies of two
 * different closed shells share a position, those shells only touch there: they are not joined. Everything else
 * keeps the joins it had (seams of one shell, open surfaces, a shell touching itself).
 *
 * Angles and windings come from the welded positions (the lowest copy's), so moving the mesh changes them by its
 * rounding only; faces within EDGE_TIE radians count as coincident (boxes sharing a face), where the one facing
 * forward goes first, so that each box's wedge stays its own. */
#include <math.h>
#include <stdlib.h>

#include "skc_bind.h"
#include "skc_uf.h"

#define EDGE_MAX 16   /* triangles at one edge paired at most (more: left open, a hostile file's fan stays cheap) */
#define EDGE_TIE 1e-3 /* faces at an edge this close in angle (radians) are coincident */
#define SHELL_PI 3.14159265358979323846

/* A triangle t at a welded edge lo < hi (lowest copies), which it runs from lo to hi (fwd) or back; c: its third
 * corner's welded position. */
typedef struct shell_edge {
  uint64_t key;
  uint32_t t, c, fwd;
} shell_edge;

static int shell_edge_cmp(const void* a, const void* b) {
  const shell_edge *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->t > y->t) - (x->t < y->t);
}

/* Whether triangle t's corners are three different welded positions (r: those). */
static int tri_welded(size_t n, const uint32_t* tri, size_t t, const uint32_t* wrep, uint32_t r[3]) {
  const uint32_t* v = tri + 3 * t;
  if (v[0] >= n || v[1] >= n || v[2] >= n) return 0;
  r[0] = wrep[v[0]], r[1] = wrep[v[1]], r[2] = wrep[v[2]];
  return r[0] != r[1] && r[1] != r[2] && r[0] != r[2];
}

/* Edges of one lower end (a bucket, in triangle order) sorted by their other end, then triangle. */
static void sort_bucket(shell_edge* e, size_t k) {
  if (k > 32) {
    qsort(e, k, sizeof *e, shell_edge_cmp);
    return;
  }
  for (size_t i = 1; i < k; ++i) /* insertion sort: stable, so the triangles stay in order */
    for (size_t j = i; j > 0 && e[j].key < e[j - 1].key; --j) {
      const shell_edge s = e[j];
      e[j] = e[j - 1], e[j - 1] = s;
    }
}

/* The edges of the triangles whose corners are three different welded positions, sorted by (key, t), into *out
 * (*count); tri_ok[t]. Bucketed by the lower end first (linear: with a qsort of all of them, CesiumMan_subdiv2's
 * weld took 139 ms instead of 22). */
static int shell_edges(size_t n, const uint32_t* tri, size_t nt, const uint32_t* wrep, uint8_t* tri_ok,
                       shell_edge** out, size_t* count) {
  size_t* at = calloc(n + 1, sizeof *at); /* the first slot of the edges whose lower end is v */
  shell_edge* e = malloc((nt ? 3 * nt : 1) * sizeof *e);
  if (!at || !e) {
    free(at), free(e);
    return SKC_OUT_OF_MEMORY;
  }
  uint32_t r[3];
  for (size_t t = 0; t < nt; ++t) {
    tri_ok[t] = (uint8_t)tri_welded(n, tri, t, wrep, r);
    for (int k = 0; tri_ok[t] && k < 3; ++k) at[(r[k] < r[(k + 1) % 3] ? r[k] : r[(k + 1) % 3]) + 1]++;
  }
  for (size_t v = 0; v < n; ++v) at[v + 1] += at[v];
  const size_t m = at[n];
  for (size_t t = 0; t < nt; ++t) {
    if (!tri_ok[t] || !tri_welded(n, tri, t, wrep, r)) continue;
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = r[k], b = r[(k + 1) % 3];
      const uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
      e[at[a < b ? a : b]++] = (shell_edge){key, (uint32_t)t, r[(k + 2) % 3], a < b};
    }
  }
  for (size_t v = 0, from = 0; v < n; from = at[v++]) sort_bucket(e + from, at[v] - from);
  free(at);
  *out = e;
  *count = m;
  return SKC_OK;
}

/* The angles of the k triangles at edge e[0].key around it (a frame fixed by the edge's direction alone). */
static void edge_angles(const float* p, const shell_edge* e, size_t k, double* angle) {
  const float *a = p + 3 * (size_t)(e[0].key >> 32), *b = p + 3 * (size_t)(uint32_t)e[0].key;
  double u[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
  const double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for (int q = 0; q < 3; ++q) u[q] /= ul > 0.0 ? ul : 1.0;
  int low = 0; /* the axis least along the edge */
  for (int q = 1; q < 3; ++q) low = fabs(u[q]) < fabs(u[low]) ? q : low;
  double x[3] = {0, 0, 0}, e1[3], e2[3];
  x[low] = 1.0;
  e1[0] = u[1] * x[2] - u[2] * x[1], e1[1] = u[2] * x[0] - u[0] * x[2], e1[2] = u[0] * x[1] - u[1] * x[0];
  e2[0] = u[1] * e1[2] - u[2] * e1[1], e2[1] = u[2] * e1[0] - u[0] * e1[2], e2[2] = u[0] * e1[1] - u[1] * e1[0];
  for (size_t i = 0; i < k; ++i) {
    const float* c = p + 3 * (size_t)e[i].c;
    const double w[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
    const double t = atan2(w[0] * e2[0] + w[1] * e2[1] + w[2] * e2[2], w[0] * e1[0] + w[1] * e1[1] + w[2] * e1[2]);
    angle[i] = t < EDGE_TIE - SHELL_PI ? t + 2.0 * SHELL_PI : t; /* a face at -pi lies at pi, tied with one there */
  }
}

/* Whether f goes before g around the edge: by angle; coincident faces with the forward one (its inside behind it)
 * first. */
static int goes_before(const shell_edge* f, double fa, const shell_edge* g, double ga) {
  if (fabs(fa - ga) > EDGE_TIE) return fa < ga;
  return f->fwd > g->fwd;
}

/* Pairs the k (4 .. EDGE_MAX, even) triangles at one edge by their order around it: each backward one (its inside
 * ahead) with the next, forward, one. 0 when the windings do not alternate (then the edge stays open). */
static int pair_around(const float* p, shell_edge* e, size_t k, uint32_t* shell) {
  double angle[EDGE_MAX];
  edge_angles(p, e, k, angle);
  for (size_t i = 1; i < k; ++i) /* insertion sort: goes_before is no strict order across ties */
    for (size_t j = i; j > 0 && goes_before(e + j, angle[j], e + j - 1, angle[j - 1]); --j) {
      const shell_edge s = e[j];
      const double a = angle[j];
      e[j] = e[j - 1], e[j - 1] = s;
      angle[j] = angle[j - 1], angle[j - 1] = a;
    }
  const size_t start = e[0].fwd ? 1 : 0; /* the first backward one */
  for (size_t i = 0; i < k; ++i)
    if (e[(start + i) % k].fwd != (i & 1)) return 0;
  for (size_t i = 0; i < k; i += 2) skc_uf_join_low(shell, e[(start + i) % k].t, e[(start + i + 1) % k].t);
  return 1;
}

/* Shells over the triangles (shell: union-find, nt) and open[t] for a triangle at an edge that did not pair. */
static void pair_edges(const float* p, shell_edge* e, size_t m, uint32_t* shell, uint8_t* open) {
  for (size_t i = 0, j; i < m; i = j) {
    for (j = i + 1; j < m && e[j].key == e[i].key;) ++j;
    const size_t k = j - i;
    int paired = 0;
    if (k == 2) {
      skc_uf_join_low(shell, e[i].t, e[i + 1].t);
      paired = 1;
    } else if (k >= 4 && k <= EDGE_MAX && !(k & 1)) {
      paired = pair_around(p, e + i, k, shell);
    }
    for (size_t q = i; !paired && q < j; ++q) open[e[q].t] = 1;
  }
}

/* closed[v]: 1 + the root triangle of the closed shell v lies on; 0 on none, on an open one, or on two. */
static void vertex_shells(size_t n, const uint32_t* tri, size_t nt, const uint8_t* tri_ok, uint32_t* shell,
                          uint8_t* open, uint32_t* closed) {
  for (size_t t = 0; t < nt; ++t) { /* an open triangle opens its shell */
    if (!tri_ok[t] || !open[t]) continue;
    const uint32_t r = skc_uf_find(shell, (uint32_t)t);
    if (r != t) open[r] = 1;
  }
  for (size_t v = 0; v < n; ++v) closed[v] = UINT32_MAX;
  for (size_t t = 0; t < nt; ++t) {
    if (!tri_ok[t]) continue;
    const uint32_t r = skc_uf_find(shell, (uint32_t)t), id = open[r] ? 0 : r + 1;
    for (int k = 0; k < 3; ++k) {
      uint32_t* c = closed + tri[3 * t + (size_t)k];
      *c = *c == UINT32_MAX || *c == id ? id : 0;
    }
  }
  for (size_t v = 0; v < n; ++v) closed[v] = closed[v] == UINT32_MAX ? 0 : closed[v];
}

/* A copy v by its joined position (rep), its closed shell (or 0) and itself. */
typedef struct shell_copy {
  uint32_t rep, shell, v;
} shell_copy;

static int shell_copy_cmp(const void* a, const void* b) {
  const shell_copy *x = a, *y = b;
  if (x->rep != y->rep) return x->rep < y->rep ? -1 : 1;
  if (x->shell != y->shell) return x->shell < y->shell ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v);
}

/* rep split where copies of two closed shells meet: each group (position, shell) led by its lowest copy (copies
 * on no closed shell there are one group too). */
static int split_groups(size_t n, const uint32_t* closed, uint32_t* rep) {
  uint32_t* seen = calloc(n ? n : 1, sizeof *seen); /* per position: its first closed shell, UINT32_MAX: two */
  if (!seen) return SKC_OUT_OF_MEMORY;
  for (size_t v = 0; v < n; ++v)
    if (closed[v]) {
      uint32_t* s = seen + rep[v];
      *s = !*s || *s == closed[v] ? closed[v] : UINT32_MAX;
    }
  size_t m = 0; /* only positions with two closed shells are split: a mesh without any pays one pass */
  for (size_t v = 0; v < n; ++v) m += seen[rep[v]] == UINT32_MAX;
  shell_copy* c = m ? malloc(m * sizeof *c) : NULL;
  if (m && !c) {
    free(seen);
    return SKC_OUT_OF_MEMORY;
  }
  m = 0;
  for (size_t v = 0; c && v < n; ++v)
    if (seen[rep[v]] == UINT32_MAX) c[m++] = (shell_copy){rep[v], closed[v], (uint32_t)v};
  free(seen);
  if (c) qsort(c, m, sizeof *c, shell_copy_cmp);
  for (size_t k = 0; k < m; ++k) { /* each (position, shell) led by its lowest copy */
    const int same = k > 0 && c[k - 1].rep == c[k].rep && c[k - 1].shell == c[k].shell;
    rep[c[k].v] = same ? rep[c[k - 1].v] : c[k].v;
  }
  free(c);
  return SKC_OK;
}

int skc_bind_split_shells(const float* p, size_t n, const uint32_t* tri, size_t nt, const uint32_t* wrep,
                          uint32_t* rep) {
  if (!tri || !nt || nt >= UINT32_MAX) return SKC_OK; /* (triangles are numbered in 32 bits) */
  uint32_t* shell = malloc(nt * sizeof *shell);
  uint8_t* tri_ok = malloc(2 * nt);
  uint32_t* closed = malloc((n ? n : 1) * sizeof *closed);
  shell_edge* e = NULL;
  size_t m = 0;
  int rc = shell && tri_ok && closed ? shell_edges(n, tri, nt, wrep, tri_ok, &e, &m) : SKC_OUT_OF_MEMORY;
  if (!rc) {
    uint8_t* open = tri_ok + nt;
    for (size_t t = 0; t < nt; ++t) shell[t] = (uint32_t)t, open[t] = 0;
    pair_edges(p, e, m, shell, open);
    vertex_shells(n, tri, nt, tri_ok, shell, open, closed);
    rc = split_groups(n, closed, rep);
  }
  free(shell), free(tri_ok), free(closed), free(e);
  return rc;
}
