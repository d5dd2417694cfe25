/* test_cli_bind.c - `skinkit bind IN OUT` end to end: every method writes a file whose weights validate, the JSON
 * and text reports (per-joint counts, timings), --joints, --max-influences, never overwriting IN, OUT needing
 * --force, existing weights ignored, and the error exits. Runs the real build/skinkit on tests/data samples. */
#define _GNU_SOURCE /* memmem */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skc_math.h"
#include "skinkit.h"
#include "skio_gltf_doc.h"
#include "skio_scene.h"

#ifndef SK_CLI_PATH
#error "SK_CLI_PATH must name the built skinkit executable"
#endif

static char g_tmp[256];
static char g_out[1 << 16];

/* Runs `skinkit ARGS` from the source dir; stdout goes to g_out; returns the exit status (or -1). */
static int run(const char* args) {
  char err[300];
  snprintf(err, sizeof err, "%s/stderr.txt", g_tmp);
  return skt_run_cli(SK_SOURCE_DIR, SK_CLI_PATH, args, err, g_out, sizeof g_out);
}

static const char* err_text(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/stderr.txt", g_tmp);
  return skt_read_text(path);
}

static const char* tmp_path(const char* name) {
  static char path[4][512];
  static int k = 0;
  k = (k + 1) % 4;
  snprintf(path[k], sizeof path[k], "%s/%s", g_tmp, name);
  return path[k];
}

static long file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void setup(void) {
  snprintf(g_tmp, sizeof g_tmp, "/tmp/skinkit-cli-bind-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(g_tmp));
}

static void teardown(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_tmp);
}

/* Reads the written file back: one mesh of 1122 vertices, every vertex weighted, sums 1, <= max_inf. */
static void check_output(const char* path, uint32_t max_inf) {
  sk_scene* s = NULL;
  sk_error err;
  ck_assert_msg(sk_scene_load(path, NULL, &s, &err) == SK_OK, "%s", err.message);
  ck_assert_uint_eq(sk_scene_mesh_count(s), 1);
  sk_skin* skin = sk_scene_mesh_skin(s, 0);
  ck_assert_ptr_nonnull(skin);
  ck_assert_uint_eq(sk_skin_vertex_count(skin), 1122);
  sk_skin_report rep;
  memset(&rep, 0, sizeof rep);
  rep.size = sizeof rep;
  sk_validate_options o = {.size = sizeof o, .max_influences = max_inf, .tolerance = 1e-3f};
  ck_assert_int_eq(sk_skin_validate(skin, &o, &rep, NULL, &err), SK_OK);
  ck_assert_uint_eq(rep.unweighted, 0);
  ck_assert_uint_eq(rep.off_tolerance, 0);
  ck_assert_uint_eq(rep.findings, 0);
  ck_assert_uint_le(rep.max_influences, max_inf);
  sk_scene_destroy(s);
}

START_TEST(every_method_writes_valid_weights) {
  static const char* methods[] = {"robust", "heat", "nearest", "capsule", "delaunay"};
  for (int m = 0; m < 5; ++m) {
    char args[2048], name[64];
    snprintf(name, sizeof name, "out_%s.glb", methods[m]);
    snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method %s", tmp_path(name), methods[m]);
    ck_assert_msg(run(args) == 0, "%s: %s", methods[m], err_text());
    ck_assert(strstr(g_out, "mesh \"cylinder\": 1122 vertices, 2112 triangles") != NULL);
    ck_assert(strstr(g_out, "wrote ") != NULL);
    ck_assert(strstr(g_out, " ms") != NULL);
    check_output(tmp_path(name), 4);
    /* the other tools accept the result */
    snprintf(args, sizeof args, "validate %s", tmp_path(name));
    ck_assert_int_eq(run(args), 0);
  }
}
END_TEST

