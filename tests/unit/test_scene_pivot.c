#define _DEFAULT_SOURCE /* mkdtemp */
/* test_scene_pivot.c - unskinned meshes keep their node transform (origin) on cross-format writes, and a mesh
 * parented to a bone is written under that bone (session 74; docs/formats.md).
 *
 * tests/data/rigid_parts.fbx (Blender 3.4, tests/data/make_rigid_parts.py): a cylinder skinned to two bones, a cube
 * "Gauntlet" (0.3 wide, at 0.6 0.1 2.6, turned) parented to bone "hand" and a cone "Prop" (at 1.5 0 0.5) parented
 * to the armature object "Rig". The reader bakes each node's world transform into the vertices (skio_mesh_place) and
 * binds the gauntlet to "hand" with weight 1; a writer that can give a node a transform must write the vertices in
 * the node's own space (the cube's corners 0.15 from its origin) with the node's matrix, and hang the gauntlet
 * under the bone's node without a skin. Before, both came out at the origin with world-space vertices and the
 * gauntlet as a one-joint skin. Session 75: a mirrored node keeps its transform too (its triangles reversed under it),
 * and a glTF node's matrix stays a TRS (tests/data/mirrored_props.*). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skio_gltf_doc.h"
#include "skio_scene.h"

static skio_scene* read_scene(const char* path) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s: %.400s", path, err.message);
  return s;
}

static void export_scene(const skio_scene* s, const char* path) {
  skio_export_options o = {0};
  o.overwrite = true;
  o.keep_all = true;
  skc_err err = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %.400s", path, err.message);
}

/* ---- glTF ------------------------------------------------------------------------------------------------- */

/* The node whose name starts with prefix, or -1. */
static int32_t node_named(const skio_gltf_doc* d, const char* prefix) {
  for (uint32_t n = 0; skio_gltf_item(d, "nodes", n) >= 0; ++n) {
    char* name = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "nodes", n), "name"));
    bool hit = name && strncmp(name, prefix, strlen(prefix)) == 0;
    free(name);
    if (hit) return (int32_t)n;
  }
  return -1;
}

/* The node that lists node n among its children, or -1. */
static int32_t node_parent(const skio_gltf_doc* d, int32_t n) {
  for (uint32_t p = 0; skio_gltf_item(d, "nodes", p) >= 0; ++p) {
    int kids = skio_json_get(d, skio_gltf_item(d, "nodes", p), "children");
    for (int k = 0; k < skio_json_len(d, kids); ++k) {
      uint32_t c;
      if (skio_json_u32(d, skio_json_at(d, kids, k), &c) && c == (uint32_t)n) return (int32_t)p;
    }
  }
  return -1;
}

static void node_local(const skio_gltf_doc* d, int32_t n, float m[16]) {
  int t = skio_gltf_item(d, "nodes", (uint32_t)n);
  if (skio_json_floats(d, skio_json_get(d, t, "matrix"), m, 16) == 16) return;
  skc_trs trs;
  skc_trs_identity(&trs);
  skio_json_floats(d, skio_json_get(d, t, "translation"), trs.t, 3);
  skio_json_floats(d, skio_json_get(d, t, "rotation"), trs.r, 4);
  skio_json_floats(d, skio_json_get(d, t, "scale"), trs.s, 3);
  skc_trs_to_mat4(&trs, m);
}

/* s written as dir/out.glb (dir: a mkdtemp template, path: 64 bytes) and loaded as a glTF document. */
static skio_gltf_doc* export_glb(const skio_scene* s, char* dir, char* path) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, 64, "%s/out.glb", dir);
  export_scene(s, path);
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_doc_load(path, &d, &err) == SKC_OK, "%.400s", err.message);
  return d;
}

static void node_world(const skio_gltf_doc* d, int32_t n, float w[16]) {
  node_local(d, n, w);
  for (int32_t p = node_parent(d, n); p >= 0; p = node_parent(d, p)) {
    float l[16], t[16];
    node_local(d, p, l);
    skc_mat4_mul(l, w, t);
    memcpy(w, t, sizeof t);
  }
}

/* The largest |coordinate| of node n's mesh's first POSITION accessor (its min / max). */
static float mesh_extent(const skio_gltf_doc* d, int32_t n) {
  uint32_t mesh, acc;
  ck_assert(skio_json_u32(d, skio_json_get(d, skio_gltf_item(d, "nodes", (uint32_t)n), "mesh"), &mesh));
  int prim = skio_json_at(d, skio_json_get(d, skio_gltf_item(d, "meshes", mesh), "primitives"), 0);
  ck_assert(skio_json_u32(d, skio_json_get(d, skio_json_get(d, prim, "attributes"), "POSITION"), &acc));
  float lo[3], hi[3], e = 0.0f;
  int a = skio_gltf_item(d, "accessors", acc);
  ck_assert_int_eq(skio_json_floats(d, skio_json_get(d, a, "min"), lo, 3), 3);
  ck_assert_int_eq(skio_json_floats(d, skio_json_get(d, a, "max"), hi, 3), 3);
  for (int c = 0; c < 3; ++c) e = fmaxf(e, fmaxf(fabsf(lo[c]), fabsf(hi[c])));
  return e;
}

