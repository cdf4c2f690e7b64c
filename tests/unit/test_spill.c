/* Spilled arrays: contents survive growth and the window's closing; the
 * sorts give what a stable reference sort gives. */
#include "test.h"
#include "model/trace.h"
#include "util/spill.h"
#include "load/load.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

TEST(spill_blocks_keep_their_contents_when_closed) {
    /* every big block to a file; the window at its least (16 MiB), a quarter of the vector */
    spill_configure(&(spill_policy){(size_t)1 << 20, 0, NULL});
    size_t before = spill_bytes();
    size_t n = (size_t)16 << 20, cap = 0, len = 0;
    uint32_t *v = NULL;
    for (size_t i = 0; i < n; i++) *SPILL_PUSH(v, len, cap) = (uint32_t)(i * 2654435761u);
    CHECK_MSG(spill_bytes() >= before + n * 4, "%zu bytes in files", spill_bytes() - before);
    for (size_t i = 0; i < n; i++)
        if (v[i] != (uint32_t)(i * 2654435761u)) CHECK_MSG(0, "element %zu lost", i);
    uint8_t *z = spill_calloc((size_t)3 << 20, 1);
    for (size_t i = 0; i < ((size_t)3 << 20); i += 4096) CHECK(z[i] == 0);
    spill_free(z);
    spill_free(v);
    CHECK_EQ_I(spill_bytes(), before);
    spill_configure(&(spill_policy){0, 0, NULL});
}

typedef struct rec { int64_t key; uint32_t seq; uint32_t pad[5]; } rec;
static int cmp_key(const void *a, const void *b) {
    const rec *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}
static int cmp_key_seq(const void *a, const void *b) {
    int c = cmp_key(a, b);
    if (c) return c;
    const rec *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

TEST(spill_sort_is_a_stable_sort) {
    size_t n = 300000;
    rec *a = malloc(n * sizeof *a), *ref = malloc(n * sizeof *a);
    srand(7);
    for (size_t i = 0; i < n; i++) a[i] = (rec){.key = rand() % 5000, .seq = (uint32_t)i};
    memcpy(ref, a, n * sizeof *a);
    qsort(ref, n, sizeof *ref, cmp_key_seq); /* stable order by construction */
    spill_sort(a, n, sizeof *a, cmp_key);
    for (size_t i = 0; i < n; i++)
        if (a[i].key != ref[i].key || a[i].seq != ref[i].seq) CHECK_MSG(0, "position %zu differs", i);
    free(a);
    free(ref);
}

/* pc_trace_finish: nearly ordered input (an operator after the calls inside
 * it, as Kineto writes) and shuffled input both end sorted, nothing lost. */
TEST(trace_finish_sorts_near_and_far_disorder) {
    for (int shuffled = 0; shuffled < 2; shuffled++) {
        pc_trace *t = pc_trace_new();
        int n = 60000;
        int64_t sum = 0;
        for (int i = 0; i < n; i += 3) {
            int64_t base = (int64_t)i * 1000;
            /* children first, then their parent (same start as the first child) */
            int64_t ts[3] = {base + 10, base + 10, base + 10}, du[3] = {100, 300, 500};
            for (int k = 0; k < 3; k++) {
                pc_cpu_event *e = pc_trace_add_cpu(t);
                e->ts = ts[k];
                e->dur = du[k];
                e->name = (uint32_t)(i + k + 1);
                sum += e->name;
            }
        }
        if (shuffled) {
            srand(11);
            for (size_t i = t->ncpu - 1; i > 0; i--) {
                size_t j = (size_t)rand() % (i + 1);
                pc_cpu_event x = t->cpu[i];
                t->cpu[i] = t->cpu[j];
                t->cpu[j] = x;
            }
        }
        pc_trace_finish(t);
        CHECK_EQ_I(t->ncpu, n);
        int64_t got = 0;
        for (size_t i = 0; i < t->ncpu; i++) {
            got += t->cpu[i].name;
            if (i && (t->cpu[i - 1].ts > t->cpu[i].ts || (t->cpu[i - 1].ts == t->cpu[i].ts && t->cpu[i - 1].dur < t->cpu[i].dur)))
                CHECK_MSG(0, "out of order at %zu (shuffled=%d)", i, shuffled);
        }
        CHECK_EQ_I(got, sum);
        CHECK_EQ_I(t->cpu[0].dur, 500); /* the parent comes first */
        pc_trace_free(t);
    }
}

/* pc_trace_absorb of two sorted traces merges them: the result is what a
 * stable sort of t's events followed by s's gives (ties: t's first), with
 * interleaved runs of every length, equal keys across the two, and an s that
 * lies wholly before, after or inside t. */
static int cmp_ev_ref(const void *a, const void *b) {
    const pc_cpu_event *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->dur != y->dur) return x->dur > y->dur ? -1 : 1;
    if (x->kind != y->kind) return x->kind - y->kind;
    return x->seq < y->seq ? -1 : x->seq > y->seq; /* seq: position in t then s */
}

