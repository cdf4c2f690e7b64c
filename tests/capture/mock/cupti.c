/* cupti.c - a mock CUPTI (libcupti.so) for tests/capture; see mock.h.
 *
 * Implements the part of CUPTI's activity and callback APIs perfcard uses,
 * with CUPTI's documented behaviour: records are delivered in buffers the
 * tool hands out (buffer-requested callback) and returned full or at a flush
 * (buffer-completed callback); a record with no buffer space is dropped and
 * counted (cuptiActivityGetNumDroppedRecords, reset at each call); API
 * records carry a thread id by the thread-id type (DEFAULT: pthread_self,
 * SYSTEM: the OS thread id); one callback subscriber at a time; callback
 * names carry CUPTI's version suffixes ("cudaLaunchKernel_v7000").
 * It is also an NVTX injection (InitializeInjectionNvtx2): NVTX push/pop and
 * start/end ranges become MARKER records.
 *
 * Knobs (environment), to reach the paths a real GPU reaches rarely:
 *   MOCK_CUPTI_VERSION=N        what cuptiGetVersion says (default 130001)
 *   MOCK_CUPTI_REFUSE=K,K       activity kinds cuptiActivityEnable refuses
 *   MOCK_CUPTI_BUFFER_LIMIT=B   use at most B bytes of each buffer (buffers fill up)
 *   MOCK_CUPTI_DROP_EVERY=N     drop every Nth record (as with no buffer space)
 *   MOCK_CUPTI_INCOMPLETE=N     a forced flush returns N kernel records not finished (end 0)
 *   MOCK_CUPTI_LOG=FILE         append "load <path>" when this library is loaded */
#define _GNU_SOURCE
#include "mock.h"
#include <cupti.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc g_req;
static CUpti_BuffersCallbackCompleteFunc g_done;
static CUpti_TimestampCallbackFunc g_clock;
static int g_enabled[CUPTI_ACTIVITY_KIND_COUNT];
static CUpti_ActivityThreadIdType g_tid_type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
static uint8_t *g_buf;
static size_t g_size, g_used;
static size_t g_dropped, g_nrecords;
static uint32_t g_corr;
static CUpti_CallbackFunc g_sub_fn;
static void *g_sub_data;
static int g_sub_on[2][1024]; /* [runtime, driver][cbid] */

static long knob(const char *name, long dflt) {
    const char *v = getenv(name);
    return v && *v ? atol(v) : dflt;
}

__attribute__((constructor)) static void loaded(void) {
    const char *log = getenv("MOCK_CUPTI_LOG");
    Dl_info di;
    if (log && dladdr((void *)loaded, &di)) {
        FILE *f = fopen(log, "a");
        if (f) fprintf(f, "load %s\n", di.dli_fname), fclose(f);
    }
}

static uint64_t wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t now(void) { return g_clock ? g_clock() : wall(); }
static uint32_t correlation(void) { return __atomic_add_fetch(&g_corr, 1, __ATOMIC_RELAXED); }
static uint32_t thread_id(void) {
    return g_tid_type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM ? (uint32_t)syscall(SYS_gettid) : (uint32_t)pthread_self();
}

/* Hands the current buffer back to the tool (outside the lock: the tool may call us). */
static void deliver(uint8_t *buf, size_t size, size_t used) {
    if (buf && g_done) g_done(NULL, 0, buf, size, used);
}

