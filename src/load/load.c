#include "load.h"
#include "readers.h"
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
    pc_source *src;
    int rc = source_open(&src, path, err);
    if (rc) return rc;
    rc = pc_load_kineto_source(src, path, o, out, err);
    source_close(src);
    return rc;
}
