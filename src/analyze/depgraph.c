/* One step's dependency graph, its replay and its critical path: the
 * contract is in depgraph.h, the method and its validation in docs/replay.md. */
#include <assert.h>
#include "depgraph.h"
#include "../util/apiname.h"
#include "../util/hmap.h"
#include "../util/side.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const dg_cat_name[DG_NCAT] = {"host", "data_loading", "launch", "kernel", "copy", "communication", "earlier_work"};
const char *const dg_cat_def[DG_NCAT] = {
    "host CPU work between CUDA calls on the path (outside data loading)",
    "host time on the path inside data-loading ranges",
    "CUDA runtime/driver calls' own time, launch latency and stream gaps on the path",
    "kernels on the path (not collectives)",
    "memory copies and memsets on the path",
    "collective (NCCL) kernels on the path",
    "waiting for GPU work launched before the step"};

enum { N_HOST = 0, N_END, N_GPU };
/* a call's sync class (api_sync_kind; 0: not yet classified) */
enum { SY_NONE = API_SYNC_NONE, SY_DEVICE = API_SYNC_DEVICE, SY_STREAM = API_SYNC_STREAM, SY_COPY = API_SYNC_COPY, SY_ASYNC = API_SYNC_ASYNC };
enum { EV_HEND = 0, EV_HSTART = 1, EV_GPU = 2 };
enum { F_START = 1, F_END = 2 };

typedef struct dg_node {
    int64_t ts, end;      /* measured */
    int64_t gap, data;    /* host, end: measured gap before it (from the previous call's end), of which data loading */
    int64_t own;          /* host: time not waiting; gpu: duration */
    int64_t post;         /* waiting host node: its return time after the waited op's end */
    int64_t dl, dp, dx;   /* gpu: start - its launch base, - the previous op's end (or pin), - the waited op's end (xw/xpin):
                             the measured binding one in full, the others at most DG_MIN_GAP_NS */
    int64_t delay;        /* gpu, replay: the offset from what bound it */
    int64_t pin;          /* gpu without a previous op: its stream's work launched before the step ends here (INT64_MIN: none) */
    int64_t xpin;         /* gpu with an inferred cross-stream wait on work outside the step's graph: its end (INT64_MIN: none) */
    int64_t s2, e2;       /* replayed */
    int32_t prev;         /* host: previous call of its thread; gpu: previous op of its stream; -1 none */
    int32_t launch;       /* gpu: launching host node */
    int32_t xw;           /* gpu: the op of another stream it waits for (inferred), -1 none */
    int32_t xsid;         /* gpu with xpin: the stream of the work it waits for (-1: launched by no call) */
    int32_t join;         /* host on the step's thread: another thread's last call inside its gap (-1 none) */
    int64_t jgap;         /* its time from that call's end; of which data loading: jdata */
    int64_t jdata;
    int32_t gi;           /* gpu: its index in the trace's GPU events */
    int32_t wait0, nwait; /* host: its waits, g->w[wait0 ..] */
    int32_t sid, bind;    /* gpu: stream index; replay: what bound it (host: wait index or -1; gpu: 0 launch, 1 previous, 2 pinned, 3 cross-stream wait) */
    uint32_t name;
    uint8_t kind, cat, flags;
    uint8_t qwait;        /* host: its wait is the launch queue's (not a synchronizing call's) */
    uint8_t fin;          /* host, in a window without steps: it waits for the window's last GPU op (the program's
                             results: what follows it, teardown, follows the GPU's end): no change removes that wait */
    uint8_t tail;         /* host, end: after a fin call on its thread (teardown): no change touches it */
    uint8_t jb;           /* replay: its start was bound by the join */
    uint8_t lend;         /* gpu: it started after its launch call returned: its delay counts from the call's end */
} dg_node;

enum { SID_DEVICE_SYNC = -2 }; /* a wait's sid: it waits for an earlier device-wide sync (host node), device_sync_cover */
typedef struct dg_wait { int32_t node, sid; int64_t pin; int at_start; } dg_wait; /* node -1: work before the step on stream sid, ending at pin;
                                                                             at_start: the call returned while its copy ran: it waits for the copy's start */
typedef struct dg_ev { int64_t key; int32_t type, node; } dg_ev;
typedef struct dg_dl { int32_t th; int64_t s, e; } dg_dl;
typedef struct dg_je { int64_t end; int32_t th, node; } dg_je; /* a thread's call, for the join search */

/* The trace's part, the same for every step and every graph: built once (dg_index_new), then
 * read only, by any number of graphs on any threads. */
struct dg_index {
    const an_ctx *c;
    int32_t *goff, *gidx; /* graph ops by their launching outermost call (cpu index): CSR */
    int32_t *sid;         /* per GPU event: stream index, -1 when not a graph op */
    int32_t *byend; size_t nbyend; /* graph ops' GPU event indices by end */
    size_t nstreams;
    hmap threads; size_t nthreads; /* the threads' numbers of a build of every step in order (dg_index_keep_threads) */
    int numbered;
};

struct dg_graph {
    const an_ctx *c;
    const int32_t *goff, *gidx, *sid, *byend; size_t nbyend, nstreams; /* the index's (dg_index) */
    const dg_index *ix;
    int32_t *gnode;       /* per GPU event: its node in the current step's graph, -1 none */
    int64_t *carry;       /* per stream: end of the latest work launched before the current step */
    int64_t *rmax;        /* per stream: scratch of a replay (its latest replayed end) */
    size_t cursor;        /* cpu index below which launches are carried */
    hmap threads;         /* threads the index does not number: numbered here, after the index's */
    size_t nthreads, capthr;
    int32_t *tlast;
    size_t *tcur;         /* per thread: slog's length after its last synchronizing call's scan (SIZE_MAX: none in the step) */
    dg_wait *twait;       /* per thread: a wait of its syncs in the step (sid -1: none), with the op's end in pin */
    int32_t *slog; size_t nslog, capslog; /* the step's streams whose latest op changed, or that a sync looked at and did not wait for */
    uint64_t *sstamp, stamp; /* per stream: the last sync scan that looked at it */
    int32_t dsync; size_t dsync_mark; /* the step's latest device-wide sync (-1: none), and slog's length after its scan */
    int32_t *slast, *slatest; int64_t *slatest_end;
    dg_node *n; size_t nn, capn;
    dg_wait *w; size_t nw, capw;
    dg_ev *ev; size_t nev, capev;
    dg_ev *evtmp; size_t capevtmp; /* ev_sort's scratch */
    dg_dl *dl; size_t ndl, capdl;
    int32_t *ends; size_t nends, capends;
    dg_je *jdone; size_t njdone, capjdone; /* the step's calls that ended by the current call's start: max-heap by end */
    dg_je *jrun; size_t njrun, capjrun;    /* the others: min-heap by end */
    uint8_t *cls;         /* per strtab id: SY_* of a call, bit 0x10 dataloader name known, 0x20 is one, 0x40 nccl known, 0x80 is one */
    int64_t anchor, wstart, wend;
    int32_t path_end;
    int64_t path_hi;          /* the last replay's step end (absolute): where its path ends */
    int no_data;          /* the last replay prefetched data loading */
    int phases;           /* a gap or join of DG_PHASE_NS or more, less its data loading (dg_phases) */
    int64_t gtail;        /* without steps: the window's end less the host's last event's end (the GPU's
                             tail, inside the end nodes' gaps; 0 with steps): gpu_ends_step leaves it out of H */
};

