/* Kernel summary against hand-computed figures. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"
#include <stdlib.h>

TEST(kernels_summary_per_device) {
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 10, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 200, \"dur\": 20, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 8, \"ts\": 205, \"dur\": 30.5, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"B\", \"pid\": 0, \"tid\": 7, \"ts\": 300, \"dur\": 5, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 1, \"tid\": 7, \"ts\": 300, \"dur\": 7, \"args\": {\"device\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 400, \"dur\": 50}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), 72500); /* 10+20+30.5+5+7 µs; memcpy excluded */
    CHECK_EQ_I(sj_getnum(s, "kernels.calls", -1), 5);
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.device", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.total_ns", -1), 65500);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.name", ""), "A");
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.rows.0.calls", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.rows.0.total_ns", -1), 60500);
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.rows.0.min_ns", -1), 10000);
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.rows.0.max_ns", -1), 30500);
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.0.avg_ns", -1), 60500.0 / 3, 1e-6);
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.0.time_pct", -1), 100.0 * 60500 / 65500, 1e-9);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.1.name", ""), "B");
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.1.device", -1), 1);
    CHECK_NEAR(sj_getnum(s, "kernels.devices.1.rows.0.time_pct", -1), 100, 1e-9);
    CHECK_EQ_S(sj_getstr(s, "schema", ""), "perfcard.summary/1");
    cJSON_Delete(s);
    pc_trace_free(t);
}

TEST(runinfo_counts_and_no_secrets) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(FIX_CURRENT, strlen(FIX_CURRENT), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "run.events.kernel", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "run.events.unknown", -1), 1);
    CHECK_EQ_S(sj_getstr(s, "run.unknown_categories.0.category", ""), "mtia_runtime");
    CHECK_EQ_I(sj_getnum(s, "run.distributed.rank", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "run.distributed.world_size", -1), 8);
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.compute_capability", ""), "9.0");
    /* the span runs from the first event's start to the last one's end */
    CHECK_EQ_I(sj_getnum(s, "run.span_ns", -1), 1712195495520600LL * 1000 - 1712195495519600LL * 1000);
    char *txt = cJSON_PrintUnformatted(s);
    CHECK(strstr(txt, "secret") == NULL); /* traceName is never copied */
    free(txt);
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* summary.json's top-level keys are exactly sections.def's, in its order
 * (read here from the table itself, not from the engine's copy of it) */
TEST(sections_in_table_order) {
    static const char *const keys[] = {"schema",
#define SECTION(key, fn, stage) #key,
#include "analyze/sections.def"
#undef SECTION
                                       NULL};
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(FIX_CURRENT, strlen(FIX_CURRENT), &t, &err) == 0);
    cJSON *j = analyze_json(t, NULL);
    pc_trace_free(t);
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, j) {
        if (!keys[i] || strcmp(x->string, keys[i])) {
            test_fail(__FILE__, __LINE__, "key %d is \"%s\", expected \"%s\"", i, x->string, keys[i] ? keys[i] : "(end)");
            cJSON_Delete(j);
            return;
        }
        i++;
    }
    cJSON_Delete(j);
    CHECK_MSG(!keys[i], "section \"%s\" missing from the summary", keys[i]);
}

/* The Tensor Core label follows the device: a kernel whose name says Tensor
 * Cores ("volta_h884gemm", "sm80_xmma_...") is "no" on a device the trace
 * says is compute capability 6.1 (Pascal has none); on a 7.0 device and on a
 * device without a capability the name decides (docs/tensor-cores.md). */
TEST(kernels_tensor_core_label_follows_compute_capability) {
    const char *doc =
        "{\"deviceProperties\": [{\"id\": 0, \"name\": \"Tesla P100\", \"computeMajor\": 6, \"computeMinor\": 1},\n"
        "                      {\"id\": 1, \"name\": \"Tesla V100\", \"computeMajor\": 7, \"computeMinor\": 0}],\n"
        "\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_h884gemm_64x64_ldg8_nn\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 10, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_h884gemm_64x64_ldg8_nn\", \"pid\": 1, \"tid\": 7, \"ts\": 100, \"dur\": 10, \"args\": {\"device\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_h884gemm_64x64_ldg8_nn\", \"pid\": 2, \"tid\": 7, \"ts\": 100, \"dur\": 10, \"args\": {\"device\": 2}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.device", -1), 0);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.tensor_cores", ""), "no");
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.1.rows.0.tensor_cores", ""), "yes");
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.2.rows.0.tensor_cores", ""), "yes");
    CHECK_EQ_I(sj_getnum(s, "kernels.tensor_core_ns", -1), 20000);
    cJSON_Delete(s);
    pc_trace_free(t);
}
