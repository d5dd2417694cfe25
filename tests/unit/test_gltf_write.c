#define _DEFAULT_SOURCE /* mkdtemp */
/* test_gltf_write.c - our glTF 2.0 writer (io/gltf_write.c, io/skio_gltf.h).
 *
 * Two independent references check what it writes:
 *  - the file itself, parsed here with a small JSON reader of this test: GLB header and chunk layout (4-byte
 *    padding, lengths), the .bin beside a .gltf, buffer/bufferView/accessor bounds, accessor offset alignment,
 *    componentType/type pairs per attribute, no byteStride, POSITION and animation-input min/max equal to the data,
 *    strictly increasing non-negative key times, unit quaternions, index values below the vertex count, JOINTS values
 *    below the skin's joint count with no joint twice in a vertex, non-negative weights (summing to 1 unless as-is),
 *    one channel per (node, path), no "matrix" on an animated node, a node tree where every node has one parent;
 *  - Assimp 5.2.5's glTF importer, through skio_scene_import: the same meshes with the same vertex count and order,
 *    positions / normals / tangents / indices bit for bit, TEXCOORD_0 as 1 - (1 - v) (glTF's v axis is flipped on
 *    write and on read), every influence (joint name -> weight) exactly as stored for as-is and exactly the
 *    documented rule otherwise (computed here from the source: merge repeats, prune, top N, renormalize in double),
 *    each mesh's own inverse binds and the rest transforms within 1e-6, every animation under its name in order
 *    (duplicates too), every source key time within float precision, and LBS-skinned poses (skio_anim_sample ->
 *    FK -> palette with the mesh's inverse binds) at the source's key times within 1e-5 of the bounding-box diagonal.
 * Scenes are generated here (capped cylinder rig of core/primitives.c, a >256-joint fan, a sheared joint); with
 * SKINKIT_ASSETS set, every corpus file goes through .glb and .gltf too. The Khronos validator is not part of this
 * program (it needs node and the npm registry): tests/gltf_validator/validate.mjs runs it on the files this test
 * keeps with SKT_GLTF_KEEP=DIR. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skc_primitives.h"
#include "skio_gltf.h"
#include "skio_scene.h"

/* ---- temp folder ------------------------------------------------------------------------------------------ */
static char g_tmp[256];

/* SKT_GLTF_KEEP=DIR keeps every written file in a folder under DIR (for tests/gltf_validator/validate.mjs). */
static void make_tmp(void) {
  const char* keep = getenv("SKT_GLTF_KEEP");
  snprintf(g_tmp, sizeof g_tmp, "%s/sk_test_gltfw_XXXXXX", keep && keep[0] ? keep : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(g_tmp));
}
static void rm_tmp(void) {
  const char* keep = getenv("SKT_GLTF_KEEP");
  if (keep && keep[0]) return;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  ck_assert_int_eq(system(cmd), 0);
}
static const char* tmp_path(const char* name) {
  static char buf[4][700];
  static int k;
  k = (k + 1) & 3;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_tmp, name);
  return buf[k];
}

static unsigned char* read_file(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* p = malloc((size_t)len + 1);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(fread(p, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  p[len] = 0;
  *n = (size_t)len;
  return p;
}

static size_t files_in_tmp(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", g_tmp);
  FILE* p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  size_t n = 0;
  ck_assert_int_eq(fscanf(p, "%zu", &n), 1);
  pclose(p);
  return n;
}

/* ---- a small JSON reader ---------------------------------------------------------------------------------- */
enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct jv {
  int type;
  double num;
  char* str;        /* J_STR: decoded UTF-8 */
  size_t n, cap;    /* items of J_ARR / J_OBJ */
  struct jv* items;
  char** keys;      /* J_OBJ */
} jv;

typedef struct jp {
  const char* p;
  const char* end;
} jp;

static void jws(jp* s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) s->p++;
}

static void put_utf8(char* out, size_t* n, unsigned cp) {
  if (cp < 0x80) {
    out[(*n)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*n)++] = (char)(0xC0 | (cp >> 6));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out[(*n)++] = (char)(0xE0 | (cp >> 12));
    out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[(*n)++] = (char)(0xF0 | (cp >> 18));
    out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  }
}

static unsigned hex4(jp* s) {
  ck_assert_msg(s->end - s->p >= 4, "JSON: short \\u escape");
  unsigned v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = *s->p++;
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      ck_abort_msg("JSON: bad hex digit");
  }
  return v;
}

