/* scene_frame.c - a scene's coordinate frame (the unit and axes an FBX file declares; skio_frame in skio_scene.h) and
 * a view of the scene in glTF's frame for the writers of one-frame formats.
 *
 * Why a view and not numbers changed at import: the in-place FBX editor (scene_fbx_edit.c) compares the scene with
 * the file's own records, and the Assimp FBX writer can declare the source's frame; only glTF (metres, +Y up by
 * specification) and Collada (written in metres, Z up, as Blender writes it: Blender 3.4's importer ignores <unit>
 * unless asked; skio_scene_frame_view_to with the turn to Z up) need the numbers moved. Blender's FBX importer
 * applies G = (UnitScaleFactor / 100) x the axis turn to the whole file and its glTF importer takes glTF as metres,
 * Y up, so with G premultiplied on every top-level node the two imports agree.
 *
 * The view premultiplies the rest transform of every root joint (and each key of its clips: G (T R S) = (sA T)
 * (qA R) (s S) for G = s A with A a rotation) and the vertices of every mesh without a skin (those hang in the
 * world). Skinned meshes keep their vertices and inverse binds: their joints' world transforms become G W, so each
 * skinned position G W IB v is G times the source's.
 *
 * Each view also gives the object nodes (unskinned meshes, rigid attachments, empties, the armature object) the own
 * axes the target format's importer expects (skio_scene_object_basis, session 75): Blender's FBX and Collada files
 * keep an object's data in its Z-up axes, glTF in Y-up ones. */
#include <assimp/scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_scene.h"

static void axis_vec(int8_t a, float v[3]) {
  v[0] = v[1] = v[2] = 0.0f;
  const int i = (a < 0 ? -a : a) - 1;
  if (i >= 0 && i < 3) v[i] = a < 0 ? -1.0f : 1.0f;
}

static bool is_identity(const float m[16]) {
  for (int i = 0; i < 16; ++i)
    if (m[i] != ((i % 5) == 0 ? 1.0f : 0.0f)) return false;
  return true;
}

/* The frame's up and front axes as vectors, and the right-handed third axis up x front. */
static void frame_axes(const skio_frame* f, float up[3], float front[3], float right[3]) {
  axis_vec(f->up, up);
  axis_vec(f->front, front);
  right[0] = up[1] * front[2] - up[2] * front[1];
  right[1] = up[2] * front[0] - up[0] * front[2];
  right[2] = up[0] * front[1] - up[1] * front[0];
}

bool skio_frame_matrix(const skio_frame* f, float g[16]) {
  skc_mat4_identity(g);
  if (!f || !f->set || !(f->unit_cm > 0.0) || !isfinite(f->unit_cm)) return false;
  float up[3], front[3], right[3];
  frame_axes(f, up, front, right);
  const float* rows[3] = {right, up, front}; /* A v = (right . v, up . v, front . v) */
  const float s = (float)(f->unit_cm / 100.0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) g[c * 4 + r] = s * rows[r][c];
  return !is_identity(g);
}

skio_frame skio_scene_declared_frame(const skio_scene* s) {
  if (s && s->frame.set) return s->frame;
  const skio_frame gltf = {true, 100.0, 2, 3, 1};
  return gltf;
}

typedef struct frame_map {
  float g[16];
  float a[16]; /* the rotation alone */
  float qa[4];
  float s;
} frame_map;

/* The map of g (a rotation times a uniform scale); false when g is singular. */
static bool frame_map_of(const float g[16], frame_map* f) {
  memcpy(f->g, g, sizeof f->g);
  f->s = cbrtf(fabsf(skc_mat3_det_of_mat4(g)));
  if (!(f->s > 0.0f) || !isfinite(f->s)) return false;
  for (int i = 0; i < 16; ++i) f->a[i] = g[i] / ((i % 4) < 3 && i < 12 ? f->s : 1.0f);
  skc_quat_from_mat4(f->a, f->qa);
  skc_quat_normalize(f->qa);
  return true;
}

/* A root a view holds (held_root): its rest in the view (at), and its children's map h = at^-1 G (its rest). */
typedef struct hold {
  int32_t r;    /* the held joint, or -1 */
  int32_t last; /* the Collada view's chain below r (held_root): r .. last at the identity, last's children get h */
  float at[16];
  skc_trs trs; /* at as a TRS: the value of its keys */
  frame_map h;
} hold;

