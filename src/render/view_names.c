/* view_names.c - the short names a view shows (src/util/shortname.h): each
 * list of names in the view gets KEY_short beside KEY, told apart within
 * the list; the templates show KEY_short with KEY (the full name) in title. */
#include "view.h"
#include "../util/shortname.h"
#include "../util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>

/* obj[key] of each element of list: obj[key_short], at most max characters */
static void shorten_list(cJSON *list, const char *key, size_t max) {
    int n = cJSON_GetArraySize(list);
    if (n <= 0) return;
    const char **names = xcalloc((size_t)n, sizeof *names);
    char **out = xcalloc((size_t)n, sizeof *out);
    cJSON *it;
    int i = 0;
    cJSON_ArrayForEach(it, list) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, key));
        names[i++] = s ? s : "";
    }
    pc_short_names(names, (size_t)n, max, out);
    char k[64];
    snprintf(k, sizeof k, "%s_short", key);
    i = 0;
    cJSON_ArrayForEach(it, list) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(it, key);
        if (cJSON_IsObject(it) && v) { /* a null stays null (n/a) */
            cJSON_DeleteItemFromObjectCaseSensitive(it, k);
            cJSON_AddItemToObject(it, k, cJSON_IsString(v) ? cJSON_CreateString(out[i]) : cJSON_Duplicate(v, 1));
        }
        free(out[i++]);
    }
    free(names);
    free(out);
}

static cJSON *at(cJSON *o, const char *a, const char *b) {
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

void rv_short_names(cJSON *v) {
    shorten_list(at(v, "operators", "rows"), "name", PC_SHORT_TABLE);
    shorten_list(at(v, "operator_types", "rows"), "type", PC_SHORT_TABLE);
    shorten_list(at(v, "api_calls", "rows"), "name", PC_SHORT_TABLE);
    shorten_list(at(v, "memory", "top_operators"), "name", PC_SHORT_TABLE);
    shorten_list(at(v, "memory", "peak_allocations"), "operator", PC_SHORT_TABLE);
    shorten_list(at(v, "collectives", "rows"), "collective", PC_SHORT_TABLE);
    shorten_list(at(v, "critical_path", "rows"), "name", PC_SHORT_TABLE);
    shorten_list(at(v, "ranks", "rows"), "top_collective", PC_SHORT_TABLE);
    shorten_list(at(v, "ranks", "collectives"), "collective", PC_SHORT_TABLE);
    cJSON *d;
    cJSON_ArrayForEach(d, at(v, "kernels", "devices")) {
        shorten_list(cJSON_GetObjectItemCaseSensitive(d, "rows"), "name", PC_SHORT_TABLE);
        shorten_list(cJSON_GetObjectItemCaseSensitive(d, "rows"), "operator", PC_SHORT_TABLE);
    }
    cJSON *sg;
    cJSON_ArrayForEach(sg, at(v, "suggestions", "rows")) shorten_list(cJSON_GetObjectItemCaseSensitive(sg, "contributors"), "name", PC_SHORT_TABLE);
    /* the top-kernel and top-operator cards: a short line */
    cJSON *ov = at(v, "overview", NULL);
    static const char *const cards[][2] = {{"top_kernel", "top_kernel_short"}, {"top_operator", "top_operator_short"}};
    for (int k = 0; k < 2; k++) {
        cJSON *full = cJSON_GetObjectItemCaseSensitive(ov, cards[k][0]);
        if (!full) continue;
        char *s = cJSON_IsString(full) ? pc_short_name(full->valuestring, 0, PC_SHORT_CHART) : NULL;
        cJSON_DeleteItemFromObjectCaseSensitive(ov, cards[k][1]);
        cJSON_AddItemToObject(ov, cards[k][1], s ? cJSON_CreateString(s) : cJSON_Duplicate(full, 1));
        free(s);
    }
}

void rv_short_names_diff(cJSON *v) {
    shorten_list(at(v, "kernels", "rows"), "name", PC_SHORT_TABLE);
    shorten_list(at(v, "operators", "rows"), "name", PC_SHORT_TABLE);
    shorten_list(at(v, "operators_cpu", "rows"), "name", PC_SHORT_TABLE);
    cJSON *r;
    cJSON_ArrayForEach(r, at(v, "runs", NULL)) {
        shorten_list(cJSON_GetObjectItemCaseSensitive(r, "contributors"), "name", PC_SHORT_TABLE);
        shorten_list(cJSON_GetObjectItemCaseSensitive(r, "components"), "name", PC_SHORT_TABLE);
        shorten_list(cJSON_GetObjectItemCaseSensitive(r, "components"), "under", PC_SHORT_TABLE);
    }
}
