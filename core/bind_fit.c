/* bind_fit.c - does the armature sit in the mesh? The fit check run before binding (issue 17): an armature
 * imported with the wrong axis or scale, moved away, or made for another character gives weights worse than
 * none, and every bind method would still "succeed". No I/O. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_bind.h"

/* Bounded work whatever the input: at most this many bone points against this many mesh vertices (strided). */
enum { FIT_MAX_POINTS = 768, FIT_MAX_VERTICES = 4096 };

typedef struct box {
  double lo[3], hi[3];
} box;

static void box_empty(box* b) {
  for (int a = 0; a < 3; ++a) {
    b->lo[a] = INFINITY;
    b->hi[a] = -INFINITY;
  }
}

static void box_add(box* b, const double* p) {
  for (int a = 0; a < 3; ++a) {
    if (p[a] < b->lo[a]) b->lo[a] = p[a];
    if (p[a] > b->hi[a]) b->hi[a] = p[a];
  }
}

static double box_diag(const box* b) {
  double s = 0.0;
  for (int a = 0; a < 3; ++a) s += (b->hi[a] - b->lo[a]) * (b->hi[a] - b->lo[a]);
  return b->lo[0] <= b->hi[0] ? sqrt(s) : 0.0;
}

/* Head, middle and tail of each deform bone (every joint when deform is NULL), evenly strided down to
 * FIT_MAX_POINTS; turn 1/2 rotates them +/-90 degrees about X (a Y-up / Z-up mix-up). Returns the count. */
static size_t bone_points(const float* heads, const float* tails, uint32_t nj, const uint8_t* deform, int turn,
                          double (*pts)[3]) {
  size_t bones = 0, n = 0;
  for (uint32_t j = 0; j < nj; ++j) bones += !deform || deform[j];
  size_t stride = bones * 3 / FIT_MAX_POINTS + 1, k = 0;
  for (uint32_t j = 0; j < nj; ++j) {
    if (deform && !deform[j]) continue;
    for (int s = 0; s < 3; ++s, ++k) {
      if (k % stride || n >= FIT_MAX_POINTS) continue;
      double f = 0.5 * s, p[3];
      for (int a = 0; a < 3; ++a) p[a] = heads[3 * j + a] + f * ((double)tails[3 * j + a] - heads[3 * j + a]);
      pts[n][0] = p[0];
      pts[n][1] = turn == 0 ? p[1] : (turn == 1 ? -p[2] : p[2]);
      pts[n][2] = turn == 0 ? p[2] : (turn == 1 ? p[1] : -p[1]);
      ++n;
    }
  }
  return n;
}

/* Share of the points inside the mesh's box (grown by SKC_FIT_GROW of its diagonal) and within SKC_FIT_NEAR of
 * the diagonal of some mesh vertex (strided down to FIT_MAX_VERTICES). */
static double inside_share(const float* pos, size_t nv, const box* mb, double (*pts)[3], size_t np) {
  double diag = box_diag(mb), grow = SKC_FIT_GROW * diag, near2 = SKC_FIT_NEAR * diag * SKC_FIT_NEAR * diag;
  size_t stride = nv / FIT_MAX_VERTICES + 1, inside = 0;
  for (size_t i = 0; i < np; ++i) {
    int in_box = 1;
    for (int a = 0; a < 3; ++a) in_box &= pts[i][a] >= mb->lo[a] - grow && pts[i][a] <= mb->hi[a] + grow;
    if (!in_box) continue;
    double best = INFINITY;
    for (size_t v = 0; v < nv && best > near2; v += stride) {
      double d2 = 0.0;
      for (int a = 0; a < 3; ++a) d2 += (pos[3 * v + a] - pts[i][a]) * (pos[3 * v + a] - pts[i][a]);
      if (d2 < best) best = d2;
    }
    inside += best <= near2;
  }
  return np ? (double)inside / (double)np : 1.0;
}

void skc_bind_fit_check(const float* positions, size_t vertex_count, const float* heads, const float* tails,
                        uint32_t joint_count, const uint8_t* deform, skc_bind_fit* out) {
  double p[FIT_MAX_POINTS][3]; /* 18 KiB */
  box mb, bb;
  box_empty(&mb);
  box_empty(&bb);
  for (size_t v = 0; v < vertex_count; ++v) {
    double q[3] = {positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]};
    box_add(&mb, q);
  }
  size_t np = bone_points(heads, tails, joint_count, deform, 0, p);
  for (size_t i = 0; i < np; ++i) box_add(&bb, p[i]);
  out->inside_share = inside_share(positions, vertex_count, &mb, p, np);
  double md = box_diag(&mb);
  out->scale_ratio = md > 0.0 ? box_diag(&bb) / md : 0.0;
  int scale_bad = np > 3 && (out->scale_ratio < SKC_FIT_SCALE_MIN || out->scale_ratio > SKC_FIT_SCALE_MAX);
  /* bones that all sit at one point (zero-length, coinciding: SimpleSkin, quad_skin) give no shape to judge */
  int degenerate = out->scale_ratio <= 1e-6;
  out->ok = np == 0 || vertex_count == 0 || degenerate ||
            (out->inside_share >= SKC_FIT_INSIDE_SHARE && !scale_bad);
  out->hint = SKC_FIT_HINT_NONE;
  if (out->ok) return;
  if (scale_bad) {
    out->hint = SKC_FIT_HINT_SCALE;
    return;
  }
  out->hint = SKC_FIT_HINT_OFFSET;
  for (int turn = 1; turn <= 2; ++turn) {
    np = bone_points(heads, tails, joint_count, deform, turn, p);
    if (inside_share(positions, vertex_count, &mb, p, np) >= SKC_FIT_INSIDE_SHARE) out->hint = SKC_FIT_HINT_AXIS;
  }
}
