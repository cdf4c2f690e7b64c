/* A MindSpore profiler directory made by the project, with every file kind
 * perfcard reads, and figures worked out from the files by hand:
 *   step trace (10 ns ticks): 3 steps of 10000 ticks = 100 µs each; phases
 *     2000/6000/2000 ticks = 20/60/20 µs; a parallel stream of 500 ticks;
 *   kernel table: conv 2 calls 30 µs, relu 3 calls 6 µs;
 *   operator table: Conv2D-op1 30 µs, ReLU-op2 6 µs; type table Conv2D, ReLU;
 *   CPU samples: user 10, 30 -> 20 on average;
 *   device queue: sizes 5, 0, 64 at steps 1, 2, 3 with capacity 64:
 *     one empty step, one full;
 *   pipeline: Batch <- Map (output 95% used) <- TFReader: Batch's output 5% used
 *     with a full input: Batch is the bottleneck. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "load/load.h"
#include "summary/summary.h"
#include <stdlib.h>
#include <sys/stat.h>

static void put(const char *dir, const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) { fputs(text, f); fclose(f); }
}

TEST(mindspore_fixture_directory) {
    char *dir = tmp_path("ms");
    mkdir(dir, 0755);
    put(dir, "step_trace_raw_0_detail_time.csv",
        "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail,stream_5_parallel_0_start_point,stream_5_parallel_0_end_point,stream_5_parallel_0\n"
        "1,1000000,1010000,10000,1002000,1008000,2000,6000,2000,1008100,1008600,500\n"
        "2,1010000,1020000,10000,1012000,1018000,2000,6000,2000,1018100,1018600,500\n"
        "3,1020000,1030000,10000,1022000,1028000,2000,6000,2000,1028100,1028600,500\n");
    put(dir, "gpu_activity_data_0.csv",
        "name,type,op_full_name,stream_id,block_dim,grid_dim,occurrences,total_duration(us),avg_duration(us),max_duration(us),min_duration(us)\n"
        "conv_kernel,cuLaunchKernel,Default/Conv2D-op1,7,\"256,1,1\",\"80,1,1\",2,30.0,15.0,20.0,10.0\n"
        "relu_kernel,cuLaunchKernel,Default/ReLU-op2,7,\"128,1,1\",\"8,1,1\",3,6.0,2.0,3.0,1.0\n");
    put(dir, "gpu_op_detail_info_0.csv",
        "op_side,op_type,op_name,op_full_name,op_occurrences,op_total_time(us),op_avg_time(us),proportion,cuda_activity_cost_time(us),cuda_activity_call_count\n"
        "Device,Conv2D,Conv2D-op1,Default/Conv2D-op1,2,30.0,15.0,83.33,30.0,2\n"
        "Device,ReLU,ReLU-op2,Default/ReLU-op2,3,6.0,2.0,16.67,6.0,3\n");
    put(dir, "gpu_op_type_info_0.csv", "op_type,type_occurrences,total_time(us),proportion,avg_time(us)\nConv2D,2,30.0,83.33,15.0\nReLU,3,6.0,16.67,2.0\n");
    put(dir, "minddata_cpu_utilization_0.json",
        "{\"sampling_interval\": 1, \"time_stamp\": [1, 2], \"device_info\": {\"user_utilization\": [10, 30], \"sys_utilization\": [5, 5],"
        " \"io_utilization\": [0, 0], \"idle_utilization\": [85, 65]}, \"process_info\": {\"user_utilization\": [8, 20], \"sys_utilization\": [1, 1]}}");
    /* MindInsight's format: "1 <capacity> <step> <size> ..." sizes, "0 <sub> <step> <cost> ..." times */
    put(dir, "device_queue_profiling_0.txt", "0 1 1 4 10\n0 2 1 4 10\n1 64 1 5 10\n1 64 2 0 20\n0 0 2 7 20\n1 64 3 64 30\n");
    put(dir, "minddata_pipeline_raw_0.csv",
        "op_id,op_type,num_workers,output_queue_size,output_queue_average_size,output_queue_length,output_queue_usage_rate,sample_interval,parent_id,children_id\n"
        "0,Batch,4,\"[3, 3]\",3.2,64,0.05,10,,[1]\n"
        "1,Map,8,\"[60, 62]\",61.0,64,0.95,10,0,[2]\n"
        "2,TFReader,4,\"[60, 62]\",61.0,64,0.95,10,1,\n");
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(dir, NULL, &t, &err) == 0, "%s", err.msg);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_S(sj_getstr(s, "run.format", ""), "mindspore");
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.duration_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.iteration_interval_ns", -1), 20000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.fp_bp_ns", -1), 60000);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.tail_ns", -1), 20000);
    CHECK_EQ_S(sj_getstr(s, "steps.rows.1.phase_basis", ""), "input");
    CHECK_EQ_I(sj_getnum(s, "steps.rows.1.communication_ns", -1), 5000);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), 36000);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.name", ""), "conv_kernel");
    CHECK_EQ_I(sj_getnum(s, "kernels.devices.0.rows.0.min_ns", -1), 10000);
    CHECK_EQ_S(sj_getstr(s, "kernels.devices.0.rows.0.operator", ""), "Default/Conv2D-op1");
    CHECK_EQ_S(sj_getstr(s, "operators.rows.0.name", ""), "Default/Conv2D-op1");
    CHECK_EQ_I(sj_getnum(s, "operators.rows.0.device_total_ns", -1), 30000);
    CHECK_EQ_I(sj_getnum(s, "operators.rows.1.calls", -1), 3);
    CHECK_EQ_S(sj_getstr(s, "operator_types.rows.0.type", ""), "Conv2D");
    CHECK_NEAR(sj_getnum(s, "operator_types.rows.0.share_pct", -1), 100.0 * 30 / 36, 1e-9);
    CHECK_NEAR(sj_getnum(s, "cpu.average.user", -1), 20, 1e-9);
    CHECK_NEAR(sj_getnum(s, "cpu.average.process", -1), 15, 1e-9);
    CHECK_NEAR(sj_getnum(s, "queues.rows.0.capacity", -1), 64, 0);
    CHECK_EQ_I(sj_getnum(s, "queues.rows.0.empty_steps", -1), 1);
    CHECK_EQ_I(sj_getnum(s, "queues.rows.0.full_steps", -1), 1);
    CHECK(strstr(sj_getstr(s, "pipeline.rows.0.verdict", ""), "bottleneck") != NULL);
    CHECK_EQ_S(sj_getstr(s, "pipeline.rows.1.verdict", ""), "");
    int found = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "suggestions.rows")) found |= !strcmp(sj_getstr(r, "rule", ""), "pipeline_bottleneck");
    CHECK(found);
    cJSON_Delete(s);
    pc_trace_free(t);
    free(dir);
}

