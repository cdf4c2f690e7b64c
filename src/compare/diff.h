/* diff.h - compare a baseline with one or more changes, each side one or
 * more runs of one configuration, from their summaries (perf diff's model:
 * pair entries by key, list the ones present on one side only, sort by the
 * size of the change).
 *
 * pc_diff returns the comparison as typed data (pc_diff_result; free with
 * pc_diff_free, before the summaries, whose strings it borrows): the
 * baseline side and, per change: its verdict (verdict.h decides), the
 * step-time change with its interval, the steps excluded from it, the
 * contributors to the change (step categories, then kernels, operators on
 * the device and operators' own CPU time, each with its share of the
 * change) and a one-sentence headline; every figure side by side;
 * operators and kernels matched. Every figure of a side is per step (the
 * trace's total over its steps) and the mean over the side's runs, so runs
 * of different lengths compare. It never modifies the summaries.
 * pc_diff_json writes it as diff.json (schema "perfcard.diff/2"); readers
 * (diff's report, the command's console lines, tests) read the struct. */
#ifndef PC_DIFF_H
#define PC_DIFF_H
#include "../summary/doc.h"
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

/* ---------- the result ---------- */

/* a side as compared: its label, inputs (file names, never paths), runs,
 * steps, kept steps, and per run the steps left out (rs[q].excl) */
typedef struct pc_diff_sideinfo {
    char label[256];
    const char **inputs;      /* one per run */
    const pc_run_steps *rs;   /* one per run */
    int runs, steps, kept_steps;
} pc_diff_sideinfo;

/* a contributor to a change's step time: kind "category", "kernel",
 * "operator" or "CPU operator"; its change per step and share of the
 * step's change (NaN when the step did not change) */
typedef struct pc_diff_contrib { const char *kind, *name; double delta_ns, share_pct; } pc_diff_contrib;

enum { PC_DIFF_CONTRIB_MAX = 6 }; /* 3 categories, then the 3 largest entries */

/* A component verdict (#36): a kernel whose device time per step moved
 * beyond its own noise, tested apart from the step (diff_components.c).
 * Tested: kernels (by exact name, summed over devices) in every run of both
 * sides with per-step figures (kernels' step_mean_ns, step_sd_ns), at
 * PC_COMP_MIN_SHARE % of the step or more on either side. Two runs or more
 * on a side: the step's model (pc_runs_model) on the runs' log per-step
 * means, each with its steps' sampling variance (SD^2 / (mean^2 steps)),
 * at the step model's level (p < 0.001; 0.0005 with 3 runs or more on each
 * side: clock noise moves every kernel together, so the correction over
 * them does not bound the false rate, the level does); one run a side: Welch's t on the steps (from the mean and SD,
 * delta method on the log), p < 0.05, and the whole 95% interval beyond the
 * noise floor (run-to-run variation cannot be seen in one run). Holm's
 * step-down over the components tested (the k-th smallest p against
 * alpha / (m - k)), the interval excluding 0 and |change| >= the threshold.
 * verdict: "regressed", "improved" or "within noise". */
#define PC_COMP_MIN_SHARE 1.0
typedef struct pc_diff_component {
    const char *kind, *name, *verdict;
    double base_ns, new_ns, delta_pct; /* per step, the mean over a side's runs */
    double base_sd_pct, new_sd_pct;    /* its per-step SD / its mean, the runs' mean */
    double p, p_bar;                   /* p and Holm's bar for it (NaN past the first kept) */
    double lo_pct, hi_pct;             /* 95% interval of the change */
    /* a kernel swap (#47): the operator that launched most of the kernel's time (NULL when the
     * summaries do not say) and the per-step time of every kernel it launched most of, each side;
     * verdict "algorithm changed" when the kernel moved beyond its noise but its operator's
     * kernels did not move with it (another kernel took or gave its work) */
    const char *under;
    double under_base_ns, under_new_ns;
} pc_diff_component;

