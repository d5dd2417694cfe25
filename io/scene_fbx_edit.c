/* scene_fbx_edit.c - a scene read from an FBX file (binary, or ASCII as the binary file it stands for) written back
 * as an edit of that file (skio_fbx_edit.h): the skinned meshes' weights as the writers would write them
 * (skio_export_weights), the file re-read and checked to be the one the scene came from. */
#define _DEFAULT_SOURCE /* struct stat's st_mtim */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "skio_atomic.h"
#include "skio_fbx_edit.h"
#include "skio_fbx_tree.h"
#include "skio_scene.h"

static bool stat_id(const char* path, skio_source_id* id) {
  struct stat st;
  memset(id, 0, sizeof *id);
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  id->size = (uint64_t)st.st_size;
  id->dev = (uint64_t)st.st_dev;
  id->ino = (uint64_t)st.st_ino;
  id->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

/* An XML document whose first element is <COLLADA (looked for in the first 4 KB: declarations and comments first). */
static bool collada_head(const char* path) {
  char head[4096];
  FILE* fp = fopen(path, "rb");
  size_t got = fp ? fread(head, 1, sizeof head - 1, fp) : 0;
  if (fp) fclose(fp);
  head[got] = 0;
  for (const char* p = head; (p = strchr(p, '<')) != NULL; ++p) {
    if (p[1] == '?' || p[1] == '!') continue;
    return strncmp(p + 1, "COLLADA", 7) == 0;
  }
  return false;
}

void skio_source_identify(const char* path, skio_source_id* id) {
  uint8_t head[27];
  if (!stat_id(path, id)) return;
  FILE* fp = fopen(path, "rb");
  size_t got = fp ? fread(head, 1, sizeof head, fp) : 0;
  if (fp) fclose(fp);
  const char* dot = strrchr(path, '.');
  if (skio_fbx_is_binary(head, got) || (dot && !strcasecmp(dot, ".fbx"))) /* ASCII: converted (fbx_source) */
    id->kind = SKIO_SOURCE_FBX;
  else if (collada_head(path))
    id->kind = SKIO_SOURCE_COLLADA;
  id->set = id->kind != 0;
}

static bool same_id(const skio_source_id* a, const skio_source_id* b) {
  return a->size == b->size && a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns;
}

int skio_read_source(const char* path, const skio_source_id* id, uint8_t** out, size_t* n, char* why,
                     size_t why_size, skc_err* err) {
  skio_source_id now;
  if (!stat_id(path, &now) || !same_id(&now, id)) {
    snprintf(why, why_size, "the source file changed or went away since it was read");
    return SKIO_FBX_EDIT_CANNOT;
  }
  FILE* fp = fopen(path, "rb");
  uint8_t* buf = fp ? malloc(id->size + 1) : NULL;
  size_t got = buf ? fread(buf, 1, id->size, fp) : 0;
  int rc = SKC_OK;
  if (!fp)
    rc = skc_fail(err, SKC_IO, "%s: cannot read it again: %s", path, strerror(errno));
  else if (!buf)
    rc = skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path, (unsigned long long)id->size);
  else if (got != id->size)
    rc = skc_fail(err, SKC_IO, "%s: read %zu of %llu bytes", path, got, (unsigned long long)id->size);
  if (fp) fclose(fp);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[got] = 0;
  *out = buf;
  *n = got;
  return SKC_OK;
}

/* ---- what the edit cannot change --------------------------------------------------------------------------- */

/* FNV-1a over 8-byte words (then the tail bytes): a change detector, not a cryptographic hash; words make it fast
 * enough for a mesh's indices (a 3.6 M-corner FBX: 14 MB). */
