/* Steps and where their time goes.
 *
 * Steps: ProfilerStep#N ranges (or perfcard.step#N, or ranges whose name
 * matches --step-pattern). A step ends when its GPU work ends, when the GPU
 * bounds it (#44 item 2). Per step:
 *   host_ns = its range's length: the host's time for the step;
 *   gpu_ns  = from the latest of the window's start, the start of the
 *             step's first GPU op and the end of the GPU work launched
 *             before the step, to the end of the step's last GPU op (the ops
 *             whose launch call starts inside the range, links.c: kernels,
 *             copies, memsets), 0 without any: the GPU's time for the step,
 *             less what it waited for the host before its first op and
 *             what it still ran of earlier work;
 *   bound   = "gpu" when gpu_ns > host_ns, else "host"; margin_ns =
 *             |gpu_ns - host_ns|: how much the bounding side gives back at
 *             most before the other one bounds.
 * Window [start, end): start = the range's start, or later: the previous
 * window's end, or once GPU work launched outside every step before it has
 * ended (capped at the range's end), or for the first step once the work
 * queued before the trace has ended (trace_backlog; past the range's end
 * when the GPU ends the step); end = the end of the step's GPU work
 * (when later than its range's end) for a step the GPU bounds (gpu_ns
 * greater than the host's part of the window: host_ns when the window
 * starts at the range's start) and did not hold back, and for a step whose window starts at a previous window's
 * end past its range's start (the chain of a pipelined loop, until the GPU
 * catches up with the host), else the range's end (GPU work running past it is the GPU's
 * lag, a figure of its own, and the next window's earlier work: host-bound
 * figures are the ranges', #32). Held back: at the later of the range's
 * start and the previous window's end, the GPU still ran work launched
 * before the step (the GPU running behind the host across steps, the lag of
 * a host-bound step or work before the steps): such a step's GPU end is late
 * by that backlog, not by its own GPU time, so its window stays its range
 * (else the window would take the whole backlog and the next one lose it);
 * its gpu_ns, bound and margin still say which side bounds it. A serving
 * batch (steps from serving markers) ends when its GPU work ends whenever no
 * later batch's range begins before that end, host-bound or held back alike:
 * the batch is done only then, and no other window holds that work.
 * Windows never overlap: in a pipelined GPU-bound loop (the host ahead, the
 * GPU's next work queued when it ends the previous one's) step N's window is
 * [G(N-1), G(N)), the GPU's time per step (the loop's steady-state step
 * time), and the windows sum to the wall time from the first start to the
 * last end. A GPU-bound step's window is gpu_ns plus the host's lead before
 * the first op when the GPU was idle at the window's start.
 *
 * Without step ranges (and without --step-pattern), a repeating marker
 * delimits the iterations (#32 class 3; tests/expectations/marker_steps.py
 * states the same rule and marker-steps.md its readings): candidates are the
 * ranges a user places (record_function annotations, DataLoader `__next__`,
 * NVTX ranges); a marker is a name with >= MARKER_MIN occurrences that never
 * overlap each other; its starts b1..bN delimit the iterations [b_k, b_k+1)
 * (the range the last start opens has no end and is no iteration); the
 * first iteration is warm-up, reported apart and in no step or median; the
 * steps are the N-2 after it. Regular: the GPU work launched in each step
 * (kernels, copies, memsets) has a median m >= 1 and at least 90% of the
 * steps hold within 10% of m. Among regular markers: DataLoader first (the
 * loop's head), then the fewest occurrences (the outermost loop), then the
 * earliest first start, then the name. A trace with neither is one window,
 * and the summary says so.
 *
 * Phases (MindInsight's step trace), per window [start, end):
 *   fp_start = start of the first kernel launched by a forward operator (not
 *              under data loading); bp_end = end of the last kernel launched
 *              by a backward operator (or of the last forward kernel when the
 *              step has no backward); with --fp-point/--bp-point, the first
 *              kernel under the named operator and the end of the last one;
 *              with no kernels in the step, the same on CPU operators;
 *   a kernel counts in the step that launched it (in the window it starts
 *   in when the trace does not link it to a launch);
 *   earlier work = from start until the GPU has finished the work launched
 *              before the step (an earlier step's, the GPU lagging), at most
 *              to fp_start, with phases from kernels (0 otherwise);
 *   iteration interval = fp_start - start - earlier work (waiting for data
 *   included); forward and backward = bp_end - fp_start;  tail = end - bp_end
 *   (optimizer step, gradient all-reduce). The four sum to the duration.
 * GPU time breakdown (PyTorch's overview): every instant of the window
 *   counted once (what ran in it, whichever step launched it: an earlier
 *   step's late kernels are the GPU's time in this window, the earlier work
 *   phase says how much), in the first category active at it: kernel (not NCCL) >
 *   memcpy > memset > communication (NCCL kernels) > CUDA runtime > data
 *   loading > CPU operator > other (idle).
 * Data loading wait: union of DataLoader ranges inside the window.
 * Communication: union of NCCL kernels inside the window, and the part of it
 *   overlapping non-NCCL kernels (on other streams); for steps whose phases
 *   the input gives and whose kernels are not on the steps' clock (MindSpore's
 *   step trace), the part inside the forward and backward phase. */
#include <assert.h>
#include <errno.h>
#include "analyze.h"
#include "../util/units.h"
#include "../summary/categories.h"
#include "../util/spill.h"
#include "intervals.h"
#include "../summary/summary.h"
#include "../util/hmap.h"
#include "../util/xalloc.h"
#include "kfamily.h"
#include <math.h>
#include <stddef.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_step_name(const char *n) {
    return !strncmp(n, "ProfilerStep#", 13) || !strncmp(n, "perfcard.step#", 14);
}

/* per-name predicates, cached by string id for the hot loops */
static _Thread_local uint8_t *dl_cache, *nccl_cache;
static _Thread_local size_t cache_n;
static _Thread_local const pc_trace *cache_t;
static void name_caches(const pc_trace *t) {
    if (cache_t == t && cache_n == t->strs.n) return;
    spill_free(dl_cache);
    spill_free(nccl_cache);
    cache_n = t->strs.n;
    cache_t = t;
    dl_cache = spill_calloc(cache_n ? cache_n : 1, 1);
    nccl_cache = spill_calloc(cache_n ? cache_n : 1, 1);
}
static int name_is_dataloader_id(const pc_trace *t, uint32_t id);
static int name_is_nccl_id(const pc_trace *t, uint32_t id);
int name_is_dataloader(const char *n) { return !strncmp(n, "enumerate(DataLoader)", 21) || !strncmp(n, "perfcard.data", 13); }
/* communication by family (kfamily.c, docs/communication-kernels.md): NCCL/RCCL,
 * DeepEP, NVSHMEM, MSCCL++, custom all-reduces, MindSpore's HCCL, peer-to-peer copies */
int name_is_nccl(const char *n) { return kf_comm_lib(n) != KF_LIB_NONE; }
uint8_t *nccl_flags(const pc_trace *t) {
    uint8_t *f = spill_calloc(t->strs.n ? t->strs.n : 1, 1);
    for (size_t g = 0; g < t->ngpu; g++) {
        uint32_t id = t->gpu[g].name;
        if (id < t->strs.n && !f[id]) f[id] = name_is_nccl(strtab_get(&t->strs, id)) ? 2 : 1;
    }
    for (size_t i = 0; i < t->strs.n; i++) f[i] = f[i] == 2;
    return f;
}

static int name_is_dataloader_id(const pc_trace *t, uint32_t id) {
    if (!dl_cache[id]) dl_cache[id] = name_is_dataloader(strtab_get(&t->strs, id)) ? 2 : 1;
    return dl_cache[id] == 2;
}
static int name_is_nccl_id(const pc_trace *t, uint32_t id) {
    if (!nccl_cache[id]) nccl_cache[id] = name_is_nccl(strtab_get(&t->strs, id)) ? 2 : 1;
    return nccl_cache[id] == 2;
}

static int cmp_step(const void *a, const void *b) {
    const pc_step *x = a, *y = b;
    if (x->cpu_start != y->cpu_start) return x->cpu_start < y->cpu_start ? -1 : 1;
    return x->cpu_end > y->cpu_end ? -1 : x->cpu_end < y->cpu_end;
}

/* index of the step whose [lo, hi) contains t, or -1 (steps sorted, disjoint) */
static long find_step(const pc_step *s, size_t n, int64_t t, int use_cpu) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if ((use_cpu ? s[m].cpu_start : s[m].start) <= t) lo = m + 1;
        else hi = m;
    }
    if (lo == 0) return -1;
    const pc_step *x = &s[lo - 1];
    return t < (use_cpu ? x->cpu_end : x->end) ? (long)(lo - 1) : -1;
}

