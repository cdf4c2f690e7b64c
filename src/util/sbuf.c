#include "sbuf.h"
#include "xalloc.h"
#include <stdio.h>
#include <string.h>

void sbuf_reserve(sbuf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t c = b->cap ? b->cap : 256;
    while (c < b->len + extra + 1) c *= 2;
    b->data = xrealloc(b->data, c);
    b->cap = c;
}
void sbuf_putn(sbuf *b, const char *s, size_t n) {
    sbuf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}
void sbuf_puts(sbuf *b, const char *s) { sbuf_putn(b, s, strlen(s)); }
void sbuf_putc(sbuf *b, char c) { sbuf_putn(b, &c, 1); }
void sbuf_printf(sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        sbuf_putn(b, tmp, (size_t)n);
        return;
    }
    sbuf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
void sbuf_free(sbuf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
char *sbuf_take(sbuf *b) {
    if (!b->data) sbuf_reserve(b, 0), b->data[0] = 0;
    char *d = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void sbuf_html(sbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': sbuf_puts(b, "&amp;"); break;
        case '<': sbuf_puts(b, "&lt;"); break;
        case '>': sbuf_puts(b, "&gt;"); break;
        case '"': sbuf_puts(b, "&quot;"); break;
        case '\'': sbuf_puts(b, "&#39;"); break;
        case 0: sbuf_puts(b, "\xEF\xBF\xBD"); break;
        default: sbuf_putc(b, s[i]);
        }
    }
}

/* GitHub-flavored Markdown: backslash-escape every ASCII punctuation that can
 * start or end markup, entity-encode angle brackets and pipes (a `\|` is still
 * split by some table parsers inside code spans; `&#124;` never is), and turn
 * newlines into spaces so a name never ends a table row. */
void sbuf_markdown(sbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '|': sbuf_puts(b, "&#124;"); break;
        case '<': sbuf_puts(b, "&lt;"); break;
        case '>': sbuf_puts(b, "&gt;"); break;
        case '&': sbuf_puts(b, "&amp;"); break;
        case '\n': case '\r': case '\t': sbuf_putc(b, ' '); break;
        case '\\': case '`': case '*': case '_': case '[': case ']': case '~': case '$':
            sbuf_putc(b, '\\');
            sbuf_putc(b, (char)c);
            break;
        case 0: break;
        case '-': case '+': case '.': case '=': case '#': /* only where they could start a list or heading */
            if (i == 0) sbuf_putc(b, '\\');
            sbuf_putc(b, (char)c);
            break;
        default: sbuf_putc(b, (char)c);
        }
    }
}

void sbuf_csv(sbuf *b, const char *s, size_t n) {
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') q = 1;
    /* a leading = + - @ would be a formula in spreadsheets */
    int formula = n && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@');
    if (!q && !formula) { sbuf_putn(b, s, n); return; }
    sbuf_putc(b, '"');
    if (formula) sbuf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') sbuf_putc(b, '"');
        sbuf_putc(b, s[i]);
    }
    sbuf_putc(b, '"');
}

void sbuf_base64(sbuf *b, const void *data, size_t n, int wrap) {
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    size_t col = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        char q[4] = {tbl[v >> 18 & 63], tbl[v >> 12 & 63], i + 1 < n ? tbl[v >> 6 & 63] : '=', i + 2 < n ? tbl[v & 63] : '='};
        sbuf_putn(b, q, 4);
        col += 4;
        if (wrap && col >= 76) { sbuf_puts(b, "\r\n"); col = 0; }
    }
    if (wrap && col) sbuf_puts(b, "\r\n");
}
