#include "summary.h"
#include "summary_int.h"
#include "../util/fsutil.h"
#include "../util/utf8.h"
#include "../util/sbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

pc_summary *pc_summary_new(void) {
    pc_summary *s = xcalloc(1, sizeof *s);
    s->doc = cJSON_CreateObject();
    cJSON_AddStringToObject(s->doc, "schema", PC_SUMMARY_SCHEMA);
    return s;
}

void pc_summary_free(pc_summary *s) {
    if (!s) return;
    cJSON_Delete(s->doc);
    for (size_t i = 0; i < s->ntabs; i++) {
        if (s->tabs[i]) tab_free(s->tabs[i]);
        free(s->tabs[i]);
    }
    free(s->tabs);
    arena_free(&s->strs);
    free(s);
}

/* A table's place in the document: a raw member "\1tab N" (never printed by
 * cJSON: the summary's own writer puts the rows there). */
static void placeholder_text(char b[32], size_t i) { snprintf(b, 32, "\1tab %zu", i); }
cJSON *pcs_placeholder(size_t i) {
    char b[32];
    placeholder_text(b, i);
    return cJSON_CreateRaw(b);
}
static long placeholder_index(const pc_summary *s, const cJSON *v) {
    if (!v || !cJSON_IsRaw(v) || !v->valuestring || strncmp(v->valuestring, "\1tab ", 5) != 0) return -1;
    char *end;
    long i = strtol(v->valuestring + 5, &end, 10);
    return *end || i < 0 || (size_t)i >= s->ntabs ? -1 : i;
}
size_t pcs_new_table(pc_summary *s, int id) {
    pc_table *t = xcalloc(1, sizeof *t);
    t->def = &pc_table_defs[id];
    *VEC_PUSH(s->tabs, s->ntabs, s->captabs) = t;
    return s->ntabs - 1;
}

pc_table *pc_summary_add_table(pc_summary *s, cJSON *parent, const char *key, int id) {
    size_t i = pcs_new_table(s, id);
    cJSON_AddItemToObject(parent, key, pcs_placeholder(i));
    return s->tabs[i];
}

/* A record's place: a placeholder member with the key RECORD_KEY in the
 * object at its path (the writer and the view put its fields there). */
const cJSON *pc_summary_warnings(const pc_summary *s) {
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s->doc, "run"), "warnings");
    return cJSON_IsArray(w) ? w : NULL;
}

void *pc_summary_add_record(pc_summary *s, cJSON *parent, int id) {
    size_t i = pcs_new_table(s, id);
    cJSON_AddItemToObject(parent, RECORD_KEY, pcs_placeholder(i));
    return tab_push(s->tabs[i]);
}

/* The object that holds a record of kind d: at its path, or under an array
 * ("gpu.devices[].idle") in the i-th element; NULL when there is none (for a
 * table, the table's member itself).
 * *exists: there is an i-th element (or, without [], i is 0). */
cJSON *pcs_record_host(const cJSON *doc, const pc_table_def *d, size_t i, int *exists) {
    const char *br = strstr(d->path, "[]");
    *exists = !br && i == 0;
    if (!br) return i ? NULL : (cJSON *)sj_get(doc, d->path);
    char arr[128];
    size_t n = (size_t)(br - d->path);
    if (n >= sizeof arr) return NULL;
    memcpy(arr, d->path, n);
    arr[n] = 0;
    const cJSON *a = sj_get(doc, arr), *e = NULL;
    if (!cJSON_IsArray(a)) return NULL;
    size_t k = 0;
    cJSON_ArrayForEach(e, a) if (k++ == i) break;
    if (!e) return NULL;
    *exists = 1;
    return br[2] == '.' ? (cJSON *)sj_get(e, br + 3) : (cJSON *)e;
}
static void *record_in(const pc_summary *s, const cJSON *host, int id) {
    const pc_table *t = pc_summary_table_of(s, cJSON_GetObjectItemCaseSensitive(host, RECORD_KEY));
    return t && t->n && t->def == &pc_table_defs[id] ? t->rows : NULL;
}

