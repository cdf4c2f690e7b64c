/* libFuzzer target: the Kineto loader and the analyzers on arbitrary bytes.
 * Any input must give 0 or a PC_E* code, never a crash, hang or leak. */
#include "analyze/analyze.h"
#include "load/load.h"
#include "fuzz_common.h"
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
        fuzz_analyze_check(t);
    }
    return 0;
}
