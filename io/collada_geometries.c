/* collada_geometries.c - the <geometry> elements of a Collada file Assimp's writer made (skio_collada.h): vertex
 * colours with their alpha, and names.
 *
 * Assimp 5.2.5's Collada writer writes each aiMesh colour set as a <source> "<geometry>-color<set>" of three floats a
 * vertex (R G B): a glTF COLOR_0 with alpha, or a Blender colour attribute with it, came back opaque from .dae. After
 * Assimp has written the file, the k-th <geometry> element (Assimp writes aiScene.mMeshes in order) gets each colour
 * set whose alpha is not 1 everywhere written again as R G B A: the float_array's values and count, the accessor's
 * stride and an "A" param. Collada's accessor says which value is which, so readers that take RGBA colours (Assimp's,
 * Blender's) read the alpha and others skip it.
 *
 * Names (skio_collada_geometry_names): Assimp names a geometry after its aiMesh, and the parts of one glTF mesh (a
 * primitive per material) are aiMeshes "Body-0", "Body-1": the k-th <geometry> gets the name its caller gives (the
 * glTF mesh's), which Assimp's reader and Blender's importer take as the mesh's name, its id staying unique. */
#include <assimp/mesh.h>
#include <stdio.h>
#include <string.h>

#include "skio_buf.h"
#include "skio_collada.h"

/* Whether colour set c of m has an alpha other than 1. */
static bool has_alpha(const struct aiMesh* m, unsigned c) {
  for (unsigned v = 0; m->mColors[c] && v < m->mNumVertices; ++v)
    if (m->mColors[c][v].a != 1.0f) return true;
  return false;
}

/* The <source> of colour set c inside [p, end) (its start, and its end after "</source>"), or NULL. */
static const char* color_source(const char* p, const char* end, unsigned c, const char** stop) {
  char id[32];
  snprintf(id, sizeof id, "-color%u\"", c);
  for (const char* at = skio_text_find(p, end, "<source id=\""); at;
       at = skio_text_find(at + 1, end, "<source id=\"")) {
    const char* q = memchr(at + 12, '"', (size_t)(end - at - 12));
    const size_t idn = strlen(id);
    if (!q || (size_t)(q + 1 - (at + 12)) < idn || memcmp(q + 1 - idn, id, idn)) continue;
    const char* close = skio_text_find(at, end, "</source>");
    if (!close) return NULL;
    *stop = close + strlen("</source>");
    return at;
  }
  return NULL;
}

/* Colour set c of m as an R G B A source, in place of the R G B one [p, stop) Assimp wrote: its id, name and array id
 * kept, as everything after the array but the stride and params. */
static void put_rgba(skio_buf* b, const char* p, const char* stop, const struct aiMesh* m, unsigned c) {
  const char* arr = skio_text_find(p, stop, "<float_array");
  const char* count = arr ? skio_text_find(arr, stop, " count=\"") : NULL;
  const char* values = count ? memchr(count, '>', (size_t)(stop - count)) : NULL;
  const char* arr_end = values ? skio_text_find(values, stop, "</float_array>") : NULL;
  const char* stride = arr_end ? skio_text_find(arr_end, stop, "stride=\"3\"") : NULL;
  const char* blue = stride ? skio_text_find(stride, stop, "<param name=\"B\" type=\"float\" />") : NULL;
  if (!blue) { /* not the layout Assimp writes: left as it is */
    skio_buf_put(b, p, (size_t)(stop - p));
    return;
  }
  skio_buf_put(b, p, (size_t)(count - p));
  skio_buf_printf(b, " count=\"%zu\">", (size_t)m->mNumVertices * 4);
  for (unsigned v = 0; v < m->mNumVertices; ++v) {
    const struct aiColor4D* k = &m->mColors[c][v];
    skio_buf_printf(b, "%.9g %.9g %.9g %.9g ", k->r, k->g, k->b, k->a);
  }
  skio_buf_put(b, arr_end, (size_t)(stride - arr_end));
  skio_buf_str(b, "stride=\"4\"");
  stride += strlen("stride=\"3\"");
  blue += strlen("<param name=\"B\" type=\"float\" />");
  skio_buf_put(b, stride, (size_t)(blue - stride));
  skio_buf_str(b, "<param name=\"A\" type=\"float\" />");
  skio_buf_put(b, blue, (size_t)(stop - blue));
}

static void fix_geometry(skio_buf* b, const char* p, const char* end, const void* ctx, uint32_t k) {
  const struct aiMesh* m = ((const struct aiMesh* const*)ctx)[k];
  for (unsigned c = 0; m && c < AI_MAX_NUMBER_OF_COLOR_SETS; ++c) {
    const char* stop = NULL;
    const char* at = has_alpha(m, c) ? color_source(p, end, c, &stop) : NULL;
    if (!at) continue;
    skio_buf_put(b, p, (size_t)(at - p));
    put_rgba(b, at, stop, m, c);
    p = stop;
  }
  skio_buf_put(b, p, (size_t)(end - p));
}

int skio_collada_color_alpha(const char* xml, size_t n, const struct aiMesh* const* meshes, uint32_t count, char** out,
                             size_t* out_n) {
  return skio_collada_rewrite(xml, n, "<geometry ", "</geometry>", count, fix_geometry, meshes, out, out_n);
}

/* The attribute value s, XML-escaped, into b (skio_xml_attr_char). */
static void put_escaped(skio_buf* b, const char* s) {
  char piece[8];
  while (*s) {
    s += skio_xml_attr_char(s, piece);
    skio_buf_str(b, piece);
  }
}

static void name_geometry(skio_buf* b, const char* p, const char* end, const void* ctx, uint32_t k) {
  const char* name = ((const char* const*)ctx)[k];
  const char* tag_end = name ? memchr(p, '>', (size_t)(end - p)) : NULL;
  const char* at = tag_end ? skio_text_find(p, tag_end, " name=\"") : NULL;
  const char* q = at ? memchr(at + 7, '"', (size_t)(tag_end - at - 7)) : NULL;
  if (!q) {
    skio_buf_put(b, p, (size_t)(end - p));
    return;
  }
  skio_buf_put(b, p, (size_t)(at + 7 - p));
  put_escaped(b, name);
  skio_buf_put(b, q, (size_t)(end - q));
}

int skio_collada_geometry_names(const char* xml, size_t n, const char* const* names, uint32_t count, char** out,
                                size_t* out_n) {
  return skio_collada_rewrite(xml, n, "<geometry ", "</geometry>", count, name_geometry, names, out, out_n);
}
