/* loadbench FILE [THREADS [ROUNDS]]: pc_load alone (no analysis, no
 * outputs), ROUNDS times (default 1), for measuring the reader: per round
 * wall, user and system CPU seconds, the parts used, the events read and
 * the peak resident memory so far. THREADS as pc_load_opts.threads (0: one
 * per CPU). Built by `make build/loadbench`; docs/benchmarks-parse.md. */
#include "load/load.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}
static double tv(struct timeval t) { return (double)t.tv_sec + t.tv_usec * 1e-6; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: loadbench FILE [THREADS [ROUNDS]]\n"); return 2; }
    pc_load_opts o = {.threads = argc > 2 ? atoi(argv[2]) : 0};
    int rounds = argc > 3 ? atoi(argv[3]) : 1;
    for (int i = 0; i < rounds; i++) {
        struct rusage a, b;
        getrusage(RUSAGE_SELF, &a);
        double w = wall();
        pc_trace *t = NULL;
        pc_err err = {0};
        int rc = pc_load(argv[1], &o, &t, &err);
        w = wall() - w;
        getrusage(RUSAGE_SELF, &b);
        if (rc) { fprintf(stderr, "loadbench: %s: %s\n", argv[1], err.msg); return 1; }
        printf("wall %.3f user %.3f sys %.3f parts %d events %lld peak_mib %ld\n", w, tv(b.ru_utime) - tv(a.ru_utime),
               tv(b.ru_stime) - tv(a.ru_stime), t->stats.parts, (long long)t->stats.events, b.ru_maxrss / 1024);
        pc_trace_free(t);
    }
    return 0;
}
