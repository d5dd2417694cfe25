/* cli_validate.c - `skinkit validate PATH...`: files and folders checked in parallel.
 *
 * Each file is read in its own worker process (fork), which sends its result back through a pipe. Importers
 * of untrusted files can crash (Assimp 5.2.5 does, e.g. on some damaged .md5mesh files, see the import fuzz
 * target) and keep global state (its C API has one shared error string): a crashed worker becomes an "error"
 * row naming the signal, and the run goes on. */
#define _DEFAULT_SOURCE /* fork, poll, strsignal */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "skinkit.h"

const char cli_validate_usage[] =
    "usage: skinkit validate PATH... [--tolerance T] [--max-influences N] [--json [OUT|-]] [--jsonl]\n"
    "                        [--jobs N] [--files-from FILE|-] [--files0-from FILE|-] [--allow-unskinned]\n"
    "                        [--list] [-- PATH...]\n"
    "  Checks every file (folders recursively, every extension Assimp reads, of XML files only *.mesh.xml; Ogre\n"
    "  skeletons are read with their mesh): weight sums (off by more than T, default 1e-3), NaN/Inf, negative,\n"
    "  unweighted, more than N influences, bad joints, duplicates, singular/non-rigid inverse binds. glTF: the\n"
    "  file's own JOINTS_n/WEIGHTS_n values (normalized u8/u16 weights must sum to exactly 255/65535), and each\n"
    "  skin's joints must be distinct and have a common root that skin.skeleton (when set) is or lies above.\n"
    "  Exit 0: clean; 1: findings; 2: a file could not be read or has no skin (unless --allow-unskinned).\n"
    "  --json OUT   summary JSON to OUT ('-', or nothing after --json = stdout; --json=OUT for a name that\n"
    "               starts with '-'); --jsonl: one JSON object per file per line on stdout\n"
    "               (schemas skinkit.validate and skinkit.validate.file, docs/json.md)\n"
    "  --jobs N     files checked at once (default: CPU count). Each file is read in its own worker process,\n"
    "               so an importer crash on a damaged file becomes an error row and the run goes on.\n"
    "  --files-from FILE  paths to check, one a line ('-' = stdin); --files0-from: NUL-separated (any name)\n"
    "  --list       check nothing: print what would be checked on stdout, each record ended by a NUL byte: 'F'\n"
    "               and the path of a file to check, or 'E' and the --jsonl row of an error of the walk (below)\n"
    "  Folders: symbolic links to a folder already walked are not followed again, a file reached through two\n"
    "  links is checked once, FIFOs, devices and sockets are skipped with a note. A folder that cannot be read, a\n"
    "  model name that cannot be opened (a broken link), a folder more than 64 levels below PATH (not read) and a\n"
    "  walk that ran past --timeout (below; it bounds collecting files too) are error rows of their own (path and\n"
    "  reason, exit 2). --json OUT is replaced atomically. Workers get the --max-memory limit.\n";

typedef struct mesh_row {
  char* name;
  sk_mesh_report r;
} mesh_row;

typedef struct file_result {
  const char* path;
  int status; /* 0 ok, 1 findings, 2 error */
  char error[SK_ERROR_MESSAGE_SIZE];
  char note[320]; /* what the reader could not take (point or line primitives, whose weights are not checked) */
  uint32_t mesh_count;
  mesh_row* meshes;
} file_result;

typedef struct job {
  sk_validate_options opts;
  int allow_unskinned;
} job;