void *pc_summary_record_in(pc_summary *s, const cJSON *host, int id) { return record_in(s, host, id); }

void *pc_summary_record_w(pc_summary *s, int id) {
    int exists;
    return record_in(s, pcs_record_host(s->doc, &pc_table_defs[id], 0, &exists), id);
}

const void *pc_summary_record_at(const pc_summary *s, int id, size_t i) {
    int exists;
    const cJSON *host = pcs_record_host(s->doc, &pc_table_defs[id], i, &exists);
    if (!exists) return NULL;
    const void *r = record_in(s, host, id);
    return r ? r : tab_null_row(id);
}

const void *pc_summary_record(const pc_summary *s, int id) {
    const void *r = pc_summary_record_w((pc_summary *)s, id);
    return r ? r : tab_null_row(id);
}

int pc_summary_field(const pc_summary *s, int id, size_t i, const char *key, double *out) {
    const pc_col *c = tab_col(&pc_table_defs[id], key);
    if (!c || (c->kind != 'I' && c->kind != 'J' && c->kind != 'F')) { /* a name not in the registry is a bug, never a silent n/a */
        fprintf(stderr, "perfcard: internal error: %s has no number %s (tables.def)\n", pc_table_defs[id].path, key);
        abort();
    }
    const void *row = pc_summary_record_at(s, id, i);
    if (!row) return 0;
    pc_cell x = tab_cell(c, row);
    if (x.null) return 0;
    *out = c->kind == 'F' ? x.f : (double)x.i;
    return 1;
}

const pc_table *pc_summary_table_of(const pc_summary *s, const cJSON *v) {
    long i = placeholder_index(s, v);
    return i < 0 ? NULL : s->tabs[i];
}

static const pc_table *table_at_path(const pc_summary *s, const char *path) {
    return pc_summary_table_of(s, sj_get(s->doc, path));
}

const pc_table *pc_summary_table_at(const pc_summary *s, int id, size_t i) {
    const pc_table_def *d = &pc_table_defs[id];
    int exists;
    const cJSON *host = pcs_record_host(s->doc, d, i, &exists);
    if (!exists) return NULL;
    const pc_table *t = host ? pc_summary_table_of(s, host) : NULL;
    return t && t->def == d ? t : tab_empty(id);
}

const pc_table *pc_summary_table_id(const pc_summary *s, int id) {
    const pc_table *t = table_at_path(s, pc_table_defs[id].path);
    return t && t->def == &pc_table_defs[id] ? t : NULL;
}

const char *pc_summary_str(pc_summary *s, const char *str) {
    return str ? arena_strndup(&s->strs, str, strlen(str)) : NULL;
}

/* renumbers the placeholders under v from from's tables to to's (moving them) */
static void move_tables(pc_summary *to, pc_summary *from, cJSON *v) {
    long i = placeholder_index(from, v);
    if (i >= 0) {
        *VEC_PUSH(to->tabs, to->ntabs, to->captabs) = from->tabs[i];
        from->tabs[i] = NULL;
        char b[32];
        placeholder_text(b, to->ntabs - 1);
        free(v->valuestring);
        v->valuestring = xstrdup(b);
        return;
    }
    cJSON *c;
    cJSON_ArrayForEach(c, v) move_tables(to, from, c);
}

void pc_summary_move(pc_summary *to, pc_summary *from, const char *key) {
    cJSON *x = cJSON_DetachItemFromObjectCaseSensitive(from->doc, key);
    if (!x) return;
    move_tables(to, from, x);
    arena_take(&to->strs, &from->strs); /* the moved rows' strings */
    cJSON_AddItemToObject(to->doc, key, x);
}

cJSON *sj_obj(cJSON *p, const char *k) { return cJSON_AddObjectToObject(p, k); }
cJSON *sj_arr(cJSON *p, const char *k) { return cJSON_AddArrayToObject(p, k); }
void sj_int(cJSON *o, const char *k, int64_t v) { cJSON_AddNumberToObject(o, k, (double)v); }
/* Figures keep 15 significant digits: the value in memory is then exactly
 * what summary.json holds (cJSON prints 15 digits when they round-trip
 * within its tolerance), so a diff of summaries equals a diff of traces. */
