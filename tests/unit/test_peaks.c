/* GPU peaks (analyze/peaks.h): every device found by the names the profilers
 * write (deviceProperties.name: cudaGetDeviceProperties / hipGetDeviceProperties;
 * nsys TARGET_INFO_GPU.name; nvprof's device name), and by its signature when
 * the name names no model. Expected figures are the vendors' (docs/gpu-peaks.md):
 * dense, i.e. half the "with sparsity" figures the datasheets print first. */
#include "test.h"
#include "fixtures.h"
#include "analyze/flops.h"
#include "analyze/peaks.h"
#include "load/load.h"
#include <math.h>
#include <stdlib.h>

#define GIB 1073741824LL

typedef struct named {
    const char *name;
    long long mem;     /* bytes the device reports (0: not given) */
    int sms;
    const char *label; /* the row expected */
    double bf16, fp8, mem_gbs; /* a few of its figures, from the datasheet */
} named;

/* Real names (as drivers print them) and the row each must find. Dense BF16
 * (or FP16 where BF16 is not supported), FP8 and bandwidth per datasheet:
 * dense = half of the sparse figure (H100 SXM FP8: 3958 sparse, 1978.9 dense). */
static const named NAMES[] = {
    {"NVIDIA H100 80GB HBM3", 85520809984LL, 132, "H100 SXM", 989.4, 1978.9, 3350},
    {"NVIDIA H100 PCIe", 85029158912LL, 114, "H100 PCIe", 756, 1513, 2000},
    {"NVIDIA H100 NVL", 100485038080LL, 132, "H100 NVL", 835, 1670, 3900},
    {"NVIDIA H800", 85029158912LL, 132, "H800 SXM", 989.4, 1978.9, 3350},
    {"NVIDIA H800 PCIe", 85029158912LL, 114, "H800 PCIe", 756, 1513, 2000},
    {"NVIDIA H20", 102005473280LL, 78, "H20", 148, 296, 4000},
    {"NVIDIA H200", 150754820096LL, 132, "H200 SXM", 989.4, 1978.9, 4800},
    {"NVIDIA H200 NVL", 150754820096LL, 132, "H200 NVL", 835.5, 1670.5, 4800},
    {"NVIDIA GH200 480GB", 102005473280LL, 132, "GH200 (96 GB HBM3)", 989.5, 1979, 4000},
    {"NVIDIA GH200 144G HBM3e", 154618822656LL, 132, "GH200 (144 GB HBM3e)", 989.5, 1979, 4900},
    {"NVIDIA B200", 191514279936LL, 148, "B200", 2250, 4500, 8000},
    {"NVIDIA B100", 0, 0, "B100", 1750, 3500, 8000},
    {"NVIDIA GB200", 0, 0, "GB200 (per GPU)", 2500, 5000, 8000},
    {"NVIDIA A100-SXM4-40GB", 42314694656LL, 108, "A100 40GB", 312, 0, 1555},
    {"NVIDIA A100-SXM4-80GB", 84990623744LL, 108, "A100 SXM4 80GB", 312, 0, 2039},
    {"NVIDIA A100-SXM4-80GB", 0, 0, "A100 SXM4 80GB", 312, 0, 2039}, /* memory not given: the name says 80GB */
    {"NVIDIA A100 80GB PCIe", 85899345920LL, 108, "A100 PCIe 80GB", 312, 0, 1935},
    {"NVIDIA A100-PCIE-40GB", 42505273344LL, 108, "A100 40GB", 312, 0, 1555},
    {"NVIDIA A100-PG509-200", 42505273344LL, 108, "A100 40GB", 312, 0, 1555}, /* HTA's traces */
    {"A100-SXM4-40GB", 0, 0, "A100 40GB", 312, 0, 1555}, /* older drivers: no vendor */
    {"NVIDIA A800-SXM4-80GB", 85198962688LL, 108, "A800 SXM4 80GB", 312, 0, 2039},
    {"NVIDIA A800 80GB PCIe", 85198962688LL, 108, "A800 PCIe 80GB", 312, 0, 1935},
    {"NVIDIA A30", 25236594688LL, 56, "A30", 165, 0, 933},
    {"NVIDIA A10", 23827709952LL, 72, "A10", 125, 0, 600},
    {"NVIDIA L4", 23580639232LL, 58, "L4", 121, 242.5, 300},
    {"NVIDIA L40", 47697362944LL, 142, "L40", 181, 362, 864},
    {"NVIDIA L40S", 47697362944LL, 142, "L40S", 362, 733, 864},
    {"NVIDIA GeForce RTX 3090", 25447170048LL, 82, "GeForce RTX 3090", 71, 0, 936},
    {"NVIDIA GeForce RTX 4090", 25393692672LL, 128, "GeForce RTX 4090", 165.2, 330.3, 1008},
    {"NVIDIA GeForce RTX 5090", 34190917632LL, 170, "GeForce RTX 5090", 209.5, 419.2, 1792},
    {"NVIDIA GeForce RTX 2080 Ti", 11554586624LL, 68, "GeForce RTX 2080 Ti", 0, 0, 616},
    {"Tesla V100-SXM2-32GB", 34079899648LL, 80, "V100 SXM2", 0, 0, 900},
    {"Tesla V100-DGXS-32GB", 34084028416LL, 80, "V100 SXM2", 0, 0, 900},
    {"Tesla V100-PCIE-16GB", 16945512448LL, 80, "V100 PCIe", 0, 0, 900},
    {"Tesla V100S-PCIE-32GB", 34089730048LL, 80, "V100S PCIe", 0, 0, 1134},
    {"Tesla T4", 15843721216LL, 40, "T4", 0, 0, 320},
    {"Tesla P100-PCIE-16GB", 17071734784LL, 56, "P100 PCIe 16GB", 0, 0, 732},
    {"Tesla P100-PCIE-12GB", 12788498432LL, 56, "P100 PCIe 12GB", 0, 0, 549},
    {"Tesla P100-SXM2-16GB", 17071734784LL, 56, "P100 SXM2", 0, 0, 732},
    {"AMD Instinct MI100", 34342961152LL, 120, "Instinct MI100", 92.3, 0, 1228.8},
    {"AMD Instinct MI210", 68702699520LL, 104, "Instinct MI210", 181, 0, 1638.4},
    {"AMD Instinct MI250X", 68702699520LL, 110, "Instinct MI250X (one GCD)", 191.5, 0, 1638.4},
    {"AMD Instinct MI250X / MI250", 68702699520LL, 110, "Instinct MI250X (one GCD)", 191.5, 0, 1638.4},
    {"AMD Instinct MI250X / MI250", 68702699520LL, 104, "Instinct MI250 (one GCD)", 181.05, 0, 1638.4}, /* 104 CUs: an MI250 */
    {"AMD Instinct MI250", 68702699520LL, 104, "Instinct MI250 (one GCD)", 181.05, 0, 1638.4},
    {"AMD Instinct MI300A", 137438953472LL, 228, "Instinct MI300A", 980.6, 1961.2, 5300},
    {"AMD Instinct MI300X", 205822885888LL, 304, "Instinct MI300X", 1307.4, 2614.9, 5300},
    {"AMD Instinct MI300X VF", 205822885888LL, 304, "Instinct MI300X", 1307.4, 2614.9, 5300},
    {"AMD Instinct MI325X", 274877906944LL, 304, "Instinct MI325X", 1307.4, 2614.9, 6000},
    {"AMD Instinct MI350X", 309237645312LL, 256, "Instinct MI350X", 2306.9, 4613.7, 8000},
    {"AMD Instinct MI355X", 309237645312LL, 256, "Instinct MI355X", 2516.6, 5033.2, 8000},
};

