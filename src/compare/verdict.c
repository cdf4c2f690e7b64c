/* verdict.c - kept steps, run statistics and the verdict (see verdict.h). */
#include "verdict.h"
#include "../summary/summary.h"
#include "../util/shortname.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median of n values, v left sorted */
static double median_sorted(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double pc_steps_of(const pc_summary *summary) {
    double steps = PC_OR(PC_REC(summary, steps)->count, 0);
    return steps >= 1 ? steps : 1;
}

void pc_mean_sd(const double *v, int n, double *mean, double *sd) {
    double s = 0, q = 0;
    for (int i = 0; i < n; i++) s += v[i];
    *mean = n ? s / n : 0;
    for (int i = 0; i < n; i++) q += (v[i] - *mean) * (v[i] - *mean);
    *sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* ---------- kept steps ---------- */

static void exclude(pc_run_steps *r, int *keep, int i, int64_t number, const char *reason, const char *detail) {
    keep[i] = 0;
    pc_excluded *e = &r->excl[r->nexcl++];
    e->step = (int)number, e->reason = reason;
    snprintf(e->detail, sizeof e->detail, "%s", detail);
}

void pc_run_steps_of(const pc_summary *ps, pc_run_steps *r) {
    memset(r, 0, sizeof *r);
    const tab_steps *st = PC_REC(ps, steps);
    tk_V durs = st->durations_ns;
    int n = PC_OR(st->count, 0) > 0 && durs.n > 0 ? (int)durs.n : 0;
    r->n = n;
    r->kept_ns = xmalloc((size_t)(n ? n : 1) * sizeof *r->kept_ns);
    r->excl = xcalloc((size_t)(n ? n : 1), sizeof *r->excl);
    if (!n) return;
    double *d = xmalloc((size_t)n * sizeof *d), *tmp = xmalloc((size_t)n * sizeof *tmp);
    int *keep = xmalloc((size_t)n * sizeof *keep);
    const tab_step **row = xcalloc((size_t)n, sizeof *row);
    int64_t *num = xmalloc((size_t)n * sizeof *num);
    int i;
    for (i = 0; i < n; i++) {
        d[i] = isfinite(durs.v[i]) && durs.v[i] >= 0 ? durs.v[i] : 0;
        keep[i] = isfinite(durs.v[i]);
        num[i] = i + 1;
    }
    /* rows: all steps, or an even sample whose last row is the last step */
    const pc_table *rows = PC_TAB(ps, step);
    size_t nrows = rows ? rows->n : 0;
    long every = (long)PC_OR(st->rows_every, 1);
    if (every < 1) every = 1;
    for (size_t j = 0; j < nrows; j++) {
        const tab_step *sr = &TAB_ROWS(rows, step)[j];
        long idx = j == nrows - 1 ? n - 1 : (long)j * every;
        if (idx < 0 || idx >= n) continue;
        row[idx] = sr;
        double nb = PC_OR(sr->number, -1);
        if (nb >= 0 && nb < 1e15) num[idx] = (int64_t)nb;
    }
    char buf[160];
    if (n >= 2) exclude(r, keep, 0, num[0], "warm-up", "the first step");
    /* one-off work, unless it is most steps' nature */
    int oneoff = 0;
    for (i = 0; i < n; i++) oneoff += keep[i] && row[i] && PC_OR(row[i]->one_off_names, 0) > 0;
    if (oneoff && oneoff * 2 <= n)
        for (i = 0; i < n; i++) {
            double k = row[i] ? PC_OR(row[i]->one_off_names, 0) : 0;
            if (!keep[i] || k <= 0) continue;
            char *sn = pc_short_name(PC_S(row[i]->one_off_name, "?"), 0, PC_SHORT_CHART); /* the one short name, a chart label's length (#47 item 7) */
            snprintf(buf, sizeof buf, "%.0f name%s only this step runs, e.g. %s", k, k == 1 ? "" : "s", sn);
            free(sn);
            exclude(r, keep, i, num[i], "one-off work", buf);
        }
    /* extreme outliers among the rest */
    int m = 0;
    for (i = 0; i < n; i++)
        if (keep[i]) tmp[m++] = d[i];
    if (m >= 4) {
        double med = median_sorted(tmp, m);
        for (i = 0; i < m; i++) tmp[i] = fabs(tmp[i] - med);
        double mad = median_sorted(tmp, m);
        for (i = 0; mad > 0 && i < n; i++) {
            double z = 0.6745 * fabs(d[i] - med) / mad;
            if (!keep[i] || z <= 3.5 || fabs(d[i] - med) <= 0.2 * med) continue;
            snprintf(buf, sizeof buf, "%.3f ms against a median of %.3f ms (modified z-score %.1f)", d[i] / 1e6, med / 1e6, z);
            exclude(r, keep, i, num[i], "outlier", buf);
        }
    }
    for (i = 0; i < n; i++) {
        if (!keep[i]) continue;
        r->kept_ns[r->kept++] = d[i];
        if (!row[i]) continue;
        r->cat_rows++;
        for (int k = 0; k < BK_N; k++) r->cat_ns[k] += pc_bk_step(row[i], k);
    }
    for (int k = 0; r->cat_rows && k < BK_N; k++) r->cat_ns[k] /= r->cat_rows;
    double sd;
    pc_mean_sd(r->kept_ns, r->kept, &r->mean_ns, &sd);
    r->cv_pct = r->mean_ns > 0 ? 100 * sd / r->mean_ns : 0;
    free(d), free(tmp), free(keep), free(row), free(num);
}

void pc_run_steps_free(pc_run_steps *r) {
    free(r->kept_ns);
    free(r->excl);
    memset(r, 0, sizeof *r);
}

/* ---------- tests ---------- */

typedef struct obs { double v; int g; } obs;
static int cmp_obs(const void *p, const void *q) {
    const obs *x = p, *y = q;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Two-sided p-value of the Mann-Whitney U test, normal approximation with
 * tie correction and continuity correction. */
double pc_mann_whitney_p(const double *a, int na, const double *b, int nb) {
    int n = na + nb;
    if (na < 1 || nb < 1) return 1;
    obs *o = xmalloc((size_t)n * sizeof *o);
    for (int i = 0; i < na; i++) o[i] = (obs){a[i], 0};
    for (int i = 0; i < nb; i++) o[na + i] = (obs){b[i], 1};
    qsort(o, (size_t)n, sizeof *o, cmp_obs);
    double ra = 0, tie = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && o[j].v == o[i].v) j++;
        double rank = (i + 1 + j) / 2.0, t = j - i;
        for (int k = i; k < j; k++)
            if (o[k].g == 0) ra += rank;
        tie += t * t * t - t;
        i = j;
    }
    free(o);
    double u = ra - na * (na + 1) / 2.0, mu = na * (double)nb / 2;
    double sigma = sqrt(na * (double)nb / 12.0 * ((n + 1) - tie / ((double)n * (n - 1))));
    if (sigma <= 0) return 1;
    double z = (fabs(u - mu) - 0.5) / sigma;
    if (z < 0) z = 0;
    return erfc(z / sqrt(2.0));
}

/* regularized incomplete beta I_x(a, b) by its continued fraction
 * (modified Lentz), using the symmetry for x beyond the mean */
static double betacf(double a, double b, double x) {
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d, c = 1 + aa / c;
        if (fabs(d) < tiny) d = tiny;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d, h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d, c = 1 + aa / c;
        if (fabs(d) < tiny) d = tiny;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-14) break;
    }
    return h;
}
static double ibeta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double lb = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2)) return exp(lb) * betacf(a, b, x) / a;
    return 1 - exp(lb) * betacf(b, a, 1 - x) / b;
}

