/* Issue #32, classes 1 and 2, on hand-written Kineto traces
 * (tests/fixtures/sync_*.json, step_*.json): a blocking call costs the GPU
 * idle it causes, and a step's window is its own (the GPU's lag is a figure
 * of its own). The expected values are worked out by hand beside each case. */
#include "test.h"
#include "fixtures.h"
#include "load/load.h"
#include "summary/summary.h"
#include <string.h>

static cJSON *fixture(const char *path) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load(path, NULL, &t, &err)) return NULL;
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    return s;
}
static const cJSON *finding(const cJSON *s, const char *rule) {
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "suggestions.rows")) if (!strcmp(sj_getstr(r, "rule", ""), rule)) return r;
    return NULL;
}

/* One 140 ms step (µs): data loading 0-8000 with the GPU idle; cudaMemcpyAsync (Device -> Pageable,
 * 704 B, in aten::to) blocks 9100-135100 (126 ms) while gemm_k runs 10100-134100 and the copy
 * 134100-135100: the GPU is idle 9100-10100 of it (1.0 ms); at its end the GPU is idle until add_k
 * starts at 135300 (refill 0.2 ms). At stake 1.2 ms, not the 126 ms the host waited; data loading
 * (8 ms with the GPU idle) ranks above it. */
TEST(sync_blocking_copy_on_busy_gpu_costs_its_idle) {
    cJSON *s = fixture("tests/fixtures/sync_busy_gpu.json");
    CHECK(s);
    const cJSON *f = finding(s, "sync_in_step");
    CHECK_MSG(f, "no sync_in_step finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 1200000, 0.5);
    CHECK_MSG(sj_getnum(f, "rank", 0) > 1, "sync_in_step ranked %g", sj_getnum(f, "rank", 0));
    CHECK(strstr(sj_getstr(f, "evidence", ""), "126.00 ms per step blocked"));
    CHECK(strstr(sj_getstr(f, "evidence", ""), "most: cudaMemcpyAsync Device->Pageable, 704 B, in aten::to: 126.00 ms per step"));
    CHECK(strcmp(sj_getstr(s, "suggestions.rows.0.rule", ""), "sync_in_step"));
    cJSON_Delete(s);
}

/* One 50 ms step (µs): cudaDeviceSynchronize 6000-21000 with no GPU work after mm_k ended at 5000;
 * add_k, launched after it, starts at 21500: idle 15.0 ms inside the call + refill 0.5 ms = 15.5 ms. */
TEST(sync_on_idle_gpu_costs_call_and_refill) {
    cJSON *s = fixture("tests/fixtures/sync_idle_gpu.json");
    CHECK(s);
    const cJSON *f = finding(s, "sync_in_step");
    CHECK_MSG(f, "no sync_in_step finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 15500000, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "most: cudaDeviceSynchronize: 15.00 ms per step"));
    cJSON_Delete(s);
}
