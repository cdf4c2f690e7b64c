/* Issue #44 items 4 and 5: gpu_kernels (kernels of a GPU-bound step below
 * 70% of their data type's peak, replayed at it with the step ending when its
 * GPU work ends: stakes.h's SK_GPU) and the waterfall of the top findings'
 * fixes (suggestions.waterfall, advice.c). Hand-computed fixtures, then two
 * real traces checked against figures computed without perfcard. */
#include "test.h"
#include "fixtures.h"
#include <stdio.h>
#include <string.h>

/* Two aten::mm of bf16 [4096,4096] x [4096,4096] on an A100 SXM4 40GB (bf16
 * Tensor Core peak 312 TFLOP/s), each kernel 1000 µs (µs below):
 * FLOPs 2 x 4096^3 = 137,438,953,472 -> 137.439 TFLOP/s = 44.0509% of peak.
 * At 70% of peak each takes 1000 x 44.0509 / 70 = 629.299 µs: 370.701 back,
 * 741.402 for the two, off the graph.
 * gpu_bound.json: the host's range 0-1000, launches at 12 and 42, kernels
 * 30-1030 and 1030-2030 (back to back: the second bound by the first). The
 * step ends with its GPU work at 2030; replayed, k1 30-659.299, k2 after it
 * to 1288.598 > the host's 1000: 2030 - 1288.598 = 741.402 given back (the
 * whole off-graph figure: the GPU's margin, 1030, does not cap it).
 * margin.json: the same with the host's range 0-1500: the GPU ends 530 after
 * it; replayed the GPU ends at 1288.598 < 1500, so the host bounds and the
 * stake is the margin, 2030 - 1500 = 530, not 741.402. */
TEST(gpu_kernels_gpu_bound_fixture) {
    double flops = 2.0 * 4096 * 4096 * 4096, pct = 100 * flops / 1000e-6 / 312e12;
    CHECK_NEAR(pct, 44.0509, 1e-4);
    double give = 2 * (1000 - 1000 * pct / 70);
    CHECK_NEAR(give, 741.402, 1e-3);
    cJSON *s = fixture_summary("tests/fixtures/gpu_kernels_gpu_bound.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "gpu_kernels");
    CHECK_MSG(f, "no gpu_kernels finding on a GPU-bound step");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), give * 1000, 1); /* the replay rounds each duration to 1 ns */
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK_EQ_I(sj_getnum(f, "rank", 0), 1);
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "kernel time by family: GEMM 2.00 ms (100.0%)"), "%s", ev);
    CHECK_MSG(strstr(ev, "at 44.1% of their data type's peak"), "%s", ev);
    CHECK_MSG(strstr(ev, "1.26 ms at 70% of it"), "%s", ev); /* 2 x 629.299 */
    CHECK_MSG(!strstr(ev, "host-bound"), "%s", ev);
    /* the shape: 2 x 4096^3 FLOP per call over 1000 µs, 44.05% of 312 TFLOP/s */
    CHECK_EQ_S(sj_getstr(f, "contributors.0.name", ""), "aten::mm [[4096,4096],[4096,4096]] bf16: 44.1% of peak");
    CHECK_NEAR(sj_getnum(f, "contributors.0.ns", -1), 2000000, 0.5);
    cJSON_Delete(s);
    s = fixture_summary("tests/fixtures/gpu_kernels_margin.json");
    CHECK(s);
    f = finding_of(s, "gpu_kernels");
    CHECK(f);
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 530000, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "its work ending 530.0 µs after the host's range"));
    cJSON_Delete(s);
}

/* The same two kernels in a host-bound step (host_bound.json, µs): k1
 * launched at 12 runs 30-1030, the host works until it launches k2 at 3000
 * (3020-4020), the step's range ends at 4900 (GPU busy 2000 of 4900 =
 * 40.8%: over the rule's 40%). Replayed at 70% of peak, k1 ends at 659.299,
 * k2 at 3649.299, both before the host's 4900: nothing given back (0), and
 * the finding says why instead of ranking last at 0.0% with no reason. */
