/* image_decode.c - TGA and BMP textures to 8-bit RGBA, and PNG encoding (see skio_image.h).
 *
 * Truevision TGA (the TGA File Format Specification 2.0): an 18-byte header (id length, colour-map type, image type,
 * colour map first index / length / entry bits, x / y origin, width, height, pixel bits, descriptor: bits 0-3 the
 * attribute (alpha) bits, bit 4 right-to-left, bit 5 top-to-bottom), the id, the colour map, then the pixels: raw,
 * or run-length packets (a byte: bit 7 a run of one pixel, else a literal; low 7 bits the count - 1; packets may
 * cross rows). Pixels are little-endian B G R [A] (24 / 32 bits), A1 R5 G5 B5 (15 / 16), grey [alpha] (8 / 16) or
 * colour-map indices (8 / 16). A 32-bit image whose alpha bytes are all 0 is read as opaque (writers that store no
 * alpha leave the fourth byte 0; an image nobody can see is never what was meant), as is a 16-bit one whose
 * attribute bits are all 0 or that declares none.
 *
 * Windows BMP: "BM", the file size, 4 reserved bytes, the pixels' offset, then an info header of 12 (OS/2 1.x: 16-bit
 * width and height), 40 (Windows 3), 52 / 56 (with RGB / RGBA masks), 64 (OS/2 2.x) or 108 / 124 bytes (V4 / V5),
 * the bit masks after a 40-byte header when compression is BI_BITFIELDS (3) or BI_ALPHABITFIELDS (6), the palette
 * (4 bytes B G R x an entry; 3 after an OS/2 1.x header), then rows padded to 4 bytes, bottom row first unless the
 * height is negative. 1, 2, 4 and 8 bits index the palette (RLE8 and RLE4 packets: a run, or 0 then end of line 0,
 * end of bitmap 1, a move 2 dx dy, or a literal count padded to 2 bytes); 16 and 32 bits are read through masks
 * (defaults X1 R5 G5 B5 and X8 R8 G8 B8), 24 bits as B G R. A BI_RGB 32-bit image takes its fourth byte as alpha
 * unless every one is 0.
 *
 * Every count and offset is checked against the bytes given before it is used, in 64 bits; a file that ends early
 * or indexes past its palette is SKC_FORMAT, never a read outside the buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "skio_image.h"

static unsigned le16(const unsigned char* p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t le32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool ends_with(const char* name, const char* ext) {
  size_t n = name ? strlen(name) : 0, e = strlen(ext);
  return n >= e && !strcasecmp(name + n - e, ext);
}

/* every pixel of p set to px, by doubling copies (a run-length file may declare 64 Mi pixels in a few bytes) */
static void fill(skio_pixels* p, const unsigned char px[4]) {
  const size_t n = (size_t)p->w * p->h * 4;
  memcpy(p->rgba, px, 4);
  for (size_t done = 4; done < n; done *= 2) memcpy(p->rgba + done, p->rgba, done < n - done ? done : n - done);
}

int skio_pixels_alloc(skio_pixels* out, uint64_t w, uint64_t h, const char* kind, skc_err* err) {
  if (!w || !h)
    return skc_fail(err, SKC_FORMAT, "%s image of %llu x %llu pixels", kind, (unsigned long long)w,
                    (unsigned long long)h);
  if (w * h > SKIO_IMAGE_MAX_PIXELS)
    return skc_fail(err, SKC_OUT_OF_RANGE, "%s image of %llu x %llu pixels: at most %llu Mi pixels are decoded", kind,
                    (unsigned long long)w, (unsigned long long)h, (unsigned long long)(SKIO_IMAGE_MAX_PIXELS >> 20));
  out->w = (uint32_t)w;
  out->h = (uint32_t)h;
  out->alpha = false;
  if (!(out->rgba = malloc((size_t)(w * h * 4))))
    return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory decoding an image");
  fill(out, (const unsigned char*)"\0\0\0\377");
  return SKC_OK;
}

