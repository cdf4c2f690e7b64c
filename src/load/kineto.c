/* kineto.c - streaming reader of Chrome trace JSON as PyTorch's profiler
 * (Kineto) writes it, and as perfcard's own capture writes it.
 *
 * How it reads: a window of the input is held in memory (a plain file is
 * mapped and the window slides over it; see "parts" below for the parallel
 * reading of large plain files, and "streamed parts" for gzip, inflated into
 * one reservation and read in parts as it arrives); the document is
 * consumed one unit at a time (a top-level key with its value, or one element
 * of traceEvents). A unit that runs past the window is parsed again once the
 * window has been extended, so no parser state has to survive a chunk
 * boundary. Events are parsed in place and committed to the model only when
 * complete; nothing else of the file is kept. Small top-level values
 * (deviceProperties, distributedInfo) go through cJSON.
 *
 * Both schemas: 2021 categories (Kernel, Operator, Runtime, Memcpy, Memset,
 * DataLoader; tid "stream 7"; "external id") and current ones (kernel,
 * cpu_op, cuda_runtime, cuda_driver, gpu_memcpy, gpu_memset, user_annotation,
 * gpu_user_annotation, python_function, cpu_instant_event; "External id").
 *
 * Files: this one drives the tokenizer (windows, units, parallel parts);
 * kineto_event.c parses an event's fields; kineto_model.c classifies and
 * commits it and reads the top-level values; kineto_int.h their shared types.
 */
#include "kineto_int.h"
#include "readers.h"
#include <malloc.h>

/* ---------- window management ---------- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void show_progress(reader *r, int final) {
    if (!r->progress || (!r->src && !r->map)) return;
    double t = now_s();
    if (!final && t - r->last_progress < 0.25) return;
    r->last_progress = t;
    int mapped = r->map && !r->gz; /* a gzip stream's progress is in compressed bytes */
    uint64_t size = mapped ? r->map_size : source_file_size(r->src), pos = mapped ? r->base + r->len : source_file_pos(r->src);
    r->progress(r->progress_ctx, r->path, final ? size : pos, size, final);
}

static int grow(reader *r, pc_err *err) {
    if (r->cap >= r->max_value)
        return PC_ERRF_AT(err, PC_EINPUT, r->base, "a single JSON value is larger than %zu MiB", r->max_value >> 20);
    r->cap *= 2;
    free(r->scratch);
    r->scratch = xmalloc(r->cap);
    return 0;
}

/* ---------- memory forecast ----------
 * How much memory the run will need is known early: after the main reader's
 * first FORECAST_AT bytes, the bytes of events (and names) held per byte read (by all
 * readers, so the middle of the file is sampled too) times the file's size
 * gives the events of the whole file, E; the run's peak is about
 * 12 MiB + 1.25 E (the bench traces of 100, 200, 400 and 800 MB hold 19, 38,
 * 77 and 153 MiB of events and peak at 36, 58, 109 and 216 MiB when nothing
 * goes to files). spill_forecast decides what follows from it. */
enum { FORECAST_AT = 8 << 20 };

static void forecast(reader *r); /* after the parts, below */

/* A mapped file: the window moves forward without copying; the pages
 * behind it are handed back every 8 MiB so they do not stay resident. */
static int refill_map(reader *r, pc_err *err) {
    r->base += r->pos;
    atomic_store_explicit(&r->read, r->base - r->start, memory_order_relaxed);
    atomic_store_explicit(&r->held, pc_trace_held_bytes(r->t), memory_order_relaxed);
    if (r->forecast_at && r->base - r->start >= r->forecast_at) {
        r->forecast_at = 0;
        forecast(r);
    }
    r->len -= r->pos;
    r->pos = 0;
    uint64_t left = r->map_size - r->base;
    int rc;
    if (r->len == r->cap && left > r->len && (rc = grow(r, err))) return rc;
    r->len = left < r->cap ? (size_t)left : r->cap;
    r->buf = (char *)r->map + r->base; /* read only: the parser never writes to the window */
    if (r->len == left) r->eof = 1;
    uint64_t upto = r->base & ~(uint64_t)4095;
    if (upto >= r->dropped + ((uint64_t)8 << 20)) {
        spill_release((char *)r->map + r->dropped, upto - r->dropped);
        r->dropped = upto;
    }
    show_progress(r, 0);
    return 0;
}

/* A mapped reader that has finished: the pages it still holds go back, so
 * that merging the parts' events does not count them too. */
static void drop_window(reader *r) {
    if (!r->map || r->gz || r->base + r->len <= r->dropped) return;
    spill_release((char *)r->map + r->dropped, r->base + r->len - r->dropped);
    r->dropped = r->base + r->len;
}

static int refill_gz(reader *r, pc_err *err); /* with the streamed parts, below */

/* Extends the window: drops consumed bytes, grows when a unit fills it,
 * reads more. Returns 0, or a PC_E* code. */
static int refill(reader *r, pc_err *err) {
    if (r->abort && atomic_load_explicit(r->abort, memory_order_relaxed))
        return PC_ERRF(err, PC_EINPUT, "reading of this part was abandoned");
    if (r->gz) return refill_gz(r, err);
    if (r->map) return refill_map(r, err);
    source_window_drop(r->buf, &r->len, &r->pos, &r->base);
    if (r->len == r->cap) {
        int rc = grow(r, err);
        if (rc) return rc;
        r->buf = xrealloc(r->buf, r->cap);
    }
    ssize_t n = source_window_read(r->src, r->mem, r->memlen, &r->mempos, r->buf + r->len, r->cap - r->len, err);
    if (n < 0) return (int)n;
    if (r->src) show_progress(r, 0);
    if (n == 0) r->eof = 1;
    r->len += (size_t)n;
    return 0;
}

