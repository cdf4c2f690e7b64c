/* Kernel families (src/analyze/kfamily.c) against tests/data/kernel_names.tsv: real kernel
 * names with their family, matrix-core flag, data type and communication library written by
 * hand from the libraries' facts; and the classifier on hostile strings. */
#include "test.h"
#include "analyze/kfamily.h"
#include "analyze/analyze.h"
#include "fixtures.h"
#include "load/load.h"
#include "summary/summary.h"
#include <stdlib.h>

/* one TSV line split in place into its 5 fields; 0 when it is not a row */
static int split_row(char *line, char *f[5]) {
    if (line[0] == '#' || line[0] == '\n' || !line[0]) return 0;
    line[strcspn(line, "\r\n")] = 0;
    for (int i = 0; i < 4; i++) {
        f[i] = line;
        char *tab = strchr(line, '\t');
        if (!tab) return 0;
        *tab = 0;
        line = tab + 1;
    }
    f[4] = line;
    return 1;
}

TEST(kfamily_real_kernel_names) {
    FILE *fp = fopen("tests/data/kernel_names.tsv", "r");
    CHECK_MSG(fp, "tests/data/kernel_names.tsv: run the tests from the project root");
    char line[8192];
    int rows = 0, bad = 0, fam_seen[KF_NFAMILY] = {0}, mc_yes = 0;
    while (fgets(line, sizeof line, fp)) {
        char *f[5];
        if (!split_row(line, f)) continue;
        rows++;
        kf_info k = kf_classify(f[4]);
        const char *dt = kf_dtype_name(k.dtype), *lib = kf_lib_name(k.lib);
        int ok = !strcmp(kf_family_name(k.family), f[0]) && !strcmp(kf_mc_name(k.mc), f[1]) &&
                 !strcmp(*dt ? dt : "-", f[2]) && !strcmp(*lib ? lib : "-", f[3]);
        if (!ok) {
            bad++;
            fprintf(stderr, "  kernel_names.tsv: %s\n    expected %s/%s/%s/%s, got %s/%s/%s/%s\n", f[4], f[0], f[1], f[2], f[3],
                    kf_family_name(k.family), kf_mc_name(k.mc), *dt ? dt : "-", *lib ? lib : "-");
        }
        fam_seen[k.family]++;
        mc_yes += k.mc == 1;
        /* the wired predicates say what the table says (kernel_uses_tensor_cores: kf_matrix_core's short cut) */
        CHECK_MSG(name_is_nccl(f[4]) == !strcmp(f[0], "communication"), "name_is_nccl(%s)", f[4]);
        CHECK_MSG(kernel_uses_tensor_cores(f[4]) == k.mc, "kernel_uses_tensor_cores(%s)", f[4]);
        CHECK_MSG(kf_comm_lib(f[4]) == k.lib, "kf_comm_lib(%s)", f[4]);
    }
    fclose(fp);
    CHECK_MSG(rows >= 200, "%d rows, at least 200 wanted", rows);
    for (int i = 0; i < KF_NFAMILY; i++) CHECK_MSG(fam_seen[i] > 0, "no row of family %s", kf_family_name(i));
    CHECK(mc_yes >= 40);
    CHECK_MSG(bad == 0, "%d of %d names classified otherwise than expected (listed above)", bad, rows);
}

/* a Triton kernel the name leaves open is a matrix product under a matmul operator */
TEST(kfamily_triton_by_launching_operator) {
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::mm"), 1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::addmm"), 1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::add_"), -1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", NULL), -1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::mmx"), -1);
    CHECK_EQ_I(kf_matrix_core_under("triton_poi_fused_add_0", "aten::mm"), 0); /* the name says: no tl.dot */
    CHECK_EQ_I(kf_matrix_core_under("volta_sgemm_128x64_nn", "aten::mm"), 0);
}

