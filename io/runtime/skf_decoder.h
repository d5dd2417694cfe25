/* skf_decoder.h - standalone decoder for .skf compressed skin files (skinkit), single header.
 *
 * Depends only on zlib and the C standard library (C99). In exactly one .c file:
 *
 *     #define SKF_DECODER_IMPLEMENTATION
 *     #include "skf_decoder.h"
 *
 * and link with -lz. Every other file includes the header without the macro.
 *
 * What it gives: glTF-style JOINTS_0 / WEIGHTS_0 arrays (u8 or u16 components, 1..8 slots per vertex, usually
 * 4 or 8) for each mesh, and the joint table (parents, inverse bind matrices as float32 column-major, names).
 *
 *     skf_info info;
 *     if (skf_peek(data, size, &info, NULL) != SKF_OK) ...;          // header, checksums, chunk list
 *     skf_mesh_info mi;  skf_get_mesh_info(data, size, 0, &mi, NULL);
 *     skf_mesh_output out = {0};
 *     out.joints = joints;  out.weights = weights;  out.vertex_capacity = mi.vertex_count;
 *     out.influences = 4;   out.joint_bytes = 1;     out.weight_bytes = 1;
 *     out.indices = indices; out.index_count = index_count;   // only if mi.order == SKF_ORDER_INDEX_BUFFER
 *     skf_decode_mesh(data, size, 0, &out, NULL);
 *
 * Slots of a vertex hold its joints in ascending joint order; unused slots are joint 0, weight 0. u8 weights
 * of a vertex sum to exactly 255, u16 weights to exactly 65535 (a file with 8-bit weights decoded to u16 gives
 * w * 257, still exact). A vertex without influences is all zeros.
 *
 * Safe on untrusted input: every read is bounds-checked, both CRC-32s are verified before any chunk is inflated,
 * and no allocation is made before the sizes behind it were checked against the file and the caller's buffers.
 * Each failure has its own code (values equal skinkit's sk_result). When a crafted file carries valid checksums but
 * inconsistent streams, skf_decode_* returns SKF_ERR_FORMAT and the outputs may be partially written.
 * The format is specified in docs/skf.md of skinkit.
 */
#ifndef SKF_DECODER_H
#define SKF_DECODER_H

#include <stddef.h>
#include <stdint.h>

#ifndef SKF_API
#define SKF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SKF_VERSION_MAJOR 1
#define SKF_VERSION_MINOR 0
#define SKF_HEADER_SIZE 64u        /* fixed header of major 1 (header_size may be larger in later minors) */
#define SKF_CHUNK_HEADER_SIZE 12u  /* tag[4], stored_size u32, raw_size u32 */
#define SKF_MAX_INFLUENCES 8u
#define SKF_MAX_JOINTS 65535u
#define SKF_MTF_SIZE 62u           /* joint sets remembered (move-to-front); ops 1..62 name one of them */
#define SKF_VCACHE_SIZE 192u       /* recent distinct vertices (move-to-front); ops 63..254 name one of them */
#define SKF_OP_VCACHE 63u
#define SKF_FLAG_WEIGHTS16 1u      /* header flag: weights are 16-bit (sum 65535), else 8-bit (sum 255) */
#define SKF_FLAGS_KNOWN 1u         /* any other flag bit set: SKF_ERR_UNSUPPORTED */
#define SKF_ORDER_FILE 0u          /* vertices coded in vertex-buffer order */
#define SKF_ORDER_INDEX_BUFFER 1u  /* coded in order of first appearance in the index buffer, then unreferenced ones */
#define SKF_MESH_RECORD_SIZE 32u
#define SKF_INFL_TABLE_SIZE 24u
#define SKF_OP_REPEAT 0u
#define SKF_OP_NEW_SET 255u

/* Values equal skinkit's sk_result codes. */
typedef enum skf_result {
  SKF_OK = 0,
  SKF_ERR_INVALID_ARGUMENT = 1,
  SKF_ERR_OUT_OF_MEMORY = 2,
  SKF_ERR_OUT_OF_RANGE = 3,
  SKF_ERR_NOT_FOUND = 6,
  SKF_ERR_FORMAT = 8,      /* not an .skf file, or malformed content */
  SKF_ERR_UNSUPPORTED = 9, /* reserved flag bits or fields set (a newer writer), or an impossible output type */
  SKF_ERR_TRUNCATED = 10,  /* the buffer ends before the file does */
  SKF_ERR_CHECKSUM = 11,   /* header or payload CRC-32 mismatch */
  SKF_ERR_VERSION = 12     /* major version this decoder does not know */
} skf_result;

typedef struct skf_error {
  int code;
  char message[192];
} skf_error;

typedef struct skf_info {
  uint32_t major, minor, flags;
  uint32_t weight_bits;    /* 8 or 16 */
  uint32_t joint_bits;     /* 8 when joint_count <= 256, else 16 (joint ids inside the file) */
  uint32_t joint_count, mesh_count, max_influences, chunk_count, group_count;
  uint64_t vertex_count;   /* all meshes */
  uint64_t header_size, payload_size, file_size;
  uint32_t header_crc, payload_crc;
} skf_info;

typedef struct skf_mesh_info {
  uint64_t vertex_count;
  uint64_t index_count;     /* index count the order was built from (0 with SKF_ORDER_FILE) */
  uint32_t index_hash;      /* skf_hash_u32(indices) */
  uint32_t position_hash;   /* skf_hash_positions(rest positions), valid if has_position_hash */
  uint32_t max_influences;  /* of this mesh */
  uint32_t order;           /* SKF_ORDER_* */
  uint32_t has_position_hash;
  uint32_t group;           /* which INFL chunk holds it */
} skf_mesh_info;

