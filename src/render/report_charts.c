/* report_charts.c - the report's charts, drawn from the view: kernels and
 * operator types (bars, pie), steps (phases, lines, breakdown, GPU
 * utilization, CPU, queues), the median step's timeline, ranks. */
#include "view.h"
#include "../summary/categories.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/shortname.h"
#include "../util/units.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_chart(chart_out *co, const char *id, const chart *c, const char *const *dlabels, const double *dvals,
                      size_t dn, int unit) {
    rv_add_chart(co, id, c, rv_data_rows(dlabels, dvals, dn, unit));
}

/* the i-th element of the view's list sec.arr (a device, a queue): where its chart is attached */
static cJSON *view_elem(cJSON *v, const char *sec, const char *arr, size_t i) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, sec), arr), (int)i);
}

static void kernel_charts(chart_out *co, const pc_summary *s, cJSON *v, int rows) {
    const pc_table *t;
    for (size_t di = 0; (t = PC_TAB_AT(s, kernel, di)); di++) {
        cJSON *d = view_elem(v, "kernels", "devices", di);
        int n = t->n > 15 ? 15 : (int)t->n;
        if (n > 0 && d) {
            const char **full = xcalloc((size_t)n, sizeof *full);
            char **labels = xcalloc((size_t)n, sizeof *labels);
            double *vals = xcalloc((size_t)n, sizeof *vals);
            for (int i = 0; i < n; i++) {
                const tab_kernel *r = &TAB_ROWS(t, kernel)[i];
                full[i] = PC_S(r->name, "");
                vals[i] = PC_OR(r->total_ns, 0);
            }
            pc_short_names(full, (size_t)n, PC_SHORT_CHART, labels); /* told apart within the chart */
            char title[96], id[32];
            int dev = (int)PC_OR(PC_REC_AT(s, kernel_device, di)->device, 0);
            snprintf(title, sizeof title, "Top %d kernels by total time, device %d", n, dev);
            snprintf(id, sizeof id, "kernels_dev%d", dev < 0 ? 999 : dev);
            chart c = {.kind = CHART_HBAR, .title = title, .xlabel = "total time", .unit = UNIT_NS,
                       .labels = (const char *const *)labels, .values = vals, .n = (size_t)n};
            add_chart(co, id, &c, (const char *const *)labels, vals, (size_t)n, UNIT_NS);
            cJSON *ch = cJSON_GetObjectItemCaseSensitive(co->charts, id), *row;
            int k = 0;
            cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(ch, "data")) /* the full name on hover */
                if (k < n) cJSON_AddStringToObject(row, "full", full[k++]);
            if (ch) cJSON_AddItemReferenceToObject(d, "chart", ch);
            for (int i = 0; i < n; i++) free(labels[i]);
            free(labels);
            free(full);
            free(vals);
        }
        if (d) rv_cut(d, "rows", rows);
    }
}

/* Pie (top 9 + "other", so that each slice keeps a distinct color) and bar
 * (top 20) of the operator types. */
static void type_charts(chart_out *co, const pc_summary *s) {
    const pc_table *rows = PC_TAB(s, optype);
    int n = rows ? (int)rows->n : 0, shown = n < 20 ? n : 20;
    if (n == 0) return;
    int nb = shown < 20 ? shown : 20, np = n <= 10 ? (shown < n ? shown : n) : (shown < 9 ? shown : 9);
    const char **labels = xcalloc(21, sizeof *labels);
    double *vals = xcalloc(21, sizeof *vals);
    int colors[21];
    const char *basis = PC_S(PC_REC(s, operator_types)->time_basis, "device");
    const char **full = xcalloc(21, sizeof *full);
    char **shorts = xcalloc(21, sizeof *shorts);
    for (int i = 0; i < nb; i++) {
        const tab_optype *r = &TAB_ROWS(rows, optype)[i];
        full[i] = PC_S(r->type, "");
        vals[i] = PC_OR(r->time_ns, 0);
        colors[i] = 0;
    }
    pc_short_names(full, (size_t)nb, PC_SHORT_CHART, shorts); /* told apart within the chart */
    for (int i = 0; i < nb; i++) labels[i] = shorts[i];
    char title[128];
    snprintf(title, sizeof title, "Top %d operator types by %s time", nb, basis);
    chart bar = {.kind = CHART_HBAR, .title = title, .xlabel = !strcmp(basis, "device") ? "device time" : "CPU time",
                 .unit = UNIT_NS, .labels = labels, .values = vals, .colors = colors, .n = (size_t)nb};
    add_chart(co, "types_bar", &bar, labels, vals, (size_t)nb, UNIT_NS);
    /* "other" is the total less the types shown */
    double other = PC_OR(PC_REC(s, operator_types)->total_ns, 0);
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
    for (int i = 0; i < nb; i++) free(shorts[i]);
    free(shorts);
    free(full);
    free(labels);
    free(vals);
}