long step_index(const an_ctx *c, int64_t t) { return find_step(c->steps, c->nsteps, t, 0); }
long step_span_index(const an_ctx *c, int64_t t) { return find_step(c->steps, c->nsteps, t, 1); }

enum { MARKER_MIN = 4 }; /* occurrences: a warm-up iteration and two steps at least */

typedef struct mk_occ { uint32_t name; int64_t s, e; } mk_occ;
static int cmp_occ(const void *a, const void *b) {
    const mk_occ *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}
static int cmp_i64s(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}
static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}
static size_t count_in(const int64_t *v, size_t n, int64_t lo, int64_t hi) { /* v sorted: how many in [lo, hi) */
    size_t a = 0, b = n, c2 = 0, d = n;
    while (a < b) { size_t m = (a + b) / 2; if (v[m] < lo) a = m + 1; else b = m; }
    while (c2 < d) { size_t m = (c2 + d) / 2; if (v[m] < hi) c2 = m + 1; else d = m; }
    return c2 > a ? c2 - a : 0;
}

/* Serving and inference markers (#44 item 3; docs/commands.md "Steps from
 * markers" cites the frameworks' names). Families, tried in this order; the
 * first with an occurrence gives the steps, each occurrence that does not
 * overlap an earlier one (the outermost kept) one step (its own range; a
 * capture of one batch is that batch, not the whole capture):
 *   SGLANG   "step[MODE bs=N...]": SGLang's span around each ModelRunner.forward
 *            ("step[DECODE bs=32]", "step[EXTEND bs=1 toks=16128]": EXTEND is
 *            its prefill; MIXED, IDLE, TARGET_VERIFY, DRAFT_EXTEND, ...);
 *   EXECUTE  a name that is or ends with "execute_model" (vLLM's model runner
 *            and worker: NVTX wrappers, record_function, python_function
 *            frames "file.py(123): execute_model");
 *   VLLM     vLLM v1's record_function stages inside execute_model,
 *            "gpu_model_runner: preprocess" (opening each call), "...: forward",
 *            "...: postprocess": the preprocess ranges delimit the steps, the
 *            last ending with the last stage range that starts in it;
 *   EXEC_ANY a name that starts with "execute_" (TensorRT-LLM's and other
 *            runtimes' execute_* calls);
 *   COMPILED "Torch-Compiled Region: i/j" (torch.compile's frame), then
 *            "## Call CompiledFxGraph <hash>" (Inductor's graph call):
 *            a compiled program's calls, one per batch (diffusers/xDiT
 *            denoising steps when the transformer is compiled); only the
 *            name that occurs first (the program's entry: with graph
 *            breaks a batch calls "0/0", then "1/0", ...); its calls
 *            delimit the steps (a call is one part of an iteration: a
 *            training step's forward), the last step ending with its call.
 * Candidates: any range that is no CUDA call. Kind (STEP_KIND_*): prefill
 * when the step's name, or a range inside it, names "prefill" or "extend",
 * decode when "decode", mixed when "mixed" or both (case-insensitive). */
static int kind_of_name(const char *n);
/* The steps' kinds (serving_steps' rule): from each step's name, and from
 * the names of the ranges that start inside it (v sorted, disjoint). */
static void serving_kinds(const pc_trace *t, pc_step *v, size_t n) {
    uint8_t *bits = spill_calloc(n, 1), *kc = spill_calloc(t->strs.n ? t->strs.n : 1, 1); /* per name: kind bits + 4 once known */
    for (size_t k = 0; k < n; k++) bits[k] = (uint8_t)kind_of_name(strtab_get(&t->strs, v[k].name));
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER || e->name >= t->strs.n) continue;
        if (!kc[e->name]) kc[e->name] = (uint8_t)(4 | kind_of_name(strtab_get(&t->strs, e->name)));
        if (!(kc[e->name] & 3)) continue;
        long si = find_step(v, n, e->ts, 1);
        if (si >= 0) bits[si] |= kc[e->name] & 3;
    }
    for (size_t k = 0; k < n; k++)
        v[k].kind = bits[k] == 3 ? STEP_KIND_MIXED : bits[k] == 2 ? STEP_KIND_DECODE : bits[k] == 1 ? STEP_KIND_PREFILL : STEP_KIND_NONE;
    spill_free(bits);
    spill_free(kc);
}

enum { SV_SGLANG, SV_EXECUTE, SV_VLLM, SV_EXEC_ANY, SV_REGION, SV_FXGRAPH, SV_N };
static int serving_family(const char *n) {
    size_t len = strlen(n);
    if (!strncmp(n, "step[", 5) && strstr(n, " bs=")) return SV_SGLANG;
    if (len >= 13 && !strcmp(n + len - 13, "execute_model")) return SV_EXECUTE;
    if (!strncmp(n, "gpu_model_runner: ", 18)) return SV_VLLM;
    if (!strncmp(n, "execute_", 8)) return SV_EXEC_ANY;
    if (!strncmp(n, "Torch-Compiled Region", 21)) return SV_REGION;
    if (!strncmp(n, "## Call CompiledFxGraph", 23)) return SV_FXGRAPH;
    return -1;
}
static int kind_of_name(const char *n) {
    int k = 0;
    if (strcasestr(n, "prefill") || strcasestr(n, "extend")) k |= 1;
    if (strcasestr(n, "decode")) k |= 2;
    if (strcasestr(n, "mixed")) k |= 3;
    return k; /* bits: 1 prefill, 2 decode */
}
static int cmp_occ_ts(const void *a, const void *b) {
    const mk_occ *x = a, *y = b;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return x->e > y->e ? -1 : x->e < y->e; /* the outer one first */
}

/* The steps serving markers give (the rule above), 0 when none; on success
 * *out holds them (sorted, disjoint, kinds set) and c's source is set. */
static size_t serving_steps(an_ctx *c, pc_step **out) {
    const pc_trace *t = c->t;
    mk_occ *o[SV_N] = {NULL};
    size_t no[SV_N] = {0}, capo[SV_N] = {0};
    uint8_t *fam = spill_alloc((t->strs.n ? t->strs.n : 1)); /* per name: family + 1, 0 unknown, 255 none */
    memset(fam, 0, t->strs.n ? t->strs.n : 1);
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER || e->dur <= 0 || e->name >= t->strs.n) continue;
        if (!fam[e->name]) {
            int f = serving_family(strtab_get(&t->strs, e->name));
            fam[e->name] = f < 0 ? 255 : (uint8_t)(f + 1);
        }
        if (fam[e->name] != 255) {
            int f = fam[e->name] - 1;
            *SPILL_PUSH(o[f], no[f], capo[f]) = (mk_occ){e->name, e->ts, e->ts + e->dur};
        }
    }
    spill_free(fam);
    size_t n = 0;
    int best = -1;
    for (int f = 0; f < SV_N && best < 0; f++) {
        if (no[f] < 1) continue;
        spill_sort(o[f], no[f], sizeof *o[f], cmp_occ_ts);
        /* a compiled program's frames and graphs: the first one's name only (with graph breaks a
         * batch calls several, "0/0" then "1/0": the first is the program's entry) */
        int delim = f == SV_REGION || f == SV_FXGRAPH || f == SV_VLLM;
        uint32_t only = f == SV_REGION || f == SV_FXGRAPH ? o[f][0].name : 0;
        if (f == SV_VLLM) { /* vLLM v1's stages: "preprocess" opens each execute_model call */
            only = UINT32_MAX;
            for (size_t i = 0; i < no[f] && only == UINT32_MAX; i++)
                if (!strcmp(strtab_get(&t->strs, o[f][i].name), "gpu_model_runner: preprocess")) only = o[f][i].name;
            if (only == UINT32_MAX) continue;
        }
        /* the last delimited step ends with the family's last range that starts in it */
        int64_t last_s = INT64_MIN, last_e = INT64_MIN;
        for (size_t i = 0; delim && i < no[f]; i++)
            if (o[f][i].name == only && o[f][i].s > last_s) last_s = o[f][i].s;
        for (size_t i = 0; delim && i < no[f]; i++)
            if (o[f][i].s >= last_s && o[f][i].e > last_e) last_e = o[f][i].e;
        size_t k = 0; /* the outermost, non-overlapping occurrences */
        for (size_t i = 0; i < no[f]; i++)
            if ((!only || o[f][i].name == only) && (!k || o[f][i].s >= o[f][k - 1].e)) o[f][k++] = o[f][i];
        no[f] = k;
        if (delim && k) o[f][k - 1].e = last_e > o[f][k - 1].e ? last_e : o[f][k - 1].e;
        if (k >= 1) best = f, n = k;
    }
    pc_step *v = NULL;
    if (best >= 0) {
        v = spill_calloc(n, sizeof *v);
        for (size_t k = 0; k < n; k++) {
            v[k].cpu_start = v[k].start = o[best][k].s;
            /* a compiled program's call is one part of an iteration (a training step's forward):
             * its calls delimit the steps, the last one ending with its call */
            int delim = (best == SV_REGION || best == SV_FXGRAPH || best == SV_VLLM) && k + 1 < n;
            v[k].cpu_end = v[k].end = delim ? o[best][k + 1].s : o[best][k].e;
            v[k].name = o[best][k].name;
            v[k].number = (int64_t)k + 1;
        }
        serving_kinds(t, v, n);
        static const char *const fname[SV_N] = {"SGLang batches (step[...])", "execute_model", "vLLM's gpu_model_runner stages", "execute_*",
                                                "Torch-Compiled Region", "CompiledFxGraph calls"};
        size_t len = strlen(fname[best]) + 32;
        c->step_source_own = malloc(len);
        if (!c->step_source_own) abort();
        snprintf(c->step_source_own, len, "serving markers: %s", fname[best]);
        *out = v;
    }
    for (int f = 0; f < SV_N; f++) spill_free(o[f]);
    return best >= 0 ? n : 0;
}

