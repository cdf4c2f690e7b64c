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
 */
#include "../util/sigbus.h"
#include "load.h"
#include "jsontok.h"
#include "source.h"
#include "../util/xalloc.h"
#include "../util/spill.h"
#include <cjson/cJSON.h>
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
    int progress;
    const char *path;
    double last_progress;
    /* parallel reading of a plain file (see "parts" below) */
    struct par *par;
    int target;             /* the next part whose start this reader may reach */
    int stopped;            /* it reached that start exactly, at an event */
    atomic_int *abort;      /* set when this reader's part proved not to start at an event */
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
    int64_t dev_type, dev_id, mem_bytes, total_alloc, total_res;
    double bps, wps, occ;
    uint32_t grid[3], block[3];
    jstr dims, types, concrete;
    int nctr;
    jstr ctr_key[MAX_CTR];
    double ctr_val[MAX_CTR];
} evtmp;

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
    if (final) fprintf(stderr, "\r\033[K");
    else fprintf(stderr, "\rloading %s: %3.0f%% (%.0f MB read)", r->path, size ? 100.0 * (double)pos / (double)size : 0.0,
                 (double)(r->base + r->len) / 1e6);
    fflush(stderr);
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
 * first FORECAST_AT bytes, the bytes of events held per byte read (by all
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
    atomic_store_explicit(&r->held, pc_trace_event_bytes(r->t), memory_order_relaxed);
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

/* ---------- event fields ---------- */

static int parse_dims3(jcur *c, uint32_t out[3]) {
    int r;
    if ((r = j_ws(c))) return r;
    if (*c->p != '[') return j_skip(c, 0);
    c->p++;
    for (int i = 0;; i++) {
        if ((r = j_ws(c))) return r;
        if (*c->p == ']') { c->p++; return J_OK; }
        if (i > 0) {
            if (*c->p != ',') { c->why = "expected ',' or ']'"; return J_ERR; }
            c->p++;
            if ((r = j_ws(c))) return r;
        }
        int64_t v;
        if (*c->p == '"' || *c->p == '[' || *c->p == '{') { if ((r = j_skip(c, 1))) return r; continue; }
        if ((r = j_int(c, &v))) return r;
        if (i < 3) out[i] = v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    }
}

/* A raw JSON value as compact text (whitespace outside strings removed),
 * written to the scratch area. */
static int capture_compact(jcur *c, jstr *out) {
    int r = j_ws(c);
    if (r) return r;
    const char *start = c->p;
    if ((r = j_skip(c, 1))) return r;
    char *d0 = c->scratch + c->scratch_used, *d = d0;
    int in_str = 0;
    for (const char *p = start; p < c->p; p++) {
        char ch = *p;
        if (in_str) {
            *d++ = ch;
            if (ch == '\\' && p + 1 < c->p) *d++ = *++p;
            else if (ch == '"') in_str = 0;
        } else if (ch == '"') { in_str = 1; *d++ = ch; }
        else if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') *d++ = ch;
    }
    out->s = d0;
    out->n = (size_t)(d - d0);
    c->scratch_used += out->n;
    return J_OK;
}

static int num_or_skip(jcur *c, int64_t *v) {
    int r = j_ws(c);
    if (r) return r;
    char ch = *c->p;
    if (ch == '-' || (ch >= '0' && ch <= '9')) return j_int(c, v);
    return j_skip(c, 1);
}

static int dbl_or_skip(jcur *c, double *v) {
    int r = j_ws(c);
    if (r) return r;
    char ch = *c->p;
    if (ch == '-' || (ch >= '0' && ch <= '9')) return j_double(c, v);
    return j_skip(c, 1);
}

static int parse_args(jcur *c, evtmp *e) {
    int r;
    if ((r = j_ws(c))) return r;
    if (*c->p != '{') return j_skip(c, 1);
    c->p++;
    if ((r = j_ws(c))) return r;
    if (*c->p == '}') { c->p++; return J_OK; }
    for (;;) {
        jstr k;
        if ((r = j_ws(c))) return r;
        if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
        if ((r = j_string(c, &k))) return r;
        if ((r = j_expect(c, ':'))) return r;
        if (e->ph == 'C') {
            double v = 0;
            if ((r = j_ws(c))) return r;
            char ch = *c->p;
            if ((ch == '-' || (ch >= '0' && ch <= '9')) && e->nctr < MAX_CTR) {
                if ((r = j_double(c, &v))) return r;
                e->ctr_key[e->nctr] = k;
                e->ctr_val[e->nctr++] = v;
            } else if ((r = j_skip(c, 1))) return r;
        } else switch (k.n) {
        case 4:
            if (J_EQ(k, "grid")) r = parse_dims3(c, e->grid);
            else r = j_skip(c, 1);
            break;
        case 5:
            if (J_EQ(k, "block")) r = parse_dims3(c, e->block);
            else if (J_EQ(k, "bytes") || J_EQ(k, "Bytes")) r = num_or_skip(c, k.s[0] == 'B' ? &e->mem_bytes : &e->bytes);
            else r = j_skip(c, 1);
            break;
        case 6:
            if (J_EQ(k, "device")) r = num_or_skip(c, &e->device);
            else if (J_EQ(k, "stream")) r = num_or_skip(c, &e->stream);
            else r = j_skip(c, 1);
            break;
        case 9:
            if (J_EQ(k, "Device Id")) r = num_or_skip(c, &e->dev_id);
            else r = j_skip(c, 1);
            break;
        case 10:
            if (J_EQ(k, "Input Dims")) r = capture_compact(c, &e->dims);
            else if (J_EQ(k, "Input type")) r = capture_compact(c, &e->types);
            else r = j_skip(c, 1);
            break;
        case 11:
            if (J_EQ(k, "correlation")) r = num_or_skip(c, &e->corr);
            else if (J_EQ(k, "External id") || J_EQ(k, "external id")) r = num_or_skip(c, &e->ext_id);
            else if (J_EQ(k, "Device Type")) r = num_or_skip(c, &e->dev_type);
            else r = j_skip(c, 1);
            break;
        case 12:
            if (J_EQ(k, "warps per SM")) r = dbl_or_skip(c, &e->wps);
            else r = j_skip(c, 1);
            break;
        case 13:
            if (J_EQ(k, "shared memory")) r = num_or_skip(c, &e->smem);
            else if (J_EQ(k, "blocks per SM")) r = dbl_or_skip(c, &e->bps);
            else if (J_EQ(k, "Fwd thread id")) r = num_or_skip(c, &e->fwd_tid);
            else r = j_skip(c, 1);
            break;
        case 14:
            if (J_EQ(k, "Total Reserved")) r = num_or_skip(c, &e->total_res);
            else r = j_skip(c, 1);
            break;
        case 15:
            if (J_EQ(k, "Concrete Inputs")) r = capture_compact(c, &e->concrete);
            else if (J_EQ(k, "Sequence number")) r = num_or_skip(c, &e->seq);
            else if (J_EQ(k, "Total Allocated")) r = num_or_skip(c, &e->total_alloc);
            else r = j_skip(c, 1);
            break;
        case 20:
            if (J_EQ(k, "registers per thread")) r = num_or_skip(c, &e->regs);
            else r = j_skip(c, 1);
            break;
        case 25:
            if (J_EQ(k, "est. achieved occupancy %")) r = dbl_or_skip(c, &e->occ);
            else r = j_skip(c, 1);
            break;
        default: r = j_skip(c, 1);
        }
        if (r) return r;
        if ((r = j_ws(c))) return r;
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == '}') { c->p++; return J_OK; }
        c->why = "expected ',' or '}'";
        return J_ERR;
    }
}

