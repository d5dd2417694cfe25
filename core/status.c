/* status.c - status strings and error recording. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "skc_status.h"

const char* skc_status_string(int code) {
  switch (code) {
#define SKC_STATUS_CASE(name, value, msg) \
  case value:                             \
    return msg;
    SKC_STATUS_LIST(SKC_STATUS_CASE)
#undef SKC_STATUS_CASE
    default:
      return "unknown result code";
  }
}

/* The start of the UTF-8 character holding byte k of s (k itself unless it is a continuation byte). */
static size_t utf8_start(const char* s, size_t k) {
  while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) --k;
  return k;
}

/* full (n bytes) into out (cap bytes) when it does not fit: a long path before the first ": " - how most messages
 * start - loses its middle to "..." so that the reason after it stays (a 225-byte path left "...: cannot open: No
 * such file or"); then whatever is still too long is cut, both cuts on UTF-8 character boundaries. */
static void fit_message(const char* full, size_t n, char* out, size_t cap) {
  const char* colon = strstr(full, ": ");
  size_t head = colon ? (size_t)(colon - full) : 0, o = 0;
  if (head > 48 && n - head + 48 < cap) { /* keep the path's first 20 bytes and its tail */
    const size_t keep_tail = cap - 1 - (n - head) - 20 - 3;
    const size_t a = utf8_start(full, 20), b = utf8_start(full, head - keep_tail);
    memcpy(out, full, a);
    memcpy(out + a, "...", 3);
    o = a + 3;
    full += b;
    n -= b;
  }
  size_t take = n < cap - 1 - o ? n : utf8_start(full, cap - 1 - o);
  memcpy(out + o, full, take);
  out[o + take] = 0;
}

int skc_fail(skc_err* err, int code, const char* fmt, ...) {
  if (err) {
    err->code = code;
    char full[4096];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(full, sizeof full, fmt, ap);
    va_end(ap);
    const size_t len = n < 0 ? 0 : (size_t)n < sizeof full ? (size_t)n : sizeof full - 1;
    if (len < sizeof err->message)
      memcpy(err->message, full, len + 1);
    else
      fit_message(full, len, err->message, sizeof err->message);
  }
  return code;
}

void skc_err_clear(skc_err* err) {
  if (err) {
    err->code = 0;
    err->message[0] = '\0';
  }
}