double pc_student_t_p(double t, double df) {
    if (!(df > 0) || isnan(t)) return 1;
    if (isinf(t)) return 0;
    return ibeta(df / 2, 0.5, df / (df + t * t));
}

double pc_welch_p(const double *a, int na, const double *b, int nb, double *df_out) {
    double ma, sa, mb, sb;
    pc_mean_sd(a, na, &ma, &sa);
    pc_mean_sd(b, nb, &mb, &sb);
    double va = sa * sa / na, vb = sb * sb / nb, se = sqrt(va + vb);
    if (df_out) *df_out = 0;
    if (na < 2 || nb < 2) return 1;
    if (se == 0) return ma == mb ? 1 : 0;
    double df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
    if (df_out) *df_out = df;
    return pc_student_t_p((mb - ma) / se, df);
}

/* ---------- the verdict ---------- */

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}
static double rng_unit(uint64_t *s) { return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0; }

/* one resample of a side: runs with replacement, then each picked run's
 * kept steps with replacement (a run of more than 1000 kept steps by the
 * normal law of its mean, which its resampled mean follows) */
static double resample_side(const pc_run_steps *const *r, int n, uint64_t *seed) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        const pc_run_steps *x = r[rng_next(seed) % (uint64_t)n];
        double m;
        if (x->kept > 1000) {
            double z = sqrt(-2 * log(rng_unit(seed))) * cos(2 * M_PI * rng_unit(seed));
            m = x->mean_ns + z * x->mean_ns * x->cv_pct / 100 / sqrt((double)x->kept);
        } else {
            double s = 0;
            for (int k = 0; k < x->kept; k++) s += x->kept_ns[rng_next(seed) % (uint64_t)x->kept];
            m = s / x->kept;
        }
        sum += m;
    }
    return sum / n;
}

