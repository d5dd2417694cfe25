/* dae_edit.c - a Collada document's skin weights rewritten in place (skio_dae_edit.h has the contract).
 *
 * The document is scanned once, tag by tag (comments, CDATA, processing instructions and declarations skipped),
 * for what the edit needs: nodes (id, sid, name) and the controllers they instance, the geometries' position
 * sources and primitive elements, and the skin controllers' joint and weight sources, <vcount> and <v>. Nothing is
 * built for the rest of the document, which is copied as it is: the output is the source with at most five byte
 * ranges per changed controller replaced (two counts, the weights appended, <vcount> and <v>), and for a new skin
 * its controller inserted and its instance's tag, url and <skeleton> changed.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "skio_dae_edit.h"

#include "skc_math.h"
#include "skio_buf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scanning ------------------------------------------------------------------------------------------------ */

typedef struct span {
  const char* p;
  size_t n;
} span;

typedef struct xtag {
  span name;
  const char *attrs, *attrs_end; /* between the name and '>' (or "/>") */
  const char* end;               /* one past '>' */
  bool closing, empty;
} xtag;

static bool span_is(span s, const char* z) { return s.n == strlen(z) && memcmp(s.p, z, s.n) == 0; }
static bool span_eq(span a, span b) { return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0); }

static const char* find_str(const char* p, const char* end, const char* what) {
  size_t n = strlen(what);
  for (; p && (size_t)(end - p) >= n; ++p) {
    p = memchr(p, what[0], (size_t)(end - p - (ptrdiff_t)n + 1));
    if (!p) return NULL;
    if (memcmp(p, what, n) == 0) return p;
  }
  return NULL;
}

static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '-' || c == '.'; }

/* Whether s can be one entry of a Name_array / IDREF_array: a name (UTF-8 letters too), no space or markup in it. */
static bool list_name(span s) {
  for (size_t i = 0; i < s.n; ++i)
    if (!name_char(s.p[i]) && (unsigned char)s.p[i] < 0x80) return false;
  return s.n > 0;
}

/* The next element tag at or after p (comments, CDATA, <? ?> and <! > skipped); false at the end or on a tag the
 * scanner cannot read (the edit is then refused). */
static bool next_tag(const char* p, const char* end, xtag* t, bool* bad) {
  for (;;) {
    p = p < end ? memchr(p, '<', (size_t)(end - p)) : NULL;
    if (!p) return false;
    const char* skip = NULL;
    if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
      skip = find_str(p + 4, end, "-->");
      if (skip) skip += 3;
    } else if (end - p >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
      skip = find_str(p + 9, end, "]]>");
      if (skip) skip += 3;
    } else if (end - p >= 2 && (p[1] == '?' || p[1] == '!')) {
      skip = memchr(p, '>', (size_t)(end - p));
      if (skip) skip += 1;
    } else {
      break;
    }
    if (!skip) return *bad = true, false;
    p = skip;
  }
  const char* q = p + 1;
  t->closing = q < end && *q == '/';
  if (t->closing) ++q;
  const char* nm = q;
  while (q < end && name_char(*q)) ++q;
  if (q == nm) return *bad = true, false;
  t->name = (span){nm, (size_t)(q - nm)};
  t->attrs = q;
  char quote = 0;
  for (; q < end && (quote || *q != '>'); ++q) {
    if (quote) {
      if (*q == quote) quote = 0;
    } else if (*q == '"' || *q == '\'') {
      quote = *q;
    }
  }
  if (q >= end) return *bad = true, false;
  t->empty = q > t->attrs && q[-1] == '/';
  t->attrs_end = t->empty ? q - 1 : q;
  t->end = q + 1;
  return true;
}

/* The value of attribute key (raw, entities not expanded); false when absent or the attributes do not scan. */
static bool attr(const xtag* t, const char* key, span* v) {
  const size_t kn = strlen(key);
  const char *q = t->attrs, *e = t->attrs_end;
  while (q < e) {
    while (q < e && isspace((unsigned char)*q)) ++q;
    if (q >= e) break;
    const char* k = q;
    while (q < e && *q != '=' && !isspace((unsigned char)*q)) ++q;
    const size_t klen = (size_t)(q - k);
    while (q < e && isspace((unsigned char)*q)) ++q;
    if (q >= e || *q != '=') return false;
    ++q;
    while (q < e && isspace((unsigned char)*q)) ++q;
    if (q >= e || (*q != '"' && *q != '\'')) return false;
    const char quote = *q++, *vs = q;
    while (q < e && *q != quote) ++q;
    if (q >= e) return false;
    if (klen == kn && memcmp(k, key, kn) == 0) {
      *v = (span){vs, (size_t)(q - vs)};
      return true;
    }
    ++q;
  }
  return false;
}

/* A URL attribute's fragment ("#id" -> "id"); empty when it is not a local reference. */
static span fragment(const xtag* t, const char* key) {
  span v = {NULL, 0};
  if (!attr(t, key, &v) || v.n < 2 || v.p[0] != '#') return (span){NULL, 0};
  return (span){v.p + 1, v.n - 1};
}

static bool attr_u32(const xtag* t, const char* key, uint32_t* out) {
  span v;
  if (!attr(t, key, &v) || v.n == 0 || v.n > 10) return false;
  uint64_t x = 0;
  for (size_t i = 0; i < v.n; ++i) {
    if (!isdigit((unsigned char)v.p[i])) return false;
    x = x * 10 + (uint64_t)(v.p[i] - '0');
  }
  if (x > UINT32_MAX) return false;
  *out = (uint32_t)x;
  return true;
}

/* ---- the parts of the document the edit needs ------------------------------------------------------------------ */

enum { SRC_NONE = 0, SRC_FLOAT, SRC_NAME, SRC_IDREF };
enum { PRIM_TRIANGLES = 0, PRIM_POLYLIST, PRIM_POLYGONS, PRIM_OTHER };
enum { MAX_INPUTS = 16 };

typedef struct dinput {
  span semantic, source;
  uint32_t offset;
} dinput;

typedef struct dsrc {
  span id;
  int kind;
  span text;       /* the array's text */
  span count_attr; /* the array's count value */
  span acc_count;  /* the accessor's count value (p NULL: none) */
  uint32_t stride; /* the accessor's (1 when none) */
  bool empty;      /* <float_array .../>: no text to append to */
} dsrc;

typedef struct dprim {
  uint32_t geom;
  int kind;
  uint32_t count;
  dinput in[MAX_INPUTS];
  uint32_t nin;
  span vcount;
  uint32_t p_first, np; /* its <p> spans in doc.ps */
  bool bad;
} dprim;

typedef struct dgeom {
  span id, vertices_id, position_src;
} dgeom;

typedef struct dctrl {
  span id, skin_geom, joints_src, ibm_src, bsm; /* <joints>' JOINT and INV_BIND_MATRIX sources, the bind shape */
  dinput vw[MAX_INPUTS];
  uint32_t nvw, vw_count;
  span vcount, v;
  bool has_vw, has_vcount, has_v;
} dctrl;

typedef struct dnode {
  span id, sid, name;
  long parent; /* enclosing node, -1 at the top */
  bool joint;  /* type="JOINT" */
  bool moves;  /* a transformation element that is not the identity (or one this scanner does not read) */
  /* Blender's bone extras (<extra><technique profile="blender">): tip_x/y/z (tail - head, leaf bones only) and
   * connect; and the translation of the node's <matrix>, when it has one (for the reader: skio_dae_read_places) */
  float tip[3], move[3];
  bool has_tip, connect, has_move;
} dnode;

typedef struct dinst {
  uint32_t node;
  bool controller;
  span url;
  /* the tag (a new skin turns an instance_geometry into an instance_controller): its name, its end, and for an
   * element with content its closing tag's name */
  span tag_name, close_name;
  const char* open_end;
  bool empty;
} dinst;

typedef struct doc {
  dnode* nodes;
  dinst* insts;
  dsrc* srcs;
  dgeom* geoms;
  dprim* prims;
  dctrl* ctrls;
  span* ps;
  const char* controllers_close; /* '<' of </library_controllers>, or NULL */
  span up_axis;                  /* the first <up_axis>'s text */
  double meter;                  /* the first <unit>'s meter (1 when none) */
  const char* geometries_end;    /* past </library_geometries>, or NULL */
  uint32_t nn, ni, ns, ng, np, nc, nps;
  uint32_t cn, ci, cs, cg, cp, cc, cps;
} doc;

static void doc_free(doc* d) {
  free(d->nodes), free(d->insts), free(d->srcs), free(d->geoms), free(d->prims), free(d->ctrls), free(d->ps);
}

/* Room for one more item in *arr (count n, capacity *cap); NULL when out of memory. */
static void* grow(void* arr_p, uint32_t n, uint32_t* cap, size_t item) {
  void** arr = arr_p;
  if (n < *cap) return (char*)*arr + (size_t)n * item;
  uint32_t c = *cap ? 2 * *cap : 16;
  void* a = realloc(*arr, (size_t)c * item);
  if (!a) return NULL;
  *arr = a;
  *cap = c;
  memset((char*)a + (size_t)n * item, 0, (size_t)(c - n) * item);
  return (char*)a + (size_t)n * item;
}

/* What the scan is inside of (indices into doc, -1: none). */
typedef struct scan_state {
  long geom, ctrl, src, prim;
  bool in_vertices, in_joints, in_vw;
  uint32_t node_stack[256];
  uint32_t depth;
  bool node_overflow;
  long inst; /* the instance element open, -1: none */
} scan_state;

static int prim_kind(span name) {
  if (span_is(name, "triangles")) return PRIM_TRIANGLES;
  if (span_is(name, "polylist")) return PRIM_POLYLIST;
  if (span_is(name, "polygons")) return PRIM_POLYGONS;
  if (span_is(name, "lines") || span_is(name, "linestrips") || span_is(name, "tristrips") ||
      span_is(name, "trifans"))
    return PRIM_OTHER;
  return -1;
}

static bool read_input(const xtag* t, dinput* in) {
  span s;
  if (!attr(t, "semantic", &s)) return false;
  in->semantic = s;
  in->source = fragment(t, "source");
  in->offset = 0;
  span o;
  if (attr(t, "offset", &o) && !attr_u32(t, "offset", &in->offset)) return false;
  return in->offset < 4096; /* (an index tuple of more is no file's) */
}

/* The text of an element that holds only text: from the end of its open tag to the next '<'. */
static span text_after(const xtag* t, const char* end) {
  const char* q = memchr(t->end, '<', (size_t)(end - t->end));
  return (span){t->end, (size_t)((q ? q : end) - t->end)};
}

