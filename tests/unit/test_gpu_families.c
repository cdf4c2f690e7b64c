/* Issue #44 item 4 and #45 item 6: GPU-side findings over kernel families
 * when no operator launched the kernels (graph replays, GPU-only captures):
 * gpu_kernels names the dominant families and its stake is the GPU's margin
 * over the host (an upper bound), memory_bound replays the memory-bound
 * families without their layout conversions and the rest at 5/8 of their
 * time (stakes.h). Hand-computed fixtures. */
#include "test.h"
#include "fixtures.h"
#include "analyze/kfamily.h"
#include <string.h>

/* gpu_families_graph.json (µs, an A100): the host's range 0-1500, one
 * cudaGraphLaunch at 12 (no operator around it), its kernels back to back on
 * one stream: two bf16 GEMMs 30-830 and 830-1630, an elementwise add
 * 1630-1730. Kernel time 1700: GEMM 1600 = 94.1% (dominant: 10% or more),
 * elementwise 100 = 5.9% (not). The GPU ends 230 after the host's range. The
 * GEMMs taking no time, the add runs from ~30 to ~130, before the host's
 * 1500: the step ends with the host, 1730 - 1500 = 230 given back (the
 * margin, less than the GEMMs' 1600). */
TEST(gpu_families_graph_replay_margin) {
    cJSON *s = fixture_summary("tests/fixtures/gpu_families_graph.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "gpu_kernels");
    CHECK_MSG(f, "no gpu_kernels finding for a graph replay that outlasts the host");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 230000, 1);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK_EQ_I(sj_getnum(f, "rank", 0), 1);
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "the families that dominate: GEMM 1.60 ms (94.1%);"), "%s", ev);
    CHECK_MSG(!strstr(ev, "Elementwise"), "%s", ev); /* 5.9%: under 10% */
    CHECK_MSG(strstr(ev, "its work ending 230.0 µs after the host's range"), "%s", ev);
    CHECK_MSG(strstr(ev, "an upper bound"), "%s", ev);
    CHECK_MSG(strstr(ev, "FLOPs are unknown"), "%s", ev);
    CHECK_EQ_S(sj_getstr(f, "contributors.0.name", ""), "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn");
    CHECK_NEAR(sj_getnum(f, "contributors.0.ns", -1), 1600000, 0.5);
    CHECK(strstr(sj_getstr(f, "try", ""), "Nsight Compute"));
    cJSON_Delete(s);
}

/* gpu_families_memory.json (µs, an A100): the host's range 0-1900; three
 * cudaLaunchKernel (no operator) at 10, 20, 30; cudaDeviceSynchronize
 * 40-1860; on one stream a GEMM 50-650, an elementwise add 650-1250, a batch
 * norm 1250-1850. Memory-bound families: normalization 600 + elementwise 600
 * = 1200 of 1800 (66.7%, over 10%). Replayed at 5/8: the add 650-1025, the
 * norm 1025-1400; the sync returns 10 after it (1410) and the host's 40 after
 * the sync ends the range at 1450: 1900 - 1450 = 450 = 1200 x 3/8 given back. */
TEST(gpu_families_memory_bound_without_operators) {
    cJSON *s = fixture_summary("tests/fixtures/gpu_families_memory.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "memory_bound");
    CHECK_MSG(f, "no memory_bound finding without operators");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 450000, 1);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "memory-bound kernels 1.20 ms per step (66.7% of the kernel time): Normalization 600.0 µs (33.3%), Elementwise 600.0 µs (33.3%);"), "%s", ev);
    CHECK_MSG(strstr(ev, "an estimate"), "%s", ev);
    CHECK_MSG(!strstr(ev, "GEMM"), "%s", ev);
    cJSON_Delete(s);
    /* the graph fixture's elementwise add is 5.9% of the kernel time: no memory_bound */
    s = fixture_summary("tests/fixtures/gpu_families_graph.json");
    CHECK(s);
    CHECK(!finding_of(s, "memory_bound"));
    cJSON_Delete(s);
}

/* gpu_families_memory_fused.json: gpu_families_memory.json with the add a kernel torch.compile
 * already fused (triton_poi_fused_add_relu_0): memory_bound's fix, fusion, is done for it, so it
 * counts in no memory-bound family. Normalization 600 of 1800 (33.3%, over 10%); replayed with the
 * norm at 5/8: GEMM 50-650, the add 650-1250, the norm 1250-1625, the sync returns at 1635 and the
 * range ends 40 later, 1675: 1900 - 1675 = 225 = 600 x 3/8 given back (450 with the add counted:
 * the finding failed before on that stake and on its 1.20 ms). */
