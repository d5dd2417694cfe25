/* meshopt_decode.c - the KHR_meshopt_compression attribute bitstream (versions 0 and 1) and its COLOR filter, from
 * the extension's specification. See skio_meshopt.h.
 *
 * A stream is a header byte, blocks of up to 256 elements, padding and a tail (the baseline element, then in version
 * 1 one channel mode per 4 bytes). Within a block every byte position of the element has its own data block: delta
 * bytes for groups of 16 elements, each group coded with 0, 1, 2, 4 or 8 bits per delta (sentinel values escape to
 * a full byte). The deltas then rebuild the elements channel by channel from the previous element: zigzag byte
 * deltas, zigzag 16-bit deltas or rotated 32-bit XOR. */
#include <string.h>

#include "skio_meshopt.h"

enum { GROUP = 16, MAX_STRIDE = 256, MAX_BLOCK = 256, BLOCK_BYTES = 8192 };

typedef struct reader {
  const uint8_t* p;
  const uint8_t* end; /* where the padding before the tail starts: data never reaches into it */
} reader;

/* Bits per delta for each 2-bit group header: version 0, then version 1's control modes 0 and 1 (8: raw bytes). */
static const uint8_t WIDTHS[3][4] = {{0, 2, 4, 8}, {0, 1, 2, 4}, {1, 2, 4, 8}};

static size_t left(const reader* r) { return (size_t)(r->end - r->p); }

/* 16 deltas of `bits` bits (1: least significant bit first; 2 and 4: most significant first). A delta with all bits
 * set is a sentinel: the real byte follows the packed bits, in order. */
static int read_sentinel(reader* r, unsigned bits, uint8_t* out) {
  const size_t packed = GROUP * bits / 8;
  if (left(r) < packed) return -3;
  const uint8_t* in = r->p;
  const uint8_t* extra = in + packed;
  const unsigned sentinel = (1u << bits) - 1, per_byte = 8 / bits;
  for (unsigned i = 0; i < GROUP; i++) {
    unsigned shift = bits == 1 ? i % 8 : 8 - bits * (i % per_byte + 1);
    unsigned v = (in[i / per_byte] >> shift) & sentinel;
    if (v == sentinel) {
      if (extra >= r->end) return -3;
      v = *extra++;
    }
    out[i] = (uint8_t)v;
  }
  r->p = extra;
  return 0;
}

static int read_group(reader* r, unsigned bits, uint8_t* out) {
  if (bits == 0) {
    memset(out, 0, GROUP);
    return 0;
  }
  if (bits < 8) return read_sentinel(r, bits, out);
  if (left(r) < GROUP) return -3;
  memcpy(out, r->p, GROUP);
  r->p += GROUP;
  return 0;
}

/* The delta bytes of one byte position for n elements in `groups` groups. control: the byte's 2-bit control mode in
 * version 1, or -1 in version 0. A literal data block (control 3) holds n bytes, not a whole last group (what
 * gltfpack writes; the specification does not say). */
static int read_data_block(reader* r, int control, size_t n, size_t groups, uint8_t* out) {
  if (control == 2) {
    memset(out, 0, groups * GROUP);
    return 0;
  }
  if (control == 3) {
    if (left(r) < n) return -3;
    memcpy(out, r->p, n);
    r->p += n;
    return 0;
  }
  const size_t header = (groups + 3) / 4;
  if (left(r) < header) return -3;
  const uint8_t* h = r->p;
  r->p += header;
  const uint8_t* widths = WIDTHS[control + 1];
  for (size_t g = 0; g < groups; g++) {
    int rc = read_group(r, widths[(h[g / 4] >> (g % 4 * 2)) & 3], out + g * GROUP);
    if (rc) return rc;
  }
  return 0;
}

static uint8_t unzigzag8(uint8_t v) { return (uint8_t)((v & 1) ? ~(v >> 1) : (v >> 1)); }
static uint16_t unzigzag16(uint16_t v) { return (uint16_t)((v & 1) ? ~(v >> 1) : (v >> 1)); }
/* The encoder rotates the XOR left by r (the specification's rotate(v, r)); decoding rotates it back, right by r
 * (checked against gltfpack 1.3: the 0x12 channels of CesiumMan's inverse bind matrices). */
static uint32_t rotate_right(uint32_t v, unsigned r) { return (v >> r) | (v << ((32 - r) & 31)); }

static uint32_t load32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store32(uint8_t* p, uint32_t v) {
  for (int b = 0; b < 4; b++) p[b] = (uint8_t)(v >> (8 * b));
}

/* The three channel modes, each rebuilding n elements of the 4 bytes at offset k from their delta rows d (row bytes
 * apart) and the previous element `last`, which ends as the block's last element. */
static void rebuild_bytes(const uint8_t* d, size_t row, size_t n, size_t stride, size_t k, uint8_t* last,
                          uint8_t* out) {
  for (size_t b = 0; b < 4; b++, d += row)
    for (size_t i = 0; i < n; i++) out[i * stride + k + b] = last[k + b] = (uint8_t)(last[k + b] + unzigzag8(d[i]));
}

static void rebuild_shorts(const uint8_t* d, size_t row, size_t n, size_t stride, size_t k, uint8_t* last,
                           uint8_t* out) {
  for (size_t h = k; h < k + 4; h += 2, d += 2 * row) {
    uint16_t p = (uint16_t)(last[h] | last[h + 1] << 8);
    for (size_t i = 0; i < n; i++) {
      p = (uint16_t)(p + unzigzag16((uint16_t)(d[i] | d[row + i] << 8)));
      out[i * stride + h] = (uint8_t)p;
      out[i * stride + h + 1] = (uint8_t)(p >> 8);
    }
    last[h] = (uint8_t)p;
    last[h + 1] = (uint8_t)(p >> 8);
  }
}

