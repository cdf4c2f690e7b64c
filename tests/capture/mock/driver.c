/* driver.c - a mock CUDA driver (libcuda.so.1) for tests/capture; see mock.h.
 *
 * cuInit loads CUDA_INJECTION64_PATH and calls its InitializeInjection, as
 * the real driver does. One device, an "NVIDIA H100 80GB HBM3" (sm_90, 132
 * SMs). Device work runs on a simulated timeline: each stream is busy until
 * the end of its last piece of work; synchronizing sleeps until then, so the
 * host really blocks as it would on a GPU. */
#define _GNU_SOURCE
#include "mock.h"
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

static const mock_tool *g_tool;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_inited;
enum { MAX_STREAMS = 64 };
static uint64_t g_busy[MAX_STREAMS]; /* tool-clock ns at which each stream is idle */

EXPORT void mockcuda_attach(const mock_tool *t) { g_tool = t; }
EXPORT const mock_tool *mockcuda_tool(void) { return g_tool; }

static uint64_t wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t now(void) { return g_tool ? g_tool->now() : wall(); }

/* Queues `dur` ns of work on `stream` (2 us launch latency); its start and end. */
EXPORT void mockcuda_enqueue(uint32_t stream, uint64_t dur, uint64_t *start, uint64_t *end) {
    uint64_t t = now() + 2000;
    pthread_mutex_lock(&g_mu);
    uint32_t s = stream % MAX_STREAMS;
    if (g_busy[s] > t) t = g_busy[s];
    g_busy[s] = t + dur;
    pthread_mutex_unlock(&g_mu);
    *start = t;
    *end = t + dur;
}

/* Blocks until `stream` (or every stream, stream == UINT32_MAX) is idle; the time it is. */
EXPORT uint64_t mockcuda_wait(uint32_t stream) {
    uint64_t until = 0;
    pthread_mutex_lock(&g_mu);
    for (uint32_t s = 0; s < MAX_STREAMS; s++)
        if ((stream == UINT32_MAX || s == stream % MAX_STREAMS) && g_busy[s] > until) until = g_busy[s];
    pthread_mutex_unlock(&g_mu);
    for (uint64_t t = now(); t < until; t = now()) {
        struct timespec ts = {0, (long)(until - t)};
        nanosleep(&ts, NULL);
    }
    return now();
}

static const char *k_device = "NVIDIA H100 80GB HBM3";

CUresult CUDAAPI cuInit(unsigned int flags) {
    (void)flags;
    pthread_mutex_lock(&g_mu);
    int first = !g_inited;
    g_inited = 1;
    pthread_mutex_unlock(&g_mu);
    if (!first) return CUDA_SUCCESS;
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj) {
        void *h = dlopen(inj, RTLD_NOW);
        int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
        if (!init) fprintf(stderr, "mock libcuda: cannot use injection %s: %s\n", inj, dlerror());
        else init();
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetCount(int *n) { *n = g_inited ? 1 : 0; return g_inited ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED; }
CUresult CUDAAPI cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice d) {
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "%s", k_device);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice d) {
    *bytes = (size_t)85520809984ull;
    return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = 233472; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 2619000; break;
    default: *v = 0; return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* ---- a driver-API launch (as Triton and JAX do): cuLaunchKernel ---- */
typedef struct mock_function { char name[256]; } mock_function;

/* a CUfunction for a kernel name (what cuModuleGetFunction would give) */
EXPORT CUfunction mockcuda_function(const char *name) {
    mock_function *f = calloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    return (CUfunction)(void *)f;
}

/* The kernel record of one launch (also used by the runtime's cudaLaunchKernel). */
EXPORT void mockcuda_kernel_record(const char *name, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                   unsigned shmem, uint32_t stream, uint32_t correlation) {
    uint64_t start, end;
    mockcuda_enqueue(stream, 1000ull * gx, &start, &end); /* 1 us per block in x */
    if (!g_tool) return;
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.registersPerThread = 32;
    k.start = start;
    k.end = end;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = stream;
    k.gridX = (int32_t)gx, k.gridY = (int32_t)gy, k.gridZ = (int32_t)gz;
    k.blockX = (int32_t)bx, k.blockY = (int32_t)by, k.blockZ = (int32_t)bz;
    k.dynamicSharedMemory = (int32_t)shmem;
    k.correlationId = correlation;
    k.name = strdup(name); /* CUPTI's strings live as long as the process */
    g_tool->record(&k, sizeof k);
}

static void api_record(uint32_t cbid, uint64_t start, uint32_t corr) {
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    a.cbid = cbid;
    a.start = start;
    a.end = now();
    a.correlationId = corr;
    g_tool->record(&a, sizeof a);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                CUstream stream, void **params, void **extra) {
    (void)params, (void)extra;
    const mock_function *mf = (const mock_function *)(void *)f;
    uint32_t sid = stream ? (uint32_t)(uintptr_t)stream : 7;
    uint32_t corr = g_tool ? g_tool->correlation() : 0;
    uint64_t t0 = now();
    if (g_tool) g_tool->callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0, corr, mf->name);
    mockcuda_kernel_record(mf->name, gx, gy, gz, bx, by, bz, shmem, sid, corr);
    if (g_tool) {
        g_tool->callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1, corr, mf->name);
        api_record(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, t0, corr);
    }
    return CUDA_SUCCESS;
}
