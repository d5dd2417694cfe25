/* cli_weights.c - `skinkit weights IN OUT [ops]`: weight editing operations on every skinned mesh of a scene, through
 * the public sk_weights_* functions, with a per-operation report; writes OUT through sk_scene_save. */
#define _DEFAULT_SOURCE /* clock_gettime, access, lstat, ... */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "skinkit.h"

const char cli_weights_usage[] =
    "usage: skinkit weights IN OUT [--normalize] [--limit N] [--prune EPS] [--quantize 8|16] "
    "[--smooth ITER[:FACTOR]]\n"
    "                              [--cotangent] [--remove-rogue [--per-component]] [--mirror +x|-x|flip]\n"
    "                              [--mirror-axis x|y|z] [--mirror-tolerance F]\n"
    "                              [--joints a,b] [--lock a,b]"
    " [--links JOINT:DEGREES,...]\n"
    "                              [--weights-type float|u8|u16] [--as-is] [--force] [--json [FILE|-]] [-o OUT]\n"
    "  Edits the skin weights of every skinned mesh of IN (any format Assimp reads) and writes OUT (.glb, .gltf, "
    ".dae, .fbx;\n"
    "  IN itself is never overwritten); a mesh attached rigidly to a joint (no skin in IN, under a joint's node: a\n"
    "  sword in a hand) is left as it is. The operations asked for run in this fixed order:\n"
    "    1. --remove-rogue        rogue-vertex removal (Weber 2000), per loose part: on each part, a small island of\n"
    "                             a joint's weights (< 5 % of its main region) far from that region (> 10 % of the\n"
    "                             part's size) loses that joint, the vertex renormalized over its other joints.\n"
    "                             Weights a part carries in one region are never touched (--per-component: the\n"
    "                             default, accepted)\n"
    "    2. --mirror +x|-x|flip   mirror across the X = 0 plane: +x copies the +X side onto the -X side, -x the other\n"
    "                             way, flip swaps the sides; joint names are mapped Left <-> Right. +y, -y, +z, -z\n"
    "                             (or --mirror-axis y|z) mirror across the Y = 0 or Z = 0 plane instead (the mesh's\n"
    "                             own coordinates, as the file stores them); --mirror-tolerance F matches a vertex\n"
    "                             to the one nearest its reflection within F x the mesh's size (default 1e-4)\n"
    "    3. --smooth ITER[:F]     Laplacian smoothing over mesh edges: ITER iterations (1..10000), factor F in (0, 1]\n"
    "                             (default 0.5); --cotangent uses cotangent edge weights instead of uniform ones;\n"
    "                             vertices at one position (seam copies) are one point; 1-3 treat meshes that share\n"
    "                             vertices at exactly the same positions (an object split by material) as one\n"
    "                             surface\n"
    "    4. --normalize           each vertex's weights sum to 1; entries no file can hold (a NaN, infinite or\n"
    "                             negative weight) are removed first and counted\n"
    "    5. --prune EPS           drop influences below EPS (0 < EPS <= 1); a vertex keeps at least one and pruned\n"
    "                             vertices are renormalized\n"
    "    6. --limit N             keep the N largest influences per vertex (1..255), renormalized\n"
    "    7. --quantize 8|16       snap weights to 8/16-bit integers summing exactly to 255 / 65535\n"
    "    8. --links J:DEG,...     bone links (Weber 2000): each joint J whose range DEG exceeds 60 degrees gets\n"
    "                             ceil(DEG / 60) - 1 link joints along its bone (\"J_link1\", ...) and the weights "
    "around\n"
    "                             it are spread over the chain by position; OUT gets the linked skeleton and keeps\n"
    "                             the rest of IN (materials, clips - every pose the same -, blend shapes, names)\n"
    "  --joints a,b   only vertices influenced (in IN) by these joints are edited; smoothing smooths these joints\n"
    "                 only, on those vertices and the ones ITER edges around them (so a region can soften outward)\n"
    "  --lock a,b     the weights of these joints never change (the others are renormalized around them; a glTF\n"
    "                 OUT's cut to what its primitives hold is made around them too)\n"
    "  --weights-type T  glTF weights as float, u8 or u16 (normalized, sums exactly 255 / 65535); default: the type\n"
    "                 of a glTF IN (float otherwise). glTF IN -> glTF OUT (a .glb to either, a .gltf to .gltf) edits "
    "IN: only\n"
    "                 JOINTS_n/WEIGHTS_n change, materials, textures, extensions and every other byte stay.\n"
    "                 FBX IN (binary or ASCII) -> .fbx OUT edits IN the same way: only the clusters' weights\n"
    "                 change; polygons, control points, blend shapes and every other record stay; and Collada IN\n"
    "                 -> .dae OUT: only the skin controllers' <vcount>/<v> change (new weights appended), every\n"
    "                 other byte stays\n"
    "  --force        replace an existing OUT\n"
    "  --json         print the report as one JSON object instead of text (schema skinkit.weights, docs/json.md);\n"
    "                 --json FILE.json or --json=FILE writes it to FILE. -o/--output OUT: OUT as an option\n"
    "  The report gives, per mesh and operation, the vertices visited, changed (a weight moved by more than 1e-6)\n"
    "  and flagged (the operation could not apply and left them unchanged: invalid entries, locked weights in the\n"
    "  way, no mirror partner) and the entries removed or moved. NaN, infinite and negative weights left after the\n"
    "  operations are named in a warning: no file keeps them (--normalize removes them).\n"
    "  OUT receives the weights as edited. A glTF OUT holds per vertex what the source's primitive held (4 per\n"
    "  JOINTS_n/WEIGHTS_n set; 4 from other formats): a vertex with more is written with its largest, renormalized\n"
    "  (a warning says so); --limit N writes up to N (JOINTS_1/WEIGHTS_1... past 4). A vertex whose weights do not\n"
    "  sum to 1 (as IN stored them, no operation having renormalized it) is written renormalized, as glTF requires\n"
    "  (a warning says how many). --as-is writes every influence and sum as edited (a glTF OUT may then break the\n"
    "  spec; .dae and .fbx OUT always get the weights as edited).\n"
    "  Exit 0: written; 1: OUT exists (nothing written; use --force); 2: error (bad arguments, OUT is IN, unreadable "
    "IN,\n"
    "  no skinned mesh, unknown joint, an operation failed).\n";

typedef struct opts {
  const char *in, *out;
  int normalize, cotangent, rogue, per_component, force, json, as_is;
  uint32_t limit, quantize, smooth_iter, weights_type;
  float prune, smooth_factor;
  int mirror;       /* -1 = none, else sk_mirror_mode */
  int mirror_axis;  /* 0 x, 1 y, 2 z: the plane through the origin across that axis, in the mesh's coordinates */
  float mirror_tol; /* matching distance as a share of the mesh's bounding-box diagonal; 0 = the library's 1e-4 */
  const char *joints, *lock, *links;
} opts;

