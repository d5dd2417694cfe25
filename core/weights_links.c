/* weights_links.c - bone links: link joints inserted along a bone, weights spread over the chain by position, and
 * the pose mapping that splits the joint's rotation over its links (see skc_links.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_bind.h"
#include "skc_links.h"

/* ---------------------------------------------------------------------------------------------- math */

void skc_quat_pow(const float q[4], float a, float out[4]) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  double n = sqrt(x * x + y * y + z * z + w * w);
  if (!(n > 0.0) || !isfinite(n)) {
    out[0] = out[1] = out[2] = 0.0f;
    out[3] = 1.0f;
    return;
  }
  x /= n, y /= n, z /= n, w /= n;
  if (w < 0.0) x = -x, y = -y, z = -z, w = -w; /* shortest arc */
  double s = sqrt(x * x + y * y + z * z);
  double half = atan2(s, w); /* half the rotation angle, [0, pi/2] */
  if (s < 1e-12) {
    /* tiny rotation: q^a ~ (a v, 1) */
    double ox = a * x, oy = a * y, oz = a * z;
    double on = sqrt(ox * ox + oy * oy + oz * oz + 1.0);
    out[0] = (float)(ox / on), out[1] = (float)(oy / on), out[2] = (float)(oz / on), out[3] = (float)(1.0 / on);
    return;
  }
  double h = half * a, k = sin(h) / s;
  out[0] = (float)(x * k);
  out[1] = (float)(y * k);
  out[2] = (float)(z * k);
  out[3] = (float)cos(h);
}

/* ---------------------------------------------------------------------------------------------- plan */

