/* test_gltf_validate.c - `validate` on glTF files reads the file's own JOINTS_n / WEIGHTS_n values
 * (io/gltf_validate.c) and judges inverse binds relative to their scale (io/scene_validate.c).
 *
 * The broken-file table below writes one small .gltf per row (a triangle skinned to two joints, buffer in a data:
 * URI; vertex 1 carries the defect) and checks, for each, the counters of gltf_validate.c on the document, of
 * sk_scene_validate and of `skinkit validate --json -`, and the exit code. The last column is what the Khronos
 * glTF-Validator 2.0.0-dev.3.10 reports for the same file (checked by hand: SKT_GLTF_KEEP=DIR keeps the files, then
 * NODE_PATH=... node tests/gltf_validator/validate.mjs DIR); expectations follow the validator's InfluencesChecker
 * and the specification, not an earlier run. Also: gltfpack's and gltf-transform's outputs of
 * tests/data/cylinder_rig.glb (quantized, with the dequantization scale in the inverse binds; -noq; meshopt; Draco)
 * are clean, and a skin edited after loading is checked as edited, not as the stale file. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"
#include "skio_gltf_doc.h"
#include "skio_gltf_validate.h"
#include "skio_scene.h"

#ifndef SK_CLI_PATH
#error "SK_CLI_PATH must name the built skinkit executable"
#endif

static char g_dir[256];
static char g_out[1 << 16];
static int g_keep;

static void setup(void) {
  const char* keep = getenv("SKT_GLTF_KEEP");
  if (keep && *keep) {
    mkdir(keep, 0755);
    snprintf(g_dir, sizeof g_dir, "%s", keep);
    g_keep = 1;
  } else {
    snprintf(g_dir, sizeof g_dir, "/tmp/skt_gltf_validate_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
  }
}

static void teardown(void) {
  if (g_keep) return;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
}

/* ---- the broken-file table ------------------------------------------------------------------------------- */

enum { W_FLOAT, W_U8N, W_U16N, W_U8_PLAIN /* unsigned byte without normalized: not valid glTF */ };
enum { IBM_PLAIN, IBM_SINGULAR, IBM_FLAT, IBM_SCALED, IBM_NONAFFINE, IBM_NONAFFINE_TINY, IBM_MIRROR, IBM_STRETCH };

typedef struct expect {
  unsigned off, unweighted, nan, negative, bad_joint, duplicate, singular, nonrigid;
} expect;

typedef struct row {
  const char* name;
  int wtype;
  uint8_t j[4]; /* vertex 1's joints */
  float w[4];   /* its weights (integer values for W_U8N / W_U16N) */
  int ibm;
  expect e;
  int exit_code;
  const char* khronos; /* the Khronos validator's errors on this file */
} row;

/* one row per case, kept as written */
// clang-format off
static const row k_rows[] = {
    {"clean_float", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_PLAIN, {0}, 0, "none"},
    {"clean_u8n", W_U8N, {0, 1, 0, 0}, {128, 127, 0, 0}, IBM_PLAIN, {0}, 0, "none"},
    {"clean_u16n", W_U16N, {0, 1, 0, 0}, {32768, 32767, 0, 0}, IBM_PLAIN, {0}, 0, "none"},
    {"nan", W_FLOAT, {0, 1, 0, 0}, {NAN, 0.5f, 0, 0}, IBM_PLAIN, {.nan = 1}, 1, "ACCESSOR_INVALID_FLOAT"},
    /* the validator also calls the infinite sum non-normalized (for NaN its comparison is false); skinkit counts
     * the vertex once. Joint 1 with weight 0: its warning ACCESSOR_JOINTS_USED_ZERO_WEIGHT is no finding here */
    {"inf", W_FLOAT, {0, 1, 0, 0}, {INFINITY, 0, 0, 0}, IBM_PLAIN, {.nan = 1}, 1,
     "ACCESSOR_INVALID_FLOAT ACCESSOR_WEIGHTS_NON_NORMALIZED"},
    {"negative", W_FLOAT, {0, 1, 0, 0}, {1.0f, -0.25f, 0, 0}, IBM_PLAIN, {.negative = 1}, 1,
     "ACCESSOR_WEIGHTS_NEGATIVE"},
    /* an entry on a joint the skin does not have counts for nothing else: the sum left is 0.5 */
    {"joint_oob", W_FLOAT, {0, 5, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_PLAIN, {.bad_joint = 1, .off = 1}, 1,
     "ACCESSOR_JOINTS_INDEX_OOB ACCESSOR_WEIGHTS_NON_NORMALIZED"},
    {"joint_oob_zero_weight", W_FLOAT, {0, 7, 0, 0}, {1.0f, 0, 0, 0}, IBM_PLAIN, {.bad_joint = 1}, 1,
     "ACCESSOR_JOINTS_INDEX_OOB"},
    {"zero_sum", W_FLOAT, {0, 1, 0, 0}, {0, 0, 0, 0}, IBM_PLAIN, {.unweighted = 1}, 1,
     "ACCESSOR_WEIGHTS_NON_NORMALIZED (sum 0)"},
    /* the second weight on joint 1 is not summed (as the validator does): 1.0 left */
    {"duplicate", W_FLOAT, {1, 1, 0, 0}, {1.0f, 0.25f, 0, 0}, IBM_PLAIN, {.duplicate = 1}, 1,
     "ACCESSOR_JOINTS_INDEX_DUPLICATE"},
    {"non_normalized_float", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.4f, 0, 0}, IBM_PLAIN, {.off = 1}, 1,
     "ACCESSOR_WEIGHTS_NON_NORMALIZED"},
    {"non_normalized_u8n", W_U8N, {0, 1, 0, 0}, {128, 126, 0, 0}, IBM_PLAIN, {.off = 1}, 1,
     "ACCESSOR_WEIGHTS_NON_NORMALIZED"},
    /* 65534 / 65535: 1.5e-5 off, inside the 1e-3 tolerance, but the integer sum must be exact */
    {"non_normalized_u16n", W_U16N, {0, 1, 0, 0}, {32768, 32766, 0, 0}, IBM_PLAIN, {.off = 1}, 1,
     "ACCESSOR_WEIGHTS_NON_NORMALIZED"},
    /* the validator does not look at singular inverse binds: skinkit is stricter there */
    {"ibm_singular", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_SINGULAR, {.singular = 1}, 1, "none"},
    {"ibm_flat", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_FLAT, {.singular = 1}, 1, "none"},
    {"ibm_scaled", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_SCALED, {0}, 0, "none"},
    {"ibm_nonaffine", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_NONAFFINE, {.nonrigid = 1}, 1,
     "ACCESSOR_INVALID_IBM"},
    /* integer weights without "normalized" (MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT): read as normalized,
     * so the sums are judged as 255 (clean) and 254 (off); the format is the finding */
    {"u8_weights_not_normalized", W_U8_PLAIN, {0, 1, 0, 0}, {128, 127, 0, 0}, IBM_PLAIN, {0}, 1,
     "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT"},
    {"u8_weights_not_normalized_off", W_U8_PLAIN, {0, 1, 0, 0}, {128, 126, 0, 0}, IBM_PLAIN, {.off = 1}, 1,
     "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT ACCESSOR_WEIGHTS_NON_NORMALIZED"},
    {"ibm_nonaffine_tiny", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_NONAFFINE_TINY, {.nonrigid = 1}, 1,
     "ACCESSOR_INVALID_IBM"},
    /* a mirrored joint (det -1) and a non-uniformly scaled one: valid inverse binds for the validator; counted, but
     * informational (a mirrored rig failed CI with exit 1) */
    {"ibm_mirror", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_MIRROR, {.nonrigid = 1}, 0, "none"},
    {"ibm_stretch", W_FLOAT, {0, 1, 0, 0}, {0.5f, 0.5f, 0, 0}, IBM_STRETCH, {.nonrigid = 1}, 0, "none"},
};
// clang-format on
#define ROWS (sizeof k_rows / sizeof k_rows[0])

