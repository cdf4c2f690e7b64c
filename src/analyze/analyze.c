/* pc_analyze: links and steps first, then two groups of independent
 * analyzers on two threads (each fills its own JSON object), then the
 * sections are put in their fixed order and the overview and suggestions,
 * which read them, run last. */
#include "analyze.h"
#include "../util/side.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct group { const an_ctx *c; pc_summary *out; int which; } group;

/* PERFCARD_TIMING=1: each analyzer's wall time on stderr (as the CLI's stages) */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#define TIMED(what, call)                                                                        \
    do {                                                                                         \
        double t0_ = timing ? now_s() : 0;                                                       \
        call;                                                                                    \
        if (timing) fprintf(stderr, "perfcard: timing:   %-12s %.3f s\n", what, now_s() - t0_); \
    } while (0)

static void *run_group(void *arg) {
    group *g = arg;
    int timing = getenv("PERFCARD_TIMING") != NULL;
    if (g->which == 0) {
        TIMED("operators", an_operators(g->c, g->out));
        TIMED("transfers", an_transfers(g->c, g->out->doc));
        TIMED("memory", an_memory(g->c, g->out->doc));
    } else {
        TIMED("kernels", an_kernels(g->c, g->out));
        TIMED("steps", an_steps(g->c, g->out->doc));
        TIMED("gpu", an_gpu_metrics(g->c, g->out->doc));
        TIMED("counters", an_counters(g->c, g->out->doc));
        TIMED("timeline", an_timeline(g->c, g->out->doc));
    }
    return NULL;
}

static const char *const order[] = {"kernels", "operators", "operator_types", "modules", "api_calls", "transfers", "memory",
                                    "steps", "breakdown", "dataloader", "communication", "gpu", "cpu", "queues", "pipeline", "timeline", NULL};

pc_summary *pc_analyze(const pc_trace *t, const pc_analyze_opts *o) {
    an_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    if (o) c.o = *o;
    int timing = getenv("PERFCARD_TIMING") != NULL;
    TIMED("links", links_build(t, &c.links));
    if (t->ndev > 0) {
        c.dev0 = &t->dev[0];
        c.peak = peak_lookup(strtab_get(&t->strs, t->dev[0].name));
    }
    TIMED("steps_find", steps_find(&c));
    pc_summary *s = pc_summary_new();
    an_runinfo(&c, s->doc);
    group g[2] = {{&c, pc_summary_new(), 0}, {&c, pc_summary_new(), 1}};
    side sd;
    /* Two threads for big traces, also when the events live in files: since
     * the spill watcher trims only after its blocks grow (spill.c), two passes
     * over spilled events no longer outrun it. Measured (2 cores): 800 MB
     * trace 4.7 s, 85-96 MiB on two threads vs 5.9 s, 84 MiB on one; a
     * 3,000,000-event gzip bomb 93 vs 100-104 MiB; 500,000 + 500,000 names
     * analyzed in 3.6 s vs 4.6-5.7 s at 158 MiB either way. */
    side_start(&sd, run_group, &g[1], t->ncpu + t->ngpu > PC_THREADED_EVENTS);
    run_group(&g[0]);
    side_finish(&sd);
    for (int i = 0; order[i]; i++) {
        pc_summary_move(s, g[0].out, order[i]);
        pc_summary_move(s, g[1].out, order[i]);
    }
    /* a section missing from order[] is a bug, never a silent drop */
    for (int k = 0; k < 2; k++)
        for (const cJSON *x = g[k].out->doc->child; x; x = x->next)
            if (strcmp(x->string, "schema") != 0) {
                fprintf(stderr, "perfcard: internal error: section \"%s\" is not in analyze.c's order\n", x->string);
                abort();
            }
    pc_summary_free(g[0].out);
    pc_summary_free(g[1].out);
    TIMED("advice", an_advice(&c, s));
    TIMED("overview", an_overview(&c, s));
    links_free(&c.links);
    spill_free(c.steps);
    return s;
}
