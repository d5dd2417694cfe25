/* gltf_import_material.c - the scene's material and image tables (skio_scene.h) from a glTF document, so that a
 * glTF written whole (a change of container, a scene the in-place editor cannot map) or as Collada / FBX keeps its
 * materials, textures and images. Called by gltf_import.c once the meshes exist.
 *
 *  - materials: every "materials" entry in order (skio_mesh.material is the primitive's "material" unchanged, or
 *    UINT32_MAX): name ("material<i>" when unnamed), pbrMetallicRoughness baseColorFactor / metallicFactor /
 *    roughnessFactor (clamped to [0, 1], glTF's default for anything absent or not finite), emissiveFactor,
 *    alphaMode / alphaCutoff, doubleSided; baseColorTexture, metallicRoughnessTexture, normalTexture (scale),
 *    occlusionTexture (strength), emissiveTexture with their texCoord. A texture reference is its texture's
 *    "source", else its EXT_texture_webp / KHR_texture_basisu source (the core source is the fallback every reader
 *    has); a texture or image index past its array is no texture (noted). Samplers and KHR_materials_* are not
 *    kept. KHR_texture_transform is baked into the UVs it applies to (bake_uv_transforms): gltfpack stores
 *    quantized texture coordinates and puts their dequantization there, so a writer that drops the extension
 *    (Collada, FBX, a glTF written whole) would otherwise map the texture wrong.
 *  - images: every "images" entry in order (so image i is glTF image i): bytes from its bufferView
 *    (skio_gltf_view_data), a base64 data: URI, or a relative file beside the .gltf (as scene_material.c reads one:
 *    the path, percent-decoded, then the file name in the folder; absolute paths and other schemes are refused like
 *    external buffers, and a document parsed from memory reads no file). At most SKIO_IMAGE_MAX_BYTES each and
 *    256 MiB + 4 x the file size in all (many images may share one view). mimeType from the magic bytes, else the
 *    JSON's mimeType / data URI type, else the extension. name: the image's, else the URI's file name, else
 *    "image<i>"; uri kept for external files.
 * Nothing here fails on file content: what cannot be read is left out and named in skio_scene.material_note. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_gltf_doc.h"
#include "skio_gltf_import.h"
#include "skio_scene.h"

#define BUDGET_BASE ((size_t)256 << 20)

/* The KHR_texture_transform a material's textures apply to one UV set: u' = m[0] u + m[1] v + m[2],
 * v' = m[3] u + m[4] v + m[5] (glTF's UV axes, v down); the identity for a texture without the extension. */
struct uv_transform {
  bool used;     /* a texture of the material reads this set */
  bool conflict; /* two of them transform it differently */
  float m[6];
};

typedef struct mat_reader {
  skio_scene* s;
  skio_gltf_doc* d;
  size_t budget; /* image bytes still allowed */
  uint32_t texture_count;
  bool oom;
  struct uv_transform (*uvx)[2]; /* per material, per UV set (TEXCOORD_0, _1): what its textures apply */
} mat_reader;

static char* dup_s(const char* s) {
  size_t n = strlen(s);
  char* p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

static void note(mat_reader* r, const char* fmt, unsigned i, const char* a) {
  skio_scene* s = r->s;
  char line[300];
  snprintf(line, sizeof line, fmt, i, a ? a : "");
  size_t old = s->material_note ? strlen(s->material_note) : 0;
  if (old > 2000) return;
  char* n = realloc(s->material_note, old + strlen(line) + 3);
  if (!n) return;
  if (old) strcpy(n + old, "; ");
  else n[0] = 0;
  strcat(n, line);
  s->material_note = n;
}

static float clamp01(double v, float dflt) {
  if (!isfinite(v)) return dflt;
  return v > 0.0 ? (v < 1.0 ? (float)v : 1.0f) : 0.0f;
}

/* ---- images -------------------------------------------------------------------------------------------- */
static int b64(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/* Base64 text -> bytes (malloc), stopping at '=' ; NULL on a bad character or out of memory. */
static unsigned char* decode_base64(const char* t, size_t n, size_t* out_n) {
  unsigned char* out = malloc(n / 4 * 3 + 3);
  if (!out) return NULL;
  size_t o = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n && t[i] != '='; ++i) {
    int v = b64((unsigned char)t[i]);
    if (v < 0) {
      free(out);
      return NULL;
    }
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (unsigned char)(acc >> bits);
    }
  }
  *out_n = o;
  return out;
}