/* Column-major inverse binds of joints j0 (at the origin) and j1 (at x = 1), altered as the row asks. */
static void row_ibms(int kind, float m[32]) {
  memset(m, 0, 32 * sizeof(float));
  for (int k = 0; k < 2; ++k) {
    float* a = m + 16 * k;
    a[0] = a[5] = a[10] = a[15] = 1.0f;
    a[12] = k ? -1.0f : 0.0f;
  }
  float* b = m + 16; /* j1's */
  switch (kind) {
    case IBM_SINGULAR: /* z column zero: rank 2 */
      b[10] = 0.0f;
      break;
    case IBM_FLAT: /* z squashed to 1e-9: invertible in exact arithmetic, det 1e-9 > the old fixed 1e-12 */
      b[10] = 1e-9f;
      break;
    case IBM_SCALED: /* gltfpack -q: the dequantization (scale 1e-5, offset) folded in; det 1e-15 */
      for (int k = 0; k < 2; ++k) {
        float* a = m + 16 * k;
        a[0] = a[5] = a[10] = 1e-5f;
        a[12] += -0.25f;
        a[13] = -0.25f;
        a[14] = -0.25f;
      }
      break;
    case IBM_NONAFFINE:
      b[3] = 0.5f;
      break;
    case IBM_NONAFFINE_TINY: /* close to 1 but not 1: glTF's bottom row is exact */
      b[15] = 1.0001f;
      break;
    case IBM_MIRROR: /* mirrored across x = 0, as mirrored_joints.glb's */
      b[0] = -1.0f;
      break;
    case IBM_STRETCH: /* 1 x 1.5 x 1 */
      b[5] = 1.5f;
      break;
    default:
      break;
  }
}

/* Writes DIR/NAME.gltf with row r's vertex data and the given node list, scene roots and skin (JSON texts);
 * returns the path (static). */
static const char* write_gltf(const row* r, const char* name, const char* nodes, const char* roots,
                              const char* skin) {
  static char path[512];
  uint8_t bin[224];
  memset(bin, 0, sizeof bin);
  const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  memcpy(bin, pos, sizeof pos);
  const uint8_t joints[12] = {0, 0, 0, 0, r->j[0], r->j[1], r->j[2], r->j[3], 1, 0, 0, 0};
  memcpy(bin + 36, joints, sizeof joints);
  size_t wbytes;
  uint32_t ct;
  if (r->wtype == W_FLOAT) {
    float w[12] = {1, 0, 0, 0, r->w[0], r->w[1], r->w[2], r->w[3], 1, 0, 0, 0};
    memcpy(bin + 48, w, sizeof w);
    wbytes = sizeof w;
    ct = SKIO_GLTF_FLOAT;
  } else if (r->wtype == W_U8N || r->wtype == W_U8_PLAIN) {
    uint8_t w[12] = {255, 0, 0, 0, (uint8_t)r->w[0], (uint8_t)r->w[1], (uint8_t)r->w[2], (uint8_t)r->w[3], 255, 0, 0,
                     0};
    memcpy(bin + 48, w, sizeof w);
    wbytes = sizeof w;
    ct = SKIO_GLTF_UNSIGNED_BYTE;
  } else {
    uint16_t w[12] = {65535, 0, 0, 0, (uint16_t)r->w[0], (uint16_t)r->w[1], (uint16_t)r->w[2], (uint16_t)r->w[3],
                      65535, 0, 0, 0};
    memcpy(bin + 48, w, sizeof w);
    wbytes = sizeof w;
    ct = SKIO_GLTF_UNSIGNED_SHORT;
  }
  float ibm[32];
  row_ibms(r->ibm, ibm);
  memcpy(bin + 96, ibm, sizeof ibm);
  char* b64 = skt_base64(bin, sizeof bin);
  snprintf(path, sizeof path, "%s/%s.gltf", g_dir, name);
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":%s}],\"nodes\":%s,"
          "\"skins\":[%s],"
          "\"meshes\":[{\"name\":\"tri\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
          "\"WEIGHTS_0\":2}}]}],"
          "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36,\"target\":34962},"
          "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12,\"target\":34962},"
          "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":%zu,\"target\":34962},"
          "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":128}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
          "\"min\":[0,0,0],\"max\":[1,1,0]},"
          "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
          "{\"bufferView\":2,\"componentType\":%u,%s\"count\":3,\"type\":\"VEC4\"},"
          "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"}]}\n",
          roots, nodes, skin, sizeof bin, b64, wbytes, ct,
          r->wtype == W_FLOAT || r->wtype == W_U8_PLAIN ? "" : "\"normalized\":true,");
  fclose(f);
  free(b64);
  return path;
}

