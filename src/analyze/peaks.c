#include "peaks.h"
#include "flops.h"
#include "../model/trace.h"
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A row: the figures, what the name must (and must not) say, and the signature
 * (compute capability or ISA target, SM/CU count, memory) that finds it when
 * the name names no model. Sources of every figure: docs/gpu-peaks.md. */
typedef struct row {
    gpu_peak p;
    const char *also;   /* a further word the name must hold ("PCIe"), or NULL */
    const char *unless; /* '|'-separated words the name must not hold ("Ti|D|Laptop"), or NULL */
    int name_mem;       /* nominal memory (GB) a name match needs: the device's must agree (or, not
                         * given, the name must say "<name_mem>GB"); 0 for any memory */
    int name_sms;       /* SMs/CUs a name match needs when the trace gives them (one name, two parts) */
    int cc_major, cc_minor, sms, mem_gb; /* signature; sms or mem_gb 0: never matched without its name */
    const char *gfx;    /* AMD: the ISA target; NULL for NVIDIA */
} row;

#define FIG(fp64, fp32, tf32, fp16, bf16, fp8, fp4, int8, mem) fp64, fp32, tf32, fp16, bf16, fp8, fp4, mem, int8

/* Order matters only between rows whose words overlap: the more specific first. */
static const row table[] = {
    /* Blackwell */
    {{"GB200", "GB200 (per GPU)", FIG(45, 80, 1250, 2500, 2500, 5000, 10000, 5000, 8000)}, .cc_major = 10},
    {{"B200", "B200", FIG(40, 80, 1125, 2250, 2250, 4500, 9000, 4500, 8000)}, .cc_major = 10, .sms = 148},
    {{"B100", "B100", FIG(30, 60, 875, 1750, 1750, 3500, 7000, 3500, 8000)}, .cc_major = 10},
    {{"RTX 5090", "GeForce RTX 5090", FIG(1.64, 104.8, 104.8, 209.5, 209.5, 419.2, 1676, 838, 1792)}, .unless = "D|Laptop|Mobile",
     .cc_major = 12, .sms = 170, .mem_gb = 32},
    /* Hopper */
    {{"GH200", "GH200 (144 GB HBM3e)", FIG(67, 67, 494.5, 989.5, 989.5, 1979, 0, 1979, 4900)}, .name_mem = 144, .mem_gb = 144, .cc_major = 9, .sms = 132},
    {{"GH200", "GH200 (96 GB HBM3)", FIG(67, 67, 494.5, 989.5, 989.5, 1979, 0, 1979, 4000)}, .mem_gb = 96, .cc_major = 9, .sms = 132},
    {{"H200", "H200 NVL", FIG(60, 60, 417.5, 835.5, 835.5, 1670.5, 0, 1670.5, 4800)}, .also = "NVL", .mem_gb = 141, .cc_major = 9, .sms = 132},
    {{"H200", "H200 SXM", FIG(67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 4800)}, .mem_gb = 141, .cc_major = 9, .sms = 132},
    {{"H100", "H100 PCIe", FIG(51, 51, 378, 756, 756, 1513, 0, 1513, 2000)}, .also = "PCIe", .mem_gb = 80, .cc_major = 9, .sms = 114},
    {{"H100", "H100 NVL", FIG(60, 60, 417.5, 835, 835, 1670, 0, 1670, 3900)}, .also = "NVL", .mem_gb = 94, .cc_major = 9, .sms = 132},
    {{"H100", "H100 SXM", FIG(67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 3350)}, .mem_gb = 80, .cc_major = 9, .sms = 132},
    {{"H800", "H800 PCIe", FIG(0.8, 51, 378, 756, 756, 1513, 0, 1513, 2000)}, .also = "PCIe", .mem_gb = 80, .cc_major = 9, .sms = 114},
    {{"H800", "H800 SXM", FIG(1, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 3350)}, .mem_gb = 80, .cc_major = 9, .sms = 132},
    {{"H20", "H20", FIG(1, 44, 74, 148, 148, 296, 0, 296, 4000)}, .mem_gb = 96, .cc_major = 9, .sms = 78},
    /* Ampere, Ada */
    {{"A100", "A100 PCIe 80GB", FIG(19.5, 19.5, 156, 312, 312, 0, 0, 624, 1935)}, .also = "PCIe", .name_mem = 80, .mem_gb = 80, .cc_major = 8, .sms = 108},
    {{"A100", "A100 SXM4 80GB", FIG(19.5, 19.5, 156, 312, 312, 0, 0, 624, 2039)}, .name_mem = 80, .mem_gb = 80, .cc_major = 8, .sms = 108},
    {{"A100", "A100 40GB", FIG(19.5, 19.5, 156, 312, 312, 0, 0, 624, 1555)}, .mem_gb = 40, .cc_major = 8, .sms = 108},
    {{"A800", "A800 PCIe 80GB", FIG(19.5, 19.5, 156, 312, 312, 0, 0, 624, 1935)}, .also = "PCIe", .name_mem = 80, .mem_gb = 80, .cc_major = 8, .sms = 108},
    {{"A800", "A800 SXM4 80GB", FIG(19.5, 19.5, 156, 312, 312, 0, 0, 624, 2039)}, .name_mem = 80, .mem_gb = 80, .cc_major = 8, .sms = 108},
    {{"A800", "A800 40GB", FIG(19.5, 19.5, 156, 312, 312, 0, 0, 624, 1555)}, .mem_gb = 40, .cc_major = 8, .sms = 108},
    {{"A30", "A30", FIG(10.3, 10.3, 82, 165, 165, 0, 0, 330, 933)}, .mem_gb = 24, .cc_major = 8, .sms = 56},
    {{"A10", "A10", FIG(0.98, 31.2, 62.5, 125, 125, 0, 0, 250, 600)}, .mem_gb = 24, .cc_major = 8, .cc_minor = 6, .sms = 72},
    {{"L40S", "L40S", FIG(1.4, 91.6, 183, 362, 362, 733, 0, 733, 864)}, .mem_gb = 48, .cc_major = 8, .cc_minor = 9, .sms = 142},
    {{"L40", "L40", FIG(1.4, 90.5, 90.5, 181, 181, 362, 0, 362, 864)}, .mem_gb = 48, .cc_major = 8, .cc_minor = 9, .sms = 142},
    {{"L4", "L4", FIG(0.5, 30.3, 60, 121, 121, 242.5, 0, 242.5, 300)}, .mem_gb = 24, .cc_major = 8, .cc_minor = 9, .sms = 58},
    {{"RTX 4090", "GeForce RTX 4090", FIG(1.3, 82.6, 82.6, 165.2, 165.2, 330.3, 0, 660.6, 1008)}, .unless = "D|Laptop|Mobile",
     .mem_gb = 24, .cc_major = 8, .cc_minor = 9, .sms = 128},
    {{"RTX 3090", "GeForce RTX 3090", FIG(0.56, 35.6, 35.6, 71, 71, 0, 0, 284, 936)}, .unless = "Ti|Laptop|Mobile",
     .mem_gb = 24, .cc_major = 8, .cc_minor = 6, .sms = 82},
    /* Volta, Turing, Pascal */
    {{"RTX 2080 Ti", "GeForce RTX 2080 Ti", FIG(0.42, 13.4, 0, 53.8, 0, 0, 0, 215.2, 616)}, .mem_gb = 11, .cc_major = 7, .cc_minor = 5, .sms = 68},
    {{"V100S", "V100S PCIe", FIG(8.2, 16.4, 0, 130, 0, 0, 0, 0, 1134)}, .mem_gb = 32, .cc_major = 7, .sms = 80},
    {{"V100", "V100 PCIe", FIG(7, 14, 0, 112, 0, 0, 0, 0, 900)}, .also = "PCIe", .cc_major = 7, .sms = 80},
    {{"V100", "V100 SXM2", FIG(7.8, 15.7, 0, 125, 0, 0, 0, 0, 900)}, .cc_major = 7, .sms = 80},
    {{"T4", "T4", FIG(0.25, 8.1, 0, 65, 0, 0, 0, 130, 320)}, .mem_gb = 16, .cc_major = 7, .cc_minor = 5, .sms = 40},
    {{"P100", "P100 PCIe 12GB", FIG(4.7, 9.3, 0, 0, 0, 0, 0, 0, 549)}, .also = "PCIe", .name_mem = 12, .mem_gb = 12, .cc_major = 6, .sms = 56},
    {{"P100", "P100 PCIe 16GB", FIG(4.7, 9.3, 0, 0, 0, 0, 0, 0, 732)}, .also = "PCIe", .mem_gb = 16, .cc_major = 6, .sms = 56},
    {{"P100", "P100 SXM2", FIG(5.3, 10.6, 0, 0, 0, 0, 0, 0, 732)}, .mem_gb = 16, .cc_major = 6, .sms = 56},
    /* AMD Instinct: FP64 and the TF32 column are matrix-core figures (CDNA 2 and
     * earlier: FP32 matrix, having no TF32); the MI200s per die (GCD), as PyTorch sees them */
    {{"MI355X", "Instinct MI355X", FIG(78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 10066.3, 5033.2, 8000)}, .mem_gb = 288,
     .cc_major = 9, .cc_minor = 5, .sms = 256, .gfx = "gfx950"},
    {{"MI350X", "Instinct MI350X", FIG(72.1, 144.2, 0, 2306.9, 2306.9, 4613.7, 9227.5, 4613.7, 8000)}, .mem_gb = 288,
     .cc_major = 9, .cc_minor = 5, .sms = 256, .gfx = "gfx950"},
    {{"MI325X", "Instinct MI325X", FIG(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9, 6000)}, .mem_gb = 256,
     .cc_major = 9, .cc_minor = 4, .sms = 304, .gfx = "gfx942"},
    {{"MI300X", "Instinct MI300X", FIG(163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9, 5300)}, .mem_gb = 192,
     .cc_major = 9, .cc_minor = 4, .sms = 304, .gfx = "gfx942"},
    {{"MI300A", "Instinct MI300A", FIG(122.6, 122.6, 490.3, 980.6, 980.6, 1961.2, 0, 1961.2, 5300)}, .mem_gb = 128,
     .cc_major = 9, .cc_minor = 4, .sms = 228, .gfx = "gfx942"},
    {{"MI250X", "Instinct MI250X (one GCD)", FIG(47.85, 23.95, 47.85, 191.5, 191.5, 0, 0, 191.5, 1638.4)}, .mem_gb = 64, .name_sms = 110,
     .cc_major = 9, .sms = 110, .gfx = "gfx90a"},
    {{"MI250", "Instinct MI250 (one GCD)", FIG(45.25, 22.65, 45.25, 181.05, 181.05, 0, 0, 181.05, 1638.4)}, .mem_gb = 64,
     .cc_major = 9, .sms = 104, .gfx = "gfx90a"},
    {{"MI210", "Instinct MI210", FIG(45.3, 22.6, 45.3, 181, 181, 0, 0, 181, 1638.4)}, .mem_gb = 64, .cc_major = 9, .sms = 104, .gfx = "gfx90a"},
    {{"MI100", "Instinct MI100", FIG(11.5, 23.1, 46.1, 184.6, 92.3, 0, 0, 184.6, 1228.8)}, .mem_gb = 32, .cc_major = 9, .sms = 120, .gfx = "gfx908"},
};
enum { NROWS = sizeof table / sizeof *table };

