/* report.c - the report's orchestrator: its view (a bounded copy of the
 * summary plus what only report.html and summary.md show) and the files made
 * from it: summary.json, report.html and summary.md here; the charts in
 * report_charts.c, CSV in csv.c, the e-mail in email.c. The view library
 * they all share (templates, charts into a view, bounded tables, files) is
 * view.c. */
#include "report.h"
#include "view.h"
#include "../util/shortname.h"
#include <ctype.h>
#include "chart.h"
#include "tmpl.h"
#include "../summary/categories.h"
#include "../summary/summary.h"
#include "../util/order.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/units.h"
#include "../util/xalloc.h"
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>


/* rank table t's rows that rv_rank_row_kept keeps, as JSON; *kept: how many */
static cJSON *rank_rows_json(const pc_summary *s, const pc_table *t, size_t keep, size_t *kept) {
    cJSON *a = tab_to_json(t, t->n), *r, *next;
    size_t i = 0;
    *kept = 0;
    for (r = a->child; r; r = next, i++) {
        next = r->next;
        const cJSON *rk = cJSON_GetObjectItemCaseSensitive(r, "rank");
        if (rv_rank_row_kept(s, cJSON_IsNumber(rk) ? (int64_t)rk->valuedouble : PC_NULL_I, i, keep)) (*kept)++;
        else cJSON_Delete(cJSON_DetachItemViaPointer(a, r));
    }
    return a;
}

/* The table rows rank_rows_json keeps, without building them */
static size_t rank_rows_kept(const pc_summary *s, const pc_table *t, size_t keep) {
    size_t kept = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t rk = t->def == &pc_table_defs[TAB_rank] ? TAB_ROWS(t, rank)[i].rank : TAB_ROWS(t, rank_coll)[i].rank;
        kept += rv_rank_row_kept(s, rk, i, keep) != 0;
    }
    return kept;
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
        if (t->def->record) { /* its fields in its place, as summary.json has them */
            cJSON *fields = cJSON_CreateObject(), *rest = cJSON_CreateArray(), *x;
            tab_record_to_json(t, fields);
            while (c->next) cJSON_AddItemToArray(rest, cJSON_DetachItemViaPointer(o, c->next));
            cJSON_Delete(cJSON_DetachItemViaPointer(o, c));
            while ((x = fields->child)) cJSON_AddItemToArray(o, cJSON_DetachItemViaPointer(fields, x));
            while ((x = rest->child)) cJSON_AddItemToArray(o, cJSON_DetachItemViaPointer(rest, x));
            cJSON_Delete(fields);
            cJSON_Delete(rest);
            continue;
        }
        /* the long lists show their first rows (the output's count); the rest whole */
        size_t keep = rows > 0 ? (size_t)rows : 0, need = keep;
        switch ((int)(t->def - pc_table_defs)) {
        case TAB_op: case TAB_module: case TAB_api: case TAB_transfer: case TAB_coll: break;
        case TAB_kernel: if (need < 15) need = 15; break;  /* the kernel charts' top 15 */
        case TAB_optype: if (need < 20) need = 20; break;  /* the operator-type charts' top 20 */
        case TAB_memop: if (keep > 20) keep = need = 20; break;
        case TAB_step: keep = rows > 0 ? (size_t)rows * 4 : 0, need = t->n; break; /* cut after the charts */
        case TAB_cpath_step: keep = need = 0; break; /* a chart only (drawn from the table) */
        case TAB_rank: case TAB_rank_coll: { /* a job's ranks: the first rows and the ranks that matter */
            char *key = strdup(c->string);
            cJSON_ReplaceItemInObjectCaseSensitive(o, key, rank_rows_json(s, t, keep, &keep));
            rv_count_rows(o, key, t->n, keep);
            free(key);
            continue;
        }
        default: keep = need = t->n; break; /* short lists, series (at most 400 points), trees, ranks */
        }
        char *key = strdup(c->string);
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, tab_to_json(t, need));
        rv_count_rows(o, key, t->n, keep);
        free(key);
    }
}

/* The table rows a view with `rows` per long list would hold (materialize's
 * rule), to skip a try that cannot fit before building it. */
static size_t rows_shown(const pc_summary *s, const cJSON *o, int rows) {
    size_t sum = 0;
    for (const cJSON *c = o ? o->child : NULL; c; c = c->next) {
        const pc_table *t = pc_summary_table_of(s, c);
        if (!t) {
            sum += rows_shown(s, c, rows);
            continue;
        }
        if (t->def->record) continue;
        size_t keep = rows > 0 ? (size_t)rows : 0;
        switch ((int)(t->def - pc_table_defs)) {
        case TAB_op: case TAB_module: case TAB_api: case TAB_transfer: case TAB_coll: case TAB_kernel: case TAB_optype: break;
        case TAB_memop: if (keep > 20) keep = 20; break;
        case TAB_step: keep = rows > 0 ? (size_t)rows * 4 : 0; break;
        case TAB_cpath_step: keep = 0; break;
        case TAB_rank: case TAB_rank_coll: keep = rank_rows_kept(s, t, keep); break;
        default: keep = t->n; break;
        }
        sum += t->n < keep ? t->n : keep;
    }
    return sum;
}

/* Builds the view for one output: a copy of the summary, bounded, plus charts. */
/* What summary.md shows more briefly than the report: the input's file name
 * (not its path), "step" or "steps", and the suggestions worth at least 1%
 * of the step, at most MD_SUGGESTIONS (those without an estimate only when
 * none has one), with how many more the report lists. With them, for every
 * output, the wording of the input's kind: kineto (a Kineto JSON trace:
 * PyTorch's or a capture's), pytorch (suggestions.program), parsed_what
 * (what run.parsed_bytes counts) and top_category_def (what "other" means,
 * when it is the largest category). */
enum { MD_SUGGESTIONS = 5, MD_TOP = 3 };

/* A suggestion's "what to try" t as one line, malloc'd: its sentence in the
 * input's framework ("In PyTorch: ..." to the end) when it has one, else its
 * first sentence; line breaks as spaces. */
