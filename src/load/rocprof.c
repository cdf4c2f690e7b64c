/* rocprof.c - streaming reader of rocprofv3's JSON output (see rocprof.h).
 *
 * Layout, as rocprofiler-sdk's tool writes it (lib/output/generateJSON.cpp):
 *   {"rocprofiler-sdk-tool": [ {                       one object per process
 *      "metadata": {"pid", "init_time", "fini_time", "command", "config"},
 *      "agents": [{"id": {"handle"}, "type" (1 CPU, 2 GPU), "name" (gfx942),
 *                  "product_name", "cu_count", "wave_front_size",
 *                  "mem_banks": [{"size_in_bytes"}], "gpu_index"}, ...],
 *      "strings": {"buffer_records": [{"kind", "operations": [names]}, ...]
 *                     (the position in the array is the record's `kind`,
 *                      the position in operations its `operation`),
 *                  "marker_api": [{"key": correlation id, "value": text}]},
 *      "kernel_symbols": [{"kernel_id", "formatted_kernel_name",
 *                          "demangled_kernel_name", "kernel_name"}, ...],
 *      "buffer_records": {"kernel_dispatch": [...], "hip_api": [...],
 *                         "hsa_api", "marker_api", "rccl_api", "memory_copy",
 *                         "memory_allocation", "scratch_memory", ...} } ]}
 * Records carry start_timestamp and end_timestamp (ns, the host's monotonic
 * clock), correlation_id {internal, external} and thread_id.
 *
 * What they become:
 *   kernel_dispatch  GPU kernel: name from kernel_symbols (formatted, else
 *                    demangled, else mangled name without ".kd"), device the
 *                    agent's GPU ordinal, stream the HIP stream (stream_id,
 *                    else the queue), grid in workgroups (grid_size counts
 *                    work-items), block the workgroup, smem its LDS bytes,
 *                    correlation id the internal one (the HIP call's)
 *   hip_api          CPU runtime call, named by strings.buffer_records
 *   hsa_api          CPU driver call (the layer below HIP)
 *   marker_api       roctx ranges: operators with the NVTX flag (as Nsight
 *                    Systems' NVTX ranges), ProfilerStep#N an annotation;
 *                    a mark (start == end) counts as metadata
 *   rccl_api         operators (ncclAllReduce ...): the launches they make
 *                    nest in them
 *   memory_copy      GPU memcpy with its direction and bytes
 * Other record arrays are counted as unread categories (run info).
 *
 * Streaming: the input goes through a window (at most max_value bytes)
 * and a stack of frames, one per open container; each step reads one
 * member or element: it opens a container the reader descends into (the
 * document, the process array, a process, its strings and buffer_records
 * objects, the record arrays, and any container it skips), or parses one
 * value whole (a record, a table entry, a scalar). A step that runs out of
 * window is parsed again once the window has grown: steps change nothing
 * until they succeed. Events go to the trace (spilled arrays); the tables
 * kept are the names by kernel id, by correlation id (roctx text) and by
 * operation, and the agents. Names of records read before their table (a
 * document whose keys were reordered) are resolved when the process ends.
 */
#include "rocprof.h"
#include "../util/jsontok.h"
#include "../util/hmap.h"
#include "../util/spill.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum role { R_TOP, R_PROCS, R_PROC, R_STRINGS, R_BUFREC, R_RECS, R_AGENTS, R_KSYMS, R_OPNAMES, R_MARKMSG, R_SKIP };
enum rec { REC_KERNEL, REC_HIP, REC_HSA, REC_MARKER, REC_RCCL, REC_COPY, REC_OTHER };
enum { MAX_FRAMES = 64 };

typedef struct frame {
    uint8_t role, rec, obj, first; /* obj: an object ('{') else an array */
    uint32_t cat;                  /* R_RECS of REC_OTHER: the category's name (strtab id) */
    uint64_t at;                   /* the container's first byte */
} frame;

typedef struct agent { int64_t handle; int gpu; int ordinal; } agent;
typedef struct opkind { char **name; uint32_t *id; size_t n; } opkind;
/* an event named after its table was read: array (0 gpu, 1 cpu), index, what names it */
typedef struct defer { uint64_t idx; int64_t key; uint32_t kind; int32_t src; uint8_t cpu, what; } defer;
enum { D_KERNEL, D_OP, D_MARKER, D_COPY }; /* D_COPY: a copy's direction, src its source device */

typedef struct rp {
    pc_source *src;
    const char *mem;
    size_t memlen, mempos;
    char *buf, *scratch;
    size_t cap, len, pos, max_value;
    uint64_t base;
    int eof;
    pc_trace *t;
    frame st[MAX_FRAMES];
    int depth, saw_tool;
    /* the process being read */
    int64_t pid;
    uint64_t proc_at;
    hmap ksym, marks;
    int have_ksyms, have_ops, have_marks;
    opkind *ops;
    size_t nops;
    agent *ag;
    size_t nag, cap_ag;
    int ngpu;
    defer *def;
    size_t ndef, cap_def;
    /* progress, as pc_load_opts says: about every 0.25 s, and once at the end */
    void (*progress)(void *ctx, const char *path, uint64_t done, uint64_t total, int final);
    void *progress_ctx;
    const char *path;
    double last_progress;
} rp;

