/* mindspore.c - a MindSpore profiler output directory (as MindInsight reads
 * it) into the model, for one rank:
 *   step_trace_raw_{rank}_detail_time.csv  steps and their phases
 *       (iteration_interval, fp_and_bp, tail) and the parallel (all-reduce)
 *       streams; values are 10 ns system-counter ticks, as MindInsight's
 *       to_millisecond (divide by 100,000) reads them;
 *   gpu_timeline_display_{rank}.json       operators ("Ops" row) and kernels
 *       (stream rows, args.op_full_name), in µs;
 *   minddata_cpu_utilization_{rank}.json   CPU samples every sampling_interval
 *       ms, placed from the first step's start;
 *   device_queue_profiling_{rank}.txt / dataset_iterator_profiling_{rank}.txt
 *       as MindInsight's MinddataAnalyser reads them: "1 <capacity> <step>
 *       <size> ..." a queue-size record, "0 <sub> <step> <cost> ..." a time
 *       record (get, push or total: not used);
 *   minddata_pipeline_raw_{rank}.csv       pipeline operators and their
 *       output queues.
 * The step trace and the timeline come from different clocks (when their spans
 * do not meet): steps are not aligned with kernels, t_min..t_max is the step
 * trace's span, clock2_start..clock2_end the timeline's, and the summary says
 * so. Without a timeline the step trace's communication spans are the only
 * device events: kernels_unknown. */
#include "load.h"
#include "readers.h"
#include "../util/fsutil.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <errno.h>
#include <sys/stat.h>

static const char *const prefixes[] = {"step_trace_raw_", "gpu_timeline_display_", "minddata_cpu_utilization_",
                                       "device_queue_profiling_", "dataset_iterator_profiling_", "minddata_pipeline_raw_",
                                       "gpu_op_detail_info_", "gpu_activity_data_", "gpu_op_type_info_", NULL};

/* rank number in a MindSpore file name, or -1 (beyond 999999: not a rank) */
static int file_rank(const char *name) {
    for (int i = 0; prefixes[i]; i++) {
        size_t l = strlen(prefixes[i]);
        if (strncmp(name, prefixes[i], l) || name[l] < '0' || name[l] > '9') continue;
        long r = 0;
        for (const char *p = name + l; *p >= '0' && *p <= '9'; p++)
            if ((r = r * 10 + (*p - '0')) > 999999) return -1;
        return (int)r;
    }
    return -1;
}

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

int mindspore_ranks(const char *dir, int **ranks) {
    *ranks = NULL;
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0, cap = 0;
    int *v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        int r = file_rank(e->d_name);
        if (r >= 0) *VEC_PUSH(v, n, cap) = r;
    }
    closedir(d);
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_int);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[k - 1]) v[k++] = v[i];
    *ranks = v;
    return (int)k;
}

/* A file the reader cannot use is counted, with the first one's name, for the
 * report's warnings: nothing is skipped silently. */
static void skip_file(pc_trace *t, const char *name) {
    if (!t->stats.files_skipped++) snprintf(t->stats.first_skipped, sizeof t->stats.first_skipped, "%.80s", name);
}

/* The file's text, or NULL when it is absent (nothing to say) or cannot be read
 * (counted); its name (fmt with the rank) in name[256], for messages. */
static char *read_file(pc_trace *t, const char *dir, const char *fmt, int rank, size_t *n, char *name) {
    snprintf(name, 256, fmt, rank);
    char *p = fs_join(dir, name), *data = NULL;
    pc_err e;
    struct stat st;
    if (lstat(p, &st) == 0 && fs_read_all(p, &data, n, (size_t)1 << 30, &e)) {
        data = NULL;
        skip_file(t, name);
    }
    if (data && *n >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) { /* a UTF-8 byte order mark: not part of the text */
        memmove(data, data + 3, *n - 3 + 1);
        *n -= 3;
    }
    free(p);
    return data;
}

/* CSV: splits a line into fields (quotes respected), in place */
static int csv_fields(char *line, char **f, int max) {
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        if (*p == '"') {
            char *s = ++p;
            while (*p && *p != '"') p++;
            if (*p) *p++ = 0;
            f[n++] = s;
            if (*p == ',') p++;
        } else {
            f[n++] = p;
            while (*p && *p != ',') p++;
            if (*p) *p++ = 0;
        }
    }
    return n;
}

static int col_index(char **h, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(h[i], name)) return i;
    return -1;
}

