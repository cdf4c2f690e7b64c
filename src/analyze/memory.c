/* Memory from `[memory]` events (profile_memory=True): per device, the peak
 * of "Total Allocated" and "Total Reserved" (or, when a trace lacks those
 * fields, the peak of the running sum of allocation sizes), and per operator
 * (the innermost cpu_op running on the allocating thread) the bytes it
 * allocated, the bytes of its own allocations freed later (each free is
 * matched to the allocation it frees by its address, "Addr", whichever
 * operator runs when it happens), what is still live at the end (net) and
 * what was live at the moment of the CUDA peak (its share of the peak).
 * A trace without addresses (older PyTorch) matches a free to the latest live
 * allocation of the same size on the same thread's device (the caching
 * allocator hands back blocks by size), and says so (free_matching).
 * Frees of blocks allocated before the trace started match nothing and are
 * counted apart (frees_before_trace_bytes).
 * Over time, per device: the allocated (and, with the totals, reserved)
 * bytes after each event, in MEM_POINTS buckets of ceil(span / MEM_POINTS) ns
 * from the device's first memory event, each the largest value an event in
 * it left (a bucket without events keeps the value before it); the peak's
 * time and the operator allocating when it was reached. */
#include "analyze.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct devmem { int type, id; int64_t peak_alloc, peak_res, running, peak_running, nalloc; int has_totals, has_reserved; size_t at_peak; } devmem;
typedef struct opmem { uint32_t name; int64_t alloc, freed, count, live, live_at_peak; } opmem;
typedef struct block { /* an allocation: its operator row, size, and (matching by size) the block of that size allocated before it, index + 1 */
    uint32_t row, prev;
    int64_t bytes, ts, freed_ts; /* freed_ts < 0: not freed (yet) */
    int64_t device;
} block;
enum { PEAK_BLOCKS = 10 }; /* the largest allocations live at the peak, listed */

static int cmp_block_size(const void *a, const void *b) {
    const block *x = *(const block *const *)a, *y = *(const block *const *)b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return x < y ? -1 : x > y; /* equal sizes: the earlier allocation first */
}

static int cmp_opmem(const void *a, const void *b) {
    const opmem *x = a, *y = b;
    if (x->live_at_peak != y->live_at_peak) return x->live_at_peak > y->live_at_peak ? -1 : 1;
    if (x->alloc != y->alloc) return x->alloc > y->alloc ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* The name of the innermost cpu_op running on the allocating thread when a
 * memory event happens (0: none) */
static uint32_t allocating_op(const pc_trace *t, const pc_links *l, const hmap *bytid, const pc_mem_event *e) {
    const uint32_t *th = hmap_find(bytid, (uint64_t)e->tid);
    if (!th) return 0;
    /* last event of the thread starting at or before ts, then up to a containing op */
    size_t lo = l->thread_start[*th], hi = l->thread_start[*th + 1];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->cpu[l->thread_order[mid]].ts <= e->ts) lo = mid + 1;
        else hi = mid;
    }
    if (lo == l->thread_start[*th]) return 0;
    int32_t p = l->thread_order[lo - 1];
    while (p >= 0 && !(t->cpu[p].kind == CPU_OP && t->cpu[p].ts <= e->ts && e->ts <= t->cpu[p].ts + t->cpu[p].dur)) p = l->parent[p];
    return p >= 0 ? t->cpu[p].name : 0;
}

enum { MEM_POINTS = 200 };

/* a + b held within +-PC_TIME_LIMIT: byte sums of a hostile trace (each event
 * below 2^62, but many of them) saturate instead of overflowing */
static int64_t sat_add(int64_t a, int64_t b) {
    int64_t s = a + b; /* |a|, |b| <= 2^62: no overflow */
    return s > PC_TIME_LIMIT ? PC_TIME_LIMIT : s < -PC_TIME_LIMIT ? -PC_TIME_LIMIT : s;
}

