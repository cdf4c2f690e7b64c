/* Collectives matched across ranks and the arrival-based straggler (issue #34
 * item 2, issue #32 class 4): src/compare/ranks.c's job summary on the
 * hand-made job tests/fixtures/job4 (and job4_clock, its clocks made to
 * disagree) and on the real 8-rank DLRM job (tests/expectations/
 * dlrm-8ranks-collectives.md, from tests/expectations/dlrm_collectives.py). */
#include "test.h"
#include "fixtures.h"
#include "compare/ranks.h"
#include "load/load.h"
#include "summary/summary.h"
#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* the job summary of every .json in dir, as summary.json has it, under opts o */
static cJSON *job_of_opts(const char *dir, int want, const pc_job_opts *o) {
    pc_summary *sums[16] = {0};
    int n = summaries_in_dir(dir, sums, 16);
    if (n != want) {
        for (int i = 0; i < n; i++) pc_summary_free(sums[i]);
        return NULL;
    }
    pc_summary *job = pc_job_summary(sums, n, o);
    for (int i = 0; i < n; i++) pc_summary_free(sums[i]);
    cJSON *s = summary_json(job);
    return s;
}
/* the same under the options report gives */
static cJSON *job_of(const char *dir, int want) { return job_of_opts(dir, want, &fix_job_opts); }

/* tests/fixtures/job4, by hand (µs, one clock; tests/expectations/dlrm_collectives.py
 * tests/fixtures/job4 prints the same): 4 ranks, one step each, ending at 8,000; steps
 * start at 1,000 (ranks 0, 1, 3) and 3,000 (rank 2). Two all_reduce of 1,000,000 floats
 * (4,000,000 bytes) on stream 20.
 *  op 0: arrivals 1,500 / 1,500 / 3,500 / 1,500 (500 after each step's start, 300 µs of
 *    gemm before on each), ends 4,500: last rank 2, earliest rank 0, wait 2,000, transfer
 *    4,500 - 3,500 = 1,000; rank 2's lateness: 2,000 before the step (its step began 2,000
 *    later), in-step (500 - 500) 0.
 *  op 1: reference op 0's end 4,500; arrivals 5,000 x3 and rank 3 at 6,000 (300 µs gemm
 *    each, rank 3 400 µs more), ends 7,000: last rank 3, wait 1,000, transfer 1,000;
 *    in-step 1,500 - 500 = 1,000, GPU compute 700 - 300 = 400, host gaps 600.
 *  all_reduce: 2 operations, 8,000,000 bytes, wait 3,000, transfer 2,000, algbw
 *    8e6 B / 2e6 ns = 4 GB/s, busbw x 2(4-1)/4 = 1.5: 6 GB/s; last once each by ranks 2
 *    and 3: the lowest, 2.
 *  per rank: caused 0 / 0 / 2,000 / 1,000; suffered (op 0: 2,000 for ranks 0, 1, 3; op 1:
 *    1,000 for ranks 0, 1, 2) 3,000 / 3,000 / 1,000 / 2,000.
 *  straggler rank 2 (2,000 µs per step >= 5% of the 7,000 µs median step), all before the
 *  step; the finding's stake 2,000 µs, overlapping communication. */