static int parse_event(jcur *c, evtmp *e) {
    int r;
    /* field by field: the counter arrays are large and only nctr matters */
    e->ph = 0;
    e->cat = e->name = e->tid_s = e->dims = e->types = e->concrete = (jstr){0};
    e->has_ts = e->has_dur = 0;
    e->ts = e->dur = e->pid = e->tid = 0;
    e->pid_named = e->tid_named = 0;
    memset(e->grid, 0, sizeof e->grid);
    memset(e->block, 0, sizeof e->block);
    e->nctr = 0;
    e->device = e->stream = e->corr = e->ext_id = e->regs = e->smem = e->bytes = e->seq = e->fwd_tid = PC_NONE;
    e->dev_type = e->dev_id = e->mem_bytes = e->total_alloc = e->total_res = PC_NONE;
    e->bps = e->wps = e->occ = -1;
    if ((r = j_ws(c))) return r;
    if (*c->p != '{') {
        e->ph = 0; /* not an object: skipped and counted as unknown */
        return j_skip(c, 0);
    }
    c->p++;
    if ((r = j_ws(c))) return r;
    if (*c->p == '}') { c->p++; return J_OK; }
    for (;;) {
        jstr k, s;
        int named;
        if ((r = j_ws(c))) return r;
        if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
        if ((r = j_string(c, &k))) return r;
        if ((r = j_expect(c, ':'))) return r;
        if ((r = j_ws(c))) return r;
        if (k.n == 2 && k.s[0] == 'p' && k.s[1] == 'h') {
            if (*c->p != '"') r = j_skip(c, 1);
            else if ((r = j_string(c, &s)) == J_OK) e->ph = s.n ? s.s[0] : '?';
        } else if (k.n == 2 && k.s[0] == 't' && k.s[1] == 's') {
            if ((r = j_fixed3(c, &e->ts)) == J_OK) e->has_ts = 1;
            else if (r == J_ERR && (*c->p == '"' || *c->p == 'n')) r = j_skip(c, 1); /* "ts": null */
        } else if (J_EQ(k, "dur")) {
            if ((r = j_fixed3(c, &e->dur)) == J_OK) e->has_dur = 1;
            else if (r == J_ERR && (*c->p == '"' || *c->p == 'n')) r = j_skip(c, 1);
        } else if (J_EQ(k, "cat")) {
            r = *c->p == '"' ? j_string(c, &e->cat) : j_skip(c, 1);
        } else if (J_EQ(k, "name")) {
            r = *c->p == '"' ? j_string(c, &e->name) : j_skip(c, 1);
        } else if (J_EQ(k, "pid")) {
            if (*c->p == '"' || *c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
                r = j_id(c, &e->pid, &s, &named);
                e->pid_named = named;
            } else r = j_skip(c, 1);
        } else if (J_EQ(k, "tid")) {
            if (*c->p == '"' || *c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
                r = j_id(c, &e->tid, &e->tid_s, &named);
                e->tid_named = named;
            } else r = j_skip(c, 1);
        } else if (J_EQ(k, "args")) {
            r = parse_args(c, e);
        } else {
            r = j_skip(c, 1);
        }
        if (r) return r;
        if ((r = j_ws(c))) return r;
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == '}') { c->p++; return J_OK; }
        c->why = "expected ',' or '}' in an event";
        return J_ERR;
    }
}

