#define _DEFAULT_SOURCE /* strdup */
/* gltf_doc.c - a glTF file as a document: GLB container, JSON tokens (jsmn), buffers and buffer views, with
 * EXT_meshopt_compression / KHR_meshopt_compression views decoded through libmeshoptimizer (version 0 attributes,
 * indices, the octahedral, quaternion and exponential filters) and io/meshopt_decode.c (version 1 attributes, the
 * COLOR filter). See skio_gltf_doc.h. */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS /* closing brackets in O(1): without it jsmn scans back, quadratic on deep nesting */
#include <errno.h>
#include <fcntl.h>
#include <jsmn.h>
#include <limits.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skc_mem.h"
#include "skio_atomic.h"
#include "skio_buf.h"
#include "skio_gltf_doc.h"
#include "skio_meshopt.h"

#define MAX_JSON ((size_t)256 << 20)
#define MAX_BUFFER ((size_t)2 << 30)
#define MAX_FILE ((size_t)4 << 30)
#define MAX_DEPTH 1000

/* ---------------------------------------------------------------------------------------- file reading */

/* Reads a regular file whole (refusing FIFOs, devices and directories before opening for a blocking read). */
static int read_file(const char* path, size_t cap, uint8_t** out, size_t* out_size, skc_err* err) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return skc_fail(err, SKC_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return skc_fail(err, SKC_IO, "%s: not a regular file", path);
  }
  if ((uint64_t)st.st_size > cap) {
    close(fd);
    return skc_fail(err, SKC_UNSUPPORTED, "%s: %lld bytes, more than the %zu this reader takes", path,
                    (long long)st.st_size, cap);
  }
  size_t n = (size_t)st.st_size;
  uint8_t* buf = skc_malloc_filled(n); /* read whole next */
  if (!buf) {
    close(fd);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, n);
  }
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (got != n) {
    free(buf);
    return skc_fail(err, SKC_IO, "%s: short read (%zu of %zu bytes)", path, got, n);
  }
  *out = buf;
  *out_size = n;
  return SKC_OK;
}

static uint32_t rd32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool skio_gltf_sniff(const void* data, size_t size) {
  const uint8_t* p = data;
  if (size >= 4 && memcmp(p, "glTF", 4) == 0) return true;
  size_t i = 0;
  if (size >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3; /* UTF-8 byte order mark */
  while (i < size && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) ++i;
  return i < size && p[i] == '{';
}

/* GLB: 12-byte header, JSON chunk first, then an optional BIN chunk; other chunks are skipped (spec 4.4.3). */
static int split_glb(skio_gltf_doc* d, skc_err* err) {
  const uint8_t* f = d->file;
  size_t n = d->file_size;
  if (n < 20) return skc_fail(err, SKC_TRUNCATED, "%s: GLB shorter than its headers", d->path);
  uint32_t version = rd32(f + 4), length = rd32(f + 8);
  if (version != 2)
    return skc_fail(err, SKC_VERSION, "%s: GLB version %u (only glTF 2.0 is read)", d->path, version);
  if (length > n) return skc_fail(err, SKC_TRUNCATED, "%s: GLB says %u bytes, file has %zu", d->path, length, n);
  size_t at = 12;
  bool first = true;
  while (at + 8 <= length) {
    uint32_t clen = rd32(f + at), ctype = rd32(f + at + 4);
    if (clen > length - at - 8)
      return skc_fail(err, SKC_TRUNCATED, "%s: GLB chunk at byte %zu runs past the file", d->path, at);
    if (first && ctype != 0x4E4F534Au)
      return skc_fail(err, SKC_FORMAT, "%s: GLB does not start with a JSON chunk", d->path);
    if (first) {
      d->json = (const char*)f + at + 8;
      d->json_size = clen;
    } else if (ctype == 0x004E4942u && !d->bin) {
      d->bin = f + at + 8;
      d->bin_size = clen;
      d->bin_chunk_offset = at;
    }
    first = false;
    at += 8 + (size_t)clen;
  }
  if (first) return skc_fail(err, SKC_FORMAT, "%s: GLB has no JSON chunk", d->path);
  return SKC_OK;
}

/* ---------------------------------------------------------------------------------------- JSON tokens */

/* Deepest bracket nesting outside strings. jsmn closes a bracket by walking up from the last token, so its time is
 * tokens x depth: a hostile 1,000,000-deep document would take hours. glTF itself nests 6 deep; extras rarely 20. */
static size_t nesting_depth(const char* s, size_t n) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > deepest) deepest = depth;
    } else if ((c == '}' || c == ']') && depth) {
      --depth;
    }
  }
  return deepest;
}

/* Child tables: the keys of every object and the elements of every array, so that element i or key i is one lookup
 * (walking next[] for each would make a loop over a 1,000,000-node array quadratic). The parent links are no longer
 * needed once parsed; their field holds where a container's children start. */
