/* Nsight Systems and nvprof SQLite inputs. The nvprof fixture follows the
 * documented layout of nvprof's export (the input of PyProf): tables
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, _RUNTIME, _MEMCPY, _MEMSET, _MARKER
 * and StringTable(_id_, value). */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"
#include <sqlite3.h>
#include <stdlib.h>

static int exec(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL); }

TEST(sqlite_nvprof_fixture) {
    char *path = tmp_path("nvprof.sql");
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(exec(db,
               "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT NOT NULL);"
               "INSERT INTO StringTable VALUES (1, 'volta_sgemm_128x64_nn'), (2, 'elementwise_kernel'), (3, 'ProfilerStep#1'), (4, 'ProfilerStep#2');"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY, cacheConfig BLOB, sharedMemoryConfig INT, "
               "registersPerThread INT, partitionedGlobalCacheRequested INT, partitionedGlobalCacheExecuted INT, start INT, end INT, "
               "completed INT, deviceId INT, contextId INT, streamId INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, "
               "blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT, localMemoryPerThread INT, localMemoryTotal INT, "
               "correlationId INT, gridId INT, name INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(registersPerThread, start, end, deviceId, streamId, gridX, gridY, gridZ,"
               " blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, correlationId, name) VALUES "
               "(128, 1000, 11000, 0, 7, 80, 1, 1, 256, 1, 1, 4096, 0, 10, 1), (32, 12000, 14000, 0, 7, 10, 1, 1, 128, 1, 1, 0, 0, 11, 2),"
               "(128, 101000, 111000, 0, 7, 80, 1, 1, 256, 1, 1, 4096, 0, 20, 1);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, cbid INT, start INT, end INT, processId INT, "
               "threadId INT, correlationId INT, returnValue INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, threadId, correlationId) VALUES "
               "(211, 500, 900, 42, 42, 10), (211, 1100, 1400, 42, 42, 11), (211, 100500, 100900, 42, 42, 20), (165, 15000, 20000, 42, 42, 12),"
               "(51, 21000, 21010, 42, 42, 15), (214, 21100, 21120, 42, 42, 16), (8, 21200, 21201, 42, 42, 17), (41, 21300, 21302, 42, 42, 18);"
               /* CUpti_ActivityDevice's fields, the name a StringTable id */
               "CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY, flags INT, globalMemoryBandwidth INT, globalMemorySize INT, "
               "constantMemorySize INT, l2CacheSize INT, numThreadsPerWarp INT, coreClockRate INT, numMemcpyEngines INT, numMultiprocessors INT, "
               "maxIPC INT, maxWarpsPerMultiprocessor INT, maxBlocksPerMultiprocessor INT, maxRegistersPerBlock INT, maxSharedMemoryPerBlock INT, "
               "maxThreadsPerBlock INT, maxBlockDimX INT, maxBlockDimY INT, maxBlockDimZ INT, maxGridDimX INT, maxGridDimY INT, maxGridDimZ INT, "
               "computeCapabilityMajor INT, computeCapabilityMinor INT, id INT, name INT);"
               "INSERT INTO StringTable VALUES (5, 'Tesla K40c');"
               "INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE(globalMemorySize, numThreadsPerWarp, numMultiprocessors, maxWarpsPerMultiprocessor, "
               "maxRegistersPerBlock, maxSharedMemoryPerBlock, computeCapabilityMajor, computeCapabilityMinor, id, name) VALUES "
               "(12079136768, 32, 15, 64, 65536, 49152, 3, 5, 0, 5);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY, copyKind INT, srcKind INT, dstKind INT, flags INT, "
               "bytes INT, start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT, runtimeCorrelationId INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(copyKind, srcKind, dstKind, bytes, start, end, deviceId, streamId, correlationId) "
               "VALUES (1, 1, 3, 1048576, 100, 200, 0, 7, 9), (1, 2, 3, 4096, 20000, 20010, 0, 7, 13), (8, 3, 3, 8192, 20100, 20110, 0, 7, 14);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(_id_ INTEGER PRIMARY KEY, value INT, bytes INT, start INT, end INT, deviceId INT, "
               "contextId INT, streamId INT, correlationId INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(value, bytes, start, end, deviceId, streamId, correlationId) VALUES (0, 4096, 300, 350, 0, 7, 8);"
               "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMSET ADD COLUMN memoryKind INT;"
               "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(value, bytes, start, end, deviceId, streamId, correlationId, memoryKind) VALUES (0, 512, 22000, 22010, 0, 7, 19, 2);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER(_id_ INTEGER PRIMARY KEY, flags INT, timestamp INT, id INT, objectKind INT, "
               "objectId BLOB, name INT, domain INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, objectKind, objectId, name) VALUES "
               "(2, 0, 1, 2, 42, 3), (4, 100000, 1, 2, 42, 0), (2, 100000, 2, 2, 42, 4), (4, 200000, 2, 2, 42, 0);") == SQLITE_OK);
    sqlite3_close(db);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(path, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_S(strtab_get(&t->strs, t->source_format), "nvprof-sqlite");
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 3);
    CHECK_EQ_I(t->count_gpu[GPU_MEMCPY], 3);
    CHECK_EQ_I(t->count_gpu[GPU_MEMSET], 2);
    CHECK_EQ_I(t->count_cpu[CPU_RUNTIME], 8);
    CHECK_EQ_I(t->count_cpu[CPU_USER_ANNOT], 2);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), 22000);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.name", ""), "volta_sgemm_128x64_nn");
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.rows.0.registers_per_thread", -1), 128);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.grid", ""), "[80, 1, 1]");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 2); /* NVTX ProfilerStep markers */
    /* memory kinds in CUPTI's numbering (1 pageable, 2 pinned, 3 device), not Nsight Systems' */
    int seen = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "transfers.rows")) {
        const char *k = sj_getstr(r, "kind", "");
        if (!strcmp(k, "Memcpy HtoD (Pageable -> Device)") && sj_getnum(r, "gbs", -1) == 1048576.0 / 100) seen |= 1;
        if (!strcmp(k, "Memcpy HtoD (Pinned -> Device)")) seen |= 2;
        if (!strcmp(k, "Memcpy DtoD (Device -> Device)")) seen |= 4;
        if (!strcmp(k, "Memset (Pinned)")) seen |= 8;
        if (!strcmp(k, "Memset (Device)")) seen |= 16;
    }
    CHECK_EQ_I(seen, 31);
    /* callback ids named from CUPTI's header: 51 cudaMemsetAsync, 214 cudaLaunchKernel (_ptsz),
     * 8 cudaConfigureCall, 41 cudaMemcpyAsync */
    seen = 0;
    cJSON_ArrayForEach(r, sj_get(s, "api_calls.rows")) {
        const char *n = sj_getstr(r, "name", "");
        if (!strcmp(n, "cudaMemsetAsync")) seen |= 1;
        if (!strcmp(n, "cudaConfigureCall")) seen |= 2;
        if (!strcmp(n, "cudaMemcpyAsync")) seen |= 4;
        if (!strcmp(n, "cudaLaunchKernel") && sj_getnum(r, "calls", 0) == 4) seen |= 8;
        if (!strncmp(n, "cudaRuntime(", 12)) seen |= 16; /* an id the header does not name: none here */
    }
    CHECK_EQ_I(seen, 15);
    CHECK_EQ_S(sj_getstr(s, "api_calls.rows.0.name", ""), "cudaDeviceSynchronize");
    /* the device, from CUPTI_ACTIVITY_KIND_DEVICE */
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.name", ""), "Tesla K40c");
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.compute_capability", ""), "3.5");
    CHECK_EQ_I(sj_getnum(s, "run.devices.0.sms", -1), 15);
    cJSON_Delete(s);
    pc_trace_free(t);
    free(path);
}

