/* cli_skf.c - `skinkit pack`, `skinkit unpack` and the .skf part of `skinkit info` (uses only skinkit.h). */
#define _DEFAULT_SOURCE /* fdopen, O_CLOEXEC */
#include "cli_skf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "skinkit.h"

const char cli_pack_usage[] =
    "usage: skinkit pack IN [OUT.skf] [--bits 8|16] [--max-influences N] [--file-order] [--no-weld] [--level 1..9]\n"
    "       [--profile default|fast] [--cor] [--force] [--json [FILE|-]]\n"
    "  Compresses the skin of a model file (any format the library reads) into an .skf file: joint table\n"
    "  (names, parents, inverse binds) and per-vertex joints/weights quantized to 8 (sum 255) or 16 bits\n"
    "  (sum 65535), at most N influences per vertex (default 4, max 8). Vertices are coded in triangle order\n"
    "  unless --file-order (then decoding needs no index buffer). A vertex at the same position as a lower one\n"
    "  with the same influences (seam and corner copies) is not stored, unless --no-weld (then decoding needs\n"
    "  no positions). --profile fast: the speed profile (.skf 3.1), every mesh in vertex order without zlib or\n"
    "  weld: several times larger, decodes several times faster, needs neither indices nor positions.\n"
    "  --cor: also stores each mesh's centres of rotation for the COR deformer (sk_cor_compute on the rest mesh,\n"
    "  default sigma), quantized to 16 bits over their bounding box (.skf 3.2; older readers skip them).\n"
    "  OUT defaults to IN with .skf appended (-o/--output OUT: OUT as an option); an existing OUT is replaced\n"
    "  only with --force (exit 1 otherwise), never IN itself.\n"
    "  -o - is refused (exit 2): an .skf file is binary, name the file. --json: a summary on stdout instead of\n"
    "  the text line (schema skinkit.pack, docs/json.md); --json FILE.json or --json=FILE writes it to FILE.\n";

const char cli_unpack_usage[] =
    "usage: skinkit unpack IN.skf [--json [FILE|-]] [--indices-from MODEL] [--max-vertices N]\n"
    "  Decodes an .skf file: joint table and per-vertex JOINTS/WEIGHTS of every mesh. Meshes coded in triangle\n"
    "  order need their index buffers, welded meshes their positions: --indices-from takes both from the model\n"
    "  the file was packed from (its skinned meshes in order). Without it, the model is looked for beside IN: IN "
    "without its .skf\n"
    "  (what `skinkit pack` names its output by default), else the same stem with a model extension (.glb,\n"
    "  .gltf, .fbx, .dae, ...); a model whose index buffers do not match is refused. Text lists the first N\n"
    "  vertices per mesh (default 8; JSON lists all unless --max-vertices is given). --json: schema\n"
    "  skinkit.unpack (docs/json.md) on stdout, or to FILE (a .json name, or --json=FILE).\n";

const char cli_skf_info_usage[] =
    "usage: skinkit info FILE.skf [--json [FILE|-]]\n"
    "  Header (version, flags, counts, CRCs), meshes and chunk list of an .skf file.\n";

/* Largest .skf file read (the format's counts allow less in practice; a device such as /dev/zero never ends). */
#define CLI_SKF_MAX_FILE ((size_t)1 << 30)

/* Opens path for reading without blocking on a FIFO; NULL (errno set, EINVAL for a FIFO, device or socket) unless
 * it is a regular file. */
static FILE* open_regular(const char* path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    close(fd);
    errno = e;
    return NULL;
  }
  FILE* f = fdopen(fd, "rb");
  if (!f) close(fd);
  return f;
}

/* The whole file (regular files up to CLI_SKF_MAX_FILE only); NULL with *why set otherwise. */
static unsigned char* read_all(const char* path, size_t* size, const char** why) {
  FILE* f = open_regular(path);
  *why = errno == EINVAL ? "not a regular file (FIFO, device or socket): refused" : strerror(errno);
  if (!f) return NULL;
  unsigned char* buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      unsigned char* b = cap <= CLI_SKF_MAX_FILE + 65536 ? realloc(buf, cap) : NULL;
      *why = b ? *why : cap > CLI_SKF_MAX_FILE + 65536 ? "larger than 1 GiB: refused" : "out of memory";
      if (!b) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = b;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad || n > CLI_SKF_MAX_FILE) {
    *why = bad ? "read error" : "larger than 1 GiB: refused";
    free(buf);
    return NULL;
  }
  *size = n;
  return buf;
}

