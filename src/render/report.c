/* report.c - the view (summary + what only presentation needs: charts,
 * bounded tables) and the files made from it. */
#include "report.h"
#include "view.h"
#include <ctype.h>
#include "chart.h"
#include "tmpl.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

extern const struct embedded_file { const char *name; const unsigned char *data; size_t len; } pc_embedded[];

char *pc_asset(const char *dir, const char *name, size_t *len) {
    if (dir) {
        char *p = fs_join(dir, name), *data;
        size_t n;
        pc_err e;
        int rc = fs_read_all(p, &data, &n, (size_t)16 << 20, &e);
        free(p);
        if (rc == 0) { if (len) *len = n; return data; }
    }
    for (int i = 0; pc_embedded[i].name; i++)
        if (!strcmp(pc_embedded[i].name, name)) {
            char *d = xmalloc(pc_embedded[i].len + 1);
            memcpy(d, pc_embedded[i].data, pc_embedded[i].len);
            d[pc_embedded[i].len] = 0;
            if (len) *len = pc_embedded[i].len;
            return d;
        }
    return NULL;
}

/* Keeps the first `keep` elements of array `key` in obj; records how many
 * were left out as key_more and the full count as key_total. */
static void count_rows(cJSON *obj, const char *key, size_t n, size_t keep) {
    char k[96];
    snprintf(k, sizeof k, "%s_total", key);
    cJSON_AddNumberToObject(obj, k, (double)n);
    snprintf(k, sizeof k, "%s_more", key);
    cJSON_AddNumberToObject(obj, k, n > keep ? (double)(n - keep) : 0);
}

void rv_limit(cJSON *obj, const char *key, int keep) {
    cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(a)) return;
    count_rows(obj, key, (size_t)cJSON_GetArraySize(a), keep > 0 ? (size_t)keep : 0);
    rv_cut(obj, key, keep);
}

void rv_cut(cJSON *obj, const char *key, int keep) {
    cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) <= keep) return;
    /* cut the list after its keep-th element, in one pass (deleting from the
     * end one by one walks the list each time: quadratic in the rows) */
    if (keep <= 0) {
        cJSON *all = a->child;
        a->child = NULL;
        cJSON_Delete(all);
        return;
    }
    cJSON *last = a->child;
    for (int i = 1; i < keep; i++) last = last->next;
    cJSON *tail = last->next;
    last->next = NULL;
    a->child->prev = last;
    tail->prev = NULL;
    cJSON_Delete(tail);
}


void rv_fmt_unit(sbuf *b, double v, int unit) {
    if (unit == UNIT_NS) fmt_dur(b, v);
    else if (unit == UNIT_PCT) sbuf_printf(b, "%.1f%%", v);
    else if (unit == UNIT_BYTES) fmt_bytes(b, v);
    else sbuf_printf(b, "%.4g", v);
}

/* Rows {label, value} for a chart's data table, from parallel arrays. */
cJSON *rv_data_rows(const char *const *labels, const double *vals, size_t n, int unit) {
    cJSON *data = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "label", labels[i]);
        sbuf b = {0};
        rv_fmt_unit(&b, vals[i], unit);
        cJSON_AddStringToObject(r, "value", b.data ? b.data : "");
        sbuf_free(&b);
        cJSON_AddItemToArray(data, r);
    }
    return data;
}

/* Rows for series charts: one row per category (STACKED) or per point, the
 * value listing every series. */
cJSON *rv_series_rows(const chart *c) {
    cJSON *data = cJSON_CreateArray();
    size_t n = c->kind == CHART_STACKED ? c->ncat : (c->nseries ? c->series[0].n : 0);
    for (size_t i = 0; i < n && i < 500; i++) {
        cJSON *r = cJSON_CreateObject();
        sbuf lab = {0}, val = {0};
        if (c->kind == CHART_STACKED) sbuf_puts(&lab, c->categories[i]);
        else rv_fmt_unit(&lab, c->series[0].x[i], c->xunit);
        for (size_t s2 = 0; s2 < c->nseries; s2++) {
            if (i >= c->series[s2].n) continue;
            if (val.len) sbuf_puts(&val, " · ");
            sbuf_printf(&val, "%s ", c->series[s2].name);
            rv_fmt_unit(&val, c->series[s2].y[i], c->unit);
        }
        cJSON_AddStringToObject(r, "label", lab.data ? lab.data : "");
        cJSON_AddStringToObject(r, "value", val.data ? val.data : "");
        sbuf_free(&lab);
        sbuf_free(&val);
        cJSON_AddItemToArray(data, r);
    }
    return data;
}

chart_out rv_begin_view(cJSON *doc, const char *png_dir, pc_err *err) {
    while (cJSON_GetObjectItemCaseSensitive(doc, "view")) cJSON_DeleteItemFromObjectCaseSensitive(doc, "view");
    cJSON *view = cJSON_AddObjectToObject(doc, "view");
    cJSON_AddStringToObject(view, "version", PC_VERSION);
    return (chart_out){cJSON_AddObjectToObject(view, "charts"), png_dir, 0, err, 0};
}

