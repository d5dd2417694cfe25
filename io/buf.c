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
