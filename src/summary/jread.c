/* jread.c - JSON tokens through a bounded window (jread.h). Strings are
 * jsontok's; the window only refills between tokens, so a token that needs
 * more input is read again whole from its first byte. */
#include "jread.h"
#include "../util/jsontok.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { JR_FIRST = 256 << 10 }; /* the window's first size; it grows only for a longer token */

void jr_open_fd(jr *r, int fd) {
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->cap = JR_FIRST;
    r->buf = xmalloc(r->cap);
    r->scratch = xmalloc(r->cap);
    r->p = r->buf;
}

void jr_open_mem(jr *r, const char *text, size_t n) {
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->buf = (char *)text; /* never written: a text in memory never refills */
    r->cap = r->len = n;
    r->eof = 1;
    r->scratch = xmalloc(n ? n : 1);
    r->p = r->buf;
}

int jr_rewind(jr *r) {
    if (r->fd < 0) {
        r->p = r->buf;
        return 0;
    }
    if (lseek(r->fd, 0, SEEK_SET) < 0) {
        r->io = 1;
        r->why = "cannot read it again";
        return -1;
    }
    r->len = 0;
    r->base = 0;
    r->eof = 0;
    r->p = r->buf;
    return 0;
}

void jr_close(jr *r) {
    if (r->fd >= 0) free(r->buf);
    free(r->scratch);
    r->buf = r->scratch = NULL;
}

uint64_t jr_offset(const jr *r) { return r->base + (uint64_t)(r->p - r->buf); }

int jr_fail(jr *r, const char *why) {
    r->why = why;
    r->off = jr_offset(r);
    return -1;
}

/* More input after the window's bytes from keep on (the cursor is at or after
 * keep): 1 when some came, 0 when none (the input's end, or the window full
 * at JR_MAX from keep), -1 on a read error. */
static int fill(jr *r, const char *keep) {
    if (r->fd < 0 || r->eof) return 0;
    assert(keep >= r->buf && keep <= r->p && r->p <= r->buf + r->len);
    size_t k = (size_t)(keep - r->buf), pos = (size_t)(r->p - r->buf) - k;
    memmove(r->buf, keep, r->len - k);
    r->base += k;
    r->len -= k;
    if (r->len == r->cap) {
        if (r->cap >= JR_MAX) {
            r->p = r->buf + pos;
            return 0;
        }
        r->cap *= 2;
        r->buf = xrealloc(r->buf, r->cap);
        free(r->scratch);
        r->scratch = xmalloc(r->cap); /* decoding never grows a string: the window's size is enough */
    }
    r->p = r->buf + pos;
    ssize_t n;
    do n = read(r->fd, r->buf + r->len, r->cap - r->len);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        r->io = 1;
        jr_fail(r, strerror(errno));
        return -1;
    }
    if (n == 0) {
        r->eof = 1;
        return 0;
    }
    r->len += (size_t)n;
    return 1;
}

int jr_bom(jr *r) {
    while (r->buf + r->len - r->p < 3) {
        int f = fill(r, r->p);
        if (f < 0) return -1;
        if (f == 0) break;
    }
    if (r->buf + r->len - r->p >= 3 && !memcmp(r->p, "\xEF\xBB\xBF", 3)) r->p += 3;
    return 0;
}

int jr_peek(jr *r) {
    for (;;) {
        const char *e = r->buf + r->len;
        while (r->p < e && (unsigned char)*r->p <= 32) r->p++; /* cJSON's whitespace: any byte up to ' ' */
        if (r->p < e) return (unsigned char)*r->p;
        int f = fill(r, r->p);
        if (f < 0) return -2;
        if (f == 0) return -1;
    }
}

/* a string longer than the window: read through to its closing quote, only
 * counted (an escape is two bytes of text; its \u digits are not checked) */
static int long_string(jr *r, jr_str *out) {
    const char *p = r->p + 1;
    size_t n = 0;
    int esc = 0;
    for (;;) {
        for (const char *e = r->buf + r->len; p < e; p++, n++) {
            if (esc) esc = 0;
            else if (*p == '\\') esc = 1;
            else if (*p == '"') {
                r->p = p + 1;
                *out = (jr_str){NULL, n};
                return 0;
            }
        }
        r->p = p;
        int f = fill(r, p);
        if (f < 0) return -1;
        if (f == 0) return jr_fail(r, "unterminated string");
        p = r->p;
    }
}

