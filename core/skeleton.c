/* skeleton.c - joint hierarchy validation, rest/bind matrices, forward kinematics and palette. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_skeleton.h"

int skc_hierarchy_check(const int32_t* parents, uint32_t count, skc_err* err) {
  for (uint32_t j = 0; j < count; ++j) {
    int32_t p = parents[j];
    if (p == SKC_NO_PARENT) continue;
    if (p < 0 || (uint32_t)p >= count)
      return skc_fail(err, SKC_OUT_OF_RANGE, "joint %u has parent %d, outside 0..%u", j, (int)p, count - 1);
    if ((uint32_t)p >= j)
      return skc_fail(err, SKC_BAD_HIERARCHY,
                      "joint %u has parent %d: parents must come before their children (a cycle or unsorted "
                      "order; sk_hierarchy_order gives a valid order)",
                      j, (int)p);
  }
  return SKC_OK;
}

int skc_hierarchy_order(const int32_t* parents, uint32_t count, uint32_t* out_order, skc_err* err) {
  for (uint32_t j = 0; j < count; ++j) {
    int32_t p = parents[j];
    if (p != SKC_NO_PARENT && (p < 0 || (uint32_t)p >= count))
      return skc_fail(err, SKC_OUT_OF_RANGE, "joint %u has parent %d, outside 0..%u", j, (int)p, count - 1);
  }
  /* Depth of each joint by walking up with path marking; a walk longer than count means a cycle. */
  uint32_t* depth = malloc((size_t)count * sizeof *depth);
  uint32_t* bucket = calloc((size_t)count + 1, sizeof *bucket);
  if (!depth || !bucket) {
    free(depth);
    free(bucket);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory ordering %u joints", count);
  }
  const uint32_t unknown = UINT32_MAX;
  for (uint32_t j = 0; j < count; ++j) depth[j] = unknown;
  int rc = SKC_OK;
  for (uint32_t j = 0; j < count && rc == SKC_OK; ++j) {
    /* climb until a known depth or a root, counting steps */
    uint32_t steps = 0, k = j;
    while (depth[k] == unknown && parents[k] != SKC_NO_PARENT) {
      k = (uint32_t)parents[k];
      if (++steps > count) {
        rc = skc_fail(err, SKC_BAD_HIERARCHY, "the joint hierarchy has a cycle through joint %u", j);
        break;
      }
    }
    if (rc != SKC_OK) break;
    uint32_t base = depth[k] != unknown ? depth[k] : 0;
    if (depth[k] == unknown) depth[k] = 0; /* a root */
    /* assign depths along the path from j up to k */
    uint32_t d = base + steps;
    k = j;
    while (depth[k] == unknown) {
      depth[k] = d--;
      k = (uint32_t)parents[k];
    }
  }
  if (rc == SKC_OK) {
    /* stable counting sort by depth: parents have smaller depth, so they come first */
    for (uint32_t j = 0; j < count; ++j) bucket[depth[j] + 1]++;
    for (uint32_t d = 1; d <= count; ++d) bucket[d] += bucket[d - 1];
    for (uint32_t j = 0; j < count; ++j) out_order[bucket[depth[j]]++] = j;
  }
  free(depth);
  free(bucket);
  return rc;
}

void skc_fk(const int32_t* parents, uint32_t count, const float* local, const float* root, float* out_world) {
  for (uint32_t j = 0; j < count; ++j) {
    const float* l = local + (size_t)j * 16;
    float* w = out_world + (size_t)j * 16;
    int32_t p = parents[j];
    if (p == SKC_NO_PARENT) {
      if (root)
        skc_mat4_mul(root, l, w);
      else
        memcpy(w, l, 16 * sizeof(float));
    } else {
      skc_mat4_mul(out_world + (size_t)p * 16, l, w);
    }
  }
}

