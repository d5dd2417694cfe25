/* test_records.c - per-vertex weight records (sk_records_read, sk_records_update), the layout Blender keeps vertex
 * groups in: reading only the mapped groups in record order, rewriting weights and removing entries in place
 * without touching unmapped groups or unmasked vertices, deferring what needs an allocation, and a read -> edit ->
 * update round trip against a reference on random records. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skinkit.h"

/* Three vertices over groups 0..3; group 2 is not mapped (a mask group the tool does not see). */
typedef struct fixture {
  sk_weight_entry e0[3], e1[2], e2[1];
  sk_weight_record rec[3];
  int32_t map[4];
} fixture;

static void fixture_init(fixture* f) {
  const sk_weight_entry e0[3] = {{3, 0.25f}, {2, 1.0f}, {0, 0.75f}};
  const sk_weight_entry e1[2] = {{1, 0.4f}, {0, 0.6f}};
  const sk_weight_entry e2[1] = {{2, 0.9f}};
  memcpy(f->e0, e0, sizeof e0);
  memcpy(f->e1, e1, sizeof e1);
  memcpy(f->e2, e2, sizeof e2);
  f->rec[0] = (sk_weight_record){f->e0, 3, 7};
  f->rec[1] = (sk_weight_record){f->e1, 2, 0};
  f->rec[2] = (sk_weight_record){f->e2, 1, 0};
  const int32_t map[4] = {0, 1, -1, 2}; /* group 3 -> joint 2 */
  memcpy(f->map, map, sizeof map);
}

START_TEST(test_read_mapped_in_record_order) {
  fixture f;
  fixture_init(&f);
  uint32_t off[4], j[8];
  float w[8];
  size_t n = 0;
  ck_assert_int_eq(sk_records_read(f.rec, 3, f.map, 4, off, j, w, 8, &n, NULL), SK_OK);
  ck_assert_uint_eq(n, 4);
  ck_assert_uint_eq(off[0], 0);
  ck_assert_uint_eq(off[1], 2);
  ck_assert_uint_eq(off[2], 4);
  ck_assert_uint_eq(off[3], 4); /* vertex 2 holds only the unmapped group */
  ck_assert_uint_eq(j[0], 2);
  ck_assert_uint_eq(j[1], 0);
  ck_assert_uint_eq(j[2], 1);
  ck_assert_uint_eq(j[3], 0);
  ck_assert(w[0] == 0.25f && w[1] == 0.75f && w[2] == 0.4f && w[3] == 0.6f);
  /* offsets alone */
  ck_assert_int_eq(sk_records_read(f.rec, 3, f.map, 4, off, NULL, NULL, 0, &n, NULL), SK_OK);
  ck_assert_uint_eq(n, 4);
  ck_assert_uint_eq(off[3], 4);
  /* groups past the map are not read */
  ck_assert_int_eq(sk_records_read(f.rec, 3, f.map, 2, off, j, w, 8, &n, NULL), SK_OK);
  ck_assert_uint_eq(n, 3);
}
END_TEST

START_TEST(test_update_in_place) {
  fixture f;
  fixture_init(&f);
  /* vertex 0: drop joint 2 (group 3), joint 0 -> 1.0; vertex 1: weights only; vertex 2: no mapped entry, none asked */
  const uint32_t off[4] = {0, 1, 3, 3};
  const uint32_t j[3] = {0, 1, 0};
  const float w[3] = {1.0f, 0.5f, 0.5f};
  uint8_t deferred[3] = {9, 9, 9};
  size_t changed = 0;
  ck_assert_int_eq(sk_records_update(f.rec, 3, f.map, 4, off, j, w, NULL, deferred, &changed, NULL), SK_OK);
  ck_assert_uint_eq(changed, 2);
  ck_assert(!deferred[0] && !deferred[1] && !deferred[2]);
  ck_assert_int_eq(f.rec[0].count, 2); /* the unmapped group 2 stays, order kept */
  ck_assert_uint_eq(f.e0[0].group, 2);
  ck_assert(f.e0[0].weight == 1.0f);
  ck_assert_uint_eq(f.e0[1].group, 0);
  ck_assert(f.e0[1].weight == 1.0f);
  ck_assert_int_eq(f.rec[0].flags, 7);
  ck_assert(f.e1[0].weight == 0.5f && f.e1[1].weight == 0.5f);
  ck_assert_int_eq(f.rec[2].count, 1);
  /* the same rows again: nothing changes */
  ck_assert_int_eq(sk_records_update(f.rec, 3, f.map, 4, off, j, w, NULL, deferred, &changed, NULL), SK_OK);
  ck_assert_uint_eq(changed, 0);
}
END_TEST

