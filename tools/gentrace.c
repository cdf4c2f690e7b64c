/* gentrace - writes a synthetic PyTorch-profiler (Kineto) trace to stdout.
 *
 * The trace looks like a small CNN training loop: per step a DataLoader
 * fetch, a host-to-device copy, forward operators (conv2d, batch_norm, relu,
 * linear) each launching kernels through cudaLaunchKernel with correlation
 * ids and flows, backward operators on the autograd thread, an optimizer
 * step, and [memory] events. Everything is derived from a seeded PRNG, so a
 * given command line always writes the same bytes.
 *
 *   gentrace [--steps N | --size MB] [--schema current|2021] [--seed S]
 *            [--slow NAME=FACTOR]... [--noise PCT] [--clock PCT] [--data-jitter PCT]
 *            [--layers N] [--truncate-at BYTES]
 *
 * --slow multiplies the duration of every kernel whose name contains NAME
 * (for diff tests; up to 4 of them); --noise adds uniform +-PCT% jitter to
 * every duration; --clock and --data-jitter draw one factor for the whole
 * run, uniform in +-PCT%, on device durations (kernels, copies) and on data
 * loading: the run-to-run variation of one configuration.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ULL;
static double urand(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int schema2021;
static double noise;
static struct { char name[256]; double factor; } slow[4];
static int nslow;
static double clock_f = 1, data_f = 1; /* run-level factors: device durations, data loading */
static uint64_t bytes_out;
static long long truncate_at = -1;
static int first = 1;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...) {
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (truncate_at >= 0 && (long long)(bytes_out + (uint64_t)n) > truncate_at) {
        fwrite(buf, 1, (size_t)(truncate_at - (long long)bytes_out), stdout);
        exit(0);
    }
    fwrite(buf, 1, (size_t)n, stdout);
    bytes_out += (uint64_t)n;
}

static const int PID = 4242, TID = 4242, BWD_TID = 4300, DEV = 0, STREAM = 7;
static int64_t ext_id = 1, corr = 1000;

static int64_t jit(int64_t d) {
    double f = 1 + noise * (2 * urand() - 1);
    int64_t v = (int64_t)((double)d * f);
    return v < 1 ? 1 : v;
}

static void sep(void) {
    if (!first) out(",\n");
    first = 0;
}

/* times in ns; written as microseconds with 3 decimals, as recent Kineto does */
#define US(x) (long long)((x) / 1000), (int)((x) % 1000)

static void cpu(const char *cat, const char *name, int tid, int64_t ts, int64_t dur, const char *dims, const char *types, int seq) {
    sep();
    int64_t id = ext_id++;
    if (schema2021)
        out("  {\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"%s\", \"pid\": %d, \"tid\": \"%d\", \"ts\": %lld.%03d, \"dur\": %lld.%03d, "
            "\"args\": {\"Device\": %d, \"External id\": %" PRId64 "%s%s%s%s%s%s}}",
            name, PID, tid, US(ts), US(dur), PID, id, dims ? ", \"Input Dims\": " : "", dims ? dims : "", types ? ", \"Input type\": " : "",
            types ? types : "", seq >= 0 ? ", \"Sequence number\": " : "", seq >= 0 ? "1" : "");
    else
        out("  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03d, \"dur\": %lld.%03d, "
            "\"args\": {\"External id\": %" PRId64 "%s%s%s%s}}",
            cat, name, PID, tid, US(ts), US(dur), id, dims ? ", \"Input Dims\": " : "", dims ? dims : "", types ? ", \"Input type\": " : "",
            types ? types : "");
}

/* a launch on the host and its kernel on the GPU; returns the kernel end */
static int64_t launch(int tid, int64_t ts, int64_t gpu_free, const char *kname, int64_t kdur, int grid, int block) {
    int64_t c = corr++;
    int64_t ldur = jit(4000);
    sep();
    out("  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": %s%d%s, \"ts\": %lld.%03d, \"dur\": %lld.%03d, "
        "\"args\": {\"cbid\": 211, \"correlation\": %" PRId64 ", \"External id\": %" PRId64 "}}",
        schema2021 ? "Runtime" : "cuda_runtime", PID, schema2021 ? "\"" : "", tid, schema2021 ? "\"" : "", US(ts), US(ldur), c, ext_id - 1);
    int64_t start = ts + 3000 > gpu_free ? ts + 3000 : gpu_free;
    for (int k = 0; k < nslow; k++)
        if (strstr(kname, slow[k].name)) kdur = (int64_t)((double)kdur * slow[k].factor);
    int64_t d = jit((int64_t)((double)kdur * clock_f));
    sep();
    out("  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %s%d%s, \"ts\": %lld.%03d, \"dur\": %lld.%03d, "
        "\"args\": {\"queued\": 0, \"device\": %d, \"context\": 1, \"stream\": %d, \"correlation\": %" PRId64 ", \"External id\": %" PRId64 ", "
        "\"registers per thread\": 64, \"shared memory\": 16384, \"blocks per SM\": %.2f, \"warps per SM\": %.2f, "
        "\"grid\": [%d, 1, 1], \"block\": [%d, 1, 1], \"est. achieved occupancy %%\": %d}}",
        schema2021 ? "Kernel" : "kernel", kname, DEV, schema2021 ? "\"stream " : "", STREAM, schema2021 ? "\"" : "", US(start), US(d), DEV, STREAM, c,
        ext_id - 1, grid / 80.0, grid * (block / 32) / 80.0, grid, block, 25 + (int)(urand() * 50));
    sep();
    out("  {\"ph\": \"s\", \"id\": %" PRId64 ", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03d, \"cat\": \"ac2g\", \"name\": \"ac2g\"}", c, PID, tid, US(ts));
    sep();
    out("  {\"ph\": \"f\", \"id\": %" PRId64 ", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03d, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}", c, DEV, STREAM, US(start));
    return start + d;
}

