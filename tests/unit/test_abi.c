/* test_abi.c - the ABI contract of skinkit.h, function by function.
 *
 * Every function the header declares is called here with what a careless or hostile caller passes: NULL handles,
 * NULL required pointers, desc/report structs whose size field is 0 or too small, out-of-range indices. Each call
 * must come back (no crash, no abort), return the documented kind of error, write that code and a message into the
 * caller's sk_error, accept a NULL sk_error the same way, and leave its outputs as they were. Getters return their
 * documented "nothing" value (0, NULL, SK_NO_PARENT).
 *
 * The last test reads plugin/skinkit.h itself and fails when a declared function has no check here, so a function
 * added to the ABI without error-path coverage breaks the build's tests. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sk_scenetest.h"
#include "sk_testutil.h"
#include "skinkit.h"

#ifndef SK_SOURCE_DIR
#error "SK_SOURCE_DIR must point at the source tree (set in tests/CMakeLists.txt)"
#endif

/* ---- names of the functions checked (filled as the checks run) ---- */
#define MAX_CHECKED 256
static const char* g_checked[MAX_CHECKED];
static int g_checked_count;

static void mark(const char* name) {
  for (int i = 0; i < g_checked_count; ++i)
    if (!strcmp(g_checked[i], name)) return;
  if (g_checked_count < MAX_CHECKED) g_checked[g_checked_count++] = name;
}

/* An error record full of garbage, so that a function which fails without writing it is caught. */
static sk_error poisoned(void) {
  sk_error e;
  e.code = -777;
  memset(e.message, '#', sizeof e.message);
  e.message[sizeof e.message - 1] = '\0';
  return e;
}

static void check_error_record(const char* call, sk_result r, const sk_error* e) {
  ck_assert_msg(e->code == (int32_t)r, "%s: err.code %d, returned %d", call, e->code, (int)r);
  ck_assert_msg(e->message[0] != '\0' && e->message[0] != '#', "%s: no message in err", call);
  ck_assert_msg(memchr(e->message, '\0', sizeof e->message) != NULL, "%s: message not terminated", call);
}

/* FAILS(expected, fn, args...): fn(args..., &err) must return `expected` and fill err; fn(args..., NULL) must return
 * the same code. `expected` may be SK_OK-excluded wildcard ANY_ERROR when the header only promises "an error". */
#define ANY_ERROR ((sk_result)-1)
#define FAILS(expected, fn, ...)                                                                                   \
  do {                                                                                                             \
    mark(#fn);                                                                                                     \
    sk_error e_ = poisoned();                                                                                      \
    sk_result r_ = fn(__VA_ARGS__, &e_);                                                                           \
    if ((expected) == ANY_ERROR)                                                                                   \
      ck_assert_msg(r_ != SK_OK, "%s(%s) succeeded", #fn, #__VA_ARGS__);                                            \
    else                                                                                                           \
      ck_assert_msg(r_ == (expected), "%s(%s) returned %d (%s), expected %d", #fn, #__VA_ARGS__, (int)r_,          \
                    sk_result_string(r_), (int)(expected));                                                        \
    check_error_record(#fn, r_, &e_);                                                                              \
    sk_result r2_ = fn(__VA_ARGS__, NULL);                                                                         \
    ck_assert_msg(r2_ == r_, "%s(%s) with a NULL sk_error returned %d, with one %d", #fn, #__VA_ARGS__, (int)r2_, \
                  (int)r_);                                                                                        \
  } while (0)

/* FAILS_NOERR: for the few sk_result functions without an sk_error parameter. */
#define FAILS_NOERR(expected, fn, ...)                                                                             \
  do {                                                                                                             \
    mark(#fn);                                                                                                     \
    sk_result r_ = fn(__VA_ARGS__);                                                                                \
    ck_assert_msg(r_ == (expected), "%s(%s) returned %d, expected %d", #fn, #__VA_ARGS__, (int)r_, (int)(expected)); \
  } while (0)

#define GETTER(expected, fn, ...)                                                                                  \
  do {                                                                                                             \
    mark(#fn);                                                                                                     \
    ck_assert_msg(fn(__VA_ARGS__) == (expected), "%s(%s) did not return %s", #fn, #__VA_ARGS__, #expected);       \
  } while (0)

#define DESTROY_NULL(fn) \
  do {                   \
    mark(#fn);           \
    fn(NULL);            \
  } while (0)

/* A sentinel "handle" that must survive failed creates untouched. */
static char g_sentinel_storage;
#define SENTINEL ((void*)&g_sentinel_storage)

/* ---- fixtures: a two-joint skeleton and a three-vertex skin over it ---- */
static sk_skeleton* make_skeleton(void) {
  const char* names[2] = {"root", "child"};
  int32_t parents[2] = {SK_NO_PARENT, 0};
  float rest[32] = {0};
  for (int j = 0; j < 2; ++j)
    for (int k = 0; k < 4; ++k) rest[j * 16 + k * 5] = 1.0f;
  rest[16 + 12] = 1.0f; /* child one unit along x */
  sk_skeleton_desc d = {sizeof d, 2, names, parents, rest, NULL, NULL, NULL};
  sk_skeleton* s = NULL;
  ck_assert_int_eq(sk_skeleton_create(&d, &s, NULL), SK_OK);
  return s;
}

static sk_skin* make_skin(void) {
  sk_skin* s = NULL;
  ck_assert_int_eq(sk_skin_create(3, 2, &s, NULL), SK_OK);
  uint32_t off[4] = {0, 1, 3, 4};
  uint32_t j[4] = {0, 0, 1, 1};
  float w[4] = {1.0f, 0.5f, 0.5f, 1.0f};
  ck_assert_int_eq(sk_skin_set_csr(s, off, j, w, NULL), SK_OK);
  return s;
}

static const float k_positions[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};

/* ================================================================ common */

START_TEST(common_version_and_result_strings) {
  mark("sk_version");
  mark("sk_version_string");
  mark("sk_abi_major");
  mark("sk_abi_minor");
  mark("sk_cpu_kernel");
  mark("sk_result_string");
  ck_assert_uint_eq(sk_version(), SK_VERSION);
  ck_assert_ptr_nonnull(sk_version_string());
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", SK_VERSION / 10000, SK_VERSION / 100 % 100, SK_VERSION % 100);
  ck_assert_str_eq(sk_version_string(), expect);
  ck_assert_uint_eq(sk_abi_major(), SK_ABI_MAJOR);
  ck_assert_uint_ge(sk_abi_minor(), SK_ABI_MINOR);
  const char* k = sk_cpu_kernel();
  ck_assert(k && (!strcmp(k, "scalar") || !strcmp(k, "sse2") || !strcmp(k, "avx2") || !strcmp(k, "avx512")));
  /* every code has its own non-empty text; unknown codes still get a text */
  for (int a = SK_OK; a <= SK_ERR_INTERNAL; ++a) {
    const char* sa = sk_result_string((sk_result)a);
    ck_assert_msg(sa && sa[0], "code %d has no text", a);
    for (int b = SK_OK; b < a; ++b) ck_assert_msg(strcmp(sa, sk_result_string((sk_result)b)) != 0, "%d and %d share a text", a, b);
  }
  ck_assert_ptr_nonnull(sk_result_string((sk_result)12345));
  ck_assert_ptr_nonnull(sk_result_string((sk_result)-5));
}
END_TEST

/* Whether s is valid UTF-8 (no character cut). */
static bool utf8_whole(const char* s) {
  for (const unsigned char* p = (const unsigned char*)s; *p;) {
    const int n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
    if (!n) return false;
    for (int k = 1; k < n; ++k)
      if ((p[k] & 0xC0) != 0x80) return false;
    p += n;
  }
  return true;
}

/* A long path kept the failure's reason out of the 255-byte message ("...final_v12.fbx: cannot open: No such file
 * or"), and a path of accented letters ended the message inside a character (an audit of the C API): the path loses
 * its middle, the reason stays, every cut falls between characters. */
START_TEST(long_paths_leave_the_reason_whole) {
  char path[512] = "/tmp/skinkit_no_such_folder/";
  for (int i = 0; i < 40; ++i) strcat(path, "part_");
  strcat(path, "final_v12.fbx");
  sk_scene* sc = NULL;
  sk_error err;
  ck_assert_int_eq(sk_scene_load(path, NULL, &sc, &err), SK_ERR_IO);
  ck_assert_msg(strstr(err.message, "No such file or directory") && strstr(err.message, "final_v12.fbx"), "%s",
                err.message);
  ck_assert(strncmp(err.message, "/tmp/skinkit_no_such", 20) == 0 && strstr(err.message, "..."));
  char accents[600] = "/tmp/";
  for (int i = 0; i < 120; ++i) strcat(accents, "\xc3\xa9"); /* é */
  strcat(accents, ".glb");
  ck_assert_int_eq(sk_scene_load(accents, NULL, &sc, &err), SK_ERR_IO);
  ck_assert_msg(utf8_whole(err.message) && strstr(err.message, "No such file"), "%s", err.message);
}
END_TEST

/* ================================================================ skeleton */

START_TEST(skeleton_error_paths) {
  sk_skeleton* out = SENTINEL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_create, NULL, &out);
  ck_assert_ptr_eq(out, SENTINEL);
  int32_t parents[2] = {SK_NO_PARENT, 0};
  sk_skeleton_desc d = {0, 2, NULL, parents, NULL, NULL, NULL, NULL};
  FAILS(SK_ERR_STRUCT_SIZE, sk_skeleton_create, &d, &out);
  d.size = offsetof(sk_skeleton_desc, tails) - 1; /* neither 1.23's size nor 1.22's */
  FAILS(SK_ERR_STRUCT_SIZE, sk_skeleton_create, &d, &out);
  d.size = sizeof d;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_create, &d, NULL);
  d.joint_count = 0;
  FAILS(ANY_ERROR, sk_skeleton_create, &d, &out);
  d.joint_count = 2;
  d.parents = NULL;
  FAILS(ANY_ERROR, sk_skeleton_create, &d, &out);
  int32_t cycle[2] = {1, 0};
  d.parents = cycle;
  FAILS(SK_ERR_BAD_HIERARCHY, sk_skeleton_create, &d, &out);
  int32_t past[2] = {SK_NO_PARENT, 7};
  d.parents = past;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_skeleton_create, &d, &out);
  const char* dup[2] = {"a", "a"};
  d.parents = parents;
  d.names = dup;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_create, &d, &out);
  float singular[32] = {0};
  d.names = NULL;
  d.bind = singular;
  FAILS(SK_ERR_SINGULAR_MATRIX, sk_skeleton_create, &d, &out);
  ck_assert_ptr_eq(out, SENTINEL);
  DESTROY_NULL(sk_skeleton_destroy);

  /* getters on NULL and out of range */
  sk_skeleton* s = make_skeleton();
  GETTER(0u, sk_skeleton_joint_count, NULL);
  GETTER(NULL, sk_skeleton_joint_name, NULL, 0);
  GETTER(NULL, sk_skeleton_joint_name, s, 2);
  GETTER(SK_NO_PARENT, sk_skeleton_joint_parent, NULL, 1);
  GETTER(SK_NO_PARENT, sk_skeleton_joint_parent, s, 99);
  GETTER(0u, sk_skeleton_get_tails, NULL, NULL);
  GETTER(0u, sk_skeleton_get_tails, s, NULL); /* none stored */
  uint32_t idx = 42;
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_find_joint, NULL, "root", &idx);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_find_joint, s, NULL, &idx);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_find_joint, s, "root", NULL);
  FAILS_NOERR(SK_ERR_NOT_FOUND, sk_skeleton_find_joint, s, "nobody", &idx);
  ck_assert_uint_eq(idx, 42);
  float m[32];
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_rest_local, NULL, m);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_rest_local, s, NULL);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_rest_world, NULL, m);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_rest_world, s, NULL);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_bind, NULL, m);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_bind, s, NULL);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_inverse_bind, NULL, m);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_inverse_bind, s, NULL);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_rest_trs, NULL, m);
  FAILS_NOERR(SK_ERR_INVALID_ARGUMENT, sk_skeleton_get_rest_trs, s, NULL);

  uint32_t order[2] = {9, 9};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_hierarchy_order, NULL, 2, order);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_hierarchy_order, parents, 2, NULL);
  FAILS(SK_ERR_BAD_HIERARCHY, sk_hierarchy_order, cycle, 2, order);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_hierarchy_order, past, 2, order);
  ck_assert_uint_eq(order[0], 9);

  float trs[20] = {0}, local[32], world[32];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_pose_local_from_trs, NULL, 2, local);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_pose_local_from_trs, trs, 2, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_world, NULL, local, NULL, world);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_world, s, NULL, NULL, world);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_world, s, local, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_palette_compute, NULL, world, NULL, m);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_palette_compute, s, NULL, NULL, m);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_palette_compute, s, world, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_palette_from_trs, NULL, NULL, NULL, m);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_palette_from_trs, s, NULL, NULL, NULL);

  float heads[6], tails[6];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_bone_segments, NULL, SK_BONE_SPACE_REST, heads, tails);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_bone_segments, s, 7u, heads, tails);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_bone_segments, s, SK_BONE_SPACE_REST, NULL, NULL);

  uint32_t map[2], mapped = 0;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_mirror_map, NULL, map, &mapped);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skeleton_mirror_map, s, NULL, &mapped);
  char name[8];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_joint_mirror_name, NULL, name, sizeof name);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_joint_mirror_name, "hand.L", NULL, sizeof name);
  FAILS(ANY_ERROR, sk_joint_mirror_name, "a_very_long_left_hand.L", name, 4);
  sk_skeleton_destroy(s);
}
END_TEST

/* ================================================================ skin */

START_TEST(skin_error_paths) {
  sk_skin* out = SENTINEL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_create, 3, 2, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_skin_create, 3, 0, &out);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_skin_create, 3, SK_MAX_JOINTS + 1, &out);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_clone, NULL, &out);
  ck_assert_ptr_eq(out, SENTINEL);
  DESTROY_NULL(sk_skin_destroy);
  GETTER(0u, sk_skin_vertex_count, NULL);
  GETTER(0u, sk_skin_joint_count, NULL);
  GETTER(0u, sk_skin_influence_count, NULL);

  sk_skin* s = make_skin();
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_clone, s, NULL);
  uint32_t off[4] = {0, 1, 3, 4}, j[4] = {0, 0, 1, 1};
  float w[4] = {1, 0.5f, 0.5f, 1};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_set_csr, NULL, off, j, w);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_set_csr, s, NULL, j, w);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_get_csr, NULL, off, j, w);
  GETTER(0u, sk_skin_get_vertex, NULL, 0, j, w, 4);
  GETTER(0u, sk_skin_get_vertex, s, 3, j, w, 4);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_set_vertex, NULL, 0, j, w, 1);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_skin_set_vertex, s, 3, j, w, 1);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_set_vertex, s, 0, NULL, w, 1);

  uint16_t pj[12];
  float pw[12];
  sk_packed_desc pd = {0, 4, SK_TYPE_U16, SK_TYPE_F32, pj, 0, pw, 0};
  FAILS(SK_ERR_STRUCT_SIZE, sk_skin_to_packed, s, &pd);
  FAILS(SK_ERR_STRUCT_SIZE, sk_skin_from_packed, s, &pd);
  pd.size = sizeof pd;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_to_packed, NULL, &pd);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_to_packed, s, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_from_packed, NULL, &pd);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_from_packed, s, NULL);
  pd.influences = 9;
  FAILS(ANY_ERROR, sk_skin_to_packed, s, &pd);
  pd.influences = 4;
  pd.joints = NULL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_to_packed, s, &pd);
  ck_assert_uint_eq(sk_skin_influence_count(s), 4); /* failures left the skin alone */

  /* partition: required outputs, streams without an order, half a stream pair */
  sk_partition_range prg[SK_PARTITION_MAX_RANGES];
  uint32_t pnr = 0, porder[3];
  size_t pn = 0;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_partition, NULL, porder, prg, &pnr, NULL, NULL, &pn);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_partition, s, porder, NULL, &pnr, NULL, NULL, &pn);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_partition, s, porder, prg, NULL, NULL, NULL, &pn);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_partition, s, NULL, prg, &pnr, pj, pw, &pn);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_partition, s, porder, prg, &pnr, pj, NULL, &pn);

  sk_skin_report rep;
  memset(&rep, 0xab, sizeof rep);
  rep.size = 0;
  FAILS(SK_ERR_STRUCT_SIZE, sk_skin_validate, s, NULL, &rep, NULL);
  rep.size = sizeof rep;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_validate, NULL, NULL, &rep, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skin_validate, s, NULL, NULL, NULL);
  sk_validate_options vo = {0, 0, 0, 0};
  FAILS(SK_ERR_STRUCT_SIZE, sk_skin_validate, s, &vo, &rep, NULL);
  sk_skin_destroy(s);
}
END_TEST

