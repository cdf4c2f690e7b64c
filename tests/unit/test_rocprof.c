/* rocprofv3's JSON output (src/load/rocprof.c) and the formats pc_load names
 * but does not read (src/load/load.c).
 *
 * The real output, tests/data/real/rocprofv3-mi350x-train/908_results.json.gz (its
 * README says where it comes from), is checked against the independent sums
 * of tests/expectations/rocprof_kernels.py (figures in
 * tests/expectations/rocprof-mi350x.md). The hand-written document below
 * has every record kind; its expected values are worked out from its text
 * in the comments. */
#include "test.h"
#include "load/load.h"
#include "load/rocprof.h"
#include "util/hmap.h"
#include <stdlib.h>
#include <stdio.h>

static const char *REAL = "tests/data/real/rocprofv3-mi350x-train/908_results.json.gz";

static int64_t sum_name(const pc_trace *t, const char *name, int64_t *count) {
    int64_t ns = 0;
    *count = 0;
    for (size_t i = 0; i < t->ngpu; i++)
        if (t->gpu[i].kind == GPU_KERNEL && !strcmp(strtab_get(&t->strs, t->gpu[i].name), name)) ns += t->gpu[i].dur, ++*count;
    return ns;
}

/* the totals rocprof_kernels.py prints for the real file */
TEST(rocprof_real_kernel_totals) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(REAL, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_S(strtab_get(&t->strs, t->source_format), "rocprofv3-json");
    CHECK_EQ_I(t->truncated, 0);
    CHECK_EQ_I(t->stats.bad_fields, 0);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 43915);
    int64_t total = 0;
    hmap names = {0};
    for (size_t i = 0; i < t->ngpu; i++) {
        int created;
        total += t->gpu[i].dur;
        hmap_get(&names, t->gpu[i].name, &created);
        CHECK_EQ_I(t->gpu[i].device, 0); /* every dispatch is on agent 37946, gpu_index 0 */
    }
    CHECK_EQ_I(names.n, 80);
    hmap_free(&names);
    CHECK_EQ_I(total, 4441741378);
    CHECK_EQ_I(t->t_max - t->t_min, 15122023494); /* first start to last end */
    int64_t n;
    CHECK_EQ_I(sum_name(t, "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", &n), 4158756678);
    CHECK_EQ_I(n, 1310);
    CHECK_EQ_I(sum_name(t,
                        "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256_MI16x16x1_SN_LDSB1_AFC0_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
                        "DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSU0_GSUAMB_GLS0_ISA950_IU1_K1_LDSTI0_LBSPPA1024_"
                        "LBSPPB512_LBSPPM0_LPA32_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT2_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS0_"
                        "NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW2_SK3_SKFTR0_SKXCCM0_TLDS1_ULSGRO0_USL1_"
                        "UIOFGRO0_USFGRO0_VSn1_VWA2_VWB1_WSGRA0_WSGRB0_WS64_WG32_8_1",
                        &n),
                16994139);
    CHECK_EQ_I(n, 1250);
    CHECK_EQ_I(sum_name(t, "__amd_rocclr_fillBufferAligned", &n) > 0, 1); /* ".kd" stripped */
    CHECK_EQ_I(t->ndev, 8); /* the 8 GPU agents (2 CPU agents are not devices) */
    CHECK_EQ_S(strtab_get(&t->strs, t->dev[0].name), "AMD Instinct MI350X");
    CHECK_EQ_I(t->dev[0].num_sms, 256);
    CHECK_EQ_I(t->dev[0].total_mem, 309220868096);
    CHECK_EQ_I(t->dev[0].warp_size, 64);
    pc_trace_free(t);
}

/* the whole process is one 37.5 MB JSON value: it is streamed, one record at
 * a time, even with a window of 1 MiB */
TEST(rocprof_real_streams_past_max_value) {
    pc_load_opts o = {.max_value = 1 << 20};
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(REAL, &o, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 43915);
    CHECK_EQ_I(t->stats.bytes, 37455763); /* zcat | wc -c */
    pc_trace_free(t);
}

/* ---------- a hand-written document with every record kind ---------- */

