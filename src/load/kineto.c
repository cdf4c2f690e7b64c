/* kineto.c - streaming reader of Chrome trace JSON as PyTorch's profiler
 * (Kineto) writes it, and as perfcard's own capture writes it.
 *
 * How it reads: a window of the input is held in memory (a plain file is
 * mapped and the window slides over it; see "parts" below for the parallel
 * reading of large plain files); the document is
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
    uint64_t size = r->map ? r->map_size : source_file_size(r->src), pos = r->map ? r->base + r->len : source_file_pos(r->src);
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
    if (!r->map || r->base + r->len <= r->dropped) return;
    spill_release((char *)r->map + r->dropped, r->base + r->len - r->dropped);
    r->dropped = r->base + r->len;
}

/* Extends the window: drops consumed bytes, grows when a unit fills it,
 * reads more. Returns 0, or a PC_E* code. */
static int refill(reader *r, pc_err *err) {
    if (r->abort && atomic_load_explicit(r->abort, memory_order_relaxed))
        return PC_ERRF(err, PC_EINPUT, "reading of this part was abandoned");
    if (r->map) return refill_map(r, err);
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->base += r->pos;
        r->pos = 0;
    }
    if (r->len == r->cap) {
        int rc = grow(r, err);
        if (rc) return rc;
        r->buf = xrealloc(r->buf, r->cap);
    }
    ssize_t n;
    if (r->src) {
        n = source_read(r->src, r->buf + r->len, r->cap - r->len, err);
        if (n < 0) return (int)n;
        show_progress(r, 0);
    } else {
        n = (ssize_t)(r->memlen - r->mempos < r->cap - r->len ? r->memlen - r->mempos : r->cap - r->len);
        memcpy(r->buf + r->len, r->mem + r->mempos, (size_t)n);
        r->mempos += (size_t)n;
    }
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
        if (rd->par && par_at(rd, rd->base + (uint64_t)(c->p - rd->buf))) return J_STOP;
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
            if (rd->par) par_at(rd, rd->base + rd->pos);
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
            if (st == ST_START && k == rd->len)
                return PC_ERRF_AT(err, PC_EINPUT, rd->base + rd->len, "empty input: no JSON document");
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
static int par_at(reader *rd, uint64_t at) {
    par *pa = rd->par;
    while (rd->target < pa->n && at > pa->p[rd->target].start) {
        if (proved(rd)) atomic_store(&pa->p[rd->target].abort, 1);
        rd->target++;
    }
    return rd->target < pa->n && at == pa->p[rd->target].start;
}

/* rd stopped at its target's start: proved when rd is */
static void par_stopped(reader *rd) {
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
    int rc = run(&rd, ST_START, err);
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
