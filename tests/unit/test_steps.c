/* Steps, phases and the GPU time breakdown on a hand-made trace whose
 * answers are worked out on paper below. Times in µs.
 *
 * Step 1 [0, 1000): data loading 0-200; forward aten::mm 250-300 (launch
 * 260-265) -> kernel K1 300-400; backward evaluate_function 500-600 with mm
 * 505-550 (launch 520-525) -> K2 600-800; nccl:all_reduce 640-660 (launch
 * 650-655) -> NCCL kernel on stream 9 700-900; optimizer 900-950 (launch
 * 910-915) -> K3 950-980.
 *   phases: fp_start 300 (K1), bp_end 800 (K2): interval 300, fp+bp 500, tail 200
 *   timeline: 0-200 data, 200-250 other, 250-260 cpu, 260-265 runtime,
 *   265-300 cpu, 300-400 kernel, 400-500 other, 500-520 cpu, 520-525 runtime,
 *   525-600 cpu, 600-800 kernel, 800-900 communication, 900-910 cpu,
 *   910-915 runtime, 915-950 cpu, 950-980 kernel, 980-1000 other
 *   => kernel 330, communication 100, runtime 15, data 200, cpu 185, other 170
 *   communication: NCCL 200, of which 100 overlaps K2 (another stream)
 * Step 2 [1000, 2000): no kernels; aten::add 1100-1200 (forward only):
 *   phases on the CPU: interval 100, fp+bp 100, tail 800. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"

#define OP(name, tid, ts, dur) "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":" #dur "},\n"
#define RT(tid, ts, corr) "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":5,\"args\":{\"correlation\":" #corr "}},\n"
#define K(name, stream, ts, dur, corr) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":" #stream ",\"correlation\":" #corr "}},\n"

static const char STEPS[] = "{\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":200},\n"
    OP("aten::mm", 1, 250, 50) RT(1, 260, 1) K("K1", 7, 300, 100, 1)
    OP("autograd::engine::evaluate_function: MmBackward0", 2, 500, 100) OP("aten::mm", 2, 505, 45) RT(2, 520, 2) K("K2", 7, 600, 200, 2)
    OP("nccl:all_reduce", 1, 640, 20) RT(1, 650, 3) K("ncclKernel_AllReduce_RING_LL_Sum_float", 9, 700, 200, 3)
    OP("Optimizer.step#SGD.step", 1, 900, 50) RT(1, 910, 4) K("K3", 7, 950, 30, 4)
    OP("aten::add", 1, 1100, 100)
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n"
    "]}";

static cJSON *analyze_str(const char *doc, const pc_analyze_opts *o) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load_kineto_mem(doc, strlen(doc), &t, &err)) return NULL;
    cJSON *s = analyze_json(t, o);
    pc_trace_free(t);
    return s;
}

TEST(steps_phases_and_breakdown_known_answers) {
    cJSON *s = analyze_str(STEPS, NULL);
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", ""), "ProfilerStep#N or perfcard.step#N ranges");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 2);
    const cJSON *a = sj_get(s, "steps.rows.0"), *b = sj_get(s, "steps.rows.1");
    CHECK_EQ_I(sj_getnum(a, "duration_ns", -1), 1000000);
    CHECK_EQ_I(sj_getnum(a, "iteration_interval_ns", -1), 300000);
    CHECK_EQ_I(sj_getnum(a, "fp_bp_ns", -1), 500000);
    CHECK_EQ_I(sj_getnum(a, "tail_ns", -1), 200000);
    CHECK_EQ_S(sj_getstr(a, "phase_basis", ""), "gpu");
    CHECK_EQ_I(sj_getnum(a, "breakdown.kernel_ns", -1), 330000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.communication_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.runtime_ns", -1), 15000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.dataloader_ns", -1), 200000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.cpu_op_ns", -1), 185000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.other_ns", -1), 170000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.memcpy_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(a, "data_wait_ns", -1), 200000);
    CHECK_NEAR(sj_getnum(a, "data_wait_pct", -1), 20, 1e-9);
    CHECK_EQ_I(sj_getnum(a, "communication_ns", -1), 200000);
    CHECK_EQ_I(sj_getnum(a, "communication_overlap_ns", -1), 100000);
    /* a step without kernels: phases from CPU operators */
    CHECK_EQ_S(sj_getstr(b, "phase_basis", ""), "cpu");
    CHECK_EQ_I(sj_getnum(b, "iteration_interval_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(b, "fp_bp_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(b, "tail_ns", -1), 800000);
    CHECK_EQ_I(sj_getnum(b, "breakdown.kernel_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(b, "breakdown.cpu_op_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(b, "breakdown.other_ns", -1), 900000);
    /* every step: phases and breakdown sum to the duration */
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "steps.rows")) {
        double d = sj_getnum(r, "duration_ns", 0);
        CHECK_NEAR(sj_getnum(r, "iteration_interval_ns", 0) + sj_getnum(r, "fp_bp_ns", 0) + sj_getnum(r, "tail_ns", 0), d, 0);
        double sum = 0;
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "breakdown")) sum += x->valuedouble;
        CHECK_NEAR(sum, d, 0);
    }
    CHECK_EQ_I(sj_getnum(s, "dataloader.steps_over_5pct", -1), 1);
    CHECK_NEAR(sj_getnum(s, "communication.overlap_pct", -1), 50, 1e-9);
    CHECK_NEAR(sj_getnum(s, "steps.average.duration_ns", -1), 1000000, 0);
    CHECK_NEAR(sj_getnum(s, "steps.average_without_first.tail_ns", -1), 800000, 0);
    /* GPU: kernels busy 300-400, 600-900, 950-980 in [0, 2000): 430 of 2000 */
    CHECK_NEAR(sj_getnum(s, "gpu.devices.0.utilization_pct", -1), 100.0 * 430 / 2000, 1e-9);
    cJSON_Delete(s);
}

