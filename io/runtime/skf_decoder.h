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
 *     out.indices = indices; out.index_count = index_count;   // if mi.order != SKF_ORDER_FILE and mi.index_count
 *     out.positions = positions;                               // if mi.order == SKF_ORDER_WELDED (3 floats/vertex)
 *     skf_decode_mesh(data, size, 0, &out, NULL);
 *
 * Slots of a vertex hold its joints in ascending joint order; unused slots are joint 0, weight 0. u8 weights
 * of a vertex sum to exactly 255, u16 weights to exactly 65535 (a file with 8-bit weights decoded to u16 gives
 * w * 257, still exact). A vertex without influences is all zeros.
 *
 * Format version 3.2 (docs/skf.md; reads 3.0 and 3.1 too). A 3.2 file may store each mesh's centres of rotation
 * for skinkit's COR deformer (skf_mesh_output.centers; an older reader skips them). A file of the speed profile
 * (header flag SKF_FLAG_FAST, 3.1) is coded in vertex order without zlib and decodes over 10x faster; it needs
 * neither indices nor positions. x86 builds use SSE2 for it (and PCLMULQDQ for the CRC-32 where the CPU has it,
 * checked at run time); -DSKF_NO_SIMD keeps the portable C. Each
 * mesh decodes on its own: a mesh coded in triangle order needs only its
 * own index buffer (the decoder walks it and predicts weights from the triangle corners it already decoded); a
 * welded mesh also needs its rest positions (a vertex at the bit-identical position of a lower one with the same
 * influences was not stored: the decoder finds it again and copies). Both are what an engine renders with.
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

#define SKF_VERSION_MAJOR 3
#define SKF_VERSION_MINOR 2         /* highest minor this decoder knows (it reads every minor of major 3) */
#define SKF_HEADER_SIZE 64u        /* fixed header of major 3 (header_size may be larger in later minors) */
#define SKF_CHUNK_HEADER_SIZE 12u  /* tag[4], stored_size u32, raw_size u32 */
#define SKF_MAX_INFLUENCES 8u
#define SKF_MAX_JOINTS 65535u
#define SKF_MTF_SIZE 62u           /* joint sets remembered (move-to-front); ops 1..62 name one of them */
#define SKF_VCACHE_SIZE 191u       /* recent distinct vertices (move-to-front); ops 63..253 name one of them */
#define SKF_OP_VCACHE 63u
#define SKF_FLAG_WEIGHTS16 1u      /* header flag: weights are 16-bit (sum 65535), else 8-bit (sum 255) */
#define SKF_FLAG_FAST 2u           /* header flag (3.1): speed profile, INFL chunks stored raw (docs/skf.md 3.1) */
#define SKF_FLAGS_KNOWN 3u         /* any other flag bit set: SKF_ERR_UNSUPPORTED */
#define SKF_FAST_GROUP 16u         /* speed profile: deltas per width group of a byte plane */
#define SKF_FAST_ESCAPES 0         /* speed profile: escapes a group the encoder writes at most (a decoder: any) */
#define SKF_ORDER_FILE 0u          /* vertices coded in vertex-buffer order */
#define SKF_ORDER_INDEX_BUFFER 1u  /* coded in order of first appearance in the index buffer, then unreferenced ones */
#define SKF_ORDER_WELDED 2u        /* copies of an earlier vertex at the same position are not coded; the others in
                                      order of first appearance in the welded index buffer (needs positions) */
#define SKF_MESH_RECORD_SIZE 48u
#define SKF_INFL_TABLE_SIZE 8u         /* INFL: first_mesh, mesh_count */
#define SKF_INFL_MESH_SIZE 24u         /* INFL: per mesh, lengths of its counts, joints, weights, nweights, far, weld streams */
#define SKF_CORC_HEAD_SIZE 32u         /* CORC (3.2): mesh, count, origin[3], step[3]; then 6 byte planes */
#define SKF_OP_REPEAT 0u
#define SKF_OP_FAR 254u            /* an older vertex: distance back in the history of coded vertices (far stream) */
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
  uint32_t coded_count;     /* vertices with an op: vertex_count, or with SKF_ORDER_WELDED those that are no copies */
  uint32_t distinct_positions; /* SKF_ORDER_WELDED: vertices that are the first (lowest index) at their position */
  uint32_t weld_check;      /* SKF_ORDER_WELDED: checksum of the weld map (skf_weld_positions), else 0 */
  uint32_t has_centers;     /* 3.2: the file stores centres of rotation (a CORC chunk per mesh); set by
                               skf_get_mesh_info only */
} skf_mesh_info;

typedef struct skf_mesh_output {
  void* joints;             /* vertex_count * influences components of joint_bytes each (2: host-order uint16_t
                               on every host); NULL: skip this mesh */
  void* weights;            /* vertex_count * influences components of weight_bytes each */
  size_t vertex_capacity;   /* >= the mesh's vertex_count */
  uint32_t influences;      /* slots per vertex, 1..8 and >= the mesh's max_influences */
  uint32_t joint_bytes;     /* 1 (needs joint_count <= 256) or 2 */
  uint32_t weight_bytes;    /* 1 (needs an 8-bit file) or 2 */
  const uint32_t* indices;  /* the mesh's index buffer, required when its order is SKF_ORDER_INDEX_BUFFER, and with
                               SKF_ORDER_WELDED when the mesh record's index_count is not 0 */
  size_t index_count;
  const float* positions;   /* 3 * vertex_count rest positions, required when its order is SKF_ORDER_WELDED */
  float* centers;           /* optional (3.2): 3 * vertex_count floats receive the mesh's stored centres of rotation
                               (docs/skf.md 3.2: within half a quantization step, 1/65535 of the centres' extent,
                               per axis); SKF_ERR_NOT_FOUND, nothing written, when the file has none (see
                               skf_mesh_info.has_centers). NULL: not read, costs nothing. */
} skf_mesh_output;

/* Validates the header, both checksums, the chunk list and that the mesh table is the size of mesh_count meshes; fills
 * info. */
SKF_API skf_result skf_peek(const void* data, size_t size, skf_info* info, skf_error* err);
SKF_API skf_result skf_get_mesh_info(const void* data, size_t size, uint32_t mesh, skf_mesh_info* out, skf_error* err);
/* Joint table: parents (joint_count, -1 for roots), inverse binds (16 * joint_count floats), names as
 * joint_count NUL-terminated strings back to back (names_capacity bytes; NULL skips). Any pointer may be NULL.
 * out_names_size (may be NULL) receives the bytes the names need, also when names_capacity is too small for them
 * (SKF_ERR_INVALID_ARGUMENT): call again with that many. */
SKF_API skf_result skf_decode_joints(const void* data, size_t size, int32_t* parents, float* inverse_binds,
                                     char* names, size_t names_capacity, size_t* out_names_size, skf_error* err);
/* Decodes one mesh (streaming: memory is one influence chunk at a time). */
SKF_API skf_result skf_decode_mesh(const void* data, size_t size, uint32_t mesh, const skf_mesh_output* out,
                                   skf_error* err);
/* Decodes all meshes at once: outs has mesh_count entries (an entry with joints == NULL is skipped). Faster than
 * mesh by mesh when small meshes share an influence chunk. */
SKF_API skf_result skf_decode_all(const void* data, size_t size, const skf_mesh_output* outs, skf_error* err);
/* A reusable decoder: it keeps its scratch (inflate state, the inflated chunk, per-vertex tables) between calls and
 * grows it only when a mesh or chunk needs more than any before, so decoding many meshes and files with one decoder
 * makes no allocation once it has decoded the largest mesh and the largest compressed chunk. Same results and
 * checks as skf_decode_mesh / skf_decode_all (which make a decoder per call). Not thread-safe: one decoder per
 * thread. skf_decoder_reserve sizes the per-vertex scratch up front for meshes of up to max_vertices vertices and
 * max_indices indices (e.g. from skf_get_mesh_info), not the inflate state or the inflated chunk; it is optional. */
typedef struct skf_decoder skf_decoder;
SKF_API skf_decoder* skf_decoder_create(void); /* NULL: out of memory */
SKF_API void skf_decoder_destroy(skf_decoder* dec);
SKF_API skf_result skf_decoder_reserve(skf_decoder* dec, size_t max_vertices, size_t max_indices, skf_error* err);
/* Bytes the decoder holds now (not zlib's inflate state, about 40 KB more). */
SKF_API size_t skf_decoder_scratch_bytes(const skf_decoder* dec);
SKF_API skf_result skf_decoder_decode_mesh(skf_decoder* dec, const void* data, size_t size, uint32_t mesh,
                                           const skf_mesh_output* out, skf_error* err);
SKF_API skf_result skf_decoder_decode_all(skf_decoder* dec, const void* data, size_t size, const skf_mesh_output* outs,
                                          skf_error* err);
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
/* Position weld of SKF_ORDER_WELDED: out_first[v] = the lowest vertex index whose 3 floats are bit-identical to v's
 * (v itself if none is lower). scratch: skf_weld_scratch_count(vertex_count) uint32 values (0: too many vertices
 * for this address space; then don't call it). Returns the number of
 * distinct positions (vertices with out_first[v] == v); out_check (may be NULL) receives the sum over the other
 * vertices of (out_first[v] ^ (v * 0x9E3779B1)) * 0x85EBCA77, modulo 2^32. */
SKF_API size_t skf_weld_scratch_count(size_t vertex_count);
SKF_API size_t skf_weld_positions(const float* positions, size_t vertex_count, uint32_t* out_first, uint32_t* scratch,
                                  uint32_t* out_check);
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
#if (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)) && !defined(SKF_NO_SIMD)
#define SKF__SSE 1 /* SSE2 paths of the speed profile (every x86-64 has SSE2); -DSKF_NO_SIMD keeps the portable C */
#include <emmintrin.h>
#endif

/* The allocator: define both SKF_MALLOC(n) and SKF_FREE(p) to use your own (zlib's inflate state goes through them
 * too); neither for malloc / free. */
#if defined(SKF_MALLOC) != defined(SKF_FREE)
#error "define both SKF_MALLOC and SKF_FREE, or neither"
#endif
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

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
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
static uint32_t skf__hash_words(const unsigned char* p, size_t count, uint32_t* out_max) {
  uint32_t h[4] = {0x811C9DC5u, 0x9E3779B9u, 0x85EBCA6Bu, 0xC2B2AE35u}, r;
  size_t i;
  uint32_t h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3], x[4], mx = 0;
  /* values are hashed as host words: the decoder targets little-endian hosts */
#define SKF__LANE(hh, xx) hh = (hh ^ (xx)) * 0x9E3779B1u, hh ^= hh >> 15
  for (i = 0; i + 4 <= count; i += 4) {
    memcpy(x, p + 4 * i, 16);
    mx = x[0] > mx ? x[0] : mx;
    mx = x[1] > mx ? x[1] : mx;
    mx = x[2] > mx ? x[2] : mx;
    mx = x[3] > mx ? x[3] : mx;
    SKF__LANE(h0, x[0]);
    SKF__LANE(h1, x[1]);
    SKF__LANE(h2, x[2]);
    SKF__LANE(h3, x[3]);
  }
  for (; i < count; ++i) {
    memcpy(x, p + 4 * i, 4);
    mx = x[0] > mx ? x[0] : mx;
    if ((i & 3) == 0) SKF__LANE(h0, x[0]);
    else if ((i & 3) == 1) SKF__LANE(h1, x[0]);
    else SKF__LANE(h2, x[0]);
  }
#undef SKF__LANE
  h[0] = h0;
  h[1] = h1;
  h[2] = h2;
  h[3] = h3;
  if (out_max) *out_max = mx;
  r = (uint32_t)count * 0x27D4EB2Fu;
  for (i = 0; i < 4; ++i) {
    r = (r ^ h[i]) * 0x85EBCA77u;
    r ^= r >> 13;
  }
  return r;
}

SKF_API uint32_t skf_hash_u32(const uint32_t* values, size_t count) {
  return values ? skf__hash_words((const unsigned char*)values, count, NULL) : skf__hash_words(NULL, 0, NULL);
}

SKF_API uint32_t skf_hash_positions(const float* positions, size_t vertex_count) {
  return positions ? skf__hash_words((const unsigned char*)positions, vertex_count * 3, NULL) : skf__hash_words(NULL, 0, NULL);
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

SKF_API size_t skf_weld_scratch_count(size_t vertex_count) {
  size_t n = 16;
  if (vertex_count > ((size_t)-1) / 16u) return 0; /* the table could not be allocated */
  while (n < 2 * vertex_count) n *= 2;            /* load factor <= 1/2 */
  return n;
}

#if defined(__GNUC__) || defined(__clang__)
#define SKF__PREFETCH(p) __builtin_prefetch(p)
#else
#define SKF__PREFETCH(p) ((void)0)
#endif

/* Hash of a position's 12 bytes (the bit patterns of its 3 floats). */
static uint32_t skf__pos_hash(const unsigned char* q) {
  uint32_t x[3], h;
  memcpy(x, q, 12);
  h = x[0] * 0x9E3779B1u ^ (x[1] * 0x85EBCA77u + (x[1] >> 17)) ^ (x[2] * 0xC2B2AE3Du + (x[2] >> 13));
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  return h ^ (h >> 12);
}

/* Open addressing over the bit patterns of the 3 floats; slots hold vertex + 1. Vertices are inserted in increasing
 * order, so the first one found at a position is its lowest index, whatever the hash. The table is larger than the
 * caches and probed at random: each vertex's slot is prefetched SKF__WELD_AHEAD vertices early (hashes wait in a
 * ring), so the probe finds it loaded instead of stalling on memory; positions compare as two words inline. */
#define SKF__WELD_AHEAD 16u
SKF_API size_t skf_weld_positions(const float* positions, size_t vertex_count, uint32_t* out_first, uint32_t* scratch,
                                  uint32_t* out_check) {
  const size_t tn = skf_weld_scratch_count(vertex_count), mask = tn - 1;
  const unsigned char* p = (const unsigned char*)positions;
  uint32_t ring[SKF__WELD_AHEAD];
  size_t v, distinct = 0;
  uint32_t check = 0;
  memset(scratch, 0, tn * sizeof *scratch);
  for (v = 0; v < vertex_count && v < SKF__WELD_AHEAD; ++v) ring[v] = skf__pos_hash(p + 12 * v);
  for (v = 0; v < vertex_count; ++v) {
    const unsigned char* q = p + 12 * v;
    uint64_t a;
    uint32_t b, h = ring[v % SKF__WELD_AHEAD];
    size_t at;
    if (v + SKF__WELD_AHEAD < vertex_count) {
      uint32_t hn = skf__pos_hash(q + 12 * SKF__WELD_AHEAD);
      ring[v % SKF__WELD_AHEAD] = hn;
      SKF__PREFETCH(scratch + (hn & mask));
    }
    memcpy(&a, q, 8);
    memcpy(&b, q + 8, 4);
    for (at = h & mask;; at = (at + 1) & mask) {
      uint32_t s = scratch[at];
      uint64_t sa;
      uint32_t sb;
      if (!s) {
        scratch[at] = (uint32_t)v + 1u;
        out_first[v] = (uint32_t)v;
        ++distinct;
        break;
      }
      memcpy(&sa, p + 12 * (size_t)(s - 1u), 8);
      memcpy(&sb, p + 12 * (size_t)(s - 1u) + 8, 4);
      if (((sa ^ a) | (sb ^ b)) == 0) {
        out_first[v] = s - 1u;
        check += ((s - 1u) ^ ((uint32_t)v * 0x9E3779B1u)) * 0x85EBCA77u;
        break;
      }
    }
  }
  if (out_check) *out_check = check;
  return distinct;
}

#if defined(SKF__SSE) && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#include <wmmintrin.h>
#define SKF__CLMUL 1
/* CRC-32 (zlib's) by carry-less multiplication, where the CPU has PCLMULQDQ (checked at run time): four 128-bit
 * accumulators folded 512 bits at a time, then into one, then 128 bits at a time; zlib finishes the last 16 bytes
 * and the tail. The constants are x^n mod P (P the CRC-32 polynomial) bit-reflected, for n = 543, 479 (512-bit
 * folds) and 159, 95 (128-bit folds): folding a block b by d bits is clmul(b.lo, x^(d+31)) ^ clmul(b.hi, x^(d-33)) in
 * the reflected domain (Gopal et al., "Fast CRC computation for generic polynomials using PCLMULQDQ", Intel 2009).
 * n >= 64. */
__attribute__((target("pclmul,sse2"))) static __m128i skf__fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}
__attribute__((target("pclmul,sse2"))) static uint32_t skf__crc_clmul(uint32_t crc, const unsigned char* p,
                                                                      uint64_t n) {
  const __m128i k512 = _mm_set_epi64x(0x1d9513d7, 0x8f352d95), k128 = _mm_set_epi64x(0xccaa009e, 0xae689191);
  __m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i*)(const void*)p), _mm_cvtsi32_si128((int)~crc));
  __m128i x1 = _mm_loadu_si128((const __m128i*)(const void*)(p + 16));
  __m128i x2 = _mm_loadu_si128((const __m128i*)(const void*)(p + 32));
  __m128i x3 = _mm_loadu_si128((const __m128i*)(const void*)(p + 48));
  unsigned char last[16];
  for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
    x0 = _mm_xor_si128(skf__fold(x0, k512), _mm_loadu_si128((const __m128i*)(const void*)p));
    x1 = _mm_xor_si128(skf__fold(x1, k512), _mm_loadu_si128((const __m128i*)(const void*)(p + 16)));
    x2 = _mm_xor_si128(skf__fold(x2, k512), _mm_loadu_si128((const __m128i*)(const void*)(p + 32)));
    x3 = _mm_xor_si128(skf__fold(x3, k512), _mm_loadu_si128((const __m128i*)(const void*)(p + 48)));
  }
  x1 = _mm_xor_si128(x1, skf__fold(x0, k128));
  x2 = _mm_xor_si128(x2, skf__fold(x1, k128));
  x3 = _mm_xor_si128(x3, skf__fold(x2, k128));
  for (; n >= 16; p += 16, n -= 16)
    x3 = _mm_xor_si128(skf__fold(x3, k128), _mm_loadu_si128((const __m128i*)(const void*)p));
  _mm_storeu_si128((__m128i*)(void*)last, x3);
  crc = (uint32_t)crc32(0xffffffffu, last, 16); /* x3 is a 16-byte message with the same CRC as what it folds */
  return (uint32_t)crc32(crc, p, (uInt)n);
}
static int skf__has_clmul(void) {
  static int known = -1; /* threads racing here store the same value (relaxed atomics: no data race) */
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    unsigned a, b, c, d;
    k = __get_cpuid(1, &a, &b, &c, &d) && (c & 2u); /* CPUID.1:ECX.PCLMULQDQ */
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}
#endif

