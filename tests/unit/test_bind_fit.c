/* test_bind_fit.c - the fit check before binding (sk_bind_fit_check, issue 17): the sample cylinder rig fits; its
 * bones moved away, scaled 100x, turned 90 degrees about X or given to another mesh do not, with the right hint;
 * bones at one point are not judged; bad arguments are refused. With SKINKIT_ASSETS, the CLI warns on no skinned
 * corpus file. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_testutil.h"
#include "skinkit.h"

enum { BONES = 4 };

typedef struct rig {
  size_t nv, nt;
  float* pos;
  float heads[3 * BONES], tails[3 * BONES];
} rig;

/* The sample rig: a cylinder along +X from 0 to 2 with BONES bones splitting it evenly. */
static void rig_make(rig* r) {
  sk_cylinder_desc d = {0};
  d.size = sizeof d;
  d.bones = BONES;
  ck_assert_int_eq(sk_mesh_cylinder(&d, &r->nv, &r->nt, NULL, NULL, NULL, NULL, NULL), SK_OK);
  r->pos = malloc(r->nv * 3 * sizeof *r->pos);
  ck_assert_ptr_nonnull(r->pos);
  ck_assert_int_eq(sk_mesh_cylinder(&d, &r->nv, &r->nt, r->pos, NULL, NULL, NULL, NULL), SK_OK);
  for (int j = 0; j < BONES; ++j) {
    memset(r->heads + 3 * j, 0, 3 * sizeof(float));
    memset(r->tails + 3 * j, 0, 3 * sizeof(float));
    r->heads[3 * j] = 2.0f * (float)j / BONES;
    r->tails[3 * j] = 2.0f * (float)(j + 1) / BONES;
  }
}

static sk_bind_fit check(const rig* r, const float* heads, const float* tails) {
  sk_bind_desc d = {0};
  d.size = sizeof d;
  d.positions = r->pos;
  d.vertex_count = r->nv;
  d.heads = heads;
  d.tails = tails;
  d.joint_count = BONES;
  sk_bind_fit f = {0};
  f.size = sizeof f;
  sk_error err;
  ck_assert_int_eq(sk_bind_fit_check(&d, &f, &err), SK_OK);
  return f;
}

/* bones moved by (dx, dy, dz), scaled by s about the origin, or turned 90 degrees about X (turn = 1) */
static void transform(const float* in, float* out, float s, float dx, float dy, float dz, int turn) {
  for (int j = 0; j < BONES; ++j) {
    const float* p = in + 3 * j;
    float y = turn ? -p[2] : p[1], z = turn ? p[1] : p[2];
    out[3 * j] = s * p[0] + dx;
    out[3 * j + 1] = s * y + dy;
    out[3 * j + 2] = s * z + dz;
  }
}

START_TEST(fits_and_misfits) {
  rig r;
  rig_make(&r);
  sk_bind_fit f = check(&r, r.heads, r.tails);
  ck_assert_msg(f.ok && f.hint == SK_BIND_FIT_HINT_NONE && f.inside_share > 0.99, "sample rig: ok %u share %g",
                f.ok, f.inside_share);
  ck_assert_msg(f.scale_ratio > 0.8 && f.scale_ratio < 1.1, "scale ratio %g", f.scale_ratio);

  float h[3 * BONES], t[3 * BONES];
  transform(r.heads, h, 1.0f, 0.0f, 5.0f, 0.0f, 0); /* 5 units beside a 2-unit model */
  transform(r.tails, t, 1.0f, 0.0f, 5.0f, 0.0f, 0);
  f = check(&r, h, t);
  ck_assert_msg(!f.ok && f.hint == SK_BIND_FIT_HINT_OFFSET && f.inside_share < 0.01, "moved: ok %u hint %u share %g",
                f.ok, f.hint, f.inside_share);

  transform(r.heads, h, 100.0f, 0.0f, 0.0f, 0.0f, 0); /* cm vs m */
  transform(r.tails, t, 100.0f, 0.0f, 0.0f, 0.0f, 0);
  f = check(&r, h, t);
  ck_assert_msg(!f.ok && f.hint == SK_BIND_FIT_HINT_SCALE && f.scale_ratio > 50.0, "scaled: ok %u hint %u ratio %g",
                f.ok, f.hint, f.scale_ratio);

  /* a rig standing along Y (Y-up bones for a Z-up mesh): bones along Z after the turn do not fit, turned back do */
  float hy[3 * BONES], ty[3 * BONES];
  for (int j = 0; j < BONES; ++j) {
    hy[3 * j] = 0.0f, hy[3 * j + 1] = r.heads[3 * j], hy[3 * j + 2] = 0.0f;
    ty[3 * j] = 0.0f, ty[3 * j + 1] = r.tails[3 * j], ty[3 * j + 2] = 0.0f;
  }
  rig up = r; /* the mesh stood up along Z */
  up.pos = malloc(r.nv * 3 * sizeof *up.pos);
  ck_assert_ptr_nonnull(up.pos);
  for (size_t v = 0; v < r.nv; ++v) {
    up.pos[3 * v] = r.pos[3 * v + 1];
    up.pos[3 * v + 1] = r.pos[3 * v + 2];
    up.pos[3 * v + 2] = r.pos[3 * v];
  }
  f = check(&up, hy, ty);
  ck_assert_msg(!f.ok && f.hint == SK_BIND_FIT_HINT_AXIS, "Y-up bones in a Z-up mesh: ok %u hint %u share %g", f.ok,
                f.hint, f.inside_share);
  transform(hy, h, 1.0f, 0.0f, 0.0f, 0.0f, 1);
  transform(ty, t, 1.0f, 0.0f, 0.0f, 0.0f, 1);
  f = check(&up, h, t);
  ck_assert_msg(f.ok, "the same bones turned to Z: ok %u share %g", f.ok, f.inside_share);

  for (int j = 0; j < 3 * BONES; ++j) h[j] = t[j] = 7.0f; /* every bone at one point: not judged */
  f = check(&r, h, t);
  ck_assert_msg(f.ok && f.scale_ratio == 0.0, "bones at one point: ok %u ratio %g", f.ok, f.scale_ratio);
  free(up.pos);
  free(r.pos);
}
END_TEST

