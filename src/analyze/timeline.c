/* The timeline of one representative step (the median step; the whole trace
 * when it has no steps): one row per CPU thread and per GPU stream, with the
 * top-level operators, API calls and data loading on CPU rows and kernels,
 * NCCL kernels, memcpy and memset on GPU rows. Boxes closer than 1/2000 of
 * the window are merged with their neighbour of the same category, so the
 * summary stays small whatever the step holds. */
#include "analyze.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>


enum { MAX_ROWS = 24, MAX_BOXES = 6000 };

typedef struct tbox { int64_t s, e; const char *cat; } tbox;
typedef struct trow { int gpu; int64_t a, b; char label[96]; tbox *v; size_t n, cap; } trow;

static trow *row_for(trow *rows, int *nr, int gpu, int64_t a, int64_t b) {
    for (int i = 0; i < *nr; i++)
        if (rows[i].gpu == gpu && rows[i].a == a && rows[i].b == b) return &rows[i];
    if (*nr >= MAX_ROWS) return NULL;
    trow *r = &rows[(*nr)++];
    memset(r, 0, sizeof *r);
    r->gpu = gpu, r->a = a, r->b = b;
    return r;
}

static void add_box(trow *r, int64_t s, int64_t e, const char *cat, int64_t res) {
    if (!r) return;
    if (r->n && r->v[r->n - 1].cat == cat && s - r->v[r->n - 1].e < res) {
        if (e > r->v[r->n - 1].e) r->v[r->n - 1].e = e;
        return;
    }
    tbox *b = SPILL_PUSH(r->v, r->n, r->cap);
    b->s = s, b->e = e, b->cat = cat;
}

static int cmp_rows(const void *x, const void *y) {
    const trow *a = x, *b = y;
    if (a->gpu != b->gpu) return a->gpu - b->gpu;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

void an_timeline(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    const pc_trace *t = c->t;
    /* the median step */
    size_t pick = 0;
    if (c->nsteps > 1) {
        int64_t *d = spill_alloc(c->nsteps * sizeof *d);
        for (size_t i = 0; i < c->nsteps; i++) d[i] = c->steps[i].end - c->steps[i].start;
        int64_t med = (int64_t)PC_OR(PC_REC(ps, steps)->median_ns, 0), best = INT64_MAX;
        for (size_t i = 0; i < c->nsteps; i++) {
            int64_t diff = d[i] > med ? d[i] - med : med - d[i];
            if (diff < best) best = diff, pick = i;
        }
        spill_free(d);
    }
    int64_t ws = c->steps[pick].start, we = c->steps[pick].end;
    int64_t res = (we - ws) / 2000 + 1;
    trow rows[MAX_ROWS];
    int nr = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->ts >= we || e->ts + e->dur <= ws) continue;
        const char *cat = NULL;
        if (e->kind == CPU_DATALOADER || name_is_dataloader(strtab_get(&t->strs, e->name))) cat = "dataloader";
        else if (e->kind == CPU_OP && links_op_outer(t, &c->links, (int32_t)i, 0) < 0) cat = "cpu";
        if (!cat) continue;
        add_box(row_for(rows, &nr, 0, e->pid, e->tid), e->ts, e->ts + e->dur, cat, res);
    }
    /* API calls drawn over the operators of their thread */
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if ((e->kind != CPU_RUNTIME && e->kind != CPU_DRIVER) || e->ts >= we || e->ts + e->dur <= ws) continue;
        add_box(row_for(rows, &nr, 0, e->pid, e->tid), e->ts, e->ts + e->dur, "runtime", res);
    }
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        if (g->ts >= we || g->ts + g->dur <= ws) continue;
        const char *cat = g->kind == GPU_KERNEL ? (name_is_nccl(strtab_get(&t->strs, g->name)) ? "communication" : "kernel")
                          : g->kind == GPU_MEMCPY ? "memcpy" : g->kind == GPU_MEMSET ? "memset" : NULL;
        if (!cat) continue;
        add_box(row_for(rows, &nr, 1, g->device, g->stream), g->ts, g->ts + g->dur, cat, res);
    }
    spill_sort(rows, (size_t)nr, sizeof *rows, cmp_rows);
    cJSON *tl = sj_obj(s, "timeline");
    tab_timeline *tr = PC_ADD_REC(ps, tl, timeline);
    tr->step = pc_summary_utf8(ps, c->step_source ? strtab_get(&t->strs, c->steps[pick].name) : "whole trace");
    tr->start_ns = ws - t->t_min;
    tr->duration_ns = we - ws;
    cJSON *arr = sj_arr(tl, "rows");
    size_t total = 0;
    for (int i = 0; i < nr; i++) {
        trow *r = &rows[i];
        cJSON *j = cJSON_CreateObject();
        char label[96];
        if (r->gpu) snprintf(label, sizeof label, "GPU %lld stream %lld", (long long)r->a, (long long)r->b);
        else if (r->b < 0) snprintf(label, sizeof label, "CPU %s", strtab_get(&t->strs, (uint32_t)-r->b));
        else snprintf(label, sizeof label, "CPU thread %lld", (long long)r->b);
        sj_str(j, "label", label);
        sj_str(j, "kind", r->gpu ? "gpu" : "cpu");
        cJSON *bx = sj_arr(j, "boxes");
        for (size_t k = 0; k < r->n && total < MAX_BOXES; k++, total++) {
            int64_t a = r->v[k].s < ws ? ws : r->v[k].s, z = r->v[k].e > we ? we : r->v[k].e;
            cJSON_AddItemToArray(bx, pc_tl_box_item(a - ws, z - ws, r->v[k].cat));
        }
        cJSON_AddItemToArray(arr, j);
        spill_free(r->v);
    }
    tr->truncated = total >= MAX_BOXES;
}
