/* collada_text.c - text scanning shared by the Collada helpers (skio_collada.h): they read and patch the
 * documents Assimp reads and writes without an XML parser, by tags and attributes. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "skio_collada.h"

/* First occurrence of the NUL-free text s in [p, end), or NULL. */
const char* skio_text_find(const char* p, const char* end, const char* s) {
  const size_t n = strlen(s);
  for (; p && p + n <= end; ++p) {
    p = memchr(p, s[0], (size_t)(end - p));
    if (!p || p + n > end) return NULL;
    if (!memcmp(p, s, n)) return p;
  }
  return NULL;
}

/* Whether [p, end) starts with the NUL-free text s. */
bool skio_text_starts(const char* p, const char* end, const char* s) {
  const size_t n = strlen(s);
  return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

/* Whether the text at p is the tag <name (or </name) followed by a space, '>', '/' or a line break. */
bool skio_text_start_tag(const char* p, const char* end, const char* name) {
  const size_t n = strlen(name);
  return skio_text_starts(p, end, name) && p + n < end &&
         (p[n] == ' ' || p[n] == '>' || p[n] == '/' || p[n] == '\t' || p[n] == '\n' || p[n] == '\r');
}

/* The value of attribute name="..." of the start tag at tag (up to its '>'), without a leading '#', or an empty
 * range. */
void skio_text_attr(const char* tag, const char* end, const char* name, const char** v, size_t* n) {
  *v = NULL, *n = 0;
  const char* gt = memchr(tag, '>', (size_t)(end - tag));
  char key[32];
  size_t kl = strlen(name);
  if (!gt || kl + 3 > sizeof key) return;
  memcpy(key, name, kl);
  memcpy(key + kl, "=\"", 3);
  for (const char* a = skio_text_find(tag, gt, key); a; a = skio_text_find(a + 1, gt, key)) {
    if (a[-1] != ' ' && a[-1] != '\t' && a[-1] != '\n' && a[-1] != '\r') continue;
    const char* s = a + kl + 2;
    const char* q = memchr(s, '"', (size_t)(gt - s));
    if (!q) return;
    if (s < q && *s == '#') ++s;
    *v = s, *n = (size_t)(q - s);
    return;
  }
}

int skio_collada_plain_nodes(const char* text, size_t n, char*** out, uint32_t* count) {
  *out = NULL;
  *count = 0;
  uint32_t cap = 0;
  const char* end = text + n;
  for (const char* p = text ? skio_text_find(text, end, "<node") : NULL; p; p = skio_text_find(p + 5, end, "<node")) {
    if (p + 5 >= end || (p[5] != ' ' && p[5] != '\t' && p[5] != '\n' && p[5] != '\r' && p[5] != '>')) continue;
    const char *id, *type;
    size_t id_n, type_n;
    skio_text_attr(p, end, "id", &id, &id_n);
    if (!id_n) skio_text_attr(p, end, "name", &id, &id_n); /* Assimp names a node by its id, else its name */
    skio_text_attr(p, end, "type", &type, &type_n);
    if (!id_n || memchr(id, 0, id_n) || (type_n == 5 && !memcmp(type, "JOINT", 5))) continue; /* no NUL in XML */
    if (!skio_names_add(out, count, &cap, id, id_n)) {
      skio_names_free(*out, *count);
      *out = NULL;
      *count = 0;
      return SKC_OUT_OF_MEMORY;
    }
  }
  skio_names_sort(*out, *count);
  return SKC_OK;
}
