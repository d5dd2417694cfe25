#define _DEFAULT_SOURCE /* clock_gettime */
/* iqm.c - Inter-Quake Model version 2 (.iqm) -> skio_scene, with joints, weights and animations.
 *
 * Format (Lee Salzman's IQM specification, version 2; every number little-endian): a 124-byte header (magic
 * "INTERQUAKEMODEL\0", then 27 uint32: version, filesize, flags, num/ofs of text, meshes, vertex arrays
 * (+ num_vertexes), triangles (+ ofs_adjacency), joints, poses, anims, frames (+ num_framechannels, ofs_bounds),
 * comment, extensions) and tables at those offsets:
 *   mesh         name, material (text offsets), first_vertex, num_vertexes, first_triangle, num_triangles
 *   vertex array type (0 position, 1 texcoord, 2 normal, 3 tangent, 4 blend indexes, 5 blend weights, 6 color,
 *                >= 0x10 custom), flags, format (0 byte .. 8 double), size (components), offset
 *   triangle     3 uint32 vertex indices (clockwise: IQM's front faces)
 *   joint        name, parent (int32, -1 = root, earlier joints only), translate[3], rotate[4] (x y z w),
 *                scale[3]: local = T * R * S; the joints in their rest pose are the bind pose
 *   pose         parent, channel mask, channeloffset[10], channelscale[10] (tx ty tz qx qy qz qw sx sy sz)
 *   anim         name, first_frame, num_frames, framerate, flags
 *   frames       num_frames * num_framechannels uint16: for every pose and every channel whose mask bit is set,
 *                value = offset + u16 * scale (channels without the bit are just the offset)
 * Everything is bounds-checked before use (offsets and counts in 64 bits against the file size; text offsets
 * must land inside the text table with a terminating zero), so a damaged file gives SKC_FORMAT, never a read
 * outside the buffer.
 *
 * What the scene gets: one mesh per IQM mesh (positions, normals, tangents (x y z w), texcoord 0 with v flipped,
 * triangles with the winding reversed to counter-clockwise: what Assimp's IQM reader produces), a skeleton of
 * "<IQMRoot>" (rest = the Z-up -> Y-up turn R Assimp puts on its root node) plus the IQM joints, per-mesh
 * inverse binds = inverse rest world relative to the mesh (W_j^-1 * R: the mesh hangs under the root, like an
 * Assimp mesh on its root node, so a skinned rest pose lands at R * p), weights as stored (integer formats divided by
 * their maximum, u8 weights are k/255; zero slots skipped), one animation per IQM anim with a key per frame at frame /
 * framerate seconds, and one material per distinct mesh material name with its image file beside the model as base
 * colour texture (read_materials).
 */
#include "skio_iqm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum { IQM_HEADER = 124, IQM_WORDS = 27 };
enum { H_VERSION, H_FILESIZE, H_FLAGS, H_NUM_TEXT, H_OFS_TEXT, H_NUM_MESHES, H_OFS_MESHES, H_NUM_VA,
       H_NUM_VERTEXES, H_OFS_VA, H_NUM_TRIANGLES, H_OFS_TRIANGLES, H_OFS_ADJACENCY, H_NUM_JOINTS, H_OFS_JOINTS,
       H_NUM_POSES, H_OFS_POSES, H_NUM_ANIMS, H_OFS_ANIMS, H_NUM_FRAMES, H_NUM_FRAMECHANNELS, H_OFS_FRAMES };
enum { VA_POSITION, VA_TEXCOORD, VA_NORMAL, VA_TANGENT, VA_BLENDINDEXES, VA_BLENDWEIGHTS, VA_COLOR };
enum { F_BYTE, F_UBYTE, F_SHORT, F_USHORT, F_INT, F_UINT, F_HALF, F_FLOAT, F_DOUBLE, F_COUNT };
enum { MESH_SIZE = 24, VA_SIZE = 20, TRI_SIZE = 12, JOINT_SIZE = 48, POSE_SIZE = 88, ANIM_SIZE = 20 };

static const unsigned k_format_size[F_COUNT] = {1, 1, 2, 2, 4, 4, 2, 4, 8};
/* Largest value of the integer formats (normalized weights); 0 for the floating ones. */
static const double k_format_max[F_COUNT] = {127.0, 255.0, 32767.0, 65535.0, 2147483647.0, 4294967295.0, 0, 0, 0};

typedef struct iqm_va {
  uint32_t type, format, size, offset;
} iqm_va;

typedef struct iqm {
  const char* path;
  const char* dir; /* the model's folder ("" or ending in '/') for its image files; NULL: read from memory */
  const uint8_t* d;
  size_t n;
  uint32_t h[IQM_WORDS];
  const iqm_va* arrays[VA_COLOR + 1]; /* first array of each standard type, or NULL */
  iqm_va* va;
} iqm;

