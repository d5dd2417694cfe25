/* collada_clips.c - <library_animation_clips>: written after Assimp's Collada exporter (skio_collada_add_clips),
 * read back after Assimp's Collada importer (skio_collada_apply_clips). Why and the file layout: skio_collada.h.
 *
 * The reader is a small scanner for one element type, not an XML parser: it finds the first
 * "<library_animation_clips" of the file (read in 1 MiB pieces, at most 64 MiB kept for the library) and in it
 * every "<animation_clip" start tag with its name, id, start and end attributes. Anything it does not understand
 * makes it give up on the clip library (the scene keeps the animation Assimp read), never read outside its
 * buffer. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "skio_buf.h"
#include "skio_collada.h"

/* ---- writing ------------------------------------------------------------------------------------------ */
typedef struct strbuf {
  char* p;
  size_t n, cap;
  bool oom;
} strbuf;

static void sb_put(strbuf* b, const char* s, size_t n) {
  if (b->oom || n > ((size_t)1 << 40)) {
    b->oom = true;
    return;
  }
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n + 1) cap *= 2;
    char* p = realloc(b->p, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void sb_str(strbuf* b, const char* s) { sb_put(b, s, strlen(s)); }

/* An attribute value (skio_xml_attr_char). */
static void sb_attr(strbuf* b, const char* s) {
  char piece[8];
  while (*s) {
    s += skio_xml_attr_char(s, piece);
    sb_str(b, piece);
  }
}

/* The values of the id attributes of [p, end) (an "id=" after a space), sorted by id_view_cmp for bsearch. */
typedef struct id_view {
  const char* p;
  size_t n;
} id_view;

static int id_view_cmp(const void* a, const void* b) {
  const id_view *x = a, *y = b;
  const int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
  return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* *out NULL and *count 0 when there is none; false when out of memory. */
static bool document_ids(const char* p, const char* end, id_view** out, size_t* count) {
  size_t n = 0, cap = 0;
  id_view* v = NULL;
  for (const char* at = skio_text_find(p, end, "id=\""); at; at = skio_text_find(at + 4, end, "id=\"")) {
    const char* val = at + 4;
    const char* q = memchr(val, '"', (size_t)(end - val));
    if (!q) break;
    if (at == p || !isspace((unsigned char)at[-1])) continue; /* sid="...", or no attribute */
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      id_view* w = realloc(v, cap * sizeof *w);
      if (!w) {
        free(v);
        return false;
      }
      v = w;
    }
    v[n++] = (id_view){val, (size_t)(q - val)};
  }
  if (n) qsort(v, n, sizeof *v, id_view_cmp);
  *out = v;
  *count = n;
  return true;
}

/* The ids given so far and, per clip name base, the next suffix to try: an open-addressing table of strings owned by
 * the caller, at most half full (two keys per clip), so that N clips of one name cost O(N), not O(N^2) tries of
 * O(N) comparisons each (4,000 clips named "Walk" took 42 s). */
typedef struct id_slot {
  const char* key;
  unsigned next; /* as a base: the smallest suffix that may still be free (0: the base itself) */
  bool used;     /* an <animation_clip> has this id */
} id_slot;

typedef struct id_set {
  id_slot* slot;
  size_t mask;
} id_set;

static bool id_set_init(id_set* set, uint32_t count) {
  size_t cap = 16;
  while (cap < 4 * (size_t)count) cap *= 2;
  set->mask = cap - 1;
  return (set->slot = calloc(cap, sizeof *set->slot)) != NULL;
}

/* key's slot; a free slot gets key (which must then outlive the set). */
static id_slot* id_set_slot(id_set* set, const char* key) {
  size_t h = 14695981039346656037u;
  for (const char* c = key; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211u;
  for (size_t i = h & set->mask;; i = (i + 1) & set->mask) {
    id_slot* e = &set->slot[i];
    if (!e->key) e->key = key;
    if (e->key == key || !strcmp(e->key, key)) return e;
  }
}

/* A clip's name as an xsd:ID: letters, digits, '_' and '-' kept, other bytes '_', a '_' before a leading digit or
 * '-'; "clip" for no name. 24 bytes of room past the end for a suffix. */
static char* id_base(const char* name) {
  const size_t len = name && name[0] ? strlen(name) : 4;
  char* id = malloc(len + 24);
  if (!id) return NULL;
  size_t n = 0;
  if (!name || !name[0]) {
    memcpy(id, "clip", 4), n = 4;
  } else {
    if (!isalpha((unsigned char)name[0]) && name[0] != '_') id[n++] = '_';
    for (const char* c = name; *c; ++c) id[n++] = isalnum((unsigned char)*c) || *c == '_' || *c == '-' ? *c : '_';
  }
  id[n] = 0;
  return id;
}

/* The <animation_clip> id of a clip whose id_base is base: base, else base "_<i>" for the smallest i such that no id
 * of the document (ids) nor of an earlier clip (set) has it. Why: three.js's ColladaLoader names each AnimationClip
 * after this id, not after the name attribute. NULL when out of memory. */
static char* clip_id(const char* base, const id_view* ids, size_t id_count, id_set* set) {
  const size_t n = strlen(base);
  char* id = malloc(n + 24);
  if (!id) return NULL;
  memcpy(id, base, n + 1);
  id_slot* b = id_set_slot(set, base);
  unsigned i = b->next;
  for (;; ++i) {
    if (i) snprintf(id + n, 24, "_%u", i);
    const id_view key = {id, strlen(id)};
    if (!(id_count && bsearch(&key, ids, id_count, sizeof *ids, id_view_cmp)) && !id_set_slot(set, id)->used) break;
  }
  /* a free slot keeps id itself; the ids taken only grow, so every smaller suffix of this base stays taken */
  id_set_slot(set, id)->used = true;
  b->next = i + 1;
  return id;
}

/* Each clip's <animation_clip> into b, instancing the animation whose id is anim[0, anim_n). */
static bool write_clip_library(strbuf* b, const skio_clip* clips, uint32_t count, const id_view* ids, size_t id_count,
                               const char* anim, size_t anim_n) {
  char** done = calloc(2 * (size_t)(count ? count : 1), sizeof *done); /* each clip's id, then its base */
  id_set set = {0};
  bool ok = done && id_set_init(&set, count);
  sb_str(b, "\n  <library_animation_clips>\n");
  for (uint32_t k = 0; k < count && ok; ++k) {
    char** base = &done[count + k];
    if (!(*base = id_base(clips[k].name)) || !(done[k] = clip_id(*base, ids, id_count, &set))) {
      ok = false;
      break;
    }
    sb_str(b, "    <animation_clip id=\"");
    sb_str(b, done[k]);
    sb_str(b, "\" name=\"");
    sb_attr(b, clips[k].name ? clips[k].name : "");
    char num[160];
    snprintf(num, sizeof num, "\" start=\"%.17g\" end=\"%.17g\">\n      <instance_animation url=\"#", clips[k].start,
             clips[k].end);
    sb_str(b, num);
    sb_put(b, anim, anim_n); /* the id as Assimp wrote it (already XML-safe) */
    sb_str(b, "\"/>\n    </animation_clip>\n");
  }
  sb_str(b, "  </library_animation_clips>");
  free(set.slot);
  for (size_t k = 0; done && k < 2 * (size_t)count; ++k) free(done[k]);
  free(done);
  return ok;
}

int skio_collada_add_clips(const char* xml, size_t n, const skio_clip* clips, uint32_t count, char** out,
                           size_t* out_n, skc_err* err) {
  if (!xml || !out || !out_n || (count && !clips)) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  const char* end = xml + n;
  const char* lib = skio_text_find(xml, end, "<library_animations>");
  const char* close = lib ? skio_text_find(lib, end, "</library_animations>") : NULL;
  const char* anim = lib ? skio_text_find(lib, close ? close : end, "<animation id=\"") : NULL;
  if (!close || !anim) return skc_fail(err, SKC_FORMAT, "Collada document without <library_animations>");
  anim += strlen("<animation id=\"");
  const char* q = memchr(anim, '"', (size_t)(close - anim));
  if (!q) return skc_fail(err, SKC_FORMAT, "Collada document: unterminated <animation id>");
  close += strlen("</library_animations>");
  id_view* ids = NULL;
  size_t id_count = 0;
  strbuf b = {0};
  bool ok = document_ids(xml, end, &ids, &id_count);
  if (ok) {
    sb_put(&b, xml, (size_t)(close - xml));
    ok = write_clip_library(&b, clips, count, ids, id_count, anim, (size_t)(q - anim));
    sb_put(&b, close, (size_t)(end - close));
  }
  free(ids);
  if (!ok || b.oom) {
    free(b.p);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  *out = b.p;
  *out_n = b.n;
  return SKC_OK;
}

/* ---- node names ----------------------------------------------------------------------------------------- */
/* The next start tag ("<" and a letter) at or after p, or NULL. */
static const char* next_start_tag(const char* p, const char* end) {
  for (; (p = memchr(p, '<', (size_t)(end - p))) != NULL && end - p > 1; ++p)
    if (isalpha((unsigned char)p[1])) return p;
  return NULL;
}

int skio_collada_restore_names(const char* xml, size_t n, const skio_name_pair* pairs, uint32_t count, char** out,
                               size_t* out_n, skc_err* err) {
  if (!xml || !out || !out_n || (count && !pairs)) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  /* the escaped form of each written name, as the exporter puts it in name="..." */
  strbuf* esc = calloc(count ? count : 1, sizeof *esc);
  bool* seen = calloc(count ? count : 1, sizeof *seen);
  if (!esc || !seen) {
    free(esc);
    free(seen);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  bool oom = false;
  for (uint32_t k = 0; k < count; ++k) {
    sb_attr(&esc[k], pairs[k].written);
    oom |= esc[k].oom;
  }
  const char* end = xml + n;
  const char* p = xml;
  strbuf b = {0};
  while (!oom) {
    const char* tag = next_start_tag(p, end);
    if (!tag) break;
    const char* close = memchr(tag, '>', (size_t)(end - tag));
    if (!close) break;
    const char* attr = skio_text_find(tag, close, " name=\"");
    if (!attr) { /* copied as it is */
      sb_put(&b, p, (size_t)(close - p));
      p = close;
      continue;
    }
    const char* v = attr + strlen(" name=\"");
    const char* q = memchr(v, '"', (size_t)(close - v));
    if (!q) break;
    for (uint32_t k = 0; k < count; ++k) {
      if (esc[k].n != (size_t)(q - v) || memcmp(esc[k].p, v, esc[k].n) != 0) continue;
      sb_put(&b, p, (size_t)(v - p));
      sb_attr(&b, pairs[k].original);
      p = q; /* the closing quote and the rest of the tag follow */
      seen[k] = true;
      break;
    }
    sb_put(&b, p, (size_t)(close - p));
    p = close;
  }
  sb_put(&b, p, (size_t)(end - p));
  oom |= b.oom;
  uint32_t missing = count;
  for (uint32_t k = count; k-- > 0;) {
    if (!seen[k]) missing = k; /* the first one not found */
    free(esc[k].p);
  }
  int rc = SKC_OK;
  if (oom) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  } else if (missing < count) {
    rc = skc_fail(err, SKC_FORMAT, "Collada export: no <node> named \"%s\" to rename back to \"%s\"",
                  pairs[missing].written, pairs[missing].original);
  }
  free(esc);
  free(seen);
  if (rc) {
    free(b.p);
    return rc;
  }
  *out = b.p;
  *out_n = b.n;
  return SKC_OK;
}

/* ---- reading ------------------------------------------------------------------------------------------ */
typedef struct parsed_clip {
  char* name;
  double start, end;
  bool has_end;
} parsed_clip;

static void free_parsed(parsed_clip* c, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) free(c[i].name);
  free(c);
}

enum { CHUNK = 1 << 20, MAX_LIBRARY = 64 << 20 };

/* The bytes from "<library_animation_clips" to the end of "</library_animation_clips>" (malloc'd, *n), or NULL
 * (none, too large, unreadable, out of memory: *oom says which). */
static char* read_library(const char* path, size_t* n, bool* oom) {
  static const char open_tag[] = "<library_animation_clips";
  static const char close_tag[] = "</library_animation_clips>";
  const size_t keep = sizeof open_tag; /* overlap between pieces */
  *n = 0;
  *oom = false;
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* buf = malloc(CHUNK + keep);
  char* lib = NULL;
  size_t have = 0, lib_n = 0, lib_cap = 0;
  bool found = false, done = false;
  if (!buf) {
    *oom = true;
    fclose(f);
    return NULL;
  }
  while (!done) {
    size_t got = fread(buf + have, 1, CHUNK, f);
    if (got == 0) break;
    size_t len = have + got;
    const char* from = buf;
    if (!found) {
      const char* hit = skio_text_find(buf, buf + len, open_tag);
      if (!hit) {
        have = len < keep ? len : keep; /* a tag split over two pieces */
        memmove(buf, buf + len - have, have);
        continue;
      }
      found = true;
      from = hit;
    }
    size_t add = (size_t)(buf + len - from);
    if (lib_n + add > MAX_LIBRARY) break;
    if (lib_n + add + 1 > lib_cap) {
      size_t cap = lib_cap ? lib_cap * 2 : CHUNK;
      while (cap < lib_n + add + 1) cap *= 2;
      char* p = realloc(lib, cap);
      if (!p) {
        *oom = true;
        break;
      }
      lib = p;
      lib_cap = cap;
    }
    memcpy(lib + lib_n, from, add);
    lib_n += add;
    lib[lib_n] = 0;
    const char* close = skio_text_find(lib, lib + lib_n, close_tag);
    if (close) {
      lib_n = (size_t)(close - lib) + strlen(close_tag);
      done = true;
    }
    have = 0;
  }
  free(buf);
  fclose(f);
  if (!done || *oom) {
    free(lib);
    return NULL;
  }
  *n = lib_n;
  return lib;
}

static bool attr_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '-' || c == '.'; }

typedef struct attr_view {
  const char* p;
  size_t n;
  bool set;
} attr_view;

/* Parses the attributes of a start tag from p (just after the element name) to its '>' or "/>". Returns the
 * position after the tag, or NULL when the tag is malformed or runs past end. */
static const char* parse_tag(const char* p, const char* end, attr_view* name, attr_view* id, attr_view* start,
                             attr_view* stop) {
  for (;;) {
    while (p < end && isspace((unsigned char)*p)) ++p;
    if (p >= end) return NULL;
    if (*p == '>') return p + 1;
    if (*p == '/') return p + 1 < end && p[1] == '>' ? p + 2 : NULL;
    const char* an = p;
    while (p < end && attr_char(*p)) ++p;
    size_t an_n = (size_t)(p - an);
    if (!an_n) return NULL;
    while (p < end && isspace((unsigned char)*p)) ++p;
    if (p >= end || *p != '=') return NULL;
    ++p;
    while (p < end && isspace((unsigned char)*p)) ++p;
    if (p >= end || (*p != '"' && *p != '\'')) return NULL;
    const char quote = *p++;
    const char* v = p;
    while (p < end && *p != quote) ++p;
    if (p >= end) return NULL;
    attr_view val = {v, (size_t)(p - v), true};
    ++p;
    if (an_n == 4 && !memcmp(an, "name", 4)) *name = val;
    else if (an_n == 2 && !memcmp(an, "id", 2)) *id = val;
    else if (an_n == 5 && !memcmp(an, "start", 5)) *start = val;
    else if (an_n == 3 && !memcmp(an, "end", 3)) *stop = val;
  }
}

static bool parse_seconds(attr_view v, double* out) {
  char tmp[64];
  if (v.n == 0 || v.n >= sizeof tmp) return false;
  memcpy(tmp, v.p, v.n);
  tmp[v.n] = 0;
  char* e = NULL;
  double d = strtod(tmp, &e);
  while (e && isspace((unsigned char)*e)) ++e;
  if (!e || *e || !isfinite(d) || fabs(d) > 1e9) return false;
  *out = d;
  return true;
}

static void put_utf8(char** o, unsigned long cp) {
  char* w = *o;
  if (cp < 0x80) {
    *w++ = (char)cp;
  } else if (cp < 0x800) {
    *w++ = (char)(0xC0 | (cp >> 6));
    *w++ = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *w++ = (char)(0xE0 | (cp >> 12));
    *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *w++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *w++ = (char)(0xF0 | (cp >> 18));
    *w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
    *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *w++ = (char)(0x80 | (cp & 0x3F));
  }
  *o = w;
}

/* Attribute text with the five named entities and numeric character references decoded (malformed ones are
 * kept as written). */
static char* unescape(attr_view v) {
  char* out = malloc(v.n + 1); /* decoding never grows: "&#1;" (4) -> 1 byte, "&#x10FFFF;" (10) -> 4 */
  if (!out) return NULL;
  char* o = out;
  const char* p = v.p;
  const char* end = v.p + v.n;
  static const struct {
    const char* ent;
    char c;
  } named[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  while (p < end) {
    if (*p == '&') {
      bool done = false;
      for (size_t i = 0; i < sizeof named / sizeof named[0] && !done; ++i) {
        size_t l = strlen(named[i].ent);
        if ((size_t)(end - p) >= l && !memcmp(p, named[i].ent, l)) {
          *o++ = named[i].c;
          p += l;
          done = true;
        }
      }
      if (!done && end - p >= 4 && p[1] == '#') {
        const char* q = p + 2;
        int base = 10;
        if (*q == 'x' || *q == 'X') base = 16, ++q;
        unsigned long cp = 0;
        const char* digits = q;
        while (q < end && q - digits < 8 && (base == 16 ? isxdigit((unsigned char)*q) : isdigit((unsigned char)*q))) {
          cp = cp * (unsigned long)base + (unsigned long)(isdigit((unsigned char)*q) ? *q - '0' : (tolower((unsigned char)*q) - 'a' + 10));
          ++q;
        }
        if (q > digits && q < end && *q == ';' && cp > 0 && cp < 0x110000) {
          put_utf8(&o, cp);
          p = q + 1;
          done = true;
        }
      }
      if (done) continue;
    }
    *o++ = *p++;
  }
  *o = 0;
  return out;
}

/* Clips of the library text (NULL + *count 0 when it has none or cannot be parsed; *oom on allocation failure). */
static parsed_clip* parse_clips(const char* lib, size_t n, uint32_t* count, bool* oom) {
  static const char tag[] = "<animation_clip";
  const char* end = lib + n;
  const char* p = lib;
  parsed_clip* clips = NULL;
  uint32_t k = 0, cap = 0;
  *count = 0;
  *oom = false;
  while ((p = skio_text_find(p, end, tag))) {
    p += strlen(tag);
    if (p >= end) break;
    if (!isspace((unsigned char)*p) && *p != '>' && *p != '/') continue; /* a longer name */
    attr_view name = {0}, id = {0}, start = {0}, stop = {0};
    const char* next = parse_tag(p, end, &name, &id, &start, &stop);
    if (!next) goto bad;
    p = next;
    if (k == cap) {
      uint32_t nc = cap ? cap * 2 : 16;
      parsed_clip* grown = nc > cap && nc < (1u << 24) ? realloc(clips, nc * sizeof *clips) : NULL;
      if (!grown) {
        *oom = nc < (1u << 24);
        goto bad;
      }
      clips = grown;
      cap = nc;
    }
    parsed_clip* c = &clips[k];
    memset(c, 0, sizeof *c);
    c->start = 0.0;
    if (start.set && !parse_seconds(start, &c->start)) goto bad;
    c->has_end = stop.set;
    if (stop.set && (!parse_seconds(stop, &c->end) || c->end < c->start)) goto bad;
    attr_view nm = name.set && name.n ? name : id;
    if (nm.set && nm.n) {
      if (!(c->name = unescape(nm))) {
        *oom = true;
        goto bad;
      }
    } else {
      char tmp[32];
      snprintf(tmp, sizeof tmp, "clip%u", k);
      if (!(c->name = malloc(strlen(tmp) + 1))) {
        *oom = true;
        goto bad;
      }
      memcpy(c->name, tmp, strlen(tmp) + 1);
    }
    ++k;
  }
  *count = k;
  return clips;
bad:
  free_parsed(clips, k);
  *count = 0;
  return NULL;
}

/* Keys of one track (times, width floats per key) within [start, end] of the timeline, shifted to the clip.
 * at_start / at_end: the track's values there (used when no key falls inside). */
static int cut_track(const double* times, const float* vals, uint32_t n, int width, double start, double end,
                     const float* at_start, const float* at_end, double** out_t, float** out_v, uint32_t* out_n) {
  uint32_t i0 = 0, i1 = 0;
  *out_n = 0;
  *out_t = NULL;
  *out_v = NULL;
  if (!n) {
    *out_t = malloc(sizeof(double));
    *out_v = malloc(sizeof(float));
    return *out_t && *out_v ? SKC_OK : SKC_OUT_OF_MEMORY;
  }
  const double eps_s = 1e-4 + 1e-6 * fabs(start), eps_e = 1e-4 + 1e-6 * fabs(end);
  while (i0 < n && times[i0] < start - eps_s) ++i0;
  i1 = i0;
  while (i1 < n && times[i1] <= end + eps_e) ++i1;
  uint32_t m = i1 > i0 ? i1 - i0 : (end > start ? 2u : 1u);
  *out_t = malloc(m * sizeof(double));
  *out_v = malloc((size_t)m * (size_t)width * sizeof(float));
  if (!*out_t || !*out_v) return SKC_OUT_OF_MEMORY;
  const double dur = end - start;
  if (i1 > i0) {
    for (uint32_t i = i0; i < i1; ++i) {
      double t = times[i] - start;
      (*out_t)[i - i0] = t < 0.0 ? 0.0 : (t > dur ? dur : t);
      memcpy(*out_v + (size_t)(i - i0) * (size_t)width, vals + (size_t)i * (size_t)width, (size_t)width * sizeof(float));
    }
  } else {
    (*out_t)[0] = 0.0;
    memcpy(*out_v, at_start, (size_t)width * sizeof(float));
    if (m == 2) {
      (*out_t)[1] = dur;
      memcpy(*out_v + width, at_end, (size_t)width * sizeof(float));
    }
  }
  *out_n = m;
  return SKC_OK;
}

static int split(skio_scene* s, parsed_clip* clips, uint32_t count, skc_err* err) {
  const skio_anim* src = &s->anims[0];
  const uint32_t jc = s->skeleton->joint_count;
  skio_anim* out = calloc(count, sizeof *out);
  skc_trs* ps = malloc(jc * sizeof *ps);
  skc_trs* pe = malloc(jc * sizeof *pe);
  int rc = out && ps && pe ? SKC_OK : SKC_OUT_OF_MEMORY;
  uint32_t made = 0;
  for (uint32_t k = 0; k < count && !rc; ++k) {
    made = k + 1;
    skio_anim* a = &out[k];
    const parsed_clip* c = &clips[k];
    const double end = c->has_end ? c->end : (src->duration > c->start ? src->duration : c->start);
    a->name = c->name;
    clips[k].name = NULL; /* moved */
    a->duration = end - c->start;
    a->ticks_per_second = src->ticks_per_second;
    if (!src->channel_count) continue;
    if (!(a->channels = calloc(src->channel_count, sizeof *a->channels))) {
      rc = SKC_OUT_OF_MEMORY;
      break;
    }
    if ((rc = skio_anim_sample(s, 0, c->start, ps, NULL)) || (rc = skio_anim_sample(s, 0, end, pe, NULL))) break;
    for (uint32_t i = 0; i < src->channel_count && !rc; ++i) {
      const skio_channel* ch = &src->channels[i];
      skio_channel* d = &a->channels[a->channel_count++];
      d->joint = ch->joint;
      const skc_trs* s0 = &ps[ch->joint];
      const skc_trs* s1 = &pe[ch->joint];
      if ((rc = cut_track(ch->pos_time, ch->pos, ch->pos_count, 3, c->start, end, s0->t, s1->t, &d->pos_time, &d->pos,
                          &d->pos_count)) ||
          (rc = cut_track(ch->rot_time, ch->rot, ch->rot_count, 4, c->start, end, s0->r, s1->r, &d->rot_time, &d->rot,
                          &d->rot_count)) ||
          (rc = cut_track(ch->scl_time, ch->scl, ch->scl_count, 3, c->start, end, s0->s, s1->s, &d->scl_time, &d->scl,
                          &d->scl_count)))
        break;
    }
  }
  free(ps);
  free(pe);
  if (rc) {
    for (uint32_t k = 0; k < made && out; ++k) skio_anim_free(&out[k]);
    free(out);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory splitting animation clips", s->source);
  }
  skio_anim_free(&s->anims[0]);
  free(s->anims);
  s->anims = out;
  s->anim_count = count;
  return SKC_OK;
}

/* Splits s's one animation by the clips of the library text lib[0, n) (name: the file, for messages). */
static int apply_library(const char* lib, size_t n, const char* name, skio_scene* s, skc_err* err) {
  uint32_t count = 0;
  bool oom = false;
  parsed_clip* clips = parse_clips(lib, n, &count, &oom);
  if (!clips || !count) {
    free_parsed(clips, count);
    return oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory reading animation clips", name) : SKC_OK;
  }
  int rc = split(s, clips, count, err);
  free_parsed(clips, count);
  return rc;
}

static bool clips_apply(const skio_scene* s) { return s->anim_count == 1 && s->skeleton; }

int skio_collada_apply_clips(const char* path, skio_scene* s, skc_err* err) {
  if (!path || !s) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  const char* dot = strrchr(path, '.');
  if (!dot || strcasecmp(dot, ".dae") != 0 || !clips_apply(s)) return SKC_OK;
  size_t n = 0;
  bool oom = false;
  char* lib = read_library(path, &n, &oom);
  if (!lib) return oom ? skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory reading animation clips", path) : SKC_OK;
  int rc = apply_library(lib, n, path, s, err);
  free(lib);
  return rc;
}

int skio_collada_apply_clips_memory(const char* xml, size_t n, skio_scene* s, skc_err* err) {
  if (!xml || !s) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  if (!clips_apply(s)) return SKC_OK;
  const char* end = xml + n;
  const char* open = skio_text_find(xml, end, "<library_animation_clips");
  const char* close = open ? skio_text_find(open, end, "</library_animation_clips>") : NULL;
  if (!close) return SKC_OK;
  close += strlen("</library_animation_clips>");
  return apply_library(open, (size_t)(close - open), s->source ? s->source : "Collada", s, err);
}

/* ---- node names on import ---------------------------------------------------------------------------------- */
static int pair_by_written(const void* a, const void* b) {
  return strcmp(((const skio_name_pair*)a)->written, ((const skio_name_pair*)b)->written);
}
static int pair_by_original(const void* a, const void* b) {
  return strcmp(((const skio_name_pair*)a)->original, ((const skio_name_pair*)b)->original);
}

void skio_collada_free_names(skio_name_pair* pairs, uint32_t count) {
  for (uint32_t i = 0; pairs && i < count; ++i) {
    free(pairs[i].written);
    free(pairs[i].original);
  }
  free(pairs);
}

int skio_collada_names_memory(const char* text, size_t n, skio_collada_name_sets* out, skc_err* err) {
  if (!out) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  memset(out, 0, sizeof *out);
  if (!text) return SKC_OK; /* without the text the names stay ids */
  int rc = skio_collada_node_names_memory(text, n, &out->nodes, &out->node_count, err);
  if (!rc) rc = skio_collada_geometry_names_memory(text, n, &out->geometries, &out->geometry_count, err);
  if (rc) {
    skio_collada_free_name_sets(out);
    skc_fail(err, rc, "out of memory reading Collada node names");
  }
  return rc;
}

void skio_collada_free_name_sets(skio_collada_name_sets* s) {
  if (!s) return;
  skio_collada_free_names(s->nodes, s->node_count);
  skio_collada_free_names(s->geometries, s->geometry_count);
  memset(s, 0, sizeof *s);
}

/* The (id, name) pairs of the elements opened by open ("<node", "<geometry"): see skio_collada_node_names_memory. */
static int element_names(const char* text, size_t n, const char* open, bool unique, skio_name_pair** out,
                         uint32_t* out_count, skc_err* err) {
  if (!text || !out || !out_count) return skc_fail(err, SKC_INVALID_ARGUMENT, "NULL argument");
  *out = NULL;
  *out_count = 0;
  const char* end = text + n;
  skio_name_pair* pairs = NULL;
  uint32_t count = 0, cap = 0;
  bool oom = false;
  for (const char* p = text; !oom && p < end;) {
    const char* tag = skio_text_find(p, end, open);
    if (!tag) break;
    const char* comment = skio_text_find(p, tag, "<!--"); /* a comment before the tag hides what it holds: go past it */
    if (comment) {
      const char* close = skio_text_find(comment + 4, end, "-->");
      if (!close) break;
      p = close + 3;
      continue;
    }
    p = tag + strlen(open);
    if (p >= end || !isspace((unsigned char)*p)) continue; /* <nodes...> or another element */
    attr_view name = {0}, id = {0}, a = {0}, b = {0};
    const char* next = parse_tag(p, end, &name, &id, &a, &b);
    if (!next) continue;
    p = next;
    if (!name.set || !id.set || count == UINT32_MAX) continue;
    if (count == cap) {
      uint32_t c2 = cap ? 2 * cap : 64;
      skio_name_pair* grown = realloc(pairs, (size_t)c2 * sizeof *grown);
      if (!grown) {
        oom = true;
        break;
      }
      pairs = grown;
      cap = c2;
    }
    skio_name_pair* q = &pairs[count];
    q->written = unescape(id);
    q->original = unescape(name);
    if (!q->written || !q->original) {
      free(q->written);
      free(q->original);
      oom = true;
      break;
    }
    ++count;
  }
  if (oom) {
    skio_collada_free_names(pairs, count);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading node names");
  }
  /* keep a name only where it differs from the id and, for nodes, names one node: a name two nodes share (two
   * armatures' "Hips") would make joints ambiguous, so those joints keep their ids; geometries may share one (the
   * parts of one mesh, a primitive per material, that skinkit's Collada writer names after the mesh) */
  if (count) qsort(pairs, count, sizeof *pairs, pair_by_original);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < count;) {
    uint32_t j = i + 1;
    while (j < count && strcmp(pairs[j].original, pairs[i].original) == 0) ++j;
    for (uint32_t k = i; k < j; ++k) {
      if ((j - i == 1 || !unique) && strcmp(pairs[k].written, pairs[k].original) != 0 && pairs[k].original[0]) {
        pairs[kept++] = pairs[k];
      } else {
        free(pairs[k].written);
        free(pairs[k].original);
      }
    }
    i = j;
  }
  if (kept) {
    qsort(pairs, kept, sizeof *pairs, pair_by_written);
    *out = pairs;
    *out_count = kept;
  } else {
    free(pairs);
  }
  return SKC_OK;
}

int skio_collada_node_names_memory(const char* text, size_t n, skio_name_pair** out, uint32_t* out_count,
                                   skc_err* err) {
  return element_names(text, n, "<node", true, out, out_count, err);
}

int skio_collada_geometry_names_memory(const char* text, size_t n, skio_name_pair** out, uint32_t* out_count,
                                       skc_err* err) {
  return element_names(text, n, "<geometry", false, out, out_count, err);
}

const char* skio_collada_name_of(const skio_name_pair* pairs, uint32_t count, const char* id) {
  skio_name_pair key = {(char*)id, NULL};
  const skio_name_pair* hit = count ? bsearch(&key, pairs, count, sizeof *pairs, pair_by_written) : NULL;
  return hit ? hit->original : NULL;
}
