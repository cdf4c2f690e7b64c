/* GPU idle by what ends each gap (#44 item 1; src/analyze/idle.h) on a
 * hand-made trace whose answers are worked out on paper below. Times in µs,
 * one device; launches on host thread 1.
 *
 * Step 1 [0, 1000):
 *   K1 100-200 (launched at 80, its call returning at 82): gap [0, 100) from
 *      the step's start, launched after it began: host-late 100;
 *   K2 300-400 (launched at 50, before the gap [200, 300) began): queued 100;
 *   K3 an NCCL kernel 450-500 (launched at 60): gap [400, 450) a collective:
 *      dependency 50;
 *   K4 700-800, launched at 600 after the gap [500, 700) began (its call
 *      returns at 602, 98 before it starts: under 1 ms, launch latency):
 *      host-late 200;
 *   K5 (stream 8) 1150-1250, launched at 1130 (returning at 1132), after the
 *      gap [800, 1150) began: host-late, 200 of it in step 1, 150 in step 2.
 * Step 2 [1000, 2000):
 *   cudaStreamWaitEvent at 1010, then K6 launched at 1020: K6 1400-1500 ends
 *      the gap [1250, 1400): queued 150 (no kernel runs in the gap, so what
 *      held the event is not in the trace);
 *   K7 1600-1700 (launched at 1030): gap [1500, 1600) queued 100;
 *   a copy 1750-1800 (launched at 1040, before the gap [1700, 1750) it ends
 *      began): queued 50; the copy is the device's work, not idle; K8
 *      1900-1950 (launched at 1045) ends the gap [1800, 1900): queued 100;
 *   K9 1960-1990 (launched at 1050): gap [1950, 1960), 10 < 30: dispatch 10.
 * Step 3 [2000, 4000):
 *   K10 3500-3600, launched at 2100 after the gap [1990, 3500) began, its
 *      call returning at 2102, 1398 before it starts (1 ms or more: the
 *      device held it): host-late [1990, 2102), 10 in step 2 and 102 in
 *      step 3, then queued 1398 (two cudaEventQuery calls in the gap, at
 *      2500 and 3000: over 1 call per ms, no host phase); after K10, the
 *      last kernel: tail 400.
 * Per step: host-late 500 / 160 / 102, queued 100 / 400 / 1398, dependency
 * 50 / 0 / 0, dispatch 0 / 10 / 0, tail 0 / 0 / 400. In the window
 * [0, 4000): host-late 762, queued 1898, dependency 50, dispatch 10, tail
 * 400, start-up 0; kernels busy 830 and the copy 50, so 3120 idle = 762 +
 * 1898 + 50 + 10 + 400. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "analyze/idle.h"
#include "load/load.h"
#include "summary/summary.h"
#include <math.h>
#include <string.h>

#define RTN(name, ts, corr) "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":2,\"args\":{\"correlation\":" #corr "}},\n"
#define RT(ts, corr) RTN("cudaLaunchKernel", ts, corr)
#define KS(name, stream, ts, dur, corr) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":" #stream ",\"correlation\":" #corr "}},\n"
#define K(name, ts, dur, corr) KS(name, 7, ts, dur, corr)

static const char TRACE[] = "{\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,\"ts\":2000,\"dur\":2000},\n"
    RT(80, 1) RT(50, 2) RT(60, 3) RT(600, 4) RTN("cudaStreamWaitEvent", 1010, 100) RT(1020, 6) RT(1030, 7)
    RTN("cudaMemcpyAsync", 1040, 10) RT(1045, 8) RT(1050, 9) RT(1130, 5) RT(2100, 11) RTN("cudaEventQuery", 2500, 101) RTN("cudaEventQuery", 3000, 102)
    K("K1", 100, 100, 1) K("K2", 300, 100, 2) K("ncclKernel_AllReduce_RING_LL_Sum_float", 450, 50, 3) K("K4", 700, 100, 4)
    KS("K5", 8, 1150, 100, 5) K("K6", 1400, 100, 6) K("K7", 1600, 100, 7)
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,\"ts\":1750,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":10,\"bytes\":1048576}},\n"
    K("K8", 1900, 50, 8) K("K9", 1960, 30, 9) K("K10", 3500, 100, 11)
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n"
    "]}";

static cJSON *analyze_doc(void) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load_kineto_mem(TRACE, strlen(TRACE), &t, &err)) return NULL;
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    return s;
}

static double nth(const cJSON *s, const char *path, int i) {
    const cJSON *a = sj_get(s, path);
    const cJSON *x = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, i) : NULL;
    return x && cJSON_IsNumber(x) ? x->valuedouble : -1;
}

TEST(queued_idle_classes_per_step_and_window) {
    cJSON *s = analyze_doc();
    CHECK(s);
    if (!s) return;
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    const char *I = "gpu.devices.0.idle.";
    char p[96];
#define AT(key) (snprintf(p, sizeof p, "%s%s", I, key), sj_getnum(s, p, -1))
    CHECK_EQ_I(AT("total_ns"), 3120000);
    CHECK_EQ_I(AT("host_late_ns"), 762000);
    CHECK_EQ_I(AT("queued_ns"), 1898000);
    CHECK_EQ_I(AT("dependency_ns"), 50000);
    CHECK_EQ_I(AT("dispatch_ns"), 10000);
    CHECK_EQ_I(AT("tail_ns"), 400000);
    CHECK_EQ_I(AT("startup_ns"), 0);
    CHECK_EQ_I(AT("unlinked_ns"), 0);
    CHECK_EQ_I(AT("graph_queued_ns"), 0);
#undef AT
    static const struct { const char *key; double v[3]; } per[] = {
        {"host_late_steps_ns", {500000, 160000, 102000}}, {"queued_steps_ns", {100000, 400000, 1398000}}, {"dependency_steps_ns", {50000, 0, 0}}};
    for (size_t k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) {
            snprintf(p, sizeof p, "%s%s", I, per[k].key);
            CHECK_MSG(nth(s, p, i) == per[k].v[i], "%s[%d] = %.0f, expected %.0f", per[k].key, i, nth(s, p, i), per[k].v[i]);
        }
    /* the findings: queued idle 1898 / 3 = 632.67 µs per step (47% of the 1333.33 µs mean step) is
     * queued_idle's, at that stake; host_wait (HTA's host wait 100 + 200 + 350 + 1510 = 2160 / 3 = 720
     * µs per step, the 1398 µs K10 was held included) takes at most the host-side idle, host-late +
     * tail = 1162 / 3 = 387.33 µs per step: never the queued gaps */
    const cJSON *q = NULL, *hw = NULL, *gu = NULL, *r;
    cJSON_ArrayForEach(r, sj_get(s, "suggestions.rows")) {
        const char *id = sj_getstr(r, "rule", "");
        if (!strcmp(id, "queued_idle")) q = r;
        if (!strcmp(id, "host_wait")) hw = r;
        if (!strcmp(id, "gpu_utilization")) gu = r;
    }
    CHECK_MSG(q && fabs(sj_getnum(q, "at_stake_ns", -1) - 1898000.0 / 3) < 0.5, "queued_idle at %.0f ns", q ? sj_getnum(q, "at_stake_ns", -1) : -1);
    CHECK_MSG(hw, "host_wait did not fire");
    double host = hw ? sj_getnum(hw, "at_stake_ns", -1) : -1, util = gu ? sj_getnum(gu, "at_stake_ns", 0) : 0;
    CHECK_MSG(host > 0 && host <= 1162000.0 / 3 + 0.5, "host_wait at %.0f ns", host);
    CHECK_MSG(host + util <= 1162000.0 / 3 + 0.5, "host_wait %.0f + gpu_utilization %.0f ns exceed the host-side 387.33 µs", host, util);
    cJSON_Delete(s);
}

