/* cli_bind.c - `skinkit bind IN OUT`: automatic binding of the meshes of a rigged file, through sk_bind. */
#define _DEFAULT_SOURCE /* clock_gettime, access, lstat, ... */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli_common.h"
#include "skinkit.h"

const char cli_bind_usage[] =
    "usage: skinkit bind IN OUT [--method M] [--max-influences N] [--joints a,b,...] [--meshes a,b,...] [--force]\n"
    "                   [--all-joints] [--report] [--json [FILE|-]]\n"
    "                   (or: skinkit bind IN -o OUT ...; -o/--output OUT)\n"
    "  Computes new skin weights for every mesh of IN but rigid attachments (existing weights are ignored;\n"
    "  --meshes: the meshes named)\n"
    "  from the file's skeleton and writes OUT (.glb, .gltf, .dae, .fbx; glTF keeps the 4 largest weights). Bones sit\n"
    "  where the mesh's inverse bind matrices put them (bind pose), each from head to the tail the file gives\n"
    "  (Blender's Collada tips and connected bones, an exporter's _end leaf bone; `info` counts them), else along\n"
    "  the skeleton's bone axis or toward its children (docs/bind.md). Meshes in one bind space that share vertices\n"
    "  at exactly the same positions (an object split by material) are bound as one surface, so a seam keeps one\n"
    "  set of weights. First a fit check: when under 75 % of the deform bones' points sit in the skinned and\n"
    "  chosen meshes (all in the rest pose), or the bones are not 0.1 .. 3 x the model's size, a warning names the\n"
    "  figures and the likely cause (scale: units; axis: Y-up vs Z-up; offset: moved or another armature); the\n"
    "  bind still runs.\n"
    "  --method M           robust (default: bone heat; parts no bone sees - sleeves, plates, eyes - take the\n"
    "                       weights of the body under them; weight two limbs pull on one vertex, as between the\n"
    "                       legs, goes to the body bone it lies against - the joint they hang from, or the spine\n"
    "                       above or past it; an armature beside the mesh, which the fit check calls offset, is\n"
    "                       bound by delaunay) | heat (Blender-style bone heat; such parts take the nearest bone)\n"
    "                       | nearest | capsule | delaunay\n"
    "  --max-influences N   1 .. 255 (default 4)\n"
    "  --joints a,b,...     only these joints receive weights (names as in `skinkit info`)\n"
    "  --meshes a,b,...     bind only these meshes (names as in `skinkit info`: the mesh's or its object's; a\n"
    "                       repeated name: every mesh of it); the others are written as they were (a prop beside\n"
    "                       the character stays a prop).\n"
    "                       Without it every mesh is bound but rigid attachments - a mesh with no skin, under a\n"
    "                       bone (a sword in a hand): it already moves with that bone and stays as it was; a\n"
    "                       mesh the armature lies beside (a ground plane) is bound by proximity, with a warning\n"
    "  --all-joints         let every skeleton node receive weights; by default only the deform joints do\n"
    "                       (`skinkit info` marks them): when some skin of IN lists joints, those, but for the\n"
    "                       wrappers below that a skin lists and no vertex weights but rigidly alone (the\n"
    "                       armature object or Blender's neutral_bone holding vertices that had no weight);\n"
    "                       when none does, the bone\n"
    "                       hierarchy below, never including, the wrappers at the top of the\n"
    "                       tree - importers' synthetic and scene roots (RootNode, ROOT, Scene, Z_UP, Y_UP,\n"
    "                       <MD5_Root>, <MD5_Mesh>, <MD5_Hierarchy>), armature object nodes (Armature, Armature.001,\n"
    "                       Rig, *_rig; any case) and the only root above such a node - and never a node carrying a\n"
    "                       mesh; every node when that leaves none (docs/bind.md). A mesh with a skin keeps to\n"
    "                       its own armature: the deform joints from the common ancestor of the joints its weights\n"
    "                       use, raised through deform parents, down (a file with two characters binds each to\n"
    "                       its own bones; a glove weighted to the hand still reaches the whole body)\n"
    "  --force              replace an existing OUT (IN itself is never overwritten)\n"
    "  --report             also print per mesh, for every joint that got weight: its vertices, its share of the\n"
    "                       mesh's weight and the vertices of it the nearest-bone fallback weighted\n"
    "  --json               print the report as JSON on stdout (per mesh and joint: vertices, weight share, method,\n"
    "                       fallback count; timings; schema skinkit.bind, docs/json.md); --json FILE.json or\n"
    "                       --json=FILE writes it to FILE\n"
    "  A glTF IN written as glTF, a binary FBX IN written as .fbx and a Collada IN written as .dae are edits of\n"
    "  IN: only the skins' weights change (FBX: the clusters; polygons, blend shapes and every other record stay;\n"
    "  Collada: the skin controllers' weights, a new controller for a mesh that had none, a joint added to a\n"
    "  controller that did not list it).\n"
    "  The file keeps its animations, materials, unbound meshes and names; a mesh that had no skin (a rigged file\n"
    "  whose skeleton comes from another mesh) gets one, bound where it sits in the rest pose.\n"
    "  Without any skin (an armature beside the unweighted mesh it is meant to deform, as FBX, Collada and glTF\n"
    "  exporters write it) the skeleton is the file's nodes that can be bones: no mesh, camera or light at or below\n"
    "  them (plus their ancestors), in their rest pose.\n"
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
  uint32_t bound;                   /* 0: mesh skipped (no vertices) */
  uint32_t surface, surface_meshes; /* bound as one surface (cli_surface.c) of surface_meshes meshes, the first
                                       mesh `surface` (m itself when alone) */
  sk_bind_report rep;
  uint64_t* counts;   /* joint_count: vertices with a non-zero weight */
  uint64_t* fallback; /* joint_count: of those, weighted by the nearest-bone fallback */
  double* sums;       /* joint_count: sum of the joint's weights */
  int32_t armature;   /* the root of the mesh's armature when its joints were limited to it (cli_armature.c), or -1 */
} bind_result;

static void bind_result_free(bind_result* r) {
  free(r->counts);
  free(r->fallback);
  free(r->sums);
}

