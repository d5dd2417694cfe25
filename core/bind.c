/* bind.c - automatic binding: validation, bone segments, candidate lists and the common finishing pass
 * (relative prune, influence limit, exact normalization, locked joints, vertex mask) shared by every method. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skc_bind.h"
#include "skc_mem.h"
#include "skc_uf.h"

#define BIND_MAX_INFLUENCES 255u

int skc_bind_cands_init(skc_bind_cands* c, size_t vertex_count, uint32_t stride, skc_err* err) {
  memset(c, 0, sizeof *c);
  c->vertex_count = vertex_count;
  c->stride = stride;
  c->count = skc_calloc_big(vertex_count, sizeof *c->count);
  c->joints = skc_malloc_big(vertex_count * stride * sizeof *c->joints);
  c->weights = skc_malloc_big(vertex_count * stride * sizeof *c->weights);
  c->fallback = calloc(vertex_count ? vertex_count : 1, 1);
  if (!c->count || !c->joints || !c->weights || !c->fallback) {
    skc_bind_cands_free(c);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu x %u binding candidates", vertex_count, stride);
  }
  return SKC_OK;
}

void skc_bind_cands_free(skc_bind_cands* c) {
  free(c->count);
  free(c->joints);
  free(c->weights);
  free(c->fallback);
  memset(c, 0, sizeof *c);
}

void skc_bind_cands_offer(skc_bind_cands* c, size_t v, uint32_t joint, float w) {
  if (!(w > 0.0f) || !isfinite(w)) return;
  uint32_t n = c->count[v], s = c->stride;
  uint32_t* j = c->joints + v * s;
  float* x = c->weights + v * s;
  if (n == s && w <= x[n - 1]) return;
  uint32_t i = n < s ? n : s - 1; /* slot to fill, then bubble up */
  while (i > 0 && x[i - 1] < w) {
    x[i] = x[i - 1];
    j[i] = j[i - 1];
    --i;
  }
  x[i] = w;
  j[i] = joint;
  if (n < s) c->count[v] = n + 1;
}

/* An edge of a triangle t by its vertices (lower << 32 | higher). */
typedef struct tri_edge {
  uint64_t key;
  uint32_t t;
} tri_edge;

static int tri_edge_cmp(const void* a, const void* b) {
  const uint64_t x = ((const tri_edge*)a)->key, y = ((const tri_edge*)b)->key;
  return (x > y) - (x < y);
}

/* An open edge (one triangle, t) of the unwelded mesh by the positions of its ends: pa <= pb are their lowest copies
 * (skc_bind_weld), a and b the vertices there. */
typedef struct open_edge {
  uint32_t pa, pb, a, b, t;
} open_edge;

static int open_edge_cmp(const void* x, const void* y) {
  const open_edge *e = x, *f = y;
  if (e->pa != f->pa) return e->pa < f->pa ? -1 : 1;
  return (e->pb > f->pb) - (e->pb < f->pb);
}

/* The open edges with an end that has copies (cand), into *out (malloc'd; *count of them); used[v] = 1 for a vertex
 * on such a triangle. */
static int open_edges(size_t n, const uint32_t* tri, size_t nt, const uint32_t* rep, const uint8_t* cand, uint8_t* used,
                      open_edge** out, size_t* count) {
  size_t ne = 0;
  for (size_t t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = tri[3 * t + k];
      if (a < n && cand[a]) ne += 2, used[a] = 1;
    }
  tri_edge* key = malloc((ne ? ne : 1) * sizeof *key);
  open_edge* e = malloc((ne ? ne : 1) * sizeof *e);
  if (!key || !e) {
    free(key), free(e);
    return SKC_OUT_OF_MEMORY;
  }
  ne = 0;
  for (size_t t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const uint32_t a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
      if (a >= n || b >= n || a == b || !(cand[a] || cand[b])) continue;
      key[ne++] = (tri_edge){a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a, (uint32_t)t};
    }
  qsort(key, ne, sizeof *key, tri_edge_cmp);
  size_t m = 0;
  for (size_t i = 0, j; i < ne; i = j) {
    for (j = i + 1; j < ne && key[j].key == key[i].key;) ++j;
    const uint32_t a = (uint32_t)(key[i].key >> 32), b = (uint32_t)key[i].key, t = key[i].t;
    if (j - i != 1 || rep[a] == rep[b]) continue;
    e[m++] = rep[a] < rep[b] ? (open_edge){rep[a], rep[b], a, b, t} : (open_edge){rep[b], rep[a], b, a, t};
  }
  free(key);
  *out = e;
  *count = m;
  return SKC_OK;
}

/* Whether triangles s and t turn less than 120 degrees from each other: the two sides of a cut surface (a UV seam's
 * at most a hard edge's right angle apart), not two shells touching back to back. */
