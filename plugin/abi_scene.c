/* abi_scene.c - public scene ABI (sk_scene_*) over io/skio_scene.h. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "abi_internal.h"
#include "skio_atomic.h"
#include "skio_scene.h"
#include "skinkit.h"

SK_API sk_result sk_scene_load(const char* path, const sk_load_options* options, sk_scene** out, sk_error* err) {
  if (!path || !out) SK__FAIL(err, SKC_INVALID_ARGUMENT, "path and out must not be NULL");
  const size_t size_1_6 = offsetof(sk_load_options, skeleton_from_nodes);
  if (options && options->size != sizeof(sk_load_options) && options->size != size_1_6)
    SK__FAIL(err, SKC_STRUCT_SIZE, "sk_load_options.size is %u, this library expects %zu (set it to sizeof)",
             (unsigned)options->size, sizeof(sk_load_options));
  skio_import_options o = {0};
  if (options) {
    o.skeleton_from_nodes = options->size == sizeof(sk_load_options) && options->skeleton_from_nodes != 0;
    o.animated_nodes = o.skeleton_from_nodes && (options->skeleton_from_nodes & SK_NODES_ANIMATED) != 0;
    o.join_vertices = options->join_vertices != 0;
    o.validate_structure = options->validate_structure != 0;
    o.isolate = options->isolate != 0;
    if (!(options->timeout_seconds >= 0.0f)) SK__FAIL(err, SKC_INVALID_ARGUMENT, "timeout_seconds must be >= 0");
    o.timeout_seconds = options->timeout_seconds;
    o.max_memory_mb = options->max_memory_mb;
  }
  sk_scene* s = calloc(1, sizeof *s);
  if (!s) SK__FAIL(err, SKC_OUT_OF_MEMORY, "out of memory");
  skc_err e = {0};
  int rc = skio_scene_import(path, &o, &s->io, &e);
  if (!rc) rc = skio_scene_list_objects(s->io, &s->objects, &s->object_count, &e);
  if (rc) {
    sk_scene_destroy(s);
    return sk__ret(rc, &e, err);
  }
  *out = s;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API void sk_remove_temporary_files(void) { skio_atomic_remove_temporaries(); }

SK_API sk_result sk_write_file_atomic(const char* path, const void* data, size_t size, sk_error* err) {
  if (!path || (!data && size)) SK__FAIL(err, SKC_INVALID_ARGUMENT, "path must not be NULL, nor data with a size");
  skc_err e = {0};
  int rc = skio_atomic_write(path, data, size, &e);
  return sk__ret(rc, &e, err);
}

SK_API void sk_scene_destroy(sk_scene* scene) {
  if (!scene) return;
  skio_scene_destroy(scene->io);
  skio_listed_objects_free(scene->objects, scene->object_count);
  free(scene);
}

SK_API sk_result sk_scene_require_skin(const sk_scene* scene, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  int rc = skio_scene_require_skin(scene->io, &e);
  return sk__ret(rc, &e, err);
}

SK_API double sk_scene_load_seconds(const sk_scene* scene) { return scene ? scene->io->load_seconds : 0.0; }

SK_API int sk_scene_frame(const sk_scene* scene, double* unit_metres, int32_t axes[3], float to_gltf[16]) {
  if (!scene) return -1;
  const skio_frame f = skio_scene_declared_frame(scene->io);
  if (unit_metres) *unit_metres = f.unit_cm / 100.0;
  if (axes) {
    axes[0] = f.up;
    axes[1] = f.front;
    axes[2] = f.coord;
  }
  float g[16];
  skio_frame_matrix(&f, g);
  if (to_gltf) memcpy(to_gltf, g, sizeof g);
  return scene->io->frame.set ? 1 : 0;
}

SK_API sk_result sk_scene_relink(sk_scene* scene, const sk_skeleton* skeleton, sk_error* err) {
  if (!scene || !skeleton) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and skeleton must not be NULL");
  skc_err e = {0};
  int rc = skio_scene_relink(scene->io, skeleton, &e);
  return sk__ret(rc, &e, err);
}

static bool axis_ok(int32_t a) { return a != 0 && a >= -3 && a <= 3; }

SK_API sk_result sk_scene_set_frame(sk_scene* scene, double unit_metres, const int32_t axes[3], sk_error* err) {
  skc_err e = {0};
  const int32_t def[3] = {2, 3, 1};
  const int32_t* a = axes ? axes : def;
  int rc = SKC_OK;
  if (!scene) rc = skc_fail(&e, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  else if (!(unit_metres >= 1e-8 && unit_metres <= 1e5))
    rc = skc_fail(&e, SKC_INVALID_ARGUMENT, "unit_metres %g is not in 1e-8 .. 1e5", unit_metres);
  else if (!axis_ok(a[0]) || !axis_ok(a[1]) || abs(a[0]) == abs(a[1]) || (a[2] && !axis_ok(a[2])) ||
           (a[2] && (abs(a[2]) == abs(a[0]) || abs(a[2]) == abs(a[1]))))
    rc = skc_fail(&e, SKC_INVALID_ARGUMENT, "axes %d %d %d are no axis system (signed 1..3, each axis once)", a[0],
                  a[1], a[2]);
  if (!rc) scene->io->frame = (skio_frame){true, unit_metres * 100.0, (int8_t)a[0], (int8_t)a[1], (int8_t)a[2]};
  return sk__ret(rc, &e, err);
}

SK_API uint32_t sk_scene_mesh_count(const sk_scene* scene) { return scene ? scene->io->mesh_count : 0; }

static const skio_mesh* mesh_at(const sk_scene* scene, uint32_t mesh) {
  return scene && mesh < scene->io->mesh_count ? &scene->io->meshes[mesh] : NULL;
}

SK_API const char* sk_scene_mesh_name(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? m->name : NULL;
}

SK_API size_t sk_scene_mesh_vertex_count(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? m->vertex_count : 0;
}

SK_API size_t sk_scene_mesh_index_count(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? m->index_count : 0;
}

static size_t copy_out(const void* src, size_t count, size_t elem, void* out, size_t capacity) {
  if (!src) return 0;
  if (out && count) memcpy(out, src, (capacity < count ? capacity : count) * elem);
  return count;
}

SK_API size_t sk_scene_mesh_positions(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? copy_out(m->positions, m->vertex_count * 3, sizeof(float), out, capacity) : 0;
}

SK_API uint32_t sk_scene_mesh_morph_count(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m && m->morph_positions ? m->morph_count : 0;
}

SK_API const char* sk_scene_mesh_morph_name(const sk_scene* scene, uint32_t mesh, uint32_t morph) {
  return morph < sk_scene_mesh_morph_count(scene, mesh) ? scene->io->meshes[mesh].morph_names[morph] : NULL;
}

SK_API float sk_scene_mesh_morph_weight(const sk_scene* scene, uint32_t mesh, uint32_t morph) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return morph < sk_scene_mesh_morph_count(scene, mesh) && m->morph_weights ? m->morph_weights[morph] : 0.0f;
}

SK_API size_t sk_scene_mesh_morph_positions(const sk_scene* scene, uint32_t mesh, uint32_t morph, float* out,
                                            size_t capacity) {
  if (morph >= sk_scene_mesh_morph_count(scene, mesh)) return 0;
  const skio_mesh* m = &scene->io->meshes[mesh];
  const size_t n = m->vertex_count * 3;
  return copy_out(m->morph_positions + (size_t)morph * n, n, sizeof(float), out, capacity);
}

SK_API size_t sk_scene_mesh_morph_keys(const sk_scene* scene, uint32_t mesh, uint32_t anim, double* times,
                                       float* weights, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  const skio_morph_keys* mk = m ? skio_mesh_morph_keys_of(m, anim) : NULL;
  if (!mk) return 0;
  const size_t n = capacity < mk->key_count ? capacity : mk->key_count;
  if (times) memcpy(times, mk->time, n * sizeof *times);
  if (weights) memcpy(weights, mk->weights, n * m->morph_count * sizeof *weights);
  return mk->key_count;
}

SK_API size_t sk_scene_mesh_normals(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? copy_out(m->normals, m->vertex_count * 3, sizeof(float), out, capacity) : 0;
}

SK_API size_t sk_scene_mesh_tangents(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? copy_out(m->tangents, m->vertex_count * 4, sizeof(float), out, capacity) : 0;
}

SK_API size_t sk_scene_mesh_uv0(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? copy_out(m->uv0, m->vertex_count * 2, sizeof(float), out, capacity) : 0;
}

SK_API size_t sk_scene_mesh_uv1(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? copy_out(m->uv1, m->vertex_count * 2, sizeof(float), out, capacity) : 0;
}

SK_API size_t sk_scene_mesh_colors(const sk_scene* scene, uint32_t mesh, float* out, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? copy_out(m->colors, m->vertex_count * 4, sizeof(float), out, capacity) : 0;
}

SK_API const char* sk_scene_mesh_node_name(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? m->node_name : NULL;
}

SK_API uint32_t sk_scene_mesh_part_count(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? (m->part_count ? m->part_count : 1) : 0;
}

SK_API sk_result sk_scene_mesh_part(const sk_scene* scene, uint32_t mesh, uint32_t part, uint64_t* out_first_index,
                                    uint64_t* out_index_count, int32_t* out_material, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  const skio_mesh* m = mesh_at(scene, mesh);
  if (!m) SK__FAIL(err, SKC_OUT_OF_RANGE, "mesh %u out of range (%u meshes)", mesh, scene->io->mesh_count);
  const uint32_t parts = m->part_count ? m->part_count : 1;
  if (part >= parts) SK__FAIL(err, SKC_OUT_OF_RANGE, "part %u out of range (mesh \"%s\" has %u)", part, m->name, parts);
  const size_t first = m->part_count ? m->parts[part].index_start : 0;
  const size_t count = m->part_count ? m->parts[part].index_count : m->index_count;
  const uint32_t mat = m->part_count ? m->parts[part].material : m->material;
  if (out_first_index) *out_first_index = first;
  if (out_index_count) *out_index_count = count;
  if (out_material) *out_material = mat < scene->io->material_count ? (int32_t)mat : -1;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API int32_t sk_scene_mesh_gltf_scene(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = scene && mesh < scene->io->mesh_count ? &scene->io->meshes[mesh] : NULL;
  return m && scene->io->gltf && m->gltf_node >= 0 ? m->gltf_scene : -1;
}

SK_API int32_t sk_scene_mesh_parent_joint(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m && !m->skin && scene->io->skeleton && m->parent_joint >= 0 &&
                 (uint32_t)m->parent_joint < scene->io->skeleton->joint_count
             ? m->parent_joint
             : -1;
}

SK_API sk_result sk_scene_mesh_set_parent_joint(sk_scene* scene, uint32_t mesh, int32_t joint, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  if (mesh >= scene->io->mesh_count) SK__FAIL(err, SKC_OUT_OF_RANGE, "mesh %u out of range", mesh);
  skio_mesh* m = &scene->io->meshes[mesh];
  if (m->skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "mesh %u has a skin: it follows its joints, not a parent", mesh);
  const uint32_t jc = scene->io->skeleton ? scene->io->skeleton->joint_count : 0;
  if (joint < -1 || (joint >= 0 && (uint32_t)joint >= jc))
    SK__FAIL(err, SKC_OUT_OF_RANGE, "joint %d out of range (the skeleton has %u)", joint, jc);
  m->parent_joint = joint;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_scene_mesh_bind_world(const sk_scene* scene, uint32_t mesh, float out[16], sk_error* err) {
  if (!scene || !out) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and out must not be NULL");
  if (mesh >= scene->io->mesh_count) SK__FAIL(err, SKC_OUT_OF_RANGE, "mesh %u out of range", mesh);
  if (!skio_mesh_bind_to_world(&scene->io->meshes[mesh], out))
    SK__FAIL(err, SKC_NOT_FOUND, "mesh %u has no bind world (the reader noted none: see sk_scene_mesh_bind_world)",
             mesh);
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_scene_mesh_node_transform(const sk_scene* scene, uint32_t mesh, float out[16], int32_t* out_joint,
                                              sk_error* err) {
  if (!scene || !out) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and out must not be NULL");
  if (mesh >= scene->io->mesh_count) SK__FAIL(err, SKC_OUT_OF_RANGE, "mesh %u out of range", mesh);
  const skio_mesh* m = &scene->io->meshes[mesh];
  const bool rigid = skio_mesh_still_rigid(m);
  /* a skin of its own (read, or given by a bind) puts the vertices in its bind space: no node transform applies */
  if (m->skin && !rigid) {
    skc_mat4_identity(out);
  } else {
    /* the identity when it has none, and for a mirror: the addon builds the faces as stored (pointing out in the
     * world), which a mirrored object would turn inside out */
    (void)skio_mesh_node_space(m, out, NULL);
  }
  if (out_joint) *out_joint = rigid ? m->rigid_joint : -1;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API int32_t sk_scene_mesh_rigid_joint(const sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m && skio_mesh_still_rigid(m) ? m->rigid_joint : -1;
}

