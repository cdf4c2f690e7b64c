/* clock.h - device timestamps put back on the host's clock.
 *
 * A kernel cannot start before the runtime call that launched it (matched by
 * correlation id), and an idle GPU starts one microseconds to milliseconds
 * after it. When an input's device timestamps are on another clock than its
 * host timestamps (seen: an nvprof export of an MPI rank whose kernels sit
 * 414,267 s before their launches), pc_clock_align moves each such device's
 * events by one offset so that the earliest launch -> start latency over its
 * pairs is PC_CLOCK_MIN_LATENCY_NS, records the offset in the device's
 * clock_offset_ns and says so once in t->clock_aligned (a warning).
 *
 * Only overwhelming evidence moves anything (a device with at least
 * PC_CLOCK_MIN_PAIRS pairs of which at least 90% have the kernel start before
 * its launch, or whose every pair's latency exceeds both 1 s and the host's
 * whole span): a trace on one clock is left exactly as it was. Drift (the
 * latency floor, the smallest latency of each quarter of the pairs by launch
 * time, moving by over 1 ms along a line the middle quarters' floors keep to,
 * within a tenth of the move or 100 us; at least 16 pairs) is corrected too:
 * the offset then holds at the first quarter's floor launch and the device
 * clock's gain per ns is taken out. Other moves of the floor over 1 ms are only
 * named in the warning. Called by pc_trace_finish after sorting, before the
 * trace's span is taken; never prints. */
#ifndef PC_CLOCK_H
#define PC_CLOCK_H
#include "trace.h"

#define PC_CLOCK_MIN_LATENCY_NS 1000 /* the earliest launch -> start latency after alignment */
#define PC_CLOCK_MIN_PAIRS 3         /* pairs a device needs before its clock is judged */

/* Aligns the devices whose clock is shown to differ; returns how many were moved.
 * The GPU array may be re-sorted; host events are never moved. */
int pc_clock_align(pc_trace *t);
#endif