START_TEST(json_and_text_reports) {
  char args[2048];
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method capsule --json", tmp_path("a.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert(strstr(g_out, "\"method\":\"capsule\"") != NULL);
  ck_assert(strstr(g_out, "\"method_used\":\"capsule\"") != NULL);
  ck_assert(strstr(g_out, "\"vertex_count\":1122") != NULL);
  ck_assert(strstr(g_out, "\"bound_vertex_count\":1122") != NULL);
  ck_assert(strstr(g_out, "\"joint_vertex_counts\":{\"bone0\":") != NULL);
  ck_assert(strstr(g_out, ",\"bone1\":") != NULL);
  ck_assert(strstr(g_out, "\"seconds\":") != NULL);
  ck_assert(strstr(g_out, "wrote") == NULL); /* stdout is JSON only */
  /* both bones get a fair share of the vertices (each half plus the blend) */
  const char* b0 = strstr(g_out, "\"bone0\":");
  const char* b1 = strstr(g_out, "\"bone1\":");
  ck_assert(b0 && b1);
  long c0 = strtol(b0 + 8, NULL, 10), c1 = strtol(b1 + 8, NULL, 10);
  ck_assert_int_gt(c0, 500);
  ck_assert_int_gt(c1, 500);
  ck_assert_int_lt(c0, 1122);
  /* --report: one line per joint with its vertex count */
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method delaunay --report",
           tmp_path("b.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert(strstr(g_out, ", delaunay, ") != NULL);
  ck_assert(strstr(g_out, "  bone0 ") != NULL);
  ck_assert(strstr(g_out, "  bone1 ") != NULL);
  ck_assert(strstr(g_out, "load ") != NULL && strstr(g_out, "total ") != NULL);
}
END_TEST

/* A mesh the armature lies beside while it fits the rest (a ground plane under the cylinder) is bound by proximity:
 * a warning names it unless --meshes chose the meshes (an auditor's ground plane took the legs' weights silently). */
START_TEST(mesh_beside_the_armature_is_named) {
  sk_scene* s = NULL;
  sk_error err;
  char path[512];
  snprintf(path, sizeof path, "%s/tests/data/cylinder_rig.glb", SK_SOURCE_DIR);
  ck_assert_msg(sk_scene_load(path, NULL, &s, &err) == SK_OK, "%s", err.message);
  const size_t nv = sk_scene_mesh_vertex_count(s, 0);
  float* pos = malloc(3 * nv * sizeof *pos);
  ck_assert_uint_eq(sk_scene_mesh_positions(s, 0, pos, 3 * nv), 3 * nv);
  float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
  for (size_t i = 0; i < 3 * nv; ++i) {
    lo[i % 3] = pos[i] < lo[i % 3] ? pos[i] : lo[i % 3];
    hi[i % 3] = pos[i] > hi[i % 3] ? pos[i] : hi[i % 3];
  }
  free(pos);
  int a = 0; /* the long axis: the bones run along it */
  for (int k = 1; k < 3; ++k) a = hi[k] - lo[k] > hi[a] - lo[a] ? k : a;
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  const float len = hi[a] - lo[a], at = lo[a] - 0.05f * len;
  float plane[12];
  const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (int v = 0; v < 4; ++v) {
    plane[3 * v + a] = at;
    plane[3 * v + b] = 0.5f * (lo[b] + hi[b]) + 2.0f * len * corner[v][0];
    plane[3 * v + c] = 0.5f * (lo[c] + hi[c]) + 2.0f * len * corner[v][1];
  }
  const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
  sk_mesh_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.name = "ground";
  d.vertex_count = 4;
  d.positions = plane;
  d.indices = tri;
  d.index_count = 6;
  ck_assert_msg(sk_scene_add_mesh(s, &d, NULL, &err) == SK_OK, "%s", err.message);
  ck_assert_msg(sk_scene_save(s, tmp_path("ground.glb"), NULL, &err) == SK_OK, "%s", err.message);
  sk_scene_destroy(s);
  char args[1200];
  snprintf(args, sizeof args, "bind %s %s", tmp_path("ground.glb"), tmp_path("g1.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  /* the warning names IN, whose mesh it is about (session 74) */
  char line[1400];
  snprintf(line, sizeof line, "skinkit bind: warning: %s: mesh \"ground\": the armature lies beside it",
           tmp_path("ground.glb"));
  ck_assert_msg(strstr(err_text(), line) != NULL, "%.400s", err_text());
  ck_assert_msg(strstr(err_text(), "\"cylinder\"") == NULL, "%s", err_text());
  snprintf(args, sizeof args, "bind %s %s --meshes ground", tmp_path("ground.glb"), tmp_path("g2.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(err_text(), "lies beside") == NULL, "%s", err_text());
}
END_TEST

/* Two joints that lie along one another and both take weight (a rig's mechanism bone beside the forearm it drives,
 * which glTF cannot mark as not deforming) are named with a warning; --joints, which chooses the deform bones,
 * silences it (an auditor's MCH bone took 112 - 304 vertices of each forearm without a word). */
START_TEST(joints_along_one_another_are_named) {
  const char* names[3] = {"upper", "fore", "mch"};
  const int32_t parents[3] = {SK_NO_PARENT, 0, 0};
  float rest[48] = {0};
  for (int j = 0; j < 3; ++j) rest[16 * j] = rest[16 * j + 5] = rest[16 * j + 10] = rest[16 * j + 15] = 1.0f;
  rest[16 + 12] = rest[32 + 12] = 1.0f; /* fore and mch at x = 1, both leaves along +x */
  sk_skeleton_desc sd = {sizeof sd, 3, names, parents, rest, NULL, NULL, NULL};
  sk_skeleton* skel = NULL;
  sk_scene* s = NULL;
  sk_error err;
  ck_assert_msg(sk_skeleton_create(&sd, &skel, &err) == SK_OK, "%s", err.message);
  ck_assert_msg(sk_scene_create(skel, &s, &err) == SK_OK, "%s", err.message);
  sk_cylinder_desc cd = {sizeof cd, 16, 24, 2, 0.25f, 2.0f, 0.25f, 0};
  size_t nv = 0, nt = 0;
  ck_assert_int_eq(sk_mesh_cylinder(&cd, &nv, &nt, NULL, NULL, NULL, NULL, &err), SK_OK);
  float* pos = malloc(3 * nv * sizeof *pos);
  uint32_t* tri = malloc(3 * nt * sizeof *tri);
  sk_skin* skin = NULL;
  ck_assert_int_eq(sk_skin_create(nv, 2, &skin, &err), SK_OK);
  ck_assert_int_eq(sk_mesh_cylinder(&cd, NULL, NULL, pos, NULL, tri, skin, &err), SK_OK);
  sk_skin_destroy(skin);
  sk_mesh_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.name = "arm";
  d.vertex_count = nv;
  d.positions = pos;
  d.indices = tri;
  d.index_count = 3 * nt;
  ck_assert_msg(sk_scene_add_mesh(s, &d, NULL, &err) == SK_OK, "%s", err.message);
  ck_assert_msg(sk_scene_save(s, tmp_path("along.glb"), NULL, &err) == SK_OK, "%s", err.message);
  sk_scene_destroy(s);
  sk_skeleton_destroy(skel);
  free(pos), free(tri);
  char args[1200];
  snprintf(args, sizeof args, "bind %s %s --all-joints", tmp_path("along.glb"), tmp_path("a1.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(err_text(), ": joints \"fore\" and \"mch\" lie along one another") != NULL, "%s", err_text());
  snprintf(args, sizeof args, "bind %s %s --joints upper,fore", tmp_path("along.glb"), tmp_path("a2.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(err_text(), "lie along") == NULL, "%s", err_text());
}
END_TEST

START_TEST(joints_and_max_influences) {
  char args[2048];
  /* only bone1 deforms: every vertex is bone1's */
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method nearest --joints bone1 --json",
           tmp_path("j.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert(strstr(g_out, "\"bone0\":0,\"bone1\":1122") != NULL);
  /* one influence per vertex */
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method capsule --max-influences 1",
           tmp_path("k.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  check_output(tmp_path("k.glb"), 1);
  /* the drifted sample (sums 0.96) comes out with exact sums: its weights are ignored */
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig_drift.glb %s --method delaunay", tmp_path("d.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  check_output(tmp_path("d.glb"), 4);
  /* bad options */
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --joints bone7", tmp_path("e.glb"));
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "bone7") != NULL);
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --max-influences 0", tmp_path("e.glb"));
  ck_assert_int_eq(run(args), 2);
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --max-influences 4x", tmp_path("e.glb"));
  ck_assert_int_eq(run(args), 2);
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method magic", tmp_path("e.glb"));
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "unknown method") != NULL);
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --bogus", tmp_path("e.glb"));
  ck_assert_int_eq(run(args), 2);
  ck_assert_int_eq(run("bind tests/data/cylinder_rig.glb"), 2);
  ck_assert_int_eq(file_size(tmp_path("e.glb")), -1); /* nothing written by a failed run */
}
END_TEST

START_TEST(never_overwrites_input_and_needs_force) {
  char args[2048];
  /* OUT is IN (also through another spelling of the path): refused, even with --force */
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cp '%s/tests/data/cylinder_rig.glb' '%s'", SK_SOURCE_DIR, tmp_path("in.glb"));
  ck_assert_int_eq(system(cmd), 0);
  long in_size = file_size(tmp_path("in.glb"));
  ck_assert_int_gt(in_size, 0);
  snprintf(args, sizeof args, "bind %s %s/./in.glb --force", tmp_path("in.glb"), g_tmp);
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "refusing to overwrite the input") != NULL);
  ck_assert_int_eq(file_size(tmp_path("in.glb")), in_size);
  /* an existing OUT: exit 1 and untouched without --force, replaced with it */
  FILE* f = fopen(tmp_path("out.glb"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("old", f);
  fclose(f);
  snprintf(args, sizeof args, "bind %s %s --method nearest", tmp_path("in.glb"), tmp_path("out.glb"));
  ck_assert_int_eq(run(args), 1);
  ck_assert(strstr(err_text(), "--force") != NULL);
  ck_assert_int_eq(file_size(tmp_path("out.glb")), 3);
  snprintf(args, sizeof args, "bind %s %s --method nearest --force", tmp_path("in.glb"), tmp_path("out.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  check_output(tmp_path("out.glb"), 4);
  ck_assert_int_eq(file_size(tmp_path("in.glb")), in_size);
}
END_TEST

START_TEST(bad_inputs) {
  char args[2048];
  /* a file without bones: no skeleton to bind to */
  FILE* f = fopen(tmp_path("tri.obj"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", f);
  fclose(f);
  snprintf(args, sizeof args, "bind %s %s", tmp_path("tri.obj"), tmp_path("o.glb"));
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "no skeleton") != NULL);
  /* missing and unreadable inputs */
  snprintf(args, sizeof args, "bind %s %s", tmp_path("missing.glb"), tmp_path("o.glb"));
  ck_assert_int_eq(run(args), 2);
  ck_assert(strstr(err_text(), "missing.glb") != NULL);
  f = fopen(tmp_path("notes.glb"), "w");
  ck_assert_ptr_nonnull(f);
  fputs("this is not a model\n", f);
  fclose(f);
  snprintf(args, sizeof args, "bind %s %s", tmp_path("notes.glb"), tmp_path("o.glb"));
  ck_assert_int_eq(run(args), 2);
  ck_assert_int_eq(file_size(tmp_path("o.glb")), -1);
  /* help lists the command and its options */
  ck_assert_int_eq(run("bind --help"), 0);
  ck_assert(strstr(g_out, "--method") && strstr(g_out, "delaunay") && strstr(g_out, "--joints"));
  ck_assert_int_eq(run("--help"), 0);
  ck_assert(strstr(g_out, "bind ") != NULL);
}
END_TEST

/* A glTF whose skin no mesh uses (an armature beside unskinned meshes): Armature -> hips -> spine -> Gun (a node
 * instancing the box mesh) -> muzzle; the skin lists hips, spine and muzzle; the box mesh (2 tall, 0.5 wide, along
 * +Y) also at a root node "Body". No skin lists a joint for a mesh, so the deform joints follow the hierarchy. */
static const char* write_noskin_gltf(void) {
  float pos[24];
  for (int v = 0; v < 8; ++v) {
    pos[3 * v] = (v & 1) ? 0.25f : -0.25f;
    pos[3 * v + 1] = (v & 2) ? 2.0f : 0.0f;
    pos[3 * v + 2] = (v & 4) ? 0.25f : -0.25f;
  }
  static const uint32_t idx[36] = {0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
                                   2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3};
  uint8_t bin[96 + 144];
  memcpy(bin, pos, 96);
  memcpy(bin + 96, idx, 144);
  char* b64 = skt_base64(bin, sizeof bin);
  const char* path = tmp_path("noskin.gltf");
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,5]}],"
          "\"nodes\":[{\"name\":\"Armature\",\"children\":[1]},"
          "{\"name\":\"hips\",\"translation\":[0,0.5,0],\"children\":[2]},"
          "{\"name\":\"spine\",\"translation\":[0,0.5,0],\"children\":[3]},"
          "{\"name\":\"Gun\",\"translation\":[0,0.4,0],\"scale\":[0.2,0.2,0.2],\"mesh\":0,\"children\":[4]},"
          "{\"name\":\"muzzle\",\"translation\":[0,1,0]},{\"name\":\"Body\",\"mesh\":0}],"
          "\"skins\":[{\"joints\":[1,2,4]}],"
          "\"meshes\":[{\"name\":\"box\",\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":8,\"type\":\"VEC3\","
          "\"min\":[-0.25,0,-0.25],\"max\":[0.25,2,0.25]},"
          "{\"bufferView\":1,\"componentType\":5125,\"count\":36,\"type\":\"SCALAR\"}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":96},{\"buffer\":0,\"byteOffset\":96,\"byteLength\":144}],"
          "\"buffers\":[{\"byteLength\":240,\"uri\":\"data:application/octet-stream;base64,%s\"}]}\n",
          b64);
  fclose(f);
  free(b64);
  return path;
}

/* Weight on joint `name` in a written file, summed over every mesh and vertex. */
static double weight_on(const char* path, const char* name) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &s, NULL), SK_OK);
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t j = 0;
  double sum = 0.0;
  ck_assert_int_eq(sk_skeleton_find_joint(sk, name, &j), SK_OK);
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
    sk_skin* skin = sk_scene_mesh_skin(s, m);
    for (size_t v = 0; skin && v < sk_scene_mesh_vertex_count(s, m); ++v) {
      uint32_t jt[16];
      float w[16];
      size_t n = sk_skin_get_vertex(skin, v, jt, w, 16);
      for (size_t k = 0; k < n && k < 16; ++k) sum += jt[k] == j ? w[k] : 0.0f;
    }
  }
  sk_scene_destroy(s);
  return sum;
}