static int same_side(const float* p, const uint32_t* tri, uint32_t s, uint32_t t) {
  double nrm[2][3];
  const uint32_t which[2] = {s, t};
  for (int k = 0; k < 2; ++k) {
    const uint32_t* v = tri + 3 * (size_t)which[k];
    const float *a = p + 3 * (size_t)v[0], *b = p + 3 * (size_t)v[1], *c = p + 3 * (size_t)v[2];
    const double u[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
    const double w[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
    nrm[k][0] = u[1] * w[2] - u[2] * w[1], nrm[k][1] = u[2] * w[0] - u[0] * w[2], nrm[k][2] = u[0] * w[1] - u[1] * w[0];
  }
  const double d = nrm[0][0] * nrm[1][0] + nrm[0][1] * nrm[1][1] + nrm[0][2] * nrm[1][2];
  const double l = sqrt((nrm[0][0] * nrm[0][0] + nrm[0][1] * nrm[0][1] + nrm[0][2] * nrm[0][2]) *
                        (nrm[1][0] * nrm[1][0] + nrm[1][1] * nrm[1][1] + nrm[1][2] * nrm[1][2]));
  return !(l > 0.0) || d >= -0.5 * l;
}

/* touch[] also where an open copy faces away from the first open copy at its position (vertex normals from their own
 * triangles more than 120 degrees apart: an open tube's rim against another's, which share no edge). first: n
 * scratch. */
static int opposed_copies(const float* p, size_t n, const uint32_t* tri, size_t nt, const uint32_t* rep,
                          const uint8_t* open, uint32_t* first, uint8_t* touch) {
  float* nrm = calloc(3 * n, sizeof *nrm);
  if (!nrm) return SKC_OUT_OF_MEMORY;
  for (size_t t = 0; t < nt; ++t) {
    const uint32_t* v = tri + 3 * t;
    if (v[0] >= n || v[1] >= n || v[2] >= n || !(open[v[0]] || open[v[1]] || open[v[2]])) continue;
    const float *a = p + 3 * (size_t)v[0], *b = p + 3 * (size_t)v[1], *c = p + 3 * (size_t)v[2];
    const float u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const float cr[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    for (int k = 0; k < 3; ++k)
      for (int q = 0; q < 3; ++q) nrm[3 * (size_t)v[k] + q] += cr[q];
  }
  for (size_t v = 0; v < n; ++v) first[v] = UINT32_MAX;
  for (size_t v = 0; v < n; ++v) {
    if (!open[v]) continue;
    const uint32_t r = rep[v];
    if (first[r] == UINT32_MAX) {
      first[r] = (uint32_t)v;
      continue;
    }
    const float *x = nrm + 3 * (size_t)first[r], *y = nrm + 3 * v;
    const double d = (double)x[0] * y[0] + (double)x[1] * y[1] + (double)x[2] * y[2];
    const double l = sqrt(((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]) *
                          ((double)y[0] * y[0] + (double)y[1] * y[1] + (double)y[2] * y[2]));
    if (l > 0.0 && d < -0.5 * l) touch[r] = 1;
  }
  free(nrm);
  return SKC_OK;
}

/* Open edges at the same two positions (sorted runs of e). Two alone there are one surface whatever their angle: a
 * seam, a crease a corner-split mesh (an FBX edit's, one vertex per face corner) leaves open, a face turned the wrong
 * way; they join in up. Among more, the sides of a cut (same_side) join; two that meet back to back mark both
 * positions in touch[] (two shells that touch there, each cut along the same line, not one surface). */
static void match_open_edges(const float* p, const uint32_t* tri, const open_edge* e, size_t m, uint32_t* up,
                             uint8_t* touch) {
  for (size_t i = 0, j; i < m; i = j)
    for (j = i + 1; j < m && e[j].pa == e[i].pa && e[j].pb == e[i].pb; ++j) {
      if (j == i + 1 && (j + 1 == m || e[j + 1].pa != e[i].pa || e[j + 1].pb != e[i].pb)) {
        skc_uf_join_low(up, e[i].a, e[j].a);
        skc_uf_join_low(up, e[i].b, e[j].b);
        continue;
      }
      int joined = 0;
      for (size_t k = i; k < j && k < i + 8; ++k) /* (a cut has 2 sides, a hostile file many: bounded) */
        if (same_side(p, tri, e[k].t, e[j].t)) {
          skc_uf_join_low(up, e[k].a, e[j].a);
          skc_uf_join_low(up, e[k].b, e[j].b);
          joined = 1;
          break;
        }
      if (!joined) touch[e[i].pa] = touch[e[i].pb] = 1;
    }
}

/* The copies' final reps from the flags (cand, used, open, touch: n bytes each), the cut sides joined in up and
 * first (n scratch). */
static void join_copies(size_t n, const uint8_t* flags, uint32_t* up, uint32_t* first, uint32_t* rep) {
  const uint8_t *cand = flags, *used = flags + n, *open = flags + 2 * n, *touch = flags + 3 * n;
  for (size_t v = 0; v < n; ++v) first[v] = UINT32_MAX;
  for (size_t v = 0; v < n; ++v) {
    const uint32_t r = rep[v];
    if (!cand[v]) continue;
    if (used[v] && !open[v]) { /* inside a closed surface: nothing of it was cut, it only touches the others */
      rep[v] = (uint32_t)v;
    } else if (used[v] && touch[r]) { /* where shells touch: only the sides of a cut join */
      rep[v] = skc_uf_find(up, (uint32_t)v);
    } else { /* a cut (seam, hard edge, soup) or a vertex on no triangle: every such copy, as skc_bind_weld */
      if (first[r] == UINT32_MAX) first[r] = (uint32_t)v;
      rep[v] = first[r];
    }
  }
}

int skc_bind_weld_surfaces(const float* p, size_t n, const uint32_t* tri, size_t nt, uint32_t* rep) {
  if (skc_bind_weld(p, n, rep)) return SKC_OUT_OF_MEMORY;
  size_t copies = 0;
  for (size_t v = 0; v < n; ++v) copies += rep[v] != v;
  if (!copies || !tri || !nt) return SKC_OK;
  uint32_t* wrep = malloc(n * sizeof *wrep); /* the positions' welds, for the shells (skc_bind_split_shells) */
  if (!wrep) return SKC_OUT_OF_MEMORY;
  memcpy(wrep, rep, n * sizeof *wrep);
  /* cand: v has copies; used: v is on a triangle; open: on an open edge; touch: shells meet at its position */
  uint8_t* flags = calloc(n, 4);
  uint8_t *cand = flags, *used = flags + n, *open = flags + 2 * n, *touch = flags + 3 * n;
  uint32_t* up = malloc(n * sizeof *up);
  uint32_t* first = malloc(n * sizeof *first); /* per position (its lowest copy): the first copy that may join */
  open_edge* e = NULL;
  size_t m = 0;
  int rc = flags && up && first ? SKC_OK : SKC_OUT_OF_MEMORY;
  for (size_t v = 0; !rc && v < n; ++v)
    if (rep[v] != v) cand[v] = cand[rep[v]] = 1;
  if (!rc) rc = open_edges(n, tri, nt, rep, cand, used, &e, &m);
  if (!rc) {
    for (size_t v = 0; v < n; ++v) up[v] = (uint32_t)v;
    for (size_t i = 0; i < m; ++i) open[e[i].a] = open[e[i].b] = 1;
    qsort(e, m, sizeof *e, open_edge_cmp);
    match_open_edges(p, tri, e, m, up, touch);
    rc = opposed_copies(p, n, tri, nt, rep, open, first, touch);
  }
  if (!rc) join_copies(n, flags, up, first, rep);
  if (!rc) rc = skc_bind_split_shells(p, n, tri, nt, wrep, rep);
  free(flags), free(up), free(first), free(e), free(wrep);
  return rc;
}

int skc_bind_joint_active(const skc_bind_desc* d, uint32_t j) {
  return (!d->deform || d->deform[j]) && !(d->locked && d->locked[j]);
}

double skc_bind_bbox_diag(const float* positions, size_t n) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t v = 0; v < n; ++v)
    for (int k = 0; k < 3; ++k) {
      double x = positions[3 * v + k];
      if (x < lo[k]) lo[k] = x;
      if (x > hi[k]) hi[k] = x;
    }
  if (n == 0) return 0.0;
  double s = 0.0;
  for (int k = 0; k < 3; ++k) s += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  return sqrt(s);
}

/* Unit direction of joint j's signed local axis (0..5: +X +Y +Z -X -Y -Z) in the rest pose; 0 when degenerate. */
static int axis_dir(const skc_skeleton* s, uint32_t j, int axis, double out[3]) {
  const float* col = s->rest_world + 16 * (size_t)j + 4 * (axis % 3);
  double sign = axis < 3 ? 1.0 : -1.0, len2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    out[k] = sign * col[k];
    len2 += out[k] * out[k];
  }
  if (!(len2 > 1e-20)) return 0;
  for (int k = 0; k < 3; ++k) out[k] /= sqrt(len2);
  return 1;
}

