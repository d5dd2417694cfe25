/* scene_export_objects.c - a scene's empty nodes (locators, sockets, markers: skio_scene_list_objects) in the aiScene
 * that Assimp's Collada and FBX writers write. Before, a file written anew through Assimp dropped every camera, light
 * and empty of its source (named in the note): a glTF character's "weapon_socket" under the hand bone, converted to
 * FBX for an engine, was gone. Each empty becomes a node under what it hangs from in the source - another written
 * empty, the joint's node, the node drawing the mesh (Collada only: Blender's FBX importer places a skinned mesh's
 * object by its bind pose, and a child of it with it, so in .fbx such an empty hangs from the root), else the root -
 * at its rest place (its world in the scene's frame, made local to that node's), and its clip keys become node
 * channels (each key's transform taken from the source parent's frame into the new parent's): FBX's per clip,
 * Collada's on the one timeline its clips share. An empty under a camera or light (not written) hangs from the root at
 * its place. Cameras and lights are not written: Assimp 5.2's FBX writer has neither, and its Collada writer's
 * conversions of them are not checked here (the note names them). */
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skc_math.h"
#include "skio_collada.h"
#include "skio_scene.h"

/* The first node named name below (and at) n, or NULL; want_mesh: only nodes that draw a mesh. */
static struct aiNode* find_node(struct aiNode* n, const char* name, bool want_mesh, uint32_t depth) {
  if (!n || depth > 4096) return NULL;
  if (!strcmp(n->mName.data, name) && (!want_mesh || n->mNumMeshes)) return n;
  for (unsigned i = 0; i < n->mNumChildren; ++i) {
    struct aiNode* hit = find_node(n->mChildren[i], name, want_mesh, depth + 1);
    if (hit) return hit;
  }
  return NULL;
}

/* Node n's world transform in the aiScene (the root's own transform included). */
static void node_world(const struct aiNode* n, float out[16]) {
  skc_mat4_identity(out);
  for (uint32_t depth = 0; n && depth < 4096; n = n->mParent, ++depth) {
    float local[16], w[16];
    skio_mat_from_ai(&n->mTransformation.a1, local);
    skc_mat4_mul(local, out, w);
    memcpy(out, w, sizeof w);
  }
}

/* The node listed object e hangs from in the aiScene (written[] the nodes of the objects before it); a mesh's node
 * only with mesh_parents (see skio_ai_object_nodes). */
static struct aiNode* parent_node(const skio_listed_object* e, struct aiNode* root, struct aiNode* const* written,
                                  bool mesh_parents) {
  if (e->ob.parent >= 0) return written[e->ob.parent] ? written[e->ob.parent] : root;
  struct aiNode* n = e->ob.parent_joint ? find_node(root, e->ob.parent_joint, false, 0) : NULL;
  if (!n && e->ob.parent_mesh && mesh_parents) n = find_node(root, e->ob.parent_mesh, true, 0);
  return n ? n : root;
}

void skio_ai_objects_free(skio_ai_objects* o) {
  free(o->node);
  free(o->to_export);
  free(o->look);
  for (unsigned k = 0; k < o->cam_count; ++k) free(o->cams[k]);
  for (unsigned k = 0; k < o->lamp_count; ++k) free(o->lamps[k]);
  free(o->cams);
  free(o->lamps);
  free(o->lamp_blend);
  free(o->cam_ortho);
  for (uint32_t k = 0; k < o->lens_count; ++k) free(o->lens_obs[k].name);
  free(o->lens_obs);
  memset(o, 0, sizeof *o);
}

static void ai_name(struct aiString* s, const char* name) {
  snprintf(s->data, sizeof s->data, "%s", name);
  s->length = (uint32_t)strlen(s->data);
}

/* A perspective camera as Assimp's Collada writer takes it: looking down its node's -Z with +Y up (the object's own
 * axes, as Collada's), the full horizontal field of view in mHorizontalFOV (radians; it writes <xfov> in degrees)
 * from the vertical one and the aspect ratio (1 when not given), clip planes (an infinite far plane at 1000 units). */
