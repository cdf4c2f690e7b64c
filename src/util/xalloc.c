#include "xalloc.h"
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>

static void oom(size_t n) {
    fprintf(stderr, "perfcard: out of memory (allocating %zu bytes)\n", n);
    abort();
}
void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}
void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) oom(n * sz);
    return p;
}
void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) oom(n);
    return p;
}
char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}
void vec_reserve(void **arr, size_t *cap, size_t need, size_t es) {
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    *arr = xrealloc(*arr, c * es);
    *cap = c;
    /* big arrays (event arrays of large traces) are mapped by malloc: ask for
     * huge pages, so filling them costs 1 page fault per 2 MiB, not per 4 KiB */
    if (c * es >= (size_t)8 << 20) {
        uintptr_t a = ((uintptr_t)*arr) & ~(uintptr_t)4095;
        madvise((void *)a, c * es + ((uintptr_t)*arr - a), MADV_HUGEPAGE);
    }
}
