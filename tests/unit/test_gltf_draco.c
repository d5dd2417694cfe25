/* test_gltf_draco.c - KHR_draco_mesh_compression through the document layer (io/gltf_draco.c over libdraco in
 * io/draco_decode.cpp). tests/data/cylinder_rig_draco.glb is tests/data/cylinder_rig.glb compressed by
 * gltf-transform (an independent encoder, default quantization: POSITION 14 bits over the mesh's bounding box,
 * NORMAL 10, generic 12; see tests/data/README.md). Every attribute read from it matches the uncompressed file
 * within its quantization step, the indices describe the same triangles (Draco reorders vertices, so corners are
 * matched by position), and damaged Draco data or declarations give SKC_FORMAT / SKC_UNSUPPORTED, never a crash
 * (the ASan build runs this too). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skio_draco.h"
#include "skio_gltf_doc.h"
#include "skio_gltf_validate.h"
#include "skio_scene.h"

#define NV 1122   /* vertices of the rig (tests/data/README.md) */
#define NI 6336   /* triangle corners */

/* ---- files -------------------------------------------------------------------------------------------------- */

static const char* data_path(const char* name) {
  static char buf[4096];
  const char* here = __FILE__; /* .../tests/unit/test_gltf_draco.c */
  const char* cut = strstr(here, "unit/test_gltf_draco.c");
  snprintf(buf, sizeof buf, "%.*sdata/%s", cut ? (int)(cut - here) : 0, here, name);
  return buf;
}

static uint8_t* slurp(const char* name, size_t* n) {
  FILE* f = fopen(data_path(name), "rb");
  ck_assert_msg(f != NULL, "cannot open %s", data_path(name));
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* p = malloc(*n);
  ck_assert(fread(p, 1, *n, f) == *n);
  fclose(f);
  return p;
}

/* Replaces the first `from` in the GLB's JSON chunk by `to`, shifting the rest of the chunk into its trailing
 * padding spaces (or leaving more of them): every chunk offset stays. */
static void edit_json(uint8_t* glb, size_t n, const char* from, const char* to) {
  uint32_t jl;
  memcpy(&jl, glb + 12, 4);
  ck_assert(20 + (size_t)jl <= n);
  uint8_t* j = glb + 20;
  size_t lf = strlen(from), lt = strlen(to), pad = 0;
  while (pad < jl && j[jl - 1 - pad] == ' ') ++pad;
  ck_assert(lt <= lf + pad);
  for (size_t i = 0; i + lf <= jl; ++i)
    if (memcmp(j + i, from, lf) == 0) {
      size_t tail = jl - pad - i - lf;
      memmove(j + i + lt, j + i + lf, tail);
      memcpy(j + i, to, lt);
      memset(j + i + lt + tail, ' ', jl - (i + lt + tail));
      return;
    }
  ck_abort_msg("\"%s\" not in the JSON", from);
}

/* Where the primitive's Draco bytes sit in the file (its KHR_draco_mesh_compression bufferView in the BIN chunk). */
static size_t draco_span(const uint8_t* glb, size_t n, size_t* len) {
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_doc_parse(glb, n, NULL, &d, &err) == SKC_OK, "%s", err.message);
  int p = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", 0), "primitives"), 0);
  int ext = skio_json_get(d, skio_json_get(d, p, "extensions"), "KHR_draco_mesh_compression");
  uint32_t v;
  size_t off = 0;
  ck_assert(skio_json_u32(d, skio_json_get(d, ext, "bufferView"), &v));
  int vt = skio_gltf_item(d, "bufferViews", v);
  ck_assert(skio_json_size(d, skio_json_get(d, vt, "byteLength"), len));
  skio_json_size(d, skio_json_get(d, vt, "byteOffset"), &off);
  size_t at = d->bin_chunk_offset + 8 + off;
  skio_gltf_doc_destroy(d);
  ck_assert(at + *len <= n);
  return at;
}

/* ---- reading a primitive ------------------------------------------------------------------------------------ */

typedef struct prim {
  float pos[NV * 3], nrm[NV * 3], wgt[NV * 4];
  uint32_t jnt[NV * 4], idx[NI];
} prim;

