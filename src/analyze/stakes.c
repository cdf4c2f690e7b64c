/* Each rule's change to a step's graph and its replayed saving: the
 * contract is in stakes.h, the method in docs/replay.md. */
#include "stakes.h"
#include "flops.h"
#include "kfamily.h"
#include "attention.h"
#include "peaks.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* an operator around the launch (or none) is Tensor-Core eligible */
static int eligible_or_none(const an_ctx *c, int32_t op, uint8_t *oc) {
    const pc_trace *t = c->t;
    if (op < 0) return 1;
    for (int32_t p = op; p >= 0; p = c->links.parent[p]) {
        if (t->cpu[p].kind != CPU_OP) continue;
        uint32_t on = t->cpu[p].name;
        if (!oc[on]) oc[on] = op_tc_eligible(strtab_get(&t->strs, on)) ? 2 : 1;
        if (oc[on] == 2) return 1;
    }
    return 0;
}

float *stakes_tc_set(const an_ctx *c, double *ns) {
    const pc_trace *t = c->t;
    if (ns) *ns = 0;
    if (!c->dev0 || c->dev0->cc_major < 7 || !t->ngpu) return NULL;
    float *f = spill_alloc(t->ngpu * sizeof *f);
    uint8_t *kc = spill_calloc(t->strs.n ? t->strs.n : 1, 1), *oc = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* 0 unknown, 1 no, 2 yes */
    int any = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        f[g] = 1;
        if (e->kind != GPU_KERNEL) continue;
        if (!kc[e->name]) {
            const char *nm = strtab_get(&t->strs, e->name);
            kc[e->name] = kernel_uses_tensor_cores(nm) == 0 && kernel_is_conv_gemm(nm) ? 2 : 1;
        }
        if (kc[e->name] != 2 || !eligible_or_none(c, c->links.gpu_inner ? c->links.gpu_inner[g] : -1, oc)) continue;
        f[g] = (float)(1 / STAKE_TC_SPEEDUP);
        any = 1;
        if (ns) *ns += (double)e->dur;
    }
    spill_free(kc);
    spill_free(oc);
    if (!any) spill_free(f), f = NULL;
    return f;
}

int32_t *stakes_op_rows(const pc_trace *t, const tab_op *rows, size_t n) {
    size_t ns = t->strs.n ? t->strs.n : 1;
    int32_t *row = spill_alloc(ns * sizeof *row), empty = -1;
    for (size_t i = 0; i < ns; i++) row[i] = -1;
    for (size_t i = n; i-- > 0;) { /* last to first: the first row of a name is the one left */
        const char *nm = rows[i].name;
        if (!nm) continue;
        size_t len = strlen(nm);
        if (!len) { empty = (int32_t)i; continue; }
        uint32_t id = t->strs.n ? strtab_find(&t->strs, nm, len) : 0;
        if (id && id < ns) row[id] = (int32_t)i;
    }
    for (size_t i = 0; i < ns; i++)
        if (!strtab_len(&t->strs, (uint32_t)i)) row[i] = empty;
    return row;
}

/* a memory-bound leaf operator's % of bandwidth peak / 100 (rules.c's mb_row), else 1 */
static float mb_factor(const tab_op *o) {
    double pct = PC_OR(o->bandwidth_peak_pct, -1);
    if (!o->bound_by || strcmp(o->bound_by, "bandwidth") || pct < 0 || o->self_device_ns <= 0 || o->self_device_ns != o->device_total_ns)
        return 1;
    return (float)(pct >= 100 ? 1 : pct / 100);
}

int stakes_compiler_fused(const char *n) {
    return !strncmp(n, "triton_poi_fused", 16) || !strncmp(n, "triton_per_fused", 16) || !strncmp(n, "triton_red_fused", 16);
}

unsigned stakes_mb_families(const pc_trace *t, double fam[], double *kern, double *ns) {
    stakes_gpu_families(t, fam, kern);
    uint8_t *fc = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: 2 compiler-fused, 1 not */
    for (size_t g = 0; g < t->ngpu; g++) { /* a compiler's fused kernels: their fusion is done */
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL) continue;
        if (!fc[e->name]) fc[e->name] = stakes_compiler_fused(strtab_get(&t->strs, e->name)) ? 2 : 1;
        if (fc[e->name] != 2) continue;
        int f = kf_classify(strtab_get(&t->strs, e->name)).family;
        if (STAKE_MB_FAMILIES >> f & 1) fam[f] -= (double)e->dur;
    }
    spill_free(fc);
    unsigned mask = 0;
    *ns = 0;
    for (int f = 0; f < KF_NFAMILY; f++)
        if (STAKE_MB_FAMILIES >> f & 1 && fam[f] > 0) mask |= 1u << f, *ns += fam[f];
    return mask;
}

