/* stakes.h - each rule's change to the step's graph and its replayed saving
 * (#37 item 3; depgraph.h, docs/replay.md "How the stakes use the replay").
 *
 * A rule whose fix is a change to the step's graph takes as its time at
 * stake the saving of that change, replayed on every step (in the steady
 * state: dg_change.carry) and averaged over the steps:
 *   SK_SYNC  sync_in_step: blocking calls no longer wait;
 *   SK_DATA  data_loading (and empty_queue, pipeline_bottleneck): the host's
 *            data-loading time between CUDA calls is gone (prefetched);
 *   SK_TC    tensor_cores: the convolution and GEMM kernels (kernel names:
 *            kernel_is_conv_gemm) that run on no Tensor Core, forward and
 *            backward, under a Tensor-Core-eligible operator or under none
 *            (autograd's thread), at 1 / STAKE_TC_SPEEDUP of their time, on
 *            devices of compute capability 7.0 and later;
 *   SK_HOST  host_wait: host gaps less their data loading, and launch calls,
 *            at most STAKE_HOST_FLOOR_NS (a CUDA graph's launch); gaps of
 *            DG_PHASE_NS or more kept when host_phase fired (they are its);
 *   SK_MB    memory_bound: the kernels, copies and memsets of memory-bound
 *            leaf operators at the device's peak bandwidth (their time x
 *            their % of bandwidth peak), but those of unfused attention
 *            (attention.h: unfused_attention's, replaced by a fused kernel);
 *   SK_GPU   gpu_kernels (#44 item 4): the kernels of compute-bound operators
 *            (matrix products, convolutions, attention: bound_by "compute")
 *            below STAKE_GPU_PEAK_SHARE of their data type's peak brought to
 *            it (time x their % of peak / 70%), replayed with the step ending
 *            when its GPU work ends (dg_change.gpu_ends_step): a faster GPU
 *            gives back at most its margin over the host;
 *   SK_ATTN  unfused_attention (#45): each hand-written attention pattern's
 *            GPU work (attention.h) scaled to the fused kernel's estimate
 *            (stakes_attn_fused, with the part tensor_cores counts on its
 *            products: stakes_attn_tc), one factor per pattern.
 * The critical_path section replays SK_SYNC, SK_DATA and SK_TC for its own
 * figures (replay.c), and SK_HOST on the same graphs for the suggestions
 * (an_handoff, handoff.h); suggestions read those (rules.c), replay SK_MB, and
 * the top three findings' changes together (advice.c). */
#ifndef PC_STAKES_H
#define PC_STAKES_H
#include "depgraph.h"
#include "handoff.h"
#include "../summary/summary.h"

enum { SK_SYNC = 0, SK_DATA, SK_TC, SK_HOST, SK_MB, SK_GPU, SK_ATTN, SK_N };
#define STAKE_TC_SPEEDUP 2.0      /* Tensor Cores' attainable speed-up on FP32 convolutions and GEMMs (docs/tensor-cores.md) */
#define STAKE_HOST_FLOOR_NS 2000  /* a launch inside a CUDA graph, ns */
/* The share of a data type's dense peak that large GEMMs attain with the
 * vendors' libraries (docs/replay.md: cuBLAS / hipBLASLt, 70-80% on large
 * BF16/FP16 shapes): SK_GPU's attainable speed, the low end. */
#define STAKE_GPU_PEAK_SHARE 0.70

/* Per GPU event of the trace: the SK_GPU change's duration factor (its
 * compute-bound operator's % of compute peak / 70%, 1 at or above it or
 * outside the set: the nearest operator around the kernel whose row in ps's
 * operators table is bound by compute with a known % of compute peak; not
 * the kernels of SK_TC's set, whose fix is Tensor Cores: tensor_cores');
 * NULL when the set is empty. *ns (may be NULL): the set's kernel time in
 * the trace; *give (may be NULL): what the set gives back off the graph,
 * sum of time x (1 - factor); row_ns (may be NULL; one per row of the
 * operators table, zeroed by the caller): the set's kernel time added to the
 * row that gave each kernel its factor. spill_free. */
