/* cor.c - precompute of the optimized centres of rotation (see skc_cor.h for the formula and the shortcuts).
 *
 * Steps: canonical weight vector per vertex (sorted, merged, positive, sum 1) -> distinct vertex vectors (hash)
 * -> distinct triangle vectors with summed area and area-weighted centroid (hash) -> index of the triangle
 * vectors by joint pair (large buckets merged per cell) -> the buckets copied as SoA -> one task per (distinct
 * vertex vector, joint pair of it), run grouped by bucket (OpenMP) -> per distinct vertex vector, the
 * similarity-weighted mean over its tasks' sums -> centre per vertex. s(a, b) is a sum of one term per shared
 * joint pair, so walking the pair buckets and adding each bucket's term gives exactly the full sum, with no
 * triangle visited for a pair it lacks. Sums are in double (the AVX2 walk's kernel values in float).
 */
#include "skc_cor.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skc_deform.h"
#include "skc_mem.h"
#include "skc_skin.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define COR_HAVE_AVX2 1
#include <immintrin.h>
#endif

#if defined(SK_HAVE_OPENMP)
#include <omp.h>
#endif

/* A growable set of sparse weight vectors (CSR, sorted joints). */
typedef struct vecset {
  size_t n;        /* vectors */
  size_t* off;     /* n + 1 */
  uint32_t* j;
  float* w;
  size_t cap_n, cap_e;
} vecset;

static void vecset_free(vecset* s) {
  free(s->off);
  free(s->j);
  free(s->w);
  memset(s, 0, sizeof *s);
}

static bool vecset_init(vecset* s, size_t cap_n, size_t cap_e) {
  memset(s, 0, sizeof *s);
  s->cap_n = cap_n ? cap_n : 1;
  s->cap_e = cap_e ? cap_e : 1;
  s->off = skc_malloc_big((s->cap_n + 1) * sizeof *s->off);
  s->j = skc_malloc_big(s->cap_e * sizeof *s->j);
  s->w = skc_malloc_big(s->cap_e * sizeof *s->w);
  if (!s->off || !s->j || !s->w) {
    vecset_free(s);
    return false;
  }
  s->off[0] = 0;
  return true;
}

static bool vecset_push(vecset* s, const uint32_t* j, const float* w, size_t n) {
  size_t e = s->off[s->n];
  if (s->n + 1 > s->cap_n) {
    size_t* o = skc_realloc_big(s->off, (s->cap_n + 1) * sizeof *o, (2 * s->cap_n + 1) * sizeof *o);
    if (!o) return false;
    s->off = o;
    s->cap_n *= 2;
  }
  if (e + n > s->cap_e) {
    size_t cap = 2 * s->cap_e > e + n ? 2 * s->cap_e : e + n;
    uint32_t* nj = skc_realloc_big(s->j, s->cap_e * sizeof *nj, cap * sizeof *nj);
    if (!nj) return false;
    s->j = nj;
    float* nw = skc_realloc_big(s->w, s->cap_e * sizeof *nw, cap * sizeof *nw);
    if (!nw) return false;
    s->w = nw;
    s->cap_e = cap;
  }
  memcpy(s->j + e, j, n * sizeof *j);
  memcpy(s->w + e, w, n * sizeof *w);
  s->off[++s->n] = e + n;
  return true;
}

/* Sorts (j, w) by joint (insertion: rows are short) and sums duplicate joints. Returns the count kept. */
static size_t sort_merge(uint32_t* j, float* w, size_t n) {
  for (size_t a = 1; a < n; ++a) {
    uint32_t jj = j[a];
    float ww = w[a];
    size_t b = a;
    for (; b > 0 && j[b - 1] > jj; --b) {
      j[b] = j[b - 1];
      w[b] = w[b - 1];
    }
    j[b] = jj;
    w[b] = ww;
  }
  size_t m = 0;
  for (size_t a = 0; a < n; ++a) {
    if (m > 0 && j[m - 1] == j[a])
      w[m - 1] += w[a];
    else {
      j[m] = j[a];
      w[m++] = w[a];
    }
  }
  return m;
}

/* sort_merge, then drops w <= 0 and rescales to sum 1. Returns the count kept. */
static size_t canonicalize(uint32_t* j, float* w, size_t n) {
  size_t m = sort_merge(j, w, n), k = 0;
  double sum = 0.0;
  for (size_t a = 0; a < m; ++a)
    if (w[a] > 0.0f) {
      j[k] = j[a];
      w[k++] = w[a];
      sum += w[a];
    }
  for (size_t a = 0; a < k; ++a) w[a] = (float)(w[a] / sum);
  return k;
}

static uint64_t hash_vec(const uint32_t* j, const float* w, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t a = 0; a < n; ++a) {
    uint32_t wb;
    memcpy(&wb, &w[a], 4);
    h = (h ^ j[a]) * 1099511628211ull;
    h = (h ^ wb) * 1099511628211ull;
  }
  return h ^ (h >> 29);
}

static size_t pow2_at_least(size_t n) {
  size_t p = 16;
  while (p < n) p *= 2;
  return p;
}

/* Open-addressing map from vectors of a vecset to their index; slot value 0 = empty, else index + 1. */
typedef struct vecmap {
  size_t mask;
  uint32_t* slot;
} vecmap;

static bool vecmap_init(vecmap* m, size_t expected) {
  size_t cap = pow2_at_least(2 * expected + 1);
  m->mask = cap - 1;
  m->slot = skc_calloc_big(cap, sizeof *m->slot);
  return m->slot != NULL;
}

/* Index of (j, w, n) in s, or pushes it. -1 when out of memory (or the map is full). */
static long long vecmap_find_or_add(vecmap* m, vecset* s, const uint32_t* j, const float* w, size_t n, bool* added) {
  size_t i = (size_t)hash_vec(j, w, n) & m->mask;
  *added = false;
  for (size_t probe = 0; probe <= m->mask; ++probe, i = (i + 1) & m->mask) {
    uint32_t v = m->slot[i];
    if (v == 0) {
      if (s->n >= UINT32_MAX - 1 || !vecset_push(s, j, w, n)) return -1;
      m->slot[i] = (uint32_t)s->n;
      *added = true;
      return (long long)s->n - 1;
    }
    size_t d = v - 1, o = s->off[d];
    if (s->off[d + 1] - o == n && memcmp(s->j + o, j, n * sizeof *j) == 0 && memcmp(s->w + o, w, n * sizeof *w) == 0)
      return (long long)d;
  }
  return -1;
}

/* ---------------------------------------------------------------------------------------------- checks */

