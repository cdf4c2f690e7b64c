/* Issue #37: each step's dependency graph replayed (src/analyze/depgraph.c,
 * replay.c), on a hand-written trace whose arithmetic is beside the case, and
 * on every real trace of ../shared/data (skipped when it is missing): the
 * unchanged replay reproduces each step's measured window. */
#include "test.h"
#include "fixtures.h"
#include "load/load.h"
#include "summary/summary.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static double row_ns(const cJSON *s, const char *cat, const char *name) {
    const cJSON *r;
    double sum = 0;
    cJSON_ArrayForEach(r, sj_get(s, "critical_path.rows")) {
        if (strcmp(sj_getstr(r, "category", ""), cat)) continue;
        if (name && strcmp(sj_getstr(r, "name", ""), name)) continue;
        sum += sj_getnum(r, "avg_per_step_ns", 0);
    }
    return sum;
}

/* One 20 ms step (µs). Host thread: cudaLaunchKernel 100-110 (k1 on the GPU 200-10200),
 * cudaDeviceSynchronize 1000-10300 (waits for k1, returns 100 after it), cudaLaunchKernel
 * 10400-10410 (k2 10500-12500), data loading 11000-15000, the step ends at 20000.
 * Critical path, back from 20000: the gap 10410-20000 = 9590 (data 4000, host 5590), the launch's
 * own 10, the gap 10300-10400 = host 100, the sync's return 10200-10300 = launch 100, k1 200-10200 =
 * kernel 10000, its launch latency 100-200 = launch 100, the gap 0-100 = host 100: host 5790, data
 * 4000, launch 210, kernel 10000, sum 20000.
 * No sync wait: the sync ends at 1000 + 100, k2's launch at 1200-1210, the host at 1210 + 9590 =
 * 10800; k2 = max(launch 1200, k1's end 10200) + its delay 100 (10500 - max(10400, 10200)) = 10300,
 * ends 12300, so the GPU ends the step at 12300 (no lag before): 12.3 ms, 7.7 ms saved.
 * Data prefetched: the last gap 9590 - 4000 = 5590: the host ends at 16000, the GPU at 12500:
 * 4.0 ms saved. Both: host 1210 + 5590 = 6800, GPU 12300: 7.7 ms saved (not 11.7: they overlap). */
TEST(replay_sync_data_fixture) {
    cJSON *s = fixture_summary("tests/fixtures/replay_sync.json");
    CHECK(s);
    CHECK(cJSON_IsTrue(sj_get(s, "critical_path.present")));
    CHECK_NEAR(sj_getnum(s, "critical_path.step_ns", -1), 20000000, 0.5);
    CHECK_NEAR(sj_getnum(s, "critical_path.error_max_pct", -1), 0, 1e-9);
    CHECK_NEAR(sj_getnum(s, "critical_path.sync_saving_ns", -1), 7700000, 0.5);
    CHECK_NEAR(sj_getnum(s, "critical_path.data_saving_ns", -1), 4000000, 0.5);
    CHECK_NEAR(sj_getnum(s, "critical_path.combined_saving_ns", -1), 7700000, 0.5);
    CHECK_NEAR(row_ns(s, "host", NULL), 5790000, 0.5);
    CHECK_NEAR(row_ns(s, "data_loading", NULL), 4000000, 0.5);
    CHECK_NEAR(row_ns(s, "launch", NULL), 210000, 0.5);
    CHECK_NEAR(row_ns(s, "kernel", "k1"), 10000000, 0.5);
    CHECK_NEAR(row_ns(s, "kernel", "k2"), 0, 0.5);
    cJSON_Delete(s);
}

/* Cross-stream waits inferred (µs; no stream or event named, as in Kineto's cudaStreamWaitEvent).
 * An 11 ms step. Host: cudaLaunchKernel 100-110 (k0, stream 7, 200-5200), cudaStreamSynchronize
 * 200-5300 (waits for k0, returns 100 after it), cudaLaunchKernel 5400-5410 (k1, stream 7,
 * 5500-7500), cudaStreamWaitEvent 5420-5425, cudaLaunchKernel 5430-5440 (k2, stream 27,
 * 7505-8505: 2075 after its launch on an idle stream, 5 after k1's end: it waits for k1),
 * cudaMemcpyAsync 5450-8600 (Device -> Pageable on stream 27, 8510-8515, after k2; the call
 * returns 85 after it), cudaLaunchKernel 8700-8710 (k3, stream 27, 8800-10800); the step ends at 11000.
 * Critical path back from 11000: gap 8710-11000 host 2290, launch 10, gap 8600-8700 host 100,
 * the copy call's return 85 (launch), the copy 5, its stream gap 5 (launch), k2 1000, its wait
 * after k1 5 (launch), k1 2000, its latency 5400-5500 100 (launch), gap 5300-5400 host 100, the
 * sync's return 100 (launch), k0 5000, its latency 100 (launch), gap 0-100 host 100: host 2590,
 * launch 405, copy 5, kernels 8000 (k0 5000, k1 2000, k2 1000), sum 11000.
 * No sync wait: L1 100-110, k0 200-5200 (it binds nothing), the sync 200-300, L3 400-410, k1 =
 * max(400, k0 5200) + 100 = 5300-7300, the wait 420-425, L5 430-440, k2 = max(430, k1 7300) + 5
 * = 7305-8305, the copy call 450-535, the copy 8305 + 5 = 8310-8315, L7 635-645, k3 = max(635,
 * 8315) + 100 = 8415-10415; the host ends at 645 + 2290 = 2935, the GPU at 10415 (no lag):
 * 585 saved. Without the k1 -> k2 edge k2 would follow its launch (430 + 2075 = 2505, before k1
 * ends), the copy 3515, k3 3615-5615, and the step end at k1's 7300: 3700 saved. */