/* The iterations a repeating marker delimits (the rule at the top); 0 when
 * no marker is regular. On success *out holds the steps, c's warm-up and
 * source are set. */
static size_t marker_steps(an_ctx *c, pc_step **out) {
    const pc_trace *t = c->t;
    if (!t->ngpu || !c->links.gpu_launch) return 0;
    int64_t *lt = NULL;
    size_t nl = 0, capl = 0;
    for (size_t g = 0; g < t->ngpu; g++) {
        int k = t->gpu[g].kind;
        int32_t L = c->links.gpu_launch[g];
        if (L >= 0 && (k == GPU_KERNEL || k == GPU_MEMCPY || k == GPU_MEMSET)) *SPILL_PUSH(lt, nl, capl) = t->cpu[L].ts;
    }
    if (!nl) { spill_free(lt); return 0; }
    spill_sort(lt, nl, sizeof *lt, cmp_i64s);
    mk_occ *o = NULL;
    size_t no = 0, capo = 0;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind == CPU_USER_ANNOT || e->kind == CPU_DATALOADER || (e->kind == CPU_OP && (e->flags & PC_CPU_NVTX)))
            *SPILL_PUSH(o, no, capo) = (mk_occ){e->name, e->ts, e->ts + e->dur};
    }
    if (no) spill_sort(o, no, sizeof *o, cmp_occ);
    size_t best = 0, best_n = 0;
    int best_dl = 0;
    size_t *cnt = NULL, capc = 0;
    for (size_t i = 0, j; i < no; i = j) {
        for (j = i + 1; j < no && o[j].name == o[i].name; j++) {}
        size_t n = j - i;
        if (n < MARKER_MIN) continue;
        int overlap = 0;
        for (size_t k = i + 1; k < j && !overlap; k++) overlap = o[k].s < o[k - 1].e;
        if (overlap) continue;
        /* the GPU work launched in each step (iterations 2..n-1), its median and spread */
        size_t ns = n - 2;
        if (ns > capc) cnt = spill_realloc(cnt, ns * sizeof *cnt), capc = ns;
        for (size_t k = 0; k < ns; k++) cnt[k] = count_in(lt, nl, o[i + 1 + k].s, o[i + 2 + k].s);
        size_t *srt = spill_alloc(ns * sizeof *srt);
        memcpy(srt, cnt, ns * sizeof *srt);
        spill_sort(srt, ns, sizeof *srt, cmp_size);
        double med = ns % 2 ? (double)srt[ns / 2] : ((double)srt[ns / 2 - 1] + (double)srt[ns / 2]) / 2;
        spill_free(srt);
        size_t ok = 0;
        for (size_t k = 0; k < ns; k++) ok += fabs((double)cnt[k] - med) <= 0.1 * med;
        if (med < 1 || ok * 10 < 9 * ns) continue;
        const char *nm = strtab_get(&t->strs, o[i].name);
        int dl = !strncmp(nm, "enumerate(DataLoader)", 21);
        int better = !best_n || dl > best_dl ||
                     (dl == best_dl && (n < best_n || (n == best_n && (o[i].s < o[best].s ||
                                                                        (o[i].s == o[best].s && strcmp(nm, strtab_get(&t->strs, o[best].name)) < 0)))));
        if (better) best = i, best_n = n, best_dl = dl;
    }
    spill_free(cnt);
    spill_free(lt);
    if (!best_n) { spill_free(o); return 0; }
    size_t ns = best_n - 2;
    pc_step *v = spill_calloc(ns, sizeof *v);
    for (size_t k = 0; k < ns; k++) {
        v[k].cpu_start = v[k].start = o[best + 1 + k].s;
        v[k].cpu_end = v[k].end = o[best + 2 + k].s;
        v[k].name = o[best].name;
        v[k].number = (int64_t)k + 2; /* the iteration's number: the warm-up is 1 */
    }
    c->warmup_start = o[best].s;
    c->warmup_end = o[best + 1].s;
    c->marker_count = (int64_t)best_n;
    const char *nm = strtab_get(&t->strs, o[best].name);
    size_t len = strlen(nm) + 10;
    c->step_source_own = malloc(len);
    if (!c->step_source_own) abort();
    snprintf(c->step_source_own, len, "markers: %s", nm);
    spill_free(o);
    *out = v;
    return ns;
}

/* The steps' windows and GPU times (#44 item 2; the rule in the header).
 * Requires v sorted by cpu_start with disjoint ranges (steps_find's), the
 * launch links made. Ensures, per step, start <= end, start >= cpu_start,
 * windows disjoint and in order; gpu_ns set; a GPU-bound step (gpu_ns >
 * host) that the GPU did not hold back ends at its GPU work's end, as does a
 * serving batch (serving) whose GPU work ends before the next range begins;
 * any other at its range's end. */
/* a - b, saturated at int64's ends (timestamps of a hostile trace reach them) */
static int64_t sub_sat(int64_t a, int64_t b) {
    if (b < 0 && a > INT64_MAX + b) return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b) return INT64_MIN;
    return a - b;
}

/* The end of the work queued before the trace began, INT64_MIN for none:
 * the GPU ops (kernels, copies, memsets) that no launch call in the trace
 * links and that start before first (the first step's first linked op;
 * INT64_MAX when it has none: a trace without launches tells no backlog from
 * the step's own work), from the step's start s to their latest end b (at
 * most first), when they kept the GPU busy for most of [s, b) (half or more).
 * A kernel cannot start before its launch, and none of the traced calls
 * launched these: the profiler started while the GPU still ran work launched
 * before it (a GPU-bound loop's earlier steps: the ResNet DDP trace, 30.08 ms
 * of them). A few stray unlinked ops in an idle GPU (1 µs memsets) are no
 * backlog: the idle before the step's first op is the host's lead. t->gpu is
 * sorted by start (pc_trace_finish). */
static int64_t trace_backlog(const pc_trace *t, const pc_links *l, int64_t s, int64_t first) {
    if (first == INT64_MAX) return INT64_MIN;
    int64_t b = INT64_MIN, busy = 0, cur_s = 0, cur_e = INT64_MIN;
    for (size_t g = 0; g < t->ngpu && t->gpu[g].ts < first; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (l->gpu_launch[g] >= 0 || (e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET)) continue;
        int64_t lo = e->ts > s ? e->ts : s, hi = e->ts + e->dur < first ? e->ts + e->dur : first;
        if (hi <= lo) continue;
        if (lo > cur_e) { /* a new busy run: the previous one is counted */
            if (cur_e > cur_s) busy += cur_e - cur_s;
            cur_s = lo, cur_e = hi;
        } else if (hi > cur_e) cur_e = hi;
        if (hi > b) b = hi;
    }
    if (cur_e > cur_s) busy += cur_e - cur_s;
    assert(b == INT64_MIN || (b > s && b <= first && busy <= b - s));
    return b != INT64_MIN && 2 * busy >= b - s ? b : INT64_MIN;
}

