/* scene.c - lifetime of skio_scene, the writers' view of merged glTF meshes as parts, the Assimp matrix layout
 * conversion and the sRGB transfer function of vertex colours. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_mem.h"
#include "skio_gltf_doc.h"
#include "skio_scene.h"

float skio_srgb_to_linear(float c) {
  float a = fabsf(c);
  float l = a <= 0.04045f ? a / 12.92f : powf((a + 0.055f) / 1.055f, 2.4f);
  return c < 0.0f ? -l : l;
}

float skio_linear_to_srgb(float c) {
  float a = fabsf(c);
  float e = a <= 0.0031308f ? a * 12.92f : 1.055f * powf(a, 1.0f / 2.4f) - 0.055f;
  return c < 0.0f ? -e : e;
}

void skio_mat_from_ai(const float* ai, float out[16]) {
  /* ai is row-major: ai[row * 4 + col]. We store m[col * 4 + row]. */
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[c * 4 + r] = ai[r * 4 + c];
}

void skio_mat_to_ai(const float m[16], float* ai) {
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) ai[r * 4 + c] = m[c * 4 + r];
}

void skio_mesh_free(skio_mesh* m) {
  free(m->name);
  free(m->node_name);
  free(m->positions);
  free(m->normals);
  free(m->tangents);
  free(m->uv0);
  free(m->uv1);
  free(m->colors);
  free(m->indices);
  skc_skin_destroy(m->skin);
  skc_skin_destroy(m->read_skin);
  free(m->inverse_bind);
  free(m->bound);
  for (uint32_t k = 0; k < m->part_count; ++k) free(m->parts[k].name);
  free(m->parts);
  for (uint32_t k = 0; m->morph_names && k < m->morph_count; ++k) free(m->morph_names[k]);
  free(m->morph_names);
  free(m->morph_weights);
  free(m->morph_positions);
  free(m->morph_normals);
  skio_mesh_free_morph_keys(m);
}

void skio_mesh_free_morph_keys(skio_mesh* m) {
  for (uint32_t k = 0; m->morph_keys && k < m->morph_key_count; ++k) {
    free(m->morph_keys[k].time);
    free(m->morph_keys[k].weights);
  }
  free(m->morph_keys);
  m->morph_keys = NULL;
  m->morph_key_count = 0;
}

const skio_morph_keys* skio_mesh_morph_keys_of(const skio_mesh* m, uint32_t anim) {
  for (uint32_t k = 0; m->morph_keys && k < m->morph_key_count; ++k)
    if (m->morph_keys[k].anim == anim && m->morph_keys[k].key_count) return &m->morph_keys[k];
  return NULL;
}

int skio_mesh_add_morph_keys(skio_mesh* m, uint32_t anim, const double* time, const float* weights, size_t keys) {
  if (!keys || !m->morph_count || keys > UINT32_MAX || skio_mesh_morph_keys_of(m, anim)) return SKC_OK;
  const size_t T = m->morph_count;
  skio_morph_keys* grown = realloc(m->morph_keys, ((size_t)m->morph_key_count + 1) * sizeof *grown);
  if (!grown) return SKC_OUT_OF_MEMORY;
  m->morph_keys = grown;
  skio_morph_keys* mk = &grown[m->morph_key_count];
  mk->anim = anim;
  mk->key_count = (uint32_t)keys;
  mk->time = malloc(keys * sizeof *mk->time);
  mk->weights = keys <= SIZE_MAX / sizeof(float) / T ? malloc(keys * T * sizeof *mk->weights) : NULL;
  if (!mk->time || !mk->weights) {
    free(mk->time);
    free(mk->weights);
    return SKC_OUT_OF_MEMORY;
  }
  memcpy(mk->time, time, keys * sizeof *mk->time);
  memcpy(mk->weights, weights, keys * T * sizeof *mk->weights);
  m->morph_key_count++;
  return SKC_OK;
}