TEST(peaks_every_device_by_its_name) {
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++) {
        const named *n = &NAMES[i];
        peak_query q = {.name = n->name, .mem_bytes = n->mem, .sms = n->sms};
        char basis[200];
        const gpu_peak *p = peak_match(&q, basis, sizeof basis);
        CHECK_MSG(p, "%s: no row", n->name);
        CHECK_MSG(!strcmp(p->label, n->label), "%s: %s, expected %s", n->name, p->label, n->label);
        CHECK_EQ_S(basis, "by name");
        double bf = p->bf16 > 0 ? p->bf16 : p->fp16;
        if (n->bf16 > 0) CHECK_MSG(fabs(bf - n->bf16) < 1e-9, "%s: bf16/fp16 %g, expected %g", n->name, bf, n->bf16);
        CHECK_MSG(fabs(p->fp8 - n->fp8) < 1e-9, "%s: fp8 %g, expected %g", n->name, p->fp8, n->fp8);
        CHECK_MSG(fabs(p->mem_gbs - n->mem_gbs) < 1e-9, "%s: %g GB/s, expected %g", n->name, p->mem_gbs, n->mem_gbs);
    }
}

TEST(peaks_names_never_taken_for_another_part) {
    /* a word is whole: A10G, A1000, RTX 4090 D, RTX 3090 Ti, L20 are not rows; A10 is not A100 */
    const char *none[] = {"NVIDIA A10G", "NVIDIA RTX A1000", "NVIDIA GeForce RTX 4090 D", "NVIDIA GeForce RTX 3090 Ti",
                          "NVIDIA L20", "NVIDIA GeForce RTX 4090 Laptop GPU", "Tesla K80", "NVIDIA RTX 6000 Ada Generation", ""};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) CHECK_MSG(peak_lookup(none[i]) == NULL, "%s has a row", none[i]);
    CHECK_EQ_S(peak_lookup("NVIDIA A10")->label, "A10");
    CHECK_EQ_S(peak_lookup("nvidia a100-sxm4-40gb")->label, "A100 40GB"); /* any case */
    /* no two rows share a label */
    for (size_t i = 0; peak_row(i); i++)
        for (size_t j = i + 1; peak_row(j); j++) CHECK_MSG(strcmp(peak_row(i)->label, peak_row(j)->label), "%s twice", peak_row(i)->label);
}

