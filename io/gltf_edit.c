#define _DEFAULT_SOURCE /* fsync, O_CLOEXEC */
/* gltf_edit.c - a glTF that skinkit read, written again with new JOINTS_n / WEIGHTS_n and every other byte kept: the
 * JSON text is spliced (only the changed spans are rewritten), the BIN chunk is copied and new data appended. What
 * changes and why: skio_gltf_edit.h. Facts used from the glTF 2.0 specification (3.7.3.3, 3.6.2): JOINTS_n are
 * VEC4 unsigned byte / unsigned short, WEIGHTS_n VEC4 float / normalized unsigned byte / normalized unsigned short;
 * sets are numbered from 0 without gaps; vertex attribute data starts at a multiple of 4 bytes; weights of a vertex
 * sum to 1 (for normalized integers: the integer sum is the type's maximum); a joint appears once per vertex with a
 * non-zero weight. Little-endian host assumed, like the rest of skinkit's binary formats. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skc_skin.h"
#include "skio_atomic.h"
#include "skio_buf.h"
#include "skio_gltf_edit.h"

#define MAX_SETS 64u /* 256 influences per vertex */

/* ---- growable bytes: skio_buf.h ------------------------------------------------------------------------------ */
typedef skio_buf buf;

/* ---- JSON splices -------------------------------------------------------------------------------------------- */
typedef struct splice {
  int start, end; /* replaced span of the source JSON ([start, start) = an insertion) */
  int seq;        /* insertion order, for splices at one position */
  char* text;     /* owned, NUL-terminated; "" = deletion */
} splice;

typedef struct splices {
  splice* s;
  size_t n, cap;
  int seq;
  bool oom;
} splices;

static void add_splice(splices* l, int start, int end, const char* text, size_t len) {
  if (l->oom) return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 32;
    splice* p = realloc(l->s, cap * sizeof *p);
    if (!p) {
      l->oom = true;
      return;
    }
    l->s = p;
    l->cap = cap;
  }
  char* t = malloc(len + 1);
  if (!t) {
    l->oom = true;
    return;
  }
  memcpy(t, text, len);
  t[len] = 0;
  l->s[l->n++] = (splice){start, end, l->seq++, t};
}

static void add_splice_buf(splices* l, int start, int end, const buf* b) {
  if (b->oom)
    l->oom = true;
  else
    add_splice(l, start, end, b->n ? (const char*)b->p : "", b->n);
}

static int cmp_splice(const void* a, const void* b) {
  const splice* x = a;
  const splice* y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The spliced JSON text into out; false when two replaced spans overlap (a bug, reported as SKC_INTERNAL). */
static bool apply_splices(const skio_gltf_doc* d, size_t json_len, splices* l, buf* out) {
  if (l->n) qsort(l->s, l->n, sizeof *l->s, cmp_splice); /* no splice at all: the JSON is kept as it is */
  size_t at = 0;
  for (size_t i = 0; i < l->n; ++i) {
    const splice* s = &l->s[i];
    if ((size_t)s->start < at) return false;
    skio_buf_put(out, d->json + at, (size_t)s->start - at);
    skio_buf_put(out, s->text, strlen(s->text));
    at = (size_t)s->end;
  }
  skio_buf_put(out, d->json + at, json_len - at);
  return true;
}

static void free_splices(splices* l) {
  for (size_t i = 0; i < l->n; ++i) free(l->s[i].text);
  free(l->s);
}

/* "JOINTS_<n>" / "WEIGHTS_<n>" key: 1 joints, 2 weights, 0 other; *set = n. */
static int skin_key(const skio_gltf_doc* d, int key, uint32_t* set) {
  if (!skio_json_is(d, key, 3)) return 0;
  const char* s = d->json + d->tok[key].start;
  size_t len = (size_t)(d->tok[key].end - d->tok[key].start);
  int kind = 0;
  size_t p = 0;
  if (len > 7 && memcmp(s, "JOINTS_", 7) == 0)
    kind = 1, p = 7;
  else if (len > 8 && memcmp(s, "WEIGHTS_", 8) == 0)
    kind = 2, p = 8;
  if (!kind || len - p > 6) return 0;
  uint32_t v = 0;
  for (; p < len; ++p) {
    if (s[p] < '0' || s[p] > '9') return 0;
    v = v * 10 + (uint32_t)(s[p] - '0');
  }
  *set = v;
  return kind;
}

/* Removes the key/value pairs of object obj whose key index is flagged in drop (obj's size entries): each run of
 * removed pairs goes with the comma before it (or after it, for a run at the start). */
static void remove_pairs(const skio_gltf_doc* d, int obj, const bool* drop, splices* l) {
  const int n = d->tok[obj].size;
  for (int a = 0; a < n;) {
    if (!drop[a]) {
      ++a;
      continue;
    }
    int b = a;
    while (b + 1 < n && drop[b + 1]) ++b;
    int kb = skio_json_key_at(d, obj, b);
    int end_b = d->tok[kb + 1].end;
    if (d->tok[kb + 1].type == 3) end_b++; /* a string value's closing quote */
    if (a > 0) {
      int kp = skio_json_key_at(d, obj, a - 1);
      int end_p = d->tok[kp + 1].end + (d->tok[kp + 1].type == 3 ? 1 : 0);
      add_splice(l, end_p, end_b, "", 0);
    } else if (b + 1 < n) {
      int ka = skio_json_key_at(d, obj, a), kn = skio_json_key_at(d, obj, b + 1);
      add_splice(l, d->tok[ka].start - 1, d->tok[kn].start - 1, "", 0);
    } else { /* every pair: keep the braces */
      int ka = skio_json_key_at(d, obj, a);
      add_splice(l, d->tok[ka].start - 1, end_b, "", 0);
    }
    a = b + 1;
  }
}

/* Appends items (JSON text "{...},{...}" without a leading comma) to the top-level array name (creating it). */
static void append_items(const skio_gltf_doc* d, const char* name, const buf* items, splices* l) {
  if (!items->n) return;
  buf t = {0};
  int arr = skio_json_get(d, 0, name);
  if (skio_json_is(d, arr, 2)) {
    if (d->tok[arr].size) skio_buf_put(&t, ",", 1);
    skio_buf_put(&t, items->p, items->n);
    add_splice_buf(l, d->tok[arr].end - 1, d->tok[arr].end - 1, &t);
  } else {
    skio_buf_printf(&t, "%s\"%s\":[", d->tok[0].size ? "," : "", name);
    skio_buf_put(&t, items->p, items->n);
    skio_buf_put(&t, "]", 1);
    add_splice_buf(l, d->tok[0].end - 1, d->tok[0].end - 1, &t);
  }
  if (items->oom) l->oom = true;
  free(t.p);
}

/* ---- influences -------------------------------------------------------------------------------------------- */
typedef struct jw {
  uint32_t j;
  float w;
} jw;

static int cmp_jw(const void* a, const void* b) {
  const jw* x = a;
  const jw* y = b;
  if (x->w != y->w) return x->w > y->w ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

/* One vertex as written: entries (j, w) sorted, integer weights in q (total 255 / 65535; NULL for floats); returns
 * the count kept. tmp holds n entries, q n values. */
static size_t vertex_out(const uint32_t* j, const float* w, size_t n, uint32_t total, jw* tmp, uint32_t* q, float* qw) {
  size_t c = 0;
  for (size_t i = 0; i < n; ++i)
    if (isfinite(w[i]) && w[i] > 0.0f) tmp[c++] = (jw){j[i], w[i]};
  if (c > 1) qsort(tmp, c, sizeof *tmp, cmp_jw);
  if (!total || !c) return c;
  for (size_t i = 0; i < c; ++i) qw[i] = tmp[i].w;
  skc_quantize_weights(qw, c, total, q);
  size_t u = 0; /* drop entries that quantized to 0 (the order is kept: largest remainder preserves it) */
  for (size_t i = 0; i < c; ++i)
    if (q[i]) tmp[u] = tmp[i], q[u++] = q[i];
  return u;
}

/* ---- per primitive --------------------------------------------------------------------------------------------- */
typedef struct prim_plan {
  int prim, attrs;                /* tokens */
  uint32_t sets;                  /* sets written */
  uint32_t jct, wct;              /* component types */
  size_t V;
  uint8_t* jdata;                 /* sets * V * 4 * jsize */
  uint8_t* wdata;                 /* sets * V * 4 * wsize */
  int64_t old_j[MAX_SETS], old_w[MAX_SETS]; /* old accessors per set (-1 none) */
  int64_t added[2][MAX_SETS];     /* the new JOINTS (0) / WEIGHTS (1) accessor of each set, -1 none */
  int pos;                        /* POSITION accessor */
  uint32_t joint_limit;           /* joints of the skin */
} prim_plan;

/* The plans by POSITION accessor: pos_last[a] the last plan on accessor a (pos_last[accessors]: on none), same_pos[i]
 * the plan before i on i's; -1 ends a chain. */
typedef struct plan_index {
  int32_t *same_pos, *pos_last;
  uint32_t accessors;
} plan_index;

/* An accessor an earlier plan added with the same values in place of the same old accessor (or of none) of a
 * primitive on the same POSITION accessor, or -1: primitives that shared their vertex data share the new JOINTS_n
 * / WEIGHTS_n too (any earlier plan that matches added the same accessor as the first: it found that one). */
static int64_t shared_added(const prim_plan* plans, const plan_index* ix, size_t i, int kind, uint32_t set) {
  const prim_plan* pl = &plans[i];
  const int64_t old = kind ? pl->old_w[set] : pl->old_j[set];
  const uint32_t ct = kind ? pl->wct : pl->jct;
  const size_t len = pl->V * 4 * skio_gltf_component_size(ct);
  for (int32_t k = ix->same_pos[i]; k >= 0; k = ix->same_pos[k]) { /* the earlier plans on its POSITION accessor */
    const prim_plan* o = &plans[k];
    const int64_t o_old = kind ? o->old_w[set] : o->old_j[set];
    if (set >= o->sets || o->added[kind][set] < 0 || o_old != old || o->pos != pl->pos || o->V != pl->V ||
        (kind ? o->wct : o->jct) != ct)
      continue;
    const uint8_t* a = (kind ? pl->wdata : pl->jdata) + (size_t)set * len;
    const uint8_t* b = (kind ? o->wdata : o->jdata) + (size_t)set * len;
    if (!memcmp(a, b, len)) return o->added[kind][set];
  }
  return -1;
}

static int attr_accessor(const skio_gltf_doc* d, int attrs, const char* key) {
  uint32_t a;
  int t = skio_json_get(d, attrs, key);
  return skio_json_u32(d, t, &a) && a < d->accessor_count ? (int)a : -1;
}

/* Each set's old JOINTS_n / WEIGHTS_n accessor (-1 none) in one pass over the attributes, the last of repeated keys
 * winning as in skio_json_get (128 lookups a primitive were a tenth of converting 20,000 meshes); a key written with
 * escapes sends the primitive to those lookups, which decode them. */
static void old_sets(const skio_gltf_doc* d, int attrs, prim_plan* pl) {
  bool escaped = false;
  for (uint32_t s = 0; s < MAX_SETS; ++s) pl->old_j[s] = pl->old_w[s] = -1;
  for (int k = 0, n = d->tok[attrs].size; k < n && !escaped; ++k) {
    const int key = skio_json_key_at(d, attrs, k);
    if (key < 0) continue;
    const char* text = d->json + d->tok[key].start;
    const size_t len = (size_t)(d->tok[key].end - d->tok[key].start);
    escaped = memchr(text, '\\', len) != NULL;
    uint32_t set, a;
    const int kind = escaped ? 0 : skin_key(d, key, &set);
    const size_t digits = kind == 1 ? len - 7 : len - 8;
    if (!kind || set >= MAX_SETS || (digits > 1 && text[len - digits] == '0')) continue; /* "JOINTS_01" is no set */
    (kind == 1 ? pl->old_j : pl->old_w)[set] = skio_json_u32(d, key + 1, &a) && a < d->accessor_count ? (int64_t)a : -1;
  }
  for (uint32_t s = 0; escaped && s < MAX_SETS; ++s) {
    char key[24];
    snprintf(key, sizeof key, "JOINTS_%u", s);
    pl->old_j[s] = attr_accessor(d, attrs, key);
    snprintf(key, sizeof key, "WEIGHTS_%u", s);
    pl->old_w[s] = attr_accessor(d, attrs, key);
  }
}

/* Sets the plan's component types: the source's when they fit. Returns the integer weights' total (255 / 65535; 0
 * for floats). */
static uint32_t plan_types(skio_gltf_doc* d, const skio_gltf_prim_edit* e, skio_weights_type wt, prim_plan* pl) {
  skio_gltf_accessor a;
  pl->jct = e->joint_limit <= 256 ? SKIO_GLTF_UNSIGNED_BYTE : SKIO_GLTF_UNSIGNED_SHORT;
  if (pl->old_j[0] >= 0 && !skio_gltf_accessor_info(d, (uint32_t)pl->old_j[0], &a, NULL) &&
      a.component_type == SKIO_GLTF_UNSIGNED_SHORT)
    pl->jct = SKIO_GLTF_UNSIGNED_SHORT;
  pl->wct = SKIO_GLTF_FLOAT;
  if (wt == SKIO_WEIGHTS_U8)
    pl->wct = SKIO_GLTF_UNSIGNED_BYTE;
  else if (wt == SKIO_WEIGHTS_U16)
    pl->wct = SKIO_GLTF_UNSIGNED_SHORT;
  else if (wt == SKIO_WEIGHTS_SOURCE && pl->old_w[0] >= 0 &&
           !skio_gltf_accessor_info(d, (uint32_t)pl->old_w[0], &a, NULL) && a.normalized &&
           (a.component_type == SKIO_GLTF_UNSIGNED_BYTE || a.component_type == SKIO_GLTF_UNSIGNED_SHORT))
    pl->wct = a.component_type;
  return pl->wct == SKIO_GLTF_UNSIGNED_BYTE ? 255u : pl->wct == SKIO_GLTF_UNSIGNED_SHORT ? 65535u : 0u;
}

/* pass 1: checks and the widest vertex. The edit's offsets and joints checked; *widest gets the most entries of one
 * vertex. */
static int check_edit(const skio_gltf_doc* d, const skio_gltf_prim_edit* e, size_t* widest, skc_err* err) {
  const size_t V = e->vertex_count;
  *widest = 0;
  if (e->offsets) {
    if (e->offsets[0] != 0)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: meshes[%u]: offsets[0] is not 0", d->path, e->mesh);
    for (size_t v = 0; v < V; ++v) {
      if (e->offsets[v + 1] < e->offsets[v])
        return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: meshes[%u]: offsets decrease at vertex %zu", d->path, e->mesh,
                        v);
      size_t n = e->offsets[v + 1] - e->offsets[v];
      if (n > *widest) *widest = n;
    }
  } else {
    *widest = e->k;
  }
  const size_t entries = e->offsets ? e->offsets[V] : V * e->k;
  if (entries && (!e->joints || !e->weights))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: meshes[%u]: joints and weights must not be NULL", d->path, e->mesh);
  for (size_t i = 0; i < entries; ++i)
    if (e->joints[i] >= e->joint_limit && isfinite(e->weights[i]) && e->weights[i] > 0.0f)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: meshes[%u]: joint %u, the skin has %u", d->path, e->mesh,
                      e->joints[i], e->joint_limit);
  return SKC_OK;
}

/* Scratch for vertex_out: entries, integer weights and their float weights of the widest vertex. */
typedef struct vertex_scratch {
  jw* tmp;
  uint32_t* q;
  float* qw;
} vertex_scratch;

/* Vertex v of edit e as written (vertex_out into x); returns the count kept. */
static size_t edit_vertex(const skio_gltf_prim_edit* e, size_t v, uint32_t total, const vertex_scratch* x) {
  size_t b = e->offsets ? e->offsets[v] : v * e->k, n = e->offsets ? e->offsets[v + 1] - b : e->k;
  return vertex_out(e->joints + b, e->weights + b, n, total, x->tmp, x->q, x->qw);
}

/* pass 2: the streams, set by set (set s holds entries 4s..4s+3 of every vertex). Fills pl's allocated jdata and
 * wdata. */
