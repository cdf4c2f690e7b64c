/* Collectives per type and size, as nccl-tests reports them
 * (tests/expectations/collectives.py is the independent reading):
 *  - every NCCL (or other collective) kernel is one call; its collective is
 *    the innermost "nccl:<name>" host range around its launch (leading
 *    underscores and a "_base" suffix dropped: _all_gather_base is
 *    all_gather), else the kernel's name (ncclKernel_AllReduce_... is
 *    all_reduce; MindSpore's step-trace "AllReduce (...)", "Receive-op...");
 *  - its size is the enclosing record_param_comms range's first input,
 *    elements x element size (unknown for a TensorList or no shape), the
 *    output for all_gather (input x ranks), as nccl-tests' "size";
 *  - rows by (collective, size range): calls, time, bytes, algorithm
 *    bandwidth = bytes / time of the calls of known size, bus bandwidth =
 *    algbw x factor for n ranks (all_reduce 2(n-1)/n; all_gather,
 *    reduce_scatter, all_to_all (n-1)/n; others 1; n = distributedInfo's
 *    world size: unknown n, no busbw), and the time overlapped by other
 *    kernels (computation).
 * And collectives.ops, what a job report matches across ranks
 * (src/compare/ranks.c): the first OPS_MAX collective kernels in the steps'
 * windows, each with its group (the kernel's stream), its place in the group,
 * its size, its arrival (the kernel's start) and end, its reference point (the
 * end of the group's previous operation in the step, else the step's start)
 * and the other kernels' time between that point and the arrival. */
#include "analyze.h"
#include "flops.h"
#include "intervals.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/spill.h"
#include "../util/strtab.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { NBUCKET = 8 }; /* 7 size ranges, then unknown */
enum { OPS_MAX = 4096, GROUPS_MAX = 64 };
static const double bucket_edge[] = {1024, 16384, 262144, 4 << 20, 64 << 20, 1 << 30};
static const char *const bucket_label[NBUCKET] = {"< 1 KiB", "1-16 KiB", "16-256 KiB", "256 KiB-4 MiB",
                                                  "4-64 MiB", "64 MiB-1 GiB", ">= 1 GiB", "unknown"};

typedef struct crow {
    uint32_t coll; /* in the stage's own string table */
    int bucket;
    int64_t calls, total, sized_total, overlap;
    double bytes;
} crow;

/* a collective's name from a kernel's: ncclKernel_<Name>_ / ncclDevKernel_<Name>_, or a
 * MindSpore step-trace operator */
static void coll_from_kernel(const char *k, char *out, size_t cap) {
    static const struct { const char *token, *name; } map[] = {
        {"allreduce", "all_reduce"}, {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
        {"alltoall", "all_to_all"}, {"broadcast", "broadcast"}, {"sendrecv", "send_recv"},
        {"receive", "recv"}, {"recv", "recv"}, {"send", "send"}, {"reduce", "reduce"}};
    const char *p = !strncmp(k, "ncclKernel_", 11) ? k + 11 : !strncmp(k, "ncclDevKernel_", 14) ? k + 14 : k;
    char low[64];
    size_t n = 0;
    for (; p[n] && p[n] != '_' && p[n] != ' ' && p[n] != '(' && p[n] != '-' && n < sizeof low - 1; n++) low[n] = (char)tolower((unsigned char)p[n]);
    low[n] = 0;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(low, map[i].token)) { snprintf(out, cap, "%s", map[i].name); return; }
    snprintf(out, cap, "other");
}

/* "nccl:_all_gather_base" -> "all_gather" */
static void coll_from_range(const char *r, char *out, size_t cap) {
    const char *p = r + 5;
    while (*p == '_') p++;
    size_t n = strlen(p);
    if (n > 5 && !strcmp(p + n - 5, "_base")) n -= 5;
    if (n >= cap) n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
}

/* bytes of one element of the first type in "Input type" text (["float", ...]); 0 if unknown */
static int first_type_size(const char *types) {
    static const struct { const char *name; int size; } sz[] = {
        {"float", 4}, {"double", 8}, {"c10::Half", 2}, {"c10::BFloat16", 2}, {"int", 4}, {"long int", 8}, {"long", 8},
        {"bool", 1}, {"signed char", 1}, {"unsigned char", 1}, {"short", 2}, {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}};
    if (!types || types[0] != '[' || types[1] != '"') return 0;
    const char *s = types + 2, *e = strchr(s, '"');
    if (!e) return 0;
    for (size_t i = 0; i < sizeof sz / sizeof *sz; i++)
        if ((size_t)(e - s) == strlen(sz[i].name) && !strncmp(s, sz[i].name, (size_t)(e - s))) return sz[i].size;
    return 0;
}

static double bus_factor(const char *coll, int64_t n) {
    if (n < 1) return -1;
    double f = (double)(n - 1) / (double)n;
    if (!strcmp(coll, "all_reduce")) return 2 * f;
    if (!strcmp(coll, "all_gather") || !strcmp(coll, "reduce_scatter") || !strcmp(coll, "all_to_all")) return f;
    return 1;
}