static const char *AGENTS =
    "\"agents\": [{\"id\": {\"handle\": 11}, \"type\": 1, \"name\": \"CPU\", \"product_name\": \"AMD EPYC\", \"cu_count\": 64,"
    " \"gpu_index\": -1},\n"
    " {\"id\": {\"handle\": 12}, \"type\": 2, \"name\": \"gfx942\", \"product_name\": \"\", \"cu_count\": 304, \"wave_front_size\": 64,"
    " \"gpu_index\": 0, \"mem_banks\": [{\"heap_type\": 1, \"size_in_bytes\": 206141652992}]},\n"
    " {\"id\": {\"handle\": 13}, \"type\": 2, \"name\": \"gfx942\", \"product_name\": \"AMD Instinct MI300X\", \"cu_count\": 304,"
    " \"wave_front_size\": 64, \"gpu_index\": 1}]";
static const char *STRINGS =
    "\"strings\": {\"callback_records\": [], \"buffer_records\": [{\"kind\": \"NONE\", \"operations\": []},"
    " {\"kind\": \"HIP_RUNTIME_API\", \"operations\": [\"hipMemcpyAsync\", \"hipLaunchKernel\"]},"
    " {\"kind\": \"MEMORY_COPY\", \"operations\": [\"MEMORY_COPY_NONE\", \"MEMORY_COPY_HOST_TO_DEVICE\", \"MEMORY_COPY_DEVICE_TO_HOST\","
    " \"MEMORY_COPY_DEVICE_TO_DEVICE\"]},"
    " {\"kind\": \"MARKER_CORE_RANGE_API\", \"operations\": [\"roctxMarkA\", \"roctxThreadRangeA\"]},"
    " {\"kind\": \"RCCL_API\", \"operations\": [\"ncclAllReduce\"]}],\n"
    " \"marker_api\": [{\"key\": 7, \"value\": \"forward\"}, {\"key\": 8, \"value\": \"ProfilerStep#3\"}, {\"key\": 9, \"value\": \"a mark\"}],"
    " \"pc_sample_instructions\": [\"s_nop 0\", [1, {\"x\": [2]}]]}";
static const char *SYMBOLS =
    "\"kernel_symbols\": [{\"kernel_id\": 0, \"kernel_name\": \"\"},"
    " {\"kernel_id\": 5, \"kernel_name\": \"_Z4gemmPf.kd\", \"formatted_kernel_name\": \"gemm(float*)\","
    " \"demangled_kernel_name\": \"gemm(float*) [clone .kd]\"},"
    " {\"kernel_id\": 6, \"kernel_name\": \"_Z3addv.kd\", \"demangled_kernel_name\": \"add() [clone .kd]\"},"
    " {\"kernel_id\": 7, \"kernel_name\": \"__amd_rocclr_copyBuffer.kd\"}]";