void skio_pixels_settle_alpha(skio_pixels* p) {
  const size_t n = (size_t)p->w * p->h;
  bool any = false, clear = false;
  for (size_t i = 0; i < n; ++i) {
    any |= p->rgba[4 * i + 3] != 0;
    clear |= p->rgba[4 * i + 3] != 255;
  }
  if (!any)
    for (size_t i = 0; i < n; ++i) p->rgba[4 * i + 3] = 255;
  p->alpha = any && clear;
}

static unsigned char expand5(unsigned v) { return (unsigned char)((v * 255 + 15) / 31); } /* rounded */

/* ---- TGA ---- */

typedef struct tga {
  unsigned type, bits, bytes, attr; /* image type without RLE (1 mapped, 2 true colour, 3 grey), pixel bits */
  bool rle, top, right;
  unsigned map_first, map_len;
  unsigned char* map; /* map_len RGBA entries */
} tga;

/* one pixel of `bits` bits of true colour or grey (kind 2 / 3) at p into o (RGBA) */
static void tga_colour(unsigned kind, unsigned bits, unsigned attr, const unsigned char* p, unsigned char* o) {
  if (kind == 3) {
    o[0] = o[1] = o[2] = p[0];
    o[3] = bits == 16 ? p[1] : 255;
  } else if (bits <= 16) {
    unsigned v = le16(p);
    o[0] = expand5(v >> 10 & 31);
    o[1] = expand5(v >> 5 & 31);
    o[2] = expand5(v & 31);
    o[3] = bits == 16 && attr ? (v & 0x8000 ? 255 : 0) : 255;
  } else {
    o[0] = p[2];
    o[1] = p[1];
    o[2] = p[0];
    o[3] = bits == 32 ? p[3] : 255;
  }
}

static int tga_pixel(const tga* t, const unsigned char* p, unsigned char* o, skc_err* err) {
  if (t->type != 1) {
    tga_colour(t->type, t->bits, t->attr, p, o);
    return SKC_OK;
  }
  unsigned i = t->bits == 8 ? p[0] : le16(p);
  if (i < t->map_first || i - t->map_first >= t->map_len)
    return skc_fail(err, SKC_FORMAT, "TGA colour index %u outside its colour map (%u entries from %u)", i, t->map_len,
                    t->map_first);
  memcpy(o, t->map + 4 * (size_t)(i - t->map_first), 4);
  return SKC_OK;
}

static int tga_header(const unsigned char* d, size_t n, tga* t, size_t* at, skc_err* err) {
  if (n < 18) return skc_fail(err, SKC_FORMAT, "TGA header cut short (%zu bytes)", n);
  const unsigned map_type = d[1], type = d[2], map_bits = d[7];
  memset(t, 0, sizeof *t);
  t->rle = type >= 9;
  t->type = type & 7;
  if (map_type > 1 || !(type == 1 || type == 2 || type == 3 || type == 9 || type == 10 || type == 11))
    return skc_fail(err, SKC_UNSUPPORTED, "TGA image type %u with colour-map type %u is not decoded", type, map_type);
  t->bits = d[16];
  t->attr = d[17] & 15;
  t->right = d[17] & 16;
  t->top = d[17] & 32;
  const bool ok = t->type == 1   ? (t->bits == 8 || t->bits == 16) && map_type == 1
                  : t->type == 2 ? t->bits == 15 || t->bits == 16 || t->bits == 24 || t->bits == 32
                                 : t->bits == 8 || t->bits == 16;
  if (!ok) return skc_fail(err, SKC_UNSUPPORTED, "TGA image type %u of %u-bit pixels is not decoded", type, t->bits);
  t->bytes = (t->bits + 7) / 8;
  *at = 18 + (size_t)d[0];
  if (map_type == 1) {
    t->map_first = le16(d + 3);
    t->map_len = le16(d + 5);
    if (map_bits != 15 && map_bits != 16 && map_bits != 24 && map_bits != 32)
      return skc_fail(err, SKC_UNSUPPORTED, "TGA colour map of %u-bit entries is not decoded", map_bits);
    const size_t eb = (map_bits + 7) / 8, bytes = (size_t)t->map_len * eb;
    if (*at > n || n - *at < bytes) return skc_fail(err, SKC_FORMAT, "TGA colour map cut short");
    if (t->type == 1) {
      if (!(t->map = malloc(4 * (size_t)t->map_len + 4)))
        return skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory decoding an image");
      for (unsigned i = 0; i < t->map_len; ++i) tga_colour(2, map_bits, 1, d + *at + eb * i, t->map + 4 * (size_t)i);
    }
    *at += bytes; /* a map beside true-colour pixels is skipped */
  }
  return SKC_OK;
}

