/* gltf_validate.c - skin checks on the JOINTS_n / WEIGHTS_n values of a glTF document (rules in
 * skio_gltf_validate.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_gltf_doc.h"
#include "skio_gltf_validate.h"

/* The validator's float32 slack per summed weight (InfluencesChecker: threshold += 2e-7). */
#define KHRONOS_SLACK 2e-7f

typedef struct set_data {
  uint32_t* joints;  /* 4 * V */
  float* weights;    /* 4 * V */
  uint32_t* iweight; /* 4 * V raw integers of unsigned normalized weights, else NULL */
  uint32_t imax;     /* 255 / 65535 for unsigned normalized weights, else 0 */
} set_data;

static void free_sets(set_data* s, uint32_t n) {
  for (uint32_t i = 0; s && i < n; ++i) {
    free(s[i].joints);
    free(s[i].weights);
    free(s[i].iweight);
  }
  free(s);
}

/* Declaration of attribute `key` of the primitive's attributes object; false when absent. */
static int attribute(skio_gltf_doc* d, int attrs, const char* key, skio_gltf_accessor* a, bool* found, skc_err* err) {
  *found = false;
  int t = skio_json_get(d, attrs, key);
  if (t < 0) return SKC_OK;
  uint32_t idx;
  if (!skio_json_u32(d, t, &idx)) return skc_fail(err, SKC_FORMAT, "%s: %s is not an accessor index", d->path, key);
  int rc = skio_gltf_accessor_info(d, idx, a, err);
  if (rc) return rc;
  *found = true;
  return SKC_OK;
}

static bool same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Whether the reader's skin still holds vertex v as the file has it: every non-zero weight on a joint of the skin,
 * set by set, in the file's order (to_skel maps the skin's joints to the scene skeleton's). */
static bool kept_matches(const set_data* sd, uint32_t sets, size_t v, uint32_t joint_count, const skc_skin* kept,
                         const uint32_t* to_skel) {
  size_t e = kept->offsets[v], e_end = kept->offsets[v + 1];
  for (uint32_t n = 0; n < sets; ++n)
    for (size_t at = v * 4; at < v * 4 + 4; ++at) {
      uint32_t j = sd[n].joints[at];
      float w = sd[n].weights[at];
      if (j >= joint_count || w == 0.0f) continue;
      if (e >= e_end || kept->joints[e] != to_skel[j] || !same_float(kept->weights[e], w)) return false;
      e++;
    }
  return e == e_end;
}

typedef struct vertex_tally {
  uint8_t flags;       /* SKC_VFLAG_* but the sum's, unweighted and over-limit */
  uint32_t influences; /* non-zero weights, NaN included */
  uint32_t summed;     /* weights in the sum */
  float sum;           /* float32 running sum, as the validator keeps it */
  uint64_t isum;       /* integer sum of unsigned normalized weights */
  uint32_t scale;      /* their common maximum (255, 65535); UINT32_MAX when float or mixed weights were summed */
  bool nonzero;        /* a finite non-zero weight on a joint of the skin */
} vertex_tally;

/* Vertex v in the Khronos validator's order (InfluencesChecker: component by component, each set in turn within
 * a component, so two sets' duplicates and float32 sums come out as it counts them). A joint past the skin's list is
 * bad and its weight is not looked at; any other non-zero weight, NaN and infinities included, claims its joint (a
 * second claim is a duplicate); negative weights (-inf too) and duplicates stay out of the sum. stamp[j] = the last
 * vertex (+1) that claimed joint j; used[j]: a finite non-zero weight somewhere. */
