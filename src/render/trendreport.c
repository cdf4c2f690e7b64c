/* trend.html, trend.md, trend.json: the view adds three line charts over
 * the runs (step time with the change points marked, the step categories,
 * the top kernels per step) and each run's change against the previous
 * one, read from the typed history (compare/trend.h). */
#include "trendreport.h"
#include "view.h"
#include "../summary/categories.h"
#include "../util/sbuf.h"
#include "../util/shortname.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* y of every run for one figure (NaN where a run lacks it: no point) */
static double *per_run(const pc_trend_result *t, double (*of)(const pc_trend_point *, int), int k) {
    double *y = xmalloc((size_t)(t->nruns ? t->nruns : 1) * sizeof *y);
    for (int i = 0; i < t->nruns; i++) y[i] = of(&t->runs[i], k);
    return y;
}
static double step_of(const pc_trend_point *p, int k) { return (void)k, p->step_ns; }
static double cat_of(const pc_trend_point *p, int k) { return p->cat_ns[k]; }
static double kernel_of(const pc_trend_point *p, int k) { return p->kernel_ns[k]; }

enum { KMAX = 8 }; /* kernel lines drawn at most */

/* a run's tick label: its label without a trace file's extensions (".pt.trace.json.gz", ".sqlite"),
 * which every run shares, cut in its middle to 24 characters; malloc'd */
static char *run_tick(const char *label) {
    static const char *const ext[] = {".gz", ".json", ".trace", ".pt", ".sqlite", ".nvvp", ".csv"};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", label ? label : "");
    for (int again = 1; again;) {
        again = 0;
        for (size_t k = 0; k < sizeof ext / sizeof *ext; k++) {
            size_t n = strlen(buf), e = strlen(ext[k]);
            if (n > e && !strcmp(buf + n - e, ext[k])) buf[n - e] = 0, again = 1;
        }
    }
    return pc_short_name(buf, 0, 24);
}

/* a line chart of ns series over runs (when there is one), then the series' values freed */
static void lines(chart_out *co, const char *id, const char *title, const chart_series *s, double **y, int ns, const double *marks,
                  size_t nm, const char *const *ticks, int nticks, const char *xlabel) {
    if (ns) {
        chart c = {.kind = CHART_LINE, .title = title, .xlabel = xlabel, .ylabel = "time per step", .unit = UNIT_NS,
                   .xunit = UNIT_COUNT, .series = s, .nseries = (size_t)ns, .marks = marks, .nmarks = nm, .xticks = ticks,
                   .nxticks = (size_t)nticks, .dots = 1};
        rv_add_chart(co, id, &c, rv_series_rows(&c));
    }
    for (int k = 0; k < ns; k++) free(y[k]);
}

static void trend_charts(chart_out *co, const pc_trend_result *t) {
    int n = t->nruns;
    if (!n) return;
    double *x = xmalloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = i + 1;
    /* the x axis follows the runs' order (#47): by start time (--by-time), the ticks are the runs'
     * dates ("2021-06-08 08:57 UTC"); as given, their labels, shortened, so the axis never runs
     * backwards in time */
    int by_time = t->order && !strncmp(t->order, "recorded", 8);
    char (*date)[24] = xcalloc((size_t)n, sizeof *date);
    const char **ticks = xcalloc((size_t)n, sizeof *ticks);
    char **owned = xcalloc((size_t)n, sizeof *owned);
    int nticks = n;
    for (int i = 0; i < n; i++) {
        const char *u = t->runs[i].start_utc;
        if (by_time) {
            if (!u) { nticks = 0; break; }
            snprintf(date[i], sizeof date[i], "%.10s %.5s UTC", u, u + 11);
            ticks[i] = date[i];
        } else ticks[i] = owned[i] = run_tick(t->runs[i].label);
    }
    const char *xlabel = by_time ? (nticks ? "run, by its start (UTC)" : "run, by its start") : "run, in the order given";
    /* step time, change points marked between the last run before and the first after */
    double *y = per_run(t, step_of, 0), marks[PC_TREND_CP_MAX];
    size_t nm = 0;
    for (int c = 0; c < t->ncps; c++) marks[nm++] = t->cps[c].run - 0.5;
    chart_series s1 = {"step time", x, y, (size_t)n, 0};
    chart c1 = {.kind = CHART_LINE, .title = "Step time per run (dashed: change points)", .xlabel = xlabel, .ylabel = "time per step",
                .unit = UNIT_NS, .xunit = UNIT_COUNT, .series = &s1, .nseries = 1, .marks = marks, .nmarks = nm, .xticks = ticks,
                .nxticks = (size_t)nticks, .dots = 1};
    rv_add_chart(co, "step", &c1, rv_series_rows(&c1));
    free(y);
    /* the four largest categories, then the top kernels */
    chart_series ls[KMAX];
    double *ly[KMAX] = {0};
    int nl = 0;
    for (; nl < t->ncategories && nl < 4; nl++) {
        const pc_bk_info *b = &pc_bk[t->categories[nl]];
        ly[nl] = per_run(t, cat_of, t->categories[nl]);
        ls[nl] = (chart_series){b->label, x, ly[nl], (size_t)n, chart_category_color(b->name)};
    }
    lines(co, "categories", "Where the step goes, per run (the four largest categories)", ls, ly, nl, marks, nm, ticks, nticks, xlabel);
    /* the legend's kernel names short, cut at identifier boundaries (shortname.h), told apart */
    int nk = t->nkernels < KMAX ? t->nkernels : KMAX;
    char *kshort[KMAX] = {0};
    if (nk) pc_short_names((const char *const *)t->kernels, (size_t)nk, PC_SHORT_CHART, kshort);
    for (nl = 0; nl < nk; nl++) {
        ly[nl] = per_run(t, kernel_of, nl);
        ls[nl] = (chart_series){kshort[nl], x, ly[nl], (size_t)n, nl};
    }
    lines(co, "kernels", "The kernels with the most time, per step and run", ls, ly, nl, marks, nm, ticks, nticks, xlabel);
    for (int k = 0; k < nk; k++) free(kshort[k]);
    for (int i = 0; i < n; i++) free(owned[i]);
    free(x), free(ticks), free(date), free(owned);
}