/* ================================================================ deform + sample geometry */

START_TEST(deform_error_paths) {
  float palette[32] = {0};
  for (int j = 0; j < 2; ++j)
    for (int k = 0; k < 4; ++k) palette[j * 16 + k * 5] = 1.0f;
  uint16_t joints[4] = {0, 1, 0, 0};
  float weights[4] = {1, 0, 1, 0};
  float in[6] = {0, 0, 0, 1, 1, 1}, outp[6] = {7, 7, 7, 7, 7, 7};
  sk_deform_job job = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_deform_validate, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_deform_run, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_deform_validate, &job);
  FAILS(SK_ERR_STRUCT_SIZE, sk_deform_run, &job);
  job.size = sizeof job;
  job.vertex_count = 2;
  job.palette = palette;
  job.joint_count = 2;
  job.influences = 2;
  job.joint_type = SK_TYPE_U16;
  job.weight_type = SK_TYPE_F32;
  job.joints = joints;
  job.weights = weights;
  job.in_positions = in;
  job.out_positions = outp;
  job.threads = 1;
  ck_assert_int_eq(sk_deform_validate(&job, NULL), SK_OK);
  job.method = 4; /* unknown */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_deform_run, &job);
  job.method = SK_DEFORM_COR; /* without centers */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_deform_run, &job);
  job.method = SK_DEFORM_LBS;
  {
    uint32_t off[3] = {0, 1, 2}, cj[2] = {0, 1}, tri[3] = {0, 1, 0};
    float cw[2] = {1, 1}, centers[6];
    FAILS(SK_ERR_INVALID_ARGUMENT, sk_cor_compute, NULL, 2, tri, 1, off, cj, cw, 2, 0.0f, 1, centers);
    FAILS(SK_ERR_INVALID_ARGUMENT, sk_cor_compute, in, 2, tri, 1, off, cj, cw, 2, 0.0f, 1, NULL);
    FAILS(SK_ERR_OUT_OF_RANGE, sk_cor_compute, in, 2, tri, 1, off, cj, cw, 1, 0.0f, 1, centers);
    ck_assert_int_eq(sk_cor_compute(in, 2, tri, 1, off, cj, cw, 2, 0.0f, 1, centers, NULL), SK_OK);
  }
  job.out_positions = NULL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_deform_run, &job);
  job.out_positions = outp;
  job.influences = 9;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_deform_run, &job);
  job.influences = 2;
  job.joint_count = 0;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_deform_run, &job);
  job.joint_count = 2;
  palette[16 + 12] = NAN; /* translation x of joint 1 (column-major) */
  FAILS(SK_ERR_SINGULAR_MATRIX, sk_deform_run, &job);
  palette[16 + 12] = 0.0f;
  job.in_normals = in; /* half of a stream pair */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_deform_run, &job);
  job.in_normals = NULL;
  job.flags = 1u << 30;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_deform_run, &job);
  job.flags = 0;
  for (int i = 0; i < 6; ++i) ck_assert_float_eq(outp[i], 7.0f); /* validation precedes any write */
  joints[1] = 5;                                                   /* a joint past the palette */
  FAILS(SK_ERR_OUT_OF_RANGE, sk_deform_run, &job);
  ck_assert_float_eq(outp[0], 0.0f); /* that vertex keeps its input */

  sk_cylinder_desc cd = {0};
  size_t nv = 0, nt = 0;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_mesh_cylinder, NULL, &nv, &nt, NULL, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_mesh_cylinder, &cd, &nv, &nt, NULL, NULL, NULL, NULL);
  cd.size = sizeof cd;
  cd.segments = 2;
  FAILS(ANY_ERROR, sk_mesh_cylinder, &cd, &nv, &nt, NULL, NULL, NULL, NULL);
  cd.segments = 0;
  sk_skin* small = NULL;
  ck_assert_int_eq(sk_skin_create(3, 2, &small, NULL), SK_OK); /* too few vertices for the cylinder */
  FAILS(ANY_ERROR, sk_mesh_cylinder, &cd, &nv, &nt, NULL, NULL, NULL, small);
  sk_skin_destroy(small);
}
END_TEST

/* ================================================================ scene (io) */

START_TEST(scene_error_paths) {
  sk_scene* out = SENTINEL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_load, NULL, NULL, &out);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_load, "x.glb", NULL, NULL);
  FAILS(SK_ERR_IO, sk_scene_load, "/nonexistent/skinkit/x.glb", NULL, &out);
  FAILS(SK_ERR_IO, sk_scene_load, SK_SOURCE_DIR, NULL, &out); /* a directory */
  sk_load_options lo = {0};
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_load, SK_SOURCE_DIR "/tests/data/cylinder_rig.glb", &lo, &out);
  ck_assert_ptr_eq(out, SENTINEL);
  DESTROY_NULL(sk_scene_destroy);

  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_require_skin, NULL);
  GETTER(0.0, sk_scene_load_seconds, NULL);
  GETTER(-1, sk_scene_frame, NULL, NULL, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_set_frame, NULL, 1.0, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_relink, NULL, NULL);
  GETTER(0u, sk_scene_mesh_count, NULL);
  GETTER(NULL, sk_scene_mesh_name, NULL, 0);
  GETTER(0u, sk_scene_mesh_vertex_count, NULL, 0);
  GETTER(0u, sk_scene_mesh_index_count, NULL, 0);
  float f[4];
  uint32_t u[4];
  GETTER(0u, sk_scene_mesh_positions, NULL, 0, f, 4);
  GETTER(0u, sk_scene_mesh_normals, NULL, 0, f, 4);
  GETTER(0u, sk_scene_mesh_tangents, NULL, 0, f, 4);
  GETTER(0u, sk_scene_mesh_uv0, NULL, 0, f, 4);
  GETTER(0u, sk_scene_mesh_uv1, NULL, 0, f, 4);
  GETTER(0u, sk_scene_mesh_colors, NULL, 0, f, 4);
  GETTER(NULL, sk_scene_mesh_node_name, NULL, 0);
  GETTER(0u, sk_scene_mesh_part_count, NULL, 0);
  GETTER(-1, sk_scene_mesh_rigid_joint, NULL, 0);
  GETTER(-1, sk_scene_mesh_parent_joint, NULL, 0);
  GETTER(-1, sk_scene_mesh_gltf_scene, NULL, 0);
  GETTER(0u, sk_scene_mesh_indices, NULL, 0, u, 4);
  GETTER(NULL, sk_scene_skeleton, NULL);
  GETTER(NULL, sk_scene_mesh_skin, NULL, 0);
  GETTER(0u, sk_scene_animation_count, NULL);
  GETTER(NULL, sk_scene_animation_name, NULL, 0);
  GETTER(0.0, sk_scene_animation_duration, NULL, 0);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_inverse_binds, NULL, 0, f, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_sample_pose, NULL, 0, 0.0, f);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_save, NULL, "/tmp/skinkit_abi_never.glb", NULL);
  uint32_t findings = 0;
  sk_mesh_report mr;
  memset(&mr, 0, sizeof mr);
  mr.size = sizeof mr;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_validate, NULL, NULL, &mr, 1, &findings);

  /* a scene built in memory: one skinned mesh */
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = NULL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_create, skel, NULL);
  ck_assert_int_eq(sk_scene_create(skel, &sc, NULL), SK_OK);
  uint32_t tri[3] = {0, 1, 2}, bad_tri[3] = {0, 1, 3};
  sk_mesh_desc md = {0};
  uint32_t mi = 77;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh, NULL, &md, &mi);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh, sc, NULL, &mi);
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_add_mesh, sc, &md, &mi);
  md.size = sizeof md;
  md.vertex_count = 3;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh, sc, &md, &mi); /* no positions */
  md.positions = k_positions;
  md.indices = bad_tri;
  md.index_count = 3;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_add_mesh, sc, &md, &mi);
  ck_assert_uint_eq(mi, 77);
  GETTER(0u, sk_scene_mesh_count, sc);
  md.indices = tri;
  md.skin = skin;
  ck_assert_int_eq(sk_scene_add_mesh(sc, &md, &mi, NULL), SK_OK);
  ck_assert_uint_eq(mi, 0);
  md.skin = NULL; /* mesh 1: not skinned */
  ck_assert_int_eq(sk_scene_add_mesh(sc, &md, &mi, NULL), SK_OK);
  ck_assert_uint_eq(mi, 1);
  /* deform joints: NULL scene, a mask missing or shorter than the skeleton */
  uint8_t dmask[8];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_deform_joints, NULL, dmask, 8, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_deform_joints, sc, NULL, 8, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_deform_joints, sc, dmask, 0, NULL, NULL);

  /* indices past the end on a valid scene */
  GETTER(NULL, sk_scene_mesh_name, sc, 2);
  GETTER(0u, sk_scene_mesh_vertex_count, sc, 2);
  GETTER(0u, sk_scene_mesh_positions, sc, 2, f, 4);
  GETTER(NULL, sk_scene_mesh_skin, sc, 2);
  GETTER(NULL, sk_scene_mesh_skin, sc, 1);
  GETTER(-1, sk_scene_mesh_parent_joint, sc, 2);
  /* ABI 1.25 sk_scene_mesh_set_parent_joint: NULL scene, a mesh or joint past the end, a skinned mesh; the unskinned
   * mesh 1 takes joint 0 and reads it back, then none */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_parent_joint, NULL, 1, 0);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_parent_joint, sc, 2, 0);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_parent_joint, sc, 1, 99);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_parent_joint, sc, 1, -2);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_parent_joint, sc, 0, 0);
  ck_assert_int_eq(sk_scene_mesh_set_parent_joint(sc, 1, 0, NULL), SK_OK);
  GETTER(0, sk_scene_mesh_parent_joint, sc, 1);
  ck_assert_int_eq(sk_scene_mesh_set_parent_joint(sc, 1, -1, NULL), SK_OK);
  GETTER(-1, sk_scene_mesh_parent_joint, sc, 1);
  GETTER(NULL, sk_scene_animation_name, sc, 0);
  GETTER(0.0, sk_scene_animation_duration, sc, 0);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_inverse_binds, sc, 2, f, NULL);
  /* ABI 1.16 sk_scene_mesh_part: a one-part mesh's part 0 is the whole mesh; past the parts or meshes: out of range */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_part, NULL, 0, 0, NULL, NULL, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_part, sc, 2, 0, NULL, NULL, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_part, sc, 0, 1, NULL, NULL, NULL);
  {
    uint64_t first = 7, count = 0;
    int32_t material = 5;
    ck_assert_int_eq(sk_scene_mesh_part(sc, 0, 0, &first, &count, &material, NULL), SK_OK);
    ck_assert_uint_eq(first, 0);
    ck_assert_uint_eq(count, sk_scene_mesh_indices(sc, 0, NULL, 0));
    ck_assert_int_eq(material, sk_scene_mesh_material(sc, 0));
  }
  FAILS(SK_ERR_NO_SKIN, sk_scene_mesh_inverse_binds, sc, 1, f, NULL);
  /* both outputs are optional: NULL, NULL only asks whether the mesh is skinned */
  ck_assert_int_eq(sk_scene_mesh_inverse_binds(sc, 0, NULL, NULL, NULL), SK_OK);
  FAILS(ANY_ERROR, sk_scene_sample_pose, sc, 0, 0.0, f); /* no animation 0 */
  sk_mesh_report two[2];
  memset(two, 0, sizeof two);
  two[0].size = sizeof two[0];
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_validate, sc, NULL, two, 2, &findings); /* two[1].size 0 */
  two[1].size = sizeof two[1];
  FAILS(ANY_ERROR, sk_scene_validate, sc, NULL, two, 1, &findings); /* fewer reports than meshes */
  ck_assert_int_eq(sk_scene_validate(sc, NULL, two, 2, &findings, NULL), SK_OK);
  ck_assert_uint_eq(two[0].skinned, 1);
  ck_assert_uint_eq(two[1].skinned, 0);
  sk_save_options so = {0};
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_save, sc, "/tmp/skinkit_abi_never.glb", &so);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_save, sc, NULL, NULL);
  so.size = sizeof so;
  so.weights_type = 4;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_save, sc, "/tmp/skinkit_abi_never.glb", &so);
  so.weights_type = 0;
  so.format = "no-such-format";
  FAILS(ANY_ERROR, sk_scene_save, sc, "/tmp/skinkit_abi_never.xyz", &so);
  /* an existing file is not replaced without overwrite */
  char path[] = "/tmp/skinkit_abi_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE* fp = fdopen(fd, "w");
  fputs("keep me", fp);
  fclose(fp);
  so.format = NULL;
  {
    sk_error e = poisoned();
    ck_assert_int_eq(sk_scene_save(sc, "/nonexistent/skinkit/out.glb", &so, &e), SK_ERR_IO);
    ck_assert_msg(strstr(e.message, "folder /nonexistent/skinkit does not exist") != NULL, "%s", e.message);
  }
  so.format = "glb";
  FAILS(SK_ERR_EXISTS, sk_scene_save, sc, path, &so);
  fp = fopen(path, "r");
  char buf[16] = {0};
  ck_assert_ptr_nonnull(fgets(buf, sizeof buf, fp));
  fclose(fp);
  ck_assert_str_eq(buf, "keep me");
  remove(path);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_write_file_atomic, NULL, "x", 1);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_write_file_atomic, "/tmp/skinkit_abi_never.bin", NULL, 1);
  FAILS(SK_ERR_IO, sk_write_file_atomic, "/nonexistent/skinkit/out.bin", "x", 1);
  /* nothing in progress: nothing to remove, and later writes work as before */
  sk_remove_temporary_files(); /* void: no error to return */
  mark("sk_remove_temporary_files");
  ck_assert_int_eq(sk_write_file_atomic("/tmp/skinkit_abi_after_remove.bin", "x", 1, NULL), SK_OK);
  remove("/tmp/skinkit_abi_after_remove.bin");

  /* a scene without bones: no skin to require, no skin on a mesh */
  sk_scene* bare = NULL;
  ck_assert_int_eq(sk_scene_create(NULL, &bare, NULL), SK_OK);
  FAILS(SK_ERR_NO_SKIN, sk_scene_require_skin, bare);
  md.skin = skin;
  FAILS(SK_ERR_NO_SKIN, sk_scene_add_mesh, bare, &md, &mi);
  sk_scene_destroy(bare);
  /* set_skin: NULL scene or skin, a mesh past the end, a skin of other counts; then mesh 1 takes mesh 0's skin */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_skin, NULL, 1, skin, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_skin, sc, 1, NULL, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_skin, sc, 2, skin, NULL);
  sk_skin* small = NULL;
  ck_assert_int_eq(sk_skin_create(2, sk_skeleton_joint_count(skel), &small, NULL), SK_OK);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_skin, sc, 1, small, NULL);
  sk_skin_destroy(small);
  GETTER(NULL, sk_scene_mesh_skin, sc, 1);
  GETTER(-1, sk_scene_mesh_parent_joint, sc, 2); /* unchanged by the failures */
  /* materials (ABI 1.11): NULL scene or bytes, bytes of no image format, a material of another size, an image index
   * past the images, a non-finite factor, an unknown alpha mode, a mesh or material past the end */
  static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_image, NULL, "a.png", png_magic, sizeof png_magic, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_image, sc, "a.png", NULL, 8, NULL);
  FAILS(SK_ERR_UNSUPPORTED, sk_scene_add_image, sc, "a.tga", "TRUEVISION-XFILE", 16, NULL);
  GETTER(0u, sk_scene_image_count, sc);
  uint32_t img = 7;
  ck_assert_int_eq(sk_scene_add_image(sc, NULL, png_magic, sizeof png_magic, &img, NULL), SK_OK);
  ck_assert_uint_eq(img, 0);
  GETTER(1u, sk_scene_image_count, sc);
  GETTER(0u, sk_scene_image_count, NULL);
  sk_material_desc mat = {
      sizeof mat, SK_ALPHA_OPAQUE, "Steel", {1, 1, 1, 1}, 1, 1, {0, 0, 0}, 0.5f, 0, 1, 0, -1, -1, -1, -1};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material, NULL, &mat, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material, sc, NULL, NULL);
  mat.size = 8;
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_add_material, sc, &mat, NULL);
  mat.size = sizeof mat;
  mat.normal_image = 1;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_add_material, sc, &mat, NULL);
  mat.normal_image = INT32_MIN; /* below -1: refused, not taken for none (an audit) */
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_add_material, sc, &mat, NULL);
  mat.normal_image = -1;
  mat.double_sided = 2;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material, sc, &mat, NULL);
  mat.double_sided = 0;
  mat.roughness = NAN;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material, sc, &mat, NULL);
  mat.roughness = 1;
  mat.alpha_mode = 3;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material, sc, &mat, NULL);
  mat.alpha_mode = SK_ALPHA_MASK;
  GETTER(0u, sk_scene_material_count, sc);
  uint32_t mt = 7;
  ck_assert_int_eq(sk_scene_add_material(sc, &mat, &mt, NULL), SK_OK);
  ck_assert_uint_eq(mt, 0);
  GETTER(1u, sk_scene_material_count, sc);
  GETTER(0u, sk_scene_material_count, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_material, NULL, 0, 0);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_material, sc, 2, 0);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_material, sc, 0, 1);
  ck_assert_int_eq(sk_scene_mesh_set_material(sc, 0, 0, NULL), SK_OK);
  /* listings (ABI 1.12): out of range and NULL give NULL / -1 / 0; a built scene has no objects and no note */
  ck_assert_str_eq(sk_scene_material_name(sc, 0), "Steel");
  GETTER(NULL, sk_scene_material_name, sc, 1);
  GETTER(NULL, sk_scene_material_name, NULL, 0);
  GETTER(0, sk_scene_mesh_material, sc, 0);
  GETTER(-1, sk_scene_mesh_material, sc, 1);
  GETTER(-1, sk_scene_mesh_material, sc, 2);
  GETTER(-1, sk_scene_mesh_material, NULL, 0);
  GETTER(0u, sk_scene_object_count, sc);
  GETTER(0u, sk_scene_object_count, NULL);
  GETTER(NULL, sk_scene_object_name, sc, 0);
  GETTER(NULL, sk_scene_object_name, NULL, 0);
  GETTER(-1, sk_scene_object_kind, sc, 0);
  GETTER(-1, sk_scene_object_kind, NULL, 0);
  GETTER(NULL, sk_scene_object_parent, sc, 0);
  GETTER(NULL, sk_scene_object_parent, NULL, 0);
  GETTER(NULL, sk_scene_note, sc);
  GETTER(NULL, sk_scene_note, NULL);
  /* reading back (ABI 1.13): NULL scene, a struct of another size, an index past the end; what was added */
  sk_material_desc back = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_material_info, NULL, 0, &back);
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_material_info, sc, 0, &back);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_material_info, sc, 0, NULL);
  back.size = sizeof back;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_material_info, sc, 1, &back);
  ck_assert_int_eq(sk_scene_material_info(sc, 0, &back, NULL), SK_OK);
  ck_assert_str_eq(back.name, "Steel");
  ck_assert_int_eq(back.alpha_mode, SK_ALPHA_MASK);
  ck_assert(back.alpha_cutoff == mat.alpha_cutoff && back.metallic == 1.0f && back.roughness == 1.0f);
  ck_assert_int_eq(back.base_color_image, mat.base_color_image);
  ck_assert_int_eq(back.normal_image, -1);
  sk_image_info ii = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_image_info, NULL, 0, &ii);
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_image_info, sc, 0, &ii);
  ii.size = sizeof ii;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_image_info, sc, 1, &ii);
  ck_assert_int_eq(sk_scene_image_info(sc, 0, &ii, NULL), SK_OK);
  ck_assert(ii.data_size == sizeof png_magic && !memcmp(ii.data, png_magic, sizeof png_magic));
  ck_assert_str_eq(ii.mime, "image/png");
  ck_assert_str_eq(ii.name, "image0");
  sk_object_info oi = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_object_info, NULL, 0, &oi);
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_object_info, sc, 0, &oi);
  oi.size = sizeof oi;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_object_info, sc, 0, &oi);
  size_t nk = 7;
  double kt[2];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_animation_key_times, NULL, 0, NULL, 0, &nk);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_animation_key_times, sc, 0, NULL, 2, &nk);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_animation_key_times, sc, 0, kt, 2, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_animation_key_times, sc, 0, kt, 2, &nk);
  ck_assert_uint_eq(nk, 7); /* untouched on failure */
  ck_assert_int_eq(sk_scene_mesh_set_material(sc, 0, UINT32_MAX, NULL), SK_OK);
  GETTER(-1, sk_scene_mesh_material, sc, 0);
  ck_assert_int_eq(sk_scene_mesh_set_skin(sc, 1, skin, NULL, NULL), SK_OK);
  ck_assert_ptr_nonnull(sk_scene_mesh_skin(sc, 1));
  ck_assert_ptr_ne(sk_scene_mesh_skin(sc, 1), skin); /* a copy */
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);

  mark("sk_import_extensions");
  ck_assert_ptr_nonnull(sk_import_extensions());
  ck_assert(strstr(sk_import_extensions(), "*.glb") != NULL);
  GETTER(0, sk_import_extension_supported, NULL);
  GETTER(0, sk_import_extension_supported, "");
  GETTER(0, sk_import_extension_supported, ".skeleton");
  GETTER(0, sk_import_extension_supported, "no-such-extension");
  /* ABI 1.26: the extensions sk_scene_save writes */
  GETTER(0, sk_export_extension_supported, NULL);
  GETTER(0, sk_export_extension_supported, "");
  GETTER(0, sk_export_extension_supported, ".x");
  GETTER(0, sk_export_extension_supported, "obj");
  static const char* const written[] = {".glb", "GLTF", "fbx", ".dae", ".vrm"};
  for (size_t i = 0; i < sizeof written / sizeof *written; ++i) ck_assert(sk_export_extension_supported(written[i]));
}
END_TEST

