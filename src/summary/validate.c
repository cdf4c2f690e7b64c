/* validate.c - reading a summary.json from elsewhere: every key checked
 * against the registry (schema.def for the document's structure, tables.def
 * for the records' fields and the tables' columns), unknown and repeated keys
 * dropped and named, values of the wrong kind or out of range refused with
 * their key path; then the records and tables lifted into typed rows. */
#include "summary.h"
#include "summary_int.h"
#include "jread.h"
#include "../util/jsontok.h"
#include "../util/fsutil.h"
#include "../util/utf8.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- reading a summary.json: validated against schema.def ---- */

typedef struct sk_entry { const char *path; char kind; } sk_entry;
static const sk_entry schema[] = {
#define SK(p, k) {p, k},
#include "schema.def"
#undef SK
};
enum { SK_N = sizeof schema / sizeof *schema };
#define SK_MAX_NUM 4611686018427387904.0 /* 2^62: every figure fits int64 ns with room */
#define SK_MAX_STR (1u << 20)
#define SK_MAX_FILE (1ull << 30) /* bytes of a summary.json */
enum { SK_MAX_KEY = 128 };       /* bytes of a key that can be known (longer: unknown, dropped) */

static int sk_cmp(const void *a, const void *b) { return strcmp(a, ((const sk_entry *)b)->path); }
static char sk_kind(const char *path) {
    const sk_entry *e = bsearch(path, schema, SK_N, sizeof *schema, sk_cmp);
    if (e) return e->kind;
    /* a table's rows: tables.def */
    for (int i = 0; i < TAB_COUNT; i++) {
        const pc_table_def *d = &pc_table_defs[i];
        size_t n = strlen(d->path);
        if (strncmp(path, d->path, n) != 0) continue;
        if (d->record) {
            if (!path[n]) return 'O';
            char k = path[n] == '.' ? tab_kind(d, path + n + 1) : 0;
            if (k) return k;
            continue;
        }
        if (!path[n]) return 'A';
        if (!strcmp(path + n, "[]")) return 'O';
        if (!strncmp(path + n, "[].", 3)) return tab_kind(d, path + n + 3);
    }
    return 0;
}

typedef struct sk_walk {
    char path[256];   /* schema path of the current value: a.b[].c */
    size_t len;
    char where[320];  /* the same with indexes, for messages: a.b[3].c */
    size_t dropped;
    sbuf dropped_names; /* the first few, printable */
    pc_err *err;
    jr *in;           /* the text */
    pc_summary *ps;   /* the summary being read: its tables and records */
    cJSON *run_tail;  /* run's record placeholder when it sits at run's end (run has no field of it) */
} sk_walk;

/* a key from the input, for a message: printable ASCII, at most 40 bytes */
static void sk_print_key(sbuf *b, const char *k) {
    size_t i = 0;
    for (; k[i] && i < 40; i++) sbuf_putc(b, k[i] >= 32 && k[i] < 127 ? k[i] : '?');
    if (k[i]) sbuf_puts(b, "...");
}
static void sk_drop(sk_walk *w, const char *key, const char *why) {
    if (w->dropped++ < 5) {
        if (w->dropped_names.len) sbuf_puts(&w->dropped_names, ", ");
        sbuf_puts(&w->dropped_names, w->where);
        if (w->where[0] && key) sbuf_putc(&w->dropped_names, '.');
        if (key) sk_print_key(&w->dropped_names, key);
        sbuf_puts(&w->dropped_names, why);
    }
}

static const char *const kind_names[] = {['O'] = "an object", ['A'] = "an array", ['S'] = "a string", ['B'] = "true or false",
                                         ['U'] = "a number >= 0", ['N'] = "a number", ['X'] = "a string or a number"};
/* a key that holds nanoseconds or bytes: its name ends in _ns, bytes, or is a step's number */
static int sk_time_or_size(const char *path) {
    size_t n = strlen(path);
    return (n >= 3 && !strcmp(path + n - 3, "_ns")) || (n >= 5 && !strcmp(path + n - 5, "bytes")) ||
           (n >= 7 && !strcmp(path + n - 7, ".number")) || strstr(path, "durations_ns") != NULL;
}

/* the largest magnitude of a number at path: 2^62 for a time, size or count
 * (a key ending in _ns or bytes, a step's number, a column in ns, µs, bytes or
 * count, the numbers of the timelines' boxes and events), else the largest
 * finite number (FLOPs, rates and shares, which charts clamp) */
