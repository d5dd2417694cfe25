/* scene_weld.c - merging a mesh's identical vertices (skio_scene_weld, skio_scene.h).
 *
 * Assimp's FBX, Collada, .X and OBJ readers give every face corner a vertex of its own, so a mesh of 3,273 points
 * reads as 14,016 vertices (CesiumMan_blender.dae) and every new file written from it is a soup of separate
 * triangles (Blender reads the .glb back with 14,016 vertices where its own Collada import has 3,273). Two vertices
 * are merged here only when they are the same in everything the scene keeps of them, bit for bit: position,
 * normal, tangent, both texture coordinate sets, colour, every blend shape's position and normal, and the skin's
 * row (the same joints and weights in the same order; a Collada source's read weights too). So nothing a writer
 * writes changes but the vertex numbering and the index buffer, and Assimp's JoinIdenticalVertices, which merges
 * vertices whose weights differ, is not needed. The kept vertices stay in the order of their first corner. */
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

/* One per-vertex stream of a mesh: width floats a vertex (count of them one after another, each vertex_count long:
 * the blend shapes). */
typedef struct stream {
  float** data;
  size_t width, count;
} stream;

static size_t mesh_streams(skio_mesh* m, stream* out) {
  size_t n = 0;
  const size_t t = m->morph_count;
  out[n++] = (stream){&m->positions, 3, 1};
  if (m->normals) out[n++] = (stream){&m->normals, 3, 1};
  if (m->tangents) out[n++] = (stream){&m->tangents, 4, 1};
  if (m->uv0) out[n++] = (stream){&m->uv0, 2, 1};
  if (m->uv1) out[n++] = (stream){&m->uv1, 2, 1};
  if (m->colors) out[n++] = (stream){&m->colors, 4, 1};
  if (t && m->morph_positions) out[n++] = (stream){&m->morph_positions, 3, t};
  if (t && m->morph_normals) out[n++] = (stream){&m->morph_normals, 3, t};
  return n;
}