void skc_palette(const float* world, const float* inverse_bind, uint32_t count, float* out) {
  for (uint32_t j = 0; j < count; ++j)
    skc_mat4_mul(world + (size_t)j * 16, inverse_bind + (size_t)j * 16, out + (size_t)j * 16);
}

void skc_skeleton_destroy(skc_skeleton* s) {
  if (!s) return;
  if (s->names)
    for (uint32_t j = 0; j < s->joint_count; ++j) free(s->names[j]);
  free(s->names);
  free(s->parents);
  free(s->rest_local);
  free(s->rest_world);
  free(s->bind);
  free(s->inverse_bind);
  free(s->tail_local);
  free(s);
}

int32_t skc_skeleton_find(const skc_skeleton* s, const char* name) {
  if (!s || !name) return -1;
  for (uint32_t j = 0; j < s->joint_count; ++j)
    if (strcmp(s->names[j], name) == 0) return (int32_t)j;
  return -1;
}

static int check_matrices(const float* m, uint32_t count, const char* what, skc_err* err) {
  for (uint32_t j = 0; j < count; ++j)
    if (!skc_mat4_is_finite(m + (size_t)j * 16))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "%s matrix of joint %u is not finite", what, j);
  return SKC_OK;
}

static int cmp_str_ptr(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static int check_names(const skc_skeleton* s, skc_err* err) {
  const char** sorted = malloc((size_t)s->joint_count * sizeof *sorted);
  if (!sorted) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory checking joint names");
  for (uint32_t j = 0; j < s->joint_count; ++j) sorted[j] = s->names[j];
  qsort(sorted, s->joint_count, sizeof *sorted, cmp_str_ptr);
  int rc = SKC_OK;
  for (uint32_t j = 1; j < s->joint_count; ++j)
    if (strcmp(sorted[j - 1], sorted[j]) == 0) {
      rc = skc_fail(err, SKC_INVALID_ARGUMENT, "joint name \"%s\" is used twice", sorted[j]);
      break;
    }
  free(sorted);
  return rc;
}

/* s->tail_local from init's (a point not all finite: NaN, not stored); none stored: stays NULL. 0 when out of
 * memory. */
static int copy_tails(skc_skeleton* s, const float* tails) {
  bool any = false;
  for (size_t i = 0; i < 3 * (size_t)s->joint_count; i += 3)
    any |= isfinite(tails[i]) && isfinite(tails[i + 1]) && isfinite(tails[i + 2]);
  if (!any) return 1;
  if (!(s->tail_local = malloc(3 * (size_t)s->joint_count * sizeof *s->tail_local))) return 0;
  for (size_t i = 0; i < 3 * (size_t)s->joint_count; i += 3) {
    const bool ok = isfinite(tails[i]) && isfinite(tails[i + 1]) && isfinite(tails[i + 2]);
    for (int k = 0; k < 3; ++k) s->tail_local[i + k] = ok ? tails[i + k] : NAN;
  }
  return 1;
}

/* The init's arguments checked before anything is made. */
static int check_init(const skc_skeleton_init* init, skc_skeleton** out, skc_err* err) {
  if (!init || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "skeleton init and out must not be NULL");
  uint32_t n = init->joint_count;
  if (n == 0 || n > SKC_MAX_JOINTS)
    return skc_fail(err, SKC_OUT_OF_RANGE, "joint_count %u is outside 1..%u", n, SKC_MAX_JOINTS);
  if (!init->parents) return skc_fail(err, SKC_INVALID_ARGUMENT, "parents must not be NULL");
  int rc = skc_hierarchy_check(init->parents, n, err);
  if (rc) return rc;
  if (init->rest_local && (rc = check_matrices(init->rest_local, n, "rest", err))) return rc;
  if (init->bind && (rc = check_matrices(init->bind, n, "bind", err))) return rc;
  if (init->inverse_bind && (rc = check_matrices(init->inverse_bind, n, "inverse bind", err))) return rc;
  return SKC_OK;
}

/* A skeleton of n joints with its arrays allocated (names all NULL), or NULL. */
static skc_skeleton* skeleton_alloc(uint32_t n) {
  skc_skeleton* s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->joint_count = n;
  size_t mbytes = (size_t)n * 16 * sizeof(float);
  s->names = calloc(n, sizeof *s->names);
  s->parents = malloc((size_t)n * sizeof *s->parents);
  s->rest_local = malloc(mbytes);
  s->rest_world = malloc(mbytes);
  s->bind = malloc(mbytes);
  s->inverse_bind = malloc(mbytes);
  if (!s->names || !s->parents || !s->rest_local || !s->rest_world || !s->bind || !s->inverse_bind) {
    skc_skeleton_destroy(s);
    return NULL;
  }
  return s;
}

/* The init's names copied (joint<j> for each when it gives none); then checked for duplicates. */
static int copy_names(skc_skeleton* s, const char* const* names, skc_err* err) {
  for (uint32_t j = 0; j < s->joint_count; ++j) {
    const char* nm = names ? names[j] : NULL;
    char fallback[32];
    if (names && (!nm || !nm[0])) return skc_fail(err, SKC_INVALID_ARGUMENT, "joint %u has an empty name", j);
    if (!nm) {
      snprintf(fallback, sizeof fallback, "joint%u", j);
      nm = fallback;
    }
    size_t len = strlen(nm);
    s->names[j] = malloc(len + 1);
    if (!s->names[j]) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory copying joint names");
    memcpy(s->names[j], nm, len + 1);
  }
  return check_names(s, err);
}

/* Each joint's bind and inverse bind from whichever of them the init gives (the rest pose when neither). */
static int set_binds(skc_skeleton* s, const skc_skeleton_init* init, skc_err* err) {
  for (uint32_t j = 0; j < s->joint_count; ++j) {
    float* b = s->bind + (size_t)j * 16;
    float* ib = s->inverse_bind + (size_t)j * 16;
    bool ok = true;
    if (init->inverse_bind) {
      memcpy(ib, init->inverse_bind + (size_t)j * 16, 16 * sizeof(float));
      if (init->bind)
        memcpy(b, init->bind + (size_t)j * 16, 16 * sizeof(float));
      else
        ok = skc_mat4_inverse(ib, b);
    } else {
      memcpy(b, (init->bind ? init->bind : s->rest_world) + (size_t)j * 16, 16 * sizeof(float));
      ok = skc_mat4_inverse(b, ib);
    }
    if (!ok)
      return skc_fail(err, SKC_SINGULAR_MATRIX, "bind matrix of joint %u (\"%s\") cannot be inverted", j, s->names[j]);
  }
  return SKC_OK;
}

int skc_skeleton_create(const skc_skeleton_init* init, skc_skeleton** out, skc_err* err) {
  int rc = check_init(init, out, err);
  if (rc) return rc;
  uint32_t n = init->joint_count;
  skc_skeleton* s = skeleton_alloc(n);
  if (!s) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory creating a skeleton of %u joints", n);
  if ((rc = copy_names(s, init->names, err))) {
    skc_skeleton_destroy(s);
    return rc;
  }
  memcpy(s->parents, init->parents, (size_t)n * sizeof *s->parents);
  if (init->rest_local)
    memcpy(s->rest_local, init->rest_local, (size_t)n * 16 * sizeof(float));
  else
    for (uint32_t j = 0; j < n; ++j) skc_mat4_identity(s->rest_local + (size_t)j * 16);
  skc_fk(s->parents, n, s->rest_local, NULL, s->rest_world);
  if ((rc = set_binds(s, init, err))) {
    skc_skeleton_destroy(s);
    return rc;
  }
  if (init->tail_local && !copy_tails(s, init->tail_local)) {
    skc_skeleton_destroy(s);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory creating a skeleton of %u joints", n);
  }
  *out = s;
  return SKC_OK;
}
