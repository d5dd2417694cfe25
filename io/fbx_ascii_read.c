/* fbx_ascii_read.c - ASCII FBX 7.x text as the binary FBX file it stands for (skio_fbx_tree.h: skio_fbx_from_ascii).
 *
 * The importer turns an ASCII .fbx into binary FBX first, so Assimp and every binary pass of skinkit (geometric
 * transforms, orthographic cameras, shape key values, custom properties, LimbNodes, stacks, the in-place edit) read
 * the same records whichever flavour the file is. Before session 72 an ASCII file went to Assimp's text reader alone
 * and came back with each of the misreadings those passes mend (maya_style.fbx as `--format fbxa`: 17.7 off skinned).
 *
 * Syntax (as the FBX SDK writes it and Assimp's tokenizer reads it): "; comment" to the end of a line; a record is
 * "Name:" then its properties separated by commas, then optionally "{" children "}"; the properties end at the next
 * "Name:", "{" or "}", so a list may run over lines; strings in double quotes ("&quot;" for '"'); an array is
 * "Name: *N { a: v,v,... }". Binary FBX needs a type per property, which the text does not say; the rules:
 *  - a quoted string is S; "Class::Name" becomes the binary "Name\x00\x01Class" where the binary file has that form
 *    (an object's name, SceneInfo's, a Texture's Media and TextureName); Content's strings are the base64 of one raw
 *    property (R);
 *  - a bare letter is a bool (C): T = 1, F = 0, any other letter itself (the SDK's "Shading: Y");
 *  - a number with '.', an exponent, inf or nan (also "1.#INF", "-1.#IND") or "-0" is a double (D), as is every
 *    number of the records that hold doubles (AnimationCurve's Default, DeformPercent, a camera's Position, Up and
 *    LookAt, ...);
 *  - an integer is int32 (I), except int64 (L) for the object ids (the first value of each object, a connection's
 *    two ids, Document, RootNode, PoseNode's Node), Takes' LocalTime / ReferenceTime, and any integer past int32;
 *  - a P record's values follow its type (its second string), as the FBX SDK writes them and Assimp's binary reader
 *    requires them: bool / int / enum I, KTime / ULongLong L, double / Number / vectors / colours / Lcl D;
 *  - an array's element type follows its name (Vertices, Normals, UV, Weights, matrices d; KeyValueFloat and
 *    KeyAttrDataFloat f; KeyTime l; indices i; Visibility b), else its values: d with any non-integer, l past
 *    int32, i otherwise (an integer array takes an integral double: "-0", "1.0");
 *  - KeyAttrDataFloat's integers are its floats' bit patterns, as the FBX SDK writes them ("0,0,218434821,0": the
 *    tangents' weights); a value with a '.' or an exponent is the float itself.
 * Arrays are stored uncompressed. The text does not say all: a binary int16 (Y) comes back int32 and a float scalar (F)
 * a double, which no reader of ours or Assimp's tells apart. Bounded: records nest at most 64 deep (fbx_tree.c's
 * limit), names are 1 to 255 bytes, an array says its count before its values and must hold exactly that many (at most
 * 2^28); the 32-bit record offsets of FBX 7.4 and older must hold the file. ASCII FBX 6.x (FBXVersion below 7100) is
 * refused: Assimp 5.2.5 reads 7.1 (FBX 2011) and later only, and 6.x lays out objects and connections differently. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_buf.h"
#include "skio_fbx_tree.h"

#define ASCII_MAX_DEPTH 64         /* as fbx_tree.c reads */
#define ASCII_MAX_ARRAY (1u << 28) /* elements, as fbx_tree.c reads */
#define ASCII_MIN_VERSION 7100     /* Assimp 5.2.5's FBXDocument: older files are refused */

enum { T_EOF, T_KEY, T_DATA, T_STRING, T_OPEN, T_CLOSE };

typedef struct token {
  int kind;
  const char* p; /* T_KEY: the name; T_DATA: the word; T_STRING: inside the quotes */
  size_t n;
  unsigned line;
} token;

typedef struct lexer {
  const char* s;
  const char* end;
  unsigned line;
} lexer;

typedef struct conv {
  lexer lx;
  token tok; /* the token after what has been read */
  skio_buf out;
  size_t field; /* 4 or 8 bytes per record header field */
  skc_err* err;
  const char* names[ASCII_MAX_DEPTH + 2]; /* the open records' names, [0] top level */
  size_t lens[ASCII_MAX_DEPTH + 2];
} conv;

