/* trend.c - runs over time, change points, the newest run (see trend.h). */
#include "trend.h"
#include "../util/utf8.h"
#include "changepoint.h"
#include "verdict.h"
#include "../summary/categories.h"
#include "../util/fsutil.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct order { int i; double t; } order;
static int cmp_order(const void *a, const void *b) {
    const order *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : x->i - y->i;
}

typedef struct kv { const char *name; double ns; } kv;
static int cmp_kv_name(const void *a, const void *b) { return strcmp(((const kv *)a)->name, ((const kv *)b)->name); }
static int cmp_kv_ns(const void *a, const void *b) {
    double x = ((const kv *)a)->ns, y = ((const kv *)b)->ns;
    return x > y ? -1 : x < y;
}

/* a run's kernel time per step by name (devices summed) */
static double kernel_ns(const pc_summary *s, const char *name) {
    double sum = 0;
    const pc_table *t;
    for (size_t dev = 0; (t = PC_TAB_AT(s, kernel, dev)); dev++) {
        for (size_t i = 0; i < t->n; i++) {
            const tab_kernel *r = &TAB_ROWS(t, kernel)[i];
            if (r->name && !strcmp(r->name, name) && r->total_ns > 0) sum += (double)r->total_ns;
        }
    }
    return sum / pc_steps_of(s);
}

/* the PC_TREND_KERNELS kernels with the most time per step over all runs */
static int top_kernels(const pc_trend_run *runs, int n, const char **out) {
    kv *v = NULL;
    size_t m = 0, cap = 0;
    for (int r = 0; r < n; r++) {
        const pc_summary *s = runs[r].summary;
        double steps = pc_steps_of(s);
        const pc_table *t;
        for (size_t dev = 0; (t = PC_TAB_AT(s, kernel, dev)); dev++) {
            for (size_t i = 0; i < t->n; i++) {
                const tab_kernel *k = &TAB_ROWS(t, kernel)[i];
                if (!k->name || k->total_ns <= 0) continue;
                kv *x = VEC_PUSH(v, m, cap);
                x->name = k->name, x->ns = (double)k->total_ns / steps;
            }
        }
    }
    if (m) qsort(v, m, sizeof *v, cmp_kv_name);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && !strcmp(v[k - 1].name, v[i].name)) v[k - 1].ns += v[i].ns;
        else v[k++] = v[i];
    }
    if (k) qsort(v, k, sizeof *v, cmp_kv_ns);
    int nk = k < PC_TREND_KERNELS ? (int)k : PC_TREND_KERNELS;
    for (int i = 0; i < nk; i++) out[i] = v[i].name;
    free(v);
    return nk;
}

/* the newest run against the runs since the last change point */
static void newest(pc_trend_result *t, const double *x, const int *idx, int m, const pc_cp *cp, int ncp, double thr) {
    int start = ncp ? cp[ncp - 1].at : 0, h = m - 1 - start;
    char *why = t->newest.reason;
    size_t cap = sizeof t->newest.reason;
    const char *verdict = "ok";
    t->newest.change_pct = t->newest.history_mean_ns = t->newest.history_sd_ns = NAN;
    if (m < 1 || h < PC_TREND_MIN_HISTORY) {
        verdict = "insufficient history";
        snprintf(why, cap, "%d run%s since the last change point; at least %d are needed to judge the newest", h < 0 ? 0 : h,
                 h == 1 ? "" : "s", PC_TREND_MIN_HISTORY);
    } else {
        double mu, sd;
        pc_mean_sd(x + start, h, &mu, &sd);
        double ch = 100 * (x[m - 1] - mu) / mu, z = sd > 0 ? (x[m - 1] - mu) / sd : (x[m - 1] > mu ? INFINITY : x[m - 1] < mu ? -INFINITY : 0);
        t->newest.change_pct = ch, t->newest.history_mean_ns = mu, t->newest.history_sd_ns = sd;
        if (ch >= thr && z > 3) verdict = "regression";
        else if (ch <= -thr && z < -3) verdict = "improvement";
        snprintf(why, cap, "step time %+.1f%% against the mean of the %d runs since the last change point (%.1f standard deviations; "
                 "a regression needs at least %.0f%% and 3)", ch, h, isfinite(z) ? z : 0.0, thr);
    }
    t->newest.run = m ? idx[m - 1] + 1 : 0;
    t->newest.verdict = verdict;
}

