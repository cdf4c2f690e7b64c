#include "table.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE(id, path) static const pc_col cols_##id[] = {
#define RECORD(id, path) static const pc_col cols_##id[] = {
#define COL(id, field, kind, unit, label, def) \
    {#field, #kind[0], offsetof(tab_##id, field), unit, label, def, "\"" #field "\": ", sizeof("\"" #field "\": ") - 1, NULL, #field},
#define COLG(id, field, group, name, kind, unit, label, def) \
    {group "." name, #kind[0], offsetof(tab_##id, field), unit, label, def, "\"" name "\": ", sizeof("\"" name "\": ") - 1, group, name},
#define END(id) };
#include "tables.def"

const pc_table_def pc_table_defs[TAB_COUNT] = {
#define TABLE(id, path) {#id, path, cols_##id, sizeof cols_##id / sizeof *cols_##id, sizeof(tab_##id), 0},
#define RECORD(id, path) {#id, path, cols_##id, sizeof cols_##id / sizeof *cols_##id, sizeof(tab_##id), 1},
#include "tables.def"
};

static void set_null(const pc_col *c, char *row) {
    switch (c->kind) {
    case 'S': *(tk_S *)(row + c->off) = NULL; break;
    case 'I': case 'J': *(tk_I *)(row + c->off) = PC_NULL_I; break;
    case 'F': *(tk_F *)(row + c->off) = NAN; break;
    case 'B': *(tk_B *)(row + c->off) = -1; break;
    case 'V': *(tk_V *)(row + c->off) = (tk_V){NULL, -1}; break;
    }
}

/* a row of d with every field null */
static void null_row(const pc_table_def *d, char *row) {
    memset(row, 0, d->row_size);
    for (size_t i = 0; i < d->ncols; i++) set_null(&d->cols[i], row);
}

void *tab_push(pc_table *t) {
    if (t->def->record && !t->cap) { /* a record has one row: no room for more */
        t->rows = spill_calloc(1, t->def->row_size);
        t->cap = 1;
    } else spill_vec_reserve(&t->rows, &t->cap, t->n + 1, t->def->row_size);
    char *row = (char *)t->rows + t->n++ * t->def->row_size;
    null_row(t->def, row);
    return row;
}

void tab_free(pc_table *t) {
    spill_free(t->rows);
    t->rows = NULL;
    t->n = t->cap = 0;
}

const pc_col *tab_col(const pc_table_def *d, const char *key) {
    for (size_t i = 0; i < d->ncols; i++)
        if (!strcmp(d->cols[i].key, key)) return &d->cols[i];
    return NULL;
}

int tab_col_bounded(const pc_col *c) {
    return c->kind != 'S' && c->kind != 'B' &&
           (!strcmp(c->unit, "ns") || !strcmp(c->unit, "µs") || !strcmp(c->unit, "bytes") || !strcmp(c->unit, "count"));
}

char tab_kind(const pc_table_def *d, const char *key) {
    for (size_t i = 0; i < d->ncols; i++)
        if (d->cols[i].group && !strcmp(d->cols[i].group, key)) return 'O';
    const pc_col *c = tab_col(d, key);
    if (!c) { /* a list's element: "key[]" */
        size_t n = strlen(key);
        if (n < 3 || strcmp(key + n - 2, "[]")) return 0;
        for (size_t i = 0; i < d->ncols; i++)
            if (d->cols[i].kind == 'V' && strlen(d->cols[i].key) == n - 2 && !strncmp(d->cols[i].key, key, n - 2)) return 'U';
        return 0;
    }
    return c->kind == 'S' ? 'S' : c->kind == 'B' ? 'B' : c->kind == 'J' ? 'N' : c->kind == 'V' ? 'A' : 'U';
}

/* ---- JSON text ---- */

static char *put_u64(char *p, uint64_t v) {
    char tmp[24];
    int n = 0;
    do tmp[n++] = (char)('0' + v % 10), v /= 10; while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

static const double pow10_tab[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};

/* %.15g for the common range without printf: the digits of |v| scaled to a
 * 15-digit integer (the product is within half an ulp, so a value read back
 * and written again gives the same text), else printf. Writes at most 32
 * bytes at p; returns the end. */
static char *num_to(char *p, double v) {
    if (!isfinite(v)) {
        memcpy(p, "null", 4);
        return p + 4;
    }
    if (v == 0) v = 0; /* no -0 */
    double a = fabs(v);
    /* from 1e15 on, 17 digits: read back it is the same double (15 digits could
     * round a value just under a bound such as 2^62 to one over it) */
    if (a >= 1e15) return p + snprintf(p, 32, "%.17g", v);
    if (a == floor(a)) {
        if (v < 0) *p++ = '-';
        return put_u64(p, (uint64_t)a);
    }
    if (a >= 1e-4) {
        int e = (int)floor(log10(a));
        if (e >= 0 && pow10_tab[e] > a) e--; /* log10 rounding at powers of ten */
        int digits = 14 - e;
        uint64_t m = 0;
        if (digits >= 0 && digits <= 18) m = (uint64_t)llround(a * pow10_tab[digits]);
        if (digits >= 0 && digits <= 18 && m < 1000000000000000ULL && m >= 100000000000000ULL) {
            if (v < 0) *p++ = '-';
            uint64_t scale = (uint64_t)pow10_tab[digits], ip = m / scale, fp = m % scale;
            p = put_u64(p, ip);
            if (fp) {
                char fr[24];
                for (int i = digits - 1; i >= 0; i--) fr[i] = (char)('0' + fp % 10), fp /= 10;
                int n = digits;
                while (n > 0 && fr[n - 1] == '0') n--;
                *p++ = '.';
                memcpy(p, fr, (size_t)n);
                p += n;
            }
            return p;
        }
    }
    return p + snprintf(p, 32, "%.15g", v);
}

void json_number(sbuf *b, double v) {
    sbuf_reserve(b, 40);
    char *e = num_to(b->data + b->len, v);
    b->len = (size_t)(e - b->data);
    b->data[b->len] = 0;
}

void json_string(sbuf *b, const char *s) {
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(s);
    sbuf_reserve(b, n + 2);
    b->data[b->len++] = '"';
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        sbuf_putn(b, run, (size_t)(s - run));
        run = s + 1;
        char e[7] = {'\\', 0};
        switch (c) {
        case '"': e[1] = '"'; break;
        case '\\': e[1] = '\\'; break;
        case '\n': e[1] = 'n'; break;
        case '\t': e[1] = 't'; break;
        case '\r': e[1] = 'r'; break;
        case '\b': e[1] = 'b'; break;
        case '\f': e[1] = 'f'; break;
        default: e[1] = 'u', e[2] = '0', e[3] = '0', e[4] = hex[c >> 4], e[5] = hex[c & 15];
        }
        sbuf_puts(b, e);
    }
    sbuf_putn(b, run, (size_t)(s - run));
    sbuf_putc(b, '"');
}

/* one cell's value, written in place (a number takes at most 32 bytes);
 * strings through json_string */
/* a list (V) drains into out as it grows: a number per step */
static void write_cell(sbuf *b, const pc_col *c, const char *row, const sbuf_out *out) {
    pc_cell v = tab_cell(c, row);
    if (c->kind == 'V' && !v.null) {
        sbuf_putc(b, '[');
        for (int64_t i = 0; i < v.a.n; i++) {
            if (i) sbuf_putn(b, ", ", 2);
            json_number(b, v.a.v[i]);
            if ((i & 1023) == 1023) sbuf_drain(b, out, 1 << 20);
        }
        sbuf_putc(b, ']');
        return;
    }
    sbuf_reserve(b, 40);
    char *p = b->data + b->len;
    if (v.null) memcpy(p, "null", 4), p += 4;
    else switch (c->kind) {
        case 'S': json_string(b, v.s); return;
        case 'I': case 'J':
            /* beyond 2^53 JSON readers hold doubles: written as one */
            if (v.i > 9007199254740992LL || v.i < -9007199254740992LL) p = num_to(p, (double)v.i);
            else {
                if (v.i < 0) *p++ = '-';
                p = put_u64(p, v.i < 0 ? (uint64_t)0 - (uint64_t)v.i : (uint64_t)v.i);
            }
            break;
        case 'F': p = num_to(p, v.f); break;
        case 'B': {
            const char *w = v.b ? "true" : "false";
            memcpy(p, w, strlen(w));
            p += strlen(w);
            break;
        }
        }
    b->len = (size_t)(p - b->data);
}

/* one row: {"key": value, ...}; consecutive columns of one group as
 * "group": {"name": value, ...} */
static void write_row(sbuf *b, const pc_table_def *d, const char *row) {
    const char *g = NULL;
    int first = 1;
    sbuf_putc(b, '{');
    for (size_t q = 0; q < d->ncols; q++) {
        const pc_col *c = &d->cols[q];
        if (g && (!c->group || strcmp(g, c->group))) sbuf_putc(b, '}'), g = NULL, first = 0;
        if (c->group && !g) {
            if (!first) sbuf_putn(b, ", ", 2);
            json_string(b, c->group);
            sbuf_putn(b, ": {", 3);
            g = c->group, first = 1;
        }
        if (!first) sbuf_putn(b, ", ", 2);
        first = 0;
        sbuf_putn(b, c->keyq, c->keyq_len);
        write_cell(b, c, row, NULL);
    }
    if (g) sbuf_putc(b, '}');
    sbuf_putc(b, '}');
}

/* a record's row: its one row, or every field null when it has none */
static const char *record_row(const pc_table *t) {
    return t->n ? (const char *)t->rows : tab_null_row((int)(t->def - pc_table_defs));
}

void tab_write_record(const pc_table *t, sbuf *b, int indent, int first, const sbuf_out *out) {
    const pc_table_def *d = t->def;
    const char *row = record_row(t);
    for (size_t q = 0; q < d->ncols; q++) {
        if (!first || q) sbuf_putc(b, ',');
        sbuf_putc(b, '\n');
        for (int k = 0; k < indent; k++) sbuf_putc(b, '\t');
        sbuf_putn(b, d->cols[q].keyq, d->cols[q].keyq_len);
        write_cell(b, &d->cols[q], row, out);
    }
}

void tab_write_json(const pc_table *t, sbuf *b, int indent, const sbuf_out *out) {
    const pc_table_def *d = t->def;
    sbuf_putc(b, '[');
    for (size_t i = 0; i < t->n; i++) {
        sbuf_putc(b, '\n');
        for (int k = 0; k <= indent; k++) sbuf_putc(b, '\t');
        write_row(b, d, (const char *)t->rows + i * d->row_size);
        if (i + 1 < t->n) sbuf_putc(b, ',');
        sbuf_drain(b, out, 1 << 20);
    }
    if (t->n) {
        sbuf_putc(b, '\n');
        for (int k = 0; k < indent; k++) sbuf_putc(b, '\t');
    }
    sbuf_putc(b, ']');
}

static cJSON *cell_json(const pc_col *c, const char *row) {
    pc_cell v = tab_cell(c, row);
    if (c->kind == 'V' && !v.null) {
        cJSON *a = cJSON_CreateArray();
        for (int64_t i = 0; i < v.a.n; i++) cJSON_AddItemToArray(a, isfinite(v.a.v[i]) ? cJSON_CreateNumber(v.a.v[i]) : cJSON_CreateNull());
        return a;
    }
    return v.null ? cJSON_CreateNull()
         : c->kind == 'S' ? cJSON_CreateString(v.s)
         : c->kind == 'I' || c->kind == 'J' ? cJSON_CreateNumber((double)v.i)
         : c->kind == 'F' ? cJSON_CreateNumber(v.f) : cJSON_CreateBool(v.b);
}

cJSON *tab_to_json(const pc_table *t, size_t limit) {
    const pc_table_def *d = t->def;
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < t->n && i < limit; i++) {
        const char *row = (const char *)t->rows + i * d->row_size;
        cJSON *o = cJSON_CreateObject();
        for (size_t q = 0; q < d->ncols; q++) {
            const pc_col *c = &d->cols[q];
            cJSON *in = o;
            if (c->group && !(in = cJSON_GetObjectItemCaseSensitive(o, c->group))) in = cJSON_AddObjectToObject(o, c->group);
            cJSON_AddItemToObject(in, c->name, cell_json(c, row));
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

void tab_record_to_json(const pc_table *t, cJSON *o) {
    const pc_table_def *d = t->def;
    const char *row = record_row(t);
    for (size_t q = 0; q < d->ncols; q++)
        if (d->cols[q].kind != 'V') cJSON_AddItemToObject(o, d->cols[q].key, cell_json(&d->cols[q], row));
}

/* every record's all-null row, and every kind's empty table, made once */
static char *null_rows[TAB_COUNT];
static pc_table empty_tabs[TAB_COUNT];
static pthread_once_t null_once = PTHREAD_ONCE_INIT;
static void make_null_rows(void) {
    for (int i = 0; i < TAB_COUNT; i++) {
        const pc_table_def *d = &pc_table_defs[i];
        null_rows[i] = xcalloc(1, d->row_size);
        empty_tabs[i].def = d;
        null_row(d, null_rows[i]);
    }
}
const void *tab_null_row(int id) {
    pthread_once(&null_once, make_null_rows);
    return null_rows[id];
}

const pc_table *tab_empty(int id) {
    pthread_once(&null_once, make_null_rows);
    return &empty_tabs[id];
}