static int check_args(const skc_cor_args* a, const float* out, skc_err* err) {
  if (!a) return skc_fail(err, SKC_INVALID_ARGUMENT, "arguments must not be NULL");
  if (!out) return skc_fail(err, SKC_INVALID_ARGUMENT, "out_centers must not be NULL");
  if (a->vertex_count == 0) return skc_fail(err, SKC_INVALID_ARGUMENT, "vertex_count is 0");
  if (a->vertex_count >= UINT32_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "vertex_count %zu does not fit 32-bit indices", a->vertex_count);
  if (!a->positions || !a->offsets || !a->joints || !a->weights)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "positions, offsets, joints and weights must not be NULL");
  if (a->triangle_count > 0 && !a->triangles)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "triangles must not be NULL with triangle_count %zu",
                    a->triangle_count);
  if (!(a->sigma >= 0.0f) || !isfinite(a->sigma))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "sigma %g must be finite and >= 0 (0 = %g)", (double)a->sigma,
                    (double)SKC_COR_DEFAULT_SIGMA);
  int rc = skc_offsets_check(a->offsets, a->vertex_count, err);
  if (rc) return rc;
  for (size_t i = 0; i < 3 * a->vertex_count; ++i)
    if (!isfinite(a->positions[i]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "position of vertex %zu is not finite", i / 3);
  for (size_t e = 0; e < a->offsets[a->vertex_count]; ++e) {
    if (a->joints[e] >= a->joint_count)
      return skc_fail(err, SKC_OUT_OF_RANGE, "influence %zu names joint %u, joint_count is %zu", e, a->joints[e],
                      a->joint_count);
    if (!isfinite(a->weights[e]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "weight of influence %zu is not finite", e);
  }
  for (size_t i = 0; i < 3 * a->triangle_count; ++i)
    if (a->triangles[i] >= a->vertex_count)
      return skc_fail(err, SKC_OUT_OF_RANGE, "triangle %zu names vertex %u, vertex_count is %zu", i / 3,
                      a->triangles[i], a->vertex_count);
  return SKC_OK;
}

/* ---------------------------------------------------------------------------------------------- stages */

typedef struct cor_state {
  vecset vv;          /* distinct canonical vertex vectors */
  uint32_t* vid;      /* vertex -> index in vv */
  vecset tv;          /* distinct triangle vectors with >= 2 joints */
  double* tmass;      /* per triangle vector (then per merged cell): sum A_t, sum A_t c_t (4 doubles) */
  size_t n_tmass, cap_tmass;
  /* pair index: buckets of (w_j, w_k, triangle vector) */
  size_t pair_mask;
  uint64_t* pair_key; /* (j << 32 | k) + 1; 0 = empty */
  uint32_t* pair_bucket;
  size_t buckets;
  size_t* bucket_off;
  struct pair_entry {
    float wj, wk;
    uint32_t t;
  }* entries;
  /* the buckets again for the walk, streamed: per bucket (starts in soa_off, padded to a multiple of 8 with
   * massless entries) w_j, w_k and the masses times w_j w_k (four arrays), all floats, the masses scaled to the
   * model (build_soa): a task's sums are kept in double across blocks (block_sums_*), and a mass's rounding (6e-8
   * relative) is far below the cell merging's error */
  size_t* soa_off;
  size_t soa_n;
  float *wj, *wk;
  float* m[4];
  bool avx2, avx512;
  double* centre; /* per vertex vector: x, y, z, ok */
} cor_state;

static void state_free(cor_state* s) {
  vecset_free(&s->vv);
  vecset_free(&s->tv);
  free(s->vid);
  free(s->tmass);
  free(s->pair_key);
  free(s->pair_bucket);
  free(s->bucket_off);
  free(s->entries);
  free(s->soa_off);
  free(s->wj);
  free(s->m[0]);
  free(s->centre);
}

static int oom(skc_err* err, const char* what) {
  return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the %s of the centres of rotation", what);
}

static int distinct_vertex_vectors(const skc_cor_args* a, cor_state* s, skc_err* err) {
  size_t nv = a->vertex_count, maxn = 0;
  for (size_t v = 0; v < nv; ++v)
    if (a->offsets[v + 1] - a->offsets[v] > maxn) maxn = a->offsets[v + 1] - a->offsets[v];
  uint32_t* j = skc_malloc_big((maxn ? maxn : 1) * sizeof *j);
  float* w = skc_malloc_big((maxn ? maxn : 1) * sizeof *w);
  vecmap map = {0, NULL};
  s->vid = skc_malloc_big(nv * sizeof *s->vid);
  bool ok = j && w && s->vid && vecset_init(&s->vv, 1024, 4096) && vecmap_init(&map, nv);
  for (size_t v = 0; ok && v < nv; ++v) {
    size_t o = a->offsets[v], n = a->offsets[v + 1] - o;
    memcpy(j, a->joints + o, n * sizeof *j);
    memcpy(w, a->weights + o, n * sizeof *w);
    n = canonicalize(j, w, n);
    bool added;
    long long id = vecmap_find_or_add(&map, &s->vv, j, w, n, &added);
    if (id < 0) ok = false;
    else s->vid[v] = (uint32_t)id;
  }
  free(j);
  free(w);
  free(map.slot);
  return ok ? SKC_OK : oom(err, "vertex weight vectors");
}

/* Mean of the three corners' vectors (sorted merge into j / w, room for the three counts). Returns the count. */
static size_t triangle_vector(const vecset* vv, const uint32_t ids[3], uint32_t* j, float* w) {
  size_t n = 0;
  for (int c = 0; c < 3; ++c)
    for (size_t e = vv->off[ids[c]]; e < vv->off[ids[c] + 1]; ++e) {
      j[n] = vv->j[e];
      w[n++] = vv->w[e] * (1.0f / 3.0f);
    }
  return sort_merge(j, w, n); /* the mean of vectors summing to 1 sums to 1: no rescale */
}

static bool tmass_add(cor_state* s, size_t t, bool added, double area, const double c[3]) {
  if (added) s->n_tmass = t + 1;
  if (added && t >= s->cap_tmass) {
    size_t cap = s->cap_tmass ? 2 * s->cap_tmass : 1024;
    double* m = skc_realloc_big(s->tmass, 4 * s->cap_tmass * sizeof *m, 4 * cap * sizeof *m);
    if (!m) return false;
    s->tmass = m;
    s->cap_tmass = cap;
  }
  double* m = s->tmass + 4 * t;
  if (added) m[0] = m[1] = m[2] = m[3] = 0.0;
  m[0] += area;
  m[1] += area * c[0];
  m[2] += area * c[1];
  m[3] += area * c[2];
  return true;
}

static int distinct_triangle_vectors(const skc_cor_args* a, cor_state* s, skc_err* err) {
  size_t maxn = 0;
  for (size_t d = 0; d < s->vv.n; ++d)
    if (s->vv.off[d + 1] - s->vv.off[d] > maxn) maxn = s->vv.off[d + 1] - s->vv.off[d];
  uint32_t* j = skc_malloc_big((3 * maxn + 1) * sizeof *j);
  float* w = skc_malloc_big((3 * maxn + 1) * sizeof *w);
  vecmap map = {0, NULL};
  bool ok = j && w && vecset_init(&s->tv, 1024, 4096) && vecmap_init(&map, a->triangle_count);
  const float* P = a->positions;
  for (size_t t = 0; ok && t < a->triangle_count; ++t) {
    const uint32_t* tri = a->triangles + 3 * t;
    uint32_t ids[3] = {s->vid[tri[0]], s->vid[tri[1]], s->vid[tri[2]]};
    if (s->vv.off[ids[0] + 1] - s->vv.off[ids[0]] < 2 && ids[0] == ids[1] && ids[1] == ids[2]) continue;
    size_t n = triangle_vector(&s->vv, ids, j, w);
    if (n < 2) continue; /* no joint pair: s = 0 for every vertex */
    const float *p0 = P + 3 * (size_t)tri[0], *p1 = P + 3 * (size_t)tri[1], *p2 = P + 3 * (size_t)tri[2];
    double e1[3], e2[3], c[3];
    for (int k = 0; k < 3; ++k) {
      e1[k] = (double)p1[k] - p0[k];
      e2[k] = (double)p2[k] - p0[k];
      c[k] = ((double)p0[k] + p1[k] + p2[k]) / 3.0;
    }
    double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2], z = e1[0] * e2[1] - e1[1] * e2[0];
    double area = 0.5 * sqrt(x * x + y * y + z * z);
    if (!(area > 0.0)) continue;
    bool added;
    long long id = vecmap_find_or_add(&map, &s->tv, j, w, n, &added);
    ok = id >= 0 && tmass_add(s, (size_t)id, added, area, c);
  }
  free(j);
  free(w);
  free(map.slot);
  return ok ? SKC_OK : oom(err, "triangle weight vectors");
}

