/* test_skf_cor.c - centres of rotation in .skf (CORC chunks, format 3.2): round trips within the documented bound
 * (generated cylinder with the twist and bend figures of test_cor after the round trip, random welded meshes in
 * every profile, the corpus CesiumMan files), files without centres unchanged and reported absent, old-size
 * descs, and hostile chunk sizes and contents refused. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sk_testutil.h"
#include "skf.h"
#include "skinkit.h"

#define PI_F 3.14159265358979f

/* ---- helpers ------------------------------------------------------------------------------------------------ */
static sk_skeleton* make_skeleton(uint32_t n) {
  int32_t* parents = malloc(n * sizeof *parents);
  for (uint32_t i = 0; i < n; ++i) parents[i] = i == 0 ? -1 : (int32_t)((i - 1) / 2);
  float* rest = calloc(16 * (size_t)n, sizeof *rest);
  for (uint32_t i = 0; i < n; ++i) rest[16 * i + 0] = rest[16 * i + 5] = rest[16 * i + 10] = rest[16 * i + 15] = 1.0f;
  sk_skeleton_desc d = {0};
  d.size = sizeof d;
  d.joint_count = n;
  d.parents = parents;
  d.rest_local = rest;
  sk_skeleton* s = NULL;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, NULL), SK_OK);
  free(parents);
  free(rest);
  return s;
}

/* sk_cor_compute on a mesh (positions, triangles, skin) into a new array. */
static float* centers_of(const float* pos, size_t nv, const uint32_t* ix, size_t ni, const sk_skin* skin) {
  float* c = malloc(3 * nv * sizeof *c + 4);
  if (!nv) return c;
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  ck_assert_int_eq(sk_skin_get_csr(skin, off, NULL, NULL, NULL), SK_OK);
  uint32_t* jn = malloc(off[nv] * sizeof *jn + 4);
  float* wt = malloc(off[nv] * sizeof *wt + 4);
  ck_assert_int_eq(sk_skin_get_csr(skin, off, jn, wt, NULL), SK_OK);
  sk_error e;
  ck_assert_msg(sk_cor_compute(pos, nv, ix, ni / 3, off, jn, wt, sk_skin_joint_count(skin), 0.0f, 0, c, &e) == SK_OK,
                "%s", e.message);
  free(off);
  free(jn);
  free(wt);
  return c;
}

static unsigned char* encode_c(const sk_skeleton* skel, const sk_skf_mesh* ms, uint32_t mc, const float* const* cs,
                               uint32_t flags, uint32_t desc_size, size_t* out_size) {
  sk_skf_encode_desc d = {0};
  d.size = desc_size ? desc_size : (uint32_t)sizeof d;
  d.flags = flags;
  d.skeleton = skel;
  d.meshes = ms;
  d.mesh_count = mc;
  d.centers = cs;
  return skt_skf_encode(&d, out_size);
}

/* The documented bound of one component: half the grid step of the centres' extent on that axis (1/65535 of it),
 * plus the float rounding of origin + step * q. ext over all vertices is >= the stored vertices' extent. */
static void bounds_of(const float* c, size_t nv, double tol[3]) {
  for (int a = 0; a < 3; ++a) {
    double lo = 0, hi = 0, mag = 0;
    for (size_t v = 0; v < nv; ++v) {
      double x = c[3 * v + (size_t)a];
      if (!v || x < lo) lo = x;
      if (!v || x > hi) hi = x;
      if (fabs(x) > mag) mag = fabs(x);
    }
    tol[a] = 0.5 * (hi - lo) / 65535.0 * (1.0 + 1e-4) + 4.0 * FLT_EPSILON * mag;
  }
}

/* Decodes mesh m with centres through the ABI and the runtime decoder (same values); returns the largest error
 * relative to the bound (<= 1 passes) and the largest absolute error in *abs_err. */
