/* xalloc.h - allocation that exits with a message on out-of-memory (exit 4,
 * as any output perfcard could not make). Used for internal structures;
 * callers never check for NULL. */
#ifndef PC_XALLOC_H
#define PC_XALLOC_H
#include <stdlib.h>
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Marks a big allocation (2 MiB or more) for transparent huge pages, so that
 * filling it costs one page fault per 2 MiB instead of per 4 KiB (hash
 * tables of a million names: 4,096 faults -> 8); returns p. */
void *mem_huge(void *p, size_t n);
/* The capacity a vector of cap elements grows to so that it holds need (doubling). */
size_t vec_grown(size_t cap, size_t need);
/* Grow *arr (element size es) so that it holds at least need elements. */
void vec_reserve(void **arr, size_t *cap, size_t need, size_t es);
#define VEC_PUSH(arr, n, cap) \
    (vec_reserve((void **)&(arr), &(cap), (n) + 1, sizeof *(arr)), &(arr)[(n)++])
#endif
