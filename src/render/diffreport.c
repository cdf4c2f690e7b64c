/* diff.html, diff.md, diff.json: diff.json is the comparison's document
 * (compare/diff_json.c); the view is that document plus what presentation
 * computes from the typed result: formatted values (by each figure's unit),
 * colours, and the charts: step phases and breakdown for every run on
 * one scale, and the largest kernel changes as a diverging bar chart. */
#include "diffreport.h"
#include "../util/fsutil.h"
#include "view.h"
#include "../summary/categories.h"
#include "../summary/summary.h"
#include "../compare/diff.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_of(const char *u) {
    return !strcmp(u, "ns") ? UNIT_NS : !strcmp(u, "pct") ? UNIT_PCT : !strcmp(u, "bytes") ? UNIT_BYTES : UNIT_COUNT;
}

static int cmp_desc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void put_fmt(cJSON *o, const char *key, double v, int unit, int sign) {
    sbuf b = {0};
    if (sign && v > 0) sbuf_putc(&b, '+');
    if (unit == UNIT_PCT && sign) sbuf_printf(&b, "%.1f pp", v);
    else rv_fmt_unit(&b, v, unit);
    cJSON_AddStringToObject(o, key, b.data ? b.data : "");
    sbuf_free(&b);
}

/* each figure's values formatted by its unit, coloured where it moved
 * beyond the comparison's noise (diff.c's within_noise) */
static void format_figures(cJSON *v, const pc_diff_result *d) {
    cJSON *f = cJSON_GetObjectItem(v, "figures")->child;
    for (int i = 0; i < d->nfigures && f; i++, f = f->next) {
        const pc_diff_figure *fi = &d->figures[i];
        int u = unit_of(fi->unit);
        if (fi->has_base) put_fmt(f, "base_fmt", fi->base, u, 0);
        else cJSON_AddStringToObject(f, "base_fmt", "n/a");
        cJSON *r = cJSON_GetObjectItem(f, "runs")->child;
        for (int k = 0; k < d->nchanges && r; k++, r = r->next) {
            const pc_diff_cell *c = &fi->runs[k];
            if (c->has_new) put_fmt(r, "new_fmt", c->new_v, u, 0);
            else cJSON_AddStringToObject(r, "new_fmt", "n/a");
            if (c->has_new && fi->has_base) put_fmt(r, "delta_fmt", c->delta, u, 1);
            else cJSON_AddStringToObject(r, "delta_fmt", "");
            if (!c->has_new || !fi->has_base) continue;
            if (c->within_noise) cJSON_AddStringToObject(r, "trend", "noise");
            else if (isfinite(c->delta_pct) && c->delta_pct != 0)
                cJSON_AddStringToObject(r, "trend", (c->delta_pct > 0) == fi->higher_is_worse ? "worse" : "better");
        }
    }
}

static double figure(const pc_diff_result *d, const char *name, int run) {
    const pc_diff_figure *f = pc_diff_figure_named(d, name);
    if (!f) return 0;
    if (run < 0) return f->has_base ? f->base : 0;
    return f->runs[run].has_new ? f->runs[run].new_v : 0;
}