static void check_file(job* j, file_result* fr) {
  sk_error err;
  sk_scene* s = NULL;
  const int saved = cli_stdout_aside(); /* Assimp's readers print: stdout is the report's */
  const int failed = sk_scene_load(fr->path, NULL, &s, &err) != SK_OK;
  cli_stdout_back(saved);
  if (failed) {
    fr->status = 2;
    snprintf(fr->error, sizeof fr->error, "%s", err.message);
    return;
  }
  snprintf(fr->note, sizeof fr->note, "%s", sk_scene_note(s) ? sk_scene_note(s) : "");
  uint32_t nm = sk_scene_mesh_count(s);
  sk_mesh_report* reps = calloc(nm ? nm : 1, sizeof *reps);
  fr->meshes = calloc(nm ? nm : 1, sizeof *fr->meshes);
  if (!reps || !fr->meshes) {
    free(reps);
    sk_scene_destroy(s);
    fr->status = 2;
    snprintf(fr->error, sizeof fr->error, "%s: out of memory", fr->path);
    return;
  }
  for (uint32_t m = 0; m < nm; ++m) reps[m].size = sizeof *reps;
  uint32_t findings = 0;
  int rc = sk_scene_validate(s, &j->opts, reps, nm, &findings, &err);
  if (rc == SK_ERR_NO_SKIN) {
    fr->status = j->allow_unskinned ? 0 : 2;
    snprintf(fr->error, sizeof fr->error, "%s", err.message);
  } else if (rc) {
    fr->status = 2;
    snprintf(fr->error, sizeof fr->error, "%s", err.message);
  } else {
    fr->status = findings ? 1 : 0;
    for (uint32_t m = 0; m < nm; ++m) {
      if (!reps[m].skinned) continue;
      mesh_row* row = &fr->meshes[fr->mesh_count++];
      const char* n = sk_scene_mesh_name(s, m);
      row->name = malloc(strlen(n) + 1);
      if (row->name) strcpy(row->name, n);
      row->r = reps[m];
    }
  }
  free(reps);
  sk_scene_destroy(s);
}

/* ---- worker processes ---- */

/* Wire format of one result (native byte order, same binary on both ends): status, error[], mesh_count, then per
 * mesh a name length, the name and the sk_mesh_report. */
typedef struct buf {
  char* p;
  size_t n, cap;
} buf;

static int buf_put(buf* b, const void* data, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + n) cap *= 2;
    char* p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
  return 0;
}

static void serialize(const file_result* fr, buf* b) {
  buf_put(b, &fr->status, sizeof fr->status);
  buf_put(b, fr->error, sizeof fr->error);
  buf_put(b, fr->note, sizeof fr->note);
  buf_put(b, &fr->mesh_count, sizeof fr->mesh_count);
  for (uint32_t m = 0; m < fr->mesh_count; ++m) {
    uint32_t len = fr->meshes[m].name ? (uint32_t)strlen(fr->meshes[m].name) : 0;
    buf_put(b, &len, sizeof len);
    buf_put(b, fr->meshes[m].name, len);
    buf_put(b, &fr->meshes[m].r, sizeof fr->meshes[m].r);
  }
}

static int take(const buf* b, size_t* at, void* out, size_t n) {
  if (*at + n > b->n) return -1;
  memcpy(out, b->p + *at, n);
  *at += n;
  return 0;
}

static int deserialize(const buf* b, file_result* fr) {
  size_t at = 0;
  uint32_t count = 0;
  if (take(b, &at, &fr->status, sizeof fr->status) || take(b, &at, fr->error, sizeof fr->error) ||
      take(b, &at, fr->note, sizeof fr->note) || take(b, &at, &count, sizeof count) || fr->status < 0 ||
      fr->status > 2 || count > (1u << 24))
    return -1;
  fr->error[sizeof fr->error - 1] = 0;
  fr->note[sizeof fr->note - 1] = 0;
  fr->meshes = calloc(count ? count : 1, sizeof *fr->meshes);
  if (!fr->meshes) return -1;
  for (uint32_t m = 0; m < count; ++m) {
    uint32_t len;
    if (take(b, &at, &len, sizeof len) || len > b->n - at) return -1;
    mesh_row* row = &fr->meshes[fr->mesh_count];
    if (!(row->name = malloc((size_t)len + 1))) return -1;
    take(b, &at, row->name, len);
    row->name[len] = 0;
    fr->mesh_count++;
    if (take(b, &at, &row->r, sizeof row->r)) return -1;
  }
  return at == b->n ? 0 : -1;
}

typedef struct worker {
  pid_t pid;
  int fd;
  size_t index;
  buf data;
  struct timespec start;
} worker;