static int bad(const char* fmt, const char* arg) {
  fprintf(stderr, "skinkit weights: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nsee skinkit weights --help\n");
  return 2;
}

/* 0 when s is a whole number lo..hi (cli_parse_u32), else -1. */
static int parse_u32(const char* s, uint32_t lo, uint32_t hi, uint32_t* out) {
  return cli_parse_u32(s, lo, hi, out) ? 0 : -1;
}

/* The flag a (an option without a value) set in o; false when a is no such flag. */
static bool parse_flag(const char* a, opts* o) {
  int* const flag = !strcmp(a, "--normalize")       ? &o->normalize
                    : !strcmp(a, "--cotangent")     ? &o->cotangent
                    : !strcmp(a, "--remove-rogue")  ? &o->rogue
                    : !strcmp(a, "--per-component") ? &o->per_component
                    : !strcmp(a, "--force")         ? &o->force
                    : !strcmp(a, "--as-is")         ? &o->as_is
                    : !strcmp(a, "--json")          ? &o->json
                                                    : NULL;
  if (flag) *flag = 1;
  return flag != NULL;
}

/* Whether a is an option that takes a value. */
static bool takes_value(const char* a) {
  static const char* const k_valued[] = {"--weights-type", "--limit",       "--prune",           "--quantize",
                                         "--smooth",       "--mirror",      "--joints",          "--lock",
                                         "--links",        "--mirror-axis", "--mirror-tolerance"};
  for (size_t k = 0; k < sizeof k_valued / sizeof *k_valued; ++k)
    if (!strcmp(a, k_valued[k])) return true;
  return false;
}

/* --smooth ITER[:FACTOR] */
static int parse_smooth(const char* next, opts* o) {
  char buf[64];
  if (strlen(next) >= sizeof buf) return bad("--smooth ITER[:FACTOR], not \"%s\"", next);
  strcpy(buf, next);
  char* colon = strchr(buf, ':');
  o->smooth_factor = 0.5f;
  if (colon) {
    *colon = 0;
    double f = 0.0;
    if (!cli_parse_real(colon + 1, 0.0, 1.0, CLI_OPEN_LO, &f))
      return bad("--smooth factor must be in (0, 1], not \"%s\"", next);
    o->smooth_factor = (float)f;
  }
  if (parse_u32(buf, 1, 10000, &o->smooth_iter))
    return bad("--smooth needs ITER 1..10000 with an optional :FACTOR, not \"%s\"", next);
  return 0;
}

/* --mirror DIRECTION and --mirror-axis AXIS: one axis however often it is named (*axis_given once it is). */
static int parse_mirror(const char* a, const char* next, opts* o, int* axis_given) {
  if (!strcmp(a, "--mirror-axis")) {
    if (!(next[0] >= 'x' && next[0] <= 'z' && !next[1])) return bad("--mirror-axis takes x, y or z, not \"%s\"", next);
    if (*axis_given && o->mirror_axis != next[0] - 'x') return bad("--mirror-axis %s names another axis", next);
    o->mirror_axis = next[0] - 'x';
    *axis_given = 1;
  } else if ((next[0] == '+' || next[0] == '-') && next[1] >= 'x' && next[1] <= 'z' && !next[2]) {
    o->mirror = next[0] == '+' ? SK_MIRROR_POSITIVE_TO_NEGATIVE : SK_MIRROR_NEGATIVE_TO_POSITIVE;
    if (*axis_given && o->mirror_axis != next[1] - 'x') return bad("--mirror %s names another axis", next);
    o->mirror_axis = next[1] - 'x';
    *axis_given = 1;
  } else if (!strcmp(next, "flip")) {
    o->mirror = SK_MIRROR_FLIP;
  } else {
    return bad("--mirror takes +x, -x, +y, -y, +z, -z or flip, not \"%s\"", next);
  }
  return 0;
}

/* The option a (takes_value) with its value next. */
static int parse_value(const char* a, const char* next, opts* o, int* axis_given) {
  double v = 0.0;
  if (!strcmp(a, "--weights-type")) {
    o->weights_type = !strcmp(next, "float") ? SK_WEIGHTS_FLOAT
                      : !strcmp(next, "u8")  ? SK_WEIGHTS_U8
                      : !strcmp(next, "u16") ? SK_WEIGHTS_U16
                                             : 99u;
    if (o->weights_type == 99u) return bad("--weights-type takes float, u8 or u16, not \"%s\"", next);
  } else if (!strcmp(a, "--limit")) {
    if (parse_u32(next, 1, 255, &o->limit)) return bad("--limit needs an integer 1..255, not \"%s\"", next);
  } else if (!strcmp(a, "--prune")) {
    if (!cli_parse_real(next, 0.0, 1.0, CLI_OPEN_LO, &v)) return bad("--prune needs 0 < EPS <= 1, not \"%s\"", next);
    o->prune = (float)v;
  } else if (!strcmp(a, "--quantize")) {
    if (parse_u32(next, 8, 16, &o->quantize) || (o->quantize != 8 && o->quantize != 16))
      return bad("--quantize takes 8 or 16, not \"%s\"", next);
  } else if (!strcmp(a, "--smooth")) {
    return parse_smooth(next, o);
  } else if (!strcmp(a, "--mirror") || !strcmp(a, "--mirror-axis")) {
    return parse_mirror(a, next, o, axis_given);
  } else if (!strcmp(a, "--mirror-tolerance")) {
    if (!cli_parse_real(next, 0.0, 0.5, CLI_OPEN_LO, &v))
      return bad("--mirror-tolerance needs a share of the mesh's size in (0, 0.5], not \"%s\"", next);
    o->mirror_tol = (float)v;
  } else if (!strcmp(a, "--joints")) {
    o->joints = next;
  } else if (!strcmp(a, "--links")) {
    o->links = next;
  } else {
    o->lock = next;
  }
  return 0;
}

/* The options' combinations, once all are read. */
static int check_args(const opts* o, int axis_given) {
  if (!o->in || !o->out) return bad("%s", "IN and OUT are required");
  if (cli_check_output_dir("weights", o->out) || cli_check_model_format("weights", o->out)) return 2;
  if (o->cotangent && !o->smooth_iter) return bad("%s", "--cotangent goes with --smooth");
  if (o->per_component && !o->rogue) return bad("%s", "--per-component goes with --remove-rogue");
  if (o->mirror < 0 && (axis_given || o->mirror_tol > 0.0f))
    return bad("%s", "--mirror-axis and --mirror-tolerance go with --mirror");
  if (!o->normalize && !o->limit && !o->prune && !o->quantize && !o->smooth_iter && !o->rogue && o->mirror < 0 &&
      !o->links)
    return bad("%s", "no operation given (use `skinkit convert` to copy a file)");
  return 0;
}

