/* writer.h - the capture's trace file: Chrome-trace JSON in the object form
 * Kineto uses, written so that a process killed at any moment leaves a file
 * perfcard loads.
 *
 *   {"schemaVersion": 1, "deviceProperties": [...], "traceEvents": [
 *   {event},                        <- one complete event per line
 *   ...
 *   {"ph": "M", ...}]}              <- written only at a clean close
 *
 * Events are formatted into a buffer and handed to the file with one write()
 * per flush; a kill loses what was not flushed yet (at most one interval)
 * and may cut the last line: perfcard's loader then reports a truncated
 * trace and uses every complete event. All functions are thread-safe; a
 * writer is created by tw_open and finished by tw_close (NULL-safe).
 */
#ifndef PC_TRACE_WRITER_H
#define PC_TRACE_WRITER_H
#include <stdint.h>
#include <stddef.h>

typedef struct tw tw;

/* devices_json: the JSON array for deviceProperties ("[]" when none). */
tw *tw_open(const char *path, const char *devices_json);
/* Appends one event; `json` is the complete object text, without newline. */
void tw_event(tw *w, const char *json, size_t n);
void tw_flush(tw *w);
void tw_close(tw *w);
/* JSON string escaping into dst (cap bytes, always terminated). */
void tw_escape(char *dst, size_t cap, const char *s);
/* CLOCK_REALTIME in ns: the time base of every capture event. */
uint64_t tw_now_ns(void);
#endif