/* ---------- records: one JSON object's leaves by dotted path ---------- */

typedef struct fields {
    int64_t start, end, corr, ext, tid, kind, op, agent, queue, stream, kid, lds, bytes, src_ag, dst_ag;
    int64_t wg[3], grid[3];
    unsigned have; /* F_* bits */
    int bad;       /* a field we read had the wrong type or range */
    jstr name[3];  /* kernel symbols: formatted, demangled, kernel_name; agents: product_name, name (0, 1) */
    int64_t type, cu, wave, mem, gpu_index, pid;
    jstr text;                      /* marker message value */
    jstr *opv; size_t nopv, capv;   /* operations[] of a strings.buffer_records entry */
} fields;
enum { F_START = 1, F_END = 2, F_CORR = 4, F_KIND = 8, F_OP = 16, F_AGENT = 32, F_KID = 64, F_STREAM = 128, F_QUEUE = 256,
       F_TYPE = 512, F_GPUIDX = 1024, F_KEY = 2048, F_TEXT = 4096, F_LDS = 8192, F_BYTES = 16384, F_PID = 32768 };

/* the integer fields a record may have: path, slot, bit */
typedef struct ifield { const char *path; size_t off; unsigned bit; } ifield;
#define IF(p, m, b) {p, offsetof(fields, m), b}
static const ifield ints[] = {
    IF("start_timestamp", start, F_START), IF("end_timestamp", end, F_END), IF("correlation_id.internal", corr, F_CORR),
    IF("correlation_id.external", ext, 0), IF("thread_id", tid, 0), IF("kind", kind, F_KIND), IF("operation", op, F_OP),
    IF("dispatch_info.agent_id.handle", agent, F_AGENT), IF("dispatch_info.queue_id.handle", queue, F_QUEUE),
    IF("dispatch_info.kernel_id", kid, F_KID), IF("dispatch_info.group_segment_size", lds, F_LDS),
    IF("dispatch_info.workgroup_size.x", wg[0], 0), IF("dispatch_info.workgroup_size.y", wg[1], 0),
    IF("dispatch_info.workgroup_size.z", wg[2], 0), IF("dispatch_info.grid_size.x", grid[0], 0),
    IF("dispatch_info.grid_size.y", grid[1], 0), IF("dispatch_info.grid_size.z", grid[2], 0),
    IF("stream_id.handle", stream, F_STREAM), IF("bytes", bytes, F_BYTES), IF("src_agent_id.handle", src_ag, 0),
    IF("dst_agent_id.handle", dst_ag, 0),
    /* kernel_symbols, agents, strings.marker_api */
    IF("kernel_id", kid, F_KID), IF("id.handle", agent, F_AGENT), IF("type", type, F_TYPE), IF("cu_count", cu, 0),
    IF("wave_front_size", wave, 0), IF("gpu_index", gpu_index, F_GPUIDX), IF("key", corr, F_KEY), IF("pid", pid, F_PID),
};
static const char *const strs_of[] = {"formatted_kernel_name", "demangled_kernel_name", "kernel_name", "product_name", "name"};

/* Reads one scalar at c for the leaf `path` into f: J_OK/J_MORE/J_ERR
 * (J_ERR only for bytes that are not JSON). A known field of the wrong
 * type or out of range sets f->bad and is skipped. */
static int leaf(fields *f, const char *path, jcur *c) {
    int r;
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        if (strcmp(path, ints[i].path)) continue;
        char ch = *c->p;
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
            const char *at = c->p;
            int64_t v;
            if ((r = j_int(c, &v)) == J_OK) {
                *(int64_t *)(void *)((char *)f + ints[i].off) = v;
                f->have |= ints[i].bit;
                return J_OK;
            }
            if (r == J_MORE) return r;
            c->p = at; /* beyond int64: a bad field, not bad JSON */
        }
        f->bad = 1;
        return j_skip(c, 0);
    }
    if (!strcmp(path, "mem_banks[].size_in_bytes")) {
        int64_t v;
        if (*c->p >= '0' && *c->p <= '9' && (r = j_int(c, &v)) != J_ERR) {
            if (r == J_OK && v <= PC_TIME_LIMIT - f->mem) f->mem += v;
            return r;
        }
        return j_skip(c, 0);
    }
    jstr *dst = NULL;
    for (size_t i = 0; i < sizeof strs_of / sizeof *strs_of && !dst; i++)
        if (!strcmp(path, strs_of[i])) dst = &f->name[i < 3 ? i : i - 3];
    if (!strcmp(path, "value")) dst = &f->text, f->have |= F_TEXT;
    int op = !strcmp(path, "operations[]");
    if (!dst && !op) return j_skip(c, 0);
    if (*c->p != '"') {
        f->bad = 1;
        return j_skip(c, 0);
    }
    jstr s;
    if ((r = j_string(c, &s))) return r;
    if (op) *VEC_PUSH(f->opv, f->nopv, f->capv) = s;
    else *dst = s;
    return J_OK;
}

