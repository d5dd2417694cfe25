/* skio_meshopt.h - what the system's libmeshoptimizer cannot decode of KHR_meshopt_compression: the version 1
 * attribute bitstream (header 0xA1: per-byte control modes, 2-byte delta and 4-byte XOR channels) and the COLOR
 * filter. Debian 12 ships meshoptimizer 0.18, which decodes version 0 and the index modes; gltfpack -cz and
 * -ce khr (meshoptimizer 0.23 and later) write version 1. Written from the extension's specification (Appendix A,
 * mode 0; Appendix B, filter 4). */
#ifndef SKIO_MESHOPT_H
#define SKIO_MESHOPT_H

#include <stddef.h>
#include <stdint.h>

/* Decodes count elements of stride bytes (4..256, a multiple of 4) from the len-byte attribute stream src (version
 * 0 or 1) into dst (count * stride bytes). 0 on success; -1 for an invalid stride or header, -2 for a stream too
 * short for its tail, -3 for a stream that ends early or has bytes left over, -4 for an invalid channel mode. dst
 * may be partly written on failure. Bounded: reads nothing outside src, writes nothing outside dst. */
int skio_meshopt_decode_attributes(void* dst, size_t count, size_t stride, const uint8_t* src, size_t len);

/* The COLOR filter in place: count elements of stride 4 (8-bit components) or 8 (16-bit), YCoCg + alpha to RGBA
 * normalized integers. Values the specification leaves undefined (an alpha with no marker bit, colours that
 * overflow) come out clamped, never as undefined behaviour. -1 for another stride. */
int skio_meshopt_filter_color(void* data, size_t count, size_t stride);

#endif