/* ---- tokens ----------------------------------------------------------------------------------------------- */

/* Bytes that only separate tokens (skipped between them). */
static bool blank(char ch) { return ch == ' ' || ch == '\t' || ch == ',' || ch == '\r' || ch == '\f' || ch == '\v'; }

/* Bytes a word (a key's name or a value) is made of. */
static bool word_char(char ch) {
  return ch && !blank(ch) && ch != '\n' && ch != '{' && ch != '}' && ch != '"' && ch != ';' && ch != ':';
}

/* The next token: commas only separate, so they are skipped; a word that ends with ':' is a key. */
static int next_token(lexer* lx, token* t, skc_err* err) {
  const char* s = lx->s;
  for (;;) {
    while (s < lx->end && blank(*s)) ++s;
    if (s < lx->end && *s == '\n') {
      ++lx->line;
      ++s;
      continue;
    }
    if (s < lx->end && *s == ';') {
      const char* nl = memchr(s, '\n', (size_t)(lx->end - s));
      s = nl ? nl : lx->end;
      continue;
    }
    break;
  }
  *t = (token){T_EOF, s, 0, lx->line};
  if (s == lx->end) {
    lx->s = s;
    return SKC_OK;
  }
  if (*s == '{' || *s == '}') {
    t->kind = *s == '{' ? T_OPEN : T_CLOSE;
    lx->s = s + 1;
    return SKC_OK;
  }
  if (*s == '"') {
    const char* q = memchr(s + 1, '"', (size_t)(lx->end - s - 1));
    if (!q) return skc_fail(err, SKC_FORMAT, "FBX text: a string at line %u has no closing quote", lx->line);
    if (memchr(s + 1, 0, (size_t)(q - s - 1))) /* text has none; the binary form's "\0\1" is made of "::" */
      return skc_fail(err, SKC_FORMAT, "FBX text: a NUL byte in the string at line %u", lx->line);
    for (const char* c = s + 1; c < q; ++c) lx->line += *c == '\n';
    *t = (token){T_STRING, s + 1, (size_t)(q - s - 1), t->line};
    lx->s = q + 1;
    return SKC_OK;
  }
  const char* w = s;
  while (w < lx->end && word_char(*w)) ++w;
  if (w < lx->end && *w == ':') {
    if (w == s) return skc_fail(err, SKC_FORMAT, "FBX text: a ':' without a name at line %u", lx->line);
    *t = (token){T_KEY, s, (size_t)(w - s), t->line};
    lx->s = w + 1;
    return SKC_OK;
  }
  if (w == s)
    return skc_fail(err, SKC_FORMAT, "FBX text: unexpected byte 0x%02x at line %u", (unsigned char)*s, lx->line);
  *t = (token){T_DATA, s, (size_t)(w - s), t->line};
  lx->s = w;
  return SKC_OK;
}

static int advance(conv* c) { return next_token(&c->lx, &c->tok, c->err); }

static bool tok_is(const token* t, const char* s) { return strlen(s) == t->n && memcmp(t->p, s, t->n) == 0; }

static bool name_in(const char* p, size_t n, const char* const* list) {
  for (; *list; ++list)
    if (strlen(*list) == n && memcmp(*list, p, n) == 0) return true;
  return false;
}

/* ---- numbers ---------------------------------------------------------------------------------------------- */

/* A word of digits with an optional sign, but for "-0" (negative zero: a double's, as the writers print it). */
static bool is_integer(const char* p, size_t n) {
  size_t i = n && (p[0] == '-' || p[0] == '+');
  bool nonzero = false;
  if (i == n || n > 40) return false;
  for (size_t k = i; k < n; ++k) {
    if (p[k] < '0' || p[k] > '9') return false;
    nonzero |= p[k] != '0';
  }
  return nonzero || p[0] != '-';
}

/* The word as an int64 (a positive one past INT64_MAX as the uint64's bits: an id); false when out of range. */
static bool parse_i64(const char* p, size_t n, int64_t* v) {
  char buf[48];
  if (!is_integer(p, n)) return false;
  memcpy(buf, p, n);
  buf[n] = 0;
  errno = 0;
  char* e;
  if (buf[0] == '-') {
    *v = strtoll(buf, &e, 10);
  } else {
    unsigned long long u = strtoull(buf, &e, 10);
    *v = (int64_t)u;
  }
  return errno == 0 && *e == 0;
}

