/* scene_objects.c - cameras, punctual lights and empty nodes outside the skeleton and the meshes (skio_object).
 *
 * A file around a character often holds more than the character: a camera and lights for the shot, locators and
 * markers a level or an engine reads by name. Those nodes are neither joints nor meshes; each becomes an object
 * with its world transform (the file's frame; scene_frame.c moves it with the rest), its parent object or the
 * nearest joint above it, and for cameras and lights what glTF can say of them.
 *
 * Assimp's cameras: mLookAt and mUp in the node's frame (FBX +X forward, Collada -Z) and, from its FBX and Collada
 * readers (Blender 3.4's files measured), the *full* horizontal field of view in mHorizontalFOV (its header says
 * half). Lights: mDirection and mUp in the node's frame, the colour multiplied by the intensity (Blender's W through
 * FBX and Collada alike), the spot cone as full angles (FBX's InnerAngle / OuterAngle; Collada's falloff_angle in
 * the inner angle and an outer angle made up from the falloff exponent, so there the inner one is taken as the
 * cone, with no inner cone: Collada 1.4 has none). The
 * camera's or light's frame is folded into the object's world transform, so that the object itself looks down -Z
 * with +Y up as glTF's cameras and lights do. */
#include <assimp/camera.h>
#include <assimp/light.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "skio_scene.h"

