/* Device clocks put back on the host's (model/clock.h), on hand-made inputs.
 *
 * Every fixture holds the same run, times relative to the host's B (ns here;
 * µs in the Kineto one):
 *   launches (cudaLaunchKernel, correlation 1..4): 10000-15000, 30000-35000,
 *     50000-55000, 70000-75000
 *   kernels, true launch latency 8000, 5000, 20000, 6000, each 10000 long:
 *     18000-28000, 35000-45000, 70000-80000 (stream 7), 76000-86000 (stream 8)
 * The device's clock is the host's minus D = 10^5 s: the kernels are stored at
 * 18000, 35000, 70000, 76000 while the launches sit at B + ..., B = D.
 * Worked by hand: every pair has the kernel first (4 of 4); the smallest
 * latency is 5000 - B; the offset (device minus host) is that minus 1000 =
 * 4000 - B, so the kernels move to B + 14000, 31000, 66000, 72000 (latencies
 * 4000, 1000, 16000, 2000). The trace spans B+10000 .. B+82000 = 72000 ns;
 * busy = [14000,24000) + [31000,41000) + [66000,82000) = 36000 ns: 50%. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "model/clock.h"
#include "summary/summary.h"
#include <sqlite3.h>
#include <stdlib.h>

#define B_NS 100000000000000LL /* 10^5 s */

static int exec(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL); }

/* an nvprof export (the tables sqlite_in.c reads) of the run above; host at
 * B + host_ns, device at dev_ns + the kernel times */
static char *nvprof_fixture(const char *name, long long host_ns, long long dev_ns) {
    char *path = tmp_path(name);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return path;
    char sql[4096];
    long long h = B_NS + host_ns, d = dev_ns;
    snprintf(sql, sizeof sql,
             "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT NOT NULL);"
             "INSERT INTO StringTable VALUES (1, 'sgemm_kernel'), (2, 'Tesla P100-PCIE-16GB');"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY, registersPerThread INT, start INT, end INT, "
             "deviceId INT, contextId INT, streamId INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, "
             "staticSharedMemory INT, dynamicSharedMemory INT, correlationId INT, name INT);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start, end, deviceId, streamId, correlationId, name) VALUES "
             "(%lld, %lld, 0, 7, 1, 1), (%lld, %lld, 0, 7, 2, 1), (%lld, %lld, 0, 7, 3, 1), (%lld, %lld, 0, 8, 4, 1);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, cbid INT, start INT, end INT, processId INT, "
             "threadId INT, correlationId INT, returnValue INT);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, threadId, correlationId) VALUES "
             "(211, %lld, %lld, 42, 42, 1), (211, %lld, %lld, 42, 42, 2), (211, %lld, %lld, 42, 42, 3), (211, %lld, %lld, 42, 42, 4);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY, globalMemorySize INT, numThreadsPerWarp INT, "
             "numMultiprocessors INT, computeCapabilityMajor INT, computeCapabilityMinor INT, id INT, name INT);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE(globalMemorySize, numThreadsPerWarp, numMultiprocessors, computeCapabilityMajor, "
             "computeCapabilityMinor, id, name) VALUES (17071734784, 32, 56, 6, 0, 0, 2);",
             d + 18000, d + 28000, d + 35000, d + 45000, d + 70000, d + 80000, d + 76000, d + 86000,
             h + 10000, h + 15000, h + 30000, h + 35000, h + 50000, h + 55000, h + 70000, h + 75000);
    int rc = exec(db, sql);
    sqlite3_close(db);
    return rc == SQLITE_OK ? path : (free(path), NULL);
}

static const char *first_warning_with(const cJSON *s, const char *needle) {
    const cJSON *w;
    cJSON_ArrayForEach(w, sj_get(s, "run.warnings"))
        if (cJSON_IsString(w) && strstr(w->valuestring, needle)) return w->valuestring;
    return NULL;
}

