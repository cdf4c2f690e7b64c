#include "ranks.h"
#include "verdict.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../util/arena.h"
#include "../util/shortname.h"
#include "../util/strtab.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int rank_of_input(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    static const char *const keys[] = {"rank-", "rank_", "rank", "worker", NULL};
    for (int k = 0; keys[k]; k++) {
        const char *p = strstr(base, keys[k]);
        if (p && isdigit((unsigned char)p[strlen(keys[k])])) return atoi(p + strlen(keys[k]));
    }
    return -1;
}


static double per_step(const pc_summary *s, int cat) {
    const tab_bkcat *c = pc_bk_get(s, cat);
    return c ? PC_OR(c->avg_per_step_ns, 0) : 0;
}

/* A rank's compute per step (mean; ranks.rows[].compute_ns): its own work,
 * the exclusive breakdown's GPU kernels, copies and sets and the host's
 * runtime calls and CPU operators; with exposed communication, data loading
 * and idle (the breakdown's other categories) it makes the mean step. Without
 * matched collectives the rank with the most compute is the straggler: in a
 * collective the ranks that finish their work first wait for the others inside
 * the NCCL kernels, however long their own communication looks. */
static double work_per_step(const pc_summary *s) {
    double w = 0;
    for (int k = 0; k < BK_N; k++)
        if (k != BK_COMM && k != BK_OTHER && k != BK_DATA) w += per_step(s, k);
    return w;
}

static double median_of(const double *v, int n);
static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}
/* nccl-tests' bus factor for n ranks (as src/analyze/collectives.c) */
static double coll_bus_factor(const char *coll, int n) {
    double f = n > 0 ? (double)(n - 1) / (double)n : 1;
    if (!strcmp(coll, "all_reduce")) return 2 * f;
    if (!strcmp(coll, "all_gather") || !strcmp(coll, "reduce_scatter") || !strcmp(coll, "all_to_all")) return f;
    return 1;
}

/* A rank's compute per step when its input gives the phases and no kernels on
 * the steps' clock (MindSpore's step trace): the median forward and backward
 * phase (the median, so that a first step spent compiling does not make a
 * straggler); -1 for other inputs. */