static int32_t top_call(const pc_trace *t, const pc_links *l, int32_t i) {
    int32_t top = -1;
    for (; i >= 0; i = l->parent[i])
        if (t->cpu[i].kind == CPU_RUNTIME || t->cpu[i].kind == CPU_DRIVER) top = i;
    return top;
}

static int sync_class(dg_graph *g, uint32_t id) {
    if (g->cls[id] & 0x0f) return g->cls[id] & 0x0f;
    int k = api_sync_kind(strtab_get(&g->c->t->strs, id));
    g->cls[id] = (uint8_t)((g->cls[id] & 0xf0) | k);
    return k;
}
static int is_dl(dg_graph *g, const pc_cpu_event *e) {
    if (e->kind == CPU_DATALOADER) return 1;
    if (!(g->cls[e->name] & 0x10)) g->cls[e->name] |= (uint8_t)(0x10 | (name_is_dataloader(strtab_get(&g->c->t->strs, e->name)) ? 0x20 : 0));
    return (g->cls[e->name] & 0x20) != 0;
}
static int is_comm(dg_graph *g, uint32_t id) {
    if (!(g->cls[id] & 0x40)) g->cls[id] |= (uint8_t)(0x40 | (name_is_nccl(strtab_get(&g->c->t->strs, id)) ? 0x80 : 0));
    return (g->cls[id] & 0x80) != 0;
}

/* a CPU event's thread, as a key of the threads' maps */
static uint64_t thread_key(const pc_cpu_event *e) { return ((uint64_t)(uint32_t)e->pid << 32 | (uint32_t)e->tid) ^ 0x9E3779B97F4A7C15ULL; }

static uint32_t thread_of(dg_graph *g, const pc_cpu_event *e) {
    uint64_t key = thread_key(e);
    if (g->ix->numbered) {
        const uint32_t *n = hmap_find(&g->ix->threads, key);
        if (n) return *n;
    }
    int created;
    uint32_t *v = hmap_get(&g->threads, key, &created);
    if (created) {
        *v = (uint32_t)g->nthreads++;
        if (g->nthreads > g->capthr) {
            g->capthr = g->capthr ? 2 * g->capthr : 16;
            g->tlast = xrealloc(g->tlast, g->capthr * sizeof *g->tlast);
            g->tcur = xrealloc(g->tcur, g->capthr * sizeof *g->tcur);
            g->twait = xrealloc(g->twait, g->capthr * sizeof *g->twait);
        }
        g->tlast[*v] = -1;
        g->tcur[*v] = SIZE_MAX;
        g->twait[*v].sid = -1;
    }
    return *v;
}

/* Without steps: per thread numbered so far, the end of its last CPU event (any kind) in [i0, i1),
 * INT64_MIN for a thread with none; looks threads up, never numbers one (the numbering is the join
 * search's tie order). xmalloc'd, g->nthreads long (at least one). */
static int64_t *thread_ends(const dg_graph *g, size_t i0, size_t i1) {
    const pc_trace *t = g->c->t;
    int64_t *te = xmalloc((g->nthreads ? g->nthreads : 1) * sizeof *te);
    for (size_t k = 0; k < g->nthreads; k++) te[k] = INT64_MIN;
    for (size_t i = i0; i < i1; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        uint64_t key = thread_key(e);
        const uint32_t *n = g->ix->numbered ? hmap_find(&g->ix->threads, key) : NULL;
        if (!n) n = hmap_find(&g->threads, key);
        if (n && *n < g->nthreads && e->ts + e->dur > te[*n]) te[*n] = e->ts + e->dur;
    }
    return te;
}

static _Thread_local const pc_trace *sort_gpu; /* for cmp_end: one per thread (reports of several inputs analyze them in parallel) */
static int cmp_end(const void *a, const void *b) {
    const pc_gpu_event *x = &sort_gpu->gpu[*(const int32_t *)a], *y = &sort_gpu->gpu[*(const int32_t *)b];
    int64_t ex = x->ts + x->dur, ey = y->ts + y->dur;
    if (ex != ey) return ex < ey ? -1 : 1;
    return *(const int32_t *)a < *(const int32_t *)b ? -1 : *(const int32_t *)a > *(const int32_t *)b;
}

/* The launch latency or stream gap an op is given from a bound that did not bind it when measured. */
#define DG_MIN_GAP_NS 2000
/* an op's measured offset from one of its bounds (at), in full when that bound is the binding
 * one (base), else at most DG_MIN_GAP_NS: the launch latency or stream gap it would have had */
static int64_t off(int64_t ts, int64_t at, int64_t base) {
    int64_t d = ts - at;
    return at >= base || d <= DG_MIN_GAP_NS ? d : DG_MIN_GAP_NS;
}

/* An op that starts more than XS_TOL after both its launch and its stream's previous op allow
 * waits for the op of another stream that ended last before it, when that one ended at most
 * XS_TOL before it (a cudaStreamWaitEvent the trace records without its stream or event). */
#define XS_TOL 10000
/* A call over QUEUE_MIN_NS whose launched work starts over QUEUE_BEHIND_NS after it returns, and that
 * returned at most XS_TOL after an op ended, was held by the full launch queue: it waits for that op. */
#define QUEUE_MIN_NS 20000
/* A call after a gap over JOIN_MIN_NS follows the latest call another thread ended inside the gap. */
#define JOIN_MIN_NS 20000
#define QUEUE_BEHIND_NS 100000
static int32_t cross_wait(const dg_graph *g, int32_t gi, int64_t base) {
    const pc_trace *t = g->c->t;
    int64_t s = t->gpu[gi].ts;
    if (s - base <= XS_TOL) return -1;
    size_t lo = 0, hi = g->nbyend;
    while (lo < hi) { /* first op ending after s */
        size_t m = (lo + hi) / 2;
        const pc_gpu_event *e = &t->gpu[g->byend[m]];
        if (e->ts + e->dur <= s) lo = m + 1;
        else hi = m;
    }
    for (size_t k = lo; k-- > 0;) {
        int32_t o = g->byend[k];
        const pc_gpu_event *e = &t->gpu[o];
        if (e->ts + e->dur < s - XS_TOL || e->ts + e->dur <= base) return -1;
        if (g->sid[o] != g->sid[gi]) return o;
    }
    return -1;
}

dg_index *dg_index_new(const an_ctx *c) {
    const pc_trace *t = c->t;
    const pc_links *l = &c->links;
    dg_index *g = xcalloc(1, sizeof *g);
    g->c = c;
    g->sid = spill_alloc((t->ngpu ? t->ngpu : 1) * sizeof *g->sid);
    g->goff = spill_calloc(t->ncpu + 1, sizeof *g->goff);
    int32_t *top = spill_alloc((t->ngpu ? t->ngpu : 1) * sizeof *top);
    hmap streams = {0};
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *e = &t->gpu[i];
        g->sid[i] = -1;
        top[i] = -1;
        if ((e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) || !l->gpu_launch || l->gpu_launch[i] < 0) continue;
        top[i] = top_call(t, l, l->gpu_launch[i]);
        if (top[i] < 0) continue;
        int created;
        uint32_t *v = hmap_get(&streams, ((uint64_t)(uint32_t)e->device << 32 | (uint32_t)e->stream) ^ 0x51ED270B27B4F1A3ULL, &created);
        if (created) *v = (uint32_t)g->nstreams++;
        g->sid[i] = (int32_t)*v;
        g->goff[top[i] + 1]++;
    }
    hmap_free(&streams);
    for (size_t i = 0; i < t->ncpu; i++) g->goff[i + 1] += g->goff[i];
    g->gidx = spill_alloc((g->goff[t->ncpu] ? (size_t)g->goff[t->ncpu] : 1) * sizeof *g->gidx);
    int32_t *fill = spill_alloc((t->ncpu + 1) * sizeof *fill);
    memcpy(fill, g->goff, (t->ncpu + 1) * sizeof *fill);
    for (size_t i = 0; i < t->ngpu; i++)
        if (g->sid[i] >= 0) g->gidx[fill[top[i]]++] = (int32_t)i; /* in time order within a call */
    spill_free(fill);
    spill_free(top);
    g->byend = spill_alloc((t->ngpu ? t->ngpu : 1) * sizeof *g->byend);
    for (size_t i = 0; i < t->ngpu; i++)
        if (g->sid[i] >= 0) g->byend[g->nbyend++] = (int32_t)i;
    sort_gpu = t;
    qsort(g->byend, g->nbyend, sizeof *g->byend, cmp_end);
    return g;
}