static const char *METADATA = "\"metadata\": {\"pid\": 4242, \"init_time\": 900, \"fini_time\": 100000, \"command\": [\"python\"]}";
static const char *RECORDS =
    "\"buffer_records\": {\"kernel_dispatch\": [\n"
    "{\"kind\": 11, \"operation\": 2, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 2, \"external\": 0},"
    " \"start_timestamp\": 1000, \"end_timestamp\": 1500, \"dispatch_info\": {\"agent_id\": {\"handle\": 12}, \"queue_id\": {\"handle\": 3},"
    " \"kernel_id\": 5, \"group_segment_size\": 4096, \"workgroup_size\": {\"x\": 256, \"y\": 1, \"z\": 1},"
    " \"grid_size\": {\"x\": 1000, \"y\": 2, \"z\": 1}}, \"stream_id\": {\"handle\": 9}},\n"
    "{\"kind\": 11, \"operation\": 2, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 3, \"external\": 77},"
    " \"start_timestamp\": 1600, \"end_timestamp\": 1700, \"dispatch_info\": {\"agent_id\": {\"handle\": 13}, \"queue_id\": {\"handle\": 4},"
    " \"kernel_id\": 6, \"workgroup_size\": {\"x\": 64, \"y\": 1, \"z\": 1}, \"grid_size\": {\"x\": 64, \"y\": 1, \"z\": 1}}},\n"
    "{\"kind\": 11, \"operation\": 2, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 5, \"external\": 0},"
    " \"start_timestamp\": 1800, \"end_timestamp\": 1850, \"dispatch_info\": {\"agent_id\": {\"handle\": 12}, \"queue_id\": {\"handle\": 3},"
    " \"kernel_id\": 7}}],\n"
    "\"hip_api\": [{\"kind\": 1, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 2, \"external\": 0},"
    " \"start_timestamp\": 950, \"end_timestamp\": 990},"
    " {\"kind\": 1, \"operation\": 0, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 4, \"external\": 0},"
    " \"start_timestamp\": 2000, \"end_timestamp\": 2100}],\n"
    "\"hsa_api\": [],\n"
    "\"marker_api\": [{\"kind\": 3, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 7, \"external\": 0},"
    " \"start_timestamp\": 900, \"end_timestamp\": 1900},"
    " {\"kind\": 3, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 8, \"external\": 0},"
    " \"start_timestamp\": 800, \"end_timestamp\": 2500},"
    " {\"kind\": 3, \"operation\": 0, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 9, \"external\": 0},"
    " \"start_timestamp\": 1200, \"end_timestamp\": 1200}],\n"
    "\"rccl_api\": [{\"kind\": 4, \"operation\": 0, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 10, \"external\": 0},"
    " \"start_timestamp\": 2200, \"end_timestamp\": 2300}],\n"
    "\"memory_copy\": [{\"kind\": 2, \"operation\": 1, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 4, \"external\": 0},"
    " \"start_timestamp\": 2050, \"end_timestamp\": 2150, \"dst_agent_id\": {\"handle\": 12}, \"src_agent_id\": {\"handle\": 11},"
    " \"bytes\": 1048576},"
    " {\"kind\": 2, \"operation\": 3, \"thread_id\": 4243, \"correlation_id\": {\"internal\": 11, \"external\": 0},"
    " \"start_timestamp\": 2400, \"end_timestamp\": 2450, \"dst_agent_id\": {\"handle\": 13}, \"src_agent_id\": {\"handle\": 12},"
    " \"bytes\": 4096}],\n"
    "\"scratch_memory\": [{\"kind\": 9, \"operation\": 1, \"start_timestamp\": 1, \"end_timestamp\": 2}],\n"
    "\"pc_sample_host_trap\": []}";

/* the document with its members in rocprofv3's order, or sorted by key as
 * `jq -S` writes it (records before the tables that name them) */
static char *doc(int sorted) {
    char *s = malloc(16384);
    if (sorted)
        snprintf(s, 16384, "{\"rocprofiler-sdk-tool\": [{%s,\n%s,\n%s,\n%s,\n%s}]}\n", AGENTS, RECORDS, SYMBOLS, METADATA, STRINGS);
    else snprintf(s, 16384, "{\"rocprofiler-sdk-tool\": [{%s,\n%s,\n%s,\n%s,\n%s}]}\n", METADATA, AGENTS, STRINGS, SYMBOLS, RECORDS);
    return s;
}

static const pc_gpu_event *gpu_named(const pc_trace *t, const char *name) {
    for (size_t i = 0; i < t->ngpu; i++)
        if (!strcmp(strtab_get(&t->strs, t->gpu[i].name), name)) return &t->gpu[i];
    return NULL;
}
static const pc_cpu_event *cpu_named(const pc_trace *t, const char *name) {
    for (size_t i = 0; i < t->ncpu; i++)
        if (!strcmp(strtab_get(&t->strs, t->cpu[i].name), name)) return &t->cpu[i];
    return NULL;
}

