/* fbx_ascii_write.c - a binary FBX file as ASCII FBX 7.x text (skio_fbx_tree.h: skio_fbx_to_ascii).
 *
 * `--format fbxa` writes the binary FBX the binary path finishes (every repair of fbx_fixup.c and every record the
 * other passes add) and turns it into text here, so the two flavours carry the same records and the same values.
 * Assimp's own ASCII writer, used before session 72, printed node properties and curve values with 6 significant
 * digits and vertices, normals and UVs with 6 decimals (FBX2glTF's skinned positions 0.059 off mid-clip on a model
 * 1.95 across), and put a space after each comma of a P record's values, which three.js's FBXLoader (r187) reads
 * as NaN ("0, 0, 0": its text parser turns the first blank into '_').
 *
 * The text follows what the FBX SDK writes and what three.js's line-based parser needs: a tab per level, "Name: "
 * then the properties, ", " before a string and "," before a number (a P record's values: "\"A\",1,2,3"), an
 * array as "Name: *N {" with its values on an "a: " line that wraps after a comma onto lines starting in column 0, a
 * record with children or an empty scope in braces, "Class::Name" for the binary "Name\x00\x01Class", '"' as
 * &quot;, raw bytes as base64 (an embedded image's Content as "Content: ," with the string on the next line, as the
 * SDK writes it), and no top-level record without a scope (binary_only). Numbers are exact: a double in the fewest of
 * 15 to 17 significant digits that reads back to the same double, a float in 6 to 9 that reads back to the same float,
 * integers as they are, KeyAttrDataFloat's floats as their bit patterns (int32: "0,0,218434821,0"), as the FBX SDK
 * writes them. The reader (fbx_ascii_read.c) turns this text back into the same records. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_buf.h"
#include "skio_fbx_tree.h"

#define ASCII_WRAP 1024 /* array values wrap onto a new line after this many characters */

typedef struct ascii_out {
  const skio_fbx_tree* t;
  skio_buf b;
  skc_err* err;
} ascii_out;

/* A double in the fewest significant digits (15 to 17) that strtod reads back to the same value. */
static int fmt_double(char* s, size_t size, double v) {
  int n = 0;
  for (int prec = 15; prec <= 17; ++prec) {
    n = snprintf(s, size, "%.*g", prec, v);
    if (!isfinite(v) || strtod(s, NULL) == v) break;
  }
  return n;
}

/* A float in the fewest significant digits (6 to 9) that strtof reads back to the same value. */
static int fmt_float(char* s, size_t size, float v) {
  int n = 0;
  for (int prec = 6; prec <= 9; ++prec) {
    n = snprintf(s, size, "%.*g", prec, (double)v);
    if (!isfinite(v) || strtof(s, NULL) == v) break;
  }
  return n;
}

static void put_tabs(skio_buf* b, unsigned depth) {
  for (unsigned i = 0; i < depth; ++i) skio_buf_put(b, "\t", 1);
}

/* Where s[0, n) splits as the binary "Name\x00\x01Class" (n when it does not); false when a NUL byte stands anywhere
 * else: text has no way to write one (fbx_ascii_read.c refuses it, and a reader of C strings would cut the value). */
static bool string_split(const uint8_t* s, size_t n, size_t* name) {
  *name = n;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] != 0) continue;
    if (*name < n || i + 1 >= n || s[i + 1] != 1) return false;
    *name = i++;
  }
  return true;
}

/* Whether a record's name can stand before ':' in the text: 1 to 255 bytes none of which ends a word there (a blank,
 * a line break, a brace, a quote, ';', ':', ',' or NUL), as fbx_ascii_read.c reads names. */
static bool name_writable(const uint8_t* s, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (s[i] <= ' ' || strchr("{}\";:,", s[i])) return false;
  return n > 0;
}

/* s[0, n) as a quoted ASCII FBX string: "Name\x00\x01Class" becomes "Class::Name" (the binary file's order is the
 * reverse), '"' becomes &quot; as the FBX SDK writes it; string_split said where it splits. */
static void put_string(skio_buf* b, const uint8_t* s, size_t n, size_t name) {
  skio_buf_put(b, "\"", 1);
  const uint8_t* parts[2] = {name < n ? s + name + 2 : s, s};
  const size_t lens[2] = {name < n ? n - name - 2 : n, name < n ? name : 0};
  for (int k = 0; k < 2; ++k) {
    if (k == 1 && name < n) skio_buf_put(b, "::", 2);
    size_t run = 0;
    for (size_t i = 0; i < lens[k]; ++i) {
      if (parts[k][i] != '"') continue;
      skio_buf_put(b, parts[k] + run, i - run);
      skio_buf_str(b, "&quot;");
      run = i + 1;
    }
    skio_buf_put(b, parts[k] + run, lens[k] - run);
  }
  skio_buf_put(b, "\"", 1);
}

