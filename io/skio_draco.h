/* skio_draco.h - a C view of one Draco-compressed triangle mesh (KHR_draco_mesh_compression), decoded by libdraco
 * (Google's reference decoder, Debian libdraco-dev; C++, wrapped in io/draco_decode.cpp so that no exception and
 * no C++ type crosses into the C code). The glTF document layer (gltf_draco.c) maps these attributes onto the
 * primitive's accessors. */
#ifndef SKIO_DRACO_H
#define SKIO_DRACO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skio_draco_attribute {
  uint32_t unique_id;  /* the id KHR_draco_mesh_compression's "attributes" map names */
  uint32_t components; /* per point, 1..4 */
  bool integer;        /* stored as integers: uints is set */
  bool is_signed;      /* a signed integer type */
  bool normalized;     /* Draco's normalized flag */
  /* point_count * components, per point (Draco's point-to-value mapping applied). floats: the value as the
   * attribute means it (dequantized; normalized integers divided by their type's maximum, as Draco does).
   * uints: integer attributes only (else NULL), the stored integer; signed ones as their 32-bit two's complement. */
  float* floats;
  uint32_t* uints;
  /* A generic attribute Draco stored quantized: the step between its values, range / (2^bits - 1), so each float
   * is within quant_step / 2 of the value encoded; 0 when the values are exact (not quantized, or not generic:
   * positions, normals, colours and texture coordinates keep Draco's ordinary decode). */
  float quant_step;
} skio_draco_attribute;

typedef struct skio_draco_mesh {
  size_t point_count;
  size_t face_count;
  uint32_t* indices; /* face_count * 3 point indices, each < point_count */
  size_t attribute_count;
  skio_draco_attribute* attributes;
} skio_draco_mesh;

/* Decodes a Draco mesh (a point cloud is refused). Returns 0 and sets *out (free with skio_draco_free), or
 * nonzero with a message in msg (msg_size bytes; may be 0) for: data that does not decode, a point cloud, more
 * than 2^31 points or triangle corners, an attribute of more than 4 components, an integer past 32 bits, a face
 * naming a point that does not exist, out of memory. Never throws; hostile bytes give an error, not a crash.
 *
 * Memory: Draco compresses a regular mesh to a few bits per thousand triangles, so a small stream may rightly
 * decode to a large mesh, and libdraco allocates from the counts in the stream's header before reading the data.
 * The header is therefore read first and its counts held to what the caller expects: at most max_faces
 * triangles, and at most max_points points (sequential method) or 3 * max_faces vertices (edgebreaker); 0 sets
 * no bound of that kind. The glTF layer passes the primitive's accessor counts, which a valid file matches. */
int skio_draco_decode(const uint8_t* data, size_t size, size_t max_faces, size_t max_points, skio_draco_mesh** out,
                      char* msg, size_t msg_size);
void skio_draco_free(skio_draco_mesh* m);

#ifdef __cplusplus
}
#endif

#endif
