/* skio_fbx_tree.h - a binary FBX file (7.x, 32- and 64-bit record headers) as a tree of records over its bytes, and
 * a writer that puts the tree back with a few records changed, dropped or added: every other record keeps its
 * name and property bytes exactly, only end offsets move (io/fbx_tree.c). Used by the in-place skin editor
 * (io/fbx_edit.c). Internal to io/.
 *
 * Layout (the format as Blender's io_scene_fbx and Assimp read it): a 27-byte header ("Kaydara FBX Binary  \0",
 * 0x1a 0x00, uint32 version), then records: end offset (absolute), property count, property bytes (uint32 each
 * before version 7500, uint64 from 7500), a uint8 name length, the name, the properties, the children, and a null
 * record (a header of zeros) after the children; the top-level list ends with a null record, then the footer.
 * Properties: a type byte, then Y int16, C bool (1 byte), I int32, F float, D double, L int64, S/R uint32 length +
 * bytes, or an array (f d l i b: uint32 count, uint32 encoding 0 = raw / 1 = zlib, uint32 stored bytes, data). */
#ifndef SKIO_FBX_TREE_H
#define SKIO_FBX_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

#define SKIO_FBX_NONE UINT32_MAX

typedef struct skio_fbx_rec {
  size_t at;         /* first byte of the record */
  size_t end;        /* its end offset */
  size_t props;      /* first property byte */
  size_t props_len;
  uint32_t prop_count;
  uint32_t name_len; /* the name starts at at + header bytes */
  uint32_t parent, first, next; /* records: parent, first child, next sibling (SKIO_FBX_NONE: none) */
  bool nulled;       /* a null record ends its children (or its empty scope) */
} skio_fbx_rec;

typedef struct skio_fbx_tree {
  const uint8_t* data;
  size_t size;
  uint32_t version;
  size_t field;     /* 4 or 8 bytes per header field */
  size_t hdr;       /* 3 fields + the name-length byte */
  skio_fbx_rec* recs;
  uint32_t count, cap;
  uint32_t first;   /* first top-level record */
  size_t top_null;  /* offset of the null record that ends the top-level list */
} skio_fbx_tree;

typedef struct skio_fbx_prop {
  char type;
  const uint8_t* p;  /* scalar: its bytes; S / R: the string's bytes; array: the stored data */
  size_t len;        /* S / R: bytes; array: stored bytes */
  uint32_t count;    /* array: elements */
  uint32_t encoding; /* array: 0 raw, 1 zlib */
} skio_fbx_prop;

/* True when the bytes start like a binary FBX file. */
bool skio_fbx_is_binary(const uint8_t* data, size_t size);
/* Parses the whole record tree (bounded: depth 64, every record inside its parent, properties inside their
 * record). The tree borrows data. SKC_FORMAT with the byte offset on a damaged file; SKC_OUT_OF_MEMORY. */
int skio_fbx_tree_parse(const uint8_t* data, size_t size, skio_fbx_tree* t, skc_err* err);
void skio_fbx_tree_free(skio_fbx_tree* t);

bool skio_fbx_is(const skio_fbx_tree* t, uint32_t r, const char* name);
/* First child of r (SKIO_FBX_NONE: the top level) named name, starting after child `after` (SKIO_FBX_NONE: from
 * the first); SKIO_FBX_NONE when none. */
uint32_t skio_fbx_child(const skio_fbx_tree* t, uint32_t r, const char* name, uint32_t after);
/* Property k of record r; false when r has fewer or it does not parse. */
bool skio_fbx_prop_at(const skio_fbx_tree* t, uint32_t r, uint32_t k, skio_fbx_prop* out);
/* The property of record r at byte *at of its properties (0: the first), *at then past it; false after the last or
 * when it does not parse. For walking every property: skio_fbx_prop_at walks from the first on each call, which made
 * writing a record of 70,000 properties as text quadratic (minutes; fuzz_fbx_ascii, session 73). */
