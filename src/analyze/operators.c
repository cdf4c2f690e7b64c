/* Operators, as PyTorch's key_averages().table():
 *   Calls; CPU total = summed durations of the op's calls; Self CPU = CPU
 *   total minus the time of the ranges directly inside each call (child ops
 *   and API calls on the same thread); Self device = GPU time (kernels,
 *   memcpy, memset) launched directly by the op (it is the innermost cpu_op
 *   around the launch); Device total = GPU time launched by the op or any op
 *   inside it. Averages divide by Calls.
 * GPU work reaches an op through its correlation id (kernel -> runtime call ->
 * enclosing cpu_op), else through the External id the op shares with it.
 * GPU time that reaches no op is the "unattributed" row.
 * Also: top-level operators (what the user called, e.g. aten::conv2d) as
 * MindInsight's operator types, modules (nn.Module python_function frames),
 * FLOPs and bytes (flops.h), and percent of peak (peaks.h). */
#include "analyze.h"
#include "kfamily.h"
#include "../util/spill.h"
#include "flops.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

typedef struct oprow oprow;
typedef struct kroof kroof;
static void roofline(const an_ctx *c, pc_summary *ps, cJSON *ops, const oprow *rows, const uint32_t *ord, size_t n, kroof *ks, size_t nk);

typedef struct oprow {
    uint32_t name, dims;
    int64_t calls, self_cpu, cpu_total, self_dev, dev_total;
    int fwd, bwd;
    double flops, bytes;
    double dev_flops, dev_bytes; /* of the calls that ran device work: what the rates divide */
    int64_t flops_calls, misaligned, gemm_calls;
    int64_t flops_dev_ns;     /* device total of the calls that have FLOPs */
    int dtype;
    int64_t tc_ns, gpu_ns_kernels; /* kernel time launched under it, and of that on Tensor Cores */
    int eligible;
} oprow;

/* A kernel on the roofline: the launches that were the whole device work of
 * an operator call with FLOPs, and what those calls' FLOPs and bytes sum to. */
typedef struct kroof {
    uint32_t name;
    int dtype, tc;
    double flops, bytes;
    int64_t ns, launches;
} kroof;

/* Top-level operators and modules: what is summed per name. */
typedef struct toprow {
    uint32_t name;
    int64_t calls, cpu_total, dev_total;
} toprow;

/* The order rows are shown in: device time, then CPU time (largest first),
 * then name, then first appearance. Sorted as small keys so that a million
 * rows (in spill files) are read once, not compared and moved in place. */
typedef struct okey { int64_t dev, cpu; uint32_t name, idx; } okey;
static int cmp_okey(const void *a, const void *b) {
    const okey *x = a, *y = b;
    if (x->dev != y->dev) return x->dev > y->dev ? -1 : 1;
    if (x->cpu != y->cpu) return x->cpu > y->cpu ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}
/* The order of the n keys k[i] (with idx = i), which it frees. */
static uint32_t *key_order(okey *k, size_t n) {
    if (n) qsort(k, n, sizeof *k, cmp_okey);
    uint32_t *ord = xmalloc((n ? n : 1) * sizeof *ord);
    for (size_t i = 0; i < n; i++) ord[i] = k[i].idx;
    free(k);
    return ord;
}
#define BY_TIME(v, n, ord)                                                                                   \
    do {                                                                                                     \
        okey *k_ = xmalloc(((n) ? (n) : 1) * sizeof *k_);                                                    \
        for (size_t i_ = 0; i_ < (n); i_++) k_[i_] = (okey){(v)[i_].dev_total, (v)[i_].cpu_total, (v)[i_].name, (uint32_t)i_}; \
        (ord) = key_order(k_, (n));                                                                          \
    } while (0)

/* op_flops of a call is a function of what it reads: the name, the input
 * dims, types and concrete inputs (strtab ids), the gradient passes and the
 * dims of its convolution's autograd node. A training trace repeats each
 * call's every step, and parsing its shapes and counting its FLOPs took 85%
 * of this analyzer's instructions (#38): each distinct call is counted once,
 * kept here (the first FMEMO_MAX of them; the rest counted each time). */