int skc_links_plan(const skc_skeleton* sk, const skc_wscope* sc, const skc_links_params* p, uint32_t* out_k,
                   uint32_t* out_total, skc_err* err) {
  uint32_t n = sk->joint_count;
  if (!(p->threshold > 0.0f && p->threshold <= 360.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: threshold %g degrees is outside (0, 360]",
                    (double)p->threshold);
  if (p->links > SKC_LINKS_MAX)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bone links: %u links per joint asked, at most %u", p->links, SKC_LINKS_MAX);
  if (!p->ranges && !p->joints)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: give per-joint ranges or a list of joints to link");
  if (p->joints && p->joint_list_count == 0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: the joint list is empty");
  if (p->ranges)
    for (uint32_t j = 0; j < n; ++j)
      if (!(p->ranges[j] >= 0.0f && p->ranges[j] <= 360.0f))
        return skc_fail(err, SKC_INVALID_ARGUMENT,
                        "bone links: range of joint %u (\"%s\") is %g, outside 0..360 degrees", j, sk->names[j],
                        (double)p->ranges[j]);
  memset(out_k, 0, (size_t)n * sizeof *out_k);
  /* listed joints first (marked with UINT32_MAX), then the ranges decide the counts */
  for (size_t i = 0; p->joints && i < p->joint_list_count; ++i) {
    uint32_t j = p->joints[i];
    if (j >= n)
      return skc_fail(err, SKC_OUT_OF_RANGE, "bone links: listed joint %u is past the skeleton's %u joints", j, n);
    out_k[j] = UINT32_MAX;
  }
  uint64_t total = 0;
  for (uint32_t j = 0; j < n; ++j) {
    bool listed = out_k[j] == UINT32_MAX;
    float range = p->ranges ? p->ranges[j] : 0.0f;
    uint32_t k = 0;
    if (listed || range > p->threshold) {
      if (p->links) {
        k = p->links;
      } else {
        float r = range > 0.0f ? range : 180.0f; /* a listed joint without a range: a full 180-degree bend */
        double c = ceil((double)r / (double)p->threshold) - 1.0;
        k = c < 1.0 ? 1u : (c > SKC_LINKS_MAX ? SKC_LINKS_MAX : (uint32_t)c);
      }
    }
    if (k && sc && skc_wlocked(sc, j)) /* sc is optional: no scope, nothing locked */
      return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: joint %u (\"%s\") is locked and cannot be linked", j,
                      sk->names[j]);
    out_k[j] = k;
    total += k;
  }
  if (total == 0)
    return skc_fail(err, SKC_NOT_FOUND, "bone links: no joint needs links (no range above %g degrees, no list)",
                    (double)p->threshold);
  if (total + n > SKC_MAX_JOINTS)
    return skc_fail(err, SKC_OUT_OF_RANGE, "bone links: %u joints + %llu links exceed %u joints", n,
                    (unsigned long long)total, SKC_MAX_JOINTS);
  *out_total = (uint32_t)total;
  return SKC_OK;
}

/* ---------------------------------------------------------------------------------------------- build */

typedef struct chain {
  uint32_t joint;     /* original J */
  uint32_t k;         /* links */
  uint32_t first;     /* new index of J (links follow) */
  int32_t end;        /* original single child C that ends the chain, or -1 */
  float h[3], dir[3]; /* head and h->t in the positions' space */
  float inv_len2;
} chain;

static bool name_taken(char* const* names, uint32_t count, const char* s) {
  for (uint32_t i = 0; i < count; ++i)
    if (names[i] && strcmp(names[i], s) == 0) return true;
  return false;
}

/* Adds weight w of joint j to a small vertex list (merging a repeated joint). */
static void vpush(uint32_t* jj, float* ww, size_t* n, uint32_t j, float w) {
  if (!(w > 0.0f)) return;
  for (size_t i = 0; i < *n; ++i)
    if (jj[i] == j) {
      ww[i] += w;
      return;
    }
  jj[*n] = j;
  ww[*n] = w;
  ++*n;
}

/* The stored tails (sk->tail_local) of the linked skeleton: a joint keeps its own; a linked joint's bone now ends at
 * its first link (no stored tail: the only child's head), and its last link ends where the joint did (its frame is
 * the joint's moved by k steps D along the bone). *out NULL when sk stores none; 0 when out of memory. */
static int link_tails(const skc_skeleton* sk, const uint32_t* kk, const uint32_t* map, uint32_t total,
                      const float* heads, const float* tails, float** out) {
  *out = NULL;
  if (!sk->tail_local) return 1;
  float* t = malloc(3 * (size_t)total * sizeof *t);
  if (!t) return 0;
  for (size_t i = 0; i < 3 * (size_t)total; ++i) t[i] = NAN;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    if (!skc_skeleton_has_tail(sk, j)) continue;
    float* own = t + 3 * (size_t)map[j];
    memcpy(own, sk->tail_local + 3 * (size_t)j, 3 * sizeof *own);
    float Winv[16], step[3], D[3];
    if (!kk[j] || !skc_mat4_inverse(sk->rest_world + 16 * (size_t)j, Winv)) continue;
    for (int a = 0; a < 3; ++a) step[a] = (tails[3 * j + a] - heads[3 * j + a]) / (float)(kk[j] + 1);
    skc_mat4_transform_dir(Winv, step, D);
    float* last = t + 3 * (size_t)(map[j] + kk[j]);
    for (int a = 0; a < 3; ++a) last[a] = own[a] - (float)kk[j] * D[a], own[a] = NAN;
  }
  *out = t;
  return 1;
}

/* Why joint j's bone has no length, as skc_skeleton_bone_segments derives tails: a leaf extends its parent's bone
 * (none when it sits at its parent's head), one child ends it, several children give it their direction. */
static const char* why_zero_length(const skc_skeleton* sk, uint32_t j) {
  uint32_t kids = 0;
  for (uint32_t c = 0; c < sk->joint_count; ++c) kids += sk->parents[c] == (int32_t)j;
  if (kids == 1) return "its only child sits at its position";
  if (kids > 1) return "its children lie around its position";
  return sk->parents[j] < 0 ? "a root without children" : "a leaf at its parent's position";
}

/* Shared state of one skc_bone_links call: the plan, the new skeleton's arrays and the chains. */
typedef struct lbuild {
  const skc_skeleton* sk;
  const skc_wscope* sc;
  const skc_links_params* p;
  uint32_t n;           /* original joints */
  uint32_t total_links; /* links inserted */
  uint32_t total;       /* joints of the linked skeleton */
  uint32_t nch;         /* chains used */
  size_t stride;        /* of the positions */
  uint32_t* kk;         /* links per original joint */
  uint32_t* map;        /* original joint -> new index */
  float* heads;         /* bone segments, rest space */
  float* tails;
  uint32_t* kids;
  int32_t* only_kid; /* the single child of a joint, or -1 */
  chain* chains;
  char** names;
  int32_t* parents;
  float* rest;
  float* bind;
  float* ibind;
} lbuild;

/* Checks the inputs: required pointers, the skin's joint count and the positions (given, finite). */
static int check_links(const skc_skeleton* sk, const skc_skin* skin, const skc_links_params* p,
                       skc_skeleton** out_skeleton, skc_skin** out_skin, skc_err* err) {
  if (!sk || !p || !out_skeleton)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: skeleton, parameters and out_skeleton are required");
  if (skin && !out_skin)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: a skin was given but no out_skin to receive the new one");
  if (skin && skin->joint_count != sk->joint_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: the skin has %u joints, the skeleton %u", skin->joint_count,
                    sk->joint_count);
  if (skin && skin->vertex_count && !p->positions)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: positions are required to spread the weights");
  size_t stride = p->positions_stride ? p->positions_stride : 3 * sizeof(float);
  if (skin)
    for (size_t v = 0; v < skin->vertex_count; ++v) {
      const float* x = (const float*)((const char*)p->positions + v * stride);
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: position of vertex %zu is not finite", v);
    }
  return SKC_OK;
}

/* Frees the build's arrays; the links' names are its own, the original joints' borrowed. */
static void lbuild_free(lbuild* lb) {
  /* names of original joints are borrowed; links own theirs */
  if (lb->names) {
    for (uint32_t j = 0; j < lb->n; ++j)
      for (uint32_t i = 1; i <= lb->kk[j]; ++i) free(lb->names[lb->map[j] + i]);
  }
  free(lb->names);
  free(lb->parents);
  free(lb->rest);
  free(lb->bind);
  free(lb->ibind);
  free(lb->chains);
  free(lb->kk);
  free(lb->map);
  free(lb->heads);
  free(lb->tails);
  free(lb->kids);
  free(lb->only_kid);
}

/* Plans the links of every joint (lb->kk, totals), the bone segments, each joint's only child and the new indices
 * (every joint followed by its links). */
static int plan_links(lbuild* lb, skc_err* err) {
  const skc_skeleton* sk = lb->sk;
  uint32_t n = lb->n;
  lb->kk = malloc((size_t)n * sizeof *lb->kk);
  lb->map = malloc((size_t)n * sizeof *lb->map);
  lb->heads = malloc((size_t)n * 3 * sizeof(float));
  lb->tails = malloc((size_t)n * 3 * sizeof(float));
  lb->kids = calloc(n, sizeof *lb->kids);
  lb->only_kid = malloc((size_t)n * sizeof *lb->only_kid);
  if (!lb->kk || !lb->map || !lb->heads || !lb->tails || !lb->kids || !lb->only_kid)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bone links: out of memory for %u joints", n);
  int rc = skc_links_plan(sk, lb->sc, lb->p, lb->kk, &lb->total_links, err);
  if (rc) return rc;
  lb->total = n + lb->total_links;
  skc_skeleton_bone_segments(sk, lb->heads, lb->tails); /* rest space */
  for (uint32_t j = 0; j < n; ++j) lb->only_kid[j] = -1;
  for (uint32_t j = 0; j < n; ++j)
    if (sk->parents[j] >= 0) {
      uint32_t q = (uint32_t)sk->parents[j];
      lb->only_kid[q] = lb->kids[q]++ ? -1 : (int32_t)j;
    }

  /* new indices: every joint followed by its links */
  for (uint32_t j = 0, at = 0; j < n; ++j) {
    lb->map[j] = at;
    at += 1 + lb->kk[j];
  }
  return SKC_OK;
}

/* Copies original joint j to its new index: same name and bind; parent = the parent's last link when the parent is
 * linked, the rest local then shortened by the links' span. */
static int copy_joint(lbuild* lb, uint32_t j, skc_err* err) {
  const skc_skeleton* sk = lb->sk;
  const uint32_t* kk = lb->kk;
  uint32_t nj = lb->map[j];
  /* the joint itself: same name, bind; parent = the parent's last link when the parent is linked */
  lb->names[nj] = sk->names[j];
  memcpy(lb->bind + 16 * (size_t)nj, sk->bind + 16 * (size_t)j, 16 * sizeof(float));
  memcpy(lb->ibind + 16 * (size_t)nj, sk->inverse_bind + 16 * (size_t)j, 16 * sizeof(float));
  memcpy(lb->rest + 16 * (size_t)nj, sk->rest_local + 16 * (size_t)j, 16 * sizeof(float));
  int32_t pj = sk->parents[j];
  lb->parents[nj] = pj < 0 ? SKC_NO_PARENT : (int32_t)(lb->map[pj] + kk[pj]);
  if (pj >= 0 && kk[pj]) {
    /* rest_world(last link of P) = rest_world(P) * T(D): the local loses D (exact, in P's frame) */
    float Winv[16], dq[3], D[3];
    if (!skc_mat4_inverse(sk->rest_world + 16 * (size_t)pj, Winv))
      return skc_fail(err, SKC_SINGULAR_MATRIX, "bone links: rest transform of joint \"%s\" cannot be inverted",
                      sk->names[pj]);
    float f = (float)kk[pj] / (float)(kk[pj] + 1);
    for (int a = 0; a < 3; ++a) dq[a] = f * (lb->tails[3 * pj + a] - lb->heads[3 * pj + a]);
    skc_mat4_transform_dir(Winv, dq, D);
    float* L = lb->rest + 16 * (size_t)nj;
    for (int a = 0; a < 3; ++a) L[12 + a] -= D[a];
  }
  return SKC_OK;
}

/* Sets chain c's segment in the positions' space (bind space = B_J * inverse(rest_world_J) applied to the rest
 * segment seg) and its inverse squared length; fails when it has no length there. */
static int chain_segment(const lbuild* lb, chain* c, uint32_t j, const float* seg, const float* Winv, skc_err* err) {
  const skc_skeleton* sk = lb->sk;
  /* the segment in the positions' space: bind space = B_J * inverse(rest_world_J) applied to the rest segment */
  if (lb->p->rest_space) {
    memcpy(c->h, lb->heads + 3 * j, sizeof c->h);
    memcpy(c->dir, seg, sizeof c->dir);
  } else {
    float M[16], t[3];
    skc_mat4_mul(sk->bind + 16 * (size_t)j, Winv, M);
    skc_mat4_transform_point(M, lb->heads + 3 * j, c->h);
    skc_mat4_transform_point(M, lb->tails + 3 * j, t);
    for (int a = 0; a < 3; ++a) c->dir[a] = t[a] - c->h[a];
  }
  float bl2 = c->dir[0] * c->dir[0] + c->dir[1] * c->dir[1] + c->dir[2] * c->dir[2];
  if (!(bl2 > 0.0f) || !isfinite(bl2))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: joint \"%s\" has a zero-length bone in bind space",
                    sk->names[j]);
  c->inv_len2 = 1.0f / bl2;
  return SKC_OK;
}

