/* sk_scenetest.c - see sk_scenetest.h. */
#include "sk_scenetest.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sk_testutil.h"
#include "skc_math.h"

skio_scene* skt_scene_load(const char* path) {
  skio_scene* s = NULL;
  skc_err err = {0};
  ck_assert_msg(skio_scene_import(path, NULL, &s, &err) == SKC_OK, "%s: %s", path, err.message);
  return s;
}

char* skt_slurp(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* b = malloc((size_t)size + 1);
  ck_assert_uint_eq(fread(b, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  b[size] = 0;
  *n = (size_t)size;
  return b;
}

const char* skt_scene_save(const skio_scene* s, const char* dir, const char* name, char* path, size_t path_size) {
  static char note[1024];
  snprintf(path, path_size, "%s/%s", dir, name);
  skio_export_options o = {0};
  o.note = note;
  o.note_size = sizeof note;
  skc_err err = {0};
  ck_assert_msg(skio_scene_export(s, path, &o, &err) == SKC_OK, "%s: %s", path, err.message);
  return note;
}

int32_t skt_scene_joint(const skio_scene* s, const char* name) {
  for (uint32_t j = 0; j < s->skeleton->joint_count; ++j)
    if (!strcmp(s->skeleton->names[j], name)) return (int32_t)j;
  ck_abort_msg("no joint %s", name);
  return -1;
}

uint32_t skt_row_upper_lower(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                             uint32_t* oj, float* ow) {
  (void)p, (void)j, (void)w, (void)n;
  oj[0] = (uint32_t)skt_scene_joint(s, "upper"), ow[0] = 0.5f;
  oj[1] = (uint32_t)skt_scene_joint(s, "lower"), ow[1] = 0.5f;
  return 2;
}

uint32_t skt_row_perturb(const skio_scene* s, const float* p, const uint32_t* j, const float* w, uint32_t n,
                         uint32_t* oj, float* ow) {
  (void)s;
  uint32_t bits[3];
  memcpy(bits, p, sizeof bits);
  double sum = 0.0;
  for (uint32_t k = 0; k < n; ++k) {
    skt_rng r = {(uint64_t)bits[0] * 73856093u ^ (uint64_t)bits[1] * 19349663u ^ (uint64_t)bits[2] * 83492791u ^ j[k]};
    sum += ow[k] = w[k] * skt_rand_range(&r, 0.5f, 1.5f);
    oj[k] = j[k];
  }
  for (uint32_t k = 0; k < n; ++k) ow[k] = (float)(ow[k] / sum);
  return n;
}

void skt_scene_written_unchanged(const char* src, const char* dir, const char* name) {
  skio_scene* s = skt_scene_load(src);
  char out[512];
  const char* note = skt_scene_save(s, dir, name, out, sizeof out);
  size_t na, nb;
  char *a = skt_slurp(src, &na), *b = skt_slurp(out, &nb);
  ck_assert_msg(na == nb && !memcmp(a, b, na), "%s: written differently (%zu -> %zu bytes; note: %s)", src, na, nb,
                note);
  free(a);
  free(b);
  skio_scene_destroy(s);
}

void skt_scene_rewrite_skin(skio_scene* s, uint32_t m, skt_row_fn fn) {
  skc_skin* k = s->meshes[m].skin;
  size_t V = k->vertex_count;
  uint32_t* off = malloc((V + 1) * sizeof *off);
  uint32_t* jt = malloc((V * 8 + 1) * sizeof *jt);
  float* wt = malloc((V * 8 + 1) * sizeof *wt);
  off[0] = 0;
  for (size_t v = 0; v < V; ++v) {
    uint32_t b = k->offsets[v], n = k->offsets[v + 1] - b;
    const float* p = s->meshes[m].positions + 3 * v;
    off[v + 1] = off[v] + fn(s, p, k->joints + b, k->weights + b, n, jt + off[v], wt + off[v]);
  }
  skc_err err = {0};
  ck_assert_int_eq(skc_skin_set(k, off, jt, wt, &err), SKC_OK);
  free(off);
  free(jt);
  free(wt);
}

void skt_scene_same_skins(const skio_scene* a, const skio_scene* b) {
  ck_assert_uint_eq(a->mesh_count, b->mesh_count);
  for (uint32_t m = 0; m < a->mesh_count; ++m) {
    const skc_skin *x = a->meshes[m].skin, *y = b->meshes[m].skin;
    if (!x || a->meshes[m].rigid_joint >= 0) continue;
    ck_assert_ptr_nonnull(y);
    ck_assert_uint_eq(x->vertex_count, y->vertex_count);
    for (size_t v = 0; v < x->vertex_count; ++v) {
      uint32_t n = x->offsets[v + 1] - x->offsets[v];
      ck_assert_uint_eq(n, y->offsets[v + 1] - y->offsets[v]);
      for (uint32_t e = 0; e < n; ++e) { /* the readers list a vertex's influences in the file's order */
        uint32_t q = x->offsets[v] + e;
        const char* name = a->skeleton->names[x->joints[q]];
        bool found = false;
        for (uint32_t f = y->offsets[v]; f < y->offsets[v + 1]; ++f)
          found |= !strcmp(b->skeleton->names[y->joints[f]], name) && y->weights[f] == x->weights[q];
        ck_assert_msg(found, "mesh %u vertex %zu: %s %g not read back", m, v, name, (double)x->weights[q]);
      }
    }
  }
}

void skt_scene_skinned_rest(const skio_scene* s, uint32_t m, size_t v, float out[3]) {
  const skio_mesh* me = &s->meshes[m];
  out[0] = out[1] = out[2] = 0.0f;
  for (uint32_t q = me->skin->offsets[v]; q < me->skin->offsets[v + 1]; ++q) {
    float x[16], p[3];
    const uint32_t j = me->skin->joints[q];
    skc_mat4_mul(s->skeleton->rest_world + 16 * (size_t)j, me->inverse_bind + 16 * (size_t)j, x);
    skc_mat4_transform_point(x, me->positions + 3 * v, p);
    for (int k = 0; k < 3; ++k) out[k] += me->skin->weights[q] * p[k];
  }
}

void skt_object_world_at(const sk_scene* s, uint32_t i, double t, float out[16]) {
  sk_object_info o = {.size = sizeof o};
  float local[16];
  ck_assert_int_eq(sk_scene_object_info(s, i, &o, NULL), SK_OK);
  ck_assert_int_eq(sk_scene_object_sample(s, 0, i, t, local, NULL), SK_OK);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) {
      double w = 0.0;
      for (int k = 0; k < 4; ++k) w += (double)o.parent_world[k * 4 + r] * local[c * 4 + k];
      out[c * 4 + r] = (float)w;
    }
}