static void fill_streams(const skio_gltf_prim_edit* e, uint32_t total, const vertex_scratch* x, prim_plan* pl) {
  const size_t V = e->vertex_count;
  const size_t js = skio_gltf_component_size(pl->jct), ws = skio_gltf_component_size(pl->wct);
  const jw* tmp = x->tmp;
  const uint32_t* q = x->q;
  for (size_t v = 0; v < V; ++v) {
    size_t c = edit_vertex(e, v, total, x);
    for (size_t i = 0; i < c; ++i) {
      size_t at = ((i / 4) * V + v) * 4 + i % 4; /* element index in the set-major stream */
      if (js == 1)
        pl->jdata[at] = (uint8_t)tmp[i].j;
      else {
        uint16_t x16 = (uint16_t)tmp[i].j;
        memcpy(pl->jdata + at * 2, &x16, 2);
      }
      if (pl->wct == SKIO_GLTF_FLOAT)
        memcpy(pl->wdata + at * 4, &tmp[i].w, 4);
      else if (ws == 1)
        pl->wdata[at] = (uint8_t)q[i];
      else {
        uint16_t x16 = (uint16_t)q[i];
        memcpy(pl->wdata + at * 2, &x16, 2);
      }
    }
  }
}

/* The sets edit e needs (its most influences kept on one vertex), pl's streams allocated and filled. */
static int plan_streams(const skio_gltf_doc* d, const skio_gltf_prim_edit* e, uint32_t total, const vertex_scratch* x,
                        prim_plan* pl, skc_err* err) {
  const size_t V = e->vertex_count;
  size_t most = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t c = edit_vertex(e, v, total, x);
    if (c > most) most = c;
  }
  uint32_t sets = (uint32_t)((most + 3) / 4);
  if (sets == 0) sets = 1;
  if (sets > MAX_SETS)
    return skc_fail(err, SKC_UNSUPPORTED, "%s: meshes[%u]: %zu influences on one vertex (at most %u)", d->path, e->mesh,
                    most, MAX_SETS * 4);
  pl->sets = sets;
  const size_t js = skio_gltf_component_size(pl->jct), ws = skio_gltf_component_size(pl->wct);
  pl->jdata = calloc((size_t)sets * V * 4, js);
  pl->wdata = calloc((size_t)sets * V * 4, ws);
  if (!pl->jdata || !pl->wdata) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", d->path);
  fill_streams(e, total, x, pl);
  return SKC_OK;
}

static int build_plan(skio_gltf_doc* d, const skio_gltf_prim_edit* e, skio_weights_type wt, prim_plan* pl,
                      skc_err* err) {
  int mesh = skio_gltf_item(d, "meshes", e->mesh);
  int prim = skio_json_at(d, skio_json_get(d, mesh, "primitives"), (int)e->primitive);
  int attrs = skio_json_get(d, prim, "attributes");
  if (!skio_json_is(d, attrs, 1))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: meshes[%u].primitives[%u] does not exist", d->path, e->mesh,
                    e->primitive);
  pl->prim = prim;
  pl->attrs = attrs;
  for (uint32_t s = 0; s < MAX_SETS; ++s) pl->added[0][s] = pl->added[1][s] = -1;
  pl->V = e->vertex_count;
  pl->joint_limit = e->joint_limit;
  int pos = attr_accessor(d, attrs, "POSITION");
  pl->pos = pos;
  skio_gltf_accessor a;
  if (pos < 0 || skio_gltf_accessor_info(d, (uint32_t)pos, &a, NULL) || a.count != e->vertex_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: meshes[%u].primitives[%u] has %zu vertices, the edit %zu", d->path,
                    e->mesh, e->primitive, pos < 0 ? (size_t)0 : a.count, e->vertex_count);
  if (e->joint_limit == 0 || e->joint_limit > 65536u)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: meshes[%u]: a skin of %u joints", d->path, e->mesh, e->joint_limit);
  old_sets(d, attrs, pl);
  const uint32_t total = plan_types(d, e, wt, pl);
  size_t widest;
  int rc = check_edit(d, e, &widest, err);
  if (rc) return rc;
  vertex_scratch x;
  x.tmp = malloc((widest + 1) * sizeof *x.tmp);
  x.q = malloc((widest + 1) * sizeof *x.q);
  x.qw = malloc((widest + 1) * sizeof *x.qw);
  if (!x.tmp || !x.q || !x.qw)
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", d->path);
  else
    rc = plan_streams(d, e, total, &x, pl, err);
  free(x.tmp), free(x.q), free(x.qw);
  return rc;
}

/* Accessors referenced by primitives (attributes and morph targets), counted: an accessor two primitives share is
 * never overwritten in place. */
static uint32_t* attribute_refs(const skio_gltf_doc* d) {
  uint32_t* refs = calloc(d->accessor_count + 1, sizeof *refs);
  if (!refs) return NULL;
  for (uint32_t m = 0; m < d->mesh_count; ++m) {
    int prims = skio_json_get(d, skio_gltf_item(d, "meshes", m), "primitives");
    for (int p = 0, np = skio_json_len(d, prims); p < np; ++p) {
      int prim = skio_json_at(d, prims, p);
      int targets = skio_json_get(d, prim, "targets");
      for (int t = -1, nt = skio_json_len(d, targets); t < nt; ++t) {
        int obj = t < 0 ? skio_json_get(d, prim, "attributes") : skio_json_at(d, targets, t);
        for (int k = 0, nk = skio_json_is(d, obj, 1) ? d->tok[obj].size : 0; k < nk; ++k) {
          uint32_t a;
          if (skio_json_u32(d, skio_json_key_at(d, obj, k) + 1, &a) && a < d->accessor_count) refs[a]++;
        }
      }
    }
  }
  return refs;
}

/* Whether accessor a is one of: a primitive's indices, a skin's inverse binds, an animation sampler's input or output
 * (what, besides the attributes attribute_refs counts, names accessors in core glTF). */
static bool accessor_used_elsewhere(const skio_gltf_doc* d, uint32_t a) {
  uint32_t x;
  for (uint32_t m = 0; m < d->mesh_count; ++m) {
    int prims = skio_json_get(d, skio_gltf_item(d, "meshes", m), "primitives");
    for (int p = 0, np = skio_json_len(d, prims); p < np; ++p)
      if (skio_json_u32(d, skio_json_get(d, skio_json_at(d, prims, p), "indices"), &x) && x == a) return true;
  }
  for (uint32_t k = 0; k < d->skin_count; ++k)
    if (skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "skins", k), "inverseBindMatrices"), &x) && x == a)
      return true;
  for (uint32_t k = 0; k < d->animation_count; ++k) {
    int samplers = skio_json_get(d, skio_gltf_item(d, "animations", k), "samplers");
    for (int s = 0, ns = skio_json_len(d, samplers); s < ns; ++s) {
      int smp = skio_json_at(d, samplers, s);
      if ((skio_json_u32(d, skio_json_get(d, smp, "input"), &x) && x == a) ||
          (skio_json_u32(d, skio_json_get(d, smp, "output"), &x) && x == a))
        return true;
    }
  }
  return false;
}

/* Accessor ai's JSON object replaced by a declaration of the new data on view `view` (its name and extras kept):
 * the attribute keeps its accessor index and no accessor is left holding the old values (a sparse set with NaN
 * weights, integer weights without "normalized"), which validators check whether or not anything uses them. Only for
 * an accessor that one attribute of one primitive names (refs) and nothing else does. */
static bool redeclare_accessor(const skio_gltf_doc* d, int64_t ai, const uint32_t* refs, uint32_t view, uint32_t ct,
                               size_t V, bool normalized, splices* sp) {
  if (ai < 0 || refs[ai] != 1 || accessor_used_elsewhere(d, (uint32_t)ai)) return false;
  const int obj = skio_gltf_item(d, "accessors", (uint32_t)ai);
  if (!skio_json_is(d, obj, 1)) return false;
  buf t = {0};
  skio_buf_printf(&t, "{\"bufferView\":%u,\"componentType\":%u,\"count\":%zu,\"type\":\"VEC4\"%s", view, ct, V,
                  normalized ? ",\"normalized\":true" : "");
  static const char* const kept[] = {"name", "extras"};
  for (int k = 0; k < 2; ++k) {
    const int v = skio_json_get(d, obj, kept[k]);
    if (v < 0) continue;
    const int str = d->tok[v].type == 3 ? 1 : 0; /* a string token's span leaves its quotes out */
    const int start = d->tok[v].start - str, end = d->tok[v].end + str;
    skio_buf_printf(&t, ",\"%s\":%.*s", kept[k], end - start, d->json + start);
  }
  skio_buf_put(&t, "}", 1);
  add_splice_buf(sp, d->tok[obj].start, d->tok[obj].end, &t);
  const bool ok = !t.oom;
  free(t.p);
  if (!ok) sp->oom = true;
  return true;
}

/* An old JOINTS_n / WEIGHTS_n accessor of a set no longer written, when one attribute named it and nothing else does:
 * declared as one zero without data, so that its index stays valid and its old values are no longer read by
 * anything (validators check every accessor). */
static void retire_accessor(const skio_gltf_doc* d, uint32_t ai, const uint32_t* refs, splices* sp) {
  const int obj = skio_gltf_item(d, "accessors", ai);
  if (refs[ai] != 1 || !skio_json_is(d, obj, 1) || accessor_used_elsewhere(d, ai)) return;
  static const char placeholder[] = "{\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}";
  add_splice(sp, d->tok[obj].start, d->tok[obj].end, placeholder, sizeof placeholder - 1);
}

/* The sets the plan no longer needs lose their attributes, here and in the Draco attribute map (which would replace
 * the new streams); their old accessors, when nothing else names them, become a one-element placeholder without data
 * (their index stays valid, their old values - NaN weights, joints past the skin - leave the file's JSON). */
static void drop_unneeded_sets(const skio_gltf_doc* d, const prim_plan* pl, const uint32_t* refs, splices* sp,
                               skio_gltf_edit_report* rep) {
  int draco = skio_json_get(d, skio_json_get(d, skio_json_get(d, pl->prim, "extensions"), "KHR_draco_mesh_compression"),
                            "attributes");
  for (int pass = 0; pass < 2; ++pass) {
    int obj = pass ? draco : pl->attrs;
    if (!skio_json_is(d, obj, 1)) continue;
    int n = d->tok[obj].size;
    bool* drop = calloc((size_t)n + 1, sizeof *drop);
    if (!drop) {
      sp->oom = true;
      return;
    }
    bool any = false;
    for (int k = 0; k < n; ++k) {
      uint32_t set, a;
      const int key = skio_json_key_at(d, obj, k), kind = skin_key(d, key, &set);
      drop[k] = kind && (pass || set >= pl->sets);
      if (drop[k] && !pass && kind == 1) rep->sets_removed++;
      if (drop[k] && !pass && skio_json_u32(d, key + 1, &a) && a < d->accessor_count) retire_accessor(d, a, refs, sp);
      any |= drop[k];
    }
    if (any) remove_pairs(d, obj, drop, sp);
    free(drop);
  }
}

/* The plan of a primitive drawing POSITION accessor pos whose old set `set` of kind (1 JOINTS, 2 WEIGHTS) was
 * accessor acc, or NULL. */
static const prim_plan* plan_replacing(const prim_plan* plans, const plan_index* ix, int pos, int kind, uint32_t set,
                                       int64_t acc) {
  const prim_plan* first = NULL; /* the chain runs from the last plan back: the first in plan order is kept */
  if (pos < 0 || (uint32_t)pos >= ix->accessors) return NULL;
  for (int32_t i = ix->pos_last[pos]; set < MAX_SETS && i >= 0; i = ix->same_pos[i])
    if (plans[i].pos == pos && (kind == 1 ? plans[i].old_j[set] : plans[i].old_w[set]) == acc) first = &plans[i];
  return first;
}

/* Primitives no plan edits (POINTS and LINES, which the reader does not read) that draw an edited primitive's vertices
 * with its old JOINTS_n / WEIGHTS_n accessors take its new ones, and lose the sets it dropped (they kept the old
 * weights: the audit of session 44). */
static void repoint_others(const skio_gltf_doc* d, const prim_plan* plans, size_t count, const plan_index* ix,
                           splices* sp) {
  uint8_t* planned_tok = calloc((size_t)d->tok_count + 1, 1);
  if (!planned_tok) {
    sp->oom = true;
    return;
  }
  for (size_t i = 0; i < count; ++i)
    if (plans[i].prim >= 0 && plans[i].prim < d->tok_count) planned_tok[plans[i].prim] = 1;
  for (uint32_t m = 0; m < d->mesh_count; ++m) {
    int prims = skio_json_get(d, skio_gltf_item(d, "meshes", m), "primitives");
    for (int p = 0, np = skio_json_len(d, prims); p < np; ++p) {
      const int prim = skio_json_at(d, prims, p), attrs = skio_json_get(d, prim, "attributes");
      const bool planned = prim >= 0 && prim < d->tok_count && planned_tok[prim];
      const int pos = attr_accessor(d, attrs, "POSITION"), n = skio_json_is(d, attrs, 1) ? d->tok[attrs].size : 0;
      if (planned || pos < 0 || !n) continue;
      bool* drop = calloc((size_t)n + 1, sizeof *drop);
      bool any = false;
      for (int k = 0; drop && k < n; ++k) {
        uint32_t set, a;
        const int key = skio_json_key_at(d, attrs, k), kind = skin_key(d, key, &set);
        if (!kind || !skio_json_u32(d, key + 1, &a)) continue;
        const prim_plan* pl = plan_replacing(plans, ix, pos, kind, set, a);
        if (!pl) continue;
        const int64_t now = set < pl->sets ? pl->added[kind == 1 ? 0 : 1][set] : -1;
        if (set >= pl->sets) {
          any = drop[k] = true;
        } else if (now >= 0 && now != (int64_t)a) {
          char num[24];
          const int len = snprintf(num, sizeof num, "%lld", (long long)now);
          add_splice(sp, d->tok[key + 1].start, d->tok[key + 1].end, num, (size_t)len);
        }
      }
      if (any) remove_pairs(d, attrs, drop, sp);
      if (!drop) sp->oom = true;
      free(drop);
    }
  }
  free(planned_tok);
}

/* ---- .gltf -> .glb: the buffers and images into the BIN chunk ------------------------------------------------- */
/* Where each source buffer went: buffers with data (a file or a data URI) are concatenated into the BIN chunk (each
 * at a multiple of 16, so every accessor keeps its alignment), which becomes buffer 0; a buffer without a URI (an
 * EXT_meshopt_compression fallback, which holds no bytes) stays a buffer of its own after it. */
typedef struct packing {
  size_t* base;    /* per source buffer: its offset in the BIN chunk, SIZE_MAX when it has no data */
  uint32_t* index; /* per source buffer: its index in the output */
  uint32_t kept;   /* buffers without data */
  bool* embedded;  /* per image: its bytes went into the BIN chunk */
} packing;

/* Value k of a plan's new stream (joints or weights of one set): an integer, or a float's bits. */
static uint32_t new_value(const uint8_t* data, size_t cs, size_t k) {
  if (cs == 1) return data[k];
  uint32_t v = 0;
  if (cs == 2) {
    uint16_t x;
    memcpy(&x, data + k * 2, 2);
    v = x;
  } else {
    memcpy(&v, data + k * 4, 4);
  }
  return v;
}