static double sk_bound(const char *path) {
    if (sk_time_or_size(path) || !strncmp(path, "timeline.rows[].boxes", 21) || !strncmp(path, "trace_timeline.events", 21))
        return SK_MAX_NUM;
    for (int i = 0; i < TAB_COUNT; i++) {
        const pc_table_def *d = &pc_table_defs[i];
        size_t n = strlen(d->path);
        if (strncmp(path, d->path, n) != 0) continue;
        const char *key = d->record ? (path[n] == '.' ? path + n + 1 : NULL) : (!strncmp(path + n, "[].", 3) ? path + n + 3 : NULL);
        if (!key) continue;
        char k[96];
        snprintf(k, sizeof k, "%s", key);
        size_t kl = strlen(k);
        if (kl > 2 && !strcmp(k + kl - 2, "[]")) k[kl - 2] = 0; /* a list's element */
        const pc_col *c = tab_col(d, k);
        if (c) return tab_col_bounded(c) ? SK_MAX_NUM : DBL_MAX;
    }
    return DBL_MAX;
}

/* push/pop one step of the path; 0 when the path is too long to be known */
static int sk_push(sk_walk *w, const char *step, int index, size_t *saved, size_t *saved_where) {
    *saved = w->len;
    *saved_where = strlen(w->where);
    size_t n = strlen(step);
    if (w->len + n + 2 >= sizeof w->path) return 0;
    if (index < 0) {
        if (w->len) w->path[w->len++] = '.';
        memcpy(w->path + w->len, step, n + 1);
        w->len += n;
        snprintf(w->where + *saved_where, sizeof w->where - *saved_where, "%s%s", *saved_where ? "." : "", step);
    } else {
        memcpy(w->path + w->len, "[]", 3);
        w->len += 2;
        snprintf(w->where + *saved_where, sizeof w->where - *saved_where, "[%d]", index);
    }
    return 1;
}
static void sk_pop(sk_walk *w, size_t saved, size_t saved_where) {
    w->len = saved;
    w->path[saved] = 0;
    w->where[saved_where] = 0;
}

/* an array whose elements hold records or tables (gpu.devices, suggestions.rows):
 * each element is a record of its own, read by position, so there are at
 * most SK_MAX_HOSTS of them (perfcard writes a few dozen) */
enum { SK_MAX_HOSTS = 4096 };
static int sk_hosts(const char *path) {
    size_t n = strlen(path);
    for (int i = 0; i < TAB_COUNT; i++)
        if (!strncmp(pc_table_defs[i].path, path, n) && !strncmp(pc_table_defs[i].path + n, "[]", 2)) return 1;
    return 0;
}

/* ---- the walk: the text read once, in order, against the registry ----
 * Structure goes into a cJSON document as before; a record's fields go
 * straight into its row (its placeholder where its first field was, or at
 * the object's end), a table's rows straight into its table (its
 * placeholder where the array was): a summary is never a tree of its rows. */

static int sk_syntax(sk_walk *w) {
    if (w->in->io) return PC_ERRF(w->err, PC_EIO, "read error (%s)", w->in->why);
    return PC_ERRF_AT(w->err, PC_EINPUT, w->in->off, "not valid JSON: %s", w->in->why);
}
/* the next value's first byte; -1 (and the error) when no value starts there */
static int sk_peek_value(sk_walk *w) {
    int c = jr_peek(w->in);
    if (c == '{' || c == '[' || c == '"' || c == 't' || c == 'f' || c == 'n' || c == '-' || (c >= '0' && c <= '9')) return c;
    if (c != -2) jr_fail(w->in, c < 0 ? "unexpected end of input" : "expected a value");
    sk_syntax(w);
    return -1;
}
static const char *found_type(int c) {
    return c == '{' ? "an object" : c == '[' ? "an array" : c == '"' ? "a string" : c == 't' || c == 'f' ? "a boolean" : "a number";
}
static int sk_kind_error(sk_walk *w, char kind, int c) {
    return PC_ERRF(w->err, PC_EINPUT, "%s: expected %s, found %s", w->where[0] ? w->where : "the document",
                   kind_names[(unsigned char)kind], found_type(c));
}
/* the value at the cursor read through (dropped); the rest of a container's
 * elements after it too, when rest */
static int sk_skip(sk_walk *w, int rest, char close) {
    int e = 0;
    do
        if (jr_skip(w->in, 0)) return sk_syntax(w);
    while (rest && (e = jr_next(w->in, close)) == 1);
    return rest && e < 0 ? sk_syntax(w) : 0;
}

/* a string value at the cursor: at most SK_MAX_STR bytes, repaired to UTF-8;
 * NULL with the error otherwise. *n: its length. A new string (free it). */
static char *sk_text(sk_walk *w, size_t *n) {
    jr_str s;
    if (jr_string(w->in, &s)) return sk_syntax(w), NULL;
    if (!s.s) { /* longer than the reader's window: far over the bound */
        PC_ERRF(w->err, PC_EINPUT, "%s: a string of over %zu bytes (at most %u)", w->where, s.n / 6, SK_MAX_STR);
        return NULL;
    }
    if (s.n > SK_MAX_STR) {
        PC_ERRF(w->err, PC_EINPUT, "%s: a string of %zu bytes (at most %u)", w->where, s.n, SK_MAX_STR);
        return NULL;
    }
    char *fixed = utf8_repair(s.s, s.n, n, NULL);
    if (fixed) return fixed;
    *n = s.n;
    char *t = xmalloc(s.n + 1);
    memcpy(t, s.s, s.n);
    t[s.n] = 0;
    return t;
}

