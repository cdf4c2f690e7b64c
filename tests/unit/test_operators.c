/* FLOPs formulas, Tensor Core rules, and the operator table on fixtures. */
#include "test.h"
#include "fixtures.h"
#include "analyze/analyze.h"
#include "analyze/flops.h"
#include "analyze/peaks.h"
#include "load/load.h"
#include "summary/summary.h"
#include <stdlib.h>

static int flops_of(const char *op, const char *dims, const char *types, const char *con, flops_result *r) {
    op_args a;
    op_args_parse(&a, dims, types, con);
    return op_flops(op, &a, NULL, r);
}

TEST(flops_gemm_hand_computed) {
    flops_result r;
    CHECK(flops_of("aten::mm", "[[1024,1024],[1024,1024]]", "[\"float\",\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 2.0 * 1024 * 1024 * 1024, 0); /* 2·1024³ */
    CHECK_NEAR(r.bytes, 3.0 * 1024 * 1024 * 4, 0);
    CHECK(r.is_gemm && !r.misaligned && r.dtype == DT_FP32);
    CHECK(flops_of("aten::addmm", "[[1000],[32,2048],[2048,1000]]", "[\"c10::Half\",\"c10::Half\",\"c10::Half\"]", NULL, &r));
    CHECK_NEAR(r.flops, 2.0 * 32 * 1000 * 2048, 0);
    CHECK(r.m == 32 && r.n == 1000 && r.k == 2048 && r.dtype == DT_FP16);
    CHECK(!r.misaligned); /* 32, 1000, 2048 are all multiples of 8 */
    CHECK(flops_of("aten::mm", "[[16,1],[1,256]]", "[\"float\",\"float\"]", NULL, &r));
    CHECK(r.misaligned); /* K = 1 */
    CHECK(flops_of("aten::bmm", "[[8,64,32],[8,32,128]]", "[\"float\",\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 2.0 * 8 * 64 * 128 * 32, 0);
    CHECK(flops_of("aten::baddbmm", "[[8,64,128],[8,64,32],[8,32,128]]", NULL, NULL, &r));
    CHECK_NEAR(r.flops, 2.0 * 8 * 64 * 128 * 32, 0);
    CHECK(flops_of("aten::linear", "[[4,10,512],[256,512],[256]]", "[\"float\",\"float\",\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 2.0 * 40 * 256 * 512, 0);
    CHECK(flops_of("aten::matmul", "[[2,3,64,32],[32,16]]", NULL, NULL, &r));
    CHECK_NEAR(r.flops, 2.0 * 6 * 64 * 16 * 32, 0);
    CHECK(!flops_of("aten::mm", "[[4,5],[6,7,8]]", NULL, NULL, &r)); /* wrong ranks: no formula */
}

TEST(flops_convolution_forward_and_backward) {
    flops_result r;
    /* ResNet-50's first layer: N=32, C=3, 224², K=64, 7×7, stride 2, pad 3 -> 112² */
    CHECK(flops_of("aten::conv2d", "[[32,3,224,224],[64,3,7,7],[],[],[],[],[]]", "[\"float\",\"float\"]",
                   "[\"\",\"\",\"\",\"[2, 2]\",\"[3, 3]\",\"[1, 1]\",\"1\"]", &r));
    CHECK_NEAR(r.flops, 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7, 0);
    /* the same from the output size the backward saw, when stride/padding are absent */
    op_args a;
    op_args_parse(&a, "[[32,3,224,224],[64,3,7,7],[],[],[],[],[]]", "[\"float\",\"float\"]", NULL);
    flops_hints h = {.nsp = 2, .out_sp = {112, 112}};
    CHECK(!op_flops("aten::conv2d", &a, NULL, &r)); /* no stride, no hint: n/a */
    CHECK(op_flops("aten::conv2d", &a, &h, &r));
    CHECK_NEAR(r.flops, 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7, 0);
    /* grouped (depthwise) 3×3: groups from C / weight[1] */
    CHECK(flops_of("aten::conv2d", "[[8,32,56,56],[32,1,3,3],[],[],[],[],[]]", NULL, "[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"32\"]", &r));
    CHECK_NEAR(r.flops, 2.0 * 8 * 32 * 56 * 56 * 32 * 9 / 32, 0);
    /* backward: data + weight gradients = 2 × forward; output_mask can drop one */
    CHECK(flops_of("aten::convolution_backward", "[[32,64,112,112],[32,3,224,224],[64,3,7,7],[],[],[],[],[],[],[],[]]", NULL, NULL, &r));
    CHECK_NEAR(r.flops, 2 * 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7, 0);
    CHECK(flops_of("aten::convolution_backward", "[[32,64,112,112],[32,3,224,224],[64,3,7,7],[],[],[],[],[],[],[],[]]", NULL,
                   "[\"\",\"\",\"\",\"\",\"[2, 2]\",\"[3, 3]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"[False, True, False]\"]", &r));
    CHECK_NEAR(r.flops, 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7, 0);
}

TEST(flops_attention_and_elementwise) {
    flops_result r;
    CHECK(flops_of("aten::scaled_dot_product_attention", "[[2,8,128,64],[2,8,128,64],[2,8,128,64]]", "[\"c10::BFloat16\"]", NULL, &r));
    CHECK_NEAR(r.flops, 4.0 * 2 * 8 * 128 * 128 * 64, 0);
    CHECK(r.dtype == DT_BF16);
    /* is_causal=True (argument 5 of scaled_dot_product_attention): half the keys on average, so
     * B=1, H=32, L=S=2048, E=64: 4 * 32 * 2048 * 2048 * 64 / 2 = 17.18 GFLOP, not 34.36 */
    CHECK(flops_of("aten::scaled_dot_product_attention", "[[1,32,2048,64],[1,32,2048,64],[1,32,2048,64],[],[],[],[],[]]",
                   "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]", "[\"\",\"\",\"\",\"\",\"0.\",\"True\",\"\",\"False\"]", &r));
    CHECK_NEAR(r.flops, 4.0 * 32 * 2048 * 2048 * 64 / 2, 0);
    /* the flash backend: is_causal is argument 4 */
    CHECK(flops_of("aten::_scaled_dot_product_flash_attention", "[[1,32,2048,64],[1,32,2048,64],[1,32,2048,64],[],[],[]]",
                   "[\"c10::BFloat16\"]", "[\"\",\"\",\"\",\"0.\",\"True\",\"False\"]", &r));
    CHECK_NEAR(r.flops, 4.0 * 32 * 2048 * 2048 * 64 / 2, 0);
    /* _flash_attention_forward reads (B, L, H, E): B=2, L=S=1024, H=16, E=128, not causal */
    CHECK(flops_of("aten::_flash_attention_forward", "[[2,1024,16,128],[2,1024,16,128],[2,1024,16,128]]", "[\"c10::Half\"]",
                   "[\"\",\"\",\"\",\"\",\"\",\"1024\",\"1024\",\"0.\",\"False\",\"False\"]", &r));
    CHECK_NEAR(r.flops, 4.0 * 2 * 16 * 1024 * 1024 * 128, 0);
    CHECK_NEAR(r.bytes, 4.0 * 2 * 1024 * 16 * 128 * 2, 0); /* q, k, v and the output, 2 bytes each */
    /* a sliding window of 127 + 0 + 1 keys */
    CHECK(flops_of("aten::_flash_attention_forward", "[[2,1024,16,128],[2,1024,16,128],[2,1024,16,128]]", "[\"c10::Half\"]",
                   "[\"\",\"\",\"\",\"\",\"\",\"1024\",\"1024\",\"0.\",\"True\",\"False\",\"\",\"127\",\"0\"]", &r));
    CHECK_NEAR(r.flops, 4.0 * 2 * 16 * 1024 * 128 * 128, 0);
    CHECK(flops_of("aten::add", "[[32,64,56,56],[32,64,56,56],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL, &r));
    CHECK_NEAR(r.flops, 32.0 * 64 * 56 * 56, 0);
    CHECK_NEAR(r.bytes, 3 * 32.0 * 64 * 56 * 56 * 4, 0);
    CHECK(flops_of("aten::mul", "[[4,1,8],[3,1]]", "[\"float\",\"float\"]", NULL, &r)); /* broadcast to 4×3×8 */
    CHECK_NEAR(r.flops, 96, 0);
    CHECK(!flops_of("aten::mul", "[[4,2],[3]]", "[\"float\",\"float\"]", NULL, &r)); /* does not broadcast */
    CHECK(!flops_of("aten::embedding_bag", "[[10,4],[5]]", NULL, NULL, &r));       /* no formula: n/a */
}

TEST(tensor_core_rules_by_kernel_name) {
    CHECK(kernel_uses_tensor_cores("volta_h884gemm_64x64_ldg8_nn") == 1);
    CHECK(kernel_uses_tensor_cores("turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn") == 1);
    CHECK(kernel_uses_tensor_cores("ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_tn") == 1);
    CHECK(kernel_uses_tensor_cores("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1") == 1);
    CHECK(kernel_uses_tensor_cores("void cutlass::Kernel<cutlass_80_tensorop_s16816gemm_relu_f16_64x64_32x6_nn_align8>(Params)") == 1);
    CHECK(kernel_uses_tensor_cores("volta_sgemm_128x64_nn") == 0);
    CHECK(kernel_uses_tensor_cores("volta_scudnn_128x64_relu_interior_nn_v1") == 0);
    CHECK(kernel_uses_tensor_cores("void at::native::vectorized_elementwise_kernel<4, ...>") == 0);
    /* Inductor's pointwise kernels hold no tl.dot: no (was unknown, issue #45) */
    CHECK(kernel_uses_tensor_cores("triton_poi_fused_add_0") == 0);
    /* issue #18's table: Tensor Core kernels of today's GPUs, and look-alikes that are not */
    static const struct { const char *name; int tc; } table[] = {
        {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t> >(Flash_fwd_params)", 1},
        {"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8> >(Flash_bwd_params)", 1},
        {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwd<2> > > >(Params)", 1},
        {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", 1},
        {"nvjet_hsh_64x8_64x16_4x1_v_bz_splitK_TNT", 1},
        {"void cutlass::device_kernel<cutlass::fmha::kernel::Sm100FmhaFwdKernelTmaWarpspecialized<...>>(Params)", 1},
        {"kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<...>>", 1},
        {"gridwise_convolution_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw", 1},
        {"Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_1LDSB0_GRVW8", 1},
        {"Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_AMAS0_BL0", 0},
        {"void cutlass::Kernel<cutlass_80_simt_sgemm_128x128_8x4_nn_align1>(Params)", 0},
        {"cutlass_75_simt_sgemm_128x128_8x2_nn_align1", 0},
        {"SubTensorOpWithScalar1d", 0},
        {"MIOpenSubTensorOpWithSubTensorKernel", 0},
        {"void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>(Params)", 1},
        /* kernels of the real traces in ../shared/data (each read by the kind of unit its library
         * names: xmma/tensorop/MFMA on matrix units; sgemm, scudnn, winograd, fft, gemv, gemmSN,
         * implicit/explicit_convolve_sgemm, dgrad/wgrad engines on the FP32 units) */
        {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn", 1},
        {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4>(cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4::Params)", 1},
        {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1::Params)", 1},
        {"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA1_GRVWB1", 1},
        {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2", 1},
        {"ampere_gcgemm_64x64_nt", 0},
        {"ampere_sgemm_32x32_sliced1x4_tn", 0},
        {"ampere_sgemm_128x128_tn", 0},
        {"cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", 0},
        {"void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)", 0},
        {"volta_sgemm_128x32_nn", 0},
        {"void gemmSN_NN_kernel<float, 256, 4, 2, 8, 4, 4, false, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >(cublasGemmSmallNParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)", 0},
        {"void gemmk1_kernel<int, float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float, 0>(cublasGemmk1Params<float, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float, biasType<cublasGemvTensorStridedBatched<float>::value_type, float>::type>)", 0},
        {"void gemvNSP_kernel<float, float, float, float, 1, 16, 4, 1024, false, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)", 0},
        {"void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> > >(cublasDotParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >)", 0},
        {"cudnn_infer_volta_scudnn_128x128_relu_medium_nn_v1", 0},
        {"cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", 0},
        {"cudnn_train_volta_scudnn_128x128_stridedB_splitK_interior_nn_v1", 0},
        {"cudnn_turing_scudnn_128x64_stridedB_splitK_xregs_large_nn_v1", 0},
        {"void wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int, int, int, float const*, int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)", 0},
        {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams<float, float>)", 0},
        {"void cudnn::detail::dgrad_engine<float, 128, 6, 7, 3, 3, 5, false>(int, int, int, float const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, int, int, int)", 0},
        {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)", 0},
        {"void explicit_convolve_sgemm<float, int, 1024, 5, 5, 3, 3, 3, 0, false>(int, int, int, float const*, int, float const*, int, float*, kernel_conv_params, unsigned long long, int, unsigned long long, int, float, float, int, float const*, float const*)", 0},
        {"volta_scudnn_128x32_sliced1x4_ldg4_relu_exp_medium_nhwc_tn_v1", 0},
        {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, true, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)", 0},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)", 0},
        {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)", 0},
        {"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", 0},
        {"saxpy", 0},
        {"par_ranged1d_kernel", 0},
        {"triton__0d1d2d3d", -1},
        {"triton_poi_fused_add_cos_sin_0", 0},
        /* public naming: cuBLAS/cuBLASLt sm80/sm86/sm90 families, CUTLASS 2 and 3, cuDNN,
         * FlashAttention, PyTorch's memory-efficient attention, Triton, Tensile, hipBLASLt, CK */
        {"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas", 1},
        {"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize160x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel", 1},
        {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_kernel", 1},
        {"sm86_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_kernel", 1},
        {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn", 1},
        {"ampere_h16816gemm_256x128_ldg8_stages_64x3_nn", 1},
        {"ampere_fp16_s1688gemm_fp16_128x128_ldg8_f2f_tn", 1},
        {"turing_h1688gemm_128x128_ldg8_nn", 1},
        {"volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", 1},
        {"void cutlass::Kernel<cutlass_75_tensorop_f16_s1688gemm_f16_256x128_32x2_tt_align8>(cutlass_75_tensorop_f16_s1688gemm_f16_256x128_32x2_tt_align8::Params)", 1},
        {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecialized> > > >(Params)", 1},
        {"nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN", 1},
        {"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::half_t>, false, false, false, false, true, false, false>(Flash_fwd_params)", 1},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)", 1},
        {"fmha_cutlassB_bf16_aligned_64x64_k128_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, cutlass::bfloat16_t, true, false, true, 64, 64, 128, false>::Params)", 1},
        {"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)", -1},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm50(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, cutlass::arch::Sm50, true, 64, 64, 64, true, true>::Params)", 0},
        /* issue #45: Inductor's mm template runs tl.dot (matrix cores; fp32 without TF32 is the
         * documented exception), its reductions hold none */
        {"triton_tem_fused_mm_0", 1},
        {"triton_red_fused__softmax_0", 0},
        {"Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE", 1},
        {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1", 1},
        {"Cijk_Ailk_Bljk_SB_MT64x64x8_SE_1LDSB0_APM1_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01", 0},
        {"void ck::kernel_grouped_conv_fwd_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_conv_v3<...> >(...)", 1},
        {"void ck::kernel_gemm_dl_v1r3<ck::GridwiseGemmDl_km_kn_mn_v1r3<...> >(...)", 0},
        {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)", 0},
    };
    CHECK(sizeof table / sizeof *table >= 70);
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        CHECK_MSG(kernel_uses_tensor_cores(table[i].name) == table[i].tc, "%s: %d, expected %d", table[i].name, kernel_uses_tensor_cores(table[i].name),
                  table[i].tc);
    CHECK(op_tc_eligible("aten::conv2d") && op_tc_eligible("aten::addmm") && !op_tc_eligible("aten::relu"));
}

TEST(peaks_table_lookup) {
    const gpu_peak *p = peak_lookup("NVIDIA H100 80GB HBM3");
    CHECK(p && p->mem_gbs == 3350);
    CHECK_NEAR(peak_tflops(p, DT_BF16, 1), 989.4, 1e-9);
    CHECK_NEAR(peak_tflops(p, DT_FP32, 1), 494.7, 1e-9); /* TF32 */
    CHECK_NEAR(peak_tflops(p, DT_FP32, 0), 67, 1e-9);
    CHECK(peak_lookup("NVIDIA H100 PCIe")->mem_gbs == 2000);
    CHECK(peak_lookup("NVIDIA H200")->mem_gbs == 4800);
    CHECK(peak_lookup("Tesla V100-SXM2-32GB")->fp32 == 15.7);
    CHECK(peak_lookup("NVIDIA A100-SXM4-80GB")->mem_gbs == 2039);
    CHECK(peak_lookup("NVIDIA L4")->fp32 == 30.3);
    CHECK(peak_lookup("NVIDIA L40S")->fp32 == 91.6);
    CHECK(peak_lookup("NVIDIA A10")->fp32 == 31.2);
    /* PyTorch sees each of an MI250X's two dies (GCDs) as a device: half the package's figures */
    CHECK_NEAR(peak_lookup("AMD Instinct MI250X / MI250")->mem_gbs, 1638.4, 1e-9);
    CHECK_NEAR(peak_tflops(peak_lookup("AMD Instinct MI300X"), DT_BF16, 1), 1307.4, 1e-9);
    CHECK_NEAR(peak_lookup("AMD Instinct MI325X")->mem_gbs, 6000, 1e-9);
    /* GB200 is not B200 (its name contains "B200") */
    CHECK_NEAR(peak_tflops(peak_lookup("NVIDIA GB200"), DT_FP4, 1), 10000, 1e-9);
    CHECK_NEAR(peak_tflops(peak_lookup("NVIDIA B200"), DT_FP4, 1), 9000, 1e-9);
    CHECK_NEAR(peak_tflops(peak_lookup("NVIDIA H100 80GB HBM3"), DT_FP4, 1), 0, 0); /* no FP4 before Blackwell */
    CHECK(peak_lookup("AMD Radeon Graphics") == NULL); /* a name that says no model: no percentage */
}

/* main thread: step > linear > addmm > launch -> kernel K1 (10 µs);
 * relu_ launches K2 (4 µs) by External id only; a kernel with no launch and
 * no External id (unattributed, 6 µs); backward thread: evaluate_function >
 * AddmmBackward0 > mm -> K3 (20 µs). */
static const char OPS[] =
    "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"numSms\": 108}],\n"
    "\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":100,\"args\":{\"External id\":1,"
    "\"Input Dims\":[[64,512],[256,512],[256]],\"Input type\":[\"float\",\"float\",\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":60,\"args\":{\"External id\":2,"
    "\"Input Dims\":[[256],[64,512],[512,256]],\"Input type\":[\"float\",\"float\",\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":15,\"args\":{\"correlation\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_64x64_tn\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":10,\"args\":{\"correlation\":7,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu_\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":30,\"args\":{\"External id\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu_kernel\",\"pid\":0,\"tid\":7,\"ts\":240,\"dur\":4,\"args\":{\"External id\":3,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan_kernel\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":6,\"args\":{\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"autograd::engine::evaluate_function: AddmmBackward0\",\"pid\":1,\"tid\":2,\"ts\":400,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"AddmmBackward0\",\"pid\":1,\"tid\":2,\"ts\":405,\"dur\":90},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":2,\"ts\":410,\"dur\":50},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":420,\"dur\":10,\"args\":{\"correlation\":9}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,\"ts\":440,\"dur\":20,\"args\":{\"correlation\":9,\"device\":0}}\n"
    "]}";

static const cJSON *row(const cJSON *s, const char *name) {
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "operators.rows"))
        if (!strcmp(sj_getstr(r, "name", ""), name)) return r;
    return NULL;
}

TEST(operators_attribution_and_table) {
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(OPS, strlen(OPS), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    CHECK_EQ_I(sj_getnum(s, "operators.attribution.gpu_ns", -1), 40000);
    CHECK_EQ_I(sj_getnum(s, "operators.attribution.attributed_ns", -1), 34000);
    CHECK_EQ_I(sj_getnum(s, "operators.attribution.unattributed_ns", -1), 6000);
    CHECK_EQ_I(sj_getnum(s, "operators.attribution.by_correlation", -1), 2);
    CHECK_EQ_I(sj_getnum(s, "operators.attribution.by_external_id", -1), 1);
    const cJSON *lin = row(s, "aten::linear"), *addmm = row(s, "aten::addmm"), *mm = row(s, "aten::mm"), *relu = row(s, "aten::relu_");
    CHECK(lin && addmm && mm && relu);
    CHECK_EQ_I(sj_getnum(lin, "self_device_ns", -1), 0);
    CHECK_EQ_I(sj_getnum(lin, "device_total_ns", -1), 10000);
    CHECK_EQ_I(sj_getnum(addmm, "self_device_ns", -1), 10000);
    CHECK_EQ_I(sj_getnum(lin, "self_cpu_ns", -1), 40000);   /* 100 - 60 (addmm) */
    CHECK_EQ_I(sj_getnum(addmm, "self_cpu_ns", -1), 45000); /* 60 - 15 (launch) */
    CHECK_EQ_I(sj_getnum(relu, "self_device_ns", -1), 4000);
    CHECK_EQ_S(sj_getstr(mm, "direction", ""), "bwd");
    CHECK_EQ_S(sj_getstr(addmm, "direction", ""), "fwd");
    CHECK_NEAR(sj_getnum(addmm, "flops", -1), 2.0 * 64 * 256 * 512, 0);
    /* 16.78 MFLOP in 10 µs = 1.678 TFLOP/s; A100 fp32 without Tensor Cores: 19.5 */
    CHECK_NEAR(sj_getnum(addmm, "achieved_tflops", -1), 2.0 * 64 * 256 * 512 / 10000 / 1e3, 1e-9);
    CHECK_NEAR(sj_getnum(addmm, "peak_pct", -1), 100 * (2.0 * 64 * 256 * 512 / 10000 / 1e3) / 19.5, 1e-9);
    CHECK_EQ_S(sj_getstr(addmm, "tensor_cores", ""), "no");
    CHECK(cJSON_IsNull(sj_get(relu, "flops")));         /* no shapes: n/a */
    CHECK_EQ_I(sj_getnum(s, "operators.unattributed.device_ns", -1), 6000);
    /* top-level types: linear, relu_, and the backward's evaluate_function */
    CHECK_EQ_S(sj_getstr(s, "operator_types.rows.0.type", ""), "autograd::engine::evaluate_function: AddmmBackward0");
    CHECK_EQ_I(sj_getnum(s, "operator_types.rows.0.time_ns", -1), 20000);
    CHECK_EQ_I(sj_getnum(s, "operator_types.total_ns", -1), 34000);
    /* kernels know their operator */
    const cJSON *k;
    int found = 0;
    cJSON_ArrayForEach(k, sj_get(s, "kernels.devices.0.rows"))
        if (!strcmp(sj_getstr(k, "name", ""), "ampere_sgemm_64x64_tn")) {
            CHECK_EQ_S(sj_getstr(k, "operator", ""), "aten::addmm");
            CHECK(cJSON_IsTrue(sj_get(k, "operator_tc_eligible")));
            CHECK_EQ_S(sj_getstr(k, "tensor_cores", ""), "no");
            found = 1;
        }
    CHECK(found);
    CHECK_EQ_I(sj_getnum(s, "api_calls.rows.0.calls", -1), 2);
    cJSON_Delete(s);
    pc_trace_free(t);
}

TEST(operators_group_by_shape) {
    const char *doc = "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5,\"args\":{\"Input Dims\":[[2,2],[2,2]]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{\"Input Dims\":[[4,4],[4,4]]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"args\":{\"Input Dims\":[[2,2],[2,2]]}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    pc_analyze_opts o = {.group_by_shape = 1};
    cJSON *s = analyze_json(t, &o);
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(s, "operators.rows")), 2);
    CHECK_EQ_I(sj_getnum(s, "operators.rows.0.calls", -1) + sj_getnum(s, "operators.rows.1.calls", -1), 3);
    cJSON_Delete(s);
    s = analyze_json(t, NULL);
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(s, "operators.rows")), 1);
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* find an operator row by name in a summary tree */
static const cJSON *op_row(const cJSON *s, const char *name) {
    const cJSON *r;
    cJSON_ArrayForEach(r, sj_get(s, "operators.rows")) if (!strcmp(sj_getstr(r, "name", ""), name)) return r;
    return NULL;
}

TEST(operators_flops_of_each_call_from_its_own_inputs) {
    /* three conv2d calls with the same name and Input Dims ([1,3,8,8] by [4,3,3,3], pad 1): the
     * first and third at stride 1 (8x8 out: 2 N K P Q C R S = 2 * 1 * 4 * 8 * 8 * 3 * 3 * 3 = 13,824),
     * the second at stride 2 ((8 + 2 - 3) / 2 + 1 = 4: 4x4 out, 3,456): the row holds
     * 2 * 13,824 + 3,456 = 31,104, one 13,824 per call at stride 1, whatever the calls before it
     * (operators.c counts each distinct call once and reuses it: its key must hold every input) */
    const char *doc = "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5,\"args\":{"
        "\"Input Dims\":[[1,3,8,8],[4,3,3,3],[],[],[],[],[]],\"Input type\":[\"float\",\"float\"],"
        "\"Concrete Inputs\":[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"1\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{"
        "\"Input Dims\":[[1,3,8,8],[4,3,3,3],[],[],[],[],[]],\"Input type\":[\"float\",\"float\"],"
        "\"Concrete Inputs\":[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"1\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::conv2d\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"args\":{"
        "\"Input Dims\":[[1,3,8,8],[4,3,3,3],[],[],[],[],[]],\"Input type\":[\"float\",\"float\"],"
        "\"Concrete Inputs\":[\"\",\"\",\"\",\"[1, 1]\",\"[1, 1]\",\"[1, 1]\",\"1\"]}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    const cJSON *conv = op_row(s, "aten::conv2d");
    CHECK(conv != NULL);
    CHECK_EQ_I(sj_getnum(conv, "calls", -1), 3);
    CHECK_NEAR(sj_getnum(conv, "flops", 0), 31104, 0);
    cJSON_Delete(s);
    pc_trace_free(t);
}

TEST(operators_gemm_alignment_counts_the_product_once) {
    /* linear (M = 7: misaligned) runs addmm inside it: one misaligned GEMM call, counted on addmm,
     * not two; matmul of [8, 7, 64] by [64, 64] is folded into one product of 56 rows: aligned,
     * and so is the mm inside it */
    const char *doc = "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,"
        "\"args\":{\"Input Dims\":[[7,64],[64,64],[64]],\"Input type\":[\"float\",\"float\",\"float\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":6,"
        "\"args\":{\"Input Dims\":[[64],[7,64],[64,64]],\"Input type\":[\"float\",\"float\",\"float\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::matmul\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10,"
        "\"args\":{\"Input Dims\":[[8,7,64],[64,64]],\"Input type\":[\"float\",\"float\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":22,\"dur\":6,"
        "\"args\":{\"Input Dims\":[[56,64],[64,64]],\"Input type\":[\"float\",\"float\"]}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    const cJSON *lin = op_row(s, "aten::linear"), *add = op_row(s, "aten::addmm"), *mat = op_row(s, "aten::matmul"), *mm = op_row(s, "aten::mm");
    CHECK(lin && add && mat && mm);
    CHECK_EQ_I(sj_getnum(lin, "gemm_calls", -1), 0);
    CHECK_EQ_I(sj_getnum(lin, "gemm_not_multiple_of_8", -1), 0);
    CHECK_EQ_I(sj_getnum(add, "gemm_calls", -1), 1);
    CHECK_EQ_I(sj_getnum(add, "gemm_not_multiple_of_8", -1), 1);
    CHECK_EQ_I(sj_getnum(mat, "gemm_not_multiple_of_8", -1), 0);
    CHECK_EQ_I(sj_getnum(mm, "gemm_calls", -1), 1);
    CHECK_EQ_I(sj_getnum(mm, "gemm_not_multiple_of_8", -1), 0);
    /* the FLOPs of each row stay inclusive: linear and addmm both 2 * 7 * 64 * 64 */
    CHECK_NEAR(sj_getnum(lin, "flops", 0), 2.0 * 7 * 64 * 64, 0);
    CHECK_NEAR(sj_getnum(add, "flops", 0), 2.0 * 7 * 64 * 64, 0);
    cJSON_Delete(s);
    pc_trace_free(t);
    /* matmul on its own: folded M = 56, aligned */
    flops_result r;
    CHECK(flops_of("aten::matmul", "[[8,7,64],[64,64]]", "[\"float\",\"float\"]", NULL, &r));
    CHECK(!r.misaligned);
    CHECK(flops_of("aten::matmul", "[[8,7,64],[8,64,64]]", "[\"float\",\"float\"]", NULL, &r));
    CHECK(r.misaligned); /* a true batch of 7-row products */
}

TEST(operators_rates_from_device_calls_only) {
    /* aten::div twice: on the CPU (a DataLoader transform, 1,000,000 elements, no kernel) and on
     * the GPU (1,000 elements, one 10 µs kernel). The achieved bandwidth divides the bytes of the
     * GPU call only: (1000 * 4 read + 1000 * 4 written) B / 10,000 ns = 0.8 GB/s; the scalar
     * divisor ("Int") is no tensor. clamp_min with an out= tensor reads one tensor, not two. */
    const char *doc = "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::div\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50,"
        "\"args\":{\"Input Dims\":[[1000000],[]],\"Input type\":[\"float\",\"Int\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::div\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":20,"
        "\"args\":{\"Input Dims\":[[1000],[]],\"Input type\":[\"float\",\"Int\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":105,\"dur\":5,"
        "\"args\":{\"correlation\":77}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"div_kernel\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":10,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":77}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    const cJSON *div = op_row(s, "aten::div");
    CHECK(div != NULL);
    CHECK_NEAR(sj_getnum(div, "achieved_gbs", 0), 0.8, 1e-12);
    CHECK_NEAR(sj_getnum(div, "bytes", 0), 8.0 * 1000000 + 8.0 * 1000, 0); /* the bytes column: every call */
    cJSON_Delete(s);
    pc_trace_free(t);
    flops_result r;
    CHECK(flops_of("aten::clamp_min", "[[32,64,56,56],[],[32,64,56,56]]", "[\"float\",\"Int\",\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 32.0 * 64 * 56 * 56, 0);
    CHECK_NEAR(r.bytes, 2 * 32.0 * 64 * 56 * 56 * 4, 0);
}

/* a [memory] event on CUDA device 0 (Addr omitted when addr < 0) */
static void mem_event(char *b, size_t cap, long ts, long bytes, long addr, long total) {
    char a[64] = "";
    if (addr >= 0) snprintf(a, sizeof a, ", \"Addr\": %ld", addr);
    snprintf(b + strlen(b), cap - strlen(b),
             ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%ld,"
             "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":%ld%s,\"Total Allocated\":%ld}}", ts, bytes, a, total);
}

TEST(memory_frees_charged_to_their_allocation) {
    /* aten::empty allocates 100 at 0x1000 and 50 at 0x2000 (inside it, ts 1 and 2); aten::add runs
     * when 0x1000 is freed (ts 11) and allocates 30 (ts 12). Peak 150 at ts 2: empty's 150 live.
     * The free is empty's, not add's: empty allocated 150, freed 100, net 50; add net 30. Without
     * addresses the same frees match by size. */
    for (int with_addr = 1; with_addr >= 0; with_addr--) {
        char doc[4096] = "{\"traceEvents\": [\n"
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5},\n"
            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}";
        mem_event(doc, sizeof doc, 1, 100, with_addr ? 0x1000 : -1, 100);
        mem_event(doc, sizeof doc, 2, 50, with_addr ? 0x2000 : -1, 150);
        mem_event(doc, sizeof doc, 11, -100, with_addr ? 0x1000 : -1, 50);
        mem_event(doc, sizeof doc, 12, 30, with_addr ? 0x3000 : -1, 80);
        strcat(doc, "\n]}");
        pc_trace *t = NULL;
        pc_err err = {0};
        CHECK_MSG(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0, "%s", err.msg);
        cJSON *s = analyze_json(t, NULL);
        CHECK_EQ_I(sj_getnum(s, "memory.cuda_peak_allocated_bytes", -1), 150);
        CHECK_EQ_S(sj_getstr(s, "memory.top_operators.0.name", ""), "aten::empty");
        CHECK_EQ_I(sj_getnum(s, "memory.top_operators.0.allocated_bytes", -1), 150);
        CHECK_EQ_I(sj_getnum(s, "memory.top_operators.0.freed_bytes", -1), 100);
        CHECK_EQ_I(sj_getnum(s, "memory.top_operators.0.net_bytes", -1), 50);
        CHECK_EQ_I(sj_getnum(s, "memory.top_operators.0.live_at_peak_bytes", -1), 150);
        CHECK_EQ_S(sj_getstr(s, "memory.top_operators.1.name", ""), "aten::add");
        CHECK_EQ_I(sj_getnum(s, "memory.top_operators.1.freed_bytes", -1), 0);
        CHECK_EQ_I(sj_getnum(s, "memory.top_operators.1.net_bytes", -1), 30);
        CHECK_EQ_I(sj_getnum(s, "memory.top_operators.1.live_at_peak_bytes", -1), 0);
        CHECK(!strncmp(sj_getstr(s, "memory.free_matching", ""), with_addr ? "by address" : "by size", 7));
        /* the events carry Total Allocated but no Total Reserved (as perfcard capture's did): the
         * reserved peak is unknown, null, never 0 */
        CHECK(cJSON_IsNull(sj_get(s, "memory.devices.0.peak_reserved_bytes")));
        CHECK(cJSON_IsNull(sj_get(s, "memory.devices.0.timeline.points.0.reserved_bytes")));
        /* live at the peak (ts 2): 100 bytes from ts 1, freed at ts 11, and 50 from ts 2, never freed */
        CHECK_EQ_I(cJSON_GetArraySize(sj_get(s, "memory.peak_allocations")), 2);
        CHECK_EQ_I(sj_getnum(s, "memory.peak_allocations.0.bytes", -1), 100);
        CHECK_EQ_I(sj_getnum(s, "memory.peak_allocations.0.allocated_ns", -1), 1000);
        CHECK_EQ_I(sj_getnum(s, "memory.peak_allocations.0.freed_ns", -1), 11000);
        CHECK_EQ_S(sj_getstr(s, "memory.peak_allocations.0.operator", ""), "aten::empty");
        CHECK_EQ_I(sj_getnum(s, "memory.peak_allocations.1.bytes", -1), 50);
        CHECK(cJSON_IsNull(sj_get(s, "memory.peak_allocations.1.freed_ns")));
        cJSON_Delete(s);
        pc_trace_free(t);
    }
}

TEST(flops_norms_softmax_reductions_embedding_hand_computed) {
    flops_result r;
    /* layer_norm over 768 with weight and bias: 5 per element (fvcore's count); bytes: x read and
     * written, weight and bias read */
    CHECK(flops_of("aten::layer_norm", "[[8,128,768],[],[768],[768],[],[]]", "[\"float\",\"\",\"float\",\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 5.0 * 8 * 128 * 768, 0);
    CHECK_NEAR(r.bytes, (2.0 * 8 * 128 * 768 + 2 * 768) * 4, 0);
    /* without weight: 4 per element */
    CHECK(flops_of("aten::native_layer_norm", "[[8,128,768],[],[],[],[]]", "[\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 4.0 * 8 * 128 * 768, 0);
    /* RMS norm with a weight: square, mean, rsqrt-scale, weight: 4 per element; bf16 */
    CHECK(flops_of("aten::rms_norm", "[[4,1024,4096],[],[4096],[]]", "[\"c10::BFloat16\",\"\",\"c10::BFloat16\"]", NULL, &r));
    CHECK_NEAR(r.flops, 4.0 * 4 * 1024 * 4096, 0);
    CHECK_NEAR(r.bytes, (2.0 * 4 * 1024 * 4096 + 4096) * 2, 0);
    /* batch_norm(input, weight, bias, running_mean, running_var, ...): weight at 1 */
    CHECK(flops_of("aten::batch_norm", "[[32,64,56,56],[64],[64],[64],[64],[],[],[],[]]", "[\"float\",\"float\",\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 5.0 * 32 * 64 * 56 * 56, 0);
    /* softmax: 5 per element, one read and one write */
    CHECK(flops_of("aten::_softmax", "[[2,16,128,128],[],[]]", "[\"c10::Half\"]", NULL, &r));
    CHECK_NEAR(r.flops, 5.0 * 2 * 16 * 128 * 128, 0);
    CHECK_NEAR(r.bytes, 2.0 * 2 * 16 * 128 * 128 * 2, 0);
    /* a reduction: one per input element, the input read */
    CHECK(flops_of("aten::sum", "[[1024,1024],[],[],[]]", "[\"float\"]", NULL, &r));
    CHECK_NEAR(r.flops, 1048576, 0);
    CHECK_NEAR(r.bytes, 1048576.0 * 4, 0);
    /* embedding: no arithmetic; 8 x 128 rows of 512 floats read and written, the int64 indices read */
    CHECK(flops_of("aten::embedding", "[[50000,512],[8,128],[],[],[]]", "[\"float\",\"long int\"]", NULL, &r));
    CHECK_NEAR(r.flops, 0, 0);
    CHECK_NEAR(r.bytes, 2.0 * 1024 * 512 * 4 + 1024 * 8, 0);
}

/* An expanded input (.expand(): a stride of 0) reads its stored elements
 * once, not its shape's: aten::add of [1024, 1024] and a [1024] row expanded
 * to [1024, 1024] (strides [0, 1]) reads 1024*1024 + 1024 floats and writes
 * 1024*1024 (#18: bytes from shapes alone gave 118% of the bandwidth peak).
 * From the trace: the loader keeps "Input Strides" only when some stride is 0. */
TEST(flops_expanded_inputs_read_once) {
    flops_result r;
    CHECK(flops_of("aten::add", "[[1024,1024],[1024,1024],[]]", "[\"float\",\"float\",\"Scalar\"]\n[[1024,1],[0,1],[]]", NULL, &r));
    CHECK_NEAR(r.flops, 1024.0 * 1024, 0);
    CHECK_NEAR(r.bytes, (1024.0 * 1024 + 1024 + 1024.0 * 1024) * 4, 0);
    /* no stride of 0 on a dimension of size > 1: the shape's bytes */
    CHECK(flops_of("aten::add", "[[1024,1024],[1,1024]]", "[\"float\",\"float\"]\n[[1024,1],[0,1]]", NULL, &r));
    CHECK_NEAR(r.bytes, (1024.0 * 1024 + 1024 + 1024.0 * 1024) * 4, 0);
    const char *doc =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 10, \"args\": {\"Input Dims\": [[1024, 1024], [1024, 1024], []], "
        "\"Input type\": [\"float\", \"float\", \"Scalar\"], \"Input Strides\": [[1024, 1], [0, 1], []]}},\n"
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 10, \"args\": {\"Input Dims\": [[1024, 1024], [1024, 1024], []], "
        "\"Input type\": [\"float\", \"float\", \"Scalar\"], \"Input Strides\": [[1024, 1], [1024, 1], []]}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0);
    cJSON *s = analyze_json(t, NULL);
    const cJSON *row = sj_get(s, "operators.rows.0");
    CHECK_EQ_S(sj_getstr(row, "name", ""), "aten::add");
    /* one expanded call and one whole one */
    CHECK_NEAR(sj_getnum(row, "bytes", 0), (1024.0 * 1024 + 1024 + 1024.0 * 1024) * 4 + 3 * 1024.0 * 1024 * 4, 0);
    cJSON_Delete(s);
    pc_trace_free(t);
}

/* Optimizer steps over tensor lists, by hand (flops.c, optimizer_flops): two
 * parameters of 1000 and 24 elements (1024 in all), fp32 state. */
TEST(flops_optimizer_steps_hand_computed) {
    flops_result r;
    /* _foreach_add_(params, updates, alpha): 1024 additions; params and updates read, params written */
    CHECK(flops_of("aten::_foreach_add_", "[[[10,100],[24]],[[10,100],[24]],[]]", "[\"TensorList\",\"TensorList\",\"Scalar\"]", NULL, &r));
    CHECK_NEAR(r.flops, 1024, 0);
    CHECK_NEAR(r.bytes, 3 * 1024 * 4, 0);
    /* _foreach_mul_(grads, scalar): one list read and written */
    CHECK(flops_of("aten::_foreach_mul_", "[[[10,100],[24]],[]]", "[\"TensorList\",\"Scalar\"]", NULL, &r));
    CHECK_NEAR(r.flops, 1024, 0);
    CHECK_NEAR(r.bytes, 2 * 1024 * 4, 0);
    /* fused Adam: 14 operations per parameter, 7 accesses; AdamW 16; amsgrad's list adds 2 accesses */
    const char *lists5 = "[[[10,100],[24]],[[10,100],[24]],[[10,100],[24]],[[10,100],[24]],[],[[],[]]]";
    CHECK(flops_of("aten::_fused_adam_", lists5, "[\"TensorList\",\"TensorList\",\"TensorList\",\"TensorList\",\"TensorList\",\"TensorList\"]", NULL, &r));
    CHECK_NEAR(r.flops, 14 * 1024, 0);
    CHECK_NEAR(r.bytes, 7 * 1024 * 4, 0);
    CHECK(flops_of("aten::_fused_adamw_", lists5, NULL, NULL, &r));
    CHECK_NEAR(r.flops, 16 * 1024, 0);
    CHECK(flops_of("aten::_fused_adam_", "[[[1024]],[[1024]],[[1024]],[[1024]],[[1024]],[[]]]", NULL, NULL, &r));
    CHECK_NEAR(r.bytes, 9 * 1024 * 4, 0);
    /* the real traces' TensorList without shapes ([]): n/a, not 0; _foreach_zero_ has no formula */
    CHECK(!flops_of("aten::_foreach_add_", "[[],[],[]]", "[\"TensorList\",\"TensorList\",\"Scalar\"]", NULL, &r));
    CHECK(!flops_of("aten::_foreach_zero_", "[[[10,100]]]", NULL, NULL, &r));
    /* a negative size is no shape: no formula, never negative FLOPs (found by fuzz_kineto: -256) */
    CHECK(!flops_of("aten::mm", "[[4,-8],[8,4]]", "[\"float\",\"float\"]", NULL, &r));
    CHECK(op_flops_known("aten::_fused_adamw_") && op_flops_known("aten::_foreach_add_") && !op_flops_known("aten::_foreach_zero_"));
}

TEST(roofline_kernels_only_where_a_call_had_one_kernel) {
    /* Hand-computed: aten::mm 64x128 by 128x256, fp32: 2*64*256*128 = 4,194,304 FLOPs and
     * 4*(64*128 + 128*256 + 64*256) = 229,376 bytes per call. Two calls, each launching one
     * gemm_a (10 and 30 us): gemm_a is placed with 8,388,608 FLOPs over 40,000 ns = 0.2097152
     * TFLOP/s at 4,194,304 / 229,376 = 18.2857... FLOP/B. aten::addmm launches gemm_b and
     * bias_add: its FLOPs are not split between them, so neither is placed. */
    const char *doc = "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-40GB\", \"computeMajor\": 8, \"numSms\": 108}],\n"
        "\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50,"
        "\"args\":{\"Input Dims\":[[64,128],[128,256]],\"Input type\":[\"float\",\"float\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":5,\"args\":{\"correlation\":1}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":50,"
        "\"args\":{\"Input Dims\":[[64,128],[128,256]],\"Input type\":[\"float\",\"float\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":205,\"dur\":5,\"args\":{\"correlation\":2}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":400,\"dur\":50,"
        "\"args\":{\"Input Dims\":[[256],[64,128],[128,256]],\"Input type\":[\"float\",\"float\",\"float\"]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":405,\"dur\":5,\"args\":{\"correlation\":3}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":415,\"dur\":5,\"args\":{\"correlation\":4}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_b\",\"pid\":0,\"tid\":7,\"ts\":500,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"bias_add\",\"pid\":0,\"tid\":7,\"ts\":520,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4}}\n"
        "]}";
    pc_trace *t = NULL;
    pc_err err = {0};
    CHECK_MSG(pc_load_kineto_mem(doc, strlen(doc), &t, &err) == 0, "%s", err.msg);
    cJSON *s = analyze_json(t, NULL);
    const cJSON *kp = sj_get(s, "operators.roofline.kernel_points");
    CHECK_EQ_I(cJSON_GetArraySize(kp), 1);
    CHECK_EQ_S(sj_getstr(s, "operators.roofline.kernel_points.0.name", ""), "gemm_a");
    CHECK_EQ_I(sj_getnum(s, "operators.roofline.kernel_points.0.launches", 0), 2);
    CHECK_EQ_I(sj_getnum(s, "operators.roofline.kernel_points.0.device_ns", 0), 40000);
    CHECK_NEAR(sj_getnum(s, "operators.roofline.kernel_points.0.intensity", 0), 4194304.0 / 229376.0, 1e-12);
    CHECK_NEAR(sj_getnum(s, "operators.roofline.kernel_points.0.tflops", 0), 0.2097152, 1e-12);
    CHECK_EQ_S(sj_getstr(s, "operators.roofline.kernel_points.0.dtype", ""), "fp32");
    CHECK_EQ_S(sj_getstr(s, "operators.roofline.kernel_points.0.bound", ""), "compute"); /* 18.3 > A100 fp32 ridge 19.5e3/1555 = 12.5 */
    CHECK_EQ_I(cJSON_GetArraySize(sj_get(s, "operators.roofline.points")), 2);         /* the operators: mm and addmm */
    cJSON_Delete(s);
    pc_trace_free(t);
}
