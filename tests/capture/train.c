/* train.c - a small "training program" for the mock CUDA stack of
 * tests/capture (mock/): it uses the CUDA runtime and driver APIs, NVTX
 * (the real header-only nvtx3, injected through NVTX_INJECTION64_PATH) and
 * perfcard's step and queue markers, from two threads, in a fixed pattern
 * whose every record tests/capture/check.py knows in advance:
 *
 *   per step, main thread (stream 7):  NVTX "forward" around
 *     saxpy grid 2 (2 us), reduce_kernel<256> grid 8 (8 us), ampere_sgemm_128x64_nn grid 16 (16 us);
 *     cudaMemset 4096 B; cudaMemcpy DtoH 704 B to pageable memory;
 *     triton_poi_fused_add_0 grid 3 (3 us) through cuLaunchKernel (driver API);
 *     cudaDeviceSynchronize
 *   per step, data thread (stream 13):  NVTX "data" around
 *     cudaMemcpyAsync HtoD 65536 B from pinned memory, copy_kernel<float> grid 4 (4 us),
 *     cudaStreamSynchronize
 *   once: cudaMalloc 1 MiB twice, both freed at the end.
 *
 * usage: train MODE [STEPS]   MODE: normal | exit3 | abort | wait | count-int |
 *                             fork | exec | grandchild | profiler-api | after-exec | bench | nvtx-steps
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
extern char **environ;

/* perfcard's markers, present when the capture preloads its library */
__attribute__((weak)) void perfcard_step_begin(void);
__attribute__((weak)) void perfcard_step_end(void);
__attribute__((weak)) void perfcard_queue_sample(const char *, long, long);
__attribute__((weak)) void perfcard_data_wait(double);

/* the runtime's registration entry points (what nvcc's host stubs call) */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName, int thread_limit, uint3 *tid,
                            uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);

/* The driver API, opened the way Triton opens it (dlopen, not linked): the
 * driver's symbols stay out of the global namespace, as in a PyTorch process. */
static CUresult (*p_cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **,
                                    void **);
static CUfunction (*p_function)(const char *);
static void open_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (h) {
        *(void **)&p_cuLaunchKernel = dlsym(h, "cuLaunchKernel");
        *(void **)&p_function = dlsym(h, "mockcuda_function");
    }
    if (!p_cuLaunchKernel || !p_function) { fprintf(stderr, "train: no mock libcuda.so.1\n"); exit(2); }
}

static void saxpy(void) {}
static void reduce(void) {}
static void sgemm(void) {}
static void copyk(void) {}

static void *d_x, *d_y, *h_pinned;
static char h_page[65536];
static cudaStream_t s2;
static pthread_barrier_t g_step;
static int g_steps = 4;

static void launch(void (*k)(void), unsigned grid, cudaStream_t s) {
    dim3 g = {grid, 1, 1}, b = {128, 1, 1};
    cudaLaunchKernel((const void *)k, g, b, NULL, 0, s);
}

static void *data_thread(void *arg) {
    (void)arg;
    for (int i = 0; i < g_steps; i++) {
        pthread_barrier_wait(&g_step);
        nvtxRangePushA("data");
        cudaMemcpyAsync(d_x, h_pinned, 65536, cudaMemcpyHostToDevice, s2);
        launch(copyk, 4, s2);
        cudaStreamSynchronize(s2);
        nvtxRangePop();
        pthread_barrier_wait(&g_step);
    }
    return NULL;
}

static int g_nvtx_steps; /* mode nvtx-steps: PyTorch's range names instead of perfcard's markers */

static void sleep_ms(int ms);

