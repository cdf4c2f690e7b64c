/* clock.c - device timestamps put back on the host's clock (clock.h).
 *
 * Launch -> start pairs are found by correlation id: at most SAMPLE device
 * events (every k-th) go into a map of 256 KiB, which one pass over the host
 * events (also measuring the host's span) probes, so that a trace on one
 * clock costs little; only a device found on another clock is measured again
 * over every pair, for its exact offset. */
#include "clock.h"
#include "../util/hmap.h"
#include "../util/order.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SAMPLE = 8192, MAX_NOTED = 4 };
#define NS_PER_S 1000000000LL

typedef struct pair { int32_t dev; int64_t cpu_ts, lat; } pair;
typedef struct pairs { pair *p; size_t n, cap; } pairs;

/* one device's evidence: its pairs p[0..n) (sorted by lat), and the verdict */
typedef struct verdict {
    int32_t dev;
    size_t n, neg;      /* pairs; pairs whose kernel starts before its launch */
    int64_t lo;         /* the (n/1000)-th smallest latency: a stray pair cannot set the offset */
    int64_t floor_change; /* the latency floor's change, last quarter minus first (by launch time) */
    int moved;
    int64_t offset;     /* device clock minus host clock (ns) at host time c0 */
    double drift;       /* the device clock's gain per host ns (0: none shown) */
    int64_t c0;         /* where the offset holds: the first quarter's floor pair's launch */
} verdict;

static int is_launch(const pc_cpu_event *e) { return (e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER) && e->corr != PC_NONE; }
/* device work whose start a launch call precedes */
static int is_launched(const pc_gpu_event *g) {
    return (g->kind == GPU_KERNEL || g->kind == GPU_MEMCPY || g->kind == GPU_MEMSET) && g->corr != PC_NONE;
}
/* on the device's clock: everything but synchronization records (CUPTI times those on the host) */
static int on_device_clock(const pc_gpu_event *g) { return g->kind != GPU_SYNC; }

static int cmp_dev_lat(const void *a, const void *b) {
    const pair *x = a, *y = b;
    return x->dev != y->dev ? PC_CMP(x->dev, y->dev) : PC_CMP(x->lat, y->lat);
}
static int cmp_cpu_ts(const void *a, const void *b) { return PC_CMP(((const pair *)a)->cpu_ts, ((const pair *)b)->cpu_ts); }

static void push(pairs *out, const pc_cpu_event *c, const pc_gpu_event *g) {
    pair *p = VEC_PUSH(out->p, out->n, out->cap);
    p->dev = g->device, p->cpu_ts = c->ts;
    p->lat = g->ts - c->ts; /* both within +-PC_TIME_LIMIT: no overflow */
}

/* The pairs of at most SAMPLE device events (every k-th) with the earliest
 * launch call of their id, in one pass over the host events, which also
 * measures the host's span (first start *host0 to last end *host1). */
static void sample_pairs(const pc_trace *t, pairs *out, int64_t *host0, int64_t *host1) {
    size_t k = t->ngpu > SAMPLE ? (t->ngpu + SAMPLE - 1) / SAMPLE : 1, ns = 0;
    uint32_t *gi = xmalloc(SAMPLE * sizeof *gi);
    unsigned char *paired = xcalloc(SAMPLE, 1);
    hmap m = {0};
    hmap_reserve(&m, SAMPLE);
    for (size_t i = 0; i < t->ngpu && ns < SAMPLE && i < UINT32_MAX; i += k) {
        if (!is_launched(&t->gpu[i])) continue;
        int created;
        uint32_t *v = hmap_get(&m, (uint64_t)t->gpu[i].corr, &created);
        if (created) *v = (uint32_t)ns, gi[ns++] = (uint32_t)i;
    }
    int64_t h0 = INT64_MAX, h1 = INT64_MIN;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *c = &t->cpu[i];
        if (c->ts < h0) h0 = c->ts;
        if (c->ts + c->dur > h1) h1 = c->ts + c->dur;
        if (!is_launch(c)) continue;
        const uint32_t *v = hmap_find(&m, (uint64_t)c->corr);
        if (!v || paired[*v]) continue; /* sorted by start: the first call of an id is the earliest */
        paired[*v] = 1;
        push(out, c, &t->gpu[gi[*v]]);
    }
    *host0 = h0, *host1 = h1;
    hmap_free(&m);
    free(gi);
    free(paired);
}

/* Every pair of device dev's work with the earliest launch call of its id. */
static void all_pairs(const pc_trace *t, int32_t dev, pairs *out) {
    hmap m = {0};
    size_t nl = 0;
    for (size_t i = 0; i < t->ncpu; i++) nl += is_launch(&t->cpu[i]);
    hmap_reserve(&m, nl + 1);
    for (size_t i = 0; i < t->ncpu && i < UINT32_MAX; i++) {
        if (!is_launch(&t->cpu[i])) continue;
        int created;
        uint32_t *v = hmap_get(&m, (uint64_t)t->cpu[i].corr, &created);
        if (created) *v = (uint32_t)i;
    }
    out->n = 0;
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        if (!is_launched(g) || g->device != dev) continue;
        const uint32_t *v = hmap_find(&m, (uint64_t)g->corr);
        if (v) push(out, &t->cpu[*v], g);
    }
    hmap_free(&m);
}