/* Writes DIR/NAME.gltf for row r: node 0 the mesh, joints j0 (node 1) and its child j1 (node 2). */
static const char* write_row(const row* r) {
  return write_gltf(r, r->name, "[{\"name\":\"mesh\",\"mesh\":0,\"skin\":0},{\"name\":\"j0\",\"children\":[2]},"
                                "{\"name\":\"j1\",\"translation\":[1,0,0]}]",
                    "[0,1]", "{\"joints\":[1,2],\"inverseBindMatrices\":3}");
}

/* The counter "key":N in a JSON text, or -1. */
static long json_count(const char* json, const char* key) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char* p = strstr(json, k);
  return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

/* Whether skinkit's own glTF reader is in this build (it keeps the document; Assimp's path does not). */
static int native_reader(const char* path) {
  skio_scene* s = NULL;
  skc_err e = {0};
  if (skio_scene_import(path, NULL, &s, &e)) return 0;
  int native = s->gltf != NULL;
  skio_scene_destroy(s);
  if (!native) fprintf(stderr, "glTF files are read through Assimp in this build: scene and CLI checks skipped\n");
  return native;
}

/* sk_scene_validate's report of the one mesh of the file at path; returns its out_findings. */
static uint32_t scene_report(const char* path, const char* name, sk_mesh_report* rep) {
  sk_scene* s = NULL;
  sk_error err;
  ck_assert_msg(sk_scene_load(path, NULL, &s, &err) == SK_OK, "%s: %s", name, err.message);
  ck_assert_uint_eq(sk_scene_mesh_count(s), 1);
  memset(rep, 0, sizeof *rep);
  rep->size = sizeof *rep;
  uint32_t findings = 9;
  ck_assert_int_eq(sk_scene_validate(s, NULL, rep, 1, &findings, &err), SK_OK);
  sk_scene_destroy(s);
  return findings;
}

START_TEST(broken_file_table) {
  int native = -1;
  for (size_t i = 0; i < ROWS; ++i) {
    const row* r = &k_rows[i];
    const char* path = write_row(r);
    const expect* x = &r->e;

    /* the document checker itself (weights only; binds are judged on the scene) */
    skio_gltf_doc* d = NULL;
    skc_err e = {0};
    ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s: %s", r->name, e.message);
    skc_skin_report k;
    bool checked = false;
    ck_assert_int_eq(skio_gltf_validate_primitive(d, 0, 0, 3, NULL, NULL, 0.0f, 0, &k, &checked, &e), SKC_OK);
    skio_gltf_doc_destroy(d);
    ck_assert_msg(checked, "%s", r->name);
    ck_assert_msg(k.off_tolerance == x->off && k.unweighted == x->unweighted && k.nan == x->nan &&
                      k.negative == x->negative && k.bad_joint == x->bad_joint && k.duplicate == x->duplicate,
                  "%s: off %llu unweighted %llu nan %llu negative %llu bad_joint %llu duplicate %llu", r->name,
                  (unsigned long long)k.off_tolerance, (unsigned long long)k.unweighted, (unsigned long long)k.nan,
                  (unsigned long long)k.negative, (unsigned long long)k.bad_joint, (unsigned long long)k.duplicate);
    ck_assert_int_eq(k.vertex_count, 3);
    ck_assert_int_eq(k.findings, x->off || x->unweighted || x->nan || x->negative || x->bad_joint || x->duplicate);

    if (native < 0) native = native_reader(path);
    if (!native) continue;

    /* the C report */
    sk_mesh_report rep;
    uint32_t findings = scene_report(path, r->name, &rep);
    ck_assert_msg(rep.skin.off_tolerance == x->off && rep.skin.unweighted == x->unweighted &&
                      rep.skin.nan == x->nan && rep.skin.negative == x->negative &&
                      rep.skin.bad_joint == x->bad_joint && rep.skin.duplicate == x->duplicate &&
                      rep.singular_binds == x->singular && rep.nonrigid_binds == x->nonrigid,
                  "%s (C report): off %llu unweighted %llu nan %llu negative %llu bad_joint %llu duplicate %llu "
                  "singular %llu nonrigid %llu",
                  r->name, (unsigned long long)rep.skin.off_tolerance, (unsigned long long)rep.skin.unweighted,
                  (unsigned long long)rep.skin.nan, (unsigned long long)rep.skin.negative,
                  (unsigned long long)rep.skin.bad_joint, (unsigned long long)rep.skin.duplicate,
                  (unsigned long long)rep.singular_binds, (unsigned long long)rep.nonrigid_binds);
    ck_assert_uint_eq(findings, (uint32_t)r->exit_code);

    /* the command line: counters in the JSON and the exit code */
    char args[700], errp[300];
    snprintf(args, sizeof args, "validate --json - '%s'", path);
    snprintf(errp, sizeof errp, "%s/stderr.txt", g_dir);
    int rc = skt_run_cli(g_dir, SK_CLI_PATH, args, errp, g_out, sizeof g_out);
    ck_assert_msg(rc == r->exit_code, "%s: exit %d, expected %d (%s)", r->name, rc, r->exit_code,
                  skt_read_text(errp));
    ck_assert_msg(json_count(g_out, "off_tolerance_count") == x->off && json_count(g_out, "unweighted_count") == x->unweighted &&
                      json_count(g_out, "nan_count") == x->nan && json_count(g_out, "negative_count") == x->negative &&
                      json_count(g_out, "bad_joint_count") == x->bad_joint &&
                      json_count(g_out, "duplicate_count") == x->duplicate &&
                      json_count(g_out, "singular_bind_count") == x->singular &&
                      json_count(g_out, "nonrigid_bind_count") == x->nonrigid,
                  "%s (CLI): %s", r->name, g_out);
    const bool format = r->wtype == W_U8_PLAIN;
    ck_assert_msg(strstr(g_out, format ? "\"influence_format_invalid\":true" : "\"influence_format_invalid\":false"),
                  "%s (CLI format): %s", r->name, g_out);
    ck_assert_uint_eq(rep.skin_structure & SK_SKIN_INFLUENCE_FORMAT, format ? SK_SKIN_INFLUENCE_FORMAT : 0);
    if (r->ibm == IBM_SINGULAR) { /* FBX stores the bind pose: a clear refusal (it blamed the other meshes' binds) */
      char out[400];
      snprintf(out, sizeof out, "%s/singular.fbx", g_dir);
      snprintf(args, sizeof args, "convert '%s' '%s' --force", path, out);
      ck_assert_int_eq(skt_run_cli(g_dir, SK_CLI_PATH, args, errp, g_out, sizeof g_out), 2);
      ck_assert_msg(strstr(skt_read_text(errp), "inverse bind matrix of joint \"j1\" does not invert"), "%s",
                    skt_read_text(errp));
      /* a mesh of IN the writer refused: named by IN, as a read error is (session 74) */
      char named[700];
      snprintf(named, sizeof named, "skinkit convert: %s: mesh \"", path);
      ck_assert_msg(strstr(skt_read_text(errp), named), "%.400s", skt_read_text(errp));
    }
  }
}
END_TEST

