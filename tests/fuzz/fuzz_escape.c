/* libFuzzer target: the escapers as properties, each checked by reading the
 * output back with an independent parser written here:
 *   CSV (RFC 4180): one field that parses back to the input, with a leading '
 *     exactly when the input is formula-like (OWASP);
 *   Markdown code span: the fence is longer than any backtick run inside, and
 *     the content reads back to the input (| unescaped, newlines as spaces);
 *   HTML: entities decode back to the input (NUL as U+FFFD), no raw < > & " ';
 *   UTF-8 repair: the result is valid and repairing it again changes nothing;
 *   plain text (the e-mail's): a code span in a table cell reads back as the
 *     text shown (NULs dropped, line breaks as spaces, trailing spaces gone);
 *   short names: valid UTF-8 of at most max characters at every level, and
 *     the input's halves as two names (repaired) get two short names exactly
 *     when they differ. */
#include "util/sbuf.h"
#include "util/utf8.h"
#include "util/shortname.h"
#include "render/plaintext.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(int ok) { if (!ok) abort(); }

/* What every HTML and Markdown escape shows (#48 class 8), written here from its rule: a byte of no
 * UTF-8 character, a C0 control but TAB and LF, DEL, a C1 control (U+0080..U+009F) and the bidi
 * controls (U+202A..U+202E, U+2066..U+2069) each become one '?' */
static void vis(sbuf *v, const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t end = i + utf8_valid_prefix(s + i, n - i);
        while (i < end) {
            const unsigned char *u = (const unsigned char *)s + i;
            size_t h = 0;
            if (u[0] < 0x20) h = u[0] == '\t' || u[0] == '\n' ? 0 : 1;
            else if (u[0] == 0x7f) h = 1;
            else if (u[0] == 0xc2 && end - i >= 2 && u[1] < 0xa0) h = 2;
            else if (u[0] == 0xe2 && end - i >= 3 &&
                     ((u[1] == 0x80 && u[2] >= 0xaa && u[2] <= 0xae) || (u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9)))
                h = 3;
            if (h) sbuf_putc(v, '?'), i += h;
            else sbuf_putc(v, s[i]), i++;
        }
        if (i < n) sbuf_putc(v, '?'), i++;
    }
}

static void csv(const char *s, size_t n) {
    sbuf b = {0};
    sbuf_csv(&b, s, n);
    sbuf back = {0};
    size_t i = 0;
    if (b.len && b.data[0] == '"') {
        for (i = 1; i < b.len; i++) {
            if (b.data[i] == '"') {
                if (i + 1 < b.len && b.data[i + 1] == '"') { sbuf_putc(&back, '"'); i++; continue; }
                break;
            }
            sbuf_putc(&back, b.data[i]);
        }
        check(i == b.len - 1); /* the closing quote ends the field */
    } else {
        for (i = 0; i < b.len; i++) check(b.data[i] != ',' && b.data[i] != '"' && b.data[i] != '\n' && b.data[i] != '\r');
        if (b.len) sbuf_putn(&back, b.data, b.len);
    }
    size_t k = 0;
    while (k < n && s[k] == ' ') k++;
    int formula = k < n && strchr("=+-@\t\r", s[k]) && s[k];
    if (k + 2 < n && (unsigned char)s[k] == 0xEF && (unsigned char)s[k + 1] == 0xBC &&
        strchr("\x9D\x8B\x8D\xA0", s[k + 2]) && s[k + 2])
        formula = 1;
    size_t off = formula ? 1 : 0;
    check(!formula || (back.len && back.data[0] == '\''));
    check(back.len - off == n && (n == 0 || !memcmp(back.data + off, s, n)));
    sbuf_free(&b);
    sbuf_free(&back);
}

static void md_code(const char *s0, size_t n0) {
    sbuf b = {0};
    sbuf_md_code(&b, s0, n0);
    sbuf vv = {0};
    vis(&vv, s0, n0);
    const char *s = vv.data ? vv.data : "";
    size_t n = vv.len;
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) shown += s[i] != 0;
    if (shown == 0) { check(b.len == 0); sbuf_free(&b); sbuf_free(&vv); return; } /* nothing to show: no span */
    size_t fence = 0, longest = 0, run = 0;
    while (fence < b.len && b.data[fence] == '`') fence++;
    check(fence > 0 && b.len >= 2 * fence);
    for (size_t i = 0; i < fence; i++) check(b.data[b.len - 1 - i] == '`');
    const char *in = b.data + fence;
    size_t m = b.len - 2 * fence;
    for (size_t i = 0; i < m; i++) {
        run = in[i] == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    check(longest < fence);
    /* CommonMark strips one space each side when both ends are spaces and the
     * content is not all spaces */
    int all_space = 1;
    for (size_t i = 0; i < m && all_space; i++) all_space = in[i] == ' ';
    if (m >= 2 && in[0] == ' ' && in[m - 1] == ' ' && !all_space) in++, m -= 2;
    sbuf back = {0};
    for (size_t i = 0; i < m; i++) {
        if (in[i] == '\\' && i + 1 < m && in[i + 1] == '|') { sbuf_putc(&back, '|'); i++; continue; }
        check(in[i] != '|' && in[i] != '\n' && in[i] != '\r');
        sbuf_putc(&back, in[i]);
    }
    sbuf want = {0};
    for (size_t i = 0; i < n; i++)
        if (s[i]) sbuf_putc(&want, s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i]);
    check(back.len == want.len && (!want.len || !memcmp(back.data, want.data, want.len)));
    sbuf_free(&b);
    sbuf_free(&back);
    sbuf_free(&want);
    sbuf_free(&vv);
}