static bool take(mat_reader* r, unsigned i, const char* name, size_t n) {
  if (n > SKIO_IMAGE_MAX_BYTES) {
    note(r, "image %u (%s) larger than 64 MiB: not read", i, name);
    return false;
  }
  if (n > r->budget) {
    note(r, "image %u (%s) past the total image bytes allowed: not read", i, name);
    return false;
  }
  r->budget -= n;
  return true;
}

static void read_image(mat_reader* r, unsigned i, skio_image* img, const char* dir) {
  skio_gltf_doc* d = r->d;
  int it = skio_json_at(d, skio_json_get(d, 0, "images"), (int)i);
  char def[32];
  snprintf(def, sizeof def, "image%u", i);
  int nt = skio_json_get(d, it, "name");
  char* name = skio_json_is(d, nt, 3) ? skio_json_strdup(d, nt) : NULL;
  char* uri = NULL;
  int ut = skio_json_get(d, it, "uri");
  if (skio_json_is(d, ut, 3)) uri = skio_json_strdup(d, ut);
  char* mt = NULL;
  int mtt = skio_json_get(d, it, "mimeType");
  if (skio_json_is(d, mtt, 3)) mt = skio_json_strdup(d, mtt);
  bool is_data = uri && !strncmp(uri, "data:", 5);
  if (!name || !name[0]) {
    free(name);
    const char* base = uri && !is_data ? strrchr(uri, '/') : NULL;
    base = base ? base + 1 : uri;
    name = dup_s(uri && !is_data && base[0] ? base : def);
  }
  if (!name) {
    r->oom = true;
    goto done;
  }
  img->name = name;
  name = NULL;
  uint32_t view = 0;
  const char* hint = uri && !is_data ? uri : NULL;
  if (skio_json_u32(d, skio_json_get(d, it, "bufferView"), &view)) {
    img->embedded = true;
    const uint8_t* bytes = NULL;
    size_t n = 0, stride = 0;
    skc_err e = {0};
    if (view >= d->view_count || skio_gltf_view_data(d, view, &bytes, &n, &stride, &e) != SKC_OK || !bytes) {
      note(r, "image %u (%s): its bufferView cannot be read", i, img->name);
    } else if (take(r, i, img->name, n)) {
      if ((img->data = malloc(n ? n : 1))) {
        memcpy(img->data, bytes, n);
        img->size = n;
      } else {
        r->oom = true;
      }
    }
  } else if (is_data) {
    img->embedded = true;
    const char* comma = strchr(uri, ',');
    const char* semi = strstr(uri, ";base64,");
    if (!comma || !semi || semi + 7 != comma) {
      note(r, "image %u (%s): data URI is not base64", i, img->name);
    } else if (take(r, i, img->name, strlen(comma + 1) / 4 * 3)) {
      if (!(img->data = decode_base64(comma + 1, strlen(comma + 1), &img->size)))
        note(r, "image %u (%s): bad base64 data URI", i, img->name);
      if (!mt && semi - uri > 5 && semi - uri - 5 < 15) { /* data:image/png;base64, */
        char m[16];
        snprintf(m, sizeof m, "%.*s", (int)(semi - uri - 5), uri + 5);
        mt = dup_s(m);
      }
    }
  } else if (uri) {
    if (!(img->uri = dup_s(uri))) {
      r->oom = true;
      goto done;
    }
    bool too_big = false;
    if (!dir) note(r, "image %u (%s): external file not read (memory input)", i, uri);
    else if (uri[0] == '/' || uri[0] == '\\' || strchr(uri, ':'))
      note(r, "image %u (%s): not a relative file name, not read", i, uri);
    else if (skio_gltf_uri_climbs(uri))
      note(r, "image %u (%s): reaches outside the file's folder (.., or an absolute path once decoded), not read", i,
           uri);
    else if (!skio_image_load_file(img, dir, &too_big))
      note(r, too_big ? "image %u (%s) larger than 64 MiB: not read" : "image %u (%s) not found beside the file: not read",
           i, uri);
    else if (!take(r, i, uri, img->size)) {
      free(img->data);
      img->data = NULL;
      img->size = 0;
    }
  } else {
    note(r, "image %u (%s) has neither bufferView nor uri", i, img->name);
  }
  const char* mime = skio_image_mime(img->data, img->size, NULL);
  if (!mime[0] && mt && strlen(mt) < sizeof img->mime) mime = mt;
  if (!mime[0] && !img->data) mime = skio_image_mime(NULL, 0, hint);
  snprintf(img->mime, sizeof img->mime, "%s", mime);
done:
  free(name);
  free(uri);
  free(mt);
}