/* What says which way joint j's bone points, into d: its stored tail (s->tail_local) minus its head, else its only
 * child's head minus its head. 0 when neither (or they coincide). */
static int bone_evidence(const skc_skeleton* s, const float* heads, uint32_t j, double d[3]) {
  float tail[3];
  if (skc_skeleton_has_tail(s, j)) {
    skc_mat4_transform_point(s->rest_world + 16 * (size_t)j, s->tail_local + 3 * (size_t)j, tail);
  } else {
    uint32_t kids = 0, child = 0;
    for (uint32_t c = j + 1; c < s->joint_count && kids < 2; ++c)
      if (s->parents[c] == (int32_t)j) child = c, ++kids;
    if (kids != 1) return 0;
    memcpy(tail, heads + 3 * (size_t)child, sizeof tail);
  }
  double len2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    d[k] = (double)tail[k] - heads[3 * (size_t)j + k];
    len2 += d[k] * d[k];
  }
  return len2 > 0.0;
}

/* The skeleton's bone axis: the signed local axis that points along the bone (bone_evidence: at the stored tail or
 * the only child, within 8 degrees) in at least 75 % of the joints that say, at least 3 of them; -1 when none does.
 * Blender's bones point along +Y (its FBX, glTF and Collada exports keep that), Maya's and 3ds Max's joints usually
 * along +X. A Blender FBX's "_end" leaf bones are left out of bind's view (no skin lists them), which leaves fewer
 * joints with one child; the tails they give the leaves count instead. */
static int bone_axis(const skc_skeleton* s, const float* heads) {
  uint32_t n = s->joint_count, hits[6] = {0}, single = 0;
  for (uint32_t j = 0; j < n; ++j) {
    double d[3], u[3];
    if (!bone_evidence(s, heads, j, d)) continue;
    const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    ++single;
    for (int a = 0; a < 6; ++a)
      if (axis_dir(s, j, a, u) && (u[0] * d[0] + u[1] * d[1] + u[2] * d[2]) > 0.99 * len) ++hits[a];
  }
  for (int a = 0; a < 6; ++a)
    if (single >= 3 && 4 * hits[a] >= 3 * single) return a;
  return -1;
}

/* How far joint j's child most in line with direction d (length dlen) reaches along it; 0 when no child lies
 * ahead. */
static double reach_in_line(const skc_skeleton* s, const float* heads, uint32_t j, const double d[3], double dlen) {
  double ahead = 0.0, best_cos = -1.0;
  const float* h = heads + 3 * (size_t)j;
  for (uint32_t c = j + 1; c < s->joint_count; ++c) {
    if (s->parents[c] != (int32_t)j) continue;
    double e[3] = {(double)heads[3 * c] - h[0], (double)heads[3 * c + 1] - h[1], (double)heads[3 * c + 2] - h[2]};
    double along = (d[0] * e[0] + d[1] * e[1] + d[2] * e[2]) / dlen, e2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    double cosine = e2 > 0.0 ? along / sqrt(e2) : -1.0;
    if (along > 0.0 && cosine > best_cos) best_cos = cosine, ahead = along;
  }
  return ahead;
}

/* Joint j's tail along the skeleton's bone axis: as far as the child most in line with the axis reaches along it
 * (a hip reaches for its spine, not its legs), else the nearest child's distance; a leaf as long as the distance
 * to its parent's head. Returns 0 when there is no length to take (a root without children) or the axis is
 * degenerate. */
static int tail_on_axis(const skc_skeleton* s, const float* heads, uint32_t j, int axis, float* tail) {
  double u[3], near2 = INFINITY, len = 0.0;
  if (!axis_dir(s, j, axis, u)) return 0;
  const float* h = heads + 3 * (size_t)j;
  double ahead = reach_in_line(s, heads, j, u, 1.0);
  for (uint32_t c = j + 1; c < s->joint_count; ++c) {
    if (s->parents[c] != (int32_t)j) continue;
    double d[3] = {(double)heads[3 * c] - h[0], (double)heads[3 * c + 1] - h[1], (double)heads[3 * c + 2] - h[2]};
    double e2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (e2 < near2) near2 = e2;
  }
  if (ahead > 0.0) len = ahead;
  else if (near2 < INFINITY) len = sqrt(near2);
  else if (s->parents[j] >= 0) {
    const float* ph = heads + 3 * (size_t)s->parents[j];
    len = sqrt(((double)h[0] - ph[0]) * ((double)h[0] - ph[0]) + ((double)h[1] - ph[1]) * ((double)h[1] - ph[1]) +
               ((double)h[2] - ph[2]) * ((double)h[2] - ph[2]));
  }
  if (!(len > 0.0)) return 0;
  for (int k = 0; k < 3; ++k) tail[k] = (float)(h[k] + u[k] * len);
  return 1;
}

/* Without a bone axis: towards the children's average head as far as the child most in line with that direction
 * reaches along it (a body joint whose legs and arms start beside it reaches its neck, not a hip), else as far as
 * the nearest child (the average itself when it or a child coincides with the head); the only child's head; or a
 * leaf's parent direction. */
static void tail_from_children(const skc_skeleton* s, const float* heads, uint32_t j, float* tail) {
  uint32_t n = s->joint_count, kids = 0;
  double sum[3] = {0, 0, 0};
  for (uint32_t c = j + 1; c < n; ++c)
    if (s->parents[c] == (int32_t)j) {
      for (int k = 0; k < 3; ++k) sum[k] += heads[3 * c + k];
      ++kids;
    }
  const float* h = heads + 3 * (size_t)j;
  if (kids > 1) { /* towards the children's average head */
    double dir[3], len2 = 0.0, near2 = INFINITY;
    for (int k = 0; k < 3; ++k) {
      dir[k] = sum[k] / kids - h[k];
      len2 += dir[k] * dir[k];
    }
    for (uint32_t c = j + 1; c < n; ++c) {
      if (s->parents[c] != (int32_t)j) continue;
      double e2 = 0.0;
      for (int k = 0; k < 3; ++k) {
        double e = (double)heads[3 * c + k] - h[k];
        e2 += e * e;
      }
      if (e2 < near2) near2 = e2;
    }
    double ahead = len2 > 0.0 ? reach_in_line(s, heads, j, dir, sqrt(len2)) : 0.0;
    if (ahead > 0.0) near2 = ahead * ahead;
    if (near2 > 0.0 && len2 > 1e-12 * near2) {
      double f = sqrt(near2 / len2);
      for (int k = 0; k < 3; ++k) tail[k] = (float)(h[k] + dir[k] * f);
      return;
    }
  }
  for (int k = 0; k < 3; ++k) {
    if (kids) {
      tail[k] = (float)(sum[k] / kids);
    } else if (s->parents[j] >= 0) {
      const float* ph = heads + 3 * (size_t)s->parents[j];
      tail[k] = h[k] + (h[k] - ph[k]);
    } else {
      tail[k] = h[k];
    }
  }
}