/* names of every byte, of 1 MiB, empty, NULL: an answer in range, no crash, no overrun */
TEST(kfamily_hostile_names) {
    kf_info k = kf_classify(NULL);
    CHECK(k.family == KF_OTHER && k.mc == 0 && k.dtype == KF_DT_NONE);
    k = kf_classify("");
    CHECK(k.family == KF_OTHER && k.mc == 0);
    uint32_t seed = 12345;
    char buf[600];
    for (int it = 0; it < 20000; it++) {
        size_t n = 0, len = (size_t)(seed % 599);
        for (; n < len; n++) {
            seed = seed * 1103515245u + 12345u;
            unsigned char c = (unsigned char)(seed >> 16);
            if (!c) c = 'x';
            /* every 4th string mixes in pattern fragments, to reach the rules' edges */
            if (it % 4 == 0 && (seed & 7) == 0) {
                static const char *const frag[] = {"Cijk_", "_MI", "nccl", "deep_ep::", "gemm", "fmha", "sm90", "triton_",
                                                   "(anonymous namespace)", "<", "(", "matmul_ogs_", "f16", "e4m3", "_"};
                const char *f = frag[(seed >> 8) % (sizeof frag / sizeof *frag)];
                size_t fl = strlen(f);
                if (n + fl >= len) break;
                memcpy(buf + n, f, fl);
                n += fl - 1;
                continue;
            }
            buf[n] = (char)c;
        }
        buf[n] = 0;
        k = kf_classify(buf);
        CHECK(k.family < KF_NFAMILY && k.dtype < KF_NDTYPE && k.lib < KF_NLIB && k.mc >= -1 && k.mc <= 1);
        CHECK((k.lib != KF_LIB_NONE) == (k.family == KF_COMM));
        CHECK(kf_comm_lib(buf) == k.lib);
        CHECK(kf_matrix_core(buf) == k.mc); /* its short cut answers as the full rules */
    }
    /* edges of the Tensile and matmul_ogs parsers */
    static const char *const edge[] = {"Cijk_", "Cijk_A", "Cijk_A_B", "Cijk_A_B_", "xCijk_A_B_F", "_MI", "Cijk__MI",
                                       "matmul_ogs_", "matmul_ogs_x", "matmul_ogs__", "(anonymous namespace)",
                                       "(anonymous namespace", "<", "(", "f16", "bf16", NULL};
    for (int i = 0; edge[i]; i++) {
        k = kf_classify(edge[i]);
        CHECK(k.family < KF_NFAMILY && k.dtype < KF_NDTYPE);
    }
    /* 1 MiB: heap-lowercased; a pattern at the very end is still seen */
    size_t big = 1 << 20;
    char *s = malloc(big + 1);
    CHECK(s);
    memset(s, 'a', big);
    memcpy(s + big - 4, "nccl", 4);
    s[big] = 0;
    k = kf_classify(s);
    int comm = k.family == KF_COMM && k.lib == KF_LIB_NCCL;
    memcpy(s + big - 4, "aaaa", 4);
    k = kf_classify(s);
    free(s);
    CHECK(comm);
    CHECK(k.family == KF_OTHER);
    CHECK_EQ_I(kf_matrix_core(NULL), 0);
    CHECK_EQ_S(kf_family_name(99), "other");
    CHECK_EQ_S(kf_dtype_name(-1), "");
    CHECK_EQ_S(kf_lib_name(99), "");
    CHECK_EQ_S(kf_family_label(KF_LAYOUT), "Layout / transpose");
}

/* kernels.families on a GPU-only trace (no CPU operator), against hand sums:
 * gemm: volta_sgemm 10 µs + sm80 xmma bf16 30 µs = 40 µs, 2 names, matrix cores 30/40 = 75%;
 * elementwise: one name twice, 20 + 20 = 40 µs; communication: the NCCL kernel 20 µs and the
 * peer-to-peer copy 5 µs = 25 µs, 2 names; copy: HtoD 15 µs. All: 120 µs. Ties (gemm and
 * elementwise at 40 µs) in family order. */