static void one_step(int i, CUfunction triton) {
    char name[64];
    if (g_nvtx_steps) {
        snprintf(name, sizeof name, "ProfilerStep#%d", i);
        nvtxRangePushA(name);
        nvtxRangePushA("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
        sleep_ms(5); /* waiting for the batch */
        nvtxRangePop();
    }
    if (!g_nvtx_steps && perfcard_step_begin) perfcard_step_begin();
    if (!g_nvtx_steps && perfcard_queue_sample) perfcard_queue_sample("train", i, 8);
    if (!g_nvtx_steps && perfcard_data_wait) perfcard_data_wait(0.0005);
    pthread_barrier_wait(&g_step);
    nvtxRangePushA("forward");
    launch(saxpy, 2, 0);
    launch(reduce, 8, 0);
    launch(sgemm, 16, 0);
    nvtxRangePop();
    cudaMemset(d_y, 0, 4096);
    cudaMemcpy(h_page, d_y, 704, cudaMemcpyDeviceToHost);
    p_cuLaunchKernel(triton, 3, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL);
    cudaDeviceSynchronize();
    pthread_barrier_wait(&g_step);
    if (!g_nvtx_steps && perfcard_step_end) perfcard_step_end();
    if (g_nvtx_steps) nvtxRangePop();
}

static void run(int steps) {
    g_steps = steps;
    pthread_barrier_init(&g_step, NULL, 2);
    pthread_t th;
    pthread_create(&th, NULL, data_thread, NULL);
    CUfunction triton = p_function("triton_poi_fused_add_0");
    for (int i = 1; i <= steps; i++) one_step(i, triton);
    pthread_join(th, NULL);
    pthread_barrier_destroy(&g_step);
}

static void setup(void) {
    void **h = __cudaRegisterFatBinary(NULL);
    __cudaRegisterFunction(h, (const char *)saxpy, "_Z5saxpyifPfS_", "_Z5saxpyifPfS_", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFunction(h, (const char *)reduce, "_ZN5train13reduce_kernelILi256EEEvPKfPfi", "", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFunction(h, (const char *)sgemm, "ampere_sgemm_128x64_nn", "", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFunction(h, (const char *)copyk, "_ZN5train6detail11copy_kernelIfEEvPT_PKS2_m", "", -1, 0, 0, 0, 0, 0);
    int n = 0;
    cudaGetDeviceCount(&n); /* the runtime opens the driver; cuInit loads the injection */
    open_driver();
    cudaStreamCreate(&s2);
    cudaMalloc(&d_x, 1 << 20);
    cudaMalloc(&d_y, 1 << 20);
    cudaMallocHost(&h_pinned, 65536);
}

static void teardown(void) {
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFreeHost(h_pinned);
}

static volatile sig_atomic_t g_ints;
static void on_int(int sig) { (void)sig; g_ints++; }

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0) {}
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "normal";
    int steps = argc > 2 ? atoi(argv[2]) : 4;
    if (!strcmp(mode, "count-int")) {
        /* counts the SIGINTs one Ctrl-C delivers; writes the count to argv[3] */
        signal(SIGINT, on_int);
        setup();
        run(1);
        FILE *f = fopen(argv[3], "w");
        if (f) fputs("ready\n", f), fclose(f);
        while (!g_ints) pause();
        sleep_ms(300); /* time for a duplicate to arrive */
        f = fopen(argv[3], "w");
        if (f) fprintf(f, "%d\n", (int)g_ints), fclose(f);
        teardown();
        return 0;
    }
    g_nvtx_steps = !strcmp(mode, "nvtx-steps");
    setup();
    if (!strcmp(mode, "bench")) { /* make bench: STEPS launches back to back, 2 records each (API call, kernel) */
        for (int i = 0; i < steps; i++) launch(saxpy, 1, 0);
        teardown();
        return 0;
    }
    if (!strcmp(mode, "profiler-api")) {
        run(1); /* not recorded: before cudaProfilerStart */
        cudaProfilerStart();
        run(steps);
        cudaProfilerStop();
        run(1); /* not recorded */
        teardown();
        return 0;
    }
    run(steps);
    if (!strcmp(mode, "exit3")) exit(3);
    if (!strcmp(mode, "abort")) {
        sleep_ms(600); /* at least one flush interval: what was recorded reaches the file */
        abort();
    }
    if (!strcmp(mode, "wait")) {
        FILE *f = fopen(argc > 3 ? argv[3] : "/dev/null", "w");
        if (f) fputs("ready\n", f), fclose(f);
        for (int i = 0; i < 200; i++) sleep_ms(50); /* until SIGTERM */
        return 0;
    }
    if (!strcmp(mode, "fork") || !strcmp(mode, "grandchild")) {
        pid_t c = fork();
        if (c == 0) {
            if (!strcmp(mode, "grandchild")) {
                pid_t g = fork();
                if (g == 0) {
                    execl("/proc/self/exe", argv[0], "after-exec", "1", (char *)NULL);
                    _exit(127);
                }
                waitpid(g, NULL, 0);
                _exit(0);
            }
            run(2); /* a forked worker that launches too, lives a while, and ends with _exit as Python's workers do */
            sleep_ms(400);
            _exit(0);
        }
        waitpid(c, NULL, 0);
    }
    if (!strcmp(mode, "closefds")) {
        /* a program that closes every descriptor (a daemon's start), the injection's trace among them, then
         * opens a file of its own (argv[3]), which gets the lowest free number, and goes on launching past a
         * flush: the trace must go on in the trace's file, and the program's file hold only what it wrote */
        sleep_ms(300); /* a flush first: the trace's descriptor is in use */
        for (int fd = 3; fd < 1024; fd++) close(fd);
        FILE *f = fopen(argv[3], "w");
        if (f) fputs("the program's own line\n", f), fflush(f);
        run(steps);
        sleep_ms(300);
        if (f) fclose(f);
    }
    if (!strcmp(mode, "exec") || !strcmp(mode, "execlp") || !strcmp(mode, "execle")) { /* the list forms of exec */
        teardown();
        if (!strcmp(mode, "execle")) execle("/proc/self/exe", argv[0], "after-exec", "1", (char *)NULL, environ);
        else if (!strcmp(mode, "execlp")) execlp("/proc/self/exe", argv[0], "after-exec", "1", (char *)NULL);
        else execl("/proc/self/exe", argv[0], "after-exec", "1", (char *)NULL);
        return 127;
    }
    teardown();
    return 0;
}