static double phase_compute(const pc_summary *ps) {
    const tab_bkcat *k = pc_bk_get(ps, BK_KERNEL);
    if (k && PC_OR(k->total_ns, 0) > 0) return -1;
    const pc_table *rows = PC_TAB(ps, step);
    if (!rows || !rows->n) return -1;
    double *v = xcalloc(rows->n, sizeof *v);
    int n = 0;
    for (const tab_step *r = TAB_ROWS(rows, step), *end = r + rows->n; r < end; r++)
        if (!strcmp(PC_S(r->phase_basis, ""), "input")) v[n++] = PC_OR(r->fp_bp_ns, 0);
    double m = n ? median_of(v, n) : -1;
    free(v);
    return m;
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
/* (qsort: an insertion sort was quadratic in the ranks, 8,192 of them at scale) */
static double median_of(const double *v, int n) {
    if (n < 1) return 0;
    double *x = xmalloc((size_t)n * sizeof *x);
    memcpy(x, v, (size_t)n * sizeof *x);
    qsort(x, (size_t)n, sizeof *x, cmp_dbl);
    double m = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    free(x);
    return m;
}

/* ranks.collectives[] (arr) of one rank: each collective type of its summary s
 * over all sizes: calls, time per step and bytes, by time (no bandwidth: a
 * rank's kernel time holds its wait for the last arrival; the job's bandwidth
 * from the transfer time is ranks.job_collectives') */
typedef struct ctype { const char *coll; double calls, total, bytes; } ctype;
static int cmp_ctype(const void *a, const void *b) {
    const ctype *x = a, *y = b;
    return (x->total < y->total) - (x->total > y->total);
}
static void rank_collectives(pc_summary *job, pc_table *arr, int rank, const pc_summary *s, double steps) {
    const pc_table *rows = PC_TAB(s, coll);
    size_t nr = rows ? rows->n : 0;
    int nt = 0;
    ctype *t = xcalloc(nr ? nr : 1, sizeof *t);
    for (size_t i = 0; i < nr; i++) {
        const tab_coll *r = &TAB_ROWS(rows, coll)[i];
        const char *c = PC_S(r->collective, "");
        int k = 0;
        while (k < nt && strcmp(t[k].coll, c)) k++;
        if (k == nt) t[nt++] = (ctype){.coll = c};
        t[k].calls += PC_OR(r->calls, 0), t[k].total += PC_OR(r->total_ns, 0);
        t[k].bytes += PC_OR(r->bytes, 0);
    }
    qsort(t, (size_t)nt, sizeof *t, cmp_ctype);
    for (int k = 0; k < nt; k++) {
        tab_rank_coll *o = tab_push(arr);
        o->rank = rank;
        o->collective = pc_summary_utf8(job, t[k].coll);
        o->calls = pc_figure(t[k].calls);
        o->total_ns = pc_figure(t[k].total);
        o->per_step_ns = pc_figure(t[k].total / steps);
        o->bytes = pc_figure(t[k].bytes);
    }
    free(t);
}

/* Collectives matched across ranks (ranks.collective_ops, ranks.job_collectives;
 * tests/expectations/dlrm_collectives.py is the independent reading): in each
 * group (collectives.ops' group, the kernel's stream) of the lowest rank, the
 * n-th operation on every rank is one operation, of one collective type (a
 * type that differs stops the group there). Times are put on one clock as
 * run.start_us + the op's times; the clocks agree when the median over the
 * operations of their ends' spread is at most CLOCK_NS. Per operation: the
 * last arriver (ties: the highest rank) and the earliest (ties: the lowest),
 * the wait (last - earliest arrival) and the transfer (the last arriver's end
 * - its arrival). The last arriver's lateness is split: before the step (the
 * difference of the two ranks' step starts, at a group's first operation in a
 * step), in-step GPU compute (its other kernels' time since the reference
 * point beyond the earliest's, clamped to the in-step lateness) and in-step
 * host gaps (the rest of the in-step lateness).
 *
 * One rank at a time: pc_job_add folds each of the rank's operations into its
 * slot (the n-th of its group: the last and earliest arriver so far with what
 * the split needs, the ends' min and max, the largest size, the types seen and
 * the lowest rank's step), and keeps of the rank only each operation's group
 * and its arrival as an offset from the slot's first arrival (5 bytes; a float,
 * exact to the ns within 16.7 ms of it), for the wait it suffered. The job
 * holds at most its arrivals_max of them (pc_job_opts): beyond, every rank keeps its first
 * OPS_PER_RANK >> s operations (s the least that fits), which the note says. */
#define CLOCK_NS 50000.0
enum { MATCH_GROUPS = 64, MATCH_TYPES = 16, SLOT_TYPES = 4, OPS_PER_RANK = 4096 };
enum { OP_FIRST = 1, OP_LAST = 2 };
typedef struct oslot {
    int64_t base;                             /* the first arrival folded in, on its rank's clock */
    int64_t lkey, larr, ldur, lref, lbusy;   /* the last arriver: its key, arrival, kernel time, reference point, GPU compute before */
    int64_t ekey, earr, eref, ebusy;          /* the earliest */
    int64_t skey, step;                       /* the lowest rank's step (PC_NULL_I: none) */
    double emin, emax, bytes;
    int32_t lent, eent;                       /* the last's and earliest's entries in pc_job.e */
    int8_t lfirst, nty, ty_over;
    uint8_t ltype;
    uint8_t ty[SLOT_TYPES];                   /* the collective types seen, each with its lowest rank's key */
    int64_t tykey[SLOT_TYPES];
} oslot;
typedef struct ogroup { const char *name; oslot *s; size_t n, cap; } ogroup;

/* One rank as the job view holds it: its row of ranks.rows and its rows of
 * ranks.collectives (in the job's scratch tables), the two figures the
 * straggler is judged by, and its collective operations (group, arrival). */
typedef struct jent {
    int rank, order, dropped, by_phase;
    size_t row, c0, nc;
    double med, work;
    int64_t key;   /* its place in the job: by rank, then the order given; no rank after */
    size_t nops;   /* rows of its collectives.ops */
    uint32_t m;    /* of them, held in g[] and d[] */
    uint8_t *g;    /* each one's group */
    float *d;      /* each one's arrival - its slot's base */
    float *x;      /* each one's own time before it: arrival - its reference point (ref_ns) */
    uint8_t *f;    /* OP_FIRST: the group's first in its step; OP_LAST: the rank's last operation ending within its step */
    size_t d0[4], dn[4], need; /* its detail rows (kernels, operators, steps, memory) in the scratch tables; the bytes they take in report.html */
    /* its timeline: its longest events (by duration, longest first), its lanes and categories (names interned), its steps' windows */
    struct tlkeep *tl;
    size_t ntl, tl_total;
    int64_t tl_span;
    uint32_t *tl_lanes, *tl_cats, *st_name;
    int64_t *st_start, *st_dur;
    int ntl_lanes, ntl_cats, nst;
} jent;
typedef struct tlkeep { int64_t start, dur; uint32_t name, src; int32_t args; uint16_t lane; uint8_t cat, depth; } tlkeep; /* src: its place in the summary's events */

enum { DETAIL_KERNELS = 10, DETAIL_OPS = 10, DETAIL_STEPS = 20, JOB_KERNELS = 20 };
/* each rank's timeline events held (the longest) and over the job; at most TL_SHOW_MAX, at least TL_SHOW_MIN, in report.html */
enum { TL_RANK_EVENTS = 2048, TL_HELD_MAX = 1 << 19, TL_SHOW_MIN = 64, TL_SHOW_MAX = 2048 };
/* a rank timeline's <script> element and its sentence, beside its JSON text */
enum { TL_VIEW_BYTES = 400 };
/* a kernel name over the job: its total, each rank's total, the least and most */
typedef struct jkern { double total, min, max, *v; size_t nv, cap; int64_t minkey, maxkey; int32_t minent, maxent; } jkern;

struct pc_job {
    pc_summary *scratch; /* the tables the ranks' rows are added to, and their strings */
    pc_table *rows, *colls;
    jent *e;
    size_t n, cap;
    ogroup grp[MATCH_GROUPS];
    int ngrp, grp_over, dirty;
    const char *types[256];
    int ntypes, types_over;
    size_t held, ops_cap, ops_max;
    pc_strtab names;     /* the detail's names, interned */
    pc_table *dt[4];     /* the detail rows of every rank */
    jkern *jk;           /* by name id */
    size_t njk;
    size_t tl_held, tl_cap; /* timeline events held over the ranks; at most tl_cap per rank */
    size_t detail_bytes, arrivals_max; /* pc_job_opts: report.html's bytes for the detail; arrivals held */
};

static int64_t ival(tk_I v) { return tk_null_I(v) ? 0 : v; }

static int type_id(pc_job *j, const char *c) {
    for (int k = 0; k < j->ntypes; k++)
        if (!strcmp(j->types[k], c)) return k;
    if (j->ntypes == 255) return j->types_over = 1, 255; /* (hostile: 255 types; the rest are one) */
    j->types[j->ntypes] = pc_summary_utf8(j->scratch, c);
    return j->ntypes++;
}

/* fewer arrivals held per rank until the job's fit (the first ones of each rank kept) */
static void job_fit(pc_job *j) {
    while (j->held > j->arrivals_max && j->ops_cap > 1) {
        j->ops_cap /= 2;
        j->held = 0;
        for (size_t i = 0; i < j->n; i++) {
            jent *e = &j->e[i];
            if (e->m > j->ops_cap) {
                e->m = (uint32_t)j->ops_cap;
                e->g = xrealloc(e->g, e->m), e->d = xrealloc(e->d, e->m * sizeof *e->d);
                e->x = xrealloc(e->x, e->m * sizeof *e->x), e->f = xrealloc(e->f, e->m);
            }
            j->held += e->m;
        }
    }
}

/* a step's number and end (start + duration, after the trace's start) */
typedef struct stend { int64_t number, end; size_t last; } stend;
static int cmp_stend(const void *a, const void *b) {
    const stend *x = a, *y = b;
    return (x->number > y->number) - (x->number < y->number);
}
/* OP_LAST on the rank's last operation (of any group) that ends within its
 * step (a null step: the whole trace, one step): the one whose completion the
 * step's end follows, for the straggler's replay */
static void mark_last_in_step(jent *e, const pc_table *t, const pc_summary *ps, size_t k) {
    const pc_table *st = PC_TAB(ps, step);
    size_t ns = st ? st->n : 0;
    stend *v = xcalloc(ns + 1, sizeof *v);
    for (size_t i = 0; i < ns; i++) {
        const tab_step *r = &TAB_ROWS(st, step)[i];
        v[i] = (stend){r->number, ival(r->start_ns) + ival(r->duration_ns), (size_t)-1};
    }
    qsort(v, ns, sizeof *v, cmp_stend);
    stend nostep = {0, INT64_MAX, (size_t)-1};
    for (size_t r = 0; r < k; r++) {
        const tab_coll_op *o = &TAB_ROWS(t, coll_op)[r];
        stend key = {tk_null_I(o->step) ? 0 : o->step, 0, 0}, *s = tk_null_I(o->step) ? &nostep : bsearch(&key, v, ns, sizeof *v, cmp_stend);
        if (!s || ival(o->end_ns) > s->end) continue;
        if (s->last == (size_t)-1 || ival(o->end_ns) > ival(TAB_ROWS(t, coll_op)[s->last].end_ns)) s->last = r;
    }
    for (size_t i = 0; i <= ns; i++) {
        size_t l = i < ns ? v[i].last : nostep.last;
        if (l != (size_t)-1) e->f[l] |= OP_LAST;
    }
    free(v);
}

static void add_ops(pc_job *j, jent *e, const pc_summary *ps) {
    const pc_table *t = PC_TAB(ps, coll_op);
    e->nops = t ? t->n : 0;
    if (e->nops > j->ops_max) j->ops_max = e->nops;
    size_t k = e->nops < j->ops_cap ? e->nops : j->ops_cap;
    if (!k) return;
    tk_J su = PC_REC(ps, run)->start_us;
    int64_t origin = tk_null_I(su) ? 0 : su * 1000;
    e->g = xmalloc(k), e->d = xmalloc(k * sizeof *e->d);
    e->x = xmalloc(k * sizeof *e->x), e->f = xcalloc(k, 1);
    uint32_t cnt[MATCH_GROUPS] = {0};
    int32_t me = (int32_t)(e - j->e);
    for (size_t r = 0; r < k; r++) {
        const tab_coll_op *o = &TAB_ROWS(t, coll_op)[r];
        const char *gname = PC_S(o->group, "");
        int g = 0;
        while (g < j->ngrp && strcmp(j->grp[g].name, gname)) g++;
        if (g == j->ngrp) {
            if (g == MATCH_GROUPS) { j->grp_over = 1; continue; }
            j->grp[j->ngrp++].name = pc_summary_utf8(j->scratch, gname);
        }
        ogroup *G = &j->grp[g];
        uint32_t n = cnt[g]++;
        int64_t arr = ival(o->arrival_ns), a = origin + arr, end = ival(o->end_ns), ref = ival(o->ref_ns), busy = ival(o->busy_ns);
        double ea = (double)(origin + end), bytes = PC_OR(o->bytes, -1);
        int ty = type_id(j, PC_S(o->collective, ""));
        if (n == G->n) {
            if (G->n == G->cap) G->s = xrealloc(G->s, (G->cap = G->cap ? 2 * G->cap : 16) * sizeof *G->s);
            G->s[G->n++] = (oslot){.base = a, .lkey = INT64_MIN, .ekey = INT64_MAX, .skey = INT64_MAX, .step = PC_NULL_I,
                                   .emin = ea, .emax = ea, .bytes = -1};
        }
        oslot *s = &G->s[n];
        if (a > s->larr || (a == s->larr && e->key > s->lkey) || s->lkey == INT64_MIN) {
            s->lkey = e->key, s->lent = me, s->larr = a, s->ldur = end - arr, s->lref = origin + ref, s->lbusy = busy;
            s->lfirst = (int8_t)tk_true(o->first), s->ltype = (uint8_t)ty;
        }
        if (a < s->earr || (a == s->earr && e->key < s->ekey) || s->ekey == INT64_MAX)
            s->ekey = e->key, s->eent = me, s->earr = a, s->eref = origin + ref, s->ebusy = busy;
        if (e->key < s->skey) s->skey = e->key, s->step = o->step;
        if (ea < s->emin) s->emin = ea;
        if (ea > s->emax) s->emax = ea;
        if (bytes > s->bytes) s->bytes = bytes;
        int q = 0;
        while (q < s->nty && s->ty[q] != ty) q++;
        if (q == s->nty) {
            if (q == SLOT_TYPES) s->ty_over = 1;
            else s->ty[s->nty++] = (uint8_t)ty, s->tykey[q] = e->key;
        } else if (e->key < s->tykey[q]) s->tykey[q] = e->key;
        e->g[e->m] = (uint8_t)g;
        e->x[e->m] = (float)(arr - ref);
        e->f[e->m] = tk_true(o->first) ? OP_FIRST : 0;
        e->d[e->m++] = (float)(a - s->base);
    }
    /* (an operation of a group past MATCH_GROUPS is not held: the marks go by the held ones' rows) */
    if (e->m == k) mark_last_in_step(e, t, ps, k);
    j->held += e->m;
    job_fit(j);
}

pc_job *pc_job_new(const pc_job_opts *o) {
    assert(o);
    pc_job *j = xcalloc(1, sizeof *j);
    j->detail_bytes = o->detail_bytes;
    j->arrivals_max = o->arrivals_max ? o->arrivals_max : PC_JOB_ARRIVALS;
    j->scratch = pc_summary_new();
    cJSON *rs = cJSON_AddObjectToObject(j->scratch->doc, "ranks");
    j->rows = pc_summary_add_table(j->scratch, rs, "rows", TAB_rank);
    j->colls = pc_summary_add_table(j->scratch, rs, "collectives", TAB_rank_coll);
    j->ops_cap = OPS_PER_RANK;
    j->tl_cap = TL_RANK_EVENTS;
    strtab_init(&j->names);
    return j;
}

static void keep_detail(pc_job *j, jent *e, const pc_summary *s);
static void keep_timeline(pc_job *j, jent *e, const pc_summary *s);

int pc_job_add(pc_job *j, const pc_summary *ps, int order) {
    int rank = (int)PC_OR(PC_REC(ps, run_distributed)->rank, -1);
    if (rank < 0) rank = rank_of_input(PC_S(PC_REC(ps, run)->input, ""));
    if (j->n == j->cap) j->e = xrealloc(j->e, (j->cap = j->cap ? 2 * j->cap : 64) * sizeof *j->e);
    jent *e = &j->e[j->n++];
    *e = (jent){.rank = rank, .order = order, .row = j->rows->n, .c0 = j->colls->n,
                .key = rank < 0 ? ((int64_t)1 << 62) + order : ((int64_t)rank << 31) + order};
    pc_summary *jobs = j->scratch;
    tab_rank *r = tab_push(j->rows);
    r->input = pc_summary_utf8(jobs, PC_S(PC_REC(ps, run)->input, ""));
    const tab_steps *st = PC_REC(ps, steps);
    const tab_communication *cm = PC_REC(ps, communication);
    r->steps = (int64_t)PC_OR(st->count, 0);
    e->med = PC_OR(st->median_ns, 0);
    r->step_median_ns = pc_figure(e->med);
    r->step_avg_ns = PC_OR(PC_REC(ps, step_average)->duration_ns, 0);
    double pc = phase_compute(ps);
    e->work = pc >= 0 ? pc : work_per_step(ps);
    e->by_phase = pc >= 0;
    r->compute_ns = pc_figure(e->work);
    double steps = pc_steps_of(ps);
    rank_collectives(jobs, j->colls, rank, ps, steps);
    e->nc = j->colls->n - e->c0;
    if (pc >= 0) {
        /* no kernels: the communication outside the forward and backward
         * phase; idle time is unknown */
        r->communication_ns = pc_figure((PC_OR(cm->nccl_ns, 0) - PC_OR(cm->overlap_ns, 0)) / steps);
    } else {
        r->communication_ns = pc_figure(per_step(ps, BK_COMM));
        r->idle_ns = pc_figure(per_step(ps, BK_OTHER));
        r->gpu_ns = pc_figure(per_step(ps, BK_KERNEL) + per_step(ps, BK_MEMCPY) + per_step(ps, BK_MEMSET));
        r->host_ns = pc_figure(per_step(ps, BK_RUNTIME) + per_step(ps, BK_CPU));
        r->data_ns = pc_figure(per_step(ps, BK_DATA));
    }
    tk_I peak = PC_REC(ps, memory)->cuda_peak_allocated_bytes;
    if (!tk_null_I(peak)) r->peak_memory_bytes = pc_figure((double)peak);
    r->nccl_ns = pc_figure(PC_OR(cm->nccl_ns, 0) / steps);
    r->nccl_overlap_pct = PC_OR(cm->overlap_pct, 0);
    /* the rank's costliest collective (collectives.rows is by time); no bus bandwidth of it: its
     * kernel time holds its wait for the last rank (the job's, from the transfer, is in job_collectives) */
    const pc_table *ct = PC_TAB(ps, coll);
    if (ct && ct->n) {
        const tab_coll *top = TAB_ROWS(ct, coll);
        char lab[96];
        snprintf(lab, sizeof lab, "%s, %s", PC_S(top->collective, ""), PC_S(top->size_range, ""));
        r->top_collective = pc_summary_utf8(jobs, lab);
        r->top_collective_ns = pc_figure(PC_OR(top->total_ns, 0) / steps);
    }
    const tab_gpu_device *d0 = PC_REC_AT(ps, gpu_device, 0);
    if (d0) r->gpu_utilization_pct = d0->utilization_pct;
    add_ops(j, e, ps);
    keep_detail(j, e, ps);
    keep_timeline(j, e, ps);
    return rank;
}

int pc_job_drop(pc_job *j, int order) {
    for (size_t i = 0; i < j->n; i++)
        if (j->e[i].order == order) j->e[i].dropped = 1, j->dirty = 1;
    /* its operations and kernels are folded into the job's: matched and summed again only in a new view */
    return j->dirty;
}

/* ranks the input names first, by rank; then the others in the order given */
static int cmp_jent(const void *a, const void *b) {
    const jent *x = *(const jent *const *)a, *y = *(const jent *const *)b;
    if ((x->rank < 0) != (y->rank < 0)) return x->rank < 0 ? 1 : -1;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->order > y->order) - (x->order < y->order);
}

