/* fuzz_common.h - shared by the reader targets: analyze a loaded trace and
 * check the property every summary must have (it reads back through
 * perfcard's own validator); frees the trace. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include "analyze/analyze.h"
#include "summary/summary.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

static void fuzz_analyze_check(pc_trace *t) {
    cJSON *s = pc_analyze(t, NULL), *back = NULL;
    char note[256];
    pc_err verr = {0};
    if (pc_summary_validate(s, &back, note, sizeof note, &verr) || note[0]) {
        fprintf(stderr, "summary does not validate: %s%s\n", verr.msg, note);
        abort();
    }
    cJSON_Delete(back);
    cJSON_Delete(s);
    pc_trace_free(t);
}
#endif