/* the figures worked out above, from a summary of an aligned input (times in ns) */
static void check_aligned(const cJSON *s, double unit) {
    CHECK_EQ_I(sj_getnum(s, "run.span_ns", -1), 72000 * unit);
    CHECK_EQ_I(sj_getnum(s, "gpu.window_start_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "gpu.window_end_ns", -1), 72000 * unit);
    CHECK_EQ_I(sj_getnum(s, "gpu.devices.0.busy_ns", -1), 36000 * unit);
    CHECK_NEAR(sj_getnum(s, "gpu.devices.0.utilization_pct", -1), 50, 1e-9);
    CHECK_EQ_I(sj_getnum(s, "gpu.first_kernel_ns", -1), 4000 * unit); /* B+14000 from B+10000 */
    CHECK_EQ_I(sj_getnum(s, "run.devices.0.clock_offset_ns", 0), 4000 * unit - B_NS);
}

TEST(clock_nvprof_offset_aligned) {
    char *path = nvprof_fixture("clock-nvprof.sql", 0, 0);
    CHECK(path);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(path, NULL, &t, &err) == 0, "%s", err.msg);
    /* the kernels, on the host's clock: 4000 earlier relative to their launch than truly */
    CHECK_EQ_I(t->ngpu, 4);
    CHECK_EQ_I(t->gpu[0].ts, B_NS + 14000);
    CHECK_EQ_I(t->gpu[3].ts, B_NS + 72000);
    CHECK_EQ_I(t->t_min, B_NS + 10000);
    CHECK_EQ_I(t->t_max, B_NS + 82000);
    cJSON *s = analyze_json(t, NULL);
    CHECK(s);
    check_aligned(s, 1);
    const char *w = first_warning_with(s, "another clock");
    CHECK_MSG(w && strstr(w, "device 0") && strstr(w, "4 of 4") && strstr(w, "+99999.999996 s"), "warning: %s", w ? w : "(none)");
    /* said once */
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, sj_get(s, "run.warnings")) n += cJSON_IsString(x) && strstr(x->valuestring, "another clock") != NULL;
    CHECK_EQ_I(n, 1);
    cJSON_Delete(s);
    pc_trace_free(t);
    free(path);
}

TEST(clock_nvprof_one_clock_untouched) {
    /* the same run on one clock: nothing moves, no warning */
    char *path = nvprof_fixture("clock-nvprof-same.sql", 0, B_NS);
    CHECK(path);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(path, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->gpu[0].ts, B_NS + 18000);
    CHECK_EQ_I(t->clock_aligned, 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "run.span_ns", -1), 76000); /* B+10000 .. B+86000 */
    CHECK_EQ_I(sj_getnum(s, "run.devices.0.clock_offset_ns", -1), 0);
    CHECK(!first_warning_with(s, "another clock"));
    cJSON_Delete(s);
    pc_trace_free(t);
    free(path);
}

/* Kineto: the same run in µs, the kernels 10^5 s (10^11 µs) behind */
#define KRT(ts, corr) "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":" ts ",\"dur\":5,\"args\":{\"correlation\":" #corr "}},\n"
#define KK(stream, ts, corr) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgemm_kernel\",\"pid\":0,\"tid\":" #stream ",\"ts\":" ts ",\"dur\":10,\"args\":{\"device\":0,\"stream\":" #stream ",\"correlation\":" #corr "}},\n"
static const char KINETO_OFFSET[] = "{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"totalGlobalMem\":84990623744,"
    "\"computeMajor\":8,\"computeMinor\":0,\"numSms\":108}],\n\"traceEvents\": [\n"
    KRT("100000000010", 1) KRT("100000000030", 2) KRT("100000000050", 3) KRT("100000000070", 4)
    KK(7, "18", 1) KK(7, "35", 2) KK(7, "70", 3) KK(8, "76", 4)
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n"
    "]}";

