/* scene_build.c - building an skio_scene from data in memory (the addon's export, generated samples). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

static char* dup_str(const char* s) {
  size_t n = strlen(s);
  char* d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

int skio_scene_create(const skc_skeleton* skeleton, skio_scene** out, skc_err* err) {
  if (!out) return skc_fail(err, SKC_INVALID_ARGUMENT, "out must not be NULL");
  skio_scene* s = calloc(1, sizeof *s);
  if (!s || !(s->source = dup_str(""))) {
    free(s);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory creating a scene");
  }
  if (skeleton) {
    skc_skeleton_init init = {skeleton->joint_count, (const char* const*)skeleton->names,
                              skeleton->parents,     skeleton->rest_local,
                              skeleton->bind,        skeleton->inverse_bind,
                              skeleton->tail_local};
    int rc = skc_skeleton_create(&init, &s->skeleton, err);
    if (rc) {
      skio_scene_destroy(s);
      return rc;
    }
  }
  *out = s;
  return SKC_OK;
}

static int all_finite(const float* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(v[i])) return 0;
  return 1;
}

static void* copy_floats(const float* src, size_t n) {
  if (!src) return NULL;
  float* d = malloc(n * sizeof *d);
  if (d) memcpy(d, src, n * sizeof *d);
  return d;
}

/* m's skin, inverse binds (NULL: the skeleton's) and bound joints from a copy of skin; false when out of memory (m
 * holds what was copied: skio_mesh_free releases it). */
static bool copy_skin(const skc_skeleton* sk, const skc_skin* skin, const float* inverse_bind, skio_mesh* m) {
  const uint32_t nj = sk->joint_count;
  skc_err e = {0};
  bool ok = skc_skin_clone(skin, &m->skin, &e) == SKC_OK;
  m->inverse_bind = copy_floats(inverse_bind ? inverse_bind : sk->inverse_bind, (size_t)nj * 16);
  m->bound = calloc(nj, 1);
  ok = ok && m->inverse_bind && m->bound;
  if (ok) {
    /* a joint counts as bound when some vertex names it (what an exporter writes as an aiBone) */
    for (size_t i = 0, n = skc_skin_entries(m->skin); i < n; ++i)
      if (m->skin->joints[i] < nj) m->bound[m->skin->joints[i]] = 1;
    for (uint32_t j = 0; j < nj; ++j) m->bone_count += m->bound[j];
  }
  return ok;
}

static int check_skin(const skio_scene* s, size_t nv, const skc_skin* skin, const float* inverse_bind, skc_err* err) {
  if (!s->skeleton) return skc_fail(err, SKC_NO_SKIN, "a skinned mesh needs a scene created with a skeleton");
  if (skin->vertex_count != nv || skin->joint_count != s->skeleton->joint_count)
    return skc_fail(err, SKC_INVALID_ARGUMENT,
                    "skin has %zu vertices over %u joints; the mesh has %zu vertices, the skeleton %u joints",
                    skin->vertex_count, skin->joint_count, nv, s->skeleton->joint_count);
  if (inverse_bind && !all_finite(inverse_bind, (size_t)s->skeleton->joint_count * 16))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "inverse bind matrices are not all finite");
  return SKC_OK;
}

int skio_mesh_set_skin(skio_scene* s, uint32_t m, const skc_skin* skin, const float* inverse_bind, skc_err* err) {
  if (!s || !skin || m >= s->mesh_count) return skc_fail(err, SKC_OUT_OF_RANGE, "no mesh %u (or no skin)", m);
  skio_mesh* mesh = &s->meshes[m];
  int rc = check_skin(s, mesh->vertex_count, skin, inverse_bind, err);
  if (rc) return rc;
  skio_mesh staged = {0};
  if (!copy_skin(s->skeleton, skin, inverse_bind, &staged)) {
    skc_skin_destroy(staged.skin);
    free(staged.inverse_bind);
    free(staged.bound);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory copying a skin of %zu vertices", mesh->vertex_count);
  }
  const size_t ib_bytes = (size_t)s->skeleton->joint_count * 16 * sizeof(float);
  if (!mesh->inverse_bind || memcmp(mesh->inverse_bind, staged.inverse_bind, ib_bytes))
    mesh->bind_world_set = false; /* other inverse binds: the file's bind world is not theirs */
  if (mesh->skin) {               /* sk_scene_mesh_skin's handle stays valid: the new weights move into it */
    const skc_skin old = *mesh->skin;
    *mesh->skin = *staged.skin;
    *staged.skin = old;
    skc_skin_destroy(staged.skin);
  } else {
    mesh->skin = staged.skin;
  }
  free(mesh->inverse_bind);
  free(mesh->bound);
  mesh->inverse_bind = staged.inverse_bind;
  mesh->bound = staged.bound;
  mesh->bone_count = staged.bone_count;
  mesh->rigid_joint = mesh->parent_joint = -1; /* weighted now, not a rigid attachment; a skinned node at the root */
  return SKC_OK;
}

