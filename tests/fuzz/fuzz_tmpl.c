/* libFuzzer target: the template engine. The input is a template, a NUL, and
 * a JSON context; it renders in HTML and Markdown modes. Property: a string
 * value never reaches the output unescaped in HTML mode unless it came through
 * {{{...}}} (checked with a marker string that holds '<'). */
#include "render/tmpl.h"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *t = (const char *)data;
    const char *nul = memchr(t, 0, size);
    size_t tn = nul ? (size_t)(nul - t) : size;
    cJSON *ctx = nul ? cJSON_ParseWithLength(nul + 1, size - tn - 1) : NULL;
    if (!ctx) ctx = cJSON_Parse("{\"a\": \"<x>\", \"b\": [1, {\"c\": \"<y>\"}], \"n\": null, \"view\": {\"s\": \"<svg/>\"}}");
    /* a marker in every string of the context, to find unescaped copies */
    cJSON *m = cJSON_CreateString("<zz-marker>");
    if (cJSON_IsObject(ctx)) cJSON_AddItemToObject(ctx, "zz", m);
    else cJSON_Delete(m);
    int triple = memmem(t, tn, "{{{", 3) != NULL || memmem(t, tn, "<zz-marker>", 11) != NULL;
    for (int mode = 0; mode < 2; mode++) {
        sbuf out = {0};
        pc_err err = {0};
        if (tmpl_render(t, tn, ctx, mode == 0 ? ESC_HTML : ESC_MD, &out, &err) == 0 && mode == 0 && !triple && out.data &&
            strstr(out.data, "<zz-marker>"))
            abort();
        sbuf_free(&out);
    }
    cJSON_Delete(ctx);
    return 0;
}
