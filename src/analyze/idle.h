/* idle.h - every GPU idle gap of a device, classified by what ends it (#44 item 1).
 *
 * A gap is an interval when no kernel runs on the device (the complement of
 * the kernels' busy time that gpu.devices[].utilization_pct counts), from the
 * end of the busy time before it to the start of the kernel that ends it.
 * By what ends it:
 *   IDLE_HOST_LATE  that kernel's launch call began after the gap began: the
 *                   host was late (what host-side changes can give back), up
 *                   to that call's return; when the kernel starts IDLE_HELD_NS
 *                   (1 ms) or more after the return, the device held it queued
 *                   and the rest of the gap is classified as below;
 *   IDLE_DEPENDENCY it was launched at or before the gap's start (or the rest
 *                   after its return, above) and it is a collective (NCCL and
 *                   other stacks' communication kernels: it waits on its
 *                   peers); and, in any gap or rest that is not host-late, the
 *                   instants when a copy or memset runs on the device (the
 *                   kernels wait on work the trace shows). A stream's wait on
 *                   an event (cudaStreamWaitEvent) is no dependency: in a gap
 *                   no traced kernel runs, so an event that holds the kernel
 *                   through it is held by work the trace does not show;
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
 *                   trace has no steps (the one window is the whole trace),
 *                   up to the first kernel's launch return when it starts
 *                   IDLE_HELD_NS or more after it (the rest as above); with steps,
 *                   only the part before the first step's start (from there it
 *                   is a gap beginning at that start);
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

/* 1 when name (a runtime or driver call) launches a CUDA or HIP graph:
 * cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch, with or without a version suffix. */
int idle_is_graph_launch(const char *name);
#endif
