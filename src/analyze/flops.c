#include "flops.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

const char *const pc_dtype_name[DT_COUNT] = {"unknown", "fp64", "fp32", "fp16", "bf16", "fp8", "int8", "int", "bool", "fp4"};
static const int dtype_size[DT_COUNT] = {0, 8, 4, 2, 2, 1, 1, 8, 1, 1}; /* fp4: Float4_e2m1fn_x2, two values a byte */

int dtype_from_name(const char *s) {
    if (!strcmp(s, "float")) return DT_FP32;
    if (!strcmp(s, "double")) return DT_FP64;
    if (strstr(s, "Half")) return DT_FP16;
    if (strstr(s, "BFloat16")) return DT_BF16;
    if (strstr(s, "Float8")) return DT_FP8;
    if (strstr(s, "Float4")) return DT_FP4;
    if (!strcmp(s, "signed char") || !strcmp(s, "unsigned char")) return DT_INT8;
    if (!strcmp(s, "long int") || !strcmp(s, "int") || !strcmp(s, "long") || !strcmp(s, "int64_t")) return DT_INT;
    if (!strcmp(s, "bool")) return DT_BOOL;
    return DT_UNKNOWN;
}

/* "[[1,2],[],[3]]": one list per argument, into d and nd (-1: not a list);
 * returns the number of arguments */
static int parse_lists(const char *s, int64_t d[OPA_MAX][SHAPE_MAX], int nd_out[OPA_MAX], double *list_numel) {
    if (!s || *s != '[') return 0;
    s++;
    int arg = 0;
    while (*s && *s != ']' && arg < OPA_MAX) {
        if (*s == ',') { s++; continue; }
        if (s[0] == '[' && s[1] == '[') {
            /* a tensor list: one shape per tensor; the elements of all of them */
            s++;
            double total = 0;
            int bad = 0;
            while (*s && *s != ']') {
                if (*s == ',') { s++; continue; }
                if (*s != '[') { bad = 1; break; }
                s++;
                double e = 1;
                while (*s && *s != ']') {
                    if (*s == ',') { s++; continue; }
                    char *end;
                    long long v = strtoll(s, &end, 10);
                    if (end == s || v < 0) { bad = 1; break; }
                    e *= (double)v;
                    s = end;
                }
                if (bad) break;
                if (*s == ']') s++;
                total += e;
            }
            while (*s && *s != ']') s++; /* the rest of a list not understood */
            if (*s == ']') s++;
            nd_out[arg] = -1;
            if (list_numel && !bad) list_numel[arg] = total;
        } else if (*s == '[') {
            s++;
            int nd = 0, bad = 0;
            while (*s && *s != ']') {
                if (*s == ',') { s++; continue; }
                char *end;
                long long v = strtoll(s, &end, 10);
                /* a size below 0 is no shape (strides may be, but none is read below 0) */
                if (end == s || v < 0) { bad = 1; while (*s && *s != ']') s++; break; }
                if (nd < SHAPE_MAX) d[arg][nd] = v;
                nd++;
                s = end;
            }
            if (*s == ']') s++;
            nd_out[arg] = bad || nd > SHAPE_MAX ? -1 : nd;
        } else {
            /* a non-list entry (older traces): skip it */
            while (*s && *s != ',' && *s != ']') s++;
            nd_out[arg] = -1;
        }
        arg++;
    }
    return arg;
}

static void parse_dims(op_args *a, const char *s) {
    int n = parse_lists(s, a->d, a->nd, a->list_numel);
    if (n > a->n) a->n = n;
}

/* "Input Strides" (after the newline in the types text, trace.h): an input
 * with a stride of 0 on a dimension of size > 1 is expanded, and holds only
 * the elements of its other dimensions in memory */
static void parse_strides(op_args *a, const char *s) {
    int64_t st[OPA_MAX][SHAPE_MAX];
    int nst[OPA_MAX];
    int n = parse_lists(s, st, nst, NULL);
    for (int i = 0; i < n && i < a->n; i++) {
        if (nst[i] != a->nd[i] || a->nd[i] < 0) continue;
        double e = 1;
        int expanded = 0;
        for (int k = 0; k < a->nd[i]; k++) {
            if (st[i][k] == 0 && a->d[i][k] > 1) expanded = 1;
            else e *= (double)a->d[i][k];
        }
        if (expanded) a->stored[i] = e;
    }
}

