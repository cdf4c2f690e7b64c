/* table.h - the summary's tables of one row per name (operators, operator
 * types, modules, kernels) as arrays of plain C structs, declared once in
 * tables.def: 1,000,000 operators are 1,000,000 structs, not 25,000,000 JSON
 * nodes, and every output reads the columns' keys, units, labels and
 * definitions from one place.
 *
 * A table belongs to the pc_summary that holds it (summary.h); tab_push
 * returns a row with every field null: PC_NULL_I (I), NAN (F), -1 (B),
 * NULL (S). Strings in rows live in the summary's arena (pc_summary_str).
 * Rows are kept in the order the analyzer gives (by time, largest first). */
#ifndef PC_TABLE_H
#define PC_TABLE_H
#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "../util/arena.h"
#include "../util/sbuf.h"

#define PC_NULL_I INT64_MIN
typedef const char *tk_S;
typedef int64_t tk_I;
typedef int64_t tk_J; /* a signed integer (a device id that may be -1) */
typedef double tk_F;
typedef int8_t tk_B;
typedef struct tk_V { const double *v; int64_t n; } tk_V; /* numbers (records only); n < 0: null */

#define TABLE(id, path) typedef struct tab_##id {
#define RECORD(id, path) typedef struct tab_##id {
#define COL(id, field, kind, unit, label, def) tk_##kind field;
#define COLG(id, field, group, name, kind, unit, label, def) tk_##kind field;
#define END(id) } tab_##id;
#include "tables.def"

enum {
#define TABLE(id, path) TAB_##id,
#define RECORD(id, path) TAB_##id,
#include "tables.def"
    TAB_COUNT
};

typedef struct pc_col {
    const char *key; char kind; size_t off; const char *unit, *label, *def;
    const char *keyq; size_t keyq_len; /* "name": as summary.json spells it */
    const char *group, *name; /* COLG: the member is name inside the row's object group
                                 (key "group.name"); COL: group NULL, name = key */
} pc_col;
/* record: 1 for a RECORD (one row, its columns members of the object at path) */
typedef struct pc_table_def { const char *id, *path; const pc_col *cols; size_t ncols, row_size; int record; } pc_table_def;
extern const pc_table_def pc_table_defs[TAB_COUNT];

typedef struct pc_table { const pc_table_def *def; void *rows; size_t n, cap; } pc_table;

/* One cell of a row, read through its column; what null is for each kind is
 * decided here and nowhere else. */
typedef struct pc_cell { int null; tk_S s; tk_I i; tk_F f; tk_B b; tk_V a; } pc_cell;
static inline pc_cell tab_cell(const pc_col *c, const void *row) {
    const char *p = (const char *)row + c->off;
    pc_cell v = {0, NULL, 0, 0, 0, {NULL, 0}};
    switch (c->kind) {
    case 'S': v.s = *(const tk_S *)p; v.null = v.s == NULL; break;
    case 'I': case 'J': v.i = *(const tk_I *)p; v.null = v.i == PC_NULL_I; break;
    case 'F': v.f = *(const tk_F *)p; v.null = !isfinite(v.f); break;
    case 'B': v.b = *(const tk_B *)p; v.null = v.b < 0; break;
    case 'V': v.a = *(const tk_V *)p; v.null = v.a.n < 0; break;
    }
    return v;
}
/* A figure of a row or record with its default: PC_OR(rec->median_ns, 0)
 * reads 0 where the figure is null (I, F); tk_true for a bool. */
static inline double tk_or_I(tk_I v, double d) { return v == PC_NULL_I ? d : (double)v; }
static inline double tk_or_F(tk_F v, double d) { return isfinite(v) ? v : d; }
#define PC_OR(v, d) _Generic((v), tk_I: tk_or_I, tk_F: tk_or_F)((v), (d))
static inline int tk_null_I(tk_I v) { return v == PC_NULL_I; }
static inline int tk_null_F(tk_F v) { return !isfinite(v); }
#define PC_IS_NULL(v) _Generic((v), tk_I: tk_null_I, tk_F: tk_null_F)(v)
static inline int tk_true(tk_B v) { return v > 0; }
static inline const char *PC_S(tk_S v, const char *d) { return v ? v : d; } /* a string figure, d where null */
/* the column of d with this key, or NULL */
const pc_col *tab_col(const pc_table_def *d, const char *key);

void *tab_push(pc_table *t);                   /* a new row, every field null */
#define TAB_ROWS(t, id) ((const tab_##id *)(t)->rows)
void tab_free(pc_table *t);
/* summary.json's form: a JSON array, one row object per line; the text
 * drains into out (when not NULL) as it grows */
void tab_write_json(const pc_table *t, sbuf *b, int indent, const sbuf_out *out);
/* rows [0, limit) as a cJSON array of objects (for a view: what a page shows) */
cJSON *tab_to_json(const pc_table *t, size_t limit);
/* a record's fields as members of o (for a view), but its lists of numbers
 * (a figure per step: 240,000 steps made 77 MiB of cJSON in the two views at
 * once, outside the memory ceiling; the report draws its step charts from
 * the rows, and summary.json writes the lists from the record) */
void tab_record_to_json(const pc_table *t, cJSON *o);
/* a record's fields, a member per line at indent, after the members before
 * them (comma written when !first); its lists drain into out (when not NULL)
 * as they grow (steps.durations_ns: 2.2 MB of text at 239,346 steps) */
void tab_write_record(const pc_table *t, sbuf *b, int indent, int first, const sbuf_out *out);
/* a record's row with every field null (a summary without that section) */
const void *tab_null_row(int id);
/* a table of kind id with no rows */
const pc_table *tab_empty(int id);
/* 1 when the column's numbers stay within +-2^62 (its unit ns, µs, bytes or
 * count: times, sizes and counts), 0 when any finite number is in range */
int tab_col_bounded(const pc_col *c);
/* the kind of a column's key ('S', 'U' for I and F, 'B'), for the validator; 0 if none */
char tab_kind(const pc_table_def *d, const char *key);
/* a number as summary.json writes it: 15 significant digits (17 from 1e15 on),
 * "null" when not finite */
void json_number(sbuf *b, double v);
void json_string(sbuf *b, const char *s);
#endif