/* ---------- committing events to the model ---------- */

enum { C_UNKNOWN, C_KERNEL, C_MEMCPY, C_MEMSET, C_GPU_ANNOT, C_GPU_SYNC, C_CPU_OP, C_USER_ANNOT,
       C_PYFUNC, C_RUNTIME, C_DRIVER, C_DATALOADER, C_MEMORY, C_META, C_FLOW };

static int classify(jstr cat, int *is2021) {
    *is2021 = 0;
    switch (cat.n) {
    case 5:
        if (J_EQ(cat, "Trace")) return C_META;
        if (J_EQ(cat, "async")) return C_FLOW;
        break;
    case 4: if (J_EQ(cat, "ac2g")) return C_FLOW; break;
    case 6:
        if (J_EQ(cat, "kernel")) return C_KERNEL;
        if (J_EQ(cat, "Kernel")) return *is2021 = 1, C_KERNEL;
        if (J_EQ(cat, "cpu_op")) return C_CPU_OP;
        if (J_EQ(cat, "Memcpy")) return *is2021 = 1, C_MEMCPY;
        if (J_EQ(cat, "Memset")) return *is2021 = 1, C_MEMSET;
        break;
    case 7:
        if (J_EQ(cat, "Runtime")) return *is2021 = 1, C_RUNTIME;
        if (J_EQ(cat, "fwdbwd")) return C_FLOW;
        break;
    case 8:
        if (J_EQ(cat, "Operator")) return *is2021 = 1, C_CPU_OP;
        break;
    case 9: if (J_EQ(cat, "cuda_sync")) return C_GPU_SYNC; break;
    case 10:
        if (J_EQ(cat, "gpu_memcpy")) return C_MEMCPY;
        if (J_EQ(cat, "gpu_memset")) return C_MEMSET;
        if (J_EQ(cat, "DataLoader")) return *is2021 = 1, C_DATALOADER;
        break;
    case 11: if (J_EQ(cat, "cuda_driver")) return C_DRIVER; break;
    case 12: if (J_EQ(cat, "cuda_runtime")) return C_RUNTIME; break;
    case 15:
        if (J_EQ(cat, "user_annotation")) return C_USER_ANNOT;
        if (J_EQ(cat, "python_function")) return C_PYFUNC;
        break;
    case 17: if (J_EQ(cat, "cpu_instant_event")) return C_MEMORY; break;
    case 19: if (J_EQ(cat, "gpu_user_annotation")) return C_GPU_ANNOT; break;
    }
    return C_UNKNOWN;
}