static char *try_line(const char *t) {
    const char *in = strstr(t, " In ");
    const char *colon = in ? strchr(in + 4, ':') : NULL;
    size_t n;
    if (in && colon && colon - in < 24) t = in + 1, n = strlen(t);
    else {
        const char *dot = strstr(t, ". ");
        n = dot ? (size_t)(dot - t + 1) : strlen(t);
    }
    char *one = xstrdup(t);
    assert(n <= strlen(one));
    one[n] = 0;
    for (char *p = one; *p; p++) if (*p == '\n') *p = ' ';
    return one;
}

static void md_extras(const pc_summary *s, cJSON *v) {
    cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    if (!view) return;
    cJSON_AddStringToObject(view, "input_name", fs_base_name(PC_S(PC_REC(s, run)->input, "")));
    if (PC_OR(PC_REC(s, ranks)->count, 0) > 1) /* a job: its folder's name (ranks.name), else "job" */
        cJSON_AddStringToObject(view, "job_name", PC_S(PC_REC(s, ranks)->name, "job"));
    cJSON_AddStringToObject(view, "steps_word", PC_OR(PC_REC(s, overview)->steps, 0) == 1 ? "step" : "steps");
    cJSON_AddBoolToObject(view, "steps_many", PC_OR(PC_REC(s, overview)->steps, 0) > 1); /* no p90 of one step (#47 item 8) */
    cJSON_AddStringToObject(view, "suggestions_word", PC_OR(PC_REC(s, suggestions)->count, 0) == 1 ? "suggestion" : "suggestions");
    const char *fmt = PC_S(PC_REC(s, run)->format, "");
    int kineto = !strcmp(fmt, "kineto-json");
    cJSON_AddBoolToObject(view, "kineto", kineto);
    cJSON_AddBoolToObject(view, "pytorch", !strcmp(PC_S(PC_REC(s, suggestions)->program, ""), "pytorch"));
    cJSON_AddStringToObject(view, "parsed_what", kineto ? "of JSON after decompression"
                                                 : strstr(fmt, "sqlite") ? "read from the SQLite file"
                                                 : !strcmp(fmt, "mindspore") ? "read from the profiler's files"
                                                 : "read");
    if (!strcmp(PC_S(PC_REC(s, overview)->top_category, ""), "other"))
        cJSON_AddStringToObject(view, "top_category_def", "time with nothing recorded on the GPU or the host: idle");
    cJSON *md = cJSON_AddArrayToObject(view, "md_suggestions");
    /* the view's rows (the records' fields, materialized) in the summary's order */
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "suggestions"), "rows"), *r = rows ? rows->child : NULL;
    const tab_suggestion *sg;
    int total = 0, shown = 0, any_estimate = 0;
    for (size_t i = 0; (sg = PC_REC_AT(s, suggestion, i)); i++) any_estimate |= PC_OR(sg->at_stake_pct, 0) >= 1;
    for (size_t i = 0; (sg = PC_REC_AT(s, suggestion, i)) && r; i++, r = r->next) {
        total++;
        double pct = PC_OR(sg->at_stake_pct, -1);
        const cJSON *mp = cJSON_GetObjectItemCaseSensitive(r, "merged_stake_pct");
        if (cJSON_IsNumber(mp)) pct = mp->valuedouble; /* a rule listed once, its findings' stakes added */
        int worth = (any_estimate ? pct >= 1 : 1) && !cJSON_GetObjectItemCaseSensitive(r, "repeat");
        if (worth && shown < MD_SUGGESTIONS) cJSON_AddItemToArray(md, cJSON_Duplicate(r, 1)), shown++;
    }
    if (total > shown) cJSON_AddNumberToObject(view, "md_suggestions_more", total - shown);
    /* summary.md's opening (#47 item 2): the first MD_TOP of them, each with its
     * what-to-try as one line */
    cJSON *top = cJSON_AddArrayToObject(view, "md_top"), *x;
    int k = 0;
    cJSON_ArrayForEach(x, md) {
        if (k++ == MD_TOP) break;
        cJSON *c = cJSON_Duplicate(x, 1);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(x, "try");
        char *one = try_line(cJSON_IsString(t) ? t->valuestring : "");
        cJSON_AddStringToObject(c, "try_line", one);
        free(one);
        cJSON_AddItemToArray(top, c);
    }
}

/* view.step_bound (#44 item 2): one sentence of which side bounds the steps
 * and by how much, from steps.host_ns, gpu_ns, bound and margin_ns (the means
 * over the steps), when the trace has steps; summary.md's line and the
 * report's Step trace section. */
static void step_bound_view(const pc_summary *s, cJSON *v) {
    cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    const tab_steps *st = PC_REC(s, steps);
    if (!view || !st || !st->bound || isnan(st->host_ns) || isnan(st->gpu_ns) || isnan(st->margin_ns)) return;
    char h[32], g[32], m[32], line[512];
    units_ns(h, sizeof h, st->host_ns);
    units_ns(g, sizeof g, st->gpu_ns);
    units_ns(m, sizeof m, st->margin_ns);
    int64_t nb = PC_OR(st->gpu_bound_steps, 0), n = PC_OR(st->count, 0);
    if (!strcmp(st->bound, "gpu"))
        snprintf(line, sizeof line, "GPU-bound: GPU %s per step, host %s: faster GPU work gives back up to ~%s, then the host's own time "
                 "(its launches) is the wall (%lld of %lld steps GPU-bound; the host's time counts its waits on the GPU, so where the "
                 "two run in lockstep a faster GPU gives back more: the replayed stakes)", g, h, m, (long long)nb, (long long)n);
    else
        snprintf(line, sizeof line, "Host-bound: host %s per step, GPU %s: host-side fixes give back up to ~%s before the GPU bounds the step "
                 "(%lld of %lld steps GPU-bound; the host's time counts its waits on the GPU)", h, g, m, (long long)nb, (long long)n);
    cJSON_AddStringToObject(view, "step_bound", line);
}

/* The Critical path section's extras, when critical_path.present:
 * view.cpath_cats: the path's categories (critical_path.rows summed by
 * category) {label, ns, pct}, the largest first; view.cpath_top: the first
 * three as one line ("GPU kernels 50.0%, host CPU work 29.0%, data loading
 * 20.0%": summary.md's); view.cpath_savings: the four replayed changes
 * {label, def, ns, pct of the measured step}, label and definition from
 * tables_run.def's columns (one place for both). Otherwise view.cpath_why:
 * why the section is empty. */
