/* skc_uf.h - union-find over uint32_t indices (parent[x] == x at a root), shared by the binders and rogue removal. */
#ifndef SKC_UF_H
#define SKC_UF_H

#include <stdint.h>

/* The root of x, halving the path on the way. */
static inline uint32_t skc_uf_find(uint32_t* parent, uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

/* Joins the sets of a and b; the lower root leads, so a set's root is its lowest index when every set started as
 * parent[x] = x. */
static inline void skc_uf_join_low(uint32_t* parent, uint32_t a, uint32_t b) {
  a = skc_uf_find(parent, a), b = skc_uf_find(parent, b);
  if (a != b) parent[a > b ? a : b] = a < b ? a : b;
}

#endif
