/* sqlite_in.c - Nsight Systems (`nsys export --type sqlite`) and nvprof
 * (`nvprof -o file.sql`) databases into the model.
 *
 * Read: kernels, memcpy, memset, CUDA runtime (and driver) calls,
 * synchronization, NVTX ranges (as annotations, so they can name steps with
 * --step-pattern), and devices. Columns are looked up by name, so schema
 * versions that lack some keep working; the session's start in UTC
 * (TARGET_INFO_SESSION_START_TIME.utcEpochNs) dates the run. Never read: TARGET_INFO_SYSTEM_ENV,
 * PROCESSES command lines, or any other table that can hold environment
 * variables or secrets. Times in both formats are nanoseconds already. */
#include "load.h"
#include "readers.h"
#include "cbid.h"
#include "../util/apiname.h"
#include "../util/xalloc.h"
#include <sqlite3.h>
#include <sys/stat.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include "../util/sbuf.h"
#include <stdlib.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

typedef struct db {
    sqlite3 *h;
    pc_trace *t;
    pc_err *err;
    const char *path;
    int kind;            /* host_row: the kind of the rows being read */
    double deadline;     /* monotonic seconds after which queries are interrupted */
    int seconds;         /* the time allowed (pc_load_opts.sqlite_seconds) */
    /* host_row, API calls: the row before (in table order), to drop the inner
     * row of a call recorded twice */
    int64_t last_corr, last_pid, last_tid, last_s, last_e;
    char last_name[128];
    int cupti_mem;       /* memory kinds in CUPTI's numbering (nvprof), not Nsight Systems' */
} db;
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int past_deadline(void *arg) { return now_s() > ((db *)arg)->deadline; }

static int has_table(db *d, const char *t) {
    sqlite3_stmt *st;
    int ok = 0;
    if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
        ok = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return ok;
}

/* a rocpd database (rocprofv3's SQLite output): its tables are named
 * rocpd_<table>_<uuid> (rocprofiler-sdk's rocpd_tables.sql) */
static int is_rocpd(db *d) {
    sqlite3_stmt *st;
    int ok = 0;
    if (sqlite3_prepare_v2(d->h, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd\\_%' ESCAPE '\\' LIMIT 1", -1, &st,
                           NULL) == SQLITE_OK)
        ok = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return ok;
}

static int has_col(db *d, const char *t, const char *c) {
    char q[256];
    snprintf(q, sizeof q, "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?", t);
    sqlite3_stmt *st;
    int ok = 0;
    if (sqlite3_prepare_v2(d->h, q, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, c, -1, SQLITE_STATIC);
        ok = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return ok;
}

/* "col" when the table has it, else the fallback expression */
static const char *col(db *d, const char *t, const char *c, const char *fallback) { return has_col(d, t, c) ? c : fallback; }

static int prep(db *d, const char *sql, sqlite3_stmt **st) {
    if (sqlite3_prepare_v2(d->h, sql, -1, st, NULL) != SQLITE_OK)
        return PC_ERRF(d->err, PC_EINPUT, "not a readable profiler database: %s", sqlite3_errmsg(d->h));
    return 0;
}

static uint32_t text(db *d, sqlite3_stmt *st, int i) {
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? strtab_intern(&d->t->strs, (const char *)s, strlen((const char *)s)) : strtab_intern(&d->t->strs, "(unnamed)", 9);
}

static int step_all(db *d, sqlite3_stmt *st, void (*row)(db *, sqlite3_stmt *)) {
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(d, st);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    if (rc == SQLITE_INTERRUPT)
        return PC_ERRF(d->err, PC_EINPUT, "reading the database took longer than %d s (PERFCARD_SQLITE_SECONDS)", d->seconds);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB || rc == SQLITE_IOERR)
        return PC_ERRF(d->err, PC_EINPUT, "the database is truncated or damaged (%s)", sqlite3_errmsg(d->h));
    return PC_ERRF(d->err, PC_EINPUT, "database read error: %s", sqlite3_errmsg(d->h));
}