/* percentile interval (2.5%, 97.5%) of the change in percent, seeded */
static void boot_interval(const pc_run_steps *const *b, int nb, const pc_run_steps *const *w, int nw, double *lo, double *hi) {
    enum { ITERS = 2000 };
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    double *v = xmalloc(ITERS * sizeof *v);
    for (int it = 0; it < ITERS; it++) {
        double mb = resample_side(b, nb, &seed), mw = resample_side(w, nw, &seed);
        v[it] = mb > 0 ? 100 * (mw / mb - 1) : 0;
    }
    qsort(v, ITERS, sizeof *v, cmp_d);
    *lo = v[(int)(0.025 * ITERS)];
    *hi = v[(int)(0.975 * ITERS) - 1];
    free(v);
}

/* the runs that have kept steps */
static int usable(const pc_run_steps *r, int n, const pc_run_steps **out) {
    int k = 0;
    for (int i = 0; i < n; i++)
        if (r[i].kept > 0) out[k++] = &r[i];
    return k;
}

static double side_mean(const pc_run_steps *const *r, int n, int device_only) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (!device_only) { s += r[i]->mean_ns; continue; }
        for (int k = 0; k < BK_N; k++)
            if (pc_bk[k].on_device) s += r[i]->cat_ns[k];
    }
    return n ? s / n : 0;
}

/* the t a two-sided p needs with df degrees of freedom (bisection on pc_student_t_p) */
double pc_student_t_quantile(double p, double df) {
    double lo = 0, hi = 1;
    while (pc_student_t_p(hi, df) > p && hi < 1e12) hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double m = (lo + hi) / 2;
        if (pc_student_t_p(m, df) > p) lo = m;
        else hi = m;
    }
    return (lo + hi) / 2;
}

double pc_prior_sigma0(double floor_log) {
    return PC_PRIOR_SHARE * floor_log / (pc_student_t_quantile(PC_ALPHA_RUNS, PC_PRIOR_DF + 2) * sqrt(PC_PRIOR_DF / (PC_PRIOR_DF + 2.0)));
}

void pc_runs_model(const double *a, const double *wa, int na, const double *b, const double *wb, int nb, double floor_log,
                   pc_runs_fit *f) {
    double ma, sa, mb, sb, w = 0;
    pc_mean_sd(a, na, &ma, &sa);
    pc_mean_sd(b, nb, &mb, &sb);
    for (int i = 0; i < na; i++) w += wa[i] / ((double)na * na);
    for (int i = 0; i < nb; i++) w += wb[i] / ((double)nb * nb);
    int df_obs = (na - 1) + (nb - 1);
    double ss = (na - 1) * sa * sa + (nb - 1) * sb * sb;
    f->sigma0 = pc_prior_sigma0(floor_log);
    f->df = PC_PRIOR_DF + df_obs;
    f->run_sd = sqrt((PC_PRIOR_DF * f->sigma0 * f->sigma0 + ss) / f->df);
    f->observed_sd = df_obs > 0 ? sqrt(ss / df_obs) : NAN;
    f->d = mb - ma;
    f->se = sqrt(f->run_sd * f->run_sd * (1.0 / na + 1.0 / nb) + w);
    f->p = f->se > 0 ? pc_student_t_p(f->d / f->se, f->df) : f->d == 0 ? 1 : 0;
    double q = pc_student_t_quantile(0.05, f->df);
    f->lo_pct = 100 * expm1(f->d - q * f->se);
    f->hi_pct = 100 * expm1(f->d + q * f->se);
}