/* SK_MB's factor by family for a kernel of family fam (name: its name): a layout conversion
 * (the layout / transpose family but a concatenation, CatArrayBatchedCopy: torch.cat is no
 * conversion) at STAKE_MB_LAYOUT_FACTOR, the other families of mask at STAKE_MB_FAMILY_FACTOR, else 1 */
static float mb_family_factor(const char *name, int fam, unsigned mask) {
    if (!(mask >> fam & 1) || stakes_compiler_fused(name)) return 1;
    if (fam == KF_LAYOUT && !strcasestr(name, "catarraybatchedcopy")) return (float)STAKE_MB_LAYOUT_FACTOR;
    return (float)STAKE_MB_FAMILY_FACTOR;
}

/* SK_MB's set by family (mb_family_factor per kernel, one classification per name); *give (may be
 * NULL): what it takes off the kernels' time, sum of time x (1 - factor); NULL when no family */
static float *mb_family_set(const pc_trace *t, double *give) {
    double fam[KF_NFAMILY], kern, ns;
    unsigned mask = stakes_mb_families(t, fam, &kern, &ns);
    if (give) *give = 0;
    if (!mask) return NULL;
    float *f = spill_alloc(t->ngpu * sizeof *f);
    float *by_name = spill_alloc((t->strs.n ? t->strs.n : 1) * sizeof *by_name); /* < 0: not yet */
    for (size_t i = 0; i < t->strs.n; i++) by_name[i] = -1;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        f[g] = 1;
        if (e->kind != GPU_KERNEL) continue;
        if (by_name[e->name] < 0) {
            const char *nm = strtab_get(&t->strs, e->name);
            by_name[e->name] = mb_family_factor(nm, kf_classify(nm).family, mask);
        }
        f[g] = by_name[e->name];
        if (give) *give += (double)e->dur * (1 - (double)f[g]);
    }
    spill_free(by_name);
    return f;
}

double stakes_mb_family_give(const pc_trace *t) {
    double give;
    spill_free(mb_family_set(t, &give));
    return give;
}

float *stakes_mb_set(const an_ctx *c, const pc_summary *ps) {
    const pc_trace *t = c->t;
    if (t->ngpu && stakes_gpu_op_share(c) < STAKE_GPU_OP_SHARE) return mb_family_set(t, NULL);
    if (!c->peak || !t->ngpu || !c->links.gpu_inner || !PC_TAB(ps, op)) return NULL;
    float *f = spill_alloc(t->ngpu * sizeof *f);
    const pc_table *tab = PC_TAB(ps, op);
    int32_t *row = stakes_op_rows(t, TAB_ROWS(tab, op), tab->n); /* per operator name */
    attn_set attn; /* unfused attention's GPU work: its fix (a fused kernel) replaces it, so not this set's */
    attn_find(t, &c->links, &attn);
    int any = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        int32_t op = c->links.gpu_inner[g];
        f[g] = 1;
        if ((e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) || op < 0 || (attn.gpu && attn.gpu[g])) continue;
        int32_t r = row[t->cpu[op].name];
        f[g] = r < 0 ? 1 : mb_factor(&TAB_ROWS(tab, op)[r]);
        any |= f[g] < 1;
    }
    spill_free(row);
    attn_free(&attn);
    if (!any) spill_free(f), f = NULL;
    return f;
}

