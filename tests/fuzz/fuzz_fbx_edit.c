/* fuzz_fbx_edit.c - libFuzzer target for the in-place FBX skin editor (io/fbx_tree.c, io/fbx_edit.c), in process.
 * The input is a binary FBX. The target builds the edit a scene would ask for from the file itself: the joints are
 * the file's Model names (up to 16), and the mesh is one "Mesh" Geometry's polygon corners in order (which one: the
 * input size / 2, counting round; what
 * Assimp gives a one-material mesh), each corner weighted on one or two joints picked from its control point, so that
 * the matching, the cluster rewrite, new clusters and their bind matrices run on damaged files too; for inputs of odd
 * size the mesh comes as one the reader placed (identity), so a geometry without a skin gets one. Every call must
 * return SKC_OK or SKIO_FBX_EDIT_CANNOT (or run out of memory), never read outside the input; what it writes must
 * parse, and editing that again with the same meshes must give it back unchanged. The reader's list of geometric
 * transforms (io/fbx_geometric.c) runs on the input too: finite matrices or a refusal; so does its list of
 * orthographic cameras (io/fbx_cameras.c): at most 256, each named, a positive finite zoom; its clips' starts
 * (io/fbx_stacks.c): at most 256, each named, finite; the shape keys' values (io/fbx_shapes.c), the count of its
 * bone Models (skio_fbx_limb_count), its Null Models' names (skio_fbx_null_names, binary or ASCII: sorted, each
 * found) and its Models' custom properties (io/fbx_user_props.c: named, of a kept kind, finite). Seeds: the
 * Blender-written .fbx of tests/data and tests/unskinned, the corpus .fbx and an ASCII one (scripts/fuzz.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fbx_fixup.h"
#include "skio_fbx_edit.h"
#include "skio_fbx_tree.h"
#include "skio_scene.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define MAX_JOINTS 16
#define MAX_CORNERS 200000

typedef struct job {
  char* names[MAX_JOINTS];
  uint32_t joints;
  float* pos;
  uint32_t *off, *jt;
  float* w;
  size_t corners;
} job;

static void job_free(job* j) {
  for (uint32_t i = 0; i < j->joints; ++i) free(j->names[i]);
  free(j->pos);
  free(j->off);
  free(j->jt);
  free(j->w);
}

static void take_names(const skio_fbx_tree* t, uint32_t objects, job* j) {
  for (uint32_t r = skio_fbx_child(t, objects, "Model", SKIO_FBX_NONE); r != SKIO_FBX_NONE && j->joints < MAX_JOINTS;
       r = skio_fbx_child(t, objects, "Model", r)) {
    const uint8_t* s;
    size_t n;
    if (!skio_fbx_prop_name(t, r, 1, &s, &n) || n > 4096) continue; /* long names too: a new cluster cuts them */
    char* c = malloc(n + 1);
    if (!c) return;
    memcpy(c, s, n);
    c[n] = 0;
    j->names[j->joints++] = c;
  }
}

/* The pick-th Mesh geometry's corners (counting round) as one mesh; false when there is none that reads. */
static int take_mesh(const skio_fbx_tree* t, uint32_t objects, size_t pick, job* j) {
  uint32_t g = SKIO_FBX_NONE, meshes = 0;
  for (uint32_t k = skio_fbx_child(t, objects, "Geometry", SKIO_FBX_NONE); k != SKIO_FBX_NONE;
       k = skio_fbx_child(t, objects, "Geometry", k))
    meshes += skio_fbx_prop_str_is(t, k, 2, "Mesh");
  pick = meshes ? pick % meshes : 0;
  for (uint32_t k = skio_fbx_child(t, objects, "Geometry", SKIO_FBX_NONE); k != SKIO_FBX_NONE && g == SKIO_FBX_NONE;
       k = skio_fbx_child(t, objects, "Geometry", k))
    if (skio_fbx_prop_str_is(t, k, 2, "Mesh") && pick-- == 0) g = k;
  if (g == SKIO_FBX_NONE || !j->joints) return 0;
  double* cp = NULL;
  int32_t* pvi = NULL;
  size_t ncp = 0, npvi = 0;
  skc_err e = {0};
  int ok = !skio_fbx_child_f64(t, g, "Vertices", &cp, &ncp, &e) &&
           !skio_fbx_child_i32(t, g, "PolygonVertexIndex", &pvi, &npvi, &e) && npvi <= MAX_CORNERS;
  ncp /= 3;
  if (ok) {
    j->pos = malloc((npvi * 3 + 1) * sizeof *j->pos);
    j->off = malloc((npvi + 1) * sizeof *j->off);
    j->jt = malloc((npvi * 2 + 1) * sizeof *j->jt);
    j->w = malloc((npvi * 2 + 1) * sizeof *j->w);
    ok = j->pos && j->off && j->jt && j->w;
  }
  if (ok) j->off[0] = 0;
  for (size_t k = 0; ok && k < npvi; ++k) {
    int64_t c = pvi[k] < 0 ? -(int64_t)pvi[k] - 1 : pvi[k];
    if (c >= (int64_t)ncp) c = 0;
    for (int i = 0; i < 3; ++i) j->pos[3 * k + i] = ncp ? (float)cp[3 * (size_t)c + i] : 0.0f;
    uint32_t n = j->off[k];
    j->jt[n] = (uint32_t)c % j->joints, j->w[n++] = c % 3 ? 0.75f : 1.0f;
    if (c % 3) j->jt[n] = (uint32_t)(c / 3) % j->joints, j->w[n++] = 0.25f;
    j->off[k + 1] = n;
  }
  j->corners = npvi;
  free(cp);
  free(pvi);
  return ok;
}

