/* perfcard diff: statistics, name normalization, matching and verdicts. */
#include "test.h"
#include "util/sbuf.h"
#include "fixtures.h"
#include "compare/changepoint.h"
#include "compare/diff.h"
#include "compare/trend.h"
#include "render/report.h"
#include "render/trendreport.h"
#include "summary/summary.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

TEST(diff_student_t_and_welch_hand_computed) {
    /* scipy.stats: 2 * t.sf(2.0, 8) = 0.0805162; 2 * t.sf(3.0, 4) = 0.0399412; t with 1 degree of
     * freedom is Cauchy: P(|T| > 1) = 0.5 exactly */
    CHECK_NEAR(pc_student_t_p(2.0, 8), 0.0805162, 1e-6);
    CHECK_NEAR(pc_student_t_p(-3.0, 4), 0.0399412, 1e-6);
    CHECK_NEAR(pc_student_t_p(1.0, 1), 0.5, 1e-9);
    CHECK_NEAR(pc_student_t_p(0, 5), 1.0, 1e-12);
    /* means 3 and 5, variances 2.5 and 2.5: se = 1, t = 2, Welch df = 1 / (2 * 0.25^2 / 4) = 8 */
    double a[] = {1, 2, 3, 4, 5}, b[] = {3, 4, 5, 6, 7}, df;
    CHECK_NEAR(pc_welch_p(a, 5, b, 5, &df), 0.0805162, 1e-6);
    CHECK_NEAR(df, 8, 1e-9);
}

/* a summary whose steps have these durations (ns) and breakdowns */
static cJSON *steps_doc(const double *d, int n, const char *extra_row4) {
    cJSON *doc = cJSON_Parse("{\"schema\":\"perfcard.summary/1\",\"run\":{\"input\":\"/some/dir/run.pt.trace.json\"},\"steps\":{}}");
    cJSON *st = cJSON_GetObjectItem(doc, "steps"), *du = cJSON_AddArrayToObject(st, "durations_ns"), *rows = cJSON_AddArrayToObject(st, "rows");
    cJSON_AddNumberToObject(st, "count", n);
    for (int i = 0; i < n; i++) {
        cJSON_AddItemToArray(du, cJSON_CreateNumber(d[i]));
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "number", 10 + i);
        cJSON *b = cJSON_AddObjectToObject(r, "breakdown");
        cJSON_AddNumberToObject(b, "kernel_ns", d[i] * 0.75); /* three quarters device, a quarter data loading */
        cJSON_AddNumberToObject(b, "dataloader_ns", d[i] * 0.25);
        if (i == 4 && extra_row4) {
            cJSON_AddNumberToObject(r, "one_off_names", 2);
            cJSON_AddStringToObject(r, "one_off_name", extra_row4);
        }
        cJSON_AddItemToArray(rows, r);
    }
    return doc;
}

/* the kept steps of a summary document, read as summary.json is (validated) */
static void run_steps_of_doc(const cJSON *doc, pc_run_steps *r) {
    pc_summary *ps = NULL;
    pc_err err = {0};
    char note[256];
    memset(r, 0, sizeof *r);
    if (pc_summary_validate(doc, &ps, note, sizeof note, &err)) return;
    pc_run_steps_of(ps, r);
    pc_summary_free(ps);
}

TEST(diff_kept_steps) {
    /* warm-up (the first), one-off work (step 14), an outlier (step 17: +80%, far beyond 3.5 MADs) */
    double d[] = {150, 100, 101, 99, 100, 102, 98, 180};
    cJSON *doc = steps_doc(d, 8, "autotune_kernel");
    pc_run_steps r;
    run_steps_of_doc(doc, &r);
    CHECK_EQ_I(r.n, 8);
    CHECK_EQ_I(r.kept, 5);
    CHECK_EQ_I(r.nexcl, 3);
    CHECK_EQ_I(r.excl[0].step, 10);
    CHECK_EQ_S(r.excl[0].reason, "warm-up");
    CHECK_EQ_I(r.excl[1].step, 14);
    CHECK_EQ_S(r.excl[1].reason, "one-off work");
    CHECK(strstr(r.excl[1].detail, "autotune_kernel") != NULL);
    CHECK_EQ_I(r.excl[2].step, 17);
    CHECK_EQ_S(r.excl[2].reason, "outlier");
    /* kept 100, 101, 99, 102, 98: mean 100, sd sqrt(10 / 4) */
    CHECK_NEAR(r.mean_ns, 100, 1e-9);
    CHECK_NEAR(r.cv_pct, sqrt(2.5), 1e-9);
    CHECK_NEAR(r.cat_ns[BK_KERNEL], 75, 1e-9);
    CHECK_NEAR(r.cat_ns[BK_DATA], 25, 1e-9);
    pc_run_steps_free(&r);
    cJSON_Delete(doc);
    /* every step with one-off work is the run's nature: nothing excluded for it; a step 15% off is no outlier */
    double e[] = {100, 100, 115, 100, 100};
    doc = steps_doc(e, 5, NULL);
    for (cJSON *row = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "steps"), "rows")->child; row; row = row->next)
        cJSON_AddNumberToObject(row, "one_off_names", 1);
    run_steps_of_doc(doc, &r);
    CHECK_EQ_I(r.kept, 4);
    CHECK_NEAR(r.mean_ns, (100 + 115 + 100 + 100) / 4.0, 1e-9);
    pc_run_steps_free(&r);
    cJSON_Delete(doc);
}

/* runs of n steps around mean m (ns), each step m * (1 + jitter) */
static void fake_run(pc_run_steps *r, double m, int n, double device_share) {
    memset(r, 0, sizeof *r);
    r->n = n + 1, r->kept = n;
    r->kept_ns = malloc((size_t)n * sizeof *r->kept_ns);
    r->excl = calloc(1, sizeof *r->excl);
    double s = 0, q = 0;
    for (int i = 0; i < n; i++) r->kept_ns[i] = m * (1 + 0.01 * ((i % 5) - 2)), s += r->kept_ns[i];
    r->mean_ns = s / n;
    for (int i = 0; i < n; i++) q += (r->kept_ns[i] - r->mean_ns) * (r->kept_ns[i] - r->mean_ns);
    r->cv_pct = 100 * sqrt(q / (n - 1)) / r->mean_ns;
    r->cat_rows = n, r->cat_ns[BK_KERNEL] = r->mean_ns * device_share, r->cat_ns[BK_DATA] = r->mean_ns * (1 - device_share);
}