static void assert_origin(const skio_gltf_doc* d, int32_t n, const float want[3], const char* what) {
  float w[16];
  node_world(d, n, w);
  for (int c = 0; c < 3; ++c)
    ck_assert_msg(fabsf(w[12 + c] - want[c]) < 1e-4f, "%s: origin %g %g %g, want %g %g %g", what, (double)w[12],
                  (double)w[13], (double)w[14], (double)want[0], (double)want[1], (double)want[2]);
}

/* .fbx -> .glb: the gauntlet's node is a child of "hand" without skin, the prop's a child of "Rig"; both at their
 * Blender origins (Z up -> glTF's Y up: x, z, -y) with their vertices around them; read back, the gauntlet is bound
 * to "hand" again and every mesh rests where the source has it. */
START_TEST(glb_keeps_origins_and_bone_parents) {
  skio_scene* s = read_scene(skt_data("rigid_parts.fbx"));
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64];
  skio_gltf_doc* d = export_glb(s, dir, path);
  const int32_t gauntlet = node_named(d, "Gauntlet"), prop = node_named(d, "Prop");
  const int32_t hand = node_named(d, "hand"), rig = node_named(d, "Rig");
  ck_assert(gauntlet >= 0 && prop >= 0 && hand >= 0 && rig >= 0);
  ck_assert_msg(skio_json_get(d, skio_gltf_item(d, "nodes", (uint32_t)gauntlet), "skin") < 0,
                "the gauntlet is written as a skin");
  ck_assert_int_eq(node_parent(d, gauntlet), hand);
  ck_assert_int_eq(node_parent(d, prop), rig);
  const float g_at[3] = {0.6f, 2.6f, -0.1f}, p_at[3] = {1.5f, 0.5f, 0.0f};
  assert_origin(d, gauntlet, g_at, "Gauntlet");
  assert_origin(d, prop, p_at, "Prop");
  /* the cube's corners are 0.15 from its origin (turned: up to 0.26 per axis); the cone's within 0.2 */
  ck_assert_float_le(mesh_extent(d, gauntlet), 0.15f * sqrtf(3.0f) + 1e-4f);
  ck_assert_float_le(mesh_extent(d, prop), 0.2f + 1e-4f);
  skio_gltf_doc_destroy(d);
  skio_scene* back = read_scene(path);
  int32_t hand_j = skc_skeleton_find(back->skeleton, "hand");
  bool bound = false;
  for (uint32_t m = 0; m < back->mesh_count; ++m)
    bound |= back->meshes[m].rigid_joint == hand_j && hand_j >= 0 && !strncmp(back->meshes[m].name, "Cube", 4);
  ck_assert_msg(bound, "read back, the gauntlet is not bound to hand");
  skio_scene_destroy(back);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* An empty hung from the prop's node (skio_object.parent_mesh) stays where it was: its matrix under the prop's node,
 * which now has the prop's transform, is taken relative to that (before, the node was at the identity). */
START_TEST(glb_keeps_an_empty_under_a_placed_mesh) {
  skio_scene* s = read_scene(skt_data("rigid_parts.fbx"));
  const skio_mesh* prop = NULL;
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].node_name && !strcmp(s->meshes[m].node_name, "Prop")) prop = &s->meshes[m];
  ck_assert_ptr_nonnull(prop);
  ck_assert(prop->placed_set);
  skio_object o;
  memset(&o, 0, sizeof o);
  o.name = "Tip";
  o.kind = SKIO_OBJECT_EMPTY;
  o.parent = -1;
  o.parent_mesh = "Prop";
  skc_mat4_identity(o.look);
  skc_mat4_identity(o.world);
  o.world[12] = prop->placed[12] + 10.0f; /* 10 units beside the prop's origin (the FBX's centimetres) */
  o.world[13] = prop->placed[13];
  o.world[14] = prop->placed[14];
  memcpy(o.parent_rest, prop->placed, sizeof o.parent_rest);
  skc_err err = {0};
  ck_assert_msg(skio_scene_add_object(s, &o, 0.0, NULL, &err) == SKC_OK, "%.400s", err.message);
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.glb", dir);
  export_scene(s, path);
  skio_gltf_doc* d = NULL;
  ck_assert_msg(skio_gltf_doc_load(path, &d, &err) == SKC_OK, "%.400s", err.message);
  const int32_t tip = node_named(d, "Tip"), node_prop = node_named(d, "Prop");
  ck_assert(tip >= 0 && node_prop >= 0);
  ck_assert_int_eq(node_parent(d, tip), node_prop);
  float g[16], want[3];
  skio_frame_matrix(&s->frame, g);
  skc_mat4_transform_point(g, o.world + 12, want);
  assert_origin(d, tip, want, "Tip");
  skio_gltf_doc_destroy(d);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* ---- FBX and Collada (through Assimp) ------------------------------------------------------------------- */

/* The mesh whose object (node) is named name. */
static const skio_mesh* mesh_named(const skio_scene* s, const char* name) {
  for (uint32_t m = 0; m < s->mesh_count; ++m)
    if (s->meshes[m].node_name && strcmp(s->meshes[m].node_name, name) == 0) return &s->meshes[m];
  ck_assert_msg(0, "no mesh of object %s", name);
  return NULL;
}

