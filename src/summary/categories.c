#include "categories.h"
#include <stddef.h>
#include <string.h>

const pc_bk_info pc_bk[BK_N] = {
    [BK_KERNEL] = {"kernel", "kernel_ns", offsetof(tab_step, bd_kernel_ns), "Kernel", "Kernel per step", 0, 1},
    [BK_MEMCPY] = {"memcpy", "memcpy_ns", offsetof(tab_step, bd_memcpy_ns), "Memcpy", "Memcpy per step", 1, 1},
    [BK_MEMSET] = {"memset", "memset_ns", offsetof(tab_step, bd_memset_ns), "Memset", "Memset per step", 1, 1},
    [BK_COMM] = {"communication", "communication_ns", offsetof(tab_step, bd_communication_ns), "Communication", "Communication per step", 1, 1},
    [BK_RUNTIME] = {"runtime", "runtime_ns", offsetof(tab_step, bd_runtime_ns), "Runtime", "Runtime per step", 1, 0},
    [BK_DATA] = {"dataloader", "dataloader_ns", offsetof(tab_step, bd_dataloader_ns), "DataLoader", "DataLoader per step", 1, 0},
    [BK_CPU] = {"cpu", "cpu_op_ns", offsetof(tab_step, bd_cpu_op_ns), "CPU operator", "CPU operator per step", 1, 0},
    [BK_OTHER] = {"other", "other_ns", offsetof(tab_step, bd_other_ns), "Other (idle)", "Other (idle) per step", 1, 0},
};

const tab_bkcat *pc_bk_get(const pc_summary *s, int k) {
    const pc_table *t = PC_TAB(s, bkcat);
    if (k < 0 || k >= BK_N || !t) return NULL;
    for (size_t i = 0; i < t->n; i++) {
        const tab_bkcat *c = &TAB_ROWS(t, bkcat)[i];
        if (c->category && !strcmp(c->category, pc_bk[k].name)) return c;
    }
    return NULL;
}

const char *const pc_cpath_cat[PC_CP_N][2] = {{"host", "host CPU work"}, {"data_loading", "data loading"}, {"launch", "launch"},
                                              {"kernel", "GPU kernels"},  {"copy", "copies"},             {"communication", "communication"},
                                              {"earlier_work", "earlier work"}};

int pc_cpath_by_category(const pc_summary *s, double pct[PC_CP_N], double ns[PC_CP_N]) {
    const pc_table *t = PC_TAB(s, cpath);
    for (int k = 0; k < PC_CP_N; k++) {
        if (pct) pct[k] = 0;
        if (ns) ns[k] = 0;
    }
    if (!t || !t->n) return 0;
    for (size_t i = 0; i < t->n; i++) {
        const tab_cpath *r = &TAB_ROWS(t, cpath)[i];
        for (int k = 0; k < PC_CP_N; k++)
            if (!strcmp(PC_S(r->category, ""), pc_cpath_cat[k][0])) {
                if (pct) pct[k] += PC_OR(r->pct, 0);
                if (ns) ns[k] += PC_OR(r->avg_per_step_ns, 0);
            }
    }
    return 1;
}
