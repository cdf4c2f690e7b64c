/* Kernel families from kernel names: the rules, in the order
 * docs/tensor-cores.md and docs/communication-kernels.md list them with
 * their evidence. Patterns are lowercase substrings of the lowercased name
 * unless a comment says "case-sensitive". */
#include "kfamily.h"
#include "../util/xalloc.h"
#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* a stretch of the lowercased name, with the bigram set of the whole name (or NULL):
 * a pattern one of whose byte pairs the name lacks is rejected without a search,
 * which leaves most of the ~150 patterns at a few table lookups (50 us a name
 * on the 515 names of ../shared/data with a search each, 6 us with the filter) */
typedef struct span { const char *s; size_t n; const uint64_t *bg; } span;
#define BG_BITS 4096
static unsigned bg_hash(unsigned char a, unsigned char b) { return ((unsigned)a * 67u ^ (unsigned)b * 5u) & (BG_BITS - 1); }
static void bg_fill(uint64_t *bg, const char *s, size_t n) {
    memset(bg, 0, BG_BITS / 8);
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned h = bg_hash((unsigned char)s[i], (unsigned char)s[i + 1]);
        bg[h >> 6] |= 1ull << (h & 63);
    }
}
/* 0 when p surely does not occur in the name; 1 when it may */
static int bg_may(const uint64_t *bg, const char *p, size_t n) {
    if (!bg) return 1;
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned h = bg_hash((unsigned char)p[i], (unsigned char)p[i + 1]);
        if (!(bg[h >> 6] >> (h & 63) & 1)) return 0;
    }
    return 1;
}

static int in(span s, const char *p) {
    if (s.bg && p[0] && p[1]) { /* the first pair before strlen: most patterns end here */
        unsigned h = bg_hash((unsigned char)p[0], (unsigned char)p[1]);
        if (!(s.bg[h >> 6] >> (h & 63) & 1)) return 0;
    }
    size_t n = strlen(p);
    return bg_may(s.bg, p, n) && memmem(s.s, s.n, p, n) != NULL;
}
static int any(span s, const char *const *pats) {
    for (int i = 0; pats[i]; i++)
        if (in(s, pats[i])) return 1;
    return 0;
}
static int starts(span s, const char *p) {
    size_t n = strlen(p);
    return s.n >= n && !memcmp(s.s, p, n);
}
/* p occurs with neither a letter in `bad_prev` just before it nor a digit just after it
 * ("f16" in "_f16_" and "f16f16", not in "bf16" or "f160") */
static int tok(span s, const char *p, const char *bad_prev) {
    size_t n = strlen(p);
    if (!bg_may(s.bg, p, n)) return 0;
    for (const char *q = s.s; (q = memmem(q, s.n - (size_t)(q - s.s), p, n)); q++) {
        int prev_ok = q == s.s || !memchr(bad_prev, q[-1], strlen(bad_prev));
        size_t after = (size_t)(q - s.s) + n;
        int next_ok = after >= s.n || !isdigit((unsigned char)s.s[after]);
        if (prev_ok && next_ok) return 1;
    }
    return 0;
}

static span head_of(span low);

/* ---- communication: library by name (docs/communication-kernels.md) ---- */
static int comm_lib(span low, const char *name) {
    if (in(low, "mscclpp")) return KF_LIB_MSCCLPP;
    if (in(low, "msccl")) return KF_LIB_MSCCL; /* RCCL's MSCCL executor: mscclKernel_... */
    if (in(low, "nccl") || in(low, "rccl")) return KF_LIB_NCCL;
    if (in(low, "deep_ep::") && (in(low, "intranode") || in(low, "internode"))) return KF_LIB_DEEPEP;
    /* DeepEP's kernel namespaces when a profiler drops the outer one: internode::dispatch<...> */
    span h = head_of(low);
    if (starts(h, "void ")) h.s += 5, h.n -= 5;
    if (starts(h, "intranode::") || starts(h, "internode::") || starts(h, "internode_ll::")) return KF_LIB_DEEPEP;
    if (in(low, "epdispatch") || in(low, "epcombine")) return KF_LIB_MORI; /* MoRI-EP (AMD) */
    if (in(low, "nvshmem")) return KF_LIB_NVSHMEM;
    if (in(low, "oneccl")) return KF_LIB_ONECCL;
    if (in(low, "gloo::")) return KF_LIB_GLOO;
    static const char *const custom[] = {"cross_device_reduce", "reduce_scatter_cross_device", "allreduce_fusion", "lamport",
                                         "oneshotallreduce", "twoshotallreduce", "multimem_all_reduce", "multimem_all_gather",
                                         "multimem_reduce_scatter", "one_shot_all_reduce", "two_shot_all_reduce", NULL};
    /* vLLM/SGLang, aiter, TensorRT-LLM/FlashInfer all-reduce; PyTorch's symmetric memory (symm_mem::multimem_all_reduce_) */
    if (any(low, custom)) return KF_LIB_CUSTOM_AR;
    /* MindSpore's HCCL: hcom_allReduce_..., and its pipeline stages' Send-opN / Receive-opN (case-sensitive) */
    if (in(low, "hcom_") || !strncmp(name, "Send-op", 7) || !strncmp(name, "Receive-op", 10)) return KF_LIB_HCCL;
    if (starts(low, "memcpy ptop") || in(low, "[cuda memcpy ptop]")) return KF_LIB_P2P;
    static const char *const coll[] = {"allreduce", "allgather", "reducescatter", "alltoall", NULL};
    if (any(low, coll)) return KF_LIB_OTHER;
    return KF_LIB_NONE;
}

