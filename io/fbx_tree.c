/* fbx_tree.c - binary FBX record tree: parse, read properties, write back with changes (skio_fbx_tree.h). */
#include "skio_fbx_tree.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "skio_buf.h"

#define FBX_HEADER_BYTES 27
#define FBX_MAX_DEPTH 64
#define FBX_FOOTER_TAIL 144 /* after the padding: 4 zero bytes, uint32 version, 120 zero bytes, 16-byte magic */
#define FBX_MAX_ARRAY (1u << 28) /* elements; 1 GiB of int32, far past any mesh */
#define FBX_MAX_INFLATE 1040u    /* deflate's largest expansion (1032:1), with room to spare */

static const char k_magic[21] = "Kaydara FBX Binary  "; /* 20 characters + the terminating zero */

static uint32_t get_u32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_field(const skio_fbx_tree* t, size_t at) {
  uint64_t v = 0;
  for (size_t i = t->field; i-- > 0;) v = (v << 8) | t->data[at + i];
  return v;
}

static bool zeros(const uint8_t* p, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (p[i]) return false;
  return true;
}

bool skio_fbx_is_binary(const uint8_t* data, size_t size) {
  return data && size >= FBX_HEADER_BYTES && memcmp(data, k_magic, sizeof k_magic) == 0;
}

static bool is_null_at(const skio_fbx_tree* t, size_t o, size_t end) {
  return end - o >= t->hdr && zeros(t->data + o, t->hdr);
}

static uint32_t new_rec(skio_fbx_tree* t) {
  if (t->count == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 256;
    skio_fbx_rec* r = realloc(t->recs, (size_t)cap * sizeof *r);
    if (!r) return SKIO_FBX_NONE;
    t->recs = r;
    t->cap = cap;
  }
  return t->count++;
}

/* Parses the record at o (inside [o, end)) and its children; *next = its end offset; *out its index. */
static int parse_rec(skio_fbx_tree* t, size_t o, size_t end, uint32_t parent, unsigned depth, uint32_t* out,
                     size_t* next, skc_err* err) {
  if (depth > FBX_MAX_DEPTH)
    return skc_fail(err, SKC_FORMAT, "FBX: records nested deeper than %d at byte %zu", FBX_MAX_DEPTH, o);
  if (end - o < t->hdr) return skc_fail(err, SKC_FORMAT, "FBX: truncated record header at byte %zu", o);
  uint64_t e = get_field(t, o), pc = get_field(t, o + t->field), plen = get_field(t, o + 2 * t->field);
  size_t name_len = t->data[o + 3 * t->field], props = o + t->hdr + name_len;
  if (name_len == 0 || props > end || plen > end - props || e > end || e < props + plen || pc > plen)
    return skc_fail(err, SKC_FORMAT, "FBX: record at byte %zu does not fit in its parent (ends at %zu)", o, end);
  uint32_t r = new_rec(t);
  if (r == SKIO_FBX_NONE) return skc_fail(err, SKC_OUT_OF_MEMORY, "FBX: out of memory for the record tree");
  t->recs[r] = (skio_fbx_rec){o, (size_t)e, props, (size_t)plen, (uint32_t)pc, (uint32_t)name_len, parent,
                              SKIO_FBX_NONE, SKIO_FBX_NONE, false};
  uint32_t last = SKIO_FBX_NONE;
  for (size_t c = props + (size_t)plen; c < e;) {
    if (is_null_at(t, c, (size_t)e)) {
      if (c + t->hdr != e) return skc_fail(err, SKC_FORMAT, "FBX: null record inside the children at byte %zu", c);
      t->recs[r].nulled = true;
      break;
    }
    uint32_t k;
    int rc = parse_rec(t, c, (size_t)e, r, depth + 1, &k, &c, err);
    if (rc) return rc;
    if (last == SKIO_FBX_NONE)
      t->recs[r].first = k;
    else
      t->recs[last].next = k;
    last = k;
  }
  *out = r;
  *next = (size_t)e;
  return SKC_OK;
}

