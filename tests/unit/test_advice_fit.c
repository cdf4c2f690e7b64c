/* Advice that fits the run (#44 item 6; src/analyze/advice_fit.h): what the
 * trace says about the program, and each condition's rewrite of the rule
 * texts, one case per condition and one where it must not apply. */
#include "test.h"
#include "fixtures.h"
#include "analyze/advice_fit.h"
#include "analyze/rules.h"
#include "load/load.h"
#include "summary/summary.h"
#include "util/spill.h"
#include <stdlib.h>
#include <string.h>

/* the text of a rule's field under a run of the given kind */
static const char *text_of(const advice_fit *f, const char *rule, int program, int field, char *buf, size_t n) {
    for (const pc_rule *r = pc_rules; r->id; r++) {
        if (strcmp(r->id, rule)) continue;
        const char *t = field == FIT_TITLE ? r->title : field == FIT_WHY ? r->why : field == FIT_TRY ? r->try_
                        : program == PROG_PYTORCH ? r->try_pytorch : program == PROG_MINDSPORE ? r->try_mindspore : r->try_cuda;
        return advice_fit_text(f, rule, program, field, t, buf, n);
    }
    return NULL;
}
static int has(const char *s, const char *w) { return s && strstr(s, w); }

TEST(advice_fit_graphs_drop_graph_advice) {
    char b[2048];
    advice_fit none = {0}, g = {.graphs = 1};
    /* without graphs the rows' own advice: capture with CUDA graphs, reduce-overhead */
    CHECK(has(text_of(&none, "host_wait", PROG_PYTORCH, FIT_TRY_PROG, b, sizeof b), "reduce-overhead"));
    CHECK(has(text_of(&none, "gpu_utilization", PROG_CUDA, FIT_TRY, b, sizeof b), "capture steady parts with CUDA graphs"));
    /* with graphs launched: none of it */
    static const struct { const char *rule; int prog, field; } f[] = {
        {"host_wait", PROG_PYTORCH, FIT_TRY_PROG}, {"host_wait", PROG_CUDA, FIT_TRY_PROG}, {"host_wait", PROG_PYTORCH, FIT_TRY},
        {"small_kernels", PROG_PYTORCH, FIT_TRY}, {"small_kernels", PROG_CUDA, FIT_TRY_PROG}, {"gpu_utilization", PROG_CUDA, FIT_TRY},
        {"slow_launches", PROG_CUDA, FIT_TRY}};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        const char *t = text_of(&g, f[i].rule, f[i].prog, f[i].field, b, sizeof b);
        CHECK_MSG(t && !has(t, "reduce-overhead") && !has(t, "capture the loop") && !has(t, "capture steady parts") &&
                      !has(t, "capture repeated") && !has(t, "use CUDA graphs") && !has(t, "cudaStreamBeginCapture"),
                  "%s field %d still advises graphs: %s", f[i].rule, f[i].field, t ? t : "(none)");
    }
}

TEST(advice_fit_inference_drops_training_advice) {
    char b[2048];
    advice_fit none = {0}, inf = {.inference = 1};
    CHECK(has(text_of(&none, "gpu_utilization", PROG_PYTORCH, FIT_TRY, b, sizeof b), "Raise the batch size"));
    CHECK(has(text_of(&none, "small_kernels", PROG_PYTORCH, FIT_TRY_PROG, b, sizeof b), "fused optimizers"));
    CHECK(!has(text_of(&inf, "gpu_utilization", PROG_PYTORCH, FIT_TRY, b, sizeof b), "batch size"));
    CHECK(!has(text_of(&inf, "small_kernels", PROG_PYTORCH, FIT_TRY_PROG, b, sizeof b), "optimizer"));
    CHECK(!has(text_of(&inf, "memory_bound", PROG_PYTORCH, FIT_TRY_PROG, b, sizeof b), "optimizer"));
    CHECK(!has(text_of(&inf, "communication", PROG_PYTORCH, FIT_TRY, b, sizeof b), "gradient"));
    CHECK(text_of(&inf, "communication", PROG_PYTORCH, FIT_TRY_PROG, b, sizeof b) == NULL); /* DDP's advice dropped */
    /* both: no batch size and no graphs */
    advice_fit gi = {.graphs = 1, .inference = 1};
    const char *t = text_of(&gi, "gpu_utilization", PROG_PYTORCH, FIT_TRY, b, sizeof b);
    CHECK(!has(t, "batch size") && !has(t, "capture steady parts"));
}

