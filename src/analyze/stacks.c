/* Where in the code: time by Python call stack (tests/expectations/
 * call_stacks.py is the independent reading). Each outermost operator or
 * record_function range (none above it on its thread; steps do not count)
 * that carries a call stack (trace.h: PC_STACK_MARK in concrete; in PyTorch
 * 2 traces, the python_function ranges around it)
 * adds its CPU duration and its device time (kernels, copies and sets it
 * launched, found through links) to every frame of its stack, outermost
 * first: a tree whose every node holds the time of the code under it. Rows
 * in depth-first order, children by device time (then CPU time); nodes under
 * 0.2% of both totals are left out (their time stays in their parent), at
 * most MAX_NODES rows. Operators without a stack (autograd's backward thread)
 * are counted apart. The same tree over the nn.Module ranges alone (PyTorch's
 * python_function events named "nn.Module: NAME") is the module hierarchy
 * (module_rows): each module holds the time of the operators run inside it. */
#include "analyze.h"
#include "../summary/summary.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

enum { MAX_NODES = 300 };

typedef struct snode {
    const char *frame; size_t len;
    int32_t parent, child, next, depth;
    int64_t dev, cpu, calls;
} snode;

static int32_t child_of(snode **nodes, size_t *n, size_t *cap, int32_t parent, const char *f, size_t len) {
    /* the parent's children, or the roots: every node with parent -1, linked from node 0 */
    int32_t k = parent >= 0 ? (*nodes)[parent].child : (*n ? 0 : -1);
    for (int32_t i = k; i >= 0; i = (*nodes)[i].next)
        if ((*nodes)[i].len == len && !memcmp((*nodes)[i].frame, f, len)) return i;
    snode *s = SPILL_PUSH(*nodes, *n, *cap);
    int32_t id = (int32_t)(*n - 1);
    memset(s, 0, sizeof *s);
    s->frame = f, s->len = len, s->parent = parent, s->child = -1, s->next = -1;
    s->depth = parent >= 0 ? (*nodes)[parent].depth + 1 : 0;
    if (parent >= 0) s->next = (*nodes)[parent].child, (*nodes)[parent].child = id;
    else if (id > 0) { /* roots chain from node 0 */
        s->next = (*nodes)[0].next;
        (*nodes)[0].next = id;
    }
    return id;
}

/* (the nodes come as qsort_r's argument, not a global: reports of several
 * inputs run this on several threads at once) */
static int cmp_node(const void *a, const void *b, void *nodes) {
    const snode *base = nodes, *x = &base[*(const int32_t *)a], *y = &base[*(const int32_t *)b];
    if (x->dev != y->dev) return x->dev > y->dev ? -1 : 1;
    if (x->cpu != y->cpu) return x->cpu > y->cpu ? -1 : 1;
    return x->len != y->len ? (x->len < y->len ? -1 : 1) : memcmp(x->frame, y->frame, x->len);
}

/* children of p (or the roots) in order, kept when big enough; rows in depth-first order */
_Static_assert(sizeof(tab_stack_frame) == sizeof(tab_module_frame), "the two trees' rows share FRAME_COLS");
static void emit(pc_summary *ps, const snode *nodes, size_t n, int32_t first, int64_t min_dev, int64_t min_cpu, pc_table *rows, int *count,
                 int parent_row) {
    int32_t *kids = NULL;
    size_t nk = 0, cap = 0;
    for (int32_t i = first; i >= 0; i = nodes[i].next) *VEC_PUSH(kids, nk, cap) = i;
    if (nk) qsort_r(kids, nk, sizeof *kids, cmp_node, (void *)nodes);
    for (size_t k = 0; k < nk && *count < MAX_NODES; k++) {
        const snode *s = &nodes[kids[k]];
        if (s->dev < min_dev && s->cpu < min_cpu) continue;
        char *frame = xmalloc(s->len + 1);
        memcpy(frame, s->frame, s->len);
        frame[s->len] = 0;
        tab_stack_frame r = {pc_summary_utf8(ps, frame), s->depth, parent_row, s->dev, s->cpu, s->calls};
        free(frame);
        memcpy(tab_push(rows), &r, sizeof r); /* either tree's row: the same columns */
        int me = (*count)++;
        emit(ps, nodes, n, s->child, min_dev, min_cpu, rows, count, me);
    }
    free(kids);
}

/* an operator or a record_function range (Optimizer.step#SGD.step), not a step */
static int code_range(const pc_trace *t, const pc_cpu_event *e) {
    if (e->kind == CPU_OP) return 1;
    if (e->kind != CPU_USER_ANNOT) return 0;
    const char *n = strtab_get(&t->strs, e->name);
    return strncmp(n, "ProfilerStep#", 13) && strncmp(n, "perfcard.step#", 14);
}