TEST(kfamily_table_for_gpu_only_trace) {
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm_128x64_nn\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 10, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize160x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 120, \"dur\": 30, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)\", \"pid\": 0, \"tid\": 8, \"ts\": 120, \"dur\": 20, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)\", \"pid\": 0, \"tid\": 7, \"ts\": 200, \"dur\": 20, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)\", \"pid\": 0, \"tid\": 7, \"ts\": 230, \"dur\": 20, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy PtoP (Device -> Device)\", \"pid\": 0, \"tid\": 9, \"ts\": 300, \"dur\": 5, \"args\": {\"device\": 0}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 9, \"ts\": 400, \"dur\": 15, \"args\": {\"device\": 0}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    static const struct { const char *family; int distinct, calls; long ns; double pct, mc; } want[] = {
        {"gemm", 2, 2, 40000, 100.0 * 40 / 120, 75},
        {"elementwise", 1, 2, 40000, 100.0 * 40 / 120, 0},
        {"communication", 2, 2, 25000, 100.0 * 25 / 120, 0},
        {"copy", 1, 1, 15000, 100.0 * 15 / 120, 0},
    };
    char path[64];
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "kernels.families.%d.family", i);
        CHECK_EQ_S(sj_getstr(s, path, ""), want[i].family);
        snprintf(path, sizeof path, "kernels.families.%d.distinct", i);
        CHECK_EQ_I(sj_getnum(s, path, -1), want[i].distinct);
        snprintf(path, sizeof path, "kernels.families.%d.calls", i);
        CHECK_EQ_I(sj_getnum(s, path, -1), want[i].calls);
        snprintf(path, sizeof path, "kernels.families.%d.time_ns", i);
        CHECK_EQ_I(sj_getnum(s, path, -1), want[i].ns);
        snprintf(path, sizeof path, "kernels.families.%d.time_pct", i);
        CHECK_NEAR(sj_getnum(s, path, -1), want[i].pct, 1e-9);
        snprintf(path, sizeof path, "kernels.families.%d.matrix_core_pct", i);
        CHECK_NEAR(sj_getnum(s, path, -1), want[i].mc, 1e-9);
    }
    CHECK(!sj_get(s, "kernels.families.4"));
    cJSON_Delete(s);
    pc_trace_free(t);

    /* with one CPU operator the operators' view is there: no family table */
    const char *ops =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 0, \"tid\": 1, \"ts\": 90, \"dur\": 5},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm_128x64_nn\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 10, \"args\": {\"device\": 0}}\n"
        "]}";
    CHECK(pc_load_kineto_mem(ops, strlen(ops), &t, &err) == 0);
    s = analyze_json(t, NULL);
    CHECK(sj_get(s, "kernels.total_ns") && !sj_get(s, "kernels.families"));
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* Communication by family in a step (µs): a DeepEP kernel on stream 9 at 100-300, a compute
 * kernel on stream 7 at 200-400, a peer-to-peer copy at 500-600, in ProfilerStep#1 [0, 1000).
 *   communication = DeepEP ∪ PtoP = 200 + 100 = 300; overlapped by the compute kernel: 200-300 = 100;
 *   breakdown: kernel 200-400 = 200 (first in priority), communication where nothing else runs:
 *   100-200 and 500-600 = 200, memcpy 0 (the PtoP copy is communication). Before issue #45 the
 *   DeepEP kernel was compute and the copy a memcpy: communication 0. */
TEST(kfamily_deepep_and_p2p_count_as_communication) {
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void deep_ep::internode::notify_dispatch<false, 4>(int const*, int*, int)\",\"pid\":0,\"tid\":9,\"ts\":100,\"dur\":200,\"args\":{\"device\":0,\"stream\":9}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K1\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":200,\"args\":{\"device\":0,\"stream\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy PtoP (Device -> Device)\",\"pid\":0,\"tid\":10,\"ts\":500,\"dur\":100,\"args\":{\"device\":0,\"stream\":10}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    pc_trace_free(t);
    const cJSON *a = sj_get(s, "steps.rows.0");
    CHECK(a);
    CHECK_EQ_I(sj_getnum(a, "communication_ns", -1), 300000);
    CHECK_EQ_I(sj_getnum(a, "communication_overlap_ns", -1), 100000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.kernel_ns", -1), 200000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.communication_ns", -1), 200000);
    CHECK_EQ_I(sj_getnum(a, "breakdown.memcpy_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(s, "communication.nccl_ns", -1), 300000);
    CHECK_EQ_I(sj_getnum(s, "communication.overlap_ns", -1), 100000);
    cJSON_Delete(s);
}
