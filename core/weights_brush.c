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
    case SKC_FALLOFF_LINEAR: return 1.0f - t;
    case SKC_FALLOFF_CONSTANT: return 1.0f;
    case SKC_FALLOFF_SHARP: return (1.0f - t) * (1.0f - t);
    default: return 1.0f - t * t * (3.0f - 2.0f * t); /* smoothstep from 1 at the center to 0 at the rim */
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

int skc_weights_brush(skc_skin* s, const skc_wscope* sc, const skc_brush_params* p, skc_wreport* r, skc_err* err) {
  size_t V = s->vertex_count;
  uint32_t J = s->joint_count;
  if (!p->positions) return skc_fail(err, SKC_INVALID_ARGUMENT, "brush strokes need positions");
  if (p->joint >= J) return skc_fail(err, SKC_OUT_OF_RANGE, "painted joint %u is not in the skin (joint_count %u)", p->joint, J);
  if (skc_wlocked(sc, p->joint)) return skc_fail(err, SKC_INVALID_ARGUMENT, "painted joint %u is locked", p->joint);
  if (p->mode < SKC_BRUSH_ADD || p->mode > SKC_BRUSH_SMOOTH)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown brush mode %d", p->mode);
  if (p->falloff < SKC_FALLOFF_SMOOTH || p->falloff > SKC_FALLOFF_SHARP)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown brush falloff %d", p->falloff);
  if (!(p->value >= 0.0f && p->value <= 1.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "brush value %g is outside [0, 1]", (double)p->value);
  if (p->dab_count && !p->dabs) return skc_fail(err, SKC_INVALID_ARGUMENT, "dabs is NULL with dab_count %zu", p->dab_count);
  for (size_t k = 0; k < p->dab_count; ++k) {
    const float* d = p->dabs + 5 * k;
    if (!isfinite(d[0]) || !isfinite(d[1]) || !isfinite(d[2]) || !(d[3] > 0.0f) || !isfinite(d[3]) ||
        !(d[4] >= 0.0f && d[4] <= 1.0f))
      return skc_fail(err, SKC_INVALID_ARGUMENT,
                      "dab %zu: center must be finite, radius > 0 and strength in [0, 1]", k);
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
  skc_adjacency adj = {0};
  int rc = SKC_OK;
  if (need_mesh && (rc = skc_adjacency_build(&adj, V, p->triangles, p->triangle_count, err))) return rc;
  float* tw = malloc((V ? V : 1) * sizeof *tw);    /* painted joint weight */
  float* dist = malloc((V ? V : 1) * sizeof *dist); /* per-dab distance, FLT_MAX = outside */
  float* fresh = malloc((V ? V : 1) * sizeof *fresh);
  uint32_t* hit = malloc((V ? V : 1) * sizeof *hit);   /* vertices inside the current dab */
  uint8_t* touched = calloc(V ? V : 1, 1);
  uint8_t* bad = calloc(V ? V : 1, 1);
  size_t heap_cap = adj.offsets ? adj.offsets[V] + V + 1 : 1;
  heap_item* heap = need_mesh && p->geodesic ? malloc(heap_cap * sizeof *heap) : NULL;
  size_t maxd = skc_wmax_degree(s);
  uint32_t* nj = malloc((maxd + 2) * sizeof *nj);
  float* nw = malloc((maxd + 2) * sizeof *nw);
  skc_skin_builder b;
  bool have_b = false;
  if (!tw || !dist || !fresh || !hit || !touched || !bad || (p->geodesic && !heap) || !nj || !nw) goto oom;
  for (size_t v = 0; v < V; ++v) {
    float w = 0.0f;
    for (size_t i = s->offsets[v]; i < s->offsets[v + 1]; ++i) {
      if (!skc_wentry_valid(s->joints[i], s->weights[i], J)) bad[v] = 1;
      if (s->joints[i] == p->joint) w += s->weights[i];
    }
    tw[v] = w;
    dist[v] = FLT_MAX;
  }
  skc_wreport_begin(r, s);
  for (size_t k = 0; k < p->dab_count; ++k) {
    const float* d = p->dabs + 5 * k;
    float radius = d[3], strength = d[4];
    size_t nh = 0;
    if (!p->geodesic) {
      for (size_t v = 0; v < V; ++v) {
        float e = dist3(skc_pos(p->positions, p->positions_stride, v), d);
        if (e <= radius) {
          dist[v] = e;
          hit[nh++] = (uint32_t)v;
        }
      }
    } else {
      /* seed: the vertex nearest the center (it must lie within the radius) */
      size_t seed = SIZE_MAX;
      float best = FLT_MAX;
      for (size_t v = 0; v < V; ++v) {
        float e = dist3(skc_pos(p->positions, p->positions_stride, v), d);
        if (e < best) best = e, seed = v;
      }
      if (seed != SIZE_MAX && best <= radius) {
        size_t hn = 0;
        dist[seed] = best;
        heap_push(heap, &hn, (heap_item){best, (uint32_t)seed});
        while (hn) {
          heap_item it = heap_pop(heap, &hn);
          if (it.d > dist[it.v]) continue; /* stale */
          hit[nh++] = it.v;
          const float* pu = skc_pos(p->positions, p->positions_stride, it.v);
          for (size_t e = adj.offsets[it.v]; e < adj.offsets[it.v + 1]; ++e) {
            uint32_t x = adj.neighbors[e];
            float nd = it.d + dist3(pu, skc_pos(p->positions, p->positions_stride, x));
            if (nd <= radius && nd < dist[x]) {
              dist[x] = nd;
              if (hn < heap_cap) heap_push(heap, &hn, (heap_item){nd, x});
            }
          }
        }
      }
    }
    /* new values from the state before this dab (smooth reads neighbours) */
    for (size_t h = 0; h < nh; ++h) {
      uint32_t v = hit[h];
      float a = strength * falloff(p->falloff, dist[v] / radius), w = tw[v], nwv = w;
      switch (p->mode) {
        case SKC_BRUSH_ADD: nwv = w + a; break;
        case SKC_BRUSH_SUBTRACT: nwv = w - a; break;
        case SKC_BRUSH_REPLACE: nwv = w + (p->value - w) * a; break;
        default: {
          size_t e0 = adj.offsets[v], e1 = adj.offsets[v + 1];
          if (e1 > e0) {
            double sum = 0.0;
            for (size_t e = e0; e < e1; ++e) sum += tw[adj.neighbors[e]];
            nwv = w + ((float)(sum / (double)(e1 - e0)) - w) * a;
          }
        }
      }
      fresh[h] = nwv < 0.0f ? 0.0f : nwv > 1.0f ? 1.0f : nwv;
    }
    for (size_t h = 0; h < nh; ++h) {
      uint32_t v = hit[h];
      dist[v] = FLT_MAX;
      if (!skc_wsel(sc, v) || bad[v]) continue;
      tw[v] = fresh[h];
      touched[v] = 1;
    }
  }
  /* rebuild: touched vertices get the painted weight and (normalize) rescaled other unlocked joints */
  if ((rc = skc_skin_builder_init(&b, V, skc_skin_entries(s) + 64, err))) goto done;
  have_b = true;
  const double tol = p->tolerance > 0.0f ? p->tolerance : 1e-5;
  for (size_t v = 0; v < V; ++v) {
    size_t vb = s->offsets[v], n = s->offsets[v + 1] - vb;
    if (skc_wsel(sc, v) && bad[v]) {
      r->invalid_entries += skc_wcount_invalid(s, vb, vb + n);
      skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
    }
    if (!touched[v]) {
      skc_skin_builder_push(&b, s->joints + vb, s->weights + vb, n);
      continue;
    }
    r->vertices_visited++;
    double L = 0.0, O = 0.0;
    for (size_t i = vb; i < vb + n; ++i) {
      if (s->joints[i] == p->joint) continue;
      if (skc_wlocked(sc, s->joints[i]))
        L += s->weights[i];
      else
        O += s->weights[i];
    }
    double t = tw[v];
    uint8_t f = 0;
    double scale = 1.0;
    if (p->normalize) {
      double room = L >= 1.0 ? 0.0 : 1.0 - L;
      if (t > room) t = room;
      double R = room - t;
      if (O > 0.0)
        scale = R / O;
      else if (R > tol)
        f |= SKC_WFLAG_SUM_OFF;
      if (L > 1.0 + tol) f |= SKC_WFLAG_SUM_OFF | SKC_WFLAG_LOCKED;
    }
    size_t m = 0;
    bool placed = false;
    for (size_t i = vb; i < vb + n; ++i) {
      uint32_t j = s->joints[i];
      if (j == p->joint) {
        if (!placed && t > 0.0) {
          nj[m] = j;
          nw[m++] = (float)t;
        }
        placed = true;
        continue;
      }
      nj[m] = j;
      nw[m++] = skc_wlocked(sc, j) ? s->weights[i] : (float)(s->weights[i] * scale);
    }
    if (!placed && t > 0.0) {
      nj[m] = p->joint;
      nw[m++] = (float)t;
    }
    bool changed = m != n;
    for (size_t i = 0; i < m && !changed; ++i) changed = nj[i] != s->joints[vb + i] || nw[i] != s->weights[vb + i];
    if (changed) f |= SKC_WFLAG_CHANGED;
    if (f) skc_wreport_flag(r, v, f);
    skc_skin_builder_push(&b, nj, nw, m);
  }
  have_b = false;
  if ((rc = skc_skin_builder_finish(&b, s, err))) goto done;
  r->influences_after = skc_skin_entries(s);
  goto done;
oom:
  rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory applying brush strokes");
done:
  if (have_b) skc_skin_builder_free(&b);
  skc_adjacency_free(&adj);
  free(tw);
  free(dist);
  free(fresh);
  free(hit);
  free(touched);
  free(bad);
  free(heap);
  free(nj);
  free(nw);
  return rc;
}