/* A CSV file with a header line, read row by row (data is split in place):
 * the header's fields in h[nh], each row's in f[] (room for every field of
 * the longest line: MindSpore's cluster step traces have over 1,000 columns). */
typedef struct csv_table { char *save; char **h, **f; int nh, cap; } csv_table;

static int csv_open(csv_table *c, char *data) {
    memset(c, 0, sizeof *c);
    char *line = strtok_r(data, "\r\n", &c->save);
    if (!line) return 0;
    /* no line has more fields than the file has commas, plus one */
    size_t commas = 1;
    for (const char *p = line; *p; p++) commas += *p == ',';
    for (const char *p = c->save; p && *p; p++) commas += *p == ',';
    c->cap = commas < (size_t)INT32_MAX / 2 ? (int)commas : INT32_MAX / 2;
    c->h = xcalloc((size_t)c->cap, sizeof *c->h);
    c->f = xcalloc((size_t)c->cap, sizeof *c->f);
    c->nh = csv_fields(line, c->h, c->cap);
    return 1;
}
static void csv_close(csv_table *c) {
    free(c->h);
    free(c->f);
}
static int csv_col(csv_table *c, const char *name) { return col_index(c->h, c->nh, name); }
static char *csv_next(csv_table *c) { return strtok_r(NULL, "\r\n", &c->save); }

/* ---- numbers from the files: checked once, here ---- */
/* Field col of a row of n fields as a decimal integer times scale; 0 when the
 * column is missing, the text is not an integer, or the result leaves +-2^62. */
static int int_field(char **f, int n, int col, int64_t scale, int64_t *out) {
    if (col < 0 || col >= n) return 0;
    char *end;
    errno = 0;
    long long v = strtoll(f[col], &end, 10);
    while (*end == ' ') end++;
    if (end == f[col] || *end || errno) return 0;
    if (v > PC_TIME_LIMIT / scale || v < -PC_TIME_LIMIT / scale) return 0;
    *out = (int64_t)v * scale;
    return 1;
}
/* a field as a finite number >= 0 (below 2^62), else 0 */
static double nonneg_field(char **f, int n, int col) {
    if (col < 0 || col >= n) return 0;
    double v = atof(f[col]);
    return isfinite(v) && v >= 0 && v < PC_TIME_LIMIT_D ? v : 0;
}

/* v * scale as integer ns, rounded; 0 when not finite or beyond +-2^62 */
static int ns_of(double v, double scale, int64_t *out) {
    double x = v * scale;
    if (!isfinite(x) || x >= PC_TIME_LIMIT_D || x <= -PC_TIME_LIMIT_D) return 0;
    *out = (int64_t)(x + (x >= 0 ? 0.5 : -0.5));
    return 1;
}

/* A communication column's operator: "stream_48_0_Receive-op663" names its
 * operator ("Receive-op663 (stream 48)"); "stream_10_parallel_0" does not,
 * and is an all-reduce (MindInsight draws these as its reduce lines). */
static void comm_name(char *out, size_t cap, const char *col, size_t len) {
    const char *p = col + 7, *end = col + len; /* after "stream_" */
    const char *stream = p;
    while (p < end && *p >= '0' && *p <= '9') p++;
    int slen = (int)(p - stream);
    if (p < end && *p == '_') p++;
    while (p < end && *p >= '0' && *p <= '9') p++;
    if (p < end && *p == '_' && strncmp(p + 1, "parallel_", 9) && p + 1 < end)
        snprintf(out, cap, "%.*s (stream %.*s)", (int)(end - p - 1), p + 1, slen, stream);
    else snprintf(out, cap, "AllReduce (%.*s)", (int)len, col);
}

