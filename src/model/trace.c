#include "trace.h"
#include "clock.h"
#include "../util/order.h"
#include "../util/xalloc.h"
#include "../util/spill.h"
#include "../util/side.h"
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

pc_trace *pc_trace_new(void) {
    pc_trace *t = xcalloc(1, sizeof *t);
    strtab_init(&t->strs);
    t->rank = t->world_size = PC_NONE;
    t->t_min = INT64_MAX;
    t->t_max = INT64_MIN;
    return t;
}

const char *const pc_copy_name[COPY_N] = {"Unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};
const char *const pc_mem_name[MEM_N] = {"Unknown", "Pageable", "Pinned", "Device", "Managed"};

int pc_kind_find(const char *const *names, int n, const char *s, size_t len) {
    for (int i = 1; i < n; i++) {
        size_t k = strlen(names[i]);
        if (len >= k && !memcmp(s, names[i], k)) return i;
    }
    return 0;
}

void pc_trace_free(pc_trace *t) {
    if (!t) return;
    strtab_free(&t->strs);
    SPILL_FREE_ALL(t->cpu, t->gpu, t->mem, t->ctr, t->phase, t->pipe, t->agg);
    free(t->dev);
    free(t);
}

pc_cpu_event *pc_trace_add_cpu(pc_trace *t) {
    pc_cpu_event *e = SPILL_PUSH(t->cpu, t->ncpu, t->cap_cpu);
    memset(e, 0, sizeof *e);
    e->pid = e->tid = 0;
    e->ext_id = e->corr = e->seq = PC_NONE;
    e->fwd_tid = PC_NONE;
    return e;
}

int pc_trace_take_dur(pc_trace *t, int64_t dur) {
    if (dur < 0 || dur > PC_DUR_BUDGET - t->stats.dur_sum) {
        t->stats.bad_fields++;
        return 0;
    }
    t->stats.dur_sum += dur;
    return 1;
}

pc_gpu_event *pc_trace_add_gpu(pc_trace *t) {
    pc_gpu_event *e = SPILL_PUSH(t->gpu, t->ngpu, t->cap_gpu);
    memset(e, 0, sizeof *e);
    e->corr = e->ext_id = e->bytes = PC_NONE;
    e->device = e->stream = e->regs = e->smem = PC_NONE;
    e->blocks_per_sm = e->occupancy = -1.0f;
    return e;
}

pc_mem_event *pc_trace_add_mem(pc_trace *t) {
    pc_mem_event *e = SPILL_PUSH(t->mem, t->nmem, t->cap_mem);
    memset(e, 0, sizeof *e);
    e->total_allocated = e->total_reserved = e->addr = PC_NONE;
    e->device_id = PC_NONE;
    return e;
}

pc_counter *pc_trace_add_counter(pc_trace *t) {
    pc_counter *e = SPILL_PUSH(t->ctr, t->nctr, t->cap_ctr);
    memset(e, 0, sizeof *e);
    return e;
}

pc_device *pc_trace_device(pc_trace *t, int id) {
    for (size_t i = 0; i < t->ndev; i++)
        if (t->dev[i].id == id) return &t->dev[i];
    if (t->ndev >= PC_MAX_DEVICES) {
        /* a trace that describes more devices than any machine has: the rest
         * are read into a scratch record and counted (a warning says so) */
        static _Thread_local pc_device scratch;
        t->stats.devices_dropped++;
        memset(&scratch, 0, sizeof scratch);
        return &scratch;
    }
    pc_device *d = VEC_PUSH(t->dev, t->ndev, t->cap_dev);
    memset(d, 0, sizeof *d);
    d->id = id;
    d->warp_size = 32;
    return d;
}

void pc_trace_note_unknown(pc_trace *t, uint32_t cat) {
    t->stats.unknown++;
    for (int i = 0; i < t->nunknown_cat; i++)
        if (t->unknown_cat[i] == cat) { t->unknown_cat_n[i]++; return; }
    if (t->nunknown_cat < 16) {
        t->unknown_cat[t->nunknown_cat] = cat;
        t->unknown_cat_n[t->nunknown_cat++] = 1;
    }
}

int64_t pc_trace_unknown_count(const pc_trace *t, const char *cat) {
    for (int i = 0; i < t->nunknown_cat; i++)
        if (t->unknown_cat[i] && !strcmp(strtab_get(&t->strs, t->unknown_cat[i]), cat)) return t->unknown_cat_n[i];
    return 0;
}

#define CMP_TS(A, B)                                  \
    if ((A)->ts != (B)->ts) return (A)->ts < (B)->ts ? -1 : 1; \
    if ((A)->dur != (B)->dur) return (A)->dur > (B)->dur ? -1 : 1; /* outer first */

static int cmp_cpu(const void *a, const void *b) {
    const pc_cpu_event *x = a, *y = b;
    CMP_TS(x, y);
    return x->kind - y->kind;
}
static int cmp_gpu(const void *a, const void *b) {
    const pc_gpu_event *x = a, *y = b;
    CMP_TS(x, y);
    return x->kind - y->kind;
}
static int cmp_mem(const void *a, const void *b) { return PC_CMP(((const pc_mem_event *)a)->ts, ((const pc_mem_event *)b)->ts); }
static int cmp_ctr(const void *a, const void *b) {
    const pc_counter *x = a, *y = b;
    return x->ts != y->ts ? PC_CMP(x->ts, y->ts) : PC_CMP(x->series, y->series);
}
static int cmp_dev(const void *a, const void *b) { return PC_CMP(((const pc_device *)a)->id, ((const pc_device *)b)->id); }

/* Kineto writes an operator after the calls inside it, so arrays come nearly
 * in order: insertion sort fixes that in place in about linear time. It
 * gives up after 16 moves per element (the array is then still a
 * permutation) and returns 0. Stable. */
static int sort_nearly(void *base, size_t n, size_t es, int (*cmp)(const void *, const void *)) {
    char *a = base, tmp[128];
    size_t moves = 0, limit = 16 * n + 1024;
    if (es > sizeof tmp) return 0;
    for (size_t i = 1; i < n; i++) {
        if (cmp(a + (i - 1) * es, a + i * es) <= 0) continue;
        memcpy(tmp, a + i * es, es);
        size_t j = i - 1;
        while (j > 0 && cmp(a + (j - 1) * es, tmp) > 0) j--;
        memmove(a + (j + 1) * es, a + j * es, (i - j) * es);
        memcpy(a + j * es, tmp, es);
        moves += i - j;
        if (moves > limit) return 0;
    }
    return 1;
}

/* Traces are often written in time order per kind: skip the sort then. */
static int sorted(const void *a, size_t n, size_t sz, int (*cmp)(const void *, const void *)) {
    const char *p = a;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * sz, p + i * sz) > 0) return 0;
    return 1;
}

