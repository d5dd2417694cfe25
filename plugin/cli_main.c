/* cli_main.c - `skinkit` command dispatcher: a table of sub-commands, --help, --version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"
#include "cli_skf.h"
#include "skinkit.h"

static const cli_command k_commands[] = {
    {"info", "meshes, vertices, joints, influence histogram, weight sums, animations", cli_info_usage, cli_info},
    {"validate", "check skin weights and bind matrices of files and folders (exit 0/1/2)", cli_validate_usage,
     cli_validate},
    {"convert", "write a scene as .glb/.gltf/.dae (normalize, limit, prune)", cli_convert_usage, cli_convert},
    {"report", "merge `validate --jsonl` pieces (sharded runs) into one summary JSON", cli_report_usage, cli_report},
    {"sample", "write the generated cylinder rig as a skinned .glb/.gltf/.dae file", cli_sample_usage, cli_sample},
    {"demo", "the sample job: pose the generated cylinder rig, print LBS/DQS figures", cli_demo_usage, cli_demo},
    {"pack", "compress the skin of a model into an .skf file (8/16-bit weights, joint table)", cli_pack_usage, cli_pack},
    {"unpack", "decode an .skf file: joint table and per-vertex joints/weights (text or --json)", cli_unpack_usage, cli_unpack},
    {"weights", "edit skin weights: normalize, limit, prune, quantize, smooth, rogue removal, mirror", cli_weights_usage,
     cli_weights},
    {"bind", "automatic skin weights for every mesh (robust, heat, nearest, capsule, delaunay) + report",
     cli_bind_usage, cli_bind},
    /* SK_CLI_SECTION commands: add rows above this line */
};
static const size_t k_command_count = sizeof k_commands / sizeof k_commands[0];

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one (stray continuation byte, overlong
 * form, surrogate, past U+10FFFF, cut short). */
static int utf8_length(const unsigned char* p) {
  if (p[0] < 0x80) return 1;
  const int n = p[0] >= 0xf5 ? 0 : p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
  for (int i = 1; i < n; ++i)
    if ((p[i] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
  if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) return 0;
  if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))) return 0;
  return n;
}

void cli_json_string(FILE* f, const char* s) {
  fputc('"', f);
  for (const unsigned char* p = (const unsigned char*)(s ? s : ""); *p;) {
    int n = utf8_length(p);
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\u%04x", *p);
    else if (n == 0)
      fputs("\\ufffd", f); /* an invalid byte */
    else
      fwrite(p, 1, (size_t)n, f);
    p += n ? n : 1;
  }
  fputc('"', f);
}

void cli_utf8_fputs(FILE* f, const char* s) {
  for (const unsigned char* p = (const unsigned char*)s; *p;) {
    int n = utf8_length(p);
    if (n)
      fwrite(p, 1, (size_t)n, f);
    else
      fputs("\xef\xbf\xbd", f); /* U+FFFD */
    p += n ? n : 1;
  }
}

int cli_same_file(const char* a, const char* b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The reading options (cli_load.c) after the usage of a command that reads models. */
static void print_load_usage(const char* cmd) {
  if (cli_is_loader(cmd)) fputs(cli_load_usage, stdout);
}

static void usage(FILE* f) {
  fprintf(f, "usage: skinkit <command> [options]   (skinkit <command> --help for details)\n\ncommands:\n");
  for (size_t i = 0; i < k_command_count; ++i) fprintf(f, "  %-10s %s\n", k_commands[i].name, k_commands[i].summary);
  fprintf(f, "\n  --help      this text\n  --version   library version and ABI\n");
}

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    if (argc > 2)
      for (size_t i = 0; i < k_command_count; ++i)
        if (!strcmp(argv[2], k_commands[i].name)) {
          fputs(k_commands[i].usage, stdout);
          print_load_usage(k_commands[i].name);
          return 0;
        }
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("skinkit %s (ABI %u.%u, header ABI %d.%d)\n", sk_version_string(), sk_abi_major(), sk_abi_minor(),
           SK_ABI_MAJOR, SK_ABI_MINOR);
    return sk_abi_major() == SK_ABI_MAJOR ? 0 : 2;
  }
  for (size_t i = 0; i < k_command_count; ++i)
    if (!strcmp(argv[1], k_commands[i].name)) {
      for (int a = 2; a < argc; ++a)
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
          fputs(k_commands[i].usage, stdout);
          print_load_usage(k_commands[i].name);
          return 0;
        }
      int sub_argc = argc - 1;
      if (cli_take_load_flags(argv[1], &sub_argc, argv + 1)) return 2;
      return cli_run_command(argv[1], k_commands[i].run, sub_argc, argv + 1);
    }
  fprintf(stderr, "skinkit: unknown command \"%s\"\n", argv[1]);
  usage(stderr);
  return 2;
}