/* The elements of a list like ["float","",1] (Kineto's Input type and
 * Concrete Inputs), at most OPA_MAX: each string's text [str, end) (escapes
 * left in), NULL for anything else, given to fn with its position. An
 * unterminated string ends the list. */
typedef void (*elem_fn)(op_args *a, int arg, const char *str, const char *end);
static void each_elem(op_args *a, const char *s, elem_fn fn) {
    if (!s || *s != '[') return;
    s++;
    for (int arg = 0; *s && *s != ']' && arg < OPA_MAX;) {
        if (*s == ',') { s++; continue; }
        if (*s != '"') {
            while (*s && *s != ',' && *s != ']') s++;
            fn(a, arg++, NULL, NULL);
            continue;
        }
        const char *str = ++s;
        while (*s && *s != '"') s += *s == '\\' && s[1] ? 2 : 1;
        if (!*s) return;
        fn(a, arg++, str, s++);
    }
}

/* ["float","float",""]: each argument's type */
static void type_of(op_args *a, int arg, const char *s, const char *e) {
    char buf[64];
    int n = 0;
    for (; s && s < e; s++) {
        if (*s == '\\' && s + 1 < e) s++;
        if (n < 63) buf[n++] = *s;
    }
    buf[n] = 0;
    a->dtype[arg] = s ? dtype_from_name(buf) : DT_UNKNOWN;
}

/* ["","","[1, 1]","[0, 0]","1"]: int lists or single ints per argument */
static void concrete_of(op_args *a, int arg, const char *s, const char *e) {
    if (!s) return;
    int n = 0;
    const char *p = s;
    if (*p == '[') p++;
    while (p < e) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p && (!strncmp(p, "True", 4) || !strncmp(p, "False", 5))) {
            v = *p == 'T';
            end = (char *)p + (*p == 'T' ? 4 : 5);
        }
        if (end == p) { if (*p == ']' || *p == ' ' || *p == ',') { p++; continue; } n = -1; break; }
        if (n >= 0 && n < 4) a->con[arg][n] = v;
        n++;
        p = end;
    }
    a->ncon[arg] = (e == s) ? -1 : (n > 4 ? -1 : n);
}

void op_args_parse(op_args *a, const char *dims, const char *types, const char *concrete) {
    memset(a, 0, sizeof *a);
    for (int i = 0; i < OPA_MAX; i++) a->nd[i] = -1, a->ncon[i] = -1, a->stored[i] = a->list_numel[i] = -1;
    parse_dims(a, dims);
    each_elem(a, types, type_of);
    const char *nl = types ? strchr(types, '\n') : NULL;
    if (nl) parse_strides(a, nl + 1);
    each_elem(a, concrete, concrete_of);
}

static const char *base_name(const char *n) { return !strncmp(n, "aten::", 6) ? n + 6 : n; }

static double numel(const op_args *a, int i) {
    if (i >= a->n || a->nd[i] < 0) return 0;
    double e = 1;
    for (int k = 0; k < a->nd[i]; k++) e *= (double)a->d[i][k];
    return e;
}

/* elements an input holds in memory: fewer than its shape's when expanded */
static double stored_numel(const op_args *a, int i) {
    return i < a->n && a->stored[i] >= 0 ? a->stored[i] : numel(a, i);
}

static int esize(const op_args *a, int i, int fallback) {
    int dt = i < OPA_MAX ? a->dtype[i] : DT_UNKNOWN;
    int s = dtype_size[dt];
    return s ? s : fallback;
}

static int is(const char *n, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(n, *list)) return 1;
    return 0;
}

static void gemm(flops_result *r, double batch, int64_t m, int64_t n, int64_t k) {
    r->is_gemm = 1;
    r->m = m, r->n = n, r->k = k;
    r->flops = 2.0 * batch * (double)m * (double)n * (double)k;
    r->misaligned = (m % 8) || (n % 8) || (k % 8);
}