/* rows by time, then name (colls: the names), then size range */
static int cmp_crow(const void *a, const void *b, void *colls) {
    const crow *x = a, *y = b;
    const pc_strtab *sort_colls = colls;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    int c = x->coll == y->coll ? 0 : strcmp(strtab_get(sort_colls, x->coll), strtab_get(sort_colls, y->coll));
    return c ? c : x->bucket - y->bucket;
}

/* an_collectives' state: the computation (the union of the other kernels),
 * the per-step ops kept (collectives.ops) with the stream groups they are
 * numbered in, and the rows by (collective, size range): the collective's
 * name interned in colls, the pair keyed in row_of (a linear search was
 * quadratic in distinct "nccl:" names: 120,000 took 22 s). */
typedef struct cgroup { int32_t stream; long step; int64_t end, seq; } cgroup;
typedef struct cl_pass {
    const an_ctx *c;
    int64_t ranks;           /* the world size, or -1 */
    ivl *comp;
    size_t ncomp;
    pc_table *ops;           /* collectives.ops: at most OPS_MAX */
    int64_t origin, ops_count; /* ops' times after run.start_us (whole µs, as runinfo.c writes it) */
    cgroup grp[GROUPS_MAX];
    int ngrp;
    crow *rows;
    size_t nrows, caprows;
    pc_strtab colls;
    hmap row_of;
} cl_pass;

/* The computation collectives can overlap: the union of the kernels that
 * are not collectives (nccl: per name id). */
static void cl_compute(cl_pass *p, const uint8_t *nccl) {
    const pc_trace *t = p->c->t;
    size_t capc = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind == GPU_KERNEL && e->dur > 0 && !nccl[e->name]) ivl_append_sorted(&p->comp, &p->ncomp, &capc, e->ts, e->ts + e->dur);
    }
}

/* Collective kernel g's collective (coll, from an "nccl:" range around its
 * launch, else from the kernel's name) and its bytes (from the
 * record_param_comms range's input: its elements times their size, times
 * the ranks for all_gather; < 0: unknown). */
static double cl_identify(const cl_pass *p, size_t g, char *coll, size_t cap) {
    const pc_trace *t = p->c->t;
    const pc_links *l = &p->c->links;
    double bytes = -1;
    coll[0] = 0;
    for (int32_t i = l->gpu_launch[g]; i >= 0; i = l->parent[i]) {
        const char *n = strtab_get(&t->strs, t->cpu[i].name);
        if (!coll[0] && !strncmp(n, "nccl:", 5) && n[5]) coll_from_range(n, coll, cap);
        if (bytes < 0 && !strcmp(n, "record_param_comms") && t->cpu[i].input_dims) {
            op_args a;
            op_args_parse(&a, strtab_get(&t->strs, t->cpu[i].input_dims), strtab_get(&t->strs, t->cpu[i].input_types), NULL);
            int es = first_type_size(t->cpu[i].input_types ? strtab_get(&t->strs, t->cpu[i].input_types) : NULL);
            if (a.n > 0 && a.nd[0] > 0 && es) {
                bytes = es;
                for (int k = 0; k < a.nd[0]; k++) bytes *= (double)a.d[0][k];
            }
        }
    }
    if (!coll[0]) coll_from_kernel(strtab_get(&t->strs, t->gpu[g].name), coll, cap);
    if (bytes >= 0 && !strcmp(coll, "all_gather") && p->ranks > 0) bytes *= (double)p->ranks;
    return bytes;
}

/* Collective kernel e in a step: counted, and kept as an op of
 * collectives.ops (the first OPS_MAX, streams the first GROUPS_MAX) with
 * its number on its stream, its arrival and end, and the computation
 * between its reference (the step's start for a stream's first in the
 * step, else the end of the one before it) and its arrival. */
static void cl_op(cl_pass *p, pc_summary *ps, const pc_gpu_event *e, const char *coll, double bytes) {
    const an_ctx *c = p->c;
    long si = c->step_source ? step_index(c, e->ts) : 0;
    if (si < 0 || !c->nsteps) return;
    p->ops_count++;
    int k = 0;
    while (k < p->ngrp && p->grp[k].stream != e->stream) k++;
    if (k == p->ngrp && p->ngrp < GROUPS_MAX) p->grp[p->ngrp++] = (cgroup){e->stream, -1, 0, 0};
    if (k >= p->ngrp) return;
    if (p->ops->n < OPS_MAX) {
        const pc_step *st = &c->steps[si];
        int first = p->grp[k].step != si;
        int64_t ref = first ? (c->step_source ? st->cpu_start : st->start) : p->grp[k].end;
        if (ref > e->ts) ref = e->ts;
        tab_coll_op *o = tab_push(p->ops);
        char gname[32];
        snprintf(gname, sizeof gname, "stream %d", (int)e->stream);
        o->group = pc_summary_utf8(ps, gname);
        o->collective = pc_summary_utf8(ps, coll);
        o->seq = p->grp[k].seq;
        /* a size beyond what summary.json holds is unknown here (collectives.rows warns of it once) */
        if (bytes >= 0 && bytes <= PC_TIME_LIMIT_D) o->bytes = pc_figure(bytes);
        if (c->step_source) o->step = st->number;
        o->arrival_ns = e->ts - p->origin;
        o->end_ns = e->ts + e->dur - p->origin;
        o->ref_ns = ref - p->origin;
        o->first = (tk_B)first;
        o->busy_ns = ivl_clip_sum(p->comp, p->ncomp, ref, e->ts);
    }
    p->grp[k].step = si, p->grp[k].end = e->ts + e->dur, p->grp[k].seq++;
}

