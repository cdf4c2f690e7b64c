#include "gpumetrics.h"
#include "idle.h"
#include "../util/spill.h"
#include "analyze.h"
#include "intervals.h"
#include "../summary/summary.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Kernels that have started and not yet ended, by end time (then by order
 * of start, so that equal ends leave in the order the kernels came). */
typedef struct running { int64_t end; size_t seq; double v; } running;
static int run_before(const running *a, const running *b) {
    return a->end != b->end ? a->end < b->end : a->seq < b->seq;
}
static void run_push(running **h, size_t *n, size_t *cap, running x) {
    running *v = VEC_PUSH(*h, *n, *cap);
    size_t i = (size_t)(v - *h);
    while (i > 0 && run_before(&x, &(*h)[(i - 1) / 2])) {
        (*h)[i] = (*h)[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    (*h)[i] = x;
}
static running run_pop(running *h, size_t *n) {
    running top = h[0], x = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && run_before(&h[c + 1], &h[c])) c++;
        if (!run_before(&h[c], &x)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = x;
    return top;
}

/* SM efficiency, as the TensorBoard plugin computes it: each kernel adds its
 * blocks per SM over [start, end); the sum, capped at 1, weighted by time.
 * A sweep over starts (gpu[] is sorted by start) and ends (a heap of the
 * kernels running): at each time where something starts or ends, the range
 * since the last such time gets the current sum; starts go before ends at
 * equal times, as the plugin sorts them. */
typedef struct sm_sweep {
    running *h; size_t nh, caph;
    size_t seq;
    int started;
    int64_t last_t;
    double val, weighted;
    int64_t ss, se;
    gm_result *r; size_t capr; /* ranges kept when r->sm_start is wanted */
    int keep;
} sm_sweep;

static void sm_point(sm_sweep *w, int64_t t, double dv) {
    if (!w->started) {
        w->started = 1;
        w->last_t = t;
        w->val = dv;
        return;
    }
    if (t > w->last_t && w->val > 1e-12) {
        double v = w->val < 1.0 ? w->val : 1.0;
        if (w->keep) {
            gm_result *r = w->r;
            if (r->nsm == w->capr) {
                w->capr = w->capr ? 2 * w->capr : 1024;
                r->sm_start = spill_realloc(r->sm_start, w->capr * sizeof *r->sm_start);
                r->sm_end = spill_realloc(r->sm_end, w->capr * sizeof *r->sm_end);
                r->sm_value = spill_realloc(r->sm_value, w->capr * sizeof *r->sm_value);
            }
            r->sm_start[r->nsm] = w->last_t;
            r->sm_end[r->nsm] = t;
            r->sm_value[r->nsm++] = v;
        }
        int64_t a = w->last_t > w->ss ? w->last_t : w->ss, b = t < w->se ? t : w->se;
        if (b > a) w->weighted += v * (double)(b - a);
    }
    w->last_t = t;
    w->val += dv;
}

/* the kernels that end before t leave (all of them when `all`) */
static void sm_ends(sm_sweep *w, int64_t t, int all) {
    while (w->nh && (all || w->h[0].end < t)) {
        running x = run_pop(w->h, &w->nh);
        sm_point(w, x.end, -x.v);
    }
}

void gm_compute(const pc_trace *t, int device, int64_t ss, int64_t se, int64_t gs, int64_t ge, int sm_ranges,
                gm_result *r) {
    memset(r, 0, sizeof *r);
    r->sm_eff = -1;
    r->occupancy = -1;
    size_t n = 0, cap = 0;
    ivl *k = NULL;
    sm_sweep w = {.ss = ss, .se = se, .r = r, .keep = sm_ranges};
    double occ_w = 0, occ_t = 0;
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        if (g->kind != GPU_KERNEL || g->device != device) continue;
        /* gpu[] is sorted by start: merge busy ranges as they come */
        ivl_append_sorted(&k, &n, &cap, g->ts, g->ts + g->dur);
        if (g->blocks_per_sm > 0) {
            sm_ends(&w, g->ts, 0);
            sm_point(&w, g->ts, (double)g->blocks_per_sm);
            run_push(&w.h, &w.nh, &w.caph, (running){g->ts + g->dur, w.seq++, (double)g->blocks_per_sm});
        }
        if (g->occupancy >= 0) {
            int64_t a = g->ts > ss ? g->ts : ss, b = g->ts + g->dur < se ? g->ts + g->dur : se;
            if (b > a) occ_w += (double)g->occupancy * (double)(b - a), occ_t += (double)(b - a);
        }
    }
    sm_ends(&w, 0, 1);
    free(w.h);
    r->busy_ns = ivl_clip_sum(k, n, ss, se);
    r->util = se > ss ? (double)r->busy_ns / (double)(se - ss) : 0;
    if (occ_t > 0) r->occupancy = occ_w / occ_t;
    if (w.started) r->sm_eff = se > ss ? w.weighted / (double)(se - ss) : 0;
    /* timeline buckets: 10^k µs, at most 100 */
    if (ge > gs) {
        double range_us = (double)(ge - gs) / 1000.0;
        int64_t bus = 1;
        while (range_us / (double)bus > 100) bus *= 10;
        size_t nb = (size_t)(range_us / (double)bus);
        if (nb == 0) nb = 1;
        r->bucket_ns = bus * 1000;
        r->nbuckets = nb;
        r->bucket_start = spill_alloc((nb + 1) * sizeof *r->bucket_start);
        r->bucket_util = spill_calloc(nb, sizeof *r->bucket_util);
        for (size_t b = 0; b < nb; b++) r->bucket_start[b] = gs + (int64_t)b * r->bucket_ns;
        r->bucket_start[nb] = ge;
        size_t j = 0;
        for (size_t b = 0; b < nb; b++) {
            int64_t bs = r->bucket_start[b], be = r->bucket_start[b + 1];
            while (j < n && k[j].e <= bs) j++;
            int64_t busy = 0;
            for (size_t q = j; q < n && k[q].s < be; q++) {
                int64_t a = k[q].s > bs ? k[q].s : bs, z = k[q].e < be ? k[q].e : be;
                if (z > a) busy += z - a;
            }
            r->bucket_util[b] = be > bs ? (double)busy / (double)(be - bs) : 0;
        }
    }
    spill_free(k);
}

void gm_free(gm_result *r) {
    SPILL_FREE_ALL(r->bucket_start, r->bucket_util, r->sm_start, r->sm_end, r->sm_value);
    memset(r, 0, sizeof *r);
}

enum { KERNEL_WAIT_NS = 30000 }; /* Holistic Trace Analysis' default consecutive-kernel delay */

/* The idle record's split by what ends each gap (idle.h): in the window,
 * and per step when the steps are on the kernels' clock. */
static void idle_fill(const an_ctx *c, pc_summary *ps, tab_gpu_device_idle *idle, int device, int64_t ss, int64_t se, int two_clocks) {
    idle_split sp;
    idle_classify(c, device, ss, se, KERNEL_WAIT_NS, &sp);
    int64_t sum = 0;
    for (int k = 0; k < IDLE_N; k++) sum += sp.ns[k];
    assert(sum == idle->total_ns); /* the classes partition the window's idle time */
    idle->host_late_ns = sp.ns[IDLE_HOST_LATE];
    idle->queued_ns = sp.ns[IDLE_QUEUED];
    idle->dependency_ns = sp.ns[IDLE_DEPENDENCY];
    idle->dispatch_ns = sp.ns[IDLE_DISPATCH];
    idle->startup_ns = sp.ns[IDLE_STARTUP];
    idle->tail_ns = sp.ns[IDLE_TAIL];
    idle->unlinked_ns = sp.ns[IDLE_UNLINKED];
    idle->host_late_short_ns = sp.host_late_short_ns;
    idle->graph_queued_ns = sp.graph_queued_ns;
    if (c->step_source && !two_clocks) {
        size_t n = c->nsteps;
        double *v[3] = {pc_summary_numbers(ps, n), pc_summary_numbers(ps, n), pc_summary_numbers(ps, n)};
        static const int cls[3] = {IDLE_HOST_LATE, IDLE_QUEUED, IDLE_DEPENDENCY};
        for (size_t k = 0; k < n; k++)
            for (int j = 0; j < 3; j++) v[j][k] = (double)sp.step_ns[k * IDLE_N + (size_t)cls[j]];
        idle->host_late_steps_ns = (tk_V){v[0], (int64_t)n};
        idle->queued_steps_ns = (tk_V){v[1], (int64_t)n};
        idle->dependency_steps_ns = (tk_V){v[2], (int64_t)n};
    }
    idle_split_free(&sp);
}

/* The windows the gpu section measures: the steps' (ss, se: the first
 * step's start to the last one's end), the profiler's or the trace's span
 * (gs, ge), and the origin the summary's times start from; with the steps
 * on another clock than the kernels (two_clocks), all of them the
 * timeline's own span. */
typedef struct gm_window { int64_t ss, se, gs, ge, origin; int two_clocks; } gm_window;
static gm_window gm_window_of(const an_ctx *c) {
    const pc_trace *t = c->t;
    gm_window w = {c->steps[0].start, c->steps[c->nsteps - 1].end, t->prof_end > t->prof_start ? t->prof_start : t->t_min,
                   t->prof_end > t->prof_start ? t->prof_end : t->t_max, t->t_min, t->clock2_end > t->clock2_start};
    if (w.two_clocks) w.ss = w.gs = w.origin = t->clock2_start, w.se = w.ge = t->clock2_end;
    return w;
}

/* The gpu record: the window, the kernel-wait threshold, how long the trace
 * runs before its first kernel (start-up, when no steps are marked), and a
 * note when the window is not the steps' or nothing is measured. */
static void gm_write_head(const pc_trace *t, pc_summary *ps, cJSON *gm, const gm_window *w) {
    tab_gpu *gr = PC_ADD_REC(ps, gm, gpu);
    gr->window_start_ns = w->ss - w->origin;
    gr->window_end_ns = w->se - w->origin;
    gr->kernel_wait_threshold_ns = KERNEL_WAIT_NS;
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < t->ngpu; i++)
        if (t->gpu[i].kind == GPU_KERNEL && t->gpu[i].ts < first) first = t->gpu[i].ts;
    if (!w->two_clocks && first != INT64_MAX && first >= t->t_min) gr->first_kernel_ns = first - t->t_min;
    if (w->two_clocks) gr->window_note = "measured over the timeline's span (its first to its last event), not the steps: the two use different clocks";
    else if (t->kernels_unknown)
        gr->window_note = "not measured: the input records its communication operators but no kernel timeline (MindSpore: gpu_timeline_display_N.json)";
}

