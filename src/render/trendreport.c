/* trend.html, trend.md, trend.json: the view adds three line charts over
 * the runs (step time with the change points marked, the step categories,
 * the top kernels per step) and formatted values. */
#include "trendreport.h"
#include "view.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* y of every run for one figure (NaN where a run lacks it: no point) */
static double *per_run(const cJSON *runs, int n, const char *obj, const char *key, int item) {
    double *y = xmalloc((size_t)(n ? n : 1) * sizeof *y);
    for (int i = 0; i < n; i++) {
        const cJSON *r = cJSON_GetArrayItem(runs, i), *v;
        if (obj && key) v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, obj), key);
        else if (obj) v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, obj), item);
        else v = cJSON_GetObjectItemCaseSensitive(r, key);
        y[i] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    }
    return y;
}

enum { KMAX = 8 }; /* kernel lines drawn at most */

/* a line chart of ns series over runs (when there is one), then the series' values freed */
static void lines(chart_out *co, const char *id, const char *title, const chart_series *s, double **y, int ns, const double *marks,
                  size_t nm) {
    if (ns) {
        chart c = {.kind = CHART_LINE, .title = title, .xlabel = "run", .ylabel = "time per step", .unit = UNIT_NS,
                   .xunit = UNIT_COUNT, .series = s, .nseries = (size_t)ns, .marks = marks, .nmarks = nm};
        rv_add_chart(co, id, &c, rv_series_rows(&c));
    }
    for (int k = 0; k < ns; k++) free(y[k]);
}

static void trend_charts(chart_out *co, cJSON *v) {
    const cJSON *runs = cJSON_GetObjectItem(v, "runs");
    int n = cJSON_GetArraySize(runs);
    if (!n) return;
    double *x = xmalloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = i + 1;
    /* step time, change points marked between the last run before and the first after */
    double *y = per_run(runs, n, NULL, "step_ns", 0), marks[64];
    size_t nm = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(v, "change_points")) if (nm < 64) marks[nm++] = sj_getnum(c, "run", 1) - 0.5;
    chart_series s1 = {"step time", x, y, (size_t)n, 0};
    chart c1 = {.kind = CHART_LINE, .title = "Step time per run (dashed: change points)", .xlabel = "run", .ylabel = "time per step",
                .unit = UNIT_NS, .xunit = UNIT_COUNT, .series = &s1, .nseries = 1, .marks = marks, .nmarks = nm};
    rv_add_chart(co, "step", &c1, rv_series_rows(&c1));
    free(y);
    /* the four largest categories, then the top kernels */
    chart_series ls[KMAX];
    double *ly[KMAX] = {0};
    int nl = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(v, "categories")) {
        if (nl == 4) break;
        ly[nl] = per_run(runs, n, "categories", sj_getstr(c, "key", ""), 0);
        ls[nl] = (chart_series){sj_getstr(c, "label", ""), x, ly[nl], (size_t)n, chart_category_color(sj_getstr(c, "key", ""))};
        nl++;
    }
    lines(co, "categories", "Where the step goes, per run (the four largest categories)", ls, ly, nl, marks, nm);
    nl = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(v, "kernels")) {
        if (nl == KMAX) break;
        ly[nl] = per_run(runs, n, "kernels", NULL, nl);
        ls[nl] = (chart_series){cJSON_IsString(c) ? c->valuestring : "", x, ly[nl], (size_t)n, nl};
        nl++;
    }
    lines(co, "kernels", "The kernels with the most time, per step and run", ls, ly, nl, marks, nm);
    free(x);
}

static cJSON *build(const cJSON *trend, const char *png_dir, int rows, pc_err *err, int *rc) {
    (void)rows; /* one row per run, not cut: an over-long trend.md is cut at a line end instead */
    cJSON *v = cJSON_Duplicate(trend, 1);
    chart_out co = rv_begin_view(v, png_dir, err);
    trend_charts(&co, v);
    /* each run's change against the previous run, for the table */
    double prev = NAN;
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(v, "runs")) {
        const cJSON *s = cJSON_GetObjectItem(r, "step_ns");
        if (cJSON_IsNumber(s) && isfinite(prev) && prev > 0) cJSON_AddNumberToObject(r, "vs_previous_pct", 100 * (s->valuedouble - prev) / prev);
        if (cJSON_IsNumber(s)) prev = s->valuedouble;
    }
    *rc = co.rc;
    return v;
}

int pc_trend_write(const cJSON *trend, const pc_report_opts *o, pc_err *err) {
    static const int md_rows[] = {0};
    return rv_write_doc(trend, o, "trend", build, 0, md_rows, 1, err);
}
