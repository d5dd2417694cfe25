/* scene_dae_edit.c - a scene read from a Collada file written back as an edit of that file (skio_dae_edit.h): the
 * skinned meshes' weights as the writers would write them (skio_export_weights), the file re-read and checked to be
 * the one the scene came from (skio_read_source), and nothing of the scene changed but weights. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_atomic.h"
#include "skio_dae_edit.h"
#include "skio_scene.h"

static void edits_free(skio_dae_mesh_edit* e, uint32_t n) {
  for (uint32_t i = 0; e && i < n; ++i) {
    free((void*)e[i].offsets);
    free((void*)e[i].joints);
    free((void*)e[i].weights);
  }
  free(e);
}

/* Every mesh of the scene, in order: its node, positions (and where the reader placed a mesh without a skin) and -
 * when skinned, and not the reader's rigid skin of an attachment the file holds as it is - the weights the writers
 * would write. */
static int collect(const skio_scene* s, const skio_export_options* o, skio_dae_mesh_edit** out, skc_err* err) {
  skio_dae_mesh_edit* e = calloc(s->mesh_count + 1, sizeof *e);
  if (!e) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t i = 0; i < s->mesh_count; ++i) {
    const skio_mesh* m = &s->meshes[i];
    e[i] = (skio_dae_mesh_edit){m->node_name,
                                m->vertex_count,
                                m->positions,
                                NULL,
                                NULL,
                                NULL,
                                m->placed_set ? m->placed : NULL,
                                m->inverse_bind,
                                NULL,
                                NULL,
                                NULL};
    const skc_skin* r = m->read_skin;
    if (r && r->vertex_count == m->vertex_count)
      e[i].read_offsets = r->offsets, e[i].read_joints = r->joints, e[i].read_weights = r->weights;
    if (!m->skin || skio_mesh_still_rigid(m)) continue;
    uint32_t *off, *jt;
    float* w;
    int rc = skio_export_weights(m, o, o->limit, &off, &jt, &w, err);
    if (rc) {
      edits_free(e, i);
      return rc;
    }
    e[i].offsets = off, e[i].joints = jt, e[i].weights = w;
  }
  *out = e;
  return SKC_OK;
}

static void note_split(const skio_dae_edit_report* r, const skio_export_options* o) {
  if (!r->split_points || !o->note || !o->note_size) return;
  size_t n = strlen(o->note);
  snprintf(o->note + n, o->note_size - n,
           "%s%zu positions had different weights at different corners (the file holds one weight a position); "
           "each took its first corner's",
           n ? "; " : "", r->split_points);
}

int skio_scene_dae_edit(const skio_scene* s, const char* path, const skio_export_options* o, char* why,
                        size_t why_size, skc_err* err) {
  int check = skio_scene_edit_check(s, SKIO_SOURCE_COLLADA, path, why, why_size, err);
  _Static_assert(SKIO_DAE_EDIT_CANNOT == -1, "skio_scene_edit_check refuses with -1");
  if (check) return check;
  if (!s->skeleton) return skio_scene_write_source(s, path, why, why_size, err); /* no skin: nothing to edit */
  skio_dae_mesh_edit* e = NULL;
  uint8_t* src = NULL;
  char* out = NULL;
  size_t n = 0, out_n = 0;
  skio_dae_edit_report rep;
  int rc = collect(s, o, &e, err);
  if (!rc) rc = skio_read_source(s->source, &s->source_file, &src, &n, why, why_size, err);
  if (!rc)
    rc = skio_dae_edit((const char*)src, n, e, s->mesh_count, (const char* const*)s->skeleton->names, s->skeleton->bind,
                       s->skeleton->joint_count, &out, &out_n, &rep, why, why_size, err);
  if (!rc) rc = skio_atomic_write(path, out, out_n, err);
  if (!rc) note_split(&rep, o);
  free(src);
  free(out);
  edits_free(e, s->mesh_count);
  return rc;
}