TEST(mindspore_malformed_files_do_not_crash) {
    char *dir = tmp_path("msbad");
    mkdir(dir, 0755);
    put(dir, "step_trace_raw_0_detail_time.csv", "step_num,start_point\n1,abc\n\"unterminated\n");
    put(dir, "minddata_cpu_utilization_0.json", "{\"device_info\": [1, 2");
    put(dir, "gpu_activity_data_0.csv", "name\nonly_a_name\n");
    put(dir, "device_queue_profiling_0.txt", "garbage\n0 1\n");
    pc_trace *t = NULL;
    pc_err err = {0};
    int rc = pc_load(dir, NULL, &t, &err);
    CHECK(rc == 0 || rc == PC_EINPUT);
    if (t) {
        cJSON *s = analyze_json(t, NULL);
        cJSON_Delete(s);
        pc_trace_free(t);
    }
    free(dir);
}

TEST(mindspore_timeline_stream_ids_as_numbers) {
    /* gpu_timeline_display: a kernel's row is its stream, written "17" or 17; "Ops" is the host */
    char *dir = tmp_path("ms_tl");
    mkdir(dir, 0755);
    put(dir, "gpu_timeline_display_0.json",
        "[{\"name\": \"Default/Conv2D-op1\", \"ph\": \"X\", \"tid\": \"Ops\", \"ts\": 1000.0, \"dur\": 50.0, \"pid\": 0},"
        "{\"name\": \"conv_kernel\", \"ph\": \"X\", \"tid\": 17, \"ts\": 1010.0, \"dur\": 20.0, \"pid\": 0, \"args\": {\"op_full_name\": \"Default/Conv2D-op1\"}},"
        "{\"name\": \"relu_kernel\", \"ph\": \"X\", \"tid\": \"17\", \"ts\": 1040.0, \"dur\": 5.0, \"pid\": 0, \"args\": {\"op_full_name\": \"Default/Conv2D-op1\"}}]");
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(dir, NULL, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_I(t->count_gpu[GPU_KERNEL], 2);
    CHECK_EQ_I(t->count_cpu[CPU_OP], 1);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), 25000);
    cJSON_Delete(s);
    pc_trace_free(t);
    free(dir);
}

