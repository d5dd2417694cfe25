/* skio_gltf_doc.h - a glTF 2.0 file as it is on disk: the JSON text with a token view into it (jsmn), the buffers
 * (GLB BIN chunk, data: URIs, external files) and decoded buffer views (EXT_meshopt_compression /
 * KHR_meshopt_compression through libmeshoptimizer). Nothing is converted: the importer (gltf_import.c), the raw
 * validator and the in-place editor (gltf_edit.c) all read the same document, and the editor can splice the JSON
 * text because every token keeps its byte span.
 *
 * Why jsmn: it is the only one of Debian's JSON libraries (jsmn, cJSON, jansson, json-c) that tells where each
 * value sits in the text. Editing a user's glTF in place means rewriting only the spans an operation changes and
 * keeping every other byte (number spelling, key order, whitespace, extensions we do not know); a DOM library would
 * re-print the whole document. It is header-only, allocation-free (we give it the token array) and iterative.
 *
 * Files: gltf_doc.c (file, GLB, JSON tokens, buffers, views), gltf_accessor.c (accessors, every form the
 * specification allows: float, normalized and plain integers, KHR_mesh_quantization types, byte strides, sparse),
 * gltf_draco.c (KHR_draco_mesh_compression: the accessors of a Draco primitive read from its decoded data, through
 * libdraco behind draco_decode.cpp).
 * Limits (hostile files): JSON text <= 256 MiB, a buffer <= 2 GiB and never past its source, an accessor's element
 * count <= 2^31; every offset and length is checked before it is used.
 */
#ifndef SKIO_GLTF_DOC_H
#define SKIO_GLTF_DOC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

/* glTF componentType values. */
enum {
  SKIO_GLTF_BYTE = 5120,
  SKIO_GLTF_UNSIGNED_BYTE = 5121,
  SKIO_GLTF_SHORT = 5122,
  SKIO_GLTF_UNSIGNED_SHORT = 5123,
  SKIO_GLTF_UNSIGNED_INT = 5125,
  SKIO_GLTF_FLOAT = 5126
};

#if defined(__GNUC__)
#define SKIO_MAY_ALIAS __attribute__((may_alias)) /* jsmn writes the array as its jsmntok_t (gltf_doc.c) */
#else
#define SKIO_MAY_ALIAS
#endif
typedef struct SKIO_MAY_ALIAS skio_json_tok {
  int type;  /* 1 object, 2 array, 3 string, 4 primitive (number, true, false, null) */
  int start; /* byte span in the JSON text: [start, end); strings exclude their quotes */
  int end;
  int size;  /* object: keys; array: elements; key string: 1 */
  int aux;   /* while jsmn parses: its parent link (the array is jsmn's own, not a copy); once loaded, for objects
                and arrays: where their children start in skio_gltf_doc.elems (O(1) element and key access) */
} skio_json_tok;

typedef struct skio_gltf_buffer {
  const uint8_t* data; /* NULL until resolved, or when it has no data (a meshopt fallback buffer) */
  size_t size;         /* bytes available (>= byteLength once resolved) */
  size_t byte_length;  /* as declared */
  uint8_t* owned;      /* data we allocated (data URI, external file), else NULL */
  bool resolved;
} skio_gltf_buffer;

typedef struct skio_gltf_view {
  const uint8_t* data; /* resolved bytes (points into a buffer or into decoded) */
  size_t size;
  size_t stride;       /* byteStride, 0 when absent */
  uint8_t* decoded;    /* meshopt-decoded bytes we own */
  int compression;     /* 0 none, 1 EXT_meshopt_compression, 2 KHR_meshopt_compression */
  bool resolved;
} skio_gltf_view;