/* No skin lists a joint: info and bind take the bone hierarchy below the armature object, without the mesh node. */
START_TEST(deform_joints_without_a_skin) {
  char in[512], args[2048];
  snprintf(in, sizeof in, "%s", write_noskin_gltf()); /* tmp_path's buffers are reused */
  snprintf(args, sizeof args, "info %s --json", in);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "\"deform_joint_count\":3,\"deform_rule\":\"hierarchy\"") != NULL, "%s", g_out);
  ck_assert(strstr(g_out, "{\"name\":\"Armature\",\"parent\":-1,\"deform\":false") != NULL);
  ck_assert(strstr(g_out, "{\"name\":\"hips\",\"parent\":0,\"deform\":true") != NULL);
  ck_assert(strstr(g_out, "{\"name\":\"spine\",\"parent\":1,\"deform\":true") != NULL);
  ck_assert(strstr(g_out, "{\"name\":\"Gun\",\"parent\":2,\"deform\":false") != NULL);
  ck_assert(strstr(g_out, "{\"name\":\"muzzle\",\"parent\":3,\"deform\":true") != NULL);
  snprintf(args, sizeof args, "info %s", in);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "deform joints: 3 of 5 (no skin: the bone hierarchy)") != NULL, "%s", g_out);
  snprintf(args, sizeof args, "bind %s %s --method nearest", in, tmp_path("n.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "deform joints: 3 of 5 skeleton nodes (no skin") != NULL, "%s", g_out);
  ck_assert_double_eq(weight_on(tmp_path("n.glb"), "Armature"), 0.0);
  ck_assert_double_eq(weight_on(tmp_path("n.glb"), "Gun"), 0.0);
  ck_assert_double_gt(weight_on(tmp_path("n.glb"), "hips"), 1.0);
  snprintf(args, sizeof args, "bind %s %s --method heat --json", in, tmp_path("h.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert(strstr(g_out, "\"deform_joint_count\":3,\"deform_rule\":\"hierarchy\"") != NULL);
  ck_assert(strstr(g_out, "\"Armature\":0,") != NULL && strstr(g_out, "\"Gun\":0,") != NULL);
  /* --all-joints lets the armature object and the mesh node take weight again (the control) */
  snprintf(args, sizeof args, "bind %s %s --method nearest --all-joints", in, tmp_path("a.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert(strstr(g_out, "deform joints:") == NULL);
  ck_assert_double_gt(weight_on(tmp_path("a.glb"), "Armature") + weight_on(tmp_path("a.glb"), "Gun"), 0.0);
}
END_TEST

/* info counts the bone tails a file gives (bind's segments take them first): Blender's Collada tips and connected
 * bones (8 of blender_tips.dae's 10 joints), the FBX's _end leaf bones (4), none in a glTF. */
START_TEST(info_counts_the_files_bone_tails) {
  static const struct {
    const char* file;
    const char* json;
  } cases[] = {{"tests/data/blender_tips.dae", "\"stored_tail_count\":8,"},
               {"tests/data/blender_tips.fbx", "\"stored_tail_count\":4,"},
               {"tests/data/cylinder_rig.glb", "\"stored_tail_count\":0,"}};
  char args[1024];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    snprintf(args, sizeof args, "info %s --json", cases[i].file);
    ck_assert_msg(run(args) == 0, "%s", err_text());
    ck_assert_msg(strstr(g_out, cases[i].json) != NULL, "%s: %s", cases[i].file, g_out);
  }
  ck_assert_msg(run("info tests/data/blender_tips.dae") == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "bone tails: 8 of 10 given by the file") != NULL, "%s", g_out);
}
END_TEST

/* bind --json per joint: vertex_count, weight_share (summing to 1), method, fallback_count; the top-level list over
 * all meshes; --report prints shares. A skinned input: the deform joints are its skin's. */
START_TEST(per_joint_report) {
  char args[2048];
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method heat --json", tmp_path("p.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert(strstr(g_out, "\"deform_joint_count\":2,\"deform_rule\":\"skins\"") != NULL);
  const char* mesh_joints = strstr(g_out, "\"joints\":[{\"name\":\"bone0\",\"vertex_count\":");
  ck_assert_ptr_nonnull(mesh_joints);
  double share = 0.0;
  int listed = 0;
  for (const char* p = mesh_joints; (p = strstr(p, "\"weight_share\":")) && listed < 2; ++listed) {
    p += strlen("\"weight_share\":");
    double x = strtod(p, NULL);
    ck_assert_double_gt(x, 0.2); /* each bone has about half the tube */
    share += x;
  }
  ck_assert_int_eq(listed, 2);
  ck_assert_double_eq_tol(share, 1.0, 1e-5);
  ck_assert(strstr(mesh_joints, "\"method\":\"heat\",\"fallback_count\":0}") != NULL);
  ck_assert(strstr(g_out, "],\"joints\":[{\"name\":\"bone0\"") != NULL); /* the top-level list */
  snprintf(args, sizeof args, "bind tests/data/rigid_parts.fbx %s --method nearest --report", tmp_path("r.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert(strstr(g_out, "deform joints: 3 of 5 skeleton nodes (the joints IN's skins list") != NULL);
  ck_assert(strstr(g_out, " vertices ") != NULL && strstr(g_out, " %") != NULL);
  ck_assert(strstr(g_out, "  Rig ") == NULL && strstr(g_out, "  RootNode ") == NULL);
  ck_assert_int_eq(run("info tests/data/rigid_parts.fbx --json"), 0);
  ck_assert(strstr(g_out, "\"deform_joint_count\":3,\"deform_rule\":\"skins\"") != NULL);
}
END_TEST

/* The largest difference between the weights of two vertices of different meshes at one position (the seam copies
 * of an object split by material), over the scene at path; their count in *pairs. */
static double seam_gap(const char* path, size_t* pairs) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &s, NULL), SK_OK);
  uint32_t nm = sk_scene_mesh_count(s), nj = sk_skeleton_joint_count(sk_scene_skeleton(s));
  float* pos[8] = {0};
  ck_assert_uint_le(nm, 8);
  for (uint32_t m = 0; m < nm; ++m) {
    size_t n = sk_scene_mesh_positions(s, m, NULL, 0);
    pos[m] = malloc(n * sizeof(float) + 4);
    sk_scene_mesh_positions(s, m, pos[m], n);
  }
  double gap = 0.0;
  *pairs = 0;
  float* wa = calloc(nj, sizeof *wa);
  float* wb = calloc(nj, sizeof *wb);
  for (uint32_t a = 0; a < nm; ++a)
    for (uint32_t b = a + 1; b < nm; ++b)
      for (size_t u = 0; u < sk_scene_mesh_vertex_count(s, a); ++u)
        for (size_t v = 0; v < sk_scene_mesh_vertex_count(s, b); ++v) {
          if (memcmp(pos[a] + 3 * u, pos[b] + 3 * v, 12)) continue;
          uint32_t jt[16];
          float w[16];
          memset(wa, 0, nj * sizeof *wa), memset(wb, 0, nj * sizeof *wb);
          size_t n = sk_skin_get_vertex(sk_scene_mesh_skin(s, a), u, jt, w, 16);
          for (size_t k = 0; k < n; ++k) wa[jt[k]] += w[k];
          n = sk_skin_get_vertex(sk_scene_mesh_skin(s, b), v, jt, w, 16);
          for (size_t k = 0; k < n; ++k) wb[jt[k]] += w[k];
          for (uint32_t j = 0; j < nj; ++j) gap = fabs((double)wa[j] - wb[j]) > gap ? fabs((double)wa[j] - wb[j]) : gap;
          ++*pairs;
        }
  for (uint32_t m = 0; m < nm; ++m) free(pos[m]);
  free(wa), free(wb);
  sk_scene_destroy(s);
  return gap;
}

/* An object split by material (tests/data/two_material_leg.*: Blender's glTF exporter writes two primitives with
 * their own vertices, its FBX two meshes to Assimp) is bound as one surface: the seam ring's copies get the same
 * weights in both meshes (bound apart they differed by up to 0.3 in a denser version of this leg), and the report
 * says so. A file torn at the seam (one mesh re-bound, the other not) is mended by `weights --smooth`, which smooths
 * the meshes as one surface with the copies welded. */
START_TEST(one_surface_across_materials) {
  static const char* const ins[] = {"tests/data/two_material_leg.glb", "tests/data/two_material_leg.fbx"};
  char args[1024];
  size_t pairs = 0;
  for (int i = 0; i < 2; ++i) {
    snprintf(args, sizeof args, "bind %s %s --json", ins[i], tmp_path(i ? "leg_fbx.glb" : "leg_glb.glb"));
    ck_assert_int_eq(run(args), 0);
    ck_assert_msg(strstr(g_out, "\"surface\":0") != NULL && !strstr(g_out, "\"surface\":1"), "%s", g_out);
    double gap = seam_gap(tmp_path(i ? "leg_fbx.glb" : "leg_glb.glb"), &pairs);
    ck_assert_uint_ge(pairs, 12);
    ck_assert_msg(gap == 0.0, "%s: seam copies differ by %g", ins[i], gap);
  }
  snprintf(args, sizeof args, "bind tests/data/two_material_leg.glb %s", tmp_path("text.glb"));
  ck_assert_int_eq(run(args), 0);
  ck_assert_ptr_nonnull(strstr(g_out, "bound as one surface with 1 other mesh"));
  /* torn: only the first mesh re-bound (capsules), the other keeps Blender's weights */
  snprintf(args, sizeof args, "bind tests/data/two_material_leg.glb %s --method capsule --meshes Cylinder-0",
           tmp_path("torn.glb"));
  ck_assert_int_eq(run(args), 0);
  ck_assert_double_gt(seam_gap(tmp_path("torn.glb"), &pairs), 0.05);
  snprintf(args, sizeof args, "weights %s %s --smooth 2", tmp_path("torn.glb"), tmp_path("mended.glb"));
  ck_assert_int_eq(run(args), 0);
  ck_assert_ptr_nonnull(strstr(g_out, "with mesh 0, as one surface"));
  ck_assert_double_eq(seam_gap(tmp_path("mended.glb"), &pairs), 0.0);
}
END_TEST

/* A mesh without a skin gets one in place (session 25): the written file keeps the scene's clips, materials and
 * object names. Before, `bind` rebuilt the scene from meshes and skeleton when some mesh had no skin: clips,
 * materials ("Steel" of rigid_parts' gauntlet) and object names were dropped. Input: tests/data/rigid_parts.fbx
 * (the cone "Prop" has no skin) given a clip here, written as .fbx and as .glb (by the scene writer: the clip is
 * not in a source glTF document an edit would start from). */
static void add_clip(skio_scene* s) {
  skio_anim* a = calloc(1, sizeof *a);
  ck_assert_ptr_nonnull(a);
  a->name = strdup("Wave");
  a->duration = 1.0;
  a->channel_count = 1;
  a->channels = calloc(1, sizeof *a->channels);
  skio_channel* ch = a->channels;
  ch->joint = s->skeleton->joint_count - 1;
  ch->rot_count = 2;
  ch->rot_time = malloc(2 * sizeof(double));
  ch->rot = malloc(8 * sizeof(float));
  const float r[8] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f};
  ch->rot_time[0] = 0.0, ch->rot_time[1] = 1.0;
  memcpy(ch->rot, r, sizeof r);
  s->anims = a;
  s->anim_count = 1;
}

START_TEST(unskinned_meshes_bound_in_place) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(SK_SOURCE_DIR "/tests/data/rigid_parts.fbx", NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  add_clip(s);
  static const char* const exts[] = {"fbx", "glb"};
  for (int e = 0; e < 2; ++e) {
    char in[64], out[64], args[2048];
    snprintf(in, sizeof in, "in.%s", exts[e]);
    snprintf(out, sizeof out, "out.%s", exts[e]);
    skio_export_options o = {0};
    ck_assert_msg(skio_scene_export(s, tmp_path(in), &o, &err) == SKC_OK, "%s", err.message);
    snprintf(args, sizeof args, "bind %s %s", tmp_path(in), tmp_path(out));
    ck_assert_msg(run(args) == 0, "%s: %s", exts[e], err_text());
    ck_assert_ptr_null(strstr(err_text(), "rebuilt"));
    skio_scene* b = NULL;
    ck_assert_msg(skio_scene_import(tmp_path(out), NULL, &b, &err) == SKC_OK, "%s", err.message);
    ck_assert_uint_eq(b->mesh_count, 3);
    bool prop = false, steel = false;
    for (uint32_t m = 0; m < b->mesh_count; ++m) {
      ck_assert_msg(b->meshes[m].skin != NULL, "%s: mesh %s unskinned", exts[e], b->meshes[m].name);
      prop |= b->meshes[m].node_name && !strcmp(b->meshes[m].node_name, "Prop");
    }
    for (uint32_t k = 0; k < b->material_count; ++k) steel |= b->materials[k].name && !strcmp(b->materials[k].name, "Steel");
    ck_assert_msg(prop, "%s: the object Prop lost its name", exts[e]);
    ck_assert_msg(steel, "%s: material Steel lost", exts[e]);
    ck_assert_msg(b->anim_count == 1 && !strcmp(b->anims[0].name, "Wave"), "%s: %u clips", exts[e], b->anim_count);
    skio_scene_destroy(b);
  }
  skio_scene_destroy(s);
}
END_TEST

/* A glTF whose mesh node has no skin (Blender's export of an armature beside an unweighted mesh: bare_rig.glb, the
 * armature moved, turned and scaled 1.5) is bound as an edit of the document (session 25): the node gets a new skin
 * (every joint node, inverse binds = the scene's times the node's placement), so nothing else of the file changes
 * and the rest pose puts every vertex where the source had it. Before, such a file went through the scene writer
 * (samplers, cameras, morph targets and extensions dropped). */
/* Vertex v of skinned mesh m at rest: sum of w * rest_world(j) * IB(j) * p. */
static void rest_point(const skc_skeleton* sk, const skio_mesh* m, size_t v, float out[3]) {
  out[0] = out[1] = out[2] = 0.0f;
  for (uint32_t e = m->skin->offsets[v]; e < m->skin->offsets[v + 1]; ++e) {
    const uint32_t j = m->skin->joints[e];
    float pal[16], t[3];
    skc_mat4_mul(sk->rest_world + (size_t)j * 16, m->inverse_bind + (size_t)j * 16, pal);
    skc_mat4_transform_point(pal, m->positions + v * 3, t);
    for (int k = 0; k < 3; ++k) out[k] += m->skin->weights[e] * t[k];
  }
}

/* bare_rig (an armature beside a mesh with no weights and a crate) bound: both meshes get a skin as an edit of the
 * source, glTF (a skin for a node without one) and FBX (Blender's empty clusters filled, a Skin for the crate). */
static void unskinned_node_gets_a_skin_by_edit(const char* src_rel, const char* out_name) {
  char args[2048], src_path[512];
  snprintf(args, sizeof args, "bind %s %s", src_rel, tmp_path(out_name));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(err_text(), "warning") == NULL, "%s", err_text()); /* no fallback to the scene writer */
  skio_scene *src = NULL, *out = NULL;
  skc_err err = {0};
  snprintf(src_path, sizeof src_path, "%s/%s", SK_SOURCE_DIR, src_rel);
  ck_assert_int_eq(skio_scene_import(src_path, NULL, &src, &err), SKC_OK);
  ck_assert_msg(skio_scene_import(tmp_path(out_name), NULL, &out, &err) == SKC_OK, "%s", err.message);
  ck_assert_uint_eq(out->mesh_count, src->mesh_count);
  const skc_skeleton* sk = out->skeleton;
  for (uint32_t m = 0; m < out->mesh_count; ++m) {
    const skio_mesh *a = &src->meshes[m], *b = &out->meshes[m];
    ck_assert_ptr_nonnull(b->skin);
    ck_assert_uint_eq(a->vertex_count, b->vertex_count);
    /* where the source has the mesh at rest: its positions as placed (no skin in the file), or moved by its bind
     * (X = rest_world(j) * IB(j) of a joint its file skin binds: FBX keeps a skinned mesh in its own space) */
    float x[16];
    skc_mat4_identity(x);
    for (uint32_t j = 0; a->skin && !a->placed_set && j < src->skeleton->joint_count; ++j)
      if (a->bound[j]) {
        skc_mat4_mul(src->skeleton->rest_world + (size_t)j * 16, a->inverse_bind + (size_t)j * 16, x);
        break;
      }
    double worst = 0.0, size = 0.0;
    for (size_t v = 0; v < b->vertex_count; ++v) {
      float got[3], want[3]; /* a rigid attachment (placed, one-joint skin) at rest as the reader bound it */
      rest_point(sk, b, v, got);
      if (a->skin && a->placed_set)
        rest_point(src->skeleton, a, v, want);
      else
        skc_mat4_transform_point(x, a->positions + v * 3, want);
      for (int k = 0; k < 3; ++k) worst = fmax(worst, fabs(got[k] - want[k])), size = fmax(size, fabs(want[k]));
    }
    ck_assert_msg(worst < 1e-5 * (1.0 + size), "%s mesh %s: rest pose off by %g", src_rel, b->name, worst);
  }
  skio_scene_destroy(src);
  skio_scene_destroy(out);
}