/* ---- materials ----------------------------------------------------------------------------------------- */
/* The texture reference's KHR_texture_transform (the extension's texCoord overrides the reference's), recorded
 * against the material's UV set: offset x rotation x scale, in that order, as the extension defines them. */
static void record_transform(mat_reader* r, unsigned mi, int info, skio_texref* out) {
  skio_gltf_doc* d = r->d;
  int x = skio_json_get(d, skio_json_get(d, info, "extensions"), "KHR_texture_transform");
  uint32_t uv = 0;
  if (x >= 0 && skio_json_u32(d, skio_json_get(d, x, "texCoord"), &uv)) out->uv = uv;
  if (!r->uvx || out->uv > 1) return;
  float off[2] = {0.0f, 0.0f}, sc[2] = {1.0f, 1.0f}, m[6];
  double rot = 0.0;
  if (x >= 0) {
    skio_json_floats(d, skio_json_get(d, x, "offset"), off, 2);
    skio_json_floats(d, skio_json_get(d, x, "scale"), sc, 2);
    skio_json_num(d, skio_json_get(d, x, "rotation"), &rot);
  }
  float c = (float)cos(rot), sn = (float)sin(rot);
  m[0] = c * sc[0], m[1] = sn * sc[1], m[2] = off[0];
  m[3] = -sn * sc[0], m[4] = c * sc[1], m[5] = off[1];
  for (int k = 0; k < 6; ++k)
    if (!isfinite(m[k])) return; /* a broken extension: the UVs are left as stored */
  struct uv_transform* t = &r->uvx[mi][out->uv];
  if (t->used && memcmp(t->m, m, sizeof m) != 0) t->conflict = true;
  if (!t->used) memcpy(t->m, m, sizeof m);
  t->used = true;
}

static void tex_ref(mat_reader* r, unsigned mi, int info, const char* scale_key, skio_texref* out) {
  skio_gltf_doc* d = r->d;
  if (!skio_json_is(d, info, 1)) return;
  uint32_t t = 0;
  if (!skio_json_u32(d, skio_json_get(d, info, "index"), &t) || t >= r->texture_count) {
    note(r, "material %u: texture index past the textures%s", mi, "");
    return;
  }
  int tt = skio_gltf_item(d, "textures", t);
  uint32_t src = 0;
  bool has = skio_json_u32(d, skio_json_get(d, tt, "source"), &src);
  int ext = skio_json_get(d, tt, "extensions");
  if (!has) has = skio_json_u32(d, skio_json_get(d, skio_json_get(d, ext, "EXT_texture_webp"), "source"), &src);
  if (!has) has = skio_json_u32(d, skio_json_get(d, skio_json_get(d, ext, "KHR_texture_basisu"), "source"), &src);
  if (!has && skio_json_get(d, ext, "EXT_texture_avif") >= 0) { /* gltf-transform `avif` keeps no other source */
    note(r, "material %u: a texture's image is AVIF (EXT_texture_avif), which skinkit does not decode%s", mi, "");
    return;
  }
  if (!has || src >= r->s->image_count) {
    note(r, "material %u: a texture has no valid image source%s", mi, "");
    return;
  }
  out->image = (int32_t)src;
  uint32_t uv = 0;
  if (skio_json_u32(d, skio_json_get(d, info, "texCoord"), &uv)) out->uv = uv;
  record_transform(r, mi, info, out);
  double sc = 1.0;
  if (scale_key && skio_json_num(d, skio_json_get(d, info, scale_key), &sc) && isfinite(sc)) out->scale = (float)sc;
}

