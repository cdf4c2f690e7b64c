/* cupti.c - the CUPTI part of libperfcard_inject.so (see inject.h).
 *
 * CUPTI is opened with dlopen and used through its documented C API only,
 * with perfcard's own record views (records.h): the library builds without
 * CUDA headers and reads the records of any CUPTI since CUDA 9. Which
 * libcupti: the copy the program already loaded (PyTorch links its own; a
 * second copy beside it would fight it for the activity API), else
 * PERFCARD_CUPTI_PATH, else the system's. Every CUPTI result is checked; a
 * kind CUPTI refuses is named once on stderr and in the metadata. API
 * records carry OS thread ids (cuptiSetThreadIdType SYSTEM), the ids CPU
 * samples, NVTX ranges and markers use. Records CUPTI dropped for lack of
 * buffer space are counted (cuptiActivityGetNumDroppedRecords), records not
 * finished at a flush (end 0) are counted and left out. Kernel names are
 * demangled (__cxa_demangle, when the process has a C++ runtime). The
 * driver is found where it is loaded (libcuda.so.1, RTLD_NOLOAD): CUDA 13's
 * runtime opens it without RTLD_GLOBAL, so dlsym(RTLD_DEFAULT) finds nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "inject.h"
#include "records.h"
#include "writer.h"
#include "../util/apiname.h"
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CUPTIAPI
typedef int cu_result;
typedef void(CUPTIAPI *buf_req_t)(uint8_t **buf, size_t *size, size_t *max_records);
typedef void(CUPTIAPI *buf_done_t)(void *ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid);
typedef void(CUPTIAPI *api_cb_t)(void *userdata, int domain, uint32_t cbid, const void *data);

static struct {
    void *h;
    cu_result (*register_callbacks)(buf_req_t, buf_done_t);
    cu_result (*enable)(int kind);
    cu_result (*next_record)(uint8_t *, size_t, void **);
    cu_result (*flush_all)(uint32_t);
    cu_result (*callback_name)(int domain, uint32_t cbid, const char **);
    cu_result (*register_timestamp)(uint64_t (*)(void));
    cu_result (*dropped)(void *ctx, uint32_t stream, size_t *);
    cu_result (*set_thread_id_type)(int);
    cu_result (*get_version)(uint32_t *);
    cu_result (*result_string)(cu_result, const char **);
    cu_result (*subscribe)(void **, api_cb_t, void *);
    cu_result (*enable_callback)(uint32_t, void *, int, uint32_t);
} C;
static int g_on; /* activity recorded */
static char g_meta[1024], g_devices[8192] = "[]";
static char g_refused[256];
static uint32_t g_version;
static int g_driver_version, g_runtime_version, g_system_tids;

static const char *result_text(cu_result r) {
    const char *s = NULL;
    if (C.result_string) C.result_string(r, &s);
    return s ? s : "error";
}

/* ---------- names ---------- */

typedef char *(*demangle_t)(const char *, char *, size_t *, int *);
static demangle_t g_demangle;
static pthread_mutex_t g_dm = PTHREAD_MUTEX_INITIALIZER;
enum { DM_SLOTS = 4096 };
static struct { char *mangled, *plain; } g_dmc[DM_SLOTS];

static void find_demangler(void) {
    *(void **)&g_demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!g_demangle) {
        void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        if (h) *(void **)&g_demangle = dlsym(h, "__cxa_demangle");
    }
}

