/* weights_smooth.c - Laplacian smoothing of skin weights over mesh edges (uniform or cotangent).
 *
 * Vertices at exactly the same position (the copies importers make at UV seams, normal creases and material
 * borders) are one node: with positions given, the mesh is welded first, each point starts from the mean of its
 * selected copies' weights, and every selected copy ends with the point's weights. Without that a seam is a cut and
 * its two sides drift apart, tearing the surface open there in a pose.
 *
 * One iteration: w'(v) = (1 - f) w(v) + f * sum_u a_vu w(u) for the smoothable joints (the joint list minus the
 * locked joints) of each selected vertex, a_vu = 1 / degree (uniform) or max(cot, 0) normalized over v's edges
 * (cotangent; uniform where all are zero). Then the normalization rule. Work per iteration is
 * O(sum over edges of the neighbour's influence count): a dense accumulator over joints is reused across
 * vertices (reset through a touched list), and the weights live in two CSR buffers that swap roles. */
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "skc_bind.h"
#include "skc_weights.h"

typedef struct csr_buf {
  uint32_t* off;
  uint32_t* j;
  float* w;
  size_t cap;
} csr_buf;

static void csr_free(csr_buf* b) {
  free(b->off);
  free(b->j);
  free(b->w);
  memset(b, 0, sizeof *b);
}

static bool csr_reserve(csr_buf* b, size_t need) {
  if (need <= b->cap) return true;
  if (need > UINT32_MAX) return false;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < need) cap *= 2;
  uint32_t* j = realloc(b->j, cap * sizeof *j);
  if (!j) return false;
  b->j = j;
  float* w = realloc(b->w, cap * sizeof *w);
  if (!w) return false;
  b->w = w;
  b->cap = cap;
  return true;
}

/* One smoothing run's state: the edge adjacency and coefficients, the smoothable joints, the active vertices, the
 * dense per-joint accumulator (reset through the touched list) and the two CSR buffers that swap roles. */
typedef struct smooth_ctx {
  uint32_t J;
  size_t V;
  skc_adjacency adj;
  float* coef;
  uint8_t* smoothable;
  uint8_t* mark;
  float* acc;
  uint32_t* touched;
  uint8_t* active;
  csr_buf buf[2];
  const uint8_t* locked; /* the scope's locked joints */
  float f, keep, minw;
  double tol;
} smooth_ctx;

/* Allocates the work arrays and reserves both buffers for n0 entries and a half; false when something is missing
 * (smooth_free releases whatever was allocated). */
static bool smooth_alloc(smooth_ctx* c, size_t n0) {
  size_t E = c->adj.offsets[c->V];
  uint32_t J = c->J;
  size_t V = c->V;
  c->coef = malloc((E ? E : 1) * sizeof *c->coef);
  c->smoothable = calloc(J, 1);
  c->mark = calloc(J, 1);
  c->acc = malloc(J * sizeof *c->acc);
  c->touched = malloc(J * sizeof *c->touched);
  c->active = malloc(V ? V : 1);
  c->buf[0].off = malloc((V + 1) * sizeof(uint32_t));
  c->buf[1].off = malloc((V + 1) * sizeof(uint32_t));
  return c->coef && c->smoothable && c->mark && c->acc && c->touched && c->active && c->buf[0].off && c->buf[1].off &&
         csr_reserve(&c->buf[0], n0 + n0 / 2 + 16) && csr_reserve(&c->buf[1], n0 + n0 / 2 + 16);
}

/* Releases the buffers, the adjacency and the work arrays. */
static void smooth_free(smooth_ctx* c) {
  csr_free(&c->buf[0]);
  csr_free(&c->buf[1]);
  skc_adjacency_free(&c->adj);
  free(c->coef);
  free(c->smoothable);
  free(c->mark);
  free(c->acc);
  free(c->touched);
  free(c->active);
}

