/* weights_mirror.c - mirror weights across a plane: Left/Right joint-name mapping, a static 3-d k-d tree for
 * vertex matching, and the copy / flip operation. */
#include <stdlib.h>
#include <string.h>

#include "mesh_adjacency.h"
#include "skc_weights.h"

/* ---------------------------------------------------------------------------------- joint names */

static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_sep(char c) { return c == '.' || c == '_' || c == '-' || c == ' '; }
static char swap_side_letter(char c) {
  switch (c) {
    case 'L':
      return 'R';
    case 'R':
      return 'L';
    case 'l':
      return 'r';
    case 'r':
      return 'l';
    default:
      return 0;
  }
}

/* Finds a Left/Right word: returns its position and length and the replacement, or -1. */
static long find_side_word(const char* s, size_t n, const char** repl, size_t* wlen) {
  static const char* const words[6][2] = {{"Left", "Right"}, {"Right", "Left"}, {"left", "right"},
                                          {"right", "left"}, {"LEFT", "RIGHT"}, {"RIGHT", "LEFT"}};
  long best = -1;
  for (int k = 0; k < 6; ++k) {
    const char* w = words[k][0];
    size_t L = strlen(w);
    for (size_t i = 0; i + L <= n; ++i) {
      if (memcmp(s + i, w, L) != 0) continue;
      char before = i ? s[i - 1] : 0, after = s[i + L];
      bool ok;
      if (k < 2)
        ok = !is_lower(after); /* CamelCase: "LeftArm", "armLeft"; not "Lefty" */
      else if (k < 4)
        ok = !is_lower(before) && !is_upper(before) && !is_lower(after); /* "left_arm", "arm.left"; not "Bright" */
      else
        ok = !is_upper(before) && !is_upper(after);
      if (ok) {
        if (best < 0 || (long)i < best) {
          best = (long)i;
          *repl = words[k][1];
          *wlen = L;
        }
        break;
      }
    }
  }
  return best;
}

int skc_joint_mirror_name(const char* name, char* out, size_t cap, skc_err* err) {
  if (!name || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "name and out must not be NULL");
  size_t n = strlen(name);
  /* 1. suffix ".L" "_R" "-l" " r" */
  if (n >= 3 && is_sep(name[n - 2]) && swap_side_letter(name[n - 1])) {
    if (cap < n + 1)
      return skc_fail(err, SKC_OUT_OF_RANGE, "output buffer of %zu bytes is too small (%zu needed)", cap, n + 1);
    memcpy(out, name, n + 1);
    out[n - 1] = swap_side_letter(name[n - 1]);
    return SKC_OK;
  }
  /* 2. prefix "L_" "r." "R " */
  if (n >= 3 && swap_side_letter(name[0]) && is_sep(name[1])) {
    if (cap < n + 1)
      return skc_fail(err, SKC_OUT_OF_RANGE, "output buffer of %zu bytes is too small (%zu needed)", cap, n + 1);
    memcpy(out, name, n + 1);
    out[0] = swap_side_letter(name[0]);
    return SKC_OK;
  }
  /* 3. infix token "Bip01 L Thigh", "spine_l_hand" */
  for (size_t i = 1; i + 2 < n; ++i) {
    if (is_sep(name[i - 1]) && swap_side_letter(name[i]) && is_sep(name[i + 1])) {
      if (cap < n + 1)
        return skc_fail(err, SKC_OUT_OF_RANGE, "output buffer of %zu bytes is too small (%zu needed)", cap, n + 1);
      memcpy(out, name, n + 1);
      out[i] = swap_side_letter(name[i]);
      return SKC_OK;
    }
  }
  /* 4. words Left/Right, left/right, LEFT/RIGHT (case kept) */
  const char* repl = NULL;
  size_t wl = 0;
  long at = find_side_word(name, n, &repl, &wl);
  if (at < 0) return skc_fail(err, SKC_NOT_FOUND, "joint name \"%.64s\" has no Left/Right marker", name);
  size_t rl = strlen(repl), need = n - wl + rl + 1;
  if (cap < need)
    return skc_fail(err, SKC_OUT_OF_RANGE, "output buffer of %zu bytes is too small (%zu needed)", cap, need);
  memmove(out, name, (size_t)at);
  memcpy(out + at, repl, rl);
  memcpy(out + at + rl, name + at + wl, n - (size_t)at - wl + 1);
  return SKC_OK;
}