bool skio_fbx_prop_next(const skio_fbx_tree* t, uint32_t r, size_t* at, skio_fbx_prop* out);
bool skio_fbx_prop_i64(const skio_fbx_tree* t, uint32_t r, uint32_t k, int64_t* v); /* L, I, Y */
/* S property: its bytes up to the first "\0\1" (an object's name without its class) */
bool skio_fbx_prop_name(const skio_fbx_tree* t, uint32_t r, uint32_t k, const uint8_t** s, size_t* len);
bool skio_fbx_prop_str_is(const skio_fbx_tree* t, uint32_t r, uint32_t k, const char* s);
/* Array property decoded (inflated when encoded) into a new array of doubles (d, f) or int32 (i); *out NULL when
 * count is 0. SKC_FORMAT on a wrong type, a bad stream or a size that disagrees with the count. */
int skio_fbx_array_f64(const skio_fbx_prop* p, double** out, skc_err* err);
int skio_fbx_array_i32(const skio_fbx_prop* p, int32_t** out, skc_err* err);
/* Array property p's elements as stored on disk (little-endian; 1 byte for b, 4 for f and i, 8 for d and l): *bytes
 * points into the file, or into *owned (free it) when the array is zlib-encoded. SKC_FORMAT as above. */
int skio_fbx_array_bytes(const skio_fbx_prop* p, const uint8_t** bytes, uint8_t** owned, skc_err* err);
/* The smallest element of an int64 array property (l), for KeyTime; SKC_FORMAT when it is not one or is empty. */
int skio_fbx_array_min_i64(const skio_fbx_prop* p, int64_t* min, skc_err* err);
/* The first property of child `name` of r as a decoded array (a convenience for Vertices, Indexes, ...): SKC_OK
 * with *n = 0 when the child is missing. */
int skio_fbx_child_f64(const skio_fbx_tree* t, uint32_t r, const char* name, double** out, size_t* n, skc_err* err);
int skio_fbx_child_i32(const skio_fbx_tree* t, uint32_t r, const char* name, int32_t** out, size_t* n, skc_err* err);

/* ---- writing ---------------------------------------------------------------------------------------------- */

/* A record the edit adds: name, property bytes (built with skio_fbx_put_*), children. */
typedef struct skio_fbx_new {
  const char* name;
  uint8_t* props;
  size_t props_len;
  uint32_t prop_count;
  struct skio_fbx_new* kids;
  uint32_t kid_count;
} skio_fbx_new;

/* Per record of the tree: new property bytes (props != NULL), dropped, or records appended after its children. */
typedef struct skio_fbx_change {
  const uint8_t* props;
  size_t props_len;
  uint32_t prop_count;
  bool drop;
  const skio_fbx_new* add;
  uint32_t add_count;
} skio_fbx_change;

/* Writes t with changes (t->count entries, or NULL for none) into a new buffer: every record re-emitted with its end
 * offset recomputed, null records where the source had them (and after children a record did not have before), the
 * footer's padding to 16 bytes redone. Unchanged, the output equals the input byte for byte. */
int skio_fbx_tree_write(const skio_fbx_tree* t, const skio_fbx_change* changes, uint8_t** out, size_t* out_n,
                        skc_err* err);

/* Property builders: append to a malloc'd byte string; out of memory sets oom (p freed) and ignores later calls. */
typedef struct skio_fbx_props {
  uint8_t* p;
  size_t n, cap;
  uint32_t count;
  bool oom;
} skio_fbx_props;
void skio_fbx_put_i64(skio_fbx_props* b, int64_t v);
void skio_fbx_put_i32(skio_fbx_props* b, int32_t v);
void skio_fbx_put_f64(skio_fbx_props* b, double v);
void skio_fbx_put_str(skio_fbx_props* b, const void* s, size_t len);
/* Arrays: zlib-compressed (encoding 1) when deflate != 0 and the data is at least 128 bytes, as the writers of FBX do. */
void skio_fbx_put_i32_array(skio_fbx_props* b, const int32_t* v, size_t n, int deflate);
void skio_fbx_put_f64_array(skio_fbx_props* b, const double* v, size_t n, int deflate);
void skio_fbx_put_i64_array(skio_fbx_props* b, const int64_t* v, size_t n, int deflate);
void skio_fbx_put_f32_array(skio_fbx_props* b, const float* v, size_t n, int deflate);
/* count properties as they are in a file (type bytes included): a record's whole property list copied. */
void skio_fbx_put_raw(skio_fbx_props* b, const uint8_t* bytes, size_t len, uint32_t count);