static int cmp_pair(const void* a, const void* b) {
  const uint32_t* x = a;
  const uint32_t* y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Old values of set s of one kind as integers (floats as their bits), V * 4, malloc'd; NULL when the accessor is
 * not of type ct / normalized with V elements, or does not read. */
static uint32_t* old_values(skio_gltf_doc* d, int64_t ai, uint32_t ct, bool normalized, size_t V) {
  skio_gltf_accessor a;
  if (ai < 0 || skio_gltf_accessor_info(d, (uint32_t)ai, &a, NULL) || a.count != V || a.components != 4 ||
      a.component_type != ct || a.normalized != normalized)
    return NULL;
  uint32_t* v = malloc(V * 4 * sizeof *v + 4);
  if (!v) return NULL;
  int rc = ct == SKIO_GLTF_FLOAT ? skio_gltf_accessor_floats(d, (uint32_t)ai, (float*)(void*)v, NULL)
                                 : skio_gltf_accessor_uints(d, (uint32_t)ai, v, NULL);
  if (rc) {
    free(v);
    return NULL;
  }
  return v;
}

/* Whether accessor ai, a JOINTS_n (weights false) or WEIGHTS_n of V elements of 4 in a form glTF allows, reads and
 * every value is below limit (joints) or zero (weights: a set the file carries beyond what its influences need;
 * gltf-transform keeps an 8-influence mesh's all-zero second set). */
static bool set_values_within(skio_gltf_doc* d, int64_t ai, size_t V, bool weights, uint32_t limit) {
  skio_gltf_accessor a;
  if (ai < 0 || skio_gltf_accessor_info(d, (uint32_t)ai, &a, NULL) || a.count != V ||
      !skio_gltf_influence_format_ok(&a, weights))
    return false;
  uint32_t* u = malloc(V * 4 * sizeof *u + 4);
  float* w = (float*)(void*)u;
  bool ok = u && (weights ? skio_gltf_accessor_floats(d, (uint32_t)ai, w, NULL)
                          : skio_gltf_accessor_uints(d, (uint32_t)ai, u, NULL)) == SKC_OK;
  for (size_t k = 0; ok && k < V * 4; ++k) ok = weights ? w[k] == 0.0f : u[k] < limit;
  free(u);
  return ok;
}

static bool zero_weights(skio_gltf_doc* d, int64_t ai, size_t V) { return set_values_within(d, ai, V, true, 0); }

static bool joints_in_range(skio_gltf_doc* d, int64_t ai, size_t V, uint32_t limit) {
  return set_values_within(d, ai, V, false, limit);
}

/* Inverse of new_value. */
static void put_value(uint8_t* data, size_t cs, size_t k, uint32_t v) {
  if (cs == 1) {
    data[k] = (uint8_t)v;
  } else if (cs == 2) {
    const uint16_t x = (uint16_t)v;
    memcpy(data + k * 2, &x, 2);
  } else {
    memcpy(data + k * 4, &v, 4);
  }
}

/* The old JOINTS_n / WEIGHTS_n of the plan's sets (old_values) into oj / ow (pl->sets each, NULL-filled); false when
 * one does not read in the plan's types. */
static bool read_old_sets(skio_gltf_doc* d, const prim_plan* pl, uint32_t** oj, uint32_t** ow) {
  bool ok = true;
  for (uint32_t s = 0; s < pl->sets && ok; ++s) {
    oj[s] = old_values(d, pl->old_j[s], pl->jct, false, pl->V);
    ow[s] = old_values(d, pl->old_w[s], pl->wct, pl->wct != SKIO_GLTF_FLOAT, pl->V);
    ok = oj[s] && ow[s];
  }
  return ok;
}

/* Whether vertex v's new (joint, weight) pairs of non-zero weight are its old ones in any order, no old joint index
 * (even of weight 0: validators reject it) past the skin's. a, b: scratch of 2 * sets * 4 values. */
static bool vertex_kept(const prim_plan* pl, uint32_t* const* oj, uint32_t* const* ow, size_t v, uint32_t* a,
                        uint32_t* b) {
  const size_t V = pl->V, js = skio_gltf_component_size(pl->jct), ws = skio_gltf_component_size(pl->wct);
  size_t na = 0, nb = 0;
  for (uint32_t s = 0; s < pl->sets; ++s)
    for (size_t c = 0; c < 4; ++c) {
      const size_t k = ((size_t)s * V + v) * 4 + c, e = v * 4 + c;
      uint32_t nw = new_value(pl->wdata, ws, k), w = ow[s][e];
      if (oj[s][e] >= pl->joint_limit) return false;
      if (nw) a[2 * na] = new_value(pl->jdata, js, k), a[2 * na++ + 1] = nw;
      if (w && w != 0x80000000u) b[2 * nb] = oj[s][e], b[2 * nb++ + 1] = w; /* -0.0f is no weight either */
    }
  if (na != nb) return false;
  qsort(a, na, 2 * sizeof *a, cmp_pair);
  qsort(b, nb, 2 * sizeof *b, cmp_pair);
  return !memcmp(a, b, na * 2 * sizeof *a);
}

/* Every vertex of the plan checked with vertex_kept (restore false: whether all are kept), or (restore true) each
 * kept vertex's old slots copied over the new ones byte for byte: its entries' order and the joints of its
 * zero-weight slots too, so an edit rewrites only the vertices it changes (an auditor: --normalize changing 3
 * vertices rewrote 8, reordered by weight). */
static bool old_sets_kept(skio_gltf_doc* d, prim_plan* pl, bool restore) {
  const size_t V = pl->V, js = skio_gltf_component_size(pl->jct), ws = skio_gltf_component_size(pl->wct);
  const size_t n = (size_t)pl->sets * 4;
  uint32_t** oj = calloc(pl->sets, sizeof *oj);
  uint32_t** ow = calloc(pl->sets, sizeof *ow);
  uint32_t* a = malloc(n * 2 * sizeof *a + 4);
  uint32_t* b = malloc(n * 2 * sizeof *b + 4);
  bool same = oj && ow && a && b && read_old_sets(d, pl, oj, ow);
  const bool readable = same;
  for (size_t v = 0; v < V && readable && (restore || same); ++v) {
    const bool kept = vertex_kept(pl, oj, ow, v, a, b);
    same = same && kept;
    for (uint32_t s = 0; restore && kept && s < pl->sets; ++s)
      for (size_t c = 0; c < 4; ++c) {
        const size_t k = ((size_t)s * V + v) * 4 + c;
        put_value(pl->jdata, js, k, oj[s][v * 4 + c]);
        put_value(pl->wdata, ws, k, ow[s][v * 4 + c]);
      }
  }
  for (uint32_t s = 0; oj && ow && s < pl->sets; ++s) free(oj[s]), free(ow[s]);
  free(oj), free(ow), free(a), free(b);
  return same;
}

/* Whether the primitive's JOINTS_n / WEIGHTS_n already hold the plan's influences: the same sets (more in the file
 * only when they hold no weight), component types and normalized flags, and every vertex kept (vertex_kept). Then
 * nothing of it is written (a container change or a no-op leaves the weights' bytes as they were). */
static bool keeps_old(skio_gltf_doc* d, prim_plan* pl) {
  if (pl->sets >= MAX_SETS) return false;
  for (uint32_t s = pl->sets; s < MAX_SETS && (pl->old_j[s] >= 0 || pl->old_w[s] >= 0); ++s)
    if (!zero_weights(d, pl->old_w[s], pl->V) || !joints_in_range(d, pl->old_j[s], pl->V, pl->joint_limit))
      return false; /* a set beyond the plan's that holds weight, or joints past the skin's */
  return old_sets_kept(d, pl, false);
}

/* The largest quantization step among the old WEIGHTS_n a plan replaces (skio_gltf_draco_step: Draco data, decoded
 * here if nothing read it yet), 0 when every old weight was stored exactly (or its Draco data does not decode). */
static float old_weights_step(skio_gltf_doc* d, const prim_plan* pl) {
  float step = 0.0f;
  for (uint32_t s = 0; s < MAX_SETS; ++s) {
    const uint32_t i = (uint32_t)pl->old_w[s];
    skio_gltf_accessor a;
    const uint8_t* values;
    skc_err ignored = {0};
    if (pl->old_w[s] < 0 || !skio_gltf_draco_claims(d, i) || skio_gltf_accessor_info(d, i, &a, &ignored) ||
        skio_gltf_draco_values(d, &a, &values, &ignored))
      continue;
    step = fmaxf(step, skio_gltf_draco_step(d, i));
  }
  return step;
}

/* A plan writing float weights in place of Draco-quantized ones: each vertex whose weights sum off 1 by more than the
 * Khronos validator's float slack (2e-7 a weight) but by no more than the quantization can account for (half a step
 * a weight) is divided by its sum. Draco held those weights to that step only; written as plain floats the rounding
 * would read as weights that do not sum to 1, which glTF forbids. Returns the vertices renormalized. */
static size_t renormalize_quantized(skio_gltf_doc* d, prim_plan* pl) {
  const float step = pl->wct == SKIO_GLTF_FLOAT ? old_weights_step(d, pl) : 0.0f;
  if (!(step > 0.0f)) return 0;
  size_t count = 0;
  for (size_t v = 0; v < pl->V; ++v) {
    float* w[MAX_SETS * 4];
    size_t c = 0;
    double sum = 0.0;
    for (uint32_t s = 0; s < pl->sets; ++s)
      for (size_t k = 0; k < 4; ++k) {
        float* x = (float*)(pl->wdata + (((size_t)s * pl->V + v) * 4 + k) * 4);
        if (*x > 0.0f) sum += *x, w[c++] = x;
      }
    const double off = fabs(sum - 1.0);
    if (!c || off <= 2e-7 * (double)c || off > 0.5 * step * (double)c + 1e-6) continue;
    for (size_t i = 0; i < c; ++i) *w[i] = (float)(*w[i] / sum);
    count++;
  }
  return count;
}

/* Appends "N vertices' weights ... renormalized" to o's note. */
static void note_renormalized(const skio_gltf_edit_options* o, size_t count) {
  if (!count || !o->note || o->note_size < 2) return;
  size_t at = strlen(o->note);
  snprintf(o->note + at, o->note_size - at,
           "%s%zu vertices' weights, Draco-quantized in the source and written uncompressed, renormalized to sum 1 "
           "(each was off by less than the quantization allows)",
           at ? "; " : "", count);
}

/* Where the bytes at data (size bytes of a view) sit in the BIN chunk written: the GLB's own, or the one a .gltf's
 * buffers were packed into (pk->base set); false when they are not in it. */
static bool bin_offset(const skio_gltf_doc* d, const packing* pk, int32_t view, const uint8_t* data, size_t size,
                       size_t* offset) {
  if (!pk->base) {
    if (!d->is_glb || !d->bin || data < d->bin || data + size > d->bin + d->bin_size) return false;
    *offset = (size_t)(data - d->bin);
    return true;
  }
  uint32_t b;
  if (!skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "bufferViews", (uint32_t)view), "buffer"), &b) ||
      b >= d->buffer_count || pk->base[b] == SIZE_MAX)
    return false;
  const uint8_t* bd = d->buffers[b].data;
  if (!bd || data < bd || data + size > bd + d->buffers[b].byte_length) return false;
  *offset = pk->base[b] + (size_t)(data - bd);
  return true;
}

/* Whether another accessor of a's view reads bytes of a's elements (stride st, elem bytes each): interleaved attributes
 * side by side in one stride do not; two accessors over the same bytes (valid glTF: two meshes sharing their weights)
 * do, and an edit in place of one would change the other. */
static bool accessor_overlapped(const skio_gltf_doc* d, const skio_gltf_accessor* a, size_t st, size_t elem) {
  for (uint32_t k = 0; k < d->accessor_count; ++k) {
    skio_gltf_accessor o;
    if (k == a->index || skio_gltf_accessor_decl(d, k, &o, NULL) || o.view != a->view || !o.count) continue;
    const size_t oe = o.components * skio_gltf_component_size(o.component_type), ost = d->views[a->view].stride;
    if (ost && a->byte_offset + elem <= st && o.byte_offset + oe <= st) { /* both inside one stride: the windows */
      if (o.byte_offset < a->byte_offset + elem && a->byte_offset < o.byte_offset + oe) return true;
      continue;
    }
    const size_t alo = a->byte_offset, ahi = alo + (a->count - 1) * st + elem;
    const size_t olo = o.byte_offset, ohi = olo + (o.count - 1) * (ost ? ost : oe) + oe;
    if (olo < ahi && alo < ohi) return true;
  }
  return false;
}

/* Where accessor a's elements sit in the BIN chunk written (bin_offset) when it can be overwritten with ct /
 * normalized / count V (see skio_gltf_edit.h); false otherwise. */
static bool in_place_slot(skio_gltf_doc* d, const packing* pk, int64_t ai, uint32_t ct, bool normalized, size_t V,
                          const uint32_t* refs, size_t* offset, size_t* stride) {
  skio_gltf_accessor a;
  if (ai < 0 || refs[ai] != 1 || skio_gltf_accessor_info(d, (uint32_t)ai, &a, NULL)) return false;
  if (a.view < 0 || a.sparse_count || a.count != V || a.components != 4 || a.component_type != ct ||
      a.normalized != normalized || skio_json_get(d, a.tok, "min") >= 0 || skio_json_get(d, a.tok, "max") >= 0)
    return false;
  const uint8_t* data;
  size_t size, st;
  if (skio_gltf_view_data(d, (uint32_t)a.view, &data, &size, &st, NULL) || d->views[a.view].compression) return false;
  size_t at;
  if (!bin_offset(d, pk, a.view, data, size, &at)) return false;
  const size_t elem = 4 * skio_gltf_component_size(ct);
  if (!st) st = elem;
  if (st < elem || a.byte_offset > size || (V - 1) > (size - a.byte_offset - elem) / st || size - a.byte_offset < elem)
    return false;
  if (skio_gltf_view_shared(d, (uint32_t)a.view) || accessor_overlapped(d, &a, st, elem)) return false;
  *offset = at + a.byte_offset;
  *stride = st;
  return true;
}

/* Writes n bytes to a new temporary file beside path, flushed (skio_atomic_stage); *tmp_out gets its name. */
static int write_temp(const char* path, const void* data, size_t n, char** tmp_out, skc_err* err) {
  return skio_atomic_stage(path, &data, &n, 1, tmp_out, err);
}

/* A companion file to write: its final path, its bytes, whether it existed before. */
typedef struct outfile {
  char* path;
  const uint8_t* data;
  size_t size;
  uint8_t* owned; /* data read here (an image), else NULL */
  bool existed;
  bool same; /* it exists with these very bytes: nothing to write (a second output into the folder) */
} outfile;

/* Whether the file at path holds exactly n bytes equal to data. */
static bool file_holds(const char* path, const uint8_t* data, size_t n) {
  FILE* fp = fopen(path, "rb");
  if (!fp) return false;
  uint8_t chunk[65536];
  size_t at = 0, got;
  bool same = true;
  while (same && (got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
    same = at + got <= n && memcmp(chunk, data + at, got) == 0;
    at += got;
  }
  same = same && !ferror(fp) && at == n;
  fclose(fp);
  return same;
}

/* The folders between out_dir and the companion file path (a texture in "tex/" beside a .gltf written into another
 * folder) that do not exist, made; each one made is appended to made (room for 16) so that a failed write can take
 * them away again. */
static int make_folders(const char* out, const char* out_dir, const char* path, char** made, size_t* nmade,
                        skc_err* err) {
  const size_t base = strlen(out_dir);
  for (const char* slash = strchr(path + base + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    char* dir = strndup(path, (size_t)(slash - path));
    struct stat st;
    if (!dir) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    if (stat(dir, &st) == 0) {
      free(dir);
      continue;
    }
    if (*nmade >= 16 || mkdir(dir, 0777) != 0) {
      int e = errno;
      int rc =
          skc_fail(err, SKC_IO, "%s: cannot make folder %s: %s", out, dir, *nmade >= 16 ? "too deep" : strerror(e));
      free(dir);
      return rc;
    }
    made[(*nmade)++] = dir;
  }
  return SKC_OK;
}

static char* dir_of(const char* path) {
  const char* slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 1;
  char* d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, slash ? path : ".", n);
  d[n] = 0;
  return d;
}

static char* join(const char* dir, const char* name) {
  size_t a = strlen(dir), b = strlen(name);
  char* p = malloc(a + b + 2);
  if (!p) return NULL;
  memcpy(p, dir, a);
  p[a] = '/';
  memcpy(p + a + 1, name, b + 1);
  return p;
}

/* Percent-decoded relative URI, or NULL (data: URI, absolute, scheme, "..", out of memory). */
static char* relative_file(const char* uri) {
  if (!uri || strncmp(uri, "data:", 5) == 0 || uri[0] == '/' || strchr(uri, ':')) return NULL;
  size_t n = strlen(uri);
  char* p = malloc(n + 1);
  if (!p) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned h1, h2;
    if (uri[i] == '%' && i + 2 < n && sscanf(uri + i + 1, "%1x%1x", &h1, &h2) == 2 && (h1 | h2)) {
      p[o++] = (char)(h1 * 16 + h2);
      i += 2;
    } else {
      p[o++] = uri[i];
    }
  }
  p[o] = 0;
  if (skio_path_climbs(p)) {
    free(p);
    return NULL;
  }
  return p;
}

static void base64_into(buf* b, const uint8_t* p, size_t n) {
  static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char q[4] = {a[v >> 18 & 63], a[v >> 12 & 63], i + 1 < n ? a[v >> 6 & 63] : '=', i + 2 < n ? a[v & 63] : '='};
    skio_buf_put(b, q, 4);
  }
}

/* ---- the edit ---------------------------------------------------------------------------------------------- */
/* "<stem><suffix>.bin" for OUT = path (stem: OUT's name without its extension, characters a URI may hold), one that
 * none of the source's buffers uses, here or in its folder ("<stem><suffix>2.bin"... otherwise); NULL: out of memory.
 */
