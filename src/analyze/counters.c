/* Counter samples ("ph": "C"): CPU utilization and data queues.
 *
 * CPU utilization: counter "cpu" with series user, system, iowait, idle (in
 * percent of all CPUs, from /proc/stat deltas) and process (the traced
 * process tree, in percent of all CPUs), as perfcard's capture writes them.
 * Averages are over samples; per step, over the samples inside the step.
 * Data queues: counters named "queue:<name>" with series size and capacity.
 * A step "had an empty queue" when a sample inside it shows size 0, as
 * MindInsight counts steps whose device queue was empty (the step waited for
 * data). Series in the summary are downsampled to at most 400 points
 * (the mean of each bucket). */
#include "analyze.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include "../util/xalloc.h"
#include <string.h>

enum { MAX_POINTS = 400 };
static const char *const cpu_series[] = {"user", "system", "iowait", "idle", "process"};
enum { NCPU_SERIES = 5 };
/* series k's field in a row of table id (a series point, a step's row):
 * the registry's column of that name (CPU_SHARE_COLS in tables_run.def) */
static tk_F *share(void *row, int id, int k) {
    return (tk_F *)(void *)((char *)row + tab_col(&pc_table_defs[id], cpu_series[k])->off);
}

static long step_of(const an_ctx *c, int64_t ts) { return step_index(c, ts); }

static void cpu_section(const an_ctx *c, pc_summary *sum) {
    const pc_trace *t = c->t;
    cJSON *cpu = sj_obj(sum->doc, "cpu");
    tab_cpu *rec = PC_ADD_REC(sum, cpu, cpu);
    uint32_t name = strtab_find(&t->strs, "cpu", 3);
    uint32_t sid[NCPU_SERIES];
    for (int k = 0; k < NCPU_SERIES; k++) sid[k] = strtab_find(&t->strs, cpu_series[k], strlen(cpu_series[k]));
    /* samples: rows grouped by timestamp */
    size_t n = 0;
    for (size_t i = 0; i < t->nctr; i++) n += name && t->ctr[i].name == name;
    rec->present = n > 0;
    if (!n) {
        /* the reader's own words: only a Kineto trace is a PyTorch profiler's */
        rec->missing = strcmp(strtab_get(&t->strs, t->source_format), "kineto-json")
                           ? "no CPU utilization samples in this trace: `perfcard capture` records them"
                           : "no CPU utilization samples in this trace: `perfcard capture` records them (PyTorch profiler traces do not have them)";
        return;
    }
    size_t ns = c->nsteps;
    double *ssum = spill_calloc(ns * NCPU_SERIES, sizeof *ssum);
    int64_t *scnt = spill_calloc(ns * NCPU_SERIES, sizeof *scnt);
    double tot[NCPU_SERIES] = {0};
    int64_t cnt[NCPU_SERIES] = {0};
    /* distinct timestamps for the series */
    size_t nts = 0;
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < t->nctr; i++)
        if (t->ctr[i].name == name && t->ctr[i].ts != last) nts++, last = t->ctr[i].ts;
    size_t per = nts > MAX_POINTS ? (nts + MAX_POINTS - 1) / MAX_POINTS : 1;
    pc_table *series = pc_summary_add_table(sum, cpu, "series", TAB_cpu_point);
    double bsum[NCPU_SERIES] = {0};
    int bcnt[NCPU_SERIES] = {0};
    size_t in_bucket = 0;
    int64_t bts = 0;
    last = INT64_MIN;
    for (size_t i = 0; i <= t->nctr; i++) {
        int flush = i == t->nctr || (t->ctr[i].name == name && t->ctr[i].ts != last && last != INT64_MIN);
        if (flush && last != INT64_MIN) {
            in_bucket++;
            if (in_bucket == per || i == t->nctr) {
                tab_cpu_point *p = tab_push(series);
                p->t_ns = bts - t->t_min;
                for (int k = 0; k < NCPU_SERIES; k++)
                    if (bcnt[k]) *share(p, TAB_cpu_point, k) = pc_figure(bsum[k] / bcnt[k]);
                memset(bsum, 0, sizeof bsum);
                memset(bcnt, 0, sizeof bcnt);
                in_bucket = 0;
            }
        }
        if (i == t->nctr) break;
        const pc_counter *e = &t->ctr[i];
        if (e->name != name) continue;
        if (e->ts != last) {
            if (in_bucket == 0 && bcnt[0] + bcnt[1] + bcnt[2] + bcnt[3] + bcnt[4] == 0) bts = e->ts;
            last = e->ts;
        }
        for (int k = 0; k < NCPU_SERIES; k++) {
            if (!sid[k] || e->series != sid[k]) continue;
            tot[k] += e->value;
            cnt[k]++;
            bsum[k] += e->value;
            bcnt[k]++;
            long si = step_of(c, e->ts);
            if (si >= 0) ssum[si * NCPU_SERIES + k] += e->value, scnt[si * NCPU_SERIES + k]++;
        }
    }
    rec->samples = (int64_t)nts;
    double m[NCPU_SERIES]; /* in cpu_series' order */
    for (int k = 0; k < NCPU_SERIES; k++) m[k] = cnt[k] ? pc_figure(tot[k] / (double)cnt[k]) : NAN;
    tab_cpu_average *avg = PC_ADD_REC(sum, sj_obj(cpu, "average"), cpu_average);
    avg->user = m[0], avg->system = m[1], avg->iowait = m[2], avg->idle = m[3], avg->process = m[4];
    pc_table *ps = pc_summary_add_table(sum, cpu, "per_step", TAB_cpu_step);
    size_t emitted = 0;
    for (size_t si = 0; si < ns && emitted < 1000; si++) {
        int any = 0;
        for (int k = 0; k < NCPU_SERIES; k++) any |= scnt[si * NCPU_SERIES + k] > 0;
        if (!any) continue; /* steps shorter than the sampling interval have no sample */
        emitted++;
        tab_cpu_step *r = tab_push(ps);
        r->step = c->steps[si].number;
        for (int k = 0; k < NCPU_SERIES; k++)
            if (scnt[si * NCPU_SERIES + k]) *share(r, TAB_cpu_step, k) = pc_figure(ssum[si * NCPU_SERIES + k] / (double)scnt[si * NCPU_SERIES + k]);
    }
    spill_free(ssum);
    spill_free(scnt);
}

