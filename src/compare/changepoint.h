/* changepoint.h - change points in a series of runs' figures by E-divisive
 * means (Matteson and James, 2014; the method of MongoDB's performance CI
 * and of Hunter), with alpha = 1:
 *
 *   q(tau) = tau (n - tau) / n * ( 2 / (tau (n - tau)) sum_{i <= tau < j} |x_i - x_j|
 *            - 1 / C(tau, 2) sum_{i < k <= tau} |x_i - x_k|
 *            - 1 / C(n - tau, 2) sum_{tau < j < k} |x_j - x_k| )
 *
 * The split tau of a segment that maximizes q (each side at least min_size
 * points) is a change point when a permutation test says so: p = (1 + the
 * number of PC_CP_PERMS shuffles of the segment whose best q reaches it) /
 * (1 + PC_CP_PERMS), seeded, and p < 0.05. Segments are split recursively.
 * O(n^2) per segment and shuffle. */
#ifndef PC_CHANGEPOINT_H
#define PC_CHANGEPOINT_H

enum { PC_CP_PERMS = 199 };

typedef struct pc_cp { int at; double q, p; } pc_cp; /* the first point of the new segment */

/* The best split of x[0..n) and its q; -1 when no split leaves min_size points a side. */
int pc_cp_best(const double *x, int n, int min_size, double *q);
/* Change points of x[0..n), in increasing order, at most max; returns how many. */
int pc_changepoints(const double *x, int n, int min_size, pc_cp *out, int max);
#endif
