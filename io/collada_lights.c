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
 * a Collada spot's cone is its falloff angle). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_collada.h"

/* The first occurrence of the n bytes of s in [p, end), or NULL. */
static const char* find(const char* p, const char* end, const char* s) {
  const size_t n = strlen(s);
  for (; p && p + n <= end; ++p) {
    p = memchr(p, s[0], (size_t)(end - p));
    if (!p || p + n > end) return NULL;
    if (memcmp(p, s, n) == 0) return p;
  }
  return NULL;
}

typedef struct out_buf {
  char* p;
  size_t n, cap;
  bool oom;
} out_buf;

static void put(out_buf* b, const char* s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n + 1) cap *= 2;
    char* grown = realloc(b->p, cap);
    if (!grown) {
      b->oom = true;
      return;
    }
    b->p = grown;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void put_str(out_buf* b, const char* s) { put(b, s, strlen(s)); }

/* The <extra> of light l (Blender's technique: its importer reads these elements by name). */
static void put_extra(out_buf* b, const skio_collada_light* l) {
  char text[1024];
  snprintf(text, sizeof text,
           "<extra><technique profile=\"blender\">"
           "<type sid=\"type\" type=\"int\">%d</type>"
           "<red sid=\"red\" type=\"float\">%.9g</red><green sid=\"green\" type=\"float\">%.9g</green>"
           "<blue sid=\"blue\" type=\"float\">%.9g</blue>"
           "<energy sid=\"blender_energy\" type=\"float\">%.9g</energy>"
           "<spotsize sid=\"spotsize\" type=\"float\">%.9g</spotsize>"
           "<spotblend sid=\"spotblend\" type=\"float\">%.9g</spotblend>"
           "</technique></extra>",
           l->type, l->color[0], l->color[1], l->color[2], l->energy, l->spot_size_deg, l->spot_blend);
  put_str(b, text);
}

/* One <light> element [p, end) (its closing tag included) into b, with l's <extra> before its close and, for a spot,
 * the blend as the falloff exponent's text. */
static void put_light(out_buf* b, const char* p, const char* end, const skio_collada_light* l) {
  const char* close = end - strlen("</light>");
  const char* exp = l->type == 2 ? find(p, close, "<falloff_exponent") : NULL;
  const char* val = exp ? memchr(exp, '>', (size_t)(close - exp)) : NULL;
  const char* val_end = val ? find(val, close, "</falloff_exponent>") : NULL;
  if (val && val_end) {
    char num[48];
    snprintf(num, sizeof num, "%.9g", l->spot_blend);
    put(b, p, (size_t)(val + 1 - p));
    put_str(b, num);
    p = val_end;
  }
  put(b, p, (size_t)(close - p));
  put_extra(b, l);
  put_str(b, "</light>");
}

/* One <camera> element [p, end) into b, its <perspective> block (Assimp's writer has no other) replaced by an
 * <orthographic> one of view size c. */
static void put_ortho(out_buf* b, const char* p, const char* end, const skio_collada_camera* c) {
  const char* at = find(p, end, "<perspective>");
  const char* stop = at ? find(at, end, "</perspective>") : NULL;
  if (!stop) {
    put(b, p, (size_t)(end - p));
    return;
  }
  char text[512];
  snprintf(text, sizeof text,
           "<orthographic><xmag sid=\"xmag\">%.9g</xmag><ymag sid=\"ymag\">%.9g</ymag>"
           "<znear sid=\"znear\">%.9g</znear><zfar sid=\"zfar\">%.9g</zfar></orthographic>",
           c->xmag, c->ymag, c->znear, c->zfar);
  put(b, p, (size_t)(at - p));
  put_str(b, text);
  stop += strlen("</perspective>");
  put(b, stop, (size_t)(end - stop));
}

int skio_collada_ortho_cameras(const char* xml, size_t n, const skio_collada_camera* cams, uint32_t count, char** out,
                               size_t* out_n) {
  *out = NULL;
  *out_n = 0;
  out_buf b = {0};
  const char* end = xml + n;
  const char* p = xml;
  for (uint32_t k = 0; k < count; ++k) {
    const char* at = find(p, end, "<camera ");
    const char* stop = at ? find(at, end, "</camera>") : NULL;
    if (!stop) break;
    stop += strlen("</camera>");
    put(&b, p, (size_t)(at - p));
    if (cams[k].xmag > 0.0f)
      put_ortho(&b, at, stop, &cams[k]);
    else
      put(&b, at, (size_t)(stop - at));
    p = stop;
  }
  put(&b, p, (size_t)(end - p));
  if (b.oom || !b.p) {
    free(b.p);
    return SKC_OUT_OF_MEMORY;
  }
  *out = b.p;
  *out_n = b.n;
  return SKC_OK;
}

int skio_collada_blender_lights(const char* xml, size_t n, const skio_collada_light* lights, uint32_t count, char** out,
                                size_t* out_n) {
  *out = NULL;
  *out_n = 0;
  out_buf b = {0};
  const char* end = xml + n;
  const char* p = xml;
  for (uint32_t k = 0; k < count; ++k) {
    const char* at = find(p, end, "<light ");
    const char* stop = at ? find(at, end, "</light>") : NULL;
    if (!stop) break; /* fewer lights than asked: the rest as written */
    stop += strlen("</light>");
    put(&b, p, (size_t)(at - p));
    put_light(&b, at, stop, &lights[k]);
    p = stop;
  }
  put(&b, p, (size_t)(end - p));
  if (b.oom || !b.p) {
    free(b.p);
    return SKC_OUT_OF_MEMORY;
  }
  *out = b.p;
  *out_n = b.n;
  return SKC_OK;
}