const gpu_peak *peak_row(size_t i) { return i < NROWS ? &table[i].p : NULL; }

/* Whether s holds word w (case-insensitive; w may hold spaces) with no letter
 * or digit just before or after it. */
static int has_word(const char *s, const char *w, size_t wn) {
    for (const char *p = s; *p; p++) {
        if (p > s && isalnum((unsigned char)p[-1])) continue;
        if (strncasecmp(p, w, wn) || isalnum((unsigned char)p[wn])) continue;
        return 1;
    }
    return 0;
}
static int has(const char *s, const char *w) { return has_word(s, w, strlen(w)); }

/* whether s holds any of the '|'-separated words of list */
static int has_any(const char *s, const char *list) {
    for (const char *w = list; w && *w;) {
        const char *bar = strchr(w, '|');
        size_t n = bar ? (size_t)(bar - w) : strlen(w);
        if (has_word(s, w, n)) return 1;
        w = bar ? bar + 1 : w + n;
    }
    return 0;
}

/* memory (bytes) of nominal size gb: the usable GiB a device reports is 88-103% of it */
static int mem_fits(int64_t bytes, int gb) {
    double gib = (double)bytes / 1073741824.0;
    return gib >= 0.88 * gb && gib <= 1.03 * gb;
}

static int name_fits(const row *r, const peak_query *q) {
    if (!has(q->name, r->p.match) || (r->also && !has(q->name, r->also)) || (r->unless && has_any(q->name, r->unless))) return 0;
    if (r->name_sms && q->sms > 0 && q->sms != r->name_sms) return 0;
    if (!r->name_mem) return 1;
    if (q->mem_bytes > 0) return mem_fits(q->mem_bytes, r->name_mem);
    char w[16]; /* memory not given: the name's "80GB" or "144G" */
    snprintf(w, sizeof w, "%dGB", r->name_mem);
    if (has(q->name, w)) return 1;
    snprintf(w, sizeof w, "%dG", r->name_mem);
    return has(q->name, w);
}

