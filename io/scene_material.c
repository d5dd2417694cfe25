#define _DEFAULT_SOURCE /* realpath */
/* scene_material.c - the scene's materials and images (skio_scene.h): read from Assimp's aiMaterial / aiTexture
 * into glTF's metallic-roughness model, and turned back into aiMaterials for the Assimp exporters.
 *
 * Reading (skio_scene_read_materials):
 *  - base colour: AI_MATKEY_BASE_COLOR when the importer sets it (glTF, some FBX PBR), else the diffuse colour with
 *    AI_MATKEY_OPACITY as alpha. A legacy diffuse colour is replaced by white when a diffuse texture is present:
 *    FBX / Collada readers (Blender's among them) show the texture instead of the colour, while glTF multiplies.
 *  - metallic / roughness: AI_MATKEY_METALLIC_FACTOR / AI_MATKEY_ROUGHNESS_FACTOR when present, else 0 and 1 (a
 *    legacy material is not a metal; glTF's default metallic 1 would turn it into one).
 *  - emissive colour (clamped to [0, 1]), two-sided flag, glTF alpha mode / cutoff when present, else BLEND when the
 *    opacity is below 1.
 *  - textures: base colour (BASE_COLOR, else DIFFUSE), normal (NORMALS, else NORMAL_CAMERA), metallic-roughness
 *    (glTF importer's UNKNOWN slot), emissive (EMISSIVE, else EMISSION_COLOR), occlusion (AMBIENT_OCCLUSION, else
 *    LIGHTMAP), each with its uv set (AI_MATKEY_UVWSRC). A path "*<n>" or the file name of an embedded aiTexture is
 *    that texture's bytes (compressed ones as stored; uncompressed texels are encoded as PNG); any other path is a
 *    file read beside the model (the relative path, then its file name in the model's folder) or at its absolute
 *    path, at most SKIO_IMAGE_MAX_BYTES. Images are shared by path.
 */
#include <assimp/GltfMaterial.h>
#include <assimp/material.h>
#include <assimp/scene.h>
#include <assimp/texture.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "skio_atomic.h"
#include "skio_image.h"
#include "skio_scene.h"

static char* dup_n(const char* s, size_t n) {
  char* d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}
static char* dup_s(const char* s) { return dup_n(s, strlen(s)); }

void skio_material_init(skio_material* m) {
  memset(m, 0, sizeof *m);
  for (int c = 0; c < 4; ++c) m->base_color[c] = 1.0f;
  m->metallic = 1.0f;
  m->roughness = 1.0f;
  m->alpha_cutoff = 0.5f;
  skio_texref none = {-1, 0, 1.0f};
  m->base_color_tex = m->normal_tex = m->metallic_roughness_tex = m->emissive_tex = m->occlusion_tex = none;
}

void skio_image_free(skio_image* im) {
  free(im->name);
  free(im->uri);
  free(im->path);
  free(im->data);
  memset(im, 0, sizeof *im);
}

void skio_scene_free_materials(skio_scene* s) {
  if (!s) return;
  for (uint32_t i = 0; i < s->material_count; ++i) free(s->materials[i].name);
  free(s->materials);
  for (uint32_t i = 0; i < s->image_count; ++i) skio_image_free(&s->images[i]);
  free(s->images);
  free(s->material_note);
  s->materials = NULL;
  s->images = NULL;
  s->material_note = NULL;
  s->material_count = s->image_count = 0;
}

