/* abi_common.c - version, ABI and result-code functions. */
#include "abi_internal.h"
#include "sk_version.h"

/* The public enum repeats core's numeric codes: keep them in lock step. */
#define SK__SAME(name) _Static_assert((int)SK_ERR_##name == (int)SKC_##name, "result code " #name " differs");
SK__SAME(INVALID_ARGUMENT)
SK__SAME(OUT_OF_MEMORY)
SK__SAME(OUT_OF_RANGE)
SK__SAME(BAD_HIERARCHY)
SK__SAME(SINGULAR_MATRIX)
SK__SAME(NOT_FOUND)
SK__SAME(IO)
SK__SAME(FORMAT)
SK__SAME(UNSUPPORTED)
SK__SAME(TRUNCATED)
SK__SAME(CHECKSUM)
SK__SAME(VERSION)
SK__SAME(NO_SKIN)
SK__SAME(STRUCT_SIZE)
SK__SAME(NO_SOLUTION)
SK__SAME(CANCELLED)
SK__SAME(EXISTS)
SK__SAME(INTERNAL)
_Static_assert(SKC_STATUS_COUNT == SK_ERR_INTERNAL + 1, "a core status code is missing from skinkit.h");
_Static_assert(SK_ERROR_MESSAGE_SIZE == SKC_ERR_MESSAGE_SIZE, "error message sizes differ");
_Static_assert(SK_ABI_MAJOR == SK_BUILD_ABI_MAJOR && SK_ABI_MINOR == SK_BUILD_ABI_MINOR,
               "skinkit.h ABI version differs from CMakeLists.txt");
_Static_assert(SK_VERSION == SK_BUILD_VERSION_MAJOR * 10000 + SK_BUILD_VERSION_MINOR * 100 + SK_BUILD_VERSION_PATCH,
               "skinkit.h SK_VERSION differs from CMakeLists.txt");

SK_API uint32_t sk_version(void) { return SK_VERSION; }
SK_API const char* sk_version_string(void) { return SK_BUILD_VERSION_STRING; }
SK_API uint32_t sk_abi_major(void) { return SK_ABI_MAJOR; }
SK_API uint32_t sk_abi_minor(void) { return SK_ABI_MINOR; }
SK_API const char* sk_result_string(sk_result result) { return skc_status_string((int)result); }