/* A name that names no model: empty, without a digit ("AMD Radeon Graphics",
 * "NVIDIA Graphics Device"), or an ISA target ("gfx942"). */
static int generic_name(const char *n) {
    if (!n || !*n || !strncasecmp(n, "gfx", 3)) return 1;
    for (; *n; n++)
        if (isdigit((unsigned char)*n)) return 0;
    return 1;
}

static int is_amd(const peak_query *q) {
    return q->warp_size == 64 || (q->arch && !strncasecmp(q->arch, "gfx", 3)) || (q->name && (has(q->name, "AMD") || has(q->name, "gfx")));
}

/* the ISA target without its features: "gfx942" of "gfx942:sramecc+:xnack-" */
static size_t arch_len(const char *a) { return strcspn(a, ":"); }

static int sig_fits(const row *r, const peak_query *q, int amd) {
    if (!r->sms || !r->mem_gb || r->sms != q->sms || !mem_fits(q->mem_bytes, r->mem_gb) || (r->gfx != NULL) != amd) return 0;
    if (amd && q->arch && *q->arch) return arch_len(q->arch) == strlen(r->gfx) && !strncasecmp(q->arch, r->gfx, strlen(r->gfx));
    return r->cc_major == q->cc_major && r->cc_minor == q->cc_minor;
}