static uint64_t pair_hash(uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  key ^= key >> 33;
  return key;
}

/* Bucket of the pair (j, k), j < k, or SIZE_MAX. */
static size_t pair_lookup(const cor_state* s, uint32_t j, uint32_t k) {
  uint64_t key = ((uint64_t)j << 32 | k) + 1;
  for (size_t i = (size_t)pair_hash(key) & s->pair_mask;; i = (i + 1) & s->pair_mask) {
    if (s->pair_key[i] == key) return s->pair_bucket[i];
    if (s->pair_key[i] == 0) return SIZE_MAX;
  }
}

/* Bucket of the pair (j, k), inserted as bucket *buckets if new (the table has room by construction). */
static size_t pair_insert(cor_state* s, uint32_t j, uint32_t k, size_t* buckets) {
  uint64_t key = ((uint64_t)j << 32 | k) + 1;
  size_t i = (size_t)pair_hash(key) & s->pair_mask;
  for (; s->pair_key[i] != 0; i = (i + 1) & s->pair_mask)
    if (s->pair_key[i] == key) return s->pair_bucket[i];
  s->pair_key[i] = key;
  s->pair_bucket[i] = (uint32_t)*buckets;
  return (*buckets)++;
}

/* The table holds one key per distinct joint pair (a bucket): at most min(entries, J (J - 1) / 2), J = largest
 * joint named + 1. Sized by the entries as it was, it was mostly empty and far larger than the caches, so every
 * lookup here and in make_tasks missed them (CesiumMan_subdiv2: this stage 5.0-7.9 -> 1.7-1.9 ms, the query
 * tasks 12-17 -> 5.3-5.5 ms; docs/deform.md, session 33). */
static int pair_index(cor_state* s, skc_err* err) {
  size_t pairs = 0, top = 0;
  for (size_t t = 0; t < s->tv.n; ++t) {
    size_t n = s->tv.off[t + 1] - s->tv.off[t];
    pairs += n * (n - 1) / 2;
  }
  for (size_t e = 0; e < s->tv.off[s->tv.n]; ++e) top = s->tv.j[e] > top ? s->tv.j[e] : top;
  size_t keys = top < 65536 && top * (top + 1) / 2 < pairs ? top * (top + 1) / 2 : pairs;
  size_t cap = pow2_at_least(2 * keys + 1);
  s->pair_mask = cap - 1;
  s->pair_key = skc_calloc_big(cap, sizeof *s->pair_key);
  s->pair_bucket = skc_malloc_big(cap * sizeof *s->pair_bucket);
  s->bucket_off = skc_calloc_big(keys + 2, sizeof *s->bucket_off); /* buckets <= keys */
  s->entries = skc_malloc_big((pairs ? pairs : 1) * sizeof *s->entries);
  if (!s->pair_key || !s->pair_bucket || !s->bucket_off || !s->entries || pairs >= UINT32_MAX)
    return oom(err, "joint pair index");
  size_t buckets = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t t = 0; t < s->tv.n; ++t) {
      size_t o = s->tv.off[t], n = s->tv.off[t + 1] - o;
      for (size_t x = 0; x < n; ++x)
        for (size_t y = x + 1; y < n; ++y) {
          size_t b = pair_insert(s, s->tv.j[o + x], s->tv.j[o + y], &buckets);
          if (pass == 0) {
            s->bucket_off[b + 1]++;
          } else {
            struct pair_entry* e = &s->entries[s->bucket_off[b]++];
            e->wj = s->tv.w[o + x];
            e->wk = s->tv.w[o + y];
            e->t = (uint32_t)t;
          }
        }
    }
    if (pass == 0) /* counts -> starts; the fill pass advances each start to the next bucket's */
      for (size_t b = 0; b < buckets; ++b) s->bucket_off[b + 1] += s->bucket_off[b];
    else
      for (size_t b = buckets; b > 0; --b) s->bucket_off[b] = s->bucket_off[b - 1];
  }
  s->bucket_off[0] = 0;
  s->buckets = buckets;
  return SKC_OK;
}

/* ---- cell merging of large buckets: a painted mesh gives (nearly) every triangle its own weight vector, so a
 * bucket may hold ~ the whole blend region and the per-vertex walk becomes O(vertices * triangles) per pair.
 * Entries of a bucket above COR_MERGE_MIN are merged per cell of side sigma / COR_CELLS_PER_SIGMA in (w_j, w_k):
 * masses add up and the cell's weights are the area-weighted mean, so the error of a term is second order in the
 * cell size (relative ~ (1 / COR_CELLS_PER_SIGMA)^2, i.e. ~1e-5 or less; measured in test_cor). ---- */
#define COR_MERGE_MIN 2048
#define COR_CELLS_PER_SIGMA 256.0

typedef struct keyed {
  uint64_t key;
  size_t at;
} keyed;

/* Sorts k[0..n) by key, stably (equal keys keep their order: the entries' order, as the merge's sums need a
 * fixed order), through tmp (n entries): least-significant-digit radix sort, 8 bits a pass, over the bits the
 * largest key uses (two or three passes for the cells of sigma = 0.1; a comparison sort was 9 % of a precompute). */
static void keyed_sort(keyed* k, keyed* tmp, size_t n) {
  uint64_t top = 0;
  for (size_t i = 0; i < n; ++i) top |= k[i].key;
  for (unsigned shift = 0; shift < 64 && (top >> shift); shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; ++i) count[((k[i].key >> shift) & 0xFF) + 1]++;
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (size_t i = 0; i < n; ++i) tmp[count[(k[i].key >> shift) & 0xFF]++] = k[i];
    memcpy(k, tmp, n * sizeof *k);
  }
}

static uint32_t cell_of(float w, double cell) {
  double x = (double)w / cell;
  return x < 4.0e9 ? (uint32_t)x : 4000000000u;
}

static bool tmass_append(cor_state* s, const double m[4]) {
  if (s->n_tmass >= s->cap_tmass) {
    size_t cap = s->cap_tmass ? 2 * s->cap_tmass : 1024;
    double* nm = skc_realloc_big(s->tmass, 4 * s->cap_tmass * sizeof *nm, 4 * cap * sizeof *nm);
    if (!nm) return false;
    s->tmass = nm;
    s->cap_tmass = cap;
  }
  memcpy(s->tmass + 4 * s->n_tmass++, m, 4 * sizeof *m);
  return true;
}

