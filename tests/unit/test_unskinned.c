#define _DEFAULT_SOURCE /* mkdtemp, readlink */
/* test_unskinned.c - files without skins. Binding the file a modeller hands over: an armature beside the mesh it is
 * meant to deform, no weights at all. tests/unskinned/bare_rig.{fbx,dae,glb} (make_bare_rig.py there, Blender 3.4): the armature object
 * "Rig" moved, turned and scaled 1.5, a chain upper -> lower -> hand along its +Z (world lengths 1.5, 1.5, 0.75), a
 * cylinder "Body" (radius 0.3 in world: 0.08 of the chain) around it and a cube "Crate" beside them. Blender's FBX
 * exporter writes the bones as clusters without weights, its Collada and glTF exporters write no skin at all.
 *
 * Checked: read with sk_load_options.skeleton_from_nodes every file has a skeleton whose deform joints are exactly
 * upper, lower and hand (not the armature object or the scene root); without it (and through options of the ABI 1.6
 * size) the .dae and .glb have none, as before. `skinkit bind` then writes Body so that its rest pose puts every
 * vertex at its world place (the cylinder around the bones' world axis), weighted to the bone beside it.
 * `skinkit convert` keeps such an armature, and a glTF without skins written as glTF is its own document again; a
 * mesh added to a scene read from a glTF is written (it was dropped). */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"

static const char* const k_files[] = {"bare_rig.fbx", "bare_rig.dae", "bare_rig.glb"};
static const char* const k_bones[] = {"upper", "lower", "hand"};

/* tests/unskinned/NAME, or tests/data/NAME for the others */
static const char* data_path(const char* name) {
  static char buf[4096];
  const char* me = __FILE__;
  const char* cut = strstr(me, "tests/unit/");
  snprintf(buf, sizeof buf, "%.*stests/%s/%s", cut ? (int)(cut - me) : 0, me,
           strncmp(name, "bare_rig", 8) && strncmp(name, "anim_only", 9) && strncmp(name, "static_ball", 11) ? "data"
                                                                                                : "unskinned",
           name);
  return buf;
}

static const char* cli_path(void) {
  static char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 16);
  ck_assert(n > 0);
  buf[n] = 0;
  strcpy(strrchr(buf, '/') + 1, "skinkit");
  return buf;
}

static sk_scene* load(const char* name, uint32_t size, uint32_t from_nodes) {
  sk_load_options lo;
  memset(&lo, 0, sizeof lo);
  lo.size = size;
  lo.skeleton_from_nodes = from_nodes;
  sk_scene* s = NULL;
  sk_error err;
  ck_assert_msg(sk_scene_load(data_path(name), &lo, &s, &err) == SK_OK, "%s: %s", name, err.message);
  return s;
}

static sk_scene* load_path(const char* path) {
  sk_load_options lo;
  memset(&lo, 0, sizeof lo);
  lo.size = sizeof lo;
  lo.skeleton_from_nodes = 1;
  sk_scene* s = NULL;
  sk_error err;
  ck_assert_msg(sk_scene_load(path, &lo, &s, &err) == SK_OK, "%s: %s", path, err.message);
  return s;
}

static int is_bone(const char* name) {
  for (size_t b = 0; b < 3; ++b)
    if (!strcmp(name, k_bones[b])) return 1;
  return 0;
}