int skio_fbx_tree_parse(const uint8_t* data, size_t size, skio_fbx_tree* t, skc_err* err) {
  memset(t, 0, sizeof *t);
  if (!skio_fbx_is_binary(data, size))
    return skc_fail(err, SKC_FORMAT, "not a binary FBX file (no \"Kaydara FBX Binary\" header)");
  t->data = data;
  t->size = size;
  t->version = get_u32(data + 23);
  t->field = t->version >= 7500 ? 8 : 4;
  t->hdr = 3 * t->field + 1;
  t->first = SKIO_FBX_NONE;
  uint32_t last = SKIO_FBX_NONE;
  size_t c = FBX_HEADER_BYTES;
  while (c < size && !is_null_at(t, c, size)) {
    uint32_t k;
    int rc = parse_rec(t, c, size, SKIO_FBX_NONE, 0, &k, &c, err);
    if (rc) {
      skio_fbx_tree_free(t);
      return rc;
    }
    if (last == SKIO_FBX_NONE)
      t->first = k;
    else
      t->recs[last].next = k;
    last = k;
  }
  if (c >= size) {
    skio_fbx_tree_free(t);
    return skc_fail(err, SKC_FORMAT, "FBX: no null record ends the top-level list (truncated at byte %zu)", size);
  }
  t->top_null = c;
  return SKC_OK;
}

void skio_fbx_tree_free(skio_fbx_tree* t) {
  free(t->recs);
  memset(t, 0, sizeof *t);
}

bool skio_fbx_is(const skio_fbx_tree* t, uint32_t r, const char* name) {
  size_t n = strlen(name);
  return r < t->count && t->recs[r].name_len == n && memcmp(t->data + t->recs[r].at + t->hdr, name, n) == 0;
}

uint32_t skio_fbx_child(const skio_fbx_tree* t, uint32_t r, const char* name, uint32_t after) {
  uint32_t k = after != SKIO_FBX_NONE ? t->recs[after].next : (r == SKIO_FBX_NONE ? t->first : t->recs[r].first);
  while (k != SKIO_FBX_NONE && !skio_fbx_is(t, k, name)) k = t->recs[k].next;
  return k;
}

/* Size of the property at p (type byte included) within [p, end); 0 when it does not fit or is unknown. */
static size_t prop_size(const uint8_t* p, size_t avail) {
  if (avail < 1) return 0;
  size_t need;
  switch (p[0]) {
    case 'C': need = 2; break;
    case 'Y': need = 3; break;
    case 'I': case 'F': need = 5; break;
    case 'D': case 'L': need = 9; break;
    case 'S': case 'R':
      if (avail < 5) return 0;
      need = 5 + (size_t)get_u32(p + 1);
      break;
    case 'f': case 'd': case 'l': case 'i': case 'b':
      if (avail < 13) return 0;
      need = 13 + (size_t)get_u32(p + 9);
      break;
    default: return 0;
  }
  return need <= avail ? need : 0;
}

/* The property at p (s bytes: prop_size's answer) into out. */
static void prop_decode(const uint8_t* p, size_t s, skio_fbx_prop* out) {
  memset(out, 0, sizeof *out);
  out->type = (char)p[0];
  if (p[0] == 'S' || p[0] == 'R') {
    out->p = p + 5;
    out->len = s - 5;
  } else if (s >= 13 && strchr("fdlib", p[0])) {
    out->count = get_u32(p + 1);
    out->encoding = get_u32(p + 5);
    out->p = p + 13;
    out->len = s - 13;
  } else {
    out->p = p + 1;
    out->len = s - 1;
  }
}

bool skio_fbx_prop_at(const skio_fbx_tree* t, uint32_t r, uint32_t k, skio_fbx_prop* out) {
  if (r >= t->count || k >= t->recs[r].prop_count) return false;
  const uint8_t* p = t->data + t->recs[r].props;
  size_t left = t->recs[r].props_len;
  for (uint32_t i = 0; i < k; ++i) {
    size_t s = prop_size(p, left);
    if (!s) return false;
    p += s;
    left -= s;
  }
  size_t s = prop_size(p, left);
  if (!s) return false;
  prop_decode(p, s, out);
  return true;
}