/* Times from the database are taken only within +-PC_TIME_LIMIT, so durations
 * and offsets never overflow; rows outside are counted as invalid. */
#define SQL_TIME_MAX PC_TIME_LIMIT
static int times_ok(db *d, int64_t a, int64_t b) {
    if (a > -SQL_TIME_MAX && a < SQL_TIME_MAX && b > -SQL_TIME_MAX && b < SQL_TIME_MAX)
        return pc_trace_take_dur(d->t, b > a ? b - a : 0);
    d->t->stats.bad_fields++;
    return 0;
}

/* A GPU event from the columns every query starts with: start, end,
 * deviceId, streamId, correlationId. */
static pc_gpu_event *gpu_row(db *d, sqlite3_stmt *st, int kind) {
    static pc_gpu_event scratch; /* rows with impossible times are read into nothing */
    if (!times_ok(d, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1))) {
        memset(&scratch, 0, sizeof scratch);
        return &scratch;
    }
    pc_gpu_event *g = pc_trace_add_gpu(d->t);
    g->kind = (uint8_t)kind;
    g->ts = sqlite3_column_int64(st, 0);
    g->dur = sqlite3_column_int64(st, 1) - g->ts;
    if (g->dur < 0) g->dur = 0;
    g->device = sqlite3_column_int(st, 2);
    g->stream = sqlite3_column_int(st, 3);
    g->corr = sqlite3_column_int64(st, 4);
    return g;
}

static void kernel_row(db *d, sqlite3_stmt *st) {
    pc_gpu_event *g = gpu_row(d, st, GPU_KERNEL);
    g->name = text(d, st, 5);
    for (int k = 0; k < 3; k++) g->grid[k] = (uint32_t)sqlite3_column_int(st, 6 + k), g->block[k] = (uint16_t)sqlite3_column_int(st, 9 + k);
    g->regs = (int16_t)sqlite3_column_int(st, 12);
    g->smem = sqlite3_column_int(st, 13);
}

/* memcpy kinds: CUPTI's enum (1 HtoD, 2 DtoH, 8 DtoD, 9 HtoH, 10 PtoP). Memory kinds: Nsight
 * Systems numbers them 0 pageable, 1 pinned, 2 device, 3 array, 4 managed, 5 device static,
 * 6 managed static; nvprof writes CUPTI's CUpti_ActivityMemoryKind, one higher (0 unknown,
 * 1 pageable, 2 pinned, 3 device, 4 array, 5 managed, 6 device static, 7 managed static). */
static uint8_t copy_of(int k) { return k == 1 || k == 11 ? COPY_HTOD : k == 2 || k == 12 ? COPY_DTOH : k == 8 || k == 13 ? COPY_DTOD : k == 9 ? COPY_HTOH : k == 10 ? COPY_PTOP : COPY_UNKNOWN; }
static uint8_t nsys_mem(int k) { return k == 0 ? MEM_PAGEABLE : k == 1 ? MEM_PINNED : k == 2 || k == 5 ? MEM_DEVICE : k == 4 || k == 6 ? MEM_MANAGED : MEM_UNKNOWN; }
static uint8_t mem_of(const db *d, int k) { return d->cupti_mem ? (k >= 1 ? nsys_mem(k - 1) : MEM_UNKNOWN) : nsys_mem(k); }

static void memcpy_row(db *d, sqlite3_stmt *st) {
    pc_gpu_event *g = gpu_row(d, st, GPU_MEMCPY);
    g->bytes = sqlite3_column_int64(st, 5);
    g->copy_kind = copy_of(sqlite3_column_int(st, 6));
    g->src_mem = sqlite3_column_type(st, 7) == SQLITE_NULL ? MEM_UNKNOWN : mem_of(d, sqlite3_column_int(st, 7));
    g->dst_mem = sqlite3_column_type(st, 8) == SQLITE_NULL ? MEM_UNKNOWN : mem_of(d, sqlite3_column_int(st, 8));
    char name[96];
    snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", pc_copy_name[g->copy_kind], pc_mem_name[g->src_mem], pc_mem_name[g->dst_mem]);
    g->name = strtab_intern(&d->t->strs, name, strlen(name));
}

