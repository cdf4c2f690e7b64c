/* trend.c - runs over time, change points, the newest run (see trend.h). */
#include <assert.h>
#include "trend.h"
#include "../util/utf8.h"
#include "changepoint.h"
#include "verdict.h"
#include "../summary/categories.h"
#include "../util/fsutil.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct order { int i; double t; } order;
static int cmp_order(const void *a, const void *b) {
    const order *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : x->i - y->i;
}

typedef struct kv { const char *name; double ns; } kv;
static int cmp_kv_name(const void *a, const void *b) { return strcmp(((const kv *)a)->name, ((const kv *)b)->name); }
static int cmp_kv_ns(const void *a, const void *b) {
    double x = ((const kv *)a)->ns, y = ((const kv *)b)->ns;
    return x > y ? -1 : x < y;
}

/* the PC_TREND_KERNELS kernels with the most time per step over all runs */
static int top_kernels(const pc_trend_point *pts, int n, const char **out) {
    kv *v = NULL;
    size_t m = 0, cap = 0;
    for (int r = 0; r < n; r++) {
        for (int i = 0; i < pts[r].nrun_kernels; i++) {
            const pc_trend_kernel *k = &pts[r].run_kernels[i];
            if (!k->name || !(k->ns > 0)) continue;
            kv *x = VEC_PUSH(v, m, cap);
            x->name = k->name, x->ns = k->ns;
        }
    }
    if (m) qsort(v, m, sizeof *v, cmp_kv_name);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && !strcmp(v[k - 1].name, v[i].name)) v[k - 1].ns += v[i].ns;
        else v[k++] = v[i];
    }
    if (k) qsort(v, k, sizeof *v, cmp_kv_ns);
    int nk = k < PC_TREND_KERNELS ? (int)k : PC_TREND_KERNELS;
    for (int i = 0; i < nk; i++) out[i] = v[i].name;
    free(v);
    return nk;
}

/* a run's time per step in the named kernel (0 when it lacks it) */
static double kernel_ns(const pc_trend_point *p, const char *name) {
    for (int i = 0; i < p->nrun_kernels; i++)
        if (p->run_kernels[i].name && !strcmp(p->run_kernels[i].name, name)) return p->run_kernels[i].ns;
    return 0;
}