pc_trend_result *pc_trend(const pc_trend_run *in, int n, const pc_trend_opts *o) {
    pc_trend_result *t = xcalloc(1, sizeof *t);
    double thr = t->threshold_pct = o && o->threshold_pct > 0 ? o->threshold_pct : 5;
    order *ord = xmalloc((size_t)(n ? n : 1) * sizeof *ord);
    int all_time = n > 0;
    for (int i = 0; i < n; i++) {
        double st = PC_OR(PC_REC(in[i].summary, run)->start_us, NAN);
        ord[i] = (order){i, isfinite(st) ? st : 0};
        all_time &= isfinite(st) != 0;
    }
    int by_time = o && o->by_time && all_time;
    if (by_time) qsort(ord, (size_t)n, sizeof *ord, cmp_order);
    pc_trend_run *runs = xmalloc((size_t)(n ? n : 1) * sizeof *runs);
    for (int i = 0; i < n; i++) runs[i] = in[ord[i].i];
    free(ord);

    t->order = by_time ? "recorded start time" : "as given";
    t->method = "Step time: the mean of each run's kept steps (the first, steps with one-off work and extreme outliers "
                "left out). Change points: E-divisive means (Matteson and James 2014), a permutation test with 199 "
                "shuffles, p < 0.05, at least 2 runs a segment. Newest run: against the runs since the last change "
                "point, a regression when slower by the threshold and by more than 3 standard deviations";
    int nk = t->nkernels = top_kernels(runs, n, t->kernels);
    double *x = xmalloc((size_t)(n ? n : 1) * sizeof *x);
    int *idx = xmalloc((size_t)(n ? n : 1) * sizeof *idx), m = 0;
    double catsum[BK_N] = {0};
    t->runs = xcalloc((size_t)(n ? n : 1), sizeof *t->runs);
    t->nruns = n;
    for (int i = 0; i < n; i++) {
        const pc_summary *s = runs[i].summary;
        pc_trend_point *r = &t->runs[i];
        r->index = i + 1;
        pc_run_steps rs;
        pc_run_steps_of(s, &rs);
        r->input = fs_base_name(PC_S(PC_REC(s, run)->input, ""));
        const char *own = PC_S(PC_REC(s, run)->label, ""); /* the summary's run.label first */
        snprintf(r->label, sizeof r->label, "%s", *own ? own : runs[i].label && *runs[i].label ? runs[i].label : r->input);
        r->label[utf8_valid_prefix(r->label, strlen(r->label))] = 0; /* a cut never ends mid-character */
        r->report = runs[i].report;
        r->start_us = PC_OR(PC_REC(s, run)->start_us, NAN);
        r->steps = rs.n, r->kept_steps = rs.kept;
        r->step_ns = rs.kept > 0 ? rs.mean_ns : NAN;
        for (int k = 0; k < BK_N; k++) {
            r->cat_ns[k] = rs.cat_rows > 0 ? rs.cat_ns[k] : NAN;
            catsum[k] += rs.cat_ns[k];
        }
        for (int k = 0; k < nk; k++) r->kernel_ns[k] = kernel_ns(s, t->kernels[k]);
        if (rs.kept > 0) x[m] = rs.mean_ns, idx[m++] = i;
        pc_run_steps_free(&rs);
    }
    /* the categories in order of their total over the history */
    int used[BK_N] = {0};
    for (int j = 0; j < BK_N; j++) {
        int b = -1;
        for (int k = 0; k < BK_N; k++)
            if (!used[k] && (b < 0 || catsum[k] > catsum[b])) b = k;
        used[b] = 1;
        if (catsum[b] > 0) t->categories[t->ncategories++] = b;
    }
    /* change points of the step time */
    pc_cp cp[PC_TREND_CP_MAX];
    int ncp = t->ncps = pc_changepoints(x, m, 2, cp, PC_TREND_CP_MAX);
    for (int c = 0; c < ncp; c++) {
        int a = c ? cp[c - 1].at : 0, b = cp[c].at, e = c + 1 < ncp ? cp[c + 1].at : m;
        double before = 0, after = 0;
        for (int i = a; i < b; i++) before += x[i];
        for (int i = b; i < e; i++) after += x[i];
        before /= b - a, after /= e - b;
        t->cps[c] = (pc_trend_cp){idx[b] + 1, t->runs[idx[b]].label, after > before ? "regression" : "improvement", before, after,
                                  before > 0 ? 100 * (after - before) / before : 0, cp[c].q, cp[c].p};
    }
    newest(t, x, idx, m, cp, ncp, thr);
    free(x), free(idx), free(runs);
    return t;
}