/* Closing tags that end a context. */
static void close_tag(doc* d, scan_state* st, const xtag* t) {
  const span name = t->name;
  if ((span_is(name, "instance_controller") || span_is(name, "instance_geometry")) && st->inst >= 0) {
    if (t->closing) d->insts[st->inst].close_name = name;
    st->inst = -1;
  }
  if (span_is(name, "library_controllers") && t->closing) d->controllers_close = name.p - 2;
  if (span_is(name, "library_geometries") && t->closing) d->geometries_end = t->end;
  if (span_is(name, "geometry")) st->geom = -1;
  else if (span_is(name, "controller")) st->ctrl = -1;
  else if (span_is(name, "source")) st->src = -1;
  else if (span_is(name, "vertices")) st->in_vertices = false;
  else if (span_is(name, "joints")) st->in_joints = false;
  else if (span_is(name, "vertex_weights")) st->in_vw = false;
  else if (span_is(name, "node") && st->depth) --st->depth;
  else if (prim_kind(name) >= 0) st->prim = -1;
}

/* One open tag of the geometry library. Returns false when out of memory or the tag is malformed. */
static bool geometry_tag(doc* d, scan_state* st, const xtag* t, const char* end) {
  dgeom* g = &d->geoms[st->geom];
  if (span_is(t->name, "vertices")) {
    if (!attr(t, "id", &g->vertices_id)) return false;
    st->in_vertices = !t->empty;
  } else if (span_is(t->name, "input") && st->in_vertices) {
    dinput in;
    if (!read_input(t, &in)) return false;
    if (span_is(in.semantic, "POSITION")) g->position_src = in.source;
  } else if (prim_kind(t->name) >= 0 && !t->empty) {
    dprim* p = grow(&d->prims, d->np, &d->cp, sizeof *d->prims);
    if (!p) return false;
    p->geom = (uint32_t)st->geom;
    p->kind = prim_kind(t->name);
    if (!attr_u32(t, "count", &p->count)) return false;
    p->p_first = d->nps;
    st->prim = d->np++;
  } else if (st->prim >= 0) {
    dprim* p = &d->prims[st->prim];
    if (span_is(t->name, "input")) {
      if (p->nin >= MAX_INPUTS || !read_input(t, &p->in[p->nin++])) return false;
    } else if (span_is(t->name, "vcount") && !t->empty) {
      p->vcount = text_after(t, end);
    } else if (span_is(t->name, "p")) {
      span* s = grow(&d->ps, d->nps, &d->cps, sizeof *d->ps);
      if (!s) return false;
      *s = t->empty ? (span){t->end, 0} : text_after(t, end);
      d->nps++;
      p->np++;
    } else if (span_is(t->name, "ph") || span_is(t->name, "h")) {
      p->bad = true; /* polygons with holes */
    }
  }
  return true;
}

/* One open tag of a skin controller. */
static bool controller_tag(doc* d, scan_state* st, const xtag* t, const char* end) {
  dctrl* c = &d->ctrls[st->ctrl];
  if (span_is(t->name, "skin")) {
    c->skin_geom = fragment(t, "source");
  } else if (span_is(t->name, "joints")) {
    st->in_joints = !t->empty;
  } else if (span_is(t->name, "vertex_weights")) {
    if (!attr_u32(t, "count", &c->vw_count)) return false;
    c->has_vw = true;
    st->in_vw = !t->empty;
  } else if (span_is(t->name, "input") && st->in_joints) {
    dinput in;
    if (!read_input(t, &in)) return false;
    if (span_is(in.semantic, "JOINT")) c->joints_src = in.source;
    if (span_is(in.semantic, "INV_BIND_MATRIX")) c->ibm_src = in.source;
  } else if (span_is(t->name, "bind_shape_matrix") && !t->empty) {
    c->bsm = text_after(t, end);
  } else if (span_is(t->name, "input") && st->in_vw) {
    if (c->nvw >= MAX_INPUTS || !read_input(t, &c->vw[c->nvw++])) return false;
  } else if (span_is(t->name, "vcount") && st->in_vw) { /* (<vcount/> has no text to replace: not edited) */
    c->vcount = t->empty ? (span){t->end, 0} : text_after(t, end);
    c->has_vcount = !t->empty;
  } else if (span_is(t->name, "v") && st->in_vw) {
    c->v = t->empty ? (span){t->end, 0} : text_after(t, end);
    c->has_v = !t->empty;
  }
  return true;
}

/* <source> and its array and accessor, anywhere. */
static bool source_tag(doc* d, scan_state* st, const xtag* t, const char* end) {
  if (span_is(t->name, "source")) {
    span id;
    if (t->empty || !attr(t, "id", &id)) return true; /* a data source has an id (an effect's <source> is text) */
    dsrc* s = grow(&d->srcs, d->ns, &d->cs, sizeof *d->srcs);
    if (!s) return false;
    s->id = id;
    s->stride = 1;
    st->src = d->ns++;
    return true;
  }
  if (st->src < 0) return true;
  dsrc* s = &d->srcs[st->src];
  const int kind = span_is(t->name, "float_array") ? SRC_FLOAT
                   : span_is(t->name, "Name_array") ? SRC_NAME
                   : span_is(t->name, "IDREF_array") ? SRC_IDREF
                                                     : SRC_NONE;
  if (kind != SRC_NONE) {
    if (s->kind != SRC_NONE || !attr(t, "count", &s->count_attr)) return false;
    s->kind = kind;
    s->text = t->empty ? (span){t->end, 0} : text_after(t, end);
    s->empty = t->empty;
  } else if (span_is(t->name, "accessor")) {
    uint32_t stride = 1;
    if (attr(t, "stride", &(span){NULL, 0}) && !attr_u32(t, "stride", &stride)) return false;
    s->stride = stride;
    if (!attr(t, "count", &s->acc_count)) s->acc_count = (span){NULL, 0};
  }
  return true;
}

static bool node_tag(doc* d, scan_state* st, const xtag* t) {
  if (span_is(t->name, "node")) {
    dnode* n = grow(&d->nodes, d->nn, &d->cn, sizeof *d->nodes);
    if (!n) return false;
    if (!attr(t, "id", &n->id)) n->id = (span){NULL, 0};
    if (!attr(t, "sid", &n->sid)) n->sid = (span){NULL, 0};
    if (!attr(t, "name", &n->name)) n->name = (span){NULL, 0};
    span type;
    n->joint = attr(t, "type", &type) && span_is(type, "JOINT");
    n->parent = st->depth ? (long)st->node_stack[st->depth - 1] : -1;
    if (!t->empty) {
      if (st->depth >= sizeof st->node_stack / sizeof st->node_stack[0]) st->node_overflow = true;
      else st->node_stack[st->depth++] = d->nn;
    }
    d->nn++;
  } else if ((span_is(t->name, "instance_controller") || span_is(t->name, "instance_geometry")) && st->depth) {
    dinst* in = grow(&d->insts, d->ni, &d->ci, sizeof *d->insts);
    if (!in) return false;
    in->node = st->node_stack[st->depth - 1];
    in->controller = span_is(t->name, "instance_controller");
    in->url = fragment(t, "url");
    in->tag_name = t->name;
    in->open_end = t->end;
    in->empty = t->empty;
    if (!t->empty) st->inst = (long)d->ni;
    d->ni++;
  }
  return true;
}

/* Collada's transformation elements (children of <node>). */
static bool is_transform(span name) {
  return span_is(name, "matrix") || span_is(name, "translate") || span_is(name, "rotate") || span_is(name, "scale") ||
         span_is(name, "lookat") || span_is(name, "skew");
}

/* Whether a transformation element's values make it the identity (a matrix of the identity, a translation by 0, a
 * rotation by 0 degrees, a scale by 1); lookat and skew never count as one. */
static bool identity_transform(span name, span text) {
  float v[16];
  const char* q = text.p;
  const int want = span_is(name, "matrix") ? 16 : span_is(name, "rotate") ? 4 : 3;
  if (span_is(name, "lookat") || span_is(name, "skew")) return false;
  for (int i = 0; i < want; ++i) {
    char* e = NULL;
    v[i] = strtof(q, &e);
    if (e == q || e > text.p + text.n) return false;
    q = e;
  }
  for (int i = 0; i < want; ++i) {
    const float id = span_is(name, "matrix") ? (i % 5 == 0 ? 1.0f : 0.0f) : span_is(name, "scale") ? 1.0f : 0.0f;
    if (span_is(name, "rotate") && i < 3) continue; /* the axis of a rotation by 0 */
    if (v[i] != id) return false;
  }
  return true;
}

/* A <matrix>'s translation into n->move (its last column; other transformation elements: none). */
static void node_move(dnode* n, span name, span text) {
  float v[16];
  const char* q = text.p;
  if (!span_is(name, "matrix") || n->has_move) return;
  for (int i = 0; i < 16; ++i) {
    char* e = NULL;
    v[i] = strtof(q, &e);
    if (e == q || e > text.p + text.n) return;
    q = e;
  }
  n->move[0] = v[3], n->move[1] = v[7], n->move[2] = v[11];
  n->has_move = isfinite(v[3]) && isfinite(v[7]) && isfinite(v[11]);
}

/* Blender's bone extras of node n (tip_x, tip_y, tip_z, connect); true when the tag was one. */
static bool bone_extra(dnode* n, span name, span text) {
  static const char* const tips[] = {"tip_x", "tip_y", "tip_z"};
  for (int k = 0; k < 3; ++k)
    if (span_is(name, tips[k])) {
      char* e = NULL;
      const float v = strtof(text.p, &e);
      if (e != text.p && e <= text.p + text.n && isfinite(v)) n->tip[k] = v, n->has_tip |= k == 2;
      return true;
    }
  if (!span_is(name, "connect")) return false;
  n->connect = text.n >= 1 && (text.p[0] == '1' || (text.n >= 4 && memcmp(text.p, "true", 4) == 0));
  return true;
}