TEST(steps_fp_bp_points_from_options) {
    pc_analyze_opts o = {.fp_point = "Optimizer.step#SGD.step", .bp_point = "Optimizer.step#SGD.step"};
    cJSON *s = analyze_str(STEPS, &o);
    CHECK(s);
    /* fp = start of K3 (950), bp = end of K3 (980) */
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.iteration_interval_ns", -1), 950000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.fp_bp_ns", -1), 30000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.tail_ns", -1), 20000);
    cJSON_Delete(s);
}

TEST(steps_host_bound_step_keeps_its_range) {
    const char *doc = "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
        OP("aten::mm", 1, 80, 15) RT(1, 85, 1) K("late", 7, 120, 30, 1)
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":160,\"dur\":10}\n"
        "]}";
    cJSON *s = analyze_str(doc, NULL);
    CHECK(s);
    /* #44 item 2: a step ends when its GPU work ends only when the GPU bounds
     * it; this one is host-bound, so its window stays its range (#32's rule,
     * which this test encoded for every step as
     * steps_gpu_work_does_not_extend_its_step): step 1's GPU work is the
     * kernel 120-150, gpu_ns = 150 - max(0, 120) = 30 µs against the host's
     * 100: bound host, margin 70. Step 2 launches nothing: gpu_ns 0, margin
     * 100. Windows 0-100 and 100-200 (before #32: step 1 ran until its kernel
     * ended at 150 and step 2 started there). The kernel
     * step 1 launched ends 150 - 100 = 50 µs after its range: the GPU's lag.
     * Step 1's phases come from its kernel, which starts after the window:
     * interval 0-100 = 100 µs, forward 0, tail 0. */
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.gpu_lag_ns", -1), 50000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.iteration_interval_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.fp_bp_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.start_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.duration_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.gpu_lag_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "steps.gpu_lag_max_ns", -1), 50000);
    CHECK_EQ_I(sj_getnum(s, "steps.gpu_lag_ns", -1), 25000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.host_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.gpu_ns", -1), 30000);
    CHECK_EQ_S(sj_getstr(s, "steps.rows.0.bound", ""), "host");
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.margin_ns", -1), 70000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.gpu_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.margin_ns", -1), 100000);
    CHECK_EQ_S(sj_getstr(s, "steps.bound", ""), "host");
    CHECK_NEAR(sj_getnum(s, "steps.margin_ns", -1), 85000, 0);
    cJSON_Delete(s);
}