/* A product's FLOPs at STAKE_ATTN_PEAK_SHARE of the device's Tensor Core peak for its data type (ns); < 0 when unknown */
static double attn_product_ns(const an_ctx *c, int32_t i) {
    const pc_trace *t = c->t;
    const pc_cpu_event *e = &t->cpu[i];
    op_args args;
    flops_result fr;
    op_args_parse(&args, e->input_dims ? strtab_get(&t->strs, e->input_dims) : NULL, e->input_types ? strtab_get(&t->strs, e->input_types) : NULL,
                  e->concrete ? strtab_get(&t->strs, e->concrete) : NULL);
    double peak = 0;
    if (!op_flops(strtab_get(&t->strs, e->name), &args, NULL, &fr) || fr.flops <= 0 || (peak = peak_tflops(c->peak, fr.dtype, 1)) <= 0) return -1;
    return fr.flops / (STAKE_ATTN_PEAK_SHARE * peak * 1e3); /* TFLOP/s = 1e3 FLOP/ns */
}
double stakes_attn_fused(const an_ctx *c, const attn_pattern *p) {
    double f1 = attn_product_ns(c, p->first), f2 = attn_product_ns(c, p->second);
    return f1 >= 0 && f2 >= 0 ? f1 + f2 : p->first_ns + p->second_ns;
}
/* a product's share counted by tensor_cores: 1 - 1/STAKE_TC_SPEEDUP of its time when its operator ran on no Tensor Core */
static double attn_tc_share(const an_ctx *c, const tab_op *rows, size_t n, int32_t i) {
    if (!c->dev0 || c->dev0->cc_major < 7) return 0;
    const char *name = strtab_get(&c->t->strs, c->t->cpu[i].name);
    for (size_t k = 0; k < n; k++) {
        const tab_op *o = &rows[k];
        if (o->name && (!strcmp(o->name, name) || !strcmp(o->name, "aten::bmm")) && o->tc_eligible == 1 && o->tensor_cores &&
            !strcmp(o->tensor_cores, "no"))
            return 1 - 1 / STAKE_TC_SPEEDUP;
    }
    return 0;
}
double stakes_attn_tc(const an_ctx *c, const tab_op *rows, size_t n, const attn_pattern *p) {
    return p->first_ns * attn_tc_share(c, rows, n, p->first) + p->second_ns * attn_tc_share(c, rows, n, p->second);
}
float *stakes_attn_set(const an_ctx *c, const pc_summary *ps) {
    const pc_trace *t = c->t;
    attn_set s;
    if (!t->ngpu || !attn_find(t, &c->links, &s)) return NULL;
    const pc_table *tab = PC_TAB(ps, op);
    const tab_op *rows = tab ? TAB_ROWS(tab, op) : NULL;
    size_t nrows = tab ? tab->n : 0;
    double *fac = spill_alloc(s.n * sizeof *fac);
    for (size_t k = 0; k < s.n; k++) {
        const attn_pattern *p = &s.p[k];
        double to = stakes_attn_fused(c, p) + stakes_attn_tc(c, rows, nrows, p);
        fac[k] = p->ns > 0 && to < p->ns ? to / p->ns : 1;
    }
    float *f = spill_alloc(t->ngpu * sizeof *f);
    for (size_t g = 0; g < t->ngpu; g++) f[g] = s.gpu[g] ? (float)fac[s.gpu[g] - 1] : 1;
    spill_free(fac);
    attn_free(&s);
    return f;
}

/* SK_GPU's factor for an operator row: % of compute peak / STAKE_GPU_PEAK_SHARE when
 * compute-bound and under it, 0 when the row does not say (look further out), else 1 */
static float gk_factor(const tab_op *o) {
    double pct = PC_OR(o->compute_peak_pct, -1);
    if (!o->bound_by || strcmp(o->bound_by, "compute") || pct <= 0) return 0;
    return pct >= 100 * STAKE_GPU_PEAK_SHARE ? 1 : (float)(pct / (100 * STAKE_GPU_PEAK_SHARE));
}

/* Whether a kernel has an operator that launched it: a CPU_OP around its
 * launch, the launch not a graph's (cudaGraphLaunch / hipGraphLaunch: the
 * operator around a graph replay did not launch its kernels one by one) */
static int gk_has_op(const an_ctx *c, size_t g) {
    int32_t call = c->links.gpu_launch ? c->links.gpu_launch[g] : -1;
    if (call >= 0 && strstr(strtab_get(&c->t->strs, c->t->cpu[call].name), "GraphLaunch")) return 0;
    for (int32_t p = c->links.gpu_inner[g]; p >= 0; p = c->links.parent[p])
        if (c->t->cpu[p].kind == CPU_OP) return 1;
    return 0;
}

double stakes_gpu_op_share(const an_ctx *c) {
    const pc_trace *t = c->t;
    double kern = 0, known = 0;
    int links = c->links.gpu_inner && c->links.parent;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL) continue;
        kern += (double)e->dur;
        if (links && gk_has_op(c, g)) known += (double)e->dur;
    }
    return kern > 0 ? known / kern : 1;
}