static struct aiCamera* ai_camera(const skio_object* ob) {
  struct aiCamera* c = calloc(1, sizeof *c);
  if (!c) return NULL;
  ai_name(&c->mName, ob->name);
  c->mUp = (struct aiVector3D){0, 1, 0};
  c->mLookAt = (struct aiVector3D){0, 0, -1};
  c->mAspect = ob->aspect > 0.0f && isfinite(ob->aspect) ? ob->aspect : 1.0f;
  c->mHorizontalFOV = 2.0f * atanf(tanf(0.5f * ob->yfov) * c->mAspect);
  c->mClipPlaneNear = ob->znear > 0.0f ? ob->znear : 0.01f;
  c->mClipPlaneFar = ob->zfar > c->mClipPlaneNear ? ob->zfar : 1000.0f;
  return c;
}

/* A light as Assimp's Collada writer takes it: the colour times the intensity (listed in glTF's units: turned back
 * into Blender's W, as Blender's Collada exporter writes it and the readers take it back), no attenuation but the
 * constant 1; a spot's cone as the full falloff angle (mAngleInnerCone) and its blend (1 - inner / outer half-angle,
 * Blender's spot blend) as what the writer turns into the falloff exponent: log 0.1 / log cos(outer - inner), so outer
 * - inner = acos(0.1^(1 / blend)), kept within 89 degrees (its cosine must stay positive in float). */
static struct aiLight* ai_light(const skio_object* ob) {
  struct aiLight* l = calloc(1, sizeof *l);
  if (!l) return NULL;
  ai_name(&l->mName, ob->name);
  l->mType = ob->light == SKIO_LIGHT_DIRECTIONAL ? aiLightSource_DIRECTIONAL
             : ob->light == SKIO_LIGHT_SPOT      ? aiLightSource_SPOT
                                                 : aiLightSource_POINT;
  l->mDirection = (struct aiVector3D){0, 0, -1};
  l->mUp = (struct aiVector3D){0, 1, 0};
  const double per = skio_light_gltf_intensity(&(skio_object){.light = ob->light, .intensity = 1.0f});
  const float k = isfinite(ob->intensity) && ob->intensity > 0.0f ? (float)(ob->intensity / per) : 0.0f; /* W */
  l->mColorDiffuse = (struct aiColor3D){ob->color[0] * k, ob->color[1] * k, ob->color[2] * k};
  l->mColorSpecular = l->mColorDiffuse;
  l->mAttenuationConstant = 1.0f;
  if (l->mType == aiLightSource_SPOT) {
    const float outer = ob->outer_cone > 0.0f ? ob->outer_cone : 0.7853982f;
    const double blend = fmin(fmax(1.0 - (double)ob->inner_cone / outer, 1e-3), 1.0);
    l->mAngleInnerCone = 2.0f * outer;
    l->mAngleOuterCone = l->mAngleInnerCone + (float)fmin(acos(pow(0.1, 1.0 / blend)), 89.0 * 3.14159265358979 / 180.0);
  }
  return l;
}

/* FBX's frame of a camera (it looks down +X with +Y up) and of a light (down -Y with -Z up) in its node, as Assimp's
 * and Blender's FBX readers take them: the columns of the frame whose -Z is that direction (scene_objects.c
 * look_frame); the identity for an empty. */
static const float k_fbx_camera[16] = {0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1};
static const float k_fbx_light[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};

/* The inverse of the frame the written node gives listed object e's kind (lenses: SKIO_LENSES_*), into fix. */
static void node_fix(const skio_listed_object* e, int lenses, float fix[16]) {
  const float* f = lenses != SKIO_LENSES_FBX          ? NULL
                   : e->ob.kind == SKIO_OBJECT_CAMERA ? k_fbx_camera
                   : e->ob.kind == SKIO_OBJECT_LIGHT  ? k_fbx_light
                                                      : NULL;
  skc_mat4_identity(fix);
  for (int c = 0; f && c < 3; ++c) /* a rotation: its inverse is its transpose */
    for (int r = 0; r < 3; ++r) fix[c * 4 + r] = f[r * 4 + c];
}

