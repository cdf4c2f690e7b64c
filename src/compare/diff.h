/* diff.h - compare a baseline run with one or more runs, from their
 * summaries (perf diff's model: pair entries by key, list the ones present
 * on one side only, sort by the size of the change).
 *
 * pc_diff returns a new document (schema "perfcard.diff/1"; caller frees
 * with cJSON_Delete) with, per run: the verdict, the step-time change and its
 * uncertainty, every section side by side, and matched operators and
 * kernels. It never modifies the summaries.
 *
 * Verdict per run: "inconclusive" when either run has fewer than
 * PC_DIFF_MIN_STEPS steps; else "unchanged" when the median step time moved
 * less than the threshold; else "regressed" / "improved" only when the
 * Mann-Whitney U test (two-sided) gives p < 0.05 and the bootstrap 95%
 * interval of the ratio of medians excludes 1; else "inconclusive".
 */
#ifndef PC_DIFF_H
#define PC_DIFF_H
#include <cjson/cJSON.h>
#include "../summary/summary.h"

#define PC_DIFF_SCHEMA "perfcard.diff/1"
enum { PC_DIFF_MIN_STEPS = 5 };

typedef struct pc_diff_opts {
    double threshold_pct;   /* relative change that counts; default 5 */
    int rows;               /* matched rows kept per table; 0 = all */
} pc_diff_opts;

cJSON *pc_diff(const pc_summary *base, const pc_summary *const *runs, int nruns, const pc_diff_opts *o);
/* Kernel name with template arguments, parameter lists and tile sizes removed. */
void pc_kernel_normalize(const char *name, char *out, size_t cap);
/* Statistics used by the verdict, exposed for tests. */
double pc_mann_whitney_p(const double *a, int na, const double *b, int nb);
void pc_bootstrap_median_ratio(const double *a, int na, const double *b, int nb, int iters, double *lo, double *hi);
#endif
