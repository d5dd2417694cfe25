/* collada_tips.c - the bone tails Blender's Collada exporter stores (skio_collada.h, skio_collada_tips). Blender
 * writes every bone as a <node type="JOINT"> whose <extra><technique profile="blender"> holds tip_x, tip_y, tip_z:
 * the bone's tail minus its head in armature space (the frame of the armature object's node), and its own Collada
 * importer makes the bones from them. Assimp 5.2 reads no <extra>, so a bone's direction and length were lost and
 * the bone segments had to guess them (core/bind.c). One pass over the text: <node> elements nest, so a stack of
 * the open ones says which node a technique belongs to and which plain node (the armature) holds it. */
#define _POSIX_C_SOURCE 200809L /* strndup, strdup */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skio_collada.h"

typedef struct open_node {
  const char* id; /* Assimp's name for it: the id, else the name attribute */
  size_t id_n;
  bool joint;
} open_node;

typedef struct tip_scan {
  open_node* stack;
  size_t depth, cap;
  size_t tech_depth; /* node depth at which a <technique profile="blender"> is open, 0 = none */
  double tip[3];
  unsigned have; /* bits 0-2: tip_x, tip_y, tip_z seen in the open technique; bit 3: connect is true */
  skio_collada_tip* out;
  uint32_t count, out_cap;
} tip_scan;

/* The end of the tag at p (its '>' + 1, quoted attribute values skipped), or end. */
static const char* tag_end(const char* p, const char* end) {
  char quote = 0;
  for (; p < end; ++p) {
    if (quote) {
      if (*p == quote) quote = 0;
    } else if (*p == '"' || *p == '\'') {
      quote = *p;
    } else if (*p == '>') {
      return p + 1;
    }
  }
  return end;
}

/* The element's text after its start tag ending at body, as a finite number; NAN when it is none. */
static double text_number(const char* body, const char* end) {
  char buf[64];
  size_t n = 0;
  while (body < end && *body != '<' && n + 1 < sizeof buf) buf[n++] = *body++;
  buf[n] = 0;
  char* stop = NULL;
  const double v = strtod(buf, &stop);
  while (stop && (*stop == ' ' || *stop == '\t' || *stop == '\n' || *stop == '\r')) ++stop;
  return stop != buf && stop && !*stop && isfinite(v) ? v : NAN;
}

static bool push_node(tip_scan* t, const char* tag, const char* end) {
  if (t->depth == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 32;
    open_node* s = realloc(t->stack, cap * sizeof *s);
    if (!s) return false;
    t->stack = s, t->cap = cap;
  }
  open_node* o = &t->stack[t->depth++];
  const char* type;
  size_t type_n;
  skio_text_attr(tag, end, "id", &o->id, &o->id_n);
  if (!o->id_n) skio_text_attr(tag, end, "name", &o->id, &o->id_n);
  skio_text_attr(tag, end, "type", &type, &type_n);
  o->joint = type_n == 5 && !memcmp(type, "JOINT", 5);
  return true;
}

/* The open technique's tip (all three numbers) and connect flag for the innermost open node, when it is a joint
 * with either; its armature is the innermost enclosing node that is not one. False when out of memory. */
static bool take_tip(tip_scan* t) {
  const open_node* o = t->depth ? &t->stack[t->depth - 1] : NULL;
  const bool tip = (t->have & 7) == 7, connect = t->have & 8;
  if ((!tip && !connect) || !o || !o->joint || !o->id_n || memchr(o->id, 0, o->id_n)) return true;
  const open_node* arm = NULL;
  for (size_t d = t->depth - 1; d-- > 0 && !arm;)
    if (!t->stack[d].joint) arm = &t->stack[d];
  if (t->count == t->out_cap) {
    uint32_t cap = t->out_cap ? 2 * t->out_cap : 32;
    skio_collada_tip* s = realloc(t->out, cap * sizeof *s);
    if (!s) return false;
    t->out = s, t->out_cap = cap;
  }
  skio_collada_tip* e = &t->out[t->count];
  e->node = strndup(o->id, o->id_n);
  e->armature = arm && arm->id_n && !memchr(arm->id, 0, arm->id_n) ? strndup(arm->id, arm->id_n) : strdup("");
  memcpy(e->tip, t->tip, sizeof e->tip);
  e->has_tip = tip;
  e->connect = connect;
  if (!e->node || !e->armature) {
    free(e->node);
    free(e->armature);
    return false;
  }
  t->count++;
  return true;
}

