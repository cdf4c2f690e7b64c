/* changepoint.c - E-divisive means (see changepoint.h). */
#include "changepoint.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int pc_cp_best(const double *x, int n, int min_size, double *qbest) {
    if (min_size < 1) min_size = 1;
    if (n < 2 * min_size) return -1;
    /* tau = number of points on the left; start with every point on the right */
    double wl = 0, wr = 0, bt = 0;
    for (int j = 0; j < n; j++)
        for (int k = j + 1; k < n; k++) wr += fabs(x[j] - x[k]);
    int best = -1;
    for (int tau = 1; tau < n; tau++) {
        /* point tau - 1 moves from the right to the left */
        double e = x[tau - 1], to_left = 0, to_right = 0;
        for (int i = 0; i < tau - 1; i++) to_left += fabs(x[i] - e);
        for (int j = tau; j < n; j++) to_right += fabs(e - x[j]);
        wl += to_left, wr -= to_right, bt += to_right - to_left;
        if (tau < min_size || n - tau < min_size) continue;
        double l = tau, r = n - tau;
        double between = 2 * bt / (l * r);
        double inl = tau > 1 ? wl / (l * (l - 1) / 2) : 0, inr = n - tau > 1 ? wr / (r * (r - 1) / 2) : 0;
        double q = l * r / n * (between - inl - inr);
        if (best < 0 || q > *qbest) best = tau, *qbest = q;
    }
    return best;
}

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static int split(const double *x, int off, int n, int min_size, pc_cp *out, int count, int max, uint64_t *seed) {
    double q;
    int tau = pc_cp_best(x + off, n, min_size, &q);
    if (tau < 0 || count >= max || !(q > 0)) return count;
    double *sh = xmalloc((size_t)n * sizeof *sh), qs;
    int reach = 0;
    memcpy(sh, x + off, (size_t)n * sizeof *sh);
    for (int p = 0; p < PC_CP_PERMS; p++) {
        for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
            int j = (int)(rnd(seed) % (uint64_t)(i + 1));
            double t = sh[i];
            sh[i] = sh[j], sh[j] = t;
        }
        if (pc_cp_best(sh, n, min_size, &qs) >= 0 && qs >= q) reach++;
    }
    free(sh);
    double pv = (1.0 + reach) / (1.0 + PC_CP_PERMS);
    if (pv >= 0.05) return count;
    count = split(x, off, tau, min_size, out, count, max, seed);
    if (count < max) out[count++] = (pc_cp){off + tau, q, pv};
    return split(x, off + tau, n - tau, min_size, out, count, max, seed);
}

int pc_changepoints(const double *x, int n, int min_size, pc_cp *out, int max) {
    uint64_t seed = 0x2545F4914F6CDD1DULL;
    return split(x, 0, n, min_size, out, 0, max, &seed);
}