static uint32_t rd32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rdf(const uint8_t* p) {
  uint32_t u = rd32(p);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, ex = (h >> 10) & 31u, man = h & 1023u, u;
  if (ex == 0) { /* zero or subnormal: man * 2^-24 */
    float f = ldexpf((float)man, -24);
    return sign ? -f : f;
  }
  if (ex == 31)
    u = sign | 0x7f800000u | man << 13;
  else
    u = sign | (ex + 112u) << 23 | man << 13;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Component c of vertex v of an array, as stored (no normalization). */
static double va_raw(const iqm* q, const iqm_va* a, size_t v, uint32_t c) {
  const uint8_t* p = q->d + a->offset + ((size_t)v * a->size + c) * k_format_size[a->format];
  switch (a->format) {
    case F_BYTE: return (int8_t)p[0];
    case F_UBYTE: return p[0];
    case F_SHORT: return (int16_t)(uint16_t)(p[0] | p[1] << 8);
    case F_USHORT: return (uint16_t)(p[0] | p[1] << 8);
    case F_INT: return (int32_t)rd32(p);
    case F_UINT: return rd32(p);
    case F_HALF: return half_to_float((uint16_t)(p[0] | p[1] << 8));
    case F_FLOAT: return rdf(p);
    default: {
      uint64_t u = (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
      double x;
      memcpy(&x, &u, sizeof x);
      return x;
    }
  }
}

/* Table of count entries of size bytes at ofs: inside the file (after the header) or a clear error. */
static int table_ok(const iqm* q, uint32_t ofs, uint64_t count, uint64_t size, const char* what, skc_err* err) {
  if (count == 0) return SKC_OK;
  uint64_t end = (uint64_t)ofs + count * size;
  if (ofs < IQM_HEADER || count > UINT32_MAX || end > q->n)
    return skc_fail(err, SKC_FORMAT, "%s: IQM %s table (offset %u, %llu entries) lies outside the file (%zu bytes)",
                    q->path, what, ofs, (unsigned long long)count, q->n);
  return SKC_OK;
}

/* Zero-terminated string at a text offset, or NULL when the offset or its terminator is outside the text. */
static const char* text_at(const iqm* q, uint32_t ofs) {
  uint32_t len = q->h[H_NUM_TEXT];
  if (ofs >= len) return NULL;
  const char* t = (const char*)q->d + q->h[H_OFS_TEXT];
  return memchr(t + ofs, 0, len - ofs) ? t + ofs : NULL;
}

static char* dup_name(const char* s, const char* fallback_fmt, uint32_t i) {
  char tmp[48];
  if (!s || !s[0]) {
    snprintf(tmp, sizeof tmp, fallback_fmt, i);
    s = tmp;
  }
  size_t len = strlen(s);
  char* out = malloc(len + 1);
  if (out) memcpy(out, s, len + 1);
  return out;
}

static int read_header(iqm* q, skc_err* err) {
  static const char magic[16] = "INTERQUAKEMODEL";
  if (q->n < IQM_HEADER || memcmp(q->d, magic, 16) != 0)
    return skc_fail(err, SKC_FORMAT, "%s: not an IQM file (no \"INTERQUAKEMODEL\" header)", q->path);
  for (int i = 0; i < IQM_WORDS; ++i) q->h[i] = rd32(q->d + 16 + 4 * i);
  if (q->h[H_VERSION] != 2)
    return skc_fail(err, SKC_FORMAT, "%s: IQM version %u is not supported (version 2 only)", q->path, q->h[H_VERSION]);
  if (q->h[H_FILESIZE] > q->n)
    return skc_fail(err, SKC_FORMAT, "%s: truncated IQM file (%zu bytes, the header says %u)", q->path, q->n,
                    q->h[H_FILESIZE]);
  int rc;
  if ((rc = table_ok(q, q->h[H_OFS_TEXT], q->h[H_NUM_TEXT], 1, "text", err)) ||
      (rc = table_ok(q, q->h[H_OFS_MESHES], q->h[H_NUM_MESHES], MESH_SIZE, "mesh", err)) ||
      (rc = table_ok(q, q->h[H_OFS_VA], q->h[H_NUM_VA], VA_SIZE, "vertex array", err)) ||
      (rc = table_ok(q, q->h[H_OFS_TRIANGLES], q->h[H_NUM_TRIANGLES], TRI_SIZE, "triangle", err)) ||
      (rc = table_ok(q, q->h[H_OFS_JOINTS], q->h[H_NUM_JOINTS], JOINT_SIZE, "joint", err)) ||
      (rc = table_ok(q, q->h[H_OFS_POSES], q->h[H_NUM_POSES], POSE_SIZE, "pose", err)) ||
      (rc = table_ok(q, q->h[H_OFS_ANIMS], q->h[H_NUM_ANIMS], ANIM_SIZE, "animation", err)) ||
      (rc = table_ok(q, q->h[H_OFS_FRAMES], (uint64_t)q->h[H_NUM_FRAMES] * q->h[H_NUM_FRAMECHANNELS], 2, "frame",
                     err)))
    return rc;
  if (q->h[H_NUM_JOINTS] + 1u > SKC_MAX_JOINTS || q->h[H_NUM_JOINTS] > SKC_MAX_JOINTS)
    return skc_fail(err, SKC_FORMAT, "%s: %u joints (at most %u)", q->path, q->h[H_NUM_JOINTS], SKC_MAX_JOINTS - 1);
  return SKC_OK;
}

static int read_arrays(iqm* q, skc_err* err) {
  uint32_t na = q->h[H_NUM_VA];
  q->va = calloc(na + 1, sizeof *q->va);
  if (!q->va) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
  for (uint32_t i = 0; i < na; ++i) {
    const uint8_t* p = q->d + q->h[H_OFS_VA] + (size_t)i * VA_SIZE;
    iqm_va* a = &q->va[i];
    a->type = rd32(p);
    a->format = rd32(p + 8);
    a->size = rd32(p + 12);
    a->offset = rd32(p + 16);
    if (a->type > VA_COLOR) continue; /* custom arrays are not kept */
    if (a->format >= F_COUNT || a->size == 0 || a->size > 64)
      return skc_fail(err, SKC_FORMAT, "%s: IQM vertex array %u has format %u and %u components", q->path, i,
                      a->format, a->size);
    int rc = table_ok(q, a->offset, (uint64_t)q->h[H_NUM_VERTEXES] * a->size, k_format_size[a->format],
                      "vertex array", err);
    if (rc) return rc;
    if (!q->arrays[a->type]) q->arrays[a->type] = a;
  }
  const iqm_va* pos = q->arrays[VA_POSITION];
  if (q->h[H_NUM_MESHES] && (!pos || pos->size < 3))
    return skc_fail(err, SKC_FORMAT, "%s: IQM file without a 3-component position array", q->path);
  return SKC_OK;
}

/* ---- skeleton ----------------------------------------------------------------------------------------- */
static const float k_root_turn[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1}; /* y' = z, z' = -y */

static void trs_at(const uint8_t* p, skc_trs* t) {
  for (int i = 0; i < 3; ++i) t->t[i] = rdf(p + 4 * i);
  for (int i = 0; i < 4; ++i) t->r[i] = rdf(p + 12 + 4 * i);
  for (int i = 0; i < 3; ++i) t->s[i] = rdf(p + 28 + 4 * i);
  skc_quat_normalize(t->r);
}

static int read_skeleton(iqm* q, skio_scene* s, skc_err* err) {
  uint32_t nj = q->h[H_NUM_JOINTS], jc = nj + 1;
  if (nj == 0) return SKC_OK;
  char** names = calloc(jc, sizeof *names);
  int32_t* parents = malloc(jc * sizeof *parents);
  float* rest = malloc((size_t)jc * 16 * sizeof *rest);
  int rc = SKC_OK;
  if (!names || !parents || !rest) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for %u joints", q->path, nj);
    goto done;
  }
  names[0] = dup_name("<IQMRoot>", "", 0);
  parents[0] = -1;
  memcpy(rest, k_root_turn, sizeof k_root_turn);
  for (uint32_t j = 0; j < nj && !rc; ++j) {
    const uint8_t* p = q->d + q->h[H_OFS_JOINTS] + (size_t)j * JOINT_SIZE;
    int32_t parent = (int32_t)rd32(p + 4);
    if (parent < -1 || parent >= (int32_t)j) {
      rc = skc_fail(err, SKC_FORMAT, "%s: IQM joint %u has parent %d (parents must come first)", q->path, j, parent);
      break;
    }
    parents[j + 1] = parent + 1;
    skc_trs t;
    trs_at(p + 8, &t);
    skc_trs_to_mat4(&t, rest + (size_t)(j + 1) * 16);
    const char* nm = text_at(q, rd32(p));
    char* name = dup_name(nm, "joint%u", j);
    /* names must be unique: a repeated one gets ".<index>" */
    for (uint32_t k = 0; name && k <= j; ++k)
      if (names[k] && strcmp(names[k], name) == 0) {
        char* twin = malloc(strlen(name) + 16);
        if (twin) sprintf(twin, "%s.%u", name, j);
        free(name);
        name = twin;
        break;
      }
    if (!(names[j + 1] = name)) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
  }
  if (!rc && !names[0]) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
  if (!rc) {
    skc_skeleton_init init = {jc, (const char* const*)names, parents, rest, NULL, NULL, NULL};
    skc_err why = {0};
    rc = skc_skeleton_create(&init, &s->skeleton, &why);
    if (rc == SKC_OUT_OF_MEMORY)
      skc_fail(err, rc, "%s: %s", q->path, why.message);
    else if (rc) /* e.g. a zero scale (no inverse bind) or a NaN in a joint: the file is damaged */
      rc = skc_fail(err, SKC_FORMAT, "%s: IQM joints: %s", q->path, why.message);
  }
done:
  if (names)
    for (uint32_t j = 0; j < jc; ++j) free(names[j]);
  free(names);
  free(parents);
  free(rest);
  return rc;
}

/* ---- meshes ------------------------------------------------------------------------------------------- */
static float* read_floats(const iqm* q, const iqm_va* a, uint32_t first, uint32_t count, uint32_t comps) {
  if (!a || a->size < comps) return NULL;
  float* out = malloc((size_t)count * comps * sizeof *out + 1);
  if (!out) return NULL;
  for (uint32_t v = 0; v < count; ++v)
    for (uint32_t c = 0; c < comps; ++c) out[(size_t)v * comps + c] = (float)va_raw(q, a, first + (size_t)v, c);
  return out;
}

/* The colour array as linear RGBA: integer formats are normalized (ubyte / 255 ...), the values taken as sRGB like
 * the other non-glTF formats; fewer than 4 components leave alpha 1. NULL without colours or memory (*oom). */
static float* read_colors(const iqm* q, uint32_t first, uint32_t count, bool* oom) {
  const iqm_va* a = q->arrays[VA_COLOR];
  if (!a) return NULL;
  float* out = malloc((size_t)count * 4 * sizeof *out + 1);
  if (!out) {
    *oom = true;
    return NULL;
  }
  const double scale = k_format_max[a->format] > 0.0 ? 1.0 / k_format_max[a->format] : 1.0;
  for (uint32_t v = 0; v < count; ++v)
    for (uint32_t c = 0; c < 4; ++c) {
      float x = c < a->size ? (float)(va_raw(q, a, first + (size_t)v, c) * scale) : 1.0f;
      out[(size_t)v * 4 + c] = c < 3 ? skio_srgb_to_linear(x) : x;
    }
  return out;
}

static int read_skin(const iqm* q, const skio_scene* s, uint32_t first, skio_mesh* m, skc_err* err) {
  const iqm_va* bi = q->arrays[VA_BLENDINDEXES];
  const iqm_va* bw = q->arrays[VA_BLENDWEIGHTS];
  if (!bi || !bw || !s->skeleton) return SKC_OK;
  const skc_skeleton* sk = s->skeleton;
  uint32_t jc = sk->joint_count, slots = bi->size < bw->size ? bi->size : bw->size;
  size_t V = m->vertex_count;
  int rc = skc_skin_create(V, jc, &m->skin, err);
  if (rc) return rc;
  m->inverse_bind = malloc((size_t)jc * 16 * sizeof(float));
  m->bound = calloc(jc, 1);
  skc_skin_builder b;
  if (!m->inverse_bind || !m->bound)
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for the weights of \"%s\"", q->path, m->name);
  /* Mesh space is the file's (Z-up) space, under the root turn R: inverse bind = inverse(R^-1 * W_j) =
   * W_j^-1 * R, as an Assimp aiBone offset would be. The palette W_j * that then puts the rest pose at R * p. */
  for (uint32_t j = 0; j < jc; ++j)
    skc_mat4_mul(sk->inverse_bind + (size_t)j * 16, k_root_turn, m->inverse_bind + (size_t)j * 16);
  if ((rc = skc_skin_builder_init(&b, V, V * 4, err))) return rc;
  double wmax = k_format_max[bw->format];
  for (size_t v = 0; v < V && !rc; ++v) {
    uint32_t joints[64];
    float weights[64];
    size_t n = 0;
    for (uint32_t k = 0; k < slots; ++k) {
      double w = va_raw(q, bw, first + v, k), ji = va_raw(q, bi, first + v, k);
      if (wmax > 0.0) w /= wmax;
      if (w == 0.0) continue; /* unused slot */
      if (!(ji >= 0.0 && ji < (double)(jc - 1)) || ji != floor(ji)) {
        m->dropped_weights++;
        continue;
      }
      joints[n] = (uint32_t)ji + 1;
      weights[n++] = (float)w;
      m->bound[(uint32_t)ji + 1] = 1;
    }
    rc = skc_skin_builder_push(&b, joints, weights, n);
    if (rc) rc = skc_fail(err, rc, "%s: out of memory for the weights of \"%s\"", q->path, m->name);
  }
  if (rc) {
    skc_skin_builder_free(&b);
    return rc;
  }
  if ((rc = skc_skin_builder_finish(&b, m->skin, err))) return rc;
  for (uint32_t j = 0; j < jc; ++j) m->bone_count += m->bound[j];
  return SKC_OK;
}