int skio_mesh_set_node(skio_scene* s, uint32_t m, const char* node_name, skc_err* err) {
  if (!s || m >= s->mesh_count) return skc_fail(err, SKC_OUT_OF_RANGE, "no mesh %u", m);
  skio_mesh* mesh = &s->meshes[m];
  free(mesh->node_name);
  mesh->node_name = NULL;
  mesh->node_group = -1;
  if (!node_name || !node_name[0]) return SKC_OK;
  if (!(mesh->node_name = dup_str(node_name))) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  mesh->node_group = (int32_t)m;
  for (uint32_t k = 0; k < m && k < 4096; ++k)
    if (s->meshes[k].node_name && !strcmp(s->meshes[k].node_name, node_name)) {
      mesh->node_group = s->meshes[k].node_group;
      break;
    }
  return SKC_OK;
}

int skio_scene_add_mesh(skio_scene* s, const skio_mesh_init* in, uint32_t* out_index, skc_err* err) {
  if (!s || !in) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene and mesh must not be NULL");
  if (in->vertex_count == 0 || in->vertex_count >= UINT32_MAX || !in->positions)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "a mesh needs 1..2^32-2 vertices and positions");
  if (in->index_count % 3 || (in->index_count && !in->indices))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "indices must be triangles (a multiple of 3) and non-NULL");
  if (s->mesh_count >= 65535) return skc_fail(err, SKC_OUT_OF_RANGE, "a scene holds at most 65535 meshes");
  size_t nv = in->vertex_count;
  if (!all_finite(in->positions, nv * 3)) return skc_fail(err, SKC_INVALID_ARGUMENT, "positions are not all finite");
  if (in->normals && !all_finite(in->normals, nv * 3))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "normals are not all finite");
  for (size_t i = 0; i < in->index_count; ++i)
    if (in->indices[i] >= nv)
      return skc_fail(err, SKC_OUT_OF_RANGE, "index %zu is %u, past the %zu vertices", i, in->indices[i], nv);
  if (in->skin) {
    int rc = check_skin(s, nv, in->skin, in->inverse_bind, err);
    if (rc) return rc;
  }
  skio_mesh* grown = realloc(s->meshes, (s->mesh_count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding a mesh");
  s->meshes = grown;
  skio_mesh* m = &s->meshes[s->mesh_count];
  memset(m, 0, sizeof *m);
  m->gltf_mesh = m->gltf_primitive = m->gltf_node = m->gltf_scene = m->rigid_joint = m->parent_joint =
      -1; /* no document, no node */
  m->node_group = -1;
  m->material = UINT32_MAX; /* none (sk_scene_mesh_set_material) */
  char fallback[32];
  snprintf(fallback, sizeof fallback, "mesh%u", s->mesh_count);
  m->name = dup_str(in->name && in->name[0] ? in->name : fallback);
  m->vertex_count = nv;
  m->positions = copy_floats(in->positions, nv * 3);
  m->normals = copy_floats(in->normals, nv * 3);
  m->tangents = copy_floats(in->tangents, nv * 4);
  m->uv0 = copy_floats(in->uv0, nv * 2);
  m->uv1 = copy_floats(in->uv1, nv * 2);
  m->colors = copy_floats(in->colors, nv * 4);
  m->index_count = in->index_count;
  if (in->index_count && (m->indices = malloc(in->index_count * sizeof *m->indices)))
    memcpy(m->indices, in->indices, in->index_count * sizeof *m->indices);
  int ok = m->name && m->positions && (!in->normals || m->normals) && (!in->tangents || m->tangents) &&
           (!in->uv0 || m->uv0) && (!in->uv1 || m->uv1) && (!in->colors || m->colors) &&
           (!in->index_count || m->indices);
  if (ok && in->skin) ok = copy_skin(s->skeleton, in->skin, in->inverse_bind, m);
  if (!ok) {
    skio_mesh_free(m);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory copying a mesh of %zu vertices", nv);
  }
  if (out_index) *out_index = s->mesh_count;
  s->mesh_count++;
  return SKC_OK;
}

/* The blend shapes of set_morphs, allocated whole before mesh m's are replaced (nothing changes on failure). */
typedef struct morph_set {
  char** names;
  float *weights, *positions, *normals;
} morph_set;

static void morph_set_free(morph_set* k, uint32_t count) {
  for (uint32_t t = 0; k->names && t < count; ++t) free(k->names[t]);
  free(k->names), free(k->weights), free(k->positions), free(k->normals);
}

/* Whether the mesh's targets are count targets named names (then their clip keys still apply). */
static bool same_targets(const skio_mesh* m, uint32_t count, const char* const* names) {
  if (m->morph_count != count) return false;
  for (uint32_t t = 0; t < count; ++t)
    if (!m->morph_names || !m->morph_names[t] || strcmp(m->morph_names[t], names[t]) != 0) return false;
  return true;
}

int skio_mesh_set_morphs(skio_scene* s, uint32_t m, uint32_t count, const char* const* names, const float* weights,
                         const float* positions, const float* normals, skc_err* err) {
  if (!s || m >= s->mesh_count) return skc_fail(err, SKC_OUT_OF_RANGE, "no mesh %u", m);
  skio_mesh* mesh = &s->meshes[m];
  const size_t nv = mesh->vertex_count;
  if (count > SKIO_MAX_MORPHS)
    return skc_fail(err, SKC_OUT_OF_RANGE, "%u blend shapes (at most %u)", count, SKIO_MAX_MORPHS);
  if (count && (nv > SIZE_MAX / 12 / count || !positions))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "blend shapes need positions (3 per vertex each)");
  const size_t n = (size_t)count * nv * 3;
  if (count && !all_finite(positions, n))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "blend shape positions are not all finite");
  if (normals && count && !all_finite(normals, n))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "blend shape normals are not all finite");
  if (weights && count && !all_finite(weights, count))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "blend shape weights are not all finite");
  morph_set k = {0};
  bool ok =
      !count || ((k.names = calloc(count, sizeof *k.names)) && (k.weights = calloc(count, sizeof *k.weights)) &&
                 (k.positions = copy_floats(positions, n)) && (!normals || (k.normals = copy_floats(normals, n))));
  for (uint32_t t = 0; ok && t < count; ++t) {
    char fallback[32];
    snprintf(fallback, sizeof fallback, "shape%u", t);
    ok = (k.names[t] = dup_str(names && names[t] && names[t][0] ? names[t] : fallback)) != NULL;
    k.weights[t] = weights ? weights[t] : 0.0f;
  }
  if (!ok) {
    morph_set_free(&k, count);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %u blend shapes of %zu vertices", count, nv);
  }
  morph_set old = {mesh->morph_names, mesh->morph_weights, mesh->morph_positions, mesh->morph_normals};
  /* the strings sk_scene_mesh_morph_name gave out stay valid: the same names keep their strings, others are kept
   * with the scene */
  const bool same = same_targets(mesh, count, (const char* const*)k.names);
  if (!same) skio_mesh_free_morph_keys(mesh); /* keys of other targets */
  for (uint32_t t = 0; old.names && t < mesh->morph_count; ++t) {
    char* kept = old.names[t];
    if (same) { /* the new copy is freed with old's arrays below */
      old.names[t] = k.names[t];
      k.names[t] = kept;
    } else {
      skio_scene_retire(s, kept);
    }
  }
  morph_set_free(&old, same ? mesh->morph_count : 0);
  mesh->morph_count = count;
  mesh->morph_names = k.names;
  mesh->morph_weights = k.weights;
  mesh->morph_positions = k.positions;
  mesh->morph_normals = k.normals;
  s->shapes_changed = true;
  return SKC_OK;
}

