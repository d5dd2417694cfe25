/* scene_add_object.c - a camera, light or empty added to a scene by hand (the ABI's sk_scene_add_object: the Blender
 * addon's export of the objects around a character), checked as a reader's would be, for the writers that write
 * skio_scene.objects (the glTF writer; the others name them as not written). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_math.h"
#include "skio_scene.h"

static bool finite_all(const float* v, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(v[i])) return false;
  return true;
}

static int check_camera(const skio_object* o, skc_err* err) {
  const float lens[6] = {o->yfov, o->aspect, o->xmag, o->ymag, o->znear, o->zfar};
  if (!finite_all(lens, 6) || o->aspect < 0.0f || o->znear < 0.0f || o->zfar < 0.0f)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "camera \"%s\": lens values must be finite, none negative", o->name);
  if (o->ortho && !(o->xmag > 0.0f && o->ymag > 0.0f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "orthographic camera \"%s\": xmag and ymag must be > 0", o->name);
  if (!o->ortho && !(o->yfov > 0.0f && o->yfov < 3.14159265f))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "camera \"%s\": yfov %g is not in (0, pi)", o->name, (double)o->yfov);
  return SKC_OK;
}

static int check_light(const skio_object* o, double intensity, skc_err* err) {
  if (o->light > SKIO_LIGHT_SPOT)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "light \"%s\": type %u (0 directional, 1 point, 2 spot)", o->name,
                    (unsigned)o->light);
  if (!finite_all(o->color, 3) || o->color[0] < 0.0f || o->color[1] < 0.0f || o->color[2] < 0.0f ||
      !isfinite(intensity) || intensity < 0.0)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "light \"%s\": colour and intensity must be finite and >= 0", o->name);
  const bool cones = isfinite(o->inner_cone) && isfinite(o->outer_cone) && o->inner_cone >= 0.0f &&
                     o->inner_cone <= o->outer_cone && o->outer_cone > 0.0f && o->outer_cone <= 1.5707964f;
  if (o->light == SKIO_LIGHT_SPOT && !cones)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "spot light \"%s\": cones need 0 <= inner <= outer <= pi/2, outer > 0",
                    o->name);
  return SKC_OK;
}

/* What the object hangs from: an object added before it, or a joint of the skeleton by name. */
static int check_parents(const skio_scene* s, const skio_object* o, skc_err* err) {
  if (o->parent >= 0 && (uint32_t)o->parent >= s->object_count)
    return skc_fail(err, SKC_OUT_OF_RANGE, "object \"%s\": parent object %d of %u", o->name, (int)o->parent,
                    s->object_count);
  if (o->parent < 0 && o->parent_joint) {
    const skc_skeleton* sk = s->skeleton;
    uint32_t j = 0;
    while (sk && j < sk->joint_count && strcmp(sk->names[j], o->parent_joint) != 0) ++j;
    if (!sk || j == sk->joint_count)
      return skc_fail(err, SKC_INVALID_ARGUMENT, "object \"%s\": no joint \"%s\" in the scene's skeleton", o->name,
                      o->parent_joint);
  }
  return SKC_OK;
}

int skio_scene_add_object(skio_scene* s, const skio_object* in, double gltf_intensity, uint32_t* out, skc_err* err) {
  if (s->gltf)
    return skc_fail(err, SKC_UNSUPPORTED,
                    "%s: a scene read from a glTF document keeps that document's nodes; objects can be added to "
                    "scenes made with sk_scene_create or read through Assimp",
                    s->source);
  if (in->kind > SKIO_OBJECT_LIGHT)
    return skc_fail(err, SKC_INVALID_ARGUMENT, "object kind %u (0 empty, 1 camera, 2 light)", (unsigned)in->kind);
  char fallback[32];
  snprintf(fallback, sizeof fallback, "object%u", s->object_count);
  skio_object o = *in;
  o.name = (char*)(in->name && in->name[0] ? in->name : fallback);
  if (!finite_all(in->world, 16))
    return skc_fail(err, SKC_INVALID_ARGUMENT, "object \"%s\": world matrix not finite", o.name);
  int rc = check_parents(s, &o, err);
  if (!rc && o.kind == SKIO_OBJECT_CAMERA) rc = check_camera(&o, err);
  if (!rc && o.kind == SKIO_OBJECT_LIGHT) rc = check_light(&o, gltf_intensity, err);
  if (rc) return rc;
  skio_object* grown = realloc(s->objects, ((size_t)s->object_count + 1) * sizeof *grown);
  if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding object \"%s\"", o.name);
  s->objects = grown;
  o.parent = o.parent >= 0 ? o.parent : -1;
  o.name = skio_dup_or_null(o.name);
  o.parent_joint = o.parent < 0 ? skio_dup_or_null(in->parent_joint) : NULL;
  o.parent_mesh = o.parent < 0 && !in->parent_joint ? skio_dup_or_null(in->parent_mesh) : NULL;
  if (!o.name || (o.parent < 0 && in->parent_joint && !o.parent_joint) ||
      (o.parent < 0 && !in->parent_joint && in->parent_mesh && !o.parent_mesh)) {
    free(o.name);
    free(o.parent_joint);
    free(o.parent_mesh);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory adding an object");
  }
  skc_mat4_identity(o.look);
  skc_mat4_identity(o.parent_rest);
  if (o.kind == SKIO_OBJECT_LIGHT) { /* the scene keeps the source's units (Blender's W, W/m^2) */
    o.intensity = 1.0f;
    o.intensity = (float)(gltf_intensity / skio_light_gltf_intensity(&o));
  }
  s->objects[s->object_count] = o;
  if (out) *out = s->object_count;
  s->object_count++;
  return SKC_OK;
}

void skio_scene_drop_last_object(skio_scene* s) {
  if (!s->object_count) return;
  skio_object* o = &s->objects[--s->object_count];
  free(o->name);
  free(o->parent_joint);
  free(o->parent_mesh);
}
