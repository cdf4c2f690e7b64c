/* CUDA API calls (nvprof's "API calls": runtime and driver calls by name)
 * and memory transfers and sets by kind: count, bytes, time, and achieved
 * bandwidth = bytes / summed duration (GB/s = bytes per ns). */
#include "analyze.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

typedef struct arow { uint32_t key; int kind; int64_t total, calls, min, max, bytes; } arow;

static int cmp_total(const void *a, const void *b) {
    const arow *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static void add(arow *r, int64_t dur) {
    if (r->calls == 0 || dur < r->min) r->min = dur;
    if (dur > r->max) r->max = dur;
    r->total += dur;
    r->calls++;
}

/* a transfer's row: memset, or a copy's direction with both memory kinds */
enum { NXKEY = COPY_N * MEM_N * MEM_N + MEM_N };
static unsigned xfer_key(const pc_gpu_event *g) {
    unsigned src = g->src_mem < MEM_N ? g->src_mem : 0, dst = g->dst_mem < MEM_N ? g->dst_mem : 0;
    if (g->kind == GPU_MEMSET) return COPY_N * MEM_N * MEM_N + src; /* "Memset (Device)" */
    return ((g->copy_kind < COPY_N ? g->copy_kind : 0) * MEM_N + src) * MEM_N + dst;
}

void an_transfers(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    const pc_trace *t = c->t;
    hmap m = {0};
    arow *rows = NULL;
    size_t n = 0, cap = 0;
    int64_t total = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind != CPU_RUNTIME && e->kind != CPU_DRIVER) continue;
        int created;
        uint32_t *slot = hmap_get(&m, e->name, &created);
        if (created) {
            arow *r = SPILL_PUSH(rows, n, cap);
            memset(r, 0, sizeof *r);
            r->key = e->name;
            r->kind = e->kind;
            *slot = (uint32_t)(n - 1);
        }
        add(&rows[*slot], e->dur);
        total += e->dur;
    }
    hmap_free(&m);
    if (n) spill_sort(rows, n, sizeof *rows, cmp_total);
    cJSON *api = sj_obj(s, "api_calls");
    PC_ADD_REC(ps, api, api_calls)->total_ns = total;
    pc_table *arr = pc_summary_add_table(ps, api, "rows", TAB_api);
    for (size_t i = 0; i < n; i++) {
        tab_api *j = tab_push(arr);
        j->name = pc_summary_utf8(ps, strtab_get(&t->strs, rows[i].key));
        j->api = rows[i].kind == CPU_DRIVER ? "driver" : "runtime";
        j->time_pct = pc_figure(total ? 100.0 * (double)rows[i].total / (double)total : 0);
        j->total_ns = rows[i].total;
        j->calls = rows[i].calls;
        j->avg_ns = pc_figure((double)rows[i].total / (double)rows[i].calls);
        j->min_ns = rows[i].min;
        j->max_ns = rows[i].max;
    }
    spill_free(rows);

    /* memcpy / memset by kind */
    arow tr[NXKEY];
    memset(tr, 0, sizeof tr);
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        if (g->kind != GPU_MEMCPY && g->kind != GPU_MEMSET) continue;
        unsigned key = xfer_key(g);
        arow *r = &tr[key];
        r->key = key;
        r->kind = g->kind;
        add(r, g->dur);
        if (g->bytes != PC_NONE) r->bytes += g->bytes;
    }
    spill_sort(tr, NXKEY, sizeof *tr, cmp_total);
    cJSON *x = sj_obj(s, "transfers");
    pc_table *xr = pc_summary_add_table(ps, x, "rows", TAB_transfer);
    int64_t xt = 0, xb = 0;
    for (int i = 0; i < NXKEY; i++) {
        if (!tr[i].calls) continue;
        char label[96];
        unsigned k = (unsigned)tr[i].key, dir = k / (MEM_N * MEM_N), src = k / MEM_N % MEM_N;
        if (tr[i].kind == GPU_MEMSET) snprintf(label, sizeof label, "Memset (%s)", pc_mem_name[k - COPY_N * MEM_N * MEM_N]);
        else snprintf(label, sizeof label, "Memcpy %s (%s -> %s)", pc_copy_name[dir], pc_mem_name[src], pc_mem_name[k % MEM_N]);
        tab_transfer *j = tab_push(xr);
        j->kind = pc_summary_str(ps, label);
        j->op = tr[i].kind == GPU_MEMSET ? "memset" : "memcpy";
        j->direction = tr[i].kind == GPU_MEMSET ? "" : pc_copy_name[dir];
        j->source_memory = tr[i].kind == GPU_MEMSET ? "" : pc_mem_name[src];
        j->count = tr[i].calls;
        j->bytes = tr[i].bytes;
        j->total_ns = tr[i].total;
        j->avg_ns = pc_figure((double)tr[i].total / (double)tr[i].calls);
        if (tr[i].total > 0 && tr[i].bytes > 0) j->gbs = pc_figure((double)tr[i].bytes / (double)tr[i].total);
        xt += tr[i].total;
        xb += tr[i].bytes;
    }
    tab_transfers *xr_tot = PC_ADD_REC(ps, x, transfers);
    xr_tot->total_ns = xt;
    xr_tot->bytes = xb;
}