static void memset_row(db *d, sqlite3_stmt *st) {
    pc_gpu_event *g = gpu_row(d, st, GPU_MEMSET);
    g->bytes = sqlite3_column_int64(st, 5);
    g->src_mem = sqlite3_column_type(st, 6) == SQLITE_NULL ? MEM_DEVICE : mem_of(d, sqlite3_column_int(st, 6));
    char name[64];
    snprintf(name, sizeof name, "Memset (%s)", pc_mem_name[g->src_mem]);
    g->name = strtab_intern(&d->t->strs, name, strlen(name));
}

static void sync_row(db *d, sqlite3_stmt *st) {
    pc_gpu_event *g = gpu_row(d, st, GPU_SYNC);
    g->name = strtab_intern(&d->t->strs, "Synchronization", 15);
}

/* NVTX ranges name layers, as PyProf used them: they are operators (kernels
 * launched inside one are attributed to it), except step ranges, which are
 * annotations; --step-pattern can still pick either as steps. */
static int nvtx_kind(const char *name) {
    return name && (!strncmp(name, "ProfilerStep#", 13) || !strncmp(name, "perfcard.step#", 14)) ? CPU_USER_ANNOT : CPU_OP;
}

/* Nsight Systems may record one API call twice, nested, with one correlation
 * id: `cudaMalloc` around `cudaMalloc_v3020`, written as consecutive rows,
 * outer first. True when this row is such an inner copy of the row before
 * (then it is not a call of its own). Table order, no sort: a sort of a
 * table of millions of calls would hold it in memory. */
static int inner_copy(db *d, sqlite3_stmt *st) {
    if (d->kind != CPU_RUNTIME && d->kind != CPU_DRIVER) return 0;
    int64_t s = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1), pid = sqlite3_column_int64(st, 2),
            tid = sqlite3_column_int64(st, 3), corr = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
    const char *name = (const char *)sqlite3_column_text(st, 5);
    if (!name) name = "";
    size_t base = api_name_len(name);
    int inner = corr >= 0 && corr == d->last_corr && pid == d->last_pid && tid == d->last_tid && s >= d->last_s && e <= d->last_e &&
                strlen(d->last_name) == base && !strncmp(d->last_name, name, base);
    if (!inner) {
        d->last_corr = corr, d->last_pid = pid, d->last_tid = tid, d->last_s = s, d->last_e = e;
        snprintf(d->last_name, sizeof d->last_name, "%s", name);
    }
    return inner;
}

static void host_row(db *d, sqlite3_stmt *st) {
    if (sqlite3_column_type(st, 1) == SQLITE_NULL) return; /* marks and unfinished ranges */
    if (!times_ok(d, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1))) return;
    if (inner_copy(d, st)) return;
    pc_cpu_event *c = pc_trace_add_cpu(d->t);
    c->kind = (uint8_t)(d->kind == CPU_USER_ANNOT ? nvtx_kind((const char *)sqlite3_column_text(st, 5)) : d->kind);
    if (d->kind == CPU_USER_ANNOT) c->flags = PC_CPU_NVTX;
    c->ts = sqlite3_column_int64(st, 0);
    c->dur = sqlite3_column_int64(st, 1) - c->ts;
    if (c->dur < 0) c->dur = 0;
    c->pid = (int32_t)sqlite3_column_int64(st, 2);
    c->tid = (int32_t)sqlite3_column_int64(st, 3);
    if (sqlite3_column_type(st, 4) != SQLITE_NULL) c->corr = sqlite3_column_int64(st, 4);
    const char *n = (const char *)sqlite3_column_text(st, 5);
    if (n && (d->kind == CPU_RUNTIME || d->kind == CPU_DRIVER))
        c->name = strtab_intern(&d->t->strs, n, api_name_len(n)); /* the API the program called: cudaHostRegister, not _v4000 */
    else c->name = text(d, st, 5);
}