/* Whether joint j is one of the chain r .. last that o holds. */
static bool is_held(const skc_skeleton* sk, const hold* o, uint32_t j) {
  for (int32_t k = o->r >= 0 ? o->last : -1; k >= 0; k = sk->parents[k]) {
    if (k == (int32_t)j) return true;
    if (k == o->r) break;
  }
  return false;
}

/* The roots' rest transforms premultiplied by f; with a held root (o->r >= 0), that root at o->at and its children's
 * rest transforms premultiplied by o->h instead. */
static int frame_skeleton(const skc_skeleton* sk, const frame_map* f, const hold* o, skc_skeleton** out, skc_err* err) {
  const int32_t held = o->r;
  const frame_map* h = &o->h;
  const uint32_t n = sk->joint_count;
  float* rest = malloc((size_t)n * 16 * sizeof *rest + 1);
  if (!rest) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  memcpy(rest, sk->rest_local, (size_t)n * 16 * sizeof *rest);
  for (uint32_t j = 0; j < n; ++j) {
    const float* l = sk->rest_local + (size_t)j * 16;
    if ((int32_t)j == held)
      memcpy(rest + (size_t)j * 16, o->at, sizeof o->at);
    else if (is_held(sk, o, j))
      skc_mat4_identity(rest + (size_t)j * 16);
    else if (skc_skeleton_is_root(sk, j))
      skc_mat4_mul(f->g, l, rest + (size_t)j * 16);
    else if (held >= 0 && sk->parents[j] == o->last)
      skc_mat4_mul(h->g, l, rest + (size_t)j * 16);
  }
  skc_skeleton_init init = {n,
                            (const char* const*)sk->names,
                            sk->parents,
                            rest,
                            sk->bind,
                            sk->inverse_bind,
                            sk->tail_local}; /* stored tails sit in their joints' frames: unchanged */
  int rc = skc_skeleton_create(&init, out, err);
  free(rest);
  return rc;
}

/* Which roots a view holds (view_with), each one whose keys only hold its rest (Blender's FBX exporter keys the
 * armature object so in every clip) or that no clip keys: none; the FBX writer's (turned, below); the Collada
 * view's (at the identity); the glTF view's (turned, only where the object nodes' axes turn). */
typedef enum { HOLD_NONE, HOLD_FBX, HOLD_KEYED_AT_REST, HOLD_TURNED, HOLD_FIRST } hold_rule;

/* Joint 0 when it is the skeleton's one root, else -1: HOLD_FIRST's root (a Collada file's visual scene baked into its
 * children at the identity, skio_scene_root_baked_view). */
static int32_t only_root(const skc_skeleton* sk) {
  if (!sk || !sk->joint_count || sk->parents[0] != SKC_NO_PARENT) return -1;
  for (uint32_t j = 1; j < sk->joint_count; ++j)
    if (sk->parents[j] == SKC_NO_PARENT) return -1;
  return 0;
}

int32_t skio_scene_armature_chain_next(const skio_scene* s, int32_t p) {
  const int32_t c = skio_scene_armature_object_keyed_at_rest(s, p);
  return c >= 0 && skio_chain_wrapper_name(s->skeleton->names[c]) ? c : -1;
}

/* The root a view with frame f and object basis p (NULL: none) holds, in *o (o->r -1 when there is none or it would
 * stay where it is). The Collada view holds it at the identity (Blender's Collada importer takes an armature object
 * above the bones only there; its children get G M, M its rest), and with it the chain of armature objects below it
 * (skio_scene_armature_chain_next; M their product, a uniform scale allowed: session 75, mover_rig's Rig under a
 * moved, turned and scaled Mover, which Blender 3.4 read back right only with both at the identity). The glTF view
 * where the object nodes' axes turn (skio_scene_object_basis) and the FBX view (whose plain roots stand anywhere) hold
 * it where it stands, its own axes turned like any object's: at G M p, its children's rest transforms and keys
 * premultiplied by p^-1, so every bone keeps its world and the armature object reads back with the source's rotation
 * (session 75: the glTF view of an FBX source's Rig read -90 degrees about X, every bone counter-turned in it; the FBX
 * view held a Collada or glTF rig's armature object at the identity, which Blender's FBX importer turned +90 degrees
 * about X). */
