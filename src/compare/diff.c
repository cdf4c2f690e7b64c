#include "diff.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- statistics ---------- */

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) { /* sorts v */
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct obs { double v; int g; } obs;
static int cmp_obs(const void *p, const void *q) {
    const obs *x = p, *y = q;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Two-sided p-value of the Mann-Whitney U test, normal approximation with
 * tie correction and continuity correction. */
double pc_mann_whitney_p(const double *a, int na, const double *b, int nb) {
    int n = na + nb;
    if (na < 1 || nb < 1) return 1;
    obs *o = xmalloc((size_t)n * sizeof *o);
    for (int i = 0; i < na; i++) o[i] = (obs){a[i], 0};
    for (int i = 0; i < nb; i++) o[na + i] = (obs){b[i], 1};
    qsort(o, (size_t)n, sizeof *o, cmp_obs);
    double ra = 0, tie = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && o[j].v == o[i].v) j++;
        double rank = (i + 1 + j) / 2.0, t = j - i;
        for (int k = i; k < j; k++)
            if (o[k].g == 0) ra += rank;
        tie += t * t * t - t;
        i = j;
    }
    free(o);
    double u = ra - na * (na + 1) / 2.0, mu = na * (double)nb / 2;
    double sigma = sqrt(na * (double)nb / 12.0 * ((n + 1) - tie / ((double)n * (n - 1))));
    if (sigma <= 0) return 1;
    double z = (fabs(u - mu) - 0.5) / sigma;
    if (z < 0) z = 0;
    return erfc(z / sqrt(2.0));
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* Percentile bootstrap interval (2.5%, 97.5%) of median(b) / median(a),
 * with a fixed seed so the same inputs give the same interval. */
void pc_bootstrap_median_ratio(const double *a, int na, const double *b, int nb, int iters, double *lo, double *hi) {
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    double *ra = xmalloc((size_t)na * sizeof *ra), *rb = xmalloc((size_t)nb * sizeof *rb), *ratio = xmalloc((size_t)iters * sizeof *ratio);
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < na; i++) ra[i] = a[rng_next(&seed) % (uint64_t)na];
        for (int i = 0; i < nb; i++) rb[i] = b[rng_next(&seed) % (uint64_t)nb];
        double ma = median(ra, na), mb = median(rb, nb);
        ratio[it] = ma > 0 ? mb / ma : 1;
    }
    qsort(ratio, (size_t)iters, sizeof *ratio, cmp_d);
    *lo = ratio[(int)(0.025 * iters)];
    *hi = ratio[(int)(0.975 * iters) < iters ? (int)(0.975 * iters) : iters - 1];
    free(ra);
    free(rb);
    free(ratio);
}

/* ---------- names ---------- */

void pc_kernel_normalize(const char *s, char *out, size_t cap) {
    size_t n = 0;
    int depth = 0;
    if (!strncmp(s, "void ", 5)) s += 5;
    for (; *s && n + 1 < cap; s++) {
        char ch = *s;
        if (ch == '<' || ch == '(') { depth++; continue; }
        if (ch == '>' || ch == ')') { if (depth) depth--; continue; }
        if (depth) continue;
        /* tile sizes and other numbers: 128x64, _v1, sm80 -> dropped digits */
        if (isdigit((unsigned char)ch)) {
            if (n && out[n - 1] != '#') out[n++] = '#';
            while (isdigit((unsigned char)s[1]) || s[1] == 'x') s++;
            continue;
        }
        out[n++] = ch;
    }
    while (n && out[n - 1] == ' ') n--;
    out[n] = 0;
}

/* ---------- tables ---------- */

typedef struct entry { char *key; double base; double *runs; int in_base; int *in_run; const char *how; char *label; } entry;

typedef struct table { entry *v; size_t n, cap; int nruns; hmap by_key; } table;

