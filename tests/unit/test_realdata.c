/* Real traces from ../shared/data (skipped when the folder is absent). */
#include "test.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"
#include <dirent.h>
#include <stdlib.h>

static int load_all_under(const char *dir, int *n, char *failed, size_t cap) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int bad = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR) { bad += load_all_under(p, n, failed, cap); continue; }
        if (!strstr(e->d_name, ".json")) continue;
        if (strstr(e->d_name, "gpu_metrics_expected")) { /* also a trace: load it too */ }
        pc_trace *t = NULL;
        pc_err err = {0};
        int rc = pc_load(p, NULL, &t, &err);
        (*n)++;
        if (rc || t->truncated) {
            bad++;
            size_t l = strlen(failed);
            snprintf(failed + l, cap - l, " %s(%s)", e->d_name, rc ? err.msg : "truncated");
        }
        pc_trace_free(t);
    }
    closedir(d);
    return bad;
}

TEST(realdata_every_kineto_trace_loads) {
    const char *sd = shared_data();
    if (!sd) SKIP("../shared/data is missing");
    char dir[4096], failed[4096] = "";
    snprintf(dir, sizeof dir, "%s/kineto", sd);
    int n = 0;
    int bad = load_all_under(dir, &n, failed, sizeof failed);
    CHECK_MSG(bad == 0, "%d of %d failed:%s", bad, n, failed);
    CHECK_MSG(n >= 20, "only %d traces found", n);
}

/* Expected values were established independently with Python's json module:
 *   d = json.load(gzip.open(path)); ev = d["traceEvents"]
 *   kernels = [e for e in ev if e.get("cat") == "Kernel"]  -> 8772, sum(dur) = 591532 µs
 *   operators: cat == "Operator" -> 23646
 *   steps: names starting with "ProfilerStep#" -> 6 (#5..#10)
 *   events: len(ev) -> 75718 */
TEST(realdata_resnet50_workers0_exact_counts) {
    const char *sd = shared_data();
    if (!sd) SKIP("../shared/data is missing");
    char p[4096];
    snprintf(p, sizeof p, "%s/kineto/resnet50-v100-workers0/worker0.1623143089861.pt.trace.json.gz", sd);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(p, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->stats.events, 75718);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 8772);
    /* 23646 "Operator" events: 23622 operators and 24 record_function ranges
     * (ProfilerStep#, enumerate(DataLoader), Optimizer.*), which perfcard files
     * as annotations */
    CHECK_EQ_I(t->count_cpu[CPU_OP] + t->count_cpu[CPU_USER_ANNOT], 23646);
    CHECK_EQ_I(t->count_cpu[CPU_USER_ANNOT], 24);
    int steps = 0;
    for (size_t i = 0; i < t->ncpu; i++)
        if (!strncmp(strtab_get(&t->strs, t->cpu[i].name), "ProfilerStep#", 13)) steps++;
    CHECK_EQ_I(steps, 6);
    cJSON *s = pc_analyze(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), 591532000LL);
    CHECK_EQ_I(sj_getnum(s, "kernels.calls", -1), 8772);
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.name", ""), "Tesla V100-DGXS-32GB");
    cJSON_Delete(s);
    pc_trace_free(t);
}