/* ---- family by name ---- */
static const char *const p_copy[] = {"memcpy", "memset", "direct_copy_kernel", "copy_device_to_device",
                                     "__amd_rocclr_copy", "__amd_rocclr_fill", NULL};
static const char *const p_attn[] = {"flash_fwd", "flash_bwd", "flashattn", "flash_attn", "fmha", "attention", "attn_",
                                     "_attn", "sdpa", "batchprefillwith", "singleprefillwith", "batchdecodewith",
                                     "singledecodewith", "mergestates", "paged_attention", NULL};
static const char *const p_conv[] = {"convolve", "convolution", "conv1d", "conv2d", "conv3d", "3dconv", "conv_fwd",
                                     "conv_bwd", "conv_wrw", "groupedconv", "grouped_conv", "naive_conv", "fprop", "dgrad",
                                     "wgrad", "scudnn", "884cudnn", "1688cudnn", "16816cudnn", "winograd", "fft2d_",
                                     "fft3d_", "igemm_fwd", "igemm_bwd", "igemm_wrw", "miopensp3asmconv", "miopenconv",
                                     "im2col", "col2im", "cask_cudnn", "flip_filter", NULL};
/* "gemm" itself is matched by gemm_word: not in "fbgemm" (FBGEMM's namespace, embeddings) */
static const char *const p_gemm[] = {"gemv", "matmul", "nvjet", "cijk_", "wgmma", "hgmma", "gmma", "_mm_",
                                     "addmm", "bmm", "splitkreduce", "epilogue::impl", "triton_tem", "marlin", NULL};
static const char *const p_norm[] = {"batch_norm", "batchnorm", "bn_fw", "bn_bw", "layer_norm", "layernorm", "rmsnorm",
                                     "rms_norm", "group_norm", "groupnorm", "instance_norm", "instancenorm", "ln_fwd",
                                     "ln_bwd", NULL};
static const char *const p_layout[] = {"transpose", "nchwtonhwc", "nhwctonchw", "permute", "catarraybatchedcopy", NULL};
static const char *const p_red[] = {"reduce", "softmax", "scan", "argmax", "argmin", "topk", "nll_loss", "classnllcriterion",
                                    "cross_entropy", "pool", "dot_kernel", "triton_red", "triton_per", NULL};
static const char *const p_elem[] = {"elementwise", "pointwise", "triton_poi", "vectorized", "unrolled", "functor",
                                     "dropout", "multi_tensor_apply", "fillfunctor", "fill_kernel", "activation", "act_and_mul", "silu", "gelu",
                                     "relu", "sigmoid", "tanh", "scalepacked", "subtensorop", "quant", "rotary", "rope_",
                                     "to_float", "axpy", "scal_kernel", "swiglu", NULL};

static int family_in(span s) {
    if (any(s, p_attn)) return KF_ATTENTION;
    if (any(s, p_conv)) return KF_CONV;
    if (any(s, p_gemm) || tok(s, "gemm", "b")) return KF_GEMM;
    if (any(s, p_norm)) return KF_NORM;
    if (any(s, p_layout)) return KF_LAYOUT;
    if (any(s, p_red)) return KF_REDUCTION;
    if (any(s, p_elem)) return KF_ELEMENTWISE;
    return KF_OTHER;
}

/* The function's own name: the text before the first '<' or '(' that does not
 * open "(anonymous namespace)" (template arguments and parameters name other
 * things: a reduce_kernel's functor, an elementwise kernel's lambda). */