/* ---- gltfpack ------------------------------------------------------------------------------------------- */

/* Files other tools wrote from tests/data/cylinder_rig.glb (tests/data/README.md): gltfpack 1.3 with -noq (normalized
 * u8 weights), by default (KHR_mesh_quantization: the dequantization, scale 1.2e-4, folded into the inverse binds,
 * det 1.8e-12), with -c (meshopt-compressed views), and gltf-transform's Draco: no findings, on the document and
 * through validate. */
/* JOINTS_2 / WEIGHTS_2 with no set 1 (tests/data/set_gap.glb, make_mirror_rig.py): the Khronos validator's
 * MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY; the reader stops at the gap, so it is an influence-format finding (it
 * was "ok", and an edit dropped the set unread). mirror_rig.glb, the same without set 2: clean. */
START_TEST(influence_set_gap_is_a_finding) {
  static const char* const files[2] = {"tests/data/set_gap.glb", "tests/data/mirror_rig.glb"};
  for (int f = 0; f < 2; ++f) {
    char path[512], errp[300];
    snprintf(path, sizeof path, "%s/%s", SK_SOURCE_DIR, files[f]);
    sk_mesh_report rep;
    ck_assert_uint_eq(scene_report(path, "Grid", &rep), (f == 0 ? 1u : 0u));
    ck_assert_uint_eq(rep.skin_structure & SK_SKIN_INFLUENCE_FORMAT, (f == 0 ? SK_SKIN_INFLUENCE_FORMAT : 0u));
    snprintf(errp, sizeof errp, "%s/stderr.txt", g_dir);
    char args[700];
    snprintf(args, sizeof args, "validate '%s'", path);
    ck_assert_int_eq(skt_run_cli(g_dir, SK_CLI_PATH, args, errp, g_out, sizeof g_out), (f == 0 ? 1 : 0));
  }
}
END_TEST

/* glTF's JSON must be UTF-8: the Khronos validator refuses a document with other bytes (INVALID_JSON, "Invalid UTF-8
 * byte"), which validate called clean (session 74). mirror_rig.glb with one byte of a name made 0xFF (the same length:
 * the chunks stay as they are) is a finding on its mesh (SK_SKIN_JSON_UTF8, exit 1, "json_invalid_utf8"); the file
 * itself is not. */
START_TEST(json_that_is_not_utf8_is_a_finding) {
  char path[512], bad[600], errp[700], args[1400];
  snprintf(path, sizeof path, "%s/tests/data/mirror_rig.glb", SK_SOURCE_DIR);
  static char glb[1 << 16];
  FILE* in = fopen(path, "rb");
  ck_assert_ptr_nonnull(in);
  const size_t n = fread(glb, 1, sizeof glb, in);
  fclose(in);
  ck_assert(n > 20 && n < sizeof glb);
  size_t at = 20;
  while (at + 8 < n && memcmp(glb + at, "\"name\":\"", 8) != 0) ++at;
  ck_assert_uint_lt(at + 8, n);
  glb[at + 8] = (char)0xFF;
  snprintf(bad, sizeof bad, "%s/bad_utf8.glb", g_dir);
  FILE* f = fopen(bad, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(glb, 1, n, f), n);
  fclose(f);
  sk_mesh_report rep;
  ck_assert_uint_eq(scene_report(path, "mirror_rig", &rep), 0u);
  ck_assert_uint_eq(rep.skin_structure & SK_SKIN_JSON_UTF8, 0u);
  ck_assert_uint_eq(scene_report(bad, "bad_utf8", &rep), 1u);
  ck_assert_uint_eq(rep.skin_structure & SK_SKIN_JSON_UTF8, SK_SKIN_JSON_UTF8);
  snprintf(errp, sizeof errp, "%s/stderr.txt", g_dir);
  snprintf(args, sizeof args, "validate '%s' --json -", bad);
  ck_assert_int_eq(skt_run_cli(g_dir, SK_CLI_PATH, args, errp, g_out, sizeof g_out), 1);
  ck_assert_msg(strstr(g_out, "\"json_invalid_utf8\":true") != NULL, "%.400s", g_out);
}
END_TEST