const char* skio_image_mime(const unsigned char* d, size_t n, const char* name) {
  static const unsigned char png[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  static const unsigned char ktx2[12] = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A};
  if (d && n >= 8 && memcmp(d, png, 8) == 0) return "image/png";
  if (d && n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return "image/jpeg";
  if (d && n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) return "image/webp";
  if (d && n >= 12 && memcmp(d, ktx2, 12) == 0) return "image/ktx2";
  if (d && n >= 4) return ""; /* bytes of another kind: the extension would lie */
  const char* dot = name ? strrchr(name, '.') : NULL;
  if (!dot) return "";
  if (!strcasecmp(dot, ".png")) return "image/png";
  if (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg")) return "image/jpeg";
  if (!strcasecmp(dot, ".webp")) return "image/webp";
  if (!strcasecmp(dot, ".ktx2")) return "image/ktx2";
  return "";
}

/* ---- materials of a scene built by hand (the ABI's sk_scene_add_image / _add_material) ---- */
int skio_scene_add_image(skio_scene* s, const char* name, const void* data, size_t size, uint32_t* out, skc_err* err) {
  if (!s || !data || !size) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and image bytes must be given");
  if (size > SKIO_IMAGE_MAX_BYTES)
    return skc_fail(err, SKC_OUT_OF_RANGE, "image of %zu bytes: at most %u MiB", size, SKIO_IMAGE_MAX_BYTES >> 20);
  const char* mime = skio_image_mime(data, size, NULL);
  char def[32];
  snprintf(def, sizeof def, "image%u", s->image_count);
  const char* nm = name && name[0] ? name : def;
  if (!mime[0]) return skc_fail(err, SKC_UNSUPPORTED, "image \"%s\" is not PNG, JPEG, WebP or KTX2", nm);
  if (s->image_count == UINT32_MAX) return skc_fail(err, SKC_OUT_OF_RANGE, "too many images");
  skio_image* grown = realloc(s->images, ((size_t)s->image_count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding an image");
  s->images = grown;
  skio_image* im = &s->images[s->image_count];
  memset(im, 0, sizeof *im);
  im->name = dup_s(nm);
  im->data = malloc(size);
  if (!im->name || !im->data) {
    free(im->name);
    free(im->data);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding an image");
  }
  memcpy(im->data, data, size);
  im->size = size;
  im->embedded = true; /* held by the scene: writers embed it or write it beside the model */
  snprintf(im->mime, sizeof im->mime, "%s", mime);
  if (out) *out = s->image_count;
  s->image_count++;
  s->materials_changed = true;
  return SKC_OK;
}

static bool texref_ok(const skio_scene* s, skio_texref t) { return t.image < 0 || (uint32_t)t.image < s->image_count; }

int skio_scene_add_material(skio_scene* s, const skio_material* m, uint32_t* out, skc_err* err) {
  if (!s || !m) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and material must not be NULL");
  const skio_texref* t[5] = {&m->base_color_tex, &m->normal_tex, &m->metallic_roughness_tex, &m->emissive_tex,
                             &m->occlusion_tex};
  for (int k = 0; k < 5; ++k)
    if (!texref_ok(s, *t[k]))
      return skc_fail(err, SKC_OUT_OF_RANGE, "material image %d out of range (%u images)", (int)t[k]->image,
                      s->image_count);
  bool finite = isfinite(m->metallic) && isfinite(m->roughness) && isfinite(m->alpha_cutoff);
  for (int c = 0; c < 4; ++c) finite &= isfinite(m->base_color[c]) && (c == 3 || isfinite(m->emissive[c]));
  if (!finite || m->alpha_mode > SKIO_ALPHA_BLEND)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "material factors must be finite and the alpha mode 0..2");
  if (s->material_count == UINT32_MAX - 1) return skc_fail(err, SKC_OUT_OF_RANGE, "too many materials");
  skio_material* grown = realloc(s->materials, ((size_t)s->material_count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding a material");
  s->materials = grown;
  skio_material* d = &s->materials[s->material_count];
  *d = *m;
  char def[32];
  snprintf(def, sizeof def, "material%u", s->material_count);
  if (!(d->name = dup_s(m->name && m->name[0] ? m->name : def)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding a material");
  if (out) *out = s->material_count;
  s->material_count++;
  s->materials_changed = true;
  return SKC_OK;
}

int skio_mesh_set_material(skio_scene* s, uint32_t mesh, uint32_t material, skc_err* err) {
  if (!s || mesh >= s->mesh_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "mesh %u out of range (%u meshes)", mesh, s ? s->mesh_count : 0);
  if (material != UINT32_MAX && material >= s->material_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "material %u out of range (%u materials)", material, s->material_count);
  skio_mesh* m = &s->meshes[mesh];
  m->material = material;
  for (uint32_t p = 0; p < m->part_count; ++p) m->parts[p].material = material;
  s->materials_changed = true;
  return SKC_OK;
}

/* ---- notes ---- */
static void note_add(skio_scene* s, const char* fmt, const char* a) {
  char line[400];
  snprintf(line, sizeof line, fmt, a);
  skio_scene_note(s, line);
}

void skio_scene_note(skio_scene* s, const char* line) {
  size_t old = s->material_note ? strlen(s->material_note) : 0;
  if (old > 2000) return;
  char* n = realloc(s->material_note, old + strlen(line) + 3);
  if (!n) return;
  if (old) strcpy(n + old, "; ");
  else n[0] = 0;
  strcat(n, line);
  s->material_note = n;
}

/* An aiTexture's format hint that is a file extension ("tga", "png"; not "rgba8888" of uncompressed texels). */
static bool hint_is_extension(const char* h) {
  size_t n = strnlen(h, HINTMAXTEXTURELEN);
  if (!n || n >= HINTMAXTEXTURELEN) return false;
  for (size_t i = 0; i < n; ++i)
    if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') || (i && h[i] >= '0' && h[i] <= '9')))
      return false;
  return true;
}

/* ---- uncompressed aiTexels (B G R A) as PNG ---- */
static unsigned char* encode_png(const struct aiTexel* t, unsigned w, unsigned h, size_t* out_n) {
  if (!w || !h || (uint64_t)w * h > SKIO_IMAGE_MAX_PIXELS) return NULL;
  const size_t n = (size_t)w * h;
  unsigned char* px = malloc(n * 4);
  if (!px) return NULL;
  bool opaque = true;
  for (size_t i = 0; i < n; ++i) {
    px[4 * i] = t[i].r, px[4 * i + 1] = t[i].g, px[4 * i + 2] = t[i].b, px[4 * i + 3] = t[i].a;
    opaque &= t[i].a == 255;
  }
  if (opaque) /* RGB, packed in place */
    for (size_t i = 0; i < n; ++i) memmove(px + 3 * i, px + 4 * i, 3);
  unsigned char* png = skio_png_encode(px, w, h, opaque ? 3 : 4, out_n);
  free(px);
  return png;
}

/* ---- files ---- */
static unsigned char* read_file(const char* path, size_t* out_n, bool* too_big) {
  struct stat st;
  *too_big = false;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
  if ((uint64_t)st.st_size > SKIO_IMAGE_MAX_BYTES) {
    *too_big = true;
    return NULL;
  }
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = (size_t)st.st_size;
  unsigned char* d = malloc(n ? n : 1);
  if (d && fread(d, 1, n, f) != n) {
    free(d);
    d = NULL;
  }
  fclose(f);
  if (d) *out_n = n;
  return d;
}

/* dir of path with a trailing '/', or "" */
static char* dir_of(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? dup_n(path, (size_t)(slash - path + 1)) : dup_s("");
}

static void percent_decode(char* s) {
  char* o = s;
  for (char* p = s; *p; ++p) {
    unsigned v;
    if (p[0] == '%' && p[1] && p[2] && sscanf(p + 1, "%2x", &v) == 1) {
      *o++ = (char)v;
      p += 2;
    } else {
      *o++ = *p;
    }
  }
  *o = 0;
}

/* Tries the candidates for a path found in the model: relative to the model's folder (or absolute), then
 * percent-decoded, then its file name in the model's folder. Fills img->data / size / path. */
static bool load_external(skio_image* img, const char* model_dir, bool* too_big) {
  char* p = dup_s(img->uri);
  if (!p) return false;
  for (char* q = p; *q; ++q)
    if (*q == '\\') *q = '/';
  char* rel = p;
  if (!strncmp(rel, "file://", 7)) rel += 7;
  bool ok = false;
  for (int attempt = 0; attempt < 3 && !ok; ++attempt) {
    if (attempt == 1) {
      if (!strchr(rel, '%')) continue;
      percent_decode(rel);
    }
    const char* name = rel;
    if (attempt == 2) {
      const char* slash = strrchr(rel, '/');
      name = slash ? slash + 1 : rel;
      if (!name[0]) break;
    }
    bool absolute = name[0] == '/' && attempt < 2;
    size_t n = strlen(model_dir) + strlen(name) + 1;
    char* full = malloc(n);
    if (!full) break;
    snprintf(full, n, "%s%s", absolute ? "" : model_dir, name);
    bool big = false;
    img->data = read_file(full, &img->size, &big);
    *too_big |= big;
    if (img->data) {
      img->path = full;
      ok = true;
    } else {
      free(full);
    }
  }
  free(p);
  return ok;
}

bool skio_image_load_file(skio_image* img, const char* model_dir, bool* too_big) {
  bool big = false;
  bool ok = img && img->uri && model_dir && load_external(img, model_dir, &big);
  if (too_big) *too_big = big;
  return ok;
}

static const char* base_name(const char* p) {
  const char* a = strrchr(p, '/');
  const char* b = strrchr(p, '\\');
  if (b && (!a || b > a)) a = b;
  return a ? a + 1 : p;
}

/* The image for a texture path (shared by path); -1 when out of memory, -2 for "*<n>" naming no embedded image of
 * the file (Assimp's X exporter writes "*0" for a texture it embedded nowhere; kept, Assimp's own Collada exporter
 * then fails on it): no texture, and a note. */
static int32_t image_for(skio_scene* s, const struct aiScene* ai, const char* tpath, const char* model_dir,
                         uint32_t* cap) {
  for (uint32_t i = 0; i < s->image_count; ++i) {
    const skio_image* im = &s->images[i];
    if (im->uri && !strcmp(im->uri, tpath)) return (int32_t)i;
  }
  /* embedded: "*<n>", or the file name of an aiTexture */
  int emb = -1;
  if (tpath[0] == '*') {
    char* end = NULL;
    long k = strtol(tpath + 1, &end, 10);
    if (end && !*end && k >= 0 && (unsigned long)k < ai->mNumTextures) emb = (int)k;
    if (emb < 0) {
      note_add(s, "texture %s names no embedded image of the file: dropped", tpath);
      return -2;
    }
  } else {
    for (unsigned k = 0; k < ai->mNumTextures && emb < 0; ++k) {
      const struct aiTexture* t = ai->mTextures[k];
      if (t && t->mFilename.length && !strcmp(base_name(t->mFilename.data), base_name(tpath))) emb = (int)k;
    }
  }
  if (s->image_count == *cap) {
    uint32_t nc = *cap ? *cap * 2 : 8;
    skio_image* ni = realloc(s->images, nc * sizeof *ni);
    if (!ni) return -1;
    s->images = ni;
    *cap = nc;
  }
  skio_image* im = &s->images[s->image_count];
  memset(im, 0, sizeof *im);
  if (!(im->uri = dup_s(tpath))) return -1;
  s->image_count++;
  if (emb >= 0) {
    const struct aiTexture* t = ai->mTextures[emb];
    im->embedded = true;
    const char* fname = t && t->mFilename.length ? base_name(t->mFilename.data) : "";
    if (tpath[0] != '*') fname = base_name(tpath);
    char def[32];
    int dn = snprintf(def, sizeof def, "image%u", s->image_count - 1);
    if (t && t->mHeight == 0 && hint_is_extension(t->achFormatHint)) /* "image3.tga": its kind stays known */
      snprintf(def + dn, sizeof def - (size_t)dn, ".%.8s", t->achFormatHint);
    if (!(im->name = dup_s(fname[0] ? fname : def))) return -1;
    if (t && t->pcData && t->mHeight == 0 && t->mWidth) {
      if (t->mWidth <= SKIO_IMAGE_MAX_BYTES && (im->data = malloc(t->mWidth))) {
        memcpy(im->data, t->pcData, t->mWidth);
        im->size = t->mWidth;
      } else {
        note_add(s, "embedded image %s too large: not kept", im->name);
      }
      const char* mime = skio_image_mime(im->data, im->size, NULL);
      if (!mime[0]) {
        char hint[16];
        snprintf(hint, sizeof hint, "x.%.8s", t->achFormatHint);
        mime = skio_image_mime(NULL, 0, hint);
      }
      snprintf(im->mime, sizeof im->mime, "%s", mime);
    } else if (t && t->pcData && t->mHeight) {
      if ((im->data = encode_png(t->pcData, t->mWidth, t->mHeight, &im->size))) snprintf(im->mime, sizeof im->mime, "image/png");
      else note_add(s, "embedded image %s (uncompressed) could not be encoded: not kept", im->name);
    }
    return (int32_t)(s->image_count - 1);
  }
  if (!(im->name = dup_s(base_name(tpath)[0] ? base_name(tpath) : tpath))) return -1;
  bool too_big = false;
  const bool unnamed = !tpath[0] || !strcmp(tpath, ".") || tpath[strlen(tpath) - 1] == '/'; /* FBX: "" -> "." */
  if (!load_external(im, model_dir, &too_big))
    note_add(s,
             unnamed   ? "a texture without an image file name (%s): not read"
             : too_big ? "image %s larger than 64 MiB: not read"
                       : "image %s not found beside the model: not read",
             tpath);
  snprintf(im->mime, sizeof im->mime, "%s", skio_image_mime(im->data, im->size, tpath));
  return (int32_t)(s->image_count - 1);
}

static bool get_floats(const struct aiMaterial* m, const char* key, unsigned type, unsigned idx, float* out,
                       unsigned n) {
  ai_real tmp[4];
  unsigned got = n;
  if (aiGetMaterialFloatArray(m, key, type, idx, tmp, &got) != aiReturn_SUCCESS || got < 1) return false;
  for (unsigned i = 0; i < got && i < n; ++i) out[i] = (float)tmp[i];
  return true;
}

static float clamp01(float v) { return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; }

/* Texture of the first of two types that has one; returns whether found. */
static int tex_ref(skio_scene* s, const struct aiScene* ai, const struct aiMaterial* m, enum aiTextureType t1,
                   enum aiTextureType t2, const char* dir, uint32_t* cap, skio_texref* out) {
  enum aiTextureType types[2] = {t1, t2};
  for (int k = 0; k < 2; ++k) {
    if (aiGetMaterialTextureCount(m, types[k]) == 0) continue;
    struct aiString path;
    path.length = 0;
    path.data[0] = 0;
    unsigned uv = 0;
    if (aiGetMaterialTexture(m, types[k], 0, &path, NULL, &uv, NULL, NULL, NULL, NULL) != aiReturn_SUCCESS ||
        !path.length)
      continue;
    int uvsrc = 0;
    unsigned one = 1;
    if (aiGetMaterialIntegerArray(m, _AI_MATKEY_UVWSRC_BASE, types[k], 0, &uvsrc, &one) == aiReturn_SUCCESS &&
        uvsrc >= 0)
      uv = (unsigned)uvsrc;
    int32_t im = image_for(s, ai, path.data, dir, cap);
    if (im == -2) continue; /* a dangling embedded reference: no texture of this type */
    if (im < 0) return -1;
    out->image = im;
    out->uv = uv;
    float sc = 1.0f;
    if (types[k] == aiTextureType_NORMALS && get_floats(m, _AI_MATKEY_GLTF_SCALE_BASE, types[k], 0, &sc, 1)) out->scale = sc;
    if (types[k] == aiTextureType_LIGHTMAP && get_floats(m, _AI_MATKEY_GLTF_STRENGTH_BASE, types[k], 0, &sc, 1))
      out->scale = sc;
    return 1;
  }
  return 0;
}

/* Whether material m is one an importer made up for meshes the file gives none: Assimp's "DefaultMaterial"
 * (AI_DEFAULT_MATERIAL_NAME) or the placeholder skinkit's Assimp writers add ("skinkit_default", below), without a
 * texture. */
static bool made_up_material(const skio_material* m) {
  return m->name && (!strcmp(m->name, AI_DEFAULT_MATERIAL_NAME) || !strcmp(m->name, SKIO_PLACEHOLDER_MATERIAL)) &&
         m->base_color_tex.image < 0 && m->normal_tex.image < 0 && m->emissive_tex.image < 0 &&
         m->occlusion_tex.image < 0;
}

/* Meshes whose material an importer made up have none, as in the file (a glTF written from an FBX mesh without a
 * material listed a "DefaultMaterial", and Blender showed a material the source has not); the materials after a
 * dropped one move down. */
static void drop_made_up_materials(skio_scene* s) {
  uint32_t kept = 0;
  uint32_t* to = malloc(((size_t)s->material_count + 1) * sizeof *to);
  if (!to) return; /* left as they are */
  for (uint32_t i = 0; i < s->material_count; ++i) {
    if (made_up_material(&s->materials[i])) {
      free(s->materials[i].name);
      to[i] = UINT32_MAX;
      continue;
    }
    to[i] = kept;
    s->materials[kept++] = s->materials[i];
  }
  for (uint32_t k = 0; k < s->mesh_count; ++k)
    if (s->meshes[k].material < s->material_count) s->meshes[k].material = to[s->meshes[k].material];
  s->material_count = kept;
  free(to);
}

/* Whether the FBX file's ReflectionFactor is its materials' metallic factor: Blender's FBX exporter writes the
 * metallic value there (export_fbx_bin.py, and its importer reads it back so), and skinkit's FBX writer does the same
 * through Assimp's (skio_ai_materials). Maya and 3ds Max write a Phong reflection there, which is no metal. */
static bool reflection_is_metallic(const struct aiScene* ai) {
  const struct aiMetadata* md = ai->mMetaData;
  bool fbx = false, writer = false;
  for (unsigned i = 0; md && md->mKeys && md->mValues && i < md->mNumProperties; ++i) {
    const struct aiMetadataEntry* e = &md->mValues[i];
    if (e->mType != AI_AISTRING || !e->mData) continue;
    const char* v = ((const struct aiString*)e->mData)->data;
    if (!strcmp(md->mKeys[i].data, "SourceAsset_Format")) fbx = !strcmp(v, "Autodesk FBX Importer");
    if (!strcmp(md->mKeys[i].data, "SourceAsset_Generator"))
      writer = !strncmp(v, "Blender", 7) || !strncmp(v, "Open Asset Import Library", 25);
  }
  return fbx && writer;
}

/* Whether m's reflection colour is its diffuse colour: what Blender's FBX exporter and skinkit's writer put there
 * beside a metallic ReflectionFactor. Another Assimp-written FBX (an OBJ converted by Assimp's tool: a Phong
 * material whose ReflectionFactor is the template's 1.0 and whose ReflectionColor is black) is no metal. */
static bool reflection_is_diffuse(const struct aiMaterial* m) {
  struct aiColor4D r, d;
  return aiGetMaterialColor(m, AI_MATKEY_COLOR_REFLECTIVE, &r) == aiReturn_SUCCESS &&
         aiGetMaterialColor(m, AI_MATKEY_COLOR_DIFFUSE, &d) == aiReturn_SUCCESS && r.r == d.r && r.g == d.g &&
         r.b == d.b;
}

/* Metallic and roughness of material m into o: the glTF factors when present, else a legacy material's 0 and 1; a
 * Blender- or skinkit-written FBX's ReflectionFactor as metallic (reflection_is_metallic, reflection_is_diffuse).
 * Assimp's FBX reader turns the Shininess exponent into roughness by Blender's rule (1 - sqrt(s) / 10); skinkit's
 * writer stores roughness 1 as a tiny exponent (Assimp writes none at 0), read back here as 1. */
static void read_factors(const struct aiMaterial* m, bool pbr, bool metal_reflection, skio_material* o) {
  float f = 0.0f;
  o->metallic = 0.0f;
  if (get_floats(m, AI_MATKEY_METALLIC_FACTOR, &f, 1) && isfinite(f))
    o->metallic = clamp01(f);
  else if (pbr)
    o->metallic = 1.0f;
  else if (metal_reflection && reflection_is_diffuse(m) && get_floats(m, AI_MATKEY_REFLECTIVITY, &f, 1) && isfinite(f))
    o->metallic = clamp01(f);
  if (get_floats(m, AI_MATKEY_ROUGHNESS_FACTOR, &f, 1) && isfinite(f)) o->roughness = f > 0.99998f ? 1.0f : clamp01(f);
}

int skio_scene_read_materials(skio_scene* s, const struct aiScene* ai, const char* path, skc_err* err) {
  if (!s || !ai) return SKC_OK;
  const bool metal_reflection = reflection_is_metallic(ai);
  char* dir = dir_of(path ? path : "");
  if (!dir) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  uint32_t cap = 0;
  int rc = SKC_OK;
  if (ai->mNumMaterials && ai->mMaterials) {
    if (!(s->materials = calloc(ai->mNumMaterials, sizeof *s->materials))) {
      rc = SKC_OUT_OF_MEMORY;
      goto done;
    }
    for (unsigned i = 0; i < ai->mNumMaterials; ++i) {
      const struct aiMaterial* m = ai->mMaterials[i];
      skio_material* o = &s->materials[i];
      skio_material_init(o);
      s->material_count = i + 1;
      struct aiString name;
      name.length = 0;
      name.data[0] = 0;
      char def[32];
      snprintf(def, sizeof def, "material%u", i);
      if (m) aiGetMaterialString(m, AI_MATKEY_NAME, &name);
      if (!(o->name = dup_s(name.length ? name.data : def))) {
        rc = SKC_OUT_OF_MEMORY;
        goto done;
      }
      if (!m) continue;
      if ((tex_ref(s, ai, m, aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE, dir, &cap, &o->base_color_tex)) < 0 ||
          (tex_ref(s, ai, m, aiTextureType_NORMALS, aiTextureType_NORMAL_CAMERA, dir, &cap, &o->normal_tex)) < 0 ||
          (tex_ref(s, ai, m, aiTextureType_EMISSIVE, aiTextureType_EMISSION_COLOR, dir, &cap, &o->emissive_tex)) < 0 ||
          (tex_ref(s, ai, m, aiTextureType_LIGHTMAP, aiTextureType_AMBIENT_OCCLUSION, dir, &cap, &o->occlusion_tex)) < 0) {
        rc = SKC_OUT_OF_MEMORY;
        goto done;
      }
      struct aiColor4D c;
      bool pbr = false;
      if (aiGetMaterialColor(m, AI_MATKEY_BASE_COLOR, &c) == aiReturn_SUCCESS) {
        pbr = true;
        o->base_color[0] = c.r, o->base_color[1] = c.g, o->base_color[2] = c.b, o->base_color[3] = c.a;
      } else {
        if (aiGetMaterialColor(m, AI_MATKEY_COLOR_DIFFUSE, &c) == aiReturn_SUCCESS && o->base_color_tex.image < 0)
          o->base_color[0] = c.r, o->base_color[1] = c.g, o->base_color[2] = c.b;
        float op = 1.0f;
        if (get_floats(m, AI_MATKEY_OPACITY, &op, 1)) o->base_color[3] = op;
      }
      for (int k = 0; k < 4; ++k) o->base_color[k] = isfinite(o->base_color[k]) ? clamp01(o->base_color[k]) : 1.0f;
      if (pbr && tex_ref(s, ai, m, aiTextureType_UNKNOWN, aiTextureType_UNKNOWN, dir, &cap, &o->metallic_roughness_tex) < 0) {
        rc = SKC_OUT_OF_MEMORY;
        goto done;
      }
      read_factors(m, pbr, metal_reflection, o);
      float f = 0.0f;
      /* the normal map's strength: FBX's BumpFactor (Blender writes its Normal Map node's Strength there) */
      if (o->normal_tex.image >= 0 && get_floats(m, AI_MATKEY_BUMPSCALING, &f, 1) && isfinite(f))
        o->normal_tex.scale = f;
      if (aiGetMaterialColor(m, AI_MATKEY_COLOR_EMISSIVE, &c) == aiReturn_SUCCESS) {
        o->emissive[0] = isfinite(c.r) ? clamp01(c.r) : 0.0f;
        o->emissive[1] = isfinite(c.g) ? clamp01(c.g) : 0.0f;
        o->emissive[2] = isfinite(c.b) ? clamp01(c.b) : 0.0f;
      }
      int two = 0;
      unsigned one = 1;
      if (aiGetMaterialIntegerArray(m, AI_MATKEY_TWOSIDED, &two, &one) == aiReturn_SUCCESS) o->double_sided = two != 0;
      struct aiString mode;
      mode.length = 0;
      if (aiGetMaterialString(m, AI_MATKEY_GLTF_ALPHAMODE, &mode) == aiReturn_SUCCESS && mode.length) {
        o->alpha_mode = !strcmp(mode.data, "MASK") ? SKIO_ALPHA_MASK : !strcmp(mode.data, "BLEND") ? SKIO_ALPHA_BLEND
                                                                                                  : SKIO_ALPHA_OPAQUE;
        if (get_floats(m, AI_MATKEY_GLTF_ALPHACUTOFF, &f, 1) && isfinite(f) && f >= 0.0f) o->alpha_cutoff = f;
      } else if (o->base_color[3] < 1.0f) {
        o->alpha_mode = SKIO_ALPHA_BLEND;
      }
    }
  }
  for (uint32_t k = 0; k < s->mesh_count && k < ai->mNumMeshes; ++k) {
    const struct aiMesh* am = ai->mMeshes[k];
    s->meshes[k].material = am && am->mMaterialIndex < s->material_count ? am->mMaterialIndex : UINT32_MAX;
  }
  drop_made_up_materials(s);
done:
  free(dir);
  return rc ? skc_fail(err, rc, "%s: out of memory reading materials", path ? path : "scene") : SKC_OK;
}

/* ---- aiMaterials for the Assimp exporters ---- */
typedef struct prop_list {
  struct aiMaterialProperty** p;
  unsigned n, cap;
  bool oom;
} prop_list;

static void prop_add(prop_list* l, const char* key, unsigned semantic, unsigned index, enum aiPropertyTypeInfo type,
                     const void* data, size_t size) {
  if (l->oom) return;
  if (l->n == l->cap) {
    unsigned nc = l->cap ? l->cap * 2 : 16;
    struct aiMaterialProperty** np = realloc(l->p, nc * sizeof *np);
    if (!np) {
      l->oom = true;
      return;
    }
    l->p = np;
    l->cap = nc;
  }
  struct aiMaterialProperty* p = calloc(1, sizeof *p);
  void* d = malloc(size);
  if (!p || !d) {
    free(p);
    free(d);
    l->oom = true;
    return;
  }
  memcpy(d, data, size);
  size_t kl = strlen(key);
  if (kl >= MAXLEN) kl = MAXLEN - 1;
  memcpy(p->mKey.data, key, kl);
  p->mKey.data[kl] = 0;
  p->mKey.length = (ai_uint32)kl;
  p->mSemantic = semantic;
  p->mIndex = index;
  p->mType = type;
  p->mDataLength = (unsigned)size;
  p->mData = d;
  l->p[l->n++] = p;
}

static void prop_string(prop_list* l, const char* key, unsigned semantic, const char* v) {
  size_t n = strlen(v);
  if (n >= MAXLEN) n = skio_utf8_cut(v, MAXLEN - 1);
  unsigned char* d = calloc(1, 4 + n + 1); /* aiString as stored in properties: uint32 length + chars + NUL */
  if (!d) {
    l->oom = true;
    return;
  }
  uint32_t l32 = (uint32_t)n;
  memcpy(d, &l32, 4);
  memcpy(d + 4, v, n);
  prop_add(l, key, semantic, 0, aiPTI_String, d, 4 + n + 1);
  free(d);
}

static void prop_floats(prop_list* l, const char* key, const float* v, unsigned n) {
  ai_real r[4];
  for (unsigned i = 0; i < n && i < 4; ++i) r[i] = (ai_real)v[i];
  prop_add(l, key, 0, 0, aiPTI_Float, r, n * sizeof(ai_real));
}

static void free_ai_material(struct aiMaterial* m) {
  if (!m) return;
  for (unsigned p = 0; p < m->mNumProperties; ++p) {
    free(m->mProperties[p]->mData);
    free(m->mProperties[p]);
  }
  free(m->mProperties);
  free(m);
}

static struct aiMaterial* make_material(prop_list* l) {
  struct aiMaterial* m = calloc(1, sizeof *m);
  if (!m || l->oom) {
    free(m);
    for (unsigned i = 0; i < l->n; ++i) {
      free(l->p[i]->mData);
      free(l->p[i]);
    }
    free(l->p);
    return NULL;
  }
  m->mProperties = l->p;
  m->mNumProperties = l->n;
  m->mNumAllocated = l->cap;
  return m;
}

static bool same_bytes(const char* path, const unsigned char* d, size_t n) {
  size_t got = 0;
  bool big = false;
  unsigned char* f = read_file(path, &got, &big);
  bool same = f && got == n && memcmp(f, d, n) == 0;
  free(f);
  return same;
}

static void note_cat(char* note, size_t size, const char* what, const char* name) {
  if (!note || !size) return;
  size_t at = strlen(note);
  if (at + 8 >= size) return;
  snprintf(note + at, size - at, "%s%s%s%s%s", at ? "; " : "", what, name ? " '" : "", name ? name : "",
           name ? "'" : "");
}

/* The index of the file staged to path, or -1. */
static int64_t staged_at(const skio_staged_files* st, const char* path) {
  for (uint32_t k = 0; k < st->count; ++k)
    if (!strcmp(st->dest[k], path)) return k;
  return -1;
}

/* Stages n bytes d for path (skio_staged_files); false when they cannot be written or memory is short. */
static bool stage_file(skio_staged_files* st, const char* path, const unsigned char* d, size_t n) {
  if (st->count == st->cap) {
    uint32_t cap = st->cap ? 2 * st->cap : 8;
    char** t = realloc(st->tmp, cap * sizeof *t);
    if (t) st->tmp = t;
    char** ds = realloc(st->dest, cap * sizeof *ds);
    if (ds) st->dest = ds;
    const unsigned char** da = realloc(st->data, cap * sizeof *da);
    if (da) st->data = da;
    size_t* sz = realloc(st->size, cap * sizeof *sz);
    if (sz) st->size = sz;
    if (!t || !ds || !da || !sz) return false;
    st->cap = cap;
  }
  char* dest = dup_s(path);
  char* tmp = NULL;
  skc_err err = {0};
  const void* piece = d;
  if (!dest || skio_atomic_stage(path, &piece, &n, 1, &tmp, &err) != SKC_OK) {
    free(dest);
    return false;
  }
  st->tmp[st->count] = tmp, st->dest[st->count] = dest, st->data[st->count] = d, st->size[st->count] = n;
  st->count++;
  return true;
}

static void staged_free(skio_staged_files* st) {
  for (uint32_t k = 0; k < st->count; ++k) free(st->dest[k]);
  free(st->tmp), free(st->dest), free(st->data), free(st->size);
  memset(st, 0, sizeof *st);
}

void skio_staged_commit(skio_staged_files* st, char* note, size_t note_size) {
  for (uint32_t k = 0; k < st->count; ++k) {
    skc_err err = {0};
    if (skio_atomic_commit(st->tmp[k], st->dest[k], &err) != SKC_OK)
      note_cat(note, note_size, "image not written beside the output:", st->dest[k]);
  }
  staged_free(st);
}

void skio_staged_abort(skio_staged_files* st) {
  for (uint32_t k = 0; k < st->count; ++k) skio_atomic_abort(st->tmp[k]);
  staged_free(st);
}

/* The file name an image is referenced by from out_dir (written there when needed), or NULL (noted). */
static char* export_image(const skio_scene* s, uint32_t i, const char* out_dir, const char* out_name,
                          const char* out_stem, bool overwrite, skio_staged_files* st, char* note, size_t note_size) {
  const skio_image* im = &s->images[i];
  if (im->path) { /* a file already: beside the output? */
    char* d = dir_of(im->path);
    char a[PATH_MAX], b[PATH_MAX];
    bool beside = d && realpath(d[0] ? d : ".", a) && realpath(out_dir[0] ? out_dir : ".", b) && !strcmp(a, b);
    free(d);
    if (beside) return dup_s(base_name(im->path));
  }
  if (!im->data) {
    note_cat(note, note_size, "image not found, referenced by its path only:", im->uri ? im->uri : im->name);
    return dup_s(im->uri ? im->uri : im->name);
  }
  /* written beside the output: its own name when free (or holding these bytes), else <stem>_<name> */
  const char* ext = !strcmp(im->mime, "image/png") ? ".png" : !strcmp(im->mime, "image/jpeg") ? ".jpg"
                    : !strcmp(im->mime, "image/webp") ? ".webp" : !strcmp(im->mime, "image/ktx2") ? ".ktx2" : "";
  const char* nm = base_name(im->name);
  bool has_ext = strrchr(nm, '.') != NULL;
  for (int attempt = 0; attempt < 2; ++attempt) {
    size_t n = strlen(out_dir) + strlen(out_stem) + strlen(nm) + 32;
    char* full = malloc(n);
    if (!full) return NULL;
    int off = snprintf(full, n, "%s", out_dir);
    if (attempt) off += snprintf(full + off, n - (size_t)off, "%s_", out_stem);
    for (const char* c = nm; *c; ++c) full[off++] = (*c == '/' || *c == '\\' || *c == ':') ? '_' : *c;
    full[off] = 0;
    if (!has_ext) strcat(full, ext);
    const int64_t k = staged_at(st, full); /* another image of this name, staged before */
    const bool output = !strcmp(full + strlen(out_dir), out_name); /* an image named like OUT ("rig.fbx") */
    struct stat sb;
    const bool exists = output || k >= 0 || stat(full, &sb) == 0;
    const bool same = output   ? false
                      : k >= 0 ? st->size[k] == im->size && !memcmp(st->data[k], im->data, im->size)
                               : exists && same_bytes(full, im->data, im->size);
    if (same || (!output && k < 0 && (!exists || (attempt && overwrite)) && stage_file(st, full, im->data, im->size))) {
      char* r = dup_s(full + strlen(out_dir));
      free(full);
      return r;
    }
    free(full);
  }
  note_cat(note, note_size, "image not written (a different file of its name exists):", im->name);
  return NULL;
}

/* Whether uri is a relative path that stays inside its folder (no "..", not absolute, no scheme). */
static bool plain_relative(const char* uri) {
  return uri && uri[0] && uri[0] != '/' && uri[0] != '\\' && !strchr(uri, ':') && !skio_path_climbs(uri);
}

/* Makes the folders of path below its first len bytes (out_dir) that are missing; false when one cannot be. */
static bool make_parents(char* path, size_t len) {
  for (char* slash = strchr(path + len, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = 0;
    struct stat st;
    bool ok = stat(path, &st) == 0 || mkdir(path, 0777) == 0;
    *slash = '/';
    if (!ok) return false;
  }
  return true;
}

void skio_scene_copy_images(const skio_scene* s, const char* out_path, char* note, size_t note_size) {
  char* out_dir = dir_of(out_path);
  for (uint32_t i = 0; out_dir && i < s->image_count; ++i) {
    const skio_image* im = &s->images[i];
    if (im->embedded || !im->data || !im->path || !plain_relative(im->uri)) continue;
    size_t n = strlen(out_dir) + strlen(im->uri) + 1;
    char* dest = malloc(n);
    if (!dest) break;
    snprintf(dest, n, "%s%s", out_dir, im->uri);
    for (char* c = dest + strlen(out_dir); *c; ++c) *c = *c == '\\' ? '/' : *c; /* a Windows-written uri */
    struct stat st;
    if (skio_same_file(dest, im->path) || same_bytes(dest, im->data, im->size)) {
      free(dest);
      continue;
    }
    skc_err err = {0};
    if (stat(dest, &st) == 0)
      note_cat(note, note_size,
               "image left as it is beside the output (a different file of the name the source "
               "uses is there, and the output names it):",
               im->uri);
    else if (!make_parents(dest, strlen(out_dir)) || skio_atomic_write(dest, im->data, im->size, &err) != SKC_OK)
      note_cat(note, note_size, "image not copied beside the output:", im->uri);
    free(dest);
  }
  free(out_dir);
}

/* Metallic and roughness the way Blender's FBX exporter writes them and its importer (and Assimp's) reads them back:
 * ReflectionFactor = metallic (with the base colour as ReflectionColor), Shininess = ((1 - roughness) * 10)^2. Assimp
 * writes a Phong material, with the shininess, only for a shininess above 0: roughness 1 gets 1e-8 (read back as 1:
 * read_factors). Binary FBX only: a Phong material needs the SpecularFactor the binary writer's pass adds
 * (fbx_materials_write.c; Assimp's Phong template says 1.0, Blender's specular 2), so ASCII FBX keeps
 * Lambert materials and names the roughness as not written. */
static void fbx_factors(prop_list* l, const skio_material* m, bool binary) {
  const float rough = isfinite(m->roughness) ? clamp01(m->roughness) : 1.0f;
  const float metal = isfinite(m->metallic) ? clamp01(m->metallic) : 0.0f;
  float shininess = (1.0f - rough) * 10.0f;
  shininess = shininess > 1e-4f ? shininess * shininess : 1e-8f;
  if (binary) prop_floats(l, "$mat.shininess", &shininess, 1); /* Phong: SpecularFactor in fbx_materials_write.c */
  prop_floats(l, "$mat.reflectivity", &metal, 1);
  prop_floats(l, "$clr.reflective", m->base_color, 3);
}

typedef struct material_notes { /* what was named already */
  bool pbr, emission, mr, occ, two, alpha, uv;
} material_notes;

/* One clause in note for the first material with each thing the format cannot hold (seen: named already). */
static void note_unwritable(const skio_material* m, bool collada, bool binary, bool gltf, material_notes* seen,
                            char* note, size_t note_size) {
  if (collada && !seen->pbr && (m->metallic != 0.0f || m->roughness != 1.0f)) {
    seen->pbr = true;
    note_cat(note, note_size, "Collada has no metallic/roughness factors: not written, material", m->name);
  }
  if (!collada && !binary && !seen->pbr && m->roughness != 1.0f) {
    seen->pbr = true;
    note_cat(note, note_size, "ASCII FBX has no roughness factor: not written, material", m->name);
  }
  if (!collada && !binary && !seen->emission &&
      (m->emissive[0] > 0.0f || m->emissive[1] > 0.0f || m->emissive[2] > 0.0f)) {
    seen->emission = true; /* Assimp writes the legacy "Emissive" only; binary FBX gets EmissiveColor afterwards */
    note_cat(note, note_size, "ASCII FBX: emission not written, material", m->name);
  }
  if (!seen->mr && m->metallic_roughness_tex.image >= 0) {
    seen->mr = true;
    note_cat(note, note_size, "metallic-roughness texture not written, material", m->name);
  }
  if (!seen->occ && m->occlusion_tex.image >= 0) {
    seen->occ = true;
    note_cat(note, note_size, "occlusion texture not written, material", m->name);
  }
  /* Collada: GOOGLEEARTH's <double_sided> (scene_export.c). FBX: named when a glTF said it (Blender's materials, which
   * cull no back faces by default, would name it on every export) */
  if (!collada && gltf && !seen->two && m->double_sided) {
    seen->two = true;
    note_cat(note, note_size, "FBX has no double-sided flag: not written, material", m->name);
  }
  const bool other_uv = (m->base_color_tex.image >= 0 && m->base_color_tex.uv) ||
                        (m->normal_tex.image >= 0 && m->normal_tex.uv) ||
                        (m->emissive_tex.image >= 0 && m->emissive_tex.uv);
  if (!collada && !binary && !seen->uv && other_uv) { /* binary FBX: the UVSet pass (fbx_materials_write.c) */
    seen->uv = true;
    note_cat(note, note_size, "ASCII FBX textures read the first UV set: another set's lost, material", m->name);
  }
  if (!seen->alpha && m->alpha_mode == SKIO_ALPHA_MASK) {
    seen->alpha = true;
    note_cat(note, note_size, "alpha mask cutoff not written, material", m->name);
  }
}

int skio_ai_materials(const skio_scene* s, const char* format_id, const char* out_path, bool overwrite,
                      struct aiMaterial*** out, unsigned* count, uint32_t* none_index, skio_staged_files* staged,
                      char* note, size_t note_size, skc_err* err) {
  const bool collada = format_id && !strcmp(format_id, "collada");
  const bool binary = format_id && !strcmp(format_id, "fbx");
  const uint32_t M = s->material_count;
  bool need_default = M == 0;
  for (uint32_t k = 0; k < s->mesh_count; ++k) need_default |= s->meshes[k].material >= M;
  const unsigned total = M + (need_default ? 1 : 0);
  struct aiMaterial** mats = calloc(total, sizeof *mats);
  char** files = calloc(s->image_count + 1, sizeof *files);
  bool* tried = calloc(s->image_count + 1, sizeof *tried);
  char* out_dir = dir_of(out_path);
  const char* stem0 = base_name(out_path);
  char* stem = dup_s(stem0);
  int rc = SKC_OK;
  if (!mats || !files || !tried || !out_dir || !stem) {
    rc = SKC_OUT_OF_MEMORY;
    goto done;
  }
  if (strrchr(stem, '.')) *strrchr(stem, '.') = 0;
  material_notes seen = {0};
  for (unsigned i = 0; i < total; ++i) {
    prop_list l = {0};
    if (i == M) { /* default material for meshes without one */
      prop_string(&l, "?mat.name", 0, SKIO_PLACEHOLDER_MATERIAL);
    } else {
      const skio_material* m = &s->materials[i];
      prop_string(&l, "?mat.name", 0, m->name);
      float diffuse[4] = {m->base_color[0], m->base_color[1], m->base_color[2], m->base_color[3]};
      prop_floats(&l, "$clr.diffuse", diffuse, 4);
      prop_floats(&l, "$clr.emissive", m->emissive, 3);
      prop_floats(&l, "$mat.opacity", &m->base_color[3], 1);
      int two = m->double_sided ? 1 : 0;
      prop_add(&l, "$mat.twosided", 0, 0, aiPTI_Integer, &two, sizeof two);
      if (!collada) fbx_factors(&l, m, binary);
      const skio_texref* refs[3] = {&m->base_color_tex, &m->normal_tex, &m->emissive_tex};
      const enum aiTextureType types[3] = {aiTextureType_DIFFUSE, aiTextureType_NORMALS, aiTextureType_EMISSIVE};
      for (int t = 0; t < 3; ++t) {
        int32_t im = refs[t]->image;
        if (im < 0 || (uint32_t)im >= s->image_count) continue;
        if (!tried[im]) {
          tried[im] = true;
          files[im] = export_image(s, (uint32_t)im, out_dir, stem0, stem, overwrite, staged, note, note_size);
        }
        if (!files[im]) continue;
        prop_string(&l, "$tex.file", types[t], files[im]);
        int uv = (int)refs[t]->uv;
        prop_add(&l, "$tex.uvwsrc", types[t], 0, aiPTI_Integer, &uv, sizeof uv);
      }
      note_unwritable(m, collada, binary, s->gltf != NULL, &seen, note, note_size);
    }
    if (!(mats[i] = make_material(&l))) {
      rc = SKC_OUT_OF_MEMORY;
      goto done;
    }
  }
  *out = mats;
  *count = total;
  *none_index = need_default ? M : 0;
  mats = NULL;
done:
  if (mats)
    for (unsigned i = 0; i < total; ++i) free_ai_material(mats[i]);
  free(mats);
  if (files)
    for (uint32_t i = 0; i < s->image_count; ++i) free(files[i]);
  free(files);
  free(tried);
  free(out_dir);
  free(stem);
  return rc ? skc_fail(err, rc, "%s: out of memory building materials", out_path) : SKC_OK;
}
