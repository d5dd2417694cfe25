/* cli_info.c - `skinkit info FILE [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_skf.h"
#include "skinkit.h"

const char cli_info_usage[] =
    "usage: skinkit info FILE... [--json [FILE|-]]\n"
    "  Meshes, vertices, influence histogram, weight-sum range, animations and the joint tree of each file: per\n"
    "  joint its parent, whether it is a deform joint (the joints `skinkit bind` weights: those some skin lists;\n"
    "  without skins the bone hierarchy below the scene root, armature object nodes and importers' synthetic\n"
    "  roots, see `skinkit bind --help`) and the vertices it moves (non-zero weight, over all meshes); the count of\n"
    "  deform joints in the header; a file without any skin shows the skeleton bind takes from its nodes. Then\n"
    "  what else the scene holds: materials (and each mesh's), images, cameras, lights and empty nodes (what each\n"
    "  hangs from), and what the reader could not take.\n"
    "  --json: one JSON object per file per line (schema skinkit.info, docs/json.md), with\n"
    "  \"deform_joint_count\", \"deform_rule\" (\"skins\", \"hierarchy\", \"all\" or \"none\"),\n"
    "  \"stored_tail_count\" (bone tails the file gives: Blender's Collada tips and connected bones, _end leaf\n"
    "  bones),\n"
    "  \"joint_count\" and \"joints\":[{\"name\",\"parent\" (index, -1 for a root),\"deform\",\"vertex_count\"}],\n"
    "  \"materials\":[{\"name\"}], \"image_count\", \"objects\":[{\"name\",\"kind\" (camera, light, "
    "empty),\"parent\"}],\n"
    "  \"note\" when present, and per mesh \"material\" (an index into \"materials\");\n"
    "  --json FILE.json (or --json=FILE) writes them to FILE instead of stdout.\n"
    "  For an .skf file: header, meshes and the chunk list (tag, stored and raw sizes, influence_bytes).\n"
    "  Exit 0: every file read; 2: some file could not be read (the others are still listed).\n";

/* Per joint: deform (sk_scene_deform_joints: the joints some skin lists, else the bone hierarchy; the rule in
 * *rule, the count in *nd) and the number of vertices with a non-zero weight on it, over all meshes. 0, or 1 when
 * out of memory. */
static int joint_stats(sk_scene* s, uint32_t nj, uint8_t* deform, uint64_t* verts, uint32_t* nd, uint32_t* rule) {
  sk_error e;
  int rc = sk_scene_deform_joints(s, deform, nj, nd, rule, &e) != SK_OK;
  for (uint32_t m = 0; !rc && m < sk_scene_mesh_count(s); ++m) {
    const sk_skin* skin = sk_scene_mesh_skin(s, m);
    if (!skin) continue;
    size_t nv = sk_skin_vertex_count(skin), ni = sk_skin_influence_count(skin);
    uint32_t* off = malloc((nv + 1) * sizeof *off);
    uint32_t* jt = malloc((ni ? ni : 1) * sizeof *jt);
    float* w = malloc((ni ? ni : 1) * sizeof *w);
    if (!off || !jt || !w) rc = 1;
    if (!rc && sk_skin_get_csr(skin, off, jt, w, &e) == SK_OK)
      for (size_t v = 0; v < nv; ++v)
        for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
          if (jt[k] >= nj || w[k] == 0.0f) continue;
          uint32_t dup = 0; /* a joint listed twice for one vertex counts once */
          for (uint32_t q = off[v]; q < k; ++q) dup |= jt[q] == jt[k] && w[q] != 0.0f;
          if (!dup) verts[jt[k]]++;
        }
    free(off);
    free(jt);
    free(w);
  }
  return rc;
}

/* The joint tree, depth-first from each root, two spaces per level; children in index order (child lists built once:
 * a scan of every joint per joint took 19 s for 60,000 joints). */