/* Adds view.charts.<id> = {svg or png, title, data:[{label,value}]}; takes data. */
cJSON *rv_add_chart(chart_out *co, const char *id, const chart *c, cJSON *data) {
    char pfx[32];
    snprintf(pfx, sizeof pfx, "c%d-", co->counter++);
    cJSON *ch = cJSON_AddObjectToObject(co->charts, id);
    if (!co->dir) {
        /* SVG for report.html; the Markdown and e-mail views use the PNGs only */
        char *svg = chart_svg(c, pfx);
        cJSON_AddStringToObject(ch, "svg", svg);
        free(svg);
    }
    cJSON_AddStringToObject(ch, "title", c->title ? c->title : "");
    cJSON_AddItemToObject(ch, "data", data);
    if (co->dir && co->rc == 0) {
        char name[128];
        snprintf(name, sizeof name, "charts/%s.png", id);
        char *p = fs_join(co->dir, name);
        co->rc = chart_png(c, p, co->err);
        free(p);
        cJSON_AddStringToObject(ch, "png", name);
    }
    return ch;
}

static void add_chart(chart_out *co, const char *id, const chart *c, const char *const *dlabels, const double *dvals,
                      size_t dn, int unit) {
    rv_add_chart(co, id, c, rv_data_rows(dlabels, dvals, dn, unit));
}

static void kernel_charts(chart_out *co, cJSON *v, int rows) {
    cJSON *devs = (cJSON *)sj_get(v, "kernels.devices"), *d;
    cJSON_ArrayForEach(d, devs) {
        const cJSON *rs = cJSON_GetObjectItemCaseSensitive(d, "rows");
        int n = cJSON_GetArraySize(rs);
        if (n > 15) n = 15;
        if (n > 0) {
            const char **labels = xcalloc((size_t)n, sizeof *labels);
            double *vals = xcalloc((size_t)n, sizeof *vals);
            for (int i = 0; i < n; i++) {
                const cJSON *r = cJSON_GetArrayItem(rs, i);
                labels[i] = sj_getstr(r, "name", "");
                vals[i] = sj_getnum(r, "total_ns", 0);
            }
            char title[96], id[32];
            int dev = (int)sj_getnum(d, "device", 0);
            snprintf(title, sizeof title, "Top %d kernels by total time, device %d", n, dev);
            snprintf(id, sizeof id, "kernels_dev%d", dev < 0 ? 999 : dev);
            chart c = {.kind = CHART_HBAR, .title = title, .xlabel = "total time", .unit = UNIT_NS,
                       .labels = labels, .values = vals, .n = (size_t)n};
            add_chart(co, id, &c, labels, vals, (size_t)n, UNIT_NS);
            cJSON_AddItemReferenceToObject(d, "chart", cJSON_GetObjectItemCaseSensitive(co->charts, id));
            free(labels);
            free(vals);
        }
        rv_cut(d, "rows", rows);
    }
}

/* Pie (top 9 + "other", so that each slice keeps a distinct color) and bar
 * (top 20) of the operator types. */
static void type_charts(chart_out *co, cJSON *v) {
    const cJSON *rows = sj_get(v, "operator_types.rows");
    int n = (int)sj_getnum(v, "operator_types.rows_total", 0), shown = cJSON_GetArraySize(rows);
    if (n == 0 || shown == 0) return;
    int nb = shown < 20 ? shown : 20, np = n <= 10 ? (shown < n ? shown : n) : (shown < 9 ? shown : 9);
    const char **labels = xcalloc(21, sizeof *labels);
    double *vals = xcalloc(21, sizeof *vals);
    int colors[21];
    const char *basis = sj_getstr(v, "operator_types.time_basis", "device");
    for (int i = 0; i < nb; i++) {
        const cJSON *r = cJSON_GetArrayItem(rows, i);
        labels[i] = sj_getstr(r, "type", "");
        vals[i] = sj_getnum(r, "time_ns", 0);
        colors[i] = 0;
    }
    char title[128];
    snprintf(title, sizeof title, "Top %d operator types by %s time", nb, basis);
    chart bar = {.kind = CHART_HBAR, .title = title, .xlabel = !strcmp(basis, "device") ? "device time" : "CPU time",
                 .unit = UNIT_NS, .labels = labels, .values = vals, .colors = colors, .n = (size_t)nb};
    add_chart(co, "types_bar", &bar, labels, vals, (size_t)nb, UNIT_NS);
    /* the view holds the first rows only: "other" is the total less them */
    double other = sj_getnum(v, "operator_types.total_ns", 0);
    for (int i = 0; i < np; i++) other -= vals[i];
    if (other < 0) other = 0;

    for (int i = 0; i < np; i++) colors[i] = i < 8 ? i : 9; /* 8 is the gray of "other" */
    int npie = np;
    if (n > np) {
        labels[npie] = "other types";
        vals[npie] = other;
        colors[npie] = 8;
        npie++;
    }
    snprintf(title, sizeof title, "Share of %s time by operator type", basis);
    chart pie = {.kind = CHART_PIE, .title = title, .unit = UNIT_NS, .labels = labels, .values = vals, .colors = colors, .n = (size_t)npie};
    add_chart(co, "types_pie", &pie, labels, vals, (size_t)npie, UNIT_NS);
    free(labels);
    free(vals);
}

/* Steps: phases (stacked), duration and data wait (lines), breakdown
 * (stacked, category colors), GPU utilization over time, CPU and queues. */
