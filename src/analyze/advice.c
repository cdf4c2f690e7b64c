/* Overview and suggestions.
 *
 * The overview gathers the headline figures of the other sections. The
 * suggestions come from the rules table (rules.c): each rule has a name, a
 * threshold stated in words, the evidence that triggered it (numbers), why it
 * matters, what to try, and an estimate of the time at stake per step; the
 * engine here runs every rule that applies to the trace's framework and ranks
 * what fired by that estimate (rules without one come last). Thresholds come
 * from the tools that proved them: PyTorch's TensorBoard plugin, MindInsight,
 * Holistic Trace Analysis, Nsight Systems' expert rules, PyProf. */
#include "rules.h"
#include "stakes.h"
#include "advice_fit.h"
#include "../util/units.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include "../util/spill.h"
#include "../summary/summary.h"
#include <stdlib.h>
#include <string.h>

/* The order of the suggestions (#32): by tier, then by time at stake.
 * Tier 0: rows holding 1% of the step or more (every row with a stake when
 * the step is unknown); tier 1: rows without an estimate; tier 2: rows under
 * 1% of the step, which never take a place before a row that matters. In
 * tier 0 a symptom (gpu_utilization: idle that no cause explained; queued_idle:
 * idle the trace cannot explain, #44) comes after
 * every major cause of GPU idle, one of the rules that claim from the GPU-free
 * pool before it (rules.def) holding 10% of the step or more (host_wait's and
 * host_phase's own threshold), whatever the stakes: such a cause names what
 * the idle is and what to change, the symptom only that the GPU waits; a
 * minor cause does not push a large residual idle down.
 * Equal stakes (the same cap binding both: a GPU-bound step's margin over the
 * host, #45 hf-qwen15-h100-infer) rank by what each fix gives back uncapped
 * (rule_in.unc), the larger first: that fix alone reaches the cap with more to
 * spare; then by rule id, so the order is reproducible. */
typedef struct fired { cJSON *item; tab_suggestion *rec; int tier; double uncapped; } fired;
static int is_idle_cause(const char *rule) {
    static const char *const causes[] = {"data_loading", "empty_queue", "pipeline_bottleneck", "sync_in_step", "startup", "host_phase",
                                         "small_kernels", "iteration_interval", "host_wait", NULL};
    for (int i = 0; causes[i]; i++)
        if (!strcmp(rule, causes[i])) return 1;
    return 0;
}
static int cmp_stake(const void *a, const void *b) {
    const fired *fa = a, *fb = b;
    const tab_suggestion *x = fa->rec, *y = fb->rec;
    if (fa->tier != fb->tier) return fa->tier < fb->tier ? -1 : 1;
    double p = PC_OR(x->at_stake_ns, -1), q = PC_OR(y->at_stake_ns, -1);
    if (p != q) return p > q ? -1 : 1;
    if (fa->uncapped != fb->uncapped) return fa->uncapped > fb->uncapped ? -1 : 1;
    return strcmp(PC_S(x->rule, ""), PC_S(y->rule, ""));
}

/* The change of the fixes whose kinds are in mask (1 << SK_*), made together:
 * the flags, the host floor, per GPU event the smallest factor of the sets
 * (sets[k]: SK_TC's, SK_MB's, SK_GPU's, SK_ATTN's, NULL for none); *scale is what the
 * caller spill_frees. gpu_ends: the step ends with its GPU work (SK_GPU's
 * measure, set for every prefix when any row is gpu_kernels, so that the
 * rows' steps are of one kind). */
static dg_change wf_change(const an_ctx *c, int mask, const float *const sets[SK_N], int keep_phases, int gpu_ends, float **scale) {
    dg_change ch = {.no_sync_wait = !!(mask & 1 << SK_SYNC), .no_data_wait = !!(mask & 1 << SK_DATA),
                    .host_floor_ns = mask & 1 << SK_HOST ? STAKE_HOST_FLOOR_NS : 0, .keep_phases = keep_phases, .gpu_ends_step = gpu_ends};
    *scale = NULL;
    static const int scaled_k[] = {SK_TC, SK_MB, SK_GPU, SK_ATTN};
    for (int i = 0; i < 4; i++) {
        const float *f = mask & 1 << scaled_k[i] ? sets[scaled_k[i]] : NULL;
        if (!f) continue;
        if (!*scale) {
            *scale = spill_alloc(c->t->ngpu * sizeof **scale);
            memcpy(*scale, f, c->t->ngpu * sizeof **scale);
        } else
            for (size_t g = 0; g < c->t->ngpu; g++) (*scale)[g] = f[g] < (*scale)[g] ? f[g] : (*scale)[g];
    }
    ch.scale = *scale;
    return ch;
}