int cli_skf_is_skf(const char* path) {
  FILE* f = open_regular(path);
  unsigned char m[4] = {0};
  if (!f) return 0;
  size_t n = fread(m, 1, 4, f);
  fclose(f);
  return n == 4 && m[0] == 0x89 && m[1] == 'S' && m[2] == 'K' && m[3] == 'F';
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The --json summary of pack (schema skinkit.pack): one entry per packed (skinned) mesh. */
static void pack_json(sk_scene* s, const char* in, const char* out, const sk_skf_encode_desc* d, size_t bytes,
                      size_t verts, double seconds) {
  cli_json_head(stdout, "pack");
  printf(",\"path\":");
  cli_json_string(stdout, in);
  printf(",\"output\":");
  cli_json_string(stdout, out);
  printf(
      ",\"seconds\":%.4f,\"bytes\":%zu,\"bytes_per_vertex\":%.4f,\"profile\":\"%s\",\"weight_bits\":%u,"
      "\"joint_count\":%u,\"vertex_count\":%zu,\"mesh_count\":%u,\"meshes\":[",
      seconds, bytes, verts ? (double)bytes / (double)verts : 0.0, (d->flags & SK_SKF_FAST) ? "fast" : "default",
      d->weight_bits ? d->weight_bits : 8u, sk_skeleton_joint_count(d->skeleton), verts, d->mesh_count);
  uint32_t k = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
    if (!sk_scene_mesh_skin(s, m)) continue;
    printf("%s{\"name\":", k++ ? "," : "");
    cli_json_string(stdout, sk_scene_mesh_name(s, m));
    printf(",\"vertex_count\":%zu,\"triangle_count\":%zu}", sk_scene_mesh_vertex_count(s, m),
           sk_scene_mesh_index_count(s, m) / 3);
  }
  printf("]}\n");
}

/* Centres of rotation of one mesh (sk_cor_compute over its rest positions, triangles and CSR weights) into a new
 * array of 3 * vertex_count floats; NULL after an error line. */
static float* pack_centers(sk_skin* skin, const float* pos, size_t nv, const uint32_t* ix, size_t ni) {
  sk_error err;
  size_t ne = sk_skin_influence_count(skin);
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  uint32_t* jn = malloc(ne * sizeof *jn + 1);
  float* wt = malloc(ne * sizeof *wt + 1);
  float* c = malloc(nv * 3 * sizeof *c + 1);
  int ok = off && jn && wt && c;
  if (ok && (sk_skin_get_csr(skin, off, jn, wt, &err) ||
             (nv && sk_cor_compute(pos, nv, ix, ni / 3, off, jn, wt, sk_skin_joint_count(skin), 0.0f, 0, c, &err)))) {
    cli_in_error("pack", "centres of rotation: %s", err.message);
    ok = 0;
  } else if (!ok) {
    cli_in_error("pack", "out of memory");
  }
  free(off);
  free(jn);
  free(wt);
  if (!ok) free(c);
  return ok ? c : NULL;
}

/* Weights the encoder leaves out (NaN, infinite, negative: skf_encode.c packs positive finite weights only) are named
 * on stderr, mesh by mesh, rather than dropped without a word (the audit of session 43); so are vertices without
 * weight, which decode with no influence (convert gives them weight 1 on the root instead: an audit of session 70). */
static void warn_unpackable(sk_scene* s, uint32_t m, const sk_skin* skin) {
  sk_skin_report r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  if (sk_skin_validate(skin, NULL, &r, NULL, NULL) != SK_OK) return;
  if (r.unweighted)
    cli_in_warning("pack",
                   "mesh \"%s\": %llu vertices without weight: packed with no influence (they "
                   "decode to all-zero weights; bind or give them weight first)",
                   sk_scene_mesh_name(s, m), (unsigned long long)r.unweighted);
  if (!(r.nan || r.negative)) return;
  cli_in_warning("pack",
                 "mesh \"%s\": %llu vertices with NaN or infinite weights, %llu with negative ones: "
                 "those weights are not packed (skinkit validate lists them)",
                 sk_scene_mesh_name(s, m), (unsigned long long)r.nan, (unsigned long long)r.negative);
}

/* What `skinkit pack` was asked: IN, OUT (NULL: the default name), the switches and the encoder's settings (its
 * skeleton and meshes are filled in by pack_encode). */
typedef struct pack_args {
  const char *in, *out;
  int force, json, cor;
  sk_skf_encode_desc d;
} pack_args;

/* The meshes handed to the encoder: per packed (skinned) mesh its copied positions and indices and, with --cor, its
 * centres; n of them, verts vertices in all. */
typedef struct pack_meshes {
  sk_skf_mesh* ms;
  float** cs; /* --cor: per packed mesh, its centres */
  uint32_t n;
  size_t verts;
} pack_meshes;

