/* The suggestion rules: one row each in rules.def (the text a reader sees:
 * title, threshold in words, why it matters, what to try, the tool that
 * proved the threshold, the frameworks it applies to) and one check function
 * here that reads the sections and, when the rule holds, fires it with its
 * evidence and the time at stake per step (< 0: no estimate). A rule whose
 * data the trace lacks fires nothing. tests/unit/test_rules.c has a case
 * where each fires and one where it must not. */
#include "rules.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../util/spill.h"
#include "../util/apiname.h"
#include "../util/units.h"
#include "intervals.h"
#include "links.h"
#include "flops.h"
#include "peaks.h"
#include "stakes.h"
#include "advice_fit.h"
#include "kfamily.h"
#include "attention.h"
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *fire(const rule_in *in, const pc_rule *r, double at_stake_ns, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A field of a rule's text as it fits the run (advice_fit.h): the row's own text, or the
 * summary's copy of a rewrite (NULL where the rewrite drops it) */
static const char *fitted(const rule_in *in, const pc_rule *r, int field, const char *text) {
    if (!in->fit || !text) return text;
    char buf[2048];
    const char *t = advice_fit_text(in->fit, r->id, in->program, field, text, buf, sizeof buf);
    return t == text || !t ? t : pc_summary_utf8(in->ps, t);
}

static cJSON *fire(const rule_in *in, const pc_rule *r, double at_stake_ns, const char *fmt, ...) {
    char ev[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev, sizeof ev, fmt, ap);
    va_end(ap);
    cJSON *o = cJSON_CreateObject();
    tab_suggestion *sg = PC_ADD_REC(in->ps, o, suggestion);
    sg->rule = r->id;
    sg->title = fitted(in, r, FIT_TITLE, r->title);
    sg->threshold = fitted(in, r, FIT_THRESHOLD, r->threshold);
    const char *evf = fitted(in, r, FIT_EVIDENCE, ev);
    sg->evidence = evf == ev ? pc_summary_utf8(in->ps, ev) : evf;
    sg->why = fitted(in, r, FIT_WHY, r->why);
    /* what to try: for any program, then in the kind of program the trace comes from (both as they fit the run) */
    const char *fw = in->program == PROG_PYTORCH ? r->try_pytorch : in->program == PROG_MINDSPORE ? r->try_mindspore : r->try_cuda;
    fw = fitted(in, r, FIT_TRY_PROG, fw);
    const char *any = fitted(in, r, FIT_TRY, r->try_);
    static const char *const label[] = {[PROG_CUDA] = " In CUDA: ", [PROG_PYTORCH] = " In PyTorch: ", [PROG_MINDSPORE] = " In MindSpore: "};
    const char *lab = in->fit && in->fit->amd && in->program == PROG_CUDA ? " In HIP: " : label[in->program];
    char tr[2048];
    snprintf(tr, sizeof tr, "%s%s%s", any ? any : "", fw ? lab : "", fw ? fw : "");
    sg->try = pc_summary_utf8(in->ps, tr);
    sg->source = fitted(in, r, FIT_SOURCE, r->source);
    if (at_stake_ns >= 0) sg->at_stake_ns = pc_figure(at_stake_ns), sg->stake_source = "estimate";
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in->ps->doc, "suggestions"), "rows");
    assert(cJSON_IsArray(rows)); /* an_advice makes it before any rule runs */
    cJSON_AddItemToArray(rows, o);
    return o;
}

/* how evidence says "per step": without steps the one window is the trace */
#define PER(in) ((in)->has_steps ? "per step" : "in the trace")

/* marks a finding's stake as the replay's (rep nonzero) */
static cJSON *replayed(const rule_in *in, cJSON *o, int rep) {
    tab_suggestion *sg = pc_summary_record_in(in->ps, o, TAB_suggestion);
    if (rep && sg && !PC_IS_NULL(sg->at_stake_ns)) sg->stake_source = "replay";
    return o;
}

int rules_program(const an_ctx *c, const pc_summary *ps) {
    /* whose advice: MindSpore's output is a MindSpore job, Nsight Systems and nvprof inputs CUDA
     * programs (even with aten:: NVTX ranges), a Kineto trace with aten:: operators PyTorch */
    const pc_table *optab = PC_TAB(ps, op);
    const tab_op *ops = optab ? TAB_ROWS(optab, op) : NULL;
    size_t nops = optab ? optab->n : 0;
    const char *fmt = strtab_get(&c->t->strs, c->t->source_format);
    int aten = 0;
    for (size_t i = 0; i < nops && !aten; i++) aten = ops[i].name && !strncmp(ops[i].name, "aten::", 6);
    return !strcmp(fmt, "mindspore") ? PROG_MINDSPORE : !strcmp(fmt, "kineto-json") && aten ? PROG_PYTORCH : PROG_CUDA;
}

int rules_change_of(const char *rule) {
    static const struct { const char *rule; int k; } map[] = {
        {"sync_in_step", SK_SYNC}, {"data_loading", SK_DATA}, {"empty_queue", SK_DATA}, {"pipeline_bottleneck", SK_DATA},
        {"tensor_cores", SK_TC},   {"host_wait", SK_HOST},    {"memory_bound", SK_MB},  {"gpu_kernels", SK_GPU},
        {"unfused_attention", SK_ATTN}, {NULL, 0}};
    for (int i = 0; map[i].rule; i++)
        if (!strcmp(rule, map[i].rule)) return map[i].k;
    return -1;
}

double rules_replayed(const rule_in *in, int k) {
    if (!in->replay) return -1;
    if (!isnan(in->replay[k])) return in->replay[k];
    const tab_critical_path *cp = PC_REC(in->ps, critical_path);
    double v = -1;
    if (cp && tk_true(cp->present)) {
        if (k == SK_SYNC) v = PC_OR(cp->sync_saving_ns, -1);
        else if (k == SK_DATA) v = PC_OR(cp->data_saving_ns, -1);
        else if (k == SK_TC) v = PC_OR(cp->tc_saving_ns, -1);
        else if (k == SK_HOST && in->c->handoff && in->c->handoff->host_done) /* replayed in critical_path's pass (handoff.h) */
            v = in->c->handoff->host[in->keep_phases && *in->keep_phases];
        else if (k == SK_GPU) {
            float *set = stakes_gpu_set(in->c, in->ps, NULL, NULL, NULL);
            dg_change ch = stakes_gpu_change(set);
            double save;
            if (set && stakes_replay(in->c, &ch, 1, &save)) v = save;
            spill_free(set);
        } else {
            float *set = k == SK_MB ? stakes_mb_set(in->c, in->ps) : k == SK_ATTN ? stakes_attn_set(in->c, in->ps) : NULL;
            if (k == SK_HOST || set) {
                dg_change ch = stakes_change(k, NULL, set, in->keep_phases && *in->keep_phases);
                double save;
                if (stakes_replay(in->c, &ch, 1, &save)) v = save;
            }
            spill_free(set);
        }
    }
    if (v < 0 && v > -1) v = 0; /* a change that costs time gives back nothing */
    return in->replay[k] = v;
}

/* Records what the fix of row o (the row just fired: the last of suggestions.rows) gives back
 * before any cap, ns per step (rule_in.unc), the rank's tie-break between equal stakes. */
static void uncapped(const rule_in *in, const cJSON *o, double ns) {
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(in->ps->doc, "suggestions"), "rows");
    int at = cJSON_GetArraySize(rows) - 1;
    if (!in->unc || !o || at < 0) return;
    assert(cJSON_GetArrayItem(rows, at) == o); /* o is the row just fired */
    while (in->unc->n <= (size_t)at) *SPILL_PUSH(in->unc->ns, in->unc->n, in->unc->cap) = -1;
    in->unc->ns[at] = ns;
}

double rules_gpu_ceiling(const rule_in *in) {
    if (!isnan(*in->gpu_ceil)) return *in->gpu_ceil;
    const pc_trace *t = in->c->t;
    const tab_critical_path *cp = PC_REC(in->ps, critical_path);
    double v = -1, save;
    if (t->ngpu && cp && tk_true(cp->present)) {
        float *set = spill_calloc(t->ngpu, sizeof *set);
        for (size_t g = 0; g < t->ngpu; g++) set[g] = t->gpu[g].kind == GPU_KERNEL ? 0.0f : 1.0f;
        dg_change ch = stakes_gpu_change(set);
        if (stakes_replay(in->c, &ch, 1, &save)) v = fmax(0, save);
        spill_free(set);
    }
    return *in->gpu_ceil = v;
}

/* A GPU-side estimate (a change that only shortens kernels: gemm_alignment, no_cudnn) capped by
 * what a replay gives back (ceil, ns per step; < 0: no replay, no cap): on a step the host bounds
 * no faster kernel gives wall time back. change names the replayed change for evidence ("with
 * every kernel taking no time"); writes "; X of kernel time off, but the replay ... gives back Y
 * per step: ..." to note when the cap binds ("" else). */
static double gpu_capped(const rule_in *in, double want, double ceil, const char *change, char *note, size_t n) {
    note[0] = 0;
    if (ceil < 0 || want <= ceil) return want;
    char a[64], b[64];
    units_ns(a, sizeof a, want);
    units_ns(b, sizeof b, ceil);
    snprintf(note, n, "; %s of kernel time off, but the replay %s gives back %s %s: %s", a, change, b, PER(in),
             ceil < 0.1 * want ? "the step is host-bound, faster kernels give back nothing until the host is shortened" : "the most those kernels give back here");
    return ceil;
}

/* "; replayed ...: X per step given back" for evidence */
static void replay_note(char *buf, size_t n, const rule_in *in, const char *change, double ns) {
    char a[64];
    units_ns(a, sizeof a, ns);
    snprintf(buf, n, "; replayed %s: %s %s given back", change, a, PER(in));
}

/* The three largest contributors to a finding (operators, kernels or calls,
 * with their time), shown with its evidence. */
typedef struct top3 { const char *name[3]; double ns[3]; } top3;
static void top_add(top3 *t, const char *name, double ns) {
    if (ns <= 0 || !name) return;
    int i = 3;
    while (i > 0 && (!t->name[i - 1] || t->ns[i - 1] < ns)) i--;
    if (i >= 3) return;
    for (int j = 2; j > i; j--) t->name[j] = t->name[j - 1], t->ns[j] = t->ns[j - 1];
    t->name[i] = name, t->ns[i] = ns;
}
static void top_put(const rule_in *in, cJSON *o, const top3 *t, double nsteps) {
    pc_table *a = pc_summary_add_table(in->ps, o, "contributors", TAB_contributor);
    for (int i = 0; i < 3 && t->name[i]; i++) {
        tab_contributor *x = tab_push(a);
        x->name = pc_summary_utf8(in->ps, t->name[i]);
        x->ns = pc_figure(t->ns[i] / nsteps);
    }
}

/* Time summed per call name (the first 64 names), then its three largest. */
typedef struct by_name { uint32_t id[64]; double ns[64]; int n; } by_name;
static void by_name_add(by_name *b, uint32_t id, double ns) {
    int k = 0;
    while (k < b->n && b->id[k] != id) k++;
    if (k == b->n && b->n < 64) b->id[b->n] = id, b->ns[b->n++] = 0;
    if (k < b->n) b->ns[k] += ns;
}
static void by_name_top(const by_name *b, const pc_trace *t, top3 *top) {
    for (int k = 0; k < b->n; k++) top_add(top, strtab_get(&t->strs, b->id[k]), b->ns[k]);
}

int rule_is_sync_call(const char *n) {
    int k = api_sync_kind(n);
    return k == API_SYNC_DEVICE || k == API_SYNC_STREAM || k == API_SYNC_COPY;
}


/* A category of the exclusive step breakdown, per step (ns), or -1 when the
 * summary has no breakdown. Each nanosecond of a step is in exactly one
 * category, by priority: kernel > memcpy > memset > communication > runtime
 * > data loading > CPU > idle (PyTorch's TensorBoard plugin's order, with
 * communication as its own category); so time at stake taken from these
 * categories is never counted twice. */
static double category(const rule_in *in, int k) {
    const tab_bkcat *c = pc_bk_get(in->ps, k);
    return c ? PC_OR(c->avg_per_step_ns, 0) : -1;
}

/* The time in which the GPU ran nothing (the runtime, data loading, CPU and
 * idle categories) is one pool per step: each finding about why the GPU
 * waited claims its part of it, most specific first (the order of
 * rules.def), and gets at most what is left; so those findings together
 * never exceed the step. Returns the time at stake granted. */
static double claim(const rule_in *in, double want) {
    if (want <= 0) return 0;
    if (*in->pool < 0) return want; /* no breakdown: nothing to cap by */
    double got = want < *in->pool ? want : *in->pool;
    *in->pool -= got;
    return got;
}
/* Steps whose phases the input gives (MindSpore's step trace) while no kernel lies on their clock
 * (the timeline's are on the host's): the device works in forward+backward and the tail and
 * idles in the iteration interval, so that mean interval is the steps' GPU-free time (the
 * breakdown, with no kernel on the clock, counts every step whole). -1 otherwise. */
static double input_phase_idle(const pc_summary *summary) {
    const pc_table *rows = PC_TAB(summary, step);
    const tab_bkcat *k = pc_bk_get(summary, BK_KERNEL);
    if (!rows || !rows->n || !k || PC_OR(k->total_ns, 0) > 0) return -1;
    for (size_t i = 0; i < rows->n; i++)
        if (strcmp(PC_S(TAB_ROWS(rows, step)[i].phase_basis, ""), "input")) return -1;
    double ii = PC_REC(summary, step_average)->iteration_interval_ns;
    return PC_IS_NULL(ii) ? -1 : ii;
}
/* A host-side finding's claim (#44 item 1): capped by the host-late idle no host-side finding
 * before it claimed (in->hpool) as well as by the GPU-free pool; what it gets leaves both. Idle
 * whose ending kernel was already queued when the gap began is no host-side finding's. */