SK_API size_t sk_scene_mesh_indices(const sk_scene* scene, uint32_t mesh, uint32_t* out, size_t capacity) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? copy_out(m->indices, m->index_count, sizeof(uint32_t), out, capacity) : 0;
}

SK_API const sk_skeleton* sk_scene_skeleton(const sk_scene* scene) { return scene ? scene->io->skeleton : NULL; }

SK_API sk_skin* sk_scene_mesh_skin(sk_scene* scene, uint32_t mesh) {
  const skio_mesh* m = mesh_at(scene, mesh);
  return m ? m->skin : NULL;
}

SK_API sk_result sk_scene_mesh_set_skin(sk_scene* scene, uint32_t mesh, const sk_skin* skin, const float* inverse_bind,
                                        sk_error* err) {
  if (!scene || !skin) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and skin must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_mesh_set_skin(scene->io, mesh, skin, inverse_bind, &e), &e, err);
}

SK_API sk_result sk_scene_mesh_inverse_binds(const sk_scene* scene, uint32_t mesh, float* out_matrices,
                                            uint8_t* out_bound, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  const skio_mesh* m = mesh_at(scene, mesh);
  if (!m) SK__FAIL(err, SKC_OUT_OF_RANGE, "mesh %u out of range (%u meshes)", mesh, scene->io->mesh_count);
  if (!m->skin) SK__FAIL(err, SKC_NO_SKIN, "mesh \"%s\" has no skin", m->name);
  uint32_t jc = scene->io->skeleton->joint_count;
  if (out_matrices) memcpy(out_matrices, m->inverse_bind, (size_t)jc * 16 * sizeof(float));
  if (out_bound) memcpy(out_bound, m->bound, jc);
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_scene_deform_joints(const sk_scene* scene, uint8_t* out_mask, uint32_t mask_count,
                                        uint32_t* out_count, uint32_t* out_rule, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  uint32_t jc = scene->io->skeleton ? scene->io->skeleton->joint_count : 0;
  if (jc && (!out_mask || mask_count < jc))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "out_mask must hold the %u joints (mask_count %u)", jc, mask_count);
  _Static_assert((int)SK_DEFORM_RULE_SKINS == SKIO_DEFORM_SKINS && (int)SK_DEFORM_RULE_ALL == SKIO_DEFORM_ALL &&
                     (int)SK_DEFORM_RULE_HIERARCHY == SKIO_DEFORM_HIERARCHY &&
                     (int)SK_DEFORM_RULE_NONE == SKIO_DEFORM_NONE,
                 "deform rule values");
  uint8_t none = 0;
  int rule = SKIO_DEFORM_NONE;
  skc_err e = {0};
  int rc = skio_scene_deform_joints(scene->io, out_mask ? out_mask : &none, out_count, &rule, &e);
  if (!rc && out_rule) *out_rule = (uint32_t)rule;
  return sk__ret(rc, &e, err);
}

