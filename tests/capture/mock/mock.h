/* mock.h - the private seam between the mock CUDA driver (libcuda.so.1), the
 * mock runtime (libcudart.so.13) and the mock CUPTI (libcupti.so) of
 * tests/capture.
 *
 * The real stack: the runtime opens the driver (RTLD_NOW, not RTLD_GLOBAL),
 * the driver loads CUDA_INJECTION64_PATH at cuInit, and CUPTI observes the
 * driver from inside. Here CUPTI, when loaded, attaches a mock_tool to the
 * driver; the driver and runtime report every API call (enter and exit) and
 * every finished piece of device work through it, as real CUPTI records
 * (the structs of the toolkit's cupti_activity.h), and CUPTI delivers them
 * through its real activity and callback APIs. With no tool attached nothing
 * is recorded, as with no profiler.
 */
#ifndef PC_MOCK_CUDA_H
#define PC_MOCK_CUDA_H
#include <stddef.h>
#include <stdint.h>

typedef struct mock_tool {
    uint64_t (*now)(void);            /* the tool's clock (CUPTI's timestamp, or its registered callback) */
    uint32_t (*correlation)(void);    /* a new correlation id */
    /* an API call's enter (site 0) or exit (site 1); domain is CUPTI's
     * CUPTI_CB_DOMAIN_RUNTIME_API or _DRIVER_API; symbol: a kernel's name */
    void (*callback)(int domain, uint32_t cbid, int site, uint32_t correlation, const char *symbol);
    /* a finished activity record of `size` bytes (copied); for API records
     * CUPTI fills processId and threadId by its thread-id type */
    void (*record)(const void *rec, size_t size);
} mock_tool;

/* exported by the mock libcuda.so.1 */
void mockcuda_attach(const mock_tool *t);
const mock_tool *mockcuda_tool(void);
#endif
