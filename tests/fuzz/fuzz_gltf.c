/* fuzz_gltf.c - libFuzzer target: the native glTF reader in process: the document layer (io/gltf_doc.c,
 * io/gltf_accessor.c, io/gltf_draco.c) and the importer (io/gltf_import.c). The input is a .glb or .gltf as is
 * (external URIs refused: no base directory); every accessor is read as floats and, for integer types, as unsigned
 * integers (buffer views, strides, sparse substitution, the meshopt and Draco decoders), then the importer builds a
 * scene from the document (skeleton, skins, placement, animations); every node's skin goes through validate's
 * joint-hierarchy check (io/gltf_validate.c), every skinned mesh through validate's checks of the file's own
 * JOINTS_n / WEIGHTS_n (io/scene_validate.c, the influence format included), and the scene's objects are listed
 * (io/scene_listing.c). Every call must return a code, never crash or read out of bounds. */
#include <stdint.h>
#include <stdlib.h>

#include "skio_gltf_doc.h"
#include "skio_gltf_import.h"
#include "skio_gltf_validate.h"
#include "skio_scene.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void read_accessor(skio_gltf_doc* d, uint32_t i) {
  skio_gltf_accessor a;
  if (skio_gltf_accessor_info(d, i, &a, NULL) || a.count > (1u << 20)) return;
  float* f = malloc(a.count * a.components * sizeof *f);
  uint32_t* u = malloc(a.count * a.components * sizeof *u);
  if (f) skio_gltf_accessor_floats(d, i, f, NULL);
  if (f) skio_gltf_accessor_weights(d, i, f, NULL);
  if (u) skio_gltf_accessor_uints(d, i, u, NULL);
  free(f);
  free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  skio_gltf_doc* d = NULL;
  if (skio_gltf_doc_parse(data, size, NULL, &d, NULL)) return 0;
  for (uint32_t i = 0; i < d->accessor_count && i < 64; ++i) read_accessor(d, i);
  for (uint32_t i = 0; i < d->node_count && i < 64; ++i) {
    int n = skio_gltf_item(d, "nodes", i);
    float m[16];
    skio_json_floats(d, skio_json_get(d, n, "matrix"), m, 16);
    free(skio_json_strdup(d, skio_json_get(d, n, "name")));
    (void)skio_gltf_skin_structure(d, i);
  }
  skio_scene* s = NULL;
  /* as `convert` reads it: a document without skins takes its skeleton from the nodes; keyed mesh nodes are joints */
  if (skio_gltf_import_doc(d, SKIO_GLTF_NODES_BARE | SKIO_GLTF_NODES_ANIMATED, NULL, &s, NULL) != SKC_OK)
    return 0;                      /* owns d either way */
  skio_listed_object* objs = NULL; /* the cameras, lights and empty nodes `info` lists, from the document */
  uint32_t nobj = 0;
  if (skio_scene_list_objects(s, &objs, &nobj, NULL) == SKC_OK) skio_listed_objects_free(objs, nobj);
  for (uint32_t m = 0; m < s->mesh_count && m < 64; ++m) { /* `validate`, exact tolerance, 4 influences */
    skio_mesh_report r;
    if (s->meshes[m].skin) (void)skio_mesh_validate(s, m, 1e-7f, 4, &r, NULL);
  }
  skio_scene_destroy(s);
  return 0;
}