TEST(trace_absorb_merges_sorted_parts_stably) {
    static const int64_t shift[4] = {0, -10000000, 10000000, 2500};
    for (int layout = 0; layout < 4; layout++) {
        pc_trace *t = pc_trace_new(), *s = pc_trace_new();
        size_t nt = 30000, ns = 40000, k = 0; /* s over 1 MiB: its pages are handed back as it merges */
        pc_cpu_event *ref = malloc((nt + ns) * sizeof *ref);
        srand(100 + layout);
        for (int side = 0; side < 2; side++) {
            pc_trace *x = side ? s : t;
            size_t n = side ? ns : nt;
            int64_t ts = side ? shift[layout] : 0;
            for (size_t i = 0; i < n; i++) {
                ts += rand() % 3 == 0 ? 0 : rand() % (1 + rand() % 1000); /* runs of equal starts */
                pc_cpu_event *e = pc_trace_add_cpu(x);
                e->ts = ts;
                e->dur = rand() % 4;
                e->kind = CPU_OP;
                e->seq = (int32_t)k;
                e->name = strtab_intern(&x->strs, side ? "s" : "t", 1);
                ref[k++] = *e;
            }
            pc_trace_sort(x);
        }
        qsort(ref, k, sizeof *ref, cmp_ev_ref);
        pc_trace_absorb(t, s);
        CHECK(t->sorted);
        CHECK_EQ_I(t->ncpu, nt + ns);
        size_t bad = 0;
        for (size_t i = 0; i < t->ncpu; i++) {
            const char *nm = strtab_get(&t->strs, t->cpu[i].name);
            int from_s = ref[i].seq >= (int32_t)nt;
            if (t->cpu[i].seq != ref[i].seq || strcmp(nm, from_s ? "s" : "t")) bad++;
        }
        CHECK_MSG(bad == 0, "layout %d: %zu events out of place", layout, bad);
        pc_trace_free(t);
        free(ref);
    }
}

/* A memory ceiling for the length of a test */
static void ceiling_set(const char *mib) { spill_configure(&(spill_policy){(size_t)atol(mib) << 20, 0, NULL}); }
static void ceiling_restore(void) {
    spill_configure(&(spill_policy){0, 0, NULL});
    spill_forecast(0);
}

/* Resident MiB of this process now (the tests run in one process, with or
 * without sanitizers: ceilings are set above what it already holds). */
static long resident_mib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &res) != 2) res = 0;
        fclose(f);
    }
    return res * sysconf(_SC_PAGESIZE) >> 20;
}

/* A forecast within 3/4 of the ceiling keeps big blocks out of files (here
 * 1.5 times what goes to memory without one); none, or one over 3/4 (4/5:
 * analysis adds to the loader's forecast), leaves them to files past 5/32
 * of the ceiling. */
TEST(spill_forecast_keeps_blocks_in_memory_when_they_fit) {
    /* a big allocation drops a forecast when resident memory passes 3/4 of
     * the ceiling: twice this process's resident size (ThreadSanitizer's is
     * hundreds of MiB) keeps that out of the way (1.5 R + 150 MiB against
     * at most R + 15/64 of the ceiling touched) */
    long ceil_mib = 2 * resident_mib() + 200;
    char mib[32];
    snprintf(mib, sizeof mib, "%ld", ceil_mib);
    ceiling_set(mib);
    size_t half = ((size_t)ceil_mib << 20) / 32 * 5 / 2, base = spill_bytes();
    spill_forecast((size_t)(ceil_mib / 2) << 20);
    void *a = spill_alloc(half), *b = spill_alloc(half), *c = spill_alloc(half);
    CHECK_EQ_I(spill_bytes(), base);
    spill_forecast((size_t)ceil_mib * 4 / 5 << 20); /* over 3/4: files again */
    void *d = spill_alloc(half);
    CHECK_MSG(spill_bytes() >= base + half, "%zu bytes in files", spill_bytes() - base);
    spill_free(d);
    spill_forecast(0);
    d = spill_alloc(half);
    CHECK(spill_bytes() >= base + half);
    spill_free(a), spill_free(b), spill_free(c), spill_free(d);
    CHECK_EQ_I(spill_bytes(), base);
    ceiling_restore();
}

