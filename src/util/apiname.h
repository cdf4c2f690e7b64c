/* apiname.h - a CUDA API name without the version suffix CUPTI and Nsight
 * Systems append ("cudaMemcpy_v3020" -> "cudaMemcpy", "cuMemAlloc_v2" ->
 * "cuMemAlloc"): the length of the name the program called. Header-only, so
 * the capture library (built apart from libperfcard) shares it. */
#ifndef PC_APINAME_H
#define PC_APINAME_H
#include <stddef.h>
#include <string.h>

static inline size_t api_name_len(const char *n) {
    size_t len = strlen(n), i = len;
    while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9') i--;
    return i < len && i >= 2 && n[i - 1] == 'v' && n[i - 2] == '_' ? i - 2 : len;
}
#endif
