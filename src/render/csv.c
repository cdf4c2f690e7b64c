/* csv.c - every table of the summary, whole, as RFC 4180 CSV files beside
 * the report (cells a spreadsheet would read as formulas neutralised: sbuf_csv). */
#include "view.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- CSV: every table of the summary, whole ---- */

/* a number: whole numbers as integers, others with 9 significant digits */
static void csv_number(sbuf *b, double x) {
    if (x < 9e15 && x > -9e15 && x == (double)(long long)x) sbuf_printf(b, "%lld", (long long)x);
    else sbuf_printf(b, "%.9g", x);
}

static int write_file(const char *dir, const char *name, const sbuf *b, pc_err *err) {
    char *p = fs_join(dir, name);
    int rc = fs_write_atomic(p, b->data ? b->data : "", b->len, err);
    free(p);
    return rc;
}

/* the columns' keys as a header line */
static void csv_header_of(sbuf *b, const pc_table_def *d, const char *first_col) {
    if (first_col) sbuf_printf(b, "%s,", first_col);
    for (size_t q = 0; q < d->ncols; q++) {
        if (q) sbuf_putc(b, ',');
        sbuf_csv(b, d->cols[q].key, strlen(d->cols[q].key));
    }
    sbuf_puts(b, "\r\n");
}

/* one row or record, nulls empty */
static void csv_row_of(sbuf *b, const pc_table_def *d, const char *row, const char *first_val) {
    if (first_val) sbuf_printf(b, "%s,", first_val);
    for (size_t q = 0; q < d->ncols; q++) {
        const pc_col *c = &d->cols[q];
        pc_cell v = tab_cell(c, row);
        if (q) sbuf_putc(b, ',');
        if (v.null) continue;
        switch (c->kind) {
        case 'S': sbuf_csv(b, v.s, strlen(v.s)); break;
        case 'I': case 'J': sbuf_printf(b, "%lld", (long long)v.i); break;
        case 'F': csv_number(b, v.f); break;
        case 'B': sbuf_puts(b, v.b ? "true" : "false"); break;
        }
    }
    sbuf_puts(b, "\r\n");
}

/* a table's rows, whole: its columns' keys as the header, nulls empty */
static void csv_table(sbuf *b, const pc_table *t, int with_header, const char *first_col, const char *first_val) {
    if (with_header) csv_header_of(b, t->def, first_col);
    for (size_t i = 0; i < t->n; i++) csv_row_of(b, t->def, (const char *)t->rows + i * t->def->row_size, first_val);
}

int rv_write_csvs(const pc_summary *ps, const char *dir, pc_err *err) {
    int rc = 0;
    /* the suggestions: one record per row */
    if (PC_REC_AT(ps, suggestion, 0)) {
        sbuf b = {0};
        const void *r;
        csv_header_of(&b, &pc_table_defs[TAB_suggestion], NULL);
        for (size_t i = 0; (r = pc_summary_record_at(ps, TAB_suggestion, i)); i++) csv_row_of(&b, &pc_table_defs[TAB_suggestion], r, NULL);
        rc = write_file(dir, "suggestions.csv", &b, err);
        sbuf_free(&b);
    }
    static const struct { int id; const char *file; } typed[] = {
        {TAB_step, "steps.csv"}, {TAB_op, "operators.csv"}, {TAB_optype, "operator_types.csv"}, {TAB_module, "modules.csv"},
        {TAB_api, "api_calls.csv"}, {TAB_transfer, "transfers.csv"},
        {TAB_memop, "memory_operators.csv"}};
    for (size_t i = 0; i < sizeof typed / sizeof *typed && !rc; i++) {
        const pc_table *t = pc_summary_table_id(ps, typed[i].id);
        if (!t || !t->n) continue;
        sbuf b = {0};
        csv_table(&b, t, 1, NULL, NULL);
        rc = write_file(dir, typed[i].file, &b, err);
        sbuf_free(&b);
    }
    /* kernels: one file, a device column first */
    sbuf all = {0};
    const pc_table *t;
    int header = 0;
    for (size_t i = 0; (t = PC_TAB_AT(ps, kernel, i)); i++) {
        if (!t->n) continue;
        char dev[32];
        snprintf(dev, sizeof dev, "%lld", (long long)PC_OR(PC_REC_AT(ps, kernel_device, i)->device, 0));
        csv_table(&all, t, !header, "device", dev);
        header = 1;
    }
    if (!rc && header) rc = write_file(dir, "kernels.csv", &all, err);
    sbuf_free(&all);
    return rc;
}
