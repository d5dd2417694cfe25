/* cli_bind.c - `skinkit bind IN OUT`: automatic binding of every mesh of a rigged file, through sk_bind. */
#define _DEFAULT_SOURCE /* clock_gettime, access, lstat, ... */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli_common.h"
#include "skinkit.h"

const char cli_bind_usage[] =
    "usage: skinkit bind IN OUT [--method M] [--max-influences N] [--joints a,b,...] [--force] [--report]\n"
    "                   [--json [FILE|-]]      (or: skinkit bind IN -o OUT ...; -o/--output OUT)\n"
    "  Computes new skin weights for every mesh of IN (existing weights are ignored) from the file's skeleton and\n"
    "  writes OUT (.glb, .gltf, .dae; glTF keeps the 4 largest weights). Bones sit where the mesh's inverse bind\n"
    "  matrices put them (bind pose). First a fit check: when under 75 % of the deform bones' points sit in the\n"
    "  skinned meshes, or the bones are not 0.1 .. 3 x the model's size, a warning names the figures and the likely\n"
    "  cause (scale: units; axis: Y-up vs Z-up; offset: moved or another armature); the bind still runs.\n"
    "  --method M           robust (default) | heat | nearest | capsule | delaunay\n"
    "  --max-influences N   1 .. 255 (default 4)\n"
    "  --joints a,b,...     only these joints receive weights (names as in `skinkit info`)\n"
    "  --all-joints         let every skeleton node receive weights; by default only the deform joints do: the\n"
    "                       joints some skin of IN lists (never the scene root, an armature object node or an\n"
    "                       importer's synthetic root, which are in the skeleton only as ancestors)\n"
    "  --force              replace an existing OUT (IN itself is never overwritten)\n"
    "  --report             also print the vertex count of every joint, per mesh\n"
    "  --json               print the report as JSON on stdout (per-joint counts and timings included; schema\n"
    "                       skinkit.bind, docs/json.md); --json FILE.json or --json=FILE writes it to FILE\n"
    "  A file whose meshes all have skins keeps its animations; when some mesh has no skin (a rigged file whose\n"
    "  skeleton comes from another mesh) the scene is rebuilt from meshes and skeleton, without animations.\n"
    "  Exit 0: written; 1: OUT exists (nothing written; use --force); 2: error (OUT is IN, no skeleton, bad option).\n";

static const char* const k_method_names[] = {"robust", "nearest", "heat", "capsule", "delaunay"};
#define METHOD_COUNT (sizeof k_method_names / sizeof k_method_names[0])

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static const char* method_name(uint32_t m) { return m < METHOD_COUNT ? k_method_names[m] : "?"; }

/* Result of one mesh. */
typedef struct bind_result {
  uint32_t bound; /* 0: mesh skipped (no vertices) */
  sk_bind_report rep;
  uint64_t* counts; /* joint_count */
} bind_result;

static const char* const k_fit_hints[] = {"", "scale", "axis", "offset"};

/* 1 when mesh m's vertices count for the fit check: skinned meshes (their positions are in the skeleton's bind
 * space), or every mesh when none is skinned (a rigid mesh's positions are in its own node's space). */
static int fit_mesh(sk_scene* s, uint32_t m, int any_skinned) {
  return !any_skinned || sk_scene_mesh_skin(s, m) != NULL;
}

/* The fit check before binding: the deform bones (bind space) against the skinned meshes' vertices together (a
 * character is often several meshes: body, eyes, armour). A warning with the figures and the likely cause on
 * stderr when the armature does not sit in the model; the bind still runs (the user may know better).
 * fit->size = 0: not run. */
static void check_fit(sk_scene* s, const sk_skeleton* sk, const uint8_t* deform, sk_bind_fit* fit) {
  memset(fit, 0, sizeof *fit);
  size_t nv = 0;
  int any = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) any |= sk_scene_mesh_skin(s, m) != NULL;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m)
    if (fit_mesh(s, m, any)) nv += sk_scene_mesh_positions(s, m, NULL, 0);
  float* pos = malloc((nv ? nv : 1) * sizeof *pos);
  if (!pos) return;
  size_t at = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m)
    if (fit_mesh(s, m, any)) at += sk_scene_mesh_positions(s, m, pos + at, nv - at);
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.positions = pos;
  d.vertex_count = nv / 3;
  d.skeleton = sk;
  d.deform = deform;
  fit->size = sizeof *fit;
  sk_error err;
  int rc = sk_bind_fit_check(&d, fit, &err);
  free(pos);
  if (rc != SK_OK) fit->size = 0;
  if (rc != SK_OK || fit->ok) return;
  static const char* const why[] = {"", "its size is off: a unit mismatch (cm vs m)?",
                                    "it fits once turned 90 degrees about X: imported with the wrong up axis?",
                                    "it sits away from the mesh: moved, or another character's armature?"};
  fprintf(stderr,
          "skinkit bind: warning: the armature does not fit the model (%.0f %% of the bone points in it, bones %.3g x "
          "its size); %s\n",
          100.0 * fit->inside_share, fit->scale_ratio, why[fit->hint <= 3 ? fit->hint : 0]);
}