unsigned stakes_gpu_families(const pc_trace *t, double fam[], double *kern) {
    uint8_t *fam_of = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* family + 1; 0: not yet */
    *kern = 0;
    for (int f = 0; f < KF_NFAMILY; f++) fam[f] = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL) continue;
        if (!fam_of[e->name]) fam_of[e->name] = (uint8_t)(kf_classify(strtab_get(&t->strs, e->name)).family + 1);
        fam[fam_of[e->name] - 1] += (double)e->dur, *kern += (double)e->dur;
    }
    spill_free(fam_of);
    unsigned mask = 0;
    for (int f = 0; f < KF_NFAMILY; f++)
        if (!(STAKE_GPU_NOT_FAMILIES >> f & 1) && *kern > 0 && fam[f] >= STAKE_GPU_FAMILY_SHARE * *kern) mask |= 1u << f;
    return mask;
}

/* SK_GPU's set by family: the kernels of the dominant families at factor 0 */
static float *gk_family_set(const an_ctx *c, double *ns, double *give) {
    const pc_trace *t = c->t;
    double fam[KF_NFAMILY], kern;
    unsigned mask = stakes_gpu_families(t, fam, &kern);
    if (!mask) return NULL;
    float *f = spill_alloc(t->ngpu * sizeof *f);
    double sum = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        f[g] = 1;
        if (e->kind != GPU_KERNEL || !(mask >> kf_classify(strtab_get(&t->strs, e->name)).family & 1)) continue;
        f[g] = 0, sum += (double)e->dur;
    }
    if (ns) *ns = sum;
    if (give) *give = sum;
    return f;
}

float *stakes_gpu_set(const an_ctx *c, const pc_summary *ps, double *ns, double *give, double *row_ns) {
    const pc_trace *t = c->t;
    if (ns) *ns = 0;
    if (give) *give = 0;
    if (!t->ngpu) return NULL;
    if (stakes_gpu_op_share(c) < STAKE_GPU_OP_SHARE) return gk_family_set(c, ns, give);
    if (!c->links.gpu_inner || !c->links.parent || !PC_TAB(ps, op)) return NULL;
    const pc_table *tab = PC_TAB(ps, op);
    const tab_op *rows = TAB_ROWS(tab, op);
    int32_t *row = stakes_op_rows(t, rows, tab->n);
    float *f = spill_alloc(t->ngpu * sizeof *f), *own_tc;
    const float *tc = stakes_tc(c, NULL, &own_tc); /* FP32 work Tensor Cores would take: tensor_cores' */
    int any = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        f[g] = 1;
        if (e->kind != GPU_KERNEL || (tc && tc[g] < 1)) continue;
        float k = 0; /* the nearest operator out from the kernel whose row says */
        int32_t at = -1;
        for (int32_t p = c->links.gpu_inner[g]; p >= 0 && k == 0; p = c->links.parent[p])
            if (t->cpu[p].kind == CPU_OP && row[t->cpu[p].name] >= 0) at = row[t->cpu[p].name], k = gk_factor(&rows[at]);
        if (k <= 0 || k >= 1) continue;
        assert(k > 0 && k < 1);
        f[g] = k;
        any = 1;
        if (ns) *ns += (double)e->dur;
        if (give) *give += (double)e->dur * (1 - (double)k);
        if (row_ns) row_ns[at] += (double)e->dur;
    }
    spill_free(row);
    spill_free(own_tc);
    if (!any) spill_free(f), f = NULL;
    return f;
}

dg_change stakes_gpu_change(const float *gk) {
    dg_change ch = {0};
    ch.scale = gk;
    ch.gpu_ends_step = 1;
    return ch;
}

dg_change stakes_change(int k, const float *tc, const float *mb, int keep_phases) {
    dg_change ch = {0};
    switch (k) {
    case SK_SYNC: ch.no_sync_wait = 1; break;
    case SK_DATA: ch.no_data_wait = 1; break;
    case SK_TC: ch.scale = tc; break;
    case SK_HOST: ch.host_floor_ns = STAKE_HOST_FLOOR_NS, ch.keep_phases = keep_phases; break;
    case SK_MB:
    case SK_ATTN: ch.scale = mb; break;
    }
    return ch;
}

double stakes_mean(const double *v, size_t n) {
    if (!n) return 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    return sum / (double)n;
}

