#include "ranks.h"
#include "verdict.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../render/report.h"
#include "../util/xalloc.h"
#include <ctype.h>
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

typedef struct rk { int rank; const pc_summary *ps; int slot; } rk;
static int cmp_rk(const void *a, const void *b) {
    const rk *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static double per_step(const pc_summary *s, int cat) {
    const tab_bkcat *c = pc_bk_get(s, cat);
    return c ? PC_OR(c->avg_per_step_ns, 0) : 0;
}

/* A rank's own work per step (mean): every category of the exclusive breakdown but
 * communication and idle (GPU kernels and copies, and the host work before
 * them). In a collective the ranks that finish their work first wait for the
 * others inside the NCCL kernels, so the rank with the most work is the one
 * everyone waits for, however long its own communication looks. */
static double work_per_step(const pc_summary *s) {
    double w = 0;
    for (int k = 0; k < BK_N; k++)
        if (k != BK_COMM && k != BK_OTHER) w += per_step(s, k);
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

static double median_of(const double *v, int n) {
    double *x = xmalloc((size_t)n * sizeof *x);
    memcpy(x, v, (size_t)n * sizeof *x);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j]; x[j] = x[j - 1]; x[j - 1] = t;
        }
    double m = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    free(x);
    return m;
}

/* ranks.collectives[] (arr) of one rank: each collective type of its summary s
 * over all sizes: calls, time per step, bytes, and nccl-tests' bus bandwidth
 * over the calls of known size (their bytes / their time x the type's bus
 * factor); by time */