/* Steps: phases (stacked), duration and data wait (lines), breakdown
 * (stacked, category colors), GPU utilization over time, CPU and queues. */
static void step_charts(chart_out *co, const pc_summary *s, cJSON *v) {
    const pc_table *rows = PC_TAB(s, step);
    size_t n = rows ? rows->n : 0;
    if (n == 0) return;
    char **labels = xcalloc(n, sizeof *labels);
    double *x = xcalloc(n, sizeof *x), *ph[4], *dur = xcalloc(n, sizeof *dur), *dw = xcalloc(n, sizeof *dw);
    for (int k = 0; k < 4; k++) ph[k] = xcalloc(n, sizeof(double));
    double *bd[BK_N];
    for (int k = 0; k < BK_N; k++) bd[k] = xcalloc(n, sizeof(double));
    /* at most 120 bars: consecutive steps averaged in groups */
    size_t total = n, g = n > 120 ? (n + 119) / 120 : 1;
    n = (total + g - 1) / g;
    size_t i = 0, in_group = 0;
    long long first_no = 0;
    for (size_t ri = 0; ri < total; ri++) {
        const tab_step *r = &TAB_ROWS(rows, step)[ri];
        size_t gi = i / g;
        long long no = (long long)PC_OR(r->number, (double)i);
        if (in_group == 0) first_no = no;
        x[gi] += PC_OR(r->number, (double)i) / (double)g;
        ph[0][gi] += PC_OR(r->iteration_interval_ns, 0);
        ph[1][gi] += PC_OR(r->fp_bp_ns, 0);
        ph[2][gi] += PC_OR(r->tail_ns, 0);
        ph[3][gi] += PC_OR(r->earlier_work_ns, 0);
        dur[gi] += PC_OR(r->duration_ns, 0);
        dw[gi] += PC_OR(r->data_wait_ns, 0);
        for (int k = 0; k < BK_N; k++) bd[k][gi] += pc_bk_step(r, k);
        in_group++;
        i++;
        if (in_group == g || i == total) {
            char buf[48];
            if (g == 1) snprintf(buf, sizeof buf, "#%lld", no);
            else snprintf(buf, sizeof buf, "#%lld-%lld", first_no, no);
            labels[gi] = xstrdup(buf);
            double k2 = (double)in_group;
            x[gi] = x[gi] * (double)g / k2;
            ph[0][gi] /= k2, ph[1][gi] /= k2, ph[2][gi] /= k2, ph[3][gi] /= k2, dur[gi] /= k2, dw[gi] /= k2;
            for (int k = 0; k < BK_N; k++) bd[k][gi] /= k2;
            in_group = 0;
        }
    }
    /* the per-step charts: none for a trace without steps (its one row is the
     * whole trace), and rv_add_chart leaves out those with one step */
    size_t ns = PC_REC(s, steps)->source ? n : 0;
    chart_series ps[4] = {{"earlier work", NULL, ph[3], ns, 8}, {"iteration interval", NULL, ph[0], ns, 1},
                          {"forward + backward", NULL, ph[1], ns, 0}, {"tail", NULL, ph[2], ns, 2}};
    int earlier = 0; /* its series only where some step has earlier work */
    for (size_t k = 0; k < ns; k++) earlier |= ph[3][k] > 0;
    chart c1 = {.kind = CHART_STACKED, .title = "Step phases", .xlabel = "step", .ylabel = "time", .unit = UNIT_NS,
                .series = ps + !earlier, .nseries = 3 + (size_t)earlier, .categories = (const char *const *)labels, .ncat = ns};
    rv_add_chart(co, "steps_phases", &c1, rv_series_rows(&c1));
    chart_series ls[2] = {{"step time", x, dur, ns, 0}, {"data wait", x, dw, ns, 2}};
    chart c2 = {.kind = CHART_LINE, .title = "Step time and data wait per step", .xlabel = "step", .ylabel = "time",
                .unit = UNIT_NS, .xunit = UNIT_COUNT, .series = ls, .nseries = 2};
    rv_add_chart(co, "steps_lines", &c2, rv_series_rows(&c2));
    chart_series bs[BK_N];
    for (int k = 0; k < BK_N; k++) bs[k] = (chart_series){pc_bk[k].label, NULL, bd[k], ns, chart_category_color(pc_bk[k].name)};
    chart c3 = {.kind = CHART_STACKED, .title = "Where each step's time goes", .xlabel = "step", .ylabel = "time",
                .unit = UNIT_NS, .series = bs, .nseries = BK_N, .categories = (const char *const *)labels, .ncat = ns};
    rv_add_chart(co, "breakdown", &c3, rv_series_rows(&c3));
    chart_series ds[1] = {{"data wait", NULL, dw, ns, chart_category_color("dataloader")}};
    chart c4 = {.kind = CHART_STACKED, .title = "Data loading wait per step", .xlabel = "step", .ylabel = "time",
                .unit = UNIT_NS, .series = ds, .nseries = 1, .categories = (const char *const *)labels, .ncat = ns};
    rv_add_chart(co, "data_wait", &c4, rv_series_rows(&c4));
    /* step boundaries as marks on time charts: at most 40 of them (every
     * step's, or every k-th step's), more would hide the line */
    double *marks = xcalloc(total, sizeof *marks);
    size_t nmarks = 0, mk = total > 40 ? (total + 39) / 40 : 1;
    for (size_t ri = 0; ri < total; ri++)
        if (ri % mk == 0 && nmarks < total) marks[nmarks++] = PC_OR(TAB_ROWS(rows, step)[ri].start_ns, 0);
    /* GPU utilization over time, per device */
    const pc_table *pts;
    for (size_t di = 0; (pts = PC_TAB_AT(s, gpu_point, di)); di++) {
        size_t m = pts->n;
        cJSON *d = view_elem(v, "gpu", "devices", di);
        if (!m || !d) continue;
        double *tx = xcalloc(m, sizeof *tx), *ty = xcalloc(m, sizeof *ty);
        for (size_t j = 0; j < m; j++) {
            const tab_gpu_point *p = &TAB_ROWS(pts, gpu_point)[j];
            tx[j] = PC_OR(p->t_ns, 0), ty[j] = PC_OR(p->utilization_pct, 0);
        }
        char id[32], title[96];
        int dev = (int)PC_OR(PC_REC_AT(s, gpu_device, di)->device, 0);
        snprintf(id, sizeof id, "gpu_util_dev%d", dev < 0 ? 999 : dev);
        char bucket[32];
        units_ns(bucket, sizeof bucket, PC_OR(PC_REC_AT(s, gpu_timeline, di)->bucket_ns, 0));
        snprintf(title, sizeof title, "GPU %d utilization over time (buckets of %s)", dev, bucket);
        chart_series us[1] = {{"GPU utilization", tx, ty, m, 0}};
        chart c5 = {.kind = CHART_LINE, .title = title, .xlabel = "time since trace start", .ylabel = "utilization",
                    .unit = UNIT_PCT, .xunit = UNIT_NS, .series = us, .nseries = 1, .marks = marks, .nmarks = nmarks};
        cJSON *ch = rv_add_chart(co, id, &c5, rv_series_rows(&c5));
        if (ch) cJSON_AddItemReferenceToObject(d, "chart", ch);
        free(tx);
        free(ty);
    }
    /* CPU utilization */
    const pc_table *cs = PC_TAB(s, cpu_point);
    size_t m = cs ? cs->n : 0;
    if (m) {
        static const char *const cn[4] = {"user", "system", "iowait", "process"};
        static const int cc[4] = {0, 4, 1, 2};
        double *tx = xcalloc(m, sizeof *tx), *ty[4];
        for (int k = 0; k < 4; k++) ty[k] = xcalloc(m, sizeof(double));
        for (size_t j = 0; j < m; j++) {
            const tab_cpu_point *p = &TAB_ROWS(cs, cpu_point)[j];
            tx[j] = PC_OR(p->t_ns, 0);
            ty[0][j] = PC_OR(p->user, 0), ty[1][j] = PC_OR(p->system, 0), ty[2][j] = PC_OR(p->iowait, 0), ty[3][j] = PC_OR(p->process, 0);
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
    const pc_table *ser;
    int qi = 0;
    for (size_t qn = 0; (ser = PC_TAB_AT(s, queue_point, qn)); qn++) {
        size_t k = ser->n;
        cJSON *q = view_elem(v, "queues", "rows", qn);
        if (!k || !q) continue;
        const tab_queue *qr = PC_REC_AT(s, queue, qn);
        double *tx = xcalloc(k, sizeof *tx), *ty = xcalloc(k, sizeof *ty), *cap = xcalloc(k, sizeof *cap);
        double capv = PC_OR(qr->capacity, 0);
        for (size_t j = 0; j < k; j++) {
            const tab_queue_point *p = &TAB_ROWS(ser, queue_point)[j];
            tx[j] = PC_OR(p->t_ns, 0), ty[j] = PC_OR(p->size, 0), cap[j] = capv;
        }
        chart_series us[2] = {{"size", tx, ty, k, 0}, {"capacity", tx, cap, k, 8}};
        char id[32], title[160];
        snprintf(id, sizeof id, "queue%d", qi++);
        snprintf(title, sizeof title, "Queue %s: size over time", PC_S(qr->name, ""));
        chart c7 = {.kind = CHART_LINE, .title = title, .xlabel = "time since trace start", .ylabel = "items",
                    .unit = UNIT_COUNT, .xunit = UNIT_NS, .series = us, .nseries = capv > 0 ? 2 : 1, .marks = marks, .nmarks = nmarks};
        cJSON *ch = rv_add_chart(co, id, &c7, rv_series_rows(&c7));
        if (ch) cJSON_AddItemReferenceToObject(q, "chart", ch);
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
    for (int k = 0; k < 4; k++) free(ph[k]);
    for (int k = 0; k < BK_N; k++) free(bd[k]);
}

static void timeline_chart(chart_out *co, const pc_summary *sm, cJSON *v) {
    size_t nr;
    pc_tl_row *rows = pc_summary_timeline_rows(sm, &nr);
    if (!nr) { free(rows); return; }
    chart_row *cr = xcalloc(nr, sizeof *cr);
    for (size_t i = 0; i < nr; i++) {
        size_t n = rows[i].nboxes;
        double *s = xcalloc(n ? n : 1, sizeof *s), *e = xcalloc(n ? n : 1, sizeof *e);
        int *col = xcalloc(n ? n : 1, sizeof *col);
        for (size_t k = 0; k < n; k++) {
            s[k] = rows[i].boxes[k].start_ns;
            e[k] = rows[i].boxes[k].end_ns;
            col[k] = chart_category_color(rows[i].boxes[k].category);
        }
        cr[i] = (chart_row){rows[i].label, s, e, col, n};
    }
    static const char *const names[] = {"kernel", "communication", "memcpy", "memset", "cpu", "runtime", "dataloader"};
    static const char *const shown[] = {"Kernel", "Communication (NCCL)", "Memcpy", "Memset", "CPU operator", "Runtime (API call)", "DataLoader"};
    int cols[7];
    for (int k = 0; k < 7; k++) cols[k] = chart_category_color(names[k]);
    char title[200];
    snprintf(title, sizeof title, "Timeline of %s (the median step)", PC_S(PC_REC(sm, timeline)->step, ""));
    chart c = {.kind = CHART_TIMELINE, .title = title, .xlabel = "time since the step's start", .rows = cr, .nrows = nr,
               .legend_names = shown, .legend_colors = cols, .nlegend = 7, .width = 1000};
    cJSON *data = cJSON_CreateArray();
    for (size_t i = 0; i < nr; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "label", rows[i].label);
        char buf[64];
        snprintf(buf, sizeof buf, "%zu boxes", rows[i].nboxes);
        cJSON_AddStringToObject(x, "value", buf);
        cJSON_AddItemToArray(data, x);
    }
    rv_add_chart(co, "timeline", &c, data);
    for (size_t i = 0; i < nr; i++) free((void *)cr[i].s), free((void *)cr[i].e), free((void *)cr[i].color);
    free(cr);
    pc_tl_rows_free(rows, nr);
    /* the boxes are in the chart; drop them from the view */
    cJSON *tl = cJSON_GetObjectItem(v, "timeline");
    cJSON_DeleteItemFromObject(tl, "rows");
}

/* Distributed jobs: where an average step goes, per rank, in the Ranks
 * table's four parts of the mean step: compute, exposed communication, data
 * wait alone, idle (ranks.rows; an input with phases and no kernels: its
 * compute and exposed communication) */
static void rank_charts(chart_out *co, const pc_summary *sm, int keep) {
    const pc_table *rows = PC_TAB(sm, rank);
    size_t all = rows ? rows->n : 0, n = 0, i;
    if (all < 2) return;
    char **labels = xcalloc(all, sizeof *labels);
    double *y[4];
    for (int k = 0; k < 4; k++) y[k] = xcalloc(all, sizeof(double));
    /* the ranks the table shows (cut with it for the page's size) */
    for (size_t q = 0; q < all; q++) {
        const tab_rank *r = &TAB_ROWS(rows, rank)[q];
        if (!rv_rank_row_kept(sm, r->rank, q, keep > 0 ? (size_t)keep : 0)) continue;
        i = n++;
        char b[32];
        snprintf(b, sizeof b, "rank %d", (int)PC_OR(r->rank, 0));
        labels[i] = xstrdup(b);
        y[0][i] = PC_OR(r->compute_ns, 0);
        y[1][i] = PC_OR(r->communication_ns, 0);
        y[2][i] = PC_OR(r->data_ns, 0);
        y[3][i] = PC_OR(r->idle_ns, 0);
    }
    chart_series s[4] = {{"compute", NULL, y[0], n, chart_category_color("kernel")},
                         {"exposed communication", NULL, y[1], n, chart_category_color("communication")},
                         {"data wait alone", NULL, y[2], n, chart_category_color("dataloader")},
                         {"idle", NULL, y[3], n, chart_category_color("idle")}};
    char title[160] = "Per rank: where an average step goes";
    if (n < all) snprintf(title, sizeof title, "Per rank: where an average step goes (%zu of %zu ranks: the Ranks table's)", n, all);
    chart c = {.kind = CHART_STACKED, .title = title, .xlabel = "rank", .ylabel = "time per step",
               .unit = UNIT_NS, .series = s, .nseries = 4, .categories = (const char *const *)labels, .ncat = n};
    rv_add_chart(co, "ranks", &c, rv_series_rows(&c));
    for (i = 0; i < n; i++) free(labels[i]);
    free(labels);
    for (int k = 0; k < 4; k++) free(y[k]);
}

/* row i's parent is an earlier row (null, -1 or any other value: a root) */
static int flame_has_parent(int64_t p, size_t i) { return p != PC_NULL_I && p >= 0 && (uint64_t)p < i; }

/* a frame's last path component: "resnet.py(249): forward" */
static const char *flame_base(const char *f) {
    const char *slash = strrchr(f, '/');
    return slash ? slash + 1 : f;
}

/* a tree of call_stacks (rows_key: rows by call stack, module_rows by
 * nn.Module, depth-first) as flame graph id: each node as wide as its device
 * time (CPU time when no node has device time), children left to right from
 * their parent's left edge. A chain of frames each its parent's only child
 * with the same device time, CPU time and calls (wrappers: view_tree.c folds
 * them the same way in the table) is one box, "A › B › … › Z (N frames)". */
static void flame_chart(chart_out *co, const pc_table *t, const char *id, const char *by) {
    size_t n = t ? t->n : 0;
    if (!n) return;
    /* both trees' rows have the frame columns (FRAME_COLS): read as call-stack frames */
    const tab_stack_frame *rows = (const tab_stack_frame *)t->rows;
    double devsum = 0;
    for (size_t i = 0; i < n; i++) devsum += PC_OR(rows[i].device_ns, 0);
    int by_dev = devsum > 0;
    double *x = xcalloc(n, sizeof *x), *wd = xcalloc(n, sizeof *wd), *next = xcalloc(n, sizeof *next), total = 0, root_at = 0;
    int *dp = xcalloc(n, sizeof *dp), *vd = xcalloc(n, sizeof *vd), *kids = xcalloc(n, sizeof *kids), *fold = xcalloc(n, sizeof *fold);
    size_t *head = xcalloc(n, sizeof *head), *chain = xcalloc(n, sizeof *chain), *second = xcalloc(n, sizeof *second), *last = xcalloc(n, sizeof *last);
    const char **lab = xcalloc(n, sizeof *lab);
    char **own = xcalloc(n, sizeof *own);
    for (size_t i = 0; i < n; i++)
        if (!flame_has_parent(rows[i].parent, i)) total += PC_OR(by_dev ? rows[i].device_ns : rows[i].cpu_ns, 0);
        else kids[rows[i].parent]++;
    if (total <= 0) goto done;
    /* a node's depth is its parent's plus one (its parent's, folded), whatever
     * the row says; a parent that is not an earlier row (the validator refuses
     * it) makes a root */
    for (size_t i = 0; i < n; i++) {
        const tab_stack_frame *r = &rows[i];
        int64_t p = r->parent;
        wd[i] = PC_OR(by_dev ? r->device_ns : r->cpu_ns, 0) / total;
        lab[i] = PC_S(r->frame, "");
        head[i] = i;
        if (!flame_has_parent(p, i)) {
            x[i] = root_at, root_at += wd[i], vd[i] = 0;
            continue;
        }
        x[i] = x[p] + next[p], next[p] += wd[i];
        const tab_stack_frame *q = &rows[p];
        fold[i] = kids[p] == 1 && q->device_ns == r->device_ns && q->cpu_ns == r->cpu_ns && q->calls == r->calls;
        if (fold[i]) {
            head[i] = head[p], vd[i] = vd[p], last[head[i]] = i;
            if (!chain[head[i]]++) second[head[i]] = i;
        }
        else vd[i] = vd[p] < 1000 ? vd[p] + 1 : 1000;
    }
    for (size_t i = 0; i < n; i++) {
        dp[i] = fold[i] ? -1 : vd[i]; /* a folded frame: drawn in its chain's box */
        if (fold[i] || !chain[i]) continue;
        sbuf b = {0};
        sbuf_printf(&b, "%s \u203a ", flame_base(lab[i]));
        if (chain[i] >= 2) sbuf_printf(&b, "%s \u203a ", flame_base(lab[second[i]]));
        if (chain[i] >= 3) sbuf_puts(&b, "\u2026 \u203a ");
        sbuf_printf(&b, "%s", flame_base(lab[last[i]]));
        if (chain[i] >= 2) sbuf_printf(&b, " (%zu frames)", chain[i] + 1);
        lab[i] = own[i] = sbuf_take(&b);
    }
    char title[96];
    snprintf(title, sizeof title, "Where the %s time goes, by %s (outermost on top)", by_dev ? "device" : "CPU", by);
    chart c = {.kind = CHART_FLAME, .title = title, .fx = x, .fw = wd, .fdepth = dp, .flabels = lab, .nflame = n};
    rv_add_chart(co, id, &c, cJSON_CreateArray());
done:
    for (size_t i = 0; i < n; i++) free(own[i]);
    free(x), free(wd), free(next), free(dp), free(vd), free(kids), free(fold), free(head), free(chain), free(second), free(last), free(lab), free(own);
}

/* a roofline: the points of table t (operators or kernels, as what says) as chart id */
static void roofline_chart(chart_out *co, const pc_summary *s, const pc_table *pts, const char *id, const char *what) {
    const pc_table *ce = PC_TAB(s, ceiling);
    size_t n = pts ? pts->n : 0, nc = ce ? ce->n : 0;
    if (!n || !nc) return;
    double *x = xcalloc(n, sizeof *x), *y = xcalloc(n, sizeof *y), *sz = xcalloc(n, sizeof *sz), *ct = xcalloc(nc, sizeof *ct);
    int *col = xcalloc(n, sizeof *col);
    const char **lab = xcalloc(n, sizeof *lab), **cl = xcalloc(nc, sizeof *cl);
    /* both point tables start with the roofline's columns (ROOF_COLS): read as operator points */
    for (size_t i = 0; i < n; i++) {
        const tab_roof *p = (const tab_roof *)(const void *)((const char *)pts->rows + i * pts->def->row_size);
        x[i] = PC_OR(p->intensity, 0), y[i] = PC_OR(p->tflops, 0), sz[i] = PC_OR(p->device_ns, 0);
        col[i] = p->bound && !strcmp(p->bound, "memory") ? 1 : 0;
        lab[i] = PC_S(p->name, "");
    }
    char **shorts = xcalloc(n, sizeof *shorts);
    pc_short_names(lab, n, PC_SHORT_CHART, shorts); /* the points' labels, told apart */
    for (size_t i = 0; i < n; i++) lab[i] = shorts[i];
    for (size_t i = 0; i < nc; i++) ct[i] = PC_OR(TAB_ROWS(ce, ceiling)[i].tflops, 0), cl[i] = PC_S(TAB_ROWS(ce, ceiling)[i].label, "");
    const tab_roofline *rf = PC_REC(s, roofline);
    /* the points' colours, as col above: 0 right of the ridge, 1 left of it */
    static const char *const bound_names[] = {"compute-bound (right of its ridge)", "memory-bound (left of its ridge)"};
    static const int bound_colors[] = {0, 1};
    char title[160];
    snprintf(title, sizeof title, "Roofline: %s against the %s's ceilings", what, PC_S(rf->device, "device"));
    chart c = {.kind = CHART_ROOFLINE, .title = title, .xlabel = "arithmetic intensity (FLOP per byte)", .ylabel = "TFLOP/s",
               .px = x, .py = y, .psize = sz, .pcolor = col, .plabels = lab, .npoints = n,
               .roof_gbs = PC_OR(rf->mem_gbs, 0), .ceil_tflops = ct, .ceil_labels = cl, .nceil = nc,
               .legend_names = bound_names, .legend_colors = bound_colors, .nlegend = 2};
    cJSON *rows = cJSON_CreateArray();
    for (size_t k = 0; k < n; k++) {
        char val[96];
        snprintf(val, sizeof val, "%.3g FLOP/B, %.3g TFLOP/s", x[k], y[k]);
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "label", lab[k]);
        cJSON_AddStringToObject(r, "value", val);
        cJSON_AddItemToArray(rows, r);
    }
    rv_add_chart(co, id, &c, rows);
    for (size_t i = 0; i < n; i++) free(shorts[i]);
    free(shorts);
    free(x), free(y), free(sz), free(ct), free(col), free(lab), free(cl);
}

/* device memory over time, one chart per device with a series, the peak marked */
static void memory_charts(chart_out *co, const pc_summary *sm, cJSON *v) {
    const pc_table *pts;
    for (size_t di = 0; (pts = PC_TAB_AT(sm, memory_point, di)); di++) {
        size_t m = pts->n;
        cJSON *d = view_elem(v, "memory", "devices", di);
        if (m < 2 || !d) continue;
        double *tx = xcalloc(m, sizeof *tx), *ta = xcalloc(m, sizeof *ta), *tr = xcalloc(m, sizeof *tr);
        int reserved = 0;
        for (size_t j = 0; j < m; j++) {
            const tab_memory_point *p = &TAB_ROWS(pts, memory_point)[j];
            tx[j] = PC_OR(p->t_ns, 0), ta[j] = PC_OR(p->allocated_bytes, 0);
            reserved |= !PC_IS_NULL(p->reserved_bytes);
            tr[j] = PC_OR(p->reserved_bytes, 0);
        }
        chart_series s[2] = {{"allocated", tx, ta, m, 0}, {"reserved", tx, tr, m, 1}};
        const tab_memory_device *md = PC_REC_AT(sm, memory_device, di);
        double peak = PC_OR(md->peak_t_ns, -1);
        char id[48], title[160];
        const char *kind = PC_S(md->device, "");
        int dev = (int)PC_OR(md->id, 0);
        snprintf(id, sizeof id, "memory_%s%d", !strcmp(kind, "cuda") ? "cuda" : "cpu", dev < 0 ? 999 : dev);
        if (!strcmp(kind, "cuda")) snprintf(title, sizeof title, "GPU %d memory over time (dashed line: the peak)", dev);
        else snprintf(title, sizeof title, "Host memory over time (dashed line: the peak)"); /* PyTorch numbers the host -1 */
        chart c = {.kind = CHART_LINE, .title = title, .xlabel = "time since trace start", .ylabel = "bytes", .unit = UNIT_BYTES,
                   .xunit = UNIT_NS, .series = s, .nseries = reserved ? 2 : 1, .marks = peak >= 0 ? &peak : NULL, .nmarks = peak >= 0};
        cJSON *ch = rv_add_chart(co, id, &c, rv_series_rows(&c));
        if (ch) cJSON_AddItemReferenceToObject(d, "chart", ch);
        free(tx);
        free(ta);
        free(tr);
    }
}

_Static_assert(offsetof(tab_kroof, bound) == offsetof(tab_roof, bound), "kernel points start with the roofline's columns");
_Static_assert(sizeof(tab_stack_frame) == sizeof(tab_module_frame), "the two trees' rows share their columns");

/* A share chart's data table: per bar its label and its share ("12.3%"). */
static cJSON *share_rows(const char *const *labels, const double *vals, size_t n) {
    cJSON *data = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *row = cJSON_CreateObject();
        char buf[32];
        snprintf(buf, sizeof buf, "%.1f%%", vals[i]);
        cJSON_AddStringToObject(row, "label", labels[i]);
        cJSON_AddStringToObject(row, "value", buf);
        cJSON_AddItemToArray(data, row);
    }
    return data;
}

