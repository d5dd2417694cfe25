/* cli_main.c - `skinkit` command dispatcher: a table of sub-commands, --help, --version. */
#define _GNU_SOURCE /* RTLD_DEFAULT, MADV_HUGEPAGE, setenv */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_skf.h"
#include "skinkit.h"

static const cli_command k_commands[] = {
    {"info", "meshes, vertices, joints, influence histogram, weight sums, animations", cli_info_usage, cli_info},
    {"validate", "check skin weights and bind matrices of files and folders (exit 0/1/2)", cli_validate_usage,
     cli_validate},
    {"convert", "write a scene as .glb/.gltf/.dae/.fbx (normalize, limit, prune)", cli_convert_usage, cli_convert},
    {"report", "merge `validate --jsonl` pieces (sharded runs) into one summary JSON", cli_report_usage, cli_report},
    {"sample", "write the generated cylinder rig as a skinned .glb/.gltf/.dae file", cli_sample_usage, cli_sample},
    {"demo", "the sample job: pose the generated cylinder rig, print LBS/DQS/COR figures", cli_demo_usage, cli_demo},
    {"pack", "compress the skin of a model into an .skf file (8/16-bit weights, joint table)", cli_pack_usage,
     cli_pack},
    {"unpack", "decode an .skf file: joint table and per-vertex joints/weights (text or --json)", cli_unpack_usage,
     cli_unpack},
    {"weights", "edit skin weights: normalize, limit, prune, quantize, smooth, rogue removal, mirror",
     cli_weights_usage, cli_weights},
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

/* The real path of p's folder and p's last name, or NULL (malloc'd). */
static char* folder_and_name(const char* p) {
  const char* slash = strrchr(p, '/');
  const char* name = slash ? slash + 1 : p;
  char* dir = slash ? strndup(p, slash == p ? 1 : (size_t)(slash - p)) : strdup(".");
  char* real = dir ? realpath(dir, NULL) : NULL;
  char* out = real ? malloc(strlen(real) + strlen(name) + 2) : NULL;
  if (out) sprintf(out, "%s/%s", real, name);
  free(dir);
  free(real);
  return out;
}

int cli_same_target(const char* a, const char* b) {
  if (cli_same_file(a, b)) return 1;
  char *x = folder_and_name(a), *y = folder_and_name(b);
  const int same = x && y && !strcmp(x, y);
  free(x);
  free(y);
  return same;
}

/* The reading options (cli_load.c) after the usage of a command that reads models. */
static void print_load_usage(const char* cmd) {
  if (cli_is_loader(cmd)) fputs(cli_load_usage, stdout);
  if (cli_is_loader(cmd) && strcmp(cmd, "validate") != 0) fputs(cli_weld_usage, stdout);
}

static void usage(FILE* f) {
  fprintf(f, "usage: skinkit <command> [options]   (skinkit <command> --help for details)\n\ncommands:\n");
  for (size_t i = 0; i < k_command_count; ++i) fprintf(f, "  %-10s %s\n", k_commands[i].name, k_commands[i].summary);
  fprintf(f, "\n  --help      this text\n  --version   library version and ABI\n");
}

/* Settings for a one-shot process on a few cores (issue 20: `skinkit bind` spent as much time in the kernel as
 * in its own code). glibc returns every freed block over 128 KiB to the kernel at once, so each array of a bind
 * that reuses the space of a freed one faults its pages in again: keep freed memory in the process (it exits soon).
 * A thread's first allocation made it an arena of its own, a heap mapped apart whose blocks the huge-page advice
 * below does not reach: the bind's BVH, built on the second core while the first orders the heat system, faulted
 * ~1,200 4 KiB pages there (38k-vertex cylinder: 3,700 -> 2,400 faults with one arena). One arena it is; the
 * threads' few large allocations do not contend. */
static void tune_process(void) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_ARENA_MAX, 1);
#endif
}

#if defined(__GLIBC__) && defined(__linux__)
/* OpenBLAS starts a worker thread per further core when it is loaded, and each spins on sched_yield for about
 * 0.1 s before it sleeps (a 38k-vertex bind: ~70 ms of system time); the library runs the BLAS on one thread while
 * it solves (core/chol.c skc_blas_serial_begin) and the CLI calls it for nothing else. The library loads CHOLMOD,
 * and so the BLAS, when it first solves (core/chol_lazy.c): until then OPENBLAS_NUM_THREADS=1 is enough, and
 * OpenBLAS starts no worker. A BLAS already loaded (a build linking it) is asked for one thread and its workers
 * stopped (both entry points exported by OpenBLAS; another BLAS has neither). A thread count the user set stays. */
static void one_blas_thread(void) {
  if (getenv("OPENBLAS_NUM_THREADS") || getenv("GOTO_NUM_THREADS")) return;
  void (*set_threads)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  int (*shutdown)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
  if (!set_threads) {
    (void)setenv("OPENBLAS_NUM_THREADS", "1", 1);
    return;
  }
  if (!shutdown) return;
  set_threads(1);
  (void)shutdown(); /* a later threaded call would start them again: none comes */
}