/* the ranks kept, sorted; their number in *n */
static jent **job_sorted(const pc_job *j, int *n) {
    jent **v = xcalloc(j->n ? j->n : 1, sizeof *v);
    int k = 0;
    for (size_t i = 0; i < j->n; i++)
        if (!j->e[i].dropped) v[k++] = &j->e[i];
    qsort(v, (size_t)k, sizeof *v, cmp_jent);
    *n = k;
    return v;
}

int pc_job_shown(const pc_job *j) {
    int n;
    jent **v = job_sorted(j, &n);
    int order = n ? v[0]->order : -1;
    free(v);
    return order;
}

typedef struct rwait { double caused, suffered, before, host, gpu; int64_t last; } rwait;
typedef struct jtype { const char *coll; int64_t calls; double bytes, sized, wait, transfer; int *last; } jtype;
static int cmp_jtype(const void *a, const void *b) {
    const jtype *x = a, *y = b;
    double p = x->wait + x->transfer, q = y->wait + y->transfer;
    return (p < q) - (p > q);
}
static void note_add(char *note, size_t cap, const char *what) {
    size_t l = strlen(note);
    if (l + 3 < cap) snprintf(note + l, cap - l, "%s%s", l ? "; " : "", what);
}
/* the sorted place of the rank of this key */
static int place_of(jent *const *v, int n, int64_t key) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v[mid]->key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
/* the matching over the slots, at the end: w[] (by v's order) gets each
 * rank's figures; returns 1 when compared (matched and the clocks agree) */
static int match_collectives(const pc_job *j, pc_summary *jobs, cJSON *rs, jent *const *v, int n, rwait *w, int *steps_out, size_t *upto) {
    tab_coll_match *m = PC_ADD_REC(jobs, sj_obj(rs, "collective_ops"), coll_match);
    int *place = xcalloc(j->n + 1, sizeof *place);
    uint32_t *cnt = xcalloc((size_t)n * MATCH_GROUPS + 1, sizeof *cnt);
    memset(upto, 0, MATCH_GROUPS * sizeof *upto);
    jtype ty[MATCH_TYPES];
    int gorder[MATCH_GROUPS], seen[MATCH_GROUPS] = {0};
    int ng = 0, nt = 0, groups = 0, agree = 0;
    int64_t matched = 0;
    size_t nsp = 0, capsp = 0, nstep = 0, capst = 0;
    double *spread = NULL;
    int64_t *stepno = NULL;
    char note[1536] = "", line[640];
    *steps_out = 1;
    for (int i = 0; i < n; i++) {
        place[v[i] - j->e] = i;
        if (!v[i]->nops) {
            snprintf(line, sizeof line, "rank %d has no collective operations in its summary (collectives.ops)", v[i]->rank);
            note_add(note, sizeof note, line);
            goto out;
        }
        for (uint32_t k = 0; k < v[i]->m; k++) cnt[(size_t)i * MATCH_GROUPS + v[i]->g[k]]++;
    }
    if (n < 2) goto out;
    if (j->dirty) {
        note_add(note, sizeof note, "inputs left out (earlier runs) were in the matching: collectives are not compared across ranks, nor kernels summed over the job (give the kept inputs alone)");
        goto out;
    }
    if (j->ops_max > j->ops_cap) {
        snprintf(line, sizeof line, "each rank's first %zu collective operations are matched (of up to %zu: a job of %d ranks holds at most %zu arrivals)",
                 j->ops_cap, j->ops_max, n, j->arrivals_max);
        note_add(note, sizeof note, line);
    }
    if (j->grp_over) {
        snprintf(line, sizeof line, "over %d groups across the ranks: operations of the groups after the %dth seen are not matched", MATCH_GROUPS, MATCH_GROUPS);
        note_add(note, sizeof note, line);
    }
    for (uint32_t k = 0; k < v[0]->m; k++)
        if (!seen[v[0]->g[k]]) seen[v[0]->g[k]] = 1, gorder[ng++] = v[0]->g[k];
    for (int q = 0; q < ng; q++) {
        int g = gorder[q];
        const ogroup *G = &j->grp[g];
        size_t nmin = (size_t)-1, nmax = 0;
        for (int i = 0; i < n; i++) {
            size_t c = cnt[(size_t)i * MATCH_GROUPS + g];
            if (c < nmin) nmin = c;
            if (c > nmax) nmax = c;
        }
        if (!nmin) {
            for (int i = 0; i < n; i++)
                if (!cnt[(size_t)i * MATCH_GROUPS + g]) { snprintf(line, sizeof line, "%s: no operation on rank %d, not matched", G->name, v[i]->rank); break; }
            note_add(note, sizeof note, line);
            continue;
        }
        if (nmin != nmax) {
            snprintf(line, sizeof line, "%s: %zu to %zu operations per rank, the first %zu matched", G->name, nmin, nmax, nmin);
            note_add(note, sizeof note, line);
        }
        groups++;
        size_t jj = 0;
        for (; jj < nmin; jj++) {
            const oslot *s = &G->s[jj];
            if (s->nty > 1 || s->ty_over) {
                /* the lowest rank's type (v[0] has them all), and the lowest rank of another */
                int t0 = 0, bad = -1;
                for (int k = 0; k < s->nty; k++)
                    if (s->tykey[k] < s->tykey[t0]) t0 = k;
                for (int k = 0; k < s->nty; k++)
                    if (k != t0 && (bad < 0 || s->tykey[k] < s->tykey[bad])) bad = k;
                snprintf(line, sizeof line, "%s: operation %zu is %.40s on rank %d and %.40s on rank %d, matching stopped there", G->name, jj,
                         j->types[s->ty[t0]], v[0]->rank, bad >= 0 ? j->types[s->ty[bad]] : "another type",
                         bad >= 0 ? v[place_of(v, n, s->tykey[bad])]->rank : -1);
                note_add(note, sizeof note, line);
                break;
            }
            int last = place[s->lent];
            double wait = (double)(s->larr - s->earr), transfer = (double)s->ldur;
            double *sp = VEC_PUSH(spread, nsp, capsp);
            *sp = s->emax - s->emin;
            w[last].caused += wait, w[last].last++;
            double before = s->lfirst > 0 ? (double)(s->lref - s->eref) : 0;
            double instep = (double)((s->larr - s->lref) - (s->earr - s->eref));
            double gpu = (double)(s->lbusy - s->ebusy);
            if (gpu > instep) gpu = instep;
            if (gpu < 0) gpu = 0;
            w[last].before += before, w[last].gpu += gpu, w[last].host += instep - gpu;
            const char *coll = j->types[s->ltype];
            int k = 0;
            while (k < nt && strcmp(ty[k].coll, coll)) k++;
            if (k == nt && nt < MATCH_TYPES) ty[nt++] = (jtype){.coll = coll, .last = xcalloc((size_t)n, sizeof(int))};
            if (k < nt) {
                ty[k].calls++, ty[k].wait += wait, ty[k].transfer += transfer, ty[k].last[last]++;
                if (s->bytes >= 0) ty[k].bytes += s->bytes, ty[k].sized += transfer;
            }
            if (!tk_null_I(s->step)) *VEC_PUSH(stepno, nstep, capst) = s->step;
            matched++;
        }
        upto[g] = jj;
    }
    /* the wait each rank suffered: the last arrival - its own, over the operations matched */
    for (int i = 0; i < n; i++) {
        uint32_t c[MATCH_GROUPS] = {0};
        for (uint32_t k = 0; k < v[i]->m; k++) {
            int g = v[i]->g[k];
            uint32_t at = c[g]++;
            if (at < upto[g]) {
                const oslot *s = &j->grp[g].s[at];
                w[i].suffered += (double)(s->larr - s->base) - (double)v[i]->d[k];
            }
        }
    }
    if (nsp) {
        qsort(spread, nsp, sizeof *spread, cmp_dbl);
        m->end_spread_median_ns = pc_figure(spread[nsp / 2]);
        m->end_spread_max_ns = pc_figure(spread[nsp - 1]);
        agree = spread[nsp / 2] <= CLOCK_NS;
        if (!agree) {
            snprintf(line, sizeof line, "the clock check failed: the ends of one operation lie %.0f us apart across the ranks (the median over %zu operations; they agree within %.0f us on one clock), so the ranks' clocks differ (hosts whose clocks are not synchronized, or traces that are not one job): arrivals are not compared, and collectives are shown per rank",
                     spread[nsp / 2] / 1e3, nsp, CLOCK_NS / 1e3);
            note_add(note, sizeof note, line);
        }
    }
    if (nstep) {
        qsort(stepno, nstep, sizeof *stepno, cmp_i64);
        size_t d = 1;
        for (size_t k = 1; k < nstep; k++) d += stepno[k] != stepno[k - 1];
        *steps_out = (int)d;
    }
    m->steps = *steps_out;
    if (agree) {
        qsort(ty, (size_t)nt, sizeof *ty, cmp_jtype);
        pc_table *jt = pc_summary_add_table(jobs, rs, "job_collectives", TAB_job_coll);
        for (int k = 0; k < nt; k++) {
            tab_job_coll *o = tab_push(jt);
            o->collective = pc_summary_utf8(jobs, ty[k].coll);
            o->calls = ty[k].calls;
            o->wait_ns = pc_figure(ty[k].wait);
            o->transfer_ns = pc_figure(ty[k].transfer);
            double f = coll_bus_factor(ty[k].coll, n);
            o->bus_factor = pc_figure(f);
            if (ty[k].sized > 0) {
                o->bytes = pc_figure(ty[k].bytes);
                o->algbw_gbs = pc_figure(ty[k].bytes / ty[k].sized);
                o->busbw_gbs = pc_figure(ty[k].bytes / ty[k].sized * f);
            }
            int lr = 0;
            for (int i = 1; i < n; i++)
                if (ty[k].last[i] > ty[k].last[lr]) lr = i;
            o->last_rank = v[lr]->rank;
            o->last_count = ty[k].last[lr];
        }
    }
out:
    m->compared = (tk_B)agree;
    m->matched = matched;
    m->groups = groups;
    if (note[0]) m->note = pc_summary_utf8(jobs, note);
    for (int k = 0; k < nt; k++) free(ty[k].last);
    free(place), free(cnt), free(spread), free(stepno);
    return agree;
}