/* Link i's name: "<J>_link<i>", made unique (".<n>") if the skeleton already uses it; NULL when out of memory. */
static char* link_name(const skc_skeleton* sk, uint32_t j, uint32_t i) {
  /* name: "<J>_link<i>", made unique if the skeleton already uses it */
  size_t len = strlen(sk->names[j]) + 32;
  char* nm = malloc(len);
  if (!nm) return NULL;
  snprintf(nm, len, "%s_link%u", sk->names[j], i);
  for (uint32_t dup = 1; dup < 1000 && name_taken(sk->names, sk->joint_count, nm); ++dup)
    snprintf(nm, len, "%s_link%u.%u", sk->names[j], i, dup);
  return nm;
}

/* Adds joint j's links after it: each a step D (seg / (k + 1) in J's frame, Winv) from the previous one, binds moved
 * the same way, named. */
static int add_links(lbuild* lb, uint32_t j, const float* seg, const float* Winv, skc_err* err) {
  const skc_skeleton* sk = lb->sk;
  uint32_t k = lb->kk[j], nj = lb->map[j];
  float step[3], D[3];
  for (int a = 0; a < 3; ++a) step[a] = seg[a] / (float)(k + 1);
  skc_mat4_transform_dir(Winv, step, D); /* one link step in J's frame */
  const float* B = sk->bind + 16 * (size_t)j;
  const float* IB = sk->inverse_bind + 16 * (size_t)j;
  for (uint32_t i = 1; i <= k; ++i) {
    uint32_t li = nj + i;
    lb->parents[li] = (int32_t)(li - 1);
    /* rest local: a pure translation by one step in the previous joint's (= J's orientation) frame */
    float* L = lb->rest + 16 * (size_t)li;
    skc_mat4_identity(L);
    L[12] = D[0], L[13] = D[1], L[14] = D[2];
    /* bind = B_J * T(i D); inverse bind = T(-i D) * B_J^-1 */
    float Di[3] = {D[0] * (float)i, D[1] * (float)i, D[2] * (float)i}, BD[3];
    float* Bl = lb->bind + 16 * (size_t)li;
    float* IBl = lb->ibind + 16 * (size_t)li;
    memcpy(Bl, B, 16 * sizeof(float));
    skc_mat4_transform_dir(B, Di, BD);
    for (int a = 0; a < 3; ++a) Bl[12 + a] += BD[a];
    memcpy(IBl, IB, 16 * sizeof(float));
    for (int a = 0; a < 3; ++a) IBl[12 + a] -= Di[a];
    char* nm = link_name(sk, j, i);
    if (!nm) return skc_fail(err, SKC_OUT_OF_MEMORY, "bone links: out of memory naming links");
    lb->names[li] = nm;
  }
  return SKC_OK;
}