/* Read back, the reader places a mesh by its node's world transform (skio_mesh.placed): a node written at the
 * identity with world-space vertices reads back without one (placed_set false), a node that keeps its origin with
 * its world translation there. */
static void assert_placed_at(const skio_mesh* m, const float want[3], const char* what) {
  ck_assert_msg(m->placed_set, "%s: mesh %s read back without a node transform (its origin lost)", what, m->name);
  for (int c = 0; c < 3; ++c)
    ck_assert_msg(fabsf(m->placed[12 + c] - want[c]) < 1e-4f, "%s: mesh %s's origin %g %g %g, want %g %g %g", what,
                  m->name, (double)m->placed[12], (double)m->placed[13], (double)m->placed[14], (double)want[0],
                  (double)want[1], (double)want[2]);
}

/* Blender's rigid_parts.glb -> .fbx and .dae: read back, the prop's node has its origin again (1.5 0.5 0 in glTF's
 * frame); in .fbx the gauntlet hangs under "hand" without a cluster (read back, bound to it by the reader again,
 * rigid_joint) with its origin (0.6 2.6 -0.1); every mesh rests where the source has it. .dae keeps the gauntlet's
 * one-joint skin (Blender's Collada importer turns a node under a JOINT into a bone). */
START_TEST(fbx_and_dae_keep_origins) {
  static const char* const k_ext[] = {"fbx", "dae"};
  skio_scene* s = read_scene(skt_data("rigid_parts.glb"));
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.%s", dir, k_ext[_i]);
  export_scene(s, path);
  skio_scene* back = read_scene(path);
  float g[16]; /* the written FBX declares glTF's frame in centimetres: read back, placed is in its units */
  skio_frame_matrix(&back->frame, g);
  const float prop_at[3] = {1.5f, 0.5f, 0.0f}, gauntlet_at[3] = {0.6f, 2.6f, -0.1f};
  const skio_mesh* prop = mesh_named(back, "Prop");
  float placed_g[16];
  skio_mesh tmp = *prop;
  skc_mat4_mul(g, prop->placed, placed_g);
  memcpy(tmp.placed, placed_g, sizeof placed_g);
  assert_placed_at(&tmp, prop_at, k_ext[_i]);
  if (_i == 0) {
    const skio_mesh* gauntlet = mesh_named(back, "Gauntlet");
    const int32_t hand = skc_skeleton_find(back->skeleton, "hand");
    ck_assert_msg(hand >= 0 && gauntlet->rigid_joint == hand, "fbx: the gauntlet is no child of hand (rigid_joint %d)",
                  gauntlet->rigid_joint);
    tmp = *gauntlet; /* placed in its skin's bind space: g X placed, X = rest_world(hand) IB(hand) (session 76: the
                        .fbx's Body stands at a Model of its own, whose space the reader binds in) */
    float x[16], gx[16];
    skc_mat4_mul(back->skeleton->rest_world + (size_t)hand * 16, gauntlet->inverse_bind + (size_t)hand * 16, x);
    skc_mat4_mul(g, x, gx);
    skc_mat4_mul(gx, gauntlet->placed, placed_g);
    memcpy(tmp.placed, placed_g, sizeof placed_g);
    assert_placed_at(&tmp, gauntlet_at, k_ext[_i]);
  }
  skio_scene_destroy(back);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* ---- posed: a bone's child still follows the bone --------------------------------------------------------- */

/* The box of mesh m's world positions in clip 0 at time t (sum_j w_j pose_world(j) IB(j) v; a mesh without skin
 * as stored), in glTF's frame. */
static void posed_box(const skio_scene* s, const skio_mesh* m, double t, float lo[3], float hi[3]) {
  const skc_skeleton* sk = s->skeleton;
  skc_trs* pose = calloc(sk->joint_count, sizeof *pose);
  float* world = calloc((size_t)sk->joint_count * 16, sizeof *world);
  ck_assert(pose && world);
  skc_err e = {0};
  ck_assert_msg(skio_anim_sample(s, 0, t, pose, &e) == SKC_OK, "%.400s", e.message);
  for (uint32_t j = 0; j < sk->joint_count; ++j) { /* parents come first */
    float local[16];
    skc_trs_to_mat4(&pose[j], local);
    if (sk->parents[j] < 0)
      memcpy(world + (size_t)j * 16, local, sizeof local);
    else
      skc_mat4_mul(world + (size_t)sk->parents[j] * 16, local, world + (size_t)j * 16);
  }
  float g[16];
  skio_frame_matrix(&s->frame, g);
  for (int c = 0; c < 3; ++c) lo[c] = INFINITY, hi[c] = -INFINITY;
  for (size_t v = 0; v < m->vertex_count; ++v) {
    float p[3] = {0, 0, 0}, q[3];
    if (m->skin) {
      for (uint32_t k = m->skin->offsets[v]; k < m->skin->offsets[v + 1]; ++k) {
        const uint32_t j = m->skin->joints[k];
        float mj[16];
        skc_mat4_mul(world + (size_t)j * 16, m->inverse_bind + (size_t)j * 16, mj);
        skc_mat4_transform_point(mj, m->positions + v * 3, q);
        for (int c = 0; c < 3; ++c) p[c] += m->skin->weights[k] * q[c];
      }
    } else {
      memcpy(p, m->positions + v * 3, sizeof p);
    }
    skc_mat4_transform_point(g, p, q);
    for (int c = 0; c < 3; ++c) lo[c] = fminf(lo[c], q[c]), hi[c] = fmaxf(hi[c], q[c]);
  }
  free(pose);
  free(world);
}

/* tests/data/mover_rig.glb: a sword parented to bone "spine", a clip "sway". Written whole as .glb and as .fbx (a
 * child of the bone's node without skin now), read back (bound to "spine" again): at rest and at every tenth of
 * the clip the sword is where the source puts it. */
START_TEST(bone_child_follows_its_bone_in_the_clip) {
  static const char* const k_ext[] = {"glb", "fbx"};
  skio_scene* s = read_scene(skt_data("mover_rig.glb"));
  s->materials_changed = true; /* .glb written whole, not edited in place */
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.%s", dir, k_ext[_i]);
  export_scene(s, path);
  skio_scene* back = read_scene(path);
  const skio_mesh *a = mesh_named(s, "Sword"), *b = mesh_named(back, "Sword");
  ck_assert_int_ge(a->rigid_joint, 0);
  ck_assert_msg(b->rigid_joint >= 0 && !strcmp(back->skeleton->names[b->rigid_joint], "spine"),
                "%s: the sword is not on spine when read back", k_ext[_i]);
  ck_assert_uint_ge(back->anim_count, 1);
  for (int k = 0; k <= 10; ++k) {
    const double t = s->anims[0].duration * k / 10.0;
    float alo[3], ahi[3], blo[3], bhi[3];
    posed_box(s, a, t, alo, ahi);
    posed_box(back, b, t, blo, bhi);
    for (int c = 0; c < 3; ++c)
      ck_assert_msg(fabsf(alo[c] - blo[c]) < 1e-4f && fabsf(ahi[c] - bhi[c]) < 1e-4f,
                    "%s at %g s: the sword's box %g..%g on axis %d, the source's %g..%g", k_ext[_i], t, (double)blo[c],
                    (double)bhi[c], c, (double)alo[c], (double)ahi[c]);
  }
  skio_scene_destroy(back);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* ---- mirrored and sheared nodes (session 75) --------------------------------------------------------------- */

/* Mesh m's rest vertex v in the world of glTF's frame: g (the scene's frame) times, for a mesh with a skin (a rigid
 * attachment's one-joint skin), the weighted rest_world(j) IB(j), else as placed. */
static void rest_point(const skio_scene* s, const skio_mesh* m, const float g[16], size_t v, float out[3]) {
  float p[3] = {0, 0, 0}, q[3];
  if (m->skin) {
    for (uint32_t k = m->skin->offsets[v]; k < m->skin->offsets[v + 1]; ++k) {
      const uint32_t j = m->skin->joints[k];
      float mj[16];
      skc_mat4_mul(s->skeleton->rest_world + (size_t)j * 16, m->inverse_bind + (size_t)j * 16, mj);
      skc_mat4_transform_point(mj, m->positions + v * 3, q);
      for (int c = 0; c < 3; ++c) p[c] += m->skin->weights[k] * q[c];
    }
  } else {
    memcpy(p, m->positions + v * 3, sizeof p);
  }
  skc_mat4_transform_point(g, p, out);
}

/* The signed volume of closed mesh m at rest in the world: positive when its triangles wind counter-clockwise seen
 * from outside. The readers reverse a mirrored node's triangles when they place it (skio_mesh_place), so read back
 * a mesh keeps the source's volume only when the writer reversed them under its mirrored node. */
static double rest_volume(const skio_scene* s, const skio_mesh* m) {
  float g[16];
  skio_frame_matrix(&s->frame, g);
  double vol = 0.0;
  for (size_t t = 0; t + 2 < m->index_count; t += 3) {
    float a[3], b[3], c[3];
    rest_point(s, m, g, m->indices[t], a);
    rest_point(s, m, g, m->indices[t + 1], b);
    rest_point(s, m, g, m->indices[t + 2], c);
    vol += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) - a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
            a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) /
           6.0;
  }
  return vol;
}

