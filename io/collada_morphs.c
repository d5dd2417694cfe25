/* collada_morphs.c - a Collada document without its morph controllers, for Assimp 5.2's reader (skio_collada.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skio_buf.h"
#include "skio_collada.h"

typedef struct morph_ctl {
  const char *at, *end;   /* the <controller> element */
  const char* id;         /* its id */
  size_t id_n;
  const char* geom;       /* its morph's source (a geometry) */
  size_t geom_n;
} morph_ctl;

/* The removed controller that the start tag at p names in its attribute a (`<name ... a="#id"`), or NULL. */
static const morph_ctl* names_removed(const char* p, const char* end, const char* a, const morph_ctl* c, size_t nc) {
  const char* v;
  size_t n;
  skio_text_attr(p, end, a, &v, &n);
  for (size_t k = 0; v && k < nc; ++k)
    if (n == c[k].id_n && !memcmp(v, c[k].id, n)) return &c[k];
  return NULL;
}

/* Copies [p, q) of the document to b, with a node's <instance_controller url="#M"> of a removed morph controller M
 * turned into <instance_geometry url="#G"> (G its geometry; its closing tag too) and a skin's source="#M" into
 * source="#G". */
static void copy_span(skio_buf* b, const char* p, const char* q, const morph_ctl* c, size_t nc) {
  bool as_geometry = false; /* the open instance_controller was turned into an instance_geometry */
  while (p < q) {
    const char* lt = memchr(p, '<', (size_t)(q - p));
    if (!lt) break;
    const morph_ctl* m = NULL;
    int what = 0; /* 1 instance of a removed controller, 2 its closing tag, 3 a skin on one */
    if (skio_text_starts(lt, q, "<instance_controller") && (m = names_removed(lt, q, "url", c, nc)))
      what = 1;
    else if (as_geometry && skio_text_starts(lt, q, "</instance_controller>"))
      what = 2;
    else if (skio_text_starts(lt, q, "<skin") && (m = names_removed(lt, q, "source", c, nc)))
      what = 3;
    const char* gt = what == 2 ? lt + 21 : what ? memchr(lt, '>', (size_t)(q - lt)) : NULL;
    if (!gt) {
      skio_buf_put(b, p, (size_t)(lt + 1 - p));
      p = lt + 1;
      continue;
    }
    skio_buf_put(b, p, (size_t)(lt - p));
    if (what == 1) {
      as_geometry = gt[-1] != '/';
      skio_buf_printf(b, "<instance_geometry url=\"#%.*s\"%s", (int)m->geom_n, m->geom, as_geometry ? ">" : "/>");
    } else if (what == 2) {
      as_geometry = false;
      skio_buf_str(b, "</instance_geometry>");
    } else {
      skio_buf_printf(b, "<skin source=\"#%.*s\">", (int)m->geom_n, m->geom);
    }
    p = gt + 1;
  }
  if (p < q) skio_buf_put(b, p, (size_t)(q - p));
}

/* The <controller> elements of xml[0, n) that hold a <morph>, in order (at most cap). */
static size_t morph_controllers(const char* xml, const char* end, morph_ctl* c, size_t cap) {
  size_t nc = 0;
  for (const char* p = skio_text_find(xml, end, "<controller"); p && nc < cap;
       p = skio_text_find(p + 1, end, "<controller")) {
    if (p + 11 >= end || (p[11] != ' ' && p[11] != '>' && p[11] != '\t' && p[11] != '\n' && p[11] != '\r')) continue;
    const char* close = skio_text_find(p, end, "</controller>");
    if (!close) break;
    const char* morph = skio_text_find(p, close, "<morph");
    if (!morph) continue;
    morph_ctl m = {p, close + 13, NULL, 0, NULL, 0};
    skio_text_attr(p, close, "id", &m.id, &m.id_n);
    skio_text_attr(morph, close, "source", &m.geom, &m.geom_n);
    if (m.id_n && m.geom_n) c[nc++] = m;
    p = close;
  }
  return nc;
}

char* skio_collada_without_morphs(const char* xml, size_t n, size_t* out_n, uint32_t* removed) {
  *removed = 0;
  const char* end = xml + n;
  morph_ctl c[64];
  size_t nc = morph_controllers(xml, end, c, sizeof c / sizeof c[0]);
  if (!nc) return NULL;
  skio_buf b = {0};
  const char* p = xml;
  for (size_t k = 0; k < nc; ++k) {
    copy_span(&b, p, c[k].at, c, nc);
    p = c[k].end;
  }
  copy_span(&b, p, end, c, nc);
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  *removed = (uint32_t)nc;
  *out_n = b.n;
  return (char*)b.p;
}