/* edge coefficients a_vu, summing to 1 over each vertex's edges */
static void edge_coefficients(smooth_ctx* c) {
  const skc_adjacency* adj = &c->adj;
  for (size_t v = 0; v < c->V; ++v) {
    size_t b = adj->offsets[v], e = adj->offsets[v + 1];
    double sum = 0.0;
    if (adj->weights)
      for (size_t i = b; i < e; ++i) sum += adj->weights[i] > 0.0f ? adj->weights[i] : 0.0f;
    for (size_t i = b; i < e; ++i) {
      if (sum > 0.0)
        c->coef[i] = adj->weights[i] > 0.0f ? (float)(adj->weights[i] / sum) : 0.0f;
      else
        c->coef[i] = 1.0f / (float)(e - b);
    }
  }
}

/* Marks the smoothable joints: the joint list (every joint when it is empty) minus the locked joints. */
static void mark_smoothable(smooth_ctx* c, const skc_smooth_params* p) {
  if (p->joint_list_count)
    for (size_t k = 0; k < p->joint_list_count; ++k) c->smoothable[p->joints[k]] = 1;
  else
    memset(c->smoothable, 1, c->J);
  if (c->locked)
    for (uint32_t j = 0; j < c->J; ++j)
      if (c->locked[j]) c->smoothable[j] = 0;
}

/* Marks the active vertices (selected, valid, with an edge); counts the selected ones and reports the invalid. */
static void mark_active(smooth_ctx* c, const skc_skin* s, const skc_wscope* sc, skc_wreport* r) {
  for (size_t v = 0; v < c->V; ++v) {
    c->active[v] = 0;
    if (!skc_wsel(sc, v)) continue;
    r->vertices_visited++;
    size_t bad = skc_wcount_invalid(s, s->offsets[v], s->offsets[v + 1]);
    if (bad) {
      r->invalid_entries += bad;
      skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
    } else if (c->adj.offsets[v + 1] > c->adj.offsets[v]) {
      c->active[v] = 1;
    }
  }
}

/* Copies row [b, e) of (sj, sw) unchanged to dst at *out; false when dst cannot grow. */
static bool copy_row(csr_buf* dst, size_t* out, const uint32_t* sj, const float* sw, size_t b, size_t e) {
  if (!csr_reserve(dst, *out + (e - b))) return false;
  memcpy(dst->j + *out, sj + b, (e - b) * sizeof *sj);
  memcpy(dst->w + *out, sw + b, (e - b) * sizeof *sw);
  *out += e - b;
  return true;
}

/* Accumulates active vertex v's smoothed row from the rows (so, sj, sw): its own entries (the smoothable ones times
 * keep), then f * a_vu times each neighbour's valid smoothable entries. Returns the count of touched joints. */
static size_t gather_row(smooth_ctx* c, size_t v, const uint32_t* so, const uint32_t* sj, const float* sw) {
  uint8_t* mark = c->mark;
  float* acc = c->acc;
  size_t nt = 0;
  for (size_t i = so[v]; i < so[v + 1]; ++i) {
    uint32_t j = sj[i];
    float w = c->smoothable[j] ? c->keep * sw[i] : sw[i];
    if (!mark[j]) {
      mark[j] = 1;
      acc[j] = w;
      c->touched[nt++] = j;
    } else {
      acc[j] += w;
    }
  }
  for (size_t k = c->adj.offsets[v]; k < c->adj.offsets[v + 1]; ++k) {
    float cf = c->f * c->coef[k];
    if (cf == 0.0f) continue;
    uint32_t u = c->adj.neighbors[k];
    for (size_t i = so[u], ie = so[u + 1]; i < ie; ++i) {
      uint32_t j = sj[i];
      float w = sw[i];
      if (j >= c->J || !c->smoothable[j] || !(w > 0.0f) || w > 3.0e38f) continue;
      if (!mark[j]) {
        mark[j] = 1;
        acc[j] = cf * w;
        c->touched[nt++] = j;
      } else {
        acc[j] += cf * w;
      }
    }
  }
  return nt;
}