/* Mesh m's node world at rest in glTF's frame: g X placed (X = rest_world(j) IB(j) of a rigid attachment's joint). */
static void node_rest_world(const skio_scene* s, const skio_mesh* m, float w[16]) {
  float g[16], x[16], t[16];
  skio_frame_matrix(&s->frame, g);
  skc_mat4_identity(x);
  if (m->skin && m->rigid_joint >= 0)
    skc_mat4_mul(s->skeleton->rest_world + (size_t)m->rigid_joint * 16, m->inverse_bind + (size_t)m->rigid_joint * 16,
                 x);
  skc_mat4_mul(g, x, t);
  skc_mat4_mul(t, m->placed, w);
}

/* tests/data/mirrored_props (Blender 3.4, make_mirrored_props.py): "PropM" at the top scaled (-0.5, 0.7, 1),
 * "Holster" under the armature object scaled (1, -1, 1), "ShieldL" under bone hand.L scaled (-1, 1, 1). Written to
 * each other format and read back, each is placed by a mirrored node at the source's origin (before: a node at the
 * identity, its origin lost), and its volume is the source's (the triangles reversed under the mirror: faces out). */
START_TEST(mirrored_nodes_keep_their_transform) {
  static const char* const k_case[][2] = {{"glb", "fbx"}, {"glb", "dae"}, {"fbx", "glb"}, {"fbx", "dae"}};
  static const char* const k_mesh[] = {"PropM", "Holster", "ShieldL"};
  char src[64];
  snprintf(src, sizeof src, "mirrored_props.%s", k_case[_i][0]);
  skio_scene* s = read_scene(skt_data(src));
  s->materials_changed = true; /* written whole */
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.%s", dir, k_case[_i][1]);
  export_scene(s, path);
  skio_scene* back = read_scene(path);
  /* Collada keeps the bone child's one-joint skin (Blender's Collada importer makes a node under a JOINT a bone) */
  const int n = strcmp(k_case[_i][1], "dae") ? 3 : 2;
  for (int k = 0; k < n; ++k) {
    const skio_mesh *a = mesh_named(s, k_mesh[k]), *b = mesh_named(back, k_mesh[k]);
    ck_assert_msg(b->placed_set, "%s -> %s: %s read back without a node transform (its origin and mirror lost)", src,
                  path, k_mesh[k]);
    float wa[16], wb[16];
    node_rest_world(s, a, wa);
    node_rest_world(back, b, wb);
    ck_assert_msg(skc_mat3_det_of_mat4(wb) < 0.0f, "%s -> %s: %s's node is no mirror (det %g)", src, path, k_mesh[k],
                  (double)skc_mat3_det_of_mat4(wb));
    for (int c = 0; c < 3; ++c)
      ck_assert_msg(fabsf(wa[12 + c] - wb[12 + c]) < 1e-4f, "%s -> %s: %s's origin %g %g %g, the source's %g %g %g",
                    src, path, k_mesh[k], (double)wb[12], (double)wb[13], (double)wb[14], (double)wa[12],
                    (double)wa[13], (double)wa[14]);
    const double va = rest_volume(s, a), vb = rest_volume(back, b);
    ck_assert_msg(va > 0.0 && fabs(va - vb) < 1e-4 * fabs(va), "%s -> %s: %s's volume %g, the source's %g", src, path,
                  k_mesh[k], vb, va);
  }
  skio_scene_destroy(back);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* mirrored_props.fbx -> .glb: every node's transform is a TRS (glTF 2.0: a "matrix" must decompose into one), the
 * mirrored prop's a TRS with a negative scale. "Sheared" (turned under a node scaled (1, 2, 1)) was written with its
 * sheared world as "matrix", which Blender's glTF importer decomposes, putting the wedge 0.15 off; it is written in
 * its parent's space again, and read back its vertices are where the source has them. */
START_TEST(glb_nodes_are_trs_and_a_mirror_is_a_negative_scale) {
  skio_scene* s = read_scene(skt_data("mirrored_props.fbx"));
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64];
  skio_gltf_doc* d = export_glb(s, dir, path);
  for (uint32_t n = 0; skio_gltf_item(d, "nodes", n) >= 0; ++n) {
    float m[16];
    skc_trs trs;
    if (skio_json_floats(d, skio_json_get(d, skio_gltf_item(d, "nodes", n), "matrix"), m, 16) != 16) continue;
    char* name = skio_json_strdup(d, skio_json_get(d, skio_gltf_item(d, "nodes", n), "name"));
    const bool ok = skc_mat4_to_trs(m, &trs, 1e-5f);
    ck_assert_msg(ok, "node %u \"%.100s\": its matrix is no TRS", n, name ? name : "");
    free(name);
  }
  const int32_t prop = node_named(d, "PropM");
  ck_assert_int_ge(prop, 0);
  float sc[3] = {1, 1, 1};
  skio_json_floats(d, skio_json_get(d, skio_gltf_item(d, "nodes", (uint32_t)prop), "scale"), sc, 3);
  ck_assert_msg(sc[0] * sc[1] * sc[2] < 0.0f, "PropM's node scale %g %g %g is no mirror", (double)sc[0], (double)sc[1],
                (double)sc[2]);
  skio_gltf_doc_destroy(d);
  skio_scene* back = read_scene(path);
  const skio_mesh *a = mesh_named(s, "Sheared"), *b = mesh_named(back, "Sheared");
  ck_assert_uint_eq(a->vertex_count, b->vertex_count);
  float ga[16], gb[16];
  skio_frame_matrix(&s->frame, ga);
  skio_frame_matrix(&back->frame, gb);
  for (size_t v = 0; v < a->vertex_count; ++v) {
    float pa[3], pb[3];
    rest_point(s, a, ga, v, pa);
    rest_point(back, b, gb, v, pb);
    for (int c = 0; c < 3; ++c)
      ck_assert_msg(fabsf(pa[c] - pb[c]) < 1e-4f, "Sheared vertex %zu axis %d: %g, the source's %g", v, c,
                    (double)pb[c], (double)pa[c]);
  }
  skio_scene_destroy(back);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* ---- the objects' own axes (session 75) ------------------------------------------------------------------- */

/* C: Blender's Z up to glTF's Y up, (x, y, z) -> (x, z, -y). */
static const float k_c[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};

/* The turn of m (its 3x3 with each column normalized). */
static void turn_of(const float m[16], float r[16]) {
  skc_mat4_identity(r);
  for (int c = 0; c < 3; ++c) {
    const float* col = m + c * 4;
    const float len = sqrtf(col[0] * col[0] + col[1] * col[1] + col[2] * col[2]);
    for (int k = 0; k < 3; ++k) r[c * 4 + k] = len > 0.0f ? col[k] / len : 0.0f;
  }
}

static void assert_turn(const float m[16], const float want[16], const char* what) {
  float r[16];
  turn_of(m, r);
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k)
      ck_assert_msg(fabsf(r[c * 4 + k] - want[c * 4 + k]) < 1e-4f,
                    "%s: turned (%g %g %g | %g %g %g | %g %g %g), want (%g %g %g | %g %g %g | %g %g %g)", what,
                    (double)r[0], (double)r[1], (double)r[2], (double)r[4], (double)r[5], (double)r[6], (double)r[8],
                    (double)r[9], (double)r[10], (double)want[0], (double)want[1], (double)want[2], (double)want[4],
                    (double)want[5], (double)want[6], (double)want[8], (double)want[9], (double)want[10]);
}