void pc_trend_free(pc_trend_result *t) {
    if (!t) return;
    free(t->runs);
    free(t);
}

/* the members each struct writes, in trend.json's order */
static const sj_field point_fields[] = {SJ_F(pc_trend_point, 'I', index),      SJ_F(pc_trend_point, 'C', label),
                                        SJ_F(pc_trend_point, 'S', input),      SJ_F(pc_trend_point, 'N', start_us),
                                        SJ_F(pc_trend_point, 'I', steps),      SJ_F(pc_trend_point, 'I', kept_steps),
                                        SJ_F(pc_trend_point, 'N', step_ns),    SJ_F(pc_trend_point, 'Z', report)};
static const sj_field cp_fields[] = {SJ_F(pc_trend_cp, 'I', run),        SJ_F(pc_trend_cp, 'S', label),    SJ_F(pc_trend_cp, 'N', before_ns),
                                     SJ_F(pc_trend_cp, 'N', after_ns),   SJ_F(pc_trend_cp, 'N', change_pct),
                                     SJ_F(pc_trend_cp, 'S', direction),  SJ_F(pc_trend_cp, 'N', q),        SJ_F(pc_trend_cp, 'N', p_value)};

cJSON *pc_trend_json(const pc_trend_result *t) {
    cJSON *d = cJSON_CreateObject();
    sj_str(d, "schema", PC_TREND_SCHEMA);
    sj_str(d, "order", t->order);
    sj_num(d, "threshold_pct", t->threshold_pct);
    sj_str(d, "method", t->method);
    cJSON *ra = sj_arr(d, "runs");
    for (int i = 0; i < t->nruns; i++) {
        const pc_trend_point *p = &t->runs[i];
        cJSON *r = cJSON_CreateObject();
        SJ_FIELDS(r, p, point_fields);
        cJSON *c = sj_obj(r, "categories");
        for (int k = 0; k < BK_N; k++) sj_num(c, pc_bk[k].step_key, p->cat_ns[k]);
        cJSON *ka = sj_arr(r, "kernels");
        for (int k = 0; k < t->nkernels; k++) cJSON_AddItemToArray(ka, cJSON_CreateNumber(p->kernel_ns[k]));
        cJSON_AddItemToArray(ra, r);
    }
    cJSON *kl = sj_arr(d, "kernels");
    for (int k = 0; k < t->nkernels; k++) cJSON_AddItemToArray(kl, sj_str_item(t->kernels[k]));
    cJSON *cl = sj_arr(d, "categories");
    for (int j = 0; j < t->ncategories; j++) {
        cJSON *e = cJSON_CreateObject();
        sj_str(e, "key", pc_bk[t->categories[j]].step_key);
        sj_str(e, "label", pc_bk[t->categories[j]].label);
        cJSON_AddItemToArray(cl, e);
    }
    cJSON *ca = sj_arr(d, "change_points");
    for (int c = 0; c < t->ncps; c++) {
        cJSON *o = cJSON_CreateObject();
        SJ_FIELDS(o, &t->cps[c], cp_fields);
        cJSON_AddItemToArray(ca, o);
    }
    cJSON *o = sj_obj(d, "newest");
    sj_num(o, "change_pct", t->newest.change_pct);
    if (strcmp(t->newest.verdict, "insufficient history")) {
        sj_num(o, "history_mean_ns", t->newest.history_mean_ns);
        sj_num(o, "history_sd_ns", t->newest.history_sd_ns);
    }
    sj_int(o, "run", t->newest.run);
    sj_str(o, "verdict", t->newest.verdict);
    sj_str(o, "reason", t->newest.reason);
    sj_str(d, "verdict", t->newest.verdict);
    return d;
}