typedef struct fmemo {
    uint32_t name, dims, types, con, node_dims, has_node;
    int passes, ok;
    flops_result fr;
} fmemo;
typedef struct fmemos { hmap m; fmemo *v; size_t n, cap; } fmemos;
enum { FMEMO_MAX = 65536 };
static uint64_t fmemo_hash(const fmemo *k) {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    const uint32_t w[7] = {k->name, k->dims, k->types, k->con, k->node_dims, k->has_node, (uint32_t)k->passes};
    for (int i = 0; i < 7; i++) h = (h ^ w[i]) * 0xFF51AFD7ED558CCDULL, h ^= h >> 32;
    return h;
}
static int fmemo_same(const fmemo *a, const fmemo *b) {
    return a->name == b->name && a->dims == b->dims && a->types == b->types && a->con == b->con && a->node_dims == b->node_dims &&
           a->has_node == b->has_node && a->passes == b->passes;
}
static const fmemo *fmemo_get(const fmemos *f, const fmemo *k) {
    const uint32_t *v = hmap_find(&f->m, fmemo_hash(k));
    return v && fmemo_same(&f->v[*v], k) ? &f->v[*v] : NULL;
}
/* k, kept when there is room and its hash is free; returns k or the kept copy */
static const fmemo *fmemo_put(fmemos *f, const fmemo *k) {
    if (f->n >= FMEMO_MAX) return k;
    int created;
    uint32_t *v = hmap_get(&f->m, fmemo_hash(k), &created);
    if (!created) return k; /* another call's hash: not kept */
    *v = (uint32_t)f->n;
    *SPILL_PUSH(f->v, f->n, f->cap) = *k;
    return &f->v[f->n - 1];
}
static void fmemo_free(fmemos *f) {
    hmap_free(&f->m);
    spill_free(f->v);
}