bool skio_fbx_prop_next(const skio_fbx_tree* t, uint32_t r, size_t* at, skio_fbx_prop* out) {
  if (r >= t->count || *at >= t->recs[r].props_len) return false;
  const uint8_t* p = t->data + t->recs[r].props + *at;
  size_t s = prop_size(p, t->recs[r].props_len - *at);
  if (!s) return false;
  prop_decode(p, s, out);
  *at += s;
  return true;
}

bool skio_fbx_prop_i64(const skio_fbx_tree* t, uint32_t r, uint32_t k, int64_t* v) {
  skio_fbx_prop p;
  if (!skio_fbx_prop_at(t, r, k, &p)) return false;
  if (p.type == 'L') {
    uint64_t u = 0;
    for (int i = 7; i >= 0; --i) u = (u << 8) | p.p[i];
    *v = (int64_t)u;
  } else if (p.type == 'I') {
    *v = (int32_t)get_u32(p.p);
  } else if (p.type == 'Y') {
    *v = (int16_t)(uint16_t)(p.p[0] | p.p[1] << 8);
  } else {
    return false;
  }
  return true;
}

bool skio_fbx_prop_name(const skio_fbx_tree* t, uint32_t r, uint32_t k, const uint8_t** s, size_t* len) {
  skio_fbx_prop p;
  if (!skio_fbx_prop_at(t, r, k, &p) || p.type != 'S') return false;
  size_t n = 0;
  while (n + 1 < p.len && !(p.p[n] == 0 && p.p[n + 1] == 1)) ++n;
  if (n + 1 >= p.len) n = p.len;
  *s = p.p;
  *len = n;
  return true;
}

bool skio_fbx_prop_str_is(const skio_fbx_tree* t, uint32_t r, uint32_t k, const char* s) {
  skio_fbx_prop p;
  size_t n = strlen(s);
  return skio_fbx_prop_at(t, r, k, &p) && p.type == 'S' && p.len == n && memcmp(p.p, s, n) == 0;
}

/* The array's element bytes (inflated into *owned when encoded). */
static int array_bytes(const skio_fbx_prop* p, size_t elem, const uint8_t** bytes, uint8_t** owned, skc_err* err) {
  *owned = NULL;
  if (p->count > FBX_MAX_ARRAY) return skc_fail(err, SKC_FORMAT, "FBX: array of %u elements", p->count);
  size_t need = (size_t)p->count * elem;
  if (p->encoding == 0) {
    if (p->len != need) return skc_fail(err, SKC_FORMAT, "FBX: array of %u elements in %zu bytes", p->count, p->len);
    *bytes = p->p;
    return SKC_OK;
  }
  if (p->encoding != 1) return skc_fail(err, SKC_FORMAT, "FBX: array encoding %u", p->encoding);
  /* deflate expands at most 1032:1 (a 258-byte match in 2 bits): a declared size past that cannot be the data's,
   * and is refused before it is allocated (a 20-byte array declaring 2^28 doubles asked for 2 GiB) */
  if (need / FBX_MAX_INFLATE > p->len)
    return skc_fail(err, SKC_FORMAT, "FBX: a compressed array of %zu bytes cannot inflate to its %u elements", p->len,
                    p->count);
  uint8_t* buf = malloc(need ? need : 1);
  if (!buf) return skc_fail(err, SKC_OUT_OF_MEMORY, "FBX: out of memory for an array of %u elements", p->count);
  uLongf got = (uLongf)need;
  int zr = p->len > ULONG_MAX ? Z_DATA_ERROR : uncompress(buf, &got, p->p, (uLong)p->len);
  if (zr != Z_OK || got != need) {
    free(buf);
    return skc_fail(err, SKC_FORMAT, "FBX: a compressed array does not inflate to its %u elements", p->count);
  }
  *bytes = buf;
  *owned = buf;
  return SKC_OK;
}

int skio_fbx_array_bytes(const skio_fbx_prop* p, const uint8_t** bytes, uint8_t** owned, skc_err* err) {
  const size_t elem = p->type == 'b' ? 1 : p->type == 'd' || p->type == 'l' ? 8 : 4;
  *bytes = NULL;
  *owned = NULL;
  if (!strchr("fdlib", p->type) || !p->type) return skc_fail(err, SKC_FORMAT, "FBX: expected an array");
  return array_bytes(p, elem, bytes, owned, err);
}