/* A copy and a memset are the device's work, not idle (idle.h; Holistic
 * Trace Analysis' temporal breakdown counts them as non-compute time): a gap
 * ends at the kernel, copy or memset that ends it, classified by that work's
 * own launch call. One step [0, 1000), times in µs:
 *   K1 100-200 (launched at 50, after the step began): host-late 100;
 *   copy C 300-400 (cudaMemcpyAsync at 250, after the gap [200, 300) began,
 *      returning at 252: 48 before it starts): host-late 100; C busy 100;
 *   K2 450-550 (launched at 120, before the gap [400, 450) began): queued 50
 *      (50 >= 30); the kernels-only timeline made [200, 450) one gap ended
 *      by K2: queued 150 with C's 100 dependency;
 *   memset M 600-610 (cudaMemsetAsync at 130, before the gap [550, 600)):
 *      queued 50; M busy 10;
 *   K3 620-700 (launched at 615, after the gap [610, 620) began): host-late
 *      10, a short one (under 30); the kernels-only timeline made [550, 620)
 *      one host-late gap of 70 with M's 10 in it;
 *   copy P 800-850 from pageable memory (a synchronous cudaMemcpy 690-860,
 *      begun before the gap [700, 800) began and running through it: the
 *      host stages pageable memory inside the call): host-late 100;
 *   tail [850, 1000) 150.
 * Idle: host-late 310 (10 short), queued 100, dependency 0, dispatch 0,
 * tail 150: 560 = 1000 - (K 280 + C 100 + M 10 + P 50). Holistic Trace
 * Analysis' split on the same timeline, by its own rule (the ending work's
 * launch after the gap's start): host wait 100 + 100 = 200 (K1, C), kernel
 * wait 10, other 50 + 50 + 100 + 150 = 350. GPU utilization stays the
 * kernels' (TensorBoard plugin): 280 / 1000 = 28%, so idle is 560, not
 * 720: the copies' 160 are neither. */
