/* diff.h - compare a baseline with one or more changes, each side one or
 * more runs of one configuration, from their summaries (perf diff's model:
 * pair entries by key, list the ones present on one side only, sort by the
 * size of the change).
 *
 * pc_diff returns a new document (schema "perfcard.diff/2"; caller frees
 * with cJSON_Delete) with the baseline side and, per change: its verdict
 * (verdict.h decides), the step-time change with its interval, the steps
 * excluded from it, the contributors to the change (step categories, then
 * kernels, operators on the device and operators' own CPU time, each with
 * its share of the change) and a one-sentence headline; every section side
 * by side; operators and kernels matched. Every figure of a side is per step
 * (the trace's total over its steps) and the mean over the side's runs, so
 * runs of different lengths compare. It never modifies the summaries. */
#ifndef PC_DIFF_H
#define PC_DIFF_H
#include <cjson/cJSON.h>
#include "../summary/summary.h"
#include "verdict.h"

#define PC_DIFF_SCHEMA "perfcard.diff/2"

typedef struct pc_diff_side {
    const char *label;                /* short name; NULL: the first input's file name */
    const pc_summary *const *runs;    /* one summary per run */
    int nruns;
} pc_diff_side;

typedef struct pc_diff_opts {
    pc_verdict_opts verdict;  /* threshold (default 2%) and noise floor (default 10%) */
    int rows;                 /* matched rows kept per table; 0 = all */
} pc_diff_opts;

cJSON *pc_diff(const pc_diff_side *base, const pc_diff_side *changes, int nchanges, const pc_diff_opts *o);
/* Kernel name with template arguments, parameter lists and tile sizes removed. */
void pc_kernel_normalize(const char *name, char *out, size_t cap);
#endif
