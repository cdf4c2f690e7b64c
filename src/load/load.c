#include "load.h"
#include "readers.h"
#include "rocprof.h"
#include "source.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>


/* the length of path's ".nsys-rep" or ".qdrep" (any case): Nsight Systems' own
 * binary report, which `nsys export` turns into SQLite; else 0 */
static size_t nsys_report_ext(const char *path) {
    static const char *const exts[] = {".nsys-rep", ".qdrep"};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        size_t k = strlen(exts[i]);
        if (n > k && strcasecmp(path + n - k, exts[i]) == 0) return k;
    }
    return 0;
}

/* the head could start a JSON document or a gzip stream (a trace misnamed: read it) */
static int json_like(const unsigned char *h, ssize_t n) {
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b) return 1;
    for (ssize_t i = 0; i < n; i++)
        if (h[i] != ' ' && h[i] != '\t' && h[i] != '\n' && h[i] != '\r') return h[i] == '{' || h[i] == '[';
    return 0;
}

/* The first up to n bytes of the input's data (decompressed when it is gzip):
 * their count, or -1 (errno set). */
static ssize_t data_head(const char *path, const unsigned char *raw, ssize_t nraw, unsigned char *buf, size_t n) {
    if (nraw < 2 || raw[0] != 0x1f || raw[1] != 0x8b) return source_peek(path, buf, n);
    pc_source *src;
    pc_err e;
    if (source_open(&src, path, &e)) return 0; /* the reader says why */
    size_t got = 0;
    ssize_t k;
    while (got < n && (k = source_read(src, (char *)buf + got, n - got, &e)) > 0) got += (size_t)k;
    source_close(src);
    return (ssize_t)got;
}

/* s[0..n) holds every one of the words (a header line's column names) */
static int has_all(const unsigned char *s, size_t n, const char *const *words) {
    for (; *words; words++) {
        size_t k = strlen(*words), i = 0;
        while (i + k <= n && memcmp(s + i, *words, k)) i++;
        if (i + k > n) return 0;
    }
    return 1;
}

/* the length of the first line of h (up to n) */
static size_t first_line(const unsigned char *h, size_t n) {
    size_t i = 0;
    while (i < n && h[i] != '\n') i++;
    return i;
}

/* A recognised format perfcard does not read, from the first bytes of its
 * data (h, n) and its name: the message to give (exit 2), saying how to get a
 * supported input; NULL when the input is none of them. */
static const char *unsupported(const char *path, const unsigned char *h, size_t n) {
    static const char *const v1[] = {"KernelName", "BeginNs", "EndNs", NULL};
    static const char *const v1stats[] = {"\"Name\"", "\"Calls\"", "\"TotalDurationNs\"", NULL};
    static const char *const v3[] = {"Start_Timestamp", "End_Timestamp", "Correlation_Id", NULL};
    static const char *const et[] = {"\"schema\"", "-chakra.", NULL};
    static const char *const et2[] = {"\"schema\"", "\"nodes\"", "\"start_ts\"", NULL};
    size_t line = first_line(h, n), len = strlen(path);
    if (n >= 4 && !memcmp(h, "NVR", 4))
        return "an Nsight Compute report (.ncu-rep) is not supported: it holds replayed kernels' metrics, not a timeline of the run. "
               "Record the run with Nsight Systems and export it: `nsys profile -o run CMD`, then "
               "`nsys export --type sqlite -o run.sqlite run.nsys-rep`, and report run.sqlite";
    if (has_all(h, n, et) || has_all(h, n, et2))
        return "a PyTorch execution trace (ExecutionTraceObserver, schema \"...-chakra...\") is not supported: it records operators "
               "and their inputs, not their times. Record a profiler trace instead: torch.profiler.profile(...) with "
               "on_trace_ready=torch.profiler.tensorboard_trace_handler(DIR), or prof.export_chrome_trace(\"trace.json\")";
    if (has_all(h, line, v3))
        return "a rocprofv3 CSV (kernel_trace.csv, hip_api_trace.csv, ...) is not supported: record with "
               "`rocprofv3 --kernel-trace --hip-trace --memory-copy-trace --marker-trace --rccl-trace --output-format json -- CMD` "
               "and report the PID_results.json it writes";
    if (has_all(h, line, v1) || has_all(h, line, v1stats))
        return "a rocprof CSV (results.csv or a *.stats.csv of rocprof v1/v2, or rocprofv3's kernel_stats.csv) is not supported: "
               "record with rocprofv3 instead, `rocprofv3 --kernel-trace --hip-trace --memory-copy-trace --marker-trace "
               "--output-format json -- CMD`, and report the PID_results.json it writes";
    int pf_ext = (len > 8 && !strcasecmp(path + len - 8, ".pftrace")) || (len > 15 && !strcasecmp(path + len - 15, ".perfetto-trace"));
    int binary = 0;
    for (size_t i = 0; i < n && i < 64; i++) binary |= h[i] < 0x09 || (h[i] > 0x0d && h[i] < 0x20);
    if (n >= 2 && h[0] == 0x0a && (pf_ext || binary))
        return "a Perfetto trace (protobuf, .pftrace) is not supported: rocprofv3 writes one perfcard reads with "
               "`--output-format json` (PID_results.json); a PyTorch run, with torch.profiler's export_chrome_trace";
    return NULL;
}

