#include "links.h"
#include "../util/spill.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* autograd's backward: the engine's evaluate_function ranges, and (in older
 * traces, which lack them) autograd nodes named like "CudnnConvolutionBackward"
 * or "AddmmBackward0". */
static int is_eval_fn(const char *n) {
    if (!strncmp(n, "autograd::engine::evaluate_function:", 36)) return 1;
    if (strchr(n, ':')) return 0;
    const char *b = strstr(n, "Backward");
    if (!b) return 0;
    b += 8;
    while (*b >= '0' && *b <= '9') b++;
    return *b == 0;
}

int32_t links_op_inner(const pc_trace *t, const pc_links *l, int32_t i, int include_self) {
    if (i >= 0 && !include_self) i = l->parent[i];
    while (i >= 0 && t->cpu[i].kind != CPU_OP) i = l->parent[i];
    return i;
}

int32_t links_op_outer(const pc_trace *t, const pc_links *l, int32_t i, int include_self) {
    int32_t best = -1;
    if (i >= 0 && !include_self) i = l->parent[i];
    for (; i >= 0; i = l->parent[i])
        if (t->cpu[i].kind == CPU_OP) best = i;
    return best;
}

static int mod_depth(const pc_trace *t, const pc_links *l, int32_t i) {
    int d = 0;
    for (i = l->parent[i]; i >= 0; i = l->parent[i])
        if (t->cpu[i].kind == CPU_PYFUNC && !strncmp(strtab_get(&t->strs, t->cpu[i].name), "nn.Module: ", 11)) d++;
    return d;
}