/* The devices that ran kernels (the first 64 met), in ids[] ascending;
 * returns how many (none when the input has no kernel timeline). */
static int gm_devices(const pc_trace *t, int ids[64]) {
    int nid = 0;
    for (size_t i = 0; i < t->ngpu && nid < 64 && !t->kernels_unknown; i++) {
        if (t->gpu[i].kind != GPU_KERNEL) continue;
        int d = t->gpu[i].device, seen = 0;
        for (int q = 0; q < nid; q++) seen |= ids[q] == d;
        if (!seen) ids[nid++] = d;
    }
    for (int a = 0; a < nid; a++)
        for (int b = a + 1; b < nid; b++)
            if (ids[b] < ids[a]) { int x = ids[a]; ids[a] = ids[b]; ids[b] = x; }
    for (int q = 1; q < nid; q++) assert(ids[q - 1] < ids[q]);
    return nid;
}

/* Device dev's idle time inside the window [ss, se), split as Holistic
 * Trace Analysis does: the gaps between its work (kernels, copies and
 * memsets: idle.h, idle_is_work) shorter than KERNEL_WAIT_NS (kernel wait),
 * gaps whose ending work was launched after the gap began (host wait), the
 * rest (other, the window's tail too).
 * After: the gaps are disjoint inside the window, so they sum to at most
 * its length. */
