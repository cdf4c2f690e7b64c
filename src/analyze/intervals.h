/* intervals.h - half-open time intervals [s, e) in ns, for busy-time math.
 * ivl_merge sorts and merges in place and returns the new count;
 * ivl_overlap gives |A ∩ B| of two merged lists; ivl_clip_sum gives the
 * length of a merged list inside [s, e). */
#ifndef PC_INTERVALS_H
#define PC_INTERVALS_H
#include <stddef.h>
#include <stdint.h>
typedef struct ivl { int64_t s, e; } ivl;
size_t ivl_merge(ivl *v, size_t n);
int64_t ivl_overlap(const ivl *a, size_t na, const ivl *b, size_t nb);
int64_t ivl_clip_sum(const ivl *v, size_t n, int64_t s, int64_t e);
#endif
