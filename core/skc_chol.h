/* skc_chol.h - the sparse Cholesky step shared by bone heat (bind_heat.c) and weight inpainting
 * (weights_transfer.c), on SuiteSparse CHOLMOD. */
#ifndef SKC_CHOL_H
#define SKC_CHOL_H

#include <stddef.h>
#include <suitesparse/cholmod.h>

/* Converts the symmetric (lower) triplet matrix *T (freed, *T = NULL) with nnz entries to a sparse matrix,
 * orders, analyzes and factorizes it. Returns L and *out_a = the sparse matrix (both owned by the caller), or
 * NULL with everything freed and *oom = 1 when memory ran out, 0 when the matrix is not positive definite or
 * CHOLMOD failed otherwise. */
cholmod_factor* skc_chol_factor_triplet(cholmod_triplet** T, size_t nnz, cholmod_common* cm, cholmod_sparse** out_a,
                                        int* oom);

#endif
