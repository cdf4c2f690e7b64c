#include "categories.h"
#include <string.h>

const pc_bk_info pc_bk[BK_N] = {
    [BK_KERNEL] = {"kernel", "kernel_ns", "Kernel", "Kernel per step", 0, 1},
    [BK_MEMCPY] = {"memcpy", "memcpy_ns", "Memcpy", "Memcpy per step", 1, 1},
    [BK_MEMSET] = {"memset", "memset_ns", "Memset", "Memset per step", 1, 1},
    [BK_COMM] = {"communication", "communication_ns", "Communication", "Communication per step", 1, 1},
    [BK_RUNTIME] = {"runtime", "runtime_ns", "Runtime", "Runtime per step", 1, 0},
    [BK_DATA] = {"dataloader", "dataloader_ns", "DataLoader", "DataLoader per step", 1, 0},
    [BK_CPU] = {"cpu", "cpu_op_ns", "CPU operator", "CPU operator per step", 1, 0},
    [BK_OTHER] = {"other", "other_ns", "Other (idle)", "Other (idle) per step", 1, 0},
};

int pc_bk_find(const char *name) {
    for (int k = 0; k < BK_N; k++)
        if (name && !strcmp(pc_bk[k].name, name)) return k;
    return -1;
}

const cJSON *pc_bk_get(const cJSON *doc, int k) {
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, "breakdown");
    const cJSON *c;
    if (k < 0 || k >= BK_N) return NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(b, "categories")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "category");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, pc_bk[k].name)) return c;
    }
    return NULL;
}
