/* The critical_path section (#37): each step's dependency graph
 * (depgraph.h) built and replayed one step at a time: the unchanged replay
 * against the measured window (the error), the critical path by category
 * and kernel, and the saving of each change the rules need (a blocking call
 * that no longer waits, data loading prefetched, convolution and GEMM kernels
 * on no Tensor Core at half their time: stakes.h) in the steady state (every
 * step changed, dg_change.carry), and of the three at once; sync_in_step,
 * data_loading and tensor_cores take these as their stakes (rules.c); and
 * each step's path by category (critical_path.by_step, the report's per-step bars).
 * On the same graphs it replays host_wait's change (with steps) and keeps
 * it, with the graphs' index, each step's unchanged replay and the Tensor
 * Core set, for the suggestions (an_ctx.handoff, handoff.h), which then build
 * the graphs again only for the combined replay (and memory_bound's).
 * PERFCARD_NO_REPLAY=1 in the environment skips the graph and its replays
 * (the section then says present false): for measuring their cost only. */
#include "stakes.h"
#include "flops.h"
#include "../util/hmap.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { TOP_KERNELS = 10 };

typedef struct pacc {
    double cat[DG_NCAT];
    hmap names;          /* kernel name id -> index in ns[] */
    double *ns; uint32_t *id; size_t n, cap;
} pacc;

static void path_add(void *arg, int cat, uint32_t name, int64_t ns) {
    pacc *a = arg;
    a->cat[cat] += (double)ns;
    if ((cat != DG_KERNEL && cat != DG_COMM) || !name) return;
    int created;
    uint32_t *v = hmap_get(&a->names, (uint64_t)name << 3 | (uint64_t)cat, &created);
    if (created) {
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 64;
            a->ns = xrealloc(a->ns, a->cap * sizeof *a->ns);
            a->id = xrealloc(a->id, a->cap * sizeof *a->id);
        }
        *v = (uint32_t)a->n;
        a->ns[a->n] = 0;
        a->id[a->n++] = name << 3 | (uint32_t)cat;
    }
    a->ns[*v] += (double)ns;
}

static _Thread_local const pacc *sort_acc; /* for by_ns: one per thread */
static int by_ns(const void *x, const void *y) {
    double a = sort_acc->ns[*(const uint32_t *)x], b = sort_acc->ns[*(const uint32_t *)y];
    return a > b ? -1 : a < b;
}

/* critical_path's pass: one step at a time, in order (dg_each_step) */
enum { CP_CHANGES = 4, CP_KEPT = 2 }; /* its own changes; the suggestions' it replays for them (SK_HOST both ways) */
typedef struct cp_pass {
    dg_change chs[CP_CHANGES + CP_KEPT];
    int nch;
    pacc acc;
    double sum_d, err_sum, err_max;
    double *save; /* per change, per step */
    int64_t *t0;  /* per step: the unchanged replay, kept for the suggestions (NULL: not kept) */
    int64_t over2;
    size_t nodes_max, nsteps, nst;
    int apart;    /* SK_HOST's keep_phases replays apart: a step had host phases (dg_phases); before, both alike */
    pc_table *per_step;
} cp_pass;