static void check_doc(int sorted) {
    char *d = doc(sorted);
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load_rocprof_mem(d, strlen(d), 0, &t, &err);
    free(d);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_EQ_I(t->truncated, 0);
    CHECK_EQ_I(t->stats.bad_fields, 0);
    CHECK_EQ_I(t->stats.events, 12); /* 3 kernels, 2 HIP calls, 3 markers, 1 RCCL call, 2 copies, 1 scratch */
    CHECK_EQ_I(t->stats.metadata, 1);  /* the roctx mark (start == end) */
    CHECK_EQ_I(pc_trace_unknown_count(t, "scratch_memory"), 1);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 3);
    CHECK_EQ_I(t->count_gpu[GPU_MEMCPY], 2);
    /* gemm: 1000..1500 on agent 12 (gpu_index 0), stream_id 9; 1000 work-items in
     * workgroups of 256 are 4 workgroups (ceil), y 2 / 1 = 2 */
    const pc_gpu_event *g = gpu_named(t, "gemm(float*)");
    CHECK(g);
    CHECK_EQ_I(g->ts, 1000); CHECK_EQ_I(g->dur, 500);
    CHECK_EQ_I(g->device, 0); CHECK_EQ_I(g->stream, 9); CHECK_EQ_I(g->corr, 2); CHECK_EQ_I(g->ext_id, PC_NONE);
    CHECK_EQ_I(g->grid[0], 4); CHECK_EQ_I(g->grid[1], 2); CHECK_EQ_I(g->grid[2], 1);
    CHECK_EQ_I(g->block[0], 256); CHECK_EQ_I(g->smem, 4096);
    /* add: the demangled name without " [clone .kd]"; agent 13 is device 1; no
     * stream_id: its queue, 4; external correlation 77 */
    g = gpu_named(t, "add()");
    CHECK(g);
    CHECK_EQ_I(g->device, 1); CHECK_EQ_I(g->stream, 4); CHECK_EQ_I(g->ext_id, 77); CHECK_EQ_I(g->dur, 100);
    CHECK(gpu_named(t, "__amd_rocclr_copyBuffer"));
    /* copies: host (agent 11) to device 0; device 0 to device 1 is peer to peer */
    g = gpu_named(t, "Memcpy HtoD (Unknown -> Device)");
    CHECK(g);
    CHECK_EQ_I(g->bytes, 1048576); CHECK_EQ_I(g->device, 0); CHECK_EQ_I(g->copy_kind, COPY_HTOD); CHECK_EQ_I(g->dur, 100);
    g = gpu_named(t, "Memcpy PtoP (Device -> Device)");
    CHECK(g);
    CHECK_EQ_I(g->bytes, 4096); CHECK_EQ_I(g->device, 1);
    /* host side: HIP calls are the runtime, correlated with their kernel */
    const pc_cpu_event *c = cpu_named(t, "hipLaunchKernel");
    CHECK(c);
    CHECK_EQ_I(c->kind, CPU_RUNTIME); CHECK_EQ_I(c->ts, 950); CHECK_EQ_I(c->dur, 40); CHECK_EQ_I(c->corr, 2);
    CHECK_EQ_I(c->tid, 4243); CHECK_EQ_I(c->pid, sorted ? 0 : 4242); /* sorted: metadata comes after the records */
    CHECK(cpu_named(t, "hipMemcpyAsync"));
    c = cpu_named(t, "forward");
    CHECK(c);
    CHECK_EQ_I(c->kind, CPU_OP); CHECK_EQ_I(c->flags, PC_CPU_NVTX); CHECK_EQ_I(c->ts, 900); CHECK_EQ_I(c->dur, 1000);
    c = cpu_named(t, "ProfilerStep#3");
    CHECK(c);
    CHECK_EQ_I(c->kind, CPU_USER_ANNOT); CHECK_EQ_I(c->dur, 1700);
    CHECK(!cpu_named(t, "a mark"));
    c = cpu_named(t, "ncclAllReduce");
    CHECK(c);
    CHECK_EQ_I(c->kind, CPU_OP); CHECK_EQ_I(c->dur, 100);
    CHECK_EQ_I(t->ncpu, 5);
    /* devices: agent 12 has no product name: its target; 192 GiB from its memory bank */
    CHECK_EQ_I(t->ndev, 2);
    CHECK_EQ_S(strtab_get(&t->strs, t->dev[0].name), "gfx942");
    CHECK_EQ_I(t->dev[0].num_sms, 304); CHECK_EQ_I(t->dev[0].total_mem, 206141652992);
    CHECK_EQ_S(strtab_get(&t->strs, t->dev[1].name), "AMD Instinct MI300X");
    CHECK_EQ_I(t->t_min, 800); CHECK_EQ_I(t->t_max, 2500);
    pc_trace_free(t);
}