static double since(const struct timespec* t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void write_all(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

/* The library maps Assimp when a file first needs it (~10 MB of address space, the library's and not the file's):
 * asking whether the file's extension is supported does that here, before a worker's memory limit. */
static void reader_ready(const char* path) {
  const char* dot = strrchr(path, '.');
  if (dot) (void)sk_import_extension_supported(dot);
}

/* A reader outlives nothing: when validate itself is killed (a batch shard past its limit, a job cancelled), its
 * readers go too instead of running on until the file is read (Linux; elsewhere they finish on their own). */
static void die_with_parent(pid_t parent) {
#ifdef __linux__
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0); /* the parent died before the request took effect */
#else
  (void)parent;
#endif
}

static int spawn(worker* w, job* j, file_result* fr, size_t index) {
  reader_ready(fr->path);
  int fds[2];
  if (pipe(fds) != 0) return -1;
  fflush(NULL);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) { /* the worker: check one file, send the result, leave without running atexit handlers */
    close(fds[0]);
    die_with_parent(parent);
    const uint32_t limit = cli_memory_limit_mb(fr->path);
    const uint64_t forked = cli_address_space(0);
    cli_limit_memory(limit); /* first hands the heap's free pad back */
    const uint64_t start = cli_address_space(0);
    check_file(j, fr);
    /* the peak when the worker grew past its address space at the fork, else what it holds now (its heap keeps
     * what it freed) */
    const uint64_t peak = cli_address_space(1) > forked ? cli_address_space(1) : cli_address_space(0);
    if (fr->status == 2 && limit && peak > start && peak - start >= ((uint64_t)limit << 19)) /* half of it used */
      snprintf(fr->error, sizeof fr->error, "%s: reading it needs more than the memory limit of %u MiB", fr->path,
               limit);
    buf b = {0};
    serialize(fr, &b);
    write_all(fds[1], b.p, b.n);
    _exit(0);
  }
  close(fds[1]);
  memset(w, 0, sizeof *w);
  w->pid = pid;
  w->fd = fds[0];
  w->index = index;
  clock_gettime(CLOCK_MONOTONIC, &w->start);
  return 0;
}

static void finish(worker* w, file_result* fr, int timed_out) {
  int st = 0;
  while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
  }
  close(w->fd);
  if (timed_out) {
    fr->status = 2;
    snprintf(fr->error, sizeof fr->error, "%s: gave up after the time limit (reading did not finish)", fr->path);
  } else if (WIFSIGNALED(st)) {
    fr->status = 2;
    snprintf(fr->error, sizeof fr->error, "%s: the importer crashed (signal %d, %s) reading this file", fr->path,
             WTERMSIG(st), strsignal(WTERMSIG(st)));
  } else if (deserialize(&w->data, fr) != 0) {
    for (uint32_t m = 0; m < fr->mesh_count; ++m) free(fr->meshes[m].name);
    free(fr->meshes);
    fr->meshes = NULL;
    fr->mesh_count = 0;
    fr->status = 2;
    snprintf(fr->error, sizeof fr->error, "%s: the worker checking this file failed (exit %d)", fr->path,
             WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  }
  free(w->data.p);
  w->pid = 0;
}

/* Runs every file through at most `jobs` concurrent workers; progress on stderr when it is a terminal. */
static void run_all(job* j, file_result* results, size_t count, int jobs, double timeout) {
  worker* ws = calloc((size_t)jobs, sizeof *ws);
  struct pollfd* pf = calloc((size_t)jobs, sizeof *pf);
  if (!ws || !pf) {
    free(ws);
    free(pf);
    for (size_t i = 0; i < count; ++i) /* no memory for workers: in process */
      if (results[i].status != 2) check_file(j, &results[i]);
    return;
  }
  int tty = isatty(2);
  size_t next = 0, done = 0;
  int active = 0;
  while (done < count) {
    while (active < jobs && next < count) {
      if (results[next].status == 2) { /* an error of the walk: its row is already written */
        ++next;
        ++done;
        continue;
      }
      int slot = 0;
      while (ws[slot].pid) ++slot;
      if (spawn(&ws[slot], j, &results[next], next) != 0) {
        check_file(j, &results[next]); /* fork failed: check it here */
        ++done;
      } else {
        ++active;
      }
      ++next;
    }
    if (!active) continue;
    int n = 0, map[64];
    for (int s = 0; s < jobs && n < 64; ++s)
      if (ws[s].pid) {
        pf[n].fd = ws[s].fd;
        pf[n].events = POLLIN;
        pf[n].revents = 0;
        map[n++] = s;
      }
    if (poll(pf, (nfds_t)n, 100) < 0 && errno != EINTR) break;
    for (int k = 0; k < n; ++k) {
      if (!pf[k].revents) continue;
      worker* w = &ws[map[k]];
      char chunk[65536];
      ssize_t r = read(w->fd, chunk, sizeof chunk);
      if (r > 0) {
        buf_put(&w->data, chunk, (size_t)r);
      } else if (r == 0 || errno != EINTR) {
        finish(w, &results[w->index], 0);
        --active;
        ++done;
      }
    }
    for (int k = 0; k < n && timeout > 0.0; ++k) {
      worker* w = &ws[map[k]];
      if (w->pid && since(&w->start) > timeout) {
        kill(w->pid, SIGKILL);
        finish(w, &results[w->index], 1);
        --active;
        ++done;
      }
    }
    if (tty) {
      int bar = (int)(40 * done / count);
      fprintf(stderr, "\r[%-40.*s] %zu/%zu", bar, "########################################", done, count);
    }
  }
  if (tty) fprintf(stderr, "\r%60s\r", "");
  free(ws);
  free(pf);
}

