/* abi_deform.c - deformer entry points: sk_deform_validate, sk_deform_run, sk_cpu_kernel. */
#include <stddef.h>

#include "abi_internal.h"
#include "skc_deform.h"

_Static_assert((int)SK_DEFORM_LBS == (int)SKC_DEFORM_LBS && (int)SK_DEFORM_DQS == (int)SKC_DEFORM_DQS &&
                   (int)SK_DEFORM_RIGID == (int)SKC_DEFORM_RIGID && (int)SK_DEFORM_COR == (int)SKC_DEFORM_COR,
               "deform methods differ");
_Static_assert((int)SK_DEFORM_ADDITIVE == (int)SKC_DEFORM_ADDITIVE &&
                   (int)SK_DEFORM_NORMALIZE_WEIGHTS == (int)SKC_DEFORM_NORMALIZE_WEIGHTS &&
                   (int)SK_DEFORM_NORMAL_FAST == (int)SKC_DEFORM_NORMAL_FAST &&
                   (int)SK_DEFORM_NO_RENORMALIZE == (int)SKC_DEFORM_NO_RENORMALIZE &&
                   (int)SK_DEFORM_IMPLIED_LAST_WEIGHT == (int)SKC_DEFORM_IMPLIED_LAST_WEIGHT,
               "deform flags differ");

static void to_args(const sk_deform_job* j, skc_deform_args* a) {
  a->method = j->method;
  a->flags = j->flags;
  a->threads = j->threads;
  a->vertex_count = j->vertex_count;
  a->palette = j->palette;
  a->joint_count = j->joint_count;
  a->influences = j->influences;
  a->joint_type = (int)j->joint_type;
  a->weight_type = (int)j->weight_type;
  a->joints = j->joints;
  a->joints_stride = j->joints_stride;
  a->weights = j->weights;
  a->weights_stride = j->weights_stride;
  a->csr_offsets = j->csr_offsets;
  a->csr_joints = j->csr_joints;
  a->csr_weights = j->csr_weights;
  a->in_positions = j->in_positions;
  a->in_positions_stride = j->in_positions_stride;
  a->out_positions = j->out_positions;
  a->out_positions_stride = j->out_positions_stride;
  a->in_normals = j->in_normals;
  a->in_normals_stride = j->in_normals_stride;
  a->out_normals = j->out_normals;
  a->out_normals_stride = j->out_normals_stride;
  a->in_tangents = j->in_tangents;
  a->in_tangents_stride = j->in_tangents_stride;
  a->out_tangents = j->out_tangents;
  a->out_tangents_stride = j->out_tangents_stride;
  a->tangent_components = j->tangent_components;
  a->centers = j->centers;
  a->centers_stride = j->centers_stride;
}

/* The ABI 1.4 job ended before `centers`. */
#define SK__DEFORM_JOB_SIZE_1_4 offsetof(sk_deform_job, centers)

/* Copies the caller's job (current or ABI 1.4 size; the missing fields read as 0) into args. */
static sk_result job_args(const sk_deform_job* job, skc_deform_args* a, sk_error* err) {
  if (!job) SK__FAIL(err, SKC_INVALID_ARGUMENT, "sk_deform_job pointer must not be NULL");
  if (job->size != sizeof(sk_deform_job) && job->size != SK__DEFORM_JOB_SIZE_1_4)
    SK__FAIL(err, SKC_STRUCT_SIZE, "sk_deform_job.size is %u, this library expects %zu (set it to sizeof; %zu, the "
             "ABI 1.4 size, is accepted without COR)", (unsigned)job->size, sizeof(sk_deform_job),
             (size_t)SK__DEFORM_JOB_SIZE_1_4);
  sk_deform_job full;
  memset(&full, 0, sizeof full);
  memcpy(&full, job, job->size);
  if (job->size < sizeof(sk_deform_job) && full.method == SK_DEFORM_COR)
    SK__FAIL(err, SKC_INVALID_ARGUMENT, "method COR needs the centers fields of ABI 1.5: sk_deform_job.size is %u, "
             "set it to sizeof(sk_deform_job) = %zu", (unsigned)job->size, sizeof(sk_deform_job));
  to_args(&full, a);
  return SK_OK;
}

SK_API sk_result sk_deform_validate(const sk_deform_job* job, sk_error* err) {
  skc_deform_args a;
  sk_result rc = job_args(job, &a, err);
  if (rc) return rc;
  skc_err e;
  return sk__ret(skc_deform_validate(&a, &e), &e, err);
}

SK_API sk_result sk_deform_run(const sk_deform_job* job, sk_error* err) {
  skc_deform_args a;
  sk_result rc = job_args(job, &a, err);
  if (rc) return rc;
  skc_err e;
  return sk__ret(skc_deform_run(&a, &e), &e, err);
}

SK_API const char* sk_cpu_kernel(void) { return skc_deform_kernel_name(skc_deform_active_kernel()); }