/* Each big allocation checks a forecast: resident memory over 3/4 of the
 * ceiling sends it to a file although the forecast said it fits. */
TEST(spill_forecast_that_proves_wrong_is_dropped) {
    ceiling_set("8"); /* limit 6 MiB: this process is above it */
    size_t base = spill_bytes();
    char *touch = malloc((size_t)16 << 20);
    memset(touch, 1, (size_t)16 << 20);
    spill_forecast(1);
    void *a = spill_alloc((size_t)2 << 20);
    CHECK_MSG(spill_bytes() > base, "the block stayed in memory");
    spill_free(a);
    free(touch);
    ceiling_restore();
}

/* Minor page faults of this process so far */
static long minor_faults(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* Big blocks kept in memory start on a 2 MiB boundary, so that huge pages
 * can back them (malloc's start 16 bytes into a page: 4 KiB pages only),
 * and stay on one when a vector grows (moved or in place); their contents
 * survive growth, new bytes are zero. Where transparent huge pages are
 * enabled, filling 8 MiB costs far fewer than the 2,048 faults of 4 KiB
 * pages. */
TEST(spill_memory_blocks_start_on_huge_page_boundaries) {
    long ceil_mib = 2 * resident_mib() + 200; /* a forecast that holds: see below */
    char mib[32];
    snprintf(mib, sizeof mib, "%ld", ceil_mib);
    ceiling_set(mib);
    size_t base = spill_bytes(), huge = (size_t)2 << 20;
    spill_forecast((size_t)(ceil_mib / 2) << 20);
    size_t n8 = (size_t)8 << 20;
    unsigned char *p = spill_alloc(n8);
    CHECK_EQ_I(spill_bytes(), base);
    CHECK_MSG((uintptr_t)p % huge == 0, "block at %p", (void *)p);
    long f0 = minor_faults();
    memset(p, 7, n8);
    long faults = minor_faults() - f0;
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char mode[128] = "";
    if (thp) {
        if (!fgets(mode, sizeof mode, thp)) mode[0] = 0;
        fclose(thp);
    }
#ifndef __SANITIZE_THREAD__ /* ThreadSanitizer's shadow of the 8 MiB faults in too */
    if (mode[0] && !strstr(mode, "[never]")) CHECK_MSG(faults < 1024, "%ld faults to fill 8 MiB (THP: %s)", faults, mode);
#else
    (void)faults;
#endif
    spill_free(p);
    /* a vector grown element by element: every capacity starts on 2 MiB, keeps what it holds */
    size_t len = 0, cap = 0, bad = 0, misaligned = 0;
    uint64_t *v = NULL;
    void *blocker = NULL;
    for (uint64_t i = 0; i < ((uint64_t)3 << 19); i++) { /* to 16 MiB: ThreadSanitizer's shadow stays under 3/4 */
        uint64_t *was = v;
        *SPILL_PUSH(v, len, cap) = i * 0x9E3779B97F4A7C15ull;
        if (v != was && cap * sizeof *v >= huge) {
            misaligned += (uintptr_t)v % huge != 0;
            /* a block mapped right behind it makes the next growth move it */
            if (!blocker) blocker = spill_alloc(huge * 2);
        }
    }
    for (size_t i = 0; i < len; i++) bad += v[i] != i * 0x9E3779B97F4A7C15ull;
    CHECK_EQ_I(misaligned, 0);
    CHECK_EQ_I(bad, 0);
    /* grown past its length: the new bytes are zero */
    unsigned char *z = spill_alloc((size_t)3 << 20);
    memset(z, 0xff, (size_t)3 << 20);
    z = spill_realloc(z, (size_t)9 << 20);
    size_t nonzero = 0;
    for (size_t i = (size_t)3 << 20; i < ((size_t)9 << 20); i++) nonzero += z[i] != 0;
    CHECK_EQ_I(nonzero, 0);
    CHECK_EQ_I((uintptr_t)z % huge, 0);
    CHECK_EQ_I(spill_bytes(), base);
    /* the forecast withdrawn: a block in memory that grows past what big blocks may hold in
     * memory without one (5/32 of the ceiling: over 80 MiB where the process was already large,
     * as under AddressSanitizer after the other tests) goes to a file, with what it holds */
    spill_forecast(0);
    size_t grown = (size_t)80 << 20, budget = ((size_t)ceil_mib << 20) / 32 * 5 + ((size_t)8 << 20);
    if (grown < budget) grown = budget;
    z = spill_realloc(z, grown);
    CHECK_MSG(spill_bytes() > base, "grown to %zu MiB (ceiling %ld MiB), still in memory", grown >> 20, ceil_mib);
    for (size_t i = 0; i < ((size_t)3 << 20); i += 4093) bad += z[i] != 0xff;
    for (size_t i = (size_t)3 << 20; i < ((size_t)9 << 20); i += 4093) bad += z[i] != 0;
    CHECK_EQ_I(bad, 0);
    spill_free(z);
    spill_free(v);
    spill_free(blocker);
    CHECK_EQ_I(spill_bytes(), base);
    ceiling_restore();
}

/* What /proc/self/smaps says of the mappings inside [p, p + len): the KiB
 * resident (Rss) summed, and whether the one holding p may be read (its
 * permissions). The kernel's count, not the spill layer's. */
static long range_rss_kib(const void *p, size_t len, int *first_readable) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    uintptr_t lo = (uintptr_t)p, hi = lo + len;
    char line[512];
    long kib = 0, k;
    int in = 0;
    *first_readable = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long s, e;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3) {
            in = s >= lo && s < hi;
            if (s <= lo && lo < e) *first_readable = perms[0] == 'r';
        } else if (in && sscanf(line, "Rss: %ld kB", &k) == 1) kib += k;
    }
    fclose(f);
    return kib;
}