static uint64_t fnv(uint64_t h, const void* data, size_t n) {
  const uint8_t* p = data;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv_str(uint64_t h, const char* s) {
  return s ? fnv(h, s, strlen(s) + 1) : fnv(h, "", 1);
}

static uint64_t hash_skeleton(uint64_t h, const skc_skeleton* k) {
  if (!k) return fnv(h, "-", 1);
  h = fnv(h, &k->joint_count, sizeof k->joint_count);
  for (uint32_t j = 0; j < k->joint_count; ++j) h = fnv_str(h, k->names[j]);
  h = fnv(h, k->parents, (size_t)k->joint_count * sizeof *k->parents);
  h = fnv(h, k->rest_local, (size_t)k->joint_count * 16 * sizeof(float));
  return fnv(h, k->bind, (size_t)k->joint_count * 16 * sizeof(float));
}

static uint64_t hash_anim(uint64_t h, const skio_anim* a) {
  h = fnv_str(h, a->name);
  h = fnv(h, &a->duration, sizeof a->duration);
  h = fnv(h, &a->channel_count, sizeof a->channel_count);
  for (uint32_t c = 0; c < a->channel_count; ++c) {
    const skio_channel* ch = &a->channels[c];
    h = fnv(h, &ch->joint, sizeof ch->joint);
    h = fnv(h, ch->pos_time, ch->pos_count * sizeof *ch->pos_time);
    h = fnv(h, ch->rot_time, ch->rot_count * sizeof *ch->rot_time);
    h = fnv(h, ch->scl_time, ch->scl_count * sizeof *ch->scl_time);
    h = fnv(h, ch->pos, ch->pos_count * 3 * sizeof *ch->pos);
    h = fnv(h, ch->rot, ch->rot_count * 4 * sizeof *ch->rot);
    h = fnv(h, ch->scl, ch->scl_count * 3 * sizeof *ch->scl);
  }
  return h;
}

static uint64_t hash_mesh(uint64_t h, const skio_mesh* m, uint32_t joints) {
  h = fnv(h, &m->vertex_count, sizeof m->vertex_count);
  h = fnv(h, &m->index_count, sizeof m->index_count);
  h = fnv(h, m->indices, m->index_count * sizeof *m->indices);
  h = fnv(h, &m->material, sizeof m->material);
  h = fnv_str(h, m->node_name);
  if (m->skin && m->inverse_bind && !m->placed_set) /* a skin from the file (a new one binds as the edit says) */
    h = fnv(h, m->inverse_bind, (size_t)joints * 16 * sizeof *m->inverse_bind);
  return h;
}

uint64_t skio_scene_fingerprint(const skio_scene* s) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = hash_skeleton(h, s->skeleton);
  const uint32_t joints = s->skeleton ? s->skeleton->joint_count : 0;
  h = fnv(h, &s->mesh_count, sizeof s->mesh_count);
  for (uint32_t m = 0; m < s->mesh_count; ++m) h = hash_mesh(h, &s->meshes[m], joints);
  h = fnv(h, &s->anim_count, sizeof s->anim_count);
  for (uint32_t a = 0; a < s->anim_count; ++a) h = hash_anim(h, &s->anims[a]);
  h = fnv(h, &s->material_count, sizeof s->material_count);
  for (uint32_t k = 0; k < s->material_count; ++k) {
    const skio_material* mt = &s->materials[k];
    h = fnv_str(h, mt->name);
    h = fnv(h, mt->base_color, sizeof mt->base_color);
    h = fnv(h, &mt->metallic, sizeof mt->metallic);
    h = fnv(h, &mt->roughness, sizeof mt->roughness);
  }
  return h;
}

typedef struct edits {
  skio_fbx_mesh_edit* e;
  uint32_t n;
} edits;

static void edits_free(edits* x) {
  for (uint32_t i = 0; i < x->n; ++i) {
    free((void*)x->e[i].offsets);
    free((void*)x->e[i].joints);
    free((void*)x->e[i].weights);
  }
  free(x->e);
}

static int collect(const skio_scene* s, const skio_export_options* o, edits* x, skc_err* err) {
  x->e = calloc(s->mesh_count + 1, sizeof *x->e);
  x->n = 0;
  if (!x->e) return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory");
  for (uint32_t i = 0; i < s->mesh_count; ++i) {
    const skio_mesh* m = &s->meshes[i];
    if (!m->skin || skio_mesh_still_rigid(m)) continue; /* no skin, or the reader's rigid one: the file holds it as it is */
    skio_fbx_mesh_edit* e = &x->e[x->n++];
    uint32_t *off, *jt;
    float* w;
    int rc = skio_export_weights(m, o, o->limit, &off, &jt, &w, err);
    if (rc) return rc;
    /* placed_set: the mesh had no skin in the file (the reader placed it; `bind` weighted it): it gets one */
    *e = (skio_fbx_mesh_edit){m->node_name, m->vertex_count, m->positions, off, jt, w, m->placed_set ? m->placed : NULL};
  }
  return SKC_OK;
}

static void note_split(const skio_fbx_edit_report* r, const skio_export_options* o) {
  if (!r->split_points || !o->note || !o->note_size) return;
  size_t n = strlen(o->note);
  snprintf(o->note + n, o->note_size - n,
           "%s%zu control points had different weights at different corners (the file holds one weight a control "
           "point); each took its first corner's",
           n ? "; " : "", r->split_points);
}