/* The straggler's replay (#32 class 4, #37 items 1 and 3;
 * tests/expectations/dlrm_straggler_replay.py is the independent reading):
 * per group, over its matched operations k in order, each rank's replayed
 * arrival is its measured one at the group's first operation in its step,
 * else E(k-1) + x (x: its own time from its reference point, the previous
 * operation's end, to its arrival), and the operation completes at
 * E(k) = max arrival + its transfer (the last arriver's kernel time). The
 * change: at every operation the straggler's arrival is at most the median
 * replayed arrival (all ranks'; an even count: the mean of the middle two).
 * A rank's step ends its own tail after its last operation ending within the
 * step (OP_LAST), so its saving is E(k) unchanged - E(k) changed there; save[]
 * (by v's order) gets its sum over the steps. Returns the largest
 * |E(k) unchanged - the measured end (the last arrival + transfer)|: how well
 * the replay of the unchanged operations reproduces them. Linear in the
 * operations held but for the median (a sort of n per operation). */
static double replay_straggler(const pc_job *j, jent *const *v, int n, const size_t *upto, int strag, double *save) {
    size_t *cur = xcalloc((size_t)n, sizeof *cur);
    double *ab = xcalloc((size_t)n, sizeof *ab), *am = xcalloc((size_t)n, sizeof *am), *tmp = xcalloc((size_t)n, sizeof *tmp);
    double err = 0;
    for (int g = 0; g < j->ngrp; g++) {
        if (!upto[g]) continue;
        const ogroup *G = &j->grp[g];
        memset(cur, 0, (size_t)n * sizeof *cur);
        double eb = 0, em = 0; /* the previous operation's end, unchanged and changed, after this slot's base */
        for (size_t jj = 0; jj < upto[g]; jj++) {
            const oslot *s = &G->s[jj];
            double mb = -INFINITY, mm = -INFINITY;
            for (int i = 0; i < n; i++) {
                const jent *e = v[i];
                while (cur[i] < e->m && e->g[cur[i]] != g) cur[i]++;
                size_t k = cur[i];
                if (k >= e->m) { ab[i] = am[i] = 0; continue; } /* (cannot be: jj < upto[g] <= its count) */
                if (e->f[k] & OP_FIRST || jj == 0) ab[i] = am[i] = (double)e->d[k];
                else ab[i] = eb + (double)e->x[k], am[i] = em + (double)e->x[k];
                tmp[i] = am[i];
            }
            double med = median_of(tmp, n);
            if (am[strag] > med) am[strag] = med;
            for (int i = 0; i < n; i++) {
                if (ab[i] > mb) mb = ab[i];
                if (am[i] > mm) mm = am[i];
            }
            eb = mb + (double)s->ldur, em = mm + (double)s->ldur;
            double e0 = fabs(eb - (double)(s->larr + s->ldur - s->base));
            if (e0 > err) err = e0;
            for (int i = 0; i < n; i++)
                if (cur[i] < v[i]->m && v[i]->f[cur[i]] & OP_LAST) save[i] += eb - em;
            for (int i = 0; i < n; i++) cur[i]++;
            if (jj + 1 < upto[g]) {
                double shift = (double)(s->base - G->s[jj + 1].base);
                eb += shift, em += shift;
            }
        }
    }
    free(cur), free(ab), free(am), free(tmp);
    return err;
}

/* ---- the job's first screen and the per-rank detail (report.html's rank selector) ---- */

/* rank i's kernels over its devices, summed by name: names[] (into the
 * summary's strings) and totals, calls; returns the count */
typedef struct kname { const char *name; double total, calls; int rank; } kname;
static int cmp_kname_name(const void *a, const void *b) {
    const kname *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}
static int cmp_kname_total(const void *a, const void *b) {
    const kname *x = a, *y = b;
    if (x->total != y->total) return (x->total < y->total) - (x->total > y->total);
    return strcmp(x->name, y->name);
}
static kname *rank_kernels(const pc_summary *s, int rank, size_t *out) {
    size_t n = 0, cap = 0;
    kname *v = NULL;
    const pc_table *t;
    for (size_t d = 0; (t = PC_TAB_AT(s, kernel, d)); d++)
        for (size_t i = 0; i < t->n; i++) {
            const tab_kernel *r = &TAB_ROWS(t, kernel)[i];
            kname *k = VEC_PUSH(v, n, cap);
            *k = (kname){PC_S(r->name, ""), PC_OR(r->total_ns, 0), PC_OR(r->calls, 0), rank};
        }
    /* one row per name (a kernel on two devices summed) */
    if (n) qsort(v, n, sizeof *v, cmp_kname_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && !strcmp(v[m - 1].name, v[i].name)) v[m - 1].total += v[i].total, v[m - 1].calls += v[i].calls;
        else v[m++] = v[i];
    }
    *out = m;
    return v;
}

/* The bytes a rank's view takes in report.html's Per rank section (templates/
 * report.html's rankview and its selector option), measured on the DLRM and
 * job4 reports (tests/py/job_html_bound.py checks the section against its
 * share): the view's headings, table heads, timeline sentence and option,
 * beside its input's name (1,621-1,765 measured, without the input); per row
 * its tags and figures (kernels 136-140, operators 137-145, steps 93-95)
 * beside its strings: a kernel's or operator's name and its short name, a
 * step's name, a memory row's device and peak operator, each as escaped. */
enum { SECTION_BYTES = 1200, VIEW_BYTES = 1850, MEM_HEAD_BYTES = 450, KERNEL_ROW_BYTES = 150, OP_ROW_BYTES = 155, STEP_ROW_BYTES = 105, MEM_ROW_BYTES = 170 };
static size_t html_len_max(const char *s, size_t max) {
    size_t n = 0;
    for (size_t i = 0; s && s[i] && i < max; i++)
        n += s[i] == '&' ? 5 : s[i] == '<' || s[i] == '>' ? 4 : s[i] == '"' ? 6 : s[i] == '\'' ? 5 : 1;
    return n;
}
static size_t html_len(const char *s) { return html_len_max(s, (size_t)-1); }
/* the rows' names as report.html writes them: each one's title and its short
 * name (report.c's add_short_names: pc_short_names over the rank's list) */
static size_t names_len(const char *const *names, size_t n) {
    if (!n) return 0;
    char **sh = xcalloc(n, sizeof *sh);
    pc_short_names(names, n, PC_SHORT_TABLE, sh);
    size_t b = 0;
    for (size_t i = 0; i < n; i++) b += html_len(names[i]) + html_len(sh[i]), free(sh[i]);
    free(sh);
    return b;
}

static const char *intern(pc_job *j, const char *s) { return strtab_get(&j->names, strtab_intern(&j->names, s, strlen(s))); }

/* What the view needs of a rank's sections, one rank at a time: its detail
 * rows (top kernels, first operators and steps, memory peaks: in the job's
 * scratch tables, names interned, whether or not the rank is shown in detail
 * at the end: which ones are is known only then), how many rows they take in
 * report.html, and its kernels' totals by name for ranks.job_kernels. */
