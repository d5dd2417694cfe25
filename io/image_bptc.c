/* image_bptc.c - BC7 blocks to 8-bit RGBA (DDS DXGI formats 97-99; io/image_dds.c hands the blocks over).
 *
 * Written from the specification (ARB_texture_compression_bptc, Appendix "BPTC Compressed Texture Image Format",
 * the same format as Microsoft's "BC7 Format"; decoding is bit-exact there). A 128-bit block, read from its least
 * significant bit of byte 0 up: the mode as zeros ended by a one (byte 0 all zero is the reserved mode 8, which
 * decodes to all-zero texels: RGBA 0 0 0 0), then per Table.M the partition number, rotation, index selection,
 * colour end points (by channel, then subset, then end point), alpha end points, per-end-point or shared P-bits,
 * primary then secondary indices. An end point is its bits, then its P-bit below them, then its top bits repeated
 * below that to fill a byte. Indices are in texel order (x fastest); each subset's anchor texel (texel 0 for subset
 * 0, Table.A2 / A3a / A3b for the others) stores one bit fewer, its top bit being 0. Interpolation is
 * ((64 - w) e0 + w e1 + 32) >> 6 with the 6-bit weights of the index width. Rotation then swaps alpha with red,
 * green or blue. The SRGB variant's bytes are sRGB-coded; they are returned as they are (PNG stores them so). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "skio_image.h"

/* The partition and anchor tables of the specification (Table.P2, Table.P3, Table.A2, Table.A3a, Table.A3b), packed:
 * kP2 bit i is the subset of texel i, kP3 bits 2i and 2i + 1 are. Checked against the specification's tables by
 * the rules they must keep (every anchor texel lies in its subset; texel 0 in subset 0) and against Pillow's decoding
 * of blocks of every partition (tests/data/make_images.py). */
static const uint16_t kP2[64] = {0xcccc, 0x8888, 0xeeee, 0xecc8, 0xc880, 0xfeec, 0xfec8, 0xec80, 0xc800, 0xffec, 0xfe80,
                                 0xe800, 0xffe8, 0xff00, 0xfff0, 0xf000, 0xf710, 0x008e, 0x7100, 0x08ce, 0x008c, 0x7310,
                                 0x3100, 0x8cce, 0x088c, 0x3110, 0x6666, 0x366c, 0x17e8, 0x0ff0, 0x718e, 0x399c, 0xaaaa,
                                 0xf0f0, 0x5a5a, 0x33cc, 0x3c3c, 0x55aa, 0x9696, 0xa55a, 0x73ce, 0x13c8, 0x324c, 0x3bdc,
                                 0x6996, 0xc33c, 0x9966, 0x0660, 0x0272, 0x04e4, 0x4e40, 0x2720, 0xc936, 0x936c, 0x39c6,
                                 0x639c, 0x9336, 0x9cc6, 0x817e, 0xe718, 0xccf0, 0x0fcc, 0x7744, 0xee22};
static const uint32_t kP3[64] = {
    0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, 0xa5a50000, 0xa0a05050, 0x5555a0a0, 0x5a5a5050,
    0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090, 0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250,
    0xa5945040, 0x0a425054, 0xa5a5a500, 0x55a0a0a0, 0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500,
    0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400, 0xa08585a0, 0xaa821414, 0x50a4a450, 0x6a5a0200,
    0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424, 0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50,
    0x500aa550, 0xaaaa4444, 0x66660000, 0xa5a0a5a0, 0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600,
    0xaa444444, 0x54a854a8, 0x95809580, 0x96969600, 0xa85454a8, 0x80959580, 0xaa141414, 0x96960000,
    0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000, 0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254};
static const uint8_t kA2[64] = {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 2,  8, 2, 2, 8,
                                8,  15, 2,  8,  2,  2,  8,  8,  2,  2,  15, 15, 6,  8,  2,  8,  15, 15, 2, 8, 2, 2,
                                2,  15, 15, 6,  6,  2,  6,  8,  15, 15, 2,  2,  15, 15, 15, 15, 15, 2,  2, 15};
