/* The whole trace as lanes of events, for the report's interactive timeline
 * (summary key "trace_timeline"): GPU lanes per (device, stream) with their
 * kernels, NCCL kernels, memcpy and memset; CPU lanes per thread with their
 * annotations (steps, record_function ranges), operators, CUDA API calls and
 * data loading, each at its depth: the number of those ranges around it on
 * its thread (0 outermost; deeper than TL_DEPTH not shown). Times are ns from
 * the trace's start. Names are listed once ("names") and events point at them,
 * and so are their arguments ("args": a kernel's grid and block, a copy's
 * bytes, an operator's input shapes).
 * At most TL_MAX events: past that, the longest TL_MAX are kept (a zoomed-out
 * view shows them; the shortest are what the eye cannot see) and "dropped"
 * says how many were left out, and the shortest kept. */
#include "analyze.h"
#include "../summary/summary.h"
#include "../util/order.h"
#include "../util/hmap.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { TL_MAX = 20000, TL_LANES = 256, TL_DEPTH = 7 };
enum { TC_KERNEL, TC_NCCL, TC_MEMCPY, TC_MEMSET, TC_OP, TC_ANNOT, TC_RUNTIME, TC_DATA, TC_N };
static const char *const tl_cat[TC_N] = {"kernel", "communication", "memcpy", "memset", "cpu_op", "annotation", "runtime", "dataloader"};

typedef struct tlev { int64_t s, d; uint32_t name, src; uint16_t lane; uint8_t cat, depth; } tlev; /* src: its event k */
typedef struct tllane { int gpu; int64_t a, b; } tllane;

/* the cut bucket's order: longest, then earliest, then first in the trace
 * (src): what a stable sort by cmp_dur_desc gives */
static int cand_before(const tlev *a, const tlev *b) {
    return a->d != b->d ? a->d > b->d : a->s != b->s ? a->s < b->s : a->src < b->src;
}
static int cmp_cand(const void *x, const void *y) { return cand_before(x, y) ? -1 : cand_before(y, x); }
/* h[0..n) is a heap with its last candidate (by cand_before) on top: x
 * replaces the top when it comes before it, so the heap keeps the first n */
static void heap_sift(tlev *h, size_t n, size_t i) {
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && cand_before(&h[c], &h[c + 1])) c++;
        if (!cand_before(&h[i], &h[c])) return;
        tlev x = h[i];
        h[i] = h[c], h[c] = x, i = c;
    }
}
static void heap_offer(tlev *h, size_t *n, size_t room, const tlev *x) {
    if (*n < room) {
        size_t i = (*n)++;
        h[i] = *x;
        while (i > 0 && cand_before(&h[(i - 1) / 2], &h[i])) {
            tlev y = h[i];
            h[i] = h[(i - 1) / 2], h[(i - 1) / 2] = y, i = (i - 1) / 2;
        }
    } else if (room && cand_before(x, &h[0])) {
        h[0] = *x;
        heap_sift(h, *n, 0);
    }
}

static int cmp_lane_start(const void *x, const void *y) {
    const tlev *a = x, *b = y;
    return a->lane != b->lane ? PC_CMP(a->lane, b->lane) : PC_CMP(a->s, b->s);
}
static int cmp_lanes(const void *x, const void *y) {
    const tllane *a = x, *b = y;
    if (a->gpu != b->gpu) return PC_CMP(b->gpu, a->gpu); /* GPU lanes first */
    return a->a != b->a ? PC_CMP(a->a, b->a) : PC_CMP(a->b, b->b);
}

static int lane_of(tllane *lanes, int *n, int gpu, int64_t a, int64_t b) {
    for (int i = 0; i < *n; i++)
        if (lanes[i].gpu == gpu && lanes[i].a == a && lanes[i].b == b) return i;
    if (*n >= TL_LANES) return -1;
    lanes[*n] = (tllane){gpu, a, b};
    return (*n)++;
}

static int tl_cpu_cat(int kind) {
    return kind == CPU_RUNTIME || kind == CPU_DRIVER ? TC_RUNTIME
           : kind == CPU_DATALOADER ? TC_DATA : kind == CPU_USER_ANNOT ? TC_ANNOT : kind == CPU_OP ? TC_OP : -1;
}

