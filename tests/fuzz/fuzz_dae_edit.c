/* fuzz_dae_edit.c - libFuzzer target for the in-place Collada skin editor (io/dae_edit.c), in process. The input
 * is a Collada document. The target builds the edit a scene would ask for from the document itself, with plain
 * string searches (not the editor's scanner): the node name that instances the first controller (else the first
 * plain geometry, which then gets a new skin, bind matrices made up per joint), the joints named by the first
 * Name_array (else the nodes' sids; up to 16), and one mesh of the first <triangles> element's corners, at the
 * positions of the first float_array whose id says "positions", each corner weighted on one or two joints picked
 * from its position index (so that corners of one position agree); for inputs of odd size a second, empty mesh of
 * the same node comes too (the mesh count then disagrees with the primitives). Every call must return SKC_OK or
 * SKIO_DAE_EDIT_CANNOT (or run out of memory), never read outside the input, and editing what it wrote again with
 * the same meshes must give it back unchanged. Seeds: the Blender-written .dae of tests/data and tests/unskinned,
 * and the corpus .dae (scripts/fuzz.sh). */
#define _GNU_SOURCE /* memmem */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skio_dae_edit.h"
#ifdef FUZZ_DEBUG
#define DBG(...) fprintf(stderr, __VA_ARGS__)
#else
#define DBG(...) (void)0
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define MAX_JOINTS 16
#define MAX_CORNERS 100000

typedef struct job {
  char node[128];
  char* names[MAX_JOINTS];
  uint32_t joints;
  float* pos;
  uint32_t *off, *jt;
  float* w;
  size_t corners;
} job;

static void job_free(job* j) {
  for (uint32_t i = 0; i < j->joints; ++i) free(j->names[i]);
  free(j->pos), free(j->off), free(j->jt), free(j->w);
}

/* The value of attribute key inside the tag that starts at tag (up to its '>'), copied into out. */
static bool attr_of(const char* tag, const char* key, char* out, size_t n) {
  const char* gt = strchr(tag, '>');
  char pat[32];
  snprintf(pat, sizeof pat, " %s=\"", key);
  const char* a = strstr(tag, pat);
  if (!gt || !a || a > gt) return false;
  a += strlen(pat);
  const char* q = strchr(a, '"');
  if (!q || q > gt || (size_t)(q - a) >= n) return false;
  memcpy(out, a, (size_t)(q - a));
  out[q - a] = 0;
  return true;
}

/* The name (else id) of the last <node opened before at. */
static bool node_before(const char* doc, const char* at, char* out, size_t n) {
  const char* last = NULL;
  for (const char* p = doc; (p = strstr(p, "<node")) != NULL && p < at; ++p) last = p;
  return last && (attr_of(last, "name", out, n) || attr_of(last, "id", out, n));
}

/* Without a Name_array (no skin yet): the sids of the nodes (up to 16). */
static void take_sids(const char* doc, job* j) {
  for (const char* p = doc; j->joints < MAX_JOINTS && (p = strstr(p, "<node")) != NULL; ++p) {
    char sid[128];
    if (attr_of(p, "sid", sid, sizeof sid)) j->names[j->joints++] = strdup(sid);
  }
}