static int index_children(skio_gltf_doc* d, skc_err* err) {
  size_t total = 0;
  for (int i = 0; i < d->tok_count; ++i)
    if (d->tok[i].type == JSMN_OBJECT || d->tok[i].type == JSMN_ARRAY) total += (size_t)d->tok[i].size;
  d->elems = malloc((total ? total : 1) * sizeof *d->elems);
  if (!d->elems) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for the JSON index", d->path);
  size_t at = 0;
  for (int i = 0; i < d->tok_count; ++i) {
    if (d->tok[i].type != JSMN_OBJECT && d->tok[i].type != JSMN_ARRAY) continue;
    d->tok[i].aux = (int)at;
    for (int k = 0, c = i + 1; k < d->tok[i].size && c < d->tok_count; ++k, c = d->next[c]) d->elems[at++] = c;
  }
  return SKC_OK;
}

_Static_assert(sizeof(skio_json_tok) == sizeof(jsmntok_t) && offsetof(skio_json_tok, start) == offsetof(jsmntok_t, start) &&
                   offsetof(skio_json_tok, end) == offsetof(jsmntok_t, end) &&
                   offsetof(skio_json_tok, size) == offsetof(jsmntok_t, size) &&
                   offsetof(skio_json_tok, aux) == offsetof(jsmntok_t, parent) && sizeof(jsmntype_t) == sizeof(int),
               "skio_json_tok mirrors jsmntok_t (with JSMN_PARENT_LINKS)");

static int tokenize(skio_gltf_doc* d, skc_err* err) {
  if (d->json_size > MAX_JSON)
    return skc_fail(err, SKC_UNSUPPORTED, "%s: JSON of %zu bytes (at most %zu are read)", d->path, d->json_size, MAX_JSON);
  if (nesting_depth(d->json, d->json_size) > MAX_DEPTH)
    return skc_fail(err, SKC_FORMAT, "%s: JSON nested deeper than %d levels", d->path, MAX_DEPTH);
  jsmn_parser p;
  jsmn_init(&p);
  int n = jsmn_parse(&p, d->json, d->json_size, NULL, 0);
  if (n <= 0)
    return skc_fail(err, SKC_FORMAT, "%s: not valid JSON (%s)", d->path, n == JSMN_ERROR_PART ? "truncated" : "syntax error");
  d->tok = malloc((size_t)n * sizeof *d->tok); /* jsmn writes into it directly (same layout, checked above) */
  d->next = malloc((size_t)n * sizeof *d->next);
  if (!d->tok || !d->next) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for %d JSON tokens", d->path, n);
  jsmn_init(&p);
  if (jsmn_parse(&p, d->json, d->json_size, (jsmntok_t*)d->tok, (unsigned)n) != n)
    return skc_fail(err, SKC_FORMAT, "%s: not valid JSON", d->path);
  d->tok_count = n;
  /* subtree ends, children before parents: every child token comes after its parent */
  for (int i = n - 1; i >= 0; --i) {
    int c = i + 1;
    int kids = d->tok[i].type == JSMN_OBJECT || d->tok[i].type == JSMN_ARRAY || d->tok[i].type == JSMN_STRING ? d->tok[i].size : 0;
    for (int k = 0; k < kids && c < n; ++k) c = d->next[c];
    d->next[i] = c;
  }
  if (d->tok[0].type != JSMN_OBJECT) return skc_fail(err, SKC_FORMAT, "%s: the JSON is not an object", d->path);
  if (d->next[0] != n) return skc_fail(err, SKC_FORMAT, "%s: text after the JSON object", d->path);
  return index_children(d, err);
}

bool skio_json_is(const skio_gltf_doc* d, int tok, int type) {
  return d && tok >= 0 && tok < d->tok_count && d->tok[tok].type == type;
}

static bool span_eq(const skio_gltf_doc* d, int tok, const char* s) {
  size_t len = (size_t)(d->tok[tok].end - d->tok[tok].start);
  return strlen(s) == len && memcmp(d->json + d->tok[tok].start, s, len) == 0;
}

int skio_json_key_at(const skio_gltf_doc* d, int obj, int i) {
  if (!skio_json_is(d, obj, JSMN_OBJECT) || i < 0 || i >= d->tok[obj].size) return -1;
  return d->elems[d->tok[obj].aux + i];
}

/* Whether key token tok spells key (klen bytes). Every escape takes more bytes in the file than it decodes to, so
 * only a token longer than the key and holding a backslash can match once decoded (the slow comparison). */
static bool key_is(const skio_gltf_doc* d, int tok, const char* key, size_t klen) {
  const char* s = d->json + d->tok[tok].start;
  size_t len = (size_t)(d->tok[tok].end - d->tok[tok].start);
  if (len == klen) return memcmp(s, key, klen) == 0;
  return len > klen && memchr(s, '\\', len) && skio_json_streq(d, tok, key);
}

int skio_json_get(const skio_gltf_doc* d, int obj, const char* key) {
  if (!skio_json_is(d, obj, JSMN_OBJECT)) return -1;
  size_t klen = strlen(key);
  int c = obj + 1, found = -1;
  for (int k = 0; k < d->tok[obj].size && c < d->tok_count; ++k, c = d->next[c])
    if (d->tok[c].type == JSMN_STRING && c + 1 < d->tok_count && key_is(d, c, key, klen))
      found = c + 1; /* the last of repeated keys wins, as most JSON readers do */
  return found;
}