typedef struct name_ix {
  const char* name;
  size_t len; /* compared prefix length */
  uint32_t j;
} name_ix;

static int name_cmp(const void* pa, const void* pb) {
  const name_ix *a = pa, *b = pb;
  size_t n = a->len < b->len ? a->len : b->len;
  int c = memcmp(a->name, b->name, n);
  if (c) return c;
  return (a->len > b->len) - (a->len < b->len);
}

/* length without a trailing serial number: "b_LeftHand_011" -> "b_LeftHand" (digits, then separators) */
static size_t stem_len(const char* s) {
  size_t n = strlen(s), k = n;
  while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') --k;
  if (k == n) return n;
  while (k > 0 && is_sep(s[k - 1])) --k;
  return k ? k : n;
}

/* unique entry equal to key, or NULL (none or ambiguous) */
static const name_ix* find_unique(const name_ix* ix, size_t n, const name_ix* key) {
  const name_ix* hit = bsearch(key, ix, n, sizeof *ix, name_cmp);
  if (!hit) return NULL;
  if ((hit > ix && name_cmp(hit - 1, key) == 0) || (hit + 1 < ix + n && name_cmp(hit + 1, key) == 0)) return NULL;
  return hit;
}

long skc_joint_mirror_map(const skc_skeleton* sk, uint32_t* out_map) {
  uint32_t J = sk->joint_count;
  name_ix* ix = malloc((J ? J : 1) * sizeof *ix);
  name_ix* stems = malloc((J ? J : 1) * sizeof *stems);
  size_t cap = 64;
  char* buf = malloc(cap);
  long mapped = -1;
  if (!ix || !stems || !buf) goto done;
  for (uint32_t j = 0; j < J; ++j) {
    ix[j].name = stems[j].name = sk->names[j];
    ix[j].len = strlen(sk->names[j]);
    stems[j].len = stem_len(sk->names[j]);
    ix[j].j = stems[j].j = j;
    out_map[j] = j;
  }
  qsort(ix, J, sizeof *ix, name_cmp);
  qsort(stems, J, sizeof *stems, name_cmp);
  mapped = 0;
  for (uint32_t j = 0; j < J; ++j) {
    size_t need = strlen(sk->names[j]) + 8;
    if (need > cap) {
      char* nb = realloc(buf, need);
      if (!nb) {
        mapped = -1;
        goto done;
      }
      buf = nb;
      cap = need;
    }
    if (skc_joint_mirror_name(sk->names[j], buf, cap, NULL) != SKC_OK) continue;
    name_ix key = {buf, strlen(buf), 0};
    const name_ix* hit = bsearch(&key, ix, J, sizeof *ix, name_cmp);
    if (!hit) {
      /* serial numbers often differ between sides ("b_RightHand_08" / "b_LeftHand_011"): match the stems,
       * when both are unique */
      name_ix own = {sk->names[j], stem_len(sk->names[j]), 0};
      key.len = stem_len(buf);
      if (find_unique(stems, J, &own)) hit = find_unique(stems, J, &key);
    }
    if (hit && hit->j != j) {
      out_map[j] = hit->j;
      ++mapped;
    }
  }
done:
  free(ix);
  free(stems);
  free(buf);
  return mapped;
}

/* ---------------------------------------------------------------------------------- k-d tree */

static void kd_swap(skc_kdtree* t, size_t a, size_t b) {
  uint32_t ti = t->index[a];
  t->index[a] = t->index[b];
  t->index[b] = ti;
  float tp[3];
  memcpy(tp, t->points + 3 * a, sizeof tp);
  memcpy(t->points + 3 * a, t->points + 3 * b, sizeof tp);
  memcpy(t->points + 3 * b, tp, sizeof tp);
}

/* places the k-th smallest (by axis) of [lo, hi) at k: quickselect with a median-of-three pivot and a three-way
 * partition (< pivot | == pivot | > pivot), so equal keys cannot stall it */
static void kd_select(skc_kdtree* t, size_t lo, size_t hi, size_t k, int ax) {
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    float a = t->points[3 * lo + ax], b = t->points[3 * mid + ax], c = t->points[3 * (hi - 1) + ax];
    float pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < pivot, [lt, i) == pivot, [gt, hi) > pivot */
    while (i < gt) {
      float x = t->points[3 * i + ax];
      if (x < pivot)
        kd_swap(t, lt++, i++);
      else if (x > pivot)
        kd_swap(t, i, --gt);
      else
        ++i;
    }
    if (k < lt)
      hi = lt;
    else if (k >= gt)
      lo = gt;
    else
      return;
  }
}