/* a figure the reader takes at path (kind U, N or X): finite, within the
 * reader's bound for it (sk_bound: +-2^62 for times, sizes and counts), >= 0 for U */
static int sk_number_in(double bound, char kind, double x) { return isfinite(x) && fabs(x) <= bound && (kind != 'U' || x >= 0); }

/* a number of kind (U, N, X) at w's path within bound: 1, else 0 with the error */
static int sk_number(sk_walk *w, char kind, double x, double bound) {
    /* times and sizes stay within +-2^62 (int64 nanoseconds and bytes with room for sums);
     * other figures (FLOPs, rates, shares) need only be finite */
    if (sk_number_in(bound, kind, x)) return 1;
    PC_ERRF(w->err, PC_EINPUT, "%s: %g is out of range (%s up to %s)", w->where, x, kind == 'U' ? "0" : "minus as much",
            bound == SK_MAX_NUM ? "2^62" : "the largest finite number");
    return 0;
}

static cJSON *sk_object(sk_walk *w);
static cJSON *sk_array(sk_walk *w);

/* after a member or element: *end 1 when the container closed, 0 when
 * another follows; -1 with the error when neither */
static int sk_next(sk_walk *w, char close, int *end) {
    int e = jr_next(w->in, close);
    *end = e != 1;
    return e < 0 ? sk_syntax(w) : 0;
}

/* the value at the cursor, of kind (schema.def's), as a new cJSON item;
 * NULL with the error */
static cJSON *sk_value(sk_walk *w, char kind) {
    int c = sk_peek_value(w), v;
    double x;
    if (c < 0) return NULL;
    if (c == 'n') return jr_literal(w->in, &v) || v != -1 ? (sk_syntax(w), NULL) : cJSON_CreateNull();
    switch (kind) {
    case 'O': if (c == '{') return sk_object(w); break;
    case 'A': if (c == '[') return sk_array(w); break;
    case 'B': if (c == 't' || c == 'f') return jr_literal(w->in, &v) ? (sk_syntax(w), NULL) : cJSON_CreateBool(v); break;
    case 'X': case 'S':
        if (c == '"') {
            size_t n;
            char *t = sk_text(w, &n);
            cJSON *s = t ? cJSON_CreateString(t) : NULL;
            free(t);
            return s;
        }
        if (kind == 'S') break;
        __attribute__((fallthrough)); /* X also takes a number */
    case 'U': case 'N':
        if (c == '-' || (c >= '0' && c <= '9')) {
            if (jr_number(w->in, &x)) return sk_syntax(w), NULL;
            return sk_number(w, kind, x, sk_bound(w->path)) ? cJSON_CreateNumber(x) : NULL;
        }
        break;
    }
    sk_kind_error(w, kind, c);
    return NULL;
}

/* a list of numbers at the cursor (a record's V field, an event of
 * trace_timeline), its elements of the kind at w's path + "[]" (null: NAN):
 * *out a new vector (free it) of *n */
static int sk_list(sk_walk *w, double **out, size_t *n) {
    size_t s1, s2, cap = 0;
    double *v = NULL, x;
    *n = 0;
    if (!sk_push(w, "", 0, &s1, &s2)) return PC_ERRF(w->err, PC_EINPUT, "%s: too deep", w->where);
    char ek = sk_kind(w->path);
    double bound = sk_bound(w->path);
    sk_pop(w, s1, s2);
    int e = jr_open(w->in, ']'), rc = e < 0 ? sk_syntax(w) : 0, c, lit;
    while (!e && !rc) {
        sk_push(w, "", (int)*n, &s1, &s2);
        if ((c = sk_peek_value(w)) < 0) rc = -1;
        else if (c == 'n') rc = jr_literal(w->in, &lit) ? sk_syntax(w) : 0, x = NAN;
        else if ((ek != 'U' && ek != 'N') || !(c == '-' || (c >= '0' && c <= '9'))) rc = sk_kind_error(w, ek ? ek : 'U', c);
        else if (jr_number(w->in, &x)) rc = sk_syntax(w);
        else if (!sk_number(w, ek, x, bound)) rc = -1;
        sk_pop(w, s1, s2);
        if (!rc) *VEC_PUSH(v, *n, cap) = x;
        if (!rc) rc = sk_next(w, ']', &e);
    }
    *out = v;
    return rc;
}

/* a record's V field at the cursor into *out (NULL: checked only) */
static int sk_numbers(sk_walk *w, tk_V *out) {
    double *v;
    size_t n;
    int rc = sk_list(w, &v, &n);
    if (!rc && out) {
        double *a = arena_alloc(&w->ps->strs, (n ? n : 1) * sizeof *a);
        if (n) memcpy(a, v, n * sizeof *a);
        *out = (tk_V){a, (int64_t)n};
    }
    free(v);
    return rc;
}