/* Merges bucket b (entries [b0, b1), in k in their order; tmp: sort scratch) into out; returns the merged count, or
 * SIZE_MAX (memory). */
static size_t merge_bucket(cor_state* s, keyed* k, keyed* tmp, size_t n, double cell, struct pair_entry* out) {
  uint32_t top_k = 0; /* the key: (cell of w_j, cell of w_k) as high and low bits, the low ones just wide enough */
  for (size_t i = 0; i < n; ++i) {
    const uint32_t c = cell_of(s->entries[k[i].at].wk, cell);
    top_k = c > top_k ? c : top_k;
  }
  unsigned bits = 0;
  while (bits < 32 && (top_k >> bits)) ++bits;
  for (size_t i = 0; i < n; ++i) {
    const struct pair_entry* e = &s->entries[k[i].at];
    k[i].key = (uint64_t)cell_of(e->wj, cell) << bits | cell_of(e->wk, cell);
  }
  keyed_sort(k, tmp, n);
  size_t m = 0;
  for (size_t i = 0; i < n;) {
    double mass[4] = {0, 0, 0, 0}, wj = 0.0, wk = 0.0;
    size_t i0 = i;
    for (; i < n && k[i].key == k[i0].key; ++i) {
      const struct pair_entry* e = &s->entries[k[i].at];
      const double* tm = s->tmass + 4 * (size_t)e->t;
      for (int c = 0; c < 4; ++c) mass[c] += tm[c];
      wj += tm[0] * e->wj;
      wk += tm[0] * e->wk;
    }
    if (i - i0 == 1) {
      out[m++] = s->entries[k[i0].at];
      continue;
    }
    if (s->n_tmass >= UINT32_MAX || !tmass_append(s, mass)) return SIZE_MAX;
    out[m].wj = (float)(wj / mass[0]);
    out[m].wk = (float)(wk / mass[0]);
    out[m++].t = (uint32_t)(s->n_tmass - 1);
  }
  return m;
}

static int merge_cells(cor_state* s, double sigma, skc_err* err) {
  size_t total = s->bucket_off[s->buckets], big = 0;
  for (size_t b = 0; b < s->buckets; ++b)
    if (s->bucket_off[b + 1] - s->bucket_off[b] > big) big = s->bucket_off[b + 1] - s->bucket_off[b];
  if (big <= COR_MERGE_MIN) return SKC_OK;
  struct pair_entry* out = skc_malloc_big((total ? total : 1) * sizeof *out);
  keyed* k = skc_malloc_big(2 * big * sizeof *k);
  if (!out || !k) {
    free(out);
    free(k);
    return oom(err, "merged joint pair index");
  }
  double cell = sigma / COR_CELLS_PER_SIGMA;
  size_t w = 0, start = 0;
  for (size_t b = 0; b < s->buckets; ++b) {
    size_t b0 = s->bucket_off[b], n = s->bucket_off[b + 1] - b0;
    if (n <= COR_MERGE_MIN) {
      memcpy(out + w, s->entries + b0, n * sizeof *out);
      w += n;
    } else {
      for (size_t i = 0; i < n; ++i) k[i].at = b0 + i;
      size_t m = merge_bucket(s, k, k + big, n, cell, out + w);
      if (m == SIZE_MAX) {
        free(out);
        free(k);
        return oom(err, "merged joint pair index");
      }
      w += m;
    }
    s->bucket_off[b] = start; /* bucket_off[b + 1] is read (unchanged) in the next round */
    start = w;
  }
  s->bucket_off[s->buckets] = w;
  free(k);
  free(s->entries);
  s->entries = out;
  return SKC_OK;
}

/* ---- the walk: per bucket, sum over its entries of exp(-(p_j w_k - p_k w_j)^2 / sigma^2) times the four masses
 * (A, A c) times w_j w_k, streamed from SoA arrays. With AVX2+FMA (when the deformer kernels are not forced below
 * it) 8 entries at a time in float (block_sums_avx2), else 4 lanes in scalar double code whose exponential is a
 * polynomial: 2^n e^r, |r| <= ln 2 / 2, degree 9 Taylor (relative error < 2e-11), 0 below -708 (as libm's). ---- */

static int build_soa(cor_state* s, skc_err* err) {
  size_t nb = s->buckets, n = 0;
  s->soa_off = skc_malloc_big((nb + 1) * sizeof *s->soa_off);
  if (!s->soa_off) return oom(err, "streamed joint pair index");
  for (size_t b = 0; b < nb; ++b) {
    s->soa_off[b] = n;
    n += (s->bucket_off[b + 1] - s->bucket_off[b] + 7) & ~(size_t)7;
  }
  s->soa_off[nb] = n;
  s->soa_n = n;
  s->wj = skc_calloc_big(2 * (n ? n : 1), sizeof *s->wj);
  s->m[0] = skc_calloc_big(4 * (n ? n : 1), sizeof *s->m[0]);
  if (!s->wj || !s->m[0]) return oom(err, "streamed joint pair index");
  s->wk = s->wj + n;
  for (int c = 1; c < 4; ++c) s->m[c] = s->m[0] + (size_t)c * n;
  /* the masses scaled by one power of two (exact; the centres are ratios of the sums) so that the largest is about
   * 1 and float holds them whatever the model's units (areas times coordinates of 1e13 would overflow float) */
  double top = 0.0;
  for (size_t e = 0; e < s->bucket_off[nb]; ++e)
    for (int c = 0; c < 4; ++c) {
      const struct pair_entry* pe = &s->entries[e];
      double x = fabs(s->tmass[4 * (size_t)pe->t + c] * ((double)pe->wj * pe->wk));
      top = x > top ? x : top;
    }
  int ex = 0;
  if (top > 0.0) frexp(top, &ex);
  const double unit = ldexp(1.0, -ex);
  for (size_t b = 0; b < nb; ++b)
    for (size_t e = s->bucket_off[b], o = s->soa_off[b]; e < s->bucket_off[b + 1]; ++e, ++o) {
      const struct pair_entry* pe = &s->entries[e];
      const double* tm = s->tmass + 4 * (size_t)pe->t;
      double wjk = (double)pe->wj * pe->wk;
      s->wj[o] = pe->wj;
      s->wk[o] = pe->wk;
      for (int c = 0; c < 4; ++c) s->m[c][o] = (float)(tm[c] * wjk * unit);
    }
  return SKC_OK;
}

#define COR_EXP_MIN -708.0
#define COR_LOG2E 1.4426950408889634
#define COR_LN2_HI 0.693145751953125
#define COR_LN2_LO 1.42860682030941723212e-6
#define COR_ROUND 6755399441055744.0 /* 1.5 * 2^52: adding it rounds to an integer held in the low bits */