typedef struct skf_mesh_output {
  void* joints;             /* vertex_count * influences components of joint_bytes each (NULL: skip this mesh) */
  void* weights;            /* vertex_count * influences components of weight_bytes each */
  size_t vertex_capacity;   /* >= the mesh's vertex_count */
  uint32_t influences;      /* slots per vertex, 1..8 and >= the mesh's max_influences */
  uint32_t joint_bytes;     /* 1 (needs joint_count <= 256) or 2 */
  uint32_t weight_bytes;    /* 1 (needs an 8-bit file) or 2 */
  const uint32_t* indices;  /* the mesh's index buffer, required when its order is SKF_ORDER_INDEX_BUFFER */
  size_t index_count;
} skf_mesh_output;

/* Validates the header, both checksums and the chunk list; fills info. */
SKF_API skf_result skf_peek(const void* data, size_t size, skf_info* info, skf_error* err);
SKF_API skf_result skf_get_mesh_info(const void* data, size_t size, uint32_t mesh, skf_mesh_info* out, skf_error* err);
/* Joint table: parents (joint_count, -1 for roots), inverse binds (16 * joint_count floats), names as
 * joint_count NUL-terminated strings back to back (names_capacity bytes; NULL skips). Any pointer may be NULL.
 * out_names_size (may be NULL) receives the bytes the names need. */
SKF_API skf_result skf_decode_joints(const void* data, size_t size, int32_t* parents, float* inverse_binds,
                                     char* names, size_t names_capacity, size_t* out_names_size, skf_error* err);
/* Decodes one mesh (streaming: memory is one influence chunk at a time). */
SKF_API skf_result skf_decode_mesh(const void* data, size_t size, uint32_t mesh, const skf_mesh_output* out,
                                   skf_error* err);
/* Decodes all meshes at once: outs has mesh_count entries (an entry with joints == NULL is skipped). Faster than
 * mesh by mesh when small meshes share an influence chunk. */
SKF_API skf_result skf_decode_all(const void* data, size_t size, const skf_mesh_output* outs, skf_error* err);
/* Chunk index (0 .. chunk_count-1) of a validated file: tag, offset of its 12-byte header in the file, sizes. */
typedef struct skf_chunk_info {
  char tag[5];
  uint64_t offset;
  uint32_t stored_size, raw_size;
} skf_chunk_info;
SKF_API skf_result skf_get_chunk(const void* data, size_t size, uint32_t index, skf_chunk_info* out, skf_error* err);
SKF_API const char* skf_result_string(int code);
/* 32-bit hash (docs/skf.md) of 3 * vertex_count float32 positions / of count uint32 values. */
SKF_API uint32_t skf_hash_positions(const float* positions, size_t vertex_count);
SKF_API uint32_t skf_hash_u32(const uint32_t* values, size_t count);
/* Coding order of SKF_ORDER_INDEX_BUFFER: out_order[k] = vertex coded k-th. seen: vertex_count bytes scratch.
 * Returns SKF_ERR_OUT_OF_RANGE if an index is >= vertex_count. */
SKF_API skf_result skf_traversal_order(const uint32_t* indices, size_t index_count, size_t vertex_count,
                                       uint32_t* out_order, unsigned char* seen);

#ifdef __cplusplus
}
#endif
#endif /* SKF_DECODER_H */

/* ============================================================================================ implementation */
#ifdef SKF_DECODER_IMPLEMENTATION
#ifndef SKF_DECODER_IMPLEMENTED
#define SKF_DECODER_IMPLEMENTED

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef SKF_MALLOC
#define SKF_MALLOC(n) malloc(n)
#define SKF_FREE(p) free(p)
#endif

static const unsigned char skf__magic[8] = {0x89, 'S', 'K', 'F', 0x0D, 0x0A, 0x1A, 0x0A};