/* Appends listed object e to out's lenses for skio_fbx_add_lenses; false when out of memory. */
static bool add_fbx_lens(const skio_listed_object* e, skio_ai_objects* out) {
  skio_object* grown = realloc(out->lens_obs, (out->lens_count + 1) * sizeof *grown);
  if (!grown) return false;
  out->lens_obs = grown;
  skio_object* o = &grown[out->lens_count];
  *o = e->ob;
  o->parent_joint = o->parent_mesh = NULL;
  if (!(o->name = skio_dup_or_null(e->ob.name))) return false;
  out->lens_count++;
  return true;
}

/* Appends listed object e's camera or light to out's (lenses); false when out of memory. */
static bool add_lens(const skio_listed_object* e, int lenses, skio_ai_objects* out) {
  if (lenses == SKIO_LENSES_FBX) return add_fbx_lens(e, out);
  if (e->ob.kind == SKIO_OBJECT_CAMERA) {
    struct aiCamera** grown = realloc(out->cams, (out->cam_count + 1) * sizeof *grown);
    if (grown) out->cams = grown;
    float* ortho = grown ? realloc(out->cam_ortho, (out->cam_count + 1) * 2 * sizeof *ortho) : NULL;
    if (ortho) out->cam_ortho = ortho;
    struct aiCamera* c = ortho ? ai_camera(&e->ob) : NULL;
    if (!c) return false;
    ortho[out->cam_count * 2] = e->ob.ortho ? e->ob.xmag : 0.0f;
    ortho[out->cam_count * 2 + 1] = e->ob.ortho ? (e->ob.ymag > 0.0f ? e->ob.ymag : e->ob.xmag) : 0.0f;
    out->cams[out->cam_count++] = c;
    return true;
  }
  struct aiLight** grown = realloc(out->lamps, (out->lamp_count + 1) * sizeof *grown);
  if (grown) out->lamps = grown;
  float* blends = grown ? realloc(out->lamp_blend, (out->lamp_count + 1) * sizeof *blends) : NULL;
  if (blends) out->lamp_blend = blends;
  struct aiLight* l = blends ? ai_light(&e->ob) : NULL;
  if (!l) return false;
  const float outer = e->ob.outer_cone > 0.0f ? e->ob.outer_cone : 0.7853982f;
  out->lamp_blend[out->lamp_count] =
      e->ob.light == SKIO_LIGHT_SPOT ? fminf(fmaxf(1.0f - e->ob.inner_cone / outer, 0.0f), 1.0f) : 0.0f;
  out->lamps[out->lamp_count++] = l;
  return true;
}

/* Whether listed object e is written as a node: an empty, or with lenses a camera or a light. */
static bool written_kind(const skio_listed_object* e, int lenses) {
  return e->ob.kind == SKIO_OBJECT_EMPTY || lenses != SKIO_LENSES_NONE;
}

/* A glTF document's objects are listed in the document's frame: the view the writer gets (scene_frame.c) may be
 * turned (Collada's Z up), which doc_frame gives. */
static void in_view(const skio_scene* s, const float* doc_frame, skio_listed_object* e) {
  if (!s->gltf || !doc_frame) return;
  float w[16], p[16];
  skc_mat4_mul(doc_frame, e->ob.world, w);
  skc_mat4_mul(doc_frame, e->ob.parent_rest, p);
  memcpy(e->ob.world, w, sizeof w);
  memcpy(e->ob.parent_rest, p, sizeof p);
}