/* The top three findings' changes in one replay (#37; pre, when not NaN:
 * that replay's saving, made in the waterfall's pass): findings_combined,
 * when two or more of the three have replayed stakes. The changes are
 * united: the flags, the host floor, and per GPU event the smaller of the
 * Tensor Core and memory-bound factors. */
static void combined(const rule_in *in, const fired *items, int n, cJSON *adv, double pre) {
    const char *rules[3], *est[3];
    int nr = 0, ne = 0, kinds = 0;
    double sum = 0;
    for (int i = 0; i < n && i < 3; i++) {
        const tab_suggestion *sg = items[i].rec;
        const char *id = PC_S(sg->rule, "");
        if (PC_IS_NULL(sg->at_stake_ns)) continue;
        int k = rules_change_of(id);
        /* each one's own replayed saving: its stake before the pools cap it (its evidence says it) */
        if (k >= 0 && !strcmp(PC_S(sg->stake_source, ""), "replay")) rules[nr++] = id, kinds |= 1 << k, sum += fmax(0, rules_replayed(in, k));
        else est[ne++] = id;
    }
    if (nr < 2) return;
    const an_ctx *c = in->c;
    double save = pre;
    int ok = !isnan(pre); /* the waterfall's pass replayed it */
    if (!ok) {
        float *own[SK_N] = {0}, *scale;
        const float *sets[SK_N] = {0};
        if (kinds & 1 << SK_TC) sets[SK_TC] = stakes_tc(c, NULL, &own[SK_TC]);
        if (kinds & 1 << SK_MB) sets[SK_MB] = own[SK_MB] = stakes_mb_set(c, in->ps);
        if (kinds & 1 << SK_GPU) sets[SK_GPU] = own[SK_GPU] = stakes_gpu_set(c, in->ps, NULL, NULL, NULL);
        if (kinds & 1 << SK_ATTN) sets[SK_ATTN] = own[SK_ATTN] = stakes_attn_set(c, in->ps);
        dg_change ch = wf_change(c, kinds, sets, *in->keep_phases, !!(kinds & 1 << SK_GPU), &scale);
        ok = stakes_replay(c, &ch, 1, &save);
        spill_free(scale);
        for (int k = 0; k < SK_N; k++) spill_free(own[k]);
    }
    if (!ok) return;
    if (save < 0) save = 0;
    tab_findings_combined *fc = PC_ADD_REC(in->ps, sj_obj(adv, "findings_combined"), findings_combined);
    char list[256] = "", left[256] = "";
    for (int i = 0; i < nr; i++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "", rules[i]);
    for (int i = 0; i < ne; i++) snprintf(left + strlen(left), sizeof left - strlen(left), "%s%s", i ? "," : "", est[i]);
    fc->rules = pc_summary_utf8(in->ps, list);
    if (ne) fc->left_out = pc_summary_utf8(in->ps, left);
    fc->saving_ns = pc_figure(save);
    if (in->step > 0) fc->saving_pct = pc_figure(100 * save / in->step);
    fc->sum_of_stakes_ns = pc_figure(sum);
    /* the sentence: whether the savings overlap, add up or more than add up (within 1% of the step, or 0.1 ms) */
    char a[64], b[64], pct[48] = "", what[64], sentence[640];
    units_ns(a, sizeof a, save);
    units_ns(b, sizeof b, sum);
    if (in->step > 0) snprintf(pct, sizeof pct, " (%.1f%%)", 100 * save / in->step);
    if (nr == 3) snprintf(what, sizeof what, "the top 3");
    else snprintf(what, sizeof what, "%s and %s", rules[0], rules[1]);
    double tol = fmax(1e5, in->step > 0 ? 0.01 * in->step : 0);
    const char *per = in->has_steps ? "per step" : "in the trace";
    if (save < sum - tol)
        snprintf(sentence, sizeof sentence, "Fixing %s together gives back %s %s%s, not the %s their stakes add up to: they overlap.", what, a, per, pct, b);
    else if (save > sum + tol)
        snprintf(sentence, sizeof sentence, "Fixing %s together gives back %s %s%s, more than the %s their stakes add up to: one fix lets the other give back more.", what, a, per, pct, b);
    else snprintf(sentence, sizeof sentence, "Fixing %s together gives back %s %s%s, about the %s their stakes add up to: they do not overlap.", what, a, per, pct, b);
    if (ne) snprintf(sentence + strlen(sentence), sizeof sentence - strlen(sentence), " (%s: %s stake is an estimate, not in this replay.)", left, ne == 1 ? "its" : "their");
    fc->sentence = pc_summary_utf8(in->ps, sentence);
}