TEST(diff_verdict_rules) {
    pc_run_steps b[5], w[5];
    pc_verdict v;
    pc_verdict_opts o = {2, 10};
    /* 5 runs a side, run means 100, 101, 99, 100.5, 99.5 (x1000) against 4% more: regressed by the runs */
    double rm[5] = {100, 101, 99, 100.5, 99.5};
    for (int i = 0; i < 5; i++) fake_run(&b[i], 1000 * rm[i], 10, 0.8), fake_run(&w[i], 1040 * rm[i], 10, 0.8);
    pc_verdict_of(b, 5, w, 5, &o, &v);
    CHECK(v.multi_run);
    CHECK_EQ_S(v.verdict, "regressed");
    CHECK_NEAR(v.delta_pct, 4, 1e-9);
    CHECK(v.p < 1e-3); /* t = ln 1.04 / (0.0079 sqrt(2/5)) = 7.8 with 8 degrees of freedom */
    CHECK(v.ci_low_pct > 2 && v.ci_low_pct < 4 && v.ci_high_pct > 4 && v.ci_high_pct < 6);
    /* the same runs on both sides: unchanged */
    pc_verdict_of(b, 5, b, 5, &o, &v);
    CHECK_EQ_S(v.verdict, "unchanged");
    CHECK_NEAR(v.delta_pct, 0, 1e-12);
    /* 1% more, under the 2% threshold but clearly not within it either when runs vary 10%: inconclusive,
     * with the runs that would decide it */
    double wide[5] = {90, 110, 95, 105, 100};
    for (int i = 0; i < 5; i++) pc_run_steps_free(&w[i]), fake_run(&w[i], 1010 * wide[i], 10, 0.8);
    pc_verdict_of(b, 5, w, 5, &o, &v);
    CHECK_EQ_S(v.verdict, "inconclusive");
    CHECK(v.runs_needed > 5);
    /* one run a side: +15% on the device clears the 10% floor; +15% of host time does not (twice the floor) */
    pc_run_steps one_b, one_w;
    fake_run(&one_b, 1000, 12, 0.8);
    fake_run(&one_w, 1150, 12, 0.8 * 1000 / 1150 + 0.15 * 1000 / 1150); /* the whole +150 on the device */
    pc_verdict_of(&one_b, 1, &one_w, 1, &o, &v);
    CHECK(!v.multi_run);
    CHECK_EQ_S(v.verdict, "regressed");
    pc_run_steps_free(&one_w);
    fake_run(&one_w, 1150, 12, 0.8 * 1000 / 1150); /* the whole +150 on the host */
    pc_verdict_of(&one_b, 1, &one_w, 1, &o, &v);
    CHECK_EQ_S(v.verdict, "inconclusive");
    CHECK(strstr(v.reason, "host time") != NULL);
    /* runs that would decide it: 2 (z 3.291 + 0.842) (sigma0 / ln 1.15)^2 with sigma0 = ln 1.2 / (5.959 sqrt 2)
     * = 0.0216: 0.82, and at least one run more than now */
    CHECK_EQ_I(v.runs_needed, 2);
    pc_run_steps_free(&one_w);
    fake_run(&one_w, 1250, 12, 0.8 * 1000 / 1250); /* +25% of host time: beyond twice the floor */
    pc_verdict_of(&one_b, 1, &one_w, 1, &o, &v);
    CHECK_EQ_S(v.verdict, "regressed");
    pc_run_steps_free(&one_w);
    fake_run(&one_w, 1050, 12, 0.8); /* +5% on the device: under the floor, over the threshold */
    pc_verdict_of(&one_b, 1, &one_w, 1, &o, &v);
    CHECK_EQ_S(v.verdict, "inconclusive");
    CHECK(strstr(v.reason, "noise floor") != NULL);
    pc_run_steps_free(&one_w);
    fake_run(&one_w, 1005, 12, 0.8); /* +0.5%: the whole interval within the 2% threshold */
    pc_verdict_of(&one_b, 1, &one_w, 1, &o, &v);
    CHECK_EQ_S(v.verdict, "unchanged");
    pc_run_steps_free(&one_w);
    pc_run_steps_free(&one_b);
    for (int i = 0; i < 5; i++) pc_run_steps_free(&b[i]), pc_run_steps_free(&w[i]);
}

/* Two runs a side, as ResNet-50 workers0 -> workers4 (run means 175.5, 151.5 -> 125.2, 121.0 ms), all of
 * the change host time (floor 2 x 10%). Expected, computed independently in Python (Student's density
 * integrated by Simpson's rule, quantiles by bisection on it): t(12) two-sided 0.001 = 4.3178, sigma0 =
 * 0.85 ln 1.2 / (4.3178 sqrt(10/12)) = 0.039318; pooled with the runs' sum of squares over 10 + 2 degrees of
 * freedom: s = 0.047305; se = sqrt(s^2 (1/2 + 1/2) + the steps' 2.22e-5) = 0.047539; d = -0.281261,
 * t = -5.916, p = 7.07e-5; interval exp(d +- 2.1788 se) - 1 = -31.94% to -16.28%. A third run a side at
 * the side's mean (163.5, 123.1): s = 0.043800, se = 0.035969, p = 1.72e-6. Failed before #36:
 * inconclusive (host time under twice the floor with fewer than 3 runs). */