static uint64_t mix(uint64_t h, uint32_t x) {
  h ^= x;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

static uint64_t vertex_hash(const stream* st, size_t ns, size_t V, const skc_skin* skin, size_t v) {
  uint64_t h = 0x243F6A8885A308D3ull;
  for (size_t s = 0; s < ns; ++s)
    for (size_t c = 0; c < st[s].count; ++c) {
      const float* f = *st[s].data + (c * V + v) * st[s].width;
      for (size_t k = 0; k < st[s].width; ++k) {
        uint32_t bits; /* the float's bits (-0.0 and 0.0 differ, as in same_vertex) */
        memcpy(&bits, f + k, sizeof bits);
        h = mix(h, bits);
      }
    }
  if (skin) {
    for (uint32_t e = skin->offsets[v]; e < skin->offsets[v + 1]; ++e) {
      uint32_t wb;
      memcpy(&wb, &skin->weights[e], sizeof wb);
      h = mix(mix(h, skin->joints[e]), wb);
    }
  }
  return h;
}

static bool same_row(const skc_skin* s, size_t a, size_t b) {
  if (!s) return true;
  const uint32_t na = s->offsets[a + 1] - s->offsets[a], nb = s->offsets[b + 1] - s->offsets[b];
  if (na != nb) return false;
  if (!na) return true; /* (no arrays to compare: an empty skin may have none) */
  return !memcmp(s->joints + s->offsets[a], s->joints + s->offsets[b], na * sizeof *s->joints) &&
         !memcmp(s->weights + s->offsets[a], s->weights + s->offsets[b], na * sizeof *s->weights);
}

static bool same_vertex(const stream* st, size_t ns, size_t V, const skio_mesh* m, size_t a, size_t b) {
  for (size_t s = 0; s < ns; ++s)
    for (size_t c = 0; c < st[s].count; ++c) {
      const float* d = *st[s].data + c * V * st[s].width;
      if (memcmp(d + a * st[s].width, d + b * st[s].width, st[s].width * sizeof *d)) return false;
    }
  return same_row(m->skin, a, b) && same_row(m->read_skin, a, b);
}

/* map[v] = the new index of vertex v; returns the new vertex count, or SIZE_MAX when out of memory. */
static size_t weld_map(skio_mesh* m, const stream* st, size_t ns, uint32_t* map) {
  const size_t V = m->vertex_count;
  size_t cap = 16;
  while (cap < 2 * V) cap *= 2;
  uint32_t* slot = malloc(cap * sizeof *slot); /* old vertex + 1 of each kept vertex, 0: empty */
  if (!slot) return SIZE_MAX;
  memset(slot, 0, cap * sizeof *slot);
  size_t kept = 0;
  for (size_t v = 0; v < V; ++v) {
    size_t i = (size_t)vertex_hash(st, ns, V, m->skin, v) & (cap - 1);
    for (;; i = (i + 1) & (cap - 1)) {
      if (!slot[i]) {
        slot[i] = (uint32_t)v + 1;
        map[v] = (uint32_t)kept++;
        break;
      }
      if (same_vertex(st, ns, V, m, slot[i] - 1, v)) {
        map[v] = map[slot[i] - 1];
        break;
      }
    }
  }
  free(slot);
  return kept;
}

/* The rows of the kept vertices (first corners, in order), n of them, as new CSR arrays; false when out of memory. */
typedef struct rows {
  uint32_t* off;
  uint32_t* j;
  float* w;
} rows;

static bool kept_rows(const skc_skin* s, const uint32_t* map, size_t V, size_t n, rows* r) {
  r->off = malloc((n + 1) * sizeof *r->off);
  r->j = malloc((skc_skin_entries(s) + 1) * sizeof *r->j);
  r->w = malloc((skc_skin_entries(s) + 1) * sizeof *r->w);
  if (!r->off || !r->j || !r->w) {
    free(r->off), free(r->j), free(r->w);
    memset(r, 0, sizeof *r);
    return false;
  }
  size_t e = 0, k = 0;
  r->off[0] = 0;
  for (size_t v = 0; v < V; ++v) {
    if (map[v] != k) continue; /* a repeat of an earlier vertex */
    const uint32_t a = s->offsets[v], c = s->offsets[v + 1] - a;
    if (c) {
      memcpy(r->j + e, s->joints + a, c * sizeof *r->j);
      memcpy(r->w + e, s->weights + a, c * sizeof *r->w);
    }
    e += c;
    r->off[++k] = (uint32_t)e;
  }
  return true;
}

/* The skin struct itself stays (programs hold it through sk_scene_mesh_skin); its arrays are replaced. */
static void take_rows(skc_skin* s, rows* r, size_t n) {
  free(s->offsets), free(s->joints), free(s->weights);
  s->offsets = r->off;
  s->joints = r->j;
  s->weights = r->w;
  s->capacity = r->off[n];
  s->vertex_count = n;
}

/* Every stream cut down to the kept vertices (new arrays); false when out of memory (the mesh is then unchanged). */
static bool kept_streams(const stream* st, size_t ns, const uint32_t* map, size_t V, size_t n, float** fresh) {
  for (size_t s = 0; s < ns; ++s) {
    const size_t wd = st[s].width;
    fresh[s] = malloc(st[s].count * n * wd * sizeof(float) + 1);
    if (!fresh[s]) {
      for (size_t r = 0; r < s; ++r) free(fresh[r]);
      return false;
    }
    for (size_t c = 0; c < st[s].count; ++c) {
      const float* src = *st[s].data + c * V * wd;
      float* dst = fresh[s] + c * n * wd;
      for (size_t v = 0, k = 0; v < V; ++v)
        if (map[v] == k) memcpy(dst + wd * k++, src + wd * v, wd * sizeof(float));
    }
  }
  return true;
}

static int weld_mesh(skio_mesh* m, size_t* merged) {
  const size_t V = m->vertex_count;
  stream st[8];
  const size_t ns = mesh_streams(m, st);
  uint32_t* map = malloc((V + 1) * sizeof *map);
  size_t n = map ? weld_map(m, st, ns, map) : SIZE_MAX;
  if (n == SIZE_MAX) {
    free(map);
    return SKC_OUT_OF_MEMORY;
  }
  if (n == V) {
    free(map);
    return SKC_OK;
  }
  float* fresh[8];
  rows skin = {0}, read = {0};
  const bool ok = (!m->skin || kept_rows(m->skin, map, V, n, &skin)) &&
                  (!m->read_skin || kept_rows(m->read_skin, map, V, n, &read)) &&
                  kept_streams(st, ns, map, V, n, fresh);
  if (!ok) {
    free(skin.off), free(skin.j), free(skin.w);
    free(read.off), free(read.j), free(read.w);
    free(map);
    return SKC_OUT_OF_MEMORY;
  }
  for (size_t s = 0; s < ns; ++s) {
    free(*st[s].data);
    *st[s].data = fresh[s];
  }
  if (m->skin) take_rows(m->skin, &skin, n);
  if (m->read_skin) take_rows(m->read_skin, &read, n);
  for (size_t i = 0; i < m->index_count; ++i)
    if (m->indices[i] < V) m->indices[i] = map[m->indices[i]];
  m->vertex_count = n;
  *merged += V - n;
  free(map);
  return SKC_OK;
}

int skio_scene_weld(skio_scene* s, size_t* merged, skc_err* err) {
  size_t total = 0;
  for (uint32_t k = 0; s && k < s->mesh_count; ++k) {
    skio_mesh* m = &s->meshes[k];
    /* a glTF mesh read by skinkit's reader is the file's own vertex list (and the in-place edit writes into it);
     * parts share one vertex list between several index lists: both are left as they are */
    if ((s->gltf && m->gltf_mesh >= 0) || m->part_count || m->vertex_count < 2 || m->vertex_count > UINT32_MAX - 1)
      continue;
    if (weld_mesh(m, &total))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory merging the vertices of mesh %u (%zu vertices)", k,
                      m->vertex_count);
  }
  if (merged) *merged = total;
  return SKC_OK;
}
