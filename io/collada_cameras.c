/* collada_cameras.c - the orthographic cameras of a Collada document (skio_collada.h). Assimp 5.2 reads an
 * <orthographic> camera as a perspective one whose field of view is xmag taken in degrees (a 6-unit-wide view
 * became a 3-degree telephoto); the scene importer gives such cameras' objects back their view size from here. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skio_collada.h"

typedef struct ortho_cam {
  const char* id;
  size_t id_n;
  double xmag, ymag, znear, zfar;
} ortho_cam;

/* The number in the element <tag>...</tag> inside [p, end), or 0 when absent or not a positive finite number. */
static double element_number(const char* p, const char* end, const char* tag) {
  const char* at = skio_text_find(p, end, tag);
  if (!at) return 0.0;
  at = memchr(at, '>', (size_t)(end - at));
  if (!at) return 0.0;
  char buf[64];
  size_t n = 0;
  for (++at; at < end && *at != '<' && n + 1 < sizeof buf; ++at) buf[n++] = *at;
  buf[n] = 0;
  char* stop = NULL;
  double v = strtod(buf, &stop);
  return stop != buf && v > 0.0 && v < 1e30 ? v : 0.0;
}

static int cmp_span(const char* a, size_t an, const char* b, size_t bn) {
  const int c = memcmp(a, b, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}

static int cmp_cam(const void* a, const void* b) {
  const ortho_cam *x = a, *y = b;
  return cmp_span(x->id, x->id_n, y->id, y->id_n);
}

/* The camera with id [url, url + url_n) in c (sorted by id), or NULL. */
static const ortho_cam* camera_of(const ortho_cam* c, size_t n, const char* url, size_t url_n) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (cmp_span(c[mid].id, c[mid].id_n, url, url_n) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && cmp_span(c[lo].id, c[lo].id_n, url, url_n) == 0 ? &c[lo] : NULL;
}

/* Every <camera> with an <orthographic> optic, with its magnifications completed from aspect_ratio. Each camera's
 * text is read once, up to its </camera> (one nested in another is skipped with it), so the scan stays linear
 * whatever the document holds. */
static size_t ortho_cameras(const char* text, const char* end, ortho_cam** out, bool* oom) {
  size_t n = 0, cap = 0;
  ortho_cam* c = NULL;
  for (const char* p = skio_text_find(text, end, "<camera"); p; p = skio_text_find(p + 1, end, "<camera")) {
    if (!skio_text_start_tag(p, end, "<camera")) continue;
    const char* close = skio_text_find(p, end, "</camera>");
    if (!close) break; /* none after this <camera: none after a later one either */
    const char* at = p;
    p = close;
    const char* ortho = skio_text_find(at, close, "<orthographic");
    if (!ortho) continue;
    ortho_cam k = {0};
    skio_text_attr(at, close, "id", &k.id, &k.id_n);
    if (!k.id || !k.id_n) continue;
    const double aspect = element_number(ortho, close, "<aspect_ratio");
    k.xmag = element_number(ortho, close, "<xmag");
    k.ymag = element_number(ortho, close, "<ymag");
    k.znear = element_number(ortho, close, "<znear");
    k.zfar = element_number(ortho, close, "<zfar");
    if (k.xmag <= 0.0 && aspect > 0.0) k.xmag = k.ymag * aspect;
    if (k.ymag <= 0.0 && aspect > 0.0) k.ymag = k.xmag / aspect;
    if (n == cap) {
      ortho_cam* g = realloc(c, (cap ? 2 * cap : 8) * sizeof *g);
      if (!g) {
        *oom = true;
        break;
      }
      c = g;
      cap = cap ? 2 * cap : 8;
    }
    c[n++] = k;
  }
  if (n) qsort(c, n, sizeof *c, cmp_cam); /* for camera_of */
  *out = c;
  return n;
}

static char* span_dup(const char* p, size_t n) {
  char* d = malloc(n + 1);
  if (d) {
    memcpy(d, p, n);
    d[n] = 0;
  }
  return d;
}

void skio_collada_ortho_free(skio_collada_ortho* list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) free(list[i].node);
  free(list);
}

/* The nodes in document order with a stack of the open ones: an <instance_camera> belongs to the innermost. */
int skio_collada_ortho_list(const char* text, size_t n, skio_collada_ortho** out, uint32_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  const char* end = text + n;
  bool oom = false;
  ortho_cam* cams = NULL;
  const size_t nc = ortho_cameras(text, end, &cams, &oom);
  enum { MAX_DEPTH = 4096 };
  const char** open = nc && !oom ? malloc(MAX_DEPTH * sizeof *open) : NULL; /* each open node's start tag */
  skio_collada_ortho* list = NULL;
  uint32_t k = 0, cap = 0, depth = 0;
  if (nc && !oom && !open) oom = true;
  for (const char* p = open ? memchr(text, '<', n) : NULL; p && !oom; p = memchr(p + 1, '<', (size_t)(end - p - 1))) {
    if (p + 1 >= end) break;
    const bool node = skio_text_start_tag(p, end, "<node"),
               inst = !node && depth && skio_text_start_tag(p, end, "<instance_camera");
    const char* gt = node || inst ? memchr(p, '>', (size_t)(end - p)) : NULL;
    if ((node || inst) && !gt) break; /* no tag ends after this one */
    if (node) {
      if (gt[-1] != '/' && depth < MAX_DEPTH) open[depth++] = p; /* deeper than that: not followed */
    } else if (skio_text_starts(p, end, "</node>")) {
      if (depth) --depth;
    } else if (inst) {
      const char *url, *name;
      size_t url_n, name_n;
      skio_text_attr(p, gt + 1, "url", &url, &url_n);
      const ortho_cam* c = url ? camera_of(cams, nc, url, url_n) : NULL;
      if (!c) continue;
      const char* tag = open[depth - 1];
      const char* tag_end = (const char*)memchr(tag, '>', (size_t)(end - tag)) + 1; /* found when it was opened */
      skio_text_attr(tag, tag_end, "name", &name, &name_n);
      if (!name || !name_n) skio_text_attr(tag, tag_end, "id", &name, &name_n);
      if (!name || !name_n) continue;
      if (k == cap) {
        skio_collada_ortho* g = realloc(list, (cap ? 2 * (size_t)cap : 8) * sizeof *g);
        if (!g) {
          oom = true;
          break;
        }
        list = g;
        cap = cap ? 2 * cap : 8;
      }
      list[k] = (skio_collada_ortho){span_dup(name, name_n), c->xmag, c->ymag, c->znear, c->zfar};
      if (!list[k++].node) oom = true;
    }
  }
  free(open);
  free(cams);
  if (oom) {
    skio_collada_ortho_free(list, k);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading the Collada cameras");
  }
  *out = list;
  *count = k;
  return SKC_OK;
}
