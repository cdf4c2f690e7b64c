/* #44 items 2 and 3: steps that end with their GPU work, and steps from
 * serving markers, on hand-made traces whose answers are worked out below.
 * Times in µs. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"

#define ANN(name, ts, dur) "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur "},\n"
#define RT(ts, corr) "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":1,\"args\":{\"correlation\":" #corr "}},\n"
#define K(name, ts, dur, corr) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":7,\"correlation\":" #corr "}},\n"
#define END "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n]}"

static cJSON *analyze_doc(const char *doc) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load_kineto_mem(doc, strlen(doc), &t, &err)) return NULL;
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    return s;
}

/* (a) A GPU-bound loop, the host 17 µs ahead per step. ProfilerStep#k is
 * [112(k-1), 112k): the host needs 112 µs a step. Each step launches one
 * 129 µs kernel at 112(k-1)+1 (the call lasts 1 µs) on one stream:
 *   K1 2-131 (starts 1 µs after its call), K2 131-260, K3 260-389 (each
 *   queued behind the previous one).
 * Step 1: window [0, 131): it starts at its range's start, nothing was
 *   launched before it; gpu_ns = 131 - max(0, 2) = 129 > host 112: GPU-bound,
 *   its window ends at K1's end, 131 (the host's lead of 2 µs before K1 is in
 *   the window). Margin 129 - 112 = 17.
 * Step 2: its range starts at 112, inside step 1's window: the window starts
 *   at 131 (step 1's end); the GPU finished the earlier work (K1) at 131, not
 *   after the window's start: not held back. gpu_ns = 260 - max(131, 131,
 *   131) = 129 > 112: window [131, 260) = 129: the GPU's time per step, the
 *   loop's steady state. Step 3 alike: [260, 389) = 129.
 * Means: host 112, GPU 129, bound gpu, margin 17; 3 GPU-bound steps; median
 * window 129; the windows sum to 389, the wall time from 0 to K3's end.
 * Critical path of step 2: it ends on K2 (the GPU ends the step), 129 µs of
 * kernel, the whole window; before #44 the window was the range 112-224 and
 * the path ran through the host. */
static const char GPU_BOUND[] = "{\"traceEvents\": [\n"
    ANN("ProfilerStep#1", 0, 112) ANN("ProfilerStep#2", 112, 112) ANN("ProfilerStep#3", 224, 112)
    RT(1, 1) K("gemm_k", 2, 129, 1)
    RT(113, 2) K("gemm_k", 131, 129, 2)
    RT(225, 3) K("gemm_k", 260, 129, 3)
    END;

TEST(gpu_steps_gpu_bound_step_ends_with_its_gpu_work) {
    cJSON *s = analyze_doc(GPU_BOUND);
    CHECK(s);
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    static const double start[3] = {0, 131000, 260000}, dur[3] = {131000, 129000, 129000};
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(sj_get(s, "steps.rows"), i);
        CHECK(r);
        CHECK_EQ_I(sj_getnum(r, "start_ns", -1), start[i]);
        CHECK_EQ_I(sj_getnum(r, "duration_ns", -1), dur[i]);
        CHECK_EQ_I(sj_getnum(r, "host_ns", -1), 112000);
        CHECK_EQ_I(sj_getnum(r, "gpu_ns", -1), 129000);
        CHECK_EQ_S(sj_getstr(r, "bound", ""), "gpu");
        CHECK_EQ_I(sj_getnum(r, "margin_ns", -1), 17000);
    }
    CHECK_NEAR(sj_getnum(s, "steps.host_ns", -1), 112000, 0);
    CHECK_NEAR(sj_getnum(s, "steps.gpu_ns", -1), 129000, 0);
    CHECK_EQ_S(sj_getstr(s, "steps.bound", ""), "gpu");
    CHECK_NEAR(sj_getnum(s, "steps.margin_ns", -1), 17000, 0);
    CHECK_EQ_I(sj_getnum(s, "steps.gpu_bound_steps", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "steps.median_ns", -1), 129000);
    double sum = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, sj_get(s, "steps.durations_ns")) sum += d->valuedouble;
    CHECK_NEAR(sum, 389000, 0);
    /* the critical path of step 2 is its kernel */
    const cJSON *p = cJSON_GetArrayItem(sj_get(s, "critical_path.by_step"), 1);
    CHECK(p);
    CHECK_EQ_I(sj_getnum(p, "measured_ns", -1), 129000);
    CHECK_EQ_I(sj_getnum(p, "replayed_ns", -1), 129000);
    CHECK_EQ_I(sj_getnum(p, "kernel_ns", -1), 129000);
    CHECK_EQ_I(sj_getnum(p, "host_ns", -1), 0);
    cJSON_Delete(s);
}