/* ================================================================ weight editing */

START_TEST(weights_error_paths) {
  sk_skin* s = make_skin();
  sk_weights_report rep = {0};
  uint8_t mask[2] = {1, 1}; /* wrong length: the skin has 3 vertices */

  sk_normalize_desc nd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_normalize, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_normalize, s, &nd, NULL);
  nd.size = sizeof nd;
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_normalize, s, &nd, &rep); /* report.size 0 */
  nd.scope.vertex_mask = mask;
  nd.scope.vertex_mask_count = 2;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_normalize, s, &nd, NULL);

  sk_limit_desc ld = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_limit, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_limit, s, &ld, NULL);
  sk_prune_desc pd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_prune, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_prune, s, &pd, NULL);
  sk_quantize_desc qd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_quantize, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_quantize, s, &qd, NULL);
  sk_smooth_desc smd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_smooth, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_smooth, s, &smd, NULL);
  smd.size = sizeof smd;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_smooth, s, &smd, NULL); /* no mesh */
  sk_rogue_desc rd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_remove_rogue, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_remove_rogue, s, &rd, NULL);
  rd.size = sizeof rd;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_remove_rogue, s, &rd, NULL); /* no mesh */
  sk_mirror_desc mirror = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_mirror, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_mirror, s, &mirror, NULL);
  mirror.size = sizeof mirror;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_mirror, s, &mirror, NULL); /* no positions */
  sk_brush_desc bd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_brush, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_brush, s, &bd, NULL);
  bd.size = sizeof bd;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_brush, s, &bd, NULL); /* no positions */
  bd.positions = k_positions;
  bd.position_count = 3;
  float dab[5] = {0, 0, 0, 1, 0.5f};
  bd.dabs = dab;
  bd.dab_count = 1;
  bd.joint = 2;
  FAILS(ANY_ERROR, sk_weights_brush, s, &bd, NULL); /* joint past the skin */

  sk_transfer_desc td = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_transfer, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_transfer, s, &td, NULL);
  td.size = sizeof td;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_transfer, s, &td, NULL); /* no source */

  sk_direct_desc dd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_direct, NULL, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_weights_direct, s, &dd, NULL);
  dd.size = sizeof dd;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_weights_direct, s, &dd, NULL); /* no rest position / palettes / targets */
  dd.vertex = 3;
  float rest[3] = {0, 0, 0}, pal[32] = {0}, target[3] = {0, 0, 0};
  dd.rest_position = rest;
  dd.palettes = pal;
  dd.targets = target;
  FAILS(ANY_ERROR, sk_weights_direct, s, &dd, NULL); /* vertex past the end */

  /* failures left the weights alone */
  uint32_t j[4];
  float w[4];
  ck_assert_uint_eq(sk_skin_influence_count(s), 4);
  ck_assert_int_eq(sk_skin_get_csr(s, NULL, j, w, NULL), SK_OK);
  ck_assert_float_eq(w[1], 0.5f);
  ck_assert_float_eq(w[2], 0.5f);

  /* bone links */
  sk_skeleton* skel = make_skeleton();
  sk_skeleton* lsk = SENTINEL;
  sk_skin* lskin = SENTINEL;
  sk_bone_links_desc bl = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links, NULL, NULL, &bl, &lsk, &lskin, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links, skel, NULL, NULL, &lsk, &lskin, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_bone_links, skel, NULL, &bl, &lsk, &lskin, NULL);
  bl.size = sizeof bl;
  FAILS(ANY_ERROR, sk_bone_links, skel, NULL, &bl, &lsk, &lskin, NULL); /* neither ranges nor joints */
  uint32_t link_joint = 0;
  bl.joints = &link_joint;
  bl.joint_list_count = 1;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links, skel, s, &bl, &lsk, &lskin, NULL); /* skin without positions */
  ck_assert_ptr_eq(lsk, SENTINEL);
  ck_assert_ptr_eq(lskin, SENTINEL);
  uint32_t src[4], li[4];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links_source, NULL, skel, src, li);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links_source, skel, NULL, src, li);
  float trs[20] = {0}, otrs[40];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links_pose, NULL, skel, trs, otrs);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links_pose, skel, skel, NULL, otrs);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bone_links_pose, skel, skel, trs, NULL);
  sk_skeleton_destroy(skel);
  sk_skin_destroy(s);

  /* weight records: a bad count or a NULL array with entries, a missing output, a joint no group maps to */
  sk_weight_entry ent[2] = {{0, 0.5f}, {1, 0.5f}};
  sk_weight_record rec[2] = {{ent, 2, 0}, {NULL, 1, 0}};
  int32_t gmap[2] = {0, 1};
  uint32_t roff[3], rj[4], dup_off[2] = {0, 1}, bad_joint = 7;
  float rw[4];
  uint8_t deferred[2];
  size_t rn = 0;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_read, rec, 2, gmap, 2, roff, rj, rw, 4, &rn); /* NULL entries */
  rec[1].count = -1;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_read, rec, 2, gmap, 2, roff, rj, rw, 4, &rn);
  rec[1].count = SK_RECORD_MAX_ENTRIES + 1;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_read, rec, 2, gmap, 2, roff, rj, rw, 4, &rn);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_read, rec, 1, gmap, 2, NULL, rj, rw, 4, &rn);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_read, rec, 1, gmap, 2, roff, rj, NULL, 4, &rn);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_records_read, rec, 1, gmap, 2, roff, rj, rw, 1, &rn);
  ck_assert_uint_eq(rn, 2);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_update, rec, 1, gmap, 2, dup_off, &bad_joint, rw, NULL, deferred, NULL);
  int32_t twice[2] = {0, 0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_update, rec, 1, twice, 2, dup_off, rj, rw, NULL, deferred, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_update, rec, 1, gmap, 2, dup_off, rj, rw, NULL, NULL, NULL);
  /* sk_records_edit: descriptor size, the operation's own descriptor, two groups on one joint, a bad record */
  sk_limit_desc rld = {.size = sizeof rld, .max_influences = 1};
  sk_records_edit_desc ed = {sizeof ed - 4, SK_RECORDS_LIMIT, &rld, 0.0f, 0};
  FAILS(SK_ERR_STRUCT_SIZE, sk_records_edit, rec, 1, gmap, 2, &ed, NULL, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_edit, rec, 1, gmap, 2, NULL, NULL, NULL, NULL);
  ed.size = sizeof ed;
  rld.size = 3;
  FAILS(SK_ERR_STRUCT_SIZE, sk_records_edit, rec, 1, gmap, 2, &ed, NULL, NULL, NULL);
  rld.size = sizeof rld;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_edit, rec, 1, twice, 2, &ed, NULL, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_edit, rec, 2, gmap, 2, &ed, NULL, NULL, NULL); /* count too large */
  ed.reserved = 1;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_edit, rec, 1, gmap, 2, &ed, NULL, NULL, NULL);
  ed.reserved = 0;
  int32_t none[2] = {-1, -1}; /* no group mapped: still a bad operation is an error */
  ed.op = 0;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_edit, rec, 1, none, 2, &ed, NULL, NULL, NULL);
  ed.op = SK_RECORDS_LIMIT;
  ed.op_desc = NULL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_records_edit, rec, 1, none, 2, &ed, NULL, NULL, NULL);
  ck_assert(ent[0].weight == 0.5f && ent[1].weight == 0.5f && rec[0].count == 2); /* nothing written */
}
END_TEST

/* ================================================================ .skf */