static int same_figures(const gpu_peak *a, const gpu_peak *b) {
    const double x[] = {a->fp64, a->fp32, a->tf32, a->fp16, a->bf16, a->fp8, a->fp4, a->int8, a->mem_gbs};
    const double y[] = {b->fp64, b->fp32, b->tf32, b->fp16, b->bf16, b->fp8, b->fp4, b->int8, b->mem_gbs};
    for (size_t i = 0; i < sizeof x / sizeof *x; i++)
        if (fabs(x[i] - y[i]) > 0.01 * fmax(x[i], y[i])) return 0;
    return 1;
}

/* "gfx942, 304 CUs, 192 GiB" or "compute capability 9.0, 132 SMs, 80 GiB" */
static void describe(const peak_query *q, int amd, char *out, size_t cap) {
    char what[48];
    if (amd && q->arch && *q->arch) snprintf(what, sizeof what, "%.*s", (int)(arch_len(q->arch) < 32 ? arch_len(q->arch) : 32), q->arch);
    else snprintf(what, sizeof what, "compute capability %d.%d", q->cc_major, q->cc_minor);
    snprintf(out, cap, "%s, %d %s, %.0f GiB", what, q->sms, amd ? "CUs" : "SMs", (double)q->mem_bytes / 1073741824.0);
}

static void put(char *basis, size_t cap, const char *s) {
    if (basis && cap) snprintf(basis, cap, "%s", s);
}

const gpu_peak *peak_match(const peak_query *q, char *basis, size_t cap) {
    assert(q);
    put(basis, cap, "");
    const char *name = q->name ? q->name : "";
    for (size_t i = 0; i < NROWS && *name; i++)
        if (name_fits(&table[i], q)) {
            assert(table[i].p.mem_gbs > 0);
            put(basis, cap, "by name");
            return &table[i].p;
        }
    if (!generic_name(name) || q->sms <= 0 || q->mem_bytes <= 0 || q->cc_major <= 0) return NULL;
    int amd = is_amd(q);
    const row *first = NULL;
    char also[160] = "", sig[96];
    int differ = 0;
    for (size_t i = 0; i < NROWS; i++) {
        if (!sig_fits(&table[i], q, amd)) continue;
        if (!first) first = &table[i];
        else {
            differ |= !same_figures(&first->p, &table[i].p);
            size_t n = strlen(also);
            snprintf(also + n, sizeof also - n, "%s%s", n ? ", " : "", table[i].p.label);
        }
    }
    describe(q, amd, sig, sizeof sig);
    char msg[400];
    if (!first) return NULL;
    if (differ) {
        snprintf(msg, sizeof msg, "none: %s fits %s and %s, whose peaks differ", sig, first->p.label, also);
        put(basis, cap, msg);
        return NULL;
    }
    if (*also) snprintf(msg, sizeof msg, "matched by %s (%s has the same peaks)", sig, also);
    else snprintf(msg, sizeof msg, "matched by %s", sig);
    put(basis, cap, msg);
    return &first->p;
}

const gpu_peak *peak_of_device(const pc_trace *t, const pc_device *d, char *basis, size_t cap) {
    peak_query q = {.name = d->name ? strtab_get(&t->strs, d->name) : "", .arch = d->arch ? strtab_get(&t->strs, d->arch) : NULL,
                    .cc_major = d->cc_major, .cc_minor = d->cc_minor, .sms = d->num_sms, .mem_bytes = d->total_mem,
                    .warp_size = d->warp_size};
    return peak_match(&q, basis, cap);
}

const gpu_peak *peak_lookup(const char *name) {
    peak_query q = {.name = name};
    return peak_match(&q, NULL, 0);
}

double peak_tflops(const gpu_peak *p, int dt, int tc) {
    if (!p) return 0;
    switch (dt) {
    case DT_FP64: return p->fp64;
    case DT_FP32: return tc && p->tf32 > 0 ? p->tf32 : p->fp32;
    case DT_FP16: return tc && p->fp16 > 0 ? p->fp16 : p->fp32 * 2; /* half without Tensor Cores: 2x FP32 rate (packed) */
    case DT_BF16: return tc && p->bf16 > 0 ? p->bf16 : p->fp32 * 2;
    case DT_FP8: return p->fp8;
    case DT_FP4: return p->fp4;
    case DT_INT8: return p->int8;
    default: return 0;
    }
}
