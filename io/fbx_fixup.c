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

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FBX_HEADER_BYTES 27
#define FBX_MAX_DEPTH 64
#define FBX_FOOTER_TAIL 144 /* after the padding: 4 zero bytes, uint32 version, 120 zero bytes, 16-byte magic */

static const char k_magic[21] = "Kaydara FBX Binary  "; /* 20 characters + the terminating zero */

typedef struct fbx_fix {
  const uint8_t* in;
  size_t n;
  const int64_t* stops; /* per AnimationStack: LocalStop / ReferenceStop written over Assimp's (NULL: kept) */
  uint32_t stop_count;
  uint32_t stacks;      /* AnimationStack records seen so far */
  int64_t in_stack;     /* index of the AnimationStack being copied, -1 outside */
  bool in_curve;        /* copying the children of an AnimationCurve */
  bool linear_keys;     /* KeyAttrFlags 0 -> SKIO_FBX_KEY_LINEAR (output pass) */
  size_t* curve_at;     /* output offset of each AnimationCurve's KeyValueFloat floats (output pass) */
  uint32_t* curve_n;    /* ... and their count; SIZE_MAX offset = not a plain float array */
  size_t curves, curves_cap;
  bool curves_oom;
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

/* Records Assimp writes with an empty child list (FBX::Node::force_has_children: AnimationStack, AnimationLayer,
 * References), which its ASCII writer shows as "{ }" and its binary writer as nothing at all (the lost null
 * record). Readers need the scope: Assimp's FBX importer builds an AnimationLayer only from an element with a
 * "{ }" scope (GetRequiredScope) and otherwise drops the layer, so every animation of a binary file came back
 * empty (tests/unit/test_fbx_binary.c). Such a record gets its null record even without children. */
static bool needs_scope(const uint8_t* name, size_t n) {
  static const char* const k_names[] = {"AnimationStack", "AnimationLayer", "References"};
  for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; ++i)
    if (strlen(k_names[i]) == n && memcmp(name, k_names[i], n) == 0) return true;
  return false;
}

/* Reads a string property ('S', uint32 length, bytes) at p within [p, end); returns the position after it, or 0. */
static size_t string_prop(const uint8_t* in, size_t p, size_t end, const uint8_t** str, size_t* len) {
  if (end - p < 5 || in[p] != 'S') return 0;
  size_t l = (size_t)in[p + 1] | (size_t)in[p + 2] << 8 | (size_t)in[p + 3] << 16 | (size_t)in[p + 4] << 24;
  if (l > end - p - 5) return 0;
  *str = in + p + 5;
  *len = l;
  return p + 5 + l;
}

/* A "P" record inside AnimationStack k: P: "LocalStop" | "ReferenceStop", "KTime", "Time", "", int64. Assimp 5.2.5
 * writes both as whole seconds (FBXExporter.cpp to_ktime(ticks, anim): (int64)ticks / (int64)ticks_per_second
 * * FBX::SECOND, assimp issue #4556), and its FBX importer drops every key after LocalStop: SimpleSkin's last
 * 0.5 s came back frozen (tests/unit/test_roundtrip.c samples the last key). The exact stop is written over the
 * int64 in the copy at out_at (the record's properties start at input props, output out_at). */