float *stakes_gpu_set(const an_ctx *c, const pc_summary *ps, double *ns, double *give, double *row_ns);
/* SK_GPU by kernel family (#44 item 4, #45 item 6), for kernels whose FLOPs
 * are unknown: when operators launched under STAKE_GPU_OP_SHARE of the
 * kernel time (stakes_gpu_op_share: graph replays, GPU-only captures), stakes_gpu_set's
 * set is the kernels of the dominant families (stakes_gpu_families) at factor
 * 0: those kernels taking no time, replayed with the step ending when its GPU
 * work ends, give back the GPU's margin over the host or their time, the less
 * of the two: an upper bound on what faster kernels give back (docs/replay.md).
 * *ns and *give are then both those kernels' time; row_ns is left alone. */
#define STAKE_GPU_OP_SHARE 0.5
/* a family dominates at this share of the kernel time or more (copies and communication apart) */
#define STAKE_GPU_FAMILY_SHARE 0.10
/* memory_bound's families by name (normalization, layout / transpose, elementwise, reduction):
 * their fix is fusion and fewer bytes, memory_bound's finding, so not gpu_kernels' (as by operator,
 * where gpu_kernels takes the compute-bound operators only); copies and communication in neither */
#define STAKE_MB_FAMILIES (1u << KF_NORM | 1u << KF_LAYOUT | 1u << KF_ELEMENTWISE | 1u << KF_REDUCTION)
#define STAKE_GPU_NOT_FAMILIES (STAKE_MB_FAMILIES | 1u << KF_COPY | 1u << KF_COMM)
/* The share of the trace's kernel time (GPU_KERNEL events) launched under an
 * operator (a CPU_OP around the launch, the launch not a graph's); 1 without kernels. */
double stakes_gpu_op_share(const an_ctx *c);
/* The trace's kernel time by family (kfamily.h) into fam, the total in *kern;
 * returns the dominant families' bit mask (1 << kf_family): those outside
 * STAKE_GPU_NOT_FAMILIES (GEMM, convolution, attention, other) with
 * STAKE_GPU_FAMILY_SHARE of *kern or more. */
unsigned stakes_gpu_families(const pc_trace *t, double fam[], double *kern);
/* SK_GPU's change with the set gk: its factors, the step ending with its GPU work. */
dg_change stakes_gpu_change(const float *gk);

/* Per GPU event of the trace: the SK_TC change's duration factor (1 outside
 * the set); NULL when the device has no Tensor Cores or the set is empty.
 * *ns (may be NULL): the set's kernel time in the whole trace. spill_free. */
float *stakes_tc_set(const an_ctx *c, double *ns);
/* unfused_attention's fused kernel (#45), for a pattern p of attention.h: the
 * two products' FLOPs (flops.c) at STAKE_ATTN_PEAK_SHARE of the device's
 * Tensor Core peak for their data type (FlashAttention-2 attains 50-73% of an
 * A100's; half is the conservative end), or, with the FLOPs or the peak
 * unknown, the products' own kernel time (p->first_ns + p->second_ns: the
 * fused kernel does the same products and drops the passes between them); ns. */
#define STAKE_ATTN_PEAK_SHARE 0.5
struct attn_pattern;
double stakes_attn_fused(const an_ctx *c, const struct attn_pattern *p);
/* The part of p's products tensor_cores counts (ns): 1 - 1 / STAKE_TC_SPEEDUP of
 * a product's kernel time when an operator of its name (or aten::bmm) in
 * rows[0..n) is Tensor-Core-eligible and ran on none, on a Tensor Core device. */
double stakes_attn_tc(const an_ctx *c, const tab_op *rows, size_t n, const struct attn_pattern *p);
/* The SK_ATTN change's factors per GPU event: a pattern's events at (fused +
 * tensor_cores' part) / its time, 1 elsewhere; NULL when there is no pattern. */
float *stakes_attn_set(const an_ctx *c, const pc_summary *ps);
/* The SK_MB change's factors, from the operators table of ps (NULL: none);
 * when operators launched under STAKE_GPU_OP_SHARE of the kernel time, by
 * family (stakes_mb_families): the layout conversions at STAKE_MB_LAYOUT_FACTOR,
 * the other kernels of those families at STAKE_MB_FAMILY_FACTOR. */
