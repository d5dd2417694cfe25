/* abi_scene_read.c - what a scene holds besides meshes and skins, read back and added: materials and images, cameras,
 * lights and empty nodes (listed at load, io/scene_listing.c), the notes of the reader, the key times of a clip
 * (ABI 1.12 and 1.13), objects and clips added by hand (ABI 1.13). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abi_internal.h"
#include "skc_math.h"
#include "skinkit.h"
#include "skio_scene.h"

SK_API const char* sk_scene_material_name(const sk_scene* scene, uint32_t material) {
  return scene && material < scene->io->material_count ? scene->io->materials[material].name : NULL;
}

SK_API int32_t sk_scene_mesh_material(const sk_scene* scene, uint32_t mesh) {
  if (!scene || mesh >= scene->io->mesh_count) return -1;
  const uint32_t m = scene->io->meshes[mesh].material;
  return m < scene->io->material_count ? (int32_t)m : -1;
}

SK_API uint32_t sk_scene_object_count(const sk_scene* scene) { return scene ? scene->object_count : 0; }

SK_API const char* sk_scene_object_name(const sk_scene* scene, uint32_t object) {
  return scene && object < scene->object_count ? scene->objects[object].ob.name : NULL;
}

SK_API int32_t sk_scene_object_kind(const sk_scene* scene, uint32_t object) {
  return scene && object < scene->object_count ? (int32_t)scene->objects[object].ob.kind : -1;
}

SK_API const char* sk_scene_object_parent(const sk_scene* scene, uint32_t object) {
  return scene && object < scene->object_count ? scene->objects[object].parent : NULL;
}

SK_API const char* sk_scene_note(const sk_scene* scene) { return scene ? scene->io->material_note : NULL; }

SK_API sk_result sk_scene_image_info(const sk_scene* scene, uint32_t image, sk_image_info* out, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  SK__CHECK_SIZE(out, sk_image_info, err);
  if (image >= scene->io->image_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "image %u out of range (%u images)", image, scene->io->image_count);
  const skio_image* im = &scene->io->images[image];
  *out = (sk_image_info){.size = sizeof *out,
                         .embedded = im->embedded,
                         .name = im->name,
                         .uri = im->uri,
                         .path = im->path,
                         .data = im->data,
                         .data_size = im->data ? im->size : 0,
                         .mime = im->mime};
  return sk__ret(SKC_OK, NULL, err);
}

static int32_t texref_image(const skio_scene* s, const skio_texref* t) {
  return t->image >= 0 && (uint32_t)t->image < s->image_count ? t->image : -1;
}

SK_API sk_result sk_scene_material_info(const sk_scene* scene, uint32_t material, sk_material_desc* out,
                                        sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  SK__CHECK_SIZE(out, sk_material_desc, err);
  const skio_scene* s = scene->io;
  if (material >= s->material_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "material %u out of range (%u materials)", material, s->material_count);
  _Static_assert((int)SK_ALPHA_OPAQUE == SKIO_ALPHA_OPAQUE && (int)SK_ALPHA_MASK == SKIO_ALPHA_MASK &&
                     (int)SK_ALPHA_BLEND == SKIO_ALPHA_BLEND,
                 "alpha modes");
  const skio_material* m = &s->materials[material];
  *out = (sk_material_desc){.size = sizeof *out,
                            .alpha_mode = m->alpha_mode,
                            .name = m->name,
                            .metallic = m->metallic,
                            .roughness = m->roughness,
                            .alpha_cutoff = m->alpha_cutoff,
                            .double_sided = m->double_sided,
                            .normal_scale = m->normal_tex.image >= 0 ? m->normal_tex.scale : 1.0f,
                            .base_color_image = texref_image(s, &m->base_color_tex),
                            .metallic_roughness_image = texref_image(s, &m->metallic_roughness_tex),
                            .normal_image = texref_image(s, &m->normal_tex),
                            .emissive_image = texref_image(s, &m->emissive_tex),
                            .occlusion_image = texref_image(s, &m->occlusion_tex)};
  memcpy(out->base_color, m->base_color, sizeof out->base_color);
  memcpy(out->emissive, m->emissive, sizeof out->emissive);
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_scene_object_info(const sk_scene* scene, uint32_t object, sk_object_info* out, sk_error* err) {
  if (!scene) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  SK__CHECK_SIZE(out, sk_object_info, err);
  if (object >= scene->object_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "object %u out of range (%u objects)", object, scene->object_count);
  _Static_assert((int)SK_LIGHT_DIRECTIONAL == SKIO_LIGHT_DIRECTIONAL && (int)SK_LIGHT_POINT == SKIO_LIGHT_POINT &&
                     (int)SK_LIGHT_SPOT == SKIO_LIGHT_SPOT,
                 "light types");
  const skio_object* o = &scene->objects[object].ob;
  const bool camera = o->kind == SKIO_OBJECT_CAMERA, light = o->kind == SKIO_OBJECT_LIGHT;
  *out = (sk_object_info){.size = sizeof *out,
                          .kind = o->kind,
                          .name = o->name,
                          .parent_object = o->parent,
                          .parent_joint = o->parent_joint,
                          .parent_mesh = o->parent_mesh,
                          .orthographic = camera && o->ortho,
                          .yfov = camera && !o->ortho ? o->yfov : 0.0f,
                          .aspect = camera ? o->aspect : 0.0f,
                          .xmag = camera && o->ortho ? o->xmag : 0.0f,
                          .ymag = camera && o->ortho ? o->ymag : 0.0f,
                          .znear = camera ? o->znear : 0.0f,
                          .zfar = camera ? o->zfar : 0.0f,
                          .light_type = light ? o->light : -1,
                          .intensity = light ? o->intensity : 0.0f,
                          .inner_cone = light && o->light == SKIO_LIGHT_SPOT ? o->inner_cone : 0.0f,
                          .outer_cone = light && o->light == SKIO_LIGHT_SPOT ? o->outer_cone : 0.0f};
  memcpy(out->world, o->world, sizeof out->world);
  memcpy(out->parent_world, o->parent_rest, sizeof out->parent_world);
  if (light) memcpy(out->color, o->color, sizeof out->color);
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_scene_animation_key_times(const sk_scene* scene, uint32_t anim, double* out, size_t capacity,
                                              size_t* out_count, sk_error* err) {
  if (!scene || !out_count || (!out && capacity))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and out_count must not be NULL, nor out with a capacity");
  double* t = NULL;
  size_t n = 0;
  skc_err e = {0};
  int rc = skio_anim_key_times(scene->io, anim, &t, &n, &e);
  if (!rc) {
    *out_count = n;
    if (n && capacity) memcpy(out, t, (n < capacity ? n : capacity) * sizeof *t);
  }
  free(t);
  return sk__ret(rc, &e, err);
}

/* sk_object_info -> skio_object (strings borrowed; skio_scene_add_object copies them). */
static skio_object object_of_info(const sk_object_info* in) {
  skio_object o;
  memset(&o, 0, sizeof o);
  o.name = (char*)in->name;
  o.kind = in->kind >= 0 && in->kind <= SK_OBJECT_LIGHT ? (uint8_t)in->kind : UINT8_MAX;
  o.parent = in->parent_object >= 0 ? in->parent_object : -1;
  o.parent_joint = (char*)in->parent_joint;
  o.parent_mesh = (char*)in->parent_mesh;
  memcpy(o.world, in->world, sizeof o.world);
  if (o.kind == SKIO_OBJECT_CAMERA) {
    o.ortho = in->orthographic != 0;
    o.yfov = in->yfov;
    o.aspect = in->aspect;
    o.xmag = in->xmag;
    o.ymag = in->ymag;
    o.znear = in->znear;
    o.zfar = in->zfar;
  }
  if (o.kind == SKIO_OBJECT_LIGHT) {
    o.light = in->light_type >= 0 && in->light_type <= SK_LIGHT_SPOT ? (uint8_t)in->light_type : UINT8_MAX;
    memcpy(o.color, in->color, sizeof o.color);
    o.inner_cone = in->inner_cone;
    o.outer_cone = in->outer_cone;
  }
  return o;
}