static uint32_t skf__crc(uint32_t crc, const unsigned char* p, uint64_t n) {
#if defined(SKF__CLMUL)
  if (n >= 256 && skf__has_clmul()) return skf__crc_clmul(crc, p, n);
#endif
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
  uint32_t corc_count; /* CORC chunks (3.2): 0, or one per mesh for a file with centres */
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
  uint32_t i, seen = 0, n_jnts = 0, n_mdsc = 0, n_infl = 0, n_corc = 0;
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
    if (skf__tag(h, "CORC")) ++n_corc;
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
  if (out_counts) {
    out_counts[0] = n_infl;
    out_counts[1] = n_corc;
  }
  return SKF_OK;
}

static skf_result skf__open(const void* data, size_t size, skf__file* f, skf_error* err) {
  const unsigned char* p = (const unsigned char*)data;
  uint64_t header_size, payload_size;
  uint32_t crc, n_counts[2] = {0, 0}, flags;
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
  rc = skf__walk(f, NULL, 0, NULL, n_counts, err);
  if (rc) return rc;
  f->info.group_count = n_counts[0];
  f->corc_count = n_counts[1];
  return SKF_OK;
}

/* zlib's allocations through SKF_MALLOC / SKF_FREE (items * size checked for overflow). */
static voidpf skf__zalloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return size && items > (uInt)-1 / size ? Z_NULL : (voidpf)SKF_MALLOC((size_t)items * size);
}
static void skf__zfree(voidpf opaque, voidpf p) {
  (void)opaque;
  SKF_FREE(p);
}

/* Inflates a chunk into buf (raw_size bytes). *ready: zs was initialised by an earlier call and is only reset
 * (a reused decoder keeps its inflate state and window). */
static skf_result skf__inflate_into(z_stream* zs, int* ready, const skf__chunk* c, unsigned char* buf, skf_error* err) {
  int zr;
  if (*ready) {
    if (inflateReset(zs) != Z_OK) return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "inflateReset failed");
  } else {
    memset(zs, 0, sizeof *zs);
    zs->zalloc = skf__zalloc;
    zs->zfree = skf__zfree;
    if (inflateInit(zs) != Z_OK) return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "inflateInit failed");
    *ready = 1;
  }
  zs->next_in = (Bytef*)(uintptr_t)c->stored;
  zs->avail_in = c->stored_size;
  zs->next_out = buf;
  zs->avail_out = c->raw_size;
  zr = inflate(zs, Z_FINISH);
  if (zr != Z_STREAM_END || zs->total_out != c->raw_size || zs->avail_in != 0) {
    if (zr == Z_STREAM_END)
      return skf__fail(err, SKF_ERR_FORMAT, "chunk '%.4s' inflates to a size other than its stated %u bytes",
                       (const char*)c->tag, c->raw_size);
    return skf__fail(err, SKF_ERR_FORMAT, "chunk '%.4s' is not a valid zlib stream of %u bytes (%s)", (const char*)c->tag,
                     c->raw_size, zs->msg ? zs->msg : "size mismatch");
  }
  return SKF_OK;
}

/* Inflates a chunk into a new buffer of exactly raw_size bytes (caller frees). */
static skf_result skf__inflate(const skf__chunk* c, unsigned char** out, skf_error* err) {
  z_stream zs;
  int ready = 0;
  skf_result rc;
  unsigned char* buf = (unsigned char*)SKF_MALLOC(c->raw_size ? c->raw_size : 1u);
  if (!buf) return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for %u bytes of chunk '%.4s'", c->raw_size, (const char*)c->tag);
  rc = skf__inflate_into(&zs, &ready, c, buf, err);
  if (ready) inflateEnd(&zs);
  if (rc) {
    SKF_FREE(buf);
    return rc;
  }
  *out = buf;
  return SKF_OK;
}

/* Grows a scratch buffer to at least n bytes (contents not kept); 0 = ok. */
static int skf__grow(unsigned char** buf, size_t* cap, size_t n) {
  unsigned char* b;
  if (n <= *cap && *buf) return 0;
  b = (unsigned char*)SKF_MALLOC(n ? n : 1u);
  if (!b) return 1;
  SKF_FREE(*buf);
  *buf = b;
  *cap = n ? n : 1u;
  return 0;
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
  skf__chunk c;
  skf_result rc;
  memset(&f, 0, sizeof f);
  rc = skf__open(data, size, &f, err);
  if (rc) return rc;
  /* the header's mesh count against the mesh table's size (an engine sizes its outputs from it) */
  if ((rc = skf__walk(&f, "MDSC", 0, &c, NULL, err))) return rc;
  if (c.raw_size != 8u + (uint64_t)SKF_MESH_RECORD_SIZE * f.info.mesh_count)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh table of %u bytes does not hold %u meshes", c.raw_size, f.info.mesh_count);
  if (info) *info = f.info;
  return SKF_OK;
}

/* Reads the mesh table (MDSC) and checks it against the header. With zs (a decoder's inflate state) the table goes
 * to the decoder's buffer *tab (capacity *tab_cap) and the caller must not free it; else to a new buffer. */
static skf_result skf__meshes(const skf__file* f, z_stream* zs, int* zs_ready, unsigned char** tab, size_t* tab_cap,
                              unsigned char** out_table, skf_error* err) {
  skf__chunk c;
  unsigned char* t = NULL;
  uint64_t total = 0;
  uint32_t m, expect_group = 0, groups;
  skf_result rc = skf__walk(f, "MDSC", 0, &c, NULL, err);
  if (rc) return rc;
  if (c.raw_size != 8u + (uint64_t)SKF_MESH_RECORD_SIZE * f->info.mesh_count)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh table of %u bytes does not hold %u meshes", c.raw_size, f->info.mesh_count);
  if (zs) {
    if (skf__grow(tab, tab_cap, c.raw_size)) return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for the mesh table");
    rc = skf__inflate_into(zs, zs_ready, &c, *tab, err);
    t = *tab;
  } else {
    rc = skf__inflate(&c, &t, err);
  }
  if (rc) return rc;
  groups = skf__rd32(t + 4);
  if (skf__rd32(t) != f->info.mesh_count || groups != f->info.group_count) {
    uint32_t tm = skf__rd32(t);
    if (!zs) SKF_FREE(t);
    return skf__fail(err, SKF_ERR_FORMAT, "mesh table counts (%u meshes, %u groups) disagree with the file", tm, groups);
  }
  for (m = 0; m < f->info.mesh_count; ++m) {
    const unsigned char* r = t + 8 + (size_t)m * SKF_MESH_RECORD_SIZE;
    uint64_t vc = skf__rd64(r);
    uint32_t mi = r[24], order = r[25], g = skf__rd32(r + 28), coded = skf__rd32(r + 32), distinct = skf__rd32(r + 36);
    int weld_ok = order == SKF_ORDER_WELDED ? distinct <= coded && coded <= vc && (distinct > 0) == (vc > 0)
                                             : coded == vc && distinct == 0 && skf__rd32(r + 40) == 0;
    weld_ok = weld_ok && skf__rd32(r + 44) == 0;
    if ((f->info.flags & SKF_FLAG_FAST) && order != SKF_ORDER_FILE) weld_ok = 0; /* speed profile: vertex order */
    if (mi > f->info.max_influences || order > SKF_ORDER_WELDED || r[26] > 1 || r[27] != 0 || !weld_ok ||
        (g != expect_group && g != expect_group + 1) || (m == 0 && g != 0) || g >= groups || vc > UINT32_MAX) {
      if (!zs) SKF_FREE(t);
      return skf__fail(err, SKF_ERR_FORMAT, "mesh record %u is malformed", m);
    }
    expect_group = g;
    total += vc;
  }
  if ((f->info.mesh_count && expect_group + 1 != groups) || (!f->info.mesh_count && groups) || total != f->info.vertex_count) {
    if (!zs) SKF_FREE(t);
    return skf__fail(err, SKF_ERR_FORMAT, "mesh table disagrees with the header (groups or vertex total)");
  }
  *out_table = t;
  return SKF_OK;
}

static void skf__mesh_record(const unsigned char* t, uint32_t m, skf_mesh_info* o) {
  const unsigned char* r = t + 8 + (size_t)m * SKF_MESH_RECORD_SIZE;
  o->has_centers = 0;
  o->vertex_count = skf__rd64(r);
  o->index_count = skf__rd64(r + 8);
  o->index_hash = skf__rd32(r + 16);
  o->position_hash = skf__rd32(r + 20);
  o->max_influences = r[24];
  o->order = r[25];
  o->has_position_hash = r[26];
  o->group = skf__rd32(r + 28);
  o->coded_count = skf__rd32(r + 32);
  o->distinct_positions = skf__rd32(r + 36);
  o->weld_check = skf__rd32(r + 40);
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
  if ((rc = skf__meshes(&f, NULL, NULL, NULL, NULL, &t, err))) return rc;
  skf__mesh_record(t, mesh, out);
  out->has_centers = f.corc_count != 0;
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
  if (!rc && out_names_size) *out_names_size = (size_t)names_size; /* also when names is too small: retry with it */
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
  }
  SKF_FREE(t);
  return rc;
}

/* ---- influence streams ------------------------------------------------------------------------------------ */
typedef struct skf__set {
  uint32_t n;
  uint32_t j[SKF_MAX_INFLUENCES];
  uint32_t w[SKF_MAX_INFLUENCES]; /* the weights the set had last (its weight predictor) */
} skf__set;

/* A recent distinct vertex, kept in the output's own layout so a cache hit is two copies. */
typedef struct skf__rec {
  unsigned char cj[2 * SKF_MAX_INFLUENCES], cw[2 * SKF_MAX_INFLUENCES];
  uint32_t hp; /* history position of this content */
} skf__rec;

typedef struct skf__state {
  skf__set sets[SKF_MTF_SIZE];
  unsigned char mtf[SKF_MTF_SIZE];
  uint32_t mtf_len;
  skf__rec recs[SKF_VCACHE_SIZE];
  unsigned char ring[256]; /* the cache's move-to-front list, rank r at ring[(head + r) & 255] */
  uint32_t head, rlen;
} skf__state;

/* A new record enters the front of the vertex cache (evicting the last when full); returns its slot. */
static unsigned char skf__vc_push(skf__state* st) {
  unsigned char slot = st->rlen < SKF_VCACHE_SIZE ? (unsigned char)st->rlen++
                                                  : st->ring[(st->head + SKF_VCACHE_SIZE - 1u) & 255u];
  st->head = (st->head - 1u) & 255u;
  st->ring[st->head] = slot;
  return slot;
}
/* The record of rank r moves to the front; returns its slot. */
static unsigned char skf__vc_hit(skf__state* st, uint32_t r) {
  unsigned char slot = st->ring[(st->head + r) & 255u];
  for (; r > 0; --r) st->ring[(st->head + r) & 255u] = st->ring[(st->head + r - 1u) & 255u];
  st->ring[st->head] = slot;
  return slot;
}

/* One mesh's slice of the six streams. */
typedef struct skf__streams {
  const unsigned char *ops, *cnt, *cnt_end, *jnt, *jnt_end, *wgt, *wgt_end, *nwg, *nwg_end, *far, *far_end, *wld,
      *wld_end;
} skf__streams;

/* Next LEB128 number of a stream (7 bits per byte, low first, at most 5 bytes); 0 = ok. */
static int skf__leb(const unsigned char** p, const unsigned char* end, uint32_t* out) {
  uint32_t d = 0, sh = 0;
  for (;;) {
    uint32_t b;
    if (*p == end || sh > 28) return 1;
    b = *(*p)++;
    d |= (b & 0x7fu) << sh;
    sh += 7;
    if (!(b & 0x80u)) break;
  }
  *out = d;
  return 0;
}

static void skf__cell(const skf__set* s, uint32_t k, uint32_t jb, uint32_t wb, uint32_t wscale, unsigned char* cj,
                      unsigned char* cw) {
  uint32_t i;
  const uint16_t one = 1;
  unsigned char le;
  (void)k;
  memcpy(&le, &one, 1);
  if (jb == 1 && wb == 1 && le) {
    /* one 8-byte store each: later 8-byte loads of the cell forward from it (byte stores would stall them) */
    uint64_t jv = 0, wv = 0;
    for (i = 0; i < s->n; ++i) {
      jv |= (uint64_t)(s->j[i] & 0xffu) << (8 * i);
      wv |= (uint64_t)(s->w[i] & 0xffu) << (8 * i);
    }
    memcpy(cj, &jv, 8);
    memcpy(cw, &wv, 8);
    return;
  }
  memset(cj, 0, 2 * SKF_MAX_INFLUENCES); /* whole cells: fixed-size stores the compiler inlines */
  memset(cw, 0, 2 * SKF_MAX_INFLUENCES);
  if (jb == 1 && wb == 1) {
    for (i = 0; i < s->n; ++i) {
      cj[i] = (unsigned char)s->j[i];
      cw[i] = (unsigned char)s->w[i];
    }
    return;
  }
  for (i = 0; i < s->n; ++i) {
    uint32_t w = s->w[i] * wscale;
    if (jb == 1) {
      cj[i] = (unsigned char)s->j[i];
    } else {
      cj[2 * i] = (unsigned char)(s->j[i] & 0xffu);
      cj[2 * i + 1] = (unsigned char)(s->j[i] >> 8);
    }
    if (wb == 1) {
      cw[i] = (unsigned char)w;
    } else {
      cw[2 * i] = (unsigned char)(w & 0xffu);
      cw[2 * i + 1] = (unsigned char)(w >> 8);
    }
  }
}

/* Adds neighbour u's weights (read back from the output, where it was decoded) to the per-joint sums of set s. */
static void skf__gather(const skf__set* s, const unsigned char* uj, const unsigned char* uw, uint32_t k, uint32_t jb,
                        uint32_t wb, uint32_t wscale, uint32_t* sum, uint32_t* cnt) {
  uint32_t a = 0, i;
  /* both lists are ascending by joint: one merge pass; slots with weight 0 are padding */
  if (jb == 1 && wb == 1 && k == 4) {
    /* SWAR over the 4 slots: a byte of x is zero where the slot holds joint j; at most one slot matches (a
     * neighbour's joints are distinct), so the matching weight is the byte sum of the masked weights. Works in
     * either byte order. */
    uint32_t wj, ww, nz;
    memcpy(&wj, uj, 4);
    memcpy(&ww, uw, 4);
    nz = (((ww & 0x7f7f7f7fu) + 0x7f7f7f7fu) | ww) & 0x80808080u; /* slots with a weight */
    for (i = 0; i < s->n; ++i) {
      uint32_t x = wj ^ (s->j[i] * 0x01010101u);
      uint32_t hit = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x) & nz;
      uint32_t w = ww & ((hit >> 7) * 0xffu);
      sum[i] += (w * 0x01010101u) >> 24;
      cnt[i] += (hit | (hit >> 8) | (hit >> 16) | (hit >> 24)) >> 7 & 1u;
    }
    return;
  }
  if (jb == 1 && wb == 1) {
    /* branch-free: every (joint, slot) pair; a neighbour's joints are distinct, so at most one slot matches */
    for (i = 0; i < s->n; ++i) {
      uint32_t sw = 0, sc = 0, b;
      for (b = 0; b < k; ++b) {
        uint32_t hit = (uint32_t)(uj[b] == s->j[i]) & (uint32_t)(uw[b] != 0);
        sw += uw[b] & (0u - hit);
        sc += hit;
      }
      sum[i] += sw;
      cnt[i] += sc;
    }
    return;
  }
  for (i = 0; i < s->n && a < k; ++i) {
    for (; a < k; ++a) {
      uint32_t uja = jb == 1 ? uj[a] : skf__rd16(uj + 2 * a);
      uint32_t uwa = wb == 1 ? uw[a] : skf__rd16(uw + 2 * a);
      if (!uwa) {
        a = k;
        break;
      }
      if (uja >= s->j[i]) {
        if (uja == s->j[i]) {
          sum[i] += wscale == 1 ? uwa : uwa / 257u;
          ++cnt[i];
          ++a;
        }
        break;
      }
    }
  }
}

/* copies a cell: 8 bytes when the output's cells fit (u8 components), else 16 */
#define SKF__CELLCPY(dst, src)  \
  do {                          \
    if (cell8)                  \
      memcpy((dst), (src), 8);  \
    else                        \
      memcpy((dst), (src), 16); \
  } while (0)

/* Per-mesh scratch (bytes) of a mesh of vc vertices and ic indices: hist and hp; with a traversal (order 1 with
 * indices, order 2) the first appearances and their list; for order 2 first[] and the weld table. 0: too large
 * for this address space (or index positions that do not fit 32 bits). */
static size_t skf__mesh_scratch(size_t vc, size_t ic, int traversal, int welded) {
  size_t n = 8 * vc, tn = welded ? skf_weld_scratch_count(vc) : 0;
  if (vc > ((size_t)-1) / 64u || ic > ((size_t)-1) / 16u || ic >= 0xffffffffu || (welded && !tn)) return 0;
  if (traversal) n += 4 * vc + ic / 8 + 16;
  if (welded) n += 4 * vc + 4 * tn;
  return n + 16;
}

/* index of the lowest set bit of x != 0 */
static unsigned skf__ctz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctzll(x);
#else
  unsigned n = 0;
  while (!(x & 1u)) x >>= 1, ++n;
  return n;
#endif
}

/* Coding order over an index buffer (docs/skf.md section 3), with copies replaced by first[] when first is given:
 * fpos[v] = the first position of coded vertex v in it (0xffffffff: none), and bit i of bits (ceil(ic / 64) words)
 * set where a coded vertex appears first. A scan that tests and marks vertex by vertex mispredicts at every new
 * vertex, and remapping each index through first[] costs a random read per index; here each index costs one store
 * and the weld is applied per vertex (a copy's first position counts for the vertex it copies). */
static void skf__first_appearances(const uint32_t* ix, size_t ic, const uint32_t* first, size_t vc, uint32_t* fpos,
                                   uint64_t* bits) {
  size_t i, u;
  memset(fpos, 0xff, vc * sizeof *fpos);
  memset(bits, 0, (ic + 63) / 64 * sizeof *bits);
  for (i = ic; i-- > 0;) fpos[ix[i]] = (uint32_t)i;
  for (u = 0; first && u < vc; ++u) { /* a copy is no vertex's first[], so its own entry is final here */
    uint32_t a = fpos[u], b = fpos[first[u]];
    fpos[first[u]] = a < b ? a : b;
  }
  for (u = 0; u < vc; ++u) {
    uint32_t q = fpos[u];
    uint64_t take = (uint64_t)(q != 0xffffffffu) & (uint64_t)(!first || first[u] == u); /* no branch */
    q &= 0u - (uint32_t)take;
    bits[q >> 6] |= take << (q & 63);
  }
}