static double hclaim(const rule_in *in, double want) {
    if (in->hpool && *in->hpool >= 0 && want > *in->hpool) want = *in->hpool;
    double got = claim(in, want);
    if (in->hpool && *in->hpool >= 0) *in->hpool = fmax(0, *in->hpool - got);
    return got;
}
/* what a finding about host time took (data loading's wait is host-late idle): it leaves the
 * host-late pool too, without being capped by it */
static void hspend(const rule_in *in, double got) {
    if (in->hpool && *in->hpool >= 0) *in->hpool = fmax(0, *in->hpool - got);
}
/* The part of a host-side finding's measure (ns per step) that can be host-late: at most the
 * step's host-late idle (rules_host_late: the gaps up to their ending launch's return, before the
 * first kernel and after the last), never the queued idle after a launch returned. A finding
 * tests its threshold on this, as its stake is claimed from it (hclaim): a gap the device held
 * queued (work launched before the capture, graph nodes) is no host-side cause however long. */
static double host_part(const rule_in *in, double measure) {
    double hl = rules_host_late(in->ps, in->nsteps);
    return hl >= 0 && hl < measure ? hl : measure;
}
double rules_host_late(const pc_summary *summary, double nsteps) {
    const tab_gpu_device_idle *idle;
    double best = -1;
    for (size_t i = 0; (idle = PC_REC_AT(summary, gpu_device_idle, i)); i++) {
        if (PC_IS_NULL(idle->host_late_ns)) continue;
        if (PC_OR(idle->unlinked_ns, 0) > 0) return -1; /* when anything was launched is unknown: no cap */
        double h = (double)(idle->host_late_ns + PC_OR(idle->startup_ns, 0) + PC_OR(idle->tail_ns, 0));
        best = fmax(best, h / (nsteps > 0 ? nsteps : 1));
    }
    return best;
}
/* A device's idle split by what ends it (idle.h), per step, for evidence, when some of it is not
 * host-side: "; of its idle 9.07 ms per step host-side (...), 119.74 ms queued before its gap
 * (queued_idle's), 13.87 ms waiting on a collective" ("" otherwise) */
static void idle_split_note(const rule_in *in, size_t dev, char *out, size_t n) {
    const tab_gpu_device_idle *idle = PC_REC_AT(in->ps, gpu_device_idle, dev);
    out[0] = 0;
    if (!idle || PC_IS_NULL(idle->host_late_ns) || PC_OR(idle->queued_ns, 0) + PC_OR(idle->dependency_ns, 0) <= 0) return;
    char a[48], b[48], d[48];
    units_ns(a, sizeof a, (double)(idle->host_late_ns + PC_OR(idle->startup_ns, 0) + PC_OR(idle->tail_ns, 0)) / in->nsteps);
    units_ns(b, sizeof b, (double)PC_OR(idle->queued_ns, 0) / in->nsteps);
    units_ns(d, sizeof d, (double)PC_OR(idle->dependency_ns, 0) / in->nsteps);
    snprintf(out, n, "; of its idle %s %s host-side (the next kernel or copy launched after the GPU went idle, or none queued), %s queued before its gap (queued_idle's), %s waiting on a collective",
             a, PER(in), b, d);
}
double rules_gpu_free(const pc_summary *summary) {
    double idle = input_phase_idle(summary);
    if (idle >= 0) return idle;
    double sum = 0;
    static const int free_k[] = {BK_RUNTIME, BK_DATA, BK_CPU, BK_OTHER};
    for (int i = 0; i < 4; i++) {
        const tab_bkcat *c = pc_bk_get(summary, free_k[i]);
        if (!c) return -1;
        sum += PC_OR(c->avg_per_step_ns, 0);
    }
    return sum;
}

/* The kernel time per step is the other pool: a finding about slow kernels
 * (no Tensor Cores, unaligned GEMMs, unfused attention, memory-bound
 * elementwise work) claims the time its fix saves from it, so that those
 * findings together never exceed the kernels' time and, with the GPU-free
 * pool, the step. Each counts kernels no finding before it counted (their
 * checks say how), and the pool caps what is left. */
static double kclaim(const rule_in *in, double want) {
    if (want <= 0) return 0;
    if (*in->kpool < 0) return want;
    double got = want < *in->kpool ? want : *in->kpool;
    *in->kpool -= got;
    return got;
}
double rules_kernel_time(const pc_summary *summary) {
    const tab_bkcat *c = pc_bk_get(summary, BK_KERNEL);
    return c ? PC_OR(c->avg_per_step_ns, 0) : -1;
}

/* The iteration interval as the time at stake of a data-pipeline finding
 * (claimed from the pool), or -1 when the steps have no phases. */
static double interval_stake(const rule_in *in) {
    double rp = rules_replayed(in, SK_DATA);
    if (rp >= 0) return claim(in, rp); /* a graph: the data prefetched, replayed */
    double ii = PC_REC(in->ps, step_average)->iteration_interval_ns;
    return PC_IS_NULL(ii) ? -1 : claim(in, ii);
}

/* ---- the checks ---- */

/* no steps, and the first kernel comes after a quarter of the trace: the window is much start-up */
/* ---- named ranges in evidence (#45 item 7) ---- */

static int ivl_cmp(const void *a, const void *b);

/* The user range (user_annotation, record_function, NVTX / roctx push-pop
 * and start-end ranges: CPU_USER_ANNOT) that holds most of the time set
 * v[0..n) (any order, may overlap), by name: each name's ranges' overlap
 * with the merged set summed (capped at the set's length); of the names
 * holding over half of it, the one whose ranges last the least (the
 * innermost: not an outer range around the whole run); not the steps' own
 * ranges (a step's start and end) nor ProfilerStep#N. Writes "; most of it
 * (X, Y%) inside the range `NAME`" into out (n_out bytes, "" when none), the
 * name's first 80 bytes; with launches set, "; launched inside the range
 * `NAME` (Y% of their launch calls' time)" (v: the launch calls). */
static void named_range_as(const rule_in *in, const ivl *v, size_t n, int launches, char *out, size_t n_out) {
    assert(out && n_out > 0);
    out[0] = 0;
    const pc_trace *t = in->c->t;
    if (!n || !t->count_cpu[CPU_USER_ANNOT]) return;
    ivl *sorted = spill_alloc(n * sizeof *sorted), *set = NULL;
    memcpy(sorted, v, n * sizeof *sorted);
    spill_sort(sorted, n, sizeof *sorted, ivl_cmp);
    size_t ns = 0, cap = 0;
    for (size_t i = 0; i < n; i++) ivl_append_sorted(&set, &ns, &cap, sorted[i].s, sorted[i].e);
    spill_free(sorted);
    int64_t total = ivl_clip_sum(set, ns, INT64_MIN, INT64_MAX);
    enum { NR = 64 };
    uint32_t id[NR];
    double cov[NR], len[NR];
    int nr = 0;
    for (size_t i = 0; i < t->ncpu && total > 0; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind != CPU_USER_ANNOT || e->dur <= 0) continue;
        const char *nm = strtab_get(&t->strs, e->name);
        if (!*nm || !strncmp(nm, "ProfilerStep#", 13)) continue;
        int step = 0;
        for (size_t w = 0; w < in->c->nsteps && !step; w++) step = in->c->steps[w].start == e->ts && in->c->steps[w].end == e->ts + e->dur;
        if (step) continue;
        int64_t o = ivl_clip_sum(set, ns, e->ts, e->ts + e->dur);
        if (o <= 0) continue;
        int k = 0;
        while (k < nr && id[k] != e->name) k++;
        if (k == nr && nr == NR) continue;
        if (k == nr) id[nr] = e->name, cov[nr] = len[nr] = 0, nr++;
        cov[k] += (double)o, len[k] += (double)e->dur;
    }
    int best = -1;
    for (int k = 0; k < nr; k++) {
        if (cov[k] > (double)total) cov[k] = (double)total;
        if (2 * cov[k] > (double)total && (best < 0 || len[k] < len[best])) best = k;
    }
    if (best >= 0) {
        char a[64], nm[81];
        units_ns(a, sizeof a, cov[best] / in->nsteps);
        snprintf(nm, sizeof nm, "%s", strtab_get(&t->strs, id[best]));
        for (char *q = nm; *q; q++)
            if (*q == '`' || (unsigned char)*q < 0x20) *q = '\''; /* the quotes around it stay the only backticks */
        if (launches)
            snprintf(out, n_out, "; launched inside the range `%s` (%.0f%% of their launch calls' time)", nm, 100 * cov[best] / (double)total);
        else snprintf(out, n_out, "; most of it (%s, %.0f%%) inside the range `%s`", a, 100 * cov[best] / (double)total, nm);
    }
    spill_free(set);
}
static void named_range(const rule_in *in, const ivl *v, size_t n, char *out, size_t n_out) { named_range_as(in, v, n, 0, out, n_out); }

/* named_range over the launch calls of the kernels in set (set[g] < 1), or,
 * with set NULL, of the kernels of the families in fam_mask (1 << kf_family):
 * the user range around the launches of the kernels a finding is about */
static void launches_named(const rule_in *in, const float *set, unsigned fam_mask, char *out, size_t n_out) {
    const pc_trace *t = in->c->t;
    const int32_t *launch = in->c->links.gpu_launch;
    out[0] = 0;
    if (!launch || !t->count_cpu[CPU_USER_ANNOT]) return;
    ivl *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL || launch[g] < 0) continue;
        if (set ? set[g] >= 1 : !(fam_mask >> kf_classify(strtab_get(&t->strs, e->name)).family & 1)) continue;
        const pc_cpu_event *c = &t->cpu[launch[g]];
        *SPILL_PUSH(v, n, cap) = (ivl){c->ts, c->ts + (c->dur > 0 ? c->dur : 1)};
    }
    named_range_as(in, v, n, 1, out, n_out);
    spill_free(v);
}

static void startup(const rule_in *in, const pc_rule *r) {
    double fk = PC_OR(PC_REC(in->ps, gpu)->first_kernel_ns, -1), span = PC_OR(PC_REC(in->ps, run)->span_ns, 0);
    if (in->has_steps || fk < 0 || span <= 0 || fk <= 0.25 * span) return;
    if (fk < 100e6) return; /* start-up takes seconds (a CUDA context alone ~0.1-1 s): not a few microseconds */
    double pre = fk;
    /* the calls before the first kernel by name, longest first (context creation, allocation, module loading) */
    double stake = hclaim(in, pre);
    if (stake <= 0) return; /* explained by the findings above (data loading before the first kernel) */
    const pc_trace *t = in->c->t;
    by_name calls = {0};
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if ((e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER) && e->ts + e->dur <= t->t_min + (int64_t)pre) by_name_add(&calls, e->name, (double)e->dur);
    }
    top3 top = {0};
    by_name_top(&calls, t, &top);
    char a[64], b[64], h[160] = "";
    units_ns(a, sizeof a, pre);
    units_ns(b, sizeof b, span);
    /* the process's host work before its first CUDA call (Nsight Systems' OS runtime calls) is start-up too */
    int64_t first_api = INT64_MAX;
    for (size_t i = 0; i < t->ncpu; i++)
        if ((t->cpu[i].kind == CPU_RUNTIME || t->cpu[i].kind == CPU_DRIVER) && t->cpu[i].ts < first_api) first_api = t->cpu[i].ts;
    /* the start-up's end, saturated: a hostile trace's times reach int64's ends */
    int64_t pre_end = pre >= (double)INT64_MAX - (double)t->t_min ? INT64_MAX : t->t_min + (int64_t)pre;
    if (t->has_host_span && first_api != INT64_MAX && first_api > t->t_min && first_api < pre_end) {
        char c[64];
        units_ns(c, sizeof c, (double)(first_api - t->t_min));
        snprintf(h, sizeof h, "; it counts from the process's first OS runtime call, %s before its first CUDA call", c);
    }
    char nr[200];
    named_range(in, &(ivl){t->t_min, pre_end}, 1, nr, sizeof nr);
    top_put(in, fire(in, r, stake, "the first kernel starts %s into the %s trace (%.1f%%), and no steps are marked%s%s", a, b, 100 * pre / span, h, nr),
            &top, 1);
}

static void data_loading(const rule_in *in, const pc_rule *r) {
    const tab_dataloader *dl = PC_REC(in->ps, dataloader);
    double dw = PC_OR(dl->avg_wait_ns, 0);
    if (!tk_true(dl->present) || in->step <= 0 || dw <= 0.05 * in->step) return;
    char a[64], b[64];
    units_ns(a, sizeof a, dw);
    units_ns(b, sizeof b, in->step);
    /* at stake: the replayed saving with the data prefetched; without a graph, the data loading
     * no GPU work overlapped (its breakdown category) */
    double excl = category(in, BK_DATA), rp = rules_replayed(in, SK_DATA), stake = claim(in, rp >= 0 ? rp : excl >= 0 ? excl : dw);
    hspend(in, stake);
    char c[64], note[160] = "";
    units_ns(c, sizeof c, excl >= 0 ? excl : dw);
    if (rp >= 0) replay_note(note, sizeof note, in, "with the data prefetched", rp);
    replayed(in, fire(in, r, stake, "data wait %s per step of the %s mean step (%.1f%%), %s of it with no GPU work beside it; %d of %d steps over 5%%%s", a, b,
                      100 * dw / in->step, c, (int)PC_OR(dl->steps_over_5pct, 0), (int)PC_OR(dl->steps, 0), note),
             rp >= 0);
}

static void empty_queue(const rule_in *in, const pc_rule *r) {
    const tab_queue *q;
    for (size_t i = 0; (q = PC_REC_AT(in->ps, queue, i)); i++) {
        double pct = PC_OR(q->empty_steps_pct, 0), sw = PC_OR(q->steps_with_samples, 0);
        if (sw > 0 && pct > 30)
            replayed(in, fire(in, r, interval_stake(in), "queue %s was empty in %.0f of %.0f steps (%.0f%%)", PC_S(q->name, ""),
                              PC_OR(q->empty_steps, 0), sw, pct),
                     rules_replayed(in, SK_DATA) >= 0);
    }
}