static char* jstring(jp* s) {
  ck_assert_msg(s->p < s->end && *s->p == '"', "JSON: string expected");
  s->p++;
  char* out = malloc((size_t)(s->end - s->p) + 1);
  ck_assert_ptr_nonnull(out);
  size_t n = 0;
  for (;;) {
    ck_assert_msg(s->p < s->end, "JSON: unterminated string");
    unsigned char c = (unsigned char)*s->p++;
    if (c == '"') break;
    ck_assert_msg(c >= 0x20, "JSON: raw control character 0x%02x in a string", c);
    if (c != '\\') {
      out[n++] = (char)c;
      continue;
    }
    char e = *s->p++;
    switch (e) {
      case '"': out[n++] = '"'; break;
      case '\\': out[n++] = '\\'; break;
      case '/': out[n++] = '/'; break;
      case 'b': out[n++] = '\b'; break;
      case 'f': out[n++] = '\f'; break;
      case 'n': out[n++] = '\n'; break;
      case 'r': out[n++] = '\r'; break;
      case 't': out[n++] = '\t'; break;
      case 'u': {
        unsigned cp = hex4(s);
        if (cp >= 0xD800 && cp < 0xDC00 && s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u') {
          s->p += 2;
          unsigned lo = hex4(s);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        put_utf8(out, &n, cp);
        break;
      }
      default: ck_abort_msg("JSON: bad escape \\%c", e);
    }
  }
  out[n] = 0;
  return out;
}

static void jvalue(jp* s, jv* v);

static void jpush(jv* v, jv* item, char* key) {
  if (v->n == v->cap) { /* geometric growth: files with thousands of accessors */
    v->cap = v->cap ? v->cap * 2 : 8;
    v->items = realloc(v->items, v->cap * sizeof *v->items);
    ck_assert_ptr_nonnull(v->items);
    if (v->type == J_OBJ) {
      v->keys = realloc(v->keys, v->cap * sizeof *v->keys);
      ck_assert_ptr_nonnull(v->keys);
    }
  }
  if (v->type == J_OBJ) v->keys[v->n] = key;
  v->items[v->n++] = *item;
}

static void jvalue(jp* s, jv* v) {
  memset(v, 0, sizeof *v);
  jws(s);
  ck_assert_msg(s->p < s->end, "JSON: value expected");
  char c = *s->p;
  if (c == '{' || c == '[') {
    v->type = c == '{' ? J_OBJ : J_ARR;
    s->p++;
    jws(s);
    if (*s->p == (c == '{' ? '}' : ']')) {
      s->p++;
      return;
    }
    for (;;) {
      char* key = NULL;
      jws(s);
      if (v->type == J_OBJ) {
        key = jstring(s);
        jws(s);
        ck_assert_msg(*s->p == ':', "JSON: ':' expected");
        s->p++;
      }
      jv item;
      jvalue(s, &item);
      jpush(v, &item, key);
      jws(s);
      if (*s->p == ',') {
        s->p++;
        continue;
      }
      ck_assert_msg(*s->p == (v->type == J_OBJ ? '}' : ']'), "JSON: ',' or end expected");
      s->p++;
      return;
    }
  }
  if (c == '"') {
    v->type = J_STR;
    v->str = jstring(s);
    return;
  }
  if (!strncmp(s->p, "true", 4) || !strncmp(s->p, "false", 5)) {
    v->type = J_BOOL;
    v->num = *s->p == 't';
    s->p += *s->p == 't' ? 4 : 5;
    return;
  }
  if (!strncmp(s->p, "null", 4)) {
    s->p += 4;
    return;
  }
  char* endp = NULL;
  v->type = J_NUM;
  v->num = strtod(s->p, &endp);
  ck_assert_msg(endp && endp > s->p && endp <= s->end, "JSON: number expected at \"%.20s\"", s->p);
  ck_assert_msg(isfinite(v->num), "JSON: number not finite");
  s->p = endp;
}

static void jfree(jv* v) {
  for (size_t i = 0; i < v->n; ++i) {
    jfree(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
}

static const jv* jget(const jv* o, const char* key) {
  if (!o || o->type != J_OBJ) return NULL;
  for (size_t i = 0; i < o->n; ++i)
    if (!strcmp(o->keys[i], key)) return &o->items[i];
  return NULL;
}
static const jv* jat(const jv* a, size_t i) {
  ck_assert_msg(a && a->type == J_ARR && i < a->n, "JSON: index %zu out of range", i);
  return &a->items[i];
}
static size_t jlen(const jv* a) { return a && a->type == J_ARR ? a->n : 0; }
static long jint(const jv* v) {
  ck_assert_msg(v && v->type == J_NUM && v->num == floor(v->num) && v->num >= 0, "JSON: index expected");
  return (long)v->num;
}
static long jint_or(const jv* v, long def) { return v ? jint(v) : def; }

/* ---- the file check ------------------------------------------------------------------------------------------ */
typedef struct gltf_file {
  unsigned char* raw;
  jv root;
  const unsigned char* bin;
  size_t bin_n;
  unsigned char* bin_owned;
} gltf_file;

static uint32_t rd32(const unsigned char* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void gltf_open(const char* path, gltf_file* g) {
  memset(g, 0, sizeof *g);
  size_t n = 0;
  g->raw = read_file(path, &n);
  const unsigned char* json = g->raw;
  size_t json_n = n;
  const size_t len = strlen(path);
  const int glb = len > 4 && !strcmp(path + len - 4, ".glb");
  if (glb) {
    ck_assert_msg(n >= 20 && rd32(g->raw) == 0x46546C67u, "%s: no GLB magic", path);
    ck_assert_uint_eq(rd32(g->raw + 4), 2);
    ck_assert_uint_eq(rd32(g->raw + 8), n);
    json_n = rd32(g->raw + 12);
    ck_assert_uint_eq(rd32(g->raw + 16), 0x4E4F534Au);
    ck_assert_uint_eq(json_n % 4, 0);
    ck_assert_uint_le(20 + json_n, n);
    json = g->raw + 20;
    size_t at = 20 + json_n;
    if (at < n) {
      ck_assert_uint_le(at + 8, n);
      g->bin_n = rd32(g->raw + at);
      ck_assert_uint_eq(rd32(g->raw + at + 4), 0x004E4942u);
      ck_assert_uint_eq(g->bin_n % 4, 0);
      ck_assert_uint_eq(at + 8 + g->bin_n, n); /* nothing after the BIN chunk */
      g->bin = g->raw + at + 8;
    }
  }
  jp s = {(const char*)json, (const char*)json + json_n};
  jvalue(&s, &g->root);
  jws(&s);
  ck_assert_msg(s.p == s.end, "%s: bytes after the JSON", path);
  ck_assert_int_eq(g->root.type, J_OBJ);
  const jv* buffers = jget(&g->root, "buffers");
  ck_assert_uint_eq(jlen(buffers), 1);
  const jv* b0 = jat(buffers, 0);
  const size_t byte_len = (size_t)jint(jget(b0, "byteLength"));
  const jv* uri = jget(b0, "uri");
  if (glb) {
    ck_assert_ptr_null(uri);
    ck_assert_msg(g->bin_n >= byte_len && g->bin_n - byte_len < 4, "BIN chunk %zu for byteLength %zu", g->bin_n,
                  byte_len);
  } else {
    ck_assert_msg(uri && uri->type == J_STR, "%s: buffer without uri", path);
    ck_assert_msg(!strchr(uri->str, '/') && !strchr(uri->str, ':') && !strchr(uri->str, '\\'), "uri %s not relative",
                  uri->str);
    char dec[600];
    size_t k = 0;
    for (const char* q = uri->str; *q && k + 1 < sizeof dec; ++q) {
      if (*q == '%') {
        unsigned c = 0;
        ck_assert_int_eq(sscanf(q + 1, "%2x", &c), 1);
        dec[k++] = (char)c;
        q += 2;
      } else {
        dec[k++] = *q;
      }
    }
    dec[k] = 0;
    char bp[1400];
    const char* slash = strrchr(path, '/');
    snprintf(bp, sizeof bp, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, dec);
    g->bin_owned = read_file(bp, &g->bin_n);
    g->bin = g->bin_owned;
    ck_assert_uint_eq(g->bin_n, byte_len);
  }
  g->bin_n = byte_len;
}

static void gltf_close(gltf_file* g) {
  jfree(&g->root);
  free(g->raw);
  free(g->bin_owned);
}

typedef struct acc_view {
  long ctype;
  int comps;
  size_t count, csize;
  const unsigned char* p; /* first element */
} acc_view;

static int comps_of(const char* type) {
  if (!strcmp(type, "SCALAR")) return 1;
  if (!strcmp(type, "VEC2")) return 2;
  if (!strcmp(type, "VEC3")) return 3;
  if (!strcmp(type, "VEC4")) return 4;
  if (!strcmp(type, "MAT4")) return 16;
  ck_abort_msg("accessor type %s not written by us", type);
  return 0;
}

static double acc_get(const acc_view* a, size_t i, int c) {
  const unsigned char* p = a->p + (i * (size_t)a->comps + (size_t)c) * a->csize;
  switch (a->ctype) {
    case 5121: return p[0];
    case 5123: return (double)(p[0] | p[1] << 8);
    case 5125: return (double)rd32(p);
    default: {
      float f;
      memcpy(&f, p, 4);
      return f;
    }
  }
}

/* Accessor index i, checked against its view and buffer. */
static acc_view accessor(const gltf_file* g, long i) {
  const jv* a = jat(jget(&g->root, "accessors"), (size_t)i);
  acc_view r;
  r.ctype = jint(jget(a, "componentType"));
  ck_assert_msg(r.ctype == 5121 || r.ctype == 5123 || r.ctype == 5125 || r.ctype == 5126, "componentType %ld", r.ctype);
  r.csize = r.ctype == 5121 ? 1 : r.ctype == 5123 ? 2 : 4;
  r.comps = comps_of(jget(a, "type")->str);
  r.count = (size_t)jint(jget(a, "count"));
  ck_assert_uint_ge(r.count, 1);
  const jv* view = jat(jget(&g->root, "bufferViews"), (size_t)jint(jget(a, "bufferView")));
  ck_assert_int_eq(jint(jget(view, "buffer")), 0);
  ck_assert_ptr_null(jget(view, "byteStride")); /* tightly packed: one accessor per vertex view */
  size_t vo = (size_t)jint_or(jget(view, "byteOffset"), 0), vl = (size_t)jint(jget(view, "byteLength"));
  ck_assert_uint_le(vo + vl, g->bin_n);
  size_t ao = (size_t)jint_or(jget(a, "byteOffset"), 0);
  ck_assert_msg(ao % r.csize == 0 && (vo + ao) % r.csize == 0, "accessor %ld: offset %zu+%zu not aligned to %zu", i, vo,
                ao, r.csize);
  ck_assert_uint_le(ao + r.count * (size_t)r.comps * r.csize, vl);
  r.p = g->bin + vo + ao;
  const jv* mn = jget(a, "min");
  const jv* mx = jget(a, "max");
  if (mn || mx) { /* min/max are exactly the data's */
    ck_assert_uint_eq(jlen(mn), (size_t)r.comps);
    ck_assert_uint_eq(jlen(mx), (size_t)r.comps);
    for (int c = 0; c < r.comps; ++c) {
      double lo = INFINITY, hi = -INFINITY;
      for (size_t e = 0; e < r.count; ++e) {
        double x = acc_get(&r, e, c);
        lo = fmin(lo, x);
        hi = fmax(hi, x);
      }
      ck_assert_msg((float)jat(mn, (size_t)c)->num == (float)lo && (float)jat(mx, (size_t)c)->num == (float)hi,
                    "accessor %ld min/max [%d] %g..%g, data %g..%g", i, c, jat(mn, (size_t)c)->num,
                    jat(mx, (size_t)c)->num, lo, hi);
    }
  }
  return r;
}

static acc_view attribute(const gltf_file* g, const jv* attrs, const char* name, long ctype, int comps, size_t count) {
  acc_view a = accessor(g, jint(jget(attrs, name)));
  ck_assert_msg(a.ctype == ctype || (ctype == 5121 && a.ctype == 5123), "%s: componentType %ld", name, a.ctype);
  ck_assert_msg(a.comps == comps, "%s: %d components", name, a.comps);
  ck_assert_uint_eq(a.count, count);
  ck_assert_msg((size_t)(a.p - g->bin) % 4 == 0, "%s: vertex data not 4-byte aligned", name);
  return a;
}

typedef struct gltf_facts {
  uint32_t joint_sets_max;   /* most JOINTS_n sets of a primitive */
  long joints_ctype_max;     /* widest JOINTS component type */
  uint32_t matrix_nodes, skins, animations, nodes;
} gltf_facts;

/* Everything the spec requires of what we write, from the file alone. normalized: weights sum to 1. */
static gltf_facts check_file(const char* path, int normalized) {
  gltf_file g;
  gltf_open(path, &g);
  gltf_facts f;
  memset(&f, 0, sizeof f);
  const jv* asset = jget(&g.root, "asset");
  ck_assert_str_eq(jget(asset, "version")->str, "2.0");
  const jv* nodes = jget(&g.root, "nodes");
  const jv* meshes = jget(&g.root, "meshes");
  const jv* skins = jget(&g.root, "skins");
  const size_t nn = jlen(nodes);
  f.nodes = (uint32_t)nn;
  f.skins = (uint32_t)jlen(skins);
  /* node tree: one parent each, scene roots have none, no cycles */
  long* parent = malloc((nn + 1) * sizeof *parent);
  for (size_t i = 0; i < nn; ++i) parent[i] = -1;
  for (size_t i = 0; i < nn; ++i) {
    const jv* ch = jget(jat(nodes, i), "children");
    for (size_t k = 0; k < jlen(ch); ++k) {
      long c = jint(jat(ch, k));
      ck_assert_int_lt(c, (long)nn);
      ck_assert_msg(parent[c] < 0, "node %ld has two parents", c);
      parent[c] = (long)i;
    }
    const jv* n = jat(nodes, i);
    if (jget(n, "matrix")) {
      ck_assert_msg(!jget(n, "translation") && !jget(n, "rotation") && !jget(n, "scale"), "matrix and TRS");
      ck_assert_uint_eq(jlen(jget(n, "matrix")), 16);
      f.matrix_nodes++;
    }
    if (jget(n, "rotation")) {
      const jv* r = jget(n, "rotation");
      double l = 0;
      for (size_t k = 0; k < 4; ++k) l += jat(r, k)->num * jat(r, k)->num;
      ck_assert_msg(fabs(sqrt(l) - 1.0) < 1e-6, "node %zu rotation not unit", i);
    }
  }
  for (size_t i = 0; i < nn; ++i) { /* no cycles: every chain ends */
    long p = (long)i;
    for (size_t steps = 0; p >= 0; ++steps, p = parent[p]) ck_assert_uint_le(steps, nn);
  }
  const jv* scene = jat(jget(&g.root, "scenes"), (size_t)jint(jget(&g.root, "scene")));
  for (size_t k = 0; k < jlen(jget(scene, "nodes")); ++k) ck_assert_int_lt(parent[jint(jat(jget(scene, "nodes"), k))], 0);
  /* skins: unique joints, IBM accessor, skeleton a common ancestor */
  for (size_t s = 0; s < jlen(skins); ++s) {
    const jv* sk = jat(skins, s);
    const jv* joints = jget(sk, "joints");
    ck_assert_uint_ge(jlen(joints), 1);
    for (size_t a = 0; a < jlen(joints); ++a)
      for (size_t b = a + 1; b < jlen(joints); ++b) ck_assert_int_ne(jint(jat(joints, a)), jint(jat(joints, b)));
    acc_view ibm = accessor(&g, jint(jget(sk, "inverseBindMatrices")));
    ck_assert(ibm.ctype == 5126 && ibm.comps == 16 && ibm.count >= jlen(joints));
    for (size_t k = 0; k < ibm.count; ++k) /* affine: bottom row exactly 0 0 0 1 */
      ck_assert_msg(acc_get(&ibm, k, 3) == 0.0 && acc_get(&ibm, k, 7) == 0.0 && acc_get(&ibm, k, 11) == 0.0 &&
                        acc_get(&ibm, k, 15) == 1.0,
                    "skin %zu: inverse bind %zu is not affine", s, k);
    const jv* skel = jget(sk, "skeleton");
    if (skel)
      for (size_t a = 0; a < jlen(joints); ++a) {
        long p = jint(jat(joints, a));
        while (p >= 0 && p != jint(skel)) p = parent[p];
        ck_assert_msg(p == jint(skel), "skin %zu: skeleton is no ancestor of joint %ld", s, jint(jat(joints, a)));
      }
  }
  /* meshes: attribute formats and counts, indices, joints and weights */
  for (size_t i = 0; i < nn; ++i) {
    const jv* n = jat(nodes, i);
    if (!jget(n, "mesh")) continue;
    /* a transform only on an unskinned mesh under a joint (a prop under the armature object) */
    ck_assert_msg((!jget(n, "matrix") && !jget(n, "translation") && !jget(n, "rotation") && !jget(n, "scale")) ||
                      (!jget(n, "skin") && parent[i] >= 0),
                  "mesh node with a transform");
    const jv* mesh = jat(meshes, (size_t)jint(jget(n, "mesh")));
    const jv* skin = jget(n, "skin") ? jat(skins, (size_t)jint(jget(n, "skin"))) : NULL;
    ck_assert_uint_ge(jlen(jget(mesh, "primitives")), 1); /* one per mesh of the node's object */
    for (size_t pi = 0; pi < jlen(jget(mesh, "primitives")); ++pi) {
      const jv* prim = jat(jget(mesh, "primitives"), pi);
      const jv* attrs = jget(prim, "attributes");
      acc_view pos = accessor(&g, jint(jget(attrs, "POSITION")));
      ck_assert(pos.ctype == 5126 && pos.comps == 3);
      ck_assert_ptr_nonnull(jget(jat(jget(&g.root, "accessors"), (size_t)jint(jget(attrs, "POSITION"))), "min"));
      const size_t V = pos.count;
      if (jget(attrs, "NORMAL")) attribute(&g, attrs, "NORMAL", 5126, 3, V);
      if (jget(attrs, "TANGENT")) attribute(&g, attrs, "TANGENT", 5126, 4, V);
      if (jget(attrs, "TEXCOORD_0")) attribute(&g, attrs, "TEXCOORD_0", 5126, 2, V);
      if (jget(attrs, "TEXCOORD_1")) { /* numbered without a gap */
        ck_assert_ptr_nonnull(jget(attrs, "TEXCOORD_0"));
        attribute(&g, attrs, "TEXCOORD_1", 5126, 2, V);
      }
      if (jget(attrs, "COLOR_0")) attribute(&g, attrs, "COLOR_0", 5126, 4, V);
      for (size_t k = 0; k < attrs->n; ++k) { /* nothing else */
        const char* a = attrs->keys[k];
        ck_assert_msg(!strcmp(a, "POSITION") || !strcmp(a, "NORMAL") || !strcmp(a, "TANGENT") ||
                          !strcmp(a, "TEXCOORD_0") || !strcmp(a, "TEXCOORD_1") || !strcmp(a, "COLOR_0") ||
                          !strncmp(a, "JOINTS_", 7) || !strncmp(a, "WEIGHTS_", 8),
                      "attribute %s", a);
      }
      if (jget(prim, "indices")) {
        acc_view ix = accessor(&g, jint(jget(prim, "indices")));
        ck_assert(ix.comps == 1 && (ix.ctype == 5123 || ix.ctype == 5125));
        ck_assert_int_eq(jint_or(jget(prim, "mode"), 4), 4);
        ck_assert_uint_eq(ix.count % 3, 0);
        const double restart = ix.ctype == 5123 ? 65535.0 : 4294967295.0;
        for (size_t e = 0; e < ix.count; ++e) {
          double x = acc_get(&ix, e, 0);
          ck_assert(x < (double)V && x != restart);
        }
      } else {
        ck_assert_int_eq(jint(jget(prim, "mode")), 0);
      }
      uint32_t sets = 0;
      char nm[32];
      for (;; ++sets) {
        snprintf(nm, sizeof nm, "JOINTS_%u", sets);
        int hj = jget(attrs, nm) != NULL;
        snprintf(nm, sizeof nm, "WEIGHTS_%u", sets);
        ck_assert_int_eq(hj, jget(attrs, nm) != NULL);
        if (!hj) break;
      }
      ck_assert_msg((sets > 0) == (skin != NULL), "JOINTS without skin or skin without JOINTS");
      if (sets > f.joint_sets_max) f.joint_sets_max = sets;
      if (!sets) continue;
      const size_t L = jlen(jget(skin, "joints"));
      acc_view* js = malloc(sets * sizeof *js);
      acc_view* ws = malloc(sets * sizeof *ws);
      for (uint32_t s = 0; s < sets; ++s) {
        snprintf(nm, sizeof nm, "JOINTS_%u", s);
        js[s] = attribute(&g, attrs, nm, 5121, 4, V);
        ck_assert_int_eq(js[s].ctype, L <= 256 ? 5121 : 5123);
        if (js[s].ctype > f.joints_ctype_max) f.joints_ctype_max = js[s].ctype;
        snprintf(nm, sizeof nm, "WEIGHTS_%u", s);
        ws[s] = attribute(&g, attrs, nm, 5126, 4, V);
      }
      for (size_t v = 0; v < V; ++v) {
        double sum = 0;
        long used[4096];
        size_t nu = 0;
        for (uint32_t s = 0; s < sets; ++s)
          for (int k = 0; k < 4; ++k) {
            double j = acc_get(&js[s], v, k), w = acc_get(&ws[s], v, k);
            ck_assert_msg(j < (double)L, "vertex %zu joint %g of %zu", v, j, L);
            ck_assert_msg(w >= 0.0, "vertex %zu negative weight", v);
            if (w == 0.0) {
              ck_assert_msg(j == 0.0, "vertex %zu: unused slot with joint %g", v, j);
              continue;
            }
            for (size_t u = 0; u < nu; ++u) ck_assert_msg(used[u] != (long)j, "vertex %zu: joint %g twice", v, j);
            if (nu < 4096) used[nu++] = (long)j;
            sum += w;
          }
        if (normalized && sum > 0.0) ck_assert_msg(fabs(sum - 1.0) <= 2e-6, "vertex %zu weights sum to %.9g", v, sum);
      }
      free(js);
      free(ws);
    }
  }
  /* animations */
  const jv* anims = jget(&g.root, "animations");
  f.animations = (uint32_t)jlen(anims);
  for (size_t a = 0; a < jlen(anims); ++a) {
    const jv* an = jat(anims, a);
    const jv* ch = jget(an, "channels");
    const jv* sa = jget(an, "samplers");
    ck_assert_uint_ge(jlen(ch), 1);
    ck_assert_uint_ge(jlen(sa), 1);
    for (size_t c = 0; c < jlen(ch); ++c) {
      const jv* t = jget(jat(ch, c), "target");
      long node = jint(jget(t, "node"));
      const char* p = jget(t, "path")->str;
      ck_assert_msg(!strcmp(p, "translation") || !strcmp(p, "rotation") || !strcmp(p, "scale"), "path %s", p);
      ck_assert_msg(!jget(jat(nodes, (size_t)node), "matrix"), "animated node %ld has a matrix", node);
      for (size_t d = 0; d < c; ++d) {
        const jv* t2 = jget(jat(ch, d), "target");
        ck_assert_msg(!(jint(jget(t2, "node")) == node && !strcmp(jget(t2, "path")->str, p)), "two channels on %ld/%s",
                      node, p);
      }
      const jv* smp = jat(sa, (size_t)jint(jget(jat(ch, c), "sampler")));
      ck_assert_str_eq(jget(smp, "interpolation")->str, "LINEAR");
      ck_assert_ptr_nonnull(jget(jat(jget(&g.root, "accessors"), (size_t)jint(jget(smp, "input"))), "min"));
      acc_view in = accessor(&g, jint(jget(smp, "input")));
      acc_view out = accessor(&g, jint(jget(smp, "output")));
      ck_assert(in.ctype == 5126 && in.comps == 1 && out.ctype == 5126);
      ck_assert_uint_eq(out.count, in.count);
      ck_assert_int_eq(out.comps, strcmp(p, "rotation") ? 3 : 4);
      for (size_t k = 0; k < in.count; ++k) {
        ck_assert(acc_get(&in, k, 0) >= 0.0);
        if (k) ck_assert_msg(acc_get(&in, k, 0) > acc_get(&in, k - 1, 0), "animation %zu: times not increasing", a);
        if (out.comps == 4) {
          double l = 0;
          for (int q = 0; q < 4; ++q) l += acc_get(&out, k, q) * acc_get(&out, k, q);
          ck_assert_msg(fabs(sqrt(l) - 1.0) < 1e-6, "animation %zu: rotation key %zu not unit", a, k);
        }
      }
    }
  }
  free(parent);
  gltf_close(&g);
  return f;
}

/* ---- the documented weights, from the source ---------------------------------------------------------------- */
typedef struct infl {
  uint32_t j;
  float w;
} infl;

static int by_weight(const void* a, const void* b) {
  const infl* x = a;
  const infl* y = b;
  if (x->w != y->w) return x->w > y->w ? -1 : 1;
  return (x->j > y->j) - (x->j < y->j);
}

/* The influences the header promises for vertex v of a skin under options o (joints of the source). */
static size_t expected(const skc_skin* k, size_t v, const skio_gltf_options* o, infl* out) {
  size_t n = 0;
  for (uint32_t e = k->offsets[v]; e < k->offsets[v + 1]; ++e) {
    uint32_t j = k->joints[e];
    float w = k->weights[e];
    if (j >= k->joint_count || !(w > 0.0f) || !isfinite(w)) continue;
    size_t q = 0;
    while (q < n && out[q].j != j) ++q;
    if (q < n)
      out[q].w += w;
    else
      out[n++] = (infl){j, w};
  }
  qsort(out, n, sizeof *out, by_weight);
  if (o->prune > 0.0f && n) {
    size_t keep = 0;
    while (keep < n && out[keep].w >= o->prune) ++keep;
    n = keep ? keep : 1; /* sorted: the kept ones come first; all below keeps the largest */
  }
  if (o->as_is) return n;
  size_t lim = o->limit ? o->limit : o->normalize ? n : 4;
  const bool cut = n > lim;
  if (cut) n = lim;
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += out[i].w;
  if (!o->normalize && !cut && fabs(sum - 1.0) <= 2e-7 * (double)n) return n; /* sums to 1 already: as stored */
  for (size_t i = 0; i < n; ++i) out[i].w = (float)(out[i].w / sum);
  return n;
}

/* ---- comparing a scene with what came back -------------------------------------------------------------------- */
static float diag_of(const skio_scene* s) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    for (size_t v = 0; v < s->meshes[m].vertex_count; ++v)
      for (int c = 0; c < 3; ++c) {
        lo[c] = fminf(lo[c], s->meshes[m].positions[v * 3 + c]);
        hi[c] = fmaxf(hi[c], s->meshes[m].positions[v * 3 + c]);
      }
  return sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* LBS positions of mesh m of scene s in pose (joint_count TRS of s) with influences given in source joints (map:
 * source joint -> joint of s). */
static void skin_positions(const skio_scene* s, uint32_t m, const skc_trs* pose, const uint32_t* off, const infl* inf,
                           const uint32_t* map, float* out) {
  const skc_skeleton* sk = s->skeleton;
  const uint32_t jc = sk->joint_count;
  float* loc = malloc((size_t)jc * 16 * sizeof(float));
  float* world = malloc((size_t)jc * 16 * sizeof(float));
  float* pal = malloc((size_t)jc * 16 * sizeof(float));
  ck_assert(loc && world && pal);
  for (uint32_t j = 0; j < jc; ++j) skc_trs_to_mat4(&pose[j], loc + (size_t)j * 16);
  skc_fk(sk->parents, jc, loc, NULL, world);
  skc_palette(world, s->meshes[m].inverse_bind, jc, pal);
  const skio_mesh* me = &s->meshes[m];
  for (size_t v = 0; v < me->vertex_count; ++v) {
    double acc[3] = {0, 0, 0};
    for (uint32_t e = off[v]; e < off[v + 1]; ++e) {
      float p[3];
      skc_mat4_transform_point(pal + (size_t)map[inf[e].j] * 16, me->positions + v * 3, p);
      for (int c = 0; c < 3; ++c) acc[c] += (double)inf[e].w * p[c];
    }
    for (int c = 0; c < 3; ++c) out[v * 3 + c] = (float)acc[c];
  }
  free(loc);
  free(world);
  free(pal);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

typedef struct rt_figures {
  size_t influences, poses;
  double weight_err, ibm_err, rest_err, key_time_err, pose_err; /* pose_err relative to the diagonal */
} rt_figures;

static int near_rel(const float* a, const float* b, int n, double tol, double* worst) {
  double scale = 1.0;
  for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(a[i]));
  int ok = 1;
  for (int i = 0; i < n; ++i) {
    double d = fabs((double)a[i] - b[i]) / scale;
    if (worst && d > *worst) *worst = d;
    ok &= d <= tol;
  }
  return ok;
}

/* Everything that must come back (see the file comment). a = written scene, b = read back. */
static rt_figures compare(const char* what, const skio_scene* a, const skio_scene* b, const skio_gltf_options* o) {
  rt_figures f;
  memset(&f, 0, sizeof f);
  ck_assert_msg(b->mesh_count == a->mesh_count, "%s: %u meshes back, %u written", what, b->mesh_count, a->mesh_count);
  const uint32_t ja = a->skeleton ? a->skeleton->joint_count : 0;
  uint32_t* a2b = malloc((ja + 1) * sizeof *a2b);
  for (uint32_t j = 0; j < ja; ++j) {
    int32_t k = b->skeleton ? skc_skeleton_find(b->skeleton, a->skeleton->names[j]) : -1;
    ck_assert_msg(k >= 0, "%s: joint \"%s\" lost", what, a->skeleton->names[j]);
    a2b[j] = (uint32_t)k;
    const int32_t pa = a->skeleton->parents[j], pb = b->skeleton->parents[k];
    if (pa >= 0)
      ck_assert_msg(pb >= 0 && a2b[pa] == (uint32_t)pb, "%s: joint \"%s\" has another parent", what,
                    a->skeleton->names[j]);
    ck_assert_msg(near_rel(a->skeleton->rest_local + (size_t)j * 16, b->skeleton->rest_local + (size_t)k * 16, 16, 1e-6,
                           &f.rest_err),
                  "%s: rest transform of \"%s\"", what, a->skeleton->names[j]);
  }
  uint32_t roots_a = 0; /* a skin over several roots gets one added above them ("Armature") */
  for (uint32_t j = 0; j < ja; ++j) roots_a += a->skeleton->parents[j] < 0;
  if (b->skeleton) /* nothing else but the synthetic root */
    for (uint32_t j = 0; j < b->skeleton->joint_count; ++j)
      ck_assert_msg(!a->skeleton || skc_skeleton_find(a->skeleton, b->skeleton->names[j]) >= 0 ||
                        !strcmp(b->skeleton->names[j], "skinkit_root") ||
                        (roots_a > 1 && !strcmp(b->skeleton->names[j], "Armature")),
                    "%s: extra joint \"%s\"", what, b->skeleton->names[j]);
  uint32_t** offs = calloc(a->mesh_count, sizeof *offs);
  infl** infs = calloc(a->mesh_count, sizeof *infs);
  for (uint32_t m = 0; m < a->mesh_count; ++m) {
    const skio_mesh* x = &a->meshes[m];
    const skio_mesh* y = &b->meshes[m];
    const size_t V = x->vertex_count;
    ck_assert_msg(y->vertex_count == V, "%s: mesh %u has %zu vertices back, %zu written", what, m, y->vertex_count, V);
    ck_assert_str_eq(y->name, x->name);
    /* A skinned mesh may be written in another space T (rest pose = bind pose, the skin's plain parent: see
     * io/skio_gltf.h): then positions come back T v, normals and tangents by T, inverse binds IB T^-1, with one T
     * per mesh, read off its first bound joint. Otherwise everything comes back bit for bit. */
    float t[16], ti[16];
    bool moved = false;
    for (uint32_t j = 0; x->skin && y->skin && x->bound && j < ja && !moved; ++j) {
      if (!x->bound[j]) continue;
      float xi[16];
      ck_assert(skc_mat4_inverse(x->inverse_bind + (size_t)j * 16, xi));
      skc_mat4_mul(xi, y->inverse_bind + (size_t)a2b[j] * 16, ti);
      float id4[16];
      skc_mat4_identity(id4);
      moved = skc_mat4_max_abs_diff(ti, id4) > 1e-6f;
      ck_assert(!moved || skc_mat4_inverse(ti, t));
      break;
    }
    if (!moved) {
      ck_assert_msg(!memcmp(x->positions, y->positions, V * 3 * sizeof(float)), "%s: mesh %u positions", what, m);
    } else {
      float d = diag_of(a) * 1e-5f + 1e-6f;
      for (size_t v = 0; v < V; ++v) {
        const float* p = x->positions + v * 3;
        float want[3];
        for (int r = 0; r < 3; ++r) want[r] = t[r] * p[0] + t[4 + r] * p[1] + t[8 + r] * p[2] + t[12 + r];
        float scale = 1.0f;
        for (int r = 0; r < 3; ++r) scale = fmaxf(scale, fabsf(want[r]));
        for (int r = 0; r < 3; ++r)
          ck_assert_msg(fabsf(y->positions[v * 3 + r] - want[r]) <= 1e-5f * scale + d,
                        "%s: mesh %u vertex %zu not at T v (%g vs %g)", what, m, v, y->positions[v * 3 + r], want[r]);
      }
    }
    ck_assert_int_eq(!x->normals, !y->normals);
    if (x->normals && !moved)
      ck_assert_msg(!memcmp(x->normals, y->normals, V * 3 * sizeof(float)), "%s: mesh %u normals", what, m);
    for (size_t v = 0; x->normals && moved && v < V; ++v) {
      const float* n = x->normals + v * 3;
      float q[3], l = 0.0f, nl = 0.0f;
      for (int r = 0; r < 3; ++r) q[r] = ti[r * 4 + 0] * n[0] + ti[r * 4 + 1] * n[1] + ti[r * 4 + 2] * n[2], l += q[r] * q[r];
      for (int r = 0; r < 3; ++r) nl += n[r] * n[r];
      if (!(l > 0.0f) || fabsf(nl - 1.0f) > 1e-3f) continue; /* zero or unnormalized source normal: kept as stored */
      l = 1.0f / sqrtf(l);
      for (int r = 0; r < 3; ++r)
        ck_assert_msg(fabsf(y->normals[v * 3 + r] - q[r] * l) <= 1e-5f, "%s: mesh %u normal %zu", what, m, v);
    }
    ck_assert_int_eq(!x->uv0, !y->uv0);
    for (size_t i = 0; x->uv0 && i < V * 2; ++i) {
      float want = (i & 1) ? 1.0f - (1.0f - x->uv0[i]) : x->uv0[i];
      ck_assert_msg(!memcmp(&want, &y->uv0[i], sizeof want), "%s: mesh %u uv[%zu] %.9g back as %.9g", what, m, i,
                    x->uv0[i], y->uv0[i]);
    }
    ck_assert_int_eq(!x->tangents, !y->tangents);
    if (x->tangents && !moved)
      ck_assert_msg(!memcmp(x->tangents, y->tangents, V * 4 * sizeof(float)), "%s: mesh %u tangents", what, m);
    for (size_t v = 0; x->tangents && moved && v < V; ++v) {
      const float* tg = x->tangents + v * 4;
      float q[3], l = 0.0f;
      for (int r = 0; r < 3; ++r) q[r] = t[r] * tg[0] + t[4 + r] * tg[1] + t[8 + r] * tg[2], l += q[r] * q[r];
      if (!(l > 0.0f)) continue;
      l = 1.0f / sqrtf(l);
      const float det = t[0] * (t[5] * t[10] - t[9] * t[6]) - t[4] * (t[1] * t[10] - t[9] * t[2]) +
                        t[8] * (t[1] * t[6] - t[5] * t[2]);
      for (int r = 0; r < 3; ++r)
        ck_assert_msg(fabsf(y->tangents[v * 4 + r] - q[r] * l) <= 1e-5f, "%s: mesh %u tangent %zu", what, m, v);
      ck_assert_msg(y->tangents[v * 4 + 3] == (det < 0.0f ? -tg[3] : tg[3]), "%s: mesh %u tangent sign %zu", what, m, v);
    }
    ck_assert_uint_eq(y->index_count, x->index_count);
    if (x->index_count) ck_assert(!memcmp(x->indices, y->indices, x->index_count * sizeof *x->indices));
    if (!x->skin) {
      ck_assert_ptr_null(y->skin);
      continue;
    }
    ck_assert_msg(y->skin != NULL, "%s: mesh %u came back without skin", what, m);
    /* influences: joint name -> weight, exactly */
    uint32_t* off = malloc((V + 1) * sizeof *off);
    infl* inf = malloc((skc_skin_entries(x->skin) + 1) * sizeof *inf);
    ck_assert(off && inf);
    off[0] = 0;
    for (size_t v = 0; v < V; ++v) {
      size_t n = expected(x->skin, v, o, inf + off[v]);
      off[v + 1] = off[v] + (uint32_t)n;
      const uint32_t bb = y->skin->offsets[v], be = y->skin->offsets[v + 1];
      ck_assert_msg(be - bb == n, "%s: mesh %u vertex %zu: %u influences back, %zu expected", what, m, v, be - bb, n);
      for (size_t i = 0; i < n; ++i) {
        const infl* want = &inf[off[v] + i];
        int found = 0;
        for (uint32_t e = bb; e < be && !found; ++e)
          if (y->skin->joints[e] == a2b[want->j]) {
            found = 1;
            double d = fabs((double)y->skin->weights[e] - want->w);
            if (d > f.weight_err) f.weight_err = d;
            ck_assert_msg(y->skin->weights[e] == want->w, "%s: mesh %u vertex %zu joint \"%s\": %.9g back, %.9g expected",
                          what, m, v, a->skeleton->names[want->j], y->skin->weights[e], want->w);
          }
        ck_assert_msg(found, "%s: mesh %u vertex %zu lost joint \"%s\"", what, m, v, a->skeleton->names[want->j]);
        f.influences++;
      }
    }
    offs[m] = off;
    infs[m] = inf;
    /* the mesh's own inverse binds for every joint it binds */
    for (uint32_t j = 0; j < ja; ++j) {
      if (!x->bound || !x->bound[j]) continue;
      ck_assert_msg(y->bound[a2b[j]], "%s: mesh %u no longer binds \"%s\"", what, m, a->skeleton->names[j]);
      float want[16];
      if (moved)
        skc_mat4_mul(x->inverse_bind + (size_t)j * 16, ti, want);
      else
        memcpy(want, x->inverse_bind + (size_t)j * 16, sizeof want);
      ck_assert_msg(near_rel(want, y->inverse_bind + (size_t)a2b[j] * 16, 16, 1e-5, &f.ibm_err),
                    "%s: mesh %u inverse bind of \"%s\"", what, m, a->skeleton->names[j]);
    }
  }
  /* animations: names in order, key times, poses at the keys */
  ck_assert_msg(b->anim_count == a->anim_count, "%s: %u animations back, %u written", what, b->anim_count, a->anim_count);
  skc_trs* pa = malloc((ja + 1) * sizeof *pa);
  skc_trs* pb = malloc(((b->skeleton ? b->skeleton->joint_count : 0) + 1) * sizeof *pb);
  uint32_t* id = malloc((ja + 1) * sizeof *id);
  for (uint32_t j = 0; j < ja; ++j) id[j] = j;
  /* the poses are compared in the units of the skinned rest pose (huesitos' rest is its bind pose scaled 100x) */
  float diag = diag_of(a);
  if (ja) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t j = 0; j < ja; ++j) skc_mat4_to_trs(a->skeleton->rest_local + (size_t)j * 16, &pa[j], 1e-4f);
    for (uint32_t m = 0; m < a->mesh_count; ++m) {
      if (!offs[m]) continue;
      float* x = malloc(a->meshes[m].vertex_count * 3 * sizeof(float));
      skin_positions(a, m, pa, offs[m], infs[m], id, x);
      for (size_t v = 0; v < a->meshes[m].vertex_count; ++v)
        for (int c = 0; c < 3; ++c) lo[c] = fminf(lo[c], x[v * 3 + c]), hi[c] = fmaxf(hi[c], x[v * 3 + c]);
      free(x);
    }
    float d = sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    if (d > diag) diag = d;
  }
  for (uint32_t k = 0; k < a->anim_count; ++k) {
    const skio_anim* an = &a->anims[k];
    ck_assert_str_eq(b->anims[k].name, an->name);
    ck_assert_msg(b->anims[k].duration >= an->duration - 1e-9, "%s: animation %u lasts %.9g s, written %.9g s", what, k,
                  b->anims[k].duration, an->duration);
    double times[200];
    size_t nt = 0;
    for (uint32_t c = 0; c < an->channel_count; ++c) {
      const skio_channel* ca = &an->channels[c];
      const skio_channel* cb = NULL;
      for (uint32_t d = 0; d < b->anims[k].channel_count && !cb; ++d)
        if (b->anims[k].channels[d].joint == a2b[ca->joint]) cb = &b->anims[k].channels[d];
      const double* ta[3] = {ca->pos_time, ca->rot_time, ca->scl_time};
      const uint32_t na[3] = {ca->pos_count, ca->rot_count, ca->scl_count};
      for (int p = 0; p < 3; ++p) {
        if (!na[p]) continue;
        int later = 0; /* a later channel of the joint with this path replaces it (skio_anim_sample applies all) */
        for (uint32_t d = c + 1; d < an->channel_count; ++d) {
          const skio_channel* cd = &an->channels[d];
          later |= cd->joint == ca->joint && (p == 0 ? cd->pos_count : p == 1 ? cd->rot_count : cd->scl_count) > 0;
        }
        if (later) continue;
        ck_assert_msg(cb != NULL, "%s: animation %u lost the channel of \"%s\"", what, k, a->skeleton->names[ca->joint]);
        const double* tb = p == 0 ? cb->pos_time : p == 1 ? cb->rot_time : cb->scl_time;
        const uint32_t nb = p == 0 ? cb->pos_count : p == 1 ? cb->rot_count : cb->scl_count;
        for (uint32_t i = 0; i < na[p]; ++i) {
          if (!(ta[p][i] >= 0.0)) continue; /* keys before 0 become one key at 0 */
          double best = INFINITY;
          for (uint32_t q = 0; q < nb; ++q) best = fmin(best, fabs(tb[q] - ta[p][i]));
          ck_assert_msg(best <= 1e-6 * fmax(1.0, ta[p][i]), "%s: animation %u key at %.9g s lost", what, k, ta[p][i]);
          if (best > f.key_time_err) f.key_time_err = best;
          if (nt < 200) times[nt++] = ta[p][i];
        }
      }
    }
    if (nt < 200) times[nt++] = an->duration;
    /* distinct times, at most 48 spread over the clip (4 for scenes of more than 50000 vertices: the sanitizer
     * build runs this too) */
    qsort(times, nt, sizeof *times, cmp_double);
    size_t u = 0, verts = 0;
    for (size_t i = 0; i < nt; ++i)
      if (!u || times[i] != times[u - 1]) times[u++] = times[i];
    nt = u;
    for (uint32_t m = 0; m < a->mesh_count; ++m) verts += a->meshes[m].vertex_count;
    const size_t most = verts > 50000 ? 4 : 48;
    const size_t step = nt > most ? (nt + most - 1) / most : 1;
    for (size_t t = 0; t < nt; t += step) {
      skc_err e;
      ck_assert_int_eq(skio_anim_sample(a, k, times[t], pa, &e), SKC_OK);
      ck_assert_int_eq(skio_anim_sample(b, k, times[t], pb, &e), SKC_OK);
      for (uint32_t m = 0; m < a->mesh_count; ++m) {
        if (!offs[m]) continue;
        const size_t V = a->meshes[m].vertex_count;
        float* xa = malloc(V * 3 * sizeof(float));
        float* xb = malloc(V * 3 * sizeof(float));
        skin_positions(a, m, pa, offs[m], infs[m], id, xa);
        skin_positions(b, m, pb, offs[m], infs[m], a2b, xb);
        for (size_t v = 0; v < V; ++v) {
          double d = 0;
          for (int c = 0; c < 3; ++c) d += ((double)xa[v * 3 + c] - xb[v * 3 + c]) * ((double)xa[v * 3 + c] - xb[v * 3 + c]);
          d = sqrt(d) / diag;
          if (d > f.pose_err) f.pose_err = d;
        }
        ck_assert_msg(f.pose_err <= 1e-5, "%s: animation %u \"%s\" at %.9g s: skinned positions %.3g of the diagonal apart",
                      what, k, an->name, times[t], f.pose_err);
        f.poses++;
        free(xa);
        free(xb);
      }
    }
  }
  for (uint32_t m = 0; m < a->mesh_count; ++m) {
    free(offs[m]);
    free(infs[m]);
  }
  free(offs);
  free(infs);
  free(pa);
  free(pb);
  free(id);
  free(a2b);
  return f;
}

/* Writes s as .glb and .gltf under name, checks both files and compares what Assimp reads back. */
static rt_figures round_trip(const char* name, const skio_scene* s, const skio_gltf_options* o, int normalized,
                             gltf_facts* facts) {
  rt_figures last;
  memset(&last, 0, sizeof last);
  for (int binary = 1; binary >= 0; --binary) {
    char file[300], what[400];
    snprintf(file, sizeof file, "%s.%s", name, binary ? "glb" : "gltf");
    snprintf(what, sizeof what, "%s", file);
    skc_err err = {0};
    skio_gltf_options opt = *o;
    opt.replace_bin = true;
    ck_assert_msg(skio_gltf_write(s, tmp_path(file), binary, &opt, &err) == SKC_OK, "%s: %s", file, err.message);
    gltf_facts gf = check_file(tmp_path(file), normalized);
    if (facts) *facts = gf;
    skio_scene* b = NULL;
    ck_assert_msg(skio_scene_import(tmp_path(file), NULL, &b, &err) == SKC_OK, "%s: read back: %s", file, err.message);
    last = compare(what, s, b, o);
    skio_scene_destroy(b);
  }
  return last;
}

/* ---- generated scenes --------------------------------------------------------------------------------------------- */
static void quat_axis(float x, float y, float z, float deg, float* q) {
  float ax[3] = {x, y, z};
  skc_quat_from_axis_angle(ax, deg * 3.14159265f / 180.0f, q);
}

static char* dupstr(const char* s) {
  char* d = malloc(strlen(s) + 1);
  ck_assert_ptr_nonnull(d);
  strcpy(d, s);
  return d;
}

static void add_track(double** tt, float** vv, uint32_t* n, int width, uint32_t count, const double* times,
                      const float* vals) {
  *tt = malloc(count * sizeof(double) + 8);
  *vv = malloc(count * (size_t)width * sizeof(float) + 4);
  ck_assert(*tt && *vv);
  memcpy(*tt, times, count * sizeof(double));
  memcpy(*vv, vals, count * (size_t)width * sizeof(float));
  *n = count;
}

static skio_anim* add_anims(skio_scene* s, uint32_t count) {
  s->anims = calloc(count, sizeof *s->anims);
  ck_assert_ptr_nonnull(s->anims);
  s->anim_count = count;
  return s->anims;
}

/* A cylinder of `bones` bones along +x (joints 0..bones, the last one the tip, unweighted), rest rotations about
 * z, with normals, tangents and uvs. Weights from core/primitives.c, then edited per `kind`:
 *  0: as built (sums 1, at most 2 influences);
 *  1: every 7th vertex scaled to sum 0.9, every 11th gets a repeated joint, every 13th a 0.003 weight on the tip,
 *     every 17th an exact zero and a negative entry;
 *  n >= 4: every vertex gets n distinct influences (8 and 10 test JOINTS_1 / JOINTS_2). */
/* A one-second clip `name` on s turning joint j from rotation q[0..3] at 0 s to q[4..7] at 1 s. */
static void turn_clip(skio_scene* s, const char* name, uint32_t j, const float q[8]) {
  skio_anim* a = add_anims(s, 1);
  a->name = dupstr(name);
  a->duration = 1.0;
  a->channels = calloc(1, sizeof *a->channels);
  a->channel_count = 1;
  a->channels[0].joint = j;
  const double t[2] = {0.0, 1.0};
  add_track(&a->channels[0].rot_time, &a->channels[0].rot, &a->channels[0].rot_count, 4, 2, t, q);
}

static skio_scene* cylinder_scene(uint32_t bones, int kind, const char* const* names) {
  skc_cylinder c = {0.3f, 4.0f, 0.4f, 16, 24, bones};
  size_t nv, nt;
  skc_cylinder_counts(&c, &nv, &nt);
  const uint32_t jc = bones + 1;
  float* pos = malloc(nv * 3 * sizeof(float));
  float* nrm = malloc(nv * 3 * sizeof(float));
  uint32_t* tri = malloc(nt * 3 * sizeof(uint32_t));
  skc_skin* skin = NULL;
  skc_err err = {0};
  ck_assert_int_eq(skc_skin_create(nv, jc, &skin, &err), SKC_OK);
  ck_assert_msg(skc_cylinder_build(&c, pos, nrm, tri, skin, &err) == SKC_OK, "%s", err.message);
  float* tan = malloc(nv * 4 * sizeof(float));
  float* uv = malloc(nv * 2 * sizeof(float));
  for (size_t v = 0; v < nv; ++v) {
    const int cap = fabsf(nrm[v * 3]) > 0.5f; /* perpendicular to the normal, or the sign cannot come back */
    tan[v * 4 + 0] = cap ? 0.0f : 1.0f, tan[v * 4 + 1] = cap ? 1.0f : 0.0f, tan[v * 4 + 2] = 0.0f;
    tan[v * 4 + 3] = (v % 2) ? 1.0f : -1.0f;
    uv[v * 2] = pos[v * 3] / c.length;
    uv[v * 2 + 1] = atan2f(pos[v * 3 + 2], pos[v * 3 + 1]) * 0.15915494f + 0.5f + 1e-3f * (float)(v % 5);
  }
  /* skeleton: joint k at x = k * length / bones, each rotated 5 degrees about z against its parent's frame, bind
   * = rest */
  char** nm = malloc(jc * sizeof *nm);
  int32_t* parents = malloc(jc * sizeof *parents);
  float* local = malloc((size_t)jc * 16 * sizeof(float));
  for (uint32_t j = 0; j < jc; ++j) {
    char tmp[64];
    snprintf(tmp, sizeof tmp, "bone_%u", j);
    nm[j] = dupstr(names && names[j] ? names[j] : tmp);
    parents[j] = (int32_t)j - 1;
    skc_trs t;
    skc_trs_identity(&t);
    t.t[0] = j ? c.length / (float)bones : 0.0f;
    quat_axis(0, 0, 1, j ? 5.0f : 0.0f, t.r);
    skc_trs_to_mat4(&t, local + (size_t)j * 16);
  }
  skc_skeleton_init init = {jc, (const char* const*)nm, parents, local, NULL, NULL, NULL};
  skc_skeleton* sk = NULL;
  ck_assert_msg(skc_skeleton_create(&init, &sk, &err) == SKC_OK, "%s", err.message);
  /* the mesh is built straight along x: bind it in the straight frame (inverse of the straight joint positions) */
  float* ib = malloc((size_t)jc * 16 * sizeof(float));
  for (uint32_t j = 0; j < jc; ++j) {
    skc_mat4_identity(ib + (size_t)j * 16);
    ib[(size_t)j * 16 + 12] = -c.length * (float)j / (float)bones;
  }
  if (kind) { /* rewrite the weights */
    skc_skin_builder bld;
    ck_assert_int_eq(skc_skin_builder_init(&bld, nv, nv * 12, &err), SKC_OK);
    skt_rng rng = {42};
    for (size_t v = 0; v < nv; ++v) {
      uint32_t j[16];
      float w[16];
      size_t n = 0;
      for (uint32_t e = skin->offsets[v]; e < skin->offsets[v + 1]; ++e) j[n] = skin->joints[e], w[n++] = skin->weights[e];
      if (kind == 1) {
        if (v % 7 == 0)
          for (size_t i = 0; i < n; ++i) w[i] *= 0.9f;
        if (v % 11 == 0 && n) { /* split the first influence in two entries of the same joint */
          w[0] *= 0.5f;
          j[n] = j[0], w[n++] = w[0];
        }
        if (v % 13 == 0) j[n] = bones, w[n++] = 0.003f;
        if (v % 17 == 0) {
          j[n] = (j[0] + 1) % jc, w[n++] = 0.0f;
          j[n] = (j[0] + 2) % jc, w[n++] = -0.25f;
        }
      } else {
        n = 0;
        float sum = 0.0f;
        for (uint32_t k = 0; k < (uint32_t)kind; ++k) {
          j[n] = (uint32_t)((v + k * 3) % jc);
          w[n] = 0.05f + skt_rand_float(&rng);
          sum += w[n++];
        }
        for (size_t i = 0; i < n; ++i) w[i] /= sum;
      }
      ck_assert_int_eq(skc_skin_builder_push(&bld, j, w, n), SKC_OK);
    }
    ck_assert_int_eq(skc_skin_builder_finish(&bld, skin, &err), SKC_OK);
  }
  skio_scene* s = NULL;
  ck_assert_int_eq(skio_scene_create(sk, &s, &err), SKC_OK);
  skio_mesh_init mi = {"cylinder", nv, pos, nrm, tan, uv, tri, nt * 3, skin, ib, NULL, NULL};
  ck_assert_msg(skio_scene_add_mesh(s, &mi, NULL, &err) == SKC_OK, "%s", err.message);
  skc_skin_destroy(skin);
  skc_skeleton_destroy(sk);
  for (uint32_t j = 0; j < jc; ++j) free(nm[j]);
  free(nm);
  free(parents);
  free(local);
  free(ib);
  free(pos);
  free(nrm);
  free(tri);
  free(tan);
  free(uv);
  return s;
}

static const skio_gltf_options k_as_is = {.as_is = true};
static const skio_gltf_options k_default = {.as_is = false};
static const skio_gltf_options k_normalize = {.normalize = true};

/* ---- tests --------------------------------------------------------------------------------------------------------- */
START_TEST(cylinder_weights_every_mode) {
  make_tmp();
  skio_scene* s = cylinder_scene(3, 1, NULL);
  /* as-is: sums of 0.9 and the 0.003 weights survive; repeats are added, zero/negative entries are not written */
  skio_gltf_report rep;
  skio_gltf_options o = k_as_is;
  o.report = &rep;
  rt_figures f = round_trip("asis", s, &o, 0, NULL);
  ck_assert_uint_gt(f.influences, s->meshes[0].vertex_count);
  ck_assert_double_eq(f.weight_err, 0.0);
  ck_assert_uint_gt(rep.duplicates_merged, 0);
  ck_assert_uint_gt(rep.influences_dropped, 0); /* the zero and negative entries */
  ck_assert_uint_eq(rep.orphans_listed, 0);     /* the tip carries the 0.003 weights */
  /* default: 4 largest, renormalized (every vertex sums to 1 in the file) */
  round_trip("default", s, &k_default, 1, NULL);
  round_trip("normalize", s, &k_normalize, 1, NULL);
  o = k_default;
  o.limit = 1;
  round_trip("limit1", s, &o, 1, NULL);
  o.limit = 2;
  o.prune = 0.01f;
  round_trip("prune", s, &o, 1, NULL);
  o = k_as_is;
  o.prune = 0.5f; /* many vertices keep only their largest weight */
  round_trip("asis_prune", s, &o, 0, NULL);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

START_TEST(eight_and_ten_influences) {
  make_tmp();
  for (int k = 8; k <= 10; k += 2) {
    skio_scene* s = cylinder_scene(12, k, NULL);
    gltf_facts facts;
    char name[32];
    snprintf(name, sizeof name, "infl%d", k);
    rt_figures f = round_trip(name, s, &k_as_is, 1, &facts);
    ck_assert_uint_eq(facts.joint_sets_max, (uint32_t)(k + 3) / 4); /* JOINTS_0..1 for 8, ..2 for 10 */
    ck_assert_uint_eq(f.influences, s->meshes[0].vertex_count * (size_t)k);
    snprintf(name, sizeof name, "infl%d_norm", k);
    round_trip(name, s, &k_normalize, 1, &facts);
    ck_assert_uint_eq(facts.joint_sets_max, (uint32_t)(k + 3) / 4);
    snprintf(name, sizeof name, "infl%d_def", k);
    round_trip(name, s, &k_default, 1, &facts);
    ck_assert_uint_eq(facts.joint_sets_max, 1);
    skio_scene_destroy(s);
  }
  rm_tmp();
}
END_TEST

/* Two meshes bind the same joints with different inverse binds (the second mesh sits 2 units up in its own bind
 * space); an unskinned third mesh; the tip joint is bound by nobody (listed once, comes back). */
/* Blend shapes (skio_mesh.morph_*) become morph targets: per primitive a "targets" entry per shape whose POSITION
 * (with min / max) and NORMAL offsets added to the written vertex give the shape's positions and normals, the
 * mesh's "weights" and extras.targetNames in shape order. The cylinder is written unmoved (its bind frame is the
 * world), so the offsets compare straight with the shapes. */
START_TEST(blend_shapes_are_morph_targets) {
  make_tmp();
  skio_scene* s = cylinder_scene(3, 0, NULL);
  skio_mesh* m = &s->meshes[0];
  const size_t V = m->vertex_count;
  m->morph_count = 2;
  m->morph_names = malloc(2 * sizeof *m->morph_names);
  m->morph_names[0] = dupstr("Bulge"), m->morph_names[1] = dupstr("Shift \"up\"");
  m->morph_weights = malloc(2 * sizeof(float));
  m->morph_weights[0] = 0.25f, m->morph_weights[1] = 0.0f;
  m->morph_positions = malloc(2 * V * 3 * sizeof(float));
  m->morph_normals = malloc(2 * V * 3 * sizeof(float));
  for (size_t v = 0; v < V; ++v)
    for (int k = 0; k < 3; ++k) {
      const float p = m->positions[v * 3 + k], n = m->normals[v * 3 + k];
      m->morph_positions[v * 3 + k] = p + (v % 3 == 0 ? 0.1f * n : 0.0f); /* every third vertex out along its normal */
      m->morph_positions[(V + v) * 3 + k] = p + (k == 1 ? 0.05f : 0.0f);  /* everything up */
      m->morph_normals[v * 3 + k] = n;
      m->morph_normals[(V + v) * 3 + k] = k == 0 ? n * 0.6f : k == 1 ? n * 0.8f : n; /* a change to see */
    }
  skc_err err = {0};
  ck_assert_msg(skio_gltf_write(s, tmp_path("shapes.glb"), 1, &k_default, &err) == SKC_OK, "%s", err.message);
  gltf_file g;
  gltf_open(tmp_path("shapes.glb"), &g);
  const jv* mesh = jat(jget(&g.root, "meshes"), 0);
  const jv* names = jget(jget(mesh, "extras"), "targetNames");
  ck_assert_uint_eq(jlen(names), 2);
  ck_assert_str_eq(jat(names, 0)->str, "Bulge");
  ck_assert_str_eq(jat(names, 1)->str, "Shift \"up\"");
  ck_assert_uint_eq(jlen(jget(mesh, "weights")), 2);
  ck_assert_double_eq(jat(jget(mesh, "weights"), 0)->num, 0.25);
  ck_assert_double_eq(jat(jget(mesh, "weights"), 1)->num, 0.0);
  const jv* prim = jat(jget(mesh, "primitives"), 0);
  const jv* targets = jget(prim, "targets");
  ck_assert_uint_eq(jlen(targets), 2);
  acc_view base = attribute(&g, jget(prim, "attributes"), "POSITION", 5126, 3, V);
  acc_view bn = attribute(&g, jget(prim, "attributes"), "NORMAL", 5126, 3, V);
  for (size_t v = 0; v < V; ++v)
    for (int k = 0; k < 3; ++k) ck_assert_float_eq((float)acc_get(&base, v, k), m->positions[v * 3 + k]); /* unmoved */
  for (uint32_t t = 0; t < 2; ++t) {
    const jv* tj = jat(targets, t);
    ck_assert_ptr_nonnull(jget(jat(jget(&g.root, "accessors"), (size_t)jint(jget(tj, "POSITION"))), "min"));
    acc_view dp = attribute(&g, tj, "POSITION", 5126, 3, V); /* also checks min / max against the data */
    acc_view dn = attribute(&g, tj, "NORMAL", 5126, 3, V);
    for (size_t v = 0; v < V; ++v)
      for (int k = 0; k < 3; ++k) {
        ck_assert_float_eq_tol((float)(acc_get(&base, v, k) + acc_get(&dp, v, k)),
                               m->morph_positions[((size_t)t * V + v) * 3 + k], 1e-6f);
        ck_assert_float_eq_tol((float)(acc_get(&bn, v, k) + acc_get(&dn, v, k)),
                               m->morph_normals[((size_t)t * V + v) * 3 + k], 1e-6f);
      }
  }
  gltf_close(&g);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* Blender's FBX with a shape key: Assimp's anim mesh is read as a blend shape (whole positions), named, at weight 0
 * (the channel's full-deform point is not its value), moving only the calf. */
START_TEST(fbx_shape_key_is_read) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(skt_data("shape_key_leg.fbx"), NULL, &s, &err) == SKC_OK, "%s",
                err.message);
  ck_assert_uint_eq(s->mesh_count, 1);
  const skio_mesh* m = &s->meshes[0];
  ck_assert_uint_eq(m->morph_count, 1);
  ck_assert_str_eq(m->morph_names[0], "Bulge");
  ck_assert_float_eq(m->morph_weights[0], 0.0f);
  ck_assert_ptr_nonnull(m->morph_normals);
  size_t moved = 0;
  double most = 0.0;
  for (size_t v = 0; v < m->vertex_count; ++v) {
    double d = 0.0;
    for (int k = 0; k < 3; ++k) d += fabs((double)m->morph_positions[v * 3 + k] - m->positions[v * 3 + k]);
    moved += d > 1e-6;
    most = fmax(most, d);
  }
  ck_assert_uint_gt(moved, 0);
  ck_assert_uint_lt(moved, m->vertex_count / 2);
  ck_assert_double_gt(most, 1e-3);
  skio_scene_destroy(s);
}
END_TEST

/* A vertex of a skinned mesh in no deform group (tests/data/blender_tips.dae: a cylinder with envelope weights, 180
 * of its 336 vertices outside every envelope, which Blender's Armature modifier leaves under the armature object
 * "Rig") was written with weights summing to 0: the Khronos validator's ACCESSOR_WEIGHTS_NON_NORMALIZED, and an
 * engine collapses such vertices to the origin; the note called them "renormalized". Now each gets weight 1 on "Rig",
 * listed in the skin, whose inverse bind puts it where the mesh's bound joints put their vertices at rest
 * (rest_world * IB the same matrix), so it follows "Rig" and no bone, as in Blender (checked there: the glb and the
 * .dae posed and moved agree within 7e-4). The note says so; read back, "Rig" is not a deform joint. */
START_TEST(unweighted_vertices_follow_the_armature_node) {
  make_tmp();
  skio_scene *s = NULL, *back = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(skt_data("blender_tips.dae"), NULL, &s, &err) == SKC_OK, "%s", err.message);
  const skc_skin* a = s->meshes[0].skin;
  size_t none = 0;
  for (size_t v = 0; v < a->vertex_count; ++v) none += a->offsets[v + 1] == a->offsets[v];
  ck_assert_uint_gt(none, 100); /* 180 of the 336 Blender vertices, as Assimp splits them */
  char note[1024] = "", want[96];
  skio_export_options eo = {.overwrite = true, .note = note, .note_size = sizeof note};
  ck_assert_msg(skio_scene_export(s, tmp_path("tips.glb"), &eo, &err) == SKC_OK, "%s", err.message);
  snprintf(want, sizeof want, "%zu vertices have no weight: written with weight 1 on \"Rig\"", none);
  ck_assert_msg(strstr(note, want), "%s", note);
  ck_assert_ptr_null(strstr(note, "renormalized, as glTF"));
  ck_assert_msg(skio_scene_import(tmp_path("tips.glb"), NULL, &back, &err) == SKC_OK, "%s", err.message);
  const skio_mesh* m = &back->meshes[0];
  const skc_skeleton* sk = back->skeleton;
  const int32_t rig = skc_skeleton_find(sk, "Rig");
  ck_assert_int_ge(rig, 0);
  const float* ib = m->inverse_bind ? m->inverse_bind : sk->inverse_bind;
  size_t anchored = 0;
  float x_rig[16], x[16];
  skc_mat4_mul(sk->rest_world + (size_t)rig * 16, ib + (size_t)rig * 16, x_rig);
  for (size_t v = 0; v < m->skin->vertex_count; ++v) {
    const uint32_t b = m->skin->offsets[v], n = m->skin->offsets[v + 1] - b;
    double sum = 0.0;
    for (uint32_t e = b; e < b + n; ++e) {
      sum += m->skin->weights[e];
      const uint32_t j = m->skin->joints[e];
      skc_mat4_mul(sk->rest_world + (size_t)j * 16, ib + (size_t)j * 16, x);
      for (int k = 0; k < 16; ++k) ck_assert_float_eq_tol(x[k], x_rig[k], 1e-5f); /* one bind space */
    }
    ck_assert_msg(n >= 1 && fabs(sum - 1.0) < 1e-6, "vertex %zu: %u influences summing to %g", v, n, sum);
    anchored += n == 1 && m->skin->joints[b] == (uint32_t)rig;
  }
  ck_assert_uint_eq(anchored, none);
  /* read back, "Rig" is a joint the skin lists, held rigidly by those vertices alone: no bone for bind (rule 1's
   * wrapper exception, io/scene_deform.c), as in the source, whose skins list the 8 bones */
  uint8_t* deform = calloc(sk->joint_count, 1);
  uint32_t deforming = 0;
  ck_assert_ptr_nonnull(deform);
  ck_assert_int_eq(skio_scene_deform_joints(back, deform, &deforming, NULL, &err), SKC_OK);
  ck_assert_uint_eq(deform[rig], 0);
  ck_assert_uint_eq(deforming, 8);
  free(deform);
  skio_scene_destroy(back);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* A glTF's morph targets are read as blend shapes (Blender's glTF of tests/data/shape_key_leg.fbx: its shape key
 * "Bulge"): every glb vertex that Bulge moves is a vertex of the FBX's reading moved by the same offset, in glTF's
 * axes ((x, y, z) -> (x, z, -y) of the FBX mesh's Z-up data, and the armature's origin); written from the scene and read again, the targets come
 * back (offsets within 1e-6), normals too. Before, the reader ignored them: a glTF written as .fbx or .dae lost them
 * without a note, and one written from the scene (its skeleton changed) lost them. */
START_TEST(gltf_morph_targets_are_read) {
  make_tmp();
  skio_scene *g = NULL, *f = NULL, *back = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(skt_data("shape_key_leg.glb"), NULL, &g, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(skio_scene_import(skt_data("shape_key_leg.fbx"), NULL, &f, &err) == SKC_OK, "%s", err.message);
  const skio_mesh* m = &g->meshes[0];
  ck_assert_uint_eq(m->morph_count, 1);
  ck_assert_str_eq(m->morph_names[0], "Bulge");
  ck_assert_float_eq(m->morph_weights[0], 0.0f);
  ck_assert_ptr_nonnull(m->morph_normals);
  const skio_mesh* fm = &f->meshes[0];
  /* Blender's glTF exporter writes a skinned mesh in its armature's space, its FBX exporter in the object's: the two
   * differ by a translation, found from the boxes' lowest corners */
  float lo_g[3] = {INFINITY, INFINITY, INFINITY}, lo_f[3] = {INFINITY, INFINITY, INFINITY}, t[3];
  for (size_t v = 0; v < m->vertex_count; ++v)
    for (int k = 0; k < 3; ++k) lo_g[k] = fminf(lo_g[k], m->positions[3 * v + k]);
  for (size_t u = 0; u < fm->vertex_count; ++u) {
    const float* q = fm->positions + 3 * u;
    const float qa[3] = {q[0], q[2], -q[1]};
    for (int k = 0; k < 3; ++k) lo_f[k] = fminf(lo_f[k], qa[k]);
  }
  for (int k = 0; k < 3; ++k) t[k] = lo_g[k] - lo_f[k];
  size_t moved = 0;
  for (size_t v = 0; v < m->vertex_count; ++v) {
    const float* p = m->positions + 3 * v;
    float o[3];
    for (int k = 0; k < 3; ++k) o[k] = m->morph_positions[3 * v + k] - p[k];
    if (fabsf(o[0]) + fabsf(o[1]) + fabsf(o[2]) <= 1e-6f) continue;
    ++moved;
    bool found = false;
    for (size_t u = 0; u < fm->vertex_count && !found; ++u) {
      const float* q = fm->positions + 3 * u;
      const float* qm = fm->morph_positions + 3 * u;
      const float qa[3] = {q[0] + t[0], q[2] + t[1], -q[1] + t[2]};
      const float oa[3] = {qm[0] - q[0], qm[2] - q[2], -(qm[1] - q[1])};
      found = fabsf(qa[0] - p[0]) + fabsf(qa[1] - p[1]) + fabsf(qa[2] - p[2]) < 1e-5f &&
              fabsf(oa[0] - o[0]) + fabsf(oa[1] - o[1]) + fabsf(oa[2] - o[2]) < 1e-5f;
    }
    ck_assert_msg(found, "glb vertex %zu: its Bulge offset is no FBX vertex's", v);
  }
  ck_assert_uint_gt(moved, 10);
  char out[512];
  snprintf(out, sizeof out, "%s/morphs.glb", g_tmp);
  ck_assert_msg(skio_gltf_write(g, out, 1, NULL, &err) == SKC_OK, "%s", err.message);
  ck_assert_msg(skio_scene_import(out, NULL, &back, &err) == SKC_OK, "%s", err.message);
  const skio_mesh* b = &back->meshes[0];
  ck_assert_uint_eq(b->morph_count, 1);
  ck_assert_str_eq(b->morph_names[0], "Bulge");
  ck_assert_uint_eq(b->vertex_count, m->vertex_count);
  ck_assert_ptr_nonnull(b->morph_normals);
  for (size_t i = 0; i < 3 * m->vertex_count; ++i) {
    ck_assert_float_eq_tol(b->morph_positions[i] - b->positions[i], m->morph_positions[i] - m->positions[i], 1e-6f);
    ck_assert_float_eq_tol(b->morph_normals[i] - b->normals[i], m->morph_normals[i] - m->normals[i], 1e-6f);
  }
  skio_scene_destroy(back);
  skio_scene_destroy(f);
  skio_scene_destroy(g);
  rm_tmp();
}
END_TEST

START_TEST(meshes_keep_their_own_inverse_binds) {
  make_tmp();
  skio_scene* s = cylinder_scene(3, 0, NULL);
  skio_mesh* m0 = &s->meshes[0];
  const uint32_t jc = s->skeleton->joint_count;
  float* pos = malloc(m0->vertex_count * 3 * sizeof(float));
  for (size_t i = 0; i < m0->vertex_count * 3; ++i) pos[i] = m0->positions[i] + (i % 3 == 1 ? 2.0f : 0.0f);
  float* ib = malloc((size_t)jc * 16 * sizeof(float));
  memcpy(ib, m0->inverse_bind, (size_t)jc * 16 * sizeof(float));
  for (uint32_t j = 0; j < jc; ++j) ib[(size_t)j * 16 + 13] -= 2.0f; /* IB' = IB * T(0, -2, 0) */
  skio_mesh_init mi = {"cylinder_up", m0->vertex_count, pos, m0->normals, NULL, NULL, m0->indices, m0->index_count,
                       m0->skin, ib, NULL, NULL};
  skc_err err = {0};
  ck_assert_msg(skio_scene_add_mesh(s, &mi, NULL, &err) == SKC_OK, "%s", err.message);
  const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint32_t idx[3] = {0, 1, 2};
  skio_mesh_init plain = {"prop", 3, tri, NULL, NULL, NULL, idx, 3, NULL, NULL, NULL, NULL};
  ck_assert_int_eq(skio_scene_add_mesh(s, &plain, NULL, &err), SKC_OK);
  skio_anim* a = add_anims(s, 1);
  a->name = dupstr("bend");
  a->duration = 1.0;
  a->channels = calloc(1, sizeof *a->channels);
  a->channel_count = 1;
  a->channels[0].joint = 1;
  {
    const double t[3] = {0.0, 0.5, 1.0};
    float q[12];
    quat_axis(0, 0, 1, 5, q), quat_axis(0, 0, 1, 60, q + 4), quat_axis(0, 1, 0, -40, q + 8);
    add_track(&a->channels[0].rot_time, &a->channels[0].rot, &a->channels[0].rot_count, 4, 3, t, q);
  }
  skio_gltf_report rep;
  skio_gltf_options o = k_as_is;
  o.report = &rep;
  gltf_facts facts;
  rt_figures f = round_trip("two_binds", s, &o, 1, &facts);
  ck_assert_uint_eq(facts.skins, 2);
  ck_assert_uint_eq(rep.orphans_listed, 1);
  ck_assert_uint_gt(f.poses, 0);
  ck_assert_double_le(f.ibm_err, 1e-6);
  /* the prop must not be parented under an animated or moved root: here the root's rest is the identity and it is
   * not animated, so no synthetic root is written; a second round trip adds no joint either */
  skio_scene* b = NULL;
  ck_assert_int_eq(skio_scene_import(tmp_path("two_binds.glb"), NULL, &b, &err), SKC_OK);
  ck_assert_int_eq(skc_skeleton_find(b->skeleton, "skinkit_root"), -1);
  ck_assert_int_eq(skio_gltf_write(b, tmp_path("two_binds2.glb"), 1, &o, &err), SKC_OK);
  skio_scene* c = NULL;
  ck_assert_int_eq(skio_scene_import(tmp_path("two_binds2.glb"), NULL, &c, &err), SKC_OK);
  ck_assert_uint_eq(c->skeleton->joint_count, b->skeleton->joint_count);
  for (uint32_t j = 0; j < b->skeleton->joint_count; ++j)
    ck_assert_int_ge(skc_skeleton_find(c->skeleton, b->skeleton->names[j]), 0);
  skio_scene_destroy(c);
  /* the second mesh was bound in its own space (IB' = IB T(0, -2, 0), vertices 2 higher): it is written in the
   * character's one space, its top bound joint's rest times bind baked in (vertices X v, binds IB' X^-1), so its
   * binds are the first mesh's and its vertices 2 lower, the skinned positions unchanged (round_trip compares them
   * in every pose); a reader that keeps one bind per joint (Blender's glTF importer) then moves neither mesh */
  int32_t j1 = skc_skeleton_find(b->skeleton, "bone_1");
  ck_assert_float_eq_tol(b->meshes[1].inverse_bind[j1 * 16 + 13], b->meshes[0].inverse_bind[j1 * 16 + 13], 1e-5f);
  ck_assert_float_eq_tol(b->meshes[1].positions[1], pos[1] - 2.0f, 1e-5f);
  ck_assert_ptr_null(b->meshes[2].skin);
  skio_scene_destroy(b);
  free(pos);
  free(ib);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* 300 joints in a fan under one root, one mesh binding all: JOINTS as u16. */
START_TEST(more_than_256_joints) {
  make_tmp();
  const uint32_t jc = 301;
  char** nm = malloc(jc * sizeof *nm);
  int32_t* parents = malloc(jc * sizeof *parents);
  float* local = malloc((size_t)jc * 16 * sizeof(float));
  for (uint32_t j = 0; j < jc; ++j) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "j%03u", j);
    nm[j] = dupstr(tmp);
    parents[j] = j ? 0 : -1;
    skc_trs t;
    skc_trs_identity(&t);
    if (j) {
      float a = 6.2831853f * (float)j / (float)(jc - 1);
      t.t[0] = cosf(a), t.t[1] = sinf(a);
      quat_axis(0, 0, 1, (float)j * 1.2f, t.r);
    }
    skc_trs_to_mat4(&t, local + (size_t)j * 16);
  }
  skc_skeleton_init init = {jc, (const char* const*)nm, parents, local, NULL, NULL, NULL};
  skc_skeleton* sk = NULL;
  skc_err err = {0};
  ck_assert_int_eq(skc_skeleton_create(&init, &sk, &err), SKC_OK);
  const size_t V = 3 * (jc - 1);
  float* pos = malloc(V * 3 * sizeof(float));
  uint32_t* idx = malloc(V * sizeof(uint32_t));
  skc_skin* skin = NULL;
  ck_assert_int_eq(skc_skin_create(V, jc, &skin, &err), SKC_OK);
  skc_skin_builder b;
  ck_assert_int_eq(skc_skin_builder_init(&b, V, V * 2, &err), SKC_OK);
  for (size_t v = 0; v < V; ++v) {
    uint32_t j = 1 + (uint32_t)(v / 3);
    const float* w = sk->rest_world + (size_t)j * 16;
    pos[v * 3] = w[12] + 0.1f * (float)(v % 3), pos[v * 3 + 1] = w[13], pos[v * 3 + 2] = 0.05f * (float)(v % 3 == 2);
    idx[v] = (uint32_t)v;
    uint32_t jj[2] = {j, 0};
    float ww[2] = {0.75f, 0.25f};
    ck_assert_int_eq(skc_skin_builder_push(&b, jj, ww, 2), SKC_OK);
  }
  ck_assert_int_eq(skc_skin_builder_finish(&b, skin, &err), SKC_OK);
  skio_scene* s = NULL;
  ck_assert_int_eq(skio_scene_create(sk, &s, &err), SKC_OK);
  skio_mesh_init mi = {"fan", V, pos, NULL, NULL, NULL, idx, V, skin, NULL, NULL, NULL};
  ck_assert_int_eq(skio_scene_add_mesh(s, &mi, NULL, &err), SKC_OK);
  skio_anim* a = add_anims(s, 1);
  a->name = dupstr("spin");
  a->duration = 2.0;
  a->channels = calloc(2, sizeof *a->channels);
  a->channel_count = 2;
  for (int c = 0; c < 2; ++c) {
    a->channels[c].joint = c ? 299 : 0;
    const double t[2] = {0.0, 2.0};
    float q[8];
    quat_axis(0, 0, 1, 0, q), quat_axis(0, 0, 1, 90, q + 4);
    add_track(&a->channels[c].rot_time, &a->channels[c].rot, &a->channels[c].rot_count, 4, 2, t, q);
  }
  gltf_facts facts;
  round_trip("fan", s, &k_default, 1, &facts);
  ck_assert_int_eq(facts.joints_ctype_max, 5123);
  skio_scene_destroy(s);
  skc_skin_destroy(skin);
  skc_skeleton_destroy(sk);
  for (uint32_t j = 0; j < jc; ++j) free(nm[j]);
  free(nm);
  free(parents);
  free(local);
  free(pos);
  free(idx);
  rm_tmp();
}
END_TEST

/* Reads path back: clip 0's end and how many keys its channels hold (every path). */
static double clip_keys(const char* path, uint32_t* keys) {
  skio_scene* b = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &b, &err) == SKC_OK, "%s: %.400s", path, err.message);
  ck_assert_uint_eq(b->anim_count, 1);
  const skio_anim* a = &b->anims[0];
  double end = a->duration;
  *keys = 0;
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    const skio_channel* ch = &a->channels[c];
    *keys += ch->pos_count + ch->rot_count + ch->scl_count;
    if (ch->pos_count) end = fmax(end, ch->pos_time[ch->pos_count - 1]);
    if (ch->rot_count) end = fmax(end, ch->rot_time[ch->rot_count - 1]);
  }
  skio_scene_destroy(b);
  return end;
}

