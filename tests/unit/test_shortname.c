/* Short names of kernels and operators (src/util/shortname.h): the table of
 * tests/expectations/short-names.tsv, collisions, and hostile names. */
#include "test.h"
#include "util/sbuf.h"
#include "util/shortname.h"
#include "util/utf8.h"
#include <ctype.h>
#include <stdlib.h>
#include <time.h>

static size_t code_points(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* every line of the table: the short name written by hand, and the rules
 * every short name keeps (valid UTF-8, at most 100 characters) */
TEST(shortname_expectations_table) {
    FILE *f = fopen("tests/expectations/short-names.tsv", "r");
    CHECK_MSG(f, "tests/expectations/short-names.tsv is missing");
    char *line = NULL;
    size_t cap = 0, rows = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n') line[--len] = 0;
        if (!len || line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        if (!tab) { test_fail(__FILE__, __LINE__, "no tab in: %s", line); break; }
        *tab = 0;
        char *got = pc_short_name(line, 0, PC_SHORT_TABLE);
        int ok = !strcmp(got, tab + 1) && code_points(got) <= PC_SHORT_TABLE && utf8_valid_prefix(got, strlen(got)) == strlen(got);
        if (!ok) test_fail(__FILE__, __LINE__, "short name of %.120s: \"%s\", expected \"%s\"", line, got, tab + 1);
        free(got);
        if (!ok) break;
        rows++;
    }
    free(line);
    fclose(f);
    if (test_failed_flag) return;
    CHECK(rows >= 40);
}

/* the levels: level 1 adds the distinguishing argument's own arguments,
 * level 2 the function's namespaces */
TEST(shortname_levels) {
    const char *fill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>, at::detail::Array<char*, 1>)";
    char *a = pc_short_name(fill, 1, 100), *b = pc_short_name("cask_cudnn_infer::computeOffsetsKernel(cask_cudnn_infer::ComputeOffsetsParams)", 2, 100),
         *c = pc_short_name("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, float const*, int, int, int)", 1, 100);
    int ok = !strcmp(a, "vectorized_elementwise_kernel<…> (FillFunctor<int>)") && !strcmp(b, "cask_cudnn_infer::computeOffsetsKernel") &&
             !strcmp(c, "softmax_warp_forward<float, float, float, 10, true>");
    if (!ok) test_fail(__FILE__, __LINE__, "levels: \"%s\", \"%s\", \"%s\"", a, b, c);
    free(a), free(b), free(c);
}

/* within one table or chart two different names never share a short name;
 * equal names (operators grouped by shapes) share one */
TEST(shortname_collisions_told_apart) {
    static const char *const names[] = {
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>, at::detail::Array<char*, 1>)",
        "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)",
        "cask_cudnn_infer::computeOffsetsKernel(cask_cudnn_infer::ComputeOffsetsParams)",
        "aten::mm",
        "aten::mm",
        /* the same words kept at both ends (the words between them too long for the room): told apart by a number */
        "nvtx_range_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_1_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
        "nvtx_range_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_2_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
    };
    enum { N = sizeof names / sizeof *names };
    char *out[N];
    pc_short_names(names, N, PC_SHORT_TABLE, out);
    static const char *const want[N] = {
        "vectorized_elementwise_kernel<…> (FillFunctor<float>)", "vectorized_elementwise_kernel<…> (FillFunctor<int>)",
        "cask_cudnn::computeOffsetsKernel", "cask_cudnn_infer::computeOffsetsKernel", "aten::mm", "aten::mm", NULL, NULL};
    for (int i = 0; i < N && !test_failed_flag; i++) {
        if (want[i] && strcmp(out[i], want[i])) test_fail(__FILE__, __LINE__, "out[%d] = \"%s\", expected \"%s\"", i, out[i], want[i]);
        if (code_points(out[i]) > PC_SHORT_TABLE) test_fail(__FILE__, __LINE__, "out[%d] has %zu characters", i, code_points(out[i]));
    }
    if (!test_failed_flag && (strcmp(out[6] + strlen(out[6]) - 1, "…") == 0 || strstr(out[6], " #")))
        test_fail(__FILE__, __LINE__, "the first of the two keeps its name: \"%s\"", out[6]);
    if (!test_failed_flag && (!strstr(out[7], " #2") || !strcmp(out[6], out[7])))
        test_fail(__FILE__, __LINE__, "the second is numbered: \"%s\" / \"%s\"", out[6], out[7]);
    /* on a chart's PC_SHORT_CHART characters the two FillFunctor kernels still differ */
    char *c[2];
    pc_short_names(names, 2, PC_SHORT_CHART, c);
    if (!test_failed_flag && (!strcmp(c[0], c[1]) || code_points(c[0]) > PC_SHORT_CHART || code_points(c[1]) > PC_SHORT_CHART))
        test_fail(__FILE__, __LINE__, "chart labels \"%s\" / \"%s\"", c[0], c[1]);
    for (int i = 0; i < N; i++) free(out[i]);
    free(c[0]), free(c[1]);
}