int skio_json_len(const skio_gltf_doc* d, int arr) {
  return skio_json_is(d, arr, JSMN_ARRAY) ? d->tok[arr].size : 0;
}

int skio_json_at(const skio_gltf_doc* d, int arr, int i) {
  if (!skio_json_is(d, arr, JSMN_ARRAY) || i < 0 || i >= d->tok[arr].size) return -1;
  return d->elems[d->tok[arr].aux + i];
}

bool skio_json_num(const skio_gltf_doc* d, int tok, double* out) {
  if (!skio_json_is(d, tok, JSMN_PRIMITIVE)) return false;
  char buf[64];
  size_t len = (size_t)(d->tok[tok].end - d->tok[tok].start);
  const char* s = d->json + d->tok[tok].start;
  if (len == 0 || len >= sizeof buf || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) return false;
  memcpy(buf, s, len);
  buf[len] = 0;
  char* end;
  double v = strtod(buf, &end);
  if (*end || !isfinite(v)) return false;
  *out = v;
  return true;
}

bool skio_json_u32(const skio_gltf_doc* d, int tok, uint32_t* out) {
  double v;
  if (!skio_json_num(d, tok, &v) || v < 0 || v > 4294967295.0 || v != floor(v)) return false;
  *out = (uint32_t)v;
  return true;
}

bool skio_json_size(const skio_gltf_doc* d, int tok, size_t* out) {
  double v;
  if (!skio_json_num(d, tok, &v) || v < 0 || v > 9007199254740992.0 || v != floor(v)) return false;
  *out = (size_t)v;
  return true;
}

bool skio_json_bool(const skio_gltf_doc* d, int tok, bool* out) {
  if (!skio_json_is(d, tok, JSMN_PRIMITIVE)) return false;
  if (span_eq(d, tok, "true")) *out = true;
  else if (span_eq(d, tok, "false")) *out = false;
  else return false;
  return true;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int hex4(const char* s, const char* end) {
  if (end - s < 4) return -1;
  int v = 0;
  for (int i = 0; i < 4; ++i) {
    int h = hexval(s[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

static size_t put_utf8(char* o, uint32_t cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 63)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 63)); o[2] = (char)(0x80 | (cp & 63));
    return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 63));
  o[2] = (char)(0x80 | ((cp >> 6) & 63)); o[3] = (char)(0x80 | (cp & 63));
  return 4;
}

/* One escape at s (after the backslash) decoded into o; returns the characters consumed. Bad escapes and lone
 * surrogates become U+FFFD. */
static size_t unescape_one(const char* s, const char* end, char* o, size_t* written) {
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  const char* f = s < end ? strchr(from, *s) : NULL;
  if (f && *s) {
    *o = to[f - from];
    *written = 1;
    return 1;
  }
  int cp = (s < end && *s == 'u') ? hex4(s + 1, end) : -1;
  if (cp < 0) {
    *written = put_utf8(o, 0xFFFD);
    return s < end ? 1 : 0;
  }
  size_t used = 5;
  if (cp >= 0xD800 && cp < 0xDC00 && end - s >= 11 && s[5] == '\\' && s[6] == 'u') {
    int lo = hex4(s + 7, end);
    if (lo >= 0xDC00 && lo < 0xE000) {
      *written = put_utf8(o, 0x10000u + (((uint32_t)cp - 0xD800u) << 10) + ((uint32_t)lo - 0xDC00u));
      return 11;
    }
  }
  *written = put_utf8(o, (cp >= 0xD800 && cp < 0xE000) ? 0xFFFD : (uint32_t)cp);
  return used;
}

char* skio_json_strdup(const skio_gltf_doc* d, int tok) {
  if (!skio_json_is(d, tok, JSMN_STRING)) return NULL;
  const char* s = d->json + d->tok[tok].start;
  const char* end = d->json + d->tok[tok].end;
  char* out = malloc((size_t)(end - s) * 3 + 1); /* an escape never grows past 3 bytes per input char */
  if (!out) return NULL;
  size_t n = 0;
  while (s < end) {
    if (*s != '\\') {
      out[n++] = *s++;
      continue;
    }
    size_t w = 0;
    s += 1 + unescape_one(s + 1, end, out + n, &w);
    n += w;
  }
  out[n] = 0;
  return out;
}

bool skio_json_streq(const skio_gltf_doc* d, int tok, const char* str) {
  if (!skio_json_is(d, tok, JSMN_STRING)) return false;
  if (span_eq(d, tok, str)) return true;
  if (!memchr(d->json + d->tok[tok].start, '\\', (size_t)(d->tok[tok].end - d->tok[tok].start))) return false;
  char* u = skio_json_strdup(d, tok);
  bool eq = u && strcmp(u, str) == 0;
  free(u);
  return eq;
}

