#include "sbuf.h"
#include "utf8.h"
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

/* The length of the character at s[0..end) that is not shown as itself
 * (sbuf_visible's list), or 0; s[0..end) is valid UTF-8. */
static size_t hidden_len(const unsigned char *s, size_t end, int keep_space) {
    unsigned char c = s[0];
    if (c < 0x20) return keep_space && (c == '\t' || c == '\n') ? 0 : 1;
    if (c == 0x7f) return 1;
    if (c == 0xc2 && end >= 2 && s[1] < 0xa0) return 2; /* U+0080..U+009F */
    if (c == 0xe2 && end >= 3 && ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) || (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
        return 3; /* U+202A..U+202E, U+2066..U+2069 */
    return 0;
}

void sbuf_visible(sbuf *b, const char *s, size_t n, int keep_space) {
    size_t i = 0;
    while (i < n) {
        size_t end = i + utf8_valid_prefix(s + i, n - i), from = i;
        while (i < end) {
            size_t h = hidden_len((const unsigned char *)s + i, end - i, keep_space);
            if (!h) { i++; continue; }
            sbuf_putn(b, s + from, i - from);
            sbuf_putc(b, '?');
            i += h, from = i;
        }
        sbuf_putn(b, s + from, end - from);
        if (i < n) sbuf_putc(b, '?'), i++; /* a byte of no character */
    }
}

int sbuf_hidden(const char *s, size_t n, int keep_space) {
    size_t end = utf8_valid_prefix(s, n);
    if (end < n) return 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 || c == 0x7f || c == 0xc2 || c == 0xe2) && hidden_len((const unsigned char *)s + i, n - i, keep_space)) return 1;
    }
    return 0;
}

/* s[0..*n) shown through sbuf_visible (keeping TAB and LF) into v when it
 * holds anything hidden: the text to escape (v's, or s itself). */
static const char *shown(sbuf *v, const char *s, size_t *n) {
    if (!sbuf_hidden(s, *n, 1)) return s;
    sbuf_visible(v, s, *n, 1);
    *n = v->len;
    return v->data;
}

void sbuf_html(sbuf *b, const char *s0, size_t n) {
    sbuf v = {0};
    const char *s = shown(&v, s0, &n);
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': sbuf_puts(b, "&amp;"); break;
        case '<': sbuf_puts(b, "&lt;"); break;
        case '>': sbuf_puts(b, "&gt;"); break;
        case '"': sbuf_puts(b, "&quot;"); break;
        case '\'': sbuf_puts(b, "&#39;"); break;
        default: sbuf_putc(b, s[i]);
        }
    }
    sbuf_free(&v);
}

/* GitHub-flavored Markdown prose: the text can never become markup, a link,
 * an image, an autolink, a mention or a table break. Backslash-escapes every
 * ASCII punctuation that can open or close markup (links and images need '[',
 * so '(' and '!' stay plain), ':' before '/' and '.' after "www" (GFM's autolink
 * extension looks for "scheme://" and "www."), and puts a WORD JOINER (U+2060,
 * invisible) after '@' and after '#' before a digit (e-mail autolinks, GitHub
 * mentions and issue references ignore escapes). Newlines become spaces. */
void sbuf_markdown(sbuf *b, const char *s0, size_t n) {
    sbuf v = {0};
    const char *s = shown(&v, s0, &n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\n': case '\r': case '\t': sbuf_putc(b, ' '); break;
        case 0: break;
        case '<': sbuf_puts(b, "&lt;"); break;
        case '>': sbuf_puts(b, "&gt;"); break;
        case '&': sbuf_puts(b, "&amp;"); break;
        case '|': sbuf_puts(b, "&#124;"); break; /* never split by a table parser */
        case '\\': case '`': case '*': case '_': case '[': case ']': case '~': case '$':
            sbuf_putc(b, '\\');
            sbuf_putc(b, (char)c);
            break;
        case ':':
            if (i + 1 < n && s[i + 1] == '/') sbuf_putc(b, '\\');
            sbuf_putc(b, ':');
            break;
        case '.':
            if (i == 0 || (i >= 3 && (s[i - 1] | 32) == 'w' && (s[i - 2] | 32) == 'w' && (s[i - 3] | 32) == 'w')) sbuf_putc(b, '\\');
            sbuf_putc(b, '.');
            break;
        case '@':
            sbuf_puts(b, "@\xE2\x81\xA0");
            break;
        case '#':
            if (i == 0) sbuf_putc(b, '\\');
            sbuf_putc(b, '#');
            if (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') sbuf_puts(b, "\xE2\x81\xA0");
            break;
        case '-': case '+': case '=': /* only where they could start a list, a heading or a rule */
            if (i == 0) sbuf_putc(b, '\\');
            sbuf_putc(b, (char)c);
            break;
        default: sbuf_putc(b, (char)c);
        }
    }
    sbuf_free(&v);
}

