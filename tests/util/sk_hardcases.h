/* sk_hardcases.h - generated binding cases with reference weights (sk_hardcases.c). */
#ifndef SK_HARDCASES_H
#define SK_HARDCASES_H

#include "skinkit.h"

/* Writes DIR/multipart.glb (an arm in an overlapping sleeve with an embedded eye) and DIR/outside.glb (a
 * cylinder whose skeleton sits beside it), skinned with reference weights. 0 on success, else 1 with err set. */
int skt_write_hard_cases(const char* dir, sk_error* err);

#endif