START_TEST(skf_error_paths) {
  GETTER(0u, sk_skf_encode_bound, NULL);
  sk_skf_encode_desc ed = {0};
  GETTER(0u, sk_skf_encode_bound, &ed); /* size 0 */
  unsigned char buf[4096];
  size_t n = 12345;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_encode, NULL, buf, sizeof buf, &n);
  FAILS(SK_ERR_STRUCT_SIZE, sk_skf_encode, &ed, buf, sizeof buf, &n);
  ed.size = sizeof ed;
  FAILS(ANY_ERROR, sk_skf_encode, &ed, buf, sizeof buf, &n); /* no skeleton */

  sk_skeleton* skel = make_skeleton();
  sk_skin* s = make_skin();
  sk_skf_mesh mesh = {0};
  mesh.skin = s;
  mesh.positions = k_positions;
  ed.skeleton = skel;
  ed.meshes = &mesh;
  ed.mesh_count = 1;
  size_t bound = sk_skf_encode_bound(&ed);
  ck_assert_uint_gt(bound, 0);
  ck_assert_uint_le(bound, sizeof buf);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_encode, &ed, NULL, sizeof buf, &n);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_skf_encode, &ed, buf, 8, &n); /* capacity too small */
  ck_assert_uint_eq(n, 12345);
  const float* no_centers[1] = {NULL};
  ed.centers = no_centers;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_encode, &ed, buf, sizeof buf, &n); /* a NULL centres entry */
  ck_assert_uint_eq(n, 12345);
  ed.centers = NULL;
  ck_assert_int_eq(sk_skf_encode(&ed, buf, sizeof buf, &n, NULL), SK_OK);

  sk_skf_info info = {0};
  FAILS(SK_ERR_STRUCT_SIZE, sk_skf_peek, buf, n, &info);
  info.size = sizeof info;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_peek, NULL, n, &info);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_peek, buf, n, NULL);
  FAILS(SK_ERR_TRUNCATED, sk_skf_peek, buf, 4, &info);
  unsigned char bad[4096];
  memcpy(bad, buf, n);
  bad[0] ^= 0xff;
  FAILS(SK_ERR_FORMAT, sk_skf_peek, bad, n, &info);
  memcpy(bad, buf, n);
  bad[n - 1] ^= 0x55;
  FAILS(SK_ERR_CHECKSUM, sk_skf_peek, bad, n, &info);
  ck_assert_int_eq(sk_skf_peek(buf, n, &info, NULL), SK_OK);

  sk_skf_mesh_info mi = {0};
  FAILS(SK_ERR_STRUCT_SIZE, sk_skf_get_mesh_info, buf, n, 0, &mi);
  mi.size = sizeof mi;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_get_mesh_info, NULL, n, 0, &mi);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_skf_get_mesh_info, buf, n, 1, &mi);

  mark("sk_skf_position_hash");
  ck_assert_uint_eq(sk_skf_position_hash(k_positions, 3), sk_skf_position_hash(k_positions, 3));
  ck_assert_uint_ne(sk_skf_position_hash(k_positions, 3), sk_skf_position_hash(k_positions, 2));
  (void)sk_skf_position_hash(NULL, 0);
  (void)sk_skf_position_hash(NULL, 100); /* no positions: no crash */

  int32_t parents[2];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_decode_skeleton, NULL, n, parents, NULL, NULL, 0);
  FAILS(SK_ERR_TRUNCATED, sk_skf_decode_skeleton, buf, 3, parents, NULL, NULL, 0);
  char names[2];
  FAILS(ANY_ERROR, sk_skf_decode_skeleton, buf, n, NULL, NULL, names, sizeof names); /* names do not fit */

  uint8_t dj[12], dw[12];
  sk_skf_decode_desc dd = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_decode, buf, n, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_skf_decode, buf, n, &dd);
  dd.size = sizeof dd;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_decode, NULL, n, &dd);
  dd.joint_type = SK_TYPE_U8;
  dd.weight_type = SK_TYPE_U8;
  dd.influences = 4;
  dd.joints = dj;
  dd.weights = dw;
  dd.vertex_capacity = 2; /* the mesh has 3 vertices */
  FAILS(ANY_ERROR, sk_skf_decode, buf, n, &dd);
  dd.vertex_capacity = 3;
  dd.mesh = 1;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_skf_decode, buf, n, &dd);
  dd.mesh = 0;
  float dc[9];
  dd.centers = dc;
  FAILS(SK_ERR_NOT_FOUND, sk_skf_decode, buf, n, &dd); /* the file stores no centres of rotation */
  dd.centers = NULL;
  dd.joints = NULL;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_decode, buf, n, &dd);

  uint32_t count = 99;
  sk_skf_chunk chunks[8];
  for (int i = 0; i < 8; ++i) chunks[i].size = sizeof chunks[i];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_skf_chunks, NULL, n, chunks, 8, &count);
  ck_assert_int_eq(sk_skf_chunks(buf, n, chunks, 8, NULL, NULL), SK_OK); /* the count is optional */
  FAILS(SK_ERR_TRUNCATED, sk_skf_chunks, buf, 5, chunks, 8, &count);
  ck_assert_uint_eq(count, 99);
  sk_skin_destroy(s);
  sk_skeleton_destroy(skel);
}
END_TEST

/* ================================================================ binding */

START_TEST(bind_error_paths) {
  sk_skeleton* skel = make_skeleton();
  sk_skin* s = make_skin();
  sk_bind_desc bd = {0};
  sk_bind_report br = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bind, NULL, s, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_bind, &bd, s, NULL);
  bd.size = sizeof bd;
  bd.positions = k_positions;
  bd.vertex_count = 3;
  bd.skeleton = skel;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bind, &bd, NULL, NULL);
  FAILS(SK_ERR_STRUCT_SIZE, sk_bind, &bd, s, &br); /* report.size 0 */
  sk_bind_fit bf = {0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bind_fit_check, NULL, &bf);
  FAILS(SK_ERR_STRUCT_SIZE, sk_bind_fit_check, &bd, &bf); /* fit.size 0 */
  bf.size = sizeof bf;
  ck_assert_int_eq(sk_bind_fit_check(&bd, &bf, NULL), SK_OK);
  bd.method = 99;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bind, &bd, s, NULL);
  bd.method = SK_BIND_NEAREST;
  bd.vertex_count = 4; /* != the skin's */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bind, &bd, s, NULL);
  bd.vertex_count = 3;
  uint32_t tri[3] = {0, 1, 5};
  bd.triangles = tri;
  bd.triangle_count = 1;
  FAILS(SK_ERR_OUT_OF_RANGE, sk_bind, &bd, s, NULL);
  bd.triangles = NULL;
  bd.triangle_count = 0;
  float nan_pos[9] = {0, 0, 0, NAN, 0, 0, 2, 0, 0};
  bd.positions = nan_pos;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bind, &bd, s, NULL);
  bd.positions = k_positions;
  bd.skeleton = NULL; /* and no heads/tails either */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_bind, &bd, s, NULL);
  /* every failure left the skin as it was */
  float w[4];
  ck_assert_uint_eq(sk_skin_influence_count(s), 4);
  ck_assert_int_eq(sk_skin_get_csr(s, NULL, NULL, w, NULL), SK_OK);
  ck_assert_float_eq(w[1], 0.5f);
  /* and a valid call binds */
  bd.skeleton = skel;
  br.size = sizeof br;
  ck_assert_int_eq(sk_bind(&bd, s, &br, NULL), SK_OK);
  ck_assert_uint_eq(br.bound_vertices, 3);
  sk_skin_destroy(s);
  sk_skeleton_destroy(skel);
}
END_TEST

/* ================================================================ completeness */

/* Names declared with SK_API in skinkit.h, read from the source tree. */
static int declared_functions(char names[][64], int cap) {
  FILE* f = fopen(SK_SOURCE_DIR "/plugin/skinkit.h", "r");
  ck_assert_msg(f != NULL, "cannot open " SK_SOURCE_DIR "/plugin/skinkit.h");
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "SK_API ", 7) != 0) continue;
    char* paren = strchr(line, '(');
    if (!paren) continue;
    char* end = paren;
    while (end > line && end[-1] == ' ') --end;
    char* start = end;
    while (start > line && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') || (start[-1] >= '0' && start[-1] <= '9')))
      --start;
    size_t len = (size_t)(end - start);
    if (len == 0 || len >= 64 || n >= cap) continue;
    memcpy(names[n], start, len);
    names[n][len] = '\0';
    ++n;
  }
  fclose(f);
  return n;
}

/* The cameras, lights and empty nodes of tests/data/scene_objects.fbx (make_scene_objects.py), as listed from the
 * FBX (Assimp's nodes) and from the .glb written from it (the glTF reader's document): same names, kinds and what
 * each hangs from; materials by name and per mesh. */
static void check_listing(const sk_scene* s, const char* label) {
  static const struct {
    const char* name;
    int32_t kind;
    const char* parent;
  } want[] = {{"ShotCam", SK_OBJECT_CAMERA, NULL},       {"OrthoCam", SK_OBJECT_CAMERA, NULL},
              {"KneeLamp", SK_OBJECT_LIGHT, "thigh"},    {"Lamp", SK_OBJECT_LIGHT, NULL},
              {"Spot", SK_OBJECT_LIGHT, NULL},           {"Sun", SK_OBJECT_LIGHT, NULL},
              {"PropAnchor", SK_OBJECT_EMPTY, NULL},     {"Marker", SK_OBJECT_EMPTY, NULL},
              {"MarkerChild", SK_OBJECT_EMPTY, "Marker"}};
  const uint32_t n = sk_scene_object_count(s);
  ck_assert_msg(n == 9, "%s: %u objects", label, n);
  for (size_t w = 0; w < sizeof want / sizeof want[0]; ++w) {
    uint32_t i = 0;
    while (i < n && strcmp(sk_scene_object_name(s, i), want[w].name) != 0) ++i;
    ck_assert_msg(i < n, "%s: no object %s", label, want[w].name);
    ck_assert_msg(sk_scene_object_kind(s, i) == want[w].kind, "%s: %s kind %d", label, want[w].name,
                  (int)sk_scene_object_kind(s, i));
    const char* p = sk_scene_object_parent(s, i);
    ck_assert_msg(want[w].parent ? p && !strcmp(p, want[w].parent) : p == NULL, "%s: %s on %s", label, want[w].name,
                  p ? p : "(top level)");
  }
  /* the leg has no material, as Blender shows it: Assimp's made-up "DefaultMaterial" is not listed */
  ck_assert_uint_eq(sk_scene_material_count(s), 0);
  ck_assert_int_eq(sk_scene_mesh_material(s, 0), -1);
  ck_assert_ptr_null(sk_scene_material_name(s, 0));
}

static sk_object_info object_info(const sk_scene* s, const char* name) {
  sk_object_info o = {.size = sizeof o};
  uint32_t i = 0;
  while (i < sk_scene_object_count(s) && strcmp(sk_scene_object_name(s, i), name) != 0) ++i;
  ck_assert_int_eq(sk_scene_object_info(s, i, &o, NULL), SK_OK);
  ck_assert_str_eq(o.name, name);
  return o;
}

static bool near_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(1.0, fmax(fabs(a), fabs(b))); }

/* An FBX object's world w (kind: SK_OBJECT_*) as the .glb written from it holds it, before to_gltf: an empty's own
 * axes turned from Blender's Z up to glTF's Y up, w C^-1 with C = (x, y, z) -> (x, z, -y) (session 75: Blender's
 * glTF importer turns them back, its FBX importer does not; the position is the same); a camera or light as it is. */
static void glb_axes(int32_t kind, const float w[16], float out[16]) {
  static const float k_c_inv[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double v = 0.0;
      for (int k = 0; k < 4; ++k) v += (double)w[k * 4 + r] * (kind == SK_OBJECT_EMPTY ? k_c_inv[c * 4 + k] : c == k);
      out[c * 4 + r] = (float)v;
    }
}

/* Object a of the FBX (its frame: centimetres) and b of the .glb written from it (glTF's frame): the same place once
 * to_gltf is applied (an empty's axes turned, glb_axes), lengths in the unit, the same camera and light. */
static void check_same_object(const sk_object_info* a, const sk_object_info* b, const float to_gltf[16], double unit) {
  float aw[16];
  glb_axes(a->kind, a->world, aw);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      double w = 0.0;
      for (int k = 0; k < 4; ++k) w += (double)to_gltf[k * 4 + r] * aw[c * 4 + k];
      ck_assert_msg(near_rel(w, b->world[c * 4 + r], 1e-5), "%s: world[%d][%d] %g, .glb %g", a->name, r, c, w,
                    (double)b->world[c * 4 + r]);
    }
  ck_assert_int_eq(a->kind, b->kind);
  ck_assert(a->parent_joint ? b->parent_joint && !strcmp(a->parent_joint, b->parent_joint) : !b->parent_joint);
  ck_assert(a->parent_mesh ? b->parent_mesh && !strcmp(a->parent_mesh, b->parent_mesh) : !b->parent_mesh);
  ck_assert_uint_eq(a->orthographic, b->orthographic);
  ck_assert(near_rel(a->yfov, b->yfov, 1e-6) && near_rel(a->znear * unit, b->znear, 1e-5));
  ck_assert(near_rel(a->xmag * unit, b->xmag, 1e-5) && near_rel(a->ymag * unit, b->ymag, 1e-5));
  ck_assert_int_eq(a->light_type, b->light_type);
  ck_assert(near_rel(a->intensity, b->intensity, 1e-5) && near_rel(a->outer_cone, b->outer_cone, 1e-6));
  for (int k = 0; k < 3; ++k) ck_assert(near_rel(a->color[k], b->color[k], 1e-6));
}

/* sk_scene_object_info on the FBX and on the .glb written from it: what each object is and where, the same. */
static void check_object_infos(const sk_scene* fbx, const sk_scene* glb) {
  double unit = 0.0;
  int32_t axes[3];
  float to_gltf[16];
  ck_assert_int_eq(sk_scene_frame(fbx, &unit, axes, to_gltf), 1);
  ck_assert(fabs(unit - 0.01) < 1e-9);
  for (uint32_t i = 0; i < sk_scene_object_count(fbx); ++i) {
    sk_object_info a = {.size = sizeof a};
    ck_assert_int_eq(sk_scene_object_info(fbx, i, &a, NULL), SK_OK);
    if (a.parent_object >= 0) ck_assert_int_lt(a.parent_object, (int32_t)i); /* parents first */
    const sk_object_info b = object_info(glb, a.name);
    check_same_object(&a, &b, to_gltf, unit);
  }
  const sk_object_info knee = object_info(glb, "KneeLamp"), prop = object_info(glb, "PropAnchor");
  ck_assert(knee.parent_joint && !strcmp(knee.parent_joint, "thigh") && knee.parent_object == -1);
  ck_assert(prop.parent_mesh && !strcmp(prop.parent_mesh, "Leg") && !prop.parent_joint);
  const sk_object_info child = object_info(glb, "MarkerChild"), ortho = object_info(glb, "OrthoCam");
  ck_assert_int_ge(child.parent_object, 0);
  ck_assert_str_eq(sk_scene_object_name(glb, (uint32_t)child.parent_object), "Marker");
  ck_assert(ortho.kind == SK_OBJECT_CAMERA && ortho.orthographic && near_rel(ortho.xmag, 3.0, 1e-6));
  ck_assert(near_rel(ortho.ymag, 1.6875, 1e-6));
  const sk_object_info sun = object_info(glb, "Sun"), spot = object_info(glb, "Spot");
  ck_assert_int_eq(sun.light_type, SK_LIGHT_DIRECTIONAL);
  ck_assert(spot.light_type == SK_LIGHT_SPOT && spot.inner_cone > 0.0f && spot.outer_cone > spot.inner_cone);
}

START_TEST(scene_objects_listed) {
  sk_scene* fbx = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/scene_objects.fbx", NULL, &fbx, NULL), SK_OK);
  check_listing(fbx, "fbx");
  char dir[] = "/tmp/skinkit_abi_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char glb[64];
  snprintf(glb, sizeof glb, "%s/objects.glb", dir);
  ck_assert_int_eq(sk_scene_save(fbx, glb, NULL, NULL), SK_OK);
  sk_scene* g = NULL;
  ck_assert_int_eq(sk_scene_load(glb, NULL, &g, NULL), SK_OK);
  check_listing(g, "glb");
  check_object_infos(fbx, g);
  sk_scene_destroy(fbx);
  sk_scene_destroy(g);
  remove(glb);
  rmdir(dir);
}
END_TEST