/* trace_timeline.events (lists.c's layout) at the cursor: each event kept
 * as its text, as the writer writes a list of numbers ("[0, 100, 50, 0, 0,
 * 0, -1]"): one item an event, not eight (20,000 events were 10 MiB of cJSON) */
static cJSON *sk_events(sk_walk *w) {
    cJSON *out = cJSON_CreateArray();
    int e = jr_open(w->in, ']'), rc = e < 0 ? sk_syntax(w) : 0, c, lit;
    sbuf t = {0};
    for (int i = 0; !e && !rc; i++) {
        size_t s1, s2, n;
        double *v = NULL;
        sk_push(w, "", i, &s1, &s2);
        if ((c = sk_peek_value(w)) < 0) rc = -1;
        else if (c == 'n') rc = jr_literal(w->in, &lit) ? sk_syntax(w) : (cJSON_AddItemToArray(out, cJSON_CreateNull()), 0);
        else if (c != '[') rc = sk_kind_error(w, 'A', c);
        else if (!(rc = sk_list(w, &v, &n))) {
            t.len = 0;
            sbuf_putc(&t, '[');
            for (size_t k = 0; k < n; k++) {
                if (k) sbuf_putn(&t, ", ", 2);
                json_number(&t, v[k]);
            }
            sbuf_putc(&t, ']');
            cJSON_AddItemToArray(out, cJSON_CreateRaw(t.data));
        }
        free(v);
        sk_pop(w, s1, s2);
        if (!rc) rc = sk_next(w, ']', &e);
    }
    sbuf_free(&t);
    if (rc) cJSON_Delete(out), out = NULL;
    return out;
}

/* the value at the cursor into column c of row (NULL: checked only), as the
 * validator's kind (tab_kind) says and within bound; summary.json's null
 * leaves the field null. */
static int sk_cell(sk_walk *w, const pc_col *c, char kind, double bound, char *row) {
    int ch = sk_peek_value(w), v;
    double x;
    if (ch < 0) return -1;
    char *f = row ? row + c->off : NULL;
    if (ch == 'n') return jr_literal(w->in, &v) || v != -1 ? sk_syntax(w) : 0;
    if (kind == 'S' && ch == '"') {
        size_t n;
        char *t = sk_text(w, &n);
        if (!t) return -1;
        if (f) *(tk_S *)f = arena_strndup(&w->ps->strs, t, n);
        free(t);
        return 0;
    }
    if (kind == 'B' && (ch == 't' || ch == 'f')) {
        if (jr_literal(w->in, &v)) return sk_syntax(w);
        if (f) *(tk_B *)f = (tk_B)v;
        return 0;
    }
    if (kind == 'A' && ch == '[') return sk_numbers(w, f ? (tk_V *)f : NULL);
    if ((kind == 'U' || kind == 'N') && (ch == '-' || (ch >= '0' && ch <= '9'))) {
        if (jr_number(w->in, &x)) return sk_syntax(w);
        if (!sk_number(w, kind, x, bound)) return -1;
        /* counts beyond int64 are not counts: left null */
        if (f && c->kind == 'F') *(tk_F *)f = x;
        else if (f && (c->kind == 'I' ? x >= 0 : x > -9.2e18) && x < 9.2e18) *(tk_I *)f = (int64_t)x;
        return 0;
    }
    return sk_kind_error(w, kind, ch);
}

/* a member's key at the cursor, then its ':'; key: the first bytes (a
 * longer key is never known: *fits 0) */
static int sk_key(sk_walk *w, char key[SK_MAX_KEY], int *fits) {
    jr_str k;
    if (jr_peek(w->in) != '"') return jr_fail(w->in, "expected a string key"), sk_syntax(w);
    if (jr_string(w->in, &k)) return sk_syntax(w);
    size_t n = k.s ? k.n : 0;
    *fits = k.s && n < SK_MAX_KEY;
    if (n >= SK_MAX_KEY) n = SK_MAX_KEY - 1;
    memcpy(key, k.s ? k.s : "", n);
    key[n] = 0;
    if (jr_expect(w->in, ':', "expected ':'")) return sk_syntax(w);
    return 0;
}

/* a row's members seen so far: a flag per column, then one per group (at
 * ncols + its first column) */
static size_t group_slot(const pc_table_def *d, const char *group) {
    size_t q = 0;
    while (q < d->ncols && !(d->cols[q].group && !strcmp(d->cols[q].group, group))) q++;
    assert(q < d->ncols); /* tab_kind said it is a group */
    return d->ncols + q;
}

/* one row of table d (an object at the cursor) into row (NULL: checked
 * only); the members of group (a COLG group's object) when group */