/* Links joint j: checks its bone has a direction, sets up its chain (ended by its only child unless that one is
 * locked) and adds its links. */
static int add_chain(lbuild* lb, uint32_t j, skc_err* err) {
  const skc_skeleton* sk = lb->sk;
  const float* heads = lb->heads;
  /* a linked joint: its bone must have a direction */
  float seg[3], len2 = 0.0f;
  for (int a = 0; a < 3; ++a) {
    seg[a] = lb->tails[3 * j + a] - heads[3 * j + a];
    len2 += seg[a] * seg[a];
  }
  float scale = 0.0f;
  for (int a = 0; a < 3; ++a) scale = fmaxf(scale, fabsf(heads[3 * j + a]));
  if (!(len2 > 1e-12f * fmaxf(1.0f, scale * scale)))
    return skc_fail(err, SKC_INVALID_ARGUMENT,
                    "bone links: joint \"%s\" has a zero-length bone (%s): links need a direction", sk->names[j],
                    why_zero_length(sk, j));
  float Winv[16];
  if (!skc_mat4_inverse(sk->rest_world + 16 * (size_t)j, Winv))
    return skc_fail(err, SKC_SINGULAR_MATRIX, "bone links: rest transform of joint \"%s\" cannot be inverted",
                    sk->names[j]);
  chain* c = &lb->chains[lb->nch++];
  c->joint = j;
  c->k = lb->kk[j];
  c->first = lb->map[j];
  int32_t kid = lb->only_kid[j];
  c->end = (kid >= 0 && !(lb->sc && skc_wlocked(lb->sc, (uint32_t)kid))) ? kid : -1;
  int rc = chain_segment(lb, c, j, seg, Winv, err);
  if (rc) return rc;
  return add_links(lb, j, seg, Winv, err);
}

/* Fills the linked skeleton's arrays: every original joint, and the chain and links of each linked one. */
static int build_joints(lbuild* lb, skc_err* err) {
  uint32_t total = lb->total;
  lb->chains = calloc(lb->n, sizeof *lb->chains);
  lb->names = calloc(total, sizeof *lb->names);
  lb->parents = malloc((size_t)total * sizeof *lb->parents);
  lb->rest = malloc((size_t)total * 16 * sizeof(float));
  lb->bind = malloc((size_t)total * 16 * sizeof(float));
  lb->ibind = malloc((size_t)total * 16 * sizeof(float));
  if (!lb->chains || !lb->names || !lb->parents || !lb->rest || !lb->bind || !lb->ibind)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bone links: out of memory for %u joints", total);
  for (uint32_t j = 0; j < lb->n; ++j) {
    int rc = copy_joint(lb, j, err);
    if (!rc && lb->kk[j]) rc = add_chain(lb, j, err);
    if (rc) return rc;
  }
  return SKC_OK;
}