static int read_mesh(const iqm* q, const skio_scene* s, uint32_t index, skio_mesh* m, skc_err* err) {
  const uint8_t* p = q->d + q->h[H_OFS_MESHES] + (size_t)index * MESH_SIZE;
  uint32_t fv = rd32(p + 8), nv = rd32(p + 12), ft = rd32(p + 16), nt = rd32(p + 20);
  m->name = dup_name(text_at(q, rd32(p)), "mesh%u", index);
  if (!m->name) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
  m->material = UINT32_MAX; /* read_materials */
  if ((uint64_t)fv + nv > q->h[H_NUM_VERTEXES] || (uint64_t)ft + nt > q->h[H_NUM_TRIANGLES])
    return skc_fail(err, SKC_FORMAT, "%s: IQM mesh %u (vertices %u+%u, triangles %u+%u) exceeds the file's %u "
                    "vertices / %u triangles", q->path, index, fv, nv, ft, nt, q->h[H_NUM_VERTEXES],
                    q->h[H_NUM_TRIANGLES]);
  m->vertex_count = nv;
  m->positions = read_floats(q, q->arrays[VA_POSITION], fv, nv, 3);
  m->normals = read_floats(q, q->arrays[VA_NORMAL], fv, nv, 3);
  m->tangents = read_floats(q, q->arrays[VA_TANGENT], fv, nv, 4);
  m->uv0 = read_floats(q, q->arrays[VA_TEXCOORD], fv, nv, 2);
  bool oom = false;
  m->colors = read_colors(q, fv, nv, &oom);
  m->index_count = (size_t)nt * 3;
  m->indices = malloc(m->index_count * sizeof *m->indices + 1);
  if (!m->positions || !m->indices || oom ||
      (!m->normals && q->arrays[VA_NORMAL] && q->arrays[VA_NORMAL]->size >= 3) ||
      (!m->tangents && q->arrays[VA_TANGENT] && q->arrays[VA_TANGENT]->size >= 4) ||
      (!m->uv0 && q->arrays[VA_TEXCOORD] && q->arrays[VA_TEXCOORD]->size >= 2))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for mesh %u", q->path, index);
  if (m->uv0)
    for (uint32_t v = 0; v < nv; ++v) m->uv0[2 * v + 1] = 1.0f - m->uv0[2 * v + 1];
  for (uint32_t t = 0; t < nt; ++t) {
    const uint8_t* tp = q->d + q->h[H_OFS_TRIANGLES] + (size_t)(ft + t) * TRI_SIZE;
    static const int corner[3] = {0, 2, 1}; /* clockwise -> counter-clockwise */
    for (int c = 0; c < 3; ++c) {
      uint32_t v = rd32(tp + 4 * corner[c]);
      if (v < fv || v - fv >= nv)
        return skc_fail(err, SKC_FORMAT, "%s: IQM triangle %u of mesh %u uses vertex %u (the mesh has %u..%u)",
                        q->path, ft + t, index, v, fv, fv + nv - 1);
      m->indices[(size_t)t * 3 + c] = v - fv;
    }
  }
  return read_skin(q, s, fv, m, err);
}

