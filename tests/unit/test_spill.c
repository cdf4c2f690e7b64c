/* Spilled arrays: contents survive growth and the watcher's trimming; the
 * sorts give what a stable reference sort gives. */
#include "test.h"
#include "model/trace.h"
#include "util/spill.h"
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

TEST(spill_blocks_keep_their_contents_when_trimmed) {
    const char *old = getenv("PERFCARD_MEM_MIB");
    char *saved = old ? strdup(old) : NULL;
    setenv("PERFCARD_MEM_MIB", "1", 1); /* every big block to a file; trim all the time */
    size_t before = spill_bytes();
    size_t n = (size_t)2 << 20, cap = 0, len = 0;
    uint32_t *v = NULL;
    for (size_t i = 0; i < n; i++) *SPILL_PUSH(v, len, cap) = (uint32_t)(i * 2654435761u);
    CHECK_MSG(spill_bytes() >= before + n * 4, "%zu bytes in files", spill_bytes() - before);
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the watcher runs every millisecond */
    for (size_t i = 0; i < n; i++)
        if (v[i] != (uint32_t)(i * 2654435761u)) CHECK_MSG(0, "element %zu lost", i);
    uint8_t *z = spill_calloc((size_t)3 << 20, 1);
    for (size_t i = 0; i < ((size_t)3 << 20); i += 4096) CHECK(z[i] == 0);
    spill_free(z);
    spill_free(v);
    CHECK_EQ_I(spill_bytes(), before);
    if (saved) setenv("PERFCARD_MEM_MIB", saved, 1);
    else unsetenv("PERFCARD_MEM_MIB");
    free(saved);
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
        size_t nt = 20000, ns = 15000, k = 0;
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
