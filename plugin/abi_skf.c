/* abi_skf.c - .skf compressed skin files: encode, peek, decode (io/skf.h, io/runtime/skf_decoder.h). */
#include <stddef.h>
#include <stdlib.h>

#include "abi_internal.h"
#include "skc_skeleton.h"
#include "skc_skin.h"
#include "skf.h"

static sk_result skf_ret(int code, const skf_error* e, sk_error* err) {
  skc_err ce;
  skio_skf_status(code, e, &ce);
  return sk__ret(code, &ce, err);
}

static int to_io(const sk_skf_encode_desc* d, skio_skf_mesh** out_meshes, skio_skf_options* o, sk_error* err) {
  memset(o, 0, sizeof *o);
  o->weight_bits = d->weight_bits;
  o->max_influences = d->max_influences;
  o->level = (int)d->level;
  o->file_order = (d->flags & SK_SKF_FILE_ORDER) != 0;
  o->no_weld = (d->flags & SK_SKF_NO_WELD) != 0;
  o->profile = (d->flags & SK_SKF_FAST) ? SKIO_SKF_PROFILE_FAST : SKIO_SKF_PROFILE_DEFAULT;
  const uint32_t known = SK_SKF_FILE_ORDER | SK_SKF_NO_WELD | SK_SKF_FAST;
  if (d->flags & ~known) SK__FAIL(err, SKC_INVALID_ARGUMENT, "unknown sk_skf_encode_desc.flags bits 0x%x", d->flags & ~known);
  if (d->mesh_count && !d->meshes) SK__FAIL(err, SKC_INVALID_ARGUMENT, "meshes must not be NULL");
  const float* const* centers = d->size == sizeof *d ? d->centers : NULL; /* ABI 1.4 descs have none */
  for (uint32_t i = 0; centers && i < d->mesh_count; ++i)
    if (!centers[i]) SK__FAIL(err, SKC_INVALID_ARGUMENT, "centers[%u] is NULL (give every mesh's centres or none)", i);
  skio_skf_mesh* m = calloc(d->mesh_count ? d->mesh_count : 1, sizeof *m);
  if (!m) SK__FAIL(err, SKC_OUT_OF_MEMORY, "no memory for %u meshes", d->mesh_count);
  for (uint32_t i = 0; i < d->mesh_count; ++i) {
    m[i].skin = d->meshes[i].skin;
    m[i].positions = d->meshes[i].positions;
    m[i].indices = d->meshes[i].indices;
    m[i].index_count = d->meshes[i].index_count;
    m[i].centers = centers ? centers[i] : NULL;
  }
  *out_meshes = m;
  return SK_OK;
}

/* ABI 1.4 descs end before centers */
static int encode_desc_size_ok(const sk_skf_encode_desc* d) {
  return d && (d->size == sizeof *d || d->size == offsetof(sk_skf_encode_desc, centers));
}

SK_API size_t sk_skf_encode_bound(const sk_skf_encode_desc* desc) {
  if (!encode_desc_size_ok(desc)) return 0;
  skio_skf_mesh* m = NULL;
  skio_skf_options o;
  if (to_io(desc, &m, &o, NULL)) return 0;
  size_t b = skio_skf_encode_bound(desc->skeleton, m, desc->mesh_count, &o);
  free(m);
  return b;
}