static void held_root(const skio_scene* s, const frame_map* f, hold_rule rule, const float* p, hold* o) {
  o->r = -1;
  skc_mat4_identity(o->at);
  const bool turn = rule == HOLD_FBX || (rule == HOLD_TURNED && p);
  const int32_t r = rule == HOLD_FIRST ? only_root(s->skeleton)
                    : rule == HOLD_NONE || (rule == HOLD_TURNED && !p)
                        ? -1
                        : skio_scene_armature_object_keyed_at_rest(s, -1);
  if (r < 0) return;
  float m[16], pinv[16], x[16];
  skc_mat4_mul(f->g, s->skeleton->rest_local + (size_t)r * 16, m);
  skc_mat4_identity(pinv);
  o->last = r; /* the Collada view: the chain of armature objects below r too, their product with any uniform scale */
  for (int32_t c; rule == HOLD_KEYED_AT_REST && (c = skio_scene_armature_chain_next(s, o->last)) >= 0; o->last = c) {
    skc_mat4_mul(m, s->skeleton->rest_local + (size_t)c * 16, x);
    memcpy(m, x, sizeof m);
  }
  if (turn) {
    if (p)
      skc_mat4_mul(m, p, o->at);
    else
      memcpy(o->at, m, sizeof m);
    if ((p && !skc_mat4_inverse(p, pinv)) || !skc_mat4_is_rigid(m, 1e-5f) || !frame_map_of(pinv, &o->h)) return;
  } else if ((o->last == r && is_identity(m)) || !frame_map_of(m, &o->h) ||
             !skc_mat4_is_rigid(rule == HOLD_KEYED_AT_REST ? o->h.a : m, 1e-5f)) {
    return;
  }
  if (!skc_mat4_to_trs(o->at, &o->trs, 1e-5f)) return;
  o->r = r;
}

static float* mapped(const float* v, size_t n, int stride, int kind, const frame_map* f) {
  if (!v || !n) return NULL;
  float* o = malloc(n * (size_t)stride * sizeof *o);
  if (!o) return NULL;
  for (size_t i = 0; i < n; ++i) {
    const float* x = v + i * (size_t)stride;
    float* y = o + i * (size_t)stride;
    if (stride > 3) y[3] = x[3]; /* a tangent's bitangent sign: A is a rotation */
    if (kind == 0) skc_mat4_transform_point(f->g, x, y);       /* positions, translations */
    else if (kind == 1) skc_mat4_transform_dir(f->a, x, y);    /* normals, tangents */
    else if (kind == 2) skc_quat_mul(f->qa, x, y);             /* rotations */
    else for (int c = 0; c < 3; ++c) y[c] = f->s * x[c];        /* scales */
  }
  return o;
}

/* A root joint's channel with its keys mapped (new arrays); false when out of memory. */
static bool frame_channel(const skio_channel* c, const frame_map* f, skio_channel* v) {
  *v = *c;
  v->pos = mapped(c->pos, c->pos_count, 3, 0, f);
  v->rot = mapped(c->rot, c->rot_count, 4, 2, f);
  v->scl = mapped(c->scl, c->scl_count, 3, 3, f);
  return (v->pos || !c->pos || !c->pos_count) && (v->rot || !c->rot || !c->rot_count) &&
         (v->scl || !c->scl || !c->scl_count);
}

/* A held root's channel: its keys hold its rest (held_root), which the view puts at *at (the identity, or turned), so
 * they are *at at the same times (new arrays); false when out of memory. Left as they were they would move the root
 * back to its rest on playback, where its children already carry it: posed frames twice moved. */