static void print_fit_json(const sk_bind_fit* f) {
  if (!f->size) return;
  printf(",\"fit\":{\"ok\":%s,\"inside_share\":%.4f,\"scale_ratio\":%.4g,\"hint\":", f->ok ? "true" : "false",
         f->inside_share, f->scale_ratio);
  if (f->ok || f->hint == 0 || f->hint > 3)
    printf("null}");
  else
    printf("\"%s\"}", k_fit_hints[f->hint]);
}

/* A skeleton like the scene's but with this mesh's inverse bind matrices (bones in the mesh's bind space). NULL
 * when the mesh has none or they are unusable; the scene skeleton is used then. */
static sk_skeleton* mesh_bind_skeleton(const sk_scene* scene, uint32_t mesh, const sk_skeleton* base) {
  uint32_t nj = sk_skeleton_joint_count(base);
  float* ib = malloc((size_t)nj * 16 * sizeof *ib);
  float* local = malloc((size_t)nj * 16 * sizeof *local);
  const char** names = malloc((size_t)nj * sizeof *names);
  int32_t* parents = malloc((size_t)nj * sizeof *parents);
  sk_skeleton* out = NULL;
  if (ib && local && names && parents && sk_scene_mesh_inverse_binds(scene, mesh, ib, NULL, NULL) == SK_OK &&
      sk_skeleton_get_rest_local(base, local) == SK_OK) {
    for (uint32_t j = 0; j < nj; ++j) {
      names[j] = sk_skeleton_joint_name(base, j);
      parents[j] = sk_skeleton_joint_parent(base, j);
    }
    sk_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.size = sizeof sd;
    sd.joint_count = nj;
    sd.names = names;
    sd.parents = parents;
    sd.rest_local = local;
    sd.inverse_bind = ib;
    if (sk_skeleton_create(&sd, &out, NULL) != SK_OK) out = NULL;
  }
  free(ib);
  free(local);
  free(names);
  free(parents);
  return out;
}

/* The deform joints of IN: every joint some mesh's skin lists (sk_scene_mesh_inverse_binds' bound flags), as a
 * joint_count mask with its count in *n; NULL (every joint) when no skin lists any or memory runs out. */
static uint8_t* skin_joints(sk_scene* s, uint32_t nj, uint32_t nm, uint32_t* n) {
  uint8_t* mask = calloc(nj ? nj : 1, 1);
  uint8_t* bound = calloc(nj ? nj : 1, 1);
  *n = 0;
  for (uint32_t m = 0; mask && bound && m < nm; ++m) {
    if (sk_scene_mesh_inverse_binds(s, m, NULL, bound, NULL) != SK_OK) continue;
    for (uint32_t j = 0; j < nj; ++j) mask[j] |= bound[j];
  }
  for (uint32_t j = 0; mask && j < nj; ++j) *n += mask[j];
  free(bound);
  if (*n == 0) {
    free(mask);
    return NULL;
  }
  return mask;
}

/* Sets deform[j] = 1 for every joint named in the comma-separated list; returns 0 or prints the unknown name. */
static int parse_joints(const sk_skeleton* sk, const char* list, uint8_t* deform) {
  const char* p = list;
  while (*p) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len) {
      char* name = malloc(len + 1);
      if (!name) return 1;
      memcpy(name, p, len);
      name[len] = 0;
      uint32_t j = 0;
      if (sk_skeleton_find_joint(sk, name, &j) != SK_OK) {
        fprintf(stderr, "skinkit bind: no joint named \"%s\" (see `skinkit info`)\n", name);
        free(name);
        return 1;
      }
      deform[j] = 1;
      free(name);
    }
    p += len;
    if (*p == ',') ++p;
  }
  return 0;
}

