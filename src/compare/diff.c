/* diff.c - pc_diff (diff.h): the sides' figures side by side, their verdicts
 * (verdict.h) and the contributors to each change; the tables' rows are
 * paired by diff_match.c. */
#include "diff_match.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../util/fsutil.h"
#include "../util/shortname.h"
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

/* the figure's row: NULL when no side has it */
static int add_figure(pc_diff_figure *f, const fig *fi, const pc_diff_side *base, const pc_run_steps *brs, const pc_diff_side *ch,
                      pc_run_steps *const *crs, int nch, const double *floor) {
    double bv, nv;
    int hb = side_fig(base, brs, fi, &bv), any = hb;
    for (int r = 0; r < nch; r++) any |= side_fig(&ch[r], crs[r], fi, &nv);
    if (!any) return 0;
    *f = (pc_diff_figure){fi->section, fi->label, fig_unit(fi), fi->higher_is_worse, hb, hb ? bv : NAN,
                          xcalloc((size_t)(nch ? nch : 1), sizeof *f->runs)};
    for (int r = 0; r < nch; r++) {
        pc_diff_cell *y = &f->runs[r];
        if (!(y->has_new = side_fig(&ch[r], crs[r], fi, &nv))) continue;
        y->new_v = nv;
        if (!hb) continue;
        y->delta = nv - bv;
        y->delta_pct = bv != 0 ? 100 * (nv - bv) / fabs(bv) : NAN;
        y->within_noise = bv != 0 ? fabs(100 * (nv - bv) / bv) < floor[r] : nv == bv;
    }
    return 1;
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
static void side_info(pc_diff_sideinfo *o, const pc_diff_side *side, const pc_run_steps *rs) {
    side_label(side, o->label, sizeof o->label);
    o->inputs = xcalloc((size_t)(side->nruns ? side->nruns : 1), sizeof *o->inputs);
    o->rs = rs;
    o->runs = side->nruns;
    for (int q = 0; q < side->nruns; q++) {
        o->inputs[q] = fs_base_name(PC_S(PC_REC(side->runs[q], run)->input, ""));
        o->steps += rs[q].n, o->kept_steps += rs[q].kept;
    }
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

static int cmp_contrib(const void *a, const void *b) {
    double x = fabs(((const pc_diff_contrib *)a)->delta_ns), y = fabs(((const pc_diff_contrib *)b)->delta_ns);
    return x > y ? -1 : x < y;
}

/* the top 3 entries of a table that moved in the step's direction */
static int top_entries(const table *t, int r, double dir, const char *kind, pc_diff_contrib *out) {
    int n = 0;
    for (size_t i = 0; i < t->n; i++) {
        double d = t->v[i].runs[r] - t->v[i].base;
        if (d * dir <= 0) continue;
        pc_diff_contrib c = {kind, t->v[i].label, d, NAN};
        if (n < 3) out[n++] = c;
        else if (fabs(d) > fabs(out[2].delta_ns)) out[2] = c;
        else continue;
        qsort(out, (size_t)n, sizeof *out, cmp_contrib);
    }
    return n;
}

/* the change's contributors (kind, name, change per step, share of the
 * step's change) and its headline sentence */
static void contributors(pc_diff_change *x, const double *bcat, const double *ncat, const table *tabs[3], const char *const kinds[3],
                         int r) {
    const pc_verdict *v = &x->v;
    double dstep = v->new_ns - v->base_ns, dir = dstep >= 0 ? 1 : -1;
    pc_diff_contrib c[BK_N + PC_DIFF_CONTRIB_MAX];
    int n = 0;
    for (int k = 0; k < BK_N; k++)
        if ((ncat[k] - bcat[k]) * dir > 0) c[n++] = (pc_diff_contrib){"category", pc_bk[k].label, ncat[k] - bcat[k], NAN};
    qsort(c, (size_t)n, sizeof *c, cmp_contrib);
    if (n > 3) n = 3;
    int ncatc = n;
    pc_diff_contrib top[9];
    int nt = 0;
    for (int i = 0; i < 3; i++) nt += top_entries(tabs[i], r, dir, kinds[i], top + nt);
    qsort(top, (size_t)nt, sizeof *top, cmp_contrib);
    if (nt > 3) nt = 3; /* the three largest of kernels, operators and CPU operators together */
    for (int i = 0; i < nt; i++) c[n++] = top[i];
    for (int i = 0; i < n; i++) {
        x->contrib[i] = c[i];
        x->contrib[i].share_pct = dstep != 0 ? 100 * c[i].delta_ns / dstep : NAN;
    }
    x->ncontrib = n;
    char *h = x->headline, a[32], b[32];
    size_t cap = sizeof x->headline;
    units_ns(a, sizeof a, dstep);
    int k = snprintf(h, cap, "Step time %+.1f%% (%s%s per step), %s", v->delta_pct, dstep >= 0 ? "+" : "", a, v->verdict);
    if (dstep != 0 && ncatc) {
        units_ns(b, sizeof b, c[0].delta_ns);
        k += snprintf(h + k, cap - (size_t)k, ": %s %s%s (%.0f%% of the change)", c[0].name, c[0].delta_ns >= 0 ? "+" : "", b,
                      100 * c[0].delta_ns / dstep);
    }
    if (dstep != 0 && nt && k < (int)cap) {
        units_ns(b, sizeof b, top[0].delta_ns);
        char *sn = pc_short_name(top[0].name, 0, PC_SHORT_TABLE); /* the one short name (#47 item 7) */
        snprintf(h + k, cap - (size_t)k, "%s%s %s %s%s (%.0f%%)", ncatc ? "; " : ": ", top[0].kind, sn,
                 top[0].delta_ns >= 0 ? "+" : "", b, 100 * top[0].delta_ns / dstep);
        free(sn);
    }
}

static const char *method_text =
    "Steps kept: all but the first (warm-up), steps with one-off work (names that run in no other step) and extreme "
    "outliers (modified z-score > 3.5 and over 20% from the median). A run's step time is the mean of its kept steps. "
    "One run a side: the Mann-Whitney test on the kept steps (p < 0.05) and the whole bootstrap interval beyond the noise "
    "floor, or twice the floor when the device's busy time does not carry the change (host time varies more between runs). "
    "Two runs or more on a side: Student's t on the runs' log step times, whose run-to-run noise is the runs' own spread "
    "pooled with a prior (10 degrees of freedom) that makes a change of 0.85 times the floor between two runs a side that "
    "agree just significant (up to twice the floor for host time, as above), p < 0.001; with 3 runs or more on each side "
    "Welch's t-test on the runs (p < 0.001) decides too. Regressed or improved: decided and a change of at least the "
    "threshold. Unchanged: the whole measured interval (hierarchical bootstrap, runs then steps) within the threshold";

/* what a result holds: the matched tables its rows name, the runs' steps */
struct pc_diff_own {
    table t[PC_DT_N], self;
    pc_run_steps *brs, **crs;
    double *floor;
};

const char *const pc_diff_table_keys[PC_DT_N] = {"operators", "operators_cpu", "operator_types", "kernels"};

pc_diff_result *pc_diff(const pc_diff_side *base, const pc_diff_side *ch, int nch, const pc_diff_opts *o) {
    pc_diff_opts dflt = {{2, 10}, 0};
    if (!o) o = &dflt;
    pc_diff_result *d = xcalloc(1, sizeof *d);
    struct pc_diff_own *w = d->own = xcalloc(1, sizeof *w);
    double thr = d->threshold_pct = o->verdict.threshold_pct > 0 ? o->verdict.threshold_pct : 2;
    double nf = d->noise_floor_pct = o->verdict.noise_floor_pct > 0 ? o->verdict.noise_floor_pct : 10;
    d->method = method_text;
    pc_verdict_opts vo = {thr, nf};
    size_t nc1 = (size_t)(nch ? nch : 1);
    pc_run_steps *brs = w->brs = xcalloc((size_t)(base->nruns ? base->nruns : 1), sizeof *brs);
    for (int q = 0; q < base->nruns; q++) pc_run_steps_of(base->runs[q], &brs[q]);
    pc_run_steps **crs = w->crs = xcalloc(nc1, sizeof *crs);
    double *floor = w->floor = xcalloc(nc1, sizeof *floor);
    d->changes = xcalloc(nc1, sizeof *d->changes);
    d->nchanges = nch;
    for (int r = 0; r < nch; r++) {
        crs[r] = xcalloc((size_t)(ch[r].nruns ? ch[r].nruns : 1), sizeof **crs);
        for (int q = 0; q < ch[r].nruns; q++) pc_run_steps_of(ch[r].runs[q], &crs[r][q]);
        pc_verdict_of(brs, base->nruns, crs[r], ch[r].nruns, &vo, &d->changes[r].v);
        floor[r] = d->changes[r].v.multi_run ? thr : nf;
    }
    side_info(&d->base, base, brs);
    d->base_step_ns = nch ? d->changes[0].v.base_ns : 0;
    /* operators and kernels, matched, per step */
    table *t = w->t;
    for (int i = 0; i < PC_DT_N; i++) t[i].nruns = nch;
    w->self.nruns = nch;
    match_by_name(&t[PC_DT_OPERATORS], base, ch, nch, TAB_op, "name", "device_total_ns");
    match_by_name(&w->self, base, ch, nch, TAB_op, "name", "self_device_ns"); /* contributors: no time counted twice by nesting */
    match_by_name(&t[PC_DT_OPERATORS_CPU], base, ch, nch, TAB_op, "name", "self_cpu_ns");
    match_by_name(&t[PC_DT_OPERATOR_TYPES], base, ch, nch, TAB_optype, "type", "time_ns");
    match_kernels(&t[PC_DT_KERNELS], base, ch, nch);
    /* per change: verdict, contributors, headline */
    int any_reg = 0, any_imp = 0, any_inc = 0;
    double bcat[BK_N];
    side_categories(brs, base->nruns, bcat);
    const table *tabs[3] = {&t[PC_DT_KERNELS], &w->self, &t[PC_DT_OPERATORS_CPU]};
    static const char *const kinds[3] = {"kernel", "operator", "CPU operator"};
    for (int r = 0; r < nch; r++) {
        pc_diff_change *x = &d->changes[r];
        side_info(&x->side, &ch[r], crs[r]);
        double ncat[BK_N];
        side_categories(crs[r], ch[r].nruns, ncat);
        contributors(x, bcat, ncat, tabs, kinds, r);
        diff_components(x, base, &ch[r], thr, nf);
        const char *vd = x->v.verdict;
        any_reg |= !strcmp(vd, "regressed"), any_imp |= !strcmp(vd, "improved"), any_inc |= !strcmp(vd, "inconclusive");
    }
    d->verdict = any_reg ? "regressed" : any_inc ? "inconclusive" : any_imp ? "improved" : "unchanged";
    /* the headline of the worst change: the first regressed, else inconclusive, else the first */
    const pc_diff_change *hx = NULL;
    for (int pass = 0; pass < 3 && !hx; pass++)
        for (int r = 0; r < nch && !hx; r++)
            if (pass == 2 || !strcmp(d->changes[r].v.verdict, pass ? "inconclusive" : "regressed")) hx = &d->changes[r];
    d->headline = hx ? hx->headline : "";
    /* every figure side by side: the verdict's statistic first */
    size_t nfig = 1;
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) nfig += figs[i].cat < 0 ? 1 : BK_N;
    pc_diff_figure *fa = d->figures = xcalloc(nfig, sizeof *fa);
    fa[0] = (pc_diff_figure){"steps", "Step time (mean of kept steps; the verdict's statistic)", "ns", 1, 1, d->base_step_ns,
                             xcalloc(nc1, sizeof *fa->runs)};
    for (int r = 0; r < nch; r++) {
        const pc_verdict *v = &d->changes[r].v;
        fa[0].runs[r] = (pc_diff_cell){1, v->new_ns, v->new_ns - v->base_ns, v->delta_pct,
                                       strcmp(v->verdict, "regressed") && strcmp(v->verdict, "improved")};
    }
    int nf_ = 1;
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) {
        if (figs[i].cat < 0) { nf_ += add_figure(&fa[nf_], &figs[i], base, brs, ch, crs, nch, floor); continue; }
        for (int k = 0; k < BK_N; k++) {
            fig f = figs[i];
            f.label = pc_bk[k].per_step, f.higher_is_worse = pc_bk[k].higher_is_worse, f.cat = k;
            nf_ += add_figure(&fa[nf_], &f, base, brs, ch, crs, nch, floor);
        }
    }
    d->nfigures = nf_;
    for (int i = 0; i < PC_DT_N; i++) table_rows(&t[i], nch, o->rows, floor, &d->tables[i]);
    return d;
}

