/* email.c - summary.eml: a MIME message (text and HTML, the PNG charts
 * inline) that sendmail -t or a mail client can send. */
#include "view.h"
#include "plaintext.h"
#include "../summary/summary.h"
#include "../util/fsutil.h"
#include "../util/sbuf.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- e-mail: multipart/related { multipart/alternative { text, html }, PNGs } ---- */

/* The characters of a header value from the user: controls dropped (no line
 * breaks; a TAB becomes a space), invalid UTF-8 repaired. Into *out (free
 * it); whether it is all ASCII. */
static int header_clean(const char *v, sbuf *out) {
    sbuf clean = {0};
    int ascii = 1;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if ((*p < 32 && *p != '\t') || *p == 127) continue;
        sbuf_putc(&clean, *p == '\t' ? ' ' : (char)*p);
        ascii &= *p < 127;
    }
    size_t rn = 0, reps = 0;
    char *fixed = ascii ? NULL : utf8_repair(clean.data, clean.len, &rn, &reps);
    if (fixed) {
        sbuf_free(&clean);
        sbuf_putn(out, fixed, rn);
        free(fixed);
    } else *out = clean;
    return ascii;
}

/* A structured header's value (To's addresses): the characters as given
 * (header_clean; UTF-8 kept as RFC 6532 lets an address hold it, never
 * encoded words, which no address may be), a space after each comma outside
 * a quoted string, folded (CRLF before a space, which unfolding keeps, so the
 * value reads back the same) wherever the line would pass 78 characters. A
 * word longer than a line stays whole on its own line: cmd_report holds each
 * to 254 bytes, so no line passes RFC 5322's 998. col: where the value starts
 * on its line ("To: " is 4). */
static void header_words(sbuf *b, const char *v, size_t col) {
    sbuf t = {0}, sp = {0};
    header_clean(v, &t);
    int quoted = 0;
    for (size_t i = 0; i < t.len; i++) {
        char c = t.data[i];
        quoted ^= c == '"' && (i == 0 || t.data[i - 1] != '\\');
        sbuf_putc(&sp, c);
        if (c == ',' && !quoted && i + 1 < t.len && t.data[i + 1] != ' ') sbuf_putc(&sp, ' ');
    }
    size_t i = 0, n = sp.len, line = col;
    const char *s = sp.data ? sp.data : "";
    while (i < n) {
        size_t ws = i, we;
        while (i < n && s[i] == ' ') i++;
        we = i;
        while (i < n && s[i] != ' ') i++;
        if (line + (i - ws) > 78 && line > 1 && we > ws) {
            sbuf_puts(b, "\r\n");
            line = 0;
        }
        sbuf_putn(b, s + ws, i - ws);
        line += i - ws;
    }
    sbuf_free(&t);
    sbuf_free(&sp);
}

/* An unstructured header's value (Subject): header_clean's characters;
 * printable ASCII as it is when it fits the line and holds no "=?", else RFC
 * 2047 encoded words of at most 75 characters, each of whole UTF-8
 * characters, folded with CRLF SP so that every line stays within 78
 * characters. col: where the value starts on its line ("Subject: " is 9). */
static void header_text(sbuf *b, const char *v, size_t col) {
    sbuf clean = {0};
    int ascii = header_clean(v, &clean);
    const char *t = clean.data ? clean.data : "";
    size_t n = clean.len;
    if (ascii && col + n <= 78 && !strstr(t, "=?")) {
        sbuf_puts(b, t);
        sbuf_free(&clean);
        return;
    }
    /* a word is 12 characters around the base64 of at most 45 bytes (60 characters) */
    size_t i = 0, room = col + 12 < 78 ? (78 - col - 12) / 4 * 3 : 3;
    if (room > 45) room = 45;
    if (room < 3) room = 3;
    do {
        size_t k = i;
        while (k < n) {
            unsigned char c = (unsigned char)t[k];
            size_t cl = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; /* valid UTF-8 after the repair */
            if (k + cl > n) cl = n - k;
            if (k - i + cl > room && k > i) break;
            k += cl;
        }
        if (i) sbuf_puts(b, "\r\n ");
        sbuf_puts(b, "=?utf-8?B?");
        sbuf_base64(b, t + i, k - i, 0);
        sbuf_puts(b, "?=");
        i = k;
        room = 45; /* the next lines: a space, then a word of at most 75 */
    } while (i < n);
    sbuf_free(&clean);
}