static uint32_t skf__rd16(const unsigned char* p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }
static uint32_t skf__rd32(const unsigned char* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t skf__rd64(const unsigned char* p) { return (uint64_t)skf__rd32(p) | ((uint64_t)skf__rd32(p + 4) << 32); }

static skf_result skf__fail(skf_error* err, skf_result code, const char* fmt, ...) {
  if (err) {
    va_list ap;
    err->code = (int)code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

SKF_API const char* skf_result_string(int code) {
  switch (code) {
    case SKF_OK: return "success";
    case SKF_ERR_INVALID_ARGUMENT: return "invalid argument";
    case SKF_ERR_OUT_OF_MEMORY: return "out of memory";
    case SKF_ERR_OUT_OF_RANGE: return "value out of range of the output type";
    case SKF_ERR_NOT_FOUND: return "not found";
    case SKF_ERR_FORMAT: return "malformed .skf data";
    case SKF_ERR_UNSUPPORTED: return "unsupported .skf feature";
    case SKF_ERR_TRUNCATED: return "truncated .skf data";
    case SKF_ERR_CHECKSUM: return ".skf checksum mismatch";
    case SKF_ERR_VERSION: return "unsupported .skf major version";
    default: return "unknown error";
  }
}

/* Word hash of 32-bit values: four interleaved lanes h = ((h ^ x) * 0x9E3779B1) ^ (h >> 15), folded at the end
 * (see docs/skf.md). Fast enough to check a million indices in well under a millisecond. */
static uint32_t skf__hash_words(const unsigned char* p, size_t count) {
  uint32_t h[4] = {0x811C9DC5u, 0x9E3779B9u, 0x85EBCA6Bu, 0xC2B2AE35u}, r;
  size_t i;
  uint32_t h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], x[4];
  /* values are hashed as host words: the decoder targets little-endian hosts */
#define SKF__LANE(hh, xx) hh = (hh ^ (xx)) * 0x9E3779B1u, hh ^= hh >> 15
  for (i = 0; i + 4 <= count; i += 4) {
    memcpy(x, p + 4 * i, 16);
    SKF__LANE(h0, x[0]);
    SKF__LANE(h1, x[1]);
    SKF__LANE(h2, x[2]);
    SKF__LANE(h3, x[3]);
  }
  for (; i < count; ++i) {
    memcpy(x, p + 4 * i, 4);
    if ((i & 3) == 0) SKF__LANE(h0, x[0]);
    else if ((i & 3) == 1) SKF__LANE(h1, x[0]);
    else SKF__LANE(h2, x[0]);
  }
#undef SKF__LANE
  h[0] = h0;
  h[1] = h1;
  h[2] = h2;
  h[3] = h3;
  r = (uint32_t)count * 0x27D4EB2Fu;
  for (i = 0; i < 4; ++i) {
    r = (r ^ h[i]) * 0x85EBCA77u;
    r ^= r >> 13;
  }
  return r;
}

SKF_API uint32_t skf_hash_u32(const uint32_t* values, size_t count) {
  return values ? skf__hash_words((const unsigned char*)values, count) : skf__hash_words(NULL, 0);
}

SKF_API uint32_t skf_hash_positions(const float* positions, size_t vertex_count) {
  return positions ? skf__hash_words((const unsigned char*)positions, vertex_count * 3) : skf__hash_words(NULL, 0);
}

SKF_API skf_result skf_traversal_order(const uint32_t* indices, size_t index_count, size_t vertex_count,
                                       uint32_t* out_order, unsigned char* seen) {
  size_t i, k = 0;
  memset(seen, 0, vertex_count);
  for (i = 0; i < index_count; ++i) {
    uint32_t v = indices[i];
    if (v >= vertex_count) return SKF_ERR_OUT_OF_RANGE;
    if (!seen[v]) {
      seen[v] = 1;
      out_order[k++] = v;
    }
  }
  for (i = 0; i < vertex_count; ++i)
    if (!seen[i]) out_order[k++] = (uint32_t)i;
  return SKF_OK;
}

static uint32_t skf__crc(uint32_t crc, const unsigned char* p, uint64_t n) {
  while (n) {
    uInt step = n > 0x40000000u ? 0x40000000u : (uInt)n;
    crc = (uint32_t)crc32(crc, p, step);
    p += step;
    n -= step;
  }
  return crc;
}

/* Parsed and validated file. */
typedef struct skf__file {
  skf_info info;
  const unsigned char* payload;
  uint64_t payload_size;
} skf__file;

typedef struct skf__chunk {
  const unsigned char* tag;
  const unsigned char* stored;
  uint32_t stored_size, raw_size;
} skf__chunk;

static int skf__tag(const unsigned char* t, const char* s) { return memcmp(t, s, 4) == 0; }

/* Walks the chunk list; when want_tag is given returns the which-th chunk with that tag in *out. */
static skf_result skf__walk(const skf__file* f, const char* want_tag, uint32_t which, skf__chunk* out,
                            uint32_t* out_counts, skf_error* err) {
  uint64_t pos = 0;
  uint32_t i, seen = 0, n_jnts = 0, n_mdsc = 0, n_infl = 0;
  for (i = 0; i < f->info.chunk_count; ++i) {
    const unsigned char* h;
    uint32_t stored, raw;
    if (f->payload_size - pos < SKF_CHUNK_HEADER_SIZE)
      return skf__fail(err, SKF_ERR_FORMAT, "chunk %u header runs past the payload", i);
    h = f->payload + pos;
    stored = skf__rd32(h + 4);
    raw = skf__rd32(h + 8);
    pos += SKF_CHUNK_HEADER_SIZE;
    if (f->payload_size - pos < stored)
      return skf__fail(err, SKF_ERR_FORMAT, "chunk %u ('%.4s') of %u bytes runs past the payload", i, (const char*)h,
                       stored);
    /* deflate cannot expand more than 1032:1; a larger raw size is a lie, refused before any allocation */
    if ((uint64_t)raw > (uint64_t)stored * 1032u + 64u)
      return skf__fail(err, SKF_ERR_FORMAT, "chunk %u claims %u raw bytes from %u stored", i, raw, stored);
    if (skf__tag(h, "JNTS")) ++n_jnts;
    if (skf__tag(h, "MDSC")) ++n_mdsc;
    if (skf__tag(h, "INFL")) ++n_infl;
    if (want_tag && skf__tag(h, want_tag)) {
      if (seen == which && out) {
        out->tag = h;
        out->stored = h + SKF_CHUNK_HEADER_SIZE;
        out->stored_size = stored;
        out->raw_size = raw;
        return SKF_OK;
      }
      ++seen;
    }
    pos += stored;
  }
  if (pos != f->payload_size)
    return skf__fail(err, SKF_ERR_FORMAT, "%llu bytes after the last chunk", (unsigned long long)(f->payload_size - pos));
  if (want_tag) return skf__fail(err, SKF_ERR_FORMAT, "chunk '%s' #%u is missing", want_tag, which);
  if (n_jnts != 1 || n_mdsc != 1)
    return skf__fail(err, SKF_ERR_FORMAT, "a file needs exactly one JNTS and one MDSC chunk (has %u and %u)", n_jnts,
                     n_mdsc);
  if (out_counts) *out_counts = n_infl;
  return SKF_OK;
}

static skf_result skf__open(const void* data, size_t size, skf__file* f, skf_error* err) {
  const unsigned char* p = (const unsigned char*)data;
  uint64_t header_size, payload_size;
  uint32_t crc, n_infl = 0, flags;
  skf_result rc;
  if (!data && size) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "data is NULL");
  if (size < 8) {
    if (size == 0 || memcmp(p, skf__magic, size) == 0)
      return skf__fail(err, SKF_ERR_TRUNCATED, "%zu bytes: shorter than the .skf magic", size);
    return skf__fail(err, SKF_ERR_FORMAT, "not an .skf file (bad magic)");
  }
  if (memcmp(p, skf__magic, 8) != 0) {
    if (p[0] == 0x89 && p[1] == 'S' && p[2] == 'K' && p[3] == 'F')
      return skf__fail(err, SKF_ERR_FORMAT, "damaged .skf magic (line endings converted by a text-mode transfer?)");
    return skf__fail(err, SKF_ERR_FORMAT, "not an .skf file (bad magic)");
  }
  if (size < 12) return skf__fail(err, SKF_ERR_TRUNCATED, "%zu bytes: header is truncated", size);
  f->info.major = skf__rd16(p + 8);
  f->info.minor = skf__rd16(p + 10);
  if (f->info.major != SKF_VERSION_MAJOR)
    return skf__fail(err, SKF_ERR_VERSION, ".skf major version %u, this decoder reads %u", f->info.major,
                     (unsigned)SKF_VERSION_MAJOR);
  if (size < SKF_HEADER_SIZE) return skf__fail(err, SKF_ERR_TRUNCATED, "%zu bytes: header is truncated", size);
  header_size = skf__rd32(p + 16);
  if (header_size < SKF_HEADER_SIZE || header_size > 65536u)
    return skf__fail(err, SKF_ERR_FORMAT, "header size %llu is invalid", (unsigned long long)header_size);
  if (size < header_size) return skf__fail(err, SKF_ERR_TRUNCATED, "%zu bytes: header is truncated", size);
  crc = skf__crc((uint32_t)crc32(0L, Z_NULL, 0), p, 60);
  crc = skf__crc(crc, p + SKF_HEADER_SIZE, header_size - SKF_HEADER_SIZE);
  if (crc != skf__rd32(p + 60))
    return skf__fail(err, SKF_ERR_CHECKSUM, "header CRC-32 is %08x, stored %08x", crc, skf__rd32(p + 60));
  flags = skf__rd32(p + 12);
  if (flags & ~SKF_FLAGS_KNOWN)
    return skf__fail(err, SKF_ERR_UNSUPPORTED, "reserved header flag bits 0x%x are set", flags & ~SKF_FLAGS_KNOWN);
  if (skf__rd32(p + 52) != 0) return skf__fail(err, SKF_ERR_UNSUPPORTED, "reserved header field is not zero");
  f->info.flags = flags;
  f->info.weight_bits = (flags & SKF_FLAG_WEIGHTS16) ? 16u : 8u;
  f->info.chunk_count = skf__rd32(p + 20);
  f->info.joint_count = skf__rd32(p + 24);
  f->info.mesh_count = skf__rd32(p + 28);
  f->info.vertex_count = skf__rd64(p + 32);
  payload_size = skf__rd64(p + 40);
  f->info.max_influences = skf__rd32(p + 48);
  f->info.payload_crc = skf__rd32(p + 56);
  f->info.header_crc = crc;
  f->info.joint_bits = f->info.joint_count > 256u ? 16u : 8u;
  if (f->info.joint_count < 1 || f->info.joint_count > SKF_MAX_JOINTS)
    return skf__fail(err, SKF_ERR_FORMAT, "joint count %u is out of 1..65535", f->info.joint_count);
  if (f->info.max_influences > SKF_MAX_INFLUENCES)
    return skf__fail(err, SKF_ERR_FORMAT, "max influences %u is above 8", f->info.max_influences);
  if (payload_size / SKF_CHUNK_HEADER_SIZE < f->info.chunk_count)
    return skf__fail(err, SKF_ERR_FORMAT, "%u chunks cannot fit in %llu payload bytes", f->info.chunk_count,
                     (unsigned long long)payload_size);
  if ((uint64_t)size - header_size < payload_size)
    return skf__fail(err, SKF_ERR_TRUNCATED, "file needs %llu bytes, buffer has %zu",
                     (unsigned long long)(header_size + payload_size), size);
  f->info.header_size = header_size;
  f->info.payload_size = payload_size;
  f->info.file_size = header_size + payload_size;
  f->payload = p + header_size;
  f->payload_size = payload_size;
  crc = skf__crc((uint32_t)crc32(0L, Z_NULL, 0), f->payload, payload_size);
  if (crc != f->info.payload_crc)
    return skf__fail(err, SKF_ERR_CHECKSUM, "payload CRC-32 is %08x, stored %08x", crc, f->info.payload_crc);
  rc = skf__walk(f, NULL, 0, NULL, &n_infl, err);
  if (rc) return rc;
  f->info.group_count = n_infl;
  return SKF_OK;
}

/* Inflates a chunk into a new buffer of exactly raw_size bytes (caller frees). */
static skf_result skf__inflate(const skf__chunk* c, unsigned char** out, skf_error* err) {
  z_stream zs;
  int zr;
  unsigned char* buf = (unsigned char*)SKF_MALLOC(c->raw_size ? c->raw_size : 1u);
  if (!buf) return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for %u bytes of chunk '%.4s'", c->raw_size, (const char*)c->tag);
  memset(&zs, 0, sizeof zs);
  if (inflateInit(&zs) != Z_OK) {
    SKF_FREE(buf);
    return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "inflateInit failed");
  }
  zs.next_in = (Bytef*)(uintptr_t)c->stored;
  zs.avail_in = c->stored_size;
  zs.next_out = buf;
  zs.avail_out = c->raw_size;
  zr = inflate(&zs, Z_FINISH);
  if (zr != Z_STREAM_END || zs.total_out != c->raw_size || zs.avail_in != 0) {
    int complete = zr == Z_STREAM_END;
    inflateEnd(&zs);
    SKF_FREE(buf);
    if (complete)
      return skf__fail(err, SKF_ERR_FORMAT, "chunk '%.4s' inflates to a size other than its stated %u bytes",
                       (const char*)c->tag, c->raw_size);
    return skf__fail(err, SKF_ERR_FORMAT, "chunk '%.4s' is not a valid zlib stream of %u bytes (%s)", (const char*)c->tag,
                     c->raw_size, zs.msg ? zs.msg : "size mismatch");
  }
  inflateEnd(&zs);
  *out = buf;
  return SKF_OK;
}

