/* diff_json.c - pc_diff_json (diff.h): diff.json, schema perfcard.diff/2,
 * written from the typed result; NaN figures are written as null. */
#include "diff.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the members each struct writes, in diff.json's order */
static const sj_field contrib_fields[] = {SJ_F(pc_diff_contrib, 'S', kind), SJ_F(pc_diff_contrib, 'S', name),
                                         SJ_F(pc_diff_contrib, 'N', delta_ns), SJ_F(pc_diff_contrib, 'N', share_pct)};
static const sj_field comp_fields[] = {
    SJ_F(pc_diff_component, 'S', kind),        SJ_F(pc_diff_component, 'S', name),        SJ_F(pc_diff_component, 'S', verdict),
    SJ_F(pc_diff_component, 'N', base_ns),     SJ_F(pc_diff_component, 'N', new_ns),      SJ_F(pc_diff_component, 'N', delta_pct),
    SJ_F(pc_diff_component, 'N', base_sd_pct), SJ_F(pc_diff_component, 'N', new_sd_pct),  SJ_F(pc_diff_component, 'N', p),
    SJ_F(pc_diff_component, 'N', p_bar),       SJ_F(pc_diff_component, 'N', lo_pct),      SJ_F(pc_diff_component, 'N', hi_pct),
    SJ_F(pc_diff_component, 'Z', under),       SJ_F(pc_diff_component, 'N', under_base_ns), SJ_F(pc_diff_component, 'N', under_new_ns)};
static const sj_field row_fields[] = {SJ_F(pc_diff_row, 'S', name), SJ_F(pc_diff_row, 'S', status), SJ_F(pc_diff_row, 'S', matched_by),
                                     SJ_F(pc_diff_row, 'N', base_ns)};
static const sj_field row_run_fields[] = {SJ_F(pc_diff_row_run, 'N', new_ns),    SJ_F(pc_diff_row_run, 'S', status),
                                         SJ_F(pc_diff_row_run, 'N', delta_ns),  SJ_F(pc_diff_row_run, 'N', delta_pct),
                                         SJ_F(pc_diff_row_run, 'N', ratio),     SJ_F(pc_diff_row_run, 'B', within_noise)};

static void side_json(cJSON *o, const pc_diff_sideinfo *s) {
    sj_str(o, "label", s->label);
    cJSON *in = sj_arr(o, "inputs"), *ex = cJSON_CreateArray();
    for (int q = 0; q < s->runs; q++) {
        cJSON_AddItemToArray(in, sj_str_item(s->inputs[q]));
        for (int k = 0; k < s->rs[q].nexcl; k++) {
            const pc_excluded *x = &s->rs[q].excl[k];
            cJSON *e = cJSON_CreateObject();
            sj_str(e, "input", s->inputs[q]);
            sj_int(e, "step", x->step);
            sj_str(e, "reason", x->reason);
            sj_str(e, "detail", x->detail);
            cJSON_AddItemToArray(ex, e);
        }
    }
    sj_int(o, "runs", s->runs);
    sj_int(o, "steps", s->steps);
    sj_int(o, "kept_steps", s->kept_steps);
    cJSON_AddItemToObject(o, "excluded", ex);
}

static void change_json(cJSON *x, const pc_diff_change *c) {
    const pc_verdict *v = &c->v;
    side_json(x, &c->side);
    sj_str(x, "verdict", v->verdict);
    sj_str(x, "verdict_reason", v->reason);
    cJSON *st = sj_obj(x, "step_time");
    sj_str(st, "statistic", "mean of kept steps (per run), mean over runs");
    sj_num(st, "base_ns", v->base_ns);
    sj_num(st, "new_ns", v->new_ns);
    sj_num(st, "delta_ns", v->new_ns - v->base_ns);
    sj_num(st, "delta_pct", v->delta_pct);
    sj_bool(st, "multi_run", v->multi_run);
    sj_str(st, "test", v->test ? v->test : "");
    sj_num(st, "p_value", v->has_test ? v->p : NAN);
    sj_num(st, "ci_low_pct", v->has_test ? v->ci_low_pct : NAN);
    sj_num(st, "ci_high_pct", v->has_test ? v->ci_high_pct : NAN);
    if (v->runs_needed) sj_int(x, "runs_needed", v->runs_needed);
    else cJSON_AddNullToObject(x, "runs_needed");
    cJSON *arr = sj_arr(x, "contributors");
    for (int i = 0; i < c->ncontrib; i++) {
        cJSON *o = cJSON_CreateObject();
        SJ_FIELDS(o, &c->contrib[i], contrib_fields);
        cJSON_AddItemToArray(arr, o);
    }
    sj_str(x, "headline", c->headline);
    cJSON *co = sj_arr(x, "components");
    for (int i = 0; i < c->ncomp; i++) {
        cJSON *o = cJSON_CreateObject();
        SJ_FIELDS(o, &c->comp[i], comp_fields);
        cJSON_AddItemToArray(co, o);
    }
    sj_int(x, "components_regressed", c->comp_regressed);
    sj_int(x, "components_improved", c->comp_improved);
    sj_str(x, "components_test", c->comp_test ? c->comp_test : "");
    sj_str(x, "components_note", c->comp_note);
}

static cJSON *figure_json(const pc_diff_figure *f, int nch) {
    cJSON *o = cJSON_CreateObject();
    sj_str(o, "section", f->section);
    sj_str(o, "figure", f->label);
    sj_str(o, "unit", f->unit);
    sj_bool(o, "higher_is_worse", f->higher_is_worse);
    sj_num(o, "base", f->has_base ? f->base : NAN);
    cJSON *fr = sj_arr(o, "runs");
    for (int r = 0; r < nch; r++) {
        const pc_diff_cell *c = &f->runs[r];
        cJSON *y = cJSON_CreateObject();
        sj_num(y, "new", c->has_new ? c->new_v : NAN);
        if (c->has_new && f->has_base) {
            sj_num(y, "delta", c->delta);
            sj_num(y, "delta_pct", c->delta_pct);
            sj_bool(y, "within_noise", c->within_noise);
        }
        cJSON_AddItemToArray(fr, y);
    }
    return o;
}