/* ---- materials ---------------------------------------------------------------------------------------- */
/* IQM's mesh material is a text: by convention the texture's file name ("Body.jpg"), sometimes a material name
 * without extension that engines look an image up by ("Body" -> Body.png). Assimp's IQM reader makes it the
 * material's name and its diffuse texture; here each distinct name is one material (white, not metallic, rough:
 * what the Assimp path reads of such a material) shared by the meshes naming it, and its base colour image is:
 *  - the name read as an image reference beside the model (skio_image_load_file: the relative path, then its file
 *    name in the model's folder, or an absolute path), when it has an image extension or its bytes are an image;
 *  - else, for a name without an image extension, the first of name.png, .jpg, ... (then upper case) found so
 *    (for the first IQM_MAX_GUESSED such names);
 *  - else, for a name with an image extension, an image without bytes and the note the Assimp path gives ("image X
 *    not found beside the model: not read"); a name without one is only a material name (no texture, no note).
 * Images are shared by the path found. A file read from memory (skio_iqm_load_memory) reads no image file: a name
 * with an image extension gets an image without bytes and a note, like a glTF read from memory. An empty or
 * invalid name is no material. */
static const char* const k_image_exts[] = {"png", "jpg", "jpeg", "tga",  "bmp", "dds", "webp", "ktx2", /* tried */
                                           "ktx", "gif", "tif",  "tiff", "psd", "hdr", "pcx",  "exr"};