/* (b) A serving capture without ProfilerStep ranges: 8 execute_model ranges
 * (vLLM's), each holding a "prefill" or "decode" NVTX-style range (the
 * kind) and one kernel launched 10 µs in, running 20-60 µs in (inside the
 * range: host-bound, windows are the ranges). Starts 0, 1000, ..., 7000:
 *   prefill 300, decode 100, decode 110, prefill 400, decode 120,
 *   decode 130, prefill 500, decode 140.
 * 8 steps (none is warm-up: each batch is a step), never one window.
 * prefill: 3 steps, mean 400, median 400, p90 (nearest rank: ceil(2.7) = 3rd)
 * 500; decode: 5, mean 120, median 120, p90 (ceil(4.5) = 5th) 140. */
#define BATCH(ts, dur, kind, launch, kts, corr) ANN("execute_model", ts, dur) ANN(kind, ts, 5) RT(launch, corr) K("attn_k", kts, 40, corr)
static const char SERVING[] = "{\"traceEvents\": [\n"
    BATCH(0, 300, "prefill", 10, 20, 1)
    BATCH(1000, 100, "decode", 1010, 1020, 2)
    BATCH(2000, 110, "decode", 2010, 2020, 3)
    BATCH(3000, 400, "prefill", 3010, 3020, 4)
    BATCH(4000, 120, "decode", 4010, 4020, 5)
    BATCH(5000, 130, "decode", 5010, 5020, 6)
    BATCH(6000, 500, "prefill", 6010, 6020, 7)
    BATCH(7000, 140, "decode", 7010, 7020, 8)
    END;

TEST(gpu_steps_serving_markers_prefill_and_decode) {
    cJSON *s = analyze_doc(SERVING);
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", ""), "serving markers: execute_model");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 8);
    static const char *const kind[8] = {"prefill", "decode", "decode", "prefill", "decode", "decode", "prefill", "decode"};
    static const double dur[8] = {300000, 100000, 110000, 400000, 120000, 130000, 500000, 140000};
    for (int i = 0; i < 8; i++) {
        const cJSON *r = cJSON_GetArrayItem(sj_get(s, "steps.rows"), i);
        CHECK(r);
        CHECK_EQ_S(sj_getstr(r, "kind", ""), kind[i]);
        CHECK_EQ_I(sj_getnum(r, "duration_ns", -1), dur[i]);
        CHECK_EQ_S(sj_getstr(r, "bound", ""), "host");
    }
    const cJSON *p = sj_get(s, "steps.kinds.0"), *d = sj_get(s, "steps.kinds.1");
    CHECK(p && d);
    CHECK_EQ_S(sj_getstr(p, "kind", ""), "prefill");
    CHECK_EQ_I(sj_getnum(p, "count", -1), 3);
    CHECK_NEAR(sj_getnum(p, "mean_ns", -1), 400000, 0);
    CHECK_EQ_I(sj_getnum(p, "p50_ns", -1), 400000);
    CHECK_EQ_I(sj_getnum(p, "p90_ns", -1), 500000);
    CHECK_EQ_S(sj_getstr(d, "kind", ""), "decode");
    CHECK_EQ_I(sj_getnum(d, "count", -1), 5);
    CHECK_NEAR(sj_getnum(d, "mean_ns", -1), 120000, 0);
    CHECK_EQ_I(sj_getnum(d, "p50_ns", -1), 120000);
    CHECK_EQ_I(sj_getnum(d, "p90_ns", -1), 140000);
    CHECK(!sj_get(s, "steps.kinds.2"));
    cJSON_Delete(s);
}