static const char COPY_TRACE[] = "{\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    RT(50, 1) RT(120, 3) RTN("cudaMemsetAsync", 130, 4) RTN("cudaMemcpyAsync", 250, 2) RT(615, 5)
    K("K1", 100, 100, 1)
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":2,\"bytes\":1048576}},\n"
    K("K2", 450, 100, 3)
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":600,\"dur\":10,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":4,\"bytes\":4096}},\n"
    K("K3", 620, 80, 5)
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpy\",\"pid\":1,\"tid\":1,\"ts\":690,\"dur\":170,\"args\":{\"correlation\":6}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,\"ts\":800,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":6,\"bytes\":65536}},\n"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n"
    "]}";

TEST(idle_copies_and_memsets_are_busy) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(!pc_load_kineto_mem(COPY_TRACE, strlen(COPY_TRACE), &t, &err));
    if (!t) return;
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    CHECK(s);
    if (!s) return;
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 1);
    CHECK_EQ_I(sj_getnum(s, "gpu.devices.0.busy_ns", -1), 280000);
    CHECK(fabs(sj_getnum(s, "gpu.devices.0.utilization_pct", -1) - 28) < 1e-9);
    static const struct { const char *key; double v; } want[] = {
        {"total_ns", 560000}, {"host_late_ns", 310000}, {"host_late_short_ns", 10000}, {"queued_ns", 100000},
        {"dependency_ns", 0}, {"dispatch_ns", 0}, {"tail_ns", 150000}, {"startup_ns", 0},
        {"host_wait_ns", 200000}, {"kernel_wait_ns", 10000}, {"other_ns", 350000}};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        char p[96];
        snprintf(p, sizeof p, "gpu.devices.0.idle.%s", want[k].key);
        CHECK_MSG(sj_getnum(s, p, -1) == want[k].v, "%s = %.0f, expected %.0f", want[k].key, sj_getnum(s, p, -1), want[k].v);
    }
    CHECK(nth(s, "gpu.devices.0.idle.host_late_steps_ns", 0) == 310000);
    CHECK(nth(s, "gpu.devices.0.idle.queued_steps_ns", 0) == 100000);
    cJSON_Delete(s);
}

TEST(queued_idle_api_names) {
    CHECK(idle_is_graph_launch("cudaGraphLaunch"));
    CHECK(idle_is_graph_launch("cudaGraphLaunch_v10000"));
    CHECK(idle_is_graph_launch("hipGraphLaunch"));
    CHECK(idle_is_graph_launch("cuGraphLaunch"));
    CHECK(!idle_is_graph_launch("cudaGraphLaunchX"));
    CHECK(!idle_is_graph_launch("cudaLaunchKernel"));
}
