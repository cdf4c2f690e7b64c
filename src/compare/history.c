/* history.c - the history database (see history.h, docs/history-schema.md). */
#include "history.h"
#include "../summary/categories.h"
#include "../util/fsutil.h"
#include "../util/utf8.h"
#include "../util/xalloc.h"
#include "../util/sbuf.h"
#include "../model/trace.h"
#include <assert.h>
#include <math.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#if PC_HAVE_SQLITE
#include <sqlite3.h>

static const char schema_sql[] =
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, identity TEXT NOT NULL UNIQUE, label TEXT NOT NULL,"
    " input TEXT NOT NULL, start_utc TEXT, start_us REAL, report TEXT, steps INTEGER NOT NULL, kept_steps INTEGER NOT NULL, step_ns REAL,"
    " appended_utc TEXT NOT NULL);"
    "CREATE TABLE run_categories (run_id INTEGER NOT NULL REFERENCES runs(id), category TEXT NOT NULL, ns REAL NOT NULL,"
    " PRIMARY KEY (run_id, category));"
    "CREATE TABLE run_kernels (run_id INTEGER NOT NULL REFERENCES runs(id), rank INTEGER NOT NULL, name TEXT NOT NULL,"
    " ns REAL NOT NULL, PRIMARY KEY (run_id, rank));";

enum { STR_MAX = 4096, BUSY_MS = 60000 };

static int db_err(sqlite3 *h, pc_err *err, const char *what) {
    int rc = sqlite3_extended_errcode(h), prim = rc & 0xff;
    const char *m = sqlite3_errmsg(h);
    if (prim == SQLITE_READONLY || prim == SQLITE_CANTOPEN || prim == SQLITE_PERM || prim == SQLITE_FULL || prim == SQLITE_IOERR)
        return PC_ERRF(err, PC_EIO, "cannot write the history (%s): %s", what, m);
    if (prim == SQLITE_NOTADB) return PC_ERRF(err, PC_EINPUT, "not a perfcard history (not an SQLite database)");
    if (prim == SQLITE_CORRUPT) return PC_ERRF(err, PC_EINPUT, "the history is damaged (%s): %s", what, m);
    if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
        return PC_ERRF(err, PC_EIO, "the history stayed locked by another job for %d s (%s)", BUSY_MS / 1000, what);
    return PC_ERRF(err, PC_EINPUT, "cannot read the history (%s): %s", what, m);
}

/* Whether a read may open path immutable (SQLite's "immutable=1": no locks,
 * no -wal or -shm made beside it): a WAL-mode file (header bytes 18 and 19
 * are 2) with no -wal file, so nothing is waiting to be checkpointed and no
 * writer is at work (a writer's -wal exists while it writes). A read-only
 * open of such a file would leave -wal and -shm files behind it; a
 * rollback-journal file is read with its locks (an appending job writes its
 * pages in place), which makes no file. */
static int wal_at_rest(const char *path) {
    unsigned char hdr[20];
    int fd = fs_open_regular(path, NULL, NULL);
    if (fd < 0) return 0;
    ssize_t n = pread(fd, hdr, sizeof hdr, 0);
    close(fd);
    if (n != (ssize_t)sizeof hdr || memcmp(hdr, "SQLite format 3", 16) || hdr[18] != 2 || hdr[19] != 2) return 0;
    char *wal = xmalloc(strlen(path) + 5);
    sprintf(wal, "%s-wal", path);
    struct stat st;
    int rest = lstat(wal, &st) < 0 && errno == ENOENT;
    free(wal);
    return rest;
}

