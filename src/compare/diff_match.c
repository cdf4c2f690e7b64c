/* diff_match.c - pairing the sides' table rows (diff_match.h) and the
 * kernel-name normalization it uses (diff.h). */
#include "diff_match.h"
#include "../summary/summary.h"
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

void dtab_free(table *t) {
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
static double run_weight(const pc_summary *s, int nruns) { return 1.0 / (pc_steps_of(s) * (nruns > 0 ? nruns : 1)); }

static kitem *kernels_of(const pc_diff_side *side, size_t *n) {
    size_t cap = 0, m = 0;
    kitem *v = NULL;
    for (int q = 0; q < side->nruns; q++) {
        const pc_summary *s = side->runs[q];
        double w = run_weight(s, side->nruns);
        const pc_table *t;
        for (size_t dev = 0; (t = PC_TAB_AT(s, kernel, dev)); dev++) {
            for (size_t i = 0; i < t->n; i++) {
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
void match_kernels(table *t, const pc_diff_side *base, const pc_diff_side *runs, int nruns) {
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
void match_by_name(table *t, const pc_diff_side *base, const pc_diff_side *runs, int nruns, int id, const char *key,
                   const char *val) {
    const pc_table_def *d = &pc_table_defs[id];
    const pc_col *kc = tab_col(d, key), *vc = tab_col(d, val);
    for (int k = -1; k < nruns; k++) {
        const pc_diff_side *side = k < 0 ? base : &runs[k];
        for (int q = 0; q < side->nruns; q++) {
            double w = run_weight(side->runs[q], side->nruns);
            const pc_table *tb = pc_summary_table_id(side->runs[q], id);
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

/* floor[r]: the change (percent) within which comparison r's figures are noise */
void table_rows(table *t, int nruns, int rows, const double *floor, pc_diff_table *out) {
    if (t->n) qsort_r(t->v, t->n, sizeof *t->v, cmp_entry, &nruns);
    memset(out, 0, sizeof *out);
    out->rows = xcalloc(t->n ? t->n : 1, sizeof *out->rows);
    for (size_t i = 0; i < t->n; i++) {
        entry *e = &t->v[i];
        int any_run = 0;
        for (int r = 0; r < nruns; r++) any_run |= e->in_run[r];
        if (!e->in_base && !any_run) continue;
        if (!e->in_base) out->added++;
        if (!any_run) out->removed++;
        if (rows && out->nrows >= rows) continue;
        pc_diff_row *j = &out->rows[out->nrows++];
        j->name = e->label;
        j->status = !e->in_base ? "added" : !any_run ? "removed" : "matched";
        j->matched_by = e->in_base && any_run ? e->how : "";
        j->base_ns = e->base;
        j->runs = xcalloc((size_t)(nruns ? nruns : 1), sizeof *j->runs);
        for (int r = 0; r < nruns; r++) {
            pc_diff_row_run *x = &j->runs[r];
            double nw = e->runs[r];
            int cmp = e->in_base && e->base > 0;
            x->new_ns = nw;
            x->status = !e->in_base && e->in_run[r] ? "added" : e->in_base && !e->in_run[r] ? "removed" : e->in_run[r] ? "matched" : "absent";
            x->delta_ns = nw - e->base;
            x->delta_pct = cmp ? 100 * (nw - e->base) / e->base : NAN;
            x->ratio = cmp && e->in_run[r] ? nw / e->base : NAN;
            x->within_noise = cmp && e->in_run[r] && fabs(100 * (nw - e->base) / e->base) < floor[r];
        }
    }
    out->total = (int)t->n;
}
