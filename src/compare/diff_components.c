/* diff_components.c - component verdicts (diff.h, #36): each kernel at 1% of
 * the step or more tested against its own noise, per-step SD from the
 * summaries' kernel table, with Holm's correction over those tested. */
#include "diff_match.h"
#include "../summary/summary.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a run's kernel, summed over devices: its mean per step, the variance of its per-step sums and
 * the operator that launched most of its time ("" when the summary does not say) */
typedef struct kv { const char *name, *op; double mean, var; } kv;
typedef struct krun { kv *v; size_t n; double steps; } krun;

static int cmp_kv(const void *a, const void *b) { return strcmp(((const kv *)a)->name, ((const kv *)b)->name); }

/* a run's kernels; 0 when the summary has no per-step figures */
static int krun_of(const pc_summary *s, krun *out) {
    memset(out, 0, sizeof *out);
    double steps = PC_OR(PC_REC(s, kernels)->steps_counted, 0);
    if (steps < 2) return 0;
    size_t cap = 0;
    const pc_table *t;
    for (size_t dev = 0; (t = PC_TAB_AT(s, kernel, dev)); dev++)
        for (size_t i = 0; i < t->n; i++) {
            const tab_kernel *r = &TAB_ROWS(t, kernel)[i];
            if (PC_IS_NULL(r->step_mean_ns) || PC_IS_NULL(r->step_sd_ns)) continue;
            kv *k = VEC_PUSH(out->v, out->n, cap);
            *k = (kv){r->name ? r->name : "", r->operator ? r->operator : "", r->step_mean_ns, r->step_sd_ns * r->step_sd_ns};
        }
    if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_kv);
    size_t m = 0; /* one per name: devices summed (their variances too: independent devices) */
    for (size_t i = 0; i < out->n; i++) {
        if (m && !strcmp(out->v[m - 1].name, out->v[i].name)) out->v[m - 1].mean += out->v[i].mean, out->v[m - 1].var += out->v[i].var;
        else out->v[m++] = out->v[i];
    }
    out->n = m;
    out->steps = steps;
    return 1;
}

static const kv *krun_find(const krun *r, const char *name) {
    kv key = {name, "", 0, 0};
    return r->n ? bsearch(&key, r->v, r->n, sizeof *r->v, cmp_kv) : NULL;
}

typedef struct cand { pc_diff_component c; const char *op; double dns; int beyond; } cand;

/* The test of one component's change (the kernels' and their operators' alike): la[q] the log of
 * run q's mean per step, wa[q] the variance of that log (delta method); runs 0..nb-1 the base,
 * then nn new. One run a side: Welch's t on the steps, beyond when the whole 95% interval lies
 * beyond the noise floor; more: the step's model on the runs (verdict.h), beyond when its
 * interval excludes 0. Sets p and the interval (%); returns beyond. */
static int change_test(const double *la, const double *wa, const krun *kr, int nb, int nn, double floor_pct, double *p,
                       double *lo_pct, double *hi_pct) {
    assert(nb >= 1 && nn >= 1);
    if (nb == 1 && nn == 1) {
        double va = wa[0], vb = wa[1], se = sqrt(va + vb), d = la[1] - la[0];
        double df = va + vb > 0 ? (va + vb) * (va + vb) / (va * va / (kr[0].steps - 1) + vb * vb / (kr[1].steps - 1))
                                : kr[0].steps + kr[1].steps - 2;
        if (!(df >= 1)) df = 1;
        *p = se > 0 ? pc_student_t_p(d / se, df) : d == 0 ? 1 : 0;
        double q = pc_student_t_quantile(0.05, df);
        *lo_pct = 100 * expm1(d - q * se), *hi_pct = 100 * expm1(d + q * se);
        return *lo_pct > floor_pct || *hi_pct < -floor_pct;
    }
    pc_runs_fit f;
    pc_runs_model(la, wa, nb, la + nb, wa + nb, nn, log1p(floor_pct / 100), &f);
    *p = f.p, *lo_pct = f.lo_pct, *hi_pct = f.hi_pct;
    return f.lo_pct > 0 || f.hi_pct < 0;
}

