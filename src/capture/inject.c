/* inject.c - libperfcard_inject.so: records a CUDA program without changing it.
 *
 * Loaded by the CUDA driver through CUDA_INJECTION64_PATH (it calls
 * InitializeInjection at cuInit) and preloaded by `perfcard capture`
 * (LD_PRELOAD) so the step and queue markers of include/perfcard.h work
 * without CUDA too. Active only when PERFCARD_TRACE_DIR is set; each process
 * writes DIR/trace.<pid>.json (writer.h) and DIR/devices.<pid>.json, which
 * `perfcard capture` merges into one trace.
 *
 * CUPTI is opened with dlopen, so the library loads on machines without it
 * (or without a GPU): it then says so once on stderr and records markers only.
 * Activity buffers are flushed by a background thread every
 * PERFCARD_FLUSH_MS (default 200) and at exit, so a killed program loses at
 * most the last interval. Events follow Kineto's conventions (categories,
 * args.correlation, args.stream, deviceProperties) so one loader reads both.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "writer.h"
#include "../util/apiname.h"
#include "../../include/perfcard.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static tw *g_w;
static int g_pid;
static int g_closed; /* this process's trace is closed (at exit): never reopened, which would truncate it */
static unsigned long long g_incomplete; /* activity records still open at a flush (end 0 or before start): left out */
static int g_thread_started;
static int g_flush_ms = 200;
static int (*g_cupti_flush)(uint32_t); /* cuptiActivityFlushAll, when CUPTI is on */

static void note(const char *fmt, ...) {
    static int said;
    if (said++) return; /* once */
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "perfcard: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static const char *trace_dir(void) {
    const char *d = getenv("PERFCARD_TRACE_DIR");
    return d && *d ? d : NULL;
}

static void at_exit(void) {
    if (g_cupti_flush) g_cupti_flush(1); /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
    pthread_mutex_lock(&g_mu);
    tw *w = g_w;
    g_w = NULL;
    g_closed = 1; /* what comes later (another atexit handler's marker, a late buffer) is dropped */
    pthread_mutex_unlock(&g_mu);
    tw_close(w);
    unsigned long long inc = __atomic_load_n(&g_incomplete, __ATOMIC_RELAXED);
    if (inc) fprintf(stderr, "perfcard: %llu activity records were still incomplete at the last flush and are left out\n", inc);
}

static void *flusher(void *arg) {
    (void)arg;
    for (;;) {
        struct timespec ts = {g_flush_ms / 1000, (long)(g_flush_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        if (g_cupti_flush) g_cupti_flush(0);
        pthread_mutex_lock(&g_mu);
        tw *w = g_w;
        pthread_mutex_unlock(&g_mu);
        tw_flush(w);
    }
    return NULL;
}

static void after_fork_child(void) {
    /* a forked child (e.g. a DataLoader worker) writes its own file */
    g_w = NULL;
    g_thread_started = 0;
    g_pid = 0;
    g_closed = 0;
    pthread_mutex_init(&g_mu, NULL);
}

/* The writer of this process, opened on first use. */
static tw *writer(void) {
    const char *dir = trace_dir();
    if (!dir) return NULL;
    pthread_mutex_lock(&g_mu);
    if (g_closed && g_pid == getpid()) {
        pthread_mutex_unlock(&g_mu);
        return NULL;
    }
    if (!g_w || g_pid != getpid()) {
        g_pid = getpid();
        char path[4096];
        snprintf(path, sizeof path, "%s/trace.%d.json", dir, g_pid);
        g_w = tw_open(path, "[]");
        if (g_w) {
            static int registered;
            if (!registered++) {
                atexit(at_exit);
                pthread_atfork(NULL, NULL, after_fork_child);
            }
            const char *ms = getenv("PERFCARD_FLUSH_MS");
            if (ms && atoi(ms) > 0) g_flush_ms = atoi(ms);
            if (!g_thread_started) {
                pthread_t th;
                pthread_attr_t a;
                pthread_attr_init(&a);
                pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
                if (pthread_create(&th, &a, flusher, NULL) == 0) g_thread_started = 1;
                pthread_attr_destroy(&a);
            }
        }
    }
    tw *w = g_w;
    pthread_mutex_unlock(&g_mu);
    return w;
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...) {
    tw *w = writer();
    if (!w) return;
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof buf) tw_event(w, buf, (size_t)n);
}

#define US(ns) (unsigned long long)((ns) / 1000), (unsigned)((ns) % 1000)

/* ---------- markers (include/perfcard.h) ---------- */

static uint64_t g_step_ts;
static long g_step_no, g_step_open;

EXPORT void perfcard_step_begin(void) {
    if (!trace_dir()) return;
    pthread_mutex_lock(&g_mu);
    g_step_ts = tw_now_ns();
    g_step_no++;
    g_step_open = g_step_no;
    pthread_mutex_unlock(&g_mu);
}

EXPORT void perfcard_step_end(void) {
    if (!trace_dir()) return;
    uint64_t now = tw_now_ns();
    pthread_mutex_lock(&g_mu);
    long no = g_step_open;
    uint64_t ts = g_step_ts;
    g_step_open = 0;
    pthread_mutex_unlock(&g_mu);
    if (!no) return;
    emit("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"perfcard.step#%ld\", \"pid\": %d, \"tid\": %ld, \"ts\": %llu.%03u, \"dur\": %llu.%03u}",
         no, (int)getpid(), (long)syscall(SYS_gettid), US(ts), US(now - ts));
}

EXPORT void perfcard_queue_sample(const char *name, long size, long capacity) {
    if (!trace_dir()) return;
    char esc[512];
    tw_escape(esc, sizeof esc, name ? name : "queue");
    uint64_t now = tw_now_ns();
    emit("{\"ph\": \"C\", \"name\": \"queue:%s\", \"pid\": %d, \"ts\": %llu.%03u, \"args\": {\"size\": %ld, \"capacity\": %ld}}", esc,
         (int)getpid(), US(now), size, capacity);
}

/* ---------- CUPTI ---------- */
#if PC_HAVE_CUPTI
#include <cupti.h>

static struct {
    void *h;
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*callback_name)(CUpti_CallbackDomain, uint32_t, const char **);
    CUptiResult (*register_timestamp)(CUpti_TimestampCallbackFunc);
} C;