/* The arguments of pack into p. 0, or the exit status (2) after a message. */
static int pack_parse_args(int argc, char** argv, pack_args* p) {
  memset(p, 0, sizeof *p);
  p->d.size = sizeof p->d;
  sk_skf_encode_desc* d = &p->d;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "-o")) { /* cli_take_output puts -o/--output last: a positional OUT came first */
      if (p->out) return cli_arg_error("pack", "OUT given twice (as an argument and with -o/--output)");
      if (!(p->out = cli_arg_value("pack", argc, argv, &i))) return 2;
    } else if (!strcmp(a, "--bits")) {
      const char* v = cli_arg_value("pack", argc, argv, &i);
      if (!v) return 2;
      if (!cli_parse_u32(v, 8, 16, &d->weight_bits) || (d->weight_bits != 8 && d->weight_bits != 16))
        return cli_arg_error("pack", "--bits takes 8 or 16, not \"%s\"", v);
    } else if (!strcmp(a, "--max-influences")) {
      const char* v = cli_arg_value("pack", argc, argv, &i);
      if (!v || cli_arg_u32("pack", a, v, 1, 8, &d->max_influences)) return 2;
    } else if (!strcmp(a, "--level")) {
      const char* v = cli_arg_value("pack", argc, argv, &i);
      if (!v || cli_arg_u32("pack", a, v, 1, 9, &d->level)) return 2;
    } else if (!strcmp(a, "--file-order")) {
      d->flags |= SK_SKF_FILE_ORDER;
    } else if (!strcmp(a, "--no-weld")) {
      d->flags |= SK_SKF_NO_WELD;
    } else if (!strcmp(a, "--profile")) {
      const char* v = cli_arg_value("pack", argc, argv, &i);
      if (!v) return 2;
      if (!strcmp(v, "fast"))
        d->flags |= SK_SKF_FAST;
      else if (!strcmp(v, "default"))
        d->flags &= ~(uint32_t)SK_SKF_FAST;
      else
        return cli_arg_error("pack", "--profile takes default or fast, not \"%s\"", v);
    } else if (!strcmp(a, "--cor")) {
      p->cor = 1;
    } else if (!strcmp(a, "--force")) {
      p->force = 1;
    } else if (!strcmp(a, "--json")) {
      p->json = 1;
    } else if (!p->in && a[0] != '-') {
      p->in = a;
    } else if (!p->out && a[0] != '-') { /* skinkit pack IN OUT, as convert, bind and weights take it */
      p->out = a;
    } else {
      return cli_arg_unknown("pack", a);
    }
  }
  if (!p->in) return cli_arg_error("pack", "needs IN");
  return 0;
}

/* Settles OUT: IN with .skf appended when not given (*def_out: that name, for the caller to free); IN itself is
 * refused, an existing OUT too without --force. 0, or the exit status (1 or 2) after a message. */
static int pack_check_output(pack_args* p, char** def_out) {
  *def_out = NULL;
  if (p->out && cli_check_model_output("pack", p->out)) return 2;
  if (!p->out) {
    *def_out = malloc(strlen(p->in) + 5);
    if (!*def_out) return 2;
    sprintf(*def_out, "%s.skf", p->in);
    p->out = *def_out;
  }
  struct stat st_out;
  if (stat(p->out, &st_out) == 0) {
    if (cli_same_file(p->in, p->out)) {
      fprintf(stderr, "skinkit pack: refusing to overwrite the input %s\n", p->in);
      return 2;
    }
    if (!p->force) {
      fprintf(stderr, "skinkit pack: %s exists (use --force to replace it)\n", p->out);
      return 1;
    }
  }
  return 0;
}

/* Copies the positions and indices of every skinned mesh of s into pm (with --cor, their centres of rotation too),
 * naming weights the encoder leaves out. 0, or 2 (after a message, but when the mesh table itself has no memory). */
static int pack_collect(sk_scene* s, int cor, pack_meshes* pm) {
  uint32_t mc = sk_scene_mesh_count(s);
  pm->ms = calloc(mc ? mc : 1, sizeof *pm->ms);
  pm->cs = calloc(mc ? mc : 1, sizeof *pm->cs);
  if (!pm->ms || !pm->cs) return 2;
  for (uint32_t m = 0; m < mc; ++m) {
    sk_skin* skin = sk_scene_mesh_skin(s, m);
    if (!skin) continue;
    size_t nv = sk_scene_mesh_vertex_count(s, m), ni = sk_scene_mesh_index_count(s, m);
    float* pos = malloc(nv * 3 * sizeof *pos + 1);
    uint32_t* ix = malloc(ni * sizeof *ix + 1);
    if (!pos || !ix) {
      free(pos);
      free(ix);
      cli_in_error("pack", "out of memory");
      return 2;
    }
    sk_scene_mesh_positions(s, m, pos, nv * 3);
    sk_scene_mesh_indices(s, m, ix, ni);
    warn_unpackable(s, m, skin);
    pm->ms[pm->n].skin = skin;
    pm->ms[pm->n].positions = pos;
    pm->ms[pm->n].indices = ix;
    pm->ms[pm->n].index_count = ni;
    pm->verts += nv;
    ++pm->n;
    if (cor && !(pm->cs[pm->n - 1] = pack_centers(skin, pos, nv, ix, ni))) return 2;
  }
  return 0;
}

/* Frees what pack_collect copied, also when it stopped half-way. */
static void pack_meshes_free(pack_meshes* pm) {
  for (uint32_t m = 0; pm->ms && m < pm->n; ++m) {
    free((void*)pm->ms[m].positions);
    free((void*)pm->ms[m].indices);
    if (pm->cs) free(pm->cs[m]);
  }
  free(pm->ms);
  free(pm->cs);
}

/* Encodes the meshes of pm with s's skeleton into *buf (*size bytes) and writes OUT. 0, or 2 after a message. */
static int pack_encode(pack_args* p, sk_scene* s, const pack_meshes* pm, unsigned char** buf, size_t* size) {
  sk_error err;
  sk_skf_encode_desc* d = &p->d;
  d->skeleton = sk_scene_skeleton(s);
  d->meshes = pm->ms;
  d->mesh_count = pm->n;
  d->centers = p->cor ? (const float* const*)pm->cs : NULL;
  size_t bound = sk_skf_encode_bound(d);
  *buf = bound ? malloc(bound) : NULL;
  if (!*buf) {
    cli_in_error("pack", "invalid input or out of memory");
    return 2;
  }
  if (sk_skf_encode(d, *buf, bound, size, &err)) {
    cli_in_error("pack", "%s", err.message);
    return 2;
  }
  if (sk_write_file_atomic(p->out, *buf, *size, &err)) { /* a failed write leaves the previous OUT unchanged */
    cli_save_error("pack", p->out, err.message);
    return 2;
  }
  return 0;
}

