/* trend.h - the history of successive runs (summaries of CI runs): each
 * run's step time (verdict.h's statistic: the mean of its kept steps), its
 * step categories and its top kernels per step, the change points of the
 * step time (changepoint.h), and whether the newest run is regressed.
 *
 * The decision is a function of the series of step times alone (and of the
 * accepted run): pc_trend_judge. Runs before the accepted one (--accept:
 * that run and the ones after it are the baseline) are history only.
 *  1. Confirmed change points: E-divisive means over the runs since the
 *     accepted one (changepoint.h; at least 2 runs a segment, p < 0.05).
 *  2. The newest level: for L = the last confirmed change point, then the
 *     ones before it, then the accepted run, the first L since which the
 *     newer runs differ: each split s of x[L..) with at least
 *     PC_TREND_MIN_HISTORY runs from L before it and every run from s on
 *     beyond the midpoint of the two means is a candidate; the most likely
 *     one, the maximum-likelihood split for one shift in mean (Hinkley
 *     1970: the least within-level sum of squares), else the newest run
 *     alone, is a shift when its runs' mean differs from x[L..s) by at
 *     least the threshold and by t > 3 (t: the difference over its
 *     standard error, sd pooled over both). It is confirmed when s is a
 *     change point. Without a shift, the newest run is judged against the
 *     runs before it since the last change point that leaves at least
 *     PC_TREND_MIN_HISTORY of them (else "insufficient history").
 *  3. The verdict: "regression" when the newest level is slower than its
 *     reference (by the threshold and t > 3) or than the accepted baseline
 *     (the runs before the first change point since the accepted run, when
 *     that is not the reference), "improvement" when faster
 *     than its reference and not regressed, "ok" otherwise. So a shift is
 *     flagged from its first run on and stays flagged, also once the
 *     change-point test confirms it, until the baseline is moved by
 *     accepting a run. The reason says how many runs follow the shift and
 *     how many the permutation test needs to call it (cp_needs: the least
 *     k with 2 / C(h + k, k) < 0.05, h the runs before).
 *
 * The statistics work from an array of per-run points (pc_trend_point): a
 * run's figures, from its summary (pc_trend_point_of) or from elsewhere (a
 * history database). pc_trend_points returns the history as typed data
 * (pc_trend_result; free with pc_trend_free, before the points' strings and
 * kernel names, which it borrows); pc_trend does the same from summaries.
 * Runs are taken in the order given, or with by_time by their wall-clock
 * start (start_utc) when every run has one, else by run.start_us when every
 * run has it. pc_trend_json writes it as
 * trend.json (schema "perfcard.trend/1"); readers (trend's report, the
 * command, tests) read the struct. */
#ifndef PC_TREND_H
#define PC_TREND_H
#include "../summary/doc.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "changepoint.h"

#define PC_TREND_SCHEMA "perfcard.trend/1"
enum { PC_TREND_MIN_HISTORY = 3, PC_TREND_KERNELS = 5, PC_TREND_RUN_KERNELS = 50 /* = PC_HISTORY_KERNELS */ };

typedef struct pc_trend_run {
    const pc_summary *summary;
    const char *label;   /* used when the summary has no run.label; NULL: the input's file name */
    const char *report;  /* link to the run's report.html, or NULL */
} pc_trend_run;

typedef struct pc_trend_opts {
    double threshold_pct; /* newest run: smallest slowdown that counts (default 5) */
    int by_time;          /* order by start_utc, else run.start_us, when every run has it */
    const char *accept;   /* the accepted run: its label, its file name or its 1-based index; NULL: the first */
} pc_trend_opts;

/* a kernel's time per step in one run (devices summed) */
typedef struct pc_trend_kernel { const char *name; double ns; } pc_trend_kernel;

/* one run of the history (NaN: a figure the run lacks) */
typedef struct pc_trend_point {
    int index;                       /* 1-based, in the history's order */
    char label[256];
    const char *input;               /* the file name, never a path */
    const char *report;              /* pc_trend_run's link, or NULL */
    const char *start_utc;           /* run.start_utc when pc_trend_utc_ok, else NULL */
    double start_us, step_ns;        /* step_ns: the mean of its kept steps */
    int steps, kept_steps;
    double cat_ns[BK_N];             /* per category, the mean over kept steps (NaN without a breakdown) */
    double kernel_ns[PC_TREND_KERNELS]; /* the history's top kernels, per step (set by pc_trend_points) */
    const pc_trend_kernel *run_kernels; /* input: the run's kernels (absent ones count 0); NULL in a result */
    int nrun_kernels;
    char *own;                       /* pc_trend_point_own's block of the strings above, or NULL */
} pc_trend_point;