static void keep_detail(pc_job *j, jent *e, const pc_summary *s) {
    if (!j->dt[0]) {
        cJSON *rs = cJSON_GetObjectItem(j->scratch->doc, "ranks");
        j->dt[0] = pc_summary_add_table(j->scratch, rs, "kernels", TAB_rank_kernel);
        j->dt[1] = pc_summary_add_table(j->scratch, rs, "operators", TAB_rank_op);
        j->dt[2] = pc_summary_add_table(j->scratch, rs, "steps", TAB_rank_step);
        j->dt[3] = pc_summary_add_table(j->scratch, rs, "memory", TAB_rank_mem);
    }
    for (int c = 0; c < 4; c++) e->d0[c] = j->dt[c]->n;
    size_t nk = 0;
    kname *k = rank_kernels(s, 0, &nk);
    double all = 0;
    int32_t me = (int32_t)(e - j->e);
    for (size_t i = 0; i < nk; i++) {
        all += k[i].total;
        uint32_t id = strtab_intern(&j->names, k[i].name, strlen(k[i].name));
        if (id >= j->njk) {
            size_t old = j->njk;
            j->njk = (size_t)id + 64;
            j->jk = xrealloc(j->jk, j->njk * sizeof *j->jk);
            memset(j->jk + old, 0, (j->njk - old) * sizeof *j->jk);
        }
        jkern *q = &j->jk[id];
        double t = k[i].total;
        if (!q->nv || t < q->min || (t == q->min && e->key < q->minkey)) q->min = t, q->minkey = e->key, q->minent = me;
        if (!q->nv || t > q->max || (t == q->max && e->key < q->maxkey)) q->max = t, q->maxkey = e->key, q->maxent = me;
        q->total += t;
        *VEC_PUSH(q->v, q->nv, q->cap) = t;
        k[i].name = strtab_get(&j->names, id);
    }
    if (nk) qsort(k, nk, sizeof *k, cmp_kname_total);
    for (size_t i = 0; i < nk && i < DETAIL_KERNELS; i++) {
        tab_rank_kernel *o = tab_push(j->dt[0]);
        o->name = k[i].name;
        o->total_ns = pc_figure(k[i].total);
        o->calls = pc_figure(k[i].calls);
        if (k[i].calls > 0) o->avg_ns = pc_figure(k[i].total / k[i].calls);
        if (all > 0) o->time_pct = pc_figure(100 * k[i].total / all);
    }
    free(k);
    const pc_table *ops = PC_TAB(s, op);
    for (size_t i = 0; ops && i < ops->n && i < DETAIL_OPS; i++) {
        const tab_op *r = &TAB_ROWS(ops, op)[i];
        tab_rank_op *o = tab_push(j->dt[1]);
        o->name = intern(j, PC_S(r->name, ""));
        o->calls = r->calls, o->device_total_ns = r->device_total_ns, o->self_device_ns = r->self_device_ns, o->cpu_total_ns = r->cpu_total_ns;
    }
    const pc_table *st = PC_TAB(s, step);
    for (size_t i = 0; st && i < st->n && i < DETAIL_STEPS; i++) {
        const tab_step *r = &TAB_ROWS(st, step)[i];
        tab_rank_step *o = tab_push(j->dt[2]);
        o->name = intern(j, PC_S(r->name, ""));
        o->duration_ns = r->duration_ns, o->communication_ns = r->communication_ns, o->gpu_lag_ns = r->gpu_lag_ns;
    }
    const tab_memory_device *md;
    for (size_t i = 0; (md = PC_REC_AT(s, memory_device, i)); i++) {
        tab_rank_mem *o = tab_push(j->dt[3]);
        char dev[64];
        if (tk_null_I(md->id)) snprintf(dev, sizeof dev, "%.40s", PC_S(md->device, "?"));
        else snprintf(dev, sizeof dev, "%.40s:%lld", PC_S(md->device, "?"), (long long)md->id);
        o->device = intern(j, dev);
        o->peak_allocated_bytes = md->peak_allocated_bytes, o->peak_reserved_bytes = md->peak_reserved_bytes;
        if (md->peak_operator) o->peak_operator = intern(j, md->peak_operator);
    }
    for (int c = 0; c < 4; c++) e->dn[c] = j->dt[c]->n - e->d0[c];
    /* the bytes its view takes in report.html's Per rank section */
    e->need = VIEW_BYTES + html_len(PC_S(PC_REC(s, run)->input, "")) + (e->dn[3] ? MEM_HEAD_BYTES : 0);
    const char *nm[DETAIL_KERNELS > DETAIL_OPS ? DETAIL_KERNELS : DETAIL_OPS];
    for (size_t i = 0; i < e->dn[0]; i++) nm[i] = TAB_ROWS(j->dt[0], rank_kernel)[e->d0[0] + i].name;
    e->need += e->dn[0] * KERNEL_ROW_BYTES + names_len(nm, e->dn[0]);
    for (size_t i = 0; i < e->dn[1]; i++) nm[i] = TAB_ROWS(j->dt[1], rank_op)[e->d0[1] + i].name;
    e->need += e->dn[1] * OP_ROW_BYTES + names_len(nm, e->dn[1]);
    for (size_t i = e->d0[2]; i < e->d0[2] + e->dn[2]; i++) e->need += STEP_ROW_BYTES + html_len(TAB_ROWS(j->dt[2], rank_step)[i].name);
    for (size_t i = e->d0[3]; i < e->d0[3] + e->dn[3]; i++) {
        const tab_rank_mem *m = &TAB_ROWS(j->dt[3], rank_mem)[i];
        e->need += MEM_ROW_BYTES + html_len(m->device) + html_len(m->peak_operator);
    }
}

/* Each rank's timeline for the rank selector (#34 item 3): its longest
 * events of its whole-trace timeline (trace_timeline: at most j->tl_cap of
 * them, TL_RANK_EVENTS at first; past TL_HELD_MAX over the job every rank
 * keeps half as many, the longest, until they fit), its lanes and categories,
 * its steps' windows (the first DETAIL_STEPS), names interned. The ranks
 * report.html shows in detail get theirs in ranks.timelines (job_timelines). */
static int cmp_tl_dur(const void *a, const void *b) {
    const tlkeep *x = a, *y = b;
    if (x->dur != y->dur) return (x->dur < y->dur) - (x->dur > y->dur);
    if (x->start != y->start) return (x->start > y->start) - (x->start < y->start);
    return (x->src > y->src) - (x->src < y->src);
}
static uint32_t intern_id(pc_job *j, const char *s) { return strtab_intern(&j->names, s, strlen(s)); }
static uint32_t *interned_list(pc_job *j, const cJSON *arr, int *n) {
    int m = cJSON_GetArraySize(arr), k = 0;
    uint32_t *v = xcalloc((size_t)m + 1, sizeof *v);
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) v[k++] = intern_id(j, cJSON_IsString(x) ? x->valuestring : "");
    *n = k;
    return v;
}
static void keep_timeline(pc_job *j, jent *e, const pc_summary *s) {
    const cJSON *tl = cJSON_GetObjectItemCaseSensitive(s->doc, "trace_timeline");
    size_t n;
    pc_tl_event *ev = pc_summary_trace_events(s, &n);
    if (!tl || !n) { free(ev); return; }
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(tl, "names"), *args = cJSON_GetObjectItemCaseSensitive(tl, "args");
    int nn = cJSON_GetArraySize(names), na = cJSON_GetArraySize(args);
    e->tl_lanes = interned_list(j, cJSON_GetObjectItemCaseSensitive(tl, "lanes"), &e->ntl_lanes);
    e->tl_cats = interned_list(j, cJSON_GetObjectItemCaseSensitive(tl, "categories"), &e->ntl_cats);
    const tab_trace_timeline *rec = PC_REC(s, trace_timeline);
    e->tl_span = ival(rec->span_ns);
    e->tl_total = (size_t)PC_OR(rec->events_total, (double)n);
    tlkeep *v = xcalloc(n, sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const pc_tl_event *x = &ev[i];
        if (x->lane < 0 || x->lane >= e->ntl_lanes || x->lane > UINT16_MAX || x->category < 0 || x->category >= e->ntl_cats || x->category > 255 ||
            x->name < 0 || x->name >= nn)
            continue; /* (an event pointing nowhere: a summary from elsewhere) */
        /* (name and args: the summary's list indexes until the ones kept are interned below) */
        v[m++] = (tlkeep){x->start_ns, x->duration_ns, (uint32_t)x->name, (uint32_t)i, x->args >= 0 && x->args < na ? (int32_t)x->args : -1,
                          (uint16_t)x->lane, (uint8_t)x->category, (uint8_t)(x->depth < 0 ? 0 : x->depth > 255 ? 255 : x->depth)};
    }
    free(ev);
    qsort(v, m, sizeof *v, cmp_tl_dur);
    if (m > j->tl_cap) m = j->tl_cap;
    /* only the kept events' names and arguments are interned (cJSON's arrays by index: walked once, in order) */
    const cJSON **nv = xcalloc((size_t)nn + 1, sizeof *nv), **av = xcalloc((size_t)na + 1, sizeof *av), *it;
    int q = 0;
    cJSON_ArrayForEach(it, names) nv[q++] = it;
    q = 0;
    cJSON_ArrayForEach(it, args) av[q++] = it;
    for (size_t i = 0; i < m; i++) {
        const cJSON *nm = nv[v[i].name], *a = v[i].args >= 0 ? av[v[i].args] : NULL;
        v[i].name = intern_id(j, cJSON_IsString(nm) ? nm->valuestring : "");
        v[i].args = cJSON_IsString(a) ? (int32_t)intern_id(j, a->valuestring) : -1;
    }
    free(nv), free(av);
    e->tl = xrealloc(v, (m ? m : 1) * sizeof *v);
    e->ntl = m;
    j->tl_held += m;
    const pc_table *st = PC_TAB(s, step);
    e->nst = st ? (int)(st->n < DETAIL_STEPS ? st->n : DETAIL_STEPS) : 0;
    e->st_name = xcalloc((size_t)e->nst + 1, sizeof *e->st_name);
    e->st_start = xcalloc((size_t)e->nst + 1, sizeof *e->st_start), e->st_dur = xcalloc((size_t)e->nst + 1, sizeof *e->st_dur);
    for (int i = 0; i < e->nst; i++) {
        const tab_step *r = &TAB_ROWS(st, step)[i];
        e->st_name[i] = intern_id(j, PC_S(r->name, "")), e->st_start[i] = ival(r->start_ns), e->st_dur[i] = ival(r->duration_ns);
    }
    /* the job's hold: every rank keeps its longest half while over */
    while (j->tl_held > TL_HELD_MAX && j->tl_cap > 1) {
        j->tl_cap /= 2;
        j->tl_held = 0;
        for (size_t i = 0; i < j->n; i++) {
            if (j->e[i].ntl > j->tl_cap) j->e[i].ntl = j->tl_cap;
            j->tl_held += j->e[i].ntl;
        }
    }
}