static void print_tree(const sk_skeleton* sk, uint32_t nj, const uint8_t* deform, const uint64_t* verts) {
  uint32_t* stack = malloc((size_t)(nj ? nj : 1) * sizeof *stack);
  uint32_t* depth = calloc(nj ? nj : 1, sizeof *depth);
  int32_t* first = malloc((size_t)(nj ? nj : 1) * sizeof *first); /* first child, next sibling: -1 = none */
  int32_t* next = malloc((size_t)(nj ? nj : 1) * sizeof *next);
  if (stack && depth && first && next) {
    for (uint32_t j = 0; j < nj; ++j) first[j] = next[j] = -1;
    for (uint32_t c = nj; c-- > 0;) { /* prepended from the last: each list in index order */
      int32_t p = sk_skeleton_joint_parent(sk, c);
      if (p >= 0 && (uint32_t)p < nj && (uint32_t)p != c) next[c] = first[p], first[p] = (int32_t)c;
    }
    printf("  joints:\n");
    for (uint32_t root = 0; root < nj; ++root) {
      int32_t p = sk_skeleton_joint_parent(sk, root);
      if (p >= 0 && (uint32_t)p < nj && (uint32_t)p != root) continue;
      size_t top = 0;
      stack[top++] = root;
      depth[root] = 0;
      while (top) {
        uint32_t j = stack[--top], kids = 0;
        printf("    %*s%s%s  %llu vertices\n", (int)(2 * (depth[j] < 40 ? depth[j] : 40)), "",
               sk_skeleton_joint_name(sk, j), deform[j] ? "  deform" : "", (unsigned long long)verts[j]);
        for (int32_t c = first[j]; c >= 0 && top + kids < nj; c = next[c])
          depth[c] = depth[j] + 1, stack[top + kids++] = (uint32_t)c;
        for (uint32_t a = 0, b = kids; a + 1 < b; ++a, --b) { /* pushed in reverse: popped in index order */
          uint32_t t = stack[top + a];
          stack[top + a] = stack[top + b - 1], stack[top + b - 1] = t;
        }
        top += kids;
      }
    }
  }
  free(stack), free(depth), free(first), free(next);
}

/* The optional vertex streams mesh m carries, as names (json: a JSON array of them), and in text the parts of a mesh
 * of several (json prints part_count itself). */
/* "+Y" for signed axis 2, "-Z" for -3; "?" when out of range. */
static void axis_name(int32_t a, char out[3]) {
  const int32_t i = a < 0 ? -a : a;
  out[0] = a < 0 ? '-' : '+';
  out[1] = i >= 1 && i <= 3 ? "XYZ"[i - 1] : '?';
  out[2] = 0;
}

/* A mesh's blend shapes (names), JSON "blend_shapes" (always, possibly empty). */
static void print_shapes(const sk_scene* s, uint32_t m, int json) {
  const uint32_t n = sk_scene_mesh_morph_count(s, m);
  if (!json && !n) return;
  printf(json ? ",\"blend_shapes\":[" : "    blend shapes: %u (", n);
  for (uint32_t t = 0; t < n && (json || t < 8); ++t) {
    if (t) printf(json ? "," : ", ");
    if (json)
      cli_json_string(stdout, sk_scene_mesh_morph_name(s, m, t));
    else
      printf("%s", sk_scene_mesh_morph_name(s, m, t));
  }
  printf(json ? "]" : n > 8 ? ", ...)\n" : ")\n");
}

/* How many meshes clip a keys the blend shapes of (sk_scene_mesh_morph_keys). */
static uint32_t shape_keyed_meshes(const sk_scene* s, uint32_t a) {
  uint32_t n = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) n += sk_scene_mesh_morph_keys(s, m, a, NULL, NULL, 0) > 0;
  return n;
}

static void print_streams(const sk_scene* s, uint32_t m, int json) {
  typedef size_t (*stream_get)(const sk_scene*, uint32_t, float*, size_t);
  static const stream_get k_get[] = {sk_scene_mesh_normals, sk_scene_mesh_tangents, sk_scene_mesh_uv0,
                                     sk_scene_mesh_uv1, sk_scene_mesh_colors};
  static const char* const k_name[] = {"normals", "tangents", "uv0", "uv1", "colors"};
  int n = 0;
  printf(json ? ",\"streams\":[" : "    streams: positions");
  for (int k = 0; k < 5; ++k) {
    if (!k_get[k](s, m, NULL, 0)) continue;
    printf(json ? "%s\"%s\"" : "%s%s", json && !n ? "" : ", ", k_name[k]);
    n++;
  }
  printf(json ? "]" : "\n");
  print_shapes(s, m, json);
  const uint32_t parts = sk_scene_mesh_part_count(s, m);
  if (!json && parts > 1)
    printf("    parts: %u (glTF primitives drawing these vertices, each with its material)\n", parts);
  const int32_t mat = sk_scene_mesh_material(s, m);
  if (!json && mat >= 0) printf("    material: \"%s\"\n", sk_scene_material_name(s, (uint32_t)mat));
}

static const char* const k_object_kind[] = {"empty", "camera", "light"};

/* The scene beyond meshes, joints and clips, JSON: "materials" (names), "image_count", "objects" (name, kind, parent
 * or null) and "note" when the reader left something out. */