static void html(const char *s, size_t n) {
    sbuf b = {0};
    sbuf_html(&b, s, n);
    sbuf back = {0};
    static const char *const ents[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
    for (size_t i = 0; i < b.len; i++) {
        check(b.data[i] != '<' && b.data[i] != '>' && b.data[i] != '"' && b.data[i] != '\'');
        if (b.data[i] == '&') {
            int found = 0;
            for (int e = 0; e < 5 && !found; e++) {
                size_t l = strlen(ents[e][0]);
                if (i + l <= b.len && !memcmp(b.data + i, ents[e][0], l)) { sbuf_puts(&back, ents[e][1]); i += l - 1; found = 1; }
            }
            check(found);
        } else sbuf_putc(&back, b.data[i]);
    }
    sbuf want = {0};
    vis(&want, s, n); /* NUL included: a control shown as '?' */
    check(back.len == want.len && (!want.len || !memcmp(back.data, want.data, want.len)));
    sbuf_free(&b);
    sbuf_free(&back);
    sbuf_free(&want);
}

static void utf8(const char *s, size_t n) {
    size_t m = 0;
    char *r = utf8_repair(s, n, &m, NULL);
    if (!r) { check(utf8_valid_prefix(s, n) == n); return; }
    check(utf8_valid_prefix(r, m) == m);
    size_t m2;
    check(utf8_repair(r, m, &m2, NULL) == NULL);
    free(r);
}

static void md_text(const char *s, size_t n) {
    sbuf row = {0}, t = {0}, want = {0};
    sbuf_puts(&row, "| ");
    sbuf_md_code(&row, s, n);
    sbuf_puts(&row, " |\n");
    md_to_text(row.data, row.len, &t);
    sbuf vv = {0};
    vis(&vv, s, n);
    for (size_t i = 0; i < vv.len; i++)
        if (vv.data[i]) sbuf_putc(&want, vv.data[i] == '\n' || vv.data[i] == '\r' || vv.data[i] == '\t' ? ' ' : vv.data[i]);
    sbuf_free(&vv);
    while (want.len && want.data[want.len - 1] == ' ') want.len--;
    sbuf_putc(&want, '\n');
    check(t.len == want.len && !memcmp(t.data, want.data, want.len));
    sbuf_free(&row);
    sbuf_free(&t);
    sbuf_free(&want);
}

static size_t code_points(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void short_names(const char *s, size_t n) {
    char *z = malloc(n + 1), *half;
    memcpy(z, s, n);
    z[n] = 0; /* the name up to its first NUL, as C callers see it */
    for (int level = 0; level <= 2; level++) {
        char *r = pc_short_name(z, level, 10 + n % 100);
        check(utf8_valid_prefix(r, strlen(r)) == strlen(r) && code_points(r) <= 10 + n % 100);
        free(r);
    }
    half = strdup(z + strlen(z) / 2);
    z[strlen(z) / 2] = 0;
    /* names reach the output repaired (utf8.h): two that repair alike are one */
    size_t m;
    char *r0 = utf8_repair(z, strlen(z), &m, NULL), *r1 = utf8_repair(half, strlen(half), &m, NULL);
    if (r0) free(z), z = r0;
    if (r1) free(half), half = r1;
    const char *names[2] = {z, half};
    char *out[2];
    pc_short_names(names, 2, 12, out);
    check(!strcmp(z, half) == !strcmp(out[0], out[1]));
    check(code_points(out[0]) <= 12 && code_points(out[1]) <= 12);
    free(out[0]), free(out[1]), free(z), free(half);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *s = (const char *)data;
    csv(s, size);
    md_code(s, size);
    html(s, size);
    utf8(s, size);
    md_text(s, size);
    short_names(s, size);
    return 0;
}
