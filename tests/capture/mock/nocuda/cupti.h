/* cupti.h - a stand-in for CUPTI's headers: only what the mock stack uses;
 * see cuda.h here. The activity records are perfcard's own views of them
 * (src/capture/records.h: the fields every CUPTI since CUDA 9 has at those
 * offsets, checked against a toolkit's structs by records_check.c), so the
 * mock's records are the prefix perfcard reads. */
#ifndef MOCK_NOCUDA_CUPTI_H
#define MOCK_NOCUDA_CUPTI_H
#include "cuda.h"
#include "../../../../src/capture/records.h"

#define CUPTIAPI
typedef enum {
    CUPTI_SUCCESS = MOCKV_CUPTI_SUCCESS,
    CUPTI_ERROR_INVALID_PARAMETER = MOCKV_CUPTI_ERROR_INVALID_PARAMETER,
    CUPTI_ERROR_MAX_LIMIT_REACHED = MOCKV_CUPTI_ERROR_MAX_LIMIT_REACHED,
    CUPTI_ERROR_NOT_COMPATIBLE = MOCKV_CUPTI_ERROR_NOT_COMPATIBLE,
    CUPTI_ERROR_INVALID_KIND = MOCKV_CUPTI_ERROR_INVALID_KIND,
    CUPTI_ERROR_NOT_SUPPORTED = MOCKV_CUPTI_ERROR_NOT_SUPPORTED,
    CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = MOCKV_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
    CUPTI_ERROR_UNKNOWN = MOCKV_CUPTI_ERROR_UNKNOWN,
} CUptiResult;

typedef enum {
    CUPTI_ACTIVITY_KIND_MEMCPY = REC_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET = REC_MEMSET,
    CUPTI_ACTIVITY_KIND_KERNEL = REC_KERNEL,
    CUPTI_ACTIVITY_KIND_DRIVER = REC_DRIVER,
    CUPTI_ACTIVITY_KIND_RUNTIME = REC_RUNTIME,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = REC_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MARKER = REC_MARKER,
    CUPTI_ACTIVITY_KIND_OVERHEAD = REC_OVERHEAD,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION = REC_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_MEMORY2 = REC_MEMORY2,
    CUPTI_ACTIVITY_KIND_COUNT = MOCKV_CUPTI_ACTIVITY_KIND_COUNT,
} CUpti_ActivityKind;
typedef enum {
    CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT = MOCKV_CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT,
    CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM = MOCKV_CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM,
} CUpti_ActivityThreadIdType;
typedef enum {
    CUPTI_ACTIVITY_FLAG_FLUSH_FORCED = REC_FLUSH_FORCED,
    CUPTI_ACTIVITY_FLAG_MARKER_START = REC_MARKER_START,
    CUPTI_ACTIVITY_FLAG_MARKER_END = REC_MARKER_END,
} CUpti_ActivityFlag;
typedef enum { CUPTI_ACTIVITY_OBJECT_PROCESS = REC_OBJECT_PROCESS, CUPTI_ACTIVITY_OBJECT_THREAD = REC_OBJECT_THREAD } CUpti_ActivityObjectKind;
typedef enum {
    CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION = REC_MEMORY_ALLOCATION,
    CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE = REC_MEMORY_RELEASE,
} CUpti_ActivityMemoryOperationType;
typedef enum {
    CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN = REC_MEM_UNKNOWN,
    CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE = REC_MEM_PAGEABLE,
    CUPTI_ACTIVITY_MEMORY_KIND_PINNED = REC_MEM_PINNED,
    CUPTI_ACTIVITY_MEMORY_KIND_DEVICE = REC_MEM_DEVICE,
} CUpti_ActivityMemoryKind;
enum {
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOD = REC_HTOD,
    CUPTI_ACTIVITY_MEMCPY_KIND_DTOH = REC_DTOH,
    CUPTI_ACTIVITY_MEMCPY_KIND_DTOD = REC_DTOD,
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOH = REC_HTOH,
};
typedef enum {
    CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE = REC_SYNC_STREAM,
    CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE = REC_SYNC_CONTEXT,
} CUpti_ActivitySynchronizationType;

typedef struct { CUpti_ActivityKind kind; } CUpti_Activity;
typedef rec_kernel CUpti_ActivityKernel10;
typedef rec_memcpy CUpti_ActivityMemcpy6;
typedef rec_memset CUpti_ActivityMemset4;
typedef rec_api CUpti_ActivityAPI;
typedef rec_sync CUpti_ActivitySynchronization2;
typedef rec_marker CUpti_ActivityMarker2;
typedef rec_memory CUpti_ActivityMemory4;

typedef void(CUPTIAPI *CUpti_BuffersCallbackRequestFunc)(uint8_t **buffer, size_t *size, size_t *maxNumRecords);
typedef void(CUPTIAPI *CUpti_BuffersCallbackCompleteFunc)(CUcontext context, uint32_t streamId, uint8_t *buffer, size_t size, size_t validSize);
typedef uint64_t(CUPTIAPI *CUpti_TimestampCallbackFunc)(void);

/* the callback API */
typedef enum { CUPTI_CB_DOMAIN_DRIVER_API = MOCKV_CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API = MOCKV_CUPTI_CB_DOMAIN_RUNTIME_API } CUpti_CallbackDomain;
typedef uint32_t CUpti_CallbackId;
typedef enum { CUPTI_API_ENTER = REC_API_ENTER, CUPTI_API_EXIT = REC_API_EXIT } CUpti_ApiCallbackSite;
typedef struct { /* CUPTI's layout (nocuda_check.c) */
    CUpti_ApiCallbackSite callbackSite;
    const char *functionName;
    const void *functionParams;
    void *functionReturnValue;
    const char *symbolName;
    CUcontext context;
    uint32_t contextUid;
    uint64_t *correlationData;
    uint32_t correlationId;
} CUpti_CallbackData;
_Static_assert(offsetof(CUpti_CallbackData, symbolName) == MOCKV_CBDATA_symbolName &&
                   offsetof(CUpti_CallbackData, correlationData) == MOCKV_CBDATA_correlationData &&
                   offsetof(CUpti_CallbackData, correlationId) == MOCKV_CBDATA_correlationId, "CUPTI's layout");
typedef void(CUPTIAPI *CUpti_CallbackFunc)(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata);
typedef struct CUpti_Subscriber_st *CUpti_SubscriberHandle;
enum {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 = MOCKV_CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
};
enum { CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel = MOCKV_CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel };
#endif