static span head_of(span low) {
    static const char anon[] = "(anonymous namespace)";
    size_t i = 0;
    while (i < low.n) {
        char c = low.s[i];
        if (c == '<') break;
        if (c == '(') {
            if (low.n - i >= sizeof anon - 1 && !memcmp(low.s + i, anon, sizeof anon - 1)) {
                i += sizeof anon - 1;
                continue;
            }
            break;
        }
        i++;
    }
    return (span){low.s, i, low.bg};
}

/* ---- data type ---- */
/* Tensile/hipBLASLt: Cijk_<A index>_<B index>_<types>_...: the types token's first letters are
 * A's type (S fp32, D fp64, H fp16, B bf16, X xf32, F8 fp8, B8 bf8, I8 int8); case-sensitive */
static int tensile_dtype(const char *name) {
    const char *p = strstr(name, "Cijk_");
    if (!p) return KF_DT_NONE;
    for (int k = 0; k < 3 && p; k++) { /* past "Cijk_", the A index and the B index */
        p = strchr(p, '_');
        if (p) p++;
    }
    if (!p) return KF_DT_NONE;
    if (!strncmp(p, "F8", 2)) return KF_DT_FP8_E4M3;
    if (!strncmp(p, "B8", 2)) return KF_DT_FP8_E5M2;
    if (!strncmp(p, "I8", 2) || !strncmp(p, "4xi8", 4)) return KF_DT_INT8;
    switch (*p) {
    case 'S': return KF_DT_FP32;
    case 'D': return KF_DT_FP64;
    case 'H': return KF_DT_FP16;
    case 'B': return KF_DT_BF16;
    case 'X': return KF_DT_TF32;
    default: return KF_DT_NONE;
    }
}

/* BLAS precision prefixes (sgemm, hgemm, dgemm, scudnn) count only as a word's start:
 * "cublasGemv" is not "sgemv" */
static const char letters[] = "abcdefghijklmnopqrstuvwxyz";

static int dtype_of(span low, const char *name) {
    int t = tensile_dtype(name);
    if (t != KF_DT_NONE) return t;
    /* triton_kernels' matmul_ogs: _matmul_ogs_<layout>_<A>x<B>x<W>: the activations' type is what runs
     * (mxfp4 weights are upcast to it on Hopper; fp8 x mxfp4 runs at the FP8 rate on Blackwell) */
    const char *m = memmem(low.s, low.n, "matmul_ogs_", 11);
    if (m) {
        span rest = {m + 11, low.n - (size_t)(m + 11 - low.s), NULL};
        const char *u = memchr(rest.s, '_', rest.n);
        if (u) {
            span a = {u + 1, rest.n - (size_t)(u + 1 - rest.s), NULL};
            const char *x = memchr(a.s, 'x', a.n);
            if (x) a.n = (size_t)(x - a.s);
            if (starts(a, "fp8e4")) return KF_DT_FP8_E4M3;
            if (starts(a, "fp8e5")) return KF_DT_FP8_E5M2;
            if (starts(a, "bf16")) return KF_DT_BF16;
            if (starts(a, "fp16")) return KF_DT_FP16;
            if (starts(a, "mxfp4")) return KF_DT_MXFP4;
        }
    }
    if (in(low, "e4m3") || in(low, "fp8e4")) return KF_DT_FP8_E4M3;
    if (in(low, "e5m2") || in(low, "fp8e5")) return KF_DT_FP8_E5M2;
    if (in(low, "fp8") || in(low, "float8")) return KF_DT_FP8;
    if (in(low, "mxfp4")) return KF_DT_MXFP4;
    if (in(low, "e2m1") || in(low, "nvfp4") || in(low, "fp4")) return KF_DT_FP4;
    if (in(low, "bf16") || in(low, "bfloat16") || in(low, "bfp16")) return KF_DT_BF16;
    if (in(low, "tf32")) return KF_DT_TF32;
    static const char *const half[] = {"fp16", "half", "h884", "h1688", "h16816", "float16", NULL};
    if (any(low, half) || tok(low, "f16", "bt") || tok(low, "hgemm", letters)) return KF_DT_FP16;
    static const char *const i8[] = {"int8", "i8816", "i16832", "imma", "i8i8", NULL};
    if (any(low, i8)) return KF_DT_INT8;
    if (in(low, "fp64") || tok(low, "dgemm", letters) || tok(low, "f64", "")) return KF_DT_FP64;
    /* CUTLASS 2 / cuBLAS "s1688gemm" without a half type: FP32 operands on the m16n8k8 TF32 instruction */
    if (in(low, "s1688gemm")) return KF_DT_TF32;
    static const char *const f32[] = {"fp32", "float32", NULL};
    if (any(low, f32) || tok(low, "f32", "t") || tok(low, "sgemm", letters) || tok(low, "scudnn", letters) ||
        tok(low, "sgemv", letters))
        return KF_DT_FP32;
    return KF_DT_NONE;
}