static void step_windows(const an_ctx *c, pc_step *v, size_t n, int serving) {
    const pc_trace *t = c->t;
    int64_t *gend = spill_alloc((n ? n : 1) * sizeof *gend), *gfirst = spill_alloc((n ? n : 1) * sizeof *gfirst),
            *pre = spill_alloc((n ? n : 1) * sizeof *pre), *prerun = spill_alloc((n ? n : 1) * sizeof *prerun);
    for (size_t i = 0; i < n; i++) gend[i] = pre[i] = prerun[i] = INT64_MIN, gfirst[i] = INT64_MAX;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        int32_t L = c->links.gpu_launch[g];
        if (L < 0 || (e->kind != GPU_KERNEL && e->kind != GPU_MEMCPY && e->kind != GPU_MEMSET)) continue;
        int64_t end = e->ts + e->dur, at = t->cpu[L].ts;
        long si = find_step(v, n, at, 1);
        if (si >= 0) {
            if (end > gend[si]) gend[si] = end;
            if (e->ts < gfirst[si]) gfirst[si] = e->ts;
            continue;
        }
        size_t lo = 0, hi = n; /* the first step starting after the launch */
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (v[m].cpu_start <= at) lo = m + 1;
            else hi = m;
        }
        if (lo < n && end > pre[lo]) pre[lo] = end;
        if (lo < n && e->ts <= v[lo].cpu_start && end > prerun[lo]) prerun[lo] = end; /* running at the step's start */
    }
    int64_t backlog = n ? trace_backlog(t, &c->links, v[0].cpu_start, gfirst[0]) : INT64_MIN;
    int64_t prev = INT64_MIN, before = INT64_MIN; /* the previous window's end; the end of the GPU work launched before the step */
    for (size_t i = 0; i < n; i++) {
        int64_t s = v[i].cpu_start;
        if (pre[i] > before) before = pre[i];
        /* held back: the GPU still ran work launched before the step, not the previous window's, at its start */
        int held = before > (prev > s ? prev : s), chained = prev > s;
        /* the window starts after earlier work the GPU was running at the range's start; work
         * launched before the step that the GPU only began later was queued (SGLang's decode: a
         * graph launched before the step ran 463 ms into it), and the range keeps its start */
        if (prerun[i] > s) s = prerun[i] < v[i].cpu_end ? prerun[i] : v[i].cpu_end;
        /* the backlog the capture began with is no step's: the first window starts once it has
         * ended, past the range's end when the GPU ends the step (a GPU-bound loop's first step) */
        if (i == 0 && backlog > s) s = held && backlog > v[i].cpu_end ? v[i].cpu_end : backlog;
        if (prev > s) s = prev;
        int64_t from = gfirst[i] > s ? gfirst[i] : s;
        if (before > from) from = before;
        v[i].gpu_ns = gend[i] > from ? sub_sat(gend[i], from) : 0;
        /* the GPU ends the step: its time from the window's start (or its first op) exceeds the host's
         * part of the window (the range, when the window starts at it) */
        int64_t gspan = gend[i] == INT64_MIN ? 0 : sub_sat(gend[i], gfirst[i] > s ? gfirst[i] : s); /* INT64_MIN: no GPU work */
        int ends_gpu = gend[i] > v[i].cpu_end && !held && (gspan > sub_sat(v[i].cpu_end, s) || chained);
        /* a serving batch (its range the model runner's call; the engine schedules between the
         * ranges) is done when its GPU work is: its window reaches that end whenever no later
         * batch's range begins before it, host-bound or held back alike (no other window holds
         * that work: nothing is taken from the next one) */
        if (serving && gend[i] > v[i].cpu_end && (i + 1 == n || gend[i] <= v[i + 1].cpu_start)) ends_gpu = 1;
        int64_t e = ends_gpu ? gend[i] : v[i].cpu_end;
        if (gend[i] > before) before = gend[i];
        if (e < s) e = s;
        assert(s <= e && s >= v[i].cpu_start && v[i].gpu_ns >= 0);
        v[i].start = s, v[i].end = prev = e;
    }
    spill_free(gend);
    spill_free(gfirst);
    spill_free(pre);
    spill_free(prerun);
}

/* Counts what steps_find does to the step ranges v[0..n) (sorted by cmp_step) beyond their
 * measure: c->steps_nested, ranges inside the previous kept one under another name, which are
 * dropped (the same name inside: one step recorded twice, one step without a word); c->steps_overlap,
 * ranges starting before the previous kept one ends, whose window starts at its end. Both are
 * said in run.warnings (an_runinfo) and make the output incomplete (exit 3). */
static void count_reshaped(const pc_step *v, size_t n, an_ctx *c) {
    size_t last = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (last != SIZE_MAX && v[i].cpu_start >= v[last].cpu_start && v[i].cpu_end <= v[last].cpu_end) {
            if (v[i].name != v[last].name) c->steps_nested++;
            continue;
        }
        if (last != SIZE_MAX && v[i].cpu_start < v[last].cpu_end) c->steps_overlap++;
        last = i;
    }
}

void steps_find(an_ctx *c) {
    const pc_trace *t = c->t;
    regex_t re;
    int use_re = 0, serving = 0; /* serving: the steps come from serving markers (step_windows) */
    if (c->o.step_pattern) {
        if (regcomp(&re, c->o.step_pattern, REG_EXTENDED | REG_NOSUB) == 0) use_re = 1;
        else c->bad_pattern = 1;
    }
    size_t n = 0, cap = 0;
    pc_step *v = NULL;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind != CPU_USER_ANNOT && e->kind != CPU_OP) continue;
        const char *nm = strtab_get(&t->strs, e->name);
        if (use_re ? regexec(&re, nm, 0, NULL, 0) != 0 : !is_step_name(nm)) continue;
        pc_step *s = SPILL_PUSH(v, n, cap);
        memset(s, 0, sizeof *s);
        s->cpu_start = s->start = e->ts;
        s->cpu_end = s->end = e->ts + e->dur;
        s->name = e->name;
        const char *hash = strrchr(nm, '#');
        s->number = -1; /* -1: numbered by position below (also for a number beyond 2^62) */
        if (hash && hash[1]) {
            char *end;
            errno = 0;
            long long num = strtoll(hash + 1, &end, 10);
            if (end != hash + 1 && !errno && num > -PC_TIME_LIMIT && num < PC_TIME_LIMIT) s->number = num;
        }
    }
    if (use_re) regfree(&re);
    if (n) spill_sort(v, n, sizeof *v, cmp_step);
    count_reshaped(v, n, c);
    /* drop ranges nested in the previous one (a step range recorded twice) */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && v[i].cpu_start >= v[k - 1].cpu_start && v[i].cpu_end <= v[k - 1].cpu_end) continue;
        v[k++] = v[i];
    }
    n = k;
    /* a step range still open when the profiler stopped is closed by the profiler later (at export):
     * its recorded end is not the step's. Cut it at the end of the profiler's own window. */
    for (size_t i = 0; t->prof_end > t->prof_start && i < n; i++) {
        if (v[i].cpu_end <= t->prof_end || v[i].cpu_start >= t->prof_end) continue;
        if (!c->clipped++) c->clipped_recorded_ns = v[i].cpu_end - v[i].cpu_start, c->clipped_name = v[i].name;
        v[i].cpu_end = v[i].end = t->prof_end;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i].number < 0) v[i].number = (int64_t)i + 1;
    if (n == 0 && !c->o.step_pattern && !t->step_source) {
        pc_step *m = NULL;
        size_t nm = serving_steps(c, &m);
        serving = nm > 0;
        if (!nm) nm = marker_steps(c, &m);
        if (nm) spill_free(v), v = m, n = nm;
    }
    if (n == 0) {
        v = spill_realloc(v, sizeof *v);
        memset(v, 0, sizeof *v);
        v->start = v->cpu_start = t->t_min;
        v->end = v->cpu_end = t->t_max;
        c->steps = v;
        c->nsteps = 1;
        c->step_source = NULL;
        return;
    }
    c->step_source = use_re ? "ranges matching --step-pattern" : c->step_source_own ? c->step_source_own
                                                              : t->step_source ? t->step_source : "ProfilerStep#N or perfcard.step#N ranges";
    step_windows(c, v, n, serving);
    c->steps = v;
    c->nsteps = n;
}

/* the categories (BK_*) and their priority: summary/categories.h */

static int under_dataloader(const pc_trace *t, const pc_links *l, int32_t i) {
    for (; i >= 0; i = l->parent[i]) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind == CPU_DATALOADER || name_is_dataloader_id(t, e->name)) return 1;
    }
    return 0;
}

static int under_name(const pc_trace *t, const pc_links *l, int32_t i, const char *name) {
    for (; i >= 0; i = l->parent[i])
        if (!strcmp(strtab_get(&t->strs, t->cpu[i].name), name)) return 1;
    return 0;
}

typedef struct stepacc {
    int64_t fp_start, bp_end, fwd_end, cpu_fp, cpu_bp, cpu_fwd_end;
    int has_kernel, has_bwd, cpu_has_bwd, cpu_has_op;
    int64_t b[BK_N];
    int64_t data_ns, comm_ns, overlap_ns;
} stepacc;