/* ---- file collection ---- */
/* Each entry is a path, a NUL, then the reason it is an error of the walk (a folder not read, a broken link) and a
 * NUL: empty for a file to check. As a C string an entry is its path, so entries sort by path, walk errors among
 * the files, and each error becomes a row of its own where it was found (the totals then count every row). */
typedef struct list {
  char** v;
  size_t n, cap;
} list;

static int push_entry(list* l, const char* path, const char* error) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    char** v = realloc(l->v, cap * sizeof *v);
    if (!v) return -1;
    l->v = v;
    l->cap = cap;
  }
  size_t len = strlen(path), elen = strlen(error);
  if (!(l->v[l->n] = malloc(len + elen + 2))) return -1;
  memcpy(l->v[l->n], path, len + 1);
  memcpy(l->v[l->n++] + len + 1, error, elen + 1);
  return 0;
}

static int push(list* l, const char* path) { return push_entry(l, path, ""); }

/* The walk error of an entry ("" for a file to check). */
static const char* entry_error(const char* entry) { return entry + strlen(entry) + 1; }

/* An error of the walk at path, "path: reason[: strerror]", as an entry of its own. A path too long for the row's
 * message (a folder 65 levels down) loses its middle, not the reason (the row's path has it whole). */
static void push_walk_error(list* l, const char* path, const char* reason, int errnum) {
  char why[200], msg[SK_ERROR_MESSAGE_SIZE];
  snprintf(why, sizeof why, ": %s%s%s", reason, errnum ? ": " : "", errnum ? strerror(errnum) : "");
  const size_t wn = strlen(why), room = sizeof msg - 1 - wn; /* >= 56: why is shorter than 200 */
  size_t n = strlen(path);
  if (n <= room) {
    memcpy(msg, path, n);
  } else {
    const size_t head = room / 2, tail = room - head - 3;
    memcpy(msg, path, head);
    memcpy(msg + head, "...", 3);
    memcpy(msg + head + 3, path + n - tail, tail);
    n = room;
  }
  memcpy(msg + n, why, wn + 1);
  push_entry(l, path, msg);
}

static int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Folders and files already reached (device, inode): a symbolic link back up the tree (two links to "." make the
 * walk branch forever) is not followed again, and one file reached through two links is checked once. */
typedef struct seen {
  struct {
    dev_t dev;
    ino_t ino;
  } * v;
  size_t n, cap;
} seen;

/* 1 when (dev, ino) was seen before; else records it and returns 0 (also when memory is short: no dedup then). */
static int seen_before(seen* s, const struct stat* st) {
  for (size_t i = 0; i < s->n; ++i)
    if (s->v[i].dev == st->st_dev && s->v[i].ino == st->st_ino) return 1;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    void* v = realloc(s->v, cap * sizeof *s->v);
    if (!v) return 0;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n].dev = st->st_dev;
  s->v[s->n++].ino = st->st_ino;
  return 0;
}

typedef struct walker {
  seen dirs, files;
  struct timespec start;
  double timeout; /* the whole walk; 0 = no limit */
  int timed_out;
  size_t skipped;
} walker;

static const char* special_kind(mode_t m) {
  return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a file";
}

static void walk_entry(walker* wk, list* local, const char* p, const char* name, int depth);

/* Folders deeper than this below a PATH are not read (a row says so): a bound on the walk's recursion. */
enum { MAX_DEPTH = 64 };

