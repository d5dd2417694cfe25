/* test_partition.c - sk_skin_partition: vertices ordered by influence count into K = 1, 2, 4, 8 ranges, packed
 * without a vertex paying more than its range's K; deforming range by range (packed U16/F32 jobs over reordered
 * streams) gives what one CSR job over the whole skin gives, for LBS and DQS with normals. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

enum { V = 4000, J = 24 };

/* A skin of 0..8 influences per vertex (weights summing to 1), some vertices rigid. */
static sk_skin* random_skin(skt_rng* r) {
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* jt = malloc(V * 8 * sizeof *jt);
  float* wt = malloc(V * 8 * sizeof *wt);
  off[0] = 0;
  for (size_t v = 0; v < V; v++) {
    uint32_t n = skt_rand_u32(r) % 9, first = skt_rand_u32(r) % J;
    float sum = 0.0f, w[8];
    for (uint32_t k = 0; k < n; k++) sum += w[k] = skt_rand_range(r, 0.05f, 1.0f);
    for (uint32_t k = 0; k < n; k++) {
      jt[off[v] + k] = (first + 3 * k) % J;
      wt[off[v] + k] = w[k] / sum;
    }
    off[v + 1] = off[v] + n;
  }
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(V, J, &s, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(s, off, jt, wt, NULL), SK_OK);
  free(off), free(jt), free(wt);
  return s;
}

/* Rigid palettes: a rotation about a random axis (up to 170 degrees) and a translation, column-major. */
static void random_palette(skt_rng* r, float* m) {
  for (int j = 0; j < J; j++, m += 16) {
    float ax[3] = {skt_rand_range(r, -1, 1), skt_rand_range(r, -1, 1), skt_rand_range(r, -1, 1)};
    float n = sqrtf(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]) + 1e-6f, a = skt_rand_range(r, -2.97f, 2.97f);
    float x = ax[0] / n, y = ax[1] / n, z = ax[2] / n, c = cosf(a), s = sinf(a), t = 1 - c;
    const float R[9] = {t * x * x + c,     t * x * y + s * z, t * x * z - s * y, t * x * y - s * z, t * y * y + c,
                        t * y * z + s * x, t * x * z + s * y, t * y * z - s * x, t * z * z + c};
    memset(m, 0, 16 * sizeof *m);
    for (int col = 0; col < 3; col++)
      for (int row = 0; row < 3; row++) m[4 * col + row] = R[3 * col + row];
    m[12] = skt_rand_range(r, -2, 2), m[13] = skt_rand_range(r, -2, 2), m[14] = skt_rand_range(r, -2, 2);
    m[15] = 1.0f;
  }
}

START_TEST(test_partition_ranges_and_packing) {
  skt_rng r = {42};
  sk_skin* s = random_skin(&r);
  sk_partition_range rg[SK_PARTITION_MAX_RANGES];
  uint32_t nr = 0;
  size_t entries = 0;
  ck_assert_int_eq(sk_skin_partition(s, NULL, rg, &nr, NULL, NULL, &entries, NULL), SK_OK); /* the query */
  ck_assert_uint_eq(nr, 4);
  uint32_t* order = malloc(V * sizeof *order);
  uint16_t* pj = malloc(entries * sizeof *pj);
  float* pw = malloc(entries * sizeof *pw);
  ck_assert_int_eq(sk_skin_partition(s, order, rg, &nr, pj, pw, &entries, NULL), SK_OK);
  const uint32_t ks[4] = {1, 2, 4, 8};
  size_t next = 0, e = 0;
  uint8_t* seen = calloc(V, 1);
  for (uint32_t i = 0; i < nr; i++) {
    ck_assert_uint_eq(rg[i].influences, ks[i]);
    ck_assert_uint_eq(rg[i].first, next);
    ck_assert_uint_eq(rg[i].entry_offset, e);
    for (size_t k = 0; k < rg[i].count; k++) {
      uint32_t v = order[rg[i].first + k], J0[8];
      float W0[8];
      if (k) ck_assert_uint_gt(v, order[rg[i].first + k - 1]); /* stable within a range */
      ck_assert(!seen[v]);
      seen[v] = 1;
      size_t n = sk_skin_get_vertex(s, v, J0, W0, 8);
      ck_assert_uint_le(n, ks[i]);
      ck_assert(i == 0 || n > ks[i - 1]); /* no vertex in a wider range than it needs */
      for (uint32_t q = 0; q < ks[i]; q++) {
        size_t at = rg[i].entry_offset + k * ks[i] + q;
        ck_assert_uint_eq(pj[at], q < n ? J0[q] : n ? J0[0] : 0);
        ck_assert(pw[at] == (q < n ? W0[q] : 0.0f));
      }
    }
    next += rg[i].count;
    e += rg[i].count * ks[i];
  }
  ck_assert_uint_eq(next, V);
  ck_assert_uint_eq(e, entries);
  ck_assert_uint_lt(entries, (size_t)V * 8); /* no padding to the largest count */
  free(order), free(pj), free(pw), free(seen);
  sk_skin_destroy(s);
}
END_TEST

