/* abi_internal.h - helpers shared by the plugin/abi_*.c files (not installed). */
#ifndef SK_ABI_INTERNAL_H
#define SK_ABI_INTERNAL_H

#include <string.h>

#include "skc_status.h"
#include "skc_weights.h"
#include "skinkit.h"

/* Copies a core error into the caller's sk_error (may be NULL) and returns the code as sk_result. */
static inline sk_result sk__ret(int code, const skc_err* e, sk_error* out) {
  if (out) {
    out->code = code;
    if (code == 0) {
      out->message[0] = '\0';
    } else {
      const char* msg = (e && e->message[0]) ? e->message : skc_status_string(code);
      size_t n = strlen(msg);
      if (n >= sizeof out->message) n = sizeof out->message - 1;
      memcpy(out->message, msg, n);
      out->message[n] = '\0';
    }
  }
  return (sk_result)code;
}

/* Records a failure with a formatted message directly into the caller's sk_error. */
#define SK__FAIL(out, rc_, ...)                    \
  do {                                             \
    skc_err sk__e_;                                \
    skc_fail(&sk__e_, (rc_), __VA_ARGS__);         \
    return sk__ret(sk__e_.code, &sk__e_, (out));   \
  } while (0)

/* Every desc/job/report struct starts with uint32_t size; this ABI major accepts exactly its own size. */
#define SK__CHECK_SIZE(ptr, type, out)                                                                  \
  do {                                                                                                  \
    if (!(ptr)) SK__FAIL(out, SKC_INVALID_ARGUMENT, #type " pointer must not be NULL");                 \
    if ((ptr)->size != sizeof(type))                                                                    \
      SK__FAIL(out, SKC_STRUCT_SIZE, #type ".size is %u, this library expects %zu (set it to sizeof)", \
               (unsigned)(ptr)->size, sizeof(type));                                                    \
  } while (0)

/* The scene handle (abi_scene.c, abi_scene_read.c): the io scene and its objects listed at load. */
struct skio_scene;
struct skio_listed_object;
struct sk_scene {
  struct skio_scene* io;
  struct skio_listed_object* objects; /* sk_scene_object_*: listed at load (skio_scene_list_objects) */
  uint32_t object_count;
};

/* abi_weights.c: a core weights report's counters into the caller's (NULL: nothing). */
void sk__report_out(const skc_wreport* r, sk_weights_report* out);
/* abi_weights.c: the row operation of an SK_RECORDS_* kind and its descriptor, checked as the sk_weights_* function
 * checks it (used by sk_records_edit; SK_RECORDS_ROUND, Blender's per-weight Quantize, exists only there). */
sk_result sk__wrow_from_desc(uint32_t kind, const void* desc, size_t vertex_count, uint32_t joint_count,
                             skc_wrow_op* op, skc_wscope* sc, sk_error* err);

#endif