/* Creates the linked skeleton (*out) from the build's arrays, with the stored tails moved to the links. */
static int create_skeleton(const lbuild* lb, skc_skeleton** out, skc_err* err) {
  /* (skc_skeleton_create refuses any remaining duplicate name) */
  float* tl = NULL;
  if (!link_tails(lb->sk, lb->kk, lb->map, lb->total, lb->heads, lb->tails, &tl))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bone links: out of memory for %u joints", lb->total);
  skc_skeleton_init init = {lb->total, (const char* const*)lb->names, lb->parents, lb->rest, lb->bind, lb->ibind, tl};
  int rc = skc_skeleton_create(&init, out, err);
  free(tl);
  return rc;
}

/* Lays the share of chain c's joints (J and its end child) in the vertex list jj/ww (cnt entries) on the two chain
 * nodes around position x along the bone; returns the new count. */
static inline size_t spread_chain(const chain* c, const uint32_t* map, const float* x, uint32_t* jj, float* ww,
                                  size_t cnt) {
  uint32_t nJ = c->first, nC = c->end >= 0 ? map[c->end] : UINT32_MAX;
  double share = 0.0;
  size_t keep = 0;
  for (size_t i = 0; i < cnt; ++i) {
    if (jj[i] == nJ || jj[i] == nC) {
      share += ww[i];
    } else {
      jj[keep] = jj[i];
      ww[keep] = ww[i];
      ++keep;
    }
  }
  if (keep == cnt) return cnt; /* the vertex carries neither J nor C */
  cnt = keep;
  /* position along the bone in node units: 0 = J, i = link i, k + 1 = C (or the bone's tail) */
  float f = ((x[0] - c->h[0]) * c->dir[0] + (x[1] - c->h[1]) * c->dir[1] + (x[2] - c->h[2]) * c->dir[2]) * c->inv_len2;
  uint32_t last = c->k + (c->end >= 0 ? 1u : 0u);
  double u = (double)f * (double)(c->k + 1);
  if (!(u > 0.0)) u = 0.0;
  if (u > (double)last) u = (double)last;
  uint32_t lo = (uint32_t)floor(u);
  if (lo >= last) lo = last - 1;
  double t = u - (double)lo;
  uint32_t node_lo = lo <= c->k ? nJ + lo : nC, node_hi = lo + 1 <= c->k ? nJ + lo + 1 : nC;
  float s = (float)share;
  float whi = (float)(share * t);
  if (whi < 1e-7f * s) whi = 0.0f;
  if (s - whi < 1e-7f * s) whi = s;
  float wlo = s - whi; /* the two parts add up to the share */
  vpush(jj, ww, &cnt, node_lo, wlo);
  vpush(jj, ww, &cnt, node_hi, whi);
  return cnt;
}

/* Whether the vertex list jj/ww (cnt entries) differs from the skin's entries s0..s1 (joints renumbered). */
static inline bool vertex_changed(const skc_skin* skin, const uint32_t* map, size_t s0, size_t s1, const uint32_t* jj,
                                  const float* ww, size_t cnt) {
  /* changed unless every original entry is back with its weight */
  bool changed = cnt != s1 - s0;
  for (size_t e = s0; e < s1 && !changed; ++e) {
    uint32_t j = map[skin->joints[e]];
    bool found = false;
    for (size_t i = 0; i < cnt && !found; ++i) found = jj[i] == j && ww[i] == skin->weights[e];
    changed = !found;
  }
  return changed;
}

/* Vertex v's new entries (jj/ww; returns their count): its joints renumbered and, when it is selected and valid,
 * every chain's share spread by its position. Reports the vertex. */
static inline size_t spread_vertex(const lbuild* lb, const skc_skin* skin, skc_wreport* r, size_t v, uint32_t* jj,
                                   float* ww) {
  const uint32_t n = lb->n, total = lb->total;
  size_t s0 = skin->offsets[v], s1 = skin->offsets[v + 1], cnt = 0;
  bool sel = !lb->sc || skc_wsel(lb->sc, v);
  bool bad = skc_wcount_invalid(skin, s0, s1) != 0;
  /* remap the joints; invalid entries are copied unchanged (out-of-range joints stay out of range) */
  for (size_t e = s0; e < s1; ++e) {
    uint32_t j = skin->joints[e];
    jj[cnt] = j < n ? lb->map[j] : (j > UINT32_MAX - (total - n) ? UINT32_MAX : j + (total - n));
    ww[cnt] = skin->weights[e];
    ++cnt;
  }
  if (sel && r) r->vertices_visited++;
  if (sel && bad) {
    if (r) {
      r->invalid_entries += skc_wcount_invalid(skin, s0, s1);
      skc_wreport_flag(r, v, SKC_WFLAG_FAILED | SKC_WFLAG_INVALID);
    }
  } else if (sel) {
    const float* x = (const float*)((const char*)lb->p->positions + v * lb->stride);
    for (uint32_t ci = 0; ci < lb->nch; ++ci) cnt = spread_chain(&lb->chains[ci], lb->map, x, jj, ww, cnt);
    if (vertex_changed(skin, lb->map, s0, s1, jj, ww, cnt) && r) skc_wreport_flag(r, v, SKC_WFLAG_CHANGED);
  }
  return cnt;
}