TEST(diff_verdict_two_runs_a_side) {
    pc_run_steps b[4], w[4];
    pc_verdict v;
    pc_verdict_opts o = {2, 10};
    fake_run(&b[0], 175.5e6, 10, 0.6), fake_run(&b[1], 151.5e6, 10, 0.6);
    fake_run(&w[0], 125.2e6, 10, 0.6 * 163.5 / 123.1), fake_run(&w[1], 121.0e6, 10, 0.6 * 163.5 / 123.1);
    /* device time equal: kernel 0.6 x the base side's mean on both sides */
    for (int i = 0; i < 2; i++) w[i].cat_ns[BK_KERNEL] = 0.6 * 163.5e6, b[i].cat_ns[BK_KERNEL] = 0.6 * 163.5e6;
    for (int i = 0; i < 2; i++) w[i].cat_ns[BK_DATA] = w[i].mean_ns - 0.6 * 163.5e6, b[i].cat_ns[BK_DATA] = b[i].mean_ns - 0.6 * 163.5e6;
    pc_verdict_of(b, 2, w, 2, &o, &v);
    CHECK_EQ_S(v.verdict, "improved");
    CHECK_NEAR(v.delta_pct, -24.7095, 1e-3);
    CHECK_NEAR(v.floor_used_pct, 20, 1e-9);
    CHECK_NEAR(v.df, 12, 1e-12);
    CHECK_NEAR(v.run_noise_pct, 4.7305, 1e-3);
    CHECK_NEAR(v.p, 7.07e-5, 1e-7);
    CHECK_NEAR(v.ci_low_pct, -31.944, 0.005);
    CHECK_NEAR(v.ci_high_pct, -16.279, 0.005);
    CHECK_NEAR(pc_student_t_quantile(0.001, 12), 4.3178, 1e-3);
    CHECK_NEAR(pc_student_t_quantile(0.05, 12), 2.1788, 1e-3);
    CHECK_NEAR(pc_prior_sigma0(log(1.2)), 0.039318, 1e-6);
    /* one of these runs a side: improved too (-28.7% against the 20% floor) */
    pc_verdict_of(b, 1, w, 1, &o, &v);
    CHECK_EQ_S(v.verdict, "improved");
    /* the same runs twice (4 a side, as consistent as before): still improved, p smaller */
    double p2 = v.p;
    pc_verdict_of(b, 2, w, 2, &o, &v);
    p2 = v.p;
    b[2] = b[0], b[3] = b[1], w[2] = w[0], w[3] = w[1]; /* shallow copies, not freed */
    pc_verdict_of(b, 4, w, 4, &o, &v);
    CHECK_EQ_S(v.verdict, "improved");
    CHECK(v.p < p2);
    /* a third run a side at the side's mean: still improved */
    pc_run_steps mb, mw;
    fake_run(&mb, 163.5e6, 10, 0.6), fake_run(&mw, 123.1e6, 10, 0.6);
    mb.cat_ns[BK_KERNEL] = mw.cat_ns[BK_KERNEL] = 0.6 * 163.5e6;
    mb.cat_ns[BK_DATA] = mb.mean_ns - 0.6 * 163.5e6, mw.cat_ns[BK_DATA] = mw.mean_ns - 0.6 * 163.5e6;
    b[2] = mb, w[2] = mw;
    pc_verdict_of(b, 3, w, 3, &o, &v);
    CHECK_EQ_S(v.verdict, "improved");
    CHECK_EQ_S(v.test, "t on runs, run noise with the floor's prior");
    CHECK_NEAR(v.p, 1.72298e-6, 2e-9);
    CHECK(v.p < p2);
    pc_run_steps_free(&mb), pc_run_steps_free(&mw);
    for (int i = 0; i < 2; i++) pc_run_steps_free(&b[i]), pc_run_steps_free(&w[i]);
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
                              "\"durations_ns\":[130,131,129,130,132,128],\"median_ns\":130,\"p90_ns\":132},"
                              "\"kernels\":{\"devices\":[{\"device\":0,\"rows\":[]}]},\"operators\":{\"rows\":[]}}");
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(slow, "kernels")->child->child, "rows", cJSON_Parse(ks2));
    cJSON *same = cJSON_Duplicate(a, 1);
    cJSON *few = cJSON_Parse("{\"schema\":\"perfcard.summary/1\",\"run\":{\"input\":\"c\"},\"steps\":{\"count\":2,"
                             "\"durations_ns\":[150,150],\"median_ns\":150,\"p90_ns\":150}}");
    pc_summary *sa = summary_of(a), *sslow = summary_of(slow), *ssame = summary_of(same), *sfew = summary_of(few);
    CHECK(sa && sslow && ssame && sfew);
    const pc_summary *ba[1] = {sa}, *r0[1] = {sslow}, *r1[1] = {ssame}, *r2[1] = {sfew};
    pc_diff_side base = {NULL, ba, 1}, runs[3] = {{NULL, r0, 1}, {"same", r1, 1}, {NULL, r2, 1}};
    pc_diff_result *d = pc_diff(&base, runs, 3, NULL);
    CHECK(d);
    CHECK_EQ_I(d->nchanges, 3);
    CHECK_EQ_S(d->changes[0].v.verdict, "regressed");
    /* kept steps (the first is warm-up): 101, 99, 100, 102, 98 against 131, 129, 130, 132, 128; no breakdown, so
     * the change must clear twice the noise floor, which +30% does */
    CHECK_NEAR(d->changes[0].v.delta_pct, 30, 1e-9);
    CHECK_EQ_S(d->changes[1].side.label, "same");
    CHECK_EQ_S(d->base.label, "a");
    CHECK_EQ_S(d->changes[1].v.verdict, "unchanged");
    CHECK_NEAR(d->changes[1].v.new_ns - d->changes[1].v.base_ns, 0, 0);
    CHECK_EQ_S(d->changes[2].v.verdict, "inconclusive"); /* 2 steps */
    CHECK_EQ_S(d->verdict, "regressed");
    CHECK_EQ_S(d->headline, d->changes[0].headline);
    /* kernels: the sgemm renamed by tile size matches by normalized name and tops the list */
    const pc_diff_table *kt = &d->tables[PC_DT_KERNELS];
    CHECK(kt->nrows >= 3);
    const pc_diff_row *k0 = &kt->rows[0];
    CHECK_EQ_S(k0->name, "volta_sgemm_128x64_nn");
    CHECK_EQ_S(k0->matched_by, "normalized name");
    CHECK_NEAR(k0->runs[0].delta_ns, 300.0 / 6, 1e-9); /* per step: 6 steps a side */
    CHECK_NEAR(k0->runs[0].ratio, 1.3, 1e-12);
    int added = 0, removed = 0;
    for (int i = 0; i < kt->nrows; i++) {
        if (!strcmp(kt->rows[i].name, "new_kernel")) added = !strcmp(kt->rows[i].status, "added");
        if (!strcmp(kt->rows[i].name, "gone_kernel")) removed = !strcmp(kt->rows[i].status, "matched");
    }
    CHECK(added);
    CHECK(removed); /* present in the base and in run 2 (the same summary) */
    /* diff.json carries the same figures */
    cJSON *j = pc_diff_json(d);
    CHECK_EQ_S(sj_getstr(j, "schema", ""), "perfcard.diff/2");
    CHECK_EQ_S(sj_getstr(j, "runs.0.verdict", ""), "regressed");
    CHECK_NEAR(sj_getnum(j, "runs.0.step_time.delta_pct", 0), 30, 1e-9);
    CHECK_EQ_S(sj_getstr(j, "kernels.rows.0.matched_by", ""), "normalized name");
    CHECK_NEAR(sj_getnum(j, "kernels.rows.0.runs.0.delta_ns", 0), 50, 1e-9);
    CHECK(cJSON_IsNull(sj_get(j, "runs.1.step_time.p_value")) == !d->changes[1].v.has_test);
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(j, "figures")), d->nfigures);
    /* diff.json streamed a row at a time is cJSON's text of the whole document, byte for byte (two
     * changes) */
    char *whole = cJSON_Print(j);
    sbuf txt = {0};
    pc_diff_json_text(d, &txt);
    CHECK_EQ_S(txt.data, whole);
    free(whole);
    sbuf_free(&txt);
    /* a view's document: the first rows of each table, nothing else left out */
    cJSON *v1 = pc_diff_json_view(d, 1);
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(v1, "kernels.rows")), 1);
    CHECK_EQ_S(sj_getstr(v1, "kernels.rows.0.name", ""), "volta_sgemm_128x64_nn");
    CHECK_EQ_I(sj_getnum(v1, "kernels.total", -1), sj_getnum(j, "kernels.total", -2));
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(v1, "figures")), d->nfigures);
    cJSON_Delete(v1);
    cJSON_Delete(j);
    pc_diff_free(d);
    /* a run against itself: every delta zero */
    d = pc_diff(&base, &runs[1], 1, NULL);
    CHECK_EQ_S(d->verdict, "unchanged");
    for (int i = 0; i < d->tables[PC_DT_KERNELS].nrows; i++) CHECK_NEAR(d->tables[PC_DT_KERNELS].rows[i].runs[0].delta_ns, 0, 0);
    for (int i = 0; i < d->nfigures; i++) CHECK_NEAR(d->figures[i].runs[0].delta, 0, 0);
    pc_diff_free(d);
    cJSON_Delete(a);
    cJSON_Delete(slow);
    cJSON_Delete(same);
    cJSON_Delete(few);
    pc_summary_free(sa);
    pc_summary_free(sslow);
    pc_summary_free(ssame);
    pc_summary_free(sfew);
}