/* pixel k of the file's order to its place in the top-first output */
static unsigned char* tga_place(const tga* t, const skio_pixels* o, uint64_t k) {
  uint32_t r = (uint32_t)(k / o->w), x = (uint32_t)(k % o->w);
  uint32_t y = t->top ? r : o->h - 1 - r;
  if (t->right) x = o->w - 1 - x;
  return o->rgba + 4 * ((size_t)y * o->w + x);
}

static int tga_pixels(const tga* t, const unsigned char* d, size_t n, size_t at, skio_pixels* o, skc_err* err) {
  const uint64_t total = (uint64_t)o->w * o->h;
  if (!t->rle) {
    if (at > n || (n - at) / t->bytes < total) return skc_fail(err, SKC_FORMAT, "TGA pixel data cut short");
    for (uint64_t k = 0; k < total; ++k)
      if (tga_pixel(t, d + at + k * t->bytes, tga_place(t, o, k), err)) return err ? err->code : SKC_FORMAT;
    return SKC_OK;
  }
  for (uint64_t k = 0; k < total;) {
    if (at >= n) return skc_fail(err, SKC_FORMAT, "TGA run-length data cut short at pixel %llu", (unsigned long long)k);
    const unsigned h = d[at++], count = (h & 127) + 1;
    const bool run = h & 128;
    const size_t need = (size_t)t->bytes * (run ? 1 : count);
    if (n - at < need)
      return skc_fail(err, SKC_FORMAT, "TGA run-length data cut short at pixel %llu", (unsigned long long)k);
    unsigned char px[4];
    if (run && tga_pixel(t, d + at, px, err)) return err ? err->code : SKC_FORMAT;
    for (unsigned c = 0; c < count && k < total; ++c, ++k) /* a packet past the last pixel is cut there */
      if (run)
        memcpy(tga_place(t, o, k), px, 4);
      else if (tga_pixel(t, d + at + (size_t)c * t->bytes, tga_place(t, o, k), err))
        return err ? err->code : SKC_FORMAT;
    at += need;
  }
  return SKC_OK;
}

static bool tga_footer(const unsigned char* d, size_t n) {
  return n >= 18 + 26 && !memcmp(d + n - 18, "TRUEVISION-XFILE.", 17) && d[n - 1] == 0;
}

static int tga_decode(const unsigned char* d, size_t n, skio_pixels* o, skc_err* err) {
  tga t = {0};
  size_t at = 0;
  int rc = tga_header(d, n, &t, &at, err);
  if (!rc) rc = skio_pixels_alloc(o, le16(d + 12), le16(d + 14), "TGA", err);
  if (!rc) rc = tga_pixels(&t, d, n, at, o, err);
  free(t.map);
  if (!rc && (t.bits == 32 || (t.type == 2 && t.bits == 16 && t.attr) || (t.type == 3 && t.bits == 16) || t.type == 1))
    skio_pixels_settle_alpha(o);
  return rc;
}

/* ---- BMP ---- */