static void device_row(db *d, sqlite3_stmt *st) {
    pc_device *v = pc_trace_device(d->t, sqlite3_column_int(st, 0));
    v->name = text(d, st, 1);
    v->total_mem = sqlite3_column_int64(st, 2);
    v->num_sms = sqlite3_column_int(st, 3);
    v->cc_major = sqlite3_column_int(st, 4);
    v->cc_minor = sqlite3_column_int(st, 5);
    v->max_threads_per_sm = sqlite3_column_int(st, 6);
    v->regs_per_sm = sqlite3_column_int(st, 7);
    v->smem_per_sm = sqlite3_column_int(st, 8);
}

static int read_nsys(db *d) {
    char q[2048];
    sqlite3_stmt *st;
    int rc;
    const char *K = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (has_table(d, K)) {
        const char *name = has_col(d, K, "demangledName") ? "demangledName" : has_col(d, K, "shortName") ? "shortName" : "NULL";
        snprintf(q, sizeof q,
                 "SELECT k.start, k.end, k.deviceId, k.streamId, k.correlationId, s.value, k.gridX, k.gridY, k.gridZ, k.blockX, "
                 "k.blockY, k.blockZ, k.registersPerThread, COALESCE(k.staticSharedMemory, 0) + COALESCE(k.dynamicSharedMemory, 0) "
                 "FROM %s k LEFT JOIN StringIds s ON s.id = k.%s",
                 K, name);
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, kernel_row))) return rc;
    }
    const char *M = "CUPTI_ACTIVITY_KIND_MEMCPY";
    if (has_table(d, M)) {
        snprintf(q, sizeof q, "SELECT start, end, deviceId, streamId, correlationId, bytes, copyKind, %s, %s FROM %s",
                 col(d, M, "srcKind", "NULL"), col(d, M, "dstKind", "NULL"), M);
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, memcpy_row))) return rc;
    }
    const char *S = "CUPTI_ACTIVITY_KIND_MEMSET";
    if (has_table(d, S)) {
        snprintf(q, sizeof q, "SELECT start, end, deviceId, streamId, correlationId, bytes, %s FROM %s", col(d, S, "memKind", "NULL"), S);
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, memset_row))) return rc;
    }
    const char *Y = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    if (has_table(d, Y)) {
        snprintf(q, sizeof q, "SELECT start, end, deviceId, streamId, correlationId FROM %s", Y);
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, sync_row))) return rc;
    }
    /* globalTid packs the process id (bits 24..47) and thread id (bits 0..23) */
    static const char *const apis[][2] = {{"CUPTI_ACTIVITY_KIND_RUNTIME", "r"}, {"CUPTI_ACTIVITY_KIND_DRIVER", "d"}};
    for (int a = 0; a < 2; a++) {
        if (!has_table(d, apis[a][0])) continue;
        snprintf(q, sizeof q,
                 "SELECT r.start, r.end, (r.globalTid >> 24) & 16777215, r.globalTid & 16777215, r.correlationId, s.value "
                 "FROM %s r LEFT JOIN StringIds s ON s.id = r.nameId",
                 apis[a][0]);
        d->kind = a == 0 ? CPU_RUNTIME : CPU_DRIVER;
        d->last_corr = -2;
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, host_row))) return rc;
    }
    if (has_table(d, "NVTX_EVENTS")) {
        /* push/pop (59) and start/end (60) ranges; the text is inline or in StringIds */
        snprintf(q, sizeof q,
                 "SELECT n.start, n.end, (n.globalTid >> 24) & 16777215, n.globalTid & 16777215, NULL, COALESCE(n.text, s.value) "
                 "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN (59, 60)");
        d->kind = CPU_USER_ANNOT;
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, host_row))) return rc;
    }
    /* the OS runtime calls (OSRT_API) of the processes that made CUDA calls: the process runs
     * from its first one, before its first CUDA call (#32 class 3: start-up counts from there).
     * Only their span is kept, not the calls. */
    if (has_table(d, "OSRT_API") && has_table(d, "CUPTI_ACTIVITY_KIND_RUNTIME")) {
        if ((rc = prep(d, "SELECT min(o.start), max(o.end) FROM OSRT_API o WHERE o.end IS NOT NULL AND ((o.globalTid >> 24) & 16777215) IN "
                          "(SELECT DISTINCT (globalTid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_RUNTIME)", &st)))
            return rc;
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER && sqlite3_column_type(st, 1) == SQLITE_INTEGER) {
            int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
            if (a > -SQL_TIME_MAX && a < SQL_TIME_MAX && b > -SQL_TIME_MAX && b < SQL_TIME_MAX && b >= a)
                d->t->host_start = a, d->t->host_end = b, d->t->has_host_span = 1;
            else d->t->stats.bad_fields++;
        }
        sqlite3_finalize(st);
    }
    /* the session's start in UTC: event times are ns from it */
    const char *U = "TARGET_INFO_SESSION_START_TIME";
    if (has_table(d, U) && has_col(d, U, "utcEpochNs")) {
        if ((rc = prep(d, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME WHERE typeof(utcEpochNs) = 'integer' LIMIT 1", &st))) return rc;
        if (sqlite3_step(st) == SQLITE_ROW) {
            int64_t e = sqlite3_column_int64(st, 0);
            if (e >= PC_EPOCH_MIN_NS && e < PC_EPOCH_MAX_NS) d->t->epoch_ns = e, d->t->has_epoch = 1;
        }
        sqlite3_finalize(st);
    }
    const char *G = "TARGET_INFO_GPU";
    if (has_table(d, G)) {
        snprintf(q, sizeof q, "SELECT %s, name, %s, %s, %s, %s, %s * 32, %s, %s FROM %s", col(d, G, "cuDevice", "id"),
                 col(d, G, "totalMemory", "0"), col(d, G, "smCount", "0"), col(d, G, "computeMajor", "0"), col(d, G, "computeMinor", "0"),
                 col(d, G, "maxWarpsPerSm", "0"), col(d, G, "maxRegistersPerSm", "0"), col(d, G, "maxShmemPerSm", "0"), G);
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, device_row))) return rc;
    }
    return 0;
}