static double check_centers(const unsigned char* f, size_t size, uint32_t m, const sk_skf_mesh* src, const float* c,
                            float* out, double* abs_err) {
  size_t nv = sk_skin_vertex_count(src->skin);
  sk_skf_mesh_info mi = {0};
  mi.size = sizeof mi;
  ck_assert_int_eq(sk_skf_get_mesh_info(f, size, m, &mi, NULL), SK_OK);
  ck_assert_uint_eq(mi.has_centers, 1);
  uint16_t* jw = malloc(nv * 8 * 2 * sizeof *jw + 4);
  sk_skf_decode_desc d = {0};
  d.size = sizeof d;
  d.mesh = m;
  d.influences = 8;
  d.joints = jw;
  d.weights = jw + nv * 8;
  d.weight_type = SK_TYPE_U16;
  d.vertex_capacity = nv;
  d.indices = src->indices;
  d.index_count = mi.order ? src->index_count : 0;
  d.positions = src->positions;
  d.centers = out;
  sk_error err;
  ck_assert_msg(sk_skf_decode(f, size, &d, &err) == SK_OK, "mesh %u: %s", m, err.message);
  /* the runtime decoder, reused, gives the same floats */
  float* again = malloc(3 * nv * sizeof *again + 4);
  skf_mesh_output o;
  memset(&o, 0, sizeof o);
  o.joints = jw;
  o.weights = jw + nv * 8;
  o.vertex_capacity = nv;
  o.influences = 8;
  o.joint_bytes = o.weight_bytes = 2;
  o.indices = d.indices;
  o.index_count = d.index_count;
  o.positions = src->positions;
  o.centers = again;
  skf_decoder* dec = skf_decoder_create();
  skf_error e;
  for (int pass = 0; pass < 2; ++pass)
    ck_assert_msg(skf_decoder_decode_mesh(dec, f, size, m, &o, &e) == SKF_OK, "%s", e.message);
  skf_decoder_destroy(dec);
  ck_assert(memcmp(again, out, 3 * nv * sizeof *out) == 0);
  free(again);
  free(jw);
  double tol[3], worst = 0, worst_abs = 0;
  bounds_of(c, nv, tol);
  for (size_t v = 0; v < nv; ++v)
    for (int a = 0; a < 3; ++a) {
      double e1 = fabs((double)out[3 * v + (size_t)a] - c[3 * v + (size_t)a]);
      if (e1 > worst_abs) worst_abs = e1;
      if (tol[a] > 0 && e1 / tol[a] > worst) worst = e1 / tol[a];
      if (tol[a] == 0) ck_assert(e1 == 0);
    }
  if (abs_err) *abs_err = worst_abs;
  return worst;
}

/* ---- the cylinder: COR's twist and bend figures hold with decoded centres ----------------------------------- */
typedef struct cyl {
  size_t nv, nt;
  float *pos, *nrm;
  uint32_t* tri;
  sk_skin* skin;
} cyl;

static cyl make_cyl(void) {
  cyl r;
  memset(&r, 0, sizeof r);
  sk_cylinder_desc d;
  memset(&d, 0, sizeof d);
  d.size = sizeof d;
  d.segments = 32;
  d.rings = 64;
  d.bones = 2;
  d.blend = 0.25f;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &r.nv, &r.nt, NULL, NULL, NULL, NULL, NULL), SK_OK);
  r.pos = malloc(3 * r.nv * sizeof(float));
  r.nrm = malloc(3 * r.nv * sizeof(float));
  r.tri = malloc(3 * r.nt * sizeof(uint32_t));
  ck_assert_int_eq(sk_skin_create(r.nv, 2, &r.skin, NULL), SK_OK);
  ck_assert_int_eq(sk_mesh_cylinder(&d, &r.nv, &r.nt, r.pos, r.nrm, r.tri, r.skin, NULL), SK_OK);
  return r;
}

static void cor_deform(const cyl* r, const float* pal, const float* centers, float* out) {
  uint32_t* off = malloc((r->nv + 1) * sizeof *off);
  ck_assert_int_eq(sk_skin_get_csr(r->skin, off, NULL, NULL, NULL), SK_OK);
  uint32_t* jn = malloc(off[r->nv] * sizeof *jn + 4);
  float* wt = malloc(off[r->nv] * sizeof *wt + 4);
  ck_assert_int_eq(sk_skin_get_csr(r->skin, off, jn, wt, NULL), SK_OK);
  sk_deform_job j;
  memset(&j, 0, sizeof j);
  j.size = sizeof j;
  j.method = SK_DEFORM_COR;
  j.threads = 1;
  j.vertex_count = r->nv;
  j.palette = pal;
  j.joint_count = 2;
  j.csr_offsets = off;
  j.csr_joints = jn;
  j.csr_weights = wt;
  j.in_positions = r->pos;
  j.out_positions = out;
  j.centers = centers;
  sk_error e;
  ck_assert_msg(sk_deform_run(&j, &e) == SK_OK, "%s", e.message);
  free(off);
  free(jn);
  free(wt);
}

