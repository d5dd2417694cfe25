/* md5_check.c - the structure of an .md5mesh checked before Assimp reads it (skio_md5.h).
 *
 * The text is read a line at a time, each line cut into tokens: a quoted name, a parenthesis or brace, or a run of
 * other printable characters; `//` starts a comment outside quotes. The top level holds `key value` lines and two
 * kinds of block: `joints {` (one line per joint: "name" parent ( x y z ) ( x y z )) and `mesh {` (shader, numverts
 * and its `vert i ( u v ) start count` lines, numtris and `tri i a b c`, numweights and `weight i joint bias ( x y z
 * )`). A block's opening brace stands on its keyword's line: Assimp skips a block whose brace is on the next line. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "skio_md5.h"

#define MD5_TOKENS 16 /* a line's tokens kept; more are counted */

typedef struct {
  const char* p;
  size_t n;
} md5_token;

typedef struct {
  const char* s;
  size_t n, pos;
  uint32_t line;
  md5_token tok[MD5_TOKENS];
  int count; /* tokens on the line, also those past MD5_TOKENS */
} md5_lines;

enum { BLOCK_NONE, BLOCK_JOINTS, BLOCK_MESH };

typedef struct {
  long long verts, tris, weights; /* declared; -1 before their line */
  long long vert_lines, tri_lines, weight_lines;
  long long tri_max, weight_end; /* largest vertex a triangle names, end of a vertex's weights */
} md5_mesh;

typedef struct {
  long long joints, meshes; /* declared; -1 before their line */
  long long joint_lines, mesh_blocks, joint_max;
  int block; /* the block we are in */
  uint32_t block_line;
  md5_mesh mesh;
  int32_t* parents; /* each joint line's parent (malloc'd, cap entries) */
  size_t cap;
  bool forward; /* some joint's parent comes after it: only then can the parents form a cycle */
} md5_state;

bool skio_path_is_md5mesh(const char* path) {
  size_t n = path ? strlen(path) : 0;
  return n >= 8 && strcasecmp(path + n - 8, ".md5mesh") == 0;
}

static bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static bool single(char c) { return c == '(' || c == ')' || c == '{' || c == '}'; }

static void add_token(md5_lines* t, const char* p, size_t n) {
  if (t->count < MD5_TOKENS) t->tok[t->count] = (md5_token){p, n};
  ++t->count;
}

/* The next line's tokens in t->tok / t->count; false at the end of the text. */
static bool next_line(md5_lines* t) {
  if (t->pos >= t->n) return false;
  t->count = 0;
  ++t->line;
  const char* s = t->s;
  size_t i = t->pos;
  while (i < t->n && s[i] != '\n') {
    size_t a = i;
    if (space(s[i])) {
      ++i;
    } else if (s[i] == '/' && i + 1 < t->n && s[i + 1] == '/') {
      while (i < t->n && s[i] != '\n') ++i;
    } else if (s[i] == '"') {
      for (++i; i < t->n && s[i] != '"' && s[i] != '\n';) ++i;
      if (i < t->n && s[i] == '"') ++i;
      add_token(t, s + a, i - a);
    } else if (single(s[i])) {
      add_token(t, s + i++, 1);
    } else {
      while (i < t->n && !space(s[i]) && s[i] != '\n' && !single(s[i]) && s[i] != '"') ++i;
      add_token(t, s + a, i - a);
    }
  }
  t->pos = i + 1;
  return true;
}

static bool is(const md5_lines* t, int k, const char* word) {
  size_t n = strlen(word);
  return k < t->count && k < MD5_TOKENS && t->tok[k].n == n && memcmp(t->tok[k].p, word, n) == 0;
}

/* Token k as a whole integer / finite number. */
static bool integer(const md5_lines* t, int k, long long* v) {
  if (k >= t->count || k >= MD5_TOKENS || t->tok[k].n == 0 || t->tok[k].n > 24) return false;
  char buf[32], *end;
  memcpy(buf, t->tok[k].p, t->tok[k].n);
  buf[t->tok[k].n] = 0;
  *v = strtoll(buf, &end, 10);
  return *end == 0 && *v > -(1LL << 40) && *v < (1LL << 40);
}

