/* flops.h - floating-point operations and bytes moved by an operator call,
 * from its input shapes and types (Kineto's "Input Dims", "Input type" and,
 * where present, "Concrete Inputs"), following PyProf's definitions:
 *
 *   mm, addmm, matmul, linear (M×K by K×N):  2·M·N·K
 *   bmm, baddbmm (batch B):                  2·B·M·N·K
 *   convolution forward:                     2·N·K·P·Q·C·R·S / groups
 *     (P, Q: output height and width, from stride, padding and dilation)
 *   convolution backward:                    2 × forward for each of the data
 *     and weight gradients computed (both unless output_mask says otherwise)
 *   scaled dot-product attention:            2·B·H·L·S'·E + 2·B·H·L·S'·Ev, S' the keys each
 *     query attends to: S, S/2 under a causal mask (FlashAttention's count),
 *     at most left + right + 1 in a sliding window; each operator read in its
 *     own layout ((B, H, L, E), or (B, L, H, E) for _flash_attention_forward)
 *   elementwise (add, mul, relu, ...):       one per output element
 *   norms 4 (5 affine), RMS norm 3 (4), softmax 5 per element; reductions 1
 *   per input element; embedding 0 (bytes only)
 *   bytes: every tensor input read once and the output written once.
 * docs/flops.md is the full table, with what is not covered.
 *
 * op_flops returns 1 and fills r when the operator has a formula and the
 * trace holds what it needs, else 0: the caller shows "n/a", never a guess.
 */
#ifndef PC_FLOPS_H
#define PC_FLOPS_H
#include <stdint.h>

enum pc_dtype { DT_UNKNOWN = 0, DT_FP64, DT_FP32, DT_FP16, DT_BF16, DT_FP8, DT_INT8, DT_INT, DT_BOOL, DT_FP4, DT_COUNT };
extern const char *const pc_dtype_name[DT_COUNT];

enum { OPA_MAX = 16, SHAPE_MAX = 8 };
typedef struct op_args {
    int n;                          /* number of arguments seen */
    int nd[OPA_MAX];                /* dims per argument; -1 = not a tensor / unknown */
    int64_t d[OPA_MAX][SHAPE_MAX];
    int dtype[OPA_MAX];
    int ncon[OPA_MAX];              /* concrete int list per argument, -1 = none */
    int64_t con[OPA_MAX][4];
    double stored[OPA_MAX];         /* elements in memory of an expanded input (a stride of 0); -1: its shape's */
    double list_numel[OPA_MAX];     /* a tensor list ([[2,3],[4]]): the elements of all its tensors; -1: not one */
} op_args;

typedef struct flops_result {
    double flops, bytes;
    int dtype;                      /* of the main operand */
    int is_gemm;                    /* a matrix product (for the /8 alignment rule) */
    int64_t m, n, k;                /* GEMM dimensions when is_gemm */
    int misaligned;                 /* some GEMM dimension not divisible by 8 */
} flops_result;

/* What other events of the trace tell about a call (all optional):
 * out_sp: the output's spatial dims of a forward convolution, read from the
 * grad_output shape of its autograd node (same Sequence number), exact when
 * "Concrete Inputs" (stride, padding) are absent; bw_passes: how many of the
 * data and weight gradients a convolution backward computed (its
 * *_backward_input / *_backward_weight children). */
typedef struct flops_hints { int nsp; int64_t out_sp[3]; int bw_passes; } flops_hints;

/* Fills a from the compact JSON texts (any may be NULL/empty). */
void op_args_parse(op_args *a, const char *dims, const char *types, const char *concrete);
int op_flops(const char *op_name, const op_args *a, const flops_hints *hints, flops_result *r);
/* 1 when op_flops has a formula for this operator name (a cheap pre-check). */
int op_flops_known(const char *op_name);
/* 1 for matrix products and convolutions: operators that can run on Tensor Cores. */
int op_tc_eligible(const char *op_name);
int dtype_from_name(const char *s);
#endif
