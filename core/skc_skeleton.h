/* skc_skeleton.h - joint hierarchy, rest/bind matrices, forward kinematics and skinning palette. */
#ifndef SKC_SKELETON_H
#define SKC_SKELETON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_math.h"
#include "skc_status.h"

#define SKC_MAX_JOINTS 65535u
#define SKC_NO_PARENT (-1)

/* The public handle sk_skeleton is this struct. Arrays are owned; matrices are 16 floats each. */
struct sk_skeleton {
  uint32_t joint_count;
  char** names;        /* joint_count NUL-terminated strings */
  int32_t* parents;    /* SKC_NO_PARENT or < own index */
  float* rest_local;   /* 16 * joint_count */
  float* rest_world;   /* 16 * joint_count */
  float* bind;         /* 16 * joint_count, B */
  float* inverse_bind; /* 16 * joint_count, B^-1 */
  /* NULL, or 3 * joint_count: each joint's bone tail as the file stores it (Blender's Collada tips), a point in the
   * joint's own rest frame (so it follows any later change of the roots' placement); NaN where not stored. The bone
   * segments take it before any rule (skc_skeleton_bone_segments). */
  float* tail_local;
};
typedef struct sk_skeleton skc_skeleton;

typedef struct skc_skeleton_init {
  uint32_t joint_count;
  const char* const* names;
  const int32_t* parents;
  const float* rest_local;
  const float* bind;
  const float* inverse_bind;
  const float* tail_local; /* NULL, or 3 * joint_count (NaN: not stored); entries not all finite become NaN */
} skc_skeleton_init;

int skc_skeleton_create(const skc_skeleton_init* init, skc_skeleton** out, skc_err* err);
/* Whether joint j is a root: no parent (or, defensively, a parent that is not an earlier joint). */
static inline bool skc_skeleton_is_root(const skc_skeleton* s, uint32_t j) {
  const int32_t p = s->parents[j];
  return p == SKC_NO_PARENT || p < 0 || (uint32_t)p >= j;
}
void skc_skeleton_destroy(skc_skeleton* s);
/* Whether joint j's tail is stored (s->tail_local has a finite point for it). */
static inline bool skc_skeleton_has_tail(const skc_skeleton* s, uint32_t j) {
  const float* t = s->tail_local ? s->tail_local + 3 * (size_t)j : NULL;
  return t && t[0] == t[0] && t[1] == t[1] && t[2] == t[2];
}
/* Index of a joint by exact name, or -1. Linear scan (skeletons are small). */
int32_t skc_skeleton_find(const skc_skeleton* s, const char* name);

/* Checks a parent array: every parent is SKC_NO_PARENT or an earlier index. */
int skc_hierarchy_check(const int32_t* parents, uint32_t count, skc_err* err);
/* Topological order (parents first) of an arbitrary parent array; out_order[k] = old index. */
int skc_hierarchy_order(const int32_t* parents, uint32_t count, uint32_t* out_order, skc_err* err);

/* world_j = parent_world * local_j (root: root * local_j; root NULL = identity). Parents must come first. */
void skc_fk(const int32_t* parents, uint32_t count, const float* local, const float* root, float* out_world);
/* out_j = world_j * inverse_bind_j; out may alias world. */
void skc_palette(const float* world, const float* inverse_bind, uint32_t count, float* out);

#endif