/* Component verdicts (#36), one run a side: kernel K 40 -> 48 ns per step (SD 1 and 1.2 over 5 counted
 * steps), L 20 -> 20.5 (SD 2 and 2); the step +8% (inconclusive: no breakdown, twice the 10% floor).
 * Hand (Python, Student's density by Simpson's rule): K d = ln 1.2 = 0.182322, se sqrt(0.025^2/5 +
 * 0.025^2/5) = 0.0158114, Welch df 8, t 11.531, p 2.903e-6, 95% interval expm1(d -+ 2.306004 se):
 * +15.70% to +24.46% (beyond the floor); L p 0.7030 (df 7.995). Holm over 2: K's bar 0.05 / 2 =
 * 0.025, L's 0.05. Failed before: no components. */
TEST(diff_component_named_when_step_inconclusive) {
    const char *fmt = "{\"schema\":\"perfcard.summary/1\",\"run\":{\"input\":\"%s\"},\"steps\":{\"count\":6,"
                      "\"durations_ns\":[%s]},\"kernels\":{\"steps_counted\":5,\"devices\":[{\"device\":0,\"rows\":["
                      "{\"name\":\"K\",\"total_ns\":%d,\"step_mean_ns\":%s,\"step_sd_ns\":%s},"
                      "{\"name\":\"L\",\"total_ns\":%d,\"step_mean_ns\":%s,\"step_sd_ns\":2}]}]}}";
    char ja[1024], jb[1024];
    snprintf(ja, sizeof ja, fmt, "a", "100,101,99,100,102,98", 240, "40", "1", 120, "20");
    snprintf(jb, sizeof jb, fmt, "b", "108,109,107,108,110,106", 288, "48", "1.2", 123, "20.5");
    cJSON *a = cJSON_Parse(ja), *b = cJSON_Parse(jb);
    CHECK(a && b);
    pc_summary *sa = summary_of(a), *sb = summary_of(b);
    CHECK(sa && sb);
    const pc_summary *ba[1] = {sa}, *bb[1] = {sb};
    pc_diff_side base = {NULL, ba, 1}, nw = {NULL, bb, 1};
    pc_diff_result *d = pc_diff(&base, &nw, 1, NULL);
    const pc_diff_change *x = &d->changes[0];
    CHECK_EQ_S(x->v.verdict, "inconclusive");
    CHECK_EQ_I(x->ncomp, 2);
    CHECK_EQ_I(x->comp_regressed, 1);
    CHECK_EQ_S(x->comp[0].name, "K");
    CHECK_EQ_S(x->comp[0].verdict, "regressed");
    CHECK_NEAR(x->comp[0].delta_pct, 20, 1e-9);
    CHECK_NEAR(x->comp[0].p / 2.9032e-6, 1, 1e-3);
    CHECK_NEAR(x->comp[0].p_bar, 0.025, 1e-12);
    CHECK_NEAR(x->comp[0].lo_pct, 15.7035, 1e-3);
    CHECK_NEAR(x->comp[0].hi_pct, 24.4561, 1e-3);
    CHECK_NEAR(x->comp[0].base_sd_pct, 2.5, 1e-9);
    CHECK_EQ_S(x->comp[1].name, "L");
    CHECK_EQ_S(x->comp[1].verdict, "within noise");
    CHECK_NEAR(x->comp[1].p, 0.7030, 1e-3);
    cJSON *j = pc_diff_json(d);
    CHECK_EQ_S(sj_getstr(j, "runs.0.components.0.verdict", ""), "regressed");
    CHECK_EQ_I(sj_getnum(j, "runs.0.components_regressed", -1), 1);
    cJSON_Delete(j);
    pc_diff_free(d);
    /* without per-step kernel figures nothing is tested, and the note says why */
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(a, "kernels"), "steps_counted");
    pc_summary *sa2 = summary_of(a);
    const pc_summary *ba2[1] = {sa2};
    pc_diff_side base2 = {NULL, ba2, 1};
    d = pc_diff(&base2, &nw, 1, NULL);
    CHECK_EQ_I(d->changes[0].ncomp, 0);
    CHECK(strstr(d->changes[0].comp_note, "no per-step kernel times") != NULL);
    pc_diff_free(d);
    pc_summary_free(sa), pc_summary_free(sa2), pc_summary_free(sb);
    cJSON_Delete(a), cJSON_Delete(b);
}

