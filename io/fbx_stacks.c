/* fbx_stacks.c - where each clip (AnimationStack) of a binary FBX file starts on its timeline. Assimp 5.2.5's FBX
 * reader moves every stack's keys so that the clip starts at 0: it subtracts the stack's LocalStart when LocalStart
 * or LocalStop is set, else the earliest key of the transform curves it reads. Blender, Maya and 3ds Max key a
 * clip where it sits on the scene's timeline (a Blender scene starts at frame 1) and their importers put it back
 * there, so scene_import.c adds the start listed here to the keys: a clip converted to glTF or written back to FBX
 * stays where the file had it. At most 256 stacks are listed; the earliest-key walk runs for at most 16 of them
 * (each is a few passes over the connections). An ASCII file's stacks get their LocalStart only (a stack without
 * one keeps Assimp's times). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fbx_fixup.h"
#include "skio_fbx_tree.h"

enum { MAX_STACKS = 256, MAX_WALKS = 16 };

/* LocalStart and LocalStop (ticks) of the stack record; false when neither is set (both 0 or absent). */
static bool local_range(const skio_fbx_tree* t, uint32_t stack, int64_t* start) {
  const uint32_t props = skio_fbx_child(t, stack, "Properties70", SKIO_FBX_NONE);
  int64_t a = 0, b = 0;
  for (uint32_t p = props == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, props, "P", SKIO_FBX_NONE);
       p != SKIO_FBX_NONE; p = skio_fbx_child(t, props, "P", p)) {
    if (skio_fbx_prop_str_is(t, p, 0, "LocalStart")) skio_fbx_prop_i64(t, p, 4, &a);
    if (skio_fbx_prop_str_is(t, p, 0, "LocalStop")) skio_fbx_prop_i64(t, p, 4, &b);
  }
  *start = a;
  return a != 0 || b != 0;
}

/* A sorted set of object ids. */
typedef struct id_set {
  int64_t* v;
  size_t n, cap;
} id_set;

static int cmp_id(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

static bool has_id(const id_set* s, int64_t id) { return s->n && bsearch(&id, s->v, s->n, sizeof id, cmp_id); }

static bool add_id(id_set* s, int64_t id) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    int64_t* grown = realloc(s->v, cap * sizeof *grown);
    if (!grown) return false;
    s->v = grown;
    s->cap = cap;
  }
  s->v[s->n++] = id;
  return true;
}

/* The children (ids) of the connections whose parent is in `parents`, sorted. */
static bool children_of(const skio_fbx_tree* t, uint32_t conns, const id_set* parents, id_set* out) {
  for (uint32_t c = skio_fbx_child(t, conns, "C", SKIO_FBX_NONE); c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, conns, "C", c)) {
    int64_t child, parent;
    if (!skio_fbx_prop_i64(t, c, 1, &child) || !skio_fbx_prop_i64(t, c, 2, &parent) || !has_id(parents, parent))
      continue;
    if (!add_id(out, child)) return false;
  }
  if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_id);
  return true;
}

/* The curve nodes of the stack's layers that animate a transform (a curve node is connected OP to its Model). */
static bool transform_nodes(const skio_fbx_tree* t, uint32_t conns, int64_t stack, id_set* nodes) {
  id_set top = {0}, layers = {0}, any = {0};
  bool ok = add_id(&top, stack) && children_of(t, conns, &top, &layers) && children_of(t, conns, &layers, &any);
  /* any: the layers' curve nodes; keep those that are the child of an "OP ... Lcl *" connection */
  for (uint32_t c = skio_fbx_child(t, conns, "C", SKIO_FBX_NONE); ok && c != SKIO_FBX_NONE;
       c = skio_fbx_child(t, conns, "C", c)) {
    int64_t child;
    if (!skio_fbx_prop_i64(t, c, 1, &child) || !has_id(&any, child)) continue;
    if (skio_fbx_prop_str_is(t, c, 3, "Lcl Translation") || skio_fbx_prop_str_is(t, c, 3, "Lcl Rotation") ||
        skio_fbx_prop_str_is(t, c, 3, "Lcl Scaling"))
      ok = add_id(nodes, child);
  }
  if (ok && nodes->n) qsort(nodes->v, nodes->n, sizeof *nodes->v, cmp_id);
  free(top.v), free(layers.v), free(any.v);
  return ok;
}

/* The earliest key (ticks) of the transform curves of the stack; false when it has none or memory ran out. */
static bool earliest_key(const skio_fbx_tree* t, uint32_t objects, uint32_t conns, int64_t stack, int64_t* first) {
  id_set nodes = {0}, curves = {0};
  bool found = false;
  if (transform_nodes(t, conns, stack, &nodes) && children_of(t, conns, &nodes, &curves)) {
    for (uint32_t r = skio_fbx_child(t, objects, "AnimationCurve", SKIO_FBX_NONE); r != SKIO_FBX_NONE;
         r = skio_fbx_child(t, objects, "AnimationCurve", r)) {
      int64_t id, k;
      const uint32_t times = skio_fbx_child(t, r, "KeyTime", SKIO_FBX_NONE);
      skio_fbx_prop p;
      skc_err ignored;
      if (!skio_fbx_prop_i64(t, r, 0, &id) || !has_id(&curves, id) || !skio_fbx_prop_at(t, times, 0, &p) ||
          skio_fbx_array_min_i64(&p, &k, &ignored) || (found && k >= *first))
        continue;
      *first = k;
      found = true;
    }
  }
  free(nodes.v), free(curves.v);
  return found;
}

