/* gpumetrics.h - GPU utilization, estimated SM efficiency and estimated
 * achieved occupancy per device, with the definitions of PyTorch's
 * TensorBoard plugin (torch_tb_profiler/profiler/gpu_metrics_parser.py):
 *
 *   GPU utilization = time at least one kernel runs, within the steps'
 *     span [first step start, last step end), over that span's length.
 *   Est. SM efficiency = for each instant, the sum of "blocks per SM" of the
 *     kernels running, capped at 1; averaged over the steps' span (idle
 *     instants count as 0).
 *   Est. achieved occupancy = Kineto's per-kernel "est. achieved occupancy %",
 *     averaged weighted by each kernel's duration inside the steps' span.
 *   Utilization timeline: buckets of 10^k µs so that there are at most 100
 *     over [global start, global end) (the profiler's own span when the trace
 *     has one), the last bucket taking the remainder; value = busy time in the
 *     bucket over the bucket's length.
 */
#ifndef PC_GPUMETRICS_H
#define PC_GPUMETRICS_H
#include <stddef.h>
#include <stdint.h>
#include "../model/trace.h"

typedef struct gm_result {
    int64_t busy_ns;
    double util;              /* 0..1 */
    double sm_eff;            /* 0..1, < 0 when no kernel has blocks per SM */
    double occupancy;         /* percent, < 0 when no kernel has it */
    int64_t bucket_ns;        /* timeline bucket size */
    size_t nbuckets;
    int64_t *bucket_start;    /* [nbuckets + 1]: starts, then the end */
    double *bucket_util;      /* [nbuckets] 0..1 */
    size_t nsm;               /* SM efficiency ranges (the plugin's timeline), if asked for */
    int64_t *sm_start, *sm_end;
    double *sm_value;
} gm_result;

/* Computes the metrics of one device; the SM efficiency ranges only when
 * sm_ranges (memory in proportion to the kernels). Caller frees with gm_free. */
void gm_compute(const pc_trace *t, int device, int64_t steps_start, int64_t steps_end, int64_t global_start,
                int64_t global_end, int sm_ranges, gm_result *r);
void gm_free(gm_result *r);
#endif