static bool held_channel(const skio_channel* c, const skc_trs* at, skio_channel* v) {
  *v = *c;
  v->pos = c->pos_count ? malloc((size_t)c->pos_count * 3 * sizeof *v->pos) : NULL;
  v->rot = c->rot_count ? malloc((size_t)c->rot_count * 4 * sizeof *v->rot) : NULL;
  v->scl = c->scl_count ? malloc((size_t)c->scl_count * 3 * sizeof *v->scl) : NULL;
  for (uint32_t k = 0; v->pos && k < c->pos_count; ++k) memcpy(v->pos + k * 3, at->t, sizeof at->t);
  for (uint32_t k = 0; v->rot && k < c->rot_count; ++k) memcpy(v->rot + k * 4, at->r, sizeof at->r);
  for (uint32_t k = 0; v->scl && k < c->scl_count; ++k) memcpy(v->scl + k * 3, at->s, sizeof at->s);
  v->rest_signs = SKIO_REST_SIGNS_KNOWN;
  return (v->pos || !c->pos_count) && (v->rot || !c->rot_count) && (v->scl || !c->scl_count);
}

/* A mesh without a skin, moved by G (new vertex arrays, or the mesh's own when G is the identity), its node transform
 * G N p (p: the object basis, NULL for the identity); false when out of memory. */
static bool frame_mesh(const skio_mesh* m, const frame_map* f, const float* p, skio_mesh* v) {
  *v = *m;
  float placed[16], gn[16];
  if (m->placed_set)
    memcpy(placed, m->placed, sizeof placed);
  else
    skc_mat4_identity(placed);
  /* the vertices are G times the placed ones: so is their node (skio_mesh_node_space) */
  skc_mat4_mul(f->g, placed, gn);
  if (p)
    skc_mat4_mul(gn, p, v->placed);
  else
    memcpy(v->placed, gn, sizeof gn);
  v->placed_set = true;
  if (is_identity(f->g)) return true;
  const size_t V = m->vertex_count, T = (size_t)m->morph_count * V;
  v->positions = mapped(m->positions, V, 3, 0, f);
  v->normals = mapped(m->normals, V, 3, 1, f);
  v->tangents = mapped(m->tangents, V, 4, 1, f);
  v->morph_positions = mapped(m->morph_positions, T, 3, 0, f);
  v->morph_normals = mapped(m->morph_normals, T, 3, 1, f);
  return (v->positions || !m->positions || !V) && (v->normals || !m->normals || !V) &&
         (v->tangents || !m->tangents || !V) && (v->morph_positions || !m->morph_positions || !T) &&
         (v->morph_normals || !m->morph_normals || !T);
}

/* Whether the FBX writer writes joint j as a plain Null (scene_export.c plain_roots, which Blender's FBX importer
 * makes the armature object when it is the nearest Null above the bones): an armature object (a joint nothing binds,
 * weights or moves, with joints below: skio_joint_is_armature_object_keyed_at_rest) that is a root (or stands below
 * an FBX file's implicit "RootNode"), or the only child, named as a wrapper (skio_chain_wrapper_name), of such a
 * Null. An unweighted bone (md5/drone's Waist) is none: the writer makes it a LimbNode. */
static bool fbx_null(const skio_scene* s, uint32_t j) {
  const skc_skeleton* sk = s->skeleton;
  for (uint32_t steps = 0; steps <= sk->joint_count; ++steps) {
    if (!skio_joint_is_armature_object_keyed_at_rest(s, j)) return false;
    const int32_t p = sk->parents[j];
    if (p < 0 || (p == 0 && sk->parents[0] < 0 && !strcmp(sk->names[0], "RootNode"))) return true;
    uint32_t kids = 0;
    for (uint32_t k = 0; k < sk->joint_count; ++k) kids += sk->parents[k] == p;
    if (kids != 1 || !skio_chain_wrapper_name(sk->names[j])) return false;
    j = (uint32_t)p;
  }
  return false;
}

/* The armature object of skinned mesh m: the nearest FBX Null (fbx_null) above its first bound joint, or -1. */
static int32_t armature_of(const skio_scene* s, const skio_mesh* m) {
  const skc_skeleton* sk = s->skeleton;
  uint32_t j = 0;
  while (j < sk->joint_count && !m->bound[j]) ++j;
  for (uint32_t steps = 0; j < sk->joint_count && sk->parents[j] >= 0 && steps <= sk->joint_count; ++steps) {
    j = (uint32_t)sk->parents[j];
    if (fbx_null(s, j)) return (int32_t)j;
  }
  return -1;
}