static double round15(double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", v);
    return strtod(buf, NULL);
}

/* an integer of at most 15 digits is its own 15-digit form: no formatting (a
 * table of a million rows calls this millions of times) */
double pc_figure(double v) {
    if (fabs(v) < 1e15 && v == (double)(int64_t)v) return v;
    return isfinite(v) ? round15(v) : NAN;
}

double *pc_summary_numbers(pc_summary *s, size_t n) { return arena_alloc(&s->strs, (n ? n : 1) * sizeof(double)); }

const char *pc_summary_utf8(pc_summary *s, const char *str) {
    if (!str) return NULL;
    size_t n;
    char *fixed = utf8_repair(str, strlen(str), &n, NULL);
    const char *r = pc_summary_str(s, fixed ? fixed : str);
    free(fixed);
    return r;
}

void sj_num(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, round15(v));
    else cJSON_AddNullToObject(o, k);
}
/* every string reaches the summary as valid UTF-8 (a path given on the command
 * line, a device name from a database: not all come through string interning) */
cJSON *sj_str_item(const char *s) {
    if (!s) s = "";
    size_t n;
    char *fixed = utf8_repair(s, strlen(s), &n, NULL);
    cJSON *x = cJSON_CreateString(fixed ? fixed : s);
    free(fixed);
    return x;
}
void sj_str(cJSON *o, const char *k, const char *s) { cJSON_AddItemToObject(o, k, sj_str_item(s)); }
void sj_bool(cJSON *o, const char *k, int v) { cJSON_AddBoolToObject(o, k, v); }

void sj_fields(cJSON *o, const void *base, const sj_field *f, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)base + f[i].off, *str;
        switch (f[i].kind) {
        case 'N': sj_num(o, f[i].key, *(const double *)p); break;
        case 'I': sj_int(o, f[i].key, *(const int *)p); break;
        case 'B': sj_bool(o, f[i].key, *(const int *)p); break;
        case 'C': sj_str(o, f[i].key, p); break;
        default:
            str = *(const char *const *)p;
            if (!str && f[i].kind == 'Z') cJSON_AddNullToObject(o, f[i].key);
            else sj_str(o, f[i].key, str);
        }
    }
}

const cJSON *sj_get(const cJSON *o, const char *path) {
    char key[128];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key) return NULL;
        memcpy(key, path, n);
        key[n] = 0;
        if (cJSON_IsArray(o)) {
            char *end;
            long i = strtol(key, &end, 10);
            o = *end ? NULL : cJSON_GetArrayItem(o, (int)i);
        } else o = cJSON_GetObjectItemCaseSensitive(o, key);
        path += n + (dot ? 1 : 0);
        if (!dot) break;
    }
    return o;
}
double sj_getnum(const cJSON *o, const char *path, double d) {
    const cJSON *v = sj_get(o, path);
    return cJSON_IsNumber(v) ? v->valuedouble : d;
}
const char *sj_getstr(const cJSON *o, const char *path, const char *d) {
    const cJSON *v = sj_get(o, path);
    return cJSON_IsString(v) ? v->valuestring : d;
}

/* summary.json's text: objects a member per line, arrays of numbers and
 * strings on one line, tables a row per line (table.c) */