/* A scene of make_skeleton's joints holding one triangle skinned by make_skin. */
static sk_scene* skinned_scene(const sk_skeleton* skel, const sk_skin* skin) {
  sk_scene* sc = NULL;
  ck_assert_int_eq(sk_scene_create(skel, &sc, NULL), SK_OK);
  static const uint32_t tri[3] = {0, 1, 2};
  sk_mesh_desc md = {.size = sizeof md, .vertex_count = 3, .positions = k_positions, .indices = tri, .index_count = 3,
                     .skin = skin};
  ck_assert_int_eq(sk_scene_add_mesh(sc, &md, NULL, NULL), SK_OK);
  return sc;
}

/* sc written as <fresh folder>/<name> (format NULL: from the extension) and read back; the file and folder removed. */
static sk_scene* through_file(const sk_scene* sc, const char* name, const char* format) {
  char dir[] = "/tmp/skinkit_abi_XXXXXX", path[96];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/%s", dir, name);
  sk_save_options so = {.size = sizeof so, .format = format};
  ck_assert_int_eq(sk_scene_save(sc, path, &so, NULL), SK_OK);
  sk_scene* back = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &back, NULL), SK_OK);
  remove(path);
  rmdir(dir);
  return back;
}

static sk_scene* through_glb(const sk_scene* sc, const char* name) {
  char file[64];
  snprintf(file, sizeof file, "%s.glb", name);
  return through_file(sc, file, NULL);
}

/* glTF requires unit normals (the Khronos validator's ACCESSOR_VECTOR3_NON_UNIT): an SMD's (1, 1, 1) normals went into
 * the .glb as they were (an audit). The writer normalizes them, says so, and leaves a zero normal (no direction). */
START_TEST(gltf_writer_normalizes_normals) {
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = NULL;
  ck_assert_int_eq(sk_scene_create(skel, &sc, NULL), SK_OK);
  static const uint32_t tri[3] = {0, 1, 2};
  static const float nrm[9] = {1, 1, 1, 0, 0, 1, 0, 0, 0};
  sk_mesh_desc md = {.size = sizeof md,
                     .vertex_count = 3,
                     .positions = k_positions,
                     .normals = nrm,
                     .indices = tri,
                     .index_count = 3,
                     .skin = skin};
  ck_assert_int_eq(sk_scene_add_mesh(sc, &md, NULL, NULL), SK_OK);
  char dir[] = "/tmp/skinkit_abi_XXXXXX", path[96], notes[1024] = "";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/n.glb", dir);
  sk_save_options so = {.size = sizeof so, .notes = notes, .notes_size = sizeof notes};
  ck_assert_int_eq(sk_scene_save(sc, path, &so, NULL), SK_OK);
  ck_assert_msg(strstr(notes, "normals not of unit length written normalized"), "%s", notes);
  sk_scene* back = NULL;
  ck_assert_int_eq(sk_scene_load(path, NULL, &back, NULL), SK_OK);
  float got[9];
  ck_assert_uint_eq(sk_scene_mesh_normals(back, 0, got, 9), 9);
  const float s = 1.0f / sqrtf(3.0f);
  ck_assert(fabsf(got[0] - s) < 1e-6f && fabsf(got[1] - s) < 1e-6f && fabsf(got[2] - s) < 1e-6f);
  ck_assert(got[5] == 1.0f && got[6] == 0.0f && got[7] == 0.0f && got[8] == 0.0f);
  remove(path);
  rmdir(dir);
  sk_scene_destroy(back);
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* sk_scene_add_object: what it refuses; what it takes is listed back and written to a .glb that reads back the same. */
static sk_object_info made_object(int32_t kind, const char* name, float x) {
  sk_object_info o = {.size = sizeof o, .kind = kind, .name = name, .parent_object = -1, .light_type = -1};
  for (int k = 0; k < 4; ++k) o.world[k * 5] = 1.0f;
  o.world[12] = x;
  o.world[13] = 2.0f;
  return o;
}

static void check_added(const sk_scene* s, const sk_object_info* want, const char* label) {
  const sk_object_info got = object_info(s, want->name);
  ck_assert_msg(got.kind == want->kind && got.orthographic == want->orthographic, "%s: %s kind", label, want->name);
  for (int k = 0; k < 16; ++k)
    ck_assert_msg(near_rel(got.world[k], want->world[k], 1e-6), "%s: %s world", label, got.name);
  ck_assert(near_rel(got.yfov, want->yfov, 1e-6) && near_rel(got.xmag, want->xmag, 1e-6));
  ck_assert(near_rel(got.znear, want->znear, 1e-6) && near_rel(got.zfar, want->zfar, 1e-6));
  ck_assert(got.light_type == want->light_type && near_rel(got.intensity, want->intensity, 1e-5));
  ck_assert(near_rel(got.inner_cone, want->inner_cone, 1e-6) && near_rel(got.outer_cone, want->outer_cone, 1e-6));
  ck_assert(want->parent_joint ? got.parent_joint && !strcmp(got.parent_joint, want->parent_joint) : !got.parent_joint);
}

/* A material of factors only (metallic 0.5, roughness 0.25), no image. */
static sk_material_desc untextured_material(const char* name) {
  sk_material_desc md = {.size = sizeof md,
                         .name = name,
                         .base_color = {1, 1, 1, 1},
                         .metallic = 0.5f,
                         .roughness = 0.25f,
                         .normal_scale = 1.0f,
                         .base_color_image = -1,
                         .metallic_roughness_image = -1,
                         .normal_image = -1,
                         .emissive_image = -1,
                         .occlusion_image = -1};
  return md;
}

/* ABI 1.15 sk_save_options.notes: a .dae save that drops a lot (six long-named metallic materials, cameras and
 * lights, blend shapes) gets every note in notes, and err->message the notes that fit its 256 bytes, whole, then
 * "; ... (N more notes)" - it was cut mid-word ("extensions KHR"). A 1.3-sized struct is still taken. */
START_TEST(scene_save_notes_whole) {
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = skinned_scene(skel, skin);
  char name[80];
  for (uint32_t i = 0; i < 6; ++i) {
    snprintf(name, sizeof name, "a_rather_long_material_name_from_a_content_pipeline_number_%u", i);
    sk_material_desc md = untextured_material(name);
    uint32_t mi = 0, me = 0;
    static const uint32_t tri[3] = {0, 1, 2};
    sk_mesh_desc mesh = {.size = sizeof mesh,
                         .vertex_count = 3,
                         .positions = k_positions,
                         .indices = tri,
                         .index_count = 3,
                         .skin = skin};
    ck_assert_int_eq(sk_scene_add_mesh(sc, &mesh, &me, NULL), SK_OK);
    ck_assert_int_eq(sk_scene_add_material(sc, &md, &mi, NULL), SK_OK);
    ck_assert_int_eq(sk_scene_mesh_set_material(sc, me, mi, NULL), SK_OK);
  }
  const char* shape_names[1] = {"Bulge"};
  const float shape_w[1] = {0.5f};
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 1, shape_names, shape_w, k_positions, NULL, NULL), SK_OK);
  /* Collada through Assimp has no blend shapes nor custom properties: named (ASCII FBX, which had none either, is the
   * binary FBX as text since session 72) */
  ck_assert_int_eq(sk_scene_add_prop(sc, "a_node_of_a_long_name_from_a_content_pipeline", "gameplay_tag", SK_PROP_STRING,
                                     NULL, "breakable", NULL),
                   SK_OK);
  char dir[] = "/tmp/skinkit_abi_XXXXXX", path[96], notes[8192];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/notes.dae", dir);
  sk_save_options so = {.size = sizeof so, .overwrite = 1, .notes = notes, .notes_size = sizeof notes};
  sk_error err;
  ck_assert_int_eq(sk_scene_save(sc, path, &so, &err), SK_OK);
  ck_assert_msg(strlen(notes) >= sizeof err.message, "the save's notes fit in err.message: %s", notes);
  ck_assert_msg(strstr(notes, "Bulge") && strstr(notes, "number_0") && strstr(notes, "custom propert"), "notes: %s",
                notes);
  const char* more = strstr(err.message, "; ... (");
  ck_assert_msg(more && strstr(more, " more note") && err.message[strlen(err.message) - 1] == ')', "message: %s",
                err.message);
  const size_t kept = (size_t)(more - err.message);
  ck_assert_msg(!strncmp(err.message, notes, kept) && !strncmp(notes + kept, "; ", 2),
                "err.message does not end at a whole note: %s", err.message);
  /* FBX writes the clips that key a joint: a clip keying none (a glTF's morph-weight clip) is named in the notes */
  const double times[2] = {0.0, 1.0};
  float trs[2 * 2 * 10] = {0};
  for (int k = 0; k < 4; ++k) trs[k * 10 + 6] = 1.0f, trs[k * 10 + 7] = trs[k * 10 + 8] = trs[k * 10 + 9] = 1.0f;
  trs[2 * 10 + 0] = 0.5f; /* root moves at the second key */
  const uint8_t none[2] = {0, 0};
  ck_assert_int_eq(sk_scene_add_animation(sc, "Moves", times, 2, trs, NULL, NULL, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_add_animation(sc, "Blink", times, 2, trs, none, NULL, NULL), SK_OK);
  remove(path);
  snprintf(path, sizeof path, "%s/notes.fbx", dir);
  so.format = "fbxa";
  ck_assert_int_eq(sk_scene_save(sc, path, &so, &err), SK_OK);
  ck_assert_msg(strstr(notes, "1 clip(s) (\"Blink\") not written: they key no joint"), "notes: %s", notes);
  ck_assert_msg(!strstr(notes, "Moves"), "notes: %s", notes);
  remove(path);
  snprintf(path, sizeof path, "%s/notes_old.dae", dir);
  /* 1.3 to 1.14 callers: the struct without notes */
  sk_save_options old = {.size = (uint32_t)offsetof(sk_save_options, notes), .overwrite = 1};
  ck_assert_int_eq(sk_scene_save(sc, path, &old, &err), SK_OK);
  ck_assert(strstr(err.message, "; ... (") != NULL);
  remove(path);
  /* 1.15 to 1.21 callers: the struct without isolate, notes still filled */
  snprintf(path, sizeof path, "%s/notes_old.fbx", dir);
  notes[0] = 0;
  sk_save_options before_isolate = {.size = (uint32_t)offsetof(sk_save_options, isolate),
                                    .overwrite = 1,
                                    .notes = notes,
                                    .notes_size = sizeof notes,
                                    .format = "fbxa"};
  ck_assert_int_eq(sk_scene_save(sc, path, &before_isolate, &err), SK_OK);
  ck_assert_msg(strstr(notes, "Blink"), "notes: %s", notes);
  remove(path);
  /* ABI 1.22: the writer in a child process writes what it writes here, notes and all */
  size_t here_n = 0, iso_n = 0;
  snprintf(path, sizeof path, "%s/here.fbx", dir);
  ck_assert_int_eq(sk_scene_save(sc, path, &so, &err), SK_OK);
  char* here = skt_slurp(path, &here_n);
  char here_notes[sizeof notes];
  memcpy(here_notes, notes, sizeof notes);
  so.isolate = 1;
  so.timeout_seconds = 60.0f;
  snprintf(path, sizeof path, "%s/isolated.fbx", dir);
  ck_assert_int_eq(sk_scene_save(sc, path, &so, &err), SK_OK);
  char* iso = skt_slurp(path, &iso_n);
  ck_assert(here && iso && here_n == iso_n);
  /* the same text but for the writer's clock in the header's CreationTimeStamp block */
  const char *stamp = strstr(here, "CreationTimeStamp"), *stamp_end = stamp ? strstr(stamp, "\n\t}") : NULL;
  ck_assert(stamp && stamp_end);
  const size_t head = (size_t)(stamp - here), tail = (size_t)(stamp_end - here);
  ck_assert(!memcmp(here, iso, head) && !memcmp(here + tail, iso + tail, here_n - tail));
  ck_assert_str_eq(notes, here_notes);
  free(here);
  free(iso);
  so.timeout_seconds = -1.0f;
  ck_assert_int_eq(sk_scene_save(sc, path, &so, &err), SK_ERR_INVALID_ARGUMENT);
  remove(path);
  snprintf(path, sizeof path, "%s/here.fbx", dir);
  remove(path);
  rmdir(dir);
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

START_TEST(scene_objects_added) {
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = skinned_scene(skel, skin);
  uint32_t k = 99;
  sk_object_info marker = made_object(SK_OBJECT_EMPTY, "Marker", 1.0f), bad = marker;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, NULL, &marker, &k);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, NULL, &k);
  bad.size = 8;
  FAILS(SK_ERR_STRUCT_SIZE, sk_scene_add_object, sc, &bad, &k);
  bad = marker;
  bad.kind = 3;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, &bad, &k);
  bad = marker;
  bad.world[5] = INFINITY;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, &bad, &k);
  bad = marker;
  bad.parent_object = 0; /* no object yet */
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_add_object, sc, &bad, &k);
  bad = marker;
  bad.parent_joint = "no such joint";
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, &bad, &k);
  sk_object_info cam = made_object(SK_OBJECT_CAMERA, "Cam", 3.0f), ortho = made_object(SK_OBJECT_CAMERA, "Top", 4.0f);
  cam.yfov = 4.0f; /* past pi */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, &cam, &k);
  ortho.orthographic = 1;
  ortho.xmag = 2.0f; /* ymag 0 */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, &ortho, &k);
  sk_object_info spot = made_object(SK_OBJECT_LIGHT, "Spot", 5.0f);
  spot.light_type = SK_LIGHT_SPOT;
  spot.color[0] = spot.color[1] = spot.color[2] = 1.0f;
  spot.intensity = 100.0f;
  spot.inner_cone = 0.6f;
  spot.outer_cone = 0.5f; /* inner past outer */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, &spot, &k);
  spot.inner_cone = 0.3f;
  spot.intensity = -1.0f;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_object, sc, &spot, &k);
  ck_assert_uint_eq(k, 99);
  GETTER(0u, sk_scene_object_count, sc);
  spot.intensity = 100.0f;
  spot.parent_joint = "child";
  cam.yfov = 0.8f;
  cam.znear = 0.1f;
  cam.zfar = 100.0f;
  cam.parent_object = 0;
  ortho.ymag = 1.0f;
  ortho.znear = 0.5f;
  ortho.zfar = 50.0f;
  sk_object_info* all[4] = {&marker, &cam, &spot, &ortho};
  for (uint32_t i = 0; i < 4; ++i) {
    ck_assert_int_eq(sk_scene_add_object(sc, all[i], &k, NULL), SK_OK);
    ck_assert_uint_eq(k, i);
  }
  GETTER(4u, sk_scene_object_count, sc);
  for (int i = 0; i < 4; ++i) check_added(sc, all[i], "added");
  ck_assert_str_eq(sk_scene_object_parent(sc, 1), "Marker");
  sk_scene* back = through_glb(sc, "added");
  GETTER(4u, sk_scene_object_count, back);
  for (int i = 0; i < 4; ++i) check_added(back, all[i], ".glb");
  const sk_object_info cam_back = object_info(back, "Cam");
  ck_assert_str_eq(sk_scene_object_name(back, (uint32_t)cam_back.parent_object), "Marker");
  FAILS(SK_ERR_UNSUPPORTED, sk_scene_add_object, back, &marker, &k); /* a glTF document's scene */
  sk_scene_destroy(back);
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* sk_scene_add_animation: what it refuses; a clip it takes samples as given, between keys too, and a .glb written with
 * it holds the same clip. */