static void cpath_view(const pc_summary *s, cJSON *v) {
    cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    const tab_critical_path *cp = PC_REC(s, critical_path);
    const pc_table *t = PC_TAB(s, cpath);
    if (view && (!cp || !tk_true(cp->present))) /* why the section is empty: no CUDA calls, or a summary from before #37 */
        cJSON_AddStringToObject(view, "cpath_why", cp && cp->present == 0
            ? "No CUDA runtime or driver calls in this trace, so no dependency graph can be built: no critical path and no replay (docs/replay.md)."
            : "This summary was written by a perfcard without the critical path (before issue #37): run perfcard report on the trace for it.");
    if (!view || !cp || !tk_true(cp->present) || !t) return;
    enum { NC = PC_CP_N };
    double ns[NC], pct[NC];
    int ord[NC];
    pc_cpath_by_category(s, pct, ns);
    for (int k = 0; k < NC; k++) ord[k] = k;
    for (int i = 1; i < NC; i++) /* by share, the largest first; ties in the summary's order */
        for (int j = i; j > 0 && pct[ord[j]] > pct[ord[j - 1]]; j--) { int x = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = x; }
    cJSON *cats = cJSON_AddArrayToObject(view, "cpath_cats");
    sbuf top = {0};
    int shown = 0;
    for (int i = 0; i < NC; i++) {
        int k = ord[i];
        if (ns[k] <= 0) continue;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "label", pc_cpath_cat[k][1]);
        cJSON_AddNumberToObject(row, "ns", ns[k]);
        cJSON_AddNumberToObject(row, "pct", pct[k]);
        cJSON_AddItemToArray(cats, row);
        if (shown < 3) sbuf_printf(&top, "%s%s %.1f%%", shown ? ", " : "", pc_cpath_cat[k][1], pct[k]), shown++;
    }
    if (top.data) cJSON_AddStringToObject(view, "cpath_top", top.data);
    sbuf_free(&top);
    static const char *const keys[] = {"sync_saving_ns", "data_saving_ns", "tc_saving_ns", "combined_saving_ns"};
    const double vals[] = {cp->sync_saving_ns, cp->data_saving_ns, cp->tc_saving_ns, cp->combined_saving_ns};
    double step = PC_OR(cp->step_ns, 0);
    cJSON *sv = cJSON_AddArrayToObject(view, "cpath_savings");
    for (int k = 0; k < 4; k++) {
        const pc_col *c = tab_col(&pc_table_defs[TAB_critical_path], keys[k]);
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "label", c ? c->label : keys[k]);
        cJSON_AddStringToObject(row, "def", c ? c->def : "");
        if (isfinite(vals[k])) {
            cJSON_AddNumberToObject(row, "ns", vals[k]);
            if (step > 0) cJSON_AddNumberToObject(row, "pct", 100.0 * vals[k] / step);
            else cJSON_AddNullToObject(row, "pct");
        } else cJSON_AddNullToObject(row, "ns"), cJSON_AddNullToObject(row, "pct");
        cJSON_AddItemToArray(sv, row);
    }
}

/* The section anchors a finding's evidence is in, by its rule (#47 item 10):
 * {rule prefix, "href label" pairs separated by '|'}; unknown rules get the
 * breakdown and the timeline. */
static const char *const finding_sections[][2] = {
    {"data_loading", "#data|Data queue|#steps|Steps|#timeline|Timeline"},
    {"empty_queue", "#data|Data queue|#steps|Steps|#timeline|Timeline"},
    {"host_wait", "#gpu|GPU idle|#critical-path|Critical path|#timeline|Timeline"},
    {"queued_idle", "#gpu|GPU idle|#timeline|Timeline"},
    {"host_phase", "#steps|Steps|#critical-path|Critical path|#timeline|Timeline"},
    {"iteration_interval", "#steps|Steps|#timeline|Timeline"},
    {"step_variance", "#steps|Steps|#timeline|Timeline"},
    {"startup", "#steps|Steps|#timeline|Timeline"},
    {"slow_launches", "#api|API calls|#timeline|Timeline"},
    {"sync_in_step", "#api|API calls|#transfers|Memory transfers|#timeline|Timeline"},
    {"pageable_memcpy", "#transfers|Memory transfers|#timeline|Timeline"},
    {"small_kernels", "#kernels|Kernels|#timeline|Timeline"},
    {"gpu_kernels", "#kernels|Kernels|#operators|Operators"},
    {"memory_bound", "#operators|Operators|#kernels|Kernels"},
    {"tensor_cores", "#operators|Operators|#kernels|Kernels"},
    {"gemm_alignment", "#operators|Operators|#kernels|Kernels"},
    {"no_cudnn", "#operators|Operators|#kernels|Kernels"},
    {"unfused_attention", "#operators|Operators|#kernels|Kernels"},
    {"memory_peak", "#memory|Memory"},
    {"cpu_busy", "#cpu|CPU utilization|#timeline|Timeline"},
    {"communication", "#communication|Communication|#timeline|Timeline"},
    {"pipeline_bottleneck", "#communication|Communication|#timeline|Timeline"},
    {"gpu_utilization", "#gpu|GPU utilization|#timeline|Timeline"},
    {"straggler", "#ranks|Ranks|#communication|Communication"},
};

/* rows[i] of the view's list gets row_id "<prefix>i" (an anchor for report.html) */
static void row_ids(cJSON *rows, const char *prefix) {
    int i = 0;
    for (cJSON *r = cJSON_IsArray(rows) ? rows->child : NULL; r; r = r->next, i++) {
        char id[48];
        snprintf(id, sizeof id, "%s%d", prefix, i);
        cJSON_AddStringToObject(r, "row_id", id);
    }
}
/* the row_id of the first row of rows named name, or NULL */
static const char *row_named(const cJSON *rows, const char *name) {
    for (const cJSON *r = cJSON_IsArray(rows) ? rows->child : NULL; r; r = r->next) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, "name"), *id = cJSON_GetObjectItemCaseSensitive(r, "row_id");
        if (cJSON_IsString(n) && cJSON_IsString(id) && !strcmp(n->valuestring, name)) return id->valuestring;
    }
    return NULL;
}

/* The step a finding is most about (#47 item 3): for a rule about a figure
 * of each step, the shown step row with the most of it; finding.step_link
 * {href "#step-i", index i, name, what}. report.js zooms the timeline to it
 * from "#timeline-step-i". */