static void cp_step(dg_graph *g, size_t si, void *arg) {
    cp_pass *p = arg;
    size_t nn = dg_nodes(g), N = p->nsteps;
    if (nn > p->nodes_max) p->nodes_max = nn;
    int64_t d = dg_measured(g);
    int64_t T[CP_CHANGES + CP_KEPT];
    /* SK_HOST with the host phases kept replays as without them until a step has one, from the same carry */
    const int K1 = CP_CHANGES + 1;
    if (p->nch > K1 && !p->apart && dg_phases(g)) p->apart = 1, memcpy(p->chs[K1].carry, p->chs[K1 - 1].carry, p->nst * sizeof *p->chs[K1].carry);
    for (int k = 0; k < p->nch; k++)
        if (k != K1 || p->apart) T[k] = dg_replay_steady(g, &p->chs[k], si == 0);
    if (p->nch > K1 && !p->apart) T[K1] = T[K1 - 1];
    int64_t t0 = dg_replay(g, NULL); /* last, so the path is the unchanged one */
    for (int k = 0; k < CP_CHANGES; k++) p->save[k * N + si] = -(double)T[k], p->save[k * N + si] += (double)t0;
    for (int k = CP_CHANGES; k < p->nch; k++) p->save[k * N + si] = (double)(t0 - T[k]); /* as stakes_replay has it */
    if (p->t0) p->t0[si] = t0;
    double before[DG_NCAT];
    memcpy(before, p->acc.cat, sizeof before);
    dg_path(g, path_add, &p->acc);
    tab_cpath_step *st = tab_push(p->per_step); /* this step's path: the categories' growth */
    int64_t cat[DG_NCAT];
    for (int k = 0; k < DG_NCAT; k++) cat[k] = (int64_t)llround(p->acc.cat[k] - before[k]);
    st->measured_ns = d, st->replayed_ns = t0;
    st->host_ns = cat[DG_HOST], st->data_loading_ns = cat[DG_DATA], st->launch_ns = cat[DG_LAUNCH];
    st->kernel_ns = cat[DG_KERNEL], st->copy_ns = cat[DG_COPY], st->communication_ns = cat[DG_COMM];
    st->earlier_work_ns = cat[DG_EARLIER];
    double err = d > 0 ? 100.0 * fabs((double)(t0 - d)) / (double)d : 0;
    p->err_sum += err;
    if (err > p->err_max) p->err_max = err;
    p->over2 += err > 2;
    p->sum_d += (double)d;
}

/* critical_path.rows: per category its time on the path per step and its
 * share of the measured steps (sum_d over ns steps), kernels and
 * communication by name (the TOP_KERNELS longest, then the rest as one
 * row). */
static void cp_write_rows(const pc_trace *t, pc_summary *ps, pc_table *rows, const pacc *acc, double sum_d, double ns) {
    uint32_t *ord = xmalloc((acc->n ? acc->n : 1) * sizeof *ord);
    for (size_t i = 0; i < acc->n; i++) ord[i] = (uint32_t)i;
    sort_acc = acc;
    qsort(ord, acc->n, sizeof *ord, by_ns);
    for (int cat = 0; cat < DG_NCAT; cat++) {
        if (cat == DG_KERNEL || cat == DG_COMM) {
            double rest = acc->cat[cat];
            int shown = 0;
            for (size_t i = 0; i < acc->n; i++) {
                uint32_t k = ord[i];
                if ((int)(acc->id[k] & 7) != cat || shown >= TOP_KERNELS || acc->ns[k] <= 0) continue;
                tab_cpath *x = tab_push(rows);
                x->category = dg_cat_name[cat];
                x->name = pc_summary_utf8(ps, strtab_get(&t->strs, acc->id[k] >> 3));
                x->avg_per_step_ns = pc_figure(acc->ns[k] / ns);
                x->pct = pc_figure(sum_d > 0 ? 100.0 * acc->ns[k] / sum_d : 0);
                rest -= acc->ns[k];
                shown++;
            }
            if (rest > 0.5) {
                tab_cpath *x = tab_push(rows);
                x->category = dg_cat_name[cat];
                x->name = cat == DG_KERNEL ? "(other kernels)" : "(other collectives)";
                x->avg_per_step_ns = pc_figure(rest / ns);
                x->pct = pc_figure(sum_d > 0 ? 100.0 * rest / sum_d : 0);
            }
            continue;
        }
        if (acc->cat[cat] <= 0) continue;
        tab_cpath *x = tab_push(rows);
        x->category = dg_cat_name[cat];
        x->avg_per_step_ns = pc_figure(acc->cat[cat] / ns);
        x->pct = pc_figure(sum_d > 0 ? 100.0 * acc->cat[cat] / sum_d : 0);
    }
    free(ord);
}

