/* analyze.h - from a loaded trace to the summary.
 *
 * pc_analyze runs every analyzer over a finished pc_trace and returns a new
 * summary (see summary/summary.h; caller frees with pc_summary_free).
 * Analyzers only read the trace; each fills its own section of the summary
 * and says in it what the trace did not contain, rather than guessing.
 */
#ifndef PC_ANALYZE_H
#define PC_ANALYZE_H
#include "../model/trace.h"
#include "../summary/summary.h"
#include "links.h"
#include "peaks.h"

typedef struct pc_analyze_opts {
    const char *input_name;   /* shown in run info */
    int group_by_shape;       /* operators keyed by (name, input shapes) */
    const char *step_pattern; /* regex naming step ranges, or NULL */
    const char *fp_point, *bp_point;
    int timing;               /* each analyzer's wall time on stderr (PERFCARD_TIMING) */
} pc_analyze_opts;

pc_summary *pc_analyze(const pc_trace *t, const pc_analyze_opts *o);

/* A training step: [start, end) in ns. cpu_* is the step range itself;
 * end also covers the GPU work launched inside it (see steps.c). */
typedef struct pc_step {
    int64_t start, end, cpu_start, cpu_end;
    uint32_t name;
    int64_t number;           /* N of ProfilerStep#N, else the index */
    uint8_t kind;             /* STEP_KIND_*: what a serving marker says the step is (steps.c) */
    int64_t gpu_ns;           /* the GPU's time for the step (steps.c's header; 0: none) */
} pc_step;
enum { STEP_KIND_NONE = 0, STEP_KIND_PREFILL, STEP_KIND_DECODE, STEP_KIND_MIXED, STEP_KIND_N };

/* What every analyzer gets: the trace, the options, the shared links, the steps. */
typedef struct an_ctx {
    const pc_trace *t;
    pc_analyze_opts o;
    pc_links links;
    const gpu_peak *peak;     /* of the first device, NULL if unknown */
    char peak_basis[160];     /* how it was found ("by name", "matched by gfx942, ..."; peaks.h) */
    const pc_device *dev0;    /* first device, NULL if none */
    pc_step *steps;           /* at least one: the whole trace when it has no steps */
    size_t nsteps;
    const char *step_source;  /* how steps were found, or NULL when the trace has none */
    char *step_source_own;    /* step_source when made here ("markers: NAME"), freed by pc_analyze */
    /* steps from a repeating marker (steps.c): the first iteration, warm-up, which is no step;
     * warmup_end > warmup_start only then */
    int64_t warmup_start, warmup_end;
    int64_t marker_count;     /* the marker's occurrences */
    int bad_pattern;          /* --step-pattern did not compile */
    int clipped;              /* steps whose range ran past the profiler's window, cut at its end */
    size_t steps_nested, steps_overlap; /* step ranges dropped inside another, or overlapping the one before (steps.c's count_reshaped) */
    int64_t clipped_recorded_ns; uint32_t clipped_name; /* the first one: its recorded duration and name */
    /* The one thing analyzers pass each other outside the summary: critical_path's replay state
     * for the suggestions (handoff.h says who writes and reads each field); NULL: none */
    struct an_handoff *handoff;
} an_ctx;

/* Finds the steps (ProfilerStep#N, perfcard.step#N, or --step-pattern; without
 * them and without --step-pattern, the iterations a repeating marker delimits). */
void steps_find(an_ctx *c);
/* The step whose window holds t (binary search), or -1. */
long step_index(const an_ctx *c, int64_t t);
/* The step whose own range (its span, not the window) holds host time t, or -1. */
long step_span_index(const an_ctx *c, int64_t t);

/* The analyzers: each writes its sections (sections.def says which, in
 * which order and on which thread) into the summary. */
void an_runinfo(const an_ctx *c, pc_summary *summary);
void an_kernels(const an_ctx *c, pc_summary *summary);
void an_operators(const an_ctx *c, pc_summary *summary); /* operators, operator types, modules */
void an_transfers(const an_ctx *c, pc_summary *summary); /* API calls and memory transfers */
void an_memory(const an_ctx *c, pc_summary *summary);
void an_critical_path(const an_ctx *c, pc_summary *summary); /* each step's dependency graph replayed: critical path, savings (replay.c) */
void an_collectives(const an_ctx *c, pc_summary *summary); /* collectives per type and size, nccl-tests' bandwidths */
void an_steps(const an_ctx *c, pc_summary *summary);       /* phases, breakdown, data wait, communication */
void an_gpu_metrics(const an_ctx *c, pc_summary *summary); /* utilization, SM efficiency, occupancy, idle */
void an_counters(const an_ctx *c, pc_summary *summary);    /* data queues and CPU utilization */
void an_call_stacks(const an_ctx *c, pc_summary *summary); /* time by Python call stack */
void an_trace_timeline(const an_ctx *c, pc_summary *summary); /* the whole trace in lanes, for the interactive timeline */
void an_timeline(const an_ctx *c, pc_summary *summary);    /* the median step, box by box */
void an_advice(const an_ctx *c, pc_summary *summary);      /* suggestions: reads the sections above */
void an_overview(const an_ctx *c, pc_summary *summary);    /* headline figures: reads everything */

/* Names that mark data loading (DataLoader iteration, perfcard.data markers)
 * and collectives (NCCL and other stacks' communication kernels): steps.c. */
int name_is_dataloader(const char *n);
int name_is_nccl(const char *n);
/* name_is_nccl of every string of t, by id (1: a collective), in one array
 * the caller frees with spill_free: per event, a lookup instead of a search */
uint8_t *nccl_flags(const pc_trace *t);

/* Tensor Core use decided from a kernel's name (docs/tensor-cores.md):
 * 1 yes, 0 no, -1 unknown. */
int kernel_uses_tensor_cores(const char *name);
/* 1 when a kernel's name says it is a convolution's or a matrix product's
 * (cuBLAS/CUTLASS GEMMs, cuDNN's implicit-GEMM, Winograd, FFT, dgrad and
 * wgrad kernels), 0 for the rest (batch norm, elementwise, layout
 * transforms, cuDNN's offset helpers): the kernels Tensor Cores would run
 * (the tensor_cores change, stakes.c). */
int kernel_is_conv_gemm(const char *name);
#endif