TEST(steps_none_is_one_window_and_pattern) {
    const char *doc = "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_iter_1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_iter_2\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":70},\n"
        OP("aten::add", 1, 10, 10)
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":10}\n"
        "]}";
    cJSON *s = analyze_str(doc, NULL);
    CHECK(s);
    CHECK(cJSON_IsNull(sj_get(s, "steps.source")));
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 120000);
    cJSON_Delete(s);
    pc_analyze_opts o = {.step_pattern = "^train_iter_[0-9]+$"};
    s = analyze_str(doc, &o);
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.number", -1), 2); /* no '#N': the position */
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.duration_ns", -1), 70000);
    cJSON_Delete(s);
    pc_analyze_opts bad = {.step_pattern = "(["};
    s = analyze_str(doc, &bad);
    CHECK(sj_getstr(s, "steps.warning", NULL) != NULL);
    cJSON_Delete(s);
}

TEST(counters_cpu_and_queue) {
    const char *doc = "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
        "{\"ph\":\"C\",\"name\":\"cpu\",\"pid\":1,\"ts\":10,\"args\":{\"user\":40,\"system\":10,\"iowait\":0,\"idle\":50,\"process\":30}},\n"
        "{\"ph\":\"C\",\"name\":\"cpu\",\"pid\":1,\"ts\":110,\"args\":{\"user\":60,\"system\":20,\"iowait\":5,\"idle\":15,\"process\":50}},\n"
        "{\"ph\":\"C\",\"name\":\"queue:train\",\"pid\":1,\"ts\":20,\"args\":{\"size\":3,\"capacity\":8}},\n"
        "{\"ph\":\"C\",\"name\":\"queue:train\",\"pid\":1,\"ts\":120,\"args\":{\"size\":0,\"capacity\":8}},\n"
        "{\"ph\":\"C\",\"name\":\"queue:train\",\"pid\":1,\"ts\":150,\"args\":{\"size\":2,\"capacity\":8}}\n"
        "]}";
    cJSON *s = analyze_str(doc, NULL);
    CHECK(s);
    CHECK(cJSON_IsTrue(sj_get(s, "cpu.present")));
    CHECK_EQ_I(sj_getnum(s, "cpu.samples", -1), 2);
    CHECK_NEAR(sj_getnum(s, "cpu.average.user", -1), 50, 1e-9);
    CHECK_NEAR(sj_getnum(s, "cpu.average.process", -1), 40, 1e-9);
    CHECK_NEAR(sj_getnum(s, "cpu.per_step.1.system", -1), 20, 1e-9);
    CHECK_EQ_S(sj_getstr(s, "queues.rows.0.name", ""), "train");
    CHECK_EQ_I(sj_getnum(s, "queues.rows.0.samples", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "queues.rows.0.empty_steps", -1), 1);
    CHECK_NEAR(sj_getnum(s, "queues.rows.0.empty_steps_pct", -1), 50, 1e-9);
    CHECK_NEAR(sj_getnum(s, "queues.rows.0.capacity", -1), 8, 0);
    cJSON_Delete(s);
    /* and a trace without samples says so */
    s = analyze_str(STEPS, NULL);
    CHECK(cJSON_IsFalse(sj_get(s, "cpu.present")));
    CHECK(strstr(sj_getstr(s, "cpu.missing", ""), "perfcard capture") != NULL);
    cJSON_Delete(s);
}