static uint64_t str_hash(const char *s) { /* FNV-1a */
    uint64_t h = 1469598103934665603ULL;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static entry *dtab_get(table *t, const char *key, const char *label) {
    int created;
    uint32_t *slot = hmap_get(&t->by_key, str_hash(key), &created);
    if (!created) {
        if (!strcmp(t->v[*slot].key, key)) return &t->v[*slot];
        for (size_t i = 0; i < t->n; i++) /* two keys with one hash: rare */
            if (!strcmp(t->v[i].key, key)) return &t->v[i];
    }
    entry *e = VEC_PUSH(t->v, t->n, t->cap);
    if (created) *slot = (uint32_t)(t->n - 1);
    memset(e, 0, sizeof *e);
    e->key = xstrdup(key);
    e->label = xstrdup(label ? label : key);
    e->runs = xcalloc((size_t)t->nruns, sizeof *e->runs);
    e->in_run = xcalloc((size_t)t->nruns, sizeof *e->in_run);
    e->how = "name";
    return e;
}

static void dtab_free(table *t) {
    for (size_t i = 0; i < t->n; i++) free(t->v[i].key), free(t->v[i].label), free(t->v[i].runs), free(t->v[i].in_run);
    free(t->v);
    hmap_free(&t->by_key);
}

/* Items with equal strings, in index order: head[hash] -> first, next[i] ->
 * the following one with the same hash (callers compare the strings). */
typedef struct chains { hmap head; uint32_t *next; } chains;
static void chains_build(chains *c, const char *const *str, size_t n) {
    memset(c, 0, sizeof *c);
    c->next = xmalloc((n ? n : 1) * sizeof *c->next);
    hmap tail = {0}; /* hash -> the chain's last item */
    for (size_t i = 0; i < n; i++) {
        c->next[i] = UINT32_MAX;
        if (!str[i]) continue;
        uint64_t h = str_hash(str[i]);
        int created;
        uint32_t *hs = hmap_get(&c->head, h, &created);
        uint32_t *ts = hmap_get(&tail, h, NULL);
        if (created) *hs = (uint32_t)i;
        else c->next[*ts] = (uint32_t)i;
        *ts = (uint32_t)i;
    }
    hmap_free(&tail);
}
static uint32_t chains_first(const chains *c, const char *s) {
    const uint32_t *h = hmap_find(&c->head, str_hash(s));
    return h ? *h : UINT32_MAX;
}
static void chains_free(chains *c) {
    hmap_free(&c->head);
    free(c->next);
}

/* kernels of a summary, summed over devices: name -> (time, operator) */
typedef struct kitem { const char *name, *op; double ns; int used; size_t order; } kitem;

static int cmp_kitem(const void *a, const void *b) {
    const kitem *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static kitem *kernels_of(const pc_summary *s, size_t *n) {
    size_t cap = 0, m = 0;
    kitem *v = NULL;
    const cJSON *d;
    cJSON_ArrayForEach(d, sj_get(s->doc, "kernels.devices")) {
        const pc_table *t = pc_summary_table_of(s, cJSON_GetObjectItemCaseSensitive(d, "rows"));
        for (size_t i = 0; t && i < t->n; i++) {
            const tab_kernel *r = &TAB_ROWS(t, kernel)[i];
            kitem *k = VEC_PUSH(v, m, cap);
            k->name = r->name ? r->name : "", k->op = r->operator ? r->operator : "", k->used = 0, k->order = m - 1;
            k->ns = r->total_ns > 0 ? (double)r->total_ns : 0;
        }
    }
    /* one item per name: the devices' times summed, the first device's operator */
    if (m) qsort(v, m, sizeof *v, cmp_kitem);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && !strcmp(v[k - 1].name, v[i].name)) v[k - 1].ns += v[i].ns;
        else v[k++] = v[i];
    }
    *n = k;
    return v;
}

/* perf diff's pairing, in three passes: exact name, normalized name, then
 * by the launching operator (kernels that change name across GPUs/libraries).
 * Each pass looks its partners up by hash: linear in the kernels. */
