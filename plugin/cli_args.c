/* cli_args.c - strict command-line arguments for every skinkit command: whole-string numbers with ranges
 * (finite only), missing values, unknown options. An argument error is one line naming the flag and the value,
 * then "see skinkit CMD --help", and exit status 2 -- never the whole help text. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli_common.h"

int cli_arg_error(const char* cmd, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "skinkit %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nsee skinkit %s --help\n", cmd);
  va_end(ap);
  return 2;
}

const char* cli_arg_value(const char* cmd, int argc, char** argv, int* i) {
  if (*i + 1 >= argc) {
    cli_arg_error(cmd, "%s needs a value", argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

int cli_arg_unknown(const char* cmd, const char* arg) {
  if (arg[0] == '-' && arg[1]) return cli_arg_error(cmd, "unknown option %s", arg);
  return cli_arg_error(cmd, "unexpected argument \"%s\"", arg);
}

/* Text that strtod/strtoull would skip or read in part is refused here: leading blanks, an empty string. */
static int plain(const char* s) { return s && s[0] && !isspace((unsigned char)s[0]); }

int cli_parse_u32(const char* s, uint32_t lo, uint32_t hi, uint32_t* out) {
  if (!plain(s) || s[0] == '-' || s[0] == '+') return 0;
  for (const char* p = s; *p; ++p)
    if (*p < '0' || *p > '9') return 0;
  errno = 0;
  char* end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return 0;
  *out = (uint32_t)v;
  return 1;
}

int cli_parse_real(const char* s, double lo, double hi, unsigned open, double* out) {
  if (!plain(s)) return 0;
  errno = 0;
  char* end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(v)) return 0;
  if ((open & CLI_OPEN_LO) ? !(v > lo) : !(v >= lo)) return 0;
  if ((open & CLI_OPEN_HI) ? !(v < hi) : !(v <= hi)) return 0;
  *out = v;
  return 1;
}

int cli_arg_u32(const char* cmd, const char* flag, const char* s, uint32_t lo, uint32_t hi, uint32_t* out) {
  if (cli_parse_u32(s, lo, hi, out)) return 0;
  return cli_arg_error(cmd, "%s needs a whole number %u..%u, not \"%s\"", flag, lo, hi, s);
}

int cli_arg_real(const char* cmd, const char* flag, const char* s, double lo, double hi, unsigned open, double* out) {
  if (cli_parse_real(s, lo, hi, open, out)) return 0;
  return cli_arg_error(cmd, "%s needs a number %s%g, %g%s, not \"%s\"", flag, (open & CLI_OPEN_LO) ? "in (" : "in [",
                       lo, hi, (open & CLI_OPEN_HI) ? ")" : "]", s);
}

int cli_arg_float(const char* cmd, const char* flag, const char* s, double lo, double hi, unsigned open, float* out) {
  double v = 0.0;
  if (cli_arg_real(cmd, flag, s, lo, hi, open, &v)) return 2;
  *out = (float)v;
  return 0;
}

int cli_check_output_dir(const char* cmd, const char* path) {
  if (!path || !strcmp(path, "-")) return 0;
  const char* slash = strrchr(path, '/');
  if (!slash) return 0; /* the current folder */
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char* dir = malloc(n + 1);
  if (!dir) return 2;
  memcpy(dir, path, n);
  dir[n] = 0;
  struct stat st;
  int rc = 0;
  if (stat(dir, &st) != 0) {
    fprintf(stderr, "skinkit %s: cannot write %s: the folder %s does not exist\n", cmd, path, dir);
    rc = 2;
  } else if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "skinkit %s: cannot write %s: %s is not a folder\n", cmd, path, dir);
    rc = 2;
  }
  free(dir);
  return rc;
}

void cli_argv_drop(int* argc, char** argv, int i, int n) {
  memmove(argv + i, argv + i + n, (size_t)(*argc - i - n + 1) * sizeof *argv); /* argv[argc] (NULL) moves too */
  *argc -= n;
}

/* "--", the end of the options (POSIX guideline 10), for the commands whose parsers do not know it (validate and
 * report do): it is dropped, and each later argument that starts with '-' gets "./" in front (the same file), so
 * no parser takes it for an option. Returns where the options end (*argc when there is no "--"); 2 with no memory. */