START_TEST(unskinned_node_gets_a_skin_by_edit_gltf_and_fbx) {
  unskinned_node_gets_a_skin_by_edit("tests/unskinned/bare_rig.glb", "bare.glb");
  unskinned_node_gets_a_skin_by_edit("tests/unskinned/bare_rig.fbx", "bare.fbx");
  /* a prop with a geometric transform, pivots and a ZXY pre-rotation (make_maya_style_fbx.py): the new skin's mesh
   * matrix leaves the geometric transform out, as readers apply it on top (it was in, and the prop sat 0.21 units
   * off in Blender); the skinned body with its own geometric transform keeps its place too */
  unskinned_node_gets_a_skin_by_edit("tests/data/maya_style.fbx", "maya.fbx");
}
END_TEST

/* rigid_parts: "Gauntlet" (mesh "Cube") hangs from the bone "hand" with no skin: bind leaves it rigid unless
 * --meshes names it; the FBX is then still an edit of the source. */
START_TEST(rigid_attachments_stay_rigid) {
  static const char* const exts[] = {"glb", "fbx"};
  for (int e = 0; e < 2; ++e) {
    char args[2048], out_name[32];
    snprintf(out_name, sizeof out_name, "rigid.%s", exts[e]);
    snprintf(args, sizeof args, "bind tests/data/rigid_parts.%s %s", exts[e], tmp_path(out_name));
    ck_assert_msg(run(args) == 0, "%s", err_text());
    ck_assert_msg(strstr(g_out, "a rigid attachment of bone \"hand\", written as it was") != NULL, "%s", g_out);
    ck_assert_msg(strstr(err_text(), "written whole") == NULL, "%s", err_text());
    sk_scene* b = NULL;
    sk_error err;
    ck_assert_msg(sk_scene_load(tmp_path(out_name), NULL, &b, &err) == SK_OK, "%s", err.message);
    uint32_t rigid = 0;
    for (uint32_t m = 0; m < sk_scene_mesh_count(b); ++m) rigid += sk_scene_mesh_rigid_joint(b, m) >= 0;
    ck_assert_uint_eq(rigid, 1);
    sk_scene_destroy(b);
    snprintf(args, sizeof args, "bind tests/data/rigid_parts.%s %s --meshes Cube --force", exts[e], tmp_path(out_name));
    ck_assert_msg(run(args) == 0, "%s", err_text());
    ck_assert_msg(strstr(g_out, "mesh \"Cube\": 8 vertices") || strstr(g_out, "mesh \"Cube\": 24 vertices"), "%s", g_out);
  }
}
END_TEST