/* A GFM code span holding s verbatim: the fence is one backtick longer than
 * the longest run of backticks in s, with a space inside each end when s
 * starts or ends with a backtick, or with a space and is not all spaces
 * (CommonMark strips exactly that padding); NULs are dropped; '|' is escaped (GFM splits table
 * cells before it parses code spans, and shows "\|" as "|" inside them);
 * newlines become spaces. Nothing inside a code span is markup or a link. */
void sbuf_md_code(sbuf *b, const char *s1, size_t n0) {
    /* the text as it will show: hidden characters as '?', line breaks and tabs as spaces */
    sbuf v = {0}, t = {0};
    const char *s0 = shown(&v, s1, &n0);
    for (size_t i = 0; i < n0; i++) sbuf_putc(&t, s0[i] == '\n' || s0[i] == '\t' ? ' ' : s0[i]);
    sbuf_free(&v);
    const char *s = t.data;
    size_t n = t.len, run = 0, longest = 0;
    int all_space = 1;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
        all_space &= s[i] == ' ';
    }
    if (n == 0) { sbuf_free(&t); return; }
    /* CommonMark strips one space from each end when both ends are spaces and
     * the span is not all spaces: pad so that exactly the padding goes */
    int pad = s[0] == '`' || s[n - 1] == '`' || (!all_space && (s[0] == ' ' || s[n - 1] == ' '));
    for (size_t k = 0; k <= longest; k++) sbuf_putc(b, '`');
    if (pad) sbuf_putc(b, ' ');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '|') sbuf_puts(b, "\\|");
        else sbuf_putc(b, s[i]);
    }
    if (pad) sbuf_putc(b, ' ');
    for (size_t k = 0; k <= longest; k++) sbuf_putc(b, '`');
    sbuf_free(&t);
}

/* Would a spreadsheet read the cell as a formula? OWASP's CSV-injection rule:
 * after any spaces, a first character of = + - @ TAB CR, or the full-width
 * forms U+FF1D U+FF0B U+FF0D U+FF20 (some spreadsheets fold them to ASCII). */
static int csv_formula(const char *s, size_t n) {
    size_t i = 0;
    while (i < n && s[i] == ' ') i++;
    if (i >= n) return 0;
    char c = s[i];
    if (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r') return 1;
    if (i + 2 < n && (unsigned char)s[i] == 0xEF && (unsigned char)s[i + 1] == 0xBC) {
        unsigned char d = (unsigned char)s[i + 2];
        return d == 0x9D || d == 0x8B || d == 0x8D || d == 0xA0;
    }
    return 0;
}

/* RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled;
 * a formula-like field (csv_formula) gets a leading ' and is quoted. */
void sbuf_csv(sbuf *b, const char *s, size_t n) {
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') q = 1;
    int formula = csv_formula(s, n);
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

void sbuf_drain(sbuf *b, const sbuf_out *out, size_t at) {
    if (!out || b->len < at) return;
    out->write(out->ctx, b->data, b->len);
    b->len = 0;
    b->data[0] = 0;
}

void sbuf_href_path(sbuf *b, const char *path) {
    static const char hex[] = "0123456789ABCDEF";
    int first = 1;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n) {
            if (first && !((n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.'))) sbuf_puts(b, "./");
            else if (!first) sbuf_putc(b, '/');
            first = 0;
            for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)p[i];
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~!$()*+,;=@", c)) sbuf_putc(b, (char)c);
                else {
                    char e[3] = {'%', hex[c >> 4], hex[c & 15]};
                    sbuf_putn(b, e, 3);
                }
            }
        }
        p += n;
        if (*p) p++;
    }
    if (first) sbuf_puts(b, "./");
}
