/* attention.c - attention written out by hand (attention.h). */
#include "attention.h"
#include "../util/spill.h"
#include <assert.h>
#include <string.h>

static int is_softmax(const char *n) { return !strcmp(n, "aten::softmax") || !strcmp(n, "aten::_softmax"); }
static int is_product(const char *n) {
    return !strcmp(n, "aten::bmm") || !strcmp(n, "aten::baddbmm") || !strcmp(n, "aten::matmul") || !strcmp(n, "aten::einsum");
}
static const char *cpu_name(const pc_trace *t, int32_t i) { return strtab_get(&t->strs, t->cpu[i].name); }

/* Whether host event p can be a scope: an operator, a user range or an nn.Module frame. */
static int is_scope(const pc_trace *t, int32_t p) {
    return t->cpu[p].kind == CPU_OP || t->cpu[p].kind == CPU_USER_ANNOT || links_is_module(t, p);
}

/* Whether host event p is an nn.Softmax module's frame ("nn.Module: Softmax_N"): a softmax
 * written as a module, which belongs to the scope around it as aten::softmax would */
static int softmax_module(const pc_trace *t, int32_t p) {
    return links_is_module(t, p) && !strncmp(cpu_name(t, p) + 11, "Softmax_", 8);
}

int32_t attn_scope(const pc_trace *t, const pc_links *l, int32_t i) {
    int hops = 0;
    for (int32_t p = l->parent[i]; p >= 0 && hops < LINKS_DEPTH_MAX; p = l->parent[p], hops++)
        if (is_scope(t, p) && !softmax_module(t, p)) return p;
    return -1;
}

/* attn_scope of every operator (-1 for other host events), spill_alloc'd: one
 * pass with each event's scope for its children (itself when it can be one,
 * else its parent's) kept, the parent's taken when it came earlier in the
 * array (the usual order: by start, the longer first), else walked. */
static int32_t *scopes_of(const pc_trace *t, const pc_links *l) {
    int32_t *inner = spill_alloc(t->ncpu * sizeof *inner), *scope = spill_alloc(t->ncpu * sizeof *scope);
    for (size_t i = 0; i < t->ncpu; i++) {
        int32_t p = l->parent[i];
        int32_t up = p < 0 ? -1 : (size_t)p < i ? inner[p] : attn_scope(t, l, (int32_t)i);
        inner[i] = is_scope(t, (int32_t)i) && !softmax_module(t, (int32_t)i) ? (int32_t)i : up;
        scope[i] = t->cpu[i].kind == CPU_OP ? up : -1;
    }
    spill_free(inner);
    return scope;
}

/* An operator in a scope holding a softmax, in order of (scope, time). */
typedef struct sib { int32_t scope, i; int64_t ts; } sib;
static int sib_cmp(const void *a, const void *b) {
    const sib *x = a, *y = b;
    if (x->scope != y->scope) return x->scope < y->scope ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The operators written in a scope that holds a softmax (scope[] per host
 * event, -1 where not an operator), sorted; *n their number. spill_free. */
static sib *scope_members(const pc_trace *t, const int32_t *scope, size_t *n) {
    uint8_t *holds = spill_calloc(t->ncpu, 1);
    int any = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        int32_t s = scope[i];
        if (s < 0 || !is_softmax(cpu_name(t, (int32_t)i))) continue;
        if (t->cpu[s].kind == CPU_OP && is_softmax(cpu_name(t, s))) continue; /* _softmax inside softmax */
        holds[s] = 1, any = 1;
    }
    sib *v = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; any && i < t->ncpu; i++)
        if (scope[i] >= 0 && holds[scope[i]]) *SPILL_PUSH(v, *n, cap) = (sib){scope[i], (int32_t)i, t->cpu[i].ts};
    spill_free(holds);
    if (*n) spill_sort(v, *n, sizeof *v, sib_cmp);
    return v;
}

