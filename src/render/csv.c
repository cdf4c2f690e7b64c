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

static int write_file(const char *dir, const char *name, const sbuf *b, pc_err *err) {
    char *p = fs_join(dir, name);
    int rc = fs_write_atomic(p, b->data ? b->data : "", b->len, err);
    free(p);
    return rc;
}

/* rows of the document (objects; nested objects as dotted columns), the
 * first row's keys as the header */
static int write_csv(const char *dir, const char *name, const cJSON *rows, pc_err *err) {
    const cJSON *first_row = cJSON_GetArrayItem(rows, 0);
    if (!first_row) return 0;
    sbuf b = {0};
    int f = 1;
    csv_header(&b, first_row, "", &f);
    sbuf_puts(&b, "\r\n");
    const cJSON *r;
    cJSON_ArrayForEach(r, rows) {
        f = 1;
        csv_row(&b, first_row, r, &f);
        sbuf_puts(&b, "\r\n");
    }
    int rc = write_file(dir, name, &b, err);
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
            pc_cell v = tab_cell(c, row);
            if (q) sbuf_putc(b, ',');
            if (v.null) continue;
            switch (c->kind) {
            case 'S': sbuf_csv(b, v.s, strlen(v.s)); break;
            case 'I': case 'J': sbuf_printf(b, "%lld", (long long)v.i); break;
            case 'F': sbuf_printf(b, "%.9g", v.f); break;
            case 'B': sbuf_puts(b, v.b ? "true" : "false"); break;
            }
        }
        sbuf_puts(b, "\r\n");
    }
}

int rv_write_csvs(const pc_summary *ps, const char *dir, pc_err *err) {
    const cJSON *s = ps->doc;
    static const char *const tables[][2] = {{"suggestions.rows", "suggestions.csv"}};
    int rc = 0;
    for (size_t i = 0; i < sizeof tables / sizeof *tables && !rc; i++)
        rc = write_csv(dir, tables[i][1], sj_get(s, tables[i][0]), err);
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
