/* attention.h - attention written out by hand in eager PyTorch (#32 class 5a, #45):
 * the patterns unfused_attention's stake is made of, and the GPU work they hold,
 * which memory_bound's set leaves out (a kernel's time is claimed once).
 *
 * A pattern: a softmax (aten::softmax or aten::_softmax, not one inside
 * another) and the nearest batched matrix products (aten::bmm, baddbmm,
 * matmul or einsum) before and after it written in the same scope
 * (attn_scope: the operator, nn.Module or record_function range around them,
 * through the Python frames of a with_stack trace and an nn.Softmax module's
 * frame), with no product between. Its window
 * is its host time from the first product's start to the second's end, on
 * that thread; its GPU work: the kernels, copies and memsets launched by the
 * operators in the window (the products' own, the scaling, masking, softmax
 * and dropout between, in nested modules too), each GPU event counted once:
 * in the latest-starting window holding its operator (where the second
 * product of one pattern is the first of the next, the next one's; a pattern
 * in a module nested in another's window, the inner one's), looking back over
 * at most ATTN_LOOKBACK windows of its thread (a bound for hostile nestings). */
#ifndef PC_ATTENTION_H
#define PC_ATTENTION_H
#include <stdint.h>
#include "links.h"

#define ATTN_LOOKBACK 64

typedef struct attn_pattern {
    int32_t scope, first, second; /* host event indices: the scope, the two products */
    int32_t pid, tid;               /* the thread */
    int64_t t0, t1;                 /* the window: the first product's start, the second's end */
    int64_t reach;                  /* the latest t1 of this and the thread's patterns before it */
    double ns;      /* the GPU work counted in its window (ns, the whole trace) */
    double first_ns, second_ns; /* of it, launched inside each product (their own kernels) */
} attn_pattern;

typedef struct attn_set {
    attn_pattern *p; /* in order of (process, thread, time); spill memory */
    size_t n;
    int32_t *gpu;    /* [ngpu]: 1 + the index in p of the pattern a GPU event counts in, 0 for none; NULL when n is 0 */
} attn_set;

/* The range operator i is written in: its nearest enclosing operator, user
 * range or nn.Module frame, skipping the other Python frames between (a
 * with_stack trace wraps each call in `<built-in method ...>` and source-line
 * frames) and nn.Softmax modules' frames ("nn.Module: Softmax_N": the softmax
 * written as a module); -1 when none. */
int32_t attn_scope(const pc_trace *t, const pc_links *l, int32_t i);
/* Finds the patterns of t (none without parent and gpu_inner links); returns s->n. */
size_t attn_find(const pc_trace *t, const pc_links *l, attn_set *s);
void attn_free(attn_set *s);
#endif