/* A clip whose end is a float (1.1583333 s, Fox.glb's "Run": Assimp's t * 1000.f reads it a hair short) as a glTF
 * gives it, and as FBX ticks give it back (8e-12 s later; a key 3e-12 s earlier): written as that float, with no key
 * added, so writing the file read back writes the same clip. Before, the end was rounded up a float step on every
 * write (glb -> fbx -> glb five times: 1.1583333 -> 1.1583339 s) and a key one step after the last was added. */
START_TEST(clip_end_is_a_fixpoint) {
  make_tmp();
  const float fe = 1.1583333f;
  for (int ticks = 0; ticks < 2; ++ticks) {
    skio_scene* s = cylinder_scene(2, 0, NULL);
    skio_anim* a = add_anims(s, 1);
    a->name = dupstr("run");
    a->duration = (double)fe + (ticks ? 8e-12 : 0.0);
    a->channels = calloc(2, sizeof *a->channels);
    a->channel_count = 2;
    const double tp[2] = {0.0, (double)fe + (ticks ? 8e-12 : 0.0)}, tr[2] = {0.0, (double)fe - (ticks ? 3e-12 : 0.0)};
    const float p[6] = {2, 0, 0, 2, 1, 0};
    float q[8];
    quat_axis(0, 0, 1, 0, q), quat_axis(0, 0, 1, 40, q + 4);
    a->channels[0].joint = 2;
    add_track(&a->channels[0].pos_time, &a->channels[0].pos, &a->channels[0].pos_count, 3, 2, tp, p);
    a->channels[1].joint = 1;
    add_track(&a->channels[1].rot_time, &a->channels[1].rot, &a->channels[1].rot_count, 4, 2, tr, q);
    skc_err err = {0};
    ck_assert_int_eq(skio_gltf_write(s, tmp_path("end1.glb"), 1, &k_default, &err), SKC_OK);
    uint32_t keys1 = 0, keys2 = 0;
    const double end1 = clip_keys(tmp_path("end1.glb"), &keys1);
    ck_assert_msg(end1 == (double)fe && keys1 == 4, "ticks %d: the clip ends at %.10g s (%.10g s written), %u keys (4)",
                  ticks, end1, (double)fe, keys1);
    skio_scene* b = NULL;
    ck_assert_int_eq(skio_scene_import(tmp_path("end1.glb"), NULL, &b, &err), SKC_OK);
    ck_assert_int_eq(skio_gltf_write(b, tmp_path("end2.glb"), 1, &k_default, &err), SKC_OK);
    const double end2 = clip_keys(tmp_path("end2.glb"), &keys2);
    ck_assert_msg(end2 == end1 && keys2 == keys1, "ticks %d: written again, %.10g s and %u keys", ticks, end2, keys2);
    skio_scene_destroy(b);
    skio_scene_destroy(s);
  }
  rm_tmp();
}
END_TEST