/* the value after event e of device d: the allocator's totals, else the running sum */
static int64_t mem_value(const devmem *d, const pc_mem_event *e, int64_t running) {
    return d->has_totals ? (e->total_allocated != PC_NONE ? e->total_allocated : -1) : running;
}

/* device d's memory over time (see the top of the file) into j */
static void mem_timeline(const pc_trace *t, const devmem *d, pc_summary *ps, cJSON *j) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < t->nmem; i++) {
        const pc_mem_event *e = &t->mem[i];
        if (e->device_type != d->type || e->device_id != d->id) continue;
        if (e->ts < first) first = e->ts;
        if (e->ts > last) last = e->ts;
    }
    if (first > last) return;
    int64_t bucket = (last - first + MEM_POINTS - 1) / MEM_POINTS;
    if (bucket < 1) bucket = 1;
    size_t nb = (size_t)((last - first) / bucket) + 1;
    int64_t *mx = spill_alloc(nb * 4 * sizeof *mx), *lastv = mx + nb, *rmx = mx + 2 * nb, *rlast = mx + 3 * nb;
    for (size_t b = 0; b < 4 * nb; b++) mx[b] = -1;
    int64_t running = 0;
    for (size_t i = 0; i < t->nmem; i++) {
        const pc_mem_event *e = &t->mem[i];
        if (e->device_type != d->type || e->device_id != d->id) continue;
        running = sat_add(running, e->bytes);
        size_t b = (size_t)((e->ts - first) / bucket);
        int64_t v = mem_value(d, e, running);
        if (v >= 0) {
            if (v > mx[b]) mx[b] = v;
            lastv[b] = v;
        }
        if (d->has_totals && e->total_reserved != PC_NONE) {
            if (e->total_reserved > rmx[b]) rmx[b] = e->total_reserved;
            rlast[b] = e->total_reserved;
        }
    }
    cJSON *tl = sj_obj(j, "timeline");
    tab_memory_timeline *mt = PC_ADD_REC(ps, tl, memory_timeline);
    mt->start_ns = first - t->t_min;
    mt->bucket_ns = bucket;
    pc_table *pts = pc_summary_add_table(ps, tl, "points", TAB_memory_point);
    for (size_t b = 0; b < nb; b++) {
        if (mx[b] < 0) mx[b] = lastv[b] = b ? lastv[b - 1] : 0;
        if (rmx[b] < 0) rmx[b] = rlast[b] = b ? rlast[b - 1] : -1;
        tab_memory_point *p = tab_push(pts);
        p->t_ns = first - t->t_min + (int64_t)b * bucket;
        p->allocated_bytes = mx[b];
        if (d->has_totals && rmx[b] >= 0) p->reserved_bytes = rmx[b];
    }
    spill_free(mx);
}

/* memory.peak_allocations: the largest of the blocks live at the peak (idx),
 * with their operator, and when they were allocated and freed */
static void peak_blocks(const pc_trace *t, pc_summary *ps, cJSON *mem, const block *blocks, const uint32_t *idx, size_t n,
                        const opmem *rows) {
    pc_table *arr = pc_summary_add_table(ps, mem, "peak_allocations", TAB_peakalloc);
    if (!n) return;
    const block **v = xcalloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = &blocks[idx[i]];
    qsort(v, n, sizeof *v, cmp_block_size);
    for (size_t i = 0; i < n && i < PEAK_BLOCKS; i++) {
        tab_peakalloc *j = tab_push(arr);
        uint32_t name = rows[v[i]->row].name;
        j->bytes = v[i]->bytes;
        j->operator = name ? pc_summary_utf8(ps, strtab_get(&t->strs, name)) : "(outside any operator)";
        j->allocated_ns = v[i]->ts - t->t_min;
        if (v[i]->freed_ts >= 0) j->freed_ns = v[i]->freed_ts - t->t_min;
    }
    free(v);
}

