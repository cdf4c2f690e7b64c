/* idle.h - every GPU idle gap of a device, classified by what ends it (#44 item 1).
 *
 * A gap is an interval when no kernel, copy or memset runs on the device
 * (idle_is_work: a copy or memset is work the device does, not a wait; as
 * Holistic Trace Analysis' temporal breakdown counts it, non-compute time,
 * not idle), from the end of the work before it to the start of the work
 * (kernel, copy or memset) that ends it. gpu.devices[].utilization_pct counts
 * kernels only (the TensorBoard plugin's definition), so the idle time is at
 * most the rest of the window, less by the copies run outside kernels.
 * By what ends it:
 *   IDLE_HOST_LATE  that work's launch call (a kernel launch, cudaMemcpyAsync,
 *                   cudaMemsetAsync...) began after the gap began, or it is a
 *                   copy from pageable host memory whose call was running when
 *                   the gap began (the host stages that memory inside the call):
 *                   the host was late (what host-side changes can give back),
 *                   up to that call's return; when the work starts IDLE_HELD_NS (1 ms) or
 *                   more after the return, the device held it queued and the
 *                   rest of the gap is classified as below;
 *   IDLE_DEPENDENCY it was launched at or before the gap's start (or the rest
 *                   after its return, above) and it is a collective (NCCL and
 *                   other stacks' communication kernels: it waits on its
 *                   peers). A stream's wait on an event (cudaStreamWaitEvent)
 *                   is no dependency: in a gap no traced work runs, so an event
 *                   that holds the next work through it is held by work the
 *                   trace does not show;
 *   IDLE_DISPATCH   it was launched at or before the gap's start, nothing
 *                   above explains the wait, and the gap is shorter than the
 *                   kernel-wait threshold (short_ns): the device's own
 *                   dispatch between work already queued;
 *   IDLE_QUEUED     it was launched at or before the gap's start (or has no
 *                   launch call in a trace that records launches), nothing
 *                   above explains the wait, and the gap is short_ns or
 *                   longer: the device waited on work the trace does not
 *                   show (CUDA/HIP graph nodes not traced, work launched
 *                   before the capture, another device);
 *   IDLE_STARTUP    before the device's first work in the trace, when the
 *                   trace has no steps (the one window is the whole trace),
 *                   up to the first work's launch return when it starts
 *                   IDLE_HELD_NS or more after it (the rest as above); with steps,
 *                   only the part before the first step's start (from there it
 *                   is a gap beginning at that start);
 *   IDLE_TAIL       after its last work;
 *   IDLE_UNLINKED   the trace records no runtime or driver calls at all, so
 *                   when anything was launched is unknown (MindSpore's timelines).
 * The classes partition the idle time: inside the window [ss, se) they sum to
 * gpu.devices[].idle.total_ns. Each gap is counted in the window and in each
 * step window it overlaps (the part inside it). */
#ifndef PC_IDLE_H
#define PC_IDLE_H
#include <stdint.h>
#include "analyze.h"

enum { IDLE_HELD_NS = 1000000 }; /* a kernel starting this long after its launch returned was held queued */
enum { IDLE_HOST_LATE = 0, IDLE_QUEUED, IDLE_DEPENDENCY, IDLE_DISPATCH, IDLE_STARTUP, IDLE_TAIL, IDLE_UNLINKED, IDLE_N };

typedef struct idle_split {
    int64_t ns[IDLE_N];          /* per class, inside [ss, se) */
    int64_t host_late_short_ns;  /* host-late gaps shorter than short_ns, inside [ss, se) */
    int64_t *step_ns;            /* [nsteps * IDLE_N]: step k's class q at [k * IDLE_N + q] (spill_free) */
    int graphs;                  /* queued gaps ended by a kernel launched by a graph launch call */
    int64_t graph_queued_ns;     /* of ns[IDLE_QUEUED], the gaps ended by such a kernel */
} idle_split;

/* Classifies the gaps of device `device` (see above); short_ns: the
 * kernel-wait threshold for host_late_short_ns. out->step_ns is allocated. */
void idle_classify(const an_ctx *c, int device, int64_t ss, int64_t se, int64_t short_ns, idle_split *out);
void idle_split_free(idle_split *s);

/* 1 when e is work of the device that the idle timeline counts as busy:
 * a kernel, a copy or a memset (not an annotation or a synchronization). */
int idle_is_work(const pc_gpu_event *e);

/* 1 when name (a runtime or driver call) launches a CUDA or HIP graph:
 * cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch, with or without a version suffix. */
int idle_is_graph_launch(const char *name);
#endif
