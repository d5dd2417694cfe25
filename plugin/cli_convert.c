/* cli_convert.c - `skinkit convert IN OUT`: re-export through the scene ABI. */
#define _DEFAULT_SOURCE /* clock_gettime, access, lstat, ... */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli_common.h"
#include "skinkit.h"

const char cli_convert_usage[] =
    "usage: skinkit convert IN OUT [--normalize] [--limit N] [--prune EPS] [--as-is] [--format F]\n"
    "                           [--weights-type float|u8|u16] [--force] [--json [FILE|-]]\n"
    "       skinkit convert IN -o OUT ...   (-o/--output OUT: OUT as an option)\n"
    "  Writes IN (any format Assimp reads) as OUT (.glb, .gltf, .dae, .fbx; --format fbxa for ASCII FBX).\n"
    "  --normalize   renormalize each vertex's weights to sum 1 (NaN, infinite and negative weights removed)\n"
    "  --limit N     keep the N largest influences (sorted, renormalized); glTF default 4, past 4 in JOINTS_1...\n"
    "  --prune EPS   drop weights below EPS first\n"
    "  --as-is       write weights unchanged (glTF: every influence, sums as stored)\n"
    "  --weights-type T  glTF weights as float, u8 or u16 (normalized, sums exactly 255 / 65535); default: the\n"
    "                type of a glTF IN (float otherwise)\n"
    "  --force       replace an existing OUT (IN itself is never overwritten)\n"
    "  --json        a summary on stdout instead of \"wrote OUT\" (schema skinkit.convert, docs/json.md);\n"
    "                --json FILE.json or --json=FILE writes it to FILE\n"
    "  glTF IN -> glTF OUT (.glb or .gltf) edits IN: materials, textures, extensions, cameras, morph targets,\n"
    "  names and every other byte stay; only JOINTS_n/WEIGHTS_n change, and only where the influences do (a\n"
    "  .gltf's new data in OUT_skin.bin; a .glb's BIN chunk becomes OUT.bin beside a .gltf OUT; a .gltf's\n"
    "  buffers and image files go into a .glb OUT's BIN chunk).\n"
    "  A VRM avatar (.vrm) is read as the .glb it is; a .vrm OUT is written only as such an edit of a VRM IN\n"
    "  (its humanoid, expressions and spring bones kept); a .glb under any other name is read by its magic.\n"
    "  FBX IN (binary, or ASCII read as the binary file) -> .fbx OUT edits IN too: polygons, control points,\n"
    "  materials, blend shapes, bind poses and every other record stay; only the clusters' Indexes/Weights\n"
    "  change, where the weights do (bones that gain weight get a cluster). From other sources, or when IN cannot\n"
    "  take the edit (a warning says why): Assimp 5.2.5's FBX writer (triangles, a control point per corner),\n"
    "  its null records and clip lengths repaired;\n"
    "  --format fbxa writes ASCII FBX: the .fbx above as text, every value exact (Blender reads only binary).\n"
    "  Collada IN -> .dae OUT edits IN too: geometry, <extra>s (Blender's bone tips) and every other element\n"
    "  stay; only the skin controllers' <vcount>/<v> change, the new weights appended. From other sources, or\n"
    "  when IN cannot take the edit (a warning says why): Assimp's Collada writer (a vertex per corner); several\n"
    "  clips are written in sequence on one timeline and named in <library_animation_clips>.\n"
    "  Through Assimp (.dae, .fbx) the armature object (a skeleton root no mesh weights and no clip moves, not\n"
    "  scaled) stays a plain node with its name, not an extra bone, and a mesh under it stays under it; nodes\n"
    "  below a bone with nothing below them (sockets, leaf bones) are kept as bones, except an FBX file's\n"
    "  empties (Null nodes) and a glTF file's nodes no skin lists, which stay empties hanging from their bone\n"
    "  (in .glb: plain nodes no skin lists), with their keys.\n"
    "  glTF is written by skinkit's own writer: every vertex in order, a skin per mesh, every clip; by default\n"
    "  the 4 largest influences (what every engine reads), all of them with --limit N or --as-is. An object of\n"
    "  several materials is one glTF mesh; a mesh under the armature object or under a node a clip animates\n"
    "  (a machine animated without skins) hangs under that node, so it moves with it.\n"
    "  A warning says what is not written as stored (influences past the glTF default; in FBX, bind matrices\n"
    "  that are not the rest pose up to one transform); the file is written all the same.\n"
    "  OUT is replaced atomically: a failed or killed write leaves the previous OUT as it was.\n"
    "  Exit 0: written; 1: OUT exists (nothing written; use --force); 2: error (OUT is IN or a link to it,\n"
    "  unreadable or damaged IN, write failed, ...).\n";

