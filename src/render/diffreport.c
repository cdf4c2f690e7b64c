/* diff.html, diff.md, diff.json: the view adds formatted values (by each
 * figure's unit) and the charts: step phases and breakdown for every run on
 * one scale, and the largest kernel changes as a diverging bar chart. */
#include "diffreport.h"
#include "view.h"
#include "../summary/categories.h"
#include "../summary/summary.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_of(const char *u) {
    return !strcmp(u, "ns") ? UNIT_NS : !strcmp(u, "pct") ? UNIT_PCT : !strcmp(u, "bytes") ? UNIT_BYTES : UNIT_COUNT;
}

static void put_fmt(cJSON *o, const char *key, double v, int unit, int sign) {
    sbuf b = {0};
    if (sign && v > 0) sbuf_putc(&b, '+');
    if (unit == UNIT_PCT && sign) sbuf_printf(&b, "%.1f pp", v);
    else rv_fmt_unit(&b, v, unit);
    cJSON_AddStringToObject(o, key, b.data ? b.data : "");
    sbuf_free(&b);
}

static void format_figures(cJSON *v) {
    cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(v, "figures")) {
        int u = unit_of(sj_getstr(f, "unit", ""));
        const cJSON *b = cJSON_GetObjectItem(f, "base");
        if (cJSON_IsNumber(b)) put_fmt(f, "base_fmt", b->valuedouble, u, 0);
        else cJSON_AddStringToObject(f, "base_fmt", "n/a");
        cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(f, "runs")) {
            const cJSON *n = cJSON_GetObjectItem(r, "new"), *d = cJSON_GetObjectItem(r, "delta");
            if (cJSON_IsNumber(n)) put_fmt(r, "new_fmt", n->valuedouble, u, 0);
            else cJSON_AddStringToObject(r, "new_fmt", "n/a");
            if (cJSON_IsNumber(d)) put_fmt(r, "delta_fmt", d->valuedouble, u, 1);
            else cJSON_AddStringToObject(r, "delta_fmt", "");
            /* coloured only when it moved beyond the comparison's noise (diff.c's within_noise) */
            const cJSON *p = cJSON_GetObjectItem(r, "delta_pct");
            int worse = cJSON_IsTrue(cJSON_GetObjectItem(f, "higher_is_worse"));
            if (cJSON_IsTrue(cJSON_GetObjectItem(r, "within_noise"))) cJSON_AddStringToObject(r, "trend", "noise");
            else if (cJSON_IsNumber(p) && p->valuedouble != 0)
                cJSON_AddStringToObject(r, "trend", (p->valuedouble > 0) == worse ? "worse" : "better");
        }
    }
}

static double figure(const cJSON *v, const char *name, int run) {
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(v, "figures"))
        if (!strcmp(sj_getstr(f, "figure", ""), name))
            return run < 0 ? sj_getnum(f, "base", 0) : sj_getnum(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "runs"), run), "new", 0);
    return 0;
}