typedef struct mesh_data {
  size_t nv, ni;
  float* pos;
  float* nrm;
  float* tan;
  float* uv;
  uint32_t* idx;
} mesh_data;

static void mesh_data_free(mesh_data* m) {
  free(m->pos);
  free(m->nrm);
  free(m->tan);
  free(m->uv);
  free(m->idx);
  memset(m, 0, sizeof *m);
}

/* Copies the streams of a mesh; optional ones stay NULL when absent. Returns 0 or 1 (out of memory). */
static int mesh_data_read(const sk_scene* s, uint32_t m, mesh_data* d) {
  memset(d, 0, sizeof *d);
  d->nv = sk_scene_mesh_vertex_count(s, m);
  d->ni = sk_scene_mesh_index_count(s, m);
  size_t np = sk_scene_mesh_positions(s, m, NULL, 0), nn = sk_scene_mesh_normals(s, m, NULL, 0);
  size_t nt = sk_scene_mesh_tangents(s, m, NULL, 0), nu = sk_scene_mesh_uv0(s, m, NULL, 0);
  d->pos = malloc((np ? np : 1) * sizeof(float));
  d->idx = malloc((d->ni ? d->ni : 1) * sizeof(uint32_t));
  if (nn) d->nrm = malloc(nn * sizeof(float));
  if (nt) d->tan = malloc(nt * sizeof(float));
  if (nu) d->uv = malloc(nu * sizeof(float));
  if (!d->pos || !d->idx || (nn && !d->nrm) || (nt && !d->tan) || (nu && !d->uv)) return 1;
  sk_scene_mesh_positions(s, m, d->pos, np);
  sk_scene_mesh_indices(s, m, d->idx, d->ni);
  if (nn) sk_scene_mesh_normals(s, m, d->nrm, nn);
  if (nt) sk_scene_mesh_tangents(s, m, d->tan, nt);
  if (nu) sk_scene_mesh_uv0(s, m, d->uv, nu);
  return 0;
}

static void print_report(const sk_scene* s, const sk_skeleton* sk, const bind_result* res, uint32_t nm,
                         const char* in, const char* out, uint32_t method, uint32_t max_inf, int per_joint, int json,
                         const sk_bind_fit* fit, double load_ms, double save_ms, double total_ms) {
  uint32_t nj = sk_skeleton_joint_count(sk);
  if (json) {
    cli_json_head(stdout, "bind");
    printf(",\"path\":");
    cli_json_string(stdout, in);
    printf(",\"output\":");
    cli_json_string(stdout, out);
    printf(",\"method\":\"%s\",\"max_influences\":%u,\"joint_count\":%u,\"meshes\":[", method_name(method), max_inf, nj);
    int first = 1;
    for (uint32_t m = 0; m < nm; ++m) {
      if (!res[m].bound) continue;
      printf("%s{\"name\":", first ? "" : ",");
      first = 0;
      cli_json_string(stdout, sk_scene_mesh_name(s, m));
      const sk_bind_report* r = &res[m].rep;
      printf(",\"vertex_count\":%zu,\"triangle_count\":%zu,\"method_used\":\"%s\",\"seconds\":%.6f,"
             "\"bound_vertex_count\":%llu,\"fallback_vertex_count\":%llu,\"joint_vertex_counts\":{",
             sk_scene_mesh_vertex_count(s, m), sk_scene_mesh_index_count(s, m) / 3, method_name(r->method_used),
             r->milliseconds / 1e3, (unsigned long long)r->bound_vertices, (unsigned long long)r->fallback_vertices);
      for (uint32_t j = 0; j < nj; ++j) {
        if (j) putchar(',');
        cli_json_string(stdout, sk_skeleton_joint_name(sk, j));
        printf(":%llu", (unsigned long long)res[m].counts[j]);
      }
      printf("}}");
    }
    putchar(']');
    print_fit_json(fit);
    printf(",\"load_seconds\":%.4f,\"save_seconds\":%.4f,\"seconds\":%.4f}\n", load_ms / 1e3, save_ms / 1e3,
           total_ms / 1e3);
    return;
  }
  for (uint32_t m = 0; m < nm; ++m) {
    if (!res[m].bound) continue;
    const sk_bind_report* r = &res[m].rep;
    printf("mesh \"%s\": %zu vertices, %zu triangles, %s, %.1f ms", sk_scene_mesh_name(s, m),
           sk_scene_mesh_vertex_count(s, m), sk_scene_mesh_index_count(s, m) / 3, method_name(r->method_used),
           r->milliseconds);
    if (r->fallback_vertices)
      printf(", %llu vertices by nearest-bone fallback", (unsigned long long)r->fallback_vertices);
    printf("\n");
    if (!per_joint) continue;
    for (uint32_t j = 0; j < nj; ++j)
      if (res[m].counts[j])
        printf("  %-32s %llu\n", sk_skeleton_joint_name(sk, j), (unsigned long long)res[m].counts[j]);
  }
  printf("load %.1f ms, save %.1f ms, total %.1f ms\nwrote %s\n", load_ms, save_ms, total_ms, out);
}