typedef struct skio_gltf_doc {
  char* path;            /* source path ("" for memory) */
  char* base_dir;        /* directory for relative URIs, NULL: external URIs refused (memory parse) */
  uint8_t* file;         /* the whole file (owned) */
  size_t file_size;
  bool is_glb;
  const char* json;      /* JSON text (inside file) */
  size_t json_size;
  bool json_not_utf8;    /* the JSON text holds bytes that are not UTF-8 (read as they are; the Khronos validator's
                            INVALID_JSON, validate's SKIO_SKIN_JSON_UTF8) */
  const uint8_t* bin;    /* GLB BIN chunk or NULL */
  size_t bin_size;
  size_t bin_chunk_offset; /* offset of the BIN chunk header in file (GLB), 0 if none */
  skio_json_tok* tok;
  int* next;             /* next[i]: first token after the subtree of token i */
  int* elems;            /* child tokens of every object (its keys) and array (its elements), at tok[i].aux */
  int tok_count;
  /* top-level arrays (token index or -1) and their lengths */
  int t_accessors, t_views, t_buffers, t_meshes, t_nodes, t_skins, t_animations, t_scenes, t_materials;
  uint32_t accessor_count, view_count, buffer_count, mesh_count, node_count, skin_count, animation_count;
  skio_gltf_buffer* buffers;
  skio_gltf_view* views;
  /* KHR_draco_mesh_compression (gltf_draco.c): per accessor (accessor_count), which Draco primitive supplies its
   * values and, once one of that primitive's accessors was read, the values; NULL when no primitive uses Draco. */
  struct skio_gltf_draco_acc* draco;
  /* skio_gltf_skin_structure's answer per skin (skin_count), plus 1 once found (0: not yet); NULL until asked.
   * Validation of a const scene may run in several threads at once (skinkit.h): the array is published by a
   * compare-and-swap (a thread that lost the race frees its own) and its entries are atomic. */
  _Atomic(uint32_t)* _Atomic skin_structure;
  /* skio_gltf_node_parents of the document, worked out once for skin_structure (a skin per mesh made it a parse of
   * every node per skin): NULL not yet, else node_count + 1 entries: [0] 1 and the parents, or [0] -1 when the
   * nodes are no forest; published like skin_structure */
  int32_t* _Atomic node_parent;
} skio_gltf_doc;

/* Loads path (.gltf or .glb, told apart by the GLB magic). External buffers are read lazily, when first used.
 * Errors: SKC_IO (unreadable, not a regular file), SKC_FORMAT (not glTF, bad GLB chunks, JSON syntax, a required
 * field of the wrong type), SKC_VERSION (asset.version not 2.x, GLB version 1), SKC_UNSUPPORTED (an
 * extensionsRequired entry that changes geometry and that we cannot decode: the message names it). */
int skio_gltf_doc_load(const char* path, skio_gltf_doc** out, skc_err* err);
/* True when a relative URI, percent-decoded, has a ".." segment, a scheme or drive (':'), a NUL, or starts with '/'
 * or '\\': it would reach outside the model's folder (a damaged or hostile file naming ../../etc/passwd or
 * %2Fetc%2Fpasswd as a buffer or an image, whose bytes a rewrite would then carry). The reader refuses such buffers
 * and leaves such images unread. */
bool skio_gltf_uri_climbs(const char* uri);
/* The same from memory (copied); base_dir NULL refuses external URIs (fuzzing, memory input). */
int skio_gltf_doc_parse(const void* data, size_t size, const char* base_dir, skio_gltf_doc** out, skc_err* err);
void skio_gltf_doc_destroy(skio_gltf_doc* d);
/* True when the bytes start like a GLB or like a JSON glTF (for format sniffing). */
bool skio_gltf_sniff(const void* data, size_t size);