/* records sit in the buffer as [uint32 size][uint32 0][record], 8-byte aligned */
static void put(const void *rec, size_t size) {
    CUpti_ActivityKind kind = ((const CUpti_Activity *)rec)->kind;
    if ((int)kind <= 0 || (int)kind >= CUPTI_ACTIVITY_KIND_COUNT) return;
    uint8_t *full = NULL;
    size_t full_size = 0, full_used = 0;
    pthread_mutex_lock(&g_mu);
    if (!g_enabled[kind] || !g_req) { pthread_mutex_unlock(&g_mu); return; }
    long every = knob("MOCK_CUPTI_DROP_EVERY", 0);
    if (every > 0 && ++g_nrecords % (size_t)every == 0) { g_dropped++; pthread_mutex_unlock(&g_mu); return; }
    size_t need = 8 + ((size + 7) & ~(size_t)7);
    size_t limit = (size_t)knob("MOCK_CUPTI_BUFFER_LIMIT", 0);
    size_t cap = limit && limit < g_size ? limit : g_size;
    if (g_buf && g_used + need > cap) {
        full = g_buf, full_size = g_size, full_used = g_used;
        g_buf = NULL;
    }
    if (!g_buf) {
        size_t max = 0;
        g_req(&g_buf, &g_size, &max);
        g_used = 0;
        if (!g_buf || g_size < need) { g_buf = NULL; g_dropped++; pthread_mutex_unlock(&g_mu); deliver(full, full_size, full_used); return; }
    }
    uint32_t hdr[2] = {(uint32_t)size, 0};
    memcpy(g_buf + g_used, hdr, 8);
    memcpy(g_buf + g_used + 8, rec, size);
    if (kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER) {
        CUpti_ActivityAPI *a = (CUpti_ActivityAPI *)(void *)(g_buf + g_used + 8);
        a->processId = (uint32_t)getpid();
        a->threadId = thread_id();
    }
    g_used += need;
    pthread_mutex_unlock(&g_mu);
    deliver(full, full_size, full_used);
}

static void callback(int domain, uint32_t cbid, int site, uint32_t corr, const char *symbol);
static const mock_tool k_tool = {now, correlation, callback, put};

static void attach(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen("libcuda.so.1", RTLD_NOW);
    void (*at)(const mock_tool *) = h ? (void (*)(const mock_tool *))dlsym(h, "mockcuda_attach") : NULL;
    if (at) at(&k_tool);
}

EXPORT CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *v) {
    *v = (uint32_t)knob("MOCK_CUPTI_VERSION", 130001);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult r, const char **s) {
    *s = r == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : r == CUPTI_ERROR_NOT_COMPATIBLE ? "CUPTI_ERROR_NOT_COMPATIBLE" : "CUPTI_ERROR_UNKNOWN";
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done) {
    if (!req || !done) return CUPTI_ERROR_INVALID_PARAMETER;
    g_req = req, g_done = done;
    attach();
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc fn) {
    g_clock = fn;
    return CUPTI_SUCCESS;
}

static int refused(CUpti_ActivityKind k) {
    const char *v = getenv("MOCK_CUPTI_REFUSE");
    for (const char *p = v; p && *p;) {
        if (atoi(p) == (int)k) return 1;
        p = strchr(p, ',');
        if (p) p++;
    }
    return 0;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind k) {
    if ((int)k <= 0 || (int)k >= CUPTI_ACTIVITY_KIND_COUNT) return CUPTI_ERROR_INVALID_KIND;
    if (refused(k)) return CUPTI_ERROR_NOT_COMPATIBLE;
    g_enabled[k] = 1;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind k) {
    if ((int)k <= 0 || (int)k >= CUPTI_ACTIVITY_KIND_COUNT) return CUPTI_ERROR_INVALID_KIND;
    g_enabled[k] = 0;
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec) {
    size_t off = *rec ? (size_t)((uint8_t *)*rec - buf) - 8 : 0;
    if (*rec) {
        uint32_t size;
        memcpy(&size, buf + off, 4);
        off += 8 + ((size + 7) & ~(size_t)7);
    }
    if (off + 8 > valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = (CUpti_Activity *)(void *)(buf + off + 8);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
    if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) {
        for (long i = knob("MOCK_CUPTI_INCOMPLETE", 0); i > 0; i--) {
            CUpti_ActivityKernel10 k;
            memset(&k, 0, sizeof k);
            k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
            k.start = now();
            k.end = 0; /* not finished yet */
            k.streamId = 7;
            k.name = "_Z10unfinishedv";
            put(&k, sizeof k);
        }
    }
    pthread_mutex_lock(&g_mu);
    uint8_t *b = g_used ? g_buf : NULL;
    size_t size = g_size, used = g_used;
    if (b) g_buf = NULL, g_used = 0;
    pthread_mutex_unlock(&g_mu);
    deliver(b, size, used);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *dropped) {
    (void)ctx, (void)stream;
    if (!dropped) return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&g_mu);
    *dropped = g_dropped;
    g_dropped = 0;
    pthread_mutex_unlock(&g_mu);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType t) {
    if (t != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT && t != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) return CUPTI_ERROR_NOT_SUPPORTED;
    g_tid_type = t;
    return CUPTI_SUCCESS;
}

