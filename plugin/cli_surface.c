/* cli_surface.c - meshes that are one surface: an object split by material (Assimp gives an FBX, Collada or .X mesh
 * one mesh per material; Blender's glTF exporter one primitive per material, each with its own vertices). The
 * pieces meet at seam vertices that sit at bit-identical positions in each piece. Binding or smoothing each piece
 * alone gives a seam vertex different weights on each side, and a pose tears the surface open there; the commands
 * bind and smooth such a group as one mesh instead (cli_surface_read joins them, cli_surface_split hands the
 * weights back).
 *
 * The rule: two meshes of the scene are one surface when both are chosen, both have vertices, both have a skin
 * with the same inverse bind matrices or both have none (they are bound in one bone space), their skins' first deform
 * roots are the same joint (two characters at one spot, each with its own armature, are two surfaces: the audit of
 * session 44), and some vertex of one sits at exactly the position of a vertex of the other; groups are closed under
 * that relation. A skin's deform roots: for each deform joint it lists (sk_scene_deform_joints), the topmost deform
 * joint of its chain of deform ancestors; its first deform root is the lowest-numbered one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

static uint32_t find(uint32_t* parent, uint32_t m) {
  while (parent[m] != m) m = parent[m] = parent[parent[m]];
  return m;
}

static void unite(uint32_t* parent, uint32_t a, uint32_t b) {
  a = find(parent, a), b = find(parent, b);
  if (a < b) parent[b] = a;
  else if (b < a) parent[a] = b;
}

/* The first deform root of the joints bound[] lists (UINT32_MAX: none); deform from sk_scene_deform_joints. */
static uint32_t first_deform_root(const sk_skeleton* sk, const uint8_t* deform, const uint8_t* bound, uint32_t nj) {
  uint32_t best = UINT32_MAX;
  for (uint32_t j = 0; j < nj; ++j) {
    if (!bound[j] || !deform[j]) continue;
    uint32_t r = j;
    for (int32_t p = sk_skeleton_joint_parent(sk, r); p >= 0 && (uint32_t)p < nj && deform[p] && p != (int32_t)r;
         p = sk_skeleton_joint_parent(sk, r))
      r = (uint32_t)p;
    if (r < best) best = r;
  }
  return best;
}

/* bind_class[m]: the first mesh bound in the same space as m (same skinned-ness, same inverse binds, same first
 * deform root). */
static int bind_classes(const sk_scene* s, const uint8_t* use, uint32_t nm, uint32_t* cls) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nj = sk_skeleton_joint_count(sk);
  const size_t size = (size_t)nj * 16 * sizeof(float);
  float* ib = malloc((size_t)nm * size + 1);
  uint64_t* key = calloc(nm ? nm : 1, sizeof *key); /* 0: no skin, else a hash of the inverse binds (never 0) */
  uint32_t* root = malloc((nm ? nm : 1) * sizeof *root);
  uint8_t *deform = calloc(nj + 1, 1), *bound = calloc(nj + 1, 1);
  if (!ib || !key || !root || !deform || !bound || sk_scene_deform_joints(s, deform, nj, NULL, NULL, NULL) != SK_OK) {
    free(ib), free(key), free(root), free(deform), free(bound);
    return 1;
  }
  for (uint32_t m = 0; m < nm; ++m) {
    cls[m] = m;
    root[m] = UINT32_MAX;
    if (!use[m]) continue;
    const uint8_t* b = (const uint8_t*)(ib + (size_t)m * nj * 16);
    if (sk_scene_mesh_inverse_binds(s, m, ib + (size_t)m * nj * 16, bound, NULL) == SK_OK) {
      key[m] = 0xcbf29ce484222325ull;
      for (size_t i = 0; i < size; ++i) key[m] = (key[m] ^ b[i]) * 0x100000001b3ull;
      key[m] |= 1;
      root[m] = first_deform_root(sk, deform, bound, nj);
    }
    for (uint32_t n = 0; n < m && cls[m] == m; ++n) /* the first earlier class with the same binds */
      if (use[n] && cls[n] == n && key[n] == key[m] && root[n] == root[m] &&
          (!key[m] || !memcmp(ib + (size_t)n * nj * 16, b, size)))
        cls[m] = n;
  }
  free(ib), free(key), free(root), free(deform), free(bound);
  return 0;
}