/* Walks the value at c (after blanks), calling leaf for each scalar with
 * its dotted path ("a.b", "a[]"); depth bounds nesting. */
static int walk(fields *f, jcur *c, char *path, size_t plen, int depth) {
    int r;
    if ((r = j_ws(c))) return r;
    if (depth > 16) { c->why = "a rocprofv3 record nested deeper than 16 levels"; return J_ERR; }
    if (*c->p == '{') {
        c->p++;
        if ((r = j_ws(c))) return r;
        if (*c->p == '}') { c->p++; return J_OK; }
        for (;;) {
            if ((r = j_ws(c))) return r;
            if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
            jstr k;
            size_t used = c->scratch_used;
            if ((r = j_string(c, &k))) return r;
            size_t n = plen;
            if (n && n < 120) path[n++] = '.';
            size_t kn = k.n < 120 - n ? k.n : 0; /* a key too long is no field of ours */
            memcpy(path + n, k.s, kn);
            path[n + kn] = 0;
            c->scratch_used = used;
            if ((r = j_expect(c, ':'))) return r;
            if ((r = walk(f, c, path, n + kn, depth + 1))) return r;
            path[plen] = 0;
            if ((r = j_after(c, '}', "expected ',' or '}'")) != J_NEXT) return r;
        }
    }
    if (*c->p == '[') {
        c->p++;
        size_t n = plen < 118 ? plen : 118;
        memcpy(path + n, "[]", 3);
        if ((r = j_ws(c))) return r;
        if (*c->p == ']') { c->p++; path[plen] = 0; return J_OK; }
        for (;;) {
            if ((r = walk(f, c, path, n + 2, depth + 1))) return r;
            path[n + 2] = 0;
            if ((r = j_after(c, ']', "expected ',' or ']'")) != J_NEXT) return r;
        }
    }
    return leaf(f, path, c);
}

static int parse_fields(jcur *c, fields *f) {
    jstr *v = f->opv;
    size_t cap = f->capv;
    memset(f, 0, sizeof *f);
    f->opv = v, f->capv = cap;
    char path[128] = "";
    return walk(f, c, path, 0, 0);
}

/* ---------- tables ---------- */

static void reset_process(rp *r, uint64_t at) {
    hmap_free(&r->ksym);
    hmap_free(&r->marks);
    for (size_t k = 0; k < r->nops; k++) {
        for (size_t i = 0; i < r->ops[k].n; i++) free(r->ops[k].name[i]);
        free(r->ops[k].name);
        free(r->ops[k].id);
    }
    free(r->ops);
    r->ops = NULL;
    r->nops = r->nag = 0;
    r->ngpu = 0;
    r->have_ksyms = r->have_ops = r->have_marks = 0;
    r->pid = 0;
    r->proc_at = at;
}

static const agent *find_agent(const rp *r, int64_t handle) {
    for (size_t i = 0; i < r->nag; i++)
        if (r->ag[i].handle == handle) return &r->ag[i];
    return NULL;
}

/* the GPU ordinal of an agent handle, PC_NONE for a CPU or an unknown one */
static int32_t device_of(const rp *r, int64_t handle) {
    const agent *a = find_agent(r, handle);
    return a && a->gpu ? a->ordinal : PC_NONE;
}

static uint32_t intern(rp *r, const char *s, size_t n) { return strtab_intern(&r->t->strs, s, n); }

/* the name of operation op of record kind `kind` (0: not in the table) */
static uint32_t op_name(rp *r, int64_t kind, int64_t op) {
    if (kind < 0 || (uint64_t)kind >= r->nops || op < 0 || (uint64_t)op >= r->ops[kind].n) return 0;
    opkind *k = &r->ops[kind];
    if (!k->id[op]) k->id[op] = intern(r, k->name[op], strlen(k->name[op]));
    return k->id[op];
}

static void add_agent(rp *r, const fields *f) {
    if (!(f->have & F_AGENT)) { r->t->stats.bad_fields++; return; }
    agent *a = VEC_PUSH(r->ag, r->nag, r->cap_ag);
    a->handle = f->agent;
    a->gpu = f->type == 2;
    a->ordinal = PC_NONE;
    if (!a->gpu) return;
    /* HIP's device ordinal where the agent says it (gpu_index), else the GPUs' order */
    a->ordinal = (f->have & F_GPUIDX) && f->gpu_index >= 0 && f->gpu_index < PC_MAX_DEVICES ? (int)f->gpu_index : r->ngpu;
    r->ngpu++;
    if (a->ordinal >= PC_MAX_DEVICES) { r->t->stats.devices_dropped++; return; }
    pc_device *d = pc_trace_device(r->t, a->ordinal);
    if (!d) return;
    jstr nm = f->name[0].n ? f->name[0] : f->name[1]; /* "AMD Instinct MI300X", else the target "gfx942" */
    if (nm.n) d->name = intern(r, nm.s, nm.n);
    if (f->cu > 0 && f->cu < 1 << 20) d->num_sms = (int)f->cu;
    if (f->wave > 0 && f->wave <= 128) d->warp_size = (int)f->wave;
    if (f->mem > 0) d->total_mem = f->mem;
}