/* the timeline of rank e for report.html: its k longest events held, by
 * start, with the lanes, categories, names and arguments they use, its steps,
 * as trace_timeline lays them out (lists.c), with rank, span_ns,
 * events_total and kept */
static int cmp_tl_start(const void *a, const void *b) {
    const tlkeep *x = a, *y = b;
    if (x->start != y->start) return (x->start > y->start) - (x->start < y->start);
    return (x->src > y->src) - (x->src < y->src);
}
static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}
static int64_t local_of(const uint32_t *ids, size_t n, uint32_t id) {
    const uint32_t *p = bsearch(&id, ids, n, sizeof *ids, cmp_u32);
    return p ? p - ids : -1;
}
static size_t uniq_u32(uint32_t *v, size_t n) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_u32);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[m - 1]) v[m++] = v[i];
    return m;
}
static cJSON *str_list(const pc_job *j, const uint32_t *ids, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, sj_str_item(strtab_get(&j->names, ids[i])));
    return a;
}
/* local indexes in the order of first use (the ids interned differ with the order the ranks come
 * in; the output must not): ids[] sorted unique, at[] each one's local index, out[] the ids by it */
static void first_use(const uint32_t *ids, size_t n, int64_t *at, uint32_t *out, uint32_t id, size_t *next) {
    int64_t u = local_of(ids, n, id);
    if (u >= 0 && at[u] < 0) out[*next] = id, at[u] = (int64_t)(*next)++;
}
static cJSON *rank_timeline(const pc_job *j, const jent *e, int rank, size_t k) {
    if (k > e->ntl) k = e->ntl;
    tlkeep *v = xmalloc((k ? k : 1) * sizeof *v);
    memcpy(v, e->tl, k * sizeof *v);
    qsort(v, k, sizeof *v, cmp_tl_start);
    uint32_t *nm = xmalloc((k + 1) * sizeof *nm), *ar = xmalloc((k + 1) * sizeof *ar);
    size_t nn = 0, na = 0;
    for (size_t i = 0; i < k; i++) {
        nm[nn++] = v[i].name;
        if (v[i].args >= 0) ar[na++] = (uint32_t)v[i].args;
    }
    nn = uniq_u32(nm, nn), na = uniq_u32(ar, na);
    int64_t *atn = xmalloc((nn + 1) * sizeof *atn), *ata = xmalloc((na + 1) * sizeof *ata);
    uint32_t *ln = xmalloc((nn + 1) * sizeof *ln), *la = xmalloc((na + 1) * sizeof *la);
    for (size_t i = 0; i < nn; i++) atn[i] = -1;
    for (size_t i = 0; i < na; i++) ata[i] = -1;
    size_t qn = 0, qa = 0;
    for (size_t i = 0; i < k; i++) {
        first_use(nm, nn, atn, ln, v[i].name, &qn);
        if (v[i].args >= 0) first_use(ar, na, ata, la, (uint32_t)v[i].args, &qa);
    }
    cJSON *o = cJSON_CreateObject();
    sj_int(o, "rank", rank);
    sj_int(o, "span_ns", e->tl_span);
    sj_int(o, "events_total", (int64_t)e->tl_total);
    sj_int(o, "kept", (int64_t)k);
    cJSON_AddItemToObject(o, "categories", str_list(j, e->tl_cats, (size_t)e->ntl_cats));
    cJSON_AddItemToObject(o, "lanes", str_list(j, e->tl_lanes, (size_t)e->ntl_lanes));
    cJSON_AddItemToObject(o, "names", str_list(j, ln, qn));
    cJSON_AddItemToObject(o, "args", str_list(j, la, qa));
    cJSON *ev = sj_arr(o, "events");
    for (size_t i = 0; i < k; i++) {
        pc_tl_event x = {v[i].lane, v[i].start, v[i].dur, atn[local_of(nm, nn, v[i].name)], v[i].cat, v[i].depth,
                         v[i].args >= 0 ? ata[local_of(ar, na, (uint32_t)v[i].args)] : -1};
        cJSON_AddItemToArray(ev, pc_tl_event_item(&x));
    }
    free(atn), free(ata), free(ln), free(la);
    cJSON *st = sj_arr(o, "steps");
    for (int i = 0; i < e->nst; i++) {
        cJSON *w = cJSON_CreateArray();
        cJSON_AddItemToArray(w, sj_str_item(strtab_get(&j->names, e->st_name[i])));
        cJSON_AddItemToArray(w, cJSON_CreateNumber((double)e->st_start[i]));
        cJSON_AddItemToArray(w, cJSON_CreateNumber((double)e->st_dur[i]));
        cJSON_AddItemToArray(st, w);
    }
    free(v), free(nm), free(ar);
    return o;
}
/* its bytes in report.html: the JSON text, '<', '>' and '&' written as \u escapes (report.c) */
static size_t timeline_bytes(const cJSON *o) {
    char *t = cJSON_PrintUnformatted(o);
    size_t b = 0;
    for (const char *p = t; p && *p; p++) b += *p == '<' || *p == '>' || *p == '&' ? 6 : 1;
    free(t);
    return b + TL_VIEW_BYTES;
}

/* a rank's detail rows into the job's tables t[] (strings into its summary) */
static void add_detail(const pc_job *j, pc_summary *jobs, cJSON *rs, pc_table **t, const jent *e) {
    if (!t[0]) {
        t[0] = pc_summary_add_table(jobs, rs, "kernels", TAB_rank_kernel);
        t[1] = pc_summary_add_table(jobs, rs, "operators", TAB_rank_op);
        t[2] = pc_summary_add_table(jobs, rs, "steps", TAB_rank_step);
        t[3] = pc_summary_add_table(jobs, rs, "memory", TAB_rank_mem);
    }
    for (size_t i = e->d0[0]; i < e->d0[0] + e->dn[0]; i++) {
        tab_rank_kernel *o = tab_push(t[0]);
        *o = TAB_ROWS(j->dt[0], rank_kernel)[i];
        o->rank = e->rank, o->name = pc_summary_utf8(jobs, o->name);
    }
    for (size_t i = e->d0[1]; i < e->d0[1] + e->dn[1]; i++) {
        tab_rank_op *o = tab_push(t[1]);
        *o = TAB_ROWS(j->dt[1], rank_op)[i];
        o->rank = e->rank, o->name = pc_summary_utf8(jobs, o->name);
    }
    for (size_t i = e->d0[2]; i < e->d0[2] + e->dn[2]; i++) {
        tab_rank_step *o = tab_push(t[2]);
        *o = TAB_ROWS(j->dt[2], rank_step)[i];
        o->rank = e->rank, o->name = pc_summary_utf8(jobs, o->name);
    }
    for (size_t i = e->d0[3]; i < e->d0[3] + e->dn[3]; i++) {
        tab_rank_mem *o = tab_push(t[3]);
        *o = TAB_ROWS(j->dt[3], rank_mem)[i];
        o->rank = e->rank, o->device = pc_summary_utf8(jobs, o->device);
        if (o->peak_operator) o->peak_operator = pc_summary_utf8(jobs, o->peak_operator);
    }
}

/* ranks.job_kernels: per kernel name over every rank, its total and the
 * spread of the ranks' totals (over the ranks that run it) */
static void job_kernels(const pc_job *j, pc_summary *jobs, cJSON *rs, jent *const *v, int n) {
    if (j->dirty) return; /* ranks left out are in the totals */
    size_t ng = 0;
    kname *order = xcalloc(j->njk + 1, sizeof *order);
    for (size_t id = 0; id < j->njk; id++)
        if (j->jk[id].nv) order[ng++] = (kname){strtab_get(&j->names, (uint32_t)id), j->jk[id].total, 0, (int)id};
    if (!ng) { free(order); return; }
    int *place = xcalloc(j->n + 1, sizeof *place);
    for (int i = 0; i < n; i++) place[v[i] - j->e] = i;
    qsort(order, ng, sizeof *order, cmp_kname_total);
    pc_table *t = pc_summary_add_table(jobs, rs, "job_kernels", TAB_job_kernel);
    for (size_t q = 0; q < ng && q < JOB_KERNELS; q++) {
        const jkern *k = &j->jk[order[q].rank];
        tab_job_kernel *o = tab_push(t);
        o->name = pc_summary_utf8(jobs, order[q].name);
        o->total_ns = pc_figure(order[q].total);
        o->ranks = (int64_t)k->nv;
        o->min_ns = pc_figure(k->min), o->min_rank = v[place[k->minent]]->rank;
        o->max_ns = pc_figure(k->max), o->max_rank = v[place[k->maxent]]->rank;
        o->median_ns = pc_figure(median_of(k->v, (int)k->nv));
    }
    free(place), free(order);
}

/* The job's first screen: skew, the slowest and fastest rank by median step,
 * the rows' marks, the job's headline; the per-rank detail of the ranks
 * report.html's budget holds (the lowest, the slowest and the straggler
 * first, then by rank); the job-wide kernel table. */