SK_API sk_result sk_scene_add_object(sk_scene* scene, const sk_object_info* object, uint32_t* out_index,
                                     sk_error* err) {
  if (!scene || !object) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and object must not be NULL");
  SK__CHECK_SIZE(object, sk_object_info, err);
  skio_listed_object* grown = realloc(scene->objects, ((size_t)scene->object_count + 1) * sizeof *grown);
  if (!grown) SK__FAIL(err, SKC_OUT_OF_MEMORY, "out of memory adding an object");
  scene->objects = grown;
  const skio_object o = object_of_info(object);
  uint32_t k = 0;
  skc_err e = {0};
  int rc = skio_scene_add_object(scene->io, &o, object->intensity, &k, &e);
  if (rc) return sk__ret(rc, &e, err);
  skio_listed_object* entry = &scene->objects[scene->object_count];
  memset(entry, 0, sizeof *entry);
  if (skio_scene_list_object(scene->io, k, entry)) { /* the scene has it; the listing will not: undo */
    skio_listed_objects_free(entry, 1);
    skio_scene_drop_last_object(scene->io);
    SK__FAIL(err, SKC_OUT_OF_MEMORY, "out of memory adding an object");
  }
  scene->object_count++;
  if (out_index) *out_index = k;
  return sk__ret(SKC_OK, NULL, err);
}

