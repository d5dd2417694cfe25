/* sk_hardcases.c - generated binding cases with reference weights (issue 17), written as .glb files:
 *  - multipart.glb: one mesh of interpenetrating parts, as characters are built: a 3-bone arm (the sample
 *    cylinder, radius 0.25, length 3, joints at x = 0, 1, 2), a closed sleeve 28 % wider over the elbow
 *    (x 0.5 .. 1.5) and a small eye half sunk into the surface near the end. Reference weights are what a rigger
 *    gives them: the arm its linear ramps, every sleeve vertex the weights of the nearest arm vertex (a weight
 *    transfer from the body), the eye rigid on the last bone.
 *  - outside.glb: the sample cylinder with its weights, whose skeleton sits 3 radii beside it (a wrong armature
 *    or offset import): the fit check must flag it; the reference weights are the cylinder's own.
 * Only the public header is used. */
#include "sk_hardcases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen_mesh {
  size_t nv, nt;
  float *pos, *nrm;
  uint32_t* tri;
  uint32_t *off, *jnt;
  float* wgt;
} gen_mesh;

static void gen_free(gen_mesh* m) {
  free(m->pos), free(m->nrm), free(m->tri), free(m->off), free(m->jnt), free(m->wgt);
  memset(m, 0, sizeof *m);
}

/* The library's cylinder (along +X from 0) moved by (dx, dy, dz), with its CSR weights. */
static int cylinder(uint32_t seg, uint32_t rings, uint32_t bones, float r, float len, const float d[3], gen_mesh* m,
                    sk_error* err) {
  memset(m, 0, sizeof *m);
  sk_cylinder_desc cd = {sizeof cd, seg, rings, bones, r, len, 0.25f, 0};
  sk_skin* skin = NULL;
  if (sk_mesh_cylinder(&cd, &m->nv, &m->nt, NULL, NULL, NULL, NULL, err)) return 1;
  m->pos = malloc(m->nv * 3 * sizeof *m->pos);
  m->nrm = malloc(m->nv * 3 * sizeof *m->nrm);
  m->tri = malloc(m->nt * 3 * sizeof *m->tri);
  m->off = malloc((m->nv + 1) * sizeof *m->off);
  int rc = !m->pos || !m->nrm || !m->tri || !m->off || sk_skin_create(m->nv, bones, &skin, err) ||
           sk_mesh_cylinder(&cd, NULL, NULL, m->pos, m->nrm, m->tri, skin, err);
  if (!rc) {
    size_t ni = sk_skin_influence_count(skin);
    m->jnt = malloc((ni ? ni : 1) * sizeof *m->jnt);
    m->wgt = malloc((ni ? ni : 1) * sizeof *m->wgt);
    rc = !m->jnt || !m->wgt || sk_skin_get_csr(skin, m->off, m->jnt, m->wgt, err);
  }
  sk_skin_destroy(skin);
  for (size_t v = 0; !rc && v < m->nv; ++v)
    for (int k = 0; k < 3; ++k) m->pos[3 * v + k] += d[k];
  if (rc) gen_free(m);
  return rc;
}

/* Nearest vertex of body to point p (brute force: the cases are small). */
static size_t nearest(const gen_mesh* body, const float* p) {
  size_t best = 0;
  double bd = INFINITY;
  for (size_t v = 0; v < body->nv; ++v) {
    double e = 0.0;
    for (int k = 0; k < 3; ++k) e += ((double)body->pos[3 * v + k] - p[k]) * ((double)body->pos[3 * v + k] - p[k]);
    if (e < bd) bd = e, best = v;
  }
  return best;
}

/* Appends part's geometry to out with weights by mode: 0 the part's own, 1 the nearest body vertex's, 2 rigid on
 * joint `rigid`. */