TEST(rocprof_every_record_kind) { check_doc(0); }
TEST(rocprof_keys_sorted_names_resolved_late) { check_doc(1); }

/* ---------- hostile variants ---------- */

/* Cut anywhere: never a crash; a cut inside the process keeps every
 * complete record and says where the complete data ends (exit 3), a cut
 * before any is at worst an error with an offset. */
TEST(rocprof_cut_everywhere) {
    char *d = doc(0);
    size_t n = strlen(d);
    /* the end of the second kernel record: complete up to its '}' */
    const char *second = strstr(d, "\"internal\": 3");
    const char *end2 = strstr(second, "}}},\n") + 3;
    for (size_t cut = 0; cut < n; cut++) {
        pc_trace *t = NULL;
        pc_err err = {0};
        int rc = pc_load_rocprof_mem(d, cut, 0, &t, &err);
        if (rc) {
            CHECK_MSG(strstr(err.msg, "at byte") || strstr(err.msg, "rocprofv3"), "cut %zu: %s", cut, err.msg);
            continue;
        }
        CHECK_MSG(cut + 2 >= n || t->truncated, "cut %zu read as complete", cut);
        CHECK(t->truncated_at <= cut);
        if (cut == (size_t)(end2 - d) + 1) { /* just after the ',' that follows it */
            CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 2);
            CHECK_EQ_I(t->truncated_at, end2 - d);
        }
        pc_trace_free(t);
    }
    free(d);
}

/* a kernel name of 17 MiB: one record larger than the window's 16 MiB limit
 * is refused with the offset of the record */
TEST(rocprof_huge_string) {
    size_t big = (size_t)17 << 20;
    const char *pre = "{\"rocprofiler-sdk-tool\": [{\"kernel_symbols\": [{\"kernel_id\": 5, \"kernel_name\": \"";
    const char *post = "\"}]}]}";
    size_t n = strlen(pre) + big + strlen(post);
    char *d = malloc(n + 1);
    memcpy(d, pre, strlen(pre));
    memset(d + strlen(pre), 'k', big);
    memcpy(d + strlen(pre) + big, post, strlen(post) + 1);
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load_rocprof_mem(d, n, 0, &t, &err);
    free(d);
    CHECK_EQ_I(rc, PC_EINPUT);
    CHECK(!t);
    char want[64];
    snprintf(want, sizeof want, "larger than 16 MiB at byte %zu", strlen("{\"rocprofiler-sdk-tool\": [{\"kernel_symbols\": ["));
    CHECK_MSG(strstr(err.msg, want), "%s", err.msg);
}

static int load_text(const char *text, pc_trace **t, pc_err *err) { return pc_load_rocprof_mem(text, strlen(text), 0, t, err); }

/* wrong types: a field of a record is skipped with its record and counted
 * (exit 3), a structure that is not what rocprofv3 writes is an error at its
 * byte (exit 2) */