TEST(replay_cross_stream_fixture) {
    cJSON *s = fixture_summary("tests/fixtures/replay_cross_stream.json");
    CHECK(s);
    CHECK_NEAR(sj_getnum(s, "critical_path.step_ns", -1), 11000000, 0.5);
    CHECK_NEAR(sj_getnum(s, "critical_path.error_max_pct", -1), 0, 1e-9);
    CHECK_NEAR(sj_getnum(s, "critical_path.sync_saving_ns", -1), 585000, 0.5);
    CHECK_NEAR(sj_getnum(s, "critical_path.data_saving_ns", -1), 0, 0.5);
    CHECK_NEAR(sj_getnum(s, "critical_path.combined_saving_ns", -1), 585000, 0.5);
    CHECK_NEAR(row_ns(s, "host", NULL), 2590000, 0.5);
    CHECK_NEAR(row_ns(s, "launch", NULL), 405000, 0.5);
    CHECK_NEAR(row_ns(s, "copy", NULL), 5000, 0.5);
    CHECK_NEAR(row_ns(s, "kernel", "k0"), 5000000, 0.5);
    CHECK_NEAR(row_ns(s, "kernel", "k1"), 2000000, 0.5);
    CHECK_NEAR(row_ns(s, "kernel", "k2"), 1000000, 0.5);
    CHECK_NEAR(row_ns(s, "kernel", "k3"), 0, 0.5);
    cJSON_Delete(s);
}

/* Every real trace: the replay of the unchanged graph within 2% of each step's window
 * (docs/replay.md lists the figures). */
static const char *const real[] = {
    "kineto/hta/negative_queue_length_values_check/rank0.json.gz",
    "nsys/perlmutter-cloverleaf-cuda.sqlite",
    "nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite",
    NULL};
TEST(realdata_replay_reproduces_steps) {
    const char *sd = shared_data();
    if (!sd) SKIP("../shared/data is missing");
    int seen = 0;
    for (int i = 0; real[i]; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", sd, real[i]);
        FILE *f = fopen(p, "rb");
        if (!f) continue;
        fclose(f);
        cJSON *s = fixture_summary(p);
        CHECK_MSG(s, "%s did not load", real[i]);
        seen++;
        double err = sj_getnum(s, "critical_path.error_max_pct", -1);
        CHECK_MSG(err >= 0 && err <= 2, "%s: replay error %g%%", real[i], err);
        CHECK_MSG(sj_getnum(s, "critical_path.steps_over_2pct", -1) == 0, "%s: steps over 2%%", real[i]);
        cJSON_Delete(s);
    }
    if (!seen) SKIP("none of the real traces is present");
}

/* The HTA negative-queue trace (tests/expectations/hta-negative-queue-rank0.md, issue #37 section):
 * the 146 ms copy call's copy follows a stream-27 chain whose first kernel starts 146 ms after
 * its launch, 4 µs after stream 7's work ends: the inferred cross-stream edge puts that wait on
 * the path as work launched before the step (earlier_work 60.14%, launch 23.87%; launch was 79%
 * without the edge). Removing the blocking waits saves what the host could have launched
 * earlier: negq_idle_cause.py finds 91.84 ms per step of GPU idle inside the blocking calls, of
 * which 75.14 ms end with work queued before the call and 16.54 ms with work no call in the
 * trace launched (CUDA graph nodes), 0.15 ms with work launched at or after the call: the
 * replay's saving lies in [0, 0.1532 ms], not the ~92-94 ms of idle that sync_gpu_idle.py counts. */
TEST(realdata_replay_negq_cross_stream) {
    const char *sd = shared_data();
    if (!sd) SKIP("../shared/data is missing");
    char p[1024];
    snprintf(p, sizeof p, "%s/kineto/hta/negative_queue_length_values_check/rank0.json.gz", sd);
    FILE *f = fopen(p, "rb");
    if (!f) SKIP("the negative-queue trace is missing");
    fclose(f);
    cJSON *s = fixture_summary(p);
    CHECK(s);
    double step = sj_getnum(s, "critical_path.step_ns", -1);
    CHECK_NEAR(step, 214806600, 0.5);
    double sv = sj_getnum(s, "critical_path.sync_saving_ns", -1);
    CHECK_MSG(sv >= 0 && sv <= 153200, "sync saving %g ns", sv);
    CHECK_NEAR(100.0 * row_ns(s, "earlier_work", NULL) / step, 60.14, 0.01);
    CHECK_NEAR(100.0 * row_ns(s, "launch", NULL) / step, 23.87, 0.01);
    cJSON_Delete(s);
}