static void patch_stop(fbx_fix* f, size_t props, size_t plen, size_t out_at) {
  if (!f->dst || !f->stops || f->in_stack < 0 || (uint64_t)f->in_stack >= f->stop_count) return;
  const size_t end = props + plen;
  const uint8_t* str;
  size_t len, p = string_prop(f->in, props, end, &str, &len);
  if (!p || !((len == 9 && !memcmp(str, "LocalStop", 9)) || (len == 13 && !memcmp(str, "ReferenceStop", 13)))) return;
  for (int k = 0; k < 3 && p; ++k) p = string_prop(f->in, p, end, &str, &len); /* "KTime", "Time", "" */
  if (!p || end - p < 9 || f->in[p] != 'L') return;
  uint64_t v = (uint64_t)f->stops[f->in_stack];
  for (int i = 0; i < 8; ++i) f->dst[out_at + (p + 1 - props) + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* KeyValueFloat of an AnimationCurve: remembers where its floats land in the output (plain 'f' arrays only:
 * type, uint32 count, uint32 encoding 0, uint32 byte length = 4 * count), for unwrap_rotations. */
static void note_curve_values(fbx_fix* f, size_t props, size_t plen, size_t out_at) {
  if (!f->dst || f->curves_oom) return;
  if (f->curves == f->curves_cap) {
    size_t cap = f->curves_cap ? f->curves_cap * 2 : 256;
    size_t* a = realloc(f->curve_at, cap * sizeof *a);
    if (a) f->curve_at = a;
    uint32_t* c = a ? realloc(f->curve_n, cap * sizeof *c) : NULL;
    if (c) f->curve_n = c;
    if (!a || !c) {
      f->curves_oom = true;
      return;
    }
    f->curves_cap = cap;
  }
  const uint8_t* p = f->in + props;
  size_t at = SIZE_MAX;
  uint32_t count = 0;
  if (plen >= 13 && p[0] == 'f') {
    count = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24;
    uint32_t enc = (uint32_t)p[5] | (uint32_t)p[6] << 8 | (uint32_t)p[7] << 16 | (uint32_t)p[8] << 24;
    uint32_t len = (uint32_t)p[9] | (uint32_t)p[10] << 8 | (uint32_t)p[11] << 16 | (uint32_t)p[12] << 24;
    if (enc == 0 && (uint64_t)len == 4ull * count && 13 + (uint64_t)len <= plen) at = out_at + 13;
  }
  f->curve_at[f->curves] = at;
  f->curve_n[f->curves++] = count;
}

/* KeyAttrFlags of an AnimationCurve: each value 0 of a raw 'i' array (type, uint32 count, uint32 encoding 0, uint32
 * byte length = 4 * count) written as linear keys; any other encoding is left as it is. */
static void linear_flags(fbx_fix* f, size_t props, size_t plen, size_t out_at) {
  if (!f->dst || !f->linear_keys || plen < 13 || f->in[props] != 'i') return;
  const uint8_t* p = f->in + props;
  const uint32_t count = (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24;
  const uint32_t enc = (uint32_t)p[5] | (uint32_t)p[6] << 8 | (uint32_t)p[7] << 16 | (uint32_t)p[8] << 24;
  const uint32_t len = (uint32_t)p[9] | (uint32_t)p[10] << 8 | (uint32_t)p[11] << 16 | (uint32_t)p[12] << 24;
  if (enc != 0 || (uint64_t)len != 4ull * count || 13 + (uint64_t)len > plen) return;
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* v = f->dst + out_at + 13 + 4 * (size_t)i;
    if (v[0] | v[1] | v[2] | v[3]) continue;
    for (int b = 0; b < 4; ++b) v[b] = (uint8_t)((uint32_t)SKIO_FBX_KEY_LINEAR >> (8 * b));
  }
}

/* ---- Euler unwrapping ----------------------------------------------------------------------------------- */
/* Assimp 5.2.5's FBX writer turns every rotation key into Euler angles on its own (aiMatrix4x4::Decompose, XYZ,
 * degrees in -180..180), so consecutive keys jump by about 360 degrees where a rotation crosses +-180, or switch
 * to the other of the two Euler triples of one rotation. Its FBX importer converts Euler keys to quaternions at
 * the key times, but where an angle changes by more than 180 degrees between two keys it first inserts keys
 * interpolated linearly in Euler space, which then lie nowhere near the rotation between the keys (CesiumMan:
 * keys at 0.729 and 0.750 s between the 0.708 and 0.750 keys, a leg turned about 180 degrees off, 8 % of the
 * diagonal; Clonk up to 40 %). Each key is replaced by the equivalent triple closest to the key before it: the
 * same triple or (x + 180, 180 - y, z + 180) (the same rotation for X-then-Y-then-Z order), each angle shifted by
 * whole turns. The keys still describe the same rotations; only the jumps are gone. */
static void euler_filter(double* x, double* y, double* z, size_t n) {
  for (size_t k = 1; k < n; ++k) {
    const double p[3] = {x[k - 1], y[k - 1], z[k - 1]};
    const double c[2][3] = {{x[k], y[k], z[k]}, {x[k] + 180.0, 180.0 - y[k], z[k] + 180.0}};
    double best[3] = {x[k], y[k], z[k]}, best_d = INFINITY;
    for (int a = 0; a < 2; ++a) {
      double v[3], d = 0.0;
      for (int i = 0; i < 3; ++i) {
        v[i] = c[a][i] + 360.0 * round((p[i] - c[a][i]) / 360.0);
        d += fabs(v[i] - p[i]);
      }
      if (d < best_d) {
        best_d = d;
        memcpy(best, v, sizeof best);
      }
    }
    if (!isfinite(best_d)) continue; /* a NaN key: left as written */
    x[k] = best[0], y[k] = best[1], z[k] = best[2];
  }
}

static float get_f32(const uint8_t* p) {
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static void put_f32(uint8_t* p, float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(u >> (8 * i));
}

/* Assimp writes 9 AnimationCurves per animated node, in the order T.x T.y T.z R.x R.y R.z S.x S.y S.z
 * (FBXExporter::WriteObjects); the rotation triple of each group is unwrapped in buf. Anything else (a count that
 * is no multiple of 9, arrays of different lengths, compressed arrays) is left alone. */
static int unwrap_binary(fbx_fix* f, uint8_t* buf) {
  if (f->curves % 9) return SKC_OK;
  for (size_t g = 0; g < f->curves; g += 9) {
    const size_t* at = f->curve_at + g + 3;
    const uint32_t n = f->curve_n[g + 3];
    if (at[0] == SIZE_MAX || at[1] == SIZE_MAX || at[2] == SIZE_MAX || f->curve_n[g + 4] != n ||
        f->curve_n[g + 5] != n || n < 2)
      continue;
    double* v = malloc((size_t)n * 3 * sizeof *v);
    if (!v) return skc_fail(f->err, SKC_OUT_OF_MEMORY, "FBX fix-up: out of memory");
    for (int a = 0; a < 3; ++a)
      for (uint32_t k = 0; k < n; ++k) v[(size_t)a * n + k] = get_f32(buf + at[a] + 4 * (size_t)k);
    euler_filter(v, v + n, v + 2 * (size_t)n, n);
    for (int a = 0; a < 3; ++a)
      for (uint32_t k = 0; k < n; ++k) put_f32(buf + at[a] + 4 * (size_t)k, (float)v[(size_t)a * n + k]);
    free(v);
  }
  return SKC_OK;
}

/* Assimp 5.2.5's FBX writer connects a scale curve node to its model's property "Lcl Scale" (FBXExporter.cpp); the
 * property is "Lcl Scaling" (Assimp's own importer, Blender's and the FBX SDK look for that), so every scale key it
 * wrote was read as none: a joint keyed to scale 2 came back at 1. A "C" record whose properties are strings and
 * integers only (OO / OP connections) and whose last one is the string "Lcl Scale": *at = that string property's
 * offset. */
static bool scale_connection(const fbx_fix* f, const uint8_t* name, size_t name_len, size_t props, size_t plen,
                             size_t* at) {
  if (name_len != 1 || name[0] != 'C') return false;
  const size_t end = props + plen;
  size_t p = props, last = SIZE_MAX;
  while (p < end) {
    const uint8_t* str;
    size_t len, q = f->in[p] == 'S' ? string_prop(f->in, p, end, &str, &len) : 0;
    if (q) {
      last = p;
      p = q;
    } else if (f->in[p] == 'L' && end - p >= 9) {
      last = SIZE_MAX;
      p += 9;
    } else {
      return false;
    }
  }
  if (last == SIZE_MAX || end - last != 5 + 9 || memcmp(f->in + last + 5, "Lcl Scale", 9) != 0) return false;
  *at = last;
  return true;
}

/* The record's header and properties, with "Lcl Scaling" for a connection's "Lcl Scale" (scale_connection). */
static void emit_head(fbx_fix* f, size_t o, size_t name_len, size_t props, size_t plen) {
  size_t at;
  if (!scale_connection(f, f->in + o + f->hdr, name_len, props, plen, &at)) {
    emit(f, f->in + o, f->hdr + name_len + plen);
    return;
  }
  static const uint8_t k_scaling[16] = {'S', 11, 0, 0, 0, 'L', 'c', 'l', ' ', 'S', 'c', 'a', 'l', 'i', 'n', 'g'};
  const size_t start = f->at;
  emit(f, f->in + o, at - o);
  emit(f, k_scaling, sizeof k_scaling);
  if (f->dst) put_field(f, start + 2 * f->field, plen + 2);
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
  emit_head(f, o, name_len, props, (size_t)plen); /* the end field is rewritten below */
  const uint8_t* name = f->in + o + f->hdr;
  if (name_len == 1 && name[0] == 'P') patch_stop(f, props, (size_t)plen, start + f->hdr + name_len);
  if (f->in_curve && name_len == 13 && !memcmp(name, "KeyValueFloat", 13))
    note_curve_values(f, props, (size_t)plen, start + f->hdr + name_len);
  if (f->in_curve && name_len == 12 && !memcmp(name, "KeyAttrFlags", 12))
    linear_flags(f, props, (size_t)plen, start + f->hdr + name_len);
  const int64_t outer_stack = f->in_stack;
  const bool outer_curve = f->in_curve;
  if (name_len == 14 && !memcmp(name, "AnimationStack", 14)) f->in_stack = f->stacks++;
  f->in_curve = name_len == 14 && !memcmp(name, "AnimationCurve", 14);
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
  f->in_stack = outer_stack;
  f->in_curve = outer_curve;
  const bool scope = needs_scope(name, name_len);
  if (children || ended_by_null || scope) emit_zeros(f, f->hdr);
  if ((children || scope) && !ended_by_null) f->added++;
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
  f->stacks = 0;
  f->in_stack = -1;
  f->in_curve = false;
  f->curves = 0;
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
  return skio_fbx_fix_binary(in, n, NULL, out, out_n, out_added, err);
}

int skio_fbx_fix_binary(const uint8_t* in, size_t n, const skio_fbx_fix_options* opts, uint8_t** out, size_t* out_n,
                        size_t* out_added, skc_err* err) {
  if (!in || !out || !out_n || (opts && opts->stop_count && !opts->stack_stops))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "FBX fix-up: NULL argument");
  if (n < FBX_HEADER_BYTES || memcmp(in, k_magic, sizeof k_magic) != 0)
    return skc_fail(err, SKC_FORMAT, "FBX fix-up: not a binary FBX file (%zu bytes, no \"Kaydara FBX Binary\" header)",
                    n);
  uint32_t version = (uint32_t)in[23] | (uint32_t)in[24] << 8 | (uint32_t)in[25] << 16 | (uint32_t)in[26] << 24;
  fbx_fix f = {.in = in,
               .n = n,
               .stops = opts ? opts->stack_stops : NULL,
               .stop_count = opts ? opts->stop_count : 0,
               .linear_keys = opts && opts->linear_keys,
               .field = version >= 7500 ? 8 : 4,
               .err = err};
  f.hdr = 3 * f.field + 1;
  int rc = fix_pass(&f);
  if (rc) return rc;
  size_t size = f.at;
  uint8_t* buf = malloc(size ? size : 1);
  if (!buf) return skc_fail(err, SKC_OUT_OF_MEMORY, "FBX fix-up: out of memory for %zu bytes", size);
  f.dst = buf;
  if ((rc = fix_pass(&f)) != SKC_OK || f.at != size || f.curves_oom) {
    free(buf);
    free(f.curve_at);
    free(f.curve_n);
    if (f.curves_oom && !rc) return skc_fail(err, SKC_OUT_OF_MEMORY, "FBX fix-up: out of memory");
    return rc ? rc : skc_fail(err, SKC_INTERNAL, "FBX fix-up: passes disagree on the size");
  }
  rc = opts && opts->unwrap_rotations ? unwrap_binary(&f, buf) : SKC_OK;
  free(f.curve_at);
  free(f.curve_n);
  if (rc) {
    free(buf);
    return rc;
  }
  *out = buf;
  *out_n = size;
  if (out_added) *out_added = f.added;
  return SKC_OK;
}
