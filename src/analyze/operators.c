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
#include <assert.h>
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

/* an_operators' state from phase to phase: per CPU event (nc of them) a row
 * index and the FLOPs of its call, the rows by name, the top-level rows and
 * modules, the GPU time's totals and the kernels on the roofline. Memory
 * stays small on big traces: per event only a row index and a flag; every
 * sum goes straight into its row. */
typedef struct op_pass {
    const an_ctx *c;
    const pc_trace *t;
    const pc_links *l;
    size_t nc;
    uint32_t *rowidx;   /* per event: its row in rows, UINT32_MAX when not an operator */
    uint8_t *has_flops; /* 1 FLOPs; 2 a GEMM, 3 a misaligned GEMM; | 4 with a GEMM inside; | 8 it ran device work */
    double *call_flops, *call_bytes;
    uint8_t *callk;     /* per call with FLOPs: its data type << 2 | device events under it, up to 2 */
    hmap conv_node, passes; /* FLOPs hints: seq -> conv autograd node; call -> gradient passes inside it */
    size_t op_names;    /* distinct operator names: the maps are sized once for them */
    oprow *rows;
    size_t n, cap;
    int64_t self_cpu_total;
    hmap tm, mm;        /* name -> index in tops, mods */
    toprow *tops, *mods;
    size_t nt, capt, nm, capm;
    uint32_t *topidx;   /* per event: its top-level row, UINT32_MAX when not a top-level operator */
    int64_t gpu_total, attributed, by_corr, by_ext, n_unattr, kernel_total, kernel_attr;
    uint8_t *tc_cache;  /* per kernel name: 0 unknown yet, 1 no Tensor Cores, 2 yes, 3 the name does not say */
    kroof *ks;
    size_t nk, capk;
} op_pass;

/* Hints for FLOPs: convolution output sizes from the autograd node that
 * shares the forward call's Sequence number (p->conv_node), and which
 * gradients a convolution backward computed (p->passes: per call, its
 * gradient passes); p->op_names counts the distinct operator names. */
static void op_hints(op_pass *p) {
    const pc_trace *t = p->t;
    uint8_t *kind_of = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: 1 other, 2 conv node, 3 gradient pass */
    for (size_t i = 0; i < p->nc; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind != CPU_OP) continue;
        if (!kind_of[e->name]) {
            p->op_names++;
            const char *nm = strtab_get(&t->strs, e->name);
            size_t ln = strlen(nm);
            kind_of[e->name] = strstr(nm, "ConvolutionBackward") ? 2
                               : (ln > 15 && !strcmp(nm + ln - 15, "_backward_input")) || (ln > 16 && !strcmp(nm + ln - 16, "_backward_weight")) ? 3 : 1;
        }
        if (kind_of[e->name] == 2 && e->seq != PC_NONE && e->input_dims) *hmap_get(&p->conv_node, (uint64_t)e->seq, NULL) = (uint32_t)i;
        if (kind_of[e->name] == 3 && p->l->parent[i] >= 0) (*hmap_get(&p->passes, (uint64_t)p->l->parent[i], NULL))++;
    }
    spill_free(kind_of);
}

/* The FLOPs of operator call i (its name has a formula, its input dims are
 * known), counted once per distinct call (memo): op_flops with the hints of
 * op_hints. Returns the memo's entry (ok 0: no FLOPs for these inputs). */
static fmemo op_call_flops(const op_pass *p, size_t i, fmemos *memo) {
    const pc_trace *t = p->t;
    const pc_cpu_event *e = &t->cpu[i];
    const uint32_t *np = hmap_find(&p->passes, (uint64_t)i);
    const uint32_t *cand = e->seq != PC_NONE ? hmap_find(&p->conv_node, (uint64_t)e->seq) : NULL;
    fmemo key = {.name = e->name, .dims = e->input_dims, .types = e->input_types, .con = e->concrete,
                 .node_dims = cand ? t->cpu[*cand].input_dims : 0, .has_node = cand != NULL, .passes = np ? (int)*np : 0};
    const fmemo *f = fmemo_get(memo, &key);
    if (f) return *f;
    op_args a;
    op_args_parse(&a, strtab_get(&t->strs, e->input_dims), strtab_get(&t->strs, e->input_types), strtab_get(&t->strs, e->concrete));
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
    fmemo_put(memo, &key);
    return key;
}