/* a kernel's name: formatted, else demangled, else the symbol, without the
 * ".kd" of the kernel descriptor and the " [clone .kd]" of its demangling */
static void add_symbol(rp *r, const fields *f) {
    if (!(f->have & F_KID)) { r->t->stats.bad_fields++; return; }
    jstr s = f->name[0].n ? f->name[0] : f->name[1].n ? f->name[1] : f->name[2];
    static const char *const tails[] = {" [clone .kd]", ".kd"};
    for (int i = 0; i < 2; i++) {
        size_t k = strlen(tails[i]);
        if (s.n > k && !memcmp(s.s + s.n - k, tails[i], k)) { s.n -= k; break; }
    }
    if (!s.n) return; /* rocprofv3's entry 0 is empty: no kernel has id 0 */
    int created;
    *hmap_get(&r->ksym, (uint64_t)f->kid, &created) = intern(r, s.s, s.n);
}

static void add_opnames(rp *r, const fields *f) {
    opkind *k = xrealloc(r->ops, (r->nops + 1) * sizeof *r->ops);
    r->ops = k;
    k += r->nops++;
    k->n = f->nopv;
    k->name = xcalloc(k->n ? k->n : 1, sizeof *k->name);
    k->id = xcalloc(k->n ? k->n : 1, sizeof *k->id);
    for (size_t i = 0; i < k->n; i++) {
        k->name[i] = xmalloc(f->opv[i].n + 1);
        memcpy(k->name[i], f->opv[i].s, f->opv[i].n);
        k->name[i][f->opv[i].n] = 0;
    }
}

static void add_marker_text(rp *r, const fields *f) {
    if (!(f->have & F_KEY) || !(f->have & F_TEXT)) { r->t->stats.bad_fields++; return; }
    int created;
    *hmap_get(&r->marks, (uint64_t)f->corr, &created) = intern(r, f->text.s, f->text.n);
}

/* ---------- events ---------- */

static int times_ok(rp *r, const fields *f) {
    if (!(f->have & F_START) || !(f->have & F_END) || f->bad || f->start <= -PC_TIME_LIMIT || f->start >= PC_TIME_LIMIT ||
        f->end <= -PC_TIME_LIMIT || f->end >= PC_TIME_LIMIT) {
        r->t->stats.bad_fields++;
        return 0;
    }
    return pc_trace_take_dur(r->t, f->end - f->start); /* counts a negative duration */
}

static void defer_name(rp *r, int cpu, int what, int64_t key, uint32_t kind) {
    defer *d = SPILL_PUSH(r->def, r->ndef, r->cap_def);
    d->idx = cpu ? r->t->ncpu - 1 : r->t->ngpu - 1;
    d->cpu = (uint8_t)cpu, d->what = (uint8_t)what, d->key = key, d->kind = kind;
}

static int32_t small_id(int64_t v) { return v >= 0 && v <= INT32_MAX ? (int32_t)v : (int32_t)((uint64_t)v & 0x7fffffff); }

static void kernel(rp *r, const fields *f) {
    if (!(f->have & F_KID)) { r->t->stats.bad_fields++; return; }
    if (!times_ok(r, f)) return;
    pc_gpu_event *g = pc_trace_add_gpu(r->t);
    g->kind = GPU_KERNEL;
    g->ts = f->start, g->dur = f->end - f->start;
    if (f->have & F_CORR) g->corr = f->corr;
    if (f->ext > 0) g->ext_id = f->ext;
    g->device = (f->have & F_AGENT) ? device_of(r, f->agent) : PC_NONE;
    g->stream = (f->have & F_STREAM) ? small_id(f->stream) : (f->have & F_QUEUE) ? small_id(f->queue) : PC_NONE;
    for (int k = 0; k < 3; k++) {
        int64_t wg = f->wg[k] > 0 && f->wg[k] <= 1024 ? f->wg[k] : 0, n = f->grid[k] > 0 ? f->grid[k] : 0;
        if (wg) n = (n + wg - 1) / wg; /* work-items to workgroups */
        g->grid[k] = (uint32_t)(n < UINT32_MAX ? n : UINT32_MAX);
        g->block[k] = (uint16_t)wg;
    }
    if ((f->have & F_LDS) && f->lds >= 0 && f->lds <= INT32_MAX) g->smem = (int32_t)f->lds;
    const uint32_t *id = hmap_find(&r->ksym, (uint64_t)f->kid);
    if (id) g->name = *id;
    else defer_name(r, 0, D_KERNEL, f->kid, 0);
}