/* Writes the nt touched joints of the accumulator to dst at *out (smoothable ones below min_weight dropped; the marks
 * reset), then applies the normalization rule to the row; false when dst cannot grow. */
static bool emit_row(smooth_ctx* c, size_t nt, csr_buf* dst, size_t* out) {
  if (!csr_reserve(dst, *out + nt)) return false;
  size_t start = *out, o = *out;
  for (size_t k = 0; k < nt; ++k) {
    uint32_t j = c->touched[k];
    c->mark[j] = 0;
    if (c->smoothable[j] && c->acc[j] < c->minw) continue;
    dst->j[o] = j;
    dst->w[o] = c->acc[j];
    ++o;
  }
  if (c->locked) {
    skc_wnormalize_vertex(dst->j + start, dst->w + start, o - start, c->locked, c->tol, NULL);
  } else {
    float sum = 0.0f;
    for (size_t i = start; i < o; ++i) sum += dst->w[i];
    if (sum > 0.0f && sum != 1.0f) {
      float k = 1.0f / sum;
      for (size_t i = start; i < o; ++i) dst->w[i] *= k;
    }
  }
  *out = o;
  return true;
}

/* Runs the iterations from the skin's rows, each into the buffer the previous one did not write; returns the buffer
 * of the last one, or NULL when a buffer cannot grow. */
static csr_buf* smooth_iterations(smooth_ctx* c, const skc_skin* s, uint32_t iterations) {
  const uint32_t *so = s->offsets, *sj = s->joints;
  const float* sw = s->weights;
  csr_buf* dst = NULL;
  for (uint32_t it = 0; it < iterations; ++it) {
    dst = &c->buf[it & 1];
    size_t out = 0;
    dst->off[0] = 0;
    for (size_t v = 0; v < c->V; ++v) {
      bool ok = c->active[v] ? emit_row(c, gather_row(c, v, so, sj, sw), dst, &out)
                             : copy_row(dst, &out, sj, sw, so[v], so[v + 1]);
      if (!ok) return NULL;
      dst->off[v + 1] = (uint32_t)out;
    }
    so = dst->off;
    sj = dst->j;
    sw = dst->w;
  }
  return dst;
}

/* report: per active vertex, changed and whether the sum reached 1 */
static void report_smoothed(const smooth_ctx* c, const skc_skin* s, const csr_buf* dst, skc_wreport* r) {
  for (size_t v = 0; v < c->V; ++v) {
    if (!c->active[v]) continue;
    size_t b0 = s->offsets[v], n0v = s->offsets[v + 1] - b0, b1 = dst->off[v], n1 = dst->off[v + 1] - b1;
    bool changed = n0v != n1;
    for (size_t i = 0; i < n1 && !changed; ++i)
      changed = s->joints[b0 + i] != dst->j[b1 + i] || s->weights[b0 + i] != dst->w[b1 + i];
    uint8_t fl = changed ? SKC_WFLAG_CHANGED : 0;
    double sum = 0.0;
    for (size_t i = 0; i < n1; ++i) sum += dst->w[b1 + i];
    if (fabs(sum - 1.0) > 1e-4) fl |= SKC_WFLAG_SUM_OFF;
    if (fl) skc_wreport_flag(r, v, fl);
  }
}

/* move the final buffer into the skin */
static void adopt_buffer(skc_skin* s, csr_buf* dst) {
  free(s->offsets);
  free(s->joints);
  free(s->weights);
  s->offsets = dst->off;
  s->joints = dst->j;
  s->weights = dst->w;
  s->capacity = dst->cap;
  memset(dst, 0, sizeof *dst);
}