static void put_base64(skio_buf* b, const uint8_t* s, size_t n) {
  static const char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (!skio_buf_reserve(b, (n + 2) / 3 * 4 + 2)) return;
  skio_buf_put(b, "\"", 1);
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
    char q[4] = {k_b64[v >> 18 & 63], k_b64[v >> 12 & 63], i + 1 < n ? k_b64[v >> 6 & 63] : '=',
                 i + 2 < n ? k_b64[v & 63] : '='};
    skio_buf_put(b, q, 4);
  }
  skio_buf_put(b, "\"", 1);
}

static int64_t get_i64(const uint8_t* p) {
  uint64_t u = 0;
  for (int i = 7; i >= 0; --i) u = u << 8 | p[i];
  return (int64_t)u;
}

static int32_t get_i32(const uint8_t* p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Element i of an array's bytes (type f d l i b) as text into s; bits: a float array as its values' bit patterns
 * (int32), as the FBX SDK writes KeyAttrDataFloat. */
static int fmt_element(char* s, size_t size, char type, bool bits, const uint8_t* bytes, size_t i) {
  if (bits && type == 'f') return snprintf(s, size, "%d", get_i32(bytes + 4 * i));
  switch (type) {
    case 'd': {
      double v;
      memcpy(&v, bytes + 8 * i, 8); /* little-endian hosts only (x86-64), as fbx_tree.c */
      return fmt_double(s, size, v);
    }
    case 'f': {
      float v;
      memcpy(&v, bytes + 4 * i, 4);
      return fmt_float(s, size, v);
    }
    case 'l':
      return snprintf(s, size, "%lld", (long long)get_i64(bytes + 8 * i));
    case 'i':
      return snprintf(s, size, "%d", get_i32(bytes + 4 * i));
    default:
      return snprintf(s, size, "%d", bytes[i] ? 1 : 0); /* 'b' */
  }
}

/* A scalar property (C Y I F D L) as text into s. A bool (C) as T or F, or the letter itself when the file stores
 * one (the FBX SDK's "Shading: Y"). */
static int fmt_scalar(char* s, size_t size, const skio_fbx_prop* p) {
  switch (p->type) {
    case 'C': {
      const uint8_t c = p->p[0];
      if (c <= 1) return snprintf(s, size, "%c", c ? 'T' : 'F');
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) return snprintf(s, size, "%c", c);
      return snprintf(s, size, "%u", c);
    }
    case 'Y':
      return snprintf(s, size, "%d", (int16_t)(uint16_t)(p->p[0] | p->p[1] << 8));
    case 'I':
      return snprintf(s, size, "%d", get_i32(p->p));
    case 'L':
      return snprintf(s, size, "%lld", (long long)get_i64(p->p));
    case 'F': {
      float v;
      memcpy(&v, p->p, 4);
      return fmt_float(s, size, v);
    }
    default: { /* 'D' */
      double v;
      memcpy(&v, p->p, 8);
      return fmt_double(s, size, v);
    }
  }
}

/* "*N {", the values on an "a: " line wrapped after a comma every ASCII_WRAP characters (three.js joins a line that
 * starts in column 0 to the values before it; Assimp and the FBX SDK read across lines), and the closing brace. */
static int put_array(ascii_out* w, const skio_fbx_prop* p, bool bits, unsigned depth) {
  const uint8_t* bytes = NULL;
  uint8_t* owned = NULL;
  int rc = skio_fbx_array_bytes(p, &bytes, &owned, w->err);
  if (rc) return rc;
  skio_buf* b = &w->b;
  skio_buf_printf(b, "*%u {\n", p->count);
  put_tabs(b, depth + 1);
  skio_buf_str(b, "a: ");
  size_t line = b->n;
  char num[40];
  for (size_t i = 0; i < p->count && !b->oom; ++i) {
    if (i) skio_buf_put(b, ",", 1);
    if (i && b->n - line > ASCII_WRAP) {
      skio_buf_put(b, "\n", 1);
      line = b->n;
    }
    const int n = fmt_element(num, sizeof num, p->type, bits, bytes, i);
    skio_buf_put(b, num, (size_t)n);
  }
  skio_buf_put(b, "\n", 1);
  put_tabs(b, depth);
  skio_buf_str(b, "} ");
  free(owned);
  return SKC_OK;
}