/* event k of the trace (GPU events first, then host events) as a timeline
 * event without its lane; 0 when the timeline does not show it */
static int tl_event(const pc_trace *t, const pc_links *l, const uint8_t *nccl, size_t k, tlev *x, int *gpu, int64_t *a, int64_t *b) {
    if (k < t->ngpu) {
        const pc_gpu_event *e = &t->gpu[k];
        int cat = e->kind == GPU_KERNEL ? (nccl[e->name] ? TC_NCCL : TC_KERNEL) : e->kind == GPU_MEMCPY ? TC_MEMCPY : e->kind == GPU_MEMSET ? TC_MEMSET : -1;
        if (cat < 0) return 0;
        *x = (tlev){e->ts - t->t_min, e->dur, e->name, (uint32_t)k, 0, (uint8_t)cat, 0};
        *gpu = 1, *a = e->device, *b = e->stream;
        return 1;
    }
    size_t i = k - t->ngpu;
    const pc_cpu_event *e = &t->cpu[i];
    int cat = tl_cpu_cat(e->kind);
    if (cat < 0) return 0;
    /* its depth: the shown ranges around it (python_function frames are not shown) */
    int depth = 0;
    for (int32_t up = l->parent[i]; up >= 0; up = l->parent[up])
        if (tl_cpu_cat(t->cpu[up].kind) >= 0 && ++depth > TL_DEPTH) return 0;
    *x = (tlev){e->ts - t->t_min, e->dur, e->name, (uint32_t)k, 0, (uint8_t)cat, (uint8_t)depth};
    *gpu = 0, *a = e->pid, *b = e->tid;
    return 1;
}

/* event k's arguments as the tooltip shows them, into buf; 0 when it has none.
 * *key identifies the text for sharing it (equal keys, equal texts but for
 * a kernel's, which is a hash: the caller compares). */