TEST(gpu_families_memory_bound_leaves_compiler_fused_kernels) {
    cJSON *s = fixture_summary("tests/fixtures/gpu_families_memory_fused.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "memory_bound");
    CHECK_MSG(f, "no memory_bound finding for the norm");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 225000, 1);
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "memory-bound kernels 600.0 µs per step (33.3% of the kernel time): Normalization 600.0 µs (33.3%);"), "%s", ev);
    CHECK_MSG(!strstr(ev, "Elementwise"), "%s", ev);
    cJSON_Delete(s);
}

/* gpu_families_two_threads.json (µs, an A100, no steps: the window is the
 * program's, 10-1630): thread 1 launches (10-15) a batch norm 20-620 and
 * (40-45) a GEMM 1020-1620, then cudaDeviceSynchronize 50-1630 (returns 10
 * after the GEMM); thread 2 (autograd's, in a real capture) launches (30-35)
 * cuDNN's nchwToNhwcKernel 620-1020 and does nothing more. memory_bound's
 * change: the layout conversion gone, the norm at 5/8 (375): norm 20-395,
 * conversion 395-395 (its stream predecessor binds it: offset 0), GEMM
 * 395-995 (its launch returned at 45, 2 µs cap), the sync returns at 1005:
 * 1630 - 1005 = 625 = 400 + 600 x 3/8 given back. Thread 2's end is its own
 * last call's (35): before, its end node sat at the window's end, 1595 of
 * "host work" after its call, and every GPU-side change gave back 0 (the
 * MI210 GPU-only capture's memory_bound). gpu_kernels takes the GEMM only
 * (the norm and the conversion are memory_bound's): the GEMM taking no time,
 * the sync returns at 1030: 600 given back. The _cat variant: the 400 µs
 * kernel a CatArrayBatchedCopy (layout by name, but torch.cat converts no
 * layout): at 5/8 as the norm, (600 + 400) x 3/8 = 375. */
TEST(gpu_families_two_threads_stepless) {
    cJSON *s = fixture_summary("tests/fixtures/gpu_families_two_threads.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "memory_bound");
    CHECK_MSG(f, "no memory_bound finding: a thread done early holds the window open");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 625000, 1);
    CHECK_EQ_S(sj_getstr(f, "stake_source", ""), "replay");
    CHECK_EQ_I(sj_getnum(f, "rank", 0), 1);
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "Normalization 600.0 µs (37.5%), Layout / transpose 400.0 µs (25.0%);"), "%s", ev);
    CHECK_MSG(strstr(ev, "the layout transposes gone"), "%s", ev);
    f = finding_of(s, "gpu_kernels");
    CHECK(f);
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 600000, 1);
    ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "the families that dominate: GEMM 600.0 µs (37.5%);"), "%s", ev);
    CHECK_MSG(!strstr(ev, "Normalization"), "%s", ev);
    /* the unchanged replay still reproduces the window */
    CHECK_NEAR(sj_getnum(s, "critical_path.error_max_pct", -1), 0, 1e-9);
    cJSON_Delete(s);
    s = fixture_summary("tests/fixtures/gpu_families_two_threads_cat.json");
    CHECK(s);
    CHECK_NEAR(sj_getnum(finding_of(s, "memory_bound"), "at_stake_ns", -1), 375000, 1);
    cJSON_Delete(s);
}

/* PyTorch's symmetric-memory all-reduce (vllm-b200-gptoss-tp8's 73 calls of
 * symm_mem::multimem_all_reduce_) is communication, not a reduction */
TEST(gpu_families_symm_mem_all_reduce) {
    kf_info k = kf_classify("void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)");
    CHECK_EQ_I(k.family, KF_COMM);
    CHECK_EQ_I(k.lib, KF_LIB_CUSTOM_AR);
    CHECK_EQ_I(kf_classify("void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(float**)").family, KF_COMM);
}

/* host_phase from the step's start (µs, an A100): ProfilerStep#1 0-8000;
 * `preprocess` 10-5000 launches nothing; aten::mm at 6000 launches (6010) a
 * GEMM 6030-7030. The gap from the step's start to the first GPU op, 6030,
 * holds one CUDA call (1 per 6.03 ms, 5 µs of calls): a host phase of 6030 =
 * 75.375% of the 8000 step (hf-timesformer-h100-infer's 218.12 ms of
 * preprocessing is this gap). host_phase_head_own.json: the same with
 * aten::mm from 100 (the launching operator spans the gap: its own launch
 * path), so the gap is no host phase: iteration_interval and host_wait. */