/* The row of operator event i (by name, and shapes with group_by_shape),
 * made when its first call comes. */
static oprow *op_row_of(op_pass *p, hmap *m, size_t i) {
    const pc_cpu_event *e = &p->t->cpu[i];
    uint32_t dims = p->c->o.group_by_shape ? e->input_dims : 0;
    int created;
    uint32_t *slot = hmap_get(m, hkey2(e->name, dims), &created);
    if (created) {
        oprow *r = SPILL_PUSH(p->rows, p->n, p->cap);
        memset(r, 0, sizeof *r);
        r->name = e->name;
        r->dims = dims;
        r->dtype = DT_UNKNOWN;
        r->eligible = op_tc_eligible(strtab_get(&p->t->strs, e->name));
        *slot = (uint32_t)(p->n - 1);
    }
    p->rowidx[i] = *slot;
    return &p->rows[*slot];
}

/* Rows by name (and shapes): calls, CPU time (self CPU still the total) and
 * FLOPs per operator event. After: every operator event has its row
 * (rowidx < n), the rows' calls sum to the operator events. */
static void op_rows(op_pass *p) {
    const pc_trace *t = p->t;
    fmemos memo = {0};
    uint8_t *known = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: has a FLOPs formula */
    hmap m = {0};
    hmap_reserve(&m, p->op_names);
    int64_t nops = 0;
    for (size_t i = 0; i < p->nc; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        p->rowidx[i] = UINT32_MAX;
        if (e->kind != CPU_OP) continue;
        oprow *r = op_row_of(p, &m, i);
        nops++;
        r->calls++;
        r->cpu_total += e->dur;
        r->self_cpu += e->dur;
        if (p->l->backward[i]) r->bwd = 1;
        else r->fwd = 1;
        if (!known[e->name]) known[e->name] = op_flops_known(strtab_get(&t->strs, e->name)) ? 2 : 1;
        if (!e->input_dims || known[e->name] != 2) continue;
        fmemo f = op_call_flops(p, i, &memo);
        if (!f.ok) continue;
        flops_result fr = f.fr;
        p->has_flops[i] = 1;
        r->flops += fr.flops;
        r->bytes += fr.bytes;
        p->call_flops[i] = fr.flops, p->call_bytes[i] = fr.bytes, p->callk[i] = (uint8_t)(fr.dtype << 2);
        r->flops_calls++;
        if (fr.dtype != DT_UNKNOWN) r->dtype = fr.dtype;
        if (fr.is_gemm) p->has_flops[i] = fr.misaligned ? 3 : 2; /* counted below, innermost only */
    }
    int64_t calls = 0;
    for (size_t q = 0; q < p->n; q++) calls += p->rows[q].calls;
    assert(calls == nops);
    hmap_free(&m);
    spill_free(known);
    fmemo_free(&memo);
}

/* GEMM alignment per call that runs the product itself (a GEMM with a GEMM
 * inside it, linear -> addmm, matmul -> mm, leaves the count to the inner
 * one), and self CPU: each row's CPU total less the ranges directly inside
 * its calls, at least 0. After: 0 <= self CPU <= CPU total per row, their
 * sum in self_cpu_total; GEMM calls and misaligned ones within the calls. */