static void match_kernels(table *t, const pc_summary *base, const pc_summary *const *runs, int nruns) {
    size_t nb;
    kitem *kb = kernels_of(base, &nb);
    const char **bname = xmalloc((nb ? nb : 1) * sizeof *bname), **bnorm = xmalloc((nb ? nb : 1) * sizeof *bnorm),
               **bop = xmalloc((nb ? nb : 1) * sizeof *bop);
    char buf[512];
    for (size_t i = 0; i < nb; i++) {
        entry *e = dtab_get(t, kb[i].name, kb[i].name);
        e->base = kb[i].ns, e->in_base = 1;
        bname[i] = kb[i].name;
        pc_kernel_normalize(kb[i].name, buf, sizeof buf);
        bnorm[i] = xstrdup(buf);
        bop[i] = kb[i].op && *kb[i].op ? kb[i].op : NULL;
    }
    chains by_name, by_norm, by_op;
    chains_build(&by_name, bname, nb);
    chains_build(&by_norm, bnorm, nb);
    chains_build(&by_op, bop, nb);
    for (int r = 0; r < nruns; r++) {
        size_t nr;
        kitem *kr = kernels_of(runs[r], &nr);
        for (size_t i = 0; i < nb; i++) kb[i].used = 0;
        /* 1. exact (names are unique within a summary) */
        for (size_t j = 0; j < nr; j++)
            for (uint32_t i = chains_first(&by_name, kr[j].name); i != UINT32_MAX; i = by_name.next[i])
                if (!kb[i].used && !strcmp(kb[i].name, kr[j].name)) {
                    entry *e = dtab_get(t, kb[i].name, NULL);
                    e->runs[r] += kr[j].ns, e->in_run[r] = 1;
                    kb[i].used = kr[j].used = 1;
                    break;
                }
        /* 2. normalized: the first unused base kernel of the same normal form */
        for (size_t j = 0; j < nr; j++) {
            if (kr[j].used) continue;
            pc_kernel_normalize(kr[j].name, buf, sizeof buf);
            for (uint32_t i = chains_first(&by_norm, buf); i != UINT32_MAX; i = by_norm.next[i]) {
                if (kb[i].used || strcmp(bnorm[i], buf)) continue;
                entry *e = dtab_get(t, kb[i].name, NULL);
                e->runs[r] += kr[j].ns, e->in_run[r] = 1, e->how = "normalized name";
                kb[i].used = kr[j].used = 1;
                break;
            }
        }
        /* 3. by launching operator: the remaining kernels of one operator, as one entry */
        const char **rop = xmalloc((nr ? nr : 1) * sizeof *rop);
        for (size_t j = 0; j < nr; j++) rop[j] = kr[j].op && *kr[j].op ? kr[j].op : NULL;
        chains rby_op;
        chains_build(&rby_op, rop, nr);
        for (size_t j = 0; j < nr; j++) {
            if (kr[j].used || !rop[j]) continue;
            int any = 0;
            for (uint32_t i = chains_first(&by_op, rop[j]); i != UINT32_MAX && !any; i = by_op.next[i])
                any = !kb[i].used && !strcmp(bop[i], rop[j]);
            if (!any) continue;
            char key[600];
            snprintf(key, sizeof key, "kernels of %s", rop[j]);
            entry *e = dtab_get(t, key, key);
            double bsum = 0;
            for (uint32_t i = chains_first(&by_op, rop[j]); i != UINT32_MAX; i = by_op.next[i])
                if (!kb[i].used && !strcmp(bop[i], rop[j])) {
                    bsum += kb[i].ns;
                    kb[i].used = 2;
                    entry *old = dtab_get(t, kb[i].name, NULL);
                    old->in_base = 0; /* moved into the operator entry */
                    old->base = 0;
                }
            if (bsum > 0) e->base += bsum, e->in_base = 1;
            for (uint32_t q = chains_first(&rby_op, rop[j]); q != UINT32_MAX; q = rby_op.next[q])
                if (q >= j && !kr[q].used && !strcmp(rop[q], rop[j])) e->runs[r] += kr[q].ns, kr[q].used = 1;
            e->in_run[r] = 1;
            e->how = "launching operator";
        }
        chains_free(&rby_op);
        free(rop);
        /* 4. added in this run */
        for (size_t j = 0; j < nr; j++) {
            if (kr[j].used) continue;
            entry *e = dtab_get(t, kr[j].name, kr[j].name);
            e->runs[r] += kr[j].ns, e->in_run[r] = 1;
        }
        free(kr);
    }
    chains_free(&by_name);
    chains_free(&by_norm);
    chains_free(&by_op);
    for (size_t i = 0; i < nb; i++) free((char *)bnorm[i]);
    free(bname);
    free(bnorm);
    free(bop);
    free(kb);
}