int cli_pack(int argc, char** argv) {
  double t0 = seconds_now();
  pack_args p;
  int status = pack_parse_args(argc, argv, &p);
  if (status) return status;
  char* def_out = NULL;
  if ((status = pack_check_output(&p, &def_out))) {
    free(def_out);
    return status;
  }
  sk_error err;
  sk_scene* s = NULL;
  pack_meshes pm = {0};
  unsigned char* buf = NULL;
  size_t size = 0;
  status = 2;
  if (cli_load_scene("pack", p.in, NULL, &s)) goto done;
  if (sk_scene_require_skin(s, &err)) {
    cli_in_error("pack", "%s", err.message);
    goto done;
  }
  if (pack_collect(s, p.cor, &pm) || pack_encode(&p, s, &pm, &buf, &size)) goto done;
  if (p.json)
    pack_json(s, p.in, p.out, &p.d, size, pm.verts, seconds_now() - t0);
  else
    printf(
        "%s: %u skinned meshes, %zu vertices, %u joints -> %s: %zu bytes (%.3f bytes/vertex with the joint "
        "table)\n",
        p.in, pm.n, pm.verts, sk_skeleton_joint_count(p.d.skeleton), p.out, size,
        pm.verts ? (double)size / pm.verts : 0.0);
  status = 0;
done:
  pack_meshes_free(&pm);
  free(buf);
  free(def_out);
  sk_scene_destroy(s);
  return status;
}

static int load_skf(const char* cmd, const char* path, unsigned char** data, size_t* size, sk_skf_info* info) {
  sk_error err;
  const char* why = "";
  *data = read_all(path, size, &why);
  if (!*data) {
    fprintf(stderr, "skinkit %s: cannot read %s: %s\n", cmd, path, why);
    return 0;
  }
  info->size = sizeof *info;
  if (sk_skf_peek(*data, *size, info, &err)) {
    fprintf(stderr, "skinkit %s: %s: %s (%s)\n", cmd, path, err.message, sk_result_string((sk_result)err.code));
    free(*data);
    return 0;
  }
  return 2;
}

/* The model an .skf was packed from, looked for beside it: "X.glb.skf" -> "X.glb" (pack's default output name),
 * else "X.skf" -> "X.<ext>" for the usual model extensions. Returns a malloc'ed path or NULL. The decoder checks
 * each mesh's index hash, so a wrong guess is refused, never decoded with wrong indices. */
static char* find_model_beside(const char* in) {
  size_t n = strlen(in);
  if (n < 5 || strcasecmp(in + n - 4, ".skf")) return NULL;
  static const char* const exts[] = {"",   ".glb", ".gltf",    ".vrm",  ".fbx", ".dae",
                                     ".x", ".b3d", ".md5mesh", ".mesh", ".iqm", ".smd"};
  for (size_t e = 0; e < sizeof exts / sizeof exts[0]; ++e) {
    char* path = malloc(n + 16);
    if (!path) return NULL;
    memcpy(path, in, n - 4);
    strcpy(path + n - 4, exts[e]);
    struct stat st;
    const char* slash = strrchr(path, '/');
    const char* base = slash ? slash + 1 : path;
    /* "" needs a stem that still has an extension of its own ("X.glb"), and never an .skf */
    int ok = stat(path, &st) == 0 && S_ISREG(st.st_mode) && !cli_skf_is_skf(path) && (exts[e][0] || strchr(base, '.'));
    if (ok) return path;
    free(path);
  }
  return NULL;
}

/* What `skinkit unpack` was asked and what it read: IN's bytes and header, and the model (--indices-from, or found
 * beside IN) whose skinned meshes, in order, supply the index buffers and positions. */
typedef struct unpack_state {
  const char *in, *model;
  int json;
  uint32_t max_v; /* vertices listed per mesh */
  const unsigned char* data;
  size_t size;
  sk_skf_info info;
  sk_scene* sc;          /* the model, or NULL */
  uint32_t scene_meshes; /* its mesh count */
  uint32_t scene_m;      /* the next of its meshes to look at */
  uint32_t skinned_seen; /* its skinned meshes handed out so far */
} unpack_state;

/* One decoded mesh: vc vertices of k joint and weight slots (u16 both), its centres or NULL; failed: not decoded. */
typedef struct unpack_vertices {
  size_t vc;
  uint32_t k;
  const uint16_t *jo, *we;
  const float* cen;
  int failed;
} unpack_vertices;

