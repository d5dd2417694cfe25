/* fbx_geometric.c - a Model's geometric transform (skio_fbx_tree.h): GeometricTranslation, GeometricRotation and
 * GeometricScaling, which FBX applies to the Model's geometry alone (its children do not inherit it) and, for a
 * skinned geometry, on top of the skin's mesh matrix (the FBX SDK's ViewScene sample multiplies the cluster's
 * Transform by it; Blender's importer does the same). 3ds Max writes one for almost every object (its pivot
 * offset), Maya and Mixamo files now and then. Assimp 5.2.5 folds it into the node of an unskinned mesh and drops it
 * for a skinned one, whose vertices then sit off by it; the reader applies it (scene_import.c) and the in-place
 * editor accounts for it (fbx_edit.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_fbx_tree.h"
#include "skio_scene.h"

bool skio_fbx_p_number(const skio_fbx_tree* t, uint32_t p, uint32_t k, double* v) {
  skio_fbx_prop q;
  int64_t i;
  if (!skio_fbx_prop_at(t, p, k, &q)) return false;
  if (q.type == 'D' && q.len >= sizeof *v) {
    memcpy(v, q.p, sizeof *v); /* little-endian hosts only, as fbx_tree.c */
    return true;
  }
  if (q.type == 'F' && q.len >= sizeof(float)) {
    float x;
    memcpy(&x, q.p, sizeof x);
    *v = x;
    return true;
  }
  if (!skio_fbx_prop_i64(t, p, k, &i)) return false;
  *v = (double)i;
  return true;
}

void skio_fbx_mat_mul(const double* a, const double* b, double* out) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double acc = 0.0;
      for (int k = 0; k < 4; ++k) acc += a[k * 4 + r] * b[c * 4 + k];
      out[c * 4 + r] = acc;
    }
}

bool skio_fbx_mat_inverse(const double* m, double* out) {
  double a[4][8];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) a[r][c] = m[c * 4 + r], a[r][c + 4] = r == c;
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (fabs(a[r][c]) > fabs(a[p][c])) p = r;
    if (!(fabs(a[p][c]) > 1e-300)) return false;
    for (int k = 0; k < 8; ++k) {
      double t = a[c][k];
      a[c][k] = a[p][k], a[p][k] = t;
    }
    const double d = a[c][c];
    for (int k = 0; k < 8; ++k) a[c][k] /= d;
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const double q = a[r][c];
      for (int k = 0; k < 8; ++k) a[r][k] -= q * a[c][k];
    }
  }
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[c * 4 + r] = a[r][c + 4];
  return true;
}

/* Euler angles in degrees to a column-major rotation in FBX's order o (0 XYZ, 1 XZY, 2 YZX, 3 YXZ, 4 ZXY, 5 ZYX:
 * the first axis turns first; anything else XYZ, as Blender reads 6, spheric XYZ). */
static void euler_matrix(const double deg[3], int64_t o, double r[16]) {
  static const int k_axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};
  const int* ax = k_axes[o >= 0 && o < 6 ? o : 0];
  memset(r, 0, 16 * sizeof *r);
  r[0] = r[5] = r[10] = r[15] = 1.0;
  for (int i = 0; i < 3; ++i) {
    const int a = ax[i], b = (a + 1) % 3, c = (a + 2) % 3;
    const double th = deg[a] * (3.14159265358979323846 / 180.0), cs = cos(th), sn = sin(th);
    double m[16] = {0}, out[16];
    m[15] = 1.0;
    m[a * 5] = 1.0;
    m[b * 5] = m[c * 5] = cs;
    m[b * 4 + c] = sn; /* column b, row c */
    m[c * 4 + b] = -sn;
    skio_fbx_mat_mul(m, r, out);
    memcpy(r, out, sizeof out);
  }
}

/* The three numbers of P record p (values 4..6) into v when they are all finite numbers. */
static bool p_vec3(const skio_fbx_tree* t, uint32_t p, double v[3]) {
  double w[3];
  for (int c = 0; c < 3; ++c)
    if (!skio_fbx_p_number(t, p, 4 + (uint32_t)c, &w[c]) || !isfinite(w[c])) return false;
  memcpy(v, w, sizeof w);
  return true;
}

