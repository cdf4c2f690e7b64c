/* Nsight Systems and nvprof SQLite inputs. The nvprof fixture follows the
 * documented layout of nvprof's export (the input of PyProf): tables
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, _RUNTIME, _MEMCPY, _MEMSET, _MARKER
 * and StringTable(_id_, value). */
#include "test.h"
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
               "(211, 500, 900, 42, 42, 10), (211, 1100, 1400, 42, 42, 11), (211, 100500, 100900, 42, 42, 20), (165, 15000, 20000, 42, 42, 12);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY, copyKind INT, srcKind INT, dstKind INT, flags INT, "
               "bytes INT, start INT, end INT, deviceId INT, contextId INT, streamId INT, correlationId INT, runtimeCorrelationId INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(copyKind, srcKind, dstKind, bytes, start, end, deviceId, streamId, correlationId) "
               "VALUES (1, 0, 2, 1048576, 100, 200, 0, 7, 9);"
               "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(_id_ INTEGER PRIMARY KEY, value INT, bytes INT, start INT, end INT, deviceId INT, "
               "contextId INT, streamId INT, correlationId INT);"
               "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(value, bytes, start, end, deviceId, streamId, correlationId) VALUES (0, 4096, 300, 350, 0, 7, 8);"
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
    CHECK_EQ_I(t->count_gpu[GPU_MEMCPY], 1);
    CHECK_EQ_I(t->count_gpu[GPU_MEMSET], 1);
    CHECK_EQ_I(t->count_cpu[CPU_RUNTIME], 4);
    CHECK_EQ_I(t->count_cpu[CPU_USER_ANNOT], 2);
    cJSON *s = pc_analyze(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), 22000);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.name", ""), "volta_sgemm_128x64_nn");
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.rows.0.registers_per_thread", -1), 128);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.grid", ""), "[80, 1, 1]");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 2); /* NVTX ProfilerStep markers */
    CHECK_EQ_S(sj_getstr(s, "transfers.rows.0.kind", ""), "Memcpy HtoD (Pageable -> Device)");
    CHECK_NEAR(sj_getnum(s, "transfers.rows.0.gbs", -1), 1048576.0 / 100, 1e-9);
    CHECK_EQ_S(sj_getstr(s, "api_calls.rows.0.name", ""), "cudaDeviceSynchronize");
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
