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

static cJSON *fixture(const char *path) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load(path, NULL, &t, &err)) return NULL;
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    return s;
}
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
    cJSON *s = fixture("tests/fixtures/replay_sync.json");
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
        cJSON *s = fixture(p);
        CHECK_MSG(s, "%s did not load", real[i]);
        seen++;
        double err = sj_getnum(s, "critical_path.error_max_pct", -1);
        CHECK_MSG(err >= 0 && err <= 2, "%s: replay error %g%%", real[i], err);
        CHECK_MSG(sj_getnum(s, "critical_path.steps_over_2pct", -1) == 0, "%s: steps over 2%%", real[i]);
        cJSON_Delete(s);
    }
    if (!seen) SKIP("none of the real traces is present");
}