START_TEST(gltfpack_outputs_are_clean) {
  static const char* files[] = {"tests/data/cylinder_rig_gltfpack.glb", "tests/data/cylinder_rig_gltfpack_noq.glb",
                                "tests/data/cylinder_rig_gltfpack_c.glb", "tests/data/cylinder_rig_draco.glb"};
  for (int f = 0; f < 4; ++f) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SK_SOURCE_DIR, files[f]);
    skio_gltf_doc* d = NULL;
    skc_err e = {0};
    ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s", e.message);
    uint32_t checked_prims = 0;
    for (uint32_t n = 0; n < d->node_count; ++n) {
      skc_skin_report k;
      bool checked = false;
      int nt = skio_gltf_item(d, "nodes", n);
      uint32_t mi;
      if (!skio_json_u32(d, skio_json_get(d, nt, "mesh"), &mi)) continue;
      int pt = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", mi), "primitives"), 0);
      uint32_t pos;
      skio_gltf_accessor pa;
      ck_assert(skio_json_u32(d, skio_json_get(d, skio_json_get(d, pt, "attributes"), "POSITION"), &pos));
      ck_assert_int_eq(skio_gltf_accessor_info(d, pos, &pa, &e), SKC_OK);
      ck_assert_int_eq(skio_gltf_validate_primitive(d, n, 0, pa.count, NULL, NULL, 0.0f, 0, &k, &checked, &e),
                       SKC_OK);
      if (!checked) continue;
      checked_prims++;
      ck_assert_msg(!k.findings, "%s node %u: findings", files[f], n);
      ck_assert_uint_eq(k.vertex_count, 1122);
    }
    ck_assert_uint_eq(checked_prims, 1);
    if (f == 0) { /* the quantized file's binds: det below the old fixed 1e-12 */
      int sk = skio_gltf_item(d, "skins", 0);
      uint32_t ia;
      ck_assert(skio_json_u32(d, skio_json_get(d, sk, "inverseBindMatrices"), &ia));
      float m[32];
      ck_assert_int_eq(skio_gltf_accessor_floats(d, ia, m, &e), SKC_OK);
      double det = (double)m[0] * m[5] * m[10];
      ck_assert_msg(fabs(det) < 1e-11 && m[1] == 0.0f && m[4] == 0.0f, "det %g", det);
    }
    skio_gltf_doc_destroy(d);
    if (!native_reader(path)) continue;
    char args[700], errp[300];
    snprintf(args, sizeof args, "validate --json - '%s'", path);
    snprintf(errp, sizeof errp, "%s/stderr.txt", g_dir);
    int rc = skt_run_cli(g_dir, SK_CLI_PATH, args, errp, g_out, sizeof g_out);
    ck_assert_msg(rc == 0, "%s: exit %d: %s %s", files[f], rc, g_out, skt_read_text(errp));
    ck_assert_int_eq(json_count(g_out, "singular_bind_count"), 0);
    ck_assert_int_eq(json_count(g_out, "off_tolerance_count"), 0);
  }
}
END_TEST

/* ---- edits after loading ------------------------------------------------------------------------------------ */

START_TEST(edited_skin_is_checked_as_edited) {
  const row* r = NULL;
  for (size_t i = 0; i < ROWS; ++i)
    if (!strcmp(k_rows[i].name, "non_normalized_float")) r = &k_rows[i];
  ck_assert_ptr_nonnull(r);
  const char* path = write_row(r);
  if (!native_reader(path)) return;
  skio_scene* s = NULL;
  skc_err e = {0};
  ck_assert_int_eq(skio_scene_import(path, NULL, &s, &e), SKC_OK);
  skio_mesh_report rep;
  ck_assert_int_eq(skio_mesh_validate(s, 0, 0.0f, 0, &rep, &e), SKC_OK);
  ck_assert_uint_eq(rep.skin.off_tolerance, 1);
  /* normalize vertex 1 in the scene: the file still says 0.5 + 0.4, the scene 1 */
  skc_skin* k = s->meshes[0].skin;
  ck_assert_uint_eq(k->offsets[2] - k->offsets[1], 2);
  for (uint32_t at = k->offsets[1]; at < k->offsets[2]; ++at) k->weights[at] /= 0.9f;
  ck_assert_int_eq(skio_mesh_validate(s, 0, 0.0f, 0, &rep, &e), SKC_OK);
  ck_assert_uint_eq(rep.skin.off_tolerance, 0);
  ck_assert(!rep.findings);
  /* a negative weight put in by hand is seen too (the scene's own checks) */
  k->weights[k->offsets[1]] = -1.0f;
  ck_assert_int_eq(skio_mesh_validate(s, 0, 0.0f, 0, &rep, &e), SKC_OK);
  ck_assert_uint_eq(rep.skin.negative, 1);
  skio_scene_destroy(s);
}
END_TEST

/* A vertex's sets are one vertex: a joint repeated across JOINTS_0 and JOINTS_1, an integer sum split over two
 * sets, and the validator's float32 slack with a tiny tolerance. */