static void job_view(const pc_job *j, pc_summary *jobs, cJSON *rs, tab_ranks *rr, pc_table *rows, jent *const *v, int n, const double *med, const tab_straggler *st,
                     double wait_per_step, double job_step) {
    int slowest = 0, fastest = 0, strag = -1;
    for (int i = 1; i < n; i++) {
        if (med[i] > med[slowest]) slowest = i;
        if (med[i] < med[fastest]) fastest = i;
    }
    tab_rank *r = (tab_rank *)rows->rows;
    for (int i = 0; i < n; i++) {
        r[i].slowest = i == slowest;
        r[i].straggler = tk_true(st->found) && r[i].rank == st->rank;
        if (tk_true(r[i].straggler)) strag = i;
    }
    rr->skew_ns = pc_figure(med[slowest] - med[fastest]);
    rr->slowest_rank = v[slowest]->rank;
    rr->fastest_rank = v[fastest]->rank;
    char h[640];
    if (tk_true(st->found) && !strcmp(PC_S(st->by, ""), "arrival")) {
        /* where its lateness arises: the largest of the three parts */
        double b = PC_OR(st->before_step_ns, 0), hg = PC_OR(st->host_gap_ns, 0), g = PC_OR(st->gpu_compute_ns, 0);
        const char *where = b >= hg && b >= g ? "before the step (its step begins after the others')"
                            : hg >= g         ? "in host gaps inside the step (before its collectives)"
                                              : "in more GPU compute inside the step";
        double js = PC_OR(st->saving_job_step_ns, 0), mean = PC_OR(st->saving_mean_ns, 0);
        char give[192], a[32], am[32], aw[32];
        snprintf(a, sizeof a, "%.2f", js / 1e6), snprintf(am, sizeof am, "%.2f", mean / 1e6), snprintf(aw, sizeof aw, "%.2f", wait_per_step / 1e6);
        /* one figure once: the same saving on every rank is said once, and a saving that is the whole wait so */
        if (!strcmp(a, am) && !strcmp(a, aw))
            snprintf(give, sizeof give, "all of that wait on every rank");
        else if (!strcmp(a, am))
            snprintf(give, sizeof give, "%s ms of every rank's step (%.1f%% of the job's, rank %d's, the slowest)", a,
                     med[slowest] > 0 ? 100 * js / med[slowest] : 0.0, v[slowest]->rank);
        else
            snprintf(give, sizeof give, "%s ms of the job's step (%.1f%% of rank %d's, the slowest) and %s ms per rank on average", a,
                     med[slowest] > 0 ? 100 * js / med[slowest] : 0.0, v[slowest]->rank, am);
        snprintf(h, sizeof h, "Rank %d holds the job of %d ranks back: it arrives last at %lld of %lld collective operations, and the others wait for it %.1f%% of the median step; arriving at the median arrival would give back %s; its lateness arises mostly %s",
                 (int)st->rank, n, (long long)PC_OR(st->last_count, 0), (long long)PC_OR(PC_REC(jobs, coll_match)->matched, 0),
                 job_step > 0 ? 100 * wait_per_step / job_step : 0.0, give, where);
    }
    else if (tk_true(st->found))
        snprintf(h, sizeof h, "Rank %d holds the job of %d ranks back: its compute per step is %.1f%% above the median rank's, and the others wait for it in their collectives",
                 (int)st->rank, n, PC_OR(st->behind_median_pct, 0));
    else {
        /* the largest part of the ranks' summed step time */
        static const char *const what[] = {"compute", "exposed communication", "idle time", "data wait alone"};
        double sum[4] = {0}, all = 0;
        for (int i = 0; i < n; i++) {
            sum[0] += PC_OR(r[i].compute_ns, 0), sum[1] += PC_OR(r[i].communication_ns, 0);
            sum[2] += PC_OR(r[i].idle_ns, 0), sum[3] += PC_OR(r[i].data_ns, 0);
        }
        int top = 0;
        for (int k = 0; k < 4; k++) all += sum[k], top = sum[k] > sum[top] ? k : top;
        if (all > 0)
            snprintf(h, sizeof h, "No straggler among the %d ranks: %s takes %.1f%% of their summed step time", n, what[top], 100 * sum[top] / all);
        else
            snprintf(h, sizeof h, "No straggler among the %d ranks", n);
    }
    rr->headline = pc_summary_utf8(jobs, h);
    /* the detail: must-keep ranks first, then by rank while the budget holds */
    size_t budget = j->detail_bytes, used = SECTION_BYTES; /* bytes, as written */
    char *keep = xcalloc((size_t)n, 1);
    size_t *need = xcalloc((size_t)n, sizeof *need);
    /* each rank's timeline but the shown one's (the Timeline section's): its longest k events, k
     * from half the budget over the ranks, within [TL_SHOW_MIN, TL_SHOW_MAX] */
    size_t tk = j->detail_bytes / 2 / (size_t)(n ? n : 1) / 45;
    tk = tk < TL_SHOW_MIN ? TL_SHOW_MIN : tk > TL_SHOW_MAX ? TL_SHOW_MAX : tk;
    for (int i = 0; i < n; i++) {
        need[i] = v[i]->need;
        if (i && v[i]->ntl) {
            cJSON *o = rank_timeline(j, v[i], v[i]->rank, tk);
            need[i] += timeline_bytes(o);
            cJSON_Delete(o);
        }
    }
    int must[3] = {0, slowest, strag};
    for (int k = 0; k < 3; k++)
        if (must[k] >= 0 && !keep[must[k]]) keep[must[k]] = 1, used += need[must[k]];
    int kept = 0, left = 0;
    for (int i = 0; i < n; i++)
        if (!keep[i] && used + need[i] <= budget) keep[i] = 1, used += need[i];
    pc_table *dt[4] = {0};
    cJSON *tls = NULL;
    char lo[512] = "";
    for (int i = 0; i < n; i++) {
        if (keep[i]) {
            add_detail(j, jobs, rs, dt, v[i]);
            if (i && v[i]->ntl) cJSON_AddItemToArray(tls ? tls : (tls = sj_arr(rs, "timelines")), rank_timeline(j, v[i], v[i]->rank, tk));
            kept++;
            continue;
        }
        size_t l = strlen(lo);
        if (left < 40 && l + 16 < sizeof lo) snprintf(lo + l, sizeof lo - l, "%s%d", l ? ", " : "", v[i]->rank);
        left++;
    }
    rr->detail_ranks = kept;
    if (left) {
        size_t l = strlen(lo);
        if (left > 40) snprintf(lo + l, sizeof lo - l, " and %d more", left - 40);
        rr->detail_left_out = pc_summary_utf8(jobs, lo);
    }
    free(keep), free(need);
    job_kernels(j, jobs, rs, v, n);
}


/* The wait rank v[i] suffered at the operations where the straggler (v[strag]) arrived last: the
 * straggler's arrival - its own, over the operations matched (upto), summed; what the straggler
 * explains of v[i]'s exposed communication (#47: a job tells one story). 0 for the straggler. */
static double wait_on_straggler(const pc_job *j, jent *const *v, int n, const size_t *upto, int strag, int i) {
    assert(i >= 0 && i < n && strag >= 0 && strag < n);
    const int32_t se = (int32_t)(v[strag] - j->e);
    uint32_t c[MATCH_GROUPS] = {0};
    double sum = 0;
    for (uint32_t k = 0; k < v[i]->m; k++) {
        int g = v[i]->g[k];
        uint32_t at = c[g]++;
        if (at >= upto[g]) continue;
        const oslot *sl = &j->grp[g].s[at];
        if (sl->lent == se) sum += (double)(sl->larr - sl->base) - (double)v[i]->d[k];
    }
    return sum > 0 ? sum : 0;
}

/* The shown rank's communication finding when a straggler explains its waits: its stake leaves out
 * the wait on the straggler (the straggler's finding holds what its fix gives back) and its evidence
 * says so; the suggestions are then in order of their stakes again (nulls last, as advice.c ranks). */
static void comm_less_straggler(pc_summary *jobs, cJSON *arr, double wait_on, int strag_rank, double step) {
    cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        tab_suggestion *o = pc_summary_record_in(jobs, it, TAB_suggestion);
        if (!o || !o->rule || strcmp(o->rule, "communication") || PC_IS_NULL(o->at_stake_ns)) continue;
        double left = o->at_stake_ns - wait_on;
        if (left < 0) left = 0;
        char ev[1536];
        snprintf(ev, sizeof ev, "%s; of it, %.2f ms per step is waiting for rank %d to arrive (the straggler's finding holds that), so %.2f ms is at stake here",
                 PC_S(o->evidence, ""), wait_on / 1e6, strag_rank, left / 1e6);
        o->evidence = pc_summary_utf8(jobs, ev);
        o->at_stake_ns = pc_figure(left);
        if (step > 0) o->at_stake_pct = pc_figure(100 * left / step);
    }
}

/* cJSON items of the suggestions by stake, largest first, null stakes after (stable) */
typedef struct sitem { cJSON *x; double stake; int at; } sitem;
static int cmp_sitem(const void *a, const void *b) {
    const sitem *x = a, *y = b;
    int nx = isnan(x->stake), ny = isnan(y->stake);
    if (nx != ny) return nx - ny;
    if (!nx && x->stake != y->stake) return x->stake < y->stake ? 1 : -1;
    return x->at - y->at;
}
static void suggestions_by_stake(pc_summary *jobs, cJSON *arr) {
    int na = cJSON_GetArraySize(arr);
    sitem *items = xcalloc((size_t)na + 1, sizeof *items);
    for (int i = 0; i < na; i++) {
        items[i].x = cJSON_DetachItemFromArray(arr, 0);
        const tab_suggestion *o = pc_summary_record_in(jobs, items[i].x, TAB_suggestion);
        items[i].stake = o && !PC_IS_NULL(o->at_stake_ns) ? o->at_stake_ns : NAN;
        items[i].at = i;
    }
    qsort(items, (size_t)na, sizeof *items, cmp_sitem);
    for (int i = 0; i < na; i++) {
        cJSON_AddItemToArray(arr, items[i].x);
        tab_suggestion *o = pc_summary_record_in(jobs, items[i].x, TAB_suggestion);
        if (o) o->rank = i + 1;
    }
    free(items);
}