/* Per thread id, its index in the links' threads (bytid), for
 * allocating_op; a thread without events has none. */
static void mem_threads(const pc_trace *t, const pc_links *l, hmap *bytid) {
    for (size_t th = 0; th < l->nthreads; th++) {
        if (l->thread_start[th] == l->thread_start[th + 1]) continue;
        int created;
        uint32_t *v = hmap_get(bytid, (uint64_t)t->cpu[l->thread_order[l->thread_start[th]]].tid, &created);
        if (created) *v = (uint32_t)th;
    }
}

enum { MEM_DEVICES = 32 }; /* devices with memory events kept (the rest's events left out) */

/* The devices' peaks, in one pass over the memory events: per device (the
 * first MEM_DEVICES), the running sum of sizes and its peak, the peaks of
 * the allocator's totals when the trace has them, the event of the peak,
 * the allocations. Returns how many devices (at most MEM_DEVICES). */
static int mem_devices(const pc_trace *t, devmem *dm) {
    int nd = 0;
    for (size_t i = 0; i < t->nmem; i++) {
        const pc_mem_event *e = &t->mem[i];
        int k;
        for (k = 0; k < nd; k++)
            if (dm[k].type == e->device_type && dm[k].id == e->device_id) break;
        if (k == nd) {
            if (nd == MEM_DEVICES) continue;
            memset(&dm[nd], 0, sizeof dm[nd]);
            dm[nd].type = e->device_type;
            dm[nd].id = e->device_id;
            nd++;
        }
        devmem *d = &dm[k];
        d->running = sat_add(d->running, e->bytes);
        if (d->running > d->peak_running) {
            d->peak_running = d->running;
            if (!d->has_totals) d->at_peak = i;
        }
        if (e->total_allocated != PC_NONE) {
            if (!d->has_totals || e->total_allocated > d->peak_alloc) d->peak_alloc = e->total_allocated, d->at_peak = i;
            d->has_totals = 1;
        }
        if (e->total_reserved != PC_NONE) {
            if (!d->has_reserved || e->total_reserved > d->peak_res) d->peak_res = e->total_reserved;
            d->has_reserved = 1;
        }
        if (e->bytes > 0) d->nalloc++;
    }
    for (int k = 0; k < nd; k++) assert(dm[k].peak_running >= 0 && dm[k].at_peak < t->nmem);
    return nd;
}

/* memory.devices[] element of device d: its peaks and where they come
 * from, the peak's time and operator, its timeline, and its peak's share of
 * the device's memory when the trace describes the device (CUDA only). */
static void mem_write_device(const an_ctx *c, const devmem *d, const hmap *bytid, pc_summary *ps, cJSON *devs) {
    const pc_trace *t = c->t;
    cJSON *j = cJSON_CreateObject();
    tab_memory_device *md = PC_ADD_REC(ps, j, memory_device);
    int cuda = d->type == 1;
    md->device = cuda ? "cuda" : d->type == 0 ? "cpu" : "other";
    md->id = d->id;
    md->peak_allocated_bytes = d->has_totals ? d->peak_alloc : d->peak_running;
    if (d->has_reserved) md->peak_reserved_bytes = d->peak_res;
    md->source = d->has_totals ? "Total Allocated / Total Reserved fields" : "running sum of allocation sizes";
    md->allocations = d->nalloc;
    if (d->at_peak < t->nmem && t->mem[d->at_peak].device_type == d->type && t->mem[d->at_peak].device_id == d->id) {
        const pc_mem_event *pe = &t->mem[d->at_peak];
        uint32_t op = allocating_op(t, &c->links, bytid, pe);
        md->peak_t_ns = pe->ts - t->t_min;
        if (op) md->peak_operator = pc_summary_utf8(ps, strtab_get(&t->strs, op));
    }
    mem_timeline(t, d, ps, j);
    int64_t capb = 0;
    for (size_t q = 0; cuda && q < t->ndev; q++)
        if (t->dev[q].id == d->id) capb = t->dev[q].total_mem;
    if (capb > 0) {
        md->device_memory_bytes = capb;
        md->peak_reserved_pct = pc_figure(100.0 * (double)(d->has_reserved ? d->peak_res : d->has_totals ? d->peak_alloc : d->peak_running) / (double)capb);
    }
    cJSON_AddItemToArray(devs, j);
}

