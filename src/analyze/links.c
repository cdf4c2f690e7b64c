#include "links.h"
#include "../util/spill.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include "../util/side.h"
#include <assert.h>
#include <stdint.h>
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

int links_is_module(const pc_trace *t, int32_t i) {
    return t->cpu[i].kind == CPU_PYFUNC && !strncmp(strtab_get(&t->strs, t->cpu[i].name), "nn.Module: ", 11);
}

static int mod_depth(const pc_trace *t, const pc_links *l, int32_t i) {
    int d = 0;
    for (i = l->parent[i]; i >= 0; i = l->parent[i])
        if (links_is_module(t, i)) d++;
    return d;
}

/* ---- ids: correlation -> launching call, External id -> operator ----
 * Kineto numbers both from a counter, so they are usually dense: then a plain
 * array indexed by (id - lowest) replaces hashing (and ids arriving in time
 * order make its accesses nearly sequential); else a hash map. */
typedef struct idtab { int32_t *dense; int64_t lo; size_t span; hmap h; } idtab;

static void idtab_init(idtab *x, int64_t lo, int64_t hi, size_t count) {
    memset(x, 0, sizeof *x);
    if (!count) return;
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span <= 4 * (uint64_t)count + 4096) {
        x->lo = lo;
        x->span = (size_t)span;
        x->dense = spill_alloc(x->span * sizeof *x->dense);
        memset(x->dense, 0xff, x->span * sizeof *x->dense); /* -1: none */
    } else hmap_reserve(&x->h, count);
}

/* first (keep_first) or last value given for id wins */
static void idtab_put(idtab *x, int64_t id, int32_t v, int keep_first) {
    if (x->dense) {
        int32_t *d = &x->dense[(uint64_t)id - (uint64_t)x->lo]; /* id in [lo, hi]: ids span all of int64 */
        if (!keep_first || *d < 0) *d = v;
        return;
    }
    int created;
    uint32_t *p = hmap_get(&x->h, (uint64_t)id, &created);
    if (created || !keep_first) *p = (uint32_t)v;
}

static int32_t idtab_find(const idtab *x, int64_t id) {
    if (x->dense) {
        uint64_t off = (uint64_t)id - (uint64_t)x->lo; /* no signed overflow for ids far from lo */
        return id >= x->lo && off < x->span ? x->dense[off] : -1;
    }
    const uint32_t *p = hmap_find(&x->h, (uint64_t)id);
    return p ? (int32_t)*p : -1;
}

static void idtab_free(idtab *x) {
    spill_free(x->dense);
    hmap_free(&x->h);
}

typedef struct ids { const pc_trace *t; idtab corr, ext; } ids;

static int is_launch(const pc_cpu_event *e) { return (e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER) && e->corr != PC_NONE; }
static int has_ext(const pc_cpu_event *e) { return e->kind == CPU_OP && e->ext_id != PC_NONE; }

static void *ids_build(void *arg) {
    ids *d = arg;
    const pc_trace *t = d->t;
    int64_t clo = INT64_MAX, chi = INT64_MIN, xlo = INT64_MAX, xhi = INT64_MIN;
    size_t nc = 0, nx = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (is_launch(e)) {
            nc++;
            if (e->corr < clo) clo = e->corr;
            if (e->corr > chi) chi = e->corr;
        }
        if (has_ext(e)) {
            nx++;
            if (e->ext_id < xlo) xlo = e->ext_id;
            if (e->ext_id > xhi) xhi = e->ext_id;
        }
    }
    idtab_init(&d->corr, clo, chi, nc);
    idtab_init(&d->ext, xlo, xhi, nx);
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (is_launch(e)) idtab_put(&d->corr, e->corr, (int32_t)i, 0);
        if (has_ext(e)) idtab_put(&d->ext, e->ext_id, (int32_t)i, 1);
    }
    return NULL;
}

static int same_range(const pc_cpu_event *a, const pc_cpu_event *b) { return a->ts == b->ts && a->dur == b->dur; }

/* The nesting's bounds, so that walks up parent[] cost at most
 * LINKS_DEPTH_MAX steps whatever the trace's shape: e (contained in the
 * stack's top, if any) would open level sp + 1; when that is beyond
 * LINKS_DEPTH_MAX levels, or e has the same start and end as the
 * LINKS_SAME_MAX ranges on top of the stack (zero-length ops at one instant,
 * wrappers of one time), the top is closed so that e becomes its sibling, and
 * *reattached counted (not for a range of no length among others at its instant: it
 * holds nothing, so being beside them rather than inside changes no figure's meaning). Returns the stack's new height. */
static int nest_cap(const pc_trace *t, const int32_t *stack, const int32_t *same, int sp, const pc_cpu_event *e, size_t *reattached) {
    if (sp == 0) return 0;
    if (sp >= LINKS_DEPTH_MAX || (same[sp - 1] >= LINKS_SAME_MAX && same_range(&t->cpu[stack[sp - 1]], e))) {
        if (sp >= LINKS_DEPTH_MAX || e->dur > 0) (*reattached)++; /* ranges of no length at one instant hold nothing: not a reshape */
        return sp - 1;
    }
    return sp;
}