static void step_trace(pc_trace *t, char *data) {
    csv_table tb;
    if (!csv_open(&tb, data)) return;
    char **hdr = tb.h, *line;
    int nh = tb.nh;
    int c_step = csv_col(&tb, "step_num"), c_start = csv_col(&tb, "start_point"), c_total = csv_col(&tb, "total");
    int c_ii = csv_col(&tb, "iteration_interval"), c_fb = csv_col(&tb, "fp_and_bp"), c_tail = csv_col(&tb, "tail");
    while ((line = csv_next(&tb))) {
        char **f = tb.f;
        int n = csv_fields(line, f, tb.cap);
        if (c_step < 0 || c_start < 0 || c_total < 0) continue;
        /* MindSpore's last row averages the steps: step number "-" */
        if (c_step < n && !strcmp(f[c_step], "-")) continue;
        int64_t no, start, total;
        if (!int_field(f, n, c_step, 1, &no) || !int_field(f, n, c_start, 10, &start) || !int_field(f, n, c_total, 10, &total)) {
            t->stats.bad_fields++;
            continue;
        }
        if (total <= 0 || !pc_trace_take_dur(t, total)) continue;
        pc_cpu_event *c = pc_trace_add_cpu(t);
        c->kind = CPU_USER_ANNOT;
        char nm[64];
        snprintf(nm, sizeof nm, "ProfilerStep#%lld", (long long)no);
        c->name = strtab_intern(&t->strs, nm, strlen(nm));
        c->ts = start;
        c->dur = total;
        c->pid = 0, c->tid = 0;
        int64_t ii, fb, tail;
        if (int_field(f, n, c_ii, 10, &ii) && int_field(f, n, c_fb, 10, &fb) && int_field(f, n, c_tail, 10, &tail)) {
            pc_phase *p = VEC_PUSH(t->phase, t->nphase, t->cap_phase);
            p->number = no;
            p->interval = ii;
            p->fp_bp = fb;
            p->tail = tail;
        }
        /* parallel streams: stream_S_parallel_P_start_point, _end_point, and the duration */
        for (int i = 0; i < nh && i < n; i++) {
            size_t l = strlen(hdr[i]);
            if (strncmp(hdr[i], "stream_", 7) || l < 12 || strcmp(hdr[i] + l - 12, "_start_point")) continue;
            int64_t s, e;
            if (!int_field(f, n, i, 10, &s) || !int_field(f, n, i + 1, 10, &e) || e <= s || !pc_trace_take_dur(t, e - s)) continue;
            pc_gpu_event *g = pc_trace_add_gpu(t);
            g->kind = GPU_KERNEL;
            char gn[160];
            comm_name(gn, sizeof gn, hdr[i], l - 12);
            g->name = strtab_intern(&t->strs, gn, strlen(gn));
            g->ts = s, g->dur = e - s;
            g->device = 0;
            g->stream = atoi(hdr[i] + 7);
        }
    }
    csv_close(&tb);
}

static uint32_t hash_name(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h & 0x7fffffff;
}

/* What a timeline lane holds. MindSpore 2.x (BaseTimelineGenerator) writes
 * lanes by tid with thread names in "M" thread_name events: 100000 "Steps"
 * (events named 1..N, each from the trace's start to its step's end),
 * 100001 "Scope Name" (scope spans), 100002 "GpuOps" and pid 11000's 100003
 * "Host CPU Op" (operators), pid 12000 "Op Overlap Analyse" (merged
 * computation, free time: derived from the kernels), and the kernels on
 * "Stream #N" (tid N); 1.x writes "Ops" and the stream as text ("17"). Only
 * the streams are GPU work. */
enum { LANE_KERNEL, LANE_OP, LANE_STEPS, LANE_SKIP };
enum { MS_STEPS_TID = 100000, MS_SCOPE_TID = 100001, MS_OVERLAP_PID = 12000 };

static int lane_of_name(const char *n) {
    if (!strcmp(n, "Steps")) return LANE_STEPS;
    if (!strcmp(n, "Scope Name")) return LANE_SKIP;
    if (!strncmp(n, "Stream", 6)) return LANE_KERNEL;
    return LANE_OP;
}

/* a non-negative integer id below 2^31 (a number, or the digits of "17" or "Stream #17"), else -1 */
static long lane_id(const cJSON *v) {
    if (cJSON_IsNumber(v)) return v->valuedouble >= 0 && v->valuedouble < 2147483648.0 && v->valuedouble == floor(v->valuedouble) ? (long)v->valuedouble : -1;
    if (!cJSON_IsString(v)) return -1;
    const char *p = v->valuestring;
    if (!strncmp(p, "Stream #", 8)) p += 8;
    if (*p < '0' || *p > '9' || strlen(p) > 9) return -1;
    char *end;
    long x = strtol(p, &end, 10);
    return *end ? -1 : x;
}

static uint64_t lane_key(long pid, long tid) { return (uint64_t)pid << 32 | (uint64_t)tid; }