/* The weights on the linked skeleton (*out_sn, the caller destroys it): every vertex's entries renumbered, the
 * selected ones spread over the chains. */
static int spread_weights(const lbuild* lb, const skc_skin* skin, skc_wreport* r, skc_skin** out_sn, skc_err* err) {
  size_t V = skin->vertex_count;
  size_t maxdeg = skc_wmax_degree(skin);
  size_t cap = maxdeg + 2 * (size_t)lb->nch + 2;
  uint32_t* jj = malloc(cap * sizeof *jj);
  float* ww = malloc(cap * sizeof *ww);
  if (!jj || !ww) {
    free(jj);
    free(ww);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "bone links: out of memory");
  }
  skc_skin_builder b;
  int rc;
  if ((rc = skc_skin_create(V, lb->total, out_sn, err)) ||
      (rc = skc_skin_builder_init(&b, V, skc_skin_entries(skin) + V, err))) {
    free(jj);
    free(ww);
    return rc;
  }
  if (r) skc_wreport_begin(r, skin);
  for (size_t v = 0; v < V && rc == SKC_OK; ++v) {
    size_t cnt = spread_vertex(lb, skin, r, v, jj, ww);
    if (skc_skin_builder_push(&b, jj, ww, cnt))
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bone links: out of memory building the weights");
  }
  free(jj);
  free(ww);
  if (rc) {
    skc_skin_builder_free(&b);
    return rc;
  }
  if ((rc = skc_skin_builder_finish(&b, *out_sn, err))) return rc;
  if (r) r->influences_after = skc_skin_entries(*out_sn);
  return SKC_OK;
}

/* The report's joint figures (without a skin, the counters are zeroed first; the caller's arrays stay). */
static void report_links(const lbuild* lb, const skc_skin* skin, skc_wreport* r) {
  if (!skin) {
    uint32_t* jc = r->joint_counts;
    uint8_t* vf = r->vertex_flags;
    memset(r, 0, sizeof *r);
    r->joint_counts = jc;
    r->vertex_flags = vf;
  }
  r->joints_affected = lb->nch;
  r->entries_changed = lb->total_links;
  if (r->joint_counts) memcpy(r->joint_counts, lb->kk, (size_t)lb->n * sizeof *lb->kk);
}

int skc_bone_links(const skc_skeleton* sk, const skc_skin* skin, const skc_wscope* sc, const skc_links_params* p,
                   skc_skeleton** out_skeleton, skc_skin** out_skin, skc_wreport* r, skc_err* err) {
  int rc = check_links(sk, skin, p, out_skeleton, out_skin, err);
  if (rc) return rc;
  lbuild lb;
  memset(&lb, 0, sizeof lb);
  lb.sk = sk, lb.sc = sc, lb.p = p;
  lb.n = sk->joint_count;
  lb.stride = p->positions_stride ? p->positions_stride : 3 * sizeof(float);
  skc_skeleton* out_sk = NULL;
  skc_skin* out_sn = NULL;
  if ((rc = plan_links(&lb, err))) goto done;
  if ((rc = build_joints(&lb, err))) goto done;
  if ((rc = create_skeleton(&lb, &out_sk, err))) goto done;

  /* ---- weights */
  if (skin && (rc = spread_weights(&lb, skin, r, &out_sn, err))) goto done;
  if (r) report_links(&lb, skin, r);
  *out_skeleton = out_sk;
  out_sk = NULL;
  if (out_skin) *out_skin = out_sn;
  out_sn = NULL;

done:
  skc_skeleton_destroy(out_sk);
  skc_skin_destroy(out_sn);
  lbuild_free(&lb);
  return rc;
}

/* ---------------------------------------------------------------------------------------------- source map */

typedef struct name_ref {
  const char* name;
  uint32_t index;
} name_ref;

static int cmp_name_ref(const void* a, const void* b) {
  return strcmp(((const name_ref*)a)->name, ((const name_ref*)b)->name);
}