int skio_json_floats(const skio_gltf_doc* d, int tok, float* out, int n) {
  if (!skio_json_is(d, tok, JSMN_ARRAY)) return -1;
  int len = d->tok[tok].size, got = 0;
  for (int i = 0, c = tok + 1; i < len && got < n; ++i, c = d->next[c]) {
    double v;
    if (!skio_json_num(d, c, &v)) return -1;
    out[got++] = (float)v;
  }
  return got;
}

int skio_gltf_item(const skio_gltf_doc* d, const char* array, uint32_t i) {
  if (!d) return -1;
  return skio_json_at(d, skio_json_get(d, 0, array), (int)(i > INT_MAX ? -1 : (int)i));
}

int skio_gltf_node_parents(const skio_gltf_doc* d, const char* path, int32_t* parent, skc_err* err) {
  const uint32_t n = d->node_count;
  for (uint32_t i = 0; i < n; ++i) parent[i] = -1;
  for (uint32_t i = 0; i < n; ++i) {
    int children = skio_json_get(d, skio_gltf_item(d, "nodes", i), "children");
    for (int k = 0, len = skio_json_len(d, children); k < len; ++k) {
      uint32_t c;
      if (!skio_json_u32(d, skio_json_at(d, children, k), &c) || c >= n)
        return skc_fail(err, SKC_FORMAT, "%s: node %u: child %d is not a node index", path, i, k);
      if (c == i || parent[c] >= 0)
        return skc_fail(err, SKC_FORMAT, "%s: node %u is the child of two nodes (or of itself): nodes must form a forest",
                        path, c);
      parent[c] = (int32_t)i;
    }
  }
  return SKC_OK;
}

static bool list_has(const skio_gltf_doc* d, const char* list, const char* name) {
  int arr = skio_json_get(d, 0, list);
  for (int i = 0, n = skio_json_len(d, arr); i < n; ++i)
    if (skio_json_streq(d, skio_json_at(d, arr, i), name)) return true;
  return false;
}

bool skio_gltf_extension_used(const skio_gltf_doc* d, const char* name) { return list_has(d, "extensionsUsed", name); }
bool skio_gltf_extension_required(const skio_gltf_doc* d, const char* name) {
  return list_has(d, "extensionsRequired", name);
}

/* ---------------------------------------------------------------------------------------- document */

static int array_of(skio_gltf_doc* d, const char* name, uint32_t* count, skc_err* err) {
  int t = skio_json_get(d, 0, name);
  if (t >= 0 && !skio_json_is(d, t, JSMN_ARRAY))
    return skc_fail(err, SKC_FORMAT, "%s: \"%s\" is not an array", d->path, name), -2;
  *count = (uint32_t)skio_json_len(d, t);
  return t;
}

/* extensionsRequired entries that change what the geometry means and that this reader does not decode. */
static int check_required(skio_gltf_doc* d, skc_err* err) {
  static const char* known[] = {"KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_meshopt_compression",
                                "KHR_texture_transform", "KHR_texture_basisu", "EXT_texture_webp",
                                "EXT_texture_avif", "KHR_materials_", "KHR_lights_punctual",
                                "KHR_materials_variants", "EXT_mesh_gpu_instancing", "KHR_draco_mesh_compression"};
  int arr = skio_json_get(d, 0, "extensionsRequired");
  for (int i = 0, n = skio_json_len(d, arr); i < n; ++i) {
    char* name = skio_json_strdup(d, skio_json_at(d, arr, i));
    bool ok = false;
    for (size_t k = 0; name && k < sizeof known / sizeof *known; ++k)
      ok |= strncmp(name, known[k], strlen(known[k])) == 0;
    if (!ok) {
      int rc = skc_fail(err, SKC_UNSUPPORTED, "%s: requires the extension %s, which skinkit does not read", d->path,
                        name ? name : "(unnamed)");
      free(name);
      return rc;
    }
    free(name);
  }
  return SKC_OK;
}

static int check_asset(skio_gltf_doc* d, skc_err* err) {
  int asset = skio_json_get(d, 0, "asset");
  int ver = skio_json_get(d, asset, "version");
  char* v = skio_json_strdup(d, ver);
  if (!v) return skc_fail(err, SKC_FORMAT, "%s: no asset.version (not a glTF 2.0 file)", d->path);
  bool two = v[0] == '2' && (v[1] == 0 || v[1] == '.');
  int rc = two ? SKC_OK
               : skc_fail(err, SKC_VERSION, "%s: glTF version \"%.20s\" (only 2.x is read)", d->path, v);
  free(v);
  return rc;
}