SK_API sk_result sk_skf_encode(const sk_skf_encode_desc* desc, void* out, size_t capacity, size_t* out_size,
                               sk_error* err) {
  if (!encode_desc_size_ok(desc)) SK__CHECK_SIZE(desc, sk_skf_encode_desc, err);
  if (!out || !out_size) SK__FAIL(err, SKC_INVALID_ARGUMENT, "out and out_size must not be NULL");
  skio_skf_mesh* m = NULL;
  skio_skf_options o;
  sk_result rc = (sk_result)to_io(desc, &m, &o, err);
  if (rc) return rc;
  unsigned char* buf = NULL;
  size_t n = 0;
  skc_err e;
  int c = skio_skf_encode(desc->skeleton, m, desc->mesh_count, &o, &buf, &n, &e);
  free(m);
  if (c) return sk__ret(c, &e, err);
  if (n > capacity) {
    free(buf);
    SK__FAIL(err, SKC_OUT_OF_RANGE, "the encoded file needs %zu bytes, capacity is %zu (see sk_skf_encode_bound)", n,
             capacity);
  }
  memcpy(out, buf, n);
  free(buf);
  *out_size = n;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_skf_peek(const void* data, size_t size, sk_skf_info* info, sk_error* err) {
  SK__CHECK_SIZE(info, sk_skf_info, err);
  skf_info fi;
  skf_error fe;
  size_t names = 0;
  int c = skf_peek(data, size, &fi, &fe);
  if (!c) c = skf_decode_joints(data, size, NULL, NULL, NULL, 0, &names, &fe);
  if (c) return skf_ret(c, &fe, err);
  memset((char*)info + sizeof info->size, 0, sizeof *info - sizeof info->size);
  info->major = fi.major;
  info->minor = fi.minor;
  info->flags = fi.flags;
  info->weight_bits = fi.weight_bits;
  info->joint_bits = fi.joint_bits;
  info->joint_count = fi.joint_count;
  info->mesh_count = fi.mesh_count;
  info->max_influences = fi.max_influences;
  info->chunk_count = fi.chunk_count;
  info->group_count = fi.group_count;
  info->header_crc = fi.header_crc;
  info->payload_crc = fi.payload_crc;
  info->vertex_count = fi.vertex_count;
  info->header_size = fi.header_size;
  info->payload_size = fi.payload_size;
  info->file_size = fi.file_size;
  info->names_size = names;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_skf_get_mesh_info(const void* data, size_t size, uint32_t mesh, sk_skf_mesh_info* info,
                                      sk_error* err) {
  /* ABI 1.1 callers pass the size without coded_count and distinct_positions, 1.2-1.4 callers without has_centers */
  const size_t size_1_1 = offsetof(sk_skf_mesh_info, coded_count), size_1_2 = offsetof(sk_skf_mesh_info, has_centers);
  if (info && (info->size == size_1_1 || info->size == size_1_2)) {
    const size_t n = info->size;
    sk_skf_mesh_info full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    sk_result r = sk_skf_get_mesh_info(data, size, mesh, &full, err);
    if (!r) memcpy((char*)info + sizeof info->size, (char*)&full + sizeof full.size, n - sizeof info->size);
    return r;
  }
  SK__CHECK_SIZE(info, sk_skf_mesh_info, err);
  skf_mesh_info mi;
  skf_error fe;
  int c = skf_get_mesh_info(data, size, mesh, &mi, &fe);
  if (c) return skf_ret(c, &fe, err);
  memset((char*)info + sizeof info->size, 0, sizeof *info - sizeof info->size);
  info->coded_count = mi.coded_count;
  info->distinct_positions = mi.distinct_positions;
  info->max_influences = mi.max_influences;
  info->order = mi.order;
  info->has_position_hash = mi.has_position_hash;
  info->position_hash = mi.position_hash;
  info->index_hash = mi.index_hash;
  info->group = mi.group;
  info->vertex_count = mi.vertex_count;
  info->index_count = mi.index_count;
  info->has_centers = mi.has_centers;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API uint32_t sk_skf_position_hash(const float* positions, size_t vertex_count) {
  return skf_hash_positions(positions, vertex_count);
}

SK_API sk_result sk_skf_decode_skeleton(const void* data, size_t size, int32_t* out_parents, float* out_inverse_bind,
                                        char* out_names, size_t names_capacity, sk_error* err) {
  skf_error fe;
  int c = skf_decode_joints(data, size, out_parents, out_inverse_bind, out_names, names_capacity, NULL, &fe);
  return c ? skf_ret(c, &fe, err) : sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_skf_decode(const void* data, size_t size, const sk_skf_decode_desc* desc, sk_error* err) {
  /* ABI 1.1 callers pass the size without positions, 1.2-1.4 callers without centers */
  const size_t size_1_1 = offsetof(sk_skf_decode_desc, positions), size_1_2 = offsetof(sk_skf_decode_desc, centers);
  const int has_positions = desc && (desc->size == sizeof *desc || desc->size == size_1_2);
  const int has_centers = desc && desc->size == sizeof *desc;
  if (!desc || (desc->size != size_1_1 && desc->size != size_1_2)) SK__CHECK_SIZE(desc, sk_skf_decode_desc, err);
  if (!desc->joints || !desc->weights) SK__FAIL(err, SKC_INVALID_ARGUMENT, "joints and weights must not be NULL");
  skf_info fi;
  skf_error fe;
  int c = skf_peek(data, size, &fi, &fe);
  if (c) return skf_ret(c, &fe, err);
  sk_type jt = desc->joint_type ? desc->joint_type : SK_TYPE_U16;
  sk_type wt = desc->weight_type ? desc->weight_type : (fi.weight_bits == 16 ? SK_TYPE_U16 : SK_TYPE_U8);
  if ((jt != SK_TYPE_U8 && jt != SK_TYPE_U16) || (wt != SK_TYPE_U8 && wt != SK_TYPE_U16))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "joint and weight types must be SK_TYPE_U8 or SK_TYPE_U16");
  skf_mesh_output o;
  memset(&o, 0, sizeof o);
  o.joints = desc->joints;
  o.weights = desc->weights;
  o.vertex_capacity = desc->vertex_capacity;
  o.influences = desc->influences ? desc->influences : 4;
  o.joint_bytes = jt == SK_TYPE_U8 ? 1 : 2;
  o.weight_bytes = wt == SK_TYPE_U8 ? 1 : 2;
  o.indices = desc->indices;
  o.index_count = desc->index_count;
  o.positions = has_positions ? desc->positions : NULL;
  o.centers = has_centers ? desc->centers : NULL;
  c = skf_decode_mesh(data, size, desc->mesh, &o, &fe);
  return c ? skf_ret(c, &fe, err) : sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_skf_chunks(const void* data, size_t size, sk_skf_chunk* out, uint32_t capacity,
                               uint32_t* out_count, sk_error* err) {
  skf_info fi;
  skf_error fe;
  int c = skf_peek(data, size, &fi, &fe);
  if (c) return skf_ret(c, &fe, err);
  for (uint32_t i = 0; out && i < capacity && i < fi.chunk_count; ++i)
    SK__CHECK_SIZE(&out[i], sk_skf_chunk, err);
  for (uint32_t i = 0; out && i < capacity && i < fi.chunk_count; ++i) {
    skf_chunk_info ci;
    c = skf_get_chunk(data, size, i, &ci, &fe);
    if (c) return skf_ret(c, &fe, err);
    memset(out[i].tag, 0, sizeof out[i].tag);
    memcpy(out[i].tag, ci.tag, 4);
    out[i].stored_size = ci.stored_size;
    out[i].raw_size = ci.raw_size;
    out[i].offset = ci.offset;
  }
  if (out_count) *out_count = fi.chunk_count;
  return sk__ret(SKC_OK, NULL, err);
}