/* A joint whose rest has shear: written as "matrix" and read back exactly; when a clip animates it, as TRS. */
START_TEST(sheared_rest_is_a_matrix_node) {
  make_tmp();
  skio_scene* s = cylinder_scene(2, 0, NULL);
  float* m = s->skeleton->rest_local + 16 * 2; /* the tip: x axis leans into y */
  m[4] += 0.3f;
  m[1] += 0.1f;
  skc_trs t;
  ck_assert(!skc_mat4_to_trs(m, &t, 1e-5f));
  skio_gltf_report rep;
  skio_gltf_options o = k_default;
  o.report = &rep;
  gltf_facts facts;
  round_trip("shear", s, &o, 1, &facts);
  ck_assert_uint_eq(facts.matrix_nodes, 1);
  ck_assert_uint_eq(rep.matrix_nodes, 1);
  /* animated: TRS (the pose of an animated joint never used the shear: skio_anim_sample decomposes the rest) */
  skio_anim* a = add_anims(s, 1);
  a->name = dupstr("tip");
  a->duration = 1.0;
  a->channels = calloc(1, sizeof *a->channels);
  a->channel_count = 1;
  a->channels[0].joint = 2;
  const double tt[2] = {0.0, 1.0};
  const float p[6] = {2, 0, 0, 2, 1, 0};
  add_track(&a->channels[0].pos_time, &a->channels[0].pos, &a->channels[0].pos_count, 3, 2, tt, p);
  skc_err err = {0};
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("shear_anim.glb"), 1, &o, &err), SKC_OK);
  ck_assert_uint_eq(rep.matrix_nodes, 0);
  ck_assert_uint_eq(rep.sheared_animated, 1);
  facts = check_file(tmp_path("shear_anim.glb"), 1);
  ck_assert_uint_eq(facts.matrix_nodes, 0);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* A skin over joints under several roots (bones at the top of a Maya scene, a skeleton flattened by gltf-transform):
 * the roots go under one added node at the identity, the skin's skeleton, and nothing moves. */