void pc_diff_free(pc_diff_result *d) {
    if (!d) return;
    struct pc_diff_own *w = d->own;
    for (int i = 0; i < PC_DT_N; i++) {
        for (int k = 0; k < d->tables[i].nrows; k++) free(d->tables[i].rows[k].runs);
        free(d->tables[i].rows);
        dtab_free(&w->t[i]);
    }
    dtab_free(&w->self);
    for (int i = 0; i < d->nfigures; i++) free(d->figures[i].runs);
    free(d->figures);
    for (int q = 0; q < d->base.runs; q++) pc_run_steps_free(&w->brs[q]);
    for (int r = 0; r < d->nchanges; r++) {
        for (int q = 0; q < d->changes[r].side.runs; q++) pc_run_steps_free(&w->crs[r][q]);
        free(w->crs[r]);
        free(d->changes[r].side.inputs);
        free(d->changes[r].comp);
    }
    free(d->base.inputs);
    free(w->brs), free(w->crs), free(w->floor), free(w);
    free(d->changes);
    free(d);
}

const pc_diff_figure *pc_diff_figure_named(const pc_diff_result *d, const char *label) {
    for (int i = 0; i < d->nfigures; i++)
        if (!strcmp(d->figures[i].label, label)) return &d->figures[i];
    return NULL;
}