/* the means of a step's duration and phases (sum[k] / n[k], in the
 * order duration, iteration interval, forward + backward, tail, data wait,
 * communication, earlier work); null where n[k] is 0 (steps whose phases
 * were not found) */
static void means(double m[7], const double *sum, const size_t *n) {
    for (int k = 0; k < 7; k++) m[k] = n[k] ? pc_figure(sum[k] / (double)n[k]) : NAN;
}
#define SET_AVERAGE(a, m) ((a)->duration_ns = (m)[0], (a)->iteration_interval_ns = (m)[1], (a)->fp_bp_ns = (m)[2], \
                           (a)->tail_ns = (m)[3], (a)->data_wait_ns = (m)[4], (a)->communication_ns = (m)[5], \
                           (a)->earlier_work_ns = (m)[6])

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* One-off work: per step, the kernel and operator names that run in that
 * step and in no other (autotuning, compilation, first-touch allocation);
 * *n_out[si] counts them and *first_out[si] is one of them (0: none). Only
 * with 3 steps or more, where "no other step" means something. */
static void one_off_names(const pc_trace *t, const pc_step *st, size_t ns, uint32_t *n_out, uint32_t *first_out) {
    if (ns < 3) return;
    size_t nn = t->strs.n;
    int32_t *step_of = spill_alloc(nn * sizeof *step_of); /* -1 unseen, -2 seen in two steps */
    for (size_t i = 0; i < nn; i++) step_of[i] = -1;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass ? t->ncpu : t->ngpu;
        for (size_t i = 0; i < n; i++) {
            uint32_t name;
            int64_t ts;
            if (pass) {
                if (t->cpu[i].kind != CPU_OP) continue;
                name = t->cpu[i].name, ts = t->cpu[i].ts;
            } else {
                if (t->gpu[i].kind != GPU_KERNEL) continue;
                name = t->gpu[i].name, ts = t->gpu[i].ts;
            }
            long si = find_step(st, ns, ts, pass);
            if (si < 0 || name >= nn || step_of[name] == -2) continue;
            if (step_of[name] == -1) step_of[name] = (int32_t)si;
            else if (step_of[name] != (int32_t)si) step_of[name] = -2;
        }
    }
    for (size_t id = 1; id < nn; id++)
        if (step_of[id] >= 0) {
            if (!n_out[step_of[id]]++) first_out[step_of[id]] = (uint32_t)id;
        }
    spill_free(step_of);
}

/* A step's host and GPU times, which one bounds it and by how much (#44
 * item 2, the rule at the top): host = the range's length; gpu = the
 * step's gpu_ns (step_windows); gpu_bound when gpu > host; margin = |gpu -
 * host|. */
typedef struct bounds { int64_t host, gpu, margin; int gpu_bound; } bounds;
static void step_bounds(const pc_step *st, size_t ns, bounds *out) {
    for (size_t i = 0; i < ns; i++) {
        bounds *b = &out[i];
        b->host = st[i].cpu_end - st[i].cpu_start;
        b->gpu = st[i].gpu_ns;
        b->gpu_bound = b->gpu > b->host;
        b->margin = b->gpu_bound ? b->gpu - b->host : b->host - b->gpu;
        assert(b->host >= 0 && b->margin >= 0);
    }
}

static const char *const step_kind_name[STEP_KIND_N] = {"unknown", "prefill", "decode", "mixed"};

/* The steps' bound over the run (steps' record): the means of host_ns and
 * gpu_ns, which one is larger, their difference, the GPU-bound steps. */
static void steps_bound_summary(tab_steps *sr, const bounds *b, size_t ns) {
    double h = 0, g = 0;
    int64_t nb = 0;
    for (size_t i = 0; i < ns; i++) h += (double)b[i].host, g += (double)b[i].gpu, nb += b[i].gpu_bound;
    h /= (double)ns, g /= (double)ns;
    sr->host_ns = pc_figure(h);
    sr->gpu_ns = pc_figure(g);
    sr->bound = g > h ? "gpu" : "host";
    sr->margin_ns = pc_figure(fabs(g - h));
    sr->gpu_bound_steps = nb;
}

/* steps.kinds: per step kind (steps.rows[].kind) the count, mean, median and
 * p90 (nearest rank) of the windows; only when some step has a kind. */
static void steps_by_kind(pc_summary *ps, cJSON *so, const pc_step *st, size_t ns) {
    int any = 0;
    for (size_t i = 0; i < ns; i++) any |= st[i].kind != STEP_KIND_NONE;
    if (!any) return;
    pc_table *kt = pc_summary_add_table(ps, so, "kinds", TAB_step_kind);
    int64_t *d = spill_alloc(ns * sizeof *d);
    for (int k = 1; k <= STEP_KIND_N; k++) {
        int kind = k % STEP_KIND_N; /* prefill, decode, mixed, then unknown */
        size_t n = 0;
        double sum = 0;
        for (size_t i = 0; i < ns; i++)
            if (st[i].kind == kind) d[n++] = st[i].end - st[i].start, sum += (double)(st[i].end - st[i].start);
        if (!n) continue;
        spill_sort(d, n, sizeof *d, cmp_i64);
        tab_step_kind *r = tab_push(kt);
        r->kind = step_kind_name[kind];
        r->count = (int64_t)n;
        r->mean_ns = pc_figure(sum / (double)n);
        r->p50_ns = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
        size_t r90 = (size_t)ceil(0.9 * (double)n);
        r->p90_ns = d[(r90 ? r90 : 1) - 1];
    }
    spill_free(d);
}

/* an_steps' state from phase to phase: per step (ns of them, windows
 * sorted and disjoint) its accumulators, the end of the GPU work launched
 * before it (carry) and the GPU's lag; per breakdown category the merged
 * intervals (u); and the sums over the steps the sections print. */
typedef struct st_pass {
    const an_ctx *c;
    const pc_trace *t;
    const pc_links *l;
    const pc_step *st;
    size_t ns;
    const char *fp_name, *bp_name;  /* --fp-point, --bp-point, or NULL */
    stepacc *acc;
    int64_t *carry;                 /* per step: the latest end of GPU work launched before it */
    ivl *u[BK_OTHER];               /* per category: merged intervals (BK_COMM's kept to the end) */
    size_t nu[BK_OTHER];
    int64_t *lag;                   /* per step: the GPU's lag behind the step's range */
    int linked;                     /* some step's range launched GPU work the trace links */
    bounds *bd;                     /* per step: host and GPU time (with a step source) */
    uint32_t *oneoff_n, *oneoff_id; /* per step: one-off names and one of them */
    double sum[16], sum1[16];       /* means' sums (all steps; without the first), means' order */
    size_t cnt[16], cnt1[16], phases_known;
    int64_t *durs;                  /* per step: its window's length */
    int over5;                      /* steps waiting for data over 5% of their window */
    double bsum[BK_N];
    int64_t comm_total, overlap_total, total_dur;
} st_pass;

/* A step's phases: fp and bp the forward's start and the backward's end
 * (start <= fp <= bp <= end), what they come from (basis: "input", "gpu",
 * "cpu", "none"), and the parts of the window: earlier work, iteration
 * interval, forward + backward and tail, which sum to the window. */
typedef struct st_phases {
    int64_t fp, bp, earlier, interval, fpbp, tail;
    const char *basis;
} st_phases;

/* The end of the GPU work launched before each step (in earlier steps or
 * before them): the part of a window the GPU spends on it is no phase of
 * this step's. carry[j] first holds the latest end of work launched
 * between step j-1's start and step j's, then the running maximum. After:
 * carry is non-decreasing. */
static void st_carry(st_pass *p) {
    const pc_trace *t = p->t;
    size_t ns = p->ns;
    p->carry = spill_calloc(ns, sizeof *p->carry);
    for (size_t g = 0; p->c->step_source && g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        int32_t L = p->l->gpu_launch[g];
        if (L < 0 || e->kind == GPU_ANNOT) continue;
        size_t lo = 0, hi = ns; /* the first step whose range starts after the launch */
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (p->st[m].cpu_start <= t->cpu[L].ts) lo = m + 1;
            else hi = m;
        }
        if (lo < ns && e->ts + e->dur > p->carry[lo]) p->carry[lo] = e->ts + e->dur;
    }
    for (size_t i = 1; i < ns; i++)
        if (p->carry[i - 1] > p->carry[i]) p->carry[i] = p->carry[i - 1];
    for (size_t i = 1; i < ns; i++) assert(p->carry[i - 1] <= p->carry[i]);
}