static void diff_charts(chart_out *co, const pc_diff_result *d) {
    int nr = d->nchanges;
    int n = nr + 1;
    const char **labels = xcalloc((size_t)n, sizeof *labels);
    labels[0] = d->base.label;
    for (int r = 0; r < nr; r++) labels[r + 1] = d->changes[r].side.label;
    static const char *const ph[3] = {"Iteration interval (average)", "Forward + backward (average)", "Tail (average)"};
    static const char *const phn[3] = {"iteration interval", "forward + backward", "tail"};
    double *pv[3];
    for (int k = 0; k < 3; k++) {
        pv[k] = xcalloc((size_t)n, sizeof(double));
        for (int r = -1; r < nr; r++) pv[k][r + 1] = figure(d, ph[k], r);
    }
    chart_series ps[3] = {{phn[0], NULL, pv[0], (size_t)n, 1}, {phn[1], NULL, pv[1], (size_t)n, 0}, {phn[2], NULL, pv[2], (size_t)n, 2}};
    chart c1 = {.kind = CHART_STACKED, .title = "Step phases, side by side (one scale)", .xlabel = "run", .ylabel = "time",
                .unit = UNIT_NS, .series = ps, .nseries = 3, .categories = labels, .ncat = (size_t)n, .width = 520};
    rv_add_chart(co, "phases", &c1, rv_series_rows(&c1));
    double *bv[BK_N];
    chart_series bs[BK_N];
    for (int k = 0; k < BK_N; k++) {
        bv[k] = xcalloc((size_t)n, sizeof(double));
        for (int r = -1; r < nr; r++) bv[k][r + 1] = figure(d, pc_bk[k].per_step, r);
        bs[k] = (chart_series){pc_bk[k].label, NULL, bv[k], (size_t)n, chart_category_color(pc_bk[k].name)};
    }
    chart c2 = {.kind = CHART_STACKED, .title = "Where each step goes, side by side (one scale)", .xlabel = "run", .ylabel = "time per step",
                .unit = UNIT_NS, .series = bs, .nseries = BK_N, .categories = labels, .ncat = (size_t)n, .width = 620};
    rv_add_chart(co, "breakdown", &c2, rv_series_rows(&c2));
    /* largest kernel changes, first run */
    const pc_diff_table *kt = &d->tables[PC_DT_KERNELS];
    int nk = nr ? kt->nrows : 0;
    if (nk > 15) nk = 15;
    if (nk > 0) {
        const char **kl = xcalloc((size_t)nk, sizeof *kl);
        double *kv = xcalloc((size_t)nk, sizeof *kv);
        int *kc = xcalloc((size_t)nk, sizeof *kc);
        for (int i = 0; i < nk; i++) {
            kl[i] = kt->rows[i].name;
            kv[i] = kt->rows[i].runs[0].delta_ns;
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
    free(labels);
}

/* the matched tables cut to rows, each change's delta formatted and coloured */
static void format_tables(cJSON *v, const pc_diff_result *d, int rows) {
    for (int i = 0; i < PC_DT_N; i++) {
        cJSON *tab = cJSON_GetObjectItem(v, pc_diff_table_keys[i]);
        rv_limit(tab, "rows", rows);
        const pc_diff_table *t = &d->tables[i];
        /* the document holds the rows a view shows (pc_diff_json_view): the counts are the table's */
        cJSON_ReplaceItemInObjectCaseSensitive(tab, "rows_total", cJSON_CreateNumber(t->nrows));
        cJSON_ReplaceItemInObjectCaseSensitive(tab, "rows_more", cJSON_CreateNumber(t->nrows > rows ? t->nrows - rows : 0));
        cJSON *r = cJSON_GetObjectItem(tab, "rows")->child;
        for (int k = 0; k < t->nrows && r; k++, r = r->next) {
            cJSON *x = cJSON_GetObjectItem(r, "runs")->child;
            for (int c = 0; c < d->nchanges && x; c++, x = x->next) {
                const pc_diff_row_run *y = &t->rows[k].runs[c];
                put_fmt(x, "delta_fmt", y->delta_ns, UNIT_NS, 1);
                if (y->within_noise) cJSON_AddStringToObject(x, "trend", "noise");
                else if (y->delta_ns != 0) cJSON_AddStringToObject(x, "trend", y->delta_ns > 0 ? "worse" : "better");
            }
        }
    }
}

/* components (#36): p and Holm's bar as text, the named ones apart (what diff.md lists) */
static void format_components(cJSON *r, const pc_diff_change *c) {
    cJSON *x = cJSON_GetObjectItem(r, "components"), *named = cJSON_CreateArray(), *o;
    char buf[64];
    int i = 0;
    cJSON_ArrayForEach(o, x) {
        const pc_diff_component *cc = i < c->ncomp ? &c->comp[i] : NULL; /* diff.json's components, in order */
        i++;
        const cJSON *p = cJSON_GetObjectItem(o, "p"), *bar = cJSON_GetObjectItem(o, "p_bar"), *vd = cJSON_GetObjectItem(o, "verdict");
        snprintf(buf, sizeof buf, "%.2g", cJSON_IsNumber(p) ? p->valuedouble : NAN);
        cJSON_AddStringToObject(o, "p_fmt", buf);
        if (cJSON_IsNumber(bar)) snprintf(buf, sizeof buf, "%.2g", bar->valuedouble);
        else snprintf(buf, sizeof buf, "not reached");
        cJSON_AddStringToObject(o, "p_bar_fmt", buf);
        cJSON_AddStringToObject(o, "trend", !cJSON_IsString(vd) ? "noise" : !strcmp(vd->valuestring, "regressed") ? "worse"
                                            : !strcmp(vd->valuestring, "improved") ? "better" : "noise");
        if (cc && cc->under && !strcmp(cc->verdict, "algorithm changed")) /* a kernel swap (#47): its operator's own figure */
            put_fmt(o, "under_delta_fmt", cc->under_new_ns - cc->under_base_ns, UNIT_NS, 1);
        if (cJSON_IsString(vd) && strcmp(vd->valuestring, "within noise")) cJSON_AddItemToArray(named, cJSON_Duplicate(o, 1));
    }
    cJSON_AddItemToObject(r, "components_named", named);
    cJSON_AddNumberToObject(r, "components_tested", c->ncomp);
}

/* diff.md's side by side (#47: a reviewer's page, not every figure): the MD_FIGURES figures with
 * the largest relative change among those beyond the noise on some change, in their order; the
 * step time, the verdict's statistic, is in the verdict's line already */
enum { MD_FIGURES = 10 };
static void mark_moved_figures(cJSON *v, const pc_diff_result *d) {
    double *mag = xcalloc((size_t)d->nfigures + 1, sizeof *mag), cut = 0;
    int n = 0;
    for (int i = 1; i < d->nfigures; i++) {
        for (int k = 0; k < d->nchanges; k++) {
            const pc_diff_cell *c = &d->figures[i].runs[k];
            if (c->has_new && d->figures[i].has_base && !c->within_noise && c->delta != 0)
                mag[i] = fmax(mag[i], isfinite(c->delta_pct) ? fabs(c->delta_pct) : INFINITY);
        }
        n += mag[i] > 0;
    }
    if (n > MD_FIGURES) { /* the MD_FIGURES-th largest magnitude */
        double *m = xmalloc((size_t)d->nfigures * sizeof *m);
        memcpy(m, mag, (size_t)d->nfigures * sizeof *m);
        qsort(m, (size_t)d->nfigures, sizeof *m, cmp_desc);
        cut = m[MD_FIGURES - 1];
        free(m);
    }
    int kept = 0;
    cJSON *f = cJSON_GetObjectItem(v, "figures")->child;
    for (int i = 0; i < d->nfigures && f; i++, f = f->next) {
        int on = mag[i] > 0 && mag[i] >= cut && kept < MD_FIGURES;
        kept += on;
        cJSON_AddBoolToObject(f, "moved", on);
    }
    cJSON_AddBoolToObject(v, "figures_moved", kept > 0); /* no table of a header alone */
    free(mag);
}

/* The verdict in plain words, one line per change (#47): "NEW is 24.7% faster than BASE (-40.24 ms
 * per step; mean kept step 163.13 ms -> 122.88 ms), almost all DataLoader (-45.20 ms)". The share names the first
 * contributor when it holds at least half of the change ("mostly"; "almost all" from 80%). */
static void put_plain(cJSON *r, const pc_diff_result *d, const pc_diff_change *c) {
    const pc_verdict *v = &c->v;
    double dns = v->new_ns - v->base_ns, pct = v->base_ns > 0 ? 100 * dns / v->base_ns : NAN;
    sbuf b = {0}, t = {0};
    rv_fmt_unit(&t, fabs(dns), UNIT_NS);
    const char *way = dns < 0 ? "faster" : "slower";
    if (!strcmp(v->verdict, "unchanged"))
        sbuf_printf(&b, "%s is unchanged against %s (%s%s per step, within %.0f%%)", c->side.label, d->base.label, dns < 0 ? "-" : "+",
                    t.data ? t.data : "", d->threshold_pct);
    else {
        /* the mean of the kept steps: named, not the reports' median step (#47 item 3) */
        sbuf_printf(&b, "%s %s %.1f%% %s than %s (%s%s per step; mean kept step ", c->side.label,
                    !strcmp(v->verdict, "inconclusive") ? "may be" : "is", fabs(pct), way, d->base.label, dns < 0 ? "-" : "+",
                    t.data ? t.data : "");
        rv_fmt_unit(&b, v->base_ns, UNIT_NS);
        sbuf_printf(&b, " → ");
        rv_fmt_unit(&b, v->new_ns, UNIT_NS);
        sbuf_printf(&b, ")");
        if (c->ncontrib && isfinite(c->contrib[0].share_pct) && c->contrib[0].share_pct >= 50) {
            const pc_diff_contrib *k = &c->contrib[0];
            sbuf kd = {0};
            rv_fmt_unit(&kd, fabs(k->delta_ns), UNIT_NS);
            /* one figure once: a contributor that is the whole change is named without it again */
            int whole = (k->delta_ns < 0) == (dns < 0) && kd.data && t.data && !strcmp(kd.data, t.data);
            sbuf_printf(&b, ", %s %s%s%s", whole ? "all of it" : k->share_pct >= 80 ? "almost all" : "mostly",
                        strcmp(k->kind, "category") ? k->kind : "", strcmp(k->kind, "category") ? " " : "", k->name ? k->name : "");
            if (!whole) sbuf_printf(&b, " (%c%s)", k->delta_ns < 0 ? '-' : '+', kd.data ? kd.data : "");
            sbuf_free(&kd);
        }
        if (!strcmp(v->verdict, "inconclusive")) sbuf_printf(&b, "; not decided by these runs");
    }
    cJSON_AddStringToObject(r, "plain", b.data ? b.data : "");
    sbuf_free(&b), sbuf_free(&t);
}

/* the view: diff.json's document, formatted values, the charts */
static cJSON *build(const cJSON *doc, const void *typed, const char *png_dir, int rows, pc_err *err, int *rc) {
    const pc_diff_result *d = typed;
    cJSON *v = cJSON_Duplicate(doc, 1);
    chart_out co = rv_begin_view(v, png_dir, err);
    format_figures(v, d);
    diff_charts(&co, d);
    format_tables(v, d, rows);
    rv_short_names_diff(v);
    cJSON *r = cJSON_GetObjectItem(v, "runs")->child;
    for (int k = 0; k < d->nchanges && r; k++, r = r->next) {
        const pc_diff_change *c = &d->changes[k];
        put_fmt(r, "delta_fmt", c->v.new_ns - c->v.base_ns, UNIT_NS, 1);
        cJSON_AddBoolToObject(r, "moved", strcmp(c->v.verdict, "unchanged") != 0);
        cJSON *x = cJSON_GetObjectItem(r, "contributors")->child;
        for (int i = 0; i < c->ncontrib && x; i++, x = x->next) put_fmt(x, "delta_fmt", c->contrib[i].delta_ns, UNIT_NS, 1);
        format_components(r, c);
        put_plain(r, d, c);
        cJSON_AddBoolToObject(r, "many", d->nchanges > 1);
    }
    mark_moved_figures(v, d);
    *rc = co.rc;
    return v;
}

int pc_diff_write(const pc_diff_result *d, const pc_report_opts *o, pc_err *err) {
    static const int md_rows[] = {15, 8, 4, 1}; /* fewer rows per table until diff.md fits */
    enum { HTML_ROWS = 50 };
    /* the views read a document of the rows they show; diff.json is written from the typed result, a row at a time */
    pc_doc *doc = pc_diff_json_view(d, HTML_ROWS);
    pc_report_opts views = *o;
    views.formats &= ~OUT_JSON;
    int rc = rv_write_doc(doc, d, &views, "diff", build, HTML_ROWS, md_rows, 4, err);
    pc_doc_free(doc);
    if (!rc && (o->formats & OUT_JSON)) {
        char *p = fs_join(o->dir, "diff.json");
        rc = pc_diff_json_write(d, p, err);
        free(p);
    }
    return rc;
}
