/* skf.h - the .skf compressed skin format (io layer): encoder, and the library side of the decoder.
 *
 * The decoder itself lives in io/runtime/skf_decoder.h (single header, zlib + libc only); io/skf_decode.c
 * compiles it once with SKF_DECODER_IMPLEMENTATION and adds the skc_err mapping. Format: docs/skf.md.
 */
#ifndef SKIO_SKF_H
#define SKIO_SKF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/skf_decoder.h"
#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skc_status.h"

typedef struct skio_skf_mesh {
  const skc_skin* skin;     /* required; joint indices < the skeleton's joint_count */
  const float* positions;   /* optional: 3 * vertex_count rest positions, hashed into the mesh record; a vertex at
                               the position of a lower one with the same influences is then not coded at all
                               (SKF_ORDER_WELDED, decoding needs the positions) unless no_weld */
  const uint32_t* indices;  /* optional triangle list: vertices are coded in order of first appearance */
  size_t index_count;
  const float* centers;     /* optional: 3 * vertex_count centres of rotation (sk_cor_compute), stored quantized in a
                               CORC chunk (file version 3.2, docs/skf.md 3.2); all meshes or none */
} skio_skf_mesh;

typedef struct skio_skf_options {
  uint32_t weight_bits;     /* 8 or 16 (0 = 8) */
  uint32_t max_influences;  /* 1..8 (0 = 4) */
  int level;                /* zlib level 1..9 (0 = 9) */
  bool file_order;          /* ignore indices for the coding order */
  bool no_weld;             /* do not skip copies at equal positions (decoding then needs no positions) */
  size_t group_vertices;    /* small meshes share an influence chunk up to this many vertices (0 = 262144) */
  uint32_t profile;         /* SKIO_SKF_PROFILE_*: FAST codes every mesh in vertex order without zlib (3.1 file,
                               header flag SKF_FLAG_FAST; ignores indices, positions only hashed) */
  uint32_t fast_escapes;    /* speed profile: escapes a width group may hold, 1..16 (0 = SKF_FAST_ESCAPES, none): the
                               format allows any number; tests use it to reach the decoder's escape path */
} skio_skf_options;

enum { SKIO_SKF_PROFILE_DEFAULT = 0, SKIO_SKF_PROFILE_FAST = 1 };

/* The canonical quantization of one vertex (what .skf stores and decodes to): duplicate joints merged, the K
 * largest valid weights kept and renormalized (skc_select_top), quantized to sum `total` (skc_quantize_weights),
 * zero entries dropped, sorted by ascending joint. Returns the count (<= k). out arrays hold k entries. */
size_t skio_skf_quantize_vertex(const uint32_t* joints, const float* weights, size_t count, uint32_t k, uint32_t total,
                                uint32_t* out_joints, uint32_t* out_weights);

/* Worst-case encoded size, or 0 if the input is invalid. */
size_t skio_skf_encode_bound(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                             const skio_skf_options* opts);
/* Encodes into a new malloc'ed buffer. */
int skio_skf_encode(const skc_skeleton* skel, const skio_skf_mesh* meshes, uint32_t mesh_count,
                    const skio_skf_options* opts, unsigned char** out, size_t* out_size, skc_err* err);

/* Copies a runtime decoder error into an skc_err and returns its code (codes are equal). */
int skio_skf_status(int code, const skf_error* e, skc_err* err);

#endif