/* What the run was asked and chose, for the report. */
typedef struct bind_run {
  const char *in, *out;
  uint32_t method, max_inf;
  int per_joint, json;
  const uint8_t* deform; /* NULL: every joint */
  uint32_t deform_count;
  const char* deform_rule; /* skins, hierarchy, all (sk_scene_deform_joints), joints (--joints), all_joints */
  sk_bind_fit fit;
  double load_ms, save_ms;
  const uint8_t* meshes; /* 1 per mesh to bind (--meshes, or every mesh but rigid attachments); NULL: every mesh */
  int meshes_given;      /* the mask is --meshes' */
} bind_run;

/* 1 when joint j belongs in the per-joint report: a deform joint (every joint without a mask) or one with weight. */
static int reported(const bind_result* r, const uint8_t* deform, uint32_t j) {
  return !deform || deform[j] || r->counts[j];
}

static double weight_total(const bind_result* r, uint32_t nj) {
  double t = 0.0;
  for (uint32_t j = 0; j < nj; ++j) t += r->sums[j];
  return t > 0.0 ? t : 1.0;
}

/* "joints":[{"name","vertex_count","weight_share","method","fallback_count"}] of one mesh. */
static void print_joints_json(const sk_skeleton* sk, const bind_result* r, const uint8_t* deform) {
  uint32_t nj = sk_skeleton_joint_count(sk);
  double total = weight_total(r, nj);
  printf(",\"joints\":[");
  int first = 1;
  for (uint32_t j = 0; j < nj; ++j) {
    if (!reported(r, deform, j)) continue;
    printf("%s{\"name\":", first ? "" : ",");
    first = 0;
    cli_json_string(stdout, sk_skeleton_joint_name(sk, j));
    printf(",\"vertex_count\":%llu,\"weight_share\":%.6f,\"method\":\"%s\",\"fallback_count\":%llu}",
           (unsigned long long)r->counts[j], r->sums[j] / total, method_name(r->rep.method_used),
           (unsigned long long)r->fallback[j]);
  }
  putchar(']');
}

static const char* const k_fit_hints[] = {"", "scale", "axis", "offset"};

static void print_fit_json(const sk_bind_fit* f) {
  if (!f->size) return;
  printf(",\"fit\":{\"ok\":%s,\"inside_share\":%.4f,\"scale_ratio\":%.4g,\"hint\":", f->ok ? "true" : "false",
         f->inside_share, f->scale_ratio);
  if (f->ok || f->hint == 0 || f->hint > 3)
    printf("null}");
  else
    printf("\"%s\"}", k_fit_hints[f->hint]);
}

/* A skeleton like the scene's whose bind pose is the skinned mesh's (its inverse bind matrices: bones in the mesh's
 * bind space) or, for a mesh without a skin (mesh UINT32_MAX), the rest pose: such a mesh sits where the file places
 * it in the rest pose (io places unskinned meshes so), and the scene's bind pose may be another (a file's skins are
 * bound in a pose of their own, or in units of their own: FBX's x100). NULL when the mesh's inverse binds are
 * missing or unusable; the scene skeleton is used then. */
static sk_skeleton* mesh_bind_skeleton(const sk_scene* scene, uint32_t mesh, const sk_skeleton* base) {
  uint32_t nj = sk_skeleton_joint_count(base);
  float* ib = malloc((size_t)nj * 16 * sizeof *ib);
  float* local = malloc((size_t)nj * 16 * sizeof *local);
  const char** names = malloc((size_t)nj * sizeof *names);
  int32_t* parents = malloc((size_t)nj * sizeof *parents);
  float* tails = malloc((size_t)nj * 3 * sizeof *tails);
  sk_skeleton* out = NULL;
  if (ib && local && names && parents && tails &&
      (mesh == UINT32_MAX || sk_scene_mesh_inverse_binds(scene, mesh, ib, NULL, NULL) == SK_OK) &&
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
    sd.inverse_bind = mesh == UINT32_MAX ? NULL : ib;             /* none: bind = rest */
    sd.tails = sk_skeleton_get_tails(base, tails) ? tails : NULL; /* the file's bone tails (Blender's Collada) */
    if (sk_skeleton_create(&sd, &out, NULL) != SK_OK) out = NULL;
  }
  free(tails);
  free(ib);
  free(local);
  free(names);
  free(parents);
  return out;
}

/* 1 when mesh m's vertices count for the fit check: the skinned meshes (the character as its skins draw it) and
 * those --meshes chose (chosen != NULL), or every mesh when none is skinned. */
static int fit_mesh(sk_scene* s, uint32_t m, int any_skinned, const uint8_t* chosen) {
  if (chosen && chosen[m]) return 1;
  return !any_skinned || sk_scene_mesh_skin(s, m) != NULL;
}

/* The fit check before binding: the deform bones against the meshes' vertices together, both in the rest pose (a
 * character is often several meshes: body, eyes, armour; each mesh's own space, cli_fit.c, would mix an FBX skin's
 * centimetres with a prop's placement). A warning with the figures and the likely cause on stderr when the armature
 * does not sit in the model; the bind still runs (the user may know better). fit->size = 0: not run. */
static void check_fit(sk_scene* s, const sk_skeleton* sk, const uint8_t* deform, const uint8_t* chosen,
                      sk_bind_fit* fit) {
  memset(fit, 0, sizeof *fit);
  size_t nv = 0;
  int any = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) any |= sk_scene_mesh_skin(s, m) != NULL;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m)
    if (fit_mesh(s, m, any, chosen)) nv += cli_rest_positions(s, m, NULL, 0);
  float* pos = malloc((nv ? nv : 1) * sizeof *pos);
  sk_skeleton* rest = mesh_bind_skeleton(s, UINT32_MAX, sk); /* bones in the rest pose */
  size_t at = 0;
  for (uint32_t m = 0; pos && rest && m < sk_scene_mesh_count(s); ++m)
    if (fit_mesh(s, m, any, chosen)) at += cli_rest_positions(s, m, pos + at, nv - at);
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.positions = pos;
  d.vertex_count = at / 3;
  d.skeleton = rest;
  d.deform = deform;
  fit->size = sizeof *fit;
  sk_error err;
  int rc = pos && rest && at == nv ? sk_bind_fit_check(&d, fit, &err) : SK_ERR_OUT_OF_MEMORY;
  free(pos);
  sk_skeleton_destroy(rest);
  if (rc != SK_OK) fit->size = 0;
  if (rc != SK_OK || fit->ok) return;
  static const char* const why[] = {"", "its size is off: a unit mismatch (cm vs m)?",
                                    "it fits once turned 90 degrees about X: imported with the wrong up axis?",
                                    "it sits away from the mesh: moved, or another character's armature?"};
  cli_in_warning("bind",
                 "the armature does not fit the model (%.0f %% of the bone points in it, bones %.3g x "
                 "its size); %s",
                 100.0 * fit->inside_share, fit->scale_ratio, why[fit->hint <= 3 ? fit->hint : 0]);
}