/* The FBX view's Model of skinned mesh m into m->skin_node (session 76). Blender's FBX importer places a skinned mesh
 * by its cluster binds (world TransformLink x Transform) but shows its object with the Model's own transform: held at
 * the identity, a glTF's or Collada's Body read back turned +90 degrees about X (its G, the file's axes to Blender's),
 * its vertices counter-turned. So the Model stands where the source's object does, with its own axes as the FBX view
 * gives every object (skio_scene_object_basis p): at its bind world W p where the reader noted one (an FBX Model's
 * world, a posed glTF skin's armature node), else at its armature object's rest world in the view (sk: the view's
 * skeleton; the held root's is o->at, p in it already) times p (Blender's glTF importer puts a skinned mesh's object
 * there), else at p. Left at the identity (as before) when that is the identity, a mirror, no TRS, or m is a bone's
 * rigid child (written under its bone, bone_children_view). */
static bool skin_node(const skio_scene* s, const skc_skeleton* sk, const hold* o, const float* p, skio_mesh* m) {
  float l[16], pid[16];
  skc_trs trs;
  if (!m->skin || !m->bound || !sk || !s->skeleton || skio_mesh_still_rigid(m)) return false;
  skc_mat4_identity(pid);
  if (!p) p = pid;
  const int32_t a = m->bind_world_set ? -1 : armature_of(s, m);
  if (m->bind_world_set)
    skc_mat4_mul(m->bind_world, p, l);
  else if (a >= 0 && a == o->r)
    memcpy(l, o->at, sizeof l);
  else if (a >= 0)
    skc_mat4_mul(sk->rest_world + (size_t)a * 16, p, l);
  else
    memcpy(l, p, sizeof l);
  if (is_identity(l) || !skc_mat4_is_finite(l) || !(skc_mat3_det_of_mat4(l) > 0.0f) || !skc_mat4_to_trs(l, &trs, 1e-5f))
    return false;
  memcpy(m->skin_node, l, sizeof l);
  m->skin_node_set = true;
  return true;
}

/* Whether the FBX view (rule HOLD_FBX) of s, when it moves nothing else, gives some skinned mesh a Model of its own
 * (skin_node; the view's skeleton is then s's). */
static bool any_skin_node(const skio_scene* s, hold_rule rule, const hold* o, const float* p) {
  for (uint32_t m = 0; rule == HOLD_FBX && m < s->mesh_count; ++m) {
    skio_mesh copy = s->meshes[m];
    if (skin_node(s, s->skeleton, o, p, &copy)) return true;
  }
  return false;
}

static void free_if_own(void* mine, const void* theirs) {
  if (mine != theirs) free(mine);
}

void skio_scene_frame_view_free(const skio_scene* s, skio_scene* v) {
  if (!v->meshes || v->meshes == s->meshes) { /* nothing was made (or only the identity view) */
    memset(v, 0, sizeof *v);
    return;
  }
  if (v->skeleton != s->skeleton) skc_skeleton_destroy(v->skeleton);
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    const skio_mesh *a = &v->meshes[m], *b = &s->meshes[m];
    free_if_own(a->positions, b->positions);
    free_if_own(a->normals, b->normals);
    free_if_own(a->tangents, b->tangents);
    free_if_own(a->morph_positions, b->morph_positions);
    free_if_own(a->morph_normals, b->morph_normals);
  }
  for (uint32_t a = 0; v->anims && a < s->anim_count; ++a) {
    for (uint32_t c = 0; v->anims[a].channels && c < s->anims[a].channel_count; ++c) {
      const skio_channel *x = &v->anims[a].channels[c], *y = &s->anims[a].channels[c];
      free_if_own(x->pos, y->pos);
      free_if_own(x->rot, y->rot);
      free_if_own(x->scl, y->scl);
    }
    if (v->anims[a].channels != s->anims[a].channels) free(v->anims[a].channels);
  }
  if (v->anims != s->anims) free(v->anims);
  if (v->objects != s->objects) free(v->objects);
  free(v->meshes);
  memset(v, 0, sizeof *v);
}

/* The objects' world transforms premultiplied by g, cameras' clip planes and orthographic sizes in its unit (names
 * borrowed); an empty's world and look also postmultiplied by p (the object basis, NULL for the identity: its keys,
 * local to its file parent, then take p on the right as its rest does; cameras and lights keep glTF's own frame). */