/* Scans the document. 0: read; 1: out of memory; 2: not a document the edit can read (why set). */
static int scan(const char* src, size_t n, doc* d, char* why, size_t why_size) {
  const char *p = src, *end = src + n;
  scan_state st = {-1, -1, -1, -1, false, false, false, {0}, 0, false, -1};
  xtag t;
  bool bad = false, collada = false;
  while (next_tag(p, end, &t, &bad)) {
    p = t.end;
    if (t.closing) {
      close_tag(d, &st, &t);
      continue;
    }
    bool ok = true;
    if (span_is(t.name, "COLLADA")) {
      collada = true;
    } else if (span_is(t.name, "up_axis") && !t.empty && !d->up_axis.p) {
      d->up_axis = text_after(&t, end);
    } else if (span_is(t.name, "unit") && d->meter == 0.0) {
      span m;
      d->meter = attr(&t, "meter", &m) ? strtod(m.p, NULL) : 1.0; /* (the value ends at its quote) */
      if (!(d->meter > 0.0 && d->meter < 1e30)) d->meter = 1.0;
    } else if (span_is(t.name, "geometry") && !t.empty) {
      dgeom* g = grow(&d->geoms, d->ng, &d->cg, sizeof *d->geoms);
      if (!g) return 1;
      ok = attr(&t, "id", &g->id);
      st.geom = d->ng++;
    } else if (span_is(t.name, "controller") && !t.empty) {
      dctrl* c = grow(&d->ctrls, d->nc, &d->cc, sizeof *d->ctrls);
      if (!c) return 1;
      ok = attr(&t, "id", &c->id);
      st.ctrl = d->nc++;
    } else if (span_is(t.name, "source") || span_is(t.name, "float_array") || span_is(t.name, "Name_array") ||
               span_is(t.name, "IDREF_array") || span_is(t.name, "accessor")) {
      ok = source_tag(d, &st, &t, end);
    } else if (span_is(t.name, "node") || span_is(t.name, "instance_controller") ||
               span_is(t.name, "instance_geometry")) {
      ok = node_tag(d, &st, &t);
    } else if (st.depth && is_transform(t.name)) {
      d->nodes[st.node_stack[st.depth - 1]].moves |= t.empty || !identity_transform(t.name, text_after(&t, end));
      if (!t.empty) node_move(&d->nodes[st.node_stack[st.depth - 1]], t.name, text_after(&t, end));
    } else if (st.depth && !t.empty &&
               bone_extra(&d->nodes[st.node_stack[st.depth - 1]], t.name, text_after(&t, end))) {
    } else if (st.geom >= 0) {
      ok = geometry_tag(d, &st, &t, end);
    } else if (st.ctrl >= 0) {
      ok = controller_tag(d, &st, &t, end);
    }
    if (!ok) {
      const int shown = (int)(t.name.n < 40 ? t.name.n : 40);
      snprintf(why, why_size, "a Collada element this editor cannot read (<%.*s>)", shown, t.name.p);
      return 2;
    }
    if (t.empty) close_tag(d, &st, &t);
  }
  if (bad || !collada) {
    snprintf(why, why_size, bad ? "the document does not scan as XML" : "not a Collada document");
    return 2;
  }
  if (st.node_overflow) {
    snprintf(why, why_size, "nodes nested deeper than this editor follows");
    return 2;
  }
  return 0;
}

/* ---- numbers ----------------------------------------------------------------------------------------------------- */

static size_t count_tokens(span s) {
  size_t k = 0;
  for (size_t i = 0; i < s.n;) {
    while (i < s.n && isspace((unsigned char)s.p[i])) ++i;
    if (i >= s.n) break;
    ++k;
    while (i < s.n && !isspace((unsigned char)s.p[i])) ++i;
  }
  return k;
}

/* Exactly want integers (>= -1) of s into out; false otherwise. */
static bool parse_ints(span s, int64_t* out, size_t want) {
  size_t k = 0, i = 0;
  while (i < s.n) {
    while (i < s.n && isspace((unsigned char)s.p[i])) ++i;
    if (i >= s.n) break;
    bool neg = s.p[i] == '-';
    if (neg) ++i;
    int64_t x = 0;
    size_t digits = 0;
    for (; i < s.n && isdigit((unsigned char)s.p[i]); ++i, ++digits) {
      x = x * 10 + (s.p[i] - '0');
      if (x > (int64_t)UINT32_MAX) return false;
    }
    if (!digits || (i < s.n && !isspace((unsigned char)s.p[i])) || k >= want || (neg && x != 1)) return false;
    out[k++] = neg ? -x : x;
  }
  return k == want;
}

/* Exactly want floats of s (the document is NUL-terminated past every span: strtof stops in it). */
static bool parse_floats(span s, float* out, size_t want) {
  const char *q = s.p, *e = s.p + s.n;
  size_t k = 0;
  for (;;) {
    while (q < e && isspace((unsigned char)*q)) ++q;
    if (q >= e) break;
    char* stop = NULL;
    errno = 0;
    float x = strtof(q, &stop);
    if (stop == q || stop > e || (stop < e && !isspace((unsigned char)*stop)) || k >= want) return false;
    out[k++] = x;
    q = stop;
  }
  return k == want;
}

/* ---- the edit ------------------------------------------------------------------------------------------------ */

static const dsrc* find_src(const doc* d, span id) {
  for (uint32_t i = 0; i < d->ns; ++i)
    if (id.n && span_eq(d->srcs[i].id, id)) return &d->srcs[i];
  return NULL;
}

/* Whether the attribute text raw, its XML entities decoded (&lt; &gt; &amp; &quot; &apos; &#N; &#xN;), is z. */
static bool attr_is(span raw, const char* z) {
  if (!z || !raw.p) return false;
  size_t k = 0, zn = strlen(z);
  for (size_t i = 0; i < raw.n; ++k) {
    if (k >= zn) return false;
    unsigned long c = (unsigned char)raw.p[i];
    size_t used = 1;
    if (c == '&') {
      const char* semi = memchr(raw.p + i, ';', raw.n - i);
      if (!semi) return false;
      span ent = {raw.p + i + 1, (size_t)(semi - raw.p - i - 1)};
      used = ent.n + 2;
      if (span_is(ent, "lt")) c = '<';
      else if (span_is(ent, "gt")) c = '>';
      else if (span_is(ent, "amp")) c = '&';
      else if (span_is(ent, "quot")) c = '"';
      else if (span_is(ent, "apos")) c = '\'';
      else if (ent.n >= 2 && ent.p[0] == '#') {
        const bool hex = ent.p[1] == 'x';
        c = strtoul(ent.p + 1 + hex, NULL, hex ? 16 : 10);
      }
      else return false;
      if (c > 0x7f) return false; /* (a name with other characters simply does not match) */
    }
    if ((unsigned char)z[k] != c) return false;
    i += used;
  }
  return k == zn;
}

/* The skeleton joint an entry of a controller's joint list names, or -1: the node with that sid (IDREF: id), else
 * that name; then the skeleton joint named as the importer names joints (the node's name, else its id, else sid;
 * io/scene_import.c), or the entry itself when no node has it. */
static long skeleton_joint(const doc* d, span entry, bool idref, const char* const* names, uint32_t count) {
  const dnode* node = NULL;
  for (uint32_t i = 0; i < d->nn && !node && entry.n; ++i)
    if (span_eq(idref ? d->nodes[i].id : d->nodes[i].sid, entry)) node = &d->nodes[i];
  for (uint32_t i = 0; i < d->nn && !node && entry.n; ++i)
    if (span_eq(d->nodes[i].name, entry)) node = &d->nodes[i];
  const span none = {NULL, 0};
  const span cand[3] = {node ? node->name : entry, node ? node->id : none, node ? node->sid : none};
  for (int c = 0; c < 3; ++c)
    for (uint32_t j = 0; j < count && cand[c].n; ++j)
      if (attr_is(cand[c], names[j])) return (long)j;
  return -1;
}

/* A byte range of the source replaced by text (owned). */
typedef struct splice {
  const char *from, *to;
  char* text;
  size_t n;
} splice;

/* buf's text as a C string (a NUL kept past its bytes, not counted); "" when it is empty or out of memory. */
static const char* buf_cstr(skio_buf* b) {
  skio_buf_put(b, "", 1);
  if (b->oom || !b->p) return "";
  b->n--;
  return (const char*)b->p;
}

/* Everything the edit of one controller holds. */
typedef struct cedit {
  const dctrl* c;
  const dsrc *joints, *weights;
  uint32_t nj, oj, ow;
  long* j2s;        /* controller joint -> skeleton joint */
  long* s2j;        /* skeleton joint -> controller joint (first) */
  uint32_t* vcount; /* per position: original pair count */
  size_t* first;    /* per position: first pair (vcount prefix) */
  int64_t* pairs;   /* original (joint, weight index) pairs */
  float* wv;        /* original weights */
  size_t nw;
  /* the new rows: per position, the mesh vertex whose row it takes (SIZE_MAX: unchanged) and which mesh */
  size_t* from_v;
  uint32_t* from_m;
  /* skeleton joints with weight that the controller did not list, appended as joints nj, nj + 1, ... (and the mesh
   * whose inverse bind each takes) */
  uint32_t nadd;
  uint32_t *added, *added_m;
} cedit;

static void cedit_free(cedit* e) {
  free(e->j2s), free(e->s2j), free(e->vcount), free(e->first), free(e->pairs), free(e->wv), free(e->from_v),
      free(e->from_m), free(e->added), free(e->added_m);
}

#define CANNOT(...) (snprintf(why, why_size, __VA_ARGS__), SKIO_DAE_EDIT_CANNOT)