static uint8_t copy_kind(const char *s) {
    static const struct { const char *op; uint8_t k; } m[] = {{"HOST_TO_DEVICE", COPY_HTOD}, {"DEVICE_TO_HOST", COPY_DTOH},
                                                              {"DEVICE_TO_DEVICE", COPY_DTOD}, {"HOST_TO_HOST", COPY_HTOH}};
    for (size_t i = 0; i < sizeof m / sizeof *m; i++)
        if (strstr(s, m[i].op)) return m[i].k;
    return COPY_UNKNOWN;
}

/* a copy's direction (from its operation's name, nm) and name; PtoP when
 * it moves between two GPUs */
static void copy_named(rp *r, pc_gpu_event *g, uint32_t nm, int32_t src, int32_t dst) {
    g->copy_kind = nm ? copy_kind(strtab_get(&r->t->strs, nm)) : COPY_UNKNOWN;
    if (g->copy_kind == COPY_DTOD && dst != PC_NONE && src != PC_NONE && dst != src) g->copy_kind = COPY_PTOP;
    g->src_mem = g->copy_kind == COPY_DTOH || g->copy_kind == COPY_DTOD || g->copy_kind == COPY_PTOP ? MEM_DEVICE : MEM_UNKNOWN;
    g->dst_mem = g->copy_kind == COPY_HTOD || g->copy_kind == COPY_DTOD || g->copy_kind == COPY_PTOP ? MEM_DEVICE : MEM_UNKNOWN;
    char name[96];
    snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", pc_copy_name[g->copy_kind], pc_mem_name[g->src_mem], pc_mem_name[g->dst_mem]);
    g->name = intern(r, name, strlen(name));
}

static void copy(rp *r, const fields *f) {
    if (!times_ok(r, f)) return;
    pc_gpu_event *g = pc_trace_add_gpu(r->t);
    g->kind = GPU_MEMCPY;
    g->ts = f->start, g->dur = f->end - f->start;
    if (f->have & F_CORR) g->corr = f->corr;
    if (f->ext > 0) g->ext_id = f->ext;
    if ((f->have & F_BYTES) && f->bytes >= 0 && f->bytes < PC_TIME_LIMIT) g->bytes = f->bytes;
    int32_t dst = device_of(r, f->dst_ag), src = device_of(r, f->src_ag);
    g->device = dst != PC_NONE ? dst : src;
    if (f->have & F_STREAM) g->stream = small_id(f->stream);
    uint32_t nm = op_name(r, f->kind, f->op);
    copy_named(r, g, nm, src, dst);
    if (!nm && (f->have & F_OP)) {
        defer_name(r, 0, D_COPY, f->op, (uint32_t)f->kind);
        r->def[r->ndef - 1].src = src;
    }
}

/* roctx: a step range is an annotation, any other an operator (as NVTX) */
static uint8_t marker_kind(const char *name) {
    return !strncmp(name, "ProfilerStep#", 13) || !strncmp(name, "perfcard.step#", 14) ? CPU_USER_ANNOT : CPU_OP;
}

static void host(rp *r, const fields *f, int rec) {
    if (!(f->have & F_OP) || !(f->have & F_KIND)) { r->t->stats.bad_fields++; return; }
    if (rec == REC_MARKER && (f->have & F_START) && (f->have & F_END) && f->start == f->end && !f->bad) {
        r->t->stats.metadata++; /* roctxMarkA: an instant, not a range */
        return;
    }
    if (!times_ok(r, f)) return;
    pc_cpu_event *c = pc_trace_add_cpu(r->t);
    c->kind = rec == REC_HIP ? CPU_RUNTIME : rec == REC_HSA ? CPU_DRIVER : CPU_OP;
    c->ts = f->start, c->dur = f->end - f->start;
    if ((f->have & F_CORR) && rec != REC_MARKER) c->corr = f->corr;
    if (f->ext > 0) c->ext_id = f->ext;
    c->pid = small_id(r->pid), c->tid = small_id(f->tid);
    if (rec == REC_MARKER) {
        c->flags = PC_CPU_NVTX;
        const uint32_t *id = hmap_find(&r->marks, (uint64_t)f->corr);
        if (id) c->name = *id, c->kind = marker_kind(strtab_get(&r->t->strs, *id));
        else defer_name(r, 1, D_MARKER, f->corr, 0);
        return;
    }
    uint32_t nm = op_name(r, f->kind, f->op);
    if (nm) c->name = nm;
    else defer_name(r, 1, D_OP, f->op, (uint32_t)f->kind);
}

/* Names what was read before its table; what no table names keeps a name
 * that says so and counts as invalid. A process with such records and no
 * table at all is malformed (unless the input ended before the table could
 * come). */
