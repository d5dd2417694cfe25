/* weights_normalize.c - the normalization rule (locked joints respected) and the normalize operation; also the
 * small report/scan helpers every weight operation shares. */
#include <stdlib.h>
#include <string.h>

#include "skc_weights.h"

void skc_wreport_begin(skc_wreport* r, const skc_skin* s) {
  uint32_t* jc = r->joint_counts;
  uint8_t* vf = r->vertex_flags;
  memset(r, 0, sizeof *r);
  r->joint_counts = jc;
  r->vertex_flags = vf;
  r->influences_before = skc_skin_entries(s);
  if (jc) memset(jc, 0, s->joint_count * sizeof *jc);
  if (vf && s->vertex_count) memset(vf, 0, s->vertex_count);
}

void skc_wreport_flag(skc_wreport* r, size_t v, uint8_t bits) {
  if (bits & SKC_WFLAG_CHANGED) r->vertices_changed++;
  if (bits & SKC_WFLAG_FAILED) r->vertices_failed++;
  if (bits & SKC_WFLAG_SUM_OFF) r->sum_off++;
  if (r->vertex_flags) r->vertex_flags[v] |= bits;
}

size_t skc_wcount_invalid(const skc_skin* s, size_t b, size_t e) {
  size_t n = 0;
  for (size_t i = b; i < e; ++i) n += !skc_wentry_valid(s->joints[i], s->weights[i], s->joint_count);
  return n;
}

size_t skc_wmax_degree(const skc_skin* s) {
  size_t m = 0;
  for (size_t v = 0; v < s->vertex_count; ++v) {
    size_t d = s->offsets[v + 1] - s->offsets[v];
    if (d > m) m = d;
  }
  return m;
}

int skc_wnormalize_vertex(const uint32_t* joints, float* w, size_t n, const uint8_t* locked, double tol,
                          bool* changed) {
  double L = 0.0, U = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (locked && locked[joints[i]])
      L += w[i];
    else
      U += w[i];
  }
  if (n == 0 || (L <= 0.0 && U <= 0.0)) return SKC_WFLAG_UNWEIGHTED;
  if (L > 1.0 + tol) return SKC_WFLAG_LOCKED;
  double R = L > 1.0 ? 0.0 : 1.0 - L;
  if (U <= 0.0) return R <= tol ? 0 : SKC_WFLAG_UNWEIGHTED;
  double k = R / U;
  if (k == 1.0) return 0;
  bool c = false;
  for (size_t i = 0; i < n; ++i)
    if (!(locked && locked[joints[i]])) {
      float x = (float)(w[i] * k);
      c |= x != w[i];
      w[i] = x;
    }
  if (changed && c) *changed = true;
  return 0;
}

int skc_weights_normalize(skc_skin* s, const skc_wscope* sc, uint32_t flags, float tolerance, skc_wreport* r,
                          skc_err* err) {
  (void)err;
  double tol = tolerance > 0.0f ? tolerance : 1e-5;
  bool drop = (flags & SKC_NORMALIZE_DROP_INVALID) != 0;
  skc_wreport_begin(r, s);
  size_t V = s->vertex_count, out = 0, b = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t e = s->offsets[v + 1];
    bool sel = skc_wsel(sc, v), changed = false;
    size_t bad = sel ? skc_wcount_invalid(s, b, e) : 0;
    size_t start = out;
    if (bad && drop) {
      for (size_t i = b; i < e; ++i)
        if (skc_wentry_valid(s->joints[i], s->weights[i], s->joint_count)) {
          s->joints[out] = s->joints[i];
          s->weights[out] = s->weights[i];
          ++out;
        }
      changed = true;
    } else if (out != b) {
      memmove(s->joints + out, s->joints + b, (e - b) * sizeof *s->joints);
      memmove(s->weights + out, s->weights + b, (e - b) * sizeof *s->weights);
      out += e - b;
    } else {
      out = e;
    }
    b = e;
    s->offsets[v + 1] = (uint32_t)out;
    if (!sel) continue;
    r->vertices_visited++;
    r->invalid_entries += bad;
    uint8_t f = bad ? SKC_WFLAG_INVALID : 0;
    if (bad && !drop) {
      skc_wreport_flag(r, v, f | SKC_WFLAG_FAILED);
      continue;
    }
    int nf = skc_wnormalize_vertex(s->joints + start, s->weights + start, out - start, sc->locked, tol, &changed);
    if (nf) f |= (uint8_t)(nf | (changed ? SKC_WFLAG_SUM_OFF : SKC_WFLAG_FAILED));
    if (changed) f |= SKC_WFLAG_CHANGED;
    if (f) skc_wreport_flag(r, v, f);
  }
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}