void dg_index_free(dg_index *x) {
    if (!x) return;
    SPILL_FREE_ALL(x->sid, x->goff, x->gidx, x->byend);
    hmap_free(&x->threads);
    free(x);
}

size_t dg_index_nstreams(const dg_index *x) { return x->nstreams; }

static void dg_index_keep_threads(dg_index *x, dg_graph *g) {
    if (x->numbered || g->ix != x) return;
    x->threads = g->threads, x->nthreads = g->nthreads, x->numbered = 1;
    memset(&g->threads, 0, sizeof g->threads);
}

dg_graph *dg_new_on(const dg_index *x) {
    const an_ctx *c = x->c;
    const pc_trace *t = c->t;
    dg_graph *g = xcalloc(1, sizeof *g);
    g->c = c;
    g->ix = x;
    g->goff = x->goff, g->gidx = x->gidx, g->sid = x->sid, g->byend = x->byend, g->nbyend = x->nbyend, g->nstreams = x->nstreams;
    g->cls = spill_calloc(t->strs.n ? t->strs.n : 1, 1);
    g->gnode = spill_alloc((t->ngpu ? t->ngpu : 1) * sizeof *g->gnode);
    for (size_t i = 0; i < t->ngpu; i++) g->gnode[i] = -1;
    if (x->numbered && x->nthreads) { /* the index's threads, numbered as a build of every step in order numbers them */
        g->nthreads = g->capthr = x->nthreads;
        g->tlast = xmalloc(g->capthr * sizeof *g->tlast);
        g->tcur = xmalloc(g->capthr * sizeof *g->tcur);
        g->twait = xmalloc(g->capthr * sizeof *g->twait);
        for (size_t k = 0; k < g->nthreads; k++) g->tlast[k] = -1, g->tcur[k] = SIZE_MAX, g->twait[k].sid = -1;
    }
    size_t ns = g->nstreams ? g->nstreams : 1;
    g->carry = xmalloc(ns * sizeof *g->carry);
    for (size_t s = 0; s < ns; s++) g->carry[s] = INT64_MIN;
    g->slast = xmalloc(ns * sizeof *g->slast);
    g->slatest = xmalloc(ns * sizeof *g->slatest);
    g->slatest_end = xmalloc(ns * sizeof *g->slatest_end);
    g->rmax = xmalloc(ns * sizeof *g->rmax);
    g->sstamp = xcalloc(ns, sizeof *g->sstamp);
    return g;
}

void dg_free(dg_graph *g) {
    if (!g) return;
    SPILL_FREE_ALL(g->cls, g->gnode);
    hmap_free(&g->threads);
    free(g->tlast), free(g->carry), free(g->rmax), free(g->slast), free(g->slatest), free(g->slatest_end);
    spill_free(g->n), spill_free(g->w), spill_free(g->ev), spill_free(g->evtmp), spill_free(g->dl), spill_free(g->ends);
    spill_free(g->jdone), spill_free(g->jrun), spill_free(g->slog);
    free(g->tcur), free(g->twait), free(g->sstamp);
    free(g);
}

static size_t lower_ts(const pc_trace *t, int64_t ts) {
    size_t lo = 0, hi = t->ncpu;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (t->cpu[m].ts < ts) lo = m + 1;
        else hi = m;
    }
    return lo;
}

static dg_node *node_new(dg_graph *g) {
    dg_node *x = SPILL_PUSH(g->n, g->nn, g->capn);
    memset(x, 0, sizeof *x);
    x->prev = x->launch = x->sid = x->bind = -1;
    x->pin = x->xpin = INT64_MIN;
    x->xw = x->xsid = x->join = -1;
    return x;
}

static void add_wait(dg_graph *g, int32_t node, int32_t sid, int64_t pin) { *SPILL_PUSH(g->w, g->nw, g->capw) = (dg_wait){node, sid, pin, 0}; }
static int64_t wait_end(const dg_graph *g, const dg_wait *w) { return w->node >= 0 ? (w->at_start ? g->n[w->node].ts : g->n[w->node].end) : w->pin; }

/* host node: its place in its thread's chain */
static void chain(dg_graph *g, int32_t id, uint32_t th, int32_t main_th) {
    dg_node *x = &g->n[id];
    x->prev = g->tlast[th];
    /* another thread's first call in the step follows the step thread's latest (autograd's
     * backward thread starts when the step's thread calls backward) */
    if (x->prev < 0 && main_th >= 0 && (int32_t)th != main_th) x->prev = g->tlast[main_th];
    x->gap = x->ts - (x->prev >= 0 ? g->n[x->prev].end : g->anchor);
    x->sid = (int32_t)th; /* host nodes: the thread */
    g->tlast[th] = id;
}

static int cmp_wait_sid(const void *a, const void *b) {
    const dg_wait *x = a, *y = b;
    return x->sid < y->sid ? -1 : x->sid > y->sid;
}
/* A thread's first sync h in the step (or its first after overlapping calls) need not look at
 * every stream when the step's latest device-wide sync D (any thread) ended by h's start: D
 * covers every stream's latest op of its time that slog does not list after D's mark (it waited
 * for each, itself or through its thread's earlier syncs, or logged it as still running), each
 * ending by D's end, so by h's start. A device sync h then waits for D itself, one wait (sid
 * SID_DEVICE_SYNC) in place of one per stream: its measured times do not change (D ended before
 * h started), and replayed it ends no earlier than D, so no earlier than those ops; a stream sync
 * waits for none of them (they ended before it started). Returns where in slog h's scan starts,
 * or SIZE_MAX: every stream. Was syncs x streams: 8,000 syncs each on a thread of its own over
 * 40,000 streams took 45 s. */
static size_t device_sync_cover(dg_graph *g, int32_t h, int sy) {
    if (g->dsync < 0 || g->n[g->dsync].end > g->n[h].ts) return SIZE_MAX;
    assert(g->dsync_mark <= g->nslog);
    if (sy == SY_DEVICE) add_wait(g, g->dsync, SID_DEVICE_SYNC, g->n[g->dsync].end);
    return g->dsync_mark;
}

/* A cudaDeviceSynchronize (sy SY_DEVICE) or stream/event sync (SY_STREAM) h on thread th waits for
 * every stream's latest op launched before it that ends by its end (a stream sync: inside it).
 * A stream whose latest op the thread's previous sync waited for, unchanged since, needs no wait
 * again: it ended by that sync's end, so by this call's start (the thread's calls since do not
 * overlap; else tcur is reset), measured and replayed (the chain holds the thread's calls in order
 * and a sync ends no earlier than what it waited for), and a wait ending by the call's start
 * neither binds it nor changes its own time. So after the thread's first sync of the step (every
 * stream), a sync looks only at slog since the thread's last one: the streams with a new latest
 * op, and those a sync looked at without waiting (still running, or ended before a stream sync);
 * its waits in stream order, as the scan of every stream adds them, and one of the skipped if it
 * would otherwise have none (a call with waits ends at its HEND event). Was O(streams) a sync:
 * 20,000 syncs over 20,000 streams took 38 s. */
