/* collada_unbound.c - a Collada document whose meshes without material keep none when Assimp reads it
 * (skio_collada.h).
 *
 * A <triangles> (or <polylist>, <polygons>...) whose material symbol the <instance_geometry> / <instance_controller>
 * that places it does not bind - or that names no material at all, as Blender's Collada exporter writes a mesh
 * without one - is read by Assimp 5.2 with the document's first material (ColladaLoader: an unresolved symbol gives
 * material index 0). Blender's importer shows such a mesh without material. The copy binds every such symbol to the
 * placeholder material (SKIO_PLACEHOLDER_MATERIAL, added with an effect), which the reader drops again
 * (scene_material.c: made-up materials), so the mesh reads without one; a primitive without a symbol gets
 * SKIO_UNBOUND_SYMBOL first. Nothing else changes. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skio_buf.h"
#include "skio_collada.h"
#include "skio_scene.h"

#define SKIO_UNBOUND_SYMBOL "skinkit_unbound"

typedef struct span {
  const char* p;
  size_t n;
} span;

typedef struct edit {
  const char* at;   /* where in the input */
  size_t seq;       /* edits at one place go in the order they were made */
  size_t cut;       /* input bytes it replaces */
  const char* text; /* what it writes there (static) */
  span sym;         /* or, when text is NULL, the binding of this symbol */
} edit;

typedef struct unbound {
  const char *s, *end;
  span *geo_sym, *geo_id; /* per primitive: its symbol (empty: none) and its geometry's id */
  const char** prim_tag;  /* per primitive: its tag, for a symbol-less one's attribute */
  size_t prims, prims_cap;
  span *ctl_id, *ctl_src; /* per controller: its id and the source it skins or morphs */
  size_t ctls, ctls_cap;
  edit* ed;
  size_t eds, eds_cap;
  size_t work; /* comparisons made: past UNBOUND_WORK the copy is not made (a hostile file of many instances) */
  bool oom;    /* or out of work */
} unbound;

#define UNBOUND_WORK ((size_t)1 << 27)

static bool grow(void** p, size_t* cap, size_t n, size_t size) {
  if (n < *cap) return true;
  size_t nc = *cap ? 2 * *cap : 16;
  void* q = realloc(*p, nc * size);
  if (!q) return false;
  *p = q;
  *cap = nc;
  return true;
}

static bool span_is(span a, const char* p, size_t n) { return a.n == n && (n == 0 || !memcmp(a.p, p, n)); }

static span attr(const char* tag, const char* end, const char* name) {
  span v;
  skio_text_attr(tag, end, name, &v.p, &v.n);
  return v;
}

/* The end of the element whose start tag is at p ("<name"): after "/>", else after "</name>"; NULL when open. */
static const char* element_end(const char* p, const char* end, const char* close) {
  const char* gt = memchr(p, '>', (size_t)(end - p));
  if (!gt) return NULL;
  if (gt[-1] == '/') return gt + 1;
  const char* c = skio_text_find(gt, end, close);
  return c ? c + strlen(close) : NULL;
}