static int open_db(const char *path, int write, sqlite3 **out, pc_err *err) {
    sqlite3 *h = NULL;
    int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    /* the cause in perfcard's words (SQLite says "unable to open database file" for a link, a FIFO would block it) */
    int bad = fs_check_plain(path, write, err);
    if (bad) return bad;
    sbuf uri = {0};
    if (!write && wal_at_rest(path)) { /* "file:PATH?immutable=1", the path's URI characters quoted */
        const char *p = path;
        while (p[0] == '/' && p[1] == '/') p++; /* "file://x" would name a host */
        sbuf_puts(&uri, p[0] == '/' ? "file:" : "file:./");
        for (; *p; p++) {
            if (*p == '%' || *p == '?' || *p == '#') sbuf_printf(&uri, "%%%02X", (unsigned char)*p);
            else sbuf_putc(&uri, *p);
        }
        sbuf_puts(&uri, "?immutable=1");
        flags |= SQLITE_OPEN_URI;
    }
    int orc = sqlite3_open_v2(uri.data ? uri.data : path, &h, flags | SQLITE_OPEN_NOFOLLOW, NULL);
    sbuf_free(&uri);
    if (orc != SQLITE_OK) {
        int rc = !h ? PC_ERRF(err, PC_EIO, "cannot open: out of memory")
                    : write ? PC_ERRF(err, PC_EIO, "cannot open for writing: %s", sqlite3_errmsg(h))
                            : PC_ERRF(err, PC_EIO, "cannot open: %s", sqlite3_errmsg(h));
        sqlite3_close(h);
        return rc;
    }
    /* a hostile file runs none of its own code: no triggers, no views, no schema functions */
    sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
    sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
#endif
    sqlite3_limit(h, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_busy_timeout(h, BUSY_MS);
    *out = h;
    return 0;
}

/* one text value of a one-column query, or NULL; *rc set on an error */
static char *query_text(sqlite3 *h, const char *sql, int *rc) {
    sqlite3_stmt *st;
    char *v = NULL;
    *rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    if (*rc != SQLITE_OK) return NULL;
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) v = xstrdup((const char *)sqlite3_column_text(st, 0));
    *rc = s == SQLITE_ROW || s == SQLITE_DONE ? SQLITE_OK : s;
    sqlite3_finalize(st);
    return v;
}

/* 0 when the file is a perfcard history this perfcard reads, 1 when it has no
 * tables at all (empty: a history can be made in it), else an error */
static int check_history(sqlite3 *h, pc_err *err) {
    int rc;
    char *any = query_text(h, "SELECT name FROM sqlite_master LIMIT 1", &rc);
    if (rc != SQLITE_OK) return db_err(h, err, "its schema");
    if (!any) return 1;
    free(any);
    char *has = query_text(h, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'", &rc);
    if (rc != SQLITE_OK) return db_err(h, err, "its schema");
    if (!has) return PC_ERRF(err, PC_EINPUT, "not a perfcard history (an SQLite database without its meta table; docs/history-schema.md)");
    free(has);
    char *fmt = query_text(h, "SELECT value FROM meta WHERE key = 'format'", &rc);
    int ok = rc == SQLITE_OK && fmt && !strcmp(fmt, "perfcard-history");
    free(fmt);
    if (rc != SQLITE_OK) return db_err(h, err, "its meta table");
    if (!ok) return PC_ERRF(err, PC_EINPUT, "not a perfcard history (meta has no format 'perfcard-history')");
    char *ver = query_text(h, "SELECT value FROM meta WHERE key = 'schema_version'", &rc);
    char *end = NULL;
    long v = ver ? strtol(ver, &end, 10) : 0;
    int bad = !ver || !*ver || *end || v < 1;
    free(ver);
    if (rc != SQLITE_OK) return db_err(h, err, "its meta table");
    if (bad) return PC_ERRF(err, PC_EINPUT, "not a perfcard history (its schema_version is not a version number)");
    if (v > PC_HISTORY_SCHEMA)
        return PC_ERRF(err, PC_EINPUT, "written by a newer perfcard (history schema %ld; this one reads %d): not read, not changed", v,
                       PC_HISTORY_SCHEMA);
    return 0;
}

static void now_utc(char out[24]) {
    time_t t = time(NULL);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &tm)) strcpy(out, "1970-01-01T00:00:00Z");
}

