/* weights_brush.c - weight painting strokes: dabs (center, radius, strength) applied to one joint's weight with a
 * falloff over Euclidean or geodesic (Dijkstra over mesh edges) distance; modes add / subtract / replace / smooth;
 * auto-normalization that keeps the painted weight and the locked joints and rescales the other joints.
 *
 * The painted joint's weight lives in a dense per-vertex array while the dabs run (a stroke may touch any vertex);
 * the skin is rebuilt once at the end, so a failure leaves it untouched. Euclidean dabs scan all vertices
 * (O(V) per dab); geodesic dabs visit only the vertices within the radius. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "skc_weights.h"

static float falloff(int kind, float t) {
  if (t >= 1.0f) return kind == SKC_FALLOFF_CONSTANT && t == 1.0f ? 1.0f : 0.0f;
  switch (kind) {
    case SKC_FALLOFF_LINEAR:
      return 1.0f - t;
    case SKC_FALLOFF_CONSTANT:
      return 1.0f;
    case SKC_FALLOFF_SHARP:
      return (1.0f - t) * (1.0f - t);
    default:
      return 1.0f - t * t * (3.0f - 2.0f * t); /* smoothstep from 1 at the center to 0 at the rim */
  }
}

static float dist3(const float* a, const float* b) {
  float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrtf(dx * dx + dy * dy + dz * dz);
}

/* binary min-heap of (distance, vertex) with lazy deletion */
typedef struct heap_item {
  float d;
  uint32_t v;
} heap_item;

static void heap_push(heap_item* h, size_t* n, heap_item x) {
  size_t i = (*n)++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (h[p].d <= x.d) break;
    h[i] = h[p];
    i = p;
  }
  h[i] = x;
}

static heap_item heap_pop(heap_item* h, size_t* n) {
  heap_item top = h[0], x = h[--(*n)];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && h[c + 1].d < h[c].d) ++c;
    if (h[c].d >= x.d) break;
    h[i] = h[c];
    i = c;
  }
  if (*n) h[i] = x;
  return top;
}

/* One stroke's state: the arguments, the mesh adjacency (geodesic distance, smooth mode), the per-vertex work
 * arrays and the scratch row of the rebuild. */
typedef struct brush_ctx {
  skc_skin* s;
  const skc_wscope* sc;
  const skc_brush_params* p;
  size_t V;
  skc_adjacency adj;
  float* tw;   /* painted joint weight */
  float* dist; /* per-dab distance, FLT_MAX = outside */
  float* fresh;
  uint32_t* hit; /* vertices inside the current dab */
  uint8_t* touched;
  uint8_t* bad;
  heap_item* heap;
  size_t heap_cap;
  uint32_t* nj;
  float* nw;
} brush_ctx;

/* Checks the stroke's arguments, dabs and positions; returns SKC_OK or the failure of the first bad one. */
static int check_brush(const skc_skin* s, const skc_wscope* sc, const skc_brush_params* p, skc_err* err) {
  size_t V = s->vertex_count;
  uint32_t J = s->joint_count;
  if (!p->positions) return skc_fail(err, SKC_INVALID_ARGUMENT, "brush strokes need positions");
  if (p->joint >= J)
    return skc_fail(err, SKC_OUT_OF_RANGE, "painted joint %u is not in the skin (joint_count %u)", p->joint, J);
  if (skc_wlocked(sc, p->joint)) return skc_fail(err, SKC_INVALID_ARGUMENT, "painted joint %u is locked", p->joint);
  if (p->mode < SKC_BRUSH_ADD || p->mode > SKC_BRUSH_SMOOTH)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown brush mode %d", p->mode);
  if (p->falloff < SKC_FALLOFF_SMOOTH || p->falloff > SKC_FALLOFF_SHARP)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown brush falloff %d", p->falloff);
  if (!(p->value >= 0.0f && p->value <= 1.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "brush value %g is outside [0, 1]", (double)p->value);
  if (p->dab_count && !p->dabs)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "dabs is NULL with dab_count %zu", p->dab_count);
  for (size_t k = 0; k < p->dab_count; ++k) {
    const float* d = p->dabs + 5 * k;
    if (!isfinite(d[0]) || !isfinite(d[1]) || !isfinite(d[2]) || !(d[3] > 0.0f) || !isfinite(d[3]) ||
        !(d[4] >= 0.0f && d[4] <= 1.0f))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "dab %zu: center must be finite, radius > 0 and strength in [0, 1]",
                      k);
  }
  bool need_mesh = p->geodesic || p->mode == SKC_BRUSH_SMOOTH;
  if (need_mesh && (!p->triangles || p->triangle_count == 0))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s needs triangles (the mesh has no faces)",
                    p->mode == SKC_BRUSH_SMOOTH ? "the smooth brush" : "geodesic distance");
  for (size_t v = 0; v < V; ++v) {
    const float* x = skc_pos(p->positions, p->positions_stride, v);
    if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "position of vertex %zu is not finite", v);
  }
  return SKC_OK;
}