/* ---- matrix cores (docs/tensor-cores.md) ---- */
static const char *const mc_no[] = {"_simt_", "subtensorop", "batchdecodewith", "singledecodewith", "kernel_gemm_dl",
                                    "miopensp3asmconv", "naive_conv", NULL};
static const char *const mc_yes[] = {
    "h884", "h1688", "h16816", "s884", "s1688", "s16816", "i8816", "i16832", "884gemm", "1688gemm", "16816gemm", "hmma",
    "imma", "xmma", "wgmma", "hgmma", "gmma", "tcgen05", "wmma", "tensorop", "gemmk1_tf32", "_tf32_",
    "cutlass_80_", "cutlass_90_", "mfma", "flash_fwd", "flash_bwd", "flashattnfwd", "flashattnbwd", "nvjet", "_xdl",
    "xdlops", "gtcx", "deep_gemm", "matmul_ogs", "marlin", "kernel_moe_gemm", "batchprefillwith", "singleprefillwith", NULL};
static const char *const mc_arch[] = {"sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm120", NULL};

static int mc_of(span low, const char *name, int family, int dtype) {
    if (any(low, mc_no)) return 0;
    if (any(low, mc_yes)) return 1;
    /* Blackwell's UMMA (tcgen05.mma) as CUTLASS and DeepGEMM spell it: case-sensitive, as
     * "umma" is in "summary" */
    if (strstr(name, "UMMA") || strstr(name, "Umma")) return 1;
    /* Tensile / hipBLASLt MFMA GEMMs: Cijk_..._MI32x32x8x1_... (case-sensitive: MI and a digit) */
    if (strstr(name, "Cijk_"))
        for (const char *p = strstr(name, "_MI"); p; p = strstr(p + 1, "_MI"))
            if (isdigit((unsigned char)p[3])) return 1;
    int mm = family == KF_GEMM || family == KF_CONV || family == KF_ATTENTION;
    /* fused attention for sm75 and later (CUTLASS's, PyTorch's memory-efficient attention):
     * in fp32 the name does not say */
    if (in(low, "fmha") && any(low, mc_arch)) return in(low, "_f32_") ? -1 : 1;
    /* FP8 and FP4 products: no GPU multiplies these types outside its matrix cores */
    if (mm && (dtype == KF_DT_FP8_E4M3 || dtype == KF_DT_FP8_E5M2 || dtype == KF_DT_FP8 || dtype == KF_DT_MXFP4 ||
               dtype == KF_DT_FP4))
        return 1;
    /* CUTLASS 3 / cuBLAS / DeepGEMM GEMMs built for Hopper and Blackwell: wgmma, UMMA */
    if (family == KF_GEMM && (in(low, "sm90") || in(low, "sm100") || in(low, "sm103") || in(low, "sm120")))
        return 1;
    /* Triton: Inductor's templates (triton_tem_*mm*) and named matmuls run tl.dot */
    if (in(low, "triton")) {
        if (family == KF_GEMM) return 1;
        if (starts(low, "triton_poi") || starts(low, "triton_red") || starts(low, "triton_per"))
            return in(low, "_mm") || in(low, "matmul") || in(low, "dot") ? -1 : 0;
        return -1;
    }
    /* a GEMM in a half type that no rule above places: cuBLAS gemv, or an unknown library */
    if (family == KF_GEMM && (dtype == KF_DT_BF16 || dtype == KF_DT_FP16) && !in(low, "gemv")) return -1;
    return 0;
}

/* A name lowercased with its bigram filter: held in buf when it fits, else on the heap
 * (low_done frees it). low_of fills one and returns its span; a NULL name reads as "". */
typedef struct lowname { char buf[1024]; char *s; uint64_t bg[BG_BITS / 64]; } lowname;

static span low_of(lowname *l, const char *name) {
    if (!name) name = "";
    size_t n = strlen(name);
    l->s = n < sizeof l->buf ? l->buf : xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) l->s[i] = (char)tolower((unsigned char)name[i]);
    l->s[n] = 0;
    bg_fill(l->bg, l->s, n);
    return (span){l->s, n, l->bg};
}