/* nvprof: names in StringTable; runtime calls carry a callback id only (cbid.h names it) */
static void nvprof_runtime_row(db *d, sqlite3_stmt *st) {
    pc_cpu_event *c = pc_trace_add_cpu(d->t);
    c->kind = CPU_RUNTIME;
    c->ts = sqlite3_column_int64(st, 0);
    c->dur = sqlite3_column_int64(st, 1) - c->ts;
    if (c->dur < 0) c->dur = 0;
    c->pid = (int32_t)sqlite3_column_int64(st, 2);
    c->tid = (int32_t)sqlite3_column_int64(st, 3);
    c->corr = sqlite3_column_int64(st, 4);
    int cbid = sqlite3_column_int(st, 5);
    const char *n = pc_cuda_runtime_api(cbid);
    char buf[32];
    if (!n) snprintf(buf, sizeof buf, "cudaRuntime(cbid %d)", cbid), n = buf;
    c->name = strtab_intern(&d->t->strs, n, strlen(n));
}

/* NVTX markers: a start (flags 2) and an end (flags 4) row share an id */
static void nvprof_marker_row(db *d, sqlite3_stmt *st) {
    pc_cpu_event *c = pc_trace_add_cpu(d->t);
    c->kind = (uint8_t)nvtx_kind((const char *)sqlite3_column_text(st, 3));
    c->flags = PC_CPU_NVTX;
    c->ts = sqlite3_column_int64(st, 0);
    c->dur = sqlite3_column_int64(st, 1) - c->ts;
    if (c->dur < 0) c->dur = 0;
    c->tid = (int32_t)sqlite3_column_int64(st, 2);
    c->name = text(d, st, 3);
}

