#include "cmdline.h"
#include "writer.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* a bounded output: what does not fit is counted, not written */
typedef struct rbuf { char *p; size_t n, cap, want; } rbuf;
static void put(rbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++, b->want++)
        if (b->n + 1 < b->cap) b->p[b->n++] = s[i];
}
static void puts_(rbuf *b, const char *s) { put(b, s, strlen(s)); }
static const char REDACTED[] = "<redacted>";

/* terminates b, dropping a UTF-8 character the cut left incomplete */
static size_t finish(rbuf *b) {
    if (b->want > b->n) {
        size_t k = b->n, back = 0;
        while (k > 0 && back < 4 && ((unsigned char)b->p[k - 1] & 0xC0) == 0x80) k--, back++;
        if (k > 0 && (unsigned char)b->p[k - 1] >= 0xC0) {
            unsigned char c = (unsigned char)b->p[k - 1];
            size_t need = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
            if (back < need) b->n = k - 1;
        }
    }
    if (b->cap) b->p[b->n] = 0;
    return b->want;
}

static int run_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}
static int part_sep(char c) { return c == '-' || c == '_' || c == '.'; }

/* a name (s, n) that names a secret */
static int secret_key(const char *s, size_t n) {
    static const char *const words[] = {"key", "token", "secret", "passw", "credential", "auth", "cookie", NULL};
    for (int w = 0; words[w]; w++) {
        size_t l = strlen(words[w]);
        for (size_t j = 0; j + l <= n; j++)
            if (!strncasecmp(s + j, words[w], l)) return 1;
    }
    for (size_t i = 0; i < n;) {
        while (i < n && part_sep(s[i])) i++;
        size_t a = i;
        while (i < n && !part_sep(s[i])) i++;
        size_t l = i - a;
        if (l >= 4 && !strncasecmp(s + a, "pass", 4)) return 1;
        if ((l == 2 && !strncasecmp(s + a, "pw", 2)) || (l == 3 && !strncasecmp(s + a, "pwd", 3))) return 1;
    }
    return 0;
}

/* end of the quoted text starting at a[v] (the quote, or a backslash and the quote): past its closing quote */
static size_t quoted_end(const char *a, size_t len, size_t v) {
    int escaped = a[v] == '\\';
    char q = a[v + escaped];
    for (size_t k = v + 1 + (size_t)escaped; k < len; k++) {
        if (escaped && a[k] == '\\' && k + 1 < len && a[k + 1] == q) return k + 2;
        if (!escaped && a[k] == '\\') { k++; continue; }
        if (!escaped && a[k] == q) return k + 1;
    }
    return len;
}

/* end of the object or array starting at a[v]: past its matching bracket */
static size_t nested_end(const char *a, size_t len, size_t v) {
    int depth = 0;
    char q = 0;
    for (size_t k = v; k < len; k++) {
        char c = a[k];
        if (q) {
            if (c == '\\') k++;
            else if (c == q) q = 0;
        } else if (c == '"' || c == '\'') q = c;
        else if (c == '{' || c == '[') depth++;
        else if ((c == '}' || c == ']') && --depth == 0) return k + 1;
    }
    return len;
}

