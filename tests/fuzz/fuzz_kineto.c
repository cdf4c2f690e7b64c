/* libFuzzer target: the Kineto loader and the analyzers on arbitrary bytes.
 * Any input must give 0 or a PC_E* code, never a crash, hang or leak. */
#include "analyze/analyze.h"
#include "load/load.h"
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pc_trace *t = NULL;
    pc_err err;
    if (pc_load_kineto_mem((const char *)data, size, &t, &err) == 0) {
        cJSON *s = pc_analyze(t, NULL);
        cJSON_Delete(s);
        pc_trace_free(t);
    }
    return 0;
}