/* rows of one table matched by the value of column key, summing column val
 * (operators: name and device total; operator types: type and time) */
static void match_by_name(table *t, const pc_summary *base, const pc_summary *const *runs, int nruns, int id, const char *key,
                          const char *val) {
    const pc_table_def *d = &pc_table_defs[id];
    const pc_col *kc = tab_col(d, key), *vc = tab_col(d, val);
    for (int k = -1; k < nruns; k++) {
        const pc_table *tb = pc_summary_table(k < 0 ? base : runs[k], d->path);
        for (size_t i = 0; tb && i < tb->n; i++) {
            const char *row = (const char *)tb->rows + i * d->row_size;
            pc_cell name = tab_cell(kc, row), x = tab_cell(vc, row);
            entry *e = dtab_get(t, name.null ? "" : name.s, NULL);
            double v = !x.null && x.i > 0 ? (double)x.i : 0;
            if (k < 0) e->base += v, e->in_base = 1;
            else e->runs[k] += v, e->in_run[k] = 1;
        }
    }
}

static double maxabs_delta(const entry *e, int nruns) {
    double m = 0;
    for (int r = 0; r < nruns; r++) m = fmax(m, fabs(e->runs[r] - e->base));
    return m;
}
static int cmp_entry(const void *a, const void *b, void *nruns) {
    const entry *x = a, *y = b;
    double p = maxabs_delta(x, *(const int *)nruns), q = maxabs_delta(y, *(const int *)nruns);
    if (p != q) return p > q ? -1 : 1;
    return strcmp(x->key, y->key);
}

static void pct_ratio(cJSON *o, double base, double nw, int in_base, int in_new) {
    sj_num(o, "delta_ns", nw - base);
    if (in_base && base > 0) sj_num(o, "delta_pct", 100 * (nw - base) / base);
    else cJSON_AddNullToObject(o, "delta_pct");
    if (in_base && base > 0 && in_new) sj_num(o, "ratio", nw / base);
    else cJSON_AddNullToObject(o, "ratio");
}

static cJSON *table_json(table *t, int nruns, int rows) {
    if (t->n) qsort_r(t->v, t->n, sizeof *t->v, cmp_entry, &nruns);
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = sj_arr(o, "rows");
    int added = 0, removed = 0, kept = 0;
    for (size_t i = 0; i < t->n; i++) {
        entry *e = &t->v[i];
        int any_run = 0;
        for (int r = 0; r < nruns; r++) any_run |= e->in_run[r];
        if (!e->in_base && !any_run) continue;
        if (!e->in_base) added++;
        if (!any_run) removed++;
        if (rows && kept >= rows) continue;
        kept++;
        cJSON *j = cJSON_CreateObject();
        sj_str(j, "name", e->label);
        sj_str(j, "status", !e->in_base ? "added" : !any_run ? "removed" : "matched");
        sj_str(j, "matched_by", e->in_base && any_run ? e->how : "");
        sj_num(j, "base_ns", e->base);
        cJSON *rr = sj_arr(j, "runs");
        for (int r = 0; r < nruns; r++) {
            cJSON *x = cJSON_CreateObject();
            sj_num(x, "new_ns", e->runs[r]);
            sj_str(x, "status", !e->in_base && e->in_run[r] ? "added" : e->in_base && !e->in_run[r] ? "removed" : e->in_run[r] ? "matched" : "absent");
            pct_ratio(x, e->base, e->runs[r], e->in_base, e->in_run[r]);
            cJSON_AddItemToArray(rr, x);
        }
        cJSON_AddItemToArray(arr, j);
    }
    sj_int(o, "added", added);
    sj_int(o, "removed", removed);
    sj_int(o, "total", (int64_t)t->n);
    return o;
}

