/* report.c - the view (summary + what only presentation needs: charts,
 * bounded tables) and the files made from it. */
#include "report.h"
#include "chart.h"
#include "tmpl.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static void limit(cJSON *obj, const char *key, int keep) {
    cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(a)) return;
    int n = cJSON_GetArraySize(a);
    char k[96];
    snprintf(k, sizeof k, "%s_total", key);
    cJSON_AddNumberToObject(obj, k, n);
    snprintf(k, sizeof k, "%s_more", key);
    cJSON_AddNumberToObject(obj, k, n > keep ? n - keep : 0);
    while (cJSON_GetArraySize(a) > keep) cJSON_DeleteItemFromArray(a, cJSON_GetArraySize(a) - 1);
}

typedef struct chart_out {
    cJSON *charts;     /* view.charts */
    const char *dir;   /* where PNGs go (NULL: none) */
    int counter;
    pc_err *err;
    int rc;
} chart_out;

/* Adds view.charts.<id> = {svg, title, png, data:[{label,value}]} */
static void add_chart(chart_out *co, const char *id, const chart *c, const char *const *dlabels, const double *dvals,
                      size_t dn, int unit) {
    char pfx[32];
    snprintf(pfx, sizeof pfx, "c%d-", co->counter++);
    cJSON *ch = cJSON_AddObjectToObject(co->charts, id);
    char *svg = chart_svg(c, pfx);
    cJSON_AddStringToObject(ch, "svg", svg);
    free(svg);
    cJSON_AddStringToObject(ch, "title", c->title ? c->title : "");
    cJSON *data = cJSON_AddArrayToObject(ch, "data");
    for (size_t i = 0; i < dn; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "label", dlabels[i]);
        sbuf b = {0};
        if (unit == UNIT_NS) fmt_dur(&b, dvals[i]);
        else if (unit == UNIT_PCT) sbuf_printf(&b, "%.1f%%", dvals[i]);
        else if (unit == UNIT_BYTES) fmt_bytes(&b, dvals[i]);
        else sbuf_printf(&b, "%.4g", dvals[i]);
        cJSON_AddStringToObject(r, "value", b.data ? b.data : "");
        sbuf_free(&b);
        cJSON_AddItemToArray(data, r);
    }
    if (co->dir && co->rc == 0) {
        char name[128];
        snprintf(name, sizeof name, "charts/%s.png", id);
        char *p = fs_join(co->dir, name);
        co->rc = chart_png(c, p, co->err);
        free(p);
        cJSON_AddStringToObject(ch, "png", name);
    }
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
        limit(d, "rows", rows);
    }
}

/* Pie (top 9 + "other", so that each slice keeps a distinct color) and bar
 * (top 20) of the operator types. */
static void type_charts(chart_out *co, cJSON *v) {
    const cJSON *rows = sj_get(v, "operator_types.rows");
    int n = cJSON_GetArraySize(rows);
    if (n == 0) return;
    int nb = n < 20 ? n : 20, np = n <= 10 ? n : 9;
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
    double other = 0;
    for (int i = np; i < n; i++) other += sj_getnum(cJSON_GetArrayItem(rows, i), "time_ns", 0);
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

/* Builds the view for one output: a copy of the summary, bounded, plus charts. */
static cJSON *build_view(const cJSON *summary, const pc_report_opts *o, const char *png_dir, int rows, pc_err *err, int *rc) {
    cJSON *v = cJSON_Duplicate(summary, 1);
    cJSON *view = cJSON_AddObjectToObject(v, "view");
    cJSON_AddStringToObject(view, "version", PC_VERSION);
    chart_out co = {cJSON_AddObjectToObject(view, "charts"), png_dir, 0, err, 0};
    kernel_charts(&co, v, rows);
    type_charts(&co, v);
    static const char *const bounded[] = {"operators", "operator_types", "api_calls", "transfers", "modules", NULL};
    for (int i = 0; bounded[i]; i++) {
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(v, bounded[i]);
        if (sec) limit(sec, "rows", rows);
    }
    cJSON *mem = cJSON_GetObjectItemCaseSensitive(v, "memory");
    if (mem) limit(mem, "top_operators", rows < 20 ? rows : 20);
    (void)o;
    *rc = co.rc;
    return v;
}

static int render_file(const char *tmpl_name, const pc_report_opts *o, const cJSON *view, esc_mode mode, const char *path,
                       pc_err *err) {
    size_t n;
    char *t = pc_asset(o->templates_dir, tmpl_name, &n);
    if (!t) return PC_ERRF(err, PC_EIO, "template %s is missing", tmpl_name);
    sbuf out = {0};
    int rc = tmpl_render(t, n, view, mode, &out, err);
    if (rc) {
        char m[sizeof err->msg];
        memcpy(m, err->msg, sizeof m);
        m[200] = 0;
        PC_ERRF(err, rc, "template %s: %s", tmpl_name, m);
    } else rc = fs_write_atomic(path, out.data ? out.data : "", out.len, err);
    free(t);
    sbuf_free(&out);
    return rc;
}

static void add_assets(cJSON *view, const pc_report_opts *o) {
    cJSON *a = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(view, "view"), "assets");
    char *css = pc_asset(o->templates_dir, "report.css", NULL), *js = pc_asset(o->templates_dir, "report.js", NULL);
    cJSON_AddStringToObject(a, "css", css ? css : "");
    cJSON_AddStringToObject(a, "js", js ? js : "");
    free(css);
    free(js);
}

int pc_report_write(const cJSON *summary, const pc_report_opts *o, pc_err *err) {
    int rc = fs_mkdirs(o->dir, err);
    if (rc) return rc;
    int rows = o->html_rows > 0 ? o->html_rows : 50;
    if (o->formats & OUT_JSON) {
        char *p = fs_join(o->dir, "summary.json");
        rc = pc_summary_write(summary, p, err);
        free(p);
        if (rc) return rc;
    }
    if (o->formats & OUT_HTML) {
        cJSON *v = build_view(summary, o, NULL, rows, err, &rc);
        if (!rc) {
            add_assets(v, o);
            char *p = fs_join(o->dir, "report.html");
            rc = render_file("report.html", o, v, ESC_HTML, p, err);
            free(p);
        }
        cJSON_Delete(v);
        if (rc) return rc;
    }
    if (o->formats & OUT_MD) {
        char *cd = fs_join(o->dir, "charts");
        rc = fs_mkdirs(cd, err);
        free(cd);
        if (rc) return rc;
        cJSON *v = build_view(summary, o, o->dir, 10, err, &rc);
        if (!rc) {
            char *p = fs_join(o->dir, "summary.md");
            rc = render_file("summary.md", o, v, ESC_MD, p, err);
            free(p);
        }
        cJSON_Delete(v);
        if (rc) return rc;
    }
    return 0;
}