/* A kernel swap (#47): under operator "conv", kernel K 40 -> 48 ns per step (SD 1 -> 1.2) and M
 * 30 -> 22 (SD 1 -> 1), 5 counted steps a side; the step +8%, inconclusive. K and M each move
 * beyond their noise (K as in diff_component_named_when_step_inconclusive), but conv's kernels sum
 * to 70 -> 70 ns: the same work on another algorithm, so both read "algorithm changed" and
 * nothing is named regressed (--fail-on kernel-regression passes). Failed before: K regressed.
 * The control: K 40 -> 48 beside N 10 -> 10 (SD 1) under conv: conv 50 -> 58, +16%; by hand
 * (Welch on the log sums, delta method): d = ln 1.16 = 0.148420, se = sqrt(2/(50^2*5) +
 * 2.44/(58^2*5)) = 0.017466, df 7.98, t 2.306: 95% +11.4% to +20.8%, beyond the 10% floor,
 * p 2.9e-5 (t 8.50): K stays regressed and gates. */
TEST(diff_kernel_swap_is_not_a_regression) {
    const char *fmt = "{\"schema\":\"perfcard.summary/1\",\"run\":{\"input\":\"%s\"},\"steps\":{\"count\":6,"
                      "\"durations_ns\":[%s]},\"kernels\":{\"steps_counted\":5,\"devices\":[{\"device\":0,\"rows\":["
                      "{\"name\":\"K\",\"operator\":\"conv\",\"total_ns\":1,\"step_mean_ns\":%s,\"step_sd_ns\":%s},"
                      "{\"name\":\"%s\",\"operator\":\"conv\",\"total_ns\":1,\"step_mean_ns\":%s,\"step_sd_ns\":1}]}]}}";
    for (int control = 0; control < 2; control++) {
        char ja[1024], jb[1024];
        snprintf(ja, sizeof ja, fmt, "a", "100,101,99,100,102,98", "40", "1", control ? "N" : "M", control ? "10" : "30");
        snprintf(jb, sizeof jb, fmt, "b", "108,109,107,108,110,106", "48", "1.2", control ? "N" : "M", control ? "10" : "22");
        cJSON *a = cJSON_Parse(ja), *b = cJSON_Parse(jb);
        CHECK(a && b);
        pc_summary *sa = summary_of(a), *sb = summary_of(b);
        CHECK(sa && sb);
        const pc_summary *ba[1] = {sa}, *bb[1] = {sb};
        pc_diff_side base = {NULL, ba, 1}, nw = {NULL, bb, 1};
        pc_diff_result *d = pc_diff(&base, &nw, 1, NULL);
        const pc_diff_change *x = &d->changes[0];
        CHECK_EQ_S(x->v.verdict, "inconclusive");
        const pc_diff_component *k = NULL;
        for (int i = 0; i < x->ncomp; i++)
            if (!strcmp(x->comp[i].name, "K")) k = &x->comp[i];
        CHECK(k != NULL);
        if (k) {
            CHECK_EQ_S(k->verdict, control ? "regressed" : "algorithm changed");
            CHECK_EQ_S(k->under ? k->under : "", "conv");
            CHECK_NEAR(k->under_base_ns, control ? 50 : 70, 1e-9);
            CHECK_NEAR(k->under_new_ns, control ? 58 : 70, 1e-9);
        }
        CHECK_EQ_I(x->comp_regressed, control ? 1 : 0);
        if (!control) {
            CHECK_EQ_I(x->ncomp, 2);
            CHECK_EQ_S(x->comp[1].verdict, "algorithm changed"); /* M -26.7%: the other side of the swap */
        }
        cJSON *j = pc_diff_json(d);
        CHECK_EQ_S(sj_getstr(j, "runs.0.components.0.under", ""), "conv");
        cJSON_Delete(j);
        pc_diff_free(d);
        pc_summary_free(sa), pc_summary_free(sb);
        cJSON_Delete(a), cJSON_Delete(b);
    }
}