void an_critical_path(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    cJSON *so = sj_obj(ps->doc, "critical_path");
    tab_critical_path *r = PC_ADD_REC(ps, so, critical_path);
    pc_table *rows = pc_summary_add_table(ps, so, "rows", TAB_cpath);
    pc_table *per_step = pc_summary_add_table(ps, so, "by_step", TAB_cpath_step);
    r->present = t->count_cpu[CPU_RUNTIME] + t->count_cpu[CPU_DRIVER] > 0;
    /* PERFCARD_NO_REPLAY=1: no graph, no replay (present false), only for measuring their cost
     * (tools/bench_replay.sh, docs/benchmarks.md) */
    if (stakes_disabled()) r->present = 0;
    if (!r->present) return;
    double tc_ns = 0;
    float *tc = stakes_tc_set(c, &tc_ns);
    an_handoff *kept = c->handoff; /* this analyzer is its one writer (handoff.h) */
    /* host_wait's change for the suggestions: with steps only (a step's replay costs a fifth of its
     * build; without steps the one window's graph is the whole trace, replayed twice for the steady
     * state: the suggestions replay it themselves when host_wait asks) */
    int host = kept && c->step_source != NULL && c->nsteps >= 2;
    dg_index *ix = dg_index_new(c);
    size_t nst = dg_index_nstreams(ix) ? dg_index_nstreams(ix) : 1;
    cp_pass p = {.chs = {stakes_change(SK_SYNC, tc, NULL, 0), stakes_change(SK_DATA, tc, NULL, 0), stakes_change(SK_TC, tc, NULL, 0),
                         {.no_sync_wait = 1, .no_data_wait = 1, .scale = tc}},
                 .nch = CP_CHANGES, .nsteps = c->nsteps, .nst = nst, .per_step = per_step};
    if (host) { /* SK_HOST without and with the host phases kept */
        p.chs[p.nch++] = stakes_change(SK_HOST, NULL, NULL, 0);
        p.chs[p.nch++] = stakes_change(SK_HOST, NULL, NULL, 1);
    }
    if (kept) p.t0 = spill_alloc(c->nsteps * sizeof *p.t0); /* per step: spill blocks, they grow with the steps */
    int64_t *carry = xcalloc((size_t)p.nch * nst, sizeof *carry);
    for (int k = 0; k < p.nch; k++) p.chs[k].carry = carry + (size_t)k * nst;
    p.save = spill_calloc((size_t)p.nch * c->nsteps + 1, sizeof *p.save); /* per change, per step */
    dg_each_step(ix, 1, cp_step, &p); /* one thread: the other runs the analyzers beside this one */
    pacc acc = p.acc;
    double sum_d = p.sum_d, err_sum = p.err_sum, err_max = p.err_max, *save = p.save;
    int64_t over2 = p.over2;
    size_t nodes_max = p.nodes_max;
    if (kept) {
        an_handoff_free(kept);
        kept->ix = ix, kept->t0 = p.t0, ix = NULL;
        if ((kept->host_done = host)) {
            kept->host[0] = stakes_mean(save + CP_CHANGES * c->nsteps, c->nsteps);
            kept->host[1] = stakes_mean(save + (CP_CHANGES + 1) * c->nsteps, c->nsteps);
        }
        kept->sets = 1, kept->tc = tc, kept->tc_ns = tc_ns; /* for the suggestions (stakes_tc) */
        an_handoff_check(kept);
    }
    dg_index_free(ix);
    double ns = (double)c->nsteps;
    r->steps = (int64_t)c->nsteps;
    r->nodes_max = (int64_t)nodes_max;
    r->step_ns = pc_figure(sum_d / ns);
    r->error_max_pct = pc_figure(err_max);
    r->error_mean_pct = pc_figure(err_sum / ns);
    r->steps_over_2pct = over2;
    r->sync_saving_ns = pc_figure(stakes_mean(save, c->nsteps));
    r->data_saving_ns = pc_figure(stakes_mean(save + c->nsteps, c->nsteps));
    if (tc) r->tc_saving_ns = pc_figure(stakes_mean(save + 2 * c->nsteps, c->nsteps));
    r->combined_saving_ns = pc_figure(stakes_mean(save + 3 * c->nsteps, c->nsteps));
    spill_free(save);
    cp_write_rows(t, ps, rows, &acc, sum_d, ns);
    hmap_free(&acc.names);
    free(acc.ns);
    free(acc.id);
    free(carry);
    if (!kept) spill_free(tc); /* else the handoff's */
}
