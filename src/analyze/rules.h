/* rules.h - the suggestion rules as a table (rules.c): each row holds the
 * text a reader sees and the frameworks the rule applies to; its check reads
 * the sections through rule_in and fires zero or more suggestions: each a
 * suggestion record (tables.def) appended to suggestions.rows of rule_in.ps,
 * which the rules after it read typed (PC_REC_AT(ps, suggestion, i), in the
 * order they fired). advice.c makes that section, runs every row and then
 * ranks the rows by the time at stake. A rule whose fix is a change to the
 * step's graph takes the replayed saving of that change as its stake
 * (stake_source "replay": rules_replayed, stakes.h); the others keep their
 * estimate (stake_source "estimate"; README's rule table says why). */
#ifndef PC_RULES_H
#define PC_RULES_H
#include "analyze.h"
#include "../util/side.h"

enum { FW_ANY = 0, FW_PYTORCH = 1 }; /* FW_PYTORCH: a PyTorch program (PROG_PYTORCH) */

/* The kind of program the advice is written for: a PyTorch program (a Kineto
 * trace with aten:: operators), a MindSpore job (MindSpore's profiler
 * output), or any other CUDA program (Nsight Systems and nvprof inputs,
 * whatever their range names, and captures of programs without aten::
 * operators). */
enum { PROG_CUDA = 0, PROG_PYTORCH, PROG_MINDSPORE };

typedef struct rule_in {
    const an_ctx *c;
    const tab_op *ops;    /* the operators table's rows (nops of them) */
    size_t nops;
    const tab_kernel *kern; /* the first device's kernel rows (nkern), by total time */
    size_t nkern;
    double nsteps, step, step_med; /* steps (>= 1), average and median step (ns; 0 when none) */
    int has_steps, program; /* PROG_*: whose advice the suggestions give */
    double *pool; /* GPU-free time per step not yet claimed by a finding (ns; < 0: no breakdown, no cap) */
    double *kpool; /* kernel time per step not yet claimed by a finding about kernels (ns; < 0: no cap) */
    pc_summary *ps; /* the summary so far (every section but overview): its records (PC_REC)
                       and tables (PC_TAB), and suggestions.rows, where the rules add theirs */
    double *replay; /* per SK_* (stakes.h): the replayed saving per step of that rule's change (ns),
                       NAN until a rule asks (rules_replayed), < 0 when there is none (no graph, no set) */
    int *keep_phases; /* SK_HOST's change keeps the host phases (host_wait sets it: host_phase fired) */
    struct rule_host_gaps *hg; /* host phases, found by the first rule that asks (rules.c); the
                                  caller zeroes it and frees it with rules_host_gaps_free */
    double *hpool; /* host-late GPU idle per step not yet claimed by a host-side finding (ns; < 0:
                      unknown, no cap): rules_host_late's, then what the host-side rules leave (#44) */
    const struct advice_fit *fit; /* what the run is (graphs, inference, vendor: advice_fit.h); NULL: nothing known */
    double *gpu_ceil; /* the most a change that only shortens kernels gives back per step (ns): NAN
                         until a rule asks (rules_gpu_ceiling), < 0 when there is no graph */
    struct rule_uncapped *unc; /* per row of suggestions.rows (the order they fired): what the
                                  row's fix gives back before any cap (ns per step; < 0: unknown),
                                  the rank's tie-break (advice.c); NULL: none kept */
} rule_in;
/* What each fired row's fix gives back uncapped (rule_in.unc): ns[i] for row i, -1 when unknown. */
typedef struct rule_uncapped { double *ns; size_t n, cap; } rule_uncapped;
/* The most a change that only shortens GPU kernels gives back per step (ns), cached in
 * in->gpu_ceil: SK_GPU's replay (the step ending when its GPU work ends) with every kernel
 * taking no time. ~0 on a step the host bounds (no kernel, however fast, makes the host
 * launch sooner), the GPU's margin over the host (or the kernels' time, when less) on one
 * the GPU bounds, more where the host waits for the kernels inside the step (a sync, a
 * blocking copy). < 0 when there is no graph (no replay): no cap known. */
double rules_gpu_ceiling(const rule_in *in);

/* The host-side GPU idle per step of a summary (#44 item 1): the host-late gaps (whose ending
 * kernel was launched after the gap began) and the idle before the device's first kernel and after
 * its last (nothing queued: start-up, tail), the most of any device: gpu.devices[].idle's
 * host_late_ns + startup_ns + tail_ns over the steps; -1 when no device has the figure (a summary
 * made before it) or a device's gaps are unlinked (no launches recorded: no cap). */
double rules_host_late(const pc_summary *summary, double nsteps);

/* The replayed saving of change k (SK_*) per step (ns; < 0: none): the
 * critical_path section's for SK_SYNC, SK_DATA and SK_TC, else replayed once
 * over the steps when a rule first asks (stakes.h), kept in in->replay. */
double rules_replayed(const rule_in *in, int k);

/* Whose advice (PROG_*): from the trace's format and the operators table of ps. */
int rules_program(const an_ctx *c, const pc_summary *ps);

/* The SK_* change of a rule whose stake is replayed, else -1. */
int rules_change_of(const char *rule);

/* The GPU idle gaps the host causes (host_phase's, also read by host_wait and
 * iteration_interval): found once per rule_in, in one pass over the events. */
typedef struct rule_host_gaps {
    int done;
    side sd; int pending; const struct rule_in *in; /* found on a second thread (rules_host_gaps_start) */
    int64_t sum, n, longest; /* the time counted, the gaps, the longest gap's part */
    int64_t tail;             /* of sum, the last step's part after the GPU's last op (no kernel ends it) */
    struct ivl *gaps;         /* each counted gap less data loading, in order of time */
    size_t ngaps;
} rule_host_gaps;
void rules_host_gaps_free(rule_host_gaps *hg);
/* Finds in->hg's gaps on a second thread, beside the rules that come before
 * the first that asks (host_phase; it then waits for them), for a trace of
 * over DG_THREADED_EVENTS events; in must outlive rules_host_gaps_free. */
void rules_host_gaps_start(const struct rule_in *in);

typedef struct pc_rule {
    const char *id;
    int fw;
    const char *title, *threshold, *why, *try_, *try_pytorch, *try_mindspore, *try_cuda, *source;
    const char *stake; /* where its time at stake comes from: "replayed: <the change>", or why an estimate (README) */
    void (*check)(const rule_in *in, const struct pc_rule *r);
} pc_rule;

extern const pc_rule pc_rules[]; /* ends with a row whose id is NULL */

/* How to mark steps in a program of that kind (PROG_*), as a phrase. */
const char *rules_mark_steps(int program);

/* The GPU-free time per step of a summary (runtime + data loading + CPU +
 * idle categories of its breakdown), the pool findings about GPU waits share;
 * -1 when it has no breakdown. */
double rules_gpu_free(const pc_summary *summary);

/* The kernel time per step of a summary (the kernel category of its
 * breakdown), the pool findings about kernels share (a faster kernel gives
 * back at most its own time); -1 when it has no breakdown. */
double rules_kernel_time(const pc_summary *summary);

/* A call that blocks the host until the GPU work it waits for is done: a device, stream or event
 * synchronize or a copy or memset without "Async", CUDA's or HIP's (api_sync_kind: the classes the
 * replay's dependency graph uses), with or without a version suffix ("cudaDeviceSynchronize_v3020",
 * "cuMemcpyDtoH_v2", "hipMemcpyWithStream"). */
int rule_is_sync_call(const char *name);
#endif