/* The deform joints of IN (sk_scene_deform_joints: the skins' joints, else the bone hierarchy) as a joint_count
 * mask, with their count in *n and the rule in *rule; NULL (every joint) when memory runs out. */
static uint8_t* deform_joints(const sk_scene* s, uint32_t nj, uint32_t* n, uint32_t* rule) {
  uint8_t* mask = calloc(nj ? nj : 1, 1);
  *n = 0;
  *rule = SK_DEFORM_RULE_NONE;
  if (mask && sk_scene_deform_joints(s, mask, nj, n, rule, NULL) == SK_OK) return mask;
  free(mask);
  return NULL;
}

/* Sets deform[j] = 1 for every joint named in the comma-separated list; returns 0 or prints the unknown name. */
/* The glTF scene the character is in: that of the first skinned mesh that is no rigid attachment, else of the first
 * mesh; -1 for other formats. */
static int32_t character_scene(const sk_scene* s) {
  const uint32_t nm = sk_scene_mesh_count(s);
  for (uint32_t m = 0; m < nm; ++m)
    if (sk_scene_mesh_skin((sk_scene*)s, m) && sk_scene_mesh_rigid_joint(s, m) < 0)
      return sk_scene_mesh_gltf_scene(s, m);
  return nm ? sk_scene_mesh_gltf_scene(s, 0) : -1;
}

/* Whether mesh m is left out of a bind without --meshes: a rigid attachment (sk_scene_mesh_rigid_joint: a mesh with
 * no skin in its file, under a bone's node, already moves with that bone: a sword in a hand, a gauntlet), or a mesh
 * of another glTF scene than the character's (a skin's joints must be in the scene of the node using it). */
static bool left_out(const sk_scene* s, uint32_t m, int32_t home) {
  const int32_t sc = sk_scene_mesh_gltf_scene(s, m);
  return sk_scene_mesh_rigid_joint(s, m) >= 0 || (home >= 0 && sc != home);
}

/* Without --meshes: every mesh but those left_out. NULL when there is none (or out of memory: then every mesh is
 * bound, as before this rule). */
static uint8_t* default_meshes(const sk_scene* s) {
  const uint32_t nm = sk_scene_mesh_count(s);
  const int32_t home = character_scene(s);
  uint32_t out = 0;
  for (uint32_t m = 0; m < nm; ++m) out += left_out(s, m, home);
  uint8_t* mask = out ? malloc(nm) : NULL;
  for (uint32_t m = 0; mask && m < nm; ++m) mask[m] = !left_out(s, m, home);
  return mask;
}

/* Whether mesh m of s is called tok: its own name or its object's (the node that draws it, what Blender's outliner
 * shows: an FBX or glTF mesh is often "Cylinder" drawn by object "Body"). */
static int mesh_called(sk_scene* s, uint32_t m, const char* tok) {
  const char* object = cli_mesh_object(s, m);
  return !strcmp(sk_scene_mesh_name(s, m), tok) || (object && !strcmp(object, tok));
}

/* The meshes of s, as `info` lists them, after a --meshes name that is none of them. */
static void list_meshes(sk_scene* s, const char* tok) {
  uint32_t nm = sk_scene_mesh_count(s);
  fprintf(stderr, "skinkit bind: %s: --meshes: no mesh or object \"%s\" in it (its meshes:", cli_input(), tok);
  for (uint32_t m = 0; m < nm; ++m) {
    const char* object = cli_mesh_object(s, m);
    fprintf(stderr, "%s \"%s\"", m ? "," : "", sk_scene_mesh_name(s, m));
    if (object) fprintf(stderr, " (object \"%s\")", object);
  }
  fprintf(stderr, ")\n");
}

/* --meshes a,b,...: 1 for each mesh of s named in the list, by its name or its object's (every mesh of a repeated
 * name); NULL after a message when a name is not one of IN (or no memory). */
static uint8_t* parse_meshes(sk_scene* s, const char* list) {
  uint32_t nm = sk_scene_mesh_count(s);
  uint8_t* pick = calloc(nm ? nm : 1, 1);
  char* copy = strdup(list);
  int bad = !pick || !copy, any = 0;
  char* save = NULL;
  for (char* tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !bad; tok = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (uint32_t m = 0; m < nm; ++m)
      if (mesh_called(s, m, tok)) pick[m] = found = 1;
    if (!found) list_meshes(s, tok);
    bad |= !found;
    any |= found;
  }
  free(copy);
  if (!bad && !any) fprintf(stderr, "skinkit bind: --meshes needs at least one mesh name\n");
  if (!bad && any) return pick;
  free(pick);
  return NULL;
}

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
        cli_in_error("bind", "no joint named \"%s\" (see `skinkit info`)", name);
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

/* The joints that receive weights: --joints' list (NULL after a message when a name is unknown), else the deform
 * joints of IN (NULL, every joint, when memory runs out); count and rule into run, and a line saying so. */
static uint8_t* choose_deform(const sk_scene* s, const char* joints, bind_run* run) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nj = sk_skeleton_joint_count(sk), nd = 0, rule = 0;
  if (joints) {
    uint8_t* deform = calloc(nj ? nj : 1, 1);
    if (!deform || parse_joints(sk, joints, deform)) {
      free(deform);
      return NULL;
    }
    for (uint32_t j = 0; j < nj; ++j) nd += deform[j];
    run->deform_count = nd;
    run->deform_rule = "joints";
    return deform;
  }
  static const char* const k_rules[] = {"all", "skins", "hierarchy", "all"};
  uint8_t* deform = deform_joints(s, nj, &nd, &rule);
  run->deform_count = deform ? nd : nj;
  run->deform_rule = deform ? k_rules[rule <= 3 ? rule : 0] : "all";
  if (deform && nd < nj && !run->json)
    printf("deform joints: %u of %u skeleton nodes (%s; --all-joints for every node)\n", nd, nj,
           rule == SK_DEFORM_RULE_SKINS ? "the joints IN's skins list"
                                        : "no skin: the bones below the scene root and armature nodes");
  return deform;
}