START_TEST(test_update_defers_allocations_and_honours_mask) {
  fixture f;
  fixture_init(&f);
  /* vertex 0 gains joint 1 (no entry: deferred), vertex 1 loses everything (deferred), vertex 2 gains joint 0 but
   * is masked out */
  const uint32_t off[4] = {0, 3, 3, 4};
  const uint32_t j[4] = {0, 1, 2, 0};
  const float w[4] = {0.2f, 0.3f, 0.5f, 1.0f};
  const uint8_t mask[3] = {1, 1, 0};
  uint8_t deferred[3] = {9, 9, 9};
  size_t changed = 5;
  ck_assert_int_eq(sk_records_update(f.rec, 3, f.map, 4, off, j, w, mask, deferred, &changed, NULL), SK_OK);
  ck_assert_uint_eq(changed, 0);
  ck_assert(deferred[0] == 1 && deferred[1] == 1 && deferred[2] == 0);
  ck_assert_int_eq(f.rec[0].count, 3); /* untouched */
  ck_assert(f.e0[2].weight == 0.75f);
  ck_assert_int_eq(f.rec[1].count, 2);
  ck_assert(f.e1[0].weight == 0.4f);
  ck_assert_int_eq(f.rec[2].count, 1);
}
END_TEST

/* Random records over 6 groups (4 mapped, shuffled joint ids); random edits of the read CSR that remove and
 * reweight entries; after the update every record's mapped entries equal the edited row (in order) and its
 * unmapped entries are the originals, in order. */
START_TEST(test_round_trip_random) {
  enum { V = 500, G = 6 };
  srand(42);
  sk_weight_entry* pool = calloc((size_t)V * G, sizeof *pool);
  sk_weight_entry* orig = calloc((size_t)V * G, sizeof *orig);
  sk_weight_record* rec = calloc(V, sizeof *rec);
  const int32_t map[G] = {3, -1, 0, 2, -1, 1};
  for (int v = 0; v < V; v++) {
    int n = rand() % (G + 1), used = 0;
    rec[v].entries = pool + (size_t)v * G;
    for (int g = 0; g < G && used < n; g++)
      if (rand() % 2) rec[v].entries[used++] = (sk_weight_entry){(uint32_t)g, (float)(rand() % 1000) / 1000.0f};
    rec[v].count = used;
  }
  memcpy(orig, pool, (size_t)V * G * sizeof *pool);
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* j = malloc((size_t)V * G * sizeof *j);
  float* w = malloc((size_t)V * G * sizeof *w);
  size_t n = 0;
  ck_assert_int_eq(sk_records_read(rec, V, map, G, off, j, w, (size_t)V * G, &n, NULL), SK_OK);
  /* edit: drop every third entry, halve the rest */
  uint32_t* off2 = malloc((V + 1) * sizeof *off2);
  uint32_t* j2 = malloc((n + 1) * sizeof *j2);
  float* w2 = malloc((n + 1) * sizeof *w2);
  size_t m = 0;
  off2[0] = 0;
  for (int v = 0; v < V; v++) {
    for (uint32_t k = off[v]; k < off[v + 1]; k++)
      if (k % 3) j2[m] = j[k], w2[m++] = w[k] * 0.5f;
    off2[v + 1] = (uint32_t)m;
  }
  uint8_t* deferred = malloc(V);
  ck_assert_int_eq(sk_records_update(rec, V, map, G, off2, j2, w2, NULL, deferred, NULL, NULL), SK_OK);
  for (int v = 0; v < V; v++) {
    const sk_weight_entry* o = orig + (size_t)v * G;
    if (deferred[v]) { /* every entry removed: untouched */
      ck_assert_uint_eq(off2[v + 1], off2[v]);
      continue;
    }
    uint32_t k = off2[v];
    int unmapped = 0;
    for (int i = 0; i < rec[v].count; i++) {
      const sk_weight_entry e = rec[v].entries[i];
      if (map[e.group] < 0) { /* the original's unmapped entries, in their order */
        int seen = 0, at = -1;
        for (int q = 0; at < 0; q++)
          if (map[o[q].group] < 0 && seen++ == unmapped) at = q;
        ck_assert_uint_eq(e.group, o[at].group);
        ck_assert(e.weight == o[at].weight);
        unmapped++;
        continue;
      }
      ck_assert_uint_lt(k, off2[v + 1]);
      ck_assert_int_eq(map[e.group], (int32_t)j2[k]);
      ck_assert(e.weight == w2[k]);
      k++;
    }
    ck_assert_uint_eq(k, off2[v + 1]);
    ck_assert_int_eq(rec[v].count, unmapped + (int)(off2[v + 1] - off2[v]));
  }
  free(pool), free(orig), free(rec), free(off), free(j), free(w), free(off2), free(j2), free(w2), free(deferred);
}
END_TEST

static Suite* records_suite(void) {
  Suite* s = suite_create("records");
  TCase* tc = tcase_create("records");
  tcase_add_test(tc, test_read_mapped_in_record_order);
  tcase_add_test(tc, test_update_in_place);
  tcase_add_test(tc, test_update_defers_allocations_and_honours_mask);
  tcase_add_test(tc, test_round_trip_random);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(records_suite()); }