static int tensor(const op_args *a, int i, int nd) { return i < a->n && a->nd[i] == nd; }

/* conv forward with output spatial dims known */
static void conv_fwd(flops_result *r, const op_args *a, int in, int w, const int64_t *out_sp, int nsp, int64_t groups) {
    double nb = (double)a->d[in][0], c = (double)a->d[in][1], k = (double)a->d[w][0];
    double rs = 1, pq = 1;
    for (int i = 0; i < nsp; i++) rs *= (double)a->d[w][2 + i], pq *= (double)out_sp[i];
    r->flops = 2.0 * nb * k * pq * c * rs / (double)groups;
    int es = esize(a, in, 4);
    r->bytes = (numel(a, in) + numel(a, w) + nb * k * pq) * es;
    r->dtype = a->dtype[in];
}

/* Optimizer steps over tensor lists (PyTorch's foreach and fused kernels),
 * when the trace records the lists' shapes (PyTorch 2.4 and later; older
 * traces record a TensorList as [] and the figure is n/a). Element size:
 * 4 bytes (optimizer state is fp32; "TensorList" carries no dtype).
 *   _foreach_<op>(list, list or scalar, ...): per element of the first list
 *     one operation (as the elementwise operator), reading each tensor-list
 *     operand once and writing the result once;
 *   _fused_adam_ / _fused_adamw_ (params, grads, exp_avgs, exp_avg_sqs,
 *     max_exp_avg_sqs, ...): the update of torch.optim.Adam's documentation
 *     per parameter: m = b1 m + (1-b1) g (3), v = b2 v + (1-b2) g^2 (4),
 *     bias corrections m/(1-b1^t), v/(1-b2^t) (2), p -= lr m / (sqrt(v) + eps)
 *     (5): 14 operations; AdamW's decoupled decay p -= lr wd p adds 2; reads
 *     p, g, m, v and writes p, m, v (7 accesses; amsgrad's max_exp_avg_sqs,
 *     when its list is not empty, 2 more). */
static const char *const foreach_ops[] = {"_foreach_add", "_foreach_add_", "_foreach_sub", "_foreach_sub_", "_foreach_mul",
    "_foreach_mul_", "_foreach_div", "_foreach_div_", "_foreach_addcmul_", "_foreach_addcdiv_", "_foreach_sqrt", "_foreach_sqrt_",
    "_foreach_lerp_", "_foreach_neg", "_foreach_neg_", "_foreach_exp", "_foreach_exp_", "_fused_adam_", "_fused_adamw_", NULL};
static int is(const char *n, const char *const *list);

static int optimizer_flops(const char *n, const op_args *a, flops_result *r) {
    if (!is(n, foreach_ops)) return 0;
    double elems = a->n > 0 ? a->list_numel[0] : -1;
    if (elems < 0) return 0;
    if (!strcmp(n, "_fused_adam_") || !strcmp(n, "_fused_adamw_")) {
        int w = n[11] == 'w';
        double acc = 7 + (a->n > 4 && a->list_numel[4] > 0 ? 2 : 0);
        r->flops = (14 + 2 * w) * elems;
        r->bytes = acc * elems * 4;
        r->dtype = DT_FP32;
        return 1;
    }
    int lists = 0;
    for (int i = 0; i < a->n; i++) lists += a->list_numel[i] >= 0;
    r->flops = elems;
    r->bytes = (lists + 1) * elems * 4;
    r->dtype = DT_FP32;
    return 1;
}

/* The matrix products of two or three operands (mm, addmm, bmm, baddbmm):
 * 1 and their FLOPs and bytes (operands read, product written) when the
 * shapes are matrices (batches of them for bmm); 0 otherwise. */
