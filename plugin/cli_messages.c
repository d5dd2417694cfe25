/* cli_messages.c - the file an error or warning is about (uses only skinkit.h).
 *
 * A read error says "skinkit CMD: IN: reason". What goes wrong after the read (an operation on a mesh, the write of
 * OUT) says which file too, in the same form, so that a batch log of many runs tells them apart:
 *   skinkit CMD: IN: mesh "x": reason         a mesh of the input, or an operation on it
 *   skinkit CMD: OUT: reason                  writing the output
 *   skinkit CMD: warning: FILE: reason        a warning (grep "warning:"), FILE as above */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"

static const char* g_input; /* the model this run read (a process runs one command) */

void cli_set_input(const char* path) { g_input = path; }

const char* cli_input(void) { return g_input; }

static void file_line(const char* cmd, const char* kind, const char* file, const char* fmt, va_list ap) {
  fprintf(stderr, "skinkit %s: %s", cmd, kind);
  if (file) fprintf(stderr, "%s: ", file);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_file_error(const char* cmd, const char* file, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  file_line(cmd, "", file, fmt, ap);
  va_end(ap);
}

void cli_file_warning(const char* cmd, const char* file, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  file_line(cmd, "warning: ", file, fmt, ap);
  va_end(ap);
}

void cli_in_error(const char* cmd, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  file_line(cmd, "", g_input, fmt, ap);
  va_end(ap);
}

void cli_in_warning(const char* cmd, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  file_line(cmd, "warning: ", g_input, fmt, ap);
  va_end(ap);
}

/* The library's save messages that name the file written start with its path ("OUT: not written: ..."); those
 * about a mesh ("mesh \"x\": the inverse bind matrix ... does not invert") are of the input's mesh, which the writer
 * refused; the rest (out of memory, an option the format cannot honour) are of the write. */
void cli_save_error(const char* cmd, const char* out, const char* message) {
  const size_t n = strlen(out);
  if (!strncmp(message, out, n) && (message[n] == ':' || message[n] == ' '))
    fprintf(stderr, "skinkit %s: %s\n", cmd, message);
  else if (!strncmp(message, "mesh ", 5))
    cli_in_error(cmd, "%s", message);
  else
    cli_file_error(cmd, out, "%s", message);
}
