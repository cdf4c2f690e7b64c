/* Overview and suggestions.
 *
 * The overview gathers the headline figures of the other sections. The
 * suggestions are a rule engine: each rule has a name, a threshold stated in
 * words, the evidence that triggered it (numbers), why it matters, what to
 * try, and an estimate of the time at stake per step; suggestions are ranked
 * by that estimate (rules without one come last). A rule whose data the
 * trace lacks says nothing. Thresholds come from the tools that proved them:
 * PyTorch's TensorBoard plugin, MindInsight, Holistic Trace Analysis,
 * Nsight Systems' expert rules, PyProf. */
#include "analyze.h"
#include "../util/spill.h"
#include "../summary/summary.h"
#include "../util/sbuf.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fmt_ns(char *b, size_t n, double ns) {
    if (fabs(ns) < 1e3) snprintf(b, n, "%.0f ns", ns);
    else if (fabs(ns) < 1e6) snprintf(b, n, "%.1f µs", ns / 1e3);
    else if (fabs(ns) < 1e9) snprintf(b, n, "%.2f ms", ns / 1e6);
    else snprintf(b, n, "%.2f s", ns / 1e9);
}

typedef struct rule_out { cJSON *arr; } rule_out;

static void suggest(rule_out *o, const char *id, const char *title, const char *threshold, double at_stake_ns, const char *why,
                    const char *try_, const char *source, const char *evidence_fmt, ...) __attribute__((format(printf, 9, 10)));
static void suggest(rule_out *o, const char *id, const char *title, const char *threshold, double at_stake_ns, const char *why,
                    const char *try_, const char *source, const char *evidence_fmt, ...) {
    char ev[1024];
    va_list ap;
    va_start(ap, evidence_fmt);
    vsnprintf(ev, sizeof ev, evidence_fmt, ap);
    va_end(ap);
    cJSON *r = cJSON_CreateObject();
    sj_str(r, "rule", id);
    sj_str(r, "title", title);
    sj_str(r, "threshold", threshold);
    sj_str(r, "evidence", ev);
    sj_str(r, "why", why);
    sj_str(r, "try", try_);
    sj_str(r, "source", source);
    if (at_stake_ns >= 0) sj_num(r, "at_stake_ns", at_stake_ns);
    else cJSON_AddNullToObject(r, "at_stake_ns");
    cJSON_AddItemToArray(o->arr, r);
}

static int cmp_stake(const void *a, const void *b) {
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    double p = sj_getnum(x, "at_stake_ns", -1), q = sj_getnum(y, "at_stake_ns", -1);
    if (p != q) return p > q ? -1 : 1;
    return strcmp(sj_getstr(x, "rule", ""), sj_getstr(y, "rule", ""));
}

static int is_sync_call(const char *n) {
    return !strcmp(n, "cudaDeviceSynchronize") || !strcmp(n, "cudaStreamSynchronize") || !strcmp(n, "cudaMemcpy") ||
           !strcmp(n, "cudaMemset") || !strcmp(n, "cuCtxSynchronize") || !strcmp(n, "cuStreamSynchronize") ||
           !strcmp(n, "cuMemcpyHtoD_v2") || !strcmp(n, "cuMemcpyDtoH_v2") || !strcmp(n, "cudaEventSynchronize");
}