START_TEST(scene_animation_added) {
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene *sc = skinned_scene(skel, skin), *bare = NULL;
  ck_assert_int_eq(sk_scene_create(NULL, &bare, NULL), SK_OK);
  uint32_t k = 99;
  const double times[2] = {0.0, 2.0}, back_times[2] = {2.0, 1.0};
  float trs[2 * 2 * 10] = {0}; /* key 0: rest-like; key 1: the child moved to x = 3, turned 90 degrees about z and
                                  scaled 2 */
  for (int i = 0; i < 4; ++i) trs[i * 10 + 6] = trs[i * 10 + 7] = trs[i * 10 + 8] = trs[i * 10 + 9] = 1.0f;
  trs[10] = 1.0f;
  trs[30] = 3.0f;
  trs[30 + 5] = trs[30 + 6] = 0.70710678f;
  trs[30 + 7] = trs[30 + 8] = trs[30 + 9] = 2.0f;
  const uint8_t keyed[2] = {0, 1};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_animation, NULL, "a", times, 2, trs, keyed, &k);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_animation, sc, "a", NULL, 2, trs, keyed, &k);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_animation, sc, "a", times, 0, trs, keyed, &k);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_animation, sc, "a", back_times, 2, trs, keyed, &k);
  FAILS(SK_ERR_NO_SKIN, sk_scene_add_animation, bare, "a", times, 2, trs, keyed, &k);
  trs[31] = NAN;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_animation, sc, "a", times, 2, trs, keyed, &k);
  trs[31] = 0.0f;
  trs[13] = trs[14] = trs[15] = trs[16] = 0.0f; /* key 0, joint 1: no rotation */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_animation, sc, "a", times, 2, trs, keyed, &k);
  trs[16] = 1.0f;
  GETTER(0u, sk_scene_animation_count, sc);
  ck_assert_int_eq(sk_scene_add_animation(sc, "Turn", times, 2, trs, keyed, &k, NULL), SK_OK);
  ck_assert_uint_eq(k, 0);
  ck_assert_str_eq(sk_scene_animation_name(sc, 0), "Turn");
  ck_assert(fabs(sk_scene_animation_duration(sc, 0) - 2.0) < 1e-12);
  /* ABI 1.19: the joints a clip keys (keyed: the child only) */
  uint8_t keyed_mask[3] = {7, 7, 7};
  uint32_t keyed_n = 9;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_animation_keyed_joints, NULL, 0, keyed_mask, 3, &keyed_n);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_animation_keyed_joints, sc, 0, NULL, 3, &keyed_n);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_animation_keyed_joints, sc, 0, keyed_mask, 1, &keyed_n);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_animation_keyed_joints, sc, 1, keyed_mask, 3, &keyed_n);
  ck_assert_int_eq(sk_scene_animation_keyed_joints(sc, 0, keyed_mask, 3, &keyed_n, NULL), SK_OK);
  ck_assert(keyed_mask[0] == 0 && keyed_mask[1] == 1 && keyed_mask[2] == 0 && keyed_n == 1);
  /* as given, and through every writer: .glb, .dae, binary and ASCII .fbx (Assimp 5.2.5's FBX writer connects scale
   * keys to "Lcl Scale", which no reader animates: fbx_fixup.c renames it) */
  sk_scene* back[4] = {through_glb(sc, "clip"), through_file(sc, "clip.dae", NULL), through_file(sc, "clip.fbx", NULL),
                       through_file(sc, "clip_ascii.fbx", "fbxa")};
  const sk_scene* all[5] = {sc, back[0], back[1], back[2], back[3]};
  for (int b = 0; b < 5; ++b) {
    const sk_skeleton* sk = sk_scene_skeleton(all[b]);
    uint32_t child = 0, a = 0, jc = sk_skeleton_joint_count(sk);
    ck_assert_int_eq(sk_skeleton_find_joint(sk, "child", &child), SK_OK);
    while (a < sk_scene_animation_count(all[b]) && strcmp(sk_scene_animation_name(all[b], a), "Turn")) ++a;
    float pose[40];
    ck_assert_uint_le(jc, 4);
    ck_assert_int_eq(sk_scene_sample_pose(all[b], a, 1.0, pose, NULL), SK_OK); /* half way */
    const float* p = pose + child * 10;
    ck_assert_msg(fabs(p[0] - 2.0f) < 1e-4f, "scene %d: child x %g", b, p[0]);
    ck_assert_msg(fabs(fabs(p[5]) - 0.38268343f) < 1e-4f && fabs(fabs(p[6]) - 0.92387953f) < 1e-4f,
                  "scene %d: not turned 45 degrees (%g %g)", b, p[5], p[6]);
    ck_assert_msg(fabs(p[7] - 1.5f) < 1e-4f && fabs(p[9] - 1.5f) < 1e-4f, "scene %d: child scale %g", b, p[7]);
  }
  FAILS(SK_ERR_UNSUPPORTED, sk_scene_add_animation, back[0], "a", times, 2, trs, keyed, &k);
  for (int b = 0; b < 4; ++b) sk_scene_destroy(back[b]);
  sk_scene_destroy(bare);
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

/* parent_world x rel is object i's rest world (within 1e-4 of its size). */
static void check_parent_times(const sk_scene* s, uint32_t i, const float rel[16], const char* label) {
  sk_object_info o = {.size = sizeof o};
  ck_assert_int_eq(sk_scene_object_info(s, i, &o, NULL), SK_OK);
  double size = 1.0;
  for (int k = 0; k < 16; ++k) size = fmax(size, fabs(o.world[k]));
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double v = 0.0;
      for (int k = 0; k < 4; ++k) v += (double)o.parent_world[k * 4 + r] * rel[c * 4 + k];
      ck_assert_msg(fabs(v - o.world[c * 4 + r]) <= 1e-4 * size, "%s: [%d][%d] %g, world %g", label, r, c, v,
                    (double)o.world[c * 4 + r]);
    }
}

/* Blend shapes (ABI 1.13): shape_key_leg.fbx's "Bulge", whole positions that differ from the mesh's; out of range and
 * NULL give 0 / NULL. */
START_TEST(scene_mesh_morphs) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/shape_key_leg.fbx", NULL, &s, NULL), SK_OK);
  GETTER(1u, sk_scene_mesh_morph_count, s, 0);
  GETTER(0u, sk_scene_mesh_morph_count, s, 99);
  GETTER(0u, sk_scene_mesh_morph_count, NULL, 0);
  ck_assert_str_eq(sk_scene_mesh_morph_name(s, 0, 0), "Bulge");
  GETTER(NULL, sk_scene_mesh_morph_name, s, 0, 1);
  GETTER(NULL, sk_scene_mesh_morph_name, NULL, 0, 0);
  GETTER(0.0f, sk_scene_mesh_morph_weight, s, 0, 0);
  GETTER(0.0f, sk_scene_mesh_morph_weight, s, 0, 7);
  GETTER((size_t)0, sk_scene_mesh_morph_positions, s, 0, 1, NULL, 0);
  GETTER((size_t)0, sk_scene_mesh_morph_positions, NULL, 0, 0, NULL, 0);
  const size_t n = sk_scene_mesh_positions(s, 0, NULL, 0);
  ck_assert_uint_eq(sk_scene_mesh_morph_positions(s, 0, 0, NULL, 0), n);
  float* base = malloc(n * sizeof *base);
  float* bulge = malloc(n * sizeof *bulge);
  ck_assert(base && bulge);
  sk_scene_mesh_positions(s, 0, base, n);
  ck_assert_uint_eq(sk_scene_mesh_morph_positions(s, 0, 0, bulge, n), n);
  double moved = 0.0;
  for (size_t i = 0; i < n; ++i) moved = fmax(moved, fabs((double)bulge[i] - base[i]));
  ck_assert(moved > 1e-3 && moved < 1.0); /* whole positions, the bulge a few centimetres */
  free(base);
  free(bulge);
  sk_scene_destroy(s);
  /* the shape key's value is its default weight: Blender's DeformPercent 40 (fbx_shapes.c; Assimp gives none) */
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/shape_key_leg_valued.fbx", NULL, &s, NULL), SK_OK);
  ck_assert_str_eq(sk_scene_mesh_morph_name(s, 0, 0), "Bulge");
  ck_assert_float_eq_tol(sk_scene_mesh_morph_weight(s, 0, 0), 0.4f, 1e-6f);
  sk_scene_destroy(s);
  /* two objects' keys of one name, "Key 1" at 0.3 on Leg and 0.7 on Box (make_shape_key_twins.py): each its own value,
   * read from Blender's file, from skinkit's .glb of it and from the .fbx Assimp's writer makes of that (matched by
   * name alone, both were 0) */
  const char* twins[3] = {SK_SOURCE_DIR "/tests/data/shape_key_twins.fbx", "/tmp/skinkit_abi_twins.glb",
                          "/tmp/skinkit_abi_twins.fbx"};
  for (int f = 0; f < 3; ++f) {
    ck_assert_int_eq(sk_scene_load(twins[f], NULL, &s, NULL), SK_OK);
    ck_assert_uint_eq(sk_scene_mesh_count(s), 2);
    for (uint32_t m = 0; m < 2; ++m) {
      const bool leg = !strcmp(sk_scene_mesh_node_name(s, m), "Leg");
      ck_assert_str_eq(sk_scene_mesh_morph_name(s, m, 0), "Key 1");
      ck_assert_msg(fabsf(sk_scene_mesh_morph_weight(s, m, 0) - (leg ? 0.3f : 0.7f)) < 1e-6f, "%s: %s's Key 1 at %g",
                    twins[f], sk_scene_mesh_node_name(s, m), (double)sk_scene_mesh_morph_weight(s, m, 0));
    }
    if (f < 2) {
      sk_save_options o = {.size = sizeof o, .overwrite = 1, .as_is = 0};
      ck_assert_int_eq(sk_scene_save(s, twins[f + 1], &o, NULL), SK_OK);
    }
    sk_scene_destroy(s);
  }
  unlink(twins[1]);
  unlink(twins[2]);
}
END_TEST

/* Shape s's whole positions: the mesh moved by (s + 1) / 8 along y on vertex 1 and z on vertex 2. */
static void shape_positions(int s, float out[9]) {
  memcpy(out, k_positions, sizeof k_positions);
  out[4] += (float)(s + 1) / 8.0f;
  out[8] += (float)(s + 1) / 8.0f;
}

/* sk_scene_mesh_set_morphs: what it refuses (nothing changed then), what it takes read back and through a .glb (names,
 * default weights, whole positions), replaced and removed; on a glTF read from a file the new shapes are written (the
 * in-place editor would have kept the document's own). */
/* ABI 1.20 sk_scene_weld: corners that are the same in every stream merge (first kept, indices renumbered, the skin
 * handle taken before keeps working), a corner whose weight, normal sign (-0.0) or blend shape differs does not. */
START_TEST(scene_weld) {
  uint64_t merged = 7;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_weld, NULL, &merged);
  ck_assert_uint_eq(merged, 0);
  sk_skeleton* skel = make_skeleton();
  sk_scene* sc = NULL;
  ck_assert_int_eq(sk_scene_create(skel, &sc, NULL), SK_OK);
  /* corners: 0 A, 1 B, 2 C, 3 C, 4 B, 5 D, 6 A (other weights), 7 B, 8 E, 9 D (normal x -0.0), 10 C, 11 E (other
   * blend shape) */
  const float P[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 0, 0}}; /* A B C D E */
  const int at[12] = {0, 1, 2, 2, 1, 3, 0, 1, 4, 3, 2, 4};
  float pos[36], nrm[36], shape[36];
  uint32_t idx[12], off[13], jt[12];
  float wt[12];
  for (int c = 0; c < 12; ++c) {
    for (int k = 0; k < 3; ++k) {
      pos[3 * c + k] = P[at[c]][k];
      nrm[3 * c + k] = k == 2 ? 1.0f : 0.0f;
      shape[3 * c + k] = P[at[c]][k] + (k == 2 ? 0.5f : 0.0f);
    }
    idx[c] = (uint32_t)c;
    off[c] = (uint32_t)c;
    jt[c] = 0;
    wt[c] = 1.0f;
  }
  off[12] = 12;
  jt[6] = 1;                  /* A again, bound to the other joint */
  nrm[3 * 9] = -0.0f;         /* D again, its normal's x -0.0 instead of 0.0 */
  shape[3 * 11 + 2] += 0.25f; /* E again, moved further by the shape */
  sk_skin* skin = NULL;
  ck_assert_int_eq(sk_skin_create(12, 2, &skin, NULL), SK_OK);
  ck_assert_int_eq(sk_skin_set_csr(skin, off, jt, wt, NULL), SK_OK);
  sk_mesh_desc md = {0};
  md.size = sizeof md;
  md.vertex_count = 12;
  md.positions = pos;
  md.normals = nrm;
  md.indices = idx;
  md.index_count = 12;
  md.skin = skin;
  uint32_t mi = 0;
  ck_assert_int_eq(sk_scene_add_mesh(sc, &md, &mi, NULL), SK_OK);
  const char* names[1] = {"up"};
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 1, names, NULL, shape, NULL, NULL), SK_OK);
  sk_skin* held = sk_scene_mesh_skin(sc, 0);
  ck_assert_ptr_nonnull(held);
  ck_assert_int_eq(sk_scene_weld(sc, &merged, NULL), SK_OK);
  ck_assert_uint_eq(merged, 4); /* corners 3, 4, 7 and 10 */
  ck_assert_uint_eq(sk_scene_mesh_vertex_count(sc, 0), 8);
  uint32_t got[12];
  ck_assert_uint_eq(sk_scene_mesh_indices(sc, 0, got, 12), 12);
  const uint32_t want[12] = {0, 1, 2, 2, 1, 3, 4, 1, 5, 6, 2, 7};
  for (int c = 0; c < 12; ++c) ck_assert_uint_eq(got[c], want[c]);
  float back[24];
  ck_assert_uint_eq(sk_scene_mesh_positions(sc, 0, back, 24), 24);
  for (int c = 0; c < 12; ++c)
    for (int k = 0; k < 3; ++k) ck_assert_float_eq(back[3 * got[c] + k], pos[3 * c + k]);
  ck_assert_uint_eq(sk_skin_vertex_count(held), 8); /* the handle is the scene's skin, now of 8 vertices */
  uint32_t j1[4];
  float w1[4];
  ck_assert_uint_eq(sk_skin_get_vertex(held, 4, j1, w1, 4), 1);
  ck_assert_uint_eq(j1[0], 1);
  /* nothing left to merge: a second call changes nothing */
  ck_assert_int_eq(sk_scene_weld(sc, &merged, NULL), SK_OK);
  ck_assert_uint_eq(merged, 0);
  sk_skin_destroy(skin);
  sk_scene_destroy(sc);
  sk_skeleton_destroy(skel);
}
END_TEST

/* The point an affine column-major matrix m takes to the origin (m^-1 applied to it): -R^-1 b by Cramer's rule. */
static void affine_preimage_of_origin(const float* m, float out[3]) {
  const double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
  const double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  const double r[3] = {-m[12], -m[13], -m[14]};
  out[0] = (float)((r[0] * (e * i - f * h) - b * (r[1] * i - f * r[2]) + c * (r[1] * h - e * r[2])) / det);
  out[1] = (float)((a * (r[1] * i - f * r[2]) - r[0] * (d * i - f * g) + c * (d * r[2] - r[1] * g)) / det);
  out[2] = (float)((a * (e * r[2] - r[1] * h) - b * (d * r[2] - r[1] * g) + r[0] * (d * h - e * g)) / det);
}