/* The arguments of unpack into st. 0, or the exit status (2) after a message. */
static int unpack_parse_args(int argc, char** argv, unpack_state* st) {
  memset(st, 0, sizeof *st);
  int max_set = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      st->json = 1;
    } else if (!strcmp(argv[i], "--indices-from")) {
      if (!(st->model = cli_arg_value("unpack", argc, argv, &i))) return 2;
    } else if (!strcmp(argv[i], "--max-vertices")) {
      const char* v = cli_arg_value("unpack", argc, argv, &i);
      if (!v || cli_arg_u32("unpack", "--max-vertices", v, 0, 0xffffffffu, &st->max_v)) return 2;
      max_set = 1;
    } else if (!st->in && argv[i][0] != '-') {
      st->in = argv[i];
    } else {
      return cli_arg_unknown("unpack", argv[i]);
    }
  }
  if (!st->in) return cli_arg_error("unpack", "needs IN");
  if (!max_set) st->max_v = st->json ? 0xffffffffu : 8u;
  return 0;
}

/* Without --indices-from, when some mesh of IN was coded in triangle order: the model found beside IN
 * (find_model_beside) becomes st->model, said on stderr. Returns that malloc'ed path, or NULL. */
static char* unpack_find_model(unpack_state* st) {
  int needs = 0;
  for (uint32_t m = 0; m < st->info.mesh_count && !needs; ++m) {
    sk_skf_mesh_info mi = {0};
    mi.size = sizeof mi;
    needs = !sk_skf_get_mesh_info(st->data, st->size, m, &mi, NULL) && mi.order;
  }
  char* found = needs ? find_model_beside(st->in) : NULL;
  if (found) {
    st->model = found;
    fprintf(stderr,
            "skinkit unpack: index buffers and positions from %s (found beside %s; --indices-from "
            "overrides)\n",
            st->model, st->in);
  }
  return found;
}

/* The header (a text line, or the head of the JSON object up to its "joints" array, left open), then the joints: all
 * of them in JSON, the first 64 in text. */
static void unpack_print_joints(const unpack_state* st, const int32_t* parents, const float* ib, const char* names) {
  uint32_t nj = st->info.joint_count;
  if (st->json) {
    cli_json_head(stdout, "unpack");
    printf(",\"path\":");
    cli_json_string(stdout, st->in);
    printf(",\"weight_bits\":%u,\"joint_count\":%u,\"mesh_count\":%u,\"joints\":[", st->info.weight_bits, nj,
           st->info.mesh_count);
  } else {
    printf("%s: %u joints, %u meshes, %llu vertices, %u-bit weights\n", st->in, nj, st->info.mesh_count,
           (unsigned long long)st->info.vertex_count, st->info.weight_bits);
  }
  const char* nm = names;
  for (uint32_t j = 0; j < nj; ++j) {
    if (st->json) {
      printf("%s{\"name\":", j ? "," : "");
      cli_json_string(stdout, nm);
      printf(",\"parent\":%d,\"inverse_bind\":[", parents[j]);
      for (int c = 0; c < 16; ++c) printf("%s%.9g", c ? "," : "", ib[16 * j + c]);
      printf("]}");
    } else if (j < 64) {
      printf("  joint %u %s parent %d\n", j, nm, parents[j]);
    }
    nm += strlen(nm) + 1;
  }
}

/* Decodes IN's joint table and prints it with the header (unpack_print_joints). 0, or 2 after a message. */
static int unpack_skeleton(const unpack_state* st) {
  sk_error err;
  uint32_t nj = st->info.joint_count;
  int32_t* parents = malloc(nj * sizeof *parents);
  float* ib = malloc(16 * (size_t)nj * sizeof *ib);
  char* names = malloc(st->info.names_size + 1);
  int status = 0;
  if (!parents || !ib || !names ||
      sk_skf_decode_skeleton(st->data, st->size, parents, ib, names, st->info.names_size, &err)) {
    cli_file_error("unpack", st->in, "%s", parents && ib && names ? err.message : "out of memory");
    status = 2;
  } else {
    unpack_print_joints(st, parents, ib, names);
  }
  free(parents);
  free(ib);
  free(names);
  return status;
}

/* Copies of the index buffer and positions of the model's next skinned mesh into *ix and *pos (*ni indices, *np
 * vertices); NULL without a model or past its last skinned mesh. */
static void unpack_model_buffers(unpack_state* st, uint32_t** ix, float** pos, size_t* ni, size_t* np) {
  sk_scene* sc = st->sc;
  *ix = NULL;
  *pos = NULL;
  *ni = 0;
  *np = 0;
  /* the m-th skinned mesh of the model supplies the index buffer and the positions */
  while (sc && st->scene_m < st->scene_meshes && !sk_scene_mesh_skin(sc, st->scene_m)) ++st->scene_m;
  if (!sc || st->scene_m >= st->scene_meshes) return;
  *ni = sk_scene_mesh_index_count(sc, st->scene_m);
  *np = sk_scene_mesh_vertex_count(sc, st->scene_m);
  *ix = malloc(*ni * sizeof **ix + 1);
  *pos = malloc(*np * 3 * sizeof **pos + 1);
  if (*ix) sk_scene_mesh_indices(sc, st->scene_m, *ix, *ni);
  if (*pos) sk_scene_mesh_positions(sc, st->scene_m, *pos, *np * 3);
  ++st->scene_m;
  ++st->skinned_seen;
}

