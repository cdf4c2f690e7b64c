/* categories.h - the step breakdown's categories, declared once: the enum
 * the analyzers index by, and per category its name in summary.json
 * (breakdown.categories[].category), its key in a step's breakdown
 * (steps.rows[].breakdown), its label, and its figure label in a diff.
 * Order: steps.c attributes each nanosecond of a step to the first category
 * in this order that covers it (kernel > memcpy > memset > communication >
 * runtime > data loading > CPU operator; the rest is other). Readers look
 * categories up by name (pc_bk_get), never by position. */
#ifndef PC_CATEGORIES_H
#define PC_CATEGORIES_H
#include "summary.h"

typedef enum { BK_KERNEL, BK_MEMCPY, BK_MEMSET, BK_COMM, BK_RUNTIME, BK_DATA, BK_CPU, BK_OTHER, BK_N } pc_bk_id;
typedef struct pc_bk_info {
    const char *name;      /* "kernel" */
    const char *step_key;  /* "kernel_ns" */
    size_t step_off;       /* its field in a step's row: offsetof(tab_step, bd_kernel_ns) (pc_bk_step) */
    const char *label;     /* "Kernel" */
    const char *per_step;  /* "Kernel per step" */
    int higher_is_worse;   /* for a diff: more of it per step is worse */
    int on_device;         /* time the device was busy (kernel, copies, sets, communication): reproducible
                              between runs of the same code, unlike host time (runtime, data loading, CPU, idle) */
} pc_bk_info;
extern const pc_bk_info pc_bk[BK_N];

/* category k's time in a step's row (ns; 0 when null) */
static inline double pc_bk_step(const tab_step *row, int k) {
    return PC_OR(*(const tk_F *)(const void *)((const char *)row + pc_bk[k].step_off), 0);
}
/* breakdown.categories[] row of category k in a summary, or NULL. */
const tab_bkcat *pc_bk_get(const pc_summary *s, int k);

/* The critical path's categories (critical_path.rows[].category), in the
 * summary's order: per category its name and its label. */
enum { PC_CP_N = 7 };
extern const char *const pc_cpath_cat[PC_CP_N][2];
/* critical_path.rows summed by category (pc_cpath_cat's order): pct[k] the
 * share of the steps, ns[k] the time per step (either may be NULL); 0 and
 * both zeroed when the summary has no rows. */
int pc_cpath_by_category(const pc_summary *s, double pct[PC_CP_N], double ns[PC_CP_N]);
#endif