static void pipeline_bottleneck(const rule_in *in, const pc_rule *r) {
    const pc_table *t = PC_TAB(in->ps, pipe);
    for (size_t i = 0; t && i < t->n; i++) {
        const tab_pipe *po = &TAB_ROWS(t, pipe)[i];
        const char *v = PC_S(po->verdict, "");
        if (*v)
            replayed(in, fire(in, r, interval_stake(in), "%s (op %d): %s; output queue %.0f%% used", PC_S(po->op_type, ""),
                              (int)PC_OR(po->op_id, 0), v, PC_OR(po->queue_usage_pct, 0)),
                     rules_replayed(in, SK_DATA) >= 0);
    }
}

static int ivl_cmp(const void *a, const void *b);
static int64_t host_phases(const rule_in *in, int64_t *ngaps, int64_t *longest, ivl **gaps, size_t *ngap_ivl);
static void iteration_interval(const rule_in *in, const pc_rule *r) {
    double ii = PC_OR(PC_REC(in->ps, step_average)->iteration_interval_ns, 0), dw = PC_OR(PC_REC(in->ps, dataloader)->avg_wait_ns, 0);
    /* the threshold on the interval's host-side part: the device held queued before the first
     * kernel (a capture opened during earlier work, a graph replay) is queued_idle's */
    if (!in->has_steps || in->step <= 0 || host_part(in, ii) <= 0.2 * in->step) return;
    char a[64], b[64];
    units_ns(a, sizeof a, ii);
    units_ns(b, sizeof b, in->step);
    /* the data wait inside the interval is data_loading's; the interval a data-pipeline finding
     * (empty_queue, pipeline_bottleneck) took as its stake is theirs; the host phases inside the
     * interval (each step's, from the end of its earlier work) are host_phase's */
    double piped = 0;
    const tab_suggestion *sg;
    for (size_t i = 0; (sg = PC_REC_AT(in->ps, suggestion, i)); i++) {
        const char *rule = PC_S(sg->rule, "");
        if (!strcmp(rule, "empty_queue") || !strcmp(rule, "pipeline_bottleneck")) piped = fmax(piped, PC_OR(sg->at_stake_ns, 0));
    }
    double hp_in = 0;
    int64_t ng, lg;
    ivl *gaps = NULL; /* host_phases' own (in->hg): sorted in place, freed by advice.c */
    size_t ngaps = 0;
    host_phases(in, &ng, &lg, &gaps, &ngaps);
    const pc_table *rows = PC_TAB(in->ps, step);
    if (ngaps && rows && rows->n == in->c->nsteps) {
        ivl *m = NULL;
        size_t nm = 0, capm = 0;
        spill_sort(gaps, ngaps, sizeof *gaps, ivl_cmp);
        for (size_t i = 0; i < ngaps; i++) ivl_append_sorted(&m, &nm, &capm, gaps[i].s, gaps[i].e);
        for (size_t k = 0; k < rows->n; k++) {
            const tab_step *sr = &TAB_ROWS(rows, step)[k];
            double e = PC_OR(sr->earlier_work_ns, 0), iv = PC_OR(sr->iteration_interval_ns, -1);
            if (iv <= 0) continue;
            int64_t s0 = in->c->steps[k].start + (int64_t)e;
            hp_in += (double)ivl_clip_sum(m, nm, s0, s0 + (int64_t)iv);
        }
        spill_free(m);
        hp_in /= in->nsteps;
    }
    double others = (dw > 0 ? fmin(dw, ii) : 0) + piped + hp_in;
    double want = ii - others;
    if (want <= 0 && piped + hp_in > 0) return; /* the findings above took all of it */
    double stake = hclaim(in, want);
    if (want > 0 && stake <= 0) return; /* explained by the findings above, or not host-late */
    char hp[128] = "";
    if (hp_in > 0) {
        char h[64];
        units_ns(h, sizeof h, hp_in);
        snprintf(hp, sizeof hp, "; %s of it in host phases (host_phase's)", h);
    }
    fire(in, r, stake, "iteration interval %s per step of the %s mean step (%.1f%%)%s", a, b, 100 * ii / in->step, hp);
}


/* Host phases (#32 class 3): GPU idle gaps of at least HOST_PHASE_NS that
 * the host causes (the next GPU work was launched after the GPU went idle,
 * as Holistic Trace Analysis tells a host wait) and in which the host barely
 * talks to the GPU: fewer than one CUDA API call per ms of the gap, and the
 * calls cover under a tenth of it (a gap spent in a synchronizing call is
 * sync_in_step's). That is CPU work, I/O, sleeps, preprocessing: not launch
 * overhead, which shows as many short gaps with a launch in each, or as one
 * call of the operator launching the work after the gap (one_call_gap). Counted
 * inside the windows, less data-loading ranges (data_loading's); without
 * steps the time before the first GPU work is start-up's and after the last
 * teardown; with steps the last step's tail after the GPU's last op counts
 * (#45: a pipeline's cleanup; every earlier step's is in the gap to the next
 * op, and nothing queued ends it: the host's own). Returns the time summed over the
 * windows; the gaps in *ngaps, the longest in *longest, the counted instants
 * in *gaps (in->hg's: not to be freed). Found once (host_phases_find), as three
 * rules ask. */
enum { HOST_PHASE_NS = 1000000 };
static void host_phases_find(const rule_in *in, rule_host_gaps *hg);
static int64_t host_phases(const rule_in *in, int64_t *ngaps, int64_t *longest, ivl **gaps, size_t *ngap_ivl) {
    rule_host_gaps *hg = in->hg;
    if (hg->pending) side_finish(&hg->sd), hg->pending = 0;
    if (!hg->done) host_phases_find(in, hg), hg->done = 1;
    *ngaps = hg->n, *longest = hg->longest;
    if (gaps) *gaps = hg->gaps, *ngap_ivl = hg->ngaps;
    return hg->sum;
}
static void *host_gaps_side(void *arg) {
    rule_host_gaps *hg = arg;
    host_phases_find(hg->in, hg), hg->done = 1;
    return NULL;
}
void rules_host_gaps_start(const rule_in *in) {
    rule_host_gaps *hg = in->hg;
    const pc_trace *t = in->c->t;
    if (hg->done || hg->pending || t->ncpu + t->ngpu <= DG_THREADED_EVENTS) return;
    hg->in = in;
    side_start(&hg->sd, host_gaps_side, hg, 1);
    hg->pending = hg->sd.on; /* no thread: found when first asked */
}
void rules_host_gaps_free(rule_host_gaps *hg) {
    if (hg->pending) side_finish(&hg->sd), hg->pending = 0;
    spill_free(hg->gaps);
    memset(hg, 0, sizeof *hg);
}
/* Whether the GPU idle gap [gs, ge) is one call of the operator op (the innermost one that launched
 * the GPU op ending the gap; -1: none): it covers at least half of the gap and spends at least half
 * of its own time in it. The host is then on that operator's own launch path (its dispatch, a
 * library's heuristics, the lazy loading of a kernel's module at its first call): per-launch host
 * overhead, which a CUDA graph's replay runs without and a warm-up takes out of the steady state,
 * host_wait's, not a phase of host work of its own. The second half keeps out a range around many
 * launches (an NVTX range over the whole iteration) that merely encloses the gap. */
static int one_call_gap(const pc_trace *t, int32_t op, int64_t gs, int64_t ge) {
    assert(ge >= gs);
    if (op < 0) return 0;
    const pc_cpu_event *o = &t->cpu[op];
    int64_t oe = o->ts + (o->dur > 0 ? o->dur : 0);
    int64_t in = (oe < ge ? oe : ge) - (o->ts > gs ? o->ts : gs);
    return in > 0 && 2 * in >= ge - gs && 2 * in >= oe - o->ts;
}
/* host_phases_find's inputs (sorted): the CUDA calls by start (api) and merged
 * (mapi), data loading merged (mdl) and inside the windows (dw), the windows
 * (win); and what it finds: the time counted, the gaps, the longest, the
 * counted instants (gaps, spill memory). */
typedef struct hp_find {
    ivl *api, *mapi, *mdl, *dw, *win;
    size_t napi, nmapi, nmdl, ndw, nwin;
    int64_t sum, n, longest;
    ivl *gaps;
    size_t ngaps, capg;
} hp_find;

/* Counts the GPU idle [gs, ge) when it is a host phase: HOST_PHASE_NS or
 * longer, under one CUDA call starting in it per ms, the calls covering under
 * a tenth of it; its part inside the windows less data loading. */
static void hp_count(hp_find *h, int64_t gs, int64_t ge) {
    int64_t len = ge - gs;
    if (len < HOST_PHASE_NS) return;
    size_t lo = 0, hi = h->napi; /* the calls starting in the gap */
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (h->api[m].s < gs) lo = m + 1;
        else hi = m;
    }
    size_t calls = 0;
    while (lo + calls < h->napi && h->api[lo + calls].s < ge) calls++;
    if ((double)calls * 1e6 >= (double)len || 10 * ivl_clip_sum(h->mapi, h->nmapi, gs, ge) >= len) return;
    int64_t part = ivl_clip_sum(h->win, h->nwin, gs, ge) - ivl_clip_sum(h->dw, h->ndw, gs, ge);
    if (part <= 0) return;
    ivl gap = {gs, ge}, *rest = NULL; /* the gap less data loading: which instants it counted */
    size_t d0 = 0, d1 = h->nmdl; /* from the first range ending after the gap's start */
    while (d0 < d1) {
        size_t m = d0 + (d1 - d0) / 2;
        if (h->mdl[m].e <= gs) d0 = m + 1;
        else d1 = m;
    }
    size_t nrest = ivl_subtract(&gap, 1, h->nmdl ? h->mdl + d0 : NULL, h->nmdl - d0, &rest);
    for (size_t k = 0; k < nrest; k++) *SPILL_PUSH(h->gaps, h->ngaps, h->capg) = rest[k];
    spill_free(rest);
    h->sum += part;
    h->n++;
    if (part > h->longest) h->longest = part;
}

/* Finds in->hg's host phases (host_phases' contract) into hg: its sum, n,
 * longest, tail and gaps (spill memory, rules_host_gaps_free's). */
static void host_phases_find(const rule_in *in, rule_host_gaps *hg) {
    const pc_trace *t = in->c->t;
    const pc_links *l = &in->c->links;
    hg->sum = hg->n = hg->longest = hg->tail = 0;
    hg->gaps = NULL, hg->ngaps = 0;
    /* without CUDA calls recorded (MindSpore's timelines) or links, whose launch came when is unknown */
    if (!l->gpu_launch || t->count_cpu[CPU_RUNTIME] + t->count_cpu[CPU_DRIVER] == 0) return;
    hp_find h = {0};
    ivl *dl = NULL;
    size_t ndl = 0, capa = 0, capd = 0, capma = 0, capmd = 0, capw = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER) *SPILL_PUSH(h.api, h.napi, capa) = (ivl){e->ts, e->ts + (e->dur > 0 ? e->dur : 0)};
        else if (e->kind == CPU_DATALOADER || name_is_dataloader(strtab_get(&t->strs, e->name)))
            *SPILL_PUSH(dl, ndl, capd) = (ivl){e->ts, e->ts + (e->dur > 0 ? e->dur : 0)};
    }
    spill_sort(h.api, h.napi, sizeof *h.api, ivl_cmp); /* by start: also what the call count searches */
    spill_sort(dl, ndl, sizeof *dl, ivl_cmp);
    for (size_t i = 0; i < h.napi; i++) ivl_append_sorted(&h.mapi, &h.nmapi, &capma, h.api[i].s, h.api[i].e);
    for (size_t i = 0; i < ndl; i++) ivl_append_sorted(&h.mdl, &h.nmdl, &capmd, dl[i].s, dl[i].e);
    spill_free(dl);
    for (size_t w = 0; w < in->c->nsteps; w++) ivl_append_sorted(&h.win, &h.nwin, &capw, in->c->steps[w].start, in->c->steps[w].end);
    /* data loading inside the windows: the same for every gap, made once */
    h.ndw = ivl_intersect(h.mdl, h.nmdl, h.win, h.nwin, &h.dw);
    /* the first gap runs from the first step's start (the host's work before the GPU's first op in it:
     * a pipeline's preprocessing), without steps (the whole trace) from none; not when the operator that launches that
     * op began in the gap's first half (its own launch path: guards, a compiled region's wrapper) */
    int head = in->has_steps && h.nwin > 0; /* without steps the time before the first op is startup's */
    int64_t busy_end = head ? h.win[0].s : PC_NONE;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) continue;
        int32_t L = l->gpu_launch[g];
        int own_path = head && l->gpu_outer && l->gpu_outer[g] >= 0 && t->cpu[l->gpu_outer[g]].ts - busy_end < (e->ts - busy_end) / 2;
        head = 0;
        if (busy_end != PC_NONE && e->ts > busy_end && !own_path && L >= 0 && t->cpu[L].ts > busy_end &&
            !(l->gpu_inner && one_call_gap(t, l->gpu_inner[g], busy_end, e->ts)))
            hp_count(&h, busy_end, e->ts);
        if (busy_end == PC_NONE || e->ts + e->dur > busy_end) busy_end = e->ts + e->dur;
    }
    /* the last gap runs to the last step's end (the host's work after the GPU's last op: a pipeline's
     * cleanup), as every earlier step's does to the next op; without steps the time after it is teardown */
    int64_t before = h.sum;
    if (in->has_steps && busy_end != PC_NONE && h.nwin > 0 && h.win[h.nwin - 1].e > busy_end) hp_count(&h, busy_end, h.win[h.nwin - 1].e);
    spill_free(h.api);
    spill_free(h.mapi);
    spill_free(h.mdl);
    spill_free(h.win);
    spill_free(h.dw);
    hg->sum = h.sum, hg->n = h.n, hg->longest = h.longest, hg->tail = h.sum - before, hg->gaps = h.gaps, hg->ngaps = h.ngaps;
    assert(hg->tail >= 0 && hg->tail <= hg->sum);
}

