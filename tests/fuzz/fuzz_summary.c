/* libFuzzer target: a summary.json from someone else. The validating reader
 * (streamed over the bytes as they are: pc_summary_parse), then every renderer
 * (HTML, Markdown with PNG charts, CSV, e-mail) on what it accepted, into a
 * scratch directory. Properties: what it accepted, written, reads back and
 * writes the same text (whatever perfcard writes, perfcard reads); nothing the
 * renderers write holds a <script that perfcard did not write (the report's
 * own: its code, a job's rank selector, the timelines' data), and no path
 * from the input is ever opened. */
#include "render/report.h"
#include "summary/summary.h"
#include "util/fsutil.h"
#include "util/sbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static size_t count(const char *s, size_t n, const char *pat) {
    size_t c = 0, k = strlen(pat);
    for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), pat, k)); p += k) c++;
    return c;
}

/* s's text reads back, and is written again the same */
static void round_trip(const pc_summary *s) {
    sbuf a = {0}, b = {0};
    pc_summary_text(s, &a);
    pc_summary *back = NULL;
    char note[512];
    pc_err err = {0};
    if (pc_summary_parse(a.data, a.len, &back, note, sizeof note, &err)) {
        fprintf(stderr, "a summary written does not read back: %s\n", err.msg);
        abort();
    }
    pc_summary_text(back, &b);
    if (a.len != b.len || memcmp(a.data, b.data, a.len)) {
        fprintf(stderr, "a summary written reads back otherwise\n");
        abort();
    }
    pc_summary_free(back);
    sbuf_free(&a);
    sbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/perfcard-fuzz-sum-XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    pc_summary *s = NULL;
    char note[512];
    pc_err err = {0};
    if (pc_summary_parse((const char *)data, size, &s, note, sizeof note, &err) == 0) {
        round_trip(s);
        pc_report_opts o = {.dir = dir, .formats = OUT_HTML | OUT_MD | OUT_CSV | OUT_EMAIL};
        if (pc_report_write(s, &o, &err) == 0) {
            char *p = fs_join(dir, "report.html"), *html;
            size_t n;
            if (fs_read_all(p, &html, &n, (size_t)64 << 20, &err) == 0) {
                /* every opening <script is one of the report's own (its code, the rank selector of a
                 * job's report, the timelines' data): the input's text is always escaped */
                if (count(html, n, "<script") != count(html, n, "<script>/* perfcard report") +
                                                    count(html, n, "<script>/* the rank selector:") +
                                                    count(html, n, "<script type=\"application/json\" id=\"tl-data\">") +
                                                    count(html, n, "<script type=\"application/json\" class=\"rk-tl\"")) abort();
                free(html);
            }
            free(p);
        }
        pc_summary_free(s);
    }
    return 0;
}