size_t cmd_redact(char *out, size_t cap, const char *a, size_t len, int *redact_next) {
    rbuf b = {out, 0, cap, 0};
    int mode = *redact_next;
    *redact_next = 0;
    if (mode == 1) {
        puts_(&b, REDACTED);
        return finish(&b);
    }
    /* -u USER:PASSWORD, --user USER:PASSWORD (curl, wget); without a colon (python -u script.py) as any argument */
    const char *colon = memchr(a, ':', len);
    if (mode == 2 && colon) {
        put(&b, a, (size_t)(colon - a) + 1);
        puts_(&b, REDACTED);
        return finish(&b);
    }
    if (len > 7 && !memcmp(a, "--user=", 7) && memchr(a + 7, ':', len - 7)) {
        put(&b, a, (size_t)((const char *)memchr(a + 7, ':', len - 7) - a) + 1);
        puts_(&b, REDACTED);
        return finish(&b);
    }
    if ((len == 2 && !memcmp(a, "-u", 2)) || (len == 6 && !memcmp(a, "--user", 6))) *redact_next = 2;
    /* an option named like a secret (--password, -pw, --api-key), its value the next argument */
    size_t r = 0;
    while (r < len && run_char(a[r])) r++;
    int secret_opt = a[0] == '-' && secret_key(a, r);
    if (secret_opt && r == len) *redact_next = 1;
    /* -p VALUE, -pVALUE, -p=VALUE (a password, as mysql's) */
    if (!secret_opt && len >= 2 && a[0] == '-' && a[1] == 'p' && (len == 2 || a[2] != '-')) {
        if (len == 2) *redact_next = 1;
        put(&b, a, len == 2 ? 2 : a[2] == '=' ? 3 : 2);
        if (len > 2) puts_(&b, REDACTED);
        return finish(&b);
    }
    for (size_t i = 0; i < len;) {
        /* URL userinfo: scheme://user:PASSWORD@host, scheme://TOKEN@host */
        if (a[i] == ':' && i + 2 < len && a[i + 1] == '/' && a[i + 2] == '/') {
            put(&b, "://", 3);
            i += 3;
            size_t e = i, at = 0, has_at = 0;
            while (e < len && a[e] != '/' && a[e] != '?' && a[e] != '#' && a[e] != ' ' && a[e] != '"' && a[e] != '\'') {
                if (a[e] == '@') at = e, has_at = 1;
                e++;
            }
            if (has_at) {
                const char *uc = memchr(a + i, ':', at - i);
                if (uc) put(&b, a + i, (size_t)(uc - (a + i)) + 1);
                puts_(&b, REDACTED);
                i = at;
            }
            continue;
        }
        if (!run_char(a[i])) {
            put(&b, a + i, 1);
            i++;
            continue;
        }
        size_t s = i;
        while (i < len && run_char(a[i])) i++;
        put(&b, a + s, i - s);
        if (!secret_key(a + s, i - s)) continue;
        /* NAME=VALUE, NAME: VALUE, "NAME": VALUE, \"NAME\": VALUE */
        size_t j = i;
        if (j + 1 < len && a[j] == '\\' && a[j + 1] == '"') j += 2;
        else if (j < len && (a[j] == '"' || a[j] == '\'')) j++;
        while (j < len && a[j] == ' ') j++;
        if (j >= len || (a[j] != '=' && a[j] != ':')) continue;
        if (a[j] == ':' && j + 2 < len && a[j + 1] == '/' && a[j + 2] == '/') continue; /* a URL's scheme */
        j++;
        while (j < len && (a[j] == ' ' || a[j] == '\t')) j++;
        put(&b, a + i, j - i);
        size_t v = j, e;
        int at_start = s == 0 || (s > 0 && a[s - 1] == '=' && memchr(a, '=', s - 1) == NULL);
        if (v < len && (a[v] == '"' || a[v] == '\'' || (a[v] == '\\' && v + 1 < len && a[v + 1] == '"'))) {
            e = quoted_end(a, len, v);
            size_t ql = a[v] == '\\' ? 2 : 1;
            put(&b, a + v, ql);
            puts_(&b, REDACTED);
            if (e - v >= 2 * ql && e <= len && (a[e - 1] == a[v + ql - 1])) put(&b, a + e - ql, ql);
        } else if (v < len && (a[v] == '{' || a[v] == '[')) {
            e = nested_end(a, len, v);
            puts_(&b, REDACTED);
        } else if (at_start) { /* --password=V, TOKEN=V, Authorization: Bearer V, Cookie: a=b; c=d: to the end */
            e = len;
            puts_(&b, REDACTED);
        } else {
            e = v;
            while (e < len && !strchr(",;&}] \t\"'", a[e])) e++;
            puts_(&b, REDACTED);
        }
        i = e;
    }
    return finish(&b);
}

void cmd_json(char *out, size_t cap, const char *argv, size_t len) {
    if (cap > CMD_JSON_MAX) cap = CMD_JSON_MAX;
    enum { RESERVE = 64 }; /* the last marker and the closing bracket */
    char val[CMD_ARG_MAX + 64], esc[6 * (CMD_ARG_MAX + 64) + 16];
    size_t n = 0;
    int rn = 0, first = 1;
    out[n++] = '[';
    for (size_t i = 0; i < len;) {
        const char *a = argv + i;
        const char *z = memchr(a, 0, len - i);
        size_t al = z ? (size_t)(z - a) : len - i;
        size_t want = cmd_redact(val, CMD_ARG_MAX + 1, a, al, &rn);
        if (want > CMD_ARG_MAX) snprintf(val + strlen(val), sizeof val - strlen(val), "<cut: %zu bytes>", want);
        tw_escape(esc, sizeof esc, val);
        size_t el = strlen(esc);
        if (n + 4 + el + RESERVE > cap) {
            size_t more = 0;
            for (size_t k = i; k < len; k++)
                if (!argv[k] || k + 1 == len) more++;
            n += (size_t)snprintf(out + n, cap - n, "%s\"<cut: %zu more arguments>\"", first ? "" : ", ", more);
            break;
        }
        n += (size_t)snprintf(out + n, cap - n, "%s\"%s\"", first ? "" : ", ", esc);
        first = 0;
        i += al + 1;
    }
    out[n++] = ']';
    out[n] = 0;
}