/* Whether joint j's tail follows the bone axis: a joint with several children, or a leaf that ends a chain (its
 * parent's only child: a finger tip, a toe, a tail's last bone). Sibling leaves (ears and jaw under a head,
 * facial points) keep the parent direction: their orientation is often arbitrary. */
static int tail_follows_axis(const skc_skeleton* s, uint32_t j) {
  uint32_t n = s->joint_count, kids = 0, siblings = 0;
  for (uint32_t c = j + 1; c < n && kids < 2; ++c) kids += s->parents[c] == (int32_t)j;
  if (kids == 1) return 0;
  if (kids > 1) return 1;
  for (uint32_t c = 0; c < n && s->parents[j] >= 0 && siblings < 2; ++c) siblings += s->parents[c] == s->parents[j];
  return siblings == 1;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median distance from a joint with one child to that child's head (the skeleton's typical bone length); 0
 * when no joint has one child. */
static double median_bone(const skc_skeleton* s, const float* heads) {
  uint32_t n = s->joint_count, m = 0;
  double* len = malloc(((size_t)n + 1) * sizeof *len);
  if (!len) return 0.0;
  for (uint32_t j = 0; j < n; ++j) {
    uint32_t kids = 0, child = 0;
    for (uint32_t c = j + 1; c < n && kids < 2; ++c)
      if (s->parents[c] == (int32_t)j) child = c, ++kids;
    if (kids != 1) continue;
    double e2 = 0.0;
    for (int k = 0; k < 3; ++k)
      e2 += ((double)heads[3 * child + k] - heads[3 * j + k]) * ((double)heads[3 * child + k] - heads[3 * j + k]);
    if (e2 > 0.0) len[m++] = sqrt(e2);
  }
  qsort(len, m, sizeof *len, cmp_double);
  double med = m ? len[m / 2] : 0.0;
  free(len);
  return med;
}

/* Whether joint p is at the top of the tree: a root, or a joint at its ancestors' head (a rig's "root" control
 * bone at the armature object's origin, its IK targets and poles hung from it), within a millionth of the typical
 * bone length. */
static int hub_at_top(const skc_skeleton* s, const float* heads, uint32_t p, double typical) {
  const float* h = heads + 3 * (size_t)p;
  for (int32_t a = s->parents[p]; a >= 0; a = s->parents[a]) { /* parents precede their children */
    const float* ah = heads + 3 * (size_t)a;
    double g2 = 0.0;
    for (int k = 0; k < 3; ++k) g2 += ((double)h[k] - ah[k]) * ((double)h[k] - ah[k]);
    if (g2 > 1e-12 * typical * typical) return 0;
  }
  return 1;
}

/* A leaf hanging from a hub at the top of the tree - a root with several children, the armature object of a
 * deform-only export that flattened a Rigify face or the pelvis bones onto it - more than 3 typical bone lengths
 * (median_bone) from the hub has no parent bone to continue: from the hub's head (the armature's origin) its tail
 * would land a body length away. Its tail then follows the bone axis (or, without one, the parent direction) for
 * the typical length. A leaf near its root (a tail bone under the hips) keeps the parent rule. Returns 0 when j is
 * no such leaf. */
static int tail_from_hub(const skc_skeleton* s, const float* heads, uint32_t j, int axis, double typical, float* tail) {
  const int32_t p = s->parents[j];
  if (p < 0 || !hub_at_top(s, heads, (uint32_t)p, typical) || !(typical > 0.0)) return 0;
  uint32_t kids = 0, siblings = 0;
  for (uint32_t c = 0; c < s->joint_count; ++c) kids += s->parents[c] == (int32_t)j, siblings += s->parents[c] == p;
  if (kids || siblings < 2) return 0;
  const float* h = heads + 3 * (size_t)j;
  const float* ph = heads + 3 * (size_t)p;
  double u[3] = {(double)h[0] - ph[0], (double)h[1] - ph[1], (double)h[2] - ph[2]};
  double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  if (!(len > 3.0 * typical)) return 0;
  if (axis >= 0 && axis_dir(s, j, axis, u)) len = 1.0;
  if (!(len > 0.0)) return 0;
  for (int k = 0; k < 3; ++k) tail[k] = (float)(h[k] + u[k] / len * typical);
  return 1;
}

void skc_skeleton_bone_segments(const skc_skeleton* s, float* heads, float* tails) {
  uint32_t n = s->joint_count;
  for (uint32_t j = 0; j < n; ++j) memcpy(heads + 3 * j, s->rest_world + 16 * j + 12, 3 * sizeof(float));
  int axis = bone_axis(s, heads);
  double typical = median_bone(s, heads);
  for (uint32_t j = 0; j < n; ++j) {
    float* t = tails + 3 * (size_t)j;
    if (skc_skeleton_has_tail(s, j)) {
      skc_mat4_transform_point(s->rest_world + 16 * (size_t)j, s->tail_local + 3 * (size_t)j, t);
      continue;
    }
    if (tail_from_hub(s, heads, j, axis, typical, t)) continue;
    if (axis < 0 || !tail_follows_axis(s, j) || !tail_on_axis(s, heads, j, axis, t)) tail_from_children(s, heads, j, t);
  }
}

/* Point p of joint j's rest frame carried into its bind frame, bind * rest^-1 p, in double: the float product of
 * the two matrices rounds at the size of their translations, which at 1000 units from the origin is 1e-4. 0 when
 * the rest matrix is singular. */
static int rest_to_bind(const skc_skeleton* s, uint32_t j, const float p[3], float out[3]) {
  const float* r = s->rest_world + 16 * (size_t)j;
  const float* b = s->bind + 16 * (size_t)j;
  double m[3][3], e[3], inv[3][3];
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) m[row][col] = r[4 * col + row];
    e[row] = (double)p[row] - r[12 + row];
  }
  for (int row = 0; row < 3; ++row) /* adjugate: inv = adj(m) / det(m) */
    for (int col = 0; col < 3; ++col) {
      int r1 = (col + 1) % 3, r2 = (col + 2) % 3, c1 = (row + 1) % 3, c2 = (row + 2) % 3;
      inv[row][col] = m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1];
    }
  double det = m[0][0] * inv[0][0] + m[0][1] * inv[1][0] + m[0][2] * inv[2][0];
  if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
  double local[3];
  for (int row = 0; row < 3; ++row) local[row] = (inv[row][0] * e[0] + inv[row][1] * e[1] + inv[row][2] * e[2]) / det;
  for (int row = 0; row < 3; ++row)
    out[row] = (float)(b[12 + row] + b[row] * local[0] + b[4 + row] * local[1] + b[8 + row] * local[2]);
  return 1;
}