static cJSON *row_json(const pc_diff_row *w, int nch) {
    cJSON *j = cJSON_CreateObject();
    SJ_FIELDS(j, w, row_fields);
    cJSON *rr = sj_arr(j, "runs");
    for (int r = 0; r < nch; r++) {
        cJSON *y = cJSON_CreateObject();
        SJ_FIELDS(y, &w->runs[r], row_run_fields);
        cJSON_AddItemToArray(rr, y);
    }
    return j;
}

/* ROWS_MARK i: where table i's rows go in the text (write_text); a raw
 * item, which cJSON prints as it is (a string holding \1 prints escaped) */
#define ROWS_MARK "\1rows %d"

/* a table with its first limit rows (limit < 0: all); mark >= 0: a marker
 * in place of its rows (when it has some) */
static cJSON *table_json(const pc_diff_table *t, int nch, int limit, int mark) {
    cJSON *o = cJSON_CreateObject(), *arr = sj_arr(o, "rows");
    char m[32];
    snprintf(m, sizeof m, ROWS_MARK, mark);
    if (mark >= 0 && t->nrows) cJSON_AddItemToArray(arr, cJSON_CreateRaw(m));
    for (int i = 0; mark < 0 && i < t->nrows && (limit < 0 || i < limit); i++) cJSON_AddItemToArray(arr, row_json(&t->rows[i], nch));
    sj_int(o, "added", t->added);
    sj_int(o, "removed", t->removed);
    sj_int(o, "total", t->total);
    return o;
}

static cJSON *doc_json(const pc_diff_result *d, int limit, int marks) {
    cJSON *o = cJSON_CreateObject();
    sj_str(o, "schema", PC_DIFF_SCHEMA);
    sj_num(o, "threshold_pct", d->threshold_pct);
    sj_num(o, "noise_floor_pct", d->noise_floor_pct);
    sj_int(o, "min_runs", PC_MIN_RUNS);
    sj_int(o, "min_steps", PC_MIN_KEPT_STEPS);
    sj_str(o, "method", d->method);
    cJSON *b = sj_obj(o, "base");
    side_json(b, &d->base);
    sj_num(b, "step_ns", d->base_step_ns);
    cJSON *rs = sj_arr(o, "runs");
    for (int r = 0; r < d->nchanges; r++) {
        cJSON *x = cJSON_CreateObject();
        change_json(x, &d->changes[r]);
        cJSON_AddItemToArray(rs, x);
    }
    sj_str(o, "verdict", d->verdict);
    sj_str(o, "headline", d->headline);
    cJSON *fa = sj_arr(o, "figures");
    for (int i = 0; i < d->nfigures; i++) cJSON_AddItemToArray(fa, figure_json(&d->figures[i], d->nchanges));
    for (int i = 0; i < PC_DT_N; i++)
        cJSON_AddItemToObject(o, pc_diff_table_keys[i], table_json(&d->tables[i], d->nchanges, limit, marks ? i : -1));
    return o;
}

pc_doc *pc_diff_json(const pc_diff_result *d) { return doc_json(d, -1, 0); }
pc_doc *pc_diff_json_view(const pc_diff_result *d, int rows) { return doc_json(d, rows, 0); }

/* the tabs cJSON_Print puts before a row's members inside diff.json: the
 * document, a table, its rows (a row printed alone has none) */
enum { ROW_DEPTH = 3 };

/* diff.json's text (cJSON_Print's of pc_diff_json) into b, drained into out
 * as it grows: the document printed without its rows, each row printed alone
 * into its place (every newline of cJSON_Print's is its layout: a string's
 * are escaped) */
static void write_text(const pc_diff_result *d, sbuf *b, const sbuf_out *out) {
    cJSON *doc = doc_json(d, -1, 1);
    char *txt = cJSON_Print(doc), *p = txt;
    cJSON_Delete(doc);
    for (int i = 0; i < PC_DT_N; i++) {
        char m[32];
        snprintf(m, sizeof m, ROWS_MARK, i);
        char *at = d->tables[i].nrows ? strstr(p, m) : NULL;
        if (!at) continue;
        sbuf_putn(b, p, (size_t)(at - p));
        for (int k = 0; k < d->tables[i].nrows; k++) {
            cJSON *r = row_json(&d->tables[i].rows[k], d->nchanges);
            char *rt = cJSON_Print(r);
            cJSON_Delete(r);
            if (k) sbuf_putn(b, ", ", 2);
            for (const char *q = rt; *q; q++) {
                sbuf_putc(b, *q);
                if (*q == '\n') sbuf_putn(b, "\t\t\t", ROW_DEPTH);
            }
            free(rt);
            sbuf_drain(b, out, 1 << 20);
        }
        p = at + strlen(m);
    }
    sbuf_puts(b, p);
    free(txt);
}

void pc_diff_json_text(const pc_diff_result *d, sbuf *b) { write_text(d, b, NULL); }

int pc_diff_json_write(const pc_diff_result *d, const char *path, pc_err *err) {
    fs_atomic f;
    int rc = fs_atomic_open(&f, path, err);
    if (rc) return rc;
    sbuf b = {0};
    sbuf_out out = {fs_atomic_write, &f};
    write_text(d, &b, &out);
    fs_atomic_write(&f, b.data ? b.data : "", b.len);
    sbuf_free(&b);
    return fs_atomic_commit(&f, err);
}
