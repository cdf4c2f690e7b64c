/* Kernel summary per device, as nvprof's "GPU activities" table:
 *   Time(%) = kernel's total duration / all kernel time on that device;
 *   Total, Calls, Avg = Total/Calls, Min, Max of single launches.
 * Durations are summed, not unioned: concurrent kernels each count.
 * Plus, per kernel: the operator that launched most of its time, launch
 * configuration of its longest launch, est. achieved occupancy (the
 * duration-weighted mean of Kineto's per-launch estimate, as PyTorch's
 * TensorBoard plugin weights it), and Tensor Core use by name.
 * Per step (with 3 steps or more): each kernel's summed durations in each
 * step but the first (a launch counts in the step whose range launched it,
 * else the step whose window it starts in, as the step phases count it), their
 * mean and sample standard deviation, a step without the kernel counting 0:
 * the kernel's own noise, which perfcard diff tests its change against. The
 * sums are kept per (kernel, step) pair that occurs, then two passes over the
 * pairs (mean, then squared deviations): exact, no cancellation. */
#include "analyze.h"
#include "../util/spill.h"
#include "flops.h"
#include "kfamily.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tensor Core use by name: the matrix-core flag of kfamily.c's rules (docs/tensor-cores.md) */
int kernel_uses_tensor_cores(const char *name) { return kf_matrix_core(name); }

int kernel_is_conv_gemm(const char *name) {
    static const char *const yes[] = {"gemm", "scudnn", "dgrad", "wgrad", "convolve", "winograd", "conv2d", "conv3d", "conv1d",
                                      "fft2d", "fft3d", "fprop", "cutlass", NULL};
    static const char *const no[] = {"bn_", "batch_norm", "batchnorm", "elementwise", "scalepacked", "computeoffsets",
                                     "nchwtonhwc", "nhwctonchw", "flip_filter", "im2col", "col2im", NULL};
    char buf[1024];
    size_t n = strlen(name);
    char *low = n < sizeof buf ? buf : xmalloc(n + 1);
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)name[i]);
    int y = 0;
    for (int i = 0; yes[i] && !y; i++) y = strstr(low, yes[i]) != NULL;
    for (int i = 0; no[i] && y; i++) y = strstr(low, no[i]) == NULL;
    if (low != buf) free(low);
    return y;
}

typedef struct krow {
    uint32_t name;
    int32_t device;
    int64_t total, calls, min, max;
    int64_t longest;          /* gpu index of the longest launch */
    double occ_weighted, occ_time;
    uint32_t op;              /* operator name with the most time, 0 if none */
    int64_t op_time;
    int64_t step_total;       /* its time in the steps counted */
    double step_m2;           /* sum of squared deviations of its per-step sums from their mean */
    long cur_step;            /* the step it last ran in (0: none yet) and that pair's kstep */
    size_t cur_pair;
} krow;

/* a kernel's summed durations in one step */
typedef struct kstep { uint32_t row, step; int64_t ns; } kstep;

/* The kstep of (row ri, step si), made when new. Kernels come in time order,
 * so a kernel's steps mostly come in order too: a step later than its
 * latest is a new pair, its latest is the current one, and only a step
 * before its latest needs a map of every pair (made then, from the pairs so
 * far). A map from the start held 2.1 million pairs, 64 MiB of malloc, on
 * the 10 GB bench trace's 239,346 steps (and its spilled twin was paged in
 * and out at random: 24 s instead of 4). The pairs come in the same order
 * either way. */
static kstep *step_pair(krow *rows, uint32_t ri, long si, kstep **ks, size_t *nks, size_t *capks, hmap *stm) {
    krow *r = &rows[ri];
    if (si == r->cur_step) return &(*ks)[r->cur_pair];
    if (!stm->cap && si < r->cur_step) /* out of order: the map from now on */
        for (size_t q = 0; q < *nks; q++) *hmap_get(stm, hkey2((*ks)[q].row, (*ks)[q].step), NULL) = (uint32_t)q;
    int created = 1;
    uint32_t *ss = stm->cap ? hmap_get(stm, hkey2(ri, (uint32_t)si), &created) : NULL;
    if (created) {
        *SPILL_PUSH(*ks, *nks, *capks) = (kstep){ri, (uint32_t)si, 0};
        if (ss) *ss = (uint32_t)(*nks - 1);
    }
    r->cur_pair = ss ? *ss : *nks - 1;
    r->cur_step = si; /* the latest, which is the highest until the map is made */
    return &(*ks)[r->cur_pair];
}