TEST(changepoint_e_divisive_hand_computed) {
    /* x = 0 0 1 1: tau = 2 gives between 2/(2*2)*4 = 2, no spread within: q = (2*2/4)*2 = 2;
     * tau = 1 gives (1*3/4)*(4/3 - 0 - 2/3) = 0.5, tau = 3 the same: the best split is 2 */
    double x[] = {0, 0, 1, 1}, q = 0;
    CHECK_EQ_I(pc_cp_best(x, 4, 1, &q), 2);
    CHECK_NEAR(q, 2, 1e-12);
    CHECK_EQ_I(pc_cp_best(x, 4, 3, &q), -1); /* no split leaves 3 a side */
    /* a level shift after 10 runs: one change point, at the 11th run */
    double y[20], z[20];
    for (int i = 0; i < 20; i++) y[i] = (i < 10 ? 100 : 110) + 0.5 * ((i * 7) % 3 - 1), z[i] = 100 + 0.5 * ((i * 7) % 3 - 1);
    pc_cp cp[4];
    CHECK_EQ_I(pc_changepoints(y, 20, 2, cp, 4), 1);
    CHECK_EQ_I(cp[0].at, 10);
    CHECK(cp[0].p < 0.05);
    /* the same jitter without the shift: none */
    CHECK_EQ_I(pc_changepoints(z, 20, 2, cp, 4), 0);
}

TEST(trend_from_points) {
    /* the history from points alone (as a history database gives them): the top kernels are summed
     * over the runs' own lists, a run without a kernel counts 0 for it; the order and step times kept.
     * k1: 10 + 12 = 22 per step over the runs, k2: 15 + 0 = 15, k3: 1 + 1 = 2 -> k1, k2, k3 */
    pc_trend_kernel k0[] = {{"k2", 15}, {"k1", 10}, {"k3", 1}}, k1[] = {{"k1", 12}, {"k3", 1}};
    pc_trend_point p[2] = {{.label = "a", .input = "x.json", .step_ns = 100, .steps = 5, .kept_steps = 4, .start_us = NAN,
                            .run_kernels = k0, .nrun_kernels = 3},
                           {.label = "b", .input = "y.json", .step_ns = 110, .steps = 5, .kept_steps = 4, .start_us = NAN,
                            .run_kernels = k1, .nrun_kernels = 2}};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < BK_N; k++) p[i].cat_ns[k] = NAN;
    pc_trend_result *t = pc_trend_points(p, 2, NULL);
    CHECK_EQ_I(t->nruns, 2);
    CHECK_EQ_I(t->nkernels, 3);
    CHECK_EQ_S(t->kernels[0], "k1");
    CHECK_EQ_S(t->kernels[1], "k2");
    CHECK_EQ_S(t->kernels[2], "k3");
    CHECK_NEAR(t->runs[1].kernel_ns[1], 0, 0);
    CHECK_NEAR(t->runs[0].kernel_ns[1], 15, 0);
    CHECK_EQ_I(t->runs[1].index, 2);
    CHECK_EQ_S(t->runs[1].label, "b");
    CHECK_NEAR(t->runs[1].step_ns, 110, 0);
    CHECK(t->runs[0].run_kernels == NULL);
    CHECK_EQ_I(t->ncategories, 0);
    CHECK_EQ_S(t->newest.verdict, "insufficient history");
    pc_trend_free(t);
}

TEST(trend_utc_checked) {
    /* a date trend believes: YYYY-MM-DDTHH:MM:SSZ, a real UTC time, 2000..2099 */
    CHECK(pc_trend_utc_ok("2021-06-08T08:57:03Z"));
    CHECK(pc_trend_utc_ok("2000-01-01T00:00:00Z"));
    CHECK(pc_trend_utc_ok("2099-12-31T23:59:59Z"));
    CHECK(pc_trend_utc_ok("2024-02-29T12:00:00Z")); /* a leap day */
    static const char *const bad[] = {"1999-12-31T23:59:59Z", "2100-01-01T00:00:00Z", "2023-02-29T12:00:00Z", "2021-06-31T00:00:00Z",
                                      "2021-06-08T24:00:00Z", "2021-06-08T08:60:00Z", "2021-06-08 08:57:03Z", "2021-06-08T08:57:03",
                                      "2021-06-08T08:57:03+00:00", "2021-6-08T08:57:03Z", "<script>x</script>xx", "", NULL};
    for (int i = 0; i < (int)(sizeof bad / sizeof *bad); i++) CHECK_MSG(!pc_trend_utc_ok(bad[i]), "accepted %s", bad[i] ? bad[i] : "NULL");
}

TEST(trend_newest_run) {
    /* 6 runs near 100, then one at 115: a regression (+15%, far beyond 3 standard deviations); at 102: ok */
    double lvl[7] = {100, 101, 99, 100, 100.5, 99.5, 115};
    pc_summary *s[7];
    cJSON *doc[8];
    pc_trend_run runs[7];
    for (int i = 0; i < 7; i++) {
        double d[6];
        for (int k = 0; k < 6; k++) d[k] = lvl[i];
        s[i] = summary_of(doc[i] = steps_doc(d, 6, NULL));
        runs[i] = (pc_trend_run){s[i], NULL, NULL};
    }
    pc_trend_result *t = pc_trend(runs, 7, NULL);
    CHECK_EQ_S(t->newest.verdict, "regression");
    CHECK_EQ_I(t->newest.run, 7);
    /* history: the 6 runs' mean 100, sample sd sqrt(2.5 / 5) */
    CHECK_NEAR(t->newest.history_mean_ns, 100, 1e-9);
    CHECK_NEAR(t->newest.history_sd_ns, sqrt(0.5), 1e-9);
    CHECK_NEAR(t->newest.change_pct, 15, 1e-9);
    CHECK_EQ_S(t->runs[0].label, "run.pt.trace.json"); /* the file name, not its path */
    CHECK_NEAR(t->runs[6].step_ns, 115, 1e-9);
    cJSON *j = pc_trend_json(t);
    CHECK_EQ_S(sj_getstr(j, "verdict", ""), "regression");
    CHECK_NEAR(sj_getnum(j, "newest.change_pct", 0), 15, 1e-9);
    CHECK_NEAR(sj_getnum(j, "runs.6.step_ns", 0), 115, 1e-9);
    cJSON_Delete(j);
    pc_trend_free(t);
    pc_summary_free(s[6]);
    double d[6] = {102, 102, 102, 102, 102, 102};
    s[6] = summary_of(doc[7] = steps_doc(d, 6, NULL));
    runs[6].summary = s[6];
    t = pc_trend(runs, 7, NULL);
    CHECK_EQ_S(t->newest.verdict, "ok");
    pc_trend_free(t);
    t = pc_trend(runs, 3, NULL);
    CHECK_EQ_S(t->newest.verdict, "insufficient history");
    CHECK(isnan(t->newest.change_pct));
    j = pc_trend_json(t);
    CHECK(cJSON_IsNull(sj_get(j, "newest.change_pct")));
    CHECK(!sj_get(j, "newest.history_mean_ns"));
    cJSON_Delete(j);
    pc_trend_free(t);
    for (int i = 0; i < 7; i++) pc_summary_free(s[i]);
    for (int i = 0; i < 8; i++) cJSON_Delete(doc[i]);
}

