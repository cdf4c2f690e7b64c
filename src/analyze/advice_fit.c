/* Advice that fits the run (advice_fit.h; #44 item 6): what the trace says
 * about the program, and the rule texts rewritten for it. */
#include "advice_fit.h"
#include "idle.h"
#include "rules.h"
#include "../util/apiname.h"
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

int advice_fit_is_optimizer_op(const char *n) {
    return starts(n, "Optimizer.step") || starts(n, "Optimizer.zero_grad") || strstr(n, "torch.optim") || strstr(n, "_foreach_") ||
           strstr(n, "_fused_adam") || strstr(n, "_fused_sgd");
}

int advice_fit_is_serving_marker(const char *n) {
    return strstr(n, "execute_model") || starts(n, "execute_") || starts(n, "step[DECODE") || starts(n, "step[EXTEND") ||
           starts(n, "step[PREFILL") || strstr(n, "LLMEngine.step");
}

int advice_fit_is_startup_call(const char *n) {
    static const char *const pre[] = {"cuInit", "cuCtxCreate", "cuDevicePrimaryCtxRetain", "cuModuleLoad", "cuLibraryLoad", "cuMemAlloc",
                                      "cudaMalloc", "cudaHostAlloc", "cudaSetDevice", "cudaGetDeviceCount", "cudaStreamCreate",
                                      "cudaFree", "hipInit", "hipMalloc", "hipHostMalloc", "hipModuleLoad", "hipSetDevice",
                                      "hipGetDeviceCount", "hipStreamCreate", "hipFree", NULL};
    size_t len = api_name_len(n);
    for (int i = 0; pre[i]; i++)
        if (len >= strlen(pre[i]) && starts(n, pre[i])) return strcmp(n, "cudaMallocAsync") && strcmp(n, "hipMallocAsync");
    return 0;
}

static int is_api(const pc_cpu_event *e) { return e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER; }

void advice_fit_find(const an_ctx *c, advice_fit *f) {
    const pc_trace *t = c->t;
    memset(f, 0, sizeof *f);
    int ops = 0, training = 0, serving = 0;
    int64_t first_kernel = INT64_MAX, first_api = INT64_MAX;
    for (size_t g = 0; g < t->ngpu; g++)
        if (t->gpu[g].kind == GPU_KERNEL && t->gpu[g].ts < first_kernel) first_kernel = t->gpu[g].ts;
    int startup_call = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        const char *n = strtab_get(&t->strs, e->name);
        if (is_api(e)) {
            if (e->ts < first_api) first_api = e->ts;
            f->graphs |= idle_is_graph_launch(n);
            f->amd |= starts(n, "hip");
            startup_call |= e->ts < first_kernel && advice_fit_is_startup_call(n);
            continue;
        }
        if (e->kind == CPU_OP) {
            ops = 1;
            training |= (c->links.backward && c->links.backward[i]) || advice_fit_is_optimizer_op(n);
        }
        if (e->kind == CPU_USER_ANNOT || e->kind == CPU_OP || e->kind == CPU_PYFUNC) {
            serving |= advice_fit_is_serving_marker(n);
            training |= advice_fit_is_optimizer_op(n);
        }
    }
    for (size_t d = 0; d < t->ndev && !f->amd; d++) {
        const char *n = strtab_get(&t->strs, t->dev[d].name);
        f->amd = strstr(n, "AMD") || strstr(n, "Instinct") || strstr(n, "Radeon");
    }
    f->inference = serving || (ops && !training);
    /* one steady batch: no steps, a kernel, and nothing of start-up before it (the host's own
     * activity recorded apart, Nsight Systems' OS runtime calls before the first CUDA call, is start-up) */
    int host_before = t->has_host_span && first_api != INT64_MAX && t->host_start < first_api;
    f->one_batch = !c->step_source && first_kernel != INT64_MAX && !startup_call && !host_before;
}

/* A rule's text for a kind of run: the rows whose needs (FIT_NEED_*) the run
 * meets, most specific first; the first for the rule, field and program
 * wins. An empty text drops the field (a framework's part). */