static int sk_row(sk_walk *w, const pc_table_def *d, const double *bounds, char *seen, const char *group, char *row) {
    int e = jr_open(w->in, '}');
    if (e < 0) return sk_syntax(w);
    if (e) return 0;
    do {
        char key[SK_MAX_KEY], full[2 * SK_MAX_KEY];
        int fits;
        size_t s1, s2;
        if (sk_key(w, key, &fits)) return -1;
        snprintf(full, sizeof full, "%s%s%s", group ? group : "", group ? "." : "", key);
        char kind = fits && sk_push(w, key, -1, &s1, &s2) ? (sk_pop(w, s1, s2), tab_kind(d, full)) : 0;
        const pc_col *c = kind && !(kind == 'O' && !group) ? tab_col(d, full) : NULL;
        int rc;
        if (!kind || (kind == 'O' && group)) { sk_drop(w, key, " (unknown)"); rc = sk_skip(w, 0, 0); }
        else if (seen[c ? (size_t)(c - d->cols) : group_slot(d, full)]++) { sk_drop(w, key, " (repeated)"); rc = sk_skip(w, 0, 0); }
        else {
            sk_push(w, key, -1, &s1, &s2);
            if (c) rc = sk_cell(w, c, kind, bounds[c - d->cols], row);
            else { /* a group: an object (or null) of its columns */
                int ch = sk_peek_value(w), v;
                rc = ch < 0 ? -1 : ch == 'n' ? (jr_literal(w->in, &v) ? sk_syntax(w) : 0)
                   : ch == '{' ? sk_row(w, d, bounds, seen, full, row) : sk_kind_error(w, 'O', ch);
            }
            sk_pop(w, s1, s2);
        }
        if (rc) return rc;
    } while ((e = jr_next(w->in, '}')) == 1);
    return e < 0 ? sk_syntax(w) : 0;
}

/* every column's bound (sk_bound) for the rows of table d at w's path */
static double *row_bounds(sk_walk *w, const pc_table_def *d) {
    double *b = xmalloc(d->ncols * sizeof *b);
    char path[512];
    for (size_t q = 0; q < d->ncols; q++) {
        snprintf(path, sizeof path, "%s[].%s", w->path, d->cols[q].key);
        b[q] = sk_bound(path);
    }
    return b;
}

/* the rows of table t (an array at the cursor, of objects) pushed into t;
 * rows after a null one are checked but not kept (as before: the rows end
 * at the first element that is not an object) */
static int sk_rows(sk_walk *w, pc_table *t) {
    const pc_table_def *d = t->def;
    int e = jr_open(w->in, ']'), rc = 0, kept = 1, cap = sk_hosts(w->path) ? SK_MAX_HOSTS : INT_MAX, v;
    if (e) return e < 0 ? sk_syntax(w) : 0;
    double *bounds = row_bounds(w, d);
    char *seen = xmalloc(2 * d->ncols);
    for (int i = 0; !rc; i++) {
        size_t s1, s2;
        if (i == cap) {
            sk_drop(w, NULL, "[4096...] (beyond 4,096 elements)");
            rc = sk_skip(w, 1, ']');
            break;
        }
        sk_push(w, "", i, &s1, &s2);
        int c = sk_peek_value(w);
        memset(seen, 0, 2 * d->ncols);
        if (c < 0) rc = -1;
        else if (c == 'n') rc = jr_literal(w->in, &v) ? sk_syntax(w) : 0, kept = 0;
        else if (c != '{') rc = sk_kind_error(w, 'O', c);
        else rc = sk_row(w, d, bounds, seen, NULL, kept ? tab_push(t) : NULL);
        sk_pop(w, s1, s2);
        if (!rc) rc = sk_next(w, ']', &e);
        if (e) break;
    }
    free(bounds);
    free(seen);
    return rc;
}

/* the table or record of kind d at w's path, if any */
static const pc_table_def *def_at(const char *path, int record) {
    for (int i = 0; i < TAB_COUNT; i++)
        if (pc_table_defs[i].record == record && !strcmp(pc_table_defs[i].path, path)) return &pc_table_defs[i];
    return NULL;
}

static cJSON *sk_array(sk_walk *w) {
    cJSON *out = cJSON_CreateArray();
    size_t s1, s2;
    char kind = 0;
    if (sk_push(w, "", 0, &s1, &s2)) {
        kind = sk_kind(w->path);
        sk_pop(w, s1, s2);
    }
    int e = jr_open(w->in, ']'), cap = sk_hosts(w->path) ? SK_MAX_HOSTS : INT_MAX, rc = 0;
    if (e < 0) rc = sk_syntax(w);
    for (int i = 0; !e && !rc; i++) {
        if (!kind || i == cap) {
            sk_drop(w, NULL, !kind ? "[] (unknown)" : "[4096...] (beyond 4,096 elements)");
            rc = sk_skip(w, 1, ']');
            break;
        }
        sk_push(w, "", i, &s1, &s2);
        cJSON *c = sk_value(w, kind);
        sk_pop(w, s1, s2);
        if (!c) rc = -1;
        else cJSON_AddItemToArray(out, c);
        if (!rc) rc = sk_next(w, ']', &e);
    }
    if (rc) cJSON_Delete(out), out = NULL;
    return out;
}