SK_API uint32_t sk_scene_animation_count(const sk_scene* scene) { return scene ? scene->io->anim_count : 0; }

SK_API const char* sk_scene_animation_name(const sk_scene* scene, uint32_t anim) {
  return scene && anim < scene->io->anim_count ? scene->io->anims[anim].name : NULL;
}

SK_API double sk_scene_animation_duration(const sk_scene* scene, uint32_t anim) {
  return scene && anim < scene->io->anim_count ? scene->io->anims[anim].duration : 0.0;
}

SK_API sk_result sk_scene_animation_keyed_joints(const sk_scene* scene, uint32_t anim, uint8_t* out_mask,
                                                 uint32_t mask_count, uint32_t* out_count, sk_error* err) {
  if (!scene || !out_mask) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and out_mask must not be NULL");
  const skio_scene* s = scene->io;
  const uint32_t jc = s->skeleton ? s->skeleton->joint_count : 0;
  if (anim >= s->anim_count) SK__FAIL(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u)", anim, s->anim_count);
  if (mask_count < jc) SK__FAIL(err, SKC_INVALID_ARGUMENT, "mask of %u for %u joints", mask_count, jc);
  memset(out_mask, 0, mask_count);
  uint32_t n = 0;
  for (uint32_t c = 0; c < s->anims[anim].channel_count; ++c) {
    const uint32_t j = s->anims[anim].channels[c].joint;
    if (j < jc && !out_mask[j]) out_mask[j] = 1, ++n;
  }
  if (out_count) *out_count = n;
  return SK_OK;
}