static void host_phase(const rule_in *in, const pc_rule *r) {
    int64_t n, longest;
    ivl *gaps;
    size_t ngaps;
    double hp = (double)host_phases(in, &n, &longest, &gaps, &ngaps) / in->nsteps;
    if (in->step <= 0 || hp <= 0.1 * in->step) return;
    double stake = hclaim(in, hp);
    if (stake <= 0) return; /* explained by the findings above */
    char a[64], b[64], nr[200];
    units_ns(a, sizeof a, hp);
    units_ns(b, sizeof b, (double)longest);
    named_range(in, gaps, ngaps, nr, sizeof nr);
    fire(in, r, stake, "%lld GPU idle gap%s over 1 ms with under 1 CUDA call per ms in them: %s %s (%.1f%% of the %s), the longest %s%s",
         (long long)n, n == 1 ? "" : "s", a, PER(in), 100 * hp / in->step, in->has_steps ? "step" : "trace", b, nr);
}

/* Where the steps' critical paths run (critical_path.rows summed by category),
 * the two largest categories, for the symptom's evidence: "; the critical path
 * runs through earlier work 60.1%, launch 23.9%" (empty without a graph). */
static void path_top2(const rule_in *in, char *out, size_t n) {
    /* pc_cpath_cat's categories, said in a sentence */
    static const char *const said[PC_CP_N] = {"host CPU work", "data loading", "launch", "GPU kernels", "copies", "communication",
                                              "work queued before the step"};
    enum { NC = PC_CP_N };
    double pct[NC];
    pc_cpath_by_category(in->ps, pct, NULL);
    int a = -1, b = -1;
    for (int k = 0; k < NC; k++)
        if (pct[k] > 0 && (a < 0 || pct[k] > pct[a])) b = a, a = k;
        else if (pct[k] > 0 && (b < 0 || pct[k] > pct[b])) b = k;
    out[0] = 0;
    if (a < 0) return;
    if (b < 0) snprintf(out, n, "; the critical path runs through %s %.1f%%", said[a], pct[a]);
    else snprintf(out, n, "; the critical path runs through %s %.1f%%, %s %.1f%%", said[a], pct[a], said[b], pct[b]);
}

/* a symptom: at stake, the idle time that no cause found before it explains */
static void gpu_utilization(const rule_in *in, const pc_rule *r) {
    const tab_gpu_device *dev;
    /* with the input's own phases and the kernels on another clock, the device's busy share of the
     * steps is the step trace's (forward+backward and tail), not the timeline's over its own span */
    double idle = in->step > 0 ? input_phase_idle(in->ps) : -1;
    for (size_t i = 0; (dev = PC_REC_AT(in->ps, gpu_device, i)); i++) {
        double u = idle >= 0 ? 100 * (1 - idle / in->step) : PC_OR(dev->utilization_pct, 100);
        if (u >= 50 || in->step <= 0) continue;
        /* its advice is the host's: only host-late idle (#44), not idle queued before its gap */
        double left = hclaim(in, in->step * (1 - u / 100));
        if (left <= 0) continue; /* all its idle time is explained by the findings above, or not host-late */
        char a[64], path[160], split[400];
        units_ns(a, sizeof a, left);
        path_top2(in, path, sizeof path);
        idle_split_note(in, i, split, sizeof split);
        fire(in, r, left, "device %d busy %.1f%% of the %s; %s %s of idle time not explained by the findings above%s%s",
             (int)PC_OR(dev->device, 0), u,
             idle >= 0 ? "steps by the input's step trace (forward+backward and tail; its idle the iteration interval)"
             : in->has_steps ? "steps' span" : "trace", a, PER(in), split, path);
    }
}

/* Queued idle (#44 item 1): GPU idle whose ending kernel or copy was launched before the gap began and
 * that waits on nothing the trace shows (idle.h): the host was not late, the device waited on work
 * the trace does not record (a graph's nodes, work launched before the capture, another device).
 * Over 10% of the step on a device; at stake, the queued idle itself from the GPU-free pool, an
 * estimate of the time this trace cannot explain: no host-side change gives it back (the host-side
 * rules leave it out), a fix of the missing work at most all of it. */
static void queued_idle(const rule_in *in, const pc_rule *r) {
    const tab_gpu_device_idle *idle;
    for (size_t i = 0; (idle = PC_REC_AT(in->ps, gpu_device_idle, i)); i++) {
        double q = (double)PC_OR(idle->queued_ns, 0) / in->nsteps;
        if (in->step <= 0 || q <= 0.1 * in->step) continue;
        double stake = claim(in, q);
        if (stake <= 0) continue; /* the causes above took the GPU-free time */
        const tab_gpu_device *dev = PC_REC_AT(in->ps, gpu_device, i);
        char a[64], g[320] = "", lag[200] = "";
        units_ns(a, sizeof a, q);
        double gq = (double)PC_OR(idle->graph_queued_ns, 0) / in->nsteps;
        if (gq > 0) {
            char b[64];
            units_ns(b, sizeof b, gq);
            snprintf(g, sizeof g, "; %s %s of it inside graph replays (its ending kernels are graph nodes a graph launch call queued): the graphs' nodes between them are not in the trace",
                     b, PER(in));
        } else if (in->fit && in->fit->graphs)
            snprintf(g, sizeof g, "; the trace launches graphs (cudaGraphLaunch): graph replays whose nodes it does not time may be what the device waited on");
        const tab_steps *st = PC_REC(in->ps, steps);
        double lg = st ? PC_OR(st->gpu_lag_ns, 0) : 0;
        if (lg > 0.1 * in->step) {
            char b[64];
            units_ns(b, sizeof b, lg);
            snprintf(lag, sizeof lag, "; the GPU finishes each step's work %s after its range on average: the host runs ahead", b);
        }
        fire(in, r, stake, "device %d idle %s %s (%.1f%% of the %s) in gaps whose ending kernel or copy was launched before the gap began and waits on nothing the trace shows%s%s",
             (int)PC_OR(dev ? dev->device : 0, 0), a, PER(in), 100 * q / in->step, in->has_steps ? "step" : "trace", g, lag);
    }
}

static void host_wait(const rule_in *in, const pc_rule *r) {
    const tab_gpu_device *dev;
    for (size_t i = 0; (dev = PC_REC_AT(in->ps, gpu_device, i)); i++) {
        double hw = PC_OR(PC_REC_AT(in->ps, gpu_device_idle, i)->host_wait_ns, 0) / in->nsteps;
        /* the threshold on the host-late part of those gaps (the rest after a launch returned was
         * held queued: queued_idle's) */
        if (in->step <= 0 || host_part(in, hw) <= 0.1 * in->step) continue;
        /* at stake: at most the host time no GPU work overlapped, less data
         * loading (data_loading's): runtime, CPU and idle categories */
        double host = category(in, BK_RUNTIME), want = hw;
        if (host >= 0) {
            host += category(in, BK_CPU) + category(in, BK_OTHER);
            if (host < want) want = host;
        }
        /* long gaps without launches are host_phase's: only the launch-bound rest is this finding's */
        int64_t ng, lg;
        double hp = i == 0 ? (double)host_phases(in, &ng, &lg, NULL, NULL) / in->nsteps : 0;
        int keep = hp > 0.1 * in->step; /* host_phase fires: its gaps are its own */
        if (!keep) hp = 0; /* host_phase does not fire: the gaps stay this finding's */
        else hp -= (double)in->hg->tail / in->nsteps; /* the tail after the GPU's last op is no host wait (hw has none of it) */
        if (hw - hp <= 0.1 * in->step) continue;
        want -= hp;
        /* the first device's: host gaps (but host_phase's, when it fired) and launch calls at a CUDA
         * graph's launch, replayed */
        if (in->keep_phases) *in->keep_phases = keep;
        double rp = i == 0 ? rules_replayed(in, SK_HOST) : -1;
        double stake = hclaim(in, rp >= 0 ? rp : want);
        if (stake <= 0) continue; /* the causes above took all of it */
        char a[64], note[200] = "";
        units_ns(a, sizeof a, hw);
        if (rp >= 0) replay_note(note, sizeof note, in, keep ? "with host gaps under 1 ms and launch calls at 2 µs" : "with host gaps and launch calls at 2 µs", rp);
        replayed(in, fire(in, r, stake, "device %d idle waiting for the host %s %s (%.1f%% of the %s)%s", (int)PC_OR(dev->device, 0), a, PER(in),
                          100 * hw / in->step, in->has_steps ? "step" : "trace", note),
                 rp >= 0);
    }
}

/* More than half of the kernels under 10 µs. At stake: the short host-late gaps (under the
 * kernel-wait threshold, 30 µs) that fewer, fused launches take away, and the device's dispatch gaps
 * between queued kernels; host_wait, checked after it, takes the longer host-late gaps from what is
 * left. With gaps to give back it needs only two short kernels per step, a pair to fuse (a floor on
 * the trace's count of kernels, all its steps together, made the capture's length decide: a
 * 60-kernel step fired when two steps were captured, not when one was); with none measured its
 * evidence is the share alone, which needs 100 kernels or more. */
static void small_kernels(const rule_in *in, const pc_rule *r) {
    const tab_gpu_launches *ln = PC_REC(in->ps, gpu_launches);
    double nsmall = PC_OR(ln->kernels_under_10us, 0), nk = PC_OR(ln->kernels, 0);
    if (nk <= 0 || nsmall / nk <= 0.5) return;
    /* the short gaps the host's launches leave (host-late: #44); short gaps inside work queued
     * before them (a graph's nodes) are queued_idle's */
    double kw = 0, kd = 0; /* host-late short gaps, and the device's dispatch between queued kernels */
    const tab_gpu_device_idle *idle;
    for (size_t i = 0; (idle = PC_REC_AT(in->ps, gpu_device_idle, i)); i++) {
        if (PC_IS_NULL(idle->host_late_short_ns)) kw += PC_OR(idle->kernel_wait_ns, 0);
        else kw += (double)idle->host_late_short_ns, kd += PC_OR(idle->dispatch_ns, 0);
    }
    kw += kd;
    double stake = hclaim(in, (kw - kd) / in->nsteps) + claim(in, kd / in->nsteps);
    if (kw > 0 && stake <= 0) return; /* the gaps are explained by the findings above */
    if (stake <= 0 ? nk < 100 : nsmall / in->nsteps < 2) return; /* too few for the share alone; nothing to fuse */
    top3 top = {0};
    for (size_t i = 0; i < in->nkern; i++)
        if (in->kern[i].avg_ns < 10000 && in->kern[i].total_ns > 0) top_add(&top, in->kern[i].name, (double)in->kern[i].total_ns);
    cJSON *f = fire(in, r, stake, "%.0f of %.0f kernels (%.0f%%) ran under 10 µs", nsmall, nk, 100 * nsmall / nk);
    top_put(in, f, &top, in->nsteps);
}

static void slow_launches(const rule_in *in, const pc_rule *r) {
    if (pc_trace_unknown_count(in->c->t, "cuda_profiler_range") > 0) return; /* launch times include CUPTI's kernel replays */
    const tab_gpu_launches *ln = PC_REC(in->ps, gpu_launches);
    double nlong = PC_OR(ln->launch_calls_over_50us, 0);
    if (nlong > 0) fire(in, r, -1, "%.0f of %.0f launch calls took over 50 µs", nlong, PC_OR(ln->launch_calls, 0));
}

/* A rule's measure of one operator: the time it counts, NaN when the
 * operator does not count; what it counts (operators, calls) added to *n. */
typedef double (*op_measure)(const tab_op *o, int64_t *n);
/* The operators a measure counts: their time summed, their count (*n) and the top 3 by time. */
static double ops_measured(const rule_in *in, op_measure m, int64_t *n, top3 *top) {
    double sum = 0;
    *n = 0;
    for (size_t i = 0; i < in->nops; i++) {
        double ns = m(&in->ops[i], n);
        if (isnan(ns)) continue;
        sum += ns;
        top_add(top, in->ops[i].name, ns);
    }
    return sum;
}
/* the device when it has Tensor Cores (compute capability 7.0 or later), else NULL */
static const pc_device *tensor_core_device(const rule_in *in) {
    const pc_device *d = in->c->dev0;
    return d && d->cc_major >= 7 ? d : NULL;
}

/* eligible operators' own device time on kernels without Tensor Cores: the
 * forward and the backward (dgrad, wgrad) of convolutions and GEMMs */
static double no_tc_ns(const tab_op *o, int64_t *n) {
    if (o->tc_eligible != 1 || !o->tensor_cores || strcmp(o->tensor_cores, "no") || o->self_device_ns <= 0) return NAN;
    ++*n;
    return (double)o->self_device_ns;
}
/* The speed-up Tensor Cores attain on convolutions and GEMMs that ran on the
 * FP32 units (docs/tensor-cores.md, "What moving to Tensor Cores gives back"):
 * 2x, far under the peak ratio (8x on a V100: 125 vs 15.7 TFLOP/s), so the
 * time given back is the kernels' time x (1 - 1/2). */