static const char *const step_rules[][3] = {
    {"data_loading", "data_wait_ns", "the most data wait"},
    {"iteration_interval", "iteration_interval_ns", "the longest iteration interval"},
    {"step_variance", "duration_ns", "the longest"},
    {"communication", "communication_ns", "the most communication"},
};
static void step_link(cJSON *r, const cJSON *steps) {
    const cJSON *ru = cJSON_GetObjectItemCaseSensitive(r, "rule");
    if (!cJSON_IsString(ru) || !cJSON_IsArray(steps)) return;
    for (size_t k = 0; k < sizeof step_rules / sizeof *step_rules; k++) {
        if (strcmp(ru->valuestring, step_rules[k][0])) continue;
        int i = 0, best = -1;
        double most = -1;
        const char *name = NULL;
        for (const cJSON *x = steps->child; x; x = x->next, i++) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(x, step_rules[k][1]), *n = cJSON_GetObjectItemCaseSensitive(x, "name");
            if (cJSON_IsNumber(f) && cJSON_IsString(n) && f->valuedouble > most) most = f->valuedouble, best = i, name = n->valuestring;
        }
        if (best < 0) return;
        char href[32];
        snprintf(href, sizeof href, "#step-%d", best);
        cJSON *o = cJSON_AddObjectToObject(r, "step_link");
        cJSON_AddStringToObject(o, "href", href);
        cJSON_AddNumberToObject(o, "index", best);
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddStringToObject(o, "what", step_rules[k][2]);
        return;
    }
}

/* From a finding to its own rows (#47 item 3): the rows report.html shows of
 * the operators ("op-i"), each device's kernels ("kern-d-i"), the API calls
 * ("api-i") and the steps ("step-i") get row_id; each finding's contributor
 * (an operator, kernel or call it names) that is one of those rows gets
 * href ("#op-3": the first row of that name, operators first), and the
 * finding row_links [{href, label (its short name), name}] of them, in its
 * contributors' order. */
static void finding_rows(cJSON *v) {
    cJSON *ops = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "operators"), "rows");
    cJSON *api = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "api_calls"), "rows");
    cJSON *devs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "kernels"), "devices");
    row_ids(ops, "op-");
    row_ids(api, "api-");
    row_ids(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "steps"), "rows"), "step-");
    int d = 0;
    for (cJSON *dv = cJSON_IsArray(devs) ? devs->child : NULL; dv; dv = dv->next, d++) {
        char pre[32];
        snprintf(pre, sizeof pre, "kern-%d-", d);
        row_ids(cJSON_GetObjectItemCaseSensitive(dv, "rows"), pre);
    }
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "suggestions"), "rows");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "steps"), "rows");
    for (cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        step_link(r, steps);
        cJSON *links = cJSON_AddArrayToObject(r, "row_links"), *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "contributors")) {
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name"), *sh = cJSON_GetObjectItemCaseSensitive(c, "name_short");
            if (!cJSON_IsString(n)) continue;
            const char *id = row_named(ops, n->valuestring);
            for (cJSON *dv = cJSON_IsArray(devs) ? devs->child : NULL; dv && !id; dv = dv->next)
                id = row_named(cJSON_GetObjectItemCaseSensitive(dv, "rows"), n->valuestring);
            if (!id) id = row_named(api, n->valuestring);
            if (!id) continue;
            char href[64];
            snprintf(href, sizeof href, "#%s", id);
            cJSON_AddStringToObject(c, "href", href);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "href", href);
            cJSON_AddStringToObject(o, "label", cJSON_IsString(sh) ? sh->valuestring : n->valuestring);
            cJSON_AddStringToObject(o, "name", n->valuestring);
            cJSON_AddItemToArray(links, o);
        }
    }
}

/* Repeated findings merged (#47 item 4): a rule that fired more than once
 * (pageable_memcpy for HtoD and for DtoH copies) is listed once, at its
 * first row, whose merged_count (its findings), merged_stake_ns and
 * merged_stake_pct (their stakes added: each finding of one rule counts its
 * own events, different copies, kernels or operators, so none is counted
 * twice; null when one has no estimate) and merged_parts [{evidence,
 * at_stake_ns}] say so; the later rows get repeat (true), and leave the top
 * lists (finding_links makes them minor, md_extras skips them). */
static void merge_repeats(cJSON *v) {
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "suggestions"), "rows");
    for (cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        const cJSON *ru = cJSON_GetObjectItemCaseSensitive(r, "rule");
        if (!cJSON_IsString(ru) || cJSON_GetObjectItemCaseSensitive(r, "repeat")) continue;
        int n = 1, all = 1;
        double ns = 0, pct = 0;
        cJSON *parts = cJSON_CreateArray();
        for (cJSON *q = r; q; q = q->next) {
            const cJSON *qr = cJSON_GetObjectItemCaseSensitive(q, "rule");
            if (!cJSON_IsString(qr) || strcmp(qr->valuestring, ru->valuestring)) continue;
            if (q != r) cJSON_AddBoolToObject(q, "repeat", 1), n++;
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(q, "at_stake_ns"), *p = cJSON_GetObjectItemCaseSensitive(q, "at_stake_pct"),
                        *ev = cJSON_GetObjectItemCaseSensitive(q, "evidence");
            all &= cJSON_IsNumber(a);
            ns += cJSON_IsNumber(a) ? a->valuedouble : 0, pct += cJSON_IsNumber(p) ? p->valuedouble : 0;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "evidence", cJSON_IsString(ev) ? ev->valuestring : "");
            if (cJSON_IsNumber(a)) cJSON_AddNumberToObject(o, "at_stake_ns", a->valuedouble);
            cJSON_AddItemToArray(parts, o);
        }
        if (n == 1) { cJSON_Delete(parts); continue; }
        cJSON_AddNumberToObject(r, "merged_count", n);
        if (all) cJSON_AddNumberToObject(r, "merged_stake_ns", ns), cJSON_AddNumberToObject(r, "merged_stake_pct", pct);
        cJSON_AddItemToObject(r, "merged_parts", parts);
    }
}

/* Adds to each suggestions.rows item: anchor ("finding-N", N its rank),
 * links [{href, label}] to the sections holding its evidence (the timeline's
 * slowest step is the template's), and minor (#47 item 8): true for a
 * finding whose stake shows as 0.0% (under 0.05% of the step) or that repeats
 * a rule listed above it; view.suggestions_minor counts them. The top list
 * leaves them out, a closed list below it has them. */