/* Joint node `node`'s inverse bind matrix in skin `skin` of d into out; false when the skin lists no such joint. */
static bool skin_ibm(skio_gltf_doc* d, int skin, uint32_t node, float out[16]) {
  const int joints = skio_json_get(d, skin, "joints");
  uint32_t acc = 0, n = 0;
  ck_assert(skio_json_u32(d, skio_json_get(d, skin, "inverseBindMatrices"), &acc));
  for (int k = 0; k < skio_json_len(d, joints); ++k) {
    if (!skio_json_u32(d, skio_json_at(d, joints, k), &n) || n != node) continue;
    float* all = malloc((size_t)skio_json_len(d, joints) * 16 * sizeof *all);
    skc_err err = {0};
    ck_assert_msg(skio_gltf_accessor_floats(d, acc, all, &err) == SKC_OK, "%.400s", err.message);
    memcpy(out, all + (size_t)k * 16, 16 * sizeof *out);
    free(all);
    return true;
  }
  return false;
}

/* The scene audit of session 73: a mesh parented to the armature object with an offset (rigid_parts.glb's cone
 * "Prop", 1.5 0.5 0 from "Rig"; a belt) bound by edit got a skin whose inverse binds carried its node transform, as
 * glTF allows; Blender's importer builds the armature's rest pose from the skins' inverse binds, so the .glb read back
 * with every bone (and the body with them) moved by the prop's offset at rest (1.25 units in the audit's scene). Now
 * the prop is written in the skin's bind space: its node loses its transform, its skin agrees with the body's on every
 * joint, and every mesh still rests where the source has it. */
START_TEST(new_skin_agrees_with_the_files_skins) {
  unskinned_node_gets_a_skin_by_edit("tests/data/rigid_parts.glb", "rigid_bound.glb");
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_doc_load(tmp_path("rigid_bound.glb"), &d, &err) == SKC_OK, "%.400s", err.message);
  int prop = -1, body = -1;
  for (uint32_t n = 0; n < d->node_count; ++n) {
    const int nt = skio_gltf_item(d, "nodes", n);
    if (skio_json_streq(d, skio_json_get(d, nt, "name"), "Prop")) prop = nt;
    if (skio_json_streq(d, skio_json_get(d, nt, "name"), "Body")) body = nt;
  }
  ck_assert(prop >= 0 && body >= 0);
  ck_assert_msg(skio_json_get(d, prop, "translation") < 0 && skio_json_get(d, prop, "matrix") < 0,
                "the bound prop's node kept its transform");
  uint32_t ps = 0, bs = 0;
  ck_assert(skio_json_u32(d, skio_json_get(d, prop, "skin"), &ps) &&
            skio_json_u32(d, skio_json_get(d, body, "skin"), &bs));
  const int pskin = skio_gltf_item(d, "skins", ps), bskin = skio_gltf_item(d, "skins", bs);
  uint32_t shared = 0;
  for (uint32_t n = 0; n < d->node_count; ++n) {
    float a[16], b[16];
    if (!skin_ibm(d, pskin, n, a) || !skin_ibm(d, bskin, n, b)) continue;
    for (int k = 0; k < 16; ++k)
      ck_assert_msg(fabsf(a[k] - b[k]) < 1e-5f, "node %u: IBM[%d] %g vs %g", n, k, a[k], b[k]);
    shared++;
  }
  ck_assert_uint_ge(shared, 3);
  skio_gltf_doc_destroy(d);
}
END_TEST