static void rebuild_xor(const uint8_t* d, size_t row, size_t n, size_t stride, size_t k, unsigned rot, uint8_t* last,
                        uint8_t* out) {
  uint32_t p = load32(last + k);
  for (size_t i = 0; i < n; i++) {
    uint32_t v = (uint32_t)d[i] | (uint32_t)d[row + i] << 8 | (uint32_t)d[2 * row + i] << 16 |
                 (uint32_t)d[3 * row + i] << 24;
    p ^= rotate_right(v, rot);
    store32(out + i * stride + k, p);
  }
  store32(last + k, p);
}

/* One block of n elements. channels: version 1's channel modes (NULL in version 0: byte deltas throughout). */
static int decode_block(reader* r, size_t n, size_t stride, const uint8_t* channels, uint8_t* last, uint8_t* out) {
  uint8_t deltas[BLOCK_BYTES];
  const size_t groups = (n + GROUP - 1) / GROUP, row = groups * GROUP;
  const uint8_t* control = NULL;
  if (channels) {
    if (left(r) < stride / 4) return -3;
    control = r->p;
    r->p += stride / 4;
  }
  for (size_t k = 0; k < stride; k++) {
    int c = control ? (control[k / 4] >> (k % 4 * 2)) & 3 : -1;
    int rc = read_data_block(r, c, n, groups, deltas + k * row);
    if (rc) return rc;
  }
  for (size_t k = 0; k < stride; k += 4) {
    const uint8_t mode = channels ? channels[k / 4] : 0; /* low 4 bits: the mode; high: mode 2's rotation */
    if ((mode & 15) == 0) rebuild_bytes(deltas + k * row, row, n, stride, k, last, out);
    else if ((mode & 15) == 1) rebuild_shorts(deltas + k * row, row, n, stride, k, last, out);
    else rebuild_xor(deltas + k * row, row, n, stride, k, mode >> 4u, last, out);
  }
  return 0;
}

/* Channel modes: 0 bytes, 1 2-byte deltas, 2 XOR with a rotation in the high 4 bits (the only mode that has any). */
static int check_channels(const uint8_t* channels, size_t n) {
  for (size_t c = 0; c < n; c++)
    if ((channels[c] & 15) > 2 || ((channels[c] & 15) < 2 && channels[c] >> 4)) return -4;
  return 0;
}

int skio_meshopt_decode_attributes(void* dst, size_t count, size_t stride, const uint8_t* src, size_t len) {
  if (stride < 4 || stride > MAX_STRIDE || stride % 4 || !src || len < 1 || (src[0] & 0xF0) != 0xA0) return -1;
  const int version = src[0] & 15;
  if (version > 1) return -1;
  const size_t tail = stride + (version ? stride / 4 : 0), min_tail = version ? 24 : 32;
  const size_t padded = tail < min_tail ? min_tail : tail;
  if (len < 1 + padded) return -2;
  const uint8_t* channels = version ? src + len - tail + stride : NULL;
  if (channels && check_channels(channels, stride / 4)) return -4;
  uint8_t last[MAX_STRIDE];
  memcpy(last, src + len - tail, stride);
  reader r = {src + 1, src + len - padded};
  size_t block = (BLOCK_BYTES / stride) & ~(size_t)(GROUP - 1);
  if (block > MAX_BLOCK) block = MAX_BLOCK;
  uint8_t* out = dst;
  for (size_t done = 0; done < count;) {
    size_t n = count - done < block ? count - done : block;
    int rc = decode_block(&r, n, stride, channels, last, out + done * stride);
    if (rc) return rc;
    done += n;
  }
  return r.p == r.end ? 0 : -3;
}

/* ---------------------------------------------------------------------------------------- COLOR filter */

static int top_bit(unsigned v) {
  int b = -1;
  while (v) {
    v >>= 1;
    b++;
  }
  return b;
}

static unsigned scaled(int v, float scale, unsigned max) {
  if (v <= 0) return 0;
  float f = (float)v * scale + 0.5f;
  return f >= (float)max ? max : (unsigned)f;
}

/* One element: y (K-bit unsigned), co and cg (K-bit signed), alpha (K-1 bits under a marker bit at K-1). */
static void color_element(int y, int co, int cg, unsigned alpha, unsigned max, unsigned out[4]) {
  const int as = (1 << (top_bit(alpha) + 1)) - 1; /* K bits of ones; alpha 0 has no marker: K = 0 */
  int a = (int)(alpha & (unsigned)(as >> 1));
  a = (a << 1) | (a & 1);
  const float scale = as > 0 ? (float)max / (float)as : 0.0f;
  out[0] = scaled(y + co - cg, scale, max);
  out[1] = scaled(y + cg, scale, max);
  out[2] = scaled(y - co - cg, scale, max);
  out[3] = scaled(a, scale, max);
}

int skio_meshopt_filter_color(void* data, size_t count, size_t stride) {
  unsigned o[4];
  if (stride == 4) {
    uint8_t* p = data;
    for (size_t i = 0; i < count; i++, p += 4) {
      color_element(p[0], (int8_t)p[1], (int8_t)p[2], p[3], 255, o);
      for (int c = 0; c < 4; c++) p[c] = (uint8_t)o[c];
    }
    return 0;
  }
  if (stride != 8) return -1;
  uint8_t* p = data;
  for (size_t i = 0; i < count; i++, p += 8) {
    uint16_t v[4];
    memcpy(v, p, 8); /* little-endian host (x86-64) */
    color_element(v[0], (int16_t)v[1], (int16_t)v[2], v[3], 65535, o);
    for (int c = 0; c < 4; c++) v[c] = (uint16_t)o[c];
    memcpy(p, v, 8);
  }
  return 0;
}