/* Collective kernel e into its row by (collective, size range: unknown
 * when bytes < 0): calls, time, time overlapping computation, bytes and
 * the time of the calls of known size. */
static void cl_row_add(cl_pass *p, const pc_gpu_event *e, const char *coll, double bytes) {
    int b = NBUCKET - 1;
    if (bytes >= 0) {
        b = 0;
        while (b < NBUCKET - 2 && bytes >= bucket_edge[b]) b++;
    }
    int created;
    uint32_t id = strtab_intern(&p->colls, coll, strlen(coll));
    uint32_t *slot = hmap_get(&p->row_of, hkey2(id, (uint32_t)b), &created);
    crow *r;
    if (created) {
        *slot = (uint32_t)p->nrows;
        r = VEC_PUSH(p->rows, p->nrows, p->caprows);
        memset(r, 0, sizeof *r);
        r->coll = id;
        r->bucket = b;
    } else r = &p->rows[*slot];
    r->calls++;
    r->total += e->dur;
    r->overlap += ivl_clip_sum(p->comp, p->ncomp, e->ts, e->ts + e->dur);
    if (bytes >= 0) r->bytes += bytes, r->sized_total += e->dur;
}

/* collectives.rows, by time (largest first): calls, time, bytes, the
 * algorithm's and the bus's bandwidth (nccl-tests' definitions) over the
 * calls of known size, the overlap with computation. After: overlap and
 * sized time within each row's time. */
static void cl_write_rows(cl_pass *p, pc_summary *ps, cJSON *sec) {
    if (p->nrows) qsort_r(p->rows, p->nrows, sizeof *p->rows, cmp_crow, &p->colls);
    pc_table *arr = pc_summary_add_table(ps, sec, "rows", TAB_coll);
    for (size_t i = 0; i < p->nrows; i++) {
        const crow *r = &p->rows[i];
        assert(r->overlap <= r->total && r->sized_total <= r->total);
        tab_coll *o = tab_push(arr);
        const char *coll = strtab_get(&p->colls, r->coll);
        o->collective = pc_summary_utf8(ps, coll);
        o->size_range = bucket_label[r->bucket];
        o->calls = r->calls;
        o->total_ns = r->total;
        o->avg_ns = pc_figure((double)r->total / (double)r->calls);
        o->bytes = pc_figure(r->bytes);
        o->sized_ns = r->sized_total; /* the time of the calls of known size: what the bandwidths divide */
        double f = bus_factor(coll, p->ranks);
        if (r->sized_total > 0) {
            double alg = r->bytes / (double)r->sized_total; /* bytes per ns = GB/s */
            o->algbw_gbs = pc_figure(alg);
            if (f > 0) o->busbw_gbs = pc_figure(alg * f);
        }
        if (f > 0) o->bus_factor = pc_figure(f);
        o->overlap_ns = r->overlap;
    }
}

/* The collectives section, in phases: the computation, then per collective
 * kernel its collective and bytes, its op in the steps, its row; then the
 * record and the rows. After: the rows' calls count every collective
 * kernel, the ops kept within OPS_MAX and those counted. */
void an_collectives(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    cl_pass p = {.c = c, .ranks = t->world_size > 0 ? t->world_size : -1, .origin = t->t_min / 1000 * 1000};
    uint8_t *nccl = nccl_flags(t);
    cl_compute(&p, nccl);
    strtab_init(&p.colls);
    cJSON *sec = sj_obj(ps->doc, "collectives");
    p.ops = pc_summary_add_table(ps, sec, "ops", TAB_coll_op);
    int64_t kernels = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL || !nccl[e->name]) continue;
        char coll[48];
        double bytes = cl_identify(&p, g, coll, sizeof coll);
        cl_op(&p, ps, e, coll, bytes);
        cl_row_add(&p, e, coll, bytes);
        kernels++;
    }
    spill_free(nccl);
    hmap_free(&p.row_of);
    int64_t calls = 0;
    for (size_t i = 0; i < p.nrows; i++) calls += p.rows[i].calls;
    assert(calls == kernels && (int64_t)p.ops->n <= p.ops_count && p.ops->n <= OPS_MAX);
    tab_collectives *cr = PC_ADD_REC(ps, sec, collectives);
    if (p.ranks > 0) cr->ranks = p.ranks;
    cr->ops_count = p.ops_count;
    cr->ops_kept = (int64_t)p.ops->n;
    cl_write_rows(&p, ps, sec);
    free(p.rows);
    spill_free(p.comp);
    strtab_free(&p.colls);
}