int pc_trend_utc_ok(const char *s) {
    static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
    if (!s || strlen(s) != sizeof pat - 1) return 0;
    for (size_t i = 0; pat[i]; i++)
        if (pat[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != pat[i]) return 0;
    struct tm tm = {0}, back;
    tm.tm_year = atoi(s) - 1900, tm.tm_mon = atoi(s + 5) - 1, tm.tm_mday = atoi(s + 8);
    tm.tm_hour = atoi(s + 11), tm.tm_min = atoi(s + 14), tm.tm_sec = atoi(s + 17);
    time_t t = timegm(&tm);
    /* a real time: the fields come back unchanged (no 31 June, no hour 24) */
    return tm.tm_year >= 100 && tm.tm_year < 200 && gmtime_r(&t, &back) && back.tm_year == atoi(s) - 1900 &&
           back.tm_mon == atoi(s + 5) - 1 && back.tm_mday == atoi(s + 8) && back.tm_hour == atoi(s + 11) &&
           back.tm_min == atoi(s + 14) && back.tm_sec == atoi(s + 17);
}

void pc_trend_point_of(const pc_summary *s, const char *label, const char *report, pc_trend_point *r) {
    memset(r, 0, sizeof *r);
    pc_run_steps rs;
    pc_run_steps_of(s, &rs);
    r->input = fs_base_name(PC_S(PC_REC(s, run)->input, ""));
    const char *own = PC_S(PC_REC(s, run)->label, ""); /* the summary's run.label first */
    snprintf(r->label, sizeof r->label, "%s", *own ? own : label && *label ? label : r->input);
    r->label[utf8_valid_prefix(r->label, strlen(r->label))] = 0; /* a cut never ends mid-character */
    r->report = report;
    r->start_us = PC_OR(PC_REC(s, run)->start_us, NAN);
    r->start_utc = pc_trend_utc_ok(PC_REC(s, run)->start_utc) ? PC_REC(s, run)->start_utc : NULL;
    r->steps = rs.n, r->kept_steps = rs.kept;
    r->step_ns = rs.kept > 0 ? rs.mean_ns : NAN;
    for (int k = 0; k < BK_N; k++) r->cat_ns[k] = rs.cat_rows > 0 ? rs.cat_ns[k] : NAN;
    pc_run_steps_free(&rs);
    /* the run's kernels by name (devices summed), the most time per step first */
    kv *v = NULL;
    size_t m = 0, cap = 0;
    const pc_table *t;
    for (size_t dev = 0; (t = PC_TAB_AT(s, kernel, dev)); dev++) {
        for (size_t i = 0; i < t->n; i++) {
            const tab_kernel *k = &TAB_ROWS(t, kernel)[i];
            if (!k->name || k->total_ns <= 0) continue;
            kv *x = VEC_PUSH(v, m, cap);
            x->name = k->name, x->ns = (double)k->total_ns;
        }
    }
    if (m) qsort(v, m, sizeof *v, cmp_kv_name);
    size_t nk = 0;
    for (size_t i = 0; i < m; i++) {
        if (nk && !strcmp(v[nk - 1].name, v[i].name)) v[nk - 1].ns += v[i].ns;
        else v[nk++] = v[i];
    }
    double steps = pc_steps_of(s);
    for (size_t i = 0; i < nk; i++) v[i].ns /= steps;
    if (nk) qsort(v, nk, sizeof *v, cmp_kv_ns);
    pc_trend_kernel *ks = xmalloc((nk ? nk : 1) * sizeof *ks);
    for (size_t i = 0; i < nk; i++) ks[i] = (pc_trend_kernel){v[i].name, v[i].ns};
    free(v);
    r->run_kernels = ks, r->nrun_kernels = (int)nk;
}

void pc_trend_point_release(pc_trend_point *p) {
    free((void *)p->run_kernels);
    free(p->own);
    p->run_kernels = NULL, p->nrun_kernels = 0, p->own = NULL;
}

/* the copy of s at *at in block, moved past it (NULL stays NULL) */
static const char *own_copy(char *block, size_t *at, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    memcpy(block + *at, s, n);
    *at += n;
    return block + *at - n;
}

void pc_trend_point_own(pc_trend_point *p) {
    assert(!p->own);
    if (p->nrun_kernels > PC_TREND_RUN_KERNELS) p->nrun_kernels = PC_TREND_RUN_KERNELS; /* the most time first */
    size_t need = (p->input ? strlen(p->input) + 1 : 0) + (p->start_utc ? strlen(p->start_utc) + 1 : 0) + 1, at = 0;
    for (int i = 0; i < p->nrun_kernels; i++) need += p->run_kernels[i].name ? strlen(p->run_kernels[i].name) + 1 : 0;
    pc_trend_kernel *ks = (pc_trend_kernel *)p->run_kernels;
    if (ks) ks = xrealloc(ks, (size_t)(p->nrun_kernels ? p->nrun_kernels : 1) * sizeof *ks);
    p->own = xmalloc(need);
    p->input = own_copy(p->own, &at, p->input);
    p->start_utc = own_copy(p->own, &at, p->start_utc);
    for (int i = 0; i < p->nrun_kernels; i++) ks[i].name = own_copy(p->own, &at, ks[i].name);
    p->run_kernels = ks;
    assert(at < need);
}

/* ---------- the decision: a function of the step times (see trend.h) ---------- */

typedef struct seg { double mean, sd, sse; } seg;
static seg seg_of(const double *x, int n) {
    seg g;
    pc_mean_sd(x, n, &g.mean, &g.sd);
    g.sse = n > 1 ? g.sd * g.sd * (n - 1) : 0;
    return g;
}

/* t of level b[0..nb) against a[0..na): the difference of the means over its standard error, sd pooled */
static double t_of(const double *a, int na, const double *b, int nb) {
    seg A = seg_of(a, na), B = seg_of(b, nb);
    int df = na + nb - 2;
    double d = B.mean - A.mean, se = df > 0 ? sqrt((A.sse + B.sse) / df) * sqrt(1.0 / na + 1.0 / nb) : 0;
    return se > 0 ? d / se : d > 0 ? INFINITY : d < 0 ? -INFINITY : 0;
}

/* the least k >= 2 runs after a shift with h before for which E-divisive's permutation test can reach
 * p < 0.05: 2 of the C(h + k, k) orderings put the k apart at one end */
static int cp_needs(int h) {
    for (int k = 2; k < 100000; k++) {
        double c = 1;
        for (int i = 1; i <= k; i++) c = c * (h + i) / i;
        if (2 / c < 0.05) return k;
    }
    return 0;
}

static double pct(double v, double ref) { return ref > 0 ? 100 * (v - ref) / ref : NAN; }
static double fin(double v) { return isfinite(v) ? v : v > 0 ? 999 : -999; }

void pc_trend_judge(const double *x, const int *runs, const char *const *labels, int m, int acc, const pc_cp *cp, int ncp,
                    double thr, pc_trend_newest *o) {
    char *why = o->reason;
    size_t cap = sizeof o->reason;
    o->run = m > 0 ? runs[m - 1] : 0;
    o->verdict = "ok";
    o->change_pct = o->history_mean_ns = o->history_sd_ns = o->level_change_pct = o->t = o->baseline_change_pct = NAN;
    o->reference_first = o->reference_runs = o->shift_run = o->level_runs = o->confirmed = o->cp_needs = 0;
    const double *y = x + acc;
    int n = m - acc, shift = -1, L = 0, c = ncp;
    /* the newest level: from the last change point back, the first start L (a change point, then the
     * accepted run) since which a split is a shift: the most likely split, else the newest run alone */
    for (; c >= 0 && shift < 0; c--) {
        L = c ? cp[c - 1].at : 0;
        int best = -1;
        double best_sse = INFINITY;
        for (int s = L + PC_TREND_MIN_HISTORY; s < n; s++) {
            seg R = seg_of(y + L, s - L), T = seg_of(y + s, n - s);
            double mid = (R.mean + T.mean) / 2, dir = T.mean > R.mean ? 1 : T.mean < R.mean ? -1 : 0;
            int valid = dir != 0;
            for (int i = s; i < n && valid; i++) valid = dir * (y[i] - mid) > 0;
            if (valid && R.sse + T.sse < best_sse) best = s, best_sse = R.sse + T.sse;
        }
        for (int pass = 0; pass < 2 && shift < 0; pass++) {
            int s = pass ? n - 1 : best;
            if (s < L + PC_TREND_MIN_HISTORY || s >= n) continue;
            double ch = pct(seg_of(y + s, n - s).mean, seg_of(y + L, s - L).mean), tt = t_of(y + L, s - L, y + s, n - s);
            if ((ch >= thr && tt > 3) || (ch <= -thr && tt < -3)) shift = s;
        }
    }
    int rs, rn, ls, cpi = -1; /* cpi: the change point the shift starts at */
    for (int i = 0; i < ncp; i++)
        if (cp[i].at == shift) cpi = i;
    if (shift >= 0) rs = L, rn = shift - L, ls = shift, o->confirmed = cpi >= 0;
    else { /* no shift: the newest run against the runs before it since the last change point that leaves enough */
        for (c = ncp; c > 0 && n - 1 - cp[c - 1].at < PC_TREND_MIN_HISTORY; c--) {}
        L = c ? cp[c - 1].at : 0;
        rs = L, rn = n - 1 - L, ls = n - 1;
    }
    if (rn < PC_TREND_MIN_HISTORY) {
        o->verdict = "insufficient history";
        if (n <= 0) snprintf(why, cap, "no run since the accepted one has kept steps");
        else if (acc > 0)
            snprintf(why, cap, "%d run%s before the newest since the accepted run %d (%s); at least %d are needed to judge it", n - 1,
                     n == 2 ? "" : "s", runs[acc], labels[acc], PC_TREND_MIN_HISTORY);
        else
            snprintf(why, cap, "%d run%s before the newest; at least %d are needed to judge it", n - 1, n == 2 ? "" : "s",
                     PC_TREND_MIN_HISTORY);
        return;
    }
    int k = n - ls;
    seg R = seg_of(y + rs, rn), T = seg_of(y + ls, k);
    o->history_mean_ns = R.mean, o->history_sd_ns = R.sd;
    o->reference_first = runs[acc + rs], o->reference_runs = rn;
    o->change_pct = pct(y[n - 1], R.mean);
    o->level_change_pct = pct(T.mean, R.mean);
    o->t = t_of(y + rs, rn, y + ls, k);
    o->level_runs = k;
    o->shift_run = shift >= 0 ? runs[acc + ls] : 0;
    int reg = o->level_change_pct >= thr && o->t > 3, imp = o->level_change_pct <= -thr && o->t < -3, reg_base = 0;
    /* the accepted baseline: the first level since the accepted run, when it is not the reference */
    if (rs > 0 && ncp > 0 && cp[0].at >= PC_TREND_MIN_HISTORY) {
        int lb = shift >= 0 ? ls : L; /* without a shift, the level since the last change point */
        double tb = t_of(y, cp[0].at, y + lb, n - lb);
        o->baseline_change_pct = pct(seg_of(y + lb, n - lb).mean, seg_of(y, cp[0].at).mean);
        reg_base = o->baseline_change_pct >= thr && tb > 3;
    }
    o->verdict = reg || reg_base ? "regression" : imp ? "improvement" : "ok";
    const char *dir = o->change_pct >= 0 ? "above" : "below";
    int last = runs[acc + rs + rn - 1], first = o->reference_first;
    size_t w = 0;
#define SAY(...) (w += (size_t)snprintf(why + w, w < cap ? cap - w : 0, __VA_ARGS__), w = w < cap ? w : cap)
    if (o->shift_run && o->confirmed) {
        SAY("%d run%s since the change point at run %d (%s; E-divisive p = %.3f), %+.1f%% against the %d runs before (runs %d-%d; "
            "t = %.1f); the newest run is %+.1f%% %s their mean",
            k, k == 1 ? "" : "s", o->shift_run, labels[acc + ls], cp[cpi].p, o->level_change_pct, rn, first, last,
            fin(o->t), o->change_pct, dir);
    } else if (o->shift_run) {
        int need = cp_needs(rn);
        if (k < need) o->cp_needs = need;
        SAY("%d run%s after a %+.1f%% step at run %d (%s): ", k, k == 1 ? "" : "s", o->level_change_pct, o->shift_run, labels[acc + ls]);
        if (k == 1) SAY("one run cannot tell a shift from a one-off slow or fast run, and too few for the change-point test to call it ");
        else if (k < need) SAY("too few for the change-point test to call it ");
        else SAY("not (yet) called a change point by the permutation test ");
        if (k < need) SAY("(it needs at least %d runs after a shift with %d before)", need, rn);
        if (k == 1) /* the step is the newest run: its change said once */
            SAY("; measured against the mean of the %d runs before (runs %d-%d; the step's t = %.1f)", rn, first, last, fin(o->t));
        else
            SAY("; the newest run is %+.1f%% %s the mean of the %d runs before (runs %d-%d; the step's t = %.1f)", o->change_pct, dir,
                rn, first, last, fin(o->t));
    } else {
        if (L > 0) SAY("no shift of the newest runs; since the change point at run %d (%s), ", runs[acc + L], labels[acc + L]);
        else if (ncp > 0) SAY("no shift of the newest runs; ");
        else if (acc > 0) SAY("no change point since the accepted run %d (%s); ", runs[acc], labels[acc]);
        else SAY("no change point; ");
        SAY("the newest run is %+.1f%% %s the mean of the %d runs before it (t = %.1f)", o->change_pct, dir, rn, fin(o->t));
    }
    if (reg_base && !reg)
        SAY("; %+.1f%% against the accepted baseline (runs %d-%d): a regression until a later run is accepted (--accept)",
            o->baseline_change_pct, runs[acc], runs[acc + cp[0].at - 1]);
    SAY("; a regression needs at least %.0f%% and t > 3", thr);
#undef SAY
}

/* the 1-based run that --accept names (its label, its file name, or its index), or 0 with the error said */
static int accepted_run(const pc_trend_result *t, const char *a, char *err, size_t cap) {
    int found = 0, count = 0;
    for (int pass = 0; pass < 2 && !count; pass++) /* labels first, then file names */
        for (int i = 0; i < t->nruns; i++)
            if (!strcmp(a, pass ? t->runs[i].input : t->runs[i].label)) found = found ? found : i + 1, count++;
    if (!count && *a && strspn(a, "0123456789") == strlen(a) && strlen(a) < 9) {
        int i = atoi(a);
        if (i >= 1 && i <= t->nruns) found = i, count = 1;
    }
    if (count == 1) return found;
    if (count > 1) snprintf(err, cap, "--accept: %d runs are labelled or named '%s' (give the run's index, 1 to %d)", count, a, t->nruns);
    else snprintf(err, cap, "--accept: no run is labelled or named '%s', nor is it an index from 1 to %d", a, t->nruns);
    return 0;
}

pc_trend_result *pc_trend_points(const pc_trend_point *in, int n, const pc_trend_opts *o) {
    pc_trend_result *t = xcalloc(1, sizeof *t);
    double thr = t->threshold_pct = o && o->threshold_pct > 0 ? o->threshold_pct : 5;
    order *ord = xmalloc((size_t)(n ? n : 1) * sizeof *ord);
    int all_time = n > 0, all_utc = n > 0;
    for (int i = 0; i < n; i++) all_utc &= in[i].start_utc != NULL;
    for (int i = 0; i < n; i++) {
        double st = in[i].start_us;
        if (all_utc) { /* seconds since 2000 from the validated text: exact in a double */
            const char *u = in[i].start_utc;
            struct tm tm = {.tm_year = atoi(u) - 1900, .tm_mon = atoi(u + 5) - 1, .tm_mday = atoi(u + 8),
                            .tm_hour = atoi(u + 11), .tm_min = atoi(u + 14), .tm_sec = atoi(u + 17)};
            st = (double)timegm(&tm);
        }
        ord[i] = (order){i, isfinite(st) ? st : 0};
        all_time &= isfinite(st) != 0;
    }
    int by_time = o && o->by_time && all_time;
    if (by_time) qsort(ord, (size_t)n, sizeof *ord, cmp_order);

    t->order = by_time ? all_utc ? "recorded start date" : "recorded start time" : "as given";
    t->method = "Step time: the mean of each run's kept steps (the first, steps with one-off work and extreme outliers "
                "left out). Change points: E-divisive means (Matteson and James 2014), a permutation test with 199 "
                "shuffles, p < 0.05, at least 2 runs a segment, over the runs before and since the accepted run apart. "
                "Newest level: from the last change point back to the accepted run, the first start L since which "
                "the newer runs differ: the most likely split (the maximum-likelihood split for one shift in mean, "
                "Hinkley 1970, among those whose every newer run is beyond the midpoint of the two means), else the "
                "newest run alone, is a shift when its runs' mean differs from the runs since L before it by the "
                "threshold and t > 3 (t: the difference of the means over its standard error, sd pooled). Newest "
                "run: a regression while its level is slower than the runs before the shift, or than the accepted "
                "baseline (the runs before the first change point since the accepted run), by the threshold and "
                "t > 3, until a later run is accepted (--accept); without a shift, the newest run is judged against "
                "the runs before it";
    int nk = t->nkernels = top_kernels(in, n, t->kernels);
    double *x = xmalloc((size_t)(n ? n : 1) * sizeof *x);
    int *idx = xmalloc((size_t)(n ? n : 1) * sizeof *idx), m = 0;
    double catsum[BK_N] = {0};
    t->runs = xcalloc((size_t)(n ? n : 1), sizeof *t->runs);
    t->nruns = n;
    for (int i = 0; i < n; i++) {
        const pc_trend_point *p = &in[ord[i].i];
        pc_trend_point *r = &t->runs[i];
        *r = *p;
        r->index = i + 1;
        for (int k = 0; k < BK_N; k++)
            if (isfinite(r->cat_ns[k])) catsum[k] += r->cat_ns[k];
        for (int k = 0; k < PC_TREND_KERNELS; k++) r->kernel_ns[k] = k < nk ? kernel_ns(p, t->kernels[k]) : 0;
        r->run_kernels = NULL, r->nrun_kernels = 0, r->own = NULL; /* borrowed from in */
        if (r->kept_steps > 0 && isfinite(r->step_ns)) x[m] = r->step_ns, idx[m++] = i;
    }
    free(ord);
    /* the categories in order of their total over the history */
    int used[BK_N] = {0};
    for (int j = 0; j < BK_N; j++) {
        int b = -1;
        for (int k = 0; k < BK_N; k++)
            if (!used[k] && (b < 0 || catsum[k] > catsum[b])) b = k;
        used[b] = 1;
        if (catsum[b] > 0) t->categories[t->ncategories++] = b;
    }
    /* the accepted run (runs before it are history only), then the change points of the step time, the
     * history before the accepted run and the runs since it apart */
    int acc = 0;
    if (o && o->accept) {
        t->accepted_run = accepted_run(t, o->accept, t->accept_error, sizeof t->accept_error);
        while (acc < m && idx[acc] + 1 < t->accepted_run) acc++;
    }
    pc_cp cp[PC_TREND_CP_MAX];
    int nh = pc_changepoints(x, acc, 2, cp, PC_TREND_CP_MAX), ncp = nh;
    ncp += pc_changepoints(x + acc, m - acc, 2, cp + nh, PC_TREND_CP_MAX - nh);
    for (int c = nh; c < ncp; c++) cp[c].at += acc;
    t->ncps = ncp;
    for (int c = 0; c < ncp; c++) {
        int a = c ? cp[c - 1].at : 0, b = cp[c].at, e = c + 1 < ncp ? cp[c + 1].at : m;
        if (c >= nh && a < acc) a = acc; /* a level never spans the accepted run */
        if (c < nh && e > acc) e = acc;
        double before = 0, after = 0;
        for (int i = a; i < b; i++) before += x[i];
        for (int i = b; i < e; i++) after += x[i];
        before /= b - a, after /= e - b;
        t->cps[c] = (pc_trend_cp){idx[b] + 1, t->runs[idx[b]].label, after > before ? "regression" : "improvement", before, after,
                                  before > 0 ? 100 * (after - before) / before : 0, cp[c].q, cp[c].p};
    }
    /* the decision, from the step times alone */
    int *num = xmalloc((size_t)(m ? m : 1) * sizeof *num);
    const char **lab = xmalloc((size_t)(m ? m : 1) * sizeof *lab);
    for (int i = 0; i < m; i++) num[i] = idx[i] + 1, lab[i] = t->runs[idx[i]].label;
    for (int c = nh; c < ncp; c++) cp[c].at -= acc;
    pc_trend_judge(x, num, lab, m, acc, cp + nh, ncp - nh, thr, &t->newest);
    free(num), free(lab);
    free(x), free(idx);
    return t;
}

pc_trend_result *pc_trend(const pc_trend_run *in, int n, const pc_trend_opts *o) {
    pc_trend_point *p = xcalloc((size_t)(n ? n : 1), sizeof *p);
    for (int i = 0; i < n; i++) pc_trend_point_of(in[i].summary, in[i].label, in[i].report, &p[i]);
    pc_trend_result *t = pc_trend_points(p, n, o);
    for (int i = 0; i < n; i++) pc_trend_point_release(&p[i]);
    free(p);
    return t;
}

void pc_trend_free(pc_trend_result *t) {
    if (!t) return;
    free(t->runs);
    free(t);
}

/* the members each struct writes, in trend.json's order */
static const sj_field point_fields[] = {SJ_F(pc_trend_point, 'I', index),      SJ_F(pc_trend_point, 'C', label),
                                        SJ_F(pc_trend_point, 'S', input),      SJ_F(pc_trend_point, 'N', start_us),
                                        SJ_F(pc_trend_point, 'Z', start_utc),
                                        SJ_F(pc_trend_point, 'I', steps),      SJ_F(pc_trend_point, 'I', kept_steps),
                                        SJ_F(pc_trend_point, 'N', step_ns),    SJ_F(pc_trend_point, 'Z', report)};
static const sj_field cp_fields[] = {SJ_F(pc_trend_cp, 'I', run),        SJ_F(pc_trend_cp, 'S', label),    SJ_F(pc_trend_cp, 'N', before_ns),
                                     SJ_F(pc_trend_cp, 'N', after_ns),   SJ_F(pc_trend_cp, 'N', change_pct),
                                     SJ_F(pc_trend_cp, 'S', direction),  SJ_F(pc_trend_cp, 'N', q),        SJ_F(pc_trend_cp, 'N', p_value)};

pc_doc *pc_trend_json(const pc_trend_result *t) {
    cJSON *d = cJSON_CreateObject();
    sj_str(d, "schema", PC_TREND_SCHEMA);
    sj_str(d, "order", t->order);
    sj_num(d, "threshold_pct", t->threshold_pct);
    sj_str(d, "method", t->method);
    if (t->accepted_run) sj_int(d, "accepted_run", t->accepted_run);
    else cJSON_AddNullToObject(d, "accepted_run");
    cJSON *ra = sj_arr(d, "runs");
    for (int i = 0; i < t->nruns; i++) {
        const pc_trend_point *p = &t->runs[i];
        cJSON *r = cJSON_CreateObject();
        SJ_FIELDS(r, p, point_fields);
        cJSON *c = sj_obj(r, "categories");
        for (int k = 0; k < BK_N; k++) sj_num(c, pc_bk[k].step_key, p->cat_ns[k]);
        cJSON *ka = sj_arr(r, "kernels");
        for (int k = 0; k < t->nkernels; k++) cJSON_AddItemToArray(ka, cJSON_CreateNumber(p->kernel_ns[k]));
        cJSON_AddItemToArray(ra, r);
    }
    cJSON *kl = sj_arr(d, "kernels");
    for (int k = 0; k < t->nkernels; k++) cJSON_AddItemToArray(kl, sj_str_item(t->kernels[k]));
    cJSON *cl = sj_arr(d, "categories");
    for (int j = 0; j < t->ncategories; j++) {
        cJSON *e = cJSON_CreateObject();
        sj_str(e, "key", pc_bk[t->categories[j]].step_key);
        sj_str(e, "label", pc_bk[t->categories[j]].label);
        cJSON_AddItemToArray(cl, e);
    }
    cJSON *ca = sj_arr(d, "change_points");
    for (int c = 0; c < t->ncps; c++) {
        cJSON *o = cJSON_CreateObject();
        SJ_FIELDS(o, &t->cps[c], cp_fields);
        cJSON_AddItemToArray(ca, o);
    }
    cJSON *o = sj_obj(d, "newest");
    sj_num(o, "change_pct", t->newest.change_pct);
    if (strcmp(t->newest.verdict, "insufficient history")) {
        sj_num(o, "history_mean_ns", t->newest.history_mean_ns);
        sj_num(o, "history_sd_ns", t->newest.history_sd_ns);
        sj_int(o, "reference_first", t->newest.reference_first);
        sj_int(o, "reference_runs", t->newest.reference_runs);
        sj_num(o, "level_change_pct", t->newest.level_change_pct);
        sj_num(o, "t", t->newest.t); /* null when infinite: runs without spread */
        sj_int(o, "level_runs", t->newest.level_runs);
        sj_int(o, "shift_run", t->newest.shift_run);
        sj_bool(o, "confirmed", t->newest.confirmed);
        sj_int(o, "cp_needs", t->newest.cp_needs);
        sj_num(o, "baseline_change_pct", t->newest.baseline_change_pct);
    }
    sj_int(o, "run", t->newest.run);
    sj_str(o, "verdict", t->newest.verdict);
    sj_str(o, "reason", t->newest.reason);
    sj_str(d, "verdict", t->newest.verdict);
    return d;
}