int skc_bone_links_source(const skc_skeleton* original, const skc_skeleton* linked, uint32_t* out_source,
                          uint32_t* out_link, skc_err* err) {
  if (!original || !linked)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links: original and linked skeletons are required");
  uint32_t n = original->joint_count, m = linked->joint_count;
  if (m < n)
    return skc_fail(err, SKC_INVALID_ARGUMENT,
                    "bone links: the linked skeleton has %u joints, fewer than the %u of the original", m, n);
  name_ref* refs = malloc((size_t)n * sizeof *refs);
  uint32_t* src = malloc((size_t)m * sizeof *src);
  uint32_t* lnk = malloc((size_t)m * sizeof *lnk);
  uint32_t* kmax = calloc(n, sizeof *kmax);
  uint32_t* kcount = calloc(n, sizeof *kcount);
  uint32_t* seen = calloc(n, sizeof *seen);
  int rc = SKC_OK;
  if (!refs || !src || !lnk || !kmax || !kcount || !seen) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bone links: out of memory mapping %u joints", m);
    goto done;
  }
  for (uint32_t j = 0; j < n; ++j) refs[j] = (name_ref){original->names[j], j};
  qsort(refs, n, sizeof *refs, cmp_name_ref);
  for (uint32_t q = 0; q < m && rc == SKC_OK; ++q) {
    name_ref key = {linked->names[q], 0};
    const name_ref* hit = bsearch(&key, refs, n, sizeof *refs, cmp_name_ref);
    if (hit) {
      src[q] = hit->index;
      lnk[q] = 0;
      seen[hit->index]++;
    } else {
      int32_t pq = linked->parents[q];
      if (pq < 0) {
        rc = skc_fail(err, SKC_INVALID_ARGUMENT,
                      "bone links: joint \"%s\" of the linked skeleton is neither in the original nor a link of one of "
                      "its joints",
                      linked->names[q]);
        break;
      }
      src[q] = src[pq];
      lnk[q] = lnk[pq] + 1;
      kcount[src[q]]++;
      if (lnk[q] > kmax[src[q]]) kmax[src[q]] = lnk[q];
    }
  }
  for (uint32_t j = 0; j < n && rc == SKC_OK; ++j)
    if (seen[j] != 1 || kcount[j] != kmax[j])
      rc =
          skc_fail(err, SKC_INVALID_ARGUMENT,
                   "bone links: the linked skeleton was not made from this skeleton (joint \"%s\" missing or its links "
                   "branch)",
                   original->names[j]);
  /* every original joint hangs under its original parent's last link (or the parent itself) */
  for (uint32_t q = 0; q < m && rc == SKC_OK; ++q) {
    if (lnk[q]) continue;
    int32_t op = original->parents[src[q]], lp = linked->parents[q];
    bool ok = op < 0 ? lp < 0 : (lp >= 0 && src[lp] == (uint32_t)op && lnk[lp] == kmax[op]);
    if (!ok)
      rc = skc_fail(err, SKC_INVALID_ARGUMENT,
                    "bone links: joint \"%s\" has another parent in the linked skeleton than in the original",
                    linked->names[q]);
  }
  if (rc == SKC_OK) {
    if (out_source) memcpy(out_source, src, (size_t)m * sizeof *src);
    if (out_link) memcpy(out_link, lnk, (size_t)m * sizeof *lnk);
  }
done:
  free(refs);
  free(src);
  free(lnk);
  free(kmax);
  free(kcount);
  free(seen);
  return rc;
}

/* ---------------------------------------------------------------------------------------------- pose */

static void trs_load(const float* p, skc_trs* t) {
  memcpy(t, p, sizeof *t);
  float n = t->r[0] * t->r[0] + t->r[1] * t->r[1] + t->r[2] * t->r[2] + t->r[3] * t->r[3];
  if (!(n > 0.0f)) {
    t->r[0] = t->r[1] = t->r[2] = 0.0f;
    t->r[3] = 1.0f;
  } else {
    skc_quat_normalize(t->r);
  }
}

/* Working state of skc_bone_links_pose: the skeletons, the input pose, where each linked joint comes from and the
 * output pose being built. */
typedef struct lpose {
  const skc_skeleton* original;
  const skc_skeleton* linked;
  const float* trs; /* 10 floats per original joint */
  uint32_t n, m;    /* original and linked joint counts */
  uint32_t* src;    /* per linked joint: its original joint */
  uint32_t* lnk;    /* per linked joint: 0, or i for the i-th link */
  uint32_t* first;  /* linked index of each original joint */
  uint32_t* kk;     /* links of each original joint */
  float* out;       /* 10 floats per linked joint */
  float* split;     /* per linked joint: q = d^(1/(k+1)) */
} lpose;

/* Poses the original joints: their TRS, with a linked joint's rotation reduced to its share (kept in lp->split). */
static void pose_originals(const lpose* lp) {
  /* original joints: their TRS, with a linked joint's rotation reduced to its share */
  for (uint32_t j = 0; j < lp->n; ++j) {
    skc_trs t;
    trs_load(lp->trs + (size_t)j * 10, &t);
    if (lp->kk[j]) {
      skc_trs r0;
      skc_mat4_to_trs(lp->original->rest_local + 16 * (size_t)j, &r0, 1e-4f);
      float inv0[4] = {-r0.r[0], -r0.r[1], -r0.r[2], r0.r[3]}, d[4], q[4];
      skc_quat_mul(inv0, t.r, d); /* rotation relative to the rest */
      skc_quat_pow(d, 1.0f / (float)(lp->kk[j] + 1), q);
      memcpy(lp->split + 4 * (size_t)j, q, sizeof q);
      skc_quat_mul(r0.r, q, t.r);
    }
    memcpy(lp->out + (size_t)lp->first[j] * 10, &t, sizeof t);
  }
}

/* Poses the links: their rest TRS turned by their joint's share. */
static void pose_links(const lpose* lp) {
  /* links: their rest TRS turned by the share */
  for (uint32_t q = 0; q < lp->m; ++q) {
    if (!lp->lnk[q]) continue;
    skc_trs t;
    skc_mat4_to_trs(lp->linked->rest_local + 16 * (size_t)q, &t, 1e-4f);
    float r[4];
    skc_quat_mul(t.r, lp->split + 4 * (size_t)lp->src[q], r);
    memcpy(t.r, r, sizeof r);
    memcpy(lp->out + (size_t)q * 10, &t, sizeof t);
  }
}