static bool number(const md5_lines* t, int k) {
  if (k >= t->count || k >= MD5_TOKENS || t->tok[k].n == 0 || t->tok[k].n > 40) return false;
  char buf[48], *end;
  memcpy(buf, t->tok[k].p, t->tok[k].n);
  buf[t->tok[k].n] = 0;
  double v = strtod(buf, &end);
  return *end == 0 && isfinite(v);
}

/* Tokens first..first+count-1 are numbers between "(" and ")". */
static bool vector(const md5_lines* t, int open, int count) {
  if (!is(t, open, "(") || !is(t, open + count + 1, ")")) return false;
  for (int k = 1; k <= count; ++k)
    if (!number(t, open + k)) return false;
  return true;
}

static int bad(const md5_lines* t, skc_err* err, const char* what) {
  return skc_fail(err, SKC_FORMAT, "line %u: %s (a damaged or truncated .md5mesh)", t->line, what);
}

static int count_line(const md5_lines* t, long long* declared, skc_err* err) {
  long long v;
  if (t->count != 2 || !integer(t, 1, &v) || v < 0) return bad(t, err, "a count that is no number");
  if (*declared >= 0) return bad(t, err, "a count given twice");
  *declared = v;
  return SKC_OK;
}

static int joint_line(md5_state* st, const md5_lines* t, skc_err* err) {
  long long parent;
  if (t->count != 12 || t->tok[0].p[0] != '"' || !integer(t, 1, &parent) || !vector(t, 2, 3) || !vector(t, 7, 3))
    return bad(t, err, "a joint line that is not \"name\" parent ( x y z ) ( x y z )");
  if (parent < -1 || parent == st->joint_lines || (st->joints >= 0 && parent >= st->joints))
    return bad(t, err, "a joint's parent outside the joint list");
  if (st->joints >= 0 && st->joint_lines >= st->joints) return bad(t, err, "more joints than numJoints says");
  if ((size_t)st->joint_lines == st->cap) {
    const size_t cap = st->cap ? 2 * st->cap : 64;
    int32_t* grown = cap < ((size_t)1 << 31) ? realloc(st->parents, cap * sizeof *grown) : NULL;
    if (!grown) return skc_fail(err, SKC_OUT_OF_MEMORY, "line %u: out of memory for the joints", t->line);
    st->parents = grown, st->cap = cap;
  }
  st->forward |= parent > st->joint_lines;
  st->parents[st->joint_lines++] = (int32_t)parent; /* below joints (< 2^31 lines fit in memory) */
  return SKC_OK;
}

/* A numbered line of the mesh: its index below the declared count, no more lines than it. */
static int mesh_item(const md5_lines* t, long long declared, long long* lines, const char* what, skc_err* err) {
  long long i;
  if (declared < 0) return skc_fail(err, SKC_FORMAT, "line %u: a %s before its count", t->line, what);
  if (!integer(t, 1, &i) || i < 0 || i >= declared)
    return skc_fail(err, SKC_FORMAT, "line %u: a %s index outside its count (a damaged .md5mesh)", t->line, what);
  if (*lines >= declared) return skc_fail(err, SKC_FORMAT, "line %u: more %s lines than declared", t->line, what);
  ++*lines;
  return SKC_OK;
}

static int vert_line(md5_mesh* m, const md5_lines* t, skc_err* err) {
  long long start, count;
  if (t->count != 8 || !vector(t, 2, 2) || !integer(t, 6, &start) || !integer(t, 7, &count) || start < 0 || count < 0)
    return bad(t, err, "a vert line that is not vert i ( u v ) start count");
  if (start + count > m->weight_end) m->weight_end = start + count;
  return mesh_item(t, m->verts, &m->vert_lines, "vert", err);
}