START_TEST(bare_armature_becomes_the_skeleton) {
  const char* name = k_files[_i];
  sk_scene* s = load(name, sizeof(sk_load_options), 1);
  const sk_skeleton* sk = sk_scene_skeleton(s);
  ck_assert_msg(sk != NULL, "%s: no skeleton", name);
  uint32_t nj = sk_skeleton_joint_count(sk), count = 0, rule = 0;
  uint8_t mask[64];
  ck_assert_uint_le(nj, sizeof mask);
  ck_assert_int_eq(sk_scene_deform_joints(s, mask, sizeof mask, &count, &rule, NULL), SK_OK);
  ck_assert_uint_eq(count, 3);
  for (uint32_t j = 0; j < nj; ++j)
    ck_assert_msg(mask[j] == is_bone(sk_skeleton_joint_name(sk, j)), "%s: joint %s deform %u", name,
                  sk_skeleton_joint_name(sk, j), mask[j]);
  /* the FBX carries the bones as weightless clusters: its skins list them; the others have no skin */
  ck_assert_uint_eq(rule, strstr(name, ".fbx") ? SK_DEFORM_RULE_SKINS : SK_DEFORM_RULE_HIERARCHY);
  sk_scene_destroy(s);
  if (strstr(name, ".fbx")) return;
  s = load(name, sizeof(sk_load_options), 0);
  ck_assert_msg(sk_scene_skeleton(s) == NULL, "%s: a skeleton without skeleton_from_nodes", name);
  sk_scene_destroy(s);
  s = load(name, (uint32_t)offsetof(sk_load_options, skeleton_from_nodes), 1); /* 1.6 size: the field is not read */
  ck_assert_ptr_null(sk_scene_skeleton(s));
  sk_scene_destroy(s);
}
END_TEST

/* The chain as the file places it (units and up axis are the exporter's): the rest heads of upper, lower and hand,
 * and the end of hand (half as long as lower). */
typedef struct chain {
  double at[4][3];
} chain;

static chain chain_of(const sk_skeleton* sk, const float* world) {
  chain c;
  for (uint32_t j = 0; j < sk_skeleton_joint_count(sk); ++j)
    for (int b = 0; b < 3; ++b)
      if (!strcmp(sk_skeleton_joint_name(sk, j), k_bones[b]))
        for (int k = 0; k < 3; ++k) c.at[b][k] = world[16 * (size_t)j + 12 + k];
  for (int k = 0; k < 3; ++k) c.at[3][k] = c.at[2][k] + 0.5 * (c.at[2][k] - c.at[1][k]);
  return c;
}

/* Position of p along the chain as a share of its length (0 at upper's head, 1 at hand's end) and its distance from
 * the chain's axis (straight here) in the same measure. */
static void along_chain(const chain* c, const float* p, double* along, double* off) {
  double axis[3], len = 0.0, d[3], t = 0.0, r2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    axis[k] = c->at[3][k] - c->at[0][k];
    len += axis[k] * axis[k];
  }
  len = sqrt(len);
  for (int k = 0; k < 3; ++k) {
    axis[k] /= len;
    d[k] = p[k] - c->at[0][k];
    t += d[k] * axis[k];
  }
  for (int k = 0; k < 3; ++k) r2 += (d[k] - t * axis[k]) * (d[k] - t * axis[k]);
  *along = t / len;
  *off = sqrt(r2) / len;
}

/* Index (into k_bones) of the bone whose stretch of the chain holds `along`, or -1 within 0.08 of a joint (the
 * bones end at 0.4, 0.8 and 1 of the chain). */
static int bone_at(double along) {
  const double ends[4] = {0.0, 0.4, 0.8, 1.0};
  for (int b = 0; b < 3; ++b)
    if (along > ends[b] + (b ? 0.08 : -1.0) && along < ends[b + 1] - (b < 2 ? 0.08 : -1.0)) return b;
  return -1;
}

/* Rest (world) place of bind-space point p of a mesh bound to joint j: rest_world(j) inverse_bind(j) p. */
static void rest_place(const float* world, const float* ibm, uint32_t j, const float* p, float out[3]) {
  const float* a = world + 16 * (size_t)j;
  const float* b = ibm + 16 * (size_t)j;
  float q[3];
  for (int r = 0; r < 3; ++r) q[r] = b[r] * p[0] + b[4 + r] * p[1] + b[8 + r] * p[2] + b[12 + r]; /* column-major */
  for (int r = 0; r < 3; ++r) out[r] = a[r] * q[0] + a[4 + r] * q[1] + a[8 + r] * q[2] + a[12 + r];
}