START_TEST(joints_under_several_roots_get_one) {
  make_tmp();
  skio_scene* s = cylinder_scene(3, 0, NULL);
  skc_skeleton* sk = s->skeleton;
  for (uint32_t j = 0; j < sk->joint_count; ++j) { /* every joint a root, placed where it was */
    sk->parents[j] = SKC_NO_PARENT;
    memcpy(sk->rest_local + (size_t)j * 16, sk->rest_world + (size_t)j * 16, 16 * sizeof(float));
  }
  float q[8]; /* posed: the skinned positions are compared at its keys */
  quat_axis(0, 0, 1, 10, q), quat_axis(0, 1, 0, -50, q + 4);
  turn_clip(s, "bend", 2, q);
  skio_gltf_report rep;
  skio_gltf_options o = k_default;
  o.report = &rep;
  gltf_facts facts;
  rt_figures f = round_trip("roots", s, &o, 1, &facts); /* check_file: the joints of a skin under one root */
  ck_assert_uint_eq(rep.roots_gathered, 1);
  ck_assert_uint_gt(f.poses, 0);
  ck_assert_msg(f.pose_err < 1e-5, "skinned positions moved by %g of the diagonal", f.pose_err);
  gltf_file g;
  gltf_open(tmp_path("roots.glb"), &g);
  const jv* nodes = jget(&g.root, "nodes");
  const size_t last = jlen(nodes) - 1;
  const jv* top = jat(nodes, last);
  ck_assert_str_eq(jget(top, "name")->str, "Armature");
  ck_assert(!jget(top, "translation") && !jget(top, "rotation") && !jget(top, "scale") && !jget(top, "matrix"));
  ck_assert_uint_eq(jlen(jget(top, "children")), sk->joint_count);
  ck_assert_int_eq(jint(jget(jat(jget(&g.root, "skins"), 0), "skeleton")), (long)last);
  const jv* roots = jget(jat(jget(&g.root, "scenes"), 0), "nodes");
  for (size_t k = 0; k < jlen(roots); ++k) ck_assert_int_ge(jint(jat(roots, k)), (long)sk->joint_count);
  gltf_close(&g);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* An armature object above an unweighted top bone, as the addon writes Fox's "root" over "_rootJoint" (a scene built
 * from weights: nothing marks the top bone listed): the armature object stays a plain node at the top, out of the
 * skin, so Blender's glTF importer makes it the armature object again instead of a bone "root"; the unweighted bone
 * is listed (a bone in Blender), and the rotated armature object moves nothing. */