/* ---- ASCII FBX (io/fbx_ascii_write.c) ------------------------------------------------------------------------ */

/* Binary FBX data[0, size) as ASCII FBX 7.x text (*out malloc'd, NUL-terminated, *out_n without the NUL): the same
 * records in the same order with every value exact, doubles in the fewest digits that read back to the same double,
 * floats to the same float, integers as they are, "Name\x00\x01Class" names as "Class::Name", raw bytes as base64;
 * the binary file's top-level FileId, CreationTime and Creator are left out. SKC_FORMAT on a file that does not parse
 * or that ASCII FBX cannot hold (an array beside other properties of its record); SKC_OUT_OF_MEMORY. */
int skio_fbx_to_ascii(const uint8_t* data, size_t size, char** out, size_t* out_n, skc_err* err);

/* ASCII FBX 7.x text[0, n) as the binary FBX file it stands for (io/fbx_ascii_read.c; *out malloc'd): the same records
 * in the same order, each value given the binary type the FBX SDK writes for it (the rules are in that file), arrays
 * uncompressed, "Class::Name" names as "Name\x00\x01Class", Content's base64 as raw bytes, the binary header's
 * version the text's FBXVersion. SKC_FORMAT with the line on text that does not parse (never a crash: nesting,
 * names and arrays bounded), SKC_UNSUPPORTED for FBX 6.x (below 7100, which Assimp refuses) or a result past the
 * 32-bit offsets of FBX 7.4, SKC_OUT_OF_MEMORY. */
int skio_fbx_from_ascii(const char* text, size_t n, uint8_t** out, size_t* out_n, skc_err* err);
/* data[0, n) as binary FBX: *bin NULL (data as it is) when it is binary already, else the conversion of its ASCII
 * text into *bin (malloc'd). The errors of skio_fbx_from_ascii. */
int skio_fbx_binary_of(const uint8_t* data, size_t n, uint8_t** bin, size_t* bin_n, skc_err* err);

/* ---- geometric transforms (io/fbx_geometric.c) ------------------------------------------------------------ */

/* Model record model's geometric transform G = T R S (GeometricTranslation, GeometricRotation in the Model's
 * RotationOrder, GeometricScaling), column-major; false when it has none (identity) or a value is not finite. */
bool skio_fbx_model_geometric(const skio_fbx_tree* t, uint32_t model, double g[16]);
/* Model record model's local transform as Blender's FBX importer builds it from Lcl Translation / Rotation / Scaling,
 * RotationOffset / Pivot, ScalingOffset / Pivot and, with RotationActive, RotationOrder, PreRotation and PostRotation
 * (the Definitions' template values are not read: FBX's defaults stand); false when a value is not finite. */
bool skio_fbx_model_local(const skio_fbx_tree* t, uint32_t model, double m[16]);
/* out = a * b for column-major 4x4 doubles (FBX's matrices: translation in 12..14). */
/* Number k of P record p (name, type, label, flags, then the values) as a double (D, F or an integer); false when it
 * is none (fbx_geometric.c). */
bool skio_fbx_p_number(const skio_fbx_tree* t, uint32_t p, uint32_t k, double* v);
void skio_fbx_mat_mul(const double* a, const double* b, double* out);
/* The Models of binary FBX data[0, size) that are bones to Blender's importer (class LimbNode or Limb); UINT32_MAX
 * when the file does not parse. */
uint32_t skio_fbx_limb_count(const uint8_t* data, size_t size);
/* Their names, sorted (skio_names_have); *known false (and no names) when the file does not parse. SKC_OUT_OF_MEMORY
 * is the only failure. */