static void finding_links(cJSON *v) {
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "suggestions"), "rows");
    int minors = 0;
    for (cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        const cJSON *pct = cJSON_GetObjectItemCaseSensitive(r, "at_stake_pct"), *ru = cJSON_GetObjectItemCaseSensitive(r, "rule");
        int minor = cJSON_IsNumber(pct) && pct->valuedouble < 0.05, seen = 0;
        for (cJSON *q = rows->child; q != r && cJSON_IsString(ru); q = q->next) {
            const cJSON *qr = cJSON_GetObjectItemCaseSensitive(q, "rule");
            seen |= cJSON_IsString(qr) && !strcmp(qr->valuestring, ru->valuestring);
        }
        minor |= seen;
        minors += minor;
        cJSON_AddBoolToObject(r, "minor", minor);
        const cJSON *rank = cJSON_GetObjectItemCaseSensitive(r, "rank"), *rule = cJSON_GetObjectItemCaseSensitive(r, "rule");
        char a[32];
        snprintf(a, sizeof a, "finding-%d", cJSON_IsNumber(rank) ? rank->valueint : 0);
        cJSON_AddStringToObject(r, "anchor", a);
        const char *rs = cJSON_IsString(rule) ? rule->valuestring : "", *spec = "#breakdown|GPU breakdown|#timeline|Timeline";
        for (size_t i = 0; i < sizeof finding_sections / sizeof *finding_sections; i++)
            if (!strncmp(rs, finding_sections[i][0], strlen(finding_sections[i][0]))) { spec = finding_sections[i][1]; break; }
        cJSON *links = cJSON_AddArrayToObject(r, "links");
        char buf[256];
        snprintf(buf, sizeof buf, "%s", spec);
        for (char *save = NULL, *h = strtok_r(buf, "|", &save), *l; h && (l = strtok_r(NULL, "|", &save)); h = strtok_r(NULL, "|", &save)) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "href", h);
            cJSON_AddStringToObject(o, "label", l);
            cJSON_AddItemToArray(links, o);
        }
    }
    cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    if (view && minors) cJSON_AddNumberToObject(view, "suggestions_minor", minors);
}

/* The first screen's extras (#47 item 4): view.first_try, the first
 * suggestion's "what to try" as one line in the input's framework (its
 * "In PyTorch: ..." sentence when it has one, else its first sentence);
 * view.card_cpu / view.card_top_operator / view.card_top_kernel: whether those cards have a figure;
 * view.not_in_trace: the cards left out, as one line ("CPU load (no CPU
 * samples), ..."), absent when none is. */
static void first_screen(const pc_summary *s, cJSON *v) {
    cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    if (!view) return;
    /* the headline's finding: the first, or for a job whose headline is its
     * straggler, the straggler's */
    const tab_suggestion *sg = PC_REC_AT(s, suggestion, 0), *q;
    int at = 1;
    if (PC_REC(s, straggler) && tk_true(PC_REC(s, straggler)->found))
        for (size_t i = 0; (q = PC_REC_AT(s, suggestion, i)); i++)
            if (!strcmp(PC_S(q->rule, ""), "straggler")) { sg = q, at = (int)i + 1; break; }
    cJSON_AddNumberToObject(view, "first_try_rank", at);
    const char *t = sg ? PC_S(sg->try, "") : "";
    if (*t) {
        char *one = try_line(t);
        cJSON_AddStringToObject(view, "first_try", one);
        free(one);
    }
    /* a phone's verdict: a headline over 120 characters cut at its first "; " */
    const char *h = PC_REC(s, ranks) && PC_S(PC_REC(s, ranks)->headline, NULL) ? PC_REC(s, ranks)->headline : PC_S(PC_REC(s, overview)->headline, "");
    const char *semi = strlen(h) > 120 ? strstr(h, "; ") : NULL;
    if (semi) {
        char *cut = xstrdup(h);
        cut[semi - h] = 0;
        cJSON_AddStringToObject(view, "headline_short", cut);
        free(cut);
    }
    int steps = tk_true(PC_REC(s, overview)->has_steps);
    cJSON_AddBoolToObject(view, "card_step", steps);
    int cpu = tk_true(PC_REC(s, cpu)->present), top_op = PC_S(PC_REC(s, overview)->top_operator, NULL) != NULL;
    cJSON_AddBoolToObject(view, "card_cpu", cpu);
    cJSON_AddBoolToObject(view, "card_top_operator", top_op);
    int top_k = PC_S(PC_REC(s, overview)->top_kernel, NULL) != NULL;
    cJSON_AddBoolToObject(view, "card_top_kernel", top_k);
    sbuf miss = {0};
    if (!steps) sbuf_printf(&miss, "step time (no step markers)");
    if (!top_op) sbuf_printf(&miss, "%stop operator (no operators)", miss.len ? ", " : "");
    if (!top_k) sbuf_printf(&miss, "%stop kernel (no kernels)", miss.len ? ", " : "");
    if (!cpu) sbuf_printf(&miss, "%sCPU load (no CPU samples)", miss.len ? ", " : "");
    if (miss.data) cJSON_AddStringToObject(view, "not_in_trace", miss.data);
    sbuf_free(&miss);
}

static int cmp_event_dur(const void *a, const void *b) {
    return PC_CMP(((const pc_tl_event *)b)->duration_ns, ((const pc_tl_event *)a)->duration_ns); /* longest first */
}
static int cmp_event_start(const void *a, const void *b) {
    const pc_tl_event *x = a, *y = b;
    return x->lane != y->lane ? PC_CMP(x->lane, y->lane) : PC_CMP(x->start_ns, y->start_ns);
}

/* Keeps in tl's string list key (names, args) only the entries the events
 * v[0..n) point at (their name or args), renumbered in first-use order; -1 stays -1. */