/* ---------- the unit parser ---------- */

static int par_at(reader *rd, uint64_t at);
static void par_stopped(reader *rd);

static int parse_unit(reader *rd, jcur *c, int st, int *next) {
    int r;
    evtmp e;
    switch (st) {
    case ST_START:
        /* a UTF-8 byte order mark first (Windows tools write one): skipped, as
         * RFC 8259 section 8.1 allows; byte offsets still count it */
        if (c->end - c->p < 3 && c->end > c->p && !memcmp(c->p, "\xEF\xBB\xBF", (size_t)(c->end - c->p))) return J_MORE;
        if (c->end - c->p >= 3 && !memcmp(c->p, "\xEF\xBB\xBF", 3)) c->p += 3;
        if ((r = j_ws(c))) return r;
        if (*c->p == '{') { c->p++; *next = ST_KEY_FIRST; return J_OK; }
        if (*c->p == '[') { c->p++; rd->top_is_array = 1; *next = ST_EV_FIRST; return J_OK; }
        c->why = "not a JSON trace (expected '{' or '[')";
        return J_ERR;
    case ST_KEY_FIRST:
    case ST_KEY_NEXT: {
        if ((r = j_ws(c))) return r;
        if (*c->p == '}') { c->p++; *next = ST_END; return J_OK; }
        if (st == ST_KEY_NEXT) {
            if (*c->p != ',') { c->why = "expected ',' or '}'"; return J_ERR; }
            c->p++;
            if ((r = j_ws(c))) return r;
        }
        if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
        jstr key;
        if ((r = j_string(c, &key))) return r;
        if ((r = j_expect(c, ':'))) return r;
        if ((r = j_ws(c))) return r;
        if (J_EQ(key, "traceEvents")) {
            if (*c->p != '[') { c->why = "traceEvents is not an array"; return J_ERR; }
            c->p++;
            rd->saw_trace_events = 1;
            *next = ST_EV_FIRST;
            return J_OK;
        }
        if (J_EQ(key, "schemaVersion") || J_EQ(key, "deviceProperties") || J_EQ(key, "computeProperties") ||
            J_EQ(key, "distributedInfo") || J_EQ(key, "perfcard_capture") || J_EQ(key, "traceName") ||
            J_EQ(key, "displayTimeUnit") || J_EQ(key, "baseTimeNanoseconds"))
            rd->trace_keys = 1;
        const char *v = c->p;
        if ((r = j_skip(c, 0))) return r;
        kin_read_top_value(rd->t, key, v, (size_t)(c->p - v));
        *next = ST_KEY_NEXT;
        return J_OK;
    }
    case ST_EV_FIRST:
    case ST_EV_NEXT:
        if ((r = j_ws(c))) return r;
        if (*c->p == ']') { c->p++; *next = rd->top_is_array ? ST_END : ST_KEY_NEXT; return J_OK; }
        if (st == ST_EV_NEXT) {
            if (*c->p != ',') { c->why = "expected ',' or ']' after an event"; return J_ERR; }
            c->p++;
            if ((r = j_ws(c))) return r;
            if (*c->p == ']') { c->p++; *next = rd->top_is_array ? ST_END : ST_KEY_NEXT; return J_OK; } /* trailing comma */
        }
        if ((rd->par || rd->gz) && par_at(rd, rd->base + (uint64_t)(c->p - rd->buf))) return J_STOP;
        if ((r = kin_parse_event(c, &e))) return r;
        if (e.ph || e.name.n || e.cat.n || e.has_ts) rd->event_like++;
        if (e.ph == 0 && !e.name.n && !e.cat.n) { rd->t->stats.events++; pc_trace_note_unknown(rd->t, 0); }
        else kin_commit(rd, &e);
        *next = ST_EV_NEXT;
        return J_OK;
    case ST_END:
        if ((r = j_ws(c))) return r;
        c->why = "unexpected data after the end of the JSON document";
        return J_ERR;
    }
    return J_ERR;
}

static int run(reader *rd, int st, pc_err *err) {
    int rc;
    for (;;) {
        jcur c = {rd->buf + rd->pos, rd->buf + rd->len, rd->scratch, 0, NULL};
        int next = st;
        int r = parse_unit(rd, &c, st, &next);
        if (r == J_OK) {
            rd->pos = (size_t)(c.p - rd->buf);
            st = next;
            if (rd->par || rd->gz) par_at(rd, rd->base + rd->pos);
            continue;
        }
        if (r == J_STOP) {
            rd->stop_done = rd->base + rd->pos;
            rd->pos = (size_t)(c.p - rd->buf);
            rd->stopped = 1;
            par_stopped(rd);
            return 0;
        }
        if (r == J_ERR) {
            uint64_t off = rd->base + (uint64_t)(c.p - rd->buf);
            return PC_ERRF_AT(err, PC_EINPUT, off, "%s", c.why ? c.why : "syntax error");
        }
        /* J_MORE */
        if (rd->eof) {
            if (st == ST_END) return 0;
            uint64_t done = rd->base + rd->pos;
            /* nothing but whitespace: an empty input is not a trace */
            size_t k = rd->pos;
            while (k < rd->len && (rd->buf[k] == ' ' || rd->buf[k] == '\n' || rd->buf[k] == '\r' || rd->buf[k] == '\t')) k++;
            if (st == ST_START && k == rd->len) {
                /* a gzip stream that failed before its first byte (a damaged header) is that failure */
                const char *why = rd->src ? source_error_note(rd->src) : NULL;
                if (why && rd->base + rd->len == 0) return PC_ERRF(err, PC_EINPUT, "%s", why);
                return PC_ERRF_AT(err, PC_EINPUT, rd->base + rd->len, "empty input: no JSON document");
            }
            rd->t->truncated = 1;
            rd->t->truncated_at = done;
            return 0;
        }
        if ((rc = refill(rd, err))) return rc;
    }
}

