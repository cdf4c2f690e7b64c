/* libFuzzer target: the run history `perfcard trend --db` reads and appends
 * to (src/compare/history.c), as a file of the input's bytes: an SQLite
 * database from anyone (a CI cache, an artifact). pc_history_read, then a
 * run appended to it and the history read again. Any input must give 0 or a
 * PC_E* code: never a crash, hang or leak; what a read returns is what the
 * header promises: at most PC_HISTORY_MAX_RUNS runs, each with valid UTF-8
 * strings, figures finite and >= 0, at most PC_HISTORY_KERNELS kernels; a
 * file refused (not a history, a newer or a damaged one) keeps its bytes; a
 * history that reads (and
 * that SQLite's integrity check finds whole) still reads after a run is
 * appended to it. */
#include "compare/history.h"
#include "util/utf8.h"
#include <sqlite3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], path[96];

static void must(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "history read: %s\n", what);
    abort();
}

static void check_text(const char *s) { must(!s || utf8_valid_prefix(s, strlen(s)) == strlen(s), "a string is not UTF-8"); }

/* the promises of pc_history_read about what it returns */
static void check(const pc_history *h) {
    must(h->n >= 0 && h->n <= PC_HISTORY_MAX_RUNS && h->total >= h->n - h->invalid, "run counts");
    for (int i = 0; i < h->n; i++) {
        const pc_trend_point *p = &h->runs[i];
        check_text(p->label), check_text(p->input), check_text(p->start_utc);
        must(!isfinite(p->step_ns) || p->step_ns >= 0, "a negative step time");
        must(p->nrun_kernels >= 0 && p->nrun_kernels <= PC_HISTORY_KERNELS, "kernels per run");
        for (int k = 0; k < p->nrun_kernels; k++) {
            check_text(p->run_kernels[k].name);
            must(isfinite(p->run_kernels[k].ns) && p->run_kernels[k].ns >= 0, "a kernel's time");
        }
    }
}

/* SQLite's own check of the whole file: 1 when it finds nothing damaged */
static int intact(void) {
    sqlite3 *h;
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
             !strcmp((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(h);
    return ok;
}

static int read_check(void) {
    pc_history *h = NULL;
    pc_err err = {0};
    int rc = pc_history_read(path, 0, &h, &err);
    must(rc == 0 ? h != NULL : rc < 0 && err.msg[0], "a failure without a code and a message");
    if (h) check(h);
    pc_history_free(h);
    return rc;
}

/* the file holds exactly data[0, size) */
static int same_bytes(const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t b[4096];
    size_t off = 0, n;
    int same = 1;
    while (same && (n = fread(b, 1, sizeof b, f)) > 0) {
        same = off + n <= size && !memcmp(b, data + off, n);
        off += n;
    }
    fclose(f);
    return same && off == size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/perfcard-fuzz-hist-XXXXXX");
        if (!mkdtemp(dir)) abort();
        snprintf(path, sizeof path, "%s/h.sqlite", dir);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();
    int was = read_check(), whole = was == 0 && intact();
    pc_trend_point p = {.label = "fuzz", .input = "summary.json", .steps = 3, .kept_steps = 3, .step_ns = 1e6};
    int64_t id = 0;
    int added = 0;
    pc_err err = {0};
    int rc = pc_history_append(path, &p, 1, &id, &added, &err);
    must(rc <= 0 && (rc == 0 || err.msg[0]), "an append failure without a message");
    if (rc == PC_EINPUT && size > 0) /* not a history, a newer one or a damaged one: its bytes as they were (SQLite
                                      * may write a damaged one's pages and roll them back: the time changes) */
        must(same_bytes(data, size), "a refused file was changed");
    /* a damaged database can read and take an append, then read as damaged (SQLite finds damage where it
     * reads): only a history that read and that SQLite's integrity check finds whole must read again */
    if (rc == 0 && whole) must(read_check() == 0, "a whole history does not read after an append");
    unlink(path);
    char side[128];
    snprintf(side, sizeof side, "%s-journal", path), unlink(side);
    snprintf(side, sizeof side, "%s-wal", path), unlink(side);
    snprintf(side, sizeof side, "%s-shm", path), unlink(side);
    return 0;
}
