#include "load.h"
#include "source.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int pc_load_kineto_source(pc_source *src, const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err);
int pc_load_sqlite(const char *path, pc_trace **out, pc_err *err);

int pc_load(const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err) {
    *out = NULL;
    struct stat st;
    if (stat(path, &st) < 0) return PC_ERRF(err, PC_EIO, "cannot open: %s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return PC_ERRF(err, PC_EUNSUP, "is a directory; MindSpore profiler directories are not supported yet");
    unsigned char head[16] = {0};
    ssize_t n = source_peek(path, head, sizeof head);
    if (n < 0) return PC_ERRF(err, PC_EIO, "cannot read: %s", strerror(errno));
    if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
#if PC_HAVE_SQLITE
        return pc_load_sqlite(path, out, err);
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