/* The verdict on one device's pairs p[0..n), sorted by latency (reordered here). */
static int cmp_i64(const void *a, const void *b) { return PC_CMP(*(const int64_t *)a, *(const int64_t *)b); }

/* The floors (smallest latency) of the quarters of p[0..n) (sorted by launch
 * time) and the launch times of the pairs that set them. */
static void quarter_floors(const pair *p, size_t n, int64_t m[4], int64_t c[4]) {
    for (int k = 0; k < 4; k++) {
        m[k] = INT64_MAX, c[k] = 0;
        for (size_t i = n * (size_t)k / 4; i < n * (size_t)(k + 1) / 4; i++)
            if (p[i].lat < m[k]) m[k] = p[i].lat, c[k] = p[i].cpu_ts;
    }
}

/* Drift shown clearly: the floor moves by over 1 ms from the first quarter to the
 * last, less than 1% of the time between them, and the middle quarters' floors lie
 * on that line (within a tenth of the move, or 100 us); then the gain per ns, else 0. */
static double clear_drift(const int64_t m[4], const int64_t c[4]) {
    double change = (double)m[3] - (double)m[0], span = (double)c[3] - (double)c[0];
    if (fabs(change) <= 1e6 || span <= 0 || fabs(change) >= 0.01 * span) return 0; /* a clock gains ppm, not percent */
    double tol = fmax(1e5, 0.1 * fabs(change));
    for (int k = 1; k <= 2; k++)
        if (fabs((double)m[k] - ((double)m[0] + change * ((double)c[k] - (double)c[0]) / span)) > tol) return 0;
    return change / span;
}

/* The verdict on one device's pairs p[0..n), sorted by latency (reordered here). */
static verdict judge(pair *p, size_t n, int64_t host_span) {
    verdict v = {.dev = p[0].dev, .n = n};
    while (v.neg < n && p[v.neg].lat < 0) v.neg++;
    v.lo = p[n / 1000].lat;
    int ahead = v.lo > NS_PER_S && v.lo > host_span; /* every kernel starts long after its launch */
    v.moved = n >= PC_CLOCK_MIN_PAIRS && (v.neg * 10 >= n * 9 || ahead);
    v.offset = v.lo - PC_CLOCK_MIN_LATENCY_NS;
    if (n < 8) return v;
    qsort(p, n, sizeof *p, cmp_cpu_ts);
    int64_t m[4], c[4];
    quarter_floors(p, n, m, c);
    if (__builtin_sub_overflow(m[3], m[0], &v.floor_change)) v.floor_change = 0; /* hostile times: no floor */
    v.drift = n >= 16 ? clear_drift(m, c) : 0;
    if (v.drift == 0) return v;
    /* latency less the drift since c0, whose (n/1000)-th smallest is the offset at c0 plus 1 us */
    v.c0 = c[0];
    int64_t *adj = xmalloc(n * sizeof *adj);
    for (size_t i = 0; i < n; i++) adj[i] = p[i].lat - (int64_t)llround(v.drift * (double)(p[i].cpu_ts - v.c0));
    qsort(adj, n, sizeof *adj, cmp_i64);
    v.offset = adj[n / 1000] - PC_CLOCK_MIN_LATENCY_NS;
    free(adj);
    return v;
}

/* Device time g on the host's clock h: g = h + offset + drift (h - c0), so
 * h = c0 + x / (1 + drift) with x = g - offset - c0; 0 when it leaves +-PC_TIME_LIMIT. */
static int to_host(int64_t g, const verdict *v, int64_t *h) {
    int64_t x;
    if (__builtin_sub_overflow(g, v->offset, &x) || __builtin_sub_overflow(x, v->c0, &x)) return 0;
    if (v->drift != 0) x -= (int64_t)llround((double)x * v->drift / (1 + v->drift)); /* |drift| < 0.5: smaller than x */
    return !__builtin_add_overflow(x, v->c0, h) && *h > -PC_TIME_LIMIT && *h < PC_TIME_LIMIT;
}

/* Whether every device-clock event of v's device stays within +-PC_TIME_LIMIT once moved. */
static int shift_fits(const pc_trace *t, const verdict *v) {
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        int64_t h;
        if (g->device != v->dev || !on_device_clock(g)) continue;
        if (!to_host(g->ts, v, &h) || h + g->dur >= PC_TIME_LIMIT) return 0;
    }
    return 1;
}

static void shift(pc_trace *t, const verdict *v) {
    for (size_t i = 0; i < t->ngpu; i++)
        if (t->gpu[i].device == v->dev && on_device_clock(&t->gpu[i])) {
            int ok = to_host(t->gpu[i].ts, v, &t->gpu[i].ts);
            assert(ok); /* shift_fits said so */
            (void)ok;
        }
    if (v->dev >= 0) pc_trace_device(t, v->dev)->clock_offset_ns = v->offset;
}