/* Appends a custom property to *list (the nodes', the materials' or the meshes'). */
static int add_prop_to(skio_user_prop** list, uint32_t* count, const char* node, const char* key, int kind,
                       const double* v, const char* text, skc_err* err) {
  if (!node || !node[0] || !key || !key[0])
    return skc_fail(err, SKC_INVALID_ARGUMENT, "a custom property needs a node and a name");
  if (kind < SKIO_PROP_INT || kind > SKIO_PROP_VEC3 || (kind == SKIO_PROP_STRING ? !text : !v))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "custom property \"%s\": kind %d without its value", key, kind);
  const int nv = kind == SKIO_PROP_VEC3 ? 3 : kind == SKIO_PROP_STRING ? 0 : 1;
  for (int k = 0; k < nv; ++k)
    if (!isfinite(v[k])) return skc_fail(err, SKC_INVALID_ARGUMENT, "custom property \"%s\": value not finite", key);
  if (*count >= 65536) return skc_fail(err, SKC_INVALID_ARGUMENT, "more than 65536 custom properties");
  skio_user_prop u = {dup_str(node), dup_str(key), (uint8_t)kind, {0, 0, 0}, text ? dup_str(text) : NULL};
  for (int k = 0; k < nv; ++k) u.v[k] = v[k];
  skio_user_prop* grown =
      u.node && u.key && (!text || u.text) ? realloc(*list, ((size_t)*count + 1) * sizeof *grown) : NULL;
  if (!grown) {
    free(u.node), free(u.key), free(u.text);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for a custom property");
  }
  *list = grown;
  grown[(*count)++] = u;
  return SKC_OK;
}