/* tests/expectations/mindspore-gpu-timeline.md: a MindSpore 2.x GPU timeline whose
 * Steps lane (tid 100000) holds the steps, each from the trace's start to its end,
 * beside a scope lane (100001), operator lanes (100002, 100003) and overlap-analysis
 * rows (pid 12000): only the 7 kernels on streams 7 and 8 are GPU work. */
TEST(mindspore_gpu_timeline_steps_lane) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load("tests/fixtures/ms_gpu_steps", NULL, &t, &err) == 0, "%s", err.msg);
    if (!t) return;
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    CHECK(strstr(sj_getstr(s, "steps.source", ""), "Steps lane") != NULL);
    static const double start[] = {0, 10e6, 22e6}, dur[] = {10e6, 12e6, 8e6}, kern[] = {2.5e6, 4e6, 2.5e6};
    for (int i = 0; i < 3; i++) {
        char p[64];
        snprintf(p, sizeof p, "steps.rows.%d.number", i);
        CHECK_EQ_I(sj_getnum(s, p, -1), i + 1);
        snprintf(p, sizeof p, "steps.rows.%d.start_ns", i);
        CHECK_EQ_I(sj_getnum(s, p, -1), start[i]);
        snprintf(p, sizeof p, "steps.rows.%d.duration_ns", i);
        CHECK_EQ_I(sj_getnum(s, p, -1), dur[i]);
        snprintf(p, sizeof p, "steps.rows.%d.breakdown.kernel_ns", i);
        CHECK_NEAR(sj_getnum(s, p, -1), kern[i], 0.5);
    }
    CHECK_EQ_I(sj_getnum(s, "steps.median_ns", -1), 10000000);
    CHECK_EQ_I(sj_getnum(s, "kernels.calls", -1), 7);
    CHECK_EQ_I(sj_getnum(s, "kernels.total_ns", -1), 9000000);
    CHECK_EQ_I(sj_getnum(s, "gpu.devices.0.busy_ns", -1), 9000000);
    CHECK_NEAR(sj_getnum(s, "gpu.devices.0.utilization_pct", -1), 30.0, 1e-9);
    CHECK_EQ_I(t->count_cpu[CPU_OP], 8);
    /* the one finding: the GPU idle 21 of 30 ms, 7 ms per step (steps vary, CV 20%, but the
     * mean is the median: no slow step to give back) */
    CHECK_EQ_I(sj_getnum(s, "suggestions.count", -1), 1);
    CHECK_EQ_S(sj_getstr(s, "suggestions.rows.0.rule", ""), "gpu_utilization");
    CHECK_NEAR(sj_getnum(s, "suggestions.rows.0.at_stake_ns", -1), 7e6, 0.5);
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "kernels.devices.0.rows")) {
        const char *n = sj_getstr(r, "name", "");
        CHECK_MSG(!strcmp(n, "conv_kernel") || !strcmp(n, "relu_kernel") || !strcmp(n, "gemm_kernel"), "kernel %s", n);
    }
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* #32 / findings.tsv's MindSpore profiler row: with the step trace's phases and the timeline's
 * kernels on another clock, the device's busy share of the steps is the step trace's, not the
 * timeline's. Hand-made (10 ns ticks): 3 steps of 10,000,000 ticks (100 ms), each iteration
 * interval 60 ms, forward+backward 30 ms, tail 10 ms; the timeline (host clock) holds 2 kernels
 * of 1 ms 99 ms apart: 2% of its own 100 ms span.
 *   device busy in the steps = (30 + 10) / 100 = 40%; its idle is the 60 ms interval, which
 *   iteration_interval claims (60% of the step): nothing is left, so no gpu_utilization row.
 *   Before: the timeline's 2% was read as the steps' and the GPU-free pool held the whole step
 *   (no kernel on its clock): gpu_utilization took 40 ms more, "busy 2.0%" while fp+bp ran. */
