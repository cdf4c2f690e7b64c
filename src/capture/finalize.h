/* finalize.h - the last step of `perfcard capture`: one trace per process.
 *
 * The injection library leaves, per process image, a raw trace
 * (RAW/trace.<host>.<pid>[.n].json, events one per line, a last line cut
 * if the process was killed) and its metadata (RAW/meta.<same>.json).
 * cap_finalize streams each raw trace into OUT/trace.<same>.json (or .json.gz)
 * with a complete header: deviceProperties, distributedInfo, and a
 * "perfcard_capture" block (command line without the environment, host, GPU,
 * driver, runtime and CUPTI versions, perfcard's version, dropped and
 * incomplete record counts, whether the process ended cleanly). The CPU
 * samples (taken by `perfcard capture` for the whole process tree) go into
 * the root process's trace, within its first and last event. Memory use is
 * one line at a time, whatever the trace's size. Timestamps stay relative to
 * the capture's origin (baseTimeNanoseconds). */
#ifndef PC_CAPTURE_FINALIZE_H
#define PC_CAPTURE_FINALIZE_H
#include <stddef.h>
#include <stdint.h>

typedef struct cap_cpu { uint64_t ts_ns; double user, system, iowait, idle, process; } cap_cpu;

enum { CAP_GZIP_NO = 0, CAP_GZIP_YES = 1, CAP_GZIP_AUTO = 2 };
#define CAP_GZIP_AUTO_BYTES ((uint64_t)64 << 20) /* auto: gzip raw traces larger than this */

typedef struct cap_final {
    const char *raw, *out;  /* the raw directory; where the traces go */
    uint64_t origin_ns;     /* the capture's time origin */
    int root_pid;           /* the command's process: its trace gets the CPU samples */
    int gzip;               /* CAP_GZIP_* */
    const cap_cpu *cpu;
    size_t ncpu;
    int no_replace;         /* OUT is not perfcard's: a trace whose name exists is not written (-1) */
} cap_final;

/* The traces written, sorted (*paths, NULL-terminated, caller frees each and
 * the array); -1 when one cannot be written (message on stderr; *paths
 * then holds those that were). */
int cap_finalize(const cap_final *f, char ***paths);
#endif
