/* image_dds.c - DirectDraw Surface (.dds) textures to 8-bit RGBA: the first surface (mip 0; of a cube map its +X face,
 * of a volume its first slice), as skio_image_decode hands it over (see skio_image.h).
 *
 * Layout (Microsoft's DDS programming guide): "DDS ", a 124-byte DDS_HEADER (height at byte 12 of the file, width
 * at 16; the pixel format at 76: flags 80, FourCC 84, RGB bit count 88, R / G / B / A masks 92-104), then, when the
 * FourCC is "DX10", a 20-byte DDS_HEADER_DXT10 (DXGI format at 128), then the data. Decoded:
 *  - block compression, 4 x 4 pixels a block: BC1 (DXT1: two R5G6B5 end points, 2-bit indices; with c0 <= c1 the
 *    third colour is the midpoint and the fourth transparent black), BC2 (DXT2/3: 4-bit alpha, then a BC1 block in
 *    its four-colour mode), BC3 (DXT4/5: an alpha block of two end points and 3-bit indices - 6 interpolated values
 *    when a0 > a1, else 4 and then 0 and 255 - then the colour block), BC4 (ATI1 / BC4U: one such block, grey) and
 *    BC5 (ATI2 / BC5U: two, red and green; blue is the unit normal's z from them, as a normal map needs it in glTF);
 *    end points expanded by bit replication and interpolated by truncating division, as Direct3D's reference and
 *    Pillow decode them;
 *  - uncompressed: DDPF_RGB of 16, 24 or 32 bits through its masks (alpha when DDPF_ALPHAPIXELS), DDPF_LUMINANCE
 *    of 8 or 16 bits (grey, and alpha when flagged), DDPF_ALPHA 8 bits; DXGI R8G8B8A8 / B8G8R8A8 / B8G8R8X8 (UNORM,
 *    SRGB, TYPELESS).
 *  - BC7 (DXGI 97-99) and BC6H (95 unsigned, 96 signed half floats; clamped to [0, 1] in 8 bits): io/image_bptc.c.
 * Typeless BC6H (94: unsigned or signed is not said), BC4/BC5 signed, floating-point and YUV formats are
 * SKC_UNSUPPORTED (named in the message). A file
 * shorter than its first surface is SKC_FORMAT. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "skio_image.h"

static uint32_t le32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

enum { DDPF_ALPHAPIXELS = 0x1, DDPF_ALPHA = 0x2, DDPF_FOURCC = 0x4, DDPF_RGB = 0x40, DDPF_LUMINANCE = 0x20000 };
enum { BC1 = 1, BC2, BC3, BC4, BC5, BC6H_UF, BC6H_SF, BC7 };

/* ---- blocks ---- */

static void rgb565(unsigned c, unsigned char* o) {
  const unsigned r = c >> 11 & 31, g = c >> 5 & 63, b = c & 31;
  o[0] = (unsigned char)(r << 3 | r >> 2), o[1] = (unsigned char)(g << 2 | g >> 4),
  o[2] = (unsigned char)(b << 3 | b >> 2);
  o[3] = 255;
}

/* the 16 RGBA pixels of a BC1 colour block; four: always the four-colour mode (inside BC2 / BC3) */
static void bc1_block(const unsigned char* b, bool four, unsigned char px[16][4]) {
  const unsigned c0 = (unsigned)b[0] | (unsigned)b[1] << 8, c1 = (unsigned)b[2] | (unsigned)b[3] << 8;
  unsigned char p[4][4];
  rgb565(c0, p[0]);
  rgb565(c1, p[1]);
  for (int c = 0; c < 3; ++c)
    if (four || c0 > c1) {
      p[2][c] = (unsigned char)((2 * p[0][c] + p[1][c]) / 3);
      p[3][c] = (unsigned char)((p[0][c] + 2 * p[1][c]) / 3);
    } else {
      p[2][c] = (unsigned char)((p[0][c] + p[1][c]) / 2);
      p[3][c] = 0;
    }
  p[2][3] = 255;
  p[3][3] = four || c0 > c1 ? 255 : 0;
  const uint32_t idx = le32(b + 4);
  for (int i = 0; i < 16; ++i) memcpy(px[i], p[idx >> (2 * i) & 3], 4);
}

/* the 16 values of a BC3 alpha / BC4 block into channel ch of px */
static void bc4_block(const unsigned char* b, int ch, unsigned char px[16][4]) {
  const unsigned a0 = b[0], a1 = b[1];
  unsigned a[8] = {a0, a1};
  for (unsigned i = 1; i < 7; ++i) {
    if (a0 > a1)
      a[1 + i] = ((7 - i) * a0 + i * a1) / 7;
    else if (i < 5)
      a[1 + i] = ((5 - i) * a0 + i * a1) / 5;
  }
  if (a0 <= a1) a[6] = 0, a[7] = 255;
  uint64_t idx = 0;
  for (int k = 0; k < 6; ++k) idx |= (uint64_t)b[2 + k] << (8 * k);
  for (int i = 0; i < 16; ++i) px[i][ch] = (unsigned char)a[idx >> (3 * i) & 7];
}