/* ---- callback API ---- */
static const struct { int domain; uint32_t cbid; const char *name; } k_names[] = {
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020, "cudaGetDeviceCount_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, "cudaMallocHost_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, "cudaFreeHost_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, "cudaMemset_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, "cudaStreamCreate_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize_v3020"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, "cudaProfilerStart_v4000"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, "cudaProfilerStop_v4000"},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000"},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel"},
};

static const char *cb_name(int domain, uint32_t cbid) {
    for (size_t i = 0; i < sizeof k_names / sizeof *k_names; i++)
        if (k_names[i].domain == domain && k_names[i].cbid == cbid) return k_names[i].name;
    return NULL;
}

EXPORT CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name) {
    *name = cb_name(domain, cbid);
    return *name ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc fn, void *userdata) {
    if (g_sub_fn) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    g_sub_fn = fn, g_sub_data = userdata;
    *sub = (CUpti_SubscriberHandle)(void *)&g_sub_fn;
    attach();
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle sub) {
    (void)sub;
    g_sub_fn = NULL;
    memset(g_sub_on, 0, sizeof g_sub_on);
    return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    (void)sub;
    if ((domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) || cbid >= 1024) return CUPTI_ERROR_INVALID_PARAMETER;
    g_sub_on[domain == CUPTI_CB_DOMAIN_DRIVER_API][cbid] = enable != 0;
    return CUPTI_SUCCESS;
}

static void callback(int domain, uint32_t cbid, int site, uint32_t corr, const char *symbol) {
    if (!g_sub_fn || cbid >= 1024 || !g_sub_on[domain == CUPTI_CB_DOMAIN_DRIVER_API][cbid]) return;
    uint64_t scratch = 0;
    CUpti_CallbackData d;
    memset(&d, 0, sizeof d);
    d.callbackSite = site ? CUPTI_API_EXIT : CUPTI_API_ENTER;
    d.functionName = cb_name(domain, cbid);
    d.symbolName = symbol;
    d.correlationId = corr;
    d.correlationData = &scratch;
    g_sub_fn(g_sub_data, (CUpti_CallbackDomain)domain, cbid, &d);
}

/* ---- NVTX injection: ranges become MARKER records ---- */
static uint32_t g_marker_id;
static __thread uint32_t t_stack[64];
static __thread int t_depth;

static void marker(uint32_t flags, uint32_t id, const char *name) {
    CUpti_ActivityMarker2 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = (CUpti_ActivityFlag)flags;
    m.timestamp = now();
    m.id = id;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.processId = (uint32_t)getpid();
    m.objectId.pt.threadId = thread_id();
    m.name = name ? strdup(name) : NULL;
    m.domain = NULL;
    put(&m, sizeof m);
}

static int NVTX_API push_a(const char *msg) {
    uint32_t id = __atomic_add_fetch(&g_marker_id, 1, __ATOMIC_RELAXED);
    if (t_depth < 64) t_stack[t_depth] = id;
    t_depth++;
    marker(CUPTI_ACTIVITY_FLAG_MARKER_START, id, msg);
    return t_depth - 1;
}
static int NVTX_API pop(void) {
    if (t_depth <= 0) return -1;
    t_depth--;
    if (t_depth < 64) marker(CUPTI_ACTIVITY_FLAG_MARKER_END, t_stack[t_depth], NULL);
    return t_depth;
}
static nvtxRangeId_t NVTX_API start_a(const char *msg) {
    uint32_t id = __atomic_add_fetch(&g_marker_id, 1, __ATOMIC_RELAXED);
    marker(CUPTI_ACTIVITY_FLAG_MARKER_START, id, msg);
    return id;
}
static void NVTX_API end(nvtxRangeId_t id) { marker(CUPTI_ACTIVITY_FLAG_MARKER_END, (uint32_t)id, NULL); }

EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable t = NULL;
    unsigned n = 0;
    if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) || !t) return 0;
    if (n > NVTX_CBID_CORE_RangePushA) *t[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)push_a;
    if (n > NVTX_CBID_CORE_RangePop) *t[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
    if (n > NVTX_CBID_CORE_RangeStartA) *t[NVTX_CBID_CORE_RangeStartA] = (NvtxFunctionPointer)start_a;
    if (n > NVTX_CBID_CORE_RangeEnd) *t[NVTX_CBID_CORE_RangeEnd] = (NvtxFunctionPointer)end;
    return 1;
}