static void span(pc_trace *t, int64_t s, int64_t e) {
    if (s < t->t_min) t->t_min = s;
    if (e > t->t_max) t->t_max = e;
}

/* Appends cnt elements of size es from src to the vector *arr; returns where they
 * start, or NULL when cnt is 0. */
static void *append(void **arr, size_t *n, size_t *cap, const void *src, size_t cnt, size_t es) {
    if (!cnt) return NULL; /* nothing appended: *arr may still be NULL */
    spill_vec_reserve(arr, cap, *n + cnt, es);
    char *at = (char *)*arr + *n * es;
    memcpy(at, src, cnt * es);
    *n += cnt;
    return at;
}

/* The length of the longest suffix of the sorted x[0..n) whose elements are
 * after pivot (cmp > 0; or >= 0 when !strict). Galloping from the end: a
 * suffix of r elements costs about 2 log r comparisons. */
static size_t suffix_after(const char *x, size_t n, size_t es, const void *pivot, int strict,
                           int (*cmp)(const void *, const void *)) {
#define AFTER(q) (cmp(x + (n - (q)) * es, pivot) >= strict) /* q-th element from the end */
    size_t lo = 0, hi = 1; /* lo elements pass; the hi-th fails, or hi > n */
    while (hi <= n && AFTER(hi)) lo = hi, hi *= 2;
    if (hi > n) hi = n + 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (AFTER(mid)) lo = mid;
        else hi = mid;
    }
    return lo;
#undef AFTER
}

enum { RELEASE_STEP = 1 << 20 }; /* merged bytes of src handed back at a time */

/* t's vector *arr (n elements, sorted) and src's (cnt, sorted) as one sorted
 * vector, in place: t's grows, then both are merged from the back, so no
 * element is written before it was read; runs move as blocks. On ties t's
 * elements (earlier in the file) come first. Unsorted inputs are appended. */