/* the text that says whether two runs are the same (history.h) */
static void identity(sbuf *b, const pc_trend_point *p) {
    sbuf_printf(b, "%s\x1f%s\x1f%s\x1f%d\x1f%d\x1f%.17g", p->label, p->input ? p->input : "", p->start_utc ? p->start_utc : "",
                p->steps, p->kept_steps, p->step_ns);
    for (int k = 0; k < BK_N; k++) sbuf_printf(b, "\x1f%.17g", p->cat_ns[k]);
}

static int bind_text(sqlite3_stmt *st, int i, const char *s) {
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int insert_run(sqlite3 *h, const pc_trend_point *p, const char *when, int64_t *id, int *added) {
    sbuf idt = {0};
    identity(&idt, p);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, "SELECT id FROM runs WHERE identity = ?", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        bind_text(st, 1, idt.data);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *id = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
            sbuf_free(&idt);
            return SQLITE_OK;
        }
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(h, "INSERT INTO runs (identity, label, input, start_utc, report, steps, kept_steps, step_ns, appended_utc, start_us)"
                                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        bind_text(st, 1, idt.data), bind_text(st, 2, p->label), bind_text(st, 3, p->input ? p->input : "");
        bind_text(st, 4, p->start_utc), bind_text(st, 5, p->report);
        sqlite3_bind_int(st, 6, p->steps), sqlite3_bind_int(st, 7, p->kept_steps);
        if (isfinite(p->step_ns)) sqlite3_bind_double(st, 8, p->step_ns);
        else sqlite3_bind_null(st, 8);
        bind_text(st, 9, when);
        if (isfinite(p->start_us)) sqlite3_bind_double(st, 10, p->start_us);
        else sqlite3_bind_null(st, 10);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(h);
        sqlite3_finalize(st);
    }
    sbuf_free(&idt);
    if (rc != SQLITE_OK) return rc;
    *id = sqlite3_last_insert_rowid(h);
    (*added)++;
    rc = sqlite3_prepare_v2(h, "INSERT INTO run_categories (run_id, category, ns) VALUES (?, ?, ?)", -1, &st, NULL);
    for (int k = 0; rc == SQLITE_OK && k < BK_N; k++) {
        if (!isfinite(p->cat_ns[k])) continue;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, *id), bind_text(st, 2, pc_bk[k].step_key), sqlite3_bind_double(st, 3, p->cat_ns[k]);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(h);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(h, "INSERT INTO run_kernels (run_id, rank, name, ns) VALUES (?, ?, ?, ?)", -1, &st, NULL);
    for (int k = 0; rc == SQLITE_OK && k < p->nrun_kernels && k < PC_HISTORY_KERNELS; k++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, *id), sqlite3_bind_int(st, 2, k), bind_text(st, 3, p->run_kernels[k].name);
        sqlite3_bind_double(st, 4, p->run_kernels[k].ns);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(h);
    }
    sqlite3_finalize(st);
    return rc;
}

int pc_history_append(const char *path, const pc_trend_point *p, int n, int64_t *last_id, int *added, pc_err *err) {
    sqlite3 *h;
    *last_id = 0, *added = 0;
    int rc = open_db(path, 1, &h, err);
    if (rc) return rc;
    /* checked before any write: a file that is not a history is left as it was */
    int st = check_history(h, err);
    if (st < 0) { sqlite3_close(h); return st; }
    struct stat fs;
    if (sqlite3_db_readonly(h, "main") == 1 || (stat(path, &fs) == 0 && !(fs.st_mode & 0222))) { /* no write bit: not even root writes it */
        sqlite3_close(h);
        return PC_ERRF(err, PC_EIO, "cannot write the history: the file is read-only");
    }
    if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        rc = db_err(h, err, "starting to append");
        sqlite3_close(h);
        return rc;
    }
    /* again inside the transaction: another job may have made it meanwhile */
    st = check_history(h, err);
    int src = SQLITE_OK;
    if (st == 1) {
        char meta[200];
        snprintf(meta, sizeof meta, "INSERT INTO meta VALUES ('format', 'perfcard-history'), ('schema_version', '%d'), "
                 "('created_by', 'perfcard %s');", PC_HISTORY_SCHEMA, PC_VERSION);
        src = sqlite3_exec(h, schema_sql, NULL, NULL, NULL);
        if (src == SQLITE_OK) src = sqlite3_exec(h, meta, NULL, NULL, NULL);
    }
    char when[24];
    now_utc(when);
    for (int i = 0; st >= 0 && src == SQLITE_OK && i < n; i++) src = insert_run(h, &p[i], when, last_id, added);
    if (st >= 0 && src == SQLITE_OK && sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) {
        sqlite3_close(h);
        return 0;
    }
    rc = st < 0 ? st : db_err(h, err, "appending");
    sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    *added = 0;
    sqlite3_close(h);
    return rc;
}