/* rows by device, then total time (largest first), then name: sorted as
 * small keys, so a million rows in spill files are read once, not moved */
typedef struct kkey { int64_t total; int32_t device; uint32_t name, idx; } kkey;
static int cmp_kkey(const void *a, const void *b) {
    const kkey *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The columns every kernel row starts with (min or max PC_NONE: null). */
static tab_kernel *kernel_row(pc_summary *s, pc_table *tab, const pc_trace *t, uint32_t name, int64_t total, int64_t calls,
                              int64_t all, int64_t min, int64_t max, uint32_t op) {
    tab_kernel *r = tab_push(tab);
    r->name = pc_summary_str(s, strtab_get(&t->strs, name));
    r->time_pct = all ? 100.0 * (double)total / (double)all : 0;
    r->total_ns = total;
    r->calls = calls;
    r->avg_ns = calls ? (double)total / (double)calls : 0;
    if (min != PC_NONE) r->min_ns = min;
    if (max != PC_NONE) r->max_ns = max;
    if (op) r->operator = pc_summary_str(s, strtab_get(&t->strs, op));
    return r;
}

/* The columns every kernel row ends with; returns 1 when it ran on Tensor Cores.
 * The row's Tensor Core label: by the kernel's name (docs/tensor-cores.md),
 * and "no" whatever the name says on a device the trace gives a compute
 * capability below 7.0 for (cc_major 0: not given), which has none. */
static int kernel_row_tc(tab_kernel *r, int eligible, int cc_major) {
    int tc = cc_major > 0 && cc_major < 7 ? 0 : kernel_uses_tensor_cores(r->name);
    r->tensor_cores = tc > 0 ? "yes" : tc == 0 ? "no" : "unknown";
    r->operator_tc_eligible = (tk_B)(eligible != 0);
    return tc > 0;
}

/* the compute capability's major number the trace gives device id; 0 if none */
static int device_cc_major(const pc_trace *t, int id) {
    for (size_t i = 0; i < t->ndev; i++)
        if (t->dev[i].id == id) return t->dev[i].cc_major;
    return 0;
}

static int cmp_agg_total(const void *a, const void *b) {
    const pc_agg *x = *(const pc_agg *const *)a, *y = *(const pc_agg *const *)b;
    return x->total > y->total ? -1 : x->total < y->total;
}

/* Inputs that carry a kernel table instead of kernel events (MindSpore's
 * gpu_activity_data): the same columns, from the table. */
static int kernels_from_table(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    const pc_trace *t = c->t;
    int64_t total = 0, calls = 0, n = 0;
    for (size_t i = 0; i < t->nagg; i++)
        if (t->agg[i].what == AGG_KERNEL) total += t->agg[i].total, calls += t->agg[i].calls, n++;
    if (!n) return 0;
    cJSON *k = sj_obj(s, "kernels");
    tab_kernels *kr = PC_ADD_REC(ps, k, kernels);
    kr->total_ns = total;
    kr->calls = calls;
    kr->distinct = n;
    kr->source = "kernel table of the input";
    cJSON *d = cJSON_CreateObject();
    tab_kernel_device *kd = PC_ADD_REC(ps, d, kernel_device);
    kd->device = c->t->rank != PC_NONE ? c->t->rank : 0;
    kd->total_ns = total;
    kd->calls = calls;
    pc_table *arr = pc_summary_add_table(ps, d, "rows", TAB_kernel);
    int64_t tc_ns = 0;
    /* largest first */
    const pc_agg **v = spill_alloc((size_t)n * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < t->nagg; i++)
        if (t->agg[i].what == AGG_KERNEL) v[m++] = &t->agg[i];
    spill_sort(v, m, sizeof *v, cmp_agg_total);
    for (size_t q = 0; q < m; q++) {
        const pc_agg *a = v[q];
        tab_kernel *r = kernel_row(ps, arr, t, a->name, a->total, a->calls, total, a->min, a->max, a->op);
        if (a->grid) r->grid = pc_summary_str(ps, strtab_get(&t->strs, a->grid));
        if (a->block) r->block = pc_summary_str(ps, strtab_get(&t->strs, a->block));
        if (kernel_row_tc(r, 0, c->dev0 ? c->dev0->cc_major : 0)) tc_ns += a->total;
    }
    spill_free(v);
    cJSON_AddItemToArray(sj_arr(k, "devices"), d);
    kr->tensor_core_ns = tc_ns;
    kr->tensor_core_pct = pc_figure(total ? 100.0 * (double)tc_ns / (double)total : 0);
    return 1;
}

/* kernels.families, for a trace with GPU activities and no CPU operator
 * (GPU-only captures): every kernel, copy and memset by kfamily.c's family
 * of its name, classified once per interned name. Rows by time, largest
 * first, then family order; families without activity are left out. */
static void family_table(const an_ctx *c, pc_summary *ps, cJSON *k) {
    const pc_trace *t = c->t;
    for (size_t i = 0; i < t->ncpu; i++)
        if (t->cpu[i].kind == CPU_OP) return;
    typedef struct fam { int64_t names, calls, ns, mc_ns; } fam;
    fam f[KF_NFAMILY];
    memset(f, 0, sizeof f);
    int64_t all = 0;
    /* per name: 0 unseen, else 1 + family, and bit 7 when on matrix cores */
    uint8_t *cls = spill_calloc(t->strs.n ? t->strs.n : 1, 1);
    hmap seen = {0};
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) continue;
        assert(e->name < t->strs.n);
        if (!cls[e->name]) {
            kf_info ki = kf_classify(strtab_get(&t->strs, e->name));
            int cc = device_cc_major(t, e->device);
            int mc = e->kind == GPU_KERNEL && ki.mc > 0 && !(cc > 0 && cc < 7);
            cls[e->name] = (uint8_t)((1 + ki.family) | (mc ? 0x80 : 0));
        }
        int fi = (cls[e->name] & 0x7f) - 1;
        int created;
        hmap_get(&seen, hkey2((uint32_t)e->device, e->name), &created);
        f[fi].names += created;
        f[fi].calls++;
        f[fi].ns += e->dur;
        if (cls[e->name] & 0x80) f[fi].mc_ns += e->dur;
        all += e->dur;
    }
    hmap_free(&seen);
    spill_free(cls);
    int order[KF_NFAMILY], n = 0;
    for (int i = 0; i < KF_NFAMILY; i++)
        if (f[i].calls) order[n++] = i;
    if (!n) return;
    for (int i = 1; i < n; i++) /* insertion sort by time, ties in family order */
        for (int j = i; j > 0 && f[order[j]].ns > f[order[j - 1]].ns; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    pc_table *tab = pc_summary_add_table(ps, k, "families", TAB_kernel_family);
    for (int q = 0; q < n; q++) {
        const fam *x = &f[order[q]];
        tab_kernel_family *r = tab_push(tab);
        r->family = kf_family_name(order[q]);
        r->distinct = x->names;
        r->calls = x->calls;
        r->time_ns = x->ns;
        r->time_pct = pc_figure(all > 0 ? 100.0 * (double)x->ns / (double)all : 0);
        r->matrix_core_pct = pc_figure(x->ns > 0 ? 100.0 * (double)x->mc_ns / (double)x->ns : 0);
    }
}