static void walk(walker* wk, list* l, const char* dir, int depth) {
  if (depth > MAX_DEPTH) { /* its files would go unchecked without a word: an error row of its own */
    push_walk_error(l, dir, "folder not read: more than 64 levels below the PATH given", 0);
    return;
  }
  DIR* d = opendir(dir);
  if (!d) {
    push_walk_error(l, dir, "cannot read this folder", errno);
    return;
  }
  struct dirent* e;
  list local = {0};
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (wk->timeout > 0.0 && since(&wk->start) > wk->timeout) {
      char why[96];
      snprintf(why, sizeof why, "gave up collecting files in this folder after the time limit of %g s", wk->timeout);
      if (!wk->timed_out) push_walk_error(&local, dir, why, 0); /* once: the folders above stop without a row */
      wk->timed_out = 1;
      break;
    }
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char* p = malloc(n);
    if (!p) continue;
    snprintf(p, n, "%s/%s", dir, e->d_name);
    walk_entry(wk, &local, p, e->d_name, depth);
    free(p);
  }
  closedir(d);
  if (local.n) qsort(local.v, local.n, sizeof *local.v, cmp_str);
  for (size_t i = 0; i < local.n; ++i) {
    push_entry(l, local.v[i], entry_error(local.v[i]));
    free(local.v[i]);
  }
  free(local.v);
}

/* Whether a file found in a folder is a model to check: an extension an importer reads, and of the many XML files
 * of an asset tree (Ogre's skeletons and materials, configs) only OgreXML meshes (*.mesh.xml: their skeleton is
 * read with them). */
static int model_name(const char* name) {
  const char* dot = strrchr(name, '.');
  if (!dot || !sk_import_extension_supported(dot)) return 0;
  const size_t n = strlen(name);
  return strcasecmp(dot, ".xml") != 0 || (n > 9 && strcasecmp(name + n - 9, ".mesh.xml") == 0);
}

static void walk_entry(walker* wk, list* local, const char* p, const char* name, int depth) {
  struct stat st;
  if (stat(p, &st) != 0) { /* a broken link, or a race with a deletion: an error only for a model's name */
    if (model_name(name)) push_walk_error(local, p, "cannot open", errno);
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    if (!seen_before(&wk->dirs, &st)) walk(wk, local, p, depth + 1);
  } else if (S_ISREG(st.st_mode)) {
    if (model_name(name) && !seen_before(&wk->files, &st)) push(local, p);
  } else {
    fprintf(stderr, "note: skipped %s: %s, not a regular file\n", p, special_kind(st.st_mode));
    wk->skipped++;
  }
}

static void add_path(walker* wk, list* l, const char* p) {
  struct stat st;
  if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (!seen_before(&wk->dirs, &st)) walk(wk, l, p, 0);
  } else if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && seen_before(&wk->files, &st)) {
    return; /* named twice (or through a link): checked once */
  } else {
    push(l, p); /* files named explicitly are checked whatever their extension (errors say why) */
  }
}

/* The paths of a --files-from list (delim '\n', a trailing '\r' dropped) or a --files0-from list (delim 0: any
 * name, newlines included). */
static void add_files_from(walker* wk, list* l, const char* src, int delim) {
  FILE* f = strcmp(src, "-") ? fopen(src, "r") : stdin;
  if (!f) {
    fprintf(stderr, "skinkit validate: cannot open %s: %s\n", src, strerror(errno));
    return;
  }
  char* line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getdelim(&line, &cap, delim, f)) >= 0) {
    if (n > 0 && line[n - 1] == (char)delim) line[--n] = 0;
    if (delim == '\n' && n > 0 && line[n - 1] == '\r') line[--n] = 0;
    if (n > 0) add_path(wk, l, line);
  }
  free(line);
  if (f != stdin) fclose(f);
}

static const char* k_status[] = {"ok", "findings", "error"};

