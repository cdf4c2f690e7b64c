/* trend.c - runs over time, change points, the newest run (see trend.h). */
#include "trend.h"
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
static void newest(cJSON *d, const double *x, const int *idx, int m, const pc_cp *cp, int ncp, double thr) {
    cJSON *o = sj_obj(d, "newest");
    int start = ncp ? cp[ncp - 1].at : 0, h = m - 1 - start;
    char why[300];
    const char *verdict = "ok";
    if (m < 1 || h < PC_TREND_MIN_HISTORY) {
        verdict = "insufficient history";
        snprintf(why, sizeof why, "%d run%s since the last change point; at least %d are needed to judge the newest", h < 0 ? 0 : h,
                 h == 1 ? "" : "s", PC_TREND_MIN_HISTORY);
        cJSON_AddNullToObject(o, "change_pct");
    } else {
        double mu, sd;
        pc_mean_sd(x + start, h, &mu, &sd);
        double ch = 100 * (x[m - 1] - mu) / mu, z = sd > 0 ? (x[m - 1] - mu) / sd : (x[m - 1] > mu ? INFINITY : x[m - 1] < mu ? -INFINITY : 0);
        sj_num(o, "change_pct", ch);
        sj_num(o, "history_mean_ns", mu);
        sj_num(o, "history_sd_ns", sd);
        if (ch >= thr && z > 3) verdict = "regression";
        else if (ch <= -thr && z < -3) verdict = "improvement";
        snprintf(why, sizeof why, "step time %+.1f%% against the mean of the %d runs since the last change point (%.1f standard deviations; "
                 "a regression needs at least %.0f%% and 3)", ch, h, isfinite(z) ? z : 0.0, thr);
    }
    sj_int(o, "run", m ? idx[m - 1] + 1 : 0);
    sj_str(o, "verdict", verdict);
    sj_str(o, "reason", why);
    sj_str(d, "verdict", verdict);
}

cJSON *pc_trend(const pc_trend_run *in, int n, const pc_trend_opts *o) {
    double thr = o && o->threshold_pct > 0 ? o->threshold_pct : 5;
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

    cJSON *d = cJSON_CreateObject();
    sj_str(d, "schema", PC_TREND_SCHEMA);
    sj_str(d, "order", by_time ? "recorded start time" : "as given");
    sj_num(d, "threshold_pct", thr);
    sj_str(d, "method", "Step time: the mean of each run's kept steps (the first, steps with one-off work and extreme outliers "
                        "left out). Change points: E-divisive means (Matteson and James 2014), a permutation test with 199 "
                        "shuffles, p < 0.05, at least 2 runs a segment. Newest run: against the runs since the last change "
                        "point, a regression when slower by the threshold and by more than 3 standard deviations");
    const char *kn[PC_TREND_KERNELS];
    int nk = top_kernels(runs, n, kn);
    double *x = xmalloc((size_t)(n ? n : 1) * sizeof *x);
    int *idx = xmalloc((size_t)(n ? n : 1) * sizeof *idx), m = 0;
    double catsum[BK_N] = {0};
    cJSON *ra = sj_arr(d, "runs");
    for (int i = 0; i < n; i++) {
        const pc_summary *s = runs[i].summary;
        pc_run_steps rs;
        pc_run_steps_of(s, &rs);
        cJSON *r = cJSON_CreateObject();
        char lab[256];
        const char *input = fs_base_name(PC_S(PC_REC(s, run)->input, ""));
        snprintf(lab, sizeof lab, "%s", runs[i].label && *runs[i].label ? runs[i].label : input);
        sj_int(r, "index", i + 1);
        sj_str(r, "label", lab);
        sj_str(r, "input", input);
        double st = PC_OR(PC_REC(s, run)->start_us, NAN);
        sj_num(r, "start_us", st); /* sj_num writes null for NaN */
        sj_int(r, "steps", rs.n);
        sj_int(r, "kept_steps", rs.kept);
        sj_num(r, "step_ns", rs.kept > 0 ? rs.mean_ns : NAN);
        if (runs[i].report) sj_str(r, "report", runs[i].report);
        else cJSON_AddNullToObject(r, "report");
        cJSON *c = sj_obj(r, "categories");
        for (int k = 0; k < BK_N; k++) {
            sj_num(c, pc_bk[k].step_key, rs.cat_rows > 0 ? rs.cat_ns[k] : NAN);
            catsum[k] += rs.cat_ns[k];
        }
        cJSON *ka = sj_arr(r, "kernels");
        for (int k = 0; k < nk; k++) cJSON_AddItemToArray(ka, cJSON_CreateNumber(kernel_ns(s, kn[k])));
        if (rs.kept > 0) x[m] = rs.mean_ns, idx[m++] = i;
        pc_run_steps_free(&rs);
        cJSON_AddItemToArray(ra, r);
    }
    cJSON *kl = sj_arr(d, "kernels");
    for (int k = 0; k < nk; k++) cJSON_AddItemToArray(kl, cJSON_CreateString(kn[k]));
    /* the categories in order of their total over the history */
    cJSON *cl = sj_arr(d, "categories");
    int used[BK_N] = {0};
    for (int j = 0; j < BK_N; j++) {
        int b = -1;
        for (int k = 0; k < BK_N; k++)
            if (!used[k] && (b < 0 || catsum[k] > catsum[b])) b = k;
        used[b] = 1;
        if (catsum[b] <= 0) continue;
        cJSON *e = cJSON_CreateObject();
        sj_str(e, "key", pc_bk[b].step_key);
        sj_str(e, "label", pc_bk[b].label);
        cJSON_AddItemToArray(cl, e);
    }
    /* change points of the step time */
    pc_cp cp[64];
    int ncp = pc_changepoints(x, m, 2, cp, 64);
    cJSON *ca = sj_arr(d, "change_points");
    for (int c = 0; c < ncp; c++) {
        int a = c ? cp[c - 1].at : 0, b = cp[c].at, e = c + 1 < ncp ? cp[c + 1].at : m;
        double before = 0, after = 0;
        for (int i = a; i < b; i++) before += x[i];
        for (int i = b; i < e; i++) after += x[i];
        before /= b - a, after /= e - b;
        cJSON *o2 = cJSON_CreateObject();
        sj_int(o2, "run", idx[b] + 1);
        sj_str(o2, "label", sj_getstr(cJSON_GetArrayItem(ra, idx[b]), "label", ""));
        sj_num(o2, "before_ns", before);
        sj_num(o2, "after_ns", after);
        sj_num(o2, "change_pct", before > 0 ? 100 * (after - before) / before : 0);
        sj_str(o2, "direction", after > before ? "regression" : "improvement");
        sj_num(o2, "q", cp[c].q);
        sj_num(o2, "p_value", cp[c].p);
        cJSON_AddItemToArray(ca, o2);
    }
    newest(d, x, idx, m, cp, ncp, thr);
    free(x), free(idx), free(runs);
    return d;
}