static int append(gen_mesh* out, const gen_mesh* part, const gen_mesh* body, int mode, uint32_t rigid) {
  size_t nv = out->nv + part->nv, nt = out->nt + part->nt, ne = out->nv ? out->off[out->nv] : 0;
  for (size_t v = 0; v < part->nv; ++v) {
    const gen_mesh* src = mode == 1 ? body : part;
    size_t s = mode == 1 ? nearest(body, part->pos + 3 * v) : v;
    ne += mode == 2 ? 1 : src->off[s + 1] - src->off[s];
  }
  float* pos = realloc(out->pos, nv * 3 * sizeof *pos);
  if (pos) out->pos = pos;
  float* nrm = realloc(out->nrm, nv * 3 * sizeof *nrm);
  if (nrm) out->nrm = nrm;
  uint32_t* tri = realloc(out->tri, nt * 3 * sizeof *tri);
  if (tri) out->tri = tri;
  uint32_t* off = realloc(out->off, (nv + 1) * sizeof *off);
  if (off) out->off = off;
  uint32_t* jnt = realloc(out->jnt, (ne ? ne : 1) * sizeof *jnt);
  if (jnt) out->jnt = jnt;
  float* wgt = realloc(out->wgt, (ne ? ne : 1) * sizeof *wgt);
  if (wgt) out->wgt = wgt;
  if (!pos || !nrm || !tri || !off || !jnt || !wgt) return 1;
  memcpy(out->pos + 3 * out->nv, part->pos, part->nv * 3 * sizeof *pos);
  memcpy(out->nrm + 3 * out->nv, part->nrm, part->nv * 3 * sizeof *nrm);
  for (size_t i = 0; i < part->nt * 3; ++i) out->tri[3 * out->nt + i] = part->tri[i] + (uint32_t)out->nv;
  if (out->nv == 0) out->off[0] = 0;
  for (size_t v = 0; v < part->nv; ++v) {
    uint32_t e = out->off[out->nv + v];
    if (mode == 2) {
      out->jnt[e] = rigid, out->wgt[e++] = 1.0f;
    } else {
      const gen_mesh* src = mode == 1 ? body : part;
      size_t s = mode == 1 ? nearest(body, part->pos + 3 * v) : v;
      for (uint32_t k = src->off[s]; k < src->off[s + 1]; ++k) out->jnt[e] = src->jnt[k], out->wgt[e++] = src->wgt[k];
    }
    out->off[out->nv + v + 1] = e;
  }
  out->nv = nv, out->nt = nt;
  return 0;
}

/* A 3-joint chain along +X (joints 1 apart) whose root sits at root[3]. */
static int chain(const float root[3], sk_skeleton** out, sk_error* err) {
  const char* names[3] = {"upper", "lower", "hand"};
  int32_t parents[3] = {SK_NO_PARENT, 0, 1};
  float rest[48];
  memset(rest, 0, sizeof rest);
  for (int j = 0; j < 3; ++j) {
    float* m = rest + 16 * j;
    m[0] = m[5] = m[10] = m[15] = 1.0f;
    if (j == 0) m[12] = root[0], m[13] = root[1], m[14] = root[2];
    else m[12] = 1.0f;
  }
  sk_skeleton_desc sd = {sizeof sd, 3, names, parents, rest, NULL, NULL, NULL};
  return sk_skeleton_create(&sd, out, err);
}

static int save(const char* path, const char* name, const gen_mesh* m, const float root[3], sk_error* err) {
  sk_skeleton* skel = NULL;
  sk_skin* skin = NULL;
  sk_scene* scene = NULL;
  int rc = chain(root, &skel, err) || sk_skin_create(m->nv, 3, &skin, err) ||
           sk_skin_set_csr(skin, m->off, m->jnt, m->wgt, err) || sk_scene_create(skel, &scene, err);
  if (!rc) {
    sk_mesh_desc md = {sizeof md, 0, name, m->nv, m->pos, m->nrm, NULL, NULL, m->tri, m->nt * 3, skin, NULL,
                       NULL, NULL, NULL};
    sk_save_options so = {.size = sizeof so, .overwrite = 1, .as_is = 1};
    rc = sk_scene_add_mesh(scene, &md, NULL, err) || sk_scene_save(scene, path, &so, err);
  }
  sk_scene_destroy(scene);
  sk_skin_destroy(skin);
  sk_skeleton_destroy(skel);
  return rc;
}

int skt_write_hard_cases(const char* dir, sk_error* err) {
  static const float origin[3] = {0, 0, 0}, sleeve_at[3] = {0.5f, 0, 0}, eye_at[3] = {2.6f, 0.0f, 0.21f};
  static const float beside[3] = {0.0f, 0.75f, 0.0f};
  gen_mesh arm = {0}, sleeve = {0}, eye = {0}, all = {0};
  if (cylinder(32, 48, 3, 0.25f, 3.0f, origin, &arm, err)) return 1;
  int rc = cylinder(32, 16, 1, 0.32f, 1.0f, sleeve_at, &sleeve, err);
  if (!rc) rc = cylinder(12, 3, 1, 0.05f, 0.1f, eye_at, &eye, err);
  if (!rc) rc = append(&all, &arm, &arm, 0, 0) || append(&all, &sleeve, &arm, 1, 0) || append(&all, &eye, &arm, 2, 2);
  char path[1024];
  if (!rc) {
    snprintf(path, sizeof path, "%s/multipart.glb", dir);
    rc = save(path, "multipart", &all, origin, err);
  }
  if (!rc) {
    snprintf(path, sizeof path, "%s/outside.glb", dir);
    rc = save(path, "outside", &arm, beside, err);
  }
  if (rc && !err->message[0]) snprintf(err->message, sizeof err->message, "out of memory");
  gen_free(&arm), gen_free(&sleeve), gen_free(&eye), gen_free(&all);
  return rc;
}