/* ---- 1, 2: nesting and backward per thread ---- */
static void nest(const pc_trace *t, pc_links *l) {
    size_t nc = t->ncpu;
    /* group events by thread (counting sort, keeping cpu[]'s time order
     * inside a thread), then sweep with a stack */
    int32_t *idx = spill_alloc((nc ? nc : 1) * sizeof *idx);
    int32_t *thr = spill_alloc((nc ? nc : 1) * sizeof *thr);
    hmap threads = {0};
    size_t nthr = 0;
    uint64_t last_key = 0;
    int32_t last_thr = 0;
    for (size_t i = 0; i < nc; i++) {
        uint64_t key = (uint64_t)(uint32_t)t->cpu[i].pid << 32 | (uint32_t)t->cpu[i].tid;
        if (i == 0 || key != last_key) { /* consecutive events mostly share a thread */
            int created;
            uint32_t *v = hmap_get(&threads, key ^ 0x9E3779B97F4A7C15ULL, &created);
            if (created) *v = (uint32_t)nthr++;
            last_thr = (int32_t)*v;
            last_key = key;
        }
        thr[i] = last_thr;
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
    /* the open ranges, and for each how many ranges of its own start and end it closes (itself included) */
    int32_t *stack = spill_alloc((nc < LINKS_DEPTH_MAX ? nc + 1 : LINKS_DEPTH_MAX) * sizeof *stack);
    int32_t *same = spill_alloc((nc < LINKS_DEPTH_MAX ? nc + 1 : LINKS_DEPTH_MAX) * sizeof *same);
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
            sp = nest_cap(t, stack, same, sp, e, &l->reattached);
            int32_t p = sp ? stack[sp - 1] : -1;
            assert(sp < LINKS_DEPTH_MAX);
            same[sp] = p >= 0 && same_range(&t->cpu[p], e) ? same[sp - 1] + 1 : 1;
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
    spill_free(same);
    spill_free(evalname);
    l->thread_order = idx;
    l->thread_start = start;
    l->nthreads = nthr;
}

/* ---- 3: modules ---- */
static void modules(const pc_trace *t, pc_links *l) {
    size_t nc = t->ncpu;
    /* grouped by the shallowest level at which modules differ */
    int maxd = 0;
    for (size_t i = 0; i < nc; i++) {
        l->module[i] = -1;
        if (links_is_module(t, i)) {
            int d = mod_depth(t, l, (int32_t)i);
            if (d > maxd) maxd = d;
        }
    }
    for (int level = 0; level <= maxd && level < 4; level++) {
        uint32_t first = 0;
        int distinct = 0, any = 0;
        for (size_t i = 0; i < nc && distinct < 2; i++) {
            if (!links_is_module(t, i)) continue;
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
            if (links_is_module(t, p)) chain[n++] = p;
        /* chain runs innermost..outermost */
        if (n > l->module_level) l->module[i] = chain[n - 1 - l->module_level];
        else if (n > 0) l->module[i] = chain[0];
    }
}

/* ---- 4: GPU events to their launches and operators ---- */
typedef struct gpu_job { const pc_trace *t; pc_links *l; const ids *d; size_t from, to; } gpu_job;

static void *link_gpu(void *arg) {
    gpu_job *j = arg;
    const pc_trace *t = j->t;
    pc_links *l = j->l;
    for (size_t g = j->from; g < j->to; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        l->gpu_launch[g] = l->gpu_inner[g] = l->gpu_outer[g] = -1;
        if (e->kind == GPU_ANNOT || e->kind == GPU_SYNC) continue;
        int32_t r = e->corr != PC_NONE ? idtab_find(&j->d->corr, e->corr) : -1;
        if (r >= 0) {
            l->gpu_launch[g] = r;
            l->gpu_inner[g] = links_op_inner(t, l, r, 0);
            l->gpu_outer[g] = links_op_outer(t, l, r, 0);
            if (l->gpu_inner[g] >= 0) { l->gpu_how[g] = LINK_CORRELATION; continue; }
        }
        int32_t x = e->ext_id != PC_NONE ? idtab_find(&j->d->ext, e->ext_id) : -1;
        if (x >= 0) {
            l->gpu_inner[g] = x;
            l->gpu_outer[g] = links_op_outer(t, l, x, 1);
            l->gpu_how[g] = LINK_EXTERNAL_ID;
        }
    }
    return NULL;
}

/* Large traces use a second thread: the id tables are built beside the
 * nesting, and the GPU events are linked in two halves. */
void links_build(const pc_trace *t, pc_links *l) {
    size_t nc = t->ncpu, ng = t->ngpu;
    int big = nc + ng > PC_THREADED_EVENTS;
    l->parent = spill_alloc((nc ? nc : 1) * sizeof *l->parent);
    l->backward = spill_calloc(nc ? nc : 1, 1);
    l->module = spill_alloc((nc ? nc : 1) * sizeof *l->module);
    l->gpu_launch = spill_alloc((ng ? ng : 1) * sizeof(int32_t));
    l->gpu_inner = spill_alloc((ng ? ng : 1) * sizeof(int32_t));
    l->gpu_outer = spill_alloc((ng ? ng : 1) * sizeof(int32_t));
    l->gpu_how = spill_calloc(ng ? ng : 1, 1);
    l->module_level = 0;
    l->reattached = 0;

    ids d = {.t = t};
    side sd;
    side_start(&sd, ids_build, &d, big);
    nest(t, l);
    modules(t, l);
    side_finish(&sd);

    gpu_job half[2] = {{t, l, &d, 0, ng / 2}, {t, l, &d, ng / 2, ng}};
    side_start(&sd, link_gpu, &half[1], big);
    link_gpu(&half[0]);
    side_finish(&sd);
    idtab_free(&d.corr);
    idtab_free(&d.ext);
}

void links_free(pc_links *l) {
    SPILL_FREE_ALL(l->thread_order, l->thread_start, l->parent, l->backward, l->module, l->gpu_launch, l->gpu_inner, l->gpu_outer,
                   l->gpu_how);
    memset(l, 0, sizeof *l);
}
