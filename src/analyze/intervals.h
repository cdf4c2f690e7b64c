/* intervals.h - half-open time intervals [s, e) in ns, for busy-time math.
 * A merged list is sorted by start, disjoint, each s <= e (what ivl_append_sorted,
 * ivl_subtract, ivl_union2 and ivl_intersect make). ivl_overlap gives |A ∩ B| of two
 * merged lists; ivl_clip_sum gives the length of a merged list inside [s, e), in
 * O(log n + the intervals it meets). */
#ifndef PC_INTERVALS_H
#define PC_INTERVALS_H
#include <stddef.h>
#include <stdint.h>
typedef struct ivl { int64_t s, e; } ivl;
int64_t ivl_overlap(const ivl *a, size_t na, const ivl *b, size_t nb);
int64_t ivl_clip_sum(const ivl *v, size_t n, int64_t s, int64_t e);
/* Appends [s, e) to a merged list fed in order of start (merging as it goes). */
void ivl_append_sorted(ivl **v, size_t *n, size_t *cap, int64_t s, int64_t e);
/* Merged results, malloc'd into *out (caller frees); return the count. */
size_t ivl_subtract(const ivl *a, size_t na, const ivl *b, size_t nb, ivl **out);  /* a minus b */
size_t ivl_union2(const ivl *a, size_t na, const ivl *b, size_t nb, ivl **out);
size_t ivl_intersect(const ivl *a, size_t na, const ivl *b, size_t nb, ivl **out);
/* For windows w[0..nw) (sorted, disjoint; start/end read as int64 at offsets 0
 * and 8 of each element of size wsz), adds |v ∩ window| to the int64 at
 * byte offset off of acc[i] (element size asz), in one pass. */
void ivl_step_sums(const ivl *v, size_t n, const void *w, size_t nw, size_t wsz, size_t off, void *acc, size_t asz);
#endif
