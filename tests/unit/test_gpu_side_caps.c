/* Issue #45 (held-out readings hf-falconsai-mi300x-infer, hf-qwen15-h100-infer): a change that
 * only shortens GPU kernels gives back wall time only where the GPU bounds the step (or the host
 * waits for it inside the step). gemm_alignment and no_cudnn (on the GPU) estimate their kernel
 * time off; their stake is that estimate capped by a replay with the step ending when its GPU work
 * ends: gemm_alignment's of its own change (its kernels at 3/4), no_cudnn's with every kernel
 * taking no time (rules_gpu_ceiling); unfused_attention is replayed (SK_ATTN, test_phases.c).
 * Equal stakes (one cap binding two findings) rank by what each fix gives back uncapped.
 * Hand-worked fixtures (µs), then the real trace the tie came from. */
#include "test.h"
#include "fixtures.h"
#include <stdio.h>
#include <string.h>

/* gemm_alignment_{host,gpu}_bound.json, an A100 (fp16 Tensor Core peak 312 TFLOP/s): aten::mm
 * [1000,4095] x [4095,1000] fp16 (K = 4095 not a multiple of 8) at 10-50, its launch 20-30, its
 * Tensor Core kernel 40-76: 2 x 1000 x 4095 x 1000 = 8.19 GFLOP in 36 µs = 227.5 TFLOP/s, 72.9% of
 * the peak, so gpu_kernels (below 70%) does not fire. The estimate: a quarter of the kernel's
 * 36 µs = 9 µs, capped by the replay of that change (the kernel at 3/4: 27 µs). Host-bound (the
 * step 0-1000: the GPU done at 76, the host at 1000): the host still ends at 1000: 0 back, and the
 * evidence says why. GPU-bound (the step 0-50, the kernel ending 26 after the host): at 3/4 the
 * kernel ends at 67, still after the host's 50: 9 µs back, the estimate. */
TEST(gpu_caps_gemm_alignment_host_bound_gives_nothing) {
    CHECK_NEAR(2.0 * 1000 * 4095 * 1000 / 36e-6 / 312e12, 0.729, 1e-3);
    cJSON *s = fixture_summary("tests/fixtures/gemm_alignment_host_bound.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "gemm_alignment");
    CHECK_MSG(f, "no gemm_alignment finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 0, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "9.0 µs of kernel time off, but the replay with those kernels at 3/4 of their time gives back 0 ns per step: the step is host-bound"));
    CHECK_MSG(!finding_of(s, "gpu_kernels"), "gpu_kernels fired");
    cJSON_Delete(s);
    s = fixture_summary("tests/fixtures/gemm_alignment_gpu_bound.json");
    CHECK(s);
    f = finding_of(s, "gemm_alignment");
    CHECK_MSG(f, "no gemm_alignment finding (GPU-bound)");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 36000 / 4.0, 0.5);
    CHECK_EQ_S(sj_getstr(f, "evidence", ""), "1 GEMM calls with a dimension not divisible by 8");
    CHECK_MSG(!finding_of(s, "gpu_kernels"), "gpu_kernels fired");
    cJSON_Delete(s);
}

/* tests/data/real/hf-qwen15-h100-infer (reading hf-qwen15-h100-infer.md, written before perfcard
 * ran): the forward ends on the GPU 2.228 ms after the host's range, and both GPU-side findings
 * replay to that margin exactly (2,227,508 ns). Uncapped the memory-bound operators give back more
 * (the reading: 5.084 ms at 3.35 TB/s against the GEMMs' 0.892 ms at 70% of peak; perfcard's
 * off-graph figures 7.28 and 11.58 - 8.19 = 3.39 ms), so memory_bound ranks first: its fix alone
 * reaches the cap with more to spare. Before, the tie fell to the rule ids (gpu_kernels first). */
TEST(gpu_caps_tie_at_the_cap_ranks_by_uncapped) {
    cJSON *s = fixture_summary("tests/data/real/hf-qwen15-h100-infer/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
    if (!s) SKIP("tests/data/real is missing");
    char r1[64], r2[64];
    snprintf(r1, sizeof r1, "%s", sj_getstr(s, "suggestions.rows.0.rule", ""));
    snprintf(r2, sizeof r2, "%s", sj_getstr(s, "suggestions.rows.1.rule", ""));
    double s1 = sj_getnum(s, "suggestions.rows.0.at_stake_ns", -1), s2 = sj_getnum(s, "suggestions.rows.1.at_stake_ns", -1);
    cJSON_Delete(s);
    CHECK_EQ_S(r1, "memory_bound");
    CHECK_EQ_S(r2, "gpu_kernels");
    CHECK_NEAR(s1, 2228000, 500); /* the reading's margin, 2.228 ms */
    CHECK_MSG(s1 == s2, "stakes %.0f and %.0f: not the tie at the cap", s1, s2);
}

/* no_cudnn_host_bound.json, an A100: aten::_slow_conv2d_forward at 10-50 (launch 20-30), its
 * im2col kernel 40-140, the step 0-1000. The estimate: half the convolution's 100 µs of device
 * time, 50 µs; the host bounds the step (the GPU done at 140), so with every kernel taking no time
 * nothing comes back: 0. (A convolution with no device time, run on the CPU, keeps its estimate:
 * host work; test_rules.c.) */
TEST(gpu_caps_no_cudnn_host_bound_gives_nothing) {
    cJSON *s = fixture_summary("tests/fixtures/no_cudnn_host_bound.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "no_cudnn");
    CHECK_MSG(f, "no no_cudnn finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 0, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "1 calls of non-cuDNN convolutions, 100.0 µs per step; 50.0 µs of kernel time off, but the replay with every kernel taking no time gives back 0 ns per step"));
    cJSON_Delete(s);
}