void an_operators(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    cJSON *s = ps->doc;
    const pc_links *l = &c->links;
    size_t nc = t->ncpu;
    /* memory stays small on big traces: per event only a row index and a
     * flag; every sum goes straight into its row */
    uint32_t *rowidx = spill_alloc((nc ? nc : 1) * sizeof *rowidx);
    uint8_t *has_flops = spill_calloc(nc ? nc : 1, 1); /* 1 FLOPs; 2 a GEMM, 3 a misaligned GEMM; | 4 with a GEMM inside;
                                                           | 8 it ran device work */
    double *call_flops = spill_calloc(nc ? nc : 1, sizeof *call_flops), *call_bytes = spill_calloc(nc ? nc : 1, sizeof *call_bytes);
    uint8_t *callk = spill_calloc(nc ? nc : 1, 1); /* per call with FLOPs: its data type << 2 | device events under it, up to 2 */

    /* hints for FLOPs: convolution output sizes from the autograd node that
     * shares the forward call's Sequence number, and which gradients a
     * convolution backward computed */
    hmap conv_node = {0}, passes = {0};
    uint8_t *kind_of = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: 1 other, 2 conv node, 3 gradient pass */
    size_t op_names = 0; /* distinct operator names: the maps below are sized once for them */
    for (size_t i = 0; i < nc; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind != CPU_OP) continue;
        if (!kind_of[e->name]) {
            op_names++;
            const char *nm = strtab_get(&t->strs, e->name);
            size_t ln = strlen(nm);
            kind_of[e->name] = strstr(nm, "ConvolutionBackward") ? 2
                               : (ln > 15 && !strcmp(nm + ln - 15, "_backward_input")) || (ln > 16 && !strcmp(nm + ln - 16, "_backward_weight")) ? 3 : 1;
        }
        if (kind_of[e->name] == 2 && e->seq != PC_NONE && e->input_dims) *hmap_get(&conv_node, (uint64_t)e->seq, NULL) = (uint32_t)i;
        if (kind_of[e->name] == 3 && l->parent[i] >= 0) (*hmap_get(&passes, (uint64_t)l->parent[i], NULL))++;
    }
    spill_free(kind_of);

    /* rows by name (and shapes); CPU time and FLOPs */
    fmemos memo = {0};
    uint8_t *known = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: has a FLOPs formula */
    hmap m = {0};
    hmap_reserve(&m, op_names);
    oprow *rows = NULL;
    size_t n = 0, cap = 0;
    int64_t self_cpu_total = 0;
    for (size_t i = 0; i < nc; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        rowidx[i] = UINT32_MAX;
        if (e->kind != CPU_OP) continue;
        uint32_t dims = c->o.group_by_shape ? e->input_dims : 0;
        int created;
        uint32_t *slot = hmap_get(&m, hkey2(e->name, dims), &created);
        if (created) {
            oprow *r = SPILL_PUSH(rows, n, cap);
            memset(r, 0, sizeof *r);
            r->name = e->name;
            r->dims = dims;
            r->dtype = DT_UNKNOWN;
            r->eligible = op_tc_eligible(strtab_get(&t->strs, e->name));
            *slot = (uint32_t)(n - 1);
        }
        rowidx[i] = *slot;
        oprow *r = &rows[*slot];
        r->calls++;
        r->cpu_total += e->dur;
        r->self_cpu += e->dur;
        if (l->backward[i]) r->bwd = 1;
        else r->fwd = 1;
        if (!known[e->name]) known[e->name] = op_flops_known(strtab_get(&t->strs, e->name)) ? 2 : 1;
        if (e->input_dims && known[e->name] == 2) {
            const uint32_t *np = hmap_find(&passes, (uint64_t)i);
            const uint32_t *cand = e->seq != PC_NONE ? hmap_find(&conv_node, (uint64_t)e->seq) : NULL;
            fmemo key = {.name = e->name, .dims = e->input_dims, .types = e->input_types, .con = e->concrete,
                         .node_dims = cand ? t->cpu[*cand].input_dims : 0, .has_node = cand != NULL, .passes = np ? (int)*np : 0};
            const fmemo *f = fmemo_get(&memo, &key);
            if (!f) {
                op_args a;
                op_args_parse(&a, strtab_get(&t->strs, e->input_dims), strtab_get(&t->strs, e->input_types),
                              strtab_get(&t->strs, e->concrete));
                flops_hints hint;
                memset(&hint, 0, sizeof hint);
                hint.bw_passes = key.passes;
                const uint32_t *node = a.nd[0] >= 3 && a.nd[1] == a.nd[0] ? cand : NULL;
                if (node) {
                    op_args na;
                    op_args_parse(&na, strtab_get(&t->strs, t->cpu[*node].input_dims), NULL, NULL);
                    /* grad_output [N, K, P, Q] must agree with input N and weight K */
                    if (na.nd[0] == a.nd[0] && na.d[0][0] == a.d[0][0] && na.d[0][1] == a.d[1][0]) {
                        hint.nsp = na.nd[0] - 2;
                        for (int q = 0; q < hint.nsp && q < 3; q++) hint.out_sp[q] = na.d[0][2 + q];
                    }
                }
                key.ok = op_flops(strtab_get(&t->strs, e->name), &a, &hint, &key.fr);
                f = fmemo_put(&memo, &key);
            }
            flops_result fr = f->fr;
            if (f->ok) {
                has_flops[i] = 1;
                r->flops += fr.flops;
                r->bytes += fr.bytes;
                call_flops[i] = fr.flops, call_bytes[i] = fr.bytes, callk[i] = (uint8_t)(fr.dtype << 2);
                r->flops_calls++;
                if (fr.dtype != DT_UNKNOWN) r->dtype = fr.dtype;
                if (fr.is_gemm) has_flops[i] = fr.misaligned ? 3 : 2; /* counted below, innermost only */
            }
        }
    }
    /* GEMM alignment per call that runs the product itself: a GEMM with a GEMM inside it
     * (linear -> addmm, matmul -> mm) leaves the count to the inner one */
    for (size_t i = 0; i < nc; i++)
        if (has_flops[i] >= 2)
            for (int32_t p = l->parent[i]; p >= 0; p = l->parent[p])
                if (has_flops[p] >= 2) has_flops[p] |= 4;
    for (size_t i = 0; i < nc; i++)
        if (has_flops[i] == 2 || has_flops[i] == 3) {
            rows[rowidx[i]].gemm_calls++;
            rows[rowidx[i]].misaligned += has_flops[i] == 3;
        }
    /* self CPU: minus the ranges directly inside each call */
    for (size_t i = 0; i < nc; i++) {
        int32_t p = l->parent[i];
        if (p >= 0 && rowidx[p] != UINT32_MAX) rows[rowidx[p]].self_cpu -= t->cpu[i].dur;
    }
    for (size_t q = 0; q < n; q++) {
        if (rows[q].self_cpu < 0) rows[q].self_cpu = 0;
        self_cpu_total += rows[q].self_cpu;
    }
    hmap_free(&m);
    hmap_free(&conv_node);
    hmap_free(&passes);
    spill_free(known);
    fmemo_free(&memo);

    /* top-level operators and modules: rows keyed by name */
    hmap tm = {0}, mm = {0};
    hmap_reserve(&tm, op_names);
    toprow *tops = NULL, *mods = NULL;
    size_t nt = 0, capt = 0, nm2 = 0, capm = 0;
    uint32_t *topidx = spill_alloc((nc ? nc : 1) * sizeof *topidx);
    for (size_t i = 0; i < nc; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        topidx[i] = UINT32_MAX;
        if (e->kind != CPU_OP || links_op_outer(t, l, (int32_t)i, 0) >= 0) continue;
        int created;
        uint32_t *slot = hmap_get(&tm, e->name, &created);
        if (created) {
            *SPILL_PUSH(tops, nt, capt) = (toprow){.name = e->name};
            *slot = (uint32_t)(nt - 1);
        }
        topidx[i] = *slot;
        tops[*slot].calls++;
        tops[*slot].cpu_total += e->dur;
        if (l->module[i] >= 0) {
            uint32_t mname = t->cpu[l->module[i]].name;
            uint32_t *ms = hmap_get(&mm, mname, &created);
            if (created) {
                *SPILL_PUSH(mods, nm2, capm) = (toprow){.name = mname};
                *ms = (uint32_t)(nm2 - 1);
            }
            mods[*ms].calls++;
            mods[*ms].cpu_total += e->dur;
        }
    }

    /* GPU time to operators, their ancestors, top-level types and modules */
    int64_t gpu_total = 0, attributed = 0, by_corr = 0, by_ext = 0, n_unattr = 0;
    int64_t kernel_total = 0, kernel_attr = 0;
    uint8_t *tc_cache = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* 0 unknown yet, 1 no, 2 yes */
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) continue;
        gpu_total += e->dur;
        if (e->kind == GPU_KERNEL) kernel_total += e->dur;
        int32_t op = l->gpu_inner[g];
        if (op < 0) { n_unattr++; continue; }
        attributed += e->dur;
        if (e->kind == GPU_KERNEL) kernel_attr += e->dur;
        if (l->gpu_how[g] == LINK_CORRELATION) by_corr++;
        else by_ext++;
        if (rowidx[op] != UINT32_MAX) rows[rowidx[op]].self_dev += e->dur;
        int tc = 0;
        if (e->kind == GPU_KERNEL) {
            /* 2 yes, 1 no, 3 the name does not say: a Triton kernel under a matmul operator is (kfamily.h) */
            if (!tc_cache[e->name]) {
                int k = kernel_uses_tensor_cores(strtab_get(&t->strs, e->name));
                tc_cache[e->name] = k > 0 ? 2 : k < 0 ? 3 : 1;
            }
            tc = tc_cache[e->name] == 2 ||
                 (tc_cache[e->name] == 3 &&
                  kf_matrix_core_under(strtab_get(&t->strs, e->name), strtab_get(&t->strs, t->cpu[op].name)) > 0);
        }
        int32_t outer = -1;
        for (int32_t p = op; p >= 0; p = l->parent[p]) {
            if (t->cpu[p].kind != CPU_OP) continue;
            outer = p;
            oprow *r = &rows[rowidx[p]];
            r->dev_total += e->dur;
            if (has_flops[p]) {
                r->flops_dev_ns += e->dur, has_flops[p] |= 8;
                if ((callk[p] & 3) < 2) callk[p]++;
            }
            if (e->kind == GPU_KERNEL) {
                r->gpu_ns_kernels += e->dur;
                if (tc) r->tc_ns += e->dur;
            }
        }
        if (outer >= 0 && topidx[outer] != UINT32_MAX) {
            tops[topidx[outer]].dev_total += e->dur;
            if (l->module[outer] >= 0) {
                const uint32_t *ms = hmap_find(&mm, t->cpu[l->module[outer]].name);
                if (ms) mods[*ms].dev_total += e->dur;
            }
        }
    }
    /* kernels on the roofline: a kernel that was the whole device work of the nearest call with
     * FLOPs around its launch takes that call's FLOPs and bytes (a call that launched several
     * kernels gives none: dividing its FLOPs among them would be invented) */
    hmap km = {0};
    kroof *ks = NULL;
    size_t nk = 0, capk = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL || l->gpu_inner[g] < 0) continue;
        int32_t p = l->gpu_inner[g];
        while (p >= 0 && !(t->cpu[p].kind == CPU_OP && (has_flops[p] & 3))) p = l->parent[p];
        if (p < 0 || (callk[p] & 3) != 1 || rowidx[p] == UINT32_MAX) continue;
        int created;
        uint32_t *slot = hmap_get(&km, e->name, &created);
        if (created) {
            *SPILL_PUSH(ks, nk, capk) = (kroof){.name = e->name, .dtype = callk[p] >> 2, .tc = tc_cache[e->name] == 2};
            *slot = (uint32_t)(nk - 1);
        }
        kroof *k = &ks[*slot];
        k->flops += call_flops[p], k->bytes += call_bytes[p], k->ns += e->dur, k->launches++;
    }
    hmap_free(&km);
    spill_free(callk);
    spill_free(tc_cache);
    /* FLOPs and bytes of the calls that ran on the device: a call without device work (a
     * DataLoader transform on the CPU) has FLOPs but no device time to divide them by */
    for (size_t i = 0; i < nc; i++)
        if ((has_flops[i] & 8) && rowidx[i] != UINT32_MAX) rows[rowidx[i]].dev_flops += call_flops[i], rows[rowidx[i]].dev_bytes += call_bytes[i];
    spill_free(rowidx);
    spill_free(call_flops);
    spill_free(call_bytes);
    spill_free(has_flops);
    spill_free(topidx);
    hmap_free(&tm);
    hmap_free(&mm);

    /* inputs with operator tables instead of events (MindSpore's gpu_op_detail_info) */
    int64_t agg_ops = 0, agg_total = 0;
    for (size_t i = 0; i < t->nagg; i++)
        if (t->agg[i].what == AGG_OP) agg_ops++, agg_total += t->agg[i].total;
    if (agg_ops) {
        spill_free(rows);
        rows = NULL;
        n = cap = 0;
        for (size_t i = 0; i < t->nagg; i++) {
            const pc_agg *a = &t->agg[i];
            if (a->what != AGG_OP) continue;
            oprow *r = SPILL_PUSH(rows, n, cap);
            memset(r, 0, sizeof *r);
            r->name = a->name;
            r->calls = a->calls ? a->calls : 1;
            r->self_dev = r->dev_total = a->total;
            r->fwd = 1;
            r->dtype = DT_UNKNOWN;
        }
        if (gpu_total < agg_total) gpu_total = agg_total;
    }
    cJSON *ops = sj_obj(s, "operators");
    tab_operators *orec = PC_ADD_REC(ps, ops, operators);
    if (agg_ops) orec->source = "operator table of the input (device time per operator; no CPU times)";
    orec->grouped_by_shape = (tk_B)(c->o.group_by_shape != 0);
    orec->self_cpu_total_ns = self_cpu_total;
    orec->device_total_ns = gpu_total;
    tab_attribution *at = PC_ADD_REC(ps, sj_obj(ops, "attribution"), attribution);
    at->gpu_ns = gpu_total;
    at->attributed_ns = attributed;
    at->unattributed_ns = gpu_total - attributed;
    at->kernel_ns = kernel_total;
    at->kernel_attributed_ns = kernel_attr;
    at->kernel_unattributed_ns = kernel_total - kernel_attr;
    at->by_correlation = by_corr;
    at->by_external_id = by_ext;
    at->unattributed_events = n_unattr;
    orec->peak_device = c->peak ? c->peak->label : "";
    if (c->peak && !strncmp(c->peak_basis, "matched by", 10)) { /* found without its name: say how */
        char pd[256];
        snprintf(pd, sizeof pd, "%s (%s)", c->peak->label, c->peak_basis);
        orec->peak_device = pc_summary_str(ps, pd);
    }
    pc_table *arr = pc_summary_add_table(ps, ops, "rows", TAB_op);
    int64_t over_peak = 0;
    uint32_t *ord;
    BY_TIME(rows, n, ord);
    for (size_t i = 0; i < n; i++) {
        const oprow *r = &rows[ord[i]];
        tab_op *j = tab_push(arr);
        j->name = pc_summary_str(ps, strtab_get(&t->strs, r->name));
        if (c->o.group_by_shape) j->input_dims = pc_summary_str(ps, r->dims ? strtab_get(&t->strs, r->dims) : "");
        j->calls = r->calls;
        j->self_cpu_ns = r->self_cpu;
        j->cpu_total_ns = r->cpu_total;
        j->cpu_avg_ns = (double)r->cpu_total / (double)r->calls;
        j->self_device_ns = r->self_dev;
        j->device_total_ns = r->dev_total;
        j->device_avg_ns = (double)r->dev_total / (double)r->calls;
        j->self_device_pct = gpu_total ? 100.0 * (double)r->self_dev / (double)gpu_total : 0;
        j->self_cpu_pct = self_cpu_total ? 100.0 * (double)r->self_cpu / (double)self_cpu_total : 0;
        j->direction = r->fwd && r->bwd ? "both" : r->bwd ? "bwd" : "fwd";
        int has_f = r->flops_calls > 0;
        if (has_f) j->flops = r->flops;
        /* an estimate of bytes beyond 2^62 (shapes of billions of elements) is not a figure: n/a */
        if (has_f && r->bytes < PC_TIME_LIMIT_D) j->bytes = r->bytes;
        j->flops_calls = r->flops_calls;
        double tfl = has_f && r->flops_dev_ns > 0 ? r->dev_flops / (double)r->flops_dev_ns / 1e3 : 0; /* flop/ns = GFLOP/s */
        double gbs = has_f && r->flops_dev_ns > 0 ? r->dev_bytes / (double)r->flops_dev_ns : 0;    /* B/ns = GB/s */
        if (has_f && r->flops_dev_ns > 0) j->achieved_tflops = tfl, j->achieved_gbs = gbs;
        j->dtype = pc_dtype_name[r->dtype];
        int tc = r->gpu_ns_kernels > 0 && r->tc_ns * 2 >= r->gpu_ns_kernels;
        double pk = peak_tflops(c->peak, r->dtype, tc);
        int compute_bound = r->gemm_calls > 0 || r->eligible;
        if (has_f && r->flops_dev_ns > 0 && c->peak && compute_bound && pk > 0) j->peak_pct = 100.0 * tfl / pk;
        else if (has_f && r->flops_dev_ns > 0 && c->peak && !compute_bound) j->peak_pct = 100.0 * gbs / c->peak->mem_gbs;
        j->peak_of = compute_bound ? "compute" : "memory bandwidth";
        /* no physically impossible figure: beyond the device's peak, the estimate (a formula that
         * does not fit these calls: expanded inputs, fused or skipped work) is not shown */
        /* both peaks, each its own column: one "% of peak" mixed them (an elementwise operator's
         * share of bandwidth beside a matrix product's share of compute) */
        if (has_f && r->flops_dev_ns > 0 && c->peak && pk > 0) j->compute_peak_pct = 100.0 * tfl / pk;
        if (has_f && r->flops_dev_ns > 0 && c->peak && c->peak->mem_gbs > 0 && !PC_IS_NULL(j->bytes))
            j->bandwidth_peak_pct = 100.0 * gbs / c->peak->mem_gbs;
        if (has_f && r->flops_dev_ns > 0 && c->peak) j->bound_by = compute_bound ? "compute" : "bandwidth";
        if (j->peak_pct > 100) {
            j->peak_pct = NAN, j->achieved_tflops = NAN, j->achieved_gbs = NAN;
            j->compute_peak_pct = NAN, j->bandwidth_peak_pct = NAN;
            j->peak_of = j->bound_by = "n/a: estimate exceeds peak";
            over_peak++;
        }
        /* the other peak beyond 100%: that figure alone is n/a (bytes estimated from shapes
         * that came from a cache, or FLOPs of a formula that does not fit) */
        if (j->compute_peak_pct > 100) j->compute_peak_pct = NAN;
        if (j->bandwidth_peak_pct > 100) j->bandwidth_peak_pct = NAN;
        j->gemm_calls = r->gemm_calls;
        j->gemm_not_multiple_of_8 = r->misaligned;
        j->tensor_cores = r->gpu_ns_kernels == 0 ? "n/a" : r->tc_ns == 0 ? "no" : r->tc_ns == r->gpu_ns_kernels ? "yes" : "partly";
        j->tensor_core_pct = r->gpu_ns_kernels ? 100.0 * (double)r->tc_ns / (double)r->gpu_ns_kernels : 0;
        j->tc_eligible = (tk_B)(r->eligible && (!c->dev0 || c->dev0->cc_major >= 7));
    }
    orec->estimates_over_peak = over_peak;
    roofline(c, ps, ops, rows, ord, n, ks, nk);
    spill_free(ks);
    tab_unattributed *un = PC_ADD_REC(ps, sj_obj(ops, "unattributed"), unattributed);
    un->device_ns = gpu_total - attributed;
    un->events = n_unattr;
    spill_free(rows);
    free(ord);

    /* top-level operators: what the user wrote (as MindInsight's op types) */
    int use_dev = gpu_total > 0;
    int64_t top_time_total = 0;
    for (size_t i = 0; i < nt; i++) top_time_total += use_dev ? tops[i].dev_total : tops[i].cpu_total;
    int64_t agg_types = 0;
    for (size_t i = 0; i < t->nagg; i++) agg_types += t->agg[i].what == AGG_TYPE;
    if (agg_types) {
        spill_free(tops);
        tops = NULL;
        nt = capt = 0;
        top_time_total = 0;
        use_dev = 1;
        for (size_t i = 0; i < t->nagg; i++) {
            const pc_agg *a = &t->agg[i];
            if (a->what != AGG_TYPE) continue;
            *SPILL_PUSH(tops, nt, capt) = (toprow){.name = a->name, .calls = a->calls ? a->calls : 1, .dev_total = a->total};
            top_time_total += a->total;
        }
    }
    cJSON *types = sj_obj(s, "operator_types");
    tab_operator_types *tr = PC_ADD_REC(ps, types, operator_types);
    tr->time_basis = use_dev ? "device" : "cpu";
    tr->total_ns = top_time_total;
    pc_table *tarr = pc_summary_add_table(ps, types, "rows", TAB_optype);
    BY_TIME(tops, nt, ord);
    for (size_t i = 0; i < nt; i++) {
        const toprow *r = &tops[ord[i]];
        int64_t tm_ns = use_dev ? r->dev_total : r->cpu_total;
        tab_optype *j = tab_push(tarr);
        j->type = pc_summary_str(ps, strtab_get(&t->strs, r->name));
        j->calls = r->calls;
        j->time_ns = tm_ns;
        j->share_pct = top_time_total ? 100.0 * (double)tm_ns / (double)top_time_total : 0;
        j->avg_ns = (double)tm_ns / (double)r->calls;
        j->device_ns = r->dev_total;
        j->cpu_ns = r->cpu_total;
    }
    spill_free(tops);
    free(ord);

    /* modules */
    size_t nm = nm2;
    BY_TIME(mods, nm, ord);
    cJSON *ms = sj_obj(s, "modules");
    PC_ADD_REC(ps, ms, modules)->level = l->module_level;
    pc_table *marr = pc_summary_add_table(ps, ms, "rows", TAB_module);
    for (size_t i = 0; i < nm; i++) {
        tab_module *j = tab_push(marr);
        const toprow *r = &mods[ord[i]];
        const char *nmx = strtab_get(&t->strs, r->name);
        j->module = pc_summary_str(ps, !strncmp(nmx, "nn.Module: ", 11) ? nmx + 11 : nmx);
        j->top_level_ops = r->calls;
        j->cpu_ns = r->cpu_total;
        j->device_ns = r->dev_total;
    }
    spill_free(mods);
    free(ord);
}