static void op_gemm_self(op_pass *p) {
    const pc_links *l = p->l;
    for (size_t i = 0; i < p->nc; i++)
        if (p->has_flops[i] >= 2)
            for (int32_t q = l->parent[i]; q >= 0; q = l->parent[q])
                if (p->has_flops[q] >= 2) p->has_flops[q] |= 4;
    for (size_t i = 0; i < p->nc; i++)
        if (p->has_flops[i] == 2 || p->has_flops[i] == 3) {
            p->rows[p->rowidx[i]].gemm_calls++;
            p->rows[p->rowidx[i]].misaligned += p->has_flops[i] == 3;
        }
    for (size_t i = 0; i < p->nc; i++) {
        int32_t q = l->parent[i];
        if (q >= 0 && p->rowidx[q] != UINT32_MAX) p->rows[p->rowidx[q]].self_cpu -= p->t->cpu[i].dur;
    }
    for (size_t q = 0; q < p->n; q++) {
        oprow *r = &p->rows[q];
        if (r->self_cpu < 0) r->self_cpu = 0;
        assert(r->self_cpu <= r->cpu_total);
        assert(r->misaligned <= r->gemm_calls && r->gemm_calls <= r->calls && r->flops_calls <= r->calls);
        p->self_cpu_total += r->self_cpu;
    }
}

/* Top-level operators (no operator around them) by name, with their calls
 * and CPU time, and the same per module (the nn.Module frame around the
 * call); topidx maps each top-level call to its row. */
static void op_tops(op_pass *p) {
    const pc_trace *t = p->t;
    const pc_links *l = p->l;
    hmap_reserve(&p->tm, p->op_names);
    for (size_t i = 0; i < p->nc; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        p->topidx[i] = UINT32_MAX;
        if (e->kind != CPU_OP || links_op_outer(t, l, (int32_t)i, 0) >= 0) continue;
        int created;
        uint32_t *slot = hmap_get(&p->tm, e->name, &created);
        if (created) {
            *SPILL_PUSH(p->tops, p->nt, p->capt) = (toprow){.name = e->name};
            *slot = (uint32_t)(p->nt - 1);
        }
        p->topidx[i] = *slot;
        p->tops[*slot].calls++;
        p->tops[*slot].cpu_total += e->dur;
        if (l->module[i] < 0) continue;
        uint32_t mname = t->cpu[l->module[i]].name;
        uint32_t *ms = hmap_get(&p->mm, mname, &created);
        if (created) {
            *SPILL_PUSH(p->mods, p->nm, p->capm) = (toprow){.name = mname};
            *ms = (uint32_t)(p->nm - 1);
        }
        p->mods[*ms].calls++;
        p->mods[*ms].cpu_total += e->dur;
    }
}

/* 1 when kernel e, launched under operator op, ran on Tensor Cores: by its
 * name, else (a Triton kernel) under a matmul operator (kfamily.h). */
static int op_kernel_tc(op_pass *p, const pc_gpu_event *e, int32_t op) {
    const pc_trace *t = p->t;
    if (!p->tc_cache[e->name]) {
        int k = kernel_uses_tensor_cores(strtab_get(&t->strs, e->name));
        p->tc_cache[e->name] = k > 0 ? 2 : k < 0 ? 3 : 1;
    }
    return p->tc_cache[e->name] == 2 ||
           (p->tc_cache[e->name] == 3 && kf_matrix_core_under(strtab_get(&t->strs, e->name), strtab_get(&t->strs, t->cpu[op].name)) > 0);
}

/* GPU event e's time (launched under operator op) to op's row (self) and to
 * every operator around it (device total, FLOPs' device time, kernel and
 * Tensor Core time), then to the outermost one's top-level row and module. */
static void op_gpu_event(op_pass *p, const pc_gpu_event *e, int32_t op) {
    const pc_trace *t = p->t;
    const pc_links *l = p->l;
    if (p->rowidx[op] != UINT32_MAX) p->rows[p->rowidx[op]].self_dev += e->dur;
    int tc = e->kind == GPU_KERNEL && op_kernel_tc(p, e, op);
    int32_t outer = -1;
    for (int32_t q = op; q >= 0; q = l->parent[q]) {
        if (t->cpu[q].kind != CPU_OP) continue;
        outer = q;
        oprow *r = &p->rows[p->rowidx[q]];
        r->dev_total += e->dur;
        if (p->has_flops[q]) {
            r->flops_dev_ns += e->dur, p->has_flops[q] |= 8;
            if ((p->callk[q] & 3) < 2) p->callk[q]++;
        }
        if (e->kind == GPU_KERNEL) {
            r->gpu_ns_kernels += e->dur;
            if (tc) r->tc_ns += e->dur;
        }
    }
    if (outer < 0 || p->topidx[outer] == UINT32_MAX) return;
    p->tops[p->topidx[outer]].dev_total += e->dur;
    if (l->module[outer] >= 0) {
        const uint32_t *ms = hmap_find(&p->mm, t->cpu[l->module[outer]].name);
        if (ms) p->mods[*ms].dev_total += e->dur;
    }
}