static int gemm_flops(const char *n, const op_args *a, flops_result *r) {
    if (!strcmp(n, "mm") && tensor(a, 0, 2) && tensor(a, 1, 2)) {
        gemm(r, 1, a->d[0][0], a->d[1][1], a->d[0][1]);
        r->bytes = (numel(a, 0) + numel(a, 1) + ((double)r->m * (double)r->n)) * esize(a, 0, 4);
        return 1;
    }
    if (!strcmp(n, "addmm") && tensor(a, 1, 2) && tensor(a, 2, 2)) {
        gemm(r, 1, a->d[1][0], a->d[2][1], a->d[1][1]);
        r->dtype = a->dtype[1];
        r->bytes = (numel(a, 0) + numel(a, 1) + numel(a, 2) + ((double)r->m * (double)r->n)) * esize(a, 1, 4);
        return 1;
    }
    if (!strcmp(n, "bmm") && tensor(a, 0, 3) && tensor(a, 1, 3)) {
        gemm(r, (double)a->d[0][0], a->d[0][1], a->d[1][2], a->d[0][2]);
        r->bytes = (numel(a, 0) + numel(a, 1) + ((double)a->d[0][0] * (double)r->m * (double)r->n)) * esize(a, 0, 4);
        return 1;
    }
    if (!strcmp(n, "baddbmm") && tensor(a, 1, 3) && tensor(a, 2, 3)) {
        gemm(r, (double)a->d[1][0], a->d[1][1], a->d[2][2], a->d[1][2]);
        r->dtype = a->dtype[1];
        r->bytes = (numel(a, 0) + numel(a, 1) + numel(a, 2) + ((double)a->d[1][0] * (double)r->m * (double)r->n)) * esize(a, 1, 4);
        return 1;
    }
    return 0;
}

/* linear(input [..., K], weight [N, K], bias): one GEMM of the input's
 * leading dims as rows; and matmul's broadcasting product (a batch of the
 * larger leading dims; vector products are no GEMM). 1 with their FLOPs,
 * 0 when the shapes do not fit. */
static int linear_matmul_flops(const char *n, const op_args *a, flops_result *r) {
    if (!strcmp(n, "linear") && a->n >= 2 && a->nd[0] >= 1 && tensor(a, 1, 2)) {
        int nd = a->nd[0];
        double m = 1;
        for (int i = 0; i < nd - 1; i++) m *= (double)a->d[0][i];
        if (a->d[0][nd - 1] != a->d[1][1]) return 0;
        gemm(r, 1, (int64_t)m, a->d[1][0], a->d[1][1]);
        r->bytes = (numel(a, 0) + numel(a, 1) + numel(a, 2) + m * (double)a->d[1][0]) * esize(a, 0, 4);
        return 1;
    }
    if (strcmp(n, "matmul") || a->n < 2 || a->nd[0] < 1 || a->nd[1] < 1) return 0;
    int na = a->nd[0], nb = a->nd[1];
    if (na == 1 || nb == 1) return 0; /* vector products: not a GEMM */
    int64_t m = a->d[0][na - 2], k = a->d[0][na - 1], n2 = a->d[1][nb - 1];
    if (a->d[1][nb - 2] != k) return 0;
    double batch = 1;
    int nbat = (na > nb ? na : nb) - 2;
    for (int i = 0; i < nbat; i++) {
        int ia = na - 3 - i, ib = nb - 3 - i;
        int64_t x = ia >= 0 ? a->d[0][ia] : 1, y = ib >= 0 ? a->d[1][ib] : 1;
        batch *= (double)(x > y ? x : y);
    }
    gemm(r, batch, m, n2, k);
    /* a batch of matrices times one matrix is folded into one product of batch x M rows
     * (what the kernel sees): aligned or not by that M */
    if (nb == 2 && na > 2) r->misaligned = ((int64_t)(batch * (double)m) % 8) || (n2 % 8) || (k % 8);
    r->bytes = (numel(a, 0) + numel(a, 1) + batch * (double)(m * n2)) * esize(a, 0, 4);
    return 1;
}

/* Convolutions forward (conv1d/2d/3d, convolution and the backends'
 * names): the output's spatial dims from stride, padding and dilation where
 * each signature holds them, else the ones the backward saw (hints); the
 * groups given, else input channels / weight channels. 1 with their FLOPs
 * (conv_fwd), 0 when the sizes are unknown. */