SK_API sk_result sk_scene_sample_pose(const sk_scene* scene, uint32_t anim, double time, float* out_trs,
                                      sk_error* err) {
  if (!scene || !out_trs) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and out_trs must not be NULL");
  _Static_assert(sizeof(skc_trs) == 10 * sizeof(float), "skc_trs is 10 floats");
  skc_err e = {0};
  int rc = skio_anim_sample(scene->io, anim, time, (skc_trs*)(void*)out_trs, &e);
  return sk__ret(rc, &e, err);
}

/* The save's notes ("; "-separated; a "; " inside parentheses separates nothing) into out: whole when they fit, else
 * the notes that fit whole followed by "; ... (N more notes)" (the first one cut at a character when even it does not
 * fit), so a note is never cut mid-word without saying so. */
static void fit_notes(char* out, size_t size, const char* notes) {
  const size_t n = strlen(notes);
  if (n < size) {
    memcpy(out, notes, n + 1);
    return;
  }
  enum { TAIL = 32 }; /* room for "; ... (NNNN more notes)" */
  size_t keep = 0;
  unsigned total = 1, kept = 0;
  for (size_t i = 0, depth = 0; i + 1 < n; ++i) {
    depth += notes[i] == '(' ? 1 : notes[i] == ')' && depth ? (size_t)-1 : 0;
    if (depth || notes[i] != ';' || notes[i + 1] != ' ') continue;
    if (i + TAIL < size) keep = i, kept = total;
    ++total;
  }
  if (keep) {
    snprintf(out, size, "%.*s; ... (%u more note%s)", (int)keep, notes, total - kept, total - kept > 1 ? "s" : "");
    return;
  }
  const size_t cut = skio_utf8_cut(notes, size - TAIL);
  snprintf(out, size, "%.*s ... (%u note%s)", (int)cut, notes, total, total > 1 ? "s" : "");
}

