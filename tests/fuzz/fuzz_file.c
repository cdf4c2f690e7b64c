/* libFuzzer target: pc_load on a file holding the bytes, as a user's input
 * file would be read (content sniffing, then gzip inflating, the SQLite
 * reader, or the Kineto reader in parts), then the analyzers. Built as
 * fuzz_gzip and fuzz_sqlite, which differ only in their seed corpora.
 * Any input must give 0 or a PC_E* code: never a crash, hang or leak. */
#include "analyze/analyze.h"
#include "load/load.h"
#include "fuzz_common.h"
#include "summary/summary.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
    if (fd < 0) abort();
    if (size && write(fd, data, size) != (ssize_t)size) abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    pc_trace *t = NULL;
    pc_err err;
    pc_load_opts o = {.threads = 2, .split_min = 4096};
    if (pc_load(path, &o, &t, &err) == 0) {
        fuzz_analyze_check(t);
    }
    close(fd);
    return 0;
}
