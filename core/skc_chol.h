/* skc_chol.h - the sparse Cholesky step shared by bone heat (bind_heat.c) and weight inpainting
 * (weights_transfer.c), on SuiteSparse CHOLMOD. */
#ifndef SKC_CHOL_H
#define SKC_CHOL_H

#include <stddef.h>
#include <suitesparse/cholmod.h>

/* CHOLMOD is loaded on first use (chol_lazy.c). NULL when it is there (loading it if need be), else why not. */
const char* skc_chol_unavailable(void);

/* SuiteSparse's settings (its allocator): NULL without CHOLMOD; _if_loaded never loads it. */
struct SuiteSparse_config_struct* skc_chol_config(void);
struct SuiteSparse_config_struct* skc_chol_config_if_loaded(void);

/* A symbol of CHOLMOD or of a library it loaded (its BLAS), NULL when absent or CHOLMOD is unavailable. */
void* skc_chol_symbol(const char* name);

/* cholmod_start, quiet (no printing, no error handler: callers read cm->status), and supernodes amalgamated more
 * than CHOLMOD's defaults; on Linux CHOLMOD's allocator is wrapped so that its large blocks are advised huge pages
 * (see chol.c). Returns 0 when CHOLMOD is unavailable (cm->status is then CHOLMOD_NOT_INSTALLED). */
int skc_chol_start(cholmod_common* cm);

/* 0 when the process cannot map the BLAS's work buffer (OpenBLAS asks malloc for ~128 MiB per thread the first time
 * a supernodal factorization or solve calls it, and on failure retries forever: a bind under `ulimit -v 300000`
 * hung). Callers then factorize simplicially, which calls no BLAS. 1 when it can, or where this is not checked. */
int skc_chol_blas_room(void);

/* 1 when CHOLMOD's allocator is the huge-page wrapper (after skc_chol_start, on Linux). */
int skc_chol_huge_pages(void);

/* One BLAS thread while our solves run: the bind's own threads already share the cores, and a multithreaded BLAS
 * (OpenBLAS, found by name at run time) would add its workers to them for blocks worth microseconds. Nested and
 * concurrent callers are counted: the first saves the BLAS's thread count, the last restores it. Nothing happens
 * when the BLAS is not OpenBLAS or OPENBLAS_NUM_THREADS / GOTO_NUM_THREADS is set (the user chose). Returns a token
 * for skc_blas_serial_end. */
int skc_blas_serial_begin(void);
void skc_blas_serial_end(int token);

/* Converts the symmetric (lower) triplet matrix *T (freed, *T = NULL) with nnz entries to a sparse matrix,
 * orders, analyzes and factorizes it. Returns L and *out_a = the sparse matrix (both owned by the caller), or
 * NULL with everything freed and *oom = 1 when memory ran out, 0 when the matrix is not positive definite or
 * CHOLMOD failed otherwise. */
cholmod_factor* skc_chol_factor_triplet(cholmod_triplet** T, size_t nnz, cholmod_common* cm, cholmod_sparse** out_a,
                                        int* oom);

#endif
