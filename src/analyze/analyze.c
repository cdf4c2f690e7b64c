/* pc_analyze: links and steps first, then two groups of independent
 * analyzers on two threads (each fills its own JSON object), then the
 * sections are put in their fixed order and the overview and suggestions,
 * which read them, run last. */
#include "analyze.h"
#include "../util/side.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include <stdlib.h>
#include <string.h>

typedef struct group { const an_ctx *c; cJSON *out; int which; } group;

static void *run_group(void *arg) {
    group *g = arg;
    if (g->which == 0) {
        an_kernels(g->c, g->out);
        an_operators(g->c, g->out);
        an_transfers(g->c, g->out);
        an_memory(g->c, g->out);
    } else {
        an_steps(g->c, g->out);
        an_gpu_metrics(g->c, g->out);
        an_counters(g->c, g->out);
        an_timeline(g->c, g->out);
    }
    return NULL;
}

static const char *const order[] = {"kernels", "operators", "operator_types", "modules", "api_calls", "transfers", "memory",
                                    "steps", "breakdown", "dataloader", "communication", "gpu", "cpu", "queues", "pipeline", "timeline", NULL};

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
    group g[2] = {{&c, cJSON_CreateObject(), 0}, {&c, cJSON_CreateObject(), 1}};
    side sd;
    /* Two threads, unless the events live in files: two passes reading at
     * full speed map file pages back faster than the spill watcher (a look
     * every millisecond, when it gets a CPU) hands them back. 800 MB bench
     * trace: peaks of 103-140 MiB on two threads, 90-101 MiB on one. */
    side_start(&sd, run_group, &g[1], t->ncpu + t->ngpu > PC_THREADED_EVENTS && spill_bytes() == 0);
    run_group(&g[0]);
    side_finish(&sd);
    for (int i = 0; order[i]; i++) {
        cJSON *x = cJSON_DetachItemFromObjectCaseSensitive(g[0].out, order[i]);
        if (!x) x = cJSON_DetachItemFromObjectCaseSensitive(g[1].out, order[i]);
        if (x) cJSON_AddItemToObject(s, order[i], x);
    }
    cJSON_Delete(g[0].out);
    cJSON_Delete(g[1].out);
    an_advice(&c, s);
    an_overview(&c, s);
    links_free(&c.links);
    spill_free(c.steps);
    return s;
}