static int conv_flops(const char *n, const op_args *a, const flops_hints *hints, flops_result *r) {
    static const char *const convs[] = {"conv1d", "conv2d", "conv3d", "convolution", "_convolution", "cudnn_convolution",
                                        "thnn_conv2d", "slow_conv2d", "_slow_conv2d_forward", "mkldnn_convolution", NULL};
    if (!is(n, convs) || a->n < 2 || a->nd[0] < 3 || a->nd[1] != a->nd[0]) return 0;
    int nsp = a->nd[0] - 2;
    /* where stride, padding, dilation and groups sit in each signature */
    int is_cudnn = !strcmp(n, "cudnn_convolution");
    int si = is_cudnn ? 3 : 3, pi = is_cudnn ? 2 : 4, di = is_cudnn ? 4 : 5;
    int gi = !strcmp(n, "convolution") || !strcmp(n, "_convolution") ? 8 : is_cudnn ? 5 : 6;
    if (!strncmp(n, "conv", 4) && n[4] && n[5] == 'd') si = 3, pi = 4, di = 5, gi = 6;
    if (!strcmp(n, "mkldnn_convolution")) pi = 3, si = 4, di = 5, gi = 6;
    if (!strcmp(n, "thnn_conv2d") || !strcmp(n, "slow_conv2d") || !strcmp(n, "_slow_conv2d_forward")) si = 4, pi = 5, di = -1, gi = -1;
    int64_t groups = gi >= 0 && a->ncon[gi] == 1 ? a->con[gi][0] : (a->d[1][1] ? a->d[0][1] / a->d[1][1] : 1);
    if (groups <= 0) groups = 1;
    if (a->ncon[si] < 1 || a->ncon[pi] < 1) {
        /* stride and padding unknown: use the output size the backward saw, if any */
        if (!hints || hints->nsp != nsp) return 0;
        conv_fwd(r, a, 0, 1, hints->out_sp, nsp < 3 ? nsp : 3, groups);
        return 1;
    }
    int64_t out[3];
    for (int i = 0; i < nsp && i < 3; i++) {
        int64_t st = a->con[si][a->ncon[si] == 1 ? 0 : i], pad = a->con[pi][a->ncon[pi] == 1 ? 0 : i];
        int64_t dil = di >= 0 && a->ncon[di] >= 1 ? a->con[di][a->ncon[di] == 1 ? 0 : i] : 1;
        if (st <= 0) return 0;
        out[i] = (a->d[0][2 + i] + 2 * pad - dil * (a->d[1][2 + i] - 1) - 1) / st + 1;
    }
    conv_fwd(r, a, 0, 1, out, nsp < 3 ? nsp : 3, groups);
    return 1;
}

/* Convolutions backward: convolution_backward(grad_output [N,K,P,Q], input
 * [N,C,H,W], weight [K,C/g,R,S], ...); cudnn_convolution_backward (older)
 * has input first, then grad_output. The forward's FLOPs per gradient
 * computed (the output mask, or the passes the hints counted); 1 with
 * them, 0 when the shapes do not fit. */
static int conv_bw_flops(const char *n, const op_args *a, const flops_hints *hints, flops_result *r) {
    int cudnn_bw = !strcmp(n, "cudnn_convolution_backward");
    if ((!cudnn_bw && strcmp(n, "convolution_backward")) || a->n < 3 || a->nd[0] < 3 || a->nd[1] != a->nd[0] || a->nd[2] != a->nd[0]) return 0;
    int go = cudnn_bw ? 1 : 0, in = cudnn_bw ? 0 : 1;
    int nsp = a->nd[0] - 2;
    int gidx = cudnn_bw ? 6 : 9, midx = cudnn_bw ? 10 : 10;
    int64_t groups = a->ncon[gidx] == 1 ? a->con[gidx][0] : (a->d[2][1] ? a->d[in][1] / a->d[2][1] : 1);
    if (groups <= 0) groups = 1;
    flops_result f;
    memset(&f, 0, sizeof f);
    conv_fwd(&f, a, in, 2, &a->d[go][2], nsp < 3 ? nsp : 3, groups);
    int passes = 2;
    if (a->ncon[midx] >= 2) passes = (int)(a->con[midx][0] != 0) + (int)(a->con[midx][1] != 0);
    if (hints && hints->bw_passes > 0) passes = hints->bw_passes;
    r->flops = f.flops * passes;
    r->bytes = (numel(a, 0) + numel(a, 1) + numel(a, 2)) * esize(a, 0, 4) * 2;
    r->dtype = a->dtype[in];
    return 1;
}