static void low_done(lowname *l) {
    if (l->s != l->buf) free(l->s);
}

int kf_comm_lib(const char *name) {
    if (!name) name = "";
    lowname l;
    int lib = comm_lib(low_of(&l, name), name);
    low_done(&l);
    return lib;
}

kf_info kf_classify(const char *name) {
    if (!name) name = "";
    lowname l;
    span low = low_of(&l, name);
    kf_info r = {KF_OTHER, 0, KF_DT_NONE, KF_LIB_NONE};
    int lib = comm_lib(low, name);
    if (lib != KF_LIB_NONE) {
        r.family = KF_COMM;
        r.lib = (uint8_t)lib;
    } else if (any(low, p_copy)) {
        r.family = KF_COPY;
    } else {
        int f = family_in(head_of(low));
        if (f == KF_OTHER) f = family_in(low);
        r.family = (uint8_t)f;
    }
    r.dtype = (uint8_t)dtype_of(low, name);
    r.mc = r.family == KF_COMM || r.family == KF_COPY ? 0 : (int8_t)mc_of(low, name, r.family, r.dtype);
    low_done(&l);
    assert(r.family < KF_NFAMILY && r.dtype < KF_NDTYPE && r.lib < KF_NLIB && r.mc >= -1 && r.mc <= 1);
    return r;
}

/* 0 when no rule of mc_of can answer other than 0 for the name: none of the patterns it reads
 * (mc_yes, UMMA, Cijk_, fmha, triton) occurs, nor any that makes a GEMM, convolution or attention
 * (the families its other rules need); 1 when one may. The same lists, so never out of step. */
static int mc_may(span low) {
    static const char *const mc_other[] = {"umma", "cijk_", "fmha", "triton", NULL};
    return any(low, mc_yes) || any(low, mc_other) || any(low, p_attn) || any(low, p_conv) || any(low, p_gemm) ||
           tok(low, "gemm", "b");
}

int kf_matrix_core(const char *name) {
    if (!name) name = "";
    lowname l;
    int may = mc_may(low_of(&l, name));
    low_done(&l);
    return may ? kf_classify(name).mc : 0;
}

/* a matrix product's operator, by name (aten::mm, aten::addmm, ..., their autograd nodes) */
static int op_is_matmul(const char *op) {
    static const char *const mm[] = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
                                     "aten::linear", "aten::_scaled_mm", "aten::_grouped_mm", "aten::_scaled_grouped_mm",
                                     NULL};
    for (int i = 0; mm[i]; i++) {
        size_t k = strlen(mm[i]);
        if (!strncmp(op, mm[i], k) && (op[k] == 0 || op[k] == '_')) return 1;
    }
    return 0;
}

int kf_matrix_core_under(const char *name, const char *op) {
    kf_info k = kf_classify(name);
    if (k.mc == -1 && op && name && strstr(name, "triton") && op_is_matmul(op)) return 1;
    return k.mc;
}

const char *kf_family_name(int f) {
    static const char *const n[KF_NFAMILY] = {"gemm",        "convolution", "attention",     "normalization", "layout",
                                              "elementwise", "reduction",   "communication", "copy",          "other"};
    return f >= 0 && f < KF_NFAMILY ? n[f] : "other";
}
const char *kf_family_label(int f) {
    static const char *const n[KF_NFAMILY] = {"GEMM",        "Convolution", "Attention",     "Normalization",
                                              "Layout / transpose", "Elementwise", "Reduction", "Communication",
                                              "Copy / memset", "Other"};
    return f >= 0 && f < KF_NFAMILY ? n[f] : "Other";
}
const char *kf_dtype_name(int d) {
    static const char *const n[KF_NDTYPE] = {"",     "fp8_e4m3", "fp8_e5m2", "fp8",  "mxfp4", "fp4",
                                             "bf16", "fp16",     "tf32",     "fp32", "fp64",  "int8"};
    return d >= 0 && d < KF_NDTYPE ? n[d] : "";
}
const char *kf_lib_name(int l) {
    static const char *const n[KF_NLIB] = {"",       "nccl",      "msccl", "deepep", "nvshmem", "mscclpp", "oneccl",
                                           "gloo",   "custom_ar", "hccl",  "p2p",    "mori",    "other"};
    return l >= 0 && l < KF_NLIB ? n[l] : "";
}
const char *kf_mc_name(int mc) { return mc > 0 ? "yes" : mc == 0 ? "no" : "unknown"; }