static void queue_section(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    cJSON *qs = sj_obj(ps->doc, "queues");
    tab_queues *qr = PC_ADD_REC(ps, qs, queues);
    cJSON *arr = sj_arr(qs, "rows");
    uint32_t size_id = strtab_find(&t->strs, "size", 4), cap_id = strtab_find(&t->strs, "capacity", 8);
    uint32_t names[32];
    int nq = 0;
    for (size_t i = 0; i < t->nctr && nq < 32; i++) {
        const char *nm = strtab_get(&t->strs, t->ctr[i].name);
        if (strncmp(nm, "queue:", 6)) continue;
        int seen = 0;
        for (int q = 0; q < nq; q++) seen |= names[q] == t->ctr[i].name;
        if (!seen) names[nq++] = t->ctr[i].name;
    }
    qr->present = nq > 0;
    if (!nq) {
        qr->missing = "no queue samples in this trace: `perfcard capture` records them (perfcard_queue_sample), and MindSpore profiler output has them";
        return;
    }
    for (int q = 0; q < nq; q++) {
        size_t ns = c->nsteps, n = 0;
        uint8_t *empty = spill_calloc(ns, 1), *seen = spill_calloc(ns, 1), *full = spill_calloc(ns, 1);
        double sum = 0, capv = 0;
        int64_t zero = 0;
        for (size_t i = 0; i < t->nctr; i++)
            if (t->ctr[i].name == names[q] && t->ctr[i].series == cap_id && t->ctr[i].value > capv) capv = t->ctr[i].value;
        for (size_t i = 0; i < t->nctr; i++) {
            const pc_counter *e = &t->ctr[i];
            if (e->name != names[q]) continue;
            if (e->series != size_id) continue;
            n++;
            sum += e->value;
            long si = step_of(c, e->ts);
            if (si >= 0) {
                seen[si] = 1;
                if (e->value <= 0) empty[si] = 1;
                if (capv > 0 && e->value >= capv) full[si] = 1;
            }
            if (e->value <= 0) zero++;
        }
        size_t per = n > MAX_POINTS ? (n + MAX_POINTS - 1) / MAX_POINTS : 1;
        cJSON *r = cJSON_CreateObject();
        tab_queue *qu = PC_ADD_REC(ps, r, queue);
        qu->name = pc_summary_utf8(ps, strtab_get(&t->strs, names[q]) + 6);
        qu->samples = (int64_t)n;
        qu->capacity = pc_figure(capv);
        qu->avg_size = pc_figure(n ? sum / (double)n : 0);
        qu->empty_samples = zero;
        int64_t es = 0, sw = 0, fs = 0;
        for (size_t i = 0; i < ns; i++) es += empty[i], sw += seen[i], fs += full[i];
        qu->full_steps = fs;
        qu->steps_with_samples = sw;
        qu->empty_steps = es;
        qu->empty_steps_pct = pc_figure(sw ? 100.0 * (double)es / (double)sw : 0);
        pc_table *ser = pc_summary_add_table(ps, r, "series", TAB_queue_point);
        double bs = 0;
        size_t bn = 0;
        int64_t bt = 0;
        for (size_t i = 0; i < t->nctr; i++) {
            const pc_counter *e = &t->ctr[i];
            if (e->name != names[q] || e->series != size_id) continue;
            if (bn == 0) bt = e->ts;
            bs += e->value;
            if (++bn == per) {
                tab_queue_point *p = tab_push(ser);
                p->t_ns = bt - t->t_min, p->size = pc_figure(bs / (double)bn);
                bs = 0, bn = 0;
            }
        }
        if (bn) {
            tab_queue_point *p = tab_push(ser);
            p->t_ns = bt - t->t_min, p->size = pc_figure(bs / (double)bn);
        }
        cJSON_AddItemToArray(arr, r);
        spill_free(empty);
        spill_free(seen);
        spill_free(full);
    }
}

