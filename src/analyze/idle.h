/* idle.h - every GPU idle gap of a device, classified by what ends it (#44 item 1).
 *
 * A gap is an interval when no kernel runs on the device (the complement of
 * the kernels' busy time that gpu.devices[].utilization_pct counts), from the
 * end of the busy time before it to the start of the kernel that ends it.
 * By what ends it:
 *   IDLE_HOST_LATE  that kernel's launch call began after the gap began: the
 *                   host was late (what host-side changes can give back);
 *   IDLE_DEPENDENCY it was launched at or before the gap's start and it waits
 *                   on something the trace shows: it is a collective (NCCL
 *                   and other stacks' communication kernels), or it is the
 *                   first GPU op of its launch call and a StreamWaitEvent call
 *                   (cuda, cu, hip) came on the launching thread after that
 *                   thread's previous call that launched GPU work; and, in a
 *                   gap that is not host-late, the parts when a copy or memset
 *                   runs on the device (the kernels wait on work the trace
 *                   shows; the rest of that gap keeps the gap's class);
 *   IDLE_DISPATCH   it was launched at or before the gap's start, nothing
 *                   above explains the wait, and the gap is shorter than the
 *                   kernel-wait threshold (short_ns): the device's own
 *                   kernel-to-kernel dispatch between work already queued;
 *   IDLE_QUEUED     it was launched at or before the gap's start (or has no
 *                   launch call in a trace that records launches), nothing
 *                   above explains the wait, and the gap is short_ns or
 *                   longer: the device waited on work the trace does not
 *                   show (CUDA/HIP graph nodes not traced, work launched
 *                   before the capture, another device);
 *   IDLE_STARTUP    before the device's first kernel in the trace, when the
 *                   trace has no steps (the one window is the whole trace:
 *                   start-up); with steps, the part of that gap inside the
 *                   steps' span is classified as any gap beginning at the
 *                   span's start (what the host did from the first step's
 *                   start) and only the part before it is start-up;
 *   IDLE_TAIL       after its last kernel;
 *   IDLE_UNLINKED   the trace records no runtime or driver calls at all, so
 *                   when anything was launched is unknown (MindSpore's timelines).
 * The classes partition the idle time: inside the window [ss, se) they sum to
 * gpu.devices[].idle.total_ns. Each gap is counted in the window and in each
 * step window it overlaps (the part inside it). */
#ifndef PC_IDLE_H
#define PC_IDLE_H
#include <stdint.h>
#include "analyze.h"

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

/* 1 when name (a runtime or driver call) launches a CUDA or HIP graph:
 * cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch, with or without a version suffix. */
int idle_is_graph_launch(const char *name);
/* 1 when name is a stream's wait on an event: cudaStreamWaitEvent, cuStreamWaitEvent, hipStreamWaitEvent. */
int idle_is_wait_event(const char *name);
#endif