/* A glTF source's empty (listed from its document) with its node's own axes as Blender's FBX and Collada importers
 * expect them (skio_scene_object_basis; the view gave the scene's own objects theirs): world postmultiplied by the
 * basis, which look then holds so that the keys (local to the source parent) take it too. Every listing of the
 * writer takes it (nodes, FBX's clip channels, Collada's timeline): source_local then gives the source's rest back,
 * whose components a channel does not key. */
static void empty_axes(const skio_scene* s, skio_listed_object* e, float look[16]) {
  const float* p = s->gltf && e->ob.kind == SKIO_OBJECT_EMPTY ? skio_scene_object_basis(s, false) : NULL;
  if (!p) return;
  float w[16];
  skc_mat4_mul(e->ob.world, p, w);
  memcpy(e->ob.world, w, sizeof w);
  memcpy(look, p, 16 * sizeof *look);
}

int skio_ai_object_nodes(const skio_scene* s, struct aiNode* root, const float* doc_frame, bool mesh_parents,
                         int lenses, skio_ai_objects* out, skc_err* err) {
  memset(out, 0, sizeof *out);
  skio_listed_object* L = NULL;
  uint32_t n = 0;
  int rc = root ? skio_scene_list_objects(s, &L, &n, err) : SKC_OK;
  if (rc || !n) return rc;
  out->count = n;
  out->node = calloc(n, sizeof *out->node);
  out->to_export = malloc((size_t)n * 16 * sizeof *out->to_export);
  out->look = malloc((size_t)n * 16 * sizeof *out->look);
  if (!out->node || !out->to_export || !out->look)
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory writing the scene's nodes");
  for (uint32_t i = 0; i < n && !rc; ++i) {
    skio_listed_object* e = &L[i];
    in_view(s, doc_frame, e);
    /* the listing folds a camera's or light's frame into world and lists look as the identity; keys are the node's,
     * turned into the written node's frame for the kind (fix) */
    float fix[16], look[16];
    node_fix(e, lenses, fix);
    if (!s->gltf && i < s->object_count)
      memcpy(look, s->objects[i].look, sizeof look);
    else
      skc_mat4_identity(look);
    empty_axes(s, e, look);
    skc_mat4_mul(look, fix, out->look + (size_t)i * 16);
    if (!written_kind(e, lenses)) {
      out->cameras += e->ob.kind == SKIO_OBJECT_CAMERA;
      out->lights += e->ob.kind == SKIO_OBJECT_LIGHT;
      continue;
    }
    if (e->ob.kind != SKIO_OBJECT_EMPTY && !add_lens(e, lenses, out)) {
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory writing the scene's cameras and lights");
      break;
    }
    struct aiNode* up = parent_node(e, root, out->node, mesh_parents);
    struct aiNode* node = skio_ai_new_node(e->ob.name, up);
    if (!node || !skio_ai_add_child(up, node)) {
      free(node);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory writing the scene's nodes");
      break;
    }
    float pw[16], inv[16], local[16], at[16];
    node_world(up, pw);
    if (!skc_mat4_inverse(pw, inv)) skc_mat4_identity(inv);
    skc_mat4_mul(e->ob.world, fix, at);
    skc_mat4_mul(inv, at, local);
    skio_mat_to_ai(local, &node->mTransformation.a1);
    skc_mat4_mul(inv, e->ob.parent_rest, out->to_export + (size_t)i * 16); /* source parent -> new parent */
    out->node[i] = node;
    out->empties += e->ob.kind == SKIO_OBJECT_EMPTY;
  }
  skio_listed_objects_free(L, n);
  if (rc) skio_ai_objects_free(out);
  return rc;
}

/* Keys k.. of na: the empty at times t[0..n) of its channel ch (NULL: at rest), local to its source parent with rest
 * components from rest, taken into the new parent's frame by x, at offset + t. Returns the next key index; keys that
 * would need a shear count in *dropped. */