/* Reads a controller's joints, weights and vertex_weights into e. */
static int cedit_read(const doc* d, const dctrl* c, const char* const* names, uint32_t joint_count, cedit* e,
                      char* why, size_t why_size) {
  e->c = c;
  if (!c->has_vw || !c->has_vcount || !c->has_v)
    return CANNOT("skin controller %.*s has no vertex weights", (int)c->id.n, c->id.p);
  const dinput *ij = NULL, *iw = NULL;
  for (uint32_t i = 0; i < c->nvw; ++i) {
    if (span_is(c->vw[i].semantic, "JOINT")) ij = &c->vw[i];
    else if (span_is(c->vw[i].semantic, "WEIGHT")) iw = &c->vw[i];
    else
      return CANNOT("skin controller %.*s has a vertex weight input other than JOINT and WEIGHT", (int)c->id.n,
                    c->id.p);
  }
  if (!ij || !iw || c->nvw != 2 || ij->offset + iw->offset != 1)
    return CANNOT("skin controller %.*s does not pair one joint with one weight", (int)c->id.n, c->id.p);
  e->oj = ij->offset, e->ow = iw->offset;
  e->joints = find_src(d, ij->source.n ? ij->source : c->joints_src);
  e->weights = find_src(d, iw->source);
  if (!e->joints || (e->joints->kind != SRC_NAME && e->joints->kind != SRC_IDREF) || !e->weights ||
      e->weights->kind != SRC_FLOAT || e->weights->stride != 1 || e->weights->empty)
    return CANNOT("skin controller %.*s has joint or weight sources this editor cannot read", (int)c->id.n, c->id.p);
  e->nj = (uint32_t)count_tokens(e->joints->text);
  e->nw = count_tokens(e->weights->text);
  const size_t nv = c->vw_count;
  if (count_tokens(c->vcount) != nv) /* (before allocating for a count the text does not hold) */
    return CANNOT("skin controller %.*s: <vcount> does not hold %zu counts", (int)c->id.n, c->id.p, nv);
  e->j2s = malloc((e->nj + 1) * sizeof *e->j2s);
  e->s2j = malloc((joint_count + 1) * sizeof *e->s2j);
  e->vcount = malloc((nv + 1) * sizeof *e->vcount);
  e->first = malloc((nv + 1) * sizeof *e->first);
  e->wv = malloc((e->nw + 1) * sizeof *e->wv);
  e->from_v = malloc((nv + 1) * sizeof *e->from_v);
  e->from_m = malloc((nv + 1) * sizeof *e->from_m);
  int64_t* vc = malloc((nv + 1) * sizeof *vc);
  if (!e->j2s || !e->s2j || !e->vcount || !e->first || !e->wv || !e->from_v || !e->from_m || !vc) {
    free(vc);
    return SKC_OUT_OF_MEMORY;
  }
  for (uint32_t s = 0; s < joint_count; ++s) e->s2j[s] = -1;
  const char *q = e->joints->text.p, *qe = q + e->joints->text.n;
  for (uint32_t j = 0; j < e->nj; ++j) {
    while (q < qe && isspace((unsigned char)*q)) ++q;
    const char* t0 = q;
    while (q < qe && !isspace((unsigned char)*q)) ++q;
    e->j2s[j] = skeleton_joint(d, (span){t0, (size_t)(q - t0)}, e->joints->kind == SRC_IDREF, names, joint_count);
    if (e->j2s[j] >= 0 && e->s2j[e->j2s[j]] < 0) e->s2j[e->j2s[j]] = j;
  }
  size_t total = 0;
  bool ok = parse_ints(c->vcount, vc, nv) && parse_floats(e->weights->text, e->wv, e->nw);
  for (size_t v = 0; ok && v < nv; ++v) {
    ok = vc[v] >= 0;
    e->vcount[v] = (uint32_t)vc[v];
    e->first[v] = total;
    total += (size_t)vc[v];
  }
  free(vc);
  if (!ok) return CANNOT("skin controller %.*s: its weight counts or weights do not read", (int)c->id.n, c->id.p);
  if (count_tokens(c->v) != 2 * total)
    return CANNOT("skin controller %.*s: its <v> does not hold %zu pairs", (int)c->id.n, c->id.p, total);
  if (!(e->pairs = malloc((2 * total + 1) * sizeof *e->pairs))) return SKC_OUT_OF_MEMORY;
  if (!parse_ints(c->v, e->pairs, 2 * total))
    return CANNOT("skin controller %.*s: its <v> does not hold %zu pairs", (int)c->id.n, c->id.p, total);
  for (size_t k = 0; k < total; ++k) {
    const int64_t j = e->pairs[2 * k + e->oj], w = e->pairs[2 * k + e->ow];
    if (j < 0 || (uint64_t)j >= e->nj || w < 0 || (uint64_t)w >= e->nw)
      return CANNOT("skin controller %.*s: a pair out of its joints or weights (or bound to the bind shape)",
                    (int)c->id.n, c->id.p);
  }
  for (size_t v = 0; v < nv; ++v) e->from_v[v] = SIZE_MAX;
  return SKC_OK;
}

/* Corner -> position index of primitive p (corners in Assimp's order); *nc the corner count. */
static int prim_corners(const doc* d, const dprim* p, uint32_t** out, size_t* nc, char* why, size_t why_size) {
  if (p->kind == PRIM_OTHER || p->bad) return CANNOT("a skinned geometry has strips, fans, lines or holes");
  uint32_t stride = 0, vo = UINT32_MAX;
  for (uint32_t i = 0; i < p->nin; ++i) {
    stride = p->in[i].offset + 1 > stride ? p->in[i].offset + 1 : stride;
    if (span_is(p->in[i].semantic, "VERTEX")) vo = p->in[i].offset;
  }
  if (vo == UINT32_MAX) return CANNOT("a skinned primitive has no VERTEX input");
  size_t idx = 0;
  for (uint32_t k = 0; k < p->np; ++k) idx += count_tokens(d->ps[p->p_first + k]);
  if (idx % stride) return CANNOT("a skinned primitive's indices do not fill its inputs");
  *nc = idx / stride;
  int64_t* all = malloc((idx + 1) * sizeof *all);
  *out = malloc((*nc + 1) * sizeof **out);
  if (!all || !*out) {
    free(all);
    free(*out);
    *out = NULL;
    return SKC_OUT_OF_MEMORY;
  }
  size_t at = 0;
  bool ok = true;
  for (uint32_t k = 0; ok && k < p->np; ++k) {
    span s = d->ps[p->p_first + k];
    size_t c = count_tokens(s);
    ok = parse_ints(s, all + at, c);
    at += c;
  }
  for (size_t c = 0; ok && c < *nc; ++c) {
    ok = all[c * stride + vo] >= 0;
    (*out)[c] = (uint32_t)all[c * stride + vo];
  }
  free(all);
  if (ok) return SKC_OK;
  free(*out);
  *out = NULL;
  return CANNOT("a skinned primitive's indices do not read");
}

/* Whether vertex a of mesh ma and vertex b of mesh mb have the same influences, in the same order. */
static bool same_row(const skio_dae_mesh_edit* ma, size_t a, const skio_dae_mesh_edit* mb, size_t b) {
  const size_t a0 = ma->offsets[a], a1 = ma->offsets[a + 1], b0 = mb->offsets[b], b1 = mb->offsets[b + 1];
  bool eq = a1 - a0 == b1 - b0;
  for (size_t k = 0; eq && k < a1 - a0; ++k)
    eq = ma->joints[a0 + k] == mb->joints[b0 + k] && ma->weights[a0 + k] == mb->weights[b0 + k];
  return eq;
}

/* Takes mesh m (primitive p of the controller's geometry) into the controller's new rows: each position its first
 * corner's vertex. Checks the corners' positions against the mesh's. */
static int take_mesh(const doc* d, const dprim* p, const float* pos, size_t npos, const skio_dae_mesh_edit* m,
                     uint32_t mi, cedit* e, size_t* split, char* why, size_t why_size) {
  uint32_t* corner = NULL;
  size_t nc = 0;
  int rc = prim_corners(d, p, &corner, &nc, why, why_size);
  if (rc) return rc;
  if (nc != m->vertex_count) {
    free(corner);
    return CANNOT("a mesh of %zu vertices matches a primitive of %zu corners", m->vertex_count, nc);
  }
  for (size_t v = 0; v < nc; ++v) {
    const uint32_t i = corner[v];
    bool same = i < npos && i < e->c->vw_count;
    for (int k = 0; same && k < 3; ++k) {
      const float a = m->positions[3 * v + k], b = pos[3 * (size_t)i + k];
      same = fabsf(a - b) <= 1e-5f * (1.0f + fabsf(b));
    }
    if (!same) {
      free(corner);
      return CANNOT("vertex %zu of a mesh is not where its corner's position is in the file (moved vertices)", v);
    }
    if (e->from_v[i] == SIZE_MAX) {
      e->from_v[i] = v;
      e->from_m[i] = mi;
    } else {
      *split += !same_row(m - mi + e->from_m[i], e->from_v[i], m, v);
    }
  }
  free(corner);
  return SKC_OK;
}

/* Whether finite floats a and b are at most n float steps apart. */
static bool within_steps(float a, float b, uint32_t n) {
  if (!isfinite(a) || !isfinite(b) || (a < 0.0f) != (b < 0.0f)) return a == b;
  int32_t ia, ib;
  memcpy(&ia, &a, sizeof ia);
  memcpy(&ib, &b, sizeof ib);
  return (uint32_t)(ia > ib ? ia - ib : ib - ia) <= n;
}

/* The weight of the file's pair q of position i as the reader read it: the read row's weight of that joint where it
 * is within a few float steps of strtof's reading of the text (the same number through Assimp's parser), else
 * strtof's reading. */
static float pair_weight(const cedit* e, const skio_dae_mesh_edit* m, size_t i, size_t q) {
  const int64_t* pr = e->pairs + 2 * (e->first[i] + q);
  const float w = e->wv[pr[e->ow]];
  const long s = e->j2s[pr[e->oj]];
  if (!m->read_offsets || s < 0) return w;
  const size_t v = e->from_v[i];
  for (size_t k = m->read_offsets[v]; k < m->read_offsets[v + 1]; ++k)
    if (m->read_joints[k] == (uint32_t)s) return within_steps(m->read_weights[k], w, 4) ? m->read_weights[k] : w;
  return w;
}

/* Whether the new row of position i (mesh vertex e->from_v[i]) holds the same (joint, weight) set as the file's
 * non-zero pairs. */
static bool row_same(const cedit* e, const skio_dae_mesh_edit* m, size_t i, size_t v) {
  const size_t b0 = m->offsets[v], b1 = m->offsets[v + 1];
  size_t nonzero = 0; /* the file's pairs of weight 0 are no influence (the scene's rows leave them out) */
  for (size_t q = 0; q < e->vcount[i]; ++q) nonzero += e->wv[e->pairs[2 * (e->first[i] + q) + e->ow]] != 0.0f;
  if (b1 - b0 != nonzero) return false;
  for (size_t k = b0; k < b1; ++k) {
    bool found = false;
    for (size_t q = 0; q < e->vcount[i] && !found; ++q) {
      const int64_t* pr = e->pairs + 2 * (e->first[i] + q);
      found = e->j2s[pr[e->oj]] == (long)m->joints[k] && pair_weight(e, m, i, q) == m->weights[k];
    }
    if (!found) return false;
  }
  return true;
}

static bool cedit_changed(const cedit* e, const skio_dae_mesh_edit* meshes) {
  for (size_t i = 0; i < e->c->vw_count; ++i)
    if (e->from_v[i] != SIZE_MAX && !row_same(e, &meshes[e->from_m[i]], i, e->from_v[i])) return true;
  return false;
}

/* One (joint, weight index) pair onto <v>, in the controller's input order. */
static void put_pair(skio_buf* vv, const cedit* e, long long j, long long w) {
  long long pair[2];
  pair[e->oj] = j, pair[e->ow] = w;
  skio_buf_printf(vv, "%s%lld %lld", vv->n ? " " : "", pair[0], pair[1]);
}

/* Position i's new pairs: the file's weight index where the weight of that joint is the same float, else a weight
 * appended (to add; *nw counts the weights). */
