/* diff_match.h - perf diff's pairing of table rows between the sides of a
 * diff (private to compare/): kernels by exact, then normalized name, then
 * by launching operator; operators and operator types by name. A table holds
 * one entry per key with the baseline's value and each change's, per step and
 * averaged over each side's runs; table_rows lists it sorted by the size of
 * the change. The caller owns a table and frees it with dtab_free. */
#ifndef PC_DIFF_MATCH_H
#define PC_DIFF_MATCH_H
#include "diff.h"
#include "../util/hmap.h"

typedef struct entry { char *key; double base; double *runs; int in_base; int *in_run; const char *how; char *label; } entry;

typedef struct table { entry *v; size_t n, cap; int nruns; hmap by_key; } table;

/* the kernels of base and runs, summed over devices, paired into t */
void match_kernels(table *t, const pc_diff_side *base, const pc_diff_side *runs, int nruns);
/* rows of table id paired by the value of column key, summing column val per step */
void match_by_name(table *t, const pc_diff_side *base, const pc_diff_side *runs, int nruns, int id, const char *key, const char *val);
/* t's rows, at most rows of them (0: all), largest change first; floor[r]:
 * change r's noise (percent); out's names point into t */
void table_rows(table *t, int nruns, int rows, const double *floor, pc_diff_table *out);
void dtab_free(table *t);
/* change x's component verdicts (diff.h): x->v must be set */
void diff_components(pc_diff_change *x, const pc_diff_side *base, const pc_diff_side *ch, double threshold_pct, double floor_pct);
#endif