static double exp_le0(double x) {
  if (x < COR_EXP_MIN) return 0.0;
  double k = x * COR_LOG2E + COR_ROUND, n = k - COR_ROUND;
  double r = (x - n * COR_LN2_HI) - n * COR_LN2_LO;
  double p = 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  uint64_t bits;
  memcpy(&bits, &k, sizeof bits);
  bits = (bits + 1023) << 52;
  double scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

/* acc[c][l] += over the entries [o, o + n) (n a multiple of 4) at lane l = e % 4 of c's mass times the kernel. */
static void block_sums_scalar(const cor_state* s, size_t o, size_t n, double pj, double pk, double neg_inv_s2,
                              double acc[4][4]) {
  for (size_t i = o; i < o + n; i += 4)
    for (int l = 0; l < 4; ++l) {
      double u = pj * s->wk[i + l] - pk * s->wj[i + l];
      double g = exp_le0(u * u * neg_inv_s2);
      for (int c = 0; c < 4; ++c) acc[c][l] += g * (double)s->m[c][i + l];
    }
}

#if defined(COR_HAVE_AVX2)
/* e^x for x <= 0 in float (cephes' expf polynomial, relative error ~1e-7), 0 below COR_EXPF_MIN */
#define COR_EXPF_MIN -86.0f

/* its constants (2^n e^r, |r| <= ln 2 / 2), shared by the 8- and 16-wide walks */
#define COR_EXPF_LOG2E 1.44269504f
#define COR_EXPF_SHIFT 12582912.0f /* 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits */
#define COR_EXPF_LN2_HI 0.693359375f
#define COR_EXPF_LN2_LO (-2.12194440e-4f)
#define COR_EXPF_P0 1.9875691500e-4f
#define COR_EXPF_P1 1.3981999507e-3f
#define COR_EXPF_P2 8.3334519073e-3f
#define COR_EXPF_P3 4.1665795894e-2f
#define COR_EXPF_P4 1.6666665459e-1f
#define COR_EXPF_P5 5.0000001201e-1f
__attribute__((target("avx2,fma"))) static __m256 expf_le0_avx2(__m256 x) {
  __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(COR_EXPF_MIN), _CMP_GE_OQ);
  x = _mm256_max_ps(x, _mm256_set1_ps(COR_EXPF_MIN));
  __m256 k = _mm256_fmadd_ps(x, _mm256_set1_ps(COR_EXPF_LOG2E), _mm256_set1_ps(COR_EXPF_SHIFT));
  __m256 n = _mm256_sub_ps(k, _mm256_set1_ps(COR_EXPF_SHIFT));
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(COR_EXPF_LN2_HI), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(COR_EXPF_LN2_LO), r);
  __m256 p = _mm256_set1_ps(COR_EXPF_P0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(COR_EXPF_P1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(COR_EXPF_P2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(COR_EXPF_P3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(COR_EXPF_P4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(COR_EXPF_P5));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_castps_si256(k), _mm256_set1_epi32(127)), 23);
  return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(bits)), keep);
}

/* As block_sums_scalar, the kernel in float (8 wide) and summed in float over the block (at most COR_BLOCK / 8
 * terms per lane: relative error ~1e-6 at worst, below the grid's and the cell merging's), then added in double to
 * lane l % 4 of the task's sums; returns the largest kernel value met, so that a task whose terms are all tiny
 * (float's range and relative error are then not enough) can be redone in double. Float sums: 4 FMAs per 8 terms
 * instead of 8 double FMAs and 2 conversions (CesiumMan_subdiv2, docs/deform.md). */
__attribute__((target("avx2,fma"))) static float block_sums_avx2(const cor_state* s, size_t o, size_t n, double pj,
                                                                double pk, double neg_inv_s2, double acc_io[4][4]) {
  __m256 vpj = _mm256_set1_ps((float)pj), vpk = _mm256_set1_ps((float)pk), vs = _mm256_set1_ps((float)neg_inv_s2);
  __m256 gmax = _mm256_setzero_ps();
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  for (size_t i = o; i < o + n; i += 8) {
    __m256 u = _mm256_fmsub_ps(vpj, _mm256_loadu_ps(s->wk + i), _mm256_mul_ps(vpk, _mm256_loadu_ps(s->wj + i)));
    __m256 g = expf_le0_avx2(_mm256_mul_ps(_mm256_mul_ps(u, u), vs));
    gmax = _mm256_max_ps(gmax, g);
    for (int c = 0; c < 4; ++c) acc[c] = _mm256_fmadd_ps(g, _mm256_loadu_ps(s->m[c] + i), acc[c]);
  }
  for (int c = 0; c < 4; ++c) {
    __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(acc[c])), hi = _mm256_cvtps_pd(_mm256_extractf128_ps(acc[c], 1));
    _mm256_storeu_pd(acc_io[c], _mm256_add_pd(_mm256_loadu_pd(acc_io[c]), _mm256_add_pd(lo, hi)));
  }
  float l[8];
  _mm256_storeu_ps(l, gmax);
  float m = l[0];
  for (int i = 1; i < 8; ++i) m = l[i] > m ? l[i] : m;
  return m;
}
/* The same 16 entries at a time (AVX-512 F): the exponential and the sums as block_sums_avx2, the last 8 entries
 * of a block (blocks are multiples of 8) masked; a task's sums then differ from the AVX2 walk's by float rounding
 * only (they still do not depend on the grouping or the threads). */
__attribute__((target("avx512f,fma"))) static __m512 expf_le0_avx512(__m512 x) {
  __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(COR_EXPF_MIN), _CMP_GE_OQ);
  x = _mm512_max_ps(x, _mm512_set1_ps(COR_EXPF_MIN));
  __m512 k = _mm512_fmadd_ps(x, _mm512_set1_ps(COR_EXPF_LOG2E), _mm512_set1_ps(COR_EXPF_SHIFT));
  __m512 n = _mm512_sub_ps(k, _mm512_set1_ps(COR_EXPF_SHIFT));
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(COR_EXPF_LN2_HI), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(COR_EXPF_LN2_LO), r);
  __m512 p = _mm512_set1_ps(COR_EXPF_P0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(COR_EXPF_P1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(COR_EXPF_P2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(COR_EXPF_P3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(COR_EXPF_P4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(COR_EXPF_P5));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_castps_si512(k), _mm512_set1_epi32(127)), 23);
  return _mm512_maskz_mul_ps(keep, p, _mm512_castsi512_ps(bits));
}

__attribute__((target("avx512f,fma"))) static float block_sums_avx512(const cor_state* s, size_t o, size_t n,
                                                                    double pj, double pk, double neg_inv_s2,
                                                                    double acc_io[4][4]) {
  const __m512 vpj = _mm512_set1_ps((float)pj), vpk = _mm512_set1_ps((float)pk), vs = _mm512_set1_ps((float)neg_inv_s2);
  __m512 gmax = _mm512_setzero_ps();
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  for (size_t i = o; i < o + n; i += 16) {
    const __mmask16 in = o + n - i >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff; /* n is a multiple of 8 */
    __m512 u = _mm512_fmsub_ps(vpj, _mm512_maskz_loadu_ps(in, s->wk + i), _mm512_mul_ps(vpk, _mm512_maskz_loadu_ps(in, s->wj + i)));
    __m512 g = _mm512_maskz_mov_ps(in, expf_le0_avx512(_mm512_mul_ps(_mm512_mul_ps(u, u), vs)));
    gmax = _mm512_max_ps(gmax, g);
    for (int c = 0; c < 4; ++c) acc[c] = _mm512_fmadd_ps(g, _mm512_maskz_loadu_ps(in, s->m[c] + i), acc[c]);
  }
  for (int c = 0; c < 4; ++c) {
    __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(acc[c]));
    __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc[c]), 1)));
    __m512d sum = _mm512_add_pd(lo, hi);
    __m256d four = _mm256_add_pd(_mm512_castpd512_pd256(sum), _mm512_extractf64x4_pd(sum, 1));
    _mm256_storeu_pd(acc_io[c], _mm256_add_pd(_mm256_loadu_pd(acc_io[c]), four));
  }
  return _mm512_reduce_max_ps(gmax);
}