static void write_json_file(FILE* f, const file_result* fr) {
  cli_json_head(f, "validate.file");
  fprintf(f, ",\"path\":");
  cli_json_string(f, fr->path);
  fprintf(f, ",\"status\":\"%s\",\"error\":", k_status[fr->status]);
  if (fr->error[0])
    cli_json_string(f, fr->error);
  else
    fputs("null", f);
  fprintf(f, ",\"meshes\":[");
  for (uint32_t m = 0; m < fr->mesh_count; ++m) {
    const sk_mesh_report* r = &fr->meshes[m].r;
    const sk_skin_report* k = &r->skin;
    fprintf(f, "%s{\"name\":", m ? "," : "");
    cli_json_string(f, fr->meshes[m].name);
    fprintf(f,
            ",\"vertex_count\":%llu,\"max_influences\":%u,\"weight_sum_min\":%.6g,\"weight_sum_max\":%.6g,"
            "\"off_tolerance_count\":%llu,\"unweighted_count\":%llu,\"nan_count\":%llu,\"negative_count\":%llu,"
            "\"over_limit_count\":%llu,\"bad_joint_count\":%llu,\"duplicate_count\":%llu,"
            "\"singular_bind_count\":%llu,\"nonrigid_bind_count\":%llu,\"unused_bone_count\":%llu,"
            "\"dropped_weight_count\":%llu,\"skin_no_common_root\":%s,\"skin_skeleton_invalid\":%s,\"skin_duplicate_"
            "joint\":%s,"
            "\"influence_format_invalid\":%s,\"draco_count_mismatch\":%s,\"json_invalid_utf8\":%s}",
            (unsigned long long)k->vertex_count, k->max_influences, k->weight_sum_min, k->weight_sum_max,
            (unsigned long long)k->off_tolerance, (unsigned long long)k->unweighted, (unsigned long long)k->nan,
            (unsigned long long)k->negative, (unsigned long long)k->over_limit, (unsigned long long)k->bad_joint,
            (unsigned long long)k->duplicate, (unsigned long long)r->singular_binds,
            (unsigned long long)r->nonrigid_binds, (unsigned long long)r->unused_bones,
            (unsigned long long)r->dropped_weights, r->skin_structure & SK_SKIN_NO_COMMON_ROOT ? "true" : "false",
            r->skin_structure & SK_SKIN_SKELETON_INVALID ? "true" : "false",
            r->skin_structure & SK_SKIN_DUPLICATE_JOINT ? "true" : "false",
            r->skin_structure & SK_SKIN_INFLUENCE_FORMAT ? "true" : "false",
            r->skin_structure & SK_SKIN_DRACO_COUNT ? "true" : "false",
            r->skin_structure & SK_SKIN_JSON_UTF8 ? "true" : "false");
  }
  fprintf(f, "]}");
}

/* What `skinkit validate` was asked besides its paths. */
typedef struct validate_args {
  const char* json_out;
  int jsonl, jobs, allow_unskinned, named, list;
  double timeout;
  sk_validate_options opts;
} validate_args;

/* Counts of rows by status; errors also count a summary that could not be written. */
typedef struct tally {
  size_t ok, findings, errors;
} tally;

/* The options of validate into va; the paths are only counted here (collect_files reads them). 0, or the exit
 * status (2) after a message. */
static int parse_validate_args(int argc, char** argv, validate_args* va) {
  /* options first (an argument error exits before any folder is walked), then the paths in order */
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = NULL;
    if (!strcmp(a, "--")) { /* the end of the options (POSIX guideline 10): paths, whatever their names */
      va->named += argc - i - 1;
      break;
    }
    if (!strcmp(a, "--list")) {
      va->list = 1;
      continue;
    }
    if (!strcmp(a, "--jsonl")) {
      va->jsonl = 1;
      continue;
    }
    if (!strcmp(a, "--allow-unskinned")) {
      va->allow_unskinned = 1;
      continue;
    }
    int jn = cli_arg_json("validate", argc, argv, i, &va->json_out);
    if (jn < 0) return 2;
    if (jn) {
      i += jn - 1;
      continue;
    }
    if (a[0] != '-' || !a[1]) { /* a path ("-" is not an option) */
      va->named++;
      continue;
    }
    if (strcmp(a, "--tolerance") && strcmp(a, "--max-influences") && strcmp(a, "--jobs") && strcmp(a, "--files-from") &&
        strcmp(a, "--files0-from"))
      return cli_arg_unknown("validate", a);
    if (!(v = cli_arg_value("validate", argc, argv, &i))) return 2;
    if (!strcmp(a, "--tolerance")) {
      if (cli_arg_float("validate", a, v, 0.0, 1.0, CLI_OPEN_LO, &va->opts.tolerance)) return 2;
    } else if (!strcmp(a, "--max-influences")) {
      if (cli_arg_u32("validate", a, v, 1, 255, &va->opts.max_influences)) return 2;
    } else if (!strcmp(a, "--jobs")) {
      uint32_t n;
      if (cli_arg_u32("validate", a, v, 1, 4096, &n)) return 2;
      va->jobs = (int)n;
    } else {
      va->named++; /* --files-from, --files0-from */
    }
  }
  if (!va->named) return cli_arg_error("validate", "no PATH to check");
  if (va->json_out && cli_check_output_dir("validate", va->json_out)) return 2;
  return 0;
}

/* The files to check, in argument order (folders walked, --files-from lists read), into files; the errors of the walk
 * are entries of their own (entry_error). */
