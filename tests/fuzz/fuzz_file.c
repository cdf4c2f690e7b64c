/* libFuzzer target: pc_load on a file holding the bytes, as a user's input
 * file would be read (content sniffing, then gzip inflating, the SQLite
 * reader, or the Kineto reader in parts), then the analyzers. Built as
 * fuzz_gzip and fuzz_sqlite, which differ only in their seed corpora.
 * Any input must give 0 or a PC_E* code: never a crash, hang or leak.
 * A gzip input is also inflated by zlib and by ISA-L (when built in), side
 * by side: the same truncation, and one's bytes begin the other's (on a
 * damaged member they may stop at different bytes: src/load/source.c). */
#include "analyze/analyze.h"
#include "load/load.h"
#include "load/source.h"
#include "fuzz_common.h"
#include "summary/summary.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* fills buf from s; short only at the end (0) or on an error */
static size_t read_full(pc_source *s, char *buf, size_t n, int *end) {
    size_t got = 0;
    pc_err err;
    while (got < n) {
        ssize_t r = source_read(s, buf + got, n - got, &err);
        if (r <= 0) { *end = 1; break; }
        got += (size_t)r;
    }
    return got;
}

static void gzip_differential(const char *path) {
    pc_source *a = NULL, *b = NULL;
    pc_err err;
    if (source_open(&a, path, &err) || source_open(&b, path, &err) || source_set_inflater(a, "zlib") ||
        source_set_inflater(b, "isal")) {
        source_close(a);
        source_close(b);
        return; /* ISA-L not built in */
    }
    static char ba[1 << 16], bb[1 << 16];
    int enda = 0, endb = 0;
    while (!enda && !endb) {
        size_t na = read_full(a, ba, sizeof ba, &enda), nb = read_full(b, bb, sizeof bb, &endb);
        size_t n = na < nb ? na : nb;
        if (memcmp(ba, bb, n) || (na != nb && !(na < nb ? enda : endb))) {
            fprintf(stderr, "zlib and ISA-L deliver different bytes\n");
            abort();
        }
    }
    /* the one still going ran past the other's stop: only on damaged data, never a clean end for one alone */
    if (enda && endb && source_truncated(a) != source_truncated(b)) {
        fprintf(stderr, "zlib truncated %d, ISA-L truncated %d\n", source_truncated(a), source_truncated(b));
        abort();
    }
    if (enda != endb && !(enda ? source_truncated(a) : source_truncated(b))) {
        fprintf(stderr, "one inflater ended cleanly where the other goes on\n");
        abort();
    }
    source_close(a);
    source_close(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
    if (fd < 0) abort();
    if (size && write(fd, data, size) != (ssize_t)size) abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) gzip_differential(path);
    pc_trace *t = NULL;
    pc_err err;
    pc_load_opts o = {.threads = 2, .split_min = 4096};
    if (pc_load(path, &o, &t, &err) == 0) {
        fuzz_analyze_check(t);
    }
    close(fd);
    return 0;
}
