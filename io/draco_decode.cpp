// draco_decode.cpp - the C-callable shim over libdraco (skio_draco.h). Everything C++ stays in this file: every
// Draco call sits inside one try block, Draco's Status errors and any exception (std::bad_alloc, length_error)
// become a nonzero return with a message, and the output is plain malloc'ed C arrays.
#include "skio_draco.h"

#include <draco/attributes/attribute_quantization_transform.h>
#include <draco/compression/decode.h>
#include <draco/core/decoder_buffer.h>
#include <draco/mesh/mesh.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>

namespace {

const size_t kMaxCount = size_t(1) << 31;

int fail(char* msg, size_t msg_size, const char* what, const char* detail = nullptr) {
  if (msg && msg_size) std::snprintf(msg, msg_size, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

bool is_integer(draco::DataType t) {
  return t == draco::DT_INT8 || t == draco::DT_UINT8 || t == draco::DT_INT16 || t == draco::DT_UINT16 ||
         t == draco::DT_INT32 || t == draco::DT_UINT32 || t == draco::DT_INT64 || t == draco::DT_UINT64;
}

bool is_signed(draco::DataType t) {
  return t == draco::DT_INT8 || t == draco::DT_INT16 || t == draco::DT_INT32 || t == draco::DT_INT64;
}

// Fills a from Draco's attribute p (point_count points): its values are those of `values`, which is p itself or
// p's values dequantized (see dequantized), indexed by p's point-to-value map. Returns nullptr or what went wrong.
const char* convert(const draco::PointAttribute& map, const draco::PointAttribute& p, size_t point_count,
                    skio_draco_attribute* a) {
  const int comps = p.num_components();
  if (comps < 1 || comps > 4) return "an attribute has more than 4 components";
  a->unique_id = map.unique_id();
  a->components = uint32_t(comps);
  a->integer = is_integer(p.data_type());
  a->is_signed = is_signed(p.data_type());
  a->normalized = p.normalized();
  if (p.data_type() != draco::DT_FLOAT32 && p.data_type() != draco::DT_FLOAT64 && !a->integer)
    return "an attribute of a type glTF has no use for (bool or invalid)";
  const size_t n = point_count * size_t(comps);
  a->floats = static_cast<float*>(std::malloc((n ? n : 1) * sizeof(float)));
  if (a->integer) a->uints = static_cast<uint32_t*>(std::malloc((n ? n : 1) * sizeof(uint32_t)));
  if (!a->floats || (a->integer && !a->uints)) return "out of memory";
  if (!map.is_mapping_identity() && map.indices_map_size() < point_count)
    return "an attribute maps fewer points than the mesh has";
  for (size_t i = 0; i < point_count; ++i) {
    const draco::AttributeValueIndex v = map.mapped_index(draco::PointIndex(uint32_t(i)));
    if (v.value() >= p.size()) return "an attribute maps a point to a value that does not exist";
    float* f = a->floats + i * size_t(comps);
    if (!p.ConvertValue<float>(v, int8_t(comps), f)) return "an attribute value does not convert";
    if (a->integer) {
      int64_t w[4];
      if (!p.ConvertValue<int64_t>(v, int8_t(comps), w)) return "an attribute value does not convert";
      for (int c = 0; c < comps; ++c) {
        if (w[c] < INT32_MIN || w[c] > int64_t(UINT32_MAX)) return "an integer attribute value past 32 bits";
        a->uints[i * size_t(comps) + size_t(c)] = uint32_t(w[c]);
      }
    }
  }
  return nullptr;
}

// A generic attribute (glTF's JOINTS_n, WEIGHTS_n, custom ones) is decoded without its inverse transform
// (Decoder::SetSkipAttributeTransform) so that its quantization, when it has one, is known: `out` gets the values
// dequantized by Draco's own transform (the floats a plain decode gives) and a->quant_step the quantization step,
// range / (2^bits - 1). Returns &p itself when p was not quantized, nullptr when the transform fails.
const draco::PointAttribute* dequantized(const draco::PointAttribute& p, draco::PointAttribute* out,
                                         skio_draco_attribute* a) {
  const draco::AttributeTransformData* td = p.GetAttributeTransformData();
  if (!td || td->transform_type() != draco::ATTRIBUTE_QUANTIZATION_TRANSFORM) return &p;
  draco::AttributeQuantizationTransform q;
  if (!q.InitFromAttribute(p) || q.quantization_bits() < 1 || q.quantization_bits() > 30) return nullptr;
  out->Init(p.attribute_type(), p.num_components(), draco::DT_FLOAT32, p.normalized(), p.size());
  if (!q.InverseTransformAttribute(p, out)) return nullptr;
  a->quant_step = q.range() / float((uint32_t(1) << q.quantization_bits()) - 1u);
  return out;
}

// ------------------------------------------------------------------ the counts in the header, before decoding
// libdraco sizes its tables from counts in the stream before it reads the data that would contradict them (a 7 KB
// stream naming 226 million faces makes it allocate 2.7 GB), so they are read here first, after the format's own
// layout (Draco bitstream versions 1.0 to 2.2): "DRACO", major, minor, encoder type, method, flags (u16), the
// metadata if flagged (1.3 on), then for the edgebreaker method a traversal byte, [new vertices], vertices, faces;
// for the sequential method faces, points. Counts are little-endian u32 before 2.0 (2.2 for sequential), varints
// after.

struct Reader {
  const uint8_t* p;
  size_t left;
  bool byte(uint8_t* v) {
    if (!left) return false;
    *v = *p++;
    --left;
    return true;
  }
  bool skip(size_t n) {
    if (n > left) return false;
    p += n;
    left -= n;
    return true;
  }
  bool u32(uint32_t* v) {
    if (left < 4) return false;
    *v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    return skip(4);
  }
  bool varint(uint32_t* v) {  // LEB128, at most 5 bytes, kept to 32 bits as Draco keeps it
    uint64_t x = 0;
    for (int i = 0; i < 5; ++i) {
      uint8_t b;
      if (!byte(&b)) return false;
      x |= uint64_t(b & 0x7F) << (7 * i);
      if (!(b & 0x80)) {
        *v = uint32_t(x);
        return true;
      }
    }
    return false;
  }
  bool name() {
    uint8_t n;
    return byte(&n) && skip(n);
  }
};

// One metadata element: entries (name, varint size, bytes), then named sub-elements, nested at most `depth` deep.
bool skip_metadata_element(Reader* r, int depth) {
  uint32_t entries, subs, size;
  if (depth <= 0 || !r->varint(&entries)) return false;
  for (uint32_t i = 0; i < entries; ++i)
    if (!r->name() || !r->varint(&size) || size == 0 || !r->skip(size)) return false;
  if (!r->varint(&subs)) return false;
  for (uint32_t i = 0; i < subs; ++i)
    if (!r->name() || !skip_metadata_element(r, depth - 1)) return false;
  return true;
}

bool skip_metadata(Reader* r) {
  uint32_t attributes, id;
  if (!r->varint(&attributes)) return false;
  for (uint32_t i = 0; i < attributes; ++i)
    if (!r->varint(&id) || !skip_metadata_element(r, 64)) return false;
  return skip_metadata_element(r, 64);
}

struct HeaderCounts {
  uint64_t faces = 0, vertices = 0;  // vertices: points (sequential) or new + encoded vertices (edgebreaker)
  bool sequential = false;
};

// Returns nullptr with the counts, or why the header does not parse.
const char* header_counts(const uint8_t* data, size_t size, HeaderCounts* h) {
  Reader r{data, size};
  uint8_t major, minor, type, method, flags_lo, flags_hi, traversal;
  if (!r.skip(5) || !r.byte(&major) || !r.byte(&minor) || !r.byte(&type) || !r.byte(&method) || !r.byte(&flags_lo) ||
      !r.byte(&flags_hi))
    return "a truncated Draco header";
  const unsigned version = unsigned(major) << 8 | minor;
  if (version >= 0x0103 && (flags_hi & 0x80) && !skip_metadata(&r)) return "Draco metadata does not parse";
  uint32_t a = 0, b = 0, extra = 0;
  h->sequential = method == 0;
  bool ok;
  if (h->sequential)
    ok = version < 0x0202 ? r.u32(&a) && r.u32(&b) : r.varint(&a) && r.varint(&b);
  else if (version < 0x0200)
    ok = r.byte(&traversal) && r.u32(&extra) && r.u32(&b) && r.u32(&a);
  else if (version < 0x0202)
    ok = r.byte(&traversal) && r.varint(&extra) && r.varint(&b) && r.varint(&a);
  else
    ok = r.byte(&traversal) && r.varint(&b) && r.varint(&a);
  if (!ok) return "a truncated Draco connectivity header";
  h->faces = a;
  h->vertices = uint64_t(b) + extra;
  return nullptr;
}

// The header's counts against what the glTF accessors declare (0: no bound of that kind).
const char* check_counts(const HeaderCounts& h, size_t max_faces, size_t max_points) {
  if (max_faces && h.faces > max_faces) return "its header names more triangles than the accessors declare";
  const uint64_t vertex_cap = h.sequential ? max_points : 3 * uint64_t(max_faces);
  if (vertex_cap && h.vertices > vertex_cap) return "its header names more vertices than the accessors declare";
  return nullptr;
}

}  // namespace

extern "C" void skio_draco_free(skio_draco_mesh* m) {
  if (!m) return;
  for (size_t i = 0; m->attributes && i < m->attribute_count; ++i) {
    std::free(m->attributes[i].floats);
    std::free(m->attributes[i].uints);
  }
  std::free(m->attributes);
  std::free(m->indices);
  std::free(m);
}

extern "C" int skio_draco_decode(const uint8_t* data, size_t size, size_t max_faces, size_t max_points,
                                 skio_draco_mesh** out, char* msg, size_t msg_size) {
  if (msg && msg_size) msg[0] = 0;
  if (!data || !out) return fail(msg, msg_size, "no data");
  skio_draco_mesh* m = nullptr;
  try {
    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char*>(data), size);
    auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
    if (!type.ok()) return fail(msg, msg_size, "not Draco data", type.status().error_msg());
    if (type.value() != draco::TRIANGULAR_MESH) return fail(msg, msg_size, "a Draco point cloud, not a triangle mesh");
    HeaderCounts counts;
    const char* refused = header_counts(data, size, &counts);
    if (!refused) refused = check_counts(counts, max_faces, max_points);
    if (refused) return fail(msg, msg_size, "Draco data refused before decoding", refused);
    draco::Decoder decoder;
    decoder.SetSkipAttributeTransform(draco::GeometryAttribute::GENERIC); /* see dequantized() */
    auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
    if (!decoded.ok()) return fail(msg, msg_size, "Draco data does not decode", decoded.status().error_msg());
    std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
    if (!mesh) return fail(msg, msg_size, "Draco data does not decode");
    const size_t points = mesh->num_points(), faces = mesh->num_faces();
    if (points > kMaxCount || faces > kMaxCount / 3) return fail(msg, msg_size, "Draco mesh too large");
    m = static_cast<skio_draco_mesh*>(std::calloc(1, sizeof *m));
    if (!m) return fail(msg, msg_size, "out of memory");
    m->point_count = points;
    m->face_count = faces;
    m->indices = static_cast<uint32_t*>(std::malloc((faces ? faces * 3 : 1) * sizeof(uint32_t)));
    const int na = mesh->num_attributes();
    m->attributes = static_cast<skio_draco_attribute*>(std::calloc(na > 0 ? size_t(na) : 1, sizeof *m->attributes));
    if (!m->indices || !m->attributes) {
      skio_draco_free(m);
      return fail(msg, msg_size, "out of memory");
    }
    for (size_t f = 0; f < faces; ++f) {
      const draco::Mesh::Face& face = mesh->face(draco::FaceIndex(uint32_t(f)));
      for (int c = 0; c < 3; ++c) {
        if (face[c].value() >= points) {
          skio_draco_free(m);
          return fail(msg, msg_size, "a Draco face names a point that does not exist");
        }
        m->indices[f * 3 + size_t(c)] = face[c].value();
      }
    }
    for (int i = 0; i < na; ++i) {
      const draco::PointAttribute* p = mesh->attribute(i);
      m->attribute_count = size_t(i) + 1;
      draco::PointAttribute plain;
      const draco::PointAttribute* values = p ? dequantized(*p, &plain, &m->attributes[i]) : nullptr;
      const char* why = !p        ? "a missing attribute"
                        : !values ? "a quantized attribute does not dequantize"
                                  : convert(*p, *values, points, &m->attributes[i]);
      if (why) {
        skio_draco_free(m);
        return fail(msg, msg_size, why);
      }
    }
    *out = m;
    return 0;
  } catch (const std::exception& e) {
    skio_draco_free(m);
    return fail(msg, msg_size, "Draco decoding failed", e.what());
  } catch (...) {
    skio_draco_free(m);
    return fail(msg, msg_size, "Draco decoding failed");
  }
}