typedef struct layer { const char *op, *inner, *kernel, *bwd_op, *bwd_kernel; int64_t kdur; const char *dims, *types; } layer;

static const layer LAYERS[] = {
    {"aten::conv2d", "aten::cudnn_convolution", "volta_scudnn_128x64_relu_interior_nn_v1", "ConvolutionBackward0",
     "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, int, int, int)",
     400000, "[[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], []]", "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Int\"]"},
    {"aten::batch_norm", "aten::cudnn_batch_norm", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
     "CudnnBatchNormBackward0", "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float*, float*, float const*, float const*, float)",
     120000, "[[32, 64, 56, 56], [64], [64], [64], [64], [], [], [], []]", NULL},
    {"aten::relu_", "aten::clamp_min_", "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::clamp_min_scalar_kernel_impl(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
     "ReluBackward0", "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}, at::detail::Array<char*, 3>)",
     40000, "[[32, 64, 56, 56]]", "[\"float\"]"},
    {"aten::linear", "aten::addmm", "volta_sgemm_128x64_tn", "AddmmBackward0", "volta_sgemm_64x64_nt", 90000,
     "[[32, 2048], [1000, 2048], [1000]]", "[\"float\", \"float\", \"float\"]"},
};
enum { NLAYER = sizeof LAYERS / sizeof LAYERS[0] };