static int index_document(skio_gltf_doc* d, skc_err* err) {
  int rc;
  if ((rc = check_asset(d, err)) || (rc = check_required(d, err))) return rc;
  struct { const char* name; int* tok; uint32_t* count; } arrays[] = {
      {"accessors", &d->t_accessors, &d->accessor_count}, {"bufferViews", &d->t_views, &d->view_count},
      {"buffers", &d->t_buffers, &d->buffer_count},       {"meshes", &d->t_meshes, &d->mesh_count},
      {"nodes", &d->t_nodes, &d->node_count},             {"skins", &d->t_skins, &d->skin_count},
      {"animations", &d->t_animations, &d->animation_count}};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; ++i)
    if ((*arrays[i].tok = array_of(d, arrays[i].name, arrays[i].count, err)) == -2) return err ? err->code : SKC_FORMAT;
  uint32_t unused;
  if ((d->t_scenes = array_of(d, "scenes", &unused, err)) == -2) return SKC_FORMAT;
  if ((d->t_materials = array_of(d, "materials", &unused, err)) == -2) return SKC_FORMAT;
  d->buffers = calloc(d->buffer_count ? d->buffer_count : 1, sizeof *d->buffers);
  d->views = calloc(d->view_count ? d->view_count : 1, sizeof *d->views);
  if (!d->buffers || !d->views) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", d->path);
  return skio_gltf_draco_index(d, err);
}

/* Whether s[0, n) is UTF-8 throughout (skio_utf8_len's rules; its last bytes checked through a zero-padded copy). */
static bool utf8_throughout(const char* s, size_t n) {
  const unsigned char* p = (const unsigned char*)s;
  for (size_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    unsigned char tail[5] = {0};
    const size_t left = n - i < 4 ? n - i : 4;
    memcpy(tail, p + i, left);
    const size_t len = skio_utf8_len(tail);
    if (!len || len > left) return false;
    i += len;
  }
  return true;
}

static int open_document(skio_gltf_doc* d, skc_err* err) {
  int rc;
  d->is_glb = d->file_size >= 4 && memcmp(d->file, "glTF", 4) == 0;
  if (d->is_glb) {
    if ((rc = split_glb(d, err))) return rc;
  } else {
    size_t skip = d->file_size >= 3 && d->file[0] == 0xEF && d->file[1] == 0xBB && d->file[2] == 0xBF ? 3 : 0;
    d->json = (const char*)d->file + skip;
    d->json_size = d->file_size - skip;
  }
  d->json_not_utf8 = !utf8_throughout(d->json, d->json_size);
  if ((rc = tokenize(d, err))) return rc;
  return index_document(d, err);
}

static char* dir_of(const char* path) {
  const char* slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  size_t n = (size_t)(slash - path);
  char* d = malloc(n + 2);
  if (!d) return NULL;
  memcpy(d, path, n ? n : 1);
  d[n ? n : 1] = 0;
  return d;
}

int skio_gltf_doc_load(const char* path, skio_gltf_doc** out, skc_err* err) {
  if (!path || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "path and out must not be NULL");
  skio_gltf_doc* d = calloc(1, sizeof *d);
  if (!d) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  int rc = SKC_OK;
  if (!(d->path = strdup(path)) || !(d->base_dir = dir_of(path)))
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc) rc = read_file(path, MAX_FILE, &d->file, &d->file_size, err);
  if (!rc) rc = open_document(d, err);
  if (rc) {
    skio_gltf_doc_destroy(d);
    return rc;
  }
  *out = d;
  return SKC_OK;
}

int skio_gltf_doc_parse(const void* data, size_t size, const char* base_dir, skio_gltf_doc** out, skc_err* err) {
  if ((!data && size) || !out) return skc_fail(err, SKC_INVALID_ARGUMENT, "data and out must not be NULL");
  skio_gltf_doc* d = calloc(1, sizeof *d);
  if (!d) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  int rc = SKC_OK;
  d->file = malloc(size ? size : 1);
  d->path = strdup("(memory)");
  d->base_dir = base_dir ? strdup(base_dir) : NULL;
  if (!d->file || !d->path || (base_dir && !d->base_dir)) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (!rc) {
    if (size) memcpy(d->file, data, size);
    d->file_size = size;
    rc = open_document(d, err);
  }
  if (rc) {
    skio_gltf_doc_destroy(d);
    return rc;
  }
  *out = d;
  return SKC_OK;
}

void skio_gltf_doc_destroy(skio_gltf_doc* d) {
  if (!d) return;
  for (uint32_t i = 0; d->buffers && i < d->buffer_count; ++i) free(d->buffers[i].owned);
  for (uint32_t i = 0; d->views && i < d->view_count; ++i) free(d->views[i].decoded);
  skio_gltf_draco_free(d);
  free((void*)d->skin_structure);
  free(d->node_parent);
  free(d->buffers);
  free(d->views);
  free(d->tok);
  free(d->next);
  free(d->elems);
  free(d->file);
  free(d->path);
  free(d->base_dir);
  free(d);
}

/* ---------------------------------------------------------------------------------------- buffers */

static int b64val(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

static int decode_base64(const skio_gltf_doc* d, const char* s, size_t n, skio_gltf_buffer* b, skc_err* err) {
  uint8_t* out = malloc(n / 4 * 3 + 3);
  if (!out) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for a data URI", d->path);
  size_t o = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] == '=') break;
    int v = b64val((unsigned char)s[i]);
    if (v < 0) {
      free(out);
      return skc_fail(err, SKC_FORMAT, "%s: a data URI holds a character that is not base64", d->path);
    }
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (uint8_t)(acc >> bits);
    }
  }
  b->owned = out;
  b->data = out;
  b->size = o;
  return SKC_OK;
}

