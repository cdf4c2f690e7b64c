/* kineto_int.h - shared by the Kineto reader's files (internal to src/load):
 * kineto.c drives the tokenizer over windows and parts of the input,
 * kineto_event.c parses one event's fields, kineto_model.c classifies an
 * event (2021 and current dialects) and commits it to the model, and reads
 * the small top-level values (devices, distributed info). A reader reads a
 * window of memory (buf), a mapped plain file (map), or a gzip stream's
 * reservation (map with gz set: bytes arrive while it reads). */
#ifndef PC_KINETO_INT_H
#define PC_KINETO_INT_H
#include "../util/sigbus.h"
#include "load.h"
#include "../util/jsontok.h"
#include "source.h"
#include "../util/xalloc.h"
#include "../util/spill.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ST_START, ST_KEY_FIRST, ST_KEY_NEXT, ST_EV_FIRST, ST_EV_NEXT, ST_END };
enum { MAX_CTR = 16 };
enum { J_STOP = 2 }; /* parse_unit: the reader reached the start of the next part */

struct par;
typedef struct reader {
    char *buf, *scratch;
    size_t cap, len, pos, max_value;
    uint64_t base;          /* absolute offset of buf[0] */
    int eof;
    pc_source *src;         /* or memory: */
    const char *mem;
    size_t memlen, mempos;
    const char *map;        /* or a plain file mapped whole: the window slides over it */
    uint64_t map_size, dropped;
    pc_trace *t;
    int top_is_array;
    /* what makes the document a trace (checked by the main reader at the end):
     * a traceEvents array was opened; elements that look like events (ph,
     * name, cat or ts) were read, by this reader and the parts it absorbed */
    int saw_trace_events;
    int trace_keys; /* a top-level key only a Kineto/Chrome trace has (schemaVersion, deviceProperties, ...) */
    uint64_t event_like;
    void (*progress)(void *ctx, const char *path, uint64_t done, uint64_t total, int final);
    void *progress_ctx;
    const char *path;
    double last_progress;
    /* parallel reading of a plain file (see "parts" below) */
    struct par *par;
    int target;             /* the next part whose start this reader may reach */
    int stopped;            /* it reached that start exactly, at an event */
    uint64_t stop_done;     /* then: the end of its last unit (before the ',' the part follows) */
    atomic_int *abort;      /* set when this reader's part proved not to start at an event */
    atomic_int *verified;   /* set when its part's start was proved (NULL: the main reader, always) */
    /* a gzip stream read in parts (see "streamed parts" in kineto.c): the
     * start of part `target` and that part (UINT64_MAX, NULL: not planned
     * yet), refreshed under the parts' lock at each refill */
    struct gzpar *gz;
    struct gpart *self, *next_part;
    uint64_t next_start;
    /* for the memory forecast: bytes read from this reader's start, bytes of
     * events it holds (published for the main reader), and the main reader's
     * turn to forecast (0: done or not its job) */
    _Atomic uint64_t read, held;
    uint64_t start, forecast_at;
} reader;

typedef struct evtmp {
    char ph;
    jstr cat, name;
    int has_ts, has_dur;
    int64_t ts, dur;
    int64_t pid, tid;
    int pid_named, tid_named;
    jstr tid_s;
    /* args */
    int64_t device, stream, corr, ext_id, regs, smem, bytes, seq, fwd_tid;
    int64_t dev_type, dev_id, mem_bytes, mem_addr, total_alloc, total_res;
    double bps, wps, occ;
    uint32_t grid[3], block[3];
    jstr dims, types, concrete, strides, stack;
    int bad;  /* a field's value is JSON but not what the field holds (out of range, wrong type): skipped, counted */
    int nctr;
    jstr ctr_key[MAX_CTR];
    double ctr_val[MAX_CTR];
} evtmp;


/* Parses one traceEvents element at c into e (fields in place, not copied): 0, or -1 when malformed. */
int kin_parse_event(jcur *c, evtmp *e);
/* Adds a parsed event to the model (or counts why it was not). */
void kin_commit(reader *rd, evtmp *e);
/* A small top-level value (deviceProperties, distributedInfo, ...) of n bytes at v. */
void kin_read_top_value(pc_trace *t, jstr key, const char *v, size_t n);
#endif