/* GPU time (kernels, copies, memsets) to operators, their ancestors,
 * top-level types and modules, and the attribution's totals. After: what
 * is attributed is within the total (kernels too), and every GPU event
 * counted is attributed by correlation, by External id or not at all. */
static void op_gpu(op_pass *p) {
    const pc_trace *t = p->t;
    int64_t events = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) continue;
        events++;
        p->gpu_total += e->dur;
        if (e->kind == GPU_KERNEL) p->kernel_total += e->dur;
        int32_t op = p->l->gpu_inner[g];
        if (op < 0) { p->n_unattr++; continue; }
        p->attributed += e->dur;
        if (e->kind == GPU_KERNEL) p->kernel_attr += e->dur;
        if (p->l->gpu_how[g] == LINK_CORRELATION) p->by_corr++;
        else p->by_ext++;
        op_gpu_event(p, e, op);
    }
    assert(p->attributed <= p->gpu_total && p->kernel_attr <= p->kernel_total && p->kernel_total <= p->gpu_total);
    assert(p->by_corr + p->by_ext + p->n_unattr == events);
}

/* Kernels on the roofline: a kernel that was the whole device work of the
 * nearest call with FLOPs around its launch takes that call's FLOPs and
 * bytes (a call that launched several kernels gives none: dividing its
 * FLOPs among them would be invented); then each row's FLOPs and bytes of
 * the calls that ran on the device (a call without device work, a
 * DataLoader transform on the CPU, has FLOPs but no device time to divide
 * them by). */
static void op_roofline_kernels(op_pass *p) {
    const pc_trace *t = p->t;
    const pc_links *l = p->l;
    hmap km = {0};
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL || l->gpu_inner[g] < 0) continue;
        int32_t q = l->gpu_inner[g];
        while (q >= 0 && !(t->cpu[q].kind == CPU_OP && (p->has_flops[q] & 3))) q = l->parent[q];
        if (q < 0 || (p->callk[q] & 3) != 1 || p->rowidx[q] == UINT32_MAX) continue;
        int created;
        uint32_t *slot = hmap_get(&km, e->name, &created);
        if (created) {
            *SPILL_PUSH(p->ks, p->nk, p->capk) = (kroof){.name = e->name, .dtype = p->callk[q] >> 2, .tc = p->tc_cache[e->name] == 2};
            *slot = (uint32_t)(p->nk - 1);
        }
        kroof *k = &p->ks[*slot];
        k->flops += p->call_flops[q], k->bytes += p->call_bytes[q], k->ns += e->dur, k->launches++;
    }
    hmap_free(&km);
    for (size_t i = 0; i < p->nc; i++)
        if ((p->has_flops[i] & 8) && p->rowidx[i] != UINT32_MAX)
            p->rows[p->rowidx[i]].dev_flops += p->call_flops[i], p->rows[p->rowidx[i]].dev_bytes += p->call_bytes[i];
}

/* Inputs with operator tables instead of events (MindSpore's
 * gpu_op_detail_info): their rows replace the events' (device time only),
 * and the GPU total is at least theirs. */
