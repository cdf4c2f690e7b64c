/* perfcard diff: statistics, name normalization, matching and verdicts. */
#include "test.h"
#include "fixtures.h"
#include "compare/diff.h"
#include "summary/summary.h"
#include <math.h>
#include <stdlib.h>

TEST(diff_mann_whitney_hand_computed) {
    /* U = 0; mu = 12.5; sigma = sqrt(5*5*11/12) = 4.7871; z = (12.5 - 0.5) / sigma = 2.5067;
     * two-sided p = erfc(z / sqrt 2) = 0.012186 (scipy.stats.mannwhitneyu, asymptotic, continuity) */
    double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    CHECK_NEAR(pc_mann_whitney_p(a, 5, b, 5), 0.012186, 1e-5);
    /* identical samples: no evidence at all */
    CHECK_NEAR(pc_mann_whitney_p(a, 5, a, 5), 1.0, 1e-12);
    /* ties: all equal */
    double c[] = {3, 3, 3, 3, 3};
    CHECK_NEAR(pc_mann_whitney_p(c, 5, c, 5), 1.0, 1e-12);
}

TEST(diff_bootstrap_interval) {
    double a[20], b[20];
    for (int i = 0; i < 20; i++) a[i] = 100 + i % 5, b[i] = 120 + i % 5; /* +20% */
    double lo, hi, lo2, hi2;
    pc_bootstrap_median_ratio(a, 20, b, 20, 2000, &lo, &hi);
    CHECK(lo > 1.15 && hi < 1.25 && lo <= hi);
    pc_bootstrap_median_ratio(a, 20, b, 20, 2000, &lo2, &hi2);
    CHECK(lo == lo2 && hi == hi2); /* seeded: the same inputs give the same interval */
}

TEST(diff_kernel_name_normalization) {
    char x[256], y[256];
    pc_kernel_normalize("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int, float*)", x, sizeof x);
    CHECK_EQ_S(x, "at::native::vectorized_elementwise_kernel");
    pc_kernel_normalize("volta_sgemm_128x64_nn", x, sizeof x);
    pc_kernel_normalize("volta_sgemm_64x32_nn", y, sizeof y);
    CHECK_EQ_S(x, y);
    pc_kernel_normalize("ampere_sgemm_128x64_nn", y, sizeof y);
    CHECK(strcmp(x, y) != 0); /* a different GPU's kernel: matched by operator instead */
}

TEST(diff_verdicts_and_matching) {
    const char *ks = "[{\"name\":\"volta_sgemm_128x64_nn\",\"total_ns\":1000,\"operator\":\"aten::mm\"},"
                     "{\"name\":\"void k<float>(int)\",\"total_ns\":500,\"operator\":\"aten::add\"},"
                     "{\"name\":\"gone_kernel\",\"total_ns\":50,\"operator\":\"\"}]";
    const char *ks2 = "[{\"name\":\"volta_sgemm_64x64_nn\",\"total_ns\":1300,\"operator\":\"aten::mm\"},"
                      "{\"name\":\"void k<half>(int)\",\"total_ns\":500,\"operator\":\"aten::add\"},"
                      "{\"name\":\"new_kernel\",\"total_ns\":70,\"operator\":\"\"}]";
    cJSON *a = cJSON_Parse("{\"schema\":\"perfcard.summary/1\",\"run\":{\"input\":\"a\"},\"steps\":{\"count\":6,"
                           "\"durations_ns\":[100,101,99,100,102,98],\"median_ns\":100,\"p90_ns\":102},"
                           "\"kernels\":{\"devices\":[{\"device\":0,\"rows\":[]}]},\"operators\":{\"rows\":[]}}");
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(a, "kernels")->child->child, "rows", cJSON_Parse(ks));
    cJSON *slow = cJSON_Parse("{\"schema\":\"perfcard.summary/1\",\"run\":{\"input\":\"b\"},\"steps\":{\"count\":6,"
                              "\"durations_ns\":[120,121,119,120,122,118],\"median_ns\":120,\"p90_ns\":122},"
                              "\"kernels\":{\"devices\":[{\"device\":0,\"rows\":[]}]},\"operators\":{\"rows\":[]}}");
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(slow, "kernels")->child->child, "rows", cJSON_Parse(ks2));
    cJSON *same = cJSON_Duplicate(a, 1);
    cJSON *few = cJSON_Parse("{\"schema\":\"perfcard.summary/1\",\"run\":{\"input\":\"c\"},\"steps\":{\"count\":2,"
                             "\"durations_ns\":[150,150],\"median_ns\":150,\"p90_ns\":150}}");
    pc_summary *sa = summary_of(a), *sslow = summary_of(slow), *ssame = summary_of(same), *sfew = summary_of(few);
    CHECK(sa && sslow && ssame && sfew);
    const pc_summary *runs[3] = {sslow, ssame, sfew};
    cJSON *d = pc_diff(sa, runs, 3, NULL);
    CHECK(d);
    CHECK_EQ_S(sj_getstr(d, "runs.0.verdict", ""), "regressed");
    CHECK_NEAR(sj_getnum(d, "runs.0.step_time.median_delta_pct", 0), 20, 1e-9);
    CHECK_EQ_S(sj_getstr(d, "runs.1.verdict", ""), "unchanged");
    CHECK_NEAR(sj_getnum(d, "runs.1.step_time.median_delta_ns", -1), 0, 0);
    CHECK_EQ_S(sj_getstr(d, "runs.2.verdict", ""), "inconclusive"); /* 2 steps */
    CHECK_EQ_S(sj_getstr(d, "verdict", ""), "regressed");
    /* kernels: the sgemm renamed by tile size matches by normalized name and tops the list */
    const cJSON *k0 = sj_get(d, "kernels.rows.0");
    CHECK_EQ_S(sj_getstr(k0, "name", ""), "volta_sgemm_128x64_nn");
    CHECK_EQ_S(sj_getstr(k0, "matched_by", ""), "normalized name");
    CHECK_NEAR(sj_getnum(k0, "runs.0.delta_ns", 0), 300, 0);
    CHECK_NEAR(sj_getnum(k0, "runs.0.ratio", 0), 1.3, 1e-12);
    int added = 0, removed = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(d, "kernels.rows")) {
        if (!strcmp(sj_getstr(r, "name", ""), "new_kernel")) added = !strcmp(sj_getstr(r, "status", ""), "added");
        if (!strcmp(sj_getstr(r, "name", ""), "gone_kernel")) removed = !strcmp(sj_getstr(r, "status", ""), "matched");
    }
    CHECK(added);
    CHECK(removed); /* present in the base and in run 2 (the same summary) */
    cJSON_Delete(d);
    /* a run against itself: every delta zero */
    const pc_summary *one[1] = {ssame};
    d = pc_diff(sa, one, 1, NULL);
    CHECK_EQ_S(sj_getstr(d, "verdict", ""), "unchanged");
    cJSON_ArrayForEach(r, sj_get(d, "kernels.rows")) CHECK_NEAR(sj_getnum(r, "runs.0.delta_ns", -1), 0, 0);
    cJSON_ArrayForEach(r, sj_get(d, "figures")) CHECK_NEAR(sj_getnum(r, "runs.0.delta", 0), 0, 0);
    cJSON_Delete(d);
    cJSON_Delete(a);
    cJSON_Delete(slow);
    cJSON_Delete(same);
    cJSON_Delete(few);
    pc_summary_free(sa);
    pc_summary_free(sslow);
    pc_summary_free(ssame);
    pc_summary_free(sfew);
}
