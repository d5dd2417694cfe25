/* gltf_draco.c - KHR_draco_mesh_compression. A primitive with the extension keeps its geometry in one buffer view
 * of Draco data; its "attributes" map each semantic to a Draco attribute id, and the primitive's own accessors
 * (normally without a bufferView) declare type, componentType and count. At load the Draco primitives are listed
 * per accessor (nothing decoded); the first read of one of their accessors decodes the primitive once through
 * libdraco (draco_decode.cpp) and keeps every accessor's values in its declared componentType, tightly packed, so
 * that gltf_accessor.c reads them like any view. Draco data that fails to decode, counts that differ from the
 * decoded mesh and values that do not fit the componentType are SKC_FORMAT; nothing is read past what Draco gave.
 *
 * The extension requires the accessors to declare the decoded counts, but FBX2glTF 0.9.7 (Autodesk's FBX SDK inside,
 * `-d`) declares its vertex count before compression, and Draco's edgebreaker splits non-manifold vertices: 424
 * declared, 426 decoded. When every vertex attribute in the Draco stream declares one count, the decoded number of
 * points is taken instead (glTF-Transform and three.js's GLTFLoader do so) and skio_gltf_accessor_info reports it
 * (declared_count keeps the JSON's); the reader notes it, validate reports it. Then whatever the primitive holds
 * outside the Draco stream (uncompressed attributes, morph targets) must have the decoded count: with the declared
 * one it describes the vertices before Draco reordered them, and no mapping leads from those to the points.
 *
 * Draco reorders vertices (edgebreaker), so every accessor of the primitive comes from the decode, the uncompressed
 * fallback data some files also carry included: indices from the fallback with attributes from Draco would not
 * match. A primitive without "indices" gets its attributes per triangle corner. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_draco.h"
#include "skio_gltf_doc.h"

enum { TOK_OBJECT = 1, TOK_ARRAY = 2 };
enum { ATTR_INDICES = -1, ATTR_INVALID = -2 };
enum { PRIM_NONE = -1, PRIM_CONFLICT = -2 };

typedef struct skio_gltf_draco_acc {
  int prim;      /* JSON token of the primitive whose Draco data holds this accessor, PRIM_NONE, PRIM_CONFLICT */
  int64_t attr;  /* Draco unique id, ATTR_INDICES, or ATTR_INVALID (the extension's id is not an integer) */
  uint8_t* data; /* decoded values (count * components, componentType); NULL until the primitive was decoded */
  size_t count;  /* elements decoded (set with data) */
  float step;    /* float values from a quantized generic attribute: its quantization step (skio_draco.h), else 0 */
} skio_gltf_draco_acc;

static int draco_ext(const skio_gltf_doc* d, int prim) {
  return skio_json_get(d, skio_json_get(d, prim, "extensions"), "KHR_draco_mesh_compression");
}

static int64_t ext_view(const skio_gltf_doc* d, int prim) {
  uint32_t v;
  return skio_json_u32(d, skio_json_get(d, draco_ext(d, prim), "bufferView"), &v) ? (int64_t)v : -1;
}

static void claim(skio_gltf_doc* d, int acc_tok, int prim, int64_t attr) {
  uint32_t i;
  if (!skio_json_u32(d, acc_tok, &i) || i >= d->accessor_count) return; /* the importer reports it */
  skio_gltf_draco_acc* e = &d->draco[i];
  if (e->prim == PRIM_NONE) {
    e->prim = prim;
    e->attr = attr;
  } else if (e->prim != PRIM_CONFLICT && e->prim != prim &&
             (e->attr != attr || ext_view(d, e->prim) != ext_view(d, prim) || ext_view(d, prim) < 0)) {
    e->prim = PRIM_CONFLICT; /* two primitives would decode different values into it */
  }
}