/* One point of the roofline at intensity flops / bytes and rate flops / ns,
 * with the ceiling of its data type added once; none when the estimate is
 * beyond a physical limit (more than the peak: the formula does not fit the
 * calls). Returns 0 when there is no point, else fills *p. */
static int roof_point(const an_ctx *c, pc_summary *ps, pc_table *ceil, int seen[DT_COUNT][2], const char *name, double flops,
                      double bytes, int64_t ns, int dtype, int tc, tab_roof *p) {
    double tfl = flops / (double)ns / 1e3, gbs = bytes / (double)ns;
    double pk = peak_tflops(c->peak, dtype, tc);
    if ((pk > 0 && tfl > pk) || gbs > c->peak->mem_gbs) return 0;
    *p = (tab_roof){pc_summary_utf8(ps, name), pc_figure(flops / bytes), pc_figure(tfl), ns, pc_dtype_name[dtype], (tk_B)tc,
                    pk > 0 ? (flops / bytes * c->peak->mem_gbs / 1e3 < pk ? "memory" : "compute") : NULL};
    if (pk > 0 && !seen[dtype][tc]) {
        seen[dtype][tc] = 1;
        tab_ceiling *q = tab_push(ceil);
        char lab[48];
        snprintf(lab, sizeof lab, "%s%s", pc_dtype_name[dtype], tc ? " Tensor Core" : "");
        q->label = pc_summary_str(ps, lab);
        q->tflops = pc_figure(pk);
        q->ridge_intensity = pc_figure(pk * 1e3 / c->peak->mem_gbs);
    }
    return 1;
}