#define TC_SPEEDUP STAKE_TC_SPEEDUP
static void tensor_cores(const rule_in *in, const pc_rule *r) {
    const pc_device *d = tensor_core_device(in);
    if (!d) return;
    int64_t n;
    top3 top = {0};
    double no_tc = ops_measured(in, no_tc_ns, &n, &top);
    if (!n || no_tc <= 0) return;
    /* the change: the convolution and GEMM kernels among them (not the batch norms, layout
     * transforms and elementwise kernels the same operators launch) at Tensor Core speed */
    double set_ns = 0;
    float *own;
    stakes_tc(in->c, &set_ns, &own);
    spill_free(own);
    double rp = rules_replayed(in, SK_TC);
    char a[64], b[128] = "", note[200] = "";
    units_ns(a, sizeof a, no_tc / in->nsteps);
    if (set_ns > 0) {
        char c[64];
        units_ns(c, sizeof c, set_ns / in->nsteps);
        snprintf(b, sizeof b, ", %s of it in convolution and GEMM kernels", c);
    }
    if (rp >= 0) replay_note(note, sizeof note, in, "at Tensor Core speed", rp);
    /* without a replay (no graph, or no convolution or GEMM kernel by name): half of those kernels, else of the operators' time */
    double est = (set_ns > 0 ? set_ns : no_tc) / in->nsteps * (1 - 1 / TC_SPEEDUP);
    double stake = kclaim(in, rp >= 0 ? rp : est);
    cJSON *f = fire(in, r, stake, "%lld operator%s, forward and backward, with %s of GPU time %s on non-Tensor-Core kernels (device compute capability %d.%d)%s; at %.0fx on Tensor Cores %s would take %.0f%% of their time%s",
         (long long)n, n == 1 ? "" : "s", a, PER(in), d->cc_major, d->cc_minor, b, TC_SPEEDUP, set_ns > 0 ? "those" : "they", 100 / TC_SPEEDUP, note);
    top_put(in, replayed(in, f, rp >= 0), &top, in->nsteps);
}

/* Memory-bound operators (#32 class 5b): leaf operators (their device time
 * all their own, so each kernel counts once) bound by bandwidth (elementwise,
 * copies, norms, softmax, reductions: flops.c) whose bytes and bandwidth share
 * are known. The fraction of such an operator's time above what its bytes
 * need at the device's peak bandwidth: 1 - its % of bandwidth peak; 0 for any
 * other operator (mb_row; stakes_op_rows finds the row by name). */
static double mb_row(const tab_op *o) {
    double pct = PC_OR(o->bandwidth_peak_pct, -1);
    if (!o->bound_by || strcmp(o->bound_by, "bandwidth") || pct < 0 || o->self_device_ns <= 0 || o->self_device_ns != o->device_total_ns)
        return 0;
    return 1 - pct / 100;
}

/* Unfused attention (#32 class 5a, #45): the patterns of attention.h, a
 * softmax between two batched matrix products (aten::bmm, baddbmm, matmul or
 * einsum) written in the same scope (an operator, an nn.Module, a
 * record_function, through the Python frames of a with_stack trace and an
 * nn.Softmax module's), the nearest before and
 * after it: attention written by hand, where one fused kernel
 * (scaled_dot_product_attention's flash or memory-efficient kernels) could
 * run. The pattern's time: the GPU work launched from the first product's
 * start to the second's end (the scaling, masking, softmax and dropout
 * between included, each kernel once). The fused kernel's estimate
 * (stakes_attn_fused): the two products' FLOPs at half the device's Tensor
 * Core peak for their data type, or their own kernel time. The fix: each
 * pattern's kernels taking that estimate (and the part tensor_cores counts on
 * its products, stakes_attn_tc) instead of their time, scaled alike
 * (SK_ATTN), replayed: what the step gives back, nothing where the host
 * bounds it (an eager text encoder that launches late). At stake: that
 * replay, without a graph the pattern's time less the estimate and
 * tensor_cores' part, from the kernel time pool. */
static void unfused_attention(const rule_in *in, const pc_rule *r) {
    const pc_trace *t = in->c->t;
    attn_set s;
    if (!attn_find(t, &in->c->links, &s)) return;
    double pattern = 0, fused = 0, tc = 0;
    int64_t count = 0;
    by_name scopes = {0};
    for (size_t k = 0; k < s.n; k++) {
        const attn_pattern *p = &s.p[k];
        if (p->ns <= 0) continue;
        fused += stakes_attn_fused(in->c, p);
        tc += stakes_attn_tc(in->c, in->ops, in->nops, p);
        pattern += p->ns;
        count++;
        by_name_add(&scopes, t->cpu[p->scope].name, p->ns);
    }
    attn_free(&s);
    double want = (pattern - fused - tc) / in->nsteps;
    if (!count || want <= 0) return;
    /* the change: each pattern's kernels scaled to the fused kernel's time, replayed */
    double rp = rules_replayed(in, SK_ATTN);
    char a[64], b[64], note[200] = "";
    units_ns(a, sizeof a, pattern / in->nsteps);
    units_ns(b, sizeof b, fused / in->nsteps);
    if (rp >= 0) replay_note(note, sizeof note, in, "with each pattern's kernels taking the fused kernel's time", rp);
    top3 top = {0};
    by_name_top(&scopes, t, &top);
    cJSON *o = fire(in, r, kclaim(in, rp >= 0 ? rp : want), "%lld softmax%s between two batched matrix products, %s %s of kernels; a fused attention kernel estimated at %s%s",
                    (long long)count, count == 1 ? "" : "es", a, PER(in), b, note);
    uncapped(in, o, want);
    top_put(in, replayed(in, o, rp >= 0), &top, in->nsteps);
}

/* Per row of the operators table (spill_calloc'd, in->nops of them, NULL
 * when none): the kernel time (whole trace) of its calls inside unfused
 * attention (attention.h), which is unfused_attention's, so not memory_bound's. */
static double *attn_row_ns(const rule_in *in) {
    const pc_trace *t = in->c->t;
    attn_set s;
    if (!in->nops || !attn_find(t, &in->c->links, &s)) return NULL;
    double *v = spill_calloc(in->nops, sizeof *v);
    int32_t *row = stakes_op_rows(t, in->ops, in->nops); /* the operators table's row per name id */
    for (size_t g = 0; g < t->ngpu; g++) {
        int32_t at = s.gpu[g] ? row[t->cpu[in->c->links.gpu_inner[g]].name] : -1;
        if (at >= 0) v[at] += (double)t->gpu[g].dur;
    }
    spill_free(row);
    attn_free(&s);
    return v;
}

/* Memory-bound work (#32 class 5b): the kernel time of memory-bound
 * operators (mb_row) over a tenth of the kernel time: elementwise chains,
 * copies, norms that each read and write memory, a fusion (torch.compile)
 * candidate. Their calls inside unfused attention (attention.h: the softmax,
 * the scaling, the copies of the products' inputs) are unfused_attention's,
 * whose fix replaces them, and count in neither the tenth nor the stake
 * (attn_row_ns; SK_MB's set leaves their kernels out too). At stake: the
 * rest's time above what their bytes need at the device's peak bandwidth
 * (time x (1 - % of bandwidth peak)), replayed, from the kernel time pool. */
/* memory_bound by kernel family (#45 item 6) when operators launched under
 * half the kernel time (stakes_gpu_op_share: GPU-only captures, graph
 * replays), the GPU bounding the step (gk_family_bounds): the memory-bound
 * families' kernels (stakes_mb_families) over a tenth of the kernel time, 1%
 * of the step or more at stake. Their bytes are unknown: at stake, SK_MB's replay
 * of them without the layout conversions and the others at STAKE_MB_FAMILY_FACTOR
 * of their time (an estimate, stated in the evidence; stakes.h), else what that
 * takes off their time (stakes_mb_family_give), from the kernel time pool.
 * Contributors: their three kernels with the most time. */
static int gk_gpu_bounds(const rule_in *in, double *busy, double *lag);
static int gk_family_bounds(const rule_in *in, double busy, double lag);
static void memory_bound_by_family(const rule_in *in, const pc_rule *r) {
    const pc_trace *t = in->c->t;
    double fam[KF_NFAMILY], kern, ns, busy, lag;
    gk_gpu_bounds(in, &busy, &lag);
    if (!gk_family_bounds(in, busy, lag)) return; /* the GPU does not bound the step: faster kernels give back little */
    unsigned mask = stakes_mb_families(t, fam, &kern, &ns);
    if (!mask || ns <= 0.1 * kern) return;
    char fams[400] = "", a[64], note[200] = "";
    for (int f = 0; f < KF_NFAMILY; f++) {
        if (!(mask >> f & 1)) continue;
        units_ns(a, sizeof a, fam[f] / in->nsteps);
        snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s %s (%.1f%%)", *fams ? ", " : "", kf_family_label(f), a, 100 * fam[f] / kern);
    }
    double rp = rules_replayed(in, SK_MB), want = stakes_mb_family_give(t) / in->nsteps;
    if ((rp >= 0 ? rp : want) < 0.01 * in->step) return; /* under 1% of the step at stake: no finding */
    if (rp >= 0) replay_note(note, sizeof note, in, "without the layout transposes and with the other kernels at 5/8 of their time", rp);
    by_name names = {0};
    for (size_t g = 0; g < t->ngpu; g++)
        if (t->gpu[g].kind == GPU_KERNEL && mask >> kf_classify(strtab_get(&t->strs, t->gpu[g].name)).family & 1)
            by_name_add(&names, t->gpu[g].name, (double)t->gpu[g].dur);
    top3 top = {0};
    by_name_top(&names, t, &top);
    units_ns(a, sizeof a, ns / in->nsteps);
    pc_rule rf = *r;
    rf.threshold = "without operators (GPU-only captures, graph replays): memory-bound kernel families (normalization, layout / transpose, elementwise, reduction; not the kernels a compiler already fused) over 10% of the kernel time";
    rf.try_ = "Fuse the normalizations and elementwise kernels with their neighbours (a compiler, or fused norm + activation kernels), keep one memory layout end to end so that no transposes are needed (channels-last throughout), and keep the data in a lower precision.";
    cJSON *o = fire(in, &rf, kclaim(in, rp >= 0 ? rp : want), "memory-bound kernels %s %s (%.1f%% of the kernel time): %s; no operator launched them, so their bytes are unknown: at stake, an estimate of what the fix gives back, the layout transposes gone (one memory layout end to end needs none) and the other kernels at 5/8 of their time (the memory traffic a chain of three pointwise kernels keeps when fused into one)%s",
                    a, PER(in), 100 * ns / kern, fams, note);
    uncapped(in, o, want);
    top_put(in, replayed(in, o, rp >= 0), &top, in->nsteps);
}

static void memory_bound(const rule_in *in, const pc_rule *r) {
    if (in->c->t->ngpu && stakes_gpu_op_share(in->c) < STAKE_GPU_OP_SHARE) {
        memory_bound_by_family(in, r);
        return;
    }
    if (in->program != PROG_PYTORCH) return; /* the operators' byte estimates are PyTorch's */
    double kern = rules_kernel_time(in->ps);
    if (!in->c->peak || kern <= 0) return;
    /* the memory-bound operators' kernel time outside unfused attention, and its part above their bytes' need */
    double *attn = attn_row_ns(in), ns = 0, above = 0, in_attn = 0;
    int64_t n = 0;
    top3 top = {0};
    for (size_t i = 0; i < in->nops; i++) {
        double f = mb_row(&in->ops[i]), own = attn ? attn[i] : 0, left = (double)in->ops[i].self_device_ns - own;
        if (f <= 0) continue;
        in_attn += own;
        if (left <= 0) continue;
        n++, ns += left, above += left * f;
        top_add(&top, in->ops[i].name, left);
    }
    spill_free(attn);
    ns /= in->nsteps, above /= in->nsteps, in_attn /= in->nsteps;
    if (!n || ns <= 0.1 * kern) return;
    double want = above;
    /* the change: their kernels at the device's peak bandwidth (time x % of bandwidth peak), replayed */
    double rp = rules_replayed(in, SK_MB);
    char a[64], b[64], note[200] = "";
    units_ns(a, sizeof a, ns);
    units_ns(b, sizeof b, above);
    if (rp >= 0) replay_note(note, sizeof note, in, "with their kernels at the peak bandwidth", rp);
    char c[64], held[160] = "";
    units_ns(c, sizeof c, in_attn);
    if (in_attn > 0) snprintf(held, sizeof held, " (%s more in unfused attention, unfused_attention's, not counted)", c);
    cJSON *o = fire(in, r, kclaim(in, rp >= 0 ? rp : want), "%lld memory-bound operator%s (elementwise, norms, reductions) with %s of kernel time %s (%.1f%% of it)%s; %s of it above what their bytes need at %s's %.0f GB/s%s",
                    (long long)n, n == 1 ? "" : "s", a, PER(in), 100 * ns / kern, held, b, in->c->peak->label, in->c->peak->mem_gbs, note);
    uncapped(in, o, want);
    top_put(in, replayed(in, o, rp >= 0), &top, in->nsteps);
}

/* ---- gpu_kernels (#44 item 4): what the kernels of a GPU-bound step cost ---- */

/* Whether the GPU bounds the step, from what the summary has (a small local
 * reading the lead may swap for steps.c's per-step host/GPU bound, #44 item
 * 2): the GPU busy (kernels, copies, memsets, communication: the exclusive
 * breakdown) GK_BUSY_SHARE of the step or more, or its work ending after the
 * host's range (steps.gpu_lag_ns over 1% of the step). *busy, *lag: per step (ns). */
#define GK_BUSY_SHARE 0.4
static int gk_gpu_bounds(const rule_in *in, double *busy, double *lag) {
    static const int dev_k[] = {BK_KERNEL, BK_MEMCPY, BK_MEMSET, BK_COMM};
    *busy = 0;
    for (int i = 0; i < 4; i++) *busy += fmax(0, category(in, dev_k[i]));
    *lag = PC_OR(PC_REC(in->ps, steps)->gpu_lag_ns, 0);
    return in->step > 0 && (*busy >= GK_BUSY_SHARE * in->step || *lag > 0.01 * in->step);
}

/* The shapes of gpu_kernels' set furthest below the peak: its kernels grouped
 * by the operator call around them with a FLOP formula (name and input
 * shapes; the first GK_SHAPES pairs), each group's FLOPs (each call once) over
 * its kernel time against its data type's peak (with Tensor Cores when one of
 * its kernels ran on them); the three that give back the most at
 * STAKE_GPU_PEAK_SHARE, as contributors ("aten::mm [[4096,4096],[4096,4096]]
 * bf16: 44.1% of peak"), their kernel time per step. 0 when none. */