/* ABI 1.21 sk_scene_mesh_bind_world: refused arguments; none for a built scene's mesh or a glTF's; for
 * tests/data/walker_rig.fbx (saved at frame 1 of a walk, make_walker_rig.py) the body's node world, whose product with
 * the hips' inverse bind inverted is the hips' TransformLink (head at 30, 90, -20 cm in the file's frame), while the
 * hips' rest world is the saved pose, elsewhere. */
START_TEST(scene_mesh_bind_world) {
  float x[16];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_bind_world, NULL, 0, x);
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = skinned_scene(skel, skin);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_bind_world, sc, 0, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_bind_world, sc, 99, x);
  FAILS(SK_ERR_NOT_FOUND, sk_scene_mesh_bind_world, sc, 0, x);
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
  sk_scene* fbx = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/walker_rig.fbx", NULL, &fbx, NULL), SK_OK);
  uint32_t body = UINT32_MAX;
  for (uint32_t m = 0; m < sk_scene_mesh_count(fbx) && body == UINT32_MAX; ++m)
    if (sk_scene_mesh_skin(fbx, m) && sk_scene_mesh_node_name(fbx, m) &&
        !strcmp(sk_scene_mesh_node_name(fbx, m), "Body"))
      body = m;
  ck_assert_uint_ne(body, UINT32_MAX);
  ck_assert_int_eq(sk_scene_mesh_bind_world(fbx, body, x, NULL), SK_OK);
  const sk_skeleton* sk = sk_scene_skeleton(fbx);
  uint32_t hips = 0, n = sk_skeleton_joint_count(sk);
  ck_assert_int_eq(sk_skeleton_find_joint(sk, "hips", &hips), SK_OK);
  float* ib = malloc(16 * sizeof(float) * n);
  float* rest = malloc(16 * sizeof(float) * n);
  ck_assert_ptr_nonnull(ib);
  ck_assert_ptr_nonnull(rest);
  ck_assert_int_eq(sk_scene_mesh_inverse_binds(fbx, body, ib, NULL, NULL), SK_OK);
  ck_assert_int_eq(sk_skeleton_get_rest_world(sk, rest), SK_OK);
  float o[3], head[3];
  affine_preimage_of_origin(ib + 16 * hips, o); /* the hips' head in the mesh's space */
  for (int r = 0; r < 3; ++r) head[r] = x[r] * o[0] + x[4 + r] * o[1] + x[8 + r] * o[2] + x[12 + r];
  const float want[3] = {30.0f, 90.0f, -20.0f};
  float moved = 0.0f;
  for (int c = 0; c < 3; ++c) {
    ck_assert_msg(fabsf(head[c] - want[c]) < 1e-3f, "hips bind %g %g %g", (double)head[0], (double)head[1],
                  (double)head[2]);
    moved += fabsf(rest[16 * hips + 12 + c] - want[c]);
  }
  ck_assert_msg(moved > 5.0f, "the hips' rest is their bind: the file tests nothing");
  /* a new skin with the same inverse binds (`weights`) keeps the bind world; other inverse binds drop it */
  sk_skin* held = sk_scene_mesh_skin(fbx, body);
  ck_assert_int_eq(sk_scene_mesh_set_skin(fbx, body, held, ib, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_bind_world(fbx, body, x, NULL), SK_OK);
  ib[16 * hips + 12] += 1.0f;
  ck_assert_int_eq(sk_scene_mesh_set_skin(fbx, body, sk_scene_mesh_skin(fbx, body), ib, NULL), SK_OK);
  FAILS(SK_ERR_NOT_FOUND, sk_scene_mesh_bind_world, fbx, body, x);
  free(ib);
  free(rest);
  sk_scene_destroy(fbx);
  sk_scene* g = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/two_material_leg.glb", NULL, &g, NULL), SK_OK);
  FAILS(SK_ERR_NOT_FOUND, sk_scene_mesh_bind_world, g, 0, x);
  sk_scene_destroy(g);
}
END_TEST

/* inv = a^-1 for a column-major affine 4x4 a (3x3 part by its adjugate). */
static void affine_inverse(const float a[16], float inv[16]) {
  const double m[3][3] = {{a[0], a[4], a[8]}, {a[1], a[5], a[9]}, {a[2], a[6], a[10]}}; /* m[row][col] */
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  ck_assert(fabs(det) > 1e-12);
  double r[3][3];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      const int i1 = (k + 1) % 3, i2 = (k + 2) % 3, k1 = (i + 1) % 3, k2 = (i + 2) % 3;
      r[i][k] = (m[i1][k1] * m[i2][k2] - m[i1][k2] * m[i2][k1]) / det; /* cofactor (k, i) over det */
    }
  memset(inv, 0, 16 * sizeof *inv);
  for (int i = 0; i < 3; ++i) {
    double t = 0.0;
    for (int k = 0; k < 3; ++k) {
      inv[k * 4 + i] = (float)r[i][k];
      t -= r[i][k] * a[12 + k];
    }
    inv[12 + i] = (float)t;
  }
  inv[15] = 1.0f;
}

/* The mesh of node name `node` in sc, UINT32_MAX when there is none. */
static uint32_t mesh_of_node(const sk_scene* sc, const char* node) {
  for (uint32_t m = 0; m < sk_scene_mesh_count(sc); ++m)
    if (sk_scene_mesh_node_name(sc, m) && !strcmp(sk_scene_mesh_node_name(sc, m), node)) return m;
  return UINT32_MAX;
}

/* The largest |coordinate| of mesh m's vertices taken by inv(n) (in its node's own space). */
static float node_space_extent(const sk_scene* sc, uint32_t m, const float n[16]) {
  const size_t V = sk_scene_mesh_vertex_count(sc, m);
  float* p = malloc(V * 3 * sizeof *p);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(sk_scene_mesh_positions(sc, m, p, V * 3), V * 3);
  float inv[16];
  affine_inverse(n, inv);
  float most = 0.0f;
  for (size_t v = 0; v < V; ++v)
    for (int r = 0; r < 3; ++r) {
      const float* q = p + 3 * v;
      float x = inv[r] * q[0] + inv[4 + r] * q[1] + inv[8 + r] * q[2] + inv[12 + r];
      most = fmaxf(most, fabsf(x));
    }
  free(p);
  return most;
}

/* ABI 1.27 sk_scene_mesh_node_transform: refused arguments; the identity and no joint for a built scene's skinned
 * mesh; for tests/data/mover_rig.glb (make_mover_rig.py) the Crate's node (Blender's (2, 0.5, 0.25), glTF's
 * (2, 0.25, -0.5)) with its cube of size 0.5 around it, the Sword's node on joint "spine" with its cube of size 0.1
 * (scaled 1.08 by its parents) around it, the skinned Body the identity. Before, no such call: the placed transform
 * was out of the ABI's reach and Import via skinkit put every prop's origin at 0 0 0. */
START_TEST(scene_mesh_node_transform) {
  float x[16];
  int32_t j = 7;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_node_transform, NULL, 0, x, &j);
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = skinned_scene(skel, skin);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_node_transform, sc, 0, NULL, &j);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_node_transform, sc, 99, x, &j);
  ck_assert_int_eq(j, 7); /* untouched on failure */
  ck_assert_int_eq(sk_scene_mesh_node_transform(sc, 0, x, &j, NULL), SK_OK);
  ck_assert_int_eq(j, -1);
  for (int k = 0; k < 16; ++k) ck_assert_float_eq(x[k], k % 5 == 0 ? 1.0f : 0.0f);
  ck_assert_int_eq(sk_scene_mesh_node_transform(sc, 0, x, NULL, NULL), SK_OK); /* out_joint optional */
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);

  sk_scene* g = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/mover_rig.glb", NULL, &g, NULL), SK_OK);
  const uint32_t crate = mesh_of_node(g, "Crate"), sword = mesh_of_node(g, "Sword"), body = mesh_of_node(g, "Body");
  ck_assert(crate != UINT32_MAX && sword != UINT32_MAX && body != UINT32_MAX);
  ck_assert_int_eq(sk_scene_mesh_node_transform(g, crate, x, &j, NULL), SK_OK);
  ck_assert_int_eq(j, -1);
  const float at[3] = {2.0f, 0.25f, -0.5f};
  for (int c = 0; c < 3; ++c)
    ck_assert_msg(fabsf(x[12 + c] - at[c]) < 1e-4f, "Crate's origin %g %g %g", (double)x[12], (double)x[13],
                  (double)x[14]);
  float e = node_space_extent(g, crate, x);
  ck_assert_msg(fabsf(e - 0.25f) < 1e-4f, "Crate in its node's space: extent %g, not 0.25", (double)e);

  ck_assert_int_eq(sk_scene_mesh_node_transform(g, sword, x, &j, NULL), SK_OK);
  uint32_t spine = 0;
  ck_assert_int_eq(sk_skeleton_find_joint(sk_scene_skeleton(g), "spine", &spine), SK_OK);
  ck_assert_int_eq(j, (int32_t)spine);
  ck_assert_int_eq(sk_scene_mesh_rigid_joint(g, sword), (int32_t)spine);
  e = node_space_extent(g, sword, x);
  ck_assert_msg(fabsf(e - 0.05f) < 1e-4f, "Sword in its node's space: extent %g, not 0.05", (double)e);
  const float scale = sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  ck_assert_msg(fabsf(scale - 1.08f) < 1e-3f, "Sword's node scale %g, not 1.08", (double)scale);

  ck_assert_int_eq(sk_scene_mesh_node_transform(g, body, x, &j, NULL), SK_OK);
  ck_assert_int_eq(j, -1);
  for (int k = 0; k < 16; ++k) ck_assert_float_eq(x[k], k % 5 == 0 ? 1.0f : 0.0f);
  /* another skin (a bind to "root") puts the Sword's vertices in that skin's bind space: no node transform, joint */
  const size_t V = sk_scene_mesh_vertex_count(g, sword);
  uint32_t root = 0;
  ck_assert_int_eq(sk_skeleton_find_joint(sk_scene_skeleton(g), "root", &root), SK_OK);
  sk_skin* other = NULL;
  ck_assert_int_eq(sk_skin_create(V, sk_skeleton_joint_count(sk_scene_skeleton(g)), &other, NULL), SK_OK);
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* jt = malloc(V * sizeof *jt);
  float* wt = malloc(V * sizeof *wt);
  ck_assert(off && jt && wt);
  for (size_t v = 0; v <= V; ++v) off[v] = (uint32_t)v;
  for (size_t v = 0; v < V; ++v) jt[v] = root, wt[v] = 1.0f;
  ck_assert_int_eq(sk_skin_set_csr(other, off, jt, wt, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_skin(g, sword, other, NULL, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_node_transform(g, sword, x, &j, NULL), SK_OK);
  ck_assert_int_eq(j, -1);
  for (int k = 0; k < 16; ++k) ck_assert_float_eq(x[k], k % 5 == 0 ? 1.0f : 0.0f);
  free(off);
  free(jt);
  free(wt);
  sk_skin_destroy(other);
  sk_scene_destroy(g);
}
END_TEST

START_TEST(scene_mesh_morphs_set) {
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = skinned_scene(skel, skin);
  float pos[18], nrm[18], bad[18];
  shape_positions(0, pos);
  shape_positions(1, pos + 9);
  for (int i = 0; i < 18; ++i) nrm[i] = i % 3 == 2 ? 1.0f : 0.0f;
  const char* names[2] = {"Smile", NULL};
  const float weights[2] = {0.25f, 0.0f};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_morphs, NULL, 0, 2, names, weights, pos, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_morphs, sc, 1, 2, names, weights, pos, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_morphs, sc, 0, 4097, names, weights, pos, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_morphs, sc, 0, 2, names, weights, NULL, NULL);
  memcpy(bad, pos, sizeof bad);
  bad[13] = NAN;
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_morphs, sc, 0, 2, names, weights, bad, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_morphs, sc, 0, 2, names, weights, pos, bad);
  const float inf_weight[2] = {INFINITY, 0.0f};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_morphs, sc, 0, 2, names, inf_weight, pos, NULL);
  GETTER(0u, sk_scene_mesh_morph_count, sc, 0); /* nothing set by the refusals */
  /* ABI 1.17 blend shape keys (their rules: test_morph_keys.c): a scene without clips has none to key */
  const double key_t[1] = {0.0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_set_morph_keys, NULL, 0, 0, 1, key_t, weights);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_morph_keys, sc, 1, 0, 1, key_t, weights);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_set_morph_keys, sc, 0, 0, 1, key_t, weights);
  GETTER((size_t)0, sk_scene_mesh_morph_keys, NULL, 0, 0, NULL, NULL, 0);
  GETTER((size_t)0, sk_scene_mesh_morph_keys, sc, 1, 0, NULL, NULL, 0);
  GETTER((size_t)0, sk_scene_mesh_morph_keys, sc, 0, 0, NULL, NULL, 0);
  /* ABI 1.17 custom properties: refused without a node, a name, a known kind or its value; one added reads back */
  const double prop_v[3] = {1.0, 2.0, 3.0}, nan_v[3] = {NAN, 0.0, 0.0};
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_prop, NULL, "n", "k", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_prop, sc, "", "k", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_prop, sc, "n", NULL, SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_prop, sc, "n", "k", 9, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_prop, sc, "n", "k", SK_PROP_VEC3, nan_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_prop, sc, "n", "k", SK_PROP_STRING, NULL, NULL);
  GETTER(0u, sk_scene_prop_count, sc);
  GETTER(0u, sk_scene_prop_count, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_prop, sc, 0, NULL, NULL, NULL, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_prop, NULL, 0, NULL, NULL, NULL, NULL, NULL);
  ck_assert_int_eq(sk_scene_add_prop(sc, "Leg", "tint", SK_PROP_VEC3, prop_v, NULL, NULL), SK_OK);
  const char *p_node = NULL, *p_key = NULL, *p_text = NULL;
  int32_t p_kind = 0;
  double p_v[3];
  ck_assert_int_eq(sk_scene_prop(sc, 0, &p_node, &p_key, &p_kind, p_v, &p_text, NULL), SK_OK);
  ck_assert(!strcmp(p_node, "Leg") && !strcmp(p_key, "tint") && p_kind == SK_PROP_VEC3 && p_v[2] == 3.0 && !p_text);
  /* ABI 1.18 material custom properties: the same rules; one on the mesh's material comes back as its extras */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material_prop, NULL, "m", "k", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material_prop, sc, "", "k", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material_prop, sc, "m", "", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material_prop, sc, "m", "k", 0, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_material_prop, sc, "m", "k", SK_PROP_NUMBER, nan_v, NULL);
  GETTER(0u, sk_scene_material_prop_count, sc);
  GETTER(0u, sk_scene_material_prop_count, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_material_prop, sc, 0, NULL, NULL, NULL, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_material_prop, NULL, 0, NULL, NULL, NULL, NULL, NULL);
  sk_material_desc steel = untextured_material("Steel");
  uint32_t steel_i = 0;
  ck_assert_int_eq(sk_scene_add_material(sc, &steel, &steel_i, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_material(sc, 0, steel_i, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_add_material_prop(sc, "Steel", "shader_tag", SK_PROP_STRING, NULL, "metal", NULL), SK_OK);
  /* ABI 1.19 mesh custom properties: the same rules; one on the mesh (by its name) comes back as its extras */
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh_prop, NULL, "m", "k", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh_prop, sc, "", "k", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh_prop, sc, "m", "", SK_PROP_INT, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh_prop, sc, "m", "k", 0, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh_prop, sc, "m", "k", SK_PROP_STRING, prop_v, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_add_mesh_prop, sc, "m", "k", SK_PROP_NUMBER, nan_v, NULL);
  GETTER(0u, sk_scene_mesh_prop_count, sc);
  GETTER(0u, sk_scene_mesh_prop_count, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_mesh_prop, sc, 0, NULL, NULL, NULL, NULL, NULL);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_mesh_prop, NULL, 0, NULL, NULL, NULL, NULL, NULL);
  const char* mesh_name = sk_scene_mesh_name(sc, 0);
  ck_assert_ptr_nonnull(mesh_name);
  const double lod[1] = {2.0};
  ck_assert_int_eq(sk_scene_add_mesh_prop(sc, mesh_name, "lod_group", SK_PROP_INT, lod, NULL, NULL), SK_OK);
  GETTER(1u, sk_scene_mesh_prop_count, sc);
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 2, names, weights, pos, nrm, NULL), SK_OK);
  sk_scene* back = through_glb(sc, "morphs");
  GETTER(1u, sk_scene_material_prop_count, back);
  ck_assert_int_eq(sk_scene_material_prop(back, 0, &p_node, &p_key, &p_kind, p_v, &p_text, NULL), SK_OK);
  ck_assert(!strcmp(p_node, "Steel") && !strcmp(p_key, "shader_tag") && p_kind == SK_PROP_STRING && p_text &&
            !strcmp(p_text, "metal"));
  GETTER(1u, sk_scene_mesh_prop_count, back);
  ck_assert_int_eq(sk_scene_mesh_prop(back, 0, &p_node, &p_key, &p_kind, p_v, &p_text, NULL), SK_OK);
  ck_assert(!strcmp(p_node, sk_scene_mesh_name(back, 0)) && !strcmp(p_key, "lod_group") && p_kind == SK_PROP_INT &&
            p_v[0] == 2.0 && !p_text);
  sk_scene* scenes[2] = {sc, back};
  for (int k = 0; k < 2; ++k) {
    ck_assert_uint_eq(sk_scene_mesh_morph_count(scenes[k], 0), 2);
    ck_assert_str_eq(sk_scene_mesh_morph_name(scenes[k], 0, 0), "Smile");
    ck_assert_str_eq(sk_scene_mesh_morph_name(scenes[k], 0, 1), "shape1"); /* a NULL name */
    ck_assert_float_eq_tol(sk_scene_mesh_morph_weight(scenes[k], 0, 0), 0.25f, 1e-7f);
    for (uint32_t t = 0; t < 2; ++t) {
      float got[9];
      ck_assert_uint_eq(sk_scene_mesh_morph_positions(scenes[k], 0, t, got, 9), 9);
      for (int i = 0; i < 9; ++i) ck_assert_float_eq_tol(got[i], pos[t * 9 + i], 1e-6f);
    }
  }
  sk_scene_destroy(back);
  /* replaced by one, then removed */
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 1, NULL, NULL, pos + 9, NULL, NULL), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_morph_count(sc, 0), 1);
  ck_assert_str_eq(sk_scene_mesh_morph_name(sc, 0, 0), "shape0");
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 0, NULL, NULL, NULL, NULL, NULL), SK_OK);
  back = through_glb(sc, "no_morphs");
  ck_assert_uint_eq(sk_scene_mesh_morph_count(back, 0), 0);
  sk_scene_destroy(back);
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
  /* a glTF read from a file: its in-place editor would write the document's "Bulge" again */
  sk_scene* leg = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/shape_key_leg.glb", NULL, &leg, NULL), SK_OK);
  ck_assert_uint_eq(sk_scene_mesh_morph_count(leg, 0), 1);
  const size_t n = sk_scene_mesh_positions(leg, 0, NULL, 0);
  float* moved = malloc(n * sizeof *moved);
  ck_assert_ptr_nonnull(moved);
  sk_scene_mesh_positions(leg, 0, moved, n);
  for (size_t i = 2; i < n; i += 3) moved[i] += 0.5f;
  const char* lift[1] = {"Lift"};
  ck_assert_int_eq(sk_scene_mesh_set_morphs(leg, 0, 1, lift, NULL, moved, NULL, NULL), SK_OK);
  back = through_glb(leg, "leg");
  ck_assert_uint_eq(sk_scene_mesh_morph_count(back, 0), 1);
  ck_assert_str_eq(sk_scene_mesh_morph_name(back, 0, 0), "Lift");
  float* got = malloc(n * sizeof *got);
  ck_assert_ptr_nonnull(got);
  ck_assert_uint_eq(sk_scene_mesh_morph_positions(back, 0, 0, got, n), n);
  for (size_t i = 0; i < n; ++i) ck_assert_float_eq_tol(got[i], moved[i], 1e-5f);
  free(got);
  free(moved);
  sk_scene_destroy(back);
  sk_scene_destroy(leg);
}
END_TEST