/* Kernels -> phases: a kernel is the phase of the step that launched it
 * (the step whose window it starts in when the trace does not link it):
 * the forward's first start, the backward's (or forward's) last end. */
static void st_kernel_phases(st_pass *p) {
    const pc_trace *t = p->t;
    const pc_links *l = p->l;
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        if (e->kind != GPU_KERNEL) continue;
        int32_t L = l->gpu_launch[g];
        long si = L >= 0 && p->c->step_source ? find_step(p->st, p->ns, t->cpu[L].ts, 1) : find_step(p->st, p->ns, e->ts, 0);
        if (si < 0) continue;
        stepacc *a = &p->acc[si];
        int32_t op = l->gpu_inner[g];
        if (op < 0) continue;
        if (under_dataloader(t, l, op)) continue;
        a->has_kernel = 1;
        int64_t end = e->ts + e->dur;
        if (p->fp_name) {
            if (under_name(t, l, op, p->fp_name) && e->ts < a->fp_start) a->fp_start = e->ts;
        } else if (!l->backward[op] && e->ts < a->fp_start) a->fp_start = e->ts;
        if (p->bp_name) {
            if (under_name(t, l, op, p->bp_name) && end > a->bp_end) a->bp_end = end, a->has_bwd = 1;
        } else if (l->backward[op]) {
            if (end > a->bp_end) a->bp_end = end;
            a->has_bwd = 1;
        }
        if (!l->backward[op] && end > a->fwd_end) a->fwd_end = end;
    }
}

/* CPU operators -> phases, for steps without kernels: as st_kernel_phases
 * from the operators in each step's window. */
static void st_cpu_phases(st_pass *p) {
    const pc_trace *t = p->t;
    const pc_links *l = p->l;
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        if (e->kind != CPU_OP || under_dataloader(t, l, (int32_t)i)) continue;
        long si = find_step(p->st, p->ns, e->ts, 0);
        if (si < 0) continue;
        stepacc *a = &p->acc[si];
        int64_t end = e->ts + e->dur;
        a->cpu_has_op = 1;
        int fp_hit = p->fp_name ? !strcmp(strtab_get(&t->strs, e->name), p->fp_name) : !l->backward[i];
        int bp_hit = p->bp_name ? !strcmp(strtab_get(&t->strs, e->name), p->bp_name) : l->backward[i];
        if (fp_hit && e->ts < a->cpu_fp) a->cpu_fp = e->ts;
        if (bp_hit && end > a->cpu_bp) a->cpu_bp = end, a->cpu_has_bwd = 1;
        if (!l->backward[i] && end > a->cpu_fwd_end) a->cpu_fwd_end = end;
    }
}

/* A merged interval list per breakdown category (BK_* before BK_OTHER),
 * each built in one pass over events already sorted by start. */
static void st_intervals(st_pass *p) {
    const pc_trace *t = p->t;
    size_t capu[BK_OTHER] = {0};
    for (size_t g = 0; g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        int k = e->kind == GPU_KERNEL ? (name_is_nccl_id(t, e->name) ? BK_COMM : BK_KERNEL)
                : e->kind == GPU_MEMCPY ? (name_is_nccl_id(t, e->name) ? BK_COMM : BK_MEMCPY) /* peer-to-peer: communication */
                : e->kind == GPU_MEMSET ? BK_MEMSET : -1;
        if (k >= 0 && e->dur > 0) ivl_append_sorted(&p->u[k], &p->nu[k], &capu[k], e->ts, e->ts + e->dur);
    }
    for (size_t i = 0; i < t->ncpu; i++) {
        const pc_cpu_event *e = &t->cpu[i];
        int k = e->kind == CPU_RUNTIME || e->kind == CPU_DRIVER ? BK_RUNTIME
                : e->kind == CPU_DATALOADER || name_is_dataloader_id(t, e->name) ? BK_DATA : e->kind == CPU_OP ? BK_CPU : -1;
        if (k >= 0 && e->dur > 0) ivl_append_sorted(&p->u[k], &p->nu[k], &capu[k], e->ts, e->ts + e->dur);
    }
}

/* The breakdown per step: in priority order, each category counts only
 * where no earlier category was active, and BK_OTHER is the rest of the
 * window. After: per step, every category >= 0 and they sum to the window. */
static void st_breakdown(st_pass *p) {
    ivl *covered = NULL;
    size_t ncov = 0;
    for (int k = 0; k < BK_OTHER; k++) {
        if (!p->nu[k]) continue; /* nothing to count, nothing more covered */
        ivl *only = NULL;
        size_t nonly = ivl_subtract(p->u[k], p->nu[k], covered, ncov, &only);
        ivl_step_sums(only, nonly, p->st, p->ns, sizeof *p->st, offsetof(stepacc, b) + (size_t)k * sizeof(int64_t), p->acc, sizeof *p->acc);
        spill_free(only);
        if (k == BK_OTHER - 1) break; /* no later category reads what is covered */
        ivl *m2 = NULL;
        size_t nm = ivl_union2(covered, ncov, p->u[k], p->nu[k], &m2);
        spill_free(covered);
        covered = m2, ncov = nm;
    }
    for (size_t si = 0; si < p->ns; si++) {
        int64_t used = 0;
        for (int k = 0; k < BK_OTHER; k++) used += p->acc[si].b[k];
        p->acc[si].b[BK_OTHER] = p->st[si].end - p->st[si].start - used;
        for (int k = 0; k < BK_N; k++) assert(p->acc[si].b[k] >= 0);
    }
    spill_free(covered);
}

/* Per step: the data wait, the communication and its overlap with
 * computation (kernels); frees every category's intervals but BK_COMM's. */
static void st_comm(st_pass *p) {
    ivl *ov = NULL;
    size_t no = ivl_intersect(p->u[BK_COMM], p->nu[BK_COMM], p->u[BK_KERNEL], p->nu[BK_KERNEL], &ov);
    ivl_step_sums(p->u[BK_DATA], p->nu[BK_DATA], p->st, p->ns, sizeof *p->st, offsetof(stepacc, data_ns), p->acc, sizeof *p->acc);
    ivl_step_sums(p->u[BK_COMM], p->nu[BK_COMM], p->st, p->ns, sizeof *p->st, offsetof(stepacc, comm_ns), p->acc, sizeof *p->acc);
    ivl_step_sums(ov, no, p->st, p->ns, sizeof *p->st, offsetof(stepacc, overlap_ns), p->acc, sizeof *p->acc);
    spill_free(ov);
    for (int k = 0; k < BK_OTHER; k++)
        if (k != BK_COMM) spill_free(p->u[k]), p->u[k] = NULL;
    for (size_t si = 0; si < p->ns; si++) assert(p->acc[si].overlap_ns <= p->acc[si].comm_ns);
}

/* The GPU's lag behind the host (per step, how far the end of the GPU work
 * launched inside its range lies past the range's end, at least 0), and
 * each step's host and GPU time (step_bounds), with a step source only. */
static void st_lag(st_pass *p) {
    const pc_trace *t = p->t;
    p->lag = spill_calloc(p->ns, sizeof *p->lag);
    for (size_t g = 0; p->c->step_source && g < t->ngpu; g++) {
        const pc_gpu_event *e = &t->gpu[g];
        int32_t L = p->l->gpu_launch[g];
        if (L < 0 || e->kind == GPU_ANNOT) continue;
        long si = find_step(p->st, p->ns, t->cpu[L].ts, 1);
        if (si < 0) continue;
        p->linked |= e->kind == GPU_KERNEL || e->kind == GPU_MEMCPY || e->kind == GPU_MEMSET;
        if (e->ts + e->dur - p->st[si].cpu_end > p->lag[si]) p->lag[si] = e->ts + e->dur - p->st[si].cpu_end;
    }
    p->bd = spill_calloc(p->ns, sizeof *p->bd);
    if (p->c->step_source) step_bounds(p->st, p->ns, p->bd);
}

/* Step si's phases: the input's own (MindSpore's step trace) when they
 * sum to the window, else from its kernels, else from its CPU operators,
 * else none (fp = bp = the end); clamped into the window. With phases from
 * the kernels, the GPU finishing earlier-launched work at the window's
 * start is "earlier work", not interval. */