TEST(clock_kineto_offset_aligned) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_kineto_mem(KINETO_OFFSET, strlen(KINETO_OFFSET), &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->gpu[0].ts, B_NS + 14000); /* B + 14 µs */
    cJSON *s = analyze_json(t, NULL);
    CHECK(s);
    check_aligned(s, 1); /* µs there, ns here: the same numbers */
    const char *w = first_warning_with(s, "another clock");
    CHECK_MSG(w && strstr(w, "+99999.999996 s"), "warning: %s", w ? w : "(none)");
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* The device clock 10^5 s ahead: every kernel starts 10^5 s after its launch, far
 * beyond the host's whole span (65 µs): moved back by 10^5 s + 4 µs. */
static const char KINETO_AHEAD[] = "{\"traceEvents\": [\n"
    KRT("10", 1) KRT("30", 2) KRT("50", 3) KRT("70", 4)
    KK(7, "100000000018", 1) KK(7, "100000000035", 2) KK(7, "100000000070", 3) KK(8, "100000000076", 4)
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n"
    "]}";

TEST(clock_kineto_device_ahead_aligned) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_kineto_mem(KINETO_AHEAD, strlen(KINETO_AHEAD), &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->gpu[0].ts, 14000);
    CHECK_EQ_I(t->t_max - t->t_min, 72000);
    CHECK(t->ndev == 1 && t->dev[0].clock_offset_ns == B_NS + 4000);
    CHECK(t->clock_aligned && strstr(strtab_get(&t->strs, t->clock_aligned), "-100000.000004 s"));
    pc_trace_free(t);
}

/* Evidence short of overwhelming moves nothing: 2 of 4 kernels before their
 * launch (by 1 µs: a jittery clock, not another one), or pairs too few. */
static const char KINETO_MIXED[] = "{\"traceEvents\": [\n"
    KRT("10", 1) KRT("30", 2) KRT("50", 3) KRT("70", 4)
    KK(7, "9", 1) KK(7, "29", 2) KK(7, "70", 3) KK(8, "76", 4)
    "]}";
static const char KINETO_FEW[] = "{\"traceEvents\": [\n"
    KRT("100000000010", 1) KRT("100000000030", 2) KK(7, "18", 1) KK(7, "35", 2)
    "]}";

TEST(clock_weak_evidence_untouched) {
    const char *docs[] = {KINETO_MIXED, KINETO_FEW};
    for (int i = 0; i < 2; i++) {
        pc_trace *t = NULL;
        pc_err err = {0};
        CHECK_MSG(pc_load_kineto_mem(docs[i], strlen(docs[i]), &t, &err) == 0, "%s", err.msg);
        CHECK_EQ_I(t->gpu[0].ts, i == 0 ? 9000 : 18000);
        if (i == 0) CHECK_EQ_I(t->clock_aligned, 0);
        else { /* 10^5 s apart, 2 pairs: not moved, but said: the host starts at B+10 us, the
             * device events end at 35+10 us: B - 35 us = 99999.999965 s */
            const char *w = t->clock_aligned ? strtab_get(&t->strs, t->clock_aligned) : "";
            CHECK_MSG(strstr(w, "lie 99999.999965 s before the host's") && strstr(w, "its 2 launch-to-start pairs were too few"), "%s", w);
        }
        pc_trace_free(t);
    }
}

/* No correlation ids at all, the kernels 10^5 s after the host's events: nothing to align
 * with, so nothing moves, but the summary says the clocks differ. */
static const char KINETO_UNLINKED[] = "{\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":60},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":100000000080,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}}\n"
    "]}";