static void step_charts(chart_out *co, cJSON *v) {
    const cJSON *rows = sj_get(v, "steps.rows");
    size_t n = (size_t)cJSON_GetArraySize(rows);
    if (n == 0) return;
    char **labels = xcalloc(n, sizeof *labels);
    double *x = xcalloc(n, sizeof *x), *ph[3], *dur = xcalloc(n, sizeof *dur), *dw = xcalloc(n, sizeof *dw);
    for (int k = 0; k < 3; k++) ph[k] = xcalloc(n, sizeof(double));
    static const char *const bk[8] = {"kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "runtime_ns", "dataloader_ns", "cpu_op_ns", "other_ns"};
    static const char *const bn[8] = {"kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu", "other"};
    static const char *const bl[8] = {"Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU operator", "Other (idle)"};
    double *bd[8];
    for (int k = 0; k < 8; k++) bd[k] = xcalloc(n, sizeof(double));
    /* at most 120 bars: consecutive steps averaged in groups */
    size_t total = n, g = n > 120 ? (n + 119) / 120 : 1;
    n = (total + g - 1) / g;
    size_t i = 0, in_group = 0;
    long long first_no = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, rows) {
        size_t gi = i / g;
        long long no = (long long)sj_getnum(r, "number", (double)i);
        if (in_group == 0) first_no = no;
        x[gi] += sj_getnum(r, "number", (double)i) / (double)g;
        ph[0][gi] += sj_getnum(r, "iteration_interval_ns", 0);
        ph[1][gi] += sj_getnum(r, "fp_bp_ns", 0);
        ph[2][gi] += sj_getnum(r, "tail_ns", 0);
        dur[gi] += sj_getnum(r, "duration_ns", 0);
        dw[gi] += sj_getnum(r, "data_wait_ns", 0);
        for (int k = 0; k < 8; k++) {
            char path[64];
            snprintf(path, sizeof path, "breakdown.%s", bk[k]);
            bd[k][gi] += sj_getnum(r, path, 0);
        }
        in_group++;
        i++;
        if (in_group == g || i == total) {
            char buf[48];
            if (g == 1) snprintf(buf, sizeof buf, "#%lld", no);
            else snprintf(buf, sizeof buf, "#%lld-%lld", first_no, no);
            labels[gi] = xstrdup(buf);
            double k2 = (double)in_group;
            x[gi] = x[gi] * (double)g / k2;
            ph[0][gi] /= k2, ph[1][gi] /= k2, ph[2][gi] /= k2, dur[gi] /= k2, dw[gi] /= k2;
            for (int k = 0; k < 8; k++) bd[k][gi] /= k2;
            in_group = 0;
        }
    }
    chart_series ps[3] = {{"iteration interval", NULL, ph[0], n, 1}, {"forward + backward", NULL, ph[1], n, 0},
                          {"tail", NULL, ph[2], n, 2}};
    chart c1 = {.kind = CHART_STACKED, .title = "Step phases", .xlabel = "step", .ylabel = "time", .unit = UNIT_NS,
                .series = ps, .nseries = 3, .categories = (const char *const *)labels, .ncat = n};
    rv_add_chart(co, "steps_phases", &c1, rv_series_rows(&c1));
    chart_series ls[2] = {{"step time", x, dur, n, 0}, {"data wait", x, dw, n, 2}};
    chart c2 = {.kind = CHART_LINE, .title = "Step time and data wait per step", .xlabel = "step", .ylabel = "time",
                .unit = UNIT_NS, .xunit = UNIT_COUNT, .series = ls, .nseries = 2};
    rv_add_chart(co, "steps_lines", &c2, rv_series_rows(&c2));
    chart_series bs[8];
    for (int k = 0; k < 8; k++) bs[k] = (chart_series){bl[k], NULL, bd[k], n, chart_category_color(bn[k])};
    chart c3 = {.kind = CHART_STACKED, .title = "Where each step's time goes", .xlabel = "step", .ylabel = "time",
                .unit = UNIT_NS, .series = bs, .nseries = 8, .categories = (const char *const *)labels, .ncat = n};
    rv_add_chart(co, "breakdown", &c3, rv_series_rows(&c3));
    chart_series ds[1] = {{"data wait", NULL, dw, n, chart_category_color("dataloader")}};
    chart c4 = {.kind = CHART_STACKED, .title = "Data loading wait per step", .xlabel = "step", .ylabel = "time",
                .unit = UNIT_NS, .series = ds, .nseries = 1, .categories = (const char *const *)labels, .ncat = n};
    rv_add_chart(co, "data_wait", &c4, rv_series_rows(&c4));
    /* step boundaries as marks on time charts (at most 120 of them) */
    double *marks = xcalloc(n, sizeof *marks);
    size_t nmarks = 0;
    i = 0;
    cJSON_ArrayForEach(r, rows) {
        if (i++ % g == 0 && nmarks < n) marks[nmarks++] = sj_getnum(r, "start_ns", 0);
    }
    /* GPU utilization over time, per device */
    const cJSON *d;
    cJSON_ArrayForEach(d, sj_get(v, "gpu.devices")) {
        const cJSON *pts = sj_get(d, "timeline.points");
        size_t m = (size_t)cJSON_GetArraySize(pts);
        if (!m) continue;
        double *tx = xcalloc(m, sizeof *tx), *ty = xcalloc(m, sizeof *ty);
        size_t j = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, pts) tx[j] = sj_getnum(p, "t_ns", 0), ty[j++] = sj_getnum(p, "utilization_pct", 0);
        char id[32], title[96];
        int dev = (int)sj_getnum(d, "device", 0);
        snprintf(id, sizeof id, "gpu_util_dev%d", dev < 0 ? 999 : dev);
        snprintf(title, sizeof title, "GPU %d utilization over time (buckets of %s)", dev,
                 sj_getnum(d, "timeline.bucket_ns", 0) >= 1e6 ? "1 ms or more" : "µs");
        chart_series us[1] = {{"GPU utilization", tx, ty, m, 0}};
        chart c5 = {.kind = CHART_LINE, .title = title, .xlabel = "time since trace start", .ylabel = "utilization",
                    .unit = UNIT_PCT, .xunit = UNIT_NS, .series = us, .nseries = 1, .marks = marks, .nmarks = nmarks};
        cJSON *ch = rv_add_chart(co, id, &c5, rv_series_rows(&c5));
        cJSON_AddItemReferenceToObject((cJSON *)d, "chart", ch);
        free(tx);
        free(ty);
    }
    /* CPU utilization */
    const cJSON *cs = sj_get(v, "cpu.series");
    size_t m = (size_t)cJSON_GetArraySize(cs);
    if (m) {
        static const char *const cn[4] = {"user", "system", "iowait", "process"};
        static const int cc[4] = {0, 4, 1, 2};
        double *tx = xcalloc(m, sizeof *tx), *ty[4];
        for (int k = 0; k < 4; k++) ty[k] = xcalloc(m, sizeof(double));
        size_t j = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, cs) {
            tx[j] = sj_getnum(p, "t_ns", 0);
            for (int k = 0; k < 4; k++) ty[k][j] = sj_getnum(p, cn[k], 0);
            j++;
        }
        chart_series us[4];
        for (int k = 0; k < 4; k++) us[k] = (chart_series){cn[k], tx, ty[k], m, cc[k]};
        chart c6 = {.kind = CHART_LINE, .title = "CPU utilization (% of all CPUs; dashed lines: step starts)", .xlabel = "time since trace start",
                    .ylabel = "utilization", .unit = UNIT_PCT, .xunit = UNIT_NS, .series = us, .nseries = 4, .marks = marks, .nmarks = nmarks};
        rv_add_chart(co, "cpu", &c6, rv_series_rows(&c6));
        free(tx);
        for (int k = 0; k < 4; k++) free(ty[k]);
    }
    /* queues */
    const cJSON *q;
    int qi = 0;
    cJSON_ArrayForEach(q, sj_get(v, "queues.rows")) {
        const cJSON *ser = cJSON_GetObjectItem(q, "series");
        size_t k = (size_t)cJSON_GetArraySize(ser);
        if (!k) continue;
        double *tx = xcalloc(k, sizeof *tx), *ty = xcalloc(k, sizeof *ty), *cap = xcalloc(k, sizeof *cap);
        size_t j = 0;
        const cJSON *p;
        double capv = sj_getnum(q, "capacity", 0);
        cJSON_ArrayForEach(p, ser) tx[j] = sj_getnum(p, "t_ns", 0), ty[j] = sj_getnum(p, "size", 0), cap[j++] = capv;
        chart_series us[2] = {{"size", tx, ty, k, 0}, {"capacity", tx, cap, k, 8}};
        char id[32], title[160];
        snprintf(id, sizeof id, "queue%d", qi++);
        snprintf(title, sizeof title, "Queue %s: size over time", sj_getstr(q, "name", ""));
        chart c7 = {.kind = CHART_LINE, .title = title, .xlabel = "time since trace start", .ylabel = "items",
                    .unit = UNIT_COUNT, .xunit = UNIT_NS, .series = us, .nseries = capv > 0 ? 2 : 1, .marks = marks, .nmarks = nmarks};
        cJSON *ch = rv_add_chart(co, id, &c7, rv_series_rows(&c7));
        cJSON_AddItemReferenceToObject((cJSON *)q, "chart", ch);
        free(tx);
        free(ty);
        free(cap);
    }
    free(marks);
    for (i = 0; i < n; i++) free(labels[i]);
    free(labels);
    (void)total;
    free(x);
    free(dur);
    free(dw);
    for (int k = 0; k < 3; k++) free(ph[k]);
    for (int k = 0; k < 8; k++) free(bd[k]);
}