typedef struct mesh_data {
  size_t nv, ni;
  float* pos;
  uint32_t* idx;
} mesh_data;

static void mesh_data_free(mesh_data* m) {
  free(m->pos);
  free(m->idx);
  memset(m, 0, sizeof *m);
}

/* Copies the positions and indices of a mesh: all the bind reads (a mesh's other streams stay in the scene, not held
 * through the bind's peak of memory). Returns 0 or 1 (out of memory). */
static int mesh_data_read(const sk_scene* s, uint32_t m, mesh_data* d) {
  memset(d, 0, sizeof *d);
  d->nv = sk_scene_mesh_vertex_count(s, m);
  d->ni = sk_scene_mesh_index_count(s, m);
  size_t np = sk_scene_mesh_positions(s, m, NULL, 0);
  d->pos = malloc((np ? np : 1) * sizeof(float));
  d->idx = malloc((d->ni ? d->ni : 1) * sizeof(uint32_t));
  if (!d->pos || !d->idx) return 1;
  sk_scene_mesh_positions(s, m, d->pos, np);
  sk_scene_mesh_indices(s, m, d->idx, d->ni);
  return 0;
}

/* Weights of mesh m (its data in md) into skin (the mesh's own, bound in place, or a fresh one), with the bones of
 * bind_sk (NULL: the scene skeleton's) and the joints marked in deform (NULL: every joint); the report into r, and the
 * per-vertex fallback flags into *vfb_out (NULL: not kept). 0, or 2 after a message. */
static int bind_weights(const sk_scene* s, uint32_t m, const sk_skeleton* sk, const sk_skeleton* bind_sk,
                        const bind_run* run, const uint8_t* deform, const mesh_data* md, sk_skin* skin, bind_result* r,
                        uint8_t** vfb_out) {
  uint32_t nj = sk_skeleton_joint_count(sk);
  r->counts = calloc(nj ? nj : 1, sizeof *r->counts);
  r->fallback = calloc(nj ? nj : 1, sizeof *r->fallback);
  r->sums = calloc(nj ? nj : 1, sizeof *r->sums);
  uint8_t* vfb = calloc(md->nv, 1);
  int have = r->counts && r->fallback && r->sums && vfb;
  sk_bind_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.method = run->method;
  d.positions = md->pos;
  d.vertex_count = md->nv;
  d.triangles = md->idx;
  d.triangle_count = md->ni / 3;
  d.skeleton = bind_sk ? bind_sk : sk;
  d.max_influences = run->max_inf;
  d.deform = deform;
  d.bone_space = SK_BONE_SPACE_BIND;
  r->rep.size = sizeof r->rep;
  r->rep.joint_vertex_counts = r->counts;
  r->rep.joint_fallback_counts = r->fallback;
  r->rep.joint_weight_sums = r->sums;
  r->rep.vertex_fallback = vfb;
  sk_error err;
  int rc = 0;
  if (!have || sk_bind(&d, skin, &r->rep, &err)) {
    cli_in_error("bind", "mesh \"%s\": %s", sk_scene_mesh_name(s, m), have ? err.message : "out of memory");
    rc = 2;
  }
  if (vfb_out && !rc)
    *vfb_out = vfb;
  else
    free(vfb);
  r->rep.vertex_fallback = NULL;
  r->bound = 1;
  r->surface = m;
  r->surface_meshes = 1;
  return rc;
}

/* The joints the given meshes are bound to: when the deform joints are IN's own (not --joints or --all-joints), a
 * skinned mesh keeps to its armature (cli_armature_mask); *own is the mask to free (or NULL), *root the armature's root
 * joint or -1. */
static const uint8_t* mesh_deform(sk_scene* s, const uint32_t* meshes, uint32_t count, const bind_run* run,
                                  uint8_t** own, int32_t* root) {
  *own = NULL;
  *root = -1;
  if (run->deform && strcmp(run->deform_rule, "joints") != 0)
    *own = cli_armature_mask(s, meshes, count, run->deform, root);
  return *own ? *own : run->deform;
}

/* Mesh k of surface u's share of the joined bind (all, with its per-vertex fallback flags vfb): its vertices,
 * weights and fallbacks per joint counted from its skin, the time shared by vertex count. 0, or 1 (out of memory). */
static int cut_result(const cli_surface* u, uint32_t k, const bind_result* all, const uint8_t* vfb, const sk_skin* skin,
                      uint32_t nj, bind_result* r) {
  size_t a = u->first[k], n = u->first[k + 1] - a, total = sk_skin_influence_count(skin);
  r->counts = calloc(nj ? nj : 1, sizeof *r->counts);
  r->fallback = calloc(nj ? nj : 1, sizeof *r->fallback);
  r->sums = calloc(nj ? nj : 1, sizeof *r->sums);
  uint32_t* off = malloc((n + 1) * sizeof *off);
  uint32_t* j = malloc(total * sizeof *j + 4);
  float* w = malloc(total * sizeof *w + 4);
  int rc = !r->counts || !r->fallback || !r->sums || !off || !j || !w;
  rc = rc || sk_skin_get_csr(skin, off, j, w, NULL) != SK_OK;
  r->rep = all->rep;
  r->armature = all->armature;
  r->rep.fallback_vertices = 0;
  r->rep.bound_vertices = n;
  r->rep.milliseconds = u->nv ? all->rep.milliseconds * (double)n / (double)u->nv : 0.0;
  for (size_t v = 0; v < n && !rc; ++v) {
    r->rep.fallback_vertices += vfb[a + v] != 0;
    for (uint32_t e = off[v]; e < off[v + 1]; ++e) {
      if (w[e] == 0.0f || j[e] >= nj) continue;
      r->counts[j[e]]++;
      r->sums[j[e]] += w[e];
      r->fallback[j[e]] += vfb[a + v] != 0;
    }
  }
  free(off), free(j), free(w);
  r->bound = 1;
  r->surface = u->meshes[0];
  r->surface_meshes = u->count;
  return rc;
}

/* The meshes of one surface (group `leader`, cli_surface.c) bound as one mesh, the weights handed back to each: its
 * own skin, or a fresh one left in fresh[m] for bind_mesh. 0, or 2 after a message. */