START_TEST(armature_object_above_unweighted_bone_stays_a_node) {
  make_tmp();
  const char* const names[5] = {"Armature", "_rootJoint", "hip", "spine", "tip"};
  skio_scene* s = cylinder_scene(4, 0, names);
  skc_skeleton* sk = s->skeleton;
  skc_trs t; /* the armature object turned 90 degrees about x and moved, as Blender's Y-up export writes it */
  skc_trs_identity(&t);
  quat_axis(1, 0, 0, -90.0f, t.r);
  t.t[1] = 0.5f;
  skc_trs_to_mat4(&t, sk->rest_local);
  skc_fk(sk->parents, sk->joint_count, sk->rest_local, NULL, sk->rest_world);
  skio_mesh* m = &s->meshes[0];
  for (size_t e = 0, n = skc_skin_entries(m->skin); e < n; ++e) /* the top two weigh nothing */
    if (m->skin->joints[e] < 2) m->skin->joints[e] = 2;
  m->bound[0] = m->bound[1] = 0;
  float q[8];
  quat_axis(0, 0, 1, 30, q), quat_axis(0, 1, 0, -40, q + 4);
  turn_clip(s, "bend", 3, q);
  skio_gltf_options o = k_default;
  rt_figures f = round_trip("armobj", s, &o, 1, NULL);
  ck_assert_uint_gt(f.poses, 0);
  ck_assert_msg(f.pose_err < 1e-5, "skinned positions moved by %g of the diagonal", f.pose_err);
  gltf_file g;
  gltf_open(tmp_path("armobj.glb"), &g);
  const jv* nodes = jget(&g.root, "nodes");
  const jv* joints = jget(jat(jget(&g.root, "skins"), 0), "joints");
  bool listed[5] = {false};
  for (size_t k = 0; k < jlen(joints); ++k) {
    const char* nm = jget(jat(nodes, (size_t)jint(jat(joints, k))), "name")->str;
    for (int j = 0; j < 5; ++j) listed[j] |= !strcmp(nm, names[j]);
  }
  ck_assert_msg(!listed[0], "the armature object is listed as a joint (Blender makes it a bone)");
  for (int j = 1; j < 5; ++j) ck_assert_msg(listed[j], "joint %s not listed", names[j]);
  const jv* roots = jget(jat(jget(&g.root, "scenes"), 0), "nodes");
  bool top = false;
  for (size_t k = 0; k < jlen(roots); ++k)
    top |= !strcmp(jget(jat(nodes, (size_t)jint(jat(roots, k))), "name")->str, "Armature");
  ck_assert(top);
  gltf_close(&g);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* A Collada file from Blender read through Assimp: Scene > Z_UP > Armature > bones, none of the three weighted or
 * listed by a skin. Blender's own import of such a file makes Z_UP an empty and Armature the armature object; the
 * written file keeps all three as plain nodes out of the skin (before: Scene the armature object, Z_UP and Armature
 * two extra bones in Blender), and nothing moves, also when a clip moves the armature object (Blender's FBX exporter
 * keys it in every clip). A top bone named "root" (Unreal's) under the armature object stays a joint, and so does an
 * "Armature" the file declares a bone (an FBX LimbNode, Blender's "Armature FBXNode Type: LimbNode"). */
START_TEST(armature_object_below_wrappers_stays_a_node) {
  make_tmp();
  static const struct {
    const char* names[6];
    uint32_t unweighted; /* joints 0 .. unweighted - 1 weigh nothing */
    uint32_t plain;      /* joints 0 .. plain - 1 are written as plain nodes, the rest listed */
    int animated;        /* a clip turns joint 1 */
    int limb;            /* the file declares joint 1 a bone (an FBX LimbNode: skio_scene.bone_names) */
  } cases[4] = {{{"Scene", "Z_UP", "Armature", "hip", "spine", "tip"}, 3, 3, 0, 0},
                {{"Armature", "root", "pelvis", "spine", "tip", "end"}, 2, 1, 0, 0},
                {{"Scene", "Armature", "hip", "spine", "tip", "end"}, 2, 2, 1, 0},
                {{"Scene", "Armature", "hip", "spine", "tip", "end"}, 2, 1, 1, 1}};
  for (int k = 0; k < 4; ++k) {
    skio_scene* s = cylinder_scene(5, 0, cases[k].names);
    skc_skeleton* sk = s->skeleton;
    skc_trs t; /* joint 1 turned -90 degrees about x (Z_UP's turn) and moved */
    skc_trs_identity(&t);
    quat_axis(1, 0, 0, -90.0f, t.r);
    t.t[1] = 0.5f;
    skc_trs_to_mat4(&t, sk->rest_local + 16);
    skc_fk(sk->parents, sk->joint_count, sk->rest_local, NULL, sk->rest_world);
    skio_mesh* m = &s->meshes[0];
    const uint32_t u = cases[k].unweighted;
    for (size_t e = 0, n = skc_skin_entries(m->skin); e < n; ++e)
      if (m->skin->joints[e] < u) m->skin->joints[e] = u;
    for (uint32_t j = 0; j < u; ++j) m->bound[j] = 0;
    if (cases[k].animated) {
      float q[8];
      quat_axis(0, 0, 1, 30, q), quat_axis(0, 0, 1, -20, q + 4);
      turn_clip(s, "turn", 1, q);
    }
    if (cases[k].limb) {
      s->bone_names = calloc(1, sizeof *s->bone_names);
      s->bone_names[0] = dupstr(cases[k].names[1]);
      s->bone_name_count = 1;
      s->bone_names_known = true;
    }
    skio_gltf_options o = k_default;
    rt_figures f = round_trip("wrappers", s, &o, 1, NULL);
    ck_assert_msg(f.pose_err < 1e-5, "case %d: skinned positions moved by %g of the diagonal", k, f.pose_err);
    gltf_file g;
    gltf_open(tmp_path("wrappers.glb"), &g);
    const jv* nodes = jget(&g.root, "nodes");
    const jv* joints = jget(jat(jget(&g.root, "skins"), 0), "joints");
    bool listed[6] = {false};
    for (size_t i = 0; i < jlen(joints); ++i) {
      const char* nm = jget(jat(nodes, (size_t)jint(jat(joints, i))), "name")->str;
      for (int j = 0; j < 6; ++j) listed[j] |= !strcmp(nm, cases[k].names[j]);
    }
    for (uint32_t j = 0; j < 6; ++j)
      ck_assert_msg(listed[j] == (j >= cases[k].plain), "case %d: %s %s", k, cases[k].names[j],
                    listed[j] ? "listed as a joint (a bone in Blender)" : "not listed");
    gltf_close(&g);
    skio_scene_destroy(s);
  }
  rm_tmp();
}
END_TEST

/* Clips: duplicate names, a clip named like a joint, keys that start late and end early, a clip longer than its
 * keys, a zero-length clip with single keys, a clip without channels, a key at a negative time, keys whose times
 * collide in float, two channels for one joint. */
START_TEST(every_clip_comes_back) {
  make_tmp();
  skio_scene* s = cylinder_scene(3, 0, NULL);
  skio_anim* a = add_anims(s, 7);
  const char* names[7] = {"arms_up", "arms_up", "bone_1", "arms_up", "still", "empty", "odd keys"};
  const double dur[7] = {1.0, 2.0, 1.5, 0.0, 0.0, 3.0, 2.0};
  for (int k = 0; k < 7; ++k) {
    a[k].name = dupstr(names[k]);
    a[k].duration = dur[k];
    a[k].ticks_per_second = 30.0;
    a[k].channels = calloc(2, sizeof(skio_channel));
    a[k].channel_count = k == 5 ? 0 : k == 6 ? 2 : 1;
  }
  float q[16];
  quat_axis(0, 0, 1, 10, q), quat_axis(0, 0, 1, 70, q + 4), quat_axis(1, 0, 0, -35, q + 8), quat_axis(0, 1, 0, 20, q + 12);
  {
    const double t[3] = {0.25, 0.5, 0.75};
    a[0].channels[0].joint = 1;
    add_track(&a[0].channels[0].rot_time, &a[0].channels[0].rot, &a[0].channels[0].rot_count, 4, 3, t, q);
  }
  {
    const double t[4] = {0.0, 0.4, 0.8, 1.2}; /* the clip lasts 2 s */
    a[1].channels[0].joint = 2;
    add_track(&a[1].channels[0].rot_time, &a[1].channels[0].rot, &a[1].channels[0].rot_count, 4, 4, t, q);
    const float p[12] = {1.33f, 0, 0, 1.5f, 0.2f, 0, 1.2f, -0.3f, 0.1f, 1.33f, 0, 0};
    add_track(&a[1].channels[0].pos_time, &a[1].channels[0].pos, &a[1].channels[0].pos_count, 3, 4, t, p);
  }
  {
    const double t[2] = {0.0, 1.5};
    a[2].channels[0].joint = 0;
    const float sc[6] = {1, 1, 1, 1.2f, 0.8f, 1};
    add_track(&a[2].channels[0].scl_time, &a[2].channels[0].scl, &a[2].channels[0].scl_count, 3, 2, t, sc);
  }
  for (int k = 3; k <= 4; ++k) { /* single keys at 0 */
    const double t[1] = {0.0};
    a[k].channels[0].joint = (uint32_t)k - 2;
    add_track(&a[k].channels[0].rot_time, &a[k].channels[0].rot, &a[k].channels[0].rot_count, 4, 1, t, q + 4);
  }
  {
    /* a negative time, two keys at one time (the later one holds from there on, as skio_anim_sample reads it), an
     * unnormalized quaternion; and a translation of joint 1 replaced by a later channel of the same joint */
    const double t[5] = {-0.5, 0.5, 1.0, 1.0, 2.0};
    float qq[20];
    memcpy(qq, q, sizeof q);
    quat_axis(0, 0, 1, -20, qq + 16);
    for (int i = 0; i < 4; ++i) qq[16 + i] *= 1.5f;
    const double t0[1] = {0.0};
    const float p0[3] = {1.33f, 0.5f, 0.0f}, p1[3] = {1.33f, 0.0f, 0.2f};
    a[6].channels[0].joint = 1;
    add_track(&a[6].channels[0].pos_time, &a[6].channels[0].pos, &a[6].channels[0].pos_count, 3, 1, t0, p0);
    a[6].channels[1].joint = 1;
    add_track(&a[6].channels[1].rot_time, &a[6].channels[1].rot, &a[6].channels[1].rot_count, 4, 5, t, qq);
    add_track(&a[6].channels[1].pos_time, &a[6].channels[1].pos, &a[6].channels[1].pos_count, 3, 1, t0, p1);
  }
  skio_gltf_report rep;
  skio_gltf_options o = k_default;
  o.report = &rep;
  gltf_facts facts;
  round_trip("clips", s, &o, 1, &facts);
  ck_assert_uint_eq(facts.animations, 7);
  ck_assert_uint_eq(rep.tracks_dropped, 1);
  ck_assert_uint_eq(rep.keys_dropped, 2); /* the key at -0.5 (replaced by the pose at 0) and the first key at 1 s */
  skc_err err = {0};
  skio_scene* b = NULL;
  ck_assert_int_eq(skio_scene_import(tmp_path("clips.glb"), NULL, &b, &err), SKC_OK);
  const double want_dur[7] = {0.75, 2.0, 1.5, 0.0, 0.0, 3.0, 2.0}; /* glTF: a clip ends at its last key */
  for (int k = 0; k < 7; ++k) {
    ck_assert_str_eq(b->anims[k].name, names[k]);
    ck_assert_msg(fabs(b->anims[k].duration - fmax(want_dur[k], dur[k])) <= 1e-6, "clip %d lasts %.9g", k,
                  b->anims[k].duration);
  }
  /* the pose at 0 of the clip with a key before 0 is the source's interpolated pose there */
  skc_trs* pa = malloc(s->skeleton->joint_count * sizeof *pa);
  skc_trs* pb = malloc(b->skeleton->joint_count * sizeof *pb);
  ck_assert_int_eq(skio_anim_sample(s, 6, 0.0, pa, &err), SKC_OK);
  ck_assert_int_eq(skio_anim_sample(b, 6, 0.0, pb, &err), SKC_OK);
  int32_t j1 = skc_skeleton_find(b->skeleton, "bone_1");
  for (int i = 0; i < 4; ++i) ck_assert_float_eq_tol(pa[1].r[i], pb[j1].r[i], 1e-6f);
  free(pa);
  free(pb);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* Names with quotes, backslashes, control characters and UTF-8; a byte that is not UTF-8; repeated and empty joint
 * names; a mesh named like a joint; a .gltf whose name needs percent-encoding. */
START_TEST(odd_names) {
  make_tmp();
  const char* jn[4] = {"root \"quoted\" \\back\\slash", "line\nbreak\ttab\x01", "J\xc3\xb6rg \xe9\xaa\xa8 \xf0\x9f\xa6\xb4",
                       "latin1 \xe9t\xe9"};
  skio_scene* s = cylinder_scene(3, 0, jn);
  free(s->meshes[0].name);
  s->meshes[0].name = dupstr("J\xc3\xb6rg \xe9\xaa\xa8 \xf0\x9f\xa6\xb4"); /* same as a joint: the node is renamed */
  float q[8];
  quat_axis(0, 0, 1, 0, q), quat_axis(0, 0, 1, 45, q + 4);
  turn_clip(s, "clip \"1\" \\ \xc3\xa9\n", 2, q);
  /* what comes back for the Latin-1 name: its UTF-8 spelling */
  skio_scene* want = cylinder_scene(3, 0, (const char* const[]){jn[0], jn[1], jn[2], "latin1 \xc3\xa9t\xc3\xa9"});
  free(want->meshes[0].name);
  want->meshes[0].name = dupstr(s->meshes[0].name);
  want->anims = s->anims;
  want->anim_count = s->anim_count;
  skio_gltf_report rep;
  skio_gltf_options o = k_default;
  o.report = &rep;
  o.replace_bin = true;
  skc_err err = {0};
  for (int binary = 1; binary >= 0; --binary) {
    const char* path = tmp_path(binary ? "odd \"n\" \xc3\xa9 %20.glb" : "odd \"n\" \xc3\xa9 %20.gltf");
    ck_assert_msg(skio_gltf_write(s, path, binary, &o, &err) == SKC_OK, "%s", err.message);
    ck_assert_uint_eq(rep.names_fixed, 1);
    check_file(path, 1);
    skio_scene* b = NULL;
    ck_assert_msg(skio_scene_import(path, NULL, &b, &err) == SKC_OK, "%s", err.message);
    compare(path, want, b, &o);
    skio_scene_destroy(b);
  }
  ck_assert_int_eq(access(tmp_path("odd__n_____20.bin"), F_OK), 0); /* the buffer's name needs no encoding */
  want->anims = NULL;
  want->anim_count = 0;
  skio_scene_destroy(want);
  /* repeated and empty joint names: written (and read back) as the importer names them */
  free(s->skeleton->names[1]);
  s->skeleton->names[1] = dupstr(s->skeleton->names[0]);
  free(s->skeleton->names[3]);
  s->skeleton->names[3] = dupstr("");
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("dup.glb"), 1, &o, &err), SKC_OK);
  ck_assert_uint_eq(rep.renamed_joints, 2);
  skio_scene* b = NULL;
  ck_assert_int_eq(skio_scene_import(tmp_path("dup.glb"), NULL, &b, &err), SKC_OK);
  char dup[300];
  snprintf(dup, sizeof dup, "%s#2", jn[0]);
  ck_assert_int_ge(skc_skeleton_find(b->skeleton, dup), 0);
  ck_assert_int_ge(skc_skeleton_find(b->skeleton, "joint3"), 0);
  skio_scene_destroy(b);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

START_TEST(errors_leave_nothing_behind) {
  make_tmp();
  skio_scene* s = cylinder_scene(2, 0, NULL);
  skc_err err = {0};
  /* a folder that does not exist */
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("no/such/x.glb"), 1, NULL, &err), SKC_IO);
  ck_assert_ptr_nonnull(strstr(err.message, "no/such"));
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("no/such/x.gltf"), 0, NULL, &err), SKC_IO);
  /* a folder in the way */
  ck_assert_int_eq(mkdir(tmp_path("dir.glb"), 0755), 0);
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("dir.glb"), 1, NULL, &err), SKC_IO);
  rmdir(tmp_path("dir.glb"));
  /* a folder without write permission (root may write anyway) */
  ck_assert_int_eq(mkdir(tmp_path("ro"), 0555), 0);
  if (geteuid() != 0) {
    ck_assert_int_eq(skio_gltf_write(s, tmp_path("ro/x.glb"), 1, NULL, &err), SKC_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "ro"));
  }
  chmod(tmp_path("ro"), 0755);
  rmdir(tmp_path("ro"));
  ck_assert_uint_eq(files_in_tmp(), 0);
  /* arguments */
  ck_assert_int_eq(skio_gltf_write(NULL, tmp_path("x.glb"), 1, NULL, &err), SKC_INVALID_ARGUMENT);
  ck_assert_int_eq(skio_gltf_write(s, NULL, 1, NULL, &err), SKC_INVALID_ARGUMENT);
  skio_gltf_options bad = k_as_is;
  bad.limit = 4;
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.glb"), 1, &bad, &err), SKC_INVALID_ARGUMENT);
  bad = k_default;
  bad.prune = NAN;
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.glb"), 1, &bad, &err), SKC_INVALID_ARGUMENT);
  /* a mesh without positions, non-finite positions, an index past the end */
  float* keep = s->meshes[0].positions;
  s->meshes[0].positions = NULL;
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.glb"), 1, NULL, &err), SKC_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(err.message, "no positions"));
  s->meshes[0].positions = keep;
  float old = keep[5];
  keep[5] = NAN;
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.glb"), 1, NULL, &err), SKC_INVALID_ARGUMENT);
  keep[5] = old;
  s->meshes[0].indices[4] = (uint32_t)s->meshes[0].vertex_count;
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.gltf"), 0, NULL, &err), SKC_OUT_OF_RANGE);
  s->meshes[0].indices[4] = 0;
  ck_assert_uint_eq(files_in_tmp(), 0);
  /* an existing .bin is not replaced unless asked; an existing output is replaced whole */
  FILE* f = fopen(tmp_path("x.bin"), "wb");
  fputs("someone else's", f);
  fclose(f);
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.gltf"), 0, NULL, &err), SKC_EXISTS);
  ck_assert_int_eq(access(tmp_path("x.gltf"), F_OK), -1);
  size_t n = 0;
  unsigned char* txt = read_file(tmp_path("x.bin"), &n);
  ck_assert_uint_eq(n, 14);
  free(txt);
  skio_gltf_options rb = k_default;
  rb.replace_bin = true;
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.gltf"), 0, &rb, &err), SKC_OK);
  check_file(tmp_path("x.gltf"), 1);
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.glb"), 1, NULL, &err), SKC_OK);
  ck_assert_int_eq(skio_gltf_write(s, tmp_path("x.glb"), 1, NULL, &err), SKC_OK); /* again: replaced */
  check_file(tmp_path("x.glb"), 1);
  ck_assert_uint_eq(files_in_tmp(), 3); /* x.gltf, x.bin, x.glb: no temporary left */
  /* never the scene's own source */
  skio_scene* b = NULL;
  ck_assert_int_eq(skio_scene_import(tmp_path("x.glb"), NULL, &b, &err), SKC_OK);
  ck_assert_int_eq(skio_gltf_write(b, tmp_path("x.glb"), 1, NULL, &err), SKC_EXISTS);
  skio_scene_destroy(b);
  ck_assert_int_eq(skio_scene_import(tmp_path("x.gltf"), NULL, &b, &err), SKC_OK);
  free(b->source);
  b->source = dupstr(tmp_path("x.bin")); /* as if the scene had been read from the buffer's name */
  ck_assert_int_eq(skio_gltf_write(b, tmp_path("x.gltf"), 0, &rb, &err), SKC_EXISTS);
  skio_scene_destroy(b);
  /* a scene without meshes */
  skio_scene* empty = NULL;
  ck_assert_int_eq(skio_scene_create(NULL, &empty, &err), SKC_OK);
  ck_assert_int_eq(skio_gltf_write(empty, tmp_path("e.glb"), 1, NULL, &err), SKC_INVALID_ARGUMENT);
  skio_scene_destroy(empty);
  ck_assert_uint_eq(files_in_tmp(), 3);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* Every corpus file through .glb and .gltf, as-is and with the default limit. */