/* ---- JSON view (tok = token index; -1 = absent, and every function accepts -1) ---- */
int skio_json_get(const skio_gltf_doc* d, int obj, const char* key);      /* value token of key, or -1 */
int skio_json_len(const skio_gltf_doc* d, int arr);                       /* array length (0 for non-arrays) */
int skio_json_at(const skio_gltf_doc* d, int arr, int i);                 /* element i, or -1 */
int skio_json_key_at(const skio_gltf_doc* d, int obj, int i);             /* key token i of an object (value: +1) */
bool skio_json_is(const skio_gltf_doc* d, int tok, int type);
bool skio_json_num(const skio_gltf_doc* d, int tok, double* out);         /* a finite number */
bool skio_json_u32(const skio_gltf_doc* d, int tok, uint32_t* out);       /* a non-negative integer < 2^32 */
bool skio_json_size(const skio_gltf_doc* d, int tok, size_t* out);        /* a non-negative integer <= 2^53 */
bool skio_json_bool(const skio_gltf_doc* d, int tok, bool* out);
bool skio_json_streq(const skio_gltf_doc* d, int tok, const char* s);     /* a string equal to s (escapes decoded) */
char* skio_json_strdup(const skio_gltf_doc* d, int tok);                  /* decoded UTF-8 string (malloc) or NULL */
/* Number of floats read into out (up to n) from an array of numbers; -1 when tok is not such an array. */
int skio_json_floats(const skio_gltf_doc* d, int tok, float* out, int n);
/* Element i of a top-level array ("accessors", "nodes", ...), or -1. */
int skio_gltf_item(const skio_gltf_doc* d, const char* array, uint32_t i);
/* parent[i] (node_count entries) = the node listing node i among its "children", or -1. SKC_FORMAT (the message
 * starts with `path`) when a child index is no node, or a node is the child of two nodes or of itself: glTF nodes
 * form a forest. */
int skio_gltf_node_parents(const skio_gltf_doc* d, const char* path, int32_t* parent, skc_err* err);
/* Whether name is in extensionsUsed / extensionsRequired. */
bool skio_gltf_extension_used(const skio_gltf_doc* d, const char* name);
bool skio_gltf_extension_required(const skio_gltf_doc* d, const char* name);

/* ---- buffers and views ---- */
/* Bytes of buffer i (resolving a data: URI or reading the external file on first use). SKC_FORMAT when it has
 * no data (a meshopt fallback buffer, a GLB buffer 0 with no BIN chunk), SKC_IO for an unreadable file. */
int skio_gltf_buffer_data(skio_gltf_doc* d, uint32_t i, const uint8_t** data, size_t* size, skc_err* err);
/* Bytes of buffer view i (decompressed when it uses meshopt compression), and its byteStride (0 if none). */
int skio_gltf_view_data(skio_gltf_doc* d, uint32_t i, const uint8_t** data, size_t* size, size_t* stride,
                        skc_err* err);
/* Whether another buffer view's bytes overlap view i's in its buffer: the other view's own range or, for a meshopt
 * view, the compressed range its extension reads (two views over the same bytes are valid glTF; an edit in place
 * of one would change the other). A view whose range does not read counts as overlapping. */
bool skio_gltf_view_shared(const skio_gltf_doc* d, uint32_t i);

/* ---- accessors (gltf_accessor.c) ---- */
typedef struct skio_gltf_accessor {
  uint32_t index;
  size_t count;            /* elements; a Draco accessor's: those its Draco data decodes to (see declared_count) */
  size_t declared_count;   /* the JSON's "count": count, except for a Draco vertex attribute whose Draco data
                              decodes to another number of points (FBX2glTF 0.9.7 declares the count before
                              compression; gltf_draco.c takes the decoded one, as glTF-Transform and three.js do) */
  uint32_t component_type; /* SKIO_GLTF_* */
  uint32_t components;     /* SCALAR 1, VEC2 2, VEC3 3, VEC4 4, MAT2 4, MAT3 9, MAT4 16 */
  bool normalized;
  int view;                /* buffer view or -1 (zeros, possibly with sparse values) */
  size_t byte_offset;
  size_t sparse_count;     /* 0 when not sparse */
  int tok;                 /* the accessor's JSON object */
  bool draco;              /* a KHR_draco_mesh_compression primitive's attribute or indices: the values come from
                              its Draco data (view is then usually -1), decoded by the first
                              skio_gltf_accessor_info or read of one of its primitive's accessors */
} skio_gltf_accessor;

size_t skio_gltf_component_size(uint32_t component_type); /* 1, 2, 4, or 0 for an unknown type */

/* Reads the accessor's declaration (checked: types, counts, offsets inside its view, alignment). A Draco accessor's
 * count is the decoded one: the first call for one decodes its primitive (skio_gltf_draco_count), and the errors of
 * the decode are this call's. */
int skio_gltf_accessor_info(skio_gltf_doc* d, uint32_t index, skio_gltf_accessor* out, skc_err* err);
/* The declaration as the JSON has it, nothing decoded: count = declared_count, the JSON's "count" (for Draco
 * accessors too, and for the uncompressed fallback data some Draco files also carry in a view). */