static void print_scene_json(const sk_scene* s) {
  printf(",\"materials\":[");
  for (uint32_t i = 0; i < sk_scene_material_count(s); ++i) {
    printf("%s{\"name\":", i ? "," : "");
    cli_json_string(stdout, sk_scene_material_name(s, i));
    printf("}");
  }
  printf("],\"image_count\":%u,\"objects\":[", sk_scene_image_count(s));
  for (uint32_t i = 0; i < sk_scene_object_count(s); ++i) {
    const int32_t k = sk_scene_object_kind(s, i);
    const char* parent = sk_scene_object_parent(s, i);
    printf("%s{\"name\":", i ? "," : "");
    cli_json_string(stdout, sk_scene_object_name(s, i));
    printf(",\"kind\":\"%s\",\"parent\":", k >= 0 && k <= 2 ? k_object_kind[k] : "unknown");
    if (parent)
      cli_json_string(stdout, parent);
    else
      printf("null");
    printf("}");
  }
  printf("]");
  if (sk_scene_note(s)) {
    printf(",\"note\":");
    cli_json_string(stdout, sk_scene_note(s));
  }
}

/* Text: the materials and images on one line, then per object kind its count and up to 8 names (with what each hangs
 * from), then the reader's note. */
static void print_scene_text(const sk_scene* s) {
  const uint32_t nmat = sk_scene_material_count(s), nobj = sk_scene_object_count(s);
  if (nmat || sk_scene_image_count(s)) {
    printf("  materials: %u", nmat);
    for (uint32_t i = 0; i < nmat && i < 8; ++i) printf("%s\"%s\"", i ? ", " : " (", sk_scene_material_name(s, i));
    printf("%s%s, images: %u\n", nmat > 8 ? ", ..." : "", nmat ? ")" : "", sk_scene_image_count(s));
  }
  static const char* const k_plural[] = {"empty nodes", "cameras", "lights"};
  static const int32_t k_order[] = {SK_OBJECT_CAMERA, SK_OBJECT_LIGHT, SK_OBJECT_EMPTY};
  for (int o = 0; o < 3; ++o) {
    const int32_t kind = k_order[o];
    uint32_t n = 0;
    for (uint32_t i = 0; i < nobj; ++i) n += sk_scene_object_kind(s, i) == kind;
    if (!n) continue;
    printf("  %s: %u (", k_plural[kind], n);
    for (uint32_t i = 0, shown = 0; i < nobj && shown < 8; ++i) {
      if (sk_scene_object_kind(s, i) != kind) continue;
      printf("%s\"%s\"", shown++ ? ", " : "", sk_scene_object_name(s, i));
      if (sk_scene_object_parent(s, i)) printf(" on \"%s\"", sk_scene_object_parent(s, i));
    }
    printf("%s)\n", n > 8 ? ", ..." : "");
  }
  if (sk_scene_note(s)) printf("  note: %s\n", sk_scene_note(s));
}

/* What `info` shows of one model file: the scene, its skin reports per mesh, per joint whether it deforms and the
 * vertices it moves, and the file's frame. */
typedef struct info_data {
  const char* path;
  sk_scene* s;
  const sk_skeleton* sk;
  uint32_t nm, na, joints, tails;
  sk_mesh_report* reps;
  uint8_t* deform;
  uint64_t* verts;
  uint32_t ndeform, rule;
  int skinned;
  double unit_m;
  int declared;
  char up[3], front[3], coord[3];
} info_data;

/* Frees what info_gather allocated, and the scene. */
static void info_data_free(info_data* d) {
  free(d->reps);
  free(d->deform);
  free(d->verts);
  sk_scene_destroy(d->s);
}

/* Reads what info shows of the scene d->s (loaded from d->path). 0, or 2 after a message (when out of memory). */
static int info_gather(info_data* d) {
  sk_error err;
  sk_scene* s = d->s;
  d->sk = sk_scene_skeleton(s);
  d->nm = sk_scene_mesh_count(s);
  d->na = sk_scene_animation_count(s);
  d->joints = d->sk ? sk_skeleton_joint_count(d->sk) : 0;
  d->tails = d->sk ? sk_skeleton_get_tails(d->sk, NULL) : 0;
  d->reps = calloc(d->nm ? d->nm : 1, sizeof *d->reps);
  d->deform = calloc(d->joints ? d->joints : 1, 1);
  d->verts = calloc(d->joints ? d->joints : 1, sizeof *d->verts);
  if (!d->reps || !d->deform || !d->verts || joint_stats(s, d->joints, d->deform, d->verts, &d->ndeform, &d->rule)) {
    fprintf(stderr, "skinkit info: %s: out of memory\n", d->path);
    return 2;
  }
  for (uint32_t m = 0; m < d->nm; ++m) d->reps[m].size = sizeof *d->reps;
  d->skinned = sk_scene_validate(s, NULL, d->reps, d->nm, NULL, &err) == SK_OK;
  d->unit_m = 1.0;
  int32_t axes[3] = {2, 3, 1};
  d->declared = sk_scene_frame(s, &d->unit_m, axes, NULL) == 1;
  axis_name(axes[0], d->up);
  axis_name(axes[1], d->front);
  axis_name(axes[2], d->coord);
  return 0;
}