static bool use_avx512(void) { return skc_deform_active_kernel() == SKC_KERNEL_AVX512; }
#endif

static bool use_avx2(void) {
#if defined(COR_HAVE_AVX2)
  skc_deform_kernel k = skc_deform_active_kernel();
  return k == SKC_KERNEL_AVX2 || k == SKC_KERNEL_AVX512;
#else
  return false;
#endif
}

/* ---- tasks: one per (distinct vertex vector, joint pair of it with a bucket). They are run grouped by bucket,
 * COR_GROUP at a time over blocks of COR_BLOCK entries, so a block is read from memory once per group instead of
 * once per task (a large bucket is ~ 0.5 MB); each task keeps its lanes between blocks, so its sums do not depend
 * on the grouping or the threads. ---- */
#define COR_GROUP 16
#define COR_BLOCK 512

typedef struct cor_task {
  uint32_t b;      /* bucket */
  double pj, pk;   /* the vertex vector's weights of the pair */
  double sum[4];   /* out: the bucket's sums (A, A c) */
} cor_task;

/* A task whose largest kernel value stays below this (x < -9.7) is redone in double. */
#define COR_FLOAT_MIN 6e-5f

static void run_group(const cor_state* s, cor_task* const* g, size_t n, double neg_inv_s2) {
  double acc[COR_GROUP][4][4];
  float gmax[COR_GROUP];
  memset(acc, 0, sizeof acc);
  memset(gmax, 0, sizeof gmax);
  size_t o = s->soa_off[g[0]->b], end = s->soa_off[g[0]->b + 1];
  for (size_t blk = o; blk < end; blk += COR_BLOCK) {
    size_t len = end - blk < COR_BLOCK ? end - blk : COR_BLOCK;
    for (size_t t = 0; t < n; ++t) {
#if defined(COR_HAVE_AVX2)
      if (s->avx512) {
        float m = block_sums_avx512(s, blk, len, g[t]->pj, g[t]->pk, neg_inv_s2, acc[t]);
        gmax[t] = m > gmax[t] ? m : gmax[t];
        continue;
      }
      if (s->avx2) {
        float m = block_sums_avx2(s, blk, len, g[t]->pj, g[t]->pk, neg_inv_s2, acc[t]);
        gmax[t] = m > gmax[t] ? m : gmax[t];
        continue;
      }
#endif
      block_sums_scalar(s, blk, len, g[t]->pj, g[t]->pk, neg_inv_s2, acc[t]);
    }
  }
  for (size_t t = 0; s->avx2 && t < n; ++t)
    if (gmax[t] < COR_FLOAT_MIN) {
      memset(acc[t], 0, sizeof acc[t]);
      block_sums_scalar(s, o, end - o, g[t]->pj, g[t]->pk, neg_inv_s2, acc[t]);
    }
  for (size_t t = 0; t < n; ++t)
    for (int c = 0; c < 4; ++c) g[t]->sum[c] = (acc[t][c][0] + acc[t][c][1]) + (acc[t][c][2] + acc[t][c][3]);
}

/* Tasks of every vertex vector in order (starts in *first, nd + 1), or NULL (memory). */
static cor_task* make_tasks(const cor_state* s, size_t** first) {
  size_t nd = s->vv.n, n = 0;
  *first = skc_malloc_big((nd + 1) * sizeof **first);
  for (size_t d = 0; d < nd; ++d) {
    size_t k = s->vv.off[d + 1] - s->vv.off[d];
    n += k * (k - 1) / 2;
  }
  cor_task* t = skc_malloc_big((n ? n : 1) * sizeof *t);
  if (!*first || !t) {
    free(t);
    return NULL;
  }
  n = 0;
  for (size_t d = 0; d < nd; ++d) {
    (*first)[d] = n;
    size_t o = s->vv.off[d], k = s->vv.off[d + 1] - o;
    for (size_t x = 0; x < k; ++x)
      for (size_t y = x + 1; y < k; ++y) {
        size_t b = pair_lookup(s, s->vv.j[o + x], s->vv.j[o + y]);
        if (b == SIZE_MAX) continue;
        t[n].b = (uint32_t)b;
        t[n].pj = s->vv.w[o + x];
        t[n++].pk = s->vv.w[o + y];
      }
  }
  (*first)[nd] = n;
  return t;
}

/* Pointers to the tasks sorted by bucket (stable), or NULL (memory). */
static cor_task** tasks_by_bucket(const cor_state* s, cor_task* t, size_t n) {
  size_t* start = skc_calloc_big(s->buckets + 1, sizeof *start);
  cor_task** by = skc_malloc_big((n ? n : 1) * sizeof *by);
  if (!start || !by) {
    free(start);
    free(by);
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) start[t[i].b + 1]++;
  for (size_t b = 0; b < s->buckets; ++b) start[b + 1] += start[b];
  for (size_t i = 0; i < n; ++i) by[start[t[i].b]++] = &t[i];
  free(start);
  return by;
}

/* ---- interpolation grids. A bucket's four sums are smooth functions of the query's (p_j, p_k): a sum of
 * Gaussians of width sigma across lines through the origin. Where a bucket has far more queries than grid nodes
 * around them (large meshes, painted weights: one query per distinct vertex vector), the nodes at spacing
 * h = sigma / COR_GRID_PER_SIGMA are computed as tasks and each query takes the tensor-product Lagrange
 * interpolation of the COR_GRID_ORDER x COR_GRID_ORDER nodes around it (quintic: 6 x 6 at sigma / 4); the bucket's
 * cost then grows with its nodes (bounded by the unit square) instead of with its queries. Measured on
 * CesiumMan_subdiv2: centres within 1.8e-6 of the diagonal from the walk's (the cubic at sigma / 8 before: 1.2e-6,
 * with 1.7x the nodes; docs/deform.md). An interpolant can overshoot on a steep Gaussian tail, down to a
 * non-positive sum (which would drop the vertex's similarity): a query whose stencil's mass sums are not all
 * positive or differ by more than COR_GRID_STEEP times is walked exactly instead. ---- */
#define COR_GRID_PER_SIGMA 4.0
#define COR_GRID_ORDER 6                   /* nodes per axis of a query's stencil (Lagrange points) */
#define COR_GRID_BEHIND (COR_GRID_ORDER / 2 - 1) /* stencil nodes before the query's cell */
#define COR_GRID_MAX_BOX ((size_t)1 << 20) /* nodes in one bucket's bounding box */
#define COR_GRID_INTERP_COST (6 * COR_GRID_ORDER * COR_GRID_ORDER) /* one interpolation, in kernel terms */
#define COR_GRID_STEEP 8.0
#define COR_GRID_MIN_H 1e-9 /* node indices of weights <= 1 stay far inside long long (and the box cap applies) */

typedef struct cor_grid {
  long long i0, k0;  /* box node (0, 0) is node (i0, k0), at (i0 h, k0 h) */
  size_t nx, ny;
  uint32_t* node;    /* nx * ny: 1 + index of the node's task, 0 = not needed; NULL: bucket walked exactly */
} cor_grid;