TEST(advice_fit_one_batch_no_steady_state_advice) {
    char b[2048];
    advice_fit none = {0}, one = {.one_batch = 1};
    CHECK(has(text_of(&none, "startup", PROG_PYTORCH, FIT_TRY, b, sizeof b), "Profile the steady state"));
    CHECK(!has(text_of(&one, "startup", PROG_PYTORCH, FIT_TRY, b, sizeof b), "steady state"));
    CHECK(text_of(&one, "startup", PROG_PYTORCH, FIT_TRY_PROG, b, sizeof b) == NULL);
    CHECK(!has(text_of(&one, "startup", PROG_CUDA, FIT_TITLE, b, sizeof b), "Start-up"));
}

TEST(advice_fit_rocm_words) {
    char b[2048];
    advice_fit amd = {.amd = 1};
    const char *t = text_of(&amd, "tensor_cores", PROG_PYTORCH, FIT_TITLE, b, sizeof b);
    CHECK_EQ_S(t ? t : "", "Matrix products and convolutions do not use matrix cores");
    t = text_of(&amd, "sync_in_step", PROG_CUDA, FIT_TRY, b, sizeof b);
    CHECK(has(t, "hipMemcpyAsync") && has(t, "hipStreamWaitEvent") && !has(t, "cuda"));
    t = text_of(&amd, "tensor_cores", PROG_PYTORCH, FIT_TRY_PROG, b, sizeof b);
    CHECK(has(t, "torch.backends.cuda.matmul.allow_tf32") && has(t, "torch.backends.cudnn")); /* PyTorch's names stay */
    t = text_of(&amd, "no_cudnn", PROG_PYTORCH, FIT_TITLE, b, sizeof b);
    CHECK_EQ_S(t ? t : "", "Convolutions run without MIOpen");
    t = text_of(&amd, "slow_launches", PROG_CUDA, FIT_TRY, b, sizeof b);
    CHECK(!has(t, "CUDA_MODULE_LOADING") && has(t, "HIP graphs"));
    t = text_of(&amd, "queued_idle", PROG_CUDA, FIT_TRY, b, sizeof b);
    CHECK(has(t, "rocprofv3") && !has(t, "nsys"));
    char o[256];
    CHECK_EQ_S(advice_fit_text(&amd, "x", PROG_CUDA, FIT_EVIDENCE, "set CUDA_LAUNCH_BLOCKING=1; Nsight Systems; NCCL; CUDA graphs", o, sizeof o),
               "set HIP_LAUNCH_BLOCKING=1; rocprof; RCCL; HIP graphs");
    /* not AMD: the same pointer back */
    advice_fit none = {0};
    const char *s = "cudaMemcpyAsync on Tensor Cores";
    CHECK(advice_fit_text(&none, "x", PROG_CUDA, FIT_EVIDENCE, s, o, sizeof o) == s);
}

/* slow_launches on CUDA: lazy module loading named as a cause with what to do, a whole sentence
 * (it read "set CUDA_MODULE_LOADING=LAZY effects") */
TEST(advice_fit_slow_launches_lazy_loading) {
    char b[2048];
    advice_fit graphs = {.graphs = 1}, none = {0};
    const char *t = text_of(&graphs, "slow_launches", PROG_CUDA, FIT_TRY, b, sizeof b);
    CHECK(has(t, "each kernel's first launch") && has(t, "CUDA_MODULE_LOADING=EAGER") && has(t, "launches made outside them"));
    CHECK(!has(t, "LAZY effects"));
    t = text_of(&none, "slow_launches", PROG_CUDA, FIT_TRY, b, sizeof b);
    CHECK(has(t, "CUDA_MODULE_LOADING=EAGER") && !has(t, "LAZY effects") && has(t, "CUDA graphs for repeated launch sequences"));
}

TEST(advice_fit_names) {
    CHECK(advice_fit_is_optimizer_op("Optimizer.step#AdamW.step"));
    CHECK(advice_fit_is_optimizer_op("aten::_foreach_add_"));
    CHECK(!advice_fit_is_optimizer_op("aten::add_"));
    CHECK(advice_fit_is_serving_marker("execute_model"));
    CHECK(advice_fit_is_serving_marker("step[DECODE bs=32]"));
    CHECK(!advice_fit_is_serving_marker("ProfilerStep#3"));
    CHECK(advice_fit_is_startup_call("cuCtxCreate_v2"));
    CHECK(advice_fit_is_startup_call("cudaMalloc"));
    CHECK(advice_fit_is_startup_call("hipMalloc"));
    CHECK(!advice_fit_is_startup_call("cudaMallocAsync"));
    CHECK(!advice_fit_is_startup_call("cudaLaunchKernel"));
}

