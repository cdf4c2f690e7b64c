#include "plaintext.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* UTF-8 code points in s[0..n) (continuation bytes not counted) */
static size_t width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

static void put_utf8(sbuf *o, unsigned long c) {
    if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
    if (c < 0x80) sbuf_putc(o, (char)c);
    else if (c < 0x800) sbuf_putc(o, (char)(0xC0 | c >> 6)), sbuf_putc(o, (char)(0x80 | (c & 0x3F)));
    else if (c < 0x10000)
        sbuf_putc(o, (char)(0xE0 | c >> 12)), sbuf_putc(o, (char)(0x80 | ((c >> 6) & 0x3F))), sbuf_putc(o, (char)(0x80 | (c & 0x3F)));
    else
        sbuf_putc(o, (char)(0xF0 | c >> 18)), sbuf_putc(o, (char)(0x80 | ((c >> 12) & 0x3F))),
            sbuf_putc(o, (char)(0x80 | ((c >> 6) & 0x3F))), sbuf_putc(o, (char)(0x80 | (c & 0x3F)));
}

/* an entity at s (after '&'): its length including '&' and ';', 0 if none */
static size_t entity(const char *s, size_t n, sbuf *o) {
    static const struct { const char *name; char c; } named[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t k = 0; k < sizeof named / sizeof *named; k++) {
        size_t l = strlen(named[k].name);
        if (n >= l && !memcmp(s, named[k].name, l)) { sbuf_putc(o, named[k].c); return l; }
    }
    if (n >= 4 && s[1] == '#') {
        int hex = s[2] == 'x' || s[2] == 'X';
        size_t i = hex ? 3 : 2;
        unsigned long c = 0;
        size_t digits = 0;
        while (i < n && digits < 7 && (hex ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i]))) {
            c = c * (hex ? 16 : 10) + (unsigned long)(isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10));
            i++, digits++;
        }
        if (digits && i < n && s[i] == ';') { put_utf8(o, c); return i + 1; }
    }
    return 0;
}

/* one line's (or table cell's) inline markup as text */
static void inline_text(const char *s, size_t n, sbuf *o, int in_table) {
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) { sbuf_putc(o, s[i + 1]); i += 2; continue; }
        if (c == '`') {
            size_t r = 0;
            while (i + r < n && s[i + r] == '`') r++;
            /* the closing run of exactly r backticks */
            size_t j = i + r, close = 0;
            while (j < n && !close) {
                if (s[j] != '`') { j++; continue; }
                size_t q = 0;
                while (j + q < n && s[j + q] == '`') q++;
                if (q == r) close = j;
                else j += q;
            }
            if (!close) { sbuf_putn(o, s + i, r); i += r; continue; }
            size_t a = i + r, b = close;
            int all_space = 1;
            for (size_t k = a; k < b; k++) all_space &= s[k] == ' ';
            if (b - a >= 2 && s[a] == ' ' && s[b - 1] == ' ' && !all_space) a++, b--;
            for (size_t k = a; k < b; k++) {
                if (in_table && s[k] == '\\' && k + 1 < b && s[k + 1] == '|') continue;
                sbuf_putc(o, s[k]);
            }
            i = close + r;
            continue;
        }
        if (c == '!' && i + 1 < n && s[i + 1] == '[') {
            const char *mid = memchr(s + i, ']', n - i);
            const char *end = mid && mid + 1 < s + n && mid[1] == '(' ? memchr(mid, ')', (size_t)(s + n - mid)) : NULL;
            if (end) {
                sbuf_puts(o, "[chart: ");
                inline_text(s + i + 2, (size_t)(mid - s - i - 2), o, in_table);
                sbuf_puts(o, "]");
                i = (size_t)(end - s) + 1;
                continue;
            }
        }
        if (c == '*' || c == '_') { i++; continue; }
        if (c == '<') {
            static const char *const tags[] = {"<sub>", "</sub>", "<br>", "<br/>", NULL};
            size_t l = 0;
            for (int k = 0; tags[k] && !l; k++)
                if (n - i >= strlen(tags[k]) && !memcmp(s + i, tags[k], strlen(tags[k]))) l = strlen(tags[k]);
            if (l) { i += l; continue; }
        }
        if (c == '&') {
            size_t l = entity(s + i, n - i, o);
            if (l) { i += l; continue; }
        }
        sbuf_putc(o, c);
        i++;
    }
}

/* a table row's cells: split at pipes no backslash escapes, outer pipes dropped */
typedef struct cells { char **v; size_t n, cap; } cells;
static void row_cells(const char *s, size_t n, cells *out) {
    size_t a = 0, b = n;
    while (a < b && s[a] == ' ') a++;
    if (a < b && s[a] == '|') a++;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\r')) b--;
    if (b > a && s[b - 1] == '|' && !(b - 1 > a && s[b - 2] == '\\')) b--;
    size_t start = a;
    for (size_t i = a; i <= b; i++) {
        if (i < b && !(s[i] == '|' && !(i > a && s[i - 1] == '\\'))) continue;
        size_t x = start, y = i;
        while (x < y && s[x] == ' ') x++;
        while (y > x && s[y - 1] == ' ') y--;
        sbuf t = {0};
        inline_text(s + x, y - x, &t, 1);
        if (out->n == out->cap) out->cap = out->cap ? 2 * out->cap : 16, out->v = xrealloc(out->v, out->cap * sizeof *out->v);
        out->v[out->n++] = t.data ? sbuf_take(&t) : xstrdup("");
        start = i + 1;
    }
}