int skio_fbx_array_f64(const skio_fbx_prop* p, double** out, skc_err* err) {
  *out = NULL;
  if (p->type != 'd' && p->type != 'f') return skc_fail(err, SKC_FORMAT, "FBX: expected a float array");
  const size_t elem = p->type == 'd' ? 8 : 4;
  const uint8_t* b = NULL;
  uint8_t* owned = NULL;
  int rc = array_bytes(p, elem, &b, &owned, err);
  if (rc || !p->count) {
    free(owned);
    return rc;
  }
  double* v = malloc((size_t)p->count * sizeof *v);
  if (!v) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "FBX: out of memory for an array of %u elements", p->count);
  for (size_t i = 0; v && i < p->count; ++i) {
    if (elem == 8) {
      memcpy(&v[i], b + 8 * i, 8); /* little-endian hosts only (x86-64) */
    } else {
      float f;
      memcpy(&f, b + 4 * i, 4);
      v[i] = f;
    }
  }
  free(owned);
  *out = v;
  return rc;
}

int skio_fbx_array_i32(const skio_fbx_prop* p, int32_t** out, skc_err* err) {
  *out = NULL;
  if (p->type != 'i') return skc_fail(err, SKC_FORMAT, "FBX: expected an int32 array");
  const uint8_t* b = NULL;
  uint8_t* owned = NULL;
  int rc = array_bytes(p, 4, &b, &owned, err);
  if (rc || !p->count) {
    free(owned);
    return rc;
  }
  int32_t* v = malloc((size_t)p->count * sizeof *v);
  if (!v)
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "FBX: out of memory for an array of %u elements", p->count);
  else
    memcpy(v, b, (size_t)p->count * 4);
  free(owned);
  *out = v;
  return rc;
}

int skio_fbx_array_min_i64(const skio_fbx_prop* p, int64_t* min, skc_err* err) {
  if (p->type != 'l') return skc_fail(err, SKC_FORMAT, "FBX: expected an int64 array");
  if (!p->count) return skc_fail(err, SKC_FORMAT, "FBX: an empty int64 array");
  const uint8_t* b = NULL;
  uint8_t* owned = NULL;
  int rc = array_bytes(p, 8, &b, &owned, err);
  for (size_t i = 0; !rc && i < p->count; ++i) {
    int64_t v;
    memcpy(&v, b + 8 * i, 8); /* little-endian hosts only (x86-64) */
    if (!i || v < *min) *min = v;
  }
  free(owned);
  return rc;
}

/* The first property of child `name` of r, or SKC_OK with *found false when there is no such child. */
static int child_prop(const skio_fbx_tree* t, uint32_t r, const char* name, skio_fbx_prop* p, bool* found,
                      skc_err* err) {
  uint32_t c = skio_fbx_child(t, r, name, SKIO_FBX_NONE);
  *found = c != SKIO_FBX_NONE;
  if (*found && !skio_fbx_prop_at(t, c, 0, p)) return skc_fail(err, SKC_FORMAT, "FBX: %s has no readable value", name);
  return SKC_OK;
}

int skio_fbx_child_f64(const skio_fbx_tree* t, uint32_t r, const char* name, double** out, size_t* n, skc_err* err) {
  skio_fbx_prop p;
  bool found;
  *out = NULL;
  *n = 0;
  int rc = child_prop(t, r, name, &p, &found, err);
  if (!rc && found && !(rc = skio_fbx_array_f64(&p, out, err))) *n = p.count;
  return rc;
}

int skio_fbx_child_i32(const skio_fbx_tree* t, uint32_t r, const char* name, int32_t** out, size_t* n, skc_err* err) {
  skio_fbx_prop p;
  bool found;
  *out = NULL;
  *n = 0;
  int rc = child_prop(t, r, name, &p, &found, err);
  if (!rc && found && !(rc = skio_fbx_array_i32(&p, out, err))) *n = p.count;
  return rc;
}