void an_advice(const an_ctx *c, pc_summary *ps) {
    const pc_trace *t = c->t;
    cJSON *s = ps->doc;
    const pc_table *optab = pc_summary_table(ps, "operators.rows");
    const tab_op *ops = optab ? TAB_ROWS(optab, op) : NULL;
    size_t nops = optab ? optab->n : 0;
    rule_out o = {cJSON_CreateArray()};
    char a[64], b[64], d[64];
    int has_steps = c->step_source != NULL;
    double nsteps = (double)c->nsteps;
    double step = sj_getnum(s, "steps.average.duration_ns", 0);
    double step_med = sj_getnum(s, "steps.median_ns", 0);
    int has_gpu = sj_getnum(s, "kernels.calls", 0) > 0;

    /* data loading (PyTorch's plugin: > 5% of the step) */
    double dw = sj_getnum(s, "dataloader.avg_wait_ns", 0);
    if (cJSON_IsTrue(sj_get(s, "dataloader.present")) && step > 0 && dw > 0.05 * step) {
        fmt_ns(a, sizeof a, dw);
        fmt_ns(b, sizeof b, step);
        suggest(&o, "data_loading", "Data loading takes a large share of each step", "data loading wait over 5% of the step", dw,
                "The GPU waits while the next batch is prepared on the host; every step pays this time.",
                "Use more DataLoader workers (num_workers), pin_memory=True, prefetching (prefetch_factor), and move decoding or augmentation off the training process.",
                "PyTorch TensorBoard plugin",
                "data wait %s of %s per step (%.1f%%); %d of %d steps over 5%%", a, b, 100 * dw / step,
                (int)sj_getnum(s, "dataloader.steps_over_5pct", 0), (int)sj_getnum(s, "dataloader.steps", 0));
    }
    /* empty data queue (MindInsight: > 30% of steps) */
    const cJSON *q;
    cJSON_ArrayForEach(q, sj_get(s, "queues.rows")) {
        double pct = sj_getnum(q, "empty_steps_pct", 0);
        if (sj_getnum(q, "steps_with_samples", 0) > 0 && pct > 30)
            suggest(&o, "empty_queue", "The input pipeline is the bottleneck", "data queue empty at more than 30% of steps",
                    sj_getnum(s, "steps.average.iteration_interval_ns", -1),
                    "An empty queue means the training step had to wait for data to be produced.",
                    "Speed up the input pipeline: more parallel workers or map threads, caching, prefetching, lighter preprocessing.",
                    "MindInsight", "queue %s was empty in %.0f of %.0f steps (%.0f%%)", sj_getstr(q, "name", ""),
                    sj_getnum(q, "empty_steps", 0), sj_getnum(q, "steps_with_samples", 0), pct);
    }
    /* data pipeline bottleneck (MindInsight) */
    const cJSON *po;
    cJSON_ArrayForEach(po, sj_get(s, "pipeline.rows")) {
        const char *v = sj_getstr(po, "verdict", "");
        if (!*v) continue;
        suggest(&o, "pipeline_bottleneck", "A data-pipeline operator is the bottleneck",
                "output queue under 10% full while its input queues are over 90% full (or, for a source, its output under 10%)",
                sj_getnum(s, "steps.average.iteration_interval_ns", -1),
                "The operator cannot produce data as fast as the next one consumes it, so the training step waits for data.",
                "Give the operator more parallel workers (num_parallel_workers), cache its output, or simplify its work.",
                "MindInsight", "%s (op %d): %s; output queue %.0f%% used", sj_getstr(po, "op_type", ""), (int)sj_getnum(po, "op_id", 0), v,
                sj_getnum(po, "queue_usage_pct", 0));
    }
    /* long iteration interval (MindInsight) */
    double ii = sj_getnum(s, "steps.average.iteration_interval_ns", 0);
    if (has_steps && step > 0 && ii > 0.2 * step) {
        fmt_ns(a, sizeof a, ii);
        fmt_ns(b, sizeof b, step);
        suggest(&o, "iteration_interval", "Long iteration interval before the forward pass", "iteration interval over 20% of the step",
                ii - (dw > 0 ? fmin(dw, ii) : 0),
                "Between one step's end and the next forward pass the GPU does no training work: data loading, host-side preparation or synchronization happens there.",
                "Overlap data preparation with compute (prefetch to the GPU with non_blocking copies), and remove host work between steps (logging, .item(), checkpointing).",
                "MindInsight", "iteration interval %s of %s per step (%.1f%%)", a, b, 100 * ii / step);
    }
    /* GPU utilization (PyTorch's plugin: < 50%) */
    const cJSON *dev;
    cJSON_ArrayForEach(dev, sj_get(s, "gpu.devices")) {
        double u = sj_getnum(dev, "utilization_pct", 100);
        if (u < 50 && step > 0)
            suggest(&o, "gpu_utilization", "Low GPU utilization", "GPU utilization under 50%", step * (1 - u / 100),
                    "For most of the step no kernel runs on the GPU, so the GPU you pay for sits idle.",
                    "Raise the batch size, remove host synchronizations, capture steady parts with CUDA graphs, and overlap data loading.",
                    "PyTorch TensorBoard plugin", "device %d busy %.1f%% of the steps' span", (int)sj_getnum(dev, "device", 0), u);
        /* GPU waiting for the host (Holistic Trace Analysis) */
        double hw = sj_getnum(dev, "idle.host_wait_ns", 0) / nsteps;
        if (step > 0 && hw > 0.1 * step) {
            fmt_ns(a, sizeof a, hw);
            suggest(&o, "host_wait", "The GPU waits for the host to launch work", "GPU idle waiting for the host over 10% of the step", hw,
                    "The next kernel was launched only after the GPU had gone idle: the host is too slow to keep the GPU fed.",
                    "Reduce per-kernel host overhead: fuse small operators (torch.compile), use CUDA graphs, avoid Python work and syncs in the step.",
                    "Holistic Trace Analysis", "device %d idle waiting for the host %s per step (%.1f%% of the step)",
                    (int)sj_getnum(dev, "device", 0), a, 100 * hw / step);
        }
    }
    double nsmall = sj_getnum(s, "gpu.launches.kernels_under_10us", 0), nk = sj_getnum(s, "gpu.launches.kernels", 0);
    if (nk >= 100 && nsmall / nk > 0.5) {
        double kw = 0;
        cJSON_ArrayForEach(dev, sj_get(s, "gpu.devices")) kw += sj_getnum(dev, "idle.kernel_wait_ns", 0);
        suggest(&o, "small_kernels", "Many very short kernels", "more than half of the kernels under 10 µs", kw / nsteps,
                "Each launch costs a few microseconds of host and GPU overhead; short kernels spend a large part of their time on it.",
                "Fuse elementwise chains (torch.compile, fused optimizers such as foreach/fused Adam), and capture the step with CUDA graphs.",
                "Holistic Trace Analysis", "%.0f of %.0f kernels (%.0f%%) ran under 10 µs", nsmall, nk, 100 * nsmall / nk);
    }
    double nlong = sj_getnum(s, "gpu.launches.launch_calls_over_50us", 0);
    if (nlong > 0)
        suggest(&o, "slow_launches", "Kernel launch calls over 50 µs", "launch calls taking over 50 µs on the host", -1,
                "A launch should take a few microseconds; slow launches point at lock contention, lazy module loading or a busy CPU.",
                "Check CPU load and contention, set CUDA_MODULE_LOADING=LAZY effects, and use CUDA graphs for repeated launch sequences.",
                "Holistic Trace Analysis", "%.0f of %.0f launch calls took over 50 µs", nlong, sj_getnum(s, "gpu.launches.launch_calls", 0));
    /* Tensor Cores (PyTorch's plugin, PyProf) */
    if (c->dev0 && c->dev0->cc_major >= 7) {
        double no_tc = 0, mis_ns = 0;
        int64_t ops_no_tc = 0, mis = 0;
        for (size_t i = 0; i < nops; i++) {
            const tab_op *r = &ops[i];
            if (r->tc_eligible == 1 && r->tensor_cores && !strcmp(r->tensor_cores, "no") && r->self_device_ns > 0) {
                no_tc += (double)r->self_device_ns;
                ops_no_tc++;
            }
            if (r->gemm_not_multiple_of_8 > 0) {
                mis += r->gemm_not_multiple_of_8;
                double calls = r->gemm_calls > 0 ? (double)r->gemm_calls : 1;
                mis_ns += (r->self_device_ns > 0 ? (double)r->self_device_ns : 0) * (double)r->gemm_not_multiple_of_8 / calls;
            }
        }
        if (ops_no_tc > 0 && no_tc > 0) {
            fmt_ns(a, sizeof a, no_tc / nsteps);
            suggest(&o, "tensor_cores", "Matrix products and convolutions do not use Tensor Cores",
                    "Tensor-Core-capable operators (compute capability 7.0 or higher) running no Tensor Core kernel", no_tc / nsteps / 2,
                    "Tensor Cores run matrix math several times faster than the ordinary FP32 units; the estimate assumes they would halve this time.",
                    "Enable mixed precision (torch.autocast with bf16 or fp16), or TF32 on Ampere and later (torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True).",
                    "PyTorch TensorBoard plugin, PyProf", "%lld operators with %s of GPU time per step on non-Tensor-Core kernels (device compute capability %d.%d)",
                    (long long)ops_no_tc, a, c->dev0->cc_major, c->dev0->cc_minor);
        }
        if (mis > 0)
            suggest(&o, "gemm_alignment", "GEMM dimensions not divisible by 8", "matrix product with M, N or K not a multiple of 8", mis_ns / nsteps / 4,
                    "Tensor Cores need dimensions that are multiples of 8 (fp16/bf16) to be used fully; other shapes fall back to slower paths or padding. The estimate assumes a quarter of those calls' time.",
                    "Pad hidden sizes, vocabulary and batch to multiples of 8 (64 is better).", "PyProf", "%lld GEMM calls with a dimension not divisible by 8", (long long)mis);
    }
    /* convolutions without cuDNN */
    {
        double slow = 0;
        int64_t n = 0;
        for (size_t i = 0; i < nops; i++) {
            const tab_op *r = &ops[i];
            const char *nm = r->name ? r->name : "";
            if (strstr(nm, "thnn_conv") || strstr(nm, "slow_conv") || strstr(nm, "_slow_conv2d")) {
                slow += (double)(r->device_total_ns > 0 ? r->device_total_ns : r->cpu_total_ns > 0 ? r->cpu_total_ns : 0);
                n += r->calls > 0 ? r->calls : 0;
            }
        }
        if (n > 0) {
            fmt_ns(a, sizeof a, slow / nsteps);
            suggest(&o, "no_cudnn", "Convolutions run without cuDNN", "convolution operators running thnn_conv2d / slow_conv kernels", slow / nsteps / 2,
                    "PyTorch falls back to its slow reference convolutions when cuDNN is disabled or cannot handle the case; one line such as torch._C._set_cudnn_enabled(False) left in a framework slows every convolution.",
                    "Check torch.backends.cudnn.enabled (and any torch._C._set_cudnn_enabled call), and use data types and layouts cuDNN supports.",
                    "perfcard", "%lld calls of non-cuDNN convolutions, %s per step", (long long)n, a);
        }
    }
    /* memcpy from pageable memory (Nsight Systems) */
    {
        const cJSON *r;
        cJSON_ArrayForEach(r, sj_get(s, "transfers.rows")) {
            if (strcmp(sj_getstr(r, "source_memory", ""), "Pageable") && !strstr(sj_getstr(r, "kind", ""), "-> Pageable")) continue;
            fmt_ns(a, sizeof a, sj_getnum(r, "total_ns", 0) / nsteps);
            suggest(&o, "pageable_memcpy", "Copies from or to pageable host memory", "any memcpy involving pageable memory",
                    sj_getnum(r, "total_ns", 0) / nsteps / 2,
                    "Pageable copies are staged through a pinned buffer by the driver and cannot overlap compute; they run at a fraction of the link's bandwidth.",
                    "Allocate host tensors in pinned memory (DataLoader pin_memory=True, tensor.pin_memory()) and copy with non_blocking=True.",
                    "Nsight Systems expert rules", "%s: %.0f copies, %s per step at %.1f GB/s", sj_getstr(r, "kind", ""), sj_getnum(r, "count", 0), a,
                    sj_getnum(r, "gbs", 0));
        }
    }
    /* synchronizations inside steps (Nsight Systems) */
    if (has_steps) {
        double sync_ns = 0;
        int64_t n = 0;
        char first[128] = "";
        uint8_t *sync_name = calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: 0 unknown, 1 no, 2 yes */
        for (size_t i = 0; i < t->ncpu; i++) {
            const pc_cpu_event *e = &t->cpu[i];
            if (e->kind != CPU_RUNTIME && e->kind != CPU_DRIVER) continue;
            const char *nm = strtab_get(&t->strs, e->name);
            if (!sync_name[e->name]) sync_name[e->name] = is_sync_call(nm) ? 2 : 1;
            if (sync_name[e->name] != 2) continue;
            if (step_index(c, e->ts) < 0) continue;
            sync_ns += (double)e->dur;
            n++;
            if (!first[0]) snprintf(first, sizeof first, "%s", nm);
        }
        spill_free(sync_name);
        if (n > 0) {
            fmt_ns(a, sizeof a, sync_ns / nsteps);
            suggest(&o, "sync_in_step", "Synchronizing calls inside the steps", "cudaDeviceSynchronize / cudaStreamSynchronize / synchronous cudaMemcpy or cudaMemset inside a step",
                    sync_ns / nsteps,
                    "A synchronizing call blocks the host until the GPU drains, so the host cannot queue the next work ahead of the GPU.",
                    "Use asynchronous copies (non_blocking=True), CUDA events instead of device-wide syncs, and avoid .item() / .cpu() / print of GPU tensors in the step.",
                    "Nsight Systems expert rules", "%lld synchronizing calls (e.g. %s), %s per step blocked", (long long)n, first, a);
        }
    }
    /* communication (PyTorch's plugin) */
    if (cJSON_IsTrue(sj_get(s, "communication.present"))) {
        double pct = sj_getnum(s, "communication.pct_of_step", 0), ov = sj_getnum(s, "communication.overlap_pct", 100);
        if (pct > 10 || ov < 50) {
            double exposed = (sj_getnum(s, "communication.nccl_ns", 0) - sj_getnum(s, "communication.overlap_ns", 0)) / nsteps;
            fmt_ns(a, sizeof a, exposed);
            suggest(&o, "communication", "Communication is large or poorly overlapped", "NCCL time over 10% of the step, or less than half of it overlapped with computation",
                    exposed, "Communication that does not overlap computation adds directly to the step time.",
                    "Overlap gradient all-reduce with backward (DDP bucketing: tune bucket_cap_mb), use gradient accumulation to communicate less often, and check network bandwidth.",
                    "PyTorch TensorBoard plugin", "NCCL %.1f%% of step time, %.0f%% overlapped; %s exposed per step", pct, ov, a);
        }
    }
    /* peak memory (PyTorch's plugin) */
    const cJSON *m;
    cJSON_ArrayForEach(m, sj_get(s, "memory.devices")) {
        double pct = sj_getnum(m, "peak_reserved_pct", 0);
        if (pct > 90)
            suggest(&o, "memory_peak", "Peak memory close to the device's capacity", "peak memory over 90% of device memory", -1,
                    "Close to the limit, the caching allocator fragments and retries, and the next larger batch or model runs out of memory.",
                    "Use activation checkpointing, mixed precision, smaller micro-batches with gradient accumulation, or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
                    "PyTorch TensorBoard plugin", "device %d peak %.1f%% of its memory", (int)sj_getnum(m, "id", 0), pct);
    }
    /* step-time variance (MindInsight, HTA) */
    if (has_steps && c->nsteps >= 3) {
        double mx = sj_getnum(s, "steps.max_ns", 0), cv = sj_getnum(s, "steps.cv_pct", 0);
        if (step_med > 0 && (mx > 1.5 * step_med || cv > 10)) {
            fmt_ns(a, sizeof a, mx);
            fmt_ns(b, sizeof b, step_med);
            fmt_ns(d, sizeof d, step - step_med);
            suggest(&o, "step_variance", "Step times vary", "slowest step over 1.5x the median, or coefficient of variation over 10%",
                    step > step_med ? step - step_med : 0,
                    "Uneven steps point at periodic host work (logging, checkpoints, garbage collection), data stalls or interference; the average step pays for them.",
                    "Look at the slow steps in the step table; move periodic work off the training loop; the first step is often warm-up.",
                    "MindInsight, Holistic Trace Analysis", "slowest step %s vs median %s; coefficient of variation %.1f%% (mean exceeds median by %s)", a, b, cv, d);
        }
    }
    /* CPU (MindInsight: system CPU over 80%) */
    if (cJSON_IsTrue(sj_get(s, "cpu.present"))) {
        double sys = sj_getnum(s, "cpu.average.system", 0), user = sj_getnum(s, "cpu.average.user", 0);
        if (sys > 80 || user + sys > 80)
            suggest(&o, "cpu_busy", "The host CPUs are saturated", "CPU utilization (user + system) over 80%", -1,
                    "With the CPUs saturated, data loading and kernel launches slow down and the GPU starves.",
                    "Reduce DataLoader workers' contention (pin threads, set OMP_NUM_THREADS), and move preprocessing to the GPU.",
                    "MindInsight", "average user %.0f%%, system %.0f%%", user, sys);
    }
    (void)has_gpu;
    /* rank by time at stake */
    int n = cJSON_GetArraySize(o.arr);
    cJSON **items = calloc((size_t)(n ? n : 1), sizeof *items);
    for (int i = 0; i < n; i++) items[i] = cJSON_DetachItemFromArray(o.arr, 0);
    spill_sort(items, (size_t)n, sizeof *items, cmp_stake);
    cJSON *adv = sj_obj(s, "suggestions");
    sj_int(adv, "count", n);
    cJSON *rows = sj_arr(adv, "rows");
    for (int i = 0; i < n; i++) {
        double st = sj_getnum(items[i], "at_stake_ns", -1);
        if (st >= 0 && step > 0) sj_num(items[i], "at_stake_pct", 100 * st / step);
        sj_int(items[i], "rank", i + 1);
        cJSON_AddItemToArray(rows, items[i]);
    }
    spill_free(items);
    cJSON_Delete(o.arr);
}