static void sync_waits(dg_graph *g, int32_t h, uint32_t th, int sy) {
    const dg_node *x = &g->n[h];
    uint64_t st = ++g->stamp;
    size_t from = g->tcur[th], mark = g->nslog;
    if (from == SIZE_MAX) from = device_sync_cover(g, h, sy);
    size_t n = from == SIZE_MAX ? g->nstreams : g->nslog - from;
    for (size_t k = 0; k < n; k++) {
        int32_t s = from == SIZE_MAX ? (int32_t)k : g->slog[from + k];
        if (g->sstamp[s] == st) continue;
        g->sstamp[s] = st;
        int64_t W = g->slatest_end[s];
        if (W == INT64_MIN) continue;
        if (W > x->end || (sy == SY_STREAM && W <= x->ts)) { *SPILL_PUSH(g->slog, g->nslog, g->capslog) = s; continue; }
        add_wait(g, g->slatest[s], s, W);
    }
    if (from != SIZE_MAX && (int32_t)g->nw == x->wait0 && sy == SY_DEVICE) {
        /* none new: one of those the thread's previous syncs waited for (a stream sync waits for none of them) */
        const dg_wait *p = &g->twait[th];
        if (p->sid == SID_DEVICE_SYNC) add_wait(g, p->node, SID_DEVICE_SYNC, p->pin);
        else if (p->sid >= 0 && g->sstamp[p->sid] != st && g->slatest[p->sid] == p->node && g->slatest_end[p->sid] == p->pin)
            add_wait(g, p->node, p->sid, p->pin);
        else /* (it changed since and this call does not wait for it: look at every stream) */
            for (size_t s = 0; s < g->nstreams && (int32_t)g->nw == x->wait0; s++)
                if (g->slatest_end[s] != INT64_MIN && g->slatest_end[s] <= x->end) add_wait(g, g->slatest[s], (int32_t)s, g->slatest_end[s]);
    } else if (from != SIZE_MAX && g->nw - (size_t)x->wait0 > 1)
        qsort(g->w + x->wait0, g->nw - (size_t)x->wait0, sizeof *g->w, cmp_wait_sid);
    if ((int32_t)g->nw > x->wait0) g->twait[th] = g->w[x->wait0];
    g->tcur[th] = mark;
    if (sy == SY_DEVICE) g->dsync = h, g->dsync_mark = mark; /* it covers every stream not in slog[mark..] */
}

static int cmp_dl(const void *a, const void *b) {
    const dg_dl *x = a, *y = b;
    if (x->th != y->th) return x->th < y->th ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* g->ev by time, then type, then node: a total order (no two events alike), so any sort gives the one result: a
 * merge sort on the records themselves, which skips a merge whose halves are already in order (the
 * host events come in time order, the GPU ones nearly so); spill_sort's index and comparator calls
 * took a fifth of a build (#38) */
static int ev_before(const dg_ev *x, const dg_ev *y) {
    if (x->key != y->key) return x->key < y->key;
    if (x->type != y->type) return x->type < y->type;
    return x->node < y->node;
}
static void ev_sort(dg_graph *g) {
    size_t n = g->nev;
    if (n < 2) return;
    spill_vec_reserve((void **)&g->evtmp, &g->capevtmp, n, sizeof *g->evtmp);
    dg_ev *a = g->ev, *b = g->evtmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            if (mid >= hi || !ev_before(&a[mid], &a[mid - 1])) { /* in order already */
                memcpy(b + lo, a + lo, (hi - lo) * sizeof *a);
                continue;
            }
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) b[k++] = ev_before(&a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        dg_ev *x = a;
        a = b, b = x;
    }
    if (a != g->ev) memcpy(g->ev, a, n * sizeof *a);
}

/* |[a, b) ∩ the thread's data-loading ranges| (dl sorted by thread, start; merged per thread) */
static int64_t dl_overlap(const dg_graph *g, int32_t th, int64_t a, int64_t b) {
    if (b <= a || !g->ndl) return 0;
    size_t lo = 0, hi = g->ndl;
    while (lo < hi) { /* first range of th ending after a */
        size_t m = (lo + hi) / 2;
        if (g->dl[m].th < th || (g->dl[m].th == th && g->dl[m].e <= a)) lo = m + 1;
        else hi = m;
    }
    int64_t sum = 0;
    for (size_t k = lo; k < g->ndl && g->dl[k].th == th && g->dl[k].s < b; k++) {
        int64_t s = g->dl[k].s > a ? g->dl[k].s : a, e = g->dl[k].e < b ? g->dl[k].e : b;
        if (e > s) sum += e - s;
    }
    return sum;
}

/* The join search's heaps: jdone a max-heap by end (ties: the lower thread index first, as a scan
 * of the threads in order finds them), jrun a min-heap by end. */
static int je_above(const dg_je *a, const dg_je *b, int done) {
    if (!done) return a->end < b->end;
    return a->end > b->end || (a->end == b->end && a->th < b->th);
}
static void je_push(dg_je *h, size_t n, dg_je e, int done) { /* h[n] is free; the heap becomes n + 1 long */
    size_t i = n;
    while (i > 0 && je_above(&e, &h[(i - 1) / 2], done)) h[i] = h[(i - 1) / 2], i = (i - 1) / 2;
    h[i] = e;
}
static dg_je je_pop(dg_je *h, size_t *n, int done) {
    dg_je top = h[0], e = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && je_above(&h[c + 1], &h[c], done)) c++;
        if (!je_above(&h[c], &e, done)) break;
        h[i] = h[c], i = c;
    }
    if (*n) h[i] = e;
    return top;
}
/* The latest call another thread than th ended in (from, ts], still its thread's last (g->tlast), or
 * -1: the calls ended by ts move from jrun to jdone (ts never decreases within a step: the trace's CPU
 * events are sorted by start), and a call no longer its thread's last never is again (tlast only
 * moves on), so it leaves for good; th's own calls are not its last either (tlast[th] is the new
 * call, pushed after this search). O(log n) amortized, where a scan of the threads was O(threads). */
static int32_t join_of(dg_graph *g, int64_t from, int64_t ts) {
    while (g->njrun && g->jrun[0].end <= ts) {
        dg_je e = je_pop(g->jrun, &g->njrun, 0);
        SPILL_PUSH(g->jdone, g->njdone, g->capjdone);
        je_push(g->jdone, g->njdone - 1, e, 1);
    }
    while (g->njdone && g->tlast[g->jdone[0].th] != g->jdone[0].node) je_pop(g->jdone, &g->njdone, 1);
    return g->njdone && g->jdone[0].end > from ? g->jdone[0].node : -1;
}

/* dg_build's first phase: the graph emptied for step si (its window, its
 * anchor), the work launched before the step per stream carried in (its
 * latest end; steps out of order start the carry again), the streams' and
 * threads' cursors reset; [*i0, *i1) the CPU events of the step's range. */
