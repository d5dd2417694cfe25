/* scene.c - lifetime of skio_scene and the Assimp matrix layout conversion. */
#include "skio_scene.h"

#include <stdlib.h>

void skio_mat_from_ai(const float* ai, float out[16]) {
  /* ai is row-major: ai[row * 4 + col]. We store m[col * 4 + row]. */
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[c * 4 + r] = ai[r * 4 + c];
}

void skio_mat_to_ai(const float m[16], float* ai) {
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) ai[r * 4 + c] = m[c * 4 + r];
}

void skio_mesh_free(skio_mesh* m) {
  free(m->name);
  free(m->positions);
  free(m->normals);
  free(m->tangents);
  free(m->uv0);
  free(m->indices);
  skc_skin_destroy(m->skin);
  free(m->inverse_bind);
  free(m->bound);
}

void skio_anim_free(skio_anim* a) {
  free(a->name);
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    skio_channel* ch = &a->channels[c];
    free(ch->pos_time);
    free(ch->rot_time);
    free(ch->scl_time);
    free(ch->pos);
    free(ch->rot);
    free(ch->scl);
  }
  free(a->channels);
}

void skio_scene_destroy(skio_scene* s) {
  if (!s) return;
  for (uint32_t m = 0; m < s->mesh_count; ++m) skio_mesh_free(&s->meshes[m]);
  free(s->meshes);
  for (uint32_t a = 0; a < s->anim_count; ++a) skio_anim_free(&s->anims[a]);
  free(s->anims);
  skc_skeleton_destroy(s->skeleton);
  free(s->source);
  free(s->no_skin_reason);
  free(s);
}

int skio_scene_require_skin(const skio_scene* s, skc_err* err) {
  if (!s) return skc_fail(err, SKC_INVALID_ARGUMENT, "scene must not be NULL");
  if (s->skeleton)
    for (uint32_t m = 0; m < s->mesh_count; ++m)
      if (s->meshes[m].skin) return SKC_OK;
  return skc_fail(err, SKC_NO_SKIN, "%s: no skin (%u meshes, none with bones)%s%s", s->source ? s->source : "scene",
                  s->mesh_count, s->no_skin_reason ? ": " : "", s->no_skin_reason ? s->no_skin_reason : "");
}