static int lane_kind(const hmap *names, const cJSON *e, const cJSON *pidv, const cJSON *tidv) {
    long pid = lane_id(pidv), tid = lane_id(tidv);
    const uint32_t *named = pid >= 0 && tid >= 0 ? hmap_find(names, lane_key(pid, tid)) : NULL;
    int by_name = named ? (int)*named - 1 : cJSON_IsString(tidv) ? lane_of_name(tidv->valuestring) : -1;
    if (by_name == LANE_STEPS || by_name == LANE_SKIP) return by_name;
    if (!named && tid == MS_STEPS_TID && cJSON_IsNumber(tidv)) return LANE_STEPS;
    if (!named && tid == MS_SCOPE_TID && cJSON_IsNumber(tidv)) return LANE_SKIP;
    if (pid == MS_OVERLAP_PID) return LANE_SKIP;
    /* a kernel's record carries its launch shape, whatever its lane is called */
    const cJSON *args = cJSON_GetObjectItem(e, "args");
    if (cJSON_GetObjectItem(args, "grid_dim") || cJSON_GetObjectItem(args, "block_dim")) return LANE_KERNEL;
    if (named) return by_name;
    return tid >= 0 && tid < MS_STEPS_TID ? LANE_KERNEL : LANE_OP;
}

typedef struct ms_step { int64_t no, ts, end; } ms_step;
static int cmp_ms_step(const void *a, const void *b) {
    const ms_step *x = a, *y = b;
    return x->end != y->end ? (x->end > y->end) - (x->end < y->end) : (x->no > y->no) - (x->no < y->no);
}

/* The timeline's kernels and operators; its Steps lane becomes the steps
 * (ProfilerStep#N) when want_steps (the step trace gave none): sorted by
 * end, step k runs from the end of step k-1 (or its own start, if later) to
 * its end. Returns the steps added. */
static size_t timeline(pc_trace *t, const char *data, const char *file, int want_steps) {
    cJSON *a = cJSON_Parse(data);
    if (!cJSON_IsArray(a)) { cJSON_Delete(a); skip_file(t, file); return 0; }
    const cJSON *e;
    hmap names = {0};
    cJSON_ArrayForEach(e, a) {
        const cJSON *ph = cJSON_GetObjectItem(e, "ph"), *nm = cJSON_GetObjectItem(e, "name");
        if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "M") || !cJSON_IsString(nm) || strcmp(nm->valuestring, "thread_name")) continue;
        long pid = lane_id(cJSON_GetObjectItem(e, "pid")), tid = lane_id(cJSON_GetObjectItem(e, "tid"));
        const cJSON *ln = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "name");
        if (pid < 0 || tid < 0 || !cJSON_IsString(ln)) continue;
        *hmap_get(&names, lane_key(pid, tid), NULL) = (uint32_t)lane_of_name(ln->valuestring) + 1;
    }
    ms_step *steps = NULL;
    size_t nsteps = 0, cap_steps = 0;
    cJSON_ArrayForEach(e, a) {
        const cJSON *name = cJSON_GetObjectItem(e, "name"), *tid = cJSON_GetObjectItem(e, "tid");
        const cJSON *ts = cJSON_GetObjectItem(e, "ts"), *dur = cJSON_GetObjectItem(e, "dur");
        if (!cJSON_IsString(name) || !cJSON_IsNumber(ts) || !cJSON_IsNumber(dur)) continue;
        int64_t tsn, dn;
        if (!ns_of(ts->valuedouble, 1000.0, &tsn) || !ns_of(dur->valuedouble, 1000.0, &dn) || dn < 0) {
            t->stats.bad_fields++; /* as the Kineto reader: no negative spans, nothing beyond +-2^62 ns */
            continue;
        }
        int kind = lane_kind(&names, e, cJSON_GetObjectItem(e, "pid"), tid);
        if (kind == LANE_SKIP) continue;
        if (kind == LANE_STEPS) {
            if (!want_steps) continue;
            ms_step *st = VEC_PUSH(steps, nsteps, cap_steps);
            char *end;
            long long no = strtoll(name->valuestring, &end, 10);
            st->no = end != name->valuestring && !*end && no >= 0 && no < ((int64_t)1 << 40) ? no : (int64_t)nsteps;
            st->ts = tsn, st->end = tsn + dn;
            continue;
        }
        if (!pc_trace_take_dur(t, dn)) continue;
        char num[32];
        const char *tids = cJSON_IsString(tid) ? tid->valuestring : "";
        long sid = lane_id(tid);
        if (cJSON_IsNumber(tid) && sid >= 0) {
            snprintf(num, sizeof num, "%ld", sid);
            tids = num;
        }
        if (kind == LANE_KERNEL) {
            pc_gpu_event *g = pc_trace_add_gpu(t);
            g->kind = GPU_KERNEL;
            g->name = strtab_intern(&t->strs, name->valuestring, strlen(name->valuestring));
            g->ts = tsn, g->dur = dn;
            g->device = 0;
            g->stream = sid >= 0 ? (int32_t)sid : 0;
            const cJSON *args = cJSON_GetObjectItem(e, "args");
            const cJSON *op = args ? cJSON_GetObjectItem(args, "op_full_name") : NULL;
            if (cJSON_IsString(op)) g->ext_id = hash_name(op->valuestring);
        } else {
            pc_cpu_event *c = pc_trace_add_cpu(t);
            c->kind = CPU_OP;
            c->name = strtab_intern(&t->strs, name->valuestring, strlen(name->valuestring));
            c->ts = tsn, c->dur = dn;
            c->pid = 0;
            c->tid = -(int32_t)strtab_intern(&t->strs, tids, strlen(tids));
            c->ext_id = hash_name(name->valuestring);
        }
    }
    if (nsteps) qsort(steps, nsteps, sizeof *steps, cmp_ms_step);
    size_t added = 0;
    for (size_t i = 0; i < nsteps; i++) {
        int64_t start = i && steps[i - 1].end > steps[i].ts ? steps[i - 1].end : steps[i].ts;
        if (steps[i].end <= start || !pc_trace_take_dur(t, steps[i].end - start)) continue;
        pc_cpu_event *c = pc_trace_add_cpu(t);
        c->kind = CPU_USER_ANNOT;
        char nm[64];
        snprintf(nm, sizeof nm, "ProfilerStep#%lld", (long long)steps[i].no);
        c->name = strtab_intern(&t->strs, nm, strlen(nm));
        c->ts = start, c->dur = steps[i].end - start;
        c->pid = 0, c->tid = 0;
        added++;
    }
    free(steps);
    hmap_free(&names);
    cJSON_Delete(a);
    return added;
}