static void op_agg(op_pass *p) {
    const pc_trace *t = p->t;
    int64_t agg_ops = 0, agg_total = 0;
    for (size_t i = 0; i < t->nagg; i++)
        if (t->agg[i].what == AGG_OP) agg_ops++, agg_total += t->agg[i].total;
    if (!agg_ops) return;
    spill_free(p->rows);
    p->rows = NULL;
    p->n = p->cap = 0;
    for (size_t i = 0; i < t->nagg; i++) {
        const pc_agg *a = &t->agg[i];
        if (a->what != AGG_OP) continue;
        oprow *r = SPILL_PUSH(p->rows, p->n, p->cap);
        memset(r, 0, sizeof *r);
        r->name = a->name;
        r->calls = a->calls ? a->calls : 1;
        r->self_dev = r->dev_total = a->total;
        r->fwd = 1;
        r->dtype = DT_UNKNOWN;
    }
    if (p->gpu_total < agg_total) p->gpu_total = agg_total;
}

/* The operators record and its attribution: totals, how GPU time reached
 * the operators, and the device whose peaks the rows use. */
static tab_operators *op_write_record(const op_pass *p, pc_summary *ps, cJSON *ops, int agg) {
    const an_ctx *c = p->c;
    tab_operators *orec = PC_ADD_REC(ps, ops, operators);
    if (agg) orec->source = "operator table of the input (device time per operator; no CPU times)";
    orec->grouped_by_shape = (tk_B)(c->o.group_by_shape != 0);
    orec->self_cpu_total_ns = p->self_cpu_total;
    orec->device_total_ns = p->gpu_total;
    tab_attribution *at = PC_ADD_REC(ps, sj_obj(ops, "attribution"), attribution);
    at->gpu_ns = p->gpu_total;
    at->attributed_ns = p->attributed;
    at->unattributed_ns = p->gpu_total - p->attributed;
    at->kernel_ns = p->kernel_total;
    at->kernel_attributed_ns = p->kernel_attr;
    at->kernel_unattributed_ns = p->kernel_total - p->kernel_attr;
    at->by_correlation = p->by_corr;
    at->by_external_id = p->by_ext;
    at->unattributed_events = p->n_unattr;
    orec->peak_device = c->peak ? c->peak->label : "";
    if (c->peak && !strncmp(c->peak_basis, "matched by", 10)) { /* found without its name: say how */
        char pd[256];
        snprintf(pd, sizeof pd, "%s (%s)", c->peak->label, c->peak_basis);
        orec->peak_device = pc_summary_str(ps, pd);
    }
    return orec;
}

/* Row j's rates and shares of the device's peaks (r: its sums); 1 when its
 * estimate exceeds the peak (every figure of peaks then n/a). */
static int op_row_peaks(const an_ctx *c, const oprow *r, tab_op *j) {
    int has_f = r->flops_calls > 0;
    double tfl = has_f && r->flops_dev_ns > 0 ? r->dev_flops / (double)r->flops_dev_ns / 1e3 : 0; /* flop/ns = GFLOP/s */
    double gbs = has_f && r->flops_dev_ns > 0 ? r->dev_bytes / (double)r->flops_dev_ns : 0;    /* B/ns = GB/s */
    if (has_f && r->flops_dev_ns > 0) j->achieved_tflops = tfl, j->achieved_gbs = gbs;
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
    int over = 0;
    if (j->peak_pct > 100) {
        j->peak_pct = NAN, j->achieved_tflops = NAN, j->achieved_gbs = NAN;
        j->compute_peak_pct = NAN, j->bandwidth_peak_pct = NAN;
        j->peak_of = j->bound_by = "n/a: estimate exceeds peak";
        over = 1;
    }
    /* the other peak beyond 100%: that figure alone is n/a (bytes estimated from shapes
     * that came from a cache, or FLOPs of a formula that does not fit) */
    if (j->compute_peak_pct > 100) j->compute_peak_pct = NAN;
    if (j->bandwidth_peak_pct > 100) j->bandwidth_peak_pct = NAN;
    return over;
}

/* One row of the operators table from its sums r; returns 1 when its
 * estimate exceeds the peak (op_row_peaks). */