/* Weights the reader could not keep (an entry naming a joint past the skin's joints, or a vertex past the end): they
 * are not in the scene, so not in OUT either; said here rather than written silently. */
static void dropped_warning(sk_scene* s) {
  uint32_t n = sk_scene_mesh_count(s);
  sk_mesh_report* r = calloc(n ? n : 1, sizeof *r);
  if (!r) return;
  for (uint32_t m = 0; m < n; ++m) r[m].size = sizeof *r, r[m].skin.size = sizeof r[m].skin;
  sk_validate_options vo = {sizeof vo, 0, 0.0f, 0};
  sk_error e;
  uint64_t dropped = 0, bare = 0;
  if (sk_scene_validate(s, &vo, r, n, NULL, &e) == SK_OK)
    for (uint32_t m = 0; m < n; ++m)
      if (r[m].skinned && r[m].dropped_weights) dropped += r[m].dropped_weights, bare += r[m].skin.unweighted;
  free(r);
  if (dropped)
    cli_in_warning("convert",
                   "%llu weight(s) name a joint past its skin's joints (or a vertex past the end) and cannot be "
                   "kept; %llu vertices are left with no weight (`skinkit validate IN` lists them)",
                   (unsigned long long)dropped, (unsigned long long)bare);
}

/* --format F must name a format we write and agree with OUT's extension (glTF bytes in a .fbx file help no
 * one): 0, or 2 after one error line. */
static int check_format(const char* format, const char* out) {
  static const char* const k_map[][2] = {{"glb", ".glb"},  {"glb2", ".glb"}, {"gltf", ".gltf"}, {"gltf2", ".gltf"},
                                         {"fbx", ".fbx"},  {"fbxa", ".fbx"}, {"dae", ".dae"},   {"collada", ".dae"}};
  const char* ext = NULL;
  for (size_t k = 0; k < sizeof k_map / sizeof k_map[0]; ++k)
    if (!strcasecmp(format, k_map[k][0])) ext = k_map[k][1];
  if (!ext) return cli_arg_error("convert", "--format takes glb, gltf, fbx, fbxa or dae, not \"%s\"", format);
  const char* slash = strrchr(out, '/');
  const char* dot = strrchr(slash ? slash : out, '.');
  if (dot && strcasecmp(dot, ext) && !(!strcmp(ext, ".glb") && !strcasecmp(dot, ".vrm"))) /* a .vrm is a .glb */
    return cli_arg_error("convert", "--format %s writes %s files, but OUT is %s (change one of them)", format, ext, out);
  return 0;
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The --json summary (schema skinkit.convert). */
static void convert_json(sk_scene* s, const char* in, const char* out, const char* format, double seconds) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nm = sk_scene_mesh_count(s);
  cli_json_head(stdout, "convert");
  printf(",\"path\":");
  cli_json_string(stdout, in);
  printf(",\"output\":");
  cli_json_string(stdout, out);
  printf(",\"format\":");
  cli_json_string(stdout, format);
  printf(",\"seconds\":%.4f,\"joint_count\":%u,\"mesh_count\":%u,\"meshes\":[", seconds,
         sk ? sk_skeleton_joint_count(sk) : 0u, nm);
  for (uint32_t m = 0; m < nm; ++m) {
    printf("%s{\"name\":", m ? "," : "");
    cli_json_string(stdout, sk_scene_mesh_name(s, m));
    printf(",\"vertex_count\":%zu,\"triangle_count\":%zu,\"skinned\":%s}", sk_scene_mesh_vertex_count(s, m),
           sk_scene_mesh_index_count(s, m) / 3, sk_scene_mesh_skin(s, m) ? "true" : "false");
  }
  printf("]}\n");
}