TEST(peaks_by_signature_when_the_name_names_no_model) {
    char basis[300];
    /* the MI300X-class device of #45: no name, gfx942, 304 CUs, 192 GiB */
    peak_query q = {.name = "", .arch = "gfx942:sramecc+:xnack-", .cc_major = 9, .cc_minor = 4, .sms = 304,
                    .mem_bytes = 205822885888LL, .warp_size = 64};
    const gpu_peak *p = peak_match(&q, basis, sizeof basis);
    CHECK(p);
    CHECK_EQ_S(p->label, "Instinct MI300X");
    CHECK_EQ_S(basis, "matched by gfx942, 304 CUs, 192 GiB");
    CHECK_NEAR(peak_tflops(p, DT_BF16, 1), 1307.4, 1e-9);
    /* the same without the ISA name: by HIP's major.minor */
    q.arch = NULL;
    CHECK(peak_match(&q, basis, sizeof basis) == p);
    CHECK_EQ_S(basis, "matched by compute capability 9.4, 304 CUs, 192 GiB");
    /* 256 GiB: an MI325X; 228 CUs, 128 GiB: an MI300A */
    q.mem_bytes = 256 * GIB;
    CHECK_EQ_S(peak_match(&q, basis, sizeof basis)->label, "Instinct MI325X");
    q.mem_bytes = 128 * GIB, q.sms = 228;
    CHECK_EQ_S(peak_match(&q, basis, sizeof basis)->label, "Instinct MI300A");
    /* HTA's MI250 trace: "AMD Radeon Graphics", 9.0, 104 CUs, 64 GiB: one MI250 die, whose
     * figures are the MI210's (both 104 CUs at 1.7 GHz) */
    peak_query r = {.name = "AMD Radeon Graphics", .cc_major = 9, .sms = 104, .mem_bytes = 68702699520LL, .warp_size = 64};
    p = peak_match(&r, basis, sizeof basis);
    CHECK(p);
    CHECK_EQ_S(p->label, "Instinct MI250 (one GCD)");
    CHECK_EQ_S(basis, "matched by compute capability 9.0, 104 CUs, 64 GiB (Instinct MI210 has the same peaks)");
    /* gfx950, 256 CUs, 288 GiB: MI350X or MI355X, whose clocks differ: none, and why */
    peak_query s = {.name = "", .arch = "gfx950", .cc_major = 9, .cc_minor = 5, .sms = 256, .mem_bytes = 309237645312LL, .warp_size = 64};
    CHECK(peak_match(&s, basis, sizeof basis) == NULL);
    CHECK_EQ_S(basis, "none: gfx950, 256 CUs, 288 GiB fits Instinct MI355X and Instinct MI350X, whose peaks differ");
    /* NVIDIA with a generic name: 8.9, 58 SMs, 24 GiB is an L4; 8.0, 108 SMs, 80 GiB is an A100 or A800, SXM or PCIe
     * (bandwidths differ): none */
    peak_query n = {.name = "NVIDIA Graphics Device", .cc_major = 8, .cc_minor = 9, .sms = 58, .mem_bytes = 23580639232LL, .warp_size = 32};
    CHECK_EQ_S(peak_match(&n, basis, sizeof basis)->label, "L4");
    CHECK_EQ_S(basis, "matched by compute capability 8.9, 58 SMs, 22 GiB");
    n.cc_minor = 0, n.sms = 108, n.mem_bytes = 84990623744LL;
    CHECK(peak_match(&n, basis, sizeof basis) == NULL);
    /* a model name not listed is never matched by signature (an A40 is not guessed) */
    peak_query a40 = {.name = "NVIDIA A40", .cc_major = 8, .cc_minor = 6, .sms = 72, .mem_bytes = 23827709952LL, .warp_size = 32};
    CHECK(peak_match(&a40, basis, sizeof basis) == NULL);
    CHECK_EQ_S(basis, "");
    /* nothing known: no memory size */
    peak_query bare = {.name = "GPU", .cc_major = 8, .sms = 108, .warp_size = 32};
    CHECK(peak_match(&bare, basis, sizeof basis) == NULL);
}