/* Names without an image extension looked up with extensions appended (2 x TRIED_EXTS files each), at most: far above
 * a real model's materials; a file of 200,000 such names took 30 s of file lookups. The rest are names only (noted). */
enum { TRIED_EXTS = 8, IQM_MAX_GUESSED = 4096 };

static const char* base_of(const char* p) {
  const char* a = strrchr(p, '/');
  const char* b = strrchr(p, '\\');
  if (b && (!a || b > a)) a = b;
  return a ? a + 1 : p;
}

static bool has_image_ext(const char* name) {
  const char* dot = strrchr(base_of(name), '.');
  if (!dot) return false;
  for (size_t k = 0; k < sizeof k_image_exts / sizeof *k_image_exts; ++k)
    if (!strcasecmp(dot + 1, k_image_exts[k])) return true;
  return false;
}

/* The scene's images by uri: open addressing over image indices (UINT32_MAX: empty), cap a power of two above
 * twice the images there can be (one per material at most), so that a file of many materials costs linear time. */
typedef struct image_index {
  uint32_t* slot;
  size_t mask;
  uint32_t cap;     /* of s->images */
  uint32_t guessed; /* names looked up with extensions appended (IQM_MAX_GUESSED) */
} image_index;

static uint32_t hash_of(const char* t) {
  uint32_t h = 2166136261u;
  for (; *t; ++t) h = (h ^ (uint8_t)*t) * 16777619u;
  return h;
}

/* Appends *im (taken over: its name set from its uri, its MIME type from its bytes or uri) unless an image of its uri
 * is there already (then *im is freed); the index, or -1 when out of memory. */
static int32_t keep_image(skio_scene* s, image_index* x, skio_image* im) {
  size_t at = hash_of(im->uri) & x->mask;
  for (; x->slot[at] != UINT32_MAX; at = (at + 1) & x->mask)
    if (!strcmp(s->images[x->slot[at]].uri, im->uri)) {
      skio_image_free(im);
      return (int32_t)x->slot[at];
    }
  if (s->image_count == x->cap) {
    uint32_t nc = x->cap ? x->cap * 2 : 4;
    skio_image* grown = realloc(s->images, nc * sizeof *grown);
    if (!grown) {
      skio_image_free(im);
      return -1;
    }
    s->images = grown;
    x->cap = nc;
  }
  if (!(im->name = dup_name(base_of(im->uri)[0] ? base_of(im->uri) : im->uri, "", 0))) {
    skio_image_free(im);
    return -1;
  }
  snprintf(im->mime, sizeof im->mime, "%s", skio_image_mime(im->data, im->size, im->uri));
  s->images[s->image_count] = *im;
  x->slot[at] = s->image_count;
  return (int32_t)s->image_count++;
}

static void note_image(skio_scene* s, const char* fmt, const char* name) {
  char line[400];
  snprintf(line, sizeof line, fmt, name);
  skio_scene_note(s, line);
}

/* Candidate t of a material name for its image file: t = 0 the name itself, 1..TRIED_EXTS the name with ".png",
 * ".jpg", ... appended, TRIED_EXTS + 1.. the same in upper case. NULL when out of memory. */
static char* candidate(const char* name, uint32_t t) {
  size_t len = strlen(name);
  char* uri = malloc(len + 8);
  if (!uri) return NULL;
  memcpy(uri, name, len + 1);
  if (t == 0) return uri;
  char* o = uri + len;
  *o++ = '.';
  for (const char* e = k_image_exts[(t - 1) % TRIED_EXTS]; *e; ++e)
    *o++ = t > TRIED_EXTS && *e >= 'a' && *e <= 'z' ? (char)(*e - 'a' + 'A') : *e;
  *o = 0;
  return uri;
}

/* The base colour image of material `name` (above): its index, -1 for none, -2 when out of memory. */
static int32_t material_image(const iqm* q, skio_scene* s, image_index* x, const char* name) {
  const bool ext = has_image_ext(name);
  const uint32_t tries = !q->dir ? 0 : ext ? 1 : 1 + 2 * TRIED_EXTS;
  if (tries > 1 && ++x->guessed > IQM_MAX_GUESSED) {
    if (x->guessed == IQM_MAX_GUESSED + 1) {
      char line[160];
      snprintf(line, sizeof line,
               "more than %u material names without an image extension: no image file looked up "
               "for the rest",
               (unsigned)IQM_MAX_GUESSED);
      skio_scene_note(s, line);
    }
    return -1;
  }
  int32_t big = -1; /* the first candidate that was too large */
  skio_image im;
  for (uint32_t t = 0; t < tries; ++t) {
    memset(&im, 0, sizeof im);
    if (!(im.uri = candidate(name, t))) return -2;
    bool too_big = false;
    /* the name itself without an image extension is an image only when its bytes say so */
    if (skio_image_load_file(&im, q->dir, &too_big) && (t || ext || skio_image_mime(im.data, im.size, NULL)[0])) {
      int32_t i = keep_image(s, x, &im);
      return i < 0 ? -2 : i;
    }
    if (too_big && big < 0) big = (int32_t)t;
    skio_image_free(&im);
  }
  if (!ext && big < 0) return -1; /* a material name only */
  memset(&im, 0, sizeof im);
  if (!(im.uri = candidate(name, big > 0 ? (uint32_t)big : 0))) return -2;
  note_image(s,
             !q->dir    ? "image %s: external file not read (memory input)"
             : big >= 0 ? "image %s larger than 64 MiB: not read"
                        : "image %s not found beside the model: not read",
             im.uri);
  int32_t i = keep_image(s, x, &im);
  return i < 0 ? -2 : i;
}