TEST(gpu_kernels_host_bound_fixture) {
    cJSON *s = fixture_summary("tests/fixtures/gpu_kernels_host_bound.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "gpu_kernels");
    CHECK_MSG(f, "no gpu_kernels finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 0, 0.5);
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "the step is host-bound: faster kernels give back nothing until the host's 4.90 ms per step are shortened"), "%s", ev);
    cJSON_Delete(s);
}

/* Three fixes one after another (waterfall.json, µs; an A100): one step
 * 0-20000; aten::mm fp32 [4096,4096]^2 launched at 100-110, its FP32 sgemm
 * (no Tensor Core) 200-10200; cudaDeviceSynchronize 1000-10300 waits for it
 * (returns 100 after); data loading 11000-15000; the range ends at 20000
 * (the end node's gap from 10300: 9700, 4000 of it data loading). The mm
 * runs at 70.48% of the fp32 peak (137.439 / 19.5 TFLOP/s): no gpu_kernels.
 * Alone: no sync wait: sync 1000-1100, host 1100 + 9700 = 10800, kernel ends
 * 10200: 9.2 ms back; Tensor Cores (k1 x 0.5): k1 ends 5200, the sync 5300,
 * host 15000: 5.0 ms; data prefetched: host 16000: 4.0 ms. The ranks (the
 * GPU-free pool caps sync_in_step at 20 - 10 - 4 = 6 ms): sync_in_step 6.0,
 * tensor_cores 5.0, data_loading 4.0.
 * Cumulative: sync: 10800. sync + TC: host 10800 (the sync no longer waits),
 * GPU 5200: 10800, TC adds 0 (the host bounds). + data: host 1100 + 5700 =
 * 6800 > GPU 5200: 6800, data adds 4000. */
TEST(waterfall_three_fixes_fixture) {
    cJSON *s = fixture_summary("tests/fixtures/waterfall.json");
    CHECK(s);
    CHECK(!finding_of(s, "gpu_kernels"));
    const cJSON *w = sj_get(s, "suggestions.waterfall");
    CHECK_EQ_I(cJSON_GetArraySize(w), 3);
    static const char *const rule[] = {"sync_in_step", "tensor_cores", "data_loading"};
    static const double before[] = {20000, 10800, 10800}, after[] = {10800, 10800, 6800}, alone[] = {9200, 5000, 4000};
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(w, i);
        CHECK_EQ_S(sj_getstr(r, "rule", ""), rule[i]);
        CHECK_EQ_I(sj_getnum(r, "rank", 0), i + 1);
        CHECK_NEAR(sj_getnum(r, "step_before_ns", -1), before[i] * 1000, 0.5);
        CHECK_NEAR(sj_getnum(r, "step_ns", -1), after[i] * 1000, 0.5);
        CHECK_NEAR(sj_getnum(r, "adds_ns", -1), (before[i] - after[i]) * 1000, 0.5);
        CHECK_NEAR(sj_getnum(r, "alone_ns", -1), alone[i] * 1000, 0.5);
        CHECK_NEAR(sj_getnum(r, "saving_pct", -1), 100 * (20000 - after[i]) / 20000, 1e-9);
    }
    /* the last row is the top three's combined replay */
    CHECK_NEAR(sj_getnum(s, "suggestions.findings_combined.saving_ns", -1), (20000 - 6800) * 1000, 0.5);
    cJSON_Delete(s);
}

/* The second bottleneck is not hidden (#44 item 5): ResNet-50 FP32 on a V100,
 * no loader workers (../shared/data). Alone, tensor_cores gives back ~3 µs
 * per step (the host bounds: it waits for data); after data loading, the
 * host's gaps, the sync and the memory-bound kernels are fixed the steps are
 * GPU-bound and Tensor Cores give back half of the FP32 convolution and GEMM
 * kernels: tests/expectations/replay_bounds.py (json + gzip, no perfcard code)
 * finds 65.539-65.691 ms of them per step, half 32.770-32.846 ms (median
 * 32.807). The waterfall's tensor_cores row: within 0.1 ms of that median
 * (the row is the mean over the six steps, whose halves lie within 0.04 ms
 * of the median). */