bool skio_gltf_uri_climbs(const char* uri) {
  char* p = malloc(strlen(uri) + 1);
  if (!p) return true; /* refused, as any path it cannot check */
  size_t o = 0;
  bool nul = false;
  for (size_t i = 0; uri[i]; ++i) {
    int h1 = uri[i] == '%' && uri[i + 1] ? hexval(uri[i + 1]) : -1,
        h2 = h1 >= 0 && uri[i + 2] ? hexval(uri[i + 2]) : -1;
    if (h1 >= 0 && h2 >= 0) {
      p[o++] = (char)(h1 * 16 + h2);
      nul |= h1 == 0 && h2 == 0;
      i += 2;
    } else {
      p[o++] = uri[i];
    }
  }
  p[o] = 0;
  /* decoded: a ".." segment, a scheme or drive, an absolute path ("%2Fetc%2Fpasswd" was read and embedded), a NUL */
  const bool climbs = nul || p[0] == '/' || p[0] == '\\' || skio_path_climbs(p) || strchr(p, ':') != NULL;
  free(p);
  return climbs;
}

/* Relative URI -> path beside the glTF: percent-decoded; absolute paths, schemes, ".." segments and NUL refused. */
static int uri_path(const skio_gltf_doc* d, const char* uri, char** out, skc_err* err) {
  if (!d->base_dir) return skc_fail(err, SKC_UNSUPPORTED, "%s: external buffer \"%.60s\" (memory input)", d->path, uri);
  if (uri[0] == '/' || strstr(uri, "://") || strchr(uri, ':'))
    return skc_fail(err, SKC_UNSUPPORTED, "%s: buffer URI \"%.60s\" is not a relative file name", d->path, uri);
  if (skio_gltf_uri_climbs(uri))
    return skc_fail(err, SKC_UNSUPPORTED, "%s: buffer URI \"%.60s\" reaches outside the file's folder (..): not read",
                    d->path, uri);
  size_t n = strlen(uri), bl = strlen(d->base_dir);
  char* p = malloc(bl + n + 2);
  if (!p) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  memcpy(p, d->base_dir, bl);
  p[bl] = '/';
  size_t o = bl + 1;
  for (size_t i = 0; i < n; ++i) {
    int h1 = i + 2 < n && uri[i] == '%' ? hexval(uri[i + 1]) : -1;
    int h2 = h1 >= 0 ? hexval(uri[i + 2]) : -1;
    if (h1 >= 0 && h2 >= 0 && (h1 | h2)) {
      p[o++] = (char)(h1 * 16 + h2);
      i += 2;
    } else {
      p[o++] = uri[i];
    }
  }
  p[o] = 0;
  *out = p;
  return SKC_OK;
}

static int resolve_buffer(skio_gltf_doc* d, uint32_t i, skc_err* err) {
  skio_gltf_buffer* b = &d->buffers[i];
  free(b->owned); /* an earlier attempt that failed (truncated data) */
  b->owned = NULL;
  b->data = NULL;
  b->size = 0;
  int t = skio_json_at(d, d->t_buffers, (int)i);
  if (!skio_json_size(d, skio_json_get(d, t, "byteLength"), &b->byte_length))
    return skc_fail(err, SKC_FORMAT, "%s: buffers[%u] has no valid byteLength", d->path, i);
  if (b->byte_length > MAX_BUFFER)
    return skc_fail(err, SKC_UNSUPPORTED,
                    "%s: buffers[%u] holds %zu bytes, past the 2 GiB a buffer may hold here (split "
                    "the data over several buffers of a .gltf)",
                    d->path, i, b->byte_length);
  int uri_tok = skio_json_get(d, t, "uri");
  if (uri_tok < 0) {
    if (i == 0 && d->bin) {
      b->data = d->bin;
      b->size = d->bin_size;
    }
  } else {
    char* uri = skio_json_strdup(d, uri_tok);
    if (!uri) return skc_fail(err, SKC_FORMAT, "%s: buffers[%u].uri is not a string", d->path, i);
    int rc;
    const char* comma = strchr(uri, ',');
    if (strncmp(uri, "data:", 5) == 0) {
      rc = comma && strstr(uri, ";base64,") ? decode_base64(d, comma + 1, strlen(comma + 1), b, err)
                                            : skc_fail(err, SKC_FORMAT, "%s: buffers[%u] data URI is not base64", d->path, i);
    } else {
      char* p = NULL;
      rc = uri_path(d, uri, &p, err);
      if (!rc) rc = read_file(p, MAX_BUFFER, &b->owned, &b->size, err);
      if (!rc) b->data = b->owned;
      free(p);
    }
    free(uri);
    if (rc) return rc;
  }
  if (b->data && b->size < b->byte_length)
    return skc_fail(err, SKC_TRUNCATED, "%s: buffers[%u] has %zu bytes, byteLength says %zu", d->path, i, b->size,
                    b->byte_length);
  b->resolved = true;
  return SKC_OK;
}