typedef struct pc_diff_change {
    pc_diff_sideinfo side;
    pc_verdict v;             /* verdict, reason, step statistic and its test */
    pc_diff_contrib contrib[PC_DIFF_CONTRIB_MAX];
    int ncontrib;
    char headline[700];
    pc_diff_component *comp;  /* tested components: named ones first, then by |change per step| */
    int ncomp, comp_regressed, comp_improved;
    const char *comp_test;    /* the components' test, in words */
    char comp_note[300];      /* why nothing was tested, or "" */
} pc_diff_change;

/* one change's value of a figure; without has_new nothing else; without
 * the figure's has_base no delta; delta_pct NaN when the base is 0 */
typedef struct pc_diff_cell { int has_new; double new_v, delta, delta_pct; int within_noise; } pc_diff_cell;

typedef struct pc_diff_figure {
    const char *section, *label, *unit; /* unit: "ns", "pct", "bytes", "count", ... */
    int higher_is_worse, has_base;
    double base;
    pc_diff_cell *runs;                 /* one per change */
} pc_diff_figure;

/* a matched row: status "matched", "added" (no base) or "removed" (in no
 * change); per change its status ("absent" in neither), time per step, and
 * change (delta_pct and ratio NaN where the base is absent or 0) */
typedef struct pc_diff_row_run { const char *status; double new_ns, delta_ns, delta_pct, ratio; int within_noise; } pc_diff_row_run;
typedef struct pc_diff_row {
    const char *name, *status, *matched_by; /* matched_by: "name", "normalized name", "launching operator"; "" unless matched */
    double base_ns;
    pc_diff_row_run *runs;
} pc_diff_row;
/* rows sorted by the largest change, at most pc_diff_opts.rows of them;
 * added, removed and total count every entry */
typedef struct pc_diff_table { pc_diff_row *rows; int nrows, added, removed, total; } pc_diff_table;

enum { PC_DT_OPERATORS, PC_DT_OPERATORS_CPU, PC_DT_OPERATOR_TYPES, PC_DT_KERNELS, PC_DT_N };
extern const char *const pc_diff_table_keys[PC_DT_N]; /* "operators", ... as diff.json names them */

typedef struct pc_diff_result {
    double threshold_pct, noise_floor_pct;
    const char *method;         /* how steps are kept and the verdict decided, in words */
    const char *verdict;        /* worst of the changes: regressed, inconclusive, improved, unchanged */
    const char *headline;       /* the worst change's headline */
    pc_diff_sideinfo base;
    double base_step_ns;        /* the verdict's statistic for the baseline */
    pc_diff_change *changes;
    int nchanges;
    pc_diff_figure *figures;    /* the step time first, then tables.def's DIFF lines */
    int nfigures;
    pc_diff_table tables[PC_DT_N];
    struct pc_diff_own *own;    /* what the above hold */
} pc_diff_result;

pc_diff_result *pc_diff(const pc_diff_side *base, const pc_diff_side *changes, int nchanges, const pc_diff_opts *o);
void pc_diff_free(pc_diff_result *d);
/* diff.json's document (caller frees with pc_doc_free) */
pc_doc *pc_diff_json(const pc_diff_result *d);
/* the same with the first `rows` rows of each table: a view's (diff.html,
 * diff.md show at most that many; a table's count of rows is its nrows) */
pc_doc *pc_diff_json_view(const pc_diff_result *d, int rows);
/* diff.json's text, cJSON_Print's of pc_diff_json, written a row at a time
 * (40,000 rows of two tables were 110 MB of cJSON): appended to b, or
 * written atomically to path */
void pc_diff_json_text(const pc_diff_result *d, sbuf *b);
int pc_diff_json_write(const pc_diff_result *d, const char *path, pc_err *err);
/* a figure by its label, or NULL */
const pc_diff_figure *pc_diff_figure_named(const pc_diff_result *d, const char *label);
/* Kernel name with template arguments, parameter lists and tile sizes removed. */
void pc_kernel_normalize(const char *name, char *out, size_t cap);
#endif
