/* peaks.h - peak throughput of common GPUs, for "percent of peak".
 * The table and its sources are in docs/gpu-peaks.md. Figures are dense (no
 * structured sparsity), at the boost clock, in TFLOP/s (TOP/s for INT8) and
 * GB/s; AMD's matrix-core figures stand in the Tensor Core columns.
 *
 * A device is found by its name (deviceProperties.name, TARGET_INFO_GPU.name,
 * nvprof's device name), matched by whole words and case-insensitively, so
 * that "A10" is not "A100" or "A10G" and "L4" is not "L40". A name that names
 * no model (empty, "AMD Radeon Graphics", "NVIDIA Graphics Device", an ISA name
 * such as "gfx942") is matched by compute capability (or the ISA target),
 * SM/CU count and memory size instead, when exactly one set of figures fits;
 * the basis says which. */
#ifndef PC_PEAKS_H
#define PC_PEAKS_H
#include <stddef.h>
#include <stdint.h>
typedef struct gpu_peak {
    const char *match;      /* the word(s) of the device name it is found by */
    const char *label;
    double fp64, fp32, tf32, fp16, bf16, fp8; /* TFLOP/s; 0 = not supported */
    double fp4;             /* TFLOP/s (Blackwell, CDNA 4); 0 = not supported */
    double mem_gbs;         /* GB/s */
    double int8;            /* TOP/s, dense; 0 = not supported or not listed */
} gpu_peak;

/* What a trace says of a device (pc_device's fields); 0 / NULL where unknown. */
typedef struct peak_query {
    const char *name;       /* as the trace names it */
    const char *arch;       /* ISA target ("gfx942:sramecc+:xnack-"), NULL when not given */
    int cc_major, cc_minor; /* compute capability (AMD: the ISA's major.minor) */
    int sms;                /* SMs (AMD: CUs) */
    int64_t mem_bytes;      /* device memory */
    int warp_size;          /* 64 on AMD's Instinct parts */
} peak_query;

/* The device's peaks, or NULL when none is known. basis (cap bytes, may be NULL)
 * receives how it was found ("by name", "matched by gfx942, 304 CUs, 192 GiB"), or
 * when nothing fits a generic name, why ("" when the name is simply not listed). */
const gpu_peak *peak_match(const peak_query *q, char *basis, size_t cap);
/* peak_match of a device of the trace (its name, ISA target, compute capability,
 * SMs, memory and warp size). */
struct pc_trace;
struct pc_device;
const gpu_peak *peak_of_device(const struct pc_trace *t, const struct pc_device *d, char *basis, size_t cap);
/* By the name alone (peak_match without the other fields); NULL for unknown devices. */
const gpu_peak *peak_lookup(const char *device_name);
/* TFLOP/s for a data type (enum pc_dtype), given whether Tensor Cores ran. */
double peak_tflops(const gpu_peak *p, int dtype, int tensor_cores);
/* The rows, in matching order (tests, docs). */
const gpu_peak *peak_row(size_t i); /* NULL past the last */
#endif