/* Smoothing over the edges of p's triangles, every vertex its own node (arguments checked). */
static int smooth_edges(skc_skin* s, const skc_wscope* sc, const skc_smooth_params* p, skc_wreport* r, skc_err* err) {
  smooth_ctx c = {.J = s->joint_count,
                  .V = s->vertex_count,
                  .locked = sc->locked,
                  .f = p->factor,
                  .keep = 1.0f - p->factor,
                  .minw = p->min_weight,
                  .tol = p->tolerance > 0.0f ? p->tolerance : 1e-5};
  int rc = skc_adjacency_build(&c.adj, c.V, p->triangles, p->triangle_count, err);
  if (rc) return rc;
  if (p->cotangent &&
      (rc = skc_adjacency_cotangent(&c.adj, p->positions, p->positions_stride, p->triangles, p->triangle_count, err))) {
    skc_adjacency_free(&c.adj);
    return rc;
  }
  csr_buf* dst = NULL;
  if (!smooth_alloc(&c, skc_skin_entries(s))) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory smoothing %zu vertices", c.V);
    goto done;
  }
  edge_coefficients(&c);
  mark_smoothable(&c, p);
  skc_wreport_begin(r, s);
  mark_active(&c, s, sc, r);
  if (!(dst = smooth_iterations(&c, s, p->iterations))) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory growing smoothed weights");
    goto done;
  }
  if (p->max_influences) {
    struct sk_skin tmp = {c.V, c.J, dst->off, dst->j, dst->w, dst->cap};
    skc_wreport lr = {0};
    skc_wscope ls = {c.active, sc->locked};
    if ((rc = skc_weights_limit(&tmp, &ls, p->max_influences, 0, p->tolerance, &lr, err))) goto done;
  }
  report_smoothed(&c, s, dst, r);
  adopt_buffer(s, dst);
  r->influences_after = skc_skin_entries(s);
  rc = SKC_OK;
done:
  smooth_free(&c);
  return rc;
}

/* ---- welded smoothing -------------------------------------------------------------------------------------- */
typedef struct welded {
  size_t R;         /* points */
  uint32_t* point;  /* vertex -> point */
  uint32_t* first;  /* R + 1: members of point c are member[first[c] .. first[c + 1]) */
  uint32_t* member; /* vertices by point, ascending within a point */
  float* pos;       /* 3 * R: each point's position */
  uint32_t* tri;    /* the triangles over points */
} welded;

static void welded_free(welded* w) { free(w->point), free(w->first), free(w->member), free(w->pos), free(w->tri); }

/* The points of the mesh (skc_bind_weld on the positions); R == V when no two vertices share a position. */
static int weld_points(const skc_smooth_params* p, size_t V, welded* w) {
  memset(w, 0, sizeof *w);
  float* packed = malloc(V * 3 * sizeof *packed + 4);
  uint32_t* rep = malloc(V * sizeof *rep + 4);
  w->point = malloc(V * sizeof *w->point + 4);
  int rc = !packed || !rep || !w->point;
  for (size_t v = 0; !rc && v < V; ++v) memcpy(packed + 3 * v, skc_pos(p->positions, p->positions_stride, v), 12);
  if (!rc) rc = skc_bind_weld(packed, V, rep) != 0;
  for (size_t v = 0; !rc && v < V; ++v) w->point[v] = rep[v] == v ? (uint32_t)w->R++ : w->point[rep[v]];
  if (!rc && w->R < V) {
    w->first = calloc(w->R + 1, sizeof *w->first);
    w->member = malloc(V * sizeof *w->member);
    w->pos = malloc(w->R * 3 * sizeof *w->pos);
    w->tri = malloc(p->triangle_count * 3 * sizeof *w->tri + 4);
    rc = !w->first || !w->member || !w->pos || !w->tri;
    for (size_t v = 0; !rc && v < V; ++v) w->first[w->point[v] + 1]++;
    for (size_t c = 0; !rc && c < w->R; ++c) w->first[c + 1] += w->first[c];
    for (size_t v = 0; !rc && v < V; ++v) {
      uint32_t c = w->point[v];
      if (rep[v] == v) memcpy(w->pos + 3 * c, packed + 3 * v, 12);
      w->member[w->first[c]++] = (uint32_t)v;
    }
    for (size_t c = w->R; !rc && c > 0; --c) w->first[c] = w->first[c - 1];
    if (!rc) w->first[0] = 0;
    for (size_t i = 0; !rc && i < 3 * p->triangle_count; ++i) w->tri[i] = w->point[p->triangles[i]];
  }
  free(packed), free(rep);
  return rc ? SKC_OUT_OF_MEMORY : SKC_OK;
}