static void tally_vertex(const set_data* sd, uint32_t sets, size_t v, uint32_t joint_count, size_t* stamp,
                         uint8_t* used, vertex_tally* t) {
  memset(t, 0, sizeof *t);
  for (size_t at = v * 4; at < v * 4 + 4; ++at)
    for (uint32_t n = 0; n < sets; ++n) {
      uint32_t j = sd[n].joints[at];
      float w = sd[n].weights[at];
      if (w != 0.0f) t->influences++; /* NaN too */
      if (j >= joint_count) {
        t->flags |= SKC_VFLAG_BAD_JOINT;
        continue;
      }
      if (w == 0.0f) continue;
      bool dup = stamp[j] == v + 1;
      stamp[j] = v + 1;
      if (dup) t->flags |= SKC_VFLAG_DUPLICATE;
      if (w < 0.0f) t->flags |= SKC_VFLAG_NEGATIVE;
      if (!isfinite(w)) {
        t->flags |= SKC_VFLAG_NAN;
        continue;
      }
      t->nonzero = true;
      used[j] = 1;
      if (w < 0.0f || dup) continue;
      t->sum += w;
      t->summed++;
      uint32_t m = sd[n].imax ? sd[n].imax : UINT32_MAX;
      t->scale = !t->scale || t->scale == m ? m : UINT32_MAX;
      if (sd[n].iweight) t->isum += sd[n].iweight[at];
    }
}

/* The attributes object of primitive `primitive` of node `node` and its skin's joint list (*joints_tok); false when
 * the node has no skin or mesh, or the primitive no attributes. */
static bool locate_primitive(skio_gltf_doc* d, uint32_t node, uint32_t primitive, int* attrs, int* joints_tok) {
  int nt = skio_gltf_item(d, "nodes", node);
  uint32_t skin_i, mesh_i;
  if (!skio_json_u32(d, skio_json_get(d, nt, "skin"), &skin_i) ||
      !skio_json_u32(d, skio_json_get(d, nt, "mesh"), &mesh_i))
    return false;
  int skin = skio_gltf_item(d, "skins", skin_i);
  int pt = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", mesh_i), "primitives"), (int)primitive);
  *attrs = skio_json_get(d, pt, "attributes");
  if (skin < 0 || *attrs < 0) return false;
  *joints_tok = skio_json_get(d, skin, "joints");
  return true;
}

/* The number of JOINTS_n attributes, n = 0, 1, ... without a gap. */
static uint32_t count_sets(skio_gltf_doc* d, int attrs) {
  uint32_t sets = 0;
  for (;; ++sets) {
    char k[32];
    snprintf(k, sizeof k, "JOINTS_%u", sets);
    if (skio_json_get(d, attrs, k) < 0) break;
  }
  return sets;
}

/* Reads set n (JOINTS_n / WEIGHTS_n, V vertices each) into *sd; *usable = false when their counts are not V (the
 * primitive is then not checked). */
static int read_set(skio_gltf_doc* d, int attrs, uint32_t node, uint32_t primitive, size_t V, uint32_t n, set_data* sd,
                    bool* usable, skc_err* err) {
  char jk[32], wk[32];
  snprintf(jk, sizeof jk, "JOINTS_%u", n);
  snprintf(wk, sizeof wk, "WEIGHTS_%u", n);
  skio_gltf_accessor ja, wa;
  bool jf, wf;
  int rc;
  if ((rc = attribute(d, attrs, jk, &ja, &jf, err)) || (rc = attribute(d, attrs, wk, &wa, &wf, err))) return rc;
  if (!wf)
    return skc_fail(err, SKC_FORMAT, "%s: node %u primitive %u: %s without %s", d->path, node, primitive, jk, wk);
  if (ja.components != 4 || wa.components != 4)
    return skc_fail(err, SKC_FORMAT, "%s: node %u primitive %u: %s / %s are not VEC4", d->path, node, primitive, jk,
                    wk);
  if (ja.count != V || wa.count != V) {
    *usable = false;
    return SKC_OK;
  }
  size_t cells = V * 4;
  /* unsigned integer weights, normalized or not: read as normalized, as the reader does */
  bool unorm = wa.component_type == SKIO_GLTF_UNSIGNED_BYTE || wa.component_type == SKIO_GLTF_UNSIGNED_SHORT;
  sd->joints = malloc((cells ? cells : 1) * sizeof(uint32_t));
  sd->weights = malloc((cells ? cells : 1) * sizeof(float));
  if (unorm) {
    sd->iweight = malloc((cells ? cells : 1) * sizeof(uint32_t));
    sd->imax = wa.component_type == SKIO_GLTF_UNSIGNED_BYTE ? 255u : 65535u;
  }
  if (!sd->joints || !sd->weights || (unorm && !sd->iweight))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory validating %s", d->path);
  if ((rc = skio_gltf_accessor_uints(d, ja.index, sd->joints, err)) ||
      (rc = skio_gltf_accessor_weights(d, wa.index, sd->weights, err)) ||
      (unorm && (rc = skio_gltf_accessor_uints(d, wa.index, sd->iweight, err))))
    return rc;
  return SKC_OK;
}

