#include "peaks.h"
#include "flops.h"
#include <string.h>

/* Order matters: more specific names first. Sources: docs/gpu-peaks.md. */
static const gpu_peak table[] = {
    {"H200", "H200 SXM", 67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 4800},
    {"H100 PCIe", "H100 PCIe", 51, 51, 378, 756, 756, 1513, 0, 2000},
    {"H100 NVL", "H100 NVL", 60, 60, 417.5, 835, 835, 1670, 0, 3900},
    {"H100", "H100 SXM", 67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 3350},
    {"GB200", "GB200 (per GPU)", 45, 80, 1250, 2500, 2500, 5000, 10000, 8000},
    {"B200", "B200", 40, 80, 1100, 2250, 2250, 4500, 9000, 8000},
    {"MI325X", "Instinct MI325X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 6000},
    {"MI300X", "Instinct MI300X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 5300},
    {"MI250X", "Instinct MI250X (one GCD)", 47.85, 23.95, 47.85, 191.5, 191.5, 0, 0, 1638.4},
    {"A100-SXM4-80GB", "A100 SXM4 80GB", 19.5, 19.5, 156, 312, 312, 0, 0, 2039},
    {"A100 80GB PCIe", "A100 PCIe 80GB", 19.5, 19.5, 156, 312, 312, 0, 0, 1935},
    {"A100-PCIE-40GB", "A100 PCIe 40GB", 19.5, 19.5, 156, 312, 312, 0, 0, 1555},
    {"A100", "A100 SXM4 40GB", 19.5, 19.5, 156, 312, 312, 0, 0, 1555},
    {"V100-PCIE", "V100 PCIe", 7, 14, 0, 112, 0, 0, 0, 900},
    {"V100", "V100 SXM2", 7.8, 15.7, 0, 125, 0, 0, 0, 900},
    {"L40S", "L40S", 1.4, 91.6, 183, 362, 362, 733, 0, 864},
    {"L4", "L4", 0.5, 30.3, 60, 121, 121, 242, 0, 300},
    {"A10", "A10", 0.98, 31.2, 62.5, 125, 125, 0, 0, 600},
    {"T4", "T4", 0.25, 8.1, 0, 65, 0, 0, 0, 320},
    {"RTX 4090", "GeForce RTX 4090", 1.3, 82.6, 82.6, 165.2, 165.2, 330.3, 0, 1008},
    {"RTX 2080 Ti", "GeForce RTX 2080 Ti", 0.42, 13.4, 0, 53.8, 0, 0, 0, 616},
};

const gpu_peak *peak_lookup(const char *name) {
    if (!name || !*name) return NULL;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strstr(name, table[i].match)) return &table[i];
    return NULL;
}

double peak_tflops(const gpu_peak *p, int dt, int tc) {
    if (!p) return 0;
    switch (dt) {
    case DT_FP64: return p->fp64;
    case DT_FP32: return tc && p->tf32 > 0 ? p->tf32 : p->fp32;
    case DT_FP16: return tc ? p->fp16 : p->fp32 * 2; /* half without Tensor Cores: 2x FP32 rate (packed) */
    case DT_BF16: return tc && p->bf16 > 0 ? p->bf16 : p->fp32 * 2;
    case DT_FP8: return p->fp8;
    case DT_FP4: return p->fp4;
    default: return 0;
    }
}