static int tri_line(md5_mesh* m, const md5_lines* t, skc_err* err) {
  long long v[3];
  if (t->count != 5 || !integer(t, 2, &v[0]) || !integer(t, 3, &v[1]) || !integer(t, 4, &v[2]))
    return bad(t, err, "a tri line that is not tri i a b c");
  for (int k = 0; k < 3; ++k) {
    if (v[k] < 0) return bad(t, err, "a triangle naming a negative vertex");
    if (v[k] > m->tri_max) m->tri_max = v[k];
  }
  return mesh_item(t, m->tris, &m->tri_lines, "tri", err);
}

static int weight_line(md5_state* st, const md5_lines* t, skc_err* err) {
  long long joint;
  if (t->count != 9 || !integer(t, 2, &joint) || !number(t, 3) || !vector(t, 4, 3) || joint < 0)
    return bad(t, err, "a weight line that is not weight i joint bias ( x y z )");
  if (joint > st->joint_max) st->joint_max = joint;
  return mesh_item(t, st->mesh.weights, &st->mesh.weight_lines, "weight", err);
}

/* The closing brace of a mesh: every declared line present, every index inside its list. */
static int close_mesh(md5_state* st, const md5_lines* t, skc_err* err) {
  const md5_mesh* m = &st->mesh;
  if (m->verts < 0 || m->tris < 0 || m->weights < 0)
    return bad(t, err, "a mesh without numverts, numtris or numweights");
  if (m->vert_lines != m->verts || m->tri_lines != m->tris || m->weight_lines != m->weights)
    return skc_fail(err, SKC_FORMAT,
                    "line %u: the mesh opened on line %u has %lld vert, %lld tri and %lld weight lines where it "
                    "declares %lld, %lld and %lld (a damaged or truncated .md5mesh)",
                    t->line, st->block_line, m->vert_lines, m->tri_lines, m->weight_lines, m->verts, m->tris,
                    m->weights);
  if (m->tri_max >= m->verts) return bad(t, err, "a triangle naming a vertex past numverts");
  if (m->weight_end > m->weights) return bad(t, err, "a vertex's weights running past numweights");
  ++st->mesh_blocks;
  return SKC_OK;
}

static int mesh_line(md5_state* st, const md5_lines* t, skc_err* err) {
  md5_mesh* m = &st->mesh;
  if (is(t, 0, "}")) return t->count == 1 ? close_mesh(st, t, err) : bad(t, err, "text after a closing brace");
  if (is(t, 0, "numverts")) return count_line(t, &m->verts, err);
  if (is(t, 0, "numtris")) return count_line(t, &m->tris, err);
  if (is(t, 0, "numweights")) return count_line(t, &m->weights, err);
  if (is(t, 0, "vert")) return vert_line(m, t, err);
  if (is(t, 0, "tri")) return tri_line(m, t, err);
  if (is(t, 0, "weight")) return weight_line(st, t, err);
  return SKC_OK; /* shader and whatever else a writer adds */
}

static int joints_line(md5_state* st, const md5_lines* t, skc_err* err) {
  if (!is(t, 0, "}")) return joint_line(st, t, err);
  if (t->count != 1) return bad(t, err, "text after a closing brace");
  if (st->joints >= 0 && st->joint_lines != st->joints)
    return skc_fail(err, SKC_FORMAT, "line %u: %lld joint lines where numJoints says %lld (a damaged .md5mesh)",
                    t->line, st->joint_lines, st->joints);
  return SKC_OK;
}

/* Opens a block of kind at t's line. */
static int open_block(md5_state* st, const md5_lines* t, int kind, skc_err* err) {
  if (!is(t, 1, "{") || t->count != 2) return bad(t, err, "a block keyword without its opening brace on its line");
  if (kind == BLOCK_JOINTS && st->joint_lines) return bad(t, err, "a second joints block");
  st->block = kind;
  st->block_line = t->line;
  if (kind == BLOCK_MESH) st->mesh = (md5_mesh){.verts = -1, .tris = -1, .weights = -1, .tri_max = -1, .weight_end = 0};
  return SKC_OK;
}