static void timeline_chart(chart_out *co, cJSON *v) {
    const cJSON *rows = sj_get(v, "timeline.rows");
    size_t nr = (size_t)cJSON_GetArraySize(rows);
    if (!nr) return;
    chart_row *cr = xcalloc(nr, sizeof *cr);
    size_t i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, rows) {
        const cJSON *bx = cJSON_GetObjectItem(r, "boxes");
        size_t n = (size_t)cJSON_GetArraySize(bx);
        double *s = xcalloc(n ? n : 1, sizeof *s), *e = xcalloc(n ? n : 1, sizeof *e);
        int *col = xcalloc(n ? n : 1, sizeof *col);
        size_t k = 0;
        const cJSON *b;
        cJSON_ArrayForEach(b, bx) {
            /* [start, end, category]; anything else (a summary from elsewhere) is skipped */
            const cJSON *b0 = b->child, *b1 = b0 ? b0->next : NULL, *b2 = b1 ? b1->next : NULL;
            if (!cJSON_IsNumber(b0) || !cJSON_IsNumber(b1) || !cJSON_IsString(b2) || k >= n) continue;
            s[k] = b0->valuedouble;
            e[k] = b1->valuedouble;
            col[k++] = chart_category_color(b2->valuestring);
        }
        cr[i++] = (chart_row){sj_getstr(r, "label", ""), s, e, col, k};
    }
    static const char *const names[] = {"kernel", "communication", "memcpy", "memset", "cpu", "runtime", "dataloader"};
    static const char *const shown[] = {"Kernel", "Communication (NCCL)", "Memcpy", "Memset", "CPU operator", "Runtime (API call)", "DataLoader"};
    int cols[7];
    for (int k = 0; k < 7; k++) cols[k] = chart_category_color(names[k]);
    char title[200];
    snprintf(title, sizeof title, "Timeline of %s (the median step)", sj_getstr(v, "timeline.step", ""));
    chart c = {.kind = CHART_TIMELINE, .title = title, .xlabel = "time since the step's start", .rows = cr, .nrows = nr,
               .legend_names = shown, .legend_colors = cols, .nlegend = 7, .width = 1000};
    cJSON *data = cJSON_CreateArray();
    cJSON_ArrayForEach(r, rows) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "label", sj_getstr(r, "label", ""));
        char buf[64];
        snprintf(buf, sizeof buf, "%d boxes", cJSON_GetArraySize(cJSON_GetObjectItem(r, "boxes")));
        cJSON_AddStringToObject(x, "value", buf);
        cJSON_AddItemToArray(data, x);
    }
    rv_add_chart(co, "timeline", &c, data);
    for (i = 0; i < nr; i++) free((void *)cr[i].s), free((void *)cr[i].e), free((void *)cr[i].color);
    free(cr);
    /* the boxes are in the chart; drop them from the view */
    cJSON *tl = cJSON_GetObjectItem(v, "timeline");
    cJSON_DeleteItemFromObject(tl, "rows");
}

