#include "tmpl.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_STACK = 32 };

typedef struct rctx {
    const char *base;
    const cJSON *stack[MAX_STACK];
    int depth;
    int level;   /* nesting of sections being rendered (any kind) */
    esc_mode mode;
    sbuf *out;
    pc_err *err;
} rctx;

void fmt_dur(sbuf *b, double ns) {
    double a = fabs(ns);
    if (a < 0.5) ns = 0; /* "0 ns", never "-0 ns" (a saving of -0.0: 0 negated) */
    if (a < 1e3) sbuf_printf(b, "%.0f ns", ns);
    else if (a < 1e6) sbuf_printf(b, "%.2f µs", ns / 1e3);
    else if (a < 1e9) sbuf_printf(b, "%.2f ms", ns / 1e6);
    else sbuf_printf(b, "%.3f s", ns / 1e9);
}

/* 10.24 GFLOP: SI prefixes by thousands */
void fmt_si(sbuf *b, double v, const char *unit) {
    static const char *const p[] = {"", "K", "M", "G", "T", "P", "E"};
    int i = 0;
    double a = fabs(v);
    while (a >= 1000 && i < 6) a /= 1000, v /= 1000, i++;
    if (i == 0) sbuf_printf(b, "%.0f %s", v, unit);
    else sbuf_printf(b, "%.2f %s%s", v, p[i], unit);
}

void fmt_bytes(sbuf *b, double v) {
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    double a = fabs(v);
    while (a >= 1024 && i < 4) { a /= 1024; v /= 1024; i++; }
    if (i == 0) sbuf_printf(b, "%.0f B", v);
    else sbuf_printf(b, "%.2f %s", v, u[i]);
}

void fmt_int(sbuf *b, double v) {
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.0f", v);
    const char *s = tmp;
    if (*s == '-') sbuf_putc(b, *s++);
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        sbuf_putc(b, s[i]);
        if ((n - i - 1) % 3 == 0 && i + 1 < n) sbuf_putc(b, ',');
    }
}

void fmt_value(sbuf *b, const cJSON *v, const char *fmt) {
    /* a figure the summary does not have reads "n/a", as a null one does
     * (a blank cell reads as zero); raw values (sort keys) stay empty */
    if (!v) {
        if (fmt && *fmt && strcmp(fmt, "raw") && strcmp(fmt, "code")) sbuf_puts(b, "n/a");
        return;
    }
    if (cJSON_IsNull(v)) { sbuf_puts(b, "n/a"); return; }
    if (cJSON_IsBool(v)) { sbuf_puts(b, cJSON_IsTrue(v) ? "yes" : "no"); return; }
    if (cJSON_IsString(v)) { sbuf_puts(b, v->valuestring); return; }
    if (!cJSON_IsNumber(v)) return;
    double x = v->valuedouble;
    if (!fmt || !*fmt || !strcmp(fmt, "num")) {
        if (x == floor(x) && fabs(x) < 1e15) sbuf_printf(b, "%.0f", x);
        else sbuf_printf(b, "%.4g", x);
    } else if (!strcmp(fmt, "dur")) fmt_dur(b, x);
    else if (!strcmp(fmt, "pct")) sbuf_printf(b, "%.1f%%", x);
    else if (!strcmp(fmt, "spct")) sbuf_printf(b, "%+.1f%%", x == 0 ? 0.0 : x); /* a change: +45.0%, -3.1% */
    else if (!strcmp(fmt, "int")) fmt_int(b, x);
    else if (!strcmp(fmt, "bytes")) fmt_bytes(b, x);
    else if (!strcmp(fmt, "rate")) sbuf_printf(b, "%.1f GB/s", x);
    else if (!strcmp(fmt, "gbs")) sbuf_printf(b, x >= 100 ? "%.0f GB/s" : "%.3g GB/s", x); /* three figures: 0.00252 GB/s, 151 GB/s */
    else if (!strcmp(fmt, "fixed1")) sbuf_printf(b, "%.1f", x);
    else if (!strcmp(fmt, "fixed2")) sbuf_printf(b, "%.2f", x);
    else if (!strcmp(fmt, "raw")) sbuf_printf(b, "%.17g", x);
    else if (!strcmp(fmt, "flop")) fmt_si(b, x, "FLOP");
}