static char* companion_name(skio_gltf_doc* d, const char* path, const char* src_dir, const char* out_dir,
                            const char* suffix) {
  const char* slash = strrchr(path, '/');
  const char* stem = slash ? slash + 1 : path;
  const char* dot = strrchr(stem, '.');
  size_t sl = dot && dot != stem ? (size_t)(dot - stem) : strlen(stem);
  char* name = malloc(sl + strlen(suffix) + 32);
  if (!name) return NULL;
  for (int attempt = 1;; ++attempt) {
    size_t k = 0;
    for (size_t c = 0; c < sl; ++c) {
      unsigned char ch = (unsigned char)stem[c];
      bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                ch == '_' || ch == '~' || ch == '-';
      name[k++] = ok ? (char)ch : '_';
    }
    if (attempt == 1)
      sprintf(name + k, "%s.bin", suffix);
    else
      sprintf(name + k, "%s%d.bin", suffix, attempt);
    bool taken = false;
    for (uint32_t b = 0; b < d->buffer_count && !taken; ++b) {
      char* u = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "buffers", b), "uri"));
      char* rel = relative_file(u);
      if (rel) {
        char* sp = join(src_dir, rel);
        char* op = join(out_dir, name);
        taken = strcmp(rel, name) == 0 || (sp && op && skio_same_file(sp, op));
        free(sp);
        free(op);
      }
      free(rel);
      free(u);
    }
    if (!taken || attempt > 1000) return name;
  }
}

/* outfile f takes buffer k's bytes (loaded with the document). */
static int copy_buffer(skio_gltf_doc* d, uint32_t k, outfile* f, skc_err* err) {
  const uint8_t* data;
  size_t size;
  int rc = skio_gltf_buffer_data(d, k, &data, &size, err);
  if (rc) return rc;
  f->data = data;
  f->size = d->buffers[k].size;
  return SKC_OK;
}

/* outfile f takes the bytes of file src (an image), read here. */
static int copy_file(const char* path, const char* src, outfile* f, skc_err* err) {
  FILE* fp = fopen(src, "rb");
  uint8_t* data = NULL;
  long n = -1;
  int rc = SKC_OK;
  if (fp && fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
      (data = malloc((size_t)n + 1)) && fread(data, 1, (size_t)n, fp) == (size_t)n) {
    f->data = data;
    f->size = (size_t)n;
    f->owned = data;
  } else {
    free(data);
    rc = skc_fail(err, SKC_IO, "%s: cannot read %s to copy it beside the output", path, src);
  }
  if (fp) fclose(fp);
  return rc;
}

/* Whether every buffer of d is a data: URI: a self-contained .gltf (three.js's exporter writes one), whose output
 * stays one file. */
static bool buffers_embedded(const skio_gltf_doc* d) {
  if (d->is_glb || !d->buffer_count) return false;
  bool all = true;
  for (uint32_t b = 0; b < d->buffer_count && all; ++b) {
    char* u = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "buffers", b), "uri"));
    all = u && strncmp(u, "data:", 5) == 0;
    free(u);
  }
  return all;
}

/* Appends "image <rel> is not beside the source ..." (or, folder: "... names a folder, not a file ...") to o's note:
 * the output names it as the source does. */
static void note_not_copied(const skio_gltf_edit_options* o, const char* rel, bool folder) {
  if (!o || !o->note || o->note_size < 2) return;
  size_t at = strlen(o->note);
  snprintf(o->note + at, o->note_size - at,
           "%simage \"%.200s\" %s: the output names it as the source does, with nothing copied", at ? "; " : "", rel,
           folder ? "names a folder, not an image file" : "is not beside the source");
}

/* Copies of the source's files that its buffers and images name by a relative path (a .gltf's .bin, a .glb's
 * external buffers, either's images), for an output written to another folder than the source's: the output names
 * them with the same relative paths. Appended to files (room for buffer_count + 64 of them); data URIs, a .glb's BIN
 * chunk and what a .gltf written as .glb packed (pk) need none. */
static int add_source_copies(skio_gltf_doc* d, const char* path, const char* src_dir, const char* out_dir,
                             const packing* pk, const skio_gltf_edit_options* o, outfile* files, size_t* nfiles,
                             skc_err* err) {
  int rc = SKC_OK;
  int imgs = skio_json_get(d, 0, "images");
  uint32_t ni = (uint32_t)skio_json_len(d, imgs);
  for (uint32_t k = 0; k < d->buffer_count + ni && !rc; ++k) {
    const bool is_buf = k < d->buffer_count;
    if (is_buf && pk->base) continue; /* packed into the BIN chunk */
    if (!is_buf && pk->embedded && pk->embedded[k - d->buffer_count]) continue;
    int item = is_buf ? skio_gltf_item(d, "buffers", k) : skio_json_at(d, imgs, (int)(k - d->buffer_count));
    int ut = skio_json_get(d, item, "uri");
    if (ut < 0) continue;
    char* u = skio_json_strdup(d, ut);
    char* rel = relative_file(u);
    const bool absolute = u && (u[0] == '/' || strstr(u, "://")); /* an image there is found from any folder */
    if (!rel && u && strncmp(u, "data:", 5) != 0 && (is_buf || !absolute))
      rc = skc_fail(err, SKC_UNSUPPORTED, "%s: \"%.60s\" is not a file beside the source; write into %s instead", path,
                    u, src_dir);
    free(u);
    if (!rel) continue;
    if (*nfiles >= d->buffer_count + 64) {
      free(rel);
      return skc_fail(err, SKC_UNSUPPORTED, "%s: more than 64 images to copy beside it; write into %s instead", path,
                      src_dir);
    }
    char* src = join(src_dir, rel);
    struct stat st;
    const bool lacks = src && !is_buf && stat(src, &st) != 0 && errno == ENOENT; /* the source names a file it lacks */
    const bool folder = src && !is_buf && !lacks && stat(src, &st) == 0 && !S_ISREG(st.st_mode); /* ".", "", "sub/" */
    if (lacks || folder) {
      note_not_copied(o, rel, folder);
      free(src), free(rel);
      continue;
    }
    outfile* f = &files[(*nfiles)++];
    f->path = join(out_dir, rel);
    free(rel);
    if (!src || !f->path)
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    else if (is_buf)
      rc = copy_buffer(d, k, f, err);
    else
      rc = copy_file(path, src, f, err);
    free(src);
  }
  return rc;
}

static void free_packing(packing* pk) { free(pk->base), free(pk->index), free(pk->embedded); }

/* The value text of token t as written in the source (a string with its quotes). */
static void put_token(const skio_gltf_doc* d, int t, buf* b) {
  int q = d->tok[t].type == 3;
  skio_buf_put(b, d->json + d->tok[t].start - q, (size_t)(d->tok[t].end - d->tok[t].start + 2 * q));
}

/* obj's "buffer" / "byteOffset" (a bufferView, or its meshopt extension) pointed at the packed buffers. */
static void remap_buffer_ref(const skio_gltf_doc* d, int obj, const packing* pk, splices* sp) {
  uint32_t b;
  int bt = skio_json_get(d, obj, "buffer");
  if (!skio_json_u32(d, bt, &b) || b >= d->buffer_count) return; /* the reader refused such a view already */
  char num[32];
  int n = snprintf(num, sizeof num, "%u", pk->index[b]);
  if (pk->index[b] != b) add_splice(sp, d->tok[bt].start, d->tok[bt].end, num, (size_t)n);
  if (pk->base[b] == SIZE_MAX || pk->base[b] == 0) return; /* the text stays where nothing changes */
  size_t off = 0;
  int ot = skio_json_get(d, obj, "byteOffset");
  skio_json_size(d, ot, &off);
  if (ot >= 0) {
    n = snprintf(num, sizeof num, "%zu", off + pk->base[b]);
    add_splice(sp, d->tok[ot].start, d->tok[ot].end, num, (size_t)n);
  } else {
    n = snprintf(num, sizeof num, "\"byteOffset\":%zu,", pk->base[b]);
    add_splice(sp, d->tok[obj].start + 1, d->tok[obj].start + 1, num, (size_t)n);
  }
}

/* Every buffer with data into bin; every bufferView (and its meshopt extension) pointed there; the "buffers" array
 * replaced by the BIN chunk's buffer (its final size: bin_size, written by pack_buffers_json) and the kept ones. */
static int pack_buffers(skio_gltf_doc* d, packing* pk, buf* bin, splices* sp, skc_err* err) {
  pk->base = malloc((d->buffer_count + 1) * sizeof *pk->base);
  pk->index = malloc((d->buffer_count + 1) * sizeof *pk->index);
  if (!pk->base || !pk->index) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t b = 0; b < d->buffer_count; ++b) {
    pk->base[b] = SIZE_MAX;
    pk->index[b] = 1 + pk->kept;
    if (skio_json_get(d, skio_gltf_item(d, "buffers", b), "uri") < 0) {
      pk->kept++;
      continue;
    }
    const uint8_t* data;
    size_t size;
    int rc = skio_gltf_buffer_data(d, b, &data, &size, err);
    if (rc) return rc;
    skio_buf_pad(bin, 16, 0);
    pk->base[b] = bin->n;
    pk->index[b] = 0;
    skio_buf_put(bin, data, d->buffers[b].byte_length);
  }
  for (uint32_t v = 0; v < d->view_count; ++v) {
    int vt = skio_gltf_item(d, "bufferViews", v);
    int ext = skio_json_get(d, vt, "extensions");
    remap_buffer_ref(d, vt, pk, sp);
    remap_buffer_ref(d, skio_json_get(d, ext, "EXT_meshopt_compression"), pk, sp);
    remap_buffer_ref(d, skio_json_get(d, ext, "KHR_meshopt_compression"), pk, sp);
  }
  return bin->oom || sp->oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory") : SKC_OK;
}

/* The output's "buffers": the BIN chunk's (bin_size bytes), then the buffers without data as they were. */
static void pack_buffers_json(const skio_gltf_doc* d, const packing* pk, size_t bin_size, splices* sp) {
  int arr = skio_json_get(d, 0, "buffers");
  buf t = {0};
  if (!skio_json_is(d, arr, 2)) { /* a document without buffers that now has data (new accessors, images) */
    skio_buf_printf(&t, "{\"byteLength\":%zu}", bin_size);
    if (bin_size) append_items(d, "buffers", &t, sp);
    free(t.p);
    return;
  }
  skio_buf_printf(&t, "[{\"byteLength\":%zu}", bin_size);
  for (uint32_t b = 0; b < d->buffer_count; ++b)
    if (pk->base[b] == SIZE_MAX) {
      skio_buf_put(&t, ",", 1);
      put_token(d, skio_gltf_item(d, "buffers", b), &t);
    }
  skio_buf_put(&t, "]", 1);
  add_splice_buf(sp, d->tok[arr].start, d->tok[arr].end, &t);
  free(t.p);
}

/* Images named by URI whose bytes the scene holds (images, in document order) go into bin as new bufferViews
 * (numbered from *next_view, their JSON appended to views); the image's "uri" becomes "bufferView" (and
 * "mimeType" when it has none). Images without bytes or without a known type keep their URI. */
/* Appends "image <uri> did not read: its URI is kept" to o's note. */
static void note_missing(const skio_gltf_edit_options* o, const skio_gltf_doc* d, int uri) {
  if (!o->note || o->note_size < 2) return;
  char* u = skio_json_strdup(d, uri);
  size_t at = strlen(o->note);
  snprintf(o->note + at, o->note_size - at, "%simage \"%.200s\" did not read: the .glb keeps its URI", at ? "; " : "",
           u ? u : "?");
  free(u);
}

/* The images of a .gltf written as .glb that have bytes, as bufferViews; one without keeps its URI (noted). */
static void embed_images(const skio_gltf_doc* d, const skio_gltf_edit_options* o, packing* pk, buf* bin, buf* views,
                         uint32_t* next_view, splices* sp) {
  const skio_image* images = o->images;
  const uint32_t image_count = o->images ? o->image_count : 0;
  int arr = skio_json_get(d, 0, "images");
  int n = skio_json_len(d, arr);
  if (n <= 0 || !(pk->embedded = calloc((size_t)n, sizeof *pk->embedded))) return;
  for (int i = 0; i < n && (uint32_t)i < image_count; ++i) {
    const skio_image* img = &images[i];
    int it = skio_json_at(d, arr, i), uri = -1;
    for (int k = 0; k < d->tok[it].size && uri < 0; ++k)
      if (skio_json_streq(d, skio_json_key_at(d, it, k), "uri")) uri = skio_json_key_at(d, it, k);
    if (uri < 0 || skio_json_get(d, it, "bufferView") >= 0) continue;
    if (!img->data || !img->size || !img->mime[0]) {
      note_missing(o, d, uri + 1);
      continue;
    }
    skio_buf_pad(bin, 4, 0);
    skio_buf_printf(views, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", views->n ? "," : "", bin->n,
                    img->size);
    skio_buf_put(bin, img->data, img->size);
    char text[96];
    int len = snprintf(text, sizeof text, "\"bufferView\":%u", (*next_view)++);
    if (skio_json_get(d, it, "mimeType") < 0)
      len += snprintf(text + len, sizeof text - (size_t)len, ",\"mimeType\":\"%s\"", img->mime);
    int end = d->tok[uri + 1].end + (d->tok[uri + 1].type == 3 ? 1 : 0);
    add_splice(sp, d->tok[uri].start - 1, end, text, (size_t)len);
    pk->embedded[i] = true;
  }
}

/* Skins for nodes that had none (skio_gltf_prim_edit.new_skin_joints): one per node, its inverse binds appended to
 * add on a view and accessor of their own, the node's "skin" spliced in as its first member. */
typedef struct appended {
  buf *add, *views, *accs;
  size_t base;
  uint32_t buffer, next_view, next_acc;
} appended;

/* A float accessor of V elements of n (3 or 4) components over data appended to ap's buffer, with min and max when
 * bounded (a POSITION accessor must have them); its index. */
static uint32_t add_float_accessor(appended* ap, const float* data, size_t V, int n, bool bounded) {
  skio_buf_pad(ap->add, 4, 0);
  const size_t at = ap->base + ap->add->n, len = V * (size_t)n * sizeof(float);
  skio_buf_put(ap->add, data, len);
  skio_buf_printf(ap->views, "%s{\"buffer\":%u,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34962}",
                  ap->views->n ? "," : "", ap->buffer, at, len);
  skio_buf_printf(ap->accs, "%s{\"bufferView\":%u,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC%d\"",
                  ap->accs->n ? "," : "", ap->next_view++, V, n);
  if (bounded && V && n == 3) {
    float lo[3], hi[3];
    memcpy(lo, data, sizeof lo), memcpy(hi, data, sizeof hi);
    for (size_t v = 1; v < V; ++v)
      for (int c = 0; c < 3; ++c) {
        const float x = data[v * 3 + c];
        lo[c] = x < lo[c] ? x : lo[c], hi[c] = x > hi[c] ? x : hi[c];
      }
    skio_buf_printf(ap->accs, ",\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]", (double)lo[0], (double)lo[1],
                    (double)lo[2], (double)hi[0], (double)hi[1], (double)hi[2]);
  }
  skio_buf_str(ap->accs, "}");
  return ap->next_acc++;
}

/* Edit e's primitive written in its skin's bind space (skio_gltf_prim_edit.bind_positions): each of its POSITION,
 * NORMAL and TANGENT attributes that the edit has data for names a new accessor of that data. */
static void write_bind_space(const skio_gltf_doc* d, const skio_gltf_prim_edit* e, appended* ap, splices* sp) {
  const int mesh = skio_gltf_item(d, "meshes", e->mesh);
  const int attrs =
      skio_json_get(d, skio_json_at(d, skio_json_get(d, mesh, "primitives"), (int)e->primitive), "attributes");
  static const char* const keys[3] = {"POSITION", "NORMAL", "TANGENT"};
  const float* data[3] = {e->bind_positions, e->bind_normals, e->bind_tangents};
  for (int k = 0; k < 3; ++k) {
    const int val = skio_json_get(d, attrs, keys[k]);
    if (val < 0 || !data[k]) continue;
    const uint32_t acc = add_float_accessor(ap, data[k], e->vertex_count, k == 2 ? 4 : 3, k == 0);
    char num[16];
    const int n = snprintf(num, sizeof num, "%u", acc);
    add_splice(sp, d->tok[val].start, d->tok[val].end, num, (size_t)n);
  }
}

/* The translation, rotation, scale and matrix of node token nt removed (spliced after its "skin" insertion, which
 * starts at the same place when one of them is the node's first member). */
static void drop_node_transform(const skio_gltf_doc* d, int nt, splices* sp) {
  const int n = d->tok[nt].size;
  bool* drop = n > 0 ? calloc((size_t)n, sizeof *drop) : NULL;
  if (!drop) {
    if (n > 0) sp->oom = true;
    return;
  }
  for (int k = 0; k < n; ++k) {
    const int key = skio_json_key_at(d, nt, k);
    drop[k] = skio_json_streq(d, key, "translation") || skio_json_streq(d, key, "rotation") ||
              skio_json_streq(d, key, "scale") || skio_json_streq(d, key, "matrix");
  }
  remove_pairs(d, nt, drop, sp);
  free(drop);
}