static int read_nvprof(db *d) {
    char q[2048];
    sqlite3_stmt *st;
    int rc;
    d->cupti_mem = 1;
    const char *D = "CUPTI_ACTIVITY_KIND_DEVICE";
    if (has_table(d, D)) { /* CUpti_ActivityDevice's fields; the name is a StringTable id */
        snprintf(q, sizeof q,
                 "SELECT v.id, s.value, %s, %s, %s, %s, %s * %s, %s, %s FROM %s v LEFT JOIN StringTable s ON s._id_ = v.name",
                 col(d, D, "globalMemorySize", "0"), col(d, D, "numMultiprocessors", "0"), col(d, D, "computeCapabilityMajor", "0"),
                 col(d, D, "computeCapabilityMinor", "0"), col(d, D, "maxWarpsPerMultiprocessor", "0"),
                 col(d, D, "numThreadsPerWarp", "32"), col(d, D, "maxRegistersPerMultiprocessor", "0"),
                 col(d, D, "maxSharedMemoryPerMultiprocessor", "0"), D);
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, device_row))) return rc;
    }
    const char *K = has_table(d, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") ? "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL" : "CUPTI_ACTIVITY_KIND_KERNEL";
    if (has_table(d, K)) {
        snprintf(q, sizeof q,
                 "SELECT k.start, k.end, k.deviceId, k.streamId, k.correlationId, s.value, k.gridX, k.gridY, k.gridZ, k.blockX, "
                 "k.blockY, k.blockZ, k.registersPerThread, COALESCE(k.staticSharedMemory, 0) + COALESCE(k.dynamicSharedMemory, 0) "
                 "FROM %s k LEFT JOIN StringTable s ON s._id_ = k.name",
                 K);
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, kernel_row))) return rc;
    }
    if (has_table(d, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
        snprintf(q, sizeof q, "SELECT start, end, deviceId, streamId, correlationId, bytes, copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY");
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, memcpy_row))) return rc;
    }
    if (has_table(d, "CUPTI_ACTIVITY_KIND_MEMSET")) {
        snprintf(q, sizeof q, "SELECT start, end, deviceId, streamId, correlationId, bytes, %s FROM CUPTI_ACTIVITY_KIND_MEMSET",
                 col(d, "CUPTI_ACTIVITY_KIND_MEMSET", "memoryKind", "NULL"));
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, memset_row))) return rc;
    }
    if (has_table(d, "CUPTI_ACTIVITY_KIND_RUNTIME")) {
        snprintf(q, sizeof q, "SELECT start, end, processId, threadId, correlationId, cbid FROM CUPTI_ACTIVITY_KIND_RUNTIME");
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, nvprof_runtime_row))) return rc;
    }
    if (has_table(d, "CUPTI_ACTIVITY_KIND_MARKER")) {
        snprintf(q, sizeof q,
                 "SELECT a.timestamp, b.timestamp, a.objectId, s.value FROM CUPTI_ACTIVITY_KIND_MARKER a "
                 "JOIN CUPTI_ACTIVITY_KIND_MARKER b ON b.id = a.id AND b.flags = 4 "
                 "LEFT JOIN StringTable s ON s._id_ = a.name WHERE a.flags = 2");
        if ((rc = prep(d, q, &st)) || (rc = step_all(d, st, nvprof_marker_row))) return rc;
    }
    return 0;
}

/* The file header says how long the database is (page size at byte 16, page
 * count at byte 28, valid when the change counter at 24 equals the one at 92):
 * a shorter file is a cut copy, reported with where it ends. */