/* the record being read in an object: its row, fields seen, placeholder */
typedef struct sk_rec { const pc_table_def *d; size_t tab; char *seen; cJSON *ph; } sk_rec;

/* one member (key, then the value at the cursor) of object out, at w's
 * path; rec: the object's record (d NULL: none) */
static int sk_member(sk_walk *w, cJSON *out, const char *key, int fits, sk_rec *rec) {
    size_t s1, s2;
    char kind = 0;
    if (fits && sk_push(w, key, -1, &s1, &s2)) {
        kind = sk_kind(w->path);
        sk_pop(w, s1, s2);
    }
    if (!kind) return sk_drop(w, key, " (unknown)"), sk_skip(w, 0, 0);
    const pc_col *c = rec->d ? tab_col(rec->d, key) : NULL;
    if (c ? rec->seen[c - rec->d->cols]++ : cJSON_GetObjectItemCaseSensitive(out, key) != NULL)
        return sk_drop(w, key, " (repeated)"), sk_skip(w, 0, 0);
    sk_push(w, key, -1, &s1, &s2);
    int rc = 0;
    const pc_table_def *td = kind == 'A' ? def_at(w->path, 0) : NULL;
    if (c) {
        if (!rec->ph) cJSON_AddItemToObject(out, RECORD_KEY, rec->ph = pcs_placeholder(rec->tab));
        rc = sk_cell(w, c, kind, sk_bound(w->path), w->ps->tabs[rec->tab]->rows);
    } else if (td && jr_peek(w->in) == '[') {
        size_t t = pcs_new_table(w->ps, (int)(td - pc_table_defs));
        cJSON_AddItemToObject(out, key, pcs_placeholder(t));
        rc = sk_rows(w, w->ps->tabs[t]);
    } else {
        cJSON *v = !strcmp(w->path, "trace_timeline.events") && jr_peek(w->in) == '[' ? sk_events(w) : sk_value(w, kind);
        if (v) cJSON_AddItemToObject(out, key, v);
        else rc = -1;
    }
    sk_pop(w, s1, s2);
    return rc;
}

static cJSON *sk_object(sk_walk *w) {
    cJSON *out = cJSON_CreateObject();
    sk_rec rec = {def_at(w->path, 1), 0, NULL, NULL};
    if (rec.d) {
        rec.tab = pcs_new_table(w->ps, (int)(rec.d - pc_table_defs));
        tab_push(w->ps->tabs[rec.tab]);
        rec.seen = xcalloc(rec.d->ncols, 1);
    }
    int e = jr_open(w->in, '}'), rc = e < 0 ? sk_syntax(w) : 0;
    while (!e && !rc) {
        char key[SK_MAX_KEY];
        int fits;
        if ((rc = sk_key(w, key, &fits)) || (rc = sk_member(w, out, key, fits, &rec))) break;
        rc = sk_next(w, '}', &e);
    }
    if (rec.d && !rec.ph) { /* no field: the record's place is the object's end */
        cJSON_AddItemToObject(out, RECORD_KEY, rec.ph = pcs_placeholder(rec.tab));
        if (!strcmp(w->path, "run")) w->run_tail = rec.ph;
    }
    free(rec.seen);
    if (rc) cJSON_Delete(out), out = NULL;
    return out;
}

/* The call-stack trees (rows depth-first): each row's parent an earlier row or
 * -1, its depth its parent's plus one (0 for a root), so no cycle and no depth
 * beyond the row count reaches the flame graph */
static int check_trees(pc_summary *ps, pc_err *err) {
    static const struct { int id; const char *where; } trees[] = {{TAB_stack_frame, "call_stacks.rows"},
                                                                  {TAB_module_frame, "call_stacks.module_rows"}};
    for (size_t t = 0; t < 2; t++) {
        const pc_table *tb = pc_summary_table_id(ps, trees[t].id);
        const tab_stack_frame *r = tb ? (const tab_stack_frame *)tb->rows : NULL; /* both trees' rows: the same columns */
        for (size_t i = 0; tb && i < tb->n; i++) {
            int64_t p = r[i].parent, dep = r[i].depth;
            if (p == PC_NULL_I) p = -1;
            if (p < -1 || p >= (int64_t)i)
                return PC_ERRF(err, PC_EINPUT, "%s[%zu].parent: %lld is not an earlier row (-1 for a root, or 0 to %lld)",
                               trees[t].where, i, (long long)p, (long long)i - 1);
            int64_t want = p < 0 ? 0 : (r[p].depth == PC_NULL_I ? 0 : r[p].depth) + 1;
            if (dep != PC_NULL_I && dep != want)
                return PC_ERRF(err, PC_EINPUT, "%s[%zu].depth: %lld, but its parent's depth plus one is %lld", trees[t].where, i,
                               (long long)dep, (long long)want);
        }
    }
    return 0;
}

/* ---- the reader: pass 1 checks the text is JSON and finds its schema, pass
 * 2 walks it (so errors come in the order they did when the text was parsed
 * whole first) ---- */