/* an_kernels' state: rows per (device, kernel name) and, per (row,
 * operator) pair, the time the operator launched (for the row's operator
 * of most time); per (row, step) pair the kernel's time in the steps after
 * the first, when the trace has 3 steps or more (per_step); the totals. */
typedef struct kn_pass {
    const an_ctx *c;
    hmap m, opm, stm;
    krow *rows;
    int64_t *optime; /* per (row, op) pair */
    size_t n, cap, nop, capop;
    kstep *ks;
    size_t nks, capks;
    int per_step;
    int64_t total, calls;
} kn_pass;

/* The rows' map sized once for the distinct kernel names (of one device). */
static void kn_reserve(kn_pass *p) {
    const pc_trace *t = p->c->t;
    uint8_t *seen = spill_calloc(t->strs.n ? t->strs.n : 1, 1);
    size_t names = 0;
    for (size_t i = 0; i < t->ngpu; i++)
        if (t->gpu[i].kind == GPU_KERNEL && !seen[t->gpu[i].name]) seen[t->gpu[i].name] = 1, names++;
    spill_free(seen);
    hmap_reserve(&p->m, names);
}

/* Kernel i into its row: time, calls, shortest and longest (and which
 * launch), occupancy weighted by time, the operator of most time, and with
 * per_step its time in its step (the step whose range launched it, else
 * whose window it starts in; the first step not counted). */