static int scalar_array(const cJSON *a) {
    const cJSON *e;
    cJSON_ArrayForEach(e, a) if (cJSON_IsObject(e) || cJSON_IsArray(e) || cJSON_IsRaw(e)) return 0;
    return 1;
}
static void tabs(sbuf *b, int n) {
    for (int i = 0; i < n; i++) sbuf_putc(b, '\t');
}
static void write_value(const pc_summary *s, const cJSON *v, sbuf *b, int indent, const sbuf_out *out) {
    const pc_table *t;
    const cJSON *c;
    if ((t = pc_summary_table_of(s, v))) tab_write_json(t, b, indent, out);
    else if (cJSON_IsObject(v)) {
        int first = 1;
        sbuf_putc(b, '{');
        cJSON_ArrayForEach(c, v) {
            if ((t = pc_summary_table_of(s, c)) && t->def->record) {
                tab_write_record(t, b, indent + 1, first, out);
                first = 0;
                continue;
            }
            if (!first) sbuf_putc(b, ',');
            first = 0;
            sbuf_putc(b, '\n');
            tabs(b, indent + 1);
            json_string(b, c->string ? c->string : "");
            sbuf_putn(b, ": ", 2);
            write_value(s, c, b, indent + 1, out);
        }
        if (!first) {
            sbuf_putc(b, '\n');
            tabs(b, indent);
        }
        sbuf_putc(b, '}');
    } else if (cJSON_IsArray(v)) {
        int flat = scalar_array(v);
        sbuf_putc(b, '[');
        cJSON_ArrayForEach(c, v) {
            if (!flat) {
                sbuf_putc(b, '\n');
                tabs(b, indent + 1);
            }
            write_value(s, c, b, indent + 1, out);
            if (c->next) sbuf_puts(b, flat ? ", " : ",");
            sbuf_drain(b, out, 1 << 20);
        }
        if (!flat && v->child) {
            sbuf_putc(b, '\n');
            tabs(b, indent);
        }
        sbuf_putc(b, ']');
    } else if (cJSON_IsString(v)) json_string(b, v->valuestring);
    else if (cJSON_IsNumber(v)) json_number(b, v->valuedouble);
    else if (cJSON_IsBool(v)) sbuf_puts(b, cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsRaw(v) && v->valuestring && v->valuestring[0] == '[') sbuf_puts(b, v->valuestring); /* a list read as its text (lists.c) */
    else sbuf_puts(b, "null"); /* null, or a raw member that is no table of this summary */
}

/* the whole text into b, drained into out (when not NULL) as it grows */
static void write_text(const pc_summary *s, sbuf *b, const sbuf_out *out) {
    write_value(s, s->doc, b, 0, out);
    sbuf_putc(b, '\n');
}

void pc_summary_text(const pc_summary *s, sbuf *b) { write_text(s, b, NULL); }

/* streamed: a 1 GB summary.json never sits in memory whole; written behind
 * the formatting, on a second thread */
int pc_summary_write(const pc_summary *s, const char *path, pc_err *err) {
    fs_atomic f;
    int rc = fs_atomic_open(&f, path, err);
    if (rc) return rc;
    fs_behind w;
    fs_behind_start(&w, &f);
    sbuf b = {0};
    sbuf_out out = {fs_behind_write, &w};
    write_text(s, &b, &out);
    fs_behind_write(&w, b.data, b.len);
    fs_behind_finish(&w);
    sbuf_free(&b);
    return fs_atomic_commit(&f, err);
}

void pc_summary_headline(pc_summary *s) {
    tab_overview *ov = pc_summary_record_w(s, TAB_overview);
    if (!ov) return;
    const tab_suggestion *sg = PC_REC_AT(s, suggestion, 0);
    const char *title = sg ? PC_S(sg->title, "") : "", *ev = sg ? PC_S(sg->evidence, "") : "";
    ov->top_suggestion = sg ? title : NULL;
    char h[512];
    double pct = sg ? PC_OR(sg->at_stake_pct, -1) : -1;
    const char *per = tk_true(ov->has_steps) ? "of each step" : "of the trace";
    /* one figure: the share at stake; the evidence, with its own figures, is the suggestion's (#35:
     * a headline carried three percentages for one idea) */
    if (sg && pct > 0 && pct < 1) /* the list's first finding, but nothing worth naming as the limit */
        snprintf(h, sizeof h, "No finding costs 1%% %s or more; the largest: %s, about %.2f%% at stake.", per, title, pct);
    else if (sg && pct > 0)
        snprintf(h, sizeof h, "%s: about %.1f%% %s at stake.", title, pct, per);
    else if (sg)
        snprintf(h, sizeof h, "%s: %s.", title, ev);
    else
        snprintf(h, sizeof h, "No rule found anything over its threshold.");
    ov->headline = pc_summary_utf8(s, h);
}
