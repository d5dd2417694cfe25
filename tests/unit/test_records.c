/* test_records.c - per-vertex weight records (sk_records_read, sk_records_update), the layout Blender keeps vertex
 * groups in: reading only the mapped groups in record order, rewriting weights and removing entries in place
 * without touching unmapped groups or unmasked vertices, deferring what needs an allocation, and a read -> edit ->
 * update round trip against a reference on random records; sk_records_edit against the sk_weights_* functions
 * on the same random records, for every operation. */
#include <check.h>
#include <stdio.h>
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
/* Random records over G groups (some unmapped, as a tool's subset leaves them), each vertex its own array. */
/* RV is above sk_records_edit's EDIT_PARALLEL_MIN (16384), so on a machine with several cores its vertices are
 * edited by several threads, in chunks of 4096, the last one partial */
enum { RV = 20500, RG = 6 };
static const int32_t rmap[RG] = {3, -1, 0, 2, -1, 1};

/* Weights: k / 1000 (rfamily 0), or drawn from a few values (rfamily 1: eighths, thirds, a tenth, 1) whose scaled
 * remainders tie often and whose rounding to nearest hands out one unit too many or too few in many records, so that
 * Quantize's tie rules (remainder, then weight, then entry order) decide. */
static int rfamily = 0;

static float random_weight(void) {
  static const float few[12] = {0.125f, 0.25f, 0.375f,      0.5f,        0.625f, 0.75f,
                                0.875f, 1.0f,  1.0f / 3.0f, 2.0f / 3.0f, 0.1f,   0.3f};
  return rfamily ? few[rand() % 12] : (float)(rand() % 1000) / 1000.0f;
}

static sk_weight_record* random_records(sk_weight_entry* pool, unsigned seed) {
  srand(seed);
  sk_weight_record* rec = calloc(RV, sizeof *rec);
  for (int v = 0; v < RV; v++) {
    int n = rand() % (RG + 1), used = 0;
    rec[v].entries = pool + (size_t)v * RG;
    for (int g = 0; g < RG && used < n; g++)
      if (rand() % 2) rec[v].entries[used++] = (sk_weight_entry){(uint32_t)g, random_weight()};
    rec[v].count = used;
  }
  return rec;
}