SK_API sk_result sk_scene_add_animation(sk_scene* scene, const char* name, const double* times, size_t key_count,
                                        const float* trs, const uint8_t* keyed, uint32_t* out_index, sk_error* err) {
  if (!scene || (key_count && (!times || !trs)))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene must not be NULL, nor times and trs with keys");
  skc_err e = {0};
  return sk__ret(skio_scene_add_anim(scene->io, name, times, key_count, trs, keyed, out_index, &e), &e, err);
}

static sk_result check_object_anim(const sk_scene* scene, uint32_t anim, uint32_t object, sk_error* err) {
  if (anim >= scene->io->anim_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "animation %u out of range (%u animations)", anim, scene->io->anim_count);
  if (object >= scene->object_count)
    SK__FAIL(err, SKC_OUT_OF_RANGE, "object %u out of range (%u objects)", object, scene->object_count);
  return SK_OK;
}

SK_API sk_result sk_scene_object_key_times(const sk_scene* scene, uint32_t anim, uint32_t object, double* out,
                                           size_t capacity, size_t* out_count, sk_error* err) {
  if (!scene || !out_count || (!out && capacity))
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and out_count must not be NULL, nor out with a capacity");
  sk_result r = check_object_anim(scene, anim, object, err);
  if (r) return r;
  double* t = NULL;
  size_t n = 0;
  skc_err e = {0};
  int rc = skio_object_key_times(scene->io, anim, object, &t, &n, &e); /* glTF: channels keyed by listing index */
  if (!rc) {
    *out_count = n;
    if (n && capacity) memcpy(out, t, (n < capacity ? n : capacity) * sizeof *t);
  }
  free(t);
  return sk__ret(rc, &e, err);
}

SK_API sk_result sk_scene_object_sample(const sk_scene* scene, uint32_t anim, uint32_t object, double time,
                                        float out_matrix[16], sk_error* err) {
  if (!scene || !out_matrix) SK__FAIL(err, SKC_INVALID_ARGUMENT, "scene and out_matrix must not be NULL");
  sk_result r = check_object_anim(scene, anim, object, err);
  if (r) return r;
  if (!isfinite(time)) SK__FAIL(err, SKC_INVALID_ARGUMENT, "time is not finite");
  const skio_object* o = &scene->objects[object].ob; /* the rest transform, for an object the clip does not key */
  float inv[16];
  if (!skc_mat4_inverse(o->parent_rest, inv)) skc_mat4_identity(inv);
  skc_mat4_mul(inv, o->world, out_matrix);
  skc_err e = {0};
  const int rc = scene->io->gltf ? skio_listed_object_sample(scene->io, anim, object, time, out_matrix, &e)
                                 : skio_object_sample(scene->io, anim, object, time, out_matrix, &e);
  return sk__ret(rc, &e, err);
}