typedef struct slot {
  float p[3];
  uint32_t mesh; /* UINT32_MAX: empty */
} slot;

static uint64_t hash_pos(const float* p) {
  uint32_t w[3];
  memcpy(w, p, sizeof w);
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int k = 0; k < 3; ++k) h = (h ^ w[k]) * 0xff51afd7ed558ccdull, h ^= h >> 29;
  return h;
}

/* Every position of the used meshes into one table; a position already there from another mesh of the same bind
 * class unites the two. 0, or 1 when out of memory. */
static int unite_by_position(const sk_scene* s, const uint8_t* use, const uint32_t* cls, uint32_t nm,
                             uint32_t* parent) {
  size_t total = 0, cap = 16;
  for (uint32_t m = 0; m < nm; ++m) total += use[m] ? sk_scene_mesh_vertex_count(s, m) : 0;
  while (cap < 2 * total) cap *= 2;
  slot* t = malloc(cap * sizeof *t);
  if (!t) return 1;
  for (size_t i = 0; i < cap; ++i) t[i].mesh = UINT32_MAX;
  int rc = 0;
  for (uint32_t m = 0; m < nm && !rc; ++m) {
    if (!use[m]) continue;
    size_t nv = sk_scene_mesh_vertex_count(s, m);
    float* pos = malloc(nv * 3 * sizeof *pos + 1);
    if (!pos) {
      rc = 1;
      break;
    }
    sk_scene_mesh_positions(s, m, pos, nv * 3);
    for (size_t v = 0; v < nv; ++v) {
      size_t i = (size_t)hash_pos(pos + 3 * v) & (cap - 1);
      while (t[i].mesh != UINT32_MAX && memcmp(t[i].p, pos + 3 * v, sizeof t[i].p)) i = (i + 1) & (cap - 1);
      if (t[i].mesh == UINT32_MAX) {
        memcpy(t[i].p, pos + 3 * v, sizeof t[i].p);
        t[i].mesh = m;
      } else if (t[i].mesh != m && cls[t[i].mesh] == cls[m]) {
        unite(parent, t[i].mesh, m);
      }
    }
    free(pos);
  }
  free(t);
  return rc;
}

uint32_t* cli_surface_groups(const sk_scene* s, const uint8_t* chosen) {
  uint32_t nm = sk_scene_mesh_count(s);
  uint32_t* parent = malloc((nm ? nm : 1) * sizeof *parent);
  uint32_t* cls = malloc((nm ? nm : 1) * sizeof *cls);
  uint8_t* use = calloc(nm ? nm : 1, 1);
  int rc = !parent || !cls || !use;
  for (uint32_t m = 0; !rc && m < nm; ++m) {
    parent[m] = m;
    use[m] = (!chosen || chosen[m]) && sk_scene_mesh_vertex_count(s, m) > 0;
  }
  if (!rc && sk_scene_skeleton(s)) rc = bind_classes(s, use, nm, cls) || unite_by_position(s, use, cls, nm, parent);
  for (uint32_t m = 0; !rc && m < nm; ++m) parent[m] = find(parent, m);
  free(cls), free(use);
  if (rc) { /* out of memory: every mesh on its own, as before surfaces */
    for (uint32_t m = 0; parent && m < nm; ++m) parent[m] = m;
  }
  return parent;
}

uint32_t cli_surface_size(const uint32_t* group, uint32_t nm, uint32_t m) {
  uint32_t n = 0;
  for (uint32_t k = 0; group && k < nm; ++k) n += group[k] == group[m];
  return group ? n : 1;
}

void cli_surface_free(cli_surface* u) {
  free(u->meshes), free(u->first), free(u->pos), free(u->idx);
  memset(u, 0, sizeof *u);
}