/* hostile names: unbalanced brackets, invalid UTF-8, a megabyte of
 * brackets, and random bytes from the characters that matter. Every result
 * is valid UTF-8 of at most max characters; the megabyte names take a
 * bounded number of passes (checked as: they finish at all, under ASan too) */
TEST(shortname_hostile_names) {
    static const char *const odd[] = {"", "<", ">", "(", ")", "void f<(", "void f>)(", "void f<<<<>(x)", "void (anonymous namespace", "::", ":::",
                                      "void ::<>()", "f()()", "void f<{lambda(int)#1}>(int)", "void f<a::{lambda()#1}>()", "operator()",
                                      "void std::vector<int>::~vector()", "\xff\xfe<\xc3(", "void k<\xe2\x82>(int)", "void f<a->b>(x)", "  ", NULL};
    for (int i = 0; odd[i] && !test_failed_flag; i++)
        for (int level = 0; level <= 2; level++) {
            char *s = pc_short_name(odd[i], level, 8);
            if (utf8_valid_prefix(s, strlen(s)) != strlen(s) || code_points(s) > 8) test_fail(__FILE__, __LINE__, "name %d level %d: \"%s\"", i, level, s);
            free(s);
        }
    CHECK(!test_failed_flag);
    char *nul = pc_short_name(NULL, 0, 20);
    CHECK_EQ_S(nul, "");
    free(nul);
    /* a megabyte: "void f<" nested 300,000 deep, then the same unbalanced the other way */
    size_t big = (size_t)1 << 20;
    char *m = malloc(big + 1);
    for (size_t i = 0; i < big; i++) m[i] = "<(x,"[i % 4];
    m[big] = 0;
    memcpy(m, "void f", 6);
    const char *names[3] = {m, NULL, NULL};
    char *m2 = malloc(big + 1);
    for (size_t i = 0; i < big; i++) m2[i] = ")>::"[i % 4];
    m2[big] = 0;
    char *m3 = malloc(big + 1);
    for (size_t i = 0; i < big; i++) m3[i] = "void a<b, c::{lambda(int)#1}>(x) "[i % 33];
    m3[big] = 0;
    names[1] = m2, names[2] = m3;
    for (int k = 0; k < 3 && !test_failed_flag; k++)
        for (int level = 0; level <= 2; level++) {
            char *s = pc_short_name(names[k], level, PC_SHORT_TABLE);
            if (code_points(s) > PC_SHORT_TABLE || utf8_valid_prefix(s, strlen(s)) != strlen(s)) test_fail(__FILE__, __LINE__, "megabyte name %d level %d", k, level);
            free(s);
        }
    char *out[3];
    pc_short_names(names, 3, PC_SHORT_CHART, out);
    for (int k = 0; k < 3; k++) {
        if (!test_failed_flag && code_points(out[k]) > PC_SHORT_CHART) test_fail(__FILE__, __LINE__, "megabyte name %d: %zu characters", k, code_points(out[k]));
        free(out[k]);
    }
    free(m), free(m2), free(m3);
    CHECK(!test_failed_flag);
    /* random names from the characters that matter, in groups that collide */
    static const char alpha[] = "<>()[]{}:, #&*~-abcvoidlambdaFunctor\xc3\xa9\xff\x80";
    unsigned seed = 12345;
    for (int round = 0; round < 300 && !test_failed_flag; round++) {
        enum { G = 24 };
        char *rn[G], *ro[G];
        for (int i = 0; i < G; i++) {
            seed = seed * 1103515245u + 12345u;
            size_t len = (seed >> 16) % 220;
            rn[i] = malloc(len + 20);
            memcpy(rn[i], i % 3 ? "void at::native::k<" : "x", i % 3 ? 19 : 1);
            for (size_t j = i % 3 ? 19 : 1; j < len; j++) {
                seed = seed * 1103515245u + 12345u;
                rn[i][j] = alpha[(seed >> 16) % (sizeof alpha - 1)];
            }
            rn[i][len > 19 ? len : (i % 3 ? 19 : 1)] = 0;
        }
        pc_short_names((const char *const *)rn, G, 12, ro);
        for (int i = 0; i < G && !test_failed_flag; i++) {
            if (code_points(ro[i]) > 12 || utf8_valid_prefix(ro[i], strlen(ro[i])) != strlen(ro[i]))
                test_fail(__FILE__, __LINE__, "round %d name %d: \"%s\"", round, i, ro[i]);
            for (int j = 0; j < i && !test_failed_flag; j++)
                if (!strcmp(ro[i], ro[j]) && strcmp(rn[i], rn[j])) test_fail(__FILE__, __LINE__, "round %d: \"%s\" twice", round, ro[i]);
        }
        for (int i = 0; i < G; i++) free(rn[i]), free(ro[i]);
    }
}