static int put_row(skio_buf* vv, skio_buf* add, size_t* nw, const cedit* e, const skio_dae_mesh_edit* m, size_t i,
                   const char* const* names, char* why, size_t why_size) {
  const size_t v = e->from_v[i], b0 = m->offsets[v], b1 = m->offsets[v + 1];
  for (size_t k = b0; k < b1; ++k) {
    const long cj = e->s2j[m->joints[k]];
    if (cj < 0)
      return CANNOT("joint %s has weight but is not among skin controller %.*s's joints", names[m->joints[k]],
                    (int)e->c->id.n, e->c->id.p);
    long long wi = -1;
    for (size_t q = 0; q < e->vcount[i] && wi < 0; ++q) {
      const int64_t* pr = e->pairs + 2 * (e->first[i] + q);
      if (pr[e->oj] == cj && pair_weight(e, m, i, q) == m->weights[k]) wi = pr[e->ow];
    }
    if (wi < 0) {
      skio_buf_printf(add, " %.9g", (double)m->weights[k]);
      wi = (long long)(*nw)++;
    }
    put_pair(vv, e, cj, wi);
  }
  return SKC_OK;
}

static int add_splice(splice* sp, uint32_t* nsp, const char* from, const char* to, char* text, size_t n) {
  if (!text && n) return SKC_OUT_OF_MEMORY;
  sp[(*nsp)++] = (splice){from, to, text, n};
  return SKC_OK;
}

static const dnode* node_named(const doc* d, const char* name);
static void put_matrix(skio_buf* b, const float* m);

/* The joints the changed rows give weight that the controller does not list become its joints nj, nj + 1, ...
 * (e->s2j then names them): each needs a node with a sid (an IDREF list: an id) and the mesh's inverse bind, and the
 * controller one joint list for <joints> and <vertex_weights>. */
static int cedit_add_joints(const doc* d, cedit* e, const skio_dae_mesh_edit* meshes, const char* const* names,
                            uint32_t joint_count, char* why, size_t why_size) {
  for (size_t i = 0; i < e->c->vw_count; ++i) {
    if (e->from_v[i] == SIZE_MAX) continue;
    const skio_dae_mesh_edit* m = &meshes[e->from_m[i]];
    for (uint32_t k = m->offsets[e->from_v[i]]; k < m->offsets[e->from_v[i] + 1]; ++k) {
      const uint32_t s = m->joints[k];
      if (e->s2j[s] >= 0) continue;
      const char* why_not = !m->inverse_binds ? "no inverse bind for it"
                            : e->c->joints_src.n && find_src(d, e->c->joints_src) != e->joints
                                ? "the controller's joint lists differ"
                            : e->joints->empty ? "an empty joint list" : NULL;
      const dnode* n = why_not ? NULL : node_named(d, names[s]);
      const span key = n ? (e->joints->kind == SRC_IDREF ? n->id : n->sid) : (span){NULL, 0};
      if (!why_not && !key.n) why_not = "no node with a sid (or id) to name it by";
      if (!why_not && !list_name(key)) why_not = "its node's sid (or id) is no name a joint list holds";
      if (!why_not && skeleton_joint(d, key, e->joints->kind == SRC_IDREF, names, joint_count) != (long)s)
        why_not = "its node's sid (or id) names another joint"; /* (sids are unique only in their scope) */
      if (why_not)
        return CANNOT("joint %s has weight but is not among skin controller %.*s's joints (%s)", names[s],
                      (int)e->c->id.n, e->c->id.p, why_not);
      if (!e->added && (!(e->added = malloc((joint_count + 1) * sizeof *e->added)) ||
                        !(e->added_m = malloc((joint_count + 1) * sizeof *e->added_m))))
        return SKC_OUT_OF_MEMORY;
      e->s2j[s] = (long)(e->nj + e->nadd);
      e->added_m[e->nadd] = e->from_m[i];
      e->added[e->nadd++] = s;
    }
  }
  return SKC_OK;
}

/* A count attribute's new value: n. */
static int splice_count(splice* sp, uint32_t* nsp, span at, size_t n) {
  char text[32];
  snprintf(text, sizeof text, "%zu", n);
  return at.p ? add_splice(sp, nsp, at.p, at.p + at.n, strdup(text), strlen(text)) : SKC_OK;
}

/* The added joints appended to the controller's joint list and inverse binds (six splices at most): IB x BSM^-1,
 * since a reader's inverse bind is the file's times the bind shape matrix (Assimp's bone offset). */
static int cedit_write_joints(const doc* d, const cedit* e, const skio_dae_mesh_edit* meshes,
                              const char* const* names, splice* sp, uint32_t* nsp, char* why, size_t why_size) {
  const dsrc* ib = e->c->ibm_src.n ? find_src(d, e->c->ibm_src) : NULL;
  if (!ib || ib->kind != SRC_FLOAT || ib->stride != 16 || ib->empty || count_tokens(ib->text) != 16 * (size_t)e->nj)
    return CANNOT("skin controller %.*s: its inverse binds cannot take another joint", (int)e->c->id.n, e->c->id.p);
  float rows[16], bsm[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, bsm_inv[16];
  if (e->c->bsm.n) {
    if (count_tokens(e->c->bsm) != 16 || !parse_floats(e->c->bsm, rows, 16))
      return CANNOT("skin controller %.*s: its bind shape matrix does not read", (int)e->c->id.n, e->c->id.p);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) bsm[4 * c + r] = rows[4 * r + c];
  }
  if (!skc_mat4_inverse(bsm, bsm_inv))
    return CANNOT("skin controller %.*s: its bind shape matrix is singular", (int)e->c->id.n, e->c->id.p);
  skio_buf keys = {0}, mats = {0};
  for (uint32_t a = 0; a < e->nadd; ++a) {
    const dnode* n = node_named(d, names[e->added[a]]);
    const span key = e->joints->kind == SRC_IDREF ? n->id : n->sid;
    skio_buf_printf(&keys, " %.*s", (int)key.n, key.p);
    float m[16];
    skc_mat4_mul(meshes[e->added_m[a]].inverse_binds + 16 * (size_t)e->added[a], bsm_inv, m);
    skio_buf_printf(&mats, " ");
    put_matrix(&mats, m);
  }
  int rc = keys.oom || mats.oom ? SKC_OUT_OF_MEMORY : SKC_OK;
  const size_t nj = (size_t)e->nj + e->nadd;
  const char *kend = e->joints->text.p + e->joints->text.n, *mend = ib->text.p + ib->text.n;
  if (!rc) rc = splice_count(sp, nsp, e->joints->count_attr, nj);
  if (!rc) rc = splice_count(sp, nsp, e->joints->acc_count, nj);
  if (!rc) rc = add_splice(sp, nsp, kend, kend, (char*)keys.p, keys.n), keys.p = NULL;
  if (!rc) rc = splice_count(sp, nsp, ib->count_attr, 16 * nj);
  if (!rc) rc = splice_count(sp, nsp, ib->acc_count, nj);
  if (!rc) rc = add_splice(sp, nsp, mend, mend, (char*)mats.p, mats.n), mats.p = NULL;
  free(keys.p), free(mats.p);
  return rc;
}

/* The controller's new <vcount>, <v> and appended weights into the splices (five at most, and the added joints'
 * six). */
static int cedit_write(const doc* d, const cedit* e, const skio_dae_mesh_edit* meshes, const char* const* names,
                       splice* sp, uint32_t* nsp, char* why, size_t why_size) {
  if (e->nadd) {
    int jrc = cedit_write_joints(d, e, meshes, names, sp, nsp, why, why_size);
    if (jrc) return jrc;
  }
  skio_buf vc = {0}, vv = {0}, add = {0};
  size_t nw = e->nw;
  int rc = SKC_OK;
  for (size_t i = 0; i < e->c->vw_count && rc == SKC_OK; ++i) {
    if (e->from_v[i] == SIZE_MAX || row_same(e, &meshes[e->from_m[i]], i, e->from_v[i])) {
      skio_buf_printf(&vc, "%s%u", i ? " " : "", e->vcount[i]);
      for (size_t q = 0; q < e->vcount[i]; ++q) {
        const int64_t* pr = e->pairs + 2 * (e->first[i] + q);
        put_pair(&vv, e, pr[e->oj], pr[e->ow]);
      }
      continue;
    }
    const skio_dae_mesh_edit* m = &meshes[e->from_m[i]];
    skio_buf_printf(&vc, "%s%zu", i ? " " : "", (size_t)(m->offsets[e->from_v[i] + 1] - m->offsets[e->from_v[i]]));
    rc = put_row(&vv, &add, &nw, e, m, i, names, why, why_size);
  }
  if (rc == SKC_OK && (vc.oom || vv.oom || add.oom)) rc = SKC_OUT_OF_MEMORY;
  if (rc != SKC_OK) {
    free(vc.p), free(vv.p), free(add.p);
    return rc;
  }
  char count[32];
  snprintf(count, sizeof count, "%zu", nw);
  const dsrc* w = e->weights;
  const char* wend = w->text.p + w->text.n;
  rc = add_splice(sp, nsp, w->count_attr.p, w->count_attr.p + w->count_attr.n, strdup(count), strlen(count));
  if (!rc && w->acc_count.p)
    rc = add_splice(sp, nsp, w->acc_count.p, w->acc_count.p + w->acc_count.n, strdup(count), strlen(count));
  if (!rc) rc = add_splice(sp, nsp, wend, wend, (char*)add.p, add.n), add.p = NULL;
  if (!rc) rc = add_splice(sp, nsp, e->c->vcount.p, e->c->vcount.p + e->c->vcount.n, (char*)vc.p, vc.n), vc.p = NULL;
  if (!rc) rc = add_splice(sp, nsp, e->c->v.p, e->c->v.p + e->c->v.n, (char*)vv.p, vv.n), vv.p = NULL;
  free(vc.p), free(vv.p), free(add.p);
  return rc;
}

static int cmp_splice(const void* a, const void* b) {
  const splice *x = a, *y = b;
  return x->from < y->from ? -1 : x->from > y->from;
}

/* The source with the splices applied. */
static int apply(const char* src, size_t n, splice* sp, uint32_t nsp, char** out, size_t* out_n, char* why,
                 size_t why_size) {
  qsort(sp, nsp, sizeof *sp, cmp_splice);
  size_t size = n;
  for (uint32_t k = 0; k < nsp; ++k) {
    if (k && sp[k].from < sp[k - 1].to) return CANNOT("two edits of the document overlap");
    size = size - (size_t)(sp[k].to - sp[k].from) + sp[k].n;
  }
  char* o = malloc(size + 1);
  if (!o) return SKC_OUT_OF_MEMORY;
  const char* at = src;
  size_t w = 0;
  for (uint32_t k = 0; k < nsp; ++k) {
    memcpy(o + w, at, (size_t)(sp[k].from - at));
    w += (size_t)(sp[k].from - at);
    if (sp[k].n) memcpy(o + w, sp[k].text, sp[k].n);
    w += sp[k].n;
    at = sp[k].to;
  }
  memcpy(o + w, at, (size_t)(src + n - at));
  w += (size_t)(src + n - at);
  o[w] = 0;
  *out = o;
  *out_n = w;
  return SKC_OK;
}