/* Whether the model's buffers for mesh m lack the counts it was packed with (not the model it was packed from): then
 * a message and, in JSON, the mesh's entry as not decoded. */
static int unpack_mismatch(const unpack_state* st, uint32_t m, const sk_skf_mesh_info* mi, const uint32_t* ix,
                           const float* pos, size_t ni, size_t np) {
  /* a welded mesh in file order (pack --file-order) needs positions but no index buffer: packed with 0 indices */
  if (!((mi->order && mi->index_count && ix && ni != mi->index_count) ||
        (mi->order == 2 && pos && np != mi->vertex_count)))
    return 0;
  /* never hand the decoder a shorter buffer than the count it is told */
  if (mi->index_count && ni != mi->index_count)
    fprintf(stderr,
            "skinkit unpack: mesh %u: %s has %zu indices for it, the file was packed with %llu: not the "
            "model it was packed from\n",
            m, st->model, ni, (unsigned long long)mi->index_count);
  else
    fprintf(stderr,
            "skinkit unpack: mesh %u: %s has %zu vertices for it, the file was packed with %llu: not the "
            "model it was packed from\n",
            m, st->model, np, (unsigned long long)mi->vertex_count);
  if (st->json)
    printf("%s{\"name\":\"mesh%u\",\"vertex_count\":%llu,\"decoded\":false}", m ? "," : "", m,
           (unsigned long long)mi->vertex_count);
  return 1;
}

/* Mesh m as an element of the JSON "meshes" array, named as the model names it (else "meshN"), with the joints and
 * weights of its first max_v vertices. */
static void unpack_mesh_json(const unpack_state* st, uint32_t m, const sk_skf_mesh_info* mi,
                             const unpack_vertices* uv) {
  /* {"name", "vertex_count", "vertex_joints": [[...] per vertex], "vertex_weights": [[...] per vertex, integers in the
   * file's precision: sum 255 for 8-bit files, 65535 for 16-bit]}; only non-zero influences are listed */
  const char* mname = st->sc && st->skinned_seen ? sk_scene_mesh_name(st->sc, st->scene_m - 1) : NULL;
  char fallback[32];
  snprintf(fallback, sizeof fallback, "mesh%u", m);
  printf("%s{\"name\":", m ? "," : "");
  cli_json_string(stdout, mname ? mname : fallback);
  printf(",\"vertex_count\":%zu,\"max_influences\":%u,\"order\":\"%s\",\"decoded\":%s", uv->vc, mi->max_influences,
         mi->order == 2 ? "welded"
         : mi->order    ? "index_buffer"
                        : "file",
         uv->failed ? "false" : "true");
  const unsigned div = st->info.weight_bits == 8 ? 257u : 1u; /* decoded as u16: 8-bit values come as w * 257 */
  const uint32_t k = uv->k;
  for (int pass = 0; !uv->failed && pass < 2; ++pass) {
    printf(pass ? ",\"vertex_weights\":[" : ",\"vertex_joints\":[");
    for (size_t v = 0; v < uv->vc && v < st->max_v; ++v) {
      printf("%s[", v ? "," : "");
      int first = 1;
      for (uint32_t s2 = 0; s2 < k; ++s2)
        if (uv->we[v * k + s2]) {
          printf("%s%u", first ? "" : ",", pass ? uv->we[v * k + s2] / div : uv->jo[v * k + s2]);
          first = 0;
        }
      printf("]");
    }
    printf("]");
  }
  printf("}");
}

/* Mesh m as text: a line with its counts and order, then its first max_v vertices' joint:weight pairs (and centres). */
static void unpack_mesh_text(const unpack_state* st, uint32_t m, const sk_skf_mesh_info* mi,
                             const unpack_vertices* uv) {
  const double scale = 65535.0; /* decoded as u16 either way (8-bit files: w * 257) */
  const uint32_t k = uv->k;
  const float* cen = uv->cen;
  printf("mesh %u: %zu vertices, up to %u influences, %s order%s%s\n", m, uv->vc, mi->max_influences,
         mi->order == 2 ? "welded"
         : mi->order    ? "triangle"
                        : "file",
         cen ? ", centres of rotation" : "", uv->failed ? " (not decoded)" : "");
  for (size_t v = 0; !uv->failed && v < uv->vc && v < st->max_v; ++v) {
    printf("  v%zu:", v);
    for (uint32_t s = 0; s < k; ++s)
      if (uv->we[v * k + s]) printf(" %u:%.4f", uv->jo[v * k + s], uv->we[v * k + s] / scale);
    if (cen) printf("  centre (%.6g, %.6g, %.6g)", cen[3 * v], cen[3 * v + 1], cen[3 * v + 2]);
    printf("\n");
  }
}

/* Decodes mesh m of IN (ix and pos: the model's buffers for it, or NULL) and prints it. 0, or 2 when it could not be
 * decoded (after a message; it is still listed, as not decoded). */