/* The first screen's picture: the breakdown's shares (the categories of
 * overview.breakdown, 0.05% and over, in the breakdown's order and colors) as
 * one bar, the same figures as the breakdown section's Share column */
static void overview_chart(chart_out *co, const pc_summary *s) {
    const pc_table *bk = PC_TAB(s, bkcat);
    size_t n = bk ? bk->n : 0, k = 0;
    if (!n) return;
    const char **labels = xcalloc(n, sizeof *labels);
    double *vals = xcalloc(n, sizeof *vals);
    int *cols = xcalloc(n, sizeof *cols);
    for (size_t i = 0; i < n; i++) {
        const tab_bkcat *r = &TAB_ROWS(bk, bkcat)[i];
        if (PC_OR(r->pct, 0) < 0.05) continue;
        labels[k] = PC_S(r->category, "");
        cols[k] = chart_category_color(labels[k]);
        /* "other" is idle: named for what it is (#47 item 8), colored as before */
        if (!strcmp(labels[k], "other")) labels[k] = "nothing recorded: idle";
        else if (!strcmp(labels[k], "dataloader")) labels[k] = "data wait alone"; /* not the data wait figure (#47 item 3) */
        vals[k] = PC_OR(r->pct, 0);
        k++;
    }
    int steps = tk_true(PC_REC(s, overview)->has_steps);
    chart c = {.kind = CHART_SHARE, .title = steps ? "Where the step's time goes" : "Where the trace's time goes", .unit = UNIT_PCT,
               .labels = labels, .values = vals, .colors = cols, .n = k, .width = 870};
    /* 870 points: the page's 1160-pixel column */
    rv_add_chart(co, "overview", &c, share_rows(labels, vals, k));
    free(labels);
    free(vals);
    free(cols);
}