static void take_joints(const char* doc, job* j) {
  const char* a = strstr(doc, "<Name_array");
  const char* gt = a ? strchr(a, '>') : NULL;
  const char* lt = gt ? strchr(gt, '<') : NULL;
  for (const char* q = gt ? gt + 1 : NULL; q && q < lt && j->joints < MAX_JOINTS;) {
    while (q < lt && (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r')) ++q;
    const char* e = q;
    while (e < lt && *e != ' ' && *e != '\n' && *e != '\t' && *e != '\r') ++e;
    if (e > q) j->names[j->joints++] = strndup(q, (size_t)(e - q));
    q = e;
  }
}

/* The first triangles element's corners at the first positions array, weighted from the position index. */
static void take_mesh(const char* doc, job* j) {
  const char* pa = strstr(doc, "positions-array");
  const char* pt = pa ? strchr(pa, '>') : NULL;
  const char* tri = strstr(doc, "<triangles");
  const char* pp = tri ? strstr(tri, "<p>") : NULL;
  if (!pt || !pp || !j->joints) return;
  size_t stride = 0;
  for (const char* q = tri; (q = strstr(q + 1, "<input")) != NULL && q < pp;) ++stride;
  if (!stride) return;
  float* P = malloc(3 * 65536 * sizeof *P);
  size_t np = 0;
  char* e;
  for (const char* q = pt + 1; np < 3 * 65536; q = e) {
    float x = strtof(q, &e);
    if (e == q) break;
    P[np++] = x;
  }
  j->pos = malloc(3 * MAX_CORNERS * sizeof *j->pos);
  j->off = malloc((MAX_CORNERS + 1) * sizeof *j->off);
  j->jt = malloc(2 * MAX_CORNERS * sizeof *j->jt);
  j->w = malloc(2 * MAX_CORNERS * sizeof *j->w);
  j->off[0] = 0;
  size_t k = 0;
  for (const char* q = pp + 3; j->corners < MAX_CORNERS; ++k, q = e) {
    long i = strtol(q, &e, 10);
    if (e == q || i < 0) break;
    if (k % stride) continue;
    const size_t c = j->corners++;
    const size_t at = 3 * (size_t)i;
    for (int d = 0; d < 3; ++d) j->pos[3 * c + d] = at + 2 < np ? P[at + d] : 0.0f;
    const uint32_t b = j->off[c], two = (uint32_t)(i % 3 == 0) + 1;
    j->jt[b] = (uint32_t)i % j->joints, j->w[b] = two == 2 ? 0.25f : 1.0f;
    if (two == 2) j->jt[b + 1] = (uint32_t)(i / 3) % j->joints, j->w[b + 1] = 0.75f;
    if (two == 2 && j->jt[b + 1] == j->jt[b]) j->w[b] = 1.0f, j->off[c + 1] = b + 1;
    else j->off[c + 1] = b + two;
  }
  free(P);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* doc = malloc(size + 1);
  if (!doc) return 0;
  memcpy(doc, data, size);
  doc[size] = 0;
  job j;
  memset(&j, 0, sizeof j);
  /* the node of the first skin, else of the first plain geometry (which then gets a new skin) */
  const char* inst = strstr(doc, "<instance_controller");
  if (!inst) inst = strstr(doc, "<instance_geometry");
  if (inst) node_before(doc, inst, j.node, sizeof j.node);
  static float binds[16 * MAX_JOINTS];
  for (int k = 0; k < MAX_JOINTS; ++k)
    for (int e = 0; e < 16; ++e) binds[16 * k + e] = e % 5 == 0 ? 1.0f : e == 12 ? (float)k : 0.0f;
  take_joints(doc, &j);
  if (!j.joints) take_sids(doc, &j);
  take_mesh(doc, &j);
  skio_dae_mesh_edit m[2] = {
      {j.node, j.corners, j.pos, j.corners ? j.off : NULL, j.jt, j.w, NULL, binds,
       j.corners && (size & 2) ? j.off : NULL, j.jt, j.w}, /* read rows: as the new ones (half the inputs) */
      {j.node, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
  };
  const uint32_t count = j.corners ? 1 + (uint32_t)(size & 1) : 0;
  char* out = NULL;
  size_t out_n = 0;
  char why[200];
  skio_dae_edit_report rep;
  skc_err err = {0};
  int rc = skio_dae_edit(doc, size, m, count, (const char* const*)j.names, binds, j.joints, &out, &out_n, &rep, why,
                         sizeof why, &err);
  DBG("rc %d corners %zu joints %u node %s why %s\n", rc, j.corners, j.joints, j.node, rc ? why : "");
  if (rc != SKC_OK && rc != SKIO_DAE_EDIT_CANNOT && rc != SKC_OUT_OF_MEMORY) __builtin_trap();
  if (rc == SKC_OK) { /* edited again with the same meshes: nothing left to change */
    char* again = NULL;
    size_t again_n = 0;
    int rc2 = skio_dae_edit(out, out_n, m, count, (const char* const*)j.names, binds, j.joints, &again, &again_n,
                            &rep, why, sizeof why, &err);
    if (rc2 == SKC_OK && (again_n != out_n || memcmp(again, out, out_n))) __builtin_trap();
    free(again);
  }
  free(out);
  skio_dae_places pl; /* the reader's scan of the same text (scene_import.c) */
  rc = skio_dae_read_places((const char*)data, size, &pl, &err);
  if (rc != SKC_OK && rc != SKC_OUT_OF_MEMORY) __builtin_trap();
  for (uint32_t i = 0; rc == SKC_OK && i < pl.skin_count; ++i)
    if (!pl.skins[i].node_id || !pl.skins[i].node_id[0]) __builtin_trap();
  for (uint32_t i = 0; rc == SKC_OK && i < pl.child_count; ++i)
    if (!pl.children[i].node_id || !(pl.children[i].bone_length > 0.0f)) __builtin_trap();
  if (rc == SKC_OK) skio_dae_free_places(&pl);
  job_free(&j);
  free(doc);
  return 0;
}