/* Checks the Body mesh of a bound scene; returns the vertices checked against a bone. */
static uint32_t check_body(sk_scene* s, const char* name) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t checked = 0, found = 0, nj = sk_skeleton_joint_count(sk);
  float* world = malloc(16 * (size_t)nj * sizeof *world);
  float* ibm = malloc(16 * (size_t)nj * sizeof *ibm);
  ck_assert_int_eq(sk_skeleton_get_rest_world(sk, world), SK_OK);
  const chain c = chain_of(sk, world);
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m) {
    if (strncmp(sk_scene_mesh_name(s, m), "Body", 4) != 0) continue;
    found = 1;
    size_t nv = sk_scene_mesh_vertex_count(s, m);
    sk_skin* skin = sk_scene_mesh_skin(s, m);
    ck_assert_msg(skin != NULL, "%s: Body has no skin", name);
    size_t ne = sk_skin_influence_count(skin);
    float* pos = malloc(3 * nv * sizeof *pos);
    uint32_t* off = malloc((nv + 1) * sizeof *off);
    uint32_t* jn = malloc((ne + 1) * sizeof *jn);
    float* w = malloc((ne + 1) * sizeof *w);
    ck_assert_uint_eq(sk_scene_mesh_positions(s, m, pos, 3 * nv), 3 * nv);
    ck_assert_int_eq(sk_skin_get_csr(skin, off, jn, w, NULL), SK_OK);
    ck_assert_int_eq(sk_scene_mesh_inverse_binds(s, m, ibm, NULL, NULL), SK_OK);
    for (size_t v = 0; v < nv; ++v) {
      double along, r;
      float at[3];
      ck_assert_uint_gt(off[v + 1], off[v]);
      rest_place(world, ibm, jn[off[v]], pos + 3 * v, at);
      along_chain(&c, at, &along, &r);
      ck_assert_msg(r < 0.08 + 1e-4 && along > -1e-4 && along < 1.0 + 1e-4, /* radius 0.3 of 3.75 */
                    "%s: vertex %zu at (%g %g %g) is not around the bones (%.4f from the axis, %.4f along)", name, v,
                    (double)at[0], (double)at[1], (double)at[2], r, along);
      uint32_t top = off[v];
      for (uint32_t e = off[v]; e < off[v + 1]; ++e) top = w[e] > w[top] ? e : top;
      ck_assert_msg(is_bone(sk_skeleton_joint_name(sk, jn[top])), "%s: vertex %zu", name, v);
      int b = bone_at(along);
      if (b < 0) continue;
      ck_assert_msg(!strcmp(sk_skeleton_joint_name(sk, jn[top]), k_bones[b]), "%s: vertex %zu %.3f along: %s, not %s",
                    name, v, along, sk_skeleton_joint_name(sk, jn[top]), k_bones[b]);
      ++checked;
    }
    free(pos), free(off), free(jn), free(w);
  }
  ck_assert_msg(found, "%s: no Body mesh", name);
  free(world);
  free(ibm);
  return checked;
}

/* Runs `skinkit ARGS` in a fresh directory whose out.EXT path is in *out (the caller removes it with done()). */
static int run_in_tmp(char* dir, const char* fmt_args, const char* in, const char* ext, char* out, size_t cap) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char errp[4200], args[9000], text[4096];
  snprintf(out, cap, "%s/out.%s", dir, ext);
  snprintf(errp, sizeof errp, "%s/err.txt", dir);
  snprintf(args, sizeof args, fmt_args, in, out);
  int rc = skt_run_cli(dir, cli_path(), args, errp, text, sizeof text);
  if (rc) fprintf(stderr, "skinkit %s: exit %d: %s\n", args, rc, skt_read_text(errp));
  unlink(errp);
  return rc;
}

static void done(const char* dir, const char* out) {
  unlink(out);
  rmdir(dir);
}

