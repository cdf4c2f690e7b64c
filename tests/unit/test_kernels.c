/* Kernel summary against hand-computed figures. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"
#include "util/sbuf.h"
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

/* The whole-trace timeline (#20): lanes GPU first, events [lane, start,
 * duration, name, category, depth] from the trace's start; on a thread's
 * lane every range at its depth of nesting: the step 0, aten::mm inside it
 * 1, aten::inner inside that 2, the launch inside that 3. */
TEST(trace_timeline_lanes_and_events) {
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 30, \"args\": {\"Input Dims\": [[8, 4], [4, 2]]}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::inner\", \"pid\": 1, \"tid\": 1, \"ts\": 112, \"dur\": 10},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 114, \"dur\": 5, \"args\": {\"correlation\": 9}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_k\", \"pid\": 0, \"tid\": 7, \"ts\": 130, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9, \"grid\": [4, 1, 1], \"block\": [128, 1, 1]}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 160, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "trace_timeline.events_total", -1), 6);
    CHECK_EQ_I(sj_getnum(s, "trace_timeline.dropped", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "trace_timeline.span_ns", -1), 100000);
    CHECK_EQ_S(sj_getstr(s, "trace_timeline.lanes.0", ""), "GPU 0 stream 7");
    CHECK_EQ_S(sj_getstr(s, "trace_timeline.lanes.1", ""), "thread 1");
    /* lane 0: the kernel at +30 µs, the copy at +60 µs; lane 1: the step, aten::mm, aten::inner, the launch */
    static const double want[6][4] = {{0, 30000, 20000, 0}, {0, 60000, 4000, 0}, {1, 0, 100000, 0},
                                      {1, 10000, 30000, 1}, {1, 12000, 10000, 2}, {1, 14000, 5000, 3}};
    static const char *const names[6] = {"gemm_k", "Memcpy HtoD (Pinned -> Device)", "ProfilerStep#1", "aten::mm", "aten::inner", "cudaLaunchKernel"};
    /* the arguments a hover shows: the kernel's grid and block, the copy's bytes, aten::mm's shapes */
    static const char *const args[6] = {"grid [4, 1, 1] block [128, 1, 1]", "4096 bytes", NULL, "input shapes [[8,4],[4,2]]", NULL, NULL};
    for (int i = 0; i < 6; i++) {
        char p[64];
        snprintf(p, sizeof p, "trace_timeline.events.%d", i);
        const cJSON *e = sj_get(s, p);
        CHECK_MSG(e && sj_getnum(e, "0", -1) == want[i][0] && sj_getnum(e, "1", -1) == want[i][1] && sj_getnum(e, "2", -1) == want[i][2] &&
                      sj_getnum(e, "5", -1) == want[i][3], "event %d", i);
        snprintf(p, sizeof p, "trace_timeline.names.%d", (int)sj_getnum(e, "3", 0));
        CHECK_EQ_S(sj_getstr(s, p, ""), names[i]);
        int a = (int)sj_getnum(e, "6", -2);
        if (!args[i]) CHECK_EQ_I(a, -1);
        else {
            snprintf(p, sizeof p, "trace_timeline.args.%d", a);
            CHECK_EQ_S(sj_getstr(s, p, ""), args[i]);
        }
    }
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* Past 20,000 events the timeline keeps the longest: 20,010 kernels of 1 to
 * 20,010 µs keep those of 11 µs and more. */
TEST(trace_timeline_keeps_the_longest) {
    sbuf b = {0};
    sbuf_puts(&b, "{\"traceEvents\": [");
    for (int i = 1; i <= 20010; i++)
        sbuf_printf(&b, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7}}",
                    i > 1 ? "," : "", i * 30000, i);
    sbuf_puts(&b, "]}");
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(b.data, b.len, &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "trace_timeline.events_total", -1), 20010);
    CHECK_EQ_I(sj_getnum(s, "trace_timeline.dropped", -1), 10);
    CHECK_EQ_I(sj_getnum(s, "trace_timeline.shortest_kept_ns", -1), 11000);
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(s, "trace_timeline.events")), 20000);
    CHECK_EQ_I(sj_getnum(s, "trace_timeline.events.0.2", -1), 11000); /* in time order: the first kept is the 11 µs one */
    cJSON_Delete(s);
    pc_trace_free(t);
    sbuf_free(&b);
}

/* Where in the code from PyTorch 2's with_stack (#20): python_function ranges
 * around the operators, outermost first; the operator's device time (the
 * kernel it launched) and CPU time on every frame. By hand: train.py's main
 * holds both operators (30 + 10 µs CPU, 20 µs device), model.py's forward the
 * first only. */