static int frame_objects(const skio_scene* s, const frame_map* f, const float* p, skio_scene* v, skc_err* err) {
  if (!s->object_count) return SKC_OK;
  if (!(v->objects = malloc((size_t)s->object_count * sizeof *v->objects)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  memcpy(v->objects, s->objects, (size_t)s->object_count * sizeof *v->objects);
  for (uint32_t k = 0; k < s->object_count; ++k) {
    skio_object* o = &v->objects[k];
    skc_mat4_mul(f->g, s->objects[k].world, o->world);
    skc_mat4_mul(f->g, s->objects[k].parent_rest, o->parent_rest);
    if (p && o->kind == SKIO_OBJECT_EMPTY) {
      float t[16];
      memcpy(t, o->world, sizeof t);
      skc_mat4_mul(t, p, o->world);
      skc_mat4_mul(s->objects[k].look, p, o->look);
    }
    o->znear *= f->s;
    o->zfar *= f->s;
    o->xmag *= f->s;
    o->ymag *= f->s;
  }
  return SKC_OK;
}

static const skc_trs identity_trs = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};

static int frame_anims(const skio_scene* s, const frame_map* f, const hold* o, skio_scene* v, skc_err* err) {
  const int32_t held = o->r;
  const frame_map* h = &o->h;
  if (!s->anim_count || !s->skeleton) return SKC_OK;
  if (!(v->anims = malloc((size_t)s->anim_count * sizeof *v->anims)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  memcpy(v->anims, s->anims, (size_t)s->anim_count * sizeof *v->anims);
  const skc_skeleton* sk = s->skeleton;
  for (uint32_t a = 0; a < s->anim_count; ++a) {
    const skio_anim* sa = &s->anims[a];
    skio_channel* ch = calloc((size_t)sa->channel_count + 1, sizeof *ch);
    if (!ch) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    if (sa->channel_count) memcpy(ch, sa->channels, (size_t)sa->channel_count * sizeof *ch);
    v->anims[a].channels = ch;
    for (uint32_t c = 0; c < sa->channel_count; ++c) {
      const skio_channel* sc = &sa->channels[c];
      if (sc->joint >= sk->joint_count) continue;
      if (is_held(sk, o, sc->joint)) { /* the chain below the held root: at the identity, its keys too */
        const skc_trs* at = (int32_t)sc->joint == held ? &o->trs : &identity_trs;
        if (!held_channel(sc, at, &ch[c])) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
        continue;
      }
      const bool root = skc_skeleton_is_root(sk, sc->joint);
      const frame_map* by = root ? f : (held >= 0 && sk->parents[sc->joint] == o->last ? h : NULL);
      if (by && !frame_channel(sc, by, &ch[c])) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
    }
  }
  return SKC_OK;
}

static int view_with(const skio_scene* s, const float g[16], hold_rule rule, const float* p, skio_scene* v,
                     skc_err* err);

/* Blender's object axes (session 75). Blender's FBX exporter writes a top-level object's node as G^-1 M (M its
 * matrix in Blender, Z up) and leaves its data in the object's own axes, and its FBX importer reads G N back; its
 * Collada importer takes a Z_UP document's nodes as they are. Its glTF exporter instead turns each object's own axes
 * too: node C M C^-1, data C v (C: Z up to glTF's Y up, (x, y, z) -> (x, z, -y)), and its importer reads node T as
 * C^-1 T C. So an object of an FBX or Collada source written as glTF at G N read back rotated by C (-90 degrees
 * about X, its data counter-rotated; the scale's Y and Z swapped), and a glTF source written as FBX or Collada by
 * C^-1: a view gives each object node its own axes as the target format's importer expects, postmultiplying its
 * world by the basis p (vertices are written in the node's space: C v). */
static const float k_gltf_from_zup[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1}; /* C */
static const float k_zup_from_gltf[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1}; /* C^-1 */

bool skio_scene_zup_objects(const skio_scene* s) {
  return s && !s->foreign_objects &&
         (s->frame.set || (s->source_file.set && s->source_file.kind == SKIO_SOURCE_COLLADA));
}

const float* skio_scene_object_basis(const skio_scene* s, bool gltf) {
  if (skio_scene_zup_objects(s)) return gltf ? k_zup_from_gltf : NULL;
  if (s && s->foreign_objects) return NULL; /* another tool's FBX: its nodes as they are */
  return gltf ? NULL : k_gltf_from_zup;
}

int skio_scene_frame_view(const skio_scene* s, skio_scene* v, skc_err* err) {
  float g[16];
  skio_frame_matrix(&s->frame, g);
  int rc = view_with(s, g, HOLD_TURNED, skio_scene_object_basis(s, true), v, err);
  v->frame.set = false;
  return rc;
}

/* The view of s moved by g (a rotation times a uniform scale), a held root's turn given to its children (see
 * skio_scene_frame_view_to), the object nodes' own axes turned by p (NULL: kept); v->frame as s's. */
static int view_with(const skio_scene* s, const float g[16], hold_rule rule, const float* p, skio_scene* v,
                     skc_err* err) {
  *v = *s;
  frame_map f;
  if (!frame_map_of(g, &f)) return skc_fail(err, SKC_INVALID_ARGUMENT, "frame matrix is singular");
  if (p && is_identity(p)) p = NULL;
  hold o;
  held_root(s, &f, rule, p, &o);
  if (is_identity(f.g) && o.r < 0 && !p && !any_skin_node(s, rule, &o, p)) return SKC_OK;
  v->anims = s->anims;
  if (!(v->meshes = malloc(((size_t)s->mesh_count + 1) * sizeof *v->meshes)))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  if (s->mesh_count) memcpy(v->meshes, s->meshes, (size_t)s->mesh_count * sizeof *v->meshes); /* (NULL when none) */
  int rc = SKC_OK;
  for (uint32_t m = 0; m < s->mesh_count && !rc; ++m) {
    const skio_mesh* sm = &s->meshes[m];
    if (sm->skin && sm->bind_world_set) /* the joints' worlds become g W: so does the bind */
      skc_mat4_mul(f.g, sm->bind_world, v->meshes[m].bind_world);
    if (sm->skin && p && sm->placed_set && skio_mesh_still_rigid(sm)) /* a bone's child: its node N, source frame */
      skc_mat4_mul(sm->placed, p, v->meshes[m].placed);
    if (!sm->skin && !frame_mesh(sm, &f, p, &v->meshes[m])) /* what was made is freed below */
      rc = skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  }
  if (!rc && s->skeleton) rc = frame_skeleton(s->skeleton, &f, &o, &v->skeleton, err);
  for (uint32_t m = 0; !rc && rule == HOLD_FBX && m < s->mesh_count; ++m)
    skin_node(s, v->skeleton, &o, p, &v->meshes[m]);
  if (!rc) rc = frame_anims(s, &f, &o, v, err);
  if (!rc) rc = frame_objects(s, &f, p, v, err);
  if (rc) skio_scene_frame_view_free(s, v);
  return rc;
}

int skio_scene_frame_view_to(const skio_scene* s, const float post[16], bool hold_root, skio_scene* v, skc_err* err) {
  float g[16], pg[16];
  skio_frame_matrix(&s->frame, g);
  if (post)
    skc_mat4_mul(post, g, pg);
  else
    memcpy(pg, g, sizeof g);
  int rc = view_with(s, pg, hold_root ? HOLD_KEYED_AT_REST : HOLD_NONE, skio_scene_object_basis(s, false), v, err);
  v->frame.set = false;
  return rc;
}

int skio_scene_held_root_view(const skio_scene* s, skio_scene* v, skc_err* err) {
  float id[16];
  skc_mat4_identity(id);
  return view_with(s, id, HOLD_FBX, skio_scene_object_basis(s, false), v, err);
}

int skio_scene_root_baked_view(const skio_scene* s, skio_scene* v, skc_err* err) {
  float id[16];
  skc_mat4_identity(id);
  return view_with(s, id, HOLD_FIRST, NULL, v, err);
}

/* ---- reading an FBX file's frame from Assimp's scene metadata --------------------------------------------------- */

static const struct aiMetadataEntry* meta(const struct aiScene* ai, const char* key) {
  const struct aiMetadata* md = ai->mMetaData;
  for (unsigned i = 0; md && md->mKeys && md->mValues && i < md->mNumProperties; ++i)
    if (strcmp(md->mKeys[i].data, key) == 0 && md->mValues[i].mData) return &md->mValues[i];
  return NULL;
}

static bool meta_int(const struct aiScene* ai, const char* key, int* out) {
  const struct aiMetadataEntry* e = meta(ai, key);
  if (!e) return false;
  if (e->mType == AI_INT32) *out = *(const int32_t*)e->mData;
  else if (e->mType == AI_UINT64) *out = (int)*(const uint64_t*)e->mData;
  else return false;
  return true;
}

static bool meta_real(const struct aiScene* ai, const char* key, double* out) {
  const struct aiMetadataEntry* e = meta(ai, key);
  if (!e) return false;
  if (e->mType == AI_FLOAT) *out = *(const float*)e->mData;
  else if (e->mType == AI_DOUBLE) *out = *(const double*)e->mData;
  else if (e->mType == AI_INT32) *out = *(const int32_t*)e->mData;
  else return false;
  return true;
}

/* A signed axis from FBX's axis index (0..2) and sign (1 or -1); 0 when out of range. */
static int8_t signed_axis(int axis, int sign) {
  if (axis < 0 || axis > 2 || (sign != 1 && sign != -1)) return 0;
  return (int8_t)(sign * (axis + 1));
}

/* Whether the FBX's writer is another tool than Blender's exporter or Assimp's (skinkit's FBX writer), by the
 * file's Creator (Assimp's SourceAsset_Generator: "Blender (stable FBX IO) - 3.4.1 - 4.37.1", "Open Asset Import
 * Library (Assimp) 5.2.0"); a file without one is taken for Blender's. */
static bool foreign_objects(const struct aiScene* ai) {
  const struct aiMetadataEntry* e = meta(ai, "SourceAsset_Generator");
  if (!e || e->mType != AI_AISTRING) return false;
  const char* g = ((const struct aiString*)e->mData)->data;
  return g[0] && strncmp(g, "Blender", 7) != 0 && strncmp(g, "Open Asset Import Library", 25) != 0;
}

void skio_scene_read_frame(skio_scene* s, const struct aiScene* ai) {
  const struct aiMetadataEntry* fmt = meta(ai, "SourceAsset_Format");
  if (!fmt || fmt->mType != AI_AISTRING || !strstr(((const struct aiString*)fmt->mData)->data, "FBX")) return;
  double unit = 1.0; /* FBX's default: centimetres */
  int v[6] = {1, 1, 2, 1, 0, 1}; /* up, sign, front, sign, coord, sign: Y up, Z front, X coord */
  static const char* const keys[6] = {"UpAxis", "UpAxisSign", "FrontAxis", "FrontAxisSign", "CoordAxis",
                                      "CoordAxisSign"};
  char line[200];
  if (meta_real(ai, "UnitScaleFactor", &unit) && !(unit > 1e-6 && unit < 1e7)) {
    snprintf(line, sizeof line, "FBX UnitScaleFactor %g is no length: read as 1 (centimetres)", unit);
    skio_scene_note(s, line);
    unit = 1.0;
  }
  for (int k = 0; k < 6; ++k) meta_int(ai, keys[k], &v[k]);
  skio_frame f = {true, unit, signed_axis(v[0], v[1]), signed_axis(v[2], v[3]), signed_axis(v[4], v[5])};
  s->foreign_objects = foreign_objects(ai);
  if (!f.up || !f.front || abs(f.up) == abs(f.front)) {
    snprintf(line, sizeof line, "FBX axes up %d (sign %d), front %d (sign %d) are no axis system: read as Y up, Z "
             "front", v[0], v[1], v[2], v[3]);
    skio_scene_note(s, line);
    f.up = 2;
    f.front = 3;
    f.coord = 1;
  }
  float up[3], front[3], right[3], coord[3];
  frame_axes(&f, up, front, right);
  axis_vec(f.coord, coord);
  if (f.coord && coord[0] * right[0] + coord[1] * right[1] + coord[2] * right[2] < 0.5f) {
    snprintf(line, sizeof line, "FBX coord axis %d (sign %d) makes a left-handed system: read as the right-handed "
             "one with its up and front axes", v[4], v[5]);
    skio_scene_note(s, line);
  }
  s->frame = f;
}