/* skin joint -> skeleton joint, to compare the file with the scene's skin (kept): the skeleton joint of the node
 * each of the skin's joint_count joints (joints_tok) names, else UINT32_MAX. NULL when out of memory. */
static uint32_t* skin_to_skeleton(skio_gltf_doc* d, const skc_skin* kept, const int32_t* joint_node, int joints_tok,
                                  uint32_t joint_count) {
  int32_t* node_joint = malloc((d->node_count ? d->node_count : 1) * sizeof *node_joint);
  uint32_t* to_skel = malloc((joint_count ? joint_count : 1) * sizeof *to_skel);
  if (!node_joint || !to_skel) {
    free(node_joint);
    free(to_skel);
    return NULL;
  }
  for (uint32_t i = 0; i < d->node_count; ++i) node_joint[i] = -1;
  for (uint32_t j = 0; j < kept->joint_count; ++j)
    if (joint_node[j] >= 0 && (uint32_t)joint_node[j] < d->node_count) node_joint[joint_node[j]] = (int32_t)j;
  for (uint32_t k = 0; k < joint_count; ++k) {
    uint32_t nd;
    to_skel[k] = skio_json_u32(d, skio_json_at(d, joints_tok, (int)k), &nd) && nd < d->node_count && node_joint[nd] >= 0
                     ? (uint32_t)node_joint[nd]
                     : UINT32_MAX;
  }
  free(node_joint);
  return to_skel;
}

/* Tallies the primitive's vertices into r (counts, histogram, flags, weight sums, joints used). Returns whether
 * the scene's skin (kept, through to_skel) differs from the file's values. */
static bool check_vertices(const set_data* sd, uint32_t sets, size_t V, uint32_t joint_count, const skc_skin* kept,
                           const uint32_t* to_skel, float tolerance, uint32_t max_influences, size_t* stamp,
                           uint8_t* used, skc_skin_report* r) {
  bool edited = false; /* the scene's skin is no longer what the reader kept from these values */
  r->vertex_count = V;
  bool any_sum = false;
  float smin = 0.0f, smax = 0.0f;
  for (size_t v = 0; v < V; ++v) {
    if (kept && !edited && !kept_matches(sd, sets, v, joint_count, kept, to_skel)) edited = true;
    vertex_tally t;
    tally_vertex(sd, sets, v, joint_count, stamp, used, &t);
    uint8_t f = t.flags;
    if (t.influences > r->max_influences) r->max_influences = t.influences;
    r->influence_count += t.influences;
    r->histogram[t.influences < SKC_HISTOGRAM_BINS - 1 ? t.influences : SKC_HISTOGRAM_BINS - 1]++;
    if (f & SKC_VFLAG_NAN) {
      /* the sum of a vertex with a NaN weight means nothing (the validator's comparison with NaN is false too) */
    } else if (!t.nonzero) {
      f |= SKC_VFLAG_UNWEIGHTED;
    } else {
      if (!any_sum || t.sum < smin) smin = t.sum;
      if (!any_sum || t.sum > smax) smax = t.sum;
      any_sum = true;
      float slack = KHRONOS_SLACK * (float)t.summed;
      if (t.scale && t.scale != UINT32_MAX ? t.isum != t.scale
                                           : fabsf(t.sum - 1.0f) > (tolerance > slack ? tolerance : slack))
        f |= SKC_VFLAG_SUM_OFF;
    }
    if (max_influences && t.influences > max_influences) f |= SKC_VFLAG_OVER_LIMIT;
    skc_skin_report_tally(r, f);
  }
  for (uint32_t j = 0; j < joint_count; ++j) r->joints_used += used[j];
  r->weight_sum_min = smin;
  r->weight_sum_max = smax;
  return edited;
}