static void dg_reset(dg_graph *g, size_t si, size_t *i0, size_t *i1) {
    const pc_trace *t = g->c->t;
    const pc_step *st = &g->c->steps[si];
    for (size_t i = 0; i < g->nn; i++)
        if (g->n[i].kind == N_GPU) g->gnode[g->n[i].gi] = -1;
    g->nn = g->nw = g->nev = g->ndl = g->nends = g->njdone = g->njrun = g->nslog = 0;
    g->anchor = st->cpu_start;
    g->wstart = st->start;
    g->wend = st->end;
    g->path_end = -1;
    g->phases = 0;
    *i0 = lower_ts(t, st->cpu_start), *i1 = g->c->step_source ? lower_ts(t, st->cpu_end) : t->ncpu;
    if (*i0 < g->cursor) { /* steps out of order: start the carry again */
        for (size_t s = 0; s < g->nstreams; s++) g->carry[s] = INT64_MIN;
        g->cursor = 0;
    }
    for (size_t i = g->cursor; i < *i0; i++)
        for (int32_t k = g->goff[i]; k < g->goff[i + 1]; k++) {
            const pc_gpu_event *e = &t->gpu[g->gidx[k]];
            int32_t s = g->sid[g->gidx[k]];
            if (e->ts + e->dur > g->carry[s]) g->carry[s] = e->ts + e->dur;
        }
    g->cursor = *i0;
    for (size_t s = 0; s < g->nstreams; s++) g->slast[s] = -1, g->slatest[s] = -1, g->slatest_end[s] = g->carry[s];
    for (size_t k = 0; k < g->nthreads; k++) g->tlast[k] = -1, g->tcur[k] = SIZE_MAX, g->twait[k].sid = -1;
    g->dsync = -1, g->dsync_mark = 0;
}

/* The op (index k of event i's launches) that host call h launched (its
 * sync class sy): a GPU node after its stream's last, its offsets from the
 * launch, the stream before it and another stream it waits for
 * (cross_wait); a blocking copy (or a pageable one an async call makes
 * blocking) makes h wait for it. */
static void dg_gpu_op(dg_graph *g, int32_t h, int32_t k, int sy) {
    const pc_trace *t = g->c->t;
    int32_t gi = g->gidx[k], s = g->sid[gi];
    const pc_gpu_event *ge = &t->gpu[gi];
    int32_t id = (int32_t)g->nn;
    dg_node *y = node_new(g);
    dg_node *x = &g->n[h];
    y->kind = N_GPU;
    y->ts = ge->ts, y->end = ge->ts + ge->dur, y->own = ge->dur, y->name = ge->name;
    y->cat = ge->kind == GPU_KERNEL ? (is_comm(g, ge->name) ? DG_COMM : DG_KERNEL) : DG_COPY;
    y->launch = h;
    y->gi = gi;
    g->gnode[gi] = id;
    y->sid = s;
    y->prev = g->slast[s];
    if (y->prev < 0) y->pin = g->carry[s];
    int64_t pe = y->prev >= 0 ? g->n[y->prev].end : y->pin;
    y->lend = ge->ts >= x->end; /* a launch that took long delays its op by its own time, which a change may cut */
    int64_t lb = y->lend ? x->end : x->ts;
    int64_t base = pe > lb ? pe : lb, W = INT64_MIN;
    int32_t o = cross_wait(g, gi, base);
    if (o >= 0) {
        const pc_gpu_event *oe = &t->gpu[o];
        if (g->gnode[o] >= 0) y->xw = g->gnode[o];
        else y->xpin = oe->ts + oe->dur, y->xsid = g->sid[o]; /* launched before the step (or by no call of it): held */
        base = W = oe->ts + oe->dur;
    }
    y->dl = off(y->ts, lb, base);
    y->dp = pe == INT64_MIN ? 0 : off(y->ts, pe, base);
    y->dx = W == INT64_MIN ? 0 : off(y->ts, W, base);
    g->slast[s] = id;
    if (y->end > g->slatest_end[s] || g->slatest_end[s] == INT64_MIN) {
        g->slatest[s] = id, g->slatest_end[s] = y->end;
        *SPILL_PUSH(g->slog, g->nslog, g->capslog) = s;
    }
    int pageable = ge->kind == GPU_MEMCPY && (ge->src_mem == MEM_PAGEABLE || ge->dst_mem == MEM_PAGEABLE);
    if ((sy == SY_COPY || (sy == SY_ASYNC && pageable)) && y->end <= x->end) add_wait(g, id, s, 0);
    else if ((sy == SY_COPY || (sy == SY_ASYNC && pageable)) && ge->kind == GPU_MEMCPY && y->ts < x->end && y->ts > x->ts) {
        add_wait(g, id, s, 0); /* a pageable copy's call returns as its last chunk goes: it waited for the copy to start */
        g->w[g->nw - 1].at_start = 1;
    }
}

/* A call the launch queue holds (host call h, CPU event i, sync class sy,
 * no wait yet): it launched work that starts long after it returns (the
 * GPU runs far behind) and returned as soon as an op ended: it waits for
 * that op (the last to end by the call's end, within XS_TOL). */
static void dg_queue_wait(dg_graph *g, int32_t h, size_t i, int sy) {
    const pc_trace *t = g->c->t;
    dg_node *x = &g->n[h];
    if ((int32_t)g->nw != x->wait0 || (sy != SY_NONE && sy != SY_ASYNC) || t->cpu[i].dur <= QUEUE_MIN_NS || g->goff[i + 1] <= g->goff[i] ||
        t->gpu[g->gidx[g->goff[i]]].ts <= x->end + QUEUE_BEHIND_NS)
        return;
    size_t lo = 0, hi = g->nbyend;
    while (lo < hi) { /* first op ending after the call */
        size_t m = (lo + hi) / 2;
        const pc_gpu_event *oe = &t->gpu[g->byend[m]];
        if (oe->ts + oe->dur <= x->end) lo = m + 1;
        else hi = m;
    }
    if (lo == 0) return;
    int32_t o = g->byend[lo - 1];
    int64_t oend = t->gpu[o].ts + t->gpu[o].dur;
    if (oend > x->ts && oend >= x->end - XS_TOL) {
        add_wait(g, g->gnode[o], g->sid[o], oend);
        x->qwait = 1;
    }
}

/* Host call i (a runtime or driver call not inside another) as node h on
 * its thread's chain: its join (a thread resuming after another's calls),
 * its waits (syncs on work launched before it, the ops it launched, the
 * launch queue), and its own time after the latest wait. */
static void dg_host_call(dg_graph *g, size_t i, int32_t main_th) {
    const pc_cpu_event *e = &g->c->t->cpu[i];
    uint32_t th = thread_of(g, e);
    int32_t h = (int32_t)g->nn;
    dg_node *x = node_new(g);
    x->kind = N_HOST;
    x->ts = e->ts, x->end = e->ts + e->dur, x->own = e->dur, x->name = e->name;
    chain(g, h, th, main_th);
    if (x->prev >= 0 && g->n[x->prev].end > x->ts) g->tcur[th] = SIZE_MAX; /* overlapping calls: its next sync looks at every stream */
    if (x->gap > JOIN_MIN_NS) { /* a thread resumes after another thread's calls (the step's thread after backward's) */
        x->join = join_of(g, x->ts - x->gap, x->ts);
        if (x->join >= 0) x->jgap = x->ts - g->n[x->join].end;
    }
    SPILL_PUSH(g->jrun, g->njrun, g->capjrun);
    je_push(g->jrun, g->njrun - 1, (dg_je){x->end, (int32_t)th, h}, 0);
    x = &g->n[h];
    int sy = sync_class(g, e->name);
    x->wait0 = (int32_t)g->nw;
    /* waits on work launched before the call */
    if (sy == SY_DEVICE || sy == SY_STREAM) sync_waits(g, h, th, sy);
    for (int32_t k = g->goff[i]; k < g->goff[i + 1]; k++) dg_gpu_op(g, h, k, sy);
    dg_queue_wait(g, h, i, sy);
    x = &g->n[h];
    x->nwait = (int32_t)g->nw - x->wait0;
    if (x->nwait) {
        int64_t wm = INT64_MIN;
        for (int32_t k = 0; k < x->nwait; k++) {
            int64_t W = wait_end(g, &g->w[x->wait0 + k]);
            if (W > wm) wm = W;
        }
        x->own = wm <= x->ts ? x->end - x->ts : x->end - wm;
        x->post = wm <= x->ts ? 0 : x->end - wm;
    }
}