/* X = inverse(L_J' L_1 .. L_k) * L_J for linked joint j: what moves its children back to their unlinked place. Fails
 * on a singular chain, or when X is not a pure translation (a non-uniform scale). */
static int chain_correction(const lpose* lp, uint32_t j, float X[16], skc_err* err) {
  const float* out = lp->out;
  uint32_t first = lp->first[j];
  float chainm[16], lj[16], link[16], inv[16];
  skc_trs t;
  memcpy(&t, out + (size_t)first * 10, sizeof t);
  skc_trs_to_mat4(&t, chainm);
  for (uint32_t i = 1; i <= lp->kk[j]; ++i) {
    memcpy(&t, out + (size_t)(first + i) * 10, sizeof t);
    skc_trs_to_mat4(&t, link);
    skc_mat4_mul(chainm, link, chainm);
  }
  trs_load(lp->trs + (size_t)j * 10, &t);
  memcpy(t.t, out + (size_t)first * 10, sizeof t.t); /* J's translation, corrected if its parent is linked */
  skc_trs_to_mat4(&t, lj);
  if (!skc_mat4_inverse(chainm, inv))
    return skc_fail(err, SKC_SINGULAR_MATRIX, "bone links pose: joint \"%s\" has a singular pose transform",
                    lp->original->names[j]);
  skc_mat4_mul(inv, lj, X);
  float I[16];
  skc_mat4_identity(I);
  float dev = 0.0f;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k) dev = fmaxf(dev, fabsf(X[c * 4 + k] - I[c * 4 + k]));
  if (!(dev <= 1e-3f))
    return skc_fail(err, SKC_UNSUPPORTED,
                    "bone links pose: joint \"%s\" has a non-uniform scale; its rotation cannot be split over links",
                    lp->original->names[j]);
  return SKC_OK;
}

/* Corrects the translation of every linked joint's children so that their world transforms equal the unlinked
 * pose's. */
static int correct_children(const lpose* lp, skc_err* err) {
  const skc_skeleton* original = lp->original;
  /* children of linked joints: X = inverse(L_J' L_1 .. L_k) * L_J moves them back to their unlinked place */
  for (uint32_t j = 0; j < lp->n; ++j) {
    if (!lp->kk[j]) continue;
    float X[16];
    int rc = chain_correction(lp, j, X, err);
    if (rc) return rc;
    for (uint32_t c = 0; c < lp->n; ++c)
      if (original->parents[c] == (int32_t)j) {
        float* tc = lp->out + (size_t)lp->first[c] * 10;
        for (int a = 0; a < 3; ++a) tc[a] += X[12 + a];
      }
  }
  return SKC_OK;
}

int skc_bone_links_pose(const skc_skeleton* original, const skc_skeleton* linked, const float* trs, float* out_trs,
                        skc_err* err) {
  if (!original || !linked || !trs || !out_trs)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links pose: skeletons, trs and out_trs are required");
  uint32_t n = original->joint_count, m = linked->joint_count;
  if (m < n)
    return skc_fail(err, SKC_INVALID_ARGUMENT,
                    "bone links pose: the linked skeleton has %u joints, fewer than the %u of the original", m,
                    n);
  for (size_t i = 0; i < (size_t)n * 10; ++i)
    if (!isfinite(trs[i]))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "bone links pose: TRS of joint %zu is not finite", i / 10);
  lpose lp;
  lp.original = original, lp.linked = linked, lp.trs = trs, lp.n = n, lp.m = m;
  lp.src = malloc((size_t)m * sizeof *lp.src);
  lp.lnk = malloc((size_t)m * sizeof *lp.lnk);
  lp.first = malloc((size_t)n * sizeof *lp.first); /* linked index of each original joint */
  lp.kk = calloc(n, sizeof *lp.kk);
  lp.out = malloc((size_t)m * 10 * sizeof *lp.out);
  lp.split = malloc((size_t)n * 4 * sizeof *lp.split); /* per linked joint: q = d^(1/(k+1)) */
  int rc = SKC_OK;
  if (!lp.src || !lp.lnk || !lp.first || !lp.kk || !lp.out || !lp.split) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "bone links pose: out of memory for %u joints", m);
    goto done;
  }
  if ((rc = skc_bone_links_source(original, linked, lp.src, lp.lnk, err))) goto done;
  for (uint32_t q = 0; q < m; ++q) {
    if (lp.lnk[q] == 0) lp.first[lp.src[q]] = q;
    if (lp.lnk[q] > lp.kk[lp.src[q]]) lp.kk[lp.src[q]] = lp.lnk[q];
  }
  pose_originals(&lp);
  pose_links(&lp);
  rc = correct_children(&lp, err);
  if (rc == SKC_OK) memcpy(out_trs, lp.out, (size_t)m * 10 * sizeof *lp.out);
done:
  free(lp.src);
  free(lp.lnk);
  free(lp.first);
  free(lp.kk);
  free(lp.out);
  free(lp.split);
  return rc;
}