static int bind_surface(sk_scene* s, const uint32_t* group, uint32_t leader, const sk_skeleton* sk, const bind_run* run,
                        sk_skin** fresh, bind_result* res) {
  const uint32_t nj = sk_skeleton_joint_count(sk);
  cli_surface u;
  bind_result all;
  memset(&all, 0, sizeof all);
  uint8_t* vfb = NULL;
  sk_skin* whole = NULL;
  sk_skin** skins = NULL;
  sk_error err;
  int rc = cli_surface_open(s, group, leader, &u, &skins, &whole, &err);
  for (uint32_t k = 0; k < u.count && !rc; ++k) { /* a mesh without a skin gets one, kept in fresh[] for bind_mesh */
    uint32_t m = u.meshes[k];
    if (!skins[k])
      rc = sk_skin_create(sk_scene_mesh_vertex_count(s, m), nj, &fresh[m], &err) != SK_OK, skins[k] = fresh[m];
  }
  if (rc) {
    cli_in_error("bind", "mesh \"%s\": %s", sk_scene_mesh_name(s, leader), err.message);
  } else {
    sk_skeleton* bind_sk = mesh_bind_skeleton(s, sk_scene_mesh_skin(s, leader) ? leader : UINT32_MAX, sk);
    mesh_data md = {.nv = u.nv, .ni = u.ni, .pos = u.pos, .idx = u.idx};
    uint8_t* own = NULL;
    const uint8_t* deform = mesh_deform(s, u.meshes, u.count, run, &own, &all.armature);
    rc = bind_weights(s, leader, sk, bind_sk, run, deform, &md, whole, &all, &vfb);
    sk_skeleton_destroy(bind_sk);
    free(own);
    if (!rc && cli_surface_split(&u, whole, skins, &err)) {
      cli_in_error("bind", "mesh \"%s\": %s", sk_scene_mesh_name(s, leader), err.message);
      rc = 2;
    }
    for (uint32_t k = 0; k < u.count && !rc; ++k)
      if (cut_result(&u, k, &all, vfb, skins[k], nj, &res[u.meshes[k]])) {
        cli_in_error("bind", "out of memory");
        rc = 2;
      }
  }
  bind_result_free(&all);
  free(vfb), free(skins);
  sk_skin_destroy(whole);
  cli_surface_free(&u);
  return rc ? 2 : 0;
}

/* A mesh that had no skin gets the one it was bound with, in place (the scene keeps its clips, materials and
 * names), with bind_sk's inverse binds. 0, or 2 after a message. */
static int give_skin(sk_scene* s, uint32_t m, const sk_skin* skin, const sk_skeleton* bind_sk) {
  uint32_t nj = sk_skeleton_joint_count(sk_scene_skeleton(s));
  float* ib = malloc((size_t)nj * 16 * sizeof *ib + 1);
  sk_error err;
  int rc = ib && bind_sk && sk_skeleton_get_inverse_bind(bind_sk, ib) == SK_OK ? 0 : 1;
  if (sk_scene_mesh_set_skin(s, m, skin, rc ? NULL : ib, &err) != SK_OK) {
    cli_in_error("bind", "mesh \"%s\": %s", sk_scene_mesh_name(s, m), err.message);
    free(ib);
    return 2;
  }
  free(ib);
  return 0;
}

/* Binds mesh m unless --meshes leaves it out (then it is written as it was) or its surface was bound already (r->bound;
 * *fresh_slot: the skin it got when it had none); a mesh that had no skin is given its new one (give_skin). 0, or 2
 * after a message. */
static int bind_mesh(sk_scene* s, uint32_t m, const sk_skeleton* sk, const bind_run* run, bind_result* r,
                     sk_skin** fresh_slot) {
  mesh_data md;
  if (mesh_data_read(s, m, &md)) {
    cli_in_error("bind", "out of memory reading mesh %u", m);
    mesh_data_free(&md);
    return 2;
  }
  sk_skin* target = sk_scene_mesh_skin(s, m); /* bound in place when the mesh has a skin */
  const int chosen = !run->meshes || run->meshes[m];
  const int done = (int)r->bound; /* by its surface */
  sk_skin* fresh = *fresh_slot;
  *fresh_slot = NULL;
  sk_skeleton* bind_sk = chosen ? mesh_bind_skeleton(s, target ? m : UINT32_MAX, sk) : NULL;
  sk_error err;
  int rc = 0;
  if (chosen && md.nv && !target && !fresh &&
      sk_skin_create(md.nv, sk_skeleton_joint_count(sk), &fresh, &err) != SK_OK) {
    cli_in_error("bind", "mesh \"%s\": %s", sk_scene_mesh_name(s, m), err.message);
    rc = 2;
  }
  if (!rc && chosen && md.nv && !done) {
    uint8_t* own = NULL;
    const uint8_t* deform = mesh_deform(s, &m, 1, run, &own, &r->armature);
    rc = bind_weights(s, m, sk, bind_sk, run, deform, &md, target ? target : fresh, r, NULL);
    free(own);
  }
  if (!rc && !target && fresh) rc = give_skin(s, m, fresh, bind_sk);
  sk_skin_destroy(fresh);
  sk_skeleton_destroy(bind_sk);
  mesh_data_free(&md);
  return rc;
}

/* The top-level "joints": every reported joint over all bound meshes (weight share of the total weight; method
 * "mixed" when the meshes that weight it used different methods). */
static void print_all_joints_json(const sk_skeleton* sk, const bind_result* res, uint32_t nm, const bind_run* run) {
  uint32_t nj = sk_skeleton_joint_count(sk);
  double total = 0.0;
  for (uint32_t m = 0; m < nm; ++m)
    for (uint32_t j = 0; res[m].bound && j < nj; ++j) total += res[m].sums[j];
  printf(",\"joints\":[");
  int first = 1;
  for (uint32_t j = 0; j < nj; ++j) {
    unsigned long long verts = 0, fb = 0;
    double sum = 0.0;
    int used = -1, listed = !run->deform || run->deform[j];
    for (uint32_t m = 0; m < nm; ++m) {
      if (!res[m].bound) continue;
      verts += res[m].counts[j];
      fb += res[m].fallback[j];
      sum += res[m].sums[j];
      int mu = (int)res[m].rep.method_used;
      if (res[m].counts[j]) used = used == -1 || used == mu ? mu : -2;
    }
    if (!listed && !verts) continue;
    printf("%s{\"name\":", first ? "" : ",");
    first = 0;
    cli_json_string(stdout, sk_skeleton_joint_name(sk, j));
    printf(",\"vertex_count\":%llu,\"weight_share\":%.6f,\"method\":\"%s\",\"fallback_count\":%llu}", verts,
           total > 0.0 ? sum / total : 0.0,
           used == -2 ? "mixed" : method_name(used >= 0 ? (uint32_t)used : run->method), fb);
  }
  putchar(']');
}

