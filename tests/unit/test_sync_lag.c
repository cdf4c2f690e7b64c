/* Issue #32, classes 1 and 2, on hand-written Kineto traces
 * (tests/fixtures/sync_*.json, step_*.json): a blocking call costs the GPU
 * idle it causes, and a step's window is its own (the GPU's lag is a figure
 * of its own). The expected values are worked out by hand beside each case. */
#include "test.h"
#include "fixtures.h"
#include "load/load.h"
#include "summary/summary.h"
#include <string.h>


/* One 140 ms step (µs): data loading 0-8000 with the GPU idle; cudaMemcpyAsync (Device -> Pageable,
 * 704 B, in aten::to) blocks 9100-135100 (126 ms) while gemm_k runs 10100-134100 and the copy
 * 134100-135100: the GPU is idle 9100-10100 of it (1.0 ms); at its end the GPU is idle until add_k
 * starts at 135300 (refill 0.2 ms): 1.2 ms of GPU idle, not the 126 ms the host waited. At stake
 * (#37) the replay without the wait: the copy call returns at once (9100), add_ is launched at
 * 9150-9190 and runs max(its launch's end 9190 + 100, the copy's end 135100 + 2) = 135102-135802,
 * while the host's last 4.8 ms end at about 14 ms: the step ends with the GPU at 135802, 4.198 ms
 * earlier (the refill and the host's tail, which now overlap the GPU's work). Data loading (8 ms
 * with the GPU idle, prefetched: 8 ms) and tensor_cores (gemm_k on an H100's FP32 units) rank above. */