/* the device's busy time moved the same rounded share as the step */
static int same_share(double dev, double d) { return fabs(round(dev * 10) - round(d * 10)) < 0.5; }

/* One run a side: the kept steps are the samples, but steps of one run cannot show run-to-run variation,
 * so a change counts only when the whole bootstrap interval lies beyond the noise floor (twice the floor
 * when the device's busy time does not carry the change), the Mann-Whitney test gives p < 0.05 and steps
 * vary by less than the floor within each run: the rule of perfcard before issue #36, unchanged. */
static void one_run_verdict(const pc_run_steps *b, const pc_run_steps *w, int ka, int kb, double cv, double dev, double thr,
                            double floor_, pc_verdict *v) {
    v->test = "mann-whitney (steps)";
    v->has_test = 1;
    v->p = pc_mann_whitney_p(b->kept_ns, b->kept, w->kept_ns, w->kept);
    double lo = v->ci_low_pct = v->boot_low_pct, hi = v->ci_high_pct = v->boot_high_pct, d = v->delta_pct;
    v->df = v->run_noise_pct = v->observed_noise_pct = NAN;
    v->runs_needed = 2;
    const char *more = "two runs a side (--base A1 A2 --new B1 B2) let the runs decide";
    int on_device = fabs(dev) > floor_ && dev * d > 0;
    double need = on_device ? floor_ : 2 * floor_;
    v->floor_used_pct = need;
    if (ka < PC_MIN_KEPT_STEPS || kb < PC_MIN_KEPT_STEPS) {
        snprintf(v->reason, sizeof v->reason, "too few steps to tell (%d and %d kept; at least %d each are needed); %s", ka, kb,
                 PC_MIN_KEPT_STEPS, more);
    } else if (cv > floor_) {
        snprintf(v->reason, sizeof v->reason,
                 "the step time moved %+.1f%%, but steps vary by up to %.1f%% (CV) within a run, more than the %.0f%% noise floor; %s",
                 d, cv, floor_, more);
    } else if (lo >= -thr && hi <= thr) {
        v->verdict = "unchanged";
        v->runs_needed = 0;
        snprintf(v->reason, sizeof v->reason,
                 "the step time moved %+.1f%%, and the whole 95%% interval (%+.1f%% to %+.1f%%) lies within the %.0f%% threshold",
                 d, lo, hi, thr);
    } else if (v->p < 0.05 && (lo > need || hi < -need)) {
        v->verdict = d > 0 ? "regressed" : "improved";
        v->runs_needed = 0;
        if (on_device && same_share(dev, d)) /* one figure once (#35) */
            snprintf(v->reason, sizeof v->reason,
                     "the step time moved %+.1f%% (95%% interval %+.1f%% to %+.1f%%; p = %.2g), beyond the %.0f%% noise floor, "
                     "and the device's busy time alone moved as much",
                     d, lo, hi, v->p, floor_);
        else if (on_device)
            snprintf(v->reason, sizeof v->reason,
                     "the step time moved %+.1f%% (95%% interval %+.1f%% to %+.1f%%; p = %.2g), beyond the %.0f%% noise floor, "
                     "and the device's busy time alone moved %+.1f%% of the step",
                     d, lo, hi, v->p, floor_, dev);
        else
            snprintf(v->reason, sizeof v->reason,
                     "the step time moved %+.1f%% (95%% interval %+.1f%% to %+.1f%%; p = %.2g), mostly host time (the device's "
                     "busy time moved %+.1f%% of the step), beyond twice the %.0f%% noise floor that host time needs",
                     d, lo, hi, v->p, dev, floor_);
    } else if (!on_device && (lo > floor_ || hi < -floor_))
        snprintf(v->reason, sizeof v->reason,
                 "the step time moved %+.1f%% (95%% interval %+.1f%% to %+.1f%%), but the device's busy time moved only %+.1f%% "
                 "of the step: the change is host time (data loading, CPU, runtime, idle), which varies between runs of the "
                 "same code, and it does not clear twice the %.0f%% noise floor; %s",
                 d, lo, hi, dev, floor_, more);
    else
        snprintf(v->reason, sizeof v->reason,
                 "the step time moved %+.1f%% (95%% interval %+.1f%% to %+.1f%%; p = %.2g), not clearly beyond the %.0f%% noise "
                 "floor that one run per side cannot tell from run-to-run variation; %s",
                 d, lo, hi, v->p, floor_, more);
}