int pc_load(const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err) {
    *out = NULL;
    struct stat st;
    /* "DIR#N": rank N of a MindSpore directory */
    const char *hash = strrchr(path, '#');
    if (hash && hash[1] >= '0' && hash[1] <= '9' && stat(path, &st) < 0) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)(hash - path), path);
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
            int *ranks;
            char sub[4200];
            const char *d = dir;
            if (!mindspore_ranks(d, &ranks)) { snprintf(sub, sizeof sub, "%s/profiler", dir); d = sub; }
            free(ranks);
            return pc_load_mindspore(d, atoi(hash + 1), out, err);
        }
    }
    if (stat(path, &st) < 0) return PC_ERRF(err, PC_EIO, "cannot open: %s", strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        /* a MindSpore profiler directory (or its profiler/ subfolder) */
        int *ranks;
        char sub[4096];
        const char *dir = path;
        int nr = mindspore_ranks(dir, &ranks);
        if (!nr) {
            snprintf(sub, sizeof sub, "%s/profiler", path);
            dir = sub;
            nr = mindspore_ranks(dir, &ranks);
        }
        if (!nr) return PC_ERRF(err, PC_EINPUT, "a directory without MindSpore profiler files");
        int first = ranks[0];
        free(ranks);
        return pc_load_mindspore(dir, o && o->rank >= 0 && o->rank_set ? o->rank : first, out, err);
    }
    if (!S_ISREG(st.st_mode))
        return PC_ERRF(err, PC_EIO, "not a regular file (perfcard reads files, not FIFOs, devices or sockets)");
    unsigned char head[16] = {0};
    ssize_t n = source_peek(path, head, sizeof head);
    if (n < 0) return PC_ERRF(err, PC_EIO, "cannot read: %s", strerror(errno));
    if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
#if PC_HAVE_SQLITE
        return pc_load_sqlite(path, o, out, err);
#else
        return PC_ERRF(err, PC_EUNSUP, "is an SQLite database (Nsight Systems / nvprof export), but perfcard was built without SQLite");
#endif
    }
    size_t ext = nsys_report_ext(path);
    if (ext && !json_like(head, n))
        return PC_ERRF(err, PC_EUNSUP,
                       "an Nsight Systems report (%s), which perfcard does not read: export it with "
                       "`nsys export --type sqlite -o %.*s.sqlite %s` and report the .sqlite file",
                       path + strlen(path) - ext, (int)(strlen(path) - ext), path, path);
    /* by the data's first bytes (decompressed): rocprofv3's JSON, formats perfcard names but
     * does not read, else the Chrome/Kineto JSON reader */
    unsigned char dh[4096];
    ssize_t dn = data_head(path, head, n, dh, sizeof dh);
    if (dn < 0) return PC_ERRF(err, PC_EIO, "cannot read: %s", strerror(errno));
    int rocprof = rocprof_sniff(dh, (size_t)dn);
    const char *why = rocprof ? NULL : unsupported(path, dh, (size_t)dn);
    if (why) return PC_ERRF(err, PC_EUNSUP, "%s", why);
    pc_source *src;
    int rc = source_open(&src, path, err);
    if (rc) return rc;
    rc = rocprof ? pc_load_rocprof_source(src, path, o, out, err) : pc_load_kineto_source(src, path, o, out, err);
    source_close(src);
    return rc;
}