TEST(sync_blocking_copy_on_busy_gpu_costs_its_idle) {
    cJSON *s = fixture_summary("tests/fixtures/sync_busy_gpu.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "sync_in_step");
    CHECK_MSG(f, "no sync_in_step finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 4198000, 0.5);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK(strstr(sj_getstr(f, "evidence", ""), "the GPU idle 1.20 ms per step in them"));
    CHECK_MSG(sj_getnum(f, "rank", 0) > 1, "sync_in_step ranked %g", sj_getnum(f, "rank", 0));
    CHECK(strstr(sj_getstr(f, "evidence", ""), "126.00 ms per step blocked"));
    CHECK(strstr(sj_getstr(f, "evidence", ""), "most: cudaMemcpyAsync Device->Pageable, 704 B, in aten::to: 126.00 ms per step"));
    CHECK(strcmp(sj_getstr(s, "suggestions.rows.0.rule", ""), "sync_in_step"));
    cJSON_Delete(s);
}

/* One 50 ms step (µs): cudaDeviceSynchronize 6000-21000 with no GPU work after mm_k ended at 5000;
 * add_k, launched after it, starts at 21500: idle 15.0 ms inside the call + refill 0.5 ms = 15.5 ms
 * (the estimate before #37). The call waits for no GPU work (mm_k ended before it began), so the
 * replay keeps its 15 ms and removing its wait gives back nothing: at stake 0 (#37). */
TEST(sync_on_idle_gpu_costs_call_and_refill) {
    cJSON *s = fixture_summary("tests/fixtures/sync_idle_gpu.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "sync_in_step");
    CHECK_MSG(f, "no sync_in_step finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 0, 0.5);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK(strstr(sj_getstr(f, "evidence", ""), "the GPU idle 15.50 ms per step in them and in the refill after them"));
    CHECK(strstr(sj_getstr(f, "evidence", ""), "replayed without the waits: 0 ns per step given back"));
    CHECK(strstr(sj_getstr(f, "evidence", ""), "most: cudaDeviceSynchronize: 15.00 ms per step"));
    cJSON_Delete(s);
}

/* Three 10 ms steps (µs): ProfilerStep#k is [10000(k-1), 10000k); each launches mm_k at 10000(k-1)+1050,
 * and the GPU runs it 6000-14000, 16000-24000, 26000-34000. Windows are the ranges: 10 ms each (before
 * #32: 14 ms, each stretched to its kernel's end). GPU lag = kernel end - range end = 14000-10000 =
 * 24000-20000 = 34000-30000 = 4 ms, mean and max 4 ms. Phases: step 1: no earlier work, interval
 * 0-6000 = 6 ms, forward 6000-10000 (its kernel clipped to the window) = 4 ms, tail 0. Steps 2 and 3:
 * earlier work (the previous step's kernel) 10000-14000 = 4 ms, interval 14000-16000 = 2 ms, forward
 * 16000-20000 = 4 ms, tail 0; 4 + 2 + 4 + 0 = 10 = the window. Means: interval (6+2+2)/3 =
 * 3.3333 ms, earlier work (0+4+4)/3 = 2.6667 ms; without the first step 2 and 4 ms. The breakdown
 * counts what the GPU ran in the window: step 1 6000-10000 = 4 ms of kernel, steps 2 and 3
 * 4 + 4 = 8 ms. Nothing ran before the first step: gpu_before 0. */
TEST(steps_gpu_lag_is_its_own_figure) {
    cJSON *s = fixture_summary("tests/fixtures/gpu_lags_host.json");
    CHECK(s);
    CHECK_NEAR(sj_getnum(s, "steps.count", -1), 3, 0);
    const double dur[3] = {10e6, 10e6, 10e6}, earlier[3] = {0, 4e6, 4e6}, interval[3] = {6e6, 2e6, 2e6},
                 kern[3] = {4e6, 8e6, 8e6};
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(sj_get(s, "steps.rows"), i);
        CHECK(r);
        CHECK_NEAR(sj_getnum(r, "duration_ns", -1), dur[i], 0.5);
        CHECK_NEAR(sj_getnum(r, "gpu_lag_ns", -1), 4e6, 0.5);
        CHECK_NEAR(sj_getnum(r, "earlier_work_ns", -1), earlier[i], 0.5);
        CHECK_NEAR(sj_getnum(r, "iteration_interval_ns", -1), interval[i], 0.5);
        CHECK_NEAR(sj_getnum(r, "fp_bp_ns", -1), 4e6, 0.5);
        CHECK_NEAR(sj_getnum(r, "tail_ns", -1), 0, 0.5);
        CHECK_NEAR(sj_getnum(r, "breakdown.kernel_ns", -1), kern[i], 0.5);
    }
    CHECK_NEAR(sj_getnum(s, "steps.median_ns", -1), 10e6, 0.5);
    CHECK_NEAR(sj_getnum(s, "steps.gpu_lag_ns", -1), 4e6, 0.5);
    CHECK_NEAR(sj_getnum(s, "steps.gpu_lag_max_ns", -1), 4e6, 0.5);
    CHECK_NEAR(sj_getnum(s, "steps.gpu_before_ns", -1), 0, 0.5);
    CHECK_NEAR(sj_getnum(s, "steps.average.iteration_interval_ns", -1), 10e6 / 3, 1);
    CHECK_NEAR(sj_getnum(s, "steps.average.earlier_work_ns", -1), 8e6 / 3, 1);
    CHECK_NEAR(sj_getnum(s, "steps.average_without_first.iteration_interval_ns", -1), 2e6, 0.5);
    CHECK_NEAR(sj_getnum(s, "steps.average_without_first.earlier_work_ns", -1), 4e6, 0.5);
    cJSON_Delete(s);
}

/* One step (µs): warm_k is launched at 100, before ProfilerStep#5 [500, 30500), and runs 300-14300;
 * the step opens with cudaDeviceSynchronize 600-14300 waiting for it, then aten::conv2d launches
 * fwd_k at 14500, which runs 14600-24600. The window starts once warm_k has ended: 14300-30500 =
 * 16.2 ms (before #32: 500-30500 = 30 ms); the GPU ran earlier work 14300 - 500 = 13.8 ms into the
 * range (gpu_before). Phases: interval 14300-14600 = 0.3 ms (not 14.1 ms), forward 14600-24600 =
 * 10 ms, tail 24600-30500 = 5.9 ms; 0.3 + 10 + 5.9 = 16.2. Kernel time in the window: fwd_k only,
 * 10 ms (not 23.8 ms). fwd_k ends before the range: lag 0. */
TEST(steps_opening_sync_on_earlier_work_is_not_the_steps) {
    cJSON *s = fixture_summary("tests/fixtures/step_opens_with_sync.json");
    CHECK(s);
    const cJSON *r = cJSON_GetArrayItem(sj_get(s, "steps.rows"), 0);
    CHECK(r);
    CHECK_NEAR(sj_getnum(r, "duration_ns", -1), 16.2e6, 0.5);
    CHECK_NEAR(sj_getnum(r, "span_ns", -1), 30e6, 0.5);
    CHECK_NEAR(sj_getnum(r, "earlier_work_ns", -1), 0, 0.5);
    CHECK_NEAR(sj_getnum(r, "iteration_interval_ns", -1), 0.3e6, 0.5);
    CHECK_NEAR(sj_getnum(r, "fp_bp_ns", -1), 10e6, 0.5);
    CHECK_NEAR(sj_getnum(r, "tail_ns", -1), 5.9e6, 0.5);
    CHECK_NEAR(sj_getnum(r, "breakdown.kernel_ns", -1), 10e6, 0.5);
    CHECK_NEAR(sj_getnum(r, "gpu_lag_ns", -1), 0, 0.5);
    CHECK_NEAR(sj_getnum(s, "steps.gpu_before_ns", -1), 13.8e6, 0.5);
    CHECK_NEAR(sj_getnum(s, "steps.gpu_lag_max_ns", -1), 0, 0.5);
    cJSON_Delete(s);
}