static void add_new_skins(const skio_gltf_doc* d, const skio_gltf_prim_edit* edits, size_t count, appended* ap,
                          splices* sp) {
  buf skins = {0};
  uint32_t next_skin = (uint32_t)skio_json_len(d, skio_json_get(d, 0, "skins"));
  for (size_t i = 0; i < count; ++i) {
    const skio_gltf_prim_edit* e = &edits[i];
    bool done = !e->new_skin_joints;
    for (size_t k = 0; k < i && !done; ++k) done = edits[k].new_skin_joints && edits[k].node == e->node;
    int nt = skio_gltf_item(d, "nodes", (uint32_t)e->node);
    if (e->new_skin_joints && e->bind_positions) write_bind_space(d, e, ap, sp);
    if (done || nt < 0) continue;
    skio_buf_pad(ap->add, 4, 0);
    const size_t at = ap->base + ap->add->n, len = (size_t)e->joint_limit * 16 * sizeof(float);
    skio_buf_put(ap->add, e->new_skin_ibm, len);
    skio_buf_printf(ap->views, "%s{\"buffer\":%u,\"byteOffset\":%zu,\"byteLength\":%zu}", ap->views->n ? "," : "",
                    ap->buffer, at, len);
    skio_buf_printf(ap->accs, "%s{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"MAT4\"}",
                    ap->accs->n ? "," : "", ap->next_view++, e->joint_limit);
    skio_buf_str(&skins, skins.n ? ",{" : "{");
    int root_name = skio_json_get(d, skio_gltf_item(d, "nodes", e->new_skin_joints[0]), "name");
    if (skio_json_is(d, root_name, 3)) { /* named after its root joint node (the armature: Blender names it so) */
      skio_buf_str(&skins, "\"name\":");
      put_token(d, root_name, &skins);
      skio_buf_str(&skins, ",");
    }
    skio_buf_printf(&skins, "\"inverseBindMatrices\":%u,\"joints\":[", ap->next_acc++);
    for (uint32_t j = 0; j < e->joint_limit; ++j) skio_buf_printf(&skins, "%s%u", j ? "," : "", e->new_skin_joints[j]);
    skio_buf_put(&skins, "]}", 2);
    char text[40];
    int n = snprintf(text, sizeof text, "\"skin\":%u%s", next_skin++, d->tok[nt].size ? "," : "");
    add_splice(sp, d->tok[nt].start + 1, d->tok[nt].start + 1, text, (size_t)n);
    if (e->bind_positions) drop_node_transform(d, nt, sp);
  }
  append_items(d, "skins", &skins, sp);
  if (skins.oom) sp->oom = true;
  free(skins.p);
}

/* ---- joints the document lacks (skio_gltf_added_joints) ---------------------------------------------------- */

/* The children list ",n,n,..." of the added joints under node p. */
static void children_of(const skio_gltf_doc* d, const skio_gltf_added_joints* a, int32_t p, buf* list) {
  for (uint32_t c = 0; c < a->count; ++c)
    if (a->parent_node[c] == p) skio_buf_printf(list, ",%u", d->node_count + c);
}

/* The added joints' nodes appended to "nodes" (with their children among them), and the "children" of the document's
 * nodes they hang from extended (or given one). */
static void add_joint_nodes(const skio_gltf_doc* d, const skio_gltf_added_joints* a, splices* sp) {
  buf nodes = {0};
  for (uint32_t k = 0; k < a->count; ++k) {
    const float* t = a->trs + (size_t)k * 10;
    skio_buf_str(&nodes, k ? ",{\"name\":" : "{\"name\":");
    skio_buf_json_string(&nodes, a->names[k], NULL);
    skio_buf_printf(&nodes,
                    ",\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,%.9g,%.9g,%.9g],\"scale\":[%.9g,%.9g,%.9g]",
                    (double)t[0], (double)t[1], (double)t[2], (double)t[3], (double)t[4], (double)t[5], (double)t[6],
                    (double)t[7], (double)t[8], (double)t[9]);
    buf list = {0};
    children_of(d, a, (int32_t)(d->node_count + k), &list);
    if (list.n) skio_buf_printf(&nodes, ",\"children\":[%.*s]", (int)list.n - 1, (const char*)list.p + 1);
    if (list.oom) nodes.oom = true;
    free(list.p);
    skio_buf_str(&nodes, "}");
  }
  append_items(d, "nodes", &nodes, sp);
  if (nodes.oom) sp->oom = true;
  free(nodes.p);
  for (uint32_t k = 0; k < a->count; ++k) {
    const int32_t p = a->parent_node[k];
    bool seen = p < 0 || (uint32_t)p >= d->node_count;
    for (uint32_t e = 0; e < k && !seen; ++e) seen = a->parent_node[e] == p;
    const int nt = seen ? -1 : skio_gltf_item(d, "nodes", (uint32_t)p);
    if (nt < 0) continue;
    buf list = {0};
    children_of(d, a, p, &list);
    const int ch = skio_json_get(d, nt, "children");
    if (skio_json_is(d, ch, 2)) { /* ",n,..." after the last child, "n,..." in an empty list */
      const int skip = d->tok[ch].size ? 0 : 1;
      add_splice(sp, d->tok[ch].end - 1, d->tok[ch].end - 1, (const char*)list.p + skip, list.n - (size_t)skip);
    } else {
      buf t = {0};
      skio_buf_printf(&t, "%s\"children\":[%.*s]", d->tok[nt].size ? "," : "", (int)list.n - 1,
                      (const char*)list.p + 1);
      add_splice_buf(sp, d->tok[nt].end - 1, d->tok[nt].end - 1, &t);
      free(t.p);
    }
    if (list.oom) sp->oom = true;
    free(list.p);
  }
}

/* The added joints appended to each listed skin's "joints", its inverse binds a new accessor (the old ones - identity
 * when it had none - then the added joints'). SKC_FORMAT when a skin's inverse binds do not read. */
static int extend_skins(skio_gltf_doc* d, const skio_gltf_added_joints* a, appended* ap, splices* sp, skc_err* err) {
  for (uint32_t i = 0; i < a->skin_count; ++i) {
    const int sk = skio_gltf_item(d, "skins", a->skins[i]);
    const int joints = skio_json_get(d, sk, "joints"), ib = skio_json_get(d, sk, "inverseBindMatrices");
    const int L = skio_json_len(d, joints);
    if (L <= 0 || L > 65536) continue; /* edit_scene lists skins with joints only */
    const size_t total = (size_t)L + a->count;
    float* m = malloc(total * 16 * sizeof *m);
    if (!m) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    uint32_t acc;
    skio_gltf_accessor info;
    if (ib >= 0 && skio_json_u32(d, ib, &acc)) {
      int rc = skio_gltf_accessor_info(d, acc, &info, err);
      if (!rc && (info.count != (size_t)L || info.components != 16))
        rc = skc_fail(err, SKC_FORMAT, "%s: skin %u: %zu inverse binds for %d joints", d->path, a->skins[i], info.count,
                      L);
      if (!rc) rc = skio_gltf_accessor_floats(d, acc, m, err);
      if (rc) {
        free(m);
        return rc;
      }
    } else {
      for (int k = 0; k < L; ++k) skc_mat4_identity(m + (size_t)k * 16);
    }
    memcpy(m + (size_t)L * 16, a->ibm + (size_t)i * a->count * 16, (size_t)a->count * 16 * sizeof *m);
    skio_buf_pad(ap->add, 4, 0);
    const size_t at = ap->base + ap->add->n, len = total * 16 * sizeof *m;
    skio_buf_put(ap->add, m, len);
    free(m);
    skio_buf_printf(ap->views, "%s{\"buffer\":%u,\"byteOffset\":%zu,\"byteLength\":%zu}", ap->views->n ? "," : "",
                    ap->buffer, at, len);
    skio_buf_printf(ap->accs, "%s{\"bufferView\":%u,\"componentType\":5126,\"count\":%zu,\"type\":\"MAT4\"}",
                    ap->accs->n ? "," : "", ap->next_view++, total);
    buf list = {0};
    for (uint32_t k = 0; k < a->count; ++k) skio_buf_printf(&list, ",%u", d->node_count + k);
    add_splice_buf(sp, d->tok[joints].end - 1, d->tok[joints].end - 1, &list);
    free(list.p);
    char num[40];
    if (ib >= 0) {
      const int n = snprintf(num, sizeof num, "%u", ap->next_acc++);
      add_splice(sp, d->tok[ib].start, d->tok[ib].end, num, (size_t)n);
    } else {
      const int n = snprintf(num, sizeof num, "\"inverseBindMatrices\":%u,", ap->next_acc++);
      add_splice(sp, d->tok[sk].start + 1, d->tok[sk].start + 1, num, (size_t)n);
    }
  }
  return SKC_OK;
}

static int cmp_u64(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

/* No primitive edited twice (sorted keys: a document of 20,000 meshes compared every pair, 0.6 s). */
static int edited_once(const skio_gltf_prim_edit* edits, size_t count, skc_err* err) {
  if (count > INT32_MAX) return skc_fail(err, SKC_OUT_OF_RANGE, "%zu primitive edits: too many", count);
  uint64_t* keys = malloc((count + 1) * sizeof *keys);
  if (!keys) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < count; ++i) keys[i] = (uint64_t)edits[i].mesh << 32 | edits[i].primitive;
  qsort(keys, count, sizeof *keys, cmp_u64);
  int rc = SKC_OK;
  for (size_t i = 1; i < count && !rc; ++i)
    if (keys[i] == keys[i - 1])
      rc = skc_fail(err, SKC_INVALID_ARGUMENT, "meshes[%u].primitives[%u] is edited twice", (unsigned)(keys[i] >> 32),
                    (unsigned)(keys[i] & 0xffffffffu));
  free(keys);
  return rc;
}

/* The state of one skio_gltf_edit_write: the plans, the JSON splices, the bytes built and the files to write.
 * free_edit_job frees every member. */
typedef struct edit_job {
  skio_gltf_doc* d;
  const char* path;
  int binary;
  skio_gltf_edit_options o;
  size_t count; /* edits, and plans */
  skio_gltf_edit_report rep;
  prim_plan* plans;
  plan_index ix;
  uint32_t* refs;
  splices sp;
  buf bin, add, views, accs, json, file, bufs;
  char *out_dir, *src_dir, *bin_name, *chunk_name, *tmp_main;
  outfile* files;
  size_t nfiles;
  packing pk;
  int b0;                       /* the source's buffer 0 */
  bool to_glb, into_bin;        /* a .gltf written as .glb; new data goes into the BIN chunk */
  uint32_t next_view, next_acc; /* the next new bufferView / accessor */
  size_t base;                  /* where add starts in the buffer it goes to */
  uint32_t new_buffer;          /* the buffer add goes to */
} edit_job;

static void free_edit_job(edit_job* e) {
  for (size_t i = 0; e->plans && i < e->count; ++i) {
    free(e->plans[i].jdata);
    free(e->plans[i].wdata);
  }
  free(e->plans);
  free(e->ix.same_pos);
  free(e->ix.pos_last);
  free(e->refs);
  free_splices(&e->sp);
  for (size_t i = 0; e->files && i < e->nfiles; ++i) {
    free(e->files[i].path);
    free(e->files[i].owned);
  }
  free(e->files);
  free(e->bin.p), free(e->add.p), free(e->views.p), free(e->accs.p), free(e->json.p), free(e->file.p), free(e->bufs.p);
  free(e->out_dir), free(e->src_dir), free(e->bin_name), free(e->chunk_name), free(e->tmp_main);
  free_packing(&e->pk);
}

/* Decides where new data goes and starts the BIN chunk: a .gltf written as .glb packs its buffers and images into
 * it, a GLB's own is copied. */
static int start_bin(edit_job* e, skc_err* err) {
  skio_gltf_doc* d = e->d;
  for (uint32_t a = 0; a <= d->accessor_count; ++a) e->ix.pos_last[a] = -1;
  /* where new data goes: the BIN chunk (GLB whose buffer 0 is it; a .gltf written as .glb gets one from its buffers
   * and images), else one new buffer */
  e->b0 = skio_gltf_item(d, "buffers", 0);
  e->to_glb = e->binary && !d->is_glb;
  e->into_bin = e->to_glb || (d->is_glb && d->bin && e->b0 >= 0 && skio_json_get(d, e->b0, "uri") < 0);
  e->next_view = d->view_count, e->next_acc = d->accessor_count;
  if (e->to_glb) {
    int rc = pack_buffers(d, &e->pk, &e->bin, &e->sp, err);
    if (rc) return rc;
    embed_images(d, &e->o, &e->pk, &e->bin, &e->views, &e->next_view, &e->sp);
  } else if (e->into_bin) {
    skio_buf_put(&e->bin, d->bin, d->bin_size);
  }
  e->base = e->into_bin ? (e->bin.n + 3) & ~(size_t)3 : 0;
  e->new_buffer = e->into_bin ? 0u : d->buffer_count;
  return SKC_OK;
}

/* A new accessor (or the old one, redeclared) for len bytes of stream data src, on a tightly packed view of its own
 * appended to add. */
static int64_t add_stream_accessor(edit_job* e, const uint8_t* src, size_t len, int64_t old, uint32_t ct, size_t V,
                                   bool normalized) {
  int64_t acc;
  skio_buf_pad(&e->add, 4, 0);
  const size_t at = e->base + e->add.n;
  skio_buf_put(&e->add, src, len);
  skio_buf_printf(&e->views, "%s{\"buffer\":%u,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34962}",
                  e->views.n ? "," : "", e->new_buffer, at, len);
  if (redeclare_accessor(e->d, old, e->refs, e->next_view, ct, V, normalized, &e->sp)) {
    acc = old;
    e->rep.redeclared++;
  } else {
    skio_buf_printf(&e->accs, "%s{\"bufferView\":%u,\"componentType\":%u,\"count\":%zu,\"type\":\"VEC4\"%s}",
                    e->accs.n ? "," : "", e->next_view, ct, V, normalized ? ",\"normalized\":true" : "");
    acc = e->next_acc++;
    e->rep.added++;
  }
  e->next_view++;
  return acc;
}

/* The attribute of set s of kind (0 JOINTS, 1 WEIGHTS) named accessor acc: its value replaced, or the pair
 * collected in attr_add when the primitive has no such attribute. */
static void point_attribute(edit_job* e, const prim_plan* pl, int kind, uint32_t s, int64_t acc, int64_t old,
                            buf* attr_add) {
  const skio_gltf_doc* d = e->d;
  char key[24];
  snprintf(key, sizeof key, "%s_%u", kind ? "WEIGHTS" : "JOINTS", s);
  int val = skio_json_get(d, pl->attrs, key);
  if (val >= 0 && acc == old) {
    /* the attribute names it already (redeclared) */
  } else if (val >= 0) {
    char num[24];
    int n = snprintf(num, sizeof num, "%lld", (long long)acc);
    int vs = d->tok[val].start - (d->tok[val].type == 3 ? 1 : 0),
        ve = d->tok[val].end + (d->tok[val].type == 3 ? 1 : 0);
    add_splice(&e->sp, vs, ve, num, (size_t)n);
  } else {
    skio_buf_printf(attr_add, ",\"%s\":%lld", key, (long long)acc);
  }
}

/* Set s of kind (0 JOINTS, 1 WEIGHTS) of plan i written: over the old accessor's bytes when it can be, else as an
 * accessor an earlier plan added or a new one; the attribute then names it. */
static void write_stream(edit_job* e, size_t i, uint32_t s, int kind, buf* attr_add) {
  prim_plan* pl = &e->plans[i];
  const size_t V = pl->V;
  const uint32_t ct = kind ? pl->wct : pl->jct;
  const size_t cs = skio_gltf_component_size(ct);
  const uint8_t* src = (kind ? pl->wdata : pl->jdata) + (size_t)s * V * 4 * cs;
  const int64_t old = kind ? pl->old_w[s] : pl->old_j[s];
  const bool normalized = kind && ct != SKIO_GLTF_FLOAT;
  size_t off, stride;
  if (in_place_slot(e->d, &e->pk, old, ct, normalized, V, e->refs, &off, &stride)) {
    for (size_t v = 0; v < V; ++v) memcpy(e->bin.p + off + v * stride, src + v * 4 * cs, 4 * cs);
    e->rep.in_place++;
    return;
  }
  int64_t acc = shared_added(e->plans, &e->ix, i, kind, s);
  if (acc < 0) acc = add_stream_accessor(e, src, V * 4 * cs, old, ct, V, normalized); /* a new accessor */
  pl->added[kind][s] = acc;
  point_attribute(e, pl, kind, s, acc, old, attr_add);
}