static void timeline_strings(cJSON *tl, const char *key, pc_tl_event *v, size_t n, int args) {
    cJSON *list = cJSON_GetObjectItemCaseSensitive(tl, key);
    int nl = cJSON_GetArraySize(list), used = 0;
    cJSON **items = xcalloc((size_t)(nl ? nl : 1), sizeof *items);
    int *map = xcalloc((size_t)(nl ? nl : 1), sizeof *map), k = 0;
    cJSON *it;
    cJSON_ArrayForEach(it, list) items[k] = it, map[k++] = -1;
    cJSON *nlist = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        int64_t *x = args ? &v[i].args : &v[i].name;
        if (*x < 0 || *x >= nl) continue;
        if (map[*x] < 0) {
            map[*x] = used++;
            cJSON_AddItemToArray(nlist, cJSON_Duplicate(items[*x], 1));
        }
        *x = map[*x];
    }
    cJSON_ReplaceItemInObjectCaseSensitive(tl, key, nlist);
    free(map);
    free(items);
}

/* Keeps the longest half of the events, and only the names and arguments
 * they use; adds the rest to tl's "dropped". For a page over its budget. */
static void timeline_halve(cJSON *tl, pc_tl_event *v, size_t *n, double *dropped) {
    qsort(v, *n, sizeof *v, cmp_event_dur);
    size_t keep = *n / 2;
    qsort(v, keep, sizeof *v, cmp_event_start);
    timeline_strings(tl, "names", v, keep, 0);
    timeline_strings(tl, "args", v, keep, 1);
    *dropped += (double)(*n - keep);
    cJSON_ReplaceItemInObjectCaseSensitive(tl, "dropped", cJSON_CreateNumber(*dropped));
    *n = keep;
}

/* tl (without its events) as JSON text with the events v[0..n) first,
 * written here integer by integer (cJSON prints each number twice over to
 * find its precision), the rest by cJSON */
static char *timeline_text(const cJSON *tl, const pc_tl_event *v, size_t n) {
    char *rest = cJSON_PrintUnformatted(tl);
    if (!rest) return NULL;
    sbuf b = {0};
    sbuf_puts(&b, "{\"events\":[");
    for (size_t i = 0; i < n; i++) {
        const pc_tl_event *e = &v[i];
        sbuf_printf(&b, "%s[%lld,%lld,%lld,%lld,%lld,%lld,%lld]", i ? "," : "", (long long)e->lane, (long long)e->start_ns,
                    (long long)e->duration_ns, (long long)e->name, (long long)e->category, (long long)e->depth, (long long)e->args);
    }
    sbuf_puts(&b, "]");
    if (rest[1] != '}') sbuf_putc(&b, ',');
    sbuf_puts(&b, rest + 1);
    free(rest);
    return sbuf_take(&b);
}

/* Whether the JSON escape at p (a backslash, in a string of valid JSON)
 * stands for a character sbuf_visible hides: \b \f \r, or \uXXXX of a C0
 * control but TAB and LF, DEL, a C1 control, a bidi embedding, override or
 * isolate. *len: the escape's length. */
static int hidden_escape(const unsigned char *p, size_t *len) {
    *len = p[1] == 'u' ? 6 : 2;
    if (p[1] != 'u') return p[1] == 'b' || p[1] == 'f' || p[1] == 'r';
    char hex[5] = {(char)p[2], (char)p[3], (char)p[4], (char)p[5], 0};
    unsigned cp = (unsigned)strtoul(hex, NULL, 16);
    return (cp < 0x20 && cp != 9 && cp != 10) || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* JSON text txt as o[key], to sit in <script type="application/json">: '<',
 * '>', '&' and U+2028/9 written as \u escapes, so no name from the trace can
 * close the element or be read as markup; what its strings hold is shown as
 * every output shows it (sbuf_visible: controls and bidi overrides as '?',
 * raw or escaped), since the page's script puts it on screen */
static void script_json(cJSON *o, const char *key, const char *txt0) {
    sbuf b = {0}, v = {0};
    sbuf_visible(&v, txt0, strlen(txt0), 1); /* raw characters; valid JSON has no raw C0 control */
    const char *txt = v.data ? v.data : "";
    for (const unsigned char *p = (const unsigned char *)txt; *p; p++) {
        size_t len;
        if (*p == '\\' && p[1]) {
            if (hidden_escape(p, &len)) sbuf_putc(&b, '?');
            else sbuf_putn(&b, (const char *)p, len);
            p += len - 1;
        } else if (*p == '<') sbuf_puts(&b, "\\u003c");
        else if (*p == '>') sbuf_puts(&b, "\\u003e");
        else if (*p == '&') sbuf_puts(&b, "\\u0026");
        else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) sbuf_puts(&b, p[2] == 0xA8 ? "\\u2028" : "\\u2029"), p += 2;
        else sbuf_putc(&b, (char)*p);
    }
    cJSON_AddStringToObject(o, key, b.data ? b.data : "");
    sbuf_free(&b);
    sbuf_free(&v);
}

/* The interactive timeline's data (trace_timeline and the steps' windows) as
 * JSON text to sit in <script type="application/json">: '<', '>', '&' and
 * U+2028/9 written as \u escapes, controls and bidi overrides as '?'
 * (script_json), so no name from the trace can close the element, be read as
 * markup or hide itself. */
static void timeline_json(const pc_summary *summary, cJSON *v, size_t max_steps) {
    size_t n;
    pc_tl_event *ev = pc_summary_trace_events(summary, &n);
    cJSON *tl = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "trace_timeline"), 1); /* without its events (view_copy) */
    if (!tl || !n) { cJSON_Delete(tl); free(ev); return; }
    cJSON *steps = cJSON_AddArrayToObject(tl, "steps");
    const pc_table *rows = PC_TAB(summary, step);
    for (size_t i = 0; rows && i < rows->n && i < max_steps; i++) {
        const tab_step *r = &TAB_ROWS(rows, step)[i];
        cJSON *s = cJSON_CreateArray();
        cJSON_AddItemToArray(s, cJSON_CreateString(PC_S(r->name, "")));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(PC_OR(r->start_ns, 0)));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(PC_OR(r->duration_ns, 0)));
        cJSON_AddItemToArray(steps, s);
    }
    /* at most a fifth of the page's budget: past that, the longest half of the events, again */
    const tab_trace_timeline *rec = PC_REC(summary, trace_timeline);
    double dropped = PC_OR(rec->dropped, 0);
    char *txt;
    while ((txt = timeline_text(tl, ev, n)) && strlen(txt) > PC_HTML_MAX / 5 && n >= 2) {
        free(txt);
        timeline_halve(tl, ev, &n, &dropped);
    }
    free(ev);
    cJSON *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    double kept = (double)n, all = PC_OR(rec->events_total, kept);
    if (kept < all) {
        cJSON_AddNumberToObject(view, "timeline_kept", kept);
        cJSON_AddNumberToObject(view, "timeline_total", all);
    }
    cJSON_Delete(tl);
    if (!txt) return;
    script_json(view, "timeline_json", txt);
    free(txt);
}