static st_phases st_phases_of(const st_pass *p, size_t si) {
    const pc_trace *t = p->t;
    const pc_step *s = &p->st[si];
    const stepacc *a = &p->acc[si];
    int64_t dur = s->end - s->start;
    st_phases ph;
    const pc_phase *given = NULL;
    for (size_t q = 0; q < t->nphase && !given; q++)
        if (t->phase[q].number == s->number) given = &t->phase[q];
    if (given && given->interval + given->fp_bp + given->tail == dur) {
        ph.fp = s->start + given->interval;
        ph.bp = ph.fp + given->fp_bp;
        ph.basis = "input";
    } else if (a->has_kernel && a->fp_start != INT64_MAX) {
        ph.fp = a->fp_start;
        ph.bp = a->has_bwd ? a->bp_end : a->fwd_end;
        ph.basis = "gpu";
    } else if (a->cpu_has_op && a->cpu_fp != INT64_MAX) {
        ph.fp = a->cpu_fp;
        ph.bp = a->cpu_has_bwd ? a->cpu_bp : a->cpu_fwd_end;
        ph.basis = "cpu";
    } else {
        ph.fp = ph.bp = s->end;
        ph.basis = "none";
    }
    if (ph.fp < s->start) ph.fp = s->start;
    if (ph.fp > s->end) ph.fp = s->end;
    if (ph.bp < ph.fp) ph.bp = ph.fp;
    if (ph.bp > s->end) ph.bp = s->end;
    int64_t cy = p->carry[si];
    ph.earlier = ph.basis[0] == 'g' && cy > s->start ? (cy < ph.fp ? cy : ph.fp) - s->start : 0;
    ph.interval = ph.fp - s->start - ph.earlier, ph.fpbp = ph.bp - ph.fp, ph.tail = s->end - ph.bp;
    assert(s->start <= ph.fp && ph.fp <= ph.bp && ph.bp <= s->end);
    assert(ph.earlier >= 0 && ph.interval >= 0 && ph.earlier + ph.interval + ph.fpbp + ph.tail == dur);
    return ph;
}

/* Step si's row of the steps table (a sampled step's, or every step's). */
static void st_write_row(const st_pass *p, pc_summary *ps, pc_table *rows, size_t si, const st_phases *ph) {
    const an_ctx *c = p->c;
    const pc_step *s = &p->st[si];
    const stepacc *a = &p->acc[si];
    int64_t dur = s->end - s->start;
    tab_step *r = tab_push(rows);
    r->name = s->name ? pc_summary_utf8(ps, strtab_get(&p->t->strs, s->name)) : "whole trace";
    r->number = s->number;
    r->start_ns = s->start - p->t->t_min;
    r->duration_ns = dur;
    if (c->step_source) r->span_ns = s->cpu_end - s->cpu_start, r->gpu_lag_ns = p->lag[si];
    if (c->step_source && p->linked) {
        r->host_ns = p->bd[si].host, r->gpu_ns = p->bd[si].gpu, r->margin_ns = p->bd[si].margin;
        r->bound = p->bd[si].gpu_bound ? "gpu" : "host";
    }
    if (s->kind) r->kind = step_kind_name[s->kind];
    if (ph->basis[0] != 'n') r->earlier_work_ns = ph->earlier, r->iteration_interval_ns = ph->interval, r->fp_bp_ns = ph->fpbp, r->tail_ns = ph->tail;
    r->phase_basis = ph->basis;
    r->has_backward = (tk_B)(ph->basis[0] == 'g' ? a->has_bwd : a->cpu_has_bwd);
    r->data_wait_ns = a->data_ns;
    r->data_wait_pct = pc_figure(dur ? 100.0 * (double)a->data_ns / (double)dur : 0);
    for (int k = 0; k < BK_N; k++) *(tk_F *)(void *)((char *)r + pc_bk[k].step_off) = (double)a->b[k];
    r->communication_ns = a->comm_ns;
    r->communication_overlap_ns = a->overlap_ns;
    r->one_off_names = p->oneoff_n[si];
    if (p->oneoff_id[si]) r->one_off_name = pc_summary_utf8(ps, strtab_get(&p->t->strs, p->oneoff_id[si]));
}

/* Step si's figures into the sums over the steps: the means' (phases only
 * where they are known), the breakdown's, communication's, the data waits
 * over 5% of the window, the windows' lengths. */
static void st_accumulate(st_pass *p, size_t si, const st_phases *ph) {
    stepacc *a = &p->acc[si];
    int64_t dur = p->st[si].end - p->st[si].start;
    int phased = ph->basis[0] != 'n';
    p->phases_known += phased;
    if (dur && a->data_ns * 20 > dur) p->over5++;
    for (int k = 0; k < BK_N; k++) p->bsum[k] += (double)a->b[k];
    double vals[7] = {(double)dur, (double)ph->interval, (double)ph->fpbp, (double)ph->tail, (double)a->data_ns, (double)a->comm_ns, (double)ph->earlier};
    for (int k = 0; k < 7; k++) {
        if (((k >= 1 && k <= 3) || k == 6) && !phased) continue;
        p->sum[k] += vals[k], p->cnt[k]++;
        if (si > 0) p->sum1[k] += vals[k], p->cnt1[k]++;
    }
    p->durs[si] = dur;
    p->comm_total += a->comm_ns;
    p->overlap_total += a->overlap_ns;
    p->total_dur += dur;
}

/* The steps record's head: where the steps come from, the warning about
 * them (a bad --step-pattern, ranges cut at the profiler's end), the
 * clock's note, the count, the warm-up, the phase points. */
static tab_steps *st_write_head(const st_pass *p, pc_summary *ps, cJSON *so) {
    const an_ctx *c = p->c;
    const pc_trace *t = p->t;
    tab_steps *sr = PC_ADD_REC(ps, so, steps);
    sr->source = pc_summary_utf8(ps, c->step_source);
    if (c->bad_pattern) sr->warning = "--step-pattern is not a valid regular expression; it was ignored";
    else if (c->clipped) {
        char w[400], rec[64];
        units_ns(rec, sizeof rec, (double)c->clipped_recorded_ns);
        snprintf(w, sizeof w, "%s%s is recorded as %s, past the end of the profiler's own window (\"PyTorch Profiler\" span): "
                              "the range was closed when the profiler stopped, so %s cut at the profiler's end",
                 c->clipped > 1 ? "the last steps, like " : "", strtab_get(&t->strs, c->clipped_name), rec, c->clipped > 1 ? "they are" : "it is");
        sr->warning = pc_summary_utf8(ps, w);
    }
    sr->note = pc_summary_utf8(ps, t->clock_note);
    sr->count = c->step_source ? (int64_t)p->ns : 0;
    if (c->warmup_end > c->warmup_start) {
        sr->marker_count = c->marker_count;
        sr->warmup_start_ns = c->warmup_start - t->t_min;
        sr->warmup_ns = c->warmup_end - c->warmup_start;
    }
    sr->fp_point = pc_summary_utf8(ps, p->fp_name ? p->fp_name : "");
    sr->bp_point = pc_summary_utf8(ps, p->bp_name ? p->bp_name : "");
    return sr;
}

/* Every step's phases into the sums, and the steps table's rows: all of
 * them up to MAX_STEP_ROWS, else an even sample (first and last included);
 * every duration is in durations_ns. After: the breakdown's categories sum
 * to the windows' total. */
static void st_write_rows(st_pass *p, pc_summary *ps, cJSON *so, tab_steps *sr) {
    size_t ns = p->ns;
    enum { MAX_STEP_ROWS = 1000 };
    size_t every = ns > MAX_STEP_ROWS ? (ns + MAX_STEP_ROWS - 1) / MAX_STEP_ROWS : 1;
    sr->rows_sampled = every > 1;
    sr->rows_every = (int64_t)every;
    double *alld = pc_summary_numbers(ps, ns);
    for (size_t si = 0; si < ns; si++) alld[si] = (double)(p->st[si].end - p->st[si].start);
    sr->durations_ns = (tk_V){alld, (int64_t)ns};
    p->oneoff_n = spill_calloc(ns, sizeof *p->oneoff_n), p->oneoff_id = spill_calloc(ns, sizeof *p->oneoff_id);
    if (p->c->step_source) one_off_names(p->t, p->st, ns, p->oneoff_n, p->oneoff_id);
    pc_table *rows = pc_summary_add_table(ps, so, "rows", TAB_step);
    p->durs = spill_alloc(ns * sizeof *p->durs);
    for (size_t si = 0; si < ns; si++) {
        st_phases ph = st_phases_of(p, si);
        /* the input's phases and no kernel of this step on the steps' clock
         * (MindSpore's step trace): the computation communication can overlap
         * is the forward and backward phase */
        if (ph.basis[0] == 'i' && !p->acc[si].b[BK_KERNEL] && ph.bp > ph.fp) {
            ivl fb = {ph.fp, ph.bp};
            p->acc[si].overlap_ns = ivl_overlap(p->u[BK_COMM], p->nu[BK_COMM], &fb, 1);
        }
        st_accumulate(p, si, &ph);
        if (si % every == 0 || si == ns - 1) st_write_row(p, ps, rows, si, &ph);
    }
    double bsum = 0;
    for (int k = 0; k < BK_N; k++) bsum += p->bsum[k];
    assert(bsum == (double)p->total_dur || fabs(bsum - (double)p->total_dur) <= 1e-9 * (double)p->total_dur);
    spill_free(p->u[BK_COMM]);
    p->u[BK_COMM] = NULL;
    spill_free(p->oneoff_n);
    spill_free(p->oneoff_id);
}

