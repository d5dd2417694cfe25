/* status.c - status strings and error recording. */
#include "skc_status.h"

#include <stdarg.h>
#include <stdio.h>

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

int skc_fail(skc_err* err, int code, const char* fmt, ...) {
  if (err) {
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

void skc_err_clear(skc_err* err) {
  if (err) {
    err->code = 0;
    err->message[0] = '\0';
  }
}