/* Blender's rotation_euler (x, y, z) in XYZ order: Rz Ry Rx. */
static void euler_xyz(float x, float y, float z, float m[16]) {
  const float cx = cosf(x), sx = sinf(x), cy = cosf(y), sy = sinf(y), cz = cosf(z), sz = sinf(z);
  const float r[16] = {cy * cz,
                       cy * sz,
                       -sy,
                       0,
                       sx * sy * cz - cx * sz,
                       sx * sy * sz + cx * cz,
                       sx * cy,
                       0,
                       cx * sy * cz + sx * sz,
                       cx * sy * sz - sx * cz,
                       cx * cy,
                       0,
                       0,
                       0,
                       0,
                       1};
  memcpy(m, r, sizeof r);
}

/* A Blender object turned r (its matrix in Z up) as Blender's glTF exporter writes it: C r C^-1. */
static void gltf_turn(const float r[16], float out[16]) {
  float cinv[16], t[16];
  skc_mat4_inverse(k_c, cinv);
  skc_mat4_mul(k_c, r, t);
  skc_mat4_mul(t, cinv, out);
}

/* Blender's FBX (rigid_parts.fbx) and Collada (mover_rig.dae) files keep each object's data in its own Z-up axes,
 * with the Z-up-to-Y-up turn on the top-level nodes (FBX: x100 and -90 degrees about X; Collada: the Z_UP root):
 * written as .glb each object's node must have Blender's own turn in glTF's axes (C r C^-1, as Blender's glTF
 * exporter writes it), not r after the file's turn. Before, the Rig, the Prop and an empty read back in Blender
 * rotated -90 degrees about X (their data counter-turned), the Gauntlet by r C. */
