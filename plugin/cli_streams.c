/* cli_streams.c - the optional vertex streams of a mesh (normals, tangents, both texture coordinate sets, vertex
 * colours) and its node name copied out of one scene and handed to sk_scene_add_mesh of another, for the commands
 * that rebuild a scene (bind with meshes that had no skin, weights --link): a rebuilt mesh keeps every stream the
 * source had and the name of its object. */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"

typedef size_t (*stream_get)(const sk_scene*, uint32_t, float*, size_t);
static const stream_get k_get[CLI_STREAMS] = {sk_scene_mesh_normals, sk_scene_mesh_tangents, sk_scene_mesh_uv0,
                                              sk_scene_mesh_uv1, sk_scene_mesh_colors};

int cli_streams_read(const sk_scene* s, uint32_t m, cli_streams* out) {
  memset(out, 0, sizeof *out);
  out->node_name = sk_scene_mesh_node_name(s, m);
  for (int k = 0; k < CLI_STREAMS; ++k) {
    size_t n = k_get[k](s, m, NULL, 0);
    if (!n) continue;
    if (!(out->data[k] = malloc(n * sizeof(float)))) {
      cli_streams_free(out);
      return 1;
    }
    k_get[k](s, m, out->data[k], n);
  }
  return 0;
}

void cli_streams_free(cli_streams* st) {
  for (int k = 0; k < CLI_STREAMS; ++k) free(st->data[k]);
  memset(st, 0, sizeof *st);
}

void cli_streams_desc(const cli_streams* st, sk_mesh_desc* d) {
  d->normals = st->data[0];
  d->tangents = st->data[1];
  d->uv0 = st->data[2];
  d->uv1 = st->data[3];
  d->colors = st->data[4];
  d->node_name = st->node_name;
}