static uint32_t attr_accessor(skio_gltf_doc* d, const char* semantic) {
  int p = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", 0), "primitives"), 0);
  uint32_t a = 0;
  int t = strcmp(semantic, "indices") == 0 ? skio_json_get(d, p, "indices")
                                           : skio_json_get(d, skio_json_get(d, p, "attributes"), semantic);
  ck_assert_msg(skio_json_u32(d, t, &a), "no %s", semantic);
  return a;
}

/* SKC_FORMAT when accessor a would not fit cap values of o (sized for the fixture's NV vertices): damaged Draco data
 * that all the attributes declare alike may decode to another point count, which the reader takes (FBX2glTF's counts,
 * see counts_declared_before_compression_read_as_decoded), so the buffers are sized from the decoded count, as every
 * caller in io/ does. */
static int fits(skio_gltf_doc* d, uint32_t a, size_t cap, skc_err* err) {
  skio_gltf_accessor info;
  int rc = skio_gltf_accessor_info(d, a, &info, err);
  if (!rc && info.count * info.components > cap)
    rc = skc_fail(err, SKC_FORMAT, "accessors[%u]: the Draco data decodes to %zu elements, not the fixture's", a,
                  info.count);
  return rc;
}

/* Reads every attribute; returns the first failing code (the message in err). */
static int read_prim(skio_gltf_doc* d, prim* o, skc_err* err) {
  const uint32_t pos = attr_accessor(d, "POSITION"), nrm = attr_accessor(d, "NORMAL"),
                 wgt = attr_accessor(d, "WEIGHTS_0"), jnt = attr_accessor(d, "JOINTS_0"),
                 idx = attr_accessor(d, "indices");
  int rc;
  if ((rc = fits(d, pos, NV * 3, err)) || (rc = skio_gltf_accessor_floats(d, pos, o->pos, err))) return rc;
  if ((rc = fits(d, nrm, NV * 3, err)) || (rc = skio_gltf_accessor_floats(d, nrm, o->nrm, err))) return rc;
  if ((rc = fits(d, wgt, NV * 4, err)) || (rc = skio_gltf_accessor_floats(d, wgt, o->wgt, err))) return rc;
  if ((rc = fits(d, jnt, NV * 4, err)) || (rc = skio_gltf_accessor_uints(d, jnt, o->jnt, err))) return rc;
  if ((rc = fits(d, idx, NI, err))) return rc;
  return skio_gltf_accessor_uints(d, idx, o->idx, err);
}

static skio_gltf_doc* load_path(const char* path) {
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  int rc = skio_gltf_doc_load(path, &d, &err);
  ck_assert_msg(rc == SKC_OK, "%s: %.400s", path, err.message);
  return d;
}

static skio_gltf_doc* load(const char* name) { return load_path(data_path(name)); }

/* ---- tests -------------------------------------------------------------------------------------------------- */