static int resolve(rp *r, pc_err *err) {
    pc_trace *t = r->t;
    int64_t missing[3] = {0};
    for (size_t i = 0; i < r->ndef; i++) {
        const defer *d = &r->def[i];
        assert(d->cpu ? d->idx < t->ncpu : d->idx < t->ngpu); /* nothing is removed before finish */
        uint32_t id = 0;
        const uint32_t *h = NULL;
        if (d->what == D_KERNEL) h = hmap_find(&r->ksym, (uint64_t)d->key);
        else if (d->what == D_MARKER) h = hmap_find(&r->marks, (uint64_t)d->key);
        else id = op_name(r, d->kind, d->key);
        if (h) id = *h;
        if (d->what == D_COPY) { /* named "Memcpy Unknown" when no table says its direction */
            pc_gpu_event *g = &t->gpu[d->idx];
            if (id) copy_named(r, g, id, d->src, g->device);
            continue;
        }
        if (!id) {
            char nm[64];
            snprintf(nm, sizeof nm, d->what == D_KERNEL ? "kernel_id %lld (no symbol)" : d->what == D_MARKER ? "roctx %lld (no text)"
                                                                                                             : "operation %lld (no name)",
                     (long long)d->key);
            id = intern(r, nm, strlen(nm));
            missing[d->what]++;
            t->stats.bad_fields++;
        }
        if (d->cpu) {
            t->cpu[d->idx].name = id;
            if (d->what == D_MARKER) t->cpu[d->idx].kind = marker_kind(strtab_get(&t->strs, id));
        } else t->gpu[d->idx].name = id;
    }
    r->ndef = 0;
    if (t->truncated) return 0;
    static const char *const table[3] = {"kernel_symbols", "strings.buffer_records", "strings.marker_api"};
    int have[3] = {r->have_ksyms, r->have_ops, r->have_marks};
    for (int k = 0; k < 3; k++)
        if (missing[k] && !have[k])
            return PC_ERRF_AT(err, PC_EINPUT, r->proc_at,
                              "a rocprofv3 process without its %s table: %lld of its records cannot be named (the file was cut or edited)",
                              table[k], (long long)missing[k]);
    return 0;
}

/* ---------- the frames ---------- */

/* what a member of the object frame `fr` holds: a frame role to descend into,
 * or -1 for a value parsed whole */
static int member_role(const frame *fr, jstr key, int *rec, int *arr) {
    *arr = 1;
    switch (fr->role) {
    case R_TOP:
        if (J_EQ(key, "rocprofiler-sdk-tool")) return R_PROCS;
        break;
    case R_PROC:
        if (J_EQ(key, "agents")) return R_AGENTS;
        if (J_EQ(key, "kernel_symbols")) return R_KSYMS;
        if (J_EQ(key, "strings")) return *arr = 0, R_STRINGS;
        if (J_EQ(key, "buffer_records")) return *arr = 0, R_BUFREC;
        if (J_EQ(key, "metadata")) return -1;
        break;
    case R_STRINGS:
        if (J_EQ(key, "buffer_records")) return R_OPNAMES;
        if (J_EQ(key, "marker_api")) return R_MARKMSG;
        break;
    case R_BUFREC:
        *rec = J_EQ(key, "kernel_dispatch") ? REC_KERNEL : J_EQ(key, "hip_api") ? REC_HIP : J_EQ(key, "hsa_api") ? REC_HSA
             : J_EQ(key, "marker_api") ? REC_MARKER : J_EQ(key, "rccl_api") ? REC_RCCL : J_EQ(key, "memory_copy") ? REC_COPY : REC_OTHER;
        return R_RECS;
    }
    return R_SKIP;
}

static int push(rp *r, jcur *c, int role, int rec, int obj, uint32_t cat) {
    if (r->depth == MAX_FRAMES) { c->why = "JSON nested deeper than 64 levels"; return J_ERR; }
    frame *f = &r->st[r->depth++];
    f->role = (uint8_t)role, f->rec = (uint8_t)rec, f->obj = (uint8_t)obj, f->first = 1, f->cat = cat;
    f->at = r->base + (uint64_t)(c->p - 1 - r->buf);
    return J_OK;
}

/* one element of the array frame `fr`, a value parsed whole, into the trace */
static void element(rp *r, const frame *fr, const fields *f) {
    switch (fr->role) {
    case R_AGENTS: add_agent(r, f); break;
    case R_KSYMS: add_symbol(r, f); break;
    case R_OPNAMES: add_opnames(r, f); break;
    case R_MARKMSG: add_marker_text(r, f); break;
    case R_RECS:
        if (fr->rec == REC_KERNEL) kernel(r, f);
        else if (fr->rec == REC_COPY) copy(r, f);
        else if (fr->rec == REC_OTHER) pc_trace_note_unknown(r->t, fr->cat);
        else host(r, f, fr->rec);
        r->t->stats.events++;
        break;
    }
}