static int tl_args(const pc_trace *t, size_t k, char *buf, size_t cap, uint64_t *key) {
    if (k < t->ngpu) {
        const pc_gpu_event *e = &t->gpu[k];
        if (e->kind == GPU_KERNEL && e->grid[0]) {
            snprintf(buf, cap, "grid [%u, %u, %u] block [%u, %u, %u]", e->grid[0], e->grid[1], e->grid[2], e->block[0], e->block[1], e->block[2]);
            uint64_t h = 1469598103934665603ULL;
            for (const char *p = buf; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
            *key = h | (3ULL << 62);
            return 1;
        }
        if ((e->kind == GPU_MEMCPY || e->kind == GPU_MEMSET) && e->bytes != PC_NONE && e->bytes >= 0) {
            snprintf(buf, cap, "%lld bytes", (long long)e->bytes);
            *key = ((uint64_t)e->bytes & ((1ULL << 62) - 1)) | (2ULL << 62);
            return 1;
        }
        return 0;
    }
    const pc_cpu_event *e = &t->cpu[k - t->ngpu];
    if (e->kind != CPU_OP || !e->input_dims) return 0;
    snprintf(buf, cap, "input shapes %.480s", strtab_get(&t->strs, e->input_dims));
    *key = e->input_dims | (1ULL << 62);
    return 1;
}

/* a duration's histogram bucket: 8 per power of two */
static int dur_bucket(int64_t d) {
    if (d <= 0) return 0;
    int lg = 63 - __builtin_clzll((unsigned long long)d);
    int frac = lg >= 3 ? (int)((d >> (lg - 3)) & 7) : (int)((d << (3 - lg)) & 7);
    return 1 + lg * 8 + frac;
}
enum { NDB = 1 + 64 * 8 };

/* an_trace_timeline's state: the lanes met (in first-use order), the events
 * shown and the total, the cut bucket (events in buckets above it are all
 * kept; those in it compete for the slots left) and its candidates. */
typedef struct tl_pass {
    const pc_trace *t;
    const pc_links *l;
    const uint8_t *nccl;
    tllane *lanes;
    int nl;
    size_t total;      /* the events the timeline shows, before TL_MAX */
    int cut;
    tlev *ev, *cand;   /* kept events; the cut bucket's candidates (a heap of room) */
    size_t n, cap, nc, room;
} tl_pass;

/* Pass 1: how many events the timeline shows (p->total), by duration
 * bucket, and the bucket where the TL_MAX longest end (p->cut; 0 when all
 * fit). After: the buckets above the cut hold at most TL_MAX events. */
static void tl_count(tl_pass *p) {
    const pc_trace *t = p->t;
    size_t nk = t->ngpu + t->ncpu;
    int64_t *hist = xcalloc(NDB, sizeof *hist);
    for (size_t k = 0; k < nk; k++) {
        tlev x;
        int g;
        int64_t a, b;
        if (!tl_event(t, p->l, p->nccl, k, &x, &g, &a, &b)) continue;
        hist[dur_bucket(x.d)]++;
        p->total++;
    }
    size_t above = 0;
    if (p->total > TL_MAX) {
        for (p->cut = NDB - 1; p->cut > 0 && above + (size_t)hist[p->cut] <= TL_MAX; p->cut--) above += (size_t)hist[p->cut];
    }
    assert(above <= TL_MAX);
    free(hist);
}

/* Pass 2: the kept events and the candidates of the cut bucket, with their
 * lanes; of the candidates only the slots left are held (a heap: a trace of
 * 21,000,000 equal events held them all, sorted, and peaked at 330 MiB).
 * Events past the lanes (TL_LANES) are skipped: the cut bucket may fill
 * more than TL_MAX - above. */
static void tl_collect(tl_pass *p) {
    const pc_trace *t = p->t;
    size_t nk = t->ngpu + t->ncpu;
    p->room = p->total > TL_MAX ? TL_MAX : 0;
    p->cand = p->room ? xmalloc(p->room * sizeof *p->cand) : NULL;
    int lg = -1;
    int64_t last_a = 0, last_b = 0;
    int lane_last = -1;
    for (size_t k = 0; k < nk; k++) {
        tlev x;
        int g;
        int64_t a, b;
        if (!tl_event(t, p->l, p->nccl, k, &x, &g, &a, &b)) continue;
        int bk = p->total > TL_MAX ? dur_bucket(x.d) : NDB;
        if (bk < p->cut) continue;
        int lane = g == lg && a == last_a && b == last_b ? lane_last : lane_of(p->lanes, &p->nl, g, a, b);
        lg = g, last_a = a, last_b = b, lane_last = lane;
        if (lane < 0) continue;
        x.lane = (uint16_t)lane;
        if (bk > p->cut) *SPILL_PUSH(p->ev, p->n, p->cap) = x;
        else heap_offer(p->cand, &p->nc, p->room, &x);
    }
}

/* Past TL_MAX: the longest of the cut bucket fill the slots left; *dropped
 * the events left out, *shortest the shortest kept (both 0 when all fit).
 * After: at most TL_MAX events, kept and dropped making the total. */
static void tl_fill_cut(tl_pass *p, size_t *dropped, int64_t *shortest) {
    *dropped = 0, *shortest = 0;
    if (p->total > TL_MAX) {
        if (p->nc) qsort(p->cand, p->nc, sizeof *p->cand, cmp_cand);
        for (size_t i = 0; i < p->nc && p->n < TL_MAX; i++) *SPILL_PUSH(p->ev, p->n, p->cap) = p->cand[i];
        *dropped = p->total - p->n;
        *shortest = INT64_MAX;
        for (size_t i = 0; i < p->n; i++)
            if (p->ev[i].d < *shortest) *shortest = p->ev[i].d;
    }
    assert(p->n <= p->total && p->n <= TL_MAX && *dropped <= p->total);
    free(p->cand);
    p->cand = NULL;
}

/* The lanes in a fixed order (GPU (device, stream), then CPU (pid, tid)),
 * returned (the caller frees), and the events renumbered to them, sorted
 * by lane and start. */
static tllane *tl_order_lanes(tl_pass *p) {
    int nl = p->nl;
    int *remap = xcalloc((size_t)(nl ? nl : 1), sizeof *remap);
    tllane *sorted = xcalloc((size_t)(nl ? nl : 1), sizeof *sorted);
    memcpy(sorted, p->lanes, (size_t)nl * sizeof *p->lanes);
    qsort(sorted, (size_t)nl, sizeof *sorted, cmp_lanes);
    for (int i = 0; i < nl; i++)
        for (int k = 0; k < nl; k++)
            if (!memcmp(&p->lanes[i], &sorted[k], sizeof *p->lanes)) remap[i] = k;
    for (size_t i = 0; i < p->n; i++) p->ev[i].lane = (uint16_t)remap[p->ev[i].lane];
    spill_sort(p->ev, p->n, sizeof *p->ev, cmp_lane_start);
    free(remap);
    return sorted;
}

/* trace_timeline.categories and .lanes (each lane's label). */
static void tl_write_lanes(const pc_trace *t, cJSON *tl, const tllane *sorted, int nl) {
    cJSON *cats = sj_arr(tl, "categories");
    for (int k = 0; k < TC_N; k++) cJSON_AddItemToArray(cats, cJSON_CreateString(tl_cat[k]));
    cJSON *la = sj_arr(tl, "lanes");
    for (int i = 0; i < nl; i++) {
        char lab[96];
        if (sorted[i].gpu) snprintf(lab, sizeof lab, "GPU %lld stream %lld", (long long)sorted[i].a, (long long)sorted[i].b);
        else if (sorted[i].b < 0) snprintf(lab, sizeof lab, "thread %.60s", strtab_get(&t->strs, (uint32_t)-sorted[i].b));
        else snprintf(lab, sizeof lab, "thread %lld", (long long)sorted[i].b);
        cJSON_AddItemToArray(la, sj_str_item(lab));
    }
}

/* trace_timeline.names, .args and .events: each name and argument text
 * once, in first-use order, and the events pointing at them. */
static void tl_write_events(const pc_trace *t, cJSON *tl, const tlev *ev, size_t n) {
    hmap ids = {0}, argids = {0};
    cJSON *names = sj_arr(tl, "names"), *args = sj_arr(tl, "args"), *arr = sj_arr(tl, "events");
    uint32_t nn = 0, na = 0;
    cJSON **argv = NULL; /* args' items by index (cJSON arrays are lists) */
    size_t capa = 0, nav = 0;
    for (size_t i = 0; i < n; i++) {
        int created;
        uint32_t *slot = hmap_get(&ids, ev[i].name, &created);
        if (created) {
            *slot = nn++;
            cJSON_AddItemToArray(names, sj_str_item(strtab_get(&t->strs, ev[i].name)));
        }
        char ab[512];
        uint64_t key;
        int64_t aid = -1;
        if (tl_args(t, ev[i].src, ab, sizeof ab, &key)) {
            uint32_t *as = hmap_get(&argids, key, &created);
            if (!created && !strcmp(argv[*as - 1]->valuestring, ab)) aid = *as - 1;
            else {
                cJSON *it = sj_str_item(ab);
                cJSON_AddItemToArray(args, it);
                *VEC_PUSH(argv, nav, capa) = it;
                if (created) *as = na + 1; /* a hash shared by two texts: the first keeps the slot */
                aid = na++;
            }
        }
        pc_tl_event e = {ev[i].lane, ev[i].s, ev[i].d, *slot, ev[i].cat, ev[i].depth, aid};
        cJSON_AddItemToArray(arr, pc_tl_event_item(&e));
    }
    hmap_free(&ids);
    hmap_free(&argids);
    free(argv);
}

/* The trace_timeline section, in phases: count the events by duration,
 * collect the kept ones and the cut bucket's candidates, fill the slots
 * left, order the lanes, then the record, the lanes and the events. */
void an_trace_timeline(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    uint8_t *nccl = nccl_flags(t);
    tl_pass p = {.t = t, .l = &c->links, .nccl = nccl, .lanes = xcalloc(TL_LANES, sizeof *p.lanes)};
    tl_count(&p);
    tl_collect(&p);
    spill_free(nccl);
    size_t dropped;
    int64_t shortest;
    tl_fill_cut(&p, &dropped, &shortest);
    tllane *sorted = tl_order_lanes(&p);
    cJSON *tl = sj_obj(ps->doc, "trace_timeline");
    tab_trace_timeline *tr = PC_ADD_REC(ps, tl, trace_timeline);
    tr->span_ns = t->t_max - t->t_min;
    tr->events_total = (int64_t)p.total;
    tr->dropped = (int64_t)dropped;
    tr->shortest_kept_ns = shortest;
    tl_write_lanes(t, tl, sorted, p.nl);
    tl_write_events(t, tl, p.ev, p.n);
    spill_free(p.ev);
    free(sorted);
    free(p.lanes);
}