int skio_gltf_validate_primitive(struct skio_gltf_doc* d, uint32_t node, uint32_t primitive, size_t V,
                                 const skc_skin* kept, const int32_t* joint_node, float tolerance,
                                 uint32_t max_influences, skc_skin_report* r, bool* checked, skc_err* err) {
  if (!d || !r || !checked) return skc_fail(err, SKC_INVALID_ARGUMENT, "document, report and checked must be set");
  memset(r, 0, sizeof *r);
  *checked = false;
  if (!(tolerance > 0.0f)) tolerance = 1e-3f;
  int attrs, joints_tok;
  if (!locate_primitive(d, node, primitive, &attrs, &joints_tok)) return SKC_OK;
  uint32_t joint_count = (uint32_t)skio_json_len(d, joints_tok);
  if (kept && (kept->vertex_count != V || !joint_node)) return SKC_OK;

  uint32_t sets = count_sets(d, attrs);
  if (!sets) return SKC_OK;
  if (sets > SKC_MAX_INFLUENCES_PER_VERTEX / 4)
    return skc_fail(err, SKC_UNSUPPORTED, "%s: node %u primitive %u: %u JOINTS_n sets", d->path, node, primitive, sets);
  set_data* sd = calloc(sets, sizeof *sd);
  if (!sd) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory validating %s", d->path);
  int rc = SKC_OK;
  bool usable = true;
  for (uint32_t n = 0; n < sets && !rc && usable; ++n)
    rc = read_set(d, attrs, node, primitive, V, n, &sd[n], &usable, err);
  if (rc || !usable) {
    free_sets(sd, sets);
    return rc;
  }

  /* stamp[j] = last vertex (+1) that gave joint j a non-zero weight; used[j]: a finite non-zero weight somewhere */
  size_t* stamp = calloc(joint_count ? joint_count : 1, sizeof *stamp);
  uint8_t* used = calloc(joint_count ? joint_count : 1, 1);
  if (!stamp || !used) {
    free(stamp);
    free(used);
    free_sets(sd, sets);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory validating %s", d->path);
  }
  uint32_t* to_skel = NULL;
  if (kept && !(to_skel = skin_to_skeleton(d, kept, joint_node, joints_tok, joint_count))) {
    free(stamp);
    free(used);
    free_sets(sd, sets);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory validating %s", d->path);
  }
  bool edited = check_vertices(sd, sets, V, joint_count, kept, to_skel, tolerance, max_influences, stamp, used, r);
  skc_skin_report_finish(r);
  free(stamp);
  free(used);
  free(to_skel);
  free_sets(sd, sets);
  if (edited)
    memset(r, 0, sizeof *r);
  else
    *checked = true;
  return SKC_OK;
}

/* The node of the first joint's chain (up[x] set) that the walk up from x reaches, or -2 when it reaches none (a
 * root outside the chain, or a loop). Every node passed on the way remembers the answer in reach (-1: not known
 * yet), so all the walks of one skin together visit each node once: a skin of 65,535 joints down a chain as long
 * takes linear time, not one walk per joint. */
static int32_t chain_hit(const int32_t* parent, const uint32_t* up, int32_t* reach, uint32_t* stack, uint32_t n,
                         int32_t x) {
  uint32_t sp = 0;
  while (x >= 0 && up[x] == UINT32_MAX && reach[x] == -1 && sp < n) {
    stack[sp++] = (uint32_t)x;
    x = parent[x];
  }
  int32_t hit = x < 0 || sp == n ? -2 : up[x] != UINT32_MAX ? x : reach[x];
  while (sp) reach[stack[--sp]] = hit;
  return hit;
}