/* Attention: each operator's layout and where its causal flag is (PyTorch's
 * signatures): SDPA and its backends take (B, H, L, E);
 * _flash_attention_forward (B, L, H, E), with is_causal at 8 and
 * window_size_left/right at 11/12. 1 with the two products' FLOPs over the
 * keys each query attends to, 0 when q, k, v are not 4-d. */
static int attention_flops(const char *n, const op_args *a, flops_result *r) {
    static const struct { const char *name; int blhe, causal_at; } attn[] = {
        {"scaled_dot_product_attention", 0, 5},          {"_scaled_dot_product_flash_attention", 0, 4},
        {"_scaled_dot_product_efficient_attention", 0, 6}, {"_scaled_dot_product_cudnn_attention", 0, 6},
        {"_flash_attention_forward", 1, 8},             {NULL, 0, 0}};
    for (int k = 0; attn[k].name; k++) {
        if (strcmp(n, attn[k].name) || a->n < 3 || !tensor(a, 0, 4) || !tensor(a, 1, 4) || !tensor(a, 2, 4)) continue;
        int bl = attn[k].blhe, ca = attn[k].causal_at;
        double b = (double)a->d[0][0], h = (double)a->d[0][bl ? 2 : 1], l = (double)a->d[0][bl ? 1 : 2], e = (double)a->d[0][3];
        double s = (double)a->d[1][bl ? 1 : 2], ev = (double)a->d[2][3];
        /* keys each query attends to: all S; half of them on average under a causal mask
         * (FlashAttention's convention); at most left + right + 1 in a window */
        double keys = s;
        if (a->ncon[ca] == 1 && a->con[ca][0]) keys = s / 2;
        if (bl && a->ncon[11] == 1 && a->ncon[12] == 1 && a->con[11][0] >= 0 && a->con[12][0] >= 0) {
            double w = (double)a->con[11][0] + (double)a->con[12][0] + 1;
            if (w < keys) keys = w;
        }
        r->flops = 2 * b * h * l * keys * e + 2 * b * h * l * keys * ev;
        /* q, k and v read, the output (B, H, L, Ev) written */
        r->bytes = (numel(a, 0) + numel(a, 1) + numel(a, 2) + b * h * l * ev) * esize(a, 0, 2);
        r->dtype = a->dtype[0];
        return 1;
    }
    return 0;
}

/* Normalizations (fvcore's count): 4 operations per element, 5 with an
 * affine weight (mean, variance, normalize; scale and shift); RMS norm has
 * no mean to subtract: 3, 4 with a weight. Bytes: the input read, the
 * output written, the parameters read. The weight is argument 2
 * (layer_norm, native_layer_norm, group_norm), 1 (batch_norm,
 * native_group_norm) or 2 (rms_norm). 1 with them, else 0. */
static int norm_flops(const char *n, const op_args *a, flops_result *r) {
    static const struct { const char *name; int weight_at, per_elem; } norms[] = {
        {"layer_norm", 2, 4}, {"native_layer_norm", 2, 4}, {"group_norm", 2, 4}, {"native_group_norm", 1, 4},
        {"batch_norm", 1, 4}, {"native_batch_norm", 1, 4}, {"_batch_norm_impl_index", 1, 4}, {"cudnn_batch_norm", 1, 4},
        {"rms_norm", 2, 3}, {"_fused_rms_norm", 2, 3}, {NULL, 0, 0}};
    for (int k = 0; norms[k].name; k++) {
        if (strcmp(n, norms[k].name) || a->n < 1 || a->nd[0] < 1) continue;
        int w = norms[k].weight_at, affine = w < a->n && a->nd[w] >= 1;
        double x = numel(a, 0), params = affine ? numel(a, w) * (w + 1 < a->n && a->nd[w + 1] >= 1 ? 2 : 1) : 0;
        r->flops = x * (norms[k].per_elem + affine);
        r->bytes = (2 * x + params) * esize(a, 0, 4);
        return 1;
    }
    return 0;
}

