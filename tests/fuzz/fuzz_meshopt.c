/* fuzz_meshopt.c - libFuzzer target for skinkit's own meshopt attribute decoder (io/meshopt_decode.c), in process.
 * Input: byte 0 = stride / 4 - 1 (mod 64), bytes 1..2 = element count (little endian, mod 4096), byte 3 bit 0 = run
 * the COLOR filter on the output (strides 4 and 8), then the stream. Differential: a version 0 stream (header 0xA0)
 * is decoded by the system's libmeshoptimizer too, and the two must agree on success and on every output byte
 * (a disagreement traps). Seeds: tests/fuzz/seeds-fuzz_meshopt/ (make_seeds.py: every attribute stream of the
 * gltfpack fixtures in tests/data, versions 0 and 1). */
#include <meshoptimizer.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skio_meshopt.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  const size_t stride = 4 * (1 + (size_t)(data[0] % 64)), count = (size_t)(data[1] | data[2] << 8) % 4096;
  const int color = data[3] & 1;
  const uint8_t* src = data + 4;
  const size_t len = size - 4;
  uint8_t* ours = malloc(count * stride + 1);
  uint8_t* theirs = malloc(count * stride + 1);
  if (!ours || !theirs) abort();
  int rc = skio_meshopt_decode_attributes(ours, count, stride, src, len);
  if (src[0] == 0xA0) {
    int lib = meshopt_decodeVertexBuffer(theirs, count, stride, src, len);
    if ((rc == 0) != (lib == 0)) __builtin_trap();
    if (rc == 0 && memcmp(ours, theirs, count * stride) != 0) __builtin_trap();
  }
  if (rc == 0 && color && (stride == 4 || stride == 8)) skio_meshopt_filter_color(ours, count, stride);
  free(ours);
  free(theirs);
  return 0;
}
