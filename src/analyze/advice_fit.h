/* advice_fit.h - advice that fits the run (#44 item 6): what the trace says
 * about the program (it already launches CUDA/HIP graphs; it is inference or
 * serving, not training; the capture is one steady batch; the GPU is AMD's),
 * and the rule texts rewritten for it (advice_fit_text): no CUDA-graph or
 * reduce-overhead advice where graphs are launched, no "raise the batch size"
 * or "fused optimizer" on inference, no "profile the steady state" on one
 * steady batch, ROCm words (HIP graphs, rocprof, MIOpen, matrix cores,
 * HIP_LAUNCH_BLOCKING, hip* calls) on AMD traces. */
#ifndef PC_ADVICE_FIT_H
#define PC_ADVICE_FIT_H
#include <stddef.h>
#include "analyze.h"

typedef struct advice_fit {
    int graphs;    /* a runtime or driver call launches a graph (cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch) */
    int inference; /* serving markers (advice_fit_is_serving_marker), or CPU operators none of which is
                      autograd's backward or an optimizer's (advice_fit_is_optimizer_op) */
    int one_batch; /* no steps, and no start-up call (advice_fit_is_startup_call) and no host activity
                      recorded apart (Nsight Systems' OS runtime span) before the first kernel */
    int amd;       /* hip* runtime calls, or a device named AMD / Instinct / Radeon */
} advice_fit;

void advice_fit_find(const an_ctx *c, advice_fit *f);

/* The fields of a rule a reader sees (rules.h's pc_rule) */
enum { FIT_TITLE = 0, FIT_THRESHOLD, FIT_WHY, FIT_TRY, FIT_TRY_PROG, FIT_EVIDENCE, FIT_SOURCE };

/* The text of field `field` (FIT_*) of rule `rule` as it fits the run:
 * text itself when nothing changes; else a rewrite for the run (graphs,
 * inference, one batch; NULL where the rewrite drops a framework's part),
 * then ROCm words on AMD (written into buf, n bytes). program: PROG_*. */
const char *advice_fit_text(const advice_fit *f, const char *rule, int program, int field, const char *text, char *buf, size_t n);

/* Names, for the tests: an optimizer's operator (Optimizer.step#..., torch.optim, _foreach_*, fused
 * Adam), a serving framework's batch marker (execute_model, vLLM/SGLang step markers), a start-up call
 * (context creation, module loading, allocation: cuInit, cuCtxCreate, cudaMalloc, hipMalloc, ...). */
int advice_fit_is_optimizer_op(const char *name);
int advice_fit_is_serving_marker(const char *name);
int advice_fit_is_startup_call(const char *name);
#endif