/* A kernel named regressed (or improved) whose operator's kernels did not move with it is a kernel
 * swap (#47):
 * cuDNN or cuBLAS picked another algorithm for the same work, so the time moved between kernels
 * under one operator. Sums, per run, every kernel whose time that operator launched most of
 * (kernels present in only some runs included: the swapped-in one is often new), tests that sum
 * as the kernel was tested (at p < 0.05, no correction: a weaker bar makes fewer swaps of real
 * regressions) and, when it did not regress beyond its noise by the threshold, sets the verdict
 * "algorithm changed". la and wa are scratch arrays of nb + nn. */
static void swap_check(cand *c, const char *op, const krun *kr, int nb, int nn, double thr, double floor_pct, double *la,
                       double *wa) {
    if (!op || !op[0]) return;
    double mb = 0, mn = 0;
    for (int q = 0; q < nb + nn; q++) {
        double m = 0, v = 0;
        for (size_t i = 0; i < kr[q].n; i++)
            if (!strcmp(kr[q].v[i].op, op)) m += kr[q].v[i].mean, v += kr[q].v[i].var;
        if (!(m > 0)) return; /* the kernel itself is under op in every run: m > 0 unless its table disagrees */
        la[q] = log(m), wa[q] = v / (m * m * kr[q].steps);
        if (q < nb) mb += m / nb;
        else mn += m / nn;
    }
    double p, lo, hi;
    int beyond = change_test(la, wa, kr, nb, nn, floor_pct, &p, &lo, &hi);
    c->c.under = op, c->c.under_base_ns = mb, c->c.under_new_ns = mn;
    int dir = c->dns > 0 ? 1 : -1; /* the operator must move the kernel's way */
    if (!(beyond && p < 0.05 && dir * (mn - mb) > 0 && 100 * fabs(mn - mb) / mb >= thr)) c->c.verdict = "algorithm changed";
}

static int cmp_p(const void *a, const void *b) {
    const cand *x = *(cand *const *)a, *y = *(cand *const *)b;
    return x->c.p < y->c.p ? -1 : x->c.p > y->c.p;
}
static int cmp_comp(const void *a, const void *b) {
    const pc_diff_component *x = a, *y = b;
    int nx = strcmp(x->verdict, "within noise") != 0, ny = strcmp(y->verdict, "within noise") != 0;
    if (nx != ny) return ny - nx;
    double dx = fabs(x->new_ns - x->base_ns), dy = fabs(y->new_ns - y->base_ns);
    return dx > dy ? -1 : dx < dy;
}