/* SGLang's batch names carry the kind (EXTEND is its prefill; MIXED is
 * mixed). Two decode batches [0, 50) and [100, 170), an extend batch
 * [200, 500), a mixed one [600, 700), an idle one [800, 810) (a step of no
 * kind: "unknown" in steps.kinds, after the three). Decode: median of 50 and
 * 70 = 60. */
TEST(gpu_steps_sglang_batch_names) {
    static const char doc[] = "{\"traceEvents\": [\n"
        ANN("step[DECODE bs=32]", 0, 50) ANN("step[DECODE bs=32]", 100, 70) ANN("step[EXTEND bs=1 toks=16128]", 200, 300)
        ANN("step[MIXED bs=8]", 600, 100) ANN("step[IDLE bs=0]", 800, 10) END;
    cJSON *s = analyze_doc(doc);
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", ""), "serving markers: SGLang batches (step[...])");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 5);
    CHECK(!sj_getstr(s, "steps.rows.4.kind", NULL));
    CHECK_EQ_S(sj_getstr(s, "steps.kinds.3.kind", ""), "unknown");
    CHECK_EQ_S(sj_getstr(s, "steps.rows.0.kind", ""), "decode");
    CHECK_EQ_S(sj_getstr(s, "steps.rows.2.kind", ""), "prefill");
    CHECK_EQ_S(sj_getstr(s, "steps.rows.3.kind", ""), "mixed");
    CHECK_EQ_I(sj_getnum(s, "steps.kinds.1.count", -1), 2); /* prefill, decode, mixed: decode second */
    CHECK_EQ_I(sj_getnum(s, "steps.kinds.1.p50_ns", -1), 60000);
    cJSON_Delete(s);
}

/* torch.compile with a graph break: each batch calls "Torch-Compiled Region:
 * 0/0" then "1/0"; the entry's calls (0, 200, 400) delimit the steps, the
 * last ending with its call: [0, 200), [200, 400), [400, 520): 200, 200, 120,
 * median 200 (the "1/0" calls at 60, 260, 460 are no steps). */
TEST(gpu_steps_compiled_regions_entry_only) {
    static const char doc[] = "{\"traceEvents\": [\n"
        ANN("Torch-Compiled Region: 0/0", 0, 100) ANN("Torch-Compiled Region: 1/0", 60, 30)
        ANN("Torch-Compiled Region: 0/0", 200, 130) ANN("Torch-Compiled Region: 1/0", 260, 30)
        ANN("Torch-Compiled Region: 0/0", 400, 120) ANN("Torch-Compiled Region: 1/0", 460, 30) END;
    cJSON *s = analyze_doc(doc);
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", ""), "serving markers: Torch-Compiled Region");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.duration_ns", -1), 200000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.2.duration_ns", -1), 120000);
    CHECK_EQ_I(sj_getnum(s, "steps.median_ns", -1), 200000);
    CHECK(!sj_get(s, "steps.kinds"));
    cJSON_Delete(s);
}

/* vLLM v1's stages without an execute_model range: "gpu_model_runner:
 * preprocess" opens each call (at 0, 300, 700), forward and postprocess
 * follow; the preprocess starts delimit the steps, the last ends with the
 * last stage that starts in it (postprocess 880-900): [0, 300), [300, 700),
 * [700, 900): 300, 400, 200 µs. */