/* What advice_fit_find reads from a trace (µs): one forward aten::mm, its launch and kernel, and
 * what each case adds. */
#define EV(cat, name, ts, dur) "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #ts "}},\n"
#define KERNEL(ts, corr) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":50,\"args\":{\"device\":0,\"stream\":7,\"correlation\":" #corr "}},\n"
#define END "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}\n]}"
static int find(const char *doc, advice_fit *f) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load_kineto_mem(doc, strlen(doc), &t, &err)) return 0;
    an_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    links_build(t, &c.links);
    steps_find(&c);
    advice_fit_find(&c, f);
    links_free(&c.links);
    free(c.step_source_own);
    spill_free(c.steps);
    pc_trace_free(t);
    return 1;
}

TEST(advice_fit_found_from_the_trace) {
    advice_fit f;
    /* forward only, a graph launched, no steps, nothing of start-up before the kernel */
    CHECK(find("{\"traceEvents\": [\n" EV("cpu_op", "aten::mm", 0, 100) EV("cuda_runtime", "cudaGraphLaunch", 10, 5) KERNEL(200, 10) END, &f));
    CHECK(f.graphs && f.inference && f.one_batch && !f.amd);
    /* a backward operator: training; a cudaMalloc before the first kernel: start-up; steps: not one batch */
    CHECK(find("{\"traceEvents\": [\n" EV("cpu_op", "autograd::engine::evaluate_function: MmBackward0", 0, 100)
               EV("cuda_runtime", "cudaMalloc", 5, 2) EV("cuda_runtime", "cudaLaunchKernel", 10, 5) KERNEL(200, 10) END, &f));
    CHECK(!f.graphs && !f.inference && !f.one_batch);
    CHECK(find("{\"traceEvents\": [\n" EV("user_annotation", "ProfilerStep#1", 0, 1000) EV("cpu_op", "Optimizer.step#SGD.step", 0, 100)
               EV("cuda_runtime", "hipLaunchKernel", 10, 5) KERNEL(200, 10) END, &f));
    CHECK(!f.inference && !f.one_batch && f.amd);
    /* a serving marker makes it inference whatever its operators */
    CHECK(find("{\"traceEvents\": [\n" EV("user_annotation", "execute_model", 0, 1000) EV("cpu_op", "Optimizer.step#SGD.step", 0, 100)
               EV("cuda_runtime", "cudaLaunchKernel", 10, 5) KERNEL(200, 10) END, &f));
    CHECK(f.inference);
}

/* End to end: one 1 ms step (µs) of a forward aten::mm whose kernel runs 100-150 (launched at 60)
 * and a graph launched at 500 whose node runs 600-650: busy 10%, so gpu_utilization fires; the
 * trace launches graphs and is inference (no backward, no optimizer): its advice neither raises
 * the batch nor captures graphs. The same on AMD (hip* calls): HIP's words. */
TEST(advice_fit_end_to_end) {
    static const char *const doc[2] = {
        "{\"traceEvents\": [\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
        EV("cpu_op", "aten::mm", 50, 20) EV("cuda_runtime", "cudaLaunchKernel", 60, 5) EV("cuda_runtime", "cudaGraphLaunch", 500, 5)
        KERNEL(100, 60) KERNEL(600, 500) END,
        "{\"traceEvents\": [\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
        EV("cpu_op", "aten::mm", 50, 20) EV("cuda_runtime", "hipLaunchKernel", 60, 5) EV("cuda_runtime", "hipGraphLaunch", 500, 5)
        KERNEL(100, 60) KERNEL(600, 500) END};
    for (int amd = 0; amd < 2; amd++) {
        pc_trace *t = NULL;
        pc_err err = {0};
        CHECK(!pc_load_kineto_mem(doc[amd], strlen(doc[amd]), &t, &err));
        if (!t) continue;
        cJSON *s = analyze_json(t, NULL);
        pc_trace_free(t);
        const cJSON *g = finding_of(s, "gpu_utilization");
        CHECK_MSG(g, "no gpu_utilization finding");
        const char *tr = sj_getstr(g, "try", "");
        CHECK_MSG(!strstr(tr, "batch size") && !strstr(tr, "capture steady parts") && strstr(tr, amd ? "HIP graphs" : "CUDA graphs"), "try: %s", tr);
        cJSON_Delete(s);
    }
}
