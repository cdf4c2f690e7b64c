#include "gpumetrics.h"
#include "../util/spill.h"
#include "analyze.h"
#include "intervals.h"
#include "../summary/summary.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

typedef struct vpt { int64_t t; float v; int32_t start; } vpt; /* 16 bytes */
static int cmp_vpt(const void *a, const void *b) {
    const vpt *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return y->start - x->start; /* starts before ends at equal times, as the plugin sorts */
}

void gm_compute(const pc_trace *t, int device, int64_t ss, int64_t se, int64_t gs, int64_t ge, gm_result *r) {
    memset(r, 0, sizeof *r);
    r->sm_eff = -1;
    r->occupancy = -1;
    size_t n = 0, cap = 0, np = 0, capp = 0;
    ivl *k = NULL;
    vpt *pts = NULL;
    double occ_w = 0, occ_t = 0;
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        if (g->kind != GPU_KERNEL || g->device != device) continue;
        /* gpu[] is sorted by start: merge busy ranges as they come */
        ivl_append_sorted(&k, &n, &cap, g->ts, g->ts + g->dur);
        ivl xs = {g->ts, g->ts + g->dur}, *x = &xs;
        if (g->blocks_per_sm > 0) {
            *SPILL_PUSH(pts, np, capp) = (vpt){g->ts, g->blocks_per_sm, 1};
            *SPILL_PUSH(pts, np, capp) = (vpt){g->ts + g->dur, g->blocks_per_sm, 0};
        }
        if (g->occupancy >= 0) {
            int64_t a = g->ts > ss ? g->ts : ss, b = x->e < se ? x->e : se;
            if (b > a) occ_w += (double)g->occupancy * (double)(b - a), occ_t += (double)(b - a);
        }
    }
    r->busy_ns = ivl_clip_sum(k, n, ss, se);
    r->util = se > ss ? (double)r->busy_ns / (double)(se - ss) : 0;
    if (occ_t > 0) r->occupancy = occ_w / occ_t;
    /* SM efficiency: merge ranges with value (sum of overlapping, capped at 1) */
    if (np) {
        spill_sort(pts, np, sizeof *pts, cmp_vpt);
        size_t cr = 0;
        r->sm_start = spill_alloc(np * sizeof *r->sm_start);
        r->sm_end = spill_alloc(np * sizeof *r->sm_end);
        r->sm_value = spill_alloc(np * sizeof *r->sm_value);
        int64_t last_t = pts[0].t;
        double val = (double)pts[0].v, weighted = 0;
        for (size_t i = 1; i < np; i++) {
            if (pts[i].t > last_t && val > 1e-12) {
                double v = val < 1.0 ? val : 1.0;
                r->sm_start[cr] = last_t;
                r->sm_end[cr] = pts[i].t;
                r->sm_value[cr] = v;
                cr++;
                int64_t a = last_t > ss ? last_t : ss, b = pts[i].t < se ? pts[i].t : se;
                if (b > a) weighted += v * (double)(b - a);
            }
            last_t = pts[i].t;
            val += pts[i].start ? (double)pts[i].v : -(double)pts[i].v;
        }
        r->nsm = cr;
        r->sm_eff = se > ss ? weighted / (double)(se - ss) : 0;
    }
    spill_free(pts);
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
    spill_free(r->bucket_start);
    spill_free(r->bucket_util);
    spill_free(r->sm_start);
    spill_free(r->sm_end);
    spill_free(r->sm_value);
    memset(r, 0, sizeof *r);
}

enum { KERNEL_WAIT_NS = 30000 }; /* Holistic Trace Analysis' default consecutive-kernel delay */