static int known_fmt(const char *f) {
    static const char *k[] = {"num", "dur", "pct", "spct", "int", "bytes", "rate", "fixed1", "fixed2", "raw", "code", "flop", "gbs", NULL};
    for (int i = 0; k[i]; i++)
        if (!strcmp(f, k[i])) return 1;
    return 0;
}

static const cJSON *lookup(rctx *r, const char *path) {
    if (!strcmp(path, ".")) return r->stack[r->depth - 1];
    char first[128];
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    if (n >= sizeof first) return NULL;
    memcpy(first, path, n);
    first[n] = 0;
    for (int i = r->depth - 1; i >= 0; i--) {
        const cJSON *c = r->stack[i];
        if (!cJSON_IsObject(c)) continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, first);
        if (!v) continue;
        while (v && dot) {
            path = dot + 1;
            dot = strchr(path, '.');
            n = dot ? (size_t)(dot - path) : strlen(path);
            if (n >= sizeof first) return NULL;
            memcpy(first, path, n);
            first[n] = 0;
            v = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, atoi(first)) : cJSON_GetObjectItemCaseSensitive(v, first);
        }
        return v;
    }
    return NULL;
}

/* {{{path}}} inserts text unescaped, so it may only reach what perfcard made:
 * "view.x" from the root (the renderer's own view object), any other path in
 * the innermost context alone (a chart object the renderer added), never a
 * value found by searching outwards through data that came from an input. */
static const cJSON *lookup_raw(rctx *r, const char *path) {
    if (!strncmp(path, "view.", 5)) {
        int depth = r->depth;
        r->depth = 1;
        const cJSON *v = lookup(r, path);
        r->depth = depth;
        return v;
    }
    if (strchr(path, '.')) return NULL;
    const cJSON *c = r->stack[r->depth - 1];
    return cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, path) : NULL;
}

static int truthy(const cJSON *v) {
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v)) return 0;
    if (cJSON_IsArray(v)) return cJSON_GetArraySize(v) > 0;
    if (cJSON_IsNumber(v)) return v->valuedouble != 0;
    if (cJSON_IsString(v)) return v->valuestring[0] != 0;
    return 1;
}

static void emit(rctx *r, const char *s, size_t n, int raw) {
    if (raw || r->mode == ESC_NONE) sbuf_putn(r->out, s, n);
    else if (r->mode == ESC_HTML) sbuf_html(r->out, s, n);
    else sbuf_markdown(r->out, s, n);
}

/* Copies a tag's name, trimmed, into buf. */
static int tag_name(const char *s, const char *e, char *buf, size_t cap) {
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
    if ((size_t)(e - s) >= cap) return -1;
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = 0;
    return 0;
}


/* Mustache's "standalone" rule: a section, inverted-section, closing or
 * comment tag alone on its line removes the whole line, so templates can put
 * tags on lines of their own without leaving blank lines behind. */
static int standalone(const char *base, const char *s, const char *o, const char *tag_end, const char *end,
                      const char **line_start, const char **line_after) {
    const char *p = o;
    while (p > s && (p[-1] == ' ' || p[-1] == '\t')) p--;
    if (!(p == base || p[-1] == '\n')) return 0;
    const char *q = tag_end;
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
    if (q < end && *q != '\n') return 0;
    *line_start = p;
    *line_after = q < end ? q + 1 : q;
    return 1;
}

static int render(rctx *r, const char *s, const char *end);

/* The first run of k copies of c in [s, end), or NULL. A plain loop: the
 * sanitizers' memmem checks the whole remaining text on every call, which
 * made scanning a template quadratic in the instrumented builds. */
static const char *find_run(const char *s, const char *end, char c, int k) {
    for (const char *p = s; p + k <= end; p++) {
        if (*p != c) continue;
        int j = 1;
        while (j < k && p[j] == c) j++;
        if (j == k) return p;
    }
    return NULL;
}