static float dist3(const float* a, const float* b) {
  return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static int cmp_tri(const void* a, const void* b) { return memcmp(a, b, 3 * sizeof(uint32_t)); }

/* Triangles as triples of position classes (the lowest original vertex at exactly that position), rotated so the
 * smallest comes first (winding kept), sorted. */
static void canonical_triangles(const uint32_t* idx, const uint32_t* cls, uint32_t* out) {
  for (size_t t = 0; t < NI / 3; ++t) {
    uint32_t c[3] = {cls[idx[3 * t]], cls[idx[3 * t + 1]], cls[idx[3 * t + 2]]};
    int r = c[1] < c[0] && c[1] <= c[2] ? 1 : c[2] < c[0] && c[2] < c[1] ? 2 : 0;
    for (int k = 0; k < 3; ++k) out[3 * t + (size_t)k] = c[(k + r) % 3];
  }
  qsort(out, NI / 3, 3 * sizeof *out, cmp_tri);
}

START_TEST(draco_matches_the_uncompressed_rig) {
  skio_gltf_doc* d0 = load("cylinder_rig.glb");
  skio_gltf_doc* d1 = load("cylinder_rig_draco.glb");
  static prim a, b;
  skc_err err = {0};
  ck_assert_msg(read_prim(d0, &a, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(read_prim(d1, &b, &err) == SKC_OK, "%s", err.message);
  skio_gltf_accessor info;
  ck_assert_int_eq(skio_gltf_accessor_info(d1, attr_accessor(d1, "POSITION"), &info, &err), SKC_OK);
  ck_assert(info.draco && info.view < 0);
  ck_assert_int_eq(skio_gltf_accessor_info(d0, attr_accessor(d0, "POSITION"), &info, &err), SKC_OK);
  ck_assert(!info.draco);

  /* quantization steps: positions 14 bits over the largest bounding-box side (2), weights 12 bits over [0, 1],
   * normals 10 bits octahedral (about 2 / 2^10 per component, generously 4 steps) */
  const float pos_step = 2.0f / ((1 << 14) - 1), w_step = 1.0f / ((1 << 12) - 1), n_tol = 4 * 2.0f / (1 << 10);
  uint32_t cls[NV];
  for (uint32_t u = 0; u < NV; ++u) {
    cls[u] = u;
    for (uint32_t k = 0; k < u; ++k)
      if (memcmp(a.pos + 3 * k, a.pos + 3 * u, 12) == 0) {
        cls[u] = k;
        break;
      }
  }
  /* every Draco vertex: the original vertex at its position (within a step) with the closest normal and weights */
  uint32_t match[NV], dcls[NV];
  for (uint32_t v = 0; v < NV; ++v) {
    float best = INFINITY;
    uint32_t bu = 0;
    for (uint32_t u = 0; u < NV; ++u) {
      if (dist3(a.pos + 3 * u, b.pos + 3 * v) > pos_step) continue;
      float s = dist3(a.nrm + 3 * u, b.nrm + 3 * v);
      for (int c = 0; c < 4; ++c) s += fabsf(a.wgt[4 * u + c] - b.wgt[4 * v + c]);
      if (s < best) best = s, bu = u;
    }
    ck_assert_msg(isfinite(best), "Draco vertex %u (%g %g %g) is at no original position", v, b.pos[3 * v],
                  b.pos[3 * v + 1], b.pos[3 * v + 2]);
    match[v] = bu;
    dcls[v] = cls[bu];
  }
  float worst_p = 0, worst_n = 0, worst_w = 0, worst_sum = 0;
  for (uint32_t v = 0; v < NV; ++v) {
    uint32_t u = match[v];
    for (int c = 0; c < 3; ++c) {
      worst_p = fmaxf(worst_p, fabsf(a.pos[3 * u + c] - b.pos[3 * v + c]));
      worst_n = fmaxf(worst_n, fabsf(a.nrm[3 * u + c] - b.nrm[3 * v + c]));
    }
    float sum = 0;
    for (int c = 0; c < 4; ++c) {
      worst_w = fmaxf(worst_w, fabsf(a.wgt[4 * u + c] - b.wgt[4 * v + c]));
      sum += b.wgt[4 * v + c];
      /* joints are integers Draco keeps exactly (where the weight is not 0; padding joints are free) */
      if (a.wgt[4 * u + c] > 0) ck_assert_uint_eq(a.jnt[4 * u + c], b.jnt[4 * v + c]);
    }
    worst_sum = fmaxf(worst_sum, fabsf(sum - 1));
  }
  ck_assert_msg(worst_p <= 0.5f * pos_step * 1.01f, "position off by %g (step %g)", worst_p, pos_step);
  ck_assert_msg(worst_n <= n_tol, "normal off by %g", worst_n);
  ck_assert_msg(worst_w <= 0.5f * w_step * 1.01f, "weight off by %g (step %g)", worst_w, w_step);
  ck_assert_msg(worst_sum <= 2 * w_step, "weight sum off 1 by %g", worst_sum);

  /* the same triangles, corners compared through their positions */
  static uint32_t t0[NI], t1[NI];
  canonical_triangles(a.idx, cls, t0);
  canonical_triangles(b.idx, dcls, t1);
  ck_assert_msg(memcmp(t0, t1, sizeof t0) == 0, "the Draco indices describe other triangles");
  fprintf(stderr, "draco rig: position %.3g (step %.3g), normal %.3g, weight %.3g (step %.3g), sum %.3g\n", worst_p,
          pos_step, worst_n, worst_w, w_step, worst_sum);
  skio_gltf_doc_destroy(d0);
  skio_gltf_doc_destroy(d1);
}
END_TEST

/* A primitive without indices reads its attributes per triangle corner. */
START_TEST(unindexed_primitive_gets_corners) {
  size_t n;
  uint8_t* glb = slurp("cylinder_rig_draco.glb", &n);
  skio_gltf_doc* d1 = load("cylinder_rig_draco.glb");
  static prim b;
  skc_err err = {0};
  ck_assert_msg(read_prim(d1, &b, &err) == SKC_OK, "%s", err.message);
  edit_json(glb, n, "\"indices\":0,", "            ");
  for (int k = 0; k < 4; ++k) edit_json(glb, n, "\"count\":1122", "\"count\":6336");
  skio_gltf_doc* d = NULL;
  ck_assert_msg(skio_gltf_doc_parse(glb, n, NULL, &d, &err) == SKC_OK, "%s", err.message);
  float* pos = malloc(NI * 3 * sizeof *pos);
  uint32_t* jnt = malloc(NI * 4 * sizeof *jnt);
  ck_assert_msg(skio_gltf_accessor_floats(d, 1, pos, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(skio_gltf_accessor_uints(d, 3, jnt, &err) == SKC_OK, "%s", err.message);
  for (size_t k = 0; k < NI; ++k) {
    ck_assert(memcmp(pos + 3 * k, b.pos + 3 * b.idx[k], 12) == 0);
    ck_assert(memcmp(jnt + 4 * k, b.jnt + 4 * b.idx[k], 16) == 0);
  }
  free(pos);
  free(jnt);
  skio_gltf_doc_destroy(d);
  skio_gltf_doc_destroy(d1);
  free(glb);
}
END_TEST

/* Parses the edited file and reads the primitive: the first failing code. */
static int read_code(const uint8_t* glb, size_t n, char* msg, size_t cap) {
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  static prim p;
  int rc = skio_gltf_doc_parse(glb, n, NULL, &d, &err);
  if (!rc) rc = read_prim(d, &p, &err);
  if (!rc) rc = read_prim(d, &p, &err); /* again: decoded once, or failing the same way */
  if (msg) snprintf(msg, cap, "%s", err.message);
  skio_gltf_doc_destroy(d);
  return rc;
}

START_TEST(damaged_draco_data_is_a_format_error) {
  size_t n;
  uint8_t* orig = slurp("cylinder_rig_draco.glb", &n);
  uint8_t* glb = malloc(n);
  char msg[512];
  size_t len, at = draco_span(orig, n, &len);
  ck_assert(memcmp(orig + at, "DRACO", 5) == 0);
  struct { size_t from, len; uint8_t byte; } cases[] = {
      {0, 5, 'x'},                 /* magic */
      {5, 2, 0xFF},                /* version */
      {7, 1, 0},                   /* encoder type: a point cloud */
      {16, len - 16, 0},   /* everything after the header zeroed */
      {40, len - 40, 0xFF},
      {len / 2, len / 2, 0}, /* second half lost */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    memcpy(glb, orig, n);
    memset(glb + at + cases[c].from, cases[c].byte, cases[c].len);
    int rc = read_code(glb, n, msg, sizeof msg);
    ck_assert_msg(rc == SKC_FORMAT, "case %zu: code %d (%s)", c, rc, msg);
    ck_assert_msg(strstr(msg, "KHR_draco_mesh_compression") || strstr(msg, "Draco"), "case %zu: %s", c, msg);
  }
  /* the shim on its own: empty, garbage and a truncated stream */
  skio_draco_mesh* m = NULL;
  ck_assert_int_ne(skio_draco_decode(orig + at, 0, 0, 0, &m, msg, sizeof msg), 0);
  ck_assert_int_ne(skio_draco_decode((const uint8_t*)"DRACO\2\2\1\1\0\0\0", 12, 0, 0, &m, msg, sizeof msg), 0);
  ck_assert_int_ne(skio_draco_decode(orig + at, 100, 0, 0, &m, NULL, 0), 0);
  ck_assert(m == NULL);
  ck_assert_int_eq(skio_draco_decode(orig + at, len, NI / 3, NV, &m, msg, sizeof msg), 0);
  ck_assert_uint_eq(m->point_count, NV);
  ck_assert_uint_eq(m->face_count, NI / 3);
  ck_assert_uint_eq(m->attribute_count, 4);
  skio_draco_free(m);

  /* random damage inside the Draco bytes: decodes to something, or SKC_FORMAT; never a crash */
  skt_rng rng = {0x9e3779b97f4a7c15ull};
  int ok = 0, format = 0;
  for (int it = 0; it < 400; ++it) {
    memcpy(glb, orig, n);
    int hits = 1 + (int)(skt_rand_u32(&rng) % 8);
    for (int h = 0; h < hits; ++h) glb[at + skt_rand_u32(&rng) % len] = (uint8_t)skt_rand_u32(&rng);
    int rc = read_code(glb, n, msg, sizeof msg);
    ck_assert_msg(rc == SKC_OK || rc == SKC_FORMAT, "iteration %d: code %d (%s)", it, rc, msg);
    ok += rc == SKC_OK;
    format += rc == SKC_FORMAT;
  }
  fprintf(stderr, "draco random damage: %d decoded, %d SKC_FORMAT\n", ok, format);
  free(glb);
  free(orig);
}
END_TEST

START_TEST(bad_declarations_are_refused) {
  size_t n;
  uint8_t* orig = slurp("cylinder_rig_draco.glb", &n);
  uint8_t* glb = malloc(n);
  char msg[512];
  struct { const char* from; const char* to; int code; } cases[] = {
      {"\"count\":1122}", "\"count\":1121}", SKC_FORMAT},            /* NORMAL count off the decoded mesh */
      {"\"count\":6336", "\"count\":6333", SKC_FORMAT},              /* indices count */
      {"\"WEIGHTS_0\":3}", "\"WEIGHTS_0\":9}", SKC_FORMAT},          /* Draco id that is not in the data */
      {"\"WEIGHTS_0\":3}", "\"WEIGHTS_0\":\"3\"}", SKC_FORMAT},        /* id not an integer */
      {"\"WEIGHTS_0\":3}", "\"WEIGHTS_0\":0}", SKC_FORMAT},          /* POSITION's id: 3 components for a VEC4 */
      {"\"mode\":4", "\"mode\":5", SKC_UNSUPPORTED},                 /* triangle strip */
      {"\"bufferView\":1,\"attr", "\"bufferView\":7,\"attr", SKC_FORMAT}, /* Draco view out of range */
      {"\"bufferView\":1,\"attr", "\"bufferView\":0,\"attr", SKC_FORMAT}, /* view holding matrices, not Draco */
      {"\"VEC4\",\"componentType\":5123", "\"VEC3\",\"componentType\":5123", SKC_FORMAT}, /* JOINTS as VEC3 */
      {"\"VEC4\",\"componentType\":5126,\"count\":1122}", "\"VEC4\",\"componentType\":5121,\"count\":1122}",
       SKC_FORMAT}, /* WEIGHTS as plain bytes: 0.875 is no integer */
      {"\"SCALAR\",\"componentType\":5123", "\"SCALAR\",\"componentType\":5126", SKC_FORMAT}, /* float indices */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    memcpy(glb, orig, n);
    edit_json(glb, n, cases[c].from, cases[c].to);
    int rc = read_code(glb, n, msg, sizeof msg);
    ck_assert_msg(rc == cases[c].code, "case %zu (%s): code %d, wanted %d (%s)", c, cases[c].to, rc, cases[c].code,
                  msg);
  }
  free(glb);
  free(orig);
}
END_TEST

/* libdraco sizes its corner table from the header's face count before it reads anything that could contradict
 * it: a 7 KB stream (a fuzzer's mutant of cylinder_rig_draco.glb) naming 226 million faces made it allocate
 * 2.7 GB. The header is read first and held to the accessors' counts. */
START_TEST(header_counts_past_the_accessors_are_refused_before_decoding) {
  size_t n, len;
  char msg[512];
  uint8_t* glb = slurp("cylinder_rig_draco.glb", &n);
  size_t at = draco_span(glb, n, &len);
  /* "DRACO" 2.2 mesh edgebreaker, flags, traversal 0, then varints: 1058 vertices (a2 08), 2112 faces (c0 10) */
  ck_assert(memcmp(glb + at + 12, "\xa2\x08\xc0\x10", 4) == 0);
  skio_draco_mesh* m = NULL;
  ck_assert_int_ne(skio_draco_decode(glb + at, len, NI / 3 - 1, NV, &m, msg, sizeof msg), 0);
  ck_assert_msg(strstr(msg, "refused before decoding") && strstr(msg, "more triangles"), "%s", msg);
  glb[at + 14] = 0xff; /* faces 16383 (ff 7f), same length */
  glb[at + 15] = 0x7f;
  int rc = read_code(glb, n, msg, sizeof msg);
  ck_assert_msg(rc == SKC_FORMAT && strstr(msg, "refused before decoding"), "code %d: %s", rc, msg);
  free(glb);

  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  glb = slurp("../hostile/draco_header_226m_faces.glb", &n); /* kept out of tests/data: validate walks that */
  at = draco_span(glb, n, &len);
  ck_assert_int_ne(skio_draco_decode(glb + at, len, NI / 3, NV, &m, msg, sizeof msg), 0);
  ck_assert_msg(strstr(msg, "more triangles"), "%s", msg);
  ck_assert(m == NULL);
  rc = read_code(glb, n, msg, sizeof msg);
  ck_assert_msg(rc != SKC_OK && rc != SKC_OUT_OF_MEMORY, "code %d: %s", rc, msg);
  getrusage(RUSAGE_SELF, &after);
  ck_assert_msg(after.ru_maxrss - before.ru_maxrss < 100 * 1024, "peak grew by %ld KB", after.ru_maxrss - before.ru_maxrss);
  free(glb);
}
END_TEST

/* Streams whose header carries metadata (flag 0x8000): the counts come after it, in both methods. */
START_TEST(header_counts_are_found_past_metadata) {
  const char* names[] = {"grid_meta_edgebreaker.drc", "grid_meta_sequential.drc"};
  for (int i = 0; i < 2; ++i) {
    size_t n;
    char msg[256];
    uint8_t* drc = slurp(names[i], &n);
    ck_assert_uint_eq(drc[10] & 0x80, 0x80); /* flags (bytes 9-10, little-endian): metadata */
    skio_draco_mesh* m = NULL;
    ck_assert_msg(skio_draco_decode(drc, n, 18, 16, &m, msg, sizeof msg) == 0, "%s: %s", names[i], msg);
    ck_assert_uint_eq(m->face_count, 18);
    ck_assert_uint_eq(m->point_count, 16);
    skio_draco_free(m);
    ck_assert_int_ne(skio_draco_decode(drc, n, 17, 16, &m, msg, sizeof msg), 0);
    ck_assert_msg(strstr(msg, "more triangles"), "%s: %s", names[i], msg);
    if (i == 1) { /* sequential: points bounded too */
      ck_assert_int_ne(skio_draco_decode(drc, n, 18, 15, &m, msg, sizeof msg), 0);
      ck_assert_msg(strstr(msg, "more vertices"), "%s: %s", names[i], msg);
    }
    for (size_t cut = 12; cut < 40; ++cut) /* cut inside the metadata or the counts: an error, never a read past */
      ck_assert_int_ne(skio_draco_decode(drc, cut, 18, 16, &m, NULL, 0), 0);
    free(drc);
  }
}
END_TEST

/* ---- counts declared before compression (tests/data/draco_recount.glb) -------------------------------------- */

/* FBX2glTF 0.9.7 -d declares the vertex count before Draco split vertices (textured_rig.fbx: 424 declared, 426
 * decoded); draco_recount.glb's Draco attributes declare 1120 of the 1122 points its data decodes to. Read as
 * decoded (glTF-Transform and three.js do), the values those of cylinder_rig_draco.glb, which declares 1122; the
 * uncompressed morph target written with the decoded count maps onto the points. Before: SKC_FORMAT, "its count
 * differs from the decoded Draco mesh". */
START_TEST(counts_declared_before_compression_read_as_decoded) {
  skio_gltf_doc* d0 = load("cylinder_rig_draco.glb");
  skio_gltf_doc* d1 = load("draco_recount.glb");
  static prim a, b;
  skc_err err = {0};
  skio_gltf_accessor info;
  ck_assert_msg(skio_gltf_accessor_info(d1, attr_accessor(d1, "POSITION"), &info, &err) == SKC_OK, "%.400s",
                err.message);
  ck_assert(info.draco);
  ck_assert_uint_eq(info.count, NV);
  ck_assert_uint_eq(info.declared_count, NV - 2);
  ck_assert_int_eq(skio_gltf_accessor_decl(d1, attr_accessor(d1, "POSITION"), &info, &err), SKC_OK);
  ck_assert_uint_eq(info.count, NV - 2); /* the declaration as written */
  ck_assert_msg(read_prim(d0, &a, &err) == SKC_OK, "%.400s", err.message);
  ck_assert_msg(read_prim(d1, &b, &err) == SKC_OK, "%.400s", err.message);
  ck_assert(memcmp(&a, &b, sizeof a) == 0);
  float* target = malloc(NV * 3 * sizeof *target);
  ck_assert_msg(skio_gltf_accessor_floats(d1, 6, target, &err) == SKC_OK, "%.400s", err.message);
  free(target);
  skio_gltf_doc_destroy(d0);
  skio_gltf_doc_destroy(d1);
}
END_TEST

/* What cannot be mapped onto the decoded points is refused, naming it: data outside the Draco stream with the
 * declared count (FBX2glTF's shape_key_leg.fbx: its morph targets, 648 for 652 points), and a Draco attribute whose
 * count is neither the decoded one nor the one its primitive's other Draco attributes declare. */
START_TEST(counts_that_cannot_be_mapped_are_refused) {
  size_t n;
  uint8_t* orig = slurp("draco_recount.glb", &n);
  uint8_t* glb = malloc(n);
  char msg[512];
  struct {
    const char* from;
    const char* to;
    const char* says;
  } cases[] = {
      {"\"count\":1122", "\"count\":1120", "morph target 0 POSITION (accessors[6]"},
      {"\"POSITION\":0,\"NORMAL\":1,", "\"POSITION\":0,", "NORMAL (accessors[2]"},
      {"\"VEC3\",\"componentType\":5126,\"count\":1120}", "\"VEC3\",\"componentType\":5126,\"count\":1121}",
       "other Draco attributes"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    memcpy(glb, orig, n);
    edit_json(glb, n, cases[c].from, cases[c].to);
    skio_gltf_doc* d = NULL;
    skc_err err = {0};
    ck_assert_msg(skio_gltf_doc_parse(glb, n, NULL, &d, &err) == SKC_OK, "%.400s", err.message);
    skio_gltf_accessor info;
    int rc = skio_gltf_accessor_info(d, attr_accessor(d, "POSITION"), &info, &err);
    snprintf(msg, sizeof msg, "%s", err.message);
    ck_assert_msg(rc == SKC_FORMAT && strstr(msg, cases[c].says), "case %zu: code %d: %.400s", c, rc, msg);
    ck_assert_msg(c == 2 || (strstr(msg, "the Draco data 1122 points") &&
                             strstr(msg, "cannot be mapped onto points Draco reordered")),
                  "%.400s", msg);
    ck_assert_int_eq(read_code(glb, n, msg, sizeof msg), SKC_FORMAT); /* every read, every time */
    skio_gltf_doc_destroy(d);
  }
  free(glb);
  free(orig);
}
END_TEST

/* The scene: the reader notes the primitive and both counts, validate reports it (SKIO_SKIN_DRACO_COUNT), and an
 * edit of the weights declares every decoded accessor with the count its data has, the count the new uncompressed
 * JOINTS_0 / WEIGHTS_0 get (else the primitive's attributes would disagree: 1120 against 1122). */
START_TEST(recounted_scene_is_noted_reported_and_edited_consistently) {
  skc_err err = {0};
  skio_scene *s = NULL, *back = NULL;
  ck_assert_msg(skio_scene_import(data_path("draco_recount.glb"), NULL, &s, &err) == SKC_OK, "%.400s", err.message);
  ck_assert_uint_eq(s->meshes[0].vertex_count, NV);
  ck_assert_uint_eq(s->meshes[0].morph_count, 1);
  const char* note = s->material_note ? s->material_note : "";
  ck_assert_msg(
      strstr(note, "mesh 0 primitive 0") && strstr(note, "declare 1120 vertices") && strstr(note, "decodes to 1122"),
      "%.400s", note);
  skio_mesh_report r;
  ck_assert_int_eq(skio_mesh_validate(s, 0, 0, 0, &r, &err), SKC_OK);
  ck_assert(r.findings && (r.skin_structure & SKIO_SKIN_DRACO_COUNT));

  skc_skin* k = (skc_skin*)s->meshes[0].skin;
  for (uint32_t e = k->offsets[0]; e < k->offsets[1]; ++e) k->weights[e] = e == k->offsets[0] ? 1.0f : 0.0f;
  char dir[256], out[400], wnote[400] = "";
  skt_tmpdir_make(dir, sizeof dir, "draco_recount");
  snprintf(out, sizeof out, "%s/edited.glb", dir);
  skio_export_options eo = {.overwrite = true, .keep_all = true, .note = wnote, .note_size = sizeof wnote};
  ck_assert_msg(skio_scene_export(s, out, &eo, &err) == SKC_OK, "%.400s", err.message);
  ck_assert_msg(!strstr(wnote, "written from the scene"), "%.400s", wnote);
  skio_gltf_doc* d = load_path(out);
  int pt = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", 0), "primitives"), 0);
  ck_assert(skio_json_get(d, skio_json_get(d, pt, "extensions"), "KHR_draco_mesh_compression") >= 0);
  const char* names[] = {"POSITION", "NORMAL", "JOINTS_0", "WEIGHTS_0"};
  for (int i = 0; i < 4; ++i) {
    skio_gltf_accessor a;
    ck_assert_int_eq(skio_gltf_accessor_info(d, attr_accessor(d, names[i]), &a, &err), SKC_OK);
    ck_assert_msg(a.count == NV && a.declared_count == NV, "%s: %zu declared %zu", names[i], a.count, a.declared_count);
  }
  skio_gltf_doc_destroy(d);
  ck_assert_msg(skio_scene_import(out, NULL, &back, &err) == SKC_OK, "%.400s", err.message);
  ck_assert_ptr_null(back->material_note ? strstr(back->material_note, "KHR_draco") : NULL);
  ck_assert_uint_eq(back->meshes[0].vertex_count, NV);
  ck_assert(memcmp(back->meshes[0].positions, s->meshes[0].positions, NV * 3 * sizeof(float)) == 0);
  ck_assert_uint_eq(back->meshes[0].skin->offsets[1], 1);
  skio_scene_destroy(back);
  skio_scene_destroy(s);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("gltf_draco");
  TCase* tc = tcase_create("draco");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, draco_matches_the_uncompressed_rig);
  tcase_add_test(tc, unindexed_primitive_gets_corners);
  tcase_add_test(tc, damaged_draco_data_is_a_format_error);
  tcase_add_test(tc, bad_declarations_are_refused);
  tcase_add_test(tc, header_counts_past_the_accessors_are_refused_before_decoding);
  tcase_add_test(tc, header_counts_are_found_past_metadata);
  tcase_add_test(tc, counts_declared_before_compression_read_as_decoded);
  tcase_add_test(tc, counts_that_cannot_be_mapped_are_refused);
  tcase_add_test(tc, recounted_scene_is_noted_reported_and_edited_consistently);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