/* the view: trend.json's document, each run's change against the previous
 * run (for the table), the charts; rows > 0: the table keeps the newest rows
 * runs (runs_left_out says how many older ones it leaves out), the charts
 * every run */
static cJSON *build(const cJSON *doc, const void *typed, const char *png_dir, int rows, pc_err *err, int *rc) {
    const pc_trend_result *t = typed;
    cJSON *v = cJSON_Duplicate(doc, 1);
    chart_out co = rv_begin_view(v, png_dir, err);
    trend_charts(&co, t);
    /* the badge says what the sentence says (#47): a shift the change-point test has not called */
    cJSON *nw = cJSON_GetObjectItem(v, "newest");
    if (nw) {
        const pc_trend_newest *o = &t->newest;
        char badge[96];
        int unconfirmed = o->shift_run && !o->confirmed && (!strcmp(o->verdict, "regression") || !strcmp(o->verdict, "improvement"));
        snprintf(badge, sizeof badge, "%s%s", o->verdict, unconfirmed ? ", not yet a confirmed change point" : "");
        cJSON_AddStringToObject(nw, "badge", badge);
    }
    double prev = NAN;
    cJSON *r = cJSON_GetObjectItem(v, "runs")->child;
    for (int i = 0; i < t->nruns && r; i++, r = r->next) {
        double s = t->runs[i].step_ns;
        if (isfinite(s) && isfinite(prev) && prev > 0) cJSON_AddNumberToObject(r, "vs_previous_pct", 100 * (s - prev) / prev);
        if (isfinite(s)) prev = s;
        /* the link to the run's report: a path made of folder names, so an href that no name can turn into a scheme */
        const char *rep = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "report"));
        if (rep) {
            sbuf h = {0};
            sbuf_href_path(&h, rep);
            cJSON_ReplaceItemInObjectCaseSensitive(r, "report", cJSON_CreateString(h.data));
            sbuf_free(&h);
        }
    }
    cJSON *ra = cJSON_GetObjectItem(v, "runs");
    int left_out = rows > 0 && cJSON_GetArraySize(ra) > rows ? cJSON_GetArraySize(ra) - rows : 0;
    for (int i = 0; i < left_out; i++) cJSON_DeleteItemFromArray(ra, 0);
    if (left_out) cJSON_AddNumberToObject(v, "runs_left_out", left_out);
    *rc = co.rc;
    return v;
}

int pc_trend_write(const pc_trend_result *t, const pc_report_opts *o, pc_err *err) {
    static const int md_rows[] = {0, 150, 40, 10}; /* every run, then only the newest until trend.md fits */
    pc_doc *doc = pc_trend_json(t);
    int rc = rv_write_doc(doc, t, o, "trend", build, 0, md_rows, 4, err);
    pc_doc_free(doc);
    return rc;
}