static int pat_cmp(const void *a, const void *b) {
    const attn_pattern *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* The patterns among the sorted scope members v[0..n) (attention.h), in order of (scope, time). */
static attn_pattern *patterns_of(const pc_trace *t, const sib *v, size_t n, size_t *np) {
    attn_pattern *p = NULL;
    size_t cap = 0;
    *np = 0;
    for (size_t k = 0; k < n; k++) {
        if (!is_softmax(cpu_name(t, v[k].i))) continue;
        size_t a = k, b = k;
        while (a > 0 && v[a - 1].scope == v[k].scope && !is_product(cpu_name(t, v[a - 1].i))) a--;
        while (b + 1 < n && v[b + 1].scope == v[k].scope && !is_product(cpu_name(t, v[b + 1].i))) b++;
        if (a == 0 || v[a - 1].scope != v[k].scope || b + 1 >= n || v[b + 1].scope != v[k].scope) continue;
        const pc_cpu_event *f = &t->cpu[v[a - 1].i], *g = &t->cpu[v[b + 1].i];
        *SPILL_PUSH(p, *np, cap) = (attn_pattern){v[k].scope, v[a - 1].i, v[b + 1].i, f->pid, f->tid, f->ts, g->ts + g->dur, 0, 0, 0, 0};
        k = b; /* the second product, at b + 1, may open the next pattern */
    }
    return p;
}

/* The index of the pattern of s whose window holds host event op (on its
 * thread, from the first product's start to the second's end), the latest
 * starting of at most ATTN_LOOKBACK looked at; -1 for none. s->p is sorted by
 * (process, thread, start), each with its reach. */
static long window_of(const pc_trace *t, const attn_set *s, int32_t op) {
    const pc_cpu_event *e = &t->cpu[op];
    size_t lo = 0, hi = s->n; /* the first pattern starting after e, or on a later thread */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const attn_pattern *f = &s->p[mid];
        int after = f->pid != e->pid ? f->pid > e->pid : f->tid != e->tid ? f->tid > e->tid : f->t0 > e->ts;
        if (after) hi = mid;
        else lo = mid + 1;
    }
    for (size_t k = lo, seen = 0; k-- > 0 && seen < ATTN_LOOKBACK; seen++) {
        const attn_pattern *f = &s->p[k];
        if (f->pid != e->pid || f->tid != e->tid || f->reach < e->ts + e->dur) break; /* no window before reaches e */
        if (e->ts + e->dur <= f->t1) return (long)k;
    }
    return -1;
}

/* Whether host event op lies inside host event p's range on its thread. */
static int inside(const pc_trace *t, int32_t op, int32_t p) {
    const pc_cpu_event *e = &t->cpu[op], *f = &t->cpu[p];
    return e->pid == f->pid && e->tid == f->tid && e->ts >= f->ts && e->ts + e->dur <= f->ts + f->dur;
}

size_t attn_find(const pc_trace *t, const pc_links *l, attn_set *s) {
    memset(s, 0, sizeof *s);
    if (!l->parent || !l->gpu_inner || !t->ncpu) return 0;
    int32_t *scope = scopes_of(t, l);
    size_t n;
    sib *v = scope_members(t, scope, &n);
    spill_free(scope);
    s->p = patterns_of(t, v, n, &s->n);
    spill_free(v);
    if (!s->n) {
        attn_free(s);
        return 0;
    }
    spill_sort(s->p, s->n, sizeof *s->p, pat_cmp);
    for (size_t k = 0; k < s->n; k++) {
        attn_pattern *p = &s->p[k], *q = k ? p - 1 : NULL;
        p->reach = q && q->pid == p->pid && q->tid == p->tid && q->reach > p->t1 ? q->reach : p->t1;
    }
    s->gpu = spill_calloc(t->ngpu ? t->ngpu : 1, sizeof *s->gpu);
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        int32_t op = l->gpu_inner[g];
        if ((e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET) || op < 0) continue;
        long k = window_of(t, s, op);
        if (k < 0) continue;
        attn_pattern *p = &s->p[k];
        s->gpu[g] = (int32_t)k + 1;
        p->ns += (double)e->dur;
        if (inside(t, op, p->first)) p->first_ns += (double)e->dur;
        else if (inside(t, op, p->second)) p->second_ns += (double)e->dur;
        assert(p->first_ns + p->second_ns <= p->ns);
    }
    return s->n;
}

void attn_free(attn_set *s) {
    spill_free(s->p);
    spill_free(s->gpu);
    memset(s, 0, sizeof *s);
}