START_TEST(rules_in_detail) {
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  const row* r = &k_rows[0];
  const char* path = write_row(r);
  ck_assert_int_eq(skio_gltf_doc_load(path, &d, &e), SKC_OK);
  skc_skin_report k;
  bool checked = false;
  /* node 1 has no mesh or skin, primitive 3 does not exist: not checked, no error */
  ck_assert_int_eq(skio_gltf_validate_primitive(d, 1, 0, 3, NULL, NULL, 0.0f, 0, &k, &checked, &e), SKC_OK);
  ck_assert(!checked);
  ck_assert_int_eq(skio_gltf_validate_primitive(d, 0, 3, 3, NULL, NULL, 0.0f, 0, &k, &checked, &e), SKC_OK);
  ck_assert(!checked);
  /* a vertex count other than the accessors': not checked */
  ck_assert_int_eq(skio_gltf_validate_primitive(d, 0, 0, 4, NULL, NULL, 0.0f, 0, &k, &checked, &e), SKC_OK);
  ck_assert(!checked);
  /* counts: vertex 1 has 2 influences, the others 1; a limit of 1 finds vertex 1 */
  ck_assert_int_eq(skio_gltf_validate_primitive(d, 0, 0, 3, NULL, NULL, 0.0f, 1, &k, &checked, &e), SKC_OK);
  ck_assert(checked);
  ck_assert_uint_eq(k.max_influences, 2);
  ck_assert_uint_eq(k.influence_count, 4);
  ck_assert_uint_eq(k.histogram[1], 2);
  ck_assert_uint_eq(k.histogram[2], 1);
  ck_assert_uint_eq(k.over_limit, 1);
  ck_assert_uint_eq(k.joints_used, 2);
  ck_assert(k.weight_sum_min == 1.0f && k.weight_sum_max == 1.0f);
  skio_gltf_doc_destroy(d);

  /* two sets, u8n: vertex 0 = 200 + 55 split across sets (exact), vertex 1 = joint 1 in both sets, vertex 2 sums
   * 200 + 54; float twin: 1 - 3e-7 with tolerance 1e-9 (inside 2e-7 * 2) and 1 - 1e-6 (outside) */
  for (int pass = 0; pass < 2; ++pass) {
    uint8_t big[160];
    memset(big, 0, sizeof big);
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint8_t j0[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t j1[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    memcpy(big, pos, sizeof pos);
    memcpy(big + 36, j0, 12);
    memcpy(big + 48, j1, 12);
    size_t wb = pass == 0 ? 12 : 48, w0_at = 60, w1_at = 60 + wb;
    if (pass == 0) {
      const uint8_t w0[12] = {200, 0, 0, 0, 128, 0, 0, 0, 200, 0, 0, 0};
      const uint8_t w1[12] = {55, 0, 0, 0, 127, 0, 0, 0, 54, 0, 0, 0};
      memcpy(big + w0_at, w0, wb);
      memcpy(big + w1_at, w1, wb);
    } else {
      const float w0[12] = {0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f, 0, 0, 0};
      const float w1[12] = {0.5f - 3e-7f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f - 1e-6f, 0, 0, 0};
      memcpy(big + w0_at, w0, wb);
      memcpy(big + w1_at, w1, wb);
    }
    size_t total = w1_at + wb;
    char* b64 = skt_base64(big, total);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0,\"skin\":0},{\"children\":[2]},{}],"
             "\"skins\":[{\"joints\":[1,2]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,"
             "\"JOINTS_0\":1,\"JOINTS_1\":2,\"WEIGHTS_0\":3,\"WEIGHTS_1\":4}}]}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":0,\"byteOffset\":36,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":0,\"byteOffset\":%zu,\"componentType\":%d,%s\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":0,\"byteOffset\":%zu,\"componentType\":%d,%s\"count\":3,\"type\":\"VEC4\"}]}",
             total, b64, total, w0_at, pass ? 5126 : 5121, pass ? "" : "\"normalized\":true,", w1_at,
             pass ? 5126 : 5121, pass ? "" : "\"normalized\":true,");
    free(b64);
    ck_assert_msg(skio_gltf_doc_parse(json, strlen(json), NULL, &d, &e) == SKC_OK, "%s", e.message);
    ck_assert_int_eq(skio_gltf_validate_primitive(d, 0, 0, 3, NULL, NULL, 1e-9f, 0, &k, &checked, &e), SKC_OK);
    ck_assert(checked);
    ck_assert_uint_eq(k.duplicate, 1); /* vertex 1 */
    if (pass == 0) {
      ck_assert_uint_eq(k.off_tolerance, 2); /* vertex 1 (128 alone: the repeat is not summed) and vertex 2 (254) */
    } else {
      ck_assert_uint_eq(k.off_tolerance, 2); /* vertex 1 (0.5 alone) and vertex 2 (1e-6 off); vertex 0 within */
    }
    ck_assert_uint_eq(k.max_influences, 2);
    skio_gltf_doc_destroy(d);
    d = NULL;
  }
}
END_TEST

/* The validator's order (InfluencesChecker): component by component, JOINTS_0 then JOINTS_1 within each, and any
 * non-zero weight (NaN, -inf) claims its joint. Vertex 0: joint 2 first comes from set 1's first slot, so set 0's
 * third slot is the repeat and the sum is 0.5 + 0.5 = 1 (set by set it was 0.75, an off sum); vertex 1: joint 0 again
 * with a NaN weight (a duplicate too); vertex 2: a weight of -inf is negative as well as not finite. The Khronos
 * validator 2.0.0-dev.3.10 on this file (SKT_GLTF_KEEP): ACCESSOR_JOINTS_INDEX_DUPLICATE at vertices 0 and 1,
 * ACCESSOR_INVALID_FLOAT at 1 and 2, ACCESSOR_WEIGHTS_NEGATIVE at 2, nothing else. */
START_TEST(two_sets_in_the_validators_order) {
  uint8_t bin[36 + 24 + 96];
  memset(bin, 0, sizeof bin);
  const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint8_t j[24] = {1, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, /* JOINTS_0 */
                         2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 /* JOINTS_1 */};
  const float w[24] = {0.5f, 0, 0.25f, 0, 1.0f, NAN, 0, 0, 1.0f, -INFINITY, 0, 0, /* WEIGHTS_0 */
                       0.5f, 0, 0,     0, 0,    0,   0, 0, 0,    0,         0, 0 /* WEIGHTS_1 */};
  memcpy(bin, pos, sizeof pos);
  memcpy(bin + 36, j, sizeof j);
  memcpy(bin + 60, w, sizeof w);
  char* b64 = skt_base64(bin, sizeof bin);
  char path[512];
  snprintf(path, sizeof path, "%s/two_sets_order.gltf", g_dir);
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
          "\"nodes\":[{\"mesh\":0,\"skin\":0},{\"children\":[2,3]},{},{}],\"skins\":[{\"joints\":[1,2,3]}],"
          "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"JOINTS_1\":2,"
          "\"WEIGHTS_0\":3,\"WEIGHTS_1\":4}}]}],"
          "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36,\"target\":34962},"
          "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24,\"byteStride\":4,\"target\":34962},"
          "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":96,\"byteStride\":16,\"target\":34962}],"
          "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
          "\"min\":[0,0,0],\"max\":[1,1,0]},"
          "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
          "{\"bufferView\":1,\"byteOffset\":12,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
          "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
          "{\"bufferView\":2,\"byteOffset\":48,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}]}\n",
          sizeof bin, b64);
  fclose(f);
  free(b64);
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s", e.message);
  skc_skin_report k;
  bool checked = false;
  ck_assert_int_eq(skio_gltf_validate_primitive(d, 0, 0, 3, NULL, NULL, 1e-7f, 0, &k, &checked, &e), SKC_OK);
  skio_gltf_doc_destroy(d);
  ck_assert(checked);
  ck_assert_uint_eq(k.duplicate, 2);
  ck_assert_uint_eq(k.nan, 2);
  ck_assert_uint_eq(k.negative, 1);
  ck_assert_uint_eq(k.off_tolerance, 0);
  ck_assert_uint_eq(k.unweighted, 0);
  ck_assert_uint_eq(k.bad_joint, 0);
  ck_assert_uint_eq(k.max_influences, 3);
}
END_TEST