/* Headline figures, each naming the section it comes from. */
void an_overview(const an_ctx *c, pc_summary *ps) {
    cJSON *s = ps->doc;
    cJSON *ov = sj_obj(s, "overview");
    sj_bool(ov, "has_steps", c->step_source != NULL);
    sj_num(ov, "step_median_ns", sj_getnum(s, "steps.median_ns", 0));
    sj_num(ov, "step_p90_ns", sj_getnum(s, "steps.p90_ns", 0));
    sj_int(ov, "steps", (int64_t)sj_getnum(s, "steps.count", 0));
    const cJSON *d0 = sj_get(s, "gpu.devices.0");
    if (d0) sj_num(ov, "gpu_utilization_pct", sj_getnum(d0, "utilization_pct", 0));
    else cJSON_AddNullToObject(ov, "gpu_utilization_pct");
    /* where the step goes: the largest breakdown category */
    const cJSON *cat, *best = NULL;
    cJSON_ArrayForEach(cat, sj_get(s, "breakdown.categories"))
        if (!best || sj_getnum(cat, "total_ns", 0) > sj_getnum(best, "total_ns", 0)) best = cat;
    if (best) {
        sj_str(ov, "top_category", sj_getstr(best, "category", ""));
        sj_num(ov, "top_category_pct", sj_getnum(best, "pct", 0));
    }
    cJSON *cats = sj_arr(ov, "breakdown");
    cJSON_ArrayForEach(cat, sj_get(s, "breakdown.categories")) {
        if (sj_getnum(cat, "pct", 0) < 0.05) continue;
        cJSON *x = cJSON_CreateObject();
        sj_str(x, "category", sj_getstr(cat, "category", ""));
        sj_num(x, "pct", sj_getnum(cat, "pct", 0));
        cJSON_AddItemToArray(cats, x);
    }
    const pc_table *types = pc_summary_table(ps, "operator_types.rows");
    if (types && types->n) {
        const tab_optype *top = TAB_ROWS(types, optype);
        sj_str(ov, "top_operator", top->type);
        sj_num(ov, "top_operator_pct", top->share_pct);
    } else cJSON_AddNullToObject(ov, "top_operator");
    const pc_table *kern = pc_summary_table(ps, "kernels.devices.0.rows");
    if (kern && kern->n) {
        const tab_kernel *tk = TAB_ROWS(kern, kernel);
        sj_str(ov, "top_kernel", tk->name);
        sj_num(ov, "top_kernel_pct", tk->time_pct);
    } else cJSON_AddNullToObject(ov, "top_kernel");
    if (cJSON_IsTrue(sj_get(s, "dataloader.present"))) sj_num(ov, "data_wait_pct", sj_getnum(s, "dataloader.avg_wait_pct", 0));
    else cJSON_AddNullToObject(ov, "data_wait_pct");
    if (cJSON_IsTrue(sj_get(s, "cpu.present")))
        sj_num(ov, "cpu_load_pct", sj_getnum(s, "cpu.average.user", 0) + sj_getnum(s, "cpu.average.system", 0));
    else cJSON_AddNullToObject(ov, "cpu_load_pct");
    const cJSON *sg = sj_get(s, "suggestions.rows.0");
    if (sg) sj_str(ov, "top_suggestion", sj_getstr(sg, "title", ""));
}