/* Allocates the work arrays (the heap only for geodesic distance; c->adj is built first); false when one of them is
 * missing (brush_free releases whatever was allocated). */
static bool brush_alloc(brush_ctx* c, bool need_mesh) {
  size_t V = c->V;
  c->tw = malloc((V ? V : 1) * sizeof *c->tw);
  c->dist = malloc((V ? V : 1) * sizeof *c->dist);
  c->fresh = malloc((V ? V : 1) * sizeof *c->fresh);
  c->hit = malloc((V ? V : 1) * sizeof *c->hit);
  c->touched = calloc(V ? V : 1, 1);
  c->bad = calloc(V ? V : 1, 1);
  c->heap_cap = c->adj.offsets ? c->adj.offsets[V] + V + 1 : 1;
  c->heap = need_mesh && c->p->geodesic ? malloc(c->heap_cap * sizeof *c->heap) : NULL;
  size_t maxd = skc_wmax_degree(c->s);
  c->nj = malloc((maxd + 2) * sizeof *c->nj);
  c->nw = malloc((maxd + 2) * sizeof *c->nw);
  return c->tw && c->dist && c->fresh && c->hit && c->touched && c->bad && (!c->p->geodesic || c->heap) && c->nj &&
         c->nw;
}

/* Releases the adjacency and the work arrays. */
static void brush_free(brush_ctx* c) {
  skc_adjacency_free(&c->adj);
  free(c->tw);
  free(c->dist);
  free(c->fresh);
  free(c->hit);
  free(c->touched);
  free(c->bad);
  free(c->heap);
  free(c->nj);
  free(c->nw);
}

/* Reads every vertex's painted joint weight, marks the vertices holding an invalid entry and clears the distances. */
static void read_painted(brush_ctx* c) {
  const skc_skin* s = c->s;
  uint32_t J = s->joint_count;
  for (size_t v = 0; v < c->V; ++v) {
    float w = 0.0f;
    for (size_t i = s->offsets[v]; i < s->offsets[v + 1]; ++i) {
      if (!skc_wentry_valid(s->joints[i], s->weights[i], J)) c->bad[v] = 1;
      if (s->joints[i] == c->p->joint) w += s->weights[i];
    }
    c->tw[v] = w;
    c->dist[v] = FLT_MAX;
  }
}

/* The vertices within dab d's radius by straight-line distance, in vertex order, into c->hit; sets their c->dist and
 * returns their count. */
static size_t euclidean_hits(brush_ctx* c, const float* d) {
  const skc_brush_params* p = c->p;
  float radius = d[3];
  size_t nh = 0;
  for (size_t v = 0; v < c->V; ++v) {
    float e = dist3(skc_pos(p->positions, p->positions_stride, v), d);
    if (e <= radius) {
      c->dist[v] = e;
      c->hit[nh++] = (uint32_t)v;
    }
  }
  return nh;
}

/* The vertex nearest the point d (the first of equals; SIZE_MAX when no distance is below FLT_MAX) and its distance
 * in *best. */
static size_t nearest_vertex(const brush_ctx* c, const float* d, float* best) {
  const skc_brush_params* p = c->p;
  size_t seed = SIZE_MAX;
  *best = FLT_MAX;
  for (size_t v = 0; v < c->V; ++v) {
    float e = dist3(skc_pos(p->positions, p->positions_stride, v), d);
    if (e < *best) *best = e, seed = v;
  }
  return seed;
}

/* The vertices within dab d's radius by geodesic distance (Dijkstra over the mesh edges from the vertex nearest the
 * center), in order of distance, into c->hit; sets their c->dist and returns their count. */
