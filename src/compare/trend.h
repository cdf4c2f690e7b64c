/* trend.h - the history of successive runs (summaries of CI runs): each
 * run's step time (verdict.h's statistic: the mean of its kept steps), its
 * step categories and its top kernels per step, the change points of the
 * step time (changepoint.h), and whether the newest run starts a
 * regression.
 *
 * Newest run: against the runs since the last change point (at least
 * PC_TREND_MIN_HISTORY of them), a regression when it is slower than their
 * mean by at least the threshold and by more than 3 of their standard
 * deviations (a Shewhart control limit); an improvement the other way;
 * "ok" otherwise; "insufficient history" with fewer runs.
 *
 * pc_trend returns the history as typed data (pc_trend_result; free with
 * pc_trend_free, before the summaries, whose strings it borrows); runs are
 * taken in the order given, or by their recorded start time when by_time is
 * set and every run has one. pc_trend_json writes it as trend.json (schema
 * "perfcard.trend/1"); readers (trend's report, the command, tests) read the
 * struct. */
#ifndef PC_TREND_H
#define PC_TREND_H
#include <cjson/cJSON.h>
#include "../summary/summary.h"
#include "../summary/categories.h"

#define PC_TREND_SCHEMA "perfcard.trend/1"
enum { PC_TREND_MIN_HISTORY = 3, PC_TREND_KERNELS = 5 };

typedef struct pc_trend_run {
    const pc_summary *summary;
    const char *label;   /* used when the summary has no run.label; NULL: the input's file name */
    const char *report;  /* link to the run's report.html, or NULL */
} pc_trend_run;

typedef struct pc_trend_opts {
    double threshold_pct; /* newest run: smallest slowdown that counts (default 5) */
    int by_time;          /* order by run.start_us when every run has it */
} pc_trend_opts;

/* one run of the history (NaN: a figure the run lacks) */
typedef struct pc_trend_point {
    int index;                       /* 1-based, in the history's order */
    char label[256];
    const char *input;               /* the file name, never a path */
    const char *report;              /* pc_trend_run's link, or NULL */
    double start_us, step_ns;        /* step_ns: the mean of its kept steps */
    int steps, kept_steps;
    double cat_ns[BK_N];             /* per category, the mean over kept steps (NaN without a breakdown) */
    double kernel_ns[PC_TREND_KERNELS]; /* the history's top kernels, per step */
} pc_trend_point;

/* a change point: the first run of a new level (1-based) */
typedef struct pc_trend_cp {
    int run;
    const char *label, *direction;   /* direction: "regression" (slower after) or "improvement" */
    double before_ns, after_ns, change_pct, q, p_value;
} pc_trend_cp;

enum { PC_TREND_CP_MAX = 64 };

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
    struct {
        int run;                     /* 1-based; 0 without runs */
        const char *verdict;         /* "regression", "improvement", "ok", "insufficient history" */
        char reason[300];
        double change_pct, history_mean_ns, history_sd_ns; /* NaN with insufficient history */
    } newest;
} pc_trend_result;

pc_trend_result *pc_trend(const pc_trend_run *runs, int n, const pc_trend_opts *o);
void pc_trend_free(pc_trend_result *t);
/* trend.json's document (caller frees with cJSON_Delete) */
cJSON *pc_trend_json(const pc_trend_result *t);
#endif
