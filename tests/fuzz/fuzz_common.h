/* fuzz_common.h - shared by the reader targets: analyze a loaded trace and
 * check the property every summary must have (its text reads back through
 * perfcard's own validator, and written again is the same text); frees the
 * trace. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include "analyze/analyze.h"
#include "summary/summary.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/sbuf.h"

static void fuzz_analyze_check(pc_trace *t) {
    pc_summary *s = pc_analyze(t, NULL), *back = NULL;
    sbuf a = {0}, b = {0};
    pc_summary_text(s, &a);
    char note[256] = "";
    pc_err verr = {0};
    if (pc_summary_parse(a.data, a.len, &back, note, sizeof note, &verr) || note[0]) {
        fprintf(stderr, "summary does not validate: %s%s\n", verr.msg, note);
        abort();
    }
    /* and reads back exactly: the same text again */
    pc_summary_text(back, &b);
    if (a.len != b.len || memcmp(a.data, b.data, a.len)) {
        fprintf(stderr, "summary does not read back as written (FUZZ_DUMP=DIR writes both)\n");
        const char *dump = getenv("FUZZ_DUMP");
        if (dump) {
            char p[4096];
            snprintf(p, sizeof p, "%s/written.json", dump);
            FILE *f = fopen(p, "w");
            if (f) fwrite(a.data, 1, a.len, f), fclose(f);
            snprintf(p, sizeof p, "%s/read_back.json", dump);
            f = fopen(p, "w");
            if (f) fwrite(b.data, 1, b.len, f), fclose(f);
        }
        abort();
    }
    sbuf_free(&a);
    sbuf_free(&b);
    pc_summary_free(back);
    pc_summary_free(s);
    pc_trace_free(t);
}
#endif
