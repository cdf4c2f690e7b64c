/* verdict.h - how perfcard diff decides that a change is real: the step
 * statistic of one run, and the verdict between two sides (the baseline and
 * a change, each one or more runs of one configuration).
 *
 * Kept steps (pc_run_steps_of): a run's steps minus
 *   - the first step (warm-up), when the run has 2 steps or more;
 *   - steps with one-off work: a kernel or operator name that runs in that
 *     step and in no other (autotuning, compilation, first-touch allocation),
 *     when that is true of at most half of the steps;
 *   - extreme outliers: modified z-score 0.6745 |x - median| / MAD > 3.5
 *     (Iglewicz and Hoaglin) and more than 20% from the median (a tight
 *     run's MAD is tiny), with 4 steps or more left;
 * each exclusion listed with its reason. The run's statistic is the mean
 * duration of its kept steps (windows: a step's range until the GPU work
 * launched in it ends), whose breakdown categories sum to it, so the change
 * splits exactly into categories.
 *
 * Verdict (pc_verdict): one model for any number of runs, so that more
 * runs that agree never weaken it. The evidence is the runs' log step
 * times; each run's mean has its steps' sampling variance (CV^2 / kept
 * steps), and the runs of one configuration vary by an unknown run noise
 * (clocks, the machine, data loading) that steps of one run cannot show.
 * That run noise is estimated as in a normal model with a conjugate
 * (scaled inverse chi-square) prior (Gelman et al., Bayesian Data Analysis,
 * 3.3): the runs' pooled sample variance, with (nb-1)+(nw-1) degrees of
 * freedom, pooled with a prior sigma0^2 worth PC_PRIOR_DF (6) degrees of
 * freedom, where sigma0 = ln(1 + floor) / (t(6, 0.001) sqrt 2): the prior
 * that makes a change of the noise floor between single runs just
 * significant. The floor is the noise floor times (2 - the share of the
 * change the device's busy time carries): host time (data loading, CPU,
 * runtime, idle) varies more between runs of the same code, up to twice
 * the floor for a change of host time alone. The change d (difference of
 * the sides' mean log step times) is tested with Student's t on
 * 6 + (nb-1) + (nw-1) degrees of freedom, standard error
 * sqrt(s^2 (1/nb + 1/nw) + the steps' sampling variance / n^2); its 95%
 * interval is d +- t(df, 0.05) se. Regressed or improved when p <
 * PC_ALPHA_RUNS (0.001), |change| >= the threshold (default 2%) and, with
 * one run a side, steps vary by less than the floor (CV) within each run:
 * one run a side needs a change of about the floor (twice for host time),
 * as before; with 2 runs a side the runs' own spread counts. Adding runs
 * that agree with the others raises the degrees of freedom and divides the
 * standard error by sqrt n, so a decided verdict stays decided.
 * Unchanged (any number of runs) when not decided and the whole measured
 * interval, a hierarchical bootstrap of the change (runs, then steps
 * within each run; 2000 resamples, seeded), lies within +-threshold.
 * Anything else is inconclusive, with the reason and, from the spread seen,
 * the number of runs per side that would decide it. */
#ifndef PC_VERDICT_H
#define PC_VERDICT_H
#include <cjson/cJSON.h>
#include "../summary/summary.h"
#include "../summary/categories.h"

enum { PC_MIN_RUNS = 3, PC_MIN_KEPT_STEPS = 4, PC_PRIOR_DF = 6 };
#define PC_ALPHA_RUNS 0.001

typedef struct pc_excluded { int step; const char *reason; char detail[160]; } pc_excluded;

/* one run's steps, read from its summary (doc is not modified) */
typedef struct pc_run_steps {
    int n;                /* steps in the run (0: no steps found) */
    int kept;             /* steps kept */
    double *kept_ns;      /* their durations */
    double mean_ns;       /* mean of kept_ns (0 without kept steps) */
    double cv_pct;        /* coefficient of variation of kept_ns */
    double cat_ns[BK_N];  /* mean per breakdown category over the kept steps that have rows */
    int cat_rows;         /* kept steps with a breakdown row */
    pc_excluded *excl;    /* excluded steps */
    int nexcl;
} pc_run_steps;

void pc_run_steps_of(const pc_summary *summary, pc_run_steps *out);
void pc_run_steps_free(pc_run_steps *r);

typedef struct pc_verdict_opts {
    double threshold_pct;   /* smallest change that matters (default 2) */
    double noise_floor_pct; /* the change between single runs that is just significant (default 10) */
} pc_verdict_opts;

typedef struct pc_verdict {
    const char *verdict;    /* "regressed", "improved", "unchanged", "inconclusive" */
    char reason[800];
    int multi_run;          /* both sides have >= PC_MIN_RUNS runs */
    double base_ns, new_ns; /* side statistic: the mean of the runs' statistics */
    double delta_pct;       /* 100 (new - base) / base */
    int has_test;           /* p and the intervals are set */
    double p, ci_low_pct, ci_high_pct; /* the model's p and 95% interval of the change */
    double boot_low_pct, boot_high_pct; /* the measured interval: hierarchical bootstrap (runs, then steps) */
    double df, run_noise_pct;  /* the model's degrees of freedom and run noise (sd of a run's log step time, %) */
    double observed_noise_pct; /* the runs' own pooled spread (NaN with one run a side) */
    double floor_used_pct;  /* the noise floor the prior comes from: the floor times (2 - the device's share) */
    const char *test;       /* the model, in words */
    int runs_needed;        /* per side, for an inconclusive verdict; 0 when not estimated */
} pc_verdict;

void pc_verdict_of(const pc_run_steps *base, int nb, const pc_run_steps *nw, int nn, const pc_verdict_opts *o, pc_verdict *v);

/* The steps a trace's total is divided by for a per-step figure:
 * steps.count, or 1 when the summary has no steps. */
double pc_steps_of(const pc_summary *summary);
/* Mean and sample standard deviation of n values (sd 0 for fewer than 2). */
void pc_mean_sd(const double *v, int n, double *mean, double *sd);

/* statistics, exposed for tests */
double pc_student_t_p(double t, double df);   /* two-sided p of Student's t */
double pc_welch_p(const double *a, int na, const double *b, int nb, double *df_out);
double pc_mann_whitney_p(const double *a, int na, const double *b, int nb);
double pc_student_t_quantile(double p, double df); /* the t whose two-sided p is p */

/* The model of the verdict (above) on two sides of log values a (na) and b
 * (nb), each with its own sampling variance (wa, wb), and the floor as a
 * log ratio: p, d = mean b - mean a, its standard error and 95% interval
 * in percent, the run noise (sd) used and the runs' own. Components
 * (diff_components.c) use it too. */
typedef struct pc_runs_fit { double d, se, p, df, run_sd, observed_sd, sigma0, lo_pct, hi_pct; } pc_runs_fit;
void pc_runs_model(const double *a, const double *wa, int na, const double *b, const double *wb, int nb, double floor_log,
                   double alpha, pc_runs_fit *f);
#endif