/* Largest coordinate magnitude of p. */
static double max_abs3(const float p[3]) {
  double m = fabs((double)p[0]);
  if (fabs((double)p[1]) > m) m = fabs((double)p[1]);
  if (fabs((double)p[2]) > m) m = fabs((double)p[2]);
  return m;
}

/* Distance between points a and b. */
static double gap3(const float a[3], const float b[3]) {
  double g2 = 0.0;
  for (int k = 0; k < 3; ++k) g2 += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
  return sqrt(g2);
}

/* Whether joint p's rest tail is its child c's head by definition, told without the rest pose's coordinates (which
 * round at the size of the skeleton's distance from the origin): the file's tail (in p's frame) on c's local
 * translation within 1e-5 of that bone's length, or a derived tail equal to c's head bit for bit (the only child's
 * head, tail_from_children; its copy is exact wherever the skeleton sits). */
static int tail_is_child_head(const skc_skeleton* s, uint32_t p, uint32_t c, const float* rest_tail,
                              const float* rest_head) {
  if (!skc_skeleton_has_tail(s, p)) return memcmp(rest_tail, rest_head, 3 * sizeof(float)) == 0;
  const float* local = s->rest_local + 16 * (size_t)c + 12;
  double len = sqrt((double)local[0] * local[0] + (double)local[1] * local[1] + (double)local[2] * local[2]);
  return gap3(s->tail_local + 3 * (size_t)p, local) <= 1e-5 * len;
}

/* A tail that is a child's head (a chain's joint: the thigh ends where the shin starts, tail_is_child_head) and lands
 * on that child's head in the bind pose within float rounding is that head, bit for bit: carried by the parent's
 * matrices and the child's, the two points part by the rounding of coordinates as large as the model's distance from
 * the origin (2e-5 at 100 units), and heat's tie rule (HEAT_TIE, 1e-4 of a distance) then stops sharing the knee's
 * vertices between thigh and shin: CesiumMan moved 100 units bound up to 0.24 differently. The window, 64 float
 * steps of the point's size in both poses plus the bone's length, is far below any gap a pose makes (a bind pose
 * whose chain does not meet keeps its gap). */
static void snap_tails_to_children(const skc_skeleton* s, const float* rest_heads, const float* rest_tails,
                                   float* heads, float* tails) {
  const double step = 64.0 * 1.1920929e-7; /* FLT_EPSILON */
  for (uint32_t c = 0; c < s->joint_count; ++c) {
    const int32_t p = s->parents[c];
    if (p < 0 || !tail_is_child_head(s, (uint32_t)p, c, rest_tails + 3 * (size_t)p, rest_heads + 3 * (size_t)c))
      continue;
    const float* h = heads + 3 * (size_t)c;
    float* t = tails + 3 * (size_t)p;
    const double size = max_abs3(h) + max_abs3(rest_heads + 3 * (size_t)c) + gap3(h, heads + 3 * (size_t)p);
    if (gap3(t, h) <= step * size) memcpy(t, h, 3 * sizeof *t);
  }
}

/* The rest pose with the skeleton's placement taken out, rest' = T(-c) rest (c: joint 0's rest translation), composed
 * in double from the local matrices below the roots (the view's roots, joints it detached too, keep their float
 * world moved by -c). Segments derived there and carried by bind * rest'^-1 are those of the rest pose, but for the
 * rounding: the float rest world of a character placed 1000 units away rounds by 6e-5, enough to move a leaf's tail
 * and with it robust's decisions. 1 when out of memory. */
static int rest_unplaced(const skc_skeleton* s, float* out) {
  const uint32_t n = s->joint_count;
  double* w = malloc(((size_t)n * 16 + 1) * sizeof *w);
  if (!w) return 1;
  const float* c = s->rest_world + 12;
  for (uint32_t j = 0; j < n; ++j) {
    double* wj = w + 16 * (size_t)j;
    const int32_t p = s->parents[j];
    if (skc_skeleton_is_root(s, j)) {
      for (int i = 0; i < 16; ++i) wj[i] = s->rest_world[16 * (size_t)j + i];
      for (int k = 0; k < 3; ++k) wj[12 + k] -= c[k];
    } else {
      const double* wp = w + 16 * (size_t)p;
      const float* l = s->rest_local + 16 * (size_t)j;
      for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 4; ++row)
          wj[4 * col + row] = wp[row] * l[4 * col] + wp[4 + row] * l[4 * col + 1] + wp[8 + row] * l[4 * col + 2] +
                              wp[12 + row] * l[4 * col + 3];
    }
    for (int i = 0; i < 16; ++i) out[16 * (size_t)j + i] = (float)wj[i];
  }
  free(w);
  return 0;
}

/* The rest pose's segments in the bind pose: each joint's head is its bind matrix's translation and its tail is
 * carried by its own bind * rest^-1 (a mesh bound in a pose of its own), both from the rest pose without its
 * placement (rest_unplaced), a chain's tails snapped to the children's heads (snap_tails_to_children). A joint whose
 * rest matrix is singular keeps its rest segment. */