static void cpu_util(pc_trace *t, const char *data, int64_t t0, const char *file) {
    cJSON *j = cJSON_Parse(data);
    if (!cJSON_IsObject(j)) { cJSON_Delete(j); skip_file(t, file); return; }
    double interval = 100;
    const cJSON *si = cJSON_GetObjectItem(j, "sampling_interval");
    if (cJSON_IsNumber(si) && si->valuedouble > 0) interval = si->valuedouble;
    const cJSON *dev = cJSON_GetObjectItem(j, "device_info"), *proc = cJSON_GetObjectItem(j, "process_info");
    static const char *const dk[] = {"user_utilization", "sys_utilization", "io_utilization", "idle_utilization"};
    static const char *const sk[] = {"user", "system", "iowait", "idle"};
    uint32_t name = strtab_intern(&t->strs, "cpu", 3);
    if (!isfinite(interval) || interval > 1e9) interval = 100;
    /* walk the arrays side by side (indexing a cJSON array walks it: quadratic) */
    const cJSON *it[4];
    for (int k = 0; k < 4; k++) {
        const cJSON *a = cJSON_GetObjectItem(dev, dk[k]);
        it[k] = cJSON_IsArray(a) ? a->child : NULL;
    }
    const cJSON *pa = cJSON_GetObjectItem(proc, "user_utilization"), *pb = cJSON_GetObjectItem(proc, "sys_utilization");
    const cJSON *pu = cJSON_IsArray(pa) ? pa->child : NULL, *ps = cJSON_IsArray(pb) ? pb->child : NULL;
    for (int64_t i = 0; it[0]; i++) {
        double off = (double)i * interval * 1e6;
        if (off > PC_TIME_LIMIT_D) break;
        int64_t ts = t0 + (int64_t)off;
        for (int k = 0; k < 4; k++) {
            const cJSON *v = it[k];
            if (v) it[k] = v->next;
            if (!cJSON_IsNumber(v)) continue;
            pc_counter *c = pc_trace_add_counter(t);
            c->ts = ts, c->value = v->valuedouble, c->name = name;
            c->series = strtab_intern(&t->strs, sk[k], strlen(sk[k]));
        }
        const cJSON *u = pu, *y = ps;
        if (pu) pu = pu->next;
        if (ps) ps = ps->next;
        if (cJSON_IsNumber(u) || cJSON_IsNumber(y)) {
            pc_counter *c = pc_trace_add_counter(t);
            c->ts = ts, c->name = name;
            c->value = (cJSON_IsNumber(u) ? u->valuedouble : 0) + (cJSON_IsNumber(y) ? y->valuedouble : 0);
            c->series = strtab_intern(&t->strs, "process", 7);
        }
    }
    cJSON_Delete(j);
}