/* Distributed jobs: compute, communication and idle per step, per rank */
static void rank_charts(chart_out *co, cJSON *v) {
    const cJSON *rows = sj_get(v, "ranks.rows");
    size_t n = (size_t)cJSON_GetArraySize(rows);
    if (n < 2) return;
    char **labels = xcalloc(n, sizeof *labels);
    double *y[3];
    for (int k = 0; k < 3; k++) y[k] = xcalloc(n, sizeof(double));
    size_t i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, rows) {
        char b[32];
        snprintf(b, sizeof b, "rank %d", (int)sj_getnum(r, "rank", 0));
        labels[i] = xstrdup(b);
        y[0][i] = sj_getnum(r, "compute_ns", 0);
        y[1][i] = sj_getnum(r, "communication_ns", 0);
        y[2][i] = sj_getnum(r, "idle_ns", 0);
        i++;
    }
    chart_series s[3] = {{"compute (kernels)", NULL, y[0], n, chart_category_color("kernel")},
                         {"communication (NCCL, not overlapped)", NULL, y[1], n, chart_category_color("communication")},
                         {"idle", NULL, y[2], n, chart_category_color("idle")}};
    chart c = {.kind = CHART_STACKED, .title = "Per rank: where an average step goes", .xlabel = "rank", .ylabel = "time per step",
               .unit = UNIT_NS, .series = s, .nseries = 3, .categories = (const char *const *)labels, .ncat = n};
    rv_add_chart(co, "ranks", &c, rv_series_rows(&c));
    for (i = 0; i < n; i++) free(labels[i]);
    free(labels);
    for (int k = 0; k < 3; k++) free(y[k]);
}

/* The tables in a copy of the document: their first rows as JSON (at least
 * what the charts need: 15 kernels, 20 operator types), KEY_total and
 * KEY_more (beyond `rows`) beside them; summary.json has every row. */
static void materialize(const pc_summary *s, cJSON *o, int rows) {
    cJSON *c, *next;
    for (c = o ? o->child : NULL; c; c = next) {
        next = c->next;
        const pc_table *t = pc_summary_table_of(s, c);
        if (!t) {
            materialize(s, c, rows);
            continue;
        }
        size_t keep = rows > 0 ? (size_t)rows : 0, need = keep;
        if (t->def == &pc_table_defs[TAB_kernel] && need < 15) need = 15;
        if (t->def == &pc_table_defs[TAB_optype] && need < 20) need = 20;
        char *key = strdup(c->string);
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, tab_to_json(t, need));
        count_rows(o, key, t->n, keep);
        free(key);
    }
}

/* Builds the view for one output: a copy of the summary, bounded, plus charts. */
static cJSON *build_view(const pc_summary *summary, const pc_report_opts *o, const char *png_dir, int rows, pc_err *err, int *rc) {
    cJSON *v = cJSON_Duplicate(summary->doc, 1);
    materialize(summary, v, rows);
    chart_out co = rv_begin_view(v, png_dir, err);
    kernel_charts(&co, v, rows);
    type_charts(&co, v);
    step_charts(&co, v);
    timeline_chart(&co, v);
    rank_charts(&co, v);
    cJSON *steps = cJSON_GetObjectItemCaseSensitive(v, "steps");
    if (steps) rv_limit(steps, "rows", rows * 4);
    static const char *const bounded[] = {"api_calls", "transfers", NULL};
    for (int i = 0; bounded[i]; i++) {
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(v, bounded[i]);
        if (sec) rv_limit(sec, "rows", rows);
    }
    static const char *const tables[] = {"operators", "operator_types", "modules", NULL};
    for (int i = 0; tables[i]; i++) {
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(v, tables[i]);
        if (sec) rv_cut(sec, "rows", rows); /* counted when materialized */
    }
    cJSON *mem = cJSON_GetObjectItemCaseSensitive(v, "memory");
    if (mem) rv_limit(mem, "top_operators", rows < 20 ? rows : 20);
    (void)o;
    *rc = co.rc;
    return v;
}

