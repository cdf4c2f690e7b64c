/* diff_json.c - pc_diff_json (diff.h): diff.json, schema perfcard.diff/2,
 * written from the typed result; NaN figures are written as null. */
#include "diff.h"
#include <math.h>

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

static cJSON *table_json(const pc_diff_table *t, int nch) {
    cJSON *o = cJSON_CreateObject(), *arr = sj_arr(o, "rows");
    for (int i = 0; i < t->nrows; i++) {
        const pc_diff_row *w = &t->rows[i];
        cJSON *j = cJSON_CreateObject();
        SJ_FIELDS(j, w, row_fields);
        cJSON *rr = sj_arr(j, "runs");
        for (int r = 0; r < nch; r++) {
            cJSON *y = cJSON_CreateObject();
            SJ_FIELDS(y, &w->runs[r], row_run_fields);
            cJSON_AddItemToArray(rr, y);
        }
        cJSON_AddItemToArray(arr, j);
    }
    sj_int(o, "added", t->added);
    sj_int(o, "removed", t->removed);
    sj_int(o, "total", t->total);
    return o;
}

pc_doc *pc_diff_json(const pc_diff_result *d) {
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
    for (int i = 0; i < PC_DT_N; i++) cJSON_AddItemToObject(o, pc_diff_table_keys[i], table_json(&d->tables[i], d->nchanges));
    return o;
}