/* Plan i's streams written, the sets it no longer needs dropped and the attributes it lacked added. */
static void write_plan(edit_job* e, size_t i) {
  const skio_gltf_doc* d = e->d;
  prim_plan* pl = &e->plans[i];
  e->rep.renormalized += renormalize_quantized(e->d, pl);
  buf attr_add = {0};
  for (uint32_t s = 0; s < pl->sets; ++s)
    for (int kind = 0; kind < 2; ++kind) write_stream(e, i, s, kind, &attr_add);
  drop_unneeded_sets(d, pl, e->refs, &e->sp, &e->rep);
  const int attrs = pl->attrs;
  if (attr_add.n) {
    if (d->tok[attrs].size == 0) { /* "{}" cannot be: POSITION was found; kept general all the same */
      add_splice(&e->sp, d->tok[attrs].end - 1, d->tok[attrs].end - 1, (const char*)attr_add.p + 1, attr_add.n - 1);
    } else {
      add_splice_buf(&e->sp, d->tok[attrs].end - 1, d->tok[attrs].end - 1, &attr_add);
    }
  }
  if (attr_add.oom) e->sp.oom = true;
  free(attr_add.p);
}

/* Every edit planned (indexed by its POSITION accessor) and written, unless the primitive already holds it. */
static int write_plans(edit_job* e, const skio_gltf_prim_edit* edits, skc_err* err) {
  skio_gltf_doc* d = e->d;
  int rc = SKC_OK;
  for (size_t i = 0; i < e->count && !rc; ++i) {
    prim_plan* pl = &e->plans[i];
    if ((rc = build_plan(d, &edits[i], e->o.weights_type, pl, err))) break;
    const uint32_t pa = pl->pos >= 0 && (uint32_t)pl->pos < d->accessor_count ? (uint32_t)pl->pos : d->accessor_count;
    e->ix.same_pos[i] = e->ix.pos_last[pa];
    e->ix.pos_last[pa] = (int32_t)i;
    e->rep.primitives++;
    e->rep.weights_component = pl->wct;
    if (keeps_old(d, pl)) { /* nothing to write: its accessors stay as they are */
      for (uint32_t s = 0; s < pl->sets; ++s) pl->added[0][s] = pl->old_j[s], pl->added[1][s] = pl->old_w[s];
      e->rep.kept++;
      continue;
    }
    old_sets_kept(d, pl, true); /* the vertices the edit left as they were keep their bytes */
    write_plan(e, i);
  }
  return rc;
}

/* Whether a splice already replaces a span around [start, end) (an accessor declared anew or retired). */
static bool spliced_over(const splices* sp, int start, int end) {
  for (size_t i = 0; i < sp->n; ++i)
    if (sp->s[i].start < sp->s[i].end && sp->s[i].start <= start && end <= sp->s[i].end) return true;
  return false;
}

/* Draco accessors whose data decoded to another count than they declare (FBX2glTF 0.9.7's count before compression:
 * gltf_draco.c) are declared with the decoded count: the new JOINTS_n / WEIGHTS_n of their primitive have it, and
 * a primitive's attributes must agree (the Khronos validator's MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT). Only the
 * accessors the reader decoded; one with an uncompressed fallback view (which holds the declared count) never gets
 * here (scene_editable). */
static void recount_draco(const skio_gltf_doc* d, splices* sp) {
  for (uint32_t i = 0; i < d->accessor_count; ++i) {
    const size_t n = skio_gltf_draco_decoded_count(d, i);
    skio_gltf_accessor a;
    if (!n || skio_gltf_accessor_decl(d, i, &a, NULL) || a.count == n) continue;
    const int ct = skio_json_get(d, a.tok, "count");
    if (ct < 0 || spliced_over(sp, d->tok[ct].start, d->tok[ct].end)) continue;
    char num[24];
    const int len = snprintf(num, sizeof num, "%zu", n);
    add_splice(sp, d->tok[ct].start, d->tok[ct].end, num, (size_t)len);
  }
}

/* What the plans do not write themselves: other primitives repointed, new skins, added joints, and the new
 * accessors and bufferViews appended. */
static int add_objects(edit_job* e, const skio_gltf_prim_edit* edits, skc_err* err) {
  skio_gltf_doc* d = e->d;
  repoint_others(d, e->plans, e->count, &e->ix, &e->sp);
  appended ap = {&e->add, &e->views, &e->accs, e->base, e->new_buffer, e->next_view, e->next_acc};
  add_new_skins(d, edits, e->count, &ap, &e->sp);
  if (e->o.added && e->o.added->count) {
    add_joint_nodes(d, e->o.added, &e->sp);
    int rc = extend_skins(d, e->o.added, &ap, &e->sp, err);
    if (rc) return rc;
  }
  recount_draco(d, &e->sp);
  append_items(d, "accessors", &e->accs, &e->sp);
  append_items(d, "bufferViews", &e->views, &e->sp);
  e->rep.bytes_appended = e->add.n;
  return SKC_OK;
}

/* The new data placed: appended to the BIN chunk, or a new buffer (a data URI, or a companion "<stem>_skin.bin");
 * a .glb written as .gltf names its BIN chunk's file. */
static int place_buffers(edit_job* e, skc_err* err) {
  skio_gltf_doc* d = e->d;
  e->out_dir = dir_of(e->path);
  e->src_dir = dir_of(d->path);
  if (!e->out_dir || !e->src_dir) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (e->into_bin && e->add.n) {
    skio_buf_pad(&e->bin, 4, 0);
    skio_buf_put(&e->bin, e->add.p, e->add.n);
    int bl = e->to_glb ? -1 : skio_json_get(d, e->b0, "byteLength");
    char num[24];
    int n = snprintf(num, sizeof num, "%zu", e->bin.n);
    if (bl >= 0) add_splice(&e->sp, d->tok[bl].start, d->tok[bl].end, num, (size_t)n);
  } else if (e->add.n) {
    if (e->binary || buffers_embedded(d)) { /* a .glb with no BIN chunk to extend, a self-contained .gltf: a data URI */
      skio_buf_printf(&e->bufs, "{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,", e->add.n);
      base64_into(&e->bufs, e->add.p, e->add.n);
      skio_buf_put(&e->bufs, "\"}", 2);
    } else {
      if (!(e->bin_name = companion_name(d, e->path, e->src_dir, e->out_dir, "_skin")))
        return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
      skio_buf_printf(&e->bufs, "{\"byteLength\":%zu,\"uri\":\"%s\"}", e->add.n, e->bin_name);
    }
    append_items(d, "buffers", &e->bufs, &e->sp);
  }
  if (e->to_glb) pack_buffers_json(d, &e->pk, e->bin.n, &e->sp);
  if (e->into_bin && !e->binary) { /* .glb -> .gltf: the BIN chunk (with the new data) becomes "<stem>.bin" */
    if (!(e->chunk_name = companion_name(d, e->path, e->src_dir, e->out_dir, "")))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    char text[600];
    int n = snprintf(text, sizeof text, "\"uri\":\"%s\"%s", e->chunk_name, d->tok[e->b0].size ? "," : "");
    add_splice(&e->sp, d->tok[e->b0].start + 1, d->tok[e->b0].start + 1, text, (size_t)n);
  }
  return SKC_OK;
}

/* The companion files: the new buffer, and copies of the source's relative files when writing to another folder. */
static int list_companions(edit_job* e, skc_err* err) {
  skio_gltf_doc* d = e->d;
  e->files = calloc(d->buffer_count + 64 + 2, sizeof *e->files);
  if (!e->files) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (e->bin_name) {
    e->files[e->nfiles].path = join(e->out_dir, e->bin_name);
    e->files[e->nfiles].data = e->add.p;
    e->files[e->nfiles++].size = e->add.n;
  }
  if (e->chunk_name) {
    e->files[e->nfiles].path = join(e->out_dir, e->chunk_name);
    e->files[e->nfiles].data = e->bin.p;
    e->files[e->nfiles++].size = e->bin.n;
  }
  /* (a document parsed from memory has no folder: its relative files are not ours to find) */
  if (d->base_dir && !skio_same_file(e->out_dir, e->src_dir))
    return add_source_copies(d, e->path, e->src_dir, e->out_dir, &e->pk, &e->o, e->files, &e->nfiles, err);
  return SKC_OK;
}

/* The source GLB's chunks after JSON and BIN (a .gltf source has none), in their order: their bytes appended to out,
 * or (out NULL) their total size returned. */
static size_t other_chunks(const skio_gltf_doc* d, buf* out) {
  size_t at = 12, total = 0;
  const uint8_t* f = d->file;
  uint32_t glen = 0; /* a .gltf source has no other chunks */
  if (d->is_glb) memcpy(&glen, f + 8, 4);
  bool first = true;
  while (at + 8 <= glen && at + 8 <= d->file_size) {
    uint32_t clen;
    memcpy(&clen, f + at, 4);
    if (!first && at != d->bin_chunk_offset) {
      if (out) skio_buf_put(out, f + at, 8 + (size_t)clen);
      total += 8 + (size_t)clen;
    }
    first = false;
    at += 8 + (size_t)clen;
  }
  return total;
}

/* The .glb file: header, the JSON chunk, the BIN chunk, then the source's other chunks as they were. */
static int compose_glb(edit_job* e, skc_err* err) {
  skio_gltf_doc* d = e->d;
  skio_buf_pad(&e->json, 4, ' ');
  skio_buf_pad(&e->bin, 4, 0);
  const bool has_bin =
      d->bin != NULL || (e->to_glb && (e->bin.n || skio_json_is(d, skio_json_get(d, 0, "buffers"), 2)));
  size_t total = 12 + 8 + e->json.n + (has_bin ? 8 + e->bin.n : 0);
  /* other chunks after JSON and BIN are kept as they were, in their order */
  total += other_chunks(d, NULL);
  if (total > UINT32_MAX || e->json.n > UINT32_MAX)
    return skc_fail(err, SKC_UNSUPPORTED, "%s: too large for a .glb (4 GiB)", e->path);
  uint32_t head[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)e->json.n, 0x4E4F534Au};
  skio_buf_put(&e->file, head, sizeof head);
  skio_buf_put(&e->file, e->json.p, e->json.n);
  if (has_bin) {
    uint32_t bh[2] = {(uint32_t)e->bin.n, 0x004E4942u};
    skio_buf_put(&e->file, bh, sizeof bh);
    skio_buf_put(&e->file, e->bin.p, e->bin.n);
  }
  other_chunks(d, &e->file);
  return SKC_OK;
}

/* The JSON spliced and the main file's bytes composed (.glb or .gltf). */
static int compose_file(edit_job* e, skc_err* err) {
  skio_gltf_doc* d = e->d;
  if (e->sp.oom || e->accs.oom || e->views.oom || e->bufs.oom || e->add.oom || e->bin.oom)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", e->path);
  size_t json_len = d->json_size;
  if (d->is_glb)
    while (json_len && (d->json[json_len - 1] == ' ' || d->json[json_len - 1] == 0)) --json_len; /* chunk padding */
  if (!apply_splices(d, json_len, &e->sp, &e->json))
    return skc_fail(err, SKC_INTERNAL, "%s: overlapping JSON edits", e->path);
  if (e->binary) {
    int rc = compose_glb(e, err);
    if (rc) return rc;
  } else {
    if (!d->is_glb) skio_buf_put(&e->file, d->file, (size_t)(d->json - (const char*)d->file)); /* a byte order mark */
    skio_buf_put(&e->file, e->json.p, e->json.n);
  }
  if (e->file.oom) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", e->path);
  return SKC_OK;
}

/* Whether companion file f is the source or one of the files its buffers name. */
static bool is_source_file(const edit_job* e, const outfile* f) {
  const skio_gltf_doc* d = e->d;
  bool is_source = skio_same_file(f->path, d->path);
  for (uint32_t b = 0; b < d->buffer_count && !is_source; ++b) {
    char* u = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "buffers", b), "uri"));
    char* rel = relative_file(u);
    char* sp_ = rel ? join(e->src_dir, rel) : NULL;
    is_source = sp_ && skio_same_file(sp_, f->path);
    free(sp_);
    free(rel);
    free(u);
  }
  return is_source;
}

/* Another .gltf in companion f's folder (not OUT, not the source) whose text names f ("<name>" in quotes, as a
 * buffer's or image's URI): its path (malloc'd), else NULL. Files over 64 MiB are not read. Two sources whose
 * buffers share a name (gltf-pipeline names them after the input, Sketchfab's "scene.bin") converted into one folder:
 * replacing files must not replace the first output's buffer with the second's (it did, silently, with --force). */
static char* named_by_other_gltf(const edit_job* e, const outfile* f) {
  char* dir = dir_of(f->path);
  const char* slash = strrchr(f->path, '/');
  const char* name = slash ? slash + 1 : f->path;
  DIR* dp = dir ? opendir(dir[0] ? dir : ".") : NULL;
  char* found = NULL;
  size_t nl = strlen(name);
  char* quoted = malloc(nl + 3);
  if (quoted) snprintf(quoted, nl + 3, "\"%s\"", name);
  for (struct dirent* de; dp && quoted && !found && (de = readdir(dp)) != NULL;) {
    size_t len = strlen(de->d_name);
    if (len < 6 || (strcmp(de->d_name + len - 5, ".gltf") != 0 && strcmp(de->d_name + len - 5, ".GLTF") != 0)) continue;
    char* p = join(dir, de->d_name);
    size_t n = 0;
    char* text = p && !skio_same_file(p, e->path) && !skio_same_file(p, e->d->path)
                     ? skio_read_whole(p, (size_t)64 << 20, &n, NULL)
                     : NULL;
    for (const char* q = text; q && !found && (q = memchr(q, '"', n - (size_t)(q - text))) != NULL; ++q)
      if ((size_t)(text + n - q) >= nl + 2 && !memcmp(q, quoted, nl + 2)) found = p, p = NULL;
    free(text);
    free(p);
  }
  if (dp) closedir(dp);
  free(quoted);
  free(dir);
  return found;
}

/* Each companion file checked before anything is written: never one of the source's files, one that exists with
 * other bytes only when replacing files is allowed, and never one another .gltf beside it names. */
static int check_companions(edit_job* e, skc_err* err) {
  for (size_t i = 0; i < e->nfiles; ++i) {
    outfile* f = &e->files[i];
    if (!f->path) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    if (is_source_file(e, f)) return skc_fail(err, SKC_EXISTS, "%s: %s is one of the source's files", e->path, f->path);
    struct stat st;
    f->existed = stat(f->path, &st) == 0;
    f->same = f->existed && file_holds(f->path, f->data, f->size);
    if (f->existed && !f->same && !e->o.replace_files)
      return skc_fail(err, SKC_EXISTS, "%s: %s exists with other bytes (allow replacing it to write there)", e->path,
                      f->path);
    char* other = f->existed && !f->same ? named_by_other_gltf(e, f) : NULL;
    if (other) {
      skc_fail(err, SKC_EXISTS,
               "%s: %s exists with other bytes and %s uses it: not replaced (write into another folder)", e->path,
               f->path, other);
      free(other);
      return SKC_EXISTS;
    }
  }
  return SKC_OK;
}

/* The staged companions (tmps) renamed into place, then the main file (tmp_main); on a failure the companions that
 * did not exist before are taken away again. */
static int rename_outputs(edit_job* e, char** tmps, skc_err* err) {
  int rc = SKC_OK, en = 0;
  for (size_t i = 0; i < e->nfiles && !rc; ++i)
    if (e->files[i].same)
      continue;
    else if ((en = skio_atomic_place(tmps[i], e->files[i].path)) != 0) {
      rc = skc_fail(err, SKC_IO, "%s: cannot write %s: %s", e->path, e->files[i].path, strerror(en));
      for (size_t k = 0; k < i; ++k)
        if (!e->files[k].existed) unlink(e->files[k].path);
    } else {
      free(tmps[i]);
      tmps[i] = NULL;
    }
  if (!rc && (en = skio_atomic_place(e->tmp_main, e->path)) != 0) {
    rc = skc_fail(err, SKC_IO, "%s: cannot replace: %s", e->path, strerror(en));
    for (size_t k = 0; k < e->nfiles; ++k)
      if (!e->files[k].existed) unlink(e->files[k].path);
  }
  return rc;
}