/* One sentence on a moved device, appended to buf. */
static void say(char *buf, size_t cap, const verdict *v) {
    size_t len = strlen(buf);
    char who[32];
    if (v->dev >= 0) snprintf(who, sizeof who, "device %d", v->dev);
    else snprintf(who, sizeof who, "the device (no id)");
    char drift[160] = "";
    if (v->drift != 0)
        snprintf(drift, sizeof drift, "; its clock gains %+.1f ppm on the host's (the latency floor moves by %+.3f ms over the launches), corrected",
                 v->drift * 1e6, (double)v->floor_change / 1e6);
    else if (v->floor_change > 1000000 || v->floor_change < -1000000)
        snprintf(drift, sizeof drift, "; the latency floor moves by %+.3f ms from the first to the last quarter of the launches (drift, not corrected)",
                 (double)v->floor_change / 1e6);
    snprintf(buf + len, cap - len,
             "%s%s's timestamps are on another clock than the host's (%zu of %zu launch-to-start pairs start before their launch call): "
             "its events are moved by %+.6f s%s, so that the earliest launch-to-start latency is %d us%s",
             len ? "; " : "", who, v->neg, v->n, (double)-v->offset / 1e9, v->drift != 0 ? " at its first launches" : "", PC_CLOCK_MIN_LATENCY_NS / 1000, drift);
}

/* Nothing moved: when the device events lie wholly apart from the host's, more than
 * an hour and more than either's own span away, with no pairs (npairs sampled) to
 * align them, the note says so (times across them are not comparable); returns 0. */
static int unlinked(pc_trace *t, int64_t h0, int64_t h1, size_t npairs) {
    int64_t d0 = INT64_MAX, d1 = INT64_MIN;
    for (size_t i = 0; i < t->ngpu; i++) {
        if (!on_device_clock(&t->gpu[i])) continue;
        if (t->gpu[i].ts < d0) d0 = t->gpu[i].ts;
        if (t->gpu[i].ts + t->gpu[i].dur > d1) d1 = t->gpu[i].ts + t->gpu[i].dur;
    }
    if (d0 > d1) return 0;
    int64_t gap = d0 > h1 ? d0 - h1 : h0 > d1 ? h0 - d1 : 0; /* all within +-2^62: no overflow */
    if (gap <= 3600 * NS_PER_S || gap <= h1 - h0 || gap <= d1 - d0) return 0;
    char note[400], why[96];
    if (npairs) snprintf(why, sizeof why, "its %zu launch-to-start pairs were too few, too mixed or too far out", npairs);
    else snprintf(why, sizeof why, "no launch call and device event share a correlation id");
    snprintf(note, sizeof note,
             "the device events lie %.6f s %s the host's, and %s to align them: the host's and the devices' clocks "
             "differ, and times across them (the span, GPU utilization) are not comparable",
             (double)gap / 1e9, d0 > h1 ? "after" : "before", why);
    t->clock_aligned = strtab_intern(&t->strs, note, strlen(note));
    return 0;
}

int pc_clock_align(pc_trace *t) {
    if (t->clock_note || !t->ncpu || !t->ngpu) return 0; /* MindSpore's two clocks are its reader's */
    int64_t h0, h1;
    pairs ps = {0}, all = {0};
    sample_pairs(t, &ps, &h0, &h1);
    int64_t host_span = h1 - h0; /* ncpu > 0: h0 <= h1, both within +-PC_TIME_LIMIT */
    int sampled = t->ngpu > SAMPLE;
    if (ps.n) qsort(ps.p, ps.n, sizeof *ps.p, cmp_dev_lat);
    char note[1200] = "";
    int moved = 0, noted = 0;
    for (size_t i = 0; i < ps.n;) {
        size_t k = i;
        while (k < ps.n && ps.p[k].dev == ps.p[i].dev) k++;
        verdict v = judge(ps.p + i, k - i, host_span);
        if (v.moved && sampled) { /* measured again on every pair of this device */
            all_pairs(t, v.dev, &all);
            assert(all.n > 0); /* the sampled pairs are among them */
            qsort(all.p, all.n, sizeof *all.p, cmp_dev_lat);
            v = judge(all.p, all.n, host_span);
        }
        if (v.moved && shift_fits(t, &v)) {
            shift(t, &v);
            moved++;
            if (noted++ < MAX_NOTED) say(note, sizeof note, &v);
        }
        i = k;
    }
    free(ps.p);
    free(all.p);
    if (!moved) return unlinked(t, h0, h1, ps.n);
    if (noted > MAX_NOTED) {
        size_t len = strlen(note);
        snprintf(note + len, sizeof note - len, "; and %d more devices likewise", noted - MAX_NOTED);
    }
    t->clock_aligned = strtab_intern(&t->strs, note, strlen(note));
    t->sorted = 0; /* devices moved by different offsets interleave anew */
    pc_trace_sort(t);
    return moved;
}