static void kd_build(skc_kdtree* t, size_t lo, size_t hi, int depth) {
  while (hi - lo > 1) {
    float mn[3], mx[3];
    memcpy(mn, t->points + 3 * lo, sizeof mn);
    memcpy(mx, mn, sizeof mx);
    for (size_t i = lo + 1; i < hi; ++i)
      for (int a = 0; a < 3; ++a) {
        float x = t->points[3 * i + a];
        if (x < mn[a]) mn[a] = x;
        if (x > mx[a]) mx[a] = x;
      }
    int ax = 0;
    for (int a = 1; a < 3; ++a)
      if (mx[a] - mn[a] > mx[ax] - mn[ax]) ax = a;
    size_t mid = lo + (hi - lo) / 2;
    kd_select(t, lo, hi, mid, ax);
    t->axis[mid] = (uint8_t)ax;
    kd_build(t, lo, mid, depth + 1);
    lo = mid + 1; /* tail loop on the right half */
  }
  if (hi - lo == 1) t->axis[lo] = 0;
}

int skc_kdtree_build(skc_kdtree* t, const float* positions, size_t stride, const uint32_t* ids, size_t count,
                     skc_err* err) {
  memset(t, 0, sizeof *t);
  t->index = malloc((count ? count : 1) * sizeof *t->index);
  t->points = malloc((count ? count : 1) * 3 * sizeof *t->points);
  t->axis = malloc(count ? count : 1);
  if (!t->index || !t->points || !t->axis) {
    skc_kdtree_free(t);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for a k-d tree of %zu points", count);
  }
  size_t st = stride ? stride : 3 * sizeof(float);
  for (size_t i = 0; i < count; ++i) {
    uint32_t id = ids ? ids[i] : (uint32_t)i;
    t->index[i] = id;
    memcpy(t->points + 3 * i, (const unsigned char*)positions + (size_t)id * st, 3 * sizeof(float));
  }
  t->count = count;
  kd_build(t, 0, count, 0);
  return SKC_OK;
}

typedef struct kd_query {
  const skc_kdtree* t;
  float q[3];
  float best2;
  size_t best;
} kd_query;

static void kd_nearest(kd_query* k, size_t lo, size_t hi) {
  while (hi > lo) {
    size_t mid = lo + (hi - lo) / 2;
    const float* p = k->t->points + 3 * mid;
    float dx = p[0] - k->q[0], dy = p[1] - k->q[1], dz = p[2] - k->q[2];
    float d2 = dx * dx + dy * dy + dz * dz;
    if (d2 <= k->best2 && (k->best == SIZE_MAX || d2 < k->best2 || k->t->index[mid] < k->t->index[k->best])) {
      k->best2 = d2;
      k->best = mid;
    }
    if (hi - lo == 1) return;
    int ax = k->t->axis[mid];
    float diff = k->q[ax] - p[ax];
    size_t nlo, nhi, flo, fhi;
    if (diff < 0.0f) {
      nlo = lo, nhi = mid, flo = mid + 1, fhi = hi;
    } else {
      nlo = mid + 1, nhi = hi, flo = lo, fhi = mid;
    }
    kd_nearest(k, nlo, nhi);
    if (diff * diff > k->best2) return;
    lo = flo;
    hi = fhi;
  }
}

uint32_t skc_kdtree_nearest(const skc_kdtree* t, const float q[3], float max_dist, float* out_dist) {
  kd_query k = {t, {q[0], q[1], q[2]}, max_dist * max_dist, SIZE_MAX};
  kd_nearest(&k, 0, t->count);
  if (k.best == SIZE_MAX) return UINT32_MAX;
  if (out_dist) *out_dist = sqrtf(k.best2);
  return t->index[k.best];
}

