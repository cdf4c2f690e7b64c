/* Kernel families (src/analyze/kfamily.c) against tests/data/kernel_names.tsv: real kernel
 * names with their family, matrix-core flag, data type and communication library written by
 * hand from the libraries' facts; and the classifier on hostile strings. */
#include "test.h"
#include "analyze/kfamily.h"
#include "analyze/analyze.h"
#include <stdlib.h>

/* one TSV line split in place into its 5 fields; 0 when it is not a row */
static int split_row(char *line, char *f[5]) {
    if (line[0] == '#' || line[0] == '\n' || !line[0]) return 0;
    line[strcspn(line, "\r\n")] = 0;
    for (int i = 0; i < 4; i++) {
        f[i] = line;
        char *tab = strchr(line, '\t');
        if (!tab) return 0;
        *tab = 0;
        line = tab + 1;
    }
    f[4] = line;
    return 1;
}

TEST(kfamily_real_kernel_names) {
    FILE *fp = fopen("tests/data/kernel_names.tsv", "r");
    CHECK_MSG(fp, "tests/data/kernel_names.tsv: run the tests from the project root");
    char line[8192];
    int rows = 0, bad = 0, fam_seen[KF_NFAMILY] = {0}, mc_yes = 0;
    while (fgets(line, sizeof line, fp)) {
        char *f[5];
        if (!split_row(line, f)) continue;
        rows++;
        kf_info k = kf_classify(f[4]);
        const char *dt = kf_dtype_name(k.dtype), *lib = kf_lib_name(k.lib);
        int ok = !strcmp(kf_family_name(k.family), f[0]) && !strcmp(kf_mc_name(k.mc), f[1]) &&
                 !strcmp(*dt ? dt : "-", f[2]) && !strcmp(*lib ? lib : "-", f[3]);
        if (!ok) {
            bad++;
            fprintf(stderr, "  kernel_names.tsv: %s\n    expected %s/%s/%s/%s, got %s/%s/%s/%s\n", f[4], f[0], f[1], f[2], f[3],
                    kf_family_name(k.family), kf_mc_name(k.mc), *dt ? dt : "-", *lib ? lib : "-");
        }
        fam_seen[k.family]++;
        mc_yes += k.mc == 1;
        /* the two wired predicates say what the table says */
        CHECK_MSG(name_is_nccl(f[4]) == !strcmp(f[0], "communication"), "name_is_nccl(%s)", f[4]);
        CHECK_MSG(kernel_uses_tensor_cores(f[4]) == k.mc, "kernel_uses_tensor_cores(%s)", f[4]);
    }
    fclose(fp);
    CHECK_MSG(rows >= 200, "%d rows, at least 200 wanted", rows);
    for (int i = 0; i < KF_NFAMILY; i++) CHECK_MSG(fam_seen[i] > 0, "no row of family %s", kf_family_name(i));
    CHECK(mc_yes >= 40);
    CHECK_MSG(bad == 0, "%d of %d names classified otherwise than expected (listed above)", bad, rows);
}

/* a Triton kernel the name leaves open is a matrix product under a matmul operator */
TEST(kfamily_triton_by_launching_operator) {
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::mm"), 1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::addmm"), 1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::add_"), -1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", NULL), -1);
    CHECK_EQ_I(kf_matrix_core_under("triton__0d1d2d3d", "aten::mmx"), -1);
    CHECK_EQ_I(kf_matrix_core_under("triton_poi_fused_add_0", "aten::mm"), 0); /* the name says: no tl.dot */
    CHECK_EQ_I(kf_matrix_core_under("volta_sgemm_128x64_nn", "aten::mm"), 0);
}

/* names of every byte, of 1 MiB, empty, NULL: an answer in range, no crash, no overrun */
TEST(kfamily_hostile_names) {
    kf_info k = kf_classify(NULL);
    CHECK(k.family == KF_OTHER && k.mc == 0 && k.dtype == KF_DT_NONE);
    k = kf_classify("");
    CHECK(k.family == KF_OTHER && k.mc == 0);
    uint32_t seed = 12345;
    char buf[600];
    for (int it = 0; it < 20000; it++) {
        size_t n = 0, len = (size_t)(seed % 599);
        for (; n < len; n++) {
            seed = seed * 1103515245u + 12345u;
            unsigned char c = (unsigned char)(seed >> 16);
            if (!c) c = 'x';
            /* every 4th string mixes in pattern fragments, to reach the rules' edges */
            if (it % 4 == 0 && (seed & 7) == 0) {
                static const char *const frag[] = {"Cijk_", "_MI", "nccl", "deep_ep::", "gemm", "fmha", "sm90", "triton_",
                                                   "(anonymous namespace)", "<", "(", "matmul_ogs_", "f16", "e4m3", "_"};
                const char *f = frag[(seed >> 8) % (sizeof frag / sizeof *frag)];
                size_t fl = strlen(f);
                if (n + fl >= len) break;
                memcpy(buf + n, f, fl);
                n += fl - 1;
                continue;
            }
            buf[n] = (char)c;
        }
        buf[n] = 0;
        k = kf_classify(buf);
        CHECK(k.family < KF_NFAMILY && k.dtype < KF_NDTYPE && k.lib < KF_NLIB && k.mc >= -1 && k.mc <= 1);
        CHECK((k.lib != KF_LIB_NONE) == (k.family == KF_COMM));
    }
    /* edges of the Tensile and matmul_ogs parsers */
    static const char *const edge[] = {"Cijk_", "Cijk_A", "Cijk_A_B", "Cijk_A_B_", "xCijk_A_B_F", "_MI", "Cijk__MI",
                                       "matmul_ogs_", "matmul_ogs_x", "matmul_ogs__", "(anonymous namespace)",
                                       "(anonymous namespace", "<", "(", "f16", "bf16", NULL};
    for (int i = 0; edge[i]; i++) {
        k = kf_classify(edge[i]);
        CHECK(k.family < KF_NFAMILY && k.dtype < KF_NDTYPE);
    }
    /* 1 MiB: heap-lowercased; a pattern at the very end is still seen */
    size_t big = 1 << 20;
    char *s = malloc(big + 1);
    CHECK(s);
    memset(s, 'a', big);
    memcpy(s + big - 4, "nccl", 4);
    s[big] = 0;
    k = kf_classify(s);
    int comm = k.family == KF_COMM && k.lib == KF_LIB_NCCL;
    memcpy(s + big - 4, "aaaa", 4);
    k = kf_classify(s);
    free(s);
    CHECK(comm);
    CHECK(k.family == KF_OTHER);
    CHECK_EQ_S(kf_family_name(99), "other");
    CHECK_EQ_S(kf_dtype_name(-1), "");
    CHECK_EQ_S(kf_lib_name(99), "");
    CHECK_EQ_S(kf_family_label(KF_LAYOUT), "Layout / transpose");
}