/* The properties a Model's transforms are built from, with FBX's defaults. */
typedef struct trs_props {
  double t[3], r[3], s[3], gt[3], gr[3], gs[3], roff[3], rpiv[3], soff[3], spiv[3], pre[3], post[3];
  int64_t order;
  bool active; /* RotationActive: RotationOrder, PreRotation and PostRotation count only with it (as Blender reads) */
  bool bad;    /* a value that is not a finite number */
} trs_props;

static void read_trs(const skio_fbx_tree* t, uint32_t model, trs_props* q) {
  static const char* const k_names[12] = {"Lcl Translation",      "Lcl Rotation",      "Lcl Scaling",
                                          "GeometricTranslation", "GeometricRotation", "GeometricScaling",
                                          "RotationOffset",       "RotationPivot",     "ScalingOffset",
                                          "ScalingPivot",         "PreRotation",       "PostRotation"};
  double* const dst[12] = {q->t, q->r, q->s, q->gt, q->gr, q->gs, q->roff, q->rpiv, q->soff, q->spiv, q->pre, q->post};
  memset(q, 0, sizeof *q);
  for (int c = 0; c < 3; ++c) q->s[c] = q->gs[c] = 1.0;
  uint32_t props = skio_fbx_child(t, model, "Properties70", SKIO_FBX_NONE);
  for (uint32_t p = props == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(t, props, "P", SKIO_FBX_NONE);
       p != SKIO_FBX_NONE; p = skio_fbx_child(t, props, "P", p)) {
    int64_t i;
    if (skio_fbx_prop_str_is(t, p, 0, "RotationOrder") && skio_fbx_prop_i64(t, p, 4, &i)) q->order = i;
    if (skio_fbx_prop_str_is(t, p, 0, "RotationActive") && skio_fbx_prop_i64(t, p, 4, &i)) q->active = i != 0;
    for (int k = 0; k < 12; ++k)
      if (skio_fbx_prop_str_is(t, p, 0, k_names[k]) && !p_vec3(t, p, dst[k])) q->bad = true;
  }
}

/* out = T R S, R from Euler degrees in order o. */
static void trs_matrix(const double tr[3], const double deg[3], int64_t o, const double sc[3], double out[16]) {
  double rot[16], s[16] = {sc[0], 0, 0, 0, 0, sc[1], 0, 0, 0, 0, sc[2], 0, 0, 0, 0, 1};
  euler_matrix(deg, o, rot);
  skio_fbx_mat_mul(rot, s, out);
  for (int c = 0; c < 3; ++c) out[12 + c] = tr[c];
}

bool skio_fbx_model_geometric(const skio_fbx_tree* t, uint32_t model, double g[16]) {
  trs_props q;
  read_trs(t, model, &q);
  if (q.bad) return false;
  bool any = false;
  for (int c = 0; c < 3; ++c) any |= q.gt[c] != 0.0 || q.gr[c] != 0.0 || q.gs[c] != 1.0;
  if (!any) return false;
  trs_matrix(q.gt, q.gr, q.order, q.gs, g);
  return true;
}

/* m = a * b * c ... for n column-major matrices (n >= 1). */
static void mat_chain(const double* const* ms, int n, double out[16]) {
  double acc[16], tmp[16];
  memcpy(acc, ms[0], sizeof acc);
  for (int i = 1; i < n; ++i) {
    skio_fbx_mat_mul(acc, ms[i], tmp);
    memcpy(acc, tmp, sizeof acc);
  }
  memcpy(out, acc, sizeof acc);
}

static void translation(const double v[3], double sign, double m[16]) {
  static const double k_id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  memcpy(m, k_id, sizeof k_id);
  for (int c = 0; c < 3; ++c) m[12 + c] = sign * v[c];
}