int skio_scene_add_user_prop(skio_scene* s, const char* node, const char* key, int kind, const double* v,
                             const char* text, skc_err* err) {
  if (!s) return skc_fail(err, SKC_INVALID_ARGUMENT, "a custom property needs a scene");
  const int rc = add_prop_to(&s->user_props, &s->user_prop_count, node, key, kind, v, text, err);
  if (!rc) s->props_changed = true;
  return rc;
}

int skio_scene_add_material_prop(skio_scene* s, const char* material, const char* key, int kind, const double* v,
                                 const char* text, skc_err* err) {
  if (!s) return skc_fail(err, SKC_INVALID_ARGUMENT, "a custom property needs a scene");
  const int rc = add_prop_to(&s->material_props, &s->material_prop_count, material, key, kind, v, text, err);
  if (!rc) s->props_changed = true;
  return rc;
}

int skio_scene_add_mesh_prop(skio_scene* s, const char* mesh, const char* key, int kind, const double* v,
                             const char* text, skc_err* err) {
  if (!s) return skc_fail(err, SKC_INVALID_ARGUMENT, "a custom property needs a scene");
  const int rc = add_prop_to(&s->mesh_props, &s->mesh_prop_count, mesh, key, kind, v, text, err);
  if (!rc) s->props_changed = true;
  return rc;
}

/* Clip anim's entry in the mesh's blend shape keys, or -1. */
static int32_t morph_keys_index(const skio_mesh* m, uint32_t anim) {
  for (uint32_t k = 0; m->morph_keys && k < m->morph_key_count; ++k)
    if (m->morph_keys[k].anim == anim) return (int32_t)k;
  return -1;
}

int skio_mesh_set_morph_keys(skio_scene* s, uint32_t m, uint32_t anim, size_t keys, const double* times,
                             const float* weights, skc_err* err) {
  if (!s || m >= s->mesh_count) return skc_fail(err, SKC_OUT_OF_RANGE, "no mesh %u", m);
  if (anim >= s->anim_count) return skc_fail(err, SKC_OUT_OF_RANGE, "no clip %u (%u clips)", anim, s->anim_count);
  skio_mesh* mesh = &s->meshes[m];
  const size_t T = mesh->morph_count;
  if (keys && !T) return skc_fail(err, SKC_INVALID_ARGUMENT, "mesh \"%s\" has no blend shapes to key", mesh->name);
  if (keys && (!times || !weights || keys > UINT32_MAX || keys > SIZE_MAX / sizeof(float) / T))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "blend shape keys need times and weights (%zu keys)", keys);
  for (size_t k = 0; k < keys; ++k)
    if (!isfinite(times[k]) || (k && !(times[k] > times[k - 1])))
      return skc_fail(err, SKC_INVALID_ARGUMENT, "blend shape key times must be finite and ascending (key %zu)", k);
  if (keys && !all_finite(weights, keys * T))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "blend shape key weights are not all finite");
  const int32_t at = morph_keys_index(mesh, anim);
  if (!keys && at < 0) return SKC_OK; /* nothing to remove: the scene is unchanged */
  skio_morph_keys old = at >= 0 ? mesh->morph_keys[at] : (skio_morph_keys){0};
  if (at >= 0) mesh->morph_keys[at].key_count = 0; /* hidden from skio_mesh_add_morph_keys */
  if (keys && skio_mesh_add_morph_keys(mesh, anim, times, weights, keys) != SKC_OK) {
    if (at >= 0) mesh->morph_keys[at].key_count = old.key_count;
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory for %zu blend shape keys", keys);
  }
  if (at >= 0) { /* the old entry out: the last one takes its place */
    free(old.time);
    free(old.weights);
    mesh->morph_keys[at] = mesh->morph_keys[--mesh->morph_key_count];
  }
  s->shapes_changed = true;
  return SKC_OK;
}