/* SKIO_SKIN_INFLUENCE_FORMAT when a JOINTS_n / WEIGHTS_n set past the absent set `gap` is there (JOINTS_2 without
 * JOINTS_1: the Khronos validator's MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY; the reader stops at the gap, so an
 * edit dropped the later set unread), else 0. */
static uint32_t set_after(skio_gltf_doc* d, int attrs, uint32_t gap) {
  for (uint32_t n = gap + 1; n < 64; ++n) {
    char jk[32], wk[32];
    snprintf(jk, sizeof jk, "JOINTS_%u", n);
    snprintf(wk, sizeof wk, "WEIGHTS_%u", n);
    if (skio_json_get(d, attrs, jk) >= 0 || skio_json_get(d, attrs, wk) >= 0) return SKIO_SKIN_INFLUENCE_FORMAT;
  }
  return 0;
}

uint32_t skio_gltf_influence_format(skio_gltf_doc* d, uint32_t node, uint32_t primitive) {
  uint32_t mesh_i;
  if (!d || !skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "nodes", node), "mesh"), &mesh_i)) return 0;
  int pt = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", mesh_i), "primitives"), (int)primitive);
  int attrs = skio_json_get(d, pt, "attributes");
  for (uint32_t n = 0; attrs >= 0 && n < SKC_MAX_INFLUENCES_PER_VERTEX / 4; ++n) {
    char jk[32], wk[32];
    snprintf(jk, sizeof jk, "JOINTS_%u", n);
    snprintf(wk, sizeof wk, "WEIGHTS_%u", n);
    skio_gltf_accessor ja, wa;
    bool jf, wf;
    skc_err e = {0};
    if (attribute(d, attrs, jk, &ja, &jf, &e) || attribute(d, attrs, wk, &wa, &wf, &e)) return 0;
    if (!jf && !wf) return set_after(d, attrs, n); /* set n absent: none may follow */
    if ((jf && !skio_gltf_influence_format_ok(&ja, false)) || (wf && !skio_gltf_influence_format_ok(&wa, true)))
      return SKIO_SKIN_INFLUENCE_FORMAT;
  }
  return 0;
}

uint32_t skio_gltf_draco_count_differs(skio_gltf_doc* d, uint32_t node, uint32_t primitive) {
  uint32_t mesh_i;
  if (!d || !skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "nodes", node), "mesh"), &mesh_i)) return 0;
  int pt = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", mesh_i), "primitives"), (int)primitive);
  int attrs = skio_json_get(d, pt, "attributes");
  for (int k = 0, n = skio_json_is(d, attrs, 1) ? d->tok[attrs].size : 0; k < n; ++k) {
    uint32_t i;
    skio_gltf_accessor a;
    skc_err e = {0};
    if (skio_json_u32(d, skio_json_key_at(d, attrs, k) + 1, &i) && !skio_gltf_accessor_info(d, i, &a, &e) && a.draco &&
        a.count != a.declared_count)
      return SKIO_SKIN_DRACO_COUNT;
  }
  return 0;
}

/* The document's node parents, worked out on the first call (NULL: not a forest, or no memory). Threads that
 * validate one const scene at once may each work them out: the first to publish its array wins, the others free
 * theirs and take the published one. */
static const int32_t* node_parents_once(skio_gltf_doc* d) {
  int32_t* p = atomic_load_explicit(&d->node_parent, memory_order_acquire);
  if (!p) {
    int32_t* mine = malloc(((size_t)d->node_count + 1) * sizeof *mine);
    if (!mine) return NULL; /* no memory: not remembered, asked again next time */
    mine[0] = skio_gltf_node_parents(d, "", mine + 1, NULL) ? -1 : 1;
    int32_t* expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&d->node_parent, &expected, mine, memory_order_acq_rel,
                                                memory_order_acquire)) {
      p = mine;
    } else {
      free(mine);
      p = expected;
    }
  }
  return p[0] > 0 ? p + 1 : NULL;
}