#if defined(__GNUC__) || defined(__clang__)
#define SKF__STEP static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define SKF__STEP static __forceinline
#else
#define SKF__STEP static inline
#endif

/* One mesh's decode (skf__decode_one and its steps, each inlined into its loop): the output, the index buffer the
 * coding order walks, the scratch and the history the loop builds. */
typedef struct skf__mdec {
  skf__streams* s;
  skf__state* st;
  unsigned char* jout;
  unsigned char* wout;
  const uint32_t* ix;    /* the index buffer (NULL: file order) */
  const uint32_t* remap; /* SKF_ORDER_WELDED: first[] - the welded index buffer is first[ix[]], read as it goes */
  uint32_t* hist;        /* vertices coded with weights, in coding order (SKF_OP_FAR refers back) */
  uint32_t* hp;          /* per decoded vertex: history position of its content */
  uint32_t* first;       /* SKF_ORDER_WELDED: per vertex, the vertex whose output it copies */
  uint32_t* table;       /* SKF_ORDER_WELDED: the weld table */
  uint32_t* fpos;        /* traversal: per vertex its first position in the (welded) index buffer */
  uint64_t* bits;        /* traversal: a bit per first appearance */
  size_t vc, ic, jstride, wstride;
  uint32_t wb, jb, total, wmask, k, ojb, owb, wscale, joint_count, max_influences, hist_len;
  int fast4, cell8;
} skf__mdec;

/* Where the traversal stands: the current word of first-appearance bits and the next unreferenced vertex. */
typedef struct skf__order_walk {
  uint64_t word;
  size_t wi, n_words, unref;
} skf__order_walk;

/* Entry c of the index buffer the coding order walks: for SKF_ORDER_WELDED with copies replaced (remap = first[]) */
#define SKF__IX(c) (d->remap ? (size_t)d->remap[d->ix[c]] : (size_t)d->ix[c])

/* Order 2: first[] from the positions, checked against the mesh record, and the exceptions of the weld stream coded
 * as vertices of their own. SKF_ERR_INVALID_ARGUMENT (err set) for positions that weld otherwise, SKF_ERR_FORMAT
 * with *why for a bad weld stream. */
SKF__STEP skf_result skf__weld(skf__mdec* d, const skf_mesh_info* mi, const float* positions, uint32_t m,
                               const char** why, skf_error* err) {
  size_t distinct, x, prev = 0, n_exc = mi->coded_count - mi->distinct_positions;
  uint32_t check = 0;
  distinct = skf_weld_positions(positions, d->vc, d->first, d->table, &check);
  if (distinct != mi->distinct_positions || check != mi->weld_check)
    return skf__fail(
        err, SKF_ERR_INVALID_ARGUMENT,
        "mesh %u: these positions weld differently (%zu distinct points, encoded with %u): not its positions", m,
        distinct, mi->distinct_positions);
  for (x = 0; x < n_exc; ++x) {
    uint32_t dd;
    size_t u;
    if (skf__leb(&d->s->wld, d->s->wld_end, &dd)) {
      *why = "weld stream ends early or holds a bad number";
      return SKF_ERR_FORMAT;
    }
    u = x == 0 ? (size_t)dd : prev + 1u + dd;
    if (u >= d->vc || d->first[u] == u) {
      *why = "weld stream lists a vertex that is no copy";
      return SKF_ERR_FORMAT;
    }
    d->first[u] = (uint32_t)u;
    prev = u;
  }
  return SKF_OK;
}

/* The next vertex of a traversal: first appearance in the index buffer (*i its position, *t its first triangle),
 * then the unreferenced ones (no copies). A corner u of v's first triangle was decoded before v exactly when
 * fpos[u] < i. NULL, or why the mesh is bad. */
SKF__STEP const char* skf__next_vertex(const skf__mdec* d, skf__order_walk* w, size_t* v, size_t* i, size_t* t) {
  while (!w->word && w->wi + 1 < w->n_words) w->word = d->bits[++w->wi];
  if (w->word) {
    *i = w->wi * 64 + skf__ctz64(w->word);
    w->word &= w->word - 1;
    *v = SKF__IX(*i);
    *t = *i - *i % 3;
    return NULL;
  }
  while (w->unref < d->vc && (d->fpos[w->unref] != 0xffffffffu || (d->remap && d->remap[w->unref] != w->unref)))
    ++w->unref;
  if (w->unref == d->vc) return "more coded vertices than the mesh has";
  *v = w->unref++;
  return NULL;
}

/* SKF_OP_FAR: the vertex at history position anchor + unzigzag(next far number), anchor being the history position
 * of the first decoded corner of the vertex's first triangle (the history length without one); it enters the cache. */
SKF__STEP const char* skf__op_far(skf__mdec* d, size_t i, size_t t, unsigned char* cj, unsigned char* cw,
                                  uint32_t* cur_hp) {
  const int cell8 = d->cell8;
  uint32_t dd = 0, slot, anchor = d->hist_len;
  uint64_t at;
  size_t u;
  if (skf__leb(&d->s->far, d->s->far_end, &dd)) return "far stream ends early or holds a bad number";
  if (t != (size_t)-1) {
    size_t c;
    for (c = t; c < t + 3 && c < d->ic; ++c)
      if (d->fpos[SKF__IX(c)] < i) {
        anchor = d->hp[SKF__IX(c)];
        break;
      }
  }
  at = (dd & 1u) ? (uint64_t)anchor - ((uint64_t)(dd >> 1) + 1u) : (uint64_t)anchor + (dd >> 1);
  if (at >= d->hist_len) return "far reference outside the history"; /* also catches anchor - x < 0 (wraps) */
  *cur_hp = (uint32_t)at;
  u = d->hist[*cur_hp];
  if (d->jstride == 4 && d->wstride == 4) {
    memcpy(cj, d->jout + u * 4, 4);
    memcpy(cw, d->wout + u * 4, 4);
  } else {
    memcpy(cj, d->jout + u * d->jstride, d->jstride);
    memcpy(cw, d->wout + u * d->wstride, d->wstride);
  }
  slot = skf__vc_push(d->st);
  SKF__CELLCPY(d->st->recs[slot].cj, cj);
  SKF__CELLCPY(d->st->recs[slot].cw, cw);
  d->st->recs[slot].hp = *cur_hp;
  return NULL;
}

/* SKF_OP_NEW_SET: n from the counts stream and n ascending joint ids (delta coded); the set enters the front of the
 * set list, its remembered weights 0. */
SKF__STEP const char* skf__new_set(const skf__mdec* d, skf__set** out) {
  skf__streams* s = d->s;
  skf__state* st = d->st;
  skf__set* set;
  uint32_t n, a, slot, prevj = 0;
  if (s->cnt == s->cnt_end) return "count stream ends early";
  n = *s->cnt++;
  if (n > d->max_influences) return "vertex with more influences than its mesh allows";
  if ((size_t)(s->jnt_end - s->jnt) < (size_t)n * d->jb) return "joint stream ends early";
  slot = st->mtf_len < SKF_MTF_SIZE ? st->mtf_len++ : st->mtf[SKF_MTF_SIZE - 1];
  memmove(st->mtf + 1, st->mtf, st->mtf_len - 1);
  st->mtf[0] = (unsigned char)slot;
  set = &st->sets[slot];
  set->n = 0;
  for (a = 0; a < n; ++a) {
    uint32_t dj = d->jb == 1 ? s->jnt[0] : skf__rd16(s->jnt);
    uint32_t j = a == 0 ? dj : prevj + 1u + dj;
    s->jnt += d->jb;
    if (j >= d->joint_count) return "joint id past the joint table";
    set->j[a] = prevj = j;
    set->w[a] = 0;
  }
  set->n = n;
  *out = set;
  return NULL;
}

/* Ops 1..62: set op - 1 of the set list moves to the front. */
SKF__STEP const char* skf__listed_set(skf__state* st, uint32_t op, skf__set** out) {
  uint32_t r = op - 1u;
  unsigned char slot;
  if (r >= st->mtf_len) return "joint set reference past the set list";
  slot = st->mtf[r];
  for (; r > 0; --r) st->mtf[r] = st->mtf[r - 1u]; /* usually rank 0 or 1 */
  st->mtf[0] = slot;
  *out = &st->sets[slot];
  return NULL;
}

/* The weight predictor for u8 x 4 output: the triangle's two other corners as words, SWAR match per joint (see
 * skf__gather). An entry that is not decoded before v (or past the index buffer, or v again) reads v's own slot and
 * is masked to nothing, without a branch. Returns whether a corner has a joint of the set; *imp = the implied one. */