TEST(job_collectives_matched_fixture) {
    cJSON *s = job_of("tests/fixtures/job4", 4);
    CHECK(s);
    if (!s) return;
    CHECK(cJSON_IsTrue(sj_get(s, "ranks.collective_ops.compared")));
    CHECK_EQ_I(sj_getnum(s, "ranks.collective_ops.matched", 0), 2);
    CHECK_EQ_I(sj_getnum(s, "ranks.collective_ops.end_spread_max_ns", -1), 0);
    CHECK(cJSON_IsNull(sj_get(s, "ranks.collective_ops.note")));
    CHECK_EQ_S(sj_getstr(s, "ranks.job_collectives.0.collective", ""), "all_reduce");
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.calls", 0), 2);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.bytes", 0), 8000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.wait_ns", 0), 3000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.transfer_ns", 0), 2000000);
    CHECK_NEAR(sj_getnum(s, "ranks.job_collectives.0.algbw_gbs", 0), 4.0, 1e-9);
    CHECK_NEAR(sj_getnum(s, "ranks.job_collectives.0.busbw_gbs", 0), 6.0, 1e-9);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.last_rank", -1), 2);
    static const double caused[4] = {0, 0, 2000, 1000}, suffered[4] = {3000, 3000, 1000, 2000};
    static const int last[4] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++) {
        char k[64];
        snprintf(k, sizeof k, "ranks.rows.%d.rank", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), i);
        snprintf(k, sizeof k, "ranks.rows.%d.wait_caused_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), caused[i] * 1000);
        snprintf(k, sizeof k, "ranks.rows.%d.wait_suffered_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), suffered[i] * 1000);
        snprintf(k, sizeof k, "ranks.rows.%d.last_count", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), last[i]);
    }
    CHECK_EQ_S(sj_getstr(s, "ranks.straggler.by", ""), "arrival");
    CHECK(cJSON_IsTrue(sj_get(s, "ranks.straggler.found")));
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.rank", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.wait_caused_ns", -1), 2000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.before_step_ns", -1), 2000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.host_gap_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.gpu_compute_ns", -1), 0);
    const cJSON *f = finding_of(s, "straggler");
    CHECK(f);
    CHECK_EQ_I(sj_getnum(f, "at_stake_ns", -1), 2000000);
    CHECK_EQ_S(sj_getstr(f, "overlaps", ""), "communication");
    CHECK(strstr(sj_getstr(f, "evidence", ""), "rank 2 arrives last at 1 of 2 collective operations"));
    /* the stake by replay (rank 2 at the median arrival, 1,500): op 0 completes at 1,500 + 1,000
     * = 2,500 (was 4,500); op 1's arrivals are op 0's end + each rank's own 500 / 500 / 500 /
     * 1,500: 3,000 x3 and 4,000, completing at 5,000 (was 7,000), within every step (ends
     * 8,000): 2,000 µs off every rank's step; unchanged, the replay gives the measured ends */
    for (int i = 0; i < 4; i++) {
        char k[64];
        snprintf(k, sizeof k, "ranks.rows.%d.straggler_saving_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), 2000000);
    }
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.saving_ns", -1), 2000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.saving_job_step_ns", -1), 2000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.replay_error_ns", -1), 0);
    cJSON_Delete(s);
}

/* rank 3's split: its lateness at op 1 (1,000 µs) is 600 µs of host gaps and 400 µs of GPU
 * compute; checked on the job without rank 2 (ranks 0, 1, 3: rank 3 is the only late one) */
TEST(job_collectives_host_gap_rank) {
    cJSON *s = job_of("tests/fixtures/job4", 4);
    CHECK(s);
    if (!s) return;
    /* rank 3's row: last at op 1 only, caused 1,000 */
    CHECK_EQ_I(sj_getnum(s, "ranks.rows.3.last_count", -1), 1);
    CHECK_EQ_I(sj_getnum(s, "ranks.rows.3.wait_caused_ns", -1), 1000000);
    cJSON_Delete(s);
    /* the same split through the three-rank job: shift nothing, drop rank 2 */
    DIR *d = opendir("tests/fixtures/job4");
    CHECK(d);
    if (!d) return;
    closedir(d);
    pc_summary *sums[3];
    int n = 0;
    static const char *const files[] = {"rank0.json", "rank1.json", "rank3.json"};
    for (int i = 0; i < 3; i++) {
        char p[256];
        snprintf(p, sizeof p, "tests/fixtures/job4/%s", files[i]);
        pc_trace *t = NULL;
        pc_err err = {0};
        if (pc_load(p, NULL, &t, &err) == 0) sums[n++] = pc_analyze(t, NULL);
        pc_trace_free(t);
    }
    CHECK_EQ_I(n, 3);
    if (n != 3) return;
    pc_summary *job = pc_job_summary(sums, n, &fix_job_opts);
    for (int i = 0; i < n; i++) pc_summary_free(sums[i]);
    s = summary_json(job);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.rank", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.wait_caused_ns", -1), 1000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.before_step_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.host_gap_ns", -1), 600000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.gpu_compute_ns", -1), 400000);
    /* 3 ranks: busbw factor 2(3-1)/3 */
    CHECK_NEAR(sj_getnum(s, "ranks.job_collectives.0.bus_factor", 0), 4.0 / 3, 1e-9);
    cJSON_Delete(s);
}

/* tests/fixtures/job4_clock: job4 with rank 3's clock 10,000 µs ahead: the ends of both
 * operations lie 10,000 µs apart, the check fails, it is said, no job table, the
 * straggler falls back to compute per step (rank 3's 400 µs of extra gemm) */
