/* The capture's trace writer: whatever moment the program is killed at, the
 * file loads (every complete event is used). */
#include "test.h"
#include "capture/sampler.h"
#include "capture/writer.h"
#include "load/load.h"
#include "util/fsutil.h"
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

TEST(capture_writer_cut_anywhere_loads) {
    char *path = tmp_path("capture.json");
    unlink(path);
    tw *w = tw_open(path, "\"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU \\\"x\\\"\", \"numSms\": 10}]");
    CHECK(w);
    char ev[256], esc[64];
    tw_escape(esc, sizeof esc, "k\"ernel\\\n");
    CHECK_EQ_S(esc, "k\\\"ernel\\\\\\u000a");
    for (int i = 0; i < 30; i++) {
        int n = snprintf(ev, sizeof ev, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %d.500, \"dur\": 2}",
                         esc, 1000 + i * 10);
        tw_event(w, ev, (size_t)n);
        if (i % 7 == 0) tw_flush(w);
    }
    tw_close(w);
    char *data;
    size_t len;
    pc_err err = {0};
    CHECK(fs_read_all(path, &data, &len, 1 << 20, &err) == 0);
    pc_trace *t = NULL;
    CHECK(pc_load_kineto_mem(data, len, &t, &err) == 0);
    CHECK(!t->truncated);
    CHECK_EQ_I(t->ngpu, 30);
    CHECK_EQ_S(strtab_get(&t->strs, t->gpu[0].name), "k\"ernel\\\n");
    CHECK_EQ_S(strtab_get(&t->strs, t->dev[0].name), "Test GPU \"x\"");
    pc_trace_free(t);
    size_t prev = 0;
    for (size_t cut = 1; cut < len; cut++) {
        int rc = pc_load_kineto_mem(data, cut, &t, &err);
        CHECK_MSG(rc == 0, "cut at %zu: %s", cut, err.msg);
        CHECK_MSG(t->ngpu >= prev, "cut at %zu lost events", cut);
        prev = t->ngpu;
        pc_trace_free(t);
    }
    CHECK_EQ_I(prev, 30);
    free(data);
    free(path);
}

/* #21: the writer held its lock during write(), so every thread that emits
 * (step markers included) waited on the disk. Here the disk is a pipe nobody
 * reads: the flush blocks in write(); events must still go in meanwhile. */
static void *flush_thread(void *w) {
    tw_flush(w);
    return NULL;
}
static void *emit_thread(void *w) {
    for (int i = 0; i < 1000; i++) tw_event(w, "{\"ph\": \"i\"}", 12);
    return NULL;
}
static void *drain_thread(void *fd) {
    char buf[4096];
    while (read(*(int *)fd, buf, sizeof buf) > 0) {}
    return NULL;
}

TEST(capture_writer_emits_while_the_disk_blocks) {
    int p[2];
    CHECK(pipe(p) == 0);
    tw *w = tw_fdopen(p[1], "");
    CHECK(w);
    static char big[256 * 1024]; /* more than a pipe holds: the flush blocks */
    memset(big, 'x', sizeof big - 1);
    tw_event(w, big, sizeof big - 1);
    pthread_t f;
    CHECK(pthread_create(&f, NULL, flush_thread, w) == 0);
    usleep(100 * 1000); /* the flush is now inside write(), the pipe full */
    pthread_t e, d;
    CHECK(pthread_create(&e, NULL, emit_thread, w) == 0);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    int emitted = pthread_timedjoin_np(e, NULL, &deadline) == 0; /* the old lock: blocked until the pipe drains */
    CHECK_MSG(emitted, "tw_event waited for a blocked write()");
    CHECK(pthread_create(&d, NULL, drain_thread, &p[0]) == 0);
    if (!emitted) pthread_join(e, NULL);
    pthread_join(f, NULL);
    tw_close(w); /* closes p[1]: the drain ends */
    pthread_join(d, NULL);
    close(p[0]);
}

/* The process tree's CPU time: root, children, grandchildren; not the rest.
 * #21: the marking loop was quadratic; a chain of 200,000 processes (each the
 * parent of the next) took minutes, now one sort and one pass. */
TEST(capture_cpu_tree_time) {
    cpu_proc v[] = {{1, 0, 1000}, {10, 1, 5}, {11, 10, 7}, {12, 10, 11}, {13, 12, 13}, {20, 1, 17}, {21, 20, 19}, {30, 11, 23}};
    CHECK_EQ_I((long)cpu_tree_time(v, 8, 10), 5 + 7 + 11 + 13 + 23);
    CHECK_EQ_I((long)cpu_tree_time(v, 8, 20), 17 + 19);
    CHECK_EQ_I((long)cpu_tree_time(v, 8, 99), 0);
    enum { N = 200000 };
    cpu_proc *chain = malloc(N * sizeof *chain);
    for (int i = 0; i < N; i++) chain[i] = (cpu_proc){(pid_t)(N - i + 100), (pid_t)(N - i + 99), 1}; /* reverse order: worst case for the old loop */
    CHECK_EQ_I((long)cpu_tree_time(chain, N, 101), N);
    free(chain);
}

/* Relative timestamps: microseconds since the origin with 3 decimals, the
 * values worked out by hand; a double holds them exactly to the ns. */
TEST(capture_relative_timestamps) {
    const uint64_t o = 1795465906311864300ull; /* an absolute CLOCK_REALTIME ns, 2026 */
    struct { uint64_t ns; const char *want; } c[] = {{o, "0.000"}, {o + 1, "0.001"}, {o + 999, "0.999"}, {o + 1000, "1.000"},
                                                     {o + 123456789, "123456.789"}, {o + 86400000000000ull, "86400000000.000"},
                                                     {o - 250, "-0.250"}, {o - 1234567, "-1234.567"}};
    char a[32];
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        tw_ts(a, c[i].ns, o);
        CHECK_EQ_S(a, c[i].want);
    }
}