TEST(peaks_per_data_type) {
    const gpu_peak *h = peak_lookup("NVIDIA H100 80GB HBM3");
    CHECK_NEAR(peak_tflops(h, DT_INT8, 1), 1978.9, 1e-9); /* 3958 TOPS with sparsity */
    CHECK_NEAR(peak_tflops(h, DT_FP16, 0), 134, 1e-9);    /* no Tensor Cores: 2x FP32 */
    const gpu_peak *m = peak_lookup("AMD Instinct MI355X");
    CHECK_NEAR(peak_tflops(m, DT_FP4, 1), 10066.3, 1e-9);
    CHECK_NEAR(peak_tflops(m, DT_FP32, 1), 157.3, 1e-9); /* CDNA 4 has no TF32: FP32 */
    const gpu_peak *b = peak_lookup("NVIDIA GeForce RTX 5090");
    CHECK_NEAR(peak_tflops(b, DT_FP4, 1), 1676, 1e-9);
    const gpu_peak *p = peak_lookup("Tesla P100-PCIE-16GB");
    CHECK_NEAR(peak_tflops(p, DT_FP16, 0), 18.6, 1e-9); /* packed half: 2x 9.3 */
    CHECK_NEAR(peak_tflops(peak_lookup("AMD Instinct MI100"), DT_BF16, 1), 92.3, 1e-9);
}

TEST(peaks_device_described_in_the_summary) {
    /* a Kineto trace of an AMD device without a name: the summary says which peaks and why */
    static const char DOC[] = "{\"deviceProperties\":[{\"id\":0,\"name\":\"\",\"gcnArchName\":\"gfx942:sramecc+:xnack-\","
        "\"totalGlobalMem\":205822885888,\"computeMajor\":9,\"computeMinor\":4,\"warpSize\":64,\"numSms\":304}],\n"
        "\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":1,\"ts\":0,\"dur\":10,\"args\":{\"device\":0,\"stream\":1}}]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_kineto_mem(DOC, strlen(DOC), &t, &err) == 0, "%s", err.msg);
    cJSON *s = analyze_json(t, NULL);
    CHECK(s);
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.arch", ""), "gfx942:sramecc+:xnack-");
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.peak", ""), "Instinct MI300X");
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.peak_basis", ""), "matched by gfx942, 304 CUs, 192 GiB");
    /* and where the percentages of peak are defined */
    CHECK_EQ_S(sj_getstr(s, "operators.peak_device", ""), "Instinct MI300X (matched by gfx942, 304 CUs, 192 GiB)");
    cJSON_Delete(s);
    pc_trace_free(t);
}

