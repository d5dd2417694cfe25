/* collada_lights.c - Blender's own description of each light in a Collada file Assimp's writer made, and its
 * orthographic cameras (skio_collada_ortho_cameras: Assimp's writer writes every camera as a perspective one).
 *
 * Collada's common profile says of a light only its colour (a spot also its falloff angle and exponent). Blender's
 * Collada exporter writes the colour times the energy there and the light itself in an <extra> technique of profile
 * "blender" (energy in W, colour, spot size in degrees, spot blend), which its importer reads back; without that
 * technique the importer sets the energy to 1 and clamps the colour (800 640 480 came in as a 1 W white lamp), and
 * takes the falloff exponent as the spot blend, where Assimp's writer puts log 0.1 / log cos(outer - inner). So after
 * Assimp has written the file, the k-th <light> element (Assimp writes aiScene.mLights in order) gets that technique
 * and, for a spot, the blend as its falloff exponent. Readers that know no "blender" profile skip the <extra>;
 * Assimp's reader takes the exponent back as an outer angle, which skinkit's reader does not use (scene_objects.c:
 * a Collada spot's cone is its falloff angle).
 *
 * And a material's two-sidedness (skio_collada_double_sided), which Assimp's writer leaves out: the k-th <effect>
 * (Assimp writes one per aiMaterial, in order) of a double-sided material gets the <double_sided> element of the
 * GOOGLEEARTH profile (SketchUp writes it; Assimp's reader takes it as AI_MATKEY_TWOSIDED) in an <extra> at the end of
 * its <profile_COMMON>, where the schema allows one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_buf.h"
#include "skio_collada.h"

/* The <extra> of light l (Blender's technique: its importer reads these elements by name). */
static void put_extra(skio_buf* b, const skio_collada_light* l) {
  skio_buf_printf(b,
                  "<extra><technique profile=\"blender\">"
                  "<type sid=\"type\" type=\"int\">%d</type>"
                  "<red sid=\"red\" type=\"float\">%.9g</red><green sid=\"green\" type=\"float\">%.9g</green>"
                  "<blue sid=\"blue\" type=\"float\">%.9g</blue>"
                  "<energy sid=\"blender_energy\" type=\"float\">%.9g</energy>"
                  "<spotsize sid=\"spotsize\" type=\"float\">%.9g</spotsize>"
                  "<spotblend sid=\"spotblend\" type=\"float\">%.9g</spotblend>"
                  "</technique></extra>",
                  l->type, l->color[0], l->color[1], l->color[2], l->energy, l->spot_size_deg, l->spot_blend);
}

/* One <light> element [p, end) (its closing tag included) into b, with l's <extra> before its close and, for a spot,
 * the blend as the falloff exponent's text. */
static void put_light(skio_buf* b, const char* p, const char* end, const skio_collada_light* l) {
  const char* close = end - strlen("</light>");
  const char* exp = l->type == 2 ? skio_text_find(p, close, "<falloff_exponent") : NULL;
  const char* val = exp ? memchr(exp, '>', (size_t)(close - exp)) : NULL;
  const char* val_end = val ? skio_text_find(val, close, "</falloff_exponent>") : NULL;
  if (val && val_end) {
    char num[48];
    snprintf(num, sizeof num, "%.9g", l->spot_blend);
    skio_buf_put(b, p, (size_t)(val + 1 - p));
    skio_buf_str(b, num);
    p = val_end;
  }
  skio_buf_put(b, p, (size_t)(close - p));
  put_extra(b, l);
  skio_buf_str(b, "</light>");
}

/* One <camera> element [p, end) into b, its <perspective> block (Assimp's writer has no other) replaced by an
 * <orthographic> one of view size c. */
static void put_ortho(skio_buf* b, const char* p, const char* end, const skio_collada_camera* c) {
  const char* at = skio_text_find(p, end, "<perspective>");
  const char* stop = at ? skio_text_find(at, end, "</perspective>") : NULL;
  if (!stop) {
    skio_buf_put(b, p, (size_t)(end - p));
    return;
  }
  char text[512];
  snprintf(text, sizeof text,
           "<orthographic><xmag sid=\"xmag\">%.9g</xmag><ymag sid=\"ymag\">%.9g</ymag>"
           "<znear sid=\"znear\">%.9g</znear><zfar sid=\"zfar\">%.9g</zfar></orthographic>",
           c->xmag, c->ymag, c->znear, c->zfar);
  skio_buf_put(b, p, (size_t)(at - p));
  skio_buf_str(b, text);
  stop += strlen("</perspective>");
  skio_buf_put(b, stop, (size_t)(end - stop));
}

int skio_collada_rewrite(const char* xml, size_t n, const char* open, const char* close, uint32_t count,
                         skio_collada_fix fix, const void* ctx, char** out, size_t* out_n) {
  *out = NULL;
  *out_n = 0;
  skio_buf b = {0};
  const char* end = xml + n;
  const char* p = xml;
  for (uint32_t k = 0; k < count; ++k) {
    const char* at = skio_text_find(p, end, open);
    const char* stop = at ? skio_text_find(at, end, close) : NULL;
    if (!stop) break;
    stop += strlen(close);
    skio_buf_put(&b, p, (size_t)(at - p));
    fix(&b, at, stop, ctx, k);
    p = stop;
  }
  skio_buf_put(&b, p, (size_t)(end - p));
  skio_buf_put(&b, "", 1); /* NUL-terminated */
  if (b.oom) {
    free(b.p);
    return SKC_OUT_OF_MEMORY;
  }
  *out = (char*)b.p;
  *out_n = b.n - 1;
  return SKC_OK;
}

static void fix_camera(skio_buf* b, const char* p, const char* end, const void* ctx, uint32_t k) {
  const skio_collada_camera* c = (const skio_collada_camera*)ctx + k;
  if (c->xmag > 0.0f)
    put_ortho(b, p, end, c);
  else
    skio_buf_put(b, p, (size_t)(end - p));
}

static void fix_light(skio_buf* b, const char* p, const char* end, const void* ctx, uint32_t k) {
  put_light(b, p, end, (const skio_collada_light*)ctx + k);
}

int skio_collada_ortho_cameras(const char* xml, size_t n, const skio_collada_camera* cams, uint32_t count, char** out,
                               size_t* out_n) {
  return skio_collada_rewrite(xml, n, "<camera ", "</camera>", count, fix_camera, cams, out, out_n);
}

int skio_collada_blender_lights(const char* xml, size_t n, const skio_collada_light* lights, uint32_t count, char** out,
                                size_t* out_n) {
  return skio_collada_rewrite(xml, n, "<light ", "</light>", count, fix_light, lights, out, out_n);
}

static void fix_effect(skio_buf* b, const char* p, const char* end, const void* ctx, uint32_t k) {
  const char* close = ((const bool*)ctx)[k] ? skio_text_find(p, end, "</profile_COMMON>") : NULL;
  if (!close) {
    skio_buf_put(b, p, (size_t)(end - p));
    return;
  }
  skio_buf_put(b, p, (size_t)(close - p));
  skio_buf_str(b, "<extra><technique profile=\"GOOGLEEARTH\"><double_sided>1</double_sided></technique></extra>");
  skio_buf_put(b, close, (size_t)(end - close));
}

int skio_collada_double_sided(const char* xml, size_t n, const bool* two_sided, uint32_t count, char** out,
                              size_t* out_n) {
  return skio_collada_rewrite(xml, n, "<effect ", "</effect>", count, fix_effect, two_sided, out, out_n);
}