TEST(realdata_waterfall_resnet50_tensor_cores) {
    cJSON *s = fixture_summary("../shared/data/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz");
    if (!s) SKIP("../shared/data is missing");
    const cJSON *tc = NULL, *r;
    cJSON_ArrayForEach(r, sj_get(s, "suggestions.waterfall"))
        if (!strcmp(sj_getstr(r, "rule", ""), "tensor_cores")) tc = r;
    CHECK_MSG(tc, "tensor_cores not in the waterfall");
    CHECK(sj_getnum(tc, "alone_ns", -1) < 10000);
    CHECK_NEAR(sj_getnum(tc, "adds_ns", -1), 32807000, 100000);
    CHECK_EQ_S(sj_getstr(s, "suggestions.waterfall.0.rule", ""), "data_loading");
    CHECK_NEAR(sj_getnum(s, "suggestions.waterfall.0.adds_ns", -1), 58983000, 300000); /* docs/replay.md: 59.26 ms of data loading with nothing else running */
    cJSON_Delete(s);
}

/* SGLang Qwen3-8B prefill on an MI300X (tests/data/real, readings branch):
 * the reading (sglang-mi300x-qwen3-prefill.md, written before perfcard ran)
 * has GEMMs 420.306 ms at 38.8% of the BF16 dense peak and 187.1 ms back at
 * 70% of peak (their time at 70%: 233.2 ms); the GPU's margin over the host
 * (464.7 ms) does not cap it. */
TEST(realdata_gpu_kernels_sglang_prefill) {
    cJSON *s = fixture_summary("tests/data/real/sglang-mi300x-qwen3-prefill/sglang_Qwen3-8B_prefilldecode.json.gz");
    if (!s) SKIP("tests/data/real is missing");
    const cJSON *f = finding_of(s, "gpu_kernels");
    CHECK_MSG(f, "no gpu_kernels finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 187.1e6, 0.2e6); /* the reading rounds to 0.1 ms */
    CHECK(strstr(sj_getstr(f, "evidence", ""), "420.31 ms at 38.8% of their data type's peak"));
    cJSON_Delete(s);
}

/* gpu_kernels with another replayed finding (gpu_kernels_data.json: the
 * GPU-bound fixture above plus data loading 500-900 µs inside the host's
 * gap before its range ends). Data prefetched alone: the host ends at 600
 * but the GPU, held at its measured lag, still ends the step: 0. The
 * waterfall, measured to the GPU's end (a row is gpu_kernels): 2030 ->
 * 1288.598 (gpu_kernels, 741.402) -> 1288.598 (data adds 0: the GPU still
 * ends after the host's 600). findings_combined (both, to the GPU's end, as
 * gpu_kernels' stake): 741.402 µs, the waterfall's second row. */
TEST(waterfall_gpu_kernels_and_data_fixture) {
    cJSON *s = fixture_summary("tests/fixtures/gpu_kernels_data.json");
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "suggestions.waterfall.0.rule", ""), "gpu_kernels");
    CHECK_EQ_S(sj_getstr(s, "suggestions.waterfall.1.rule", ""), "data_loading");
    CHECK_NEAR(sj_getnum(s, "suggestions.waterfall.0.step_before_ns", -1), 2030000, 0.5);
    CHECK_NEAR(sj_getnum(s, "suggestions.waterfall.0.step_ns", -1), 1288598, 1);
    CHECK_NEAR(sj_getnum(s, "suggestions.waterfall.1.adds_ns", -1), 0, 0.5);
    CHECK_NEAR(sj_getnum(s, "suggestions.waterfall.1.alone_ns", -1), 0, 0.5);
    CHECK_EQ_S(sj_getstr(s, "suggestions.findings_combined.rules", ""), "gpu_kernels,data_loading");
    CHECK_NEAR(sj_getnum(s, "suggestions.findings_combined.saving_ns", -1), 741402, 1);
    cJSON_Delete(s);
}