static uint8_t mem_attr(const char *s, size_t n) {
    if (n >= 8 && !memcmp(s, "Pageable", 8)) return MEM_PAGEABLE;
    if (n >= 6 && !memcmp(s, "Pinned", 6)) return MEM_PINNED;
    if (n >= 6 && !memcmp(s, "Device", 6)) return MEM_DEVICE;
    if (n >= 7 && !memcmp(s, "Managed", 7)) return MEM_MANAGED;
    return MEM_UNKNOWN;
}

/* "Memcpy HtoD (Pageable -> Device)" */
static void copy_kind(pc_gpu_event *g, jstr name) {
    const char *s = name.s;
    size_t n = name.n;
    if (!n) return;
    const char *k = memmem(s, n, "to", 2);
    if (k && k >= s + 1 && k + 3 <= s + n) {
        char a = k[-1], b = k[2];
        if (a == 'H' && b == 'D') g->copy_kind = COPY_HTOD;
        else if (a == 'D' && b == 'H') g->copy_kind = COPY_DTOH;
        else if (a == 'D' && b == 'D') g->copy_kind = COPY_DTOD;
        else if (a == 'H' && b == 'H') g->copy_kind = COPY_HTOH;
        else if (a == 'P' && b == 'P') g->copy_kind = COPY_PTOP;
    }
    const char *lp = memchr(s, '(', n);
    if (lp) {
        size_t rest = n - (size_t)(lp + 1 - s);
        g->src_mem = mem_attr(lp + 1, rest);
        const char *arrow = memmem(lp, rest, "-> ", 3);
        if (arrow) g->dst_mem = mem_attr(arrow + 3, n - (size_t)(arrow + 3 - s));
    }
}

static int is_annotation_name(jstr n) {
    static const char *const pfx[] = {"ProfilerStep#", "enumerate(DataLoader)", "Optimizer.step#", "Optimizer.zero_grad#", NULL};
    for (int i = 0; pfx[i]; i++) {
        size_t l = strlen(pfx[i]);
        if (n.n >= l && !memcmp(n.s, pfx[i], l)) return 1;
    }
    return 0;
}

static int64_t named_id(pc_trace *t, jstr s) {
    /* non-numeric pid/tid: a stable negative id from the string table */
    return -(int64_t)strtab_intern(&t->strs, s.s, s.n);
}