typedef struct sk_head { int object, has_schema, schema_str; char schema[72]; size_t schema_n; } sk_head;

/* pass 1: the whole text read through; the root's kind and its first
 * "schema" member (a string: its first bytes) */
static int sk_scan(jr *in, sk_head *h) {
    memset(h, 0, sizeof *h);
    if (jr_peek(in) != '{') return jr_skip(in, 0);
    h->object = 1;
    int e = jr_open(in, '}');
    if (e < 0) return -1;
    while (!e) {
        jr_str k, v;
        if (jr_peek(in) != '"') return jr_fail(in, "expected a string key");
        if (jr_string(in, &k)) return -1;
        int is_schema = !h->has_schema && k.s && J_EQ(((jstr){k.s, k.n}), "schema");
        if (jr_expect(in, ':', "expected ':'")) return -1;
        if (is_schema && jr_peek(in) == '"') {
            if (jr_string(in, &v)) return -1;
            h->schema_str = v.s != NULL;
            h->schema_n = v.s ? v.n : 0;
            memcpy(h->schema, v.s ? v.s : "", h->schema_n < sizeof h->schema - 1 ? h->schema_n : sizeof h->schema - 1);
        } else if (jr_skip(in, 1)) return -1;
        h->has_schema |= is_schema;
        if ((e = jr_next(in, '}')) < 0) return -1;
        e = !e;
    }
    return 0;
}

/* the schema the head names: 0 when it is this perfcard's */
static int sk_schema(const sk_head *h, pc_err *err) {
    if (!h->object) return PC_ERRF(err, PC_EINPUT, "not a perfcard summary (not a JSON object)");
    if (!h->schema_str || strncmp(h->schema, "perfcard.summary/", 17) != 0)
        return PC_ERRF(err, PC_EINPUT, "not a perfcard summary (no \"schema\": \"%s\")", PC_SUMMARY_SCHEMA);
    if (h->schema_n != strlen(PC_SUMMARY_SCHEMA) || strcmp(h->schema, PC_SUMMARY_SCHEMA) != 0) {
        sbuf b = {0};
        sk_print_key(&b, h->schema);
        PC_ERRF(err, PC_EUNSUP, "summary schema \"%s\" is not supported (this perfcard reads \"%s\")", b.data, PC_SUMMARY_SCHEMA);
        sbuf_free(&b);
        return PC_EUNSUP;
    }
    return 0;
}

/* the dropped keys named in note and in run.warnings (made when missing;
 * before run's record when that has no field and so sits at run's end) */
static void sk_note_dropped(sk_walk *w, pc_summary *ps, char *note, size_t note_size) {
    char msg[700];
    snprintf(msg, sizeof msg, "%zu unknown or repeated keys of the summary were dropped: %s%s", w->dropped,
             w->dropped_names.data, w->dropped > 5 ? ", ..." : "");
    if (note_size) snprintf(note, note_size, "%s", msg);
    cJSON *run = cJSON_GetObjectItemCaseSensitive(ps->doc, "run");
    if (!cJSON_IsObject(run)) {
        cJSON_DeleteItemFromObjectCaseSensitive(ps->doc, "run");
        run = cJSON_AddObjectToObject(ps->doc, "run");
        w->run_tail = NULL;
    }
    cJSON *ws = cJSON_GetObjectItemCaseSensitive(run, "warnings");
    if (!cJSON_IsArray(ws)) {
        cJSON_DeleteItemFromObjectCaseSensitive(run, "warnings");
        ws = cJSON_AddArrayToObject(run, "warnings");
        if (w->run_tail) cJSON_AddItemToObject(run, RECORD_KEY, cJSON_DetachItemViaPointer(run, w->run_tail));
    }
    cJSON_AddItemToArray(ws, cJSON_CreateString(msg));
    if (!w->run_tail && !pc_summary_record_in(ps, run, TAB_run)) { /* a new run: its record, every field null */
        size_t t = pcs_new_table(ps, TAB_run);
        tab_push(ps->tabs[t]);
        cJSON_AddItemToObject(run, RECORD_KEY, pcs_placeholder(t));
    }
}

static int sk_read(jr *in, pc_summary **outs, char *note, size_t note_size, pc_err *err) {
    *outs = NULL;
    if (note_size) note[0] = 0;
    sk_head h;
    jr_bom(in);
    if (sk_scan(in, &h)) {
        if (in->io) return PC_ERRF(err, PC_EIO, "read error (%s)", in->why);
        return PC_ERRF_AT(err, PC_EINPUT, in->off, "not valid JSON: %s", in->why);
    }
    int rc = sk_schema(&h, err);
    if (rc) return rc;
    if (jr_rewind(in) || jr_bom(in)) return PC_ERRF(err, PC_EIO, "read error (%s)", in->why);
    pc_summary *ps = xcalloc(1, sizeof *ps);
    sk_walk w = {.err = err, .in = in, .ps = ps};
    jr_peek(in);
    ps->doc = sk_object(&w);
    if (ps->doc && w.dropped) sk_note_dropped(&w, ps, note, note_size);
    sbuf_free(&w.dropped_names);
    rc = ps->doc ? check_trees(ps, err) : err->code ? err->code : PC_EINPUT;
    if (rc) {
        pc_summary_free(ps);
        return rc;
    }
    *outs = ps;
    return 0;
}