static const char *mem_kind(int k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "Managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "Array";
    default: return "Unknown";
    }
}
static const char *copy_kind(int k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "Unknown";
    }
}

enum { BUF_SIZE = 8 << 20, MAX_MARKERS = 4096 };
static struct { uint32_t id; uint64_t ts; char name[256]; } g_markers[MAX_MARKERS];
static pthread_mutex_t g_mk = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records) {
    *buf = aligned_alloc(8, BUF_SIZE);
    *size = *buf ? BUF_SIZE : 0;
    *max_records = 0;
}

/* a record whose end CUPTI has not written yet (0) or that ends before it starts */
static int incomplete(uint64_t start, uint64_t end) {
    if (end != 0 && end >= start) return 0;
    __atomic_add_fetch(&g_incomplete, 1, __ATOMIC_RELAXED);
    return 1;
}

static void record(CUpti_Activity *r) {
    char name[2048];
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)r;
        if (incomplete(k->start, k->end)) break;
        tw_escape(name, sizeof name, k->name);
        emit("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %u, \"tid\": %u, \"ts\": %llu.%03u, \"dur\": %llu.%03u, "
             "\"args\": {\"device\": %u, \"stream\": %u, \"correlation\": %u, \"registers per thread\": %u, \"shared memory\": %u, "
             "\"grid\": [%d, %d, %d], \"block\": [%d, %d, %d]}}",
             name, k->deviceId, k->streamId, US(k->start), US(k->end - k->start), k->deviceId, k->streamId, k->correlationId,
             (unsigned)k->registersPerThread, (unsigned)(k->staticSharedMemory + k->dynamicSharedMemory), k->gridX, k->gridY, k->gridZ,
             k->blockX, k->blockY, k->blockZ);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)r;
        if (incomplete(m->start, m->end)) break;
        emit("{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy %s (%s -> %s)\", \"pid\": %u, \"tid\": %u, \"ts\": %llu.%03u, "
             "\"dur\": %llu.%03u, \"args\": {\"device\": %u, \"stream\": %u, \"correlation\": %u, \"bytes\": %llu}}",
             copy_kind(m->copyKind), mem_kind(m->srcKind), mem_kind(m->dstKind), m->deviceId, m->streamId, US(m->start),
             US(m->end - m->start), m->deviceId, m->streamId, m->correlationId, (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)r;
        if (incomplete(m->start, m->end)) break;
        emit("{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (%s)\", \"pid\": %u, \"tid\": %u, \"ts\": %llu.%03u, "
             "\"dur\": %llu.%03u, \"args\": {\"device\": %u, \"stream\": %u, \"correlation\": %u, \"bytes\": %llu}}",
             mem_kind(m->memoryKind), m->deviceId, m->streamId, US(m->start), US(m->end - m->start), m->deviceId, m->streamId,
             m->correlationId, (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        CUpti_ActivityAPI *a = (CUpti_ActivityAPI *)r;
        if (incomplete(a->start, a->end)) break;
        const char *n = NULL;
        int rt = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
        if (C.callback_name) C.callback_name(rt ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &n);
        char fallback[32], base[256];
        if (!n) snprintf(fallback, sizeof fallback, "cbid %u", a->cbid), n = fallback;
        /* the API the program called: cudaLaunchKernel, not CUPTI's cudaLaunchKernel_v7000 */
        snprintf(base, sizeof base, "%.*s", (int)api_name_len(n), n);
        tw_escape(name, sizeof name, base);
        emit("{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %u, \"tid\": %u, \"ts\": %llu.%03u, \"dur\": %llu.%03u, "
             "\"args\": {\"cbid\": %u, \"correlation\": %u}}",
             rt ? "cuda_runtime" : "cuda_driver", name, a->processId, a->threadId, US(a->start), US(a->end - a->start), a->cbid,
             a->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        CUpti_ActivitySynchronization2 *s = (CUpti_ActivitySynchronization2 *)r;
        if (incomplete(s->start, s->end)) break;
        emit("{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Synchronization (type %d)\", \"pid\": 0, \"tid\": %u, \"ts\": %llu.%03u, "
             "\"dur\": %llu.%03u, \"args\": {\"stream\": %u, \"correlation\": %u}}",
             (int)s->type, s->streamId, US(s->start), US(s->end - s->start), s->streamId, s->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        CUpti_ActivityMarker2 *m = (CUpti_ActivityMarker2 *)r;
        /* NVTX ranges: a START record with the name, an END record with the id */
        pthread_mutex_lock(&g_mk);
        uint32_t slot = m->id % MAX_MARKERS;
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
            g_markers[slot].id = m->id;
            g_markers[slot].ts = m->timestamp;
            tw_escape(g_markers[slot].name, sizeof g_markers[slot].name, m->name ? m->name : "");
            pthread_mutex_unlock(&g_mk);
        } else if ((m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) && g_markers[slot].id == m->id) {
            uint64_t ts = g_markers[slot].ts;
            snprintf(name, sizeof name, "%s", g_markers[slot].name);
            g_markers[slot].id = 0;
            pthread_mutex_unlock(&g_mk);
            emit("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": %llu.%03u, \"dur\": %llu.%03u}",
                 name, (int)getpid(), m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0u, US(ts),
                 US(m->timestamp - ts));
        } else pthread_mutex_unlock(&g_mk);
        break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        CUpti_ActivityOverhead3 *o = (CUpti_ActivityOverhead3 *)r;
        emit("{\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"CUPTI overhead (kind %d)\", \"pid\": %d, \"tid\": 0, \"ts\": %llu.%03u, "
             "\"dur\": %llu.%03u}",
             (int)o->overheadKind, (int)getpid(), US(o->start), US(o->end - o->start));
        break;
    }
    default: break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *r = NULL;
    while (valid > 0 && C.next_record(buf, valid, &r) == CUPTI_SUCCESS) record(r);
    free(buf);
}

static uint64_t timestamp(void) { return tw_now_ns(); }

static void *open_cupti(void) {
    const char *env = getenv("PERFCARD_CUPTI_PATH");
    const char *cands[] = {env, "libcupti.so", "libcupti.so.13", "libcupti.so.12", "/usr/local/cuda/lib64/libcupti.so",
                           "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so", NULL};
    for (int i = 0; i < (int)(sizeof cands / sizeof *cands); i++) {
        if (!cands[i]) continue;
        void *h = dlopen(cands[i], RTLD_NOW | RTLD_GLOBAL);
        if (h) return h;
    }
    return NULL;
}

/* Device properties through the driver API (already loaded: we are called from cuInit). */
static void write_devices(void) {
    typedef int (*get_count_t)(int *);
    typedef int (*get_name_t)(char *, int, int);
    typedef int (*get_attr_t)(int *, int, int);
    typedef int (*total_mem_t)(size_t *, int);
    get_count_t count = (get_count_t)dlsym(RTLD_DEFAULT, "cuDeviceGetCount");
    get_name_t gname = (get_name_t)dlsym(RTLD_DEFAULT, "cuDeviceGetName");
    get_attr_t attr = (get_attr_t)dlsym(RTLD_DEFAULT, "cuDeviceGetAttribute");
    total_mem_t mem = (total_mem_t)dlsym(RTLD_DEFAULT, "cuDeviceTotalMem_v2");
    int n = 0;
    if (!count || !gname || !attr || count(&n) != 0 || n <= 0) {
        note("no CUDA device: recording CPU utilization and markers only");
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/devices.%d.json", trace_dir(), (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs("[", f);
    for (int d = 0; d < n; d++) {
        char nm[256] = "", esc[512];
        gname(nm, sizeof nm, d);
        tw_escape(esc, sizeof esc, nm);
        int sms = 0, maj = 0, min = 0, tpm = 0, tpb = 0, rpm = 0, rpb = 0, spm = 0, spb = 0, ws = 32, clk = 0, memclk = 0;
        attr(&sms, 16, d);   /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
        attr(&maj, 75, d);   /* COMPUTE_CAPABILITY_MAJOR */
        attr(&min, 76, d);   /* COMPUTE_CAPABILITY_MINOR */
        attr(&tpm, 39, d);   /* MAX_THREADS_PER_MULTIPROCESSOR */
        attr(&tpb, 1, d);    /* MAX_THREADS_PER_BLOCK */
        attr(&rpm, 82, d);   /* MAX_REGISTERS_PER_MULTIPROCESSOR */
        attr(&rpb, 12, d);   /* MAX_REGISTERS_PER_BLOCK */
        attr(&spm, 81, d);   /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
        attr(&spb, 8, d);    /* MAX_SHARED_MEMORY_PER_BLOCK */
        attr(&ws, 10, d);    /* WARP_SIZE */
        attr(&clk, 13, d);   /* CLOCK_RATE (kHz) */
        attr(&memclk, 36, d);/* MEMORY_CLOCK_RATE (kHz) */
        size_t total = 0;
        if (mem) mem(&total, d);
        fprintf(f, "%s{\"id\": %d, \"name\": \"%s\", \"totalGlobalMem\": %zu, \"computeMajor\": %d, \"computeMinor\": %d, \"numSms\": %d, "
                   "\"maxThreadsPerMultiprocessor\": %d, \"maxThreadsPerBlock\": %d, \"regsPerMultiprocessor\": %d, \"regsPerBlock\": %d, "
                   "\"sharedMemPerMultiprocessor\": %d, \"sharedMemPerBlock\": %d, \"warpSize\": %d, \"clockRateKHz\": %d, \"memoryClockRateKHz\": %d}",
                d ? ", " : "", d, esc, total, maj, min, sms, tpm, tpb, rpm, rpb, spm, spb, ws, clk, memclk);
    }
    fputs("]\n", f);
    fclose(f);
}

static int start_cupti(void) {
    void *h = open_cupti();
    if (!h) {
        note("CUPTI not found (set PERFCARD_CUPTI_PATH): recording CPU utilization and markers only");
        return 0;
    }
    C.h = h;
    *(void **)&C.register_callbacks = dlsym(h, "cuptiActivityRegisterCallbacks");
    *(void **)&C.enable = dlsym(h, "cuptiActivityEnable");
    *(void **)&C.next_record = dlsym(h, "cuptiActivityGetNextRecord");
    *(void **)&C.flush_all = dlsym(h, "cuptiActivityFlushAll");
    *(void **)&C.callback_name = dlsym(h, "cuptiGetCallbackName");
    *(void **)&C.register_timestamp = dlsym(h, "cuptiActivityRegisterTimestampCallback");
    if (!C.register_callbacks || !C.enable || !C.next_record || !C.flush_all) {
        note("this CUPTI lacks the activity API: recording CPU utilization and markers only");
        return 0;
    }
    if (C.register_timestamp) C.register_timestamp(timestamp); /* the same clock as markers and CPU samples */
    if (C.register_callbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
        note("CUPTI refused to start: recording CPU utilization and markers only");
        return 0;
    }
    static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
                                               CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MARKER,
                                               CUPTI_ACTIVITY_KIND_OVERHEAD};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) C.enable(kinds[i]);
    g_cupti_flush = (int (*)(uint32_t))C.flush_all;
    write_devices();
    writer(); /* starts the flush thread and the exit hook */
    return 1;
}
#endif

/* Called by the CUDA driver when CUDA_INJECTION64_PATH names this library. */
EXPORT int InitializeInjection(void) {
    if (!trace_dir()) return 1;
#if PC_HAVE_CUPTI
    start_cupti();
#else
    note("built without CUPTI: recording CPU utilization and markers only");
#endif
    return 1;
}

/* Preloaded (LD_PRELOAD) without CUDA: make sure the flush thread exists so
 * markers reach the file even if the program never uses a GPU. */
__attribute__((constructor)) static void on_load(void) {
    if (trace_dir() && getenv("PERFCARD_ANNOUNCE")) writer();
}