static int parse_args(int argc, char** argv, opts* o) {
  memset(o, 0, sizeof *o);
  o->mirror = -1;
  int axis_given = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (parse_flag(a, o)) continue;
    if (takes_value(a)) {
      if (i + 1 >= argc) return bad("%s needs a value", a);
      int rc = parse_value(a, argv[++i], o, &axis_given);
      if (rc) return rc;
    } else if (a[0] == '-' && a[1]) {
      return bad("unknown option %s", a);
    } else if (!o->in) {
      o->in = a;
    } else if (!o->out) {
      o->out = a;
    } else {
      return bad("too many arguments (at %s)", a);
    }
  }
  return check_args(o, axis_given);
}

/* Marks the joints of a comma-separated name list in flags (joint_count bytes); fills list/count when non-NULL. */
static int resolve_joints(const sk_skeleton* sk, const char* names, uint8_t* flags, uint32_t* list, size_t* count) {
  size_t n = 0;
  const char* p = names;
  while (*p) {
    const char* comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char name[512];
    if (len == 0 || len >= sizeof name) {
      fprintf(stderr, "skinkit weights: empty or overlong joint name in \"%s\"\n", names);
      return 2;
    }
    memcpy(name, p, len);
    name[len] = 0;
    uint32_t j;
    if (sk_skeleton_find_joint(sk, name, &j) != SK_OK) {
      cli_in_error("weights", "unknown joint \"%s\" (the skeleton has %u joints)", name, sk_skeleton_joint_count(sk));
      return 2;
    }
    if (!flags[j] && list) list[n++] = j;
    flags[j] = 1;
    p += len;
    if (*p == ',') ++p;
  }
  if (count) *count = n;
  return 0;
}

/* "J:DEG,J:DEG" into ranges (joint_count floats, degrees). */
static int resolve_links(const sk_skeleton* sk, const char* spec, float* ranges) {
  const char* p = spec;
  while (*p) {
    const char* comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[512];
    if (len == 0 || len >= sizeof item) {
      fprintf(stderr, "skinkit weights: --links wants JOINT:DEGREES[,JOINT:DEGREES...], not \"%s\"\n", spec);
      return 2;
    }
    memcpy(item, p, len);
    item[len] = 0;
    char* colon = strrchr(item, ':');
    double deg = -1.0;
    if (!colon || colon == item || !cli_parse_real(colon + 1, 0.0, 360.0, 0, &deg)) {
      fprintf(stderr, "skinkit weights: --links item \"%s\" is not JOINT:DEGREES with 0 <= DEGREES <= 360\n", item);
      return 2;
    }
    *colon = 0;
    uint32_t j;
    if (sk_skeleton_find_joint(sk, item, &j) != SK_OK) {
      cli_in_error("weights", "unknown joint \"%s\" (the skeleton has %u joints)", item, sk_skeleton_joint_count(sk));
      return 2;
    }
    ranges[j] = (float)deg;
    p += len;
    if (*p == ',') ++p;
  }
  return 0;
}

typedef struct op_line {
  const char* op;
  sk_weights_report r;
  int skipped;
  char note[SK_ERROR_MESSAGE_SIZE]; /* why it was skipped */
  uint32_t surface_meshes; /* > 1: run on a surface of that many meshes (cli_surface.c), counts over all of them */
  int32_t surface;         /* >= 0: run with the surface that mesh `surface` reports (no counts here) */
  int dropped;             /* its invalid entries were removed (normalize --drop-invalid), not left */
} op_line;

static void print_ops(const char* mesh, size_t V, const op_line* ops, int nops, int json, int first) {
  if (json) {
    printf("%s{\"name\":", first ? "" : ",");
    cli_json_string(stdout, mesh);
    printf(",\"vertex_count\":%zu,\"operations\":[", V);
    for (int i = 0; i < nops; ++i) {
      const sk_weights_report* r = &ops[i].r;
      printf("%s{\"op\":\"%s\"", i ? "," : "", ops[i].op);
      if (ops[i].surface_meshes > 1) printf(",\"surface_mesh_count\":%u", ops[i].surface_meshes);
      if (ops[i].surface >= 0) {
        printf(",\"surface\":%d}", ops[i].surface);
        continue;
      }
      if (ops[i].skipped) {
        printf(",\"skipped\":");
        cli_json_string(stdout, ops[i].note);
      } else {
        printf(
            ",\"visited_count\":%llu,\"changed_count\":%llu,\"flagged_count\":%llu,\"invalid_entry_count\":%llu,"
            "\"sum_off_count\":%llu,\"changed_entry_count\":%llu,\"unmatched_count\":%llu,"
            "\"affected_joint_count\":%llu,\"before_influence_count\":%llu,\"after_influence_count\":%llu",
            (unsigned long long)r->vertices_visited, (unsigned long long)r->vertices_changed,
            (unsigned long long)r->vertices_failed, (unsigned long long)r->invalid_entries,
            (unsigned long long)r->sum_off, (unsigned long long)r->entries_changed, (unsigned long long)r->unmatched,
            (unsigned long long)r->joints_affected, (unsigned long long)r->influences_before,
            (unsigned long long)r->influences_after);
      }
      printf("}");
    }
    printf("]}");
    return;
  }
  printf("mesh \"%s\" (%zu vertices)\n", mesh, V);
  for (int i = 0; i < nops; ++i) {
    const sk_weights_report* r = &ops[i].r;
    if (ops[i].skipped) {
      printf("  %-13s skipped: %s\n", ops[i].op, ops[i].note);
      continue;
    }
    if (ops[i].surface >= 0) {
      printf("  %-13s with mesh %d, as one surface (counted there)\n", ops[i].op, ops[i].surface);
      continue;
    }
    if (ops[i].surface_meshes > 1)
      printf("  %-13s (one surface with %u other mesh%s: counts over all of them)\n", ops[i].op,
             ops[i].surface_meshes - 1, ops[i].surface_meshes > 2 ? "es" : "");
    printf("  %-13s %llu changed, %llu flagged (left unchanged) of %llu visited", ops[i].op,
           (unsigned long long)r->vertices_changed, (unsigned long long)r->vertices_failed,
           (unsigned long long)r->vertices_visited);
    if (r->entries_changed)
      printf(", %llu entries %s", (unsigned long long)r->entries_changed,
             !strcmp(ops[i].op, "remove-rogue") ? "moved"
             : !strcmp(ops[i].op, "links")      ? "(link joints) added"
                                                : "removed");
    if (r->unmatched) printf(", %llu without a mirror partner", (unsigned long long)r->unmatched);
    if (r->sum_off) printf(", %llu left off sum 1 (locked weights, or none to scale)", (unsigned long long)r->sum_off);
    if (r->invalid_entries)
      printf(", %llu invalid entries%s", (unsigned long long)r->invalid_entries, ops[i].dropped ? " removed" : "");
    printf(" (influences %llu -> %llu)\n", (unsigned long long)r->influences_before,
           (unsigned long long)r->influences_after);
  }
}

