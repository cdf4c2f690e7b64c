/* links.h - who launched what: the relations every analyzer shares.
 *
 * Built once per trace (links_build) and read by the analyzers:
 *  - parent[i]: the innermost host range enclosing host event i on the same
 *    thread (operators, annotations, python functions, API calls), or -1;
 *  - for each GPU event g: the launching API call (via correlation id), the
 *    innermost and outermost enclosing cpu_op of that call, and how the link
 *    was made: by correlation, else by External id (the op that carries the
 *    GPU event's External id), else none (unattributed);
 *  - backward[i]: host event i runs under autograd's backward
 *    (an `autograd::engine::evaluate_function: ...` ancestor, or a thread that
 *    runs such functions).
 * The nesting is bounded (links.c's nest_cap): at most LINKS_DEPTH_MAX levels,
 * and at most LINKS_SAME_MAX nested ranges of one start and end; a range
 * beyond either becomes its would-be parent's sibling (counted in reattached),
 * so that a walk up parent[] takes at most LINKS_DEPTH_MAX steps.
 * Arrays are indexed like pc_trace's cpu[] and gpu[]; links_free releases
 * them. Nothing here allocates strings or reads outside the trace.
 */
#ifndef PC_LINKS_H
#define PC_LINKS_H
#include <stdint.h>
#include "../model/trace.h"

enum { LINK_NONE = 0, LINK_CORRELATION, LINK_EXTERNAL_ID };
/* Traces with more host and device events than this are analyzed on two threads. */
enum { PC_THREADED_EVENTS = 100000 };
enum { LINKS_DEPTH_MAX = 256, LINKS_SAME_MAX = 64 };

typedef struct pc_links {
    int32_t *parent;        /* [ncpu] */
    uint8_t *backward;      /* [ncpu] */
    int32_t *gpu_launch;    /* [ngpu] launching runtime/driver call, or -1 */
    int32_t *gpu_inner;     /* [ngpu] innermost cpu_op, or -1 */
    int32_t *gpu_outer;     /* [ngpu] outermost cpu_op, or -1 */
    uint8_t *gpu_how;       /* [ngpu] LINK_* */
    int32_t *module;        /* [ncpu] the grouping nn.Module python_function of an op, or -1 */
    int module_level;       /* depth of module used for grouping (0 = outermost) */
    int32_t *thread_order;  /* cpu indices grouped by thread, in time order within each */
    size_t *thread_start;   /* [nthreads + 1]: where each thread's run starts in thread_order */
    size_t nthreads;
    size_t reattached;      /* host ranges made siblings by the nesting's bounds (zero-length ones at one instant not counted) */
} pc_links;

void links_build(const pc_trace *t, pc_links *l);
void links_free(pc_links *l);
/* Nearest ancestor (or self when include_self) of kind CPU_OP, or -1. */
int32_t links_op_inner(const pc_trace *t, const pc_links *l, int32_t i, int include_self);
int32_t links_op_outer(const pc_trace *t, const pc_links *l, int32_t i, int include_self);
/* Whether host event i is an nn.Module frame (a python_function named "nn.Module: NAME"). */
int links_is_module(const pc_trace *t, int32_t i);
#endif