/* Softmax and log-softmax (5 per element: max, subtract, exp, sum, divide
 * or log; one read, one write), reductions (one operation per input
 * element; the input read: the output, one value per reduced row, is not
 * known from the shapes and is left out) and embedding(weight [V, D],
 * indices) (a gather, no arithmetic; the rows read and written and the
 * indices, int64, read). 1 with them, else 0. */
static int row_flops(const char *n, const op_args *a, flops_result *r) {
    static const char *const softmax[] = {"softmax", "_softmax", "log_softmax", "_log_softmax", NULL};
    if (is(n, softmax) && a->n >= 1 && a->nd[0] >= 1) {
        r->flops = 5 * numel(a, 0);
        r->bytes = 2 * numel(a, 0) * esize(a, 0, 4);
        return 1;
    }
    static const char *const reductions[] = {"sum", "mean", "amax", "amin", "max", "min", "norm", "linalg_vector_norm", NULL};
    if (is(n, reductions) && a->n >= 1 && a->nd[0] >= 1 && a->dtype[0] != DT_UNKNOWN) {
        r->flops = numel(a, 0);
        r->bytes = numel(a, 0) * esize(a, 0, 4);
        return 1;
    }
    if (!strcmp(n, "embedding") && a->n >= 2 && tensor(a, 0, 2) && a->nd[1] >= 0) {
        double rows = numel(a, 1), d = (double)a->d[0][1];
        r->flops = 0;
        r->bytes = 2 * rows * d * esize(a, 0, 4) + rows * 8;
        return 1;
    }
    return 0;
}

/* Elementwise operators and how many tensor operands each reads (a
 * further tensor argument is an out= tensor, written: counted once as the
 * output, not read): one operation per output element, the broadcast of
 * the tensor inputs. 1 with them, 0 when the shapes do not broadcast or no
 * operand is a tensor of known type. */
static int elementwise_flops(const char *n, const op_args *a, flops_result *r) {
    static const struct { const char *name; int arity; } ew[] = {
        {"add", 2}, {"add_", 2}, {"sub", 2}, {"sub_", 2}, {"mul", 2}, {"mul_", 2}, {"div", 2}, {"div_", 2},
        {"relu", 1}, {"relu_", 1}, {"sigmoid", 1}, {"sigmoid_", 1}, {"tanh", 1}, {"tanh_", 1}, {"gelu", 1},
        {"silu", 1}, {"silu_", 1}, {"threshold_backward", 2}, {"clamp_min", 1}, {"clamp_min_", 1}, {"neg", 1},
        {"exp", 1}, {"log", 1}, {"sqrt", 1}, {"rsqrt", 1}, {"pow", 2}, {"where", 3}, {"hardtanh", 1},
        {"hardtanh_", 1}, {"leaky_relu", 1}, {"leaky_relu_", 1}, {"gelu_backward", 2}, {"sigmoid_backward", 2},
        {"tanh_backward", 2}, {"silu_backward", 2}, {"addcmul_", 3}, {"addcdiv_", 3}, {NULL, 0}};
    int arity = 0;
    for (int k = 0; ew[k].name && !arity; k++)
        if (!strcmp(n, ew[k].name)) arity = ew[k].arity;
    if (!arity) return 0;
    int ond = 0;
    int64_t out[SHAPE_MAX] = {0};
    double in_bytes = 0;
    int any = 0;
    for (int i = 0; i < a->n && any < arity; i++) {
        if (a->nd[i] < 0 || a->dtype[i] == DT_UNKNOWN) continue;
        any++;
        in_bytes += stored_numel(a, i) * esize(a, i, 4);
        int nd = a->nd[i];
        if (nd > ond) {
            int64_t tmp[SHAPE_MAX];
            for (int k = 0; k < nd; k++) tmp[k] = 1;
            for (int k = 0; k < ond; k++) tmp[nd - ond + k] = out[k];
            memcpy(out, tmp, sizeof tmp);
            ond = nd;
        }
        for (int k = 0; k < nd; k++) {
            int64_t v = a->d[i][k], *o = &out[ond - nd + k];
            if (*o == 1 || *o == 0) *o = v;
            else if (v != 1 && v != *o) return 0; /* shapes do not broadcast */
        }
    }
    if (!any) return 0;
    double oe = 1;
    for (int k = 0; k < ond; k++) oe *= (double)out[k];
    r->flops = oe;
    r->bytes = in_bytes + oe * esize(a, 0, 4);
    return 1;
}

