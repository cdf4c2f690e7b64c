/* view_tree.c - what the report's trees (call_stacks.rows, module_rows:
 * depth-first, each row's parent an earlier row) show beside each row:
 * tree_kids (its children among the rows), tree_fold (it is its parent's
 * only child, with the same device time, CPU time and calls: a wrapper frame
 * the report folds into its parent's row) and, on the first row of such a
 * chain, tree_chain (the frames folded under it) and tree_chain_end (the
 * last of them). report.js reads them (data-d, data-fold, the buttons). */
#include "view.h"
#include "../util/xalloc.h"
#include <stdlib.h>

static int same(const cJSON *a, const cJSON *b) {
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) return a->valuedouble == b->valuedouble;
    return !cJSON_IsNumber(a) && !cJSON_IsNumber(b); /* both n/a */
}

/* row i's parent: an earlier row, else -1 (a root) */
static int parent_of(cJSON *row, int i) {
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(row, "parent");
    if (!cJSON_IsNumber(p) || !(p->valuedouble >= 0) || !(p->valuedouble < i)) return -1;
    return (int)p->valuedouble;
}

static void set_num(cJSON *o, const char *k, double x) {
    cJSON_DeleteItemFromObjectCaseSensitive(o, k);
    cJSON_AddNumberToObject(o, k, x);
}

static void tree(cJSON *list) {
    int n = cJSON_GetArraySize(list);
    if (n <= 0) return;
    cJSON **row = xcalloc((size_t)n, sizeof *row);
    int *par = xcalloc((size_t)n, sizeof *par), *kids = xcalloc((size_t)n, sizeof *kids), *fold = xcalloc((size_t)n, sizeof *fold);
    int *head = xcalloc((size_t)n, sizeof *head), *chain = xcalloc((size_t)n, sizeof *chain);
    int i = 0;
    cJSON *it;
    cJSON_ArrayForEach(it, list) row[i++] = it;
    for (i = 0; i < n; i++) {
        par[i] = cJSON_IsObject(row[i]) ? parent_of(row[i], i) : -1;
        if (par[i] >= 0) kids[par[i]]++;
    }
    static const char *const cols[] = {"device_ns", "cpu_ns", "calls"};
    for (i = 0; i < n; i++) {
        int p = par[i];
        head[i] = i;
        if (p < 0 || kids[p] != 1) continue;
        int eq = 1;
        for (int k = 0; k < 3 && eq; k++)
            eq = same(cJSON_GetObjectItemCaseSensitive(row[p], cols[k]), cJSON_GetObjectItemCaseSensitive(row[i], cols[k]));
        if (!eq) continue;
        fold[i] = 1, head[i] = head[p]; /* p is earlier: its head is known */
        chain[head[i]]++;
    }
    for (i = 0; i < n; i++) {
        if (!cJSON_IsObject(row[i])) continue;
        set_num(row[i], "tree_kids", kids[i]);
        cJSON_DeleteItemFromObjectCaseSensitive(row[i], "tree_fold");
        cJSON_AddBoolToObject(row[i], "tree_fold", fold[i]);
        set_num(row[i], "tree_chain", fold[i] ? 0 : chain[i]);
        if (fold[i] && cJSON_IsObject(row[head[i]])) { /* the chain's last row so far: the last one wins */
            cJSON *f = cJSON_GetObjectItemCaseSensitive(row[i], "frame");
            cJSON_DeleteItemFromObjectCaseSensitive(row[head[i]], "tree_chain_end");
            cJSON_AddItemToObject(row[head[i]], "tree_chain_end", f ? cJSON_Duplicate(f, 1) : cJSON_CreateNull());
        }
    }
    free(row), free(par), free(kids), free(fold), free(head), free(chain);
}

void rv_tree_rows(cJSON *v) {
    cJSON *cs = cJSON_GetObjectItemCaseSensitive(v, "call_stacks");
    tree(cJSON_GetObjectItemCaseSensitive(cs, "rows"));
    tree(cJSON_GetObjectItemCaseSensitive(cs, "module_rows"));
}
