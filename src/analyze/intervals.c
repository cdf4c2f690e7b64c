#include "intervals.h"
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
    const ivl *x = a, *y = b;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

size_t ivl_merge(ivl *v, size_t n) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].s <= v[k].e) {
            if (v[i].e > v[k].e) v[k].e = v[i].e;
        } else v[++k] = v[i];
    }
    return k + 1;
}

int64_t ivl_overlap(const ivl *a, size_t na, const ivl *b, size_t nb) {
    int64_t sum = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s, e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (e > s) sum += e - s;
        if (a[i].e < b[j].e) i++;
        else j++;
    }
    return sum;
}

int64_t ivl_clip_sum(const ivl *v, size_t n, int64_t s, int64_t e) {
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t a = v[i].s > s ? v[i].s : s, b = v[i].e < e ? v[i].e : e;
        if (b > a) sum += b - a;
    }
    return sum;
}
