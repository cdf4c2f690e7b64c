/* libFuzzer target: the MindSpore reader. The first byte picks which profiler
 * file the rest of the input is (step trace, timeline, CPU utilization, data
 * queues, pipeline, GPU operator/kernel/type tables); it is written alone into
 * a directory that pc_load then reads, and the analyzers run on the result. */
#include "analyze/analyze.h"
#include "load/load.h"
#include "fuzz_common.h"
#include "summary/summary.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const files[] = {
    "step_trace_raw_0_detail_time.csv", "gpu_timeline_display_0.json", "minddata_cpu_utilization_0.json",
    "device_queue_profiling_0.txt",     "dataset_iterator_profiling_0.txt", "minddata_pipeline_raw_0.csv",
    "gpu_op_detail_info_0.csv",         "gpu_activity_data_0.csv",     "gpu_op_type_info_0.csv"};
enum { NFILES = sizeof files / sizeof *files };
static char dir[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/perfcard-fuzz-ms-XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    if (size < 1) return 0;
    char path[160];
    for (int i = 0; i < NFILES; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/%s", dir, files[data[0] % NFILES]);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size > 1) fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    pc_trace *t = NULL;
    pc_err err;
    if (pc_load(dir, NULL, &t, &err) == 0) {
        fuzz_analyze_check(t);
    }
    return 0;
}