/* Without steps the window is the program's: a call that waits for its
 * last GPU op collects the results (fin), and what follows it (cudaFree,
 * exit) follows the GPU's end in any run; and the window may end with the
 * GPU's last op: the end nodes' gaps then hold the GPU's tail after the
 * host's last event (gtail), which gpu_ends_step counts as the GPU's (#44). */
static void dg_program_end(dg_graph *g) {
    const pc_trace *t = g->c->t;
    g->gtail = 0;
    if (g->c->step_source) return;
    int64_t G = INT64_MIN;
    for (size_t i = 0; i < g->nn; i++)
        if (g->n[i].kind == N_GPU && g->n[i].end > G) G = g->n[i].end;
    for (size_t i = 0; G != INT64_MIN && i < g->nn; i++)
        for (int32_t k = 0; g->n[i].kind == N_HOST && k < g->n[i].nwait; k++) {
            const dg_wait *wt = &g->w[g->n[i].wait0 + k];
            if (wt->node >= 0 && !wt->at_start && g->n[wt->node].end == G) g->n[i].fin = 1;
        }
    int64_t hend = INT64_MIN;
    for (size_t i = 0; i < t->ncpu; i++)
        if (t->cpu[i].ts + t->cpu[i].dur > hend) hend = t->cpu[i].ts + t->cpu[i].dur;
    if (hend != INT64_MIN && hend < g->wend) g->gtail = g->wend - hend;
}

/* A new end node at ts on thread th's chain (th < 0: none, its gap from
 * the anchor), in g->ends. */
static void dg_end_node(dg_graph *g, int64_t ts, int32_t th, int32_t main_th) {
    int32_t id = (int32_t)g->nn;
    dg_node *x = node_new(g);
    x->kind = N_END;
    x->ts = x->end = ts;
    if (th >= 0) chain(g, id, (uint32_t)th, main_th);
    else x->gap = x->ts - g->anchor;
    *SPILL_PUSH(g->ends, g->nends, g->capends) = id;
}

/* The end nodes: with steps one, on the step range's thread, at the
 * host's end (its range's end: a step that ends with its GPU work, #44,
 * ends later); without, one per thread with calls, at its own last event
 * in [i0, i1) (the window's end for the thread that ends last), or one
 * alone at the window's end when no thread has calls. After: at least one. */
static void dg_ends(dg_graph *g, size_t si, int32_t main_th, size_t i0, size_t i1) {
    if (g->c->step_source) {
        int64_t ce = g->c->steps[si].cpu_end;
        dg_end_node(g, ce > g->wstart ? ce : g->wstart, main_th, main_th);
    } else {
        /* each thread ends with its own last event; the one that ends last (ties: each) at the window's
         * end: a thread done early (autograd's, a worker) does not hold the window open while another
         * waits for the GPU, which a gap to the window's end would (a GPU-side change then gave back 0) */
        int64_t *te = thread_ends(g, i0, i1), last = INT64_MIN;
        for (size_t th = 0; th < g->nthreads; th++)
            if (g->tlast[th] >= 0 && te[th] > last) last = te[th];
        for (size_t th = 0; th < g->nthreads; th++) {
            if (g->tlast[th] < 0) continue;
            assert(te[th] >= g->n[g->tlast[th]].end); /* its last call is one of its events */
            dg_end_node(g, te[th] < last && te[th] < g->wend ? te[th] : g->wend, (int32_t)th, -1);
        }
        free(te);
        if (!g->nends) dg_end_node(g, g->wend, -1, -1);
    }
    assert(g->nends >= 1);
}

/* Without steps: the teardown after the call that collects the results,
 * on its thread (tail): no change touches it. */
static void dg_teardown(dg_graph *g) {
    if (g->c->step_source || !g->nthreads) return;
    int64_t *fe = xmalloc(g->nthreads * sizeof *fe);
    for (size_t k = 0; k < g->nthreads; k++) fe[k] = INT64_MAX;
    for (size_t i = 0; i < g->nn; i++)
        if (g->n[i].fin && g->n[i].end < fe[g->n[i].sid]) fe[g->n[i].sid] = g->n[i].end;
    for (size_t i = 0; i < g->nn; i++)
        if (g->n[i].kind != N_GPU && g->n[i].sid >= 0 && g->n[i].ts >= fe[g->n[i].sid]) g->n[i].tail = 1;
    free(fe);
}

/* Data loading inside each host node's gap (and join gap), on the gap's
 * thread (the ranges merged per thread first); whether the step has a host
 * phase; then the replay's events, sorted: each host or end node's start,
 * a waiting call's end, each GPU node's start. After: one or two events
 * per node. */
static void dg_data_events(dg_graph *g) {
    if (g->ndl) {
        spill_sort(g->dl, g->ndl, sizeof *g->dl, cmp_dl);
        size_t k = 0;
        for (size_t i = 0; i < g->ndl; i++) { /* merge per thread */
            if (k && g->dl[k - 1].th == g->dl[i].th && g->dl[i].s <= g->dl[k - 1].e) {
                if (g->dl[i].e > g->dl[k - 1].e) g->dl[k - 1].e = g->dl[i].e;
            } else g->dl[k++] = g->dl[i];
        }
        g->ndl = k;
    }
    for (size_t i = 0; i < g->nn; i++) {
        dg_node *x = &g->n[i];
        if (x->kind == N_GPU) continue;
        if (x->sid >= 0) x->data = dl_overlap(g, x->sid, x->ts - x->gap, x->ts);
        if (x->join >= 0) x->jdata = dl_overlap(g, x->sid, x->ts - x->jgap, x->ts);
        if (!x->tail && (x->gap - x->data >= DG_PHASE_NS || (x->join >= 0 && x->jgap - x->jdata >= DG_PHASE_NS))) g->phases = 1;
        x->cat = x->kind == N_END ? DG_HOST : DG_LAUNCH;
        *SPILL_PUSH(g->ev, g->nev, g->capev) = (dg_ev){x->ts, EV_HSTART, (int32_t)i};
        if (x->nwait) *SPILL_PUSH(g->ev, g->nev, g->capev) = (dg_ev){x->end, EV_HEND, (int32_t)i};
    }
    for (size_t i = 0; i < g->nn; i++)
        if (g->n[i].kind == N_GPU) *SPILL_PUSH(g->ev, g->nev, g->capev) = (dg_ev){g->n[i].ts, EV_GPU, (int32_t)i};
    assert(g->nn <= g->nev && g->nev <= 2 * g->nn);
    ev_sort(g);
}

/* Step si's graph, in phases: reset and carry, the step's host calls (the
 * step range's thread found as it starts; data-loading ranges noted), the
 * program's end without steps, the end nodes, the teardown, the data
 * loading in the gaps and the events. Returns the nodes. */
