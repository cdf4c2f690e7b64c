#include "analyze.h"
#include "../summary/summary.h"

cJSON *pc_analyze(const pc_trace *t, const pc_analyze_opts *o) {
    cJSON *s = pc_summary_new();
    an_runinfo(t, o, s);
    an_kernels(t, o, s);
    return s;
}