/* The points' skin: each point the mean of its selected copies' rows (its first copy's row when none is selected
 * or a selected copy holds an invalid entry); mask[c] = some copy selected. */
static int point_skin(const skc_skin* s, const skc_wscope* sc, const welded* w, skc_skin* out, uint8_t* mask,
                      skc_err* err) {
  const uint32_t J = s->joint_count;
  float* acc = calloc(J ? J : 1, sizeof *acc);
  uint32_t* jt = malloc((J ? J : 1) * sizeof *jt);
  float* wt = malloc((J ? J : 1) * sizeof *wt);
  skc_skin_builder b;
  int rc = !acc || !jt || !wt ? skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory smoothing")
                              : skc_skin_builder_init(&b, w->R, skc_skin_entries(s), err);
  const bool building = rc == SKC_OK;
  for (size_t c = 0; !rc && c < w->R; ++c) { /* a failed push is reported by skc_skin_builder_finish */
    size_t sel = 0, valid = 1;
    for (uint32_t k = w->first[c]; k < w->first[c + 1]; ++k) {
      uint32_t v = w->member[k];
      if (!skc_wsel(sc, v)) continue;
      sel++;
      valid &= skc_wcount_invalid(s, s->offsets[v], s->offsets[v + 1]) == 0;
    }
    mask[c] = sel > 0;
    uint32_t v0 = w->member[w->first[c]];
    if (sel < 2 || !valid) { /* one copy (or a row validate must see): kept as it is */
      for (uint32_t k = w->first[c]; sel == 1 && k < w->first[c + 1]; ++k)
        if (skc_wsel(sc, w->member[k])) v0 = w->member[k];
      uint32_t o = s->offsets[v0];
      skc_skin_builder_push(&b, s->joints + o, s->weights + o, s->offsets[v0 + 1] - o);
      continue;
    }
    size_t n = 0;
    for (uint32_t k = w->first[c]; k < w->first[c + 1]; ++k) {
      uint32_t v = w->member[k];
      if (!skc_wsel(sc, v)) continue;
      for (uint32_t e = s->offsets[v]; e < s->offsets[v + 1]; ++e) {
        if (acc[s->joints[e]] == 0.0f && s->weights[e] != 0.0f) jt[n++] = s->joints[e];
        acc[s->joints[e]] += s->weights[e] / (float)sel;
      }
    }
    for (size_t i = 0; i < n; ++i) wt[i] = acc[jt[i]], acc[jt[i]] = 0.0f;
    skc_skin_builder_push(&b, jt, wt, n);
  }
  if (building) rc = skc_skin_builder_finish(&b, out, err);
  free(acc), free(jt), free(wt);
  return rc;
}