/* The window on file blocks (#48): however much of a file block is written
 * and read, and in whatever order, the pages of it resident in this process
 * never pass the window (a quarter of the ceiling), by the kernel's count
 * right after the passes, and by the layer's own count at its most; the
 * chunk touched first is closed again (no access) once the window has moved
 * on. The contents survive. Mapping file blocks for free access again (as
 * before #48, when a timer trimmed them) fails this at once, whatever the
 * machine's load: 96 MiB written and read would be resident. */
TEST(spill_window_bounds_the_resident_pages_of_file_blocks) {
    ceiling_set("64"); /* window 16 MiB; big blocks past 10 MiB go to files */
    size_t base = spill_bytes(), len = (size_t)96 << 20;
    unsigned char *p = spill_alloc(len);
    CHECK_MSG(spill_bytes() >= base + len, "%zu bytes in files", spill_bytes() - base);
    spill_window_stats w0, w;
    spill_window(&w0);
    CHECK_EQ_I(w0.limit, (size_t)16 << 20);
    for (size_t i = 0; i < len; i += 4096) p[i] = (unsigned char)(i >> 12);
    size_t bad = 0, x = 1; /* then read back in an order that jumps over the whole block */
    for (size_t k = 0; k < len / 4096; k++) {
        x = (x * 1103515245 + 12345) % (len / 4096);
        bad += p[x * 4096] != (unsigned char)x;
    }
    for (size_t i = 0; i < len; i += 4096) bad += p[i] != (unsigned char)(i >> 12);
    int first_readable;
    long rss = range_rss_kib(p, len, &first_readable);
    spill_window(&w);
    CHECK_EQ_I(bad, 0);
    CHECK_MSG(rss >= 0 && rss <= (long)(w.limit >> 10), "%ld KiB of the block resident, the window is %zu KiB", rss, w.limit >> 10);
    CHECK_MSG(w.open_max <= w.limit, "at most %zu bytes open, the window is %zu", w.open_max, w.limit);
    CHECK_MSG(w.opened - w0.opened >= 2 * len / w.chunk, "%llu chunks opened for two passes of %zu", w.opened - w0.opened, len / w.chunk);
    CHECK_MSG(first_readable == 0, "the first chunk is %s after the window moved on", first_readable ? "open" : "not mapped");
    spill_free(p);
    CHECK_EQ_I(spill_bytes(), base);
    ceiling_restore();
}

/* spill_release hands back whole pages only: bytes around them stay. */
TEST(spill_release_keeps_partial_pages) {
    size_t n = (size_t)3 << 20;
    unsigned char *p = spill_alloc(n);
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 7 + 1);
    long pg = sysconf(_SC_PAGESIZE);
    size_t from = 100, to = ((size_t)2 << 20) + 50;
    spill_release(p + from, to - from);
    size_t first = ((uintptr_t)(p + from) + (size_t)pg - 1) / (size_t)pg * (size_t)pg - (uintptr_t)p;
    size_t last = ((uintptr_t)(p + to)) / (size_t)pg * (size_t)pg - (uintptr_t)p;
    int bad = 0;
    for (size_t i = 0; i < first; i++) bad += p[i] != (unsigned char)(i * 7 + 1);
    for (size_t i = last; i < n; i++) bad += p[i] != (unsigned char)(i * 7 + 1);
    CHECK_EQ_I(bad, 0);
    spill_free(p);
}