SK_API sk_result sk_scene_save(const sk_scene* scene, const char* path, const sk_save_options* options,
                               sk_error* err) {
  if (!scene || !path) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and path must not be NULL");
  /* 1.2 callers pass the struct without weights_type, 1.3 to 1.14 callers without notes, 1.15 to 1.21 callers
   * without isolate */
  const size_t size_1_2 = offsetof(sk_save_options, weights_type), size_1_3 = offsetof(sk_save_options, notes),
               size_1_15 = offsetof(sk_save_options, isolate);
  if (options && options->size != size_1_2 && options->size != size_1_3 && options->size != size_1_15)
    SK__CHECK_SIZE(options, sk_save_options, err);
  skio_export_options o = {0};
  char note[8192] = "";
  o.note = note;
  o.note_size = sizeof note;
  if (options) {
    o.format = options->format;
    o.normalize = options->normalize != 0;
    o.limit = options->max_influences;
    o.prune = options->prune;
    o.keep_all = options->as_is != 0;
    o.overwrite = options->overwrite != 0;
    if (options->size != size_1_2) {
      if (options->weights_type > SK_WEIGHTS_U16)
        SK__FAIL(err, SKC_INVALID_ARGUMENT, "weights_type %u (0 source, 1 float, 2 u8, 3 u16)", options->weights_type);
      o.weights_type = options->weights_type;
    }
    if (options->size == sizeof *options) {
      if (!(options->timeout_seconds >= 0.0f))
        SK__FAIL(err, SKC_INVALID_ARGUMENT, "timeout_seconds must be >= 0 (0 = no limit)");
      o.isolate = options->isolate != 0;
      o.timeout_seconds = options->timeout_seconds;
    }
  }
  skc_err e = {0};
  int rc = skio_export_format(path, o.format, NULL, NULL, &e);
  if (rc) return sk__ret(rc, &e, err);
  struct stat st;
  if (stat(path, &st) == 0 && !(options && options->overwrite))
    SK__FAIL(err, SKC_EXISTS, "%s exists (set overwrite to replace it)", path);
  /* A missing folder is reported here: Assimp's writers only say "unknown error" for it. */
  const char* slash = strrchr(path, '/');
  if (slash && slash != path) {
    size_t n = (size_t)(slash - path);
    char* dir = malloc(n + 1);
    if (!dir) SK__FAIL(err, SKC_OUT_OF_MEMORY, "out of memory");
    memcpy(dir, path, n);
    dir[n] = '\0';
    int ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    if (!ok) skc_fail(&e, SKC_IO, "%s: folder %s does not exist", path, dir);
    free(dir);
    if (!ok) return sk__ret(e.code, &e, err);
  }
  if (!(options && options->overwrite)) skio_atomic_keep_existing(path); /* one that appears meanwhile stays */
  rc = skio_scene_export(scene->io, path, &o, &e);
  skio_atomic_keep_existing(NULL);
  sk_result r = sk__ret(rc, &e, err);
  if (rc == SKC_OK && err && note[0]) fit_notes(err->message, sizeof err->message, note);
  const bool has_notes = options && options->size != size_1_2 && options->size != size_1_3;
  if (rc == SKC_OK && has_notes && options->notes && options->notes_size)
    snprintf(options->notes, options->notes_size, "%s", note);
  return r;
}

