/* validate.c - reading a summary.json from elsewhere: every key checked
 * against the registry (schema.def for the document's structure, tables.def
 * for the records' fields and the tables' columns), unknown and repeated keys
 * dropped and named, values of the wrong kind or out of range refused with
 * their key path; then the records and tables lifted into typed rows. */
#include "summary.h"
#include "summary_int.h"
#include "../util/fsutil.h"
#include "../util/utf8.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

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
static const char *json_type(const cJSON *v) {
    return cJSON_IsObject(v) ? "an object" : cJSON_IsArray(v) ? "an array" : cJSON_IsString(v) ? "a string"
         : cJSON_IsBool(v) ? "a boolean" : cJSON_IsNumber(v) ? "a number" : "something else";
}

static cJSON *sk_value(sk_walk *w, const cJSON *v, char kind);

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

static cJSON *sk_object(sk_walk *w, const cJSON *o) {
    cJSON *out = cJSON_CreateObject();
    const cJSON *m;
    cJSON_ArrayForEach(m, o) {
        size_t s1, s2;
        char kind = 0;
        if (m->string && sk_push(w, m->string, -1, &s1, &s2)) {
            kind = sk_kind(w->path);
            sk_pop(w, s1, s2);
        }
        if (!kind) { sk_drop(w, m->string ? m->string : "", " (unknown)"); continue; }
        if (cJSON_GetObjectItemCaseSensitive(out, m->string)) { sk_drop(w, m->string, " (repeated)"); continue; }
        sk_push(w, m->string, -1, &s1, &s2);
        cJSON *c = sk_value(w, m, kind);
        sk_pop(w, s1, s2);
        if (!c) { cJSON_Delete(out); return NULL; }
        cJSON_AddItemToObject(out, m->string, c);
    }
    return out;
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

static cJSON *sk_array(sk_walk *w, const cJSON *a) {
    cJSON *out = cJSON_CreateArray();
    size_t s1, s2;
    char kind = 0;
    if (sk_push(w, "", 0, &s1, &s2)) {
        kind = sk_kind(w->path);
        sk_pop(w, s1, s2);
    }
    const cJSON *e;
    int i = 0, cap = sk_hosts(w->path) ? SK_MAX_HOSTS : INT_MAX;
    cJSON_ArrayForEach(e, a) {
        if (!kind) { sk_drop(w, NULL, "[] (unknown)"); break; }
        if (i == cap) { sk_drop(w, NULL, "[4096...] (beyond 4,096 elements)"); break; }
        sk_push(w, "", i++, &s1, &s2);
        cJSON *c = sk_value(w, e, kind);
        sk_pop(w, s1, s2);
        if (!c) { cJSON_Delete(out); return NULL; }
        cJSON_AddItemToArray(out, c);
    }
    return out;
}

static cJSON *sk_value(sk_walk *w, const cJSON *v, char kind) {
    if (cJSON_IsNull(v)) return cJSON_CreateNull();
    int ok = 0;
    switch (kind) {
    case 'O': if (cJSON_IsObject(v)) return sk_object(w, v); break;
    case 'A': if (cJSON_IsArray(v)) return sk_array(w, v); break;
    case 'B': if (cJSON_IsBool(v)) return cJSON_CreateBool(cJSON_IsTrue(v)); break;
    case 'X': case 'S':
        if (cJSON_IsString(v)) {
            size_t n = strlen(v->valuestring);
            if (n > SK_MAX_STR) {
                PC_ERRF(w->err, PC_EINPUT, "%s: a string of %zu bytes (at most %u)", w->where, n, SK_MAX_STR);
                return NULL;
            }
            char *fixed = utf8_repair(v->valuestring, n, &n, NULL);
            cJSON *c = cJSON_CreateString(fixed ? fixed : v->valuestring);
            free(fixed);
            return c;
        }
        if (kind == 'S') break;
        __attribute__((fallthrough)); /* X also takes a number */
    case 'U': case 'N':
        if (cJSON_IsNumber(v)) {
            /* times and sizes stay within +-2^62 (int64 nanoseconds and bytes with room for sums);
             * other figures (FLOPs, rates, shares) need only be finite */
            double x = v->valuedouble, bound = sk_bound(w->path);
            ok = isfinite(x) && fabs(x) <= bound && (kind != 'U' || x >= 0);
            if (!ok) {
                PC_ERRF(w->err, PC_EINPUT, "%s: %g is out of range (%s up to %s)", w->where, x, kind == 'U' ? "0" : "minus as much",
                        bound == SK_MAX_NUM ? "2^62" : "the largest finite number");
                return NULL;
            }
            return cJSON_CreateNumber(x);
        }
        break;
    }
    PC_ERRF(w->err, PC_EINPUT, "%s: expected %s, found %s", w->where[0] ? w->where : "the document",
            kind_names[(unsigned char)kind], json_type(v));
    return NULL;
}

/* the rows of table kind id at path under o into tables of s */
static void lift(pc_summary *s, cJSON *o, const char *path, int id) {
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    char key[64];
    if (n >= sizeof key) return;
    memcpy(key, path, n);
    key[n] = 0;
    int each = n > 2 && !strcmp(key + n - 2, "[]");
    if (each) key[n - 2] = 0;
    cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!m) return;
    if (!dot) {
        if (!cJSON_IsArray(m)) return; /* null: the section had no table */
        size_t i = pcs_new_table(s, id);
        tab_from_json(s->tabs[i], m, &s->strs);
        cJSON_ReplaceItemInObjectCaseSensitive(o, key, pcs_placeholder(i));
        return;
    }
    cJSON *e;
    if (each && cJSON_IsArray(m)) cJSON_ArrayForEach(e, m) {
            if (cJSON_IsObject(e)) lift(s, e, dot + 1, id);
        }
    else if (!each && cJSON_IsObject(m)) lift(s, m, dot + 1, id);
}