static unsigned put_keys(struct aiNodeAnim* na, unsigned k, const skio_channel* ch, const double* t, size_t n,
                         double offset, const float rest[16], const float x[16], const float look[16],
                         uint32_t* dropped) {
  skc_trs r0;
  if (!skc_mat4_to_trs(rest, &r0, 1e-4f)) skc_trs_identity(&r0);
  for (size_t i = 0; i < n; ++i) {
    skc_trs p = r0;
    float m[16], ml[16], e[16];
    if (ch) skio_channel_sample(ch, t[i], &p);
    skc_trs_to_mat4(&p, m);
    skc_mat4_mul(m, look, ml); /* a camera's or light's frame on its node (identity: an empty) */
    skc_mat4_mul(x, ml, e);
    if (!skc_mat4_to_trs(e, &p, 1e-4f)) { /* shear in the new frame: no node channel holds it */
      ++*dropped;
      continue;
    }
    skio_ai_put_key(na, k++, offset + t[i], &p);
  }
  return k;
}

/* A node channel named name with room for n keys (none yet), or NULL when out of memory. */
static struct aiNodeAnim* new_channel(const char* name, size_t n) {
  struct aiNodeAnim* na = calloc(1, sizeof *na);
  if (!na) return NULL;
  na->mPositionKeys = calloc(n + 1, sizeof *na->mPositionKeys);
  na->mRotationKeys = calloc(n + 1, sizeof *na->mRotationKeys);
  na->mScalingKeys = calloc(n + 1, sizeof *na->mScalingKeys);
  if (!na->mPositionKeys || !na->mRotationKeys || !na->mScalingKeys) {
    free(na->mPositionKeys), free(na->mRotationKeys), free(na->mScalingKeys);
    free(na);
    return NULL;
  }
  snprintf(na->mNodeName.data, sizeof na->mNodeName.data, "%s", name);
  na->mNodeName.length = (uint32_t)strlen(na->mNodeName.data);
  return na;
}

static bool append_channel(struct aiAnimation* aa, struct aiNodeAnim* na) {
  struct aiNodeAnim** grown = realloc(aa->mChannels, (aa->mNumChannels + 1) * sizeof *grown);
  if (!grown) return false;
  aa->mChannels = grown;
  grown[aa->mNumChannels++] = na;
  return true;
}

/* Listed object e's source node's rest transform, local to its source parent (its camera's or light's frame look
 * taken off). */
static void source_local(const skio_listed_object* e, const float look[16], float rest[16]) {
  float inv[16], w[16], look_inv[16];
  if (!skc_mat4_inverse(e->ob.parent_rest, inv)) skc_mat4_identity(inv);
  if (!skc_mat4_inverse(look, look_inv)) skc_mat4_identity(look_inv);
  skc_mat4_mul(e->ob.world, look_inv, w);
  skc_mat4_mul(inv, w, rest);
}

/* The keys of one written empty in one clip: channel ch at the union of its key times. NULL when out of memory. */
static struct aiNodeAnim* empty_channel(const skio_channel* ch, const char* name, const float rest[16],
                                        const float x[16], const float look[16], uint32_t* dropped) {
  const size_t total = (size_t)ch->pos_count + ch->rot_count + ch->scl_count + 1;
  double* t = malloc(total * sizeof *t);
  struct aiNodeAnim* na = t ? new_channel(name, total) : NULL;
  if (na)
    na->mNumPositionKeys = na->mNumRotationKeys = na->mNumScalingKeys =
        put_keys(na, 0, ch, t, skio_channel_key_times(ch, t), 0.0, rest, x, look, dropped);
  free(t);
  return na;
}