/* Any JSON document is not a trace: an object must have opened a
 * traceEvents array (empty is an empty capture), a bare array (the Chrome
 * trace format's other form) must hold at least one event. */
static int is_trace(const reader *rd, pc_err *err) {
    if (rd->top_is_array ? rd->event_like > 0 : rd->saw_trace_events) return 0;
    /* a trace cut before its events (a job killed early, a capture's header
     * written): what was complete is its header; reported as truncated, exit 3 */
    if (!rd->top_is_array && rd->trace_keys && rd->t->truncated) return 0;
    char cut[64] = "";
    if (rd->t->truncated) snprintf(cut, sizeof cut, " (it ends early, at byte %llu)", (unsigned long long)rd->t->truncated_at);
    return PC_ERRF(err, PC_EINPUT,
                   "not a trace: %s%s (perfcard reads a Chrome/Kineto trace, {\"traceEvents\": [...]} or a JSON array of "
                   "events with \"ph\", \"name\", \"ts\"; or a perfcard summary.json, \"schema\": \"perfcard.summary/1\" "
                   "within its first 512 bytes)",
                   rd->top_is_array ? "a JSON array without trace events" : "a JSON object without \"traceEvents\"", cut);
}

static int finish(reader *rd, pc_trace **out, pc_err *err, int rc) {
    if (!rc) rc = is_trace(rd, err);
    if (!rd->map) free(rd->buf);
    free(rd->scratch);
    if (rc == 0 && rd->src && source_truncated(rd->src) && !rd->t->truncated) {
        /* the JSON closed but the gzip stream did not: keep it, say so */
        rd->t->truncated = 1;
        rd->t->truncated_at = rd->base + rd->len;
    }
    if (rc) {
        pc_trace_free(rd->t);
        *out = NULL;
        return rc;
    }
    const char *why = rd->t->truncated && rd->src ? source_error_note(rd->src) : NULL;
    if (why) snprintf(rd->t->truncated_why, sizeof rd->t->truncated_why, "%s", why);
    (void)err;
    if (!rd->t->stats.bytes) rd->t->stats.bytes = rd->base + rd->len;
    if (!rd->t->stats.parts) rd->t->stats.parts = 1;
    rd->t->source_format = strtab_intern(&rd->t->strs, "kineto-json", 11);
    pc_trace_finish(rd->t);
    *out = rd->t;
    return 0;
}

static void reader_init(reader *rd, size_t max_value) {
    memset(rd, 0, sizeof *rd);
    rd->cap = 1 << 20;
    rd->buf = xmalloc(rd->cap);
    rd->scratch = xmalloc(rd->cap);
    rd->max_value = max_value ? max_value : (size_t)16 << 20; /* within the memory ceiling; events are far smaller */
    rd->t = pc_trace_new();
}

int pc_load_kineto_mem(const char *data, size_t n, pc_trace **out, pc_err *err) {
    reader rd;
    reader_init(&rd, 0);
    rd.mem = data;
    rd.memlen = n;
    rd.t->stats.file_bytes = n;
    int rc = run(&rd, ST_START, err);
    return finish(&rd, out, err, rc);
}

/* ---------- parts: reading a plain file on several threads ----------
 *
 * A plain file of N x split_min bytes or more is cut into N parts near equal
 * offsets. Each cut is moved forward to a '{' that follows "}," (blanks and
 * newlines between: Kineto writes an event a line, json.dumps all on one
 * line) and opens an object with an event's keys followed by ',' or ']'
 * (find_cut): very likely an event of traceEvents. Part k's reader starts
 * there as if at an event, into a trace of its own. Nothing is trusted until
 * checked: the reader of part k-1 goes on until it is about to parse an event
 * that begins exactly at part k's start (then it stops, and part k's result
 * is used), or until it passes that offset anywhere else (then part k is
 * abandoned and part k-1's reader reads on through it). Only a reader whose
 * own start is proved (the main one, then each part it stopped at) abandons
 * others: one that started inside a string knows nothing of the next part.
 * So the result is always the serial reader's; a wrong guess costs time,
 * never correctness. Errors and truncation are those of the serial
 * reader, with offsets in the file (a part cut short before its first event
 * ends says so where the reader before it ended its last unit, as the serial
 * reader does). */

enum { PAR_MAX = 16, PAR_PROBE = 1 << 20 };

typedef struct part {
    uint64_t start;
    reader rd;
    pc_err err;
    int rc, started;
    atomic_int abort, verified;
    pthread_t th;
} part;

typedef struct par {
    const char *path;
    int n;           /* parts; p[0] is the main reader's */
    part p[PAR_MAX];
} par;

static void forecast(reader *r) {
    uint64_t read = r->base - r->start, held = pc_trace_held_bytes(r->t);
    if (r->par)
        for (int k = 1; k < r->par->n; k++) {
            read += atomic_load_explicit(&r->par->p[k].rd.read, memory_order_relaxed);
            held += atomic_load_explicit(&r->par->p[k].rd.held, memory_order_relaxed);
        }
    if (!read) return;
    double events = (double)held * (double)r->map_size / (double)read;
    r->t->stats.forecast = (uint64_t)(12.0 * 1048576 + 1.25 * events);
    spill_forecast((size_t)r->t->stats.forecast);
}

/* whether rd's own start is proved: the main reader's is; a part's once a
 * proved reader stopped at it */
static int proved(const reader *rd) {
    return !rd->verified || atomic_load_explicit(rd->verified, memory_order_relaxed);
}

