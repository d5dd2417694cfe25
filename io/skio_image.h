/* skio_image.h - texture images of kinds glTF has no place for, decoded, and PNG written (io/image_decode.c).
 *
 * Characters from FBX, Collada, .X, MD5, Ogre, B3D and Half-Life pipelines often carry Truevision TGA, Windows BMP
 * and DirectDraw Surface textures; glTF holds only PNG and JPEG (WebP and KTX2 through extensions). The glTF writer
 * turns such an image into a PNG of the same pixels (8 bits a channel, as both formats store them; nothing is lost)
 * instead of dropping it. */
#ifndef SKIO_IMAGE_H
#define SKIO_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skc_status.h"

/* Largest image decoded: 64 Mi pixels (8192 x 8192), 256 MiB of RGBA. */
#define SKIO_IMAGE_MAX_PIXELS ((uint64_t)64 << 20)

typedef struct skio_pixels {
  uint32_t w, h;
  unsigned char* rgba; /* w * h * 4 bytes, top row first, left to right */
  bool alpha;          /* some pixel is not opaque */
} skio_pixels;

/* Decodes a TGA (types 1-3 and their RLE forms 9-11: colour-mapped, true-colour and grey, 8-32 bits, any origin;
 * recognised by a ".tga" name or hint, or by the TGA 2.0 footer), a BMP ("BM": 1-32 bits, RLE4 / RLE8, bit
 * fields, OS/2 and V1-V5 headers, either row order) or a DDS ("DDS ": BC1-BC5 / DXT1-5, ATI1 / ATI2, BC7, BC6H,
 * uncompressed RGB, luminance and alpha, DX10 RGBA; its first surface). name: the file name or a format hint
 * ("x.tga"); may be NULL.
 * SKC_UNSUPPORTED: not one of these kinds, or a variant not decoded (the message says which); SKC_FORMAT: damaged
 * (cut short, an index past the palette, ...); SKC_OUT_OF_RANGE: more than SKIO_IMAGE_MAX_PIXELS. On success the
 * caller frees out->rgba. */
int skio_image_decode(const unsigned char* data, size_t size, const char* name, skio_pixels* out, skc_err* err);

/* PNG of w x h pixels of `channels` bytes each (3 RGB or 4 RGBA, rows top first), each row filtered by the
 * adaptive rule of the PNG specification's recommendation (the filter whose bytes have the smallest sum of
 * absolute values), deflated at zlib's level 6. NULL when out of memory or w or h is 0. */
unsigned char* skio_png_encode(const unsigned char* px, uint32_t w, uint32_t h, int channels, size_t* out_size);

/* The DirectDraw Surface reader (io/image_dds.c), and what the readers share: out->rgba for w x h opaque black
 * pixels ("kind" names the format in the messages); the alpha rule (all 0 reads as opaque, then out->alpha is
 * whether any pixel is not opaque); a channel of v under a contiguous bit mask scaled to 8 bits. */
int skio_dds_decode(const unsigned char* data, size_t size, skio_pixels* out, skc_err* err);
/* One 16-byte BC7 block (io/image_bptc.c) as its 16 RGBA texels, row by row. */
void skio_bc7_block(const unsigned char* block, unsigned char px[16][4]);
/* One 16-byte BC6H block (unsigned or signed half floats) as 16 RGBA texels: each channel clamped to [0, 1], in
 * 8 bits; alpha 255. */
void skio_bc6h_block(const unsigned char* block, bool is_signed, unsigned char px[16][4]);
int skio_pixels_alloc(skio_pixels* out, uint64_t w, uint64_t h, const char* kind, skc_err* err);
void skio_pixels_settle_alpha(skio_pixels* p);
unsigned char skio_mask_channel(uint32_t v, uint32_t mask);

/* An image of a kind skio_image_decode reads, as PNG bytes (RGB when every pixel is opaque, else RGBA). */
int skio_image_to_png(const unsigned char* data, size_t size, const char* name, unsigned char** png, size_t* png_size,
                      skc_err* err);

#endif