int skio_fbx_limb_names(const uint8_t* data, size_t size, char*** out, uint32_t* count, bool* known);
/* The names of the Models of FBX data[0, size), binary or ASCII, of class Null (Blender's empties, Maya's locators,
 * 3ds Max's dummies), sorted (skio_names_have looks them up, skio_names_free frees them); none when the file does not
 * parse. SKC_OUT_OF_MEMORY is the only failure. */
int skio_fbx_null_names(const uint8_t* data, size_t size, char*** out, uint32_t* count);

/* out = m^-1 for a column-major 4x4 double matrix (Gauss-Jordan with partial pivoting); false when singular. */
bool skio_fbx_mat_inverse(const double* m, double* out);
/* G as the floats the reader transforms a skinned mesh with (the editor compares its control points so). */
void skio_fbx_geometric_float(const double g[16], float out[16]);

typedef struct skio_fbx_geometric {
  char* name; /* the Model's name (without its class) */
  double g[16];
} skio_fbx_geometric;
/* Every Model of a binary FBX file with a geometric transform, in file order. */
int skio_fbx_geometric_list(const uint8_t* data, size_t size, skio_fbx_geometric** out, uint32_t* count, skc_err* err);
void skio_fbx_geometric_free(skio_fbx_geometric* list, uint32_t count);

typedef struct skio_fbx_ortho {
  char* name;  /* the camera Model's name (without its class) */
  double zoom; /* OrthoZoom: the view's width (Blender's ortho_scale) */
} skio_fbx_ortho;
/* The orthographic cameras of a binary FBX file (fbx_cameras.c), in file order. */
int skio_fbx_ortho_list(const uint8_t* data, size_t size, skio_fbx_ortho** out, uint32_t* count, skc_err* err);
void skio_fbx_ortho_free(skio_fbx_ortho* list, uint32_t count);

typedef struct skio_fbx_shape_weight {
  char* name;    /* the BlendShapeChannel's name (without its class): Assimp's anim mesh name */
  double weight; /* its DeformPercent / 100: the shape key's value */
  char* model;   /* the Model whose Geometry the channel's BlendShape deforms (its name), NULL when not found */
} skio_fbx_shape_weight;
/* The shape key channels of a binary FBX file with their values, in file order (fbx_shapes.c). */
int skio_fbx_shape_weights(const uint8_t* data, size_t size, skio_fbx_shape_weight** out, uint32_t* count,
                           skc_err* err);
void skio_fbx_shape_weights_free(skio_fbx_shape_weight* list, uint32_t count);

/* The user properties (flags with 'U') of every Model of a binary FBX file, in file order; *skipped counts those of a
 * type not kept (fbx_user_props.c). */
struct skio_user_prop;
int skio_fbx_user_props(const uint8_t* data, size_t size, struct skio_user_prop** out, uint32_t* count,
                        uint32_t* skipped, skc_err* err);
/* The same of every Material (its node: the material's name), and of every Geometry (the mesh's name). */
int skio_fbx_material_props(const uint8_t* data, size_t size, struct skio_user_prop** out, uint32_t* count,
                            uint32_t* skipped, skc_err* err);
int skio_fbx_mesh_props(const uint8_t* data, size_t size, struct skio_user_prop** out, uint32_t* count,
                        uint32_t* skipped, skc_err* err);

typedef struct skio_fbx_stack {
  char* name;   /* the AnimationStack's name (without its class): Assimp's animation name */
  double start; /* seconds Assimp 5.2.5 took off its keys (LocalStart, or the earliest transform key) */
} skio_fbx_stack;
/* The AnimationStacks of a binary FBX file, in file order (fbx_stacks.c). */
int skio_fbx_stack_list(const uint8_t* data, size_t size, skio_fbx_stack** out, uint32_t* count, skc_err* err);
/* The same for an ASCII FBX file: LocalStart only (a stack without LocalStart / LocalStop gets 0). */
int skio_fbx_ascii_stack_list(const char* text, size_t size, skio_fbx_stack** out, uint32_t* count, skc_err* err);
void skio_fbx_stack_free(skio_fbx_stack* list, uint32_t count);

#endif