typedef struct named_mesh {
  const char* name;
  uint32_t mesh;
} named_mesh;

static int by_name_then_mesh(const void* a, const void* b) {
  const named_mesh *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->mesh > y->mesh) - (x->mesh < y->mesh);
}

/* One material per distinct mesh material name, in the order the meshes first name them (sorted, so that a file of
 * many meshes costs n log n); each mesh's material set (UINT32_MAX: none). */
static int read_materials(const iqm* q, skio_scene* s, skc_err* err) {
  uint32_t nm = s->mesh_count, n = 0;
  for (uint32_t m = 0; m < nm; ++m) s->meshes[m].material = UINT32_MAX;
  if (nm == 0) return SKC_OK;
  named_mesh* list = malloc(nm * sizeof *list);
  uint32_t* first = malloc(nm * sizeof *first); /* the first mesh of each mesh's name */
  image_index x = {NULL, 0, 0, 0};
  size_t slots = 4;
  while (slots < 2 * (size_t)nm) slots *= 2;
  x.mask = slots - 1;
  x.slot = malloc(slots * sizeof *x.slot);
  int rc = SKC_OK;
  if (!list || !first || !x.slot) goto oom;
  memset(x.slot, 0xff, slots * sizeof *x.slot);
  for (uint32_t m = 0; m < nm; ++m) {
    const char* name = text_at(q, rd32(q->d + q->h[H_OFS_MESHES] + (size_t)m * MESH_SIZE + 4));
    first[m] = UINT32_MAX;
    if (name && name[0]) list[n++] = (named_mesh){name, m};
  }
  qsort(list, n, sizeof *list, by_name_then_mesh);
  uint32_t distinct = 0;
  for (uint32_t i = 0, lead = 0; i < n; ++i) {
    if (i == 0 || strcmp(list[i].name, list[lead].name)) {
      lead = i;
      distinct++;
    }
    first[list[i].mesh] = list[lead].mesh;
  }
  if (distinct && !(s->materials = calloc(distinct, sizeof *s->materials))) goto oom;
  for (uint32_t m = 0; m < nm; ++m) {
    if (first[m] == UINT32_MAX) continue;
    if (first[m] < m) { /* a name an earlier mesh gave */
      s->meshes[m].material = s->meshes[first[m]].material;
      continue;
    }
    skio_material* mat = &s->materials[s->material_count];
    skio_material_init(mat);
    mat->metallic = 0.0f; /* a legacy material, as the Assimp path reads one */
    const char* name = text_at(q, rd32(q->d + q->h[H_OFS_MESHES] + (size_t)m * MESH_SIZE + 4));
    if (!(mat->name = dup_name(name, "", 0))) goto oom;
    s->meshes[m].material = s->material_count++;
    int32_t image = material_image(q, s, &x, name);
    if (image == -2) goto oom;
    mat->base_color_tex.image = image;
  }
  goto done;
oom:
  rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory reading materials", q->path);
done:
  free(list);
  free(first);
  free(x.slot);
  return rc;
}

/* ---- animations --------------------------------------------------------------------------------------- */
/* The channels pose p animates (bits 0..9; higher bits mean nothing and hold no frame data). */
static uint32_t pose_mask(const iqm* q, uint32_t p) {
  return rd32(q->d + q->h[H_OFS_POSES] + (size_t)p * POSE_SIZE + 4) & 0x3ffu;
}

/* The ten channel values (translation, rotation, scale) of pose p in frame fp (NULL: the pose's base values, for
 * a pose that animates no channel); returns the frame pointer past the values this pose consumed. */
static const uint8_t* pose_values(const iqm* q, uint32_t p, const uint8_t* fp, float ch10[10]) {
  const uint8_t* pp = q->d + q->h[H_OFS_POSES] + (size_t)p * POSE_SIZE;
  uint32_t mask = pose_mask(q, p);
  for (int c = 0; c < 10; ++c) {
    ch10[c] = rdf(pp + 8 + 4 * c);
    if (fp && (mask >> c & 1u)) {
      ch10[c] += (float)(fp[0] | fp[1] << 8) * rdf(pp + 48 + 4 * c);
      fp += 2;
    }
  }
  return fp;
}

/* Keys of one channel: `count` frames for a pose that animates something; a pose that animates nothing is
 * constant, so it gets one key at 0 and one at the end (a file of a few bytes can claim millions of frames of
 * such poses: they hold no frame data). */
static uint32_t pose_keys(const iqm* q, uint32_t p, uint32_t count) { return pose_mask(q, p) ? count : (count > 1 ? 2 : 1); }