TEST(host_phase_head_gap) {
    cJSON *s = fixture_summary("tests/fixtures/host_phase_head.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "host_phase");
    CHECK_MSG(f, "no host_phase for the host's work before the first GPU op");
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 6030000, 0.5);
    CHECK_EQ_I(sj_getnum(f, "rank", 0), 1);
    CHECK(strstr(sj_getstr(f, "evidence", ""), "6.03 ms per step (75.4% of the step)"));
    cJSON_Delete(s);
    s = fixture_summary("tests/fixtures/host_phase_head_own.json");
    CHECK(s);
    CHECK(!finding_of(s, "host_phase"));
    CHECK(finding_of(s, "iteration_interval"));
    cJSON_Delete(s);
}

/* Named ranges in evidence (#45 item 7). named_range_startup.json (µs, no
 * steps): user ranges `main` 0-400000 and "torch.compile `fx`" 1000-300000,
 * aten::add at 300400 launching (300500) a kernel 300600-301600. Start-up is
 * the 300600 before the first kernel: `main` holds all of it, the compile
 * range 299000 of it (99.47%); both hold over half, the compile range lasts
 * less (299000 < 400000): it is named, its backticks as quotes. */
TEST(named_range_startup_fixture) {
    cJSON *s = fixture_summary("tests/fixtures/named_range_startup.json");
    CHECK(s);
    const cJSON *f = finding_of(s, "startup");
    CHECK_MSG(f, "no startup finding");
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "; most of it (299.00 ms, 99%) inside the range `torch.compile 'fx'`"), "%s", ev);
    CHECK(!finding_of(s, "host_phase")); /* without steps the time before the first op is startup's */
    cJSON_Delete(s);
    /* gpu_kernels names the range around the launches: the graph fixture has none */
    s = fixture_summary("tests/fixtures/gpu_families_graph.json");
    CHECK(s);
    CHECK(!strstr(sj_getstr(finding_of(s, "gpu_kernels"), "evidence", ""), "inside the range"));
    cJSON_Delete(s);
}

/* Nsight Systems' NVTX ranges (saxpy-mpi-cuda_nsys_perlmutter0.sqlite): the
 * host phases are the GPU gaps of 1 ms or more between the saxpy steps; read
 * with sqlite3 from NVTX_EVENTS (push/pop, eventType 59) against the kernels,
 * copies and their launches, the 196.246 ms gap at 962.467 ms holds MPI_Recv
 * 35.998 ms and MPI_Send 22.204 ms (30%), the 178.326 ms one 18.993 + 22.216
 * (23%), 172.295 ms: 12.461 + 22.219, 176.724 ms: 17.295 + 22.218: no range
 * holds over half of them, so host_phase names none. */
TEST(named_range_nsys_mpi) {
    cJSON *s = fixture_summary("../shared/data/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
    if (!s) SKIP("../shared/data is missing");
    const cJSON *f = finding_of(s, "host_phase");
    CHECK(f);
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(!strstr(ev, "inside the range"), "%s", ev);
    cJSON_Delete(s);
}

/* vllm-mi300x-gptoss-decode-full (tests/data/real; the reading
 * vllm-mi300x-gptoss-decode-full.md, written without perfcard): one FULL
 * hipGraphLaunch at +1.544 ms, 0.507 ms long, carries 421 of the 434 GPU ops,
 * inside the step's range execute_32_context_0(...) of 2.409 ms; the GEMM
 * family 8.265 ms within the GPU's 8.335 ms margin over the host. perfcard's
 * GEMM family (kfamily's name rules) reads 8.40 ms; the stake is that, within
 * the reading's 1.5 ms. */
TEST(gpu_families_real_decode_full) {
    cJSON *s = fixture_summary("tests/data/real/vllm-mi300x-gptoss-decode-full/graph_execution.json.gz");
    if (!s) SKIP("tests/data/real is missing");
    const cJSON *f = finding_of(s, "gpu_kernels");
    CHECK(f);
    CHECK_EQ_I(sj_getnum(f, "rank", 0), 1);
    CHECK_NEAR(sj_getnum(f, "at_stake_ns", -1), 8265000, 1500000);
    CHECK(sj_getnum(f, "at_stake_ns", -1) <= 8335000 + 100000); /* the margin bounds it */
    const char *ev = sj_getstr(f, "evidence", "");
    CHECK_MSG(strstr(ev, "launched inside the range `execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)` (100% of their launch calls' time)"), "%s", ev);
    CHECK_MSG(strstr(ev, "GEMM"), "%s", ev);
    cJSON_Delete(s);
}