START_TEST(test_round_trip_random) {
  enum { V = RV, G = RG };
  const int32_t* map = rmap;
  sk_weight_entry* pool = calloc((size_t)V * G, sizeof *pool);
  sk_weight_entry* orig = calloc((size_t)V * G, sizeof *orig);
  sk_weight_record* rec = random_records(pool, 42);
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

/* The group map check_edit_matches_locks edits through, and its joint count: rmap (two groups unmapped), or one
 * that maps every group (Quantize's four-lane path runs only then). */
static const int32_t* emap = rmap;
static uint32_t ejoints = 4;
static const int32_t rmap_all[RG] = {3, 5, 0, 2, 4, 1};

/* The mapped entries of one record as a row (joints, weights); returns the count. */
static uint32_t record_row(const sk_weight_record* r, uint32_t* j, float* w) {
  uint32_t n = 0;
  for (int i = 0; i < r->count; i++)
    if (emap[r->entries[i].group] >= 0) j[n] = (uint32_t)emap[r->entries[i].group], w[n++] = r->entries[i].weight;
  return n;
}

static sk_result run_reference(sk_skin* s, uint32_t op, const void* d, sk_weights_report* rep) {
  switch (op) {
    case SK_RECORDS_NORMALIZE:
      return sk_weights_normalize(s, d, rep, NULL);
    case SK_RECORDS_LIMIT:
      return sk_weights_limit(s, d, rep, NULL);
    case SK_RECORDS_PRUNE:
      return sk_weights_prune(s, d, rep, NULL);
    default:
      return sk_weights_quantize(s, d, rep, NULL);
  }
}

/* Whether two rows' weights are equal as numbers: a signed zero the reference rewrites as 0 has not moved (no weight
 * moves by more than no_change = 0), which is what sk_records_edit reports and leaves in the record. */
static int weights_equal(const float* a, const float* b, uint32_t n) {
  for (uint32_t k = 0; k < n; k++)
    if (!(a[k] == b[k])) return 0;
  return 1;
}

/* sk_records_edit(op) leaves every record holding exactly what the sk_weights_* function gives on the read CSR
 * (deferred vertices untouched and their rows empty), states and the changed count agreeing. with_lock: joint 2 is
 * locked (else nothing is: Quantize then takes its quick path where rounding to nearest sums right). */
static void check_edit_matches_locks(uint32_t op, void* op_desc, sk_weight_scope* scope, int with_lock) {
  sk_weight_entry* pool = calloc((size_t)RV * RG, sizeof *pool);
  sk_weight_record* rec = random_records(pool, 7 + op);
  for (int v = 0; v < RV; v += 97) /* a signed zero here and there: a valid weight of 0 */
    if (rec[v].count) rec[v].entries[rec[v].count - 1].weight = -0.0f;
  uint32_t* off = malloc((RV + 1) * sizeof *off);
  uint32_t* j = malloc((size_t)RV * RG * sizeof *j);
  float* w = malloc((size_t)RV * RG * sizeof *w);
  size_t n = 0;
  ck_assert_int_eq(sk_records_read(rec, RV, emap, RG, off, j, w, (size_t)RV * RG, &n, NULL), SK_OK);
  sk_skin* ref = NULL;
  ck_assert_int_eq(sk_skin_create(RV, ejoints, &ref, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(ref, off, j, w, NULL), SK_OK);
  uint8_t mask[RV], locked[RG] = {0, 0, (uint8_t)(with_lock != 0), 0};
  for (int v = 0; v < RV; v++) mask[v] = v % 3 != 0;
  *scope = (sk_weight_scope){mask, RV, locked, ejoints};
  sk_weights_report want = {.size = sizeof want};
  ck_assert_int_eq(run_reference(ref, op, op_desc, &want), SK_OK);
  sk_records_edit_desc d = {sizeof d, op, op_desc, 0.0f, 0};
  uint8_t state[RV], flags[RV];
  size_t deferred = 0, changed = 0;
  sk_weights_report rep = {.size = sizeof rep, .vertex_flags = flags};
  ck_assert_int_eq(sk_records_edit(rec, RV, emap, RG, &d, state, &deferred, &rep, NULL), SK_OK);
  size_t ndef = 0;
  uint64_t infl_before = 0, infl_after = 0;
  for (int v = 0; v < RV; v++) {
    uint32_t rj[RG], oj[RG], got[RG];
    float rw[RG], ow[RG], gw[RG];
    uint32_t rn = (uint32_t)sk_skin_get_vertex(ref, (size_t)v, rj, rw, RG);
    uint32_t on = off[v + 1] - off[v];
    memcpy(oj, j + off[v], on * sizeof *oj);
    memcpy(ow, w + off[v], on * sizeof *ow);
    int differs = rn != on || memcmp(rj, oj, rn * sizeof *rj) || !weights_equal(rw, ow, rn);
    changed += (size_t)differs;
    ck_assert_int_eq(state[v] != 0, differs);
    ck_assert_int_eq((flags[v] & SK_WFLAG_CHANGED) != 0, differs);
    uint32_t gn = record_row(&rec[v], got, gw);
    infl_before += mask[v] ? on : 0;
    infl_after += mask[v] ? rn : 0;
    if (state[v] == 2) { /* untouched, and the reference left it nothing */
      ndef++;
      ck_assert_uint_eq(rn, 0);
      ck_assert_uint_eq(gn, on);
      continue;
    }
    ck_assert_uint_eq(gn, rn);
    for (uint32_t k = 0; k < rn; k++) {
      ck_assert_uint_eq(got[k], rj[k]);
      ck_assert(gw[k] == rw[k]);
    }
  }
  ck_assert_uint_eq(deferred, ndef);
  ck_assert_uint_eq(rep.vertices_changed, changed);
  ck_assert_uint_gt(changed, 50); /* the operation did something */
  /* the counters add up over the threads' chunks to the whole-skin call's */
  ck_assert_uint_eq(rep.vertices_visited, want.vertices_visited);
  ck_assert_uint_eq(rep.vertices_failed, want.vertices_failed);
  ck_assert_uint_eq(rep.invalid_entries, want.invalid_entries);
  ck_assert_uint_eq(rep.entries_changed, want.entries_changed);
  ck_assert_uint_eq(rep.sum_off, want.sum_off);
  /* the quick paths (Normalize's and Clean's range loops, Quantize's lanes) count influences as the row path does:
   * the selected vertices' entries read, and what is left of them (Limit reads no record within its limit) */
  if (op != SK_RECORDS_LIMIT) {
    ck_assert_uint_eq(rep.influences_before, infl_before);
    ck_assert_uint_eq(rep.influences_after, infl_after);
  }
  sk_skin_destroy(ref);
  free(pool), free(rec), free(off), free(j), free(w);
}

static void check_edit_matches(uint32_t op, void* op_desc, sk_weight_scope* scope) {
  check_edit_matches_locks(op, op_desc, scope, 1);
}

START_TEST(test_edit_matches_weight_ops) {
  sk_normalize_desc nd = {.size = sizeof nd};
  check_edit_matches(SK_RECORDS_NORMALIZE, &nd, &nd.scope);
  check_edit_matches_locks(SK_RECORDS_NORMALIZE, &nd, &nd.scope, 0); /* nothing locked: normalize_quick throughout */
  sk_normalize_desc ndi = {.size = sizeof ndi, .flags = SK_NORMALIZE_DROP_INVALID};
  check_edit_matches_locks(SK_RECORDS_NORMALIZE, &ndi, &ndi.scope, 0);
  sk_limit_desc ld = {.size = sizeof ld, .max_influences = 2};
  check_edit_matches(SK_RECORDS_LIMIT, &ld, &ld.scope);
  sk_prune_desc pd = {.size = sizeof pd, .threshold = 0.3f, .flags = SK_PRUNE_KEEP_ONE};
  check_edit_matches(SK_RECORDS_PRUNE, &pd, &pd.scope);
  sk_prune_desc pe = {.size = sizeof pe, .threshold = 0.5f}; /* vertices losing every entry: deferred */
  check_edit_matches(SK_RECORDS_PRUNE, &pe, &pe.scope);
  /* most records keep every entry (prune_keeps_all skips their rows); weights of exactly 0.01 stay, zeros go */
  sk_prune_desc pk = {.size = sizeof pk, .threshold = 0.01f, .flags = SK_PRUNE_KEEP_ONE};
  check_edit_matches(SK_RECORDS_PRUNE, &pk, &pk.scope);
  sk_prune_desc pn = {.size = sizeof pn, .threshold = 0.01f, .flags = SK_PRUNE_NORMALIZE}; /* no skip: rows renormalized */
  check_edit_matches(SK_RECORDS_PRUNE, &pn, &pn.scope);
  sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
  check_edit_matches(SK_RECORDS_QUANTIZE, &qd, &qd.scope);
  check_edit_matches_locks(SK_RECORDS_QUANTIZE, &qd, &qd.scope, 0);
  sk_quantize_desc q16 = {.size = sizeof q16, .bits = 16};
  check_edit_matches_locks(SK_RECORDS_QUANTIZE, &q16, &q16.scope, 0);
}
END_TEST

/* Every group mapped and nothing locked: Quantize takes the scalar path for records of 1-2 entries and the four-lane
 * path for 3-4 (rounding to nearest decides most, one unit too many or too few goes back or to one entry by the tie
 * rules; the rest, and 5-6 entries, the scalar rule), with the same floats, states and counts as
 * sk_weights_quantize. The second family's weights tie in remainder and in value within a record (two halves of
 * 255 units: 128 + 128 is one too many). */
START_TEST(test_edit_quantize_every_group_mapped) {
  emap = rmap_all, ejoints = RG;
  for (rfamily = 0; rfamily < 2; rfamily++) {
    sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
    check_edit_matches_locks(SK_RECORDS_QUANTIZE, &qd, &qd.scope, 0);
    sk_quantize_desc q16 = {.size = sizeof q16, .bits = 16};
    check_edit_matches_locks(SK_RECORDS_QUANTIZE, &q16, &q16.scope, 0);
    check_edit_matches_locks(SK_RECORDS_QUANTIZE, &qd, &qd.scope, 1); /* a lock: the row path throughout */
  }
  rfamily = 0;
  emap = rmap, ejoints = 4;
}
END_TEST

START_TEST(test_normalize_twice_changes_nothing) {
  /* the second Normalize of the same records reads them and writes nothing: no state, no flag, the same bits (a
   * rescale of sums within rounding of 1 would move their last bits every time) */
  sk_weight_entry* pool = calloc((size_t)RV * RG, sizeof *pool);
  sk_weight_record* rec = random_records(pool, 11);
  sk_normalize_desc nd = {.size = sizeof nd};
  sk_records_edit_desc d = {sizeof d, SK_RECORDS_NORMALIZE, &nd, 0.0f, 0};
  uint8_t state[RV], flags[RV];
  sk_weights_report rep = {.size = sizeof rep, .vertex_flags = flags};
  ck_assert_int_eq(sk_records_edit(rec, RV, rmap, RG, &d, state, NULL, &rep, NULL), SK_OK);
  ck_assert_uint_gt(rep.vertices_changed, 50);
  sk_weight_entry* once = malloc((size_t)RV * RG * sizeof *once);
  memcpy(once, pool, (size_t)RV * RG * sizeof *pool);
  sk_weights_report again = {.size = sizeof again, .vertex_flags = flags};
  ck_assert_int_eq(sk_records_edit(rec, RV, rmap, RG, &d, state, NULL, &again, NULL), SK_OK);
  ck_assert_uint_eq(again.vertices_changed, 0);
  for (int v = 0; v < RV; v++) {
    ck_assert_uint_eq(state[v], 0);
    ck_assert_uint_eq(flags[v] & SK_WFLAG_CHANGED, 0);
  }
  ck_assert_int_eq(memcmp(once, pool, (size_t)RV * RG * sizeof *pool), 0);
  ck_assert_uint_eq(again.vertices_visited, rep.vertices_visited);
  free(once), free(pool), free(rec);
}
END_TEST

START_TEST(test_edit_inside_a_parallel_region) {
  /* called from a thread of the caller's own OpenMP team, where sk_records_edit's team comes out smaller than
   * omp_get_max_threads() says (nesting off): counters must still add up */
  sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
#if defined(SK_HAVE_OPENMP)
#pragma omp parallel num_threads(2)
#pragma omp single
#endif
  check_edit_matches(SK_RECORDS_QUANTIZE, &qd, &qd.scope);
}
END_TEST

START_TEST(test_edit_leaves_invalid_vertices) {
  /* a record holding a NaN weight fails the operation: untouched, counted as failed, not as changed */
  sk_weight_entry e[3] = {{0, 0.5f}, {1, NAN}, {2, 0.25f}};
  sk_weight_entry ok[2] = {{0, 0.3f}, {1, 0.3f}};
  sk_weight_record r[3] = {{e, 3, 0}, {ok, 2, 0}, {NULL, 0, 0}};
  const int32_t map[3] = {0, 1, 2};
  sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
  sk_normalize_desc nd = {.size = sizeof nd};
  const void* descs[2] = {&qd, &nd};
  const uint32_t ops[2] = {SK_RECORDS_QUANTIZE, SK_RECORDS_NORMALIZE};
  for (int t = 0; t < 2; t++) {
    sk_records_edit_desc d = {sizeof d, ops[t], descs[t], 0.0f, 0};
    uint8_t state[3], flags[3];
    sk_weights_report rep = {.size = sizeof rep, .vertex_flags = flags};
    ck_assert_int_eq(sk_records_edit(r, 3, map, 3, &d, state, NULL, &rep, NULL), SK_OK);
    ck_assert_uint_eq(state[0], 0);
    ck_assert(e[0].weight == 0.5f && isnan(e[1].weight) && e[2].weight == 0.25f);
    ck_assert_uint_eq(flags[0], SK_WFLAG_FAILED | SK_WFLAG_INVALID);
    ck_assert_uint_eq(rep.invalid_entries, 1);
    ck_assert_uint_eq(state[1], 1); /* the valid vertex is edited */
    ck_assert_uint_eq(rep.vertices_changed, 1);
    ck_assert_uint_eq(state[2], 0); /* no entry: nothing to write (quantize: failed, unweighted) */
    ck_assert_uint_eq(rep.vertices_failed, 2);
    ok[0].weight = ok[1].weight = 0.3f;
  }
}
END_TEST

START_TEST(test_edit_round_no_change_and_errors) {
  sk_weight_entry e[3] = {{0, 0.5f}, {1, 0.3f}, {3, 0.2004f}};
  sk_weight_record r = {e, 3, 0};
  const int32_t map[4] = {0, 1, -1, 2};
  /* Blender's Quantize: each weight on its own, no sum kept */
  sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
  sk_records_edit_desc d = {sizeof d, SK_RECORDS_ROUND, &qd, 0.0f, 0};
  uint8_t state = 9;
  ck_assert_int_eq(sk_records_edit(&r, 1, map, 4, &d, &state, NULL, NULL, NULL), SK_OK);
  ck_assert_uint_eq(state, 1);
  ck_assert(e[0].weight == (float)(128.0 / 255.0) && e[1].weight == (float)(77.0 / 255.0) &&
            e[2].weight == (float)(51.0 / 255.0));
  /* a move below no_change is no change: nothing written */
  e[2].weight = 0.2004f;
  sk_normalize_desc nd = {.size = sizeof nd};
  float before = e[0].weight;
  d = (sk_records_edit_desc){sizeof d, SK_RECORDS_NORMALIZE, &nd, 0.01f, 0};
  ck_assert_int_eq(sk_records_edit(&r, 1, map, 4, &d, &state, NULL, NULL, NULL), SK_OK);
  ck_assert_uint_eq(state, 0);
  ck_assert(e[0].weight == before && e[2].weight == 0.2004f);
  /* an empty mesh (no records at all): nothing to do, and the descriptor is still checked */
  sk_weights_report rep = {.size = sizeof rep};
  ck_assert_int_eq(sk_records_edit(NULL, 0, map, 4, &d, NULL, NULL, &rep, NULL), SK_OK);
  ck_assert_uint_eq(rep.vertices_changed, 0);
  /* no group maps to a joint: nothing to edit, and the outputs still say so (state and flags cleared) */
  const int32_t none[4] = {-1, -1, -1, -1};
  uint8_t flag = 7;
  rep = (sk_weights_report){.size = sizeof rep, .vertex_flags = &flag};
  state = 9;
  ck_assert_int_eq(sk_records_edit(&r, 1, none, 4, &d, &state, NULL, &rep, NULL), SK_OK);
  ck_assert_uint_eq(state, 0);
  ck_assert_uint_eq(flag, 0);
  ck_assert(e[0].weight == before && e[2].weight == 0.2004f);
  sk_normalize_desc bad = {.size = sizeof bad, .tolerance = 2.0f};
  sk_records_edit_desc db = {sizeof db, SK_RECORDS_NORMALIZE, &bad, 0.0f, 0};
  ck_assert_int_eq(sk_records_edit(NULL, 0, map, 4, &db, NULL, NULL, NULL, NULL), SK_ERR_INVALID_ARGUMENT);
  /* errors write nothing */
  sk_error err;
  d.op = 99;
  ck_assert_int_eq(sk_records_edit(&r, 1, map, 4, &d, &state, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  uint16_t vals[3];
  qd.out_values = vals, qd.out_values_count = 3;
  d = (sk_records_edit_desc){sizeof d, SK_RECORDS_QUANTIZE, &qd, 0.0f, 0};
  ck_assert_int_eq(sk_records_edit(&r, 1, map, 4, &d, &state, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  d = (sk_records_edit_desc){sizeof d, SK_RECORDS_NORMALIZE, &nd, -1.0f, 0};
  ck_assert_int_eq(sk_records_edit(&r, 1, map, 4, &d, &state, NULL, NULL, &err), SK_ERR_INVALID_ARGUMENT);
  ck_assert(e[0].weight == before && e[2].weight == 0.2004f);
}
END_TEST

/* A bad record anywhere in a mesh the threads edit in chunks (sk_records_edit checks the records in those chunks
 * too): the call fails naming the first bad record, and no record, state byte or flag is written - whichever
 * chunk holds it, whichever operation. */
START_TEST(test_edit_bad_record_in_a_large_mesh_writes_nothing) {
  sk_weight_entry* pool = calloc((size_t)RV * RG, sizeof *pool);
  sk_weight_entry* orig = malloc((size_t)RV * RG * sizeof *orig);
  uint8_t* state = malloc(RV);
  uint8_t* flags = malloc(RV);
  const size_t at[3] = {5, 12288, RV - 1}; /* the first chunk, a later one, the partial last one */
  const sk_normalize_desc nd = {.size = sizeof nd, .tolerance = 1e-4f};
  const sk_quantize_desc qd = {.size = sizeof qd, .bits = 8};
  const sk_records_edit_desc descs[2] = {{sizeof descs[0], SK_RECORDS_NORMALIZE, &nd, 0.0f, 0},
                                         {sizeof descs[1], SK_RECORDS_QUANTIZE, &qd, 0.0f, 0}};
  for (int k = 0; k < 3; k++) {
    for (int op = 0; op < 2; op++) {
      sk_weight_record* rec = random_records(pool, 7u + (unsigned)k);
      memcpy(orig, pool, (size_t)RV * RG * sizeof *pool);
      const sk_weight_record saved = rec[at[k]];
      rec[at[k]].count = k == 1 ? SK_RECORD_MAX_ENTRIES + 1 : k == 2 ? -1 : 2;
      if (k == 0) rec[at[k]].entries = NULL;
      memset(state, 7, RV);
      memset(flags, 9, RV);
      sk_weights_report rep = {.size = sizeof rep, .vertex_flags = flags};
      sk_error err = {0};
      ck_assert_int_eq(sk_records_edit(rec, RV, rmap, RG, &descs[op], state, NULL, &rep, &err),
                       SK_ERR_INVALID_ARGUMENT);
      char want[32];
      snprintf(want, sizeof want, "record %zu ", at[k]);
      ck_assert_msg(strstr(err.message, want), "%.400s", err.message);
      rec[at[k]] = saved;
      ck_assert_msg(memcmp(pool, orig, (size_t)RV * RG * sizeof *pool) == 0, "op %d, bad record %zu", op, at[k]);
      for (int v = 0; v < RV; v++) ck_assert(state[v] == 7 && flags[v] == 9);
      free(rec);
    }
  }
  free(pool);
  free(orig);
  free(state);
  free(flags);
}
END_TEST

static Suite* records_suite(void) {
  Suite* s = suite_create("records");
  TCase* tc = tcase_create("records");
  tcase_add_test(tc, test_read_mapped_in_record_order);
  tcase_add_test(tc, test_update_in_place);
  tcase_add_test(tc, test_update_defers_allocations_and_honours_mask);
  tcase_add_test(tc, test_round_trip_random);
  tcase_add_test(tc, test_edit_matches_weight_ops);
  tcase_add_test(tc, test_edit_quantize_every_group_mapped);
  tcase_add_test(tc, test_normalize_twice_changes_nothing);
  tcase_add_test(tc, test_edit_inside_a_parallel_region);
  tcase_add_test(tc, test_edit_bad_record_in_a_large_mesh_writes_nothing);
  tcase_add_test(tc, test_edit_leaves_invalid_vertices);
  tcase_add_test(tc, test_edit_round_no_change_and_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(records_suite()); }