/* A rigid attachment (sk_scene_mesh_rigid_joint: a mesh without a skin in its file, under a joint's node - a sword
 * in a hand) is left as it is: editing its one weight would skin it (mirror, smoothing with locks and links would
 * move some of its vertices to other joints), and the writers keep it as the file had it. */
static void print_rigid(const char* mesh, size_t V, const char* joint, int json, int first) {
  if (json) {
    printf("%s{\"name\":", first ? "" : ",");
    cli_json_string(stdout, mesh);
    printf(",\"vertex_count\":%zu,\"rigid_joint\":", V);
    cli_json_string(stdout, joint);
    printf(",\"operations\":[]}");
    return;
  }
  printf("mesh \"%s\" (%zu vertices): attached rigidly to joint \"%s\" (no skin in IN), left as it is\n", mesh, V,
         joint);
}

/* Bone links: the scene's linked skeleton and, per mesh, its spread skin and linked inverse binds (NULL for a mesh
 * without skin), given to the scene once every mesh ran (sk_scene_relink, then sk_scene_mesh_set_skin). */
typedef struct links_out {
  sk_skeleton* skeleton;
  sk_skin** skins;
  float** inverse_binds;
  uint32_t mesh_count;
} links_out;

static void links_free(links_out* lo) {
  for (uint32_t m = 0; m < lo->mesh_count; ++m) {
    if (lo->skins) sk_skin_destroy(lo->skins[m]);
    if (lo->inverse_binds) free(lo->inverse_binds[m]);
  }
  free(lo->skins);
  free(lo->inverse_binds);
  sk_skeleton_destroy(lo->skeleton);
  memset(lo, 0, sizeof *lo);
}

/* The linked skeleton into the scene (which keeps its meshes, materials, blend shapes and clips), then each mesh's
 * spread skin over it. 0, or 2 after a message. */
static int links_apply(sk_scene* s, links_out* lo) {
  sk_error err;
  if (sk_scene_relink(s, lo->skeleton, &err) != SK_OK) {
    cli_in_error("weights", "links: %s", err.message);
    return 2;
  }
  for (uint32_t m = 0; m < lo->mesh_count; ++m)
    if (lo->skins[m] && sk_scene_mesh_set_skin(s, m, lo->skins[m], lo->inverse_binds[m], &err) != SK_OK) {
      cli_in_error("weights", "mesh \"%s\": links: %s", sk_scene_mesh_name(s, m), err.message);
      return 2;
    }
  return 0;
}

/* Bone links on one skinned mesh: a copy of the skeleton carrying this mesh's inverse binds is linked (the positions
 * live in that bind space); the spread skin and the linked inverse binds go to lo for links_apply. */
static int link_mesh(sk_scene* s, uint32_t m, const sk_skeleton* sk, const float* ranges, const sk_weight_scope* scope,
                     const float* pos, links_out* lo, op_line* L) {
  sk_skin* skin = sk_scene_mesh_skin(s, m);
  uint32_t J = sk_skeleton_joint_count(sk);
  size_t V = sk_skin_vertex_count(skin);
  float* rest = malloc((size_t)J * 16 * sizeof(float));
  float* ib = malloc((size_t)J * 16 * sizeof(float));
  int32_t* parents = malloc((size_t)J * sizeof *parents);
  const char** names = malloc((size_t)J * sizeof *names);
  float* tails = malloc((size_t)J * 3 * sizeof *tails);
  float* lib = NULL;
  sk_skeleton *mesh_sk = NULL, *linked = NULL;
  sk_skin* ns = NULL;
  sk_error err;
  int rc = 0;
  if (!rest || !ib || !parents || !names || !tails) {
    cli_in_error("weights", "out of memory");
    rc = 2;
    goto done;
  }
  for (uint32_t j = 0; j < J; ++j) {
    names[j] = sk_skeleton_joint_name(sk, j);
    parents[j] = sk_skeleton_joint_parent(sk, j);
  }
  sk_skeleton_get_rest_local(sk, rest);
  sk_skeleton_desc sd;
  memset(&sd, 0, sizeof sd);
  sd.size = sizeof sd;
  sd.joint_count = J;
  sd.names = names;
  sd.parents = parents;
  sd.rest_local = rest;
  sd.inverse_bind = ib;
  sd.tails = sk_skeleton_get_tails(sk, tails) ? tails : NULL; /* the file's bone tails (Blender's Collada) */
  sk_bone_links_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.scope = *scope;
  d.ranges = ranges;
  d.range_count = J;
  d.positions = pos;
  d.position_count = V;
  if (sk_scene_mesh_inverse_binds(s, m, ib, NULL, &err) || sk_skeleton_create(&sd, &mesh_sk, &err) ||
      sk_bone_links(mesh_sk, skin, &d, &linked, &ns, &L->r, &err)) {
    cli_in_error("weights", "mesh \"%s\": links: %s", sk_scene_mesh_name(s, m), err.message);
    rc = 2;
    goto done;
  }
  uint32_t LJ = sk_skeleton_joint_count(linked);
  if (!(lib = malloc((size_t)LJ * 16 * sizeof(float)))) {
    cli_in_error("weights", "out of memory");
    rc = 2;
    goto done;
  }
  sk_skeleton_get_inverse_bind(linked, lib);
  lo->skins[m] = ns;
  lo->inverse_binds[m] = lib;
  ns = NULL;
  lib = NULL;
done:
  sk_skin_destroy(ns);
  sk_skeleton_destroy(linked);
  sk_skeleton_destroy(mesh_sk);
  free(rest);
  free(ib);
  free(parents);
  free(names);
  free(tails);
  free(lib);
  return rc;
}

/* The mirror's matching distance: share x the diagonal of the box around the V points p, summed in double (a box
 * of finite points up to FLT_MAX across overflowed to inf in float, so every vertex matched any). 0 when a point is
 * not finite: the library then names the vertex (the NaN distance made it blame the tolerance option, which the
 * command line never gave). */
static float mirror_tolerance(double share, const float* p, size_t V) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t v = 0; v < V; ++v)
    for (int k = 0; k < 3; ++k) {
      lo[k] = p[3 * v + k] < lo[k] ? p[3 * v + k] : lo[k];
      hi[k] = p[3 * v + k] > hi[k] ? p[3 * v + k] : hi[k];
    }
  double d2 = 0.0;
  for (int k = 0; k < 3; ++k) d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  const double t = V ? share * sqrt(d2) : 0.0;
  if (!isfinite(t)) return 0.0f;
  return t < FLT_MAX ? (float)t : FLT_MAX;
}