SK_API sk_result sk_scene_validate(const sk_scene* scene, const sk_validate_options* options,
                                   sk_mesh_report* reports, size_t report_count, uint32_t* out_findings,
                                   sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  if (options) SK__CHECK_SIZE(options, sk_validate_options, err);
  const skio_scene* s = scene->io;
  if (s->mesh_count && (!reports || report_count < s->mesh_count))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "reports must hold %u entries, %zu given", s->mesh_count, report_count);
  for (uint32_t m = 0; m < s->mesh_count; ++m) SK__CHECK_SIZE(&reports[m], sk_mesh_report, err);
  skc_err e = {0};
  int rc = skio_scene_require_skin(s, &e);
  if (rc) return sk__ret(rc, &e, err);
  float tol = options ? options->tolerance : 0.0f;
  uint32_t lim = options ? options->max_influences : 0;
  uint32_t any = 0;
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    sk_mesh_report* r = &reports[m];
    memset((char*)r + sizeof r->size, 0, sizeof *r - sizeof r->size);
    r->skin.size = sizeof r->skin;
    if (!s->meshes[m].skin) continue;
    skio_mesh_report mr;
    if ((rc = skio_mesh_validate(s, m, tol, lim, &mr, &e))) return sk__ret(rc, &e, err);
    r->skinned = 1;
    const skc_skin_report* k = &mr.skin;
    r->skin.max_influences = k->max_influences;
    r->skin.vertex_count = k->vertex_count;
    r->skin.influence_count = k->influence_count;
    r->skin.weight_sum_min = k->weight_sum_min;
    r->skin.weight_sum_max = k->weight_sum_max;
    r->skin.off_tolerance = k->off_tolerance;
    r->skin.unweighted = k->unweighted;
    r->skin.nan = k->nan;
    r->skin.negative = k->negative;
    r->skin.bad_joint = k->bad_joint;
    r->skin.duplicate = k->duplicate;
    r->skin.over_limit = k->over_limit;
    r->skin.joints_used = k->joints_used;
    memcpy(r->skin.histogram, k->histogram, sizeof r->skin.histogram);
    r->skin.findings = k->findings;
    r->singular_binds = mr.singular_binds;
    r->nonrigid_binds = mr.nonrigid_binds;
    r->unused_bones = mr.unused_bones;
    r->dropped_weights = mr.dropped_weights;
    r->skin_structure = mr.skin_structure;
    r->findings = mr.findings;
    any |= r->findings;
  }
  if (out_findings) *out_findings = any;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API const char* sk_import_extensions(void) { return skio_import_extensions(); }

SK_API int sk_import_extension_supported(const char* extension) { return skio_extension_supported(extension); }

SK_API int sk_export_extension_supported(const char* extension) { return skio_export_extension_supported(extension); }

