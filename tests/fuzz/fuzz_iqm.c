/* fuzz_iqm.c - libFuzzer target for the IQM reader of our own (io/iqm.c), in process: the input is the file's
 * bytes (skio_iqm_load_memory). A scene that loads is validated mesh by mesh and every animation sampled at its
 * start, middle and end, so the counts and offsets the reader accepted are used the way the CLI uses them.
 * Seeds: tests/fuzz/seeds-fuzz_iqm/ (tests/fuzz/make_seeds.py: the 3-joint model of tests/unit/test_iqm.c) and
 * the corpus .iqm files (scripts/fuzz.sh). */
#include <stdint.h>
#include <stdlib.h>

#include "skio_iqm.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void use_scene(const skio_scene* s) {
  for (uint32_t m = 0; m < s->mesh_count; ++m) {
    if (!s->meshes[m].skin) continue;
    skio_mesh_report r;
    skio_mesh_validate(s, m, 0.0f, 4, &r, NULL);
  }
  if (!s->skeleton) return;
  skc_trs* pose = malloc((size_t)s->skeleton->joint_count * sizeof *pose);
  if (!pose) return;
  for (uint32_t a = 0; a < s->anim_count; ++a)
    for (int k = 0; k < 3; ++k) skio_anim_sample(s, a, s->anims[a].duration * k / 2.0, pose, NULL);
  free(pose);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  skio_scene* s = NULL;
  skc_err err = {0};
  if (skio_iqm_load_memory(data, size, "fuzz.iqm", &s, &err) == SKC_OK) {
    use_scene(s);
    skio_scene_destroy(s);
  }
  return 0;
}