START_TEST(glb_objects_keep_blenders_axes) {
  static const char* const k_src[] = {"rigid_parts.fbx", "mover_rig.dae"};
  skio_scene* s = read_scene(skt_data(k_src[_i]));
  s->materials_changed = true;
  float id[16], want[16], r[16];
  skc_mat4_identity(id);
  if (_i == 0) { /* an empty at Blender's identity turn, as Blender's FBX exporter writes a top-level object */
    skio_object o;
    memset(&o, 0, sizeof o);
    o.name = "Marker";
    o.kind = SKIO_OBJECT_EMPTY;
    o.parent = -1;
    skc_mat4_identity(o.look);
    float cinv[16];
    skc_mat4_inverse(k_c, cinv);
    for (int e = 0; e < 16; ++e) o.world[e] = e < 12 ? 100.0f * k_c[e] : (e == 15 ? 1.0f : 0.0f);
    o.world[12] = 300.0f;
    skc_mat4_identity(o.parent_rest);
    skc_err err = {0};
    ck_assert_msg(skio_scene_add_object(s, &o, 0.0, NULL, &err) == SKC_OK, "%.400s", err.message);
  }
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64];
  skio_gltf_doc* d = export_glb(s, dir, path);
  float w[16];
  if (_i == 0) {
    const int32_t prop = node_named(d, "Prop"), rig = node_named(d, "Rig"), gauntlet = node_named(d, "Gauntlet");
    const int32_t marker = node_named(d, "Marker");
    ck_assert(prop >= 0 && rig >= 0 && gauntlet >= 0 && marker >= 0);
    node_local(d, rig, w);
    assert_turn(w, id, "the armature object Rig");
    node_world(d, prop, w);
    assert_turn(w, id, "Prop");
    node_world(d, marker, w);
    assert_turn(w, id, "the empty Marker");
    euler_xyz(0.3f, 0.2f, 0.1f, r);
    gltf_turn(r, want);
    node_world(d, gauntlet, w);
    assert_turn(w, want, "Gauntlet (on bone hand)");
  } else {
    const int32_t crate = node_named(d, "Crate");
    ck_assert(crate >= 0);
    node_world(d, crate, w);
    assert_turn(w, id, "Crate");
  }
  skio_gltf_doc_destroy(d);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* The other way: Blender's rigid_parts.glb written as .fbx and .dae (and rigid_parts.fbx as .dae) must give each
 * object node Blender's Z-up axes, which Blender's FBX importer (turning a Y-up file's top nodes +90 degrees about X)
 * and Collada importer (a Z_UP document as it is) read back as the source's: read back by skinkit (glTF's frame via
 * the file's turn) the Prop's and the Rig's nodes are turned by C itself. Before, .glb -> .fbx / .dae wrote them at
 * the identity turn: Blender read the Prop rotated +90 degrees about X, and the .fbx's Rig too. */
START_TEST(fbx_and_dae_objects_keep_blenders_axes) {
  static const char* const k_src[] = {"rigid_parts.glb", "rigid_parts.glb", "rigid_parts.fbx"};
  static const char* const k_ext[] = {"fbx", "dae", "dae"};
  skio_scene* s = read_scene(skt_data(k_src[_i]));
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64], what[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.%s", dir, k_ext[_i]);
  snprintf(what, sizeof what, "%s -> .%s: Prop", k_src[_i], k_ext[_i]);
  export_scene(s, path);
  skio_scene* back = read_scene(path);
  float g[16], w[16];
  skio_frame_matrix(&back->frame, g);
  skc_mat4_mul(g, mesh_named(back, "Prop")->placed, w);
  assert_turn(w, k_c, what);
  const int32_t rig = skc_skeleton_find(back->skeleton, "Rig");
  ck_assert_int_ge(rig, 0);
  snprintf(what, sizeof what, "%s -> .%s: Rig", k_src[_i], k_ext[_i]);
  skc_mat4_mul(g, back->skeleton->rest_world + (size_t)rig * 16, w);
  assert_turn(w, k_c, what);
  skio_scene_destroy(back);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

/* An FBX written by another tool than Blender or Assimp (Maya, 3ds Max: object data in the file's own axes) keeps its
 * object nodes as they are: rigid_parts.fbx with its Creator strings replaced (same length, so the binary stays
 * valid) by a Maya one reads as such (skio_scene.foreign_objects), and its Prop's glTF node is the file's own, turned
 * by the file's frame alone (as before session 75), where the Blender file's Prop gets Blender's identity turn. */
START_TEST(another_tools_fbx_keeps_its_object_nodes) {
  static const char blender[] = "Blender (stable FBX IO) - 3.4.1 - 4.37.1";
  static const char maya[] = "Autodesk Maya 2022 FBX SDK 2020.2.1 x64 ";
  ck_assert_uint_eq(sizeof blender, sizeof maya);
  FILE* in = fopen(skt_data("rigid_parts.fbx"), "rb");
  ck_assert_ptr_nonnull(in);
  static char buf[1 << 20];
  const size_t n = fread(buf, 1, sizeof buf, in);
  fclose(in);
  ck_assert(n > 0 && n < sizeof buf);
  int replaced = 0;
  for (size_t k = 0; k + sizeof blender - 1 <= n; ++k)
    if (!memcmp(buf + k, blender, sizeof blender - 1)) memcpy(buf + k, maya, sizeof maya - 1), ++replaced;
  ck_assert_int_gt(replaced, 0);
  char dir[] = "/tmp/skt_pivot_XXXXXX", fbx[64], glb[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(fbx, sizeof fbx, "%s/maya.fbx", dir);
  snprintf(glb, sizeof glb, "%s/out.glb", dir);
  FILE* out = fopen(fbx, "wb");
  ck_assert(out && fwrite(buf, 1, n, out) == n && fclose(out) == 0);
  skio_scene* s = read_scene(fbx);
  ck_assert(s->foreign_objects && !skio_scene_zup_objects(s));
  ck_assert(!skio_scene_object_basis(s, true) && !skio_scene_object_basis(s, false));
  s->materials_changed = true;
  export_scene(s, glb);
  skio_gltf_doc* d = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_gltf_doc_load(glb, &d, &err) == SKC_OK, "%.400s", err.message);
  const int32_t prop = node_named(d, "Prop");
  ck_assert(prop >= 0);
  float w[16];
  node_world(d, prop, w);
  assert_turn(w, k_c, "another tool's Prop (the file's node after its frame)");
  skio_gltf_doc_destroy(d);
  skio_scene_destroy(s);
  skio_scene* b = read_scene(skt_data("rigid_parts.fbx"));
  ck_assert(!b->foreign_objects && skio_scene_zup_objects(b));
  skio_scene_destroy(b);
  unlink(glb);
  unlink(fbx);
  rmdir(dir);
}
END_TEST

/* ---- a skinned mesh's object through FBX (session 76) ------------------------------------------------------ */

/* The largest distance from a rest vertex of mesh a (in scene sa) to the nearest rest vertex of b (in sb), both in
 * glTF's frame (rest_point): the writers may split or reorder vertices, not move them. */
static double rest_cloud_gap(const skio_scene* sa, const skio_mesh* a, const skio_scene* sb, const skio_mesh* b) {
  float ga[16], gb[16];
  skio_frame_matrix(&sa->frame, ga);
  skio_frame_matrix(&sb->frame, gb);
  float* pb = malloc(b->vertex_count * 3 * sizeof *pb + 1);
  ck_assert_ptr_nonnull(pb);
  for (size_t v = 0; v < b->vertex_count; ++v) rest_point(sb, b, gb, v, pb + v * 3);
  double worst = 0.0;
  for (size_t v = 0; v < a->vertex_count; ++v) {
    float p[3];
    rest_point(sa, a, ga, v, p);
    double best = INFINITY;
    for (size_t w = 0; w < b->vertex_count; ++w) {
      double d2 = 0.0;
      for (int c = 0; c < 3; ++c) d2 += ((double)p[c] - pb[w * 3 + c]) * ((double)p[c] - pb[w * 3 + c]);
      best = fmin(best, d2);
    }
    worst = fmax(worst, sqrt(best));
  }
  free(pb);
  return worst;
}

/* Blender's FBX importer shows a skinned mesh's object with its Model's transform (and places its vertices by the
 * cluster binds). skinkit wrote that Model at the identity, which Blender turned +90 degrees about X (a Y-up file's
 * top node) with the vertices counter-turned: Body of a .glb or .dae written as .fbx read back rotated where the
 * source's object is not. Now the Model has the object's own axes (C, as the FBX view gives every object) at the
 * armature object's place: read back by skinkit (whose reader notes a skinned mesh's Model world as its bind_world),
 * Body's Model in glTF's frame is turned by C times the source object's turn, and every rest vertex stays where the
 * source has it. rigid_parts.glb: Rig and Body at Blender's identity; mover_rig.dae: Body under Rig, turned
 * (10, 0, 30) degrees under Mover's 15 about Z. */
START_TEST(skinned_mesh_keeps_its_object_through_fbx) {
  static const char* const k_src[] = {"rigid_parts.glb", "mover_rig.dae"};
  skio_scene* s = read_scene(skt_data(k_src[_i]));
  s->materials_changed = true; /* written whole */
  char dir[] = "/tmp/skt_pivot_XXXXXX", path[64], what[96];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.fbx", dir);
  export_scene(s, path);
  skio_scene* back = read_scene(path);
  const skio_mesh *a = mesh_named(s, "Body"), *b = mesh_named(back, "Body");
  ck_assert_msg(b->skin && b->bind_world_set, "%s -> .fbx: Body read back without a skin or its Model's world",
                k_src[_i]);
  float g[16], w[16], want[16], r[16], t[16];
  skio_frame_matrix(&back->frame, g);
  skc_mat4_mul(g, b->bind_world, w);
  skc_mat4_identity(r);
  if (_i == 1) { /* Body's object in Blender: Mover's turn times Rig's */
    float mover[16], rig[16];
    euler_xyz(0.0f, 0.0f, (float)(15.0 * M_PI / 180.0), mover);
    euler_xyz((float)(10.0 * M_PI / 180.0), 0.0f, (float)(30.0 * M_PI / 180.0), rig);
    skc_mat4_mul(mover, rig, r);
  }
  skc_mat4_mul(k_c, r, t);
  memcpy(want, t, sizeof t);
  snprintf(what, sizeof what, "%s -> .fbx: Body's Model", k_src[_i]);
  assert_turn(w, want, what);
  const double gap = rest_cloud_gap(s, a, back, b), back_gap = rest_cloud_gap(back, b, s, a);
  ck_assert_msg(gap < 1e-4 && back_gap < 1e-4, "%s -> .fbx: Body's rest vertices moved (%g, %g)", k_src[_i], gap,
                back_gap);
  skio_scene_destroy(back);
  unlink(path);
  rmdir(dir);
  skio_scene_destroy(s);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("scene_pivot");
  TCase* tc = tcase_create("pivot");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, glb_keeps_origins_and_bone_parents);
  tcase_add_test(tc, glb_keeps_an_empty_under_a_placed_mesh);
  tcase_add_loop_test(tc, fbx_and_dae_keep_origins, 0, 2);
  tcase_add_loop_test(tc, bone_child_follows_its_bone_in_the_clip, 0, 2);
  tcase_add_loop_test(tc, mirrored_nodes_keep_their_transform, 0, 4);
  tcase_add_test(tc, glb_nodes_are_trs_and_a_mirror_is_a_negative_scale);
  tcase_add_loop_test(tc, glb_objects_keep_blenders_axes, 0, 2);
  tcase_add_loop_test(tc, fbx_and_dae_objects_keep_blenders_axes, 0, 3);
  tcase_add_test(tc, another_tools_fbx_keeps_its_object_nodes);
  tcase_add_loop_test(tc, skinned_mesh_keeps_its_object_through_fbx, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