static int index_primitive(skio_gltf_doc* d, int prim, skc_err* err) {
  int ext = draco_ext(d, prim);
  if (ext < 0) return SKC_OK;
  if (!d->draco) {
    d->draco = calloc(d->accessor_count ? d->accessor_count : 1, sizeof *d->draco);
    if (!d->draco) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", d->path);
    for (uint32_t i = 0; i < d->accessor_count; ++i) d->draco[i].prim = PRIM_NONE;
  }
  int attrs = skio_json_get(d, prim, "attributes"), ext_attrs = skio_json_get(d, ext, "attributes");
  if (skio_json_is(d, attrs, TOK_OBJECT)) {
    for (int k = 0, c = attrs + 1; k < d->tok[attrs].size && c + 1 < d->tok_count; ++k, c = d->next[c + 1]) {
      char* name = skio_json_strdup(d, c);
      if (!name) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", d->path);
      int id_tok = skio_json_is(d, ext_attrs, TOK_OBJECT) ? skio_json_get(d, ext_attrs, name) : -2;
      free(name);
      uint32_t id;
      /* absent from the extension's map: an uncompressed attribute, read as usual */
      if (id_tok != -1) claim(d, c + 1, prim, skio_json_u32(d, id_tok, &id) ? (int64_t)id : ATTR_INVALID);
    }
  }
  claim(d, skio_json_get(d, prim, "indices"), prim, ATTR_INDICES);
  return SKC_OK;
}

int skio_gltf_draco_index(skio_gltf_doc* d, skc_err* err) {
  if (!skio_json_is(d, d->t_meshes, TOK_ARRAY)) return SKC_OK;
  for (int m = 0, mt = d->t_meshes + 1; m < d->tok[d->t_meshes].size && mt < d->tok_count; ++m, mt = d->next[mt]) {
    int prims = skio_json_get(d, mt, "primitives");
    if (!skio_json_is(d, prims, TOK_ARRAY)) continue;
    for (int p = 0, pt = prims + 1; p < d->tok[prims].size && pt < d->tok_count; ++p, pt = d->next[pt]) {
      int rc = index_primitive(d, pt, err);
      if (rc) return rc;
    }
  }
  return SKC_OK;
}

bool skio_gltf_draco_claims(const skio_gltf_doc* d, uint32_t i) {
  return d && d->draco && i < d->accessor_count && d->draco[i].prim != PRIM_NONE;
}

void skio_gltf_draco_free(skio_gltf_doc* d) {
  for (uint32_t i = 0; d->draco && i < d->accessor_count; ++i) free(d->draco[i].data);
  free(d->draco);
  d->draco = NULL;
}

/* ---------------------------------------------------------------------------------------- conversion */

static bool type_range(uint32_t ct, double* lo, double* hi) {
  switch (ct) {
    case SKIO_GLTF_BYTE: *lo = -128; *hi = 127; return true;
    case SKIO_GLTF_UNSIGNED_BYTE: *lo = 0; *hi = 255; return true;
    case SKIO_GLTF_SHORT: *lo = -32768; *hi = 32767; return true;
    case SKIO_GLTF_UNSIGNED_SHORT: *lo = 0; *hi = 65535; return true;
    case SKIO_GLTF_UNSIGNED_INT: *lo = 0; *hi = 4294967295.0; return true;
    default: return false;
  }
}

static void store(uint8_t* out, uint32_t ct, double v) {
  switch (ct) {
    case SKIO_GLTF_BYTE: { int8_t x = (int8_t)v; memcpy(out, &x, 1); break; }
    case SKIO_GLTF_UNSIGNED_BYTE: out[0] = (uint8_t)v; break;
    case SKIO_GLTF_SHORT: { int16_t x = (int16_t)v; memcpy(out, &x, 2); break; }
    case SKIO_GLTF_UNSIGNED_SHORT: { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); break; }
    case SKIO_GLTF_UNSIGNED_INT: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    default: { float x = (float)v; memcpy(out, &x, 4); break; }
  }
}

/* Value `at` of Draco attribute att as a value of the accessor's componentType: floats as decoded; integers the
 * stored integer, or a float attribute scaled by the type's maximum (normalized) or integral (plain), rounded. */
static bool value_of(const skio_draco_attribute* att, size_t at, const skio_gltf_accessor* a, double* v) {
  if (a->component_type == SKIO_GLTF_FLOAT) {
    *v = att->floats[at];
    return true;
  }
  double lo = 0, hi = 0;
  if (!type_range(a->component_type, &lo, &hi)) return false;
  if (att->integer) {
    *v = att->is_signed ? (double)(int32_t)att->uints[at] : (double)att->uints[at];
  } else {
    double f = att->floats[at];
    if (!isfinite(f)) return false;
    *v = round(a->normalized ? f * hi : f);
    if (!a->normalized && fabs(f - *v) > 1e-3) return false; /* plain integers: only dequantization noise */
    if (a->normalized && *v < -hi) *v = -hi;
  }
  return *v >= lo && *v <= hi;
}

