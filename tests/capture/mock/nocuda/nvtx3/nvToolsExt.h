/* nvToolsExt.h - a stand-in for NVTX 3 (header-only): the four range calls
 * train.c makes, and NVTX's injection protocol as nvtx3 implements it: at
 * the first call, the library NVTX_INJECTION64_PATH names is loaded and its
 * InitializeInjectionNvtx2 given the export table, through which it fills
 * the core function slots; no injection: the calls do nothing. */
#ifndef MOCK_NOCUDA_NVTOOLSEXT_H
#define MOCK_NOCUDA_NVTOOLSEXT_H
#include "../values.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define NVTX_API
typedef uint64_t nvtxRangeId_t;
typedef void (*NvtxFunctionPointer)(void);
typedef NvtxFunctionPointer **NvtxFunctionTable;
typedef enum { NVTX_CB_MODULE_CORE = MOCKV_NVTX_CB_MODULE_CORE } NvtxCallbackModule;
enum {
    NVTX_ETID_CALLBACKS = MOCKV_NVTX_ETID_CALLBACKS,
    NVTX_CBID_CORE_RangeStartA = MOCKV_NVTX_CBID_CORE_RangeStartA,
    NVTX_CBID_CORE_RangeEnd = MOCKV_NVTX_CBID_CORE_RangeEnd,
    NVTX_CBID_CORE_RangePushA = MOCKV_NVTX_CBID_CORE_RangePushA,
    NVTX_CBID_CORE_RangePop = MOCKV_NVTX_CBID_CORE_RangePop,
    NVTX_CBID_CORE_SIZE = MOCKV_NVTX_CBID_CORE_SIZE,
};
typedef const void *(NVTX_API *NvtxGetExportTableFunc_t)(uint32_t exportTableId);
typedef struct NvtxExportTableCallbacks {
    size_t struct_size;
    int(NVTX_API *GetModuleFunctionTable)(NvtxCallbackModule module, NvtxFunctionTable *out_table, unsigned int *out_size);
} NvtxExportTableCallbacks;

__attribute__((unused)) static NvtxFunctionPointer nvtx_stub_core[NVTX_CBID_CORE_SIZE];
__attribute__((unused)) static NvtxFunctionPointer *nvtx_stub_slots[NVTX_CBID_CORE_SIZE];
__attribute__((unused)) static pthread_once_t nvtx_stub_once = PTHREAD_ONCE_INIT;

static inline int NVTX_API nvtx_stub_module(NvtxCallbackModule m, NvtxFunctionTable *t, unsigned int *n) {
    if (m != NVTX_CB_MODULE_CORE) return 0;
    for (int i = 0; i < NVTX_CBID_CORE_SIZE; i++) nvtx_stub_slots[i] = &nvtx_stub_core[i];
    *t = nvtx_stub_slots;
    *n = NVTX_CBID_CORE_SIZE;
    return 1;
}
__attribute__((unused)) static const NvtxExportTableCallbacks nvtx_stub_callbacks = {sizeof(NvtxExportTableCallbacks), nvtx_stub_module};
static inline const void *NVTX_API nvtx_stub_export_table(uint32_t id) { return id == NVTX_ETID_CALLBACKS ? &nvtx_stub_callbacks : NULL; }
static inline void nvtx_stub_init(void) {
    const char *path = getenv("NVTX_INJECTION64_PATH");
    void *h = path && *path ? dlopen(path, RTLD_LAZY) : NULL;
    int (*init)(NvtxGetExportTableFunc_t) = NULL;
    if (h) *(void **)&init = dlsym(h, "InitializeInjectionNvtx2");
    if (init && !init(nvtx_stub_export_table))
        for (int i = 0; i < NVTX_CBID_CORE_SIZE; i++) nvtx_stub_core[i] = NULL; /* refused: as no injection */
}
static inline NvtxFunctionPointer nvtx_stub_fn(int id) {
    pthread_once(&nvtx_stub_once, nvtx_stub_init);
    return nvtx_stub_core[id];
}
static inline int nvtxRangePushA(const char *message) {
    NvtxFunctionPointer f = nvtx_stub_fn(NVTX_CBID_CORE_RangePushA);
    return f ? ((int (*)(const char *))f)(message) : -1;
}
static inline int nvtxRangePop(void) {
    NvtxFunctionPointer f = nvtx_stub_fn(NVTX_CBID_CORE_RangePop);
    return f ? ((int (*)(void))f)() : -1;
}
static inline nvtxRangeId_t nvtxRangeStartA(const char *message) {
    NvtxFunctionPointer f = nvtx_stub_fn(NVTX_CBID_CORE_RangeStartA);
    return f ? ((nvtxRangeId_t(*)(const char *))f)(message) : 0;
}
static inline void nvtxRangeEnd(nvtxRangeId_t id) {
    NvtxFunctionPointer f = nvtx_stub_fn(NVTX_CBID_CORE_RangeEnd);
    if (f) ((void (*)(nvtxRangeId_t))f)(id);
}
#endif