static const char *need(int role) {
    return role == R_PROCS ? "\"rocprofiler-sdk-tool\" is not an array" : role == R_STRINGS ? "\"strings\" is not an object"
         : role == R_BUFREC ? "\"buffer_records\" is not an object" : role == R_PROC ? "a rocprofv3 process is not an object"
                                                                      : "a rocprofv3 table or record list is not an array";
}

/* One step at c: a member or element (or the document's start or end).
 * Changes r only when it returns J_OK. f is scratch for a parsed value. */
static int step(rp *r, jcur *c, fields *f, pc_err *err) {
    int rc;
    if ((rc = j_ws(c))) return rc;
    if (!r->depth) {
        if (r->saw_tool) { c->why = "unexpected data after the end of the JSON document"; return J_ERR; }
        if (c->end - c->p >= 3 && !memcmp(c->p, "\xEF\xBB\xBF", 3) && r->base + (uint64_t)(c->p - r->buf) == 0) { /* a UTF-8 BOM */
            c->p += 3;
            if ((rc = j_ws(c))) return rc;
        }
        if (*c->p != '{') { c->why = "not a rocprofv3 JSON document (expected '{')"; return J_ERR; }
        c->p++;
        r->saw_tool = 1;
        return push(r, c, R_TOP, 0, 1, 0);
    }
    frame *fr = &r->st[r->depth - 1];
    assert(r->depth <= MAX_FRAMES && r->pos <= r->len);
    char close = fr->obj ? '}' : ']';
    if (*c->p == close) {
        c->p++;
        if (fr->role == R_PROC && (rc = resolve(r, err))) return rc; /* err set: not a J_* code */
        r->depth--;
        return J_OK;
    }
    if (!fr->first) {
        if (*c->p != ',') { c->why = fr->obj ? "expected ',' or '}'" : "expected ',' or ']'"; return J_ERR; }
        c->p++;
        if ((rc = j_ws(c))) return rc;
    }
    int role = R_SKIP, rec = 0, arr = 1;
    uint32_t cat = 0;
    jstr key = {0};
    if (fr->obj) {
        if (*c->p != '"') { c->why = "expected a string key"; return J_ERR; }
        if ((rc = j_string(c, &key)) || (rc = j_expect(c, ':')) || (rc = j_ws(c))) return rc;
        role = member_role(fr, key, &rec, &arr);
    } else if (fr->role == R_PROCS) role = R_PROC, arr = 0;
    else if (fr->role != R_SKIP) role = -1;
    const char *v = c->p;
    if (role >= 0 && role != R_SKIP) { /* a container of ours: descend */
        if (*c->p != (arr ? '[' : '{')) { c->why = need(role); return J_ERR; }
        if (role == R_RECS && rec == REC_OTHER) cat = intern(r, key.s, key.n);
        c->p++;
        fr->first = 0;
        if (role == R_PROC) reset_process(r, r->base + (uint64_t)(v - r->buf));
        if (role == R_OPNAMES) r->have_ops = 1;
        if (role == R_KSYMS) r->have_ksyms = 1;
        if (role == R_MARKMSG) r->have_marks = 1;
        return push(r, c, role, rec, !arr, cat);
    }
    if (role == R_SKIP && (*c->p == '{' || *c->p == '[')) { /* skipped, one member at a time */
        c->p++;
        fr->first = 0;
        return push(r, c, R_SKIP, 0, *v == '{', 0);
    }
    if (role == R_SKIP) {
        if ((rc = j_skip(c, 0))) return rc;
        fr->first = 0;
        return J_OK;
    }
    /* a value parsed whole: metadata, a table entry, a record */
    if (*c->p != '{') {
        if ((rc = j_skip(c, 0))) return rc;
        r->t->stats.bad_fields++; /* an entry that is not an object */
        if (fr->role == R_RECS) r->t->stats.events++;
        fr->first = 0;
        return J_OK;
    }
    if ((rc = parse_fields(c, f))) return rc;
    fr->first = 0;
    if (fr->obj) { /* metadata */
        if ((f->have & F_PID) && f->pid >= 0) r->pid = f->pid;
        return J_OK;
    }
    element(r, fr, f);
    return J_OK;
}

/* ---------- the window ---------- */

static void show_progress(rp *r, int final) {
    if (!r->progress || !r->src) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
    if (!final && now - r->last_progress < 0.25) return;
    r->last_progress = now;
    uint64_t size = source_file_size(r->src); /* compressed bytes for gzip, as the Kineto reader */
    r->progress(r->progress_ctx, r->path, final ? size : source_file_pos(r->src), size, final);
}

