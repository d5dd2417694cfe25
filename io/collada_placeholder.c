/* collada_placeholder.c - a Collada document without the placeholder material skinkit's Assimp writer adds
 * (skio_collada.h). Assimp 5.2.5's writers need a material for every mesh, so a mesh the source leaves without one
 * is given SKIO_PLACEHOLDER_MATERIAL (scene_material.c), and Blender's Collada importer showed it (session 45's
 * audit). Dropped: the <material> of that id, its <effect> ("<id>-fx", as Assimp names it), every
 * <instance_material> that targets it, a <bind_material> left without one and a library left empty. A mesh's
 * <triangles material="..."> symbol then binds nothing: Blender's reader gives it no material, and so does
 * skinkit's (collada_unbound.c; Assimp alone gives it the document's first material). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_buf.h"
#include "skio_collada.h"

#define MAX_SPANS 4096

typedef struct spans {
  const char *a[MAX_SPANS], *b[MAX_SPANS];
  uint32_t n;
} spans;

/* Whether the start tag at p is <tag ...> or <tag> (not a longer name). */
static bool is_tag(const char* p, const char* end, const char* tag) {
  const size_t n = strlen(tag);
  return skio_text_starts(p, end, tag) && p + n < end &&
         (p[n] == ' ' || p[n] == '>' || p[n] == '/' || p[n] == '\n' || p[n] == '\t' || p[n] == '\r');
}

/* The end of the element whose start tag is at p ("<name"): after "/>" of an empty one, else after "</name>";
 * NULL when unterminated. */
static const char* element_end(const char* p, const char* end, const char* name) {
  const char* gt = memchr(p, '>', (size_t)(end - p));
  if (!gt) return NULL;
  if (gt[-1] == '/') return gt + 1;
  char close[64];
  snprintf(close, sizeof close, "</%s>", name);
  const char* c = skio_text_find(gt, end, close);
  return c ? c + strlen(close) : NULL;
}

static bool attr_is(const char* tag, const char* end, const char* attr, const char* want) {
  const char* v;
  size_t n;
  skio_text_attr(tag, end, attr, &v, &n);
  return v && n == strlen(want) && !memcmp(v, want, n);
}

/* Adds [a, b) widened to whole lines when only blanks share them. */
static void add_span(spans* s, const char* start, const char* a, const char* b, const char* end) {
  if (s->n == MAX_SPANS) return;
  const char* la = a;
  while (la > start && (la[-1] == ' ' || la[-1] == '\t')) --la;
  const char* lb = b;
  while (lb < end && (*lb == ' ' || *lb == '\t' || *lb == '\r')) ++lb;
  if ((la == start || la[-1] == '\n') && (lb == end || *lb == '\n')) {
    a = la;
    b = lb < end ? lb + 1 : lb;
  }
  s->a[s->n] = a;
  s->b[s->n++] = b;
}

/* Elements <name> in [p, end) whose attribute attr is want (empty attr: every one), counted in *n (all of them in
 * *all); with sp each matching one is added. */
static void scan(spans* sp, const char* start, const char* p, const char* end, const char* name, const char* attr,
                 const char* want, uint32_t* n, uint32_t* all) {
  char open[64];
  snprintf(open, sizeof open, "<%s", name);
  for (const char* t = skio_text_find(p, end, open); t; t = skio_text_find(t + 1, end, open)) {
    if (!is_tag(t, end, open)) continue;
    const char* e = element_end(t, end, name);
    if (!e) return;
    ++*all;
    if (attr[0] && !attr_is(t, end, attr, want)) continue;
    ++*n;
    if (sp) add_span(sp, start, t, e, end);
  }
}

/* In each <wrapper> of [start, end): the <name> elements whose attr is want dropped, the wrapper with them when it
 * holds no other <name>. */
static void drop_in(spans* sp, const char* start, const char* end, const char* wrapper, const char* name,
                    const char* attr, const char* want) {
  char open[64];
  snprintf(open, sizeof open, "<%s", wrapper);
  for (const char* w = skio_text_find(start, end, open); w; w = skio_text_find(w + 1, end, open)) {
    if (!is_tag(w, end, open)) continue;
    const char* we = element_end(w, end, wrapper);
    if (!we) return;
    uint32_t hit = 0, all = 0;
    scan(NULL, start, w, we, name, attr, want, &hit, &all);
    if (!hit) continue;
    if (hit == all)
      add_span(sp, start, w, we, end);
    else
      scan(sp, start, w, we, name, attr, want, &hit, &all);
    w = we - 1;
  }
}

static int by_start(const void* x, const void* y) {
  const char *a = *(const char*const*)x, *b = *(const char*const*)y;
  return a < b ? -1 : a > b;
}

char* skio_collada_drop_material(const char* xml, size_t n, const char* id, size_t* out_n, uint32_t* removed) {
  *out_n = 0;
  if (removed) *removed = 0;
  spans* sp = calloc(1, sizeof *sp);
  if (!sp) return NULL;
  const char* end = xml + n;
  char fx[300];
  snprintf(fx, sizeof fx, "%s-fx", id);
  drop_in(sp, xml, end, "library_materials", "material", "id", id);
  const uint32_t materials = sp->n;
  drop_in(sp, xml, end, "library_effects", "effect", "id", fx);
  drop_in(sp, xml, end, "bind_material", "instance_material", "target", id);
  /* the spans do not overlap (different elements); copy what lies between them in document order */
  const char* pairs[2 * MAX_SPANS];
  for (uint32_t k = 0; k < sp->n; ++k) pairs[2 * k] = sp->a[k], pairs[2 * k + 1] = sp->b[k];
  qsort(pairs, sp->n, 2 * sizeof *pairs, by_start);
  skio_buf b = {0};
  const char* at = xml;
  for (uint32_t k = 0; k < sp->n; ++k) {
    if (pairs[2 * k] < at) continue; /* nested in one dropped already */
    skio_buf_put(&b, at, (size_t)(pairs[2 * k] - at));
    at = pairs[2 * k + 1];
  }
  skio_buf_put(&b, at, (size_t)(end - at));
  skio_buf_put(&b, "", 1); /* NUL-terminated, not counted */
  free(sp);
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  if (removed) *removed = materials;
  *out_n = b.n - 1;
  return (char*)b.p;
}