static void read_material(mat_reader* r, unsigned i, skio_material* m) {
  skio_gltf_doc* d = r->d;
  int mt = skio_json_at(d, d->t_materials, (int)i);
  skio_material_init(m);
  int nt = skio_json_get(d, mt, "name");
  char* name = skio_json_is(d, nt, 3) ? skio_json_strdup(d, nt) : NULL;
  if (!name || !name[0]) {
    free(name);
    char def[32];
    snprintf(def, sizeof def, "material%u", i);
    name = dup_s(def);
  }
  if (!(m->name = name)) {
    r->oom = true;
    return;
  }
  int pbr = skio_json_get(d, mt, "pbrMetallicRoughness");
  float bc[4];
  if (skio_json_floats(d, skio_json_get(d, pbr, "baseColorFactor"), bc, 4) == 4)
    for (int c = 0; c < 4; ++c) m->base_color[c] = clamp01(bc[c], 1.0f);
  double f = 0.0;
  if (skio_json_num(d, skio_json_get(d, pbr, "metallicFactor"), &f)) m->metallic = clamp01(f, 1.0f);
  if (skio_json_num(d, skio_json_get(d, pbr, "roughnessFactor"), &f)) m->roughness = clamp01(f, 1.0f);
  float em[3];
  if (skio_json_floats(d, skio_json_get(d, mt, "emissiveFactor"), em, 3) == 3)
    for (int c = 0; c < 3; ++c) m->emissive[c] = clamp01(em[c], 0.0f);
  int am = skio_json_get(d, mt, "alphaMode");
  m->alpha_mode = skio_json_streq(d, am, "MASK") ? SKIO_ALPHA_MASK
                  : skio_json_streq(d, am, "BLEND") ? SKIO_ALPHA_BLEND : SKIO_ALPHA_OPAQUE;
  if (skio_json_num(d, skio_json_get(d, mt, "alphaCutoff"), &f) && isfinite(f) && f >= 0.0) m->alpha_cutoff = (float)f;
  bool ds = false;
  if (skio_json_bool(d, skio_json_get(d, mt, "doubleSided"), &ds)) m->double_sided = ds;
  tex_ref(r, i, skio_json_get(d, pbr, "baseColorTexture"), NULL, &m->base_color_tex);
  tex_ref(r, i, skio_json_get(d, pbr, "metallicRoughnessTexture"), NULL, &m->metallic_roughness_tex);
  tex_ref(r, i, skio_json_get(d, mt, "normalTexture"), "scale", &m->normal_tex);
  tex_ref(r, i, skio_json_get(d, mt, "occlusionTexture"), "strength", &m->occlusion_tex);
  tex_ref(r, i, skio_json_get(d, mt, "emissiveTexture"), NULL, &m->emissive_tex);
}

/* The material index of primitive p of glTF mesh gm (UINT32_MAX: none, or an index past the table, noted). */
static uint32_t primitive_material(mat_reader* r, int32_t gm, int32_t p, uint32_t mesh) {
  const skio_gltf_doc* d = r->d;
  uint32_t mi = 0;
  int pt = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", (uint32_t)gm), "primitives"), p);
  if (gm < 0 || !skio_json_u32(d, skio_json_get(d, pt, "material"), &mi)) return UINT32_MAX;
  if (mi >= r->s->material_count) {
    note(r, "mesh %u: material index past the materials%s", mesh, "");
    return UINT32_MAX;
  }
  return mi;
}

/* The transform every material of mesh k (its own and its parts') applies to UV set `set`: NULL when none does
 * or they disagree (noted: the UVs are left as stored). */
