/* runtime.c - a mock CUDA runtime (libcudart.so.13) for tests/capture; see mock.h.
 *
 * Like CUDA 13's runtime it opens the driver with dlopen("libcuda.so.1",
 * RTLD_NOW), not RTLD_GLOBAL, so the driver's symbols are not in the global
 * namespace: a tool that looks them up with dlsym(RTLD_DEFAULT) finds nothing.
 * Every call is reported to the tool (callbacks at enter and exit, an API
 * record, and the device work's record). Device pointers are fake addresses
 * (never dereferenced); pinned host memory is real memory, remembered so
 * that copies from it are "Pinned" and copies from anything else "Pageable".
 * Streams: the legacy default stream is 7, created streams 13, 14, ... */
#define _GNU_SOURCE
#include "mock.h"
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static struct {
    pthread_once_t once;
    const mock_tool *(*tool)(void);
    void (*enqueue)(uint32_t, uint64_t, uint64_t *, uint64_t *);
    uint64_t (*wait)(uint32_t);
    void (*kernel)(const char *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, uint32_t, uint32_t);
} D = {PTHREAD_ONCE_INIT, 0, 0, 0, 0};

static void open_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW); /* local: as CUDA 13's runtime */
    if (!h) { fprintf(stderr, "mock cudart: %s\n", dlerror()); abort(); }
    CUresult (*init)(unsigned) = (CUresult (*)(unsigned))dlsym(h, "cuInit");
    *(void **)&D.tool = dlsym(h, "mockcuda_tool");
    *(void **)&D.enqueue = dlsym(h, "mockcuda_enqueue");
    *(void **)&D.wait = dlsym(h, "mockcuda_wait");
    *(void **)&D.kernel = dlsym(h, "mockcuda_kernel_record");
    if (!init || !D.tool || !D.enqueue || !D.wait || !D.kernel) { fprintf(stderr, "mock cudart: not the mock driver\n"); abort(); }
    init(0);
}

/* one call's bookkeeping: enter callback now, exit callback and API record at api_end */
typedef struct call { const mock_tool *t; uint32_t cbid, corr; uint64_t start; const char *symbol; } call;

static call api_begin(uint32_t cbid, const char *symbol) {
    pthread_once(&D.once, open_driver);
    call c = {D.tool(), cbid, 0, 0, symbol};
    if (c.t) {
        c.corr = c.t->correlation();
        c.start = c.t->now();
        c.t->callback(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, 0, c.corr, symbol);
    }
    return c;
}
static cudaError_t api_end(call c) {
    if (!c.t) return cudaSuccess;
    c.t->callback(CUPTI_CB_DOMAIN_RUNTIME_API, c.cbid, 1, c.corr, c.symbol);
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = c.cbid;
    a.start = c.start;
    a.end = c.t->now();
    a.correlationId = c.corr;
    c.t->record(&a, sizeof a);
    return cudaSuccess;
}

static uint32_t stream_id(cudaStream_t s) { return s ? (uint32_t)(uintptr_t)s : 7; }

/* ---- kernels: registered host stubs and their device names ---- */
enum { MAX_FUNCS = 256 };
static struct { const void *host; char name[256]; } g_funcs[MAX_FUNCS];
static int g_nfuncs;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

EXPORT void **__cudaRegisterFatBinary(void *fatCubin) {
    static void *handle;
    handle = fatCubin;
    return &handle;
}
EXPORT void __cudaRegisterFatBinaryEnd(void **h) { (void)h; }
EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName, int thread_limit,
                                   uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)fatCubinHandle, (void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    pthread_mutex_lock(&g_mu);
    if (g_nfuncs < MAX_FUNCS) {
        g_funcs[g_nfuncs].host = hostFun;
        snprintf(g_funcs[g_nfuncs].name, sizeof g_funcs[g_nfuncs].name, "%s", deviceFun);
        g_nfuncs++;
    }
    pthread_mutex_unlock(&g_mu);
}

static const char *func_name(const void *f) {
    for (int i = 0; i < g_nfuncs; i++)
        if (g_funcs[i].host == f) return g_funcs[i].name;
    return "unregistered_kernel";
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream) {
    (void)args;
    const char *name = func_name(func);
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, name);
    D.kernel(name, grid.x, grid.y, grid.z, block.x, block.y, block.z, (unsigned)shmem, stream_id(stream), c.corr);
    return api_end(c);
}

/* ---- memory ---- */
static uint64_t g_next_dev = 0x7f2a00000000ull;
enum { MAX_PINNED = 256 };
static struct { char *p; size_t n; } g_pinned[MAX_PINNED];

static int pinned(const void *p) {
    for (int i = 0; i < MAX_PINNED; i++)
        if (g_pinned[i].p && (const char *)p >= g_pinned[i].p && (const char *)p < g_pinned[i].p + g_pinned[i].n) return 1;
    return 0;
}
static int is_device(const void *p) { return (uint64_t)(uintptr_t)p >= 0x7f2a00000000ull && (uint64_t)(uintptr_t)p < 0x7f2b00000000ull; }

static void memory_record(const mock_tool *t, int op, uint64_t addr, uint64_t bytes, uint32_t corr) {
    if (!t) return;
    CUpti_ActivityMemory4 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    m.memoryOperationType = (CUpti_ActivityMemoryOperationType)op;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.correlationId = corr;
    m.address = addr;
    m.bytes = bytes;
    m.timestamp = t->now();
    m.deviceId = 0;
    m.contextId = 1;
    m.streamId = 7;
    t->record(&m, sizeof m);
}

static struct { uint64_t addr, bytes; } g_allocs[1024];