static void block(int kind, const unsigned char* b, unsigned char px[16][4]) {
  switch (kind) {
    case BC1:
      bc1_block(b, false, px);
      break;
    case BC2:
      bc1_block(b + 8, true, px);
      for (int i = 0; i < 16; ++i) px[i][3] = (unsigned char)((b[i / 2] >> (4 * (i & 1)) & 15) * 17);
      break;
    case BC3:
      bc1_block(b + 8, true, px);
      bc4_block(b, 3, px);
      break;
    case BC4:
      bc4_block(b, 0, px);
      for (int i = 0; i < 16; ++i) px[i][1] = px[i][2] = px[i][0], px[i][3] = 255;
      break;
    case BC6H_UF:
    case BC6H_SF:
      skio_bc6h_block(b, kind == BC6H_SF, px);
      break;
    case BC7:
      skio_bc7_block(b, px);
      break;
    default: /* BC5: x and y of a unit normal, z from them */
      bc4_block(b, 0, px);
      bc4_block(b + 8, 1, px);
      for (int i = 0; i < 16; ++i) {
        const float x = px[i][0] / 127.5f - 1.0f, y = px[i][1] / 127.5f - 1.0f, zz = 1.0f - x * x - y * y;
        px[i][2] = (unsigned char)lrintf((zz > 0.0f ? sqrtf(zz) : 0.0f) * 127.5f + 127.5f);
        px[i][3] = 255;
      }
  }
}

static void blocks(int kind, const unsigned char* d, skio_pixels* o) {
  const size_t bw = ((size_t)o->w + 3) / 4, bh = ((size_t)o->h + 3) / 4, bs = kind == BC1 || kind == BC4 ? 8 : 16;
  for (size_t by = 0; by < bh; ++by)
    for (size_t bx = 0; bx < bw; ++bx) {
      unsigned char px[16][4];
      block(kind, d + (by * bw + bx) * bs, px);
      for (size_t i = 0; i < 16; ++i) {
        const size_t x = bx * 4 + i % 4, y = by * 4 + i / 4;
        if (x < o->w && y < o->h) memcpy(o->rgba + 4 * (y * o->w + x), px[i], 4);
      }
    }
}

/* ---- uncompressed ---- */

typedef struct masks {
  unsigned bits;    /* a pixel */
  uint32_t m[4];    /* R G B A; luminance in R with grey set */
  bool grey, alpha; /* alpha: m[3] is used */
} masks;

static void raw(const masks* k, const unsigned char* d, skio_pixels* o) {
  const size_t bytes = k->bits / 8;
  for (size_t i = 0; i < (size_t)o->w * o->h; ++i) {
    const unsigned char* p = d + i * bytes;
    uint32_t v = 0;
    for (size_t b = 0; b < bytes; ++b) v |= (uint32_t)p[b] << (8 * b);
    unsigned char* q = o->rgba + 4 * i;
    for (int c = 0; c < 3; ++c) q[c] = skio_mask_channel(v, k->m[k->grey ? 0 : c]);
    q[3] = k->alpha ? skio_mask_channel(v, k->m[3]) : 255;
  }
}