int rv_render_text(const char *tmpl_name, const pc_report_opts *o, const cJSON *view, esc_mode mode, sbuf *out, pc_err *err) {
    size_t n;
    char *t = pc_asset(o->templates_dir, tmpl_name, &n);
    if (!t) return PC_ERRF(err, PC_EIO, "template %s is missing", tmpl_name);
    out->len = 0;
    int rc = tmpl_render(t, n, view, mode, out, err);
    if (rc) {
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        m[200] = 0;
        PC_ERRF(err, rc, "template %s: %s", tmpl_name, m);
    }
    free(t);
    return rc;
}

/* ---- CSV: every table of the summary, whole ---- */

static void csv_value(sbuf *b, const cJSON *v) {
    if (cJSON_IsString(v)) sbuf_csv(b, v->valuestring, strlen(v->valuestring));
    else if (cJSON_IsNumber(v)) {
        double x = v->valuedouble;
        if (x < 9e15 && x > -9e15 && x == (double)(long long)x) sbuf_printf(b, "%lld", (long long)x);
        else sbuf_printf(b, "%.9g", x);
    } else if (cJSON_IsBool(v)) sbuf_puts(b, cJSON_IsTrue(v) ? "true" : "false");
}

static void csv_header(sbuf *b, const cJSON *row, const char *prefix, int *first) {
    const cJSON *m;
    cJSON_ArrayForEach(m, row) {
        if (cJSON_IsArray(m)) continue;
        char key[128];
        snprintf(key, sizeof key, "%s%s", prefix, m->string);
        if (cJSON_IsObject(m)) {
            char p2[160];
            snprintf(p2, sizeof p2, "%s.", key);
            csv_header(b, m, p2, first);
            continue;
        }
        if (!*first) sbuf_putc(b, ',');
        *first = 0;
        sbuf_csv(b, key, strlen(key));
    }
}

static void csv_row(sbuf *b, const cJSON *hdr_row, const cJSON *row, int *first) {
    const cJSON *m;
    cJSON_ArrayForEach(m, hdr_row) {
        if (cJSON_IsArray(m)) continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, m->string);
        if (cJSON_IsObject(m)) { csv_row(b, m, v, first); continue; }
        if (!*first) sbuf_putc(b, ',');
        *first = 0;
        if (v) csv_value(b, v);
    }
}

static int write_csv(const char *dir, const char *name, const cJSON *rows, const char *extra_key, const cJSON *extra_val,
                     pc_err *err) {
    const cJSON *first_row = cJSON_GetArrayItem(rows, 0);
    if (!first_row) return 0;
    sbuf b = {0};
    int f = 1;
    if (extra_key) { sbuf_puts(&b, extra_key); f = 0; }
    csv_header(&b, first_row, "", &f);
    sbuf_puts(&b, "\r\n");
    const cJSON *r;
    cJSON_ArrayForEach(r, rows) {
        f = 1;
        if (extra_key) { csv_value(&b, extra_val); f = 0; }
        csv_row(&b, first_row, r, &f);
        sbuf_puts(&b, "\r\n");
    }
    char *p = fs_join(dir, name);
    int rc = fs_write_atomic(p, b.data, b.len, err);
    free(p);
    sbuf_free(&b);
    return rc;
}

/* a table's rows, whole: its columns' keys as the header, nulls empty */
static void csv_table(sbuf *b, const pc_table *t, int with_header, const char *first_col, const char *first_val) {
    const pc_table_def *d = t->def;
    if (with_header) {
        if (first_col) sbuf_printf(b, "%s,", first_col);
        for (size_t q = 0; q < d->ncols; q++) {
            if (q) sbuf_putc(b, ',');
            sbuf_csv(b, d->cols[q].key, strlen(d->cols[q].key));
        }
        sbuf_puts(b, "\r\n");
    }
    for (size_t i = 0; i < t->n; i++) {
        const char *row = (const char *)t->rows + i * d->row_size;
        if (first_val) sbuf_printf(b, "%s,", first_val);
        for (size_t q = 0; q < d->ncols; q++) {
            const pc_col *c = &d->cols[q];
            if (q) sbuf_putc(b, ',');
            switch (c->kind) {
            case 'S': { tk_S x = *(const tk_S *)(row + c->off); if (x) sbuf_csv(b, x, strlen(x)); break; }
            case 'I': { tk_I x = *(const tk_I *)(row + c->off); if (x != PC_NULL_I) sbuf_printf(b, "%lld", (long long)x); break; }
            case 'F': { tk_F x = *(const tk_F *)(row + c->off); if (isfinite(x)) sbuf_printf(b, "%.9g", x); break; }
            case 'B': { tk_B x = *(const tk_B *)(row + c->off); if (x >= 0) sbuf_puts(b, x ? "true" : "false"); break; }
            }
        }
        sbuf_puts(b, "\r\n");
    }
}

static int write_file(const char *dir, const char *name, const sbuf *b, pc_err *err) {
    char *p = fs_join(dir, name);
    int rc = fs_write_atomic(p, b->data ? b->data : "", b->len, err);
    free(p);
    return rc;
}