typedef struct bmp {
  int64_t w, h;
  bool top;
  unsigned bits, comp;
  uint32_t mask[4]; /* R G B A */
  unsigned char pal[256 * 4];
  unsigned pal_n;
  size_t off; /* the pixels */
} bmp;

static int bmp_masks(const unsigned char* d, size_t n, size_t hs, bmp* b, skc_err* err) {
  const bool fields = b->comp == 3 || b->comp == 6;
  if (b->bits == 16) {
    b->mask[0] = 0x7C00, b->mask[1] = 0x03E0, b->mask[2] = 0x001F;
  } else if (b->bits == 32) {
    b->mask[0] = 0xFF0000, b->mask[1] = 0xFF00, b->mask[2] = 0xFF, b->mask[3] = 0xFF000000u;
  }
  if (!fields) return SKC_OK;
  if (b->bits != 16 && b->bits != 32)
    return skc_fail(err, SKC_UNSUPPORTED, "BMP bit fields on %u-bit pixels are not decoded", b->bits);
  const size_t at = 14 + 40, count = hs > 40 ? (hs >= 56 ? 4 : 3) : (b->comp == 6 ? 4 : 3);
  if (n < at + 4 * count) return skc_fail(err, SKC_FORMAT, "BMP bit masks cut short");
  b->mask[3] = 0;
  for (size_t i = 0; i < count; ++i) b->mask[i] = le32(d + at + 4 * i);
  return SKC_OK;
}

static int bmp_header(const unsigned char* d, size_t n, bmp* b, skc_err* err) {
  memset(b, 0, sizeof *b);
  if (n < 26) return skc_fail(err, SKC_FORMAT, "BMP header cut short (%zu bytes)", n);
  const size_t hs = le32(d + 14);
  b->off = le32(d + 10);
  if (hs == 12) {
    b->w = le16(d + 18), b->h = le16(d + 20), b->bits = le16(d + 24);
  } else if (hs >= 40 && hs <= 124 && n >= 14 + 40) {
    b->w = (int32_t)le32(d + 18), b->h = (int32_t)le32(d + 22), b->bits = le16(d + 28), b->comp = le32(d + 30);
    if (hs == 64 && b->comp >= 3 && b->comp <= 4)
      return skc_fail(err, SKC_UNSUPPORTED, "OS/2 BMP compression %u is not decoded", b->comp);
  } else {
    return skc_fail(err, n < 14 + 40 ? SKC_FORMAT : SKC_UNSUPPORTED, "BMP info header of %zu bytes is not decoded", hs);
  }
  if (b->h < 0) b->top = true, b->h = -b->h;
  const bool idx = b->bits == 1 || b->bits == 2 || b->bits == 4 || b->bits == 8;
  if (!idx && b->bits != 16 && b->bits != 24 && b->bits != 32)
    return skc_fail(err, SKC_UNSUPPORTED, "BMP of %u-bit pixels is not decoded", b->bits);
  if (!(b->comp == 0 || b->comp == 3 || b->comp == 6 || (b->comp == 1 && b->bits == 8) ||
        (b->comp == 2 && b->bits == 4)))
    return skc_fail(err, SKC_UNSUPPORTED, "BMP compression %u on %u-bit pixels is not decoded", b->comp, b->bits);
  if (b->top && (b->comp == 1 || b->comp == 2)) return skc_fail(err, SKC_FORMAT, "run-length BMP stored top row first");
  int rc = bmp_masks(d, n, hs, b, err);
  if (rc || !idx) return rc;
  const size_t eb = hs == 12 ? 3 : 4,
               at = 14 + hs + (hs == 40 && (b->comp == 3 || b->comp == 6) ? 4 * (b->comp == 6 ? 4 : 3) : 0);
  const uint32_t used = hs >= 40 ? le32(d + 46) : 0, max = 1u << b->bits;
  b->pal_n = used && used < max ? used : max;
  if (at > n || (n - at) / eb < b->pal_n) {
    b->pal_n = at > n ? 0 : (unsigned)((n - at) / eb); /* what there is: an index past it is an error below */
    if (b->pal_n == 0) return skc_fail(err, SKC_FORMAT, "BMP palette cut short");
  }
  for (unsigned i = 0; i < b->pal_n; ++i) {
    const unsigned char* p = d + at + eb * i;
    b->pal[4 * i] = p[2], b->pal[4 * i + 1] = p[1], b->pal[4 * i + 2] = p[0], b->pal[4 * i + 3] = 255;
  }
  return SKC_OK;
}

