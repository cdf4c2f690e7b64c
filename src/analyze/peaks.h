/* peaks.h - peak throughput of common GPUs, for "percent of peak".
 * The table and its sources are in docs/gpu-peaks.md. peak_lookup matches
 * the deviceProperties name; NULL for unknown devices (no percentage then).
 * Figures are dense (no structured sparsity), in TFLOP/s and GB/s; AMD's
 * matrix-core figures stand in the Tensor Core columns. */
#ifndef PC_PEAKS_H
#define PC_PEAKS_H
typedef struct gpu_peak {
    const char *match;      /* substring of the device name */
    const char *label;
    double fp64, fp32, tf32, fp16, bf16, fp8; /* TFLOP/s; 0 = not supported */
    double fp4;             /* TFLOP/s (Blackwell); 0 = not supported */
    double mem_gbs;         /* GB/s */
} gpu_peak;
const gpu_peak *peak_lookup(const char *device_name);
/* TFLOP/s for a data type (enum pc_dtype), given whether Tensor Cores ran. */
double peak_tflops(const gpu_peak *p, int dtype, int tensor_cores);
#endif
