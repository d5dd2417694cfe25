/* gltf_accessor.c - glTF accessors in every form the specification allows (3.6.2): float, normalized and plain
 * integer components (KHR_mesh_quantization widens which attributes may use them), interleaved views
 * (byteStride), matrices with 4-byte aligned columns, accessors without a view (zeros), sparse substitution.
 * Every offset is checked against the (decoded) view before a byte is read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_gltf_doc.h"

#define MAX_COUNT ((size_t)1 << 31)

size_t skio_gltf_component_size(uint32_t ct) {
  switch (ct) {
    case SKIO_GLTF_BYTE:
    case SKIO_GLTF_UNSIGNED_BYTE: return 1;
    case SKIO_GLTF_SHORT:
    case SKIO_GLTF_UNSIGNED_SHORT: return 2;
    case SKIO_GLTF_UNSIGNED_INT:
    case SKIO_GLTF_FLOAT: return 4;
    default: return 0;
  }
}

static uint32_t type_components(const skio_gltf_doc* d, int tok, uint32_t* columns) {
  static const struct { const char* name; uint32_t comps, cols; } types[] = {
      {"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1}, {"MAT2", 4, 2}, {"MAT3", 9, 3}, {"MAT4", 16, 4}};
  for (size_t i = 0; i < sizeof types / sizeof *types; ++i)
    if (skio_json_streq(d, tok, types[i].name)) {
      *columns = types[i].cols;
      return types[i].comps;
    }
  return 0;
}

/* Byte layout of one element: components per column, bytes from one column to the next (4-byte aligned for
 * matrices, 3.6.2.4), element size. */
typedef struct layout {
  uint32_t comps, cols, rows;
  size_t cs, col_bytes, elem;
} layout;

static layout layout_of(const skio_gltf_accessor* a, uint32_t cols) {
  layout l = {a->components, cols, a->components / cols, skio_gltf_component_size(a->component_type), 0, 0};
  l.col_bytes = l.rows * l.cs;
  if (cols > 1) l.col_bytes = (l.col_bytes + 3) & ~(size_t)3;
  l.elem = cols > 1 ? l.col_bytes * cols : l.rows * l.cs;
  return l;
}

static int fail_acc(const skio_gltf_doc* d, uint32_t i, const char* why, skc_err* err) {
  return skc_fail(err, SKC_FORMAT, "%s: accessors[%u]: %s", d->path, i, why);
}

static int read_sparse_decl(const skio_gltf_doc* d, int sp, skio_gltf_accessor* a, skc_err* err) {
  if (sp < 0) return SKC_OK;
  if (!skio_json_size(d, skio_json_get(d, sp, "count"), &a->sparse_count) || a->sparse_count == 0 ||
      a->sparse_count > a->count)
    return fail_acc(d, a->index, "sparse.count must be 1..count", err);
  return SKC_OK;
}

int skio_gltf_accessor_decl(const skio_gltf_doc* d, uint32_t i, skio_gltf_accessor* a, skc_err* err) {
  if (!d || !a) return skc_fail(err, SKC_INVALID_ARGUMENT, "document and out must not be NULL");
  int t = skio_json_at(d, d->t_accessors, (int)(i < d->accessor_count ? i : 0));
  if (i >= d->accessor_count || t < 0) return skc_fail(err, SKC_FORMAT, "%s: accessor %u does not exist", d->path, i);
  memset(a, 0, sizeof *a);
  a->index = i;
  a->tok = t;
  a->view = -1;
  uint32_t cols = 1, view;
  int vt = skio_json_get(d, t, "bufferView"), ot = skio_json_get(d, t, "byteOffset"), nt = skio_json_get(d, t, "normalized");
  if (!skio_json_u32(d, skio_json_get(d, t, "componentType"), &a->component_type) ||
      !skio_gltf_component_size(a->component_type))
    return fail_acc(d, i, "componentType missing or unknown", err);
  if (!(a->components = type_components(d, skio_json_get(d, t, "type"), &cols)))
    return fail_acc(d, i, "type missing or unknown", err);
  if (!skio_json_size(d, skio_json_get(d, t, "count"), &a->count) || a->count == 0 || a->count > MAX_COUNT)
    return fail_acc(d, i, "count missing, 0 or too large", err);
  a->declared_count = a->count;
  if (vt >= 0) {
    if (!skio_json_u32(d, vt, &view) || view >= d->view_count) return fail_acc(d, i, "bufferView out of range", err);
    a->view = (int)view;
  }
  if (ot >= 0 && !skio_json_size(d, ot, &a->byte_offset)) return fail_acc(d, i, "byteOffset invalid", err);
  if (nt >= 0 && !skio_json_bool(d, nt, &a->normalized)) return fail_acc(d, i, "normalized is not a boolean", err);
  if (a->normalized && (a->component_type == SKIO_GLTF_FLOAT || a->component_type == SKIO_GLTF_UNSIGNED_INT))
    return fail_acc(d, i, "normalized float or unsigned int components", err);
  a->draco = skio_gltf_draco_claims(d, i);
  return read_sparse_decl(d, skio_json_get(d, t, "sparse"), a, err);
}