/* ---- The waterfall (#44 item 5): the top findings' fixes one after another ---- */

/* suggestions.waterfall: the top WF_MAX findings whose stakes are replayed,
 * in rank order; row i replays the fixes of rows 1..i together (one pass
 * over the steps for every prefix: stakes_replay_base), so each row says
 * what its fix adds once those above it are made: a bottleneck that a
 * larger one hides (its stake alone ~0) shows what it gives back after
 * that one is fixed. Nothing with fewer than two such findings. */
#define WF_MAX 5
static void waterfall(const rule_in *in, const fired *items, int n, cJSON *adv, double *comb) {
    int idx[WF_MAX], kind[WF_MAX], nr = 0, mask = 0, top3 = 0; /* top3: the rows among the first three findings */
    *comb = NAN;
    for (int i = 0; i < n && nr < WF_MAX; i++) {
        const tab_suggestion *sg = items[i].rec;
        int k = rules_change_of(PC_S(sg->rule, ""));
        if (k < 0 || PC_IS_NULL(sg->at_stake_ns) || strcmp(PC_S(sg->stake_source, ""), "replay")) continue;
        idx[nr] = i, kind[nr++] = k, mask |= 1 << k, top3 += i < 3;
    }
    if (nr < 2) return;
    const an_ctx *c = in->c;
    float *own[SK_N] = {0};
    const float *sets[SK_N] = {0};
    if (mask & 1 << SK_TC) sets[SK_TC] = stakes_tc(c, NULL, &own[SK_TC]);
    if (mask & 1 << SK_MB) sets[SK_MB] = own[SK_MB] = stakes_mb_set(c, in->ps);
    if (mask & 1 << SK_GPU) sets[SK_GPU] = own[SK_GPU] = stakes_gpu_set(c, in->ps, NULL, NULL, NULL);
    if (mask & 1 << SK_ATTN) sets[SK_ATTN] = own[SK_ATTN] = stakes_attn_set(c, in->ps);
    int gpu_ends = !!(mask & 1 << SK_GPU);
    dg_change ch[WF_MAX + 2];
    float *scale[WF_MAX + 2] = {0};
    int m = 0, top_mask = 0, nch = nr + 1;
    ch[0] = (dg_change){.gpu_ends_step = gpu_ends}; /* the step before any fix */
    for (int i = 0; i < nr; i++) m |= 1 << kind[i], ch[i + 1] = wf_change(c, m, sets, *in->keep_phases, gpu_ends, &scale[i + 1]);
    for (int i = 0; i < top3; i++) top_mask |= 1 << kind[i];
    /* findings_combined's replay (the top three's replayed changes; to the GPU's end when one is
     * gpu_kernels, as its stake) in the same pass: prefix top3's when measured the same way, else
     * one more change */
    int comb_at = -1, comb_gpu = !!(top_mask & 1 << SK_GPU); /* measured to the GPU's end when gpu_kernels is one of them */
    if (top3 >= 2 && comb_gpu == gpu_ends) comb_at = top3;
    else if (top3 >= 2) comb_at = nch, ch[nch] = wf_change(c, top_mask, sets, *in->keep_phases, comb_gpu, &scale[nch]), nch++;
    double save[WF_MAX + 2], base[WF_MAX + 2];
    int ok = stakes_replay_base(c, ch, nch, save, base);
    for (int i = 0; i < nch; i++) spill_free(scale[i]);
    for (int k = 0; k < SK_N; k++) spill_free(own[k]);
    if (!ok) return;
    if (comb_at >= 0) *comb = save[comb_at];
    if (base[0] <= 0) return;
    pc_table *tab = pc_summary_add_table(in->ps, adv, "waterfall", TAB_waterfall);
    double before = base[0], prev = 0;
    for (int i = 0; i < nr; i++) {
        double sv = fmax(prev, save[i + 1]); /* a fix that would cost time after those above adds nothing */
        tab_waterfall *w = tab_push(tab);
        const tab_suggestion *sg = items[idx[i]].rec;
        w->rank = sg->rank;
        w->rule = sg->rule;
        w->step_before_ns = pc_figure(before - prev);
        w->step_ns = pc_figure(before - sv);
        w->adds_ns = pc_figure(sv - prev);
        w->alone_ns = pc_figure(fmax(0, rules_replayed(in, kind[i])));
        w->saving_pct = pc_figure(100 * sv / before);
        assert(w->step_ns <= w->step_before_ns);
        prev = sv;
    }
}