static void set_key(skio_channel* ch, uint32_t k, double t, const float ch10[10]) {
  ch->pos_time[k] = ch->rot_time[k] = ch->scl_time[k] = t;
  memcpy(ch->pos + 3 * k, ch10, 3 * sizeof(float));
  memcpy(ch->rot + 4 * k, ch10 + 3, 4 * sizeof(float));
  skc_quat_normalize(ch->rot + 4 * k);
  memcpy(ch->scl + 3 * k, ch10 + 7, 3 * sizeof(float));
}

/* The frames' keys of the poses that animate a channel; the loop visits only those poses, so its work is bounded
 * by the frame data in the file (frames x channels), not by frames x poses: a file of still poses may claim
 * millions of frames for free. */
static int read_frames(const iqm* q, skio_anim* an, uint32_t first, uint32_t count, double fps, skc_err* err) {
  uint32_t np = q->h[H_NUM_POSES], nc = q->h[H_NUM_FRAMECHANNELS], na = 0;
  if (nc == 0) return SKC_OK;
  uint32_t* moving = malloc(np * sizeof *moving);
  if (!moving) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
  for (uint32_t p = 0; p < np; ++p)
    if (pose_mask(q, p)) moving[na++] = p;
  for (uint32_t f = 0; f < count; ++f) {
    const uint8_t* fp = q->d + q->h[H_OFS_FRAMES] + (size_t)(first + f) * nc * 2;
    for (uint32_t i = 0; i < na; ++i) {
      float ch10[10];
      fp = pose_values(q, moving[i], fp, ch10);
      set_key(&an->channels[moving[i]], f, f / fps, ch10);
    }
  }
  free(moving);
  return SKC_OK;
}

static int read_anim_keys(const iqm* q, skio_anim* an, uint32_t first, uint32_t count, double fps, skc_err* err) {
  uint32_t np = q->h[H_NUM_POSES];
  if (!(an->channels = calloc(np, sizeof *an->channels)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
  for (uint32_t p = 0; p < np; ++p) {
    skio_channel* ch = &an->channels[p];
    an->channel_count = p + 1;
    ch->joint = p + 1;
    uint32_t kc = pose_keys(q, p, count);
    ch->pos_count = ch->rot_count = ch->scl_count = kc;
    ch->pos_time = malloc(kc * sizeof(double));
    ch->rot_time = malloc(kc * sizeof(double));
    ch->scl_time = malloc(kc * sizeof(double));
    ch->pos = malloc((size_t)kc * 3 * sizeof(float));
    ch->rot = malloc((size_t)kc * 4 * sizeof(float));
    ch->scl = malloc((size_t)kc * 3 * sizeof(float));
    if (!ch->pos_time || !ch->rot_time || !ch->scl_time || !ch->pos || !ch->rot || !ch->scl)
      return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for animation \"%s\"", q->path, an->name);
    if (!pose_mask(q, p)) { /* constant pose */
      float ch10[10];
      pose_values(q, p, NULL, ch10);
      for (uint32_t k = 0; k < kc; ++k) set_key(ch, k, k ? an->duration : 0.0, ch10);
    }
  }
  return read_frames(q, an, first, count, fps, err);
}

static int read_anims(const iqm* q, skio_scene* s, skc_err* err) {
  uint32_t na = q->h[H_NUM_ANIMS], np = q->h[H_NUM_POSES], nf = q->h[H_NUM_FRAMES], nc = q->h[H_NUM_FRAMECHANNELS];
  if (na == 0 || !s->skeleton) return SKC_OK;
  if (np != q->h[H_NUM_JOINTS])
    return skc_fail(err, SKC_FORMAT, "%s: IQM has %u poses for %u joints", q->path, np, q->h[H_NUM_JOINTS]);
  uint64_t used = 0;
  for (uint32_t p = 0; p < np; ++p)
    for (int c = 0; c < 10; ++c) used += (pose_mask(q, p) >> c) & 1u;
  if (used != nc)
    return skc_fail(err, SKC_FORMAT, "%s: IQM poses animate %llu channels, frames hold %u", q->path,
                    (unsigned long long)used, nc);
  if (!(s->anims = calloc(na, sizeof *s->anims))) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
  for (uint32_t a = 0; a < na; ++a) {
    const uint8_t* ap = q->d + q->h[H_OFS_ANIMS] + (size_t)a * ANIM_SIZE;
    skio_anim* an = &s->anims[a];
    s->anim_count = a + 1;
    uint32_t first = rd32(ap + 4), count = rd32(ap + 8);
    float rate = rdf(ap + 12);
    if (!(an->name = dup_name(text_at(q, rd32(ap)), "anim%u", a)))
      return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", q->path);
    if ((uint64_t)first + count > nf)
      return skc_fail(err, SKC_FORMAT, "%s: IQM animation \"%s\" uses frames %u..%llu of %u", q->path, an->name,
                      first, (unsigned long long)first + count, nf);
    an->ticks_per_second = isfinite(rate) && rate > 0.0f ? rate : 0.0;
    double fps = an->ticks_per_second > 0.0 ? an->ticks_per_second : 25.0;
    an->duration = count > 1 ? (count - 1) / fps : 0.0;
    if (count == 0 || np == 0) continue;
    int rc = read_anim_keys(q, an, first, count, fps, err);
    if (rc) return rc;
  }
  return SKC_OK;
}

/* ---- totals ------------------------------------------------------------------------------------------- */
/* What a small file could make the reader allocate, capped before anything is allocated (each cap is far above
 * any real model): meshes may share vertex and triangle ranges, so n meshes over the whole range cost n copies;
 * every skinned mesh gets an inverse-bind table of joint_count matrices; and an animation stores a key per frame
 * for each pose that animates a channel (its frames are in the file) and two keys for each pose that does not. */
enum { IQM_RANGE_SHARING = 4, IQM_MAX_BIND_MATRICES = 1 << 24, IQM_MAX_KEYS = 1 << 24 };

static int check_totals(const iqm* q, skc_err* err) {
  uint64_t verts = 0, tris = 0, keys = 0, nm = q->h[H_NUM_MESHES], jc = q->h[H_NUM_JOINTS] + 1u;
  for (uint32_t m = 0; m < nm; ++m) {
    const uint8_t* p = q->d + q->h[H_OFS_MESHES] + (size_t)m * MESH_SIZE;
    verts += rd32(p + 12);
    tris += rd32(p + 20);
  }
  uint64_t animated = 0, still = 0; /* poses with / without animated channels: the latter get two keys */
  if (q->h[H_NUM_ANIMS])
    for (uint32_t p = 0; p < q->h[H_NUM_POSES]; ++p) *(pose_mask(q, p) ? &animated : &still) += 1;
  for (uint32_t a = 0; a < q->h[H_NUM_ANIMS]; ++a)
    keys += (uint64_t)rd32(q->d + q->h[H_OFS_ANIMS] + (size_t)a * ANIM_SIZE + 8) * animated + 2 * still;
  const int skinned = q->arrays[VA_BLENDINDEXES] && q->arrays[VA_BLENDWEIGHTS] && q->h[H_NUM_JOINTS];
  if (verts > IQM_RANGE_SHARING * (uint64_t)q->h[H_NUM_VERTEXES] ||
      tris > IQM_RANGE_SHARING * (uint64_t)q->h[H_NUM_TRIANGLES])
    return skc_fail(err, SKC_FORMAT, "%s: IQM meshes reference %llu vertices / %llu triangles of the file's %u / %u",
                    q->path, (unsigned long long)verts, (unsigned long long)tris, q->h[H_NUM_VERTEXES],
                    q->h[H_NUM_TRIANGLES]);
  if (skinned && nm * jc > IQM_MAX_BIND_MATRICES)
    return skc_fail(err, SKC_FORMAT, "%s: IQM file with %llu skinned meshes over %llu joints (at most %u bind "
                    "matrices)", q->path, (unsigned long long)nm, (unsigned long long)jc, IQM_MAX_BIND_MATRICES);
  if (keys > IQM_MAX_KEYS)
    return skc_fail(err, SKC_FORMAT, "%s: IQM animations hold %llu keys (frames x poses; at most %u)", q->path,
                    (unsigned long long)keys, IQM_MAX_KEYS);
  return SKC_OK;
}

/* ---- entry -------------------------------------------------------------------------------------------- */
int skio_path_is_iqm(const char* path) {
  size_t n = path ? strlen(path) : 0;
  return n > 4 && strcasecmp(path + n - 4, ".iqm") == 0;
}

static int read_file(const char* path, uint8_t** out, size_t* size, skc_err* err) {
  FILE* f = fopen(path, "rb");
  if (!f) return skc_fail(err, SKC_IO, "%s: cannot open", path);
  long len = -1;
  if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
  if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return skc_fail(err, SKC_IO, "%s: cannot read", path);
  }
  uint8_t* d = malloc((size_t)len + 1);
  if (!d) {
    fclose(f);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for %ld bytes", path, len);
  }
  size_t got = fread(d, 1, (size_t)len, f);
  fclose(f);
  if (got != (size_t)len) {
    free(d);
    return skc_fail(err, SKC_IO, "%s: short read", path);
  }
  *out = d;
  *size = got;
  return SKC_OK;
}