int pc_summary_parse(const char *text, size_t n, pc_summary **out, char *note, size_t note_size, pc_err *err) {
    jr in;
    jr_open_mem(&in, text, n);
    int rc = sk_read(&in, out, note, note_size, err);
    jr_close(&in);
    return rc;
}

int pc_summary_validate(const cJSON *in, pc_summary **outs, char *note, size_t note_size, pc_err *err) {
    char *text = in ? cJSON_PrintUnformatted(in) : NULL;
    int rc = pc_summary_parse(text ? text : "null", text ? strlen(text) : 4, outs, note, note_size, err);
    cJSON_free(text);
    return rc;
}

int pc_summary_read(const char *path, pc_summary **out, char *note, size_t note_size, pc_err *err) {
    *out = NULL;
    uint64_t size;
    int fd = fs_open_regular(path, &size, err);
    if (fd < 0) return fd;
    if (size > SK_MAX_FILE) {
        close(fd);
        return PC_ERRF(err, PC_EINPUT, "%s: larger than %llu bytes", path, (unsigned long long)SK_MAX_FILE);
    }
    jr in;
    jr_open_fd(&in, fd);
    int rc = sk_read(&in, out, note, note_size, err);
    jr_close(&in);
    close(fd);
    return rc;
}

/* ---- writing: what perfcard writes, perfcard reads ---- */

static int sk_number_ok(const char *path, char kind, double x) { return sk_number_in(sk_bound(path), kind, x); }

typedef struct sk_fix { size_t n; char *first; size_t first_size; } sk_fix;
static void sk_fixed(sk_fix *f, const char *path) {
    if (!f->n++ && f->first_size) snprintf(f->first, f->first_size, "%s", path);
}

static void sk_conform_doc(cJSON *v, char *path, size_t len, size_t cap, sk_fix *f) {
    cJSON *c, *next;
    for (c = v->child; c; c = next) {
        next = c->next;
        size_t n = len;
        if (cJSON_IsArray(v)) n += (size_t)snprintf(path + len, cap - len, "[]");
        else if (c->string && c->string[0] != RECORD_KEY[0])
            n += (size_t)snprintf(path + len, cap - len, "%s%s", len ? "." : "", c->string);
        if (n >= cap) continue; /* a path too long for the reader to know: it drops it */
        if (cJSON_IsNumber(c)) {
            char kind = sk_kind(path);
            if ((kind == 'U' || kind == 'N' || kind == 'X') && !sk_number_ok(path, kind, c->valuedouble)) {
                sk_fixed(f, path);
                cJSON_ReplaceItemViaPointer(v, c, cJSON_CreateNull());
            }
        } else if (cJSON_IsObject(c) || cJSON_IsArray(c)) sk_conform_doc(c, path, n, cap, f);
        path[len] = 0;
    }
}

size_t pc_summary_conform(pc_summary *s, char *first, size_t first_size) {
    sk_fix f = {0, first, first_size};
    if (first_size) first[0] = 0;
    char path[256] = "";
    sk_conform_doc(s->doc, path, 0, sizeof path, &f);
    for (size_t i = 0; i < s->ntabs; i++) {
        const pc_table *t = s->tabs[i];
        const pc_table_def *d = t->def;
        for (size_t k = 0; k < d->ncols; k++) {
            const pc_col *c = &d->cols[k];
            if (c->kind != 'I' && c->kind != 'J' && c->kind != 'F' && c->kind != 'V') continue;
            snprintf(path, sizeof path, "%s%s%s%s", d->path, d->record ? "." : "[].", c->key, c->kind == 'V' ? "[]" : "");
            char kind = c->kind == 'J' ? 'N' : 'U';
            double bound = sk_bound(path); /* the column's: looked up once, not per row */
            for (size_t r = 0; r < t->n; r++) {
                char *p = (char *)t->rows + r * d->row_size + c->off;
                if (c->kind == 'F') {
                    tk_F *x = (tk_F *)p;
                    if (isfinite(*x) && !sk_number_in(bound, kind, *x)) { sk_fixed(&f, path); *x = NAN; }
                } else if (c->kind == 'V') {
                    tk_V *a = (tk_V *)p;
                    for (int64_t j = 0; j < a->n; j++)
                        if (isfinite(a->v[j]) && !sk_number_in(bound, kind, a->v[j])) { sk_fixed(&f, path); ((double *)a->v)[j] = NAN; }
                } else {
                    tk_I *x = (tk_I *)p;
                    if (*x != PC_NULL_I && !sk_number_in(bound, kind, (double)*x)) { sk_fixed(&f, path); *x = PC_NULL_I; }
                }
            }
        }
    }
    return f.n;
}