static const uint8_t kA3a[64] = {3,  3,  15, 15, 8, 3,  15, 15, 8,  8,  6, 6,  6, 5,  3, 3,  3,  3,  8,  15, 3,  3,
                                 6,  10, 5,  8,  8, 6,  8,  5,  15, 15, 8, 15, 3, 5,  6, 10, 8,  15, 15, 3,  15, 5,
                                 15, 15, 15, 15, 3, 15, 5,  5,  5,  8,  5, 10, 5, 10, 8, 13, 15, 12, 3,  3};
static const uint8_t kA3b[64] = {15, 8, 8, 3,  15, 15, 3,  8,  15, 15, 15, 15, 15, 15, 15, 8,  15, 8,  15, 3,  15, 8,
                                 15, 8, 3, 15, 6,  10, 15, 15, 10, 8,  15, 3,  15, 10, 10, 8,  9,  10, 6,  15, 8,  15,
                                 3,  6, 6, 8,  15, 3,  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3,  15, 15, 8};

/* the interpolation weights of 2-, 3- and 4-bit indices */
static const uint8_t kW2[4] = {0, 21, 43, 64}, kW3[8] = {0, 9, 18, 27, 37, 46, 55, 64},
                     kW4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

/* the 128 bits of a block, read from bit 0 up */
typedef struct bitreader {
  uint64_t lo, hi;
  unsigned at;
} bitreader;

static bitreader bits_of(const unsigned char* b) {
  bitreader r = {0, 0, 0};
  for (int i = 7; i >= 0; --i) r.lo = r.lo << 8 | b[i], r.hi = r.hi << 8 | b[8 + i];
  return r;
}

/* the next n (at most 16) bits; 0 past the block's end */
static unsigned take(bitreader* r, unsigned n) {
  const unsigned at = r->at;
  r->at += n;
  if (!n || at >= 128) return 0;
  const uint64_t v = at >= 64 ? r->hi >> (at - 64) : at ? r->lo >> at | r->hi << (64 - at) : r->lo;
  return (unsigned)(v & ((1u << n) - 1));
}

/* Table.M: subsets, partition / rotation / index selection / colour / alpha bits, P-bits per end point or shared
 * per subset, primary and secondary index bits */