/* a change point: the first run of a new level (1-based) */
typedef struct pc_trend_cp {
    int run;
    const char *label, *direction;   /* direction: "regression" (slower after) or "improvement" */
    double before_ns, after_ns, change_pct, q, p_value;
} pc_trend_cp;

enum { PC_TREND_CP_MAX = 64 };

/* the newest run's verdict and what it was judged against (see the top) */
typedef struct pc_trend_newest {
    int run;                     /* 1-based; 0 without runs */
    const char *verdict;         /* "regression", "improvement", "ok", "insufficient history" */
    char reason[600];
    double change_pct;           /* the newest run against the reference's mean */
    double history_mean_ns, history_sd_ns; /* the reference runs' mean and sd (NaN with insufficient history) */
    int reference_first, reference_runs; /* the reference: runs first.. (1-based), how many */
    int shift_run;               /* the newest level's first run (1-based); 0: no shift (the newest run alone) */
    int level_runs, confirmed;   /* runs in the newest level; 1 when shift_run is a confirmed change point */
    int cp_needs;                /* runs after the shift the change-point test needs to call it (0: confirmed or no shift) */
    double level_change_pct, t;  /* the newest level's mean against the reference, and t (NaN without one) */
    double baseline_change_pct;  /* the newest level against the accepted baseline when that is not the reference, else NaN */
} pc_trend_newest;

typedef struct pc_trend_result {
    const char *order;               /* "recorded start time" or "as given" */
    const char *method;              /* the statistics, in words */
    double threshold_pct;
    pc_trend_point *runs;
    int nruns;
    const char *kernels[PC_TREND_KERNELS]; /* the kernels with the most time per step over all runs */
    int nkernels;
    int categories[BK_N];            /* categories with time, largest total first (indexes of pc_bk) */
    int ncategories;
    pc_trend_cp cps[PC_TREND_CP_MAX];
    int ncps;
    int accepted_run;                /* 1-based; 0: none given (the baseline starts at the first run) */
    char accept_error[300];          /* non-empty: --accept names no run, or several; no verdict then */
    pc_trend_newest newest;
} pc_trend_result;

/* The decision over step times x[0..m) (history order; runs[i] is x[i]'s
 * 1-based run number and labels[i] its label, for the reason), the accepted
 * baseline starting at x[accepted] (0: the first), with the change points
 * cp[0..ncp) of x[accepted..m) (0-based offsets into that range). */
void pc_trend_judge(const double *x, const int *runs, const char *const *labels, int m, int accepted, const pc_cp *cp, int ncp,
                    double threshold_pct, pc_trend_newest *out);

/* A run's point from its summary (label: used when the summary has no
 * run.label; NULL: the input's file name). Kernel names and input are
 * borrowed from the summary; free run_kernels with pc_trend_point_release. */
void pc_trend_point_of(const pc_summary *s, const char *label, const char *report, pc_trend_point *p);
void pc_trend_point_release(pc_trend_point *p);
/* Makes p independent of its summary, so that the summary can be freed at
 * once (a trend over N summaries then holds one at a time, not N): input,
 * start_utc and the kernels' names are copied into one block of p's own
 * (report stays the caller's), and only the run's PC_TREND_RUN_KERNELS
 * kernels of most time per step are kept, as a history keeps them.
 * pc_trend_point_release frees it all. A result made from p borrows p's
 * strings: free the result first. */
void pc_trend_point_own(pc_trend_point *p);
/* s is a date trend believes: YYYY-MM-DDTHH:MM:SSZ, a real UTC time in 2000..2099 */
int pc_trend_utc_ok(const char *s);
/* The history of n points (copied; index and kernel_ns set, run_kernels not kept). */
pc_trend_result *pc_trend_points(const pc_trend_point *pts, int n, const pc_trend_opts *o);
pc_trend_result *pc_trend(const pc_trend_run *runs, int n, const pc_trend_opts *o);
void pc_trend_free(pc_trend_result *t);
/* trend.json's document (caller frees with pc_doc_free) */
pc_doc *pc_trend_json(const pc_trend_result *t);
#endif