TEST(call_stacks_from_python_functions) {
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): main\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(5): forward\", \"pid\": 1, \"tid\": 1, \"ts\": 105, \"dur\": 40},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 30},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 114, \"dur\": 5, \"args\": {\"correlation\": 9}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 160, \"dur\": 10},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_k\", \"pid\": 0, \"tid\": 7, \"ts\": 130, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_S(sj_getstr(s, "call_stacks.source", ""), "python_function ranges around the operators (with_stack=True)");
    CHECK_EQ_I(sj_getnum(s, "call_stacks.operators_with_stack", -1), 2);
    CHECK_EQ_S(sj_getstr(s, "call_stacks.rows.0.frame", ""), "train.py(10): main");
    CHECK_EQ_I(sj_getnum(s, "call_stacks.rows.0.device_ns", -1), 20000);
    CHECK_EQ_I(sj_getnum(s, "call_stacks.rows.0.cpu_ns", -1), 40000);
    CHECK_EQ_S(sj_getstr(s, "call_stacks.rows.1.frame", ""), "model.py(5): forward");
    CHECK_EQ_I(sj_getnum(s, "call_stacks.rows.1.depth", -1), 1);
    CHECK_EQ_I(sj_getnum(s, "call_stacks.rows.1.cpu_ns", -1), 30000);
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* The nn.Module hierarchy (#20) from PyTorch 2's python_function ranges named
 * "nn.Module: NAME": Net_0 holds Linear_0 (aten::mm, 30 us CPU, its 20 us
 * kernel) and ReLU_0 (aten::relu, 10 us CPU, a 5 us kernel); aten::add runs in
 * Net_0 directly (8 us CPU); the frames that are not modules (forward) do not
 * appear. By hand: Net_0 48 us CPU, 25 us device, 3 operators; Linear_0 first
 * among its children (more device time), at depth 1 under row 0. */
TEST(module_tree_from_python_functions) {
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Net_0\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 200},\n"
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(5): forward\", \"pid\": 1, \"tid\": 1, \"ts\": 101, \"dur\": 190},\n"
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: ReLU_0\", \"pid\": 1, \"tid\": 1, \"ts\": 102, \"dur\": 20},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": 105, \"dur\": 10},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 106, \"dur\": 2, \"args\": {\"correlation\": 8}},\n"
        "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Linear_0\", \"pid\": 1, \"tid\": 1, \"ts\": 130, \"dur\": 40},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 135, \"dur\": 30},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 140, \"dur\": 5, \"args\": {\"correlation\": 9}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 8},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"relu_k\", \"pid\": 0, \"tid\": 7, \"ts\": 110, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 8}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_k\", \"pid\": 0, \"tid\": 7, \"ts\": 150, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "call_stacks.operators_in_modules", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "call_stacks.device_ns_in_modules", -1), 25000);
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(s, "call_stacks.module_rows")), 3);
    static const struct { const char *name; int depth, parent; long dev, cpu, calls; } want[] = {
        {"Net_0", 0, -1, 25000, 48000, 3}, {"Linear_0", 1, 0, 20000, 30000, 1}, {"ReLU_0", 1, 0, 5000, 10000, 1}};
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(sj_get(s, "call_stacks.module_rows"), i);
        CHECK_EQ_S(sj_getstr(r, "frame", ""), want[i].name);
        CHECK_EQ_I(sj_getnum(r, "depth", -1), want[i].depth);
        CHECK_EQ_I(sj_getnum(r, "parent", -9), want[i].parent);
        CHECK_EQ_I(sj_getnum(r, "device_ns", -1), want[i].dev);
        CHECK_EQ_I(sj_getnum(r, "cpu_ns", -1), want[i].cpu);
        CHECK_EQ_I(sj_getnum(r, "calls", -1), want[i].calls);
    }
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* Transfers by kind (nvprof's memcpy kinds): a copy's row is its direction and both memory
 * kinds. Device-to-host copies into pageable and into pinned memory are two rows (they were
 * one, labelled by whichever came first, so pageable copies could hide under "Pinned"). By
 * hand: 2 x 1 MB to pageable in 100 + 300 us, 1 x 4 MB to pinned in 200 us. */
TEST(transfers_keep_destination_memory_apart) {
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pinned)\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 200, \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4000000}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pageable)\", \"pid\": 0, \"tid\": 7, \"ts\": 300, \"dur\": 100, \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 1000000}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pageable)\", \"pid\": 0, \"tid\": 7, \"ts\": 500, \"dur\": 300, \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 1000000}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(s, "transfers.rows")), 2);
    CHECK_EQ_S(sj_getstr(s, "transfers.rows.0.kind", ""), "Memcpy DtoH (Device -> Pageable)");
    CHECK_EQ_I(sj_getnum(s, "transfers.rows.0.count", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "transfers.rows.0.bytes", -1), 2000000);
    CHECK_EQ_I(sj_getnum(s, "transfers.rows.0.total_ns", -1), 400000);
    CHECK_EQ_S(sj_getstr(s, "transfers.rows.1.kind", ""), "Memcpy DtoH (Device -> Pinned)");
    CHECK_EQ_I(sj_getnum(s, "transfers.rows.1.bytes", -1), 4000000);
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* four ProfilerSteps of 100 us from 0 (the per-step kernel tests' steps) */
#define STEPS_4x100 \
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},\n" \
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 100},\n" \
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 100},\n" \
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#4\", \"pid\": 1, \"tid\": 1, \"ts\": 300, \"dur\": 100},\n"