int skio_scene_split_parts(const skio_scene* s, skio_scene* view, skc_err* err) {
  *view = *s;
  size_t count = 0;
  for (uint32_t k = 0; k < s->mesh_count; ++k) count += s->meshes[k].part_count ? s->meshes[k].part_count : 1;
  if (count == s->mesh_count) return SKC_OK;
  if (count > UINT32_MAX || !(view->meshes = calloc(count, sizeof *view->meshes))) {
    view->meshes = s->meshes;
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  uint32_t o = 0;
  for (uint32_t k = 0; k < s->mesh_count; ++k) {
    const skio_mesh* m = &s->meshes[k];
    for (uint32_t p = 0; p < (m->part_count ? m->part_count : 1); ++p) {
      skio_mesh* v = &view->meshes[o++];
      *v = *m;
      v->part_count = 0;
      v->parts = NULL;
      if (!m->part_count) continue;
      const skio_mesh_part* part = &m->parts[p];
      v->name = part->name;
      v->indices = m->indices + part->index_start;
      v->index_count = part->index_count;
      v->material = part->material;
      v->gltf_primitive = part->gltf_primitive;
    }
  }
  view->mesh_count = (uint32_t)count;
  return SKC_OK;
}

void skio_scene_parts_view_free(const skio_scene* s, skio_scene* view) {
  if (view->meshes != s->meshes) free(view->meshes);
  view->meshes = NULL;
  view->mesh_count = 0;
}

void skio_channel_free(skio_channel* ch) {
  free(ch->pos_time);
  free(ch->rot_time);
  free(ch->scl_time);
  free(ch->pos);
  free(ch->rot);
  free(ch->scl);
}

void skio_anim_free(skio_anim* a) {
  free(a->name);
  for (uint32_t c = 0; c < a->channel_count; ++c) skio_channel_free(&a->channels[c]);
  free(a->channels);
}

static int cmp_prop(const void* a, const void* b) {
  const skio_user_prop *x = *(const skio_user_prop* const*)a, *y = *(const skio_user_prop* const*)b;
  int c = strcmp(x->node, y->node);
  if (!c) c = strcmp(x->key, y->key);
  return c ? c : (x > y) - (x < y); /* file order within a name */
}

const skio_user_prop** skio_user_props_sorted(const skio_user_prop* props, uint32_t count) {
  const skio_user_prop** p = props && count ? malloc(count * sizeof *p) : NULL;
  for (uint32_t i = 0; p && i < count; ++i) p[i] = &props[i];
  if (p) qsort(p, count, sizeof *p, cmp_prop);
  return p;
}

uint32_t skio_user_props_first(const skio_user_prop* const* sorted, uint32_t count, const char* node, size_t len) {
  uint32_t lo = 0, hi = sorted ? count : 0;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const size_t n = strlen(sorted[mid]->node);
    int c = memcmp(sorted[mid]->node, node, n < len ? n : len);
    if (!c) c = (n > len) - (n < len);
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool skio_user_prop_of(const skio_user_prop* u, const char* node, size_t len) {
  return strlen(u->node) == len && !memcmp(u->node, node, len);
}

void skio_scene_retire(skio_scene* s, void* p) {
  if (!p) return;
  if (s->retired_count == s->retired_capacity) {
    const uint32_t cap = s->retired_capacity ? 2 * s->retired_capacity : 16;
    void** grown = cap > s->retired_capacity ? realloc(s->retired, cap * sizeof *grown) : NULL;
    if (!grown) return;
    s->retired = grown;
    s->retired_capacity = cap;
  }
  s->retired[s->retired_count++] = p;
}

void skio_scene_destroy(skio_scene* s) {
  if (!s) return;
  for (uint32_t i = 0; i < s->retired_count; ++i) free(s->retired[i]);
  free(s->retired);
  for (uint32_t m = 0; m < s->mesh_count; ++m) skio_mesh_free(&s->meshes[m]);
  free(s->meshes);
  for (uint32_t a = 0; a < s->anim_count; ++a) skio_anim_free(&s->anims[a]);
  free(s->anims);
  skc_skeleton_destroy(s->skeleton);
  free(s->source);
  free(s->no_skin_reason);
  skio_gltf_doc_destroy(s->gltf);
  skio_scene_free_materials(s);
  skio_scene_free_objects(s);
  free(s->joint_node);
  free(s->joint_mesh);
  skio_names_free(s->bone_names, s->bone_name_count);
  skio_user_props_free(s->user_props, s->user_prop_count);
  skio_user_props_free(s->material_props, s->material_prop_count);
  skio_user_props_free(s->mesh_props, s->mesh_prop_count);
  free(s);
}

int skio_scene_require_skin(const skio_scene* s, skc_err* err) {
  if (!s) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  if (s->skeleton)
    for (uint32_t m = 0; m < s->mesh_count; ++m)
      if (s->meshes[m].skin) return SKC_OK;
  return skc_fail(err, SKC_NO_SKIN, "%s: no skin (%u meshes, none with bones)%s%s", s->source ? s->source : "scene",
                  s->mesh_count, s->no_skin_reason ? ": " : "", s->no_skin_reason ? s->no_skin_reason : "");
}

bool skio_joint_bound_anywhere(const skio_scene* s, uint32_t j) {
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].skin && s->meshes[m].bound && s->meshes[m].bound[j]) return true;
  return false;
}