static double ring_radius(const cyl* r, const float* out, float x0) {
  double sum = 0;
  int n = 0;
  for (size_t v = 0; v < r->nv; ++v) {
    if (fabsf(r->pos[3 * v] - x0) > 1e-4f || fabsf(r->nrm[3 * v]) > 0.5f) continue;
    sum += sqrt((double)out[3 * v + 1] * out[3 * v + 1] + (double)out[3 * v + 2] * out[3 * v + 2]);
    ++n;
  }
  return n ? sum / n : 0;
}

static double volume(const cyl* r, const float* p) {
  double v = 0;
  for (size_t t = 0; t < r->nt; ++t) {
    const float *a = p + 3 * (size_t)r->tri[3 * t], *b = p + 3 * (size_t)r->tri[3 * t + 1],
                *c = p + 3 * (size_t)r->tri[3 * t + 2];
    v += ((double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
          (double)a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
          (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6.0;
  }
  return v;
}

START_TEST(cylinder_twist_bend_after_round_trip) {
  cyl r = make_cyl();
  sk_skeleton* skel = make_skeleton(2);
  float* c = centers_of(r.pos, r.nv, r.tri, 3 * r.nt, r.skin);
  sk_skf_mesh m = {r.skin, r.pos, r.tri, 3 * r.nt};
  const float* cs[1] = {c};
  size_t size, plain_size;
  unsigned char* f = encode_c(skel, &m, 1, cs, 0, 0, &size);
  unsigned char* plain = encode_c(skel, &m, 1, NULL, 0, 0, &plain_size);
  float* dc = malloc(3 * r.nv * sizeof *dc);
  double abs_err, rel = check_centers(f, size, 0, &m, c, dc, &abs_err);
  printf("cylinder (%zu vertices): centres %zu bytes stored (file %zu vs %zu without), max error %.3g (%.3f of the "
         "bound)\n", r.nv, size - plain_size, size, plain_size, abs_err, rel);
  ck_assert_double_le(rel, 1.0);
  float pal[32], *a = malloc(3 * r.nv * sizeof *a), *b = malloc(3 * r.nv * sizeof *b);
  memset(pal, 0, sizeof pal);
  pal[0] = pal[5] = pal[10] = pal[15] = 1.0f;
  /* 180 degree twist: the middle ring keeps its radius with the decoded centres as with the computed ones */
  skt_rot_about(0, PI_F, 1.0f, pal + 16);
  cor_deform(&r, pal, c, a);
  cor_deform(&r, pal, dc, b);
  double rest = ring_radius(&r, r.pos, 1.0f), ra = ring_radius(&r, a, 1.0f), rb = ring_radius(&r, b, 1.0f), dmax = 0;
  for (size_t i = 0; i < 3 * r.nv; ++i) dmax = fmax(dmax, fabs((double)a[i] - b[i]));
  printf("twist 180: middle ring %.2f %% of rest (computed centres %.2f %%), largest position change %.3g\n",
         100.0 * rb / rest, 100.0 * ra / rest, dmax);
  ck_assert_double_ge(rb, 0.95 * rest);
  ck_assert_double_le(dmax, 4.0 * abs_err + 1e-6); /* COR moves a vertex by at most ~2x its centre's error */
  /* 90 degree bend: the volume within 2 % as with the computed centres */
  skt_rot_about(2, 0.5f * PI_F, 1.0f, pal + 16);
  cor_deform(&r, pal, c, a);
  cor_deform(&r, pal, dc, b);
  double v0 = volume(&r, r.pos), va = volume(&r, a), vb = volume(&r, b);
  printf("bend 90: volume %+.3f %% (computed centres %+.3f %%)\n", 100.0 * (vb - v0) / v0, 100.0 * (va - v0) / v0);
  ck_assert_double_lt(fabs(vb - v0) / v0, 0.02);
  ck_assert_double_lt(fabs(vb - va) / v0, 1e-4);
  /* the influences decode as from the file without centres */
  uint8_t j1[4 * 4096], j2[4 * 4096];
  ck_assert_uint_le(r.nv, 4096);
  for (int pass = 0; pass < 2; ++pass) {
    sk_skf_decode_desc d = {0};
    d.size = sizeof d;
    d.influences = 4;
    d.joint_type = SK_TYPE_U8;
    d.joints = pass ? j2 : j1;
    d.weights = malloc(4 * r.nv);
    d.vertex_capacity = r.nv;
    d.indices = r.tri;
    d.index_count = 3 * r.nt;
    d.positions = r.pos;
    ck_assert_int_eq(sk_skf_decode(pass ? plain : f, pass ? plain_size : size, &d, NULL), SK_OK);
    free(d.weights);
  }
  ck_assert(memcmp(j1, j2, 4 * r.nv) == 0);
  free(a);
  free(b);
  free(dc);
  free(c);
  free(f);
  free(plain);
  sk_skeleton_destroy(skel);
  sk_skin_destroy(r.skin);
  free(r.pos);
  free(r.nrm);
  free(r.tri);
}
END_TEST

/* ---- random meshes: welded copies, exceptions, empty mesh, every profile ------------------------------------ */
static sk_skin* random_skin(skt_rng* r, size_t nv, uint32_t nj, float* pos) {
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  uint32_t* jo = malloc(nv * 4 * sizeof *jo + 4);
  float* we = malloc(nv * 4 * sizeof *we + 4);
  uint32_t e = 0;
  off[0] = 0;
  for (size_t v = 0; v < nv; ++v) {
    size_t u = v;
    pos[3 * v] = skt_rand_range(r, -1.0f, 1.0f);
    pos[3 * v + 1] = skt_rand_range(r, -1.0f, 1.0f);
    pos[3 * v + 2] = (float)v * 0.01f;
    if (v > 4 && skt_rand_u32(r) % 3 == 0) { /* a copy of a recent vertex (an exception when kind == 0) */
      u = v - 1 - skt_rand_u32(r) % 4;
      memcpy(pos + 3 * v, pos + 3 * u, 12);
    }
    uint32_t n = 1 + skt_rand_u32(r) % 3, kind = skt_rand_u32(r) % 10;
    if (u != v && kind) {
      for (uint32_t i = off[u]; i < off[u + 1]; ++i) {
        jo[e] = jo[i];
        we[e++] = we[i];
      }
    } else {
      for (uint32_t i = 0; i < n; ++i) {
        jo[e] = (uint32_t)((v / 16 + i) % nj);
        we[e++] = skt_rand_range(r, 0.05f, 1.0f);
      }
    }
    off[v + 1] = e;
  }
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(nv, nj, &s, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(s, off, jo, we, NULL), SK_OK);
  free(off);
  free(jo);
  free(we);
  return s;
}

static uint32_t* strip_triangles(size_t nv, size_t* ni) {
  *ni = nv > 2 ? 3 * (nv - 2) : 0;
  uint32_t* ix = malloc(*ni * sizeof *ix + 4);
  for (size_t t = 0; t + 2 < nv; ++t) {
    ix[3 * t] = (uint32_t)t;
    ix[3 * t + 1] = (uint32_t)(t + 1);
    ix[3 * t + 2] = (uint32_t)(t + 2);
  }
  return ix;
}

START_TEST(random_meshes_round_trip) {
  skt_rng r = {77u + (uint64_t)_i};
  static const uint32_t flags[4] = {0, SK_SKF_NO_WELD, SK_SKF_FILE_ORDER, SK_SKF_FAST};
  sk_skeleton* skel = make_skeleton(12);
  const size_t counts[3] = {2000, 0, 317};
  sk_skf_mesh ms[3];
  float* cs[3];
  for (int m = 0; m < 3; ++m) {
    float* pos = malloc(3 * counts[m] * sizeof *pos + 4);
    size_t ni;
    uint32_t* ix = strip_triangles(counts[m], &ni);
    ms[m].skin = random_skin(&r, counts[m], 12, pos);
    ms[m].positions = pos;
    ms[m].indices = ix;
    ms[m].index_count = ni;
    cs[m] = centers_of(pos, counts[m], ix, ni, ms[m].skin);
  }
  size_t size, plain_size;
  unsigned char* f = encode_c(skel, ms, 3, (const float* const*)cs, flags[_i], 0, &size);
  unsigned char* plain = encode_c(skel, ms, 3, NULL, flags[_i], 0, &plain_size);
  sk_skf_info info;
  info.size = sizeof info;
  ck_assert_int_eq(sk_skf_peek(f, size, &info, NULL), SK_OK);
  ck_assert_uint_eq(info.minor, 2);
  ck_assert_int_eq(sk_skf_peek(plain, plain_size, &info, NULL), SK_OK);
  ck_assert_uint_eq(info.minor, _i == 3 ? 1 : 0);
  for (uint32_t m = 0; m < 3; ++m) {
    float* out = malloc(3 * counts[m] * sizeof *out + 4);
    ck_assert_double_le(check_centers(f, size, m, &ms[m], cs[m], out, NULL), 1.0);
    free(out);
  }
  /* the welded encoding's copies: same position and canonical influences; their computed centres agree with the
   * centre of the vertex they copy to the bound (every vertex was checked above against its own centre) */
  sk_skf_mesh_info mi = {0};
  mi.size = sizeof mi;
  ck_assert_int_eq(sk_skf_get_mesh_info(f, size, 0, &mi, NULL), SK_OK);
  if (_i == 0 || _i == 2) ck_assert_uint_eq(mi.order, 2);
  free(f);
  free(plain);
  for (int m = 0; m < 3; ++m) {
    free(cs[m]);
    free((void*)ms[m].positions);
    free((void*)ms[m].indices);
    sk_skin_destroy((sk_skin*)ms[m].skin);
  }
  sk_skeleton_destroy(skel);
}
END_TEST

/* ---- absent centres, old desc sizes, encode errors --------------------------------------------------------- */
static unsigned char* small_case(sk_skeleton** skel, sk_skf_mesh* m, float** c, size_t* size, size_t* plain_size,
                                 unsigned char** plain) {
  skt_rng r = {5};
  float* pos = malloc(3 * 200 * sizeof *pos);
  size_t ni;
  *skel = make_skeleton(6);
  m->skin = random_skin(&r, 200, 6, pos);
  m->positions = pos;
  m->indices = strip_triangles(200, &ni);
  m->index_count = ni;
  *c = centers_of(pos, 200, m->indices, ni, m->skin);
  const float* cs[1] = {*c};
  *plain = encode_c(*skel, m, 1, NULL, 0, 0, plain_size);
  return encode_c(*skel, m, 1, cs, 0, 0, size);
}

static void free_small(sk_skeleton* skel, sk_skf_mesh* m, float* c) {
  sk_skeleton_destroy(skel);
  sk_skin_destroy((sk_skin*)m->skin);
  free((void*)m->positions);
  free((void*)m->indices);
  free(c);
}

static sk_result decode_into(const unsigned char* f, size_t size, const sk_skf_mesh* m, uint32_t desc_size,
                             float* centers, unsigned char* jw, sk_error* err) {
  sk_skf_decode_desc d = {0};
  d.size = desc_size;
  d.influences = 4;
  d.joint_type = SK_TYPE_U8;
  d.joints = jw;
  d.weights = jw + 800;
  d.vertex_capacity = 200;
  d.indices = m->indices;
  d.index_count = m->index_count;
  d.positions = m->positions;
  d.centers = centers;
  return sk_skf_decode(f, size, &d, err);
}

START_TEST(absent_and_old_sizes) {
  sk_skeleton* skel;
  sk_skf_mesh m;
  float* c;
  size_t size, plain_size;
  unsigned char* plain;
  unsigned char* f = small_case(&skel, &m, &c, &size, &plain_size, &plain);
  float out[600];
  unsigned char ja[1600], jb[1600];
  sk_error err;
  /* a file without centres: has_centers 0, asking for them is SK_ERR_NOT_FOUND with nothing written */
  sk_skf_mesh_info mi = {0};
  mi.size = sizeof mi;
  ck_assert_int_eq(sk_skf_get_mesh_info(plain, plain_size, 0, &mi, NULL), SK_OK);
  ck_assert_uint_eq(mi.has_centers, 0);
  memset(out, 0x5a, sizeof out);
  memset(ja, 0x5a, sizeof ja);
  ck_assert_int_eq(decode_into(plain, plain_size, &m, sizeof(sk_skf_decode_desc), out, ja, &err), SK_ERR_NOT_FOUND);
  ck_assert_msg(strstr(err.message, "no centres") != NULL, "%s", err.message);
  for (size_t i = 0; i < sizeof ja; ++i) ck_assert_uint_eq(ja[i], 0x5a);
  for (size_t i = 0; i < 600; ++i) ck_assert_uint_eq(((unsigned char*)out)[i], 0x5a);
  /* with centres: the same joints and weights as the plain file, with or without asking for the centres */
  ck_assert_int_eq(decode_into(plain, plain_size, &m, sizeof(sk_skf_decode_desc), NULL, ja, NULL), SK_OK);
  ck_assert_int_eq(decode_into(f, size, &m, sizeof(sk_skf_decode_desc), out, jb, NULL), SK_OK);
  ck_assert(memcmp(ja, jb, sizeof ja) == 0);
  ck_assert_int_eq(decode_into(f, size, &m, sizeof(sk_skf_decode_desc), NULL, jb, NULL), SK_OK);
  ck_assert(memcmp(ja, jb, sizeof ja) == 0);
  /* a 1.2-1.4 sized decode desc never reads centers; a 1.4 sized encode desc stores none (byte-identical) */
  ck_assert_int_eq(decode_into(plain, plain_size, &m, (uint32_t)offsetof(sk_skf_decode_desc, centers), out, jb, NULL),
                   SK_OK);
  size_t old_size;
  const float* cs[1] = {c};
  unsigned char* old = encode_c(skel, &m, 1, cs, 0, (uint32_t)offsetof(sk_skf_encode_desc, centers), &old_size);
  ck_assert_uint_eq(old_size, plain_size);
  ck_assert(memcmp(old, plain, plain_size) == 0);
  free(old);
  /* a 1.2-1.4 sized mesh info gets the fields before has_centers only */
  sk_skf_mesh_info small;
  memset(&small, 0x77, sizeof small);
  small.size = (uint32_t)offsetof(sk_skf_mesh_info, has_centers);
  ck_assert_int_eq(sk_skf_get_mesh_info(f, size, 0, &small, NULL), SK_OK);
  ck_assert_uint_eq(small.has_centers, 0x77777777u);
  ck_assert_int_eq(sk_skf_get_mesh_info(f, size, 0, &mi, NULL), SK_OK);
  ck_assert_uint_eq(small.coded_count, mi.coded_count);
  /* encode errors: a NULL entry, a non-finite centre */
  sk_skf_encode_desc d = {0};
  d.size = sizeof d;
  d.skeleton = skel;
  d.meshes = &m;
  d.mesh_count = 1;
  const float* none[1] = {NULL};
  d.centers = none;
  unsigned char buf[8];
  size_t n;
  ck_assert_int_eq(sk_skf_encode(&d, buf, sizeof buf, &n, NULL), SK_ERR_INVALID_ARGUMENT);
  ck_assert_uint_eq(sk_skf_encode_bound(&d), 0);
  c[7] = NAN;
  d.centers = cs;
  ck_assert_int_eq(sk_skf_encode(&d, buf, sizeof buf, &n, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err.message, "not finite") != NULL, "%s", err.message);
  free(f);
  free(plain);
  free_small(skel, &m, c);
}
END_TEST

/* ---- hostile CORC chunks ----------------------------------------------------------------------------------- */
static uint32_t rd32(const unsigned char* p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static void fix_crcs(unsigned char* f, size_t n) {
  wr32(f + 56, (uint32_t)crc32(0, f + 64, (uInt)(n - 64)));
  wr32(f + 60, (uint32_t)crc32(0, f, 60));
}
/* Offset of the CORC chunk header (the file has one). */
static size_t corc_at(const unsigned char* f, size_t n) {
  size_t p = 64;
  while (p + 12 <= n && memcmp(f + p, "CORC", 4)) p += 12 + rd32(f + p + 4);
  ck_assert_uint_lt(p + 12, n);
  return p;
}
/* The file with its CORC chunk replaced by raw (deflated) and the raw size field set to claim. */
static unsigned char* with_corc(const unsigned char* f, size_t n, const unsigned char* raw, size_t raw_n,
                                uint32_t claim, size_t* out_n) {
  size_t at = corc_at(f, n), old = 12 + rd32(f + at + 4);
  uLongf zn = compressBound((uLong)raw_n);
  unsigned char* z = malloc(zn);
  ck_assert_int_eq(compress2(z, &zn, raw, (uLong)raw_n, 9), Z_OK);
  *out_n = n - old + 12 + zn;
  unsigned char* g = malloc(*out_n);
  memcpy(g, f, at);
  memcpy(g + at, "CORC", 4);
  wr32(g + at + 4, (uint32_t)zn);
  wr32(g + at + 8, claim);
  memcpy(g + at + 12, z, zn);
  memcpy(g + at + 12 + zn, f + at + old, n - at - old);
  uint64_t payload = *out_n - 64;
  wr32(g + 40, (uint32_t)payload);
  wr32(g + 44, (uint32_t)(payload >> 32));
  fix_crcs(g, *out_n);
  free(z);
  return g;
}

START_TEST(hostile_chunks) {
  sk_skeleton* skel;
  sk_skf_mesh m;
  float* c;
  size_t size, plain_size, gn;
  unsigned char* plain;
  unsigned char* f = small_case(&skel, &m, &c, &size, &plain_size, &plain);
  float out[600];
  unsigned char jw[1600];
  sk_skf_mesh_info mi = {0};
  mi.size = sizeof mi;
  ck_assert_int_eq(sk_skf_get_mesh_info(f, size, 0, &mi, NULL), SK_OK);
  /* the real raw chunk, inflated */
  size_t at = corc_at(f, size);
  uLongf rn = rd32(f + at + 8);
  ck_assert_uint_eq(rn, SKF_CORC_HEAD_SIZE + 6u * mi.coded_count);
  unsigned char* raw = malloc(rn + 64);
  ck_assert_int_eq(uncompress(raw, &rn, f + at + 12, rd32(f + at + 4)), Z_OK);
  unsigned char* g;
  sk_error err;
  /* a raw size that deflate cannot produce, and one that disagrees with the mesh's coded_count */
  g = malloc(size);
  memcpy(g, f, size);
  wr32(g + at + 8, 0xfffffff0u);
  fix_crcs(g, size);
  ck_assert_int_eq(decode_into(g, size, &m, sizeof(sk_skf_decode_desc), out, jw, &err), SK_ERR_FORMAT);
  ck_assert_int_eq(decode_into(g, size, &m, sizeof(sk_skf_decode_desc), NULL, jw, &err), SK_ERR_FORMAT); /* the walk */
  wr32(g + at + 8, (uint32_t)rn + 6);
  fix_crcs(g, size);
  ck_assert_int_eq(decode_into(g, size, &m, sizeof(sk_skf_decode_desc), out, jw, &err), SK_ERR_FORMAT);
  ck_assert_msg(strstr(err.message, "does not hold") != NULL, "%s", err.message);
  ck_assert_int_eq(decode_into(g, size, &m, sizeof(sk_skf_decode_desc), NULL, jw, NULL), SK_OK); /* not read */
  /* an unknown tag is skipped: the file reads as one without centres */
  memcpy(g, f, size);
  memcpy(g + at, "XORC", 4);
  fix_crcs(g, size);
  ck_assert_int_eq(decode_into(g, size, &m, sizeof(sk_skf_decode_desc), NULL, jw, NULL), SK_OK);
  ck_assert_int_eq(decode_into(g, size, &m, sizeof(sk_skf_decode_desc), out, jw, NULL), SK_ERR_NOT_FOUND);
  free(g);
  /* contents: another mesh id, another count (same size claim), a NaN step, a negative step, a short stream */
  unsigned char* mod = malloc(rn + 64);
  for (int k = 0; k < 5; ++k) {
    memcpy(mod, raw, rn);
    size_t mn = rn;
    uint32_t claim = (uint32_t)rn;
    if (k == 0) wr32(mod, 1);
    if (k == 1) wr32(mod + 4, mi.coded_count + 1);
    if (k == 2) wr32(mod + 20, 0x7fc00000u);
    if (k == 3) wr32(mod + 24, 0xbf800000u);
    if (k == 4) mn -= 3; /* inflates to fewer bytes than claimed */
    g = with_corc(f, size, mod, mn, claim, &gn);
    ck_assert_msg(decode_into(g, gn, &m, sizeof(sk_skf_decode_desc), out, jw, &err) == SK_ERR_FORMAT, "case %d", k);
    ck_assert_int_eq(decode_into(g, gn, &m, sizeof(sk_skf_decode_desc), NULL, jw, NULL), SK_OK);
    free(g);
  }
  /* random bytes in the planes always decode (every 16-bit delta is a grid point) within the grid's box */
  memcpy(mod, raw, rn);
  skt_rng r = {9};
  for (size_t i = SKF_CORC_HEAD_SIZE; i < rn; ++i) mod[i] = (unsigned char)skt_rand_u32(&r);
  g = with_corc(f, size, mod, rn, (uint32_t)rn, &gn);
  ck_assert_int_eq(decode_into(g, gn, &m, sizeof(sk_skf_decode_desc), out, jw, NULL), SK_OK);
  for (int i = 0; i < 600; ++i) ck_assert(isfinite(out[i]));
  free(g);
  free(mod);
  free(raw);
  free(f);
  free(plain);
  free_small(skel, &m, c);
}
END_TEST

/* ---- corpus ------------------------------------------------------------------------------------------------- */
static const char* const k_corpus[] = {
    "gltf/CesiumMan.glb",       "gltf/Fox.glb",        "gltf/SimpleSkin.gltf",          "gltf/quad_skin.glb",
    "fbx/huesitos.fbx",         "fbx/Fox_blender.fbx", "collada/CesiumMan_blender.dae", "x/Testwuson.X",
    "b3d/character.b3d",        "md5/drone.md5mesh",   "ogre/Clonk/Graphics.mesh",      "gltf/CesiumMan_subdiv2.glb",
};

START_TEST(corpus_round_trip) {
  if (!skt_assets_dir()) {
    ck_assert_msg(!skt_assets_required(), "SKINKIT_ASSETS is set but not a directory");
    return;
  }
  const char* rel = k_corpus[_i];
  sk_scene* sc = NULL;
  sk_error err;
  ck_assert_msg(sk_scene_load(skt_asset(rel), NULL, &sc, &err) == SK_OK, "%s: %s", rel, err.message);
  uint32_t mc = sk_scene_mesh_count(sc), n = 0;
  sk_skf_mesh* ms = calloc(mc + 1, sizeof *ms);
  float** cs = calloc(mc + 1, sizeof *cs);
  size_t verts = 0;
  for (uint32_t m = 0; m < mc; ++m) {
    sk_skin* s = sk_scene_mesh_skin(sc, m);
    if (!s) continue;
    size_t nv = sk_scene_mesh_vertex_count(sc, m), ni = sk_scene_mesh_index_count(sc, m);
    float* pos = malloc(nv * 3 * sizeof *pos + 4);
    uint32_t* ix = malloc(ni * sizeof *ix + 4);
    sk_scene_mesh_positions(sc, m, pos, nv * 3);
    sk_scene_mesh_indices(sc, m, ix, ni);
    ms[n] = (sk_skf_mesh){s, pos, ix, ni};
    cs[n] = centers_of(pos, nv, ix, ni, s);
    verts += nv;
    ++n;
  }
  size_t size, plain_size;
  unsigned char* f = encode_c(sk_scene_skeleton(sc), ms, n, (const float* const*)cs, 0, 0, &size);
  unsigned char* plain = encode_c(sk_scene_skeleton(sc), ms, n, NULL, 0, 0, &plain_size);
  size_t coded = 0;
  double worst = 0, worst_abs = 0, copy_gap = 0;
  for (uint32_t m = 0; m < n; ++m) {
    size_t nv = sk_skin_vertex_count(ms[m].skin);
    float* out = malloc(3 * nv * sizeof *out + 4);
    double a, e = check_centers(f, size, m, &ms[m], cs[m], out, &a);
    worst = fmax(worst, e);
    worst_abs = fmax(worst_abs, a);
    sk_skf_mesh_info mi = {0};
    mi.size = sizeof mi;
    ck_assert_int_eq(sk_skf_get_mesh_info(f, size, m, &mi, NULL), SK_OK);
    coded += mi.coded_count;
    /* copies (the lowest vertex at the position, same canonical influences) get that vertex's centre; how far
     * their own computed centres are from it (their float weights may differ below the quantization) */
    if (mi.order == 2) {
      uint32_t* first = malloc(nv * sizeof *first);
      uint32_t* tab = malloc(skf_weld_scratch_count(nv) * sizeof *tab);
      skf_weld_positions(ms[m].positions, nv, first, tab, NULL);
      for (size_t v = 0; v < nv; ++v)
        for (int k = 0; first[v] != v && !memcmp(out + 3 * v, out + 3 * (size_t)first[v], 12) && k < 3; ++k)
          copy_gap = fmax(copy_gap, fabs((double)cs[m][3 * v + (size_t)k] - cs[m][3 * (size_t)first[v] + (size_t)k]));
      free(first);
      free(tab);
    }
    free(out);
  }
  printf("%s: %zu vertices (%zu stored): file %zu -> %zu bytes with centres (+%.3f B/vertex, %.3f B/stored vertex); "
         "max centre error %.3g (%.3f of the bound); computed centres of weld copies differ from their first's by "
         "up to %.3g\n", rel, verts, coded, plain_size, size, (double)(size - plain_size) / (double)verts,
         (double)(size - plain_size) / (double)coded, worst_abs, worst, copy_gap);
  ck_assert_double_le(worst, 1.0);
  ck_assert(copy_gap == 0.0); /* a copy's own centre is its first's: same weights, same centre */
  free(f);
  free(plain);
  for (uint32_t m = 0; m < n; ++m) {
    free((void*)ms[m].positions);
    free((void*)ms[m].indices);
    free(cs[m]);
  }
  free(ms);
  free(cs);
  sk_scene_destroy(sc);
}
END_TEST

static Suite* skf_cor_suite(void) {
  Suite* s = suite_create("skf_cor");
  TCase* t = tcase_create("centres");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, cylinder_twist_bend_after_round_trip);
  tcase_add_loop_test(t, random_meshes_round_trip, 0, 4);
  tcase_add_test(t, absent_and_old_sizes);
  tcase_add_test(t, hostile_chunks);
  tcase_add_loop_test(t, corpus_round_trip, 0, (int)(sizeof k_corpus / sizeof *k_corpus));
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return skt_run_suite(skf_cor_suite()); }