TEST(gpu_steps_vllm_v1_stages) {
    static const char doc[] = "{\"traceEvents\": [\n"
        ANN("gpu_model_runner: preprocess", 0, 20) ANN("gpu_model_runner: forward", 20, 200) ANN("gpu_model_runner: postprocess", 220, 20)
        ANN("gpu_model_runner: preprocess", 300, 20) ANN("gpu_model_runner: forward", 320, 300) ANN("gpu_model_runner: postprocess", 620, 20)
        ANN("gpu_model_runner: preprocess", 700, 20) ANN("gpu_model_runner: forward", 720, 160) ANN("gpu_model_runner: postprocess", 880, 20) END;
    cJSON *s = analyze_doc(doc);
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", ""), "serving markers: vLLM's gpu_model_runner stages");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 300000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.duration_ns", -1), 400000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.2.duration_ns", -1), 200000);
    cJSON_Delete(s);
}

/* Work launched before a step that the GPU only begins inside it was queued, not running: it does
 * not move the window's start (SGLang's MI300X decode: a graph launched before step[DECODE bs=32]
 * ran 463 ms into its 465 ms range, and the window read 2.06 ms, its queued idle gone).
 * A kernel launched at 5 (outside every step) runs 900-950; ProfilerStep#1 is [10, 1000) and
 * launches K2 at 20, run 960-990. The GPU ran nothing launched before the step at 10, so the
 * window is the range [10, 1000): 990 us, host-bound (gpu_ns = 990 - max(10, 960, 950) = 30).
 * Running at the step's start instead (K1 at 0-300): the window starts at 300 (earlier work),
 * [300, 1000) = 700 us. Failed before the fix: the first window was [950, 1000) = 50 us. */
static const char QUEUED_BEFORE[] = "{\"traceEvents\": [\n"
    ANN("ProfilerStep#1", 10, 990)
    RT(5, 1) K("graph_node", 900, 50, 1)
    RT(20, 2) K("gemm_k", 960, 30, 2)
    END;
static const char RUNNING_BEFORE[] = "{\"traceEvents\": [\n"
    ANN("ProfilerStep#1", 10, 990)
    RT(0, 1) K("graph_node", 1, 299, 1)
    RT(20, 2) K("gemm_k", 960, 30, 2)
    END;

TEST(gpu_steps_queued_work_before_a_step_keeps_its_start) {
    cJSON *s = analyze_doc(QUEUED_BEFORE);
    CHECK(s);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.start_ns", -1), 5000); /* from the trace's first event, the call at 5 */
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 990000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.gpu_ns", -1), 30000);
    cJSON_Delete(s);
    s = analyze_doc(RUNNING_BEFORE);
    CHECK(s);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.start_ns", -1), 300000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 700000);
    cJSON_Delete(s);
}

/* A serving batch is done when its GPU work is: its window reaches that end whenever no later
 * batch's range begins before it (SGLang's MI300X decode: its graph's kernels ran 8.31 ms past
 * step[DECODE bs=32]'s 465.25 ms range, a window of 473.56 ms, and gpu_kernels' kernels were
 * left out of it). Times in µs, from the trace's first event at 5:
 *   a graph node launched at 5 (before every batch) runs 900-950: queued, the batch held back;
 *   step[DECODE bs=32] [10, 1000) launches K2 at 20, run 960-1030: 30 past its range, and the
 *   next batch begins at 1100: window [10, 1030) = 1020 (it was the range, 990); gpu_ns =
 *   1030 - max(10, 960, 950) = 70, host 990: host-bound, bound and margin unchanged;
 *   step[DECODE bs=32] [1100, 1200) launches K3 at 1110, run 1120-1150: its range, 100.
 * The same trace with ProfilerStep ranges keeps the range (a training step's lag is the next
 * window's earlier work): 990. */
