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
#include "../util/spill.h"
#include "../summary/summary.h"
#include <stdlib.h>
#include <string.h>

static int cmp_stake(const void *a, const void *b) {
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    double p = sj_getnum(x, "at_stake_ns", -1), q = sj_getnum(y, "at_stake_ns", -1);
    if (p != q) return p > q ? -1 : 1;
    return strcmp(sj_getstr(x, "rule", ""), sj_getstr(y, "rule", ""));
}

void an_advice(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    const pc_table *optab = pc_summary_table(ps, "operators.rows"), *ktab = pc_summary_table(ps, "kernels.devices.0.rows");
    rule_in in = {c, s, optab ? TAB_ROWS(optab, op) : NULL, optab ? optab->n : 0, ktab ? TAB_ROWS(ktab, kernel) : NULL, ktab ? ktab->n : 0,
                  (double)c->nsteps,
                  PC_OR(PC_REC(ps, step_average)->duration_ns, 0), PC_OR(PC_REC(ps, steps)->median_ns, 0), c->step_source != NULL, 0, 0,
                  cJSON_CreateArray(), &(double){rules_gpu_free(s)},
                  PC_REC(ps, steps), PC_REC(ps, step_average), PC_REC(ps, dataloader), PC_REC(ps, communication)};
    for (size_t i = 0; i < in.nops && !in.pytorch; i++) in.pytorch = in.ops[i].name && !strncmp(in.ops[i].name, "aten::", 6);
    in.mindspore = !strcmp(strtab_get(&c->t->strs, c->t->source_format), "mindspore");
    for (const pc_rule *r = pc_rules; r->id; r++)
        if (r->fw == FW_ANY || (r->fw == FW_PYTORCH && in.pytorch)) r->check(&in, r);
    /* rank by time at stake */
    int n = cJSON_GetArraySize(in.out);
    cJSON **items = calloc((size_t)(n ? n : 1), sizeof *items);
    for (int i = 0; i < n; i++) items[i] = cJSON_DetachItemFromArray(in.out, 0);
    spill_sort(items, (size_t)n, sizeof *items, cmp_stake);
    cJSON *adv = sj_obj(s, "suggestions");
    sj_int(adv, "count", n);
    cJSON *rows = sj_arr(adv, "rows");
    for (int i = 0; i < n; i++) {
        double st = sj_getnum(items[i], "at_stake_ns", -1);
        if (st >= 0 && in.step > 0) sj_num(items[i], "at_stake_pct", 100 * st / in.step);
        sj_int(items[i], "rank", i + 1);
        cJSON_AddItemToArray(rows, items[i]);
    }
    free(items);
    cJSON_Delete(in.out);
}

/* Headline figures, each naming the section it comes from, and the one
 * sentence a reader sees first. */
void an_overview(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    cJSON *ov = sj_obj(s, "overview");
    sj_bool(ov, "has_steps", c->step_source != NULL);
    const tab_steps *st = PC_REC(ps, steps);
    sj_num(ov, "step_median_ns", PC_OR(st->median_ns, 0));
    sj_num(ov, "step_p90_ns", PC_OR(st->p90_ns, 0));
    sj_int(ov, "steps", (int64_t)PC_OR(st->count, 0));
    const cJSON *d0 = sj_get(s, "gpu.devices.0");
    if (d0) sj_num(ov, "gpu_utilization_pct", sj_getnum(d0, "utilization_pct", 0));
    else cJSON_AddNullToObject(ov, "gpu_utilization_pct");
    /* where the step goes: the largest breakdown category */
    const cJSON *cat, *best = NULL;
    cJSON_ArrayForEach(cat, sj_get(s, "breakdown.categories"))
        if (!best || sj_getnum(cat, "total_ns", 0) > sj_getnum(best, "total_ns", 0)) best = cat;
    if (best) {
        sj_str(ov, "top_category", sj_getstr(best, "category", ""));
        sj_num(ov, "top_category_pct", sj_getnum(best, "pct", 0));
    }
    cJSON *cats = sj_arr(ov, "breakdown");
    cJSON_ArrayForEach(cat, sj_get(s, "breakdown.categories")) {
        if (sj_getnum(cat, "pct", 0) < 0.05) continue;
        cJSON *x = cJSON_CreateObject();
        sj_str(x, "category", sj_getstr(cat, "category", ""));
        sj_num(x, "pct", sj_getnum(cat, "pct", 0));
        cJSON_AddItemToArray(cats, x);
    }
    const pc_table *types = pc_summary_table(ps, "operator_types.rows");
    if (types && types->n) {
        const tab_optype *top = TAB_ROWS(types, optype);
        sj_str(ov, "top_operator", top->type);
        sj_num(ov, "top_operator_pct", top->share_pct);
    } else cJSON_AddNullToObject(ov, "top_operator");
    const pc_table *kern = pc_summary_table(ps, "kernels.devices.0.rows");
    if (kern && kern->n) {
        const tab_kernel *tk = TAB_ROWS(kern, kernel);
        sj_str(ov, "top_kernel", tk->name);
        sj_num(ov, "top_kernel_pct", tk->time_pct);
    } else cJSON_AddNullToObject(ov, "top_kernel");
    const tab_dataloader *dl = PC_REC(ps, dataloader);
    if (tk_true(dl->present)) sj_num(ov, "data_wait_pct", PC_OR(dl->avg_wait_pct, 0));
    else cJSON_AddNullToObject(ov, "data_wait_pct");
    if (cJSON_IsTrue(sj_get(s, "cpu.present")))
        sj_num(ov, "cpu_load_pct", sj_getnum(s, "cpu.average.user", 0) + sj_getnum(s, "cpu.average.system", 0));
    else cJSON_AddNullToObject(ov, "cpu_load_pct");
    pc_summary_headline(s);
}