typedef struct step_mid { int64_t no, ts; } step_mid;
static int cmp_step_mid(const void *a, const void *b) {
    const step_mid *x = a, *y = b;
    return x->no < y->no ? -1 : x->no > y->no ? 1 : (x->ts > y->ts) - (x->ts < y->ts);
}

/* "1 <capacity> <step> <size> ...": a queue-size record, placed in the middle
 * of its step (the capacity recorded once, from the first); "0 ..." lines
 * are times, not sizes. Steps are indexed once (sorted by number), so a file
 * of n records costs n log(steps). */
static void queue_file(pc_trace *t, char *data, const char *qname) {
    uint32_t name = strtab_intern(&t->strs, qname, strlen(qname)), size = strtab_intern(&t->strs, "size", 4);
    uint32_t capid = strtab_intern(&t->strs, "capacity", 8);
    step_mid *steps = NULL;
    size_t ns = 0, cap = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const char *nm = strtab_get(&t->strs, t->cpu[i].name);
        if (t->cpu[i].kind != CPU_USER_ANNOT || strncmp(nm, "ProfilerStep#", 13)) continue;
        step_mid *m = VEC_PUSH(steps, ns, cap);
        m->no = atoll(nm + 13);
        m->ts = t->cpu[i].ts + t->cpu[i].dur / 2;
    }
    if (ns) qsort(steps, ns, sizeof *steps, cmp_step_mid);
    char *save, *line;
    int have_cap = 0;
    for (line = strtok_r(data, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        long f[5] = {0};
        int n = sscanf(line, "%ld %ld %ld %ld %ld", &f[0], &f[1], &f[2], &f[3], &f[4]);
        if (n < 4 || f[0] != 1 || f[1] <= 0 || f[3] < 0) continue;
        if (!have_cap) {
            int64_t t0 = t->ncpu ? t->cpu[0].ts : 0;
            pc_counter *c = pc_trace_add_counter(t);
            c->ts = t0, c->value = (double)f[1], c->name = name, c->series = capid;
            have_cap = 1;
        }
        /* the first step with this number, as the scan in file order found */
        size_t lo = 0, hi = ns;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (steps[mid].no < f[2]) lo = mid + 1;
            else hi = mid;
        }
        if (lo >= ns || steps[lo].no != f[2] || steps[lo].ts < 0) continue;
        pc_counter *c = pc_trace_add_counter(t);
        c->ts = steps[lo].ts, c->value = (double)f[3], c->name = name, c->series = size;
    }
    free(steps);
}

static void pipeline(pc_trace *t, char *data) {
    csv_table tb;
    if (!csv_open(&tb, data)) return;
    char *line;
    int ci = csv_col(&tb, "op_id"), ct = csv_col(&tb, "op_type"), cw = csv_col(&tb, "num_workers");
    int ca = csv_col(&tb, "output_queue_average_size"), cl = csv_col(&tb, "output_queue_length");
    int cu = csv_col(&tb, "output_queue_usage_rate"), cp = csv_col(&tb, "parent_id"), cc = csv_col(&tb, "children_id");
    while ((line = csv_next(&tb))) {
        char **f = tb.f;
        int n = csv_fields(line, f, tb.cap);
        if (ci < 0 || ct < 0) continue;
        if (n <= ct || n <= ci) { t->stats.bad_fields++; continue; }
        pc_pipe_op *o = VEC_PUSH(t->pipe, t->npipe, t->cap_pipe);
        memset(o, 0, sizeof *o);
        /* ids and counts are integers >= 0 (a parent of -1: none); sizes and rates finite and >= 0 */
        int64_t id = 0, workers = 0, parent = -1;
        o->id = int_field(f, n, ci, 1, &id) && id >= 0 && id < INT32_MAX ? (int)id : 0;
        o->type = strtab_intern(&t->strs, f[ct], strlen(f[ct]));
        o->workers = int_field(f, n, cw, 1, &workers) && workers >= 0 && workers < INT32_MAX ? (int)workers : 0;
        o->avg_size = nonneg_field(f, n, ca);
        o->capacity = nonneg_field(f, n, cl);
        o->usage_rate = nonneg_field(f, n, cu);
        o->parent = int_field(f, n, cp, 1, &parent) && parent >= -1 && parent < INT32_MAX ? (int)parent : -1;
        const char *ch = cc >= 0 && cc < n ? f[cc] : "";
        o->children = strtab_intern(&t->strs, ch, strlen(ch));
    }
    csv_close(&tb);
}