/* The word as a double: a decimal number, inf or nan, or the Windows CRT's "1.#INF" / "-1.#IND" / "1.#QNAN". */
static bool parse_f64(const char* p, size_t n, double* v) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, p, n);
  buf[n] = 0;
  const char* hash = strchr(buf, '#');
  if (hash) {
    const bool neg = buf[0] == '-';
    if (!strcmp(hash, "#INF"))
      *v = neg ? -INFINITY : INFINITY;
    else if (!strcmp(hash, "#IND") || !strcmp(hash, "#QNAN") || !strcmp(hash, "#SNAN"))
      *v = NAN;
    else
      return false;
    return true;
  }
  char* e;
  *v = strtod(buf, &e);
  return *e == 0 && (buf[0] == '-' || buf[0] == '+' || buf[0] == '.' || (buf[0] >= '0' && buf[0] <= '9') ||
                     buf[0] == 'i' || buf[0] == 'I' || buf[0] == 'n' || buf[0] == 'N');
}

/* The word as an integer: digits, or a double of an integral value ("-0", "1.0", "2e3"). */
static bool parse_integral(const char* p, size_t n, int64_t* v) {
  double d;
  if (parse_i64(p, n, v)) return true;
  if (!parse_f64(p, n, &d) || !(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != floor(d))
    return false;
  *v = (int64_t)d;
  return true;
}

static bool parse_f32(const char* p, size_t n, float* v) {
  char buf[64];
  double d;
  if (!parse_f64(p, n, &d)) return false;
  if (!isfinite(d) || n >= sizeof buf) {
    *v = (float)d;
    return true;
  }
  memcpy(buf, p, n); /* strtof rounds the digits once, where (float)strtod would round twice */
  buf[n] = 0;
  *v = strtof(buf, NULL);
  return true;
}

/* ---- output ----------------------------------------------------------------------------------------------- */

static void put_le(skio_buf* b, uint64_t v, size_t bytes) {
  uint8_t x[8];
  for (size_t i = 0; i < bytes; ++i) x[i] = (uint8_t)(v >> (8 * i));
  skio_buf_put(b, x, bytes);
}

static void patch_le(skio_buf* b, size_t at, uint64_t v, size_t bytes) {
  if (b->oom) return;
  for (size_t i = 0; i < bytes; ++i) b->p[at + i] = (uint8_t)(v >> (8 * i));
}

static void put_typed(skio_buf* b, char type, uint64_t bits, size_t bytes) {
  skio_buf_put(b, &type, 1);
  put_le(b, bits, bytes);
}

static void put_f64(skio_buf* b, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  put_typed(b, 'D', bits, 8);
}

/* s[0, n) with "&quot;" as '"', appended to b. */
static void put_unescaped(skio_buf* b, const char* s, size_t n) {
  size_t run = 0;
  for (size_t i = 0; i + 6 <= n; ++i) {
    if (memcmp(s + i, "&quot;", 6) != 0) continue;
    skio_buf_put(b, s + run, i - run);
    skio_buf_put(b, "\"", 1);
    run = i + 6;
    i += 5;
  }
  skio_buf_put(b, s + run, n - run);
}

/* A string property: "Class::Name" as "Name\x00\x01Class" when split (the first "::"). */
static void put_string(skio_buf* b, const token* t, bool split) {
  const char* sep = NULL;
  for (size_t i = 0; split && i + 1 < t->n && !sep; ++i)
    if (t->p[i] == ':' && t->p[i + 1] == ':') sep = t->p + i;
  skio_buf_put(b, "S", 1);
  const size_t len_at = b->n;
  put_le(b, 0, 4);
  const size_t start = b->n;
  if (sep) {
    put_unescaped(b, sep + 2, (size_t)(t->p + t->n - sep - 2));
    skio_buf_put(b, "\0\1", 2);
    put_unescaped(b, t->p, (size_t)(sep - t->p));
  } else {
    put_unescaped(b, t->p, t->n);
  }
  patch_le(b, len_at, b->n - start, 4);
}

static int b64_value(unsigned char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* ---- what each property is ---------------------------------------------------------------------------------- */

/* The record being read: its name, its parent's, and the type of a P record (its second string). */
typedef struct rec_ctx {
  const char* name;
  size_t name_n;
  const char* parent; /* NULL at the top level */
  size_t parent_n;
  unsigned depth;
  const char* p_type; /* a P record's type once read */
  size_t p_type_n;
} rec_ctx;

static bool ctx_is(const rec_ctx* r, const char* name) {
  return strlen(name) == r->name_n && memcmp(r->name, name, r->name_n) == 0;
}

static bool parent_is(const rec_ctx* r, const char* name) {
  return r->parent && strlen(name) == r->parent_n && memcmp(r->parent, name, r->parent_n) == 0;
}

/* Where the binary file writes a name as "Name\x00\x01Class". */
static bool name_position(const rec_ctx* r, uint32_t k) {
  if (k == 1 && r->depth == 1 && parent_is(r, "Objects")) return true;
  if (k == 0 && ctx_is(r, "SceneInfo") && parent_is(r, "FBXHeaderExtension")) return true;
  return k == 0 && r->depth == 2 && (ctx_is(r, "Media") || ctx_is(r, "TextureName"));
}

/* The binary type of integer word v at property k of record r: 'I', 'L' or 'D'. */
static char integer_type(const rec_ctx* r, uint32_t k, int64_t v) {
  static const char* const k_p_int[] = {
      "bool", "Bool", "int", "Int", "Integer", "enum", "Enum", "Visibility Inheritance", NULL};
  static const char* const k_p_int64[] = {"KTime", "ULongLong", "LongLong", NULL};
  static const char* const k_p_double[] = {"double",
                                           "Number",
                                           "float",
                                           "Float",
                                           "Vector3D",
                                           "Vector",
                                           "Vector4D",
                                           "ColorRGB",
                                           "Color",
                                           "ColorAndAlpha",
                                           "Lcl Translation",
                                           "Lcl Rotation",
                                           "Lcl Scaling",
                                           "FieldOfView",
                                           "FieldOfViewX",
                                           "FieldOfViewY",
                                           "UnitScaleFactor",
                                           "Visibility",
                                           "OpticalCenterX",
                                           "OpticalCenterY",
                                           "Roll",
                                           NULL};
  static const char* const k_int64_records[] = {"Document", "RootNode", "Node", "LocalTime", "ReferenceTime", NULL};
  static const char* const k_double_records[] = {
      "Default",    "DeformPercent",   "Link_DeformAcuracy", "Position",       "Up", "LookAt",
      "AudioColor", "CameraOrthoZoom", "ModelUVTranslation", "ModelUVScaling", NULL};
  const bool wide = v < INT32_MIN || v > INT32_MAX;
  if (ctx_is(r, "P") && k >= 4 && r->p_type) {
    if (name_in(r->p_type, r->p_type_n, k_p_double)) return 'D';
    if (name_in(r->p_type, r->p_type_n, k_p_int64)) return 'L';
    if (name_in(r->p_type, r->p_type_n, k_p_int)) return wide ? 'L' : 'I';
  }
  if (wide) return 'L';
  if (k == 0 && r->depth == 1 && parent_is(r, "Objects")) return 'L'; /* an object's id */
  if ((k == 1 || k == 2) && ctx_is(r, "C") && parent_is(r, "Connections")) return 'L';
  if (name_in(r->name, r->name_n, k_int64_records)) return 'L';
  if (name_in(r->name, r->name_n, k_double_records)) return 'D';
  return 'I';
}

/* A word property (number or bare letter) k of record r. */
static int put_word(conv* c, const rec_ctx* r, uint32_t k, const token* t) {
  int64_t i;
  double d;
  if (parse_i64(t->p, t->n, &i)) {
    const char type = integer_type(r, k, i);
    if (type == 'D' && parse_f64(t->p, t->n, &d)) /* "-0" stays -0.0 */
      put_f64(&c->out, d);
    else
      put_typed(&c->out, type, (uint64_t)i, type == 'L' ? 8 : 4);
  } else if (parse_f64(t->p, t->n, &d)) {
    put_f64(&c->out, d);
  } else if (t->n == 1 && ((t->p[0] >= 'A' && t->p[0] <= 'Z') || (t->p[0] >= 'a' && t->p[0] <= 'z'))) {
    const uint8_t b = t->p[0] == 'T' ? 1 : t->p[0] == 'F' ? 0 : (uint8_t)t->p[0];
    skio_buf_put(&c->out, "C", 1);
    skio_buf_put(&c->out, &b, 1);
  } else {
    return skc_fail(c->err, SKC_FORMAT, "FBX text: \"%.*s\" at line %u is neither a number nor a quoted string",
                    t->n > 40 ? 40 : (int)t->n, t->p, t->line);
  }
  return SKC_OK;
}

/* ---- arrays ----------------------------------------------------------------------------------------------- */

/* The element type of array record `name`, or 0 when its values decide. */
static char array_type_of(const char* name, size_t n) {
  static const char* const k_d[] = {"Vertices",
                                    "Normals",
                                    "NormalsW",
                                    "Binormals",
                                    "BinormalsW",
                                    "Tangents",
                                    "TangentsW",
                                    "UV",
                                    "Colors",
                                    "Weights",
                                    "Transform",
                                    "TransformLink",
                                    "TransformAssociateModel",
                                    "Matrix",
                                    "FullWeights",
                                    "Points",
                                    "KnotVector",
                                    "KnotVectorU",
                                    "KnotVectorV",
                                    "EdgeCrease",
                                    "VertexCrease",
                                    NULL};
  static const char* const k_i[] = {"PolygonVertexIndex", "Edges",         "UVIndex",     "ColorIndex", "NormalsIndex",
                                    "BinormalsIndex",     "TangentsIndex", "Materials",   "Indexes",    "KeyAttrFlags",
                                    "KeyAttrRefCount",    "Smoothing",     "PointsIndex", "TextureId",  NULL};
  if (name_in(name, n, k_d)) return 'd';
  if (name_in(name, n, k_i)) return 'i';
  if (name_in(name, n, (const char* const[]){"KeyValueFloat", "KeyAttrDataFloat", NULL})) return 'f';
  if (name_in(name, n, (const char* const[]){"KeyTime", NULL})) return 'l';
  if (name_in(name, n, (const char* const[]){"Visibility", NULL})) return 'b';
  return 0;
}

/* An array of unknown name: d when a value is no integer, l when one is past int32, else i (a copy of the lexer
 * reads ahead to the closing brace). */
static int array_type_by_values(conv* c, char* type) {
  lexer lx = c->lx;
  token t = c->tok;
  *type = 'i';
  while (t.kind == T_DATA) {
    int64_t v;
    if (!parse_i64(t.p, t.n, &v)) {
      *type = 'd';
      return SKC_OK;
    }
    if (v < INT32_MIN || v > INT32_MAX) *type = 'l';
    int rc = next_token(&lx, &t, c->err);
    if (rc) return rc;
  }
  return SKC_OK;
}

/* Value t as an element of an array of type; bits: a float array whose integers are bit patterns. */
static bool put_element(skio_buf* b, char type, bool bits, const token* t) {
  int64_t i;
  double d;
  float f;
  if (bits && type == 'f' && parse_i64(t->p, t->n, &i)) {
    if (i < INT32_MIN || i > UINT32_MAX) return false;
    put_le(b, (uint32_t)i, 4);
    return true;
  }
  switch (type) {
    case 'd':
      if (!parse_f64(t->p, t->n, &d)) return false;
      memcpy(&i, &d, 8);
      put_le(b, (uint64_t)i, 8);
      return true;
    case 'f': {
      if (!parse_f32(t->p, t->n, &f)) return false;
      uint32_t u;
      memcpy(&u, &f, 4);
      put_le(b, u, 4);
      return true;
    }
    case 'l':
      if (!parse_integral(t->p, t->n, &i)) return false;
      put_le(b, (uint64_t)i, 8);
      return true;
    case 'i':
      if (!parse_integral(t->p, t->n, &i) || i < INT32_MIN || i > INT32_MAX) return false;
      put_le(b, (uint64_t)(uint32_t)(int32_t)i, 4);
      return true;
    default: { /* 'b' */
      const bool letter = t->n == 1 && strchr("TFYN", t->p[0]);
      if (!letter && !parse_integral(t->p, t->n, &i)) return false;
      const uint8_t v = letter ? (uint8_t)(t->p[0] == 'T' || t->p[0] == 'Y') : (uint8_t)(i != 0);
      skio_buf_put(b, &v, 1);
      return true;
    }
  }
}

/* "*N { a: v,... }" of record r (c->tok is "*N") as one array property; c->tok is left on the token after "}". */
static int put_array(conv* c, const rec_ctx* r) {
  const token star = c->tok;
  int64_t want;
  if (!parse_i64(star.p + 1, star.n - 1, &want) || want < 0 || want > ASCII_MAX_ARRAY)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: array size \"%.*s\" of %.*s at line %u",
                    star.n > 40 ? 40 : (int)star.n, star.p, (int)r->name_n, r->name, star.line);
  int rc = advance(c);
  if (!rc && c->tok.kind != T_OPEN)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: array %.*s at line %u: no '{' after its size", (int)r->name_n,
                    r->name, star.line);
  if (!rc) rc = advance(c);
  const bool values = !rc && c->tok.kind == T_KEY && tok_is(&c->tok, "a");
  if (values) rc = advance(c);
  char type = array_type_of(r->name, r->name_n);
  if (!rc && !type) rc = array_type_by_values(c, &type);
  if (rc) return rc;
  const size_t elem = type == 'b' ? 1 : type == 'd' || type == 'l' ? 8 : 4;
  skio_buf* b = &c->out;
  skio_buf_put(b, &type, 1);
  put_le(b, (uint64_t)want, 4);
  put_le(b, 0, 4); /* raw: no zlib */
  put_le(b, (uint64_t)want * elem, 4);
  const bool bits = tok_is(&(token){T_KEY, r->name, r->name_n, 0}, "KeyAttrDataFloat");
  int64_t got = 0;
  for (; values && c->tok.kind == T_DATA && !b->oom; ++got) {
    if (got == want || !put_element(b, type, bits, &c->tok))
      return skc_fail(c->err, SKC_FORMAT, "FBX text: array %.*s at line %u: %s \"%.*s\"", (int)r->name_n, r->name,
                      c->tok.line, got == want ? "more values than its size, at" : "not a value of its type:",
                      c->tok.n > 40 ? 40 : (int)c->tok.n, c->tok.p);
    if ((rc = advance(c))) return rc;
  }
  if (b->oom) return skc_fail(c->err, SKC_OUT_OF_MEMORY, "FBX text: out of memory");
  if (c->tok.kind != T_CLOSE)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: array %.*s at line %u does not end with '}' (line %u)",
                    (int)r->name_n, r->name, star.line, c->tok.line);
  if (got != want)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: array %.*s at line %u holds %lld values where it says %lld",
                    (int)r->name_n, r->name, star.line, (long long)got, (long long)want);
  return advance(c);
}

