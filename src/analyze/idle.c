/* GPU idle gaps by what ends them (idle.h; #44 item 1). One sweep over the
 * device's work, kernels, copies and memsets (gpu[] is sorted by start):
 * each gap goes to one class and its parts inside the window and the step
 * windows are summed. */
#include "idle.h"
#include "../util/apiname.h"
#include "../util/spill.h"
#include <assert.h>
#include <string.h>

static int api_is(const char *name, const char *const *set) {
    size_t len = api_name_len(name);
    for (int i = 0; set[i]; i++)
        if (strlen(set[i]) == len && !strncmp(name, set[i], len)) return 1;
    return 0;
}
int idle_is_graph_launch(const char *name) {
    static const char *const set[] = {"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch", NULL};
    return api_is(name, set);
}

/* What the sweep needs besides the trace: per name id, flags decided once
 * (NF_*); whether the trace records launches. */
enum { NF_KNOWN = 1, NF_GRAPH = 4, NF_COLL = 8 };
typedef struct idle_prep {
    const an_ctx *c;
    uint8_t *nf;
    int linked;      /* launches recorded and linked: when a kernel was launched is known */
} idle_prep;

int idle_is_work(const pc_gpu_event *e) {
    return e->kind == GPU_KERNEL || e->kind == GPU_MEMCPY || e->kind == GPU_MEMSET;
}

static uint8_t name_flags(const idle_prep *p, uint32_t id) {
    const pc_trace *t = p->c->t;
    if (id >= t->strs.n) return NF_KNOWN;
    if (!p->nf[id]) {
        const char *n = strtab_get(&t->strs, id);
        p->nf[id] = (uint8_t)(NF_KNOWN | (idle_is_graph_launch(n) ? NF_GRAPH : 0) | (name_is_nccl(n) ? NF_COLL : 0));
    }
    return p->nf[id];
}

/* The class of a gap, or of its part after the ending work's launch call
 * returned, when that work was queued: dependency for a collective (it
 * waits on its peers, other devices), else dispatch for a part under
 * short_ns, else queued. A stream's wait on an event is no dependency here:
 * in a gap no traced kernel, copy or memset runs on the device, so an event
 * that holds the work through it is held by work the trace does not show. */
static int queued_class(const idle_prep *p, size_t gi, int64_t len, int64_t short_ns) {
    if (name_flags(p, p->c->t->gpu[gi].name) & NF_COLL) return IDLE_DEPENDENCY;
    return len < short_ns ? IDLE_DISPATCH : IDLE_QUEUED;
}

/* adds the gap [a, b) of class q: its part in [ss, se) and in each step
 * window (steps sorted and disjoint; *sp: the first step that may still
 * overlap, gaps coming in time order) */
static void add_gap(const an_ctx *c, idle_split *o, int64_t ss, int64_t se, size_t *sp, int64_t a, int64_t b, int q, int64_t short_ns,
                    int graph) {
    assert(a < b && q >= 0 && q < IDLE_N);
    int64_t lo = a > ss ? a : ss, hi = b < se ? b : se;
    if (hi > lo) {
        o->ns[q] += hi - lo;
        if (q == IDLE_HOST_LATE && b - a < short_ns) o->host_late_short_ns += hi - lo;
        if (q == IDLE_QUEUED && graph) o->graph_queued_ns += hi - lo, o->graphs = 1;
    }
    while (*sp < c->nsteps && c->steps[*sp].end <= a) ++*sp;
    for (size_t k = *sp; k < c->nsteps && c->steps[k].start < b; k++) {
        int64_t x = a > c->steps[k].start ? a : c->steps[k].start, y = b < c->steps[k].end ? b : c->steps[k].end;
        if (y > x) o->step_ns[k * IDLE_N + (size_t)q] += y - x;
    }
}

/* 1 when copy g reads pageable host memory and its call c was running at a:
 * the host stages that memory into a pinned buffer inside the call (after a
 * stream sync for cudaMemcpy), so the device waits on the host's staging,
 * not on queued work, while the call runs */
static int host_stages(const pc_gpu_event *g, const pc_cpu_event *c, int64_t a) {
    return g->kind == GPU_MEMCPY && g->src_mem == MEM_PAGEABLE && c->ts <= a && c->ts + c->dur > a;
}