/* a bounded, valid UTF-8 copy the history owns (NULL for NULL) */
static const char *own(pc_history *hs, const unsigned char *s) {
    if (!s) return NULL;
    size_t n = strnlen((const char *)s, STR_MAX), outn;
    char *r = utf8_repair((const char *)s, n, &outn, NULL);
    if (!r) {
        r = xmalloc(n + 1);
        memcpy(r, s, n);
        r[n] = 0;
    }
    *(char **)VEC_PUSH(hs->strs, hs->nstrs, hs->capstrs) = r;
    return r;
}

static const char *col_text(pc_history *hs, sqlite3_stmt *st, int i) {
    return sqlite3_column_type(st, i) == SQLITE_TEXT ? own(hs, sqlite3_column_text(st, i)) : NULL;
}

/* a time in ns a history may hold: finite, >= 0, within the trace model's bound */
static int ns_ok(double v) { return isfinite(v) && v >= 0 && v < PC_TIME_LIMIT_D; }

/* The runs read, newest first: the points (hs->runs) and their ids, descending. */
typedef struct hread { pc_history *hs; int64_t *ids; size_t nr, nid, capid; int64_t lim; double deadline; } hread;

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int past_deadline(void *arg) { return mono_s() > ((hread *)arg)->deadline; }

/* the point of run id, or NULL (a run left out, or none read): ids descend */
static pc_trend_point *run_of(const hread *r, int64_t id) {
    size_t lo = 0, hi = r->nr;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (r->ids[m] == id) return &r->hs->runs[m];
        if (r->ids[m] > id) lo = m + 1;
        else hi = m;
    }
    return NULL;
}

/* the newest PC_HISTORY_MAX_RUNS runs up to r->lim: checked (impossible ones counted in invalid),
 * categories NAN until read_categories finds one, an empty kernel list of PC_HISTORY_KERNELS */