static int refill(rp *r, pc_err *err) {
    source_window_drop(r->buf, &r->len, &r->pos, &r->base);
    if (r->len == r->cap) {
        if (r->cap >= r->max_value)
            return PC_ERRF_AT(err, PC_EINPUT, r->base, "a single rocprofv3 record or table entry is larger than %zu MiB",
                              r->max_value >> 20);
        r->cap *= 2;
        r->buf = xrealloc(r->buf, r->cap);
        free(r->scratch);
        r->scratch = xmalloc(r->cap);
    }
    ssize_t n = source_window_read(r->src, r->mem, r->memlen, &r->mempos, r->buf + r->len, r->cap - r->len, err);
    if (n < 0) return (int)n;
    if (r->src) show_progress(r, 0);
    if (n == 0) r->eof = 1;
    r->len += (size_t)n;
    return 0;
}

static int run(rp *r, pc_err *err) {
    fields f = {0};
    int rc = 0;
    for (;;) { /* to the end of the input: blanks only after the document */
        jcur c = {r->buf + r->pos, r->buf + r->len, r->scratch, 0, NULL};
        pc_err e2 = {0};
        int s = step(r, &c, &f, &e2);
        if (s == J_OK) {
            r->pos = (size_t)(c.p - r->buf);
            continue;
        }
        if (s != J_MORE && s != J_ERR) { *err = e2; rc = s; break; }
        if (s == J_ERR) {
            rc = PC_ERRF_AT(err, PC_EINPUT, r->base + (uint64_t)(c.p - r->buf), "%s", c.why ? c.why : "syntax error");
            break;
        }
        if (r->eof) {
            size_t k = r->pos;
            while (k < r->len && (r->buf[k] == ' ' || r->buf[k] == '\n' || r->buf[k] == '\r' || r->buf[k] == '\t')) k++;
            if (!r->saw_tool && k == r->len) {
                rc = PC_ERRF_AT(err, PC_EINPUT, r->base + r->len, "empty input: no JSON document");
                break;
            }
            if (!r->depth) break; /* the document ended: blanks after it */
            r->t->truncated = 1;
            r->t->truncated_at = r->base + r->pos;
            rc = resolve(r, err);
            break;
        }
        if ((rc = refill(r, err))) break;
    }
    free(f.opv);
    return rc;
}

static void rp_free(rp *r) {
    reset_process(r, 0);
    free(r->ag);
    spill_free(r->def);
    free(r->buf);
    free(r->scratch);
}

static int rp_read(rp *r, pc_trace **out, pc_err *err) {
    r->cap = 1 << 20;
    if (r->mem && r->memlen < r->cap) r->cap = r->memlen < 4096 ? 4096 : r->memlen; /* a small document, a small window */
    if (!r->max_value) r->max_value = (size_t)16 << 20;
    if (r->cap > r->max_value) r->cap = r->max_value;
    r->buf = xmalloc(r->cap);
    r->scratch = xmalloc(r->cap);
    r->t = pc_trace_new();
    int rc = run(r, err);
    if (!rc && r->src && source_truncated(r->src) && !r->t->truncated) {
        r->t->truncated = 1; /* the JSON closed, the gzip stream did not */
        r->t->truncated_at = r->base + r->len;
    }
    if (!rc && !r->saw_tool) rc = PC_ERRF(err, PC_EINPUT, "not a rocprofv3 JSON document");
    uint64_t bytes = r->base + r->len;
    rp_free(r);
    if (rc) {
        pc_trace_free(r->t);
        *out = NULL;
        return rc;
    }
    pc_trace *t = r->t;
    t->stats.bytes = bytes;
    t->stats.parts = 1;
    t->source_format = strtab_intern(&t->strs, "rocprofv3-json", 14);
    pc_trace_finish(t);
    *out = t;
    return 0;
}

int pc_load_rocprof_source(pc_source *src, const char *path, const pc_load_opts *o, pc_trace **out, pc_err *err) {
    rp r = {0};
    r.src = src;
    r.max_value = o ? o->max_value : 0;
    r.progress = o ? o->progress : NULL;
    r.progress_ctx = o ? o->progress_ctx : NULL;
    r.path = path;
    *out = NULL;
    int rc = rp_read(&r, out, err);
    show_progress(&r, 1);
    if (!rc) (*out)->stats.file_bytes = source_file_size(src);
    return rc;
}

int pc_load_rocprof_mem(const char *data, size_t n, size_t max_value, pc_trace **out, pc_err *err) {
    rp r = {0};
    r.mem = data, r.memlen = n, r.max_value = max_value;
    *out = NULL;
    int rc = rp_read(&r, out, err);
    if (!rc) (*out)->stats.file_bytes = n;
    return rc;
}

int rocprof_sniff(const unsigned char *h, size_t n) {
    static const char key[] = "\"rocprofiler-sdk-tool\"";
    size_t i = 0;
    if (n >= 3 && h[0] == 0xEF && h[1] == 0xBB && h[2] == 0xBF) i = 3;
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) i++;
    if (i >= n || h[i++] != '{') return 0;
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) i++;
    return n - i >= sizeof key - 1 && !memcmp(h + i, key, sizeof key - 1);
}
