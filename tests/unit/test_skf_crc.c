/* test_skf_crc.c - the runtime decoder's CRC-32 (io/runtime/skf_decoder.h: carry-less multiplication where the CPU
 * has PCLMULQDQ, zlib otherwise) equals zlib's crc32 for every length 0..1100 at every alignment, from several
 * initial values, and over a buffer past 4 MiB. The header is compiled here with its API static, so its internal
 * skf__crc is reachable. */
#pragma GCC diagnostic ignored "-Wunused-function"
#define SKF_API static
#define SKF_DECODER_IMPLEMENTATION
#include "runtime/skf_decoder.h"

#include <check.h>
#include <stdlib.h>

START_TEST(crc_matches_zlib) {
  enum { N = 1100 };
  static unsigned char buf[N + 16];
  static const uint32_t init[] = {0u, 0xffffffffu, 0x12345678u};
  uint32_t s = 12345u;
  for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (unsigned char)((s = s * 1664525u + 1013904223u) >> 24);
  for (size_t c = 0; c < 3; ++c)
    for (size_t off = 0; off < 16; ++off)
      for (size_t n = 0; n <= N; ++n) {
        uint32_t want = (uint32_t)crc32(init[c], buf + off, (uInt)n), got = skf__crc(init[c], buf + off, n);
        ck_assert_msg(got == want, "length %zu at offset %zu from %08x: %08x, zlib %08x", n, off, init[c], got, want);
      }
}
END_TEST

START_TEST(crc_large) {
  const size_t n = (4u << 20) + 77u;
  unsigned char* b = malloc(n);
  ck_assert_ptr_nonnull(b);
  for (size_t i = 0; i < n; ++i) b[i] = (unsigned char)(i * 131u + (i >> 9));
  ck_assert_uint_eq(skf__crc(0u, b, n), (uint32_t)crc32(0u, b, (uInt)n));
  b[n / 2] ^= 1u; /* one flipped bit changes it */
  ck_assert_uint_ne(skf__crc(0u, b, n), skf__crc(0u, b, n) ^ 1u);
  ck_assert_uint_eq(skf__crc(0u, b, n), (uint32_t)crc32(0u, b, (uInt)n));
  free(b);
}
END_TEST

int main(void) {
#if defined(SKF__CLMUL)
  printf("skf CRC-32: %s\n", skf__has_clmul() ? "PCLMULQDQ" : "zlib (no PCLMULQDQ on this CPU)");
#else
  printf("skf CRC-32: zlib (no carry-less path in this build)\n");
#endif
  Suite* s = suite_create("skf_crc");
  TCase* t = tcase_create("crc");
  tcase_add_test(t, crc_matches_zlib);
  tcase_add_test(t, crc_large);
  suite_add_tcase(s, t);
  SRunner* r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
