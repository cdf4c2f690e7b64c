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

/* What a CUDA or HIP runtime or driver call waits for (CUDA's "API synchronization behavior"; HIP's
 * calls of the same names, and hipMemcpyWithStream, the synchronous copy on a stream that PyTorch's
 * ROCm build calls for .cpu() / .item() where CUDA's calls cudaMemcpyAsync and a stream sync):
 * API_SYNC_DEVICE the whole device, API_SYNC_STREAM a stream or an event, API_SYNC_COPY a copy or
 * memset without "Async" in its name (it returns once done), API_SYNC_ASYNC an asynchronous one (it
 * blocks only on pageable memory), API_SYNC_NONE any other call. Version suffixes are ignored. */
enum { API_SYNC_NONE = 1, API_SYNC_DEVICE, API_SYNC_STREAM, API_SYNC_COPY, API_SYNC_ASYNC };
static inline int api_sync_kind(const char *n) {
    static const char *const dev[] = {"cudaDeviceSynchronize", "cuCtxSynchronize", "cudaThreadSynchronize", "hipDeviceSynchronize", "hipCtxSynchronize", NULL};
    static const char *const str[] = {"cudaStreamSynchronize", "cuStreamSynchronize", "cudaEventSynchronize", "cuEventSynchronize",
                                      "hipStreamSynchronize",  "hipEventSynchronize", NULL};
    static const char *const copy[] = {"cudaMemcpy", "cuMemcpy", "cudaMemset", "cuMemset", "hipMemcpy", "hipMemset", NULL};
    size_t len = api_name_len(n);
    for (int i = 0; dev[i]; i++)
        if (strlen(dev[i]) == len && !strncmp(n, dev[i], len)) return API_SYNC_DEVICE;
    for (int i = 0; str[i]; i++)
        if (strlen(str[i]) == len && !strncmp(n, str[i], len)) return API_SYNC_STREAM;
    for (int i = 0; copy[i]; i++)
        if (!strncmp(n, copy[i], strlen(copy[i]))) return strstr(n, "Async") ? API_SYNC_ASYNC : API_SYNC_COPY; /* a suffix has no letters */
    return API_SYNC_NONE;
}
#endif