TEST(job_collectives_clock_disagree) {
    cJSON *s = job_of("tests/fixtures/job4_clock", 4);
    CHECK(s);
    if (!s) return;
    CHECK(cJSON_IsFalse(sj_get(s, "ranks.collective_ops.compared")));
    CHECK_EQ_I(sj_getnum(s, "ranks.collective_ops.matched", 0), 2);
    CHECK_EQ_I(sj_getnum(s, "ranks.collective_ops.end_spread_median_ns", 0), 10000000);
    CHECK(strstr(sj_getstr(s, "ranks.collective_ops.note", ""), "the clock check failed: the ends of one operation lie 10000 us apart"));
    CHECK(!sj_get(s, "ranks.job_collectives"));
    CHECK_EQ_S(sj_getstr(s, "ranks.straggler.by", ""), "compute");
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.rank", -1), 3);
    CHECK(cJSON_IsNull(sj_get(s, "ranks.rows.0.wait_caused_ns")));
    /* per-rank figures stay */
    CHECK_EQ_I(sj_getnum(s, "ranks.collectives.0.calls", 0), 2);
    cJSON_Delete(s);
}

/* tests/expectations/dlrm-8ranks-collectives.md */
TEST(realdata_dlrm_collectives_matched) {
    const char *sd = shared_data();
    if (!sd) SKIP("../shared/data is missing");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/kineto/dlrm-v100-8ranks", sd);
    cJSON *s = job_of(dir, 8);
    CHECK(s);
    if (!s) return;
    CHECK(cJSON_IsTrue(sj_get(s, "ranks.collective_ops.compared")));
    CHECK_EQ_I(sj_getnum(s, "ranks.collective_ops.matched", 0), 8);
    double sp = sj_getnum(s, "ranks.collective_ops.end_spread_max_ns", -1);
    CHECK_MSG(sp >= 6000 && sp <= 8000, "max end spread %g ns (7 µs expected)", sp);
    /* per type */
    CHECK_EQ_S(sj_getstr(s, "ranks.job_collectives.0.collective", ""), "all_to_all");
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.calls", 0), 5);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.bytes", 0), 64448);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.wait_ns", 0), 9552000);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.transfer_ns", 0), 42000);
    CHECK_NEAR(sj_getnum(s, "ranks.job_collectives.0.busbw_gbs", 0), 1.3427, 0.0001);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.last_rank", -1), 7);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.last_count", -1), 4);
    CHECK_EQ_S(sj_getstr(s, "ranks.job_collectives.1.collective", ""), "all_reduce");
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.1.wait_ns", 0), 1692000);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.1.transfer_ns", 0), 175000);
    CHECK(cJSON_IsNull(sj_get(s, "ranks.job_collectives.1.busbw_gbs")));
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.1.last_rank", -1), 4);
    /* per rank (µs) */
    static const double caused[8] = {0, 0, 0, 0, 885, 1118, 0, 9241};
    static const double suffered[8] = {5580, 11125, 3280, 9571, 6370, 6041, 3342, 1534};
    static const int last[8] = {0, 0, 0, 0, 1, 2, 0, 5};
    for (int i = 0; i < 8; i++) {
        char k[64];
        snprintf(k, sizeof k, "ranks.rows.%d.wait_caused_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), caused[i] * 1000);
        snprintf(k, sizeof k, "ranks.rows.%d.wait_suffered_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), suffered[i] * 1000);
        snprintf(k, sizeof k, "ranks.rows.%d.last_count", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), last[i]);
    }
    /* the straggler: rank 7, 9,241 µs caused: 7,513 before the step, 1,695 host, 34 GPU */
    CHECK_EQ_S(sj_getstr(s, "ranks.straggler.by", ""), "arrival");
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.rank", -1), 7);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.wait_caused_ns", -1), 9241000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.before_step_ns", -1), 7513000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.host_gap_ns", -1), 1695000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.gpu_compute_ns", -1), 34000);
    const cJSON *f = finding_of(s, "straggler");
    CHECK(f);
    CHECK_EQ_S(sj_getstr(f, "overlaps", ""), "communication");
    CHECK(strstr(sj_getstr(f, "evidence", ""), "rank 7 arrives last at 5 of 8"));
    /* its stake by replay (tests/expectations/dlrm_straggler_replay.py): rank 7 at the median
     * arrival gives back 1,310 µs of every rank's step (ranks 2 and 6 arrive at op 0 within
     * 505 µs of it), not the 9,241 µs of wait it causes; the unchanged replay within 8 µs */
    CHECK_EQ_I(sj_getnum(f, "at_stake_ns", -1), 1310000);
    for (int i = 0; i < 8; i++) {
        char k[64];
        snprintf(k, sizeof k, "ranks.rows.%d.straggler_saving_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), 1310000);
    }
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.saving_job_step_ns", -1), 1310000);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.saving_mean_ns", -1), 1310000);
    CHECK(sj_getnum(s, "ranks.straggler.replay_error_ns", -1) <= 8000);
    cJSON_Delete(s);
}

