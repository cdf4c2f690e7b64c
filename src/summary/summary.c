#include "summary.h"
#include "../util/fsutil.h"
#include "../util/utf8.h"
#include "../util/sbuf.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

cJSON *pc_summary_new(void) {
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "schema", PC_SUMMARY_SCHEMA);
    return s;
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

void sj_num(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, round15(v));
    else cJSON_AddNullToObject(o, k);
}
/* every string reaches the summary as valid UTF-8 (a path given on the command
 * line, a device name from a database: not all come through string interning) */
void sj_str(cJSON *o, const char *k, const char *s) {
    if (!s) s = "";
    size_t n;
    char *fixed = utf8_repair(s, strlen(s), &n, NULL);
    cJSON_AddStringToObject(o, k, fixed ? fixed : s);
    free(fixed);
}
void sj_bool(cJSON *o, const char *k, int v) { cJSON_AddBoolToObject(o, k, v); }

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

int pc_summary_write(const cJSON *s, const char *path, pc_err *err) {
    char *txt = cJSON_Print(s);
    if (!txt) return PC_ERRF(err, PC_EIO, "%s: cannot serialize the summary", path);
    int rc = fs_write_atomic(path, txt, strlen(txt), err);
    free(txt);
    return rc;
}

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
    return e ? e->kind : 0;
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

static cJSON *sk_array(sk_walk *w, const cJSON *a) {
    cJSON *out = cJSON_CreateArray();
    size_t s1, s2;
    char kind = 0;
    if (sk_push(w, "", 0, &s1, &s2)) {
        kind = sk_kind(w->path);
        sk_pop(w, s1, s2);
    }
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, a) {
        if (!kind) { sk_drop(w, NULL, "[] (unknown)"); break; }
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
            double x = v->valuedouble, bound = sk_time_or_size(w->path) ? SK_MAX_NUM : DBL_MAX;
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

int pc_summary_validate(const cJSON *in, cJSON **out, char *note, size_t note_size, pc_err *err) {
    *out = NULL;
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
    *out = s;
    return 0;
}

int pc_summary_read(const char *path, cJSON **out, char *note, size_t note_size, pc_err *err) {
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
        return PC_ERRF_AT(err, PC_EINPUT, off, "not valid JSON at byte %llu", (unsigned long long)off);
    }
    free(txt);
    rc = pc_summary_validate(j, out, note, note_size, err);
    cJSON_Delete(j);
    return rc;
}
