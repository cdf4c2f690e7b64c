/* Interval math: ivl_clip_sum (a bisection to the first interval that ends
 * after the window's start since the host-phase rule clipped every gap) gives,
 * on merged lists of every shape (touching, zero-length, far apart), the sum
 * of each interval's overlap with [s, e) that a scan of the whole list gives. */
#include "test.h"
#include "analyze/intervals.h"
#include "util/spill.h"
#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n) { /* xorshift64*, uniform enough for shapes */
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return (rng_state * 0x2545f4914f6cdd1dull) % n;
}

TEST(intervals_clip_sum_matches_a_full_scan) {
    for (int round = 0; round < 2000; round++) {
        ivl *v = NULL;
        size_t n = 0, cap = 0, want_n = rnd(40);
        int64_t t = (int64_t)rnd(50) - 25;
        for (size_t i = 0; i < want_n; i++) {
            t += (int64_t)rnd(4) * (int64_t)rnd(6); /* 0: overlapping or touching the one before */
            int64_t len = (int64_t)rnd(3) == 0 ? 0 : (int64_t)rnd(12);
            ivl_append_sorted(&v, &n, &cap, t, t + len);
            t += len;
        }
        for (int q = 0; q < 50; q++) {
            int64_t s = (int64_t)rnd(300) - 40, e = s + (int64_t)rnd(80) - 10; /* some empty or reversed windows */
            int64_t want = 0;
            for (size_t i = 0; i < n; i++) {
                int64_t a = v[i].s > s ? v[i].s : s, b = v[i].e < e ? v[i].e : e;
                if (b > a) want += b - a;
            }
            int64_t got = ivl_clip_sum(v, n, s, e);
            CHECK_MSG(got == want, "round %d, %zu intervals, [%lld, %lld): %lld, a full scan %lld", round, n, (long long)s,
                      (long long)e, (long long)got, (long long)want);
        }
        spill_free(v);
    }
}
