#include "xalloc.h"
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* No memory: a message and exit 4, never a signal (under `ulimit -v` this
 * was SIGABRT). _exit: other threads may hold stdio's or malloc's locks. */
static void oom(size_t n) {
    char msg[200];
    int k = snprintf(msg, sizeof msg,
                     "perfcard: out of memory (allocating %zu bytes): give perfcard more memory (ulimit -v, the "
                     "container's limit) or a smaller input\n", n);
    if (k > 0 && write(2, msg, (size_t)k < sizeof msg ? (size_t)k : sizeof msg - 1) < 0) k = 0;
    _exit(4);
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
size_t vec_grown(size_t cap, size_t need) {
    size_t c = cap ? cap : 16;
    while (c < need) c *= 2;
    return c;
}
void vec_reserve(void **arr, size_t *cap, size_t need, size_t es) {
    if (need <= *cap) return;
    size_t c = vec_grown(*cap, need);
    *arr = xrealloc(*arr, c * es);
    *cap = c;
}

void *mem_huge(void *p, size_t n) {
    if (p && n >= ((size_t)2 << 20)) {
        uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;
        madvise((void *)a, n + ((uintptr_t)p - a), MADV_HUGEPAGE);
    }
    return p;
}