pc_summary *pc_job_finish(pc_job *j, pc_summary *jobs) {
    int n;
    jent **v = job_sorted(j, &n);
    for (int i = 0; i < n; i++)
        if (v[i]->rank < 0) v[i]->rank = i; /* no rank anywhere: the order given */
    cJSON *job = jobs->doc;
    cJSON *rs = cJSON_AddObjectToObject(job, "ranks");
    tab_ranks *rr = PC_ADD_REC(jobs, rs, ranks);
    rr->count = n;
    rr->shown_rank = n ? v[0]->rank : 0;
    pc_table *rows = pc_summary_add_table(jobs, rs, "rows", TAB_rank), *colls = pc_summary_add_table(jobs, rs, "collectives", TAB_rank_coll);
    arena_take(&jobs->strs, &j->scratch->strs); /* the rows' strings */
    double *med = xcalloc((size_t)n + 1, sizeof *med), *work = xcalloc((size_t)n + 1, sizeof *work);
    int slow = 0, fast = 0, by_phase = 0;
    for (int i = 0; i < n; i++) {
        tab_rank *r = tab_push(rows);
        *r = TAB_ROWS(j->rows, rank)[v[i]->row];
        r->rank = v[i]->rank;
        for (size_t c = v[i]->c0; c < v[i]->c0 + v[i]->nc; c++) {
            tab_rank_coll *o = tab_push(colls);
            *o = TAB_ROWS(j->colls, rank_coll)[c];
            o->rank = v[i]->rank;
        }
        med[i] = v[i]->med, work[i] = v[i]->work;
        by_phase += v[i]->by_phase;
        if (work[i] > work[slow]) slow = i;
        if (work[i] < work[fast]) fast = i;
    }
    double median = median_of(work, n), job_step = median_of(med, n);
    int found = n > 1 && median > 0 && work[slow] > 1.1 * median;
    /* the arrival-based straggler, when collectives compare across ranks: the
     * rank whose late arrivals cause the most wait, found when that wait per
     * step is at least 5% of the median step */
    rwait *w = xcalloc((size_t)n + 1, sizeof *w);
    int msteps = 1, late = 0;
    size_t upto[MATCH_GROUPS];
    int compared = match_collectives(j, jobs, rs, v, n, w, &msteps, upto);
    for (int i = 0; i < n && compared; i++) {
        tab_rank *r = &((tab_rank *)rows->rows)[i];
        r->last_count = w[i].last;
        r->wait_caused_ns = pc_figure(w[i].caused);
        r->wait_suffered_ns = pc_figure(w[i].suffered);
        if (w[i].caused > w[late].caused) late = i;
    }
    /* the straggler's stake: the replayed saving of its arriving at the median arrival */
    double *save = xcalloc((size_t)n + 1, sizeof *save), rerr = 0;
    int jslow = 0;
    for (int i = 1; i < n; i++)
        if (med[i] > med[jslow]) jslow = i;
    if (compared) {
        rerr = replay_straggler(j, v, n, upto, late, save);
        for (int i = 0; i < n; i++) save[i] /= msteps;
        for (int i = 0; i < n; i++) ((tab_rank *)rows->rows)[i].straggler_saving_ns = pc_figure(save[i]);
    }
    if (compared) {
        slow = late;
        found = n > 1 && w[late].caused > 0 && w[late].caused / msteps >= 0.05 * job_step;
    }
    tab_straggler *st = PC_ADD_REC(jobs, sj_obj(rs, "straggler"), straggler);
    st->found = (tk_B)found;
    st->by = compared ? "arrival" : "compute";
    if (compared) {
        st->wait_caused_ns = pc_figure(w[late].caused / msteps);
        st->last_count = w[late].last;
        st->before_step_ns = pc_figure(w[late].before / msteps);
        st->host_gap_ns = pc_figure(w[late].host / msteps);
        st->gpu_compute_ns = pc_figure(w[late].gpu / msteps);
        double mean = 0;
        for (int i = 0; i < n; i++) mean += save[i] / n;
        st->saving_ns = pc_figure(save[0]), st->saving_job_step_ns = pc_figure(save[jslow]), st->saving_mean_ns = pc_figure(mean);
        st->replay_error_ns = pc_figure(rerr);
    }
    st->basis = compared ? "by arrival: the n-th collective of a group (its stream) on every rank is one operation; a rank's arrival is its "
                           "collective kernel's start; at each operation the last arriver (ties: the highest rank) causes the wait last - "
                           "earliest arrival; the straggler is the rank whose caused wait, summed per step, is the largest, found at 5% of "
                           "the job step time (the median over the ranks of their median step) or more"
                : by_phase == n ? "by compute: the median forward and backward phase per step (the input's step trace), found over 10% above the median rank's"
                : by_phase ? "by compute: per rank, the median forward and backward phase per step where the input gives phases, else the "
                             "breakdown's kernel, memcpy, memset, runtime and CPU operator time (mean per step), found over 10% above the median rank's"
                           : "by compute: the breakdown's kernel, memcpy, memset, runtime and CPU operator time, mean per step, found over 10% "
                             "above the median rank's";
    st->rank = v[slow]->rank;
    st->compute_ns = pc_figure(work[slow]);
    st->step_median_ns = pc_figure(med[slow]);
    st->fastest_rank = v[fast]->rank;
    st->behind_fastest_pct = pc_figure(work[fast] > 0 ? 100 * (work[slow] - work[fast]) / work[fast] : 0);
    st->behind_median_pct = pc_figure(median > 0 ? 100 * (work[slow] - median) / median : 0);
    rr->median_compute_ns = pc_figure(median);
    rr->median_of_medians_ns = pc_figure(median_of(med, n));
    /* a straggler rule: the rank with the most work over 10% above the median rank's */
    if (found) {
        cJSON *sg = cJSON_GetObjectItem(job, "suggestions");
        cJSON *arr = sg ? cJSON_GetObjectItem(sg, "rows") : NULL;
        tab_suggestions *count = pc_summary_record_w(jobs, TAB_suggestions);
        if (arr && count) {
            cJSON *x = cJSON_CreateObject();
            tab_suggestion *r = PC_ADD_REC(jobs, x, suggestion);
            r->rule = "straggler";
            r->title = compared ? "A rank arrives late at the collectives and the others wait" : "A straggler rank slows the whole job";
            r->threshold = compared ? "a rank's late arrivals at the collectives (matched across ranks) cause waits of at least 5% of the median step"
                                    : "a rank's compute per step (kernel, copy, runtime and CPU operator time) over 10% above the median rank's";
            char ev[1024];
            if (compared)
                snprintf(ev, sizeof ev, "rank %d arrives last at %lld of %lld collective operations and causes %.2f ms of wait per step (last - earliest arrival): %.2f ms before the step (its step began after the others'), %.2f ms of in-step host gaps, %.2f ms of in-step GPU compute; replayed with it arriving no later than the median arrival, rank %d's step is %.2f ms shorter (the job's step, rank %d's, %.2f ms; %.2f ms on average over the ranks): the others' wait on it is their exposed communication",
                         v[slow]->rank, (long long)w[late].last, (long long)PC_OR(PC_REC(jobs, coll_match)->matched, 0), w[late].caused / msteps / 1e6,
                         w[late].before / msteps / 1e6, w[late].host / msteps / 1e6, w[late].gpu / msteps / 1e6,
                         v[0]->rank, save[0] / 1e6, v[jslow]->rank, save[jslow] / 1e6, PC_OR(st->saving_mean_ns, 0) / 1e6);
            else
                snprintf(ev, sizeof ev, "rank %d: %.2f ms of compute per step, %.1f%% above the median rank (%.2f ms); the others wait for it in their collectives",
                         v[slow]->rank, work[slow] / 1e6, 100 * (work[slow] - median) / median, median / 1e6);
            r->evidence = pc_summary_utf8(jobs, ev);
            /* the others' wait is their exposed communication */
            r->overlaps = "communication";
            r->why = "Collective operations wait for the slowest rank, so every rank runs at its pace.";
            r->try = compared ? "Find why the rank arrives late: a step that begins after the others' (work before the step on that rank: data loading, logging, checkpoints), host gaps before its collectives (synchronizing calls, Python work), or more GPU work; then compare its host, GPU clocks and data shards with the others."
                              : "Compare the straggler's breakdown and data wait with the others; check its host, GPU clocks, data shards and network.";
            r->source = "Holistic Trace Analysis, MindInsight";
            double stake = compared ? save[0] : work[slow] - median, step = PC_OR(PC_REC(jobs, step_average)->duration_ns, 0);
            r->at_stake_ns = pc_figure(stake);
            if (step > 0) r->at_stake_pct = pc_figure(100 * stake / step);
            /* the shown rank's communication less its wait on the straggler, then every finding in
             * its place by time at stake, as advice.c ranks them */
            if (compared) comm_less_straggler(jobs, arr, wait_on_straggler(j, v, n, upto, late, 0) / msteps, v[slow]->rank, step);
            cJSON_AddItemToArray(arr, x);
            suggestions_by_stake(jobs, arr);
            count->count = cJSON_GetArraySize(arr);
            pc_summary_headline(jobs);
        }
    }
    job_view(j, jobs, rs, rr, rows, v, n, med, st, w[late].caused / msteps, job_step);
    /* one story (#47): a straggler found is the job's headline, the report's and the e-mail's */
    tab_overview *ov = pc_summary_record_w(jobs, TAB_overview);
    if (found && ov && rr->headline) {
        char h[1200];
        snprintf(h, sizeof h, "%s.", rr->headline);
        ov->headline = pc_summary_utf8(jobs, h);
    }
    free(w), free(save);
    free(work);
    free(med);
    free(v);
    pc_job_free(j);
    return jobs;
}

void pc_job_free(pc_job *j) {
    if (!j) return;
    pc_summary_free(j->scratch);
    for (size_t i = 0; i < j->n; i++) {
        jent *e = &j->e[i];
        free(e->g), free(e->d), free(e->x), free(e->f);
        free(e->tl), free(e->tl_lanes), free(e->tl_cats), free(e->st_name), free(e->st_start), free(e->st_dur);
    }
    for (int g = 0; g < j->ngrp; g++) free(j->grp[g].s);
    for (size_t k = 0; k < j->njk; k++) free(j->jk[k].v);
    free(j->jk);
    strtab_free(&j->names);
    free(j->e);
    free(j);
}

pc_summary *pc_job_summary(pc_summary **ranks, int n, const pc_job_opts *o) {
    pc_job *j = pc_job_new(o);
    for (int i = 0; i < n; i++) pc_job_add(j, ranks[i], i);
    int k = pc_job_shown(j);
    pc_summary *jobs = ranks[k];
    ranks[k] = NULL;
    return pc_job_finish(j, jobs);
}