/* ---------- side by side figures ---------- */

/* cat >= 0: the figure is that breakdown category's path (categories.h) */
typedef struct fig { const char *section, *label, *path; const char *unit; int higher_is_worse, cat; } fig;
static const fig figs[] = {
    {"steps", "Step time, median", "steps.median_ns", "ns", 1, -1},
    {"steps", "Step time, p90", "steps.p90_ns", "ns", 1, -1},
    {"steps", "Iteration interval (average)", "steps.average.iteration_interval_ns", "ns", 1, -1},
    {"steps", "Forward + backward (average)", "steps.average.fp_bp_ns", "ns", 1, -1},
    {"steps", "Tail (average)", "steps.average.tail_ns", "ns", 1, -1},
    {"breakdown", NULL, "avg_per_step_ns", "ns", 0, 0}, /* one row per category, from categories.h */
    {"gpu", "GPU utilization", "gpu.devices.0.utilization_pct", "pct", 0, -1},
    {"gpu", "Est. SM efficiency", "gpu.devices.0.sm_efficiency_pct", "pct", 0, -1},
    {"gpu", "Est. achieved occupancy", "gpu.devices.0.occupancy_pct", "pct", 0, -1},
    {"data", "Data wait per step", "dataloader.avg_wait_ns", "ns", 1, -1},
    {"data", "Data wait share of step", "dataloader.avg_wait_pct", "pct", 1, -1},
    {"data", "Steps waiting over 5% for data", "dataloader.steps_over_5pct", "count", 1, -1},
    {"data", "Steps with an empty queue", "queues.rows.0.empty_steps_pct", "pct", 1, -1},
    {"cpu", "CPU user", "cpu.average.user", "pct", 0, -1},
    {"cpu", "CPU system", "cpu.average.system", "pct", 1, -1},
    {"cpu", "Traced process CPU", "cpu.average.process", "pct", 0, -1},
    {"memory", "Peak GPU memory allocated", "memory.cuda_peak_allocated_bytes", "bytes", 1, -1},
    {"communication", "NCCL time (all steps)", "communication.nccl_ns", "ns", 1, -1},
    {"communication", "NCCL overlapped with compute", "communication.overlap_pct", "pct", 0, -1},
    {"kernels", "Kernel time (all)", "kernels.total_ns", "ns", 1, -1},
    {"kernels", "Tensor Core share of kernel time", "kernels.tensor_core_pct", "pct", 0, -1},
};

static const cJSON *fig_get(const cJSON *doc, const fig *f) {
    return f->cat >= 0 ? cJSON_GetObjectItemCaseSensitive(pc_bk_get(doc, f->cat), f->path) : sj_get(doc, f->path);
}

static int durations(const cJSON *s, double **out) {
    const cJSON *a = sj_get(s, "steps.durations_ns");
    int n = cJSON_GetArraySize(a);
    *out = xmalloc((size_t)(n ? n : 1) * sizeof **out);
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) (*out)[i++] = x->valuedouble;
    return sj_getnum(s, "steps.count", 0) > 0 ? n : 0;
}