/* The geometry an instance draws (a controller instance: its skin's), or -1. */
static long instance_geometry(const doc* d, const dinst* in) {
  span g = in->url;
  if (in->controller) {
    g = (span){NULL, 0};
    for (uint32_t i = 0; i < d->nc && !g.n; ++i)
      if (span_eq(d->ctrls[i].id, in->url)) g = d->ctrls[i].skin_geom;
  }
  for (uint32_t i = 0; i < d->ng && g.n; ++i)
    if (span_eq(d->geoms[i].id, g)) return (long)i;
  return -1;
}

/* The meshes the importer makes of geometry g: one per primitive element with faces. */
static uint32_t geometry_meshes(const doc* d, long g) {
  uint32_t k = 0;
  for (uint32_t p = 0; p < d->np; ++p) k += d->prims[p].geom == (uint32_t)g && d->prims[p].count > 0;
  return k;
}

/* The scene meshes of the node named like meshes[m0] (from m0 on, in order) onto the node's instances in document
 * order, each instance taking as many meshes as its geometry has primitive elements with faces (what the importer
 * makes): inst_of[m] = the instance, or UINT32_MAX for a mesh of a node without instances (left alone when it has no
 * skin). done[m] marks the meshes seen. */
static int assign_node(const doc* d, const skio_dae_mesh_edit* meshes, uint32_t count, uint32_t m0, uint32_t* inst_of,
                       bool* done, char* why, size_t why_size) {
  const char* name = meshes[m0].node_name;
  bool skinned = false;
  for (uint32_t m = m0; m < count; ++m)
    if (!done[m] && meshes[m].node_name && !strcmp(meshes[m].node_name, name)) {
      done[m] = true, inst_of[m] = UINT32_MAX;
      skinned |= meshes[m].offsets != NULL;
    }
  uint32_t m = m0, placed = 0;
  for (uint32_t i = 0; i < d->ni; ++i) { /* the importer names nodes by id (else sid, else name) */
    const dnode* n = &d->nodes[d->insts[i].node];
    if (!attr_is(n->id.n ? n->id : n->sid.n ? n->sid : n->name, name)) continue;
    const long g = instance_geometry(d, &d->insts[i]);
    if (g < 0) return skinned ? CANNOT("node %s instances a geometry or controller that is not in the file", name) : 0;
    for (uint32_t k = geometry_meshes(d, g); k > 0; --k, ++m) {
      while (m < count && (!meshes[m].node_name || strcmp(meshes[m].node_name, name))) ++m;
      if (m >= count) return skinned ? CANNOT("node %s: the file draws more meshes than the scene has", name) : 0;
      inst_of[m] = i;
      ++placed;
    }
  }
  uint32_t total = 0;
  for (uint32_t k = m0; k < count; ++k) total += meshes[k].node_name && !strcmp(meshes[k].node_name, name);
  if (placed == total) return 0;
  for (uint32_t k = m0; k < count; ++k)
    if (meshes[k].node_name && !strcmp(meshes[k].node_name, name)) inst_of[k] = UINT32_MAX;
  return skinned ? CANNOT(placed ? "node %s: the scene has more meshes than the file draws" : "skinned mesh of node %s "
                          "has no instance in the file", name) : 0;
}

/* Every mesh onto its instance (inst_of[m], UINT32_MAX: left alone). */
static int assign(const doc* d, const skio_dae_mesh_edit* meshes, uint32_t count, uint32_t* inst_of, char* why,
                  size_t why_size) {
  bool* done = calloc(count + 1, sizeof *done);
  if (!done) return SKC_OUT_OF_MEMORY;
  int rc = SKC_OK;
  for (uint32_t m = 0; m < count && !rc; ++m) {
    if (done[m]) continue;
    if (!meshes[m].node_name) {
      inst_of[m] = UINT32_MAX;
      if (meshes[m].offsets) rc = CANNOT("a skinned mesh has no node name");
      continue;
    }
    rc = assign_node(d, meshes, count, m, inst_of, done, why, why_size);
  }
  free(done);
  return rc;
}

/* Positions of geometry g (3 floats each) into *pos. */
static int geometry_positions(const doc* d, const dgeom* g, float** pos, size_t* npos, char* why, size_t why_size) {
  const dsrc* s = find_src(d, g->position_src);
  if (!s || s->kind != SRC_FLOAT || s->stride != 3)
    return CANNOT("geometry %.*s: no position source", (int)g->id.n, g->id.p);
  size_t nf = count_tokens(s->text);
  if (nf % 3) return CANNOT("geometry %.*s: positions are not triples", (int)g->id.n, g->id.p);
  if (!(*pos = malloc((nf + 1) * sizeof **pos))) return SKC_OUT_OF_MEMORY;
  *npos = nf / 3;
  if (parse_floats(s->text, *pos, nf)) return SKC_OK;
  return CANNOT("geometry %.*s: positions do not read", (int)g->id.n, g->id.p);
}

/* One controller instance and its meshes (in order, one per primitive of the geometry): the new rows. */
static int edit_instance(const doc* d, uint32_t inst, const skio_dae_mesh_edit* meshes, const uint32_t* list,
                         uint32_t nlist, const char* const* names, uint32_t joint_count, cedit* e, size_t* split,
                         char* why, size_t why_size) {
  const dinst* in = &d->insts[inst];
  const dctrl* c = NULL;
  for (uint32_t i = 0; i < d->nc && !c; ++i)
    if (span_eq(d->ctrls[i].id, in->url)) c = &d->ctrls[i];
  uint32_t uses = 0;
  for (uint32_t i = 0; i < d->ni; ++i) uses += d->insts[i].controller && span_eq(d->insts[i].url, in->url);
  if (!c || uses != 1) return CANNOT("a skin controller is missing or instanced more than once");
  long g = -1;
  for (uint32_t i = 0; i < d->ng && g < 0; ++i)
    if (span_eq(d->geoms[i].id, c->skin_geom)) g = (long)i;
  if (g < 0) return CANNOT("skin controller %.*s's geometry is not in the file", (int)c->id.n, c->id.p);
  int rc = cedit_read(d, c, names, joint_count, e, why, why_size);
  float* pos = NULL;
  size_t npos = 0;
  if (!rc) rc = geometry_positions(d, &d->geoms[g], &pos, &npos, why, why_size);
  uint32_t k = 0;
  for (uint32_t p = 0; !rc && p < d->np; ++p) {
    if (d->prims[p].geom != (uint32_t)g || d->prims[p].count == 0) continue;
    const char* node = meshes[list[0]].node_name;
    if (k >= nlist) rc = CANNOT("node %s: the file's geometry has more primitives than the scene meshes", node);
    else if (!meshes[list[k]].offsets) rc = CANNOT("a mesh of node %s has lost its skin", meshes[list[k]].node_name);
    else rc = take_mesh(d, &d->prims[p], pos, npos, &meshes[list[k]], list[k], e, split, why, why_size);
    ++k;
  }
  if (!rc && k != nlist)
    rc = CANNOT("node %s: the scene has more meshes than the file's geometry has primitives",
                meshes[list[0]].node_name);
  free(pos);
  return rc;
}

/* ---- a new skin controller for a geometry instance whose meshes got weights (`bind` of an unweighted mesh) ---- */

/* The node the importer names name (its name, id or sid, decoded), or NULL. */
static const dnode* node_named(const doc* d, const char* name) {
  for (uint32_t i = 0; i < d->nn; ++i) {
    const dnode* n = &d->nodes[i];
    if (attr_is(n->name, name) || attr_is(n->id, name) || attr_is(n->sid, name)) return n;
  }
  return NULL;
}

/* The frame Assimp reads the document into (its root node's transform: the unit's scale, then Z_UP or X_UP turned to
 * Y_UP), column-major: the scene's matrices are F x the document's. */
static void document_frame(const doc* d, float f[16]) {
  const float u = (float)(d->meter > 0.0 ? d->meter : 1.0);
  span a = d->up_axis;
  while (a.n && isspace((unsigned char)a.p[0])) ++a.p, --a.n;
  while (a.n && isspace((unsigned char)a.p[a.n - 1])) --a.n;
  memset(f, 0, 16 * sizeof *f);
  f[15] = 1.0f;
  if (span_is(a, "Z_UP")) { /* (x, y, z) -> (x, z, -y) */
    f[0] = u, f[6] = -u, f[9] = u;
  } else if (span_is(a, "X_UP")) { /* (x, y, z) -> (-y, x, z) */
    f[1] = u, f[4] = -u, f[10] = u;
  } else {
    f[0] = f[5] = f[10] = u;
  }
}

/* A 4x4 column-major matrix as Collada's row-major text. */
static void put_matrix(skio_buf* b, const float* m) {
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) skio_buf_printf(b, "%s%.9g", r || c ? " " : "", (double)m[4 * c + r]);
}

/* What a new skin collects: per position of the geometry its first corner's mesh vertex (rows as cedit's), and the
 * skeleton joints with weight in controller order. */
typedef struct nskin {
  size_t npos;
  size_t* from_v;
  uint32_t* from_m;
  long* s2j;       /* skeleton joint -> controller joint, -1 */
  uint32_t* joint; /* controller joint -> skeleton joint */
  uint32_t nj;
} nskin;

static void nskin_free(nskin* k) { free(k->from_v), free(k->from_m), free(k->s2j), free(k->joint); }