enum { NEED_GRAPHS = 1, NEED_INFER = 2, NEED_ONE = 4, NEED_AMD = 8 };
enum { ANY_PROG = -1 };
typedef struct fit_row { const char *rule; unsigned need; int field, program; const char *text; } fit_row;
static const fit_row rows[] = {
    /* host_wait: the launches are already in graphs */
    {"host_wait", NEED_GRAPHS, FIT_TRY, ANY_PROG,
     "Reduce per-kernel host overhead: fuse small kernels, bring the launches still made one by one into the CUDA graphs the program already replays, and keep host work and synchronization out of the loop."},
    {"host_wait", NEED_GRAPHS, FIT_TRY_PROG, PROG_PYTORCH,
     "torch.compile's fusion; the trace already replays CUDA graphs, so look for the launches made outside them (eager regions, graph breaks)."},
    {"host_wait", NEED_GRAPHS, FIT_TRY_PROG, PROG_CUDA,
     "the program already launches CUDA graphs (cudaGraphLaunch): capture the launches still made one by one into them, and no synchronizing call between kernels."},
    /* small_kernels */
    {"small_kernels", NEED_GRAPHS | NEED_INFER, FIT_TRY_PROG, PROG_PYTORCH, "torch.compile's fusion (the trace already replays CUDA graphs)."},
    {"small_kernels", NEED_GRAPHS, FIT_TRY, ANY_PROG,
     "Fuse elementwise chains into fewer kernels (the trace already replays CUDA graphs: fusing saves the kernels' own time and the gaps between graph nodes, not launches)."},
    {"small_kernels", NEED_GRAPHS, FIT_TRY_PROG, PROG_PYTORCH, "torch.compile's fusion, and fused optimizers (foreach or fused Adam)."},
    {"small_kernels", NEED_GRAPHS, FIT_TRY_PROG, PROG_CUDA,
     "fuse the kernels by hand or through a library's fused routines (cuBLASLt epilogues, CUB) inside the graphs the program already launches."},
    {"small_kernels", NEED_INFER, FIT_TRY_PROG, PROG_PYTORCH, "torch.compile (mode=\"reduce-overhead\" also captures CUDA graphs)."},
    /* gpu_utilization: no batch size on serving, no graphs where they run */
    {"gpu_utilization", NEED_GRAPHS | NEED_INFER, FIT_TRY, ANY_PROG,
     "Keep the GPU fed between batches: overlap the host's scheduling and input preparation with the GPU's work, and remove host synchronizations (the trace already replays CUDA graphs)."},
    {"gpu_utilization", NEED_INFER, FIT_TRY, ANY_PROG,
     "Keep the GPU fed between batches: overlap the host's scheduling and input preparation with the GPU's work, remove host synchronizations, and capture steady parts with CUDA graphs."},
    {"gpu_utilization", NEED_GRAPHS, FIT_TRY, ANY_PROG,
     "Raise the batch size, remove host synchronizations, and overlap data loading (the trace already replays CUDA graphs)."},
    /* slow_launches */
    {"slow_launches", NEED_GRAPHS | NEED_AMD, FIT_TRY, ANY_PROG,
     "Check CPU load and contention; the trace already replays HIP graphs, so these are launches made outside them."},
    {"slow_launches", NEED_AMD, FIT_TRY, ANY_PROG, "Check CPU load and contention, and use HIP graphs for repeated launch sequences."},
    {"slow_launches", NEED_GRAPHS, FIT_TRY, ANY_PROG,
     "Check CPU load and contention, and whether the slow calls are each kernel's first launch (lazy module loading, the default since CUDA 12.2, loads a kernel's module then: warm up before profiling, or set CUDA_MODULE_LOADING=EAGER); the trace already replays CUDA graphs, so these are launches made outside them."},
    /* memory_bound and communication: no optimizer or gradient advice on inference */
    {"memory_bound", NEED_INFER, FIT_TRY_PROG, PROG_PYTORCH,
     "torch.compile on the model (it fuses elementwise chains and norms), and autocast or lower-precision weights."},
    {"communication", NEED_INFER, FIT_TRY, ANY_PROG,
     "Overlap communication with computation, communicate less (fewer tensor-parallel ranks, or collectives fused with the kernels beside them), and check the network's bandwidth."},
    {"communication", NEED_INFER, FIT_TRY_PROG, PROG_PYTORCH, ""},
    /* startup on a capture that is one steady batch */
    {"startup", NEED_ONE, FIT_TITLE, ANY_PROG, "The time before the first kernel dominates the capture"},
    {"startup", NEED_ONE, FIT_WHY, ANY_PROG,
     "Without steps the whole capture is one window; it holds no start-up work before its first kernel (no context creation, module loading or allocation), so that time is the batch's own: host-side preparation, or work queued before the capture began."},
    {"startup", NEED_ONE, FIT_TRY, ANY_PROG,
     "Read the time before the first kernel as part of the batch, not as warm-up to profile past: overlap the host's preparation with the previous batch's GPU work, and see queued_idle when the first kernels were launched long before they ran."},
    {"startup", NEED_ONE, FIT_TRY_PROG, PROG_PYTORCH, ""},
    {"startup", NEED_ONE, FIT_TRY_PROG, PROG_MINDSPORE, ""},
    {"startup", NEED_ONE, FIT_TRY_PROG, PROG_CUDA, ""},
    /* queued_idle on AMD: rocprof records the dispatches */
    {"queued_idle", NEED_AMD, FIT_TRY, ANY_PROG,
     "Record what is missing, then read these gaps again: every kernel dispatch, graph nodes included (rocprofv3 --kernel-trace), and a profiling window that starts at a batch boundary, so that no work launched before it runs inside it."},
    {"queued_idle", NEED_AMD, FIT_TRY_PROG, PROG_PYTORCH,
     "torch.profiler.schedule(wait=1, warmup=1, active=3) with prof.step() at every batch boundary, so that the window opens on a batch boundary after warm-up; under HIP graphs, rocprofv3 --kernel-trace over the same steps."},
    {"queued_idle", NEED_AMD, FIT_TRY_PROG, PROG_CUDA,
     "rocprofv3 --kernel-trace --hip-trace (every dispatch, graph nodes included, traced as its own kernel), over a window that starts at an iteration boundary."},
};

