/* fbx_fixup.c - puts back the null records Assimp 5.2.5's binary FBX writer leaves out.
 *
 * Binary FBX (7.x): a 27-byte header ("Kaydara FBX Binary  \0", 0x1a 0x00, uint32 version at byte 23), then node
 * records. A record is: end offset (absolute, from the start of the file), property count, property-list byte
 * length (each uint32 before version 7500, uint64 from 7500 on), a uint8 name length, the name, the properties,
 * then the child records. A record that has children ends with a null record (a record header of zeros: 13
 * bytes, 25 from 7500 on), and the top-level list ends with one too, followed by the footer.
 *
 * The cause of "FBX-Tokenize ... block offset is out of range" (Assimp) and "failed to read nested block
 * sentinel" (Blender): Assimp 5.2.5 (code/AssetLib/FBX/FBXExportNode.cpp, Node::EndBinary) writes the null record
 * with `s.PutString(NULL_RECORD)`, where NULL_RECORD is a `const char[25]` of zeros (FBXCommon.h); the implicit
 * conversion to std::string stops at the first zero byte, so ZERO bytes are written and the end offset then points
 * right after the last child. Both readers read children only up to `end offset - 25` and then expect 25 zero
 * bytes, so the last child of every nested list runs past that limit. In tests/data/cylinder_rig.glb exported with
 * `assimp export`: CreationTimeStamp spans bytes 200..528, its last child Millisecond spans 487..528, and Assimp
 * stops at byte 495 (0x1ef, the end-offset field of Millisecond read at 487 + 8) because 528 > 528 - 25. The top-level
 * terminator and the footer are written by other code (with the right byte count), and everything else (property
 * encodings, counts, lengths) is as the readers expect. Upstream: assimp issue #4686 (5.2.4, "vector subscript out
 * of range" in MSVC debug builds, same empty string) fixed by PR #4824 (merged 2022-12-16, after 5.2.5), which
 * writes a std::string of 25 zero bytes instead; with such an Assimp this fix-up leaves the bytes unchanged.
 *
 * The fix is structural and well defined: re-emit every record with one null record after its children, the end
 * offsets recomputed, and the footer padding (Assimp aligns the bytes after the 16-byte footer id to 16) redone.
 * A file that is already correct comes out byte-identical. */
#include "fbx_fixup.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FBX_HEADER_BYTES 27
#define FBX_MAX_DEPTH 64
#define FBX_FOOTER_TAIL 144 /* after the padding: 4 zero bytes, uint32 version, 120 zero bytes, 16-byte magic */

static const char k_magic[21] = "Kaydara FBX Binary  "; /* 20 characters + the terminating zero */

typedef struct fbx_fix {
  const uint8_t* in;
  size_t n;
  uint8_t* dst; /* NULL in the sizing pass */
  size_t at;    /* output cursor, counted in both passes */
  size_t field; /* 4 or 8 bytes per record field */
  size_t hdr;   /* 3 fields + the name-length byte */
  size_t added;
  skc_err* err;
} fbx_fix;

static uint64_t get_field(const fbx_fix* f, size_t at) {
  uint64_t v = 0;
  for (size_t i = f->field; i-- > 0;) v = (v << 8) | f->in[at + i];
  return v;
}

static void put_field(fbx_fix* f, size_t at, uint64_t v) {
  for (size_t i = 0; i < f->field; ++i) f->dst[at + i] = (uint8_t)(v >> (8 * i));
}

static void emit(fbx_fix* f, const uint8_t* src, size_t len) {
  if (f->dst) memcpy(f->dst + f->at, src, len);
  f->at += len;
}

static void emit_zeros(fbx_fix* f, size_t len) {
  if (f->dst) memset(f->dst + f->at, 0, len);
  f->at += len;
}

static bool zeros(const uint8_t* p, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (p[i]) return false;
  return true;
}

static bool is_null_record(const fbx_fix* f, size_t o, size_t end) {
  return end - o >= f->hdr && zeros(f->in + o, f->hdr);
}