/* The meshes' corners onto the geometry's positions (placed as the reader placed them); the joints they use. */
static int nskin_rows(const doc* d, long g, const skio_dae_mesh_edit* meshes, const uint32_t* list, uint32_t nl,
                      uint32_t joint_count, nskin* k, size_t* split, char* why, size_t why_size) {
  float* pos = NULL;
  int rc = geometry_positions(d, &d->geoms[g], &pos, &k->npos, why, why_size);
  k->from_v = malloc((k->npos + 1) * sizeof *k->from_v);
  k->from_m = malloc((k->npos + 1) * sizeof *k->from_m);
  k->s2j = malloc((joint_count + 1) * sizeof *k->s2j);
  k->joint = malloc((joint_count + 1) * sizeof *k->joint);
  if (!rc && (!k->from_v || !k->from_m || !k->s2j || !k->joint)) rc = SKC_OUT_OF_MEMORY;
  for (size_t i = 0; !rc && i < k->npos; ++i) k->from_v[i] = SIZE_MAX;
  uint32_t q = 0;
  for (uint32_t p = 0; !rc && p < d->np; ++p) {
    if (d->prims[p].geom != (uint32_t)g || d->prims[p].count == 0) continue;
    const skio_dae_mesh_edit* m = &meshes[list[q++]];
    uint32_t* corner = NULL;
    size_t nc = 0;
    if (!m->offsets) rc = CANNOT("node %s: some of a geometry's meshes got weights, others not", m->node_name);
    if (!rc) rc = prim_corners(d, &d->prims[p], &corner, &nc, why, why_size);
    if (!rc && nc != m->vertex_count)
      rc = CANNOT("a mesh of %zu vertices matches a primitive of %zu corners", m->vertex_count, nc);
    for (size_t v = 0; !rc && v < nc; ++v) {
      const uint32_t i = corner[v];
      bool same = i < k->npos;
      for (int r = 0; same && r < 3; ++r) {
        const float* f = pos + 3 * (size_t)i;
        const double x = m->place ? (double)m->place[r] * f[0] + (double)m->place[4 + r] * f[1] +
                                        (double)m->place[8 + r] * f[2] + (double)m->place[12 + r]
                                  : (double)f[r];
        same = fabs((double)m->positions[3 * v + r] - x) <= 1e-5 * (1.0 + fabs(x));
      }
      if (!same)
        rc = CANNOT("vertex %zu of a mesh is not where its corner's position is in the file (moved vertices)", v);
      else if (k->from_v[i] == SIZE_MAX) k->from_v[i] = v, k->from_m[i] = list[q - 1];
      else *split += !same_row(&meshes[k->from_m[i]], k->from_v[i], m, v); /* the first corner's row is written */
    }
    free(corner);
  }
  if (!rc && q != nl) rc = CANNOT("a geometry's primitives and the scene's meshes differ in number");
  free(pos);
  if (rc) return rc;
  for (uint32_t s = 0; s < joint_count; ++s) k->s2j[s] = -1;
  for (size_t i = 0; i < k->npos; ++i) {
    if (k->from_v[i] == SIZE_MAX) continue;
    const skio_dae_mesh_edit* m = &meshes[k->from_m[i]];
    for (uint32_t e = m->offsets[k->from_v[i]]; e < m->offsets[k->from_v[i] + 1]; ++e) k->s2j[m->joints[e]] = 0;
  }
  for (uint32_t s = 0; s < joint_count; ++s)
    if (k->s2j[s] == 0) k->s2j[s] = (long)k->nj, k->joint[k->nj++] = s;
  return SKC_OK;
}

/* A <source> of the new controller: id cid-what, the array (text already in values), its accessor. */
static void put_source(skio_buf* b, const char* cid, const char* what, const char* array, size_t count,
                       const char* values, unsigned stride, const char* param, const char* type) {
  skio_buf_printf(b, "        <source id=\"%s-%s\">\n          <%s id=\"%s-%s-array\" count=\"%zu\">%s</%s>\n",
                  cid, what, array, cid, what, count, values ? values : "", array);
  skio_buf_printf(b, "          <technique_common>\n            <accessor source=\"#%s-%s-array\" count=\"%zu\" "
                  "stride=\"%u\">\n              <param name=\"%s\" type=\"%s\"/>\n            </accessor>\n",
                  cid, what, count / stride, stride, param, type);
  skio_buf_printf(b, "          </technique_common>\n        </source>\n");
}

/* The joints' sids, the inverse binds (bind^-1 x F: the document's frame) into names / ibm. */
static int nskin_joints(const doc* d, const nskin* k, const char* const* names, const float* binds, const float f[16],
                        skio_buf* sids, skio_buf* ibm, char* why, size_t why_size) {
  for (uint32_t j = 0; j < k->nj; ++j) {
    const char* name = names[k->joint[j]];
    const dnode* n = node_named(d, name);
    if (!n || !n->sid.n) return CANNOT("joint %s has no node with a sid to name it by in a new skin", name);
    if (!list_name(n->sid)) return CANNOT("joint %s: its node's sid is no name a joint list holds", name);
    skio_buf_printf(sids, "%s%.*s", j ? " " : "", (int)n->sid.n, n->sid.p);
    float inv[16], ib[16];
    if (!binds || !skc_mat4_inverse(binds + 16 * (size_t)k->joint[j], inv))
      return CANNOT("joint %s has no invertible bind matrix for a new skin", name);
    skc_mat4_mul(inv, f, ib);
    if (j) skio_buf_printf(ibm, " ");
    put_matrix(ibm, ib);
  }
  return SKC_OK;
}

/* The rows: one weight per pair (w), the pair counts (vc), the (joint, weight) pairs (vv); *nw the weights. */
static void nskin_weights(const nskin* k, const skio_dae_mesh_edit* meshes, skio_buf* w, skio_buf* vc, skio_buf* vv,
                          size_t* nw) {
  *nw = 0;
  for (size_t i = 0; i < k->npos; ++i) {
    const skio_dae_mesh_edit* m = k->from_v[i] == SIZE_MAX ? NULL : &meshes[k->from_m[i]];
    const uint32_t e0 = m ? m->offsets[k->from_v[i]] : 0, e1 = m ? m->offsets[k->from_v[i] + 1] : 0;
    skio_buf_printf(vc, "%s%u", i ? " " : "", e1 - e0);
    for (uint32_t e = e0; e < e1; ++e, ++*nw) {
      skio_buf_printf(w, "%s%.9g", *nw ? " " : "", (double)m->weights[e]);
      skio_buf_printf(vv, "%s%ld %zu", vv->n ? " " : "", k->s2j[m->joints[e]], *nw);
    }
  }
}

/* The new controller's text: joints by their nodes' sids, inverse binds and bind shape in the document's frame
 * (bind^-1 x F and F^-1 x place: the scene's matrices are F x the document's), weights, vertex weights. */
static int nskin_controller(const doc* d, const nskin* k, const skio_dae_mesh_edit* meshes, const float* place,
                            const dgeom* g, const char* cid, const char* const* names, const float* binds, skio_buf* b,
                            char* why, size_t why_size) {
  static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  float f[16], fi[16], bsm[16];
  document_frame(d, f);
  if (!skc_mat4_inverse(f, fi)) return CANNOT("the document's unit or axis cannot be undone");
  skc_mat4_mul(fi, place ? place : identity, bsm);
  skio_buf sids = {0}, ibm = {0}, w = {0}, vc = {0}, vv = {0};
  size_t nw = 0;
  int rc = nskin_joints(d, k, names, binds, f, &sids, &ibm, why, why_size);
  if (!rc) {
    nskin_weights(k, meshes, &w, &vc, &vv, &nw);
    skio_buf_printf(b, "    <controller id=\"%s\" name=\"%s\">\n      <skin source=\"#%.*s\">\n"
                    "        <bind_shape_matrix>", cid, cid, (int)g->id.n, g->id.p);
    put_matrix(b, bsm);
    skio_buf_printf(b, "</bind_shape_matrix>\n");
    put_source(b, cid, "joints", "Name_array", k->nj, buf_cstr(&sids), 1, "JOINT", "name");
    put_source(b, cid, "bind_poses", "float_array", 16 * (size_t)k->nj, buf_cstr(&ibm), 16, "TRANSFORM", "float4x4");
    put_source(b, cid, "weights", "float_array", nw, buf_cstr(&w), 1, "WEIGHT", "float");
    skio_buf_printf(b, "        <joints>\n          <input semantic=\"JOINT\" source=\"#%s-joints\"/>\n"
                    "          <input semantic=\"INV_BIND_MATRIX\" source=\"#%s-bind_poses\"/>\n        </joints>\n",
                    cid, cid);
    skio_buf_printf(b, "        <vertex_weights count=\"%zu\">\n          <input semantic=\"JOINT\" "
                    "source=\"#%s-joints\" offset=\"0\"/>\n          <input semantic=\"WEIGHT\" "
                    "source=\"#%s-weights\" offset=\"1\"/>\n", k->npos, cid, cid);
    skio_buf_printf(b, "          <vcount>%s</vcount>\n          <v>%s</v>\n        </vertex_weights>\n"
                    "      </skin>\n    </controller>\n", buf_cstr(&vc), buf_cstr(&vv));
    if (sids.oom || ibm.oom || w.oom || vc.oom || vv.oom || b->oom) rc = SKC_OUT_OF_MEMORY;
  }
  free(sids.p), free(ibm.p), free(w.p), free(vc.p), free(vv.p);
  return rc;
}

/* The <skeleton> elements of a new skin: the top joint node above each of its joints (nodes with an id). */
static int nskin_skeletons(const doc* d, const nskin* k, const char* const* names, skio_buf* b, char* why,
                           size_t why_size) {
  const dnode* roots[64];
  uint32_t nr = 0;
  for (uint32_t j = 0; j < k->nj; ++j) {
    const dnode* n = node_named(d, names[k->joint[j]]);
    while (n && n->parent >= 0 && d->nodes[n->parent].joint) n = &d->nodes[n->parent];
    bool seen = false;
    for (uint32_t r = 0; r < nr && !seen; ++r) seen = roots[r] == n;
    if (seen || !n) continue;
    if (!n->id.n || nr == 64) return CANNOT("a new skin's skeleton root has no id");
    roots[nr++] = n;
    skio_buf_printf(b, "<skeleton>#%.*s</skeleton>", (int)n->id.n, n->id.p);
  }
  return b->oom ? SKC_OUT_OF_MEMORY : SKC_OK;
}

/* An id not used in the document: base, else base-2, base-3, ... */
static void unique_id(const char* src, size_t n, const char* base, char* out, size_t size) {
  for (int k = 1; k < 1000; ++k) {
    if (k == 1) snprintf(out, size, "%s", base);
    else snprintf(out, size, "%s-%d", base, k);
    char pat[300];
    snprintf(pat, sizeof pat, "id=\"%s\"", out);
    if (!find_str(src, src + n, pat)) return;
  }
}

/* Instance i (an instance_geometry whose meshes list[] got weights) becomes an instance_controller of a new skin
 * controller, added to <library_controllers> (made after <library_geometries> when the file has none). Not for a
 * mesh whose node hangs from a joint (the joint would move it and the skin deform it again). */