/* A mesh of another glTF scene than the character's (tests/data/two_scenes.glb, make_two_scenes.py: "crate" in scene
 * 1) is left as it is: given the skeleton's skin, its node would use joints of another scene (Khronos validator
 * NODE_SKIN_NO_SCENE, the audit of session 43). --meshes still binds it when asked. */
START_TEST(meshes_of_other_gltf_scenes_left) {
  char args[2048];
  snprintf(args, sizeof args, "bind tests/data/two_scenes.glb %s", tmp_path("scenes.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "mesh \"crate\": in glTF scene 1, not the character's, written as it was"), "%s", g_out);
  ck_assert_msg(strstr(g_out, "mesh \"cylinder\": 1122 vertices"), "%s", g_out);
  sk_scene* b = NULL;
  ck_assert_int_eq(sk_scene_load(tmp_path("scenes.glb"), NULL, &b, NULL), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_count(b), 2);
  ck_assert_int_eq(sk_scene_mesh_gltf_scene(b, 0), 0);
  ck_assert_int_eq(sk_scene_mesh_gltf_scene(b, 1), 1);
  ck_assert_ptr_null(sk_scene_mesh_skin(b, 1));
  ck_assert_int_eq(sk_scene_mesh_gltf_scene(b, 2), -1); /* out of range */
  sk_scene_destroy(b);
  snprintf(args, sizeof args, "bind tests/data/two_scenes.glb %s --meshes crate --force", tmp_path("scenes.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "mesh \"crate\": 1122 vertices"), "%s", g_out);
}
END_TEST

/* Weight of mesh `mesh` (by name) on joints whose name starts with prefix, over all its vertices; and its vertex count
 * whose weights do not sum to 1 within 1e-5 into *bad. */
static double mesh_weight_on(const char* path, const char* mesh, const char* prefix, size_t* bad) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &s, NULL), SK_OK);
  const sk_skeleton* sk = sk_scene_skeleton(s);
  double sum = 0.0;
  int found = 0;
  *bad = 0;
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
    sk_skin* skin = sk_scene_mesh_skin(s, m);
    if (strcmp(sk_scene_mesh_name(s, m), mesh) != 0 || !skin) continue;
    found = 1;
    for (size_t v = 0; v < sk_scene_mesh_vertex_count(s, m); ++v) {
      uint32_t jt[16];
      float w[16];
      size_t n = sk_skin_get_vertex(skin, v, jt, w, 16);
      double total = 0.0;
      for (size_t k = 0; k < n && k < 16; ++k) {
        total += w[k];
        if (!strncmp(sk_skeleton_joint_name(sk, jt[k]), prefix, strlen(prefix))) sum += w[k];
      }
      *bad += fabs(total - 1.0) > 1e-5;
    }
  }
  ck_assert_msg(found, "no skinned mesh %s in %s", mesh, path);
  sk_scene_destroy(s);
  return sum;
}

/* The skin of mesh m of path as CSR (malloc'd; *n vertices). */
static void mesh_csr(const char* path, uint32_t m, uint32_t** off, uint32_t** jt, float** w, size_t* n) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &s, NULL), SK_OK);
  sk_skin* skin = sk_scene_mesh_skin(s, m);
  ck_assert_ptr_nonnull(skin);
  *n = sk_scene_mesh_vertex_count(s, m);
  size_t e = sk_skin_influence_count(skin);
  *off = malloc((*n + 1) * sizeof **off), *jt = malloc((e + 1) * sizeof **jt), *w = malloc((e + 1) * sizeof **w);
  ck_assert_int_eq(sk_skin_get_csr(skin, *off, *jt, *w, NULL), SK_OK);
  sk_scene_destroy(s);
}

/* Two meshes whose weight accessors read the same bytes (tests/data/aliased_weights.glb, make_aliased_weights.py):
 * binding one (--meshes Twin) must not change the other, which the in-place overwrite of the shared bytes did (the
 * audit of session 44: every vertex of the mesh left alone changed). Two characters at one spot, each with its own
 * armature (two_rigs_one_spot.glb) are bound each to its own bones. */