SKF_API skf_result skf_get_chunk(const void* data, size_t size, uint32_t index, skf_chunk_info* out, skf_error* err) {
  skf__file f;
  uint64_t pos = 0;
  uint32_t i;
  skf_result rc;
  memset(&f, 0, sizeof f);
  if (!out) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "out is NULL");
  if ((rc = skf__open(data, size, &f, err))) return rc;
  if (index >= f.info.chunk_count) return skf__fail(err, SKF_ERR_OUT_OF_RANGE, "chunk %u of %u", index, f.info.chunk_count);
  for (i = 0; i < index; ++i) pos += SKF_CHUNK_HEADER_SIZE + skf__rd32(f.payload + pos + 4); /* walk was validated */
  memcpy(out->tag, f.payload + pos, 4);
  out->tag[4] = 0;
  out->offset = f.info.header_size + pos;
  out->stored_size = skf__rd32(f.payload + pos + 4);
  out->raw_size = skf__rd32(f.payload + pos + 8);
  return SKF_OK;
}

SKF_API skf_result skf_peek(const void* data, size_t size, skf_info* info, skf_error* err) {
  skf__file f;
  skf_result rc;
  memset(&f, 0, sizeof f);
  rc = skf__open(data, size, &f, err);
  if (rc) return rc;
  if (info) *info = f.info;
  return SKF_OK;
}