void skc_skeleton_bone_segments_bind(const skc_skeleton* s, float* heads, float* tails) {
  const uint32_t n = s->joint_count;
  float* unplaced = n ? malloc((size_t)n * 16 * sizeof *unplaced) : NULL;
  float* rest = malloc(((size_t)n * 6 + 1) * sizeof *rest); /* rest heads, then rest tails */
  skc_skeleton view = *s;
  if (unplaced && !rest_unplaced(s, unplaced)) view.rest_world = unplaced;
  skc_skeleton_bone_segments(&view, heads, tails);
  if (rest) {
    memcpy(rest, heads, (size_t)n * 3 * sizeof *rest);
    memcpy(rest + 3 * (size_t)n, tails, (size_t)n * 3 * sizeof *rest);
  }
  for (uint32_t j = 0; j < n; ++j) {
    float t[3];
    if (!rest_to_bind(&view, j, tails + 3 * (size_t)j, t)) {
      if (view.rest_world != s->rest_world) /* the rest segment, placed back */
        for (int k = 0; k < 3; ++k)
          heads[3 * j + k] += s->rest_world[12 + k], tails[3 * j + k] += s->rest_world[12 + k];
      continue;
    }
    memcpy(heads + 3 * (size_t)j, s->bind + 16 * (size_t)j + 12, sizeof t);
    memcpy(tails + 3 * (size_t)j, t, sizeof t);
  }
  if (rest) snap_tails_to_children(&view, rest, rest + 3 * (size_t)n, heads, tails);
  free(rest);
  free(unplaced);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int validate(const skc_bind_desc* d, const skc_skin* skin, skc_err* err) {
  if (!skin) return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: output skin must not be NULL");
  if (d->vertex_count == 0 || !d->positions)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: mesh needs positions and at least one vertex");
  if (d->vertex_count >= UINT32_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bind: %zu vertices do not fit 32-bit indices", d->vertex_count);
  if (d->triangle_count && !d->triangles)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: %zu triangles but no index array", d->triangle_count);
  if (d->joint_count == 0 || !d->heads || !d->tails)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: bones need a skeleton or head and tail arrays");
  if (skin->vertex_count != d->vertex_count || skin->joint_count != d->joint_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT,
                    "bind: skin has %zu vertices and %u joints, the mesh %zu vertices and the bones %u joints",
                    skin->vertex_count, skin->joint_count, d->vertex_count, d->joint_count);
  if (d->max_influences < 1 || d->max_influences > BIND_MAX_INFLUENCES)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bind: max_influences %u outside 1 .. %u", d->max_influences,
                    BIND_MAX_INFLUENCES);
  if (d->method < SKC_BIND_ROBUST || d->method > SKC_BIND_DELAUNAY)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: unknown method %d", d->method);
  if (!(d->falloff_power > 0.0f && d->falloff_power <= 64.0f) || !(d->falloff_cutoff > 1.0f) ||
      !isfinite(d->falloff_cutoff) || !(d->heat_scale > 0.0f) || !isfinite(d->heat_scale) ||
      !(d->prune >= 0.0f && d->prune < 1.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT,
                    "bind: options out of range (falloff_power 0 < p <= 64, falloff_cutoff > 1, heat_scale > 0, "
                    "0 <= prune < 1)");
  for (size_t i = 0; i < 3 * d->vertex_count; ++i)
    if (!isfinite(d->positions[i]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: position of vertex %zu is not finite", i / 3);
  for (size_t i = 0; i < 3 * d->triangle_count; ++i)
    if (d->triangles[i] >= d->vertex_count)
      return skc_fail(err, SKC_OUT_OF_RANGE, "bind: triangle %zu uses vertex %u, the mesh has %zu", i / 3,
                      d->triangles[i], d->vertex_count);
  if (d->capsule_radii)
    for (uint32_t j = 0; j < d->joint_count; ++j)
      if (!(d->capsule_radii[j] >= 0.0f) || !isfinite(d->capsule_radii[j]))
        return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: capsule radius of joint %u is %g (must be >= 0, finite)", j,
                        (double)d->capsule_radii[j]);
  if (d->smooth_iterations > 1000)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bind: smooth_iterations %u above 1000", d->smooth_iterations);
  if (d->bone_samples > 4096)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bind: bone_samples %u outside 1 .. 4096 (0 = automatic)",
                    d->bone_samples);
  uint32_t active = 0;
  for (uint32_t j = 0; j < d->joint_count; ++j) {
    for (int k = 0; k < 3; ++k)
      if (!isfinite(d->heads[3 * j + k]) || !isfinite(d->tails[3 * j + k]))
        return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: bone %u has a non-finite head or tail", j);
    active += (uint32_t)skc_bind_joint_active(d, j);
  }
  if (!active)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bind: no joint can take weights (all non-deform or locked)");
  return SKC_OK;
}

/* Bones with identical segments (a rig's duplicated or zero-length bones at one point, quad_skin's ten bones at
 * the origin) cannot be told apart by any method: they are bound as one bone (the group's lowest index, the
 * leader), and the leader's weight is then split evenly over the group, so coincident bones get identical weights
 * instead of the lowest indices taking everything. */
typedef struct bind_groups {
  uint32_t* start;   /* joint_count + 1 over members, indexed by leader (start[j] == start[j + 1]: not a leader) */
  uint32_t* members; /* the group's joints, ascending, leader first */
  uint8_t* deform;   /* joint_count: the desc's deform with the non-leaders cleared */
  uint32_t groups;   /* active leaders */
  int any;           /* some group has more than one member */
} bind_groups;

static void groups_free(bind_groups* g) {
  free(g->start);
  free(g->members);
  free(g->deform);
  memset(g, 0, sizeof *g);
}

typedef struct head_key {
  float x;
  uint32_t j;
} head_key;

static int head_key_cmp(const void* a, const void* b) {
  const head_key* p = a;
  const head_key* q = b;
  return p->x < q->x ? -1 : (p->x > q->x ? 1 : (p->j < q->j ? -1 : (p->j > q->j)));
}

/* Segments equal within 1e-6 of the mesh's bounding-box diagonal (float noise of the bind-space transform). Each
 * active joint not yet grouped starts a group (in order of head x) and takes the later ones equal to it; the
 * group's lowest index leads. */
static int groups_build(const skc_bind_desc* d, bind_groups* g) {
  uint32_t nj = d->joint_count;
  memset(g, 0, sizeof *g);
  g->start = calloc((size_t)nj + 1, sizeof *g->start);
  g->members = malloc((size_t)nj * sizeof *g->members);
  g->deform = malloc(nj);
  head_key* order = malloc((size_t)nj * sizeof *order);
  uint32_t* first = malloc((size_t)nj * sizeof *first); /* joint -> the group's first joint in order */
  uint32_t* lead = malloc((size_t)nj * sizeof *lead);   /* first joint -> lowest index of its group */
  if (!g->start || !g->members || !g->deform || !order || !first || !lead) {
    free(order);
    free(first);
    free(lead);
    groups_free(g);
    return SKC_OUT_OF_MEMORY;
  }
  double eps = 1e-6 * skc_bind_bbox_diag(d->positions, d->vertex_count);
  const float* h = d->heads;
  const float* t = d->tails;
  uint32_t na = 0;
  for (uint32_t j = 0; j < nj; ++j) {
    first[j] = UINT32_MAX;
    lead[j] = j;
    if (skc_bind_joint_active(d, j)) order[na++] = (head_key){h[3 * (size_t)j], j};
  }
  qsort(order, na, sizeof *order, head_key_cmp);
  for (uint32_t a = 0; a < na; ++a) {
    uint32_t i = order[a].j;
    if (first[i] != UINT32_MAX) continue;
    first[i] = i;
    for (uint32_t b = a + 1; b < na && (double)order[b].x - order[a].x <= eps; ++b) {
      uint32_t k = order[b].j;
      int same = first[k] == UINT32_MAX;
      for (int c = 0; c < 3 && same; ++c)
        same = fabs((double)h[3 * (size_t)k + c] - h[3 * (size_t)i + c]) <= eps &&
               fabs((double)t[3 * (size_t)k + c] - t[3 * (size_t)i + c]) <= eps;
      if (!same) continue;
      first[k] = i;
      if (k < lead[i]) lead[i] = k;
      g->any = 1;
    }
  }
  /* members per leader (ascending: joints visited in index order), the deform mask without the non-leaders */
  for (uint32_t j = 0; j < nj; ++j) {
    g->deform[j] = (uint8_t)(!d->deform || d->deform[j]);
    if (first[j] == UINT32_MAX) continue;
    uint32_t l = lead[first[j]];
    ++g->start[l + 1];
    if (l != j)
      g->deform[j] = 0;
    else
      ++g->groups;
  }
  for (uint32_t j = 0; j < nj; ++j) g->start[j + 1] += g->start[j];
  for (uint32_t j = 0; j < nj; ++j) first[j] = first[j] == UINT32_MAX ? UINT32_MAX : lead[first[j]];
  for (uint32_t j = 0; j < nj; ++j) lead[j] = g->start[j]; /* reused: next free slot per leader */
  for (uint32_t j = 0; j < nj; ++j)
    if (first[j] != UINT32_MAX) g->members[lead[first[j]]++] = j;
  free(order);
  free(first);
  free(lead);
  return SKC_OK;
}

/* Writes one vertex: new candidates (sorted descending, leaders of bone groups) scaled into what locked joints
 * leave, exact sum. A group's weight is split evenly over its members; groups are kept whole while they fit
 * max_influences (the first group alone is cut to the limit when it is larger). */
static int finish_vertex(const skc_bind_desc* d, const bind_groups* g, const skc_skin* old, size_t v,
                         const uint32_t* cj, const float* cw, uint32_t cn, skc_skin_builder* b) {
  uint32_t j[2 * BIND_MAX_INFLUENCES];
  float w[2 * BIND_MAX_INFLUENCES];
  uint32_t n = 0;
  double locked_sum = 0.0;
  if (d->locked) {
    for (uint32_t e = old->offsets[v]; e < old->offsets[v + 1] && n < BIND_MAX_INFLUENCES; ++e) {
      uint32_t oj = old->joints[e];
      float ow = old->weights[e];
      if (oj < d->joint_count && d->locked[oj] && ow > 0.0f && isfinite(ow)) {
        j[n] = oj;
        w[n++] = ow;
        locked_sum += ow;
      }
    }
  }
  uint32_t locked_n = n;
  double room = 1.0 - locked_sum;
  if (room > 1e-7) {
    uint32_t limit = d->max_influences > locked_n ? d->max_influences - locked_n : 1;
    double top = cn ? cw[0] : 0.0, sum = 0.0;
    uint32_t keep = 0, members = 0;
    for (uint32_t i = 0; i < cn && members < limit; ++i) {
      if (!(cw[i] > 0.0f) || (double)cw[i] < (double)d->prune * top) break; /* sorted: the rest is smaller */
      uint32_t size = g->start[cj[i] + 1] - g->start[cj[i]];
      if (size == 0) size = 1; /* (only leaders are candidates) */
      if (members + size > limit) {
        if (members) break; /* a group does not fit whole after others: left out, so it is never split unevenly */
        size = limit;
      }
      members += size;
      sum += cw[i];
      ++keep;
    }
    if (keep == 0 || !(sum > 0.0)) return SKC_INTERNAL;
    for (uint32_t i = 0; i < keep; ++i) {
      uint32_t g0 = g->start[cj[i]], size = g->start[cj[i] + 1] - g0;
      if (size == 0) {
        j[n] = cj[i];
        w[n++] = (float)((double)cw[i] / sum * room);
        continue;
      }
      if (size > limit) size = limit;
      for (uint32_t q = 0; q < size; ++q) {
        j[n] = g->members[g0 + q];
        w[n++] = (float)((double)cw[i] / sum * room / size);
      }
    }
  }
  /* sort by weight descending, ties by joint (insertion sort: n is small); lk marks the locked entries */
  uint8_t lk[2 * BIND_MAX_INFLUENCES];
  for (uint32_t i = 0; i < n; ++i) lk[i] = i < locked_n;
  for (uint32_t i = 1; i < n; ++i) {
    uint32_t tj = j[i];
    float tw = w[i];
    uint8_t tl = lk[i];
    uint32_t k = i;
    while (k > 0 && (w[k - 1] < tw || (w[k - 1] == tw && j[k - 1] > tj))) {
      w[k] = w[k - 1];
      j[k] = j[k - 1];
      lk[k] = lk[k - 1];
      --k;
    }
    w[k] = tw;
    j[k] = tj;
    lk[k] = tl;
  }
  /* exact sum in float, summed in the order stored: the last weight (the smallest) becomes 1 - the sum before it,
   * which is exact in float (that sum lies in [0.5, 1]) - unless it is locked or that would lift it above the one
   * before it (a tie); then the residue goes to the largest new weight (a negative one to the last new weight
   * equal to it, so the order stays descending), one unit in the last place at a time after a first full step */
  if (n > locked_n) {
    float p = 0.0f;
    for (uint32_t i = 0; i + 1 < n; ++i) p += w[i];
    float x = 1.0f - p;
    if (!lk[n - 1] && x > 0.0f && (n == 1 || x <= w[n - 2])) w[n - 1] = x;
    uint32_t a = 0;
    while (lk[a]) ++a;
    uint32_t last = a;
    while (last + 1 < n && !lk[last + 1] && w[last + 1] == w[a]) ++last;
    for (int pass = 0; pass < 24; ++pass) {
      float sum = 0.0f;
      for (uint32_t i = 0; i < n; ++i) sum += w[i];
      if (sum == 1.0f) break;
      uint32_t k = sum < 1.0f ? a : last;
      w[k] = pass == 0 ? w[k] + (1.0f - sum) : nextafterf(w[k], sum < 1.0f ? 2.0f : 0.0f);
    }
  }
  return skc_skin_builder_push(b, j, w, n) ? SKC_OUT_OF_MEMORY : SKC_OK;
}

/* The report's optional per-joint arrays from the written skin: vertices with a non-zero weight, weight sums, and
 * of those vertices the ones the fallback weighted (fell[v]; NULL: none). */
static void joint_figures(const skc_skin* skin, uint32_t nj, const uint8_t* fell_back, skc_bind_report* rep) {
  uint64_t* counts = rep->joint_vertex_counts;
  uint64_t* fb = rep->joint_fallback_counts;
  double* sums = rep->joint_weight_sums;
  if (counts) memset(counts, 0, nj * sizeof *counts);
  if (fb) memset(fb, 0, nj * sizeof *fb);
  if (sums) memset(sums, 0, nj * sizeof *sums);
  for (size_t v = 0; v < skin->vertex_count; ++v) {
    int fell = fell_back && fell_back[v];
    for (uint32_t e = skin->offsets[v]; e < skin->offsets[v + 1]; ++e) {
      uint32_t j = skin->joints[e];
      if (!(skin->weights[e] > 0.0f) || j >= nj) continue;
      if (counts) ++counts[j];
      if (fb && fell) ++fb[j];
      if (sums) sums[j] += skin->weights[e];
    }
  }
}

static int heat_strict(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* rep, skc_err* err) {
  return skc_bind_heat(d, 1, out, rep, err);
}

static int robust_branches(const skc_bind_desc* d, skc_bind_cands* out, skc_bind_report* rep, skc_err* err) {
  int rc = skc_bind_robust(d, out, rep, err);
  if (!rc && skc_bind_merge_branches(d, out)) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory");
  return rc;
}

/* Heat and robust on a simplified copy of a very large mesh (skc_bind_coarse); SKC_BIND_NOT_COARSE: bind in full. */
static int bind_coarse(const skc_bind_desc* d, skc_bind_cands* c, skc_bind_report* rep, skc_err* err) {
  int m = d->method;
  if (m == SKC_BIND_NEAREST || m == SKC_BIND_CAPSULE || m == SKC_BIND_DELAUNAY) return SKC_BIND_NOT_COARSE;
  return skc_bind_coarse(d, m == SKC_BIND_HEAT ? heat_strict : robust_branches, c, rep, err);
}

/* Robust on an armature that sits beside the mesh at a plausible size (the fit check's OFFSET with fewer than
 * ROBUST_OUTSIDE_SHARE of the bone points in or near the mesh: moved away, or another character's): bone heat
 * needs bones inside the surface they weight, and from outside it weights by what each vertex happens to see.
 * Delaunay binding follows the bones' proximity and layout instead (bench_bind's generated "outside" case: robust
 * 6.32 / 22.4 % of the diagonal, delaunay 1.06 / 9.5 %, Blender 3.17 / 19.4 %). An open sheet with a bone on
 * either side (half the points near it) stays with heat, which picks the bone behind the surface. */
#define ROBUST_OUTSIDE_SHARE 0.25
static int robust_method(const skc_bind_desc* d) {
  if (d->method != SKC_BIND_ROBUST || !d->heads || !d->tails) return d->method;
  skc_bind_fit fit;
  skc_bind_fit_check(d->positions, d->vertex_count, d->heads, d->tails, d->joint_count, d->deform, &fit);
  const bool away = !fit.ok && fit.hint == SKC_FIT_HINT_OFFSET && fit.inside_share < ROBUST_OUTSIDE_SHARE;
  return away ? SKC_BIND_DELAUNAY : SKC_BIND_ROBUST;
}

/* The candidates of every vertex by the method d asks for (or on a simplified mesh first). */
static int bind_candidates(const skc_bind_desc* gd, skc_bind_cands* c, skc_bind_report* rep, skc_err* err) {
  int rc = bind_coarse(gd, c, rep, err);
  switch (rc == SKC_BIND_NOT_COARSE ? gd->method : -1) {
    case -1: /* bound on a simplified mesh (or failed there) */
      return rc;
    case SKC_BIND_NEAREST:
      rep->method_used = SKC_BIND_NEAREST;
      return skc_bind_nearest(gd, gd->vertex_mask, c, err);
    case SKC_BIND_HEAT:
      return heat_strict(gd, c, rep, err);
    case SKC_BIND_CAPSULE:
      rep->method_used = SKC_BIND_CAPSULE;
      return skc_bind_capsule(gd, c, rep, err);
    case SKC_BIND_DELAUNAY:
      rep->method_used = SKC_BIND_DELAUNAY;
      return skc_bind_delaunay(gd, c, rep, err);
    default:
      return robust_branches(gd, c, rep, err);
  }
}

/* Every vertex's weights into b: the bound ones from the candidates, the others (outside d->vertex_mask) as skin has
 * them; *bound counts the former. */
static int write_weights(const skc_bind_desc* d, const bind_groups* groups, const skc_skin* skin,
                         const skc_bind_cands* c, uint32_t stride, skc_skin_builder* b, uint64_t* bound) {
  int rc = SKC_OK;
  for (size_t v = 0; v < d->vertex_count && !rc; ++v) {
    if (d->vertex_mask && !d->vertex_mask[v]) {
      uint32_t e0 = skin->offsets[v], e1 = skin->offsets[v + 1];
      rc = skc_skin_builder_push(b, skin->joints + e0, skin->weights + e0, e1 - e0) ? SKC_OUT_OF_MEMORY : SKC_OK;
      continue;
    }
    rc = finish_vertex(d, groups, skin, v, c->joints + v * stride, c->weights + v * stride, c->count[v], b);
    ++*bound;
  }
  return rc;
}

/* The caller's report filled from rep and the bound skin (its arrays are the caller's, fell the fallback mask). */
static void fill_report(const skc_bind_desc* d, const skc_skin* skin, const uint8_t* fell, uint64_t bound, double t0,
                        skc_bind_report rep, skc_bind_report* report) {
  rep.bound_vertices = bound;
  rep.joint_vertex_counts = report->joint_vertex_counts;
  rep.vertex_fallback = report->vertex_fallback;
  rep.joint_fallback_counts = report->joint_fallback_counts;
  rep.joint_weight_sums = report->joint_weight_sums;
  if (rep.vertex_fallback) memcpy(rep.vertex_fallback, fell, d->vertex_count);
  joint_figures(skin, d->joint_count, fell, &rep);
  rep.milliseconds = now_ms() - t0;
  *report = rep;
}

int skc_bind(const skc_bind_desc* d, skc_skin* skin, skc_bind_report* report, skc_err* err) {
  double t0 = now_ms();
  int rc = validate(d, skin, err);
  if (rc) return rc;
  bind_groups groups;
  if (groups_build(d, &groups))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bind: out of memory for %u joints", d->joint_count);
  skc_bind_desc gd = *d; /* coincident bones bound as one: the non-leaders do not deform for the methods */
  gd.deform = groups.deform;
  gd.method = robust_method(&gd);
  uint32_t stride = d->max_influences < groups.groups ? d->max_influences : groups.groups;
  skc_bind_report rep;
  memset(&rep, 0, sizeof rep);
  skc_bind_cands c;
  rc = skc_bind_cands_init(&c, d->vertex_count, stride, err);
  if (rc) {
    groups_free(&groups);
    return rc;
  }
  rc = bind_candidates(&gd, &c, &rep, err);
  skc_skin_builder b;
  if (!rc) rc = skc_skin_builder_init(&b, d->vertex_count, d->vertex_count * stride, err);
  if (rc) {
    skc_bind_cands_free(&c);
    groups_free(&groups);
    return rc;
  }
  uint64_t bound = 0;
  uint8_t* fell = c.fallback; /* kept past the candidates: masked to the bound vertices */
  c.fallback = NULL;
  for (size_t v = 0; v < d->vertex_count; ++v) fell[v] = fell[v] && (!d->vertex_mask || d->vertex_mask[v]);
  rc = write_weights(d, &groups, skin, &c, stride, &b, &bound);
  skc_bind_cands_free(&c);
  groups_free(&groups);
  if (rc) {
    free(fell);
    skc_skin_builder_free(&b);
    return skc_fail(err, rc, "bind: %s while writing the weights", skc_status_string(rc));
  }
  rc = skc_skin_builder_finish(&b, skin, err);
  if (!rc && report) fill_report(d, skin, fell, bound, t0, rep, report);
  free(fell);
  return rc;
}