void an_advice(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    const pc_table *optab = PC_TAB(ps, op), *ktab = PC_TAB_AT(ps, kernel, 0);
    rule_in in = {c, optab ? TAB_ROWS(optab, op) : NULL, optab ? optab->n : 0, ktab ? TAB_ROWS(ktab, kernel) : NULL, ktab ? ktab->n : 0,
                  (double)c->nsteps,
                  PC_OR(PC_REC(ps, step_average)->duration_ns, 0), PC_OR(PC_REC(ps, steps)->median_ns, 0), c->step_source != NULL, PROG_CUDA,
                  &(double){rules_gpu_free(ps)}, &(double){rules_kernel_time(ps)}, ps,
                  (double[SK_N]){NAN, NAN, NAN, NAN, NAN, NAN, NAN}, &(int){0}, &(rule_host_gaps){0}, &(double){-1}, NULL,
                  &(double){NAN}, &(rule_uncapped){0}};
    *in.hpool = rules_host_late(ps, in.nsteps);
    /* the section the rules fire into (rules.h): its rows in the order they fire, ranked below */
    cJSON *adv = sj_obj(s, "suggestions");
    tab_suggestions *sr = PC_ADD_REC(ps, adv, suggestions);
    cJSON *rows = sj_arr(adv, "rows");
    advice_fit fit;
    advice_fit_find(c, &fit);
    in.fit = &fit;
    in.program = rules_program(c, ps);
    rules_host_gaps_start(&in); /* on a second thread while the rules before host_phase run */
    for (const pc_rule *r = pc_rules; r->id; r++)
        if (r->fw == FW_ANY || (r->fw == FW_PYTORCH && in.program == PROG_PYTORCH)) r->check(&in, r);
    rules_host_gaps_free(in.hg);
    assert(in.unc->n <= (size_t)cJSON_GetArraySize(rows)); /* one per row, in the order they fired */
    /* rank by time at stake */
    int n = cJSON_GetArraySize(rows);
    fired *items = calloc((size_t)(n ? n : 1), sizeof *items);
    for (int i = 0; i < n; i++) {
        items[i].item = cJSON_DetachItemFromArray(rows, 0);
        items[i].rec = pc_summary_record_in(ps, items[i].item, TAB_suggestion);
        items[i].uncapped = (size_t)i < in.unc->n ? in.unc->ns[i] : -1;
        double st = PC_OR(items[i].rec->at_stake_ns, -1);
        items[i].tier = st < 0 ? 1 : in.step > 0 && 100 * st / in.step < 1 ? 2 : 0;
    }
    spill_sort(items, (size_t)n, sizeof *items, cmp_stake);
    /* a symptom moves down to just after the last major cause of idle in tier 0: gpu_utilization,
     * and queued_idle (idle the trace cannot explain: what to record, not what to change) */
    for (int i = n - 1; i >= 0; i--) {
        const char *id = PC_S(items[i].rec->rule, "");
        if (items[i].tier || (strcmp(id, "gpu_utilization") && strcmp(id, "queued_idle"))) continue;
        int last = i;
        for (int j = i + 1; j < n && !items[j].tier; j++)
            if (is_idle_cause(PC_S(items[j].rec->rule, "")) && in.step > 0 && PC_OR(items[j].rec->at_stake_ns, 0) >= 0.1 * in.step) last = j;
        fired sym = items[i];
        memmove(&items[i], &items[i + 1], (size_t)(last - i) * sizeof *items);
        items[last] = sym;
    }
    sr->count = n;
    static const char *const prog[] = {[PROG_CUDA] = "cuda", [PROG_PYTORCH] = "pytorch", [PROG_MINDSPORE] = "mindspore"};
    sr->program = prog[in.program];
    sr->mark_steps = rules_mark_steps(in.program);
    for (int i = 0; i < n; i++) {
        double st = PC_OR(items[i].rec->at_stake_ns, -1);
        if (st >= 0 && in.step > 0) items[i].rec->at_stake_pct = pc_figure(100 * st / in.step);
        items[i].rec->rank = i + 1;
        cJSON_AddItemToArray(rows, items[i].item);
    }
    double comb;
    waterfall(&in, items, n, adv, &comb);
    combined(&in, items, n, adv, comb);
    free(items);
    spill_free(in.unc->ns);
}