/* Reads the mesh table (MDSC) and checks it against the header. */
static skf_result skf__meshes(const skf__file* f, unsigned char** out_table, skf_error* err) {
  skf__chunk c;
  unsigned char* t = NULL;
  uint64_t total = 0;
  uint32_t m, expect_group = 0, groups;
  skf_result rc = skf__walk(f, "MDSC", 0, &c, NULL, err);
  if (rc) return rc;
  if (c.raw_size != 8u + (uint64_t)SKF_MESH_RECORD_SIZE * f->info.mesh_count)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh table of %u bytes does not hold %u meshes", c.raw_size, f->info.mesh_count);
  rc = skf__inflate(&c, &t, err);
  if (rc) return rc;
  groups = skf__rd32(t + 4);
  if (skf__rd32(t) != f->info.mesh_count || groups != f->info.group_count) {
    uint32_t tm = skf__rd32(t);
    SKF_FREE(t);
    return skf__fail(err, SKF_ERR_FORMAT, "mesh table counts (%u meshes, %u groups) disagree with the file", tm, groups);
  }
  for (m = 0; m < f->info.mesh_count; ++m) {
    const unsigned char* r = t + 8 + (size_t)m * SKF_MESH_RECORD_SIZE;
    uint64_t vc = skf__rd64(r);
    uint32_t mi = r[24], order = r[25], g = skf__rd32(r + 28);
    if (mi > f->info.max_influences || order > SKF_ORDER_INDEX_BUFFER || r[26] > 1 || r[27] != 0 ||
        (g != expect_group && g != expect_group + 1) || (m == 0 && g != 0) || g >= groups || vc > UINT32_MAX) {
      SKF_FREE(t);
      return skf__fail(err, SKF_ERR_FORMAT, "mesh record %u is malformed", m);
    }
    expect_group = g;
    total += vc;
  }
  if ((f->info.mesh_count && expect_group + 1 != groups) || (!f->info.mesh_count && groups) || total != f->info.vertex_count) {
    SKF_FREE(t);
    return skf__fail(err, SKF_ERR_FORMAT, "mesh table disagrees with the header (groups or vertex total)");
  }
  *out_table = t;
  return SKF_OK;
}

static void skf__mesh_record(const unsigned char* t, uint32_t m, skf_mesh_info* o) {
  const unsigned char* r = t + 8 + (size_t)m * SKF_MESH_RECORD_SIZE;
  o->vertex_count = skf__rd64(r);
  o->index_count = skf__rd64(r + 8);
  o->index_hash = skf__rd32(r + 16);
  o->position_hash = skf__rd32(r + 20);
  o->max_influences = r[24];
  o->order = r[25];
  o->has_position_hash = r[26];
  o->group = skf__rd32(r + 28);
}

SKF_API skf_result skf_get_mesh_info(const void* data, size_t size, uint32_t mesh, skf_mesh_info* out, skf_error* err) {
  skf__file f;
  unsigned char* t = NULL;
  skf_result rc;
  memset(&f, 0, sizeof f);
  if (!out) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "out is NULL");
  if ((rc = skf__open(data, size, &f, err))) return rc;
  if (mesh >= f.info.mesh_count)
    return skf__fail(err, SKF_ERR_OUT_OF_RANGE, "mesh %u of %u", mesh, f.info.mesh_count);
  if ((rc = skf__meshes(&f, &t, err))) return rc;
  skf__mesh_record(t, mesh, out);
  SKF_FREE(t);
  return SKF_OK;
}

SKF_API skf_result skf_decode_joints(const void* data, size_t size, int32_t* parents, float* inverse_binds,
                                     char* names, size_t names_capacity, size_t* out_names_size, skf_error* err) {
  skf__file f;
  skf__chunk c;
  unsigned char* t = NULL;
  uint64_t n, need, names_size, i, nul = 0;
  skf_result rc;
  memset(&f, 0, sizeof f);
  if ((rc = skf__open(data, size, &f, err))) return rc;
  if ((rc = skf__walk(&f, "JNTS", 0, &c, NULL, err))) return rc;
  n = f.info.joint_count;
  need = 4u + 4u * n + 64u * n + 4u;
  if (c.raw_size < need) return skf__fail(err, SKF_ERR_FORMAT, "joint table of %u bytes is too small", c.raw_size);
  if ((rc = skf__inflate(&c, &t, err))) return rc;
  names_size = skf__rd32(t + 4 + 68 * n);
  rc = SKF_OK;
  if (skf__rd32(t) != n || names_size != c.raw_size - need || names_size < n)
    rc = skf__fail(err, SKF_ERR_FORMAT, "joint table sizes disagree with the header");
  for (i = 0; !rc && i < n; ++i) {
    int32_t par = (int32_t)skf__rd32(t + 4 + 4 * i);
    if (par != -1 && (par < 0 || (uint64_t)par >= i))
      rc = skf__fail(err, SKF_ERR_FORMAT, "joint %u has parent %d (must be -1 or an earlier joint)", (unsigned)i, par);
  }
  for (i = 0; !rc && i < names_size; ++i) nul += t[need + i] == 0;
  if (!rc && (nul != n || t[need + names_size - 1] != 0))
    rc = skf__fail(err, SKF_ERR_FORMAT, "joint names are not %u NUL-terminated strings", (unsigned)n);
  if (!rc && names && names_capacity < names_size)
    rc = skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "names need %llu bytes, capacity is %zu", (unsigned long long)names_size,
                   names_capacity);
  if (!rc) {
    for (i = 0; parents && i < n; ++i) parents[i] = (int32_t)skf__rd32(t + 4 + 4 * i);
    for (i = 0; inverse_binds && i < 16 * n; ++i) {
      uint32_t x = skf__rd32(t + 4 + 4 * n + 4 * i);
      memcpy(inverse_binds + i, &x, 4);
    }
    if (names) memcpy(names, t + need, (size_t)names_size);
    if (out_names_size) *out_names_size = (size_t)names_size;
  }
  SKF_FREE(t);
  return rc;
}

