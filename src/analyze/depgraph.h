/* depgraph.h - one step's dependency graph, its replay and critical path (#37).
 *
 * The graph of a step, from the trace alone (docs/replay.md):
 *  - host nodes: the outermost CUDA runtime/driver calls of every thread whose
 *    start lies in the step's range, in order per thread; the time between
 *    two of them (or from the step's start to the first) is the later one's
 *    gap: host CPU work, the part of it inside data-loading ranges of that
 *    thread its data loading; a step ends with an end node on the step
 *    range's thread (without steps one on every thread with calls, at its
 *    last event's end; the thread that ends last at the window's end);
 *  - GPU nodes: the kernels, copies and memsets those calls launched
 *    (correlation id); each starts at max(its launch call's start, the end of
 *    the previous op on its stream) plus its measured delay; the first op of a
 *    stream in the step follows the end of the work launched before the step
 *    on that stream (pinned: the step's graph holds one step);
 *  - waits: cudaDeviceSynchronize/cuCtxSynchronize wait for every stream's
 *    latest op launched before them; stream and event syncs (the trace names
 *    neither stream nor event) for the streams whose latest op ends inside
 *    the call (a wait the thread's previous sync already made, on the same op,
 *    is left out: it ended before this call, so it never binds it; a sync
 *    looks only at the streams changed since, not at every stream); a blocking cudaMemcpy / cuMemcpy*, and an asynchronous copy
 *    with a pageable side, for the copy it launched (for its start when the
 *    call returned while the copy still ran: a pageable host-to-device copy
 *    returns as its last chunk goes). A waiting call ends at max(its start +
 *    its own time, the waited op's end (or start) + its return time).
 *    Without steps (the window is the program's), a call that waits for the
 *    window's last GPU op collects the results: no change removes that wait,
 *    and its thread's work after it (teardown) replays as measured, so a
 *    change never gives back host time after the GPU's last op;
 *  - cross-stream waits, inferred (the trace names no stream or event of a
 *    cudaStreamWaitEvent): an op starting over 10 us after both its launch
 *    and its stream's previous op allow waits for the op of another stream
 *    that ended last before it, at most 10 us before it.
 *  - threads: a call after a gap over 20 us follows the latest call another
 *    thread ended inside the gap (a join: backward's thread and the step's),
 *    found in a heap of the threads' last calls by end (O(log n) a call);
 *  - the launch queue: a call over 20 us that returned within 10 us of an
 *    op's end while its own work starts over 100 us later waits for that op.
 * An op starts at the latest of its bounds (its launch call's start, or its
 * end when the op started after the call returned; its stream's previous
 * op; the waited op), each plus an offset: the measured one for the bound
 * that bound it, at most 2 us for the others.
 * Replay sweeps the nodes once in the order of their measured times (a
 * topological order: every edge goes forward in measured time; an edge that
 * does not, in a damaged trace, reads its source's measured time), linear in
 * the step's events after one sort at build. A step's replayed time is
 * max(host: end node - window start, GPU: the replayed end of the step's
 * last GPU op - window start - the GPU's measured lag past the window): the
 * host may not run further ahead of the GPU than it did, so a host that no
 * longer blocks gains only what the GPU can follow. With no change it is the measured window, up to the edges a
 * damaged trace runs backwards (docs/replay.md states the error on every
 * real trace).
 * A change made in every step also moves the work launched before the step
 * (dg_change.carry): a replay writes how much earlier each stream's latest
 * work ends, relative to the next step's replayed start, and the next step's
 * replay holds that work there (the first step: the caller replays it twice,
 * the steady state). The graph keeps its buffers between steps: build steps in increasing
 * order (the work launched before a step is carried forward; a graph may skip steps). */
#ifndef PC_DEPGRAPH_H
#define PC_DEPGRAPH_H
#include "analyze.h"

typedef struct dg_graph dg_graph;