TEST(clock_unlinked_clocks_said) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_kineto_mem(KINETO_UNLINKED, strlen(KINETO_UNLINKED), &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->gpu[0].ts, 100000000080000LL);
    cJSON *s = analyze_json(t, NULL);
    const char *w = first_warning_with(s, "not comparable");
    /* host ends at 70 us, the kernel starts at 10^11 + 80 us: 99999.99999 + 0.00001 s = 100000.000010 s */
    CHECK_MSG(w && strstr(w, "lie 100000.000010 s after the host's") && strstr(w, "no launch call"), "%s", w ? w : "(none)");
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* Drift: 16 launches 125 ms apart (host µs B + 125000 i, i = 0..15); true latency 5 µs, 20 µs
 * when i % 3 == 1; the device stamps h - B + 10^-3 (h - L0) (10^5 s behind, gaining 1000 ppm:
 * 1.875 ms over the run). Worked by hand: the floors of the quarters (i = 0, 4, 8, 12, latency 5)
 * lie on a line of slope 10^-3 and move by 1.5 ms: drift 10^-3, shown clearly. Less the drift
 * since L0, the latencies are 5005 - B or 20020 - B ns (the 10^-3 of the latency stays): the
 * offset at L0 is 4005 - B, and a kernel truly at h lands at L0 + (h - L0) - 4005 / 1.001 =
 * h - 4001 (latencies 999 and 15999 ns; without the drift term they would be 1.875 ms off by the end). */
TEST(clock_drift_estimated_when_clear) {
    char doc[16384];
    size_t n = (size_t)snprintf(doc, sizeof doc, "{\"traceEvents\": [\n");
    for (int i = 0; i < 16; i++) {
        long long l = 125000LL * i, lat = i % 3 == 1 ? 20 : 5, h = l + lat; /* µs from L0 */
        long long g_ns = h * 1000 + h; /* (h + 10^-3 h) µs, in ns: h*1000 + h */
        n += (size_t)snprintf(doc + n, sizeof doc - n,
                              KRT("%lld", %d) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%lld.%03lld,\"dur\":10,"
                              "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}},\n",
                              100000000000LL + l, i + 1, g_ns / 1000, g_ns % 1000, i + 1);
    }
    snprintf(doc + n, sizeof doc - n, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n]}");
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0, "%s", err.msg);
    CHECK(t->clock_aligned);
    const char *w = strtab_get(&t->strs, t->clock_aligned);
    CHECK_MSG(strstr(w, "+1000.0 ppm") && strstr(w, "corrected"), "%s", w);
    CHECK_EQ_I(t->dev[0].clock_offset_ns, 4005 - B_NS);
    int seen = 0;
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        int k = (int)g->corr - 1;
        long long want = B_NS + (125000LL * k + (k % 3 == 1 ? 20 : 5)) * 1000 - 4001;
        CHECK_MSG(g->ts - want <= 1 && want - g->ts <= 1, "kernel %d at %lld, expected %lld", k, (long long)g->ts, want);
        seen++;
    }
    CHECK_EQ_I(seen, 16);
    pc_trace_free(t);
}

/* Times at the edges of what a reader keeps (+-2^62 ns, 4.6e15 µs): launches near the top,
 * kernels near the bottom, 16 pairs (the drift path runs): the offset would carry the kernels
 * past 2^62, so nothing moves (the note says the clocks differ), and nothing overflows (UBSan
 * builds run this too). */
TEST(clock_extreme_times_no_overflow) {
    char doc[16384];
    size_t n = (size_t)snprintf(doc, sizeof doc, "{\"traceEvents\": [\n");
    for (int i = 0; i < 16; i++)
        n += (size_t)snprintf(doc + n, sizeof doc - n,
                              KRT("%lld", %d) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%lld,\"dur\":1000000000,"
                              "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}},\n",
                              4611686018427387LL - 1000 * (16 - i) - 1000000 * (i % 5), i + 1, -4611686018427387LL + 1000000 + 7 * i * i, i + 1);
    snprintf(doc + n - 2, sizeof doc - n + 2, "\n]}");
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0, "%s", err.msg);
    /* not moved, but said: the sampled pairs (all 16, ~2^63 ns apart) could not be used */
    CHECK(t->clock_aligned && strstr(strtab_get(&t->strs, t->clock_aligned), "its 16 launch-to-start pairs"));
    CHECK_EQ_I(t->stats.bad_fields, 16); /* the kernels, read, then dropped: the span passes 2^62 */
    pc_trace_free(t);
}
