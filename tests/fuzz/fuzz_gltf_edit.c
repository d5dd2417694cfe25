/* fuzz_gltf_edit.c - libFuzzer target for the glTF in-place editor (io/gltf_edit.c): a document skinkit's reader
 * accepts (read from memory: a .glb, or a .gltf whose buffers and images are data: URIs), its skins changed as the
 * first byte says, written back as .glb and as .gltf into a private folder that is emptied after every input. This
 * runs the JSON splices, in-place overwrites, accessor sharing between primitives, a .gltf's buffers packed into a
 * BIN chunk with its images embedded, the .glb -> .gltf chunk and the merged primitives of io/gltf_import.c on
 * hostile documents: every call must return a code, never crash or read out of bounds.
 * First byte: bits 0-1 the skin change (0 none, 1 even vertices' weights halved, 2 every vertex one joint, 3 a
 * second set: up to 6 influences), bits 2-3 the weight type written (source, float, u8, u16), bit 4 the default
 * limit (raised to what each source primitive holds, 4 per JOINTS_n set) instead of 4, bit 5 a bone link on joint 0
 * first (a joint without a node: appended to the nodes and skins, skio_gltf_added_joints). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skio_gltf_doc.h"
#include "skc_links.h"
#include "skio_gltf_edit.h"
#include "skio_gltf_import.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char g_dir[64];

static void remove_dir(void) { rmdir(g_dir); }

static void empty_dir(void) {
  DIR* d = opendir(g_dir);
  struct dirent* e;
  char p[400];
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
    unlink(p);
  }
  if (d) closedir(d);
}

/* Joint 0 gets one bone link (skc_bone_links, skio_scene_relink), which the document has no node for: the editor
 * appends it as a node and to the skins whose weights name it (skio_gltf_added_joints). */
static void link_first_joint(skio_scene* s) {
  if (!s->skeleton || !s->skeleton->joint_count) return;
  const uint32_t j0 = 0;
  skc_links_params p = {0};
  p.joints = &j0;
  p.joint_list_count = 1;
  p.links = 1;
  p.threshold = 60.0f;
  skc_skeleton* linked = NULL;
  if (skc_bone_links(s->skeleton, NULL, NULL, &p, &linked, NULL, NULL, NULL) != SKC_OK) return;
  (void)skio_scene_relink(s, linked, NULL);
  skc_skeleton_destroy(linked);
}

/* Rewrites every skinned mesh's weights by mode (see the header). */
static void change_skins(skio_scene* s, unsigned mode) {
  for (uint32_t m = 0; m < s->mesh_count && mode; ++m) {
    skc_skin* k = s->meshes[m].skin;
    if (!k || !s->skeleton) continue;
    const uint32_t jc = k->joint_count;
    for (size_t v = 0; v < k->vertex_count; ++v) {
      uint32_t j[6] = {0, 1 % jc, 2 % jc, 3 % jc, 4 % jc, 5 % jc};
      float w[6] = {0.3f, 0.2f, 0.2f, 0.1f, 0.1f, 0.1f};
      if (mode == 1 && (v & 1)) continue;
      if (mode == 1) {
        for (uint32_t e = k->offsets[v]; e < k->offsets[v + 1]; ++e) k->weights[e] *= 0.5f;
        continue;
      }
      skc_skin_set_vertex(k, v, j, w, mode == 2 ? 1 : (jc >= 6 ? 6 : 1), NULL);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  if (!g_dir[0]) {
    snprintf(g_dir, sizeof g_dir, "/tmp/skinkit-fuzz-edit-XXXXXX");
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
  }
  skio_gltf_doc* d = NULL;
  if (skio_gltf_doc_parse(data + 1, size - 1, NULL, &d, NULL)) return 0;
  skio_scene* s = NULL;
  if (skio_gltf_import_doc(d, SKIO_GLTF_NODES_BARE | SKIO_GLTF_NODES_ANIMATED, NULL, &s, NULL))
    return 0; /* the importer owns d either way (read as `convert` reads it) */
  if ((data[0] >> 5) & 1u) link_first_joint(s);
  change_skins(s, data[0] & 3u);
  skio_gltf_options w = {0};
  w.limit = 4;
  w.limit_to_source = (data[0] >> 4) & 1u;
  skio_gltf_edit_options eo = {.weights_type = (skio_weights_type)((data[0] >> 2) & 3u), .replace_files = true};
  char path[128], why[200];
  for (int binary = 0; binary < 2; ++binary) {
    snprintf(path, sizeof path, "%s/out.%s", g_dir, binary ? "glb" : "gltf");
    (void)skio_gltf_edit_scene(s, path, binary, &w, &eo, why, sizeof why, NULL);
  }
  skio_scene_destroy(s);
  empty_dir();
  return 0;
}