typedef struct decoded {
  const skio_draco_mesh* mesh;
  bool indexed;      /* the primitive has indices: one vertex per Draco point; else one per triangle corner */
  size_t vertices;   /* point_count, or 3 * face_count */
  size_t declared;   /* the count every vertex attribute in the Draco stream declares; 0 when they differ */
  uint32_t view;
} decoded;

static int convert(skio_gltf_doc* d, const decoded* dec, const skio_gltf_draco_acc* e, const skio_gltf_accessor* a,
                   uint8_t** out, skc_err* err) {
  const skio_draco_mesh* m = dec->mesh;
  size_t cs = skio_gltf_component_size(a->component_type);
  int tt = skio_json_get(d, a->tok, "type");
  bool matrix = skio_json_streq(d, tt, "MAT2") || skio_json_streq(d, tt, "MAT3") || skio_json_streq(d, tt, "MAT4");
  const skio_draco_attribute* att = NULL;
  if (e->attr >= 0)
    for (size_t k = 0; k < m->attribute_count && !att; ++k)
      if (m->attributes[k].unique_id == (uint64_t)e->attr) att = &m->attributes[k];
  size_t want = e->attr == ATTR_INDICES ? 3 * m->face_count : dec->vertices;
  uint32_t comps = e->attr == ATTR_INDICES ? 1 : att ? att->components : 0;
  /* a vertex attribute may declare the count its primitive's other Draco attributes declare (see the top) */
  bool recounted = e->attr != ATTR_INDICES && a->count == dec->declared;
  const char* why =
      matrix                                        ? "a matrix accessor cannot be Draco data"
      : e->attr == ATTR_INVALID                     ? "its KHR_draco_mesh_compression attribute id is not an integer"
      : e->attr != ATTR_INDICES && !att             ? "its Draco attribute id is not in the Draco data"
      : a->components != comps                      ? "its type has another component count than the Draco attribute"
      : a->count != want && e->attr == ATTR_INDICES ? "its count differs from the decoded Draco mesh"
      : a->count != want && !recounted
          ? "its count differs from the decoded Draco mesh and from the primitive's other Draco attributes"
      : e->attr == ATTR_INDICES && a->component_type == SKIO_GLTF_FLOAT ? "float indices"
      : a->sparse_count                                                 ? "sparse Draco data"
                                                                        : NULL;
  if (why)
    return skc_fail(err, SKC_FORMAT, "%s: accessors[%u] (Draco data in bufferViews[%u]): %s (count %zu, decoded %zu)",
                    d->path, a->index, dec->view, why, a->count, want);
  uint8_t* buf = malloc(want * comps * cs);
  if (!buf) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for accessors[%u]", d->path, a->index);
  for (size_t i = 0; i < want; ++i)
    for (uint32_t c = 0; c < comps; ++c) {
      double v;
      bool ok;
      if (e->attr == ATTR_INDICES) {
        double lo = 0, hi = 0;
        v = m->indices[i];
        ok = type_range(a->component_type, &lo, &hi) && v <= hi;
      } else {
        size_t point = dec->indexed ? i : m->indices[i];
        ok = value_of(att, point * comps + c, a, &v);
      }
      if (!ok) {
        free(buf);
        return skc_fail(err, SKC_FORMAT, "%s: accessors[%u]: decoded Draco value %zu does not fit its componentType %u",
                        d->path, a->index, i, a->component_type);
      }
      store(buf + (i * comps + c) * cs, a->component_type, v);
    }
  *out = buf;
  return SKC_OK;
}

/* The quantization step of float accessor a's Draco attribute (0: exact values, or not a float accessor). */
static float quant_step(const decoded* dec, const skio_gltf_draco_acc* e, const skio_gltf_accessor* a) {
  if (e->attr < 0 || a->component_type != SKIO_GLTF_FLOAT) return 0.0f;
  for (size_t k = 0; k < dec->mesh->attribute_count; ++k)
    if (dec->mesh->attributes[k].unique_id == (uint64_t)e->attr) return dec->mesh->attributes[k].quant_step;
  return 0.0f;
}

/* What prim's accessors let its Draco data decode to (skio_draco_decode's bounds): triangles from "indices" (or
 * from the attributes' count when there are none, one vertex per corner), points from the attributes' counts.
 * An accessor whose description does not read leaves its bound alone; convert() reports it after the decode.
 * *common: the count every vertex attribute declares, 0 when two declare different counts. */