cudaError_t CUDARTAPI cudaMalloc(void **p, size_t n) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, NULL);
    pthread_mutex_lock(&g_mu);
    uint64_t a = g_next_dev;
    g_next_dev += (n + 511) & ~(uint64_t)511;
    for (int i = 0; i < 1024; i++)
        if (!g_allocs[i].addr) { g_allocs[i].addr = a, g_allocs[i].bytes = n; break; }
    pthread_mutex_unlock(&g_mu);
    *p = (void *)(uintptr_t)a;
    memory_record(c.t, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, a, n, c.corr);
    return api_end(c);
}

cudaError_t CUDARTAPI cudaFree(void *p) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, NULL);
    uint64_t bytes = 0;
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < 1024; i++)
        if (g_allocs[i].addr == (uint64_t)(uintptr_t)p) { bytes = g_allocs[i].bytes, g_allocs[i].addr = 0; break; }
    pthread_mutex_unlock(&g_mu);
    if (p) memory_record(c.t, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, (uint64_t)(uintptr_t)p, bytes, c.corr);
    return api_end(c);
}

cudaError_t CUDARTAPI cudaMallocHost(void **p, size_t n) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, NULL);
    *p = malloc(n);
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < MAX_PINNED; i++)
        if (!g_pinned[i].p) { g_pinned[i].p = *p, g_pinned[i].n = n; break; }
    pthread_mutex_unlock(&g_mu);
    return api_end(c);
}

cudaError_t CUDARTAPI cudaFreeHost(void *p) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, NULL);
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < MAX_PINNED; i++)
        if (g_pinned[i].p == p) g_pinned[i].p = NULL;
    pthread_mutex_unlock(&g_mu);
    free(p);
    return api_end(c);
}

static int mem_kind(const void *p) {
    return is_device(p) ? CUPTI_ACTIVITY_MEMORY_KIND_DEVICE : pinned(p) ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED : CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
}

static void copy_record(const mock_tool *t, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, uint32_t stream, uint32_t corr,
                        int sync) {
    uint64_t start, end;
    D.enqueue(stream, 100 + n / 10, &start, &end); /* 10 GB/s */
    int ck = kind == cudaMemcpyHostToDevice ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD
             : kind == cudaMemcpyDeviceToHost ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOH
             : kind == cudaMemcpyDeviceToDevice ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    /* a copy to or from pageable memory is synchronous for the host, even when "Async" */
    if (sync || (ck != CUPTI_ACTIVITY_MEMCPY_KIND_DTOD && (mem_kind(dst) == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE ||
                                                          mem_kind(src) == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE)))
        D.wait(stream);
    if (!is_device(dst) && !is_device(src)) memmove(dst, src, n);
    if (!t) return;
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = (uint8_t)ck;
    m.srcKind = (uint8_t)mem_kind(src);
    m.dstKind = (uint8_t)mem_kind(dst);
    m.bytes = n;
    m.start = start;
    m.end = end;
    m.deviceId = 0;
    m.contextId = 1;
    m.streamId = stream;
    m.correlationId = corr;
    t->record(&m, sizeof m);
}

cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, NULL);
    copy_record(c.t, dst, src, n, kind, 7, c.corr, 1);
    return api_end(c);
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, NULL);
    copy_record(c.t, dst, src, n, kind, stream_id(s), c.corr, 0);
    return api_end(c);
}

cudaError_t CUDARTAPI cudaMemset(void *p, int v, size_t n) {
    (void)v;
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, NULL);
    uint64_t start, end;
    D.enqueue(7, 100 + n / 100, &start, &end);
    if (c.t) {
        CUpti_ActivityMemset4 m;
        memset(&m, 0, sizeof m);
        m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
        m.bytes = n;
        m.start = start;
        m.end = end;
        m.deviceId = 0;
        m.contextId = 1;
        m.streamId = 7;
        m.correlationId = c.corr;
        m.memoryKind = (uint16_t)mem_kind(p);
        c.t->record(&m, sizeof m);
    }
    return api_end(c);
}

/* ---- synchronization ---- */
static void sync_record(const mock_tool *t, int type, uint32_t stream, uint64_t start, uint32_t corr) {
    if (!t) return;
    CUpti_ActivitySynchronization2 s;
    memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = (CUpti_ActivitySynchronizationType)type;
    s.start = start;
    s.end = t->now();
    s.correlationId = corr;
    s.contextId = 1;
    s.streamId = stream;
    s.cudaEventId = 0;
    t->record(&s, sizeof s);
}

cudaError_t CUDARTAPI cudaDeviceSynchronize(void) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, NULL);
    uint64_t t0 = c.t ? c.t->now() : 0;
    D.wait(UINT32_MAX);
    sync_record(c.t, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, UINT32_MAX, t0, c.corr);
    return api_end(c);
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t s) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, NULL);
    uint64_t t0 = c.t ? c.t->now() : 0;
    D.wait(stream_id(s));
    sync_record(c.t, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, stream_id(s), t0, c.corr);
    return api_end(c);
}

static uint32_t g_next_stream = 13;
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *s) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, NULL);
    pthread_mutex_lock(&g_mu);
    *s = (cudaStream_t)(uintptr_t)g_next_stream++;
    pthread_mutex_unlock(&g_mu);
    return api_end(c);
}

cudaError_t CUDARTAPI cudaGetDeviceCount(int *n) {
    call c = api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020, NULL);
    *n = 1;
    return api_end(c);
}

cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }

cudaError_t CUDARTAPI cudaProfilerStart(void) { return api_end(api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, NULL)); }
cudaError_t CUDARTAPI cudaProfilerStop(void) { return api_end(api_begin(CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000, NULL)); }