#define GK_SHAPES 64
typedef struct gk_shape { uint32_t name, dims; double ns, flops; int dtype, tc; } gk_shape;
static int gk_shapes(const rule_in *in, const float *set, top3 *top, char label[3][400]) {
    const pc_trace *t = in->c->t;
    const pc_links *l = &in->c->links;
    const gpu_peak *pk = in->c->peak;
    if (!set || !pk || !l->gpu_inner || !l->parent) return 0;
    gk_shape sh[GK_SHAPES];
    int n = 0;
    uint8_t *seen = spill_calloc(t->ncpu ? t->ncpu : 1, 1);
    for (size_t g = 0; g < t->ngpu; g++) {
        if (set[g] >= 1) continue;
        int32_t p = l->gpu_inner[g];
        while (p >= 0 && (t->cpu[p].kind != CPU_OP || !t->cpu[p].input_dims || !op_flops_known(strtab_get(&t->strs, t->cpu[p].name)))) p = l->parent[p];
        if (p < 0) continue;
        const pc_cpu_event *e = &t->cpu[p];
        int k = 0;
        while (k < n && (sh[k].name != e->name || sh[k].dims != e->input_dims)) k++;
        if (k == n && n == GK_SHAPES) continue;
        if (k == n) sh[n++] = (gk_shape){e->name, e->input_dims, 0, 0, DT_UNKNOWN, 0};
        sh[k].ns += (double)t->gpu[g].dur;
        sh[k].tc |= kernel_uses_tensor_cores(strtab_get(&t->strs, t->gpu[g].name)) == 1;
        if (seen[p]) continue;
        seen[p] = 1;
        op_args args;
        flops_result fr;
        op_args_parse(&args, strtab_get(&t->strs, e->input_dims), e->input_types ? strtab_get(&t->strs, e->input_types) : NULL,
                      e->concrete ? strtab_get(&t->strs, e->concrete) : NULL);
        if (op_flops(strtab_get(&t->strs, e->name), &args, NULL, &fr) && fr.flops > 0) sh[k].flops += fr.flops, sh[k].dtype = fr.dtype;
    }
    spill_free(seen);
    double pct[GK_SHAPES], back[GK_SHAPES];
    for (int k = 0; k < n; k++) {
        double peak = sh[k].flops > 0 ? peak_tflops(pk, sh[k].dtype, sh[k].tc) : 0;
        pct[k] = peak > 0 && sh[k].ns > 0 ? 100 * sh[k].flops / sh[k].ns * 1e-3 / peak : -1; /* FLOP/ns x 1e-3 = TFLOP/s */
        back[k] = pct[k] >= 0 && pct[k] < 100 * STAKE_GPU_PEAK_SHARE ? sh[k].ns * (1 - pct[k] / (100 * STAKE_GPU_PEAK_SHARE)) : 0;
    }
    int got = 0;
    for (int j = 0; j < 3; j++) {
        int best = -1;
        for (int k = 0; k < n; k++)
            if (back[k] > 0 && (best < 0 || back[k] > back[best])) best = k;
        if (best < 0) break;
        snprintf(label[j], 400, "%s %.300s %s: %.1f%% of peak", strtab_get(&t->strs, sh[best].name), strtab_get(&t->strs, sh[best].dims),
                 pc_dtype_name[sh[best].dtype], pct[best]);
        top_add(top, label[j], sh[best].ns);
        back[best] = 0, got++;
    }
    return got;
}

/* Kernels bound the step (#44 item 4): when the GPU bounds it (gk_gpu_bounds)
 * and compute-bound operators' kernels (matrix products, convolutions,
 * attention with FLOPs from their shapes) run below STAKE_GPU_PEAK_SHARE of
 * their data type's peak, giving back 1% of the step or more at it off the
 * graph. Evidence: the kernel time by family (kfamily.h), those kernels' mean
 * % of peak, the shapes furthest below it (gk_shapes). At stake: SK_GPU's replay (the
 * step ending with its GPU work: the GPU's margin over the host caps it);
 * a replay that gives back under a tenth of the off-graph figure says the
 * step is host-bound; without a graph, the off-graph figure. From the
 * kernel time pool. */
/* gpu_kernels by kernel family (#44 item 4, #45 item 6), when operators
 * launched under half the kernel time (stakes_gpu_op_share: graph replays,
 * GPU-only captures) and the GPU bounds the step (gk_family_bounds): the kernels' FLOPs are unknown, so the finding names the
 * families that dominate (stakes_gpu_families) with their time and share, and
 * its stake is SK_GPU's replay of those kernels taking no time (the step
 * ending with its GPU work): the GPU's margin over the host or their time,
 * the less, an upper bound (docs/replay.md). Contributors: the dominant
 * families' three kernels with the most time. */
/* The GPU bounds the step for the family findings (whose stakes assume it,
 * with no % of peak to say how much is left): its work ends after the host's
 * range (lag over 1% of the step; without steps, its last op's end after the
 * host's last event's) or it is busy GK_FAMILY_BUSY_SHARE of the step or more
 * (gk_gpu_bounds' busy and lag) */
#define GK_FAMILY_BUSY_SHARE 0.75
static int gk_family_bounds(const rule_in *in, double busy, double lag) {
    const pc_trace *t = in->c->t;
    if (!in->has_steps) { /* without steps: the GPU's last op's end after the host's last event's */
        int64_t host = INT64_MIN, gpu = INT64_MIN;
        for (size_t i = 0; i < t->ncpu; i++) host = t->cpu[i].ts + t->cpu[i].dur > host ? t->cpu[i].ts + t->cpu[i].dur : host;
        for (size_t g = 0; g < t->ngpu; g++) gpu = t->gpu[g].ts + t->gpu[g].dur > gpu ? t->gpu[g].ts + t->gpu[g].dur : gpu;
        if (host != INT64_MIN && gpu > host) lag = fmax(lag, (double)(gpu - host));
    }
    return in->step > 0 && (busy >= GK_FAMILY_BUSY_SHARE * in->step || lag > 0.01 * in->step);
}

static void gpu_kernels_by_family(const rule_in *in, const pc_rule *r, double busy, double lag) {
    const pc_trace *t = in->c->t;
    if (!gk_family_bounds(in, busy, lag)) return;
    double fam[KF_NFAMILY], kern, set_ns = 0;
    unsigned mask = stakes_gpu_families(t, fam, &kern);
    if (!mask) return;
    for (int f = 0; f < KF_NFAMILY; f++)
        if (mask >> f & 1) set_ns += fam[f];
    set_ns /= in->nsteps;
    double rp = rules_replayed(in, SK_GPU), stake = rp >= 0 ? rp : fmin(set_ns, lag);
    if (stake < 0.01 * in->step) return;
    char fams[400] = "", a[64], c[64], lagw[160] = "", note[600] = "";
    for (int f = 0; f < KF_NFAMILY; f++) {
        if (!(mask >> f & 1)) continue;
        units_ns(a, sizeof a, fam[f] / in->nsteps);
        snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s %s (%.1f%%)", *fams ? ", " : "", kf_family_label(f), a, 100 * fam[f] / kern);
    }
    if (lag > 0.01 * in->step) units_ns(c, sizeof c, lag), snprintf(lagw, sizeof lagw, ", its work ending %s after the host's range", c);
    if (rp >= 0) replay_note(note, sizeof note, in, "with those kernels taking no time and the step ending when its GPU work ends", rp);
    /* the dominant families' kernels with the most time */
    by_name names = {0};
    for (size_t g = 0; g < t->ngpu; g++)
        if (t->gpu[g].kind == GPU_KERNEL && mask >> kf_classify(strtab_get(&t->strs, t->gpu[g].name)).family & 1)
            by_name_add(&names, t->gpu[g].name, (double)t->gpu[g].dur);
    top3 top = {0};
    by_name_top(&names, t, &top);
    units_ns(c, sizeof c, busy);
    char nr[200];
    launches_named(in, NULL, mask, nr, sizeof nr);
    snprintf(note + strlen(note), sizeof note - strlen(note), "%s", nr);
    /* the advice for kernels whose FLOPs are unknown: measure them first */
    pc_rule rf = *r;
    rf.title = "Kernels bound the step: a few kernel families take the GPU's time";
    rf.threshold = "the GPU busy 40% of the step or more, or its work ending after the host's range, with over half the kernel time launched by no operator (graph replays, GPU-only captures: FLOPs unknown); the families holding 10% of the kernel time or more (copies and communication apart), 1% of the step or more given back in the replay";
    rf.why = "When the GPU bounds the step, the step is as long as its kernels: only faster kernels shorten it. Without the operators' shapes, how far the kernels are from the device's peaks is unknown: the most they can give back is the GPU's margin over the host.";
    rf.try_ = "Measure the dominant families' kernels with Nsight Compute (achieved FLOP/s and memory throughput against the "
              "device's peaks) to tell compute-bound from memory-bound ones; for the GEMMs, check the library's tile and algorithm "
              "choice for these shapes (tuning, a lower precision with matrix units); fuse the memory-bound kernels (norms, "
              "elementwise, layout changes) into their neighbours.";
    cJSON *o = fire(in, &rf, kclaim(in, stake),
                    "the GPU is busy %s %s (%.0f%% of the %s)%s; most of its kernel time has no operator that launched it (graph replays, a GPU-only capture): its FLOPs are unknown; the families that dominate: %s; at stake, an upper bound: the GPU's margin over the host, or those kernels' time when less%s",
                    c, PER(in), 100 * busy / in->step, in->has_steps ? "step" : "trace", lagw, fams, note);
    uncapped(in, o, set_ns); /* those kernels taking no time: the most they give back before any cap */
    top_put(in, replayed(in, o, rp >= 0), &top, in->nsteps);
}

static void gpu_kernels(const rule_in *in, const pc_rule *r) {
    const pc_trace *t = in->c->t;
    double busy, lag, set_ns, give;
    if (!gk_gpu_bounds(in, &busy, &lag)) return;
    if (stakes_gpu_op_share(in->c) < STAKE_GPU_OP_SHARE) {
        gpu_kernels_by_family(in, r, busy, lag);
        return;
    }
    double *row_ns = spill_calloc(in->nops ? in->nops : 1, sizeof *row_ns);
    float *set = stakes_gpu_set(in->c, in->ps, &set_ns, &give, row_ns);
    set_ns /= in->nsteps, give /= in->nsteps;
    if (!set || give < 0.01 * in->step) {
        spill_free(row_ns);
        spill_free(set);
        return;
    }
    /* the kernel time by family (kfamily.h), each name classified once */
    double fam[KF_NFAMILY] = {0}, kern = 0;
    uint8_t *fam_of = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* family + 1; 0: not yet */
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL) continue;
        if (!fam_of[e->name]) fam_of[e->name] = (uint8_t)(kf_classify(strtab_get(&t->strs, e->name)).family + 1);
        fam[fam_of[e->name] - 1] += (double)e->dur, kern += (double)e->dur;
    }
    spill_free(fam_of);
    char fams[400] = "", a[64], b[64], c[64], note[600] = "", lagw[160] = "";
    for (int f = 0; f < KF_NFAMILY; f++) {
        if (fam[f] <= 0.05 * kern) continue; /* the families that dominate: 5% of the kernel time or more */
        units_ns(a, sizeof a, fam[f] / in->nsteps);
        snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s %s (%.1f%%)", *fams ? ", " : "", kf_family_label(f), a, 100 * fam[f] / kern);
    }
    double pct = 100 * STAKE_GPU_PEAK_SHARE * (1 - give / set_ns); /* the set's time-weighted % of peak */
    double rp = rules_replayed(in, SK_GPU), stake = rp >= 0 ? rp : give;
    units_ns(a, sizeof a, set_ns);
    units_ns(b, sizeof b, set_ns - give);
    if (lag > 0.01 * in->step) units_ns(c, sizeof c, lag), snprintf(lagw, sizeof lagw, ", its work ending %s after the host's range", c);
    if (rp >= 0) {
        replay_note(note, sizeof note, in, "with the step ending when its GPU work ends", rp);
        if (rp < 0.1 * give) {
            units_ns(c, sizeof c, in->step);
            snprintf(note + strlen(note), sizeof note - strlen(note), ": the step is host-bound: faster kernels give back nothing until the host's %s %s are shortened", c, PER(in));
        }
    }
    units_ns(c, sizeof c, busy);
    /* the operators below the peak with the most of the set's kernel time (stakes_gpu_set's rows) */
    size_t worst[3];
    int nw = 0;
    for (size_t i = 0; i < in->nops; i++) {
        if (row_ns[i] <= 0) continue;
        int j = nw < 3 ? nw++ : 3;
        while (j > 0 && row_ns[worst[j - 1]] < row_ns[i]) {
            if (j < 3) worst[j] = worst[j - 1];
            j--;
        }
        if (j < 3) worst[j] = i;
    }
    char label[3][400], nr[200];
    top3 top = {0};
    int shapes = gk_shapes(in, set, &top, label); /* the shapes furthest below the peak, else the operators */
    launches_named(in, set, 0, nr, sizeof nr);
    snprintf(note + strlen(note), sizeof note - strlen(note), "%s", nr);
    spill_free(set);
    for (int j = 0; !shapes && j < nw; j++) {
        const tab_op *w = &in->ops[worst[j]];
        snprintf(label[j], sizeof label[j], "%.300s (%.1f%% of %s peak)", PC_S(w->name, "?"), PC_OR(w->compute_peak_pct, 0), PC_S(w->dtype, "its type's"));
        top_add(&top, label[j], row_ns[worst[j]]);
    }
    spill_free(row_ns);
    cJSON *o = fire(in, r, kclaim(in, stake),
                    "the GPU is busy %s %s (%.0f%% of the %s)%s; kernel time by family: %s; compute-bound kernels %s at %.1f%% of their data type's peak on average, %s at %.0f%% of it%s",
                    c, PER(in), 100 * busy / in->step, in->has_steps ? "step" : "trace", lagw, *fams ? fams : "none over 5%", a, pct, b, 100 * STAKE_GPU_PEAK_SHARE, note);
    uncapped(in, o, give);
    top_put(in, replayed(in, o, rp >= 0), &top, in->nsteps);
}