float *stakes_mb_set(const an_ctx *c, const pc_summary *ps);
/* memory_bound by family (#45 item 6): without operators the kernels' bytes
 * are unknown, so their attainable time is an estimate of what the finding's
 * fix gives back: the layout conversions (the layout / transpose family but
 * concatenations) removed, STAKE_MB_LAYOUT_FACTOR: one memory layout end to
 * end (channels-last throughout) needs none of them; the normalization,
 * elementwise and reduction kernels (and concatenations) at 5/8 of the
 * measured, the memory traffic left when a chain of three pointwise kernels
 * is fused into one (8 global-memory operations -> 5: the PyTorch blog "Why
 * is PyTorch compile so fast: kernel fusion"; docs/replay.md). */
#define STAKE_MB_LAYOUT_FACTOR 0.0
#define STAKE_MB_FAMILY_FACTOR 0.625
/* The trace's kernel time by family (fam, *kern as stakes_gpu_families);
 * *ns: the memory-bound families' time (normalization, layout / transpose,
 * elementwise, reduction: copies apart, their fix is not fusion); returns
 * those with time as a bit mask (1 << kf_family). */
unsigned stakes_mb_families(const pc_trace *t, double fam[], double *kern, double *ns);
/* 1 for a kernel a compiler already fused (Inductor's triton_poi_fused_*, triton_per_fused_*,
 * triton_red_fused_*): fusion, memory_bound's fix, is done; it stays out of its families' time */
int stakes_compiler_fused(const char *name);
/* What SK_MB's set by family takes off the kernels' time (sum of time x (1 -
 * factor)): memory_bound's stake off the graph; 0 when no family has time. */
double stakes_mb_family_give(const pc_trace *t);
/* Per string id of the trace: the first of rows[0..n) whose name is that
 * string's text, -1 for none (names are interned: one pass over the rows and
 * one over the ids, where a scan of the rows per name was quadratic in the
 * distinct names; every id of empty text gets the first row named ""). spill_free. */
int32_t *stakes_op_rows(const pc_trace *t, const tab_op *rows, size_t n);
/* The change of kind k (SK_*) with the sets given (tc; mb: SK_MB's or SK_ATTN's; either NULL);
 * SK_HOST keeps the host phases (gaps of DG_PHASE_NS or more) when
 * keep_phases (host_phase fired: they are its). */
dg_change stakes_change(int k, const float *tc, const float *mb, int keep_phases);
/* stakes_tc_set, critical_path's when it handed it over (c->handoff), else
 * made here: *own is what the caller spill_frees. */
const float *stakes_tc(const an_ctx *c, double *ns, float **own);

/* The mean of v[0..n) (0 when n is 0). */
double stakes_mean(const double *v, size_t n);
/* Replays every step under each of the n changes (one build per step, the
 * unchanged replay and one steady-state replay per change; with c->handoff the
 * unchanged replay is critical_path's and the graphs are built on its index,
 * on two threads for a big trace: dg_each_step): save[k] the mean over the
 * steps of the step's saving (ns), the time per step the
 * change gives back over the profiled run: a change that helps only some
 * steps (data waits every few steps) counts in the mean, where a median
 * would drop it. 0 when the trace has no graph (no CUDA calls). */
int stakes_replay(const an_ctx *c, const dg_change *chs, int n, double *save);
/* stakes_replay, and base[k] (may be NULL) the mean over the steps of the
 * step's time before change k: the measured window, or with gpu_ends_step
 * the window to the end of its GPU work (that change's saving is against it,
 * and it replays with no carry: the work launched before a step held at its
 * measured end, since a queue the GPU catches up on is no steady state). */
int stakes_replay_base(const an_ctx *c, const dg_change *chs, int n, double *save, double *base);
/* 1 when PERFCARD_NO_REPLAY is set (not empty, not "0"): no graph and no
 * replay anywhere (critical_path.present false, every stake its estimate),
 * for measuring their cost only (tools/bench_replay.sh). */
int stakes_disabled(void);
#endif