static void print_report(const sk_scene* s, const sk_skeleton* sk, const bind_result* res, uint32_t nm,
                         const bind_run* run, double total_ms) {
  uint32_t nj = sk_skeleton_joint_count(sk);
  const uint8_t* deform = run->deform;
  if (run->json) {
    cli_json_head(stdout, "bind");
    printf(",\"path\":");
    cli_json_string(stdout, run->in);
    printf(",\"output\":");
    cli_json_string(stdout, run->out);
    printf(
        ",\"method\":\"%s\",\"max_influences\":%u,\"joint_count\":%u,\"deform_joint_count\":%u,"
        "\"deform_rule\":\"%s\",\"meshes\":[",
        method_name(run->method), run->max_inf, nj, run->deform_count, run->deform_rule);
    int first = 1;
    for (uint32_t m = 0; m < nm; ++m) {
      if (!res[m].bound) continue;
      printf("%s{\"name\":", first ? "" : ",");
      first = 0;
      cli_json_string(stdout, sk_scene_mesh_name(s, m));
      const sk_bind_report* r = &res[m].rep;
      printf(
          ",\"vertex_count\":%zu,\"triangle_count\":%zu,\"method_used\":\"%s\",\"seconds\":%.6f,"
          "\"surface\":%u,\"bound_vertex_count\":%llu,\"fallback_vertex_count\":%llu,\"joint_vertex_counts\":{",
          sk_scene_mesh_vertex_count(s, m), sk_scene_mesh_index_count(s, m) / 3, method_name(r->method_used),
          r->milliseconds / 1e3, res[m].surface, (unsigned long long)r->bound_vertices,
          (unsigned long long)r->fallback_vertices);
      for (uint32_t j = 0; j < nj; ++j) {
        if (j) putchar(',');
        cli_json_string(stdout, sk_skeleton_joint_name(sk, j));
        printf(":%llu", (unsigned long long)res[m].counts[j]);
      }
      putchar('}');
      printf(",\"armature_root\":");
      if (res[m].armature >= 0)
        cli_json_string(stdout, sk_skeleton_joint_name(sk, (uint32_t)res[m].armature));
      else
        printf("null");
      print_joints_json(sk, &res[m], deform);
      putchar('}');
    }
    putchar(']');
    print_all_joints_json(sk, res, nm, run);
    print_fit_json(&run->fit);
    printf(",\"load_seconds\":%.4f,\"save_seconds\":%.4f,\"seconds\":%.4f}\n", run->load_ms / 1e3, run->save_ms / 1e3,
           total_ms / 1e3);
    return;
  }
  for (uint32_t m = 0; m < nm; ++m) {
    if (run->meshes && !run->meshes[m] && run->meshes_given)
      printf("mesh \"%s\": not bound (not in --meshes), written as it was\n", sk_scene_mesh_name(s, m));
    else if (run->meshes && !run->meshes[m] && sk_scene_mesh_rigid_joint(s, m) >= 0)
      printf("mesh \"%s\": a rigid attachment of bone \"%s\", written as it was (--meshes binds it)\n",
             sk_scene_mesh_name(s, m), sk_skeleton_joint_name(sk, (uint32_t)sk_scene_mesh_rigid_joint(s, m)));
    else if (run->meshes && !run->meshes[m])
      printf("mesh \"%s\": in glTF scene %d, not the character's, written as it was (--meshes binds it)\n",
             sk_scene_mesh_name(s, m), (int)sk_scene_mesh_gltf_scene(s, m));
    if (!res[m].bound) continue;
    const sk_bind_report* r = &res[m].rep;
    printf("mesh \"%s\": %zu vertices, %zu triangles, %s, %.1f ms", sk_scene_mesh_name(s, m),
           sk_scene_mesh_vertex_count(s, m), sk_scene_mesh_index_count(s, m) / 3, method_name(r->method_used),
           r->milliseconds);
    if (r->fallback_vertices)
      printf(", %llu vertices by nearest-bone fallback", (unsigned long long)r->fallback_vertices);
    if (res[m].surface_meshes > 1)
      printf(", bound as one surface with %u other mesh%s", res[m].surface_meshes - 1,
             res[m].surface_meshes > 2 ? "es" : "");
    if (res[m].armature >= 0)
      printf(", to its own armature (the deform joints from \"%s\" down)",
             sk_skeleton_joint_name(sk, (uint32_t)res[m].armature));
    printf("\n");
    if (!run->per_joint) continue;
    double total = weight_total(&res[m], nj);
    for (uint32_t j = 0; j < nj; ++j) {
      if (!res[m].counts[j]) continue;
      printf("  %-32s %8llu vertices %6.2f %%", sk_skeleton_joint_name(sk, j), (unsigned long long)res[m].counts[j],
             100.0 * res[m].sums[j] / total);
      if (res[m].fallback[j]) printf(", %llu by fallback", (unsigned long long)res[m].fallback[j]);
      putchar('\n');
    }
  }
  printf("load %.1f ms, save %.1f ms, total %.1f ms\nwrote %s\n", run->load_ms, run->save_ms, total_ms, run->out);
}

/* What `skinkit bind` was asked. */
typedef struct bind_args {
  const char *in, *out, *joints, *meshes;
  uint32_t method, max_inf;
  int force, per_joint, json, all_joints;
} bind_args;