static int unpack_mesh(const unpack_state* st, uint32_t m, const sk_skf_mesh_info* mi, const uint32_t* ix,
                       const float* pos) {
  sk_error err;
  size_t vc = (size_t)mi->vertex_count;
  uint32_t k = mi->max_influences > 4 ? 8 : 4;
  uint16_t* jo = malloc(vc * k * 2 + 2);
  uint16_t* we = malloc(vc * k * 2 + 2);
  sk_skf_decode_desc d = {0};
  d.size = sizeof d;
  d.mesh = m;
  d.influences = k;
  d.joint_type = SK_TYPE_U16;
  d.weight_type = SK_TYPE_U16;
  d.joints = jo;
  d.weights = we;
  d.vertex_capacity = vc;
  d.indices = mi->order ? ix : NULL;
  d.index_count = mi->order ? (size_t)mi->index_count : 0;
  d.positions = mi->order == 2 ? pos : NULL;
  float* cen =
      mi->has_centers && !st->json ? malloc(vc * 3 * sizeof *cen + 1) : NULL; /* the JSON schema has no centres */
  d.centers = cen;
  sk_result rc = jo && we && (cen || !mi->has_centers || st->json) ? sk_skf_decode(st->data, st->size, &d, &err)
                                                                   : SK_ERR_OUT_OF_MEMORY;
  if (rc)
    cli_file_error("unpack", st->in, "mesh %u: %s%s", m, rc == SK_ERR_OUT_OF_MEMORY ? "out of memory" : err.message,
                   mi->order && !st->model ? " (use --indices-from MODEL)" : "");
  const unpack_vertices uv = {vc, k, jo, we, cen, rc != SK_OK};
  if (st->json)
    unpack_mesh_json(st, m, mi, &uv);
  else
    unpack_mesh_text(st, m, mi, &uv);
  free(jo);
  free(we);
  free(cen);
  return rc ? 2 : 0;
}

/* Every mesh of IN with the model's buffers for it, decoded and printed; the JSON object closed. 0, or 2 when some
 * mesh could not be read or decoded (after a message). */
static int unpack_meshes(unpack_state* st) {
  int status = 0;
  st->scene_meshes = st->sc ? sk_scene_mesh_count(st->sc) : 0;
  if (st->json) printf("],\"meshes\":[");
  for (uint32_t m = 0; m < st->info.mesh_count; ++m) {
    sk_error err;
    sk_skf_mesh_info mi = {0};
    mi.size = sizeof mi;
    if (sk_skf_get_mesh_info(st->data, st->size, m, &mi, &err)) {
      cli_file_error("unpack", st->in, "%s", err.message);
      status = 2;
      break;
    }
    uint32_t* ix;
    float* pos;
    size_t ni, np;
    unpack_model_buffers(st, &ix, &pos, &ni, &np);
    if (unpack_mismatch(st, m, &mi, ix, pos, ni, np) || unpack_mesh(st, m, &mi, ix, pos)) status = 2;
    free(ix);
    free(pos);
  }
  if (st->json) printf("]}\n");
  return status;
}

int cli_unpack(int argc, char** argv) {
  unpack_state st;
  int status = unpack_parse_args(argc, argv, &st);
  if (status) return status;
  unsigned char* data;
  if (!load_skf("unpack", st.in, &data, &st.size, &st.info)) return 2;
  st.data = data;
  char* found = st.model ? NULL : unpack_find_model(&st);
  if (st.model && cli_load_scene("unpack", st.model, NULL, &st.sc))
    status = 2;
  else if (!(status = unpack_skeleton(&st)))
    status = unpack_meshes(&st);
  free(data);
  free(found);
  sk_scene_destroy(st.sc);
  return status;
}

/* ],"joints":[{"name","parent"}...] of an .skf's joint table (closing the chunk list); 0, or 2 after an error line. */
static int print_skf_joints(const unsigned char* data, size_t size, const sk_skf_info* info) {
  uint32_t nj = info->joint_count;
  int32_t* parents = malloc((size_t)nj * sizeof *parents + 1);
  float* ib = malloc(16 * (size_t)nj * sizeof *ib + 1);
  char* names = malloc(info->names_size + 1);
  sk_error err;
  int rc = !parents || !ib || !names || sk_skf_decode_skeleton(data, size, parents, ib, names, info->names_size, &err);
  if (rc) {
    fprintf(stderr, "skinkit info: %s\n", parents && ib && names ? err.message : "out of memory");
  } else {
    printf("],\"joints\":[");
    const char* nm = names;
    for (uint32_t j = 0; j < nj; ++j, nm += strlen(nm) + 1) {
      printf("%s{\"name\":", j ? "," : "");
      cli_json_string(stdout, nm);
      printf(",\"parent\":%d}", parents[j]);
    }
    printf("]");
  }
  free(parents);
  free(ib);
  free(names);
  return rc ? 2 : 0;
}

/* The file's chunk table into *ch (calloc'd, *cc entries); false, said on stderr, when it cannot be read. */
static bool skf_chunk_table(const unsigned char* data, size_t size, const sk_skf_info* info, sk_skf_chunk** ch,
                            uint32_t* cc) {
  *ch = calloc(info->chunk_count ? info->chunk_count : 1, sizeof **ch);
  *cc = 0;
  if (!*ch) return false;
  for (uint32_t i = 0; i < info->chunk_count; ++i) (*ch)[i].size = sizeof **ch;
  sk_error err;
  if (sk_skf_chunks(data, size, *ch, info->chunk_count, cc, &err)) {
    fprintf(stderr, "skinkit info: %s\n", err.message);
    return false;
  }
  return true;
}

