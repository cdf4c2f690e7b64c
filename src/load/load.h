/* load.h - read any supported input into a pc_trace.
 *
 * pc_load sniffs the content (gzip magic, SQLite header, a directory of
 * MindSpore profiler files, else JSON) and dispatches to a format reader.
 * On success it returns 0 and *out owns a finished trace (pc_trace_free).
 * A truncated input is not an error: the trace holds every complete event and
 * has truncated=1 with the byte offset where complete data ends. On failure
 * it returns a negative PC_E* code, *out is NULL, and err names the problem
 * and, for malformed input, the byte offset (of the decompressed stream for
 * gzip files).
 */
#ifndef PC_LOAD_H
#define PC_LOAD_H
#include "../model/trace.h"
#include "../util/err.h"

typedef struct pc_load_opts {
    /* called about every 0.25 s while a file is read (done, total in input
     * bytes), and once with done == total at the end; NULL: no progress.
     * The loader prints nothing itself: the caller (cli/) decides how. */
    void (*progress)(void *ctx, const char *path, uint64_t done, uint64_t total, int final);
    void *progress_ctx;
    size_t max_value;      /* largest single JSON value held at once; 0 = 16 MiB */
    int rank, rank_set;    /* MindSpore directories: which rank (default the lowest) */
    int threads;           /* JSON files, plain or gzip: readers run in parallel; 0 = one per CPU */
    uint64_t split_min;    /* smallest part of a file given to a reader; 0 = 32 MiB for a plain
                            * file, 4 MiB of decompressed JSON for gzip (parts as they arrive) */
    /* tests: the parts start at these offsets (ascending; of the decompressed
     * JSON for gzip) instead of cuts found by the scan; threads and split_min
     * are then not consulted (gzip: the parts are read on `threads` threads,
     * at least 2) */
    const uint64_t *cuts;
    int ncuts;
    int sqlite_seconds;    /* the most time spent reading one SQLite database; 0 = 300 */
} pc_load_opts;

int pc_load(const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err);
/* The Chrome-trace JSON reader, on any byte source; used by pc_load and the
 * fuzzer (which feeds memory). */
int pc_load_kineto_mem(const char *data, size_t n, pc_trace **out, pc_err *err);
/* The ranks of the MindSpore profiler files in dir, sorted, each once: their
 * count, with *ranks a malloc'd array (caller frees; NULL when none). */
int mindspore_ranks(const char *dir, int **ranks);
#endif