SKF__STEP uint32_t skf__predict4(const skf__mdec* d, const skf__set* set, size_t v, size_t i, size_t t, uint32_t* pred,
                                 uint32_t* imp) {
  uint32_t wj[2], ww[2], nzm[2], q, a, nb = 0, im = 0;
  const uint32_t n = set->n; /* locals: the stores to pred[] could otherwise alias them */
  const size_t ce[2] = {t + (i == t), t + 2 - (i == t + 2)};
  for (q = 0; q < 2; ++q) {
    size_t u = ce[q] < d->ic ? SKF__IX(ce[q]) : v;
    uint32_t keep = 0u - (uint32_t)(d->fpos[u] < i);
    memcpy(&wj[q], d->jout + u * 4, 4);
    memcpy(&ww[q], d->wout + u * 4, 4);
    wj[q] &= keep;
    ww[q] &= keep;
    nzm[q] = (((ww[q] & 0x7f7f7f7fu) + 0x7f7f7f7fu) | ww[q]) & 0x80808080u;
  }
  for (a = 0; a < n; ++a) {
    uint32_t jj = set->j[a] * 0x01010101u, x0 = wj[0] ^ jj, x1 = wj[1] ^ jj;
    uint32_t h0 = ~(((x0 & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x0) & nzm[0];
    uint32_t h1 = ~(((x1 & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x1) & nzm[1];
    uint32_t s0 = ((ww[0] & ((h0 >> 7) * 0xffu)) * 0x01010101u) >> 24;
    uint32_t s1 = ((ww[1] & ((h1 >> 7) * 0xffu)) * 0x01010101u) >> 24;
    uint32_t c0 = h0 != 0, c1 = h1 != 0;
    /* (c0 & c1) ? mean : (c0 | c1) ? the one : the set's own, by masks (a branch here mispredicts) */
    uint32_t m2 = 0u - (c0 & c1), m1 = 0u - (c0 ^ c1);
    pred[a] = (((s0 + s1 + 1u) >> 1) & m2) | ((s0 + s1) & m1) | (set->w[a] & ~(m2 | m1));
    nb |= c0 | c1;
    if (pred[a] > pred[im]) im = a;
  }
  *imp = im;
  return nb;
}

/* The weight predictor for any output layout: per joint, the mean weight among the decoded corners of the first
 * triangle (t, or none) that have it, else the set's last weight. Returns and sets as skf__predict4. */
SKF__STEP uint32_t skf__predict(const skf__mdec* d, const skf__set* set, size_t i, size_t t, uint32_t* pred,
                                uint32_t* imp) {
  uint32_t ps[SKF_MAX_INFLUENCES], pc[SKF_MAX_INFLUENCES], a, nb = 0, im = 0;
  const uint32_t n = set->n;
  for (a = 0; a < n; ++a) ps[a] = pc[a] = 0;
  if (t != (size_t)-1) {
    size_t c;
    for (c = t; c < t + 3 && c < d->ic; ++c) {
      size_t u = SKF__IX(c);
      if (d->fpos[u] >= i) continue; /* not decoded before v (or v itself) */
      skf__gather(set, d->jout + u * d->jstride, d->wout + u * d->wstride, d->k, d->ojb, d->owb, d->wscale, ps, pc);
    }
  }
  for (a = 0; a < n; ++a) {
    /* at most two corners: the mean rounded half up */
    pred[a] = pc[a] == 2 ? (ps[a] + 1u) >> 1 : pc[a] ? ps[a] : set->w[a];
    nb |= pc[a];
    if (pred[a] > pred[im]) im = a;
  }
  *imp = im;
  return nb;
}

/* The set's new weights: each but the implied one a zigzag residual from its prediction (from nweights when a corner
 * had a joint of the set, else weights), the implied one the total less the others. */
SKF__STEP const char* skf__weights(const skf__mdec* d, skf__set* set, const uint32_t* pred, uint32_t imp, uint32_t nb) {
  const unsigned char** wp = nb ? &d->s->nwg : &d->s->wgt;
  const unsigned char* wend = nb ? d->s->nwg_end : d->s->wgt_end;
  uint32_t a, sum = 0, bad = 0, n = set->n, wb = d->wb;
  if ((size_t)(wend - *wp) < (size_t)(n - 1) * wb) return "weight stream ends early";
  for (a = 0; a < n; ++a) {
    uint32_t z, dw, w;
    if (a == imp) continue;
    z = wb == 1 ? (*wp)[0] : skf__rd16(*wp);
    *wp += wb;
    dw = (z >> 1) ^ (0u - (z & 1u));
    w = (pred[a] + dw) & d->wmask;
    set->w[a] = w;
    sum += w;
    bad |= w == 0;
  }
  if (bad || sum >= d->total) return "weights of a vertex are zero or exceed the total";
  set->w[imp] = d->total - sum;
  return NULL;
}

/* Ops 1..62 and SKF_OP_NEW_SET: a joint set with new weights; the vertex enters the front of the recent-vertex cache
 * and the history. */
SKF__STEP const char* skf__op_set(skf__mdec* d, uint32_t op, size_t v, size_t i, size_t t, unsigned char* cj,
                                  unsigned char* cw, uint32_t* cur_hp) {
  const int cell8 = d->cell8;
  skf__set* set = NULL;
  uint32_t slot;
  const char* why = op == SKF_OP_NEW_SET ? skf__new_set(d, &set) : skf__listed_set(d->st, op, &set);
  if (why) return why;
  if (set->n) {
    uint32_t pred[SKF_MAX_INFLUENCES], imp = 0;
    uint32_t nb = t != (size_t)-1 && d->fast4 ? skf__predict4(d, set, v, i, t, pred, &imp)
                                              : skf__predict(d, set, i, t, pred, &imp);
    if ((why = skf__weights(d, set, pred, imp, nb)) != NULL) return why;
  }
  skf__cell(set, d->k, d->ojb, d->owb, d->wscale, cj, cw);
  slot = skf__vc_push(d->st);
  SKF__CELLCPY(d->st->recs[slot].cj, cj);
  SKF__CELLCPY(d->st->recs[slot].cw, cw);
  d->st->recs[slot].hp = *cur_hp = d->hist_len;
  d->hist[d->hist_len++] = (uint32_t)v;
  return NULL;
}

/* One coded vertex v by its op; cj / cw hold the previous vertex's cell (what SKF_OP_REPEAT keeps). */
SKF__STEP const char* skf__vertex(skf__mdec* d, uint32_t op, size_t v, size_t i, size_t t, unsigned char* cj,
                                  unsigned char* cw, uint32_t* cur_hp) {
  const int cell8 = d->cell8;
  if (op == SKF_OP_REPEAT) return d->st->rlen ? NULL : "first vertex repeats nothing";
  if (op == SKF_OP_FAR) return skf__op_far(d, i, t, cj, cw, cur_hp);
  if (op >= SKF_OP_VCACHE && op != SKF_OP_NEW_SET) {
    uint32_t r = op - SKF_OP_VCACHE;
    unsigned char slot;
    if (r >= d->st->rlen) return "vertex reference past the cache";
    slot = skf__vc_hit(d->st, r);
    SKF__CELLCPY(cj, d->st->recs[slot].cj);
    SKF__CELLCPY(cw, d->st->recs[slot].cw);
    *cur_hp = d->st->recs[slot].hp;
    return NULL;
  }
  return skf__op_set(d, op, v, i, t, cj, cw, cur_hp);
}

/* Every copy takes the output of the vertex it copies (coded: it is no copy itself). */
SKF__STEP void skf__copy_welded(const skf__mdec* d) {
  size_t u;
  if (d->jstride == 4 && d->wstride == 4) {
    for (u = 0; u < d->vc; ++u) { /* coded vertices copy themselves: no branch on the copy pattern */
      uint32_t x, y;
      memcpy(&x, d->jout + (size_t)d->first[u] * 4, 4);
      memcpy(&y, d->wout + (size_t)d->first[u] * 4, 4);
      memcpy(d->jout + u * 4, &x, 4);
      memcpy(d->wout + u * 4, &y, 4);
    }
  } else {
    for (u = 0; u < d->vc; ++u)
      if (d->first[u] != u) {
        memcpy(d->jout + u * d->jstride, d->jout + (size_t)d->first[u] * d->jstride, d->jstride);
        memcpy(d->wout + u * d->wstride, d->wout + (size_t)d->first[u] * d->wstride, d->wstride);
      }
  }
}

/* The decode's view of mesh m: layouts, output, index buffer, and the scratch mem (skf__mesh_scratch bytes) cut into
 * its arrays. */
SKF__STEP void skf__mdec_init(skf__mdec* d, const skf__file* f, const skf_mesh_info* mi, skf__streams* s,
                              const skf_mesh_output* o, skf__state* st, unsigned char* mem) {
  const int welded = mi->order == SKF_ORDER_WELDED;
  memset(d, 0, sizeof *d);
  d->s = s;
  d->st = st;
  d->wb = f->info.weight_bits == 16 ? 2u : 1u;
  d->jb = f->info.joint_bits == 16 ? 2u : 1u;
  d->total = d->wb == 2 ? 65535u : 255u;
  d->wmask = d->wb == 2 ? 0xffffu : 0xffu;
  d->k = o->influences;
  d->ojb = o->joint_bytes;
  d->owb = o->weight_bytes;
  d->wscale = (d->owb == 2 && d->wb == 1) ? 257u : 1u;
  d->jstride = (size_t)d->k * d->ojb;
  d->wstride = (size_t)d->k * d->owb;
  d->vc = (size_t)mi->vertex_count;
  d->fast4 = d->ojb == 1 && d->owb == 1 && d->k == 4;
  d->cell8 = d->ojb == 1 && d->owb == 1;
  d->joint_count = f->info.joint_count;
  d->max_influences = mi->max_influences;
  d->jout = (unsigned char*)o->joints;
  d->wout = (unsigned char*)o->weights;
  d->ix = mi->order != SKF_ORDER_FILE && mi->index_count ? o->indices : NULL;
  d->ic = d->ix ? o->index_count : 0;
  d->hist = (uint32_t*)(void*)mem; /* (mem is the scratch block: malloc-aligned) */
  d->hp = d->hist + d->vc;
  d->first = d->hp + d->vc;
  d->table = d->first + (welded ? d->vc : 0);
  d->remap = welded ? d->first : NULL;
  d->fpos = d->table + (welded ? skf_weld_scratch_count(d->vc) : 0);
  d->bits = (uint64_t*)(((uintptr_t)(d->fpos + d->vc) + 7u) & ~(uintptr_t)7u); /* 8-byte aligned */
}

/* Decodes one mesh (docs/skf.md section 3) into its output. mem: skf__mesh_scratch bytes. */
static skf_result skf__decode_one(const skf__file* f, uint32_t m, const skf_mesh_info* mi, skf__streams* s,
                                  const skf_mesh_output* o, skf__state* st, unsigned char* mem, skf_error* err) {
  skf__mdec dm, *d = &dm;
  skf__order_walk w = {0, 0, 0, 0};
  const int welded = mi->order == SKF_ORDER_WELDED;
  int traversal, cells4;
  size_t done = 0;
  unsigned char cj[2 * SKF_MAX_INFLUENCES], cw[2 * SKF_MAX_INFLUENCES];
  uint32_t cur_hp = 0;
  const unsigned char* ops = s->ops;
  const char* why = NULL;
  skf__mdec_init(d, f, mi, s, o, st, mem);
  traversal = d->ix || welded;
  cells4 = d->jstride == 4 && d->wstride == 4;
  st->mtf_len = 0;
  st->rlen = 0;
  st->head = 0;
  if (welded && d->vc) {
    skf_result rc = skf__weld(d, mi, o->positions, m, &why, err);
    if (rc == SKF_ERR_FORMAT) goto bad;
    if (rc) return rc;
  }
  if (traversal) {
    w.n_words = (d->ic + 63) / 64;
    skf__first_appearances(d->ix, d->ic, d->remap, d->vc, d->fpos, d->bits);
    w.word = w.n_words ? d->bits[0] : 0;
  }
  for (done = 0; done < mi->coded_count; ++done) {
    size_t v = done, t = (size_t)-1, i = 0;
    if (traversal && (why = skf__next_vertex(d, &w, &v, &i, &t)) != NULL) goto bad;
    if ((why = skf__vertex(d, *ops++, v, i, t, cj, cw, &cur_hp)) != NULL) goto bad;
    d->hp[v] = cur_hp;
    if (cells4) {
      memcpy(d->jout + v * 4, cj, 4);
      memcpy(d->wout + v * 4, cw, 4);
    } else {
      memcpy(d->jout + v * d->jstride, cj, d->jstride);
      memcpy(d->wout + v * d->wstride, cw, d->wstride);
    }
  }
  if (welded) skf__copy_welded(d);
  s->ops = ops;
  return SKF_OK;
bad:
  return skf__fail(err, SKF_ERR_FORMAT, "mesh %u, vertex %zu: %s", m, done, why);
}
#undef SKF__CELLCPY
#undef SKF__IX
#undef SKF__STEP

struct skf_decoder {
  skf__state st;
  z_stream zs;
  int zs_ready;
  unsigned char *raw, *tab, *mem; /* inflated INFL chunk, mesh table, per-mesh scratch (skf__mesh_scratch) */
  unsigned char* cor;              /* inflated CORC chunk (only when centres are asked for) */
  size_t raw_cap, tab_cap, mem_cap, cor_cap;
};

SKF_API skf_decoder* skf_decoder_create(void) {
  skf_decoder* d = (skf_decoder*)SKF_MALLOC(sizeof *d);
  if (d) memset(d, 0, sizeof *d);
  return d;
}

SKF_API void skf_decoder_destroy(skf_decoder* d) {
  if (!d) return;
  if (d->zs_ready) inflateEnd(&d->zs);
  SKF_FREE(d->raw);
  SKF_FREE(d->tab);
  SKF_FREE(d->mem);
  SKF_FREE(d->cor);
  SKF_FREE(d);
}

SKF_API size_t skf_decoder_scratch_bytes(const skf_decoder* d) {
  return d ? sizeof *d + d->raw_cap + d->tab_cap + d->mem_cap + d->cor_cap : 0;
}

static size_t skf__fast_scratch(size_t vc, size_t r);

SKF_API skf_result skf_decoder_reserve(skf_decoder* d, size_t max_vertices, size_t max_indices, skf_error* err) {
  size_t n = skf__mesh_scratch(max_vertices, max_indices, 1, 1), nf = skf__fast_scratch(max_vertices, 32u);
  if (nf > n || !nf) n = nf; /* the speed profile's rows (up to 32 bytes per vertex) */
  if (!d) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "decoder is NULL");
  if (!n || skf__grow(&d->mem, &d->mem_cap, n))
    return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for the scratch of %zu vertices", max_vertices);
  return SKF_OK;
}

static skf_result skf__fast_group(skf_decoder* dec, const skf__file* f, const unsigned char* table, uint32_t group,
                                  const skf_mesh_output* outs, uint32_t outs_base, uint32_t outs_count,
                                  skf_error* err);

static float skf__rdf32(const unsigned char* p) {
  uint32_t u = skf__rd32(p);
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/* Next centre of the CORC planes (entry i of n) into c: zigzag delta of each 16-bit grid index, low and high byte. */
static void skf__center_at(const unsigned char* pl, size_t n, size_t i, uint32_t q[3], const float org[3],
                           const float step[3], float* c) {
  int a;
  for (a = 0; a < 3; ++a) {
    uint32_t z = (uint32_t)pl[(size_t)(2 * a) * n + i] | ((uint32_t)pl[(size_t)(2 * a + 1) * n + i] << 8);
    q[a] = (q[a] + ((z >> 1) ^ (0u - (z & 1u)))) & 0xffffu;
    c[a] = org[a] + step[a] * (float)q[a];
  }
}

/* Centres of rotation of mesh m (docs/skf.md 3.2): the m-th CORC chunk holds one quantized centre per coded vertex
 * in the mesh's coding order (section 3: first appearance in the index buffer, welded through first[], then the
 * other coded vertices in increasing index); a copy (first[v] != v) takes its first's centre. ix: the checked index
 * buffer when the record has an index_count, else NULL. The chunk's size is checked against the mesh record before
 * anything is allocated; the scratch is the chunk plus a byte per vertex. */
static skf_result skf__centers(skf_decoder* dec, const skf__file* f, uint32_t m, const skf_mesh_info* mi,
                               const uint32_t* ix, const uint32_t* first, float* out, skf_error* err) {
  skf__chunk c;
  const size_t vc = (size_t)mi->vertex_count, n = mi->coded_count, ic = ix ? (size_t)mi->index_count : 0;
  const unsigned char* pl;
  unsigned char* seen;
  float org[3], step[3];
  uint32_t q[3] = {0, 0, 0};
  size_t v, i = 0;
  int a;
  skf_result rc;
  if (f->corc_count != f->info.mesh_count)
    return skf__fail(err, SKF_ERR_FORMAT, "%u CORC chunks for %u meshes (one per mesh)", f->corc_count,
                     f->info.mesh_count);
  if ((rc = skf__walk(f, "CORC", m, &c, NULL, err))) return rc;
  if ((uint64_t)c.raw_size != SKF_CORC_HEAD_SIZE + 6u * (uint64_t)n)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: a CORC chunk of %u raw bytes does not hold %zu centres", m,
                     c.raw_size, n);
  if (skf__grow(&dec->cor, &dec->cor_cap, (size_t)c.raw_size + vc))
    return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for %u bytes of centres", c.raw_size);
  if ((rc = skf__inflate_into(&dec->zs, &dec->zs_ready, &c, dec->cor, err))) return rc;
  if (skf__rd32(dec->cor) != m || skf__rd32(dec->cor + 4) != n)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: its CORC chunk is for mesh %u with %u centres", m,
                     skf__rd32(dec->cor), skf__rd32(dec->cor + 4));
  for (a = 0; a < 3; ++a) {
    org[a] = skf__rdf32(dec->cor + 8 + 4 * a);
    step[a] = skf__rdf32(dec->cor + 20 + 4 * a);
    if (!(org[a] - org[a] == 0.0f) || !(step[a] >= 0.0f && step[a] - step[a] == 0.0f)) /* NaN / Inf / negative */
      return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: centre origin or step is not finite", m);
  }
  pl = dec->cor + SKF_CORC_HEAD_SIZE;
  seen = dec->cor + c.raw_size;
  memset(seen, 0, vc);
  for (v = 0; v < ic; ++v) { /* first appearances (a copy's index names the vertex it copies) */
    size_t u = first ? (size_t)first[ix[v]] : (size_t)ix[v];
    if (seen[u]) continue;
    seen[u] = 1;
    if (i == n) return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: more coded vertices than centres", m);
    skf__center_at(pl, n, i++, q, org, step, out + 3 * u);
  }
  for (v = 0; v < vc; ++v) {
    if (seen[v] || (first && first[v] != v)) continue;
    if (i == n) return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: more coded vertices than centres", m);
    skf__center_at(pl, n, i++, q, org, step, out + 3 * v);
  }
  if (i != n) return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: fewer coded vertices than centres", m);
  for (v = 0; first && v < vc; ++v) /* first[v] < v: already written */
    if (first[v] != v) memcpy(out + 3 * v, out + 3 * (size_t)first[v], 3 * sizeof *out);
  return SKF_OK;
}

/* The meshes of INFL chunk `group` in the mesh table: the first, how many, their vertices and coded vertices, and
 * how many of them have an output (outs[m - outs_base] with joints != NULL). */
typedef struct skf__group {
  uint32_t first, count, wanted;
  uint64_t vsum, csum;
} skf__group;

static void skf__group_meshes(const skf__file* f, const unsigned char* table, uint32_t group,
                              const skf_mesh_output* outs, uint32_t outs_base, uint32_t outs_count, skf__group* g) {
  uint32_t m;
  memset(g, 0, sizeof *g);
  for (m = 0; m < f->info.mesh_count; ++m) {
    skf_mesh_info mi;
    skf__mesh_record(table, m, &mi);
    if (mi.group != group) continue;
    if (!g->count) g->first = m;
    ++g->count;
    g->vsum += mi.vertex_count;
    g->csum += mi.coded_count;
    if (m >= outs_base && m - outs_base < outs_count && outs[m - outs_base].joints) ++g->wanted;
  }
}

/* The group's INFL chunk inflated into dec->raw and checked against the mesh table (its mesh range, its size against
 * the vertices it can hold, the streams' lengths summed against its size); *s = the start of each of the seven
 * streams (the coded vertices' ops, then the six streams of skf__streams). */
static skf_result skf__group_streams(skf_decoder* dec, const skf__file* f, uint32_t group, const skf__group* g,
                                     skf__streams* s, skf_error* err) {
  skf__chunk c;
  unsigned char* raw;
  uint32_t m, q, wb = f->info.weight_bits == 16 ? 2u : 1u, jb = f->info.joint_bits == 16 ? 2u : 1u;
  uint64_t bound, tsize, lens[6] = {0, 0, 0, 0, 0, 0};
  skf_result rc;
  if ((rc = skf__walk(f, "INFL", group, &c, NULL, err))) return rc;
  if (g->vsum > UINT32_MAX)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: more than 2^32-1 vertices", group);
  /* per vertex at most: op, count, 8 joints, 7 weights, and a far or weld number */
  tsize = SKF_INFL_TABLE_SIZE + (uint64_t)SKF_INFL_MESH_SIZE * g->count;
  bound = tsize + g->vsum * (2u + SKF_MAX_INFLUENCES * jb + (SKF_MAX_INFLUENCES - 1u) * wb + 10u);
  if (c.raw_size < tsize || c.raw_size > bound)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: %u raw bytes cannot hold %u meshes of %llu vertices",
                     group, c.raw_size, g->count, (unsigned long long)g->vsum);
  if (skf__grow(&dec->raw, &dec->raw_cap, c.raw_size))
    return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for %u bytes of influence chunk %u", c.raw_size, group);
  raw = dec->raw;
  if ((rc = skf__inflate_into(&dec->zs, &dec->zs_ready, &c, raw, err))) return rc;
  if (skf__rd32(raw) != g->first || skf__rd32(raw + 4) != g->count)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: mesh range disagrees with the mesh table", group);
  for (m = 0; m < g->count; ++m)
    for (q = 0; q < 6; ++q) lens[q] += skf__rd32(raw + SKF_INFL_TABLE_SIZE + (size_t)SKF_INFL_MESH_SIZE * m + 4u * q);
  if (tsize + g->csum + lens[0] + lens[1] + lens[2] + lens[3] + lens[4] + lens[5] != c.raw_size)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: stream lengths disagree with its size", group);
  s->ops = raw + tsize;
  s->cnt = s->ops + g->csum;
  s->jnt = s->cnt + lens[0];
  s->wgt = s->jnt + lens[1];
  s->nwg = s->wgt + lens[2];
  s->far = s->nwg + lens[3];
  s->wld = s->far + lens[4];
  return SKF_OK;
}

/* Mesh m (table record mi) decoded into output o from its slice of the streams, and its centres when o asks for
 * them; every stream of the slice must be used up. */
static skf_result skf__group_mesh(skf_decoder* dec, const skf__file* f, uint32_t m, const skf_mesh_info* mi,
                                  skf__streams* s, const skf_mesh_output* o, skf_error* err) {
  /* vertex_count <= the caller's vertex_capacity and index_count = the caller's (checked): the scratch is bounded by
   * the caller's own buffers */
  const int indexed = mi->order != SKF_ORDER_FILE && mi->index_count, welded = mi->order == SKF_ORDER_WELDED;
  size_t need = skf__mesh_scratch((size_t)mi->vertex_count, indexed ? o->index_count : 0, indexed || welded, welded);
  skf_result rc;
  if (!need || skf__grow(&dec->mem, &dec->mem_cap, need))
    return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for the traversal of mesh %u", m);
  if ((rc = skf__decode_one(f, m, mi, s, o, &dec->st, dec->mem, err))) return rc;
  if (o->centers) { /* skf__decode_one keeps first[] after hist and hp in the scratch */
    const uint32_t* fm = (const uint32_t*)(void*)dec->mem + 2u * (size_t)mi->vertex_count;
    if ((rc = skf__centers(dec, f, m, mi, indexed ? o->indices : NULL, welded ? fm : NULL, o->centers, err))) return rc;
  }
  if (s->cnt != s->cnt_end || s->jnt != s->jnt_end || s->wgt != s->wgt_end || s->nwg != s->nwg_end ||
      s->far != s->far_end || s->wld != s->wld_end)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh %u leaves unused stream bytes", m);
  return SKF_OK;
}

/* Decodes the meshes of one INFL chunk that have an output (outs[m - outs_base] with joints != NULL). */
static skf_result skf__decode_group(skf_decoder* dec, const skf__file* f, const unsigned char* table, uint32_t group,
                                    const skf_mesh_output* outs, uint32_t outs_base, uint32_t outs_count,
                                    skf_error* err) {
  skf__group g;
  skf__streams s;
  uint32_t m, pos;
  skf_result rc = SKF_OK;
  if (f->info.flags & SKF_FLAG_FAST) return skf__fast_group(dec, f, table, group, outs, outs_base, outs_count, err);
  skf__group_meshes(f, table, group, outs, outs_base, outs_count, &g);
  if (!g.wanted) return SKF_OK;
  if ((rc = skf__group_streams(dec, f, group, &g, &s, err))) return rc;
  for (m = g.first, pos = 0; !rc && m < g.first + g.count; ++m, ++pos) {
    skf_mesh_info mi;
    const skf_mesh_output* o = (m >= outs_base && m - outs_base < outs_count) ? &outs[m - outs_base] : NULL;
    const unsigned char* row = dec->raw + SKF_INFL_TABLE_SIZE + (size_t)SKF_INFL_MESH_SIZE * pos;
    skf__mesh_record(table, m, &mi);
    s.cnt_end = s.cnt + skf__rd32(row);
    s.jnt_end = s.jnt + skf__rd32(row + 4);
    s.wgt_end = s.wgt + skf__rd32(row + 8);
    s.nwg_end = s.nwg + skf__rd32(row + 12);
    s.far_end = s.far + skf__rd32(row + 16);
    s.wld_end = s.wld + skf__rd32(row + 20);
    if (o && o->joints)
      rc = skf__group_mesh(dec, f, m, &mi, &s, o, err);
    else
      s.ops += mi.coded_count;
    s.cnt = s.cnt_end;
    s.jnt = s.jnt_end;
    s.wgt = s.wgt_end;
    s.nwg = s.nwg_end;
    s.far = s.far_end;
    s.wld = s.wld_end;
  }
  return rc;
}

/* ---- speed profile (SKF_FLAG_FAST, docs/skf.md section 3.1) ------------------------------------------------ */
/* Scratch of a speed-profile mesh of vc vertices with rows of r bytes: literal rows (with a group of slack) and
 * the source row of each vertex. 0: too large. */
static size_t skf__fast_scratch(size_t vc, size_t r) {
  if (vc > ((size_t)-1) / 128u - SKF_FAST_GROUP) return 0;
  return (vc + SKF_FAST_GROUP) * r * 3 + 4 * vc + 16; /* rows, stored joint parts, src, planes (SSE2) */
}

/* ops with value 3 (a literal) among the first n 2-bit ops */
static size_t skf__fast_literals(const unsigned char* ops, size_t n) {
  size_t i, c = 0, full = n / 4;
  for (i = 0; i + 8 <= full; i += 8) {
    uint64_t x;
    memcpy(&x, ops + i, 8);
    x = x & (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    c += (size_t)((x * 0x0101010101010101ull) >> 56);
  }
  for (i *= 4; i < n; ++i) c += ((ops[i >> 2] >> ((i & 3u) * 2u)) & 3u) == 3u;
  return c;
}

/* A group of 16 byte deltas with width code w: 0 = all 0; 1 = 4 bytes, delta t is bits 2(t/4).. of byte t%4,
 * minus 1; 2 = 8 bytes, delta t is bits 4(t/8).. of byte t%8, minus 7; 3 = 16 raw bytes. At widths 1 and 2 the
 * largest code (3, 15) is an escape: the delta is the next byte after the group's packed bytes, in order. Values
 * are the running sum mod 256 from the previous group's last (0 at the start of a plane). */
#define SKF__LO7 0x7f7f7f7f7f7f7f7full
#define SKF__B1 0x0101010101010101ull
static uint64_t skf__addb(uint64_t a, uint64_t b) { return ((a & SKF__LO7) + (b & SKF__LO7)) ^ ((a ^ b) & ~SKF__LO7); }
/* bytes of x equal to c get their high bit set (exact, no borrow between bytes) */
static uint64_t skf__eqb(uint64_t x, unsigned c) {
  uint64_t y = x ^ (c * SKF__B1);
  return ~(((y & SKF__LO7) + SKF__LO7) | y | SKF__LO7);
}
/* running byte sums of 8 deltas, from carry-in byte c */
static uint64_t skf__scanb(uint64_t x, unsigned c) {
  x = skf__addb(x, x << 8);
  x = skf__addb(x, x << 16);
  x = skf__addb(x, x << 32);
  return skf__addb(x, c * SKF__B1);
}

/* index of the lowest set bit of x != 0 */
static unsigned skf__ctz(unsigned x) {
#if defined(__GNUC__) || defined(__clang__)
  return (unsigned)__builtin_ctz(x);
#else
  unsigned n = 0;
  while (!(x & 1u)) x >>= 1, ++n;
  return n;
#endif
}

/* Bytes 0..7 of c0 and of c1 (little-endian words) to d[0], d[r], ... d[15 r]: byte planes go straight into rows. */
static void skf__put16(unsigned char* d, size_t r, uint64_t c0, uint64_t c1) {
  unsigned t;
  for (t = 0; t < 8; ++t) {
    d[t * r] = (unsigned char)(c0 >> (8 * t));
    d[(t + 8) * r] = (unsigned char)(c1 >> (8 * t));
  }
}

/* Codes of a group (width 1 or 2) as two little-endian words of 8 bytes each. */
static void skf__fast_codes(const unsigned char* p, unsigned w, uint64_t* c0, uint64_t* c1) {
  if (w == 1) {
    uint32_t x = skf__rd32(p);
    uint64_t lo = x & 0x03030303u, a = (x >> 2) & 0x03030303u, b = (x >> 4) & 0x03030303u, c = (x >> 6) & 0x03030303u;
    *c0 = lo | a << 32;
    *c1 = b | c << 32;
  } else {
    uint64_t x = skf__rd64(p);
    *c0 = x & 0x0f0f0f0f0f0f0f0full;
    *c1 = (x >> 4) & 0x0f0f0f0f0f0f0f0full;
  }
}

/* One group (w 1..3) at p to d[0..15]; *prev carries the running value. Returns the bytes it took, 0 if they run
 * past end. SWAR on little-endian words: no branch per value; escapes (rare) are patched one by one. */
static size_t skf__fast_grp(const unsigned char* p, const unsigned char* end, unsigned w, unsigned* prev,
                            unsigned char* d, size_t r) {
  const size_t bytes = w == 1 ? 4u : w == 2 ? 8u : 16u;
  uint64_t c0, c1;
  size_t e = 0;
  unsigned mask;
  if ((size_t)(end - p) < bytes) return 0;
  if (w == 3) {
    c0 = skf__rd64(p);
    c1 = skf__rd64(p + 8);
  } else {
    const unsigned lim = w == 1 ? 3u : 15u, bias = w == 1 ? 1u : 7u;
    skf__fast_codes(p, w, &c0, &c1);
    /* escapes: a 16-bit mask of their positions, patched one by one (no branch per value) */
    mask = (unsigned)(((skf__eqb(c0, lim) >> 7) * 0x0102040810204080ull) >> 56) |
           (unsigned)(((skf__eqb(c1, lim) >> 7) * 0x0102040810204080ull) >> 56) << 8;
    while (mask) {
      unsigned t = skf__ctz(mask), x;
      if (p + bytes + e >= end) return 0;
      x = ((unsigned)p[bytes + e++] + bias) & 0xffu; /* the bias is taken off below */
      if (t < 8)
        c0 ^= (uint64_t)(x ^ lim) << (8 * t);
      else
        c1 ^= (uint64_t)(x ^ lim) << (8 * (t - 8));
      mask &= mask - 1u;
    }
    c0 = skf__addb(c0, (256u - bias) * SKF__B1);
    c1 = skf__addb(c1, (256u - bias) * SKF__B1);
  }
  c0 = skf__scanb(c0, *prev);
  c1 = skf__scanb(c1, (unsigned)(c0 >> 56));
  *prev = (unsigned)(c1 >> 56);
  skf__put16(d, r, c0, c1);
  return bytes + e;
}

/* The same without a branch on the width: every width is unpacked and one is kept by masks, and up to
 * SKF_FAST_ESCAPES escapes are patched without a branch (more take a loop; skinkit's encoder writes no more). The
 * caller guarantees 16 + SKF_FAST_ESCAPES readable bytes at p. */
static size_t skf__fast_grp_nb(const unsigned char* p, const unsigned char* end, unsigned w, unsigned* prev,
                               unsigned char* d, size_t r) {
  static const unsigned char k_bytes[4] = {0, 4, 8, 16}, k_bias[4] = {0, 1, 7, 0}, k_lim[4] = {0, 3, 15, 0};
  const uint64_t m1 = 0u - (uint64_t)(w == 1), m2 = 0u - (uint64_t)(w == 2), m3 = 0u - (uint64_t)(w == 3);
  const unsigned bytes = k_bytes[w], bias = k_bias[w], lim = k_lim[w];
  const uint32_t x32 = skf__rd32(p);
  const uint64_t x0 = skf__rd64(p), x1 = skf__rd64(p + 8);
  uint64_t a0 = (x32 & 0x03030303u) | (uint64_t)((x32 >> 2) & 0x03030303u) << 32;
  uint64_t a1 = ((x32 >> 4) & 0x03030303u) | (uint64_t)((x32 >> 6) & 0x03030303u) << 32;
  uint64_t c0 = (a0 & m1) | (x0 & 0x0f0f0f0f0f0f0f0full & m2) | (x0 & m3);
  uint64_t c1 = (a1 & m1) | ((x0 >> 4) & 0x0f0f0f0f0f0f0f0full & m2) | (x1 & m3);
  /* any escape at all? (code 3 = both bits of a pair set, 15 = all four of a nibble): cheaper than the mask */
  const uint64_t any = ((uint64_t)(x32 & (x32 >> 1) & 0x55555555u) & m1) |
                       (x0 & (x0 >> 1) & (x0 >> 2) & (x0 >> 3) & 0x1111111111111111ull & m2);
  unsigned mask = any ? ((unsigned)(((skf__eqb(c0, lim) >> 7) * 0x0102040810204080ull) >> 56) |
                         (unsigned)(((skf__eqb(c1, lim) >> 7) * 0x0102040810204080ull) >> 56) << 8)
                      : 0u;
  size_t e = 0;
  int k;
  for (k = 0; k < SKF_FAST_ESCAPES; ++k) { /* branch-free: t = 16 and valid = 0 when no escape is left */
    unsigned t = skf__ctz(mask | 0x10000u), valid = mask != 0;
    uint64_t x = (uint64_t)((((unsigned)p[bytes + e] + bias) ^ lim) & 0xffu & (0u - valid)) << (8 * (t & 7u));
    c0 ^= x & (0u - (uint64_t)(t < 8));
    c1 ^= x & (0u - (uint64_t)(t >= 8));
    e += valid;
    mask &= mask - 1u;
  }
  while (mask) {
    unsigned t = skf__ctz(mask), x;
    if (p + bytes + e >= end) return 0;
    x = ((unsigned)p[bytes + e++] + bias) & 0xffu;
    if (t < 8)
      c0 ^= (uint64_t)(x ^ lim) << (8 * t);
    else
      c1 ^= (uint64_t)(x ^ lim) << (8 * (t - 8));
    mask &= mask - 1u;
  }
  if (p + bytes + e > end) return 0; /* the branch-free escapes were read inside the 19 bytes, but must be in the
                                        stream */
  c0 = skf__addb(c0, ((256u - bias) & 0xffu) * SKF__B1);
  c1 = skf__addb(c1, ((256u - bias) & 0xffu) * SKF__B1);
  c0 = skf__scanb(c0, *prev);
  c1 = skf__scanb(c1, (unsigned)(c0 >> 56));
  *prev = (unsigned)(c1 >> 56);
  skf__put16(d, r, c0, c1);
  return bytes + e + (w == 0); /* w == 0 takes no bytes: + 1 here, taken off by the caller */
}

/* The same, one byte at a time (any byte order). */
static size_t skf__fast_grp_be(const unsigned char* p, const unsigned char* end, unsigned w, unsigned* prev,
                               unsigned char* d, size_t r) {
  const size_t bytes = w == 1 ? 4u : w == 2 ? 8u : 16u;
  const unsigned lim = w == 1 ? 3u : w == 2 ? 15u : 256u, bias = w == 1 ? 1u : w == 2 ? 7u : 0u;
  unsigned t, v = *prev;
  size_t e = 0;
  if ((size_t)(end - p) < bytes) return 0;
  for (t = 0; t < 16; ++t) {
    unsigned c = w == 1 ? (p[t & 3u] >> ((t >> 2) * 2u)) & 3u : w == 2 ? (p[t & 7u] >> ((t >> 3) * 4u)) & 15u : p[t];
    if (c == lim) {
      if (p + bytes + e >= end) return 0;
      c = p[bytes + e++] + bias;
    }
    v = (v + c - bias) & 0xffu;
    d[t * r] = (unsigned char)v;
  }
  *prev = v;
  return bytes + e;
}

/* Decodes one byte plane of nl literals into byte p of each row (rows + p, stride r; nl + 15 rows are written):
 * 2-bit width codes of all groups first, then the groups; *pp advances. 0 = ok. */
static int skf__fast_plane(const unsigned char** pp, const unsigned char* end, size_t nl, unsigned char* rows,
                           size_t r) {
  const uint16_t one = 1;
  unsigned char le;
  const unsigned char* hdr = *pp;
  size_t groups = (nl + SKF_FAST_GROUP - 1) / SKF_FAST_GROUP, hn = (groups + 3) / 4, g;
  const unsigned char* p;
  unsigned prev = 0;
  memcpy(&le, &one, 1);
  if ((size_t)(end - hdr) < hn) return 1;
  p = hdr + hn;
  for (g = 0; g < groups; ++g) {
    unsigned w = (hdr[g >> 2] >> ((g & 3u) * 2u)) & 3u, t;
    unsigned char* d = rows + g * SKF_FAST_GROUP * r;
    size_t took;
    if (le && end - p >= 16 + SKF_FAST_ESCAPES) {
      took = skf__fast_grp_nb(p, end, w, &prev, d, r);
      if (!took) return 1;
      p += took - (w == 0);
      continue;
    }
    if (w == 0) {
      for (t = 0; t < SKF_FAST_GROUP; ++t) d[t * r] = (unsigned char)prev;
      continue;
    }
    took = le ? skf__fast_grp(p, end, w, &prev, d, r) : skf__fast_grp_be(p, end, w, &prev, d, r);
    if (!took) return 1;
    p += took;
  }
  *pp = p;
  return 0;
}

/* set bits among the first n bits of b (low bit first) */
static size_t skf__bits(const unsigned char* b, size_t n) {
  size_t i, c = 0;
  for (i = 0; i < (n + 7) / 8; ++i) {
    unsigned x = b[i] & (i + 1 < (n + 7) / 8 || !(n & 7u) ? 0xffu : (1u << (n & 7u)) - 1u);
    x = x - ((x >> 1) & 0x55u);
    x = (x & 0x33u) + ((x >> 2) & 0x33u);
    c += (x + (x >> 4)) & 0x0fu;
  }
  return c;
}

/* Completes and checks the literal rows in place. Joints: literal v takes the next stored joint part when bit v
 * of flags is set, else keeps the previous literal's (zeros before the first); stored joints must be below
 * joint_count. Weights: the last (not stored when n >= 2) is the total minus the others, or 0 for an empty vertex
 * (weight 0 is 0); stored weights must not sum past the total, and an empty vertex has no weight. The caller
 * checked that flags has nj bits set. 1 = ok. */
static int skf__fast_rows(unsigned char* rows, size_t nl, const unsigned char* flags, const unsigned char* jrows,
                          size_t nj, uint32_t n, uint32_t jb, uint32_t wb, uint32_t joints, uint32_t total) {
  size_t v, ji = 0;
  const size_t r = (size_t)n * (jb + wb), jn = (size_t)n * jb;
  uint32_t bad = 0, i;
  for (v = 0; v < nj * n; ++v) bad |= (uint32_t)((jb == 1 ? jrows[v] : skf__rd16(jrows + 2 * v)) >= joints);
  if (jb == 1 && wb == 1 && n == 4) {
    uint32_t jcur = 0;
    for (v = 0; v < nl; ++v) {
      unsigned char* o = rows + v * 8;
      uint32_t fl = (flags[v >> 3] >> (v & 7u)) & 1u, jv, sum = (uint32_t)o[4] + o[5] + o[6];
      memcpy(&jv, jrows + ji * 4, 4);
      jcur ^= (jv ^ jcur) & (0u - fl); /* a select by mask: gcc may compile the ?: to a branch, which mispredicts */
      ji += fl;
      memcpy(o, &jcur, 4);
      bad |= (uint32_t)(sum > total) | ((uint32_t)(o[4] == 0) & (uint32_t)(sum != 0));
      o[7] = (unsigned char)(o[4] ? total - sum : 0u);
    }
    return !bad;
  }
  {
    unsigned char jcur[2 * SKF_MAX_INFLUENCES] = {0};
    for (v = 0; v < nl; ++v) {
      unsigned char* o = rows + v * r;
      unsigned char* ow = o + jn;
      uint32_t sum = 0, w0 = 0, last = n > 1 ? n - 1 : n;
      if ((flags[v >> 3] >> (v & 7u)) & 1u) memcpy(jcur, jrows + ji++ * jn, jn);
      memcpy(o, jcur, jn);
      for (i = 0; i < last; ++i) sum += wb == 1 ? ow[i] : skf__rd16(ow + 2 * i);
      if (n) w0 = wb == 1 ? ow[0] : skf__rd16(ow);
      if (n <= 1) {
        bad |= (uint32_t)(sum != total && sum != 0);
        continue;
      }
      bad |= (uint32_t)(sum > total) | ((uint32_t)(w0 == 0) & (uint32_t)(sum != 0));
      sum = w0 ? total - sum : 0u;
      ow[wb * last] = (unsigned char)(sum & 0xffu);
      if (wb == 2) ow[2 * last + 1] = (unsigned char)(sum >> 8);
    }
  }
  return !bad;
}

/* For each ops byte (four vertices' 2-bit ops), each vertex's source with the copies inside the byte already followed:
 * 0..2 the vertex 1..3 before the byte, 3..6 the byte's first..fourth literal row; and the byte's literal count. */
static void skf__op_table(unsigned char src[256][4], unsigned char nlit[256]) {
  unsigned b, t;
  for (b = 0; b < 256; ++b) {
    unsigned lits = 0;
    for (t = 0; t < 4; ++t) {
      unsigned op = (b >> (2 * t)) & 3u;
      int from = (int)t - (int)op - 1;
      src[b][t] = (unsigned char)(op == 3u ? 3u + lits++ : from >= 0 ? src[b][from] : (unsigned)(-from - 1));
    }
    nlit[b] = (unsigned char)lits;
  }
}

#if defined(SKF__SSE)
/* ---- speed profile, SSE2 (every x86-64 has it) -------------------------------------------------------------------
 * Same bytes and the same checks as skf__fast_plane + skf__fast_rows + skf__fast_expand, in 16-byte registers: each
 * byte plane is decoded plane-major (a group's 16 codes unpacked by shifts and masks and the width picked by masks,
 * escapes patched only in a group that has one, running sums by four shifted adds), then the rows are built 16
 * literals at a time: the weight-sum checks and the implied weight in registers, the planes turned into rows by
 * unpacks. Three row shapes: 8 bytes (1-4 influences, 8-bit ids and weights), 16 bytes (1-4, 16-bit ids or
 * weights: u16 lanes) and 32 bytes (5-8 influences, u16 lanes); each has its expansion into the caller's layout. */

/* byte 15 of x in all 16 lanes */
static __m128i skf__sse_last(__m128i x) {
  x = _mm_unpackhi_epi8(x, x);
  x = _mm_shufflehi_epi16(x, 0xff);
  return _mm_shuffle_epi32(x, 0xff);
}

/* lanes below n (0..16) all ones, the others zero */
static __m128i skf__sse_below(size_t n) {
  const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return _mm_cmplt_epi8(iota, _mm_set1_epi8((char)(n < 16 ? n : 16)));
}

/* One group of width w at p (16 bytes readable) into d[0..15]; *prev is the running value in all lanes. Returns
 * the bytes it took, 0 when an escape byte would lie past end. */
static size_t skf__sse_grp(const unsigned char* p, const unsigned char* end, unsigned w, __m128i* prev,
                           unsigned char* d) {
  static const unsigned char k_bytes[4] = {0, 4, 8, 16};
  const __m128i one = _mm_set1_epi8(1), m03 = _mm_set1_epi8(3), m0f = _mm_set1_epi8(15);
  const __m128i raw = _mm_loadu_si128((const __m128i*)(const void*)p), wv = _mm_set1_epi8((char)w);
  const __m128i m1 = _mm_cmpeq_epi8(wv, one), m2 = _mm_cmpeq_epi8(wv, _mm_set1_epi8(2));
  const __m128i m3 = _mm_cmpeq_epi8(wv, m03);
  /* width 1: delta t is bits 2 (t / 4) of byte t % 4; width 2: bits 4 (t / 8) of byte t % 8 */
  const __m128i c1 = _mm_unpacklo_epi64(_mm_unpacklo_epi32(raw, _mm_srli_epi32(raw, 2)),
                                        _mm_unpacklo_epi32(_mm_srli_epi32(raw, 4), _mm_srli_epi32(raw, 6)));
  const __m128i c2 = _mm_unpacklo_epi64(raw, _mm_srli_epi64(raw, 4));
  const __m128i lim = _mm_or_si128(_mm_and_si128(m1, m03), _mm_and_si128(m2, m0f));
  const __m128i bias = _mm_or_si128(_mm_and_si128(m1, one), _mm_and_si128(m2, _mm_set1_epi8(7)));
  const __m128i c12 =
      _mm_or_si128(_mm_and_si128(c1, _mm_and_si128(m1, m03)), _mm_and_si128(c2, _mm_and_si128(m2, m0f)));
  __m128i c = _mm_or_si128(c12, _mm_and_si128(raw, m3));
  unsigned esc;
  size_t e = 0;
  esc = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(c, lim), _mm_or_si128(m1, m2)));
  if (esc) { /* rare (skinkit's encoder writes none): the group's escape bytes follow its packed bytes, in order */
    unsigned char tmp[16];
    const unsigned b = w == 1 ? 1u : 7u;
    _mm_storeu_si128((__m128i*)(void*)tmp, c);
    while (esc) {
      if (p + k_bytes[w] + e >= end) return 0;
      tmp[skf__ctz(esc)] = (unsigned char)(p[k_bytes[w] + e++] + b);
      esc &= esc - 1u;
    }
    c = _mm_loadu_si128((const __m128i*)(const void*)tmp);
  }
  c = _mm_sub_epi8(c, bias);
  c = _mm_add_epi8(c, _mm_slli_si128(c, 1));
  c = _mm_add_epi8(c, _mm_slli_si128(c, 2));
  c = _mm_add_epi8(c, _mm_slli_si128(c, 4));
  c = _mm_add_epi8(c, _mm_slli_si128(c, 8));
  c = _mm_add_epi8(c, *prev);
  _mm_storeu_si128((__m128i*)(void*)d, c);
  *prev = skf__sse_last(c);
  return k_bytes[w] + e + (w == 0);
}