void pc_verdict_of(const pc_run_steps *base, int nb_all, const pc_run_steps *nw, int nn_all, const pc_verdict_opts *o,
                   pc_verdict *v) {
    memset(v, 0, sizeof *v);
    double thr = o && o->threshold_pct > 0 ? o->threshold_pct : 2, floor_ = o && o->noise_floor_pct > 0 ? o->noise_floor_pct : 10;
    const pc_run_steps **b = xmalloc((size_t)(nb_all + 1) * sizeof *b), **w = xmalloc((size_t)(nn_all + 1) * sizeof *w);
    int nb = usable(base, nb_all, b), nw_ = usable(nw, nn_all, w);
    v->verdict = "inconclusive";
    v->base_ns = side_mean(b, nb, 0), v->new_ns = side_mean(w, nw_, 0);
    v->delta_pct = v->base_ns > 0 ? 100 * (v->new_ns - v->base_ns) / v->base_ns : 0;
    v->multi_run = nb >= PC_MIN_RUNS && nw_ >= PC_MIN_RUNS;
    if (!nb || !nw_) {
        snprintf(v->reason, sizeof v->reason, "no steps to compare (%s has none kept)", !nb ? "the baseline" : "the change");
        goto done;
    }
    boot_interval(b, nb, w, nw_, &v->boot_low_pct, &v->boot_high_pct);
    int ka = 0, kb = 0;
    double cv = 0;
    for (int i = 0; i < nb; i++) ka += b[i]->kept, cv = fmax(cv, b[i]->cv_pct);
    for (int i = 0; i < nw_; i++) kb += w[i]->kept, cv = fmax(cv, w[i]->cv_pct);
    /* the share of the change the device's busy time carries: host time (data loading, CPU, runtime,
     * idle) varies more between runs of the same code (two ResNet-50 profiles of one setup: data
     * loading 57 -> 33 ms per step, device time equal) */
    double dev = v->base_ns > 0 ? 100 * (side_mean(w, nw_, 1) - side_mean(b, nb, 1)) / v->base_ns : 0;
    double d = v->delta_pct;
    if (nb == 1 && nw_ == 1) {
        one_run_verdict(b[0], w[0], ka, kb, cv, dev, thr, floor_, v);
        goto done;
    }
    /* the model: each run's log step time, its steps' sampling variance (CV^2 / kept steps); the prior's
     * floor grows to twice the floor as the device's share of the change goes from all to none */
    double *la = xmalloc((size_t)nb * sizeof *la), *lb = xmalloc((size_t)nw_ * sizeof *lb);
    double *va = xmalloc((size_t)nb * sizeof *va), *vb = xmalloc((size_t)nw_ * sizeof *vb);
    for (int i = 0; i < nb; i++) la[i] = log(b[i]->mean_ns), va[i] = pow(b[i]->cv_pct / 100, 2) / b[i]->kept;
    for (int i = 0; i < nw_; i++) lb[i] = log(w[i]->mean_ns), vb[i] = pow(w[i]->cv_pct / 100, 2) / w[i]->kept;
    double share = d != 0 ? fmin(1, fmax(0, dev / d)) : 1;
    v->floor_used_pct = floor_ * (2 - share);
    pc_runs_fit f;
    pc_runs_model(la, va, nb, lb, vb, nw_, log1p(v->floor_used_pct / 100), &f);
    /* with 3 runs or more a side, Welch's t on the runs alone too (the union of the two tests) */
    double pw = v->multi_run ? pc_welch_p(la, nb, lb, nw_, NULL) : 1;
    free(la), free(lb), free(va), free(vb);
    v->has_test = 1;
    v->p = f.p, v->ci_low_pct = f.lo_pct, v->ci_high_pct = f.hi_pct;
    v->df = f.df, v->run_noise_pct = 100 * f.run_sd;
    v->observed_noise_pct = isfinite(f.observed_sd) ? 100 * f.observed_sd : NAN;
    double lo = f.lo_pct, hi = f.hi_pct, blo = v->boot_low_pct, bhi = v->boot_high_pct;
    /* with Welch's test beside it, the model at half the level: the union's false rate is at most 1.5 x 0.001 */
    double alpha_model = v->multi_run ? PC_ALPHA_RUNS / 2 : PC_ALPHA_RUNS;
    int by_model = f.p < alpha_model && (lo > 0 || hi < 0);
    int by_welch = !by_model && pw < PC_ALPHA_RUNS && (blo > 0 || bhi < 0);
    v->test = by_welch ? "welch-t (runs)" : "t on runs, run noise with the floor's prior";
    if (by_welch) v->p = pw, v->ci_low_pct = lo = blo, v->ci_high_pct = hi = bhi;
    char noise[300];
    int k = snprintf(noise, sizeof noise,
                     "runs vary by %.1f%% (the runs' own %.1f%% pooled with the %.1f%% prior of the %.0f%% noise floor; "
                     "%.0f degrees of freedom)",
                     v->run_noise_pct, v->observed_noise_pct, 100 * f.sigma0, v->floor_used_pct, f.df);
    if (share < 1 && k > 0 && k < (int)sizeof noise)
        snprintf(noise + k, sizeof noise - (size_t)k, "; host time carries %.0f%% of the change and varies more between runs, hence "
                 "a floor of %.0f%% instead of %.0f%%", 100 * (1 - share), v->floor_used_pct, floor_);
    if (ka < PC_MIN_KEPT_STEPS || kb < PC_MIN_KEPT_STEPS) {
        snprintf(v->reason, sizeof v->reason, "too few steps to tell (%d and %d kept; at least %d each are needed); %s", ka, kb,
                 PC_MIN_KEPT_STEPS, "more runs a side let the runs decide");
        v->runs_needed = nb > nw_ ? nb + 1 : nw_ + 1;
    } else if ((by_model || by_welch) && fabs(d) >= thr) {
        v->verdict = d > 0 ? "regressed" : "improved";
        if (by_welch)
            snprintf(v->reason, sizeof v->reason,
                     "the step time moved %+.1f%% over %d and %d runs (95%% interval %+.1f%% to %+.1f%%; Welch p = %.2g < %g on "
                     "the runs alone, whose own spread is %.1f%%); the device's busy time moved %+.1f%% of the step",
                     d, nb, nw_, lo, hi, pw, PC_ALPHA_RUNS, v->observed_noise_pct, dev);
        else if (same_share(dev, d))
            snprintf(v->reason, sizeof v->reason,
                     "the step time moved %+.1f%% over %d and %d run%s (95%% interval %+.1f%% to %+.1f%%; p = %.2g < %g), where "
                     "%s; the device's busy time alone moved as much",
                     d, nb, nw_, nw_ == 1 ? "" : "s", lo, hi, f.p, alpha_model, noise);
        else
            snprintf(v->reason, sizeof v->reason,
                     "the step time moved %+.1f%% over %d and %d run%s (95%% interval %+.1f%% to %+.1f%%; p = %.2g < %g), where "
                     "%s; the device's busy time moved %+.1f%% of the step",
                     d, nb, nw_, nw_ == 1 ? "" : "s", lo, hi, f.p, alpha_model, noise, dev);
    } else if (blo >= -thr && bhi <= thr) {
        v->verdict = "unchanged";
        snprintf(v->reason, sizeof v->reason,
                 "the step time moved %+.1f%% over %d and %d run%s, and the whole measured 95%% interval (%+.1f%% to %+.1f%%) lies "
                 "within the %.0f%% threshold",
                 d, nb, nw_, nw_ == 1 ? "" : "s", blo, bhi, thr);
    } else {
        /* runs per side that would decide a change of this size with runs as consistent as these:
         * normal approximation, z for p < 0.001 two-sided (3.291) + z for 80% power (0.842) */
        double eff = fmax(fabs(log1p(d / 100)), log1p(thr / 100));
        double need = 2 * pow(4.133 * f.run_sd / eff, 2);
        int most = nb > nw_ ? nb : nw_;
        v->runs_needed = need > 1000 ? 1000 : need < 2 ? 2 : (int)ceil(need);
        if (v->runs_needed <= most) v->runs_needed = most + 1;
        snprintf(v->reason, sizeof v->reason,
                 "the step time moved %+.1f%% over %d and %d run%s (95%% interval %+.1f%% to %+.1f%%; p = %.2g, where a verdict "
                 "needs p < %g and a change of at least %.0f%%): %s; the device's busy time moved %+.1f%% of the step",
                 d, nb, nw_, nw_ == 1 ? "" : "s", lo, hi, f.p, alpha_model, thr, noise, dev);
    }
done:
    free(b);
    free(w);
}
