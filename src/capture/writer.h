/* writer.h - one process's raw capture file: Chrome-trace JSON in the object
 * form Kineto uses, written so that a process killed at any moment leaves a
 * file perfcard loads.
 *
 *   {"schemaVersion": 1, <header fields>, "traceEvents": [
 *   {event},                        <- one complete event per line
 *   ...
 *   {"ph": "M", ...}]}              <- written only at a clean close
 *
 * Timestamps are microseconds relative to the header's baseTimeNanoseconds
 * (as Kineto writes them), short enough that readers holding them in a
 * double (Perfetto, chrome://tracing, pandas) keep nanoseconds.
 * Events are formatted into a buffer; tw_flush swaps the buffer out under
 * the lock and writes it after releasing it, so threads that emit (step
 * markers included) never wait on the disk. A kill loses what was not
 * flushed yet (at most one interval) and may cut the last line: perfcard's
 * loader then reports a truncated trace and uses every complete event.
 * Thread-safe; tw_close is NULL-safe. */
#ifndef PC_TRACE_WRITER_H
#define PC_TRACE_WRITER_H
#include <stddef.h>
#include <stdint.h>

typedef struct tw tw;

/* Creates `path` (never an existing file: NULL with errno EEXIST) and writes
 * the header; `header` is extra top-level fields ("\"k\": v, ...") or "". */
tw *tw_open(const char *path, const char *header);
/* The same on an open descriptor (a pipe in tests); tw_close closes it. */
tw *tw_fdopen(int fd, const char *header);
/* Appends one event; `json` is the complete object text, without newline. */
void tw_event(tw *w, const char *json, size_t n);
void tw_flush(tw *w);
void tw_close(tw *w);
/* Frees a writer without writing (a forked child's copy of its parent's). */
void tw_abandon(tw *w);
/* JSON string escaping into dst (cap bytes, always terminated; invalid UTF-8 bytes become U+FFFD). */
void tw_escape(char *dst, size_t cap, const char *s);
/* CLOCK_REALTIME in ns: the time base of every capture event. */
uint64_t tw_now_ns(void);
/* `ns` as microseconds since `origin` with 3 decimals ("-0.250" before it). */
void tw_ts(char out[32], uint64_t ns, uint64_t origin);
#endif