/* The stack's start (seconds) as Assimp subtracted it. */
static double stack_start(const skio_fbx_tree* t, uint32_t objects, uint32_t conns, uint32_t stack, uint32_t* walks) {
  int64_t start = 0, id;
  if (!local_range(t, stack, &start)) {
    start = 0;
    if (conns == SKIO_FBX_NONE || *walks >= MAX_WALKS || !skio_fbx_prop_i64(t, stack, 0, &id)) return 0.0;
    ++*walks;
    if (!earliest_key(t, objects, conns, id, &start)) start = 0;
  }
  return (double)start / (double)SKIO_FBX_TICKS_PER_SECOND;
}

int skio_fbx_stack_list(const uint8_t* data, size_t size, skio_fbx_stack** out, uint32_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, size, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  const uint32_t conns = skio_fbx_child(&t, SKIO_FBX_NONE, "Connections", SKIO_FBX_NONE);
  uint32_t walks = 0;
  for (uint32_t r = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE
                                             : skio_fbx_child(&t, objects, "AnimationStack", SKIO_FBX_NONE);
       r != SKIO_FBX_NONE && !rc && *count < MAX_STACKS; r = skio_fbx_child(&t, objects, "AnimationStack", r)) {
    const uint8_t* name;
    size_t n;
    if (!skio_fbx_prop_name(&t, r, 1, &name, &n)) continue;
    if (!*out && !(*out = calloc(MAX_STACKS, sizeof **out))) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX animation stacks");
      break;
    }
    skio_fbx_stack* e = &(*out)[*count];
    if (!(e->name = malloc(n + 1))) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX animation stacks");
      break;
    }
    memcpy(e->name, name, n);
    e->name[n] = 0;
    e->start = stack_start(&t, objects, conns, r, &walks);
    ++*count;
  }
  skio_fbx_tree_free(&t);
  if (rc) {
    skio_fbx_stack_free(*out, *count);
    *out = NULL;
    *count = 0;
  }
  return rc;
}

void skio_fbx_stack_free(skio_fbx_stack* list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) free(list[i].name);
  free(list);
}

/* ---- ASCII ---------------------------------------------------------------------------------------------- */

/* The line [p, e) without its leading blanks starts with s. */
static bool line_starts(const char* p, const char* e, const char* s) {
  while (p < e && (*p == ' ' || *p == '\t')) ++p;
  const size_t n = strlen(s);
  return (size_t)(e - p) >= n && !memcmp(p, s, n);
}

/* Braces opened minus closed on the line, outside quoted strings. */
static int brace_balance(const char* p, const char* e) {
  int d = 0;
  bool quoted = false;
  for (; p < e; ++p) {
    if (*p == '"') quoted = !quoted;
    if (!quoted) d += (*p == '{') - (*p == '}');
  }
  return d;
}

/* The name of "AnimationStack: id, "AnimStack::name", ..." (Assimp's: what follows the first "::"); NULL when the
 * line has no quoted name or memory ran out (*oom). */
static char* ascii_stack_name(const char* p, const char* e, bool* oom) {
  const char* q = memchr(p, '"', (size_t)(e - p));
  const char* end = q ? memchr(q + 1, '"', (size_t)(e - q - 1)) : NULL;
  if (!end) return NULL;
  ++q;
  for (const char* c = q; c + 1 < end; ++c)
    if (c[0] == ':' && c[1] == ':') {
      q = c + 2;
      break;
    }
  char* name = malloc((size_t)(end - q) + 1);
  if (!name) {
    *oom = true;
    return NULL;
  }
  memcpy(name, q, (size_t)(end - q));
  name[end - q] = 0;
  return name;
}

/* The number ending a P: "LocalStart" / "LocalStop" line, parsed within [p, e) (the input is not NUL-terminated);
 * a value past the int64 range saturates. */
static int64_t ascii_p_value(const char* p, const char* e) {
  const char* c = e;
  while (c > p && (c[-1] == '\n' || c[-1] == '\r' || c[-1] == ' ' || c[-1] == '\t')) --c;
  const char* end = c;
  while (c > p && c[-1] >= '0' && c[-1] <= '9') --c;
  const bool negative = c > p && c[-1] == '-';
  int64_t v = 0;
  for (; c < end; ++c) v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : 10 * v + (c[0] - '0');
  return negative ? -v : v;
}

int skio_fbx_ascii_stack_list(const char* in, size_t n, skio_fbx_stack** out, uint32_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  int depth = 0, stack_depth = -1;
  int64_t start = 0, stop = 0;
  bool oom = false;
  for (size_t p = 0; p < n && !oom;) {
    const char* nl = memchr(in + p, '\n', n - p);
    const char *b = in + p, *e = nl ? nl + 1 : in + n;
    if (stack_depth < 0 && *count < MAX_STACKS && line_starts(b, e, "AnimationStack:")) {
      char* name = ascii_stack_name(b, e, &oom);
      if (name && !*out && !(*out = calloc(MAX_STACKS, sizeof **out))) oom = true;
      if (name && !oom) {
        (*out)[(*count)++].name = name;
        stack_depth = depth, start = stop = 0;
      } else {
        free(name);
      }
    } else if (stack_depth >= 0 && line_starts(b, e, "P: \"LocalStart\",")) {
      start = ascii_p_value(b, e);
    } else if (stack_depth >= 0 && line_starts(b, e, "P: \"LocalStop\",")) {
      stop = ascii_p_value(b, e);
    }
    depth += brace_balance(b, e);
    if (stack_depth >= 0 && depth <= stack_depth) { /* the stack's object closed */
      (*out)[*count - 1].start = start || stop ? (double)start / (double)SKIO_FBX_TICKS_PER_SECOND : 0.0;
      stack_depth = -1;
    }
    p = (size_t)(e - in);
  }
  if (oom) {
    skio_fbx_stack_free(*out, *count);
    *out = NULL;
    *count = 0;
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX animation stacks");
  }
  return SKC_OK;
}
