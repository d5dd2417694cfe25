/* cli_convert.c - `skinkit convert IN OUT`: re-export through the scene ABI. */
#define _DEFAULT_SOURCE /* clock_gettime, access, lstat, ... */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_common.h"
#include "skinkit.h"

const char cli_convert_usage[] =
    "usage: skinkit convert IN OUT [--normalize] [--limit N] [--prune EPS] [--as-is] [--format F] [--force]\n"
    "  Writes IN (any format Assimp reads) as OUT (.glb, .gltf, .dae, .fbx; --format fbxa for ASCII FBX).\n"
    "  --normalize   renormalize each vertex's weights to sum 1\n"
    "  --limit N     keep the N largest influences (sorted, renormalized); glTF default 4 (its maximum)\n"
    "  --prune EPS   drop weights below EPS first\n"
    "  --as-is       write weights unchanged (glTF: refused if a vertex has more than 4)\n"
    "  --force       replace an existing OUT (IN itself is never overwritten)\n"
    "  Binary FBX: Assimp 5.2.5's output with its missing null records repaired; Assimp reads its meshes and\n"
    "  weights back but not its animations (--format fbxa keeps them for Assimp readers; Blender reads binary).\n"
    "  A warning says what the output format cannot carry (influences past 4 in glTF, several clips in\n"
    "  Collada, clips in binary FBX for Assimp readers); the file is written all the same.\n"
    "  Exit 0: written; 1: OUT exists (nothing written; use --force); 2: error (OUT is IN, unreadable IN, ...).\n";

/* What the chosen output format cannot carry, said before writing (the file is still written). */
static void convert_warnings(sk_scene* s, const char* out, const sk_save_options* o) {
  const char* fmt = o->format;
  if (!fmt) {
    const char* dot = strrchr(out, '.');
    const char* slash = strrchr(out, '/');
    fmt = dot && (!slash || dot > slash) ? dot + 1 : "";
  }
  int gltf = !strcasecmp(fmt, "glb") || !strcasecmp(fmt, "gltf") || !strcasecmp(fmt, "glb2") ||
             !strcasecmp(fmt, "gltf2");
  int dae = !strcasecmp(fmt, "dae") || !strcasecmp(fmt, "collada");
  int fbx_binary = !strcasecmp(fmt, "fbx");
  uint32_t anims = sk_scene_animation_count(s);
  if (gltf && !o->as_is) {
    uint32_t limit = o->max_influences ? o->max_influences : 4;
    uint64_t over = 0;
    for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
      sk_skin* skin = sk_scene_mesh_skin(s, m);
      if (!skin) continue;
      sk_validate_options vo = {sizeof vo, limit, 0.0f, 0};
      sk_skin_report r;
      memset(&r, 0, sizeof r);
      r.size = sizeof r;
      sk_error e;
      if (sk_skin_validate(skin, &vo, &r, NULL, &e) == SK_OK) over += r.over_limit;
    }
    if (over && !o->max_influences)
      fprintf(stderr,
              "skinkit convert: warning: glTF carries 4 influences per vertex; %llu vertices have more: their 4 "
              "largest are written, renormalized (.dae and .fbx keep them all)\n",
              (unsigned long long)over);
  }
  if (dae && anims > 1)
    fprintf(stderr,
            "skinkit convert: warning: Collada: %u animations written; Assimp reads them back with one "
            "animation's keys and Blender 3.4 as one merged action (.glb or .fbx keep them apart)\n",
            anims);
  if (fbx_binary && anims)
    fprintf(stderr,
            "skinkit convert: warning: binary FBX: Blender reads the %u animation(s) back, Assimp reads none "
            "(--format fbxa writes ASCII FBX, which Assimp reads with them)\n",
            anims);
}

int cli_convert(int argc, char** argv) {
  const char *in = NULL, *out = NULL;
  sk_save_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--normalize")) {
      o.normalize = 1;
    } else if (!strcmp(a, "--force")) {
      o.overwrite = 1;
    } else if (!strcmp(a, "--as-is")) {
      o.as_is = 1;
    } else if (!strcmp(a, "--limit") && i + 1 < argc) {
      o.max_influences = (uint32_t)strtoul(argv[++i], NULL, 10);
    } else if (!strcmp(a, "--prune") && i + 1 < argc) {
      o.prune = strtof(argv[++i], NULL);
    } else if (!strcmp(a, "--format") && i + 1 < argc) {
      o.format = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "skinkit convert: unknown option %s\n%s", a, cli_convert_usage);
      return 2;
    } else if (!in) {
      in = a;
    } else if (!out) {
      out = a;
    } else {
      fprintf(stderr, "skinkit convert: too many arguments\n%s", cli_convert_usage);
      return 2;
    }
  }
  if (!in || !out) {
    fputs(cli_convert_usage, stderr);
    return 2;
  }
  if (cli_same_file(in, out)) {
    fprintf(stderr, "skinkit convert: refusing to overwrite the input %s\n", in);
    return 2;
  }
  sk_error err;
  sk_scene* s = NULL;
  if (sk_scene_load(in, NULL, &s, &err)) {
    fprintf(stderr, "skinkit convert: %s\n", err.message);
    return 2;
  }
  convert_warnings(s, out, &o);
  int rc = sk_scene_save(s, out, &o, &err);
  sk_scene_destroy(s);
  if (rc) {
    fprintf(stderr, "skinkit convert: %s\n", err.message);
    return rc == SK_ERR_EXISTS ? 1 : 2;
  }
  printf("wrote %s\n", out);
  return 0;
}