/* The operators' allocations on CUDA devices, as one pass keeps them:
 * rows per operator name (m), the blocks allocated (live by address, or by
 * size: the latest live block of each size, chained by prev), the frees of
 * blocks from before the trace, and the blocks live at the peak. */
typedef struct memops {
    hmap m, live, by_size; /* operator name -> row; address -> live block; size -> latest live block (index + 1) */
    opmem *rows;
    block *blocks;
    size_t n, cap, nb, capb;
    int64_t before_trace;
    int by_size_used;
    uint32_t *at_peak; /* blocks live at the peak */
    size_t npk, cappk;
} memops;

/* Free e (bytes < 0): charged to the allocation it frees (*at: found by its
 * address, else by its size), else counted as freeing memory allocated
 * before the trace. */
static void mem_free(memops *o, const pc_mem_event *e, int by_addr, uint32_t *at) {
    if (*at && *at <= o->nb) {
        block *k = &o->blocks[*at - 1];
        opmem *r = &o->rows[k->row];
        r->freed = sat_add(r->freed, k->bytes), r->live = sat_add(r->live, -k->bytes);
        k->freed_ts = e->ts;
        *at = by_addr ? 0 : k->prev;
    } else o->before_trace = sat_add(o->before_trace, -e->bytes);
    o->by_size_used |= !by_addr;
}

/* Allocation e (bytes >= 0) to the row of the operator allocating it
 * (allocating_op), a new block live at *at. */
static void mem_alloc(memops *o, const an_ctx *c, const hmap *bytid, const pc_mem_event *e, int by_addr, uint32_t *at) {
    uint32_t name = allocating_op(c->t, &c->links, bytid, e);
    int created;
    uint32_t *slot = hmap_get(&o->m, name, &created);
    if (created) {
        opmem *r = SPILL_PUSH(o->rows, o->n, o->cap);
        memset(r, 0, sizeof *r);
        r->name = name;
        *slot = (uint32_t)(o->n - 1);
    }
    opmem *r = &o->rows[*slot];
    if (e->bytes <= 0) return;
    r->alloc = sat_add(r->alloc, e->bytes), r->count++, r->live = sat_add(r->live, e->bytes);
    block *b = SPILL_PUSH(o->blocks, o->nb, o->capb);
    *b = (block){.row = *slot, .prev = by_addr ? 0 : *at, .bytes = e->bytes, .ts = e->ts, .freed_ts = -1, .device = e->device_id};
    *at = (uint32_t)o->nb; /* index + 1; 0: none live */
}

/* At the peak's event: each row's live bytes, and the blocks of the peak's
 * device live now (indices: blocks may still move). */
static void mem_peak_snapshot(memops *o, int64_t device) {
    for (size_t q = 0; q < o->n; q++) o->rows[q].live_at_peak = o->rows[q].live;
    for (size_t q = 0; q < o->nb; q++)
        if (o->blocks[q].freed_ts < 0 && o->blocks[q].device == device) *SPILL_PUSH(o->at_peak, o->npk, o->cappk) = (uint32_t)q;
    assert(o->npk <= o->nb);
}

/* Operators that allocate the most device memory (the innermost cpu_op
 * running on the allocating thread at the allocation's time): every CUDA
 * memory event in order, each free matched to its allocation, the rows
 * snapshot at event peak_event. */
