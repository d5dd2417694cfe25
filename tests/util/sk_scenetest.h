/* sk_scenetest.h - helpers of the unit tests that work on io scenes (skio_scene): load, save with the writer's note,
 * rewrite a mesh's skin row by row, compare skins by joint name, rest-pose skinning. They assert (Check) on failure.
 * Used by the in-place editors' tests (test_fbx_edit.c, test_dae_edit.c). */
#ifndef SK_SCENETEST_H
#define SK_SCENETEST_H

#include <stddef.h>
#include <stdint.h>

#include "skinkit.h"
#include "skio_scene.h"

/* The scene of path (asserts it loads). */
skio_scene* skt_scene_load(const char* path);
/* The whole file, NUL-terminated past its *n bytes (malloc'd; asserts it reads). */
char* skt_slurp(const char* path, size_t* n);
/* Writes s as dir/name (path receives it) and returns the writer's note (a static buffer). */
const char* skt_scene_save(const skio_scene* s, const char* dir, const char* name, char* path, size_t path_size);
/* The skeleton joint named name (asserts there is one). */
int32_t skt_scene_joint(const skio_scene* s, const char* name);
/* A new row for a vertex: from its position p and influences (j, w, n) into (oj, ow), at most 8; returns the count. */
typedef uint32_t (*skt_row_fn)(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                               uint32_t* oj, float* ow);
/* A row function: the same joints, weights scaled by 0.5..1.5 and renormalized, the scale a function of the
 * position and the joint (so that the corners of one position or control point get the same weights). */
uint32_t skt_row_perturb(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                         uint32_t* oj, float* ow);
/* A row function: every vertex half on joint "upper", half on "lower" (bare_rig's first two bones). */
uint32_t skt_row_upper_lower(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                             uint32_t* oj, float* ow);
/* Replaces mesh m's skin row by row. */
void skt_scene_rewrite_skin(skio_scene* s, uint32_t m, skt_row_fn fn);
/* Every vertex of every skinned, non-rigid mesh of a has b's influences (same joint names, weights equal as floats). */
void skt_scene_same_skins(const skio_scene* a, const skio_scene* b);
/* Loads src, writes it unchanged as dir/name and asserts the output is the source byte for byte. */
void skt_scene_written_unchanged(const char* src, const char* dir, const char* name);
/* Rest-pose skinned position of vertex v of mesh m (LBS: rest world x the mesh's inverse bind). */
void skt_scene_skinned_rest(const skio_scene* s, uint32_t m, size_t v, float out[3]);

/* Object i of s (the ABI's listing) in clip 0 at time t: its parent_world x sk_scene_object_sample (asserts both
 * succeed). */
void skt_object_world_at(const sk_scene* s, uint32_t i, double t, float out[16]);

#endif
