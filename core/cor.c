/* cor.c - precompute of the optimized centres of rotation (see skc_cor.h for the formula and the shortcuts).
 *
 * Steps: canonical weight vector per vertex (sorted, merged, positive, sum 1) -> distinct vertex vectors (hash)
 * -> distinct triangle vectors with summed area and area-weighted centroid (hash) -> index of the triangle
 * vectors by joint pair -> per distinct vertex vector, the similarity-weighted mean over the triangle vectors of
 * its pairs (OpenMP) -> centre per vertex. s(a, b) is a sum of one term per shared joint pair, so walking the
 * pair buckets and adding each bucket's term gives exactly the full sum, with no triangle visited for a pair it
 * lacks. Sums are in double.
 */
#include "skc_cor.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skc_skin.h"

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
  s->off = malloc((s->cap_n + 1) * sizeof *s->off);
  s->j = malloc(s->cap_e * sizeof *s->j);
  s->w = malloc(s->cap_e * sizeof *s->w);
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
    size_t* o = realloc(s->off, (2 * s->cap_n + 1) * sizeof *o);
    if (!o) return false;
    s->off = o;
    s->cap_n *= 2;
  }
  if (e + n > s->cap_e) {
    size_t cap = 2 * s->cap_e > e + n ? 2 * s->cap_e : e + n;
    uint32_t* nj = realloc(s->j, cap * sizeof *nj);
    if (!nj) return false;
    s->j = nj;
    float* nw = realloc(s->w, cap * sizeof *nw);
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
  m->slot = calloc(cap, sizeof *m->slot);
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
  free(s->centre);
}

static int oom(skc_err* err, const char* what) {
  return skc_fail(err, SKC_OUT_OF_MEMORY, "no memory for the %s of the centres of rotation", what);
}

static int distinct_vertex_vectors(const skc_cor_args* a, cor_state* s, skc_err* err) {
  size_t nv = a->vertex_count, maxn = 0;
  for (size_t v = 0; v < nv; ++v)
    if (a->offsets[v + 1] - a->offsets[v] > maxn) maxn = a->offsets[v + 1] - a->offsets[v];
  uint32_t* j = malloc((maxn ? maxn : 1) * sizeof *j);
  float* w = malloc((maxn ? maxn : 1) * sizeof *w);
  vecmap map = {0, NULL};
  s->vid = malloc(nv * sizeof *s->vid);
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
    double* m = realloc(s->tmass, 4 * cap * sizeof *m);
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
  uint32_t* j = malloc((3 * maxn + 1) * sizeof *j);
  float* w = malloc((3 * maxn + 1) * sizeof *w);
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

static int pair_index(cor_state* s, skc_err* err) {
  size_t pairs = 0;
  for (size_t t = 0; t < s->tv.n; ++t) {
    size_t n = s->tv.off[t + 1] - s->tv.off[t];
    pairs += n * (n - 1) / 2;
  }
  size_t cap = pow2_at_least(2 * pairs + 1);
  s->pair_mask = cap - 1;
  s->pair_key = calloc(cap, sizeof *s->pair_key);
  s->pair_bucket = malloc(cap * sizeof *s->pair_bucket);
  s->bucket_off = calloc(pairs + 2, sizeof *s->bucket_off);
  s->entries = malloc((pairs ? pairs : 1) * sizeof *s->entries);
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

static int keyed_cmp(const void* a, const void* b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

static uint32_t cell_of(float w, double cell) {
  double x = (double)w / cell;
  return x < 4.0e9 ? (uint32_t)x : 4000000000u;
}

static bool tmass_append(cor_state* s, const double m[4]) {
  if (s->n_tmass >= s->cap_tmass) {
    size_t cap = s->cap_tmass ? 2 * s->cap_tmass : 1024;
    double* nm = realloc(s->tmass, 4 * cap * sizeof *nm);
    if (!nm) return false;
    s->tmass = nm;
    s->cap_tmass = cap;
  }
  memcpy(s->tmass + 4 * s->n_tmass++, m, 4 * sizeof *m);
  return true;
}

/* Merges bucket b (entries [b0, b1), sorted copy in k) into out; returns the merged count, or SIZE_MAX (memory). */
static size_t merge_bucket(cor_state* s, keyed* k, size_t n, double cell, struct pair_entry* out) {
  for (size_t i = 0; i < n; ++i) {
    const struct pair_entry* e = &s->entries[k[i].at];
    k[i].key = (uint64_t)cell_of(e->wj, cell) << 32 | cell_of(e->wk, cell);
  }
  qsort(k, n, sizeof *k, keyed_cmp);
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
  struct pair_entry* out = malloc((total ? total : 1) * sizeof *out);
  keyed* k = malloc(big * sizeof *k);
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
      size_t m = merge_bucket(s, k, n, cell, out + w);
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

/* Centre of distinct vertex vector d into out[4] (x, y, z, 1), or out[3] = 0 when no triangle is similar. */
static void centre_of(const cor_state* s, size_t d, double inv_s2, double out[4]) {
  double den = 0.0, num[3] = {0.0, 0.0, 0.0};
  size_t o = s->vv.off[d], n = s->vv.off[d + 1] - o;
  for (size_t x = 0; x < n; ++x)
    for (size_t y = x + 1; y < n; ++y) {
      size_t b = pair_lookup(s, s->vv.j[o + x], s->vv.j[o + y]);
      if (b == SIZE_MAX) continue;
      double pj = s->vv.w[o + x], pk = s->vv.w[o + y];
      for (size_t e = s->bucket_off[b]; e < s->bucket_off[b + 1]; ++e) {
        const struct pair_entry* pe = &s->entries[e];
        double dj = pe->wj, dk = pe->wk, diff = pj * dk - pk * dj;
        double sim = pj * pk * dj * dk * exp(-diff * diff * inv_s2);
        const double* m = s->tmass + 4 * (size_t)pe->t;
        den += sim * m[0];
        num[0] += sim * m[1];
        num[1] += sim * m[2];
        num[2] += sim * m[3];
      }
    }
  out[3] = 0.0;
  if (den > 0.0 && isfinite(den)) {
    out[0] = num[0] / den;
    out[1] = num[1] / den;
    out[2] = num[2] / den;
    out[3] = 1.0;
  }
}

static int solve(const skc_cor_args* a, cor_state* s, skc_err* err) {
  size_t nd = s->vv.n;
  s->centre = malloc(4 * nd * sizeof *s->centre);
  if (!s->centre) return oom(err, "centres");
  double sigma = a->sigma > 0.0f ? (double)a->sigma : (double)SKC_COR_DEFAULT_SIGMA;
  int rc = merge_cells(s, sigma, err);
  if (rc) return rc;
  double inv_s2 = 1.0 / (sigma * sigma);
  long long count = (long long)nd;
#if defined(SK_HAVE_OPENMP)
  int nt = a->threads == 0 ? omp_get_max_threads() : (int)(a->threads > 4096 ? 4096 : a->threads);
  if (count < 64) nt = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 16)
#endif
  for (long long d = 0; d < count; ++d) centre_of(s, (size_t)d, inv_s2, s->centre + 4 * (size_t)d);
  return SKC_OK;
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