int skio_gltf_buffer_data(skio_gltf_doc* d, uint32_t i, const uint8_t** data, size_t* size, skc_err* err) {
  if (!d || i >= d->buffer_count) return skc_fail(err, SKC_FORMAT, "%s: buffer %u does not exist", d ? d->path : "", i);
  if (!d->buffers[i].resolved) {
    int rc = resolve_buffer(d, i, err);
    if (rc) return rc;
  }
  if (!d->buffers[i].data)
    return skc_fail(err, SKC_FORMAT, "%s: buffers[%u] has no data (no uri and no GLB BIN chunk)", d->path, i);
  *data = d->buffers[i].data;
  *size = d->buffers[i].byte_length;
  return SKC_OK;
}

/* ---------------------------------------------------------------------------------------- views */

typedef struct view_range {
  uint32_t buffer;
  size_t offset, length, stride;
} view_range;

static int read_range(skio_gltf_doc* d, int t, view_range* r, const char* what, uint32_t i, skc_err* err) {
  memset(r, 0, sizeof *r);
  int off = skio_json_get(d, t, "byteOffset"), st = skio_json_get(d, t, "byteStride");
  if (!skio_json_u32(d, skio_json_get(d, t, "buffer"), &r->buffer) ||
      !skio_json_size(d, skio_json_get(d, t, "byteLength"), &r->length) ||
      (off >= 0 && !skio_json_size(d, off, &r->offset)) || (st >= 0 && !skio_json_size(d, st, &r->stride)))
    return skc_fail(err, SKC_FORMAT, "%s: %s %u: buffer, byteLength, byteOffset or byteStride invalid", d->path, what, i);
  return SKC_OK;
}

static int slice(skio_gltf_doc* d, const view_range* r, const uint8_t** out, const char* what, uint32_t i,
                 skc_err* err) {
  const uint8_t* data;
  size_t size;
  int rc = skio_gltf_buffer_data(d, r->buffer, &data, &size, err);
  if (rc) return rc;
  if (r->offset > size || r->length > size - r->offset)
    return skc_fail(err, SKC_FORMAT, "%s: %s %u (bytes %zu..%zu) runs past buffer %u (%zu bytes)", d->path, what, i,
                    r->offset, r->offset + r->length, r->buffer, size);
  *out = data + r->offset;
  return SKC_OK;
}

static int meshopt_filter(const char* f, size_t count, size_t stride, uint8_t* data) {
  if (!f || strcmp(f, "NONE") == 0) return 0;
  if (strcmp(f, "OCTAHEDRAL") == 0 && (stride == 4 || stride == 8)) meshopt_decodeFilterOct(data, count, stride);
  else if (strcmp(f, "QUATERNION") == 0 && stride == 8) meshopt_decodeFilterQuat(data, count, stride);
  else if (strcmp(f, "EXPONENTIAL") == 0 && stride % 4 == 0) meshopt_decodeFilterExp(data, count, stride);
  else if (strcmp(f, "COLOR") == 0 && (stride == 4 || stride == 8)) skio_meshopt_filter_color(data, count, stride);
  else return -1;
  return 0;
}

/* Why a meshopt view did not decode: a codec version or filter newer than the specification we know (named as
 * such, not as damaged data), or damaged data. */
static int meshopt_refusal(const skio_gltf_doc* d, uint32_t i, const char* mode, const char* filter,
                           const view_range* r, const uint8_t* src, int res, skc_err* err) {
  const bool attrs = mode && strcmp(mode, "ATTRIBUTES") == 0;
  if (attrs && r->length > 0 && (src[0] & 0xF0) == 0xA0 && (src[0] & 0x0F) > 1)
    return skc_fail(err, SKC_UNSUPPORTED, "%s: bufferViews[%u]: meshopt vertex codec version %d is newer than "
                    "skinkit decodes (versions 0 and 1)", d->path, i, src[0] & 0x0F);
  if (attrs && res == -101)
    return skc_fail(err, SKC_UNSUPPORTED, "%s: bufferViews[%u]: meshopt filter %s is unknown here or does not fit "
                    "byteStride %zu", d->path, i, filter, r->stride);
  return skc_fail(err, SKC_FORMAT, "%s: bufferViews[%u]: meshopt %s%s%s data does not decode (%d)", d->path, i,
                  mode ? mode : "(no mode)", filter ? " / " : "", filter ? filter : "", res);
}

/* Version 0 attribute streams go to the system's meshoptimizer (SIMD), version 1 to our decoder. */
static int decode_attributes(uint8_t* out, size_t count, size_t stride, const uint8_t* src, size_t len) {
  if (len > 0 && src[0] == 0xA1) return skio_meshopt_decode_attributes(out, count, stride, src, len);
  return meshopt_decodeVertexBuffer(out, count, stride, src, len);
}