/* The headline's quantity beside it when the bar has no segment for it (#47
 * item 8): start-up leading (the first suggestion's rule "startup", its
 * stake the time before the first kernel) gives view.charts.overview_startup,
 * one bar of two segments: start-up and the rest of the span, their shares
 * of the span. */
static void overview_startup_chart(chart_out *co, const pc_summary *s) {
    const tab_suggestion *sg = PC_REC_AT(s, suggestion, 0);
    if (!sg || strcmp(PC_S(sg->rule, ""), "startup")) return;
    double pct = PC_OR(sg->at_stake_pct, NAN);
    if (!isfinite(pct) || pct <= 0 || pct > 100) return;
    const char *labels[] = {"start-up", "after start-up"}; /* the title says what start-up is */
    double vals[] = {pct, 100 - pct};
    int cols[] = {chart_category_color("cpu"), chart_category_color("kernel")};
    chart c = {.kind = CHART_SHARE, .title = "Start-up (before the first kernel), of the trace", .unit = UNIT_PCT,
               .labels = labels, .values = vals, .colors = cols, .n = 2, .width = 870};
    rv_add_chart(co, "overview_startup", &c, share_rows(labels, vals, 2));
}

/* The critical path's categories (critical_path.rows summed by category, in
 * the summary's order: pc_cpath_cat) as one bar of their shares of the step,
 * the colors of the breakdown's nearest category; the same figures as the
 * section's table. */
