/* consumer.c - a tiny program built against the *installed* skinkit package (find_package and pkg-config).
 * It deforms one vertex by a translated joint and checks the result, so a broken install fails loudly. */
#include <skinkit.h>
#include <stdio.h>

int main(void) {
  if (sk_abi_major() != SK_ABI_MAJOR) {
    fprintf(stderr, "ABI major mismatch: header %d, library %u\n", SK_ABI_MAJOR, sk_abi_major());
    return 1;
  }
  int32_t parent = SK_NO_PARENT;
  const char* name = "root";
  sk_skeleton_desc d = {sizeof d, 1, &name, &parent, NULL, NULL, NULL, NULL};
  sk_skeleton* skel = NULL;
  sk_error err;
  if (sk_skeleton_create(&d, &skel, &err) != SK_OK) {
    fprintf(stderr, "sk_skeleton_create: %s\n", err.message);
    return 1;
  }
  float trs[10] = {1, 2, 3, 0, 0, 0, 1, 1, 1, 1};
  float palette[16];
  if (sk_skeleton_palette_from_trs(skel, trs, NULL, palette, &err) != SK_OK) return 1;
  float p[3] = {0.5f, 0.0f, 0.0f}, q[3] = {0};
  uint16_t j = 0;
  float w = 1.0f;
  sk_deform_job job = {0};
  job.size = sizeof job;
  job.method = SK_DEFORM_LBS;
  job.vertex_count = 1;
  job.palette = palette;
  job.joint_count = 1;
  job.influences = 1;
  job.joint_type = SK_TYPE_U16;
  job.weight_type = SK_TYPE_F32;
  job.joints = &j;
  job.weights = &w;
  job.in_positions = p;
  job.out_positions = q;
  if (sk_deform_run(&job, &err) != SK_OK) {
    fprintf(stderr, "sk_deform_run: %s\n", err.message);
    return 1;
  }
  sk_skeleton_destroy(skel);
  if (q[0] != 1.5f || q[1] != 2.0f || q[2] != 3.0f) {
    fprintf(stderr, "wrong result %g %g %g\n", q[0], q[1], q[2]);
    return 1;
  }
  printf("installed skinkit %s works (ABI %u.%u)\n", sk_version_string(), sk_abi_major(), sk_abi_minor());
  return 0;
}