static int op_write_row(const op_pass *p, pc_summary *ps, pc_table *arr, const oprow *r) {
    const an_ctx *c = p->c;
    const pc_trace *t = p->t;
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
    j->self_device_pct = p->gpu_total ? 100.0 * (double)r->self_dev / (double)p->gpu_total : 0;
    j->self_cpu_pct = p->self_cpu_total ? 100.0 * (double)r->self_cpu / (double)p->self_cpu_total : 0;
    j->direction = r->fwd && r->bwd ? "both" : r->bwd ? "bwd" : "fwd";
    int has_f = r->flops_calls > 0;
    if (has_f) j->flops = r->flops;
    /* an estimate of bytes beyond 2^62 (shapes of billions of elements) is not a figure: n/a */
    if (has_f && r->bytes < PC_TIME_LIMIT_D) j->bytes = r->bytes;
    j->flops_calls = r->flops_calls;
    j->dtype = pc_dtype_name[r->dtype];
    int over = op_row_peaks(c, r, j);
    j->gemm_calls = r->gemm_calls;
    j->gemm_not_multiple_of_8 = r->misaligned;
    j->tensor_cores = r->gpu_ns_kernels == 0 ? "n/a" : r->tc_ns == 0 ? "no" : r->tc_ns == r->gpu_ns_kernels ? "yes" : "partly";
    j->tensor_core_pct = r->gpu_ns_kernels ? 100.0 * (double)r->tc_ns / (double)r->gpu_ns_kernels : 0;
    j->tc_eligible = (tk_B)(r->eligible && (!c->dev0 || c->dev0->cc_major >= 7));
    return over;
}

/* The operators section: its record, its rows by time (device, then CPU),
 * the roofline and the unattributed GPU time. After: the rows' self device
 * time is within the GPU total (each event's time goes to one row at most). */
static void op_write_operators(op_pass *p, pc_summary *ps, int agg) {
    cJSON *ops = sj_obj(ps->doc, "operators");
    tab_operators *orec = op_write_record(p, ps, ops, agg);
    pc_table *arr = pc_summary_add_table(ps, ops, "rows", TAB_op);
    int64_t over_peak = 0, self_dev = 0;
    uint32_t *ord;
    BY_TIME(p->rows, p->n, ord);
    for (size_t i = 0; i < p->n; i++) {
        over_peak += op_write_row(p, ps, arr, &p->rows[ord[i]]);
        self_dev += p->rows[ord[i]].self_dev;
    }
    assert(self_dev <= p->gpu_total);
    orec->estimates_over_peak = over_peak;
    roofline(p->c, ps, ops, p->rows, ord, p->n, p->ks, p->nk);
    tab_unattributed *un = PC_ADD_REC(ps, sj_obj(ops, "unattributed"), unattributed);
    un->device_ns = p->gpu_total - p->attributed;
    un->events = p->n_unattr;
    free(ord);
}

/* The operator_types section: top-level operators, what the user wrote (as
 * MindInsight's op types), by device time when the trace has any, else by
 * CPU time; an input's own type table (MindSpore) replaces them. After: the
 * rows' time sums to the section's total. */
static void op_write_types(op_pass *p, pc_summary *ps) {
    const pc_trace *t = p->t;
    int use_dev = p->gpu_total > 0;
    int64_t top_time_total = 0;
    for (size_t i = 0; i < p->nt; i++) top_time_total += use_dev ? p->tops[i].dev_total : p->tops[i].cpu_total;
    int64_t agg_types = 0;
    for (size_t i = 0; i < t->nagg; i++) agg_types += t->agg[i].what == AGG_TYPE;
    if (agg_types) {
        spill_free(p->tops);
        p->tops = NULL;
        p->nt = p->capt = 0;
        top_time_total = 0;
        use_dev = 1;
        for (size_t i = 0; i < t->nagg; i++) {
            const pc_agg *a = &t->agg[i];
            if (a->what != AGG_TYPE) continue;
            *SPILL_PUSH(p->tops, p->nt, p->capt) = (toprow){.name = a->name, .calls = a->calls ? a->calls : 1, .dev_total = a->total};
            top_time_total += a->total;
        }
    }
    cJSON *types = sj_obj(ps->doc, "operator_types");
    tab_operator_types *tr = PC_ADD_REC(ps, types, operator_types);
    tr->time_basis = use_dev ? "device" : "cpu";
    tr->total_ns = top_time_total;
    pc_table *tarr = pc_summary_add_table(ps, types, "rows", TAB_optype);
    uint32_t *ord;
    BY_TIME(p->tops, p->nt, ord);
    int64_t sum = 0;
    for (size_t i = 0; i < p->nt; i++) {
        const toprow *r = &p->tops[ord[i]];
        int64_t tm_ns = use_dev ? r->dev_total : r->cpu_total;
        tab_optype *j = tab_push(tarr);
        j->type = pc_summary_str(ps, strtab_get(&t->strs, r->name));
        j->calls = r->calls;
        j->time_ns = tm_ns;
        j->share_pct = top_time_total ? 100.0 * (double)tm_ns / (double)top_time_total : 0;
        j->avg_ns = (double)tm_ns / (double)r->calls;
        j->device_ns = r->dev_total;
        j->cpu_ns = r->cpu_total;
        sum += tm_ns;
    }
    assert(sum == top_time_total);
    free(ord);
}