/* ---- influence streams ------------------------------------------------------------------------------------ */
typedef struct skf__set {
  uint32_t n;
  uint32_t j[SKF_MAX_INFLUENCES];
  uint32_t w[SKF_MAX_INFLUENCES];
} skf__set;

typedef struct skf__state {
  skf__set sets[SKF_MTF_SIZE];
  unsigned char mtf[SKF_MTF_SIZE];
  uint32_t mtf_len;
  skf__set recs[SKF_VCACHE_SIZE]; /* recs[rmtf[0]] is the previous vertex */
  unsigned char rmtf[SKF_VCACHE_SIZE];
  uint32_t rlen;
} skf__state;

typedef struct skf__dst {
  const skf_mesh_output* out;
  uint32_t* order;
  size_t jstride, wstride;
  uint32_t wscale; /* 257 for an 8-bit file into u16 weights, else 1 */
} skf__dst;

static int skf__little_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static void skf__format(const skf__set* s, const skf__dst* d, unsigned char* cj, unsigned char* cw) {
  uint32_t i, k = d->out->influences;
  if (d->out->joint_bytes == 1 && d->out->weight_bytes == 1) {
    /* build whole words: byte stores followed by a word load would stall store forwarding */
    uint64_t jv = 0, wv = 0;
    for (i = 0; i < s->n && i < k; ++i) {
      jv |= (uint64_t)(s->j[i] & 0xffu) << (8 * i);
      wv |= (uint64_t)(s->w[i] & 0xffu) << (8 * i);
    }
    if (k < 8) {
      jv &= (((uint64_t)1) << (8 * k)) - 1u;
      wv &= (((uint64_t)1) << (8 * k)) - 1u;
    }
    /* one 8-byte store each (cj/cw hold 16 bytes): later word loads forward from it (little-endian host) */
    if (skf__little_endian()) {
      memcpy(cj, &jv, 8);
      memcpy(cw, &wv, 8);
    } else {
      for (i = 0; i < k; ++i) {
        cj[i] = (unsigned char)(jv >> (8 * i));
        cw[i] = (unsigned char)(wv >> (8 * i));
      }
    }
    return;
  }
  memset(cj, 0, d->jstride);
  memset(cw, 0, d->wstride);
  for (i = 0; i < s->n && i < k; ++i) {
    uint32_t w = s->w[i] * d->wscale;
    if (d->out->joint_bytes == 1) {
      cj[i] = (unsigned char)s->j[i];
    } else {
      cj[2 * i] = (unsigned char)(s->j[i] & 0xffu);
      cj[2 * i + 1] = (unsigned char)(s->j[i] >> 8);
    }
    if (d->out->weight_bytes == 1) {
      cw[i] = (unsigned char)w;
    } else {
      cw[2 * i] = (unsigned char)(w & 0xffu);
      cw[2 * i + 1] = (unsigned char)(w >> 8);
    }
  }
}