/* The .glb written from fbx, read back by skinkit's glTF reader (a glTF document: its objects are listed from the
 * document, their clip keys read by the reader since session 42): every object's key times and its place at times
 * before, between and after the keys are the FBX's (through its frame; an empty's axes turned, glb_axes). */
static void check_clips_in_glb(const sk_scene* fbx) {
  sk_scene* g = through_glb(fbx, "object_clips");
  double unit = 0.0;
  int32_t axes[3];
  float to_gltf[16];
  ck_assert_int_eq(sk_scene_frame(fbx, &unit, axes, to_gltf), 1);
  uint32_t keyed = 0;
  for (uint32_t i = 0; i < sk_scene_object_count(fbx); ++i) {
    const char* name = sk_scene_object_name(fbx, i);
    uint32_t k = 0;
    while (k < sk_scene_object_count(g) && strcmp(sk_scene_object_name(g, k), name) != 0) ++k;
    ck_assert_msg(k < sk_scene_object_count(g), "%s not in the .glb", name);
    double ta[256], tb[256];
    size_t na = 0, nb = 0;
    ck_assert_int_eq(sk_scene_object_key_times(fbx, 0, i, ta, 256, &na, NULL), SK_OK);
    ck_assert_int_eq(sk_scene_object_key_times(g, 0, k, tb, 256, &nb, NULL), SK_OK);
    ck_assert_msg((na == 0) == (nb == 0), "%s: %zu keys, %zu in the .glb", name, na, nb);
    keyed += na > 0;
    if (na) ck_assert(fabs(ta[0] - tb[0]) < 1e-6 && fabs(ta[na - 1] - tb[nb - 1]) < 1e-6);
    static const double k_times[] = {0.0, 0.3, 0.77, 1.25, 1.6667, 3.0};
    for (size_t q = 0; q < sizeof k_times / sizeof *k_times; ++q) {
      float a0[16], a[16], b[16];
      skt_object_world_at(fbx, i, k_times[q], a0);
      glb_axes(sk_scene_object_kind(fbx, i), a0, a);
      skt_object_world_at(g, k, k_times[q], b);
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
          double w = 0.0;
          for (int m = 0; m < 4; ++m) w += (double)to_gltf[m * 4 + r] * a[c * 4 + m];
          ck_assert_msg(near_rel(w, b[c * 4 + r], 1e-4), "%s at %g s: [%d][%d] %g, .glb %g", name, k_times[q], r, c, w,
                        (double)b[c * 4 + r]);
        }
    }
  }
  ck_assert_uint_eq(keyed, 4);
  sk_scene_destroy(g);
}

/* sk_scene_object_key_times / sk_scene_object_sample on animated_objects.fbx: the keyed "Dolly" moves from its rest
 * transform (relative to parent_world) to its last key; "RigCam" (not keyed, under the Dolly) keeps its rest one. */
/* "Strings and borrowed handles stay valid until sk_scene_destroy": sk_scene_mesh_set_skin freed the skin
 * sk_scene_mesh_skin had handed out, and sk_scene_mesh_set_morphs the names sk_scene_mesh_morph_name had (an audit of
 * the C API: a use after free, a crash in release builds). The handle now holds the new weights; a name stays. */
START_TEST(scene_borrowed_handles_outlive_edits) {
  sk_skeleton* skel = make_skeleton();
  sk_skin* skin = make_skin();
  sk_scene* sc = skinned_scene(skel, skin);
  sk_skin* held = sk_scene_mesh_skin(sc, 0);
  sk_skin* other = NULL;
  ck_assert_int_eq(sk_skin_clone(held, &other, NULL), SK_OK);
  const uint32_t j1[1] = {1};
  const float w1[1] = {1.0f};
  ck_assert_int_eq(sk_skin_set_vertex(other, 0, j1, w1, 1, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_mesh_set_skin(sc, 0, other, NULL, NULL), SK_OK);
  sk_skin_destroy(other);
  ck_assert_ptr_eq(sk_scene_mesh_skin(sc, 0), held);
  uint32_t j = 9;
  float w = 0.0f;
  ck_assert_uint_eq(sk_skin_get_vertex(held, 0, &j, &w, 1), 1); /* the new weights, through the old handle */
  ck_assert(j == 1 && w == 1.0f);
  sk_normalize_desc nd = {.size = sizeof nd};
  ck_assert_int_eq(sk_weights_normalize(held, &nd, NULL, NULL), SK_OK);
  float pos[9] = {0};
  const char* smile[1] = {"Smile"};
  const char* frown[1] = {"Frown"};
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 1, smile, NULL, pos, NULL, NULL), SK_OK);
  const char* shown = sk_scene_mesh_morph_name(sc, 0, 0);
  pos[4] = 1.0f; /* the same shape, moved: the name keeps its string */
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 1, smile, NULL, pos, NULL, NULL), SK_OK);
  ck_assert_ptr_eq(sk_scene_mesh_morph_name(sc, 0, 0), shown);
  ck_assert_int_eq(sk_scene_mesh_set_morphs(sc, 0, 1, frown, NULL, pos, NULL, NULL), SK_OK);
  ck_assert_str_eq(shown, "Smile"); /* kept with the scene (ASan: no use after free) */
  ck_assert_str_eq(sk_scene_mesh_morph_name(sc, 0, 0), "Frown");
  sk_scene_destroy(sc);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
}
END_TEST

START_TEST(scene_object_clips) {
  sk_scene* s = NULL;
  ck_assert_int_eq(sk_scene_load(SK_SOURCE_DIR "/tests/data/animated_objects.fbx", NULL, &s, NULL), SK_OK);
  uint32_t dolly = 0, rig = 0;
  for (uint32_t i = 0; i < sk_scene_object_count(s); ++i) {
    if (!strcmp(sk_scene_object_name(s, i), "Dolly")) dolly = i;
    if (!strcmp(sk_scene_object_name(s, i), "RigCam")) rig = i;
  }
  size_t n = 7;
  double t[64];
  float m[16];
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_object_key_times, NULL, 0, dolly, t, 64, &n);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_object_key_times, s, 0, dolly, NULL, 64, &n);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_object_key_times, s, 1, dolly, t, 64, &n);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_object_key_times, s, 0, 99, t, 64, &n);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_object_sample, NULL, 0, dolly, 0.0, m);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_object_sample, s, 0, dolly, 0.0, NULL);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_object_sample, s, 1, dolly, 0.0, m);
  FAILS(SK_ERR_OUT_OF_RANGE, sk_scene_object_sample, s, 0, 99, 0.0, m);
  FAILS(SK_ERR_INVALID_ARGUMENT, sk_scene_object_sample, s, 0, dolly, NAN, m);
  ck_assert_uint_eq(n, 7);
  ck_assert_int_eq(sk_scene_object_key_times(s, 0, dolly, t, 64, &n, NULL), SK_OK);
  ck_assert_uint_ge(n, 2);
  ck_assert_int_eq(sk_scene_object_key_times(s, 0, rig, t + 32, 32, &n, NULL), SK_OK);
  ck_assert_uint_eq(n, 0);
  float first[16], last[16], still[16];
  ck_assert_int_eq(sk_scene_object_sample(s, 0, dolly, 0.0, first, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_object_sample(s, 0, dolly, 100.0, last, NULL), SK_OK); /* past the end: the last key */
  ck_assert_int_eq(sk_scene_object_sample(s, 0, rig, 1.0, still, NULL), SK_OK);    /* not keyed: its rest one */
  check_parent_times(s, dolly, first, "Dolly at its first key");
  check_parent_times(s, rig, still, "RigCam");
  double moved = 0.0;
  for (int k = 12; k < 15; ++k) moved = fmax(moved, fabs((double)last[k] - first[k]));
  ck_assert(moved > 0.5); /* 6 m along the path (in the file's centimetres) */
  check_clips_in_glb(s);
  sk_scene_destroy(s);
}
END_TEST

START_TEST(every_declared_function_has_error_path_checks) {
  /* run every check in this process so that the marks are recorded whatever Check's fork mode is */
  common_version_and_result_strings_fn(_i);
  skeleton_error_paths_fn(_i);
  skin_error_paths_fn(_i);
  deform_error_paths_fn(_i);
  scene_error_paths_fn(_i);
  weights_error_paths_fn(_i);
  skf_error_paths_fn(_i);
  bind_error_paths_fn(_i);
  scene_objects_added_fn(_i);
  scene_animation_added_fn(_i);
  scene_object_clips_fn(_i);
  scene_mesh_morphs_fn(_i);
  scene_mesh_morphs_set_fn(_i);
  scene_weld_fn(_i);
  scene_mesh_bind_world_fn(_i);
  scene_mesh_node_transform_fn(_i);
  static char names[256][64];
  int n = declared_functions(names, 256);
  ck_assert_int_gt(n, 80); /* the parser found the header's declarations */
  char missing[2048] = "";
  for (int i = 0; i < n; ++i) {
    int found = 0;
    for (int k = 0; k < g_checked_count && !found; ++k) found = !strcmp(names[i], g_checked[k]);
    if (!found && strlen(missing) + strlen(names[i]) + 2 < sizeof missing) {
      strcat(missing, " ");
      strcat(missing, names[i]);
    }
  }
  ck_assert_msg(missing[0] == '\0', "functions in skinkit.h without error-path checks in test_abi.c:%s", missing);
}
END_TEST

int main(void) {
  Suite* s = suite_create("abi");
  TCase* tc = tcase_create("error_paths");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, common_version_and_result_strings);
  tcase_add_test(tc, long_paths_leave_the_reason_whole);
  tcase_add_test(tc, skeleton_error_paths);
  tcase_add_test(tc, skin_error_paths);
  tcase_add_test(tc, deform_error_paths);
  tcase_add_test(tc, scene_error_paths);
  tcase_add_test(tc, weights_error_paths);
  tcase_add_test(tc, skf_error_paths);
  tcase_add_test(tc, bind_error_paths);
  tcase_add_test(tc, scene_objects_listed);
  tcase_add_test(tc, scene_objects_added);
  tcase_add_test(tc, scene_save_notes_whole);
  tcase_add_test(tc, scene_animation_added);
  tcase_add_test(tc, scene_object_clips);
  tcase_add_test(tc, scene_borrowed_handles_outlive_edits);
  tcase_add_test(tc, gltf_writer_normalizes_normals);
  tcase_add_test(tc, scene_mesh_morphs);
  tcase_add_test(tc, scene_mesh_morphs_set);
  tcase_add_test(tc, scene_weld);
  tcase_add_test(tc, scene_mesh_bind_world);
  tcase_add_test(tc, scene_mesh_node_transform);
  tcase_add_test(tc, every_declared_function_has_error_path_checks);
  suite_add_tcase(s, tc);
  return skt_run_suite(s);
}