/* The arguments of bind into p. 0, or the exit status (2) after a message. */
static int bind_parse_args(int argc, char** argv, bind_args* p) {
  memset(p, 0, sizeof *p);
  p->method = SK_BIND_ROBUST;
  p->max_inf = 4;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--force")) {
      p->force = 1;
    } else if (!strcmp(a, "--all-joints")) {
      p->all_joints = 1;
    } else if (!strcmp(a, "--report")) {
      p->per_joint = 1;
    } else if (!strcmp(a, "--json")) {
      p->json = 1;
    } else if (!strcmp(a, "--method")) {
      const char* m = cli_arg_value("bind", argc, argv, &i);
      if (!m) return 2;
      p->method = (uint32_t)METHOD_COUNT;
      for (uint32_t k = 0; k < METHOD_COUNT; ++k)
        if (!strcmp(m, k_method_names[k])) p->method = k;
      if (p->method == METHOD_COUNT)
        return cli_arg_error("bind", "unknown method \"%s\" for --method (robust, heat, nearest, capsule, delaunay)",
                             m);
    } else if (!strcmp(a, "--max-influences")) {
      const char* v = cli_arg_value("bind", argc, argv, &i);
      if (!v || cli_arg_u32("bind", a, v, 1, 255, &p->max_inf)) return 2;
    } else if (!strcmp(a, "--joints")) {
      if (!(p->joints = cli_arg_value("bind", argc, argv, &i))) return 2;
    } else if (!strcmp(a, "--meshes")) {
      if (!(p->meshes = cli_arg_value("bind", argc, argv, &i))) return 2;
    } else if (a[0] == '-' && a[1]) {
      return cli_arg_unknown("bind", a);
    } else if (!p->in) {
      p->in = a;
    } else if (!p->out) {
      p->out = a;
    } else {
      return cli_arg_error("bind", "too many arguments (at \"%s\")", a);
    }
  }
  if (!p->in || !p->out) return cli_arg_error("bind", "needs IN and OUT");
  return 0;
}

/* OUT names a model file, is never IN, and an existing OUT is replaced only with --force. 0, or the exit status (2
 * or 1) after a message. */
static int bind_check_output(const bind_args* p) {
  if (cli_check_model_output("bind", p->out) || cli_check_model_format("bind", p->out)) return 2;
  if (cli_same_file(p->in, p->out)) {
    fprintf(stderr, "skinkit bind: refusing to overwrite the input %s\n", p->in);
    return 2;
  }
  struct stat st;
  if (!p->force && stat(p->out, &st) == 0) {
    fprintf(stderr, "skinkit bind: %s exists (use --force to replace it)\n", p->out);
    return 1;
  }
  return 0;
}

/* The meshes to bind (--meshes', else every mesh but those left_out) and the joints that receive weights (--joints',
 * else IN's deform joints; none with --all-joints) into run, their masks into *chosen and *deform for the caller to
 * free. 0, or 2 after a message. */
static int bind_choose(sk_scene* s, const bind_args* p, bind_run* run, uint8_t** chosen, uint8_t** deform) {
  *deform = NULL;
  *chosen = p->meshes ? parse_meshes(s, p->meshes) : default_meshes(s);
  if (p->meshes && !*chosen) return 2;
  run->meshes = *chosen;
  run->meshes_given = p->meshes != NULL;
  if (p->joints || !p->all_joints) {
    *deform = choose_deform(s, p->joints, run);
    if (!*deform && p->joints) return 2;
    run->deform = *deform;
  }
  return 0;
}

/* Binds the meshes of s, their reports into res (one per mesh): first each surface of several meshes as one
 * (bind_surface), then every mesh (bind_mesh). 0, or 2 (after a message, but when out of memory here). */
/* The armature fits the model, but robust found it beside one of the meshes it was not asked to choose (a ground
 * plane, a backdrop, another character's prop) and bound that one by proximity: say so, every bound mesh being
 * bound is what --meshes exists for (an auditor's ground plane took the legs' weights without a word). */
static void warn_beside(const sk_scene* s, const bind_run* run, const bind_result* res) {
  if (run->method != SK_BIND_ROBUST || run->meshes_given || !run->fit.size || !run->fit.ok) return;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m)
    if (res[m].bound && res[m].rep.method_used == SK_BIND_DELAUNAY)
      cli_in_warning(
          "bind",
          "mesh \"%s\": the armature lies beside it, not in it: bound by proximity "
          "(delaunay); if it is not part of the character (a ground plane, a prop), leave it out with --meshes",
          sk_scene_mesh_name(s, m));
}

static double seg_dist2(const float* p, const float* a, const float* b) {
  double ab[3], ap[3], l2 = 0.0, t = 0.0, d2 = 0.0;
  for (int k = 0; k < 3; ++k) ab[k] = (double)b[k] - a[k], ap[k] = (double)p[k] - a[k], l2 += ab[k] * ab[k];
  for (int k = 0; k < 3; ++k) t += ap[k] * ab[k];
  t = l2 > 0.0 ? (t / l2 < 0.0 ? 0.0 : t / l2 > 1.0 ? 1.0 : t / l2) : 0.0;
  for (int k = 0; k < 3; ++k) d2 += (ap[k] - t * ab[k]) * (ap[k] - t * ab[k]);
  return d2;
}

/* Whether bone y (head h, tail t) and bone z lie along one another: both ends of the shorter within a tenth of its
 * length from the longer's segment (as the robust bind's branch rule takes them). */
static int bones_along(const float* h, const float* t, uint32_t y, uint32_t z) {
  double ly = seg_dist2(t + 3 * y, h + 3 * y, h + 3 * y), lz = seg_dist2(t + 3 * z, h + 3 * z, h + 3 * z);
  if (ly < lz) {
    uint32_t x = y;
    y = z, z = x, ly = lz, lz = seg_dist2(t + 3 * z, h + 3 * z, h + 3 * z);
  }
  return lz > 0.0 && seg_dist2(h + 3 * z, h + 3 * y, t + 3 * y) <= 0.01 * lz &&
         seg_dist2(t + 3 * z, h + 3 * y, t + 3 * y) <= 0.01 * lz;
}

/* Pairs of sibling joints (one parent: never one above the other) that both took weight and lie along one another:
 * a rig's mechanism, IK or control bone beside the deform bone it drives. glTF and FBX carry no deform flag and
 * Blender's exporters list every bone in the skin (unless Deform Bones Only), so each pair is named; --joints
 * chooses. Siblings only, through child lists, and only under parents of at most 64 weighted children. */