static int new_skin(const doc* d, uint32_t i, const skio_dae_mesh_edit* meshes, const uint32_t* list, uint32_t nl,
                    const char* const* names, const float* binds, uint32_t joint_count, const char* src, size_t n,
                    splice* sp, uint32_t* nsp, skio_dae_edit_report* rep, char* why, size_t why_size) {
  const dinst* in = &d->insts[i];
  /* Collada readers disagree on what a skin's bind shape is relative to when the instancing node's parents move it
   * (Blender: to the parents' transform; Assimp: to the world): a new skin only where they agree */
  for (long p = d->nodes[in->node].parent; p >= 0; p = d->nodes[p].parent) {
    if (d->nodes[p].joint)
      return CANNOT("mesh of node %s hangs from a joint and cannot take a skin", meshes[list[0]].node_name);
    if (d->nodes[p].moves)
      return CANNOT("mesh of node %s sits under a node with a transform (readers place a new skin there differently)",
                    meshes[list[0]].node_name);
  }
  const long g = instance_geometry(d, in);
  if (g < 0 || (!d->controllers_close && !d->geometries_end) || (!in->empty && !in->close_name.p))
    return CANNOT("mesh of node %s: its geometry instance cannot be made a skin", meshes[list[0]].node_name);
  nskin k = {0};
  skio_buf ctrl = {0}, skel = {0};
  char base[260], cid[280];
  snprintf(base, sizeof base, "%.*s-skin", (int)(d->geoms[g].id.n < 200 ? d->geoms[g].id.n : 200), d->geoms[g].id.p);
  unique_id(src, n, base, cid, sizeof cid);
  int rc = nskin_rows(d, g, meshes, list, nl, joint_count, &k, &rep->split_points, why, why_size);
  if (!rc && !k.nj) rc = CANNOT("mesh of node %s got no weight", meshes[list[0]].node_name);
  if (!rc) /* (the meshes of one instance share their node's placement) */
    rc = nskin_controller(d, &k, meshes, meshes[list[0]].place, &d->geoms[g], cid, names, binds, &ctrl, why, why_size);
  if (!rc) rc = nskin_skeletons(d, &k, names, &skel, why, why_size);
  nskin_free(&k);
  skio_buf lib = {0}, tail = {0};
  if (!rc) {
    if (d->controllers_close) skio_buf_printf(&lib, "%s  ", buf_cstr(&ctrl));
    else skio_buf_printf(&lib, "\n  <library_controllers>\n%s  </library_controllers>", buf_cstr(&ctrl));
    rc = lib.oom ? SKC_OUT_OF_MEMORY : SKC_OK;
  }
  if (!rc) {
    const char* at = d->controllers_close ? d->controllers_close : d->geometries_end;
    rc = add_splice(sp, nsp, at, at, (char*)lib.p, lib.n), lib.p = NULL;
  }
  if (!rc) rc = add_splice(sp, nsp, in->tag_name.p, in->tag_name.p + in->tag_name.n, strdup("instance_controller"), 19);
  if (!rc) rc = add_splice(sp, nsp, in->url.p, in->url.p + in->url.n, strdup(cid), strlen(cid));
  if (!rc && in->empty) { /* <instance_geometry .../> -> <instance_controller ...><skeleton/></instance_controller> */
    skio_buf_printf(&tail, ">%s</instance_controller>", buf_cstr(&skel));
    if (tail.oom) rc = SKC_OUT_OF_MEMORY;
    else rc = add_splice(sp, nsp, in->open_end - 2, in->open_end, (char*)tail.p, tail.n), tail.p = NULL;
  } else if (!rc) {
    rc = add_splice(sp, nsp, in->open_end, in->open_end, (char*)skel.p, skel.n), skel.p = NULL;
    if (!rc)
      rc = add_splice(sp, nsp, in->close_name.p, in->close_name.p + in->close_name.n, strdup("instance_controller"),
                      19);
  }
  free(ctrl.p), free(skel.p), free(lib.p), free(tail.p);
  if (!rc) rep->skins_added++;
  return rc;
}

int skio_dae_edit(const char* src_in, size_t n, const skio_dae_mesh_edit* meshes, uint32_t count,
                  const char* const* names, const float* binds, uint32_t joint_count, char** out, size_t* out_n,
                  skio_dae_edit_report* rep, char* why, size_t why_size, skc_err* err) {
  memset(rep, 0, sizeof *rep);
  *out = NULL;
  *out_n = 0;
  char* src = malloc(n + 1); /* NUL-terminated: the number parsers stop there */
  if (!src) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory editing the Collada file");
  memcpy(src, src_in, n);
  src[n] = 0;
  doc d = {0};
  int rc = scan(src, n, &d, why, why_size);
  rc = rc == 1 ? SKC_OUT_OF_MEMORY : rc == 2 ? SKIO_DAE_EDIT_CANNOT : SKC_OK;
  uint32_t* inst_of = calloc(count + 1, sizeof *inst_of);
  uint32_t* list = calloc(count + 1, sizeof *list);
  cedit* edits = calloc(d.ni + 1, sizeof *edits);
  splice* sp = calloc(12 * (size_t)d.ni + 2, sizeof *sp);
  uint32_t nsp = 0;
  if (!rc && (!inst_of || !list || !edits || !sp)) rc = SKC_OUT_OF_MEMORY;
  if (!rc) rc = assign(&d, meshes, count, inst_of, why, why_size);
  for (uint32_t i = 0; !rc && i < d.ni; ++i) {
    uint32_t nl = 0;
    for (uint32_t m = 0; m < count; ++m)
      if (inst_of[m] == i) list[nl++] = m;
    if (!nl) continue;
    if (!d.insts[i].controller) { /* a geometry instance: a new skin when its meshes got one */
      bool any = false;
      for (uint32_t k = 0; k < nl; ++k) any |= meshes[list[k]].offsets != NULL;
      if (any) rc = new_skin(&d, i, meshes, list, nl, names, binds, joint_count, src, n, sp, &nsp, rep, why, why_size);
      continue;
    }
    rc = edit_instance(&d, i, meshes, list, nl, names, joint_count, &edits[i], &rep->split_points, why, why_size);
    if (rc) break;
    rep->controllers++;
    if (cedit_changed(&edits[i], meshes)) {
      rc = cedit_add_joints(&d, &edits[i], meshes, names, joint_count, why, why_size);
      if (!rc) rc = cedit_write(&d, &edits[i], meshes, names, sp, &nsp, why, why_size);
      rep->rewritten++;
    }
  }
  if (!rc) rc = apply(src, n, sp, nsp, out, out_n, why, why_size);
  for (uint32_t i = 0; edits && i < d.ni; ++i) cedit_free(&edits[i]);
  for (uint32_t k = 0; sp && k < nsp; ++k) free(sp[k].text);
  free(sp), free(edits), free(list), free(inst_of), free(src);
  doc_free(&d);
  if (rc == SKC_OUT_OF_MEMORY) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory editing the Collada file");
  return rc;
}

/* ---- where a skin sits (for the reader) ------------------------------------------------------------------------ */

static bool blender_authored(const char* src, size_t n) {
  static const char tag[] = "<authoring_tool>";
  const char* p = find_str(src, src + n, tag);
  if (!p) return false;
  p += sizeof tag - 1;
  while (p < src + n && isspace((unsigned char)*p)) ++p;
  return (size_t)(src + n - p) >= 7 && memcmp(p, "Blender", 7) == 0;
}

/* The bind shape matrix of controller c, column-major (the identity when it has none); false when it does not read. */
static bool bind_shape(const dctrl* c, float bsm[16]) {
  skc_mat4_identity(bsm);
  if (!c->bsm.n) return true;
  float rows[16];
  if (count_tokens(c->bsm) != 16 || !parse_floats(c->bsm, rows, 16)) return false;
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < 4; ++k) bsm[4 * k + r] = rows[4 * r + k];
  return true;
}

/* The length of Blender bone b: its tip when written (leaf bones), else the distance to a connected child joint's
 * head; 0 when neither says. */
static float bone_length(const doc* d, uint32_t b) {
  const dnode* n = &d->nodes[b];
  if (n->has_tip) return sqrtf(n->tip[0] * n->tip[0] + n->tip[1] * n->tip[1] + n->tip[2] * n->tip[2]);
  for (uint32_t c = b + 1; c < d->nn; ++c) {
    const dnode* k = &d->nodes[c];
    if (k->parent == (long)b && k->joint && k->connect && k->has_move)
      return sqrtf(k->move[0] * k->move[0] + k->move[1] * k->move[1] + k->move[2] * k->move[2]);
  }
  return 0.0f;
}

/* One entry per <instance_controller> of a skin controller into out->skins; 0, or 1 when out of memory. */
static int skin_places(const doc* d, skio_dae_places* out) {
  if (!(out->skins = calloc(d->ni ? d->ni : 1, sizeof *out->skins))) return 1;
  for (uint32_t i = 0; i < d->ni; ++i) {
    const dinst* in = &d->insts[i];
    const dctrl* c = NULL;
    for (uint32_t j = 0; in->controller && j < d->nc && !c; ++j)
      if (span_eq(d->ctrls[j].id, in->url)) c = &d->ctrls[j];
    const dnode* nd = &d->nodes[in->node];
    skio_dae_skin_place* pl = &out->skins[out->skin_count];
    if (!c || !nd->id.n || !bind_shape(c, pl->bsm)) continue;
    if (!(pl->node_id = strndup(nd->id.p, nd->id.n))) return 1;
    pl->node_moves = nd->moves;
    out->skin_count++;
  }
  return 0;
}

/* One entry per node that is no joint, whose parent is a joint of known length, into out->children; 0, or 1 when
 * out of memory. */
static int bone_children(const doc* d, skio_dae_places* out) {
  if (!(out->children = calloc(d->nn ? d->nn : 1, sizeof *out->children))) return 1;
  for (uint32_t i = 0; i < d->nn; ++i) {
    const dnode* nd = &d->nodes[i];
    if (nd->joint || nd->parent < 0 || !d->nodes[nd->parent].joint || !nd->id.n) continue;
    const float len = bone_length(d, (uint32_t)nd->parent);
    if (!(len > 0.0f)) continue;
    skio_dae_bone_child* k = &out->children[out->child_count];
    if (!(k->node_id = strndup(nd->id.p, nd->id.n))) return 1;
    k->bone_length = len;
    out->child_count++;
  }
  return 0;
}

int skio_dae_read_places(const char* src, size_t n, skio_dae_places* out, skc_err* err) {
  memset(out, 0, sizeof *out);
  out->blender = blender_authored(src, n);
  doc d = {0};
  char why[160];
  int rc = scan(src, n, &d, why, sizeof why);
  if (rc == 0) rc = skin_places(&d, out) || bone_children(&d, out);
  doc_free(&d);
  if (rc != 1) return SKC_OK; /* read, or a document the scanner cannot read: no entries */
  skio_dae_free_places(out);
  return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory scanning a Collada document");
}

void skio_dae_free_places(skio_dae_places* p) {
  for (uint32_t i = 0; p->skins && i < p->skin_count; ++i) free(p->skins[i].node_id);
  for (uint32_t i = 0; p->children && i < p->child_count; ++i) free(p->children[i].node_id);
  free(p->skins);
  free(p->children);
  memset(p, 0, sizeof *p);
}