unsigned char skio_mask_channel(uint32_t v, uint32_t mask) {
  if (!mask) return 0;
  unsigned shift = (unsigned)__builtin_ctz(mask), bits = (unsigned)__builtin_popcount(mask);
  uint32_t x = (v & mask) >> shift, top = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  if (bits >= 8) return (unsigned char)(x >> (bits - 8));
  return (unsigned char)((x * 255u + top / 2) / top);
}

static int bmp_index(const bmp* b, unsigned i, unsigned char* o, skc_err* err) {
  if (i >= b->pal_n) return skc_fail(err, SKC_FORMAT, "BMP colour index %u past its palette of %u", i, b->pal_n);
  memcpy(o, b->pal + 4 * i, 4);
  return SKC_OK;
}

static unsigned char* bmp_place(const bmp* b, const skio_pixels* o, uint64_t row, uint64_t x) {
  return o->rgba + 4 * ((size_t)(b->top ? row : o->h - 1 - row) * o->w + (size_t)x);
}

static int bmp_rows(const bmp* b, const unsigned char* d, size_t n, skio_pixels* o, skc_err* err) {
  const uint64_t stride = ((uint64_t)o->w * b->bits + 31) / 32 * 4, last = ((uint64_t)o->w * b->bits + 7) / 8;
  if (b->off > n || n - b->off < stride * (o->h - 1) + last)
    return skc_fail(err, SKC_FORMAT, "BMP pixel data cut short");
  for (uint64_t r = 0; r < o->h; ++r) {
    const unsigned char* row = d + b->off + r * stride;
    for (uint64_t x = 0; x < o->w; ++x) {
      unsigned char* px = bmp_place(b, o, r, x);
      if (b->bits <= 8) {
        const uint64_t bit = x * b->bits;
        const unsigned i = (row[bit / 8] >> (8 - b->bits - bit % 8)) & ((1u << b->bits) - 1);
        if (bmp_index(b, i, px, err)) return err ? err->code : SKC_FORMAT;
      } else if (b->bits == 24) {
        px[0] = row[3 * x + 2], px[1] = row[3 * x + 1], px[2] = row[3 * x], px[3] = 255;
      } else {
        const uint32_t v = b->bits == 16 ? le16(row + 2 * x) : le32(row + 4 * x);
        for (int c = 0; c < 3; ++c) px[c] = skio_mask_channel(v, b->mask[c]);
        px[3] = b->mask[3] ? skio_mask_channel(v, b->mask[3]) : 255;
      }
    }
  }
  return SKC_OK;
}

