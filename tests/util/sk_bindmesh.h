/* sk_bindmesh.h - the binding tests' shared fixture: the generated cylinder with its bone chain, loose 1 mm cubes,
 * a bind desc for it, and the check every bind result must pass. */
#ifndef SK_BINDMESH_H
#define SK_BINDMESH_H

#include <stddef.h>
#include <stdint.h>

#include "skinkit.h"

typedef struct skt_bind_mesh {
  size_t nv, nt;
  float* pos;
  uint32_t* tri;
  uint32_t bones;
  float length;
  float heads[3 * 16], tails[3 * 16];
} skt_bind_mesh;

/* Cylinder along +x from 0 to 2 (radius 0.25), bones (<= 16) splitting it evenly; the arrays have room for a
 * second shell of the same size and 13 cubes. */
skt_bind_mesh skt_bind_cylinder(uint32_t segments, uint32_t rings, uint32_t bones);
void skt_bind_mesh_free(skt_bind_mesh* m);
/* Appends 13 closed 1 mm cubes just outside the cylinder wall. */
void skt_bind_add_loose_cubes(skt_bind_mesh* m);
sk_bind_desc skt_bind_desc_for(const skt_bind_mesh* m, sk_bind_method method);
sk_skin* skt_new_skin(size_t nv, uint32_t nj);
/* Every vertex weighted, sum exactly 1 (|sum - 1| <= 1e-6), at most max_inf, valid joints, weights in (0, 1],
 * sorted descending when `sorted`; the skin has nv vertices. */
void skt_check_bind_weights(const sk_skin* s, size_t nv, uint32_t nj, uint32_t max_inf, int sorted);

#endif