/* The JSON "meshes" array: per mesh its counts, streams, parts and material, and when skinned its influences. */
static void info_json_meshes(const info_data* d) {
  sk_scene* s = d->s;
  printf(",\"meshes\":[");
  for (uint32_t m = 0; m < d->nm; ++m) {
    const sk_skin_report* r = &d->reps[m].skin;
    printf("%s{\"name\":", m ? "," : "");
    cli_json_string(stdout, sk_scene_mesh_name(s, m));
    const char* object = cli_mesh_object(s, m);
    if (object) {
      printf(",\"object\":");
      cli_json_string(stdout, object);
    }
    printf(",\"vertex_count\":%zu,\"triangle_count\":%zu,\"skinned\":%s", sk_scene_mesh_vertex_count(s, m),
           sk_scene_mesh_index_count(s, m) / 3, d->reps[m].skinned ? "true" : "false");
    print_streams(s, m, 1);
    printf(",\"part_count\":%u", sk_scene_mesh_part_count(s, m));
    if (sk_scene_mesh_material(s, m) >= 0) printf(",\"material\":%d", (int)sk_scene_mesh_material(s, m));
    if (d->reps[m].skinned) {
      printf(",\"max_influences\":%u,\"weight_sum_min\":%.6g,\"weight_sum_max\":%.6g,\"histogram\":[",
             r->max_influences, r->weight_sum_min, r->weight_sum_max);
      for (int b = 0; b < SK_HISTOGRAM_BINS; ++b) printf("%s%llu", b ? "," : "", (unsigned long long)r->histogram[b]);
      printf("]");
    }
    printf("}");
  }
  printf("]");
}

/* The file as one JSON line (schema skinkit.info): header and frame, meshes, animations, joints, then the rest of the
 * scene. */
static void info_json(const info_data* d) {
  sk_scene* s = d->s;
  cli_json_head(stdout, "info");
  printf(",\"path\":");
  cli_json_string(stdout, d->path);
  static const char* const k_rule_json[] = {"none", "skins", "hierarchy", "all"};
  printf(
      ",\"format\":\"model\",\"seconds\":%.4f,\"joint_count\":%u,\"deform_joint_count\":%u,"
      "\"deform_rule\":\"%s\",\"stored_tail_count\":%u,\"mesh_count\":%u,\"animation_count\":%u",
      sk_scene_load_seconds(s), d->joints, d->ndeform, k_rule_json[d->rule <= 3 ? d->rule : 0], d->tails, d->nm, d->na);
  printf(",\"frame\":{\"declared\":%s,\"unit_metres\":%.9g,\"up\":\"%s\",\"front\":\"%s\",\"coord\":\"%s\"}",
         d->declared ? "true" : "false", d->unit_m, d->up, d->front, d->coord);
  info_json_meshes(d);
  printf(",\"animations\":[");
  for (uint32_t a = 0; a < d->na; ++a) {
    printf("%s{\"name\":", a ? "," : "");
    cli_json_string(stdout, sk_scene_animation_name(s, a));
    printf(",\"duration\":%.4f,\"shape_keyed_meshes\":%u}", sk_scene_animation_duration(s, a),
           shape_keyed_meshes(s, a));
  }
  printf("],\"joints\":[");
  for (uint32_t j = 0; j < d->joints; ++j) {
    printf("%s{\"name\":", j ? "," : "");
    cli_json_string(stdout, sk_skeleton_joint_name(d->sk, j));
    int32_t p = sk_skeleton_joint_parent(d->sk, j);
    printf(",\"parent\":%d,\"deform\":%s,\"vertex_count\":%llu}", p >= 0 && (uint32_t)p < d->joints ? (int)p : -1,
           d->deform[j] ? "true" : "false", (unsigned long long)d->verts[j]);
  }
  printf("]");
  print_scene_json(s);
  printf("}\n");
}