int main(int argc, char **argv) {
    long steps = 8, size_mb = 0, layers = 12;
    double clock_pct = 0, data_pct = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--steps") && v) steps = atol(v), i++;
        else if (!strcmp(a, "--size") && v) size_mb = atol(v), i++;
        else if (!strcmp(a, "--layers") && v) layers = atol(v), i++;
        else if (!strcmp(a, "--schema") && v) schema2021 = !strcmp(v, "2021"), i++;
        else if (!strcmp(a, "--seed") && v) rng ^= (uint64_t)atoll(v) * 0x9E3779B97F4A7C15ULL, i++;
        else if (!strcmp(a, "--noise") && v) noise = atof(v) / 100, i++;
        else if (!strcmp(a, "--truncate-at") && v) truncate_at = atoll(v), i++;
        else if (!strcmp(a, "--clock") && v) clock_pct = atof(v), i++;
        else if (!strcmp(a, "--data-jitter") && v) data_pct = atof(v), i++;
        else if (!strcmp(a, "--slow") && v && nslow < 4) {
            snprintf(slow[nslow].name, sizeof slow[nslow].name, "%s", v);
            char *eq = strrchr(slow[nslow].name, '=');
            if (!eq) { fprintf(stderr, "gentrace: --slow NAME=FACTOR\n"); return 2; }
            *eq = 0;
            slow[nslow++].factor = atof(eq + 1);
            i++;
        } else { fprintf(stderr, "usage: gentrace [--steps N | --size MB] [--schema current|2021] [--seed S] [--slow NAME=F]... [--noise PCT] [--clock PCT] [--data-jitter PCT] [--layers N] [--truncate-at B]\n"); return 2; }
    }
    /* one draw per run, from the seed: the whole run's device speed and data loading */
    if (clock_pct > 0) clock_f = 1 + clock_pct / 100 * (2 * urand() - 1);
    if (data_pct > 0) data_f = 1 + data_pct / 100 * (2 * urand() - 1);
    if (size_mb > 0) steps = 1L << 40;
    out("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0, \"name\": \"NVIDIA A100-SXM4-40GB\", \"totalGlobalMem\": 42314694656, "
        "\"computeMajor\": 8, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, "
        "\"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, "
        "\"sharedMemPerMultiprocessor\": 167936, \"numSms\": 108, \"sharedMemPerBlockOptin\": 166912}\n  ],\n");
    if (!schema2021) out("  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1},\n");
    out("  \"traceEvents\": [\n");
    int64_t t = 1700000000000000000LL + 123456789; /* ns since the epoch, µs with fractions */
    int64_t gpu = t;
    for (long s = 0; s < steps; s++) {
        if (size_mb > 0 && bytes_out >= (uint64_t)size_mb << 20) break;
        int64_t step_start = t;
        /* data loading */
        int64_t dl = jit((int64_t)((schema2021 ? 3000000 : 2000000) * data_f));
        cpu("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", TID, t + 1000, dl, NULL, NULL, -1);
        t += dl + 2000;
        /* H2D copy of the batch */
        {
            int64_t c = corr++, cd = jit((int64_t)(800000 * clock_f));
            int64_t start = t + 2000 > gpu ? t + 2000 : gpu;
            sep();
            out("  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"cudaMemcpyAsync\", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03d, \"dur\": %lld.%03d, "
                "\"args\": {\"cbid\": 41, \"correlation\": %" PRId64 ", \"External id\": %" PRId64 "}}",
                schema2021 ? "Runtime" : "cuda_runtime", PID, TID, US(t), US((int64_t)9000), c, ext_id);
            sep();
            out("  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03d, "
                "\"dur\": %lld.%03d, \"args\": {\"device\": %d, \"context\": 1, \"stream\": %d, \"correlation\": %" PRId64 ", \"External id\": %" PRId64 ", "
                "\"bytes\": 19267584, \"memory bandwidth (GB/s)\": 24.1}}",
                schema2021 ? "Memcpy" : "gpu_memcpy", DEV, STREAM, US(start), US(cd), DEV, STREAM, c, ext_id);
            gpu = start + cd;
            t += 10000;
        }
        /* forward */
        for (long l = 0; l < layers; l++) {
            const layer *L = &LAYERS[l % NLAYER];
            int64_t op_start = t, kend;
            t += 2000;
            int64_t inner_start = t;
            t += 1500;
            kend = launch(TID, t, gpu, L->kernel, L->kdur, 3136, 128);
            gpu = kend;
            t += 6000;
            cpu("cpu_op", L->inner, TID, inner_start, t - inner_start, L->dims, L->types, -1);
            t += 1000;
            cpu("cpu_op", L->op, TID, op_start, t - op_start, L->dims, L->types, (int)l);
            sep();
            out("  {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03d, "
                "\"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": %lld, \"Bytes\": %d, \"Total Allocated\": %lld, \"Total Reserved\": 2147483648}}",
                PID, TID, US(op_start + 500), (long long)(140000000000LL + l * 4096), 25690112, (long long)(1000000000LL + l * 25690112));
            t += 1000;
        }
        /* backward on the autograd thread */
        int64_t bt = t + 5000;
        for (long l = layers - 1; l >= 0; l--) {
            const layer *L = &LAYERS[l % NLAYER];
            char name[256];
            snprintf(name, sizeof name, "autograd::engine::evaluate_function: %s", L->bwd_op);
            int64_t s0 = bt;
            bt += 2000;
            int64_t s1 = bt;
            bt += 1000;
            gpu = launch(BWD_TID, bt, gpu, L->bwd_kernel, L->kdur * 2, 3136, 256);
            bt += 7000;
            cpu("cpu_op", L->bwd_op, BWD_TID, s1, bt - s1, NULL, NULL, (int)l);
            bt += 1000;
            cpu("cpu_op", name, BWD_TID, s0, bt - s0, NULL, NULL, -1);
        }
        t = bt + 2000;
        /* optimizer */
        {
            int64_t o0 = t;
            t += 1000;
            for (int k = 0; k < 3; k++) {
                int64_t a0 = t;
                t += 1000;
                gpu = launch(TID, t, gpu, "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::FusedSgdMathFunctor<float, 3>, float>(at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::FusedSgdMathFunctor<float, 3>, float)", 30000, 320, 512);
                t += 5000;
                cpu("cpu_op", "aten::_foreach_add_", TID, a0, t - a0, "[[], [], []]", NULL, -1);
            }
            t += 1000;
            cpu("user_annotation", "Optimizer.step#SGD.step", TID, o0, t - o0, NULL, NULL, -1);
        }
        /* the step waits for the GPU at its end (loss.item()) */
        {
            int64_t sync0 = t;
            int64_t wait = gpu > t ? gpu - t + 3000 : 3000;
            sep();
            out("  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"cudaStreamSynchronize\", \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03d, \"dur\": %lld.%03d, "
                "\"args\": {\"cbid\": 131, \"correlation\": %" PRId64 ", \"External id\": %" PRId64 "}}",
                schema2021 ? "Runtime" : "cuda_runtime", PID, TID, US(sync0), US(wait), corr++, ext_id++);
            t = sync0 + wait + 2000;
        }
        char sname[64];
        snprintf(sname, sizeof sname, "ProfilerStep#%ld", s + 1);
        cpu(schema2021 ? "Operator" : "user_annotation", sname, TID, step_start, t - step_start, NULL, NULL, -1);
        t += 1000;
    }
    out("\n  ],\n  \"traceName\": \"gentrace\"\n}\n");
    return 0;
}