/* mask grown by up to rings edges of the triangles (until nothing more is reached); NULL when out of memory. */
static uint8_t* grown_mask(const uint8_t* mask, size_t V, const uint32_t* idx, size_t tris, uint32_t rings) {
  uint8_t* out = malloc(V ? V : 1);
  uint8_t* prev = malloc(V ? V : 1);
  if (!out || !prev) {
    free(out), free(prev);
    return NULL;
  }
  memcpy(out, mask, V);
  for (uint32_t r = 0, more = 1; r < rings && more; ++r) {
    memcpy(prev, out, V);
    more = 0;
    for (size_t t = 0; t < tris; ++t) {
      const uint32_t* c = idx + 3 * t;
      if (c[0] >= V || c[1] >= V || c[2] >= V || !(prev[c[0]] || prev[c[1]] || prev[c[2]])) continue;
      for (int k = 0; k < 3; ++k) more |= !out[c[k]], out[c[k]] = 1;
    }
  }
  free(prev);
  return out;
}

/* The operations that read the mesh's shape (remove-rogue, mirror, smooth) on skin, over positions pos (V) and
 * triangles idx; op lines appended to ops. rest (optional, V): the skinned rest-pose positions, where the mirror
 * looks when the stored positions find no partner (gltfpack's quantized positions: their X = 0 plane is not the
 * model's). 0, or 2 after a message naming mesh `name`. */
static int topology_ops(const char* name, sk_skin* skin, const float* pos, const float* rest, size_t V,
                        const uint32_t* idx, size_t tris, const sk_weight_scope* scope_in, const opts* o,
                        const sk_skeleton* sk, const uint32_t* list, size_t list_count, op_line* ops, int* nops) {
  sk_weight_scope scope = *scope_in;
  sk_error err;
  int rc = 0;
#define BEGIN_OP(opname)        \
  op_line* L = &ops[(*nops)++]; \
  memset(L, 0, sizeof *L);      \
  L->surface = -1;              \
  L->op = opname;               \
  L->r.size = sizeof L->r;
#define CHECK_OP(call)                                                        \
  if ((call) != SK_OK) {                                                      \
    cli_in_error("weights", "mesh \"%s\": %s: %s", name, L->op, err.message); \
    return 2;                                                                 \
  }
  if (o->rogue) {
    BEGIN_OP("remove-rogue");
    sk_rogue_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.scope = scope;
    d.positions = pos;
    d.position_count = V;
    d.triangles = idx;
    d.triangle_count = tris;
    d.skeleton = sk;
    d.flags = o->per_component ? SK_ROGUE_PER_COMPONENT : 0;
    CHECK_OP(sk_weights_remove_rogue(skin, &d, &L->r, &err));
  }
  if (o->mirror >= 0) {
    BEGIN_OP("mirror");
    sk_mirror_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.mode = (uint32_t)o->mirror;
    d.scope = scope;
    d.positions = pos;
    d.position_count = V;
    d.skeleton = sk;
    d.plane[o->mirror_axis] = 1.0f;
    d.tolerance = mirror_tolerance(o->mirror_tol, pos, V);
    sk_result r = sk_weights_mirror(skin, &d, &L->r, &err);
    if (r == SK_ERR_NOT_FOUND && rest) { /* weights untouched: the same plane in the rest pose's space */
      d.positions = rest;
      d.tolerance = mirror_tolerance(o->mirror_tol, rest, V);
      r = sk_weights_mirror(skin, &d, &L->r, &err);
    }
    if (r == SK_OK && L->r.unmatched * 2 > L->r.vertices_visited)
      cli_in_warning(
          "weights",
          "mesh \"%s\": %llu of %llu vertices have no mirror partner across the %c = 0 "
          "plane of the mesh's coordinates; a mesh symmetric about another plane takes --mirror-axis (or +y, "
          "+z ...), a less exact one --mirror-tolerance",
          name, (unsigned long long)L->r.unmatched, (unsigned long long)L->r.vertices_visited, 'X' + o->mirror_axis);
    if (r == SK_ERR_NOT_FOUND) {
      /* nothing to mirror on this mesh (e.g. it lies on one side): reported, not an error */
      L->skipped = 1;
      snprintf(L->note, sizeof L->note, "%s", err.message);
    } else {
      CHECK_OP(r);
    }
  }
  if (o->smooth_iter) {
    BEGIN_OP(o->cotangent ? "smooth-cotan" : "smooth");
    sk_smooth_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.method = o->cotangent ? SK_SMOOTH_COTANGENT : SK_SMOOTH_UNIFORM;
    d.scope = scope;
    d.positions = pos;
    d.position_count = V;
    d.triangles = idx;
    d.triangle_count = tris;
    d.iterations = o->smooth_iter;
    d.factor = o->smooth_factor;
    d.joints = list_count ? list : NULL;
    d.joint_list_count = list_count;
    /* --joints' vertices and those the smoothing reaches from them: the listed joints spread outward too */
    uint8_t* grown = scope.vertex_mask ? grown_mask(scope.vertex_mask, V, idx, tris, o->smooth_iter) : NULL;
    if (scope.vertex_mask && !grown) {
      cli_in_error("weights", "mesh \"%s\": smooth: out of memory", name);
      return 2;
    }
    if (grown) d.scope.vertex_mask = grown;
    sk_result sr = sk_weights_smooth(skin, &d, &L->r, &err);
    free(grown);
    CHECK_OP(sr);
  }
#undef BEGIN_OP
#undef CHECK_OP
  return rc;
}

/* The vertices of skin influenced by a joint flagged in listed (--joints), one byte each; NULL when out of memory. */
static uint8_t* listed_mask(const sk_skin* skin, const uint8_t* listed) {
  size_t V = sk_skin_vertex_count(skin), N = sk_skin_influence_count(skin);
  uint32_t J = sk_skin_joint_count(skin);
  uint8_t* mask = calloc(V ? V : 1, 1);
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* jt = malloc((N ? N : 1) * sizeof *jt);
  float* wt = malloc((N ? N : 1) * sizeof *wt);
  if (!mask || !off || !jt || !wt || sk_skin_get_csr(skin, off, jt, wt, NULL) != SK_OK) {
    free(mask);
    mask = NULL;
  }
  for (size_t v = 0; mask && v < V; ++v)
    for (uint32_t e = off[v]; e < off[v + 1]; ++e)
      if (jt[e] < J && listed[jt[e]] && wt[e] != 0.0f) mask[v] = 1;
  free(off), free(jt), free(wt);
  return mask;
}

/* The shape-reading operations (topology_ops) on the meshes of one surface (group `leader`, cli_surface.c) as one
 * mesh, the weights handed back to each; their op lines (counts over the surface) appended to ops. 0, or 2 after a
 * message. */