static const float* mesh_uv_transform(mat_reader* r, uint32_t k, unsigned set) {
  const skio_mesh* m = &r->s->meshes[k];
  const float* t = NULL;
  for (uint32_t p = 0; p <= m->part_count; ++p) {
    uint32_t mi = p == 0 ? m->material : m->parts[p - 1].material;
    if (mi == UINT32_MAX || !r->uvx[mi][set].used) continue;
    const struct uv_transform* x = &r->uvx[mi][set];
    if (x->conflict || (t && memcmp(t, x->m, sizeof x->m) != 0)) {
      note(r, "mesh %u: its textures transform one UV set differently (KHR_texture_transform): UVs left as stored%s", k,
           "");
      return NULL;
    }
    t = x->m;
  }
  return t;
}

/* Applies each mesh's KHR_texture_transform to its UVs (stored with v flipped: v_stored = 1 - v_glTF). */
static void bake_uv_transforms(mat_reader* r) {
  static const float k_identity[6] = {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f};
  for (uint32_t k = 0; r->uvx && k < r->s->mesh_count; ++k) {
    skio_mesh* m = &r->s->meshes[k];
    for (unsigned set = 0; set < 2; ++set) {
      float* uv = set ? m->uv1 : m->uv0;
      const float* t = uv ? mesh_uv_transform(r, k, set) : NULL;
      if (!t || memcmp(t, k_identity, sizeof k_identity) == 0) continue;
      for (size_t v = 0; v < m->vertex_count; ++v) {
        float u = uv[2 * v], w = 1.0f - uv[2 * v + 1];
        uv[2 * v] = t[0] * u + t[1] * w + t[2];
        uv[2 * v + 1] = 1.0f - (t[3] * u + t[4] * w + t[5]);
      }
    }
  }
}

int skio_gltf_read_materials(skio_scene* s, skio_gltf_doc* d, skc_err* err) {
  if (!s || !d) return SKC_OK;
  mat_reader r = {s, d, BUDGET_BASE, 0, false, NULL};
  size_t extra = d->file_size > (SIZE_MAX - BUDGET_BASE) / 4 ? SIZE_MAX - BUDGET_BASE : d->file_size * 4;
  r.budget += extra;
  r.texture_count = (uint32_t)skio_json_len(d, skio_json_get(d, 0, "textures"));
  char* dir = NULL;
  if (d->base_dir) {
    size_t n = strlen(d->base_dir);
    if (!(dir = malloc(n + 2))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    memcpy(dir, d->base_dir, n);
    dir[n] = '/';
    dir[n + 1] = 0;
  }
  int images = skio_json_len(d, skio_json_get(d, 0, "images"));
  int mats = skio_json_len(d, d->t_materials);
  if (images > 0 && !(s->images = calloc((size_t)images, sizeof *s->images))) r.oom = true;
  for (int i = 0; i < images && !r.oom; ++i) {
    s->image_count = (uint32_t)i + 1;
    read_image(&r, (unsigned)i, &s->images[i], dir);
  }
  if (!r.oom && mats > 0 && !(s->materials = calloc((size_t)mats, sizeof *s->materials))) r.oom = true;
  if (!r.oom && mats > 0 && !(r.uvx = calloc((size_t)mats, sizeof *r.uvx))) r.oom = true;
  for (int i = 0; i < mats && !r.oom; ++i) {
    s->material_count = (uint32_t)i + 1;
    read_material(&r, (unsigned)i, &s->materials[i]);
  }
  free(dir);
  if (r.oom) {
    free(r.uvx);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory reading materials", s->source ? s->source : "");
  }
  for (uint32_t k = 0; k < s->mesh_count; ++k) {
    skio_mesh* m = &s->meshes[k];
    m->material = primitive_material(&r, m->gltf_mesh, m->gltf_primitive, k);
    for (uint32_t p = 0; p < m->part_count; ++p)
      m->parts[p].material = primitive_material(&r, m->gltf_mesh, m->parts[p].gltf_primitive, k);
  }
  bake_uv_transforms(&r);
  free(r.uvx);
  return SKC_OK;
}
