/* view.c - the view library every renderer shares (view.h): templates and
 * assets (pc_asset, rv_render_text, rv_add_assets), bounded tables (rv_limit,
 * rv_cut), charts into a view (rv_begin_view, rv_add_chart and their data
 * rows), a job's rank rows kept, and the files (rv_write_file, rv_md_fit,
 * rv_write_doc for diff and trend). report.c, email.c, report_charts.c,
 * diffreport.c and trendreport.c call it; it calls none of them. */
#include "view.h"
#include "chart.h"
#include "tmpl.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/units.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Records beside array `key` of obj (n rows, `keep` of them shown) how many
 * are left out as key_more and the full count as key_total (view.h). */
void rv_count_rows(cJSON *obj, const char *key, size_t n, size_t keep) {
    char k[96];
    snprintf(k, sizeof k, "%s_total", key);
    cJSON_AddNumberToObject(obj, k, (double)n);
    snprintf(k, sizeof k, "%s_more", key);
    cJSON_AddNumberToObject(obj, k, n > keep ? (double)(n - keep) : 0);
}

void rv_limit(cJSON *obj, const char *key, int keep) {
    cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(a)) return;
    rv_count_rows(obj, key, (size_t)cJSON_GetArraySize(a), keep > 0 ? (size_t)keep : 0);
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
        double xv = c->kind == CHART_STACKED ? 0 : c->series[0].x[i];
        if (c->nxticks && xv >= 1 && xv <= (double)c->nxticks && xv == floor(xv) && c->xticks[(size_t)xv - 1])
            sbuf_printf(&lab, " (%s)", c->xticks[(size_t)xv - 1]);
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
    cJSON *charts = cJSON_AddObjectToObject(view, "charts");
    return (chart_out){charts, png_dir, NULL, 0, err, 0, cJSON_AddObjectToObject(view, "no_chart")};
}

cJSON *rv_view_charts(const cJSON *doc) {
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "view"), "charts");
}

/* Adds view.charts.<id> = {svg or png, title, data:[{label,value}]}; takes data. */
cJSON *rv_add_chart(chart_out *co, const char *id, const chart *c, cJSON *data) {
    char why[320];
    if (chart_empty_reason(c, why, sizeof why)) {
        cJSON_AddStringToObject(co->none, id, why);
        cJSON_Delete(data);
        return NULL;
    }
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
    int used = 1;
    if (co->dir && co->uses) {
        char ref[96];
        snprintf(ref, sizeof ref, "charts.%s", id);
        used = strstr(co->uses, ref) || (!strncmp(id, "kernels_dev", 11) && strstr(co->uses, "{{#chart}}"));
    }
    if (co->dir && co->rc == 0 && used) {
        char name[128];
        snprintf(name, sizeof name, "charts/%s.png", id);
        char *p = fs_join(co->dir, name);
        co->rc = chart_png(c, p, co->err);
        free(p);
        cJSON_AddStringToObject(ch, "png", name);
    }
    return ch;
}

int rv_rank_row_kept(const pc_summary *s, int64_t rank, size_t i, size_t keep) {
    if (i < keep) return 1;
    const pc_table *rows = PC_TAB(s, rank);
    const tab_ranks *rr = PC_REC(s, ranks);
    const tab_straggler *st = PC_REC(s, straggler);
    return (rows && rows->n && rank == TAB_ROWS(rows, rank)[0].rank) || (!tk_null_I(rr->slowest_rank) && rank == rr->slowest_rank) ||
           (!tk_null_I(rr->fastest_rank) && rank == rr->fastest_rank) || (tk_true(st->found) && rank == st->rank);
}

void rv_md_fit(sbuf *md, const char *note) {
    if (md->len <= PC_MD_MAX) return;
    size_t room = strlen(note) + 5; /* "\n\n_" note "_\n": reserved first, so the note is always whole */
    size_t cut = room < PC_MD_MAX ? PC_MD_MAX - room : 0;
    while (cut > 0 && md->data[cut] != '\n') cut--;
    md->len = cut;
    sbuf_printf(md, "\n\n_%s_\n", note);
}

int rv_write_file(const char *dir, const char *name, const char *data, size_t len, pc_err *err) {
    char *p = fs_join(dir, name);
    int rc = fs_write_atomic(p, data ? data : "", len, err);
    free(p);
    return rc;
}

int rv_write_doc(const cJSON *doc, const void *typed, const pc_report_opts *o, const char *stem, rv_build_fn build, int html_rows, const int *md_rows,
                 int n_md_rows, pc_err *err) {
    int rc = fs_mkdirs(o->dir, err);
    /* charts/ checked before anything is written: a link there is refused */
    if (!rc && (o->formats & OUT_MD)) rc = fs_mkdir_in(o->dir, "charts", err);
    if (rc) return rc;
    char name[64], other[160];
    if (o->formats & OUT_JSON) {
        char *txt = cJSON_Print(doc);
        snprintf(name, sizeof name, "%s.json", stem);
        rc = rv_write_file(o->dir, name, txt, strlen(txt), err);
        free(txt);
        if (rc) return rc;
    }
    sbuf out = {0};
    if (o->formats & OUT_HTML) {
        cJSON *v = build(doc, typed, NULL, html_rows, err, &rc);
        snprintf(name, sizeof name, "%s.html", stem);
        if (!rc) {
            rv_add_assets(v, o);
            rc = rv_render_text(name, o, v, ESC_HTML, &out, err);
        }
        cJSON_Delete(v);
        if (!rc) rc = rv_write_file(o->dir, name, out.data, out.len, err);
    }
    if (!rc && (o->formats & OUT_MD)) {
        out.len = 0;
        snprintf(name, sizeof name, "%s.md", stem);
        for (int i = 0; i < n_md_rows && !rc; i++) {
            cJSON *v = build(doc, typed, o->dir, md_rows[i], err, &rc);
            if (!rc) rc = rv_render_text(name, o, v, ESC_MD, &out, err);
            cJSON_Delete(v);
            if (out.len <= PC_MD_MAX) break;
        }
        snprintf(other, sizeof other, "Cut to fit 60,000 characters; %s.html and %s.json have everything.", stem, stem);
        if (!rc) rv_md_fit(&out, other);
        if (!rc) rc = rv_write_file(o->dir, name, out.data, out.len, err);
    }
    sbuf_free(&out);
    return rc;
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

void rv_add_assets(cJSON *view, const pc_report_opts *o) {
    cJSON *a = cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(view, "view"), "assets");
    char *css = pc_asset(o->templates_dir, "report.css", NULL), *js = pc_asset(o->templates_dir, "report.js", NULL);
    cJSON_AddStringToObject(a, "css", css ? css : "");
    cJSON_AddStringToObject(a, "js", js ? js : "");
    free(css);
    free(js);
}
