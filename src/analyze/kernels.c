/* Kernel summary per device, as nvprof's "GPU activities" table:
 *   Time(%) = kernel's total duration / all kernel time on that device;
 *   Total, Calls, Avg = Total/Calls, Min, Max of single launches.
 * Durations are summed, not unioned: concurrent kernels each count. */
#include "analyze.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

typedef struct krow {
    uint32_t name;
    int32_t device;
    int64_t total, calls, min, max;
} krow;

static int cmp_row(const void *a, const void *b) {
    const krow *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

void an_kernels(const pc_trace *t, const pc_analyze_opts *o, cJSON *s) {
    (void)o;
    hmap m = {0};
    krow *rows = NULL;
    size_t n = 0, cap = 0;
    int64_t total = 0, calls = 0;
    for (size_t i = 0; i < t->ngpu; i++) {
        const pc_gpu_event *g = &t->gpu[i];
        if (g->kind != GPU_KERNEL) continue;
        int created;
        uint32_t *slot = hmap_get(&m, hkey2((uint32_t)g->device, g->name), &created);
        if (created) {
            krow *r = VEC_PUSH(rows, n, cap);
            memset(r, 0, sizeof *r);
            r->name = g->name;
            r->device = g->device;
            r->min = INT64_MAX;
            *slot = (uint32_t)(n - 1);
        }
        krow *r = &rows[*slot];
        r->total += g->dur;
        r->calls++;
        if (g->dur < r->min) r->min = g->dur;
        if (g->dur > r->max) r->max = g->dur;
        total += g->dur;
        calls++;
    }
    hmap_free(&m);
    qsort(rows, n, sizeof *rows, cmp_row);
    cJSON *k = sj_obj(s, "kernels");
    sj_int(k, "total_ns", total);
    sj_int(k, "calls", calls);
    sj_int(k, "distinct", (int64_t)n);
    cJSON *devs = sj_arr(k, "devices");
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t dtot = 0, dcalls = 0;
        while (j < n && rows[j].device == rows[i].device) dtot += rows[j].total, dcalls += rows[j].calls, j++;
        cJSON *d = cJSON_CreateObject();
        sj_int(d, "device", rows[i].device);
        sj_int(d, "total_ns", dtot);
        sj_int(d, "calls", dcalls);
        cJSON *arr = sj_arr(d, "rows");
        for (size_t q = i; q < j; q++) {
            cJSON *r = cJSON_CreateObject();
            sj_str(r, "name", strtab_get(&t->strs, rows[q].name));
            sj_num(r, "time_pct", dtot ? 100.0 * (double)rows[q].total / (double)dtot : 0);
            sj_int(r, "total_ns", rows[q].total);
            sj_int(r, "calls", rows[q].calls);
            sj_num(r, "avg_ns", (double)rows[q].total / (double)rows[q].calls);
            sj_int(r, "min_ns", rows[q].min);
            sj_int(r, "max_ns", rows[q].max);
            cJSON_AddItemToArray(arr, r);
        }
        cJSON_AddItemToArray(devs, d);
        i = j;
    }
    free(rows);
}