/* Headline figures, each naming the section it comes from, and the one
 * sentence a reader sees first. */
void an_overview(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    cJSON *ovo = sj_obj(s, "overview");
    tab_overview *ov = PC_ADD_REC(ps, ovo, overview);
    ov->has_steps = c->step_source != NULL;
    const tab_steps *st = PC_REC(ps, steps);
    ov->step_median_ns = PC_OR(st->median_ns, 0);
    ov->step_p90_ns = PC_OR(st->p90_ns, 0);
    ov->steps = (int64_t)PC_OR(st->count, 0);
    const tab_gpu_device *d0 = PC_REC_AT(ps, gpu_device, 0);
    if (d0) ov->gpu_utilization_pct = PC_OR(d0->utilization_pct, 0);
    /* where the step goes: the largest breakdown category */
    const pc_table *bk = PC_TAB(ps, bkcat);
    const tab_bkcat *cat = bk ? TAB_ROWS(bk, bkcat) : NULL, *best = NULL;
    size_t ncat = bk ? bk->n : 0;
    for (size_t i = 0; i < ncat; i++)
        if (!best || PC_OR(cat[i].total_ns, 0) > PC_OR(best->total_ns, 0)) best = &cat[i];
    if (best) {
        ov->top_category = best->category;
        ov->top_category_pct = PC_OR(best->pct, 0);
    }
    pc_table *cats = pc_summary_add_table(ps, ovo, "breakdown", TAB_overview_category);
    for (size_t i = 0; i < ncat; i++) {
        if (PC_OR(cat[i].pct, 0) < 0.05) continue;
        tab_overview_category *x = tab_push(cats);
        x->category = cat[i].category;
        x->pct = PC_OR(cat[i].pct, 0);
    }
    const pc_table *types = PC_TAB(ps, optype);
    if (types && types->n) {
        const tab_optype *top = TAB_ROWS(types, optype);
        ov->top_operator = top->type;
        ov->top_operator_pct = pc_figure(top->share_pct);
    }
    const pc_table *kern = PC_TAB_AT(ps, kernel, 0);
    if (kern && kern->n) {
        const tab_kernel *tk = TAB_ROWS(kern, kernel);
        ov->top_kernel = tk->name;
        ov->top_kernel_pct = pc_figure(tk->time_pct);
    }
    const tab_dataloader *dl = PC_REC(ps, dataloader);
    if (tk_true(dl->present)) ov->data_wait_pct = PC_OR(dl->avg_wait_pct, 0);
    const tab_cpu_average *cpu = PC_REC(ps, cpu_average);
    if (tk_true(PC_REC(ps, cpu)->present)) ov->cpu_load_pct = pc_figure(PC_OR(cpu->user, 0) + PC_OR(cpu->system, 0));
    pc_summary_headline(ps);
}