static void merge_into(void **arr, size_t *n, size_t *cap, const void *src, size_t cnt, size_t es,
                       int (*cmp)(const void *, const void *), int merge) {
    spill_vec_reserve(arr, cap, *n + cnt, es);
    char *a = *arr;
    const char *b = src;
    size_t i = *n, j = cnt, k = *n + cnt, kept = cnt * es;
    while (merge && i > 0 && j > 0) {
        /* src's elements not before a's last go last (on ties src's go after) */
        size_t r = suffix_after(b, j, es, a + (i - 1) * es, 0, cmp);
        k -= r, j -= r;
        memcpy(a + k * es, b + j * es, r * es);
        /* src's pages behind the merge are not read again: hand them back
         * as a's tail fills, so the merge needs no memory of its own */
        if (kept - j * es >= RELEASE_STEP) {
            spill_release((char *)src + j * es, kept - j * es);
            kept = j * es;
        }
        if (!j) break;
        /* then a's elements after src's (new) last: at least one */
        r = suffix_after(a, i, es, b + (j - 1) * es, 1, cmp);
        k -= r, i -= r;
        memmove(a + k * es, a + i * es, r * es);
    }
    if (j) memcpy(a + i * es, b, j * es); /* what is left of src goes before a's tail */
    *n += cnt;
}
#define MERGE(T, S, F, CMP, SORTED) \
    merge_into((void **)&(T)->F, &(T)->n##F, &(T)->cap_##F, (S)->F, (S)->n##F, sizeof *(T)->F, CMP, SORTED)

/* s's host events, with t's string ids, merged into t's: on a second thread
 * while the device events are merged on the caller's (they share nothing) */
typedef struct absorb_job { pc_trace *t, *s; const uint32_t *map; int sorted; } absorb_job;
#define MAP(x) ((x) = map[(x)])
static void *absorb_cpu(void *arg) {
    absorb_job *j = arg;
    pc_trace *t = j->t, *s = j->s;
    const uint32_t *map = j->map;
    pc_cpu_event *c = s->cpu;
    for (size_t i = 0; i < s->ncpu; i++) {
        MAP(c[i].name), MAP(c[i].input_dims), MAP(c[i].input_types), MAP(c[i].concrete);
        if (c[i].tid < 0 && (size_t)-(int64_t)c[i].tid < s->strs.n) c[i].tid = -(int32_t)map[-(int64_t)c[i].tid];
    }
    MERGE(t, s, cpu, cmp_cpu, j->sorted);
    return NULL;
}

size_t pc_trace_merge_moves(const pc_trace *t, const pc_trace *s) {
    if (!t->sorted || !s->sorted) return SIZE_MAX;
    size_t moves = 0;
#define MOVES(F, CMP) \
    if (t->n##F && s->n##F) moves += suffix_after((const char *)t->F, t->n##F, sizeof *t->F, &s->F[0], 1, CMP)
    MOVES(cpu, cmp_cpu);
    MOVES(gpu, cmp_gpu);
    MOVES(mem, cmp_mem);
    MOVES(ctr, cmp_ctr);
#undef MOVES
    return moves;
}

void pc_trace_absorb(pc_trace *t, pc_trace *s) {
    /* string ids of s, as ids of t, given to s's elements before they move */
    uint32_t *map = xcalloc(s->strs.n ? s->strs.n : 1, sizeof *map);
    strtab_reserve(&t->strs, t->strs.n + s->strs.n);
    for (size_t i = 1; i < s->strs.n; i++) map[i] = strtab_intern(&t->strs, s->strs.strs[i], s->strs.lens[i]);
    t->strs.utf8_repaired += s->strs.utf8_repaired;
    int both_sorted = t->sorted && s->sorted;
    absorb_job job = {t, s, map, both_sorted};
    side sd;
    side_start(&sd, absorb_cpu, &job, s->ncpu > 65536 && s->ngpu > 65536);
    for (size_t i = 0; i < s->ngpu; i++) MAP(s->gpu[i].name);
    for (size_t i = 0; i < s->nctr; i++) MAP(s->ctr[i].name), MAP(s->ctr[i].series);
    MERGE(t, s, gpu, cmp_gpu, both_sorted);
    MERGE(t, s, mem, cmp_mem, both_sorted);
    MERGE(t, s, ctr, cmp_ctr, both_sorted);
    side_finish(&sd);
    t->sorted = both_sorted;
    append((void **)&t->phase, &t->nphase, &t->cap_phase, s->phase, s->nphase, sizeof *t->phase);
    pc_pipe_op *po = append((void **)&t->pipe, &t->npipe, &t->cap_pipe, s->pipe, s->npipe, sizeof *t->pipe);
    for (size_t i = 0; i < s->npipe; i++) MAP(po[i].type), MAP(po[i].children);
    pc_agg *a = append((void **)&t->agg, &t->nagg, &t->cap_agg, s->agg, s->nagg, sizeof *t->agg);
    for (size_t i = 0; i < s->nagg; i++) MAP(a[i].name), MAP(a[i].op), MAP(a[i].grid), MAP(a[i].block);
    for (size_t i = 0; i < s->ndev; i++) {
        pc_device *d = pc_trace_device(t, s->dev[i].id);
        if (!d->name && d->id == s->dev[i].id) {
            *d = s->dev[i];
            MAP(d->name);
            MAP(d->arch);
        }
    }
    for (int i = 0; i < s->nunknown_cat; i++) {
        uint32_t cat = map[s->unknown_cat[i]];
        int j = 0;
        while (j < t->nunknown_cat && t->unknown_cat[j] != cat) j++;
        if (j == t->nunknown_cat) {
            if (j == 16) continue;
            t->unknown_cat[j] = cat;
            t->unknown_cat_n[j] = 0;
            t->nunknown_cat++;
        }
        t->unknown_cat_n[j] += s->unknown_cat_n[i];
    }
    if (!t->clock_note) t->clock_note = s->clock_note;
    if (t->rank == PC_NONE) t->rank = s->rank;
    if (t->world_size == PC_NONE) t->world_size = s->world_size;
    if (!t->backend) t->backend = map[s->backend];
    t->schema_2021 |= s->schema_2021;
    if (!t->has_epoch && s->has_epoch) t->epoch_ns = s->epoch_ns, t->has_epoch = 1; /* baseTimeNanoseconds after the events: the last part reads it */
    if (s->prof_end) {
        if (!t->prof_end || s->prof_start < t->prof_start) t->prof_start = s->prof_start;
        if (s->prof_end > t->prof_end) t->prof_end = s->prof_end;
    }
    t->stats.events += s->stats.events;
    t->stats.metadata += s->stats.metadata;
    t->stats.flows += s->stats.flows;
    t->stats.unknown += s->stats.unknown;
    t->stats.bad_fields += s->stats.bad_fields;
    t->stats.dur_sum += s->stats.dur_sum;
    t->stats.devices_dropped += s->stats.devices_dropped;
    if (!t->stats.files_skipped) memcpy(t->stats.first_skipped, s->stats.first_skipped, sizeof t->stats.first_skipped);
    t->stats.files_skipped += s->stats.files_skipped;
    if (s->truncated) {
        t->truncated = 1;
        t->truncated_at = s->truncated_at;
    }
#undef MAP
    free(map);
    pc_trace_free(s);
}

void pc_trace_sort(pc_trace *t) {
    /* stable: ties (same start, duration and kind) stay in file order */
#define SORT(a, n, cap, cmp)                                                      \
    if ((n) && !sorted((a), (n), sizeof *(a), cmp) && !sort_nearly((a), (n), sizeof *(a), cmp)) { \
        (a) = spill_sorted((a), (n), sizeof *(a), cmp);                           \
        (cap) = (n);                                                              \
    }
    SORT(t->cpu, t->ncpu, t->cap_cpu, cmp_cpu);
    SORT(t->gpu, t->ngpu, t->cap_gpu, cmp_gpu);
    SORT(t->mem, t->nmem, t->cap_mem, cmp_mem);
    SORT(t->ctr, t->nctr, t->cap_ctr, cmp_ctr);
#undef SORT
    t->sorted = 1;
}

/* Drops the events of array a[n] (sorted by start; every event struct begins
 * with its int64 ts) that start before lo; returns how many. */
_Static_assert(offsetof(pc_cpu_event, ts) == 0 && offsetof(pc_gpu_event, ts) == 0 && offsetof(pc_mem_event, ts) == 0 &&
                   offsetof(pc_counter, ts) == 0,
               "drop_before reads each event's ts at its start");
static size_t drop_before(void *a, size_t *n, size_t es, int64_t lo) {
    size_t first = 0, hi = *n;
    while (first < hi) {
        size_t m = first + (hi - first) / 2;
        int64_t ts;
        memcpy(&ts, (const char *)a + m * es, sizeof ts);
        if (ts < lo) first = m + 1;
        else hi = m;
    }
    if (!first) return 0;
    memmove(a, (char *)a + first * es, (*n - first) * es);
    *n -= first;
    return first;
}

static void count_and_span(pc_trace *t);

void pc_trace_finish(pc_trace *t) {
    if (!t->sorted) pc_trace_sort(t);
    pc_clock_align(t); /* devices on another clock than the host's, moved onto it (may add a device) */
    if (t->ndev) qsort(t->dev, t->ndev, sizeof *t->dev, cmp_dev);
    count_and_span(t);
    /* the host span (OS runtime calls) is not the events': one that stretches the trace beyond
     * PC_TIME_LIMIT is dropped first, counted invalid */
    if (t->has_host_span && t->t_max > t->t_min && (uint64_t)t->t_max - (uint64_t)t->t_min > (uint64_t)PC_TIME_LIMIT) {
        t->has_host_span = 0;
        t->stats.bad_fields++;
        t->t_min = INT64_MAX, t->t_max = INT64_MIN;
        count_and_span(t);
    }
    /* a span beyond PC_TIME_LIMIT (146 years: only a broken or hostile input) would make
     * times from the trace's start leave the summary's range: the earliest events, those
     * more than PC_TIME_LIMIT before the last end, are dropped as invalid */
    if (t->t_max > t->t_min && (uint64_t)t->t_max - (uint64_t)t->t_min > (uint64_t)PC_TIME_LIMIT) {
        int64_t lo = t->t_max - PC_TIME_LIMIT;
        size_t dropped = drop_before(t->cpu, &t->ncpu, sizeof *t->cpu, lo) + drop_before(t->gpu, &t->ngpu, sizeof *t->gpu, lo) +
                         drop_before(t->mem, &t->nmem, sizeof *t->mem, lo) + drop_before(t->ctr, &t->nctr, sizeof *t->ctr, lo);
        t->stats.bad_fields += (int64_t)dropped;
        t->t_min = INT64_MAX, t->t_max = INT64_MIN;
        count_and_span(t);
    }
}

static void count_and_span(pc_trace *t) {
    memset(t->count_cpu, 0, sizeof t->count_cpu);
    memset(t->count_gpu, 0, sizeof t->count_gpu);
    for (size_t i = 0; i < t->ncpu; i++) {
        t->count_cpu[t->cpu[i].kind]++;
        span(t, t->cpu[i].ts, t->cpu[i].ts + t->cpu[i].dur);
    }
    for (size_t i = 0; i < t->ngpu; i++) {
        t->count_gpu[t->gpu[i].kind]++;
        span(t, t->gpu[i].ts, t->gpu[i].ts + t->gpu[i].dur);
    }
    for (size_t i = 0; i < t->nmem; i++) span(t, t->mem[i].ts, t->mem[i].ts);
    for (size_t i = 0; i < t->nctr; i++) span(t, t->ctr[i].ts, t->ctr[i].ts);
    if (t->has_host_span && (t->ncpu || t->ngpu)) span(t, t->host_start, t->host_end);
    if (t->t_min > t->t_max) t->t_min = t->t_max = 0;
}

size_t pc_trace_bytes(const pc_trace *t) {
    return t->cap_cpu * sizeof *t->cpu + t->cap_gpu * sizeof *t->gpu + t->cap_mem * sizeof *t->mem +
           t->cap_ctr * sizeof *t->ctr + t->strs.arena.used_total + t->strs.nslots * 8 + t->strs.cap * 12;
}

size_t pc_trace_held_bytes(const pc_trace *t) {
    size_t events = t->ncpu * sizeof *t->cpu + t->ngpu * sizeof *t->gpu + t->nmem * sizeof *t->mem + t->nctr * sizeof *t->ctr;
    size_t names = t->strs.arena.used_total + t->strs.nslots * 8 + t->strs.n * 12;
    return events + 2 * names;
}