START_TEST(bad_arguments) {
  rig r;
  rig_make(&r);
  sk_bind_desc d = {0};
  d.size = sizeof d;
  d.positions = r.pos;
  d.vertex_count = r.nv;
  d.heads = r.heads;
  d.tails = r.tails;
  d.joint_count = BONES;
  sk_bind_fit f = {0};
  sk_error err;
  ck_assert_int_eq(sk_bind_fit_check(&d, &f, &err), SK_ERR_STRUCT_SIZE); /* out->size unset */
  f.size = sizeof f;
  ck_assert_int_eq(sk_bind_fit_check(&d, NULL, &err), SK_ERR_STRUCT_SIZE);
  d.tails = NULL;
  ck_assert_int_eq(sk_bind_fit_check(&d, &f, &err), SK_ERR_INVALID_ARGUMENT);
  d.tails = r.tails;
  d.positions = NULL;
  ck_assert_int_eq(sk_bind_fit_check(&d, &f, &err), SK_ERR_INVALID_ARGUMENT);
  d.positions = r.pos;
  d.size = 8;
  ck_assert_int_eq(sk_bind_fit_check(&d, &f, &err), SK_ERR_STRUCT_SIZE);
  free(r.pos);
}
END_TEST

/* The CLI's warning (stderr) on every skinned corpus file: none. CesiumMan_blender.dae got one (47 % inside, hint
 * axis) until its skin was read as Blender wrote it (bind shape relative to the armature object, scene_import.c):
 * its bones then lay along Y and its mesh along Z. */
START_TEST(corpus_warnings) {
#if !defined(SK_CLI_PATH) || SANITIZED
  printf("corpus_warnings: no CLI path, or a sanitizer build (binds are slow there): skipped\n");
#else
  const char* assets = getenv("SKINKIT_ASSETS");
  if (!assets || !*assets) {
    printf("corpus_warnings: SKINKIT_ASSETS not set, skipped\n");
    return;
  }
  char out[64];
  snprintf(out, sizeof out, "/tmp/test_bind_fit_%ld.glb", (long)getpid());
  static const char* const files[] = {"gltf/CesiumMan.glb", "gltf/Fox.glb",       "gltf/SimpleSkin.gltf",
                                      "gltf/quad_skin.glb", "fbx/Fox_blender.fbx", "fbx/huesitos.fbx",
                                      "x/Testwuson.X",      "b3d/character.b3d",  "md5/drone.md5mesh",
                                      "collada/CesiumMan_blender.dae"};
  for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' bind '%s/%s' -o %s --force 2>&1 >/dev/null | grep -c 'does not fit'", SK_CLI_PATH,
             assets, files[i], out);
    FILE* p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int n = -1;
    ck_assert_int_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    ck_assert_msg(n == 0, "%s: %d fit warning(s), expected none", files[i], n);
  }
  remove(out);
#endif
}
END_TEST

int main(void) {
  Suite* s = suite_create("bind_fit");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, fits_and_misfits);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, corpus_warnings);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