void diff_components(pc_diff_change *x, const pc_diff_side *base, const pc_diff_side *ch, double thr, double floor_pct) {
    int nb = base->nruns, nn = ch->nruns, nr = nb + nn;
    x->comp_test = nb == 1 && nn == 1
                       ? "Welch's t on the steps (per-step mean and SD of each run), p < 0.05 after Holm's correction, the whole 95% "
                         "interval beyond the noise floor"
                       : nb >= PC_MIN_RUNS && nn >= PC_MIN_RUNS
                             ? "t on the runs' log per-step means, run noise with the floor's prior (the step's model), p < 0.0005 "
                               "after Holm's correction"
                             : "t on the runs' log per-step means, run noise with the floor's prior (the step's model), p < 0.001 "
                               "after Holm's correction";
    x->comp_note[0] = 0;
    if (!nb || !nn) return;
    krun *kr = xcalloc((size_t)nr, sizeof *kr);
    int ok = 1;
    for (int q = 0; q < nr && ok; q++) {
        const pc_summary *s = q < nb ? base->runs[q] : ch->runs[q - nb];
        if (!krun_of(s, &kr[q])) {
            ok = 0;
            snprintf(x->comp_note, sizeof x->comp_note,
                     "no component tested: %.160s has no per-step kernel times (fewer than 3 steps, no kernel events, or "
                     "summarized by an older perfcard)",
                     PC_S(PC_REC(s, run)->input, "a run"));
        }
    }
    cand *cs = NULL;
    size_t nc = 0, cap = 0;
    double bstep = x->v.base_ns, nstep = x->v.new_ns;
    double *la = xmalloc((size_t)nr * sizeof *la), *wa = xmalloc((size_t)nr * sizeof *wa);
    for (size_t i = 0; ok && i < kr[0].n; i++) {
        const char *name = kr[0].v[i].name;
        double mb = 0, mn = 0, sdb = 0, sdn = 0;
        int all = 1;
        for (int q = 0; q < nr && all; q++) {
            const kv *k = krun_find(&kr[q], name);
            if (!k || !(k->mean > 0)) { all = 0; break; }
            la[q] = log(k->mean);
            wa[q] = k->var / (k->mean * k->mean * kr[q].steps);
            if (q < nb) mb += k->mean / nb, sdb += 100 * sqrt(k->var) / k->mean / nb;
            else mn += k->mean / nn, sdn += 100 * sqrt(k->var) / k->mean / nn;
        }
        if (!all) continue; /* added or removed in some run: the tables list it */
        if (100 * mb < PC_COMP_MIN_SHARE * bstep && 100 * mn < PC_COMP_MIN_SHARE * nstep) continue;
        cand *c = VEC_PUSH(cs, nc, cap);
        memset(c, 0, sizeof *c);
        c->c = (pc_diff_component){"kernel", name, "within noise", mb, mn, 100 * (mn - mb) / mb, sdb, sdn, NAN, NAN, NAN, NAN, NULL, NAN, NAN};
        c->op = kr[0].v[i].op;
        c->dns = mn - mb;
        c->beyond = change_test(la, wa, kr, nb, nn, floor_pct, &c->c.p, &c->c.lo_pct, &c->c.hi_pct);
        c->beyond = c->beyond && fabs(c->c.delta_pct) >= thr;
    }
    free(la), free(wa);
    /* Holm's step-down over the components tested */
    /* the step model's level: 0.001, halved with 3 runs or more on each side, where the step's
     * model stands beside Welch's test (verdict.h); clock noise moves every kernel together, so
     * Holm's correction over them does little and the step's level is what bounds the false rate
     * (A/A, 3 runs a side: 1 trial in 200 named all 6 kernels at p 1.4e-4 to 1.9e-4 at 0.001) */
    double alpha = nb == 1 && nn == 1 ? 0.05 : nb >= PC_MIN_RUNS && nn >= PC_MIN_RUNS ? PC_ALPHA_RUNS / 2 : PC_ALPHA_RUNS;
    cand **ord = xmalloc((nc ? nc : 1) * sizeof *ord);
    for (size_t i = 0; i < nc; i++) ord[i] = &cs[i];
    if (nc) qsort(ord, nc, sizeof *ord, cmp_p);
    for (size_t k = 0; k < nc; k++) {
        ord[k]->c.p_bar = alpha / (double)(nc - k);
        if (!(ord[k]->c.p < ord[k]->c.p_bar)) break;
        if (ord[k]->beyond) ord[k]->c.verdict = ord[k]->dns > 0 ? "regressed" : "improved";
    }
    free(ord);
    /* a kernel named regressed gates only when its operator's kernels (or the step) moved too; an
     * improved one is named so only when they moved with it */
    la = xmalloc((size_t)nr * sizeof *la), wa = xmalloc((size_t)nr * sizeof *wa);
    for (size_t i = 0; i < nc; i++)
        if (strcmp(cs[i].c.verdict, "within noise") && strcmp(x->v.verdict, cs[i].c.verdict))
            swap_check(&cs[i], cs[i].op, kr, nb, nn, thr, floor_pct, la, wa);
    free(la), free(wa);
    x->comp = xcalloc(nc ? nc : 1, sizeof *x->comp);
    x->ncomp = (int)nc;
    x->comp_regressed = x->comp_improved = 0;
    for (size_t i = 0; i < nc; i++) {
        x->comp[i] = cs[i].c;
        x->comp_regressed += !strcmp(cs[i].c.verdict, "regressed");
        x->comp_improved += !strcmp(cs[i].c.verdict, "improved");
    }
    if (nc) qsort(x->comp, nc, sizeof *x->comp, cmp_comp);
    if (ok && !nc)
        snprintf(x->comp_note, sizeof x->comp_note, "no component tested: no kernel runs in every run of both sides at %.0f%% of the step or more",
                 PC_COMP_MIN_SHARE);
    free(cs);
    for (int q = 0; q < nr; q++) free(kr[q].v);
    free(kr);
}
