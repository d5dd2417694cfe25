/* buf.c - the growable byte buffer of skio_buf.h. */
#include "skio_buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool skio_buf_reserve(skio_buf* b, size_t extra) {
  if (b->oom) return false;
  if (extra > SIZE_MAX / 2 - b->n) return !(b->oom = true);
  size_t need = b->n + extra;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < need) cap *= 2;
  unsigned char* p = realloc(b->p, cap);
  if (!p) return !(b->oom = true);
  b->p = p;
  b->cap = cap;
  return true;
}

void skio_buf_put(skio_buf* b, const void* d, size_t n) {
  if (n && skio_buf_reserve(b, n)) {
    memcpy(b->p + b->n, d, n);
    b->n += n;
  }
}

void skio_buf_str(skio_buf* b, const char* s) { skio_buf_put(b, s, strlen(s)); }

void skio_buf_pad(skio_buf* b, size_t align, unsigned char byte) {
  while (b->n % align && !b->oom) skio_buf_put(b, &byte, 1);
}

void skio_buf_printf(skio_buf* b, const char* fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->oom = true;
    return;
  }
  if ((size_t)n < sizeof small) {
    skio_buf_put(b, small, (size_t)n);
    return;
  }
  if (!skio_buf_reserve(b, (size_t)n + 1)) return;
  va_start(ap, fmt);
  vsnprintf((char*)b->p + b->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)n;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, <= U+10FFFF), 0 if invalid. */
size_t skio_utf8_len(const unsigned char* p) {
  unsigned c = p[0];
  if (c >= 0xC2 && c <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80 ? 4 : 0;
  }
  return 0;
}

/* s as a JSON string: '"' and '\\' escaped, control characters as \b \f \n \r \t or \u00XX, valid UTF-8 kept,
 * any other byte taken as Latin-1 (*fixed set). */
void skio_buf_json_string(skio_buf* b, const char* s, bool* fixed) {
  skio_buf_str(b, "\"");
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    unsigned c = *p;
    if (c < 0x80) {
      switch (c) {
        case '"': skio_buf_str(b, "\\\""); break;
        case '\\': skio_buf_str(b, "\\\\"); break;
        case '\b': skio_buf_str(b, "\\b"); break;
        case '\f': skio_buf_str(b, "\\f"); break;
        case '\n': skio_buf_str(b, "\\n"); break;
        case '\r': skio_buf_str(b, "\\r"); break;
        case '\t': skio_buf_str(b, "\\t"); break;
        default:
          if (c < 0x20)
            skio_buf_printf(b, "\\u%04x", c);
          else
            skio_buf_put(b, p, 1);
      }
      ++p;
      continue;
    }
    size_t n = skio_utf8_len(p);
    if (n) {
      skio_buf_put(b, p, n);
      p += n;
    } else {
      unsigned char two[2] = {(unsigned char)(0xC0 | (c >> 6)), (unsigned char)(0x80 | (c & 0x3F))};
      skio_buf_put(b, two, 2);
      if (fixed) *fixed = true;
      ++p;
    }
  }
  skio_buf_str(b, "\"");
}

size_t skio_xml_attr_char(const char* s, char out[8]) {
  static const char* const named[][2] = {{"&", "&amp;"},  {"<", "&lt;"},  {">", "&gt;"},   {"\"", "&quot;"},
                                         {"'", "&apos;"}, {"\t", "&#9;"}, {"\n", "&#10;"}, {"\r", "&#13;"}};
  const unsigned char* p = (const unsigned char*)s;
  for (size_t i = 0; i < sizeof named / sizeof named[0]; ++i)
    if (*s == named[i][0][0]) {
      strcpy(out, named[i][1]);
      return 1;
    }
  size_t n = *p >= 0x80 ? skio_utf8_len(p) : 1;
  if (*p < 0x20) {
    strcpy(out, "\xEF\xBF\xBD"); /* U+FFFD */
  } else if (n) {
    memcpy(out, s, n);
    out[n] = 0;
  } else { /* Latin-1 */
    out[0] = (char)(0xC0 | (*p >> 6));
    out[1] = (char)(0x80 | (*p & 0x3F));
    out[2] = 0;
    n = 1;
  }
  return n;
}