/* the pixel format at d + 76 (and the DX10 header at d + 128) as a block kind, or masks (kind 0); *at = the data */
static int pixel_format(const unsigned char* d, size_t n, int* kind, masks* k, size_t* at, skc_err* err) {
  const uint32_t flags = le32(d + 80), bits = le32(d + 88);
  const unsigned char* cc = d + 84;
  memset(k, 0, sizeof *k);
  *kind = 0;
  *at = 128;
  if (flags & DDPF_FOURCC) {
    static const char* const names[] = {"DXT1", "DXT2", "DXT3", "DXT4", "DXT5", "ATI1", "BC4U", "ATI2", "BC5U"};
    static const int kinds[] = {BC1, BC2, BC2, BC3, BC3, BC4, BC4, BC5, BC5};
    for (int i = 0; i < 9; ++i)
      if (!memcmp(cc, names[i], 4)) *kind = kinds[i];
    if (*kind) return SKC_OK;
    if (memcmp(cc, "DX10", 4))
      return skc_fail(err, SKC_UNSUPPORTED, "DDS pixel format \"%c%c%c%c\" is not decoded",
                      cc[0] >= 32 && cc[0] < 127 ? cc[0] : '?', cc[1] >= 32 && cc[1] < 127 ? cc[1] : '?',
                      cc[2] >= 32 && cc[2] < 127 ? cc[2] : '?', cc[3] >= 32 && cc[3] < 127 ? cc[3] : '?');
    if (n < 148) return skc_fail(err, SKC_FORMAT, "DDS DX10 header cut short");
    const uint32_t f = le32(d + 128);
    *at = 148;
    if (f >= 70 && f <= 83 && f != 81) { /* BC1-BC5 typeless, UNORM, SRGB (not BC4 / BC5 SNORM) */
      *kind = f <= 72 ? BC1 : f <= 75 ? BC2 : f <= 78 ? BC3 : f <= 80 ? BC4 : BC5;
      return SKC_OK;
    }
    if (f >= 95 && f <= 99) { /* BC6H UF16 / SF16, BC7 typeless, UNORM, SRGB (io/image_bptc.c) */
      *kind = f == 95 ? BC6H_UF : f == 96 ? BC6H_SF : BC7;
      return SKC_OK;
    }
    k->bits = 32;
    if (f >= 27 && f <= 29)
      k->m[0] = 0xFF, k->m[1] = 0xFF00, k->m[2] = 0xFF0000, k->m[3] = 0xFF000000u, k->alpha = true;
    else if (f == 87 || f == 90 || f == 91)
      k->m[0] = 0xFF0000, k->m[1] = 0xFF00, k->m[2] = 0xFF, k->m[3] = 0xFF000000u, k->alpha = true;
    else if (f == 88 || f == 92 || f == 93)
      k->m[0] = 0xFF0000, k->m[1] = 0xFF00, k->m[2] = 0xFF;
    else
      return skc_fail(err, SKC_UNSUPPORTED,
                      "DDS DXGI format %u is not decoded (typeless BC6H, signed BC4 / BC5, floating-point and others)",
                      f);
    return SKC_OK;
  }
  if (!(flags & (DDPF_RGB | DDPF_LUMINANCE | DDPF_ALPHA)) || !(bits == 8 || bits == 16 || bits == 24 || bits == 32))
    return skc_fail(err, SKC_UNSUPPORTED, "DDS pixel format (flags 0x%x, %u bits) is not decoded", flags, bits);
  k->bits = bits;
  for (int c = 0; c < 4; ++c) k->m[c] = le32(d + 92 + 4 * c);
  k->grey = !(flags & DDPF_RGB) && (flags & DDPF_LUMINANCE);
  k->alpha = (flags & (DDPF_ALPHAPIXELS | DDPF_ALPHA)) && k->m[3];
  if (!(flags & (DDPF_RGB | DDPF_LUMINANCE))) k->m[0] = k->m[1] = k->m[2] = 0; /* alpha only: black */
  for (int c = 0; c < 4; ++c) /* a mask must be one run of bits inside the pixel */
    if (k->m[c] && (((k->m[c] >> __builtin_ctz(k->m[c])) & ((k->m[c] >> __builtin_ctz(k->m[c])) + 1)) ||
                    (bits < 32 && k->m[c] >> bits)))
      return skc_fail(err, SKC_FORMAT, "DDS colour mask 0x%x of a %u-bit pixel", k->m[c], bits);
  return SKC_OK;
}

int skio_dds_decode(const unsigned char* d, size_t n, skio_pixels* o, skc_err* err) {
  if (n < 128 || le32(d + 4) != 124) return skc_fail(err, SKC_FORMAT, "DDS header cut short or of the wrong size");
  int kind;
  masks k;
  size_t at;
  int rc = pixel_format(d, n, &kind, &k, &at, err);
  if (rc) return rc;
  /* the first surface's bytes checked before its pixels are allocated: a 148-byte file may declare 8192 x 8192
   * (256 MiB allocated and filled, 1.2 s, before the error; session 72) */
  const uint64_t w = le32(d + 16), h = le32(d + 12);
  const uint64_t need =
      kind ? (w + 3) / 4 * ((h + 3) / 4) * (kind == BC1 || kind == BC4 ? 8 : 16) : w * h * (k.bits / 8);
  if (w && h && w * h <= SKIO_IMAGE_MAX_PIXELS && n - at < need)
    return skc_fail(err, SKC_FORMAT, "DDS %s data cut short (%zu of %llu bytes)", kind ? "block" : "pixel", n - at,
                    (unsigned long long)need);
  if ((rc = skio_pixels_alloc(o, w, h, "DDS", err))) return rc;
  if (kind)
    blocks(kind, d + at, o);
  else
    raw(&k, d + at, o);
  for (size_t i = 0; i < (size_t)o->w * o->h && !o->alpha; ++i) o->alpha = o->rgba[4 * i + 3] != 255;
  return SKC_OK; /* alpha as stored: DDS says when it has some (no all-zero rule as for TGA and BMP) */
}