/* A kernel's name as people read it ("void at::native::f<4>(int)"); cached. */
static void kernel_name(char *out, size_t cap, const char *n) {
    if (!n) n = "(unnamed kernel)";
    if (n[0] != '_' || n[1] != 'Z' || !g_demangle) { tw_escape(out, cap, n); return; }
    uint64_t h = 1469598103934665603ull;
    for (const char *p = n; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    pthread_mutex_lock(&g_dm);
    for (unsigned i = 0; i < 16; i++) {
        unsigned s = (unsigned)((h + i) % DM_SLOTS);
        if (g_dmc[s].mangled && !strcmp(g_dmc[s].mangled, n)) {
            tw_escape(out, cap, g_dmc[s].plain);
            pthread_mutex_unlock(&g_dm);
            return;
        }
        if (!g_dmc[s].mangled) {
            int st = -1;
            char *d = g_demangle(n, NULL, NULL, &st);
            char *m = strdup(n);
            if (st != 0 || !d || !m) { free(d), free(m); break; }
            g_dmc[s].mangled = m, g_dmc[s].plain = d;
            tw_escape(out, cap, d);
            pthread_mutex_unlock(&g_dm);
            return;
        }
    }
    pthread_mutex_unlock(&g_dm);
    int st = -1;
    char *d = g_demangle(n, NULL, NULL, &st);
    tw_escape(out, cap, st == 0 && d ? d : n);
    free(d);
}

static const char *mem_kind(int k) {
    switch (k) {
    case REC_MEM_PAGEABLE: return "Pageable";
    case REC_MEM_PINNED: return "Pinned";
    case REC_MEM_DEVICE: return "Device";
    case REC_MEM_MANAGED: return "Managed";
    case REC_MEM_ARRAY: return "Array";
    default: return "Unknown";
    }
}
static const char *copy_kind(int k) {
    switch (k) {
    case REC_HTOD: return "HtoD";
    case REC_DTOH: return "DtoH";
    case REC_DTOD: return "DtoD";
    case REC_HTOH: return "HtoH";
    case REC_PTOP: return "PtoP";
    case REC_HTOA: return "HtoA";
    case REC_ATOH: return "AtoH";
    case REC_ATOA: return "AtoA";
    case REC_ATOD: return "AtoD";
    case REC_DTOA: return "DtoA";
    default: return "Unknown";
    }
}
static const char *sync_name(int t) {
    switch (t) {
    case REC_SYNC_EVENT: return "Event Sync";
    case REC_SYNC_STREAM_WAIT_EVENT: return "Stream Wait Event";
    case REC_SYNC_STREAM: return "Stream Sync";
    case REC_SYNC_CONTEXT: return "Context Sync";
    default: return "Synchronization";
    }
}

/* ---------- records ---------- */

enum { BUF_SIZE = 8 << 20, MAX_MARKERS = 4096 };
static struct { uint32_t id; uint64_t ts; char name[256]; } g_markers[MAX_MARKERS];
static pthread_mutex_t g_mk = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_alloc_mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t g_allocated[64]; /* bytes allocated per device, from memory records */

/* delivered buffers are kept for reuse (a fresh 8 MiB buffer costs 2,048 page faults) */
enum { FREE_BUFS = 8 };
static uint8_t *g_free[FREE_BUFS];
static int g_nfree;
static pthread_mutex_t g_free_mu = PTHREAD_MUTEX_INITIALIZER;

static void release_buffer(uint8_t *b) {
    pthread_mutex_lock(&g_free_mu);
    if (g_nfree < FREE_BUFS) g_free[g_nfree++] = b, b = NULL;
    pthread_mutex_unlock(&g_free_mu);
    free(b);
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records) {
    pthread_mutex_lock(&g_free_mu);
    *buf = g_nfree ? g_free[--g_nfree] : NULL;
    pthread_mutex_unlock(&g_free_mu);
    if (!*buf) *buf = aligned_alloc(8, BUF_SIZE);
    *size = *buf ? BUF_SIZE : 0;
    *max_records = 0;
}

/* a record to leave out: not finished (end 0, or before its start), or outside the window */
static int skip(uint64_t start, uint64_t end) {
    if (end == 0 || end < start) {
        __atomic_add_fetch(&ij_incomplete, 1, __ATOMIC_RELAXED);
        return 1;
    }
    if (!ij_recording(start)) {
        __atomic_add_fetch(&ij_outside, 1, __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

/* a copy or a set on the device: its name made by the caller (no quotes to escape) */
static void emit_mem(const char *cat, const char *name, uint32_t dev, uint32_t ctx, uint32_t stream, uint32_t corr, uint64_t start,
                     uint64_t end, uint64_t bytes) {
    char a[32], d[32];
    ij_emit("{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %u, \"tid\": %u, \"ts\": %s, \"dur\": %s, "
            "\"args\": {\"device\": %u, \"context\": %u, \"stream\": %u, \"correlation\": %u, \"bytes\": %llu}}",
            cat, name, dev, stream, ij_ts(a, start), (tw_ts(d, end, start), d), dev, ctx, stream, corr, (unsigned long long)bytes);
}

static void record(const void *r) {
    char name[2048], a[32], d[32];
    uint32_t kind = *(const uint32_t *)r;
    switch (kind) {
    case REC_CONCURRENT_KERNEL:
    case REC_KERNEL: {
        const rec_kernel *k = r;
        if (skip(k->start, k->end)) break;
        kernel_name(name, sizeof name, k->name);
        ij_emit("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": %u, \"tid\": %u, \"ts\": %s, \"dur\": %s, "
                "\"args\": {\"device\": %u, \"context\": %u, \"stream\": %u, \"correlation\": %u, \"registers per thread\": %u, "
                "\"shared memory\": %d, \"grid\": [%d, %d, %d], \"block\": [%d, %d, %d]}}",
                name, k->deviceId, k->streamId, ij_ts(a, k->start), (tw_ts(d, k->end, k->start), d), k->deviceId, k->contextId, k->streamId,
                k->correlationId, (unsigned)k->registersPerThread, k->staticSharedMemory + k->dynamicSharedMemory, k->gridX, k->gridY,
                k->gridZ, k->blockX, k->blockY, k->blockZ);
        break;
    }
    case REC_MEMCPY: {
        const rec_memcpy *m = r;
        if (skip(m->start, m->end)) break;
        snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", copy_kind(m->copyKind), mem_kind(m->srcKind), mem_kind(m->dstKind));
        emit_mem("gpu_memcpy", name, m->deviceId, m->contextId, m->streamId, m->correlationId, m->start, m->end, m->bytes);
        break;
    }
    case REC_MEMSET: {
        const rec_memset *m = r;
        if (skip(m->start, m->end)) break;
        snprintf(name, sizeof name, "Memset (%s)", mem_kind(m->memoryKind));
        emit_mem("gpu_memset", name, m->deviceId, m->contextId, m->streamId, m->correlationId, m->start, m->end, m->bytes);
        break;
    }
    case REC_RUNTIME:
    case REC_DRIVER: {
        const rec_api *p = r;
        if (skip(p->start, p->end)) break;
        const char *n = NULL;
        int rt = kind == REC_RUNTIME;
        if (C.callback_name) C.callback_name(rt ? REC_DOMAIN_RUNTIME : REC_DOMAIN_DRIVER, p->cbid, &n);
        char fallback[32], base[256];
        if (!n) snprintf(fallback, sizeof fallback, "cbid %u", p->cbid), n = fallback;
        /* the API the program called: cudaLaunchKernel, not CUPTI's cudaLaunchKernel_v7000 */
        snprintf(base, sizeof base, "%.*s", (int)api_name_len(n), n);
        tw_escape(name, sizeof name, base);
        ij_emit("{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %u, \"tid\": %u, \"ts\": %s, \"dur\": %s, "
                "\"args\": {\"cbid\": %u, \"correlation\": %u}}",
                rt ? "cuda_runtime" : "cuda_driver", name, p->processId, p->threadId, ij_ts(a, p->start), (tw_ts(d, p->end, p->start), d),
                p->cbid, p->correlationId);
        break;
    }
    case REC_SYNCHRONIZATION: {
        const rec_sync *s = r;
        if (skip(s->start, s->end)) break;
        ij_emit("{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": %s, \"dur\": %s, "
                "\"args\": {\"context\": %u, \"stream\": %d, \"correlation\": %u}}",
                sync_name((int)s->type), (int)getpid(), s->streamId, ij_ts(a, s->start), (tw_ts(d, s->end, s->start), d), s->contextId,
                s->streamId == UINT32_MAX ? -1 : (int)s->streamId, s->correlationId);
        break;
    }
    case REC_MARKER: {
        const rec_marker *m = r;
        /* NVTX ranges: a START record with the name, an END record with the id */
        pthread_mutex_lock(&g_mk);
        uint32_t slot = m->id % MAX_MARKERS;
        if (m->flags & REC_MARKER_START) {
            g_markers[slot].id = m->id;
            g_markers[slot].ts = m->timestamp;
            tw_escape(g_markers[slot].name, sizeof g_markers[slot].name, m->name ? m->name : "");
            pthread_mutex_unlock(&g_mk);
        } else if ((m->flags & REC_MARKER_END) && g_markers[slot].id == m->id) {
            uint64_t ts = g_markers[slot].ts;
            snprintf(name, sizeof name, "%s", g_markers[slot].name);
            g_markers[slot].id = 0;
            pthread_mutex_unlock(&g_mk);
            if (skip(ts, m->timestamp)) break;
            ij_emit("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\", \"pid\": %d, \"tid\": %u, \"ts\": %s, \"dur\": %s}", name,
                    (int)getpid(), m->objectKind == REC_OBJECT_THREAD ? m->objectId.pt.threadId : 0u, ij_ts(a, ts),
                    (tw_ts(d, m->timestamp, ts), d));
        } else pthread_mutex_unlock(&g_mk);
        break;
    }
    case REC_MEMORY2: {
        const rec_memory *m = r;
        int alloc = m->memoryOperationType == REC_MEMORY_ALLOCATION;
        if (!alloc && m->memoryOperationType != REC_MEMORY_RELEASE) break;
        /* the running total counts every record, in or out of the window */
        pthread_mutex_lock(&g_alloc_mu);
        int64_t *tot = &g_allocated[m->deviceId % 64];
        *tot += alloc ? (int64_t)m->bytes : -(int64_t)m->bytes;
        if (*tot < 0) *tot = 0;
        int64_t total = *tot;
        pthread_mutex_unlock(&g_alloc_mu);
        if (!ij_recording(m->timestamp)) {
            __atomic_add_fetch(&ij_outside, 1, __ATOMIC_RELAXED);
            break;
        }
        /* PyTorch's memory events: Bytes > 0 allocates, < 0 frees; Device Type 1 is CUDA */
        ij_emit("{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": %d, \"tid\": %u, \"ts\": %s, "
                "\"args\": {\"Addr\": %llu, \"Bytes\": %s%llu, \"Total Allocated\": %lld, \"Device Id\": %u, \"Device Type\": 1, "
                "\"stream\": %u, \"correlation\": %u}}",
                (int)getpid(), m->streamId, ij_ts(a, m->timestamp), (unsigned long long)m->address, alloc ? "" : "-",
                (unsigned long long)m->bytes, (long long)total, m->deviceId, m->streamId, m->correlationId);
        break;
    }
    case REC_OVERHEAD: {
        const rec_overhead *o = r;
        if (skip(o->start, o->end)) break;
        ij_emit("{\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"CUPTI overhead (kind %u)\", \"pid\": %d, \"tid\": 0, \"ts\": %s, \"dur\": %s}",
                o->overheadKind, (int)getpid(), ij_ts(a, o->start), (tw_ts(d, o->end, o->start), d));
        break;
    }
    default: break;
    }
}

static int g_delivering; /* buffers being turned into events now, on any thread */

void cu_wait_deliveries(void) {
    /* CUPTI may deliver on its own thread while the program exits: its events go in before the trace closes */
    for (int i = 0; i < 5000 && __atomic_load_n(&g_delivering, __ATOMIC_ACQUIRE) > 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

static void CUPTIAPI buffer_completed(void *ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
    (void)size;
    __atomic_add_fetch(&g_delivering, 1, __ATOMIC_ACQ_REL);
    void *r = NULL;
    while (valid > 0 && C.next_record(buf, valid, &r) == REC_SUCCESS) record(r);
    size_t dropped = 0;
    if (C.dropped && C.dropped(ctx, stream, &dropped) == REC_SUCCESS && dropped)
        __atomic_add_fetch(&ij_dropped, (unsigned long long)dropped, __ATOMIC_RELAXED);
    release_buffer(buf);
    __atomic_sub_fetch(&g_delivering, 1, __ATOMIC_ACQ_REL);
}

void cu_flush(int forced) {
    if (g_on && C.flush_all) C.flush_all(forced ? REC_FLUSH_FORCED : 0);
}

static uint64_t timestamp(void) { return tw_now_ns(); }

/* ---------- finding libraries ---------- */

static int find_loaded_cb(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *n = info->dlpi_name, *want = ((const char **)data)[0];
    const char *base = n ? strrchr(n, '/') : NULL;
    base = base ? base + 1 : n;
    if (base && !strncmp(base, want, strlen(want))) {
        snprintf(((char **)data)[1], 4096, "%s", n);
        return 1;
    }
    return 0;
}

/* a library the process already loaded whose file name starts with `prefix` */
static void *find_loaded(const char *prefix) {
    char path[4096] = "";
    const void *data[2] = {prefix, path};
    if (!dl_iterate_phdr(find_loaded_cb, data) || !path[0]) return NULL;
    return dlopen(path, RTLD_NOW | RTLD_NOLOAD);
}

static void *open_cupti(void) {
    void *h = find_loaded("libcupti.so");
    if (h) return h;
    const char *env = getenv("PERFCARD_CUPTI_PATH");
    const char *home = getenv("CUDA_HOME");
    char p1[4200], p2[4200];
    snprintf(p1, sizeof p1, "%s/lib64/libcupti.so", home && *home ? home : "/usr/local/cuda");
    snprintf(p2, sizeof p2, "%s/extras/CUPTI/lib64/libcupti.so", home && *home ? home : "/usr/local/cuda");
    const char *cands[] = {env, "libcupti.so", "libcupti.so.13", "libcupti.so.12", p1, p2};
    for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
        if (!cands[i] || !*cands[i]) continue;
        h = dlopen(cands[i], RTLD_NOW | RTLD_GLOBAL);
        if (h) return h;
    }
    return NULL;
}

/* the driver as loaded (CUDA 13's runtime keeps it out of the global namespace) */
static void *driver_sym(const char *name) {
    static void *h;
    if (!h) h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *s = h ? dlsym(h, name) : NULL;
    return s ? s : dlsym(RTLD_DEFAULT, name);
}

/* the devices' properties into g_devices; 0 when the driver gives none */
static int read_devices(void) {
    int (*count)(int *) = (int (*)(int *))driver_sym("cuDeviceGetCount");
    int (*gname)(char *, int, int) = (int (*)(char *, int, int))driver_sym("cuDeviceGetName");
    int (*attr)(int *, int, int) = (int (*)(int *, int, int))driver_sym("cuDeviceGetAttribute");
    int (*mem)(size_t *, int) = (int (*)(size_t *, int))driver_sym("cuDeviceTotalMem_v2");
    int (*drv)(int *) = (int (*)(int *))driver_sym("cuDriverGetVersion");
    if (drv) drv(&g_driver_version);
    int (*rtv)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
    if (!rtv) {
        void *h = find_loaded("libcudart.so");
        if (h) rtv = (int (*)(int *))dlsym(h, "cudaRuntimeGetVersion");
    }
    if (rtv) rtv(&g_runtime_version);
    int n = 0;
    if (!count || !gname || !attr || count(&n) != 0 || n <= 0) return 0;
    size_t len = 0;
    len += (size_t)snprintf(g_devices + len, sizeof g_devices - len, "[");
    for (int dev = 0; dev < n && dev < 16 && len < sizeof g_devices - 1024; dev++) {
        char nm[256] = "", esc[512];
        gname(nm, sizeof nm, dev);
        tw_escape(esc, sizeof esc, nm);
        int sms = 0, maj = 0, min = 0, tpm = 0, tpb = 0, rpm = 0, rpb = 0, spm = 0, spb = 0, ws = 32, clk = 0, memclk = 0;
        attr(&sms, 16, dev);   /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
        attr(&maj, 75, dev);   /* COMPUTE_CAPABILITY_MAJOR */
        attr(&min, 76, dev);   /* COMPUTE_CAPABILITY_MINOR */
        attr(&tpm, 39, dev);   /* MAX_THREADS_PER_MULTIPROCESSOR */
        attr(&tpb, 1, dev);    /* MAX_THREADS_PER_BLOCK */
        attr(&rpm, 82, dev);   /* MAX_REGISTERS_PER_MULTIPROCESSOR */
        attr(&rpb, 12, dev);   /* MAX_REGISTERS_PER_BLOCK */
        attr(&spm, 81, dev);   /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
        attr(&spb, 8, dev);    /* MAX_SHARED_MEMORY_PER_BLOCK */
        attr(&ws, 10, dev);    /* WARP_SIZE */
        attr(&clk, 13, dev);   /* CLOCK_RATE (kHz) */
        attr(&memclk, 36, dev);/* MEMORY_CLOCK_RATE (kHz) */
        size_t total = 0;
        if (mem) mem(&total, dev);
        len += (size_t)snprintf(g_devices + len, sizeof g_devices - len,
                                "%s{\"id\": %d, \"name\": \"%s\", \"totalGlobalMem\": %zu, \"computeMajor\": %d, \"computeMinor\": %d, "
                                "\"numSms\": %d, \"maxThreadsPerMultiprocessor\": %d, \"maxThreadsPerBlock\": %d, \"regsPerMultiprocessor\": %d, "
                                "\"regsPerBlock\": %d, \"sharedMemPerMultiprocessor\": %d, \"sharedMemPerBlock\": %d, \"warpSize\": %d, "
                                "\"clockRateKHz\": %d, \"memoryClockRateKHz\": %d}",
                                dev ? ", " : "", dev, esc, total, maj, min, sms, tpm, tpb, rpm, rpb, spm, spb, ws, clk, memclk);
    }
    snprintf(g_devices + len, sizeof g_devices - len, "]");
    return 1;
}

static void CUPTIAPI on_api(void *userdata, int domain, uint32_t cbid, const void *data) {
    (void)userdata;
    const rec_callback *cb = data;
    if (domain != REC_DOMAIN_RUNTIME || !cb) return;
    if (cbid == REC_CBID_PROFILER_START && cb->callbackSite == REC_API_EXIT) ij_window_set(tw_now_ns(), 1);
    if (cbid == REC_CBID_PROFILER_STOP && cb->callbackSite == REC_API_ENTER) ij_window_set(tw_now_ns(), 0);
}

static void refuse(const char *what, cu_result r) {
    size_t n = strlen(g_refused);
    snprintf(g_refused + n, sizeof g_refused - n, "%s\"%s\"", n ? ", " : "", what);
    ij_note("CUPTI refused to record %s (%s): the trace has none", what, result_text(r));
}

static void write_meta_fields(const char *path) {
    const char *base = path ? strrchr(path, '/') : NULL;
    char esc[256];
    tw_escape(esc, sizeof esc, base ? base + 1 : path ? path : "");
    snprintf(g_meta, sizeof g_meta,
             "\"cupti\": \"%s\", \"cupti_api_version\": %u, \"cuda_driver_version\": %d, \"cuda_runtime_version\": %d, "
             "\"thread_ids\": \"%s\", \"refused\": [%s]",
             esc, g_version, g_driver_version, g_runtime_version, g_system_tids ? "os" : "cupti", g_refused);
}

int cu_start(void) {
    find_demangler();
    int devices = read_devices();
    void *h = open_cupti();
    if (!h) {
        ij_note("CUPTI not found (set PERFCARD_CUPTI_PATH): recording CPU utilization and markers only");
        write_meta_fields(NULL);
        return 0;
    }
    C.h = h;
    *(void **)&C.register_callbacks = dlsym(h, "cuptiActivityRegisterCallbacks");
    *(void **)&C.enable = dlsym(h, "cuptiActivityEnable");
    *(void **)&C.next_record = dlsym(h, "cuptiActivityGetNextRecord");
    *(void **)&C.flush_all = dlsym(h, "cuptiActivityFlushAll");
    *(void **)&C.callback_name = dlsym(h, "cuptiGetCallbackName");
    *(void **)&C.register_timestamp = dlsym(h, "cuptiActivityRegisterTimestampCallback");
    *(void **)&C.dropped = dlsym(h, "cuptiActivityGetNumDroppedRecords");
    *(void **)&C.set_thread_id_type = dlsym(h, "cuptiSetThreadIdType");
    *(void **)&C.get_version = dlsym(h, "cuptiGetVersion");
    *(void **)&C.result_string = dlsym(h, "cuptiGetResultString");
    *(void **)&C.subscribe = dlsym(h, "cuptiSubscribe");
    *(void **)&C.enable_callback = dlsym(h, "cuptiEnableCallback");
    Dl_info di;
    const char *path = C.register_callbacks && dladdr(*(void **)&C.register_callbacks, &di) ? di.dli_fname : NULL;
    if (C.get_version) C.get_version(&g_version);
    if (!C.register_callbacks || !C.enable || !C.next_record || !C.flush_all) {
        ij_note("this CUPTI lacks the activity API: recording CPU utilization and markers only");
        write_meta_fields(path);
        return 0;
    }
    cu_result r;
    if (C.register_timestamp) C.register_timestamp(timestamp); /* the clock of markers and CPU samples */
    /* OS thread ids, as in CPU samples, NVTX ranges and markers: set before any record */
    cu_result tid_r = C.set_thread_id_type ? C.set_thread_id_type(REC_THREAD_ID_SYSTEM) : -1;
    g_system_tids = tid_r == REC_SUCCESS;
    if ((r = C.register_callbacks(buffer_requested, buffer_completed)) != REC_SUCCESS) {
        ij_note("CUPTI refused to start (%s): recording CPU utilization and markers only", result_text(r));
        write_meta_fields(path);
        return 0;
    }
    if (ij_profiler_api()) {
        void *sub = NULL;
        r = C.subscribe ? C.subscribe(&sub, on_api, NULL) : -1;
        if (r == REC_SUCCESS) r = C.enable_callback(1, sub, REC_DOMAIN_RUNTIME, REC_CBID_PROFILER_START);
        if (r == REC_SUCCESS) r = C.enable_callback(1, sub, REC_DOMAIN_RUNTIME, REC_CBID_PROFILER_STOP);
        if (r != REC_SUCCESS) {
            ij_note("cudaProfilerStart/Stop cannot be observed (%s: another tool holds CUPTI's callback API): recording the whole run",
                    r == -1 ? "no cuptiSubscribe" : result_text(r));
            ij_window_set(0, 1);
        }
    }
    static const struct { int kind; const char *what; } kinds[] = {
        {REC_CONCURRENT_KERNEL, "kernels"}, {REC_MEMCPY, "memory copies"}, {REC_MEMSET, "memsets"}, {REC_RUNTIME, "runtime API calls"},
        {REC_DRIVER, "driver API calls"}, {REC_SYNCHRONIZATION, "synchronizations"}, {REC_MARKER, "NVTX ranges"},
        {REC_MEMORY2, "memory allocations"}, {REC_OVERHEAD, "CUPTI overhead"}};
    enum { NKINDS = sizeof kinds / sizeof *kinds };
    cu_result res[NKINDS];
    int any = 0;
    for (size_t i = 0; i < NKINDS; i++) {
        res[i] = C.enable(kinds[i].kind);
        if (res[i] != REC_SUCCESS && kinds[i].kind == REC_CONCURRENT_KERNEL && C.enable(REC_KERNEL) == REC_SUCCESS)
            res[i] = REC_SUCCESS; /* serialized kernels */
        any |= res[i] == REC_SUCCESS;
    }
    g_on = any;
    if (!any) { /* no GPU, no driver: one line, not one per kind */
        ij_note("CUPTI records nothing here (%s): recording CPU utilization and markers only", result_text(res[0]));
        write_meta_fields(path);
        return 0;
    }
    for (size_t i = 0; i < NKINDS; i++)
        if (res[i] != REC_SUCCESS) refuse(kinds[i].what, res[i]);
    if (!g_system_tids)
        ij_note("CUPTI cannot give OS thread ids (%s): API calls' threads are CUPTI's own numbers",
                tid_r == -1 ? "no cuptiSetThreadIdType" : result_text(tid_r));
    if (!devices) ij_note("no CUDA device found through the driver: device properties are not recorded");
    write_meta_fields(path);
    return any;
}

/* NVTX_INJECTION64_PATH names this library: NVTX ranges go to the CUPTI in
 * use (never a second copy beside the program's), except CUPTI 13.0.0,
 * whose NVTX injection crashes (NVIDIA/NVTX#125, fixed in 13.0 Update 1). */
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t)) {
    if (!ij_active()) return 0;
    void *h = C.h ? C.h : open_cupti();
    if (!h) return 0;
    uint32_t v = 0;
    cu_result (*version)(uint32_t *) = (cu_result(*)(uint32_t *))dlsym(h, "cuptiGetVersion");
    if (version) version(&v);
    if (v == 130000) {
        ij_note("CUPTI 13.0.0 crashes in NVTX's injection (NVIDIA/NVTX#125): NVTX ranges are not recorded; CUDA 13.0 Update 1 fixes it");
        return 0;
    }
    int (*init)(const void *(*)(uint32_t)) = (int (*)(const void *(*)(uint32_t)))dlsym(h, "InitializeInjectionNvtx2");
    return init ? init(get_export_table) : 0;
}

const char *cu_meta(void) { return g_meta; }
const char *cu_devices(void) { return g_devices; }