static int read_runs(sqlite3 *h, hread *r) {
    pc_history *hs = r->hs;
    sqlite3_stmt *q = NULL;
    int src = sqlite3_prepare_v2(h, "SELECT count(*) FROM runs WHERE id <= ?", -1, &q, NULL);
    if (src == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, r->lim);
        if (sqlite3_step(q) == SQLITE_ROW) hs->total = sqlite3_column_int64(q, 0);
        else src = sqlite3_errcode(h);
    }
    sqlite3_finalize(q);
    q = NULL;
    if (src == SQLITE_OK)
        src = sqlite3_prepare_v2(h, "SELECT id, label, input, start_utc, report, steps, kept_steps, step_ns, start_us FROM runs WHERE id <= ?"
                                    " ORDER BY id DESC LIMIT ?", -1, &q, NULL);
    if (src != SQLITE_OK) return src;
    sqlite3_bind_int64(q, 1, r->lim), sqlite3_bind_int(q, 2, PC_HISTORY_MAX_RUNS);
    size_t cap = 0;
    int s;
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t steps = sqlite3_column_int64(q, 5), kept = sqlite3_column_int64(q, 6);
        int tnull = sqlite3_column_type(q, 7) == SQLITE_NULL;
        double step = sqlite3_column_double(q, 7);
        /* impossible figures: the run is left out, counted */
        if (sqlite3_column_type(q, 1) != SQLITE_TEXT || sqlite3_column_type(q, 5) != SQLITE_INTEGER ||
            sqlite3_column_type(q, 6) != SQLITE_INTEGER || steps < 0 || steps > 100000000 || kept < 0 || kept > steps ||
            (tnull ? kept > 0 : sqlite3_column_type(q, 7) != SQLITE_FLOAT || !ns_ok(step) || kept == 0)) {
            hs->invalid++;
            continue;
        }
        pc_trend_point *p = VEC_PUSH(hs->runs, r->nr, cap);
        *VEC_PUSH(r->ids, r->nid, r->capid) = sqlite3_column_int64(q, 0);
        memset(p, 0, sizeof *p);
        const char *lab = col_text(hs, q, 1);
        snprintf(p->label, sizeof p->label, "%s", lab ? lab : "");
        p->label[utf8_valid_prefix(p->label, strlen(p->label))] = 0;
        p->input = col_text(hs, q, 2);
        if (!p->input) p->input = "";
        const char *u = col_text(hs, q, 3);
        p->start_utc = pc_trend_utc_ok(u) ? u : NULL;
        p->report = col_text(hs, q, 4);
        double su = sqlite3_column_double(q, 8);
        p->start_us = sqlite3_column_type(q, 8) == SQLITE_FLOAT && isfinite(su) && fabs(su) < PC_TIME_LIMIT_D ? su : NAN;
        p->steps = (int)steps, p->kept_steps = (int)kept;
        p->step_ns = tnull ? NAN : step;
        for (int k = 0; k < BK_N; k++) p->cat_ns[k] = NAN;
        p->run_kernels = xcalloc(PC_HISTORY_KERNELS, sizeof *p->run_kernels);
    }
    assert(r->nid == r->nr && r->nr <= PC_HISTORY_MAX_RUNS);
    hs->n = (int)r->nr;
    sqlite3_finalize(q);
    return s == SQLITE_DONE ? SQLITE_OK : s;
}

/* the runs' rows of a table, in one pass over it (the tables need no index on run_id: a history
 * without one took a scan per run, 68 s for 1,000 runs of 1,000 kernels) */
#define RUN_ROWS(cols, table, order) "SELECT run_id, " cols " FROM " table " WHERE run_id IN (SELECT id FROM runs WHERE id <= ?1" \
    " ORDER BY id DESC LIMIT ?2)" order

/* the step categories: a run with none of them valid keeps NAN in all (as read_runs left them) */
static int read_categories(sqlite3 *h, hread *r) {
    sqlite3_stmt *q = NULL;
    int src = sqlite3_prepare_v2(h, RUN_ROWS("category, ns", "run_categories", ""), -1, &q, NULL);
    if (src != SQLITE_OK) return src;
    sqlite3_bind_int64(q, 1, r->lim), sqlite3_bind_int(q, 2, PC_HISTORY_MAX_RUNS);
    int s;
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        pc_trend_point *p = run_of(r, sqlite3_column_int64(q, 0));
        const char *key = (const char *)sqlite3_column_text(q, 1);
        double v = sqlite3_column_double(q, 2);
        if (!p || !key || sqlite3_column_type(q, 2) != SQLITE_FLOAT || !ns_ok(v)) continue;
        for (int k = 0; k < BK_N; k++)
            if (!strcmp(key, pc_bk[k].step_key)) {
                int any = 0; /* the run's first valid category makes the others 0 */
                for (int j = 0; j < BK_N; j++) any |= !isnan(p->cat_ns[j]);
                for (int j = 0; j < BK_N && !any; j++) p->cat_ns[j] = 0;
                p->cat_ns[k] = v;
            }
    }
    sqlite3_finalize(q);
    return s == SQLITE_DONE ? SQLITE_OK : s;
}