int skio_scene_edit_check(const skio_scene* s, int kind, const char* path, char* why, size_t why_size,
                          skc_err* err) {
  if (s->source_file.kind != kind || !s->source) {
    snprintf(why, why_size,
             kind == SKIO_SOURCE_FBX ? "the scene was not read from an FBX file"
                                     : "the scene was not read from a Collada file");
    return SKIO_FBX_EDIT_CANNOT;
  }
  if (s->mesh_count != s->import_mesh_count) {
    snprintf(why, why_size, "the scene has %u meshes where the file gave %u", s->mesh_count, s->import_mesh_count);
    return SKIO_FBX_EDIT_CANNOT;
  }
  if (s->materials_changed || s->shapes_changed || s->props_changed || skio_scene_fingerprint(s) != s->source_file.scene) {
    snprintf(why, why_size,
             "the scene changed beyond its weights (skeleton, binds, clips, materials, blend shapes or triangles)");
    return SKIO_FBX_EDIT_CANNOT;
  }
  if (skio_same_file(path, s->source))
    return skc_fail(err, SKC_EXISTS, "%s: is the file the scene was read from; write to another file", path);
  return SKC_OK;
}

int skio_scene_write_source(const skio_scene* s, const char* path, char* why, size_t why_size, skc_err* err) {
  uint8_t* src = NULL;
  size_t n = 0;
  int rc = skio_read_source(s->source, &s->source_file, &src, &n, why, why_size, err);
  if (!rc) rc = skio_atomic_write(path, src, n, err);
  free(src);
  return rc;
}

int skio_fbx_write_file(const char* path, const uint8_t* data, size_t n, bool ascii, skc_err* err) {
  if (!ascii) return skio_atomic_write(path, data, n, err);
  char* text = NULL;
  size_t text_n = 0;
  int rc = skio_fbx_to_ascii(data, n, &text, &text_n, err);
  if (!rc) rc = skio_atomic_write(path, text, text_n, err);
  free(text);
  return rc;
}

/* The FBX source's bytes as binary FBX: an ASCII source converted (skio_fbx_from_ascii, as the import read it); one
 * that does not convert (Assimp read its text alone) is not edited: SKIO_FBX_EDIT_CANNOT with why. */
static int fbx_source(const skio_scene* s, uint8_t** out, size_t* n, char* why, size_t why_size, skc_err* err) {
  int rc = skio_read_source(s->source, &s->source_file, out, n, why, why_size, err);
  uint8_t* bin = NULL;
  size_t bn = 0;
  skc_err e = {0};
  if (rc || skio_fbx_binary_of(*out, *n, &bin, &bn, &e) == SKC_OK) {
    if (bin) {
      free(*out);
      *out = bin;
      *n = bn;
    }
    return rc;
  }
  free(*out);
  *out = NULL;
  if (e.code == SKC_OUT_OF_MEMORY) return skc_fail(err, SKC_OUT_OF_MEMORY, "%s: out of memory", s->source);
  snprintf(why, why_size, "the ASCII FBX source does not read as FBX 7 text (%.120s)", e.message);
  return SKIO_FBX_EDIT_CANNOT;
}

/* The source written to path, as binary FBX or as ASCII FBX text when asked (a scene without a skeleton: nothing to
 * edit). */
static int fbx_write_source(const skio_scene* s, const char* path, bool ascii, char* why, size_t why_size,
                            skc_err* err) {
  uint8_t* src = NULL;
  size_t n = 0;
  int rc = fbx_source(s, &src, &n, why, why_size, err);
  if (!rc) rc = skio_fbx_write_file(path, src, n, ascii, err);
  free(src);
  return rc;
}

int skio_scene_fbx_edit(const skio_scene* s, const char* path, const skio_export_options* o, char* why,
                        size_t why_size, skc_err* err) {
  int check = skio_scene_edit_check(s, SKIO_SOURCE_FBX, path, why, why_size, err);
  if (check) return check;
  const bool ascii = skio_export_fbx_ascii(o);
  if (!s->skeleton) return fbx_write_source(s, path, ascii, why, why_size, err); /* no skin: nothing to edit */
  edits x = {0};
  uint8_t *src = NULL, *out = NULL;
  size_t n = 0, out_n = 0;
  skio_fbx_edit_report rep;
  int rc = collect(s, o, &x, err);
  if (!rc) rc = fbx_source(s, &src, &n, why, why_size, err);
  if (!rc)
    rc = skio_fbx_edit(src, n, x.e, x.n, (const char* const*)s->skeleton->names, s->skeleton->bind,
                       s->skeleton->joint_count, &out, &out_n, &rep, why, why_size, err);
  if (!rc) rc = skio_fbx_write_file(path, out, out_n, ascii, err);
  if (!rc) note_split(&rep, o);
  free(src);
  free(out);
  edits_free(&x);
  return rc;
}