/* each row's name_short beside its name: the short names of the list's rows, told apart within it */
static void add_short_names(cJSON *arr) {
    int n = cJSON_GetArraySize(arr), i = 0;
    if (n <= 0) return;
    const char **full = xcalloc((size_t)n, sizeof *full);
    char **sh = xcalloc((size_t)n, sizeof *sh);
    cJSON *x;
    cJSON_ArrayForEach(x, arr) {
        const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "name"));
        full[i++] = nm ? nm : "";
    }
    pc_short_names(full, (size_t)n, PC_SHORT_TABLE, sh);
    i = 0;
    cJSON_ArrayForEach(x, arr) {
        cJSON_AddStringToObject(x, "name_short", sh[i]);
        free(sh[i++]);
    }
    free(sh), free(full);
}
/* A job's per-rank detail (ranks.kernels, .operators, .steps, .memory, one
 * list each) regrouped by rank for report.html's rank selector:
 * view.rank_detail = [{rank, first, kernels, operators, steps, memory}], in
 * the order ranks.rows has them; each name with NAME_short beside it. */
static void rank_detail(const pc_summary *s, cJSON *v) {
    cJSON *rs = cJSON_GetObjectItemCaseSensitive(v, "ranks"), *view = cJSON_GetObjectItemCaseSensitive(v, "view");
    const pc_table *rows = PC_TAB(s, rank); /* every rank: the view's ranks.rows may be cut */
    if (!rs || !view || !rows) return;
    static const char *const lists[] = {"kernels", "operators", "steps", "memory"};
    cJSON *out = cJSON_AddArrayToObject(view, "rank_detail");
    int first = 1;
    for (size_t q = 0; q < rows->n; q++) {
        const tab_rank *tr = &TAB_ROWS(rows, rank)[q];
        if (tk_null_I(tr->rank)) continue;
        double rk = (double)tr->rank;
        cJSON *d = cJSON_CreateObject();
        int any = 0;
        for (int k = 0; k < 4; k++) {
            cJSON *src = cJSON_GetObjectItemCaseSensitive(rs, lists[k]), *dst = cJSON_AddArrayToObject(d, lists[k]), *x;
            cJSON_ArrayForEach(x, src) {
                cJSON *xr = cJSON_GetObjectItemCaseSensitive(x, "rank");
                if (cJSON_IsNumber(xr) && xr->valuedouble == rk) cJSON_AddItemToArray(dst, cJSON_Duplicate(x, 1)), any = 1;
            }
            if (k < 2) add_short_names(dst); /* told apart within the list, short enough for a table cell */
        }
        if (!any) { cJSON_Delete(d); continue; }
        cJSON_AddNumberToObject(d, "rank", rk);
        cJSON_AddStringToObject(d, "input", PC_S(tr->input, ""));
        cJSON_AddBoolToObject(d, "first", first);
        /* its timeline (ranks.timelines: the ranks in detail but the shown one), for the Timeline section */
        const cJSON *tl;
        cJSON_ArrayForEach(tl, cJSON_GetObjectItemCaseSensitive(rs, "timelines")) {
            const cJSON *xr = cJSON_GetObjectItemCaseSensitive(tl, "rank");
            if (first || !cJSON_IsNumber(xr) || xr->valuedouble != rk) continue;
            char *txt = cJSON_PrintUnformatted(tl);
            if (txt) script_json(d, "timeline_json", txt);
            free(txt);
            cJSON_AddItemToObject(d, "tl_kept", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tl, "kept"), 1));
            cJSON_AddItemToObject(d, "tl_total", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(tl, "events_total"), 1));
            break;
        }
        first = 0;
        cJSON_AddItemToArray(out, d);
    }
    for (int k = 0; k < 4; k++) cJSON_DeleteItemFromObjectCaseSensitive(rs, lists[k]); /* shown by rank only */
    cJSON_DeleteItemFromObjectCaseSensitive(rs, "timelines");
    add_short_names(cJSON_GetObjectItemCaseSensitive(rs, "job_kernels")); /* the job-wide kernels' names, short */
}

/* A copy of the summary's document for a view, without trace_timeline.events:
 * no template reads them, and the interactive timeline takes its events from
 * the summary (timeline_json); 20,000 events are 10 MiB of cJSON a copy, and
 * the HTML and Markdown views are built at once. */
static cJSON *view_copy(const cJSON *doc) {
    cJSON *v = cJSON_CreateObject(), *c, *x;
    cJSON_ArrayForEach(c, doc) {
        if (strcmp(c->string, "trace_timeline") || !cJSON_IsObject(c)) {
            cJSON_AddItemToObject(v, c->string, cJSON_Duplicate(c, 1));
            continue;
        }
        cJSON *tl = cJSON_AddObjectToObject(v, c->string);
        cJSON_ArrayForEach(x, c) if (strcmp(x->string, "events")) cJSON_AddItemToObject(tl, x->string, cJSON_Duplicate(x, 1));
    }
    return v;
}

/* Each chart object of the view (one holding "png", the file written under charts/) gets
 * "md_png", the reference summary.md shows (pc_report_opts.md_images): the relative file, the
 * base URL joined to it, or none ("none": no image). Walks the whole view: charts sit under
 * view.charts and in per-device rows. */
static void md_images(cJSON *o, const char *base) {
    if (!o) return;
    const char *png = cJSON_IsObject(o) ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "png")) : NULL;
    if (png && !cJSON_GetObjectItemCaseSensitive(o, "md_png")) {
        if (!base) cJSON_AddStringToObject(o, "md_png", png);
        else if (strcmp(base, "none")) {
            sbuf b = {0};
            size_t n = strlen(base);
            sbuf_printf(&b, "%s%s%s", base, n && base[n - 1] == '/' ? "" : "/", png);
            cJSON_AddStringToObject(o, "md_png", b.data ? b.data : png);
            sbuf_free(&b);
        }
        return;
    }
    for (cJSON *c = o->child; c; c = c->next)
        if (cJSON_IsObject(c) || cJSON_IsArray(c)) md_images(c, base);
}