static float len3(const float v[3]) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static void cross3(const float a[3], const float b[3], float out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The frame whose -Z is `forward` and whose +Y is `up` made orthogonal to it (any perpendicular when up is zero or
 * parallel), placed at `at`: column-major. false when forward is zero or not finite. */
static bool look_frame(const float forward[3], const float up[3], const float at[3], float m[16]) {
  float z[3], y[3], x[3];
  const float lf = len3(forward);
  if (!(lf > 0.0f) || !isfinite(lf)) return false;
  for (int i = 0; i < 3; ++i) z[i] = -forward[i] / lf;
  const float* tries[3] = {up, (const float[3]){0, 1, 0}, (const float[3]){1, 0, 0}};
  for (int t = 0; t < 3; ++t) {
    const float d = tries[t][0] * z[0] + tries[t][1] * z[1] + tries[t][2] * z[2];
    for (int i = 0; i < 3; ++i) y[i] = tries[t][i] - d * z[i];
    const float ly = len3(y);
    if (ly > 1e-4f * (len3(tries[t]) + 1e-30f) && isfinite(ly)) {
      for (int i = 0; i < 3; ++i) y[i] /= ly;
      break;
    }
  }
  cross3(y, z, x);
  skc_mat4_identity(m);
  for (int i = 0; i < 3; ++i) {
    m[i] = x[i];
    m[4 + i] = y[i];
    m[8 + i] = z[i];
    m[12 + i] = at[i];
  }
  return true;
}

static int cmp_named(const void* a, const void* b) {
  const skio_ai_named *x = a, *y = b;
  const int c = strcmp(x->name, y->name);
  if (c) return c;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

bool skio_ai_index_build(const struct aiScene* ai, skio_ai_index* x) {
  const uint32_t nc = ai->mCameras ? ai->mNumCameras : 0, nl = ai->mLights ? ai->mNumLights : 0;
  x->n = 0;
  if (!(x->e = malloc(((size_t)nc + nl + 1) * sizeof *x->e))) return false;
  for (uint32_t k = 0; k < nc; ++k)
    if (ai->mCameras[k]) x->e[x->n++] = (skio_ai_named){ai->mCameras[k]->mName.data, SKIO_OBJECT_CAMERA, k};
  for (uint32_t k = 0; k < nl; ++k)
    if (ai->mLights[k]) x->e[x->n++] = (skio_ai_named){ai->mLights[k]->mName.data, SKIO_OBJECT_LIGHT, k};
  qsort(x->e, x->n, sizeof *x->e, cmp_named);
  return true;
}

const skio_ai_named* skio_ai_index_find(const skio_ai_index* x, const char* name) {
  uint32_t lo = 0, hi = x->n; /* the first entry with the name: a camera before a light, each the first of its kind */
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (strcmp(x->e[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < x->n && strcmp(x->e[lo].name, name) == 0 ? &x->e[lo] : NULL;
}

void skio_ai_index_free(skio_ai_index* x) {
  free(x->e);
  x->e = NULL;
  x->n = 0;
}

static float finite_or(float v, float fallback) { return isfinite(v) ? v : fallback; }

/* A camera: its frame folded into o->world (node world w), the vertical field of view from the full horizontal
 * one and the aspect ratio. */
static void read_camera(const struct aiCamera* c, const float w[16], skio_object* o) {
  const float fwd[3] = {c->mLookAt.x, c->mLookAt.y, c->mLookAt.z}, up[3] = {c->mUp.x, c->mUp.y, c->mUp.z};
  const float at[3] = {c->mPosition.x, c->mPosition.y, c->mPosition.z};
  if (look_frame(fwd, up, at, o->look)) skc_mat4_mul(w, o->look, o->world);
  o->kind = SKIO_OBJECT_CAMERA;
  const float aspect = finite_or(c->mAspect, 0.0f) > 0.0f ? c->mAspect : 0.0f;
  float hfov = finite_or(c->mHorizontalFOV, 0.0f);
  if (!(hfov > 1e-4f && hfov < 3.1f)) hfov = 0.25f * 3.14159265f;
  o->aspect = aspect;
  o->yfov = fmaxf(aspect > 0.0f ? 2.0f * atanf(tanf(0.5f * hfov) / aspect) : hfov, 1e-4f); /* glTF: > 0 */
  o->znear = finite_or(c->mClipPlaneNear, 0.0f) > 0.0f ? c->mClipPlaneNear : 0.01f;
  o->zfar = finite_or(c->mClipPlaneFar, 0.0f) > o->znear ? c->mClipPlaneFar : 0.0f; /* 0: infinite */
}

/* A light: its frame folded into o->world, colour and intensity apart, cone half-angles (Collada: the falloff angle
 * is the cone, no inner cone). false for the types glTF's punctual lights do not have (ambient, area). */
static bool read_light(const struct aiLight* l, const float w[16], bool collada, skio_object* o) {
  if (l->mType != aiLightSource_DIRECTIONAL && l->mType != aiLightSource_POINT && l->mType != aiLightSource_SPOT)
    return false;
  const float fwd[3] = {l->mDirection.x, l->mDirection.y, l->mDirection.z}, up[3] = {l->mUp.x, l->mUp.y, l->mUp.z};
  const float at[3] = {l->mPosition.x, l->mPosition.y, l->mPosition.z};
  if (look_frame(fwd, up, at, o->look)) skc_mat4_mul(w, o->look, o->world);
  o->kind = SKIO_OBJECT_LIGHT;
  o->light = l->mType == aiLightSource_DIRECTIONAL ? SKIO_LIGHT_DIRECTIONAL
             : l->mType == aiLightSource_POINT     ? SKIO_LIGHT_POINT
                                                   : SKIO_LIGHT_SPOT;
  const float c[3] = {finite_or(l->mColorDiffuse.r, 0.0f), finite_or(l->mColorDiffuse.g, 0.0f),
                      finite_or(l->mColorDiffuse.b, 0.0f)};
  float top = fmaxf(fmaxf(c[0], c[1]), c[2]);
  for (int i = 0; i < 3; ++i) o->color[i] = top > 0.0f ? fmaxf(c[i], 0.0f) / top : 1.0f;
  o->intensity = top > 0.0f ? top : 0.0f;
  const float half_pi = 1.5707963f;
  float outer = 0.5f * finite_or(l->mAngleOuterCone, 0.0f), inner = 0.5f * finite_or(l->mAngleInnerCone, 0.0f);
  if (collada) outer = inner, inner = 0.0f; /* the falloff angle is the cone (see the top) */
  o->outer_cone = outer > 0.0f && outer <= half_pi ? outer : 0.7853982f;
  o->inner_cone = inner >= 0.0f && inner < o->outer_cone ? inner : 0.0f;
  return true;
}

static bool collada(const skio_scene* s) {
  const char* dot = s->source ? strrchr(s->source, '.') : NULL;
  return dot && strcasecmp(dot, ".dae") == 0;
}

static char* dup(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Appends name to a note list of at most two names and "..." */
static void list_name(char* buf, size_t size, uint32_t* listed, const char* name) {
  size_t n = strlen(buf);
  if (*listed < 2 && n + 4 < size)
    snprintf(buf + n, size - n, "%s\"%.24s\"", *listed ? ", " : "", name);
  else if (*listed == 2 && n + 6 < size)
    snprintf(buf + n, size - n, ", ...");
  ++*listed;
}

/* Node i's world transform from its parent's (worlds of the earlier nodes). */
static void node_world(const skio_object_source* nodes, uint32_t i, const float* worlds, float out[16]) {
  float local[16];
  skio_mat_from_ai(&nodes[i].node->mTransformation.a1, local);
  if (nodes[i].parent >= 0 && (uint32_t)nodes[i].parent < i)
    skc_mat4_mul(worlds + (size_t)nodes[i].parent * 16, local, out);
  else
    memcpy(out, local, sizeof local);
}

/* The object of node i: name, parent, world, camera or light. 1: read; 0: left out (listed in lost); -1: out of
 * memory. */
static int read_object(skio_scene* s, const struct aiScene* ai, const skio_ai_index* idx,
                       const skio_object_source* nodes, uint32_t i, const float* worlds, const int32_t* object_of,
                       skio_object* o, char* lost, uint32_t* nlost) {
  memset(o, 0, sizeof *o);
  memcpy(o->world, worlds + (size_t)i * 16, sizeof o->world);
  skc_mat4_identity(o->look);
  if (nodes[i].parent >= 0 && (uint32_t)nodes[i].parent < i)
    memcpy(o->parent_rest, worlds + (size_t)nodes[i].parent * 16, sizeof o->parent_rest);
  else
    skc_mat4_identity(o->parent_rest);
  const struct aiNode* n = nodes[i].node;
  const skio_ai_named* hit = skio_ai_index_find(idx, n->mName.data);
  const struct aiCamera* cam = hit && hit->kind == SKIO_OBJECT_CAMERA ? ai->mCameras[hit->index] : NULL;
  const struct aiLight* light = hit && hit->kind == SKIO_OBJECT_LIGHT ? ai->mLights[hit->index] : NULL;
  if (cam) read_camera(cam, worlds + (size_t)i * 16, o);
  if (light && !read_light(light, worlds + (size_t)i * 16, collada(s), o)) {
    list_name(lost, 160, nlost, n->mName.data);
    return 0;
  }
  o->parent = -1;
  for (int32_t p = nodes[i].parent; p >= 0 && (uint32_t)p < i; p = nodes[p].parent) {
    if (nodes[p].parent < 0) break; /* the file's root (a Collada <visual_scene>, FBX's RootNode): the top level */
    if (object_of[p] >= 0) {
      o->parent = object_of[p];
      break;
    }
    if (nodes[p].joint >= 0 && s->skeleton && (uint32_t)nodes[p].joint < s->skeleton->joint_count) {
      if (!(o->parent_joint = dup(s->skeleton->names[nodes[p].joint]))) return -1;
      break;
    }
    if (nodes[p].node->mNumMeshes > 0) { /* a mesh's node (the glTF writer writes it with the mesh) */
      if (!(o->parent_mesh = dup(nodes[p].node->mName.data))) return -1;
      break;
    }
  }
  if (!skc_mat4_is_finite(o->world) || !skc_mat4_is_finite(o->parent_rest)) { /* damaged: nothing to place */
    free(o->parent_joint);
    free(o->parent_mesh);
    o->parent_joint = o->parent_mesh = NULL;
    list_name(lost, 160, nlost, n->mName.data);
    return 0;
  }
  o->name = dup(n->mName.data);
  return o->name ? 1 : -1;
}

void skio_scene_free_object_channels(skio_scene* s) {
  for (uint32_t c = 0; s->object_channels && c < s->object_channel_count; ++c)
    skio_channel_free(&s->object_channels[c].ch);
  free(s->object_channels);
  s->object_channels = NULL;
  s->object_channel_count = 0;
}

void skio_scene_free_objects(skio_scene* s) {
  skio_scene_free_object_channels(s);
  for (uint32_t k = 0; s->objects && k < s->object_count; ++k) {
    free(s->objects[k].name);
    free(s->objects[k].parent_joint);
    free(s->objects[k].parent_mesh);
  }
  free(s->objects);
  s->objects = NULL;
  s->object_count = 0;
}

int skio_scene_read_objects(skio_scene* s, const struct aiScene* ai, const skio_object_source* nodes, uint32_t n,
                            int32_t* object_of_out, skc_err* err) {
  float* worlds = malloc(((size_t)n + 1) * 16 * sizeof(float));
  int32_t* object_of = malloc(((size_t)n + 1) * sizeof(int32_t));
  s->objects = calloc((size_t)n + 1, sizeof *s->objects);
  skio_ai_index idx = {NULL, 0};
  if (!worlds || !object_of || !s->objects || !skio_ai_index_build(ai, &idx)) {
    free(worlds);
    free(object_of);
    skio_scene_free_objects(s);
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading the scene's objects");
  }
  char lost[160] = "";
  uint32_t nlost = 0;
  int rc = SKC_OK;
  for (uint32_t i = 0; i < n && !rc; ++i) {
    node_world(nodes, i, worlds, worlds + (size_t)i * 16);
    object_of[i] = -1;
    if (nodes[i].held || nodes[i].parent < 0 || strstr(nodes[i].node->mName.data, "$AssimpFbx$")) continue;
    skio_object* o = &s->objects[s->object_count];
    const int got = read_object(s, ai, &idx, nodes, i, worlds, object_of, o, lost, &nlost);
    if (got > 0) object_of[i] = (int32_t)s->object_count++;
    if (got < 0) {
      free(o->parent_joint);
      free(o->parent_mesh);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory reading the scene's objects");
    }
  }
  if (object_of_out && !rc) memcpy(object_of_out, object_of, (size_t)n * sizeof *object_of);
  free(worlds);
  free(object_of);
  skio_ai_index_free(&idx);
  if (rc) {
    skio_scene_free_objects(s);
    return rc;
  }
  if (!s->object_count) skio_scene_free_objects(s);
  if (nlost) {
    char line[320];
    snprintf(line, sizeof line, "not read: %u ambient or area light(s) or node(s) without a finite transform (%s)",
             nlost, lost);
    skio_scene_note(s, line);
  }
  return SKC_OK;
}