/* One byte plane of nl values to dst (plane-major, 16 bytes a group); *pp advances. 0 = ok. */
static int skf__sse_plane(const unsigned char** pp, const unsigned char* end, size_t nl, unsigned char* dst) {
  const unsigned char* hdr = *pp;
  const size_t groups = (nl + SKF_FAST_GROUP - 1) / SKF_FAST_GROUP, hn = (groups + 3) / 4;
  const unsigned char* p;
  __m128i prev = _mm_setzero_si128();
  size_t g;
  if ((size_t)(end - hdr) < hn) return 1;
  for (p = hdr + hn, g = 0; g < groups; ++g) {
    const unsigned w = (hdr[g >> 2] >> ((g & 3u) * 2u)) & 3u;
    unsigned char* d = dst + 16 * g;
    size_t took;
    if (end - p >= 16) {
      if (!(took = skf__sse_grp(p, end, w, &prev, d))) return 1;
      p += took - (w == 0);
    } else if (w == 0) { /* the stream's last bytes: the scalar group, stride 1 */
      _mm_storeu_si128((__m128i*)(void*)d, prev);
    } else {
      unsigned pv = (unsigned)_mm_cvtsi128_si32(prev) & 0xffu;
      if (!(took = skf__fast_grp(p, end, w, &pv, d, 1))) return 1;
      p += took;
      prev = _mm_set1_epi8((char)pv);
    }
  }
  *pp = p;
  return 0;
}