static void commit(reader *rd, evtmp *e) {
    pc_trace *t = rd->t;
    t->stats.events++;
    char ph = e->ph;
    if (ph == 'M') { t->stats.metadata++; return; }
    if (ph == 's' || ph == 'f' || ph == 't') { t->stats.flows++; return; }
    /* times and sizes are checked once, here (PC_TIME_LIMIT) */
    const int64_t lim = PC_TIME_LIMIT;
    if ((e->has_ts && (e->ts <= -lim || e->ts >= lim)) || (e->has_dur && e->dur >= lim)) { t->stats.bad_fields++; return; }
    /* sizes likewise: bytes of a copy within [0, 2^62), a memory event's change within +-2^62 */
    if ((e->bytes != PC_NONE && (e->bytes < 0 || e->bytes >= lim)) || e->mem_bytes <= -lim || e->mem_bytes >= lim) {
        t->stats.bad_fields++;
        return;
    }
    if (e->has_dur && e->dur >= 0 && !pc_trace_take_dur(t, e->dur)) return;
    if (e->total_alloc < PC_NONE || e->total_alloc >= lim) e->total_alloc = PC_NONE;
    if (e->total_res < PC_NONE || e->total_res >= lim) e->total_res = PC_NONE;
    if (ph == 'C') {
        if (!e->has_ts) { t->stats.bad_fields++; return; }
        uint32_t name = strtab_intern(&t->strs, e->name.s, e->name.n);
        for (int i = 0; i < e->nctr; i++) {
            pc_counter *k = pc_trace_add_counter(t);
            k->ts = e->ts;
            k->value = e->ctr_val[i];
            k->name = name;
            k->series = strtab_intern(&t->strs, e->ctr_key[i].s, e->ctr_key[i].n);
            k->pid = e->pid;
        }
        return;
    }
    int is2021;
    int cls = classify(e->cat, &is2021);
    if (ph == 'i' || ph == 'I') {
        if (J_EQ(e->name, "[memory]") && e->has_ts) {
            pc_mem_event *m = pc_trace_add_mem(t);
            m->ts = e->ts;
            m->bytes = e->mem_bytes == PC_NONE ? 0 : e->mem_bytes;
            m->total_allocated = e->total_alloc;
            m->total_reserved = e->total_res;
            m->tid = e->tid;
            m->device_type = (int32_t)(e->dev_type == PC_NONE ? 0 : e->dev_type);
            m->device_id = (int32_t)e->dev_id;
            return;
        }
        t->stats.metadata++;
        return;
    }
    if (ph == 0 || (ph != 'X')) {
        if (cls == C_FLOW) t->stats.flows++;
        else if (cls == C_META) t->stats.metadata++;
        else pc_trace_note_unknown(t, strtab_intern(&t->strs, e->cat.s, e->cat.n));
        return;
    }
    if (cls == C_META) {
        /* "PyTorch Profiler (0)": the window the profiler recorded */
        if (e->has_ts && e->has_dur && e->dur > 0) {
            if (!t->prof_end || e->ts < t->prof_start) t->prof_start = e->ts;
            if (e->ts + e->dur > t->prof_end) t->prof_end = e->ts + e->dur;
        }
        t->stats.metadata++;
        return;
    }
    if (cls == C_FLOW) { t->stats.flows++; return; }
    if (cls == C_UNKNOWN || cls == C_MEMORY) {
        pc_trace_note_unknown(t, strtab_intern(&t->strs, e->cat.s, e->cat.n));
        return;
    }
    if (!e->has_ts || (e->has_dur && e->dur < 0)) { t->stats.bad_fields++; return; }
    if (is2021) t->schema_2021 = 1;
    uint32_t name = strtab_intern(&t->strs, e->name.s, e->name.n);
    if (cls <= C_GPU_SYNC) {
        pc_gpu_event *g = pc_trace_add_gpu(t);
        g->ts = e->ts;
        g->dur = e->has_dur ? e->dur : 0;
        g->name = name;
        g->kind = cls == C_KERNEL ? GPU_KERNEL : cls == C_MEMCPY ? GPU_MEMCPY : cls == C_MEMSET ? GPU_MEMSET
                  : cls == C_GPU_ANNOT ? GPU_ANNOT : GPU_SYNC;
        g->corr = e->corr;
        g->ext_id = e->ext_id;
        g->bytes = e->bytes;
        g->device = (int32_t)(e->device != PC_NONE ? e->device : e->pid_named ? PC_NONE : e->pid);
        g->stream = (int32_t)(e->stream != PC_NONE ? e->stream : e->tid_named ? PC_NONE : e->tid);
        memcpy(g->grid, e->grid, sizeof g->grid);
        for (int q = 0; q < 3; q++) g->block[q] = e->block[q] > 65535 ? 65535 : (uint16_t)e->block[q];
        g->regs = e->regs >= 0 && e->regs < 32767 ? (int16_t)e->regs : PC_NONE;
        g->smem = (int32_t)e->smem;
        g->blocks_per_sm = (float)e->bps;
        g->occupancy = (float)e->occ;
        if (g->kind == GPU_MEMCPY || g->kind == GPU_MEMSET) copy_kind(g, e->name);
        return;
    }
    pc_cpu_event *c = pc_trace_add_cpu(t);
    c->ts = e->ts;
    c->dur = e->has_dur ? e->dur : 0;
    c->name = name;
    c->pid = e->pid_named ? PC_NONE : (int32_t)e->pid;
    c->tid = e->tid_named ? (int32_t)named_id(t, e->tid_s) : (int32_t)e->tid;
    c->ext_id = e->ext_id;
    c->corr = e->corr;
    c->seq = e->seq >= INT32_MIN && e->seq <= INT32_MAX ? (int32_t)e->seq : PC_NONE;
    c->fwd_tid = e->fwd_tid >= INT16_MIN && e->fwd_tid <= INT16_MAX ? (int16_t)e->fwd_tid : PC_NONE;
    if (e->dims.n) c->input_dims = strtab_intern(&t->strs, e->dims.s, e->dims.n);
    if (e->types.n) c->input_types = strtab_intern(&t->strs, e->types.s, e->types.n);
    if (e->concrete.n) c->concrete = strtab_intern(&t->strs, e->concrete.s, e->concrete.n);
    /* the 2021 schema files record_function ranges as Operators too */
    if (cls == C_CPU_OP && is2021 && is_annotation_name(e->name)) cls = C_USER_ANNOT;
    c->kind = cls == C_CPU_OP ? CPU_OP : cls == C_USER_ANNOT ? CPU_USER_ANNOT : cls == C_PYFUNC ? CPU_PYFUNC
              : cls == C_RUNTIME ? CPU_RUNTIME : cls == C_DRIVER ? CPU_DRIVER : CPU_DATALOADER;
}

