#include "fixtures.h"
#include "compare/ranks.h"
#include "load/load.h"
#include "render/report.h"
#include "summary/summary.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const pc_job_opts fix_job_opts = {.detail_bytes = PC_REPORT_RANK_DETAIL};

const char FIX_CURRENT[] =
    "{\n"
    "  \"schemaVersion\": 1,\n"
    "  \"deviceProperties\": [\n"
    "    {\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85045215232, \"computeMajor\": 9, \"computeMinor\": 0,\n"
    "     \"numSms\": 132, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerMultiprocessor\": 65536, \"sharedMemPerMultiprocessor\": 233472},\n"
    "    {\"id\": 1, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85045215232, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}\n"
    "  ],\n"
    "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},\n"
    "  \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 101, \"ts\": 1712195495519689.047, \"dur\": 50.5,\n"
    "   \"args\": {\"External id\": 11, \"Sequence number\": 5, \"Input Dims\": [[1024, 1024], [1024, 1024]], \"Input type\": [\"float\", \"float\"]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"MmBackward0\", \"pid\": 100, \"tid\": 102, \"ts\": 1712195495519800, \"dur\": 10,\n"
    "   \"args\": {\"External id\": 12, \"Fwd thread id\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 101, \"ts\": 1712195495519690, \"dur\": 5,\n"
    "   \"args\": {\"External id\": 11, \"cbid\": 211, \"correlation\": 500}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 100, \"tid\": 101, \"ts\": 1712195495519600, \"dur\": 1000},\n"
    "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Linear_0\", \"pid\": 100, \"tid\": 101, \"ts\": 1712195495519650, \"dur\": 100},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_xmma_gemm_f16f16_f16f32\", \"pid\": 0, \"tid\": 7, \"ts\": 1712195495519700, \"dur\": 10,\n"
    "   \"args\": {\"External id\": 11, \"device\": 0, \"stream\": 7, \"correlation\": 500, \"registers per thread\": 168,\n"
    "            \"shared memory\": 213248, \"blocks per SM\": 1.5, \"warps per SM\": 12, \"grid\": [132, 2, 1], \"block\": [384, 1, 1],\n"
    "            \"est. achieved occupancy %\": 19}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_xmma_gemm_f16f16_f16f32\", \"pid\": 0, \"tid\": 7, \"ts\": 1712195495519720, \"dur\": 20.5,\n"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 501}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)\", \"pid\": 1, \"tid\": 9, \"ts\": 1712195495519730, \"dur\": 4,\n"
    "   \"args\": {\"device\": 1, \"stream\": 9, \"correlation\": 502}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pinned)\", \"pid\": 0, \"tid\": 7, \"ts\": 1712195495519760, \"dur\": 2,\n"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 503, \"bytes\": 4096}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 1712195495519765, \"dur\": 1,\n"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 504, \"bytes\": 128}},\n"
    "  {\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 100, \"tid\": 101, \"ts\": 1712195495519691,\n"
    "   \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": 1234, \"Bytes\": 4194304, \"Total Allocated\": 8388608, \"Total Reserved\": 20971520}},\n"
    "  {\"ph\": \"C\", \"name\": \"cpu\", \"pid\": 100, \"ts\": 1712195495519700, \"args\": {\"user\": 42.5, \"system\": 7}},\n"
    "  {\"ph\": \"s\", \"id\": 500, \"pid\": 100, \"tid\": 101, \"ts\": 1712195495519690, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
    "  {\"ph\": \"f\", \"id\": 500, \"pid\": 0, \"tid\": 7, \"ts\": 1712195495519700, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n"
    "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 100, \"tid\": 101, \"args\": {\"name\": \"python\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"mtia_runtime\", \"name\": \"x\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}\n"
    "  ],\n"
    "  \"traceName\": \"/home/someone/secret/path.json\"\n"
    "}\n";

const char FIX_2021[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"aten::conv2d\", \"pid\": 25738, \"tid\": \"25738\", \"ts\": 1623142623460111, \"dur\": 25,\n"
    " \"args\": {\"Device\": 25738, \"External id\": 2, \"Input Dims\": [[32, 3, 224, 224], [64, 3, 7, 7]]}},\n"
    "{\"ph\": \"X\", \"cat\": \"Runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 25738, \"tid\": \"25738\", \"ts\": 1623142623460115, \"dur\": 7,\n"
    " \"args\": {\"cbid\": 211, \"correlation\": 34441, \"external id\": 2, \"external ts\": 1623142623460111}},\n"
    "{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"volta_scudnn_128x64_relu_medium_nn_v1\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 1623142623460130, \"dur\": 605,\n"
    " \"args\": {\"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": 34441, \"external id\": 2,\n"
    "  \"registers per thread\": 128, \"shared memory\": 16384, \"blocks per SM\": 39.2, \"warps per SM\": 156.8,\n"
    "  \"grid\": [3136, 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy %\": 25}},\n"
    "{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"volta_sgemm_64x64_nt\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 1623142623460740, \"dur\": 3,\n"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 34442}},\n"
    "{\"ph\": \"X\", \"cat\": \"Memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 1623142623460100, \"dur\": 9,\n"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 34417, \"bytes\": 19267584}},\n"
    "{\"ph\": \"X\", \"cat\": \"DataLoader\", \"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"pid\": 25738, \"tid\": \"25738\", \"ts\": 1623142623460000, \"dur\": 90},\n"
    "{\"ph\": \"f\", \"id\": 34417, \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 1623142623529248, \"cat\": \"async\", \"name\": \"launch\", \"bp\": \"e\"}\n"
    "]}\n";

char *fix_kernels(int n, long *ends) {
    size_t cap = 256 + (size_t)n * 200;
    char *s = malloc(cap);
    size_t len = (size_t)snprintf(s, cap, "{\"traceEvents\": [\n");
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(s + len, cap - len,
                                "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d.250, \"dur\": %d}",
                                i ? ",\n" : "", i % 3, 1000 + i * 100, i + 1);
        ends[i] = (long)len;
    }
    len += (size_t)snprintf(s + len, cap - len, "\n]}\n");
    return s;
}

cJSON *summary_json(pc_summary *s) {
    sbuf b = {0};
    pc_summary_text(s, &b);
    cJSON *j = cJSON_Parse(b.data);
    sbuf_free(&b);
    pc_summary_free(s);
    return j;
}

cJSON *analyze_json(const pc_trace *t, const pc_analyze_opts *o) { return summary_json(pc_analyze(t, o)); }

cJSON *fixture_summary(const char *path) {
    pc_trace *t = NULL;
    pc_err err = {0};
    if (pc_load(path, NULL, &t, &err)) return NULL;
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    return s;
}

int summaries_in_dir(const char *dir, pc_summary **sums, int max) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (!strstr(e->d_name, ".json")) continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        pc_trace *t = NULL;
        pc_err err = {0};
        if (pc_load(p, NULL, &t, &err) == 0) sums[n++] = pc_analyze(t, NULL);
        pc_trace_free(t);
    }
    closedir(d);
    return n;
}

const cJSON *finding_of(const cJSON *s, const char *rule) {
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "suggestions.rows")) if (!strcmp(sj_getstr(r, "rule", ""), rule)) return r;
    return NULL;
}

pc_summary *summary_of(const cJSON *doc) {
    pc_summary *s = NULL;
    pc_err err = {0};
    char note[256];
    if (pc_summary_validate(doc, &s, note, sizeof note, &err)) return NULL;
    return s;
}
