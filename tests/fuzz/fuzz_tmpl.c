/* libFuzzer target: the template engine. The input is a template, a NUL, and
 * a JSON context; it renders in HTML and Markdown modes. Property: a string
 * value never reaches the output unescaped in HTML mode unless it came through
 * {{{...}}} (checked with a marker string that holds '<'). */
#include "render/tmpl.h"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* times needle occurs in hay */
static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; p && (p = strstr(p, needle)); p++) n++;
    return n;
}

/* The context, with the marker value m under "zz" (its strings are checked). */
static cJSON *context(const char *t, size_t tn, size_t size, const char *m) {
    const char *nul = tn < size ? t + tn : NULL;
    cJSON *ctx = nul ? cJSON_ParseWithLength(nul + 1, size - tn - 1) : NULL;
    if (!ctx) ctx = cJSON_Parse("{\"a\": \"<x>\", \"b\": [1, {\"c\": \"<y>\"}], \"n\": null, \"view\": {\"s\": \"<svg/>\"}}");
    if (cJSON_IsObject(ctx)) cJSON_AddItemToObject(ctx, "zz", cJSON_CreateString(m));
    return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *t = (const char *)data;
    const char *nul = memchr(t, 0, size);
    size_t tn = nul ? (size_t)(nul - t) : size;
    int triple = memmem(t, tn, "{{{", 3) != NULL;
    /* Rendered twice, the marker value differing: a copy of "<zz-marker>" that
     * the template's own text spells (around an expansion that renders
     * nothing, say) is in both outputs; one more in the first is the value,
     * unescaped (found by fuzzing: " <{{.}}zz-marker>" spelled it). */
    for (int mode = 0; mode < 2; mode++) {
        int n[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            cJSON *ctx = context(t, tn, size, k ? "<qq-marker>" : "<zz-marker>");
            sbuf out = {0};
            pc_err err = {0};
            if (tmpl_render(t, tn, ctx, mode == 0 ? ESC_HTML : ESC_MD, &out, &err) == 0 && out.data) n[k] = count(out.data, "<zz-marker>");
            sbuf_free(&out);
            cJSON_Delete(ctx);
        }
        if (mode == 0 && !triple && n[0] > n[1]) abort();
    }
    return 0;
}
