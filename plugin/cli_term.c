/* cli_term.c - names from a file are shown, never obeyed. Joint, mesh and clip names and paths come from the files
 * the user points the tool at; a hostile one can hold terminal controls (ESC sequences that clear the screen,
 * retitle the window or rewrite what was printed, C1 controls). When stdout or stderr is a terminal, the command
 * writes through a filter that shows each such byte as \xHH; newline and tab pass, and carriage return on stderr
 * (validate's progress line; on stdout a name's \r would rewrite the line). Pipes and files get the bytes unchanged:
 * JSON escapes control characters itself. */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "cli_common.h"

static int write_all(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* A C0 control but newline, tab and (cr) carriage return, DEL, or (lead byte 0xC2 and next in 0x80..0x9F) a C1
 * control in UTF-8: the bytes to show as \xHH (0 when b[i] is shown as it is). */
static int control_at(const unsigned char* b, size_t i, size_t n, int cr) {
  const unsigned char c = b[i];
  if ((c < 0x20 && c != '\n' && c != '\t' && !(cr && c == '\r')) || c == 0x7F) return 1;
  return c == 0xC2 && i + 1 < n && b[i + 1] >= 0x80 && b[i + 1] <= 0x9F ? 2 : 0;
}

static ssize_t term_write(void* cookie, const char* buf, size_t n) {
  const int fd = (int)((intptr_t)cookie & 0xff), cr = (int)((intptr_t)cookie >> 8); /* filtered()'s packing */
  const unsigned char* b = (const unsigned char*)buf;
  char out[1024];
  size_t o = 0;
  for (size_t i = 0; i < n; ++i) {
    const int k = control_at(b, i, n, cr);
    if (k) {
      for (int q = 0; q < k; ++q) o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02x", b[i + (size_t)q]);
      i += (size_t)k - 1;
    } else {
      out[o++] = (char)b[i];
    }
    if (o > sizeof out - 16) {
      if (write_all(fd, out, o)) return -1;
      o = 0;
    }
  }
  return o && write_all(fd, out, o) ? -1 : (ssize_t)n;
}

static FILE* filtered(int fd, int mode, int cr) {
  cookie_io_functions_t io = {NULL, term_write, NULL, NULL};
  FILE* f = fopencookie((void*)(intptr_t)(fd | cr << 8), "w", io);
  if (f && setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ) != 0) {
    fclose(f);
    return NULL;
  }
  return f;
}

void cli_guard_terminal(void) {
  FILE* f;
  if (isatty(1) && (f = filtered(1, _IOLBF, 0))) {
    fflush(stdout);
    stdout = f;
  }
  if (isatty(2) && (f = filtered(2, _IONBF, 1))) {
    fflush(stderr);
    stderr = f;
  }
}