/* MindInsight's GPU tables (times in µs): gpu_op_detail_info (op_full_name,
 * op_occurrences, op_total_time(us)), gpu_activity_data (name, op_full_name,
 * occurrences, total_duration(us), max_duration(us), min_duration(us),
 * grid_dim, block_dim), gpu_op_type_info (op_type, type_occurrences,
 * total_time(us)). Columns are found by name; a missing one leaves n/a. */
static int64_t us_ns(const char *s) {
    int64_t v;
    return ns_of(atof(s), 1000.0, &v) ? v : 0;
}

static void agg_table(pc_trace *t, char *data, int what) {
    csv_table tb;
    if (!csv_open(&tb, data)) return;
    char *line;
    int cn, cc, ct, cmin = -1, cmax = -1, cop = -1, cg = -1, cb = -1;
    if (what == AGG_OP) {
        cn = csv_col(&tb, "op_full_name");
        if (cn < 0) cn = csv_col(&tb, "op_name");
        cc = csv_col(&tb, "op_occurrences"), ct = csv_col(&tb, "op_total_time(us)");
    } else if (what == AGG_KERNEL) {
        cn = csv_col(&tb, "name"), cc = csv_col(&tb, "occurrences"), ct = csv_col(&tb, "total_duration(us)");
        cmin = csv_col(&tb, "min_duration(us)"), cmax = csv_col(&tb, "max_duration(us)");
        cop = csv_col(&tb, "op_full_name"), cg = csv_col(&tb, "grid_dim"), cb = csv_col(&tb, "block_dim");
    } else {
        cn = csv_col(&tb, "op_type"), cc = csv_col(&tb, "type_occurrences"), ct = csv_col(&tb, "total_time(us)");
    }
    while (cn >= 0 && ct >= 0 && (line = csv_next(&tb))) {
        char **f = tb.f;
        int n = csv_fields(line, f, tb.cap);
        if (n <= cn || n <= ct) { t->stats.bad_fields++; continue; }
        pc_agg *a = VEC_PUSH(t->agg, t->nagg, t->cap_agg);
        memset(a, 0, sizeof *a);
        a->what = (uint8_t)what;
        a->name = strtab_intern(&t->strs, f[cn], strlen(f[cn]));
        int64_t calls = 0;
        a->calls = int_field(f, n, cc, 1, &calls) && calls > 0 ? (calls < ((int64_t)1 << 40) ? calls : (int64_t)1 << 40) : 0;
        a->total = us_ns(f[ct]);
        if (!pc_trace_take_dur(t, a->total)) { t->nagg--; continue; }
        a->min = cmin >= 0 && cmin < n ? us_ns(f[cmin]) : PC_NONE;
        a->max = cmax >= 0 && cmax < n ? us_ns(f[cmax]) : PC_NONE;
        if (cop >= 0 && cop < n) a->op = strtab_intern(&t->strs, f[cop], strlen(f[cop]));
        if (cg >= 0 && cg < n) a->grid = strtab_intern(&t->strs, f[cg], strlen(f[cg]));
        if (cb >= 0 && cb < n) a->block = strtab_intern(&t->strs, f[cb], strlen(f[cb]));
    }
    csv_close(&tb);
}

/* The span of the host events [c0, c1) and device events [g0, g1); 0 when there are none. */
static int added_span(const pc_trace *t, size_t c0, size_t g0, size_t c1, size_t g1, int64_t *a, int64_t *b) {
    *a = INT64_MAX, *b = INT64_MIN;
    for (size_t i = c0; i < c1; i++) {
        if (t->cpu[i].ts < *a) *a = t->cpu[i].ts;
        if (t->cpu[i].ts + t->cpu[i].dur > *b) *b = t->cpu[i].ts + t->cpu[i].dur;
    }
    for (size_t i = g0; i < g1; i++) {
        if (t->gpu[i].ts < *a) *a = t->gpu[i].ts;
        if (t->gpu[i].ts + t->gpu[i].dur > *b) *b = t->gpu[i].ts + t->gpu[i].dur;
    }
    return *a <= *b;
}

/* t_min and t_max over the first clock's events only: those outside the
 * second clock's span (the two spans do not meet) */
