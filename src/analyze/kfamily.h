/* Kernel families from kernel names (docs/tensor-cores.md,
 * docs/communication-kernels.md): what a GPU activity is (GEMM, convolution,
 * attention, ..., communication, copy), whether it runs on the matrix cores
 * (NVIDIA Tensor Cores, AMD MFMA/WMMA), the data type its name states, and,
 * for communication, the library that ships it. One place for every rule;
 * name_is_nccl (steps.c) and kernel_uses_tensor_cores (kernels.c) read it.
 *
 * Safe on any string: any bytes, any length (names longer than the stack
 * buffer are lowercased into a heap copy), NULL reads as "". Pure: same name,
 * same answer; no state, so any thread may call it. */
#ifndef PC_KFAMILY_H
#define PC_KFAMILY_H
#include <stdint.h>

typedef enum {
    KF_GEMM, KF_CONV, KF_ATTENTION, KF_NORM, KF_LAYOUT, KF_ELEMENTWISE, KF_REDUCTION, KF_COMM, KF_COPY, KF_OTHER,
    KF_NFAMILY
} kf_family;

/* the data type a name states (the operands' type on the matrix cores where it says both) */
typedef enum {
    KF_DT_NONE, KF_DT_FP8_E4M3, KF_DT_FP8_E5M2, KF_DT_FP8, KF_DT_MXFP4, KF_DT_FP4, KF_DT_BF16, KF_DT_FP16, KF_DT_TF32,
    KF_DT_FP32, KF_DT_FP64, KF_DT_INT8, KF_NDTYPE
} kf_dtype;

/* communication libraries (KF_COMM only) */
typedef enum {
    KF_LIB_NONE, KF_LIB_NCCL, KF_LIB_MSCCL, KF_LIB_DEEPEP, KF_LIB_NVSHMEM, KF_LIB_MSCCLPP, KF_LIB_ONECCL, KF_LIB_GLOO,
    KF_LIB_CUSTOM_AR, KF_LIB_HCCL, KF_LIB_P2P, KF_LIB_MORI, KF_LIB_OTHER, KF_NLIB
} kf_lib;

typedef struct kf_info {
    uint8_t family; /* kf_family */
    int8_t mc;      /* matrix cores: 1 yes, 0 no, -1 the name does not say */
    uint8_t dtype;  /* kf_dtype */
    uint8_t lib;    /* kf_lib, KF_LIB_NONE unless family is KF_COMM */
} kf_info;

/* The family, matrix-core flag, data type and library of one GPU activity's
 * name (a kernel's, or a copy's "Memcpy PtoP (Device -> Device)"). The
 * matrix-core flag is the name's alone: the device (compute capability below
 * 7.0: none) is the caller's to apply. */
kf_info kf_classify(const char *name);

/* kf_classify(name).mc, at a fraction of its cost on names that hold none
 * of the patterns a matrix-core rule reads (those answer 0 at once): for
 * per-row questions over many distinct names (kernels.c's rows). */
int kf_matrix_core(const char *name);

/* kf_classify(name).lib alone (KF_LIB_NONE: not communication), at a third
 * of its cost: for the per-event "is it communication" questions. */
int kf_comm_lib(const char *name);

/* The matrix-core flag of a kernel launched under an operator (op: its
 * name, or NULL): a Triton kernel whose name does not say (-1) launched by
 * a matrix product (aten::mm, addmm, bmm, baddbmm, matmul, linear,
 * _scaled_mm, _grouped_mm) is a tl.dot on the matrix cores (1). Otherwise
 * kf_classify's flag. */
int kf_matrix_core_under(const char *name, const char *op);

/* Names for summary.json and the reports ("gemm", "fp8_e4m3", "deepep", ...);
 * never NULL: an out-of-range value reads "other" / "" / "". */
const char *kf_family_name(int family);
const char *kf_family_label(int family); /* "GEMM", "Layout / transpose", ... */
const char *kf_dtype_name(int dtype);
const char *kf_lib_name(int lib);
const char *kf_mc_name(int mc); /* "yes", "no", "unknown" */
#endif