SK_API sk_result sk_scene_create(const sk_skeleton* skeleton, sk_scene** out, sk_error* err) {
  if (!out) SK__FAIL(err, SKC_INVALID_ARGUMENT, "out must not be NULL");
  sk_scene* s = calloc(1, sizeof *s);
  if (!s) SK__FAIL(err, SKC_OUT_OF_MEMORY, "out of memory");
  skc_err e = {0};
  int rc = skio_scene_create(skeleton, &s->io, &e);
  if (rc) {
    free(s);
    return sk__ret(rc, &e, err);
  }
  *out = s;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_scene_add_mesh(sk_scene* scene, const sk_mesh_desc* mesh, uint32_t* out_index, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  const uint32_t size_1_8 = (uint32_t)offsetof(sk_mesh_desc, uv1); /* the struct before ABI 1.9 */
  if (!mesh) SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_mesh_desc pointer must not be NULL");
  if (mesh->size != size_1_8) SK__CHECK_SIZE(mesh, sk_mesh_desc, err);
  const bool extra = mesh->size == sizeof(sk_mesh_desc);
  skio_mesh_init in = {mesh->name,    mesh->vertex_count, mesh->positions, mesh->normals,
                       mesh->tangents, mesh->uv0,         mesh->indices,   mesh->index_count,
                       mesh->skin,    mesh->inverse_bind, extra ? mesh->uv1 : NULL, extra ? mesh->colors : NULL};
  skc_err e = {0};
  uint32_t index = 0;
  int rc = skio_scene_add_mesh(scene->io, &in, &index, &e);
  if (!rc && extra && mesh->node_name) rc = skio_mesh_set_node(scene->io, index, mesh->node_name, &e);
  if (!rc && out_index) *out_index = index;
  return sk__ret(rc, &e, err);
}

SK_API sk_result sk_scene_add_image(sk_scene* scene, const char* name, const void* data, size_t size,
                                    uint32_t* out_index, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_scene_add_image(scene->io, name, data, size, out_index, &e), &e, err);
}

static skio_texref texref_of(int32_t image) {
  skio_texref t = {image < 0 ? -1 : image, 0, 1.0f};
  return t;
}

SK_API sk_result sk_scene_add_material(sk_scene* scene, const sk_material_desc* material, uint32_t* out_index,
                                       sk_error* err) {
  if (!scene || !material) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and material must not be NULL");
  SK__CHECK_SIZE(material, sk_material_desc, err);
  const int32_t images[5] = {material->base_color_image, material->metallic_roughness_image, material->normal_image,
                             material->emissive_image, material->occlusion_image};
  for (int k = 0; k < 5; ++k) /* -1 is none; a lower index was taken for none too (an audit of the C API) */
    if (images[k] < -1) SK__FAIL(err, SKC_OUT_OF_RANGE, "image index %d (-1 = none)", (int)images[k]);
  if (material->double_sided > 1) SK__FAIL(err, SKC_INVALID_ARGUMENT, "double_sided must be 0 or 1");
  _Static_assert((int)SK_ALPHA_MASK == SKIO_ALPHA_MASK && (int)SK_ALPHA_BLEND == SKIO_ALPHA_BLEND, "alpha modes");
  skio_material m;
  skio_material_init(&m);
  m.name = (char*)material->name; /* copied by skio_scene_add_material */
  memcpy(m.base_color, material->base_color, sizeof m.base_color);
  m.metallic = material->metallic;
  m.roughness = material->roughness;
  memcpy(m.emissive, material->emissive, sizeof m.emissive);
  m.alpha_mode = material->alpha_mode;
  m.alpha_cutoff = material->alpha_cutoff;
  m.double_sided = material->double_sided != 0;
  m.base_color_tex = texref_of(material->base_color_image);
  m.metallic_roughness_tex = texref_of(material->metallic_roughness_image);
  m.normal_tex = texref_of(material->normal_image);
  m.normal_tex.scale = material->normal_scale;
  m.emissive_tex = texref_of(material->emissive_image);
  m.occlusion_tex = texref_of(material->occlusion_image);
  if (!isfinite(m.normal_tex.scale)) SK__FAIL(err, SKC_INVALID_ARGUMENT, "normal_scale must be finite");
  skc_err e = {0};
  return sk__ret(skio_scene_add_material(scene->io, &m, out_index, &e), &e, err);
}

SK_API sk_result sk_scene_weld(sk_scene* scene, uint64_t* out_merged, sk_error* err) {
  if (out_merged) *out_merged = 0;
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  size_t merged = 0;
  int rc = skio_scene_weld(scene->io, &merged, &e);
  if (out_merged) *out_merged = merged;
  return sk__ret(rc, &e, err);
}

