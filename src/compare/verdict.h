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
 * Verdict (pc_verdict): with at least PC_MIN_RUNS runs on each side, the
 * evidence is the runs: Welch's t-test on the logarithms of the runs'
 * statistics and a hierarchical bootstrap interval (runs, then
 * steps within each run; 2000 resamples, seeded) of the change; regressed or
 * improved when p < PC_ALPHA_RUNS (0.001: at 0.01, 1 of 100 simulated A/A
 * comparisons with +-5% clocks was a false regression), the interval
 * excludes 0 and the change is at least the threshold.
 * With fewer runs, the kept steps of each side are the samples, but steps of
 * one run cannot show run-to-run variation, so a change counts only when
 * the whole bootstrap interval lies beyond the noise floor, the Mann-Whitney
 * test gives p < 0.05 and steps vary by less than the floor within each
 * run; and when the device's busy time (kernel, memcpy, memset,
 * communication) does not itself move by more than the floor, the change is
 * host time (data loading, CPU, runtime, idle), which varies more between
 * runs of the same code, and its interval must clear twice the floor.
 * Unchanged (any number of runs) when the whole interval lies within
 * +-threshold.
 * Anything else is inconclusive, with the reason and, from the spread seen,
 * the number of runs per side that would decide it. */
#ifndef PC_VERDICT_H
#define PC_VERDICT_H
#include <cjson/cJSON.h>
#include "../summary/summary.h"
#include "../summary/categories.h"

enum { PC_MIN_RUNS = 3, PC_MIN_KEPT_STEPS = 4 };
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
    double threshold_pct;   /* smallest change that matters with >= PC_MIN_RUNS runs a side (default 2) */
    double noise_floor_pct; /* with fewer runs, a change must clear this (default 10) */
} pc_verdict_opts;

typedef struct pc_verdict {
    const char *verdict;    /* "regressed", "improved", "unchanged", "inconclusive" */
    char reason[400];
    int multi_run;          /* both sides have >= PC_MIN_RUNS runs */
    double base_ns, new_ns; /* side statistic: the mean of the runs' statistics */
    double delta_pct;       /* 100 (new - base) / base */
    int has_test;           /* p and the interval are set */
    double p, ci_low_pct, ci_high_pct;
    const char *test;       /* "welch-t (runs)" or "mann-whitney (steps)" */
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
#endif