void skc_kdtree_free(skc_kdtree* t) {
  if (!t) return;
  free(t->index);
  free(t->points);
  free(t->axis);
  memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------------------- mirror */

/* One mirror operation's state: the arguments, the unit plane, the matching tolerance and the work arrays. */
typedef struct mirror_ctx {
  skc_skin* s;
  const skc_wscope* sc;
  const skc_mirror_params* p;
  double n[3], off;  /* the plane n . x = off, |n| = 1 */
  float tol;         /* matching distance */
  uint32_t* map;     /* joint -> mirrored joint */
  uint32_t* ids;     /* the source-side vertices */
  uint32_t* partner; /* per vertex: UINT32_MAX (not a destination), UINT32_MAX - 1 (no partner) or the partner */
  uint32_t* tj;
  float* tw;
  skc_kdtree tree; /* over the source-side vertices */
} mirror_ctx;

/* Checks the positions, the mode and the skeleton; returns SKC_OK or the failure of the first bad one. */
static int check_mirror(const skc_skin* s, const skc_mirror_params* p, skc_err* err) {
  uint32_t J = s->joint_count;
  if (!p->positions) return skc_fail(err, SKC_INVALID_ARGUMENT, "mirroring needs positions");
  if (p->positions_stride && p->positions_stride < 12)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "positions stride %zu is below 12 bytes", p->positions_stride);
  if (p->mode < SKC_MIRROR_POS_TO_NEG || p->mode > SKC_MIRROR_FLIP)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "unknown mirror mode %d", p->mode);
  if (p->skeleton && p->skeleton->joint_count < J)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "skeleton has %u joints, the skin uses %u", p->skeleton->joint_count, J);
  return SKC_OK;
}

/* Sets c->n / c->off to the plane with a unit normal (the X axis through the origin for a zero normal); fails when
 * the plane or the tolerance is not finite. */
static int unit_plane(mirror_ctx* c, skc_err* err) {
  const skc_mirror_params* p = c->p;
  double* n = c->n;
  n[0] = p->normal[0], n[1] = p->normal[1], n[2] = p->normal[2];
  c->off = p->offset;
  if (!isfinite(n[0]) || !isfinite(n[1]) || !isfinite(n[2]) || !isfinite(c->off) || !isfinite(p->tolerance))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "mirror plane and tolerance must be finite");
  double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (nl == 0.0) {
    n[0] = 1.0;
    n[1] = n[2] = 0.0;
    c->off = 0.0;
  } else {
    n[0] /= nl, n[1] /= nl, n[2] /= nl;
    c->off /= nl;
  }
  return SKC_OK;
}

/* Sets c->tol: the given tolerance, or 1e-4 of the positions' bounding-box diagonal (at least 1e-6); fails when a
 * position is not finite. */
static int match_tolerance(mirror_ctx* c, skc_err* err) {
  const skc_mirror_params* p = c->p;
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (size_t v = 0; v < c->s->vertex_count; ++v) {
    const float* x = skc_pos(p->positions, p->positions_stride, v);
    for (int a = 0; a < 3; ++a) {
      if (!isfinite(x[a])) return skc_fail(err, SKC_INVALID_ARGUMENT, "position of vertex %zu is not finite", v);
      if (v == 0 || x[a] < lo[a]) lo[a] = x[a];
      if (v == 0 || x[a] > hi[a]) hi[a] = x[a];
    }
  }
  float tol = p->tolerance;
  if (!(tol > 0.0f)) {
    float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    tol = 1e-4f * sqrtf(dx * dx + dy * dy + dz * dz);
    if (tol < 1e-6f) tol = 1e-6f;
  }
  c->tol = tol;
  return SKC_OK;
}

/* Fills c->map with each joint's mirrored joint by name (itself without a skeleton or when the counterpart is not in
 * the skin); *renamed = the joints mapped to another joint. False when out of memory. */
static bool mirror_joints(mirror_ctx* c, long* renamed) {
  uint32_t J = c->s->joint_count;
  const skc_skeleton* sk = c->p->skeleton;
  *renamed = 0;
  if (!sk) {
    for (uint32_t j = 0; j < J; ++j) c->map[j] = j;
    return true;
  }
  uint32_t* full = malloc(sk->joint_count * sizeof *full);
  if (!full) return false;
  if (skc_joint_mirror_map(sk, full) < 0) {
    free(full);
    return false;
  }
  for (uint32_t j = 0; j < J; ++j) {
    c->map[j] = full[j] < J ? full[j] : j;
    *renamed += c->map[j] != j;
  }
  free(full);
  return true;
}

/* Signed distance of x from the plane. */
static double plane_dist(const mirror_ctx* c, const float* x) {
  return c->n[0] * x[0] + c->n[1] * x[1] + c->n[2] * x[2] - c->off;
}