/* A job that holds fewer arrivals than its ranks' operations (at scale: 8,192 ranks of 4,096
 * collective kernels; here pc_job_opts.arrivals_max lowered to 6 for job4's 4 ranks x 2 operations):
 * every rank keeps its first operations only, 2 >> 1 = 1 (4 held), which the note says, and the
 * ranks added before the cap was lowered are cut to it too. By hand, from op 0 alone (see
 * job_collectives_matched_fixture): 1 operation, wait 2,000 µs (rank 2 last), transfer 1,000,
 * 4,000,000 B / 1,000,000 ns = 4 GB/s; caused 0 / 0 / 2,000 / 0; suffered 2,000 / 2,000 / 0 /
 * 2,000; the straggler rank 2, all before the step. */
TEST(job_collectives_arrivals_capped) {
    pc_job_opts six = fix_job_opts;
    six.arrivals_max = 6;
    cJSON *s = job_of_opts("tests/fixtures/job4", 4, &six);
    CHECK(s);
    if (!s) return;
    CHECK(cJSON_IsTrue(sj_get(s, "ranks.collective_ops.compared")));
    CHECK_EQ_I(sj_getnum(s, "ranks.collective_ops.matched", 0), 1);
    CHECK(strstr(sj_getstr(s, "ranks.collective_ops.note", ""), "each rank's first 1 collective operations are matched (of up to 2: a job of 4 ranks holds at most 6 arrivals)"));
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.calls", 0), 1);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.wait_ns", 0), 2000000);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.transfer_ns", 0), 1000000);
    CHECK_NEAR(sj_getnum(s, "ranks.job_collectives.0.algbw_gbs", 0), 4.0, 1e-9);
    CHECK_EQ_I(sj_getnum(s, "ranks.job_collectives.0.last_rank", -1), 2);
    static const double caused[4] = {0, 0, 2000, 0}, suffered[4] = {2000, 2000, 0, 2000};
    for (int i = 0; i < 4; i++) {
        char k[64];
        snprintf(k, sizeof k, "ranks.rows.%d.wait_caused_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), caused[i] * 1000);
        snprintf(k, sizeof k, "ranks.rows.%d.wait_suffered_ns", i);
        CHECK_EQ_I(sj_getnum(s, k, -1), suffered[i] * 1000);
    }
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.rank", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "ranks.straggler.before_step_ns", -1), 2000000);
    cJSON_Delete(s);
}

/* Each rank's timeline for report.html's rank selector (#34 item 3): the ranks in detail but the
 * shown one (rank 0, whose timeline is trace_timeline) get ranks.timelines[]: tests/fixtures/job4
 * by hand from the fixture's complete events: rank 1 15 events summing 13,040 µs over a 7,000 µs
 * span (its step, 1,000..8,000), rank 2 15 events, 9,040 µs, span 5,000 (its step begins at
 * 3,000), rank 3 18 events (a second gemm under a second aten::mm), 12,540 µs, span 7,000; every
 * event kept (under the 2,048 shown at most), by start; one step each, ProfilerStep#1 from 0. */
TEST(job_timelines_per_rank) {
    cJSON *s = job_of("tests/fixtures/job4", 4);
    CHECK(s);
    if (!s) return;
    const cJSON *tls = sj_get(s, "ranks.timelines");
    CHECK_EQ_I(cJSON_GetArraySize(tls), 3);
    static const double events[3] = {15, 15, 18}, busy[3] = {13040000, 9040000, 12540000}, span[3] = {7000000, 5000000, 7000000};
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tls) {
        if (i >= 3) break;
        CHECK_EQ_I(sj_getnum(t, "rank", -1), i + 1);
        CHECK_EQ_I(sj_getnum(t, "kept", -1), events[i]);
        CHECK_EQ_I(sj_getnum(t, "events_total", -1), events[i]);
        CHECK_EQ_I(sj_getnum(t, "span_ns", -1), span[i]);
        double sum = 0, prev = -1;
        int sorted = 1;
        const cJSON *e;
        cJSON_ArrayForEach(e, sj_get(t, "events")) {
            sum += cJSON_GetArrayItem(e, 2)->valuedouble;
            sorted &= cJSON_GetArrayItem(e, 1)->valuedouble >= prev;
            prev = cJSON_GetArrayItem(e, 1)->valuedouble;
        }
        CHECK_EQ_I(sum, busy[i]);
        CHECK(sorted);
        CHECK_EQ_S(sj_getstr(t, "steps.0.0", ""), "ProfilerStep#1");
        i++;
    }
    cJSON_Delete(s);
}