/* Decodes one INFL chunk: vertices of meshes first..first+count-1 in coding order. */
static skf_result skf__decode_group(const skf__file* f, const unsigned char* table, uint32_t group,
                                    const skf_mesh_output* outs, uint32_t outs_base, uint32_t outs_count,
                                    skf_error* err) {
  skf__chunk c;
  unsigned char* raw = NULL;
  skf__state* st = NULL;
  skf__dst dst;
  uint32_t first = 0, count = 0, m, wb = f->info.weight_bits == 16 ? 2u : 1u, jb = f->info.joint_bits == 16 ? 2u : 1u;
  uint32_t total = wb == 2 ? 65535u : 255u, wmask = wb == 2 ? 0xffffu : 0xffu;
  uint64_t ops_len, cnt_len, jnt_len, wgt_len, vsum = 0, bound;
  const unsigned char *ops, *cnt, *jnt, *wgt, *cnt_end, *jnt_end, *wgt_end;
  skf_result rc;
  for (m = 0; m < f->info.mesh_count; ++m) {
    skf_mesh_info mi;
    skf__mesh_record(table, m, &mi);
    if (mi.group == group) {
      if (!count) first = m;
      ++count;
      vsum += mi.vertex_count;
    }
  }
  if ((rc = skf__walk(f, "INFL", group, &c, NULL, err))) return rc;
  if (vsum > UINT32_MAX) return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: more than 2^32-1 vertices", group);
  bound = SKF_INFL_TABLE_SIZE + vsum * (2u + SKF_MAX_INFLUENCES * 2u + (SKF_MAX_INFLUENCES - 1u) * 2u);
  if (c.raw_size < SKF_INFL_TABLE_SIZE || c.raw_size > bound)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: %u raw bytes cannot hold %llu vertices", group, c.raw_size,
                     (unsigned long long)vsum);
  if ((rc = skf__inflate(&c, &raw, err))) return rc;
  ops_len = skf__rd32(raw + 8);
  cnt_len = skf__rd32(raw + 12);
  jnt_len = skf__rd32(raw + 16);
  wgt_len = skf__rd32(raw + 20);
  if (skf__rd32(raw) != first || skf__rd32(raw + 4) != count || ops_len != vsum ||
      SKF_INFL_TABLE_SIZE + ops_len + cnt_len + jnt_len + wgt_len != c.raw_size) {
    SKF_FREE(raw);
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: stream table disagrees with the mesh table", group);
  }
  st = (skf__state*)SKF_MALLOC(sizeof *st);
  if (!st) {
    SKF_FREE(raw);
    return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for decoder state");
  }
  st->mtf_len = 0;
  st->rlen = 0;
  ops = raw + SKF_INFL_TABLE_SIZE;
  cnt = ops + ops_len;
  jnt = cnt + cnt_len;
  wgt = jnt + jnt_len;
  cnt_end = jnt;
  jnt_end = wgt;
  wgt_end = raw + c.raw_size;
  rc = SKF_OK;
  for (m = first; !rc && m < first + count; ++m) {
    skf_mesh_info mi;
    const skf_mesh_output* o = (m >= outs_base && m - outs_base < outs_count) ? &outs[m - outs_base] : NULL;
    unsigned char cj[2 * SKF_MAX_INFLUENCES], cw[2 * SKF_MAX_INFLUENCES];
    unsigned char *jout = NULL, *wout = NULL;
    size_t v, vc;
    int write;
    skf__mesh_record(table, m, &mi);
    vc = (size_t)mi.vertex_count;
    if (o && !o->joints) o = NULL;
    write = o != NULL;
    memset(&dst, 0, sizeof dst);
    if (o) {
      dst.out = o;
      dst.jstride = (size_t)o->influences * o->joint_bytes;
      dst.wstride = (size_t)o->influences * o->weight_bytes;
      dst.wscale = (o->weight_bytes == 2 && wb == 1) ? 257u : 1u;
      jout = (unsigned char*)o->joints;
      wout = (unsigned char*)o->weights;
      if (mi.order == SKF_ORDER_INDEX_BUFFER && vc) {
        unsigned char* seen = (unsigned char*)SKF_MALLOC(vc);
        dst.order = (uint32_t*)SKF_MALLOC(vc * sizeof(uint32_t));
        if (!seen || !dst.order) {
          SKF_FREE(seen);
          rc = skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for the traversal order of mesh %u", m);
          break;
        }
        skf_traversal_order(o->indices, o->index_count, vc, dst.order, seen); /* indices were checked by the caller */
        SKF_FREE(seen);
      }
      if (st->rlen) skf__format(&st->recs[st->rmtf[0]], &dst, cj, cw);
    }
    for (v = 0; v < vc; ++v) {
      uint32_t op = *ops++;
      size_t pos;
      if (op != SKF_OP_REPEAT) {
        skf__set* s;
        uint32_t i, sum = 0, n;
        if (op == SKF_OP_NEW_SET) {
          uint32_t slot, prevj = 0;
          if (cnt == cnt_end) { rc = skf__fail(err, SKF_ERR_FORMAT, "count stream ends early"); break; }
          n = *cnt++;
          if (n > mi.max_influences) { rc = skf__fail(err, SKF_ERR_FORMAT, "vertex with %u influences in a mesh of at most %u", n, mi.max_influences); break; }
          if ((size_t)(jnt_end - jnt) < (size_t)n * jb) { rc = skf__fail(err, SKF_ERR_FORMAT, "joint stream ends early"); break; }
          if (st->mtf_len < SKF_MTF_SIZE) {
            slot = st->mtf_len++;
          } else {
            slot = st->mtf[SKF_MTF_SIZE - 1];
          }
          memmove(st->mtf + 1, st->mtf, st->mtf_len - 1);
          st->mtf[0] = (unsigned char)slot;
          s = &st->sets[slot];
          s->n = n;
          for (i = 0; i < n; ++i) {
            uint32_t d = jb == 1 ? jnt[0] : skf__rd16(jnt);
            uint32_t j = i == 0 ? d : prevj + 1u + d;
            jnt += jb;
            if (j >= f->info.joint_count) { rc = skf__fail(err, SKF_ERR_FORMAT, "joint %u out of %u", j, f->info.joint_count); break; }
            s->j[i] = prevj = j;
            s->w[i] = 0;
          }
          if (rc) break;
        } else if (op >= SKF_OP_VCACHE) {
          uint32_t k = op - SKF_OP_VCACHE;
          unsigned char slot;
          if (k >= st->rlen) { rc = skf__fail(err, SKF_ERR_FORMAT, "vertex reference %u past the %u known", k, st->rlen); break; }
          slot = st->rmtf[k];
          memmove(st->rmtf + 1, st->rmtf, k);
          st->rmtf[0] = slot;
          if (write) {
            if (st->recs[slot].n > o->influences) { rc = skf__fail(err, SKF_ERR_FORMAT, "vertex with too many influences"); break; }
            skf__format(&st->recs[slot], &dst, cj, cw);
          }
          goto emit;
        } else {
          uint32_t k = op - 1u;
          unsigned char slot;
          if (k >= st->mtf_len) { rc = skf__fail(err, SKF_ERR_FORMAT, "joint set reference %u past the %u known", k, st->mtf_len); break; }
          slot = st->mtf[k];
          for (; k > 0; --k) st->mtf[k] = st->mtf[k - 1];
          st->mtf[0] = slot;
          s = &st->sets[slot];
          n = s->n;
        }
        if (n) {
          if ((size_t)(wgt_end - wgt) < (size_t)(n - 1) * wb) { rc = skf__fail(err, SKF_ERR_FORMAT, "weight stream ends early"); break; }
          /* the implied weight is the one that was largest in the set's previous weights (first on ties) */
          uint32_t imp = 0, bad = 0;
          for (i = 1; i < n; ++i)
            if (s->w[i] > s->w[imp]) imp = i;
          for (i = 0; i < n; ++i) {
            uint32_t z, d, w;
            if (i == imp) continue;
            z = wb == 1 ? wgt[0] : skf__rd16(wgt);
            d = (z >> 1) ^ (0u - (z & 1u));
            w = (s->w[i] + d) & wmask;
            wgt += wb;
            s->w[i] = w;
            sum += w;
            bad |= w == 0;
          }
          if (bad || sum >= total) { rc = skf__fail(err, SKF_ERR_FORMAT, "weights of a vertex are zero or exceed %u", total); break; }
          s->w[imp] = total - sum;
        }
        {
          /* the vertex enters the front of the recent-vertex cache */
          uint32_t slot = st->rlen < SKF_VCACHE_SIZE ? st->rlen++ : st->rmtf[SKF_VCACHE_SIZE - 1];
          memmove(st->rmtf + 1, st->rmtf, st->rlen - 1);
          st->rmtf[0] = (unsigned char)slot;
          st->recs[slot] = *s;
        }
        if (write) {
          if (n > o->influences) { rc = skf__fail(err, SKF_ERR_FORMAT, "vertex with %u influences in %u slots", n, o->influences); break; }
          skf__format(s, &dst, cj, cw);
        }
      } else if (!st->rlen) {
        rc = skf__fail(err, SKF_ERR_FORMAT, "first vertex repeats nothing");
        break;
      }
    emit:
      if (write) {
        pos = dst.order ? dst.order[v] : v;
        if (dst.jstride == 4 && dst.wstride == 4) {
          memcpy(jout + pos * 4, cj, 4);
          memcpy(wout + pos * 4, cw, 4);
        } else if (dst.jstride == 8 && dst.wstride == 8) {
          memcpy(jout + pos * 8, cj, 8);
          memcpy(wout + pos * 8, cw, 8);
        } else {
          memcpy(jout + pos * dst.jstride, cj, dst.jstride);
          memcpy(wout + pos * dst.wstride, cw, dst.wstride);
        }
      }
    }
    SKF_FREE(dst.order);
  }
  if (!rc && (cnt != cnt_end || jnt != jnt_end || wgt != wgt_end))
    rc = skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u has unused stream bytes", group);
  SKF_FREE(st);
  SKF_FREE(raw);
  return rc;
}