/* a history of runs whose steps all take lvl[i]: the trend over the first n, labelled r1, r2, ... */
enum { LV_MAX = 30 };
typedef struct lv_hist { pc_summary *s[LV_MAX]; cJSON *doc[LV_MAX]; pc_trend_run runs[LV_MAX]; char lab[LV_MAX][16]; int n; } lv_hist;
static void lv_make(lv_hist *h, const double *lvl, int n) {
    h->n = n;
    for (int i = 0; i < n; i++) {
        double d[6];
        for (int k = 0; k < 6; k++) d[k] = lvl[i];
        h->s[i] = summary_of(h->doc[i] = steps_doc(d, 6, NULL));
        snprintf(h->lab[i], sizeof h->lab[i], "r%d", i + 1);
        h->runs[i] = (pc_trend_run){h->s[i], h->lab[i], NULL};
    }
}
static void lv_free(lv_hist *h) {
    for (int i = 0; i < h->n; i++) pc_summary_free(h->s[i]), cJSON_Delete(h->doc[i]);
}

TEST(trend_one_slow_run_said_once) {
    /* 4 runs at about 100, then 145: the step is the newest run alone (k = 1), +45% against the mean
     * of runs 1-4 (100); the reason gives that figure once (trend.html's first screen shows it: a
     * browser check found '+45.0%' twice when the tail repeated the newest run's change) */
    double lvl[] = {100, 101, 99, 100, 145};
    lv_hist h;
    lv_make(&h, lvl, 5);
    pc_trend_result *t = pc_trend(h.runs, 5, NULL);
    CHECK_EQ_S(t->newest.verdict, "regression");
    CHECK_EQ_I(t->newest.level_runs, 1);
    const char *r = t->newest.reason, *a = strstr(r, "+45.0%");
    CHECK_MSG(a && !strstr(a + 1, "+45.0%"), "%s", r);
    CHECK_MSG(strstr(r, "measured against the mean of the 4 runs before (runs 1-4"), "%s", r);
    pc_trend_free(t);
    lv_free(&h);
}