/* The modules section: per nn.Module (its frame's name less "nn.Module: "),
 * the top-level operators called in it and their CPU and device time. */
static void op_write_modules(op_pass *p, pc_summary *ps) {
    uint32_t *ord;
    BY_TIME(p->mods, p->nm, ord);
    cJSON *ms = sj_obj(ps->doc, "modules");
    PC_ADD_REC(ps, ms, modules)->level = p->l->module_level;
    pc_table *marr = pc_summary_add_table(ps, ms, "rows", TAB_module);
    for (size_t i = 0; i < p->nm; i++) {
        tab_module *j = tab_push(marr);
        const toprow *r = &p->mods[ord[i]];
        const char *nmx = strtab_get(&p->t->strs, r->name);
        j->module = pc_summary_str(ps, !strncmp(nmx, "nn.Module: ", 11) ? nmx + 11 : nmx);
        j->top_level_ops = r->calls;
        j->cpu_ns = r->cpu_total;
        j->device_ns = r->dev_total;
    }
    free(ord);
}

/* The operators, operator_types and modules sections, in phases: FLOPs
 * hints, rows by name with CPU time and FLOPs, GEMM alignment and self CPU,
 * top-level rows and modules, GPU time to all of them, the roofline's
 * kernels, an input's own operator table, then the three sections. */
void an_operators(const an_ctx *c, pc_summary *ps) {
    size_t nc = c->t->ncpu, n1 = nc ? nc : 1;
    op_pass p = {.c = c, .t = c->t, .l = &c->links, .nc = nc};
    p.rowidx = spill_alloc(n1 * sizeof *p.rowidx);
    p.has_flops = spill_calloc(n1, 1);
    p.call_flops = spill_calloc(n1, sizeof *p.call_flops);
    p.call_bytes = spill_calloc(n1, sizeof *p.call_bytes);
    p.callk = spill_calloc(n1, 1);
    op_hints(&p);
    op_rows(&p);
    hmap_free(&p.conv_node);
    hmap_free(&p.passes);
    op_gemm_self(&p);
    p.topidx = spill_alloc(n1 * sizeof *p.topidx);
    op_tops(&p);
    p.tc_cache = spill_calloc(p.t->strs.n ? p.t->strs.n : 1, 1);
    op_gpu(&p);
    op_roofline_kernels(&p);
    spill_free(p.callk);
    spill_free(p.tc_cache);
    spill_free(p.rowidx);
    spill_free(p.call_flops);
    spill_free(p.call_bytes);
    spill_free(p.has_flops);
    spill_free(p.topidx);
    hmap_free(&p.tm);
    hmap_free(&p.mm);
    int agg = 0;
    for (size_t i = 0; i < p.t->nagg; i++) agg |= p.t->agg[i].what == AGG_OP;
    op_agg(&p);
    op_write_operators(&p, ps, agg);
    spill_free(p.ks);
    spill_free(p.rows);
    op_write_types(&p, ps);
    spill_free(p.tops);
    op_write_modules(&p, ps);
    spill_free(p.mods);
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