TEST(sqlite_malformed_is_an_error) {
    char *path = tmp_path("bad.sqlite");
    FILE *f = fopen(path, "wb");
    fwrite("SQLite format 3\0garbage garbage garbage", 1, 40, f);
    fclose(f);
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load(path, NULL, &t, &err);
    CHECK(rc != 0 && t == NULL);
    CHECK(err.msg[0]);
    /* a valid database of something else */
    char *other = tmp_path("other.sqlite");
    sqlite3 *db;
    sqlite3_open(other, &db);
    exec(db, "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES ('hello');");
    sqlite3_close(db);
    CHECK(pc_load(other, NULL, &t, &err) == PC_EINPUT);
    CHECK(strstr(err.msg, "neither") != NULL);
    free(path);
    free(other);
}

/* An Nsight Systems export in miniature (the tables and columns perfcard
 * reads, as `nsys export --type sqlite` names them), with an environment
 * table holding a secret that must never reach the summary. */
TEST(sqlite_nsys_fixture) {
    char *path = tmp_path("nsys.sqlite");
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(exec(db,
               "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
               "INSERT INTO StringIds VALUES (1, 'saxpy_kernel(int, float, float*, float*)'), (2, 'cudaLaunchKernel'),"
               " (3, 'cudaMemcpy'), (4, 'ProfilerStep#1'), (5, 'SECRET_TOKEN=hunter2');"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT,"
               " globalPid INT, demangledName INT, shortName INT, registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT,"
               " blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 7000, 0, 1, 7, 11, 0, 1, 1, 16, 4096, 1, 1, 256, 1, 1, 0, 0),"
               " (9000, 12000, 0, 1, 7, 12, 0, 1, 1, 16, 4096, 1, 1, 256, 1, 1, 0, 0);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT,"
               " returnValue INT, callchainId INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 0, 281474993487872 + 4242, 11, 2, 0, 0),"
               " (8000, 8500, 0, 281474993487872 + 4242, 12, 2, 0, 0), (12500, 20000, 0, 281474993487872 + 4242, 13, 3, 0, 0);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT,"
               " globalPid INT, bytes INT, copyKind INT, srcKind INT, dstKind INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (13000, 19000, 0, 1, 7, 13, 0, 6000000, 2, 2, 0);"
               "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, rangeId INT, category INT, color INT, text TEXT, globalTid INT,"
               " endGlobalTid INT, textId INT);"
               "INSERT INTO NVTX_EVENTS VALUES (500, 21000, 59, 0, 0, 0, NULL, 281474993487872 + 4242, NULL, 4),"
               " (100, NULL, 34, 0, 0, 0, 'a mark', 281474993487872 + 4242, NULL, NULL);"
               "CREATE TABLE TARGET_INFO_GPU(id INT, name TEXT, totalMemory INT, smCount INT, computeMajor INT, computeMinor INT,"
               " maxWarpsPerSm INT, maxRegistersPerSm INT, maxShmemPerSm INT, cuDevice INT);"
               "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100-SXM4-80GB', 85899345920, 108, 8, 0, 64, 65536, 167936, 0);"
               "CREATE TABLE TARGET_INFO_SYSTEM_ENV(globalVid INT, devStateName TEXT, name TEXT, nameEnum INT, value TEXT);"
               "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, '', 'SECRET_TOKEN', 0, 'hunter2');"
               "CREATE TABLE META_DATA_CAPTURE(name TEXT, value TEXT);"
               "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', 'SECRET_TOKEN=\"hunter2\"');") == SQLITE_OK);
    /* the independent reading: SQL on the same file */
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    int64_t want_n = sqlite3_column_int64(st, 0), want_ns = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(path, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_S(strtab_get(&t->strs, t->source_format), "nsys-sqlite");
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.calls", -1), want_n);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), want_ns);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.grid", ""), "[4096, 1, 1]");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 1); /* the NVTX ProfilerStep range; the mark is skipped */
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.name", ""), "NVIDIA A100-SXM4-80GB");
    CHECK_EQ_S(sj_getstr(s, "transfers.rows.0.kind", ""), "Memcpy DtoH (Device -> Pageable)");
    CHECK_EQ_I(sj_getnum(s, "transfers.rows.0.bytes", -1), 6000000);
    CHECK_EQ_I(sj_getnum(s, "operators.attribution.gpu_ns", -1), want_ns + 6000);
    char *txt = cJSON_PrintUnformatted(s);
    CHECK(strstr(txt, "hunter2") == NULL && strstr(txt, "SECRET_TOKEN") == NULL);
    free(txt);
    cJSON_Delete(s);
    pc_trace_free(t);
    free(path);
}