/* ---------- top-level values through cJSON ---------- */

/* an int from the trace: dflt when missing, not finite or outside [lo, INT_MAX] */
static int jint_in(const cJSON *o, const char *k, int dflt, double lo) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= 2147483647.0)) return dflt;
    return (int)v->valuedouble;
}
static int jint(const cJSON *o, const char *k, int dflt) { return jint_in(o, k, dflt, -2147483648.0); }
/* a count or size: never negative */
static int jcount(const cJSON *o, const char *k, int dflt) { return jint_in(o, k, dflt, 0); }

static void read_devices(pc_trace *t, const cJSON *arr) {
    const cJSON *d;
    cJSON_ArrayForEach(d, arr) {
        int id = jint(d, "id", (int)t->ndev);
        if (!cJSON_IsObject(d) || id < 0) { t->stats.bad_fields++; continue; } /* device ids are never negative */
        pc_device *dev = pc_trace_device(t, id);
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
        if (cJSON_IsString(name)) dev->name = strtab_intern(&t->strs, name->valuestring, strlen(name->valuestring));
        const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "totalGlobalMem");
        if (cJSON_IsNumber(mem) && mem->valuedouble >= 0 && mem->valuedouble < PC_TIME_LIMIT_D) dev->total_mem = (int64_t)mem->valuedouble;
        /* deviceProperties, and the older computeProperties spellings; counts are never negative */
        dev->cc_major = jcount(d, "computeMajor", jcount(d, "major", 0));
        dev->cc_minor = jcount(d, "computeMinor", jcount(d, "minor", 0));
        dev->num_sms = jcount(d, "numSms", jcount(d, "multiProcessorCount", 0));
        dev->max_threads_per_sm = jcount(d, "maxThreadsPerMultiprocessor", jcount(d, "maxThreadsPerMultiProcessor", 0));
        dev->max_threads_per_block = jcount(d, "maxThreadsPerBlock", 0);
        dev->regs_per_sm = jcount(d, "regsPerMultiprocessor", 0);
        dev->regs_per_block = jcount(d, "regsPerBlock", 0);
        dev->smem_per_sm = jcount(d, "sharedMemPerMultiprocessor", 0);
        dev->smem_per_block = jcount(d, "sharedMemPerBlock", 0);
        dev->warp_size = jcount(d, "warpSize", 32);
        if (dev->warp_size <= 0) dev->warp_size = 32;
    }
}

static void read_top_value(pc_trace *t, jstr key, const char *v, size_t n) {
    int devs = J_EQ(key, "deviceProperties") || J_EQ(key, "computeProperties");
    int dist = J_EQ(key, "distributedInfo");
    if (!devs && !dist) return;
    cJSON *j = cJSON_ParseWithLength(v, n);
    if (!j) return;
    if (devs && cJSON_IsArray(j)) read_devices(t, j);
    if (dist && cJSON_IsObject(j)) {
        /* a rank is >= 0, a world at least 1: anything else leaves them unknown */
        int rank = jcount(j, "rank", PC_NONE), world = jcount(j, "world_size", PC_NONE);
        if (rank >= 0) t->rank = rank;
        if (world >= 1) t->world_size = world;
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "backend");
        if (cJSON_IsString(x)) t->backend = strtab_intern(&t->strs, x->valuestring, strlen(x->valuestring));
    }
    cJSON_Delete(j);
}

/* ---------- the unit parser ---------- */