/* Every selected vertex takes its point's smoothed row; the report over the vertices. */
static int write_points(skc_skin* s, const skc_wscope* sc, const welded* w, const skc_skin* pts, const uint8_t* pflags,
                        skc_wreport* r, skc_err* err) {
  const size_t V = s->vertex_count;
  skc_skin_builder b;
  int rc = skc_skin_builder_init(&b, V, skc_skin_entries(pts) + skc_skin_entries(s), err);
  if (rc) return rc;
  skc_wreport_begin(r, s);
  for (size_t v = 0; v < V; ++v) { /* a failed push is reported by skc_skin_builder_finish */
    const uint32_t c = w->point[v], o = s->offsets[v], n = s->offsets[v + 1] - o;
    if (!skc_wsel(sc, v)) {
      skc_skin_builder_push(&b, s->joints + o, s->weights + o, n);
      continue;
    }
    r->vertices_visited++;
    size_t bad = skc_wcount_invalid(s, o, o + n);
    r->invalid_entries += bad;
    /* the vertex's own row stays when it is invalid, or when its point was left alone (an invalid copy) */
    const bool own = bad || (pflags[c] & SKC_WFLAG_FAILED);
    const uint32_t po = pts->offsets[c], pn = pts->offsets[c + 1] - po;
    uint8_t fl = bad ? (SKC_WFLAG_FAILED | SKC_WFLAG_INVALID) : (uint8_t)(own ? 0 : pflags[c] & SKC_WFLAG_SUM_OFF);
    const uint32_t* nj = own ? s->joints + o : pts->joints + po;
    const float* nw = own ? s->weights + o : pts->weights + po;
    const uint32_t nn = own ? n : pn;
    bool changed = nn != n;
    for (uint32_t i = 0; i < nn && !changed; ++i) changed = nj[i] != s->joints[o + i] || nw[i] != s->weights[o + i];
    if (changed) fl |= SKC_WFLAG_CHANGED;
    if (fl) skc_wreport_flag(r, v, fl);
    skc_skin_builder_push(&b, nj, nw, nn);
  }
  if ((rc = skc_skin_builder_finish(&b, s, err))) return rc;
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}

static int smooth_welded(skc_skin* s, const skc_wscope* sc, const skc_smooth_params* p, const welded* w, skc_wreport* r,
                         skc_err* err) {
  skc_skin* pts = NULL;
  uint8_t* mask = malloc(w->R + 1);
  uint8_t* pflags = calloc(w->R + 1, 1);
  int rc = !mask || !pflags ? skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory smoothing")
                            : skc_skin_create(w->R, s->joint_count, &pts, err);
  if (!rc) rc = point_skin(s, sc, w, pts, mask, err);
  if (!rc) {
    skc_smooth_params q = *p;
    q.positions = w->pos;
    q.positions_stride = 12;
    q.triangles = w->tri;
    skc_wscope ps = {mask, sc->locked};
    skc_wreport pr = {0};
    pr.vertex_flags = pflags;
    rc = smooth_edges(pts, &ps, &q, &pr, err);
  }
  if (!rc) rc = write_points(s, sc, w, pts, pflags, r, err);
  skc_skin_destroy(pts);
  free(mask), free(pflags);
  return rc;
}

int skc_weights_smooth(skc_skin* s, const skc_wscope* sc, const skc_smooth_params* p, skc_wreport* r, skc_err* err) {
  if (!p->triangles || p->triangle_count == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "smoothing needs triangles (the mesh has no faces)");
  if (p->iterations == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "smoothing needs at least one iteration");
  if (!(p->factor > 0.0f && p->factor <= 1.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "smoothing factor %g is outside (0, 1]", (double)p->factor);
  if (!(p->min_weight >= 0.0f && p->min_weight < 1.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "min_weight %g is outside [0, 1)", (double)p->min_weight);
  uint32_t J = s->joint_count;
  if (p->joint_list_count && !p->joints)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "joint list is NULL but joint_list_count is %zu", p->joint_list_count);
  for (size_t k = 0; k < p->joint_list_count; ++k)
    if (p->joints[k] >= J)
      return skc_fail(err, SKC_OUT_OF_RANGE, "joint %u in the smoothing list is not in the skin (joint_count %u)",
                      p->joints[k], J);
  if (p->cotangent && !p->positions) return skc_fail(err, SKC_INVALID_ARGUMENT, "cotangent smoothing needs positions");

  if (p->positions && p->positions_stride && p->positions_stride < 12)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "positions stride %zu is below 12 bytes", p->positions_stride);
  welded w = {0};
  if (p->positions && s->vertex_count > 1 && weld_points(p, s->vertex_count, &w)) {
    welded_free(&w);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory smoothing %zu vertices", s->vertex_count);
  }
  int rc = w.first ? smooth_welded(s, sc, p, &w, r, err) : smooth_edges(s, sc, p, r, err);
  welded_free(&w);
  return rc;
}