/* #32 class 3: an Nsight Systems export's OS runtime calls (OSRT_API) of the process that made
 * the CUDA calls start the trace: the program's start-up counts from its first one. Here (ns):
 * process 1's OS runtime calls 100-300 and 25,000-30,000, another process's (99) at 10-20 (not
 * this program: left out), process 1's first CUDA call at 1,000, its kernel 2,000-7,000. The
 * trace spans 100..30,000 (29,900 ns), the first kernel 1,900 ns into it (it was 1,000 ns, from
 * the first CUDA call, with the trace ending at the kernel's 7,000). */
TEST(sqlite_nsys_osrt_starts_the_process) {
    char *path = tmp_path("nsys_osrt.sqlite");
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(exec(db,
               "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
               "INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel'), (3, 'read');"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT,"
               " globalPid INT, demangledName INT, shortName INT, registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT,"
               " blockY INT, blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 7000, 0, 1, 7, 11, 0, 1, 1, 16, 1, 1, 1, 32, 1, 1, 0, 0);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT,"
               " returnValue INT, callchainId INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1500, 0, 281474993487872 + 4242, 11, 2, 0, 0);"
               "CREATE TABLE OSRT_API(start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT,"
               " returnValue INT, nestingLevel INT, callchainId INT);"
               "INSERT INTO OSRT_API VALUES (100, 300, 27, 281474993487872 + 4242, 0, 3, 0, 0, 0),"
               " (25000, 30000, 27, 281474993487872 + 4243, 0, 3, 0, 0, 0), (10, 20, 27, 1660944384 + 7, 0, 3, 0, 0, 0);") == SQLITE_OK);
    sqlite3_close(db);
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(path, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->t_min, 100);
    CHECK_EQ_I(t->t_max, 30000);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "run.span_ns", -1), 29900);
    CHECK_EQ_I(sj_getnum(s, "gpu.first_kernel_ns", -1), 1900);
    CHECK_EQ_I(sj_getnum(s, "kernels.calls", -1), 1);
    cJSON_Delete(s);
    pc_trace_free(t);
    free(path);
}