START_TEST(shared_bytes_and_one_spot_characters) {
  char args[2048];
  snprintf(args, sizeof args, "bind tests/data/aliased_weights.glb %s --meshes Twin --method nearest",
           tmp_path("aliased.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  uint32_t *oa, *ja, *ob, *jb;
  float *wa, *wb;
  size_t na, nb;
  mesh_csr(skt_data("aliased_weights.glb"), 0, &oa, &ja, &wa, &na);
  mesh_csr(tmp_path("aliased.glb"), 0, &ob, &jb, &wb, &nb);
  ck_assert_uint_eq(na, nb);
  ck_assert_msg(!memcmp(oa, ob, (na + 1) * sizeof *oa) && !memcmp(ja, jb, oa[na] * sizeof *ja) &&
                    !memcmp(wa, wb, oa[na] * sizeof *wa),
                "the mesh left alone changed");
  free(oa), free(ja), free(wa), free(ob), free(jb), free(wb);
  size_t bad;
  snprintf(args, sizeof args, "bind tests/data/two_rigs_one_spot.glb %s --force", tmp_path("two_rigs.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(mesh_weight_on(tmp_path("two_rigs.glb"), "cylinder", "rig2_", &bad) == 0.0, "cylinder on rig2");
  const double on2 = mesh_weight_on(tmp_path("two_rigs.glb"), "cylinder2", "rig2_", &bad);
  ck_assert_msg(fabs(on2 - 1122.0) < 1e-2, "cylinder2 on rig2: %g of 1122", on2);
}
END_TEST

/* Two characters in one file (three.js's export: each skin binds in its own mesh space): each skinned mesh is bound
 * to its own armature's joints. Bound to all five, the arm took 52 % of its weight from the tail's bones (which its
 * bind space put inside it), and the glTF edit fell back to writing the file from the scene, dropping the camera and
 * the light. */
START_TEST(two_characters_keep_to_their_armatures) {
  const char* out = tmp_path("two.glb");
  char args[1024];
  snprintf(args, sizeof args, "bind tests/data/two_rigs_three.glb %s --report", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(
      strstr(g_out, "mesh \"Arm_skin\": 219 vertices") && strstr(g_out, "(the deform joints from \"Arm_bone0\""), "%s",
      g_out);
  ck_assert_msg(strstr(g_out, "(the deform joints from \"Tail_bone0\" down)"), "%s", g_out);
  ck_assert_msg(strstr(err_text(), "written from the scene") == NULL, "%s", err_text());
  size_t bad = 0;
  ck_assert_double_eq(mesh_weight_on(out, "Arm_skin", "Tail_", &bad), 0.0);
  ck_assert_uint_eq(bad, 0);
  ck_assert_double_gt(mesh_weight_on(out, "Arm_skin", "Arm_bone", &bad), 218.99);
  ck_assert_double_eq(mesh_weight_on(out, "Tail_skin", "Arm_", &bad), 0.0);
  ck_assert_uint_eq(bad, 0);
  static char glb[1 << 16]; /* an edit of IN: the light, the camera and the clip stay (the GLB's JSON chunk) */
  FILE* f = fopen(out, "rb");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(glb, 1, sizeof glb, f);
  fclose(f);
  ck_assert_msg(memmem(glb, n, "\"KHR_lights_punctual\"", 21) && memmem(glb, n, "\"cameras\"", 9) &&
                    memmem(glb, n, "\"wave\"", 6),
                "the light, camera or clip was dropped");
  snprintf(args, sizeof args, "bind tests/data/two_rigs_three.glb %s --json --force", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "\"armature_root\":\"Arm_bone0\"") && strstr(g_out, "\"armature_root\":null"), "%s",
                g_out);
  /* --joints is the user's choice: no armature limit */
  snprintf(args, sizeof args, "bind tests/data/two_rigs_three.glb %s --joints Arm_bone0,Arm_bone1,Arm_bone2 --force",
           out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_double_gt(mesh_weight_on(out, "Tail_skin", "Arm_", &bad), 1.0);
}
END_TEST

/* --meshes takes an object's name as well as its mesh's (Blender's FBX: object "Body" draws mesh "Cylinder"), and
 * the fit check judges a skinned body and an unskinned prop together in the rest pose: the body's vertices are in
 * its skin's bind space (the mesh's own, in FBX), the prop's where the file places it, and mixed as they were they
 * gave "bones 0.0147 x its size: a unit mismatch?" on a rig that fits. */
START_TEST(meshes_by_object_name_fit_in_the_rest_pose) {
  const char* out = tmp_path("maya.fbx");
  char args[1024];
  snprintf(args, sizeof args, "bind tests/data/maya_style.fbx %s --meshes Body,Prop", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "mesh \"Cylinder\": 864 vertices") && strstr(g_out, "mesh \"Cone\": 128 vertices") &&
                    strstr(g_out, "mesh \"Cube\": not bound"),
                "%s", g_out);
  ck_assert_msg(strstr(err_text(), "does not fit") == NULL, "%s", err_text());
  snprintf(args, sizeof args, "bind tests/data/maya_style.fbx %s --meshes Cylinder,Nope --force", out);
  ck_assert_int_eq(run(args), 2);
  ck_assert_msg(
      strstr(err_text(), "no mesh or object \"Nope\"") && strstr(err_text(), "\"Cylinder\" (object \"Body\")"), "%s",
      err_text());
  /* named by IN, as a read error is (session 74) */
  ck_assert_msg(strstr(err_text(), "skinkit bind: tests/data/maya_style.fbx: --meshes: no mesh or object \"Nope\""),
                "%.400s", err_text());
  ck_assert_int_eq(run("info tests/data/maya_style.fbx"), 0);
  ck_assert_msg(strstr(g_out, "mesh 2 \"Cylinder\" (object \"Body\"): 864 vertices"), "%s", g_out);
}
END_TEST

/* A self-contained .gltf (every buffer a data: URI, as three.js's exporter writes with binary: false;
 * tests/data/make_embedded_gltf.mjs) stays one file when bind adds weights: the new buffer is a data URI as well (it
 * was "<OUT>_skin.bin" beside it). And the skin bind gives the unskinned crate lists the deform joints, not the
 * armature object nodes "Arm" and "Tail": listed, they were deform joints of the output, and binding it again found
 * 7 instead of 5. */
START_TEST(self_contained_gltf_stays_one_file_and_binds_again_alike) {
  const char* out = tmp_path("embedded.gltf");
  char args[1024];
  snprintf(args, sizeof args, "bind tests/data/two_rigs_three_embedded.gltf %s", out);
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "deform joints: 5 of 7"), "%s", g_out);
  struct stat st;
  ck_assert_msg(stat(tmp_path("embedded_skin.bin"), &st) != 0, "a companion .bin was written");
  static char text[1 << 18];
  FILE* f = fopen(out, "rb");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  ck_assert_msg(strstr(text, ".bin\"") == NULL, "the output names a .bin file");
  snprintf(args, sizeof args, "bind %s %s", out, tmp_path("again.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  ck_assert_msg(strstr(g_out, "deform joints: 5 of 7"), "%s", g_out);
}
END_TEST

/* `futex` calls of a `skinkit bind` under strace (-1 when strace is not installed or the run fails). */
static long futex_calls(const char* args) {
  if (access("/usr/bin/strace", X_OK) != 0) return -1;
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd '%s' && strace -f -c -e trace=futex -o '%s' '%s' %s >/dev/null 2>&1", SK_SOURCE_DIR,
           tmp_path("strace.txt"), SK_CLI_PATH, args);
  if (system(cmd) != 0) return -1;
  const char* text = skt_read_text(tmp_path("strace.txt"));
  const char* line = strstr(text, " futex");
  if (!line) return 0;
  while (line > text && line[-1] != '\n') --line; /* "% time seconds usecs/call calls [errors] syscall" */
  double pct, secs;
  long usecs, calls;
  return sscanf(line, "%lf %lf %ld %ld", &pct, &secs, &usecs, &calls) == 4 ? calls : -1;
}

/* The executable's GOMP_parallel (plugin/cli_gomp.c) runs CHOLMOD's one-thread regions as plain calls: the dynamic
 * linker binds libcholmod's calls to it, the weights come out bit for bit as with every region sent to libgomp
 * (SKINKIT_OMP_INLINE=0), and the futex wake libgomp ends each region with is gone (38k-vertex cylinder, the
 * supernodal factorization: 17,488 futex calls -> about 1,400). */
START_TEST(one_thread_regions_run_inline_with_the_same_weights) {
  char args[1024];
  snprintf(args, sizeof args, "sample %s --segments 128 --rings 300 --bones 3", tmp_path("c38k.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  char debug_out[600];
  snprintf(debug_out, sizeof debug_out, "%s/ld", g_tmp);
  setenv("LD_DEBUG", "bindings", 1);
  setenv("LD_DEBUG_OUTPUT", debug_out, 1);
  snprintf(args, sizeof args, "bind %s %s", tmp_path("c38k.glb"), tmp_path("inline.glb"));
  int rc = run(args);
  unsetenv("LD_DEBUG");
  unsetenv("LD_DEBUG_OUTPUT");
  ck_assert_msg(rc == 0, "%s", err_text());
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "grep -q \"libcholmod.* to .*skinkit .*GOMP_parallel'\" '%s'.*", debug_out);
  ck_assert_msg(system(cmd) == 0, "libcholmod's GOMP_parallel is not bound to the executable's");
  setenv("SKINKIT_OMP_INLINE", "0", 1);
  snprintf(args, sizeof args, "bind %s %s", tmp_path("c38k.glb"), tmp_path("libgomp.glb"));
  rc = run(args);
  unsetenv("SKINKIT_OMP_INLINE");
  ck_assert_msg(rc == 0, "%s", err_text());
  snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", tmp_path("inline.glb"), tmp_path("libgomp.glb"));
  ck_assert_msg(system(cmd) == 0, "the weights differ with the regions run inline");
  snprintf(args, sizeof args, "bind %s %s --force", tmp_path("c38k.glb"), tmp_path("s.glb"));
  long inlined = futex_calls(args);
  setenv("SKINKIT_OMP_INLINE", "0", 1);
  long sent = futex_calls(args);
  unsetenv("SKINKIT_OMP_INLINE");
  if (inlined >= 0 && sent >= 0)
    ck_assert_msg(inlined * 4 < sent, "futex calls: %ld inline, %ld through libgomp", inlined, sent);
}
END_TEST

/* Calls of the given system calls of a `skinkit bind` under `strace -f -c` (counts[i] for names[i]); 0 when strace
 * is not installed or the run fails. */
static int syscall_counts(const char* env, const char* args, const char* const* names, long* counts, int n) {
  if (access("/usr/bin/strace", X_OK) != 0) return 0;
  char cmd[4096], list[256] = "";
  for (int i = 0; i < n; i++) {
    strcat(list, i ? "," : "");
    strcat(list, names[i]);
  }
  snprintf(cmd, sizeof cmd, "cd '%s' && env %s strace -f -c -e trace=%s -o '%s' '%s' %s >/dev/null 2>&1", SK_SOURCE_DIR,
           env, list, tmp_path("strace.txt"), SK_CLI_PATH, args);
  if (system(cmd) != 0) return 0;
  const char* text = skt_read_text(tmp_path("strace.txt"));
  for (int i = 0; i < n; i++) {
    counts[i] = 0;
    for (const char* line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
      double pct, secs;
      long usecs, calls, errors;
      char name[64];
      if (sscanf(line, "%lf %lf %ld %ld %ld %63s", &pct, &secs, &usecs, &calls, &errors, name) == 6 ||
          sscanf(line, "%lf %lf %ld %ld %63s", &pct, &secs, &usecs, &calls, name) == 5)
        if (!strcmp(name, names[i])) counts[i] = calls;
    }
  }
  return 1;
}

/* The transparent huge page mode is madvise, and no GLIBC_TUNABLES of the user's chose malloc's own. */
static int thp_on_request(void) {
  const char* mode = skt_read_text("/sys/kernel/mm/transparent_hugepage/enabled");
  const char* tunables = getenv("GLIBC_TUNABLES");
  return mode && strstr(mode, "[madvise]") && !(tunables && strstr(tunables, "hugetlb"));
}

/* The largest length of a madvise(..., MADV_HUGEPAGE) in an strace log, 0 when none. */
static unsigned long long largest_huge_advice(const char* path) {
  const char* text = skt_read_text(path);
  unsigned long long best = 0;
  for (const char* at = text; at && (at = strstr(at, "madvise(")); at++) {
    unsigned long long addr, len;
    char advice[32];
    if (sscanf(at, "madvise(%llx, %llu, %31[A-Z_]", &addr, &len, advice) == 3 && !strcmp(advice, "MADV_HUGEPAGE") &&
        len > best)
      best = len;
  }
  return best;
}

/* `skinkit bind` sets its process up in itself (plugin/cli_main.c tune_command): no second image of the executable
 * (it ran itself again for glibc's huge-page tunable, ~30 ms of start-up on a paravirtualized guest), its heap
 * advised for huge pages in one range (every command's: info here too), and OpenBLAS's start-up worker kept from
 * spinning (left alone when the user sets a thread count: GOTO_NUM_THREADS=2 here, whose worker spins ~0.1 s on
 * sched_yield). */
START_TEST(bind_sets_itself_up_in_one_process) {
  char args[1024];
  snprintf(args, sizeof args, "sample %s --segments 64 --rings 100 --bones 3", tmp_path("c6k.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  snprintf(args, sizeof args, "bind %s %s --force", tmp_path("c6k.glb"), tmp_path("one.glb"));
  static const char* const names[] = {"execve", "sched_yield"};
  long mine[2], users[2];
  if (!syscall_counts("", args, names, mine, 2) || !syscall_counts("GOTO_NUM_THREADS=2", args, names, users, 2))
    return; /* no strace */
  ck_assert_int_eq(mine[0], 1);
  ck_assert_int_eq(users[0], 1);
  if (users[1] > 200) /* OpenBLAS's worker spun (another BLAS has none) */
    ck_assert_msg(mine[1] * 4 < users[1], "sched_yield: %ld, %ld with the worker left running", mine[1], users[1]);
  if (!thp_on_request() || SANITIZED) return; /* ASan's allocator is not glibc's heap */
  char info[1024], cmd[4096];
  snprintf(info, sizeof info, "info %s", tmp_path("c6k.glb"));
  const char* const runs[2] = {args, info};
  for (int r = 0; r < 2; ++r) {
    snprintf(cmd, sizeof cmd, "cd '%s' && strace -f -e trace=madvise -o '%s' '%s' %s >/dev/null 2>&1", SK_SOURCE_DIR,
             tmp_path("madvise.txt"), SK_CLI_PATH, runs[r]);
    ck_assert_int_eq(system(cmd), 0);
    unsigned long long advised = largest_huge_advice(tmp_path("madvise.txt"));
    ck_assert_msg(advised >= 32ull << 20, "%s: largest huge-page advice %llu bytes", runs[r], advised);
  }
}
END_TEST

/* Whether two files hold the same bytes. */
static int files_equal(const char* a, const char* b) {
  size_t na = 0, nb = 0;
  char *x = skt_slurp(a, &na), *y = skt_slurp(b, &nb);
  const int same = x && y && na == nb && !memcmp(x, y, na);
  free(x);
  free(y);
  return same;
}

/* libgomp ends even a one-thread team with a futex wake: 17,000+ calls for this 38k-vertex cylinder's CHOLMOD regions
 * when every region goes to libgomp as asked (SKINKIT_OMP_INLINE=0, the control); the executable runs one-thread
 * regions inline (plugin/cli_gomp.c) and works dynamic adjustment's team out once a second (sysinfo). The library
 * keeps the factorization's regions on the calling thread and solves a supernodal factor's group of bones on one
 * thread (core/bind_heat.c): with 8 bones, two threads solving at once waited on OpenBLAS's lock (422 futex calls,
 * and ~2,400 more on an idle machine, whose load average gave the factorization's regions two threads), 22 now
 * (2 processors).
 * Same weights either way. */
START_TEST(factorization_regions_make_no_system_calls) {
  char args[1024];
  snprintf(args, sizeof args, "sample %s --segments 128 --rings 300 --bones 8", tmp_path("c38k.glb"));
  ck_assert_msg(run(args) == 0, "%s", err_text());
  static const char* const names[] = {"sysinfo", "futex"};
  long mine[2], asked[2];
  snprintf(args, sizeof args, "bind %s %s --force", tmp_path("c38k.glb"), tmp_path("mine.glb"));
  if (!syscall_counts("", args, names, mine, 2)) return; /* no strace */
  snprintf(args, sizeof args, "bind %s %s --force", tmp_path("c38k.glb"), tmp_path("asked.glb"));
  ck_assert(syscall_counts("SKINKIT_OMP_INLINE=0", args, names, asked, 2));
  printf("38k bind: sysinfo %ld, futex %ld (libgomp as asked: %ld, %ld)\n", mine[0], mine[1], asked[0], asked[1]);
  ck_assert_int_le(mine[0], 4);
  if (asked[1] > 1000) ck_assert_msg(mine[1] * 4 < asked[1], "futex: %ld, %ld as asked", mine[1], asked[1]);
  /* the library's own regions wake every worker: the allowance grows with the processors (2 here: 200) */
  const long procs = sysconf(_SC_NPROCESSORS_ONLN), allowed = 100 * (procs > 2 ? procs : 2);
  if (!SANITIZED) ck_assert_msg(mine[1] < allowed, "futex: %ld (threads waiting on each other)", mine[1]);
  ck_assert_int_eq(file_size(tmp_path("mine.glb")), file_size(tmp_path("asked.glb")));
  ck_assert_msg(files_equal(tmp_path("mine.glb"), tmp_path("asked.glb")), "the weights differ");
}
END_TEST

/* CHOLMOD is loaded when a bind first solves (core/chol_lazy.c): where it cannot be (SKINKIT_CHOLMOD naming a file
 * that is not there), the heat-based methods fail with the loader's reason, exit 2 and no output, and the methods
 * without a solve still bind. */
START_TEST(bind_without_cholmod_fails_with_the_reason) {
  char args[1024];
  setenv("SKINKIT_CHOLMOD", "/nonexistent/libcholmod.so.3", 1);
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s", tmp_path("heat.glb"));
  const int heat_rc = run(args);
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method nearest", tmp_path("nearest.glb"));
  const int nearest_rc = run(args);
  unsetenv("SKINKIT_CHOLMOD");
  ck_assert_int_eq(heat_rc, 2);
  ck_assert_int_eq(nearest_rc, 0);
  snprintf(args, sizeof args, "bind tests/data/cylinder_rig.glb %s --method heat", tmp_path("heat.glb"));
  setenv("SKINKIT_CHOLMOD", "/nonexistent/libcholmod.so.3", 1);
  ck_assert_int_eq(run(args), 2);
  unsetenv("SKINKIT_CHOLMOD");
  ck_assert_msg(strstr(err_text(), "CHOLMOD (/nonexistent/libcholmod.so.3) could not be loaded"), "%s", err_text());
  ck_assert_int_eq(file_size(tmp_path("heat.glb")), -1);
  ck_assert_msg(run(args) == 0, "%s", err_text());
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("cli_bind");
  TCase* t = tcase_create("bind");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 300);
  tcase_add_test(t, every_method_writes_valid_weights);
  tcase_add_test(t, json_and_text_reports);
  tcase_add_test(t, mesh_beside_the_armature_is_named);
  tcase_add_test(t, joints_along_one_another_are_named);
  tcase_add_test(t, joints_and_max_influences);
  tcase_add_test(t, never_overwrites_input_and_needs_force);
  tcase_add_test(t, bad_inputs);
  tcase_add_test(t, deform_joints_without_a_skin);
  tcase_add_test(t, per_joint_report);
  tcase_add_test(t, one_surface_across_materials);
  tcase_add_test(t, unskinned_meshes_bound_in_place);
  tcase_add_test(t, meshes_of_other_gltf_scenes_left);
  tcase_add_test(t, shared_bytes_and_one_spot_characters);
  tcase_add_test(t, unskinned_node_gets_a_skin_by_edit_gltf_and_fbx);
  tcase_add_test(t, rigid_attachments_stay_rigid);
  tcase_add_test(t, new_skin_agrees_with_the_files_skins);
  tcase_add_test(t, two_characters_keep_to_their_armatures);
  tcase_add_test(t, meshes_by_object_name_fit_in_the_rest_pose);
  tcase_add_test(t, self_contained_gltf_stays_one_file_and_binds_again_alike);
  tcase_add_test(t, one_thread_regions_run_inline_with_the_same_weights);
  tcase_add_test(t, bind_sets_itself_up_in_one_process);
  tcase_add_test(t, factorization_regions_make_no_system_calls);
  tcase_add_test(t, info_counts_the_files_bone_tails);
  tcase_add_test(t, bind_without_cholmod_fails_with_the_reason);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