static int surface_ops(sk_scene* s, const uint32_t* group, uint32_t leader, const opts* o, const sk_skeleton* sk,
                       const uint8_t* locked, const uint8_t* listed, const uint32_t* list, size_t list_count,
                       op_line* ops, int* nops) {
  const uint32_t J = sk_skeleton_joint_count(sk);
  cli_surface u;
  sk_skin* whole = NULL;
  sk_skin** skins = NULL;
  uint8_t* mask = NULL;
  sk_error err;
  int rc = cli_surface_open(s, group, leader, &u, &skins, &whole, &err) || cli_surface_join(&u, skins, whole, &err) ||
           (listed && !(mask = listed_mask(whole, listed)));
  if (rc) {
    cli_in_error("weights", "mesh \"%s\": %s", sk_scene_mesh_name(s, leader), err.message);
  } else {
    sk_weight_scope scope;
    memset(&scope, 0, sizeof scope);
    scope.locked_joints = locked;
    scope.locked_joint_count = locked ? J : 0;
    scope.vertex_mask = mask;
    scope.vertex_mask_count = mask ? u.nv : 0;
    int first = *nops;
    rc = topology_ops(sk_scene_mesh_name(s, leader), whole, u.pos, NULL, u.nv, u.idx, u.ni / 3, &scope, o, sk, list,
                      list_count, ops, nops);
    for (int i = first; i < *nops; ++i) ops[i].surface_meshes = u.count;
    if (!rc && cli_surface_split(&u, whole, skins, &err)) {
      cli_in_error("weights", "mesh \"%s\": %s", sk_scene_mesh_name(s, leader), err.message);
      rc = 2;
    }
  }
  free(skins), free(mask);
  sk_skin_destroy(whole);
  cli_surface_free(&u);
  return rc ? 2 : 0;
}

/* The lines of a surface's other meshes for the shape-reading operations: run with mesh `leader`. */
static void surface_lines(const opts* o, uint32_t leader, op_line* ops, int* nops) {
  const char* names[3] = {o->rogue ? "remove-rogue" : NULL, o->mirror >= 0 ? "mirror" : NULL,
                          o->smooth_iter ? (o->cotangent ? "smooth-cotan" : "smooth") : NULL};
  for (int k = 0; k < 3; ++k) {
    if (!names[k]) continue;
    op_line* L = &ops[(*nops)++];
    memset(L, 0, sizeof *L);
    L->op = names[k];
    L->surface = (int32_t)leader;
  }
}

/* Runs the asked operations on mesh m (those that read its shape only with `topology`: otherwise its surface ran
 * them, surface_ops); op lines appended to ops. 0, or 2 after a message. */
static int edit_mesh(sk_scene* s, uint32_t m, const opts* o, const sk_skeleton* sk, const uint8_t* locked,
                     const uint8_t* listed, const uint32_t* list, size_t list_count, const float* ranges,
                     links_out* links, int topology, op_line* ops, int* nops) {
  sk_skin* skin = sk_scene_mesh_skin(s, m);
  size_t V = sk_skin_vertex_count(skin);
  uint32_t J = sk_skin_joint_count(skin);
  size_t np = sk_scene_mesh_positions(s, m, NULL, 0), ni = sk_scene_mesh_indices(s, m, NULL, 0);
  float* pos = malloc((np ? np : 1) * sizeof *pos);
  float* rest = NULL; /* the rest pose's positions, for the mirror (topology_ops) */
  uint32_t* idx = malloc((ni ? ni : 1) * sizeof *idx);
  uint8_t* mask = NULL;
  int rc = 0;
  sk_error err;
  if (!pos || !idx) {
    cli_in_error("weights", "out of memory");
    rc = 2;
    goto done;
  }
  sk_scene_mesh_positions(s, m, pos, np);
  sk_scene_mesh_indices(s, m, idx, ni);
  sk_weight_scope scope;
  memset(&scope, 0, sizeof scope);
  if (locked) {
    scope.locked_joints = locked;
    scope.locked_joint_count = J;
  }
  if (listed) {
    if (!(mask = listed_mask(skin, listed))) {
      cli_in_error("weights", "out of memory");
      rc = 2;
      goto done;
    }
    scope.vertex_mask = mask;
    scope.vertex_mask_count = V;
  }
  size_t tris = ni / 3;
#define BEGIN_OP(name)          \
  op_line* L = &ops[(*nops)++]; \
  memset(L, 0, sizeof *L);      \
  L->surface = -1;              \
  L->op = name;                 \
  L->r.size = sizeof L->r;
#define CHECK_OP(call)                                                                            \
  if ((call) != SK_OK) {                                                                          \
    cli_in_error("weights", "mesh \"%s\": %s: %s", sk_scene_mesh_name(s, m), L->op, err.message); \
    rc = 2;                                                                                       \
    goto done;                                                                                    \
  }
  if (topology && o->mirror >= 0 && !(rest = malloc((np ? np : 1) * sizeof *rest))) {
    cli_in_error("weights", "out of memory");
    rc = 2;
    goto done;
  }
  if (rest && cli_rest_positions(s, m, rest, np) != np) { /* no rest pose to try: the stored positions only */
    free(rest);
    rest = NULL;
  }
  if (topology && (rc = topology_ops(sk_scene_mesh_name(s, m), skin, pos, rest, V, idx, tris, &scope, o, sk, list,
                                     list_count, ops, nops)))
    goto done;
  if (o->normalize) {
    BEGIN_OP("normalize");
    sk_normalize_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.scope = scope;
    d.flags = SK_NORMALIZE_DROP_INVALID; /* the writers could not keep them: normalizing is what is asked */
    L->dropped = 1;
    CHECK_OP(sk_weights_normalize(skin, &d, &L->r, &err));
  }
  if (o->prune > 0.0f) {
    BEGIN_OP("prune");
    sk_prune_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.flags = SK_PRUNE_KEEP_ONE | SK_PRUNE_NORMALIZE;
    d.scope = scope;
    d.threshold = o->prune;
    CHECK_OP(sk_weights_prune(skin, &d, &L->r, &err));
  }
  if (o->limit) {
    BEGIN_OP("limit");
    sk_limit_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.max_influences = o->limit;
    d.scope = scope;
    CHECK_OP(sk_weights_limit(skin, &d, &L->r, &err));
  }
  if (o->quantize) {
    BEGIN_OP(o->quantize == 8 ? "quantize-8" : "quantize-16");
    sk_quantize_desc d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.bits = o->quantize;
    d.scope = scope;
    CHECK_OP(sk_weights_quantize(skin, &d, &L->r, &err));
  }
  if (links) {
    BEGIN_OP("links");
    if ((rc = link_mesh(s, m, sk, ranges, &scope, pos, links, L))) goto done;
  }
#undef BEGIN_OP
#undef CHECK_OP
done:
  free(pos);
  free(rest);
  free(idx);
  free(mask);
  return rc;
}