static void kn_event(kn_pass *p, size_t i) {
    const an_ctx *c = p->c;
    const pc_trace *t = c->t;
    const pc_gpu_event *g = &t->gpu[i];
    int created;
    uint32_t *slot = hmap_get(&p->m, hkey2((uint32_t)g->device, g->name), &created);
    if (created) {
        krow *r = SPILL_PUSH(p->rows, p->n, p->cap);
        memset(r, 0, sizeof *r);
        r->name = g->name;
        r->device = g->device;
        r->min = INT64_MAX;
        r->longest = (int64_t)i;
        *slot = (uint32_t)(p->n - 1);
    }
    uint32_t ri = *slot;
    krow *r = &p->rows[ri];
    r->total += g->dur;
    r->calls++;
    if (g->dur < r->min) r->min = g->dur;
    if (g->dur > r->max) r->max = g->dur, r->longest = (int64_t)i;
    if (g->occupancy >= 0) {
        r->occ_weighted += (double)g->occupancy * (double)g->dur;
        r->occ_time += (double)g->dur;
    }
    int32_t op = c->links.gpu_inner[i];
    if (op >= 0) {
        uint32_t *os = hmap_get(&p->opm, hkey2(ri, t->cpu[op].name), &created);
        if (created) { *SPILL_PUSH(p->optime, p->nop, p->capop) = 0; *os = (uint32_t)(p->nop - 1); }
        int64_t v = p->optime[*os] += g->dur;
        if (v > r->op_time) r->op_time = v, r->op = t->cpu[op].name;
    }
    if (p->per_step) {
        int32_t L = c->links.gpu_launch[i];
        long si = L >= 0 ? step_span_index(c, t->cpu[L].ts) : step_index(c, g->ts);
        if (si >= 1) {
            step_pair(p->rows, ri, si, &p->ks, &p->nks, &p->capks, &p->stm)->ns += g->dur;
            r->step_total += g->dur;
        }
    }
    p->total += g->dur;
    p->calls++;
}

/* Per row, the squared deviations of its per-step sums from their mean
 * over the nsteps counted: the pairs that occur, then the steps without
 * the kernel (0 each). After: each row's time in the steps within its
 * time. */
static void kn_step_m2(kn_pass *p, double nsteps) {
    size_t *present = xcalloc(p->n ? p->n : 1, sizeof *present);
    for (size_t q = 0; q < p->nks; q++) {
        krow *r = &p->rows[p->ks[q].row];
        double dv = (double)p->ks[q].ns - (double)r->step_total / nsteps;
        r->step_m2 += dv * dv;
        present[p->ks[q].row]++;
    }
    for (size_t q = 0; q < p->n; q++) {
        assert(p->rows[q].step_total <= p->rows[q].total && present[q] <= (size_t)nsteps);
        double mean = (double)p->rows[q].step_total / nsteps;
        p->rows[q].step_m2 += (nsteps - (double)present[q]) * mean * mean;
    }
    free(present);
}

/* kernels.devices[] element of the device of rows rs[0..nr) (their order
 * by time): its totals and its rows, each with the launch configuration of
 * its longest launch, its occupancy, its per-step mean and deviation, and
 * whether it ran on Tensor Cores. Returns the Tensor Core rows' time. */