static void declared_counts(skio_gltf_doc* d, int prim, bool indexed, size_t* faces, size_t* points, size_t* common) {
  *faces = *points = *common = 0;
  bool differ = false;
  for (uint32_t i = 0; i < d->accessor_count; ++i) {
    skio_gltf_accessor a;
    skc_err ignored = {0};
    if (d->draco[i].prim != prim || skio_gltf_accessor_decl(d, i, &a, &ignored)) continue;
    if (d->draco[i].attr == ATTR_INDICES) {
      if (a.count / 3 > *faces) *faces = a.count / 3;
      continue;
    }
    if (a.count > *points) *points = a.count;
    differ |= *common && a.count != *common;
    *common = a.count;
  }
  if (differ) *common = 0;
  if (!indexed) *faces = *points / 3;
  if (*faces == 0) *faces = 1; /* 0 would mean "no bound"; a count this small fails convert() anyway */
  if (*points == 0) *points = 1;
}

/* Mesh and primitive indices of primitive token prim, for messages. */
static void prim_place(const skio_gltf_doc* d, int prim, int* mesh, int* index) {
  *mesh = *index = -1;
  for (uint32_t m = 0; m < d->mesh_count && *mesh < 0; ++m) {
    int prims = skio_json_get(d, skio_gltf_item(d, "meshes", m), "primitives");
    for (int p = 0, n = skio_json_len(d, prims); p < n; ++p)
      if (skio_json_at(d, prims, p) == prim) *mesh = (int)m, *index = p;
  }
}

/* SKC_FORMAT naming the first accessor of obj (the primitive's "attributes", or morph target `target`) that is not
 * Draco data of prim and has another count than the dec->vertices points the Draco data decodes to. */
static int check_outside(const skio_gltf_doc* d, int prim, int obj, int target, const decoded* dec, skc_err* err) {
  for (int k = 0, n = skio_json_is(d, obj, TOK_OBJECT) ? d->tok[obj].size : 0; k < n; ++k) {
    const int key = skio_json_key_at(d, obj, k);
    uint32_t i;
    skio_gltf_accessor a;
    skc_err ignored = {0};
    if (!skio_json_u32(d, key + 1, &i) || i >= d->accessor_count || d->draco[i].prim == prim ||
        skio_gltf_accessor_decl(d, i, &a, &ignored) || a.count == dec->vertices)
      continue; /* one that does not read: the importer says why */
    int mesh, index;
    char what[48] = "";
    prim_place(d, prim, &mesh, &index);
    if (target >= 0) snprintf(what, sizeof what, "morph target %d ", target);
    return skc_fail(
        err, SKC_FORMAT,
        "%s: meshes[%d].primitives[%d]: %s%.*s (accessors[%u], outside the Draco data) has %zu elements, the "
        "Draco data %zu points (its accessors declare %zu): it cannot be mapped onto points Draco reordered",
        d->path, mesh, index, what, d->tok[key].end - d->tok[key].start, d->json + d->tok[key].start, i, a.count,
        dec->vertices, dec->declared);
  }
  return SKC_OK;
}

/* When the Draco attributes declare another count than the decode gave: the primitive's uncompressed attributes and
 * morph targets must have the decoded count (see the top), else SKC_FORMAT. */
static int check_mappable(const skio_gltf_doc* d, int prim, const decoded* dec, skc_err* err) {
  if (!dec->declared || dec->declared == dec->vertices) return SKC_OK;
  int rc = check_outside(d, prim, skio_json_get(d, prim, "attributes"), -1, dec, err);
  int targets = skio_json_get(d, prim, "targets");
  for (int t = 0, n = skio_json_len(d, targets); !rc && t < n; ++t)
    rc = check_outside(d, prim, skio_json_at(d, targets, t), t, dec, err);
  return rc;
}

