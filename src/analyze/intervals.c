#include "intervals.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

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
    /* merged: ends ascend, so the first interval ending after s is found by bisection and the
     * sum stops at the first starting at or after e (those before and after add nothing) */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (v[m].e <= s) lo = m + 1;
        else hi = m;
    }
    int64_t sum = 0;
    for (size_t i = lo; i < n && v[i].s < e; i++) {
        int64_t a = v[i].s > s ? v[i].s : s, b = v[i].e < e ? v[i].e : e;
        if (b > a) sum += b - a;
    }
    return sum;
}

void ivl_append_sorted(ivl **v, size_t *n, size_t *cap, int64_t s, int64_t e) {
    if (*n && s <= (*v)[*n - 1].e) {
        if (e > (*v)[*n - 1].e) (*v)[*n - 1].e = e;
        return;
    }
    ivl *x = SPILL_PUSH(*v, *n, *cap);
    x->s = s, x->e = e;
}

size_t ivl_subtract(const ivl *a, size_t na, const ivl *b, size_t nb, ivl **out) {
    size_t n = 0, cap = 0, j = 0;
    ivl *v = NULL;
    for (size_t i = 0; i < na; i++) {
        int64_t s = a[i].s, e = a[i].e;
        while (j < nb && b[j].e <= s) j++;
        size_t k = j;
        while (s < e) {
            if (k >= nb || b[k].s >= e) { ivl *x = SPILL_PUSH(v, n, cap); x->s = s, x->e = e; break; }
            if (b[k].s > s) { ivl *x = SPILL_PUSH(v, n, cap); x->s = s, x->e = b[k].s; }
            if (b[k].e >= e) break;
            s = b[k].e;
            k++;
        }
    }
    *out = v;
    return n;
}

size_t ivl_union2(const ivl *a, size_t na, const ivl *b, size_t nb, ivl **out) {
    size_t n = 0, cap = 0, i = 0, j = 0;
    ivl *v = NULL;
    while (i < na || j < nb) {
        const ivl *x = j >= nb || (i < na && a[i].s <= b[j].s) ? &a[i++] : &b[j++];
        ivl_append_sorted(&v, &n, &cap, x->s, x->e);
    }
    *out = v;
    return n;
}

size_t ivl_intersect(const ivl *a, size_t na, const ivl *b, size_t nb, ivl **out) {
    size_t n = 0, cap = 0, i = 0, j = 0;
    ivl *v = NULL;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s, e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (e > s) { ivl *x = SPILL_PUSH(v, n, cap); x->s = s, x->e = e; }
        if (a[i].e < b[j].e) i++;
        else j++;
    }
    *out = v;
    return n;
}

void ivl_step_sums(const ivl *v, size_t n, const void *w, size_t nw, size_t wsz, size_t off, void *acc, size_t asz) {
    size_t j = 0;
    for (size_t k = 0; k < nw; k++) {
        int64_t ws, we;
        memcpy(&ws, (const char *)w + k * wsz, 8); /* start, end: the first two fields */
        memcpy(&we, (const char *)w + k * wsz + 8, 8);
        while (j < n && v[j].e <= ws) j++;
        int64_t sum = 0;
        for (size_t q = j; q < n && v[q].s < we; q++) {
            int64_t a = v[q].s > ws ? v[q].s : ws, b = v[q].e < we ? v[q].e : we;
            if (b > a) sum += b - a;
        }
        int64_t cur;
        memcpy(&cur, (char *)acc + k * asz + off, 8);
        cur += sum;
        memcpy((char *)acc + k * asz + off, &cur, 8);
    }
}