/* Data-pipeline operators (MindSpore's minddata) with MindInsight's
 * bottleneck reading of queue usage: an operator whose output queue is
 * nearly empty (usage under 10%) while its children's output queues are
 * nearly full (over 90%) cannot keep up: it is the bottleneck; a source
 * (no children) whose output is nearly empty is slow at reading. */
static void pipeline_section(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    cJSON *p = sj_obj(ps->doc, "pipeline");
    PC_ADD_REC(ps, p, pipeline)->present = t->npipe > 0;
    pc_table *rows = pc_summary_add_table(ps, p, "rows", TAB_pipe);
    for (size_t i = 0; i < t->npipe; i++) {
        const pc_pipe_op *o = &t->pipe[i];
        int nchild = 0, all_full = 1;
        for (size_t j = 0; j < t->npipe; j++)
            if (t->pipe[j].parent == o->id) {
                nchild++;
                if (t->pipe[j].usage_rate <= 0.9) all_full = 0;
            }
        const char *verdict = "";
        if (o->capacity > 0 && o->usage_rate < 0.1) {
            if (nchild && all_full) verdict = "bottleneck: its input queues are full and its output queue is empty";
            else if (!nchild) verdict = "slow source: its output queue is nearly empty";
        }
        tab_pipe *r = tab_push(rows);
        r->op_id = o->id;
        r->op_type = pc_summary_utf8(ps, strtab_get(&t->strs, o->type));
        r->workers = o->workers;
        r->parent_id = o->parent;
        r->children = pc_summary_utf8(ps, strtab_get(&t->strs, o->children));
        r->queue_capacity = pc_figure(o->capacity);
        r->queue_avg_size = pc_figure(o->avg_size);
        r->queue_usage_pct = pc_figure(100 * o->usage_rate);
        r->verdict = verdict;
    }
}

void an_counters(const an_ctx *c, pc_summary *ps) {
    cpu_section(c, ps);
    queue_section(c, ps);
    pipeline_section(c, ps);
}
