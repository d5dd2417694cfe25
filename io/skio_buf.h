/* skio_buf.h - growable byte buffer for the writers that build JSON and binary chunks in memory (gltf_write.c,
 * gltf_edit.c). An allocation failure sets `oom` and turns every later call into a no-op, so a writer appends
 * freely and checks `oom` once at the end. Internal to io/. */
#ifndef SKIO_BUF_H
#define SKIO_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct skio_buf {
  unsigned char* p;
  size_t n, cap;
  bool oom;
} skio_buf;

/* Room for `extra` more bytes; false (and oom set) when that cannot be had. */
bool skio_buf_reserve(skio_buf* b, size_t extra);
void skio_buf_put(skio_buf* b, const void* d, size_t n);
void skio_buf_str(skio_buf* b, const char* s);
/* Appends `byte` until the length is a multiple of `align`. */
void skio_buf_pad(skio_buf* b, size_t align, unsigned char byte);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void skio_buf_printf(skio_buf* b, const char* fmt, ...);
/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, <= U+10FFFF), 0 if invalid. */
size_t skio_utf8_len(const unsigned char* p);
/* s as a JSON string: '"' and '\\' escaped, control characters as \b \f \n \r \t or \u00XX, valid UTF-8 kept, any
 * other byte taken as Latin-1 (*fixed set; fixed may be NULL). */
void skio_buf_json_string(skio_buf* b, const char* s, bool* fixed);
/* The first character of the NUL-terminated s (not empty) as text of an XML 1.0 attribute value, in out (NUL-
 * terminated); returns the bytes of s it stands for. & < > " ' as entities; tab, line feed and carriage return as
 * character references (an attribute value normalizes them to spaces); other control characters, which XML 1.0
 * cannot hold at all, as U+FFFD; valid UTF-8 kept; any other byte taken as Latin-1. Names reach the Collada writers
 * from every format: a raw 0xFF or ESC byte made the whole .dae malformed XML. */
size_t skio_xml_attr_char(const char* s, char out[8]);

#endif