/* The work of a solve: the query tasks (per distinct vertex vector), the same sorted by bucket, grids and their
 * node tasks, and the lists of tasks to walk. */
typedef struct cor_work {
  cor_task* tasks;
  size_t* first; /* per distinct vertex vector, its first task (nd + 1) */
  cor_task** by; /* tasks by bucket */
  size_t* bstart; /* per bucket, its first task in by (buckets + 1) */
  double h;
  uint32_t flags;  /* skc_cor_args.flags */
  cor_grid* grid; /* per bucket */
  cor_task* nodes;
  size_t n_nodes;
  cor_task** run; /* walked: every node task and the queries of buckets without a grid; then the steep queries */
  size_t n_run;
} cor_work;

static void work_free(cor_work* w, size_t buckets) {
  for (size_t b = 0; w->grid && b < buckets; ++b) free(w->grid[b].node);
  free(w->grid);
  free(w->nodes);
  free(w->run);
  free(w->bstart);
  free(w->by);
  free(w->tasks);
  free(w->first);
}

/* Node index and fraction of coordinate p at spacing h. */
static long long grid_base(double p, double h, double* t) {
  double x = p / h, f = floor(x);
  *t = x - f;
  return (long long)f;
}

/* Marks the stencils of bucket b's queries in a new grid; returns the nodes marked, 0 when the bucket is better
 * walked exactly (few queries, box too large, or the grid would not save a fifth of its kernel terms, counting an
 * interpolation as COR_GRID_INTERP_COST terms). */
static size_t grid_plan(const cor_state* s, cor_work* w, size_t b) {
  cor_task* const* q = w->by + w->bstart[b];
  size_t nq = w->bstart[b + 1] - w->bstart[b], ne = s->soa_off[b + 1] - s->soa_off[b];
  if (nq < 64 || (w->flags & SKC_COR_EXACT) || !(w->h >= COR_GRID_MIN_H)) return 0;
  double t;
  long long imin = LLONG_MAX, imax = LLONG_MIN, kmin = LLONG_MAX, kmax = LLONG_MIN;
  for (size_t i = 0; i < nq; ++i) {
    long long x = grid_base(q[i]->pj, w->h, &t), y = grid_base(q[i]->pk, w->h, &t);
    imin = x < imin ? x : imin, imax = x > imax ? x : imax;
    kmin = y < kmin ? y : kmin, kmax = y > kmax ? y : kmax;
  }
  cor_grid* g = &w->grid[b];
  g->i0 = imin - COR_GRID_BEHIND, g->k0 = kmin - COR_GRID_BEHIND;
  g->nx = (size_t)(imax - imin + COR_GRID_ORDER), g->ny = (size_t)(kmax - kmin + COR_GRID_ORDER);
  if (g->nx * g->ny > COR_GRID_MAX_BOX || !(g->node = calloc(g->nx * g->ny, sizeof *g->node))) return 0;
  size_t marked = 0;
  for (size_t i = 0; i < nq; ++i) {
    size_t x = (size_t)(grid_base(q[i]->pj, w->h, &t) - COR_GRID_BEHIND - g->i0);
    size_t y = (size_t)(grid_base(q[i]->pk, w->h, &t) - COR_GRID_BEHIND - g->k0);
    for (size_t dy = 0; dy < COR_GRID_ORDER; ++dy)
      for (size_t dx = 0; dx < COR_GRID_ORDER; ++dx) {
        uint32_t* m = &g->node[(y + dy) * g->nx + x + dx];
        marked += !*m;
        *m = 1;
      }
  }
  if (5 * (marked * ne + nq * COR_GRID_INTERP_COST) < 4 * nq * ne) return marked;
  free(g->node);
  g->node = NULL;
  return 0;
}

/* Grids for the buckets that gain from one, their node tasks, and the first walk list. Returns false (memory). */
static bool grid_tasks(const cor_state* s, cor_work* w) {
  size_t nb = s->buckets, total = 0;
  w->grid = calloc(nb ? nb : 1, sizeof *w->grid);
  if (!w->grid) return false;
  for (size_t b = 0; b < nb; ++b) total += grid_plan(s, w, b);
  w->nodes = skc_malloc_big((total ? total : 1) * sizeof *w->nodes);
  w->run = skc_malloc_big((w->bstart[nb] + total + 1) * sizeof *w->run);
  if (!w->nodes || !w->run || total >= UINT32_MAX) return false;
  for (size_t b = 0; b < nb; ++b) {
    cor_grid* g = &w->grid[b];
    if (!g->node) {
      for (size_t i = w->bstart[b]; i < w->bstart[b + 1]; ++i) w->run[w->n_run++] = w->by[i];
      continue;
    }
    for (size_t y = 0; y < g->ny; ++y)
      for (size_t x = 0; x < g->nx; ++x) {
        uint32_t* m = &g->node[y * g->nx + x];
        if (!*m) continue;
        cor_task* n = &w->nodes[w->n_nodes];
        *n = (cor_task){(uint32_t)b, (double)(g->i0 + (long long)x) * w->h, (double)(g->k0 + (long long)y) * w->h,
                        {0.0, 0.0, 0.0, 0.0}};
        w->run[w->n_run++] = n;
        *m = (uint32_t)++w->n_nodes;
      }
  }
  return true;
}

/* Lagrange weights at fraction t of the interval between nodes 0 and 1, over the stencil's nodes x_n = n -
 * COR_GRID_BEHIND (n < COR_GRID_ORDER): l_m = prod_{n != m} (t - x_n) / (m - n), the numerators from prefix and
 * suffix products, the denominators (-1)^(ORDER-1-m) m! (ORDER-1-m)!. */
static void lagrange(double t, double l[COR_GRID_ORDER]) {
  static const double fact[8] = {1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0};
  _Static_assert(COR_GRID_ORDER <= 8, "fact[] covers orders up to 8");
  double pre[COR_GRID_ORDER + 1], suf[COR_GRID_ORDER + 1];
  pre[0] = suf[COR_GRID_ORDER] = 1.0;
  for (int n = 0; n < COR_GRID_ORDER; ++n) pre[n + 1] = pre[n] * (t - (double)(n - COR_GRID_BEHIND));
  for (int n = COR_GRID_ORDER - 1; n >= 0; --n) suf[n] = suf[n + 1] * (t - (double)(n - COR_GRID_BEHIND));
  for (int m = 0; m < COR_GRID_ORDER; ++m) {
    double den = fact[m] * fact[COR_GRID_ORDER - 1 - m];
    l[m] = pre[m] * suf[m + 1] / ((COR_GRID_ORDER - 1 - m) % 2 ? -den : den);
  }
}

