/* cli_json.c - the CLI's JSON family (docs/json.md) and the output arguments every writer shares: the envelope
 * each --json object starts with, `--json [FILE|-]` for the commands that print their JSON on stdout, and
 * `-o/--output OUT` for the commands that write a model or an .skf file. Both are taken out of argv by the
 * dispatcher (cli_run_command), the way cli_load.c takes the reading options, so no command parses them twice. */
#define _DEFAULT_SOURCE /* dup, fileno */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli_common.h"

void cli_json_head(FILE* f, const char* cmd) {
  fprintf(f, "{\"schema\":\"skinkit.%s\",\"version\":%d", cmd, CLI_JSON_VERSION);
}

/* ---- strict JSON syntax: a recursive descent that checks and builds nothing ---- */
typedef struct jscan {
  const char *p, *end;
  int depth;
} jscan;

static int js_digit(const jscan* s) { return s->p < s->end && *s->p >= '0' && *s->p <= '9'; }
static void js_digits(jscan* s) {
  while (js_digit(s)) s->p++;
}
static void js_space(jscan* s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}
static int js_at(const jscan* s, char c) { return s->p < s->end && *s->p == c; }

static int js_string(jscan* s) {
  if (!js_at(s, '"')) return 0;
  for (s->p++; s->p < s->end; s->p++) {
    const unsigned char c = (unsigned char)*s->p;
    if (c == '"') {
      s->p++;
      return 1;
    }
    if (c < 0x20) return 0;
    if (c != '\\') continue;
    if (++s->p >= s->end) return 0;
    if (*s->p == 'u') {
      for (int i = 0; i < 4; ++i)
        if (++s->p >= s->end || !strchr("0123456789abcdefABCDEF", *s->p) || !*s->p) return 0;
    } else if (!*s->p || !strchr("\"\\/bfnrt", *s->p)) {
      return 0;
    }
  }
  return 0;
}

static int js_number(jscan* s) {
  if (js_at(s, '-')) s->p++;
  if (js_at(s, '0'))
    s->p++;
  else if (js_digit(s))
    js_digits(s);
  else
    return 0;
  if (js_at(s, '.')) {
    s->p++;
    if (!js_digit(s)) return 0;
    js_digits(s);
  }
  if (js_at(s, 'e') || js_at(s, 'E')) {
    s->p++;
    if (js_at(s, '+') || js_at(s, '-')) s->p++;
    if (!js_digit(s)) return 0;
    js_digits(s);
  }
  return 1;
}

static int js_word(jscan* s, const char* w) {
  const size_t n = strlen(w);
  if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0) return 0;
  s->p += n;
  return 1;
}

static int js_value(jscan* s);

/* an object or array at s->p: members or elements, separated by commas, up to the closing bracket */
static int js_container(jscan* s) {
  const int object = *s->p == '{';
  const char close = object ? '}' : ']';
  if (++s->depth > 512) return 0;
  s->p++;
  js_space(s);
  if (!js_at(s, close)) {
    for (;;) {
      if (object) {
        js_space(s);
        if (!js_string(s)) return 0;
        js_space(s);
        if (!js_at(s, ':')) return 0;
        s->p++;
      }
      if (!js_value(s)) return 0;
      js_space(s);
      if (!js_at(s, ',')) break;
      s->p++;
    }
    if (!js_at(s, close)) return 0;
  }
  s->p++;
  s->depth--;
  return 1;
}

static int js_value(jscan* s) {
  js_space(s);
  if (s->p >= s->end) return 0;
  switch (*s->p) {
    case '{':
    case '[':
      return js_container(s);
    case '"':
      return js_string(s);
    case 't':
      return js_word(s, "true");
    case 'f':
      return js_word(s, "false");
    case 'n':
      return js_word(s, "null");
    default:
      return js_number(s);
  }
}

int cli_json_valid(const char* text, size_t n) {
  jscan s = {text, text + n, 0};
  if (!js_value(&s)) return 0;
  js_space(&s);
  return s.p == s.end;
}

static int listed(const char* cmd, const char* const* names) {
  for (; *names; ++names)
    if (!strcmp(cmd, *names)) return 1;
  return 0;
}

/* Commands whose --json goes to stdout through printf: the dispatcher sends it to FILE instead. validate and
 * report write their summary themselves (--json OUT|-, with the human table on stdout). */
static const char* const k_json_commands[] = {"info", "unpack", "bind", "weights", "convert", "pack", "demo", "sample",
                                              NULL};

static int ends_with_ci(const char* s, const char* tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n > t && !strcasecmp(s + n - t, tail);
}

/* The argument after a bare --json is its destination only when it is "-" or a .json/.jsonl name, so that
 * `skinkit info --json model.glb` keeps reading model.glb. Any other name: --json=FILE. */