void links_build(const pc_trace *t, pc_links *l) {
    size_t nc = t->ncpu, ng = t->ngpu;
    l->parent = spill_alloc((nc ? nc : 1) * sizeof *l->parent);
    l->backward = spill_calloc(nc ? nc : 1, 1);
    l->module = spill_alloc((nc ? nc : 1) * sizeof *l->module);
    l->gpu_launch = spill_alloc((ng ? ng : 1) * sizeof(int32_t));
    l->gpu_inner = spill_alloc((ng ? ng : 1) * sizeof(int32_t));
    l->gpu_outer = spill_alloc((ng ? ng : 1) * sizeof(int32_t));
    l->gpu_how = spill_calloc(ng ? ng : 1, 1);
    l->module_level = 0;

    /* 1. nesting per thread: group events by thread (counting sort, keeping
     * cpu[]'s time order inside a thread), then sweep with a stack */
    int32_t *idx = spill_alloc((nc ? nc : 1) * sizeof *idx);
    int32_t *thr = spill_alloc((nc ? nc : 1) * sizeof *thr);
    hmap threads = {0};
    size_t nthr = 0;
    for (size_t i = 0; i < nc; i++) {
        uint64_t key = (uint64_t)(uint32_t)t->cpu[i].pid << 32 | (uint32_t)t->cpu[i].tid;
        int created;
        uint32_t *v = hmap_get(&threads, key ^ 0x9E3779B97F4A7C15ULL, &created);
        if (created) *v = (uint32_t)nthr++;
        thr[i] = (int32_t)*v;
        l->parent[i] = -1;
    }
    hmap_free(&threads);
    size_t *start = spill_calloc(nthr + 1, sizeof *start);
    for (size_t i = 0; i < nc; i++) start[thr[i] + 1]++;
    for (size_t k = 0; k < nthr; k++) start[k + 1] += start[k];
    size_t *fill = spill_alloc((nthr + 1) * sizeof *fill);
    memcpy(fill, start, (nthr + 1) * sizeof *fill);
    for (size_t i = 0; i < nc; i++) idx[fill[thr[i]]++] = (int32_t)i;
    spill_free(fill);
    spill_free(thr);
    /* autograd names, decided once per distinct name */
    uint8_t *evalname = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* 0 unknown, 1 no, 2 yes */
    int32_t *stack = spill_alloc((nc ? nc : 1) * sizeof *stack);
    for (size_t th = 0; th < nthr; th++) {
        size_t a = start[th], b = start[th + 1];
        int sp = 0, eval_thread = 0;
        for (size_t k = a; k < b; k++) {
            int32_t i = idx[k];
            const pc_cpu_event *e = &t->cpu[i];
            while (sp > 0) {
                const pc_cpu_event *top = &t->cpu[stack[sp - 1]];
                if (top->ts <= e->ts && e->ts + e->dur <= top->ts + top->dur) break;
                sp--;
            }
            int32_t p = sp ? stack[sp - 1] : -1;
            l->parent[i] = p;
            stack[sp++] = i;
            if (!evalname[e->name]) evalname[e->name] = is_eval_fn(strtab_get(&t->strs, e->name)) ? 2 : 1;
            int ev = evalname[e->name] == 2;
            if (ev && e->kind == CPU_OP) eval_thread = 1;
            /* 2. backward: under an autograd function (parents come first) */
            l->backward[i] = (uint8_t)(ev || (p >= 0 && l->backward[p]));
        }
        /* ... and anything on a thread that runs autograd functions */
        if (eval_thread)
            for (size_t k = a; k < b; k++) l->backward[idx[k]] = 1;
    }
    spill_free(stack);
    spill_free(evalname);
    l->thread_order = idx;
    l->thread_start = start;
    l->nthreads = nthr;

    /* 3. modules: group by the shallowest level at which modules differ */
    int maxd = 0;
    for (size_t i = 0; i < nc; i++) {
        l->module[i] = -1;
        if (t->cpu[i].kind == CPU_PYFUNC && !strncmp(strtab_get(&t->strs, t->cpu[i].name), "nn.Module: ", 11)) {
            int d = mod_depth(t, l, (int32_t)i);
            if (d > maxd) maxd = d;
        }
    }
    for (int level = 0; level <= maxd && level < 4; level++) {
        uint32_t first = 0;
        int distinct = 0, any = 0;
        for (size_t i = 0; i < nc && distinct < 2; i++) {
            if (t->cpu[i].kind != CPU_PYFUNC || strncmp(strtab_get(&t->strs, t->cpu[i].name), "nn.Module: ", 11)) continue;
            if (mod_depth(t, l, (int32_t)i) != level) continue;
            if (!any) first = t->cpu[i].name, any = 1, distinct = 1;
            else if (t->cpu[i].name != first) distinct = 2;
        }
        l->module_level = level;
        if (distinct >= 2) break;
    }
    for (size_t i = 0; i < nc; i++) {
        if (t->cpu[i].kind != CPU_OP) continue;
        /* the ancestor module at module_level */
        int32_t chain[64];
        int n = 0;
        for (int32_t p = l->parent[i]; p >= 0 && n < 64; p = l->parent[p])
            if (t->cpu[p].kind == CPU_PYFUNC && !strncmp(strtab_get(&t->strs, t->cpu[p].name), "nn.Module: ", 11)) chain[n++] = p;
        /* chain runs innermost..outermost */
        if (n > l->module_level) l->module[i] = chain[n - 1 - l->module_level];
        else if (n > 0) l->module[i] = chain[0];
    }

    /* 4. GPU events to their launches and operators */
    hmap by_corr = {0}, by_ext = {0};
    for (size_t i = 0; i < nc; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if ((e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER) && e->corr != PC_NONE)
            *hmap_get(&by_corr, (uint64_t)e->corr, NULL) = (uint32_t)i;
        if (e->kind == CPU_OP && e->ext_id != PC_NONE) {
            int created;
            uint32_t *v = hmap_get(&by_ext, (uint64_t)e->ext_id, &created);
            if (created) *v = (uint32_t)i;
        }
    }
    for (size_t g = 0; g < ng; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        l->gpu_launch[g] = l->gpu_inner[g] = l->gpu_outer[g] = -1;
        if (e->kind == GPU_ANNOT || e->kind == GPU_SYNC) continue;
        const uint32_t *r = e->corr != PC_NONE ? hmap_find(&by_corr, (uint64_t)e->corr) : NULL;
        if (r) {
            l->gpu_launch[g] = (int32_t)*r;
            l->gpu_inner[g] = links_op_inner(t, l, (int32_t)*r, 0);
            l->gpu_outer[g] = links_op_outer(t, l, (int32_t)*r, 0);
            if (l->gpu_inner[g] >= 0) { l->gpu_how[g] = LINK_CORRELATION; continue; }
        }
        const uint32_t *x = e->ext_id != PC_NONE ? hmap_find(&by_ext, (uint64_t)e->ext_id) : NULL;
        if (x) {
            l->gpu_inner[g] = (int32_t)*x;
            l->gpu_outer[g] = links_op_outer(t, l, (int32_t)*x, 1);
            l->gpu_how[g] = LINK_EXTERNAL_ID;
        }
    }
    hmap_free(&by_corr);
    hmap_free(&by_ext);
}

void links_free(pc_links *l) {
    spill_free(l->thread_order);
    spill_free(l->thread_start);
    spill_free(l->parent);
    spill_free(l->backward);
    spill_free(l->module);
    spill_free(l->gpu_launch);
    spill_free(l->gpu_inner);
    spill_free(l->gpu_outer);
    spill_free(l->gpu_how);
    memset(l, 0, sizeof *l);
}