/* Builds c->tree over the source-side vertices (listed in c->ids). */
static int source_tree(mirror_ctx* c, skc_err* err) {
  const skc_mirror_params* p = c->p;
  float tol = c->tol;
  /* source side: d >= -tol (pos->neg), d <= tol (neg->pos), everything (flip) */
  size_t ns = 0;
  for (size_t v = 0; v < c->s->vertex_count; ++v) {
    double d = plane_dist(c, skc_pos(p->positions, p->positions_stride, v));
    bool src = p->mode == SKC_MIRROR_FLIP || (p->mode == SKC_MIRROR_POS_TO_NEG ? d >= -tol : d <= tol);
    if (src) c->ids[ns++] = (uint32_t)v;
  }
  return skc_kdtree_build(&c->tree, p->positions, p->positions_stride, c->ids, ns, err);
}

/* Fills c->partner: each selected destination vertex takes the source vertex nearest its reflection within c->tol.
 * Returns the number matched; *dest = the number of selected destination vertices. */
static size_t find_partners(mirror_ctx* c, size_t* dest) {
  const skc_mirror_params* p = c->p;
  const double* n = c->n;
  float tol = c->tol;
  size_t matched = 0;
  *dest = 0;
  for (size_t v = 0; v < c->s->vertex_count; ++v) {
    c->partner[v] = UINT32_MAX;
    if (!skc_wsel(c->sc, v)) continue;
    const float* x = skc_pos(p->positions, p->positions_stride, v);
    double d = plane_dist(c, x);
    bool is_dest = p->mode == SKC_MIRROR_FLIP || (p->mode == SKC_MIRROR_POS_TO_NEG ? d < -tol : d > tol);
    if (!is_dest) continue;
    ++*dest;
    float m[3] = {(float)(x[0] - 2.0 * d * n[0]), (float)(x[1] - 2.0 * d * n[1]), (float)(x[2] - 2.0 * d * n[2])};
    c->partner[v] = skc_kdtree_nearest(&c->tree, m, tol, NULL);
    if (c->partner[v] == UINT32_MAX)
      c->partner[v] = UINT32_MAX - 1; /* destination without partner */
    else
      ++matched;
  }
  return matched;
}

/* The mirrored row into c->tj / c->tw: the destination's entries [vb, vb + n_v) of locked joints (*kept of them),
 * then the partner's entries [ub, ub + nu) of unlocked joints under the joint map, summed per joint. Returns its
 * length. */
static size_t mirrored_row(mirror_ctx* c, size_t vb, size_t n_v, size_t ub, size_t nu, size_t* kept) {
  const skc_skin* s = c->s;
  uint32_t* tj = c->tj;
  float* tw = c->tw;
  size_t m = 0;
  for (size_t i = vb; i < vb + n_v; ++i) /* the destination keeps its locked joints */
    if (skc_wlocked(c->sc, s->joints[i])) {
      tj[m] = s->joints[i];
      tw[m] = s->weights[i];
      ++m;
    }
  *kept = m;
  for (size_t i = ub; i < ub + nu; ++i) {
    uint32_t j = c->map[s->joints[i]];
    if (skc_wlocked(c->sc, j)) continue;
    size_t k = 0;
    while (k < m && tj[k] != j) ++k;
    if (k == m) {
      tj[m] = j;
      tw[m] = 0.0f;
      ++m;
    }
    tw[k] += s->weights[i];
  }
  return m;
}

/* Pushes destination vertex v's new row, mirrored from partner u, into b: the partner's weights as they are (as
 * Blender's Mirror copies them), normalized around the locked joints v keeps when it keeps any; v keeps its row when
 * either row holds an invalid entry or the normalization fails. Flags v in the report. */