static const char* const k_corpus[] = {
    "gltf/SimpleSkin.gltf", "gltf/quad_skin.glb", "gltf/Fox.glb",         "gltf/CesiumMan.glb",
    "gltf/CesiumMan_subdiv2.glb", "fbx/huesitos.fbx", "fbx/Fox_blender.fbx", "collada/CesiumMan_blender.dae",
    "x/Testwuson.X",        "b3d/character.b3d",  "md5/drone.md5mesh",    "ogre/Clonk/Graphics.mesh",
};
enum { NCORPUS = sizeof k_corpus / sizeof k_corpus[0] };

START_TEST(corpus_round_trips) {
  const char* dir = skt_assets_dir();
  if (!dir) {
    ck_assert_msg(!skt_assets_required(), "SKINKIT_ASSETS is set but not a directory");
    return;
  }
  make_tmp();
  const char* file = k_corpus[_i];
  skc_err err = {0};
  skio_scene* s = NULL;
  ck_assert_msg(skio_scene_import(skt_asset(file), NULL, &s, &err) == SKC_OK, "%s: %s", file, err.message);
  /* the poses are compared in the skinned rest pose's units (huesitos' rest is its bind pose scaled 100x) */
  rt_figures f = round_trip("asis", s, &k_as_is, 0, NULL);
  fprintf(stderr, "[gltf] %s as-is: %zu influences, weights %.2g, binds %.2g, rest %.2g, key times %.2g, %zu poses %.2g\n",
          file, f.influences, f.weight_err, f.ibm_err, f.rest_err, f.key_time_err, f.poses, f.pose_err);
  f = round_trip("default", s, &k_default, 1, NULL);
  ck_assert_double_le(f.weight_err, 0.0);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

/* Two parts of one object (an object of two materials, split per material by the addon's export and by Assimp)
 * that weight different joints - the bottom of a leg away from the top bone - under a scaled armature object: one
 * glTF mesh of two primitives in one node with one skin listing the joints of both. Each part listed only what it
 * weights, so their skins had other common ancestors and were written in other spaces: two nodes, two meshes, two
 * skins, and Blender read the object as two. */
START_TEST(object_parts_weighting_other_joints_stay_one_mesh) {
  make_tmp();
  /* an armature object scaled 1.3 along z (what the addon writes as the skeleton's first joint) over a chain */
  static const char* const names[4] = {"Rig", "b0", "b1", "b2"};
  static const int32_t parents[4] = {-1, 0, 1, 2};
  float local[64] = {0};
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) local[16 * j + 5 * i] = 1.0f;
    local[16 * j + 12] = j > 1 ? 1.0f : 0.0f;
  }
  local[10] = 1.3f;
  skc_skeleton_init init = {4, names, parents, local, NULL, NULL, NULL};
  skc_skeleton* sk = NULL;
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_int_eq(skc_skeleton_create(&init, &sk, &err), SKC_OK);
  ck_assert_int_eq(skio_scene_create(sk, &s, &err), SKC_OK);
  skc_skeleton_destroy(sk);
  static const uint32_t tri[3] = {0, 1, 2};
  for (uint32_t part = 0; part < 2; ++part) { /* part 0 on joints 0 and 1, part 1 on joints 1 and 2 */
    const float x = (float)part;
    const float pos[9] = {x, 0, 0, x + 1.0f, 0, 0, x, 1, 0};
    skc_skin* skin = NULL;
    skc_skin_builder b;
    ck_assert_int_eq(skc_skin_create(3, 4, &skin, &err), SKC_OK);
    ck_assert_int_eq(skc_skin_builder_init(&b, 3, 6, &err), SKC_OK);
    for (uint32_t v = 0; v < 3; ++v) {
      const uint32_t j[2] = {part + 1, part + 2};
      const float w[2] = {0.75f, 0.25f};
      skc_skin_builder_push(&b, j, w, 2);
    }
    ck_assert_int_eq(skc_skin_builder_finish(&b, skin, &err), SKC_OK);
    skio_mesh_init mi = {.name = part ? "Leg.bottom" : "Leg.top",
                         .vertex_count = 3,
                         .positions = pos,
                         .indices = tri,
                         .index_count = 3,
                         .skin = skin};
    uint32_t m = 0;
    ck_assert_msg(skio_scene_add_mesh(s, &mi, &m, &err) == SKC_OK, "%s", err.message);
    ck_assert_int_eq(skio_mesh_set_node(s, m, "Leg", &err), SKC_OK);
    skc_skin_destroy(skin);
  }
  ck_assert_msg(skio_gltf_write(s, tmp_path("parts.glb"), 1, NULL, &err) == SKC_OK, "%s", err.message);
  gltf_file g;
  gltf_open(tmp_path("parts.glb"), &g);
  ck_assert_uint_eq(jlen(jget(&g.root, "meshes")), 1);
  ck_assert_uint_eq(jlen(jget(jat(jget(&g.root, "meshes"), 0), "primitives")), 2);
  ck_assert_uint_eq(jlen(jget(&g.root, "skins")), 1);
  ck_assert_uint_eq(jlen(jget(jat(jget(&g.root, "skins"), 0), "joints")), 3); /* b0, b1, b2 */
  gltf_close(&g);
  skio_scene* back = NULL; /* read back as the two meshes, each weighted as written */
  ck_assert_msg(skio_scene_import(tmp_path("parts.glb"), NULL, &back, &err) == SKC_OK, "%s", err.message);
  ck_assert_uint_eq(back->mesh_count, 2);
  for (uint32_t m = 0; m < 2; ++m) {
    const skc_skin* k = back->meshes[m].skin;
    ck_assert_uint_eq(skc_skin_entries(k), 6);
    ck_assert_str_eq(back->skeleton->names[k->joints[0]], names[m + 1]);
  }
  skio_scene_destroy(back);
  skio_scene_destroy(s);
  rm_tmp();
}
END_TEST