/* the share of a GEMM operator's own device time in calls with a dimension not divisible by 8 */
static double misaligned_ns(const tab_op *o, int64_t *n) {
    if (o->gemm_not_multiple_of_8 <= 0) return NAN;
    if (!isnan(no_tc_ns(o, &(int64_t){0}))) return NAN; /* on no Tensor Core at all: tensor_cores counted it */
    *n += o->gemm_not_multiple_of_8;
    double calls = o->gemm_calls > 0 ? (double)o->gemm_calls : 1;
    return (o->self_device_ns > 0 ? (double)o->self_device_ns : 0) * (double)o->gemm_not_multiple_of_8 / calls;
}
/* gemm_alignment's change replayed (ns per step; < 0: no graph): the kernels of matrix products
 * with M, N or K not a multiple of 8 (the innermost operator with a FLOP formula around each
 * kernel, flops.c's misaligned) at 3/4 of their time, the estimate's quarter off, not those of
 * SK_TC's set (tensor_cores'), with the step ending when its GPU work ends (stakes_gpu_change). */
static double ga_replayed(const rule_in *in) {
    const pc_trace *t = in->c->t;
    const pc_links *l = &in->c->links;
    const tab_critical_path *cp = PC_REC(in->ps, critical_path);
    if (!t->ngpu || !l->gpu_inner || !l->parent || !cp || !tk_true(cp->present)) return -1;
    float *tc_own, *set = spill_calloc(t->ngpu, sizeof *set);
    const float *tc = stakes_tc(in->c, NULL, &tc_own);
    uint8_t *mis = spill_calloc(t->ncpu ? t->ncpu : 1, 1); /* per CPU op: 0 not read, 1 no, 2 a misaligned GEMM */
    for (size_t g = 0; g < t->ngpu; g++) {
        set[g] = 1;
        if (t->gpu[g].kind != GPU_KERNEL || (tc && tc[g] < 1)) continue;
        int32_t p = l->gpu_inner[g];
        while (p >= 0 && (t->cpu[p].kind != CPU_OP || !t->cpu[p].input_dims || !op_flops_known(strtab_get(&t->strs, t->cpu[p].name)))) p = l->parent[p];
        if (p < 0) continue;
        if (!mis[p]) {
            const pc_cpu_event *e = &t->cpu[p];
            op_args args;
            flops_result fr;
            op_args_parse(&args, strtab_get(&t->strs, e->input_dims), e->input_types ? strtab_get(&t->strs, e->input_types) : NULL,
                          e->concrete ? strtab_get(&t->strs, e->concrete) : NULL);
            mis[p] = op_flops(strtab_get(&t->strs, e->name), &args, NULL, &fr) && fr.is_gemm && fr.misaligned ? 2 : 1;
        }
        if (mis[p] == 2) set[g] = 0.75f;
    }
    dg_change ch = stakes_gpu_change(set);
    double save, v = stakes_replay(in->c, &ch, 1, &save) ? fmax(0, save) : -1;
    spill_free(mis);
    spill_free(set);
    spill_free(tc_own);
    return v;
}
static void gemm_alignment(const rule_in *in, const pc_rule *r) {
    if (!tensor_core_device(in)) return;
    int64_t mis;
    top3 top = {0};
    double mis_ns = ops_measured(in, misaligned_ns, &mis, &top);
    /* without device time (the GPU side not captured) nothing is at stake: no finding */
    if (mis <= 0 || mis_ns <= 0) return;
    char note[400];
    double want = mis_ns / in->nsteps / 4, stake = gpu_capped(in, want, ga_replayed(in), "with those kernels at 3/4 of their time", note, sizeof note);
    cJSON *o = fire(in, r, kclaim(in, stake), "%lld GEMM calls with a dimension not divisible by 8%s", (long long)mis, note);
    uncapped(in, o, want);
    top_put(in, o, &top, in->nsteps);
}

/* non-cuDNN convolutions' time (device, else CPU); their calls counted */
static double slow_conv_ns(const tab_op *o, int64_t *n) {
    const char *nm = o->name ? o->name : "";
    if (!strstr(nm, "thnn_conv") && !strstr(nm, "slow_conv")) return NAN;
    *n += o->calls > 0 ? o->calls : 0;
    return (double)(o->device_total_ns > 0 ? o->device_total_ns : o->cpu_total_ns > 0 ? o->cpu_total_ns : 0);
}
static void no_cudnn(const rule_in *in, const pc_rule *r) {
    int64_t n;
    top3 top = {0};
    double slow = ops_measured(in, slow_conv_ns, &n, &top);
    if (n <= 0) return;
    char a[64], note[400] = "";
    units_ns(a, sizeof a, slow / in->nsteps);
    double want = slow / in->nsteps / 2, dev = 0;
    for (size_t i = 0; i < in->nops; i++) dev += isnan(slow_conv_ns(&in->ops[i], &(int64_t){0})) ? 0 : (double)in->ops[i].device_total_ns;
    /* on the GPU (device time): a change that only shortens kernels; on the CPU: host work, as measured */
    double stake = dev > 0 ? gpu_capped(in, want, rules_gpu_ceiling(in), "with every kernel taking no time", note, sizeof note) : want;
    cJSON *o = fire(in, r, stake, "%lld calls of non-cuDNN convolutions, %s %s%s", (long long)n, a, PER(in), note);
    uncapped(in, o, want);
    top_put(in, o, &top, in->nsteps);
}

static void pageable_memcpy(const rule_in *in, const pc_rule *r) {
    const pc_table *xt = PC_TAB(in->ps, transfer);
    for (size_t i = 0; xt && i < xt->n; i++) {
        const tab_transfer *x = &TAB_ROWS(xt, transfer)[i];
        if (strcmp(PC_S(x->source_memory, ""), "Pageable") && !strstr(PC_S(x->kind, ""), "-> Pageable")) continue;
        char a[64];
        double tot = PC_OR(x->total_ns, 0);
        double cnt = PC_OR(x->count, 0);
        if (in->has_steps) { /* a step's copies are its own (#32 class 2): those starting in a step's window */
            const pc_trace *t = in->c->t;
            double st = 0, sc = 0, all = 0;
            for (size_t g = 0; g < t->ngpu; g++) {
                const pc_gpu_event *e = &t->gpu[g];
                if (e->kind != GPU_MEMCPY) continue;
                char label[96];
                snprintf(label, sizeof label, "Memcpy %s (%s -> %s)", pc_copy_name[e->copy_kind < COPY_N ? e->copy_kind : 0],
                         pc_mem_name[e->src_mem < MEM_N ? e->src_mem : 0], pc_mem_name[e->dst_mem < MEM_N ? e->dst_mem : 0]);
                if (strcmp(label, PC_S(x->kind, ""))) continue;
                all++;
                if (step_index(in->c, e->ts) >= 0) st += (double)e->dur, sc++;
            }
            if (all > 0) { /* (a table without its events, as in a summary made elsewhere, is taken whole) */
                if (sc == 0) continue;
                tot = st, cnt = sc;
            }
        }
        units_ns(a, sizeof a, tot / in->nsteps);
        fire(in, r, tot / in->nsteps / 2, "%s: %.0f %s, %s %s at %.1f GB/s", PC_S(x->kind, ""), cnt, cnt == 1 ? "copy" : "copies", a,
             PER(in), PC_OR(x->gbs, 0));
    }
}

/* The blocking call that costs most host time, grouped by name, copy
 * direction, bytes and launching operator (the first 64 groups). */
static int ivl_cmp(const void *a, const void *b) {
    const ivl *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}
typedef struct sync_group { uint32_t name, op; uint8_t src, dst; int64_t bytes; double ns; } sync_group;

/* sync_in_step's state: the GPU's busy intervals, per host call the
 * pageable copy it launched, the blocking calls counted (their time, by
 * name, by group) and their intervals, and the refill gaps after them. */
typedef struct si_pass {
    ivl *busy, *blk, *refill;
    size_t nbusy, capb, nblk, capk, nref, capr;
    int32_t *copy_of;       /* per call: the pageable copy it launched, or -1 */
    double sync_ns;
    int64_t n, n_pageable;
    by_name calls;
    sync_group grp[64];
    int ngrp;
} si_pass;

/* The GPU's side: its busy intervals (kernels, copies, memsets, merged)
 * and, per host call, the copy with a pageable side it launched. */
static void si_gpu_side(const pc_trace *t, const pc_links *l, si_pass *p) {
    p->copy_of = spill_alloc((t->ncpu ? t->ncpu : 1) * sizeof *p->copy_of);
    for (size_t i = 0; i < t->ncpu; i++) p->copy_of[i] = -1;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind == GPU_MEMCPY && (e->src_mem == MEM_PAGEABLE || e->dst_mem == MEM_PAGEABLE) && l->gpu_launch && l->gpu_launch[g] >= 0)
            p->copy_of[l->gpu_launch[g]] = (int32_t)g;
        if ((e->kind == GPU_KERNEL || e->kind == GPU_MEMCPY || e->kind == GPU_MEMSET) && e->dur > 0)
            ivl_append_sorted(&p->busy, &p->nbusy, &p->capb, e->ts, e->ts + e->dur);
    }
}

/* Blocking call i into its group (name, the copy's direction and bytes,
 * the operator it was called in: the first 64 groups), and its interval
 * with the refill gap after it (the GPU idle at the call's end until its
 * next work starts). */
static void si_call(const rule_in *in, si_pass *p, size_t i) {
    const pc_trace *t = in->c->t;
    const pc_links *l = &in->c->links;
    const pc_cpu_event *e = &t->cpu[i];
    const pc_gpu_event *cp = p->copy_of[i] >= 0 ? &t->gpu[p->copy_of[i]] : NULL;
    int32_t op = l->parent ? links_op_outer(t, l, (int32_t)i, 0) : -1;
    sync_group key = {e->name, op >= 0 ? t->cpu[op].name : 0, cp ? cp->src_mem : 0, cp ? cp->dst_mem : 0,
                      cp && cp->bytes != PC_NONE ? cp->bytes : -1, 0};
    int k = 0;
    sync_group *grp = p->grp;
    while (k < p->ngrp && (grp[k].name != key.name || grp[k].op != key.op || grp[k].src != key.src || grp[k].dst != key.dst || grp[k].bytes != key.bytes)) k++;
    if (k == p->ngrp && p->ngrp < 64) grp[p->ngrp++] = key;
    if (k < p->ngrp) grp[k].ns += (double)e->dur;
    if (e->dur <= 0) return;
    ivl c = {e->ts, e->ts + e->dur};
    *SPILL_PUSH(p->blk, p->nblk, p->capk) = c;
    size_t lo = 0, hi = p->nbusy; /* the first busy interval starting after the end */
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (p->busy[m].s <= c.e) lo = m + 1;
        else hi = m;
    }
    if (lo < p->nbusy && !(lo > 0 && p->busy[lo - 1].e > c.e)) *SPILL_PUSH(p->refill, p->nref, p->capr) = (ivl){c.e, p->busy[lo].s};
}

/* The blocking calls in the steps' spans (host calls belong to spans):
 * synchronizing calls by name, and calls that launched a pageable copy; a
 * trace without CUDA calls (the GPU side not captured) still shows .item()
 * / .cpu(): aten::_local_scalar_dense waits for the GPU; with CUDA calls,
 * the call inside it is counted. */
static void si_calls(const rule_in *in, si_pass *p) {
    const pc_trace *t = in->c->t;
    uint8_t *is_sync = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: 0 unknown, 1 no, 2 yes */
    int have_api = t->count_cpu[CPU_RUNTIME] + t->count_cpu[CPU_DRIVER] > 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        int scalar_op = !have_api && e->kind == CPU_OP && !strcmp(strtab_get(&t->strs, e->name), "aten::_local_scalar_dense");
        if (e->kind != CPU_RUNTIME && e->kind != CPU_DRIVER && !scalar_op) continue;
        const char *nm = strtab_get(&t->strs, e->name);
        if (!is_sync[e->name]) is_sync[e->name] = scalar_op || rule_is_sync_call(nm) ? 2 : 1;
        if ((is_sync[e->name] != 2 && p->copy_of[i] < 0) || step_span_index(in->c, e->ts) < 0) continue;
        p->sync_ns += (double)e->dur;
        p->n++;
        p->n_pageable += is_sync[e->name] != 2;
        by_name_add(&p->calls, e->name, (double)e->dur);
        si_call(in, p, i);
    }
    spill_free(is_sync);
    assert(p->n_pageable <= p->n && p->ngrp <= 64);
}

/* Of the idle inside the calls (idle[0..nidle)), what ends with GPU work
 * launched before it began, inside the windows: queued before, it runs no
 * sooner when the host stops waiting (events sorted by start). */
static double si_queued(const rule_in *in, const ivl *idle, size_t nidle) {
    const pc_trace *t = in->c->t;
    const pc_links *l = &in->c->links;
    double queued_ns = 0;
    for (size_t k = 0; l->gpu_launch && k < nidle; k++) {
        size_t lo = 0, hi = t->ngpu;
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (t->gpu[m].ts < idle[k].e) lo = m + 1;
            else hi = m;
        }
        while (lo < t->ngpu && t->gpu[lo].kind != GPU_KERNEL && t->gpu[lo].kind != GPU_MEMCPY && t->gpu[lo].kind != GPU_MEMSET) lo++;
        if (lo >= t->ngpu) continue;
        int32_t L = l->gpu_launch[lo];
        if (L < 0 || t->cpu[L].ts < idle[k].s)
            for (size_t s = 0; s < in->c->nsteps; s++) queued_ns += (double)ivl_clip_sum(&idle[k], 1, in->c->steps[s].start, in->c->steps[s].end);
    }
    return queued_ns;
}

