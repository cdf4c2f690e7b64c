/* diff.c - pc_diff (diff.h): the sides' figures side by side, their verdicts
 * (verdict.h) and the contributors to each change; the tables' rows are
 * paired by diff_match.c. */
#include "diff_match.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../util/fsutil.h"
#include "../util/units.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- side by side figures ---------- */

/* A figure compared side by side (DIFF lines of tables.def): field col of
 * record rec (the first one, for a record under an array: the first device,
 * the first queue); cat >= 0: that breakdown category's mean over kept steps
 * (categories.h) instead; per_step: a trace total divided by its steps. */
typedef struct fig { const char *section, *label; int rec; const char *col; int higher_is_worse, cat, per_step; } fig;
static const fig figs[] = {
/* sizeof: a field the record lacks does not compile */
#define DIFF(rec, field, section, label, worse, per_step) \
    {section, label, TAB_##rec, sizeof(((tab_##rec *)0)->field) ? #field : #field, worse, -1, per_step},
#define DIFF_CATEGORIES() {"breakdown", NULL, -1, NULL, 0, 0, 0}, /* one row per category, from categories.h */
#include "../summary/tables.def"
};

/* a figure's unit as the diff writes it: the field's unit in the registry */
static const char *fig_unit(const fig *f) {
    const pc_col *c = f->rec < 0 ? NULL : tab_col(&pc_table_defs[f->rec], f->col);
    return !c ? "ns" : !strcmp(c->unit, "%") ? "pct" : c->unit;
}

/* a side's value of a figure: the mean over its runs that have it; 0 when none has */
static int side_fig(const pc_diff_side *side, const pc_run_steps *rs, const fig *f, double *out) {
    double sum = 0;
    int n = 0;
    for (int q = 0; q < side->nruns; q++) {
        if (f->cat >= 0) {
            if (!rs[q].cat_rows) continue;
            sum += rs[q].cat_ns[f->cat], n++;
            continue;
        }
        double v;
        if (!pc_summary_field(side->runs[q], f->rec, 0, f->col, &v)) continue;
        sum += f->per_step ? v / pc_steps_of(side->runs[q]) : v, n++;
    }
    *out = n ? sum / n : 0;
    return n > 0;
}

static void add_figure(cJSON *fa, const fig *fi, const pc_diff_side *base, const pc_run_steps *brs, const pc_diff_side *ch,
                       pc_run_steps *const *crs, int nch, const double *floor) {
    double bv, nv;
    int hb = side_fig(base, brs, fi, &bv), any = hb;
    for (int r = 0; r < nch; r++) any |= side_fig(&ch[r], crs[r], fi, &nv);
    if (!any) return;
    cJSON *f = cJSON_CreateObject();
    sj_str(f, "section", fi->section);
    sj_str(f, "figure", fi->label);
    sj_str(f, "unit", fig_unit(fi));
    sj_bool(f, "higher_is_worse", fi->higher_is_worse);
    if (hb) sj_num(f, "base", bv);
    else cJSON_AddNullToObject(f, "base");
    cJSON *fr = sj_arr(f, "runs");
    for (int r = 0; r < nch; r++) {
        cJSON *y = cJSON_CreateObject();
        if (side_fig(&ch[r], crs[r], fi, &nv)) {
            sj_num(y, "new", nv);
            if (hb) {
                sj_num(y, "delta", nv - bv);
                if (bv != 0) sj_num(y, "delta_pct", 100 * (nv - bv) / fabs(bv));
                else cJSON_AddNullToObject(y, "delta_pct");
                sj_bool(y, "within_noise", bv != 0 ? fabs(100 * (nv - bv) / bv) < floor[r] : nv == bv);
            }
        } else cJSON_AddNullToObject(y, "new");
        cJSON_AddItemToArray(fr, y);
    }
    cJSON_AddItemToArray(fa, f);
}

/* ---------- sides, verdicts and contributors ---------- */

/* the side's label: given, or the first input's file name (never a path) */
static void side_label(const pc_diff_side *side, char *out, size_t cap) {
    if (side->label && *side->label) { snprintf(out, cap, "%s", side->label); return; }
    const char *in = side->nruns ? PC_S(PC_REC(side->runs[0], run)->input, "") : "";
    if (side->nruns > 1) snprintf(out, cap, "%.200s (+%d more)", fs_base_name(in), side->nruns - 1);
    else snprintf(out, cap, "%.200s", fs_base_name(in));
}

/* label, inputs (file names), runs, steps, kept steps and the excluded ones */
static void side_json(cJSON *o, const pc_diff_side *side, const pc_run_steps *rs) {
    char lab[256];
    side_label(side, lab, sizeof lab);
    sj_str(o, "label", lab);
    cJSON *in = sj_arr(o, "inputs"), *ex = cJSON_CreateArray();
    int steps = 0, kept = 0;
    for (int q = 0; q < side->nruns; q++) {
        const char *name = fs_base_name(PC_S(PC_REC(side->runs[q], run)->input, ""));
        cJSON_AddItemToArray(in, cJSON_CreateString(name));
        steps += rs[q].n, kept += rs[q].kept;
        for (int k = 0; k < rs[q].nexcl; k++) {
            cJSON *e = cJSON_CreateObject();
            sj_str(e, "input", name);
            sj_int(e, "step", rs[q].excl[k].step);
            sj_str(e, "reason", rs[q].excl[k].reason);
            sj_str(e, "detail", rs[q].excl[k].detail);
            cJSON_AddItemToArray(ex, e);
        }
    }
    sj_int(o, "runs", side->nruns);
    sj_int(o, "steps", steps);
    sj_int(o, "kept_steps", kept);
    cJSON_AddItemToObject(o, "excluded", ex);
}

/* a side's step categories: the mean over its runs that have a breakdown (0 without any) */
static void side_categories(const pc_run_steps *rs, int nruns, double out[BK_N]) {
    int n = 0;
    memset(out, 0, BK_N * sizeof *out);
    for (int q = 0; q < nruns; q++)
        if (rs[q].cat_rows) {
            n++;
            for (int k = 0; k < BK_N; k++) out[k] += rs[q].cat_ns[k];
        }
    for (int k = 0; n && k < BK_N; k++) out[k] /= n;
}

typedef struct contrib { const char *kind, *name; double delta; } contrib;
static int cmp_contrib(const void *a, const void *b) {
    double x = fabs(((const contrib *)a)->delta), y = fabs(((const contrib *)b)->delta);
    return x > y ? -1 : x < y;
}

/* the top 3 entries of a table that moved in the step's direction */
static int top_entries(const table *t, int r, double dir, const char *kind, contrib *out) {
    int n = 0;
    for (size_t i = 0; i < t->n; i++) {
        double d = t->v[i].runs[r] - t->v[i].base;
        if (d * dir <= 0) continue;
        contrib c = {kind, t->v[i].label, d};
        if (n < 3) out[n++] = c;
        else if (fabs(d) > fabs(out[2].delta)) out[2] = c;
        else continue;
        qsort(out, (size_t)n, sizeof *out, cmp_contrib);
    }
    return n;
}

/* contributors[] (kind, name, delta_ns per step, share_pct of the step's
 * change) and the headline sentence */
static void contributors(cJSON *x, const pc_verdict *v, const double *bcat, const double *ncat, const table *tabs[3],
                         const char *const kinds[3], int r) {
    double dstep = v->new_ns - v->base_ns, dir = dstep >= 0 ? 1 : -1;
    contrib c[BK_N + 9];
    int n = 0;
    for (int k = 0; k < BK_N; k++)
        if ((ncat[k] - bcat[k]) * dir > 0) c[n++] = (contrib){"category", pc_bk[k].label, ncat[k] - bcat[k]};
    qsort(c, (size_t)n, sizeof *c, cmp_contrib);
    if (n > 3) n = 3;
    int ncatc = n;
    contrib top[9];
    int nt = 0;
    for (int i = 0; i < 3; i++) nt += top_entries(tabs[i], r, dir, kinds[i], top + nt);
    qsort(top, (size_t)nt, sizeof *top, cmp_contrib);
    if (nt > 3) nt = 3; /* the three largest of kernels, operators and CPU operators together */
    for (int i = 0; i < nt; i++) c[n++] = top[i];
    cJSON *arr = sj_arr(x, "contributors");
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        sj_str(o, "kind", c[i].kind);
        sj_str(o, "name", c[i].name);
        sj_num(o, "delta_ns", c[i].delta);
        if (dstep != 0) sj_num(o, "share_pct", 100 * c[i].delta / dstep);
        else cJSON_AddNullToObject(o, "share_pct");
        cJSON_AddItemToArray(arr, o);
    }
    char h[700], a[32], b[32];
    units_ns(a, sizeof a, dstep);
    int k = snprintf(h, sizeof h, "Step time %+.1f%% (%s%s per step), %s", v->delta_pct, dstep >= 0 ? "+" : "", a, v->verdict);
    if (dstep != 0 && ncatc) {
        units_ns(b, sizeof b, c[0].delta);
        k += snprintf(h + k, sizeof h - (size_t)k, ": %s %s%s (%.0f%% of the change)", c[0].name, c[0].delta >= 0 ? "+" : "", b,
                      100 * c[0].delta / dstep);
    }
    if (dstep != 0 && nt && k < (int)sizeof h) {
        units_ns(b, sizeof b, top[0].delta);
        snprintf(h + k, sizeof h - (size_t)k, "%s%s %.80s%s %s%s (%.0f%%)", ncatc ? "; " : ": ", top[0].kind, top[0].name,
                 strlen(top[0].name) > 80 ? "…" : "", top[0].delta >= 0 ? "+" : "", b, 100 * top[0].delta / dstep);
    }
    sj_str(x, "headline", h);
}