static Suite* gltf_suite(void) {
  Suite* s = suite_create("gltf_write");
  TCase* t = tcase_create("generated");
  tcase_add_test(t, cylinder_weights_every_mode);
  tcase_add_test(t, object_parts_weighting_other_joints_stay_one_mesh);
  tcase_add_test(t, eight_and_ten_influences);
  tcase_add_test(t, blend_shapes_are_morph_targets);
  tcase_add_test(t, fbx_shape_key_is_read);
  tcase_add_test(t, gltf_morph_targets_are_read);
  tcase_add_test(t, unweighted_vertices_follow_the_armature_node);
  tcase_add_test(t, meshes_keep_their_own_inverse_binds);
  tcase_add_test(t, more_than_256_joints);
  tcase_add_test(t, sheared_rest_is_a_matrix_node);
  tcase_add_test(t, clip_end_is_a_fixpoint);
  tcase_add_test(t, joints_under_several_roots_get_one);
  tcase_add_test(t, armature_object_above_unweighted_bone_stays_a_node);
  tcase_add_test(t, armature_object_below_wrappers_stays_a_node);
  tcase_add_test(t, every_clip_comes_back);
  tcase_add_test(t, odd_names);
  tcase_add_test(t, errors_leave_nothing_behind);
  tcase_set_timeout(t, 120);
  suite_add_tcase(s, t);
  TCase* c = tcase_create("corpus");
  /* tag "corpus": tests/CMakeLists.txt runs this case as test_gltf_write_corpus (label slow, release suite only:
   * 12 corpus files x 3 modes through Assimp take minutes under the sanitizers) and the rest as test_gltf_write */
  tcase_set_tags(c, "corpus");
  tcase_add_loop_test(c, corpus_round_trips, 0, NCORPUS);
  tcase_set_timeout(c, 600);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return skt_run_suite(gltf_suite()); }