int skio_ai_object_channels(const skio_scene* s, uint32_t anim, const skio_ai_objects* o, struct aiAnimation* aa,
                            uint32_t* dropped, skc_err* err) {
  skio_listed_object* L = NULL;
  uint32_t n = 0;
  int rc = o->empties + o->cam_count + o->lamp_count ? skio_scene_list_objects(s, &L, &n, err) : SKC_OK;
  for (uint32_t i = 0; i < n && i < o->count && !rc; ++i) {
    const skio_channel* ch = o->node[i] ? skio_object_channel_of(s, anim, i) : NULL;
    if (!ch) continue;
    float rest[16], look[16];
    empty_axes(s, &L[i], look); /* as skio_ai_object_nodes turned it: o->look holds the turn */
    source_local(&L[i], o->look + (size_t)i * 16, rest);
    struct aiNodeAnim* na = empty_channel(ch, o->node[i]->mName.data, rest, o->to_export + (size_t)i * 16,
                                          o->look + (size_t)i * 16, dropped);
    if (!na || !append_channel(aa, na)) {
      if (na) free(na->mPositionKeys), free(na->mRotationKeys), free(na->mScalingKeys), free(na);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory writing the clip keys of the scene's nodes");
    }
  }
  skio_listed_objects_free(L, n);
  return rc;
}

/* Empty i's keys on Collada's one timeline: per clip, its channel's key times plus the clip's 0 and end (at rest in
 * a clip that does not key it), at clips[k].start + t - the layout build_timeline gives the joints. */
static struct aiNodeAnim* timeline_channel(const skio_scene* s, const skio_ai_objects* o, uint32_t i,
                                           const skio_listed_object* e, const skio_clip* clips, uint32_t* dropped) {
  size_t cap = 1;
  for (uint32_t a = 0; a < s->anim_count; ++a) {
    const skio_channel* ch = skio_object_channel_of(s, a, i);
    cap += 2 + (ch ? (size_t)ch->pos_count + ch->rot_count + ch->scl_count : 0);
  }
  double* t = malloc(cap * sizeof *t);
  struct aiNodeAnim* na = t ? new_channel(o->node[i]->mName.data, cap) : NULL;
  float rest[16];
  source_local(e, o->look + (size_t)i * 16, rest);
  unsigned k = 0;
  for (uint32_t a = 0; na && a < s->anim_count; ++a) {
    const skio_channel* ch = skio_object_channel_of(s, a, i);
    const double h = clips[a].end - clips[a].start;
    size_t n = ch ? skio_channel_key_times(ch, t) : 0;
    t[n++] = 0.0;
    if (h > 0.0) t[n++] = h;
    n = skio_sorted_unique_times(t, n);
    k = put_keys(na, k, ch, t, n, clips[a].start, rest, o->to_export + (size_t)i * 16, o->look + (size_t)i * 16,
                 dropped);
  }
  if (na) na->mNumPositionKeys = na->mNumRotationKeys = na->mNumScalingKeys = k;
  free(t);
  return na;
}

int skio_ai_object_timeline(const skio_scene* s, const skio_ai_objects* o, const skio_clip* clips,
                            struct aiAnimation* aa, uint32_t* dropped, skc_err* err) {
  skio_listed_object* L = NULL;
  uint32_t n = 0;
  int rc = o->empties + o->cam_count + o->lamp_count && aa ? skio_scene_list_objects(s, &L, &n, err) : SKC_OK;
  for (uint32_t i = 0; i < n && i < o->count && !rc; ++i) {
    bool keyed = false;
    for (uint32_t a = 0; o->node[i] && a < s->anim_count; ++a) keyed |= skio_object_channel_of(s, a, i) != NULL;
    if (!keyed) continue;
    float look[16];
    empty_axes(s, &L[i], look); /* as skio_ai_object_nodes turned it: o->look holds the turn */
    struct aiNodeAnim* na = timeline_channel(s, o, i, &L[i], clips, dropped);
    if (!na || !append_channel(aa, na)) {
      if (na) free(na->mPositionKeys), free(na->mRotationKeys), free(na->mScalingKeys), free(na);
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory writing the clip keys of the scene's nodes");
    }
  }
  skio_listed_objects_free(L, n);
  return rc;
}