/* Copies the record at input offset o (which must lie within [o, end)) with its children; *next = its end. */
static int copy_node(fbx_fix* f, size_t o, size_t end, unsigned depth, size_t* next) {
  if (depth > FBX_MAX_DEPTH)
    return skc_fail(f->err, SKC_FORMAT, "FBX: records nested deeper than %d at byte %zu", FBX_MAX_DEPTH, o);
  if (end - o < f->hdr) return skc_fail(f->err, SKC_FORMAT, "FBX: truncated record header at byte %zu", o);
  uint64_t e = get_field(f, o), plen = get_field(f, o + 2 * f->field);
  size_t name_len = f->in[o + 3 * f->field];
  size_t props = o + f->hdr + name_len;
  if (name_len == 0 || props > end || plen > end - props || e > end || e < props + plen)
    return skc_fail(f->err, SKC_FORMAT,
                    "FBX: record at byte %zu (end offset %llu, %llu property bytes) does not fit in its parent (..%zu)",
                    o, (unsigned long long)e, (unsigned long long)plen, end);
  size_t start = f->at;
  emit(f, f->in + o, f->hdr + name_len + (size_t)plen); /* the end field is rewritten below */
  size_t c = props + (size_t)plen;
  unsigned children = 0;
  bool ended_by_null = false;
  while (c < e) {
    if (is_null_record(f, c, (size_t)e)) { /* an existing terminator: dropped here, written once below */
      c += f->hdr;
      ended_by_null = true;
      continue;
    }
    ended_by_null = false;
    int rc = copy_node(f, c, (size_t)e, depth + 1, &c);
    if (rc) return rc;
    children++;
  }
  if (children || ended_by_null) emit_zeros(f, f->hdr);
  if (children && !ended_by_null) f->added++;
  if (f->field == 4 && f->at > UINT32_MAX)
    return skc_fail(f->err, SKC_FORMAT, "FBX: file grows past 4 GiB, beyond 32-bit record offsets");
  if (f->dst) put_field(f, start, f->at);
  *next = (size_t)e;
  return SKC_OK;
}

/* One pass over the whole file (sizing when f->dst is NULL). */
static int fix_pass(fbx_fix* f) {
  f->at = 0;
  f->added = 0;
  emit(f, f->in, FBX_HEADER_BYTES);
  size_t c = FBX_HEADER_BYTES;
  while (c < f->n && !is_null_record(f, c, f->n)) {
    int rc = copy_node(f, c, f->n, 0, &c);
    if (rc) return rc;
  }
  if (c >= f->n)
    return skc_fail(f->err, SKC_FORMAT, "FBX: no null record ends the top-level list (truncated at byte %zu)", f->n);
  emit(f, f->in + c, f->hdr);
  c += f->hdr;
  /* Footer as Assimp writes it: 16-byte id, zero padding so the next byte is 16-aligned (1..16 bytes), then
   * FBX_FOOTER_TAIL bytes. The padding follows the new position; any other footer is copied as it is. */
  size_t rest = f->n - c;
  size_t pad_in = 16 - ((c + 16) % 16);
  if (rest == 16 + pad_in + FBX_FOOTER_TAIL && zeros(f->in + c + 16, pad_in)) {
    emit(f, f->in + c, 16);
    emit_zeros(f, 16 - (f->at % 16));
    emit(f, f->in + c + 16 + pad_in, FBX_FOOTER_TAIL);
  } else {
    emit(f, f->in + c, rest);
  }
  return SKC_OK;
}

int skio_fbx_fix_sentinels(const uint8_t* in, size_t n, uint8_t** out, size_t* out_n, size_t* out_added,
                           skc_err* err) {
  if (!in || !out || !out_n) return skc_fail(err, SKC_INVALID_ARGUMENT, "FBX fix-up: NULL argument");
  if (n < FBX_HEADER_BYTES || memcmp(in, k_magic, sizeof k_magic) != 0)
    return skc_fail(err, SKC_FORMAT, "FBX fix-up: not a binary FBX file (%zu bytes, no \"Kaydara FBX Binary\" header)",
                    n);
  uint32_t version = (uint32_t)in[23] | (uint32_t)in[24] << 8 | (uint32_t)in[25] << 16 | (uint32_t)in[26] << 24;
  fbx_fix f = {.in = in, .n = n, .field = version >= 7500 ? 8 : 4, .err = err};
  f.hdr = 3 * f.field + 1;
  int rc = fix_pass(&f);
  if (rc) return rc;
  size_t size = f.at;
  uint8_t* buf = malloc(size ? size : 1);
  if (!buf) return skc_fail(err, SKC_OUT_OF_MEMORY, "FBX fix-up: out of memory for %zu bytes", size);
  f.dst = buf;
  if ((rc = fix_pass(&f)) != SKC_OK || f.at != size) {
    free(buf);
    return rc ? rc : skc_fail(err, SKC_INTERNAL, "FBX fix-up: passes disagree on the size");
  }
  *out = buf;
  *out_n = size;
  if (out_added) *out_added = f.added;
  return SKC_OK;
}