/* rd is at absolute offset `at`, before an event (or, from run(), after a
 * unit). Parts whose start it has gone past are abandoned, when rd's own
 * start is proved (a part that started at a wrong offset knows nothing about
 * the next: it must not stop it); returns 1 when `at` is the start of its
 * target part. Abandoning early only saves time: par_finish uses a part
 * only when the chain of proved readers stopped exactly at its start. */
static int gz_at(reader *rd, uint64_t at);
static int par_at(reader *rd, uint64_t at) {
    if (rd->gz) return gz_at(rd, at);
    par *pa = rd->par;
    while (rd->target < pa->n && at > pa->p[rd->target].start) {
        if (proved(rd)) atomic_store(&pa->p[rd->target].abort, 1);
        rd->target++;
    }
    return rd->target < pa->n && at == pa->p[rd->target].start;
}

/* rd stopped at its target's start: proved when rd is */
static void gz_stopped(reader *rd);
static void par_stopped(reader *rd) {
    if (rd->gz) { gz_stopped(rd); return; }
    if (proved(rd)) atomic_store_explicit(&rd->par->p[rd->target].verified, 1, memory_order_relaxed);
}

/* Whether the bytes at `at` read as an event followed by the next element
 * or the array's end: an object with a top-level "ph", "name", "cat" or "ts"
 * key, then ',' or ']'. Only a guess (the same bytes could be in a string or
 * nested deeper): the reader before the part proves it or not. */
static int looks_like_event(const char *m, uint64_t size, uint64_t at, char *scratch) {
    jcur c = {m + at, m + at + (size - at < PAR_PROBE ? size - at : PAR_PROBE), scratch, 0, NULL};
    int event = 0, r;
    if (j_expect(&c, '{') || j_ws(&c) || *c.p == '}') return 0;
    for (;;) {
        jstr k;
        c.scratch_used = 0;
        if (j_ws(&c) || *c.p != '"' || j_string(&c, &k) || j_expect(&c, ':')) return 0;
        if (J_EQ(k, "ph") || J_EQ(k, "name") || J_EQ(k, "cat") || J_EQ(k, "ts")) event = 1;
        c.scratch_used = 0;
        if (j_skip(&c, 1)) return 0;
        if ((r = j_after(&c, '}', "")) == J_OK) break;
        if (r != J_NEXT) return 0;
    }
    return event && !j_ws(&c) && (*c.p == ',' || *c.p == ']');
}

/* A likely event start at or after `from` (0 when none within PAR_PROBE
 * bytes): a '{' after a ',' after a '}', blanks and newlines between (how
 * Kineto writes events, one a line, and json.dumps, all on one line), that
 * looks like an event. */