static void diff_charts(chart_out *co, cJSON *v) {
    int nr = cJSON_GetArraySize(cJSON_GetObjectItem(v, "runs"));
    int n = nr + 1;
    char **labels = xcalloc((size_t)n, sizeof *labels);
    labels[0] = xstrdup(sj_getstr(v, "base.label", "base"));
    for (int r = 0; r < nr; r++) labels[r + 1] = xstrdup(sj_getstr(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "runs"), r), "label", "new"));
    static const char *const ph[3] = {"Iteration interval (average)", "Forward + backward (average)", "Tail (average)"};
    static const char *const phn[3] = {"iteration interval", "forward + backward", "tail"};
    double *pv[3];
    for (int k = 0; k < 3; k++) {
        pv[k] = xcalloc((size_t)n, sizeof(double));
        for (int r = -1; r < nr; r++) pv[k][r + 1] = figure(v, ph[k], r);
    }
    chart_series ps[3] = {{phn[0], NULL, pv[0], (size_t)n, 1}, {phn[1], NULL, pv[1], (size_t)n, 0}, {phn[2], NULL, pv[2], (size_t)n, 2}};
    chart c1 = {.kind = CHART_STACKED, .title = "Step phases, side by side (one scale)", .xlabel = "run", .ylabel = "time",
                .unit = UNIT_NS, .series = ps, .nseries = 3, .categories = (const char *const *)labels, .ncat = (size_t)n, .width = 520};
    rv_add_chart(co, "phases", &c1, rv_series_rows(&c1));
    double *bv[BK_N];
    chart_series bs[BK_N];
    for (int k = 0; k < BK_N; k++) {
        bv[k] = xcalloc((size_t)n, sizeof(double));
        for (int r = -1; r < nr; r++) bv[k][r + 1] = figure(v, pc_bk[k].per_step, r);
        bs[k] = (chart_series){pc_bk[k].label, NULL, bv[k], (size_t)n, chart_category_color(pc_bk[k].name)};
    }
    chart c2 = {.kind = CHART_STACKED, .title = "Where each step goes, side by side (one scale)", .xlabel = "run", .ylabel = "time per step",
                .unit = UNIT_NS, .series = bs, .nseries = BK_N, .categories = (const char *const *)labels, .ncat = (size_t)n, .width = 620};
    rv_add_chart(co, "breakdown", &c2, rv_series_rows(&c2));
    /* largest kernel changes, first run */
    const cJSON *rows = sj_get(v, "kernels.rows");
    int nk = cJSON_GetArraySize(rows);
    if (nk > 15) nk = 15;
    if (nk > 0) {
        const char **kl = xcalloc((size_t)nk, sizeof *kl);
        double *kv = xcalloc((size_t)nk, sizeof *kv);
        int *kc = xcalloc((size_t)nk, sizeof *kc);
        for (int i = 0; i < nk; i++) {
            const cJSON *r = cJSON_GetArrayItem(rows, i);
            kl[i] = sj_getstr(r, "name", "");
            kv[i] = sj_getnum(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "runs"), 0), "delta_ns", 0);
            kc[i] = kv[i] > 0 ? 4 : 0; /* vermillion slower, blue faster */
        }
        chart c3 = {.kind = CHART_HBAR, .title = "Largest kernel time changes per step (new minus base; right is slower)", .xlabel = "change in kernel time per step",
                    .unit = UNIT_NS, .labels = kl, .values = kv, .colors = kc, .n = (size_t)nk};
        cJSON *data = rv_data_rows(kl, kv, (size_t)nk, UNIT_NS);
        rv_add_chart(co, "kernel_delta", &c3, data);
        free(kl);
        free(kv);
        free(kc);
    }
    for (int k = 0; k < 3; k++) free(pv[k]);
    for (int k = 0; k < BK_N; k++) free(bv[k]);
    for (int i = 0; i < n; i++) free(labels[i]);
    free(labels);
}

static void format_tables(cJSON *v, int rows) {
    static const char *const t[] = {"kernels", "operators", "operators_cpu", "operator_types"};
    for (int i = 0; i < 4; i++) {
        cJSON *tab = cJSON_GetObjectItem(v, t[i]), *r;
        if (!tab) continue;
        rv_limit(tab, "rows", rows);
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(tab, "rows")) {
            cJSON *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "runs")) {
                const cJSON *d = cJSON_GetObjectItem(x, "delta_ns");
                if (cJSON_IsNumber(d)) put_fmt(x, "delta_fmt", d->valuedouble, UNIT_NS, 1);
                if (cJSON_IsTrue(cJSON_GetObjectItem(x, "within_noise"))) cJSON_AddStringToObject(x, "trend", "noise");
                else if (cJSON_IsNumber(d) && d->valuedouble != 0) cJSON_AddStringToObject(x, "trend", d->valuedouble > 0 ? "worse" : "better");
            }
        }
    }
}

static cJSON *build(const cJSON *diff, const char *png_dir, int rows, pc_err *err, int *rc) {
    cJSON *v = cJSON_Duplicate(diff, 1);
    chart_out co = rv_begin_view(v, png_dir, err);
    format_figures(v);
    diff_charts(&co, v);
    format_tables(v, rows);
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(v, "runs")) {
        const cJSON *st = cJSON_GetObjectItem(r, "step_time");
        put_fmt(r, "delta_fmt", sj_getnum(st, "delta_ns", 0), UNIT_NS, 1);
        cJSON_AddBoolToObject(r, "moved", strcmp(sj_getstr(r, "verdict", ""), "unchanged") != 0);
        cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(r, "contributors")) put_fmt(c, "delta_fmt", sj_getnum(c, "delta_ns", 0), UNIT_NS, 1);
    }
    *rc = co.rc;
    return v;
}

int pc_diff_write(const cJSON *diff, const pc_report_opts *o, pc_err *err) {
    static const int md_rows[] = {15, 8, 4, 1}; /* fewer rows per table until diff.md fits */
    return rv_write_doc(diff, o, "diff", build, 50, md_rows, 4, err);
}