static int kroof_by_time(const void *a, const void *b) {
    const kroof *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* The roofline (Williams, Waterman, Patterson 2009): each operator with FLOPs
 * and bytes of the calls that ran device work, at its arithmetic intensity
 * (FLOPs / bytes of those calls) and achieved TFLOP/s (FLOPs / their device
 * time), against the device's memory roof (bandwidth x intensity) and the
 * compute ceiling of each data type the points use (with and without Tensor
 * Cores as their kernels ran). One point per piece of work (aten::conv2d's
 * is its cudnn_convolution's); estimates beyond the peak (n/a in the table)
 * are left out; at most ROOF_POINTS points, by device time. The kernels ks
 * (each the whole device work of calls with FLOPs) are placed the same way,
 * as kernel_points. */
enum { ROOF_POINTS = 200 };
static void roofline(const an_ctx *c, pc_summary *ps, cJSON *ops, const oprow *rows, const uint32_t *ord, size_t n, kroof *ks, size_t nk) {
    cJSON *rf = sj_obj(ops, "roofline");
    tab_roofline *rr = PC_ADD_REC(ps, rf, roofline);
    if (!c->peak) return;
    rr->device = c->peak->label;
    rr->mem_gbs = pc_figure(c->peak->mem_gbs);
    pc_table *ceil = pc_summary_add_table(ps, rf, "ceilings", TAB_ceiling), *pts = pc_summary_add_table(ps, rf, "points", TAB_roof);
    tab_roof pt;
    int seen[DT_COUNT][2] = {{0}};
    size_t np = 0;
    for (size_t i = 0; i < n && np < ROOF_POINTS; i++) {
        const oprow *r = &rows[ord[i]];
        if (r->flops_calls <= 0 || r->flops_dev_ns <= 0 || r->dev_bytes <= 0 || r->dev_flops <= 0) continue;
        /* one point per piece of work: a caller with the same FLOPs and device time as an
         * operator below it (aten::conv2d over cudnn_convolution) gives way to the one that
         * launched more of the kernels itself */
        int dup = 0;
        for (size_t k = 0; k < n && !dup; k++) {
            const oprow *o = &rows[ord[k]];
            dup = o != r && o->dev_flops == r->dev_flops && o->flops_dev_ns == r->flops_dev_ns &&
                  (o->self_dev > r->self_dev || (o->self_dev == r->self_dev && k > i));
        }
        if (dup) continue;
        int tc = r->gpu_ns_kernels > 0 && r->tc_ns * 2 >= r->gpu_ns_kernels;
        if (roof_point(c, ps, ceil, seen, strtab_get(&c->t->strs, r->name), r->dev_flops, r->dev_bytes, r->flops_dev_ns, r->dtype, tc, &pt))
            *(tab_roof *)tab_push(pts) = pt, np++;
    }
    pc_table *kp = pc_summary_add_table(ps, rf, "kernel_points", TAB_kroof);
    if (nk) qsort(ks, nk, sizeof *ks, kroof_by_time);
    np = 0;
    for (size_t i = 0; i < nk && np < ROOF_POINTS; i++) {
        const kroof *k = &ks[i];
        if (k->ns <= 0 || k->bytes <= 0 || k->flops <= 0) continue;
        if (!roof_point(c, ps, ceil, seen, strtab_get(&c->t->strs, k->name), k->flops, k->bytes, k->ns, k->dtype, k->tc, &pt)) continue;
        tab_kroof *p = tab_push(kp);
        *p = (tab_kroof){pt.name, pt.intensity, pt.tflops, pt.device_ns, pt.dtype, pt.tensor_cores, pt.bound, k->launches};
        np++;
    }
}