bool skio_fbx_model_local(const skio_fbx_tree* t, uint32_t model, double m[16]) {
  static const double k_zero[3] = {0, 0, 0}, k_one[3] = {1, 1, 1};
  trs_props q;
  read_trs(t, model, &q);
  if (q.bad) return false;
  if (!q.active) {
    q.order = 0;
    memset(q.pre, 0, sizeof q.pre);
    memset(q.post, 0, sizeof q.post);
  }
  double tm[16], roff[16], rpiv[16], pre[16], rot[16], post[16], post_inv[16], rpiv_inv[16], soff[16], spiv[16],
      sca[16], spiv_inv[16];
  translation(q.t, 1.0, tm);
  translation(q.roff, 1.0, roff);
  translation(q.rpiv, 1.0, rpiv);
  translation(q.rpiv, -1.0, rpiv_inv);
  translation(q.soff, 1.0, soff);
  translation(q.spiv, 1.0, spiv);
  translation(q.spiv, -1.0, spiv_inv);
  trs_matrix(k_zero, q.pre, 0, k_one, pre);
  trs_matrix(k_zero, q.r, q.order, k_one, rot);
  trs_matrix(k_zero, q.post, 0, k_one, post);
  for (int r = 0; r < 4; ++r) /* a rotation's inverse is its transpose */
    for (int c = 0; c < 4; ++c) post_inv[c * 4 + r] = post[r * 4 + c];
  trs_matrix(k_zero, k_zero, 0, q.s, sca);
  const double* const chain[11] = {tm, roff, rpiv, pre, rot, post_inv, rpiv_inv, soff, spiv, sca, spiv_inv};
  mat_chain(chain, 11, m);
  return true;
}

void skio_fbx_geometric_float(const double g[16], float out[16]) {
  for (int e = 0; e < 16; ++e) out[e] = (float)g[e];
}

int skio_fbx_geometric_list(const uint8_t* data, size_t size, skio_fbx_geometric** out, uint32_t* count, skc_err* err) {
  *out = NULL;
  *count = 0;
  skio_fbx_tree t;
  int rc = skio_fbx_tree_parse(data, size, &t, err);
  if (rc) return rc;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  uint32_t cap = 0;
  for (uint32_t r = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, objects, "Model", SKIO_FBX_NONE);
       r != SKIO_FBX_NONE && !rc; r = skio_fbx_child(&t, objects, "Model", r)) {
    double g[16];
    const uint8_t* name;
    size_t n;
    if (!skio_fbx_prop_name(&t, r, 1, &name, &n) || !skio_fbx_model_geometric(&t, r, g)) continue;
    if (*count == cap) {
      cap = cap ? 2 * cap : 8;
      skio_fbx_geometric* grown = realloc(*out, (size_t)cap * sizeof *grown);
      if (!grown) {
        rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX geometric transforms");
        break;
      }
      *out = grown;
    }
    skio_fbx_geometric* e = &(*out)[*count];
    if (!(e->name = malloc(n + 1))) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading FBX geometric transforms");
      break;
    }
    memcpy(e->name, name, n);
    e->name[n] = 0;
    memcpy(e->g, g, sizeof g);
    ++*count;
  }
  skio_fbx_tree_free(&t);
  if (rc) {
    skio_fbx_geometric_free(*out, *count);
    *out = NULL;
    *count = 0;
  }
  return rc;
}

void skio_fbx_geometric_free(skio_fbx_geometric* list, uint32_t count) {
  for (uint32_t i = 0; list && i < count; ++i) free(list[i].name);
  free(list);
}