/* ROCm's words for CUDA's (AMD traces), whole words, the longer first; then
 * any cudaXxx call becomes hipXxx. */
static const char *const words[][2] = {
    {"Nsight Systems", "rocprof"}, {"Nsight Compute", "rocprof-compute"}, {"CUDA-aware", "ROCm-aware"},
    {"CUDA_LAUNCH_BLOCKING", "HIP_LAUNCH_BLOCKING"}, {"CUDA graphs", "HIP graphs"}, {"CUDA graph", "HIP graph"},
    {"Tensor-Core", "matrix-core"}, {"Tensor Cores", "matrix cores"}, {"Tensor Core", "matrix core"}, {"cuDNN", "MIOpen"},
    {"cuBLASLt", "hipBLASLt"}, {"cuBLAS", "rocBLAS"}, {"cublasGemmBatched", "hipblasGemmBatched"}, {"CUB", "hipCUB"},
    {"NCCL", "RCCL"}, {"cudaHostAlloc", "hipHostMalloc"}, {"cudaMallocHost", "hipHostMalloc"}, {"CUDA", "HIP"}, {NULL, NULL}};

static int word_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* text with ROCm's words into buf (n bytes); 1 when something changed */
static int rocm_words(const char *text, char *buf, size_t n) {
    assert(n > 0);
    size_t o = 0;
    int changed = 0;
    for (const char *p = text; *p && o + 1 < n;) {
        const char *rep = NULL;
        size_t len = 0;
        if (p == text || !word_char(p[-1])) {
            for (int k = 0; words[k][0] && !rep; k++) {
                size_t l = strlen(words[k][0]);
                if (!strncmp(p, words[k][0], l) && !word_char(p[l])) rep = words[k][1], len = l;
            }
            if (!rep && !strncmp(p, "cuda", 4) && isupper((unsigned char)p[4])) rep = "hip", len = 4;
        }
        if (rep) {
            size_t l = strlen(rep);
            if (o + l >= n) break;
            memcpy(buf + o, rep, l);
            o += l, p += len, changed = 1;
        } else buf[o++] = *p++;
    }
    buf[o] = 0;
    return changed;
}

const char *advice_fit_text(const advice_fit *f, const char *rule, int program, int field, const char *text, char *buf, size_t n) {
    unsigned have = (f->graphs ? NEED_GRAPHS : 0) | (f->inference ? NEED_INFER : 0) | (f->one_batch ? NEED_ONE : 0) | (f->amd ? NEED_AMD : 0);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const fit_row *r = &rows[i];
        if ((r->need & have) != r->need || r->field != field || strcmp(r->rule, rule)) continue;
        if (field == FIT_TRY_PROG && r->program != program) continue;
        text = *r->text ? r->text : NULL;
        break;
    }
    if (!text || !f->amd) return text;
    return rocm_words(text, buf, n) ? buf : text;
}