/* ---- joint hierarchy ------------------------------------------------------------------------------------ */

/* The specification's joint-hierarchy rules (3.7.3.1): the joints of a skin have a common root, and skin.skeleton
 * is that closest common root or above it. Node 0 is the mesh; `khronos` is what the Khronos glTF-Validator
 * (2.0.0-dev.3.10) reports for the file (checked by hand with SKT_GLTF_KEEP and tests/gltf_validator). */
typedef struct hier_row {
  const char* name;
  const char* nodes;
  const char* roots;
  const char* skin;
  uint32_t flags; /* SK_SKIN_* */
  const char* khronos;
  int no_ibm; /* the skin has no inverseBindMatrices (identity binds: more joints than the table's two matrices) */
} hier_row;

#define HM "{\"name\":\"mesh\",\"mesh\":0,\"skin\":0}"
#define HJ1 "{\"name\":\"j1\",\"translation\":[1,0,0]}"
static const hier_row k_hier[] = {
    {"chain", "[" HM ",{\"name\":\"j0\",\"children\":[2]}," HJ1 "]", "[0,1]", "\"joints\":[1,2]", 0, "none", 0},
    {"no_common_root", "[" HM ",{\"name\":\"j0\"}," HJ1 "]", "[0,1,2]", "\"joints\":[1,2]", SK_SKIN_NO_COMMON_ROOT,
     "SKIN_NO_COMMON_ROOT", 0},
    {"deep_no_common_root",
     "[" HM ",{\"name\":\"A\",\"children\":[2]},{\"name\":\"j0\"},{\"name\":\"B\",\"children\":[4]}," HJ1 "]",
     "[0,1,3]", "\"joints\":[2,4]", SK_SKIN_NO_COMMON_ROOT, "SKIN_NO_COMMON_ROOT", 0},
    {"plain_root", "[" HM ",{\"name\":\"R\",\"children\":[2,3]},{\"name\":\"j0\"}," HJ1 "]", "[0,1]",
     "\"joints\":[2,3]", 0, "none", 0},
    {"mesh_node_is_root", "[{\"name\":\"mesh\",\"mesh\":0,\"skin\":0,\"children\":[1,2]},{\"name\":\"j0\"}," HJ1 "]",
     "[0]", "\"joints\":[1,2]", 0, "none", 0},
    {"skeleton_common_root", "[" HM ",{\"name\":\"R\",\"children\":[2,3]},{\"name\":\"j0\"}," HJ1 "]", "[0,1]",
     "\"joints\":[2,3],\"skeleton\":1", 0, "none", 0},
    {"skeleton_above_root",
     "[" HM ",{\"name\":\"A\",\"children\":[2]},{\"name\":\"R\",\"children\":[3,4]},{\"name\":\"j0\"}," HJ1 "]",
     "[0,1]", "\"joints\":[3,4],\"skeleton\":1", 0, "none", 0},
    {"skeleton_joint_root", "[" HM ",{\"name\":\"j0\",\"children\":[2]}," HJ1 "]", "[0,1]",
     "\"joints\":[1,2],\"skeleton\":1", 0, "none", 0},
    {"skeleton_below_root", "[" HM ",{\"name\":\"R\",\"children\":[2,3]},{\"name\":\"j0\"}," HJ1 "]", "[0,1]",
     "\"joints\":[2,3],\"skeleton\":2", SK_SKIN_SKELETON_INVALID, "SKIN_SKELETON_INVALID", 0},
    {"skeleton_joint_child", "[" HM ",{\"name\":\"j0\",\"children\":[2]}," HJ1 "]", "[0,1]",
     "\"joints\":[1,2],\"skeleton\":2", SK_SKIN_SKELETON_INVALID, "SKIN_SKELETON_INVALID", 0},
    {"skeleton_unrelated", "[" HM ",{\"name\":\"j0\",\"children\":[2]}," HJ1 "]", "[0,1]",
     "\"joints\":[1,2],\"skeleton\":0", SK_SKIN_SKELETON_INVALID, "SKIN_SKELETON_INVALID", 0},
    {"joint_listed_twice", "[" HM ",{\"name\":\"j0\",\"children\":[2]}," HJ1 "]", "[0,1]", "\"joints\":[1,1]",
     SK_SKIN_DUPLICATE_JOINT, "DUPLICATE_ELEMENTS", 0},
    /* j0 and j1 are two roots, j2 is j1's child: no common root. The validator reports nothing: its running
     * intersection of the joints' ancestors empties at j1 and then starts again from j2's (Skin.link, a defect of
     * 2.0.0-dev.3.10; 175 of 300 random forests differed by it, docs/validate.md) */
    {"no_common_root_then_a_child", "[" HM ",{\"name\":\"j0\"},{\"name\":\"j1\",\"children\":[3]},{\"name\":\"j2\"}]",
     "[0,1,2]", "\"joints\":[1,2,3]", SK_SKIN_NO_COMMON_ROOT, "none (a defect)", 1},
};
#undef HM
#undef HJ1
#define HIER_ROWS (sizeof k_hier / sizeof k_hier[0])

