/* inject.h - the parts of libperfcard_inject.so (built apart from
 * libperfcard: only src/capture and the header-only util/apiname.h).
 *
 *   inject.c   the process's life: when to record, its trace file, fork,
 *              exec and exit, the capture window, the markers API, metadata
 *   cupti.c    CUPTI: finding the program's libcupti, enabling activity,
 *              turning records (records.h) into trace events, devices
 *
 * Environment (set by `perfcard capture`):
 *   PERFCARD_TRACE_DIR   where the raw files go; nothing is recorded without it
 *   PERFCARD_ORIGIN_NS   the capture's time origin (every process shares it)
 *   PERFCARD_ROOT_PID    the command's pid (its trace gets the CPU samples)
 *   PERFCARD_FOLLOW=1    forked children that do not exec record too (--follow-children)
 *   PERFCARD_WINDOW=A,B  record only between these CLOCK_REALTIME ns (--delay, --duration)
 *   PERFCARD_STEPS=N     record N steps after the first marked step (--steps)
 *   PERFCARD_PROFILER_API=1  record only between cudaProfilerStart and Stop
 *   PERFCARD_FLUSH_MS    how often buffers reach the file (default 200) */
#ifndef PC_CAPTURE_INJECT_H
#define PC_CAPTURE_INJECT_H
#include <stddef.h>
#include <stdint.h>

/* inject.c */
int ij_active(void); /* this process records */
void ij_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ij_note(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* stderr, each distinct message once */
const char *ij_ts(char out[32], uint64_t ns);                             /* relative timestamp text */
int ij_recording(uint64_t ts);           /* the window is open at ts (and ts is this process's, not a forked parent's) */
void ij_window_set(uint64_t ts, int on); /* cudaProfilerStart / Stop */
int ij_profiler_api(void);               /* PERFCARD_PROFILER_API */
extern unsigned long long ij_incomplete, ij_dropped, ij_outside;

/* cupti.c */
int cu_start(void);            /* at InitializeInjection; 1 when activity is recorded */
void cu_flush(int forced);     /* delivers CUPTI's buffers (no-op without CUPTI) */
void cu_wait_deliveries(void); /* until no buffer is being delivered (at most 5 s) */
const char *cu_meta(void);     /* JSON fields for the metadata block ("" before cu_start) */
const char *cu_devices(void);  /* the deviceProperties array ("[]" when unknown) */
#endif
