/* skc_status.h - result codes and error reporting shared by every layer.
 *
 * One X-macro list generates the enum and the message table. plugin/skinkit.h repeats the numeric values in
 * its public sk_result enum; plugin/abi_common.c checks at compile time that both agree.
 */
#ifndef SKC_STATUS_H
#define SKC_STATUS_H

#include <stddef.h>

#define SKC_STATUS_LIST(X)                                                                   \
  X(OK, 0, "success")                                                                       \
  X(INVALID_ARGUMENT, 1, "invalid argument")                                                \
  X(OUT_OF_MEMORY, 2, "out of memory")                                                      \
  X(OUT_OF_RANGE, 3, "index or count out of range")                                         \
  X(BAD_HIERARCHY, 4, "joint hierarchy is not parents-before-children or has a cycle")      \
  X(SINGULAR_MATRIX, 5, "matrix is singular or not finite")                                 \
  X(NOT_FOUND, 6, "not found")                                                              \
  X(IO, 7, "file could not be read or written")                                             \
  X(FORMAT, 8, "data is malformed or of an unknown format")                                 \
  X(UNSUPPORTED, 9, "unsupported feature or format")                                        \
  X(TRUNCATED, 10, "data is truncated")                                                     \
  X(CHECKSUM, 11, "checksum mismatch")                                                      \
  X(VERSION, 12, "unsupported version")                                                     \
  X(NO_SKIN, 13, "no skinned mesh or skeleton")                                             \
  X(STRUCT_SIZE, 14, "struct size field does not match this library")                      \
  X(NO_SOLUTION, 15, "the solver found no solution")                                        \
  X(CANCELLED, 16, "cancelled")                                                             \
  X(EXISTS, 17, "output exists")                                                            \
  X(INTERNAL, 18, "internal error")

typedef enum skc_status {
#define SKC_STATUS_ENUM(name, value, msg) SKC_##name = value,
  SKC_STATUS_LIST(SKC_STATUS_ENUM)
#undef SKC_STATUS_ENUM
  SKC_STATUS_COUNT
} skc_status;

#define SKC_ERR_MESSAGE_SIZE 256

/* Caller-owned error record. Functions taking an skc_err* accept NULL. */
typedef struct skc_err {
  int code;
  char message[SKC_ERR_MESSAGE_SIZE];
} skc_err;

/* Static description of a status code; never NULL. */
const char* skc_status_string(int code);

/* Records code and a printf-style message into err (if non-NULL) and returns code. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int skc_fail(skc_err* err, int code, const char* fmt, ...);

/* Marks err as success (code 0, empty message). */
void skc_err_clear(skc_err* err);

#endif