/* The same with kernels out of their steps' order (two streams, linked to
 * their launches, so each counts in its launch's step): A launched in step 2
 * runs at 330 us, after A of step 3 (220 us) and before A of step 3's second
 * launch (400 us); step 4's at 420 us. Step 1's is warm-up. Hand (Python's
 * statistics): per counted step 30, 40 + 6 = 46 and 8 us, mean 28,000 ns,
 * SD stdev([30000, 46000, 8000]) = 19,078.784028 ns. Kernels' per-step
 * pairs are found without a map while each kernel's steps come in order
 * (#38); this is the order that needs one: counting the step-3 pair twice
 * (a map made from only the later pairs, or none) gives another SD. */
TEST(kernels_per_step_sd_out_of_order) {
    const char *doc =
        "{\"traceEvents\": [\n"
        STEPS_4x100
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 2, \"args\": {\"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 2, \"args\": {\"correlation\": 2}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 210, \"dur\": 2, \"args\": {\"correlation\": 3}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 215, \"dur\": 2, \"args\": {\"correlation\": 4}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 310, \"dur\": 2, \"args\": {\"correlation\": 5}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 50, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 330, \"dur\": 30, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 2}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 8, \"ts\": 220, \"dur\": 40, \"args\": {\"device\": 0, \"stream\": 8, \"correlation\": 3}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 8, \"ts\": 400, \"dur\": 6, \"args\": {\"device\": 0, \"stream\": 8, \"correlation\": 4}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 8, \"ts\": 420, \"dur\": 8, \"args\": {\"device\": 0, \"stream\": 8, \"correlation\": 5}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.steps_counted", -1), 3);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.name", ""), "A");
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.0.step_mean_ns", -1), 28000, 1e-3);
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.0.step_sd_ns", -1), 19078.784028, 1e-3);
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* Per-step mean and SD of each kernel over the steps after the first (#36):
 * 4 steps of 100 us, kernels unlinked (each counts in the window it starts in).
 * A: step 1 50 us (warm-up, not counted), step 2 10 + 20 = 30 us, step 3 40 us,
 * step 4 none (0), and 7 us after the last step (in no step); B: 5 us in step 2.
 * Hand (Python's statistics): A mean (30 + 40 + 0) / 3 = 23,333.33 ns, SD
 * stdev([30000, 40000, 0]) = 20,816.66 ns; B mean 1,666.67, SD 2,886.75.
 * With 2 steps (one counted) the columns are null. Failed before: no column. */
TEST(kernels_per_step_mean_and_sd) {
    const char *doc =
        "{\"traceEvents\": [\n"
        STEPS_4x100
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 50, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 110, \"dur\": 10, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"B\", \"pid\": 0, \"tid\": 7, \"ts\": 125, \"dur\": 5, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 140, \"dur\": 20, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 210, \"dur\": 40, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 450, \"dur\": 7, \"args\": {\"device\": 0}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.steps_counted", -1), 3);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.name", ""), "A");
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.0.step_mean_ns", -1), 23333.333333, 1e-3);
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.0.step_sd_ns", -1), 20816.659995, 1e-3);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.1.name", ""), "B");
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.1.step_mean_ns", -1), 1666.666667, 1e-3);
    CHECK_NEAR(sj_getnum(s, "kernels.devices.0.rows.1.step_sd_ns", -1), 2886.751346, 1e-3);
    cJSON_Delete(s);
    pc_trace_free(t);
    /* two steps: one counted, no SD */
    const char *two =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 100},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"A\", \"pid\": 0, \"tid\": 7, \"ts\": 110, \"dur\": 10, \"args\": {\"device\": 0}}\n"
        "]}";
    CHECK(pc_load_kineto_mem(two, strlen(two), &t, &err) == 0);
    s = analyze_json(t, NULL);
    CHECK(cJSON_IsNull(sj_get(s, "kernels.steps_counted")));
    CHECK(cJSON_IsNull(sj_get(s, "kernels.devices.0.rows.0.step_sd_ns")));
    cJSON_Delete(s);
    pc_trace_free(t);
}