static int json_dest(const char* s) { return !strcmp(s, "-") || ends_with_ci(s, ".json") || ends_with_ci(s, ".jsonl"); }

/* --json [FILE|-] / --json=FILE become a bare --json; *dest = FILE (NULL for stdout). 0, or 2 after one error. */
static int take_json(const char* cmd, int* argc, char** argv, const char** dest) {
  static char bare[] = "--json";
  int seen = 0;
  *dest = NULL;
  for (int i = 1; i < *argc; ++i) {
    const char* v = NULL;
    if (!strncmp(argv[i], "--json=", 7)) {
      if (!argv[i][7]) return cli_arg_error(cmd, "--json= needs a file name (or -)");
      v = argv[i] + 7;
    } else if (!strcmp(argv[i], "--json")) {
      if (i + 1 < *argc && json_dest(argv[i + 1])) {
        v = argv[i + 1];
        cli_argv_drop(argc, argv, i + 1, 1);
      }
    } else {
      continue;
    }
    if (seen++) return cli_arg_error(cmd, "--json given twice");
    argv[i] = bare;
    *dest = v && strcmp(v, "-") ? v : NULL;
  }
  return 0;
}

/* ---- --json FILE: the command prints to stdout (fd 1), which points at a temporary file meanwhile; the JSON
 * then replaces FILE atomically, and only when the command succeeded. ---- */
typedef struct json_sink {
  const char* dest;
  FILE* tmp;
  int saved;
} json_sink;

static int sink_open(json_sink* s, const char* cmd, int argc, char** argv) {
  if (!s->dest) return 0;
  if (cli_check_output_dir(cmd, s->dest)) return 2;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    /* an input, or the output the command is about to write (OUT, and a .gltf's buffer OUT.bin beside it) */
    int same = cli_same_target(argv[i], s->dest);
    const size_t n = strlen(argv[i]);
    if (!same && n > 5 && !strcasecmp(argv[i] + n - 5, ".gltf")) {
      char* bin = malloc(n);
      if (bin) {
        sprintf(bin, "%.*s.bin", (int)(n - 5), argv[i]);
        same = cli_same_target(bin, s->dest);
        free(bin);
      }
    }
    if (same) {
      fprintf(stderr, "skinkit %s: refusing to write the JSON over %s, an argument of the command (or its .bin)\n", cmd,
              s->dest);
      return 2;
    }
  }
  fflush(stdout);
  s->tmp = tmpfile();
  s->saved = s->tmp ? dup(1) : -1;
  if (s->saved < 0 || dup2(fileno(s->tmp), 1) < 0) {
    fprintf(stderr, "skinkit %s: cannot write %s: no temporary file\n", cmd, s->dest);
    if (s->saved >= 0) close(s->saved);
    if (s->tmp) fclose(s->tmp);
    return 2;
  }
  return 0;
}

/* Restores stdout; writes the captured JSON to the destination when keep. 0, or 2 after one error line. */
static int sink_close(json_sink* s, const char* cmd, int keep) {
  if (!s->tmp) return 0;
  int bad = fflush(stdout) != 0;
  dup2(s->saved, 1);
  close(s->saved);
  long n = bad ? -1 : ftell(s->tmp);
  char* data = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (keep && data) {
    rewind(s->tmp);
    sk_error err;
    if (fread(data, 1, (size_t)n, s->tmp) != (size_t)n) {
      fprintf(stderr, "skinkit %s: cannot write %s: read back failed\n", cmd, s->dest);
      bad = 1;
    } else if (sk_write_file_atomic(s->dest, data, (size_t)n, &err)) {
      fprintf(stderr, "skinkit %s: %s\n", cmd, err.message);
      bad = 1;
    }
  } else if (keep) {
    fprintf(stderr, "skinkit %s: cannot write %s: %s\n", cmd, s->dest, bad ? "write error" : "out of memory");
    bad = 1;
  }
  free(data);
  fclose(s->tmp);
  return bad ? 2 : 0;
}

int cli_run_command(const char* cmd, int (*run)(int, char**), int argc, char** argv) {
  json_sink s = {NULL, NULL, -1};
  if (cli_take_output(cmd, &argc, argv)) return 2;
  if (listed(cmd, k_json_commands) && take_json(cmd, &argc, argv, &s.dest)) return 2;
  if (sink_open(&s, cmd, argc, argv)) return 2;
  int rc = run(argc, argv);
  /* info lists every file it could read (exit 2 names the others): its lines are kept */
  int keep = rc == 0 || (rc == 2 && !strcmp(cmd, "info"));
  int wrc = sink_close(&s, cmd, keep);
  return rc ? rc : wrc;
}