static int write_csvs(const pc_summary *ps, const char *dir, pc_err *err) {
    const cJSON *s = ps->doc;
    static const char *const tables[][2] = {{"steps.rows", "steps.csv"}, {"api_calls.rows", "api_calls.csv"},
                                            {"transfers.rows", "transfers.csv"}, {"memory.top_operators", "memory_operators.csv"},
                                            {"suggestions.rows", "suggestions.csv"}};
    int rc = 0;
    for (size_t i = 0; i < sizeof tables / sizeof *tables && !rc; i++)
        rc = write_csv(dir, tables[i][1], sj_get(s, tables[i][0]), NULL, NULL, err);
    static const char *const typed[][2] = {{"operators.rows", "operators.csv"}, {"operator_types.rows", "operator_types.csv"},
                                           {"modules.rows", "modules.csv"}};
    for (size_t i = 0; i < sizeof typed / sizeof *typed && !rc; i++) {
        const pc_table *t = pc_summary_table(ps, typed[i][0]);
        if (!t || !t->n) continue;
        sbuf b = {0};
        csv_table(&b, t, 1, NULL, NULL);
        rc = write_file(dir, typed[i][1], &b, err);
        sbuf_free(&b);
    }
    /* kernels: one file, a device column first */
    sbuf all = {0};
    const cJSON *d;
    int header = 0;
    cJSON_ArrayForEach(d, sj_get(s, "kernels.devices")) {
        const pc_table *t = pc_summary_table_of(ps, cJSON_GetObjectItemCaseSensitive(d, "rows"));
        if (!t || !t->n) continue;
        char dev[32];
        snprintf(dev, sizeof dev, "%lld", (long long)sj_getnum(d, "device", 0));
        csv_table(&all, t, !header, "device", dev);
        header = 1;
    }
    if (!rc && header) rc = write_file(dir, "kernels.csv", &all, err);
    sbuf_free(&all);
    return rc;
}

/* ---- e-mail: multipart/related { multipart/alternative { text, html }, PNGs } ---- */

/* header values come from the user: no line breaks, RFC 2047 when not ASCII */
static void header_value(sbuf *b, const char *v) {
    int ascii = 1;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) ascii &= *p >= 32 && *p < 127;
    if (ascii) { sbuf_puts(b, v); return; }
    sbuf clean = {0};
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p >= 32 || *p == '\t') sbuf_putc(&clean, (char)*p);
    sbuf_puts(b, "=?utf-8?B?");
    sbuf_base64(b, clean.data ? clean.data : "", clean.len, 0);
    sbuf_puts(b, "?=");
    sbuf_free(&clean);
}