/* Text: the first line (counts, load time), then the deform joints, the bone tails and a declared frame. */
static void info_text_header(const info_data* d) {
  static const char* const k_rule[] = {"", "listed by the skins", "no skin: the bone hierarchy", "no skin: every node"};
  printf("%s: %u mesh(es), %u joint(s), %u animation(s), loaded in %.3f s%s\n", d->path, d->nm, d->joints, d->na,
         sk_scene_load_seconds(d->s), d->skinned ? "" : " -- no skin");
  if (d->joints) printf("  deform joints: %u of %u (%s)\n", d->ndeform, d->joints, k_rule[d->rule <= 3 ? d->rule : 0]);
  if (d->tails)
    printf(
        "  bone tails: %u of %u given by the file (Blender's Collada tips, _end leaf bones); bind infers the "
        "others\n",
        d->tails, d->joints);
  if (d->declared)
    printf(
        "  frame: 1 unit = %g m, %s up, %s front (the file's FBX GlobalSettings); .glb and .gltf are written "
        "in metres, +Y up, .dae in metres, +Z up\n",
        d->unit_m, d->up, d->front);
}

/* Text: per mesh its counts and, when skinned, its influences and weight sums, then its streams. */
static void info_text_meshes(const info_data* d) {
  sk_scene* s = d->s;
  for (uint32_t m = 0; m < d->nm; ++m) {
    const sk_skin_report* r = &d->reps[m].skin;
    const char* object = cli_mesh_object(s, m);
    printf("  mesh %u \"%s\"", m, sk_scene_mesh_name(s, m));
    if (object) printf(" (object \"%s\")", object);
    printf(": %zu vertices, %zu triangles", sk_scene_mesh_vertex_count(s, m), sk_scene_mesh_index_count(s, m) / 3);
    if (!d->reps[m].skinned) {
      printf(", not skinned\n");
      print_streams(s, m, 0);
      continue;
    }
    printf(", max %u influences, weight sums %.4f..%.4f", r->max_influences, r->weight_sum_min, r->weight_sum_max);
    if (r->nan || r->negative) /* a NaN sum is outside the range shown: say such weights are there */
      printf(" (vertices with a NaN or infinite weight: %llu, a negative one: %llu)", (unsigned long long)r->nan,
             (unsigned long long)r->negative);
    printf("\n    influences:");
    for (int b = 0; b < SK_HISTOGRAM_BINS; ++b)
      if (r->histogram[b])
        printf(" %d%s:%llu", b, b == SK_HISTOGRAM_BINS - 1 ? "+" : "", (unsigned long long)r->histogram[b]);
    printf("\n");
    print_streams(s, m, 0);
  }
}

/* The file as text: header, meshes, the first 20 animations, the rest of the scene, the joint tree and, without a
 * skin, why. */
static void info_text(const info_data* d) {
  sk_scene* s = d->s;
  info_text_header(d);
  info_text_meshes(d);
  for (uint32_t a = 0; a < d->na && a < 20; ++a) {
    const uint32_t keyed = shape_keyed_meshes(s, a);
    printf("  animation %u \"%s\": %.3f s", a, sk_scene_animation_name(s, a), sk_scene_animation_duration(s, a));
    printf(keyed ? ", keys the blend shapes of %u mesh(es)\n" : "\n", keyed);
  }
  if (d->na > 20) printf("  ... %u more animations\n", d->na - 20);
  print_scene_text(s);
  if (d->joints) print_tree(d->sk, d->joints, d->deform, d->verts);
  sk_error e;
  if (!d->skinned && sk_scene_require_skin(s, &e) == SK_ERR_NO_SKIN) printf("  note: %s\n", e.message);
}

static int info_one(const char* path, int json) {
  if (cli_check_input("info", path)) return 2;
  if (cli_skf_is_skf(path)) {
    char* sub[4] = {"info", (char*)path, json ? "--json" : NULL, NULL};
    return cli_skf_info(json ? 3 : 2, sub);
  }
  info_data d;
  memset(&d, 0, sizeof d);
  d.path = path;
  if (cli_load_scene("info", path, NULL, &d.s)) return 2;
  int rc = info_gather(&d);
  if (!rc && json)
    info_json(&d);
  else if (!rc)
    info_text(&d);
  info_data_free(&d);
  return rc;
}

int cli_info(int argc, char** argv) {
  int json = 0, files = 0, rc = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_arg_unknown("info", argv[i]);
    else
      files++;
  }
  if (!files) return cli_arg_error("info", "needs FILE");
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) continue;
    if (!json && files > 1 && i > 1) printf("\n");
    fflush(stdout);
    if (info_one(argv[i], json)) rc = 2;
    fflush(stdout);
  }
  return rc;
}