size_t dg_build(dg_graph *g, size_t si) {
    const pc_trace *t = g->c->t;
    const pc_step *st = &g->c->steps[si];
    int has_steps = g->c->step_source != NULL;
    size_t i0, i1;
    dg_reset(g, si, &i0, &i1);
    int32_t main_th = -1;
    for (size_t i = i0; i < i1; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (has_steps && main_th < 0 && e->ts == st->cpu_start && e->name == st->name) main_th = (int32_t)thread_of(g, e);
        if (is_dl(g, e) && e->dur > 0) *SPILL_PUSH(g->dl, g->ndl, g->capdl) = (dg_dl){(int32_t)thread_of(g, e), e->ts, e->ts + e->dur};
        if ((e->kind != CPU_RUNTIME && e->kind != CPU_DRIVER) || top_call(t, &g->c->links, (int32_t)i) != (int32_t)i) continue;
        dg_host_call(g, i, main_th);
    }
    dg_program_end(g);
    dg_ends(g, si, main_th, i0, i1);
    dg_teardown(g);
    dg_data_events(g);
    return g->nn;
}

int64_t dg_measured(const dg_graph *g) { return g->wend - g->wstart; }

/* how much earlier the work launched before the step on stream sid ends in the changed run */
static int64_t shift(const dg_change *ch, int32_t sid) { return ch->carry && sid >= 0 ? ch->carry[sid] : 0; }

static int64_t scaled(int64_t d, double f) {
    double v = nearbyint((double)d * f);
    return v < 0 ? 0 : v > (double)PC_DUR_BUDGET ? PC_DUR_BUDGET : (int64_t)v;
}

/* The replay of host (or end) node x's start under change ch: after the
 * node before it on its thread (replayed end) by its gap (host work outside
 * data loading, cut to host_floor_ns by SK_HOST's change but the phases it
 * keeps; its data loading unless no_data_wait), or after its join's end by
 * the join's gap when later; a call without waits (or whose waits the
 * change removes) ends here, its own time cut as its gap is. */
static void rp_host_start(dg_graph *g, dg_node *x, const dg_change *ch) {
    static const dg_change none = {0};
    const dg_change *hc = x->tail ? &none : ch; /* the teardown after the results: as measured, after the call that waits for them */
    int64_t pe = x->prev >= 0 ? (g->n[x->prev].flags & F_END ? g->n[x->prev].e2 : g->n[x->prev].end) : g->anchor;
    int64_t rest = x->gap - x->data; /* host work outside data loading */
    if (hc->host_floor_ns > 0 && rest > hc->host_floor_ns && (!hc->keep_phases || rest < DG_PHASE_NS)) rest = hc->host_floor_ns;
    x->s2 = pe + (x->join >= 0 ? 0 : rest + (hc->no_data_wait ? 0 : x->data)); /* a join explains the gap */
    x->jb = 0;
    if (x->join >= 0) { /* after the other thread's last call, by its measured distance */
        const dg_node *J = &g->n[x->join];
        int64_t jr = x->jgap - x->jdata;
        if (hc->host_floor_ns > 0 && jr > hc->host_floor_ns && (!hc->keep_phases || jr < DG_PHASE_NS)) jr = hc->host_floor_ns;
        int64_t js = (J->flags & F_END ? J->e2 : J->end) + jr + (hc->no_data_wait ? 0 : x->jdata);
        if (js > x->s2) x->s2 = js, x->jb = 1;
    }
    x->flags |= F_START;
    x->bind = -1;
    if (!x->nwait || (hc->no_sync_wait && !x->qwait && !x->fin)) {
        int64_t own = x->own;
        if (hc->host_floor_ns > 0 && x->kind == N_HOST && !x->nwait && own > hc->host_floor_ns) own = hc->host_floor_ns;
        x->e2 = x->s2 + own;
        x->flags |= F_END;
    }
}

/* The replay of waiting call x's end: its own time after its start, or
 * after the latest of what it waits for (replayed, or held before the step
 * and shifted by the carry) plus its time after the wait; bind: the wait
 * that binds it. Nothing when its waits were removed (already ended). */
static void rp_host_end(dg_graph *g, dg_node *x, const dg_change *ch) {
    if (x->flags & F_END) return; /* its waits are removed */
    int64_t e = x->s2 + x->own;
    for (int32_t w = 0; w < x->nwait; w++) {
        const dg_wait *wt = &g->w[x->wait0 + w];
        const dg_node *wn = wt->node >= 0 ? &g->n[wt->node] : NULL;
        int64_t W = !wn ? wt->pin + shift(ch, wt->sid)
                    : wt->at_start ? (wn->flags & F_START ? wn->s2 : wn->ts) : (wn->flags & F_END ? wn->e2 : wn->end);
        if (W + x->post > e) e = W + x->post, x->bind = x->wait0 + w;
    }
    x->e2 = e;
    x->flags |= F_END;
}

/* The replay of GPU op x: it starts at the latest of its launch (the
 * call's start, or its end for a launch that took long) plus its offset,
 * the op before it on its stream (or the work held there before the step,
 * shifted by the carry) plus its offset, and another stream's op it waits
 * for plus its offset (bind: which of them); it lasts its time, scaled by
 * the change. */
static void rp_gpu(dg_graph *g, dg_node *x, const dg_change *ch) {
    const dg_node *L = &g->n[x->launch];
    int64_t ls = x->lend ? (L->flags & F_END ? L->e2 : L->end) : L->flags & F_START ? L->s2 : L->ts;
    int64_t pe = x->prev >= 0 ? (g->n[x->prev].flags & F_END ? g->n[x->prev].e2 : g->n[x->prev].end)
                 : x->pin == INT64_MIN ? x->pin : x->pin + shift(ch, x->sid);
    int64_t b = ls + x->dl;
    x->bind = 0, x->delay = x->dl;
    if (pe != INT64_MIN && pe + x->dp > b) b = pe + x->dp, x->bind = x->prev >= 0 ? 1 : 2, x->delay = x->dp;
    if (x->xw >= 0 || x->xpin != INT64_MIN) {
        int64_t W = x->xw >= 0 ? (g->n[x->xw].flags & F_END ? g->n[x->xw].e2 : g->n[x->xw].end) : x->xpin + shift(ch, x->xsid);
        if (W + x->dx > b) b = W + x->dx, x->bind = x->xw >= 0 ? 3 : 2, x->delay = x->dx;
    }
    x->s2 = b;
    int64_t d = ch->scale && ch->scale[x->gi] != 1.0f ? scaled(x->own, ch->scale[x->gi]) : x->own;
    x->e2 = x->s2 + d;
    x->flags |= F_START | F_END;
}

/* The replayed step's time T (>= 0, from the window's start): the latest
 * end node's, and the GPU's when it must finish the step's work no later
 * after the window than it did (when it ends the step, a GPU-bound step's
 * window ending with its GPU work, #44, the path ends on its last op);
 * *H the host's end, *G2 the GPU's replayed end (INT64_MIN: no op). After:
 * every node replayed (started and ended). */
static int64_t rp_window(dg_graph *g, int64_t *H, int64_t *G2) {
    int64_t G = INT64_MIN;
    *H = INT64_MIN, *G2 = INT64_MIN;
    for (size_t k = 0; k < g->nends; k++) {
        const dg_node *x = &g->n[g->ends[k]];
        if (x->e2 > *H) *H = x->e2, g->path_end = g->ends[k];
    }
    *H -= g->wstart;
    int32_t glast = -1;
    for (size_t i = 0; i < g->nn; i++) {
        assert((g->n[i].flags & (F_START | F_END)) == (F_START | F_END));
        if (g->n[i].kind == N_GPU) {
            if (g->n[i].end > G) G = g->n[i].end;
            if (g->n[i].e2 > *G2) *G2 = g->n[i].e2, glast = (int32_t)i;
        }
    }
    int64_t T = *H;
    if (G != INT64_MIN) {
        int64_t lag = G > g->wend ? G - g->wend : 0;
        if (*G2 - g->wstart - lag > T) T = *G2 - g->wstart - lag, g->path_end = glast;
    }
    if (T < 0) T = 0;
    g->path_hi = g->wstart + T;
    return T;
}