/* each run's first PC_HISTORY_KERNELS kernel rows by rank, the valid ones kept */
static int read_kernels(sqlite3 *h, hread *r) {
    sqlite3_stmt *q = NULL;
    int src = sqlite3_prepare_v2(h, RUN_ROWS("name, ns", "run_kernels", " ORDER BY run_id, rank"), -1, &q, NULL);
    if (src != SQLITE_OK) return src;
    sqlite3_bind_int64(q, 1, r->lim), sqlite3_bind_int(q, 2, PC_HISTORY_MAX_RUNS);
    int s, seen = 0;
    int64_t last = INT64_MIN;
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q, 0);
        if (id != last) last = id, seen = 0;
        pc_trend_point *p = run_of(r, id);
        if (!p || seen++ >= PC_HISTORY_KERNELS) continue;
        double v = sqlite3_column_double(q, 2);
        if (sqlite3_column_type(q, 1) != SQLITE_TEXT || sqlite3_column_type(q, 2) != SQLITE_FLOAT || !ns_ok(v)) continue;
        pc_trend_kernel *ks = (pc_trend_kernel *)p->run_kernels;
        ks[p->nrun_kernels++] = (pc_trend_kernel){col_text(r->hs, q, 1), v};
    }
    sqlite3_finalize(q);
    return s == SQLITE_DONE ? SQLITE_OK : s;
}

/* The reading takes at most PERFCARD_SQLITE_SECONDS (default 300), as a trace's database does
 * (load/sqlite_in.c): three queries, the runs, their categories, their kernels. */
int pc_history_read(const char *path, int64_t upto, pc_history **out, pc_err *err) {
    *out = NULL;
    sqlite3 *h;
    struct stat fs;
    if (stat(path, &fs) != 0) return PC_ERRF(err, PC_EINPUT, "no such history (give runs to append to make it)");
    int rc = open_db(path, 0, &h, err);
    if (rc) return rc;
    const char *sq = getenv("PERFCARD_SQLITE_SECONDS");
    int seconds = sq && atoi(sq) > 0 ? atoi(sq) : 300;
    pc_history *hs = xcalloc(1, sizeof *hs);
    hread r = {.hs = hs, .lim = upto > 0 ? upto : INT64_MAX, .deadline = mono_s() + seconds};
    sqlite3_progress_handler(h, 100000, past_deadline, &r);
    if (sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        rc = db_err(h, err, "reading");
        sqlite3_close(h);
        pc_history_free(hs);
        return rc;
    }
    int st = check_history(h, err);
    if (st) {
        if (st == 1) st = PC_ERRF(err, PC_EINPUT, "not a perfcard history (an empty database)");
        sqlite3_close(h);
        pc_history_free(hs);
        return st;
    }
    int src = read_runs(h, &r);
    if (src == SQLITE_OK) src = read_categories(h, &r);
    if (src == SQLITE_OK) src = read_kernels(h, &r);
    free(r.ids);
    if (src != SQLITE_OK) {
        rc = src == SQLITE_INTERRUPT ? PC_ERRF(err, PC_EINPUT, "reading the history took longer than %d s (PERFCARD_SQLITE_SECONDS)", seconds)
                                     : db_err(h, err, "its runs");
        sqlite3_close(h);
        pc_history_free(hs);
        return rc;
    }
    sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(h);
    /* newest first from the query: back to append order */
    for (int i = 0, j = hs->n - 1; i < j; i++, j--) {
        pc_trend_point t = hs->runs[i];
        hs->runs[i] = hs->runs[j], hs->runs[j] = t;
    }
    *out = hs;
    return 0;
}

void pc_history_free(pc_history *h) {
    if (!h) return;
    for (int i = 0; i < h->n; i++) free((void *)h->runs[i].run_kernels);
    for (size_t i = 0; i < h->nstrs; i++) free(h->strs[i]);
    free(h->strs), free(h->runs), free(h);
}

#else
int pc_history_append(const char *path, const pc_trend_point *p, int n, int64_t *last_id, int *added, pc_err *err) {
    (void)path, (void)p, (void)n;
    *last_id = 0, *added = 0;
    return PC_ERRF(err, PC_EUNSUP, "perfcard was built without SQLite: no --db");
}
int pc_history_read(const char *path, int64_t upto, pc_history **out, pc_err *err) {
    (void)path, (void)upto;
    *out = NULL;
    return PC_ERRF(err, PC_EUNSUP, "perfcard was built without SQLite: no --db");
}
void pc_history_free(pc_history *h) { (void)h; }
#endif