static int par_at(reader *rd, uint64_t at);

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
            *next = ST_EV_FIRST;
            return J_OK;
        }
        const char *v = c->p;
        if ((r = j_skip(c, 0))) return r;
        read_top_value(rd->t, key, v, (size_t)(c->p - v));
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
        if ((r = parse_event(c, &e))) return r;
        if (e.ph == 0 && !e.name.n && !e.cat.n) { rd->t->stats.events++; pc_trace_note_unknown(rd->t, 0); }
        else commit(rd, &e);
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
            rd->pos = (size_t)(c.p - rd->buf);
            rd->stopped = 1;
            return 0;
        }
        if (r == J_ERR) {
            uint64_t off = rd->base + (uint64_t)(c.p - rd->buf);
            return PC_ERRF_AT(err, PC_EINPUT, off, "%s at byte %llu", c.why ? c.why : "syntax error",
                              (unsigned long long)off);
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

static int finish(reader *rd, pc_trace **out, pc_err *err, int rc) {
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
 * offsets. Each cut is moved forward to a line that starts with '{' after a
 * line that ends with ',' (how Kineto and perfcard write events): JSON strings
 * cannot hold a raw newline, so such a '{' is very likely an event of
 * traceEvents. Part k's reader starts there as if at an event, into a trace of
 * its own. Nothing is trusted until checked: the reader of part k-1 goes on
 * until it is about to parse an event that begins exactly at part k's start
 * (then it stops, and part k's result is used), or until it passes that offset
 * anywhere else (then part k is abandoned and part k-1's reader reads on
 * through it). So the result is always the serial reader's; a wrong guess
 * costs time, never correctness. Errors and truncation are those of the
 * reader that read the bytes, with offsets in the file. */

enum { PAR_MAX = 16, PAR_PROBE = 1 << 20 };

typedef struct part {
    uint64_t start;
    reader rd;
    pc_err err;
    int rc, started;
    atomic_int abort;
    pthread_t th;
} part;

typedef struct par {
    const char *path;
    int n;           /* parts; p[0] is the main reader's */
    part p[PAR_MAX];
} par;

static void forecast(reader *r) {
    uint64_t read = r->base - r->start, held = pc_trace_event_bytes(r->t);
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

/* rd is at absolute offset `at`, before an event (or, from run(), after a
 * unit). Parts whose start it has gone past are abandoned; returns 1 when
 * `at` is the start of its target part. */
static int par_at(reader *rd, uint64_t at) {
    par *pa = rd->par;
    while (rd->target < pa->n && at > pa->p[rd->target].start) {
        atomic_store(&pa->p[rd->target].abort, 1);
        rd->target++;
    }
    return rd->target < pa->n && at == pa->p[rd->target].start;
}

/* The first line start at or after `from` that begins (after blanks) with
 * '{' and follows a line ending in ','; 0 when there is none nearby. */
static uint64_t find_cut(const char *m, uint64_t size, uint64_t from) {
    const char *b = m + from;
    ssize_t n = (ssize_t)(size - from < PAR_PROBE ? size - from : PAR_PROBE);
    uint64_t cut = 0;
    for (ssize_t i = 1; i < n && !cut; i++) {
        if (b[i - 1] != '\n') continue;
        ssize_t j = i;
        while (j < n && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r')) j++;
        if (j >= n || b[j] != '{') continue;
        ssize_t k = i - 2;
        while (k >= 0 && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r')) k--;
        if (k >= 0 && b[k] == ',') cut = from + (uint64_t)j;
    }
    return cut;
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
    if (n < 2) return NULL;
    const char *m = main_rd->map;
    /* the first byte that is not blank says whether the document is a bare array */
    int top_array = 0;
    for (uint64_t i = 0; i < size && i < 4096; i++)
        if (m[i] != ' ' && m[i] != '\n' && m[i] != '\r' && m[i] != '\t') { top_array = m[i] == '['; break; }
    par *pa = xcalloc(1, sizeof *pa);
    pa->path = main_rd->path;
    pa->n = 1;
    for (int k = 1; k < n; k++) {
        uint64_t cut = find_cut(m, size, size / (uint64_t)n * (uint64_t)k);
        if (cut && cut > pa->p[pa->n - 1].start) pa->p[pa->n++].start = cut;
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
        atomic_init(&pt->abort, 0);
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

int pc_load_kineto_source(pc_source *src, const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err);
int pc_load_kineto_source(pc_source *src, const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err) {
    reader rd;
    reader_init(&rd, o ? o->max_value : 0);
    rd.src = src;
    rd.path = path;
    rd.progress = o && o->progress;
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