void an_gpu_metrics(const an_ctx *c, cJSON *s) {
    const pc_trace *t = c->t;
    int64_t ss = c->steps[0].start, se = c->steps[c->nsteps - 1].end;
    if (t->clock_note) {
        /* steps and kernels on different clocks: measure over the kernels' own span */
        int64_t a = INT64_MAX, b = INT64_MIN;
        for (size_t i = 0; i < t->ngpu; i++)
            if (t->gpu[i].kind == GPU_KERNEL && !strstr(strtab_get(&t->strs, t->gpu[i].name), "AllReduce (stream_")) {
                if (t->gpu[i].ts < a) a = t->gpu[i].ts;
                if (t->gpu[i].ts + t->gpu[i].dur > b) b = t->gpu[i].ts + t->gpu[i].dur;
            }
        if (a < b) ss = a, se = b;
    }
    int64_t gs = t->prof_end > t->prof_start ? t->prof_start : t->t_min, ge = t->prof_end > t->prof_start ? t->prof_end : t->t_max;
    cJSON *gm = sj_obj(s, "gpu");
    sj_int(gm, "window_start_ns", ss - t->t_min);
    sj_int(gm, "window_end_ns", se - t->t_min);
    sj_int(gm, "kernel_wait_threshold_ns", KERNEL_WAIT_NS);
    if (t->clock_note) sj_str(gm, "window_note", "measured over the span of the timeline's kernels, not the steps (different clocks)");
    cJSON *devs = sj_arr(gm, "devices");
    int ids[64], nid = 0;
    for (size_t i = 0; i < t->ngpu && nid < 64; i++) {
        if (t->gpu[i].kind != GPU_KERNEL) continue;
        int d = t->gpu[i].device, seen = 0;
        for (int q = 0; q < nid; q++) seen |= ids[q] == d;
        if (!seen) ids[nid++] = d;
    }
    for (int a = 0; a < nid; a++)
        for (int b = a + 1; b < nid; b++)
            if (ids[b] < ids[a]) { int x = ids[a]; ids[a] = ids[b]; ids[b] = x; }
    for (int q = 0; q < nid; q++) {
        gm_result r;
        gm_compute(t, ids[q], ss, se, gs, ge, &r);
        cJSON *d = cJSON_CreateObject();
        sj_int(d, "device", ids[q]);
        sj_int(d, "busy_ns", r.busy_ns);
        sj_num(d, "utilization_pct", 100 * r.util);
        if (r.sm_eff >= 0) sj_num(d, "sm_efficiency_pct", 100 * r.sm_eff);
        else cJSON_AddNullToObject(d, "sm_efficiency_pct");
        if (r.occupancy >= 0) sj_num(d, "occupancy_pct", r.occupancy);
        else cJSON_AddNullToObject(d, "occupancy_pct");
        cJSON *tl = sj_obj(d, "timeline");
        sj_int(tl, "bucket_ns", r.bucket_ns);
        cJSON *pts = sj_arr(tl, "points");
        for (size_t b = 0; b < r.nbuckets; b++) {
            cJSON *p = cJSON_CreateObject();
            sj_int(p, "t_ns", r.bucket_start[b] - t->t_min);
            sj_num(p, "utilization_pct", 100 * r.bucket_util[b]);
            cJSON_AddItemToArray(pts, p);
        }
        /* idle time inside the window, split as Holistic Trace Analysis does */
        int64_t host = 0, kwait = 0, other = 0, busy_end = ss;
        for (size_t i = 0; i < t->ngpu; i++) {
            const pc_gpu_event *g = &t->gpu[i];
            if (g->kind != GPU_KERNEL || g->device != ids[q] || g->ts + g->dur <= ss || g->ts >= se) continue;
            if (g->ts > busy_end) {
                int64_t gap = g->ts - busy_end;
                int32_t L = c->links.gpu_launch[i];
                if (gap < KERNEL_WAIT_NS) kwait += gap;
                else if (L >= 0 && t->cpu[L].ts > busy_end) host += gap;
                else other += gap;
            }
            if (g->ts + g->dur > busy_end) busy_end = g->ts + g->dur;
        }
        if (se > busy_end) other += se - busy_end;
        cJSON *idle = sj_obj(d, "idle");
        sj_int(idle, "host_wait_ns", host);
        sj_int(idle, "kernel_wait_ns", kwait);
        sj_int(idle, "other_ns", other);
        sj_int(idle, "total_ns", host + kwait + other);
        cJSON_AddItemToArray(devs, d);
        gm_free(&r);
    }
    /* launch overheads (Holistic Trace Analysis' rules of thumb) */
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
    cJSON *ln = sj_obj(gm, "launches");
    sj_int(ln, "kernels", nk);
    sj_int(ln, "kernels_under_10us", small);
    sj_num(ln, "kernels_under_10us_pct", nk ? 100.0 * (double)small / (double)nk : 0);
    sj_int(ln, "kernels_under_10us_ns", small_ns);
    sj_int(ln, "launch_calls", nl);
    sj_int(ln, "launch_calls_over_50us", long_launch);
}