static int decode_meshopt(skio_gltf_doc* d, uint32_t i, int ext, skio_gltf_view* v, size_t view_len, skc_err* err) {
  view_range r;
  size_t count;
  int rc = read_range(d, ext, &r, "meshopt view", i, err);
  const uint8_t* src = NULL;
  if (rc || (rc = slice(d, &r, &src, "meshopt view", i, err))) return rc;
  if (!skio_json_size(d, skio_json_get(d, ext, "count"), &count) || r.stride == 0 || r.stride > 256 ||
      count > MAX_BUFFER / r.stride || count * r.stride > view_len)
    return skc_fail(err, SKC_FORMAT, "%s: bufferViews[%u] meshopt count/byteStride invalid", d->path, i);
  char* mode = skio_json_strdup(d, skio_json_get(d, ext, "mode"));
  char* filter = skio_json_strdup(d, skio_json_get(d, ext, "filter"));
  uint8_t* out = calloc(view_len ? view_len : 1, 1);
  int res = -100;
  if (out && mode && strcmp(mode, "ATTRIBUTES") == 0 && r.stride % 4 == 0)
    res = decode_attributes(out, count, r.stride, src, r.length);
  else if (out && mode && strcmp(mode, "TRIANGLES") == 0 && (r.stride == 2 || r.stride == 4) && count % 3 == 0)
    res = meshopt_decodeIndexBuffer(out, count, r.stride, src, r.length);
  else if (out && mode && strcmp(mode, "INDICES") == 0 && (r.stride == 2 || r.stride == 4))
    res = meshopt_decodeIndexSequence(out, count, r.stride, src, r.length);
  if (res == 0 && strcmp(mode, "ATTRIBUTES") == 0) res = meshopt_filter(filter, count, r.stride, out) ? -101 : 0;
  if (res == 0) {
    v->decoded = out;
    v->data = out;
    v->size = view_len;
  } else if (!out) {
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory decoding bufferViews[%u]", d->path, i);
  } else {
    free(out);
    rc = meshopt_refusal(d, i, mode, filter, &r, src, res, err);
  }
  free(mode);
  free(filter);
  return rc;
}

static int resolve_view(skio_gltf_doc* d, uint32_t i, skc_err* err) {
  skio_gltf_view* v = &d->views[i];
  int t = skio_json_at(d, d->t_views, (int)i);
  view_range r;
  int rc = read_range(d, t, &r, "bufferViews", i, err);
  if (rc) return rc;
  if (r.stride && (r.stride < 4 || r.stride > 252 || r.stride % 4))
    return skc_fail(err, SKC_FORMAT, "%s: bufferViews[%u].byteStride %zu (must be 4..252, a multiple of 4)", d->path,
                    i, r.stride);
  v->stride = r.stride;
  int exts = skio_json_get(d, t, "extensions");
  int ext = skio_json_get(d, exts, "EXT_meshopt_compression");
  v->compression = ext >= 0 ? 1 : 0;
  if (ext < 0 && (ext = skio_json_get(d, exts, "KHR_meshopt_compression")) >= 0) v->compression = 2;
  if (ext >= 0) {
    if (r.length > MAX_BUFFER) return skc_fail(err, SKC_FORMAT, "%s: bufferViews[%u] too large", d->path, i);
    rc = decode_meshopt(d, i, ext, v, r.length, err);
  } else {
    rc = slice(d, &r, &v->data, "bufferViews", i, err);
    v->size = r.length;
  }
  if (!rc) v->resolved = true;
  return rc;
}

static bool ranges_meet(const view_range* a, const view_range* b) {
  return a->buffer == b->buffer && a->offset < b->offset + b->length && b->offset < a->offset + a->length;
}

bool skio_gltf_view_shared(const skio_gltf_doc* d, uint32_t i) {
  view_range mine, other;
  skio_gltf_doc* dd = (skio_gltf_doc*)d; /* read_range only reads the JSON */
  if (i >= d->view_count || read_range(dd, skio_json_at(d, d->t_views, (int)i), &mine, "bufferViews", i, NULL))
    return true;
  for (uint32_t k = 0; k < d->view_count; ++k) {
    if (k == i) continue;
    const int t = skio_json_at(d, d->t_views, (int)k);
    if (read_range(dd, t, &other, "bufferViews", k, NULL) || ranges_meet(&mine, &other)) return true;
    const int exts = skio_json_get(d, t, "extensions");
    int ext = skio_json_get(d, exts, "EXT_meshopt_compression");
    if (ext < 0) ext = skio_json_get(d, exts, "KHR_meshopt_compression");
    if (ext >= 0 && (read_range(dd, ext, &other, "meshopt view", k, NULL) || ranges_meet(&mine, &other))) return true;
  }
  return false;
}

int skio_gltf_view_data(skio_gltf_doc* d, uint32_t i, const uint8_t** data, size_t* size, size_t* stride,
                        skc_err* err) {
  if (!d || i >= d->view_count)
    return skc_fail(err, SKC_FORMAT, "%s: bufferView %u does not exist", d ? d->path : "", i);
  if (!d->views[i].resolved) {
    int rc = resolve_view(d, i, err);
    if (rc) return rc;
  }
  *data = d->views[i].data;
  *size = d->views[i].size;
  if (stride) *stride = d->views[i].stride;
  return SKC_OK;
}
