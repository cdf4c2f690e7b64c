#include "analyze.h"
#include "../summary/summary.h"
#include <stdlib.h>
#include <string.h>

cJSON *pc_analyze(const pc_trace *t, const pc_analyze_opts *o) {
    an_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    if (o) c.o = *o;
    links_build(t, &c.links);
    if (t->ndev > 0) {
        c.dev0 = &t->dev[0];
        c.peak = peak_lookup(strtab_get(&t->strs, t->dev[0].name));
    }
    steps_find(&c);
    cJSON *s = pc_summary_new();
    an_runinfo(&c, s);
    an_kernels(&c, s);
    an_operators(&c, s);
    an_transfers(&c, s);
    an_memory(&c, s);
    an_steps(&c, s);
    an_gpu_metrics(&c, s);
    an_counters(&c, s);
    an_timeline(&c, s);
    an_advice(&c, s);
    an_overview(&c, s);
    links_free(&c.links);
    free(c.steps);
    return s;
}