/* The steps' statistics: the averages (all steps; without the first), the
 * count with known phases, the windows' median, p90, min, max, standard
 * deviation and coefficient of variation. After: min <= median <= p90 <= max. */
static void st_write_stats(st_pass *p, pc_summary *ps, cJSON *so, tab_steps *sr) {
    size_t ns = p->ns;
    double m[7];
    means(m, p->sum, p->cnt);
    tab_step_average *avg = PC_ADD_REC(ps, sj_obj(so, "average"), step_average);
    SET_AVERAGE(avg, m);
    tab_step_average_after_first *avg1 = PC_ADD_REC(ps, sj_obj(so, "average_without_first"), step_average_after_first);
    means(m, p->sum1, p->cnt1);
    if (ns > 1) SET_AVERAGE(avg1, m);
    sr->phases_known = (int64_t)p->phases_known;
    int64_t *durs = p->durs;
    spill_sort(durs, ns, sizeof *durs, cmp_i64);
    sr->median_ns = ns % 2 ? durs[ns / 2] : (durs[ns / 2 - 1] + durs[ns / 2]) / 2;
    sr->p90_ns = durs[(size_t)ceil(0.9 * (double)ns) - 1 < ns ? (size_t)ceil(0.9 * (double)ns) - 1 : ns - 1];
    sr->min_ns = durs[0];
    sr->max_ns = durs[ns - 1];
    assert(sr->min_ns <= sr->median_ns && sr->median_ns <= sr->p90_ns && sr->p90_ns <= sr->max_ns);
    double mean = p->sum[0] / (double)ns, var = 0;
    for (size_t i = 0; i < ns; i++) var += ((double)durs[i] - mean) * ((double)durs[i] - mean);
    sr->stddev_ns = pc_figure(ns > 1 ? sqrt(var / (double)(ns - 1)) : 0);
    sr->cv_pct = pc_figure(mean > 0 && ns > 1 ? 100.0 * sqrt(var / (double)(ns - 1)) / mean : 0);
    spill_free(durs);
    p->durs = NULL;
}

/* The profiler's own step durations (the ranges' spans, exactly as the
 * trace has them: the windows start later when GPU work launched before
 * the steps delays the first; the variability check reads these), the
 * GPU's lag and the steps' bound; with a step source only. */
static void st_write_spans(const st_pass *p, pc_summary *ps, tab_steps *sr) {
    size_t ns = p->ns;
    const pc_step *st = p->st;
    double *spans = pc_summary_numbers(ps, ns);
    int64_t *sp = spill_alloc(ns * sizeof *sp);
    double ssum = 0, svar = 0;
    for (size_t i = 0; i < ns; i++) {
        sp[i] = st[i].cpu_end - st[i].cpu_start;
        ssum += (double)sp[i];
        spans[i] = (double)sp[i];
    }
    sr->span_durations_ns = (tk_V){spans, (int64_t)ns};
    spill_sort(sp, ns, sizeof *sp, cmp_i64);
    double smean = ssum / (double)ns;
    for (size_t i = 0; i < ns; i++) svar += ((double)sp[i] - smean) * ((double)sp[i] - smean);
    sr->span_median_ns = ns % 2 ? sp[ns / 2] : (sp[ns / 2 - 1] + sp[ns / 2]) / 2;
    sr->span_max_ns = sp[ns - 1];
    sr->span_cv_pct = pc_figure(smean > 0 && ns > 1 ? 100.0 * sqrt(svar / (double)(ns - 1)) / smean : 0);
    spill_free(sp);
    double lsum = 0;
    int64_t lmax = 0;
    for (size_t i = 0; i < ns; i++) {
        lsum += (double)p->lag[i];
        if (p->lag[i] > lmax) lmax = p->lag[i];
    }
    sr->gpu_lag_ns = pc_figure(lsum / (double)ns);
    sr->gpu_lag_max_ns = lmax;
    sr->gpu_before_ns = st[0].start - st[0].cpu_start;
    if (p->linked) steps_bound_summary(sr, p->bd, ns);
}

/* The breakdown, dataloader and communication sections, from the sums over
 * the steps. After: overlapped communication within all of it. */
static void st_write_totals(const st_pass *p, pc_summary *ps) {
    size_t ns = p->ns;
    cJSON *bd = sj_obj(ps->doc, "breakdown");
    PC_ADD_REC(ps, bd, breakdown)->total_ns = p->total_dur;
    pc_table *bcat = pc_summary_add_table(ps, bd, "categories", TAB_bkcat);
    for (int k = 0; k < BK_N; k++) {
        tab_bkcat *x = tab_push(bcat);
        x->category = pc_bk[k].name;
        x->total_ns = (int64_t)p->bsum[k];
        x->avg_per_step_ns = pc_figure(p->bsum[k] / (double)ns);
        x->pct = pc_figure(p->total_dur ? 100.0 * p->bsum[k] / (double)p->total_dur : 0);
    }
    tab_dataloader *dq = PC_ADD_REC(ps, sj_obj(ps->doc, "dataloader"), dataloader);
    int has_dl = 0;
    for (size_t si = 0; si < ns; si++) has_dl |= p->acc[si].data_ns > 0;
    dq->present = (tk_B)has_dl;
    dq->avg_wait_ns = pc_figure(p->sum[4] / (double)ns);
    dq->avg_wait_pct = pc_figure(p->total_dur ? 100.0 * p->sum[4] / (double)p->total_dur : 0);
    dq->steps_over_5pct = p->over5;
    dq->steps = (int64_t)ns;
    tab_communication *cm = PC_ADD_REC(ps, sj_obj(ps->doc, "communication"), communication);
    assert(p->overlap_total <= p->comm_total);
    cm->present = p->comm_total > 0;
    cm->nccl_ns = p->comm_total;
    cm->overlap_ns = p->overlap_total;
    cm->overlap_pct = pc_figure(p->comm_total ? 100.0 * (double)p->overlap_total / (double)p->comm_total : 0);
    cm->pct_of_step = pc_figure(p->total_dur ? 100.0 * (double)p->comm_total / (double)p->total_dur : 0);
    cm->exposed_pct_of_step = pc_figure(p->total_dur ? 100.0 * (double)(p->comm_total - p->overlap_total) / (double)p->total_dur : 0);
}

/* The steps, breakdown, dataloader and communication sections, in phases:
 * the GPU work carried into each step, each step's phases from its kernels
 * and CPU operators, the breakdown's intervals and their share per step,
 * data wait and communication, the GPU's lag, then the sections. The
 * windows (steps_find) are sorted and disjoint, as ivl_step_sums and
 * find_step need. */
void an_steps(const an_ctx *c, pc_summary *ps) {
    size_t ns = c->nsteps;
    st_pass p = {.c = c, .t = c->t, .l = &c->links, .st = c->steps, .ns = ns, .fp_name = c->o.fp_point, .bp_name = c->o.bp_point};
    for (size_t i = 0; i < ns; i++) assert(p.st[i].start <= p.st[i].end && (i == 0 || p.st[i - 1].end <= p.st[i].start));
    p.acc = spill_calloc(ns, sizeof *p.acc);
    for (size_t i = 0; i < ns; i++) {
        p.acc[i].fp_start = p.acc[i].cpu_fp = INT64_MAX;
        p.acc[i].bp_end = p.acc[i].fwd_end = p.acc[i].cpu_bp = p.acc[i].cpu_fwd_end = INT64_MIN;
    }
    name_caches(p.t);
    st_carry(&p);
    st_kernel_phases(&p);
    st_cpu_phases(&p);
    st_intervals(&p);
    st_breakdown(&p);
    st_comm(&p);
    st_lag(&p);
    cJSON *so = sj_obj(ps->doc, "steps");
    tab_steps *sr = st_write_head(&p, ps, so);
    st_write_rows(&p, ps, so, sr);
    st_write_stats(&p, ps, so, sr);
    if (c->step_source) st_write_spans(&p, ps, sr);
    steps_by_kind(ps, so, p.st, ns);
    spill_free(p.bd);
    spill_free(p.lag);
    spill_free(p.carry);
    st_write_totals(&p, ps);
    spill_free(p.acc);
    spill_free(dl_cache);
    spill_free(nccl_cache);
    dl_cache = nccl_cache = NULL;
    cache_t = NULL;
}