/* Transparent huge pages for the heap: every command fills fresh memory (binding ~1 KB per vertex: the heat
 * system's factor, the BVH, candidate arrays; reading and writing a model its arrays and buffers) and on virtual
 * machines a 4 KiB page fault costs ~10 us (a 38k-vertex bind: 7,500 faults, 1,900 with huge pages; `weights
 * --smooth 3` on CesiumMan_subdiv2: 9,500 and 1,000, 228 -> 85 ms). Where the kernel gives huge pages only to memory
 * that asks (enabled = madvise, the common default), the heap is grown once by a large pad and that range advised;
 * the untouched part costs address space, not memory, and the trim threshold keeps it (glibc's tunable
 * glibc.malloc.hugetlb=1 does the same per growth, but is read only when a process starts: the CLI ran itself a
 * second time for it, ~30 ms of start-up on a paravirtualized guest). Under strict overcommit (mode 2) nothing is
 * reserved: the pad would count against the commit limit in every process (and in validate's forked workers).
 * Pads that the system refuses (RLIMIT_DATA, RLIMIT_AS) are tried smaller; none taken leaves malloc as it was. */
static void heap_in_huge_pages(size_t largest_pad) {
  const char* tunables = getenv("GLIBC_TUNABLES");
  if (tunables && strstr(tunables, "hugetlb")) return; /* the user's choice */
  FILE* f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char mode[128] = "";
  if (f) {
    if (!fgets(mode, sizeof mode, f)) mode[0] = 0;
    fclose(f);
  }
  if (!strstr(mode, "[madvise]")) return; /* [always]: nothing to ask; [never]: nothing to get */
  f = fopen("/proc/sys/vm/overcommit_memory", "r");
  const int strict = f && fgetc(f) == '2'; /* every process's pad would count against the commit limit */
  if (f) fclose(f);
  if (strict) return;
  static const size_t pads[] = {(size_t)1 << 30, (size_t)256 << 20, (size_t)128 << 20, (size_t)64 << 20};
  const uintptr_t huge = (uintptr_t)2 << 20;
  for (size_t i = 0; i < sizeof pads / sizeof pads[0]; i++) {
    if (pads[i] > largest_pad) continue;
    mallopt(M_TRIM_THRESHOLD, (int)(pads[i] + ((size_t)512 << 20)));
    mallopt(M_TOP_PAD, (int)pads[i]);
    char* p = malloc((size_t)4 << 20); /* larger than the heap's top: grows it by the pad (under the mmap threshold) */
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = (uintptr_t)sbrk(0) & ~(huge - 1);
    int grown = p && b > a && b - a >= pads[i] / 2; /* not so when malloc fell back to mmap */
    if (grown) (void)madvise((void*)a, b - a, MADV_HUGEPAGE);
    free(p);
    mallopt(M_TOP_PAD, 128 << 10);
    if (grown) return;
  }
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}
#endif

/* The settings of a command's process, in this process: its memory's, and the BLAS's for bind. Bind's pad is
 * smaller: its large arrays are advised on their own (core/mem.c, CHOLMOD's allocator) and with a 1 GiB pad the
 * 615k-vertex cylinder's peak grew from 349-354 MB to 361-420 MB (0.585 -> 0.68 KB a vertex, issue 20's limit
 * 0.6); with 128 MiB it stays at 348-354 MB and the 38k bind is as fast. Reading and writing keep the 1 GiB pad
 * (CesiumMan_subdiv2 to .fbx: 1,490 faults, 5,774 with 128 MiB). */
static void tune_command(const char* cmd) {
#if defined(__GLIBC__) && defined(__linux__)
  const int bind = !strcmp(cmd, "bind");
  if (bind) one_blas_thread();
  heap_in_huge_pages(bind ? (size_t)128 << 20 : (size_t)1 << 30);
#else
  (void)cmd;
#endif
}

/* SIGINT / SIGTERM / SIGHUP during a write: its temporary file removed (the previous OUT stays as it was, and
 * nothing is left beside it), then the signal's own end of the process. */
static void on_stop_signal(int sig) {
  sk_remove_temporary_files();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Writes past a file size limit (ulimit -f) fail with EFBIG and the usual error line instead of SIGXFSZ ending the
 * process; a closed pipe on standard output (`| head`) is an error of the write (exit 2 by finish_stdout) rather than
 * SIGPIPE; a stop signal cleans up first. */
static void install_signals(void) {
  signal(SIGXFSZ, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  const int stops[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof stops / sizeof stops[0]; ++i) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue; /* nohup, a background job */
    sigaction(stops[i], &sa, NULL);
  }
}

/* A command's exit code, or 2 when what it printed could not all be written (disk full, /dev/full, a closed pipe):
 * an empty or cut report must not pass for a clean one. */
static int finish_stdout(const char* cmd, int rc) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
  const int e = errno;
  if (e == EPIPE)
    fprintf(stderr, "skinkit %s: standard output was closed before everything was written\n", cmd);
  else
    fprintf(stderr, "skinkit %s: cannot write standard output: %s\n", cmd, e ? strerror(e) : "write error");
  return 2;
}

int main(int argc, char** argv) {
  tune_process();
  install_signals();
  cli_guard_terminal();
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
      tune_command(argv[1]);
      for (int a = 2; a < argc; ++a)
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
          fputs(k_commands[i].usage, stdout);
          print_load_usage(k_commands[i].name);
          return 0;
        }
      int sub_argc = argc - 1;
      if (cli_take_load_flags(argv[1], &sub_argc, argv + 1)) return 2;
      return finish_stdout(argv[1], cli_run_command(argv[1], k_commands[i].run, sub_argc, argv + 1));
    }
  fprintf(stderr, "skinkit: unknown command \"%s\"\n", argv[1]);
  usage(stderr);
  return 2;
}