/* The GPU idle the calls cause, inside the steps' windows: *idle_ns the
 * idle inside the calls united with the refill gaps, *in_ns the idle
 * inside the calls alone, *queued_ns of it, ending with work queued before
 * it (si_queued). Without GPU work (or calls) the host time blocked stands
 * in. After: the idle inside the calls within all of it. */
static void si_idle(const rule_in *in, si_pass *p, double *idle_ns, double *in_ns, double *queued_ns) {
    *idle_ns = *in_ns = *queued_ns = 0;
    if (!p->nbusy || !p->nblk) {
        *idle_ns = p->sync_ns;
        return;
    }
    spill_sort(p->blk, p->nblk, sizeof *p->blk, ivl_cmp);
    spill_sort(p->refill, p->nref, sizeof *p->refill, ivl_cmp);
    ivl *mb = NULL, *mr = NULL, *idle = NULL, *all = NULL;
    size_t nmb = 0, capmb = 0, nmr = 0, capmr = 0;
    for (size_t i = 0; i < p->nblk; i++) ivl_append_sorted(&mb, &nmb, &capmb, p->blk[i].s, p->blk[i].e);
    for (size_t i = 0; i < p->nref; i++) ivl_append_sorted(&mr, &nmr, &capmr, p->refill[i].s, p->refill[i].e);
    size_t nidle = ivl_subtract(mb, nmb, p->busy, p->nbusy, &idle);
    size_t nall = ivl_union2(idle, nidle, mr, nmr, &all);
    for (size_t s = 0; s < in->c->nsteps; s++) {
        *idle_ns += (double)ivl_clip_sum(all, nall, in->c->steps[s].start, in->c->steps[s].end);
        *in_ns += (double)ivl_clip_sum(idle, nidle, in->c->steps[s].start, in->c->steps[s].end);
    }
    assert(*in_ns <= *idle_ns); /* per step the idle's part within all's, and rounding is monotone */
    *queued_ns = si_queued(in, idle, nidle);
    spill_free(mb);
    spill_free(mr);
    spill_free(idle);
    spill_free(all);
}

/* "; most: ..." the group of most time: its call, the copy's direction
 * and bytes, the operator, its time per step (empty without groups). */
static void si_most(const rule_in *in, const si_pass *p, char *most, size_t cap) {
    const pc_trace *t = in->c->t;
    int best = -1;
    for (int k = 0; k < p->ngrp; k++)
        if (best < 0 || p->grp[k].ns > p->grp[best].ns) best = k;
    if (best < 0) return;
    const sync_group *g = &p->grp[best];
    char dir[64] = "", by[48] = "", op[200] = "", d[64];
    if (g->src || g->dst) snprintf(dir, sizeof dir, " %s->%s", pc_mem_name[g->src < MEM_N ? g->src : 0], pc_mem_name[g->dst < MEM_N ? g->dst : 0]);
    if (g->bytes >= 0) snprintf(by, sizeof by, ", %lld B", (long long)g->bytes);
    if (g->op) snprintf(op, sizeof op, ", in %.160s", strtab_get(&t->strs, g->op));
    units_ns(d, sizeof d, g->ns / in->nsteps);
    snprintf(most, cap, "; most: %.100s%s%s%s: %s %s", strtab_get(&t->strs, g->name), dir, by, op, d, PER(in));
}

/* The note on the replayed saving rp (ns per step) against the idle per
 * step: when the replay gives back much less, why (the idle is inside work
 * queued before the calls, or it is mostly the refill), else the replay's
 * own note. */
static void si_note(const rule_in *in, char *note, size_t cap, double rp, double idle_ns, double in_ns, double queued_ns) {
    double idle = idle_ns / in->nsteps;
    char e[64];
    units_ns(e, sizeof e, rp);
    if (idle > 0.01 * in->step && rp < 0.5 * idle && queued_ns >= 0.5 * idle_ns)
        snprintf(note, cap, "; the replay finds that idle inside work queued before the calls (the GPU waits on it whether or not the host blocks), so removing the waits gives back %s %s", e, PER(in));
    else if (idle > 0.01 * in->step && rp < 0.5 * idle && in_ns < 0.5 * idle_ns)
        snprintf(note, cap, "; most of that idle is the refill, the host's own work after the calls, which it still does without the waits: removing them gives back %s %s", e, PER(in));
    else replay_note(note, cap, in, "without the waits", rp);
}

/* Synchronizing calls by name, and asynchronous copies that block all the
 * same: a cudaMemcpyAsync whose copy has a pageable side returns only once
 * the copy is done, so the host waits for everything queued before it.
 * At stake: only the GPU idle they cause (#32): per step, the time inside
 * their intervals when no kernel, copy or memset runs on the GPU, plus the
 * refill gap after each (from its end to the next GPU work's start, when the
 * GPU is idle at its end), united so no instant counts twice, inside the
 * steps' windows. A blocking call while the GPU is busy costs nothing: the
 * GPU had work. Without any GPU work in the trace (the GPU side not captured)
 * the host time blocked stands in. Without steps the one window is the
 * whole trace: every call counts. In phases: the GPU's side, the calls, the
 * idle, then the finding (its stake the replayed saving when the calls no
 * longer wait, else the idle). */
static void sync_in_step(const rule_in *in, const pc_rule *r) {
    si_pass p = {0};
    si_gpu_side(in->c->t, &in->c->links, &p);
    si_calls(in, &p);
    top3 top = {0};
    by_name_top(&p.calls, in->c->t, &top);
    spill_free(p.copy_of);
    double idle_ns, in_ns, queued_ns;
    si_idle(in, &p, &idle_ns, &in_ns, &queued_ns);
    spill_free(p.busy);
    spill_free(p.blk);
    spill_free(p.refill);
    if (p.n <= 0) return;
    char a[64], b[64], most[512] = "";
    units_ns(a, sizeof a, p.sync_ns / in->nsteps);
    units_ns(b, sizeof b, idle_ns / in->nsteps);
    si_most(in, &p, most, sizeof most);
    char pg[96] = "", note[320] = "";
    if (p.n_pageable) snprintf(pg, sizeof pg, " (%lld of them asynchronous copies to or from pageable memory)", (long long)p.n_pageable);
    double rp = p.nbusy ? rules_replayed(in, SK_SYNC) : -1, idle = idle_ns / in->nsteps;
    if (rp >= 0) si_note(in, note, sizeof note, rp, idle_ns, in_ns, queued_ns);
    top_put(in, replayed(in, fire(in, r, hclaim(in, rp >= 0 ? rp : idle), "%lld synchronizing calls%s, %s %s blocked; the GPU idle %s %s in them and in the refill after them%s%s",
                     (long long)p.n, pg, a, PER(in), b, PER(in), most, note), rp >= 0), &top, in->nsteps);
}

/* The collective kernels' time inside the steps' windows, by name, into top:
 * the time the stake counts (communication.nccl_ns is the same union per
 * window), not work the GPU ran before the first window (queued before the
 * capture: steps.c, trace_backlog) or between windows. Each kernel is
 * clipped to the windows it runs in (sorted, disjoint); the sums are kept
 * per string id (every name, however many). */
static void comm_in_windows(const rule_in *in, top3 *top) {
    const an_ctx *c = in->c;
    const pc_trace *t = c->t;
    double *by_id = spill_calloc(t->strs.n ? t->strs.n : 1, sizeof *by_id);
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL || e->name >= t->strs.n || !name_is_nccl(strtab_get(&t->strs, e->name))) continue;
        int64_t end = e->ts + e->dur, in_ns = 0;
        long si = step_index(c, e->ts);
        for (size_t j = si >= 0 ? (size_t)si : 0; j < c->nsteps && c->steps[j].start < end; j++) {
            int64_t lo = e->ts > c->steps[j].start ? e->ts : c->steps[j].start, hi = end < c->steps[j].end ? end : c->steps[j].end;
            if (hi > lo) in_ns += hi - lo;
        }
        assert(in_ns >= 0 && in_ns <= e->dur);
        by_id[e->name] += (double)in_ns;
    }
    for (size_t id = 0; id < t->strs.n; id++)
        if (by_id[id] > 0) top_add(top, strtab_get(&t->strs, (uint32_t)id), by_id[id]);
    spill_free(by_id);
}

static void communication(const rule_in *in, const pc_rule *r) {
    const tab_communication *cm = PC_REC(in->ps, communication);
    if (!tk_true(cm->present)) return;
    double pct = PC_OR(cm->pct_of_step, 0), ov = PC_OR(cm->overlap_pct, 100);
    if (pct <= 10 && ov >= 50) return;
    double exposed = (PC_OR(cm->nccl_ns, 0) - PC_OR(cm->overlap_ns, 0)) / in->nsteps;
    char a[64];
    units_ns(a, sizeof a, exposed);
    top3 top = {0};
    comm_in_windows(in, &top);
    top_put(in, fire(in, r, exposed, "NCCL %.1f%% of step time, %.0f%% overlapped; %s exposed %s", pct, ov, a, PER(in)), &top, in->nsteps);
}

static void memory_peak(const rule_in *in, const pc_rule *r) {
    const tab_memory_device *m;
    for (size_t i = 0; (m = PC_REC_AT(in->ps, memory_device, i)); i++) {
        double pct = PC_OR(m->peak_reserved_pct, 0);
        if (pct > 90) fire(in, r, -1, "device %d peak %.1f%% of its memory", (int)PC_OR(m->id, 0), pct);
    }
}

/* on the profiler's own step spans when the trace has them: a GPU that lags
 * behind the host stretches the windows, not the steps */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void step_variance(const rule_in *in, const pc_rule *r) {
    if (!in->has_steps || in->c->nsteps < 3) return;
    const tab_steps *st = PC_REC(in->ps, steps);
    int spans = !PC_IS_NULL(st->span_median_ns);
    double mx = PC_OR(spans ? st->span_max_ns : st->max_ns, 0), cv = PC_OR(spans ? st->span_cv_pct : st->cv_pct, 0);
    double med = spans ? PC_OR(st->span_median_ns, 0) : in->step_med, mean = in->step;
    if (spans) {
        tk_V sp = st->span_durations_ns;
        double sum = 0, n = 0;
        for (int64_t i = 0; i < sp.n; i++)
            if (isfinite(sp.v[i])) sum += sp.v[i], n++;
        mean = n > 0 ? sum / n : 0;
    }
    if (med <= 0 || (mx <= 1.5 * med && cv <= 10)) return;
    /* steps shorter than the median (a first step cut by the profiler's start) spread the steps
     * but cost nothing: only slow steps, which pull the mean above the median, are at stake */
    if (mean <= med) return;
    char a[64], b[64], d[64];
    units_ns(a, sizeof a, mx);
    units_ns(b, sizeof b, med);
    units_ns(d, sizeof d, mean - med);
    /* slow steps that are slow waiting for data: their excess is the data wait data_loading already
     * counts per step (its mean holds the slow steps' waits), so this row overlaps that one (#32) */
    const char *ov = NULL;
    char why[160] = "";
    const pc_table *rows = PC_TAB(in->ps, step);
    const tab_suggestion *fsg;
    int dl_fired = 0;
    for (size_t i = 0; (fsg = PC_REC_AT(in->ps, suggestion, i)); i++)
        if (!strcmp(PC_S(fsg->rule, ""), "data_loading")) dl_fired = 1;
    if (dl_fired && rows && rows->n >= 3) {
        double *w = malloc(rows->n * sizeof *w), wsum = 0;
        if (!w) abort();
        for (size_t k = 0; k < rows->n; k++) wsum += w[k] = PC_OR(TAB_ROWS(rows, step)[k].data_wait_ns, 0);
        qsort(w, rows->n, sizeof *w, cmp_double);
        double wmed = rows->n % 2 ? w[rows->n / 2] : (w[rows->n / 2 - 1] + w[rows->n / 2]) / 2, wx = wsum / (double)rows->n - wmed;
        free(w);
        if (wx >= 0.5 * (mean - med)) {
            char e[64];
            units_ns(e, sizeof e, wx);
            ov = "data_loading";
            snprintf(why, sizeof why, "; the slow steps wait for data (the data wait's mean exceeds its median by %s)", e);
        }
    }
    cJSON *o = fire(in, r, mean - med, "slowest step %s vs median %s; coefficient of variation %.1f%% (mean exceeds median by %s)%s", a,
                    b, cv, d, why);
    tab_suggestion *sg = ov ? pc_summary_record_in(in->ps, o, TAB_suggestion) : NULL;
    if (sg) sg->overlaps = ov;
}

static void cpu_busy(const rule_in *in, const pc_rule *r) {
    if (!tk_true(PC_REC(in->ps, cpu)->present)) return;
    const tab_cpu_average *avg = PC_REC(in->ps, cpu_average);
    double sys = PC_OR(avg->system, 0), user = PC_OR(avg->user, 0);
    if (user + sys > 80) fire(in, r, -1, "average user %.0f%%, system %.0f%%", user, sys);
}

const char *rules_mark_steps(int program) {
    switch (program) {
    case PROG_PYTORCH: return "torch.profiler.profile(schedule=...) and prof.step() each iteration, perfcard's step markers";
    case PROG_MINDSPORE:
        return "MindSpore's Profiler: train with dataset_sink_mode=True so that its step trace (step_trace_raw_N_detail_time.csv) or its "
               "timeline's Steps lane marks every step, and start it after warm-up (Profiler(start_profile=False), then profiler.start() "
               "and profiler.stop() in a Callback's step_begin and step_end)";
    default:
        return "an NVTX range around each iteration named perfcard.step#N (nvtxRangePushA and nvtxRangePop in C, C++ or Fortran, "
               "nvtx.annotate in Python), perfcard_step_begin() and perfcard_step_end() under perfcard capture (include/perfcard.h)";
    }
}

const pc_rule pc_rules[] = {
#define RULE(id, fw, check, title, threshold, why, try_, try_pt, try_ms, try_cu, source, stake) {#id, fw, title, threshold, why, try_, try_pt, try_ms, try_cu, source, stake, check},
#include "rules.def"
#undef RULE
    {NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
