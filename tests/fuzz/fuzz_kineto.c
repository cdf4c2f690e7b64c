/* libFuzzer target: the Kineto loader and the analyzers on arbitrary bytes.
 * Any input must give 0 or a PC_E* code, never a crash, hang or leak. */
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pc_trace *t = NULL;
    pc_err err;
    if (pc_load_kineto_mem((const char *)data, size, &t, &err) == 0) {
        /* property: every summary perfcard makes reads back through its own validator */
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
    return 0;
}
