/* skf_decode.c - compiles the one .skf decoder (io/runtime/skf_decoder.h) into the library. */
#define SKF_DECODER_IMPLEMENTATION
#include "skf.h"

#include "skc_status.h"

_Static_assert((int)SKF_ERR_FORMAT == (int)SKC_FORMAT && (int)SKF_ERR_TRUNCATED == (int)SKC_TRUNCATED && (int)SKF_ERR_CHECKSUM == (int)SKC_CHECKSUM &&
                   (int)SKF_ERR_VERSION == (int)SKC_VERSION && (int)SKF_ERR_UNSUPPORTED == (int)SKC_UNSUPPORTED &&
                   (int)SKF_ERR_OUT_OF_RANGE == (int)SKC_OUT_OF_RANGE && (int)SKF_ERR_OUT_OF_MEMORY == (int)SKC_OUT_OF_MEMORY &&
                   (int)SKF_ERR_INVALID_ARGUMENT == (int)SKC_INVALID_ARGUMENT && (int)SKF_ERR_NOT_FOUND == (int)SKC_NOT_FOUND,
               "skf_result and skc_status differ");

int skio_skf_status(int code, const skf_error* e, skc_err* err) {
  if (code == SKF_OK) {
    skc_err_clear(err);
    return SKC_OK;
  }
  return skc_fail(err, code, "%s", e && e->message[0] ? e->message : skf_result_string(code));
}