/* ---- records ---------------------------------------------------------------------------------------------- */

/* Content's strings (the SDK may split one over several) as one raw property, base64-decoded. */
static int put_content(conv* c, const rec_ctx* r, uint32_t* count) {
  skio_buf* b = &c->out;
  skio_buf_put(b, "R", 1);
  const size_t len_at = b->n;
  put_le(b, 0, 4);
  const size_t start = b->n;
  uint32_t acc = 0, bits = 0;
  for (; c->tok.kind == T_STRING || c->tok.kind == T_DATA; ++*count) {
    for (size_t i = 0; c->tok.kind == T_STRING && i < c->tok.n; ++i) {
      const unsigned char ch = (unsigned char)c->tok.p[i];
      const int v = b64_value(ch);
      if (v < 0 && ch != '=' && !strchr(" \t\r\n", ch))
        return skc_fail(c->err, SKC_FORMAT, "FBX text: %.*s at line %u is not base64", (int)r->name_n, r->name,
                        c->tok.line);
      if (v < 0) continue;
      acc = acc << 6 | (uint32_t)v;
      if ((bits += 6) >= 8) {
        bits -= 8;
        const uint8_t byte = (uint8_t)(acc >> bits);
        skio_buf_put(b, &byte, 1);
      }
    }
    if (c->tok.kind == T_DATA)
      return skc_fail(c->err, SKC_FORMAT, "FBX text: %.*s at line %u holds a value that is not a string",
                      (int)r->name_n, r->name, c->tok.line);
    int rc = advance(c);
    if (rc) return rc;
  }
  patch_le(b, len_at, b->n - start, 4);
  *count = 1;
  return SKC_OK;
}