static cJSON *build_view(const pc_summary *summary, const pc_report_opts *o, const char *png_dir, const char *uses, int rows, pc_err *err,
                         int *rc) {
    cJSON *v = view_copy(summary->doc);
    materialize(summary, v, rows);
    chart_out co = rv_begin_view(v, png_dir, err);
    co.uses = uses;
    rv_report_charts(&co, summary, v, rows);
    cJSON *steps = cJSON_GetObjectItemCaseSensitive(v, "steps");
    if (steps) rv_cut(steps, "rows", rows * 4); /* counted when materialized */
    static const char *const tables[] = {"operators", "operator_types", "modules", NULL};
    for (int i = 0; tables[i]; i++) {
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(v, tables[i]);
        if (sec) rv_cut(sec, "rows", rows); /* counted when materialized */
    }
    rv_short_names(v); /* over the rows shown */
    rv_tree_rows(v);
    merge_repeats(v);
    md_extras(summary, v);
    cpath_view(summary, v);
    first_screen(summary, v);
    finding_links(v);
    finding_rows(v);
    step_bound_view(summary, v);
    rank_detail(summary, v);
    if (png_dir) cJSON_DeleteItemFromObjectCaseSensitive(v, "trace_timeline"); /* summary.md and e-mail: not shown */
    else timeline_json(summary, v, rows > 0 ? (size_t)rows * 4 : 0);
    if (png_dir) md_images(v, o ? o->md_images : NULL);
    *rc = co.rc;
    return v;
}

static int write_html(const pc_summary *summary, const pc_report_opts *o, pc_err *err) {
    sbuf out = {0};
    int rc = 0;
    /* every row of every table (the page shows them a hundred at a time,
     * report.js), unless the page would pass PC_HTML_MAX: then fewer rows per
     * table until it fits, each table saying how many are left out */
    static const int tries[] = {5000, 1000, 200, 50, 25, 10, 5};
    int ntries = (int)(sizeof tries / sizeof *tries);
    int first = o->html_rows > 0 ? o->html_rows : PC_HTML_ALL_ROWS;
    for (int i = -1; i < ntries; i++) {
        int rows = i < 0 ? first : tries[i];
        if (i >= 0 && rows >= first) continue;
        /* a row of a table is at least PC_HTML_ROW_MIN bytes of HTML: a try whose rows alone pass the
         * page's bound is skipped unbuilt (a million names made a 100,000-row view, 880 MiB, first) */
        if (i + 1 < ntries && rows_shown(summary, summary->doc, rows) * PC_HTML_ROW_MIN > PC_HTML_MAX) continue;
        cJSON *v = build_view(summary, o, NULL, NULL, rows, err, &rc);
        if (!rc) {
            rv_add_assets(v, o);
            rc = rv_render_text("report.html", o, v, ESC_HTML, &out, err);
        }
        cJSON_Delete(v);
        if (rc || out.len <= PC_HTML_MAX) break;
    }
    if (!rc) rc = rv_write_file(o->dir, "report.html", out.data, out.len, err);
    sbuf_free(&out);
    return rc;
}

/* summary.md with its PNG charts, and summary.eml */
static int write_md(const pc_summary *summary, const pc_report_opts *o, pc_err *err) {
    int rc = fs_mkdir_in(o->dir, "charts", err);
    if (rc) return rc;
    sbuf out = {0};
    cJSON *v = NULL;
    /* PNGs only for the charts summary.md and the e-mail show */
    char *md_t = pc_asset(o->templates_dir, "summary.md", NULL), *em_t = pc_asset(o->templates_dir, "email.html", NULL);
    sbuf uses = {0};
    sbuf_puts(&uses, md_t ? md_t : "");
    sbuf_puts(&uses, em_t ? em_t : "");
    free(md_t);
    free(em_t);
    static const int tries[] = {10, 5, 3, 1};
    for (int i = 0; i < 4; i++) {
        cJSON_Delete(v);
        v = build_view(summary, o, o->dir, uses.data ? uses.data : "", tries[i], err, &rc);
        if (!rc) rc = rv_render_text("summary.md", o, v, ESC_MD, &out, err);
        if (rc || out.len <= PC_MD_MAX) break;
    }
    /* still too long (very long names): cut at a line end, and say so */
    if (!rc) rv_md_fit(&out, "The summary was cut to fit 60,000 characters; report.html and summary.json have everything.");
    if (!rc && (o->formats & OUT_MD)) rc = rv_write_file(o->dir, "summary.md", out.data, out.len, err);
    if (!rc && (o->formats & OUT_EMAIL)) {
        cJSON *ch;
        cJSON_ArrayForEach(ch, rv_view_charts(v)) {
            char cid[96];
            snprintf(cid, sizeof cid, "%s@perfcard", ch->string);
            cJSON_AddStringToObject(ch, "cid", cid);
        }
        rc = rv_write_email(summary, v, o, out.data ? out.data : "", out.len, err);
    }
    cJSON_Delete(v);
    sbuf_free(&out);
    sbuf_free(&uses);
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
    int want_md = (o->formats & (OUT_MD | OUT_EMAIL)) != 0;
    /* charts/ checked before anything is written: a link there is refused */
    if (!rc && want_md) rc = fs_mkdir_in(o->dir, "charts", err);
    if (rc) return rc;
    /* the Markdown (and its PNG charts) renders on a second thread while the
     * HTML renders here: both only read the summary */
    md_job mj = {summary, o, {0}, 0};
    pthread_t th;
    int threaded = want_md && pthread_create(&th, NULL, md_thread, &mj) == 0;
    if (o->formats & OUT_JSON) {
        char *p = fs_join(o->dir, "summary.json");
        rc = pc_summary_write(summary, p, err);
        free(p);
    }
    if (!rc && (o->formats & OUT_CSV)) rc = rv_write_csvs(summary, o->dir, err);
    if (!rc && (o->formats & OUT_HTML)) rc = write_html(summary, o, err);
    if (threaded) pthread_join(th, NULL);
    else if (want_md && !rc) md_thread(&mj);
    if (!rc && mj.rc) {
        *err = mj.err;
        rc = mj.rc;
    }
    return rc;
}