/* Finds the {{/name}} matching a section opened just before s. */
static const char *find_close(const char *base, const char *s, const char *end, const char *name, const char **after) {
    const char *s0 = s;
    int depth = 1;
    size_t nl = strlen(name);
    while (s < end) {
        const char *o = find_run(s, end, '{', 2);
        if (!o) return NULL;
        const char *c = find_run(o + 2, end, '}', 2);
        if (!c) return NULL;
        char kind = o[2];
        if (kind == '#' || kind == '^' || kind == '/') {
            char nm[256];
            if (tag_name(o + 3, c, nm, sizeof nm) == 0 && strlen(nm) == nl && !memcmp(nm, name, nl)) {
                if (kind == '/') {
                    if (--depth == 0) {
                        const char *ls, *la;
                        if (standalone(base, s0, o, c + 2, end, &ls, &la)) { *after = la; return ls; }
                        *after = c + 2;
                        return o;
                    }
                } else depth++;
            }
        }
        s = c + 2;
    }
    return NULL;
}

static int render(rctx *r, const char *s, const char *end) {
    while (s < end) {
        const char *o = find_run(s, end, '{', 2);
        if (!o) { sbuf_putn(r->out, s, (size_t)(end - s)); return 0; }
        int triple = o + 2 < end && o[2] == '{';
        const char *c = find_run(o + 2, end, '}', triple ? 3 : 2);
        if (!c) return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "unclosed tag");
        const char *after = c + (triple ? 3 : 2);
        char kind = o[2];
        const char *ls, *la;
        if (!triple && (kind == '#' || kind == '^' || kind == '!') && standalone(r->base, s, o, after, end, &ls, &la)) {
            sbuf_putn(r->out, s, (size_t)(ls - s));
            after = la;
        } else sbuf_putn(r->out, s, (size_t)(o - s));
        char name[256];
        if (triple) {
            if (tag_name(o + 3, c, name, sizeof name)) return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "tag too long");
            const cJSON *v = lookup_raw(r, name);
            if (cJSON_IsString(v)) emit(r, v->valuestring, strlen(v->valuestring), 1);
            s = after;
            continue;
        }
        if (kind == '!') { s = after; continue; }
        if (kind == '#' || kind == '^') {
            if (tag_name(o + 3, c, name, sizeof name)) return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "tag too long");
            const char *close_after;
            const char *close = find_close(r->base, after, end, name, &close_after);
            if (!close) return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "section {{%c%s}} is not closed", kind, name);
            const cJSON *v = lookup(r, name);
            int t = truthy(v);
            if (r->level >= MAX_STACK - 1) return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "sections nested too deep");
            r->level++;
            int rc = 0;
            if (kind == '^') {
                if (!t) rc = render(r, after, close);
            } else if (t && cJSON_IsArray(v)) {
                const cJSON *it;
                cJSON_ArrayForEach(it, v) {
                    r->stack[r->depth++] = it;
                    rc = render(r, after, close);
                    r->depth--;
                    if (rc) break;
                }
            } else if (t) {
                int push = cJSON_IsObject(v);
                if (push) r->stack[r->depth++] = v;
                rc = render(r, after, close);
                if (push) r->depth--;
            }
            r->level--;
            if (rc) return rc;
            s = close_after;
            continue;
        }
        if (kind == '/') return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "unexpected closing tag");
        if (tag_name(o + 2, c, name, sizeof name)) return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "tag too long");
        char *bar = strchr(name, '|');
        const char *fmt = NULL;
        if (bar) {
            *bar = 0;
            fmt = bar + 1;
            if (!known_fmt(fmt)) return PC_ERRF_AT(r->err, PC_EINPUT, (uint64_t)(o - r->base), "unknown format '%s'", fmt);
        }
        const cJSON *v = lookup(r, name);
        if (v && fmt && !strcmp(fmt, "code") && cJSON_IsString(v)) {
            /* a name: a code span in Markdown, escaped text elsewhere */
            if (r->mode == ESC_MD) sbuf_md_code(r->out, v->valuestring, strlen(v->valuestring));
            else emit(r, v->valuestring, strlen(v->valuestring), 0);
        } else {
            sbuf tmp = {0};
            fmt_value(&tmp, v, fmt);
            /* perfcard's own number formatting needs no escaping; strings do */
            if (tmp.len) emit(r, tmp.data, tmp.len, !v || !cJSON_IsString(v));
            sbuf_free(&tmp);
        }
        s = after;
    }
    return 0;
}

int tmpl_render(const char *t, size_t n, const cJSON *ctx, esc_mode mode, sbuf *out, pc_err *err) {
    rctx r = {.base = t, .depth = 1, .mode = mode, .out = out, .err = err};
    r.stack[0] = ctx;
    return render(&r, t, t + n);
}
