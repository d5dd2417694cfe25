/* collada_controllers.c - a Collada document's chain of controllers checked before Assimp reads it (skio_collada.h).
 *
 * A <controller> takes its mesh from the source of its <skin> or <morph>: a <geometry>, or another controller (a
 * skin over a morph). Assimp 5.2 follows skins' sources from controller to controller (not a morph's: it stops
 * there), so a chain of skins that comes back to one it has passed never ends: a skin whose source is its own
 * controller (a 400-byte file) kept every command waiting for the isolated reader's time limit (60 s; validate 300
 * s) before it was refused. Measured against Assimp 5.2.5 (docs/fuzzing.md, session 74): a skin of itself, two and
 * three skins in a ring, either quote and a character reference in the source loop; a morph of itself, and a ring
 * through a morph, do not.
 *
 * The check walks the document's tags once as an XML parser sees them (comments and CDATA sections skipped,
 * attributes in either quote with blanks around '=', character and entity references in their values decoded, as
 * Assimp's parser reads them), takes each controller's id and the source of its first <skin> or <morph>, then
 * follows every chain once, marking the controllers it has finished: linear in the document but for sorting the ids. */
#include <stdlib.h>
#include <string.h>

#include "skio_collada.h"

typedef struct {
  char *id, *src; /* decoded values (malloc'd); src NULL when none, or when the controller is a <morph> */
  uint32_t at;    /* place in the document */
  uint32_t last;  /* once sorted: the last of the controllers with this id (the one Assimp keeps) */
  int32_t next;   /* the controller src names, or -1 (a geometry, or nothing) */
} controller;

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The code point of the reference at s ("&#99;", "&#x63;", "&amp;" ...; *len its length up to ';'), or -1. */
static long reference(const char* s, const char* end, size_t* len) {
  static const char* const names[5][2] = {{"amp;", "&"}, {"lt;", "<"}, {"gt;", ">"}, {"quot;", "\""}, {"apos;", "'"}};
  for (int k = 0; k < 5; ++k)
    if (skio_text_starts(s + 1, end, names[k][0])) return *len = 1 + strlen(names[k][0]), names[k][1][0];
  if (s + 2 >= end || s[1] != '#') return -1;
  const bool hex = s[2] == 'x';
  long v = 0;
  const char* p = s + 2 + hex;
  for (; p < end && *p != ';' && v <= 0x10FFFF; ++p) {
    const char c = *p;
    const int d = c >= '0' && c <= '9' ? c - '0' : hex && (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
    if (d < 0) return -1;
    v = v * (hex ? 16 : 10) + d;
  }
  if (p >= end || p == s + 2 + hex || v > 0x10FFFF) return -1;
  *len = (size_t)(p - s) + 1;
  return v;
}

/* [s, e) with its references decoded (as UTF-8), malloc'd; NULL when out of memory. */
static char* decoded(const char* s, const char* e) {
  char* out = malloc(4 * (size_t)(e - s) + 1);
  size_t n = 0;
  for (const char* p = s; out && p < e;) {
    size_t len = 0;
    const long c = *p == '&' ? reference(p, e, &len) : -1;
    if (c < 0) {
      out[n++] = *p++;
      continue;
    }
    p += len;
    if (c < 0x80) {
      out[n++] = (char)c;
    } else { /* the code point in UTF-8 */
      static const unsigned char lead[4] = {0, 0xC0, 0xE0, 0xF0};
      const int extra = c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
      out[n++] = (char)(lead[extra] | (unsigned long)(c >> (6 * extra)));
      for (int k = extra - 1; k >= 0; --k) out[n++] = (char)(0x80 | ((c >> (6 * k)) & 0x3F));
    }
  }
  if (out) out[n] = 0;
  return out;
}

/* Attribute name of the start tag at tag (up to its '>'): its decoded value (malloc'd) in *v, NULL when absent.
 * False when out of memory. */
static bool attr(const char* tag, const char* end, const char* name, char** v) {
  *v = NULL;
  const size_t kl = strlen(name);
  const char* gt = memchr(tag, '>', (size_t)(end - tag));
  for (const char* a = tag + 1; gt && a + kl < gt; ++a) {
    if (!blank(a[-1]) || memcmp(a, name, kl) != 0) continue;
    const char* q = a + kl;
    while (q < gt && blank(*q)) ++q;
    if (q >= gt || *q != '=') continue;
    for (++q; q < gt && blank(*q); ++q) continue;
    if (q >= gt || (*q != '"' && *q != '\'')) continue;
    const char* close = memchr(q + 1, *q, (size_t)(gt - q - 1));
    if (!close) return true;
    return (*v = decoded(q + 1, close)) != NULL;
  }
  return true;
}

/* Past the comment, CDATA section or processing instruction at p (a '<'), or p when it is none of them. */
static const char* skip_special(const char* p, const char* end) {
  static const char *const open[3] = {"<!--", "<![CDATA[", "<?"}, *const close[3] = {"-->", "]]>", "?>"};
  for (int k = 0; k < 3; ++k)
    if (skio_text_starts(p, end, open[k])) {
      const char* c = skio_text_find(p + strlen(open[k]), end, close[k]);
      return c ? c + strlen(close[k]) : end;
    }
  return p;
}

static bool push(controller** list, uint32_t* count, uint32_t* cap, char* id) {
  if (*count == *cap) {
    const uint32_t grown_cap = *cap ? (*cap > UINT32_MAX / 2 ? UINT32_MAX : 2 * *cap) : 16;
    controller* grown = *count < UINT32_MAX ? realloc(*list, (size_t)grown_cap * sizeof *grown) : NULL;
    if (!grown) return false;
    *list = grown, *cap = grown_cap;
  }
  (*list)[*count] = (controller){id, NULL, *count, 0, -1};
  ++*count;
  return true;
}

/* Every <controller> of text[0, n) with its id and source into *out (*count entries). False when out of memory. */
static bool collect(const char* text, size_t n, controller** out, uint32_t* count) {
  const char* end = text + n;
  uint32_t cap = 0;
  bool inside = false; /* in a controller whose source is not yet known */
  for (const char* p = memchr(text, '<', n); p; p = memchr(p, '<', (size_t)(end - p))) {
    const char* q = skip_special(p, end);
    if (q != p) {
      p = q;
      continue;
    }
    char* v = NULL;
    if (skio_text_start_tag(p, end, "<controller")) {
      if (!attr(p, end, "id", &v) || (v && !push(out, count, &cap, v))) return free(v), false;
      inside = v != NULL;
    } else if (skio_text_start_tag(p, end, "</controller")) {
      inside = false;
    } else if (inside && (skio_text_start_tag(p, end, "<skin") || skio_text_start_tag(p, end, "<morph"))) {
      if (!attr(p, end, "source", &v)) return false;
      if (p[1] == 's')
        (*out)[*count - 1].src = v; /* Assimp follows a skin's source, not a morph's */
      else
        free(v);
      inside = false;
    }
    ++p;
  }
  return true;
}

/* By id, then place: of controllers sharing an id Assimp keeps the last (its library is a map filled in order). */
static int by_id(const void* a, const void* b) {
  const controller *x = a, *y = b;
  const int c = strcmp(x->id, y->id);
  return c ? c : (x->at > y->at) - (x->at < y->at);
}

static int by_id_only(const void* a, const void* b) {
  return strcmp(((const controller*)a)->id, ((const controller*)b)->id);
}

/* The controller a source names, or -1: Assimp drops the source's first character ('#' in a valid document) and
 * looks the rest up among the controllers (the last of an id). */
static int32_t named(const controller* c, uint32_t count, const char* src) {
  if (!src || !src[0]) return -1;
  const controller key = {(char*)(src + 1), NULL, 0, 0, -1};
  const controller* hit = bsearch(&key, c, count, sizeof *c, by_id_only);
  return hit ? (int32_t)hit->last : -1;
}

/* The first controller of a chain that comes back to itself, or -1: each chain is walked once, its controllers marked
 * 1 while on the walk and 2 when finished (a walk that reaches a 1 has gone round). */
static int32_t first_cycle(const controller* c, uint32_t count, uint8_t* state) {
  for (uint32_t i = 0; i < count; ++i) {
    int32_t k = (int32_t)i;
    while (k >= 0 && state[k] == 0) state[k] = 1, k = c[k].next;
    if (k >= 0 && state[k] == 1) return k;
    for (k = (int32_t)i; k >= 0 && state[k] == 1; k = c[k].next) state[k] = 2;
  }
  return -1;
}

int skio_collada_controller_check(const char* text, size_t n, skc_err* err) {
  controller* c = NULL;
  uint32_t count = 0;
  bool ok = !text || collect(text, n, &c, &count);
  uint8_t* state = ok && count ? calloc(count, 1) : NULL;
  int rc = ok && (!count || state) ? SKC_OK : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading the controllers");
  if (!rc && count) {
    qsort(c, count, sizeof *c, by_id);
    for (uint32_t i = count; i-- > 0;) {
      const bool replaced = i + 1 < count && !strcmp(c[i].id, c[i + 1].id); /* by a later one: never read */
      c[i].last = replaced ? c[i + 1].last : i;
      if (replaced) state[i] = 2;
    }
    for (uint32_t i = 0; i < count; ++i) c[i].next = named(c, count, c[i].src);
    const int32_t k = first_cycle(c, count, state);
    if (k >= 0)
      rc = skc_fail(err, SKC_FORMAT,
                    "controller \"%.200s\" takes its mesh from itself (its <skin> sources lead back to it): a "
                    "damaged .dae",
                    c[k].id);
  }
  for (uint32_t i = 0; i < count; ++i) free(c[i].id), free(c[i].src);
  free(state);
  free(c);
  return rc;
}