/* ---- writing ---------------------------------------------------------------------------------------------- */

typedef struct writer {
  const skio_fbx_tree* t;
  const skio_fbx_change* ch;
  skio_buf b;
} writer;

static void put_field(writer* w, uint64_t v) {
  uint8_t f[8];
  for (size_t i = 0; i < w->t->field; ++i) f[i] = (uint8_t)(v >> (8 * i));
  skio_buf_put(&w->b, f, w->t->field);
}

static void patch_field(writer* w, size_t at, uint64_t v) {
  if (w->b.oom) return;
  for (size_t i = 0; i < w->t->field; ++i) w->b.p[at + i] = (uint8_t)(v >> (8 * i));
}

static void put_zeros(writer* w, size_t n) {
  static const uint8_t z[32];
  while (n) {
    size_t k = n < sizeof z ? n : sizeof z;
    skio_buf_put(&w->b, z, k);
    n -= k;
  }
}

/* Header with a placeholder end offset; returns where the end offset goes. */
static size_t put_header(writer* w, const void* name, size_t name_len, size_t prop_count, size_t props_len) {
  size_t at = w->b.n;
  put_field(w, 0);
  put_field(w, prop_count);
  put_field(w, props_len);
  uint8_t n = (uint8_t)name_len;
  skio_buf_put(&w->b, &n, 1);
  skio_buf_put(&w->b, name, name_len);
  return at;
}

static int close_rec(writer* w, size_t at, skc_err* err) {
  if (w->t->field == 4 && w->b.n > UINT32_MAX)
    return skc_fail(err, SKC_UNSUPPORTED, "FBX: the file grows past 4 GiB, beyond 32-bit record offsets");
  patch_field(w, at, w->b.n);
  return SKC_OK;
}

static int write_new(writer* w, const skio_fbx_new* n, skc_err* err) {
  size_t len = strlen(n->name);
  if (len == 0 || len > 255) return skc_fail(err, SKC_INTERNAL, "FBX: record name of %zu bytes", len);
  size_t at = put_header(w, n->name, len, n->prop_count, n->props_len);
  skio_buf_put(&w->b, n->props, n->props_len);
  for (uint32_t k = 0; k < n->kid_count; ++k) {
    int rc = write_new(w, &n->kids[k], err);
    if (rc) return rc;
  }
  if (n->kid_count) put_zeros(w, w->t->hdr);
  return close_rec(w, at, err);
}

static int write_rec(writer* w, uint32_t r, skc_err* err) {
  const skio_fbx_tree* t = w->t;
  const skio_fbx_rec* rec = &t->recs[r];
  const skio_fbx_change* c = w->ch ? &w->ch[r] : NULL;
  if (c && c->drop) return SKC_OK;
  const bool repl = c && c->props;
  size_t at = put_header(w, t->data + rec->at + t->hdr, rec->name_len, repl ? c->prop_count : rec->prop_count,
                         repl ? c->props_len : rec->props_len);
  skio_buf_put(&w->b, repl ? c->props : t->data + rec->props, repl ? c->props_len : rec->props_len);
  bool kids = false;
  for (uint32_t k = rec->first; k != SKIO_FBX_NONE; k = t->recs[k].next) {
    int rc = write_rec(w, k, err);
    if (rc) return rc;
    kids = true;
  }
  for (uint32_t k = 0; c && k < c->add_count; ++k) {
    int rc = write_new(w, &c->add[k], err);
    if (rc) return rc;
    kids = true;
  }
  if (rec->nulled || kids) put_zeros(w, t->hdr);
  return close_rec(w, at, err);
}