static size_t geodesic_hits(brush_ctx* c, const float* d) {
  const skc_brush_params* p = c->p;
  float radius = d[3];
  size_t nh = 0;
  /* seed: the vertex nearest the center (it must lie within the radius) */
  float best;
  size_t seed = nearest_vertex(c, d, &best);
  if (seed == SIZE_MAX || !(best <= radius)) return 0;
  size_t hn = 0;
  c->dist[seed] = best;
  heap_push(c->heap, &hn, (heap_item){best, (uint32_t)seed});
  while (hn) {
    heap_item it = heap_pop(c->heap, &hn);
    if (it.d > c->dist[it.v]) continue; /* stale */
    c->hit[nh++] = it.v;
    const float* pu = skc_pos(p->positions, p->positions_stride, it.v);
    for (size_t e = c->adj.offsets[it.v]; e < c->adj.offsets[it.v + 1]; ++e) {
      uint32_t x = c->adj.neighbors[e];
      float nd = it.d + dist3(pu, skc_pos(p->positions, p->positions_stride, x));
      if (nd <= radius && nd < c->dist[x]) {
        c->dist[x] = nd;
        if (hn < c->heap_cap) heap_push(c->heap, &hn, (heap_item){nd, x});
      }
    }
  }
  return nh;
}

/* Hit vertex v's painted weight after a dab of the given radius and strength, clamped to [0, 1]; reads the weights
 * before the dab (the smooth mode averages the neighbours'). */
static float dab_value(const brush_ctx* c, uint32_t v, float radius, float strength) {
  const skc_brush_params* p = c->p;
  float a = strength * falloff(p->falloff, c->dist[v] / radius), w = c->tw[v], nwv = w;
  switch (p->mode) {
    case SKC_BRUSH_ADD:
      nwv = w + a;
      break;
    case SKC_BRUSH_SUBTRACT:
      nwv = w - a;
      break;
    case SKC_BRUSH_REPLACE:
      nwv = w + (p->value - w) * a;
      break;
    default: {
      size_t e0 = c->adj.offsets[v], e1 = c->adj.offsets[v + 1];
      if (e1 > e0) {
        double sum = 0.0;
        for (size_t e = e0; e < e1; ++e) sum += c->tw[c->adj.neighbors[e]];
        nwv = w + ((float)(sum / (double)(e1 - e0)) - w) * a;
      }
    }
  }
  return nwv < 0.0f ? 0.0f : nwv > 1.0f ? 1.0f : nwv;
}

/* Applies dab d (5 floats): its selected hit vertices without invalid entries take their new painted weight and are
 * marked touched; the distances of all its hits are cleared for the next dab. */
static void apply_dab(brush_ctx* c, const float* d) {
  float radius = d[3], strength = d[4];
  size_t nh = c->p->geodesic ? geodesic_hits(c, d) : euclidean_hits(c, d);
  /* new values from the state before this dab (smooth reads neighbours) */
  for (size_t h = 0; h < nh; ++h) c->fresh[h] = dab_value(c, c->hit[h], radius, strength);
  for (size_t h = 0; h < nh; ++h) {
    uint32_t v = c->hit[h];
    c->dist[v] = FLT_MAX;
    if (!skc_wsel(c->sc, v) || c->bad[v]) continue;
    c->tw[v] = c->fresh[h];
    c->touched[v] = 1;
  }
}

/* Normalization of a touched row with locked sum L and other unlocked sum O: clamps the painted weight *t to the room
 * the locked joints leave and returns the scale of the other unlocked joints; SUM_OFF / LOCKED bits go to *f. */
static double normalize_scale(double L, double O, double tol, double* t, uint8_t* f) {
  double scale = 1.0;
  double room = L >= 1.0 ? 0.0 : 1.0 - L;
  if (*t > room) *t = room;
  double R = room - *t;
  if (O > 0.0)
    scale = R / O;
  else if (R > tol)
    *f |= SKC_WFLAG_SUM_OFF;
  if (L > 1.0 + tol) *f |= SKC_WFLAG_SUM_OFF | SKC_WFLAG_LOCKED;
  return scale;
}

/* Writes the new row of the vertex whose entries are [vb, vb + n) into c->nj / c->nw: the painted weight t in place
 * of the joint's first entry (or appended; left out when 0), the other unlocked weights scaled. Returns its length. */