/* The jn joint planes (nj values, gj bytes each, at planes) and the wn weight planes (nl values, gl bytes each, at
 * wp) of a mesh from *pp, which must then be at end. Codes as skf__fast_literal_rows (0..3). */
static int skf__sse_planes(const unsigned char** pp, const unsigned char* end, size_t nj, size_t jn, size_t nl,
                           size_t wn, unsigned char* planes, unsigned char* wp, size_t* which) {
  const size_t gj = (nj + 15) / 16 * 16, gl = (nl + 15) / 16 * 16;
  size_t q;
  for (q = 0; q < jn; ++q)
    if (skf__sse_plane(pp, end, nj, planes + q * gj)) return *which = q, 1;
  for (q = 0; q < wn; ++q)
    if (skf__sse_plane(pp, end, nl, wp + q * gl)) return *which = jn + q, 2;
  return *pp != end ? 3 : 0;
}

/* 16 records of 4 bytes (a[t], b[t], c[t], d[t]), t = 0..15, in q[0..3] */
static void skf__sse_quads(__m128i a, __m128i b, __m128i c, __m128i d, __m128i q[4]) {
  const __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
  const __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
  q[0] = _mm_unpacklo_epi16(ab0, cd0);
  q[1] = _mm_unpackhi_epi16(ab0, cd0);
  q[2] = _mm_unpacklo_epi16(ab1, cd1);
  q[3] = _mm_unpackhi_epi16(ab1, cd1);
}

static __m128i skf__sse_ld(const unsigned char* p) { return _mm_loadu_si128((const __m128i*)(const void*)p); }
static void skf__sse_st(unsigned char* p, __m128i x) { _mm_storeu_si128((__m128i*)(void*)p, x); }

/* The stored joint parts (4 planes of nj values at jp, groups of 16; planes past the mesh's influences are zero)
 * as 4-byte rows at jrows. 1 = every joint is below joints. */
static int skf__sse_joint_rows(const unsigned char* jp, size_t nj, unsigned joints, unsigned char* jrows) {
  const size_t groups = (nj + 15) / 16, gs = groups * 16;
  __m128i mx = _mm_setzero_si128(), q[4];
  size_t g;
  unsigned m;
  for (g = 0; g < groups; ++g) {
    const __m128i a = skf__sse_ld(jp + 16 * g), b = skf__sse_ld(jp + gs + 16 * g);
    const __m128i c = skf__sse_ld(jp + 2 * gs + 16 * g), d = skf__sse_ld(jp + 3 * gs + 16 * g);
    const __m128i valid = skf__sse_below(nj - 16 * g);
    mx = _mm_max_epu8(mx, _mm_and_si128(valid, _mm_max_epu8(_mm_max_epu8(a, b), _mm_max_epu8(c, d))));
    skf__sse_quads(a, b, c, d, q);
    skf__sse_st(jrows + 64 * g, q[0]);
    skf__sse_st(jrows + 64 * g + 16, q[1]);
    skf__sse_st(jrows + 64 * g + 32, q[2]);
    skf__sse_st(jrows + 64 * g + 48, q[3]);
  }
  mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 8));
  mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 4));
  mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 2));
  mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 1));
  m = (unsigned)_mm_cvtsi128_si32(mx) & 0xffu;
  return !nj || m < joints;
}

/* Rows of literals 16 g .. 16 g + 15 (8 bytes: 4 joint slots, 4 weight slots; slots past the mesh's n influences
 * zero) from the weight planes at wp (3 planes, groups of 16, gs bytes each; planes past the stored ones zero), the
 * joint flags and the joint rows; *jcur / *ji carry the current joint set and the next stored one. The weights as
 * skf__fast_rows completes and checks them: for n >= 2 the last is implied (255 minus the others, 0 for an empty
 * vertex), for n = 1 the one weight is stored and must be 255 or 0. Returns the lanes whose weights are bad. */
static unsigned skf__sse_rows16(const unsigned char* wp, size_t gs, size_t g, size_t nl, uint32_t n,
                                const unsigned char* flags, const unsigned char* jrows, uint32_t* jcur, size_t* ji,
                                unsigned char* rows) {
  const size_t fb = (nl + 7) / 8, left = nl - 16 * g;
  const __m128i zero = _mm_setzero_si128(), ones = _mm_cmpeq_epi8(zero, zero), valid = skf__sse_below(left);
  const __m128i w0 = skf__sse_ld(wp + 16 * g), w1 = skf__sse_ld(wp + gs + 16 * g);
  const __m128i w2 = skf__sse_ld(wp + 2 * gs + 16 * g);
  const __m128i s01 = _mm_add_epi8(w0, w1), s = _mm_add_epi8(s01, w2), z0 = _mm_cmpeq_epi8(w0, zero);
  const __m128i imp = _mm_andnot_si128(z0, _mm_xor_si128(s, ones)); /* the implied weight */
  /* a carry out of a byte add is a sum past 255 */
  __m128i bad = _mm_or_si128(_mm_xor_si128(_mm_cmpeq_epi8(_mm_max_epu8(s01, w0), s01), ones),
                             _mm_xor_si128(_mm_cmpeq_epi8(_mm_max_epu8(s, w2), s), ones));
  __m128i q[4];
  uint32_t jt[16], f = flags[2 * g], cur = *jcur;
  size_t k = *ji;
  unsigned t;
  bad = _mm_or_si128(bad, _mm_andnot_si128(_mm_cmpeq_epi8(s, zero), z0));
  if (n == 4)
    skf__sse_quads(w0, w1, w2, imp, q);
  else if (n == 3)
    skf__sse_quads(w0, w1, imp, zero, q);
  else if (n == 2)
    skf__sse_quads(w0, imp, zero, zero, q);
  else { /* one influence: its stored weight is 255 or 0 */
    bad = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(w0, ones), z0), ones);
    skf__sse_quads(w0, zero, zero, zero, q);
  }
  bad = _mm_and_si128(bad, valid);
  if (2 * g + 1 < fb) f |= (uint32_t)flags[2 * g + 1] << 8;
  if (left < 16) f &= (1u << left) - 1u;
  for (t = 0; t < 16; ++t) { /* the joint set: the next stored one where the flag is set (a select by mask) */
    uint32_t fl = (f >> t) & 1u, jv;
    memcpy(&jv, jrows + k * 4, 4);
    cur ^= (jv ^ cur) & (0u - fl);
    k += fl;
    jt[t] = cur;
  }
  *jcur = cur;
  *ji = k;
  for (t = 0; t < 4; ++t) {
    const __m128i j = _mm_loadu_si128((const __m128i*)(const void*)(jt + 4 * t));
    skf__sse_st(rows + 128 * g + 32 * t, _mm_unpacklo_epi32(j, q[t]));
    skf__sse_st(rows + 128 * g + 32 * t + 16, _mm_unpackhi_epi32(j, q[t]));
  }
  return (unsigned)_mm_movemask_epi8(bad);
}

/* The planes of a mesh with n = 1..4 influences and 8-bit joints and weights at *pp (stream end `end`) into rows of
 * 8 bytes (4 joint slots, 4 weight slots, the slots past n zero), via plane scratch `planes` (4 (nj + 16) +
 * 3 (nl + 16) bytes) and jrows (4 (nj + 16) bytes). Codes as skf__fast_literal_rows: 0 = ok; 1 = joint plane *which
 * runs past the stream; 2 = weight plane *which does; 3 = bytes left over; 4 = a bad row. */
static int skf__sse_mesh4(const unsigned char** pp, const unsigned char* end, const unsigned char* flags, size_t nl,
                          size_t nj, uint32_t n, unsigned joints, unsigned char* rows, unsigned char* jrows,
                          unsigned char* planes, size_t* which) {
  const size_t gj = (nj + 15) / 16 * 16, gl = (nl + 15) / 16 * 16, nw = n > 1 ? n - 1 : 1;
  unsigned char* wp = planes + 4 * gj;
  uint32_t jcur = 0;
  size_t g, ji = 0;
  unsigned bad = 0;
  int e = skf__sse_planes(pp, end, nj, n, nl, nw, planes, wp, which);
  if (e) return e;
  memset(planes + n * gj, 0, (4 - n) * gj); /* the slots past n */
  memset(wp + nw * gl, 0, (3 - nw) * gl);
  if (!skf__sse_joint_rows(planes, nj, joints, jrows)) return 4;
  for (g = 0; g < gl / 16; ++g) bad |= skf__sse_rows16(wp, gl, g, nl, n, flags, jrows, &jcur, &ji, rows);
  return bad ? 4 : 0;
}

/* One half of four vertices' output (joints or weights: 4 bytes a vertex in x) at vertex 4 q, in k = 4 or 8 slots of
 * `bytes` (1 or 2) bytes; a 2-byte value's high byte comes from hi (zero for joints; x itself for 8-bit weights,
 * which is w * 257). */
static inline void skf__sse_put_half(unsigned char* out, size_t q, __m128i x, __m128i hi, uint32_t k,
                                     uint32_t bytes) {
  const __m128i z = _mm_setzero_si128();
  if (k == 4 && bytes == 1) {
    skf__sse_st(out + 16 * q, x);
  } else if (k == 4) {
    skf__sse_st(out + 32 * q, _mm_unpacklo_epi8(x, hi));
    skf__sse_st(out + 32 * q + 16, _mm_unpackhi_epi8(x, hi));
  } else if (bytes == 1) { /* 8 slots: a vertex's 4, then 4 empty ones */
    skf__sse_st(out + 32 * q, _mm_unpacklo_epi32(x, z));
    skf__sse_st(out + 32 * q + 16, _mm_unpackhi_epi32(x, z));
  } else {
    const __m128i lo = _mm_unpacklo_epi8(x, hi), up = _mm_unpackhi_epi8(x, hi);
    skf__sse_st(out + 64 * q, _mm_unpacklo_epi64(lo, z));
    skf__sse_st(out + 64 * q + 16, _mm_unpackhi_epi64(lo, z));
    skf__sse_st(out + 64 * q + 32, _mm_unpacklo_epi64(up, z));
    skf__sse_st(out + 64 * q + 48, _mm_unpackhi_epi64(up, z));
  }
}

/* Four vertices' joints j and weights w (4 bytes a vertex, from 8-byte rows) to the output at vertex 4 q, in k = 4
 * or 8 slots of ojb / owb = 1 or 2 bytes. */
static void skf__sse_put4(unsigned char* jo, unsigned char* wo, size_t q, __m128i j, __m128i w, uint32_t k,
                          uint32_t ojb, uint32_t owb) {
  skf__sse_put_half(jo, q, j, _mm_setzero_si128(), k, ojb);
  skf__sse_put_half(wo, q, w, w, k, owb);
}

/* ---- 16-bit joint ids or weights (1-4 influences), or 5-8 influences: rows of u16 lanes, `slots` (4 or 8) joints
 * then `slots` weights (16 or 32 bytes a row) ---------------------------------------------------------------------- */

/* lanes (u16) of slot byte planes lo / hi (hi zero for 1-byte components): the 16 values of a group as two registers */
static void skf__sse_u16(__m128i lo, __m128i hi, __m128i v[2]) {
  v[0] = _mm_unpacklo_epi8(lo, hi);
  v[1] = _mm_unpackhi_epi8(lo, hi);
}

/* 8 records of 4 u16 (a[t], b[t], c[t], d[t]) for the 8 lanes of a..d, in q[0..3] (two records each) */
static void skf__sse_quads16(__m128i a, __m128i b, __m128i c, __m128i d, __m128i q[4]) {
  const __m128i ab0 = _mm_unpacklo_epi16(a, b), ab1 = _mm_unpackhi_epi16(a, b);
  const __m128i cd0 = _mm_unpacklo_epi16(c, d), cd1 = _mm_unpackhi_epi16(c, d);
  q[0] = _mm_unpacklo_epi32(ab0, cd0);
  q[1] = _mm_unpackhi_epi32(ab0, cd0);
  q[2] = _mm_unpacklo_epi32(ab1, cd1);
  q[3] = _mm_unpackhi_epi32(ab1, cd1);
}

/* lanes of x that are not zero (u16) */
static __m128i skf__sse_nz16(__m128i x) {
  return _mm_xor_si128(_mm_cmpeq_epi16(x, _mm_setzero_si128()), _mm_cmpeq_epi16(x, x));
}

/* Slot s's 16 values of group g from byte planes at pl (plane p of slot s byte b is pl + (s * cb + b) * gs; slots past
 * ns are zero), as two registers of u16. */
static void skf__sse_slot(const unsigned char* pl, size_t gs, size_t g, uint32_t s, uint32_t ns, uint32_t cb,
                          __m128i v[2]) {
  const __m128i z = _mm_setzero_si128();
  if (s >= ns) {
    v[0] = v[1] = z;
    return;
  }
  skf__sse_u16(skf__sse_ld(pl + (s * cb) * gs + 16 * g), cb == 2 ? skf__sse_ld(pl + (s * cb + 1) * gs + 16 * g) : z, v);
}

/* 8 records of 8 u16 (a[0][t] .. a[7][t]) for the 8 lanes t of a[0..7], in q[0..7] */
static void skf__sse_octs16(const __m128i a[8], __m128i q[8]) {
  const __m128i t0 = _mm_unpacklo_epi16(a[0], a[1]), t1 = _mm_unpackhi_epi16(a[0], a[1]);
  const __m128i t2 = _mm_unpacklo_epi16(a[2], a[3]), t3 = _mm_unpackhi_epi16(a[2], a[3]);
  const __m128i t4 = _mm_unpacklo_epi16(a[4], a[5]), t5 = _mm_unpackhi_epi16(a[4], a[5]);
  const __m128i t6 = _mm_unpacklo_epi16(a[6], a[7]), t7 = _mm_unpackhi_epi16(a[6], a[7]);
  const __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
  const __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
  const __m128i v0 = _mm_unpacklo_epi32(t4, t6), v1 = _mm_unpackhi_epi32(t4, t6);
  const __m128i v2 = _mm_unpacklo_epi32(t5, t7), v3 = _mm_unpackhi_epi32(t5, t7);
  q[0] = _mm_unpacklo_epi64(u0, v0);
  q[1] = _mm_unpackhi_epi64(u0, v0);
  q[2] = _mm_unpacklo_epi64(u1, v1);
  q[3] = _mm_unpackhi_epi64(u1, v1);
  q[4] = _mm_unpacklo_epi64(u2, v2);
  q[5] = _mm_unpackhi_epi64(u2, v2);
  q[6] = _mm_unpacklo_epi64(u3, v3);
  q[7] = _mm_unpackhi_epi64(u3, v3);
}

/* Records of `slots` u16 (a[0][t] .. a[slots - 1][t]) for the 8 lanes t of a[]: 4 slots in q[0..3] (two records
 * each), 8 slots in q[0..7] */
static void skf__sse_records(const __m128i a[8], uint32_t slots, __m128i q[8]) {
  if (slots == 4)
    skf__sse_quads16(a[0], a[1], a[2], a[3], q);
  else
    skf__sse_octs16(a, q);
}

/* The stored joint parts (n slots of jb bytes, planes of nj values at jp) as records of `slots` u16 at jrows. 1 =
 * every joint is below joints. */
static int skf__sse_joint_rows_u16(const unsigned char* jp, size_t nj, uint32_t n, uint32_t jb, uint32_t slots,
                                   unsigned joints, unsigned char* jrows) {
  const size_t groups = (nj + 15) / 16, gs = groups * 16;
  const __m128i lim = _mm_set1_epi16((short)(joints ? joints - 1u : 0u));
  __m128i bad = _mm_setzero_si128(), j[8][2], a[8], q[8];
  size_t g;
  uint32_t s, h;
  if (nj && !joints) return 0;
  for (g = 0; g < groups; ++g) {
    const __m128i vb = skf__sse_below(nj - 16 * g), valid[2] = {_mm_unpacklo_epi8(vb, vb), _mm_unpackhi_epi8(vb, vb)};
    for (s = 0; s < slots; ++s) skf__sse_slot(jp, gs, g, s, n, jb, j[s]);
    for (h = 0; h < 2; ++h) {
      for (s = 0; s < slots; ++s) a[s] = j[s][h];
      for (s = 0; s < n; ++s) /* joint >= joints: it saturates past joints - 1 */
        bad = _mm_or_si128(bad, _mm_and_si128(valid[h], skf__sse_nz16(_mm_subs_epu16(a[s], lim))));
      skf__sse_records(a, slots, q);
      for (s = 0; s < slots; ++s) skf__sse_st(jrows + 32 * slots * g + 16 * slots * h + 16 * s, q[s]);
    }
  }
  return _mm_movemask_epi8(bad) == 0;
}