/* Whether every key of clip channel ch holds joint ch->joint's rest local transform (within 1e-5 of its size;
 * rotations within 1e-6 by |dot|). */
static bool channel_holds_rest(const skc_skeleton* sk, const skio_channel* ch) {
  skc_trs r;
  if (ch->joint >= sk->joint_count || !skio_rest_trs_keyed(sk->rest_local + (size_t)ch->joint * 16, ch, &r, 1e-4f))
    return false;
  const float tol = 1e-5f * (1.0f + fabsf(r.t[0]) + fabsf(r.t[1]) + fabsf(r.t[2]));
  for (uint32_t k = 0; k < ch->pos_count; ++k)
    for (int c = 0; c < 3; ++c)
      if (!(fabsf(ch->pos[k * 3 + c] - r.t[c]) <= tol)) return false;
  for (uint32_t k = 0; k < ch->rot_count; ++k) {
    const float* q = ch->rot + (size_t)k * 4;
    const float d = q[0] * r.r[0] + q[1] * r.r[1] + q[2] * r.r[2] + q[3] * r.r[3];
    if (!(fabsf(d) >= 1.0f - 1e-6f)) return false;
  }
  for (uint32_t k = 0; k < ch->scl_count; ++k)
    for (int c = 0; c < 3; ++c)
      if (!(fabsf(ch->scl[k * 3 + c] - r.s[c]) <= 1e-5f * (1.0f + fabsf(r.s[c])))) return false;
  return true;
}

/* skio_joint_used; rest_keys: keys that only hold the joint's rest count as keying it. */
static bool joint_used(const skio_scene* s, uint32_t j, bool rest_keys) {
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    const skc_skin* sk = s->meshes[m].skin;
    for (size_t e = 0, n = sk ? skc_skin_entries(sk) : 0; e < n; ++e)
      if (sk->joints[e] == j && sk->weights[e] != 0.0f) return true;
  }
  for (uint32_t a = 0; a < s->anim_count; ++a)
    for (uint32_t c = 0; c < s->anims[a].channel_count; ++c)
      if (s->anims[a].channels[c].joint == j &&
          (rest_keys || !channel_holds_rest(s->skeleton, &s->anims[a].channels[c])))
        return true;
  return skio_joint_bound_anywhere(s, j);
}

bool skio_joint_used(const skio_scene* s, uint32_t j) { return joint_used(s, j, true); }

static bool armature_object(const skio_scene* s, uint32_t r, bool rest_keys) {
  const skc_skeleton* sk = s->skeleton;
  if (!sk || r >= sk->joint_count || joint_used(s, r, rest_keys)) return false;
  for (uint32_t j = 0; j < sk->joint_count; ++j)
    if (!skc_skeleton_is_root(sk, j) && sk->parents[j] == (int32_t)r) return true;
  return false;
}

bool skio_joint_is_armature_object(const skio_scene* s, uint32_t r) { return armature_object(s, r, true); }

bool skio_joint_is_armature_object_keyed_at_rest(const skio_scene* s, uint32_t r) {
  return armature_object(s, r, false);
}