static void first_clock_take(const pc_trace *t, int64_t ts, int64_t end, int64_t *lo, int64_t *hi) {
    if (ts >= t->clock2_start && ts <= t->clock2_end) return;
    if (ts < *lo) *lo = ts;
    if (end > *hi) *hi = end;
}
static void first_clock_span(pc_trace *t) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t->ncpu; i++) first_clock_take(t, t->cpu[i].ts, t->cpu[i].ts + t->cpu[i].dur, &lo, &hi);
    for (size_t i = 0; i < t->ngpu; i++) first_clock_take(t, t->gpu[i].ts, t->gpu[i].ts + t->gpu[i].dur, &lo, &hi);
    for (size_t i = 0; i < t->nctr; i++) first_clock_take(t, t->ctr[i].ts, t->ctr[i].ts, &lo, &hi);
    if (lo <= hi) t->t_min = lo, t->t_max = hi;
}

int pc_load_mindspore(const char *dir, int rank, pc_trace **out, pc_err *err) {
    *out = NULL;
    pc_trace *t = pc_trace_new();
    size_t n;
    int any = 0;
    char *d, fn[256];
    if ((d = read_file(t, dir, "step_trace_raw_%d_detail_time.csv", rank, &n, fn))) { step_trace(t, d); free(d); any = 1; }
    size_t n_cpu1 = t->ncpu, n_gpu1 = t->ngpu;
    size_t tl_steps = 0;
    if ((d = read_file(t, dir, "gpu_timeline_display_%d.json", rank, &n, fn))) {
        tl_steps = timeline(t, d, fn, n_cpu1 == 0);
        free(d);
        any = 1;
    }
    /* the two clocks: the step trace's events were added first, the timeline's after them */
    int64_t a1, b1, a2, b2;
    int has1 = added_span(t, 0, 0, n_cpu1, n_gpu1, &a1, &b1), has2 = added_span(t, n_cpu1, n_gpu1, t->ncpu, t->ngpu, &a2, &b2);
    int64_t t0 = 0;
    for (size_t i = 0; i < t->ncpu; i++)
        if (t->cpu[i].kind == CPU_USER_ANNOT && (!t0 || t->cpu[i].ts < t0)) t0 = t->cpu[i].ts;
    if ((d = read_file(t, dir, "minddata_cpu_utilization_%d.json", rank, &n, fn))) {
        cpu_util(t, d, t0, fn);
        free(d);
        any = 1;
    }
    if ((d = read_file(t, dir, "device_queue_profiling_%d.txt", rank, &n, fn))) { queue_file(t, d, "queue:device_queue"); free(d); any = 1; }
    if ((d = read_file(t, dir, "dataset_iterator_profiling_%d.txt", rank, &n, fn))) { queue_file(t, d, "queue:dataset_iterator"); free(d); any = 1; }
    if ((d = read_file(t, dir, "minddata_pipeline_raw_%d.csv", rank, &n, fn))) { pipeline(t, d); free(d); any = 1; }
    if ((d = read_file(t, dir, "gpu_op_detail_info_%d.csv", rank, &n, fn))) { agg_table(t, d, AGG_OP); free(d); any = 1; }
    if ((d = read_file(t, dir, "gpu_activity_data_%d.csv", rank, &n, fn))) { agg_table(t, d, AGG_KERNEL); free(d); any = 1; }
    if ((d = read_file(t, dir, "gpu_op_type_info_%d.csv", rank, &n, fn))) { agg_table(t, d, AGG_TYPE); free(d); any = 1; }
    if (!any && !t->stats.files_skipped) {
        pc_trace_free(t);
        return PC_ERRF(err, PC_EINPUT, "no MindSpore profiler files for rank %d", rank);
    }
    t->rank = rank;
    t->source_format = strtab_intern(&t->strs, "mindspore", 9);
    if (n_cpu1) t->step_source = "MindSpore's step trace (step_trace_raw_N_detail_time.csv)";
    else if (tl_steps) t->step_source = "MindSpore's timeline Steps lane (gpu_timeline_display_N.json)";
    t->kernels_unknown = has1 && !has2 && n_gpu1 > 0;
    t->stats.events = (int64_t)(t->ncpu + t->ngpu + t->nctr);
    pc_trace_finish(t);
    if (has1 && has2 && (b1 <= a2 || b2 <= a1)) {
        t->clock_note = "MindSpore's step trace (device counter) and timeline (host clock) use different clocks: per-step breakdowns of kernel time are not available";
        t->clock2_start = a2, t->clock2_end = b2;
        first_clock_span(t);
    }
    *out = t;
    return 0;
}