static void mirror_vertex(mirror_ctx* c, size_t v, uint32_t u, double ntol, skc_wreport* r, skc_skin_builder* b) {
  const skc_skin* s = c->s;
  const uint32_t* off_ = s->offsets;
  size_t vb = off_[v], n_v = off_[v + 1] - vb;
  size_t ub = off_[u], nu = off_[u + 1] - ub;
  size_t bad = skc_wcount_invalid(s, ub, ub + nu) + (u != v ? skc_wcount_invalid(s, vb, vb + n_v) : 0);
  if (bad) {
    r->invalid_entries += bad;
    skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
    skc_skin_builder_push(b, s->joints + vb, s->weights + vb, n_v);
    return;
  }
  size_t kept = 0;
  size_t m = mirrored_row(c, vb, n_v, ub, nu, &kept);
  int nf = kept ? skc_wnormalize_vertex(c->tj, c->tw, m, c->sc->locked, ntol, NULL) : 0;
  if (nf) {
    skc_wreport_flag(r, v, (uint8_t)(SKC_WFLAG_FAILED | nf));
    skc_skin_builder_push(b, s->joints + vb, s->weights + vb, n_v);
    return;
  }
  bool changed = m != n_v;
  for (size_t i = 0; i < m && !changed; ++i) changed = c->tj[i] != s->joints[vb + i] || c->tw[i] != s->weights[vb + i];
  if (changed) skc_wreport_flag(r, v, SKC_WFLAG_CHANGED);
  skc_skin_builder_push(b, c->tj, c->tw, m);
}

/* Rebuilds the skin: destination vertices take their partner's mirrored row, the others keep theirs; the report
 * counts the destinations, the unmatched ones and the renamed joints. */
static int mirror_rows(mirror_ctx* c, long renamed, skc_wreport* r, skc_err* err) {
  skc_skin* s = c->s;
  size_t V = s->vertex_count;
  skc_skin_builder b;
  int rc = skc_skin_builder_init(&b, V, skc_skin_entries(s) + 16, err);
  if (rc) return rc;
  skc_wreport_begin(r, s);
  r->joints_affected = (uint64_t)renamed;
  const double ntol = c->p->norm_tolerance > 0.0f ? c->p->norm_tolerance : 1e-5;
  const uint32_t* off_ = s->offsets;
  for (size_t v = 0; v < V; ++v) {
    size_t vb = off_[v], n_v = off_[v + 1] - vb;
    uint32_t u = c->partner[v];
    if (u == UINT32_MAX) {
      skc_skin_builder_push(&b, s->joints + vb, s->weights + vb, n_v);
      continue;
    }
    r->vertices_visited++;
    if (u == UINT32_MAX - 1) {
      r->unmatched++;
      skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_UNMATCHED);
      skc_skin_builder_push(&b, s->joints + vb, s->weights + vb, n_v);
      continue;
    }
    mirror_vertex(c, v, u, ntol, r, &b);
  }
  if ((rc = skc_skin_builder_finish(&b, s, err))) return rc;
  r->influences_after = skc_skin_entries(s);
  return SKC_OK;
}

int skc_weights_mirror(skc_skin* s, const skc_wscope* sc, const skc_mirror_params* p, skc_wreport* r, skc_err* err) {
  size_t V = s->vertex_count;
  uint32_t J = s->joint_count;
  mirror_ctx c = {.s = s, .sc = sc, .p = p};
  int rc = check_mirror(s, p, err);
  if (!rc) rc = unit_plane(&c, err);
  if (!rc) rc = match_tolerance(&c, err);
  if (rc) return rc;
  c.map = malloc(J * sizeof *c.map);
  c.ids = calloc(V ? V : 1, sizeof *c.ids);
  c.partner = malloc((V ? V : 1) * sizeof *c.partner);
  size_t maxd = skc_wmax_degree(s);
  c.tj = malloc((2 * maxd + 1) * sizeof *c.tj);
  c.tw = malloc((2 * maxd + 1) * sizeof *c.tw);
  long renamed = 0;
  if (!c.map || !c.ids || !c.partner || !c.tj || !c.tw || !mirror_joints(&c, &renamed)) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory mirroring weights");
    goto done;
  }
  if ((rc = source_tree(&c, err))) goto done;
  size_t dest = 0, matched = find_partners(&c, &dest);
  if (matched == 0) {
    rc = dest ? skc_fail(err, SKC_NOT_FOUND, "none of the %zu destination vertices has a mirror partner within %g",
                         dest, (double)c.tol)
              : skc_fail(err, SKC_NOT_FOUND, "no selected vertex lies on the destination side of the mirror plane");
    goto done;
  }
  rc = mirror_rows(&c, renamed, r, err);
done:
  skc_kdtree_free(&c.tree);
  free(c.map);
  free(c.ids);
  free(c.partner);
  free(c.tj);
  free(c.tw);
  return rc;
}