START_TEST(bind_weights_the_bare_armature) {
  const char* name = k_files[_i];
  char dir[] = "/tmp/skt_bare_XXXXXX", out[4096];
  ck_assert_int_eq(run_in_tmp(dir, "bind '%s' '%s'", data_path(name), "glb", out, sizeof out), 0);
  sk_scene* s = NULL;
  sk_error err;
  ck_assert_msg(sk_scene_load(out, NULL, &s, &err) == SK_OK, "%s", err.message);
  uint32_t checked = check_body(s, name);
  ck_assert_msg(checked > 100, "%s: only %u vertices away from the joints", name, checked);
  sk_scene_destroy(s);
  done(dir, out);
}
END_TEST

/* Rest-pose place of every vertex of mesh m, as any glTF reader computes it: sum over its influences of w_j
 * rest_world(j) inverse_bind(j) p / sum w_j; the position itself without a skin (io places unskinned meshes in the
 * rest pose); NaN for a vertex without weights. */
static float* rest_positions_as_read(sk_scene* s, uint32_t m, size_t* nv_out) {
  size_t nv = sk_scene_mesh_vertex_count(s, m);
  float* pos = malloc((3 * nv + 1) * sizeof *pos);
  ck_assert_uint_eq(sk_scene_mesh_positions(s, m, pos, 3 * nv), 3 * nv);
  *nv_out = nv;
  sk_skin* skin = sk_scene_mesh_skin(s, m);
  if (!skin) return pos;
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nj = sk_skeleton_joint_count(sk);
  size_t ne = sk_skin_influence_count(skin);
  float* world = malloc(16 * (size_t)nj * sizeof *world);
  float* ibm = malloc(16 * (size_t)nj * sizeof *ibm);
  uint32_t* off = malloc((nv + 1) * sizeof *off);
  uint32_t* jn = malloc((ne + 1) * sizeof *jn);
  float* w = malloc((ne + 1) * sizeof *w);
  ck_assert_int_eq(sk_skeleton_get_rest_world(sk, world), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_inverse_binds(s, m, ibm, NULL, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_get_csr(skin, off, jn, w, NULL), SK_OK);
  for (size_t v = 0; v < nv; ++v) {
    float sum[3] = {0.0f, 0.0f, 0.0f}, at[3], total = 0.0f;
    for (uint32_t e = off[v]; e < off[v + 1]; ++e) {
      rest_place(world, ibm, jn[e], pos + 3 * v, at);
      for (int k = 0; k < 3; ++k) sum[k] += w[e] * at[k];
      total += w[e];
    }
    for (int k = 0; k < 3; ++k) pos[3 * v + k] = total > 0.0f ? sum[k] / total : NAN;
  }
  free(world), free(ibm), free(off), free(jn), free(w);
  return pos;
}

/* Points p (n of them) of scene s moved into glTF's frame (an FBX's centimetres become metres: sk_scene_frame). */
static void in_gltf_frame(const sk_scene* s, float* p, size_t n) {
  float g[16];
  ck_assert_int_ge(sk_scene_frame(s, NULL, NULL, g), 0);
  for (size_t v = 0; v < n; ++v) {
    const float x = p[3 * v], y = p[3 * v + 1], z = p[3 * v + 2];
    for (int r = 0; r < 3; ++r) p[3 * v + r] = g[r] * x + g[4 + r] * y + g[8 + r] * z + g[12 + r];
  }
}

/* rest_positions_as_read in glTF's frame: what a .glb of s holds. */
static float* rest_positions(sk_scene* s, uint32_t m, size_t* nv_out) {
  float* pos = rest_positions_as_read(s, m, nv_out);
  in_gltf_frame(s, pos, *nv_out);
  return pos;
}

/* Every mesh of the bound file sits where the input's rest pose put it (the glTF rest pose of the output, weights
 * blended): the skinned ones, the unskinned ones beside them (rigid_parts.fbx's cone "Prop", a child of the armature
 * object; the crate beside the bare armature), the bare armature's body. */
START_TEST(bind_keeps_every_mesh_in_place) {
  static const char* const k_in[] = {"bare_rig.fbx", "bare_rig.dae", "bare_rig.glb", "rigid_parts.fbx"};
  const char* name = k_in[_i];
  char dir[] = "/tmp/skt_bare_XXXXXX", out[4096];
  ck_assert_int_eq(run_in_tmp(dir, "bind '%s' '%s'", data_path(name), "glb", out, sizeof out), 0);
  sk_scene* a = load(name, sizeof(sk_load_options), 1);
  ck_assert_int_eq(sk_scene_weld(a, NULL, NULL), SK_OK); /* as bind does before writing a new file */
  sk_scene* b = NULL;
  ck_assert_int_eq(sk_scene_load(out, NULL, &b, NULL), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_count(a), sk_scene_mesh_count(b));
  for (uint32_t m = 0; m < sk_scene_mesh_count(a); ++m) {
    size_t na, nb, compared = 0;
    uint32_t k = 0; /* by name: read back, the meshes come in the node tree's order (a rigid part under its bone) */
    while (k < sk_scene_mesh_count(b) && strcmp(sk_scene_mesh_name(a, m), sk_scene_mesh_name(b, k)) != 0) ++k;
    ck_assert_msg(k < sk_scene_mesh_count(b), "%s: mesh %s not read back", name, sk_scene_mesh_name(a, m));
    float* pa = rest_positions(a, m, &na);
    float* pb = rest_positions(b, k, &nb);
    ck_assert_uint_eq(na, nb);
    float lo = INFINITY, hi = -INFINITY, worst = 0.0f;
    for (size_t i = 0; i < 3 * na; ++i) {
      if (isnan(pa[i])) continue; /* the FBX's weightless clusters place no vertex */
      lo = fminf(lo, pa[i]), hi = fmaxf(hi, pa[i]);
      worst = fmaxf(worst, fabsf(pa[i] - pb[i]));
      ++compared;
    }
    ck_assert_msg(compared == 0 || worst <= 1e-4f * fmaxf(hi - lo, 1.0f), "%s: mesh %s moved by %g (extent %g)", name,
                  sk_scene_mesh_name(a, m), (double)worst, (double)(hi - lo));
    free(pa);
    free(pb);
  }
  sk_scene_destroy(a);
  sk_scene_destroy(b);
  done(dir, out);
}
END_TEST

/* The JSON chunk of a .glb (malloc'd), or NULL. */
static char* glb_json(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  unsigned char head[20];
  char* json = NULL;
  if (f && fread(head, 1, 20, f) == 20) {
    *n = (size_t)head[12] | (size_t)head[13] << 8 | (size_t)head[14] << 16 | (size_t)head[15] << 24;
    json = *n < (1u << 24) ? malloc(*n + 1) : NULL;
    if (json && fread(json, 1, *n, f) != *n) {
      free(json);
      json = NULL;
    }
  }
  if (f) fclose(f);
  return json;
}

/* convert keeps the bare armature: every joint of the input (read with skeleton_from_nodes) is a joint of the
 * output, and a glTF without skins written as .glb is its own document again (the same nodes, byte for byte the
 * same JSON; before, the meshes were written alone, the armature dropped). */
START_TEST(convert_keeps_the_armature) {
  const char* name = k_files[_i];
  char dir[] = "/tmp/skt_unsk_XXXXXX", out[4096];
  ck_assert_int_eq(run_in_tmp(dir, "convert '%s' '%s'", data_path(name), "glb", out, sizeof out), 0);
  sk_scene* a = load(name, sizeof(sk_load_options), 1);
  sk_load_options lo;
  memset(&lo, 0, sizeof lo);
  lo.size = sizeof lo;
  lo.skeleton_from_nodes = 1;
  sk_scene* b = NULL;
  ck_assert_int_eq(sk_scene_load(out, &lo, &b, NULL), SK_OK);
  const sk_skeleton* ka = sk_scene_skeleton(a);
  const sk_skeleton* kb = sk_scene_skeleton(b);
  ck_assert_ptr_nonnull(kb);
  for (uint32_t j = 0; j < sk_skeleton_joint_count(ka); ++j) {
    uint32_t at;
    if (skt_implicit_fbx_root(name, "glb", ka, kb, j)) continue; /* no node of the FBX / Collada file: not written */
    ck_assert_msg(sk_skeleton_find_joint(kb, sk_skeleton_joint_name(ka, j), &at) == SK_OK, "%s: joint %s lost",
                  name, sk_skeleton_joint_name(ka, j));
  }
  ck_assert_uint_eq(sk_scene_mesh_count(a), sk_scene_mesh_count(b));
  if (strstr(name, ".glb")) {
    size_t na = 0, nb = 0;
    char* ja = glb_json(data_path(name), &na);
    char* jb = glb_json(out, &nb);
    ck_assert_msg(ja && jb && na == nb && !memcmp(ja, jb, na), "%s: the document was not kept", name);
    free(ja);
    free(jb);
  }
  sk_scene_destroy(a);
  sk_scene_destroy(b);
  done(dir, out);
}
END_TEST

/* A mesh added to a scene read from a glTF is written: the in-place editor cannot place it in the document, so the
 * scene is written whole (before, the edit wrote the document and the added mesh was silently lost). */
START_TEST(added_mesh_is_written) {
  char dir[] = "/tmp/skt_unsk_XXXXXX", out[4096];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(out, sizeof out, "%s/out.glb", dir);
  char in[4096];
  snprintf(in, sizeof in, "%s", data_path("cylinder_rig.glb"));
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(in, NULL, &s, NULL), SK_OK);
  const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint32_t idx[3] = {0, 1, 2};
  sk_mesh_desc md;
  memset(&md, 0, sizeof md);
  md.size = sizeof md;
  md.name = "added";
  md.vertex_count = 3;
  md.positions = tri;
  md.indices = idx;
  md.index_count = 3;
  ck_assert_int_eq(sk_scene_add_mesh(s, &md, NULL, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_save(s, out, NULL, NULL), SK_OK);
  sk_scene* b = NULL;
  ck_assert_int_eq(sk_scene_load(out, NULL, &b, NULL), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_count(b), 2);
  ck_assert_str_eq(sk_scene_mesh_name(b, 1), "added");
  sk_scene_destroy(s);
  sk_scene_destroy(b);
  done(dir, out);
}
END_TEST

/* Index of the mesh named `name` in s (-1: none). */
static int mesh_named(const sk_scene* s, const char* name) {
  for (uint32_t m = 0; m < sk_scene_mesh_count(s); ++m)
    if (!strcmp(sk_scene_mesh_name(s, m), name)) return (int)m;
  return -1;
}

/* bind --meshes binds only the meshes named: the others are written as they were (the crate beside the armature
 * stays unskinned, rigid_parts' bone-parented cube keeps its one-bone skin, its cone stays a prop) and in place; an
 * unknown name is exit 2 with the file's mesh names. */
START_TEST(bind_only_the_chosen_meshes) {
  static const struct {
    const char* in;
    const char* chosen;
    const char* skinned;  /* must come out skinned */
    const char* kept;     /* must come out unskinned */
  } k_cases[] = {{"bare_rig.dae", "Body", "Body", "Cube"}, /* the geometry names, as Blender names the mesh data */
                 {"bare_rig.glb", "Body", "Body", "Cube"},
                 {"rigid_parts.fbx", "Cylinder", "Cylinder", "Cone"}};
  const char* name = k_cases[_i].in;
  char dir[] = "/tmp/skt_unsk_XXXXXX", out[4096], fmt[256];
  snprintf(fmt, sizeof fmt, "bind '%%s' '%%s' --meshes %s", k_cases[_i].chosen);
  ck_assert_int_eq(run_in_tmp(dir, fmt, data_path(name), "glb", out, sizeof out), 0);
  sk_scene* b = NULL;
  ck_assert_int_eq(sk_scene_load(out, NULL, &b, NULL), SK_OK);
  int ms = mesh_named(b, k_cases[_i].skinned), mk = mesh_named(b, k_cases[_i].kept);
  ck_assert_int_ge(ms, 0);
  ck_assert_int_ge(mk, 0);
  ck_assert_ptr_nonnull(sk_scene_mesh_skin(b, (uint32_t)ms));
  ck_assert_ptr_null(sk_scene_mesh_skin(b, (uint32_t)mk));
  if (strstr(name, "rigid_parts")) { /* the cube: still the one-bone skin of its parent bone */
    int mc = mesh_named(b, "Cube");
    ck_assert_int_ge(mc, 0);
    const sk_skin* skin = sk_scene_mesh_skin(b, (uint32_t)mc);
    ck_assert_ptr_nonnull(skin);
    ck_assert_uint_eq(sk_skin_influence_count(skin), sk_skin_vertex_count(skin)); /* one weight a vertex */
  }
  sk_scene_destroy(b);
  done(dir, out);
  char dir2[] = "/tmp/skt_unsk_XXXXXX";
  ck_assert_int_eq(run_in_tmp(dir2, "bind '%s' '%s' --meshes NoSuchMesh", data_path(name), "glb", out, sizeof out), 2);
  done(dir2, out);
  char dir3[] = "/tmp/skt_unsk_XXXXXX"; /* an empty list binds nothing: refused */
  ck_assert_int_eq(run_in_tmp(dir3, "bind '%s' '%s' --meshes ,", data_path(name), "glb", out, sizeof out), 2);
  done(dir3, out);
}
END_TEST

/* World position of joint `name` of s in animation 0 at time t (its rest pose without clips), in glTF's frame. */
static void joint_at(const sk_scene* s, const char* name, double t, double out[3]) {
  const sk_skeleton* sk = sk_scene_skeleton(s);
  uint32_t nj = sk_skeleton_joint_count(sk), j = 0;
  ck_assert_msg(sk_skeleton_find_joint(sk, name, &j) == SK_OK, "no joint %s", name);
  float* trs = malloc(10 * (size_t)nj * sizeof *trs);
  float* local = malloc(16 * (size_t)nj * sizeof *local);
  float* world = malloc(16 * (size_t)nj * sizeof *world);
  if (sk_scene_animation_count(s))
    ck_assert_int_eq(sk_scene_sample_pose(s, 0, t, trs, NULL), SK_OK);
  else
    ck_assert_int_eq(sk_skeleton_get_rest_trs(sk, trs), SK_OK);
  ck_assert_int_eq(sk_pose_local_from_trs(trs, nj, local, NULL), SK_OK);
  ck_assert_int_eq(sk_skeleton_world(sk, local, NULL, world, NULL), SK_OK);
  float at[3] = {world[16 * (size_t)j + 12], world[16 * (size_t)j + 13], world[16 * (size_t)j + 14]};
  in_gltf_frame(s, at, 1);
  for (int k = 0; k < 3; ++k) out[k] = at[k];
  free(trs), free(local), free(world);
}

/* An armature and its clip without any mesh (an animation library file) converts: read without Assimp's made-up
 * bone mesh (Collada: it read as the file's one mesh, skinned), written as glTF with the joints, one skin over them
 * (so that readers make an armature, as Blender writes it) and the clip: the spine's end follows the same path. */
START_TEST(convert_an_armature_without_mesh) {
  static const char* const k_in[] = {"anim_only.fbx", "anim_only.dae", "anim_only.glb"};
  const char* name = k_in[_i];
  sk_scene* a = load(name, sizeof(sk_load_options), 1);
  ck_assert_uint_eq(sk_scene_mesh_count(a), 0);
  ck_assert_uint_eq(sk_scene_animation_count(a), 1);
  char dir[] = "/tmp/skt_unsk_XXXXXX", out[4096];
  ck_assert_int_eq(run_in_tmp(dir, "convert '%s' '%s'", data_path(name), "glb", out, sizeof out), 0);
  size_t n = 0;
  char* json = glb_json(out, &n);
  ck_assert_ptr_nonnull(json);
  json[n] = 0;
  ck_assert_msg(!strstr(json, "\"meshes\""), "%s: meshes written", name);
  ck_assert_msg(strstr(json, "\"skins\":[{"), "%s: no skin over the joints", name);
  free(json);
  sk_scene* b = load_path(out);
  ck_assert_uint_eq(sk_scene_mesh_count(b), 0);
  ck_assert_uint_eq(sk_scene_animation_count(b), 1);
  double dur = sk_scene_animation_duration(a, 0);
  for (int i = 0; i <= 8; ++i) {
    double pa[3], pb[3], t = dur * i / 8.0;
    joint_at(a, "Spine", t, pa);
    joint_at(b, "Spine", t, pb);
    for (int k = 0; k < 3; ++k)
      ck_assert_msg(fabs(pa[k] - pb[k]) <= 1e-4 * (1.0 + fabs(pa[k])), "%s: Spine at %.3f s: %g vs %g", name, t, pa[k],
                    pb[k]);
  }
  sk_scene_destroy(a);
  sk_scene_destroy(b);
  done(dir, out);
}
END_TEST

/* The bytes of a file (malloc'd), or NULL. */
static char* read_all(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  char* d = NULL;
  if (f && fseek(f, 0, SEEK_END) == 0) {
    long size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (d = malloc((size_t)size + 1)) && fread(d, 1, (size_t)size, f) != (size_t)size) {
      free(d);
      d = NULL;
    }
    *n = (size_t)(size >= 0 ? size : 0);
  }
  if (f) fclose(f);
  return d;
}