TEST(peaks_real_amd_trace_matched_by_signature) {
    if (!shared_data()) SKIP("../shared/data is absent");
    char p[4096];
    snprintf(p, sizeof p, "%s/kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", shared_data());
    cJSON *s = fixture_summary(p);
    if (!s) SKIP("the MI250 trace is absent");
    /* its deviceProperties: "AMD Radeon Graphics", 9.0, 104 CUs, 68702699520 bytes (64 GiB), warp 64 */
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.peak", ""), "Instinct MI250 (one GCD)");
    CHECK_EQ_S(sj_getstr(s, "run.devices.0.peak_basis", ""),
               "matched by compute capability 9.0, 104 CUs, 64 GiB (Instinct MI210 has the same peaks)");
    cJSON_Delete(s);
}

/* Figures pinned to the vendor's own text (docs/gpu-peaks.md, "Checked against the vendor's
 * text"): AMD's ROCm microarchitecture pages give each data type's FLOPS per clock per CU and
 * the package's peak; the peak is that x CUs x the peak engine clock, computed here, and the row
 * must hold it (per GCD for the MI200s, as PyTorch sees them). MI300X: 304 CUs at 2.1 GHz,
 * matrix FP16/BF16 2048, FP8 4096, TF32 1024, FP32 256 a clock per CU (1307.4, 2614.9, 653.7,
 * 163.4 TFLOP/s), 5.3 TB/s. MI250 (one GCD: 104 CUs at 1.7 GHz): matrix FP16 1024, matrix FP32
 * and FP64 256, vector FP32 128 (181.05, 45.25, 22.65; the page's OAM 362.1, 90.5, 45.3), 1.6 TB/s
 * a GCD. MI210: the same GCD on a card (104 CUs, 1.7 GHz). MI300A: 228 CUs at 2.1 GHz (980.6).
 * MI100: the page's table, 120 CUs at 1.502 GHz: FP16 1024 (184.6), BF16 512 (92.3), matrix
 * FP32 256 (46.1). */