/* a chart file this run wrote: "charts/" [a-z0-9_]+ ".png", nothing else is ever opened */
static int own_chart_file(const char *p) {
    if (strncmp(p, "charts/", 7)) return 0;
    p += 7;
    size_t n = strlen(p);
    if (n < 5 || strcmp(p + n - 4, ".png")) return 0;
    for (size_t i = 0; i + 4 < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_')) return 0;
    return 1;
}

static int write_email(const cJSON *view, const pc_report_opts *o, const char *md, size_t mdlen, pc_err *err) {
    sbuf html = {0};
    int rc = rv_render_text("email.html", o, view, ESC_HTML, &html, err);
    if (rc) { sbuf_free(&html); return rc; }
    sbuf m = {0};
    char date[64];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tmv);
    sbuf_puts(&m, "From: perfcard <perfcard@localhost>\r\n");
    if (o->email_to) { sbuf_puts(&m, "To: "); header_value(&m, o->email_to); sbuf_puts(&m, "\r\n"); }
    sbuf_puts(&m, "Subject: ");
    char subj[512];
    if (o->email_subject) snprintf(subj, sizeof subj, "%s", o->email_subject);
    else {
        sbuf sb = {0};
        fmt_dur(&sb, sj_getnum(view, "steps.median_ns", 0));
        /* the input's file name, as plain word characters: the value may come from someone else's summary */
        const char *in = sj_getstr(view, "run.input", ""), *slash = strrchr(in, '/');
        char base[80];
        size_t k = 0;
        for (const char *p = slash ? slash + 1 : in; *p && k + 1 < sizeof base; p++)
            base[k++] = (isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_') ? *p : '_';
        base[k] = 0;
        snprintf(subj, sizeof subj, "perfcard: %s, median step %s, %d suggestions", base,
                 sb.data ? sb.data : "", (int)sj_getnum(view, "suggestions.count", 0));
        sbuf_free(&sb);
    }
    header_value(&m, subj);
    sbuf_printf(&m, "\r\nDate: %s\r\nMessage-ID: <perfcard.%ld.%d@localhost>\r\nMIME-Version: 1.0\r\n", date, (long)now, (int)getpid());
    sbuf_puts(&m, "Content-Type: multipart/related; boundary=\"=_perfcard_related\"; type=\"multipart/alternative\"\r\n\r\n");
    sbuf_puts(&m, "This is a MIME message: a text and an HTML version of a perfcard summary.\r\n\r\n");
    sbuf_puts(&m, "--=_perfcard_related\r\nContent-Type: multipart/alternative; boundary=\"=_perfcard_alt\"\r\n\r\n");
    sbuf_puts(&m, "--=_perfcard_alt\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    sbuf_base64(&m, md, mdlen, 1);
    sbuf_puts(&m, "--=_perfcard_alt\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    sbuf_base64(&m, html.data ? html.data : "", html.len, 1);
    sbuf_puts(&m, "--=_perfcard_alt--\r\n");
    const cJSON *ch;
    cJSON_ArrayForEach(ch, sj_get(view, "view.charts")) {
        const char *png = sj_getstr(ch, "png", NULL), *cid = sj_getstr(ch, "cid", NULL);
        if (!png || !cid || !own_chart_file(png)) continue;
        char ref[128];
        snprintf(ref, sizeof ref, "cid:%s", cid);
        if (!html.data || !strstr(html.data, ref)) continue; /* attach only what the HTML shows */
        char *p = fs_join(o->dir, png), *data;
        size_t n;
        rc = fs_read_all(p, &data, &n, (size_t)64 << 20, err);
        free(p);
        if (rc) break;
        sbuf_printf(&m, "--=_perfcard_related\r\nContent-Type: image/png; name=\"%s.png\"\r\nContent-Transfer-Encoding: base64\r\n"
                        "Content-ID: <%s>\r\nContent-Disposition: inline; filename=\"%s.png\"\r\n\r\n", ch->string, cid, ch->string);
        sbuf_base64(&m, data, n, 1);
        free(data);
    }
    sbuf_puts(&m, "--=_perfcard_related--\r\n");
    if (!rc) {
        char *p = fs_join(o->dir, "summary.eml");
        rc = fs_write_atomic(p, m.data, m.len, err);
        free(p);
    }
    sbuf_free(&m);
    sbuf_free(&html);
    return rc;
}

void rv_add_assets(cJSON *view, const pc_report_opts *o) {
    cJSON *a = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(view, "view"), "assets");
    char *css = pc_asset(o->templates_dir, "report.css", NULL), *js = pc_asset(o->templates_dir, "report.js", NULL);
    cJSON_AddStringToObject(a, "css", css ? css : "");
    cJSON_AddStringToObject(a, "js", js ? js : "");
    free(css);
    free(js);
}

static int write_html(const pc_summary *summary, const pc_report_opts *o, pc_err *err) {
    sbuf out = {0};
    int rc = 0;
    /* bounded size: fewer rows per table until the page fits */
    static const int tries[] = {50, 25, 10, 5};
    int first = o->html_rows > 0 ? o->html_rows : 50;
    for (int i = -1; i < 4; i++) {
        int rows = i < 0 ? first : tries[i];
        if (i >= 0 && rows >= first) continue;
        cJSON *v = build_view(summary, o, NULL, rows, err, &rc);
        if (!rc) {
            rv_add_assets(v, o);
            rc = rv_render_text("report.html", o, v, ESC_HTML, &out, err);
        }
        cJSON_Delete(v);
        if (rc || out.len <= PC_HTML_MAX) break;
    }
    if (!rc) {
        char *p = fs_join(o->dir, "report.html");
        rc = fs_write_atomic(p, out.data ? out.data : "", out.len, err);
        free(p);
    }
    sbuf_free(&out);
    return rc;
}

/* summary.md with its PNG charts, and summary.eml */
static int write_md(const pc_summary *summary, const pc_report_opts *o, pc_err *err) {
    char *cd = fs_join(o->dir, "charts");
    int rc = fs_mkdirs(cd, err);
    free(cd);
    if (rc) return rc;
    sbuf out = {0};
    cJSON *v = NULL;
    static const int tries[] = {10, 5, 3, 1};
    for (int i = 0; i < 4; i++) {
        cJSON_Delete(v);
        v = build_view(summary, o, o->dir, tries[i], err, &rc);
        if (!rc) rc = rv_render_text("summary.md", o, v, ESC_MD, &out, err);
        if (rc || out.len <= PC_MD_MAX) break;
    }
    if (!rc && out.len > PC_MD_MAX) {
        /* still too long (very long names): cut at a line end, and say so */
        size_t cut = PC_MD_MAX - 200;
        while (cut > 0 && out.data[cut] != '\n') cut--;
        out.len = cut;
        sbuf_puts(&out, "\n\n_The summary was cut to fit 60,000 characters; report.html and summary.json have everything._\n");
    }
    if (!rc && (o->formats & OUT_MD)) {
        char *p = fs_join(o->dir, "summary.md");
        rc = fs_write_atomic(p, out.data ? out.data : "", out.len, err);
        free(p);
    }
    if (!rc && (o->formats & OUT_EMAIL)) {
        cJSON *ch;
        cJSON_ArrayForEach(ch, sj_get(v, "view.charts")) {
            char cid[96];
            snprintf(cid, sizeof cid, "%s@perfcard", ch->string);
            cJSON_AddStringToObject(ch, "cid", cid);
        }
        rc = write_email(v, o, out.data ? out.data : "", out.len, err);
    }
    cJSON_Delete(v);
    sbuf_free(&out);
    return rc;
}

typedef struct md_job { const pc_summary *s; const pc_report_opts *o; pc_err err; int rc; } md_job;
static void *md_thread(void *arg) {
    md_job *j = arg;
    j->rc = write_md(j->s, j->o, &j->err);
    return NULL;
}

int pc_report_write(const pc_summary *summary, const pc_report_opts *o, pc_err *err) {
    int rc = fs_mkdirs(o->dir, err);
    if (rc) return rc;
    /* the Markdown (and its PNG charts) renders on a second thread while the
     * HTML renders here: both only read the summary */
    md_job mj = {summary, o, {0}, 0};
    pthread_t th;
    int want_md = (o->formats & (OUT_MD | OUT_EMAIL)) != 0;
    int threaded = want_md && pthread_create(&th, NULL, md_thread, &mj) == 0;
    if (o->formats & OUT_JSON) {
        char *p = fs_join(o->dir, "summary.json");
        rc = pc_summary_write(summary, p, err);
        free(p);
    }
    if (!rc && (o->formats & OUT_CSV)) rc = write_csvs(summary, o->dir, err);
    if (!rc && (o->formats & OUT_HTML)) rc = write_html(summary, o, err);
    if (threaded) pthread_join(th, NULL);
    else if (want_md && !rc) md_thread(&mj);
    if (!rc && mj.rc) {
        *err = mj.err;
        rc = mj.rc;
    }
    return rc;
}
