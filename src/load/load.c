#include "load.h"
#include "readers.h"
#include "source.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


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
    pc_source *src;
    int rc = source_open(&src, path, err);
    if (rc) return rc;
    rc = pc_load_kineto_source(src, path, o, out, err);
    source_close(src);
    return rc;
}
