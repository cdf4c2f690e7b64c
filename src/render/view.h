/* view.h - the view library shared by the renderers (report.c, email.c,
 * report_charts.c, csv.c, diffreport.c, trendreport.c): the view is a copy
 * of a document plus what only presentation needs (charts, bounded tables,
 * formatted strings). view.c defines the library's core, view_names.c and
 * view_tree.c its name and tree helpers; the report's own functions
 * (rv_report_charts, rv_write_csvs, rv_write_email) are declared here too
 * and defined in their files. Internal to src/render. */
#ifndef PC_VIEW_H
#define PC_VIEW_H
#include <cjson/cJSON.h>
#include "chart.h"
#include "report.h"
#include "tmpl.h"
#include "../util/sbuf.h"
#include "../summary/summary.h"

typedef struct chart_out {
    cJSON *charts;     /* view.charts */
    const char *dir;   /* where PNGs go; NULL: none, inline SVG instead */
    const char *uses;  /* with dir: the templates that show PNGs; a chart they do not name
                        * (charts.ID, or {{#chart}} for the kernels' per device) gets
                        * no PNG; NULL: every chart does */
    int counter;
    pc_err *err;
    int rc;
    cJSON *none;       /* view.no_chart: id -> why that chart is left out */
} chart_out;

/* The built-in templates and assets (embedded.c, written by tools/embed.sh). */
extern const struct embedded_file { const char *name; const unsigned char *data; size_t len; } pc_embedded[];
/* Returns the text of a template or asset: from templates_dir when it has the
 * file, else built in. Caller frees. NULL if unknown. */
char *pc_asset(const char *templates_dir, const char *name, size_t *len);

/* Gives a copied document its "view" object: any "view" it held is removed
 * first (the view holds only what the renderer makes), then {version,
 * charts: {}}; returns the chart writer for it (PNGs into png_dir when set). */
chart_out rv_begin_view(cJSON *doc, const char *png_dir, pc_err *err);
/* The view's charts (rv_begin_view's object, one member per chart id). */
cJSON *rv_view_charts(const cJSON *doc);
/* Adds view.charts.<id> = {svg (dir NULL) or png (dir set), title, data};
 * takes ownership of data. A chart with nothing worth drawing
 * (chart_empty_reason) gets no SVG, no PNG and no entry there: NULL is
 * returned and view.no_chart.<id> holds the sentence saying why. */
cJSON *rv_add_chart(chart_out *co, const char *id, const chart *c, cJSON *data);
cJSON *rv_series_rows(const chart *c);
/* Rows {label, value} for a chart's data table, from parallel arrays. */
cJSON *rv_data_rows(const char *const *labels, const double *vals, size_t n, int unit);
/* Records beside obj[key] (a list of n rows of which the view keeps `keep`)
 * key_total = n and key_more = the rows left out. */
void rv_count_rows(cJSON *obj, const char *key, size_t n, size_t keep);
/* Keeps the first keep elements of obj[key]; records key_more, key_total. */
void rv_limit(cJSON *obj, const char *key, int keep);
/* The same without the counts (for rows counted already). */
void rv_cut(cJSON *obj, const char *key, int keep);
void rv_fmt_unit(sbuf *b, double v, int unit);
void rv_add_assets(cJSON *view, const pc_report_opts *o);
/* The report's charts into view.charts, each referenced where it is shown
 * (report_charts.c); kernel rows cut to `rows` after their chart. */
void rv_report_charts(chart_out *co, const pc_summary *s, cJSON *v, int rows);
/* Whether a job's rank table row (ranks.rows, ranks.collectives: the i-th, of
 * rank `rank`) is shown when its tables show `keep` rows: the first keep, and
 * every row of the lowest rank, the slowest, the fastest and the straggler
 * (report.html's tries cut them; summary.json has every rank). */
int rv_rank_row_kept(const pc_summary *s, int64_t rank, size_t i, size_t keep);
/* NAME_short beside each name of the view's lists (operators, kernels,
 * types, memory, collectives, contributors; overview.top_kernel), told apart
 * within each list (view_names.c, src/util/shortname.h). */
void rv_short_names(cJSON *v);
/* The same for diff.html's view: the kernel and operator tables' names and each
 * change's contributors (a kernel's full name made a 218-pixel-tall cell). */
void rv_short_names_diff(cJSON *v);
/* Beside each row of the call-stack and module trees: tree_kids, tree_fold,
 * tree_chain, tree_chain_end (view_tree.c: single-child chains folded). */
void rv_tree_rows(cJSON *v);
/* Every table of the summary as CSV files in dir (csv.c). */
int rv_write_csvs(const pc_summary *ps, const char *dir, pc_err *err);
/* summary.eml from the Markdown view and its text (email.c). */
int rv_write_email(const pc_summary *s, const cJSON *view, const pc_report_opts *o, const char *md, size_t mdlen, pc_err *err);
/* Markdown over PC_MD_MAX characters (very long names) cut at a line end,
 * with note (a sentence saying so) appended as its own paragraph; the note's
 * room is kept first, so it is always whole and the text at most PC_MD_MAX. */
void rv_md_fit(sbuf *md, const char *note);
/* dir/name written atomically from len bytes of data. */
int rv_write_file(const char *dir, const char *name, const char *data, size_t len, pc_err *err);
/* A view of doc (the document written from typed, the comparison's typed
 * result, which the view's presentation reads) for a template: PNG charts
 * into png_dir when set (else inline SVG), tables cut to rows; *rc as
 * rv_begin_view's. */
typedef cJSON *(*rv_build_fn)(const cJSON *doc, const void *typed, const char *png_dir, int rows, pc_err *err, int *rc);
/* DIR/<stem>.json (the document), DIR/<stem>.html (a view of html_rows rows)
 * and DIR/<stem>.md with its charts/ (views of md_rows[0], md_rows[1], ...
 * rows until it fits, else cut with a note), as o->formats asks: the diff's
 * and trend's outputs. */
int rv_write_doc(const cJSON *doc, const void *typed, const pc_report_opts *o, const char *stem, rv_build_fn build, int html_rows, const int *md_rows,
                 int n_md_rows, pc_err *err);
/* Renders template tmpl_name (templates_dir override or built in) into out. */
int rv_render_text(const char *tmpl_name, const pc_report_opts *o, const cJSON *view, esc_mode mode, sbuf *out, pc_err *err);
#endif