/* The files written: companions first (never one of the source's files), then the main file. */
static int write_outputs(edit_job* e, skc_err* err) {
  int rc = check_companions(e, err);
  if (rc) return rc;
  char* made[16];
  size_t nmade = 0;
  for (size_t i = 0; i < e->nfiles && !rc; ++i)
    if (!e->files[i].existed) rc = make_folders(e->path, e->out_dir, e->files[i].path, made, &nmade, err);
  char** tmps = rc ? NULL : calloc(e->nfiles + 1, sizeof *tmps);
  if (!rc && !tmps) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < e->nfiles && !rc; ++i)
    if (!e->files[i].same) rc = write_temp(e->files[i].path, e->files[i].data, e->files[i].size, &tmps[i], err);
  if (!rc) rc = write_temp(e->path, e->file.p, e->file.n, &e->tmp_main, err);
  if (!rc) rc = rename_outputs(e, tmps, err);
  if (rc && e->tmp_main) {
    skio_atomic_forget(e->tmp_main);
    unlink(e->tmp_main);
  }
  for (size_t i = 0; tmps && i < e->nfiles; ++i)
    if (tmps[i]) {
      skio_atomic_forget(tmps[i]);
      unlink(tmps[i]);
      free(tmps[i]);
    }
  free(tmps);
  for (size_t i = nmade; i-- > 0;) { /* the folders made for companions, when the write failed */
    if (rc) rmdir(made[i]);
    free(made[i]);
  }
  return rc;
}

/* The edit after its checks: plans, JSON splices and new data, the files composed and written. */
static int run_edit(edit_job* e, const skio_gltf_prim_edit* edits, skc_err* err) {
  int rc = start_bin(e, err);
  if (!rc) rc = write_plans(e, edits, err);
  if (!rc) rc = add_objects(e, edits, err);
  if (!rc) rc = place_buffers(e, err);
  if (!rc) rc = list_companions(e, err);
  if (!rc) rc = compose_file(e, err);
  if (!rc) rc = write_outputs(e, err);
  if (!rc) note_renormalized(&e->o, e->rep.renormalized);
  if (!rc && e->o.report) *e->o.report = e->rep;
  return rc;
}

int skio_gltf_edit_write(skio_gltf_doc* d, const skio_gltf_prim_edit* edits, size_t count, const char* path, int binary,
                         const skio_gltf_edit_options* opts, skc_err* err) {
  if (!d || !path || (count && !edits))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "document, edits and path must not be NULL");
  skio_gltf_edit_options o = {0};
  if (opts) o = *opts;
  if (o.note && o.note_size) o.note[0] = 0;
  if ((o.weights_type < SKIO_WEIGHTS_SOURCE || o.weights_type > SKIO_WEIGHTS_U16))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "weights type %d unknown", (int)o.weights_type);
  if (skio_same_file(path, d->path))
    return skc_fail(err, SKC_EXISTS, "%s is the source file: refusing to overwrite it", path);
  int rc = edited_once(edits, count, err);
  if (rc) return rc;
  edit_job e = {.d = d, .path = path, .binary = binary, .o = o, .count = count};
  e.plans = calloc(count + 1, sizeof *e.plans);
  e.ix = (plan_index){malloc((count + 1) * sizeof(int32_t)), malloc(((size_t)d->accessor_count + 1) * sizeof(int32_t)),
                      d->accessor_count};
  e.refs = attribute_refs(d);
  if (!e.plans || !e.refs || !e.ix.same_pos || !e.ix.pos_last)
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  else
    rc = run_edit(&e, edits, err);
  free_edit_job(&e);
  return rc;
}

/* ---- from a scene ------------------------------------------------------------------------------------------- */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
cannot(char* why, size_t n, const char* fmt, ...) {
  if (why && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
  }
  return SKIO_GLTF_EDIT_CANNOT;
}

static int edit_scene(const skio_scene* s, const char* path, int binary, const skio_gltf_options* w,
                      const skio_gltf_edit_options* o, char* why, size_t why_size, skc_err* err);

/* Every part of a merged mesh (skio_mesh.parts) is edited as its own primitive: skio_scene_split_parts. */
int skio_gltf_edit_scene(const skio_scene* s, const char* path, int binary, const skio_gltf_options* w,
                         const skio_gltf_edit_options* o, char* why, size_t why_size, skc_err* err) {
  if (!s || !path || !w) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene, path and options must not be NULL");
  skio_scene view;
  int rc = skio_scene_split_parts(s, &view, err);
  if (rc) return rc;
  rc = edit_scene(&view, path, binary, w, o, why, why_size, err);
  skio_scene_parts_view_free(s, &view);
  return rc;
}

/* The scene's meshes grouped by the document primitive they come from (several nodes may instance one): group[mi];
 * per group, whether its meshes sit on more than one node (the weights of a node that gets a new skin are for its
 * placement alone, and a primitive holds one set) and the edit written for it so far (-1 none). Sorted once: a
 * document of 20,000 meshes looked every mesh's primitive up among all the others. */
typedef struct prim_groups {
  uint32_t* group;
  uint8_t* several_nodes;
  int32_t* edit;
} prim_groups;

typedef struct prim_key {
  uint64_t prim; /* gltf_mesh << 32 | gltf_primitive */
  uint32_t mesh;
  int32_t node;
} prim_key;

static int cmp_prim_key(const void* a, const void* b) {
  const prim_key *x = a, *y = b;
  if (x->prim != y->prim) return x->prim < y->prim ? -1 : 1;
  return x->mesh < y->mesh ? -1 : x->mesh > y->mesh;
}

static void prim_groups_free(prim_groups* g) {
  free(g->group), free(g->several_nodes), free(g->edit);
  *g = (prim_groups){0};
}

/* 0, or -1 when out of memory (g freed). Meshes without a place in the document were refused before. */
static int group_primitives(const skio_scene* s, prim_groups* g) {
  const uint32_t n = s->mesh_count;
  prim_key* k = malloc(((size_t)n + 1) * sizeof *k);
  g->group = malloc(((size_t)n + 1) * sizeof *g->group);
  g->several_nodes = calloc((size_t)n + 1, 1);
  g->edit = malloc(((size_t)n + 1) * sizeof *g->edit);
  if (!k || !g->group || !g->several_nodes || !g->edit) {
    free(k);
    prim_groups_free(g);
    return -1;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const skio_mesh* m = &s->meshes[i];
    k[i] = (prim_key){(uint64_t)(uint32_t)m->gltf_mesh << 32 | (uint32_t)m->gltf_primitive, i, m->gltf_node};
  }
  qsort(k, n, sizeof *k, cmp_prim_key);
  uint32_t groups = 0;
  for (uint32_t i = 0, start = 0; i < n; ++i) {
    if (i && k[i].prim != k[i - 1].prim) groups++, start = i;
    g->group[k[i].mesh] = groups;
    if (k[i].node != k[start].node) g->several_nodes[groups] = 1;
  }
  for (uint32_t i = 0; i <= groups; ++i) g->edit[i] = -1;
  free(k);
  return 0;
}

/* The joints of the skin of node (a token), as t->local[n] = the index in the skin's "joints" of node n, or -1.
 * Their count (0 when the node's skin has no joints). The table is filled once for consecutive calls on nodes of one
 * skin (t->skin; UINT32_MAX when something else wrote the table). */
typedef struct skin_table {
  int32_t* local;
  uint32_t skin;
  int L;
} skin_table;

static int node_skin(const skio_gltf_doc* d, int node, skin_table* t) {
  uint32_t skin;
  if (!skio_json_u32(d, skio_json_get(d, node, "skin"), &skin)) skin = UINT32_MAX;
  if (skin != UINT32_MAX && skin == t->skin) return t->L;
  int joints = skio_json_get(d, skio_gltf_item(d, "skins", skin), "joints");
  int L = skio_json_len(d, joints);
  if (L <= 0 || L > 65536) return 0;
  for (uint32_t n = 0; n < d->node_count; ++n) t->local[n] = -1;
  for (int k = 0, tk = joints + 1; k < L; ++k, tk = d->next[tk]) {
    uint32_t n;
    if (skio_json_u32(d, tk, &n) && n < d->node_count && t->local[n] < 0) t->local[n] = k;
  }
  t->skin = skin;
  t->L = L;
  return L;
}

/* The skin the editor adds to the node of mesh m, which had none (`bind` weighted an unskinned mesh): the scene's
 * deform joints and any other joint m's weights name (each is a node of the document), in skeleton order
 * (local[node] = its index), with inverse binds IB(j) * placed: the file's vertices are in the node's space, the
 * scene's where skio_mesh_place put them. Listing the other joints as well (the armature object nodes, a Rigify
 * rig's controls) made them deform joints of the output, so a second bind of it weighted them. Its count, or -1 when
 * out of memory (*joints and *ibm malloc'd). */
static int new_skin(const skio_scene* s, const skio_mesh* m, const int32_t* node_of, uint32_t nodes, bool bind_space,
                    int32_t* local, uint32_t** joints, float** ibm) {
  const uint32_t jc = s->skeleton->joint_count;
  for (uint32_t n = 0; n < nodes; ++n) local[n] = -1;
  *joints = malloc(((size_t)jc + 1) * sizeof **joints);
  *ibm = malloc(((size_t)jc + 1) * 16 * sizeof **ibm);
  uint8_t* keep = calloc((size_t)jc + 1, 1);
  if (!*joints || !*ibm || !keep) {
    free(keep);
    return -1;
  }
  if (skio_scene_deform_joints(s, keep, NULL, NULL, NULL) != SKC_OK) memset(keep, 1, jc);
  for (size_t e = 0; m->skin && e < m->skin->offsets[m->skin->vertex_count]; ++e)
    if (m->skin->joints[e] < jc) keep[m->skin->joints[e]] = 1;
  float id[16];
  skc_mat4_identity(id);
  int L = 0;
  for (uint32_t j = 0; j < jc; ++j) {
    const int32_t n = node_of[j];
    if (!keep[j] || local[n] >= 0) continue;
    local[n] = L;
    (*joints)[L] = (uint32_t)n;
    skc_mat4_mul(m->inverse_bind + (size_t)j * 16, m->placed_set && !bind_space ? m->placed : id,
                 *ibm + (size_t)L * 16);
    L++;
  }
  free(keep);
  return L;
}

/* Whether unskinned mesh m, which gets a new skin on document node `node`, is written in that skin's bind space
 * (skio_gltf_prim_edit.bind_positions): the reader placed it with its node's transform (not a mirror, which would
 * turn its faces), the node has no children (which that transform places), and every primitive of its mesh is plain
 * (no morph targets, no extensions such as Draco) and gets a new skin too (the node's transform goes). Otherwise its
 * vertices stay as the file has them and the skin's inverse binds carry the transform. */
static bool writes_bind_space(const skio_scene* s, const skio_mesh* m, int node) {
  const skio_gltf_doc* d = s->gltf;
  float id[16];
  skc_mat4_identity(id);
  if (!m->placed_set || !memcmp(m->placed, id, sizeof id) || m->part_count || skc_mat3_det_of_mat4(m->placed) <= 0.0f)
    return false;
  const int ch = skio_json_get(d, node, "children");
  if (skio_json_is(d, ch, 2) && d->tok[ch].size) return false;
  const int prims = skio_json_get(d, skio_gltf_item(d, "meshes", (uint32_t)m->gltf_mesh), "primitives");
  const int np = skio_json_len(d, prims);
  for (int p = 0; p < np; ++p) {
    const int pt = skio_json_at(d, prims, p);
    if (skio_json_get(d, pt, "targets") >= 0 || skio_json_get(d, pt, "extensions") >= 0) return false;
  }
  int bound = 0;
  for (uint32_t k = 0; k < s->mesh_count; ++k) {
    const skio_mesh* o = &s->meshes[k];
    bound += o->gltf_node == m->gltf_node && o->gltf_mesh == m->gltf_mesh && o->skin && !skio_mesh_still_rigid(o) &&
             o->placed_set && !memcmp(o->placed, m->placed, sizeof id);
  }
  return np > 0 && bound == np;
}

/* Influences per vertex the source primitive of m holds: 4 per JOINTS_n / WEIGHTS_n pair (sets from 0 on). */
static uint32_t source_capacity(const skio_gltf_doc* d, const skio_mesh* m) {
  int mesh = skio_gltf_item(d, "meshes", (uint32_t)m->gltf_mesh);
  int attrs = skio_json_get(d, skio_json_at(d, skio_json_get(d, mesh, "primitives"), m->gltf_primitive), "attributes");
  uint32_t sets = 0;
  for (char kj[24], kw[24]; sets < MAX_SETS; ++sets) {
    snprintf(kj, sizeof kj, "JOINTS_%u", sets);
    snprintf(kw, sizeof kw, "WEIGHTS_%u", sets);
    if (attr_accessor(d, attrs, kj) < 0 || attr_accessor(d, attrs, kw) < 0) break;
  }
  return 4 * sets;
}

/* The joint of the skin a mesh is written with (those j with local[node_of[j]] >= 0) that is, or is an ancestor of,
 * every other joint of that skin; -1 when the skin has two roots (or none). Parents come before their children. */
static int32_t skin_root_joint(const skc_skeleton* sk, const int32_t* node_of, const int32_t* local) {
  const uint32_t J = sk->joint_count;
  int32_t root = -1;
  for (uint32_t j = 0; j < J && root < 0; ++j) /* the first listed joint in parents-first order is the only candidate */
    if (node_of[j] >= 0 && local[node_of[j]] >= 0) root = (int32_t)j;
  uint8_t* under = root >= 0 ? calloc(J, 1) : NULL; /* 1: the root or below it */
  if (!under) return -1;
  for (uint32_t j = (uint32_t)root; j < J && root >= 0; ++j) {
    under[j] = j == (uint32_t)root || (!skc_skeleton_is_root(sk, j) && under[sk->parents[j]]);
    if (!under[j] && node_of[j] >= 0 && local[node_of[j]] >= 0) root = -1;
  }
  free(under);
  return root;
}

/* Mesh m's influences as written (the rules of o; rep counts what they changed) in CSR off / oj / ow, joints as
 * indices of its node's skin (local[node]). A vertex without any weight (glTF allows none such) gets weight 1 on the
 * root joint of that skin, which it then follows (rep->anchored, anchor_name); without a single root it keeps none
 * (rep->unweighted). oj and ow hold room for the stored entries plus one a vertex. SKC_OK, SKIO_GLTF_EDIT_CANNOT with
 * why (a joint the skin does not list) or SKC_OUT_OF_MEMORY (not reported in an skc_err: the caller does). */
static int mesh_influences(const skio_scene* s, const skio_mesh* m, const skio_gltf_options* o, const int32_t* node_of,
                           const int32_t* local, uint32_t* off, uint32_t* oj, float* ow, skio_gltf_report* rep,
                           char* why, size_t why_size) {
  const skc_skeleton* sk = s->skeleton;
  const size_t V = m->vertex_count;
  size_t widest = 0;
  for (size_t v = 0; v < V; ++v)
    if (m->skin->offsets[v + 1] - m->skin->offsets[v] > widest) widest = m->skin->offsets[v + 1] - m->skin->offsets[v];
  void* tmp = malloc(widest * 8 + 8);
  if (!tmp) return SKC_OUT_OF_MEMORY;
  int rc = SKC_OK;
  size_t at = 0;
  int32_t root = -2; /* not looked for yet */
  off[0] = 0;
  for (size_t v = 0; v < V && !rc; ++v) {
    size_t b = m->skin->offsets[v], n = m->skin->offsets[v + 1] - b;
    size_t got = n ? skio_gltf_vertex_weights(o, sk->joint_count, m->skin->joints + b, m->skin->weights + b, n, tmp,
                                              oj + at, ow + at, rep)
                   : 0; /* no entries (a skin of none: joints and weights may be NULL) */
    if (!got && root == -2) root = skin_root_joint(sk, node_of, local);
    if (!got && root >= 0) { /* no weight: the skin's root joint carries it */
      oj[at] = (uint32_t)root, ow[at] = 1.0f, got = 1;
      rep->anchored++;
      rep->anchor_is_joint = true;
      snprintf(rep->anchor_name, sizeof rep->anchor_name, "%s", sk->names && sk->names[root] ? sk->names[root] : "");
    }
    rep->unweighted += !got; /* all its weights 0, and no root to anchor it: written so, and said (note_weights) */
    for (size_t k = 0; k < got && !rc; ++k) {
      int32_t l = local[node_of[oj[at + k]]];
      if (l < 0)
        rc = cannot(why, why_size, "mesh %s: joint %s is not in the skin of its node in %s", m->name,
                    sk->names && sk->names[oj[at + k]] ? sk->names[oj[at + k]] : "?", s->gltf->path);
      oj[at + k] = (uint32_t)l;
    }
    at += got;
    off[v + 1] = (uint32_t)at;
  }
  free(tmp);
  return rc;
}

/* Joints of the scene that the document has no node for (bone links added after reading, sk_scene_relink): each
 * hangs from a joint that has one, or from an earlier such joint, and gets node node_count + k (parents come first).
 * node_of[j]: joint j's node. */
typedef struct added_plan {
  int32_t* node_of; /* joint_count */
  uint32_t count;
  uint32_t* joint;  /* count: the skeleton joint of added node k */
  const char** names;
  int32_t* parent_node;
  float* trs;       /* 10 floats each */
  uint32_t skin_count;
  uint32_t* skins;  /* the skins to extend (of the nodes of edited primitives) */
  float* ibm;       /* skin_count * count * 16 */
} added_plan;

