/* Issue #32, classes 3 and 5, on hand-written traces (tests/fixtures/):
 * start-up and host phases named as what they are, and GPU-bound traces
 * getting findings about their kernels. The expected values are worked out
 * by hand beside each case. */
#include "test.h"
#include "fixtures.h"
#include "load/load.h"
#include "summary/summary.h"
#include <string.h>


/* One 20 ms step on a V100 (computeMajor 7), all FP32 (µs): forward aten::cudnn_convolution's
 * implicit_convolve_sgemm 500-2500 (launched 150-170), aten::add_'s elementwise kernel 2800-3800
 * (launched 2620-2640; not a convolution), and on the autograd thread CudnnConvolutionBackward0 >
 * aten::cudnn_convolution_backward > _backward_input's dgrad_engine 4300-7300 (launched 4050-4070)
 * and _backward_weight's wgrad_alg0_engine 7300-11300 (launched 4300-4320); the step's thread
 * then waits in cudaDeviceSynchronize 5000-11350. Convolution time on the FP32 units: 2000 + 3000
 * + 4000 = 9000 µs; at Tensor Cores' attainable 2x it would take 4500 (the estimate before #37:
 * 4.5 ms). Replayed (#37: each op keeps its offset from what bound it, at most 2 from the rest):
 * the forward 500-1500, add_ max(2640 + 160, 1500 + 2) = 2800-3800 (its launch binds it), dgrad
 * max(4070 + 230, 3800 + 2) = 4300-5800, wgrad max(4320 + 2, 5800) = 5800-7800; the sync (after
 * the backward thread's last launch, 4320 + 680 = 5000) returns at 7800 + 50 = 7850 and the step
 * ends 8650 later: 16.5 ms, 3.5 ms saved (17.5%): the forward's 1.0 ms is lost in the gap before
 * add_, which its launch holds. Before #32's class 5 only the forward counted (2000 / 2 = 1.0 ms). */