static double peak_of(int per_clock_cu, int cus, double ghz) { return per_clock_cu * cus * ghz / 1000.0; }
TEST(peaks_pinned_to_vendor_text) {
    const gpu_peak *p = peak_lookup("AMD Instinct MI300X");
    CHECK(p);
    CHECK_NEAR(p->fp16, peak_of(2048, 304, 2.1), 0.05);
    CHECK_NEAR(p->bf16, 1307.4, 0.05);
    CHECK_NEAR(p->fp8, peak_of(4096, 304, 2.1), 0.05);
    CHECK_NEAR(p->tf32, peak_of(1024, 304, 2.1), 0.05);
    CHECK_NEAR(p->fp32, peak_of(256, 304, 2.1), 0.05);
    CHECK_NEAR(p->mem_gbs, 5300, 0.5);
    p = peak_lookup("AMD Instinct MI300A");
    CHECK(p);
    CHECK_NEAR(p->bf16, peak_of(2048, 228, 2.1), 0.05);
    CHECK_NEAR(p->fp8, peak_of(4096, 228, 2.1), 0.05);
    p = peak_lookup("AMD Instinct MI250");
    CHECK(p);
    CHECK_NEAR(p->fp16, peak_of(1024, 104, 1.7), 0.05);
    CHECK_NEAR(2 * p->fp16, 362.1, 0.05);
    CHECK_NEAR(p->tf32, peak_of(256, 104, 1.7), 0.05);
    CHECK_NEAR(p->fp32, peak_of(128, 104, 1.7), 0.05);
    CHECK_NEAR(p->mem_gbs, 1638.4, 0.05); /* half of 3276.8: "3.2 TB/sec (1.6 TB/sec per GCD)" */
    p = peak_lookup("AMD Instinct MI210");
    CHECK(p);
    CHECK_NEAR(p->fp16, peak_of(1024, 104, 1.7), 0.1);
    CHECK_NEAR(p->tf32, peak_of(256, 104, 1.7), 0.1);
    p = peak_lookup("AMD Instinct MI100");
    CHECK(p);
    CHECK_NEAR(p->fp16, 184.6, 0.05);
    CHECK_NEAR(p->bf16, 92.3, 0.05);
    CHECK_NEAR(p->tf32, 46.1, 0.05);
    CHECK_NEAR(p->fp16, peak_of(1024, 120, 1.502), 0.1);
    /* B200: the DGX B200 datasheet's 8 GPUs with sparsity (TF32 18, FP16 36, FP8 72, FP4 144
     * PFLOPS), per GPU and dense (TF32 was 1100 before #45's check) */
    p = peak_lookup("NVIDIA B200");
    CHECK(p);
    CHECK_NEAR(p->tf32, 18000.0 / 8 / 2, 0.01);
    CHECK_NEAR(p->bf16, 36000.0 / 8 / 2, 0.01);
    CHECK_NEAR(p->fp8, 72000.0 / 8 / 2, 0.01);
    CHECK_NEAR(p->fp4, 144000.0 / 8 / 2, 0.01);
}

/* Figures pinned to the vendor's tables as reproduced by others (docs/gpu-peaks.md, the third
 * pass). B100: NVIDIA's HGX B100 "Per GPU Specifications", with sparsity but FP64: FP4 14, FP8 7,
 * INT8 7 (peta), FP16/BF16 3.5 PFLOPS, FP64 Tensor Core 30 TFLOPS dense, up to 8 TB/s; TF32 is
 * half of FP16 (its printed 1.8 PFLOPS* is 1.75 rounded, as B200's 2.2 is 2.25). H20: the HGX H20
 * table (INT8/FP8 296, BF16/FP16 148, TF32 74, 4.0 TB/s). P100 PCIe: the datasheet's 4.7 FP64,
 * 9.3 FP32, 16 GB at 732 GB/s, 12 GB at 549 GB/s. */
TEST(peaks_pinned_to_reproduced_tables) {
    const gpu_peak *p = peak_lookup("NVIDIA B100");
    CHECK(p);
    CHECK_NEAR(p->fp4, 14000.0 / 2, 0.01);
    CHECK_NEAR(p->fp8, 7000.0 / 2, 0.01);
    CHECK_NEAR(p->int8, 7000.0 / 2, 0.01);
    CHECK_NEAR(p->fp16, 3500.0 / 2, 0.01);
    CHECK_NEAR(p->bf16, 3500.0 / 2, 0.01);
    CHECK_NEAR(p->tf32, p->fp16 / 2, 0.01);
    CHECK_NEAR(p->fp64, 30, 0.01);
    CHECK_NEAR(p->mem_gbs, 8000, 0.5);
    p = peak_lookup("NVIDIA H20");
    CHECK(p);
    CHECK_NEAR(p->fp8, 296, 0.01);
    CHECK_NEAR(p->int8, 296, 0.01);
    CHECK_NEAR(p->fp16, 148, 0.01);
    CHECK_NEAR(p->bf16, 148, 0.01);
    CHECK_NEAR(p->tf32, 74, 0.01);
    CHECK_NEAR(p->mem_gbs, 4000, 0.5);
    p = peak_lookup("Tesla P100-PCIE-16GB");
    CHECK(p);
    CHECK_NEAR(p->fp64, 4.7, 0.001);
    CHECK_NEAR(p->fp32, 9.3, 0.001);
    CHECK_NEAR(p->mem_gbs, 732, 0.5);
    CHECK_NEAR(peak_lookup("Tesla P100-PCIE-12GB")->mem_gbs, 549, 0.5);
}