/* Properties of record r from c->tok up to the next key, brace or the end; *count of them. */
static int put_props(conv* c, rec_ctx* r, uint32_t* count) {
  *count = 0;
  if (ctx_is(r, "Content") && (c->tok.kind == T_STRING)) return put_content(c, r, count);
  for (uint32_t k = 0; c->tok.kind == T_STRING || c->tok.kind == T_DATA; ++k) {
    int rc;
    if (k == 0 && c->tok.kind == T_DATA && c->tok.n > 1 && c->tok.p[0] == '*') {
      if ((rc = put_array(c, r))) return rc;
      *count = 1;
      if (c->tok.kind == T_STRING || c->tok.kind == T_DATA || c->tok.kind == T_OPEN)
        return skc_fail(c->err, SKC_FORMAT, "FBX text: %.*s at line %u has more after its array", (int)r->name_n,
                        r->name, c->tok.line);
      return SKC_OK;
    }
    if (c->tok.kind == T_STRING) {
      if (k == 1 && ctx_is(r, "P")) {
        r->p_type = c->tok.p;
        r->p_type_n = c->tok.n;
      }
      put_string(&c->out, &c->tok, name_position(r, k));
    } else if ((rc = put_word(c, r, k, &c->tok))) {
      return rc;
    }
    if (k == UINT32_MAX - 1) return skc_fail(c->err, SKC_FORMAT, "FBX text: too many properties");
    *count = k + 1;
    if ((rc = advance(c))) return rc;
  }
  return SKC_OK;
}