/* OUT's extension without the dot ("" when none): the format written when --format is not given. */
static const char* out_extension(const char* out) {
  const char* slash = strrchr(out, '/');
  const char* dot = strrchr(slash ? slash : out, '.');
  return dot ? dot + 1 : "";
}

int cli_convert(int argc, char** argv) {
  const char *in = NULL, *out = NULL;
  int json = 0;
  double t0 = seconds_now();
  sk_save_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--normalize")) {
      o.normalize = 1;
    } else if (!strcmp(a, "--force")) {
      o.overwrite = 1;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--as-is")) {
      o.as_is = 1;
    } else if (!strcmp(a, "--limit")) {
      const char* v = cli_arg_value("convert", argc, argv, &i);
      if (!v || cli_arg_u32("convert", a, v, 1, 255, &o.max_influences)) return 2;
    } else if (!strcmp(a, "--prune")) {
      const char* v = cli_arg_value("convert", argc, argv, &i);
      if (!v || cli_arg_float("convert", a, v, 0.0, 1.0, CLI_OPEN_HI, &o.prune)) return 2;
    } else if (!strcmp(a, "--weights-type")) {
      const char* t = cli_arg_value("convert", argc, argv, &i);
      if (!t) return 2;
      o.weights_type = !strcmp(t, "float") ? SK_WEIGHTS_FLOAT : !strcmp(t, "u8") ? SK_WEIGHTS_U8
                       : !strcmp(t, "u16") ? SK_WEIGHTS_U16 : 99u;
      if (o.weights_type == 99u)
        return cli_arg_error("convert", "--weights-type takes float, u8 or u16, not \"%s\"", t);
    } else if (!strcmp(a, "--format")) {
      if (!(o.format = cli_arg_value("convert", argc, argv, &i))) return 2;
    } else if (a[0] == '-' && a[1]) {
      return cli_arg_unknown("convert", a);
    } else if (!in) {
      in = a;
    } else if (!out) {
      out = a;
    } else {
      return cli_arg_error("convert", "too many arguments (at \"%s\")", a);
    }
  }
  if (!in || !out) return cli_arg_error("convert", "needs IN and OUT");
  if (o.format && check_format(o.format, out)) return 2;
  if (cli_check_model_output("convert", out)) return 2;
  if (cli_same_file(in, out)) {
    fprintf(stderr, "skinkit convert: refusing to overwrite the input %s\n", in);
    return 2;
  }
  sk_error err;
  sk_scene* s = NULL;
  if (cli_load_scene("convert", in, out, &s)) return 2;
  dropped_warning(s);    /* what IN holds that no format can keep */
  char notes[8192] = ""; /* every note of the save (err.message holds the first 255 bytes) */
  o.notes = notes;
  o.notes_size = sizeof notes;
  cli_guard_save(s, &o);
  int rc = cli_scene_save(s, out, &o, &err);
  if (rc) {
    sk_scene_destroy(s);
    /* OUT itself exists: the library's message names its own option (overwrite), the CLI's is --force */
    if (rc == SK_ERR_EXISTS && strstr(err.message, "set overwrite"))
      fprintf(stderr, "skinkit convert: %s exists (nothing written; use --force to replace it)\n", out);
    else
      cli_save_error("convert", out, err.message);
    return rc == SK_ERR_EXISTS ? 1 : 2;
  }
  cli_save_notes("convert", out, notes, " (--limit N writes up to N in JOINTS_1/WEIGHTS_1..., --as-is all of them)",
                 " (--as-is keeps them as stored)");
  if (json)
    convert_json(s, in, out, o.format ? o.format : out_extension(out), seconds_now() - t0);
  else
    printf("wrote %s\n", out);
  sk_scene_destroy(s);
  return 0;
}