/* Checks one output description against its mesh record. */
static skf_result skf__check_output(const skf__file* f, const unsigned char* table, uint32_t m, const skf_mesh_output* o,
                                    skf_error* err) {
  skf_mesh_info mi;
  skf__mesh_record(table, m, &mi);
  if (!o->joints) return SKF_OK;
  if (!o->weights) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u: weights output is NULL", m);
  if (o->influences < 1 || o->influences > SKF_MAX_INFLUENCES)
    return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u: %u slots per vertex (1..8)", m, o->influences);
  if (o->influences < mi.max_influences)
    return skf__fail(err, SKF_ERR_OUT_OF_RANGE, "mesh %u has up to %u influences per vertex, output has %u slots", m,
                     mi.max_influences, o->influences);
  if ((o->joint_bytes != 1 && o->joint_bytes != 2) || (o->weight_bytes != 1 && o->weight_bytes != 2))
    return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u: joint/weight components must be 1 or 2 bytes", m);
  if (o->joint_bytes == 1 && f->info.joint_count > 256)
    return skf__fail(err, SKF_ERR_OUT_OF_RANGE, "%u joints do not fit u8 joint indices", f->info.joint_count);
  if (o->weight_bytes == 1 && f->info.weight_bits == 16)
    return skf__fail(err, SKF_ERR_UNSUPPORTED, "16-bit weights cannot be decoded to u8 with exact sums");
  if (o->vertex_capacity < mi.vertex_count)
    return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u has %llu vertices, output holds %zu", m,
                     (unsigned long long)mi.vertex_count, o->vertex_capacity);
  if (mi.order == SKF_ORDER_INDEX_BUFFER) {
    size_t i;
    if (!o->indices || o->index_count != mi.index_count)
      return skf__fail(err, SKF_ERR_INVALID_ARGUMENT,
                       "mesh %u was coded in triangle order: pass its index buffer (%llu indices)", m,
                       (unsigned long long)mi.index_count);
    uint32_t maxi = 0;
    for (i = 0; i < o->index_count; ++i) maxi = o->indices[i] > maxi ? o->indices[i] : maxi;
    if (o->index_count && maxi >= mi.vertex_count)
      return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u: index %u is past %llu vertices", m, maxi,
                       (unsigned long long)mi.vertex_count);
    if (skf_hash_u32(o->indices, o->index_count) != mi.index_hash)
      return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u: the index buffer is not the one it was encoded with", m);
  }
  return SKF_OK;
}

SKF_API skf_result skf_decode_mesh(const void* data, size_t size, uint32_t mesh, const skf_mesh_output* out,
                                   skf_error* err) {
  skf__file f;
  unsigned char* t = NULL;
  skf_mesh_info mi;
  skf_result rc;
  memset(&f, 0, sizeof f);
  if (!out || !out->joints) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "output and its joints must not be NULL");
  if ((rc = skf__open(data, size, &f, err))) return rc;
  if (mesh >= f.info.mesh_count) return skf__fail(err, SKF_ERR_OUT_OF_RANGE, "mesh %u of %u", mesh, f.info.mesh_count);
  if ((rc = skf__meshes(&f, &t, err))) return rc;
  rc = skf__check_output(&f, t, mesh, out, err);
  if (!rc) {
    skf__mesh_record(t, mesh, &mi);
    rc = skf__decode_group(&f, t, mi.group, out, mesh, 1, err);
  }
  SKF_FREE(t);
  return rc;
}

SKF_API skf_result skf_decode_all(const void* data, size_t size, const skf_mesh_output* outs, skf_error* err) {
  skf__file f;
  unsigned char* t = NULL;
  uint32_t m, g;
  skf_result rc;
  memset(&f, 0, sizeof f);
  if ((rc = skf__open(data, size, &f, err))) return rc;
  if (f.info.mesh_count && !outs) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "outputs must not be NULL");
  if ((rc = skf__meshes(&f, &t, err))) return rc;
  for (m = 0; !rc && m < f.info.mesh_count; ++m) rc = skf__check_output(&f, t, m, &outs[m], err);
  for (g = 0; !rc && g < f.info.group_count; ++g) rc = skf__decode_group(&f, t, g, outs, 0, f.info.mesh_count, err);
  SKF_FREE(t);
  return rc;
}

#endif /* SKF_DECODER_IMPLEMENTED */
#endif /* SKF_DECODER_IMPLEMENTATION */