/* Record r's name, then its properties after "Name: ". */
static int put_props(ascii_out* w, uint32_t r, unsigned depth) {
  const skio_fbx_tree* t = w->t;
  const skio_fbx_rec* rec = &t->recs[r];
  skio_buf* b = &w->b;
  const uint8_t* name = t->data + rec->at + t->hdr;
  skio_fbx_prop p;
  size_t at = 0; /* in order, in linear time (skio_fbx_prop_at would walk from the first for each) */
  for (uint32_t k = 0; k < rec->prop_count; ++k) {
    if (!skio_fbx_prop_next(t, r, &at, &p))
      return skc_fail(w->err, SKC_FORMAT, "FBX: record at byte %zu has a property that does not parse", rec->at);
    const bool array = strchr("fdlib", p.type) != NULL;
    if (array && rec->prop_count != 1)
      return skc_fail(w->err, SKC_FORMAT,
                      "FBX: record \"%.*s\" at byte %zu has an array beside other properties, which ASCII FBX "
                      "cannot write",
                      (int)rec->name_len, (const char*)name, rec->at);
    if (array) {
      const bool bits = rec->name_len == 16 && memcmp(name, "KeyAttrDataFloat", 16) == 0;
      const int rc = put_array(w, &p, bits, depth);
      if (rc) return rc;
    } else if (p.type == 'S') {
      size_t split;
      if (!string_split(p.p, p.len, &split))
        return skc_fail(w->err, SKC_FORMAT,
                        "FBX: a string of record \"%.*s\" at byte %zu holds a NUL byte, which ASCII FBX cannot write",
                        (int)rec->name_len, (const char*)name, rec->at);
      skio_buf_str(b, k ? ", " : "");
      put_string(b, p.p, p.len, split);
    } else if (p.type == 'R') {
      const bool content = k == 0 && rec->name_len == 7 && memcmp(name, "Content", 7) == 0;
      skio_buf_str(b, content ? ",\n" : k ? ", " : "");
      if (content) put_tabs(b, depth + 1);
      put_base64(b, p.p, p.len);
    } else {
      char num[40];
      if (k) skio_buf_put(b, ",", 1);
      const int n = fmt_scalar(num, sizeof num, &p);
      skio_buf_put(b, num, (size_t)n);
    }
  }
  return SKC_OK;
}

/* Record r and its children at depth (tabs), then a newline. A record with children, or with an empty scope (a
 * null record and no children: the "{ }" Assimp's importer needs on an AnimationLayer), gets braces. */
static int put_record(ascii_out* w, uint32_t r, unsigned depth) {
  const skio_fbx_tree* t = w->t;
  const skio_fbx_rec* rec = &t->recs[r];
  skio_buf* b = &w->b;
  const uint8_t* name = t->data + rec->at + t->hdr;
  if (!name_writable(name, rec->name_len))
    return skc_fail(w->err, SKC_FORMAT, "FBX: the name of the record at byte %zu cannot be written as ASCII FBX",
                    rec->at);
  put_tabs(b, depth);
  skio_buf_put(b, name, rec->name_len);
  skio_buf_str(b, ": ");
  int rc = put_props(w, r, depth);
  if (rc) return rc;
  if (rec->first == SKIO_FBX_NONE && !rec->nulled) {
    skio_buf_put(b, "\n", 1);
    return SKC_OK;
  }
  skio_buf_str(b, " {\n");
  for (uint32_t c = rec->first; c != SKIO_FBX_NONE && !rc; c = t->recs[c].next) rc = put_record(w, c, depth + 1);
  if (rc) return rc;
  put_tabs(b, depth);
  skio_buf_str(b, "}\n");
  return SKC_OK;
}

/* The top-level records only a binary file has: FileId (the seed of its footer's checksum), CreationTime and Creator
 * (the FBX SDK writes them into FBXHeaderExtension in ASCII files; three.js's parser fails on a top-level record
 * without a scope: "Cannot read properties of undefined"). */
static bool binary_only(const skio_fbx_tree* t, uint32_t r) {
  return skio_fbx_is(t, r, "FileId") || skio_fbx_is(t, r, "CreationTime") || skio_fbx_is(t, r, "Creator");
}

int skio_fbx_to_ascii(const uint8_t* data, size_t size, char** out, size_t* out_n, skc_err* err) {
  *out = NULL;
  *out_n = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, size, &t, err);
  if (rc) return rc;
  ascii_out w = {&t, {0}, err};
  skio_buf_printf(&w.b,
                  "; FBX %u.%u.%u project file\n"
                  "; Written by skinkit as the binary FBX it writes, in text: every value exact\n"
                  "; ----------------------------------------------------\n\n",
                  t.version / 1000, t.version / 100 % 10, t.version / 10 % 10);
  for (uint32_t r = t.first; r != SKIO_FBX_NONE && !rc; r = t.recs[r].next)
    if (!binary_only(&t, r)) rc = put_record(&w, r, 0);
  skio_fbx_tree_free(&t);
  skio_buf_put(&w.b, "", 1);
  if (!rc && w.b.oom) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "FBX: out of memory for the ASCII text");
  if (rc) {
    free(w.b.p);
    return rc;
  }
  *out = (char*)w.b.p;
  *out_n = w.b.n - 1;
  return SKC_OK;
}
