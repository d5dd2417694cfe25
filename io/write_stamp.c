/* write_stamp.c - the time of writing that Assimp's writers put into a file: a binary FBX's
 * FBXHeaderExtension/CreationTimeStamp (Year .. Millisecond, int32 properties) and a Collada document's
 * <asset><created> and <modified> (xs:dateTime). Both are the wall clock, so the same command on the same input
 * wrote different bytes every second (session 74: 21 of 72 pairs of runs differed, by these stamps alone), which
 * defeats a pipeline's content hashes and caches. When SOURCE_DATE_EPOCH is set (the reproducible-builds
 * convention: seconds since 1970-01-01 UTC), that time is written instead; without it the stamps stay as they were.
 * The values have fixed sizes, so the bytes are patched in place. */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fbx_fixup.h"
#include "skio_collada.h"
#include "skio_fbx_tree.h"

bool skio_source_date(struct tm* out) {
  const char* v = getenv("SOURCE_DATE_EPOCH");
  if (!v || !*v) return false;
  long long secs = 0;
  for (const char* p = v; *p; ++p) {
    if (*p < '0' || *p > '9') return false;
    secs = secs * 10 + (*p - '0');
    if (secs > 253402300799LL) return false; /* past 9999-12-31T23:59:59: no four-digit year */
  }
  const time_t t = (time_t)secs;
  return gmtime_r(&t, out) != NULL;
}

int skio_fbx_stamp(uint8_t* data, size_t n, const struct tm* when, skc_err* err) {
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, n, &t, err);
  if (rc) return rc;
  const uint32_t ext = skio_fbx_child(&t, SKIO_FBX_NONE, "FBXHeaderExtension", SKIO_FBX_NONE);
  const uint32_t ts =
      ext == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, ext, "CreationTimeStamp", SKIO_FBX_NONE);
  static const char* const k_fields[7] = {"Year", "Month", "Day", "Hour", "Minute", "Second", "Millisecond"};
  const int32_t v[7] = {
      when->tm_year + 1900, when->tm_mon + 1, when->tm_mday, when->tm_hour, when->tm_min, when->tm_sec, 0};
  for (int k = 0; k < 7 && ts != SKIO_FBX_NONE; ++k) {
    const uint32_t r = skio_fbx_child(&t, ts, k_fields[k], SKIO_FBX_NONE);
    skio_fbx_prop p;
    if (r == SKIO_FBX_NONE || !skio_fbx_prop_at(&t, r, 0, &p) || p.type != 'I') continue;
    uint8_t* at = data + (p.p - t.data); /* little-endian int32, as every FBX value */
    for (int b = 0; b < 4; ++b) at[b] = (uint8_t)((uint32_t)v[k] >> (8 * b));
  }
  skio_fbx_tree_free(&t);
  return SKC_OK;
}

/* The text of element <tag> (first one) in xml[0, n) when it is 19 characters (YYYY-MM-DDTHH:MM:SS, as Assimp
 * writes it): its first byte, else NULL. */
static char* stamp_text(char* xml, size_t n, const char* tag) {
  char open[32];
  const int len = snprintf(open, sizeof open, "<%s>", tag);
  for (size_t i = 0; len > 0 && i + (size_t)len + 19 + 2 <= n; ++i) {
    if (memcmp(xml + i, open, (size_t)len) != 0) continue;
    char* text = xml + i + len;
    return text[19] == '<' && text[20] == '/' ? text : NULL;
  }
  return NULL;
}

void skio_collada_stamp(char* xml, size_t n, const struct tm* when) {
  char buf[32];
  const int len = snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", when->tm_year + 1900, when->tm_mon + 1,
                           when->tm_mday, when->tm_hour, when->tm_min, when->tm_sec);
  if (len != 19) return;
  static const char* const k_tags[2] = {"created", "modified"};
  for (int k = 0; k < 2; ++k) {
    char* text = stamp_text(xml, n, k_tags[k]);
    if (text) memcpy(text, buf, 19);
  }
}