START_TEST(joint_hierarchy_table) {
  const row* clean = &k_rows[0];
  for (size_t i = 0; i < HIER_ROWS; ++i) {
    const hier_row* h = &k_hier[i];
    char skin[160];
    snprintf(skin, sizeof skin, "{%s%s}", h->skin, h->no_ibm ? "" : ",\"inverseBindMatrices\":3");
    const char* path = write_gltf(clean, h->name, h->nodes, h->roots, skin);

    skio_gltf_doc* d = NULL;
    skc_err e = {0};
    ck_assert_msg(skio_gltf_doc_load(path, &d, &e) == SKC_OK, "%s: %s", h->name, e.message);
    ck_assert_msg(skio_gltf_skin_structure(d, 0) == h->flags, "%s: flags %u, expected %u", h->name,
                  skio_gltf_skin_structure(d, 0), h->flags);
    ck_assert_uint_eq(skio_gltf_skin_structure(d, 1), 0); /* a node without skin */
    skio_gltf_doc_destroy(d);
    if (!native_reader(path)) continue;

    sk_mesh_report rep;
    uint32_t findings = scene_report(path, h->name, &rep);
    ck_assert_msg(rep.skin_structure == h->flags, "%s (C report): %u", h->name, rep.skin_structure);
    ck_assert_uint_eq(findings, h->flags != 0);
    ck_assert_uint_eq(rep.findings, h->flags != 0);

    char args[700], errp[300];
    snprintf(args, sizeof args, "validate --json - '%s'", path);
    snprintf(errp, sizeof errp, "%s/stderr.txt", g_dir);
    int rc = skt_run_cli(g_dir, SK_CLI_PATH, args, errp, g_out, sizeof g_out);
    ck_assert_msg(rc == (h->flags ? 1 : 0), "%s: exit %d (%s)", h->name, rc, skt_read_text(errp));
    char want[128];
    snprintf(want, sizeof want,
             "\"skin_no_common_root\":%s,\"skin_skeleton_invalid\":%s,\"skin_duplicate_joint\":%s",
             h->flags & SK_SKIN_NO_COMMON_ROOT ? "true" : "false",
             h->flags & SK_SKIN_SKELETON_INVALID ? "true" : "false",
             h->flags & SK_SKIN_DUPLICATE_JOINT ? "true" : "false");
    ck_assert_msg(strstr(g_out, want) != NULL, "%s (CLI): %s", h->name, g_out);
  }
}
END_TEST

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The hierarchy check walks up from each joint once in all: a skin of 60,000 joints down one chain (a joint per
 * node, the root first) took 3.8 s in a release build when each joint walked up to the root on its own. */
START_TEST(joint_hierarchy_is_linear) {
  enum { N = 60000 };
  size_t cap = (size_t)N * 40 + 256, at = 0;
  char* json = malloc(cap);
  ck_assert_ptr_nonnull(json);
  at += (size_t)snprintf(json + at, cap - at, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"skin\":0}");
  for (int i = 1; i <= N; ++i)
    at += i < N ? (size_t)snprintf(json + at, cap - at, ",{\"children\":[%d]}", i + 1)
                : (size_t)snprintf(json + at, cap - at, ",{}");
  at += (size_t)snprintf(json + at, cap - at, "],\"skins\":[{\"joints\":[");
  for (int i = 1; i <= N; ++i) at += (size_t)snprintf(json + at, cap - at, "%s%d", i > 1 ? "," : "", i);
  at += (size_t)snprintf(json + at, cap - at, "]}]}");
  ck_assert_uint_lt(at, cap);
  skio_gltf_doc* d = NULL;
  skc_err e = {0};
  ck_assert_msg(skio_gltf_doc_parse(json, at, NULL, &d, &e) == SKC_OK, "%s", e.message);
  free(json);
  double t0 = now_s();
  ck_assert_uint_eq(skio_gltf_skin_structure(d, 0), 0);
  double dt = now_s() - t0;
  skio_gltf_doc_destroy(d);
  ck_assert_msg(dt < 2.0, "%.2f s for a 60,000-joint chain", dt);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("gltf_validate");
  TCase* t = tcase_create("core");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, broken_file_table);
  tcase_add_test(t, gltfpack_outputs_are_clean);
  tcase_add_test(t, influence_set_gap_is_a_finding);
  tcase_add_test(t, json_that_is_not_utf8_is_a_finding);
  tcase_add_test(t, edited_skin_is_checked_as_edited);
  tcase_add_test(t, rules_in_detail);
  tcase_add_test(t, two_sets_in_the_validators_order);
  tcase_add_test(t, joint_hierarchy_table);
  tcase_add_test(t, joint_hierarchy_is_linear);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