static void warn_along(const sk_scene* s, const sk_skeleton* sk, const bind_run* run, const bind_result* res) {
  const uint32_t nj = sk_skeleton_joint_count(sk), nm = sk_scene_mesh_count(s);
  if (run->deform_rule && !strcmp(run->deform_rule, "joints")) return;
  uint8_t* used = calloc(nj ? nj : 1, 1);
  int32_t* first = malloc((size_t)(nj ? nj : 1) * sizeof *first); /* weighted children: first, next sibling */
  int32_t* next = malloc((size_t)(nj ? nj : 1) * sizeof *next);
  float* h = malloc((size_t)nj * 3 * sizeof *h);
  float* t = malloc((size_t)nj * 3 * sizeof *t);
  sk_error err;
  if (used && first && next && h && t && !sk_skeleton_bone_segments(sk, SK_BONE_SPACE_REST, h, t, &err)) {
    for (uint32_t m = 0; m < nm; ++m)
      for (uint32_t j = 0; res[m].bound && res[m].counts && j < nj; ++j) used[j] |= res[m].counts[j] != 0;
    for (uint32_t j = 0; j < nj; ++j) first[j] = next[j] = -1;
    for (uint32_t c = nj; c-- > 0;) {
      const int32_t p = sk_skeleton_joint_parent(sk, c);
      if (used[c] && p >= 0 && (uint32_t)p < nj && (uint32_t)p != c) next[c] = first[p], first[p] = (int32_t)c;
    }
    uint32_t named = 0, more = 0;
    for (uint32_t p = 0; p < nj; ++p) {
      uint32_t kids = 0; /* a hub of hundreds of children (a flat skeleton) is no limb: its pairs are not looked at */
      for (int32_t a = first[p]; a >= 0 && kids <= 64; a = next[a]) ++kids;
      for (int32_t a = kids <= 64 ? first[p] : -1; a >= 0; a = next[a])
        for (int32_t b = next[a]; b >= 0; b = next[b]) {
          if (!bones_along(h, t, (uint32_t)a, (uint32_t)b)) continue;
          if (named++ < 4)
            cli_in_warning("bind",
                           "joints \"%s\" and \"%s\" lie along one another and both took weight; if "
                           "one only drives the other (a mechanism, IK or control bone), bind with --joints naming the "
                           "deform bones",
                           sk_skeleton_joint_name(sk, (uint32_t)a), sk_skeleton_joint_name(sk, (uint32_t)b));
          else
            ++more;
        }
    }
    if (more) cli_in_warning("bind", "and %u more such pairs", more);
  }
  free(used), free(first), free(next), free(h), free(t);
}

static int bind_all(sk_scene* s, const sk_skeleton* sk, const bind_run* run, const uint8_t* chosen, bind_result* res) {
  const uint32_t nm = sk_scene_mesh_count(s);
  int rc = 0;
  for (uint32_t m = 0; m < nm; ++m) res[m].armature = -1;
  /* meshes that are one surface (an object split by material) are bound as one, then each is written */
  uint32_t* group = cli_surface_groups(s, chosen);
  sk_skin** fresh = calloc(nm ? nm : 1, sizeof *fresh);
  if (!group || !fresh) rc = 2;
  for (uint32_t m = 0; m < nm && !rc; ++m)
    if (group[m] == m && cli_surface_size(group, nm, m) > 1) rc = bind_surface(s, group, m, sk, run, fresh, res);
  for (uint32_t m = 0; m < nm && !rc; ++m) rc = bind_mesh(s, m, sk, run, &res[m], &fresh[m]);
  if (!rc) warn_beside(s, run, res);
  if (!rc) warn_along(s, sk, run, res);
  for (uint32_t m = 0; fresh && m < nm; ++m) sk_skin_destroy(fresh[m]);
  free(fresh), free(group);
  return rc;
}

/* Writes s to OUT (--force: over an existing file), the time it took into *save_ms; what the output could not keep
 * on stderr. 0, or the exit status (1 or 2) after a message. */
static int bind_save(sk_scene* s, const char* out, int force, double* save_ms) {
  sk_error err;
  sk_save_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.overwrite = (uint32_t)force;
  cli_guard_save(s, &o);
  char notes[8192] = ""; /* every note of the save (err.message holds the first 255 bytes) */
  o.notes = notes;
  o.notes_size = sizeof notes;
  double ts = now_ms();
  int src = cli_scene_save(s, out, &o, &err);
  *save_ms = now_ms() - ts;
  if (src) {
    cli_save_error("bind", out, err.message);
    return src == SK_ERR_EXISTS ? 1 : 2;
  }
  if (notes[0]) /* what the output could not keep, as convert and weights say it */
    cli_save_notes("bind", out, notes, NULL, NULL);
  return 0;
}

int cli_bind(int argc, char** argv) {
  bind_args p;
  int rc = bind_parse_args(argc, argv, &p);
  if (rc || (rc = bind_check_output(&p))) return rc;
  double t0 = now_ms();
  sk_scene* s = NULL;
  if (cli_load_scene("bind", p.in, p.out, &s)) return 2;
  double load_ms = now_ms() - t0;
  const sk_skeleton* sk = sk_scene_skeleton(s);
  if (!sk) {
    cli_in_error("bind",
                 "no skeleton (no mesh references a bone and no node can be one: every node carries a mesh, camera "
                 "or light or holds one): nothing to bind to");
    sk_scene_destroy(s);
    return 2;
  }
  uint32_t nj = sk_skeleton_joint_count(sk), nm = sk_scene_mesh_count(s);
  bind_run run = {.in = p.in,
                  .out = p.out,
                  .method = p.method,
                  .max_inf = p.max_inf,
                  .per_joint = p.per_joint,
                  .json = p.json,
                  .deform_count = nj,
                  .deform_rule = "all_joints",
                  .load_ms = load_ms};
  uint8_t *chosen = NULL, *deform = NULL;
  bind_result* res = NULL;
  if ((rc = bind_choose(s, &p, &run, &chosen, &deform))) goto done;
  check_fit(s, sk, deform, run.meshes_given ? chosen : NULL, &run.fit); /* the default mask is no choice */
  res = calloc(nm ? nm : 1, sizeof *res);
  rc = res ? bind_all(s, sk, &run, chosen, res) : 2;
  if (!rc) rc = bind_save(s, p.out, p.force, &run.save_ms);
  if (!rc) print_report(s, sk, res, nm, &run, now_ms() - t0);
done:
  for (uint32_t m = 0; res && m < nm; ++m) bind_result_free(&res[m]);
  free(res);
  free(deform);
  free(chosen);
  sk_scene_destroy(s);
  return rc;
}