/* A prop without armature or skin (static_ball.fbx / .dae, make_static_ball.py: a sphere with a shape key): `convert`
 * to its own format writes the file as it is (it went through Assimp's writers, which triangulate and drop the
 * shape key; its Collada copy, which Assimp refuses with the morph, was not even read), and to .glb the FBX's shape
 * key becomes a morph target at its value, 0.5 (its DeformPercent, fbx_shapes.c; it was 0), while the Collada's is
 * named in a warning. */
START_TEST(a_prop_without_skin_keeps_its_bytes) {
  static const char* const names[] = {"static_ball.fbx", "static_ball.dae"};
  const char* name = names[_i];
  const char* ext = strrchr(name, '.') + 1;
  char dir[] = "/tmp/skt_prop_XXXXXX", out[4096];
  const char* in = data_path(name);
  ck_assert_int_eq(run_in_tmp(dir, "convert '%s' '%s'", in, ext, out, sizeof out), 0);
  size_t na = 0, nb = 0;
  char *a = read_all(in, &na), *b = read_all(out, &nb);
  ck_assert_msg(a && b && na == nb && !memcmp(a, b, na), "%s: written %zu bytes, the source has %zu", name, nb, na);
  free(a), free(b);
  done(dir, out);
  char dir2[] = "/tmp/skt_prop_XXXXXX";
  ck_assert_int_eq(run_in_tmp(dir2, "convert '%s' '%s'", in, "glb", out, sizeof out), 0);
  size_t n = 0;
  char* json = glb_json(out, &n);
  ck_assert_ptr_nonnull(json);
  json[n] = 0;
  if (_i == 0)
    ck_assert_msg(strstr(json, "\"weights\":[0.5],\"extras\":{\"targetNames\":[\"Squash\"]}"), "%s", json);
  else
    ck_assert_ptr_null(strstr(json, "\"targets\""));
  free(json);
  done(dir2, out);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("unskinned");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, bare_armature_becomes_the_skeleton, 0, 3);
  tcase_add_loop_test(tc, bind_weights_the_bare_armature, 0, 3);
  tcase_add_loop_test(tc, bind_keeps_every_mesh_in_place, 0, 4);
  tcase_add_loop_test(tc, convert_keeps_the_armature, 0, 3);
  tcase_add_test(tc, added_mesh_is_written);
  tcase_add_loop_test(tc, bind_only_the_chosen_meshes, 0, 3);
  tcase_add_loop_test(tc, convert_an_armature_without_mesh, 0, 3);
  tcase_add_loop_test(tc, a_prop_without_skin_keeps_its_bytes, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return skt_run_suite(suite()); }