static bool is_primitive(const char* p, const char* end) {
  static const char* const k[] = {"<triangles",  "<polylist", "<polygons", "<lines",
                                  "<linestrips", "<trifans",  "<tristrips"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
    if (skio_text_start_tag(p, end, k[i])) return true;
  return false;
}

/* Every primitive of every <geometry>: its symbol and its geometry's id. */
static void find_primitives(unbound* u) {
  for (const char* g = skio_text_find(u->s, u->end, "<geometry"); g; g = skio_text_find(g + 1, u->end, "<geometry")) {
    if (!skio_text_start_tag(g, u->end, "<geometry")) continue;
    const char* ge = element_end(g, u->end, "</geometry>");
    if (!ge) return;
    const span id = attr(g, u->end, "id");
    for (const char* p = memchr(g + 1, '<', (size_t)(ge - g - 1)); p; p = memchr(p + 1, '<', (size_t)(ge - p - 1))) {
      if (!is_primitive(p, ge)) continue;
      const size_t cap = u->prims_cap;
      if (!grow((void**)&u->geo_sym, &u->prims_cap, u->prims, sizeof *u->geo_sym)) {
        u->oom = true;
        return;
      }
      span* ids = cap == u->prims_cap ? u->geo_id : realloc(u->geo_id, u->prims_cap * sizeof *u->geo_id);
      if (ids) u->geo_id = ids;
      const char** tags = cap == u->prims_cap ? u->prim_tag : realloc(u->prim_tag, u->prims_cap * sizeof *tags);
      if (tags) u->prim_tag = tags;
      if (!ids || !tags) {
        u->oom = true;
        return;
      }
      u->geo_sym[u->prims] = attr(p, ge, "material");
      u->geo_id[u->prims] = id;
      u->prim_tag[u->prims++] = p;
    }
    g = ge - 1;
  }
}

/* Every <controller>: its id and the <skin> / <morph> source it deforms. */
static void find_controllers(unbound* u) {
  for (const char* c = skio_text_find(u->s, u->end, "<controller"); c;
       c = skio_text_find(c + 1, u->end, "<controller")) {
    if (!skio_text_start_tag(c, u->end, "<controller")) continue;
    const char* ce = element_end(c, u->end, "</controller>");
    if (!ce) return;
    const char* d = skio_text_find(c, ce, "<skin");
    if (!d) d = skio_text_find(c, ce, "<morph");
    if (d) {
      const size_t cap = u->ctls_cap;
      if (!grow((void**)&u->ctl_id, &u->ctls_cap, u->ctls, sizeof *u->ctl_id)) {
        u->oom = true;
        return;
      }
      span* src = cap == u->ctls_cap ? u->ctl_src : realloc(u->ctl_src, u->ctls_cap * sizeof *src);
      if (!src) {
        u->oom = true;
        return;
      }
      u->ctl_src = src;
      u->ctl_id[u->ctls] = attr(c, ce, "id");
      u->ctl_src[u->ctls++] = attr(d, ce, "source");
    }
    c = ce - 1;
  }
}

/* The geometry a url names: itself, or what its controllers (a skin of a morph...) deform. */
static span geometry_of(const unbound* u, span url) {
  for (int depth = 0; depth < 8; ++depth) {
    size_t k = 0;
    while (k < u->ctls && !span_is(u->ctl_id[k], url.p, url.n)) ++k;
    if (k == u->ctls) return url;
    url = u->ctl_src[k];
  }
  return url;
}

static void add_edit(unbound* u, const char* at, size_t cut, const char* text, span sym) {
  if (!grow((void**)&u->ed, &u->eds_cap, u->eds, sizeof *u->ed)) {
    u->oom = true;
    return;
  }
  u->ed[u->eds] = (edit){at, u->eds, cut, text, sym};
  ++u->eds;
}

/* Whether the instance element [p, pe) binds symbol sym. */
static bool binds(const char* p, const char* pe, span sym) {
  for (const char* m = skio_text_find(p, pe, "<instance_material"); m;
       m = skio_text_find(m + 1, pe, "<instance_material"))
    if (span_is(attr(m, pe, "symbol"), sym.p, sym.n)) return true;
  return false;
}

/* The symbol a primitive goes by: its own, or SKIO_UNBOUND_SYMBOL when it names none. */
static span symbol_of(span s) { return s.n ? s : (span){SKIO_UNBOUND_SYMBOL, sizeof SKIO_UNBOUND_SYMBOL - 1}; }

/* The bindings instance [p, pe) lacks for the primitives of geometry geo, as edits. */
static void bind_instance(unbound* u, const char* p, const char* pe, span geo, const char* close) {
  const char* at = NULL;
  const char* tc = skio_text_find(p, pe, "<technique_common");
  const char* tce = tc ? memchr(tc, '>', (size_t)(pe - tc)) : NULL;
  const bool empty = pe[-2] == '/';
  size_t added = 0;
  u->work += u->prims + u->ctls;
  for (size_t i = 0; i < u->prims && !u->oom; ++i) {
    if (!span_is(u->geo_id[i], geo.p, geo.n)) continue;
    const span sym = symbol_of(u->geo_sym[i]);
    if ((u->work += i + (size_t)(pe - p) / 16) > UNBOUND_WORK) u->oom = true; /* the scans below */
    bool seen = binds(p, pe, sym);
    for (size_t j = 0; j < i && !seen; ++j)
      seen = span_is(u->geo_id[j], geo.p, geo.n) && span_is(symbol_of(u->geo_sym[j]), sym.p, sym.n);
    if (seen) continue;
    if (!added++) { /* where the bindings go, and what they go in */
      if (tce) {
        at = tce + 1;
      } else if (empty) {
        add_edit(u, pe - 2, 2, "><bind_material><technique_common>", (span){0});
        at = pe;
      } else if (!skio_text_find(p, pe, "<bind_material")) {
        at = pe - strlen(close);
        add_edit(u, at, 0, "<bind_material><technique_common>", (span){0});
      } else {
        return; /* a <bind_material> without <technique_common>: left as it is */
      }
    }
    add_edit(u, at, 0, NULL, sym);
  }
  if (added && !tce) add_edit(u, at, 0, "</technique_common></bind_material>", (span){0});
  if (added && empty) add_edit(u, at, 0, close, (span){0});
}

static void bind_instances(unbound* u, const char* tag, const char* close) {
  for (const char* p = skio_text_find(u->s, u->end, tag); p && !u->oom; p = skio_text_find(p + 1, u->end, tag)) {
    if (!skio_text_start_tag(p, u->end, tag)) continue;
    const char* pe = element_end(p, u->end, close);
    if (!pe) return;
    bind_instance(u, p, pe, geometry_of(u, attr(p, pe, "url")), close);
  }
}

static int by_place(const void* a, const void* b) {
  const edit *x = a, *y = b;
  return x->at < y->at ? -1 : x->at > y->at ? 1 : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void put_edit(skio_buf* b, const edit* e) {
  if (e->text) {
    skio_buf_str(b, e->text);
    return;
  }
  skio_buf_str(b, "<instance_material symbol=\"");
  skio_buf_put(b, e->sym.p, e->sym.n);
  skio_buf_str(b, "\" target=\"#" SKIO_PLACEHOLDER_MATERIAL "\"/>");
}

/* The placeholder material and its effect, in the libraries (made when missing). */
static void add_libraries(unbound* u) {
  static const char mat[] = "<material id=\"" SKIO_PLACEHOLDER_MATERIAL "\" name=\"" SKIO_PLACEHOLDER_MATERIAL
                            "\"><instance_effect url=\"#" SKIO_PLACEHOLDER_MATERIAL "-fx\"/></material>";
  static const char fx[] = "<effect id=\"" SKIO_PLACEHOLDER_MATERIAL
                           "-fx\"><profile_COMMON><technique sid=\"common\"><lambert/></technique></profile_COMMON>"
                           "</effect>";
  const char* lm = skio_text_find(u->s, u->end, "<library_materials");
  const char* lme = lm ? memchr(lm, '>', (size_t)(u->end - lm)) : NULL;
  const char* le = skio_text_find(u->s, u->end, "<library_effects");
  const char* lee = le ? memchr(le, '>', (size_t)(u->end - le)) : NULL;
  if (!lme || lme[-1] == '/') return;
  add_edit(u, lme + 1, 0, mat, (span){0});
  if (lee && lee[-1] != '/')
    add_edit(u, lee + 1, 0, fx, (span){0});
  else
    add_edit(u, lm, 0, "<library_effects>" /* then fx, then the close */, (span){0}), add_edit(u, lm, 0, fx, (span){0}),
        add_edit(u, lm, 0, "</library_effects>", (span){0});
}

static char* apply_edits(unbound* u, size_t* out_n) {
  qsort(u->ed, u->eds, sizeof *u->ed, by_place);
  skio_buf b = {0};
  const char* from = u->s;
  for (size_t i = 0; i < u->eds; ++i) {
    skio_buf_put(&b, from, (size_t)(u->ed[i].at - from));
    put_edit(&b, &u->ed[i]);
    from = u->ed[i].at + u->ed[i].cut;
  }
  skio_buf_put(&b, from, (size_t)(u->end - from));
  skio_buf_put(&b, "", 1); /* NUL-terminated */
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  *out_n = b.n - 1;
  return (char*)b.p;
}

/* Whether some instance lacks a binding (an edit that binds a symbol). */
static bool binds_any(const unbound* u) {
  for (size_t i = 0; i < u->eds; ++i)
    if (!u->ed[i].text) return true;
  return false;
}

static void unbound_free(unbound* u) {
  free(u->geo_sym), free(u->geo_id), free(u->prim_tag), free(u->ctl_id), free(u->ctl_src), free(u->ed);
}

char* skio_collada_bind_unbound(const char* xml, size_t n, size_t* out_n, uint32_t* bound) {
  unbound u = {.s = xml, .end = xml + n};
  *out_n = 0;
  if (bound) *bound = 0;
  if (!xml || !skio_text_find(xml, u.end, "<material") ||
      skio_text_find(xml, u.end, "\"" SKIO_PLACEHOLDER_MATERIAL "\"") ||
      skio_text_find(xml, u.end, "\"" SKIO_UNBOUND_SYMBOL "\""))
    return NULL; /* no material to be given by mistake, or the names are taken */
  find_primitives(&u);
  find_controllers(&u);
  bind_instances(&u, "<instance_geometry", "</instance_geometry>");
  bind_instances(&u, "<instance_controller", "</instance_controller>");
  char* out = NULL;
  if (!u.oom && binds_any(&u)) {
    uint32_t count = 0;
    for (size_t i = 0; i < u.eds; ++i) count += !u.ed[i].text;
    for (size_t i = 0; i < u.prims; ++i) /* a primitive without a symbol goes by SKIO_UNBOUND_SYMBOL */
      if (!u.geo_sym[i].n)
        add_edit(&u, u.prim_tag[i] + strcspn(u.prim_tag[i], " \t\r\n/>"), 0, " material=\"" SKIO_UNBOUND_SYMBOL "\"",
                 (span){0});
    add_libraries(&u);
    out = u.oom ? NULL : apply_edits(&u, out_n);
    if (out && bound) *bound = count;
  }
  unbound_free(&u);
  return out;
}