static void gm_idle_split(const an_ctx *c, int dev, const gm_window *w, tab_gpu_device_idle *idle) {
    const pc_trace *t = c->t;
    int64_t host = 0, kwait = 0, other = 0, busy_end = w->ss;
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        if (!idle_is_work(g) || g->device != dev || g->ts + g->dur <= w->ss || g->ts >= w->se) continue;
        if (g->ts > busy_end) {
            int64_t gap = g->ts - busy_end;
            int32_t L = c->links.gpu_launch[i];
            if (gap < KERNEL_WAIT_NS) kwait += gap;
            else if (L >= 0 && t->cpu[L].ts > busy_end) host += gap;
            else other += gap;
        }
        if (g->ts + g->dur > busy_end) busy_end = g->ts + g->dur;
    }
    if (w->se > busy_end) other += w->se - busy_end;
    assert(host >= 0 && kwait >= 0 && other >= 0 && host + kwait + other <= (w->se > w->ss ? w->se - w->ss : 0));
    idle->host_wait_ns = host;
    idle->kernel_wait_ns = kwait;
    idle->other_ns = other;
    idle->total_ns = host + kwait + other;
}

/* gpu.devices[] element of device dev: its busy time, utilization, SM
 * efficiency and occupancy (gm_compute), its utilization over time, and its
 * idle time (gm_idle_split, then idle.c's classes). */