/* The gap [a, b) that work gi (a kernel, copy or memset) ends (first: it is
 * the device's first work and the trace has no steps, so the gap is the
 * trace's start-up). Work launched after the gap began makes the gap
 * host-late (start-up for the first) up to its launch call's return; when it
 * then starts IDLE_HELD_NS or more after that return, the device held it
 * queued (no launch latency comes near a millisecond: a few to tens of µs):
 * that rest is classified as queued work's gap (a launch made 0.04 ms late
 * that runs 463 ms later leaves 463 ms of queued idle, not of host-late). A
 * copy from pageable memory whose call was running when the gap began is
 * late as well (host_stages). */
static void add_ended(const an_ctx *c, const idle_prep *p, idle_split *o, int64_t ss, int64_t se, size_t *sp, size_t gi, int64_t a,
                      int64_t b, int64_t short_ns, int first) {
    const pc_trace *t = c->t;
    if (!p->linked) {
        add_gap(c, o, ss, se, sp, a, b, first ? IDLE_STARTUP : IDLE_UNLINKED, 0, 0);
        return;
    }
    int32_t L = c->links.gpu_launch[gi];
    int graph = L >= 0 && (name_flags(p, t->cpu[L].name) & NF_GRAPH);
    int64_t qs = a; /* where the queued part begins */
    if (first || (L >= 0 && (t->cpu[L].ts > a || host_stages(&t->gpu[gi], &t->cpu[L], a)))) {
        int64_t ret = L >= 0 ? t->cpu[L].ts + t->cpu[L].dur : b;
        int q = first ? IDLE_STARTUP : IDLE_HOST_LATE;
        if (ret <= a || ret >= b || b - ret < IDLE_HELD_NS) {
            add_gap(c, o, ss, se, sp, a, b, q, q == IDLE_HOST_LATE ? short_ns : 0, 0);
            return;
        }
        add_gap(c, o, ss, se, sp, a, ret, q, 0, 0);
        qs = ret;
    }
    add_gap(c, o, ss, se, sp, qs, b, queued_class(p, gi, b - qs, short_ns), 0, graph);
}

void idle_classify(const an_ctx *c, int device, int64_t ss, int64_t se, int64_t short_ns, idle_split *out) {
    const pc_trace *t = c->t;
    memset(out, 0, sizeof *out);
    out->step_ns = spill_calloc((c->nsteps ? c->nsteps : 1) * IDLE_N, sizeof *out->step_ns);
    idle_prep p = {.c = c, .nf = spill_calloc(t->strs.n ? t->strs.n : 1, 1)};
    p.linked = c->links.gpu_launch && t->count_cpu[CPU_RUNTIME] + t->count_cpu[CPU_DRIVER] > 0;
    int64_t busy_end = INT64_MIN;
    int any = 0;
    size_t sp = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (!idle_is_work(e) || e->device != device) continue;
        if (!any && e->ts > INT64_MIN) {
            /* with steps, what the device did from the steps' start to its first work is a gap like any other */
            int64_t cut = c->step_source && ss > INT64_MIN && ss < e->ts ? ss : INT64_MIN;
            if (cut == INT64_MIN) add_ended(c, &p, out, ss, se, &sp, g, INT64_MIN, e->ts, short_ns, 1);
            else add_gap(c, out, ss, se, &sp, INT64_MIN, cut, IDLE_STARTUP, 0, 0);
            busy_end = cut == INT64_MIN ? e->ts : cut, any = busy_end < e->ts;
        }
        if (any && e->ts > busy_end) add_ended(c, &p, out, ss, se, &sp, g, busy_end, e->ts, short_ns, 0);
        any = 1;
        if (e->ts + e->dur > busy_end) busy_end = e->ts + e->dur;
    }
    if (any && busy_end < INT64_MAX) add_gap(c, out, ss, se, &sp, busy_end, INT64_MAX, IDLE_TAIL, short_ns, 0);
    spill_free(p.nf);
}

void idle_split_free(idle_split *s) {
    spill_free(s->step_ns);
    s->step_ns = NULL;
}