/* rows of a tree, depth-first, under key of sec */
static void tree_rows(pc_summary *ps, cJSON *sec, const char *key, int id, const snode *nodes, size_t n) {
    pc_table *rows = pc_summary_add_table(ps, sec, key, id);
    if (!n) return;
    int64_t tdev = 0, tcpu = 0;
    for (int32_t i = 0; i >= 0; i = nodes[i].next) tdev += nodes[i].dev, tcpu += nodes[i].cpu;
    int count = 0;
    emit(ps, nodes, n, 0, tdev / 500 + 1, tcpu / 500 + 1, rows, &count, -1);
}

static int is_module(const pc_trace *t, const pc_cpu_event *e) {
    return e->kind == CPU_PYFUNC && !strncmp(strtab_get(&t->strs, e->name), "nn.Module: ", 11);
}

/* the frames fr[nf - 1] (outermost) .. fr[0] as a path from the root, each adding dev and cpu */
static void add_path(snode **nodes, size_t *n, size_t *cap, const pc_trace *t, const int32_t *fr, int nf, int skip, int64_t dev, int64_t cpu) {
    int32_t at = -1;
    for (int k = nf - 1; k >= 0; k--) {
        const char *name = strtab_get(&t->strs, t->cpu[fr[k]].name) + skip;
        at = child_of(nodes, n, cap, at, name, strlen(name));
        (*nodes)[at].dev += dev, (*nodes)[at].cpu += cpu, (*nodes)[at].calls++;
    }
}

void an_call_stacks(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    const pc_links *l = &c->links;
    cJSON *sec = sj_obj(ps->doc, "call_stacks");
    tab_call_stacks *cs = PC_ADD_REC(ps, sec, call_stacks);
    /* device time of each outermost range: the GPU work launched under it */
    int64_t *dev = spill_calloc(t->ncpu ? t->ncpu : 1, sizeof *dev);
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) continue;
        int32_t top = -1;
        for (int32_t p = l->gpu_launch[g]; p >= 0; p = l->parent[p])
            if (code_range(t, &t->cpu[p])) top = p;
        if (top >= 0) dev[top] += e->dur;
    }
    snode *nodes = NULL, *mods = NULL;
    size_t n = 0, cap = 0, nm = 0, capm = 0;
    int64_t with = 0, dev_with = 0, dev_without = 0, cpu_without = 0, py = 0, in_mod = 0, dev_mod = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (!code_range(t, e)) continue;
        int outer = 1;
        for (int32_t p = l->parent[i]; p >= 0 && outer; p = l->parent[p]) outer = !code_range(t, &t->cpu[p]);
        if (!outer) continue;
        /* the modules it ran in, innermost first */
        int32_t fr[64];
        int nf = 0;
        for (int32_t p = l->parent[i]; p >= 0 && nf < 64; p = l->parent[p])
            if (is_module(t, &t->cpu[p])) fr[nf++] = p;
        if (nf) {
            in_mod++, dev_mod += dev[i];
            add_path(&mods, &nm, &capm, t, fr, nf, 11, dev[i], e->dur);
        }
        nf = 0;
        const char *st = e->concrete ? strtab_get(&t->strs, e->concrete) : "";
        if (st[0] != PC_STACK_MARK) {
            /* PyTorch 2's with_stack: python_function ranges around the operator */
            for (int32_t p = l->parent[i]; p >= 0 && nf < 64; p = l->parent[p])
                if (t->cpu[p].kind == CPU_PYFUNC) fr[nf++] = p;
            if (!nf) {
                dev_without += dev[i], cpu_without += e->dur;
                continue;
            }
            with++, dev_with += dev[i], py++;
            add_path(&nodes, &n, &cap, t, fr, nf, 0, dev[i], e->dur);
            continue;
        }
        with++, dev_with += dev[i];
        /* frames innermost first: walk them from the end */
        const char *s = st + 1, *end = s + strlen(s);
        int32_t at = -1;
        while (end > s) {
            const char *b = end;
            while (b > s && b[-1] != ';') b--;
            if (end > b) {
                at = child_of(&nodes, &n, &cap, at, b, (size_t)(end - b));
                nodes[at].dev += dev[i], nodes[at].cpu += e->dur, nodes[at].calls++;
            }
            end = b > s ? b - 1 : s;
        }
    }
    spill_free(dev);
    cs->source = !with ? "" : py == with ? "python_function ranges around the operators (with_stack=True)"
                         : py ? "\"Call stack\" of the operators and python_function ranges (with_stack=True)"
                              : "\"Call stack\" of the operators (with_stack=True)";
    cs->operators_with_stack = with;
    cs->device_ns_with_stack = dev_with;
    cs->device_ns_without_stack = dev_without;
    cs->cpu_ns_without_stack = cpu_without;
    tree_rows(ps, sec, "rows", TAB_stack_frame, nodes, n);
    cs->operators_in_modules = in_mod;
    cs->device_ns_in_modules = dev_mod;
    tree_rows(ps, sec, "module_rows", TAB_module_frame, mods, nm);
    spill_free(nodes);
    spill_free(mods);
}