int cli_surface_read(const sk_scene* s, const uint32_t* group, uint32_t leader, cli_surface* u) {
  uint32_t nm = sk_scene_mesh_count(s);
  memset(u, 0, sizeof *u);
  u->count = cli_surface_size(group, nm, leader);
  u->meshes = malloc(u->count * sizeof *u->meshes);
  u->first = malloc((u->count + 1) * sizeof *u->first);
  if (!u->meshes || !u->first) return 1;
  size_t ni = 0;
  for (uint32_t m = 0, k = 0; m < nm; ++m) {
    if (group[m] != leader) continue;
    u->meshes[k] = m;
    u->first[k++] = u->nv;
    u->nv += sk_scene_mesh_vertex_count(s, m);
    ni += sk_scene_mesh_index_count(s, m);
  }
  u->first[u->count] = u->nv;
  u->ni = ni;
  u->pos = malloc(u->nv * 3 * sizeof *u->pos + 1);
  u->idx = malloc(ni * sizeof *u->idx + 1);
  if (!u->pos || !u->idx) return 1;
  size_t at = 0;
  for (uint32_t k = 0; k < u->count; ++k) {
    uint32_t m = u->meshes[k];
    size_t nv = sk_scene_mesh_vertex_count(s, m), n = sk_scene_mesh_index_count(s, m);
    sk_scene_mesh_positions(s, m, u->pos + 3 * u->first[k], nv * 3);
    sk_scene_mesh_indices(s, m, u->idx + at, n);
    for (size_t i = at; i < at + n; ++i) u->idx[i] += (uint32_t)u->first[k];
    at += n;
  }
  return 0;
}

int cli_surface_split(const cli_surface* u, const sk_skin* whole, sk_skin* const* skins, sk_error* err) {
  size_t total = sk_skin_influence_count(whole);
  uint32_t* off = malloc((u->nv + 1) * sizeof *off);
  uint32_t* j = malloc(total * sizeof *j + 4);
  float* w = malloc(total * sizeof *w + 4);
  uint32_t* part = malloc((u->nv + 1) * sizeof *part);
  int rc = !off || !j || !w || !part;
  if (rc) snprintf(err->message, sizeof err->message, "out of memory");
  if (!rc) rc = sk_skin_get_csr(whole, off, j, w, err) != SK_OK;
  for (uint32_t k = 0; k < u->count && !rc; ++k) {
    size_t a = u->first[k], n = u->first[k + 1] - a;
    for (size_t v = 0; v <= n; ++v) part[v] = off[a + v] - off[a];
    rc = sk_skin_set_csr(skins[k], part, j + off[a], w + off[a], err) != SK_OK;
  }
  free(off), free(j), free(w), free(part);
  return rc;
}

int cli_surface_join(const cli_surface* u, sk_skin* const* skins, sk_skin* whole, sk_error* err) {
  size_t total = 0;
  for (uint32_t k = 0; k < u->count; ++k) total += sk_skin_influence_count(skins[k]);
  uint32_t* off = malloc((u->nv + 1) * sizeof *off);
  uint32_t* j = malloc(total * sizeof *j + 4);
  float* w = malloc(total * sizeof *w + 4);
  int rc = !off || !j || !w || total > UINT32_MAX;
  if (rc) snprintf(err->message, sizeof err->message, "out of memory");
  size_t at = 0;
  for (uint32_t k = 0; k < u->count && !rc; ++k) {
    size_t a = u->first[k];
    rc = sk_skin_get_csr(skins[k], off + a, j + at, w + at, err) != SK_OK;
    for (size_t v = a; v <= u->first[k + 1] && !rc; ++v) off[v] += (uint32_t)at; /* the next mesh rewrites its first */
    at += sk_skin_influence_count(skins[k]);
  }
  if (!rc) rc = sk_skin_set_csr(whole, off, j, w, err) != SK_OK;
  free(off), free(j), free(w);
  return rc;
}

int cli_surface_open(sk_scene* s, const uint32_t* group, uint32_t leader, cli_surface* u, sk_skin*** skins,
                     sk_skin** whole, sk_error* err) {
  snprintf(err->message, sizeof err->message, "out of memory");
  *skins = NULL;
  *whole = NULL;
  if (cli_surface_read(s, group, leader, u) || !(*skins = calloc(u->count, sizeof **skins))) return 1;
  for (uint32_t k = 0; k < u->count; ++k) (*skins)[k] = sk_scene_mesh_skin(s, u->meshes[k]);
  return sk_skin_create(u->nv, sk_skeleton_joint_count(sk_scene_skeleton(s)), whole, err) != SK_OK;
}