static int64_t kn_write_device(const kn_pass *p, pc_summary *ps, cJSON *devs, const krow *const *rs, size_t nr, double nsteps) {
    const pc_trace *t = p->c->t;
    int64_t dtot = 0, dcalls = 0, tc_ns = 0;
    for (size_t q = 0; q < nr; q++) dtot += rs[q]->total, dcalls += rs[q]->calls;
    cJSON *d = cJSON_CreateObject();
    tab_kernel_device *kd = PC_ADD_REC(ps, d, kernel_device);
    kd->device = rs[0]->device;
    kd->total_ns = dtot;
    kd->calls = dcalls;
    pc_table *arr = pc_summary_add_table(ps, d, "rows", TAB_kernel);
    for (size_t q = 0; q < nr; q++) {
        const krow *kr = rs[q];
        const pc_gpu_event *lg = &t->gpu[kr->longest];
        tab_kernel *r = kernel_row(ps, arr, t, kr->name, kr->total, kr->calls, dtot, kr->min, kr->max, kr->op);
        char buf[64];
        if (lg->grid[0]) {
            snprintf(buf, sizeof buf, "[%u, %u, %u]", lg->grid[0], lg->grid[1], lg->grid[2]);
            r->grid = pc_summary_str(ps, buf);
            snprintf(buf, sizeof buf, "[%u, %u, %u]", lg->block[0], lg->block[1], lg->block[2]);
            r->block = pc_summary_str(ps, buf);
        }
        if (lg->regs >= 0) r->registers_per_thread = lg->regs; /* PC_NONE or a trace's nonsense: null */
        if (lg->smem >= 0) r->shared_memory_bytes = lg->smem;
        if (kr->occ_time > 0) r->est_occupancy_pct = kr->occ_weighted / kr->occ_time;
        if (p->per_step) {
            /* as summary.json keeps them: a diff of traces equals a diff of their summaries */
            r->step_mean_ns = pc_figure((double)kr->step_total / nsteps);
            r->step_sd_ns = pc_figure(sqrt(kr->step_m2 / (nsteps - 1)));
        }
        int elig = kr->op ? op_tc_eligible(strtab_get(&t->strs, kr->op)) : 0;
        int cc = device_cc_major(t, kr->device);
        if (kernel_row_tc(r, elig && (cc == 0 || cc >= 7), cc)) tc_ns += kr->total;
    }
    cJSON_AddItemToArray(devs, d);
    return tc_ns;
}

/* The kernels section (an input's own kernel table when it has one), in
 * phases: every kernel into its row, the per-step deviations, the rows by
 * device and time, each device's rows, the families. After: the rows'
 * time and calls sum to the section's. */
void an_kernels(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    if (kernels_from_table(c, ps)) return;
    kn_pass p = {.c = c, .per_step = c->step_source && c->nsteps >= 3};
    kn_reserve(&p);
    for (size_t i = 0; i < t->ngpu; i++)
        if (t->gpu[i].kind == GPU_KERNEL) kn_event(&p, i);
    hmap_free(&p.stm);
    double nsteps_counted = p.per_step ? (double)(c->nsteps - 1) : 0;
    if (p.per_step) kn_step_m2(&p, nsteps_counted);
    spill_free(p.ks);
    hmap_free(&p.m);
    hmap_free(&p.opm);
    spill_free(p.optime);
    size_t n = p.n;
    kkey *ord = xmalloc((n ? n : 1) * sizeof *ord);
    for (size_t i = 0; i < n; i++) ord[i] = (kkey){p.rows[i].total, p.rows[i].device, p.rows[i].name, (uint32_t)i};
    if (n) qsort(ord, n, sizeof *ord, cmp_kkey);
    const krow **rs = xmalloc((n ? n : 1) * sizeof *rs);
    for (size_t i = 0; i < n; i++) rs[i] = &p.rows[ord[i].idx];
    free(ord);
    cJSON *k = sj_obj(ps->doc, "kernels");
    tab_kernels *ks = PC_ADD_REC(ps, k, kernels);
    ks->total_ns = p.total;
    ks->calls = p.calls;
    ks->distinct = (int64_t)n;
    if (p.per_step) ks->steps_counted = (int64_t)nsteps_counted;
    int64_t tc_ns = 0, sum = 0, calls = 0;
    cJSON *devs = sj_arr(k, "devices");
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && rs[j]->device == rs[i]->device; j++) sum += rs[j]->total, calls += rs[j]->calls;
        tc_ns += kn_write_device(&p, ps, devs, rs + i, j - i, nsteps_counted);
    }
    assert(sum == p.total && calls == p.calls && tc_ns <= p.total);
    ks->tensor_core_ns = tc_ns;
    ks->tensor_core_pct = pc_figure(p.total ? 100.0 * (double)tc_ns / (double)p.total : 0);
    family_table(c, ps, k);
    free(rs);
    spill_free(p.rows);
}