/* The families in turn (each operator name belongs to one of them, so at
 * most one counts): 1 and r when one does, else 0. */
int op_flops(const char *full, const op_args *a, const flops_hints *hints, flops_result *r) {
    memset(r, 0, sizeof *r);
    const char *n = base_name(full);
    r->dtype = a->dtype[0];
    int ok = optimizer_flops(n, a, r) || gemm_flops(n, a, r) || linear_matmul_flops(n, a, r) || conv_flops(n, a, hints, r) ||
             conv_bw_flops(n, a, hints, r) || attention_flops(n, a, r) || norm_flops(n, a, r) || row_flops(n, a, r) ||
             elementwise_flops(n, a, r);
    assert(r->dtype >= 0 && r->dtype < DT_COUNT); /* pc_dtype_name's index (operators.c) */
    return ok;
}

int op_flops_known(const char *full) {
    static const char *const names[] = {"mm", "addmm", "bmm", "baddbmm", "linear", "matmul", "conv1d", "conv2d", "conv3d",
        "convolution", "_convolution", "cudnn_convolution", "thnn_conv2d", "slow_conv2d", "_slow_conv2d_forward",
        "mkldnn_convolution", "convolution_backward", "cudnn_convolution_backward", "scaled_dot_product_attention",
        "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
        "_flash_attention_forward", "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "relu", "relu_", "sigmoid",
        "sigmoid_", "tanh", "tanh_", "gelu", "silu", "silu_", "threshold_backward", "clamp_min", "clamp_min_", "neg", "exp",
        "log", "sqrt", "rsqrt", "pow", "where", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "gelu_backward",
        "sigmoid_backward", "tanh_backward", "silu_backward", "addcmul_", "addcdiv_", "layer_norm", "native_layer_norm",
        "group_norm", "native_group_norm", "batch_norm", "native_batch_norm", "_batch_norm_impl_index", "cudnn_batch_norm",
        "rms_norm", "_fused_rms_norm", "softmax", "_softmax", "log_softmax", "_log_softmax", "sum", "mean", "amax", "amin",
        "max", "min", "norm", "linalg_vector_norm", "embedding", NULL};
    return is(base_name(full), names) || is(base_name(full), foreach_ops);
}

int op_tc_eligible(const char *full) {
    const char *n = base_name(full);
    static const char *const list[] = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "conv1d", "conv2d", "conv3d",
                                       "convolution", "_convolution", "cudnn_convolution", "convolution_backward",
                                       "cudnn_convolution_backward", "scaled_dot_product_attention", "einsum",
                                       "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
                                       "conv_transpose2d", "cudnn_convolution_transpose", NULL};
    if (is(n, list)) return 1;
    /* the backward halves of a convolution (aten::cudnn_convolution_backward_input and _weight,
     * miopen_convolution_backward_*): its dgrad and wgrad kernels (#32); not the reference
     * thnn/slow convolutions, which are no_cudnn's */
    if (strstr(n, "convolution_backward") && !strstr(n, "thnn") && !strstr(n, "slow_conv")) return 1;
    return strstr(n, "ConvolutionBackward") || strstr(n, "MmBackward") || strstr(n, "AddmmBackward") || strstr(n, "BmmBackward");
}