int stakes_disabled(void) {
    const char *off = getenv("PERFCARD_NO_REPLAY");
    return off && *off && strcmp(off, "0");
}

void an_handoff_check(const an_handoff *h) {
    if (!h) return;
    assert((h->ix == NULL) == (h->t0 == NULL));
    assert(!h->host_done || h->ix);
    assert(h->sets || !h->tc);
    assert(h->tc_ns >= 0);
}

void an_handoff_free(an_handoff *h) {
    if (!h) return;
    an_handoff_check(h);
    dg_index_free(h->ix);
    spill_free(h->t0);
    spill_free(h->tc);
    memset(h, 0, sizeof *h);
}

const float *stakes_tc(const an_ctx *c, double *ns, float **own) {
    *own = NULL;
    const an_handoff *h = c->handoff;
    an_handoff_check(h);
    if (h && h->sets) {
        if (ns) *ns = h->tc_ns;
        return h->tc;
    }
    return *own = stakes_tc_set(c, ns);
}

/* stakes_replay's pass: each step's savings, in step order (dg_each_step) */
typedef struct sr_pass {
    dg_change *ch;
    int n;
    const int64_t *t0; /* kept, or NULL: replayed here */
    double *per;       /* per change, per step */
    size_t nsteps;
    double *bper;      /* per change, per step: the time before it (NULL: not asked) */
} sr_pass;
static void sr_step(dg_graph *g, size_t si, void *arg) {
    sr_pass *p = arg;
    int64_t t0 = p->t0 ? p->t0[si] : dg_replay(g, NULL), tg = -1; /* tg: the window to the GPU's end (gpu_ends_step) */
    for (int k = 0; k < p->n; k++) {
        int64_t b = t0;
        if (p->ch[k].gpu_ends_step) {
            if (tg < 0) tg = dg_replay(g, &(dg_change){.gpu_ends_step = 1});
            b = tg;
        }
        p->per[(size_t)k * p->nsteps + si] = (double)(b - dg_replay_steady(g, &p->ch[k], si == 0));
        if (p->bper) p->bper[(size_t)k * p->nsteps + si] = (double)b;
    }
}

int stakes_replay(const an_ctx *c, const dg_change *chs, int n, double *save) { return stakes_replay_base(c, chs, n, save, NULL); }

int stakes_replay_base(const an_ctx *c, const dg_change *chs, int n, double *save, double *base) {
    const pc_trace *t = c->t;
    for (int k = 0; k < n; k++) {
        save[k] = 0;
        if (base) base[k] = 0;
    }
    if (stakes_disabled()) return 0;
    if (t->count_cpu[CPU_RUNTIME] + t->count_cpu[CPU_DRIVER] == 0 || !c->nsteps) return 0;
    an_handoff_check(c->handoff);
    const an_handoff *kept = c->handoff && c->handoff->ix ? c->handoff : NULL;
    dg_index *ix = kept ? kept->ix : dg_index_new(c);
    size_t ns = dg_index_nstreams(ix) ? dg_index_nstreams(ix) : 1;
    int64_t *carry = xcalloc((size_t)(n ? n : 1) * ns, sizeof *carry);
    dg_change *ch = xmalloc((size_t)(n ? n : 1) * sizeof *ch);
    for (int k = 0; k < n; k++) ch[k] = chs[k], ch[k].carry = ch[k].gpu_ends_step ? NULL : carry + (size_t)k * ns;
    sr_pass p = {ch, n, kept ? kept->t0 : NULL, spill_alloc((size_t)(n ? n : 1) * c->nsteps * sizeof *p.per), c->nsteps,
                 base ? spill_alloc((size_t)(n ? n : 1) * c->nsteps * sizeof *p.bper) : NULL};
    /* two threads for a big trace (the suggestions run alone: analyze.c's last stage) */
    dg_each_step(ix, t->ncpu + t->ngpu > DG_THREADED_EVENTS ? 2 : 1, sr_step, &p);
    for (int k = 0; k < n; k++) save[k] = stakes_mean(p.per + (size_t)k * c->nsteps, c->nsteps);
    for (int k = 0; base && k < n; k++) base[k] = stakes_mean(p.bper + (size_t)k * c->nsteps, c->nsteps);
    spill_free(p.per);
    spill_free(p.bper);
    free(carry);
    free(ch);
    if (!kept) dg_index_free(ix);
    return 1;
}