typedef struct bc7_mode {
  uint8_t ns, pb, rb, isb, cb, ab, epb, spb, ib, ib2;
} bc7_mode;
static const bc7_mode kModes[8] = {{3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0},
                                   {3, 6, 0, 0, 5, 0, 0, 0, 2, 0}, {2, 6, 0, 0, 7, 0, 1, 0, 2, 0},
                                   {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
                                   {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0}};

/* the subset of texel i in partition part of ns subsets, and whether it is its subset's anchor */
static unsigned subset_of(unsigned ns, unsigned part, unsigned i) {
  return ns == 2 ? kP2[part] >> i & 1u : ns == 3 ? kP3[part] >> (2 * i) & 3u : 0u;
}

static bool is_anchor(unsigned ns, unsigned part, unsigned i) {
  return i == 0 || (ns == 2 && i == kA2[part]) || (ns == 3 && (i == kA3a[part] || i == kA3b[part]));
}

/* an n-bit end point value to 8 bits by repeating its top bits (n >= 4) */
static unsigned char widen(unsigned v, unsigned n) { return (unsigned char)(v << (8 - n) | v >> (2 * n - 8)); }

/* the end points of every subset, ep[subset][end][channel], as bytes */
static void end_points(const bc7_mode* m, bitreader* r, unsigned char ep[3][2][4]) {
  unsigned v[3][2][4] = {{{0}}}, p[3][2] = {{0}};
  for (unsigned c = 0; c < 4; ++c)
    for (unsigned s = 0; s < m->ns; ++s)
      for (unsigned e = 0; e < 2; ++e) v[s][e][c] = take(r, c < 3 ? m->cb : m->ab);
  for (unsigned s = 0; s < m->ns; ++s)
    for (unsigned e = 0; e < 2; ++e) {
      if (m->epb) p[s][e] = take(r, 1);
      if (m->spb) p[s][e] = e ? p[s][0] : take(r, 1);
    }
  const unsigned pb = m->epb || m->spb;
  for (unsigned s = 0; s < m->ns; ++s)
    for (unsigned e = 0; e < 2; ++e)
      for (unsigned c = 0; c < 4; ++c) {
        const unsigned n = c < 3 ? m->cb : m->ab;
        ep[s][e][c] = n ? widen(v[s][e][c] << pb | (pb ? p[s][e] : 0), n + pb) : 255;
      }
}

static unsigned char mix(unsigned e0, unsigned e1, unsigned w) {
  return (unsigned char)(((64 - w) * e0 + w * e1 + 32) >> 6);
}

static unsigned weight(unsigned idx, unsigned n) { return n == 2 ? kW2[idx] : n == 3 ? kW3[idx] : kW4[idx]; }

void skio_bc7_block(const unsigned char* b, unsigned char px[16][4]) {
  if (!b[0]) { /* mode 8, reserved */
    memset(px, 0, 16 * 4);
    return;
  }
  const unsigned mode = (unsigned)__builtin_ctz(b[0]);
  const bc7_mode* m = &kModes[mode];
  bitreader r = bits_of(b);
  take(&r, mode + 1);
  const unsigned part = take(&r, m->pb), rot = take(&r, m->rb), sel = take(&r, m->isb);
  unsigned char ep[3][2][4];
  end_points(m, &r, ep);
  unsigned i1[16], i2[16] = {0};
  for (unsigned i = 0; i < 16; ++i) i1[i] = take(&r, m->ib - is_anchor(m->ns, part, i));
  for (unsigned i = 0; m->ib2 && i < 16; ++i) i2[i] = take(&r, m->ib2 - (i == 0));
  /* colour from the secondary indices when the selection bit is set, alpha from them when it is not */
  const bool colour2 = m->isb && sel, alpha2 = m->ib2 && !colour2;
  for (unsigned i = 0; i < 16; ++i) {
    const unsigned char(*e)[4] = ep[subset_of(m->ns, part, i)];
    const unsigned wc = colour2 ? weight(i2[i], m->ib2) : weight(i1[i], m->ib);
    const unsigned wa = alpha2 ? weight(i2[i], m->ib2) : weight(i1[i], m->ib);
    for (unsigned c = 0; c < 3; ++c) px[i][c] = mix(e[0][c], e[1][c], wc);
    px[i][3] = mix(e[0][3], e[1][3], wa);
    if (rot) {
      const unsigned char t = px[i][3];
      px[i][3] = px[i][rot - 1], px[i][rot - 1] = t;
    }
  }
}

/* ---- BC6H ----
 *
 * Same specification, "COMPRESSED_RGB_BPTC_{UN,}SIGNED_FLOAT" (Microsoft's BC6H_UF16 / BC6H_SF16): 14 modes, the
 * mode in the low 2 bits when they are 0 or 1, else in the low 5 bits (19, 23, 27 and 31 reserved: opaque black).
 * Table.F gives each mode's end point bits in block order (v[a:b]: the next |a - b| + 1 bits into bits b..a of v,
 * the first into bit b); then, for two-subset modes, 5 partition bits (Table.P2's first 32 rows); then the indices
 * (3 bits, 4 with one subset; anchors as in BC7). End points are sign-extended (e0 when the format is signed, the
 * others also when the mode transforms them), transformed ones are e0 plus their delta wrapped to the end point
 * bits, then unquantized, interpolated with BC7's weights and scaled to a half float (31/64; signed: 31/32 on the
 * magnitude). glTF's textures are 8-bit: the half float is clamped to [0, 1] and scaled to 0-255 (rounded); no
 * exposure or tone mapping, and no transfer function (the values are taken as already colour-coded). */

typedef struct bc6_mode {
  uint8_t mn, tr, pb, epb, delta[3];
  const char* layout;
} bc6_mode;

/* Table.MF's columns, then Table.F's row as the specification prints it (less the mode bits) */
/* clang-format off */
static const bc6_mode kBc6Modes[14] = {
    {0, 1, 5, 10, {5, 5, 5},
     "g2[4],b2[4],b3[4],r0[9:0],g0[9:0],b0[9:0],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],"
     "r2[4:0],b3[2],r3[4:0],b3[3]"},
    {1, 1, 5, 7, {6, 6, 6},
     "g2[5],g3[4],g3[5],r0[6:0],b3[0],b3[1],b2[4],g0[6:0],b2[5],b3[2],g2[4],b0[6:0],b3[3],b3[5],b3[4],r1[5:0],"
     "g2[3:0],g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]"},
    {2, 1, 5, 11, {5, 4, 4},
     "r0[9:0],g0[9:0],b0[9:0],r1[4:0],r0[10],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],"
     "r2[4:0],b3[2],r3[4:0],b3[3]"},
    {6, 1, 5, 11, {4, 5, 4},
     "r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],g3[4],g2[3:0],g1[4:0],g0[10],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],"
     "r2[3:0],b3[0],b3[2],r3[3:0],g2[4],b3[3]"},
    {10, 1, 5, 11, {4, 4, 5},
     "r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],b2[4],g2[3:0],g1[3:0],g0[10],b3[0],g3[3:0],b1[4:0],b0[10],b2[3:0],"
     "r2[3:0],b3[1],b3[2],r3[3:0],b3[4],b3[3]"},
    {14, 1, 5, 9, {5, 5, 5},
     "r0[8:0],b2[4],g0[8:0],g2[4],b0[8:0],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],"
     "r2[4:0],b3[2],r3[4:0],b3[3]"},
    {18, 1, 5, 8, {6, 5, 5},
     "r0[7:0],g3[4],b2[4],g0[7:0],b3[2],g2[4],b0[7:0],b3[3],b3[4],r1[5:0],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],"
     "b3[1],b2[3:0],r2[5:0],r3[5:0]"},
    {22, 1, 5, 8, {5, 6, 5},
     "r0[7:0],b3[0],b2[4],g0[7:0],g2[5],g2[4],b0[7:0],g3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[5:0],g3[3:0],b1[4:0],"
     "b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"},
    {26, 1, 5, 8, {5, 5, 6},
     "r0[7:0],b3[1],b2[4],g0[7:0],b2[5],g2[4],b0[7:0],b3[5],b3[4],r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],"
     "b1[5:0],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]"},
    {30, 0, 5, 6, {6, 6, 6},
     "r0[5:0],g3[4],b3[0],b3[1],b2[4],g0[5:0],g2[5],b2[5],b3[2],g2[4],b0[5:0],g3[5],b3[3],b3[5],b3[4],r1[5:0],"
     "g2[3:0],g1[5:0],g3[3:0],b1[5:0],b2[3:0],r2[5:0],r3[5:0]"},
    {3, 0, 0, 10, {10, 10, 10}, "r0[9:0],g0[9:0],b0[9:0],r1[9:0],g1[9:0],b1[9:0]"},
    {7, 1, 0, 11, {9, 9, 9}, "r0[9:0],g0[9:0],b0[9:0],r1[8:0],r0[10],g1[8:0],g0[10],b1[8:0],b0[10]"},
    {11, 1, 0, 12, {8, 8, 8}, "r0[9:0],g0[9:0],b0[9:0],r1[7:0],r0[10:11],g1[7:0],g0[10:11],b1[7:0],b0[10:11]"},
    {15, 1, 0, 16, {4, 4, 4}, "r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10:15],g1[3:0],g0[10:15],b1[3:0],b0[10:15]"},
};
/* clang-format on */

static unsigned number(const char** s) {
  unsigned v = 0;
  while (**s >= '0' && **s <= '9') v = v * 10 + (unsigned)(*(*s)++ - '0');
  return v;
}

/* the end point fields of a layout into v[end point][channel] (4 end points: e0, e1 and the second subset's) */
static void read_layout(const char* s, bitreader* r, int v[4][3]) {
  while (*s) {
    const int c = *s == 'r' ? 0 : *s == 'g' ? 1 : 2, e = s[1] - '0';
    s += 3; /* "r0[" */
    const unsigned a = number(&s), b = *s == ':' ? (++s, number(&s)) : a;
    s += *s == ']';
    s += *s == ',';
    for (unsigned k = 0; k <= (a > b ? a - b : b - a); ++k) v[e][c] |= (int)take(r, 1) << (a >= b ? b + k : b - k);
  }
}

static int sign_extend(int x, unsigned bits) { return x & (1 << (bits - 1)) ? x - (1 << bits) : x; }

static int unquantize(int x, unsigned bits, bool is_signed) {
  if (!is_signed) {
    if (bits >= 15 || x == 0) return x;
    return x == (1 << bits) - 1 ? 0xFFFF : ((x << 15) + 0x4000) >> (bits - 1);
  }
  if (bits >= 16) return x;
  const int m = x < 0 ? -x : x;
  const int u = m == 0 ? 0 : m >= (1 << (bits - 1)) - 1 ? 0x7FFF : ((m << 15) + 0x4000) >> (bits - 1);
  return x < 0 ? -u : u;
}

/* a half float (as bits) clamped to [0, 1], to 8 bits */
static unsigned char half_to_byte(unsigned h) {
  if (h & 0x8000) return 0;
  if (h >= 0x3C00) return 255; /* 1.0 and above (the decoder makes no infinity or NaN) */
  const unsigned e = h >> 10, f = h & 0x3FF;
  const float v = e ? (float)(0x400 | f) * ldexpf(1.0f, (int)e - 25) : (float)f * ldexpf(1.0f, -24);
  return (unsigned char)(v * 255.0f + 0.5f);
}

/* the interpolated, unquantized value of a channel as half float bits */
static unsigned bc6_texel(int e0, int e1, unsigned w, bool is_signed) {
  const int x = (64 - (int)w) * e0 + (int)w * e1 + 32, v = x >= 0 ? x / 64 : -((-x + 63) / 64); /* x >> 6 */
  if (!is_signed) return (unsigned)(v * 31 / 64);
  return v < 0 ? 0x8000u | (unsigned)(-v * 31 / 32) : (unsigned)(v * 31 / 32);
}

static const bc6_mode* bc6_mode_of(const unsigned char* b) {
  const unsigned mn = (b[0] & 3) < 2 ? b[0] & 3u : b[0] & 31u;
  for (int i = 0; i < 14; ++i)
    if (kBc6Modes[i].mn == mn) return &kBc6Modes[i];
  return NULL;
}

void skio_bc6h_block(const unsigned char* b, bool is_signed, unsigned char px[16][4]) {
  const bc6_mode* m = bc6_mode_of(b);
  for (int i = 0; i < 16; ++i) px[i][0] = px[i][1] = px[i][2] = 0, px[i][3] = 255;
  if (!m) return; /* reserved mode */
  bitreader r = bits_of(b);
  take(&r, m->mn < 2 ? 2 : 5);
  int v[4][3] = {{0}};
  read_layout(m->layout, &r, v);
  const unsigned part = take(&r, m->pb), ns = m->pb ? 2 : 1, ib = m->pb ? 3 : 4;
  for (unsigned c = 0; c < 3; ++c) {
    if (is_signed) v[0][c] = sign_extend(v[0][c], m->epb);
    for (unsigned e = 1; e < 2 * ns; ++e) {
      if (m->tr) {
        const int d = sign_extend(v[e][c], m->delta[c]);
        v[e][c] = (v[0][c] + d) & ((1 << m->epb) - 1);
        if (is_signed) v[e][c] = sign_extend(v[e][c], m->epb);
      } else if (is_signed) {
        v[e][c] = sign_extend(v[e][c], m->epb);
      }
    }
    for (unsigned e = 0; e < 2 * ns; ++e) v[e][c] = unquantize(v[e][c], m->epb, is_signed);
  }
  for (unsigned i = 0; i < 16; ++i) {
    const unsigned s = subset_of(ns, part, i), idx = take(&r, ib - is_anchor(ns, part, i));
    for (unsigned c = 0; c < 3; ++c)
      px[i][c] = half_to_byte(bc6_texel(v[2 * s][c], v[2 * s + 1][c], weight(idx, ib), is_signed));
  }
}