static double seconds_since(const struct timespec* t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* One run of `skinkit weights`: the arguments, the scene, the tables the operations share (--lock, --joints,
 * --links, the surfaces) and what the edited skins still hold. */
typedef struct weights_run {
  const opts* o;
  sk_scene* s;
  const sk_skeleton* sk;
  uint32_t J, nm;
  uint8_t* locked;
  uint8_t* listed;
  uint32_t* list;
  size_t list_count;
  op_line* ops;
  float* ranges;
  links_out links;
  uint32_t* group;
  uint32_t max_infl;
  uint64_t nan_left, negative_left; /* vertices that still hold such weights after the operations */
} weights_run;

/* OUT is never IN, and an existing OUT is replaced only with --force. 0, or the exit status (2 or 1) after a
 * message. */
static int check_output(const opts* o) {
  if (cli_same_file(o->in, o->out)) {
    fprintf(stderr, "skinkit weights: refusing to overwrite the input %s\n", o->in);
    return 2;
  }
  if (!o->force && access(o->out, F_OK) == 0) {
    fprintf(stderr, "skinkit weights: %s exists (nothing written; use --force to replace it)\n", o->out);
    return 1;
  }
  return 0;
}

/* The op lines of a mesh and the joint tables of --lock and --joints (resolve_joints). 0, or 2 after a message. */
static int prepare_joints(weights_run* w) {
  const opts* o = w->o;
  w->ops = calloc(10, sizeof *w->ops); /* every operation once, and locked_cut's limit */
  if (!w->ops || (o->lock && !(w->locked = calloc(w->J, 1))) ||
      (o->joints && (!(w->listed = calloc(w->J, 1)) || !(w->list = calloc(w->J, sizeof *w->list))))) {
    cli_in_error("weights", "out of memory");
    return 2;
  }
  int rc = 0;
  if (o->lock && (rc = resolve_joints(w->sk, o->lock, w->locked, NULL, NULL))) return rc;
  if (o->joints && (rc = resolve_joints(w->sk, o->joints, w->listed, w->list, &w->list_count))) return rc;
  return 0;
}

/* --links: the joints' ranges, the linked skeleton and the per-mesh tables links_apply fills. 0, or 2 after a
 * message. */
static int prepare_links(weights_run* w) {
  /* the output scene: the linked skeleton (the same for every mesh: links depend on the rest pose only) */
  sk_error err;
  sk_skeleton* lsk = NULL;
  sk_bone_links_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.range_count = w->J;
  if (!(w->ranges = calloc(w->J, sizeof *w->ranges))) {
    cli_in_error("weights", "out of memory");
    return 2;
  }
  int rc = resolve_links(w->sk, w->o->links, w->ranges);
  if (rc) return rc;
  d.ranges = w->ranges;
  if (sk_bone_links(w->sk, NULL, &d, &lsk, NULL, NULL, &err)) {
    cli_in_error("weights", "links: %s", err.message);
    return 2;
  }
  w->links.skeleton = lsk;
  w->links.mesh_count = w->nm;
  w->links.skins = calloc(w->nm + 1, sizeof *w->links.skins);
  w->links.inverse_binds = calloc(w->nm + 1, sizeof *w->links.inverse_binds);
  if (!w->links.skins || !w->links.inverse_binds) {
    cli_in_error("weights", "out of memory");
    return 2;
  }
  return 0;
}

/* The surfaces of the skinned meshes (cli_surface_groups) into w->group when an operation reads the shape (and no
 * --links). 0, or 2 after a message. */
static int prepare_groups(weights_run* w) {
  const opts* o = w->o;
  /* pieces of one object split by material (cli_surface.c) are one surface for the operations that read the shape */
  if (!((o->rogue || o->mirror >= 0 || o->smooth_iter) && !w->links.skeleton)) return 0;
  uint8_t* skinned = calloc(w->nm ? w->nm : 1, 1);
  for (uint32_t m = 0; skinned && m < w->nm; ++m)
    skinned[m] = sk_scene_mesh_skin(w->s, m) != NULL && sk_scene_mesh_rigid_joint(w->s, m) < 0;
  w->group = skinned ? cli_surface_groups(w->s, skinned) : NULL;
  free(skinned);
  if (!w->group) {
    cli_in_error("weights", "out of memory");
    return 2;
  }
  return 0;
}

/* What an edited skin still holds: its most influences per vertex, and its vertices with NaN or infinite and with
 * negative weights. */
static void tally_left(weights_run* w, const sk_skin* skin) {
  sk_skin_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  if (sk_skin_validate(skin, NULL, &rep, NULL, NULL) == SK_OK) {
    if (rep.max_influences > w->max_infl) w->max_infl = rep.max_influences;
    w->nan_left += rep.nan;
    w->negative_left += rep.negative;
  }
}

/* The most influences of a vertex of skin (0 when it cannot tell). */
static uint32_t most_influences(const sk_skin* skin) {
  sk_skin_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  return skin && sk_skin_validate(skin, NULL, &rep, NULL, NULL) == SK_OK ? rep.max_influences : 0;
}

/* With --lock, the glTF writer's own cut (a vertex with more influences than its primitive holds keeps its largest,
 * renormalized) would move locked weights: the edited skin is cut first, around the locked joints, to what the
 * source held (4 per JOINTS_n set: its most influences rounded up to 4, at least 4), as one more op line. Nothing
 * when --limit, --as-is or a format other than glTF decides the count. 0, or 2 after a message. */
static int locked_cut(const weights_run* w, uint32_t m, sk_skin* skin, uint32_t held, op_line* ops, int* nops) {
  const opts* o = w->o;
  const int gltf = cli_gltf_name(o->out);
  const uint32_t cap = held > 4 ? (held + 3) / 4 * 4 : 4;
  if (!w->locked || o->limit || o->as_is || !gltf || most_influences(skin) <= cap) return 0;
  op_line* L = &ops[(*nops)++];
  memset(L, 0, sizeof *L);
  L->surface = -1;
  L->op = "limit";
  L->r.size = sizeof L->r;
  /* a linked skin has the link joints after the skeleton's (never locked) */
  const uint32_t sj = sk_skin_joint_count(skin);
  uint8_t* locks = calloc(sj > w->J ? sj : w->J, 1);
  if (!locks) {
    cli_in_error("weights", "out of memory");
    return 2;
  }
  memcpy(locks, w->locked, sj < w->J ? sj : w->J);
  sk_limit_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.max_influences = cap;
  d.scope.locked_joints = locks;
  d.scope.locked_joint_count = sj;
  sk_error err;
  const sk_result r = sk_weights_limit(skin, &d, &L->r, &err);
  free(locks);
  if (r == SK_OK) return 0;
  cli_in_error("weights", "mesh \"%s\": limit: %s", sk_scene_mesh_name(w->s, m), err.message);
  return 2;
}

/* Runs the operations on every skinned mesh (a rigid attachment is only reported; a mesh of a surface gets the
 * surface's shape-reading operations, surface_ops) and prints each mesh's report. 0, or 2 after a message (a JSON
 * report closed first). */
static int edit_meshes(weights_run* w) {
  const opts* o = w->o;
  sk_scene* s = w->s;
  int rc = 0, first = 1;
  uint32_t* held = calloc(w->nm ? w->nm : 1, sizeof *held); /* influences per vertex before any edit (locked_cut) */
  if (!held) {
    cli_in_error("weights", "out of memory");
    return 2;
  }
  for (uint32_t m = 0; m < w->nm; ++m) held[m] = most_influences(sk_scene_mesh_skin(s, m));
  for (uint32_t m = 0; m < w->nm; ++m) {
    sk_skin* skin = sk_scene_mesh_skin(s, m);
    if (!skin) continue;
    const int32_t rigid = sk_scene_mesh_rigid_joint(s, m);
    if (rigid >= 0) {
      print_rigid(sk_scene_mesh_name(s, m), sk_skin_vertex_count(skin), sk_skeleton_joint_name(w->sk, (uint32_t)rigid),
                  o->json, first);
      first = 0;
      continue;
    }
    int nops = 0;
    const int joined = w->group && cli_surface_size(w->group, w->nm, m) > 1;
    if (joined && w->group[m] == m)
      rc = surface_ops(s, w->group, m, o, w->sk, w->locked, w->listed, w->list, w->list_count, w->ops, &nops);
    else if (joined)
      surface_lines(o, w->group[m], w->ops, &nops);
    if (rc ||
        (rc = edit_mesh(s, m, o, w->sk, w->locked, w->listed, w->list, w->list_count, w->ranges,
                        w->links.skeleton ? &w->links : NULL, !joined, w->ops, &nops)) ||
        (rc = locked_cut(w, m, w->links.skeleton && w->links.skins[m] ? w->links.skins[m] : skin, held[m], w->ops,
                         &nops))) { /* the skin OUT gets: the linked one when --links made one */
      if (o->json) printf("]}\n");
      free(held);
      return rc;
    }
    print_ops(sk_scene_mesh_name(s, m), sk_skin_vertex_count(skin), w->ops, nops, o->json, first);
    first = 0;
    if (w->links.skeleton && w->links.skins[m]) skin = w->links.skins[m];
    tally_left(w, skin);
  }
  free(held);
  return 0;
}

/* Writes OUT and, with --json, closes the report ("written", the seconds since t0 and the library's notes as
 * "warning"); in text the notes go to stderr and "wrote OUT" to stdout. 0, or the exit status (1 or 2) after a
 * message. */
static int save_output(const weights_run* w, const struct timespec* t0) {
  const opts* o = w->o;
  sk_error err;
  sk_save_options so;
  memset(&so, 0, sizeof so);
  so.size = sizeof so;
  so.overwrite = (uint32_t)o->force;
  cli_guard_save(w->s, &so);
  so.weights_type = o->weights_type;
  char notes[8192] = ""; /* every note of the save (err.message holds the first 255 bytes) */
  so.notes = notes;
  so.notes_size = sizeof notes;
  int gltf = cli_gltf_name(o->out);
  /* glTF's default applies: a glTF source keeps as many influences as its primitive held (4 per JOINTS_n set),
   * others 4, and a vertex whose weights do not sum to 1 (a source's, where no operation renormalized it) is
   * written renormalized, as glTF requires; the library notes both. Other formats, and --as-is: as edited. */
  if (!gltf || o->as_is)
    so.as_is = 1;
  else if (o->limit)
    so.max_influences = o->limit; /* asked for: up to N, in as many sets as it takes */
  sk_result sr = cli_scene_save(w->s, o->out, &so, &err);
  const char* warning = sr == SK_OK && notes[0] ? notes : NULL; /* the library's notes */
  if (o->json) {
    printf("],\"written\":%s,\"seconds\":%.4f", sr == SK_OK ? "true" : "false", seconds_since(t0));
    if (warning) {
      printf(",\"warning\":");
      cli_json_string(stdout, warning);
    }
    printf("}\n");
  }
  if (sr != SK_OK) {
    cli_save_error("weights", o->out, err.message);
    return sr == SK_ERR_EXISTS ? 1 : 2;
  }
  cli_save_notes("weights", o->out, warning, " (--limit N writes up to N in JOINTS_1/WEIGHTS_1...)",
                 " (--as-is keeps them as stored)");
  if (!o->json) printf("wrote %s\n", o->out);
  return 0;
}

int cli_weights(int argc, char** argv) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  opts o;
  int rc = parse_args(argc, argv, &o);
  if (rc || (rc = check_output(&o))) return rc;
  sk_error err;
  weights_run w;
  memset(&w, 0, sizeof w);
  w.o = &o;
  if (cli_load_scene("weights", o.in, o.out, &w.s)) return 2;
  if (sk_scene_require_skin(w.s, &err)) {
    cli_in_error("weights", "%s", err.message);
    sk_scene_destroy(w.s);
    return 2;
  }
  w.sk = sk_scene_skeleton(w.s);
  w.J = sk_skeleton_joint_count(w.sk);
  w.nm = sk_scene_mesh_count(w.s);
  if ((rc = prepare_joints(&w)) || (o.links && (rc = prepare_links(&w))) || (rc = prepare_groups(&w))) goto done;
  if (o.json) {
    cli_json_head(stdout, "weights");
    printf(",\"path\":");
    cli_json_string(stdout, o.in);
    printf(",\"output\":");
    cli_json_string(stdout, o.out);
    printf(",\"meshes\":[");
  }
  if ((rc = edit_meshes(&w))) goto done;
  if (w.links.skeleton && (rc = links_apply(w.s, &w.links))) goto done;
  if (w.nan_left || w.negative_left) /* the operations asked for left them (flagged): the writers keep none of them */
    cli_in_warning("weights",
                   "%llu vertices hold NaN or infinite and %llu negative weights, which OUT "
                   "cannot keep: they are left out without renormalizing (--normalize removes them and renormalizes)",
                   (unsigned long long)w.nan_left, (unsigned long long)w.negative_left);
  rc = save_output(&w, &t0);
done:
  links_free(&w.links);
  free(w.ranges);
  free(w.ops);
  free(w.locked);
  free(w.listed);
  free(w.list);
  free(w.group);
  sk_scene_destroy(w.s);
  return rc;
}