#define SERVING_LAG(S1, S2) "{\"traceEvents\": [\n" \
    ANN(S1, 10, 990) ANN(S2, 1100, 100) \
    RT(5, 1) K("graph_node", 900, 50, 1) \
    RT(20, 2) K("gemm_k", 960, 70, 2) \
    RT(1110, 3) K("gemm_k", 1120, 30, 3) \
    END

TEST(gpu_steps_serving_batch_window_reaches_its_gpu_work) {
    cJSON *s = analyze_doc(SERVING_LAG("step[DECODE bs=32]", "step[DECODE bs=32]"));
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "steps.source", ""), "serving markers: SGLang batches (step[...])");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.start_ns", -1), 5000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 1020000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.gpu_ns", -1), 70000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.host_ns", -1), 990000);
    CHECK_EQ_S(sj_getstr(s, "steps.rows.0.bound", ""), "host");
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.start_ns", -1), 1095000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.duration_ns", -1), 100000);
    cJSON_Delete(s);
    s = analyze_doc(SERVING_LAG("ProfilerStep#1", "ProfilerStep#2"));
    CHECK(s);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 990000);
    cJSON_Delete(s);
}

/* The capture begins while the GPU still runs work launched before it (a GPU-bound loop's earlier
 * steps: the ResNet DDP training on MI300X, 30.08 ms of step 14's kernels and RCCL, 24.3 ms of it
 * communication, before step 15's first op). Those ops link to no launch call in the trace: they
 * are no step's work, and the first window starts once they have ended.
 * ProfilerStep#1 [0, 100), #2 [100, 200). Backlog, no launch (correlations 90, 91 match no call):
 * gemm_k 1-50 (stream 7), ncclDevKernel_Generic 50-120 (stream 9). Step 1 launches gemm_k at 10,
 * run 120-180, and an NCCL kernel at 20, run 150-230; step 2 gemm_k at 110, run 230-290, NCCL at
 * 120, run 260-340.
 * Step 1: first own op 120, backlog ends at 120: window [120, 230) (GPU-bound: gpu_ns 230 - 120 =
 *   110 > host 100), past its range's end; gpu_before = 120 - 0 = 120.
 * Step 2: chained at 230: [230, 340) = 110. Median 110; the windows sum to 220.
 * Communication per window: NCCL 150-230 = 80, of it overlapped by gemm 120-180: 150-180 = 30;
 *   step 2 alike (260-340 = 80, 260-290 = 30): exposed (50 + 50) / 2 = 50 µs per step, NCCL
 *   160 / 220 = 72.7% of the steps. Before the fix step 1 was [0, 230) and held the backlog's
 *   NCCL 50-120 (nothing beside it): exposed (120 + 50) / 2 = 85 µs, step 1 230 µs long. */
#define KS(name, ts, dur, corr, st) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #st ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":" #st ",\"correlation\":" #corr "}},\n"
static const char BACKLOG[] = "{\"traceEvents\": [\n"
    ANN("ProfilerStep#1", 0, 100) ANN("ProfilerStep#2", 100, 100)
    KS("gemm_k", 1, 49, 90, 7) KS("ncclDevKernel_Generic", 50, 70, 91, 9)
    RT(10, 1) KS("gemm_k", 120, 60, 1, 7) RT(20, 2) KS("ncclDevKernel_Generic", 150, 80, 2, 9)
    RT(110, 3) KS("gemm_k", 230, 60, 3, 7) RT(120, 4) KS("ncclDevKernel_Generic", 260, 80, 4, 9)
    END;
/* A stray unlinked op in an idle GPU is no backlog (HTA's negative-queue rank 0: four 1 µs memsets
 * in the 3.4 ms before its first step's first op): ProfilerStep#1 [0, 100), an unlinked 1 µs kernel
 * at 30 (busy 1 of the 31 µs from the step's start: under half), gemm_k launched at 10, run 60-170:
 * gpu_ns 110 > host 100, the window is [0, 170), gpu_before 0 (with it as a backlog: [31, 170)). */
