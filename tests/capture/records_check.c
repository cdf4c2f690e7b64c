/* records_check.c - compiled (never run) by `make mock`: perfcard's record
 * views (src/capture/records.h) must match the installed toolkit's CUPTI
 * structs, newest and oldest, field by field; a mismatch fails the build. */
#include "../../src/capture/records.h"
#include <cupti.h>
#include <stddef.h>

#define SAME(V, T, f) _Static_assert(offsetof(V, f) == offsetof(T, f), #V "." #f " is not where " #T " has it")
#define KIND(R, C) _Static_assert((int)(R) == (int)(C), #R " is not " #C)

KIND(REC_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY);
KIND(REC_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET);
KIND(REC_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL);
KIND(REC_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER);
KIND(REC_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME);
KIND(REC_MARKER, CUPTI_ACTIVITY_KIND_MARKER);
KIND(REC_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD);
KIND(REC_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
KIND(REC_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
KIND(REC_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY2);
KIND(REC_MARKER_START, CUPTI_ACTIVITY_FLAG_MARKER_START);
KIND(REC_MARKER_END, CUPTI_ACTIVITY_FLAG_MARKER_END);
KIND(REC_OBJECT_THREAD, CUPTI_ACTIVITY_OBJECT_THREAD);
KIND(REC_MEMORY_ALLOCATION, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION);
KIND(REC_MEMORY_RELEASE, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE);
KIND(REC_HTOD, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
KIND(REC_DTOH, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
KIND(REC_HTOA, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA);
KIND(REC_ATOH, CUPTI_ACTIVITY_MEMCPY_KIND_ATOH);
KIND(REC_ATOA, CUPTI_ACTIVITY_MEMCPY_KIND_ATOA);
KIND(REC_ATOD, CUPTI_ACTIVITY_MEMCPY_KIND_ATOD);
KIND(REC_DTOA, CUPTI_ACTIVITY_MEMCPY_KIND_DTOA);
KIND(REC_DTOD, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
KIND(REC_HTOH, CUPTI_ACTIVITY_MEMCPY_KIND_HTOH);
KIND(REC_PTOP, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
KIND(REC_MEM_UNKNOWN, CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN);
KIND(REC_MEM_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
KIND(REC_MEM_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
KIND(REC_MEM_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
KIND(REC_MEM_ARRAY, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
KIND(REC_MEM_MANAGED, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED);
KIND(REC_SYNC_EVENT, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE);
KIND(REC_SYNC_STREAM_WAIT_EVENT, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT);
KIND(REC_SYNC_STREAM, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
KIND(REC_SYNC_CONTEXT, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
KIND(REC_DOMAIN_DRIVER, CUPTI_CB_DOMAIN_DRIVER_API);
KIND(REC_DOMAIN_RUNTIME, CUPTI_CB_DOMAIN_RUNTIME_API);
KIND(REC_API_ENTER, CUPTI_API_ENTER);
KIND(REC_API_EXIT, CUPTI_API_EXIT);
KIND(REC_CBID_PROFILER_START, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
KIND(REC_CBID_PROFILER_STOP, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
KIND(REC_THREAD_ID_SYSTEM, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
KIND(REC_FLUSH_FORCED, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
KIND(REC_SUCCESS, CUPTI_SUCCESS);
SAME(rec_callback, CUpti_CallbackData, callbackSite);
_Static_assert(sizeof(((CUpti_CallbackData *)0)->callbackSite) == 4, "callbackSite is 4 bytes");

#define KERNEL(T) SAME(rec_kernel, T, registersPerThread); SAME(rec_kernel, T, start); SAME(rec_kernel, T, end); \
    SAME(rec_kernel, T, deviceId); SAME(rec_kernel, T, streamId); SAME(rec_kernel, T, gridX); SAME(rec_kernel, T, gridZ); \
    SAME(rec_kernel, T, blockX); SAME(rec_kernel, T, blockZ); SAME(rec_kernel, T, staticSharedMemory); \
    SAME(rec_kernel, T, dynamicSharedMemory); SAME(rec_kernel, T, correlationId); SAME(rec_kernel, T, name)
KERNEL(CUpti_ActivityKernel4);
KERNEL(CUpti_ActivityKernel10);
#define MEMCPY(T) SAME(rec_memcpy, T, copyKind); SAME(rec_memcpy, T, srcKind); SAME(rec_memcpy, T, dstKind); SAME(rec_memcpy, T, bytes); \
    SAME(rec_memcpy, T, start); SAME(rec_memcpy, T, end); SAME(rec_memcpy, T, deviceId); SAME(rec_memcpy, T, streamId); \
    SAME(rec_memcpy, T, correlationId)
MEMCPY(CUpti_ActivityMemcpy);
MEMCPY(CUpti_ActivityMemcpy6);
#define MEMSET(T) SAME(rec_memset, T, bytes); SAME(rec_memset, T, start); SAME(rec_memset, T, end); SAME(rec_memset, T, deviceId); \
    SAME(rec_memset, T, streamId); SAME(rec_memset, T, correlationId); SAME(rec_memset, T, memoryKind)
MEMSET(CUpti_ActivityMemset2);
MEMSET(CUpti_ActivityMemset4);
SAME(rec_api, CUpti_ActivityAPI, cbid);
SAME(rec_api, CUpti_ActivityAPI, start);
SAME(rec_api, CUpti_ActivityAPI, end);
SAME(rec_api, CUpti_ActivityAPI, processId);
SAME(rec_api, CUpti_ActivityAPI, threadId);
SAME(rec_api, CUpti_ActivityAPI, correlationId);
#define SYNC(T) SAME(rec_sync, T, type); SAME(rec_sync, T, start); SAME(rec_sync, T, end); SAME(rec_sync, T, correlationId); \
    SAME(rec_sync, T, streamId)
SYNC(CUpti_ActivitySynchronization);
SYNC(CUpti_ActivitySynchronization2);
SAME(rec_marker, CUpti_ActivityMarker2, flags);
SAME(rec_marker, CUpti_ActivityMarker2, timestamp);
SAME(rec_marker, CUpti_ActivityMarker2, id);
SAME(rec_marker, CUpti_ActivityMarker2, objectKind);
SAME(rec_marker, CUpti_ActivityMarker2, objectId);
SAME(rec_marker, CUpti_ActivityMarker2, name);
#define MEMORY(T) SAME(rec_memory, T, memoryOperationType); SAME(rec_memory, T, memoryKind); SAME(rec_memory, T, address); \
    SAME(rec_memory, T, bytes); SAME(rec_memory, T, timestamp); SAME(rec_memory, T, deviceId); SAME(rec_memory, T, streamId)
MEMORY(CUpti_ActivityMemory3);
MEMORY(CUpti_ActivityMemory4);
#define OVERHEAD(T) SAME(rec_overhead, T, overheadKind); SAME(rec_overhead, T, start); SAME(rec_overhead, T, end)
OVERHEAD(CUpti_ActivityOverhead);
OVERHEAD(CUpti_ActivityOverhead3);