typedef struct ctype { const char *coll; double calls, total, bytes, sized, factor; } ctype;
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
        if (k == nt) t[nt++] = (ctype){.coll = c, .factor = PC_OR(r->bus_factor, 0)};
        t[k].calls += PC_OR(r->calls, 0), t[k].total += PC_OR(r->total_ns, 0);
        t[k].bytes += PC_OR(r->bytes, 0), t[k].sized += PC_OR(r->sized_ns, 0);
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
        if (t[k].sized > 0 && t[k].bytes > 0 && t[k].factor > 0) o->busbw_gbs = pc_figure(t[k].bytes / t[k].sized * t[k].factor);
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
 * host gaps (the rest of the in-step lateness). w[] (by v's order) gets each
 * rank's figures; returns 1 when compared (matched and the clocks agree). */
#define CLOCK_NS 50000.0
enum { MATCH_GROUPS = 64, MATCH_TYPES = 16 };
typedef struct rwait { double caused, suffered, before, host, gpu; int64_t last; } rwait;
typedef struct jtype { const char *coll; int64_t calls; double bytes, sized, wait, transfer; int *last; } jtype;
static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static int cmp_jtype(const void *a, const void *b) {
    const jtype *x = a, *y = b;
    double p = x->wait + x->transfer, q = y->wait + y->transfer;
    return (p < q) - (p > q);
}
static void note_add(char *note, size_t cap, const char *what) {
    size_t l = strlen(note);
    if (l + 3 < cap) snprintf(note + l, cap - l, "%s%s", l ? "; " : "", what);
}
static int match_collectives(pc_summary *jobs, cJSON *rs, const rk *v, int n, rwait *w, int *steps_out) {
    tab_coll_match *m = PC_ADD_REC(jobs, sj_obj(rs, "collective_ops"), coll_match);
    const pc_table **t = xcalloc((size_t)n, sizeof *t);
    int64_t *origin = xcalloc((size_t)n, sizeof *origin);
    size_t **lst = xcalloc((size_t)n, sizeof *lst), *cnt = xcalloc((size_t)n, sizeof *cnt);
    const char *gname[MATCH_GROUPS];
    jtype ty[MATCH_TYPES];
    int ng = 0, nt = 0, groups = 0, agree = 0;
    int64_t matched = 0;
    size_t nsp = 0, capsp = 0, nstep = 0;
    double *spread = NULL;
    int64_t *stepno = NULL;
    char note[1536] = "", line[640];
    *steps_out = 1;
    for (int i = 0; i < n; i++) {
        t[i] = PC_TAB(v[i].ps, coll_op);
        tk_J su = PC_REC(v[i].ps, run)->start_us;
        origin[i] = tk_null_I(su) ? 0 : su * 1000;
        if (!t[i] || !t[i]->n) {
            snprintf(line, sizeof line, "rank %d has no collective operations in its summary (collectives.ops)", v[i].rank);
            note_add(note, sizeof note, line);
            goto out;
        }
        lst[i] = xcalloc(t[i]->n, sizeof *lst[i]);
    }
    if (n < 2) goto out;
    for (size_t j = 0; j < t[0]->n; j++) {
        const char *g = PC_S(TAB_ROWS(t[0], coll_op)[j].group, "");
        int k = 0;
        while (k < ng && strcmp(gname[k], g)) k++;
        if (k == ng && ng < MATCH_GROUPS) gname[ng++] = g;
    }
    stepno = xcalloc(t[0]->n, sizeof *stepno);
    for (int g = 0; g < ng; g++) {
        size_t nmin = (size_t)-1, nmax = 0;
        for (int i = 0; i < n; i++) {
            cnt[i] = 0;
            for (size_t j = 0; j < t[i]->n; j++)
                if (!strcmp(PC_S(TAB_ROWS(t[i], coll_op)[j].group, ""), gname[g])) lst[i][cnt[i]++] = j;
            if (cnt[i] < nmin) nmin = cnt[i];
            if (cnt[i] > nmax) nmax = cnt[i];
        }
        if (!nmin) {
            for (int i = 0; i < n; i++)
                if (!cnt[i]) { snprintf(line, sizeof line, "%s: no operation on rank %d, not matched", gname[g], v[i].rank); break; }
            note_add(note, sizeof note, line);
            continue;
        }
        if (nmin != nmax) {
            snprintf(line, sizeof line, "%s: %zu to %zu operations per rank, the first %zu matched", gname[g], nmin, nmax, nmin);
            note_add(note, sizeof note, line);
        }
        groups++;
        for (size_t j = 0; j < nmin; j++) {
            const tab_coll_op *o0 = &TAB_ROWS(t[0], coll_op)[lst[0][j]];
            int bad = -1;
            for (int i = 1; i < n && bad < 0; i++)
                if (strcmp(PC_S(TAB_ROWS(t[i], coll_op)[lst[i][j]].collective, ""), PC_S(o0->collective, ""))) bad = i;
            if (bad >= 0) {
                snprintf(line, sizeof line, "%s: operation %zu is %.40s on rank %d and %.40s on rank %d, matching stopped there", gname[g], j,
                         PC_S(o0->collective, ""), v[0].rank, PC_S(TAB_ROWS(t[bad], coll_op)[lst[bad][j]].collective, ""), v[bad].rank);
                note_add(note, sizeof note, line);
                break;
            }
            int last = 0, first = 0;
            double bytes = -1, emin = 0, emax = 0;
            for (int i = 0; i < n; i++) {
                const tab_coll_op *o = &TAB_ROWS(t[i], coll_op)[lst[i][j]];
                const tab_coll_op *ol = &TAB_ROWS(t[last], coll_op)[lst[last][j]], *of = &TAB_ROWS(t[first], coll_op)[lst[first][j]];
                double a = (double)(origin[i] + o->arrival_ns), e = (double)(origin[i] + o->end_ns);
                if (a >= (double)(origin[last] + ol->arrival_ns)) last = i;
                if (a < (double)(origin[first] + of->arrival_ns)) first = i;
                if (!i || e < emin) emin = e;
                if (!i || e > emax) emax = e;
                if (PC_OR(o->bytes, -1) > bytes) bytes = PC_OR(o->bytes, -1);
            }
            const tab_coll_op *L = &TAB_ROWS(t[last], coll_op)[lst[last][j]], *E = &TAB_ROWS(t[first], coll_op)[lst[first][j]];
            int64_t al = origin[last] + L->arrival_ns, af = origin[first] + E->arrival_ns;
            double wait = (double)(al - af), transfer = (double)(L->end_ns - L->arrival_ns);
            double *sp = VEC_PUSH(spread, nsp, capsp);
            *sp = emax - emin;
            w[last].caused += wait, w[last].last++;
            for (int i = 0; i < n; i++) w[i].suffered += (double)(al - origin[i] - TAB_ROWS(t[i], coll_op)[lst[i][j]].arrival_ns);
            double before = tk_true(L->first) ? (double)((origin[last] + L->ref_ns) - (origin[first] + E->ref_ns)) : 0;
            double instep = (double)((L->arrival_ns - L->ref_ns) - (E->arrival_ns - E->ref_ns));
            double gpu = (double)(L->busy_ns - E->busy_ns);
            if (gpu > instep) gpu = instep;
            if (gpu < 0) gpu = 0;
            w[last].before += before, w[last].gpu += gpu, w[last].host += instep - gpu;
            int k = 0;
            while (k < nt && strcmp(ty[k].coll, PC_S(L->collective, ""))) k++;
            if (k == nt && nt < MATCH_TYPES) ty[nt++] = (jtype){.coll = PC_S(L->collective, ""), .last = xcalloc((size_t)n, sizeof(int))};
            if (k < nt) {
                ty[k].calls++, ty[k].wait += wait, ty[k].transfer += transfer, ty[k].last[last]++;
                if (bytes >= 0) ty[k].bytes += bytes, ty[k].sized += transfer;
            }
            if (!tk_null_I(o0->step)) stepno[nstep++] = o0->step;
            matched++;
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
            o->last_rank = v[lr].rank;
            o->last_count = ty[k].last[lr];
        }
    }
out:
    m->compared = (tk_B)agree;
    m->matched = matched;
    m->groups = groups;
    if (note[0]) m->note = pc_summary_utf8(jobs, note);
    for (int k = 0; k < nt; k++) free(ty[k].last);
    for (int i = 0; i < n; i++) free(lst[i]);
    free(lst), free(cnt), free(t), free(origin), free(spread), free(stepno);
    return agree;
}


/* ---- the job's first screen and the per-rank detail (report.html's rank selector) ---- */

size_t pc_rank_detail_budget = PC_RANK_DETAIL_BUDGET;
enum { DETAIL_KERNELS = 10, DETAIL_OPS = 10, DETAIL_STEPS = 20, JOB_KERNELS = 20 };

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

/* rows rank r's detail takes in report.html */
static size_t detail_rows(const pc_summary *s) {
    size_t nk = 0, nm = 0;
    kname *k = rank_kernels(s, 0, &nk);
    free(k);
    const pc_table *ops = PC_TAB(s, op), *st = PC_TAB(s, step);
    for (size_t i = 0; PC_REC_AT(s, memory_device, i); i++) nm++;
    return (nk < DETAIL_KERNELS ? nk : DETAIL_KERNELS) + (ops ? (ops->n < DETAIL_OPS ? ops->n : DETAIL_OPS) : 0) +
           (st ? (st->n < DETAIL_STEPS ? st->n : DETAIL_STEPS) : 0) + nm + 1;
}

static void add_detail(pc_summary *jobs, cJSON *rs, pc_table **t, int rank, const pc_summary *s) {
    if (!t[0]) {
        t[0] = pc_summary_add_table(jobs, rs, "kernels", TAB_rank_kernel);
        t[1] = pc_summary_add_table(jobs, rs, "operators", TAB_rank_op);
        t[2] = pc_summary_add_table(jobs, rs, "steps", TAB_rank_step);
        t[3] = pc_summary_add_table(jobs, rs, "memory", TAB_rank_mem);
    }
    size_t nk = 0;
    kname *k = rank_kernels(s, rank, &nk);
    double all = 0;
    for (size_t i = 0; i < nk; i++) all += k[i].total;
    if (nk) qsort(k, nk, sizeof *k, cmp_kname_total);
    for (size_t i = 0; i < nk && i < DETAIL_KERNELS; i++) {
        tab_rank_kernel *o = tab_push(t[0]);
        o->rank = rank;
        o->name = pc_summary_utf8(jobs, k[i].name);
        o->total_ns = pc_figure(k[i].total);
        o->calls = pc_figure(k[i].calls);
        if (k[i].calls > 0) o->avg_ns = pc_figure(k[i].total / k[i].calls);
        if (all > 0) o->time_pct = pc_figure(100 * k[i].total / all);
    }
    free(k);
    const pc_table *ops = PC_TAB(s, op);
    for (size_t i = 0; ops && i < ops->n && i < DETAIL_OPS; i++) {
        const tab_op *r = &TAB_ROWS(ops, op)[i];
        tab_rank_op *o = tab_push(t[1]);
        o->rank = rank;
        o->name = pc_summary_utf8(jobs, PC_S(r->name, ""));
        o->calls = r->calls, o->device_total_ns = r->device_total_ns, o->self_device_ns = r->self_device_ns, o->cpu_total_ns = r->cpu_total_ns;
    }
    const pc_table *st = PC_TAB(s, step);
    for (size_t i = 0; st && i < st->n && i < DETAIL_STEPS; i++) {
        const tab_step *r = &TAB_ROWS(st, step)[i];
        tab_rank_step *o = tab_push(t[2]);
        o->rank = rank;
        o->name = pc_summary_utf8(jobs, PC_S(r->name, ""));
        o->duration_ns = r->duration_ns, o->communication_ns = r->communication_ns, o->gpu_lag_ns = r->gpu_lag_ns;
    }
    const tab_memory_device *md;
    for (size_t i = 0; (md = PC_REC_AT(s, memory_device, i)); i++) {
        tab_rank_mem *o = tab_push(t[3]);
        char dev[64];
        if (tk_null_I(md->id)) snprintf(dev, sizeof dev, "%.40s", PC_S(md->device, "?"));
        else snprintf(dev, sizeof dev, "%.40s:%lld", PC_S(md->device, "?"), (long long)md->id);
        o->rank = rank;
        o->device = pc_summary_utf8(jobs, dev);
        o->peak_allocated_bytes = md->peak_allocated_bytes, o->peak_reserved_bytes = md->peak_reserved_bytes;
        if (md->peak_operator) o->peak_operator = pc_summary_utf8(jobs, md->peak_operator);
    }
}

/* ranks.job_kernels: per kernel name over every rank, its total and the
 * spread of the ranks' totals (over the ranks that run it) */
static void job_kernels(pc_summary *jobs, cJSON *rs, const rk *v, int n) {
    size_t all = 0, cap = 0;
    kname *a = NULL;
    for (int i = 0; i < n; i++) {
        size_t m = 0;
        kname *k = rank_kernels(v[i].ps, v[i].rank, &m);
        for (size_t j = 0; j < m; j++) *(kname *)VEC_PUSH(a, all, cap) = k[j];
        free(k);
    }
    if (!all) { free(a); return; }
    qsort(a, all, sizeof *a, cmp_kname_name); /* by name, then rank */
    /* one entry per name: its job total (in total), its run of rows */
    size_t ng = 0;
    kname *g = xcalloc(all, sizeof *g);
    size_t *first = xcalloc(all + 1, sizeof *first);
    for (size_t i = 0; i < all; i++) {
        if (!ng || strcmp(g[ng - 1].name, a[i].name)) {
            first[ng] = i, g[ng] = (kname){a[i].name, 0, 0, (int)ng};
            ng++;
        }
        g[ng - 1].total += a[i].total;
    }
    first[ng] = all;
    kname *order = xmalloc(ng * sizeof *order);
    memcpy(order, g, ng * sizeof *order);
    qsort(order, ng, sizeof *order, cmp_kname_total);
    pc_table *t = pc_summary_add_table(jobs, rs, "job_kernels", TAB_job_kernel);
    for (size_t q = 0; q < ng && q < JOB_KERNELS; q++) {
        size_t gi = (size_t)order[q].rank, lo = first[gi], hi = first[gi + 1];
        double *tot = xmalloc((hi - lo) * sizeof *tot);
        tab_job_kernel *o = tab_push(t);
        o->name = pc_summary_utf8(jobs, order[q].name);
        o->total_ns = pc_figure(order[q].total);
        o->ranks = (int64_t)(hi - lo);
        size_t mn = lo, mx = lo;
        for (size_t i = lo; i < hi; i++) {
            tot[i - lo] = a[i].total;
            if (a[i].total < a[mn].total) mn = i; /* rows by rank: ties keep the lowest */
            if (a[i].total > a[mx].total) mx = i;
        }
        o->min_ns = pc_figure(a[mn].total), o->min_rank = a[mn].rank;
        o->max_ns = pc_figure(a[mx].total), o->max_rank = a[mx].rank;
        o->median_ns = pc_figure(median_of(tot, (int)(hi - lo)));
        free(tot);
    }
    free(order), free(first), free(g), free(a);
}

/* The job's first screen: skew, the slowest and fastest rank by median step,
 * the rows' marks, the job's headline; the per-rank detail of the ranks
 * report.html's budget holds (the lowest, the slowest and the straggler
 * first, then by rank); the job-wide kernel table. */
static void job_view(pc_summary *jobs, cJSON *rs, tab_ranks *rr, pc_table *rows, const rk *v, int n, const double *med, const tab_straggler *st,
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
    rr->slowest_rank = v[slowest].rank;
    rr->fastest_rank = v[fastest].rank;
    char h[640];
    if (tk_true(st->found) && !strcmp(PC_S(st->by, ""), "arrival")) {
        /* where its lateness arises: the largest of the three parts */
        double b = PC_OR(st->before_step_ns, 0), hg = PC_OR(st->host_gap_ns, 0), g = PC_OR(st->gpu_compute_ns, 0);
        const char *where = b >= hg && b >= g ? "before the step (its step begins after the others')"
                            : hg >= g         ? "in host gaps inside the step (before its collectives)"
                                              : "in more GPU compute inside the step";
        snprintf(h, sizeof h, "Rank %d holds the job of %d ranks back: it arrives last at %lld of %lld collective operations, and the others wait for it %.1f%% of the median step; its lateness arises mostly %s",
                 (int)st->rank, n, (long long)PC_OR(st->last_count, 0), (long long)PC_OR(PC_REC(jobs, coll_match)->matched, 0),
                 job_step > 0 ? 100 * wait_per_step / job_step : 0.0, where);
    }
    else if (tk_true(st->found))
        snprintf(h, sizeof h, "Rank %d holds the job of %d ranks back: its compute per step is %.1f%% above the median rank's, and the others wait for it in their collectives",
                 (int)st->rank, n, PC_OR(st->behind_median_pct, 0));
    else {
        /* the largest part of the ranks' summed step time */
        static const char *const what[] = {"GPU compute", "exposed communication", "host wait and idle time", "data loading"};
        double sum[4] = {0}, all = 0;
        for (int i = 0; i < n; i++) {
            sum[0] += PC_OR(r[i].gpu_ns, 0), sum[1] += PC_OR(r[i].communication_ns, 0);
            sum[2] += PC_OR(r[i].host_ns, 0), sum[3] += PC_OR(r[i].data_ns, 0);
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
    size_t budget = pc_rank_detail_budget / PC_HTML_ROW_MIN, used = 0;
    char *keep = xcalloc((size_t)n, 1);
    size_t *need = xcalloc((size_t)n, sizeof *need);
    for (int i = 0; i < n; i++) need[i] = detail_rows(v[i].ps);
    int must[3] = {0, slowest, strag};
    for (int k = 0; k < 3; k++)
        if (must[k] >= 0 && !keep[must[k]]) keep[must[k]] = 1, used += need[must[k]];
    int kept = 0, left = 0;
    for (int i = 0; i < n; i++)
        if (!keep[i] && used + need[i] <= budget) keep[i] = 1, used += need[i];
    pc_table *dt[4] = {0};
    char lo[512] = "";
    for (int i = 0; i < n; i++) {
        if (keep[i]) {
            add_detail(jobs, rs, dt, v[i].rank, v[i].ps);
            kept++;
            continue;
        }
        size_t l = strlen(lo);
        if (left < 40 && l + 16 < sizeof lo) snprintf(lo + l, sizeof lo - l, "%s%d", l ? ", " : "", v[i].rank);
        left++;
    }
    rr->detail_ranks = kept;
    if (left) {
        size_t l = strlen(lo);
        if (left > 40) snprintf(lo + l, sizeof lo - l, " and %d more", left - 40);
        rr->detail_left_out = pc_summary_utf8(jobs, lo);
    }
    free(keep), free(need);
    job_kernels(jobs, rs, v, n);
}

pc_summary *pc_job_summary(pc_summary **ranks, int n) {
    rk *v = xcalloc((size_t)n, sizeof *v);
    for (int i = 0; i < n; i++) {
        int r = (int)PC_OR(PC_REC(ranks[i], run_distributed)->rank, -1);
        if (r < 0) r = rank_of_input(PC_S(PC_REC(ranks[i], run)->input, ""));
        v[i] = (rk){r < 0 ? 100000 + i : r, ranks[i], i};
    }
    qsort(v, (size_t)n, sizeof *v, cmp_rk);
    for (int i = 0; i < n; i++)
        if (v[i].rank >= 100000) v[i].rank = i; /* no rank anywhere: the order given */
    pc_summary *jobs = ranks[v[0].slot];
    cJSON *job = jobs->doc;
    cJSON *rs = cJSON_AddObjectToObject(job, "ranks");
    tab_ranks *rr = PC_ADD_REC(jobs, rs, ranks);
    rr->count = n;
    rr->shown_rank = v[0].rank;
    pc_table *rows = pc_summary_add_table(jobs, rs, "rows", TAB_rank), *colls = pc_summary_add_table(jobs, rs, "collectives", TAB_rank_coll);
    double *med = xcalloc((size_t)n, sizeof *med), *work = xcalloc((size_t)n, sizeof *work);
    int slow = 0, fast = 0, by_phase = 0;
    for (int i = 0; i < n; i++) {
        tab_rank *r = tab_push(rows);
        r->rank = v[i].rank;
        r->input = pc_summary_utf8(jobs, PC_S(PC_REC(v[i].ps, run)->input, ""));
        const tab_steps *st = PC_REC(v[i].ps, steps);
        const tab_communication *cm = PC_REC(v[i].ps, communication);
        r->steps = (int64_t)PC_OR(st->count, 0);
        med[i] = PC_OR(st->median_ns, 0);
        r->step_median_ns = pc_figure(med[i]);
        r->step_avg_ns = PC_OR(PC_REC(v[i].ps, step_average)->duration_ns, 0);
        double pc = phase_compute(v[i].ps);
        work[i] = pc >= 0 ? pc : work_per_step(v[i].ps);
        by_phase += pc >= 0;
        r->compute_ns = pc_figure(work[i]);
        double steps = pc_steps_of(v[i].ps);
        rank_collectives(jobs, colls, v[i].rank, v[i].ps, steps);
        if (pc >= 0) {
            /* no kernels: the communication outside the forward and backward
             * phase; idle time is unknown */
            r->communication_ns = pc_figure((PC_OR(cm->nccl_ns, 0) - PC_OR(cm->overlap_ns, 0)) / steps);
        } else {
            r->communication_ns = pc_figure(per_step(v[i].ps, BK_COMM));
            r->idle_ns = pc_figure(per_step(v[i].ps, BK_OTHER));
            r->gpu_ns = pc_figure(per_step(v[i].ps, BK_KERNEL) + per_step(v[i].ps, BK_MEMCPY) + per_step(v[i].ps, BK_MEMSET));
            r->host_ns = pc_figure(per_step(v[i].ps, BK_RUNTIME) + per_step(v[i].ps, BK_CPU) + per_step(v[i].ps, BK_OTHER));
            r->data_ns = pc_figure(per_step(v[i].ps, BK_DATA));
        }
        tk_I peak = PC_REC(v[i].ps, memory)->cuda_peak_allocated_bytes;
        if (!tk_null_I(peak)) r->peak_memory_bytes = pc_figure((double)peak);
        r->nccl_ns = pc_figure(PC_OR(cm->nccl_ns, 0) / steps);
        r->nccl_overlap_pct = PC_OR(cm->overlap_pct, 0);
        /* the rank's costliest collective (collectives.rows is by time), and its bus bandwidth */
        const pc_table *ct = PC_TAB(v[i].ps, coll);
        if (ct && ct->n) {
            const tab_coll *top = TAB_ROWS(ct, coll);
            char lab[96];
            snprintf(lab, sizeof lab, "%s, %s", PC_S(top->collective, ""), PC_S(top->size_range, ""));
            r->top_collective = pc_summary_utf8(jobs, lab);
            r->top_collective_ns = pc_figure(PC_OR(top->total_ns, 0) / steps);
            r->top_collective_busbw_gbs = top->busbw_gbs;
        }
        const tab_gpu_device *d0 = PC_REC_AT(v[i].ps, gpu_device, 0);
        if (d0) r->gpu_utilization_pct = d0->utilization_pct;
        if (work[i] > work[slow]) slow = i;
        if (work[i] < work[fast]) fast = i;
    }
    double median = median_of(work, n), job_step = median_of(med, n);
    int found = n > 1 && median > 0 && work[slow] > 1.1 * median;
    /* the arrival-based straggler, when collectives compare across ranks: the
     * rank whose late arrivals cause the most wait, found when that wait per
     * step is at least 5% of the median step */
    rwait *w = xcalloc((size_t)n, sizeof *w);
    int msteps = 1, late = 0;
    int compared = match_collectives(jobs, rs, v, n, w, &msteps);
    for (int i = 0; i < n && compared; i++) {
        tab_rank *r = &((tab_rank *)rows->rows)[i];
        r->last_count = w[i].last;
        r->wait_caused_ns = pc_figure(w[i].caused);
        r->wait_suffered_ns = pc_figure(w[i].suffered);
        if (w[i].caused > w[late].caused) late = i;
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
    }
    st->basis = by_phase == n ? "the median forward and backward phase per step (the input's step trace)"
                : by_phase ? "per rank, the median forward and backward phase per step where the input gives phases, else the breakdown's categories but communication and idle (mean per step)"
                           : "every category of the breakdown but communication and idle, mean per step";
    st->rank = v[slow].rank;
    st->compute_ns = pc_figure(work[slow]);
    st->step_median_ns = pc_figure(med[slow]);
    st->fastest_rank = v[fast].rank;
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
                                    : "a rank's compute per step (all but communication and idle) over 10% above the median rank's";
            char ev[512];
            if (compared)
                snprintf(ev, sizeof ev, "rank %d arrives last at %lld of %lld collective operations and causes %.2f ms of wait per step (last - earliest arrival): %.2f ms before the step (its step began after the others'), %.2f ms of in-step host gaps, %.2f ms of in-step GPU compute",
                         v[slow].rank, (long long)w[late].last, (long long)PC_OR(PC_REC(jobs, coll_match)->matched, 0), w[late].caused / msteps / 1e6,
                         w[late].before / msteps / 1e6, w[late].host / msteps / 1e6, w[late].gpu / msteps / 1e6);
            else
                snprintf(ev, sizeof ev, "rank %d: %.2f ms of compute per step, %.1f%% above the median rank (%.2f ms); the others wait for it in their collectives",
                         v[slow].rank, work[slow] / 1e6, 100 * (work[slow] - median) / median, median / 1e6);
            r->evidence = pc_summary_utf8(jobs, ev);
            /* the others' wait is their exposed communication */
            r->overlaps = "communication";
            r->why = "Collective operations wait for the slowest rank, so every rank runs at its pace.";
            r->try = compared ? "Find why the rank arrives late: a step that begins after the others' (work before the step on that rank: data loading, logging, checkpoints), host gaps before its collectives (synchronizing calls, Python work), or more GPU work; then compare its host, GPU clocks and data shards with the others."
                              : "Compare the straggler's breakdown and data wait with the others; check its host, GPU clocks, data shards and network.";
            r->source = "Holistic Trace Analysis, MindInsight";
            double stake = compared ? w[late].caused / msteps : work[slow] - median, step = PC_OR(PC_REC(jobs, step_average)->duration_ns, 0);
            r->at_stake_ns = pc_figure(stake);
            if (step > 0) r->at_stake_pct = pc_figure(100 * stake / step);
            /* in its place by time at stake, as advice.c ranks the others */
            /* (rebuilt: cJSON 1.7.15's cJSON_InsertItemInArray refuses positions past the first) */
            int na = cJSON_GetArraySize(arr), placed = 0;
            cJSON **items = xcalloc((size_t)na + 1, sizeof *items);
            for (int i = 0; i < na; i++) items[i] = cJSON_DetachItemFromArray(arr, 0);
            for (int i = 0; i < na; i++) {
                const tab_suggestion *o = pc_summary_record_in(jobs, items[i], TAB_suggestion);
                if (!placed && (o ? PC_OR(o->at_stake_ns, -1) : -1) < stake) cJSON_AddItemToArray(arr, x), placed = 1;
                cJSON_AddItemToArray(arr, items[i]);
            }
            if (!placed) cJSON_AddItemToArray(arr, x);
            free(items);
            int k = 1;
            cJSON *it;
            cJSON_ArrayForEach(it, arr) {
                tab_suggestion *o = pc_summary_record_in(jobs, it, TAB_suggestion);
                if (o) o->rank = k;
                k++;
            }
            count->count = cJSON_GetArraySize(arr);
            pc_summary_headline(jobs);
        }
    }
    job_view(jobs, rs, rr, rows, v, n, med, st, w[late].caused / msteps, job_step);
    ranks[v[0].slot] = NULL;
    free(w);
    free(work);
    free(med);
    free(v);
    return jobs;
}