/* Decodes primitive prim and fills the values of every accessor it supplies. All or nothing. */
static int decode_primitive(skio_gltf_doc* d, int prim, uint32_t asking, skc_err* err) {
  int ext = draco_ext(d, prim);
  uint32_t view, mode = 4;
  int mt = skio_json_get(d, prim, "mode");
  if (mt >= 0 && (!skio_json_u32(d, mt, &mode) || mode != 4))
    return skc_fail(err, SKC_UNSUPPORTED, "%s: accessors[%u]: a KHR_draco_mesh_compression primitive of mode %u "
                    "(Draco decodes triangles)", d->path, asking, mode);
  if (!skio_json_u32(d, skio_json_get(d, ext, "bufferView"), &view) || view >= d->view_count)
    return skc_fail(err, SKC_FORMAT, "%s: accessors[%u]: KHR_draco_mesh_compression.bufferView invalid", d->path,
                    asking);
  const uint8_t* bytes;
  size_t size;
  int rc = skio_gltf_view_data(d, view, &bytes, &size, NULL, err);
  if (rc) return rc;
  skio_draco_mesh* mesh = NULL;
  char msg[160];
  size_t max_faces, max_points, common;
  bool indexed = skio_json_get(d, prim, "indices") >= 0;
  declared_counts(d, prim, indexed, &max_faces, &max_points, &common);
  if (skio_draco_decode(bytes, size, max_faces, max_points, &mesh, msg, sizeof msg))
    return skc_fail(err, SKC_FORMAT, "%s: accessors[%u]: KHR_draco_mesh_compression data in bufferViews[%u]: %s",
                    d->path, asking, view, msg);
  decoded dec = {mesh, indexed, 0, common, view};
  dec.vertices = dec.indexed ? mesh->point_count : 3 * mesh->face_count;
  rc = check_mappable(d, prim, &dec, err);
  for (uint32_t i = 0; !rc && i < d->accessor_count; ++i) {
    skio_gltf_draco_acc* e = &d->draco[i];
    if (e->prim != prim || e->data) continue;
    skio_gltf_accessor a;
    rc = skio_gltf_accessor_decl(d, i, &a, err);
    if (!rc) rc = convert(d, &dec, e, &a, &e->data, err);
    if (!rc) e->step = quant_step(&dec, e, &a);
    if (!rc) e->count = e->attr == ATTR_INDICES ? 3 * mesh->face_count : dec.vertices;
  }
  if (rc) /* all or nothing: a later read fails the same way */
    for (uint32_t i = 0; i < d->accessor_count; ++i)
      if (d->draco[i].prim == prim) {
        free(d->draco[i].data);
        d->draco[i].data = NULL;
      }
  skio_draco_free(mesh);
  return rc;
}

/* Accessor i's entry, its primitive decoded. */
static int decoded_entry(skio_gltf_doc* d, uint32_t i, skio_gltf_draco_acc** out, skc_err* err) {
  if (!skio_gltf_draco_claims(d, i)) return skc_fail(err, SKC_INVALID_ARGUMENT, "accessors[%u] is not Draco data", i);
  skio_gltf_draco_acc* e = &d->draco[i];
  if (e->prim == PRIM_CONFLICT)
    return skc_fail(err, SKC_FORMAT,
                    "%s: accessors[%u] belongs to two KHR_draco_mesh_compression primitives with "
                    "different Draco data",
                    d->path, i);
  if (!e->data) {
    int rc = decode_primitive(d, e->prim, i, err);
    if (rc) return rc;
  }
  *out = e;
  return SKC_OK;
}

int skio_gltf_draco_count(skio_gltf_doc* d, uint32_t i, size_t* count, skc_err* err) {
  skio_gltf_draco_acc* e = NULL;
  int rc = decoded_entry(d, i, &e, err);
  if (!rc) *count = e->count;
  return rc;
}

int skio_gltf_draco_values(skio_gltf_doc* d, const skio_gltf_accessor* a, const uint8_t** out, skc_err* err) {
  skio_gltf_draco_acc* e = NULL;
  int rc = decoded_entry(d, a->index, &e, err);
  if (rc) return rc;
  if (a->count != e->count) /* a declaration read without the decode: its count would size a wrong buffer */
    return skc_fail(err, SKC_INVALID_ARGUMENT, "%s: accessors[%u]: %zu elements asked of Draco data that has %zu",
                    d->path, a->index, a->count, e->count);
  *out = e->data;
  return SKC_OK;
}

float skio_gltf_draco_step(const skio_gltf_doc* d, uint32_t i) {
  return skio_gltf_draco_claims(d, i) && d->draco[i].data ? d->draco[i].step : 0.0f;
}

size_t skio_gltf_draco_decoded_count(const skio_gltf_doc* d, uint32_t i) {
  return skio_gltf_draco_claims(d, i) && d->draco[i].data ? d->draco[i].count : 0;
}