/* ASCII FBX (6.1 and 7.x): the lines `Model: [id, ]"Model::<name>", "Null" {`. False when out of memory. */
static bool ascii_null_names(const char* text, size_t size, char*** out, uint32_t* count) {
  static const char key[] = "Model: ", cls[] = "Model::";
  uint32_t cap = 0;
  for (size_t i = 0; i + sizeof key < size; ++i) {
    if (memcmp(text + i, key, sizeof key - 1) != 0 || (i && text[i - 1] != ' ' && text[i - 1] != '\t' &&
                                                        text[i - 1] != '\n'))
      continue;
    size_t e = i + sizeof key - 1; /* the record's header runs to its line's end */
    while (e < size && text[e] != '\n') ++e;
    const char* q = memchr(text + i, '"', e - i);
    if (!q || (size_t)(text + e - q) < sizeof cls || memcmp(q + 1, cls, sizeof cls - 1) != 0) continue;
    const char* name = q + sizeof cls;
    const char* end = memchr(name, '"', (size_t)(text + e - name));
    if (!end) continue;
    const char* c = memchr(end + 1, '"', (size_t)(text + e - end - 1));
    if (c && (size_t)(text + e - c) > 5 && memcmp(c, "\"Null\"", 6) == 0 &&
        !skio_names_add(out, count, &cap, name, (size_t)(end - name)))
      return false;
    i = e;
  }
  return true;
}

/* The names of binary FBX data's Models of class Null (bones = false) or LimbNode / Limb (bones = true), sorted, into
 * *out / *count; *parsed false (and no names) when the file does not parse. SKC_OUT_OF_MEMORY is the only failure. */
static int binary_model_names(const uint8_t* data, size_t size, bool bones, char*** out, uint32_t* count,
                              bool* parsed) {
  *parsed = false;
  skio_fbx_tree t;
  if (skio_fbx_tree_parse(data, size, &t, NULL) != SKC_OK) return SKC_OK; /* not ours to refuse: Assimp read it */
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  uint32_t cap = 0;
  int rc = SKC_OK;
  for (uint32_t r = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, objects, "Model", SKIO_FBX_NONE);
       r != SKIO_FBX_NONE && !rc; r = skio_fbx_child(&t, objects, "Model", r)) {
    const uint8_t* name;
    size_t n;
    const bool of_class = bones ? skio_fbx_prop_str_is(&t, r, 2, "LimbNode") || skio_fbx_prop_str_is(&t, r, 2, "Limb")
                                : skio_fbx_prop_str_is(&t, r, 2, "Null");
    if (!of_class || !skio_fbx_prop_name(&t, r, 1, &name, &n)) continue;
    if (!skio_names_add(out, count, &cap, (const char*)name, n)) rc = SKC_OUT_OF_MEMORY;
  }
  skio_fbx_tree_free(&t);
  if (rc) {
    skio_names_free(*out, *count);
    *out = NULL;
    *count = 0;
    return rc;
  }
  skio_names_sort(*out, *count);
  *parsed = true;
  return SKC_OK;
}

int skio_fbx_null_names(const uint8_t* data, size_t size, char*** out, uint32_t* count) {
  *out = NULL;
  *count = 0;
  if (!skio_fbx_is_binary(data, size)) {
    if (!ascii_null_names((const char*)data, size, out, count)) {
      skio_names_free(*out, *count);
      *out = NULL;
      *count = 0;
      return SKC_OUT_OF_MEMORY;
    }
    skio_names_sort(*out, *count);
    return SKC_OK;
  }
  bool parsed;
  return binary_model_names(data, size, false, out, count, &parsed);
}

int skio_fbx_limb_names(const uint8_t* data, size_t size, char*** out, uint32_t* count, bool* known) {
  *out = NULL;
  *count = 0;
  return binary_model_names(data, size, true, out, count, known);
}

uint32_t skio_fbx_limb_count(const uint8_t* data, size_t size) {
  skio_fbx_tree t;
  if (skio_fbx_tree_parse(data, size, &t, NULL) != SKC_OK) return UINT32_MAX;
  const uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
  uint32_t n = 0;
  for (uint32_t r = objects == SKIO_FBX_NONE ? SKIO_FBX_NONE : skio_fbx_child(&t, objects, "Model", SKIO_FBX_NONE);
       r != SKIO_FBX_NONE; r = skio_fbx_child(&t, objects, "Model", r))
    n += skio_fbx_prop_str_is(&t, r, 2, "LimbNode") || skio_fbx_prop_str_is(&t, r, 2, "Limb");
  skio_fbx_tree_free(&t);
  return n;
}