static const char STRAY[] = "{\"traceEvents\": [\n"
    ANN("ProfilerStep#1", 0, 100)
    KS("memset_k", 30, 1, 90, 7)
    RT(10, 1) KS("gemm_k", 60, 110, 1, 7)
    END;

TEST(gpu_steps_backlog_before_the_capture_is_no_steps) {
    cJSON *s = analyze_doc(BACKLOG);
    CHECK(s);
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.start_ns", -1), 120000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 110000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.gpu_ns", -1), 110000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.start_ns", -1), 230000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.duration_ns", -1), 110000);
    CHECK_EQ_I(sj_getnum(s, "steps.gpu_before_ns", -1), 120000);
    CHECK_EQ_I(sj_getnum(s, "steps.median_ns", -1), 110000);
    CHECK_EQ_I(sj_getnum(s, "communication.nccl_ns", -1), 160000);
    CHECK_EQ_I(sj_getnum(s, "communication.overlap_ns", -1), 60000);
    CHECK_NEAR(sj_getnum(s, "communication.pct_of_step", -1), 100.0 * 160 / 220, 1e-9);
    CHECK_NEAR(sj_getnum(finding_of(s, "communication"), "at_stake_ns", -1), 50000, 0.5);
    /* its kernel, per step, in the windows: (80 + 80) / 2 = 80 µs (the capture's (70 + 160) / 2 = 115) */
    CHECK_NEAR(sj_getnum(finding_of(s, "communication"), "contributors.0.ns", -1), 80000, 0.5);
    cJSON_Delete(s);
    s = analyze_doc(STRAY);
    CHECK(s);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.start_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 170000);
    CHECK_EQ_I(sj_getnum(s, "steps.gpu_before_ns", -1), 0);
    cJSON_Delete(s);
}

/* The ResNet DDP training on MI300X (tests/data/real/mi300x-resnet-ddp-train; reading
 * mi300x-resnet-ddp-train.md, written before perfcard ran): the capture opens on 968 GPU ops no
 * traced call launched (step 14's, 24.3 ms of them RCCL) from +31 us to +30.082 ms into
 * ProfilerStep#15. The windows are the GPU periods: 18.980, 18.983, 18.554 ms (the reading's table,
 * mi300x_resnet_ddp_train.py); the RCCL in them 15.865 + 15.909 + 15.426 = 47.200 ms; exposed, against
 * the other kernels, 11.885 + 11.955 + 11.443 ms: 11.761 ms per step (the reading's 11.680 also
 * counts copies and memsets as overlap). Before: step 15 was 49.06 ms and the stake 18.54 ms. */
TEST(gpu_steps_resnet_ddp_backlog_and_exposed_rccl) {
    cJSON *s = fixture_summary("tests/data/real/mi300x-resnet-ddp-train/resnet_act_checkpoint.json.gz");
    if (!s) SKIP("tests/data/real is missing");
    static const double dur[3] = {18.980e6, 18.983e6, 18.554e6};
    for (int i = 0; i < 3; i++) CHECK_NEAR(sj_getnum(cJSON_GetArrayItem(sj_get(s, "steps.rows"), i), "duration_ns", -1), dur[i], 1000);
    CHECK_NEAR(sj_getnum(s, "steps.gpu_before_ns", -1), 30.082e6, 1000);
    CHECK_NEAR(sj_getnum(s, "communication.nccl_ns", -1), 47.200e6, 1000);
    CHECK_NEAR(sj_getnum(finding_of(s, "communication"), "at_stake_ns", -1), (11.885e6 + 11.955e6 + 11.443e6) / 3, 1000);
    CHECK_NEAR(sj_getnum(finding_of(s, "communication"), "contributors.0.ns", -1), 47.200e6 / 3, 1000); /* was 23.84 ms */
    cJSON_Delete(s);
}