static uint64_t find_cut(const char *m, uint64_t size, uint64_t from, char *scratch) {
    const char *b = m + from;
    ssize_t n = (ssize_t)(size - from < PAR_PROBE ? size - from : PAR_PROBE);
    for (ssize_t i = 0; i < n; i++) {
        const char *comma = memchr(b + i, ',', (size_t)(n - i));
        if (!comma) break;
        i = comma - b;
        ssize_t k = i - 1, j = i + 1;
        while (k >= 0 && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r' || b[k] == '\n')) k--;
        if (k < 0 || b[k] != '}') continue;
        while (j < n && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n')) j++;
        if (j < n && b[j] == '{' && looks_like_event(m, size, from + (uint64_t)j, scratch)) return from + (uint64_t)j;
    }
    return 0;
}

static void *part_main(void *arg) {
    part *pt = arg;
    reader *rd = &pt->rd;
    pt->rc = run(rd, ST_EV_FIRST, &pt->err);
    drop_window(rd);
    if (!pt->rc) pc_trace_sort(rd->t); /* parts sort in parallel, then merge */
    return NULL;
}

/* Plans and starts the parts of a plain file; NULL when one reader will do. */
static par *par_start(reader *main_rd, const pc_load_opts *o) {
    uint64_t size = main_rd->map_size;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = o && o->threads > 0 ? o->threads : cpus > 0 ? (int)cpus : 1;
    uint64_t min = o && o->split_min ? o->split_min : (uint64_t)32 << 20;
    if (n > PAR_MAX) n = PAR_MAX;
    if ((uint64_t)n > size / min) n = (int)(size / min);
    if (n < 2 && !(o && o->ncuts > 0)) return NULL;
    const char *m = main_rd->map;
    /* the first byte that is not blank says whether the document is a bare array */
    int top_array = 0;
    for (uint64_t i = 0; i < size && i < 4096; i++)
        if (m[i] != ' ' && m[i] != '\n' && m[i] != '\r' && m[i] != '\t') { top_array = m[i] == '['; break; }
    par *pa = xcalloc(1, sizeof *pa);
    pa->path = main_rd->path;
    pa->n = 1;
    if (o && o->ncuts > 0) {
        for (int k = 0; k < o->ncuts && pa->n < PAR_MAX; k++)
            if (o->cuts[k] > pa->p[pa->n - 1].start && o->cuts[k] < size) pa->p[pa->n++].start = o->cuts[k];
    } else {
        char *scratch = xmalloc(PAR_PROBE);
        for (int k = 1; k < n; k++) {
            uint64_t cut = find_cut(m, size, size / (uint64_t)n * (uint64_t)k, scratch);
            if (cut && cut > pa->p[pa->n - 1].start) pa->p[pa->n++].start = cut;
        }
        free(scratch);
    }
    if (pa->n < 2) { free(pa); return NULL; }
    main_rd->par = pa;
    main_rd->target = 1;
    for (int k = 1; k < pa->n; k++) {
        part *pt = &pa->p[k];
        reader_init(&pt->rd, main_rd->max_value);
        free(pt->rd.buf);
        pt->rd.buf = (char *)m; /* the window starts empty at the map: never a null base for pointer arithmetic */
        pt->rd.map = m;
        pt->rd.map_size = size;
        pt->rd.start = pt->start;
        pt->rd.base = pt->start;
        pt->rd.dropped = pt->start;
        pt->rd.path = main_rd->path;
        pt->rd.top_is_array = top_array;
        pt->rd.par = pa;
        pt->rd.target = k + 1;
        pt->rd.abort = &pt->abort;
        pt->rd.verified = &pt->verified;
        atomic_init(&pt->abort, 0);
        atomic_init(&pt->verified, 0);
        pt->started = pthread_create(&pt->th, NULL, part_main, pt) == 0;
        if (!pt->started) atomic_store(&pt->abort, 1);
    }
    return pa;
}

/* Joins the parts; follows the chain of verified starts from the main reader,
 * moving each part's events into the main trace. Returns the load's code. */
static int par_finish(par *pa, reader *main_rd, int rc, pc_err *err) {
    reader *cur = main_rd;
    uint64_t end = 0;
    int used = 1;
    while (!rc && cur->stopped) {
        part *pt = &pa->p[cur->target];
        if (!pt->started) { rc = PC_ERRF(err, PC_EIO, "cannot start a reader thread"); break; }
        pthread_join(pt->th, NULL);
        pt->started = 0;
        if (pt->rc) { rc = pt->rc; *err = pt->err; break; }
        end = pt->rd.base + pt->rd.len;
        /* cut short before its first event ended: where the serial reader's
         * complete data ends is before the ',' that the part follows */
        if (pt->rd.t->truncated && pt->rd.t->truncated_at == pt->start) pt->rd.t->truncated_at = cur->stop_done;
        main_rd->event_like += pt->rd.event_like;
        pc_trace_absorb(main_rd->t, pt->rd.t);
        pt->rd.t = NULL;
        cur = &pt->rd;
        used++;
    }
    /* parts outside the chain (or after an error) are abandoned: all told
     * first, so that they stop together */
    for (int k = 1; k < pa->n; k++)
        if (pa->p[k].started) atomic_store(&pa->p[k].abort, 1);
    for (int k = 1; k < pa->n; k++) {
        part *pt = &pa->p[k];
        if (pt->started) pthread_join(pt->th, NULL);
        pc_trace_free(pt->rd.t);
        free(pt->rd.scratch);
    }
    if (!rc && end) main_rd->t->stats.bytes = end;
    if (!rc) main_rd->t->stats.parts = used;
    main_rd->par = NULL;
    free(pa);
    return rc;
}

/* ---------- streamed parts: a gzip stream read on several threads ----------
 *
 * A gzip file's size is not known ahead and it is never held whole, so its
 * parts are planned as the data arrives (docs/internals.md, "The loader"):
 * the source's inflater writes the stream into one reservation (offset k at
 * m + k, so readers use the mapped file's window, refill_gz), publishing
 * how much is ready. The next part is searched for (find_cut) from the
 * previous part's start plus the part size, once 2 x PAR_PROBE bytes past
 * that offset are ready; no reader's window passes plan_from (below it
 * every part is planned), so a reader always knows the next part it could
 * reach. Threads take parts in turn (an idle one plans); each part is
 * checked as the plain file's are (par_at, proved), and the chain of
 * proved parts is absorbed in file order as parts finish, in a binary
 * counter of merged runs (a part's events merge log(parts) times, not once
 * per part before it). Every reader publishes the base of its window
 * (lowmark): the bytes below the lowest of these, of the parts not yet
 * taken and of plan_from go back, and the inflater writes at most `ahead`
 * past them. */

enum { GZ_SEG = 4 << 20, GZ_AHEAD_MAX = 32 << 20 };
enum { GP_PLANNED, GP_RUNNING, GP_DONE };

typedef struct gpart {
    uint64_t start;
    reader own;   /* the part's reader (the main reader's is the caller's) */
    reader *rd;
    pc_err err;
    int rc, state, index;
    atomic_int abort, verified;
    uint64_t lowmark; /* under the lock: the reader needs no byte below */
} gpart;

typedef struct gzpar {
    pc_source *src;
    const char *m;
    pthread_mutex_t mu; /* the parts, the plan, running[] */
    pthread_cond_t cv;  /* a plan step ended */
    gpart **p;
    int n, cap, taken, top_array;
    uint64_t seg, plan_from;
    int plan_done, planning, failed;
    const uint64_t *cuts; /* tests: the parts start there */
    int ncuts, cut_i;
    size_t max_value;
    const char *path;
    char *scratch;
    gpart *running[PAR_MAX];
    /* the chain of used parts (under mu, but the runs: the merging thread's):
     * p[chain] is its last part known */
    int chain, chain_end, merging, again, nrun, used, rc;
    struct { pc_trace *t; uint64_t w; } run[64];
    uint64_t end, event_like;
    pc_err err;
} gzpar;

/* under g->mu: the bytes below this are needed by no reader, no part not
 * yet taken and no plan step */
static uint64_t gz_low(const gzpar *g) {
    uint64_t low = g->plan_done ? UINT64_MAX : g->plan_from;
    if (g->taken < g->n && g->p[g->taken]->start < low) low = g->p[g->taken]->start;
    for (int i = 0; i < PAR_MAX; i++)
        if (g->running[i] && g->running[i]->lowmark < low) low = g->running[i]->lowmark;
    return low;
}

/* under g->mu: r's next part, as far as planned */
static void gz_next(const gzpar *g, reader *r) {
    r->next_part = r->target < g->n ? g->p[r->target] : NULL;
    r->next_start = r->next_part ? r->next_part->start : UINT64_MAX;
}

/* One plan step, called with g->mu held and no step under way: the next
 * part (when there is one) and how far the plan reaches. The lock is let go
 * while it waits for the data and scans it. */
static void gz_plan_step(gzpar *g) {
    g->planning = 1;
    uint64_t from = g->plan_from, cut = 0, next = from, ready;
    int end = 0, done;
    pthread_mutex_unlock(&g->mu);
    if (g->cuts) {
        while (g->cut_i < g->ncuts && g->cuts[g->cut_i] < from) g->cut_i++;
        if (g->cut_i == g->ncuts) end = 1;
        else {
            uint64_t c = g->cuts[g->cut_i++];
            ready = source_stream_wait(g->src, c + 1, &done);
            if (c < ready) cut = c, next = c + 1;
            else end = 1;
        }
    } else {
        ready = source_stream_wait(g->src, from + 2 * PAR_PROBE, &done);
        if (from >= ready) end = 1;
        else {
            cut = find_cut(g->m, ready, from, g->scratch);
            next = cut ? cut + g->seg : from + PAR_PROBE;
            if (!cut && done && next >= ready) end = 1;
        }
    }
    gpart *pt = NULL;
    if (cut) {
        pt = xcalloc(1, sizeof *pt);
        pt->start = cut;
        pt->rd = &pt->own;
        atomic_init(&pt->abort, 0);
        atomic_init(&pt->verified, 0);
    }
    pthread_mutex_lock(&g->mu);
    if (pt) {
        if (g->n == g->cap) {
            g->cap *= 2;
            g->p = xrealloc(g->p, (size_t)g->cap * sizeof *g->p);
        }
        pt->index = g->n;
        g->p[g->n++] = pt;
    }
    if (end) g->plan_done = 1;
    else g->plan_from = next;
    g->planning = 0;
    pthread_cond_broadcast(&g->cv);
}

/* r (of a running part) needs the bytes up to `want`: publishes its low
 * mark, plans as far as that (or takes the step another thread is making),
 * waits for the data. Returns how far r may read (the bytes ready, or less
 * where the plan ends), *ready and *done the stream's. */
static uint64_t gz_need(gzpar *g, reader *r, uint64_t want, uint64_t *ready, int *done) {
    pthread_mutex_lock(&g->mu);
    r->self->lowmark = r->base;
    uint64_t low = gz_low(g);
    while (!g->plan_done && g->plan_from < want) {
        if (g->planning) pthread_cond_wait(&g->cv, &g->mu);
        else gz_plan_step(g);
    }
    uint64_t lim = g->plan_done ? UINT64_MAX : g->plan_from;
    gz_next(g, r);
    pthread_mutex_unlock(&g->mu);
    source_stream_release(g->src, low);
    *ready = source_stream_wait(g->src, want, done);
    return *ready < lim ? *ready : lim;
}

/* The window of a streamed reader: as refill_map, over the bytes ready so
 * far; waits for more, and reports the stream's read error at its end as
 * source_read does. */
static int refill_gz(reader *r, pc_err *err) {
    gzpar *g = r->gz;
    r->base += r->pos;
    r->len -= r->pos;
    r->pos = 0;
    r->buf = (char *)r->map + r->base;
    uint64_t end = r->base + r->len, ready;
    int done, rc;
    uint64_t lim = gz_need(g, r, end + 1, &ready, &done);
    if (lim <= end) { /* the stream ended here */
        if ((rc = source_stream_error(g->src, err))) return rc;
        r->eof = 1;
        return 0;
    }
    if (r->len == r->cap && (rc = grow(r, err))) return rc;
    uint64_t upto = r->base + r->cap < lim ? r->base + r->cap : lim;
    r->len = (size_t)(upto - r->base);
    if (done && upto == ready && !source_stream_error(g->src, NULL)) r->eof = 1;
    show_progress(r, 0);
    return 0;
}

static int gz_at(reader *rd, uint64_t at) {
    if (at < rd->next_start) return 0;
    gzpar *g = rd->gz;
    pthread_mutex_lock(&g->mu);
    while (rd->target < g->n && at > g->p[rd->target]->start) {
        if (proved(rd)) atomic_store(&g->p[rd->target]->abort, 1);
        rd->target++;
    }
    gz_next(g, rd);
    pthread_mutex_unlock(&g->mu);
    return at == rd->next_start;
}

static void gz_stopped(reader *rd) {
    if (proved(rd)) atomic_store_explicit(&rd->next_part->verified, 1, memory_order_relaxed);
}

/* Adds the next used part's trace to the runs. It merges into the last run
 * when that moves no more of the run's events than the part has (a trace
 * written in about time order: each event is copied once); else equal runs
 * merge (the earlier absorbs the later), so that no event moves more than
 * log(parts) times however the events are ordered. */
static size_t nevents(const pc_trace *t) { return t->ncpu + t->ngpu + t->nmem + t->nctr; }
static void gz_push(gzpar *g, pc_trace *t) {
    uint64_t w = 1;
    while (g->nrun > 0 &&
           (g->run[g->nrun - 1].w <= w || pc_trace_merge_moves(g->run[g->nrun - 1].t, t) <= nevents(t))) {
        pc_trace_absorb(g->run[g->nrun - 1].t, t);
        t = g->run[g->nrun - 1].t;
        w += g->run[--g->nrun].w;
    }
    g->run[g->nrun].t = t;
    g->run[g->nrun++].w = w;
}

/* Follows the chain from p[chain] as far as finished parts prove it,
 * absorbing each used part; an error in the chain ends the load. One thread
 * merges at a time; a thread that finds another merging leaves its part to
 * it (`again`) and goes on reading. */
static void gz_advance(gzpar *g) {
    pthread_mutex_lock(&g->mu);
    g->again = 1;
    if (g->merging) {
        pthread_mutex_unlock(&g->mu);
        return;
    }
    g->merging = 1;
    while (g->again) {
        g->again = 0;
        for (;;) {
            gpart *cur = g->p[g->chain], *nx = NULL;
            if (g->chain_end || g->failed || cur->state != GP_DONE) break;
            if (cur->rc) {
                g->failed = 1;
                g->rc = cur->rc;
                g->err = cur->err;
                for (int k = 0; k < g->n; k++) atomic_store(&g->p[k]->abort, 1);
                pthread_cond_broadcast(&g->cv);
                break;
            }
            if (!cur->rd->stopped) {
                g->chain_end = 1;
                g->end = cur->rd->base + cur->rd->len;
                pthread_cond_broadcast(&g->cv);
                break;
            }
            if ((nx = g->p[cur->rd->target])->state != GP_DONE) break;
            pthread_mutex_unlock(&g->mu);
            if (!nx->rc) {
                reader *pr = nx->rd;
                /* cut short before its first event ended: where the serial reader's
                 * complete data ends is before the ',' that the part follows */
                if (pr->t->truncated && pr->t->truncated_at == nx->start) pr->t->truncated_at = cur->rd->stop_done;
                g->event_like += pr->event_like;
                gz_push(g, pr->t);
                pr->t = NULL;
                g->used++;
            }
            pthread_mutex_lock(&g->mu);
            g->chain = nx->index;
        }
    }
    g->merging = 0;
    pthread_mutex_unlock(&g->mu);
}

/* A thread's scratch buffer, kept from part to part (a part would
 * otherwise allocate and free its own). */
typedef struct gz_scratch { char *p; size_t cap; } gz_scratch;

static void gz_run_part(gzpar *g, gpart *pt, int slot, gz_scratch *sc) {
    reader *rd = pt->rd;
    int rc;
    if (pt->index == 0) rc = run(rd, ST_START, &pt->err);
    else if (atomic_load(&pt->abort)) rc = PC_ERRF(&pt->err, PC_EINPUT, "reading of this part was abandoned");
    else {
        memset(rd, 0, sizeof *rd);
        if (!sc->p) sc->p = xmalloc(sc->cap = 1 << 20);
        rd->cap = 1 << 20; /* the window as reader_init's; the scratch may be larger */
        rd->scratch = sc->p;
        rd->max_value = g->max_value;
        rd->t = pc_trace_new();
        rd->buf = (char *)g->m; /* the window starts empty at the reservation */
        rd->map = g->m;
        rd->start = rd->base = pt->start;
        rd->path = g->path;
        rd->top_is_array = g->top_array;
        rd->gz = g;
        rd->self = pt;
        rd->target = pt->index + 1;
        rd->next_start = UINT64_MAX;
        rd->abort = &pt->abort;
        rd->verified = &pt->verified;
        rc = run(rd, ST_EV_FIRST, &pt->err);
        if (rd->scratch != sc->p) sc->p = rd->scratch, sc->cap = rd->cap; /* grown: grow() freed the old one */
        rd->scratch = NULL;
        if (atomic_load(&pt->abort)) { /* never used: its events go now */
            pc_trace_free(rd->t);
            rd->t = NULL;
        }
    }
    if (!rc && rd->t && (pt->index > 0 || rd->stopped)) pc_trace_sort(rd->t); /* parts sort in parallel, then merge */
    pthread_mutex_lock(&g->mu);
    pt->rc = rc;
    pt->state = GP_DONE;
    g->running[slot] = NULL;
    uint64_t low = gz_low(g);
    pthread_mutex_unlock(&g->mu);
    source_stream_release(g->src, low);
    gz_advance(g);
}

/* The next part for the thread in `slot` (planning when none is waiting);
 * NULL when there is none left or the load ended. */
static gpart *gz_take(gzpar *g, int slot) {
    gpart *pt = NULL;
    pthread_mutex_lock(&g->mu);
    while (!g->failed && !g->chain_end) {
        if (g->taken < g->n) {
            pt = g->p[g->taken++];
            pt->state = GP_RUNNING;
            pt->lowmark = pt->start;
            g->running[slot] = pt;
            break;
        }
        if (g->plan_done) break;
        if (g->planning) pthread_cond_wait(&g->cv, &g->mu);
        else gz_plan_step(g);
    }
    pthread_mutex_unlock(&g->mu);
    return pt;
}

typedef struct gz_worker { gzpar *g; int slot; pthread_t th; int started; } gz_worker;

static void *gz_thread(void *arg) {
    gz_worker *w = arg;
    gz_scratch sc = {0};
    for (gpart *pt; (pt = gz_take(w->g, w->slot));) gz_run_part(w->g, pt, w->slot, &sc);
    free(sc.p);
    return NULL;
}

/* Reads the gzip stream of rd->src in parts on several threads; 1 when it
 * is not to be (one thread asked for, no reservation): nothing done then. */
static int gz_read(reader *rd, const pc_load_opts *o, pc_err *err) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n = o && o->threads > 0 ? o->threads : cpus > 0 ? (int)cpus : 1;
    if (n > PAR_MAX) n = PAR_MAX;
    int forced = o && o->ncuts > 0;
    if (forced && n < 2) n = 2;
    if (n < 2) return 1;
    uint64_t seg = o && o->split_min ? o->split_min : GZ_SEG;
    uint64_t ahead = (uint64_t)n * seg < GZ_AHEAD_MAX ? (uint64_t)n * seg : GZ_AHEAD_MAX;
    ahead += 2 * PAR_PROBE + (1 << 20); /* a plan step's bytes, and the inflater's next write */
    const char *m;
    int rc = source_stream_start(rd->src, ahead, rd->max_value + 4 * PAR_PROBE, &m, err);
    if (rc) return rc;
    /* thousands of parts allocate and free event arrays of about a megabyte
     * on two threads: with glibc's sliding mmap threshold they come to live
     * in the heaps, which keep what is freed (10.5 GB: 139-171 MiB peak
     * against 98 MiB with blocks of 1 MiB or more mapped, and freed, apart) */
    mallopt(M_MMAP_THRESHOLD, SPILL_MIN);
    gzpar *g = xcalloc(1, sizeof *g);
    g->src = rd->src;
    g->m = m;
    g->seg = seg;
    g->max_value = rd->max_value;
    g->path = rd->path;
    g->cuts = forced ? o->cuts : NULL;
    g->ncuts = forced ? o->ncuts : 0;
    g->plan_from = forced ? 1 : seg;
    g->scratch = xmalloc(PAR_PROBE);
    g->cap = 16;
    g->p = xcalloc((size_t)g->cap, sizeof *g->p);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    /* the first byte that is not blank says whether the document is a bare array */
    int done;
    uint64_t head = source_stream_wait(g->src, 4096, &done);
    for (uint64_t i = 0; i < head && i < 4096; i++)
        if (m[i] != ' ' && m[i] != '\n' && m[i] != '\r' && m[i] != '\t') { g->top_array = m[i] == '['; break; }
    gpart *p0 = xcalloc(1, sizeof *p0);
    p0->rd = rd;
    atomic_init(&p0->abort, 0);
    atomic_init(&p0->verified, 0);
    p0->state = GP_RUNNING;
    g->p[g->n++] = p0;
    g->taken = 1;
    g->running[0] = p0;
    free(rd->buf);
    rd->buf = (char *)m;
    rd->map = m;
    rd->gz = g;
    rd->self = p0;
    rd->target = 1;
    rd->next_start = UINT64_MAX;
    g->run[g->nrun].t = rd->t;
    g->run[g->nrun++].w = 1;
    gz_worker w[PAR_MAX];
    for (int i = 1; i < n; i++) {
        w[i].g = g;
        w[i].slot = i;
        w[i].started = pthread_create(&w[i].th, NULL, gz_thread, &w[i]) == 0;
    }
    gz_scratch sc = {0};
    gz_run_part(g, p0, 0, &sc);
    for (gpart *pt; (pt = gz_take(g, 0));) gz_run_part(g, pt, 0, &sc);
    free(sc.p);
    for (int i = 1; i < n; i++)
        if (w[i].started) pthread_join(w[i].th, NULL);
    gz_advance(g);
    rc = g->failed ? g->rc : 0;
    if (rc) *err = g->err;
    else if (!g->chain_end)
        rc = PC_ERRF(err, PC_EIO, "cannot start a reader thread"); /* a part was left unread */
    while (g->nrun > 1) { /* the runs, latest first, into the main trace */
        if (!rc) pc_trace_absorb(g->run[g->nrun - 2].t, g->run[g->nrun - 1].t);
        else pc_trace_free(g->run[g->nrun - 1].t);
        g->nrun--;
    }
    if (!rc) {
        rd->event_like += g->event_like;
        rd->t->stats.bytes = g->end;
        rd->t->stats.parts = g->used + 1;
        if (source_truncated(rd->src) && !rd->t->truncated) {
            /* the JSON closed but the gzip stream did not: keep it, say so */
            rd->t->truncated = 1;
            rd->t->truncated_at = g->end;
        }
    }
    for (int k = 1; k < g->n; k++) {
        pc_trace_free(g->p[k]->own.t);
        free(g->p[k]->own.scratch);
        free(g->p[k]);
    }
    free(p0);
    rd->gz = NULL;
    rd->self = NULL;
    rd->next_part = NULL;
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g->scratch);
    free(g->p);
    free(g);
    return rc;
}