/* One tag at p (p[0] == '<'); returns where scanning goes on, NULL when out of memory. */
static const char* scan_tag(tip_scan* t, const char* p, const char* end) {
  if (skio_text_starts(p, end, "<!--")) {
    const char* q = skio_text_find(p + 4, end, "-->");
    return q ? q + 3 : end;
  }
  if (skio_text_starts(p, end, "<![CDATA[")) {
    const char* q = skio_text_find(p + 9, end, "]]>");
    return q ? q + 3 : end;
  }
  const char* te = tag_end(p, end);
  const bool empty = te - p >= 2 && te[-2] == '/';
  if (skio_text_start_tag(p, end, "<node")) {
    if (!push_node(t, p, end)) return NULL;
    if (empty) t->depth--;
  } else if (skio_text_start_tag(p, end, "</node")) {
    if (t->depth) t->depth--;
    if (t->tech_depth > t->depth) t->tech_depth = 0;
  } else if (skio_text_start_tag(p, end, "<technique") && t->depth && !empty) {
    const char* v;
    size_t vn;
    skio_text_attr(p, end, "profile", &v, &vn);
    if (vn == 7 && !memcmp(v, "blender", 7)) t->tech_depth = t->depth, t->have = 0;
  } else if (skio_text_start_tag(p, end, "</technique")) {
    if (t->tech_depth && t->tech_depth == t->depth && !take_tip(t)) return NULL;
    t->tech_depth = 0;
  } else if (t->tech_depth == t->depth && t->depth && !empty) {
    static const char* const axes[3] = {"<tip_x", "<tip_y", "<tip_z"};
    for (int k = 0; k < 3; ++k)
      if (skio_text_start_tag(p, end, axes[k]) && isfinite(t->tip[k] = text_number(te, end))) t->have |= 1u << k;
    if (skio_text_start_tag(p, end, "<connect") && (text_number(te, end) == 1.0 || skio_text_starts(te, end, "true")))
      t->have |= 8;
  }
  return te;
}

static int cmp_tip(const void* a, const void* b) {
  return strcmp(((const skio_collada_tip*)a)->node, ((const skio_collada_tip*)b)->node);
}

/* Drops the tips of nodes whose id another node has too (which would be Assimp's joint is unknown); the count
 * kept. */
static uint32_t drop_ambiguous(skio_collada_tip* t, uint32_t count) {
  uint32_t kept = 0;
  for (uint32_t i = 0, j; i < count; i = j) {
    for (j = i + 1; j < count && !strcmp(t[i].node, t[j].node);) ++j;
    if (j - i == 1) {
      t[kept++] = t[i];
      continue;
    }
    for (uint32_t k = i; k < j; ++k) free(t[k].node), free(t[k].armature);
  }
  return kept;
}

int skio_collada_tips(const char* text, size_t n, skio_collada_tip** out, uint32_t* count) {
  *out = NULL;
  *count = 0;
  if (!text || !skio_text_find(text, text + n, "profile=\"blender\"")) return SKC_OK; /* not Blender's: no pass */
  tip_scan t = {0};
  const char* end = text + n;
  for (const char* p = memchr(text, '<', n); p; p = memchr(p, '<', (size_t)(end - p))) {
    if (!(p = scan_tag(&t, p, end))) {
      free(t.stack);
      skio_collada_tips_free(t.out, t.count);
      return SKC_OUT_OF_MEMORY;
    }
    if (p >= end) break;
  }
  free(t.stack);
  if (t.count) qsort(t.out, t.count, sizeof *t.out, cmp_tip);
  *count = drop_ambiguous(t.out, t.count);
  *out = t.out;
  return SKC_OK;
}

const skio_collada_tip* skio_collada_tip_of(const skio_collada_tip* tips, uint32_t count, const char* node) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int c = strcmp(tips[mid].node, node);
    if (!c) return &tips[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

void skio_collada_tips_free(skio_collada_tip* tips, uint32_t count) {
  for (uint32_t i = 0; tips && i < count; ++i) {
    free(tips[i].node);
    free(tips[i].armature);
  }
  free(tips);
}
