/* name_list.c - sorted lists of names (skio_scene.h: skio_names_*), for the readers' sets of node names: an FBX
 * file's Null Models, a Collada file's plain nodes. */
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

static int cmp_names(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

bool skio_names_add(char*** list, uint32_t* count, uint32_t* cap, const char* s, size_t n) {
  if (*count == *cap) {
    const uint32_t c = *cap ? 2 * *cap : 16;
    char** grown = realloc(*list, (size_t)c * sizeof *grown);
    if (!grown) return false;
    *list = grown;
    *cap = c;
  }
  char* d = malloc(n + 1);
  if (!d) return false;
  memcpy(d, s, n);
  d[n] = 0;
  (*list)[(*count)++] = d;
  return true;
}

void skio_names_sort(char** list, uint32_t count) {
  if (count) qsort(list, count, sizeof *list, cmp_names);
}

bool skio_names_have(char* const* list, uint32_t count, const char* name) {
  return count && bsearch(&name, list, count, sizeof *list, cmp_names) != NULL;
}

void skio_names_free(char** list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) free(list[i]);
  free(list);
}