/* RLE8 / RLE4: pixels not reached keep palette entry 0 */
static int bmp_rle(const bmp* b, const unsigned char* d, size_t n, skio_pixels* o, skc_err* err) {
  if (b->off > n) return skc_fail(err, SKC_FORMAT, "BMP pixel data cut short");
  unsigned char first[4] = {0};
  if (bmp_index(b, 0, first, err)) return err ? err->code : SKC_FORMAT;
  fill(o, first);
  const bool four = b->bits == 4;
  uint64_t x = 0, y = 0;
  for (size_t at = b->off; y < o->h;) {
    if (n - at < 2) return skc_fail(err, SKC_FORMAT, "BMP run-length data cut short");
    const unsigned c = d[at], v = d[at + 1];
    at += 2;
    if (c) { /* a run of c pixels of v (RLE4: its two nibbles in turn) */
      for (unsigned k = 0; k < c; ++k, ++x)
        if (x < o->w && bmp_index(b, four ? (k & 1 ? v & 15 : v >> 4) : v, bmp_place(b, o, y, x), err))
          return err ? err->code : SKC_FORMAT;
    } else if (v == 0) {
      x = 0, ++y;
    } else if (v == 1) {
      break;
    } else if (v == 2) {
      if (n - at < 2) return skc_fail(err, SKC_FORMAT, "BMP run-length data cut short");
      x += d[at], y += d[at + 1];
      at += 2;
    } else { /* v literal pixels, padded to 2 bytes */
      const size_t bytes = four ? (v + 1) / 2 : v, padded = (bytes + 1) & ~(size_t)1;
      if (n - at < padded) return skc_fail(err, SKC_FORMAT, "BMP run-length data cut short");
      for (unsigned k = 0; k < v; ++k, ++x) {
        const unsigned i = four ? (k & 1 ? d[at + k / 2] & 15 : d[at + k / 2] >> 4) : d[at + k];
        if (x < o->w && bmp_index(b, i, bmp_place(b, o, y, x), err)) return err ? err->code : SKC_FORMAT;
      }
      at += padded;
    }
  }
  return SKC_OK;
}

static int bmp_decode(const unsigned char* d, size_t n, skio_pixels* o, skc_err* err) {
  bmp b;
  int rc = bmp_header(d, n, &b, err);
  if (!rc && (b.h > 0x7FFFFFFF || b.w <= 0)) rc = skc_fail(err, SKC_FORMAT, "BMP of width %lld", (long long)b.w);
  if (!rc) rc = skio_pixels_alloc(o, (uint64_t)b.w, (uint64_t)b.h, "BMP", err);
  if (!rc) rc = b.comp == 1 || b.comp == 2 ? bmp_rle(&b, d, n, o, err) : bmp_rows(&b, d, n, o, err);
  if (!rc && b.bits >= 16 && b.mask[3]) skio_pixels_settle_alpha(o);
  return rc;
}

int skio_image_decode(const unsigned char* d, size_t n, const char* name, skio_pixels* out, skc_err* err) {
  if (!out) return skc_fail(err, SKC_INVALID_ARGUMENT, "no image to decode into");
  memset(out, 0, sizeof *out);
  if (!d) return skc_fail(err, SKC_INVALID_ARGUMENT, "no image bytes");
  int rc;
  if (n >= 2 && d[0] == 'B' && d[1] == 'M')
    rc = bmp_decode(d, n, out, err);
  else if (n >= 4 && !memcmp(d, "DDS ", 4))
    rc = skio_dds_decode(d, n, out, err);
  else if (ends_with(name, ".tga") || ends_with(name, ".targa") || ends_with(name, ".vda") || ends_with(name, ".icb") ||
           ends_with(name, ".vst") || tga_footer(d, n))
    rc = tga_decode(d, n, out, err);
  else
    return skc_fail(err, SKC_UNSUPPORTED, "not a TGA, BMP or DDS image");
  if (rc) {
    free(out->rgba);
    memset(out, 0, sizeof *out);
  }
  return rc;
}

/* ---- PNG ---- */

static void put_be32(unsigned char* p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8),
  p[3] = (unsigned char)v;
}

static unsigned char* png_chunk(unsigned char* p, const char* type, const unsigned char* d, uint32_t n) {
  put_be32(p, n);
  memcpy(p + 4, type, 4);
  if (n) memcpy(p + 8, d, n);
  put_be32(p + 8 + n, (uint32_t)crc32(0L, p + 4, 4 + n));
  return p + 12 + n;
}