/* Query q's sums from its bucket's grid; false when the stencil is too steep (then q is to be walked). */
static bool grid_interpolate(const cor_work* w, const cor_grid* g, cor_task* q) {
  double tx, ty, lx[COR_GRID_ORDER], ly[COR_GRID_ORDER], lo = INFINITY, hi = 0.0, sum[4] = {0.0, 0.0, 0.0, 0.0};
  size_t x = (size_t)(grid_base(q->pj, w->h, &tx) - COR_GRID_BEHIND - g->i0);
  size_t y = (size_t)(grid_base(q->pk, w->h, &ty) - COR_GRID_BEHIND - g->k0);
  lagrange(tx, lx);
  lagrange(ty, ly);
  for (size_t dy = 0; dy < COR_GRID_ORDER; ++dy)
    for (size_t dx = 0; dx < COR_GRID_ORDER; ++dx) {
      const double* ns = w->nodes[g->node[(y + dy) * g->nx + x + dx] - 1].sum;
      lo = ns[0] < lo ? ns[0] : lo, hi = ns[0] > hi ? ns[0] : hi;
      for (int c = 0; c < 4; ++c) sum[c] += lx[dx] * ly[dy] * ns[c];
    }
  /* with the stencil's sums within COR_GRID_STEEP of each other, the order-6 weights (some negative) could still,
   * in principle, interpolate a non-positive mass: such a query is walked too */
  if (!(lo > 0.0) || hi > COR_GRID_STEEP * lo || !(sum[0] > 0.0)) return false;
  memcpy(q->sum, sum, sizeof sum);
  return true;
}

/* Walks the listed tasks (sorted by bucket): groups of up to COR_GROUP tasks of one bucket, OpenMP over the
 * groups. Returns false (memory). */
static bool walk(const cor_state* s, cor_task** list, size_t n, double neg_inv_s2, int threads) {
  size_t* gstart = skc_malloc_big((n + 1) * sizeof *gstart), groups = 0;
  if (!gstart) return false;
  for (size_t i = 0; i < n; ++i)
    if (i == 0 || list[i]->b != list[i - 1]->b || i - gstart[groups - 1] == COR_GROUP) gstart[groups++] = i;
  gstart[groups] = n;
  long long count = (long long)groups;
#if defined(SK_HAVE_OPENMP)
  int nth = count < 4 ? 1 : threads;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
#else
  (void)threads;
#endif
  for (long long g = 0; g < count; ++g)
    run_group(s, list + gstart[g], gstart[g + 1] - gstart[g], neg_inv_s2);
  free(gstart);
  return true;
}

/* Fills the sums of the grid buckets' queries; the steep ones are collected in w->run (sorted by bucket) and
 * walked. */
static bool grid_finish(const cor_state* s, cor_work* w, double neg_inv_s2, int threads) {
  const size_t nq = w->bstart[s->buckets];
  uint8_t* steep = skc_calloc_big(nq ? nq : 1, 1);
  if (!steep) return false;
  const long long n = (long long)nq;
#if defined(SK_HAVE_OPENMP)
  int nth = n < 4096 ? 1 : threads;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1024)
#endif
  for (long long i = 0; i < n; ++i) {
    const cor_grid* g = &w->grid[w->by[i]->b];
    steep[i] = g->node && !grid_interpolate(w, g, w->by[i]);
  }
  w->n_run = 0;
  for (size_t i = 0; i < nq; ++i)
    if (steep[i]) w->run[w->n_run++] = w->by[i];
  free(steep);
  return walk(s, w->run, w->n_run, neg_inv_s2, threads);
}

static void work_stats(const cor_state* s, const cor_work* w, skc_cor_stats* st) {
  st->queries = w->bstart[s->buckets];
  st->nodes = w->n_nodes;
  st->steep = w->n_run; /* the last walk list: the steep queries */
  st->interpolated = 0;
  for (size_t b = 0; b < s->buckets; ++b)
    if (w->grid[b].node) st->interpolated += w->bstart[b + 1] - w->bstart[b];
  st->interpolated -= w->n_run;
}

/* Query tasks, sorted by bucket, and the per-bucket starts. Returns false (memory). */
static bool query_tasks(const cor_state* s, cor_work* w) {
  w->tasks = make_tasks(s, &w->first);
  if (!w->tasks) return false;
  size_t nt = w->first[s->vv.n];
  w->by = tasks_by_bucket(s, w->tasks, nt);
  w->bstart = skc_calloc_big(s->buckets + 1, sizeof *w->bstart);
  if (!w->by || !w->bstart) return false;
  for (size_t i = 0; i < nt; ++i) w->bstart[w->tasks[i].b + 1]++;
  for (size_t b = 0; b < s->buckets; ++b) w->bstart[b + 1] += w->bstart[b];
  return true;
}

/* Centre of distinct vertex vector d from its tasks into out[4] (x, y, z, 1), or out[3] = 0 when nothing is
 * similar. */
static void centre_of(const cor_task* t, size_t n, double out[4]) {
  double sum[4] = {0.0, 0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 4; ++c) sum[c] += t[i].pj * t[i].pk * t[i].sum[c];
  out[3] = 0.0;
  if (sum[0] > 0.0 && isfinite(sum[0])) {
    out[0] = sum[1] / sum[0];
    out[1] = sum[2] / sum[0];
    out[2] = sum[3] / sum[0];
    out[3] = 1.0;
  }
}

static int solve(const skc_cor_args* a, cor_state* s, skc_err* err) {
  size_t nd = s->vv.n;
  s->centre = skc_malloc_big(4 * nd * sizeof *s->centre);
  if (!s->centre) return oom(err, "centres");
  double sigma = a->sigma > 0.0f ? (double)a->sigma : (double)SKC_COR_DEFAULT_SIGMA;
  int rc = merge_cells(s, sigma, err);
  if (!rc) rc = build_soa(s, err);
  if (rc) return rc;
  s->avx2 = use_avx2();
#if defined(COR_HAVE_AVX2)
  s->avx512 = s->avx2 && use_avx512();
#endif
  double neg_inv_s2 = -1.0 / (sigma * sigma);
  int threads = 1;
#if defined(SK_HAVE_OPENMP)
  threads = a->threads == 0 ? omp_get_max_threads() : (int)(a->threads > 4096 ? 4096 : a->threads);
#endif
  cor_work w;
  memset(&w, 0, sizeof w);
  w.h = sigma / COR_GRID_PER_SIGMA;
  w.flags = a->flags;
  bool ok = query_tasks(s, &w) && grid_tasks(s, &w) && walk(s, w.run, w.n_run, neg_inv_s2, threads) &&
            grid_finish(s, &w, neg_inv_s2, threads);
  if (ok)
    for (size_t d = 0; d < nd; ++d) centre_of(w.tasks + w.first[d], w.first[d + 1] - w.first[d], s->centre + 4 * d);
  if (ok && a->stats) work_stats(s, &w, a->stats);
  work_free(&w, s->buckets);
  return ok ? SKC_OK : oom(err, "tasks");
}

int skc_cor_compute(const skc_cor_args* a, float* out_centers, skc_err* err) {
  int rc = check_args(a, out_centers, err);
  if (rc) return rc;
  cor_state s;
  memset(&s, 0, sizeof s);
  rc = distinct_vertex_vectors(a, &s, err);
  if (!rc) rc = distinct_triangle_vectors(a, &s, err);
  if (!rc) rc = pair_index(&s, err);
  if (!rc) rc = solve(a, &s, err);
  if (!rc) {
    for (size_t v = 0; v < a->vertex_count; ++v) {
      const double* c = s.centre + 4 * (size_t)s.vid[v];
      for (int k = 0; k < 3; ++k) out_centers[3 * v + k] = c[3] != 0.0 ? (float)c[k] : a->positions[3 * v + k];
    }
    skc_err_clear(err);
  }
  state_free(&s);
  return rc;
}