static void pad(sbuf *o, size_t k) {
    while (k--) sbuf_putc(o, ' ');
}

/* the table of lines [l0, l1): header, delimiter row, body; columns aligned */
static void table(char **lines, size_t *lens, size_t l0, size_t l1, sbuf *o) {
    size_t nrows = l1 - l0;
    cells *rows = xcalloc(nrows, sizeof *rows);
    size_t ncol = 0;
    for (size_t r = 0; r < nrows; r++) {
        row_cells(lines[l0 + r], lens[l0 + r], &rows[r]);
        if (rows[r].n > ncol) ncol = rows[r].n;
    }
    size_t *w = xcalloc(ncol ? ncol : 1, sizeof *w);
    int *right = xcalloc(ncol ? ncol : 1, sizeof *right);
    for (size_t c = 0; c < ncol && nrows > 1 && c < rows[1].n; c++) {
        /* the delimiter row as written: ---: right-aligned */
        const char *d = rows[1].v[c];
        right[c] = strlen(d) > 0 && d[strlen(d) - 1] == ':';
    }
    for (size_t r = 0; r < nrows; r++) {
        if (r == 1) continue;
        for (size_t c = 0; c < rows[r].n; c++) {
            size_t x = width(rows[r].v[c], strlen(rows[r].v[c]));
            if (x > w[c]) w[c] = x;
        }
    }
    for (size_t r = 0; r < nrows; r++) {
        sbuf line = {0};
        for (size_t c = 0; c < ncol; c++) {
            if (c) sbuf_puts(&line, "  ");
            if (r == 1) {
                for (size_t k = 0; k < w[c]; k++) sbuf_putc(&line, '-');
                continue;
            }
            const char *v = c < rows[r].n ? rows[r].v[c] : "";
            size_t x = width(v, strlen(v));
            if (right[c]) pad(&line, w[c] - x);
            sbuf_puts(&line, v);
            if (!right[c]) pad(&line, w[c] - x);
        }
        while (line.len && line.data[line.len - 1] == ' ') line.len--;
        if (line.len) sbuf_putn(o, line.data, line.len);
        sbuf_putc(o, '\n');
        sbuf_free(&line);
    }
    for (size_t r = 0; r < nrows; r++) {
        for (size_t c = 0; c < rows[r].n; c++) free(rows[r].v[c]);
        free(rows[r].v);
    }
    free(rows);
    free(w);
    free(right);
}

void md_to_text(const char *md, size_t n, sbuf *out) {
    /* the lines, without their line breaks */
    size_t nl = 0, cap = 0;
    char **lines = NULL;
    size_t *lens = NULL;
    for (size_t i = 0; i < n;) {
        const char *e = memchr(md + i, '\n', n - i);
        size_t l = e ? (size_t)(e - md - i) : n - i;
        if (nl == cap) {
            cap = cap ? 2 * cap : 64;
            lines = xrealloc(lines, cap * sizeof *lines);
            lens = xrealloc(lens, cap * sizeof *lens);
        }
        lines[nl] = (char *)md + i;
        lens[nl++] = l && md[i + l - 1] == '\r' ? l - 1 : l;
        i += l + 1;
    }
    for (size_t i = 0; i < nl;) {
        const char *s = lines[i];
        size_t l = lens[i];
        if (l && s[0] == '|') {
            size_t j = i;
            while (j < nl && lens[j] && lines[j][0] == '|') j++;
            table(lines, lens, i, j, out);
            i = j;
            continue;
        }
        /* summary.md's folded parts (#47 item 2): "<details><summary>T</summary>"
         * reads as a heading T, "</details>" as nothing */
        static const char open_d[] = "<details><summary>", close_s[] = "</summary>", close_d[] = "</details>";
        size_t od = sizeof open_d - 1, cs = sizeof close_s - 1;
        if (l == sizeof close_d - 1 && !memcmp(s, close_d, l)) { i++; continue; }
        if (l > od + cs && !memcmp(s, open_d, od) && !memcmp(s + l - cs, close_s, cs)) {
            size_t before = out->len;
            inline_text(s + od, l - od - cs, out, 0);
            size_t w = width(out->data + before, out->len - before);
            sbuf_putc(out, '\n');
            for (size_t k = 0; k < w; k++) sbuf_putc(out, '-');
            sbuf_putc(out, '\n');
            i++;
            continue;
        }
        int level = 0;
        while ((size_t)level < l && s[level] == '#') level++;
        if (level >= 1 && level <= 6 && (size_t)level < l && s[level] == ' ') {
            size_t before = out->len;
            inline_text(s + level + 1, l - level - 1, out, 0);
            size_t w = width(out->data + before, out->len - before);
            sbuf_putc(out, '\n');
            for (size_t k = 0; k < w; k++) sbuf_putc(out, level <= 2 ? '=' : '-');
            sbuf_putc(out, '\n');
            i++;
            continue;
        }
        if (l >= 2 && s[0] == '>' && s[1] == ' ') s += 2, l -= 2;
        inline_text(s, l, out, 0);
        sbuf_putc(out, '\n');
        i++;
    }
    free(lines);
    free(lens);
}