int skio_gltf_accessor_info(skio_gltf_doc* d, uint32_t i, skio_gltf_accessor* a, skc_err* err) {
  int rc = skio_gltf_accessor_decl(d, i, a, err);
  /* every caller sizes its buffer from this count: a Draco accessor's is known only once decoded */
  if (!rc && a->draco) rc = skio_gltf_draco_count(d, i, &a->count, err);
  return rc;
}

static double component(const uint8_t* p, uint32_t ct, bool normalized) {
  switch (ct) {
    case SKIO_GLTF_BYTE: {
      int8_t v;
      memcpy(&v, p, 1);
      return normalized ? fmax(v / 127.0, -1.0) : v;
    }
    case SKIO_GLTF_UNSIGNED_BYTE: return normalized ? p[0] / 255.0 : p[0];
    case SKIO_GLTF_SHORT: {
      int16_t v;
      memcpy(&v, p, 2);
      return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case SKIO_GLTF_UNSIGNED_SHORT: {
      uint16_t v;
      memcpy(&v, p, 2);
      return normalized ? v / 65535.0 : v;
    }
    case SKIO_GLTF_UNSIGNED_INT: {
      uint32_t v;
      memcpy(&v, p, 4);
      return v;
    }
    default: {
      float v;
      memcpy(&v, p, 4);
      return v;
    }
  }
}

/* Output sink: floats or uints. */
typedef struct sink {
  float* f;
  uint32_t* u;
  bool negative; /* a signed integer below 0 went to a uint sink */
  bool unorm;    /* unsigned byte / short components read as normalized whatever the accessor says */
} sink;

static void put(sink* s, size_t at, double v) {
  if (s->f) {
    s->f[at] = (float)v;
  } else {
    if (v < 0) s->negative = true;
    s->u[at] = v < 0 ? 0u : (uint32_t)v;
  }
}

static void read_elements(const uint8_t* base, size_t stride, size_t count, const skio_gltf_accessor* a,
                          const layout* l, const size_t* targets, sink* s) {
  const uint32_t ct = a->component_type;
  const bool unsigned_small = ct == SKIO_GLTF_UNSIGNED_BYTE || ct == SKIO_GLTF_UNSIGNED_SHORT;
  const bool normalized = s->f && (a->normalized || (s->unorm && unsigned_small));
  for (size_t e = 0; e < count; ++e) {
    const uint8_t* el = base + e * stride;
    size_t dst = (targets ? targets[e] : e) * l->comps;
    for (uint32_t c = 0; c < l->cols; ++c)
      for (uint32_t r = 0; r < l->rows; ++r)
        put(s, dst + c * l->rows + r, component(el + c * l->col_bytes + r * l->cs, ct, normalized));
  }
}

/* Bytes [offset, offset + need) of view v, checked. */
static int view_bytes(skio_gltf_doc* d, uint32_t v, size_t offset, size_t need, const uint8_t** out, size_t* stride,
                      uint32_t acc, skc_err* err) {
  const uint8_t* data;
  size_t size;
  int rc = skio_gltf_view_data(d, v, &data, &size, stride, err);
  if (rc) return rc;
  if (offset > size || need > size - offset)
    return skc_fail(err, SKC_FORMAT, "%s: accessors[%u] needs bytes %zu..%zu of bufferViews[%u], which has %zu",
                    d->path, acc, offset, offset + need, v, size);
  *out = data + offset;
  return SKC_OK;
}

static int read_dense(skio_gltf_doc* d, const skio_gltf_accessor* a, const layout* l, sink* s, skc_err* err) {
  if (a->view < 0) {
    for (size_t k = 0; k < a->count * l->comps; ++k) put(s, k, 0.0);
    return SKC_OK;
  }
  const uint8_t* data;
  size_t stride = 0, probe;
  int rc = skio_gltf_view_data(d, (uint32_t)a->view, &data, &probe, &stride, err);
  if (rc) return rc;
  if (!stride) stride = l->elem;
  if (stride < l->elem) return fail_acc(d, a->index, "byteStride smaller than one element", err);
  if ((a->count - 1) > (SIZE_MAX - l->elem) / stride) return fail_acc(d, a->index, "count too large", err);
  size_t need = (a->count - 1) * stride + l->elem;
  if ((rc = view_bytes(d, (uint32_t)a->view, a->byte_offset, need, &data, NULL, a->index, err))) return rc;
  read_elements(data, stride, a->count, a, l, NULL, s);
  return SKC_OK;
}

static int sparse_part(const skio_gltf_doc* d, int part, uint32_t* view, size_t* offset) {
  int ot = skio_json_get(d, part, "byteOffset");
  *offset = 0;
  return skio_json_u32(d, skio_json_get(d, part, "bufferView"), view) && view[0] < d->view_count &&
         (ot < 0 || skio_json_size(d, ot, offset));
}

static int read_sparse_indices(skio_gltf_doc* d, const skio_gltf_accessor* a, int it, size_t* idx, skc_err* err) {
  uint32_t view, ct;
  size_t off;
  const uint8_t* p = NULL;
  if (!sparse_part(d, it, &view, &off) || !skio_json_u32(d, skio_json_get(d, it, "componentType"), &ct) ||
      (ct != SKIO_GLTF_UNSIGNED_BYTE && ct != SKIO_GLTF_UNSIGNED_SHORT && ct != SKIO_GLTF_UNSIGNED_INT))
    return fail_acc(d, a->index, "sparse.indices invalid", err);
  size_t cs = skio_gltf_component_size(ct);
  int rc = view_bytes(d, view, off, a->sparse_count * cs, &p, NULL, a->index, err);
  if (rc) return rc;
  for (size_t k = 0; k < a->sparse_count; ++k) {
    idx[k] = (size_t)component(p + k * cs, ct, false);
    if (idx[k] >= a->count || (k && idx[k] <= idx[k - 1]))
      return fail_acc(d, a->index, "sparse indices out of range or not increasing", err);
  }
  return SKC_OK;
}

static int apply_sparse(skio_gltf_doc* d, const skio_gltf_accessor* a, const layout* l, sink* s, skc_err* err) {
  int sp = skio_json_get(d, a->tok, "sparse");
  int it = skio_json_get(d, sp, "indices"), vt = skio_json_get(d, sp, "values");
  size_t* idx = malloc(a->sparse_count * sizeof *idx);
  if (!idx) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", d->path);
  uint32_t view;
  size_t off;
  const uint8_t* p = NULL;
  int rc = read_sparse_indices(d, a, it, idx, err);
  if (!rc && !sparse_part(d, vt, &view, &off)) rc = fail_acc(d, a->index, "sparse.values invalid", err);
  if (!rc && a->sparse_count > SIZE_MAX / l->elem) rc = fail_acc(d, a->index, "sparse.count too large", err);
  if (!rc) rc = view_bytes(d, view, off, a->sparse_count * l->elem, &p, NULL, a->index, err);
  if (!rc) read_elements(p, l->elem, a->sparse_count, a, l, idx, s);
  free(idx);
  return rc;
}

static int read_all(skio_gltf_doc* d, uint32_t i, sink* s, skc_err* err) {
  skio_gltf_accessor a;
  int rc = skio_gltf_accessor_info(d, i, &a, err);
  if (rc) return rc;
  uint32_t cols = a.components == 16 ? 4 : a.components == 9 ? 3 : 1;
  if (a.components == 4 && skio_json_streq(d, skio_json_get(d, a.tok, "type"), "MAT2")) cols = 2;
  layout l = layout_of(&a, cols);
  if (a.draco) {
    const uint8_t* values; /* decoded, tightly packed (gltf_draco.c refuses matrices) */
    if ((rc = skio_gltf_draco_values(d, &a, &values, err))) return rc;
    read_elements(values, l.elem, a.count, &a, &l, NULL, s);
  } else if ((rc = read_dense(d, &a, &l, s, err))) {
    return rc;
  }
  if (a.sparse_count && (rc = apply_sparse(d, &a, &l, s, err))) return rc;
  return SKC_OK;
}

int skio_gltf_accessor_floats(skio_gltf_doc* d, uint32_t index, float* out, skc_err* err) {
  if (!d || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "document and out must not be NULL");
  sink s = {out, NULL, false, false};
  return read_all(d, index, &s, err);
}

int skio_gltf_accessor_weights(skio_gltf_doc* d, uint32_t index, float* out, skc_err* err) {
  if (!d || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "document and out must not be NULL");
  sink s = {out, NULL, false, true};
  return read_all(d, index, &s, err);
}

bool skio_gltf_influence_format_ok(const skio_gltf_accessor* a, bool weights) {
  const uint32_t ct = a->component_type;
  const bool small = ct == SKIO_GLTF_UNSIGNED_BYTE || ct == SKIO_GLTF_UNSIGNED_SHORT;
  if (a->components != 4) return false;
  return weights ? ct == SKIO_GLTF_FLOAT || (small && a->normalized) : small && !a->normalized;
}

int skio_gltf_accessor_uints(skio_gltf_doc* d, uint32_t index, uint32_t* out, skc_err* err) {
  if (!d || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "document and out must not be NULL");
  skio_gltf_accessor a;
  int rc = skio_gltf_accessor_info(d, index, &a, err);
  if (rc) return rc;
  if (a.component_type == SKIO_GLTF_FLOAT) return fail_acc(d, index, "float components where integers are required", err);
  sink s = {NULL, out, false, false};
  if ((rc = read_all(d, index, &s, err))) return rc;
  if (s.negative) return fail_acc(d, index, "negative integers where indices are required", err);
  return SKC_OK;
}