int skio_gltf_accessor_decl(const skio_gltf_doc* d, uint32_t index, skio_gltf_accessor* out, skc_err* err);
/* Every element as floats, components per element = the accessor's (out: count * components floats). Normalized
 * integers map as the specification says (unsigned c / max, signed max(c / max, -1)); plain integers convert to
 * their value. Sparse substitutions applied. */
int skio_gltf_accessor_floats(skio_gltf_doc* d, uint32_t index, float* out, skc_err* err);
/* As skio_gltf_accessor_floats, for WEIGHTS_n: unsigned byte / short components read as normalized whether or not
 * the accessor says so (glTF allows integer weights only normalized; a writer that left the flag out meant it). */
int skio_gltf_accessor_weights(skio_gltf_doc* d, uint32_t index, float* out, skc_err* err);
/* Whether a JOINTS_n (weights false) or WEIGHTS_n accessor has a form the specification allows (3.7.3.3): VEC4;
 * joints unsigned byte / short, not normalized; weights float or normalized unsigned byte / short. The Khronos
 * validator reports the others as MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT. */
bool skio_gltf_influence_format_ok(const skio_gltf_accessor* a, bool weights);
/* Every element as unsigned integers (integer component types only; out: count * components). Negative values of
 * signed types are refused with SKC_FORMAT. Sparse substitutions applied. */
int skio_gltf_accessor_uints(skio_gltf_doc* d, uint32_t index, uint32_t* out, skc_err* err);
/* Both read a Draco primitive's accessors from its decoded data: the first read decodes the primitive's
 * KHR_draco_mesh_compression bufferView and keeps every one of its accessors' values (in their componentType);
 * SKC_FORMAT when the data does not decode, a count or component count differs from the decoded mesh (but see
 * skio_gltf_draco_count for a count every Draco vertex attribute declares alike), a value does not fit the
 * componentType, or the extension's fields are invalid; SKC_UNSUPPORTED for a mode other than TRIANGLES. */

/* ---- KHR_draco_mesh_compression (gltf_draco.c; used by gltf_doc.c and gltf_accessor.c) ---- */
/* Finds the Draco primitives at load (nothing decoded): fills d->draco. Only SKC_OUT_OF_MEMORY. */
int skio_gltf_draco_index(skio_gltf_doc* d, skc_err* err);
/* Whether accessor i belongs to a Draco primitive (its values come from skio_gltf_draco_values). */
bool skio_gltf_draco_claims(const skio_gltf_doc* d, uint32_t i);
/* The values of Draco accessor a (a->draco): count * components tightly packed components of its componentType,
 * decoding its primitive on the first call; a->count must be the decoded count (skio_gltf_accessor_info's). */
int skio_gltf_draco_values(skio_gltf_doc* d, const skio_gltf_accessor* a, const uint8_t** out, skc_err* err);
/* The number of elements Draco accessor i decodes to, decoding its primitive on the first call. The extension
 * requires the accessors to declare the decoded counts; FBX2glTF 0.9.7 declares the vertex count before Draco
 * split vertices (426 points for 424 declared). When every Draco vertex attribute of the primitive declares one
 * count and the data decodes to another number of points, the decoded number is taken, as other readers do, if
 * the primitive's uncompressed attributes and morph targets have it too: data outside the Draco stream with the
 * declared count cannot be mapped onto points Draco reordered, and the primitive is SKC_FORMAT, naming it.
 * Indices must declare the decoded count. */
int skio_gltf_draco_count(skio_gltf_doc* d, uint32_t i, size_t* count, skc_err* err);
/* The same without decoding: the decoded count of Draco accessor i, 0 while its primitive was not decoded. */
size_t skio_gltf_draco_decoded_count(const skio_gltf_doc* d, uint32_t i);
/* The quantization step of Draco accessor i's decoded floats (each within step / 2 of the value encoded: Draco
 * quantized a generic attribute such as WEIGHTS_n), 0 when its values are exact or not decoded yet. */
float skio_gltf_draco_step(const skio_gltf_doc* d, uint32_t i);
void skio_gltf_draco_free(skio_gltf_doc* d);

#endif