static unsigned paeth(unsigned a, unsigned b, unsigned c) {
  int p = (int)a + (int)b - (int)c, pa = abs(p - (int)a), pb = abs(p - (int)b), pc = abs(p - (int)c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* row filtered by filter f into o (o[0] = f); up = the row above (or zeros); bpp bytes a pixel */
static uint64_t png_filter(const unsigned char* row, const unsigned char* up, size_t len, size_t bpp, unsigned f,
                           unsigned char* o) {
  uint64_t cost = 0;
  o[0] = (unsigned char)f;
  for (size_t i = 0; i < len; ++i) {
    const unsigned a = i >= bpp ? row[i - bpp] : 0, b = up[i], c = i >= bpp ? up[i - bpp] : 0;
    const unsigned p = f == 0 ? 0 : f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : paeth(a, b, c);
    const unsigned char v = (unsigned char)(row[i] - p);
    o[1 + i] = v;
    cost += v < 128 ? v : 256 - v;
  }
  return cost;
}

unsigned char* skio_png_encode(const unsigned char* px, uint32_t w, uint32_t h, int channels, size_t* out_size) {
  if (!px || !w || !h || w > 0x7FFFFFFF || h > 0x7FFFFFFF || (channels != 3 && channels != 4)) return NULL;
  const size_t len = (size_t)w * (size_t)channels, raw_n = (size_t)h * (1 + len);
  unsigned char *raw = malloc(raw_n), *zero = calloc(len, 1), *tmp = malloc(1 + len), *z = NULL, *out = NULL;
  uLongf z_n = compressBound((uLong)raw_n);
  if (!raw || !zero || !tmp || !(z = malloc(z_n))) goto done;
  for (uint32_t y = 0; y < h; ++y) {
    const unsigned char* row = px + (size_t)y * len;
    const unsigned char* up = y ? px + (size_t)(y - 1) * len : zero;
    unsigned char* o = raw + (size_t)y * (1 + len);
    uint64_t best = png_filter(row, up, len, (size_t)channels, 0, o);
    for (unsigned f = 1; f <= 4; ++f) {
      const uint64_t c = png_filter(row, up, len, (size_t)channels, f, tmp);
      if (c < best) best = c, memcpy(o, tmp, 1 + len);
    }
  }
  if (compress2(z, &z_n, raw, (uLong)raw_n, 6) != Z_OK || z_n > 0x7FFFFFFF) goto done;
  if (!(out = malloc(8 + 25 + 12 + z_n + 12))) goto done;
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  unsigned char ihdr[13] = {0};
  put_be32(ihdr, w);
  put_be32(ihdr + 4, h);
  ihdr[8] = 8;                     /* bits a channel */
  ihdr[9] = channels == 4 ? 6 : 2; /* RGBA or RGB */
  memcpy(out, sig, 8);
  unsigned char* p = png_chunk(out + 8, "IHDR", ihdr, 13);
  p = png_chunk(p, "IDAT", z, (uint32_t)z_n);
  p = png_chunk(p, "IEND", NULL, 0);
  *out_size = (size_t)(p - out);
done:
  free(raw);
  free(zero);
  free(tmp);
  free(z);
  return out;
}

int skio_image_to_png(const unsigned char* d, size_t n, const char* name, unsigned char** png, size_t* png_size,
                      skc_err* err) {
  if (!png || !png_size) return skc_fail(err, SKC_INVALID_ARGUMENT, "no place for the PNG");
  *png = NULL;
  *png_size = 0;
  skio_pixels p;
  int rc = skio_image_decode(d, n, name, &p, err);
  if (rc) return rc;
  if (!p.alpha) /* RGB: the bytes packed in place */
    for (size_t i = 0; i < (size_t)p.w * p.h; ++i) memmove(p.rgba + 3 * i, p.rgba + 4 * i, 3);
  *png = skio_png_encode(p.rgba, p.w, p.h, p.alpha ? 4 : 3, png_size);
  free(p.rgba);
  return *png ? SKC_OK : skc_fail(err, SKC_OUT_OF_MEMORY, "out of memory writing a PNG");
}