static int record_end(conv* c, size_t at) {
  if (c->field == 4 && c->out.n > UINT32_MAX)
    return skc_fail(c->err, SKC_UNSUPPORTED,
                    "FBX text: the binary file grows past 4 GiB, beyond the 32-bit offsets of its FBX version");
  patch_le(&c->out, at, c->out.n, c->field);
  return SKC_OK;
}

static int put_record(conv* c, unsigned depth);

/* Children of the record at depth up to its '}', then the null record that ends them. */
static int put_children(conv* c, unsigned depth, const token* open) {
  int rc = advance(c);
  while (!rc && c->tok.kind == T_KEY) rc = put_record(c, depth + 1);
  if (rc) return rc;
  if (c->tok.kind != T_CLOSE)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: %s at line %u inside the '{' of %.*s at line %u",
                    c->tok.kind == T_EOF ? "the text ends" : "a value outside any record", c->tok.line,
                    (int)c->lens[depth], c->names[depth], open->line);
  for (size_t i = 0; i < 3 * c->field + 1; ++i) skio_buf_put(&c->out, "", 1);
  return advance(c);
}

/* The record whose key is c->tok, at depth (0: top level); c->tok is left after it. */
static int put_record(conv* c, unsigned depth) {
  const token key = c->tok;
  if (depth > ASCII_MAX_DEPTH)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: records nested deeper than %d at line %u", ASCII_MAX_DEPTH,
                    key.line);
  if (key.n > 255)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: a record name of %zu bytes at line %u", key.n, key.line);
  for (size_t i = 0; i < key.n; ++i)
    if ((unsigned char)key.p[i] < ' ') /* no FBX writer names a record so; fbx_ascii_write.c could not write it */
      return skc_fail(c->err, SKC_FORMAT, "FBX text: a control byte 0x%02x in a record name at line %u",
                      (unsigned char)key.p[i], key.line);
  c->names[depth] = key.p;
  c->lens[depth] = key.n;
  rec_ctx r = {key.p, key.n, depth ? c->names[depth - 1] : NULL, depth ? c->lens[depth - 1] : 0, depth, NULL, 0};
  skio_buf* b = &c->out;
  const size_t at = b->n;
  for (int i = 0; i < 3; ++i) put_le(b, 0, c->field);
  const uint8_t name_n = (uint8_t)key.n;
  skio_buf_put(b, &name_n, 1);
  skio_buf_put(b, key.p, key.n);
  const size_t props = b->n;
  uint32_t count = 0;
  int rc = advance(c);
  if (!rc) rc = put_props(c, &r, &count);
  if (rc) return rc;
  patch_le(b, at + c->field, count, c->field);
  patch_le(b, at + 2 * c->field, b->n - props, c->field);
  if (c->tok.kind == T_OPEN) {
    const token open = c->tok;
    if ((rc = put_children(c, depth, &open))) return rc;
  }
  return b->oom ? skc_fail(c->err, SKC_OUT_OF_MEMORY, "FBX text: out of memory") : record_end(c, at);
}