cJSON *pc_diff(const pc_summary *bsum, const pc_summary *const *rsum, int nruns, const pc_diff_opts *o) {
    const cJSON *base = bsum->doc, **runs = xmalloc((size_t)(nruns > 0 ? nruns : 1) * sizeof *runs);
    for (int r = 0; r < nruns; r++) runs[r] = rsum[r]->doc;
    double thr = o && o->threshold_pct > 0 ? o->threshold_pct : 5;
    int rows = o ? o->rows : 0;
    cJSON *d = cJSON_CreateObject();
    sj_str(d, "schema", PC_DIFF_SCHEMA);
    sj_num(d, "threshold_pct", thr);
    sj_str(d, "method", "Mann-Whitney U test on per-step durations (two-sided, p < 0.05) and a bootstrap 95% interval "
                        "(2000 resamples) of the ratio of median step times");
    sj_int(d, "min_steps", PC_DIFF_MIN_STEPS);
    cJSON *b = sj_obj(d, "base");
    sj_str(b, "input", sj_getstr(base, "run.input", ""));
    sj_int(b, "steps", (int64_t)sj_getnum(base, "steps.count", 0));
    sj_num(b, "median_ns", sj_getnum(base, "steps.median_ns", 0));
    sj_num(b, "p90_ns", sj_getnum(base, "steps.p90_ns", 0));
    double *da;
    int na = durations(base, &da);
    cJSON *rs = sj_arr(d, "runs");
    const char *overall = "unchanged";
    int any_reg = 0, any_imp = 0, any_inc = 0;
    for (int r = 0; r < nruns; r++) {
        const cJSON *s = runs[r];
        cJSON *x = cJSON_CreateObject();
        sj_str(x, "input", sj_getstr(s, "run.input", ""));
        sj_int(x, "steps", (int64_t)sj_getnum(s, "steps.count", 0));
        double *db;
        int nb = durations(s, &db);
        double bm = sj_getnum(base, "steps.median_ns", 0), nm = sj_getnum(s, "steps.median_ns", 0);
        double bp = sj_getnum(base, "steps.p90_ns", 0), np = sj_getnum(s, "steps.p90_ns", 0);
        cJSON *st = sj_obj(x, "step_time");
        sj_num(st, "base_median_ns", bm);
        sj_num(st, "new_median_ns", nm);
        sj_num(st, "median_delta_ns", nm - bm);
        sj_num(st, "median_delta_pct", bm > 0 ? 100 * (nm - bm) / bm : 0);
        sj_num(st, "base_p90_ns", bp);
        sj_num(st, "new_p90_ns", np);
        sj_num(st, "p90_delta_pct", bp > 0 ? 100 * (np - bp) / bp : 0);
        const char *verdict, *why;
        char whybuf[256];
        double dpct = bm > 0 ? 100 * (nm - bm) / bm : 0;
        if (na < PC_DIFF_MIN_STEPS || nb < PC_DIFF_MIN_STEPS) {
            verdict = "inconclusive";
            snprintf(whybuf, sizeof whybuf, "too few steps to tell (%d and %d; at least %d each are needed)", na, nb, PC_DIFF_MIN_STEPS);
            why = whybuf;
            cJSON_AddNullToObject(st, "p_value");
            cJSON_AddNullToObject(st, "ci_low_pct");
            cJSON_AddNullToObject(st, "ci_high_pct");
        } else {
            double p = pc_mann_whitney_p(da, na, db, nb), lo, hi;
            pc_bootstrap_median_ratio(da, na, db, nb, 2000, &lo, &hi);
            sj_num(st, "p_value", p);
            sj_num(st, "ci_low_pct", 100 * (lo - 1));
            sj_num(st, "ci_high_pct", 100 * (hi - 1));
            if (fabs(dpct) < thr) {
                verdict = "unchanged";
                snprintf(whybuf, sizeof whybuf, "the median moved %+.1f%%, within the %.0f%% threshold", dpct, thr);
            } else if (p < 0.05 && (lo > 1 || hi < 1)) {
                verdict = dpct > 0 ? "regressed" : "improved";
                snprintf(whybuf, sizeof whybuf, "the median moved %+.1f%% (95%% interval %+.1f%% to %+.1f%%; p = %.2g)", dpct,
                         100 * (lo - 1), 100 * (hi - 1), p);
            } else {
                verdict = "inconclusive";
                snprintf(whybuf, sizeof whybuf, "the median moved %+.1f%% but the step times overlap too much to tell (p = %.2g; 95%% interval %+.1f%% to %+.1f%%)",
                         dpct, p, 100 * (lo - 1), 100 * (hi - 1));
            }
            why = whybuf;
        }
        free(db);
        sj_str(x, "verdict", verdict);
        sj_str(x, "verdict_reason", why);
        if (!strcmp(verdict, "regressed")) any_reg = 1;
        else if (!strcmp(verdict, "improved")) any_imp = 1;
        else if (!strcmp(verdict, "inconclusive")) any_inc = 1;
        cJSON_AddItemToArray(rs, x);
    }
    free(da);
    overall = any_reg ? "regressed" : any_inc ? "inconclusive" : any_imp ? "improved" : "unchanged";
    sj_str(d, "verdict", overall);
    /* sections side by side */
    cJSON *fa = sj_arr(d, "figures");
    /* the figure list with the breakdown row made one row per category */
    fig all[sizeof figs / sizeof *figs + BK_N];
    size_t nf = 0;
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) {
        if (figs[i].cat < 0) { all[nf++] = figs[i]; continue; }
        for (int k = 0; k < BK_N; k++) {
            all[nf] = figs[i];
            all[nf].label = pc_bk[k].per_step, all[nf].higher_is_worse = pc_bk[k].higher_is_worse, all[nf].cat = k;
            nf++;
        }
    }
    for (size_t i = 0; i < nf; i++) {
        const fig *fi = &all[i];
        const cJSON *bv = fig_get(base, fi);
        int present = cJSON_IsNumber(bv);
        for (int r = 0; r < nruns; r++) present |= cJSON_IsNumber(fig_get(runs[r], fi));
        if (!present) continue;
        cJSON *f = cJSON_CreateObject();
        sj_str(f, "section", fi->section);
        sj_str(f, "figure", fi->label);
        sj_str(f, "unit", fi->unit);
        sj_bool(f, "higher_is_worse", fi->higher_is_worse);
        if (cJSON_IsNumber(bv)) sj_num(f, "base", bv->valuedouble);
        else cJSON_AddNullToObject(f, "base");
        cJSON *fr = sj_arr(f, "runs");
        for (int r = 0; r < nruns; r++) {
            const cJSON *nv = fig_get(runs[r], fi);
            cJSON *y = cJSON_CreateObject();
            if (cJSON_IsNumber(nv)) {
                sj_num(y, "new", nv->valuedouble);
                if (cJSON_IsNumber(bv)) {
                    sj_num(y, "delta", nv->valuedouble - bv->valuedouble);
                    if (bv->valuedouble != 0) sj_num(y, "delta_pct", 100 * (nv->valuedouble - bv->valuedouble) / fabs(bv->valuedouble));
                    else cJSON_AddNullToObject(y, "delta_pct");
                }
            } else cJSON_AddNullToObject(y, "new");
            cJSON_AddItemToArray(fr, y);
        }
        cJSON_AddItemToArray(fa, f);
    }
    /* operators and kernels, matched */
    table ops = {.nruns = nruns}, ks = {.nruns = nruns}, types = {.nruns = nruns};
    match_by_name(&ops, bsum, rsum, nruns, TAB_op, "name", "device_total_ns");
    match_by_name(&types, bsum, rsum, nruns, TAB_optype, "type", "time_ns");
    match_kernels(&ks, bsum, rsum, nruns);
    free(runs);
    cJSON_AddItemToObject(d, "operators", table_json(&ops, nruns, rows));
    cJSON_AddItemToObject(d, "operator_types", table_json(&types, nruns, rows));
    cJSON_AddItemToObject(d, "kernels", table_json(&ks, nruns, rows));
    dtab_free(&ops);
    dtab_free(&ks);
    dtab_free(&types);
    return d;
}
