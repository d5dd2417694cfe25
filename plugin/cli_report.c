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
    "usage: skinkit report PIECE... [--json [OUT|-]] [-- PIECE...]\n"
    "  Reads JSON-lines files written by `skinkit validate --jsonl` ('-' = stdin), one object per checked file,\n"
    "  and writes the summary a single `validate --json` run writes (schema skinkit.validate: \"files\": [...],\n"
    "  \"summary\": {\"file_count\", \"ok_count\", \"findings_count\", \"error_count\"}) to OUT (default stdout).\n"
    "  Every line must be one whole skinkit.validate.file object; a piece that cannot be read (or a folder), a\n"
    "  line cut short, a summary document or other JSON makes the run fail and no summary is written, and so\n"
    "  does a file (a path) found in two pieces: a shard's piece given twice would count its files twice.\n"
    "  --   the end of the options: every argument after it is a PIECE\n"
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

/* The paths seen so far (their JSON strings as the rows spell them, which the CLI writes one way for one path) and
 * the piece each came from: a set by open addressing, grown at half full. */
typedef struct path_set {
  char** key;
  const char** piece;
  size_t n, cap;
} path_set;

static size_t hash_of(const char* s) {
  size_t h = 1469598103934665603u; /* FNV-1a */
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

static int set_grow(path_set* ps) {
  size_t cap = ps->cap ? ps->cap * 2 : 1024;
  char** key = calloc(cap, sizeof *key);
  const char** piece = calloc(cap, sizeof *piece);
  if (!key || !piece) {
    free(key);
    free(piece);
    return -1;
  }
  for (size_t i = 0; i < ps->cap; ++i) {
    if (!ps->key[i]) continue;
    size_t at = hash_of(ps->key[i]) & (cap - 1);
    while (key[at]) at = (at + 1) & (cap - 1);
    key[at] = ps->key[i];
    piece[at] = ps->piece[i];
  }
  free(ps->key);
  free(ps->piece);
  ps->key = key;
  ps->piece = piece;
  ps->cap = cap;
  return 0;
}

/* The piece path was seen in before when that is another piece (NULL otherwise); records path (taking it) when
 * new. Rows of one path within one piece are the CLI's own (a missing file named twice): not duplicates here. */
static const char* set_other_piece(path_set* ps, char* path, const char* piece) {
  if ((ps->n + 1) * 2 > ps->cap && set_grow(ps)) {
    free(path);
    return NULL; /* out of memory: no check rather than no report */
  }
  size_t at = hash_of(path) & (ps->cap - 1);
  for (; ps->key[at]; at = (at + 1) & (ps->cap - 1)) {
    if (strcmp(ps->key[at], path)) continue;
    free(path);
    return ps->piece[at] != piece ? ps->piece[at] : NULL;
  }
  ps->key[at] = path;
  ps->piece[at] = piece;
  ps->n++;
  return NULL;
}

static void set_free(path_set* ps) {
  for (size_t i = 0; i < ps->cap; ++i) free(ps->key[i]);
  free(ps->key);
  free(ps->piece);
}

/* The "path" value of a valid row, as its JSON string (quotes and escapes included), malloc'd; NULL if none. The key
 * follows the head unescaped (inside a JSON string every quote is escaped). */
static char* row_path(const char* line) {
  const char* p = strstr(line, ",\"path\":\"");
  if (!p) return NULL;
  p += 8;
  const char* q = p + 1;
  while (*q && *q != '"') q += q[0] == '\\' && q[1] ? 2 : 1;
  return *q ? strndup(p, (size_t)(q - p + 1)) : NULL;
}

typedef struct report_counts {
  size_t files, ok, findings, errors, bad, pieces;
  path_set seen;
} report_counts;

/* A row whose path another piece already had: one line, and the run fails (bad). */
static void check_duplicate(const char* line, const char* name, report_counts* c) {
  char* path = row_path(line);
  if (!path) return;
  char shown[512];
  snprintf(shown, sizeof shown, "%s", path);
  const char* other = set_other_piece(&c->seen, path, name);
  if (!other) return;
  fprintf(stderr, "skinkit report: %s is in two pieces, %s and %s (a piece given twice?)\n", shown, other, name);
  c->bad++;
}

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
      check_duplicate(line, name, c);
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

/* The arguments that are pieces: 1 at argv[i] for a piece, 0 for "--" and options (with --json's value, *i moved
 * past it). Everything after "--" is a piece. */
static int is_piece(int argc, char** argv, int* i, int* after_dd) {
  if (*after_dd) return 1;
  if (!strcmp(argv[*i], "--")) return !(*after_dd = 1);
  const char* skip = NULL;
  int jn = cli_arg_json("report", argc, argv, *i, &skip);
  if (jn > 0) *i += jn - 1;
  return !jn;
}

int cli_report(int argc, char** argv) {
  const char* out_path = "-";
  size_t npieces = 0;
  for (int i = 1, dd = 0; i < argc; ++i) { /* argument errors before anything is read or written */
    int jn = dd ? 0 : cli_arg_json("report", argc, argv, i, &out_path);
    if (jn < 0) return 2;
    if (jn) {
      i += jn - 1;
    } else if (!dd && !strcmp(argv[i], "--")) {
      dd = 1;
    } else if (!dd && argv[i][0] == '-' && argv[i][1]) {
      return cli_arg_unknown("report", argv[i]);
    } else {
      npieces++;
    }
  }
  if (!npieces) return cli_arg_error("report", "no pieces given");
  if (cli_check_output_dir("report", out_path)) return 2;
  for (int i = 1, dd = 0; i < argc; ++i) {
    if (is_piece(argc, argv, &i, &dd) && strcmp(out_path, "-") && strcmp(argv[i], "-") &&
        cli_same_target(argv[i], out_path)) {
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
  report_counts c;
  memset(&c, 0, sizeof c);
  cli_json_head(out, "validate"); /* the merged document is a validate summary, byte for byte */
  fputs(",\"files\":[", out);
  for (int i = 1, dd = 0; i < argc; ++i)
    if (is_piece(argc, argv, &i, &dd)) read_piece(argv[i], out, &c);
  set_free(&c.seen);
  fprintf(out, "],\"summary\":{\"file_count\":%zu,\"ok_count\":%zu,\"findings_count\":%zu,\"error_count\":%zu}}\n",
          c.files, c.ok, c.findings, c.errors);
  int wrc = fclose(out) != 0 ? 2 : 0;
  if (wrc) fprintf(stderr, "skinkit report: out of memory\n");
  if (!wrc && !c.bad) wrc = write_report(out_path, data, size);
  free(data);
  fprintf(stderr, "%zu piece(s), %zu file(s): %zu ok, %zu with findings, %zu error(s)%s\n", c.pieces, c.files, c.ok,
          c.findings, c.errors,
          c.bad ? " (some input was unreadable, malformed or given twice: no summary written)"
          : wrc ? " (summary not written)"
                : "");
  return (c.errors || c.bad || wrc || !c.pieces) ? 2 : c.findings ? 1 : 0;
}