static int end_of_options(const char* cmd, int* argc, char** argv, int* end) {
  *end = *argc;
  for (int i = 1; i < *argc; ++i)
    if (!strcmp(argv[i], "--")) {
      *end = i;
      break;
    }
  if (*end == *argc || !strcmp(cmd, "validate") || !strcmp(cmd, "report")) return 0;
  cli_argv_drop(argc, argv, *end, 1);
  for (int i = *end; i < *argc; ++i) {
    if (argv[i][0] != '-' || !argv[i][1]) continue;
    char* p = malloc(strlen(argv[i]) + 3); /* lives as long as argv: the process */
    if (!p) return 2;
    sprintf(p, "./%s", argv[i]);
    argv[i] = p;
  }
  return 0;
}

/* -o OUT / --output OUT / --output=OUT out of argv (before a "--"); OUT goes back as the last positional argument
 * (pack: as "-o OUT", its own spelling). 0, or 2 after one error. */
int cli_take_output(const char* cmd, int* argc, char** argv) {
  static char dash_o[] = "-o";
  static const char* const writers[] = {"convert", "bind", "weights", "sample", "pack"};
  int end = 0;
  if (end_of_options(cmd, argc, argv, &end)) return 2;
  int writer = 0;
  for (size_t k = 0; k < sizeof writers / sizeof writers[0]; ++k) writer |= !strcmp(cmd, writers[k]);
  if (!writer) return 0;
  char* out = NULL;
  for (int i = 1; i < end;) {
    char* v = NULL;
    int n = 1;
    if (!strncmp(argv[i], "--output=", 9)) {
      v = argv[i] + 9;
    } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
      if (i + 1 >= *argc) return cli_arg_error(cmd, "%s needs a value", argv[i]);
      v = argv[i + 1];
      n = 2;
    } else {
      ++i;
      continue;
    }
    if (!v[0]) return cli_arg_error(cmd, "--output= needs a file name");
    if (out) return cli_arg_error(cmd, "-o/--output given twice");
    out = v;
    cli_argv_drop(argc, argv, i, n);
    end -= n;
  }
  if (!out) return 0;
  if (!strcmp(cmd, "pack")) argv[(*argc)++] = dash_o;
  argv[(*argc)++] = out;
  argv[*argc] = NULL;
  return 0;
}

int cli_arg_json(const char* cmd, int argc, char** argv, int i, const char** dest) {
  if (!strncmp(argv[i], "--json=", 7)) {
    if (!argv[i][7]) {
      cli_arg_error(cmd, "--json= needs a file name (or -)");
      return -1;
    }
    *dest = argv[i] + 7;
    return 1;
  }
  if (strcmp(argv[i], "--json")) return 0;
  if (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1])) { /* nothing or an option next: stdout */
    *dest = "-";
    return 1;
  }
  *dest = argv[i + 1];
  return 2;
}

int cli_gltf_name(const char* path) {
  const char* slash = strrchr(path, '/');
  const char* dot = strrchr(slash ? slash : path, '.');
  return dot && (!strcasecmp(dot, ".glb") || !strcasecmp(dot, ".gltf") || !strcasecmp(dot, ".vrm"));
}

int cli_check_model_format(const char* cmd, const char* path) {
  const char* slash = strrchr(path, '/');
  const char* dot = strrchr(slash ? slash + 1 : path, '.');
  if (!dot)
    return cli_arg_error(cmd, "OUT %s has no extension to pick the format from (.glb, .gltf, .fbx, .dae)", path);
  if (!sk_export_extension_supported(dot))
    return cli_arg_error(cmd, "%s: cannot write \"%s\" files (glb, gltf, fbx, dae; vrm from a VRM file)", path, dot);
  return 0;
}

int cli_check_model_output(const char* cmd, const char* path) {
  if (!strcmp(path, "-"))
    return cli_arg_error(cmd, "OUT \"-\": %s writes a file, not stdout (name the file)", cmd);
  return cli_check_output_dir(cmd, path);
}
