/* cli_report.c - `skinkit report PIECE...`: merges `skinkit validate --jsonl` pieces (from shards run by xargs,
 * GNU parallel or a render-farm manager) into the same summary JSON a single `validate --json` run writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

const char cli_report_usage[] =
    "usage: skinkit report PIECE... [--json [OUT|-]]\n"
    "  Reads JSON-lines files written by `skinkit validate --jsonl` ('-' = stdin), one object per checked file,\n"
    "  and writes the summary a single `validate --json` run writes (schema skinkit.validate: \"files\": [...],\n"
    "  \"summary\": {\"file_count\", \"ok_count\", \"findings_count\", \"error_count\"}) to OUT (default stdout).\n"
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

static char* read_line(FILE* f) {
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
  return s;
}

int cli_report(int argc, char** argv) {
  const char* out_path = "-";
  size_t files = 0, ok = 0, findings = 0, errors = 0, bad = 0, pieces = 0;
  FILE* out = NULL;
  cli_out sink;
  for (int i = 1; i < argc; ++i) { /* argument errors before anything is read or written */
    int jn = cli_arg_json("report", argc, argv, i, &out_path);
    if (jn < 0) return 2;
    if (jn) {
      i += jn - 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_arg_unknown("report", argv[i]);
    } else {
      pieces++;
    }
  }
  if (!pieces) return cli_arg_error("report", "no pieces given");
  pieces = 0;
  if (cli_check_output_dir("report", out_path)) return 2;
  out = cli_out_open(&sink, out_path); /* written in memory, then replaced atomically */
  if (!out) return cli_out_close(&sink, "report");
  cli_json_head(out, "validate"); /* the merged document is a validate summary, byte for byte */
  fputs(",\"files\":[", out);
  for (int i = 1; i < argc; ++i) {
    const char* skip = NULL;
    int jn = cli_arg_json("report", argc, argv, i, &skip);
    if (jn) {
      i += jn - 1;
      continue;
    }
    FILE* f = strcmp(argv[i], "-") ? fopen(argv[i], "r") : stdin;
    if (!f) {
      fprintf(stderr, "skinkit report: cannot read %s\n", argv[i]);
      bad++;
      continue;
    }
    pieces++;
    size_t line_no = 0;
    char* line;
    while ((line = read_line(f))) {
      ++line_no;
      if (!line[0]) {
        free(line);
        continue;
      }
      const char* st = status_of(line);
      if (line[0] != '{' || !st) {
        fprintf(stderr, "skinkit report: %s:%zu is not a `validate --jsonl` line\n", argv[i], line_no);
        bad++;
      } else {
        fputs(files ? "," : "", out);
        cli_utf8_fputs(out, line); /* valid UTF-8 whatever the piece holds */
        files++;
        ok += st[0] == 'o';
        findings += st[0] == 'f';
        errors += st[0] == 'e';
      }
      free(line);
    }
    if (f != stdin) fclose(f);
  }
  fprintf(out, "],\"summary\":{\"file_count\":%zu,\"ok_count\":%zu,\"findings_count\":%zu,\"error_count\":%zu}}\n", files,
          ok, findings, errors);
  if (cli_out_close(&sink, "report")) bad++;
  fprintf(stderr, "%zu piece(s), %zu file(s): %zu ok, %zu with findings, %zu error(s)%s\n", pieces, files, ok, findings,
          errors, bad ? " (some input was unreadable or malformed)" : "");
  return (errors || bad || !pieces) ? 2 : findings ? 1 : 0;
}
