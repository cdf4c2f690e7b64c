/* handoff.h - what one analyzer passes another outside summary.json (#46 item 4).
 *
 * Analyzers read the trace and an_ctx and write their sections of the summary,
 * which is their contract (summary.h, sections.def). One thing goes around it:
 * the critical_path section's replay state, which the suggestions reuse rather
 * than build every step's dependency graph again (#38; docs/replay.md). It is
 * not a figure: an index over the trace's events, each step's unchanged replay
 * and a factor per GPU event, so it has no place in summary.json; a summary
 * read back from disk has none, and the suggestions then replay everything
 * themselves (an an_ctx without a handoff, or with an empty one).
 *
 * Writer: an_critical_path (replay.c), on the analysis thread of stage A.
 * Readers: the suggestions, in stage LAST (rules.c's rules_replayed, stakes.c's
 * stakes_tc and stakes_replay_base, advice.c through them): pc_analyze joins
 * both analysis threads before stage LAST, so the handoff needs no lock, and
 * no analyzer of stages A or B but its writer may touch it.
 * Owner: pc_analyze (analyze.c) makes it empty (all zero) and frees it with
 * an_handoff_free after every analyzer has run. */
#ifndef PC_HANDOFF_H
#define PC_HANDOFF_H
#include "depgraph.h"
#include <stdint.h>

typedef struct an_handoff {
    /* The graphs' index (dg_index_new, its threads numbered by the first
     * pass) and each step's unchanged replay (ns, c->nsteps of them).
     * Written by an_critical_path when the trace has a graph (CUDA calls);
     * read by stakes_replay_base, which then builds each step's graph on ix
     * and skips the unchanged replay.
     * Invariant: both NULL (nothing kept) or both set. */
    dg_index *ix;
    int64_t *t0;
    /* SK_HOST's saving per step (stakes_replay's mean, ns) without (host[0])
     * and with (host[1]) the host phases kept (keep_phases).
     * Written by an_critical_path with steps from a step source and at least
     * two of them; read by rules_replayed(SK_HOST) (host_wait).
     * Invariant: host_done implies ix and t0 set. */
    int host_done;
    double host[2];
    /* The Tensor Core set (stakes_tc_set: NULL when the set is empty) and its
     * kernel time in the trace (ns).
     * Written by an_critical_path whenever it replays (sets = 1); read by
     * stakes_tc (tensor_cores, the waterfall's SK_TC change).
     * Invariant: !sets implies tc NULL; tc_ns >= 0. */
    int sets;
    float *tc;
    double tc_ns;
} an_handoff;

/* Asserts h's invariants (above); h may be NULL. */
void an_handoff_check(const an_handoff *h);
/* Frees h's contents and zeroes it (empty again); accepts NULL. */
void an_handoff_free(an_handoff *h);
#endif