/* a chart file this run wrote: "charts/" [a-z0-9_]+ ".png", nothing else is ever opened */
static int own_chart_file(const char *p) {
    if (strncmp(p, "charts/", 7)) return 0;
    p += 7;
    size_t n = strlen(p);
    if (n < 5 || strcmp(p + n - 4, ".png")) return 0;
    for (size_t i = 0; i + 4 < n; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_')) return 0;
    return 1;
}

/* The subject when none is given: the input and its top finding, short
 * ("perfcard: run.json — Matrix products ... Tensor Cores, 29.7% of each
 * step"): the title cut at a word past 64 bytes, "no finding" when none. */
static void default_subject(const pc_summary *s, const char *base, char *out, size_t cap) {
    const tab_suggestion *sg = PC_REC_AT(s, suggestion, 0);
    const char *title = sg ? PC_S(sg->title, "") : "";
    double pct = sg ? PC_OR(sg->at_stake_pct, -1) : -1;
    /* a job with a straggler tells its story first (#47): the job's headline up to its colon */
    const tab_straggler *st = PC_REC(s, straggler);
    const char *jh = PC_S(PC_REC(s, ranks)->headline, "");
    char job[96];
    if (st && tk_true(st->found) && jh[0]) {
        size_t k = strcspn(jh, ":");
        snprintf(job, sizeof job, "%.*s", (int)(k < sizeof job - 1 ? k : sizeof job - 1), jh);
        title = job, pct = 0, sg = sg ? sg : PC_REC_AT(s, suggestion, 0);
    }
    const char *per = tk_true(PC_REC(s, overview)->has_steps) ? "of each step" : "of the trace";
    char t[96];
    size_t n = strlen(title);
    if (n > 64) { /* at the last space within 64 bytes (else at a character's start), then "…" */
        size_t cut = 64;
        while (cut > 32 && title[cut] != ' ') cut--;
        if (title[cut] != ' ')
            for (cut = 64; cut > 0 && ((unsigned char)title[cut] & 0xC0) == 0x80;) cut--;
        while (cut > 0 && (title[cut - 1] == ' ' || title[cut - 1] == ',')) cut--;
        snprintf(t, sizeof t, "%.*s\u2026", (int)cut, title);
    } else snprintf(t, sizeof t, "%s", title);
    if (!sg || !*title) snprintf(out, cap, "perfcard: %s \u2014 no finding", base);
    else if (pct >= 1) snprintf(out, cap, "perfcard: %s \u2014 %s, %.1f%% %s", base, t, pct, per);
    else if (pct > 0) snprintf(out, cap, "perfcard: %s \u2014 no finding costs 1%% %s or more", base, per);
    else snprintf(out, cap, "perfcard: %s \u2014 %s", base, t);
}

int rv_write_email(const pc_summary *s, const cJSON *view, const pc_report_opts *o, const char *md, size_t mdlen, pc_err *err) {
    sbuf html = {0};
    int rc = rv_render_text("email.html", o, view, ESC_HTML, &html, err);
    if (rc) { sbuf_free(&html); return rc; }
    sbuf m = {0};
    char date[64];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tmv);
    sbuf_puts(&m, "From: perfcard <perfcard@localhost>\r\n");
    if (o->email_to) { sbuf_puts(&m, "To: "); header_words(&m, o->email_to, 4); sbuf_puts(&m, "\r\n"); }
    sbuf_puts(&m, "Subject: ");
    char subj[512];
    if (o->email_subject) header_text(&m, o->email_subject, 9); /* whole: header_text folds it */
    else {
        /* the input's file name, as plain word characters: the value may come from someone else's summary */
        const char *in = fs_base_name(PC_S(PC_REC(s, run)->input, ""));
        char base[64];
        size_t k = 0;
        for (const char *p = in; *p && *p != '/' && k + 1 < sizeof base; p++)
            base[k++] = (isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_' || *p == '#') ? *p : '_';
        base[k] = 0;
        default_subject(s, base, subj, sizeof subj);
        header_text(&m, subj, 9);
    }
    sbuf_printf(&m, "\r\nDate: %s\r\nMessage-ID: <perfcard.%ld.%d@localhost>\r\nMIME-Version: 1.0\r\n", date, (long)now, (int)getpid());
    sbuf_puts(&m, "Content-Type: multipart/related; boundary=\"=_perfcard_related\";\r\n type=\"multipart/alternative\"\r\n\r\n");
    sbuf_puts(&m, "This is a MIME message: a text and an HTML version of a perfcard summary.\r\n\r\n");
    sbuf_puts(&m, "--=_perfcard_related\r\nContent-Type: multipart/alternative; boundary=\"=_perfcard_alt\"\r\n\r\n");
    sbuf_puts(&m, "--=_perfcard_alt\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    sbuf txt = {0};
    md_to_text(md, mdlen, &txt);
    sbuf_base64(&m, txt.data ? txt.data : "", txt.len, 1);
    sbuf_free(&txt);
    sbuf_puts(&m, "--=_perfcard_alt\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    sbuf_base64(&m, html.data ? html.data : "", html.len, 1);
    sbuf_puts(&m, "--=_perfcard_alt--\r\n");
    const cJSON *ch;
    cJSON_ArrayForEach(ch, rv_view_charts(view)) {
        const char *png = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ch, "png"));
        const char *cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ch, "cid"));
        if (!png || !cid || !own_chart_file(png)) continue;
        char ref[128];
        snprintf(ref, sizeof ref, "cid:%s", cid);
        if (!html.data || !strstr(html.data, ref)) continue; /* attach only what the HTML shows */
        char *p = fs_join(o->dir, png), *data;
        size_t n;
        rc = fs_read_all(p, &data, &n, (size_t)64 << 20, err);
        free(p);
        if (rc) break;
        sbuf_printf(&m, "--=_perfcard_related\r\nContent-Type: image/png;\r\n name=\"%s.png\"\r\nContent-Transfer-Encoding: base64\r\n"
                        "Content-ID: <%s>\r\nContent-Disposition: inline;\r\n filename=\"%s.png\"\r\n\r\n", ch->string, cid, ch->string);
        sbuf_base64(&m, data, n, 1);
        free(data);
    }
    sbuf_puts(&m, "--=_perfcard_related--\r\n");
    if (!rc) {
        char *p = fs_join(o->dir, "summary.eml");
        rc = fs_write_atomic(p, m.data, m.len, err);
        free(p);
    }
    sbuf_free(&m);
    sbuf_free(&html);
    return rc;
}