TEST(mindspore_device_busy_from_step_trace) {
    char *dir = tmp_path("ms_busy");
    mkdir(dir, 0755);
    put(dir, "step_trace_raw_0_detail_time.csv",
        "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail\n"
        "1,45000000000,45010000000,10000000,45006000000,45009000000,6000000,3000000,1000000\n"
        "2,45010000000,45020000000,10000000,45016000000,45019000000,6000000,3000000,1000000\n"
        "3,45020000000,45030000000,10000000,45026000000,45029000000,6000000,3000000,1000000\n"
        "-,-,-,10000000,-,-,6000000,3000000,1000000\n");
    put(dir, "gpu_timeline_display_0.json",
        "[{\"name\": \"k1\", \"ph\": \"X\", \"tid\": \"7\", \"ts\": 1600695893269618, \"dur\": 1000, \"pid\": 0, \"args\": {\"type\": \"cuLaunchKernel\", \"op_full_name\": \"Default/A-op1\"}},"
        "{\"name\": \"k2\", \"ph\": \"X\", \"tid\": \"7\", \"ts\": 1600695893368618, \"dur\": 1000, \"pid\": 0, \"args\": {\"type\": \"cuLaunchKernel\", \"op_full_name\": \"Default/B-op2\"}}]");
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(dir, NULL, &t, &err) == 0, "%s", err.msg);
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 3);
    CHECK_NEAR(sj_getnum(s, "gpu.devices.0.utilization_pct", -1), 2, 1e-3); /* the timeline's own figure stays */
    const cJSON *ii = finding_of(s, "iteration_interval"), *gu = finding_of(s, "gpu_utilization");
    CHECK(ii);
    CHECK_NEAR(sj_getnum(ii, "at_stake_ns", -1), 60e6, 0.5);
    CHECK_MSG(!gu, "gpu_utilization fired: %s", sj_getstr(gu, "evidence", ""));
    cJSON_Delete(s);
    free(dir);
}

/* Each MindSpore file may start with a UTF-8 byte order mark (CSV written by
 * Excel or pandas' utf-8-sig): the header's first column is still found. The
 * step trace of mindspore_fixture_directory, one step of 10000 ticks (100 µs). */
TEST(mindspore_files_with_utf8_bom) {
    char *dir = tmp_path("ms_bom");
    mkdir(dir, 0755);
    put(dir, "step_trace_raw_0_detail_time.csv",
        "\xEF\xBB\xBFstep_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail\n"
        "1,1000000,1010000,10000,1002000,1008000,2000,6000,2000\n");
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load(dir, NULL, &t, &err) == 0, "%s", err.msg);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "steps.count", -1), 1);
    CHECK_EQ_I(sj_getnum(s, "steps.rows.0.duration_ns", -1), 100000);
    cJSON_Delete(s);
    pc_trace_free(t);
    free(dir);
}