/* skio_gltf_skin_structure of skin skin_i, worked out (O(nodes + joints)). */
static uint32_t skin_structure(skio_gltf_doc* d, uint32_t skin_i) {
  int skin = skio_gltf_item(d, "skins", skin_i);
  int joints = skio_json_get(d, skin, "joints");
  uint32_t n = d->node_count, first;
  if (skin < 0 || !n || !skio_json_u32(d, skio_json_at(d, joints, 0), &first) || first >= n) return 0;
  const int32_t* parent = node_parents_once(d); /* NULL: no forest, the reader refuses the file */
  uint32_t* up = malloc(n * sizeof *up); /* up[x] = steps from the first joint up to its ancestor x, or UINT32_MAX */
  int32_t* reach = malloc(n * sizeof *reach);
  uint32_t* stack = malloc(n * sizeof *stack);
  uint8_t* listed = calloc(n, 1);
  uint32_t flags = 0;
  if (!parent || !up || !reach || !stack || !listed) goto done;
  uint32_t dup = 0;
  for (int k = 0, nj = skio_json_len(d, joints); k < nj; ++k) {
    uint32_t j;
    if (!skio_json_u32(d, skio_json_at(d, joints, k), &j) || j >= n) continue;
    if (listed[j]) dup = SKIO_SKIN_DUPLICATE_JOINT;
    listed[j] = 1;
  }
  for (uint32_t i = 0; i < n; ++i) up[i] = UINT32_MAX, reach[i] = -1;
  uint32_t depth = 0; /* the first joint's chain, at most n nodes (a loop ends it) */
  for (int32_t x = (int32_t)first; x >= 0 && up[x] == UINT32_MAX; x = parent[x]) up[x] = depth++;
  uint32_t root_at = 0; /* the closest common root: the first joint's ancestor root_at steps up */
  for (int k = 1, nj = skio_json_len(d, joints); k < nj && !flags; ++k) {
    uint32_t j;
    if (!skio_json_u32(d, skio_json_at(d, joints, k), &j) || j >= n) continue;
    int32_t x = chain_hit(parent, up, reach, stack, n, (int32_t)j);
    if (x < 0)
      flags |= SKIO_SKIN_NO_COMMON_ROOT;
    else if (up[x] > root_at)
      root_at = up[x];
  }
  uint32_t sk;
  if (!flags && skio_json_u32(d, skio_json_get(d, skin, "skeleton"), &sk) &&
      (sk >= n || up[sk] == UINT32_MAX || up[sk] < root_at))
    flags |= SKIO_SKIN_SKELETON_INVALID;
  flags |= dup;
done:
  free(up);
  free(reach);
  free(stack);
  free(listed);
  return flags;
}

/* Meshes share skins (a scene of 20,000 skinned props and one skin took 21 s to validate when each mesh worked its
 * skin out again over every node): each skin is worked out once per document. */
uint32_t skio_gltf_skin_structure(skio_gltf_doc* d, uint32_t node) {
  uint32_t skin_i;
  if (!d || !skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "nodes", node), "skin"), &skin_i) ||
      skin_i >= d->skin_count)
    return 0;
  _Atomic(uint32_t)* memo = atomic_load_explicit(&d->skin_structure, memory_order_acquire);
  if (!memo) { /* published once (a const scene validated by several threads at once): a loser frees its own */
    _Atomic(uint32_t)* mine = malloc(d->skin_count * sizeof *mine);
    if (!mine) return skin_structure(d, skin_i); /* no memory for the memo: work it out each time */
    for (uint32_t i = 0; i < d->skin_count; ++i) atomic_init(&mine[i], 0u);
    _Atomic(uint32_t)* expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&d->skin_structure, &expected, mine, memory_order_acq_rel,
                                                memory_order_acquire)) {
      memo = mine;
    } else {
      free((void*)mine);
      memo = expected;
    }
  }
  /* an entry is worked out the same by whichever thread does it: a second one only stores the same value again */
  uint32_t v = atomic_load_explicit(&memo[skin_i], memory_order_relaxed);
  if (!v) atomic_store_explicit(&memo[skin_i], v = skin_structure(d, skin_i) + 1, memory_order_relaxed);
  return v - 1;
}