/* ---- the file --------------------------------------------------------------------------------------------- */

/* FBXHeaderExtension's FBXVersion (top level, as the SDK writes it first), 0 when there is none. */
static int find_version(const char* text, size_t n, uint32_t* version, skc_err* err) {
  lexer lx = {text, text + n, 1};
  token t;
  unsigned depth = 0;
  bool header = false, want = false;
  *version = 0;
  for (;;) {
    int rc = next_token(&lx, &t, err);
    if (rc) return rc;
    if (t.kind == T_EOF) return SKC_OK;
    if (t.kind == T_OPEN) ++depth;
    if (t.kind == T_CLOSE && depth) --depth;
    if (t.kind == T_KEY && depth == 0) header = tok_is(&t, "FBXHeaderExtension");
    if (t.kind == T_DATA && want) {
      int64_t v;
      if (parse_i64(t.p, t.n, &v) && v > 0 && v < 100000) *version = (uint32_t)v;
      return SKC_OK;
    }
    want = header && depth == 1 && t.kind == T_KEY && tok_is(&t, "FBXVersion");
  }
}

/* The footer the FBX SDK and Blender write: a 16-byte code, zeros to a multiple of 16, the version, 120 zeros, a
 * 16-byte magic (fbx_tree.c's writer redoes its padding when records change). */