/* The JSON report's head up to the opening of "meshes"; false when the joint table cannot be read. */
static bool info_json_head(const char* in, const unsigned char* data, size_t size, const sk_skf_info* info,
                           const sk_skf_chunk* ch, uint32_t cc) {
  unsigned long long influence_bytes = 0; /* stored bytes of the influence chunks (what grows with vertices) */
  for (uint32_t i = 0; i < cc; ++i)
    if (!strcmp(ch[i].tag, "INFL")) influence_bytes += ch[i].stored_size;
  cli_json_head(stdout, "info");
  printf(",\"path\":");
  cli_json_string(stdout, in);
  printf(",\"influence_bytes\":%llu", influence_bytes);
  printf(
      ",\"format\":\"skf\",\"skf_version\":\"%u.%u\",\"flags\":%u,\"weight_bits\":%u,\"joint_bits\":%u,"
      "\"joint_count\":%u,\"mesh_count\":%u,\"vertex_count\":%llu,\"max_influences\":%u,\"file_size\":%llu,"
      "\"header_crc\":\"%08x\","
      "\"payload_crc\":\"%08x\",\"chunks\":[",
      info->major, info->minor, info->flags, info->weight_bits, info->joint_bits, info->joint_count, info->mesh_count,
      (unsigned long long)info->vertex_count, info->max_influences, (unsigned long long)info->file_size,
      info->header_crc, info->payload_crc);
  for (uint32_t i = 0; i < cc; ++i) {
    printf("%s{\"tag\":", i ? "," : "");
    cli_json_string(stdout, ch[i].tag); /* from the file: any bytes */
    printf(",\"offset\":%llu,\"stored_size\":%u,\"raw_size\":%u}", (unsigned long long)ch[i].offset, ch[i].stored_size,
           ch[i].raw_size);
  }
  if (print_skf_joints(data, size, info)) {
    printf("]}\n");
    return false;
  }
  printf(",\"meshes\":[");
  return true;
}

static void info_text_head(const char* in, const sk_skf_info* info, const sk_skf_chunk* ch, uint32_t cc) {
  printf("%s: skf %u.%u, %u joints, %u meshes, %llu vertices, %u-bit weights, up to %u influences, %llu bytes\n", in,
         info->major, info->minor, info->joint_count, info->mesh_count, (unsigned long long)info->vertex_count,
         info->weight_bits, info->max_influences, (unsigned long long)info->file_size);
  for (uint32_t i = 0; i < cc; ++i)
    printf("  chunk %-4s at %8llu: %8u stored, %8u raw\n", ch[i].tag, (unsigned long long)ch[i].offset,
           ch[i].stored_size, ch[i].raw_size);
}

static void info_mesh(uint32_t m, const sk_skf_mesh_info* mi, int json) {
  if (json) {
    const char* order = mi->order == 2 ? "welded" : mi->order ? "index_buffer" : "file";
    printf("%s{\"vertex_count\":%llu,\"max_influences\":%u,\"order\":\"%s\",\"index_count\":%llu,\"group\":%u",
           m ? "," : "", (unsigned long long)mi->vertex_count, mi->max_influences, order,
           (unsigned long long)mi->index_count, mi->group);
    if (mi->has_position_hash) printf(",\"position_hash\":\"%08x\"", mi->position_hash);
    printf("}");
    return;
  }
  const char* order = mi->order == 2 ? "welded" : mi->order ? "triangle" : "file";
  printf("  mesh %u: %llu vertices, up to %u influences, %s order, group %u%s\n", m,
         (unsigned long long)mi->vertex_count, mi->max_influences, order, mi->group,
         mi->has_centers ? ", centres of rotation" : "");
}

/* Each mesh's line (or JSON object); 0, or 2 after the first mesh whose record cannot be read. */
static int info_meshes(const unsigned char* data, size_t size, const sk_skf_info* info, int json) {
  for (uint32_t m = 0; m < info->mesh_count; ++m) {
    sk_skf_mesh_info mi = {0};
    mi.size = sizeof mi;
    sk_error err;
    if (sk_skf_get_mesh_info(data, size, m, &mi, &err)) {
      fprintf(stderr, "skinkit info: %s\n", err.message);
      return 2;
    }
    info_mesh(m, &mi, json);
  }
  return 0;
}

int cli_skf_info(int argc, char** argv) {
  const char* in = NULL;
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!in && argv[i][0] != '-')
      in = argv[i];
    else
      return cli_arg_unknown("info", argv[i]);
  }
  if (!in) return cli_arg_error("info", "needs FILE");
  unsigned char* data;
  size_t size;
  sk_skf_info info;
  if (!load_skf("info", in, &data, &size, &info)) return 2;
  sk_skf_chunk* ch = NULL;
  uint32_t cc = 0;
  int status = 2;
  if (skf_chunk_table(data, size, &info, &ch, &cc)) {
    if (!json) info_text_head(in, &info, ch, cc);
    if (!json || info_json_head(in, data, size, &info, ch, cc)) {
      status = info_meshes(data, size, &info, json);
      if (json) printf("]}\n");
    }
  }
  free(ch);
  free(data);
  return status;
}
