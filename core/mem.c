/* mem.c - large work arrays in huge pages (see skc_mem.h).
 *
 * glibc maps every block above its mmap threshold (at most 32 MiB, less before the first large free) fresh from
 * the kernel, so a bind of a 200k-vertex mesh faults its BVH, its candidate lists and its matrix pattern in 4 KiB
 * at a time on every call, and on virtual machines a fault costs ~9 us (docs/bind.md, session 32: an in-process
 * 200k bind 0.80-1.0 s cold against 0.60 s with glibc's hugetlb tunable). The CLI advises its heap for itself
 * (plugin/cli_main.c); a program calling the library keeps its own malloc settings, so the library advises its own
 * large arrays. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skc_mem.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20)

void skc_advise_huge(void* p, size_t n) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!p || n < SKC_BIG_BLOCK) return;
  uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
  uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);
  if (b > a) (void)madvise((void*)a, b - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

void* skc_malloc_filled(size_t n) {
  void* p = skc_malloc_big(n); /* huge pages advised first where n is large: the population then takes them */
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  if (p && n >= SKC_FILLED_BLOCK) {
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, b = ((uintptr_t)p + n) & ~(uintptr_t)4095;
    if (b > a) (void)madvise((void*)a, b - a, MADV_POPULATE_WRITE);
  }
#endif
  return p;
}

/* A large block starts on a huge page (glibc's own start 16 bytes past a 4 KiB one, which leaves the first 2 MiB to
 * 4 KiB faults) and ends on one when that costs at most an eighth more memory. */
void* skc_malloc_big(size_t n) {
  if (n < SKC_BIG_BLOCK) return malloc(n ? n : 1);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  void* p = NULL;
  if (n > SIZE_MAX - HUGE_PAGE) return NULL;
  size_t up = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  if (up - n <= n / 8) n = up;
  if (posix_memalign(&p, HUGE_PAGE, n)) return NULL;
#else
  void* p = malloc(n);
#endif
  skc_advise_huge(p, n);
  return p;
}

void* skc_calloc_big(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  size_t n = count * size;
  if (n < SKC_BIG_BLOCK) return calloc(count ? count : 1, size ? size : 1);
  void* p = skc_malloc_big(n); /* advised before the zeroing touches it (calloc would touch a reused block first) */
  if (p) memset(p, 0, n);
  return p;
}

void* skc_realloc_big(void* p, size_t old_n, size_t n) {
  if (n < SKC_BIG_BLOCK) return realloc(p, n ? n : 1);
  void* q = skc_malloc_big(n);
  if (!q) return NULL;
  if (p) memcpy(q, p, old_n < n ? old_n : n);
  free(p);
  return q;
}