static void put_footer(skio_buf* b, uint32_t version) {
  static const uint8_t k_code[16] = {0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66,
                                     0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e};
  static const uint8_t k_magic[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
                                      0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b};
  skio_buf_put(b, k_code, sizeof k_code);
  skio_buf_pad(b, 16, 0);
  put_le(b, 0, 4);
  put_le(b, version, 4);
  for (int i = 0; i < 120; ++i) skio_buf_put(b, "", 1);
  skio_buf_put(b, k_magic, sizeof k_magic);
}

static int convert(conv* c, uint32_t version) {
  skio_buf_put(&c->out, "Kaydara FBX Binary  \0\x1a\0", 23);
  put_le(&c->out, version, 4);
  int rc = advance(c);
  if (!rc && c->tok.kind != T_KEY)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: no record at the start (line %u)", c->tok.line);
  while (!rc && c->tok.kind == T_KEY) rc = put_record(c, 0);
  if (rc) return rc;
  if (c->tok.kind != T_EOF)
    return skc_fail(c->err, SKC_FORMAT, "FBX text: %s at line %u outside any record",
                    c->tok.kind == T_CLOSE  ? "a '}'"
                    : c->tok.kind == T_OPEN ? "a '{'"
                                            : "a value",
                    c->tok.line);
  for (size_t i = 0; i < 3 * c->field + 1; ++i) skio_buf_put(&c->out, "", 1);
  put_footer(&c->out, version);
  return c->out.oom ? skc_fail(c->err, SKC_OUT_OF_MEMORY, "FBX text: out of memory") : SKC_OK;
}

int skio_fbx_from_ascii(const char* text, size_t n, uint8_t** out, size_t* out_n, skc_err* err) {
  *out = NULL;
  *out_n = 0;
  if (n >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) { /* a UTF-8 byte order mark */
    text += 3;
    n -= 3;
  }
  uint32_t version;
  int rc = find_version(text, n, &version, err);
  if (rc) return rc;
  if (!version) return skc_fail(err, SKC_FORMAT, "FBX text: no FBXHeaderExtension with an FBXVersion");
  if (version < ASCII_MIN_VERSION)
    return skc_fail(err, SKC_UNSUPPORTED, "ASCII FBX %u: Assimp reads FBX 7.1 (FBXVersion 7100) and later only",
                    version);
  conv c = {.lx = {text, text + n, 1}, .field = version >= 7500 ? 8 : 4, .err = err};
  rc = convert(&c, version);
  if (rc) {
    free(c.out.p);
    return rc;
  }
  *out = c.out.p;
  *out_n = c.out.n;
  return SKC_OK;
}

int skio_fbx_binary_of(const uint8_t* data, size_t n, uint8_t** bin, size_t* bin_n, skc_err* err) {
  *bin = NULL;
  *bin_n = 0;
  if (skio_fbx_is_binary(data, n)) return SKC_OK;
  return skio_fbx_from_ascii((const char*)data, n, bin, bin_n, err);
}