/* The loader forecasts from its first 8 MiB (of every part): a uniform
 * 20 MB trace of N operators gives 12 MiB + 1.25 x N x 64 bytes, read
 * serially or in two parts. */
TEST(loader_forecast_from_the_first_megabytes) {
    char *path = tmp_path("forecast.json");
    FILE *f = fopen(path, "wb");
    CHECK(f);
    fputs("{\"traceEvents\": [\n", f);
    size_t events = 0;
    for (long i = 0; ftell(f) < 20L << 20; i++, events++)
        fprintf(f, "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": %08ld.500, \"dur\": 1.000, "
                   "\"args\": {\"External id\": %08ld, \"Sequence number\": %08ld, \"Fwd thread id\": 0}},\n", 1000 + i * 2, i + 1, i);
    fputs("  {\"ph\": \"M\", \"name\": \"end\", \"pid\": 1, \"tid\": 1}\n]}\n", f);
    fclose(f);
    double expect = 12.0 * 1048576 + 1.25 * (double)events * (double)sizeof(pc_cpu_event);
    for (int threads = 1; threads <= 2; threads++) {
        pc_load_opts lo = {.threads = threads, .split_min = 1};
        pc_trace *t = NULL;
        pc_err err = {0};
        CHECK_MSG(pc_load(path, &lo, &t, &err) == 0, "%s", err.msg);
        CHECK_EQ_I(t->ncpu, events);
        CHECK_EQ_I(t->stats.parts, threads);
        double got = (double)t->stats.forecast;
        CHECK_MSG(got > expect * 0.99 && got < expect * 1.01, "%d thread(s): forecast %.0f, expected %.0f", threads, got, expect);
        pc_trace_free(t);
        spill_forecast(0);
    }
    free(path);
}

/* The window's fault handler takes only faults in file blocks: any other
 * (here a write through a null pointer, after file blocks exist) still kills
 * the process with SIGSEGV, as without it; a freed block's address too. */
TEST(spill_other_faults_still_kill) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    SKIP("a sanitizer takes the fault before the process dies of it, and reports it");
#endif
    ceiling_set("8"); /* big blocks to files past 1.25 MiB */
    for (int freed = 0; freed < 2; freed++) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            unsigned char *p = spill_alloc((size_t)4 << 20);
            p[0] = 1;
            if (spill_bytes() == 0) _exit(3); /* not a file block: nothing tested */
            volatile unsigned char *bad = freed ? p : NULL;
            if (freed) spill_free(p);
            *bad = 2;
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "%s: status %#x", freed ? "freed block" : "null pointer", st);
    }
    ceiling_restore();
}

/* Loops walk many arrays at once (depgraph.c's dg_build about 16): the
 * window holds 16 chunks whatever its size, so walking 16 file blocks in
 * step opens each chunk once, about 64 MiB / chunk openings (at most 256 of
 * 256 KiB, the window's least), not one per page: 2 MiB chunks in a window
 * of 4 (the first version at a 64 MiB ceiling) opened some 16,000 here and
 * took the 419 MB gentrace trace from 1.8 s to 146 s. */
TEST(spill_window_walks_sixteen_arrays_at_once) {
    ceiling_set("64");
    enum { N = 16 };
    size_t len = (size_t)4 << 20, base = spill_bytes();
    unsigned char *p[N];
    for (int i = 0; i < N; i++) p[i] = spill_alloc(len);
    CHECK_MSG(spill_bytes() >= base + 12 * len, "%zu MiB in files", (spill_bytes() - base) >> 20);
    spill_window_stats w0, w;
    spill_window(&w0);
    size_t sum = 0;
    for (size_t at = 0; at < len; at += 4096)
        for (int i = 0; i < N; i++) sum += p[i][at] + 1u;
    spill_window(&w);
    CHECK_EQ_I(sum, (size_t)N * (len / 4096));
    CHECK_MSG(w.opened - w0.opened <= 2 * N * len / ((size_t)256 << 10), "%llu chunks opened to walk %d arrays of %zu MiB",
              w.opened - w0.opened, N, len >> 20);
    for (int i = 0; i < N; i++) spill_free(p[i]);
    ceiling_restore();
}