static void gm_write_device(const an_ctx *c, pc_summary *ps, cJSON *devs, int dev, const gm_window *w) {
    gm_result r;
    gm_compute(c->t, dev, w->ss, w->se, w->gs, w->ge, 0, &r);
    cJSON *d = cJSON_CreateObject();
    tab_gpu_device *dr = PC_ADD_REC(ps, d, gpu_device);
    dr->device = dev;
    dr->busy_ns = r.busy_ns;
    dr->utilization_pct = pc_figure(100 * r.util);
    if (r.sm_eff >= 0) dr->sm_efficiency_pct = pc_figure(100 * r.sm_eff);
    if (r.occupancy >= 0) dr->occupancy_pct = pc_figure(r.occupancy);
    cJSON *tl = sj_obj(d, "timeline");
    PC_ADD_REC(ps, tl, gpu_timeline)->bucket_ns = r.bucket_ns;
    pc_table *pts = pc_summary_add_table(ps, tl, "points", TAB_gpu_point);
    for (size_t b = 0; b < r.nbuckets; b++) {
        tab_gpu_point *p = tab_push(pts);
        p->t_ns = r.bucket_start[b] - w->origin;
        p->utilization_pct = pc_figure(100 * r.bucket_util[b]);
    }
    tab_gpu_device_idle *idle = PC_ADD_REC(ps, sj_obj(d, "idle"), gpu_device_idle);
    gm_idle_split(c, dev, w, idle);
    idle_fill(c, ps, idle, dev, w->ss, w->se, w->two_clocks);
    cJSON_AddItemToArray(devs, d);
    gm_free(&r);
}

/* gpu.launches: launch overheads by Holistic Trace Analysis' rules of
 * thumb: kernels under 10 µs, launch calls over 50 µs. */
static void gm_write_launches(const pc_trace *t, pc_summary *ps, cJSON *gm) {
    int64_t small = 0, nk = 0, small_ns = 0, long_launch = 0, nl = 0;
    for (size_t i = 0; i < t->ngpu; i++)
        if (t->gpu[i].kind == GPU_KERNEL) {
            nk++;
            if (t->gpu[i].dur < 10000) small++, small_ns += t->gpu[i].dur;
        }
    uint8_t *launch_name = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: 0 unknown, 1 no, 2 yes */
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind != CPU_RUNTIME && e->kind != CPU_DRIVER) continue;
        if (!launch_name[e->name]) {
            const char *nm = strtab_get(&t->strs, e->name);
            launch_name[e->name] = strstr(nm, "LaunchKernel") || !strcmp(nm, "cuLaunchKernel") ? 2 : 1;
        }
        if (launch_name[e->name] != 2) continue;
        nl++;
        if (e->dur > 50000) long_launch++;
    }
    spill_free(launch_name);
    assert(small <= nk && long_launch <= nl);
    tab_gpu_launches *ln = PC_ADD_REC(ps, sj_obj(gm, "launches"), gpu_launches);
    ln->kernels = nk;
    ln->kernels_under_10us = small;
    ln->kernels_under_10us_pct = pc_figure(nk ? 100.0 * (double)small / (double)nk : 0);
    ln->kernels_under_10us_ns = small_ns;
    ln->launch_calls = nl;
    ln->launch_calls_over_50us = long_launch;
}

/* The gpu section, in phases: the windows, the record, each device that
 * ran kernels (ascending ids), the launch overheads. */
void an_gpu_metrics(const an_ctx *c, pc_summary *ps) {
    gm_window w = gm_window_of(c);
    cJSON *gm = sj_obj(ps->doc, "gpu");
    gm_write_head(c->t, ps, gm, &w);
    cJSON *devs = sj_arr(gm, "devices");
    int ids[64];
    int nid = gm_devices(c->t, ids);
    for (int q = 0; q < nid; q++) gm_write_device(c, ps, devs, ids[q], &w);
    gm_write_launches(c->t, ps, gm);
}