/* Rows of literals 16 g .. 16 g + 15 (`slots` u16 joints, `slots` u16 weights; slots past n zero) from the weight
 * planes at wp (slots of wb bytes, gs bytes a plane), the joint flags and the joint records, completed and checked as
 * skf__sse_rows16 does with weights that sum to 255 or 65535 (wb): a carry out of a 16-bit add, a sum past the total
 * or a first weight of 0 before a nonzero one is bad, and so is a lone weight other than 0 or the total. *jcur / *ji
 * carry the current joint set and the next stored one. Returns the bad lanes. */
static unsigned skf__sse_rows_u16(const unsigned char* wp, size_t gs, size_t g, size_t nl, uint32_t n, uint32_t wb,
                                  uint32_t slots, const unsigned char* flags, const unsigned char* jrows, __m128i* jcur,
                                  size_t* ji, unsigned char* rows) {
  const size_t fb = (nl + 7) / 8, left = nl - 16 * g, rb = 4 * (size_t)slots, nw = n > 1 ? n - 1 : 1;
  const __m128i zero = _mm_setzero_si128(), ones = _mm_cmpeq_epi8(zero, zero), vb = skf__sse_below(left);
  const __m128i total = _mm_set1_epi16((short)(wb == 2 ? 65535 : 255));
  __m128i bad = zero, cur = *jcur, jt[16];
  uint32_t f = flags[2 * g], h, s;
  size_t k = *ji;
  unsigned t;
  if (2 * g + 1 < fb) f |= (uint32_t)flags[2 * g + 1] << 8;
  if (left < 16) f &= (1u << left) - 1u;
  for (t = 0; t < 16; ++t) { /* the joint set: the next stored one where the flag is set (a select by mask) */
    const __m128i m = _mm_set1_epi32(-(int)((f >> t) & 1u));
    const __m128i jv =
        slots == 4 ? _mm_loadl_epi64((const __m128i*)(const void*)(jrows + k * 8)) : skf__sse_ld(jrows + k * 16);
    cur = _mm_or_si128(_mm_and_si128(m, jv), _mm_andnot_si128(m, cur));
    k += (f >> t) & 1u;
    jt[t] = cur;
  }
  *jcur = cur;
  *ji = k;
  for (h = 0; h < 2; ++h) {
    const __m128i valid = h ? _mm_unpackhi_epi8(vb, vb) : _mm_unpacklo_epi8(vb, vb);
    unsigned char* row = rows + rb * (16 * g + 8 * h);
    __m128i w[8], q[8], v[2], sum = zero, b = zero, z0;
    for (s = 0; s < 8; ++s) {
      skf__sse_slot(wp, gs, g, s, s < slots ? (uint32_t)nw : 0u, wb, v);
      w[s] = v[h];
    }
    for (s = 0; s < nw; ++s) {
      const __m128i next = _mm_add_epi16(sum, w[s]);
      b = _mm_or_si128(b, skf__sse_nz16(_mm_subs_epu16(sum, next))); /* a carry */
      sum = next;
    }
    z0 = _mm_cmpeq_epi16(w[0], zero);
    b = _mm_or_si128(b, skf__sse_nz16(_mm_subs_epu16(sum, total)));
    b = _mm_or_si128(b, _mm_and_si128(z0, skf__sse_nz16(sum)));
    if (n == 1) /* one influence: its stored weight is the total or 0 */
      b = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi16(w[0], total), z0), ones);
    else
      w[n - 1] = _mm_andnot_si128(z0, _mm_sub_epi16(total, sum)); /* the implied weight */
    bad = _mm_or_si128(bad, _mm_and_si128(b, valid));
    skf__sse_records(w, slots, q);
    for (s = 0; s < slots; ++s) /* lane 8 h + s (8 slots) or 8 h + 2 s, + 1 (4 slots): joints then weights */
      if (slots == 8) {
        skf__sse_st(row + 32 * s, jt[8 * h + s]);
        skf__sse_st(row + 32 * s + 16, q[s]);
      } else {
        const __m128i jb2 = _mm_unpacklo_epi64(jt[8 * h + 2 * s + 1], jt[8 * h + 2 * s + 1]);
        skf__sse_st(row + 32 * s, _mm_unpacklo_epi64(jt[8 * h + 2 * s], q[s]));
        skf__sse_st(row + 32 * s + 16, _mm_unpackhi_epi64(jb2, q[s]));
      }
  }
  return (unsigned)_mm_movemask_epi8(bad);
}

/* The planes of a mesh with jb-byte joints and wb-byte weights (n = 1..4 and not both 1: slots 4; n = 5..8: slots
 * 8) at *pp into rows of `slots` u16 joints then weights (skf__sse_rows_u16), via plane scratch `planes` (2 slots
 * (nj + 16) + 2 (slots - 1) (nl + 16) bytes) and jrows (2 slots (nj + 16) bytes). Codes as skf__sse_mesh4. */
static int skf__sse_mesh_u16(const unsigned char** pp, const unsigned char* end, const unsigned char* flags, size_t nl,
                             size_t nj, uint32_t n, uint32_t jb, uint32_t wb, uint32_t slots, unsigned joints,
                             unsigned char* rows, unsigned char* jrows, unsigned char* planes, size_t* which) {
  const size_t gj = (nj + 15) / 16 * 16, gl = (nl + 15) / 16 * 16, wn = (n > 1 ? n - 1 : 1) * (size_t)wb;
  unsigned char* wp = planes + 2 * slots * gj;
  __m128i jcur = _mm_setzero_si128();
  size_t g, ji = 0;
  unsigned bad = 0;
  int e = skf__sse_planes(pp, end, nj, (size_t)n * jb, nl, wn, planes, wp, which);
  if (e) return e;
  if (!skf__sse_joint_rows_u16(planes, nj, n, jb, slots, joints, jrows)) return 4;
  if (slots == 4) /* constant slot counts at the call sites: the compiler specializes each */
    for (g = 0; g < gl / 16; ++g) bad |= skf__sse_rows_u16(wp, gl, g, nl, n, wb, 4u, flags, jrows, &jcur, &ji, rows);
  else
    for (g = 0; g < gl / 16; ++g) bad |= skf__sse_rows_u16(wp, gl, g, nl, n, wb, 8u, flags, jrows, &jcur, &ji, rows);
  return bad ? 4 : 0;
}

/* Four vertices' rows x[0..3] (16 bytes: u16 joints, u16 weights) to the output at vertex 4 q: k = 4 or 8 slots,
 * ojb / owb = 1 (values fit: the output was checked against the file) or 2; wide8 widens 8-bit weights by 257. */
static void skf__sse_put4w(unsigned char* jo, unsigned char* wo, size_t q, const __m128i x[4], uint32_t k, uint32_t ojb,
                           uint32_t owb, int wide8) {
  const __m128i z = _mm_setzero_si128();
  __m128i j[2] = {_mm_unpacklo_epi64(x[0], x[1]), _mm_unpacklo_epi64(x[2], x[3])};
  __m128i w[2] = {_mm_unpackhi_epi64(x[0], x[1]), _mm_unpackhi_epi64(x[2], x[3])};
  int h;
  if (wide8 && owb == 2)
    for (h = 0; h < 2; ++h) w[h] = _mm_or_si128(w[h], _mm_slli_epi16(w[h], 8));
  if (k == 4) {
    if (ojb == 1)
      skf__sse_st(jo + 16 * q, _mm_packus_epi16(j[0], j[1]));
    else
      skf__sse_st(jo + 32 * q, j[0]), skf__sse_st(jo + 32 * q + 16, j[1]);
    if (owb == 1)
      skf__sse_st(wo + 16 * q, _mm_packus_epi16(w[0], w[1]));
    else
      skf__sse_st(wo + 32 * q, w[0]), skf__sse_st(wo + 32 * q + 16, w[1]);
    return;
  }
  for (h = 0; h < 2; ++h) { /* 8 slots: a vertex's 4, then 4 empty ones */
    if (ojb == 1) {
      skf__sse_st(jo + 32 * q + 16 * h, _mm_unpacklo_epi32(_mm_packus_epi16(j[h], z), z));
    } else {
      skf__sse_st(jo + 64 * q + 32 * h, _mm_unpacklo_epi64(j[h], z));
      skf__sse_st(jo + 64 * q + 32 * h + 16, _mm_unpackhi_epi64(j[h], z));
    }
    if (owb == 1) {
      skf__sse_st(wo + 32 * q + 16 * h, _mm_unpacklo_epi32(_mm_packus_epi16(w[h], z), z));
    } else {
      skf__sse_st(wo + 64 * q + 32 * h, _mm_unpacklo_epi64(w[h], z));
      skf__sse_st(wo + 64 * q + 32 * h + 16, _mm_unpackhi_epi64(w[h], z));
    }
  }
}

/* Four vertices' rows of 8 u16 joints (j) and 8 u16 weights (w) to the output at vertex 4 q in 8 slots of ojb /
 * owb = 1 (values fit) or 2 bytes; wide8 widens 8-bit weights by 257. */
static void skf__sse_put4o(unsigned char* jo, unsigned char* wo, size_t q, const __m128i j[4], const __m128i wr[4],
                           uint32_t ojb, uint32_t owb, int wide8) {
  __m128i w[4];
  unsigned t;
  for (t = 0; t < 4; ++t) w[t] = wide8 && owb == 2 ? _mm_or_si128(wr[t], _mm_slli_epi16(wr[t], 8)) : wr[t];
  for (t = 0; t < 4; t += 2) { /* vertices 4 q + t, + 1 */
    if (ojb == 1)
      skf__sse_st(jo + 32 * q + 8 * t, _mm_packus_epi16(j[t], j[t + 1]));
    else
      skf__sse_st(jo + 64 * q + 16 * t, j[t]), skf__sse_st(jo + 64 * q + 16 * t + 16, j[t + 1]);
    if (owb == 1)
      skf__sse_st(wo + 32 * q + 8 * t, _mm_packus_epi16(w[t], w[t + 1]));
    else
      skf__sse_st(wo + 64 * q + 16 * t, w[t]), skf__sse_st(wo + 64 * q + 16 * t + 16, w[t + 1]);
  }
}

/* Vertex i's output from its row of slots u16 joints then slots u16 weights (slots 4 or 8), in any layout (see
 * skf__put_row); wide8: the file's weights are 8-bit. */
static void skf__put_row16(const unsigned char* row, uint32_t slots, size_t i, uint32_t k, uint32_t ojb, uint32_t owb,
                           int wide8, unsigned char* jo, unsigned char* wo) {
  unsigned char *dj = jo + i * k * ojb, *dw = wo + i * k * owb;
  uint32_t s;
  memset(dj, 0, (size_t)k * ojb);
  memset(dw, 0, (size_t)k * owb);
  for (s = 0; s < k && s < slots; ++s) {
    uint32_t jv = skf__rd16(row + 2 * s), wv = skf__rd16(row + 2 * (slots + s)) * (wide8 && owb == 2 ? 257u : 1u);
    dj[s * ojb] = (unsigned char)jv;
    if (ojb == 2) dj[2 * s + 1] = (unsigned char)(jv >> 8);
    dw[s * owb] = (unsigned char)wv;
    if (owb == 2) dw[2 * s + 1] = (unsigned char)(wv >> 8);
  }
}

/* 64 bytes from s to d in four 16-byte moves (a copy loop of variable length can become `rep movs`, which takes
 * dozens of cycles to start) */
static void skf__sse_copy64(unsigned char* d, const unsigned char* s) {
  const __m128i a = skf__sse_ld(s), b = skf__sse_ld(s + 16), c = skf__sse_ld(s + 32), e = skf__sse_ld(s + 48);
  skf__sse_st(d, a);
  skf__sse_st(d + 16, b);
  skf__sse_st(d + 32, c);
  skf__sse_st(d + 48, e);
}

/* skf__fast_expand4 for rows of `slots` (4 or 8) u16 joints then weights; wide8: the file's weights are 8-bit. Four
 * vertices at a time into 4 or 8 slots (4-slot rows) or 8 slots (8-slot rows), else the per-vertex loop. */
static void skf__fast_expand_u16(const unsigned char* ops, size_t vc, const unsigned char* rows,
                                 const skf_mesh_output* o, int wide8, uint32_t slots) {
  const uint32_t k = o->influences, ojb = o->joint_bytes, owb = o->weight_bytes;
  const size_t rb = 4 * (size_t)slots, whole = k == 8 || (k == 4 && slots == 4) ? vc / 4 : 0;
  unsigned char* jo = (unsigned char*)o->joints;
  unsigned char* wo = (unsigned char*)o->weights;
  unsigned char src[256][4], nlit[256], hb[7 * 32]; /* the last three vertices' rows, then the byte's literals */
  size_t q, i, li = 0;
  unsigned t;
  memset(hb, 0, sizeof hb);
  if (whole) skf__op_table(src, nlit);
  for (q = 0; q < whole; ++q) {
    const unsigned bb = ops[q];
    __m128i x[4], y[4];
    skf__sse_copy64(hb + 3 * rb, rows + li * rb); /* the byte's four possible literal rows */
    if (slots == 8) skf__sse_copy64(hb + 3 * rb + 64, rows + li * rb + 64);
    for (t = 0; t < 4; ++t) {
      x[t] = skf__sse_ld(hb + src[bb][t] * rb);
      y[t] = slots == 8 ? skf__sse_ld(hb + src[bb][t] * rb + 16) : x[t];
    }
    if (slots == 4)
      skf__sse_put4w(jo, wo, q, x, k, ojb, owb, wide8);
    else
      skf__sse_put4o(jo, wo, q, x, y, ojb, owb, wide8);
    for (t = 0; t < 3; ++t) { /* the byte's last three vertices' rows, from the registers */
      skf__sse_st(hb + t * rb, x[3 - t]);
      if (slots == 8) skf__sse_st(hb + t * rb + 16, y[3 - t]);
    }
    li += nlit[bb];
  }
  for (i = 4 * whole; i < vc; ++i) {
    uint32_t op = (ops[i >> 2] >> ((i & 3u) * 2u)) & 3u;
    unsigned char x[32];
    memcpy(x, op == 3u ? rows + li * rb : hb + op * rb, rb);
    skf__put_row16(x, slots, i, k, ojb, owb, wide8, jo, wo);
    li += op == 3u;
    memmove(hb + rb, hb, 2 * rb);
    memcpy(hb, x, rb);
  }
}
#endif

/* The literal rows of a mesh from its byte planes at *pp (stream end `end`), completed and checked (skf__fast_rows):
 * 0 = ok; 1 = joint plane *which runs past the stream; 2 = weight plane *which does; 3 = bytes left over; 4 = a bad
 * row. */
static int skf__fast_literal_rows(const unsigned char** pp, const unsigned char* end, const unsigned char* flags,
                                  size_t nl, size_t nj, uint32_t n, uint32_t jb, uint32_t wb, uint32_t joints,
                                  unsigned char* rows, unsigned char* jrows, size_t* which) {
  const size_t r = (size_t)n * (jb + wb), jn = (size_t)n * jb;
  size_t q;
  for (q = 0; q < jn; ++q)
    if (skf__fast_plane(pp, end, nj, jrows + q, jn)) return *which = q, 1;
  for (q = jn; q < (n > 1 ? r - wb : r); ++q) /* the last weight is implied */
    if (skf__fast_plane(pp, end, nl, rows + q, r)) return *which = q, 2;
  if (*pp != end) return 3;
  return skf__fast_rows(rows, nl, flags, jrows, nj, n, jb, wb, joints, wb == 2 ? 65535u : 255u) ? 0 : 4;
}

/* Vertex i's op: 0..2 = copy of the vertex 1..3 before it, 3 = the next literal row. The first three vertices
 * are checked apart, so the loops need no bound checks. 0 = ok. */
static int skf__fast_head(const unsigned char* ops, size_t vc) {
  size_t i;
  for (i = 0; i < vc && i < 3; ++i) {
    uint32_t op = (ops[0] >> (i * 2u)) & 3u;
    if (op != 3u && op >= i) return 1;
  }
  return 0;
}

/* Vertex i's output from its 8-byte row (4 joint slots, 4 weight slots) in any layout: k slots (the row's slots past
 * k are zero: k is at least the mesh's influences), 1- or 2-byte components (8-bit weights widen by 257). */
static void skf__put_row(uint64_t x, size_t i, uint32_t k, uint32_t ojb, uint32_t owb, unsigned char* jo,
                         unsigned char* wo) {
  unsigned char row[8], *dj = jo + i * k * ojb, *dw = wo + i * k * owb;
  uint32_t s;
  memcpy(row, &x, 8); /* rows are byte sequences */
  if (k == 4 && ojb == 1 && owb == 1) {
    memcpy(dj, row, 4);
    memcpy(dw, row + 4, 4);
    return;
  }
  memset(dj, 0, (size_t)k * ojb);
  memset(dw, 0, (size_t)k * owb);
  for (s = 0; s < k && s < 4; ++s) {
    dj[s * ojb] = row[s];
    dw[s * owb] = row[4 + s];
    if (owb == 2) dw[2 * s + 1] = row[4 + s];
  }
}

/* Output from 8-byte rows (4 joint slots, 4 weight slots, 8-bit), four vertices (one ops byte) at a time. A table
 * built per call gives, for each ops byte, each of its vertices' source with the copies inside the byte already
 * followed: 0..2 the vertex 1..3 before the byte, 3..6 the byte's first..fourth literal row; and the byte's literal
 * count. Each vertex is then one 8-byte pick from seven candidates (the byte's possible literals are loaded whether
 * used or not: the rows scratch holds vc + 16 rows); no per-vertex op decoding or selects. With SSE2 the four
 * vertices go out in 16-byte stores in 4 or 8 slots of u8 or u16 (skf__sse_put4), without it u8 x 4 as 4-byte
 * stores; other layouts and the vertices past the last whole byte take the per-vertex loop. */