static int top_line(md5_state* st, const md5_lines* t, skc_err* err) {
  if (is(t, 0, "joints")) return open_block(st, t, BLOCK_JOINTS, err);
  if (is(t, 0, "mesh")) return open_block(st, t, BLOCK_MESH, err);
  if (is(t, 0, "numJoints")) return count_line(t, &st->joints, err);
  if (is(t, 0, "numMeshes")) return count_line(t, &st->meshes, err);
  if (is(t, 0, "}") || is(t, 0, "{")) return bad(t, err, "a brace outside a block");
  return SKC_OK; /* MD5Version, commandline */
}

static int line(md5_state* st, const md5_lines* t, skc_err* err) {
  if (t->count == 0) return SKC_OK;
  int rc = st->block == BLOCK_JOINTS ? joints_line(st, t, err)
           : st->block == BLOCK_MESH ? mesh_line(st, t, err)
                                     : top_line(st, t, err);
  if (!rc && st->block != BLOCK_NONE && is(t, 0, "}")) st->block = BLOCK_NONE;
  return rc;
}

/* A joint whose parents lead back to it, or -1. Assimp attaches joints from the roots down by parent index, so the
 * joints of a cycle (root's parent 1, tip's parent 0) are never reached: it read such a file with success as two
 * root joints, the hierarchy dropped. Each chain is walked once (1: on the walk, 2: done). */
static long long parent_cycle(const md5_state* st) {
  const size_t n = (size_t)st->joint_lines;
  uint8_t* mark = st->forward && n ? calloc(n, 1) : NULL;
  long long found = -1;
  for (size_t i = 0; mark && i < n && found < 0; ++i) {
    int32_t k = (int32_t)i;
    while (k >= 0 && mark[k] == 0) mark[k] = 1, k = st->parents[k];
    if (k >= 0 && mark[k] == 1) found = k;
    for (k = (int32_t)i; k >= 0 && mark[k] == 1; k = st->parents[k]) mark[k] = 2;
  }
  free(mark);
  return found;
}

/* At the end of the text: no block left open, the header's counts met. */
static int finish(const md5_state* st, skc_err* err) {
  if (st->block != BLOCK_NONE)
    return skc_fail(err, SKC_FORMAT, "the %s block opened on line %u is not closed: the .md5mesh is truncated",
                    st->block == BLOCK_JOINTS ? "joints" : "mesh", st->block_line);
  if (st->joints < 0 || st->meshes < 0) return skc_fail(err, SKC_FORMAT, "no numJoints or numMeshes: no .md5mesh");
  if (st->joint_lines != st->joints)
    return skc_fail(err, SKC_FORMAT, "%lld joints where numJoints says %lld (a damaged or truncated .md5mesh)",
                    st->joint_lines, st->joints);
  if (st->mesh_blocks != st->meshes)
    return skc_fail(err, SKC_FORMAT, "%lld meshes where numMeshes says %lld (a damaged or truncated .md5mesh)",
                    st->mesh_blocks, st->meshes);
  if (st->joint_max >= st->joints)
    return skc_fail(err, SKC_FORMAT, "a weight names joint %lld of %lld (a damaged .md5mesh)", st->joint_max,
                    st->joints);
  const long long c = parent_cycle(st);
  if (c >= 0)
    return skc_fail(err, SKC_FORMAT, "joint %lld is its own ancestor (its parents lead back to it): a damaged .md5mesh",
                    c);
  return SKC_OK;
}

int skio_md5mesh_check(const char* text, size_t n, skc_err* err) {
  if (!text) return skc_fail(err, SKC_INVALID_ARGUMENT, "text must not be NULL");
  md5_lines t = {.s = text, .n = n};
  md5_state st = {.joints = -1, .meshes = -1, .joint_max = -1};
  int rc = SKC_OK;
  while (!rc && next_line(&t)) rc = line(&st, &t, err);
  if (!rc) rc = finish(&st, err);
  free(st.parents);
  return rc;
}