static void collect_files(int argc, char** argv, walker* wk, list* files) {
  int paths_only = 0; /* after "--" */
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* json_skip = NULL;
    int jn = paths_only ? 0 : cli_arg_json("validate", argc, argv, i, &json_skip);
    if (jn) {
      i += jn - 1;
      continue;
    }
    if (paths_only)
      add_path(wk, files, a);
    else if (!strcmp(a, "--"))
      paths_only = 1;
    else if (!strcmp(a, "--jsonl") || !strcmp(a, "--allow-unskinned") || !strcmp(a, "--list"))
      continue;
    else if (!strcmp(a, "--files-from") || !strcmp(a, "--files0-from"))
      add_files_from(wk, files, argv[++i], strcmp(a, "--files0-from") ? '\n' : 0);
    else if (a[0] == '-' && a[1])
      ++i; /* an option with its value, read above */
    else
      add_path(wk, files, a);
  }
  free(wk->dirs.v);
  free(wk->files.v);
}

/* --list: each entry as a NUL-terminated record on stdout, 'F' and the path of a file to check or 'E' and the
 * --jsonl row of a walk error (exactly the row a run prints), so a driver that shards the checking (skinkit.batch)
 * checks the same files in the same order and reports the same rows. 0, or 2 when stdout could not be written. */
static int print_list(const list* files) {
  for (size_t i = 0; i < files->n; ++i) {
    const char* error = entry_error(files->v[i]);
    if (!error[0]) {
      printf("F%s%c", files->v[i], 0);
      continue;
    }
    file_result fr;
    memset(&fr, 0, sizeof fr);
    fr.path = files->v[i];
    fr.status = 2;
    snprintf(fr.error, sizeof fr.error, "%s", error);
    putchar('E');
    write_json_file(stdout, &fr);
    putchar(0);
  }
  if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
  fprintf(stderr, "skinkit validate: cannot write standard output: %s\n", strerror(errno));
  return 2;
}

/* Workers to run: --jobs, else the CPU count; never more than files nor 64. */
static int job_count(int jobs, size_t files) {
  if (jobs <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    jobs = n > 0 ? (int)n : 1;
  }
  if ((size_t)jobs > files) jobs = (int)files;
  if (jobs > 64) jobs = 64;
  return jobs;
}

/* One line of a checked mesh: its counts, then each finding that is there. */
static void print_mesh_line(FILE* human, const file_result* fr, uint32_t m) {
  const sk_mesh_report* r = &fr->meshes[m].r;
  const sk_skin_report* k = &r->skin;
  fprintf(human, "%-8s %s [%s] v=%llu maxinf=%u sum=%.4f..%.4f", r->findings ? "FINDINGS" : "ok", fr->path,
          fr->meshes[m].name, (unsigned long long)k->vertex_count, k->max_influences, k->weight_sum_min,
          k->weight_sum_max);
  if (k->off_tolerance) fprintf(human, " off=%llu", (unsigned long long)k->off_tolerance);
  if (k->unweighted) fprintf(human, " unweighted=%llu", (unsigned long long)k->unweighted);
  if (k->nan) fprintf(human, " nan=%llu", (unsigned long long)k->nan);
  if (k->negative) fprintf(human, " negative=%llu", (unsigned long long)k->negative);
  if (k->over_limit) fprintf(human, " over=%llu", (unsigned long long)k->over_limit);
  if (k->bad_joint) fprintf(human, " bad_joint=%llu", (unsigned long long)k->bad_joint);
  if (k->duplicate) fprintf(human, " dup=%llu", (unsigned long long)k->duplicate);
  if (r->singular_binds) fprintf(human, " singular_bind=%llu", (unsigned long long)r->singular_binds);
  if (r->nonrigid_binds) fprintf(human, " nonrigid_bind=%llu", (unsigned long long)r->nonrigid_binds);
  if (r->unused_bones) fprintf(human, " unused_bones=%llu", (unsigned long long)r->unused_bones);
  if (r->skin_structure & SK_SKIN_NO_COMMON_ROOT) fputs(" no_common_root", human);
  if (r->skin_structure & SK_SKIN_SKELETON_INVALID) fputs(" skeleton_invalid", human);
  if (r->skin_structure & SK_SKIN_DUPLICATE_JOINT) fputs(" duplicate_skin_joint", human);
  if (r->skin_structure & SK_SKIN_INFLUENCE_FORMAT) fputs(" influence_format", human);
  if (r->skin_structure & SK_SKIN_DRACO_COUNT) fputs(" draco_count", human);
  if (r->skin_structure & SK_SKIN_JSON_UTF8) fputs(" json_not_utf8", human);
  fputc('\n', human);
}

