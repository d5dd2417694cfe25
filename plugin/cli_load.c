/* cli_load.c - how the CLI reads untrusted files and replaces output files (uses only skinkit.h).
 *
 * Every command that reads a model loads it contained by default: the library reads it once in a child process
 * (sk_load_options.isolate) with a time limit and a memory limit, so an importer crash, hang or runaway
 * allocation on a damaged file becomes one error line and exit status 2, never a signal. Non-regular files
 * (FIFOs, devices, sockets) are refused before anything opens them. Output files are written in memory and then
 * replaced atomically (sk_write_file_atomic). */
#define _DEFAULT_SOURCE /* open_memstream, setrlimit */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"
#include "skinkit.h"

cli_load_config cli_load_cfg = {1, -1.0, 0, 0, -1};

const char cli_load_usage[] =
    "  Reading (every command that reads a model): each file is read once in an isolated child process first,\n"
    "  so a damaged file that crashes or hangs the importer is refused with exit 2 and one error line. A .fbx or\n"
    "  .dae of more than 4096 joints, meshes and objects is written by Assimp in such a process too, within the\n"
    "  same time limit (its writers slow down with the square of the joints); one whose nodes lie more than 1024\n"
    "  levels deep is refused.\n"
    "  --timeout S       give up on a file after S seconds (default 60, validate 300; 0 = no limit)\n"
    "  --max-memory MB   memory the reader may use per file (default 4096, or 32 x the file size if larger;\n"
    "                    0 = no limit)\n"
    "  --no-isolate      read (and write) in this process (faster; trusted files only)\n"
    "  FIFOs, devices and sockets are refused.\n"
    "  --                the end of the options: every argument after it is a file name (\"info -- -a.glb\")\n";

const char cli_weld_usage[] =
    "  --keep-corners    keep the vertices Assimp's FBX, Collada, .X, OBJ, MD5, Ogre and B3D readers give every\n"
    "                    face corner apart. By default convert, bind, weights, pack and unpack merge the ones that\n"
    "                    are the same in everything kept of them (position, normal, tangent, texture coordinates,\n"
    "                    colour, blend shapes, skin weights), bit for bit, so that what they write is not separate\n"
    "                    triangles; not where OUT is IN's own .fbx or .dae format (an edit of IN, its vertices as\n"
    "                    they are), nor for glTF input (kept as stored); info shows the file as read.\n"
    "  --merge-corners   merge them in every case (also for info and for a .fbx / .dae edit, then written anew)\n";

static const char* const k_loaders[] = {"info", "validate", "convert", "pack", "unpack", "weights", "bind"};

int cli_is_loader(const char* cmd) {
  for (size_t i = 0; i < sizeof k_loaders / sizeof k_loaders[0]; ++i)
    if (!strcmp(cmd, k_loaders[i])) return 1;
  return 0;
}

int cli_take_load_flags(const char* cmd, int* argc, char** argv) {
  if (!cli_is_loader(cmd)) return 0;
  int w = 1, done = 0; /* done: past "--", every argument is a name */
  for (int r = 1; r < *argc; ++r) {
    const char* a = argv[r];
    if (done || !strcmp(a, "--")) {
      done = 1;
      argv[w++] = argv[r];
    } else if (!strcmp(a, "--no-isolate")) {
      cli_load_cfg.isolate = 0;
    } else if ((!strcmp(a, "--merge-corners") || !strcmp(a, "--keep-corners")) && strcmp(cmd, "validate") != 0) {
      cli_load_cfg.weld = !strcmp(a, "--merge-corners");
    } else if (!strcmp(a, "--timeout")) {
      const char* v = cli_arg_value(cmd, *argc, argv, &r);
      if (!v || cli_arg_real(cmd, a, v, 0.0, 1e7, 0, &cli_load_cfg.timeout)) return 2;
    } else if (!strcmp(a, "--max-memory")) {
      const char* v = cli_arg_value(cmd, *argc, argv, &r);
      if (!v || cli_arg_u32(cmd, a, v, 0, 0xffffffffu, &cli_load_cfg.max_memory_mb)) return 2;
      cli_load_cfg.memory_set = 1;
    } else {
      argv[w++] = argv[r];
    }
  }
  *argc = w;
  argv[w] = NULL;
  return 0;
}