/* positions and normals of the whole skin in one CSR job, then range by range over reordered streams */
static void check_method(uint32_t method) {
  skt_rng r = {7 + method};
  sk_skin* s = random_skin(&r);
  float* pal = malloc(16 * J * sizeof *pal);
  random_palette(&r, pal);
  float* pos = malloc(V * 3 * sizeof *pos);
  float* nrm = malloc(V * 3 * sizeof *nrm);
  for (size_t i = 0; i < V * 3; i++) pos[i] = skt_rand_range(&r, -1, 1), nrm[i] = skt_rand_range(&r, -1, 1);
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* cj = malloc(sk_skin_influence_count(s) * sizeof *cj + 4);
  float* cw = malloc(sk_skin_influence_count(s) * sizeof *cw + 4);
  ck_assert_int_eq(sk_skin_get_csr(s, off, cj, cw, NULL), SK_OK);
  float* want_p = malloc(V * 3 * sizeof *want_p);
  float* want_n = malloc(V * 3 * sizeof *want_n);
  sk_deform_job job = {.size = sizeof job, .method = method, .threads = 1, .vertex_count = V, .palette = pal,
                       .joint_count = J, .csr_offsets = off, .csr_joints = cj, .csr_weights = cw, .in_positions = pos,
                       .out_positions = want_p, .in_normals = nrm, .out_normals = want_n};
  ck_assert_int_eq(sk_deform_run(&job, NULL), SK_OK);

  sk_partition_range rg[SK_PARTITION_MAX_RANGES];
  uint32_t nr = 0;
  size_t entries = 0;
  ck_assert_int_eq(sk_skin_partition(s, NULL, rg, &nr, NULL, NULL, &entries, NULL), SK_OK);
  uint32_t* order = malloc(V * sizeof *order);
  uint16_t* pj = malloc(entries * sizeof *pj);
  float* pw = malloc(entries * sizeof *pw);
  ck_assert_int_eq(sk_skin_partition(s, order, rg, &nr, pj, pw, &entries, NULL), SK_OK);
  float* rp = malloc(V * 3 * sizeof *rp);
  float* rn = malloc(V * 3 * sizeof *rn);
  for (size_t i = 0; i < V; i++) memcpy(rp + 3 * i, pos + 3 * order[i], 12), memcpy(rn + 3 * i, nrm + 3 * order[i], 12);
  float* got_p = malloc(V * 3 * sizeof *got_p);
  float* got_n = malloc(V * 3 * sizeof *got_n);
  for (uint32_t i = 0; i < nr; i++) {
    sk_deform_job part = {.size = sizeof part, .method = method, .threads = 1, .vertex_count = rg[i].count,
                          .palette = pal, .joint_count = J, .influences = rg[i].influences,
                          .joint_type = SK_TYPE_U16, .weight_type = SK_TYPE_F32, .joints = pj + rg[i].entry_offset,
                          .weights = pw + rg[i].entry_offset, .in_positions = rp + 3 * rg[i].first,
                          .out_positions = got_p + 3 * rg[i].first, .in_normals = rn + 3 * rg[i].first,
                          .out_normals = got_n + 3 * rg[i].first};
    ck_assert_int_eq(sk_deform_run(&part, NULL), SK_OK);
  }
  double worst = 0.0;
  for (size_t i = 0; i < V; i++)
    for (int c = 0; c < 3; c++) {
      worst = fmax(worst, fabs(got_p[3 * i + c] - want_p[3 * order[i] + c]));
      worst = fmax(worst, fabs(got_n[3 * i + c] - want_n[3 * order[i] + c]));
    }
  ck_assert_msg(worst < 2e-5, "method %u: partitioned deformation differs by %g", method, worst);
  free(pal), free(pos), free(nrm), free(off), free(cj), free(cw), free(want_p), free(want_n), free(order), free(pj);
  free(pw), free(rp), free(rn), free(got_p), free(got_n);
  sk_skin_destroy(s);
}

START_TEST(test_partition_deforms_like_the_whole_skin) {
  check_method(SK_DEFORM_LBS);
  check_method(SK_DEFORM_DQS);
}
END_TEST

START_TEST(test_partition_refuses_more_than_8) {
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(2, 12, &s, NULL), SK_OK);
  uint32_t j[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  float w[9] = {0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.2f};
  ck_assert_int_eq(sk_skin_set_vertex(s, 1, j, w, 9, NULL), SK_OK);
  sk_partition_range rg[SK_PARTITION_MAX_RANGES];
  uint32_t nr = 0;
  size_t n = 0;
  sk_error err;
  ck_assert_int_eq(sk_skin_partition(s, NULL, rg, &nr, NULL, NULL, &n, &err), SK_ERR_OUT_OF_RANGE);
  ck_assert_ptr_nonnull(strstr(err.message, "limit first"));
  sk_skin_destroy(s);
}
END_TEST

static Suite* partition_suite(void) {
  Suite* s = suite_create("partition");
  TCase* tc = tcase_create("partition");
  tcase_add_test(tc, test_partition_ranges_and_packing);
  tcase_add_test(tc, test_partition_deforms_like_the_whole_skin);
  tcase_add_test(tc, test_partition_refuses_more_than_8);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(partition_suite()); }
