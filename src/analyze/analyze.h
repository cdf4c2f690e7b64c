/* analyze.h - from a loaded trace to the summary.
 *
 * pc_analyze runs every analyzer over a finished pc_trace and returns a new
 * summary document (see summary/summary.h; caller frees with cJSON_Delete).
 * Analyzers only read the trace; each fills its own section of the summary
 * and says in it what the trace did not contain, rather than guessing.
 */
#ifndef PC_ANALYZE_H
#define PC_ANALYZE_H
#include <cjson/cJSON.h>
#include "../model/trace.h"

typedef struct pc_analyze_opts {
    const char *input_name;   /* shown in run info */
    int group_by_shape;       /* operators keyed by (name, input shapes) */
    const char *step_pattern; /* regex naming step ranges, or NULL */
    const char *fp_point, *bp_point;
} pc_analyze_opts;

cJSON *pc_analyze(const pc_trace *t, const pc_analyze_opts *o);

/* Sections, in the order pc_analyze runs them. */
void an_runinfo(const pc_trace *t, const pc_analyze_opts *o, cJSON *summary);
void an_kernels(const pc_trace *t, const pc_analyze_opts *o, cJSON *summary);
#endif