/* the words of s (runs of identifier characters, split after '_' and before
 * an upper-case letter that follows a lower-case one), each as "|word|" in
 * out: the test's own reading of a word, independent of shortname.c's */
static void words_of(const char *s, sbuf *out) {
    size_t n = strlen(s), i = 0;
    sbuf_putc(out, '|');
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        int id = isalnum(c) || c == '$' || (c >= 0x80 && !(i + 2 < n && !memcmp(s + i, "…", 3)));
        if (!id || c == '_') { i += !id && c == 0xE2 && i + 2 < n && !memcmp(s + i, "…", 3) ? 3 : 1; continue; }
        size_t j = i + 1;
        while (j < n) {
            unsigned char d = (unsigned char)s[j], p = (unsigned char)s[j - 1];
            if (d == '_' || !(isalnum(d) || d == '$' || d >= 0x80) || (d == 0xE2 && j + 2 < n && !memcmp(s + j, "…", 3))) break;
            if (islower(p) && isupper(d)) break;
            j++;
        }
        sbuf_putn(out, s + i, j - i);
        sbuf_putc(out, '|');
        i = j;
    }
}

/* #47 item 7: a short name is cut only between identifiers or between the
 * words of one (never "cunn_SoftMa…ward"): on every real kernel name of
 * tests/data/kernel_names.tsv, at a table's, a chart's and the trend's
 * widths, every word of the short name is a whole word of the full name; a
 * cut inside a word only where one word alone is longer than the room (none
 * at the table's and the chart's widths) */
TEST(shortname_cut_at_word_boundaries) {
    FILE *f = fopen("tests/data/kernel_names.tsv", "r");
    CHECK_MSG(f, "tests/data/kernel_names.tsv is missing");
    char *line = NULL;
    size_t cap = 0, names = 0, cut = 0;
    ssize_t len;
    static const size_t widths[] = {PC_SHORT_TABLE, PC_SHORT_CHART};
    while ((len = getline(&line, &cap, f)) > 0 && !test_failed_flag) {
        if (line[len - 1] == '\n') line[--len] = 0;
        if (!len || line[0] == '#') continue;
        char *name = line;
        for (int k = 0; k < 4 && name; k++) name = strchr(name, '\t') ? strchr(name, '\t') + 1 : NULL;
        if (!name) continue;
        names++;
        sbuf fw = {0};
        words_of(name, &fw);
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
            char *s = pc_short_name(name, 0, widths[w]);
            sbuf sw = {0};
            words_of(s, &sw);
            for (const char *e = s; (e = strstr(e, "…")); e += 3) cut += e == s || e[-1] != '<';
            /* each |word| of the short name is one of the full name's */
            for (char *p = sw.data + 1, *q; *p && (q = strchr(p, '|')); p = q + 1) {
                char want[300];
                snprintf(want, sizeof want, "|%.*s|", (int)(q - p), p);
                if (!strstr(fw.data, want)) {
                    test_fail(__FILE__, __LINE__, "width %zu: \"%s\" holds %s, no word of %.160s", widths[w], s, want, name);
                    break;
                }
            }
            if (code_points(s) > widths[w]) test_fail(__FILE__, __LINE__, "\"%s\" is over %zu", s, widths[w]);
            sbuf_free(&sw);
            free(s);
        }
        sbuf_free(&fw);
    }
    free(line);
    fclose(f);
    CHECK(names >= 200);
    CHECK(cut >= 20); /* the widths do cut many of them */
    /* the issue's example, at a width that cuts it */
    char *s = pc_short_name("void cunn_SoftMaxBackward<2, float, float, float, LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, long)", 0, 16);
    CHECK_MSG(!strstr(s, "SoftMa…") && !strstr(s, "…ward"), s);
    free(s);
}