static void added_free(added_plan* p) {
  free(p->node_of), free(p->joint), free(p->names), free(p->parent_node), free(p->trs), free(p->skins), free(p->ibm);
}

/* SKC_OK, SKIO_GLTF_EDIT_CANNOT (a joint without a node under none; a rest that is no TRS) or SKC_OUT_OF_MEMORY. */
static int plan_added(const skio_scene* s, added_plan* p, char* why, size_t why_size) {
  const skc_skeleton* sk = s->skeleton;
  const skio_gltf_doc* d = s->gltf;
  const uint32_t jc = sk->joint_count;
  memset(p, 0, sizeof *p);
  p->node_of = malloc(((size_t)jc + 1) * sizeof *p->node_of);
  p->joint = malloc(((size_t)jc + 1) * sizeof *p->joint);
  p->names = malloc(((size_t)jc + 1) * sizeof *p->names);
  p->parent_node = malloc(((size_t)jc + 1) * sizeof *p->parent_node);
  p->trs = malloc(((size_t)jc + 1) * 10 * sizeof *p->trs);
  p->skins = malloc(((size_t)s->mesh_count + 1) * sizeof *p->skins);
  if (!p->node_of || !p->joint || !p->names || !p->parent_node || !p->trs || !p->skins) return SKC_OUT_OF_MEMORY;
  for (uint32_t j = 0; j < jc; ++j) {
    const int32_t n = s->joint_node[j];
    if (n >= 0 && (uint32_t)n < d->node_count) {
      p->node_of[j] = n;
      continue;
    }
    const int32_t par = sk->parents[j];
    skc_trs t;
    if (skc_skeleton_is_root(sk, j) || p->node_of[par] < 0)
      return cannot(why, why_size, "joint %u no longer maps onto a node of %s", j, d->path);
    if (!skc_mat4_to_trs(sk->rest_local + (size_t)j * 16, &t, 1e-5f))
      return cannot(why, why_size, "joint %s: its rest transform is no translation, rotation and scale", sk->names[j]);
    const uint32_t k = p->count++;
    p->node_of[j] = (int32_t)(d->node_count + k);
    p->joint[k] = j;
    p->names[k] = sk->names && sk->names[j] ? sk->names[j] : "joint";
    p->parent_node[k] = p->node_of[par];
    memcpy(p->trs + (size_t)k * 10, &t, sizeof t);
  }
  return SKC_OK;
}

/* Skin `skin` (of edited mesh m's node) extended with the added joints: listed once, with m's inverse binds of them. */
static bool add_skin_extension(const skio_scene* s, const skio_mesh* m, uint32_t skin, added_plan* p) {
  for (uint32_t i = 0; i < p->skin_count; ++i)
    if (p->skins[i] == skin) return true;
  float* grown = realloc(p->ibm, ((size_t)p->skin_count + 1) * p->count * 16 * sizeof *grown);
  if (!grown) return false;
  p->ibm = grown;
  const float* src = m->inverse_bind ? m->inverse_bind : s->skeleton->inverse_bind;
  for (uint32_t k = 0; k < p->count; ++k)
    memcpy(grown + ((size_t)p->skin_count * p->count + k) * 16, src + (size_t)p->joint[k] * 16, 16 * sizeof *grown);
  p->skins[p->skin_count++] = skin;
  return true;
}

/* Whether m's weights name an added joint (its node's skin then gets them all). */
static bool uses_added(const skio_scene* s, const skio_mesh* m, const added_plan* p) {
  const uint32_t first = s->gltf->node_count;
  for (size_t e = 0; p->count && e < m->skin->offsets[m->vertex_count]; ++e)
    if (m->skin->joints[e] < s->skeleton->joint_count && p->node_of[m->skin->joints[e]] >= (int32_t)first &&
        m->skin->weights[e] > 0.0f)
      return true;
  return false;
}

/* SKC_OK when mesh m, another node's instance of the primitive `first` edits, has the same influences in the joint
 * indices of its own node's skin (two characters sharing a mesh, edited alike); SKIO_GLTF_EDIT_CANNOT when they
 * differ (a lock or a joint list that names one skeleton's bones: one primitive cannot hold both, the scene is
 * written whole, each instance its own mesh), SKC_OUT_OF_MEMORY. */
static int same_as_first(const skio_scene* s, const skio_mesh* m, const skio_gltf_prim_edit* first,
                         const skio_gltf_options* w, const int32_t* node_of, skin_table* t, char* why,
                         size_t why_size) {
  const skio_gltf_doc* d = s->gltf;
  const size_t V = m->vertex_count, entries = m->skin->offsets[V];
  const int node = skio_gltf_item(d, "nodes", (uint32_t)m->gltf_node);
  const int32_t* local = t->local;
  if (V != first->vertex_count || skio_json_get(d, node, "skin") < 0 || node_skin(d, node, t) <= 0)
    return cannot(why, why_size, "mesh %s: one primitive, several nodes, edited differently", m->name);
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* oj = malloc((entries + V) * sizeof *oj + 4); /* + V: a root joint for a vertex without weight */
  float* ow = malloc((entries + V) * sizeof *ow + 4);
  skio_gltf_options wm = *w;
  if (w->limit_to_source && source_capacity(d, m) > wm.limit) wm.limit = source_capacity(d, m);
  skio_gltf_report scratch = {0}; /* counted once, for the first instance */
  int rc = off && oj && ow ? mesh_influences(s, m, &wm, node_of, local, off, oj, ow, &scratch, why, why_size)
                           : SKC_OUT_OF_MEMORY;
  if (!rc) {
    const size_t n = off[V];
    const bool same = !memcmp(off, first->offsets, (V + 1) * sizeof *off) &&
                      !memcmp(oj, first->joints, n * sizeof *oj) && !memcmp(ow, first->weights, n * sizeof *ow);
    if (!same)
      rc = cannot(why, why_size,
                  "mesh %s: one primitive that several nodes instance now has different weights for "
                  "each",
                  m->name);
  }
  free(off), free(oj), free(ow);
  return rc;
}

/* SKC_OK when scene s can be written by editing its document, else SKIO_GLTF_EDIT_CANNOT with why: not read from a
 * glTF, changed after reading in what the editor does not write, or a mesh without a place in the document. */
static int scene_editable(const skio_scene* s, char* why, size_t why_size) {
  const skio_gltf_doc* d = s->gltf;
  const skc_skeleton* sk = s->skeleton;
  if (!d) return cannot(why, why_size, "the scene was not read from a glTF");
  if (s->materials_changed) return cannot(why, why_size, "materials were added or assigned after reading");
  if (s->shapes_changed) return cannot(why, why_size, "blend shapes were set after reading");
  if (s->props_changed) return cannot(why, why_size, "custom properties were added after reading");
  for (uint32_t mi = 0; mi < s->mesh_count; ++mi) { /* a mesh added to the scene has no place in the document */
    const skio_mesh* m = &s->meshes[mi];
    if (m->gltf_mesh < 0 || m->gltf_primitive < 0 || m->gltf_node < 0)
      return cannot(why, why_size, "mesh %s is not a primitive of %s", m->name, d->path);
    if (m->skin && (!sk || !s->joint_node))
      return cannot(why, why_size, "mesh %s has a skin the document lacks", m->name);
  }
  for (uint32_t i = 0; i < d->accessor_count; ++i) { /* recount_draco would leave a fallback of the old count */
    const size_t n = skio_gltf_draco_decoded_count(d, i);
    skio_gltf_accessor a;
    if (n && !skio_gltf_accessor_decl(d, i, &a, NULL) && a.count != n && a.view >= 0)
      return cannot(
          why, why_size,
          "accessors[%u] declares %zu elements and holds them uncompressed, but its Draco data decodes to %zu", i,
          a.count, n);
  }
  return SKC_OK;
}

/* The primitive edits edit_scene builds (edits[0, ne)) and the arrays they point into, one slot per mesh; the
 * skin table, primitive groups and report they share. Freed by scene_edits_free. */
typedef struct scene_edits {
  skio_gltf_prim_edit* edits;
  uint32_t** offs;
  uint32_t** js;
  float** ws;
  uint32_t** new_joints;
  float** new_ibm;
  int32_t* local;
  skin_table table;
  prim_groups pg;
  skio_gltf_report rep;
  size_t ne;
} scene_edits;

/* Allocates se's arrays for the meshes of s and `nodes` nodes; false when out of memory (scene_edits_free frees
 * what was made). */
static bool scene_edits_alloc(const skio_scene* s, uint32_t nodes, scene_edits* se) {
  se->edits = calloc(s->mesh_count + 1, sizeof *se->edits);
  se->offs = calloc(s->mesh_count + 1, sizeof *se->offs);
  se->js = calloc(s->mesh_count + 1, sizeof *se->js);
  se->ws = calloc(s->mesh_count + 1, sizeof *se->ws);
  se->new_joints = calloc(s->mesh_count + 1, sizeof *se->new_joints);
  se->new_ibm = calloc(s->mesh_count + 1, sizeof *se->new_ibm);
  se->local = malloc(((size_t)nodes + 1) * sizeof *se->local);
  se->table = (skin_table){se->local, UINT32_MAX, 0};
  return se->edits && se->offs && se->js && se->ws && se->new_joints && se->new_ibm && se->local &&
         !group_primitives(s, &se->pg);
}

static void scene_edits_free(const skio_scene* s, scene_edits* se) {
  for (size_t k = 0; k < s->mesh_count + 1 && se->offs && se->js && se->ws; ++k)
    free(se->offs[k]), free(se->js[k]), free(se->ws[k]);
  for (size_t k = 0; k < s->mesh_count + 1 && se->new_joints && se->new_ibm; ++k)
    free(se->new_joints[k]), free(se->new_ibm[k]);
  free(se->offs), free(se->js), free(se->ws), free(se->new_joints), free(se->new_ibm), free(se->edits), free(se->local);
  prim_groups_free(&se->pg);
}

/* The joint count of the skin mesh m (on document node `node`) is written with, se->local filled for it: its node's
 * skin (extended by the added joints when m's weights name one), or a new one. -1 when out of memory. */
static int mesh_skin(const skio_scene* s, const skio_mesh* m, int node, bool has_skin, bool bind_space, added_plan* ad,
                     uint32_t nodes, scene_edits* se) {
  const skio_gltf_doc* d = s->gltf;
  int32_t* local = se->local;
  const size_t ne = se->ne;
  int L = has_skin ? node_skin(d, node, &se->table)
                   : new_skin(s, m, ad->node_of, nodes, bind_space, local, &se->new_joints[ne], &se->new_ibm[ne]);
  if (!has_skin) se->table.skin = UINT32_MAX; /* the table now holds the new skin's joints */
  uint32_t skin_index = 0;
  if (has_skin && L > 0 && uses_added(s, m, ad) && skio_json_u32(d, skio_json_get(d, node, "skin"), &skin_index)) {
    for (uint32_t k = 0; k < ad->count; ++k) local[d->node_count + k] = L + (int32_t)k; /* appended to its joints */
    L += (int)ad->count;
    if (!add_skin_extension(s, m, skin_index, ad)) L = -1;
  }
  return L;
}

/* Mesh m's influences (joints of a skin of L joints) as edit se->ne, the first of its primitive group. */
static int add_mesh_edit(const skio_scene* s, uint32_t mi, bool has_skin, bool bind_space, int L,
                         const skio_gltf_options* w, const added_plan* ad, scene_edits* se, char* why, size_t why_size,
                         skc_err* err) {
  const skio_gltf_doc* d = s->gltf;
  const skio_mesh* m = &s->meshes[mi];
  const size_t ne = se->ne;
  const size_t V = m->vertex_count, entries = m->skin->offsets[V];
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* oj = malloc((entries + V) * sizeof *oj + 4); /* + V: a root joint for a vertex without weight */
  float* ow = malloc((entries + V) * sizeof *ow + 4);
  se->offs[ne] = off, se->js[ne] = oj, se->ws[ne] = ow;
  skio_gltf_options wm = *w;
  if (w->limit_to_source && has_skin && source_capacity(d, m) > wm.limit) wm.limit = source_capacity(d, m);
  int rc = off && oj && ow ? mesh_influences(s, m, &wm, ad->node_of, se->local, off, oj, ow, &se->rep, why, why_size)
                           : SKC_OUT_OF_MEMORY;
  if (rc == SKC_OUT_OF_MEMORY) skc_fail(err, rc, "out of memory");
  if (rc) return rc;
  se->edits[ne] = (skio_gltf_prim_edit){(uint32_t)m->gltf_mesh,
                                        (uint32_t)m->gltf_primitive,
                                        V,
                                        off,
                                        0,
                                        oj,
                                        ow,
                                        (uint32_t)L,
                                        has_skin ? -1 : m->gltf_node,
                                        se->new_joints[ne],
                                        se->new_ibm[ne],
                                        bind_space ? m->positions : NULL,
                                        bind_space ? m->normals : NULL,
                                        bind_space ? m->tangents : NULL};
  se->pg.edit[se->pg.group[mi]] = (int32_t)se->ne++;
  return SKC_OK;
}

/* The edit of mesh mi, when it has a skin: its primitive's first instance adds one, a later one must match it. */
static int edit_mesh(const skio_scene* s, uint32_t mi, const skio_gltf_options* w, added_plan* ad, uint32_t nodes,
                     scene_edits* se, char* why, size_t why_size, skc_err* err) {
  const skio_gltf_doc* d = s->gltf;
  const skio_mesh* m = &s->meshes[mi];
  if (!m->skin) return SKC_OK;
  const int32_t first_edit = se->pg.edit[se->pg.group[mi]];
  if (first_edit >= 0) { /* a second instance of one primitive: written from the first when it holds the same weights */
    int rc = same_as_first(s, m, &se->edits[first_edit], w, ad->node_of, &se->table, why, why_size);
    if (rc == SKC_OUT_OF_MEMORY) skc_fail(err, rc, "out of memory");
    return rc;
  }
  int node = skio_gltf_item(d, "nodes", (uint32_t)m->gltf_node);
  const bool has_skin = skio_json_get(d, node, "skin") >= 0;
  if (!has_skin && skio_mesh_still_rigid(m)) return SKC_OK; /* a rigid child in the file: kept as is */
  if (!has_skin && se->pg.several_nodes[se->pg.group[mi]])
    return cannot(why, why_size, "mesh %s: one primitive, several nodes, each weighted where it sits", m->name);
  const bool bind_space = !has_skin && writes_bind_space(s, m, node);
  const int L = mesh_skin(s, m, node, has_skin, bind_space, ad, nodes, se);
  if (L < 0) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (L == 0 || L > 65536) return cannot(why, why_size, "mesh %s: its node has no skin with joints", m->name);
  return add_mesh_edit(s, mi, has_skin, bind_space, L, w, ad, se, why, why_size, err);
}

static int edit_scene(const skio_scene* s, const char* path, int binary, const skio_gltf_options* w,
                      const skio_gltf_edit_options* o, char* why, size_t why_size, skc_err* err) {
  skio_gltf_doc* d = s->gltf;
  const skc_skeleton* sk = s->skeleton;
  int rc = scene_editable(s, why, why_size);
  if (rc) return rc;
  /* no skeleton: no skin to edit, the document is written as it is (a container change at most) */
  const uint32_t jc = sk && s->joint_node ? sk->joint_count : 0;
  added_plan ad = {0}; /* joints without a node: bone links added after reading */
  if (jc) {
    const int prc = plan_added(s, &ad, why, why_size);
    if (prc) {
      added_free(&ad);
      return prc == SKC_OUT_OF_MEMORY ? skc_fail(err, prc, "out of memory") : prc;
    }
  }
  const uint32_t nodes = d->node_count + ad.count;
  scene_edits se = {0};
  if (!scene_edits_alloc(s, nodes, &se)) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    goto done;
  }
  for (uint32_t mi = 0; mi < s->mesh_count && !rc; ++mi) rc = edit_mesh(s, mi, w, &ad, nodes, &se, why, why_size, err);
  if (w->report) *w->report = se.rep;
  skio_gltf_edit_options eo = {0};
  if (o) eo = *o;
  if (!eo.images) eo.images = s->images, eo.image_count = s->image_count; /* what a .glb embeds */
  const skio_gltf_added_joints aj = {ad.count, ad.names, ad.parent_node, ad.trs, ad.skin_count, ad.skins, ad.ibm};
  if (ad.count) eo.added = &aj;
  if (!rc) rc = skio_gltf_edit_write(d, se.edits, se.ne, path, binary, &eo, err);
done:
  added_free(&ad);
  scene_edits_free(s, &se);
  return rc;
}