bool skio_bind_take(uint32_t j, const float ibm[16], float* bind, float* ibind, uint8_t* have) {
  float m[16], inv[16];
  memcpy(m, ibm, sizeof m);
  if (have[j] || !skc_mat4_is_finite(m) || !skc_mat4_inverse(m, inv)) return false;
  memcpy(ibind + (size_t)j * 16, m, sizeof m);
  memcpy(bind + (size_t)j * 16, inv, sizeof inv);
  have[j] = 1;
  return true;
}

void skio_bind_fill_rest(uint32_t jc, const float* world, const uint8_t* have, float* bind, float* ibind) {
  for (uint32_t j = 0; j < jc; ++j) {
    if (have[j]) continue;
    memcpy(bind + (size_t)j * 16, world + (size_t)j * 16, 16 * sizeof(float));
    if (!skc_mat4_inverse(world + (size_t)j * 16, ibind + (size_t)j * 16)) skc_mat4_identity(ibind + (size_t)j * 16);
  }
}

/* A joint the mesh has no bone for gets an inverse bind in the mesh's own bind space, so that weight given to it later
 * (mirror, transfer, bind to more joints) keeps the vertex where it is at rest: its rest matrix times the inverse
 * bind comes out as X, the rest-times-inverse-bind of the nearest bound ancestor (else of the first bound joint).
 * The skeleton's inverse bind, which it had, is the inverse of the rest pose in the importer's world: for a mesh
 * whose bones put it there through another frame (Blender's Collada: the up axis and bind shape matrix, X != I) a
 * vertex half on an unbound joint moved by 1.1 on a 2-unit leg; glTF's CesiumMan, whose skin turns Z up, likewise.
 * Where X is the identity nothing changes. (Both readers call it once a mesh's bones are known.) */
void skio_mesh_unbound_in_bind_frame(const skc_skeleton* sk, skio_mesh* m) {
  const uint32_t jc = sk->joint_count;
  long any = -1;
  for (uint32_t j = 0; j < jc && any < 0; ++j)
    if (m->bound[j]) any = (long)j;
  if (any < 0) return;
  for (uint32_t n = 0; n < jc; ++n) {
    if (m->bound[n]) continue;
    long a = sk->parents[n];
    while (a >= 0 && !m->bound[a]) a = sk->parents[a];
    if (a < 0) a = any;
    float x[16], inv_rest[16], ib[16], id[16];
    skc_mat4_mul(sk->rest_world + 16 * (size_t)a, m->inverse_bind + 16 * (size_t)a, x);
    skc_mat4_identity(id);
    const float reach = 1.0f + fabsf(x[12]) + fabsf(x[13]) + fabsf(x[14]);
    if (skc_mat4_max_abs_diff(x, id) <= 1e-6f * reach) continue; /* the bind frame is the world: as it was */
    if (!skc_mat4_inverse(sk->rest_world + 16 * (size_t)n, inv_rest)) continue;
    skc_mat4_mul(inv_rest, x, ib);
    float* cur = m->inverse_bind + 16 * (size_t)n;
    bool same = true;
    for (int k = 0; k < 16 && same; ++k) same = fabsf(ib[k] - cur[k]) <= 1e-6f * (1.0f + fabsf(cur[k]));
    if (!same) memcpy(cur, ib, sizeof ib);
  }
}