SK_API sk_result sk_scene_mesh_set_morphs(sk_scene* scene, uint32_t mesh, uint32_t count, const char* const* names,
                                          const float* weights, const float* positions, const float* normals,
                                          sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_mesh_set_morphs(scene->io, mesh, count, names, weights, positions, normals, &e), &e, err);
}

/* Property u into the optional outputs of sk_scene_prop / sk_scene_material_prop / sk_scene_mesh_prop. */
static sk_result prop_out(const skio_user_prop* u, const char** out_owner, const char** out_key, int32_t* out_kind,
                          double out_v[3], const char** out_text) {
  if (out_owner) *out_owner = u->node;
  if (out_key) *out_key = u->key;
  if (out_kind) *out_kind = u->kind;
  if (out_v) memcpy(out_v, u->v, sizeof u->v);
  if (out_text) *out_text = u->text;
  return SK_OK;
}

SK_API uint32_t sk_scene_prop_count(const sk_scene* scene) { return scene ? scene->io->user_prop_count : 0; }

SK_API sk_result sk_scene_prop(const sk_scene* scene, uint32_t i, const char** out_node, const char** out_key,
                               int32_t* out_kind, double out_v[3], const char** out_text, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  if (i >= scene->io->user_prop_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "custom property %u out of range (%u)", i, scene->io->user_prop_count);
  return prop_out(&scene->io->user_props[i], out_node, out_key, out_kind, out_v, out_text);
}

SK_API sk_result sk_scene_add_prop(sk_scene* scene, const char* node, const char* key, int32_t kind, const double* v,
                                   const char* text, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_scene_add_user_prop(scene->io, node, key, kind, v, text, &e), &e, err);
}

SK_API uint32_t sk_scene_material_prop_count(const sk_scene* scene) {
  return scene ? scene->io->material_prop_count : 0;
}

SK_API sk_result sk_scene_material_prop(const sk_scene* scene, uint32_t i, const char** out_material,
                                        const char** out_key, int32_t* out_kind, double out_v[3], const char** out_text,
                                        sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  if (i >= scene->io->material_prop_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "material custom property %u out of range (%u)", i, scene->io->material_prop_count);
  return prop_out(&scene->io->material_props[i], out_material, out_key, out_kind, out_v, out_text);
}

SK_API sk_result sk_scene_add_material_prop(sk_scene* scene, const char* material, const char* key, int32_t kind,
                                            const double* v, const char* text, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_scene_add_material_prop(scene->io, material, key, kind, v, text, &e), &e, err);
}

SK_API uint32_t sk_scene_mesh_prop_count(const sk_scene* scene) { return scene ? scene->io->mesh_prop_count : 0; }

SK_API sk_result sk_scene_mesh_prop(const sk_scene* scene, uint32_t i, const char** out_mesh, const char** out_key,
                                    int32_t* out_kind, double out_v[3], const char** out_text, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  if (i >= scene->io->mesh_prop_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "mesh custom property %u out of range (%u)", i, scene->io->mesh_prop_count);
  return prop_out(&scene->io->mesh_props[i], out_mesh, out_key, out_kind, out_v, out_text);
}

SK_API sk_result sk_scene_add_mesh_prop(sk_scene* scene, const char* mesh, const char* key, int32_t kind,
                                        const double* v, const char* text, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_scene_add_mesh_prop(scene->io, mesh, key, kind, v, text, &e), &e, err);
}

SK_API sk_result sk_scene_mesh_set_morph_keys(sk_scene* scene, uint32_t mesh, uint32_t anim, size_t keys,
                                              const double* times, const float* weights, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_mesh_set_morph_keys(scene->io, mesh, anim, keys, times, weights, &e), &e, err);
}

SK_API sk_result sk_scene_mesh_set_material(sk_scene* scene, uint32_t mesh, uint32_t material, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  skc_err e = {0};
  return sk__ret(skio_mesh_set_material(scene->io, mesh, material, &e), &e, err);
}

SK_API uint32_t sk_scene_material_count(const sk_scene* scene) { return scene ? scene->io->material_count : 0; }

SK_API uint32_t sk_scene_image_count(const sk_scene* scene) { return scene ? scene->io->image_count : 0; }
