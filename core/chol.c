/* chol.c - triplet -> sparse -> analyze -> factorize with CHOLMOD (see skc_chol.h). */
#include "skc_chol.h"

cholmod_factor* skc_chol_factor_triplet(cholmod_triplet** T, size_t nnz, cholmod_common* cm, cholmod_sparse** out_a,
                                        int* oom) {
  *oom = 0;
  cholmod_sparse* A = cholmod_triplet_to_sparse(*T, nnz, cm);
  cholmod_free_triplet(T, cm);
  if (!A) {
    *oom = 1;
    return NULL;
  }
  cholmod_factor* L = cholmod_analyze(A, cm);
  if (!L) {
    *oom = cm->status == CHOLMOD_OUT_OF_MEMORY;
    cholmod_free_sparse(&A, cm);
    return NULL;
  }
  cholmod_factorize(A, L, cm);
  if (cm->status != CHOLMOD_OK || L->minor < L->n) {
    *oom = cm->status == CHOLMOD_OUT_OF_MEMORY;
    cholmod_free_factor(&L, cm);
    cholmod_free_sparse(&A, cm);
    return NULL;
  }
  *out_a = A;
  return L;
}