static void skf__fast_expand4(const unsigned char* ops, size_t vc, const unsigned char* rows,
                              const skf_mesh_output* o) {
  const uint32_t k = o->influences, ojb = o->joint_bytes, owb = o->weight_bytes;
  unsigned char* jo = (unsigned char*)o->joints;
  unsigned char* wo = (unsigned char*)o->weights;
#if defined(SKF__SSE)
  const size_t whole = k == 4 || k == 8 ? vc / 4 : 0;
#else
  const size_t whole = k == 4 && ojb == 1 && owb == 1 ? vc / 4 : 0;
#endif
  unsigned char src[256][4], nlit[256];
  size_t q, i, li = 0;
  uint64_t h[7] = {0, 0, 0, 0, 0, 0, 0}; /* the last three vertices' rows (1, 2, 3 back), then the byte's literals */
  if (whole) skf__op_table(src, nlit);
  for (q = 0; q < whole; ++q) {
    const unsigned bb = ops[q];
    memcpy(&h[3], rows + li * 8, 32);
#if defined(SKF__SSE)
    { /* the rows' halves are joints and weights: gathered with 8-byte loads (no store-forwarding stall) */
      const __m128i x0 = _mm_loadl_epi64((const __m128i*)(const void*)(h + src[bb][0]));
      const __m128i x1 = _mm_loadl_epi64((const __m128i*)(const void*)(h + src[bb][1]));
      const __m128i x2 = _mm_loadl_epi64((const __m128i*)(const void*)(h + src[bb][2]));
      const __m128i x3 = _mm_loadl_epi64((const __m128i*)(const void*)(h + src[bb][3]));
      const __m128i lo = _mm_shuffle_epi32(_mm_unpacklo_epi64(x0, x1), 0xd8);
      const __m128i hi = _mm_shuffle_epi32(_mm_unpacklo_epi64(x2, x3), 0xd8);
      skf__sse_put4(jo, wo, q, _mm_unpacklo_epi64(lo, hi), _mm_unpackhi_epi64(lo, hi), k, ojb, owb);
      _mm_storel_epi64((__m128i*)(void*)h, x3);
      _mm_storel_epi64((__m128i*)(void*)(h + 1), x2);
      _mm_storel_epi64((__m128i*)(void*)(h + 2), x1);
    }
#else
    {
      uint64_t v[4];
      unsigned t;
      for (t = 0; t < 4; ++t) {
        v[t] = h[src[bb][t]];
        memcpy(jo + 4 * (4 * q + t), &v[t], 4); /* rows are byte sequences: the halves are joints and weights */
        memcpy(wo + 4 * (4 * q + t), (const unsigned char*)&v[t] + 4, 4);
      }
      h[0] = v[3], h[1] = v[2], h[2] = v[1];
    }
#endif
    li += nlit[bb];
  }
  for (i = 4 * whole; i < vc; ++i) {
    uint32_t op = (ops[i >> 2] >> ((i & 3u) * 2u)) & 3u;
    uint64_t x;
    memcpy(&x, rows + li * 8, 8);
    x = op == 3u ? x : h[op];
    skf__put_row(x, i, k, ojb, owb, jo, wo);
    li += op == 3u;
    h[2] = h[1], h[1] = h[0], h[0] = x;
  }
}

/* Any output layout: the source row of each vertex, then each vertex converted from its row. */
static void skf__fast_expand(const unsigned char* ops, size_t vc, const unsigned char* rows, uint32_t* src, uint32_t n,
                             uint32_t jb, uint32_t wb, const skf_mesh_output* o) {
  const uint32_t k = o->influences, ojb = o->joint_bytes, owb = o->weight_bytes;
  const uint32_t wscale = (owb == 2 && wb == 1) ? 257u : 1u;
  const size_t r = (size_t)n * (jb + wb);
  unsigned char* jo = (unsigned char*)o->joints;
  unsigned char* wo = (unsigned char*)o->weights;
  size_t i, li = 0;
  for (i = 0; i < vc; ++i) {
    uint32_t op = (ops[i >> 2] >> ((i & 3u) * 2u)) & 3u;
    src[i] = op == 3u ? (uint32_t)li++ : src[i - op - 1u];
  }
  for (i = 0; i < vc; ++i) {
    const unsigned char* q = rows + (size_t)src[i] * r;
    unsigned char* dj = jo + i * k * ojb;
    unsigned char* dw = wo + i * k * owb;
    uint32_t s;
    memset(dj, 0, (size_t)k * ojb);
    memset(dw, 0, (size_t)k * owb);
    for (s = 0; s < n; ++s) {
      uint32_t j = jb == 1 ? q[s] : skf__rd16(q + 2 * s);
      uint32_t w = (wb == 1 ? q[n * jb + s] : skf__rd16(q + n * jb + 2 * s)) * wscale;
      if (ojb == 1) {
        dj[s] = (unsigned char)j;
      } else {
        dj[2 * s] = (unsigned char)(j & 0xffu);
        dj[2 * s + 1] = (unsigned char)(j >> 8);
      }
      if (owb == 1) {
        dw[s] = (unsigned char)w;
      } else {
        dw[2 * s] = (unsigned char)(w & 0xffu);
        dw[2 * s + 1] = (unsigned char)(w >> 8);
      }
    }
  }
}

/* One speed-profile mesh: ops (ceil(vc/4) bytes), then its literal rows' byte planes (lit_len bytes). */
static skf_result skf__fast_mesh(skf_decoder* dec, const skf__file* f, uint32_t m, const skf_mesh_info* mi,
                                 const unsigned char* ops, const unsigned char* lit, size_t nl, size_t lit_len,
                                 size_t nj, const skf_mesh_output* o, skf_error* err);

/* Decodes the meshes of one raw speed-profile INFL chunk that have an output. */
static skf_result skf__fast_group(skf_decoder* dec, const skf__file* f, const unsigned char* table, uint32_t group,
                                  const skf_mesh_output* outs, uint32_t outs_base, uint32_t outs_count,
                                  skf_error* err) {
  skf__chunk c;
  uint32_t first = 0, count = 0, m, wanted = 0, pos;
  uint64_t osum = 0, lsum = 0, tsize;
  const unsigned char *raw, *ops, *lit;
  skf_result rc = SKF_OK;
  for (m = 0; m < f->info.mesh_count; ++m) {
    skf_mesh_info mi;
    skf__mesh_record(table, m, &mi);
    if (mi.group != group) continue;
    if (!count) first = m;
    ++count;
    osum += (mi.vertex_count + 3u) / 4u;
    if (m >= outs_base && m - outs_base < outs_count && outs[m - outs_base].joints) ++wanted;
  }
  if (!wanted) return SKF_OK;
  if ((rc = skf__walk(f, "INFL", group, &c, NULL, err))) return rc;
  raw = c.stored;
  tsize = SKF_INFL_TABLE_SIZE + (uint64_t)SKF_INFL_MESH_SIZE * count;
  if (c.stored_size != c.raw_size || c.raw_size < tsize)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: a raw chunk of %u bytes cannot hold %u meshes", group,
                     c.raw_size, count);
  if (skf__rd32(raw) != first || skf__rd32(raw + 4) != count)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: mesh range disagrees with the mesh table", group);
  for (m = 0; m < count; ++m) {
    const unsigned char* row = raw + SKF_INFL_TABLE_SIZE + (size_t)SKF_INFL_MESH_SIZE * m;
    skf_mesh_info mi;
    skf__mesh_record(table, first + m, &mi);
    if (skf__rd32(row) > mi.vertex_count || skf__rd32(row + 8) > skf__rd32(row) || skf__rd32(row + 12) ||
        skf__rd32(row + 16) || skf__rd32(row + 20))
      return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: row of mesh %u is malformed", group, first + m);
    lsum += skf__rd32(row + 4);
  }
  if (tsize + osum + lsum != c.raw_size)
    return skf__fail(err, SKF_ERR_FORMAT, "influence chunk %u: stream lengths disagree with its size", group);
  ops = raw + tsize;
  lit = ops + osum;
  for (m = first, pos = 0; !rc && m < first + count; ++m, ++pos) {
    skf_mesh_info mi;
    const skf_mesh_output* o = (m >= outs_base && m - outs_base < outs_count) ? &outs[m - outs_base] : NULL;
    const unsigned char* row = raw + SKF_INFL_TABLE_SIZE + (size_t)SKF_INFL_MESH_SIZE * pos;
    size_t nl = skf__rd32(row), lit_len = skf__rd32(row + 4), nj = skf__rd32(row + 8);
    skf__mesh_record(table, m, &mi);
    if (o && o->joints) rc = skf__fast_mesh(dec, f, m, &mi, ops, lit, nl, lit_len, nj, o, err);
    if (!rc && o && o->joints && o->centers) rc = skf__centers(dec, f, m, &mi, NULL, NULL, o->centers, err);
    ops += (size_t)((mi.vertex_count + 3u) / 4u);
    lit += lit_len;
  }
  return rc;
}

static skf_result skf__fast_mesh(skf_decoder* dec, const skf__file* f, uint32_t m, const skf_mesh_info* mi,
                                 const unsigned char* ops, const unsigned char* lit, size_t nl, size_t lit_len,
                                 size_t nj, const skf_mesh_output* o, skf_error* err) {
  const uint32_t wb = f->info.weight_bits == 16 ? 2u : 1u, jb = f->info.joint_bits == 16 ? 2u : 1u;
  const uint32_t n = mi->max_influences;
  const size_t vc = (size_t)mi->vertex_count, r = (size_t)n * (jb + wb), jn = (size_t)n * jb;
#if defined(SKF__SSE)
  const int rows8 = jb == 1 && wb == 1 && n >= 1 && n <= 4; /* rows of 4 + 4 bytes (skf__sse_mesh4) */
  const int rows16 = !rows8 && n >= 1 && n <= 4;            /* rows of 4 + 4 u16 (skf__sse_mesh_u16) */
  const int rows32 = n >= 5 && n <= 8;                      /* rows of 8 + 8 u16 (skf__sse_mesh_u16) */
#else
  const int rows8 = jb == 1 && wb == 1 && n == 4, rows16 = 0, rows32 = 0;
#endif
  const size_t fb = (nl + 7) / 8, r1 = rows8 ? 8u : rows16 ? 16u : rows32 ? 32u : r ? r : 1u;
  const unsigned char *p = lit + fb, *end = lit + lit_len;
  size_t need = skf__fast_scratch(vc, r1), q = 0;
  unsigned char *rows, *jrows;
  int e;
  if (!vc) return lit_len || nl ? skf__fail(err, SKF_ERR_FORMAT, "mesh %u: literals without vertices", m) : SKF_OK;
  if (skf__fast_literals(ops, vc) != nl || skf__fast_head(ops, vc))
    return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: ops disagree with its %zu literal rows", m, nl);
  if (lit_len < fb || skf__bits(lit, nl) != nj)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: joint flags disagree with its %zu joint rows", m, nj);
  if (!need || skf__grow(&dec->mem, &dec->mem_cap, need))
    return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for the rows of mesh %u", m);
  rows = dec->mem;
  jrows = rows + (vc + SKF_FAST_GROUP) * r1;
#if defined(SKF__SSE)
  if (rows8)
    e = skf__sse_mesh4(&p, end, lit, nl, nj, n, f->info.joint_count, rows, jrows,
                       jrows + (vc + SKF_FAST_GROUP) * r1 + 4 * vc + 16, &q);
  else if (rows16 || rows32)
    e = skf__sse_mesh_u16(&p, end, lit, nl, nj, n, jb, wb, rows32 ? 8u : 4u, f->info.joint_count, rows, jrows,
                          jrows + (vc + SKF_FAST_GROUP) * r1 + 4 * vc + 16, &q);
  else
#endif
    e = skf__fast_literal_rows(&p, end, lit, nl, nj, n, jb, wb, f->info.joint_count, rows, jrows, &q);
  if (e == 1 || e == 2)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: %s plane %zu runs past its stream", m,
                     e == 1 ? "joint" : "weight", q);
  if (e == 3) return skf__fail(err, SKF_ERR_FORMAT, "mesh %u leaves unused stream bytes", m);
  if (e == 4)
    return skf__fail(err, SKF_ERR_FORMAT, "mesh %u: a literal row has a joint past the table or a bad weight sum", m);
  if (rows8)
    skf__fast_expand4(ops, vc, rows, o);
#if defined(SKF__SSE)
  else if (rows16)
    skf__fast_expand_u16(ops, vc, rows, o, wb == 1, 4u);
  else if (rows32)
    skf__fast_expand_u16(ops, vc, rows, o, wb == 1, 8u);
#endif
  else { /* the source-row table after the joint rows, at a 4-byte aligned address (skf__fast_scratch has room) */
    unsigned char* sp = jrows + (vc + SKF_FAST_GROUP) * (jn ? jn : 1u);
    sp += (4u - ((uintptr_t)sp & 3u)) & 3u;
    skf__fast_expand(ops, vc, rows, (uint32_t*)(void*)sp, n, jb, wb, o);
  }
  return SKF_OK;
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
  if (o->centers && !f->corc_count)
    return skf__fail(err, SKF_ERR_NOT_FOUND, "mesh %u: the file stores no centres of rotation (pack --cor)", m);
  if (mi.order == SKF_ORDER_WELDED && mi.vertex_count && !o->positions)
    return skf__fail(err, SKF_ERR_INVALID_ARGUMENT,
                     "mesh %u was coded with copies at equal positions: pass its %llu rest positions", m,
                     (unsigned long long)mi.vertex_count);
  if (mi.order != SKF_ORDER_FILE && mi.index_count) {
    uint32_t maxi = 0, h;
    if (!o->indices || o->index_count != mi.index_count)
      return skf__fail(err, SKF_ERR_INVALID_ARGUMENT,
                       "mesh %u was coded in triangle order: pass its index buffer (%llu indices)", m,
                       (unsigned long long)mi.index_count);
    h = skf__hash_words((const unsigned char*)o->indices, o->index_count, &maxi);
    if (o->index_count && maxi >= mi.vertex_count)
      return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u: index %u is past %llu vertices", m, maxi,
                       (unsigned long long)mi.vertex_count);
    if (h != mi.index_hash)
      return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "mesh %u: the index buffer is not the one it was encoded with", m);
  }
  return SKF_OK;
}

/* 1 on a big-endian host (a constant once compiled). */
static int skf__host_big(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 0;
}

/* The coding writes 16-bit components byte by byte, low byte first, on every path: on a big-endian host each is
 * turned so that the caller reads host uint16_t values (as the joint table's words and the centres are host ones). */
static void skf__host_order(const skf_mesh_output* o, uint64_t vertex_count) {
  size_t n, i;
  unsigned char* b;
  if (!skf__host_big() || !o->joints) return;
  n = (size_t)vertex_count * o->influences;
  for (b = (unsigned char*)o->joints, i = 0; o->joint_bytes == 2 && i < n; ++i) {
    unsigned char x = b[2 * i];
    b[2 * i] = b[2 * i + 1], b[2 * i + 1] = x;
  }
  for (b = (unsigned char*)o->weights, i = 0; o->weight_bytes == 2 && i < n; ++i) {
    unsigned char x = b[2 * i];
    b[2 * i] = b[2 * i + 1], b[2 * i + 1] = x;
  }
}

SKF_API skf_result skf_decoder_decode_mesh(skf_decoder* dec, const void* data, size_t size, uint32_t mesh,
                                           const skf_mesh_output* out, skf_error* err) {
  skf__file f;
  unsigned char* t = NULL;
  skf_mesh_info mi;
  skf_result rc;
  memset(&f, 0, sizeof f);
  if (!dec) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "decoder is NULL");
  if (!out || !out->joints) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "output and its joints must not be NULL");
  if ((rc = skf__open(data, size, &f, err))) return rc;
  if (mesh >= f.info.mesh_count) return skf__fail(err, SKF_ERR_OUT_OF_RANGE, "mesh %u of %u", mesh, f.info.mesh_count);
  if ((rc = skf__meshes(&f, &dec->zs, &dec->zs_ready, &dec->tab, &dec->tab_cap, &t, err))) return rc;
  rc = skf__check_output(&f, t, mesh, out, err);
  if (rc) return rc;
  skf__mesh_record(t, mesh, &mi);
  rc = skf__decode_group(dec, &f, t, mi.group, out, mesh, 1, err);
  if (!rc) skf__host_order(out, mi.vertex_count);
  return rc;
}

SKF_API skf_result skf_decoder_decode_all(skf_decoder* dec, const void* data, size_t size, const skf_mesh_output* outs,
                                          skf_error* err) {
  skf__file f;
  unsigned char* t = NULL;
  uint32_t m, g;
  skf_result rc;
  memset(&f, 0, sizeof f);
  if (!dec) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "decoder is NULL");
  if ((rc = skf__open(data, size, &f, err))) return rc;
  if (f.info.mesh_count && !outs) return skf__fail(err, SKF_ERR_INVALID_ARGUMENT, "outputs must not be NULL");
  if ((rc = skf__meshes(&f, &dec->zs, &dec->zs_ready, &dec->tab, &dec->tab_cap, &t, err))) return rc;
  for (m = 0; !rc && m < f.info.mesh_count; ++m) rc = skf__check_output(&f, t, m, &outs[m], err);
  for (g = 0; !rc && g < f.info.group_count; ++g) rc = skf__decode_group(dec, &f, t, g, outs, 0, f.info.mesh_count, err);
  for (m = 0; !rc && skf__host_big() && m < f.info.mesh_count; ++m) {
    skf_mesh_info mi;
    skf__mesh_record(t, m, &mi);
    skf__host_order(&outs[m], mi.vertex_count);
  }
  return rc;
}

SKF_API skf_result skf_decode_mesh(const void* data, size_t size, uint32_t mesh, const skf_mesh_output* out,
                                   skf_error* err) {
  skf_decoder* dec = skf_decoder_create();
  skf_result rc;
  if (!dec) return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for the decoder");
  rc = skf_decoder_decode_mesh(dec, data, size, mesh, out, err);
  skf_decoder_destroy(dec);
  return rc;
}

SKF_API skf_result skf_decode_all(const void* data, size_t size, const skf_mesh_output* outs, skf_error* err) {
  skf_decoder* dec = skf_decoder_create();
  skf_result rc;
  if (!dec) return skf__fail(err, SKF_ERR_OUT_OF_MEMORY, "no memory for the decoder");
  rc = skf_decoder_decode_all(dec, data, size, outs, err);
  skf_decoder_destroy(dec);
  return rc;
}

#endif /* SKF_DECODER_IMPLEMENTED */
#endif /* SKF_DECODER_IMPLEMENTATION */