static size_t painted_row(brush_ctx* c, size_t vb, size_t n, double t, double scale) {
  const skc_skin* s = c->s;
  uint32_t* nj = c->nj;
  float* nw = c->nw;
  size_t m = 0;
  bool placed = false;
  for (size_t i = vb; i < vb + n; ++i) {
    uint32_t j = s->joints[i];
    if (j == c->p->joint) {
      if (!placed && t > 0.0) {
        nj[m] = j;
        nw[m++] = (float)t;
      }
      placed = true;
      continue;
    }
    nj[m] = j;
    nw[m++] = skc_wlocked(c->sc, j) ? s->weights[i] : (float)(s->weights[i] * scale);
  }
  if (!placed && t > 0.0) {
    nj[m] = c->p->joint;
    nw[m++] = (float)t;
  }
  return m;
}

/* Rebuilds touched vertex v's row into b: its painted weight and (normalize) the other unlocked joints rescaled;
 * records the vertex in the report. */
static void rebuild_touched(brush_ctx* c, size_t v, double tol, skc_wreport* r, skc_skin_builder* b) {
  const skc_skin* s = c->s;
  size_t vb = s->offsets[v], n = s->offsets[v + 1] - vb;
  r->vertices_visited++;
  double L = 0.0, O = 0.0;
  for (size_t i = vb; i < vb + n; ++i) {
    if (s->joints[i] == c->p->joint) continue;
    if (skc_wlocked(c->sc, s->joints[i]))
      L += s->weights[i];
    else
      O += s->weights[i];
  }
  double t = c->tw[v];
  uint8_t f = 0;
  double scale = 1.0;
  if (c->p->normalize) scale = normalize_scale(L, O, tol, &t, &f);
  size_t m = painted_row(c, vb, n, t, scale);
  bool changed = m != n;
  for (size_t i = 0; i < m && !changed; ++i) changed = c->nj[i] != s->joints[vb + i] || c->nw[i] != s->weights[vb + i];
  if (changed) f |= SKC_WFLAG_CHANGED;
  if (f) skc_wreport_flag(r, v, f);
  skc_skin_builder_push(b, c->nj, c->nw, m);
}

/* rebuild: touched vertices get the painted weight and (normalize) rescaled other unlocked joints; the other rows
 * are copied. Replaces the skin's arrays on success. */
static int rebuild_skin(brush_ctx* c, skc_wreport* r, skc_err* err) {
  skc_skin* s = c->s;
  skc_skin_builder b;
  int rc = skc_skin_builder_init(&b, c->V, skc_skin_entries(s) + 64, err);
  if (rc) return rc;
  const double tol = c->p->tolerance > 0.0f ? c->p->tolerance : 1e-5;
  for (size_t v = 0; v < c->V; ++v) {
    size_t vb = s->offsets[v], n = s->offsets[v + 1] - vb;
    if (skc_wsel(c->sc, v) && c->bad[v]) {
      r->invalid_entries += skc_wcount_invalid(s, vb, vb + n);
      skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
    }
    if (!c->touched[v])
      skc_skin_builder_push(&b, s->joints + vb, s->weights + vb, n);
    else
      rebuild_touched(c, v, tol, r, &b);
  }
  if ((rc = skc_skin_builder_finish(&b, s, err))) return rc;
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}

int skc_weights_brush(skc_skin* s, const skc_wscope* sc, const skc_brush_params* p, skc_wreport* r, skc_err* err) {
  int rc = check_brush(s, sc, p, err);
  if (rc) return rc;
  brush_ctx c = {.s = s, .sc = sc, .p = p, .V = s->vertex_count};
  bool need_mesh = p->geodesic || p->mode == SKC_BRUSH_SMOOTH;
  if (need_mesh && (rc = skc_adjacency_build(&c.adj, c.V, p->triangles, p->triangle_count, err))) return rc;
  if (!brush_alloc(&c, need_mesh)) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory applying brush strokes");
  } else {
    read_painted(&c);
    skc_wreport_begin(r, s);
    for (size_t k = 0; k < p->dab_count; ++k) apply_dab(&c, p->dabs + 5 * k);
    rc = rebuild_skin(&c, r, err);
  }
  brush_free(&c);
  return rc;
}