static void mem_ops(memops *o, const an_ctx *c, const hmap *bytid, size_t peak_event) {
    const pc_trace *t = c->t;
    for (size_t i = 0; i < t->nmem; i++) {
        const pc_mem_event *e = &t->mem[i];
        if (e->device_type != 1) continue;
        int by_addr = e->addr != PC_NONE;
        hmap *index = by_addr ? &o->live : &o->by_size;
        uint32_t *at = hmap_get(index, by_addr ? (uint64_t)e->addr : (uint64_t)(e->bytes < 0 ? -e->bytes : e->bytes), NULL);
        if (e->bytes < 0) mem_free(o, e, by_addr, at);
        else mem_alloc(o, c, bytid, e, by_addr, at);
        if (i == peak_event) mem_peak_snapshot(o, e->device_id);
    }
}

/* memory.top_operators: the first 50 rows by bytes live at the peak, then
 * allocated, that allocated anything. After: freed within allocated. */
static void mem_write_top(const pc_trace *t, pc_summary *ps, pc_table *top, opmem *rows, size_t n) {
    if (n) spill_sort(rows, n, sizeof *rows, cmp_opmem);
    for (size_t i = 0; i < n && i < 50; i++) {
        if (!rows[i].alloc) continue;
        assert(0 <= rows[i].freed && rows[i].freed <= rows[i].alloc);
        tab_memop *j = tab_push(top);
        j->name = rows[i].name ? pc_summary_utf8(ps, strtab_get(&t->strs, rows[i].name)) : "(outside any operator)";
        j->allocated_bytes = rows[i].alloc;
        j->freed_bytes = rows[i].freed;
        j->net_bytes = rows[i].alloc - rows[i].freed;
        j->live_at_peak_bytes = rows[i].live_at_peak > 0 ? rows[i].live_at_peak : 0;
        j->allocations = rows[i].count;
    }
}

/* The memory section, in phases: the devices' peaks, each device's object
 * (the largest CUDA peak and its event found on the way), the operators'
 * allocations and frees, the blocks live at the peak, the top operators. */
void an_memory(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    cJSON *mem = sj_obj(ps->doc, "memory");
    tab_memory *mr = PC_ADD_REC(ps, mem, memory);
    mr->events = (int64_t)t->nmem;
    cJSON *devs = sj_arr(mem, "devices");
    pc_table *top = pc_summary_add_table(ps, mem, "top_operators", TAB_memop);
    if (t->nmem == 0) return;
    hmap bytid = {0};
    mem_threads(t, &c->links, &bytid);
    devmem dm[MEM_DEVICES];
    int nd = mem_devices(t, dm);
    int64_t cuda_peak = -1;
    size_t peak_event = SIZE_MAX; /* the event at which the largest CUDA peak is reached */
    for (int k = 0; k < nd; k++) {
        if (dm[k].type == 1) {
            int64_t p = dm[k].has_totals ? dm[k].peak_alloc : dm[k].peak_running;
            if (p > cuda_peak) cuda_peak = p, peak_event = dm[k].at_peak;
        }
        mem_write_device(c, &dm[k], &bytid, ps, devs);
    }
    if (cuda_peak >= 0) mr->cuda_peak_allocated_bytes = cuda_peak;
    memops o = {0};
    mem_ops(&o, c, &bytid, peak_event);
    peak_blocks(t, ps, mem, o.blocks, o.at_peak, o.npk, o.rows);
    spill_free(o.at_peak);
    hmap_free(&o.live);
    hmap_free(&o.by_size);
    spill_free(o.blocks);
    mr->frees_before_trace_bytes = o.before_trace;
    mr->free_matching = o.by_size_used ? "by size (the trace records no addresses): the latest live allocation of the freed size"
                                       : "by address: the allocation at the freed address";
    hmap_free(&o.m);
    hmap_free(&bytid);
    mem_write_top(t, ps, top, o.rows, o.n);
    spill_free(o.rows);
}
