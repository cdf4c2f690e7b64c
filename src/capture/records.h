/* records.h - perfcard's views of the CUPTI activity records it reads.
 *
 * CUPTI's record structs gain a version with most toolkits (Kernel4 ...
 * Kernel10 ... Kernel11), and a library built against one toolkit's structs
 * may meet another toolkit's libcupti at run time. Every field perfcard reads
 * sits at the same offset in every version since CUDA 9 (new fields are
 * appended), so these views declare only that common prefix, with explicit
 * padding: the capture library builds with any toolkit's headers (or none)
 * and reads any CUPTI's records. tests/capture/records_check.c checks
 * each offset against the installed toolkit's newest and oldest structs.
 * Kind and enum values are CUPTI's (stable since their introduction). */
#ifndef PC_CAPTURE_RECORDS_H
#define PC_CAPTURE_RECORDS_H
#include <stdint.h>

enum { /* CUpti_ActivityKind */
    REC_MEMCPY = 1, REC_MEMSET = 2, REC_KERNEL = 3, REC_DRIVER = 4, REC_RUNTIME = 5, REC_MARKER = 12,
    REC_OVERHEAD = 17, REC_CONCURRENT_KERNEL = 10, REC_SYNCHRONIZATION = 38, REC_MEMORY2 = 49,
};
enum { /* CUpti_ActivityMemcpyKind */
    REC_HTOD = 1, REC_DTOH = 2, REC_HTOA = 3, REC_ATOH = 4, REC_ATOA = 5, REC_ATOD = 6, REC_DTOA = 7, REC_DTOD = 8, REC_HTOH = 9, REC_PTOP = 10,
};
enum { /* CUpti_ActivityMemoryKind */
    REC_MEM_UNKNOWN = 0, REC_MEM_PAGEABLE = 1, REC_MEM_PINNED = 2, REC_MEM_DEVICE = 3, REC_MEM_ARRAY = 4, REC_MEM_MANAGED = 5,
};
enum { /* CUpti_ActivitySynchronizationType */
    REC_SYNC_EVENT = 1, REC_SYNC_STREAM_WAIT_EVENT = 2, REC_SYNC_STREAM = 3, REC_SYNC_CONTEXT = 4,
};
enum { REC_DOMAIN_DRIVER = 1, REC_DOMAIN_RUNTIME = 2 };                /* CUpti_CallbackDomain */
enum { REC_API_ENTER = 0, REC_API_EXIT = 1 };                           /* CUpti_ApiCallbackSite */
enum { REC_CBID_PROFILER_START = 171, REC_CBID_PROFILER_STOP = 172 };   /* cudaProfilerStart_v4000, cudaProfilerStop_v4000 */
enum { REC_THREAD_ID_SYSTEM = 1 };                                      /* CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM */
enum { REC_FLUSH_FORCED = 1 };                                          /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
enum { REC_SUCCESS = 0 };                                               /* CUPTI_SUCCESS */
enum { REC_MARKER_START = 1 << 1, REC_MARKER_END = 1 << 2 };           /* CUPTI_ACTIVITY_FLAG_MARKER_* */
enum { REC_OBJECT_PROCESS = 1, REC_OBJECT_THREAD = 2 };                 /* CUPTI_ACTIVITY_OBJECT_* */
enum { REC_MEMORY_ALLOCATION = 1, REC_MEMORY_RELEASE = 2 };             /* CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_* */

typedef struct rec_kernel { /* CUpti_ActivityKernel4..11 */
    uint32_t kind;
    uint8_t cacheConfig, sharedMemoryConfig;
    uint16_t registersPerThread;
    uint32_t partitionedGlobalCacheRequested, partitionedGlobalCacheExecuted;
    uint64_t start, end, completed;
    uint32_t deviceId, contextId, streamId;
    int32_t gridX, gridY, gridZ, blockX, blockY, blockZ;
    int32_t staticSharedMemory, dynamicSharedMemory;
    uint32_t localMemoryPerThread, localMemoryTotal;
    uint32_t correlationId;
    int64_t gridId;
    const char *name;
} rec_kernel;

typedef struct rec_memcpy { /* CUpti_ActivityMemcpy4..6 */
    uint32_t kind;
    uint8_t copyKind, srcKind, dstKind, flags;
    uint64_t bytes, start, end;
    uint32_t deviceId, contextId, streamId, correlationId;
} rec_memcpy;

typedef struct rec_memset { /* CUpti_ActivityMemset2..4 */
    uint32_t kind, value;
    uint64_t bytes, start, end;
    uint32_t deviceId, contextId, streamId, correlationId;
    uint16_t flags, memoryKind;
} rec_memset;

typedef struct rec_api { /* CUpti_ActivityAPI */
    uint32_t kind, cbid;
    uint64_t start, end;
    uint32_t processId, threadId, correlationId, returnValue;
} rec_api;

typedef struct rec_sync { /* CUpti_ActivitySynchronization, 2 */
    uint32_t kind, type;
    uint64_t start, end;
    uint32_t correlationId, contextId, streamId, cudaEventId;
} rec_sync;

typedef struct rec_marker { /* CUpti_ActivityMarker2 */
    uint32_t kind, flags;
    uint64_t timestamp;
    uint32_t id, objectKind;
    union { struct { uint32_t processId, threadId; } pt; struct { uint32_t deviceId, contextId, streamId; } dcs; } objectId;
    uint32_t pad;
    const char *name, *domain;
} rec_marker;

typedef struct rec_memory { /* CUpti_ActivityMemory3, 4 (kind MEMORY2) */
    uint32_t kind, memoryOperationType, memoryKind, correlationId;
    uint64_t address, bytes, timestamp, pc;
    uint32_t processId, deviceId, contextId, streamId;
} rec_memory;

typedef struct rec_callback { /* CUpti_CallbackData: the part read */
    uint32_t callbackSite;
} rec_callback;

typedef struct rec_overhead { /* CUpti_ActivityOverhead, 2, 3 */
    uint32_t kind, overheadKind, objectKind;
    union { struct { uint32_t processId, threadId; } pt; struct { uint32_t deviceId, contextId, streamId; } dcs; } objectId;
    uint64_t start, end;
} rec_overhead;
#endif
