/* pc_analyze: links and steps first, then the analyzers of sections.def by
 * stage: the run section, then two groups of independent analyzers on two
 * threads (each fills its own summary), whose sections are then put in the
 * table's order, then the suggestions and the overview, which read them. */
#include "analyze.h"
#include "handoff.h"
#include "../util/side.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum stage { STAGE_FIRST, STAGE_A, STAGE_B, STAGE_LAST };
typedef struct section {
    const char *key, *analyzer_name;
    void (*analyzer)(const an_ctx *, pc_summary *);
    enum stage stage;
} section;
static const section sections[] = {
#define SECTION(key, fn, stage) {#key, #fn, fn, STAGE_##stage},
#include "sections.def"
#undef SECTION
};
enum { NSECTIONS = sizeof sections / sizeof *sections };

/* pc_analyze_opts.timing: each analyzer's wall time on stderr (as the CLI's stages) */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#define TIMED(what, call)                                                                        \
    do {                                                                                         \
        double t0_ = timing ? now_s() : 0;                                                       \
        call;                                                                                    \
        if (timing) fprintf(stderr, "perfcard: timing:   %-14s %.3f s\n", what, now_s() - t0_); \
    } while (0)

/* Runs the analyzers of one stage, each once, in the table's order. */
typedef struct stage_run { const an_ctx *c; pc_summary *out; enum stage stage; } stage_run;
static void *run_stage(void *arg) {
    stage_run *g = arg;
    int timing = g->c->o.timing;
    for (int i = 0; i < NSECTIONS; i++) {
        const section *x = &sections[i];
        int first = x->stage == g->stage;
        for (int j = 0; j < i && first; j++) first = sections[j].analyzer != x->analyzer;
        if (first) TIMED(x->analyzer_name + 3, x->analyzer(g->c, g->out));
    }
    return NULL;
}

pc_summary *pc_analyze(const pc_trace *t, const pc_analyze_opts *o) {
    an_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    an_handoff handoff = {0};
    c.handoff = &handoff; /* critical_path's pass, for the suggestions' replays (handoff.h) */
    if (o) c.o = *o;
    int timing = c.o.timing;
    TIMED("links", links_build(t, &c.links));
    if (t->ndev > 0) {
        c.dev0 = &t->dev[0];
        c.peak = peak_of_device(t, &t->dev[0], c.peak_basis, sizeof c.peak_basis); /* by name, else by its signature */
    }
    TIMED("steps_find", steps_find(&c));
    pc_summary *s = pc_summary_new();
    stage_run first = {&c, s, STAGE_FIRST}, a = {&c, pc_summary_new(), STAGE_A}, b = {&c, pc_summary_new(), STAGE_B};
    run_stage(&first);
    side sd;
    /* Two threads for big traces, also when the events live in files: the
     * pages of spilled events resident at once are bounded by spill.c's window
     * whatever the two threads touch. Measured (2 cores, with the watcher
     * that preceded the window): 800 MB
     * trace 4.7 s, 85-96 MiB on two threads vs 5.9 s, 84 MiB on one; a
     * 3,000,000-event gzip bomb 93 vs 100-104 MiB; 500,000 + 500,000 names
     * analyzed in 3.6 s vs 4.6-5.7 s at 158 MiB either way. */
    side_start(&sd, run_stage, &b, t->ncpu + t->ngpu > PC_THREADED_EVENTS);
    run_stage(&a);
    side_finish(&sd);
    for (int i = 0; i < NSECTIONS; i++) {
        pc_summary_move(s, a.out, sections[i].key);
        pc_summary_move(s, b.out, sections[i].key);
    }
    /* a section missing from sections.def is a bug, never a silent drop */
    for (int k = 0; k < 2; k++)
        for (const cJSON *x = (k ? b.out : a.out)->doc->child; x; x = x->next)
            if (strcmp(x->string, "schema") != 0) {
                fprintf(stderr, "perfcard: internal error: section \"%s\" is not in sections.def\n", x->string);
                abort();
            }
    pc_summary_free(a.out);
    pc_summary_free(b.out);
    stage_run last = {&c, s, STAGE_LAST};
    run_stage(&last);
    /* whatever perfcard writes, perfcard reads: a figure beyond the summary's
     * range (bytes of 2^65 from a tensor's stated shape) is left empty, said */
    char where[256];
    size_t nfix = pc_summary_conform(s, where, sizeof where);
    s->conformed = nfix;
    s->reshaped += c.links.reattached + c.steps_nested + c.steps_overlap; /* said by an_runinfo */
    cJSON *w = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s->doc, "run"), "warnings");
    if (nfix && cJSON_IsArray(w)) {
        char msg[600];
        snprintf(msg, sizeof msg,
                 "%zu figures are beyond what summary.json holds (times and sizes within 2^62 ns or bytes, counts not "
                 "negative) and are left empty (the first: %s); the input states impossible sizes or times",
                 nfix, where);
        cJSON_AddItemToArray(w, cJSON_CreateString(msg));
    }
    an_handoff_free(&handoff);
    links_free(&c.links);
    spill_free(c.steps);
    free(c.step_source_own);
    return s;
}
