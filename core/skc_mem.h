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

/* realloc for such an array that grows: the first old_n bytes of p (a malloc block or NULL) moved to a block of n
 * bytes, big as above when n >= SKC_BIG_BLOCK; NULL (p kept) when out of memory. */
void* skc_realloc_big(void* p, size_t old_n, size_t n);

#endif