/* skio_scene_armature_object; rest_keys as in joint_used. */
static int32_t only_armature_object(const skio_scene* s, int32_t parent, bool rest_keys) {
  const skc_skeleton* sk = s->skeleton;
  int32_t r = -1;
  for (uint32_t j = 0; sk && j < sk->joint_count; ++j) {
    const bool root = skc_skeleton_is_root(sk, j);
    if (parent < 0 ? !root : (root || sk->parents[j] != parent)) continue;
    if (r >= 0) return -1;
    r = (int32_t)j;
  }
  return r >= 0 && armature_object(s, (uint32_t)r, rest_keys) ? r : -1;
}

int32_t skio_scene_armature_object(const skio_scene* s, int32_t parent) {
  return only_armature_object(s, parent, true);
}

int32_t skio_scene_armature_object_keyed_at_rest(const skio_scene* s, int32_t parent) {
  return only_armature_object(s, parent, false);
}

bool skio_mat4_same(const float first[16], const float x[16]) {
  float scale = 1.0f;
  for (int e = 0; e < 16; ++e) scale = fmaxf(scale, fabsf(first[e]));
  return skc_mat4_max_abs_diff(first, x) <= 1e-4f * scale;
}

/* X = rest_world(j) * ib(j) over the joints `use` marks (NULL: those bound anywhere), when one matrix (which may be
 * the identity); false when the joints' X differ or there is none. */
static bool one_rest_to_bind(const skio_scene* s, const float* ib, const uint8_t* use, float x[16]) {
  const skc_skeleton* sk = s->skeleton;
  bool have = false;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    if (use ? !use[j] : !skio_joint_bound_anywhere(s, j)) continue;
    float xj[16];
    skc_mat4_mul(sk->rest_world + (size_t)j * 16, ib + (size_t)j * 16, xj);
    if (!have) {
      memcpy(x, xj, sizeof xj);
      have = true;
    } else if (!skio_mat4_same(x, xj)) {
      return false;
    }
  }
  return have;
}

/* The same, when not the identity and invertible. */
static bool rest_to_bind(const skio_scene* s, const float* ib, const uint8_t* use, float x[16]) {
  float id4[16], inv[16];
  skc_mat4_identity(id4);
  if (!one_rest_to_bind(s, ib, use, x) || skc_mat4_max_abs_diff(x, id4) <= 1e-6f) return false;
  return skc_mat4_is_finite(x) && skc_mat4_inverse(x, inv) && skc_mat4_is_finite(inv);
}

bool skio_scene_rest_to_bind(const skio_scene* s, float x[16]) {
  return s->skeleton && rest_to_bind(s, s->skeleton->inverse_bind, NULL, x);
}

/* The joints mesh m binds or weights (calloc'd, joint_count + 1 flags), NULL when out of memory. */
static uint8_t* mesh_joints(const skc_skeleton* sk, const skio_mesh* m) {
  uint8_t* use = calloc(sk->joint_count + 1, 1);
  if (!use) return NULL;
  for (size_t e = 0, n = skc_skin_entries(m->skin); e < n; ++e)
    if (m->skin->joints[e] < sk->joint_count && m->skin->weights[e] > 0.0f) use[m->skin->joints[e]] = 1;
  for (uint32_t j = 0; m->bound && j < sk->joint_count; ++j) use[j] |= m->bound[j];
  return use;
}

bool skio_mesh_rest_to_bind(const skio_scene* s, const skio_mesh* m, float x[16]) {
  const skc_skeleton* sk = s->skeleton;
  if (!sk || !m->skin || !m->inverse_bind) return false;
  uint8_t* use = mesh_joints(sk, m);
  const bool ok = use && rest_to_bind(s, m->inverse_bind, use, x);
  free(use);
  return ok;
}

bool skio_mesh_rest_is_bind(const skio_scene* s, const skio_mesh* m) {
  const skc_skeleton* sk = s->skeleton;
  if (!sk || !m->skin || !m->inverse_bind) return true;
  uint8_t* use = mesh_joints(sk, m);
  float x[16];
  const bool one = !use || one_rest_to_bind(s, m->inverse_bind, use, x);
  free(use);
  return one;
}

