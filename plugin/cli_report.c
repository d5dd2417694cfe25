/* cli_report.c - `skinkit report PIECE...`: merges `skinkit validate --jsonl` pieces (from shards run by xargs,
 * GNU parallel or a render-farm manager) into the same summary JSON a single `validate --json` run writes. */
#define _DEFAULT_SOURCE /* open_memstream, fileno */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"

const char cli_report_usage[] =
    "usage: skinkit report PIECE... [--json [OUT|-]]\n"
    "  Reads JSON-lines files written by `skinkit validate --jsonl` ('-' = stdin), one object per checked file,\n"
    "  and writes the summary a single `validate --json` run writes (schema skinkit.validate: \"files\": [...],\n"
    "  \"summary\": {\"file_count\", \"ok_count\", \"findings_count\", \"error_count\"}) to OUT (default stdout).\n"
    "  Every line must be one whole skinkit.validate.file object; a piece that cannot be read (or a folder), a\n"
    "  line cut short, a summary document or other JSON makes the run fail and no summary is written.\n"
    "  Exit 0: all clean; 1: findings; 2: a file had an error, or a piece could not be read or is malformed.\n";

/* The status key can only appear unescaped as a key: inside a JSON string every quote is escaped. */
static const char* status_of(const char* line) {
  const char* p = strstr(line, "\"status\":\"");
  if (!p) return NULL;
  p += 10;
  if (!strncmp(p, "ok\"", 3)) return "ok";
  if (!strncmp(p, "findings\"", 9)) return "findings";
  if (!strncmp(p, "error\"", 6)) return "error";
  return NULL;
}

/* The next line of f without its newline (*len bytes; it may hold NUL bytes), or NULL at the end. */
static char* read_line(FILE* f, size_t* len) {
  size_t cap = 4096, n = 0;
  char* s = malloc(cap);
  if (!s) return NULL;
  int c;
  while ((c = fgetc(f)) != EOF && c != '\n') {
    if (n + 1 >= cap) {
      char* t = realloc(s, cap *= 2);
      if (!t) {
        free(s);
        return NULL;
      }
      s = t;
    }
    s[n++] = (char)c;
  }
  if (c == EOF && n == 0) {
    free(s);
    return NULL;
  }
  s[n] = 0;
  *len = n;
  return s;
}

/* The status of a `validate --jsonl` line, or NULL when the line is not one: one whole JSON object (not cut short,
 * nothing after it) of schema skinkit.validate.file - a summary document, a truncated last line or another tool's
 * JSON is refused. */
static const char* row_status(const char* line, size_t len) {
  static const char head[] = "{\"schema\":\"skinkit.validate.file\",";
  if (strlen(line) != len || strncmp(line, head, sizeof head - 1) != 0 || !cli_json_valid(line, len)) return NULL;
  return status_of(line);
}

typedef struct report_counts {
  size_t files, ok, findings, errors, bad, pieces;
} report_counts;

/* The rows of one piece (a file, or "-" for stdin) appended to out; unreadable pieces and lines that are not rows
 * count as bad, with a line on stderr each. */
static void read_piece(const char* name, FILE* out, report_counts* c) {
  FILE* f = strcmp(name, "-") ? fopen(name, "r") : stdin;
  struct stat st;
  if (!f || (f != stdin && (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode)))) {
    fprintf(stderr, "skinkit report: cannot read %s: %s\n", name, f ? "it is a folder" : strerror(errno));
    if (f) fclose(f);
    c->bad++;
    return;
  }
  c->pieces++;
  size_t line_no = 0, len = 0;
  char* line;
  while ((line = read_line(f, &len))) {
    ++line_no;
    const char* st_name = line[0] ? row_status(line, len) : "";
    if (!st_name) {
      fprintf(stderr, "skinkit report: %s:%zu is not a whole `validate --jsonl` line\n", name, line_no);
      c->bad++;
    } else if (st_name[0]) {
      fputs(c->files ? "," : "", out);
      cli_utf8_fputs(out, line); /* valid UTF-8 whatever the piece holds */
      c->files++;
      c->ok += st_name[0] == 'o';
      c->findings += st_name[0] == 'f';
      c->errors += st_name[0] == 'e';
    }
    free(line);
  }
  if (ferror(f)) {
    fprintf(stderr, "skinkit report: cannot read %s: %s\n", name, strerror(errno));
    c->bad++;
  }
  if (f != stdin) fclose(f);
}

/* The merged document to out_path ("-": stdout), replaced atomically; 0 or 2 after an error line. */
static int write_report(const char* out_path, const char* data, size_t size) {
  if (!strcmp(out_path, "-")) {
    if (fwrite(data, 1, size, stdout) == size && fflush(stdout) == 0) return 0;
    fprintf(stderr, "skinkit report: cannot write standard output: %s\n", strerror(errno));
    return 2;
  }
  sk_error err;
  if (!sk_write_file_atomic(out_path, data, size, &err)) return 0;
  fprintf(stderr, "skinkit report: %s\n", err.message);
  return 2;
}

int cli_report(int argc, char** argv) {
  const char* out_path = "-";
  size_t npieces = 0;
  for (int i = 1; i < argc; ++i) { /* argument errors before anything is read or written */
    int jn = cli_arg_json("report", argc, argv, i, &out_path);
    if (jn < 0) return 2;
    if (jn) {
      i += jn - 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_arg_unknown("report", argv[i]);
    } else {
      npieces++;
    }
  }
  if (!npieces) return cli_arg_error("report", "no pieces given");
  if (cli_check_output_dir("report", out_path)) return 2;
  for (int i = 1; i < argc; ++i) {
    const char* skip = NULL;
    int jn = cli_arg_json("report", argc, argv, i, &skip);
    if (jn) {
      i += jn - 1;
    } else if (strcmp(out_path, "-") && strcmp(argv[i], "-") && cli_same_target(argv[i], out_path)) {
      fprintf(stderr, "skinkit report: refusing to write the summary over %s, one of the pieces\n", out_path);
      return 2;
    }
  }
  char* data = NULL;
  size_t size = 0;
  FILE* out = open_memstream(&data, &size); /* the whole document first: nothing is written unless it is right */
  if (!out) {
    fprintf(stderr, "skinkit report: out of memory\n");
    return 2;
  }
  report_counts c = {0, 0, 0, 0, 0, 0};
  cli_json_head(out, "validate"); /* the merged document is a validate summary, byte for byte */
  fputs(",\"files\":[", out);
  for (int i = 1; i < argc; ++i) {
    const char* skip = NULL;
    int jn = cli_arg_json("report", argc, argv, i, &skip);
    if (jn)
      i += jn - 1;
    else
      read_piece(argv[i], out, &c);
  }
  fprintf(out, "],\"summary\":{\"file_count\":%zu,\"ok_count\":%zu,\"findings_count\":%zu,\"error_count\":%zu}}\n",
          c.files, c.ok, c.findings, c.errors);
  int wrc = fclose(out) != 0 ? 2 : 0;
  if (wrc) fprintf(stderr, "skinkit report: out of memory\n");
  if (!wrc && !c.bad) wrc = write_report(out_path, data, size);
  free(data);
  fprintf(stderr, "%zu piece(s), %zu file(s): %zu ok, %zu with findings, %zu error(s)%s\n", c.pieces, c.files, c.ok,
          c.findings, c.errors,
          c.bad ? " (some input was unreadable or malformed: no summary written)"
          : wrc ? " (summary not written)"
                : "");
  return (c.errors || c.bad || wrc || !c.pieces) ? 2 : c.findings ? 1 : 0;
}