static int check_length(const char *path, pc_err *err) {
    unsigned char h[100];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return PC_ERRF(err, PC_EIO, "cannot open: %s", strerror(errno));
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 ? pread(fd, h, sizeof h, 0) : -1;
    close(fd);
    if (n < (ssize_t)sizeof h) return PC_ERRF_AT(err, PC_EINPUT, (uint64_t)(n > 0 ? n : 0), "the database is truncated inside its header");
    uint32_t psz = (uint32_t)h[16] << 8 | h[17];
    uint64_t page = psz == 1 ? 65536 : psz;
    uint32_t pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
    if (page < 512 || memcmp(h + 24, h + 92, 4) != 0 || pages == 0) return 0; /* no reliable size: SQLite checks */
    uint64_t want = page * pages;
    if ((uint64_t)st.st_size < want)
        return PC_ERRF(err, PC_EINPUT, "the database is truncated: the file ends at byte %llu, its header says %llu bytes",
                          (unsigned long long)st.st_size, (unsigned long long)want);
    return 0;
}

int pc_load_sqlite(const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err) {
    *out = NULL;
    int lrc = check_length(path, err);
    if (lrc) return lrc;
    db d = {.err = err, .path = path};
    /* read-only and immutable (no journal, no locks, nothing written beside the
     * file); only tables are read (has_table), never views; SELECTs fire no
     * triggers; a progress handler bounds the time */
    sbuf uri = {0};
    sbuf_puts(&uri, "file:");
    for (const char *p = path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#') sbuf_printf(&uri, "%%%02X", (unsigned char)*p);
        else sbuf_putc(&uri, *p);
    }
    sbuf_puts(&uri, "?immutable=1");
    int orc = sqlite3_open_v2(uri.data, &d.h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    sbuf_free(&uri);
    if (orc != SQLITE_OK) {
        int rc = PC_ERRF(err, PC_EIO, "cannot open as SQLite: %s", d.h ? sqlite3_errmsg(d.h) : "out of memory");
        sqlite3_close(d.h);
        return rc;
    }
    d.seconds = o && o->sqlite_seconds > 0 ? o->sqlite_seconds : 300;
    d.deadline = now_s() + d.seconds;
    sqlite3_progress_handler(d.h, 100000, past_deadline, &d);
    sqlite3_exec(d.h, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
    d.t = pc_trace_new();
    int rc;
    const char *fmt = "";
    if (has_table(&d, "StringIds") && (has_table(&d, "CUPTI_ACTIVITY_KIND_KERNEL") || has_table(&d, "CUPTI_ACTIVITY_KIND_RUNTIME") ||
                                       has_table(&d, "NVTX_EVENTS"))) {
        fmt = "nsys-sqlite";
        rc = read_nsys(&d);
    } else if (has_table(&d, "StringTable")) {
        fmt = "nvprof-sqlite";
        rc = read_nvprof(&d);
    } else if (is_rocpd(&d))
        rc = PC_ERRF(err, PC_EUNSUP,
                     "a rocpd database (rocprofv3's default output since ROCm 7.0) is not supported: record with "
                     "`rocprofv3 --kernel-trace --hip-trace --memory-copy-trace --marker-trace --rccl-trace --output-format json -- CMD` "
                     "and report the PID_results.json it writes (rocpd convert writes csv, pftrace or otf2, which perfcard does not read)");
    else rc = PC_ERRF(err, PC_EINPUT, "an SQLite database, but neither an Nsight Systems nor an nvprof export (no StringIds or StringTable)");
    sqlite3_close(d.h);
    if (rc) {
        pc_trace_free(d.t);
        return rc;
    }
    d.t->source_format = strtab_intern(&d.t->strs, fmt, strlen(fmt));
    d.t->stats.events = (int64_t)(d.t->ncpu + d.t->ngpu);
    struct stat fst;
    if (stat(path, &fst) == 0) d.t->stats.file_bytes = d.t->stats.bytes = (uint64_t)fst.st_size; /* the database is read whole */
    pc_trace_finish(d.t);
    *out = d.t;
    return 0;
}