uint32_t cli_memory_limit_mb(const char* path) {
  if (cli_load_cfg.memory_set) return cli_load_cfg.max_memory_mb;
  struct stat st;
  uint64_t mb = 4096;
  if (path && stat(path, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size / (1u << 20) * 32 > mb)
    mb = (uint64_t)st.st_size / (1u << 20) * 32;
  return mb > 0xffffffffu ? 0xffffffffu : (uint32_t)mb;
}

uint64_t cli_address_space(int peak) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long kib = 0;
  const char* key = peak ? "VmPeak: %llu kB" : "VmSize: %llu kB";
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, key, &kib) == 1) break;
  if (f) fclose(f);
  return (uint64_t)kib << 10;
}

void cli_limit_memory(uint32_t mb) {
  if (!mb) return;
#if defined(__GLIBC__)
  malloc_trim(0); /* free heap (main's huge-page pad) is room the limit, which counts address space, does not see */
#endif
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0) return;
  rlim_t cap = (rlim_t)(cli_address_space(0) + ((uint64_t)mb << 20));
  if (rl.rlim_max != RLIM_INFINITY && cap > rl.rlim_max) cap = rl.rlim_max;
  rl.rlim_cur = cap;
  (void)setrlimit(RLIMIT_AS, &rl);
}

int cli_check_input(const char* cmd, const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "skinkit %s: %s: cannot open: %s\n", cmd, path, strerror(errno));
    return 2;
  }
  if (S_ISREG(st.st_mode)) return 0;
  fprintf(stderr, "skinkit %s: %s: %s, not a regular file: refused\n", cmd, path,
          S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                                                      : "a device");
  return 2;
}

static int same_ext(const char* a, const char* b, const char* ext) {
  const size_t la = strlen(a), lb = strlen(b), le = strlen(ext);
  return la >= le && lb >= le && !strcasecmp(a + la - le, ext) && !strcasecmp(b + lb - le, ext);
}

int cli_stdout_aside(void) {
  fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  if (saved >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    close(saved);
    return -1;
  }
  return saved;
}

void cli_stdout_back(int saved) {
  if (saved < 0) return;
  fflush(stdout); /* what the reader printed is in stdout's buffer: it goes to stderr too */
  (void)dup2(saved, STDOUT_FILENO);
  close(saved);
}

sk_result cli_scene_save(sk_scene* s, const char* path, const sk_save_options* o, sk_error* err) {
  const int saved = cli_stdout_aside();
  const sk_result rc = sk_scene_save(s, path, o, err);
  cli_stdout_back(saved);
  return rc;
}

/* Whether the scene read from in is welded (sk_scene_weld): --merge-corners / --keep-corners, else by default for the
 * commands that write what they read (unpack: its model, so that it welds as pack did), unless out is in's own .fbx or
 * .dae format, which the library writes as an edit of in (its own vertex list kept; a welded scene would be written
 * anew). */
static int want_weld(const char* cmd, const char* in, const char* out) {
  if (cli_load_cfg.weld >= 0) return cli_load_cfg.weld;
  if (!strcmp(cmd, "info") || !strcmp(cmd, "validate")) return 0;
  return !(out && (same_ext(in, out, ".fbx") || same_ext(in, out, ".dae")));
}

/* Each clip's key times times the joints: the keys Assimp's writers would write. */
static uint64_t joint_keys(const sk_scene* s, uint32_t joints) {
  uint64_t keys = 0;
  for (uint32_t a = 0; a < sk_scene_animation_count(s); ++a) {
    size_t n = 0;
    if (sk_scene_animation_key_times(s, a, NULL, 0, &n, NULL) == SK_OK) keys += (uint64_t)n * joints;
  }
  return keys;
}

void cli_guard_save(const sk_scene* s, sk_save_options* o) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  const uint32_t joints = sk ? sk_skeleton_joint_count(sk) : 0;
  const uint64_t nodes = (uint64_t)joints + sk_scene_mesh_count(s) + sk_scene_object_count(s);
  o->isolate = cli_load_cfg.isolate != 0 &&
               (nodes > CLI_ISOLATED_WRITE_NODES || joint_keys(s, joints) > CLI_ISOLATED_WRITE_KEYS);
  o->timeout_seconds = (float)(cli_load_cfg.timeout >= 0.0 ? cli_load_cfg.timeout : 60.0);
}