int jr_string(jr *r, jr_str *out) {
    for (;;) {
        jcur c = {r->p, r->buf + r->len, r->scratch, 0, NULL};
        jstr s;
        int x = j_string(&c, &s);
        if (x == J_OK) {
            r->p = c.p;
            *out = (jr_str){s.s, strnlen(s.s, s.n)}; /* a C string ends at a decoded NUL, as cJSON's did */
            return 0;
        }
        if (x == J_ERR) {
            r->p = c.p;
            return jr_fail(r, c.why);
        }
        int f = fill(r, r->p);
        if (f < 0) return -1;
        if (f > 0) continue;
        return r->eof ? jr_fail(r, "unterminated string") : long_string(r, out);
    }
}

static int number_char(char ch) { return (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == 'e' || ch == 'E' || ch == '.'; }

int jr_number(jr *r, double *out) {
    char tmp[64];
    size_t k;
    for (;;) {
        const char *p = r->p, *e = r->buf + r->len;
        for (k = 0; p + k < e && k < sizeof tmp - 1 && number_char(p[k]); k++) tmp[k] = p[k];
        if (p + k < e || k == sizeof tmp - 1) break;
        int f = fill(r, r->p); /* the number may go on */
        if (f < 0) return -1;
        if (f == 0) break;
    }
    tmp[k] = 0;
    char *end;
    *out = strtod(tmp, &end);
    if (end == tmp) return jr_fail(r, "expected a value");
    r->p += end - tmp;
    return 0;
}

int jr_literal(jr *r, int *v) {
    static const struct { const char *text; size_t n; int v; } lits[] = {{"true", 4, 1}, {"false", 5, 0}, {"null", 4, -1}};
    for (size_t i = 0; i < 3; i++) {
        if (*r->p != lits[i].text[0]) continue;
        while ((size_t)(r->buf + r->len - r->p) < lits[i].n) {
            int f = fill(r, r->p);
            if (f < 0) return -1;
            if (f == 0) break;
        }
        if ((size_t)(r->buf + r->len - r->p) < lits[i].n || memcmp(r->p, lits[i].text, lits[i].n)) break;
        r->p += lits[i].n;
        *v = lits[i].v;
        return 0;
    }
    return jr_fail(r, "expected a value");
}

int jr_expect(jr *r, char ch, const char *why) {
    int c = jr_peek(r);
    if (c == -2) return -1;
    if (c != (unsigned char)ch) return jr_fail(r, why);
    r->p++;
    return 0;
}

int jr_next(jr *r, char close) {
    int c = jr_peek(r);
    if (c == -2) return -1;
    if (c == ',' || c == (unsigned char)close) {
        r->p++;
        return c == ',';
    }
    return jr_fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

int jr_open(jr *r, char close) {
    r->p++;
    int c = jr_peek(r);
    if (c == -2) return -1;
    if (c != (unsigned char)close) return 0;
    r->p++;
    return 1;
}

int jr_skip(jr *r, int depth) {
    int c = jr_peek(r), e;
    if (c < 0) return c == -2 ? -1 : jr_fail(r, "unexpected end of input");
    jr_str s;
    double d;
    if (c == '"') return jr_string(r, &s);
    if (c == 't' || c == 'f' || c == 'n') return jr_literal(r, &e);
    if (c == '-' || (c >= '0' && c <= '9')) return jr_number(r, &d);
    if (c != '{' && c != '[') return jr_fail(r, "expected a value");
    if (depth >= JR_MAX_DEPTH) return jr_fail(r, "nesting deeper than 1000 levels");
    char close = c == '{' ? '}' : ']';
    if ((e = jr_open(r, close))) return e < 0 ? -1 : 0;
    do {
        if (c == '{' && (jr_peek(r) != '"' ? jr_fail(r, "expected a string key") : jr_string(r, &s) || jr_expect(r, ':', "expected ':'")))
            return -1;
        if (jr_skip(r, depth + 1)) return -1;
    } while ((e = jr_next(r, close)) == 1);
    return e;
}