/* Steps from a repeating marker in a trace without step ranges (#32 class 3;
 * the rule: steps.c's header, tests/expectations/marker_steps.py).
 * tests/fixtures/marker_steps.json, times in µs: cudaMalloc 0-1500 (start-up);
 * the DataLoader `__next__` marker starts at 2000, 14000, 22000, 30000, 40000
 * (each lasts 1000, the one at 30000 3000: a slow batch); after each marker
 * (start b, duration d) aten::mm launches gemm_k (b+d+300, 2000) and aten::relu
 * relu_k (b+d+2300, 1000); the first iteration also launches warm_k (6400-6900).
 *   5 markers -> 4 iterations [2000,14000) [14000,22000) [22000,30000) [30000,40000);
 *   the range from 40000 has no end: no iteration. Warm-up: the first, 12000 from
 *   2000 (the cudaMalloc at 0 is the trace's start). Steps 2, 3, 4: 8000, 8000,
 *   10000 -> median 8000, max 10000 (with the warm-up they would be 9000 and 12000).
 *   GPU work launched per step 2, 2, 2 (the warm-up 3): regular.
 *   Data wait per step 1000, 1000, 3000: mean 1666.67 (19.2% of the 8666.67 mean
 *   step) -> data_loading; spans' mean - median = 666.67 = step_variance's stake,
 *   and the data wait's mean - median (666.67) is >= half of it -> it overlaps
 *   data_loading.
 * A decoy `log` range at 3500, 15500, 16000, 32000 holds 1 and 2 launches in its
 * two steps [15500,16000) [16000,32000) (median 1.5, neither within 10%): not
 * regular. With the marker renamed `iter` (no DataLoader preference), `log`
 * would win on fewer occurrences (4 < 5) were it regular: `iter` must. */
TEST(steps_from_repeating_marker) {
    cJSON *s = fixture_summary("tests/fixtures/marker_steps.json");
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", NULL), "markers: enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "steps.marker_count", -1), 5);
    CHECK_EQ_I(sj_getnum(s, "steps.warmup_ns", -1), 12000000);
    CHECK_EQ_I(sj_getnum(s, "steps.warmup_start_ns", -1), 2000000);
    CHECK_EQ_I(sj_getnum(s, "steps.median_ns", -1), 8000000);
    CHECK_EQ_I(sj_getnum(s, "steps.max_ns", -1), 10000000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.number", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.start_ns", -1), 14000000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.2.duration_ns", -1), 10000000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.2.data_wait_ns", -1), 3000000);
    CHECK_NEAR(sj_getnum(s, "steps.rows.1.breakdown.kernel_ns", -1), 3000000, 0.5);
    CHECK_NEAR(sj_getnum(s, "dataloader.avg_wait_ns", -1), 5000000.0 / 3, 1);
    const cJSON *dl = finding_of(s, "data_loading"), *sv = finding_of(s, "step_variance");
    CHECK(dl && sv);
    CHECK(!finding_of(s, "startup")); /* the start-up is before the steps: no step's */
    CHECK_NEAR(sj_getnum(sv, "at_stake_ns", -1), 2000000.0 / 3, 1);
    CHECK_EQ_S(sj_getstr(sv, "overlaps", NULL), "data_loading");
    cJSON_Delete(s);
    /* the same trace with the marker named `iter`: the irregular `log` is no marker */
    FILE *f = fopen("tests/fixtures/marker_steps.json", "rb");
    CHECK(f);
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *dln = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
    for (char *p; (p = strstr(buf, dln));) {
        memcpy(p, "iter", 4);
        memmove(p + 4, p + strlen(dln), strlen(p + strlen(dln)) + 1);
    }
    s = analyze_str(buf, NULL);
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", NULL), "markers: iter");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    cJSON_Delete(s);
    /* --step-pattern is the user's word: no markers then */
    pc_analyze_opts o = {.step_pattern = "^nothing$"};
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load("tests/fixtures/marker_steps.json", NULL, &t, &err) == 0);
    s = analyze_json(t, &o);
    pc_trace_free(t);
    CHECK(cJSON_IsNull(sj_get(s, "steps.source")));
    cJSON_Delete(s);
}
