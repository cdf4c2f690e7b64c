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
 * pc_trend returns a new document (schema "perfcard.trend/1"; caller frees
 * with cJSON_Delete); runs are taken in the order given, or by their
 * recorded start time when by_time is set and every run has one. */
#ifndef PC_TREND_H
#define PC_TREND_H
#include <cjson/cJSON.h>
#include "../summary/summary.h"

#define PC_TREND_SCHEMA "perfcard.trend/1"
enum { PC_TREND_MIN_HISTORY = 3, PC_TREND_KERNELS = 5 };

typedef struct pc_trend_run {
    const pc_summary *summary;
    const char *label;   /* NULL: the input's file name */
    const char *report;  /* link to the run's report.html, or NULL */
} pc_trend_run;

typedef struct pc_trend_opts {
    double threshold_pct; /* newest run: smallest slowdown that counts (default 5) */
    int by_time;          /* order by run.start_us when every run has it */
} pc_trend_opts;

cJSON *pc_trend(const pc_trend_run *runs, int n, const pc_trend_opts *o);
#endif