TEST(trend_level_shift_in_the_last_two_runs) {
    /* issue #36: 4 fast runs, then +45% and +25% (workers4 x4, workers0 x2). The newest level starts
     * at run 5 (the split with the least within-level sum of squares among those whose every newest
     * run lies beyond the midpoint of the two means: runs 5-6, SSE 2 + 200 = 202; runs 6 alone: 1622 + 0).
     * Reference runs 1-4: mean 100, sd sqrt(2/3); the level 135: +35%; pooled sd sqrt(202 / 4);
     * t = 35 / (sqrt(50.5) sqrt(1/4 + 1/2)) = 5.687; the newest run +25%. E-divisive cannot call it:
     * with 4 runs before, 2 of C(4 + k, k) orderings reach p < 0.05 only from k = 4 (2/70). */
    double lvl[] = {100, 101, 99, 100, 145, 125};
    lv_hist h;
    lv_make(&h, lvl, 6);
    pc_trend_result *t = pc_trend(h.runs, 6, NULL);
    CHECK_EQ_S(t->newest.verdict, "regression");
    CHECK_EQ_I(t->ncps, 0);
    CHECK_EQ_I(t->newest.shift_run, 5);
    CHECK_EQ_I(t->newest.level_runs, 2);
    CHECK_EQ_I(t->newest.reference_first, 1);
    CHECK_EQ_I(t->newest.reference_runs, 4);
    CHECK_EQ_I(t->newest.confirmed, 0);
    CHECK_EQ_I(t->newest.cp_needs, 4);
    CHECK_NEAR(t->newest.history_mean_ns, 100, 1e-9);
    CHECK_NEAR(t->newest.history_sd_ns, sqrt(2.0 / 3), 1e-9);
    CHECK_NEAR(t->newest.level_change_pct, 35, 1e-9);
    CHECK_NEAR(t->newest.change_pct, 25, 1e-9);
    CHECK_NEAR(t->newest.t, 35 / (sqrt(50.5) * sqrt(0.75)), 1e-9);
    CHECK_MSG(strstr(t->newest.reason, "2 runs after a +35.0% step at run 5 (r5): too few for the change-point test to call it "
                                       "(it needs at least 4 runs after a shift with 4 before)") &&
                  strstr(t->newest.reason, "the newest run is +25.0% above the mean of the 4 runs before"),
              "%s", t->newest.reason);
    CHECK(!strstr(t->newest.reason, "since the last change point"));
    /* #47: the badge says what the sentence says: a regression the change-point test has not called */
    char *dir = tmp_path("trend_badge");
    pc_report_opts ro = {dir, OUT_MD | OUT_HTML, NULL, 0, NULL, NULL, NULL};
    pc_err err = {0};
    CHECK_EQ_I(pc_trend_write(t, &ro, &err), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/trend.md", dir);
    FILE *f = fopen(path, "r");
    char line[256] = "";
    CHECK(f && fgets(line, sizeof line, f));
    if (f) fclose(f);
    CHECK_EQ_S(line, "## perfcard trend: newest run **regression, not yet a confirmed change point**\n");
    free(dir);
    cJSON *j = pc_trend_json(t);
    CHECK_EQ_I(sj_getnum(j, "newest.shift_run", 0), 5);
    CHECK_EQ_I(sj_getnum(j, "newest.cp_needs", 0), 4);
    CHECK(cJSON_IsNull(sj_get(j, "accepted_run")));
    cJSON_Delete(j);
    pc_trend_free(t);
    /* run 5 alone: +45% against the same 4 (t = 45 / (sqrt(2 / 3) sqrt(5/4))) */
    t = pc_trend(h.runs, 5, NULL);
    CHECK_EQ_S(t->newest.verdict, "regression");
    CHECK_EQ_I(t->newest.shift_run, 5);
    CHECK_NEAR(t->newest.change_pct, 45, 1e-9);
    CHECK_NEAR(t->newest.t, 45 / (sqrt(2.0 / 3) * sqrt(1.25)), 1e-9);
    CHECK_MSG(strstr(t->newest.reason, "1 run after a +45.0% step at run 5 (r5)"), "%s", t->newest.reason);
    pc_trend_free(t);
    /* --accept r5: runs 5 and 6 are the baseline; 1 run before the newest: insufficient history */
    pc_trend_opts o = {5, 0, "r5"};
    t = pc_trend(h.runs, 6, &o);
    CHECK_EQ_S(t->newest.verdict, "insufficient history");
    CHECK_EQ_I(t->accepted_run, 5);
    pc_trend_free(t);
    lv_free(&h);
}

TEST(trend_shift_kept_flagged_until_accepted) {
    /* 10 runs at 100, 10 at 110 (+-0.5 jitter): E-divisive confirms the change at run 11, and the
     * newest run stays a regression against runs 1-10 (today's rule judged it against runs 11-19: ok) */
    double lvl[20];
    for (int i = 0; i < 20; i++) lvl[i] = (i < 10 ? 100 : 110) + 0.5 * ((i * 7) % 3 - 1);
    lv_hist h;
    lv_make(&h, lvl, 20);
    pc_trend_result *t = pc_trend(h.runs, 20, NULL);
    CHECK_EQ_S(t->newest.verdict, "regression");
    CHECK_EQ_I(t->ncps, 1);
    CHECK_EQ_I(t->newest.shift_run, 11);
    CHECK_EQ_I(t->newest.confirmed, 1);
    CHECK_EQ_I(t->newest.reference_first, 1);
    CHECK_EQ_I(t->newest.reference_runs, 10);
    double m0 = 0;
    for (int i = 0; i < 10; i++) m0 += lvl[i] / 10; /* 99.95: the jitters of runs 1-10 sum to -0.5 */
    CHECK_NEAR(m0, 99.95, 1e-9);
    CHECK_NEAR(t->newest.history_mean_ns, m0, 1e-9);
    CHECK_NEAR(t->newest.change_pct, 100 * (lvl[19] - m0) / m0, 1e-9);
    pc_trend_free(t);
    /* accepted at run 11 (by label, by index, by file name when unique): runs 11-20 are the baseline, ok */
    const char *acc[] = {"r11", "11"};
    for (int a = 0; a < 2; a++) {
        pc_trend_opts o = {5, 0, acc[a]};
        t = pc_trend(h.runs, 20, &o);
        CHECK_EQ_S(t->newest.verdict, "ok");
        CHECK_EQ_I(t->accepted_run, 11);
        CHECK_EQ_I(t->newest.reference_first, 11);
        CHECK_EQ_I(t->newest.reference_runs, 9);
        CHECK_EQ_S(t->accept_error, "");
        pc_trend_free(t);
    }
    /* no such run, an index out of range, a file name shared by every run: an error, no verdict */
    const char *bad[] = {"r21", "0", "21", "run.pt.trace.json"};
    for (int a = 0; a < 4; a++) {
        pc_trend_opts o = {5, 0, bad[a]};
        t = pc_trend(h.runs, 20, &o);
        CHECK_MSG(t->accept_error[0], "--accept %s", bad[a]);
        pc_trend_free(t);
    }
    /* a partial fix at run 21 (112 to 106, -5.4%): against the level before, an improvement; against the
     * accepted baseline (runs 1-10) still +6%: a regression until accepted */
    lv_free(&h);
    double lv2[30];
    for (int i = 0; i < 30; i++) lv2[i] = (i < 10 ? 100 : i < 20 ? 112 : 106) + 0.5 * ((i * 7) % 3 - 1);
    lv_make(&h, lv2, 30);
    t = pc_trend(h.runs, 30, NULL);
    CHECK_EQ_S(t->newest.verdict, "regression");
    /* runs 21-30: 106 + jitters summing to +0.5, mean 106.05; runs 1-10: 99.95 */
    CHECK_NEAR(t->newest.baseline_change_pct, 100 * (106.05 / 99.95 - 1), 1e-9);
    CHECK_EQ_I(t->newest.shift_run, 21);
    CHECK_EQ_I(t->newest.reference_first, 11);
    CHECK(t->newest.level_change_pct < -5);
    CHECK_MSG(strstr(t->newest.reason, "the accepted baseline"), "%s", t->newest.reason);
    pc_trend_free(t);
    /* fixed at run 21 (back to 100): not a regression */
    lv_free(&h);
    for (int i = 20; i < 30; i++) lv2[i] = 100 + 0.5 * ((i * 7) % 3 - 1);
    lv_make(&h, lv2, 30);
    t = pc_trend(h.runs, 30, NULL);
    CHECK(strcmp(t->newest.verdict, "regression"));
    pc_trend_free(t);
    /* the newest run alone back to 100 after 5 slow runs: not a regression either */
    lv_free(&h);
    double lv3[] = {100, 101, 99, 100, 110, 111, 109, 110, 110.5, 100};
    lv_make(&h, lv3, 10);
    t = pc_trend(h.runs, 10, NULL);
    CHECK_MSG(strcmp(t->newest.verdict, "regression"), "%s", t->newest.reason);
    pc_trend_free(t);
    lv_free(&h);
}
