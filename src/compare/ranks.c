#include "ranks.h"
#include "verdict.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../util/arena.h"
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

/* One rank as the job view holds it: its row of ranks.rows and its rows of
 * ranks.collectives (in the job's scratch tables), and the two figures the
 * straggler is judged by. */
typedef struct jent { int rank, order, dropped, by_phase; size_t row, c0, nc; double med, work; } jent;

struct pc_job {
    pc_summary *scratch; /* the tables the ranks' rows are added to, and their strings */
    pc_table *rows, *colls;
    jent *e;
    size_t n, cap;
};

pc_job *pc_job_new(void) {
    pc_job *j = xcalloc(1, sizeof *j);
    j->scratch = pc_summary_new();
    cJSON *rs = cJSON_AddObjectToObject(j->scratch->doc, "ranks");
    j->rows = pc_summary_add_table(j->scratch, rs, "rows", TAB_rank);
    j->colls = pc_summary_add_table(j->scratch, rs, "collectives", TAB_rank_coll);
    return j;
}

int pc_job_add(pc_job *j, const pc_summary *ps, int order) {
    int rank = (int)PC_OR(PC_REC(ps, run_distributed)->rank, -1);
    if (rank < 0) rank = rank_of_input(PC_S(PC_REC(ps, run)->input, ""));
    if (j->n == j->cap) j->e = xrealloc(j->e, (j->cap = j->cap ? 2 * j->cap : 64) * sizeof *j->e);
    jent *e = &j->e[j->n++];
    *e = (jent){.rank = rank, .order = order, .row = j->rows->n, .c0 = j->colls->n};
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
    }
    r->nccl_ns = pc_figure(PC_OR(cm->nccl_ns, 0) / steps);
    r->nccl_overlap_pct = PC_OR(cm->overlap_pct, 0);
    /* the rank's costliest collective (collectives.rows is by time), and its bus bandwidth */
    const pc_table *ct = PC_TAB(ps, coll);
    if (ct && ct->n) {
        const tab_coll *top = TAB_ROWS(ct, coll);
        char lab[96];
        snprintf(lab, sizeof lab, "%s, %s", PC_S(top->collective, ""), PC_S(top->size_range, ""));
        r->top_collective = pc_summary_utf8(jobs, lab);
        r->top_collective_ns = pc_figure(PC_OR(top->total_ns, 0) / steps);
        r->top_collective_busbw_gbs = top->busbw_gbs;
    }
    const tab_gpu_device *d0 = PC_REC_AT(ps, gpu_device, 0);
    if (d0) r->gpu_utilization_pct = d0->utilization_pct;
    return rank;
}

void pc_job_drop(pc_job *j, int order) {
    for (size_t i = 0; i < j->n; i++)
        if (j->e[i].order == order) j->e[i].dropped = 1;
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
    double median = median_of(work, n);
    int found = n > 1 && median > 0 && work[slow] > 1.1 * median;
    tab_straggler *st = PC_ADD_REC(jobs, sj_obj(rs, "straggler"), straggler);
    st->found = (tk_B)found;
    st->basis = by_phase == n ? "the median forward and backward phase per step (the input's step trace)"
                : by_phase ? "per rank, the median forward and backward phase per step where the input gives phases, else the breakdown's categories but communication and idle (mean per step)"
                           : "every category of the breakdown but communication and idle, mean per step";
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
            r->title = "A straggler rank slows the whole job";
            r->threshold = "a rank's compute per step (all but communication and idle) over 10% above the median rank's";
            char ev[256];
            snprintf(ev, sizeof ev, "rank %d: %.2f ms of compute per step, %.1f%% above the median rank (%.2f ms); the others wait for it in their collectives",
                     v[slow]->rank, work[slow] / 1e6, 100 * (work[slow] - median) / median, median / 1e6);
            r->evidence = pc_summary_utf8(jobs, ev);
            r->why = "Collective operations wait for the slowest rank, so every rank runs at its pace.";
            r->try = "Compare the straggler's breakdown and data wait with the others; check its host, GPU clocks, data shards and network.";
            r->source = "Holistic Trace Analysis, MindInsight";
            double stake = work[slow] - median, step = PC_OR(PC_REC(jobs, step_average)->duration_ns, 0);
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
    free(work);
    free(med);
    free(v);
    pc_job_free(j);
    return jobs;
}

void pc_job_free(pc_job *j) {
    if (!j) return;
    pc_summary_free(j->scratch);
    free(j->e);
    free(j);
}

pc_summary *pc_job_summary(pc_summary **ranks, int n) {
    pc_job *j = pc_job_new();
    for (int i = 0; i < n; i++) pc_job_add(j, ranks[i], i);
    int k = pc_job_shown(j);
    pc_summary *jobs = ranks[k];
    ranks[k] = NULL;
    return pc_job_finish(j, jobs);
}
