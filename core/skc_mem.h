/* skc_mem.h - large work arrays in huge pages. */
#ifndef SKC_MEM_H
#define SKC_MEM_H

#include <stddef.h>

/* Blocks of at least this many bytes (one 2 MiB page) get the advice. */
#define SKC_BIG_BLOCK ((size_t)2 << 20)

/* Advises the whole 2 MiB pages inside [p, p + n) MADV_HUGEPAGE when n >= SKC_BIG_BLOCK (Linux; nothing
 * elsewhere). Call it before the block is first written: pages already touched stay 4 KiB. */
void skc_advise_huge(void* p, size_t n);

/* malloc / calloc for a work array of n bytes (calloc: count * size, overflow-checked) that the caller will fill
 * whole: advised as above before any page is touched, released with free(). */
void* skc_malloc_big(size_t n);
void* skc_calloc_big(size_t count, size_t size);

/* malloc for an array of n bytes the caller writes whole right after (a file read into it, an accessor decoded):
 * from SKC_FILLED_BLOCK bytes on, its whole pages are faulted in by one call (Linux MADV_POPULATE_WRITE, 5.14+;
 * nothing elsewhere or where the kernel refuses) instead of one page fault per 4 KiB page as it is written. On the
 * virtual machine measured (docs/benchmarks.md, session 63) a fresh 2 MiB block cost 3 ms of system time page by
 * page and 0.3-0.5 ms so. Released with free(). */
#define SKC_FILLED_BLOCK ((size_t)64 << 10)
void* skc_malloc_filled(size_t n);

/* realloc for such an array that grows: the first old_n bytes of p (a malloc block or NULL) moved to a block of n
 * bytes, big as above when n >= SKC_BIG_BLOCK; NULL (p kept) when out of memory. */
void* skc_realloc_big(void* p, size_t old_n, size_t n);

#endif