static const char *method_text =
    "Steps kept: all but the first (warm-up), steps with one-off work (names that run in no other step) and extreme "
    "outliers (modified z-score > 3.5 and over 20% from the median). A run's step time is the mean of its kept steps. "
    "With at least 3 runs per side: Welch's t-test on the runs' log step times (p < 0.001), a hierarchical bootstrap 95% "
    "interval (runs, then steps) that excludes 0, and a change of at least the threshold. With fewer runs: the Mann-Whitney test on the kept steps (p < 0.05) and the whole bootstrap "
    "interval beyond the noise floor, or twice the floor when the device's busy time does not carry the change (host "
    "time varies between runs of the same code). Unchanged: the whole interval within the threshold";

cJSON *pc_diff(const pc_diff_side *base, const pc_diff_side *ch, int nch, const pc_diff_opts *o) {
    pc_diff_opts dflt = {{2, 10}, 0};
    if (!o) o = &dflt;
    double thr = o->verdict.threshold_pct > 0 ? o->verdict.threshold_pct : 2;
    double nf = o->verdict.noise_floor_pct > 0 ? o->verdict.noise_floor_pct : 10;
    pc_verdict_opts vo = {thr, nf};
    cJSON *d = cJSON_CreateObject();
    sj_str(d, "schema", PC_DIFF_SCHEMA);
    sj_num(d, "threshold_pct", thr);
    sj_num(d, "noise_floor_pct", nf);
    sj_int(d, "min_runs", PC_MIN_RUNS);
    sj_int(d, "min_steps", PC_MIN_KEPT_STEPS);
    sj_str(d, "method", method_text);
    pc_run_steps *brs = xcalloc((size_t)(base->nruns ? base->nruns : 1), sizeof *brs);
    for (int q = 0; q < base->nruns; q++) pc_run_steps_of(base->runs[q], &brs[q]);
    pc_run_steps **crs = xcalloc((size_t)(nch ? nch : 1), sizeof *crs);
    pc_verdict *v = xcalloc((size_t)(nch ? nch : 1), sizeof *v);
    double *floor = xcalloc((size_t)(nch ? nch : 1), sizeof *floor);
    for (int r = 0; r < nch; r++) {
        crs[r] = xcalloc((size_t)(ch[r].nruns ? ch[r].nruns : 1), sizeof **crs);
        for (int q = 0; q < ch[r].nruns; q++) pc_run_steps_of(ch[r].runs[q], &crs[r][q]);
        pc_verdict_of(brs, base->nruns, crs[r], ch[r].nruns, &vo, &v[r]);
        floor[r] = v[r].multi_run ? thr : nf;
    }
    cJSON *b = sj_obj(d, "base");
    side_json(b, base, brs);
    sj_num(b, "step_ns", nch ? v[0].base_ns : 0);
    /* operators and kernels, matched, per step */
    table ops = {.nruns = nch}, cpu = {.nruns = nch}, ks = {.nruns = nch}, types = {.nruns = nch}, self = {.nruns = nch};
    match_by_name(&ops, base, ch, nch, TAB_op, "name", "device_total_ns");
    match_by_name(&self, base, ch, nch, TAB_op, "name", "self_device_ns"); /* contributors: no time counted twice by nesting */
    match_by_name(&cpu, base, ch, nch, TAB_op, "name", "self_cpu_ns");
    match_by_name(&types, base, ch, nch, TAB_optype, "type", "time_ns");
    match_kernels(&ks, base, ch, nch);
    /* per change: verdict, step time, contributors, headline */
    cJSON *rs = sj_arr(d, "runs");
    int any_reg = 0, any_imp = 0, any_inc = 0;
    double bcat[BK_N];
    side_categories(brs, base->nruns, bcat);
    const table *tabs[3] = {&ks, &self, &cpu};
    static const char *const kinds[3] = {"kernel", "operator", "CPU operator"};
    for (int r = 0; r < nch; r++) {
        cJSON *x = cJSON_CreateObject();
        side_json(x, &ch[r], crs[r]);
        sj_str(x, "verdict", v[r].verdict);
        sj_str(x, "verdict_reason", v[r].reason);
        cJSON *st = sj_obj(x, "step_time");
        sj_str(st, "statistic", "mean of kept steps (per run), mean over runs");
        sj_num(st, "base_ns", v[r].base_ns);
        sj_num(st, "new_ns", v[r].new_ns);
        sj_num(st, "delta_ns", v[r].new_ns - v[r].base_ns);
        sj_num(st, "delta_pct", v[r].delta_pct);
        sj_bool(st, "multi_run", v[r].multi_run);
        sj_str(st, "test", v[r].test ? v[r].test : "");
        if (v[r].has_test) {
            sj_num(st, "p_value", v[r].p);
            sj_num(st, "ci_low_pct", v[r].ci_low_pct);
            sj_num(st, "ci_high_pct", v[r].ci_high_pct);
        } else {
            cJSON_AddNullToObject(st, "p_value");
            cJSON_AddNullToObject(st, "ci_low_pct");
            cJSON_AddNullToObject(st, "ci_high_pct");
        }
        if (v[r].runs_needed) sj_int(x, "runs_needed", v[r].runs_needed);
        else cJSON_AddNullToObject(x, "runs_needed");
        double ncat[BK_N];
        side_categories(crs[r], ch[r].nruns, ncat);
        contributors(x, &v[r], bcat, ncat, tabs, kinds, r);
        const char *vd = v[r].verdict;
        any_reg |= !strcmp(vd, "regressed"), any_imp |= !strcmp(vd, "improved"), any_inc |= !strcmp(vd, "inconclusive");
        cJSON_AddItemToArray(rs, x);
    }
    sj_str(d, "verdict", any_reg ? "regressed" : any_inc ? "inconclusive" : any_imp ? "improved" : "unchanged");
    /* the headline of the worst change: the first regressed, else inconclusive, else the first */
    const cJSON *hx = NULL, *x;
    for (int pass = 0; pass < 3 && !hx; pass++)
        cJSON_ArrayForEach(x, rs) if (!hx && (pass == 2 || !strcmp(sj_getstr(x, "verdict", ""), pass ? "inconclusive" : "regressed"))) hx = x;
    sj_str(d, "headline", hx ? sj_getstr(hx, "headline", "") : "");
    /* sections side by side: the verdict's statistic first */
    cJSON *fa = sj_arr(d, "figures");
    {
        cJSON *f = cJSON_CreateObject();
        sj_str(f, "section", "steps");
        sj_str(f, "figure", "Step time (mean of kept steps; the verdict's statistic)");
        sj_str(f, "unit", "ns");
        sj_bool(f, "higher_is_worse", 1);
        sj_num(f, "base", nch ? v[0].base_ns : 0);
        cJSON *fr = sj_arr(f, "runs");
        for (int r = 0; r < nch; r++) {
            cJSON *y = cJSON_CreateObject();
            sj_num(y, "new", v[r].new_ns);
            sj_num(y, "delta", v[r].new_ns - v[r].base_ns);
            sj_num(y, "delta_pct", v[r].delta_pct);
            sj_bool(y, "within_noise", strcmp(v[r].verdict, "regressed") && strcmp(v[r].verdict, "improved"));
            cJSON_AddItemToArray(fr, y);
        }
        cJSON_AddItemToArray(fa, f);
    }
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) {
        if (figs[i].cat < 0) { add_figure(fa, &figs[i], base, brs, ch, crs, nch, floor); continue; }
        for (int k = 0; k < BK_N; k++) {
            fig f = figs[i];
            f.label = pc_bk[k].per_step, f.higher_is_worse = pc_bk[k].higher_is_worse, f.cat = k;
            add_figure(fa, &f, base, brs, ch, crs, nch, floor);
        }
    }
    cJSON_AddItemToObject(d, "operators", table_json(&ops, nch, o->rows, floor));
    cJSON_AddItemToObject(d, "operators_cpu", table_json(&cpu, nch, o->rows, floor));
    cJSON_AddItemToObject(d, "operator_types", table_json(&types, nch, o->rows, floor));
    cJSON_AddItemToObject(d, "kernels", table_json(&ks, nch, o->rows, floor));
    dtab_free(&ops);
    dtab_free(&cpu);
    dtab_free(&ks);
    dtab_free(&types);
    dtab_free(&self);
    for (int q = 0; q < base->nruns; q++) pc_run_steps_free(&brs[q]);
    for (int r = 0; r < nch; r++) {
        for (int q = 0; q < ch[r].nruns; q++) pc_run_steps_free(&crs[r][q]);
        free(crs[r]);
    }
    free(brs), free(crs), free(v), free(floor);
    return d;
}
