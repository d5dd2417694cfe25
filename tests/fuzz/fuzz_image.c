/* fuzz_image.c - libFuzzer target for the TGA, BMP and DDS decoders of our own (io/image_decode.c, io/image_dds.c,
 * io/image_bptc.c for BC7 / BC6H) and the PNG writer
 * behind them. Input: one selector byte (bit 0 set: the bytes are named "fuzz.tga", so a TGA is tried; clear: no
 * name, so only a BMP, a DDS or a TGA with the 2.0 footer is), then the image bytes. A decoded image of at most 1 Mi
 * pixels is written as PNG (a run-length file declares up to 64 Mi pixels in a few bytes; decoding them is what is
 * fuzzed, filtering and deflating them would be seconds an input). Seeds: tests/fuzz/seeds-fuzz_image/ (the fixtures of
 * tests/data/images/ with their selector byte). */
#include <stdint.h>
#include <stdlib.h>

#include "skio_image.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const char* name = data[0] & 1 ? "fuzz.tga" : NULL;
  skio_pixels p;
  if (skio_image_decode(data + 1, size - 1, name, &p, NULL) != SKC_OK) return 0;
  size_t n = 0;
  if ((uint64_t)p.w * p.h <= (1u << 20)) free(skio_png_encode(p.rgba, p.w, p.h, 4, &n));
  free(p.rgba);
  return 0;
}