static const char *const cpath_color_of[PC_CP_N] = {"cpu", "dataloader", "runtime", "kernel", "memcpy", "communication", "other"};

static void cpath_chart(chart_out *co, const pc_summary *s) {
    enum { NC = PC_CP_N };
    double pct[NC];
    if (!tk_true(PC_REC(s, critical_path)->present) || !pc_cpath_by_category(s, pct, NULL)) return;
    const char *labels[NC];
    double vals[NC];
    int cols[NC];
    size_t n = 0;
    for (int k = 0; k < NC; k++) {
        if (pct[k] < 0.05) continue;
        labels[n] = pc_cpath_cat[k][1], vals[n] = pct[k], cols[n] = chart_category_color(cpath_color_of[k]);
        n++;
    }
    chart c = {.kind = CHART_SHARE, .title = "What the step waits on: its critical path", .unit = UNIT_PCT, .labels = labels,
               .values = vals, .colors = cols, .n = n, .width = 870};
    rv_add_chart(co, "critical_path", &c, share_rows(labels, vals, n));
    /* per step (critical_path.by_step): the same categories stacked, at most 120 bars (consecutive
     * steps averaged in groups, as the step charts do); left out with fewer than two steps */
    const pc_table *ps = PC_TAB(s, cpath_step), *sr = PC_TAB(s, step);
    size_t total = ps ? ps->n : 0;
    if (total < 2 || !PC_REC(s, steps)->source) return;
    size_t g = total > 120 ? (total + 119) / 120 : 1, nb = (total + g - 1) / g;
    double *y[NC];
    for (int k = 0; k < NC; k++) y[k] = xcalloc(nb, sizeof(double));
    char **lab = xcalloc(nb, sizeof *lab);
    for (size_t b = 0; b < nb; b++) {
        size_t i0 = b * g, i1 = i0 + g < total ? i0 + g : total;
        for (size_t i = i0; i < i1; i++) {
            const tab_cpath_step *r = &TAB_ROWS(ps, cpath_step)[i];
            const tk_I v[NC] = {r->host_ns, r->data_loading_ns, r->launch_ns, r->kernel_ns, r->copy_ns, r->communication_ns, r->earlier_work_ns};
            for (int k = 0; k < NC; k++) y[k][b] += PC_OR(v[k], 0) / (double)(i1 - i0);
        }
        /* the steps' numbers when steps.rows holds one row per step, else their index */
        long long a = (long long)i0, z = (long long)i1 - 1;
        if (sr && sr->n == total)
            a = (long long)PC_OR(TAB_ROWS(sr, step)[i0].number, (double)i0), z = (long long)PC_OR(TAB_ROWS(sr, step)[i1 - 1].number, (double)(i1 - 1));
        char buf[48];
        if (g == 1) snprintf(buf, sizeof buf, "#%lld", a);
        else snprintf(buf, sizeof buf, "#%lld-%lld", a, z);
        lab[b] = xstrdup(buf);
    }
    chart_series ser[NC];
    size_t m = 0;
    for (int k = 0; k < NC; k++) {
        int any = 0;
        for (size_t b = 0; b < nb; b++) any |= y[k][b] > 0;
        if (any) ser[m++] = (chart_series){pc_cpath_cat[k][1], NULL, y[k], nb, chart_category_color(cpath_color_of[k])};
    }
    chart c2 = {.kind = CHART_STACKED, .title = "Each step's critical path", .xlabel = "step", .ylabel = "time", .unit = UNIT_NS,
                .series = ser, .nseries = m, .categories = (const char *const *)lab, .ncat = nb};
    rv_add_chart(co, "critical_path_steps", &c2, rv_series_rows(&c2));
    for (size_t b = 0; b < nb; b++) free(lab[b]);
    free(lab);
    for (int k = 0; k < NC; k++) free(y[k]);
}

void rv_report_charts(chart_out *co, const pc_summary *s, cJSON *v, int rows) {
    overview_startup_chart(co, s);
    overview_chart(co, s);
    cpath_chart(co, s);
    kernel_charts(co, s, v, rows);
    type_charts(co, s);
    step_charts(co, s, v);
    timeline_chart(co, s, v);
    rank_charts(co, s, rows);
    memory_charts(co, s, v);
    roofline_chart(co, s, PC_TAB(s, roof), "roofline", "operators");
    roofline_chart(co, s, PC_TAB(s, kroof), "roofline_kernels", "kernels");
    flame_chart(co, PC_TAB(s, stack_frame), "flame", "call stack");
    flame_chart(co, PC_TAB(s, module_frame), "flame_modules", "nn.Module");
}