/* X = rest_world(r) * ib when it is not the identity and invertible. */
static bool joint_rest_to_bind(const skc_skeleton* sk, uint32_t r, const float* ib, float x[16]) {
  skc_mat4_mul(sk->rest_world + (size_t)r * 16, ib, x);
  float id4[16], inv[16];
  skc_mat4_identity(id4);
  if (skc_mat4_max_abs_diff(x, id4) <= 1e-6f) return false;
  return skc_mat4_is_finite(x) && skc_mat4_inverse(x, inv) && skc_mat4_is_finite(inv);
}

bool skio_mesh_top_rest_to_bind(const skio_scene* s, const skio_mesh* m, float x[16]) {
  const skc_skeleton* sk = s->skeleton;
  if (!sk || !m->skin) return false;
  uint32_t r = sk->joint_count;
  for (size_t e = 0, n = skc_skin_entries(m->skin); e < n; ++e)
    if (m->skin->joints[e] < r && m->skin->weights[e] > 0.0f) r = m->skin->joints[e];
  for (uint32_t j = 0; m->bound && j < r; ++j)
    if (m->bound[j]) r = j;
  if (r == sk->joint_count) return false;
  return joint_rest_to_bind(sk, r, (m->inverse_bind ? m->inverse_bind : sk->inverse_bind) + (size_t)r * 16, x);
}

bool skio_scene_top_rest_to_bind(const skio_scene* s, float x[16]) {
  const skc_skeleton* sk = s->skeleton;
  for (uint32_t j = 0; sk && j < sk->joint_count; ++j)
    if (skio_joint_bound_anywhere(s, j)) return joint_rest_to_bind(sk, j, sk->inverse_bind + (size_t)j * 16, x);
  return false;
}

bool skio_mesh_bind_to_world(const skio_mesh* m, float x[16]) {
  float inv[16];
  if (!m->skin || !m->bind_world_set || !skc_mat4_is_finite(m->bind_world)) return false;
  if (!skc_mat4_inverse(m->bind_world, inv) || !skc_mat4_is_finite(inv)) return false;
  memcpy(x, m->bind_world, sizeof m->bind_world);
  return true;
}

bool skio_scene_bind_to_world(const skio_scene* s, float x[16]) {
  const skc_skeleton* sk = s->skeleton;
  bool have = false;
  for (uint32_t m = 0; sk && m < s->mesh_count; ++m) {
    const skio_mesh* me = &s->meshes[m];
    if (!me->skin) continue;
    float w[16], xm[16], inv[16];
    if (!skio_mesh_bind_to_world(me, w) || !me->inverse_bind) return false;
    /* relative to the skeleton's inverse binds: bind_world IB_mesh(j)^-1 IB_skeleton(j), j its first bound joint */
    uint32_t j = 0;
    while (j < sk->joint_count && !(me->bound && me->bound[j])) ++j;
    if (j == sk->joint_count) continue;
    if (!skc_mat4_inverse(me->inverse_bind + (size_t)j * 16, inv)) return false;
    float wi[16];
    skc_mat4_mul(w, inv, wi);
    skc_mat4_mul(wi, sk->inverse_bind + (size_t)j * 16, xm);
    if (have && !skio_mat4_same(x, xm)) return false;
    if (!have) memcpy(x, xm, sizeof xm);
    have = true;
  }
  return have;
}

size_t skio_utf8_cut(const char* s, size_t max) {
  size_t n = max;
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) --n; /* s[n] continues a character: cut before it */
  return n;
}

char* skio_read_whole(const char* path, size_t max, size_t* n, bool* oom) {
  *n = 0;
  if (oom) *oom = false;
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* data = NULL;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (size > 0 && (unsigned long)size <= max && fseek(f, 0, SEEK_SET) == 0) {
    data = skc_malloc_filled((size_t)size); /* read whole next */
    if (data) *n = fread(data, 1, (size_t)size, f);
    if (!data && oom) *oom = true;
  }
  fclose(f);
  if (data && !*n) free(data), data = NULL;
  return data;
}