TEST(rocprof_wrong_types) {
    pc_trace *t = NULL;
    pc_err err = {0};
    const char *rec = "{\"rocprofiler-sdk-tool\": [{\"kernel_symbols\": [{\"kernel_id\": 5, \"kernel_name\": \"k\"}],"
                      " \"buffer_records\": {\"kernel_dispatch\": ["
                      "{\"start_timestamp\": \"10\", \"end_timestamp\": 20, \"dispatch_info\": {\"kernel_id\": 5}},"
                      "{\"start_timestamp\": 10, \"end_timestamp\": 20, \"dispatch_info\": {\"kernel_id\": \"5\"}},"
                      "{\"start_timestamp\": 30, \"end_timestamp\": 20, \"dispatch_info\": {\"kernel_id\": 5}},"
                      "{\"start_timestamp\": 1e400, \"end_timestamp\": 99999999999999999999, \"dispatch_info\": {\"kernel_id\": 5}},"
                      "[1, 2], 7,"
                      "{\"start_timestamp\": 40, \"end_timestamp\": 45, \"dispatch_info\": {\"kernel_id\": 5}}]}}]}";
    CHECK_MSG(load_text(rec, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 1);
    CHECK_EQ_I(t->gpu[0].ts, 40);
    CHECK_EQ_I(t->stats.bad_fields, 6); /* string ts, string id, end before start, out of range, an array, a number */
    pc_trace_free(t);
    const char *arr = "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"kernel_dispatch\": {\"a\": 1}}}]}";
    CHECK_EQ_I(load_text(arr, &t, &err), PC_EINPUT);
    char want[80];
    snprintf(want, sizeof want, "not an array at byte %zu", strstr(arr, "{\"a\"") - arr);
    CHECK_MSG(strstr(err.msg, want), "%s", err.msg);
    CHECK_EQ_I(load_text("{\"rocprofiler-sdk-tool\": {\"x\": 1}}", &t, &err), PC_EINPUT);
    CHECK_MSG(strstr(err.msg, "\"rocprofiler-sdk-tool\" is not an array at byte 25"), "%s", err.msg);
    CHECK_EQ_I(load_text("{\"rocprofiler-sdk-tool\": [3]}", &t, &err), PC_EINPUT);
    CHECK_MSG(strstr(err.msg, "process is not an object at byte 26"), "%s", err.msg);
    CHECK_EQ_I(load_text("{\"rocprofiler-sdk-tool\": []} x", &t, &err), PC_EINPUT);
    CHECK_MSG(strstr(err.msg, "after the end of the JSON document at byte 29"), "%s", err.msg);
    CHECK_EQ_I(load_text("{\"rocprofiler-sdk-tool\": [{\"agents\": [}]}", &t, &err), PC_EINPUT);
    CHECK_MSG(strstr(err.msg, "at byte 38"), "%s", err.msg);
}

/* kernels and no kernel_symbols table, API calls and no strings: malformed */
TEST(rocprof_missing_tables) {
    pc_trace *t = NULL;
    pc_err err = {0};
    const char *k = "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"kernel_dispatch\": ["
                    "{\"start_timestamp\": 10, \"end_timestamp\": 20, \"dispatch_info\": {\"kernel_id\": 5}}]}}]}";
    CHECK_EQ_I(load_text(k, &t, &err), PC_EINPUT);
    CHECK(!t);
    CHECK_MSG(strstr(err.msg, "without its kernel_symbols table: 1 of its records cannot be named") && strstr(err.msg, "at byte 26"), "%s",
              err.msg);
    const char *h = "{\"rocprofiler-sdk-tool\": [{\"buffer_records\": {\"hip_api\": ["
                    "{\"kind\": 1, \"operation\": 3, \"start_timestamp\": 10, \"end_timestamp\": 20}]}}]}";
    CHECK_EQ_I(load_text(h, &t, &err), PC_EINPUT);
    CHECK_MSG(strstr(err.msg, "without its strings.buffer_records table"), "%s", err.msg);
    /* a table without the entry: the record keeps a name that says so, counted invalid (exit 3) */
    const char *one = "{\"rocprofiler-sdk-tool\": [{\"kernel_symbols\": [], \"buffer_records\": {\"kernel_dispatch\": ["
                      "{\"start_timestamp\": 10, \"end_timestamp\": 20, \"dispatch_info\": {\"kernel_id\": 5}}]}}]}";
    CHECK_MSG(load_text(one, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_S(strtab_get(&t->strs, t->gpu[0].name), "kernel_id 5 (no symbol)");
    CHECK_EQ_I(t->stats.bad_fields, 1);
    pc_trace_free(t);
}

TEST(rocprof_sniff_heads) {
    CHECK(rocprof_sniff((const unsigned char *)"{\"rocprofiler-sdk-tool\":[", 25));
    CHECK(rocprof_sniff((const unsigned char *)"\xEF\xBB\xBF \n{\n    \"rocprofiler-sdk-tool\": [", 41));
    CHECK(!rocprof_sniff((const unsigned char *)"{\"traceEvents\": [", 17));
    CHECK(!rocprof_sniff((const unsigned char *)"{\"rocprofiler-sdk", 17));
    CHECK(!rocprof_sniff((const unsigned char *)"[{\"rocprofiler-sdk-tool\": 1}]", 29));
}

/* ---------- formats pc_load names and does not read ---------- */

static void unsupported_case(const char *name, const void *bytes, size_t n, const char *starts) {
    char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    CHECK(f);
    fwrite(bytes, 1, n, f);
    fclose(f);
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load(p, NULL, &t, &err);
    free(p);
    CHECK_MSG(rc == PC_EUNSUP, "%s: rc %d: %s", name, rc, err.msg);
    CHECK(!t);
    CHECK_MSG(!strncmp(err.msg, starts, strlen(starts)) && strstr(err.msg, " is not supported: "), "%s: %s", name, err.msg);
}

TEST(unsupported_ncu_report) {
    static const unsigned char h[] = {'N', 'V', 'R', 0, 0x10, 0, 0, 0, 0x0a, 0x02, 0x08, 0x01};
    unsupported_case("report.ncu-rep", h, sizeof h, "an Nsight Compute report");
}

TEST(unsupported_pytorch_execution_trace) {
    const char *et = "{\n  \"schema\": \"1.0.2-chakra.0.0.4\", \"pid\": 1234, \"time\": \"2024-01-01 00:00:00\", \"start_ts\": 5,\n"
                     "  \"nodes\": [{\"id\": 1, \"name\": \"[pytorch|profiler|execution_trace|process]\"}]}";
    unsupported_case("et.json", et, strlen(et), "a PyTorch execution trace");
}

TEST(unsupported_rocprof_v1_csv) {
    const char *v1 = "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\",\"grd\",\"wgr\",\"lds\",\"scr\","
                     "\"arch_vgpr\",\"accum_vgpr\",\"sgpr\",\"wave_size\",\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\"\n"
                     "0,\"k()\",2,0,0,1,1,64,64,0,0,8,0,16,64,\"0x0\",\"0x0\",1,2,3,4\n";
    unsupported_case("results.csv", v1, strlen(v1), "a rocprof CSV");
    const char *stats = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"k()\",1,5,5,100.0\n";
    unsupported_case("results.stats.csv", stats, strlen(stats), "a rocprof CSV");
}

TEST(unsupported_rocprofv3_csv) {
    const char *v3 = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
                     "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\"\n"
                     "\"KERNEL_DISPATCH\",\"Agent 4\",1,0,7,1,10,\"k()\",1,100,200,0\n";
    unsupported_case("kernel_trace.csv", v3, strlen(v3), "a rocprofv3 CSV");
}

TEST(unsupported_perfetto_trace) {
    static const unsigned char h[] = {0x0a, 0x15, 0x52, 0x13, 0x08, 0x01, 0x12, 0x0f, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05};
    unsupported_case("1234_results.pftrace", h, sizeof h, "a Perfetto trace");
}

#if PC_HAVE_SQLITE
#include <sqlite3.h>
/* rocpd: tables named rocpd_<table>_<uuid> (rocprofiler-sdk's rocpd_tables.sql) */
TEST(unsupported_rocpd_database) {
    char *p = tmp_path("results.db");
    sqlite3 *db;
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "CREATE TABLE rocpd_string_00112233 (id INTEGER PRIMARY KEY, string TEXT);"
                           "CREATE TABLE rocpd_kernel_dispatch_00112233 (id INTEGER PRIMARY KEY, start INTEGER, end INTEGER);",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load(p, NULL, &t, &err);
    free(p);
    CHECK_MSG(rc == PC_EUNSUP, "rc %d: %s", rc, err.msg);
    CHECK_MSG(!strncmp(err.msg, "a rocpd database", 16) && strstr(err.msg, " is not supported: "), "%s", err.msg);
}
#endif

/* Every byte of the hand-written document replaced by each of a few bytes
 * that change its structure: 0 or a PC_E* code with a message, never a
 * crash or a leak (the ASan pass of make test runs this). */
TEST(rocprof_mutations) {
    char *d = doc(0);
    size_t n = strlen(d);
    static const char subst[] = {'"', '{', '}', '[', ']', ',', ':', '9', '-', ' ', '\\', 'x', 0};
    int ok = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        char keep = d[i];
        for (size_t k = 0; k < sizeof subst; k++) {
            if (subst[k] == keep) continue;
            d[i] = subst[k];
            pc_trace *t = NULL;
            pc_err err = {0};
            int rc = pc_load_rocprof_mem(d, n, 0, &t, &err);
            CHECK_MSG(rc == 0 ? t != NULL : (t == NULL && err.msg[0] && (rc == PC_EINPUT || rc == PC_EUNSUP)), "byte %zu -> %d: rc %d", i,
                      subst[k], rc);
            if (rc == 0) ok++, pc_trace_free(t);
            else bad++;
        }
        d[i] = keep;
    }
    free(d);
    CHECK(ok > 0 && bad > 0);
}

/* two processes (rocprofv3 writes one object per process): each one's tables
 * name its own records; kernel id 5 is a different kernel in each */
TEST(rocprof_two_processes) {
    const char *d =
        "{\"rocprofiler-sdk-tool\": [\n"
        "{\"metadata\": {\"pid\": 100}, \"agents\": [{\"id\": {\"handle\": 1}, \"type\": 2, \"name\": \"gfx90a\", \"gpu_index\": 0}],"
        " \"kernel_symbols\": [{\"kernel_id\": 5, \"kernel_name\": \"a.kd\"}],"
        " \"buffer_records\": {\"kernel_dispatch\": [{\"start_timestamp\": 10, \"end_timestamp\": 20,"
        " \"dispatch_info\": {\"agent_id\": {\"handle\": 1}, \"kernel_id\": 5}}]}},\n"
        "{\"metadata\": {\"pid\": 200}, \"agents\": [{\"id\": {\"handle\": 7}, \"type\": 2, \"name\": \"gfx90a\", \"gpu_index\": 1}],"
        " \"kernel_symbols\": [{\"kernel_id\": 5, \"kernel_name\": \"b.kd\"}],"
        " \"strings\": {\"buffer_records\": [{\"kind\": \"NONE\", \"operations\": []}, {\"kind\": \"HIP_RUNTIME_API\", \"operations\": [\"hipFree\"]}]},"
        " \"buffer_records\": {\"kernel_dispatch\": [{\"start_timestamp\": 30, \"end_timestamp\": 45,"
        " \"dispatch_info\": {\"agent_id\": {\"handle\": 7}, \"kernel_id\": 5}}],"
        " \"hip_api\": [{\"kind\": 1, \"operation\": 0, \"thread_id\": 201, \"start_timestamp\": 25, \"end_timestamp\": 28}]}}]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_rocprof_mem(d, strlen(d), 0, &t, &err) == 0, "%s", err.msg);
    const pc_gpu_event *a = gpu_named(t, "a"), *b = gpu_named(t, "b");
    CHECK(a && b);
    CHECK_EQ_I(a->device, 0);
    CHECK_EQ_I(b->device, 1);
    CHECK_EQ_I(b->dur, 15);
    const pc_cpu_event *c = cpu_named(t, "hipFree");
    CHECK(c);
    CHECK_EQ_I(c->pid, 200);
    CHECK_EQ_I(c->tid, 201);
    CHECK_EQ_I(t->ndev, 2);
    pc_trace_free(t);
}

/* a UTF-8 byte order mark before the document (an editor's save) */
TEST(rocprof_bom) {
    const char *d = "\xEF\xBB\xBF{\"rocprofiler-sdk-tool\": [{\"kernel_symbols\": [{\"kernel_id\": 1, \"kernel_name\": \"k.kd\"}],"
                    " \"buffer_records\": {\"kernel_dispatch\": [{\"start_timestamp\": 5, \"end_timestamp\": 9, \"dispatch_info\": {\"kernel_id\": 1}}]}}]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_rocprof_mem(d, strlen(d), 0, &t, &err) == 0, "%s", err.msg);
    CHECK(gpu_named(t, "k"));
    CHECK_EQ_I(t->gpu[0].dur, 4);
    pc_trace_free(t);
}