int skio_fbx_tree_write(const skio_fbx_tree* t, const skio_fbx_change* changes, uint8_t** out, size_t* out_n,
                        skc_err* err) {
  writer w = {t, changes, {0}};
  skio_buf_reserve(&w.b, t->size + 4096);
  skio_buf_put(&w.b, t->data, FBX_HEADER_BYTES);
  int rc = SKC_OK;
  for (uint32_t k = t->first; k != SKIO_FBX_NONE && !rc; k = t->recs[k].next) rc = write_rec(&w, k, err);
  if (!rc) {
    put_zeros(&w, t->hdr);
    size_t c = t->top_null + t->hdr, rest = t->size - c, pad_in = 16 - ((c + 16) % 16);
    if (rest == 16 + pad_in + FBX_FOOTER_TAIL && zeros(t->data + c + 16, pad_in)) {
      skio_buf_put(&w.b, t->data + c, 16);
      put_zeros(&w, 16 - (w.b.n % 16));
      skio_buf_put(&w.b, t->data + c + 16 + pad_in, FBX_FOOTER_TAIL);
    } else {
      skio_buf_put(&w.b, t->data + c, rest);
    }
  }
  if (!rc && w.b.oom) rc = skc_fail(err, SKC_OUT_OF_MEMORY, "FBX: out of memory writing %zu bytes", w.b.n);
  if (rc) {
    free(w.b.p);
    return rc;
  }
  *out = w.b.p;
  *out_n = w.b.n;
  return SKC_OK;
}

/* ---- property builders ------------------------------------------------------------------------------------ */

static void props_put(skio_fbx_props* b, const void* d, size_t n) {
  if (b->oom) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->n + n) cap *= 2;
    uint8_t* p = realloc(b->p, cap);
    if (!p) {
      free(b->p);
      b->p = NULL;
      b->oom = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, d, n); /* an empty array's data may be NULL */
  b->n += n;
}

static void put_le(skio_fbx_props* b, uint64_t v, int bytes) {
  uint8_t x[8];
  for (int i = 0; i < bytes; ++i) x[i] = (uint8_t)(v >> (8 * i));
  props_put(b, x, (size_t)bytes);
}

void skio_fbx_put_i64(skio_fbx_props* b, int64_t v) {
  props_put(b, "L", 1);
  put_le(b, (uint64_t)v, 8);
  b->count++;
}

void skio_fbx_put_i32(skio_fbx_props* b, int32_t v) {
  props_put(b, "I", 1);
  put_le(b, (uint32_t)v, 4);
  b->count++;
}

void skio_fbx_put_f64(skio_fbx_props* b, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  props_put(b, "D", 1);
  put_le(b, bits, 8);
  b->count++;
}

void skio_fbx_put_str(skio_fbx_props* b, const void* s, size_t len) {
  props_put(b, "S", 1);
  put_le(b, len, 4);
  props_put(b, s, len);
  b->count++;
}

static void put_array(skio_fbx_props* b, char type, const void* data, size_t n, size_t elem, int deflate) {
  size_t bytes = n * elem;
  uint8_t* z = NULL;
  uLongf zn = 0;
  if (deflate && bytes >= 128 && bytes <= UINT32_MAX) {
    zn = compressBound((uLong)bytes);
    z = malloc(zn);
    if (z && compress2(z, &zn, data, (uLong)bytes, Z_DEFAULT_COMPRESSION) != Z_OK) {
      free(z);
      z = NULL;
    }
  }
  props_put(b, &type, 1);
  put_le(b, n, 4);
  put_le(b, z ? 1 : 0, 4);
  put_le(b, z ? zn : bytes, 4);
  props_put(b, z ? (const void*)z : data, z ? (size_t)zn : bytes);
  free(z);
  b->count++;
}

void skio_fbx_put_i32_array(skio_fbx_props* b, const int32_t* v, size_t n, int deflate) {
  put_array(b, 'i', v, n, 4, deflate);
}

void skio_fbx_put_f64_array(skio_fbx_props* b, const double* v, size_t n, int deflate) {
  put_array(b, 'd', v, n, 8, deflate);
}

void skio_fbx_put_i64_array(skio_fbx_props* b, const int64_t* v, size_t n, int deflate) {
  put_array(b, 'l', v, n, 8, deflate);
}

void skio_fbx_put_f32_array(skio_fbx_props* b, const float* v, size_t n, int deflate) {
  put_array(b, 'f', v, n, 4, deflate);
}

void skio_fbx_put_raw(skio_fbx_props* b, const uint8_t* bytes, size_t len, uint32_t count) {
  props_put(b, bytes, len);
  b->count += count;
}