/* dir: the model's folder for its image files (NULL: none read). */
static int load(const uint8_t* data, size_t n, const char* name, const char* dir, skio_scene** out, skc_err* err) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  iqm q = {0};
  q.path = name;
  q.dir = dir;
  q.d = data;
  q.n = n;
  int rc;
  skio_scene* s = calloc(1, sizeof *s);
  if (!s || !(s->source = dup_name(name, "", 0))) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", name);
    goto done;
  }
  if ((rc = read_header(&q, err)) || (rc = read_arrays(&q, err)) || (rc = check_totals(&q, err)) ||
      (rc = read_skeleton(&q, s, err)))
    goto done;
  uint32_t nm = q.h[H_NUM_MESHES];
  if (nm && !(s->meshes = calloc(nm, sizeof *s->meshes))) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", name);
    goto done;
  }
  for (uint32_t m = 0; m < nm && !rc; ++m) {
    s->mesh_count = m + 1;
    rc = read_mesh(&q, s, m, &s->meshes[m], err);
  }
  if (!rc) rc = read_materials(&q, s, err);
  if (!rc) rc = read_anims(&q, s, err);
done:
  free(q.va);
  if (rc) {
    skio_scene_destroy(s);
    return rc;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  s->load_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  *out = s;
  return SKC_OK;
}

int skio_iqm_load_memory(const uint8_t* data, size_t n, const char* name, skio_scene** out, skc_err* err) {
  if (!data || !name || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "data, name and out must not be NULL");
  return load(data, n, name, NULL, out, err);
}

int skio_iqm_import(const char* path, skio_scene** out, skc_err* err) {
  if (!path || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "path and out must not be NULL");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint8_t* data = NULL;
  size_t n = 0;
  int rc = read_file(path, &data, &n, err);
  if (rc) return rc;
  const char* slash = strrchr(path, '/');
  size_t dl = slash ? (size_t)(slash - path + 1) : 0;
  char* dir = malloc(dl + 1);
  if (!dir) {
    free(data);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  memcpy(dir, path, dl);
  dir[dl] = 0;
  rc = load(data, n, path, dir, out, err);
  free(dir);
  free(data);
  if (rc) return rc;
  clock_gettime(CLOCK_MONOTONIC, &t1); /* the file read counts too */
  (*out)->load_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  return SKC_OK;
}