TEST(phases_fp32_conv_backward_on_volta) {
    cJSON *s = fixture_summary("tests/fixtures/conv_backward_fp32_volta.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "tensor_cores");
    CHECK_MSG(f, "no tensor_cores finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 3500000, 0.5);
    CHECK_NEAR(sj_getnum(f, "at_stake_pct", -1), 17.5, 1e-9);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK(strstr(sj_getstr(f, "evidence", ""), "3 operators, forward and backward, with 9.00 ms of GPU time per step on non-Tensor-Core kernels (device compute capability 7.0), 9.00 ms of it in convolution and GEMM kernels"));
    CHECK(strstr(sj_getstr(f, "evidence", ""), "replayed at Tensor Core speed: 3.50 ms per step given back"));
    CHECK_EQ_S(sj_getstr(f, "contributors.0.name", ""), "aten::cudnn_convolution_backward_weight");
    CHECK_NEAR(sj_getnum(f, "contributors.0.ns", -1), 4000000, 0.5);
    CHECK_EQ_S(sj_getstr(f, "contributors.1.name", ""), "aten::cudnn_convolution_backward_input");
    cJSON_Delete(s);
}

/* One 20 ms step on an H100 (µs): k1 200-2200 (launched at 100), then 10 ms of host work
 * ('preprocess', 2300-12300) with no CUDA call, then k2 launched at 12400 runs 12500-19900. The GPU
 * idles 2200-12500 = 10.3 ms with 1 call (20 µs) in it: under 1 per ms and under 10% of it, a host
 * phase: at stake 10.3 ms (51.5%). The gaps 0-200 and 19900-20000 are under 1 ms. host_wait (HTA's
 * 10.5 ms: 0.2 + 10.3) keeps only the launch-bound rest, 0.2 ms, under its 10%: it does not fire,
 * so no fusion / CUDA graph advice; gpu_utilization takes the 0.3 ms left (busy 9.4 of 20 ms).
 * Before #32 class 3: host_wait first with 10.5 ms. */
TEST(phases_long_host_phase_is_not_launch_overhead) {
    cJSON *s = fixture_summary("tests/fixtures/host_phase.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "host_phase");
    CHECK_MSG(f, "no host_phase finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 10300000, 0.5);
    CHECK_NEAR(sj_getnum(f, "at_stake_pct", -1), 51.5, 1e-9);
    CHECK_EQ_S(sj_getstr(s, "suggestions.rows.0.rule", ""), "host_phase");
    CHECK(strstr(sj_getstr(f, "evidence", ""), "1 GPU idle gap over 1 ms"));
    CHECK_MSG(!finding_of(s, "host_wait"), "host_wait fired");
    CHECK_MSG(!finding_of(s, "small_kernels"), "small_kernels fired");
    CHECK_NEAR(sj_getnum(finding_of(s, "gpu_utilization"), "at_stake_ns", -1), 300000, 0.5);
    cJSON_Delete(s);
}

/* A gap that is one call of the operator launching the work after it (#45, vllm-b200-gptoss-tp8: a
 * first call's cuBLASLt heuristics and lazy module loading). One 10 ms step on an H100 (µs):
 * aten::add 100-130 launches (110-120) k1 200-1200; aten::addmm 1250-3300 launches (3250-3270) the
 * GEMM 3300-8300; aten::add 8320-8350 launches (8330-8340) k3 8400-9900. The gap 1200-3300 (2.1 ms,
 * 1 call of 20 µs) passes host_phase's call tests, but aten::addmm covers 2050 µs of it (97.6%, at
 * least half) and all its own 2050 µs lie in it: its own launch path, no host phase (before: host_phase
 * 2.10 ms, 21.0%). host_wait: host-late gaps 0-200, 1200-3300, 8300-8400 = 2.4 ms (24.0%); replayed
 * with host gaps and launch calls at 2 µs: calls at 2-4, 6-8, 10-12; each kernel started after
 * its call returned, so it keeps its offset from the return: k1 4 + 80 = 84-1084, the GEMM 8 + 30
 * = 38 but after k1 by at most 2: 1086-6086, k3 12 + 60 = 72, after the GEMM: 6088-7588; the
 * step ends at 7588: 10000 - 7588 = 2412 µs given back. host_phase_enclosing_range.json: the same
 * with one range `forward` 50-9950 around all three launches instead of aten::addmm: it covers the
 * gap but only 21% of its own time lies in it, so the gap stays a host phase (2.10 ms) and
 * host_wait (2.4 - 2.1 = 0.3 ms, under 10%) does not fire. */
TEST(phases_one_call_gap_is_launch_path) {
    cJSON *s = fixture_summary("tests/fixtures/host_phase_one_call.json");
    CHECK(s);
    CHECK_MSG(!finding_of(s, "host_phase"), "host_phase fired");
    const cJSON *f = finding_of(s, "host_wait");
    CHECK_MSG(f, "no host_wait finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 2412000, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "idle waiting for the host 2.40 ms per step (24.0% of the step)"));
    CHECK_EQ_S(sj_getstr(s, "suggestions.rows.0.rule", ""), "host_wait");
    cJSON_Delete(s);
    s = fixture_summary("tests/fixtures/host_phase_enclosing_range.json");
    CHECK(s);
    CHECK_NEAR(sj_getnum(finding_of(s, "host_phase"), "at_stake_ns", -1), 2100000, 0.5);
    CHECK_MSG(!finding_of(s, "host_wait"), "host_wait fired");
    cJSON_Delete(s);
}

/* One 4 ms step (µs): 40 launches, i = 0..39, at 100i+10 for 80 µs each, kernel i at 100i+50 for
 * 50 µs: each launch ends after the GPU went idle, so 40 gaps of 50 µs (0-50, then
 * 100i+100..100i+150) are host waits: 2.0 ms, 50%, all launch overhead (every gap is under 1 ms
 * and holds a launch), no host_phase; GPU busy exactly 50%, so no gpu_utilization. host_wait's
 * change, replayed (#37): host gaps and launch calls at 2 µs: the first gap 10 -> 2, launch 0 at
 * 2-4, kernel 0 at 2 + 40 (its offset from its launch) = 42-92; the launches then run 4 µs apart,
 * far ahead, and kernel i follows kernel i-1 by 2 (DG_MIN_GAP_NS): 42 + 52i, the last ends at 42
 * + 52 x 39 + 50 = 2120: 4000 - 2120 = 1.88 ms saved (47%; the estimate before #37: 2.0 ms). */
TEST(phases_many_short_gaps_are_launch_overhead) {
    cJSON *s = fixture_summary("tests/fixtures/short_gaps.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "host_wait");
    CHECK_MSG(f, "no host_wait finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 1880000, 0.5);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK_EQ_S(sj_getstr(s, "suggestions.rows.0.rule", ""), "host_wait");
    CHECK_MSG(!finding_of(s, "host_phase"), "host_phase fired");
    CHECK_MSG(!finding_of(s, "gpu_utilization"), "gpu_utilization fired");
    cJSON_Delete(s);
}

/* Unfused attention (#32 class 5a). One 1 ms step on an A100 (µs): under the 'SelfAttention' range
 * aten::bmm Q·K^T ([16,512,64] x [16,64,512], fp16) 40, aten::div (scaling) 20, aten::softmax
 * 30, aten::bmm scores·V ([16,512,512] x [16,512,64]) 40: the unfused pattern is 130 µs of
 * kernels. A fused kernel (scaled_dot_product_attention's flash kernel) does the two products'
 * FLOPs, 2 x 2·16·512·512·64 = 1,073,741,824, at half the A100's fp16 Tensor Core peak
 * (312 / 2 = 156 TFLOP/s): 1,073,741,824 / 156e12 s = 6,882.96 ns: 123,117.04 ns (12.3% of the
 * step) less kernel time. The aten::mm outside the range (100 µs) is not counted; every product
 * runs on Tensor Cores, so tensor_cores does not fire. What that gives back (#45, replayed): the
 * GPU's work ends at 320 and the host's step at 1000, with nothing waiting on the GPU: 0 ns (the
 * estimate said 123,117.04). */
TEST(phases_unfused_attention) {
    cJSON *s = fixture_summary("tests/fixtures/unfused_attention.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "unfused_attention");
    CHECK_MSG(f, "no unfused_attention finding");
    CHECK_NEAR(1073741824 / 156e12 * 1e9, 6882.96, 0.01);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "1 softmax between two batched matrix products, 130.0 µs per step of kernels; a fused attention kernel estimated at 6.9 µs"));
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 0, 0.5);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK_EQ_S(sj_getstr(f, "contributors.0.name", ""), "SelfAttention");
    CHECK_NEAR(sj_getnum(f, "contributors.0.ns", -1), 130000, 0.5);
    CHECK_MSG(!finding_of(s, "tensor_cores"), "tensor_cores fired");
    cJSON_Delete(s);
}

/* Unfused attention in an eager with_stack trace (#45: HF TimeSformer's
 * TimesformerSelfAttention): each call is wrapped in Python frames
 * (`<built-in method matmul ...>`, the forward's source line), so the softmax's
 * parent is its own `<built-in method softmax>` frame, with no product beside
 * it; the scope is the nn.Module frame around them. One 1 ms step on an H100
 * SXM (bf16, µs): nn.Module: SelfAttention_0 100-380 holds aten::matmul
 * [8,16,512,64] x [8,16,64,512] (its aten::bmm's gemm 200-260), aten::mul (the
 * scaling, 260-310), aten::softmax (cunn_SoftMaxForward 310-390), a nested
 * nn.Module: Dropout_0 (its kernel 390-420) and aten::matmul [8,16,512,512] x
 * [8,16,512,64] (420-480): 280 µs of kernels. Each product is 2·128·512·64·512
 * = 4,294,967,296 FLOPs; both at half of 989.4 TFLOP/s: 8,589,934,592 / 494.7e3
 * = 17,363.93 ns (280,000 - 17,363.93 = 262,636.07 ns less kernel time). Replayed with
 * the pattern's kernels at 17,363.93 / 280,000 of their time (gemm 3.72, mul 3.10, softmax
 * 4.96, dropout 1.86, gemm 3.72 µs), each starting at the latest of its predecessor's end and its
 * launch call's end + 2 µs (the bound that did not bind it when measured): gemm 200-203.72 (its
 * launch bound it: 130 + 70), mul 203.72-206.82, softmax 217-221.96 (launched 210-215), dropout
 * 267-268.86, gemm 332-335.72, the add 407-507 (launched 400-405): the sync returns at 512, not
 * 585, and the host's last 415 µs follow: 73,000 ns given back (the estimate said 262,636.07:
 * the host's launches bound the attention once its kernels shrink). Then aten::add of
 * two [4096,4096] bf16 tensors outside the module (480-580, queued behind the
 * attention; the host waits in cudaDeviceSynchronize until 585): its 3 x 32 MiB
 * need 100,663,296 / 3350 = 30,048.7 ns at peak, 69,951.3 above. memory_bound
 * replays the add alone (the scaling's and the softmax's kernels, 130 µs, are
 * the attention's): the sync returns 69,951 ns earlier (the kernel rounded to
 * the ns: 30,049). Before: no pattern (the softmax had no sibling), and
 * memory_bound's replay also sped up the scaling and the softmax queued before
 * the add. */
TEST(phases_unfused_attention_with_stack) {
    cJSON *s = fixture_summary("tests/fixtures/unfused_attention_stack.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "unfused_attention");
    CHECK_MSG(f, "no unfused_attention finding");
    CHECK_NEAR(8589934592 / 494.7e3, 17363.93, 0.01);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "1 softmax between two batched matrix products, 280.0 µs per step of kernels; a fused attention kernel estimated at 17.4 µs"));
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 73000, 1);
    CHECK_EQ_S(sj_getstr(f, "contributors.0.name", ""), "nn.Module: SelfAttention_0");
    CHECK_NEAR(sj_getnum(f, "contributors.0.ns", -1), 280000, 0.5);
    const cJSON *m = finding_of(s, "memory_bound");
    CHECK_MSG(m, "no memory_bound finding");
    CHECK_NEAR(100000 - 100663296 / 3350.0, 69951.3, 0.05);
    CHECK_NEAR(sj_getnum(m, "at_stake_ns", -1), 69951, 1);
    CHECK(strstr(sj_getstr(m, "evidence", ""), "1 memory-bound operator (elementwise, norms, reductions) with 100.0 µs of kernel time per step (26.3% of it) (130.0 µs more in unfused attention"));
    CHECK_EQ_S(sj_getstr(m, "contributors.0.name", ""), "aten::add");
    CHECK_MSG(!sj_get(m, "contributors.1"), "memory_bound counted an attention operator");
    cJSON_Delete(s);
}

/* Attention written with einsum and an nn.Softmax module (Stable Diffusion's older CrossAttention
 * style). tests/fixtures/unfused_attention_einsum.json, an A100, fp16 (µs): nn.Module:
 * CrossAttention_0 holds aten::einsum "b i d, b j d -> b i j" (its bmm's gemm 200-250), nn.Module:
 * Softmax_0 around aten::softmax (softmax_warp_forward 250-290), aten::einsum "b i j, b j d -> b i d"
 * (290-340): 140 µs of kernels, then cudaDeviceSynchronize 270-345. einsum has no FLOP formula, so
 * the fused kernel's estimate is the two products' own time, 100 µs. Replayed at 100/140 of their
 * time: gemm 200-235.71 (its launch bound it), softmax 235.71-264.29, gemm 264.29-300.00 (queued
 * behind them): the sync returns at 305, not 345: 40,000 ns given back (±1: each kernel rounded
 * to the ns); the softmax is the attention's, so no memory_bound.
 * Before: einsum was no product and the softmax's scope was its own module: no pattern, and
 * memory_bound counted the softmax. */
TEST(phases_unfused_attention_einsum_softmax_module) {
    cJSON *s = fixture_summary("tests/fixtures/unfused_attention_einsum.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "unfused_attention");
    CHECK_MSG(f, "no unfused_attention finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 140000 - 100000, 2);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "140.0 µs per step of kernels; a fused attention kernel estimated at 100.0 µs"));
    CHECK_EQ_S(sj_getstr(f, "contributors.0.name", ""), "nn.Module: CrossAttention_0");
    CHECK_MSG(!finding_of(s, "memory_bound"), "memory_bound counted the attention's softmax");
    cJSON_Delete(s);
}

/* Two patterns sharing a product (bmm, softmax, bmm, softmax, bmm in one range: the second bmm
 * ends the first pattern and opens the next): each kernel counts once. tests/fixtures/
 * unfused_attention_chain.json, an A100 (µs): kernels bmm 10, softmax 20, bmm 10, softmax 20, bmm 10,
 * back to back from 400 (all launched by 320), and cudaDeviceSynchronize 330-475; no shapes, so
 * each pattern's fused estimate is its products' own kernels. The shared bmm's kernel is the second
 * pattern's (the later window holding its operator): patterns 10 + 20 = 30 and 10 + 20 + 10 = 40,
 * 70 µs; fused 10 + (10 + 10) = 30. Replayed, the first pattern's kernels at 1/3 of their time, the
 * second's at 1/2, back to back from 400: they end at 430, the sync returns at 435, not 475:
 * 40,000 ns given back, the two softmaxes. Before: the shared bmm counted in both, 80 µs of
 * kernels and 40 µs fused. */
TEST(phases_unfused_attention_shared_product) {
    cJSON *s = fixture_summary("tests/fixtures/unfused_attention_chain.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "unfused_attention");
    CHECK_MSG(f, "no unfused_attention finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 20000 + 20000, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "2 softmaxes between two batched matrix products, 70.0 µs per step of kernels; a fused attention kernel estimated at 30.0 µs"));
    cJSON_Delete(s);
}

/* Memory-bound operators (#32 class 5b). One 1 ms step on an A100 40GB (1555 GB/s), FP32 (µs):
 * aten::mm 40-440 (ampere_sgemm, compute-bound, launched 20-30), then aten::add 450-470 and
 * aten::mul 480-500 of two 1,048,576-element tensors (read 2 x 4 MiB, write 4 MiB: 12,582,912 B,
 * which need 12,582,912 / 1555 = 8,091.90 ns at peak: 11,908.10 ns above it each), aten::relu of
 * one, 510-520 (8,388,608 B: 5,394.60 ns, 4,605.40 above), launched 110, 160, 210; the host waits
 * in cudaDeviceSynchronize 300-530 (10 after relu) and works until the step's end at 1000.
 * Memory-bound: 50 of the 450 µs of kernels (11.1% > 10%); above their bytes' time: 2 x 11,908.10
 * + 4,605.40 = 28,421.59 ns. Replayed (#37), the kernels at the peak bandwidth run back to back
 * 10 apart as measured: the step ends 28,421.6 ns earlier (each kernel rounded to the ns:
 * 28,421), 2.8% of the step. Tensor Cores (tensor_cores): the sgemm at half, 40-240, everything
 * after 200 earlier: 200 µs (20%). The sync replayed without its wait returns at 310, the host's
 * last 470 µs end the step at 780: 220 µs (sync_in_step, 22%, first); gpu_utilization takes the
 * 330 µs of the 550 µs GPU-free left (second). The top 3 (sync_in_step, gpu_utilization,
 * tensor_cores) replayed together, gpu_utilization's estimate left out: the host still ends at
 * 780: 220 µs, not the 420 µs sync_in_step's and tensor_cores' stakes add up to. Before: no such
 * rule. */
TEST(phases_memory_bound_elementwise) {
    cJSON *s = fixture_summary("tests/fixtures/memory_bound.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "memory_bound");
    CHECK_MSG(f, "no memory_bound finding");
    double want = 2 * (20000 - 12582912 / 1555.0) + (10000 - 8388608 / 1555.0);
    CHECK_NEAR(want, 28421.59, 0.01);
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), want, 1);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK_NEAR(sj_getnum(finding_of(s, "tensor_cores"), "at_stake_ns", -1), 200000, 0.5);
    CHECK_NEAR(sj_getnum(finding_of(s, "sync_in_step"), "at_stake_ns", -1), 220000, 0.5);
    CHECK_EQ_S(sj_getstr(finding_of(s, "gpu_utilization"), "stake_source", ""), "estimate");
    CHECK_EQ_S(sj_getstr(s, "suggestions.findings_combined.rules", ""), "sync_in_step,tensor_cores");
    CHECK_EQ_S(sj_getstr(s, "suggestions.findings_combined.left_out", ""), "gpu_utilization");
    CHECK_NEAR(sj_getnum(s, "suggestions.findings_combined.saving_ns", -1), 220000, 0.5);
    CHECK_NEAR(sj_getnum(s, "suggestions.findings_combined.sum_of_stakes_ns", -1), 420000, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "3 memory-bound operators (elementwise, norms, reductions) with 50.0 µs of kernel time per step (11.1% of it)"));
    CHECK_EQ_S(sj_getstr(f, "contributors.2.name", ""), "aten::relu");
    /* in unfused attention the softmax and the scaling are unfused_attention's: memory_bound leaves them */
    cJSON_Delete(s);
    s = fixture_summary("tests/fixtures/unfused_attention.json");
    CHECK(s);
    CHECK_MSG(!finding_of(s, "memory_bound"), "memory_bound counted the attention's softmax again");
    cJSON_Delete(s);
}

/* The iteration interval less the host phases inside it (#32 class 3). Two steps on an A100 (µs):
 * ProfilerStep#1 0-2000, its aten::mm kernel 100-1900 (interval 0-100); ProfilerStep#2 2000-22000,
 * 'preprocess' 2010-10000 with no CUDA call, then aten::mm launched at 10100 runs 10200-20000
 * (interval 2000-10200 = 8200). Mean interval (100 + 8200) / 2 = 4150 of a mean step of 11000
 * (37.7% > 20%). The GPU idles 1900-10200 = 8.3 ms with one call in it: a host phase, 8300 / 2 =
 * 4150 per step, host_phase's. Of it, 2000-10200 = 8200 lies in step 2's interval: 4100 per step;
 * the interval's own rest is 4150 - 4100 = 50 µs per step (step 1's 100 µs over 2 steps). The
 * last step's tail, 20000-22000 after the GPU's last op with no call in it, is a host phase too
 * (#45; each earlier step's is part of the gap to the next op): host_phase (8300 + 2000) / 2 = 5150
 * per step (4150 before #45). Before: iteration_interval claimed the GPU-free time host_phase
 * left, 1050 µs (GPU-free 22000 - 11600 = 10400, 5200 per step, less 4150). */
TEST(phases_interval_less_host_phases) {
    cJSON *s = fixture_summary("tests/fixtures/interval_host_phase.json");
    CHECK(s);
    CHECK_NEAR(sj_getnum(s, "steps.average.iteration_interval_ns", -1), 4150000, 0.5);
    CHECK_NEAR(sj_getnum(finding_of(s, "host_phase"), "at_stake_ns", -1), (8300000 + 2000000) / 2, 0.5);
    const cJSON *f = finding_of(s, "iteration_interval");
    CHECK_MSG(f, "no iteration_interval finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 50000, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "4.10 ms of it in host phases (host_phase's)"));
    cJSON_Delete(s);
}

/* The last step's tail as a host phase (#45: xDiT FLUX's 10.8 ms of model-hook cleanup after its
 * GPU work). tests/fixtures/host_phase_tail.json, one step on an A100 (µs): ProfilerStep#1
 * 0-10,000; aten::mm launched at 55 runs 100-4,000; then `maybe_free_model_hooks` 4,100-9,900 and
 * no CUDA call to the step's end. The GPU idles 4,000-10,000 = 6,000 µs with no call in it: a host
 * phase (60% of the step). Its fix gives back all of it: no GPU work follows, so the step ends
 * when the host's work does. At stake 6,000,000 ns (the GPU-free time, 10,000 - 3,900 = 6,100,
 * and the host-side idle, the tail 6,000 and the 100 before the kernel, hold it); gpu_utilization
 * keeps the 100 µs left. Every earlier step's tail was already counted, in the gap to the next
 * step's first op. Without steps (host_phase_tail_nosteps.json: the same under a `<module>` frame)
 * the time after the last op is teardown: no host_phase. Before: no gap ends the tail, no finding
 * (gpu_utilization 6.10 ms). */
TEST(phases_host_phase_tail) {
    cJSON *s = fixture_summary("tests/fixtures/host_phase_tail.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "host_phase");
    CHECK_MSG(f, "no host_phase finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 10000000 - 4000000, 0.5);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "1 GPU idle gap over 1 ms with under 1 CUDA call per ms in them: 6.00 ms per step (60.0% of the step)"));
    CHECK_NEAR(sj_getnum(finding_of(s, "gpu_utilization"), "at_stake_ns", -1), 100000, 0.5);
    cJSON_Delete(s);
    s = fixture_summary("tests/fixtures/host_phase_tail_nosteps.json");
    CHECK(s);
    CHECK_MSG(!finding_of(s, "host_phase"), "host_phase counted the teardown of a trace without steps");
    cJSON_Delete(s);
}

/* #32 class 3: start-up before the first kernel is start-up's. tests/fixtures/startup.json, µs:
 * cudaFree 0-300,000 (context creation), cudaMalloc 300,100-350,100, cudaHostRegister
 * 350,200-430,200, cudaMalloc 430,300-450,300, cudaDeviceSynchronize 450,400-460,400 (nothing to
 * wait for), then aten::mm's cudaLaunchKernel 470,000-670,000 (200 ms: lazy module loading) and
 * its gemm_k 670,100-675,100; 7 more aten::mm launch gemm_k back to back to 710,100, and a
 * cudaDeviceSynchronize 670,500-710,150 waits for them. No steps, no repeating marker.
 *   span 710.15 ms; first kernel at 670.1 ms (94.4%): startup's stake 670,100,000 ns; the calls
 *   before it: cudaFree 300 ms, cudaLaunchKernel 200 ms (the first; the others end after the first
 *   kernel starts), cudaHostRegister 80 ms (cudaMalloc 70 ms fourth).
 *   GPU-free time 710.15 - 8 x 5 = 670.15 ms: start-up's 670.1, and 0.05 ms (710,100-710,150,
 *   the last sync's end) left. The early cudaDeviceSynchronize (10 ms, and its refill gap to the
 *   first kernel, 209.7 ms) is start-up, not sync_in_step's (which claimed 219.75 ms of it before,
 *   leaving startup 450.4 ms); the last sync blocks while the GPU is busy: sync_in_step and
 *   host_wait hold at most the 0.05 ms left. */
TEST(phases_startup_before_first_kernel) {
    cJSON *s = fixture_summary("tests/fixtures/startup.json");
    CHECK(s);
    CHECK(cJSON_IsNull(sj_get(s, "steps.source")));
    const cJSON *su = finding_of(s, "startup"), *sy = finding_of(s, "sync_in_step"), *hw = finding_of(s, "host_wait");
    CHECK(su);
    CHECK_NEAR(sj_getnum(su, "at_stake_ns", -1), 670100000, 0.5);
    CHECK_EQ_I(sj_getnum(s, "suggestions.rows.0.at_stake_ns", -1), 670100000);
    CHECK_EQ_S(sj_getstr(su, "contributors.0.name", ""), "cudaFree");
    CHECK_NEAR(sj_getnum(su, "contributors.0.ns", -1), 300e6, 0.5);
    CHECK_EQ_S(sj_getstr(su, "contributors.1.name", ""), "cudaLaunchKernel");
    CHECK_NEAR(sj_getnum(su, "contributors.1.ns", -1), 200e6, 0.5);
    CHECK_EQ_S(sj_getstr(su, "contributors.2.name", ""), "cudaHostRegister");
    CHECK_MSG(!sy || sj_getnum(sy, "at_stake_ns", 0) <= 50000 + 0.5, "sync_in_step at stake %.0f", sj_getnum(sy, "at_stake_ns", 0));
    CHECK_MSG(!hw || sj_getnum(hw, "at_stake_ns", 0) <= 50000 + 0.5, "host_wait at stake %.0f", sj_getnum(hw, "at_stake_ns", 0));
    double sum = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "suggestions.rows")) sum += sj_getnum(r, "at_stake_pct", 0);
    CHECK_MSG(sum <= 100 + 1e-6, "shares sum to %.2f%%", sum);
    cJSON_Delete(s);
}

/* A blocking HIP copy (#45, xdit-sd35-mi300x: the image's .cpu(), hipMemcpyWithStream, 42 ms while
 * the GPU runs the VAE, then numpy_to_pil). One 1000 µs step on an MI300X (µs): hipLaunchKernel
 * 10-20 launches a convolution kernel at 30-630; hipMemcpyWithStream (in aten::to) 100-700
 * waits for its Device -> Host copy at 640-690 (its own time after the copy: 10), the host then
 * works 700-1000 (numpy_to_pil 710-990) and launches nothing. The GPU idle in the call: 630-640
 * and 690-700 (20 µs); no GPU work after it (no refill). Replayed without the wait the call ends
 * at 100 + 10 = 110 and the host's 300 µs after it at 410; the kernel and the copy keep their
 * times (the copy 10 after the kernel: 640-690), so the step ends with the GPU at 690: 310 µs
 * given back (the tail 690-1000 the host's work now overlaps), inside the host-side idle (30
 * before the first op + 310 tail). Before: hipMemcpyWithStream was no synchronizing call for the
 * rule (CUDA's names only), though the replay's dependency graph waited on it: no finding. */
TEST(phases_hip_blocking_copy) {
    cJSON *s = fixture_summary("tests/fixtures/hip_blocking_copy.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "sync_in_step");
    CHECK_MSG(f, "no sync_in_step finding");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 310000, 0.5);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "1 synchronizing calls, 600.0 µs per step blocked; the GPU idle 20.0 µs per step"), "evidence: %s", ev);
    CHECK_MSG(strstr(ev, "most: hipMemcpyWithStream, in aten::to"), "evidence: %s", ev);
    cJSON_Delete(s);
}