/* the fields of record id from the object at its path (validated: each of
 * its column's kind) into a record of s, in place of the first of them */
static void lift_record_in(pc_summary *s, int id, cJSON *o) {
    const pc_table_def *d = &pc_table_defs[id];
    cJSON *m, *next, *at = NULL;
    if (!cJSON_IsObject(o)) return;
    size_t i = pcs_new_table(s, id);
    tab_record_from_json(s->tabs[i], o, &s->strs);
    for (m = o->child; m; m = next) {
        next = m->next;
        if (!m->string || !tab_col(d, m->string)) continue;
        if (!at) at = m;
        else cJSON_Delete(cJSON_DetachItemViaPointer(o, m));
    }
    cJSON *ph = pcs_placeholder(i);
    if (!at) {
        cJSON_AddItemToObject(o, RECORD_KEY, ph);
        return;
    }
    ph->string = xstrdup(RECORD_KEY);
    cJSON_ReplaceItemViaPointer(o, at, ph);
}
static void lift_record(pc_summary *s, int id) {
    int exists = 1;
    for (size_t i = 0; exists; i++) lift_record_in(s, id, pcs_record_host(s->doc, &pc_table_defs[id], i, &exists));
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

int pc_summary_validate(const cJSON *in, pc_summary **outs, char *note, size_t note_size, pc_err *err) {
    *outs = NULL;
    if (note_size) note[0] = 0;
    if (!cJSON_IsObject(in)) return PC_ERRF(err, PC_EINPUT, "not a perfcard summary (not a JSON object)");
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(in, "schema");
    if (!cJSON_IsString(sc) || strncmp(sc->valuestring, "perfcard.summary/", 17) != 0)
        return PC_ERRF(err, PC_EINPUT, "not a perfcard summary (no \"schema\": \"%s\")", PC_SUMMARY_SCHEMA);
    if (strcmp(sc->valuestring, PC_SUMMARY_SCHEMA) != 0) {
        sbuf b = {0};
        sk_print_key(&b, sc->valuestring);
        PC_ERRF(err, PC_EUNSUP, "summary schema \"%s\" is not supported (this perfcard reads \"%s\")", b.data, PC_SUMMARY_SCHEMA);
        sbuf_free(&b);
        return PC_EUNSUP;
    }
    sk_walk w = {.err = err};
    cJSON *s = sk_object(&w, in);
    if (!s) {
        sbuf_free(&w.dropped_names);
        return err->code ? err->code : PC_EINPUT;
    }
    if (w.dropped) {
        char msg[700];
        snprintf(msg, sizeof msg, "%zu unknown or repeated keys of the summary were dropped: %s%s", w.dropped,
                 w.dropped_names.data, w.dropped > 5 ? ", ..." : "");
        if (note_size) snprintf(note, note_size, "%s", msg);
        cJSON *run = cJSON_GetObjectItemCaseSensitive(s, "run");
        if (!cJSON_IsObject(run)) {
            cJSON_DeleteItemFromObjectCaseSensitive(s, "run");
            run = cJSON_AddObjectToObject(s, "run");
        }
        cJSON *ws = cJSON_GetObjectItemCaseSensitive(run, "warnings");
        if (!cJSON_IsArray(ws)) {
            cJSON_DeleteItemFromObjectCaseSensitive(run, "warnings");
            ws = cJSON_AddArrayToObject(run, "warnings");
        }
        cJSON_AddItemToArray(ws, cJSON_CreateString(msg));
    }
    sbuf_free(&w.dropped_names);
    pc_summary *ps = xcalloc(1, sizeof *ps);
    ps->doc = s;
    for (int i = 0; i < TAB_COUNT; i++)
        if (pc_table_defs[i].record) lift_record(ps, i);
        else lift(ps, s, pc_table_defs[i].path, i);
    int rc = check_trees(ps, err);
    if (rc) {
        pc_summary_free(ps);
        return rc;
    }
    *outs = ps;
    return 0;
}

int pc_summary_read(const char *path, pc_summary **out, char *note, size_t note_size, pc_err *err) {
    *out = NULL;
    size_t n;
    char *txt;
    int rc = fs_read_all(path, &txt, &n, (size_t)1 << 30, err);
    if (rc) return rc;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(txt, n, &end, 0);
    if (!j) {
        uint64_t off = end && end >= txt && end <= txt + n ? (uint64_t)(end - txt) : 0;
        free(txt);
        return PC_ERRF_AT(err, PC_EINPUT, off, "not valid JSON");
    }
    free(txt);
    rc = pc_summary_validate(j, out, note, note_size, err);
    cJSON_Delete(j);
    return rc;
}

/* ---- writing: what perfcard writes, perfcard reads ---- */

/* a figure the reader takes at path (kind U, N or X): finite, within the
 * reader's bound for it (sk_bound: +-2^62 for times, sizes and counts), >= 0 for U */
static int sk_number_in(double bound, char kind, double x) { return isfinite(x) && fabs(x) <= bound && (kind != 'U' || x >= 0); }
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