int cli_bind(int argc, char** argv) {
  const char *in = NULL, *out = NULL, *joints = NULL;
  uint32_t method = SK_BIND_ROBUST, max_inf = 4;
  int force = 0, per_joint = 0, json = 0, all_joints = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--force")) {
      force = 1;
    } else if (!strcmp(a, "--all-joints")) {
      all_joints = 1;
    } else if (!strcmp(a, "--report")) {
      per_joint = 1;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--method")) {
      const char* m = cli_arg_value("bind", argc, argv, &i);
      if (!m) return 2;
      method = (uint32_t)METHOD_COUNT;
      for (uint32_t k = 0; k < METHOD_COUNT; ++k)
        if (!strcmp(m, k_method_names[k])) method = k;
      if (method == METHOD_COUNT)
        return cli_arg_error("bind", "unknown method \"%s\" for --method (robust, heat, nearest, capsule, delaunay)", m);
    } else if (!strcmp(a, "--max-influences")) {
      const char* v = cli_arg_value("bind", argc, argv, &i);
      if (!v || cli_arg_u32("bind", a, v, 1, 255, &max_inf)) return 2;
    } else if (!strcmp(a, "--joints")) {
      if (!(joints = cli_arg_value("bind", argc, argv, &i))) return 2;
    } else if (a[0] == '-' && a[1]) {
      return cli_arg_unknown("bind", a);
    } else if (!in) {
      in = a;
    } else if (!out) {
      out = a;
    } else {
      return cli_arg_error("bind", "too many arguments (at \"%s\")", a);
    }
  }
  if (!in || !out) return cli_arg_error("bind", "needs IN and OUT");
  if (cli_check_model_output("bind", out)) return 2;
  if (cli_same_file(in, out)) {
    fprintf(stderr, "skinkit bind: refusing to overwrite the input %s\n", in);
    return 2;
  }
  struct stat st;
  if (!force && stat(out, &st) == 0) {
    fprintf(stderr, "skinkit bind: %s exists (use --force to replace it)\n", out);
    return 1;
  }
  double t0 = now_ms();
  sk_error err;
  sk_scene* s = NULL;
  if (cli_load_scene("bind", in, &s)) return 2;
  double load_ms = now_ms() - t0;
  const sk_skeleton* sk = sk_scene_skeleton(s);
  if (!sk) {
    fprintf(stderr, "skinkit bind: %s has no skeleton (no mesh references a bone): nothing to bind to\n", in);
    sk_scene_destroy(s);
    return 2;
  }
  uint32_t nj = sk_skeleton_joint_count(sk), nm = sk_scene_mesh_count(s);
  uint8_t* deform = NULL;
  if (joints) {
    deform = calloc(nj, 1);
    if (!deform || parse_joints(sk, joints, deform)) {
      free(deform);
      sk_scene_destroy(s);
      return 2;
    }
  } else if (!all_joints) {
    uint32_t nd = 0;
    deform = skin_joints(s, nj, nm, &nd);
    if (deform && nd < nj && !json)
      printf("deform joints: %u of %u skeleton nodes (the joints IN's skins list; --all-joints for every node)\n", nd, nj);
  }
  sk_bind_fit fit;
  check_fit(s, sk, deform, &fit);
  int all_skinned = 1;
  for (uint32_t m = 0; m < nm; ++m)
    if (sk_scene_mesh_vertex_count(s, m) && !sk_scene_mesh_skin(s, m)) all_skinned = 0;
  bind_result* res = calloc(nm ? nm : 1, sizeof *res);
  sk_scene* rebuilt = NULL;
  int rc = res ? 0 : 2;
  if (!rc && !all_skinned && sk_scene_create(sk, &rebuilt, &err)) {
    fprintf(stderr, "skinkit bind: %s\n", err.message);
    rc = 2;
  }
  for (uint32_t m = 0; m < nm && !rc; ++m) {
    mesh_data md;
    if (mesh_data_read(s, m, &md)) {
      fprintf(stderr, "skinkit bind: out of memory reading mesh %u\n", m);
      mesh_data_free(&md);
      rc = 2;
      break;
    }
    sk_skin* target = sk_scene_mesh_skin(s, m); /* bound in place when the mesh has a skin */
    sk_skin* fresh = NULL;
    sk_skeleton* bind_sk = target ? mesh_bind_skeleton(s, m, sk) : NULL;
    float* ib = NULL;
    if (md.nv && (target || sk_skin_create(md.nv, nj, &fresh, &err) == SK_OK)) {
      res[m].counts = calloc(nj, sizeof *res[m].counts);
      sk_bind_desc d;
      memset(&d, 0, sizeof d);
      d.size = sizeof d;
      d.method = method;
      d.positions = md.pos;
      d.vertex_count = md.nv;
      d.triangles = md.idx;
      d.triangle_count = md.ni / 3;
      d.skeleton = bind_sk ? bind_sk : sk;
      d.max_influences = max_inf;
      d.deform = deform;
      d.bone_space = SK_BONE_SPACE_BIND;
      res[m].rep.size = sizeof res[m].rep;
      res[m].rep.joint_vertex_counts = res[m].counts;
      if (!res[m].counts || sk_bind(&d, target ? target : fresh, &res[m].rep, &err)) {
        fprintf(stderr, "skinkit bind: mesh \"%s\": %s\n", sk_scene_mesh_name(s, m),
                res[m].counts ? err.message : "out of memory");
        rc = 2;
      }
      res[m].bound = 1;
    } else if (md.nv) {
      fprintf(stderr, "skinkit bind: mesh \"%s\": %s\n", sk_scene_mesh_name(s, m), err.message);
      rc = 2;
    }
    if (!rc && rebuilt) {
      if (target) {
        ib = malloc((size_t)nj * 16 * sizeof *ib);
        if (ib && sk_scene_mesh_inverse_binds(s, m, ib, NULL, NULL) != SK_OK) {
          free(ib);
          ib = NULL;
        }
      }
      sk_mesh_desc mdsc;
      memset(&mdsc, 0, sizeof mdsc);
      mdsc.size = sizeof mdsc;
      mdsc.name = sk_scene_mesh_name(s, m);
      mdsc.vertex_count = md.nv;
      mdsc.positions = md.pos;
      mdsc.normals = md.nrm;
      mdsc.tangents = md.tan;
      mdsc.uv0 = md.uv;
      mdsc.indices = md.idx;
      mdsc.index_count = md.ni;
      mdsc.skin = target ? target : fresh;
      mdsc.inverse_bind = ib;
      if (md.nv && sk_scene_add_mesh(rebuilt, &mdsc, NULL, &err)) {
        fprintf(stderr, "skinkit bind: mesh \"%s\": %s\n", sk_scene_mesh_name(s, m), err.message);
        rc = 2;
      }
    }
    free(ib);
    sk_skin_destroy(fresh);
    sk_skeleton_destroy(bind_sk);
    mesh_data_free(&md);
  }
  double save_ms = 0.0;
  if (!rc) {
    if (rebuilt)
      fprintf(stderr, "skinkit bind: note: some meshes had no skin; %s is rebuilt without animations\n", out);
    sk_save_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.overwrite = (uint32_t)force;
    double ts = now_ms();
    int src = sk_scene_save(rebuilt ? rebuilt : s, out, &o, &err);
    save_ms = now_ms() - ts;
    if (src) {
      fprintf(stderr, "skinkit bind: %s\n", err.message);
      rc = src == SK_ERR_EXISTS ? 1 : 2;
    }
  }
  if (!rc) print_report(s, sk, res, nm, in, out, method, max_inf, per_joint, json, &fit, load_ms, save_ms,
                         now_ms() - t0);
  for (uint32_t m = 0; res && m < nm; ++m) free(res[m].counts);
  free(res);
  free(deform);
  sk_scene_destroy(rebuilt);
  sk_scene_destroy(s);
  return rc;
}
