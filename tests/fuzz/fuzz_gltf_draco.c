/* fuzz_gltf_draco.c - libFuzzer target: KHR_draco_mesh_compression (io/draco_decode.cpp over libdraco, and
 * io/gltf_draco.c). The input is a raw Draco stream. It goes to the shim, and then, inside a GLB built here around
 * it, through the document layer: a primitive whose accessors take the decoded mesh's counts, component counts
 * and each attribute's id (so the conversions run, not only the count checks), read as floats and uints. Every
 * call must return a code, never crash or read out of bounds. Inputs of odd size declare another count than the
 * decode gives in every vertex accessor (FBX2glTF 0.9.7's count before compression, io/gltf_draco.c: read as decoded)
 * and carry a morph target and, by size bit 4, an attribute outside the Draco data, of the decoded or the declared
 * count by size bit 3 (mappable, or refused by name); a Draco accessor that reads must have the decoded count, and
 * none may read when the outside data cannot be mapped (else the target traps). Seeds:
 * tests/fuzz/seeds-fuzz_gltf_draco/ (rig.drc, the Draco stream of tests/data/cylinder_rig_draco.glb and
 * draco_recount.glb, 3,359 bytes: recounted and mapped; rig_even.drc with a zero byte appended: the declared counts;
 * rig_recount_refused.drc with two: refused; weights8.drc, tests/data/draco_weights8.glb's, whose weights are a
 * quantized generic attribute: the dequantization of draco_decode.cpp). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_draco.h"
#include "skio_gltf_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* The vertex count the Draco accessors declare: the decoded one for inputs of even size, else 1-4 (size bits 1-2)
 * more when size bit 5 is set or the mesh is that small, fewer otherwise. */
static size_t recount_declared(size_t points, size_t size) {
  if (!(size & 1)) return points;
  const size_t k = 1 + ((size >> 1) & 3);
  return (size >> 5) & 1 || points <= k ? points + k : points - k;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
  skio_draco_mesh* m = NULL;
  size_t points = 3, faces = 1;
  uint32_t ids[4] = {0, 1, 2, 3}, comps[4] = {3, 3, 4, 4};
  int integer[4] = {0, 0, 1, 0}, na = 4;
  bool decoded = false;
  if (skio_draco_decode(data, size, 1u << 20, 1u << 20, &m, NULL, 0) == 0) {
    decoded = true;
    points = m->point_count;
    faces = m->face_count;
    na = m->attribute_count < 4 ? (int)m->attribute_count : 4;
    for (int i = 0; i < na; ++i) {
      ids[i] = m->attributes[i].unique_id;
      comps[i] = m->attributes[i].components;
      integer[i] = m->attributes[i].integer;
    }
    skio_draco_free(m);
  }
  if (points == 0 || faces == 0 || points > (1u << 20) || faces > (1u << 20)) return 0;
  char json[2048], acc[1024] = "", attrs[256] = "", ext[256] = "", targets[64] = "";
  const size_t declared = recount_declared(points, size);
  for (int i = 0; i < na; ++i) {
    size_t al = strlen(acc), tl = strlen(attrs), el = strlen(ext);
    snprintf(acc + al, sizeof acc - al, ",{\"type\":\"%s\",\"componentType\":%d,\"count\":%zu}", types[comps[i]],
             integer[i] ? 5123 : 5126, declared);
    snprintf(attrs + tl, sizeof attrs - tl, "%s\"A%d\":%d", i ? "," : "", i, i + 1);
    snprintf(ext + el, sizeof ext - el, "%s\"A%d\":%u", i ? "," : "", i, ids[i]);
  }
  const size_t outside = (size >> 3) & 1 ? points : declared;
  if (declared != points) { /* data outside the Draco stream (zeros: an accessor without a view) */
    size_t al = strlen(acc), tl = strlen(attrs);
    snprintf(acc + al, sizeof acc - al, ",{\"type\":\"VEC3\",\"componentType\":5126,\"count\":%zu}", outside);
    snprintf(targets, sizeof targets, ",\"targets\":[{\"POSITION\":%d}]", na + 1);
    if ((size >> 4) & 1) snprintf(attrs + tl, sizeof attrs - tl, "%s\"U\":%d", na ? "," : "", na + 1);
  }
  size_t padded = (size + 3) & ~(size_t)3;
  int jl =
      snprintf(json, sizeof json,
               "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[{\"buffer\":0,"
               "\"byteLength\":%zu}],\"accessors\":[{\"type\":\"SCALAR\",\"componentType\":5125,\"count\":%zu}%s],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{%s},\"indices\":0%s,\"extensions\":{"
               "\"KHR_draco_mesh_compression\":{\"bufferView\":0,\"attributes\":{%s}}}}]}]}",
               size, size, 3 * faces, acc, attrs, targets, ext);
  if (jl < 0 || (size_t)jl >= sizeof json) return 0;
  size_t jpad = ((size_t)jl + 3) & ~(size_t)3, total = 12 + 8 + jpad + 8 + padded;
  uint8_t* glb = calloc(1, total);
  if (!glb) return 0;
  memcpy(glb, "glTF", 4);
  put32(glb + 4, 2);
  put32(glb + 8, (uint32_t)total);
  put32(glb + 12, (uint32_t)jpad);
  memcpy(glb + 16, "JSON", 4);
  memset(glb + 20, ' ', jpad);
  memcpy(glb + 20, json, (size_t)jl);
  put32(glb + 20 + jpad, (uint32_t)padded);
  memcpy(glb + 24 + jpad, "BIN", 4);
  if (size) memcpy(glb + 28 + jpad, data, size);
  skio_gltf_doc* d = NULL;
  if (skio_gltf_doc_parse(glb, total, NULL, &d, NULL) == 0) {
    for (uint32_t i = 0; i < d->accessor_count; ++i) {
      skio_gltf_accessor a;
      if (skio_gltf_accessor_info(d, i, &a, NULL)) continue;
      /* a Draco accessor that reads has the decoded count, and none reads when the outside data cannot be mapped */
      if (decoded && i >= 1 && i <= (uint32_t)na && (a.count != points || a.declared_count != declared)) abort();
      if (decoded && na > 0 && i <= (uint32_t)na && outside != points) abort();
      float* f = malloc(a.count * a.components * sizeof *f);
      uint32_t* u = malloc(a.count * a.components * sizeof *u);
      if (f) skio_gltf_accessor_floats(d, i, f, NULL);
      if (u) skio_gltf_accessor_uints(d, i, u, NULL);
      free(f);
      free(u);
    }
    skio_gltf_doc_destroy(d);
  }
  free(glb);
  return 0;
}
