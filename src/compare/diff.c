#include "diff.h"
#include "../summary/summary.h"
#include "../summary/categories.h"
#include "../util/hmap.h"
#include "../util/fsutil.h"
#include "../util/units.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* a run's weight in its side's per-step means: 1 / (its steps x the side's runs) */
static double run_weight(const pc_summary *s, int nruns) { return 1.0 / (pc_steps_of(s->doc) * (nruns > 0 ? nruns : 1)); }

static kitem *kernels_of(const pc_diff_side *side, size_t *n) {
    size_t cap = 0, m = 0;
    kitem *v = NULL;
    for (int q = 0; q < side->nruns; q++) {
        const pc_summary *s = side->runs[q];
        double w = run_weight(s, side->nruns);
        const cJSON *d;
        cJSON_ArrayForEach(d, sj_get(s->doc, "kernels.devices")) {
            const pc_table *t = pc_summary_table_of(s, cJSON_GetObjectItemCaseSensitive(d, "rows"));
            for (size_t i = 0; t && i < t->n; i++) {
                const tab_kernel *r = &TAB_ROWS(t, kernel)[i];
                kitem *k = VEC_PUSH(v, m, cap);
                k->name = r->name ? r->name : "", k->op = r->operator ? r->operator : "", k->used = 0, k->order = m - 1;
                k->ns = r->total_ns > 0 ? w * (double)r->total_ns : 0;
            }
        }
    }
    /* one item per name: the devices' and runs' times summed, the first one's operator */
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
static void match_kernels(table *t, const pc_diff_side *base, const pc_diff_side *runs, int nruns) {
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
        kitem *kr = kernels_of(&runs[r], &nr);
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
static void match_by_name(table *t, const pc_diff_side *base, const pc_diff_side *runs, int nruns, int id, const char *key,
                          const char *val) {
    const pc_table_def *d = &pc_table_defs[id];
    const pc_col *kc = tab_col(d, key), *vc = tab_col(d, val);
    for (int k = -1; k < nruns; k++) {
        const pc_diff_side *side = k < 0 ? base : &runs[k];
        for (int q = 0; q < side->nruns; q++) {
            double w = run_weight(side->runs[q], side->nruns);
            const pc_table *tb = pc_summary_table(side->runs[q], d->path);
            for (size_t i = 0; tb && i < tb->n; i++) {
                const char *row = (const char *)tb->rows + i * d->row_size;
                pc_cell name = tab_cell(kc, row), x = tab_cell(vc, row);
                entry *e = dtab_get(t, name.null ? "" : name.s, NULL);
                double v = !x.null && x.i > 0 ? w * (double)x.i : 0;
                if (k < 0) e->base += v, e->in_base = 1;
                else e->runs[k] += v, e->in_run[k] = 1;
            }
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

/* floor[r]: the change (percent) within which comparison r's figures are noise */
static cJSON *table_json(table *t, int nruns, int rows, const double *floor) {
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
            sj_bool(x, "within_noise", e->in_base && e->in_run[r] && e->base > 0 && fabs(100 * (e->runs[r] - e->base) / e->base) < floor[r]);
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

/* cat >= 0: that breakdown category's mean over kept steps (categories.h);
 * per_step: a trace total divided by its steps */
typedef struct fig { const char *section, *label, *path; const char *unit; int higher_is_worse, cat, per_step; } fig;
static const fig figs[] = {
    {"steps", "Step time, median (all steps)", "steps.median_ns", "ns", 1, -1, 0},
    {"steps", "Step time, p90 (all steps)", "steps.p90_ns", "ns", 1, -1, 0},
    {"steps", "Iteration interval (average)", "steps.average.iteration_interval_ns", "ns", 1, -1, 0},
    {"steps", "Forward + backward (average)", "steps.average.fp_bp_ns", "ns", 1, -1, 0},
    {"steps", "Tail (average)", "steps.average.tail_ns", "ns", 1, -1, 0},
    {"breakdown", NULL, NULL, "ns", 0, 0, 0}, /* one row per category, from categories.h */
    {"gpu", "GPU utilization", "gpu.devices.0.utilization_pct", "pct", 0, -1, 0},
    {"gpu", "Est. SM efficiency", "gpu.devices.0.sm_efficiency_pct", "pct", 0, -1, 0},
    {"gpu", "Est. achieved occupancy", "gpu.devices.0.occupancy_pct", "pct", 0, -1, 0},
    {"data", "Data wait per step", "dataloader.avg_wait_ns", "ns", 1, -1, 0},
    {"data", "Data wait share of step", "dataloader.avg_wait_pct", "pct", 1, -1, 0},
    {"data", "Steps waiting over 5% for data", "dataloader.steps_over_5pct", "count", 1, -1, 0},
    {"data", "Steps with an empty queue", "queues.rows.0.empty_steps_pct", "pct", 1, -1, 0},
    {"cpu", "CPU user", "cpu.average.user", "pct", 0, -1, 0},
    {"cpu", "CPU system", "cpu.average.system", "pct", 1, -1, 0},
    {"cpu", "Traced process CPU", "cpu.average.process", "pct", 0, -1, 0},
    {"memory", "Peak GPU memory allocated", "memory.cuda_peak_allocated_bytes", "bytes", 1, -1, 0},
    {"communication", "NCCL time per step", "communication.nccl_ns", "ns", 1, -1, 1},
    {"communication", "NCCL overlapped with compute", "communication.overlap_pct", "pct", 0, -1, 0},
    {"kernels", "Kernel time per step", "kernels.total_ns", "ns", 1, -1, 1},
    {"kernels", "Tensor Core share of kernel time", "kernels.tensor_core_pct", "pct", 0, -1, 0},
};

/* a side's value of a figure: the mean over its runs that have it; 0 when none has */
static int side_fig(const pc_diff_side *side, const pc_run_steps *rs, const fig *f, double *out) {
    double sum = 0;
    int n = 0;
    for (int q = 0; q < side->nruns; q++) {
        if (f->cat >= 0) {
            if (!rs[q].cat_rows) continue;
            sum += rs[q].cat_ns[f->cat], n++;
            continue;
        }
        const cJSON *v = sj_get(side->runs[q]->doc, f->path);
        if (!cJSON_IsNumber(v)) continue;
        sum += f->per_step ? v->valuedouble / pc_steps_of(side->runs[q]->doc) : v->valuedouble, n++;
    }
    *out = n ? sum / n : 0;
    return n > 0;
}

static void add_figure(cJSON *fa, const fig *fi, const pc_diff_side *base, const pc_run_steps *brs, const pc_diff_side *ch,
                       pc_run_steps *const *crs, int nch, const double *floor) {
    double bv, nv;
    int hb = side_fig(base, brs, fi, &bv), any = hb;
    for (int r = 0; r < nch; r++) any |= side_fig(&ch[r], crs[r], fi, &nv);
    if (!any) return;
    cJSON *f = cJSON_CreateObject();
    sj_str(f, "section", fi->section);
    sj_str(f, "figure", fi->label);
    sj_str(f, "unit", fi->unit);
    sj_bool(f, "higher_is_worse", fi->higher_is_worse);
    if (hb) sj_num(f, "base", bv);
    else cJSON_AddNullToObject(f, "base");
    cJSON *fr = sj_arr(f, "runs");
    for (int r = 0; r < nch; r++) {
        cJSON *y = cJSON_CreateObject();
        if (side_fig(&ch[r], crs[r], fi, &nv)) {
            sj_num(y, "new", nv);
            if (hb) {
                sj_num(y, "delta", nv - bv);
                if (bv != 0) sj_num(y, "delta_pct", 100 * (nv - bv) / fabs(bv));
                else cJSON_AddNullToObject(y, "delta_pct");
                sj_bool(y, "within_noise", bv != 0 ? fabs(100 * (nv - bv) / bv) < floor[r] : nv == bv);
            }
        } else cJSON_AddNullToObject(y, "new");
        cJSON_AddItemToArray(fr, y);
    }
    cJSON_AddItemToArray(fa, f);
}

/* ---------- sides, verdicts and contributors ---------- */

/* the side's label: given, or the first input's file name (never a path) */
static void side_label(const pc_diff_side *side, char *out, size_t cap) {
    if (side->label && *side->label) { snprintf(out, cap, "%s", side->label); return; }
    const char *in = side->nruns ? sj_getstr(side->runs[0]->doc, "run.input", "") : "";
    if (side->nruns > 1) snprintf(out, cap, "%.200s (+%d more)", fs_base_name(in), side->nruns - 1);
    else snprintf(out, cap, "%.200s", fs_base_name(in));
}

/* label, inputs (file names), runs, steps, kept steps and the excluded ones */
static void side_json(cJSON *o, const pc_diff_side *side, const pc_run_steps *rs) {
    char lab[256];
    side_label(side, lab, sizeof lab);
    sj_str(o, "label", lab);
    cJSON *in = sj_arr(o, "inputs"), *ex = cJSON_CreateArray();
    int steps = 0, kept = 0;
    for (int q = 0; q < side->nruns; q++) {
        const char *name = fs_base_name(sj_getstr(side->runs[q]->doc, "run.input", ""));
        cJSON_AddItemToArray(in, cJSON_CreateString(name));
        steps += rs[q].n, kept += rs[q].kept;
        for (int k = 0; k < rs[q].nexcl; k++) {
            cJSON *e = cJSON_CreateObject();
            sj_str(e, "input", name);
            sj_int(e, "step", rs[q].excl[k].step);
            sj_str(e, "reason", rs[q].excl[k].reason);
            sj_str(e, "detail", rs[q].excl[k].detail);
            cJSON_AddItemToArray(ex, e);
        }
    }
    sj_int(o, "runs", side->nruns);
    sj_int(o, "steps", steps);
    sj_int(o, "kept_steps", kept);
    cJSON_AddItemToObject(o, "excluded", ex);
}

/* a side's step categories: the mean over its runs that have a breakdown (0 without any) */
static void side_categories(const pc_run_steps *rs, int nruns, double out[BK_N]) {
    int n = 0;
    memset(out, 0, BK_N * sizeof *out);
    for (int q = 0; q < nruns; q++)
        if (rs[q].cat_rows) {
            n++;
            for (int k = 0; k < BK_N; k++) out[k] += rs[q].cat_ns[k];
        }
    for (int k = 0; n && k < BK_N; k++) out[k] /= n;
}

typedef struct contrib { const char *kind, *name; double delta; } contrib;
static int cmp_contrib(const void *a, const void *b) {
    double x = fabs(((const contrib *)a)->delta), y = fabs(((const contrib *)b)->delta);
    return x > y ? -1 : x < y;
}

/* the top 3 entries of a table that moved in the step's direction */
static int top_entries(const table *t, int r, double dir, const char *kind, contrib *out) {
    int n = 0;
    for (size_t i = 0; i < t->n; i++) {
        double d = t->v[i].runs[r] - t->v[i].base;
        if (d * dir <= 0) continue;
        contrib c = {kind, t->v[i].label, d};
        if (n < 3) out[n++] = c;
        else if (fabs(d) > fabs(out[2].delta)) out[2] = c;
        else continue;
        qsort(out, (size_t)n, sizeof *out, cmp_contrib);
    }
    return n;
}

/* contributors[] (kind, name, delta_ns per step, share_pct of the step's
 * change) and the headline sentence */
static void contributors(cJSON *x, const pc_verdict *v, const double *bcat, const double *ncat, const table *tabs[3],
                         const char *const kinds[3], int r) {
    double dstep = v->new_ns - v->base_ns, dir = dstep >= 0 ? 1 : -1;
    contrib c[BK_N + 9];
    int n = 0;
    for (int k = 0; k < BK_N; k++)
        if ((ncat[k] - bcat[k]) * dir > 0) c[n++] = (contrib){"category", pc_bk[k].label, ncat[k] - bcat[k]};
    qsort(c, (size_t)n, sizeof *c, cmp_contrib);
    if (n > 3) n = 3;
    int ncatc = n;
    contrib top[9];
    int nt = 0;
    for (int i = 0; i < 3; i++) nt += top_entries(tabs[i], r, dir, kinds[i], top + nt);
    qsort(top, (size_t)nt, sizeof *top, cmp_contrib);
    if (nt > 3) nt = 3; /* the three largest of kernels, operators and CPU operators together */
    for (int i = 0; i < nt; i++) c[n++] = top[i];
    cJSON *arr = sj_arr(x, "contributors");
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        sj_str(o, "kind", c[i].kind);
        sj_str(o, "name", c[i].name);
        sj_num(o, "delta_ns", c[i].delta);
        if (dstep != 0) sj_num(o, "share_pct", 100 * c[i].delta / dstep);
        else cJSON_AddNullToObject(o, "share_pct");
        cJSON_AddItemToArray(arr, o);
    }
    char h[700], a[32], b[32];
    units_ns(a, sizeof a, dstep);
    int k = snprintf(h, sizeof h, "Step time %+.1f%% (%s%s per step), %s", v->delta_pct, dstep >= 0 ? "+" : "", a, v->verdict);
    if (dstep != 0 && ncatc) {
        units_ns(b, sizeof b, c[0].delta);
        k += snprintf(h + k, sizeof h - (size_t)k, ": %s %s%s (%.0f%% of the change)", c[0].name, c[0].delta >= 0 ? "+" : "", b,
                      100 * c[0].delta / dstep);
    }
    if (dstep != 0 && nt && k < (int)sizeof h) {
        units_ns(b, sizeof b, top[0].delta);
        snprintf(h + k, sizeof h - (size_t)k, "%s%s %.80s%s %s%s (%.0f%%)", ncatc ? "; " : ": ", top[0].kind, top[0].name,
                 strlen(top[0].name) > 80 ? "…" : "", top[0].delta >= 0 ? "+" : "", b, 100 * top[0].delta / dstep);
    }
    sj_str(x, "headline", h);
}

static const char *method_text =
    "Steps kept: all but the first (warm-up), steps with one-off work (names that run in no other step) and extreme "
    "outliers (modified z-score > 3.5 and over 20% from the median). A run's step time is the mean of its kept steps. "
    "With at least 3 runs per side: Welch's t-test on the runs' log step times (p < 0.001), a hierarchical bootstrap 95% "
    "interval (runs, then steps) that excludes 0, and a change of at least the threshold. With fewer runs: the Mann-Whitney test on the kept steps (p < 0.05) and the whole bootstrap "
    "interval beyond the noise floor, or twice the floor when the device's busy time does not carry the change (host "
    "time varies between runs of the same code). Unchanged: the whole interval within the threshold";

cJSON *pc_diff(const pc_diff_side *base, const pc_diff_side *ch, int nch, const pc_diff_opts *o) {
    pc_diff_opts dflt = {{2, 10}, 0};
    if (!o) o = &dflt;
    double thr = o->verdict.threshold_pct > 0 ? o->verdict.threshold_pct : 2;
    double nf = o->verdict.noise_floor_pct > 0 ? o->verdict.noise_floor_pct : 10;
    pc_verdict_opts vo = {thr, nf};
    cJSON *d = cJSON_CreateObject();
    sj_str(d, "schema", PC_DIFF_SCHEMA);
    sj_num(d, "threshold_pct", thr);
    sj_num(d, "noise_floor_pct", nf);
    sj_int(d, "min_runs", PC_MIN_RUNS);
    sj_int(d, "min_steps", PC_MIN_KEPT_STEPS);
    sj_str(d, "method", method_text);
    pc_run_steps *brs = xcalloc((size_t)(base->nruns ? base->nruns : 1), sizeof *brs);
    for (int q = 0; q < base->nruns; q++) pc_run_steps_of(base->runs[q]->doc, &brs[q]);
    pc_run_steps **crs = xcalloc((size_t)(nch ? nch : 1), sizeof *crs);
    pc_verdict *v = xcalloc((size_t)(nch ? nch : 1), sizeof *v);
    double *floor = xcalloc((size_t)(nch ? nch : 1), sizeof *floor);
    for (int r = 0; r < nch; r++) {
        crs[r] = xcalloc((size_t)(ch[r].nruns ? ch[r].nruns : 1), sizeof **crs);
        for (int q = 0; q < ch[r].nruns; q++) pc_run_steps_of(ch[r].runs[q]->doc, &crs[r][q]);
        pc_verdict_of(brs, base->nruns, crs[r], ch[r].nruns, &vo, &v[r]);
        floor[r] = v[r].multi_run ? thr : nf;
    }
    cJSON *b = sj_obj(d, "base");
    side_json(b, base, brs);
    sj_num(b, "step_ns", nch ? v[0].base_ns : 0);
    /* operators and kernels, matched, per step */
    table ops = {.nruns = nch}, cpu = {.nruns = nch}, ks = {.nruns = nch}, types = {.nruns = nch}, self = {.nruns = nch};
    match_by_name(&ops, base, ch, nch, TAB_op, "name", "device_total_ns");
    match_by_name(&self, base, ch, nch, TAB_op, "name", "self_device_ns"); /* contributors: no time counted twice by nesting */
    match_by_name(&cpu, base, ch, nch, TAB_op, "name", "self_cpu_ns");
    match_by_name(&types, base, ch, nch, TAB_optype, "type", "time_ns");
    match_kernels(&ks, base, ch, nch);
    /* per change: verdict, step time, contributors, headline */
    cJSON *rs = sj_arr(d, "runs");
    int any_reg = 0, any_imp = 0, any_inc = 0;
    double bcat[BK_N];
    side_categories(brs, base->nruns, bcat);
    const table *tabs[3] = {&ks, &self, &cpu};
    static const char *const kinds[3] = {"kernel", "operator", "CPU operator"};
    for (int r = 0; r < nch; r++) {
        cJSON *x = cJSON_CreateObject();
        side_json(x, &ch[r], crs[r]);
        sj_str(x, "verdict", v[r].verdict);
        sj_str(x, "verdict_reason", v[r].reason);
        cJSON *st = sj_obj(x, "step_time");
        sj_str(st, "statistic", "mean of kept steps (per run), mean over runs");
        sj_num(st, "base_ns", v[r].base_ns);
        sj_num(st, "new_ns", v[r].new_ns);
        sj_num(st, "delta_ns", v[r].new_ns - v[r].base_ns);
        sj_num(st, "delta_pct", v[r].delta_pct);
        sj_bool(st, "multi_run", v[r].multi_run);
        sj_str(st, "test", v[r].test ? v[r].test : "");
        if (v[r].has_test) {
            sj_num(st, "p_value", v[r].p);
            sj_num(st, "ci_low_pct", v[r].ci_low_pct);
            sj_num(st, "ci_high_pct", v[r].ci_high_pct);
        } else {
            cJSON_AddNullToObject(st, "p_value");
            cJSON_AddNullToObject(st, "ci_low_pct");
            cJSON_AddNullToObject(st, "ci_high_pct");
        }
        if (v[r].runs_needed) sj_int(x, "runs_needed", v[r].runs_needed);
        else cJSON_AddNullToObject(x, "runs_needed");
        double ncat[BK_N];
        side_categories(crs[r], ch[r].nruns, ncat);
        contributors(x, &v[r], bcat, ncat, tabs, kinds, r);
        const char *vd = v[r].verdict;
        any_reg |= !strcmp(vd, "regressed"), any_imp |= !strcmp(vd, "improved"), any_inc |= !strcmp(vd, "inconclusive");
        cJSON_AddItemToArray(rs, x);
    }
    sj_str(d, "verdict", any_reg ? "regressed" : any_inc ? "inconclusive" : any_imp ? "improved" : "unchanged");
    /* the headline of the worst change: the first regressed, else inconclusive, else the first */
    const cJSON *hx = NULL, *x;
    for (int pass = 0; pass < 3 && !hx; pass++)
        cJSON_ArrayForEach(x, rs) if (!hx && (pass == 2 || !strcmp(sj_getstr(x, "verdict", ""), pass ? "inconclusive" : "regressed"))) hx = x;
    sj_str(d, "headline", hx ? sj_getstr(hx, "headline", "") : "");
    /* sections side by side: the verdict's statistic first */
    cJSON *fa = sj_arr(d, "figures");
    {
        cJSON *f = cJSON_CreateObject();
        sj_str(f, "section", "steps");
        sj_str(f, "figure", "Step time (mean of kept steps; the verdict's statistic)");
        sj_str(f, "unit", "ns");
        sj_bool(f, "higher_is_worse", 1);
        sj_num(f, "base", nch ? v[0].base_ns : 0);
        cJSON *fr = sj_arr(f, "runs");
        for (int r = 0; r < nch; r++) {
            cJSON *y = cJSON_CreateObject();
            sj_num(y, "new", v[r].new_ns);
            sj_num(y, "delta", v[r].new_ns - v[r].base_ns);
            sj_num(y, "delta_pct", v[r].delta_pct);
            sj_bool(y, "within_noise", strcmp(v[r].verdict, "regressed") && strcmp(v[r].verdict, "improved"));
            cJSON_AddItemToArray(fr, y);
        }
        cJSON_AddItemToArray(fa, f);
    }
    for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) {
        if (figs[i].cat < 0) { add_figure(fa, &figs[i], base, brs, ch, crs, nch, floor); continue; }
        for (int k = 0; k < BK_N; k++) {
            fig f = figs[i];
            f.label = pc_bk[k].per_step, f.higher_is_worse = pc_bk[k].higher_is_worse, f.cat = k;
            add_figure(fa, &f, base, brs, ch, crs, nch, floor);
        }
    }
    cJSON_AddItemToObject(d, "operators", table_json(&ops, nch, o->rows, floor));
    cJSON_AddItemToObject(d, "operators_cpu", table_json(&cpu, nch, o->rows, floor));
    cJSON_AddItemToObject(d, "operator_types", table_json(&types, nch, o->rows, floor));
    cJSON_AddItemToObject(d, "kernels", table_json(&ks, nch, o->rows, floor));
    dtab_free(&ops);
    dtab_free(&cpu);
    dtab_free(&ks);
    dtab_free(&types);
    dtab_free(&self);
    for (int q = 0; q < base->nruns; q++) pc_run_steps_free(&brs[q]);
    for (int r = 0; r < nch; r++) {
        for (int q = 0; q < ch[r].nruns; q++) pc_run_steps_free(&crs[r][q]);
        free(crs[r]);
    }
    free(brs), free(crs), free(v), free(floor);
    return d;
}