int cli_load_scene(const char* cmd, const char* path, const char* out_path, sk_scene** out) {
  *out = NULL;
  if (cli_check_input(cmd, path)) return 2;
  cli_set_input(path); /* what the messages after the read name */
  sk_load_options lo;
  memset(&lo, 0, sizeof lo);
  lo.size = sizeof lo;
  lo.isolate = cli_load_cfg.isolate != 0;
  lo.timeout_seconds = (float)(cli_load_cfg.timeout >= 0.0 ? cli_load_cfg.timeout : 60.0);
  lo.max_memory_mb = cli_memory_limit_mb(path);
  /* an armature beside an unweighted mesh is what bind is for; info shows the joints bind would choose; convert
   * keeps such an armature (and other plain nodes) in what it writes */
  lo.skeleton_from_nodes = !strcmp(cmd, "bind") || !strcmp(cmd, "info") || !strcmp(cmd, "convert");
  if (!strcmp(cmd, "convert")) lo.skeleton_from_nodes |= SK_NODES_ANIMATED; /* rigid motion kept (glTF) */
  sk_error err;
  const int saved = cli_stdout_aside();
  const int failed = sk_scene_load(path, &lo, out, &err) != SK_OK;
  cli_stdout_back(saved);
  if (failed) {
    fprintf(stderr, "skinkit %s: %s\n", cmd, err.message);
    *out = NULL;
    return 2;
  }
  /* what the reader could not take from a glTF IN (point or line primitives, an index past its table) a glTF OUT
   * edited in place keeps as the source has it, unread, and says nothing at save: said here */
  if (out_path && sk_scene_note(*out) && cli_gltf_name(path) && cli_gltf_name(out_path))
    fprintf(stderr, "skinkit %s: warning: %s: %s\n", cmd, path, sk_scene_note(*out));
  if (want_weld(cmd, path, out_path) && sk_scene_weld(*out, NULL, &err)) {
    fprintf(stderr, "skinkit %s: %s: %s\n", cmd, path, err.message);
    sk_scene_destroy(*out);
    *out = NULL;
    return 2;
  }
  return 0;
}

FILE* cli_out_open(cli_out* o, const char* path) {
  memset(o, 0, sizeof *o);
  o->path = path;
  if (!strcmp(path, "-")) return o->f = stdout;
  return o->f = open_memstream(&o->data, &o->size);
}

int cli_out_close(cli_out* o, const char* cmd) {
  if (!o->f) {
    fprintf(stderr, "skinkit %s: cannot write %s: out of memory\n", cmd, o->path);
    return 2;
  }
  if (o->f == stdout) return fflush(stdout) == 0 ? 0 : 2;
  int bad = fclose(o->f) != 0;
  sk_error err;
  if (bad) {
    fprintf(stderr, "skinkit %s: cannot write %s: out of memory\n", cmd, o->path);
  } else if (sk_write_file_atomic(o->path, o->data, o->size, &err)) {
    fprintf(stderr, "skinkit %s: %s\n", cmd, err.message);
    bad = 1;
  }
  free(o->data);
  o->data = NULL;
  return bad ? 2 : 0;
}

/* The "; " that ends the note at p (none inside parentheses: a note may list things so), or NULL. */
static const char* note_end(const char* p) {
  for (int depth = 0; *p; ++p) {
    depth += *p == '(' ? 1 : *p == ')' && depth ? -1 : 0;
    if (!depth && p[0] == ';' && p[1] == ' ') return p;
  }
  return NULL;
}

void cli_save_notes(const char* cmd, const char* out, const char* message, const char* limit_hint,
                    const char* sum_hint) {
  for (const char* p = message; p && *p;) {
    const char* end = note_end(p);
    char note[2048];
    snprintf(note, sizeof note, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
    const int gltf = strncmp(note, "glTF: ", 6) == 0;
    const char* hint = !gltf                                                    ? NULL
                       : strstr(note, "their largest are written")              ? limit_hint
                       : strstr(note, "written renormalized, as glTF requires") ? sum_hint
                                                                                : NULL;
    cli_file_warning(cmd, out, "%s%s", note, hint ? hint : "");
    p = end ? end + 2 : NULL;
  }
}