/* The next step's work launched before it, per stream: how much earlier it
 * ends (ch->carry, <= 0) when this step takes T instead of its window. */
static void rp_carry(dg_graph *g, const dg_change *ch, int64_t T) {
    for (size_t s = 0; s < g->nstreams; s++) g->rmax[s] = INT64_MIN;
    for (size_t i = 0; i < g->nn; i++) {
        const dg_node *x = &g->n[i];
        if (x->kind == N_GPU && x->e2 > g->rmax[x->sid]) g->rmax[x->sid] = x->e2;
    }
    int64_t save = (g->wend - g->wstart) - T; /* the next step starts this much earlier */
    for (size_t s = 0; s < g->nstreams; s++) {
        int64_t M = g->slatest_end[s], R = g->rmax[s];
        if (M == INT64_MIN) continue; /* nothing on the stream yet */
        if (g->carry[s] != INT64_MIN && g->carry[s] + ch->carry[s] > R) R = g->carry[s] + ch->carry[s];
        if (R == INT64_MIN) continue;
        int64_t d = R - M + save;
        ch->carry[s] = d < 0 ? d : 0;
        assert(ch->carry[s] <= 0);
    }
}

/* The step replayed under ch (NULL: unchanged), in phases: every event in
 * order (a host node's start, a waiting call's end, a GPU op), then the
 * step's time, then the carry into the next step. Returns the step's time,
 * or with gpu_ends_step the later of the host's end and its GPU work's (no
 * lag taken off). */
int64_t dg_replay(dg_graph *g, const dg_change *ch) {
    static const dg_change none = {0};
    if (!ch) ch = &none;
    g->no_data = ch->no_data_wait;
    for (size_t i = 0; i < g->nn; i++) g->n[i].flags = 0;
    for (size_t k = 0; k < g->nev; k++) {
        dg_node *x = &g->n[g->ev[k].node];
        if (g->ev[k].type == EV_HSTART) rp_host_start(g, x, ch);
        else if (g->ev[k].type == EV_HEND) rp_host_end(g, x, ch);
        else rp_gpu(g, x, ch);
    }
    int64_t H, G2, T = rp_window(g, &H, &G2);
    if (ch->carry) rp_carry(g, ch, T);
    if (ch->gpu_ends_step) {
        int64_t Hh = H - g->gtail, Tg = G2 != INT64_MIN && G2 - g->wstart > Hh ? G2 - g->wstart : Hh;
        return Tg < 0 ? 0 : Tg;
    }
    return T;
}

int64_t dg_replay_steady(dg_graph *g, const dg_change *ch, int first) {
    if (first && ch && ch->carry) dg_replay(g, ch);
    return dg_replay(g, ch);
}

/* the path's segments, clipped to the window [wstart, end] */
typedef struct walk { void (*add)(void *, int, uint32_t, int64_t); void *arg; int64_t lo, hi; } walk;
static void seg(const walk *k, int cat, uint32_t name, int64_t a, int64_t b) {
    if (a < k->lo) a = k->lo;
    if (b > k->hi) b = k->hi;
    if (b > a) k->add(k->arg, cat, name, b - a);
}

void dg_path(const dg_graph *g, void (*add)(void *arg, int cat, uint32_t name, int64_t ns), void *arg) {
    if (g->path_end < 0) return;
    const dg_node *x = &g->n[g->path_end];
    walk k = {add, arg, g->wstart, g->path_hi < x->e2 ? g->path_hi : x->e2};
    int32_t cur = g->path_end, at_start = 0, skip_own = 0;
    size_t guard = 2 * g->nn + 2;
    while (cur >= 0 && guard--) {
        x = &g->n[cur];
        if (x->kind == N_GPU) {
            if (!skip_own) seg(&k, x->cat, x->name, x->s2, x->e2); /* a call that waited for its start: not its run */
            skip_own = 0;
            int64_t base = x->s2 - x->delay;
            seg(&k, DG_LAUNCH, 0, base, x->s2);
            if (x->bind == 0) cur = x->launch, at_start = !x->lend;
            else if (x->bind == 1) cur = x->prev, at_start = 0;
            else if (x->bind == 3) cur = x->xw, at_start = 0;
            else {
                seg(&k, DG_EARLIER, 0, k.lo, base);
                return;
            }
            continue;
        }
        if (!at_start) {
            if (x->bind >= 0) {
                const dg_wait *wt = &g->w[x->bind];
                int64_t W = x->e2 - x->post;
                seg(&k, DG_LAUNCH, x->name, W, x->e2);
                if (wt->node >= 0) { cur = wt->node, skip_own = wt->at_start; continue; }
                seg(&k, DG_EARLIER, 0, k.lo, W);
                return;
            }
            seg(&k, DG_LAUNCH, x->name, x->s2, x->e2);
        }
        at_start = 0;
        int32_t from = x->jb ? x->join : x->prev;
        int64_t pe = from >= 0 ? g->n[from].e2 : g->anchor;
        int64_t data = g->no_data ? 0 : x->jb ? x->jdata : x->data;
        if (data > x->s2 - pe) data = x->s2 - pe;
        seg(&k, DG_DATA, 0, x->s2 - data, x->s2);
        seg(&k, DG_HOST, 0, pe, x->s2 - data);
        cur = from;
    }
}

size_t dg_nodes(const dg_graph *g) { return g->nn; }
int dg_phases(const dg_graph *g) { return g->phases; }

/* dg_each_step: the steps' turns, shared by the workers (under mu) */
typedef struct dg_turns {
    dg_index *ix;
    void (*fn)(dg_graph *, size_t, void *);
    void *arg;
    size_t n, turn; /* steps; the step whose fn runs next */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} dg_turns;
typedef struct dg_worker { dg_turns *T; size_t first, stride; } dg_worker;

static void *dg_work(void *arg) {
    dg_worker *w = arg;
    dg_turns *T = w->T;
    if (w->first >= T->n) return NULL;
    dg_graph *g = dg_new_on(T->ix);
    for (size_t si = w->first; si < T->n; si += w->stride) {
        dg_build(g, si); /* beside the other worker's fn */
        pthread_mutex_lock(&T->mu);
        while (T->turn != si) pthread_cond_wait(&T->cv, &T->mu);
        pthread_mutex_unlock(&T->mu);
        T->fn(g, si, T->arg);
        pthread_mutex_lock(&T->mu);
        T->turn = si + 1;
        pthread_cond_broadcast(&T->cv);
        pthread_mutex_unlock(&T->mu);
    }
    if (w->stride == 1) dg_index_keep_threads(T->ix, g); /* every step built in order: their numbers */
    dg_free(g);
    return NULL;
}

void dg_each_step(dg_index *x, int threads, void (*fn)(dg_graph *g, size_t si, void *arg), void *arg) {
    dg_turns T = {x, fn, arg, x->c->nsteps, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    int two = threads > 1 && x->numbered && T.n >= 2;
    dg_worker odd = {&T, 1, 2}, even = {&T, 0, two ? 2 : 1};
    side sd;
    side_start(&sd, dg_work, &odd, two);
    if (!sd.on) even.stride = 1, odd.first = T.n; /* no thread: every step here, none there */
    dg_work(&even);
    side_finish(&sd);
    pthread_mutex_destroy(&T.mu);
    pthread_cond_destroy(&T.cv);
}