static const float k_identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* placed: the mesh as one the reader placed (no skin in the file: the edit gives it one), by the identity. */
static int edit(const uint8_t* in, size_t n, const job* j, uint32_t meshes, int placed, uint8_t** out, size_t* out_n) {
  skio_fbx_mesh_edit m = {NULL, j->corners, j->pos, j->off, j->jt, j->w, placed ? k_identity : NULL};
  float binds[16 * MAX_JOINTS];
  for (uint32_t k = 0; k < MAX_JOINTS; ++k) memcpy(binds + 16 * k, k_identity, sizeof k_identity);
  char why[256];
  skc_err e = {0};
  int rc = skio_fbx_edit(in, n, meshes ? &m : NULL, meshes, (const char* const*)j->names, binds, j->joints, out, out_n,
                         NULL, why, sizeof why, &e);
  if (rc != SKC_OK && rc != SKIO_FBX_EDIT_CANNOT && rc != SKC_OUT_OF_MEMORY) __builtin_trap();
  return rc;
}

/* props written back onto the records of class cls of the same file (fbx_user_props_write.c): it must parse. */
static void write_back(const uint8_t* in, size_t size, const char* cls, const skio_user_prop* props, uint32_t n) {
  uint8_t* with = NULL;
  size_t with_n = 0;
  skio_fbx_tree back;
  skc_err e = {0};
  if (skio_fbx_add_user_props(in, size, cls, props, n, &with, &with_n, NULL, &e) == SKC_OK &&
      skio_fbx_tree_parse(with, with_n, &back, &e) == SKC_OK)
    skio_fbx_tree_free(&back);
  else if (with)
    __builtin_trap();
  free(with);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t* in = malloc(size ? size : 1); /* exactly the bytes, so ASan sees any read past them */
  if (!in) return 0;
  memcpy(in, data, size);
  skio_fbx_tree t;
  skc_err e = {0};
  job j = {0};
  uint32_t meshes = 0;
  if (skio_fbx_tree_parse(in, size, &t, &e) == SKC_OK) {
    uint32_t objects = skio_fbx_child(&t, SKIO_FBX_NONE, "Objects", SKIO_FBX_NONE);
    if (objects != SKIO_FBX_NONE) {
      take_names(&t, objects, &j);
      meshes = (uint32_t)take_mesh(&t, objects, size / 2, &j);
    }
    skio_fbx_tree_free(&t);
  }
  skio_fbx_geometric* geo = NULL;
  uint32_t ngeo = 0;
  if (skio_fbx_geometric_list(in, size, &geo, &ngeo, &e) == SKC_OK)
    for (uint32_t i = 0; i < ngeo; ++i)
      for (int k = 0; k < 16; ++k)
        if (!(geo[i].g[k] == geo[i].g[k]) || geo[i].g[k] > 1e308 || geo[i].g[k] < -1e308) __builtin_trap();
  skio_fbx_geometric_free(geo, ngeo);
  skio_fbx_ortho* ortho = NULL;
  uint32_t northo = 0;
  if (skio_fbx_ortho_list(in, size, &ortho, &northo, &e) == SKC_OK)
    for (uint32_t i = 0; i < northo; ++i)
      if (northo > 256 || !ortho[i].name || !(ortho[i].zoom > 0.0) || !(ortho[i].zoom < 1e30)) __builtin_trap();
  skio_fbx_ortho_free(ortho, northo);
  skio_fbx_shape_weight* shapes = NULL; /* the shape keys' values (fbx_shapes.c) */
  uint32_t nshapes = 0;
  if (skio_fbx_shape_weights(in, size, &shapes, &nshapes, &e) == SKC_OK)
    for (uint32_t i = 0; i < nshapes; ++i)
      if (nshapes > 4096 || !shapes[i].name || !(shapes[i].weight == shapes[i].weight)) __builtin_trap();
  skio_fbx_shape_weights_free(shapes, nshapes);
  (void)skio_fbx_limb_count(in, size); /* the bones Blender would make (fbx_geometric.c): a count or UINT32_MAX */
  char** nulls = NULL; /* the empties (fbx_geometric.c; binary or ASCII): sorted names, each found by the lookup */
  uint32_t nnulls = 0;
  if (skio_fbx_null_names(in, size, &nulls, &nnulls) == SKC_OK)
    for (uint32_t i = 0; i < nnulls; ++i)
      if (!nulls[i] || (i && strcmp(nulls[i - 1], nulls[i]) > 0) || !skio_names_have(nulls, nnulls, nulls[i]))
        __builtin_trap();
  skio_names_free(nulls, nnulls);
  skio_fbx_stack* stacks = NULL; /* the clips' starts (fbx_stacks.c) */
  uint32_t nstacks = 0;
  if (skio_fbx_stack_list(in, size, &stacks, &nstacks, &e) == SKC_OK)
    for (uint32_t i = 0; i < nstacks; ++i)
      if (nstacks > 256 || !stacks[i].name || !(stacks[i].start == stacks[i].start)) __builtin_trap();
  skio_fbx_stack_free(stacks, nstacks);
  skio_user_prop* props = NULL; /* the Models' custom properties (fbx_user_props.c) */
  uint32_t nprops = 0, skipped = 0;
  if (skio_fbx_user_props(in, size, &props, &nprops, &skipped, &e) == SKC_OK)
    for (uint32_t i = 0; i < nprops; ++i)
      if (nprops > 65536 || !props[i].node || !props[i].key || props[i].kind < SKIO_PROP_INT ||
          props[i].kind > SKIO_PROP_VEC3 || (props[i].kind == SKIO_PROP_STRING) != (props[i].text != NULL) ||
          !(props[i].v[0] == props[i].v[0]))
        __builtin_trap();
  if (nprops) write_back(in, size, "Model", props, nprops); /* onto the same file's Models */
  skio_user_props_free(props, nprops);
  props = NULL; /* the Materials' (fbx_user_props.c), written back onto its Materials */
  nprops = 0;
  if (skio_fbx_material_props(in, size, &props, &nprops, &skipped, &e) == SKC_OK && nprops)
    write_back(in, size, "Material", props, nprops);
  skio_user_props_free(props, nprops);
  props = NULL; /* the Geometries' (fbx_user_props.c), written back onto its Geometries */
  nprops = 0;
  if (skio_fbx_mesh_props(in, size, &props, &nprops, &skipped, &e) == SKC_OK && nprops)
    write_back(in, size, "Geometry", props, nprops);
  skio_user_props_free(props, nprops);
  static const char* const k_names[3] = {"a", "", "mesh \"c\""}; /* unnamed Geometries named: it must parse */
  uint8_t* named = NULL;
  size_t named_n = 0;
  if (skio_fbx_name_geometries(in, size, k_names, 3, &named, &named_n, &e) == SKC_OK) {
    if (skio_fbx_tree_parse(named, named_n, &t, &e) != SKC_OK) __builtin_trap();
    skio_fbx_tree_free(&t);
  }
  free(named);
  uint8_t *a = NULL, *b = NULL;
  size_t an = 0, bn = 0;
  const int placed = (int)(size & 1); /* half the inputs each way */
  if (edit(in, size, &j, meshes, placed, &a, &an) == SKC_OK) {
    if (skio_fbx_tree_parse(a, an, &t, &e) != SKC_OK) __builtin_trap(); /* it wrote a file it cannot read */
    skio_fbx_tree_free(&t);
    /* the edited file already holds these weights: a second edit changes nothing */
    /* (a placed mesh's geometry has its skin now: it is edited as a skinned one) */
    if (edit(a, an, &j, meshes, 0, &b, &bn) == SKC_OK && (bn != an || memcmp(a, b, an) != 0)) __builtin_trap();
  }
  free(a);
  free(b);
  job_free(&j);
  free(in);
  return 0;
}
