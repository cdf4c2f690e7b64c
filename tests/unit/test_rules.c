/* Every suggestion rule of rules.c, once where it must fire and once where
 * it must not (just on the other side of its threshold). The sections are
 * written as summary.json text, validated like any input; the time at stake
 * expected when a rule fires is computed by hand from the rule's stated
 * definition, beside each case. */
#include "test.h"
#include "util/apiname.h"
#include "fixtures.h"
#include "analyze/rules.h"
#include "summary/summary.h"
#include "load/load.h"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

typedef struct rcase {
    const char *rule;
    int fires;
    double stake;     /* expected at_stake_ns when it fires (-1: none) */
    int steps;        /* 0: no steps (one window); else that many steps of 1 ms */
    int cc_major;     /* first device's compute capability (0: no device) */
    const char *sync; /* a runtime call made inside the first step, or NULL */
    const char *json; /* sections, without the schema key */
} rcase;

#define OPS(...) "\"operators\": {\"rows\": [" __VA_ARGS__ "]}"
static const rcase cases[] = {
    /* no steps, first kernel 600 ms into a 1 s trace (60% > 25%, > 100 ms): at stake those 600 ms */
    {"startup", 1, 600e6, 0, 0, NULL, "\"gpu\": {\"first_kernel_ns\": 600000000}, \"run\": {\"span_ns\": 1000000000}"},
    {"startup", 0, 0, 0, 0, NULL, "\"gpu\": {\"first_kernel_ns\": 250000000}, \"run\": {\"span_ns\": 1000000000}"},
    /* 60% but 60 ms: not start-up */
    {"startup", 0, 0, 0, 0, NULL, "\"gpu\": {\"first_kernel_ns\": 60000000}, \"run\": {\"span_ns\": 100000000}"},
    /* with steps the window is the steps: never */
    {"startup", 0, 0, 3, 0, NULL, "\"gpu\": {\"first_kernel_ns\": 600000000}, \"run\": {\"span_ns\": 1000000000}"},
    /* data wait 60 µs of a 1 ms step (6% > 5%): at stake the wait itself */
    {"data_loading", 1, 60000, 3, 0, NULL,
     "\"dataloader\": {\"present\": true, \"avg_wait_ns\": 60000, \"steps\": 3, \"steps_over_5pct\": 3}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    {"data_loading", 0, 0, 3, 0, NULL,
     "\"dataloader\": {\"present\": true, \"avg_wait_ns\": 50000}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    /* empty in 40% of steps (> 30%): at stake the iteration interval */
    {"empty_queue", 1, 200000, 3, 0, NULL,
     "\"queues\": {\"rows\": [{\"name\": \"q\", \"empty_steps_pct\": 40, \"empty_steps\": 4, \"steps_with_samples\": 10}]},"
     " \"steps\": {\"average\": {\"iteration_interval_ns\": 200000}}"},
    {"empty_queue", 0, 0, 3, 0, NULL, "\"queues\": {\"rows\": [{\"name\": \"q\", \"empty_steps_pct\": 30, \"empty_steps\": 3, \"steps_with_samples\": 10}]}"},
    {"pipeline_bottleneck", 1, 200000, 3, 0, NULL,
     "\"pipeline\": {\"rows\": [{\"op_id\": 2, \"op_type\": \"Map\", \"verdict\": \"slow\", \"queue_usage_pct\": 5}]},"
     " \"steps\": {\"average\": {\"iteration_interval_ns\": 200000}}"},
    {"pipeline_bottleneck", 0, 0, 3, 0, NULL, "\"pipeline\": {\"rows\": [{\"op_id\": 2, \"op_type\": \"Map\", \"verdict\": \"\", \"queue_usage_pct\": 50}]}"},
    /* interval 300 µs of 1 ms (> 20%), 100 µs of it data wait (data_loading's): 200 µs */
    {"iteration_interval", 1, 200000, 3, 0, NULL,
     "\"steps\": {\"average\": {\"duration_ns\": 1000000, \"iteration_interval_ns\": 300000}}, \"dataloader\": {\"present\": true, \"avg_wait_ns\": 100000}"},
    {"iteration_interval", 0, 0, 3, 0, NULL, "\"steps\": {\"average\": {\"duration_ns\": 1000000, \"iteration_interval_ns\": 200000}}"},
    /* the threshold counts the interval's host-side part only: an interval of 400 µs of a 1 ms step
     * (40%), but the device's host-late idle 90 µs over 3 steps (30 µs per step, 3%) and 1,110 µs
     * queued (370 µs per step: held by work launched before the step, queued_idle's): no finding */
    {"iteration_interval", 0, 0, 3, 0, NULL,
     "\"steps\": {\"average\": {\"duration_ns\": 1000000, \"iteration_interval_ns\": 400000}},"
     " \"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"host_late_ns\": 90000, \"queued_ns\": 1110000}}]}"},
    /* the same interval with 900 µs host-late over 3 steps (300 µs per step, 30% > 20%): it fires, its
     * stake the host-side part, 300 µs (the 400 µs interval capped by the host-late idle) */
    {"iteration_interval", 1, 300000, 3, 0, NULL,
     "\"steps\": {\"average\": {\"duration_ns\": 1000000, \"iteration_interval_ns\": 400000}},"
     " \"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"host_late_ns\": 900000, \"queued_ns\": 300000}}]}"},
    /* without steps there is no interval between them */
    {"iteration_interval", 0, 0, 0, 0, NULL, "\"steps\": {\"average\": {\"duration_ns\": 1000000, \"iteration_interval_ns\": 900000}}"},
    /* exclusive: 400 µs of data wait per 1 ms step, 300 µs of it with no GPU work beside it (the breakdown's
     * dataloader category): at stake 300 µs; of the 600 µs GPU-free pool (dataloader 300 + idle 300), the 60%
     * idle GPU then gets the 300 µs no cause claimed */
    {"data_loading", 1, 300000, 3, 0, NULL,
     "\"dataloader\": {\"present\": true, \"avg_wait_ns\": 400000}, \"steps\": {\"average\": {\"duration_ns\": 1000000}},"
     " \"breakdown\": {\"categories\": [{\"category\": \"dataloader\", \"avg_per_step_ns\": 300000}, {\"category\": \"other\", \"avg_per_step_ns\": 300000},"
     " {\"category\": \"runtime\", \"avg_per_step_ns\": 0}, {\"category\": \"cpu\", \"avg_per_step_ns\": 0}]},"
     " \"gpu\": {\"devices\": [{\"device\": 0, \"utilization_pct\": 40}]}"},
    {"gpu_utilization", 1, 300000, 3, 0, NULL,
     "\"dataloader\": {\"present\": true, \"avg_wait_ns\": 400000}, \"steps\": {\"average\": {\"duration_ns\": 1000000}},"
     " \"breakdown\": {\"categories\": [{\"category\": \"dataloader\", \"avg_per_step_ns\": 300000}, {\"category\": \"other\", \"avg_per_step_ns\": 300000},"
     " {\"category\": \"runtime\", \"avg_per_step_ns\": 0}, {\"category\": \"cpu\", \"avg_per_step_ns\": 0}]},"
     " \"gpu\": {\"devices\": [{\"device\": 0, \"utilization_pct\": 40}]}"},
    /* host wait 450 µs over 3 steps = 150 µs per step, but the host categories (runtime 20 + CPU 60 + idle 20 µs)
     * hold only 100 µs that no GPU work overlapped: at stake 100 µs */
    {"host_wait", 1, 100000, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"host_wait_ns\": 450000}}]}, \"steps\": {\"average\": {\"duration_ns\": 1000000}},"
     " \"breakdown\": {\"categories\": [{\"category\": \"runtime\", \"avg_per_step_ns\": 20000}, {\"category\": \"cpu\", \"avg_per_step_ns\": 60000},"
     " {\"category\": \"other\", \"avg_per_step_ns\": 20000}]}"},
    /* busy 40% (< 50%): idle 60% of a 1 ms step */
    {"gpu_utilization", 1, 600000, 3, 0, NULL, "\"gpu\": {\"devices\": [{\"device\": 0, \"utilization_pct\": 40}]}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    {"gpu_utilization", 0, 0, 3, 0, NULL, "\"gpu\": {\"devices\": [{\"device\": 0, \"utilization_pct\": 50}]}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    /* 450 µs of host wait over 3 steps = 150 µs per step (15% > 10%) */
    {"host_wait", 1, 150000, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"host_wait_ns\": 450000}}]}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    {"host_wait", 0, 0, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"host_wait_ns\": 300000}}]}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    /* host wait (HTA's: gaps whose kernel was launched after they began) 450 µs over 3 steps, 150 µs
     * per step (15%), but 300 µs of those gaps lie after their launch returned (queued) and only 150 µs
     * are host-late (50 µs per step, 5% < 10%): no finding */
    {"host_wait", 0, 0, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"host_wait_ns\": 450000, \"host_late_ns\": 150000, \"queued_ns\": 300000}}]},"
     " \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    /* #44: 450 µs of queued idle over 3 steps = 150 µs per step (15% > 10%): at stake that idle */
    {"queued_idle", 1, 150000, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"queued_ns\": 450000, \"host_late_ns\": 0}}]}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    {"queued_idle", 0, 0, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"idle\": {\"queued_ns\": 300000, \"host_late_ns\": 0}}]}, \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    /* busy 40%: 600 µs of idle per 1 ms step, but 450 µs of it queued (150 µs per step, queued_idle's) and
     * only 90 µs host-late over 3 steps (30 µs per step) + 30 µs of tail (10 µs per step): gpu_utilization,
     * whose advice is the host's, takes the 40 µs host-side idle per step */
    {"gpu_utilization", 1, 40000, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"utilization_pct\": 40, \"idle\": {\"queued_ns\": 450000, \"host_late_ns\": 90000, \"tail_ns\": 30000}}]},"
     " \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    /* all of its idle queued: nothing host-side, no gpu_utilization finding */
    {"gpu_utilization", 0, 0, 3, 0, NULL,
     "\"gpu\": {\"devices\": [{\"device\": 0, \"utilization_pct\": 40, \"idle\": {\"queued_ns\": 1800000, \"host_late_ns\": 0}}]},"
     " \"steps\": {\"average\": {\"duration_ns\": 1000000}}"},
    /* 60 of 100 kernels under 10 µs; 90 µs of kernel wait over 3 steps */
    {"small_kernels", 1, 30000, 3, 0, NULL,
     "\"gpu\": {\"launches\": {\"kernels\": 100, \"kernels_under_10us\": 60}, \"devices\": [{\"device\": 0, \"idle\": {\"kernel_wait_ns\": 90000}}]}"},
    {"small_kernels", 0, 0, 3, 0, NULL, "\"gpu\": {\"launches\": {\"kernels\": 100, \"kernels_under_10us\": 50}}"},
    /* no gap measured: the share alone, under 100 kernels, is no finding */
    {"small_kernels", 0, 0, 3, 0, NULL, "\"gpu\": {\"launches\": {\"kernels\": 99, \"kernels_under_10us\": 99}}"},
    /* hf-bertsmall-h100-infer's shape: 58 of 60 kernels under 10 µs, fewer than 100, with 90 µs of
     * short host-late gaps over 3 steps to give back: 30 µs per step */
    {"small_kernels", 1, 30000, 3, 0, NULL,
     "\"gpu\": {\"launches\": {\"kernels\": 60, \"kernels_under_10us\": 58}, \"devices\": [{\"device\": 0, \"idle\": {\"kernel_wait_ns\": 90000}}]}"},
    /* 3 short kernels over 3 steps, one a step: no pair to fuse, whatever the gaps */
    {"small_kernels", 0, 0, 3, 0, NULL,
     "\"gpu\": {\"launches\": {\"kernels\": 3, \"kernels_under_10us\": 3}, \"devices\": [{\"device\": 0, \"idle\": {\"kernel_wait_ns\": 90000}}]}"},
    {"slow_launches", 1, -1, 3, 0, NULL, "\"gpu\": {\"launches\": {\"launch_calls\": 10, \"launch_calls_over_50us\": 1}}"},
    {"slow_launches", 0, 0, 3, 0, NULL, "\"gpu\": {\"launches\": {\"launch_calls\": 10, \"launch_calls_over_50us\": 0}}"},
    /* 600 µs on non-Tensor-Core kernels over 3 steps, halved: 100 µs */
    {"tensor_cores", 1, 100000, 3, 8, NULL,
     OPS("{\"name\": \"aten::mm\", \"calls\": 3, \"self_device_ns\": 600000, \"tensor_cores\": \"no\", \"tc_eligible\": true}")},
    {"tensor_cores", 0, 0, 3, 6, NULL,
     OPS("{\"name\": \"aten::mm\", \"calls\": 3, \"self_device_ns\": 600000, \"tensor_cores\": \"no\", \"tc_eligible\": true}")},
    {"tensor_cores", 0, 0, 3, 8, NULL,
     OPS("{\"name\": \"aten::mm\", \"calls\": 3, \"self_device_ns\": 600000, \"tensor_cores\": \"yes\", \"tc_eligible\": true}")},
    /* 1 of 4 GEMM calls misaligned: 1/4 of 1.2 ms over 3 steps, a quarter of it: 25 µs */
    {"gemm_alignment", 1, 25000, 3, 8, NULL,
     OPS("{\"name\": \"aten::mm\", \"calls\": 4, \"self_device_ns\": 1200000, \"gemm_calls\": 4, \"gemm_not_multiple_of_8\": 1}")},
    {"gemm_alignment", 0, 0, 3, 8, NULL,
     OPS("{\"name\": \"aten::mm\", \"calls\": 4, \"self_device_ns\": 1200000, \"gemm_calls\": 4, \"gemm_not_multiple_of_8\": 0}")},
    /* 900 µs of slow convolutions over 3 steps, halved: 150 µs */
    {"no_cudnn", 1, 150000, 3, 8, NULL, OPS("{\"name\": \"aten::thnn_conv2d\", \"calls\": 3, \"device_total_ns\": 900000}")},
    {"no_cudnn", 0, 0, 3, 8, NULL, OPS("{\"name\": \"aten::cudnn_convolution\", \"calls\": 3, \"device_total_ns\": 900000}")},
    /* not PyTorch (no aten:: operator): the rule does not apply */
    {"no_cudnn", 0, 0, 3, 8, NULL, OPS("{\"name\": \"thnn_conv2d\", \"calls\": 3, \"device_total_ns\": 900000}")},
    /* 300 µs of pageable copies over 3 steps, halved: 50 µs */
    {"pageable_memcpy", 1, 50000, 3, 0, NULL,
     "\"transfers\": {\"rows\": [{\"kind\": \"Memcpy HtoD (Pageable -> Device)\", \"source_memory\": \"Pageable\", \"count\": 3, \"total_ns\": 300000}]}"},
    {"pageable_memcpy", 0, 0, 3, 0, NULL,
     "\"transfers\": {\"rows\": [{\"kind\": \"Memcpy HtoD (Pinned -> Device)\", \"source_memory\": \"Pinned\", \"count\": 3, \"total_ns\": 300000}]}"},
    /* one 30 µs synchronizing call (a versioned name) in 3 steps: 10 µs per step */
    {"sync_in_step", 1, 10000, 3, 0, "cudaDeviceSynchronize_v3020", ""},
    {"sync_in_step", 0, 0, 3, 0, "cudaLaunchKernel_v7000", ""},
    /* without steps: the whole trace is the one window (30 µs in it) */
    {"sync_in_step", 1, 30000, 0, 0, "cudaDeviceSynchronize", ""},
    /* NCCL 20% of the step, 300 of 900 µs overlapped: 600 µs exposed over 3 steps */
    {"communication", 1, 200000, 3, 0, NULL,
     "\"communication\": {\"present\": true, \"pct_of_step\": 20, \"overlap_pct\": 33.3, \"nccl_ns\": 900000, \"overlap_ns\": 300000}"},
    {"communication", 0, 0, 3, 0, NULL,
     "\"communication\": {\"present\": true, \"pct_of_step\": 10, \"overlap_pct\": 50, \"nccl_ns\": 900000, \"overlap_ns\": 450000}"},
    {"memory_peak", 1, -1, 3, 0, NULL, "\"memory\": {\"devices\": [{\"id\": 0, \"peak_reserved_pct\": 95}]}"},
    {"memory_peak", 0, 0, 3, 0, NULL, "\"memory\": {\"devices\": [{\"id\": 0, \"peak_reserved_pct\": 90}]}"},
    /* slowest 2 ms vs median 1 ms (> 1.5x); mean 1.2 ms exceeds the median by 200 µs */
    {"step_variance", 1, 200000, 3, 0, NULL,
     "\"steps\": {\"max_ns\": 2000000, \"median_ns\": 1000000, \"cv_pct\": 5, \"average\": {\"duration_ns\": 1200000}}"},
    {"step_variance", 0, 0, 3, 0, NULL, "\"steps\": {\"max_ns\": 1500000, \"median_ns\": 1000000, \"cv_pct\": 10, \"average\": {\"duration_ns\": 1100000}}"},
    {"step_variance", 0, 0, 2, 0, NULL, "\"steps\": {\"max_ns\": 3000000, \"median_ns\": 1000000, \"cv_pct\": 50, \"average\": {\"duration_ns\": 2000000}}"},
    /* windows stretched by a lagging GPU (max 3x the median) but the profiler's own spans steady: no finding */
    {"step_variance", 0, 0, 3, 0, NULL,
     "\"steps\": {\"max_ns\": 3000000, \"median_ns\": 1000000, \"cv_pct\": 60, \"average\": {\"duration_ns\": 1600000},"
     " \"span_durations_ns\": [1000000, 1000000, 1100000], \"span_median_ns\": 1000000, \"span_max_ns\": 1100000, \"span_cv_pct\": 5.6}"},
    /* spans themselves uneven (2 ms vs a 1.2 ms median, > 1.5x): mean of spans 4.2 / 3 = 1.4 ms, 200 µs over the median */
    {"step_variance", 1, 200000, 3, 0, NULL,
     "\"steps\": {\"max_ns\": 1000000, \"median_ns\": 1000000, \"cv_pct\": 0, \"average\": {\"duration_ns\": 1000000},"
     " \"span_durations_ns\": [1000000, 1200000, 2000000], \"span_median_ns\": 1200000, \"span_max_ns\": 2000000, \"span_cv_pct\": 37.8}"},
    /* spread by short steps (35, 72, 96, 96, 96 ms: a first step cut by the profiler's start): CV 34%, but the mean
     * (79 ms) is below the median (96 ms): nothing at stake, no finding (HTA's ns_resolution_trace) */
    {"step_variance", 0, 0, 3, 0, NULL,
     "\"steps\": {\"max_ns\": 96000000, \"median_ns\": 96000000, \"cv_pct\": 34, \"average\": {\"duration_ns\": 79000000}}"},
    {"cpu_busy", 1, -1, 3, 0, NULL, "\"cpu\": {\"present\": true, \"average\": {\"user\": 70, \"system\": 11}}"},
    {"cpu_busy", 0, 0, 3, 0, NULL, "\"cpu\": {\"present\": true, \"average\": {\"user\": 70, \"system\": 10}}"},
};

/* The suggestions that fire for one case; NULL with a message when the case
 * itself is malformed. */
static cJSON *run_case_at(const rcase *k, int64_t host_launch, char *msg, size_t n) {
    char *text = malloc(strlen(k->json) + 64);
    sprintf(text, "{\"schema\": \"perfcard.summary/1\"%s%s}", *k->json ? ", " : "", k->json);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    pc_summary *ps = doc ? summary_of(doc) : NULL;
    cJSON_Delete(doc);
    if (!ps) {
        snprintf(msg, n, "case of %s: the sections do not validate", k->rule);
        return NULL;
    }
    pc_trace *t = pc_trace_new();
    t->source_format = strtab_intern(&t->strs, "kineto-json", 11); /* aten:: operators make it a PyTorch program */
    pc_device dev = {0};
    pc_step steps[8];
    an_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    int ns = k->steps ? k->steps : 1;
    for (int i = 0; i < ns; i++) steps[i] = (pc_step){i * 1000000, (i + 1) * 1000000, i * 1000000, (i + 1) * 1000000, 0, i, STEP_KIND_NONE, 0};
    c.steps = steps;
    c.nsteps = (size_t)ns;
    c.step_source = k->steps ? "test" : NULL;
    if (k->cc_major) {
        dev.cc_major = k->cc_major;
        c.dev0 = &dev;
    }
    if (k->sync) {
        pc_cpu_event *e = pc_trace_add_cpu(t);
        e->kind = CPU_RUNTIME;
        e->ts = 100000;
        e->dur = 30000;
        e->name = strtab_intern(&t->strs, k->sync, strlen(k->sync));
    }
    int32_t launch[2] = {-1, -1};
    if (host_launch) {
        static const int64_t ts[2][2] = {{-2000, -1000}, {0, 1200000}}; /* launch, kernel start */
        for (int g = 0; g < 2; g++) {
            pc_cpu_event *e = pc_trace_add_cpu(t);
            e->kind = CPU_RUNTIME;
            e->ts = g ? host_launch : ts[0][0];
            e->dur = 10;
            e->name = strtab_intern(&t->strs, "cudaLaunchKernel", 16);
            launch[g] = (int32_t)(t->ncpu - 1);
        }
        for (int g = 0; g < 2; g++) {
            pc_gpu_event *e = pc_trace_add_gpu(t);
            e->kind = GPU_KERNEL;
            e->ts = ts[g][1];
            e->dur = g ? 100 : 1000;
        }
        t->count_cpu[CPU_RUNTIME] += 2; /* as pc_trace_finish counts them */
        c.links.gpu_launch = launch;
    }
    an_advice(&c, ps);
    cJSON *j = summary_json(ps); /* as summary.json has them; frees ps */
    cJSON *rows = cJSON_DetachItemFromObject(cJSON_GetObjectItem(j, "suggestions"), "rows");
    cJSON_Delete(j);
    pc_trace_free(t);
    return rows;
}

static cJSON *run_case(const rcase *k, char *msg, size_t n) { return run_case_at(k, 0, msg, n); }

/* host_phase reads the trace: k1 runs -1000..0 ns (launched at -2000), k2 from 1.2 ms, launched at
 * host_launch; one step of 1 ms. */
static const struct { rcase k; int64_t host_launch; } host_cases[] = {
    /* the GPU idle 0..1.2 ms, k2 launched at 1.1 ms (after the idle began), 1 call in the gap: a host
     * phase; its part in the step's window, 1 ms, at stake (no breakdown: no cap) */
    {{"host_phase", 1, 1000000, 1, 0, NULL, "\"steps\": {\"average\": {\"duration_ns\": 1000000}}"}, 1100000},
    /* k2 launched at -500 ns, before the GPU went idle: it waited on something else, not the host */
    {{"host_phase", 0, 0, 1, 0, NULL, "\"steps\": {\"average\": {\"duration_ns\": 1000000}}"}, -500},
};

TEST(rules_host_phase_cases) {
    for (size_t i = 0; i < sizeof host_cases / sizeof *host_cases; i++) {
        char msg[256];
        cJSON *rows = run_case_at(&host_cases[i].k, host_cases[i].host_launch, msg, sizeof msg);
        CHECK_MSG(rows, "%s", msg);
        const cJSON *hit = NULL, *r;
        cJSON_ArrayForEach(r, rows) if (!strcmp(sj_getstr(r, "rule", ""), "host_phase")) hit = r;
        CHECK_MSG((hit != NULL) == host_cases[i].k.fires, "host case %zu: %s", i, hit ? "fired" : "did not fire");
        if (hit) CHECK_NEAR(sj_getnum(hit, "at_stake_ns", -1), host_cases[i].k.stake, 0.5);
        cJSON_Delete(rows);
    }
}

TEST(rules_each_fires_and_holds_back) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const rcase *k = &cases[i];
        char msg[256];
        cJSON *rows = run_case(k, msg, sizeof msg);
        CHECK_MSG(rows, "%s", msg);
        const cJSON *hit = NULL, *r;
        cJSON_ArrayForEach(r, rows) if (!strcmp(sj_getstr(r, "rule", ""), k->rule)) hit = r;
        int fired = hit != NULL;
        double stake = hit ? sj_getnum(hit, "at_stake_ns", -1) : 0;
        cJSON_Delete(rows);
        CHECK_MSG(fired == k->fires, "case %zu: rule %s %s", i, k->rule, k->fires ? "did not fire" : "fired");
        if (fired) CHECK_MSG(stake > k->stake - 0.5 && stake < k->stake + 0.5, "case %zu: %s at stake %.1f ns, expected %.1f", i, k->rule, stake, k->stake);
    }
}

/* Rules that read the trace's operators (their scopes and kernels): a
 * fixture where each fires and one where it must not (test_phases.c checks
 * the figures). softmax_no_attention.json is unfused_attention.json with the
 * product after the softmax an aten::mm (a classifier's softmax, then a
 * linear layer): no second batched product, no attention. */
static const struct { const char *rule, *fixture; int fires; } trace_cases[] = {
    {"unfused_attention", "tests/fixtures/unfused_attention.json", 1},
    {"unfused_attention", "tests/fixtures/softmax_no_attention.json", 0},
    /* memory-bound operators 11.1% of the kernel time; in unfused_attention.json they are the attention's */
    {"memory_bound", "tests/fixtures/memory_bound.json", 1},
    {"memory_bound", "tests/fixtures/unfused_attention.json", 0},
    /* bf16 GEMMs at 44% of peak in a GPU-bound step (test_gpu_kernels.c); an FP32 GEMM at 70.5% of the fp32 peak */
    {"gpu_kernels", "tests/fixtures/gpu_kernels_gpu_bound.json", 1},
    {"gpu_kernels", "tests/fixtures/waterfall.json", 0},
};

TEST(rules_trace_cases) {
    for (size_t i = 0; i < sizeof trace_cases / sizeof *trace_cases; i++) {
        pc_trace *t = NULL;
        pc_err err = {0};
        CHECK_MSG(!pc_load(trace_cases[i].fixture, NULL, &t, &err), "%s does not load", trace_cases[i].fixture);
        cJSON *s = analyze_json(t, NULL);
        pc_trace_free(t);
        const cJSON *hit = NULL, *r;
        cJSON_ArrayForEach(r, sj_get(s, "suggestions.rows")) if (!strcmp(sj_getstr(r, "rule", ""), trace_cases[i].rule)) hit = r;
        int fired = hit != NULL;
        cJSON_Delete(s);
        CHECK_MSG(fired == trace_cases[i].fires, "%s on %s: %s", trace_cases[i].rule, trace_cases[i].fixture, fired ? "fired" : "did not fire");
    }
}

/* Every rule of the table has a case that fires it and one that must not. */
TEST(rules_every_rule_has_both_cases) {
    int n = 0;
    for (const pc_rule *r = pc_rules; r->id; r++, n++) {
        int yes = 0, no = 0;
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            if (!strcmp(cases[i].rule, r->id)) cases[i].fires ? yes++ : no++;
        for (size_t i = 0; i < sizeof host_cases / sizeof *host_cases; i++)
            if (!strcmp(host_cases[i].k.rule, r->id)) host_cases[i].k.fires ? yes++ : no++;
        for (size_t i = 0; i < sizeof trace_cases / sizeof *trace_cases; i++)
            if (!strcmp(trace_cases[i].rule, r->id)) trace_cases[i].fires ? yes++ : no++;
        CHECK_MSG(yes && no, "rule %s: %d firing and %d holding cases", r->id, yes, no);
        CHECK_MSG(r->title && r->threshold && r->why && r->try_ && r->source && r->check, "rule %s: a field is missing", r->id);
    }
    CHECK_EQ_I(n, 23); /* queued_idle and gpu_kernels (#44) */
}

TEST(rules_sync_call_names) {
    CHECK(rule_is_sync_call("cudaDeviceSynchronize"));
    CHECK(rule_is_sync_call("cudaDeviceSynchronize_v3020"));
    CHECK(rule_is_sync_call("cuMemcpyDtoH_v2"));
    CHECK(rule_is_sync_call("cudaStreamSynchronize_v3020"));
    CHECK(!rule_is_sync_call("cudaMemcpyAsync"));
    CHECK(!rule_is_sync_call("cudaMemcpyAsync_v3020"));
    CHECK(!rule_is_sync_call("cudaLaunchKernel_v7000"));
    CHECK(!rule_is_sync_call("cudaDeviceSynchronize_vx"));
    CHECK(!rule_is_sync_call("_v2"));
    /* HIP's (ROCm traces), the classes the replay's dependency graph uses: hipMemcpyWithStream is
     * the synchronous copy PyTorch's ROCm build calls for .cpu() / .item() */
    CHECK(rule_is_sync_call("hipMemcpyWithStream"));
    CHECK(rule_is_sync_call("hipDeviceSynchronize"));
    CHECK(rule_is_sync_call("hipStreamSynchronize"));
    CHECK(rule_is_sync_call("hipEventSynchronize"));
    CHECK(rule_is_sync_call("hipMemcpy"));
    CHECK(rule_is_sync_call("cudaThreadSynchronize"));
    CHECK(!rule_is_sync_call("hipMemcpyAsync"));
    CHECK(!rule_is_sync_call("hipMemsetAsync"));
    CHECK(!rule_is_sync_call("hipLaunchKernel"));
    CHECK(!rule_is_sync_call("hipGetDevicePropertiesR0600"));
    CHECK_EQ_I(api_sync_kind("hipMemcpyWithStream"), API_SYNC_COPY);
    CHECK_EQ_I(api_sync_kind("hipMemcpyDtoHAsync"), API_SYNC_ASYNC);
    CHECK_EQ_I(api_sync_kind("hipDeviceSynchronize"), API_SYNC_DEVICE);
    CHECK_EQ_I(api_sync_kind("cuStreamSynchronize_v2"), API_SYNC_STREAM);
    CHECK_EQ_I(api_sync_kind("hipLaunchKernel"), API_SYNC_NONE);
}

/* A cudaMemcpyAsync whose copy lands in pageable memory blocks like a sync
 * (30 µs in one of 3 steps); into pinned memory it does not. At stake the GPU
 * idle inside it: 30 µs less the 2 µs copy, no GPU work after it (no refill):
 * 28 µs / 3 steps = 9333.3 ns per step. */
TEST(rules_pageable_async_copy_blocks) {
    for (int pageable = 0; pageable < 2; pageable++) {
        cJSON *doc = cJSON_Parse("{\"schema\": \"perfcard.summary/1\"}");
        pc_summary *ps = summary_of(doc);
        cJSON_Delete(doc);
        CHECK(ps);
        pc_trace *t = pc_trace_new();
        pc_cpu_event *e = pc_trace_add_cpu(t);
        e->kind = CPU_RUNTIME, e->ts = 100000, e->dur = 30000, e->name = strtab_intern(&t->strs, "cudaMemcpyAsync_v3020", 21);
        pc_gpu_event *g = pc_trace_add_gpu(t);
        g->kind = GPU_MEMCPY, g->ts = 120000, g->dur = 2000, g->src_mem = MEM_DEVICE, g->dst_mem = pageable ? MEM_PAGEABLE : MEM_PINNED;
        int32_t launch = 0;
        pc_step steps[3];
        for (int i = 0; i < 3; i++) steps[i] = (pc_step){i * 1000000, (i + 1) * 1000000, i * 1000000, (i + 1) * 1000000, 0, i, STEP_KIND_NONE, 0};
        an_ctx c;
        memset(&c, 0, sizeof c);
        c.t = t, c.steps = steps, c.nsteps = 3, c.step_source = "test", c.links.gpu_launch = &launch;
        an_advice(&c, ps);
        cJSON *j = summary_json(ps); /* frees ps */
        const cJSON *hit = NULL, *r;
        cJSON_ArrayForEach(r, sj_get(j, "suggestions.rows")) if (!strcmp(sj_getstr(r, "rule", ""), "sync_in_step")) hit = r;
        double stake = hit ? sj_getnum(hit, "at_stake_ns", -1) : -1;
        cJSON_Delete(j);
        pc_trace_free(t);
        CHECK_MSG(!!hit == pageable, "pageable=%d: %s", pageable, hit ? "fired" : "did not fire");
        if (pageable) CHECK_NEAR(stake, 28000.0 / 3, 0.5);
    }
}

/* Ranking (#32 class 5): rows under 1% of the step come after every other
 * row, rows without an estimate before them, and the symptom gpu_utilization
 * after every cause of GPU idle holding 10% of the step or more. Three 1 ms
 * steps: a data wait of W µs, all of it with the GPU idle (the dataloader
 * category), 600 - W µs of other idle: the GPU-free pool is 600 µs.
 * data_loading claims W, gpu_utilization (busy 40%) wants 600 µs and gets
 * the 600 - W left; 6 µs of pageable copies over 3 steps, halved: 1 µs
 * (0.1%); cpu_busy (90% busy) has no estimate. W = 150 (15%): by stake alone
 * gpu_utilization (450), data_loading (150), pageable_memcpy (1), cpu_busy;
 * ranked data_loading (the cause), gpu_utilization (the symptom), cpu_busy
 * (no estimate), pageable_memcpy (0.1%: minor). W = 60 (6%, a minor cause):
 * gpu_utilization (540) stays first. */
TEST(rules_rank_minor_and_symptom_rows_last) {
    static const char *const want[2][4] = {{"data_loading", "gpu_utilization", "cpu_busy", "pageable_memcpy"},
                                           {"gpu_utilization", "data_loading", "cpu_busy", "pageable_memcpy"}};
    static const double stake[2][4] = {{150000, 450000, -1, 1000}, {540000, 60000, -1, 1000}};
    for (int c = 0; c < 2; c++) {
        int w = c ? 60000 : 150000;
        char json[2048];
        snprintf(json, sizeof json,
                 "\"dataloader\": {\"present\": true, \"avg_wait_ns\": %d, \"steps\": 3, \"steps_over_5pct\": 3},"
                 " \"steps\": {\"average\": {\"duration_ns\": 1000000}},"
                 " \"breakdown\": {\"categories\": [{\"category\": \"dataloader\", \"avg_per_step_ns\": %d}, {\"category\": \"other\", \"avg_per_step_ns\": %d},"
                 " {\"category\": \"runtime\", \"avg_per_step_ns\": 0}, {\"category\": \"cpu\", \"avg_per_step_ns\": 0}]},"
                 " \"gpu\": {\"devices\": [{\"device\": 0, \"utilization_pct\": 40}]},"
                 " \"cpu\": {\"present\": true, \"average\": {\"user\": 80, \"system\": 10}},"
                 " \"transfers\": {\"rows\": [{\"kind\": \"Memcpy HtoD (Pageable -> Device)\", \"source_memory\": \"Pageable\", \"count\": 3, \"total_ns\": 6000}]}",
                 w, w, 600000 - w);
        rcase k = {"gpu_utilization", 1, 0, 3, 0, NULL, json};
        char msg[256];
        cJSON *rows = run_case(&k, msg, sizeof msg);
        CHECK_MSG(rows, "%s", msg);
        CHECK_EQ_I(cJSON_GetArraySize(rows), 4);
        for (int i = 0; i < 4; i++) {
            const cJSON *r = cJSON_GetArrayItem(rows, i);
            CHECK_MSG(!strcmp(sj_getstr(r, "rule", ""), want[c][i]), "case %d row %d: %s, expected %s", c, i, sj_getstr(r, "rule", ""), want[c][i]);
            CHECK_NEAR(sj_getnum(r, "at_stake_ns", -1), stake[c][i], 0.5);
            CHECK_EQ_I(sj_getnum(r, "rank", 0), i + 1);
        }
        cJSON_Delete(rows);
    }
}

/* #37 item 3: README's stake column and the code agree: a rule whose stake the
 * replay gives (rules_change_of) says "replayed: <the change>", every other
 * rule says why not (an estimate, or none). */
TEST(rules_stake_column_matches_the_replay) {
    int replayed = 0;
    for (const pc_rule *r = pc_rules; r->id; r++) {
        CHECK_MSG(r->stake && *r->stake, "%s: no stake text", r->id);
        if (!r->stake) continue;
        int says = !strncmp(r->stake, "replayed", 8) || !strncmp(r->stake, "as empty_queue", 14);
        CHECK_MSG(says == (rules_change_of(r->id) >= 0), "%s: stake '%.40s' but rules_change_of %d", r->id, r->stake, rules_change_of(r->id));
        replayed += rules_change_of(r->id) >= 0;
    }
    CHECK_EQ_I(replayed, 9); /* sync_in_step, data_loading, empty_queue, pipeline_bottleneck, tensor_cores, host_wait, memory_bound, gpu_kernels, unfused_attention (#45) */
}
