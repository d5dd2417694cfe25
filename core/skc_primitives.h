/* skc_primitives.h - generated sample geometry (capped cylinder rig) for demos, tests and benchmarks. */
#ifndef SKC_PRIMITIVES_H
#define SKC_PRIMITIVES_H

#include <stddef.h>
#include <stdint.h>

#include "skc_skin.h"

typedef struct skc_cylinder {
  float radius, length, blend;
  uint32_t segments, rings, bones;
} skc_cylinder;

/* Counts for a capped cylinder along +X from x = 0 to length: (rings + 1) * segments side vertices, two caps of
 * segments + 1 vertices each (own normals); 2 * rings * segments side triangles + 2 * segments cap triangles. */
void skc_cylinder_counts(const skc_cylinder* c, size_t* vertices, size_t* triangles);
/* Fills positions/normals (3 floats per vertex), triangles (3 indices, counter-clockwise seen from outside) and,
 * if skin is non-NULL, weights: bones split the length evenly; around joint k (x = k * length / bones) the weight
 * ramps linearly from bone k-1 to bone k over [x - blend, x + blend]. Any output may be NULL. */
int skc_cylinder_build(const skc_cylinder* c, float* positions, float* normals, uint32_t* triangles, skc_skin* skin,
                       skc_err* err);

#endif