/* Every file's result: with --jsonl its JSON line on stdout, its lines (an error, or one per mesh) on human; then the
 * summary line. The statuses are counted into t. */
static void report_files(const file_result* results, size_t count, FILE* human, int jsonl, tally* t) {
  for (size_t i = 0; i < count; ++i) {
    const file_result* fr = &results[i];
    t->ok += fr->status == 0;
    t->findings += fr->status == 1;
    t->errors += fr->status == 2;
    if (jsonl) {
      write_json_file(stdout, fr);
      fputc('\n', stdout);
    }
    if (fr->status == 2 || (fr->error[0] && !fr->mesh_count)) {
      fprintf(human, "%-8s %s\n", fr->status == 2 ? "ERROR" : "ok", fr->error);
      continue;
    }
    for (uint32_t m = 0; m < fr->mesh_count; ++m) print_mesh_line(human, fr, m);
    if (fr->note[0]) fprintf(human, "note     %s: %s\n", fr->path, fr->note);
  }
  fprintf(human, "%zu file(s): %zu ok, %zu with findings, %zu error(s)\n", count, t->ok, t->findings, t->errors);
}

/* --json OUT: the summary (schema skinkit.validate); a failed write counts as an error in t. */
static void write_summary(const char* json_out, const file_result* results, size_t count, tally* t) {
  cli_out out;
  FILE* f = cli_out_open(&out, json_out); /* written in memory, then replaced atomically */
  if (!f) {
    t->errors += cli_out_close(&out, "validate") != 0;
    return;
  }
  cli_json_head(f, "validate");
  fprintf(f, ",\"files\":[");
  for (size_t i = 0; i < count; ++i) {
    if (i) fputc(',', f);
    write_json_file(f, &results[i]);
  }
  fprintf(f, "],\"summary\":{\"file_count\":%zu,\"ok_count\":%zu,\"findings_count\":%zu,\"error_count\":%zu}}\n", count,
          t->ok, t->findings, t->errors);
  if (cli_out_close(&out, "validate")) t->errors++;
}

/* Frees the results (NULL: none yet) and the list of files they point into. */
static void free_results(file_result* results, list* files) {
  for (size_t i = 0; i < files->n; ++i) {
    for (uint32_t m = 0; results && m < results[i].mesh_count; ++m) free(results[i].meshes[m].name);
    if (results) free(results[i].meshes);
    free(files->v[i]);
  }
  free(files->v);
  free(results);
}

int cli_validate(int argc, char** argv) {
  list files = {0};
  walker wk;
  memset(&wk, 0, sizeof wk);
  clock_gettime(CLOCK_MONOTONIC, &wk.start);
  validate_args va;
  memset(&va, 0, sizeof va);
  va.timeout = cli_load_cfg.timeout >= 0.0 ? cli_load_cfg.timeout : 300.0;
  wk.timeout = va.timeout;
  va.opts.size = sizeof va.opts;
  int rc = parse_validate_args(argc, argv, &va);
  if (rc) return rc;
  collect_files(argc, argv, &wk, &files);
  if (files.n == 0) {
    fprintf(stderr, "skinkit validate: no files to check\n");
    free(files.v);
    return 2;
  }
  if (va.list) {
    rc = print_list(&files);
    free_results(NULL, &files);
    return rc;
  }
  int jobs = job_count(va.jobs, files.n);
  job j;
  memset(&j, 0, sizeof j);
  j.opts = va.opts;
  j.allow_unskinned = va.allow_unskinned;
  file_result* results = calloc(files.n, sizeof *results);
  if (!results) {
    fprintf(stderr, "skinkit validate: out of memory\n");
    free_results(NULL, &files);
    return 2;
  }
  for (size_t i = 0; i < files.n; ++i) {
    results[i].path = files.v[i];
    const char* error = entry_error(files.v[i]);
    if (error[0]) { /* a walk error: a row as it is */
      results[i].status = 2;
      snprintf(results[i].error, sizeof results[i].error, "%s", error);
    }
  }
  run_all(&j, results, files.n, jobs, va.timeout);

  tally t = {0, 0, 0};
  FILE* human = (va.json_out && !strcmp(va.json_out, "-")) || va.jsonl ? stderr : stdout;
  report_files(results, files.n, human, va.jsonl, &t);
  if (va.json_out) write_summary(va.json_out, results, files.n, &t);
  free_results(results, &files);
  return t.errors ? 2 : t.findings ? 1 : 0;
}