int pc_load_kineto_source(pc_source *src, const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err) {
    reader rd;
    reader_init(&rd, o ? o->max_value : 0);
    rd.src = src;
    rd.path = path;
    rd.progress = o ? o->progress : NULL;
    rd.progress_ctx = o ? o->progress_ctx : NULL;
    rd.t->stats.file_bytes = source_file_size(src);
    /* a plain file is read through a mapping of it (no copies), on several
     * threads when it is large; gzip through the source's inflater */
    void *m = MAP_FAILED;
    uint64_t size = source_file_size(src);
    if (path && !source_is_gzip(src) && size > 0 && size < ((uint64_t)1 << 46))
        m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, source_fd(src), 0);
    par *pa = NULL;
    int guard = -1;
    if (m != MAP_FAILED) {
        guard = sigbus_watch(m, (size_t)size, path, 0,
                             "the file became shorter while perfcard read it (truncated or replaced by another program)", 2);
        madvise(m, (size_t)size, MADV_SEQUENTIAL);
        free(rd.buf);
        rd.buf = (char *)m; /* the window starts empty at the map: never a null base for pointer arithmetic */
        rd.map = m;
        rd.map_size = size;
        rd.src = NULL;
        rd.forecast_at = FORECAST_AT;
        pa = par_start(&rd, o);
    }
    /* gzip: in streamed parts when more than one thread may read (rc 1: one reader) */
    int rc = m == MAP_FAILED && path && source_is_gzip(src) ? gz_read(&rd, o, err) : 1;
    if (rc == 1) rc = run(&rd, ST_START, err);
    drop_window(&rd);
    if (pa) {
        if (!rc && rd.stopped) pc_trace_sort(rd.t);
        rc = par_finish(pa, &rd, rc, err);
    }
    show_progress(&rd, 1);
    rc = finish(&rd, out, err, rc);
    if (m != MAP_FAILED) {
        sigbus_unwatch(guard);
        munmap(m, (size_t)size);
    }
    return rc;
}