/* A change to replay; zeroed (or NULL) is the unchanged graph. */
typedef struct dg_change {
    int no_sync_wait;          /* blocking calls no longer wait (their own time stays) */
    int no_data_wait;          /* data loading prefetched: host gaps lose their data-loading part */
    const float *scale;        /* per GPU event of the trace (NULL: none): its duration times this (1: unchanged, >= 0) */
    int64_t host_floor_ns;     /* > 0: host gaps' part outside data loading, and launch calls' own time, at most this */
    int keep_phases;           /* with host_floor_ns: gaps of DG_PHASE_NS or more (host phases) are kept */
    int64_t *carry;            /* NULL: the work launched before the step is held at its measured end;
                                  else per stream (dg_index_nstreams of them, zeroed before the first step): how
                                  much earlier (<= 0) that work ends in the changed run, relative to the
                                  step's start; read, then written for the next step (steps replayed in
                                  order): the steady state of a change every step makes */
    int gpu_ends_step;         /* the step's time is max(host end node, the replayed end of its last GPU op) - window
                                  start: the GPU's work ends the step (#44 item 2, locally; no measured lag is
                                  subtracted), so a GPU-side change gives back at most the GPU's margin over the host */
} dg_change;
enum { DG_PHASE_NS = 1000000 };

/* Critical-path categories (dg_path). */
enum { DG_HOST = 0, DG_DATA, DG_LAUNCH, DG_KERNEL, DG_COPY, DG_COMM, DG_EARLIER, DG_NCAT };
extern const char *const dg_cat_name[DG_NCAT];
extern const char *const dg_cat_def[DG_NCAT];

/* The trace's part of every step's graph (the ops by launching call, their
 * streams, the ops by end; the threads' numbers once a pass numbered them),
 * made once and read by any number of graphs, on any threads. */
typedef struct dg_index dg_index;
dg_index *dg_index_new(const an_ctx *c);
void dg_index_free(dg_index *x); /* accepts NULL */
size_t dg_index_nstreams(const dg_index *x);

dg_graph *dg_new_on(const dg_index *x);  /* on x, which outlives it */
void dg_free(dg_graph *g); /* accepts NULL */
/* Builds every step's graph in order (dg_build) and calls fn(g, si, arg)
 * once per step, in step order, one call at a time (fn may replay g with a
 * carry, walk its path, append rows). threads 2: two graphs built at once on
 * two threads (the even and the odd steps; a graph skips steps as dg_build
 * allows), each step's fn after the previous step's returned, so a carry
 * passes from step to step as on one thread and fn needs no lock; only when
 * the index numbers the threads (the tie order of the join search) and there
 * are two steps or more, else on the caller's thread. A pass on one thread
 * numbers the index's threads for the passes after it. The largest node
 * count of a step: dg_nodes in fn. */
enum { DG_THREADED_EVENTS = 10000 }; /* events of a trace worth a second thread for a pass (its start: ~0.1 ms) */
void dg_each_step(dg_index *x, int threads, void (*fn)(dg_graph *g, size_t si, void *arg), void *arg);
size_t dg_nodes(const dg_graph *g);
/* 1 when the step has a host gap or join of DG_PHASE_NS or more outside data
 * loading (outside the teardown): only then does keep_phases change a replay
 * of the step (from the same carry). */
int dg_phases(const dg_graph *g);
/* Builds step si's graph (si in increasing order across calls); its node count. */
size_t dg_build(dg_graph *g, size_t si);
/* The step's measured window (ns). */
int64_t dg_measured(const dg_graph *g);
/* The step's time (ns) after the change (NULL: none). */
int64_t dg_replay(dg_graph *g, const dg_change *ch);
/* dg_replay with ch->carry; first: the first step replayed, twice (the
 * second time with the carry its first replay wrote: the steady state). */
int64_t dg_replay_steady(dg_graph *g, const dg_change *ch, int first);
/* The last replay's critical path, from the window's start to the host's end
 * node, segment by segment: add(arg, category, name (strtab id; 0 none), ns). */
void dg_path(const dg_graph *g, void (*add)(void *arg, int cat, uint32_t name, int64_t ns), void *arg);
#endif
