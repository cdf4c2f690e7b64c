/* The nesting's bounds (#48 class 2; links.h, links.c's nest_cap): ranges
 * of one start and end on one thread, or ranges nested very deep, nest at
 * most LINKS_SAME_MAX and LINKS_DEPTH_MAX levels, every one beyond made a
 * sibling and counted, so that walks up parent[] stay short. Before, 80,000
 * zero-length ops at one instant made one chain 80,000 deep (25.6 s). */
#include "test.h"
#include "analyze/links.h"
#include "load/load.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n cpu_ops on one thread: same 1: all at ts 1000 with dur 5; same 2: dur 0; else op i from 1000+i to 1000+2n-i */
static pc_trace *ranges(int n, int same) {
    size_t cap = (size_t)n * 120 + 64, len = 0;
    char *doc = xmalloc(cap);
    len += (size_t)snprintf(doc + len, cap - len, "{\"traceEvents\": [\n");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(doc + len, cap - len, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}%s\n",
                                same ? 1000 : 1000 + i, same == 1 ? 5 : same ? 0 : 2 * n - 2 * i, i < n - 1 ? "," : "");
    len += (size_t)snprintf(doc + len, cap - len, "]}");
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load_kineto_mem(doc, len, &t, &err);
    free(doc);
    return rc ? NULL : t;
}

/* deepest level (roots at 0) and number of roots */
static void shape(const pc_trace *t, const pc_links *l, int *maxd, int *roots) {
    *maxd = 0, *roots = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        int d = 0;
        for (int32_t p = l->parent[i]; p >= 0; p = l->parent[p]) d++;
        if (d > *maxd) *maxd = d;
        *roots += l->parent[i] < 0;
    }
}

/* Links ranges(n, kind) and checks its shape: the deepest level, the number of roots (roots < 0:
 * not checked) and how many ranges were placed beside instead of nested (reattached). */
static void expect_shape(int n, int kind, int want_maxd, int want_roots, int want_reattached) {
    pc_trace *t = ranges(n, kind);
    CHECK(t != NULL);
    if (!t) return;
    pc_links l;
    links_build(t, &l);
    int maxd, roots;
    shape(t, &l, &maxd, &roots);
    CHECK_EQ_I(maxd, want_maxd);
    if (want_roots >= 0) CHECK_EQ_I(roots, want_roots);
    CHECK_EQ_I(l.reattached, want_reattached);
    links_free(&l);
    pc_trace_free(t);
}

TEST(links_bounds_same_range_chain) {
    /* 300 ops of one start and 5 us: the first 64 nest (levels 0..63), each of the other 236 is
     * placed beside the 64th, under the 63rd (level 63 too), counted */
    expect_shape(300, 1, 63, 1, 236);
    /* of no length: the same shape, not counted (they hold nothing) */
    expect_shape(300, 2, 63, 1, 0);
}

TEST(links_bounds_deep_nesting) {
    /* 300 strictly nested ranges: levels 0..255 nest, the other 44 are placed at level 255 */
    expect_shape(300, 0, 255, 1, 44);
    /* within the bounds nothing moves: 60 of each */
    expect_shape(60, 0, 59, -1, 0);
    expect_shape(60, 1, 59, -1, 0);
}
